#!/usr/bin/env python3
"""make figures: the lesson figures, drawn from the programs' own data.

Reads the JSON that the programs wrote with --figure-data on the book's examples (make figures
runs the programs that programs.txt marks figure= into build/figure-data/, in emulation where
there is no GPU), runs build/degree_histogram on each of the sweep's graphs (sweep.SKEWS, at a
small scale), and writes notes/figures/lesson_*.png: the CSR and the CSC of the book's graph with
each vertex's slice (112, 118), 144's access maps, the merge path of Fig. 14.1 (148), the build's
steps (115) with the build's times from the newest sweep CSV, and the degree histograms, with
nvcc or without it (the C++ compiler then builds the kernel programs).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plots import newest_csv  # noqa: E402
from program_list import read_programs  # noqa: E402
from table_text import read_measurements  # noqa: E402
from sweep import SKEWS, commit, read_sweep  # noqa: E402

# 16:9 at slide size; titles of 18 points or more.
FIGSIZE = (16, 9)
DPI = 100
TITLE = 22
SUBTITLE = 18
TEXT = 15
SMALL = 12
ARRAY = 17  # the numbers in an array's boxes
# One colour per vertex, row or thread, the same in every figure.
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#9c755f", "#76b7b2",
           "#edc948"]
PADDING_GREY = "#d9d9d9"


def colour(i):
    return PALETTE[i % len(PALETTE)]


def load(data_dir, name):
    with open(os.path.join(data_dir, name + ".json")) as f:
        return json.load(f)


def boxes(ax, x0, y, items, label=None, fills=None, width=1.0, height=0.8, indices=True):
    """One array as a row of boxes from x0, its name at the left and its indices above."""
    for i, item in enumerate(items):
        fill = fills[i] if fills else "white"
        ax.add_patch(plt.Rectangle((x0 + i * width, y), width, height, facecolor=fill,
                                   edgecolor="black", linewidth=1.2))
        ax.text(x0 + (i + 0.5) * width, y + height / 2, str(item), ha="center", va="center",
                fontsize=ARRAY, color="black")
        if indices:
            ax.text(x0 + (i + 0.5) * width, y + height + 0.08, str(i), ha="center",
                    va="bottom", fontsize=SMALL - 2, color="#555555")
    if label:
        ax.text(x0 - 0.25, y + height / 2, label, ha="right", va="center", fontsize=TEXT,
                family="monospace")


def number(x):
    """A float array's element as the programs print it: 4, not 4.0."""
    return int(x) if float(x).is_integer() else x


def owner_of(slices, n):
    """For each of n slots, the row (vertex) whose slice holds it."""
    owner = [None] * n
    for v, s in enumerate(slices):
        for k in range(s["begin"], s["end"]):
            owner[k] = v
    return owner


def slice_brackets(ax, x0, y, slices, name):
    """Under an array: each row's slice as a bracket, its row and its [begin, end); an empty
    slice is named below the others, at the place where it starts and ends."""
    for v, s in enumerate(slices):
        if s["end"] == s["begin"]:
            ax.annotate(f"{name} {v}: [{s['begin']}, {s['end']}), empty",
                        (x0 + s["begin"], y), (x0 + s["begin"] - 0.1, y - 1.45), fontsize=SMALL,
                        ha="right", va="center", color=colour(v),
                        arrowprops=dict(arrowstyle="->", color=colour(v)))
            continue
        left, right = x0 + s["begin"] + 0.06, x0 + s["end"] - 0.06
        ax.plot([left, left, right, right], [y, y - 0.15, y - 0.15, y], color=colour(v),
                linewidth=2.5)
        ax.text((left + right) / 2, y - 0.22, f"{name} {v}\n[{s['begin']}, {s['end']})",
                ha="center", va="top", fontsize=SMALL, color=colour(v))


def offsets_to_slices(ax, x_off, y_off, x_idx, y_idx, offsets):
    """An arrow from each offset down to where its slice starts."""
    for v, start in enumerate(offsets):
        ax.annotate("", (x_idx + start, y_idx + 0.8), (x_off + v + 0.5, y_off),
                    arrowprops=dict(arrowstyle="->", color=colour(v) if v + 1 < len(offsets)
                                    else "black", linewidth=1.5))


