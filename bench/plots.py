#!/usr/bin/env python3
"""make plots: the figures of the degree-skew sweep, each fit for a slide.

Reads the newest CSV that bench/sweep.py wrote in notes/bench/ (or the CSV given), and writes
16:9 PNGs to notes/figures/: for each family of kernels its time, its time relative to its
library reference, and its share of the copy bandwidth, against R-MAT's skew a, with each named
graph (Graph500's parameters) as points of its own beside the skew axis; and the SpMV family on
the stencils. A family that does not depend on the skew (the reductions) is drawn as grouped
bars. Textbook kernels are dashed with open markers (open bars), the fast ones solid with filled
markers, the libraries black: each figure says so, and draws its family's targets.

The curves are programs.txt's. --check needs no matplotlib: it says whether every curve is in the
CSV and is labelled with the program that timed it.
"""
import argparse
import glob
import math
import os
import re
import statistics
import sys
import textwrap

from program_list import read_programs
from sweep import matrix_class, read_sweep

# Each family's title, in the order of the figures. Its curves are the curve lines of
# programs.txt, each under the program that times it beside its library reference in one run (148
# times 143's kernel, 144 times 142's on row-sorted COO, 122 times 120's, 124 times 115's).
FAMILY_TITLES = {
    "spmv": "SpMV, y = A x + y",
    "build": "CSR from an unsorted edge list",
    "sorted": "row-sorted COO to CSR (offsets)",
    "reduce": "total edge weight",
}


def families(programs):
    """Each family's title and its (program, kernel, kind, label) curves in legend order: kind t
    (textbook), f (fast) or lib (the library reference; the first is the one that the ratios are
    taken against)."""
    curves = {family: [] for family in FAMILY_TITLES}
    for program in programs:
        for c in program.curves:
            if c.family not in curves:
                raise SystemExit(f"programs.txt: {program.name}'s curve {c.kernel} is in family "
                                 f"{c.family}, which is not one of plots.FAMILY_TITLES "
                                 f"({', '.join(FAMILY_TITLES)})")
            curves[c.family].append((c.place, (program.number, c.kernel, c.kind, c.label)))
    return {family: (title, [curve for _, curve in sorted(curves[family])])
            for family, title in FAMILY_TITLES.items()}


FAMILIES = families(read_programs())


def reference_curve(family):
    """The (program, kernel) of the family's first library, against which ratios are taken."""
    return next((program, kernel) for program, kernel, kind, _ in FAMILIES[family][1]
                if kind == "lib")


# The families whose kernels do not depend on the skew: bars, one group a kernel.
SKEW_FREE = {"reduce"}

# Each family's targets, as the chapters' notes state them ("The sweep at ..."): the figure that
# draws it, its value, and what it is.
TARGETS = {
    "spmv": [("vs_library", 1.0, "target: merge path (148) / ALG1 <= 1.0, geomean of the graphs"),
             ("vs_library", 1.1, "target: merge path (148) / ALG1 <= 1.1 on each graph")],
    "build": [("vs_library", 0.70, "target: bucketed build (124) / payload-sort build <= 0.70")],
    "sorted": [("vs_library", 0.6, "target: one pass (122) / cusparseXcoo2csr <= 0.6"),
               ("copy_share", 85, "target: one pass (122) >= 85% of copy")],
    "reduce": [("vs_library", 1.1, "target: block reduction (117) / CUB <= 1.1")],
}
# On the stencils, DIA's target is a share of cuSPARSE ALG1's time on the same matrix.
DIA = ("145", "dia_thread_per_row")
STENCIL_REFERENCE = reference_curve("spmv")
DIA_TARGET = 0.45

PLOT_TITLES = {"time": "time", "vs_library": "time relative to the library",
               "copy_share": "share of the copy bandwidth"}
# The short name of each family's first library, for the ratio's axis.
REFERENCE_NAMES = {"spmv": "cuSPARSE ALG1", "build": "CUB payload-sort build",
                   "sorted": "cusparseXcoo2csr", "reduce": "cub::DeviceReduce"}
