#!/usr/bin/env python3
"""Which format when: chapter 14's table, written from a sweep's CSV into the notes.

For each class of matrix that the sweep timed (the 2D and 3D stencils, R-MAT uniform and skewed,
Graph500's parameters), the fastest SpMV format and kernel, its time against cuSPARSE's CSR ALG1,
and the structural facts that decide it: the mean and the longest row, the coefficient of
variation of the row lengths, the bandwidth and the number of diagonals. The table is written
between two marker lines of notes/ch14_spmv.md, with the CSV's name, device, date and commit, so
that it cannot drift from the numbers: `--check` exits 1 where the notes differ from what the CSV
gives (make test runs it).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plots import FAMILIES, newest_csv  # noqa: E402
from sweep import read_sweep  # noqa: E402

NOTES = "notes/ch14_spmv.md"
BEGIN = "<!-- format-table: begin (bench/format_table.py writes this table) -->"
END = "<!-- format-table: end -->"

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


def table(path):
    header, rows = read(path)
    names = {(p, k): label for p, k, kind, label in FAMILIES["spmv"][1] if kind != "lib"}
    lines = [BEGIN,
             f"From `{path}` ({header['device']}, {header.get('date', '?')}, commit "
             f"{header.get('commit', '?')}, scale {header.get('scale', '?')}"
             + (f"; the rows of programs other than {header['run_now']} copied from "
                f"`{header['others_from']}`, commit {header.get('others_commit', '?')}"
                if header.get("others_from") else "") + "):",
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
    lines.append(END)
    return "\n".join(lines)


def with_table(notes, block, name):
    if BEGIN not in notes or END not in notes:
        raise SystemExit(f"format_table: {name} has no {BEGIN!r} ... {END!r} block")
    before, rest = notes.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return before + block + after


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
    updated = with_table(notes, table(path), args.notes)
    if args.check:
        if updated != notes:
            print(f"format_table: {args.notes}'s table differs from what {path} gives; "
                  f"make plots rewrites it")
            return 1
        print(f"format_table: {args.notes}'s table is {path}'s")
        return 0
    with open(args.notes, "w") as f:
        f.write(updated)
    print(f"format_table: {args.notes}'s table written from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