def canvas(title):
    fig = plt.figure(figsize=FIGSIZE)
    fig.suptitle(title, fontsize=TITLE, fontweight="bold", y=0.965)
    return fig


def bare(ax, xlim, ylim):
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.axis("off")


def where_drawn_from(d):
    """Where the figure's data came from: the kernels' device (emulated, or the GPU) where the
    program ran kernels for it, else the host's arrays."""
    if d is None or not d.get("where"):
        return "host arrays, no kernel run"
    return "kernels: " + d["where"].split(",")[0]


def save(fig, out_dir, name, source):
    """The figure, with the date it was drawn, its data's source and the tree's commit in its
    corner."""
    drawn = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    fig.text(0.995, 0.006, f"drawn {drawn}, {source}, commit {commit()}", ha="right",
             va="bottom", fontsize=SMALL - 1, color="dimgray")
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def draw_csr(d, out_dir):
    fig = canvas("CSR: the adjacency list flattened into two arrays (112)")
    ax = fig.add_axes([0.02, 0.02, 0.96, 0.87])
    bare(ax, (-0.6, 17.4), (-3.6, 7.4))
    ax.text(-0.4, 6.9, "adjacency list:\none container per vertex", fontsize=SUBTITLE,
            ha="left", va="center")
    for v, neighbours in enumerate(d["adjacency"]):
        y = 5.0 - v * 1.05
        ax.text(1.4, y + 0.4, f"adj[{v}]", ha="right", va="center", fontsize=TEXT,
                family="monospace", color=colour(v))
        boxes(ax, 1.6, y, neighbours or ["(none)"],
              fills=[colour(v) + "55"] * max(1, len(neighbours)),
              width=1.0 if neighbours else 1.6, indices=False)
    x0 = 7.6
    ax.text(x0 - 2.6, 6.9, "CSR: every list in one array (col_idx), each found by two reads "
            "of row_offsets", fontsize=SUBTITLE, ha="left", va="center")
    offsets, col_idx = d["row_offsets"], d["col_idx"]
    boxes(ax, x0, 4.6, offsets, "row_offsets",
          fills=[colour(v) + "55" for v in range(len(offsets) - 1)] + ["#eeeeee"])
    owner = owner_of(d["slices"], len(col_idx))
    boxes(ax, x0, 1.6, col_idx, "col_idx", fills=[colour(o) + "55" for o in owner])
    offsets_to_slices(ax, x0, 4.55, x0, 1.6, offsets)
    slice_brackets(ax, x0, 1.5, d["slices"], "vertex")
    ax.text(x0 - 2.6, -2.6,
            "Vertex v's neighbours are col_idx[row_offsets[v]] up to col_idx[row_offsets[v + 1]], "
            "not included:\nthe slice that thread v of 113 reads. row_offsets has V + 1 = "
            f"{len(offsets)} entries, the last the edge count {offsets[-1]},\nso the last "
            "vertex's slice ends like every other.", fontsize=TEXT, ha="left", va="center")
    return save(fig, out_dir, "lesson_csr.png", where_drawn_from(d))


