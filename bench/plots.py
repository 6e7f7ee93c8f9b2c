#!/usr/bin/env python3
"""make plots: the figures of the degree-skew sweep.

Reads the newest CSV that bench/sweep.py wrote in notes/bench/ (or the CSV given), and writes
PNGs to notes/figures/: time against skew for each family of kernels (log scale), each kernel's
time relative to its library reference, and each kernel's share of the copy bandwidth.
Textbook kernels are drawn dashed with hollow markers, the fast ones solid; the libraries black.
"""
import argparse
import glob
import os
import re
import sys

from sweep import matrix_class, read_sweep

# Each family: the (program, kernel) pairs drawn, each taken from the program that times it beside
# its library reference in one run (148 times 143's kernel, 144 times 142's, 122 times 120's, 124
# times 115's), which are textbook ("t"), fast ("f") or the library reference ("lib": the first
# is the one that the ratios are taken against), and the label of each.
FAMILIES = {
    "spmv": ("SpMV, y = A x + y", [
        ("144", "coo_thread_per_nonzero", "t", "COO, thread per nonzero (142)"),
        ("148", "csr_thread_per_row", "t", "CSR, thread per row (143)"),
        ("144", "csr_warp_per_row", "f", "CSR, warp per row (144)"),
        ("144", "ell_thread_per_row", "f", "ELL, column-major (144)"),
        ("145", "jds_thread_per_row", "f", "JDS (145)"),
        ("145", "dia_thread_per_row", "f", "DIA (145)"),
        ("150", "csr_vector_chosen", "f", "CSR, vector, its chosen group (150)"),
        ("148", "csr_merge_path_per_thread", "t", "CSR, merge path, per thread (148)"),
        ("148", "csr_merge_path", "f", "CSR, merge path, staged by blocks (148)"),
        ("148", "cusparse_csr_alg1", "lib", "cuSPARSE CSR SpMV, ALG1"),
        ("148", "cusparse_csr_alg2", "lib", "cuSPARSE CSR SpMV, ALG2"),
    ]),
    "build": ("CSR from an unsorted edge list", [
        ("124", "count_scan_scatter", "t", "count, scan, scatter (115)"),
        ("124", "bucketed_build", "f", "bucketed build (124)"),
        ("124", "cub_payload_sort_build", "lib", "CUB SortPairs, (col, weight) with the key"),
        ("124", "cub_sort_build", "lib", "CUB SortPairs of indices + gather"),
    ]),
    "sorted": ("row-sorted COO to CSR (offsets)", [
        ("122", "row_boundary_search", "t", "one search per row (120)"),
        ("122", "row_change_scatter", "f", "one pass over the row ids (122)"),
        ("122", "cusparse_coo2csr", "lib", "cusparseXcoo2csr"),
    ]),
    "reduce": ("total edge weight", [
        ("117", "atomic_per_edge", "t", "one atomic per edge (117)"),
        ("117", "warp_aggregated", "f", "warp-aggregated (117)"),
        ("117", "block_reduce", "f", "block reduction, one atomic per block (117)"),
        ("117", "cub_reduce", "lib", "cub::DeviceReduce"),
    ]),
}
SKEW_ORDER = ["0.25", "0.45", "0.57", "0.70", "0.80", "graph500"]


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


def skipped_note(skipped, kernels):
    """A line for each of the family's kernels that some skews did not time, and why."""
    notes = []
    for program, kernel, _, label in kernels:
        where = [r for r in skipped if r["program"] == program and r["kernel"] == kernel]
        if where:
            skews = [s for s in SKEW_ORDER if any(r["skew"] == s for r in where)]
            reasons = sorted({r["skipped"] for r in where})
            notes.append(f"{label}: not timed at {', '.join(skews)} "
                         f"(skipped={', '.join(reasons)}: its padding is beyond reach there)")
    return "\n".join(notes)


def series(rows, program, kernel, value):
    by_skew = {r["skew"]: value(r) for r in rows if r["program"] == program and r["kernel"] == kernel}
    xs = [i for i, s in enumerate(SKEW_ORDER) if s in by_skew]
    return xs, [by_skew[SKEW_ORDER[i]] for i in xs]


def style(kind, library_index=0):
    """Textbook dashed and hollow, fast solid; each library black, the second dotted."""
    if kind == "lib":
        return dict(color="black", linestyle=["-", ":"][library_index % 2],
                    marker=["s", "D"][library_index % 2], linewidth=2)
    if kind == "t":
        return dict(linestyle="--", marker="o", markerfacecolor="none")
    return dict(linestyle="-", marker="o")