NAMED_GRAPHS = {"graph500": "Graph500"}
STENCIL_NAMES = {"stencil2d": "2D 5-point stencil", "stencil3d": "3D 7-point stencil"}
REASONS = {"fill": "its padding is beyond reach"}

# A slide: 16:9 at 100 dpi, and type that a room can read.
SLIDE_INCHES = (12.8, 7.2)
DPI = 100
TITLE_PT, SUBTITLE_PT, LABEL_PT, TICK_PT, LEGEND_PT, NOTE_PT = 20, 16, 16, 14, 14, 12
PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
TARGET_COLOR = "crimson"
TARGET_LINESTYLES = ["-.", (0, (1, 1.5))]
# A log scale only where the values span more than this factor; elsewhere a linear one from 0.
LOG_SPAN = 30
TIMED_RUNS = 21
# Characters a line holds: of the legend at the right of a figure, of a footnote.
LEGEND_WRAP, FOOTNOTE_WRAP = 31, 145


def newest_csv():
    """The sweep whose name carries the latest date and time (sweep-scaleS-YYYYMMDD-HHMM.csv):
    a file's modification time says nothing in a fresh clone, where every file is as new."""
    def stamp(path):
        found = re.search(r"-(\d{8}-\d{4})\.csv$", path)
        return found.group(1) if found else ""
    found = sorted(glob.glob("notes/bench/sweep-*.csv"), key=stamp)
    return found[-1] if found else None


def read(path):
    header, every = read_sweep(path)
    # The figures are drawn against R-MAT's skew, which a stencil's rows do not have. A kernel
    # that was not timed (a skipped row) is kept apart, so that its figure can say so.
    rows = [r for r in every if matrix_class(r) == "rmat"]
    stencils = [r for r in every if matrix_class(r).startswith("stencil")]
    return (header, [r for r in rows if not r.get("skipped")],
            [r for r in rows if r.get("skipped")], stencils)


def timer_of(label):
    """The program that a label says timed its curve: "(144)" or "(..., timed by 144)"."""
    found = re.search(r"\((?:[^()]*timed by )?(\d+)\)$", label)
    return found.group(1) if found else None


def check_families(path):
    """Each curve's rows are in the CSV under its program, and its label names that program."""
    _, every = read_sweep(path)
    present = {(r["program"], r["kernel"]) for r in every}
    problems = []
    for family, (_, kernels) in FAMILIES.items():
        for program, kernel, _, label in kernels:
            if (program, kernel) not in present:
                timers = sorted({r["program"] for r in every if r["kernel"] == kernel})
                problems.append(f"{family}: {label}: no rows of program {program}, kernel "
                                f"{kernel} (timed by {', '.join(timers) or 'no program'})")
            if timer_of(label) != program:
                problems.append(f"{family}: {label}: the label does not end with its timing "
                                f"program, ({program}) or (... timed by {program})")
    for problem in problems:
        print(f"plots --check: {problem}")
    count = sum(len(kernels) for _, kernels in FAMILIES.values())
    if not problems:
        print(f"plots --check: all {count} curves are in {path}, each labelled with the program "
              "that timed it")
    return 1 if problems else 0


def is_skew(label):
    try:
        float(label)
        return True
    except ValueError:
        return False


def sweep_graphs(rows):
    """The swept skews, in order, and the named graphs, in the order of the CSV."""
    labels = list(dict.fromkeys(r["skew"] for r in rows))
    return (sorted((s for s in labels if is_skew(s)), key=float),
            [s for s in labels if not is_skew(s)])


def graph_title(label, rows):
    """A named graph and its R-MAT parameters, written as .57, .19, .19, .05."""
    params = next((r["rmat"] for r in rows if r["skew"] == label and r.get("rmat")), "")
    short = ", ".join(p.lstrip("0") if p.startswith("0.") else p for p in params.split(","))
    name = NAMED_GRAPHS.get(label, label)
    return f"{name}\n({short})" if short else name


def skew_list(skews):
    """a = 0.25, 0.45 and Graph500: each skew as its number, each named graph by its name."""
    names = [s if is_skew(s) else NAMED_GRAPHS.get(s, s) for s in skews]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"a = {listed}" if is_skew(skews[0]) else listed