def draw_csc(d, out_dir):
    csr, csc = d["csr"], d["csc"]
    fig = canvas("CSC: the same nine edges grouped by destination (118)")
    ax = fig.add_axes([0.01, 0.01, 0.98, 0.89])
    bare(ax, (-3.2, 17.2), (-5.9, 8.3))
    n = len(csr["col_idx"])
    for top, title, offsets_name, index_name, part in [
            (7.7, "CSR, grouped by source: whom does v point to?", "row_offsets", "col_idx", csr),
            (0.7, "CSC, grouped by destination: who points to v?", "col_offsets", "row_idx",
             csc)]:
        offsets, indices, slices = part[offsets_name], part[index_name], part["slices"]
        ax.text(-3.0, top, title, fontsize=SUBTITLE, ha="left", va="center")
        fills = [colour(o) + "55" for o in owner_of(slices, n)]
        boxes(ax, 1.0, top - 1.6, offsets, offsets_name,
              fills=[colour(v) + "55" for v in range(len(offsets) - 1)] + ["#eeeeee"])
        boxes(ax, 1.0, top - 3.4, indices, index_name, fills=fills)
        boxes(ax, 1.0, top - 4.3, [number(w) for w in part["weights"]], "weights", fills=fills,
              indices=False)
        offsets_to_slices(ax, 1.0, top - 1.65, 1.0, top - 3.4, offsets)
        slice_brackets(ax, 1.0, top - 4.4, slices, "v")
    ax.text(11.0, 4.9, "col_idx lists each vertex's\nout-neighbours, row_idx its\n"
            "in-neighbours; the weights\nmove with their edges.", fontsize=TEXT, ha="left",
            va="center")
    ax.text(11.0, -1.2, "in_degree = [ " + " ".join(map(str, csc["in_degree"])) + " ]\n\n"
            "115's count, scan and scatter,\nkeyed on the destination:\n"
            "col_offsets is the scan of\nin_degree", fontsize=TEXT, ha="left", va="center")
    ax.text(11.0, -4.6, f"kernels: {d['where']}", fontsize=SMALL, ha="left", va="center")
    return save(fig, out_dir, "lesson_csc.png", where_drawn_from(d))


