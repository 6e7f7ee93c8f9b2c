#!/usr/bin/env python3
"""make plots: the figures of the degree-skew sweep, each with one message, fit for a slide.

Reads the newest CSV that bench/sweep.py wrote in notes/bench/ (or the CSV given), and writes
16:9 PNGs to notes/figures/ (FIGURES lists them): each family's time against R-MAT's skew a, with
each named graph (Graph500's parameters) as points of its own beside the skew axis, its time
relative to its library reference, and, where a share is the lesson, its share of the copy
bandwidth; SpMV in three figures (the textbook kernels, the fixes, merge path over cuSPARSE), and
SpMV on the stencils. A family that does not depend on the skew (the reductions) is drawn as
grouped bars. Textbook kernels are dashed with open markers (open bars), the fast ones solid with
filled markers, the libraries black: each figure says so, draws its family's targets, names in a
footnote each kernel of its lesson that the CSV timed and it does not draw, and carries the
sweep's date, device and commit in its corner.

The curves are programs.txt's. --check needs no matplotlib: it says whether every curve is in the
CSV, labelled with the program that timed it, and whether every kernel that the CSV timed is
drawn or named in a footnote (NOT_DRAWN).
"""
import argparse
import collections
import glob
import math
import os
import re
import statistics
import sys
import textwrap

from program_list import read_programs
from sweep import matrix_class, read_sweep

