#!/usr/bin/env python3
"""Which format when: chapter 14's table, written from a sweep's CSV into the notes.

For each class of matrix that the sweep timed (the 2D and 3D stencils, R-MAT uniform and skewed,
Graph500's parameters), the fastest SpMV format and kernel, its time against cuSPARSE's CSR ALG1,
and the structural facts that decide it: the mean and the longest row, the coefficient of
variation of the row lengths, the bandwidth and the number of diagonals. The table is written
between two marker lines of notes/ch14_spmv.md, with the CSV's name, device, date and commit, so
that it cannot drift from the numbers: `--check` exits 1 where the notes differ from what the CSV
gives (make test runs it).

A second table, for 150's lesson, is written the same way: on every input of the sweep, the time
of each group size of vector CSR, the group that 150 chose, and how near the fastest it came.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plots import FAMILIES, newest_csv  # noqa: E402
from sweep import read_sweep  # noqa: E402

NOTES = "notes/ch14_spmv.md"


def begin(block):
    return f"<!-- {block}: begin (bench/format_table.py writes this table) -->"


def end(block):
    return f"<!-- {block}: end -->"

# The classes of the table: a name and the sweep's label of the input that stands for it.
CLASSES = [
    ("2D 5-point stencil", "stencil2d"),
    ("3D 7-point stencil", "stencil3d"),
    ("R-MAT uniform (a = 0.25)", "0.25"),
    ("R-MAT skewed (a = 0.80)", "0.80"),
    ("Graph500 (0.57, 0.19, 0.19)", "graph500"),
]
REFERENCE = ("148", "cusparse_csr_alg1")


def read(path):
    header, every = read_sweep(path)
    return header, [r for r in every if not r.get("skipped") and r.get("ms")]


def fact(row, key, digits=None):
    value = row.get(key) or ""
    if value == "":
        return "not in this CSV"
    return f"{float(value):,.{digits}f}" if digits is not None else f"{int(float(value)):,}"


def source(path, header):
    """The line that names a table's CSV, device, date and commit."""
    return (f"From `{path}` ({header['device']}, {header.get('date', '?')}, commit "
            f"{header.get('commit', '?')}, scale {header.get('scale', '?')}"
            + (f"; the rows of programs other than {header['run_now']} copied from "
               f"`{header['others_from']}`, commit {header.get('others_commit', '?')}"
               if header.get("others_from") else "") + "):")


def table(path):
    header, rows = read(path)
    names = {(p, k): label for p, k, kind, label in FAMILIES["spmv"][1] if kind != "lib"}
    lines = [begin("format-table"), source(path, header),
             "",
             "| class | fastest format and kernel | its time | against cuSPARSE ALG1 | mean row "
             "| longest row | CV of the row lengths | bandwidth | diagonals |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, label in CLASSES:
        here = [r for r in rows if r["skew"] == label]
        timed = [r for r in here if (r["program"], r["kernel"]) in names]
        reference = next((r for r in here if (r["program"], r["kernel"]) == REFERENCE), None)
        if not timed:
            lines.append(f"| {name} | not in this sweep | | | | | | | |")
            continue
        best = min(timed, key=lambda r: float(r["ms"]))
        ratio = (f"{float(best['ms']) / float(reference['ms']):.2f}" if reference
                 else "not timed")
        lines.append(
            f"| {name} | {names[(best['program'], best['kernel'])]} | {float(best['ms']):.3f} ms "
            f"| {ratio} | {fact(best, 'mean_row', 2)} | {fact(best, 'max_row')} "
            f"| {fact(best, 'degree_cv', 2)} | {fact(best, 'bandwidth')} "
            f"| {fact(best, 'diagonals')} |")
    lines.append(end("format-table"))
    return "\n".join(lines)


GROUP_SIZES = [1, 2, 4, 8, 16, 32]
# 150's choice is called good within this much of the fastest group (kChoiceTolerance in 150).
CHOICE_TOLERANCE = 0.10


def group_table(path):
    header, rows = read(path)
    lines = [begin("group-size-table"), source(path, header), "",
             "| input | CV | longest / mean | " + " | ".join(f"G = {g}" for g in GROUP_SIZES)
             + " | chosen | chosen / fastest |",
             "|---|---|---|" + "---|" * len(GROUP_SIZES) + "---|---|"]
    labels = list(dict.fromkeys(r["skew"] for r in rows if r["program"] == "150"))
    for label in labels:
        here = {r["kernel"]: r for r in rows if r["program"] == "150" and r["skew"] == label}
        times = [float(here[f"csr_vector_g{g}"]["ms"]) if f"csr_vector_g{g}" in here else None
                 for g in GROUP_SIZES]
        chosen = here.get("csr_vector_chosen")
        if chosen is None or None in times:
            lines.append(f"| {label} | not every group size in this sweep |" + " |" * 7)
            continue
        fastest = min(times)
        ratio = float(chosen["ms"]) / fastest
        longest = float(chosen["max_row"]) / float(chosen["mean_row"])
        cells = [f"**{t:.3f}**" if t == fastest else f"{t:.3f}" for t in times]
        lines.append(
            f"| {label} | {float(chosen['degree_cv']):.2f} | {longest:,.0f} | "
            + " | ".join(cells) + f" | {float(chosen['ms']):.3f} | {ratio:.2f}"
            + ("" if ratio <= 1 + CHOICE_TOLERANCE else " (beyond 10%)") + " |")
    lines.append("")
    lines.append("Times in ms; the fastest group size in bold.")
    lines.append(end("group-size-table"))
    return "\n".join(lines)


BLOCKS = [("format-table", table), ("group-size-table", group_table)]


def with_table(notes, block, text, name):
    if begin(block) not in notes or end(block) not in notes:
        raise SystemExit(f"format_table: {name} has no {begin(block)!r} ... {end(block)!r} block")
    before, rest = notes.split(begin(block), 1)
    _, after = rest.split(end(block), 1)
    return before + text + after


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 where the notes' table differs from the CSV's")
    parser.add_argument("--notes", default=NOTES, help="the notes file that holds the table")
    args = parser.parse_args()
    path = args.csv or newest_csv()
    if path is None:
        print("format_table: no sweep CSV in notes/bench/")
        return 1
    with open(args.notes) as f:
        notes = f.read()
    updated = notes
    for block, write in BLOCKS:
        updated = with_table(updated, block, write(path), args.notes)
    if args.check:
        if updated != notes:
            print(f"format_table: {args.notes}'s tables differ from what {path} gives; "
                  f"make plots rewrites them")
            return 1
        print(f"format_table: {args.notes}'s tables are {path}'s")
        return 0
    with open(args.notes, "w") as f:
        f.write(updated)
    print(f"format_table: {args.notes}'s tables written from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