def draw_access_maps(d, out_dir):
    maps = d["maps"]
    fig = canvas("Which element of values (value) each thread reads, step by step (144)")
    rows = len(d["row_offsets"]) - 1
    row_of = owner_of([{"begin": d["row_offsets"][r], "end": d["row_offsets"][r + 1]}
                       for r in range(rows)], len(d["values"]))
    heights = [max(1, len(m["reads"])) + 1.6 for m in maps]
    top, gap, bottom = 0.85, 0.055, 0.15
    usable = top - bottom - gap * (len(maps) - 1)
    titles = {"csr_thread_per_row": "CSR, thread per row: thread t reads "
                                    "values[row_offsets[t] + i] in step i",
              "csr_warp_per_row": "CSR, warp per row: lane l of warp w reads entries l, "
                                  "l + 32, ... of row w",
              "ell_thread_per_row": "ELL, column-major: thread t reads slot i * num_rows + t "
                                    "in step i"}
    for m, height in zip(maps, heights):
        frac = usable * height / sum(heights)
        ax = fig.add_axes([0.09, top - frac, 0.90, frac])
        top -= frac + gap
        elements, steps = m["elements"], len(m["reads"])
        bare(ax, (-0.2, 19.0), (steps + 0.1, -0.9))
        padding = set(m["padding"])
        ell = m["name"].startswith("ell")
        warp_per_row = m["name"] == "csr_warp_per_row"
        for e in range(elements):
            owner = e % rows if ell else row_of[e]
            fill = PADDING_GREY if e in padding else colour(owner) + "33"
            ax.add_patch(plt.Rectangle((e, -0.75), 1, 0.55, facecolor=fill, edgecolor="black"))
            ax.text(e + 0.5, -0.47, "pad" if e in padding else str(e), ha="center",
                    va="center", fontsize=SMALL)
        ax.text(-0.3, -0.47, "element", ha="right", va="center", fontsize=SMALL)
        warp = m["warp_size"]
        for i, step in enumerate(m["reads"]):
            ax.text(-0.3, i + 0.5, f"step {i}", ha="right", va="center", fontsize=TEXT)
            ax.add_patch(plt.Rectangle((0, i), elements, 1, fill=False, edgecolor="#999999",
                                       linewidth=0.8))
            for t, e in enumerate(step):
                if e < 0:
                    continue
                row = t // warp if warp_per_row else t
                ax.add_patch(plt.Rectangle((e, i), 1, 1, facecolor=colour(row),
                                           edgecolor="black"))
                ax.text(e + 0.5, i + 0.5, f"w{t // warp} l{t % warp}" if warp_per_row
                        else f"t{t}", ha="center", va="center", fontsize=SMALL,
                        color="white", fontweight="bold")
        ax.text(-0.2, -1.0, titles.get(m["name"], m["label"]), fontsize=SUBTITLE, ha="left",
                va="bottom")
        ax.text(12.6, steps / 2 - 0.3,
                f"{m['requests']} warp requests, {m['contiguous_requests']} of them\n"
                "contiguous (request_model.h's model)", fontsize=TEXT, ha="left", va="center")
    fig.text(0.02, 0.032,
             "In one step the lanes of a warp load together. Thread per row: a row apart "
             "(strided), the threads of short rows idle.\nWarp per row (w = warp, l = lane): "
             "a row's entries side by side. ELL: step i of every row side by side, padded to "
             "the longest row.\nColour: the row that a thread works on; the element strip: the "
             "row that each element belongs to. row_offsets is the book's rowPtrs.",
             fontsize=TEXT, ha="left", va="bottom")
    return save(fig, out_dir, "lesson_access_maps.png", where_drawn_from(d))


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def draw_merge_path(d, out_dir):
    rows, nnz, steps = d["num_rows"], d["nnz"], d["steps_per_thread"]
    threads = d["threads"]
    fig = canvas(f"Merge path of Fig. 14.1 (148): {rows + nnz} steps, "
                 f"{len(threads)} threads of {steps}")
    ax = fig.add_axes([0.07, 0.11, 0.57, 0.76])
    ax.set_xlim(-0.5, nnz + 1.7)
    ax.set_ylim(rows + 0.5, -0.6)
    ax.set_xticks(range(nnz + 1))
    ax.set_yticks(range(rows + 1))
    ax.tick_params(labelsize=TEXT)
    ax.set_xlabel("nonzeros taken: index j into values (value) and col_idx (colIdx)",
                  fontsize=TEXT)
    ax.set_ylabel("row ends taken: row_offsets[1..] (rowPtrs)", fontsize=TEXT)
    ax.grid(True, color="#dddddd")
    for t in range(1, len(threads)):
        diagonal = t * steps
        ax.plot([diagonal + 0.6, -0.6], [-0.6, diagonal + 0.6], linestyle="--", color="gray",
                linewidth=1)
        ax.text(diagonal + 0.62, -0.5, f"diagonal {diagonal}", fontsize=SMALL, color="gray",
                ha="left", va="center")
    for t, thread in enumerate(threads):
        xs, ys = [thread["first_nonzero"]], [thread["first_row"]]
        for step in thread["steps"]:
            takes_nonzero = step["takes"] == "nonzero"
            xs.append(step["nonzero"] + takes_nonzero)
            ys.append(step["row"] + (not takes_nonzero))
            if takes_nonzero:
                ax.text(step["nonzero"] + 0.5, step["row"] - 0.1, f"j = {step['nonzero']}",
                        ha="center", va="bottom", fontsize=SMALL, color=colour(t))
            else:
                ax.text(step["nonzero"] + 0.1, step["row"] + 0.5, f"end of row {step['row']}",
                        ha="left", va="center", fontsize=SMALL, color=colour(t))
        ax.plot(xs, ys, color=colour(t), linewidth=6, solid_capstyle="round")
        ax.plot(xs[0], ys[0], "o", color=colour(t), markersize=14, markeredgecolor="black")
    fig.text(0.67, 0.80, "Each step takes a nonzero (right)\nor the end of a row (down).\n"
             f"Thread t starts on diagonal {steps} x t,\nfound by one binary search along it.",
             fontsize=TEXT, ha="left", va="top")
    for t, thread in enumerate(threads):
        fig.text(0.67, 0.56 - 0.05 * t,
                 f"thread {t}: {plural(thread['nonzeros'], 'nonzero')} + "
                 f"{plural(thread['rows_closed'], 'row end')}", fontsize=TEXT, ha="left",
                 va="top", color=colour(t), fontweight="bold")
    fig.text(0.67, 0.52 - 0.05 * len(threads),
             f"row_offsets = [ {' '.join(map(str, d['row_offsets']))} ]\n\nNo thread takes more "
             f"than {steps} steps,\nhowever long a row is: a row of\n40,000 entries is shared "
             "by the\nthreads whose steps it spans.", fontsize=TEXT, ha="left", va="top")
    return save(fig, out_dir, "lesson_merge_path.png", where_drawn_from(d))