# Each family's title. Its curves are the curve lines of programs.txt, each under the program that
# times it beside its library reference in one run (148 times 143's kernel, 144 times 142's on
# row-sorted COO, 122 times 120's, 124 times 115's).
FAMILY_TITLES = {
    "spmv": "SpMV, y = A x + y",
    "build": "CSR from an unsorted edge list",
    "sorted": "row-sorted COO to CSR (offsets)",
    "reduce": "total edge weight",
}
# A legend's name for a curve whose programs.txt label names a part of what is timed: 124's two
# library builds are each a whole build, of which the sort is one step.
LEGEND_LABELS = {
    ("124", "cub_payload_sort_build"):
        "payload-sort build: CUB SortPairs moving (col, weight), then 122's offsets "
        "(timed by 124)",
    ("124", "cub_sort_build"):
        "gather-sort build: CUB sort of indices, gather, coo2csr (timed by 124)",
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
            label = LEGEND_LABELS.get((program.number, c.kernel), c.label)
            curves[c.family].append((c.place, (program.number, c.kernel, c.kind, label)))
    return {family: (title, [curve for _, curve in sorted(curves[family])])
            for family, title in FAMILY_TITLES.items()}


FAMILIES = families(read_programs())


def reference_curve(family):
    """The (program, kernel) of the family's first library, against which ratios are taken."""
    return next((program, kernel) for program, kernel, kind, _ in FAMILIES[family][1]
                if kind == "lib")


# The families whose kernels do not depend on the skew: bars, one group a kernel.
SKEW_FREE = {"reduce"}

# Each sweep figure: its file's name, its family, what it plots (time, vs_library: time over the
# family's first library, copy_share, or merge_over_libraries: 148's merge path over each
# library), its title, and the (program, kernel) curves it draws (None: all of the family's).
Figure = collections.namedtuple("Figure", "name family plot title kernels")
TEXTBOOK_CSR = ("148", "csr_thread_per_row")
MERGE_PATH = ("148", "csr_merge_path")
ALG1 = ("148", "cusparse_csr_alg1")
FIGURES = [
    Figure("reduce_time", "reduce", "time", "Total edge weight: time", None),
    Figure("reduce_vs_library", "reduce", "vs_library",
           "Total edge weight: time relative to cub::DeviceReduce", None),
    Figure("sorted_time", "sorted", "time", "Row-sorted COO to CSR offsets: time", None),
    Figure("sorted_vs_library", "sorted", "vs_library",
           "Row-sorted COO to CSR offsets: time relative to cusparseXcoo2csr", None),
    Figure("sorted_copy_share", "sorted", "copy_share",
           "Row-sorted COO to CSR offsets: share of the copy bandwidth", None),
    Figure("build_time", "build", "time", "CSR from an unsorted edge list: time", None),
    Figure("build_vs_library", "build", "vs_library",
           "CSR from an unsorted edge list: time relative to the payload-sort build", None),
    Figure("spmv_textbook", "spmv", "time", "SpMV: the textbook kernels against cuSPARSE",
           [("144", "coo_thread_per_nonzero"), TEXTBOOK_CSR, ALG1]),
    Figure("spmv_fixes", "spmv", "time", "SpMV: the fixes against CSR, thread per row",
           [TEXTBOOK_CSR, ("144", "csr_warp_per_row"), ("150", "csr_vector_chosen"),
            ("148", "csr_merge_path_per_thread"), ("144", "ell_thread_per_row"),
            ("145", "jds_thread_per_row"), ("145", "dia_thread_per_row")]),
    Figure("spmv_fast", "spmv", "merge_over_libraries",
           "SpMV: merge path (148) over cuSPARSE", [MERGE_PATH]),
    Figure("spmv_copy_share", "spmv", "copy_share", "SpMV: share of the copy bandwidth",
           [TEXTBOOK_CSR, ("144", "csr_warp_per_row"), ("150", "csr_vector_chosen"),
            MERGE_PATH, ALG1]),
]
STENCIL_FIGURE = "spmv_stencils"
STENCIL_NOTE = ("150's fixed group sizes, 148's intermediate steps, 144's stride benchmark and the "
                "repeated timings of 143's kernel, cuSPARSE and ELL: timed on the stencils too, "
                "not drawn, as on the R-MAT figures (their footnotes say why)")

# The kernels that the sweep times and no figure draws: a pattern of (program, kernel), the
# figures whose footnote says why, and the footnote. The stencils' figure names the R-MAT
# figures' notes in one (STENCIL_NOTE).
NOT_DRAWN = [
    (r"145 hyb_ell_then_coo", ("spmv_fixes", STENCIL_FIGURE),
     "HYB (145): timed, not drawn: it runs as ELL where rows are even and as 142's COO where "
     "they are skewed, since its COO part then holds nearly all the work"),
    (r"(144|145) csr_thread_per_row|(144|145|150) cusparse_csr(_alg1)?|145 ell_thread_per_row",
     ("spmv_textbook",),
     "143's kernel and cuSPARSE, timed again by 144, 145 and 150 beside their own kernels, and "
     "ELL, timed again by 145: drawn are 148's timings of the first two and 144's of ELL"),
    (r"150 csr_vector_g\d+", ("spmv_fixes",),
     "150's fixed group sizes (1 to 32 lanes a row): drawn is the group it chooses by the mean "
     "row length; 32 lanes is 144's warp per row"),
    (r"148 csr_merge_path_(staged|conflict_free|warp_carries|registers)",
     ("spmv_fast",),
     "148's steps between the per-thread and the final merge path (staged, conflict-free, warp "
     "carries, registers): the lesson's intermediate kernels, in the notes' measured tables"),
    (r"144 strided_read_\d+", ("spmv_copy_share",),
     "144's stride benchmark (strided_read_1 to _32): one array read at growing strides, no "
     "SpMV; in the notes' measured tables"),
    (r"124 bucketed_count_plan|124 bucketed_through_partition",
     ("build_time", "build_vs_library"),
     "124's bucketed build up to its plan and up to its partition: parts of the bucketed build, "
     "which is drawn whole"),
    (r"124 cub_payload_sort", ("build_time", "build_vs_library"),
     "CUB SortPairs alone (timed by 124): the sort step of the payload-sort build, which is "
     "drawn whole"),
]

# Each family's targets, as the chapters' notes state them: the plot that draws it, its value,
# and what it is.
TARGETS = {
    "spmv": [("merge_over_libraries", 1.0,
              "target: merge path (148) / ALG1 <= 1.0, geomean of the graphs"),
             ("merge_over_libraries", 1.1,
              "target: merge path (148) / ALG1 <= 1.1 on each graph")],
    "build": [("vs_library", 0.70, "target: bucketed build (124) / payload-sort build <= 0.70")],
    "sorted": [("vs_library", 0.6, "target: one pass (122) / cusparseXcoo2csr <= 0.6"),
               ("copy_share", 85, "target: one pass (122) >= 85% of copy")],
    "reduce": [("vs_library", 1.1, "target: block reduction (117) / CUB <= 1.1")],
}
# On the stencils, DIA's target is a share of cuSPARSE ALG1's time on the same matrix.
DIA = ("145", "dia_thread_per_row")
STENCIL_REFERENCE = reference_curve("spmv")
DIA_TARGET = 0.45

# The short name of each family's first library, for the ratio's axis.
REFERENCE_NAMES = {"spmv": "cuSPARSE ALG1", "build": "the payload-sort build",
                   "sorted": "cusparseXcoo2csr", "reduce": "cub::DeviceReduce"}
# The libraries that 148's merge path is held against, one line each, and their colours.
MERGE_LIBRARIES = [(("148", "cusparse_csr_alg1"), "cuSPARSE ALG1", "tab:blue"),
                   (("148", "cusparse_csr_alg2"), "cuSPARSE ALG2", "tab:orange")]
NAMED_GRAPHS = {"graph500": "Graph500"}
STENCIL_NAMES = {"stencil2d": "2D 5-point stencil", "stencil3d": "3D 7-point stencil"}
REASONS = {"fill": "its padding is beyond reach"}

# A slide: 16:9 at 100 dpi, and type that a room can read.
SLIDE_INCHES = (12.8, 7.2)
DPI = 100
TITLE_PT, SUBTITLE_PT, LABEL_PT, TICK_PT, LEGEND_PT, NOTE_PT = 22, 16, 17, 15, 15, 12
PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
TARGET_COLOR = "crimson"
TARGET_LINESTYLES = ["-.", (0, (1, 1.5))]
LINE_WIDTH = 3.5
# A log scale only where the values span more than this factor; elsewhere a linear one from 0.
LOG_SPAN = 30
TIMED_RUNS = 21
# Characters a line holds: of the legend at the right of a figure, of a footnote.
LEGEND_WRAP, FOOTNOTE_WRAP = 27, 138


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


def drawn_kernels():
    """Each (program, kernel) that some figure draws: its figures' curves, the libraries that
    148's merge path is held against, and the SpMV family on the stencils."""
    drawn = {(program, kernel) for program, kernel, _, _ in FAMILIES["spmv"][1]}
    for figure in FIGURES:
        drawn |= {(program, kernel) for program, kernel, _, _ in figure_kernels(figure)}
    return drawn | {key for key, _, _ in MERGE_LIBRARIES}


def not_drawn_note(program, kernel):
    """The NOT_DRAWN entry of a kernel that no figure draws: (its figures, its note), or None."""
    return next(((figures, note) for pattern, figures, note in NOT_DRAWN
                 if re.fullmatch(pattern, f"{program} {kernel}")), None)


def check_families(path):
    """Each curve's rows are in the CSV under its program, its label names that program, and
    each kernel that the CSV timed is drawn or named in a footnote."""
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
    drawn = drawn_kernels()
    for program, kernel in sorted(present - drawn):
        if not_drawn_note(program, kernel) is None:
            problems.append(f"{program} {kernel}: timed in the CSV, drawn in no figure and "
                            "named in no footnote (plots.NOT_DRAWN)")
    for problem in problems:
        print(f"plots --check: {problem}")
    count = sum(len(kernels) for _, kernels in FAMILIES.values())
    if not problems:
        print(f"plots --check: all {count} curves are in {path}, each labelled with the program "
              f"that timed it; the {len(present - drawn)} timed kernels that no figure draws are "
              "each named in a footnote")
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
                    marker=["s", "D"][library_index % 2], markersize=10, linewidth=LINE_WIDTH)
    style = dict(color=color, marker="o", markersize=10, linewidth=LINE_WIDTH)
    if kind == "t":
        return dict(style, linestyle="--", markerfacecolor="white", markeredgewidth=2.5)
    return dict(style, linestyle="-")