def plain(value):
    """A tick or a value as a plain number: 0.02, 0.5, 3, 1,000; never 5x10^0."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def short_value(value, unit):
    """A bar's value with three significant digits (all the digits of one of 1,000 or more)."""
    text = f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"
    return f"{text}{unit}"


def not_timed_notes(rows, skipped, kernels, graphs):
    """A line for each of the family's kernels that some graphs did not time, and why."""
    notes = []
    for program, kernel, _, label in kernels:
        timed = [g for g in graphs if any(r["skew"] == g and r["program"] == program
                                          and r["kernel"] == kernel for r in rows)]
        where = [r for r in skipped if r["program"] == program and r["kernel"] == kernel]
        reasons = sorted({r["skipped"] for r in where})
        skips = [g for g in graphs if any(r["skew"] == g for r in where)]
        absent = [g for g in graphs if g not in timed and g not in skips]
        if len(timed) == len(graphs) or not (timed or where):
            continue
        parts = [f"timed at {skew_list(timed)} only" if timed else "not drawn"]
        if skips:
            why = "; ".join(REASONS.get(r, r) for r in reasons)
            parts.append(f"skipped={', '.join(reasons)} at {skew_list(skips)} ({why})")
        if absent:
            parts.append(f"not run at {skew_list(absent)}")
        notes.append(f"{label}: " + "; ".join(parts))
    return notes


def measured_kernels(rows, kernels, value_of):
    """Each kernel that has a value on some graph, with its values by graph."""
    measured = []
    for program, kernel, kind, label in kernels:
        by_graph = {r["skew"]: value_of(r) for r in rows
                    if r["program"] == program and r["kernel"] == kernel}
        by_graph = {graph: v for graph, v in by_graph.items() if v is not None}
        if by_graph:
            measured.append((program, kernel, kind, label, by_graph))
    return measured


def kernel_colors(kernels):
    """One colour per kernel of a family, the same on every figure; the libraries black."""
    colors, drawn = {}, 0
    for program, kernel, kind, _ in kernels:
        if kind != "lib":
            colors[(program, kernel)] = PALETTE[drawn % len(PALETTE)]
            drawn += 1
    return colors


def line_style(kind, color, library_index):
    """Textbook dashed with open markers, fast solid and filled; each library black."""
    if kind == "lib":
        return dict(color="black", linestyle=["-", ":"][library_index % 2],
                    marker=["s", "D"][library_index % 2], markersize=9, linewidth=2.5)
    style = dict(color=color, marker="o", markersize=9, linewidth=2.5)
    if kind == "t":
        return dict(style, linestyle="--", markerfacecolor="white", markeredgewidth=2)
    return dict(style, linestyle="-")


def bar_style(kind, color, library_index):
    """Textbook open and hatched, fast filled; each library black, the second dotted white."""
    if kind == "lib":
        return dict(facecolor="black", edgecolor="white" if library_index % 2 else "black",
                    hatch=".." if library_index % 2 else None, linewidth=1)
    if kind == "t":
        return dict(facecolor="white", edgecolor=color, hatch="//", linewidth=2)
    return dict(facecolor=color, edgecolor=color, linewidth=1)