def build_times(csv_path):
    """The whole build's time per skew: 124's timing of 115's three kernels together (the sweep
    times no step alone)."""
    header, rows = read_sweep(csv_path)
    times = {r["skew"]: float(r["ms"]) for r in rows if r["program"] == "124"
             and r["kernel"] == "count_scan_scatter" and r.get("ms") and not r.get("skipped")}
    return header, [(label, times[label]) for label, _ in SKEWS if label in times]


# Each step's own time, which the sweep does not take: 115's run at scale 22, in the notes'
# measurements.
STEP_TIMES = "notes/measurements/builds-113-118.csv"
STEP_KERNELS = [("atomic_count", "1 count"), ("cub_scan", "2 scan"),
                ("atomic_scatter", "3 scatter")]


def draw_step_times(ax):
    header, rows = read_measurements(STEP_TIMES)
    ms = {r["kernel"]: float(r["ms"]) for r in rows
          if r["program"] == "115" and r["run"] == "default"}
    names = [label for kernel, label in STEP_KERNELS]
    times = [ms[kernel] for kernel, _ in STEP_KERNELS]
    ax.barh(range(len(times)), times, color=PALETTE[1], height=0.6)
    for y, t in enumerate(times):
        ax.text(t, y, f" {t:.3g} ms", va="center", ha="left", fontsize=SMALL)
    ax.set_yticks(range(len(times)))
    ax.set_yticklabels(names, fontsize=SMALL)
    ax.invert_yaxis()
    ax.set_xlim(0, max(times) * 1.35)
    ax.tick_params(axis="x", labelsize=SMALL)
    ax.set_xlabel("ms", fontsize=SMALL)
    ax.set_title("each step alone (115, skew 0.57)", fontsize=TEXT)
    ax.text(0.0, -0.42, f"scale 22, {header.get('device', '?')}, {os.path.basename(STEP_TIMES)}",
            transform=ax.transAxes, fontsize=SMALL, ha="left", va="top")