def bar_style(kind, color, library_index):
    """Textbook open and hatched, fast filled; each library black, the second dotted white."""
    if kind == "lib":
        return dict(facecolor="black", edgecolor="white" if library_index % 2 else "black",
                    hatch=".." if library_index % 2 else None, linewidth=1)
    if kind == "t":
        return dict(facecolor="white", edgecolor=color, hatch="//", linewidth=2)
    return dict(facecolor=color, edgecolor=color, linewidth=1)


def convention_handles(bars, kinds="t f lib".split()):
    """The legend's entries that state how textbook, fast and library kernels are drawn: those
    of the kinds that the figure draws."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    if bars:
        handles = {"t": Patch(**bar_style("t", "dimgray", 0),
                              label="textbook kernel: open, hatched"),
                   "f": Patch(**bar_style("f", "dimgray", 0), label="fast kernel: filled"),
                   "lib": Patch(**bar_style("lib", "black", 0), label="library reference: black")}
    else:
        handles = {"t": Line2D([], [], **line_style("t", "dimgray", 0),
                               label="textbook kernel: dashed, open"),
                   "f": Line2D([], [], **line_style("f", "dimgray", 0),
                               label="fast kernel: solid, filled"),
                   "lib": Line2D([], [], **line_style("lib", "black", 0),
                                 label="library reference: black")}
    return [handle for kind, handle in handles.items() if kind in kinds]


def target_handle(index, label):
    """The legend's entry of a family's target line."""
    from matplotlib.lines import Line2D
    return Line2D([], [], color=TARGET_COLOR, linewidth=LINE_WIDTH,
                  linestyle=TARGET_LINESTYLES[index % len(TARGET_LINESTYLES)], label=label)


def slide_figure(plt, title, subtitle):
    fig = plt.figure(figsize=SLIDE_INCHES, dpi=DPI)
    fig.text(0.5, 0.975, title, ha="center", va="top", fontsize=TITLE_PT, fontweight="bold")
    fig.text(0.5, 0.918, subtitle, ha="center", va="top", fontsize=SUBTITLE_PT)
    return fig


def sweep_stamp(path, header):
    """The sweep's date, device and commit, for a figure's corner; the date whole, time too."""
    with open(path) as f:
        date = next((l[len("# date="):].strip() for l in f if l.startswith("# date=")), "?")
    return f"{date}, {header['device']}, commit {header.get('commit', '?')}"


def footnotes(fig, notes, stamp):
    """The footnotes at the foot of the figure, the stamp (date, device, commit) under them at
    the right; returns the height that they take."""
    fig.text(0.995, 0.008, stamp, fontsize=NOTE_PT - 1, color="dimgray", ha="right",
             va="bottom")
    lines = [line for note in notes for line in textwrap.wrap(note, FOOTNOTE_WRAP)]
    for i, line in enumerate(reversed(lines)):
        fig.text(0.01, 0.04 + 0.028 * i, line, fontsize=NOTE_PT, va="bottom")
    return 0.045 + 0.028 * len(lines)


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
    """The curves' legend at the right of the axes and the convention (if any) under it, in the
    largest type that keeps both above the footnotes."""
    renderer = fig.canvas.get_renderer()
    labels = [handle.get_label() for handle in handles]
    for size in range(LEGEND_PT, NOTE_PT - 2, -1):
        for handle, label in zip(handles, labels):
            handle.set_label(textwrap.fill(label, LEGEND_WRAP * LEGEND_PT // size))
        curves = fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(x, top),
                            frameon=False, fontsize=size, handlelength=2.6, labelspacing=0.5)
        below = curves.get_window_extent(renderer).transformed(fig.transFigure.inverted()).y0
        reading = convention and fig.legend(handles=convention, loc="upper left",
                                            bbox_to_anchor=(x, below), frameon=True,
                                            fontsize=size, handlelength=2.6, title="drawn as",
                                            title_fontsize=size)
        foot = (reading.get_window_extent(renderer).transformed(fig.transFigure.inverted()).y0
                if reading else below)
        if foot >= floor or size == NOTE_PT - 1:
            return
        curves.remove()
        if reading:
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


def figure_kernels(figure):
    """The figure's curves, (program, kernel, kind, label), in its order."""
    kernels = FAMILIES[figure.family][1]
    if figure.kernels is None:
        return kernels
    by_key = {(program, kernel): k for k in kernels for program, kernel in [k[:2]]}
    return [by_key[key] for key in figure.kernels]