def convention_handles(bars):
    """The legend's entries that state how textbook, fast and library kernels are drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    if bars:
        return [Patch(**bar_style("t", "dimgray", 0), label="textbook kernel: open, hatched"),
                Patch(**bar_style("f", "dimgray", 0), label="fast kernel: filled"),
                Patch(**bar_style("lib", "black", 0), label="library reference: black")]
    return [Line2D([], [], **line_style("t", "dimgray", 0), label="textbook kernel: dashed, open"),
            Line2D([], [], **line_style("f", "dimgray", 0), label="fast kernel: solid, filled"),
            Line2D([], [], **line_style("lib", "black", 0), label="library reference: black")]


def target_handle(index, label):
    """The legend's entry of a family's target line."""
    from matplotlib.lines import Line2D
    return Line2D([], [], color=TARGET_COLOR, linewidth=2.5,
                  linestyle=TARGET_LINESTYLES[index % len(TARGET_LINESTYLES)], label=label)


def slide_figure(plt, title, subtitle):
    fig = plt.figure(figsize=SLIDE_INCHES, dpi=DPI)
    fig.text(0.5, 0.975, title, ha="center", va="top", fontsize=TITLE_PT, fontweight="bold")
    fig.text(0.5, 0.918, subtitle, ha="center", va="top", fontsize=SUBTITLE_PT)
    return fig


def footnotes(fig, notes):
    """The footnotes at the foot of the figure; returns the height that they take."""
    lines = [line for note in notes for line in textwrap.wrap(note, FOOTNOTE_WRAP)]
    for i, line in enumerate(reversed(lines)):
        fig.text(0.01, 0.012 + 0.029 * i, line, fontsize=NOTE_PT, va="bottom")
    return 0.015 + 0.029 * len(lines)


def legend_row(fig, handles, y):
    """A legend across the foot of the figure, its foot at y, in as few rows as fit its width;
    returns the height that it takes."""
    renderer = fig.canvas.get_renderer()
    for columns in range(len(handles), 0, -1):
        legend = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, y),
                            ncol=columns, frameon=False, fontsize=LEGEND_PT, handlelength=2.2,
                            handletextpad=0.5, columnspacing=1.2)
        box = legend.get_window_extent(renderer).transformed(fig.transFigure.inverted())
        if box.x0 >= 0.005 and box.x1 <= 0.995 or columns == 1:
            return box.y1 - y
        legend.remove()


def side_legends(fig, handles, convention, x, top, floor):
    """The curves' legend at the right of the axes and the convention under it, in the largest
    type that keeps both above the footnotes."""
    renderer = fig.canvas.get_renderer()
    labels = [handle.get_label() for handle in handles]
    for size in range(LEGEND_PT, NOTE_PT - 2, -1):
        for handle, label in zip(handles, labels):
            handle.set_label(textwrap.fill(label, LEGEND_WRAP * LEGEND_PT // size))
        curves = fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(x, top),
                            frameon=False, fontsize=size, handlelength=2.6, labelspacing=0.5)
        below = curves.get_window_extent(renderer).transformed(fig.transFigure.inverted()).y0
        reading = fig.legend(handles=convention, loc="upper left", bbox_to_anchor=(x, below),
                             frameon=True, fontsize=size, handlelength=2.6,
                             title="drawn as", title_fontsize=size)
        foot = reading.get_window_extent(renderer).transformed(fig.transFigure.inverted()).y0
        if foot >= floor or size == NOTE_PT - 1:
            return
        curves.remove()
        reading.remove()


def value_axis(ax, values, log, ylabel):
    """The scale that the values need, with plain-number ticks either way."""
    from matplotlib.ticker import (AutoMinorLocator, FuncFormatter, LogLocator,
                                   MaxNLocator, NullFormatter)
    low, high = min(values), max(values)
    if log:
        ax.set_yscale("log")
        ax.set_ylim(low / 1.6, high * 1.6)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
        ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(3, 4, 6, 7, 8, 9)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_ylim(0, high * 1.12)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 2.5, 5, 10]))
        ax.yaxis.set_minor_locator(AutoMinorLocator(2))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: plain(v)))
    ax.set_ylabel(ylabel, fontsize=LABEL_PT)
    ax.tick_params(labelsize=TICK_PT)
    ax.set_axisbelow(True)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def needs_log(values, plot):
    """A log scale where the values span more than LOG_SPAN; never for a share of the copy
    bandwidth, which lies between 0 and 100 and whose small values are the lesson."""
    positive = [v for v in values if v > 0]
    return (plot != "copy_share" and bool(positive)
            and max(positive) / min(positive) > LOG_SPAN)


def drawn_paths(ax):
    """Every line drawn in the axes, in display coordinates: a path for each unbroken run of
    its points (a lone point is a run of one)."""
    from matplotlib.path import Path
    runs = []
    for line in ax.get_lines():
        run = []
        for point in line.get_transform().transform(line.get_xydata()):
            if all(math.isfinite(v) for v in point):
                run.append(point)
                continue
            if run:
                runs.append(run)
            run = []
        if run:
            runs.append(run)
    return [Path(run if len(run) > 1 else run * 2) for run in runs]


def annotate_in_a_gap(fig, ax, entries):
    """A framed note of one line for each (text, colour, point) of `entries`, in the free place
    of the axes clear of every line, marker and note where its arrows, one to each point, are
    shortest and cross the fewest lines."""
    from matplotlib.patches import Rectangle
    from matplotlib.path import Path
    from matplotlib.transforms import Bbox
    renderer = fig.canvas.get_renderer()
    sizes = []
    for text, _, _ in entries:
        probe = ax.text(0, 0, text, fontsize=LEGEND_PT, transform=ax.transAxes)
        box = probe.get_window_extent(renderer)
        sizes.append((box.width, box.height))
        probe.remove()
    # The note's size with its frame, and the clearance that a marker needs around it.
    margin, clearance = 5, 8
    width = max(w for w, _ in sizes) + 2 * margin
    height = sum(h for _, h in sizes) + 2 * margin
    # The notes already placed, and their arrows (annotations without text, in figure pixels),
    # which may be crossed as a line may be.
    notes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
    arrows = [Path([t.xyann, t.xy]) for t in ax.texts if not t.get_text()]
    paths = drawn_paths(ax) + arrows
    frame = ax.get_window_extent(renderer)
    aims = [ax.transData.transform(point) for _, _, point in entries]

    def starts(x0, y0):
        return [(min(max(a[0], x0), x0 + width), min(max(a[1], y0), y0 + height)) for a in aims]

    def cost(corner):
        total = 0
        for start, aim in zip(starts(*corner), aims):
            arrow = Path([start, aim])
            total += (math.hypot(aim[0] - start[0], aim[1] - start[1])
                      + 80 * sum(arrow.intersects_path(p) for p in paths)
                      + 1000 * sum(arrow.intersects_bbox(n) for n in notes))
        return total
    free = []
    for i in range(80):
        for j in range(60):
            x0 = frame.x0 + (0.005 + 0.99 * i / 79) * frame.width
            y0 = frame.y0 + (0.005 + 0.99 * j / 59) * frame.height
            if x0 + width > frame.x1 - 2 or y0 + height > frame.y1 - 2:
                continue
            room = Bbox([[x0 - clearance, y0 - clearance],
                         [x0 + width + clearance, y0 + height + clearance]])
            if not any(p.intersects_bbox(room) for p in paths) and not any(
                    room.overlaps(n) for n in notes):
                free.append((x0, y0))
    if not free:
        return
    x0, y0 = min(free, key=cost)
    ax.add_patch(Rectangle(((x0 - frame.x0) / frame.width, (y0 - frame.y0) / frame.height),
                           width / frame.width, height / frame.height, transform=ax.transAxes,
                           facecolor="white", edgecolor="dimgray", zorder=5))
    line_top = y0 + height - margin
    for (text, color, _), (_, line_height) in zip(entries, sizes):
        ax.text((x0 + margin - frame.x0) / frame.width, (line_top - frame.y0) / frame.height,
                text, fontsize=LEGEND_PT, color=color, va="top", transform=ax.transAxes,
                zorder=6)
        line_top -= line_height
    for (_, color, _), start, aim in zip(entries, starts(x0, y0), aims):
        ax.annotate("", xy=aim, xycoords="figure pixels", xytext=start,
                    textcoords="figure pixels", zorder=6,
                    arrowprops=dict(arrowstyle="-|>", color=color, linewidth=1.4,
                                    linestyle="--", shrinkA=0, shrinkB=8, mutation_scale=16))


def family_figure(plt, family, plot, value_of, rows, subtitle):
    """The figure of one family's plot with its titles, the family's kernels, those that have a
    value on some graph (with their values), and the plot's targets; None where none has one."""
    name, kernels = FAMILIES[family]
    measured = measured_kernels(rows, kernels, value_of)
    if not measured:
        return None
    targets = [(v, label) for figure, v, label in TARGETS.get(family, []) if figure == plot]
    return slide_figure(plt, f"{name}: {PLOT_TITLES[plot]}", subtitle), kernels, measured, targets