def draw_build(d, csv_path, out_dir):
    fig = canvas("CSR from an unsorted edge list (115): count, scan, scatter")
    ax = fig.add_axes([0.01, 0.02, 0.62, 0.87])
    bare(ax, (-3.5, 10), (-10.0, 3.4))
    src, dst, weights = d["rows"], d["cols"], d["weights"]
    steps = {s["step"]: s for s in d["steps"]}
    src_fills = [colour(v) + "55" for v in src]
    ax.text(-3.4, 3.0, "the edges as they arrive, one thread each", fontsize=SUBTITLE,
            ha="left", va="center")
    boxes(ax, 0, 1.2, src, "rows (src)", fills=src_fills)
    boxes(ax, 0, 0.4, dst, "cols (dst)", fills=src_fills, indices=False)
    boxes(ax, 0, -0.4, [number(w) for w in weights], "weights", fills=src_fills, indices=False)
    degree = steps["count"]["degree"]
    vertex_fills = [colour(v) + "55" for v in range(len(degree))]
    ax.text(-3.4, -1.55, "1 count: thread e adds 1 to degree[rows[e]] (atomic)",
            fontsize=SUBTITLE, ha="left", va="center")
    boxes(ax, 0, -2.9, degree, "degree", fills=vertex_fills)
    offsets = steps["scan"]["row_offsets"]
    ax.text(-3.4, -4.05, "2 scan: exclusive sum of degree", fontsize=SUBTITLE, ha="left",
            va="center")
    boxes(ax, 0, -5.4, offsets, "row_offsets", fills=vertex_fills + ["#eeeeee"])
    ax.text(-3.4, -6.55, "3 scatter: thread e takes slot cursor[rows[e]]++ (atomic)",
            fontsize=SUBTITLE, ha="left", va="center")
    slot_of = d["slot_of_thread"]
    thread_in_slot = {slot: e for e, slot in enumerate(slot_of)}
    owners = [src[thread_in_slot[k]] if k in thread_in_slot else None
              for k in range(len(steps["scatter"]["col_idx"]))]
    fills = [colour(o) + "55" if o is not None else "white" for o in owners]
    boxes(ax, 0, -7.9, steps["scatter"]["col_idx"], "col_idx", fills=fills)
    boxes(ax, 0, -8.7, [number(w) for w in steps["scatter"]["weights"]], "weights", fills=fills,
          indices=False)
    ax.text(-0.25, -9.0, "written by", ha="right", va="top", fontsize=SMALL, color="#333333")
    for k in range(len(owners)):
        if k in thread_in_slot:
            ax.text(k + 0.5, -9.0, f"t{thread_in_slot[k]}", ha="center", va="top",
                    fontsize=SMALL, color="#333333")
    ax.text(-3.4, -9.8, f"kernels: {d['where']}", fontsize=SMALL, ha="left", va="center")

    draw_step_times(fig.add_axes([0.69, 0.60, 0.29, 0.26]))
    bars = fig.add_axes([0.69, 0.15, 0.29, 0.26])
    if csv_path is None:
        bars.axis("off")
        bars.text(0.5, 0.5, "no sweep CSV in notes/bench/", ha="center", fontsize=TEXT)
        return save(fig, out_dir, "lesson_build_steps.png", where_drawn_from(d))
    header, times = build_times(csv_path)
    labels = [("G500" if label == "graph500" else label) for label, _ in times]
    xs = [i + (0.6 if label == "graph500" else 0) for i, (label, _) in enumerate(times)]
    bars.bar(xs, [ms for _, ms in times], color=PALETTE[0], width=0.7)
    for x, (_, ms) in zip(xs, times):
        bars.text(x, ms, f"{ms:.1f}", ha="center", va="bottom", fontsize=SMALL)
    bars.set_xticks(xs)
    bars.set_xticklabels(labels, fontsize=SMALL)
    bars.tick_params(axis="y", labelsize=SMALL)
    bars.set_ylabel("ms", fontsize=SMALL)
    bars.set_ylim(0, max(ms for _, ms in times) * 1.25)
    bars.set_title("the whole build, by R-MAT skew", fontsize=TEXT)
    fig.text(0.69, 0.09,
             f"124's timing of 115's kernels, scale {header.get('scale', '?')},\n"
             f"{os.path.basename(csv_path)}, commit {header.get('commit', '?')}",
             fontsize=SMALL, ha="left", va="top")
    return save(fig, out_dir, "lesson_build_steps.png", where_drawn_from(d))


def sweep_graph_facts(csv_path):
    """The longest row and the share of empty rows of each graph that the sweep timed, from the
    rows of 148 (chapter 14's matrices, the generator's seed that build/degree_histogram uses)."""
    if csv_path is None:
        return None, {}
    header, rows = read_sweep(csv_path)
    return header, {r["skew"]: (int(r["max_row"]), float(r["empty_share"])) for r in rows
                    if r["program"] == "148" and r.get("max_row") and r.get("empty_share")}