def figure_notes(name):
    """The footnotes of NOT_DRAWN that belong to the figure."""
    return [note for _, figures, note in NOT_DRAWN if name in figures]


def ratio_to(rows, key):
    """Each graph's time of the (program, kernel) `key`: the denominator of a ratio."""
    return {r["skew"]: float(r["ms"]) for r in rows if (r["program"], r["kernel"]) == key}


def figure_curves(figure, rows):
    """The figure's curves with their values by graph, (program, kernel, kind, label, by_graph,
    colour), its axis label, the unit of a bar's value, and the notes on values left out."""
    kernels = figure_kernels(figure)
    colors = kernel_colors(FAMILIES[figure.family][1])
    name = REFERENCE_NAMES[figure.family]
    notes = []
    if figure.plot == "merge_over_libraries":
        merge = ratio_to(rows, MERGE_PATH)
        curves = []
        for key, library, color in MERGE_LIBRARIES:
            denominator = ratio_to(rows, key)
            curves.append(("148", f"over {key[1]}", "f",
                           f"merge path (148) / {library} (timed by 148)",
                           {g: merge[g] / denominator[g] for g in merge if g in denominator},
                           color))
        return curves, "merge path's time / the library's", "x", notes
    if figure.plot == "time":
        value_of, label, unit = lambda r: float(r["ms"]), f"time (ms, median of {TIMED_RUNS})", \
            " ms"
    elif figure.plot == "vs_library":
        reference = ratio_to(rows, reference_curve(figure.family))
        value_of = (lambda r: float(r["ms"]) / reference[r["skew"]]
                    if r["skew"] in reference else None)
        label, unit = f"time / {name}'s time", "x"
    else:
        value_of = lambda r: 100 * float(r["gbs"]) / float(r["copy_gbs"])  # noqa: E731
        label, unit = "share of copy bandwidth (%)", "%"
    curves = []
    for program, kernel, kind, legend, by_graph in measured_kernels(rows, kernels, value_of):
        if figure.plot == "copy_share":
            # A kernel that mostly reads can outrun the copy, which reads and writes: a share
            # past 100% says nothing of the kernel, and is left out.
            over = [g for g, v in by_graph.items() if v > 100]
            if over:
                notes.append(f"{legend}: left out at {skew_list(over)}, where its share passes "
                             "100%: the copy reads and writes, and a kernel that mostly reads "
                             "can outrun it")
            by_graph = {g: v for g, v in by_graph.items() if v <= 100}
        curves.append((program, kernel, kind, legend, by_graph, colors.get((program, kernel))))
    return curves, label, unit, notes