def draw_lines(plt, family, plot, ylabel, value_of, rows, skipped, subtitle, out):
    """One family against the skew, the named graphs as points of their own at the right, the
    legend outside the axes at the right, the convention and the footnotes below."""
    started = family_figure(plt, family, plot, value_of, rows, subtitle)
    if started is None:
        return None
    fig, kernels, curves, targets = started
    skews, named = sweep_graphs(rows)
    colors = kernel_colors(kernels)
    floor = footnotes(fig, not_timed_notes(rows, skipped, kernels, skews + named))
    bottom = floor + 0.125
    top, left, named_width = 0.85, 0.095, 0.11 * len(named)
    skew_right = 0.64 - named_width
    ax = fig.add_axes([left, bottom, skew_right - left, top - bottom])
    side = (fig.add_axes([skew_right + 0.012, bottom, named_width, top - bottom], sharey=ax)
            if named else None)
    values = [v for *_, m in curves for v in m.values()] + [v for v, _ in targets]
    value_axis(ax, values, needs_log(values, plot), ylabel)

    # Each named graph's points side by side, so that equal times do not hide each other.
    dodge = {}
    for graph in named:
        there = [(p, k) for p, k, _, _, m in curves if graph in m]
        step = min(0.22, 0.84 / max(1, len(there) - 1))
        dodge[graph] = {pk: (n - (len(there) - 1) / 2) * step for n, pk in enumerate(there)}
    handles, libraries, lone = [], 0, []
    for program, kernel, kind, label, measured in curves:
        style = line_style(kind, colors.get((program, kernel)), libraries)
        libraries += kind == "lib"
        # A skew that was not timed breaks the line: nothing lies between its neighbours.
        xs = [float(s) for s in skews]
        ys = [measured.get(s, float("nan")) for s in skews]
        handle, = ax.plot(xs, ys, label=label, **style)
        handles.append(handle)
        timed = [k for k, y in enumerate(ys) if not math.isnan(y)]
        if timed and all(j - 1 not in timed and j + 1 not in timed for j in timed):
            lone.append((label, style["color"], [(xs[j], ys[j]) for j in timed]))
        if side is not None:
            for g, graph in enumerate(named):
                if graph in measured:
                    side.plot([g + dodge[graph][(program, kernel)]], [measured[graph]],
                              **dict(style, linestyle="none", markersize=8))
    for t, (value, label) in enumerate(targets):
        style = dict(color=TARGET_COLOR, linewidth=2.5,
                     linestyle=TARGET_LINESTYLES[t % len(TARGET_LINESTYLES)])
        for axes in filter(None, (ax, side)):
            axes.axhline(value, **style)
        handles.append(target_handle(t, label))
    ax.set_xticks([float(s) for s in skews])
    ax.set_xticklabels([f"{s}\nuniform" if float(s) == 0.25 else s for s in skews])
    ax.set_xlim(float(skews[0]) - 0.04, float(skews[-1]) + 0.04)
    ax.set_xlabel("R-MAT skew a  (b = c = d = (1 - a) / 3)", fontsize=LABEL_PT)
    if side is not None:
        side.set_xlim(-0.5, len(named) - 0.5)
        side.set_xticks(range(len(named)))
        side.set_xticklabels([graph_title(g, rows) for g in named])
        side.tick_params(labelsize=TICK_PT, labelleft=False)
        side.set_xlabel("named graph", fontsize=LABEL_PT)
        side.grid(True, axis="y", which="major", alpha=0.35)
    side_legends(fig, handles, convention_handles(False), 0.655, top + 0.01, floor)
    # The kernels drawn as lone points, in one note that points at the first point of each;
    # each later point of a kernel gets a note of its name.
    if lone:
        annotate_in_a_gap(fig, ax, [
            (f"{label.split(' (')[0]}: timed at a = "
             + " and ".join(f"{x:.2f}" for x, _ in points) + " only", color, points[0])
            for label, color, points in lone])
    for label, color, points in lone:
        for point in points[1:]:
            annotate_in_a_gap(fig, ax, [(label.split(" (")[0], color, point)])
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def draw_bars(plt, family, plot, ylabel, value_of, unit, rows, subtitle, out):
    """A family that does not depend on the skew: a group of bars for each kernel, a bar for
    each graph in the order of the axis' label, and each group's median written above it."""
    started = family_figure(plt, family, plot, value_of, rows, subtitle)
    if started is None:
        return None
    fig, kernels, groups, targets = started
    skews, named = sweep_graphs(rows)
    graphs = skews + named
    colors = kernel_colors(kernels)
    handles = convention_handles(True) + [target_handle(t, label)
                                          for t, (_, label) in enumerate(targets)]
    bottom = 0.01 + legend_row(fig, handles, 0.01) + 0.155
    ax = fig.add_axes([0.085, bottom, 0.9, 0.83 - bottom])
    values = [v for *_, g in groups for v in g.values()] + [v for v, _ in targets]
    log = needs_log(values, plot)
    value_axis(ax, values, log, ylabel)
    if log:
        ax.set_ylim(top=max(values) * 6)
    floor = ax.get_ylim()[0]
    width = 0.8 / len(graphs)
    libraries = 0
    for i, (program, kernel, kind, label, by_graph) in enumerate(groups):
        style = bar_style(kind, colors.get((program, kernel)), libraries)
        libraries += kind == "lib"
        for j, graph in enumerate(graphs):
            if graph in by_graph:
                ax.bar(i + (j - (len(graphs) - 1) / 2) * width, by_graph[graph] - floor,
                       width * 0.88, bottom=floor, **style)
        peak = max(by_graph.values())
        ax.text(i, peak * 1.25 if log else peak + 0.02 * ax.get_ylim()[1],
                short_value(statistics.median(by_graph.values()), unit), ha="center",
                va="bottom", fontsize=TICK_PT, fontweight="bold")
    for t, (value, _) in enumerate(targets):
        ax.axhline(value, color=TARGET_COLOR, linewidth=2.5,
                   linestyle=TARGET_LINESTYLES[t % len(TARGET_LINESTYLES)])
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([textwrap.fill(g[3], 24) for g in groups], fontsize=TICK_PT)
    ax.set_xlim(-0.55, len(groups) - 0.45)
    names = [NAMED_GRAPHS.get(g, g) for g in named]
    ax.set_xlabel(f"a group's bars, left to right: R-MAT a = {', '.join(skews)} and "
                  f"{' and '.join(names)}; above them, their median", fontsize=TICK_PT)
    ax.grid(False, axis="x", which="both")
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def draw_stencils(plt, stencils, header, out_dir):
    """The SpMV family on each structured class, as bars (a class is no point on a skew axis):
    a panel a class, each kernel that was not built there named with its reason in place of its
    bar, and DIA's target as a mark on its bar's row."""
    from matplotlib.ticker import FuncFormatter
    classes = [c for c in STENCIL_NAMES if any(r["skew"] == c for r in stencils)]
    kernels = [k for k in FAMILIES["spmv"][1]
               if any(r["program"] == k[0] and r["kernel"] == k[1] for r in stencils)]
    colors = kernel_colors(FAMILIES["spmv"][1])
    fig = slide_figure(plt, "SpMV on the Poisson stencils: time",
                       f"{header['device']}, about 2^{header.get('scale', '?')} rows")
    handles = convention_handles(True) + [target_handle(0, f"target: DIA <= {DIA_TARGET} x ALG1")]
    bottom = 0.01 + legend_row(fig, handles, 0.01) + 0.09
    left, right, gap, top = 0.33, 0.985, 0.04, 0.84
    width = (right - left - gap * (len(classes) - 1)) / len(classes)
    drawn = {(k[0], k[1]) for k in kernels}
    timed = [float(r["ms"]) for r in stencils if not r.get("skipped") and r.get("ms")
             and (r["program"], r["kernel"]) in drawn]
    first = None
    for c, matrix in enumerate(classes):
        ax = fig.add_axes([left + c * (width + gap), bottom, width, top - bottom], sharey=first)
        first = first or ax
        here = {(r["program"], r["kernel"]): r for r in stencils if r["skew"] == matrix}
        reference = here.get(STENCIL_REFERENCE)
        libraries = 0
        for i, (program, kernel, kind, label) in enumerate(kernels):
            y = len(kernels) - 1 - i
            style = bar_style(kind, colors.get((program, kernel)), libraries)
            libraries += kind == "lib"
            row = here.get((program, kernel))
            if row is None:
                continue
            if row.get("skipped"):
                ax.text(0, y, f" not built ({row['skipped']})", va="center", fontsize=NOTE_PT)
                continue
            ms = float(row["ms"])
            ax.barh(y, ms, 0.72, **style)
            value, end = f" {ms:.3g} ms", ms
            if (program, kernel) == DIA and reference and not reference.get("skipped"):
                goal = DIA_TARGET * float(reference["ms"])
                ax.plot([goal, goal], [y - 0.5, y + 0.5], color=TARGET_COLOR, linewidth=3,
                        linestyle=TARGET_LINESTYLES[0])
                value += (f" = {ms / float(reference['ms']):.2f} x ALG1\n"
                          f" (target: <= {goal:.3g} ms)")
                end = max(ms, goal)
            ax.text(end, y, value, va="center", fontsize=NOTE_PT + 1)
        ax.set_xlim(0, max(timed) * 1.35)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: plain(v)))
        ax.set_ylim(-0.6, len(kernels) - 0.4)
        ax.set_title(STENCIL_NAMES[matrix], fontsize=LABEL_PT)
        ax.set_xlabel(f"time (ms, median of {TIMED_RUNS})", fontsize=LABEL_PT)
        ax.tick_params(labelsize=TICK_PT)
        ax.grid(True, axis="x", alpha=0.35)
        ax.set_yticks(range(len(kernels)))
        if c == 0:
            ax.set_yticklabels([textwrap.fill(k[3], 39) for k in reversed(kernels)],
                               fontsize=TICK_PT)
        else:
            ax.tick_params(labelleft=False)
    out = os.path.join(out_dir, "spmv_stencils.png")
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--out", default="notes/figures")
    parser.add_argument("--check", action="store_true",
                        help="check the curves of programs.txt against the CSV; draws nothing, "
                             "needs no matplotlib")
    args = parser.parse_args()
    path = args.csv or newest_csv()
    if path is None:
        print("make plots: no sweep CSV in notes/bench/ (make bench writes one on a GPU machine)")
        return 1
    if args.check:
        return check_families(path)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"make plots needs matplotlib, which {sys.executable} lacks: "
              f"{sys.executable} -m pip install matplotlib (make plots PYTHON=... chooses "
              f"another interpreter)")
        return 1
    header, rows, skipped, stencils = read(path)
    os.makedirs(args.out, exist_ok=True)
    subtitle = f"{header['device']}, R-MAT scale {header.get('scale', '?')}, edge factor 16"
    written = []
    for family, (name, kernels) in FAMILIES.items():
        ref_program, ref_kernel = reference_curve(family)
        reference = {r["skew"]: float(r["ms"]) for r in rows
                     if r["program"] == ref_program and r["kernel"] == ref_kernel}
        ref_name = REFERENCE_NAMES[family]
        for plot, ylabel, value_of, unit in [
            ("time", f"time (ms, median of {TIMED_RUNS})", lambda r: float(r["ms"]), " ms"),
            ("vs_library", f"time / {ref_name}'s time",
             lambda r: float(r["ms"]) / reference[r["skew"]] if r["skew"] in reference else None,
             "x"),
            ("copy_share", "share of copy bandwidth (%)",
             lambda r: 100 * float(r["gbs"]) / float(r["copy_gbs"]), "%"),
        ]:
            out = os.path.join(args.out, f"{family}_{plot}.png")
            if family in SKEW_FREE:
                drawn = draw_bars(plt, family, plot, ylabel, value_of, unit, rows, subtitle, out)
            else:
                drawn = draw_lines(plt, family, plot, ylabel, value_of, rows, skipped, subtitle,
                                   out)
            if drawn:
                written.append(drawn)
    if stencils:
        written.append(draw_stencils(plt, stencils, header, args.out))
    print(f"make plots: {len(written)} figures from {path} in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