def draw_degrees(histograms, csv_path, out_dir):
    scale = histograms[0][1]["scale"]
    header, at_sweep = sweep_graph_facts(csv_path)
    fig = canvas(f"Row lengths (out-degrees) of the sweep's R-MAT graphs, at scale {scale} "
                 f"(2^{scale} rows)")
    axes = fig.subplots(2, 3, sharex=True, sharey=True)
    fig.subplots_adjust(left=0.07, right=0.98, top=0.85, bottom=0.17, hspace=0.34, wspace=0.08)
    for ax, (label, h) in zip(axes.flat, histograms):
        lengths = [n for n in h["row_length"] if n > 0]
        counts = [c for n, c in zip(h["row_length"], h["rows_of_length"]) if n > 0]
        empty = sum(c for n, c in zip(h["row_length"], h["rows_of_length"]) if n == 0)
        ax.loglog(lengths, counts, "o", markersize=4, color=PALETTE[0])
        name = ("Graph500 (0.57, 0.19, 0.19, 0.05)" if label == "graph500"
                else f"a = {label}" + (" (uniform)" if label == "0.25" else ""))
        ax.set_title(name, fontsize=SUBTITLE)
        facts = (f"scale {scale}: longest row {max(h['row_length']):,}, "
                 f"{100 * empty / h['rows']:.0f}% empty")
        if label in at_sweep:
            longest, share = at_sweep[label]
            facts += f"\nscale {header.get('scale', '?')}: longest row {longest:,}, " \
                     f"{100 * share:.0f}% empty"
        ax.text(0.97, 0.95, facts, transform=ax.transAxes, ha="right", va="top",
                fontsize=SMALL)
        ax.tick_params(labelsize=SMALL)
        ax.grid(True, which="major", alpha=0.3)
    # Room above the tallest dots for each panel's facts.
    tallest = max(c for _, h in histograms for n, c in zip(h["row_length"], h["rows_of_length"])
                  if n > 0)
    axes[0, 0].set_ylim(0.5, 30 * tallest)
    for ax in axes[1]:
        ax.set_xlabel("row length (entries)", fontsize=TEXT)
    for ax in axes[:, 0]:
        ax.set_ylabel("rows of that length", fontsize=TEXT)
    sweep_words = (f"; the scale-{header.get('scale', '?')} facts are the sweep's, from "
                   f"{os.path.basename(csv_path)}" if at_sweep else "")
    fig.text(0.07, 0.032,
             "Each dot: how many rows have exactly that length (empty rows left out); 16 "
             "entries a row on average. From the generator itself\n(common/graph_generators.h, "
             f"chapter 14's seed {histograms[0][1]['seed']}) through build/degree_histogram"
             f"{sweep_words}.", fontsize=SMALL, ha="left", va="bottom")
    return save(fig, out_dir, "lesson_degree_histograms.png",
                "the generator on the host")


def degree_histograms(tool, scale, data_dir):
    """build/degree_histogram on each of the sweep's graphs: (label, its JSON)."""
    found = []
    for label, flags in SKEWS:
        path = os.path.join(data_dir, f"degrees-{label}.json")
        subprocess.run([tool, "--scale", str(scale), *flags, "--quiet", "--figure-data", path],
                       check=True)
        with open(path) as f:
            found.append((label, json.load(f)))
    return found


def figure_programs(drawers):
    """The program whose --figure-data each lesson figure is drawn from (figure= in
    programs.txt); every figure of the list must have its drawing here, and each drawing its
    program there."""
    drawn_by = {p.values["figure"]: p.number for p in read_programs() if "figure" in p.values}
    if drawn_by.keys() != drawers.keys():
        raise SystemExit("figures: programs.txt's figure= names "
                         f"{', '.join(sorted(drawn_by)) or 'none'}, and bench/figures.py draws "
                         f"{', '.join(drawers)}")
    return drawn_by


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="build/figure-data")
    parser.add_argument("--degree-tool", default="build/degree_histogram")
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--csv", help="the sweep whose build times are drawn (default: newest)")
    parser.add_argument("--out", default="notes/figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    csv_path = args.csv or newest_csv()
    written = []
    drawers = {"lesson_csr.png": draw_csr,
               "lesson_csc.png": draw_csc,
               "lesson_access_maps.png": draw_access_maps,
               "lesson_merge_path.png": draw_merge_path,
               "lesson_build_steps.png": lambda d, out: draw_build(d, csv_path, out)}
    drawn_by = figure_programs(drawers)
    for name, draw in drawers.items():
        written.append(draw(load(args.data, drawn_by[name]), args.out))
    written.append(draw_degrees(degree_histograms(args.degree_tool, args.scale, args.data),
                                csv_path, args.out))
    print(f"figures: {len(written)} written: " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