def draw_stencils(plt, stencils, header, out_dir):
    """The SpMV family on each structured class, as bars (a class is no point on a skew axis),
    each kernel that was not built there named with its reason in place of its bar."""
    classes = [c for c in ("stencil2d", "stencil3d") if any(r["skew"] == c for r in stencils)]
    kernels = [k for k in FAMILIES["spmv"][1]
               if any(r["program"] == k[0] and r["kernel"] == k[1] for r in stencils)]
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / max(1, len(classes))
    labelled = set()
    for c, matrix in enumerate(classes):
        for i, (program, kernel, kind, label) in enumerate(kernels):
            row = next((r for r in stencils if r["skew"] == matrix and r["program"] == program
                        and r["kernel"] == kernel), None)
            x = i + (c - (len(classes) - 1) / 2) * width
            if row is None:
                continue
            if row.get("skipped"):
                ax.text(x, 0, f"not built\n({row['skipped']})", ha="center", va="bottom",
                        fontsize=6, rotation=90)
                continue
            ax.bar(x, float(row["ms"]), width, color=["tab:blue", "tab:orange"][c],
                   edgecolor="black" if kind == "lib" else None,
                   label=None if matrix in labelled else matrix)
            labelled.add(matrix)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels([k[3] for k in kernels], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("time (ms, median of 21)")
    ax.set_title(f"SpMV on the Poisson stencils, about 2^{header.get('scale', '?')} rows\n"
                 f"{header['device']}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(out_dir, "spmv_stencils.png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--out", default="notes/figures")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"make plots needs matplotlib, which {sys.executable} lacks: "
              f"{sys.executable} -m pip install matplotlib (make plots PYTHON=... chooses "
              f"another interpreter)")
        return 1
    path = args.csv or newest_csv()
    if path is None:
        print("make plots: no sweep CSV in notes/bench/ (make bench writes one on a GPU machine)")
        return 1
    header, rows, skipped, stencils = read(path)
    os.makedirs(args.out, exist_ok=True)
    title = f"{header['device']}, R-MAT scale {header.get('scale', '?')}, edge factor 16"
    written = []
    for family, (name, kernels) in FAMILIES.items():
        references = [(p, k, label) for p, k, kind, label in kernels if kind == "lib"]
        ref_p, ref_k, ref_label = references[0]
        _, ref_ms = series(rows, ref_p, ref_k, lambda r: float(r["ms"]))
        ref_by_skew = dict(zip(series(rows, ref_p, ref_k, lambda r: r["skew"])[1], ref_ms))
        for plot, ylabel, value, log in [
            ("time", "time (ms, median of 21)", lambda r: float(r["ms"]), True),
            ("vs_library", f"time / {ref_label}'s time",
             lambda r: float(r["ms"]) / ref_by_skew[r["skew"]] if r["skew"] in ref_by_skew else None,
             True),
            ("copy_share", "share of copy bandwidth (%)",
             lambda r: 100 * float(r["gbs"]) / float(r["copy_gbs"]), False),
        ]:
            fig, ax = plt.subplots(figsize=(8, 5))
            drawn = libraries = 0
            for program, kernel, kind, label in kernels:
                xs, ys = series(rows, program, kernel, value)
                measured = {x: y for x, y in zip(xs, ys) if y is not None}
                if not measured:
                    continue
                # A skew that was not timed, and the step from the skews to Graph500's own
                # parameters, break the line: nothing lies between those points.
                line_xs, line_ys = [], []
                for x in range(len(SKEW_ORDER)):
                    if SKEW_ORDER[x] == "graph500":
                        line_xs.append(x - 0.5)
                        line_ys.append(float("nan"))
                    line_xs.append(x)
                    line_ys.append(measured.get(x, float("nan")))
                ax.plot(line_xs, line_ys, label=label, **style(kind, libraries))
                drawn += 1
                libraries += kind == "lib"
            if drawn == 0:
                plt.close(fig)
                continue
            ax.set_xticks(range(len(SKEW_ORDER)))
            ax.set_xticklabels(["0.25\n(uniform)", "0.45", "0.57", "0.70", "0.80",
                                "Graph500\n(.57,.19,.19,.05)"])
            ax.set_xlabel("R-MAT skew: top-left quadrant probability a")
            ax.set_ylabel(ylabel)
            if log:
                ax.set_yscale("log")
            if plot == "vs_library":
                ax.axhline(1.0, color="gray", linewidth=1)
            ax.set_title(f"{name}: {plot.replace('_', ' ')}\n{title}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
            note = skipped_note(skipped, kernels)
            if note:
                fig.text(0.01, 0.01, note, fontsize=7, va="bottom")
            fig.tight_layout(rect=(0, 0.04 * (note.count("\n") + 1) if note else 0, 1, 1))
            out = os.path.join(args.out, f"{family}_{plot}.png")
            fig.savefig(out, dpi=110)
            plt.close(fig)
            written.append(out)
    if stencils:
        written.append(draw_stencils(plt, stencils, header, args.out))
    print(f"make plots: {len(written)} figures from {path} in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