def subtitle_of(figure, header):
    """What the figure is measured on, and which way is better."""
    better = {"time": "lower is faster", "vs_library": "below 1: faster than the library",
              "copy_share": "higher is closer to the copy",
              "merge_over_libraries": "below 1: merge path is faster"}[figure.plot]
    return f"R-MAT scale {header.get('scale', '?')}, edge factor 16; {better}"


def draw_lines(plt, figure, header, rows, skipped, stamp, out):
    """One figure against the skew, the named graphs as points of their own at the right, the
    legend outside the axes at the right, the convention and the footnotes below."""
    curves, ylabel, _, value_notes = figure_curves(figure, rows)
    if not curves:
        return None
    fig = slide_figure(plt, figure.title, subtitle_of(figure, header))
    targets = [(v, label) for plot, v, label in TARGETS.get(figure.family, [])
               if plot == figure.plot]
    skews, named = sweep_graphs(rows)
    notes = (not_timed_notes(rows, skipped, figure_kernels(figure), skews + named) + value_notes
             + figure_notes(figure.name))
    floor = footnotes(fig, notes, stamp)
    bottom = floor + 0.125
    top, left, named_width = 0.84, 0.095, 0.11 * len(named)
    skew_right = 0.64 - named_width
    ax = fig.add_axes([left, bottom, skew_right - left, top - bottom])
    side = (fig.add_axes([skew_right + 0.012, bottom, named_width, top - bottom], sharey=ax)
            if named else None)
    values = [v for *_, m, _ in curves for v in m.values()] + [v for v, _ in targets]
    ratio = figure.plot == "merge_over_libraries"
    value_axis(ax, values, not ratio and needs_log(values, figure.plot), ylabel)
    if ratio:
        # A ratio around 1 on a linear axis: parity in the middle, a fifth either side at least.
        ax.set_ylim(min(0.8, min(values) - 0.05), max(1.2, max(values) + 0.05))

    # Each named graph's points side by side, so that equal values do not hide each other.
    dodge = {}
    for graph in named:
        there = [(p, k) for p, k, _, _, m, _ in curves if graph in m]
        step = min(0.22, 0.84 / max(1, len(there) - 1))
        dodge[graph] = {pk: (n - (len(there) - 1) / 2) * step for n, pk in enumerate(there)}
    # The curves drawn as lone points (no two of their skews side by side), a little apart, so
    # that the points do not hide behind the lines' markers: right, left, further right, ...
    lone = [k for k, (*_, m, _) in enumerate(curves)
            if not any(a in m and b in m for a, b in zip(skews, skews[1:]))]
    shift = {k: (n // 2 + 1) * 0.025 * (-1) ** n for n, k in enumerate(lone)}
    handles, libraries = [], 0
    for k, (program, kernel, kind, label, measured, color) in enumerate(curves):
        style = line_style(kind, color, libraries)
        libraries += kind == "lib"
        # A skew that was not timed breaks the line: nothing lies between its neighbours.
        xs = [float(s) + shift.get(k, 0) for s in skews]
        ys = [measured.get(s, float("nan")) for s in skews]
        handle, = ax.plot(xs, ys, label=label, **style)
        handles.append(handle)
        if side is not None:
            for g, graph in enumerate(named):
                if graph in measured:
                    side.plot([g + dodge[graph][(program, kernel)]], [measured[graph]],
                              **dict(style, linestyle="none"))
    for t, (value, label) in enumerate(targets):
        style = dict(color=TARGET_COLOR, linewidth=LINE_WIDTH - 1,
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
    kinds = {kind for _, _, kind, *_ in curves}
    side_legends(fig, handles, [] if ratio else convention_handles(False, kinds), 0.655,
                 top + 0.01, floor)
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def draw_bars(plt, figure, header, rows, stamp, out):
    """A family that does not depend on the skew: a group of bars for each kernel, a bar for
    each graph in the order of the axis' label, and each group's median written above it."""
    groups, ylabel, unit, value_notes = figure_curves(figure, rows)
    if not groups:
        return None
    fig = slide_figure(plt, figure.title, subtitle_of(figure, header))
    targets = [(v, label) for plot, v, label in TARGETS.get(figure.family, [])
               if plot == figure.plot]
    skews, named = sweep_graphs(rows)
    graphs = skews + named
    handles = convention_handles(True) + [target_handle(t, label)
                                          for t, (_, label) in enumerate(targets)]
    floor = footnotes(fig, value_notes + figure_notes(figure.name), stamp)
    bottom = floor + legend_row(fig, handles, floor) + 0.16
    ax = fig.add_axes([0.085, bottom, 0.9, 0.83 - bottom])
    values = [v for *_, g, _ in groups for v in g.values()] + [v for v, _ in targets]
    log = needs_log(values, figure.plot)
    value_axis(ax, values, log, ylabel)
    if log:
        ax.set_ylim(top=max(values) * 6)
    low = ax.get_ylim()[0]
    width = 0.8 / len(graphs)
    libraries = 0
    for i, (program, kernel, kind, label, by_graph, color) in enumerate(groups):
        style = bar_style(kind, color, libraries)
        libraries += kind == "lib"
        for j, graph in enumerate(graphs):
            if graph in by_graph:
                ax.bar(i + (j - (len(graphs) - 1) / 2) * width, by_graph[graph] - low,
                       width * 0.88, bottom=low, **style)
        peak = max(by_graph.values())
        ax.text(i, peak * 1.25 if log else peak + 0.02 * ax.get_ylim()[1],
                short_value(statistics.median(by_graph.values()), unit), ha="center",
                va="bottom", fontsize=TICK_PT + 1, fontweight="bold")
    for t, (value, _) in enumerate(targets):
        ax.axhline(value, color=TARGET_COLOR, linewidth=LINE_WIDTH - 1,
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


def program_label(label):
    """A curve's label with the program whose kernel it is in place of the one that timed it:
    "CSR, thread per row (143)", "cuSPARSE CSR SpMV, ALG1"."""
    label = re.sub(r"\((\d+)'s kernel, timed by \d+\)$", r"(\1)", label)
    return re.sub(r" \(timed by \d+\)$", "", label)


def draw_stencils(plt, stencils, header, stamp, out_dir):
    """The SpMV family on each structured class, as bars (a class is no point on a skew axis):
    a panel a class, each kernel that was not built there named with its reason in place of its
    bar, and DIA's target as a mark on its bar's row."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    classes = [c for c in STENCIL_NAMES if any(r["skew"] == c for r in stencils)]
    kernels = [k for k in FAMILIES["spmv"][1]
               if any(r["program"] == k[0] and r["kernel"] == k[1] for r in stencils)]
    colors = kernel_colors(FAMILIES["spmv"][1])
    fig = slide_figure(plt, "SpMV on the Poisson stencils: time",
                       f"about 2^{header.get('scale', '?')} rows; shorter is faster")
    handles = convention_handles(True) + [target_handle(0, f"target: DIA <= {DIA_TARGET} x ALG1")]
    floor = footnotes(fig, figure_notes(STENCIL_FIGURE) + [STENCIL_NOTE], stamp)
    bottom = floor + legend_row(fig, handles, floor) + 0.085
    left, right, gap, top = 0.345, 0.985, 0.04, 0.81
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
            end = ms
            if (program, kernel) == DIA and reference and not reference.get("skipped"):
                goal = DIA_TARGET * float(reference["ms"])
                ax.plot([goal, goal], [y - 0.5, y + 0.5], color=TARGET_COLOR,
                        linewidth=LINE_WIDTH, linestyle=TARGET_LINESTYLES[0])
                end = max(ms, goal)
            ax.text(end, y, f" {ms:.3g}", va="center", fontsize=NOTE_PT + 1)
        ax.set_xlim(0, max(timed) * 1.25)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: plain(v)))
        ax.set_ylim(-0.6, len(kernels) - 0.4)
        ax.set_title(STENCIL_NAMES[matrix], fontsize=LABEL_PT)
        ax.set_xlabel(f"time (ms, median of {TIMED_RUNS})", fontsize=LABEL_PT)
        ax.tick_params(labelsize=TICK_PT)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.grid(True, axis="x", alpha=0.35)
        ax.set_yticks(range(len(kernels)))
        if c == 0:
            ax.set_yticklabels([program_label(k[3]) for k in reversed(kernels)],
                               fontsize=TICK_PT - 1)
        else:
            ax.tick_params(labelleft=False)
    out = os.path.join(out_dir, f"{STENCIL_FIGURE}.png")
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--out", default="notes/figures")
    parser.add_argument("--check", action="store_true",
                        help="check the curves of programs.txt and the footnotes against the CSV; "
                             "draws nothing, needs no matplotlib")
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
    stamp = sweep_stamp(path, header)
    os.makedirs(args.out, exist_ok=True)
    written = []
    for figure in FIGURES:
        out = os.path.join(args.out, f"{figure.name}.png")
        if figure.family in SKEW_FREE:
            drawn = draw_bars(plt, figure, header, rows, stamp, out)
        else:
            drawn = draw_lines(plt, figure, header, rows, skipped, stamp, out)
        if drawn:
            written.append(drawn)
    if stencils:
        written.append(draw_stencils(plt, stencils, header, stamp, args.out))
    print(f"make plots: {len(written)} figures from {path} in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
