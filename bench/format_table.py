"""Which format when: chapter 14's table, from a sweep's CSV (bench/notes_tables.py writes it).

For each class of matrix that the sweep timed (the 2D and 3D stencils, R-MAT uniform and skewed,
Graph500's parameters), the fastest SpMV format and kernel, its time against cuSPARSE's CSR ALG1,
and the structural facts that decide it: the mean and the longest row, the coefficient of
variation of the row lengths, the bandwidth and the number of diagonals. Both tables here follow
the newest sweep (or the one that make plots is given).

A second table, for 150's lesson, is written the same way: on every input of the sweep, the time
of each group size of vector CSR, the group that 150 chose, and how near the fastest it came.
"""
from plots import FAMILIES, reference_curve

# The classes of the table: a name and the sweep's label of the input that stands for it.
CLASSES = [
    ("2D 5-point stencil", "stencil2d"),
    ("3D 7-point stencil", "stencil3d"),
    ("R-MAT uniform (a = 0.25)", "0.25"),
    ("R-MAT skewed (a = 0.80)", "0.80"),
    ("Graph500 (0.57, 0.19, 0.19)", "graph500"),
]
REFERENCE = reference_curve("spmv")


def timed(rows):
    return [r for r in rows if not r.get("skipped") and r.get("ms")]


def fact(row, key, digits=None):
    value = row.get(key) or ""
    if value == "":
        return "not in this CSV"
    return f"{float(value):,.{digits}f}" if digits is not None else f"{int(float(value)):,}"


def format_table(header, every):
    rows = timed(every)
    names = {(p, k): label for p, k, kind, label in FAMILIES["spmv"][1] if kind != "lib"}
    lines = ["| class | fastest format and kernel | its time | against cuSPARSE ALG1 | mean row "
             "| longest row | CV of the row lengths | bandwidth | diagonals |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, label in CLASSES:
        here = [r for r in rows if r["skew"] == label]
        candidates = [r for r in here if (r["program"], r["kernel"]) in names]
        reference = next((r for r in here if (r["program"], r["kernel"]) == REFERENCE), None)
        if not candidates:
            lines.append(f"| {name} | not in this sweep | | | | | | | |")
            continue
        best = min(candidates, key=lambda r: float(r["ms"]))
        ratio = (f"{float(best['ms']) / float(reference['ms']):.2f}" if reference
                 else "not timed")
        lines.append(
            f"| {name} | {names[(best['program'], best['kernel'])]} | {float(best['ms']):.3f} ms "
            f"| {ratio} | {fact(best, 'mean_row', 2)} | {fact(best, 'max_row')} "
            f"| {fact(best, 'degree_cv', 2)} | {fact(best, 'bandwidth')} "
            f"| {fact(best, 'diagonals')} |")
    return lines


GROUP_SIZES = [1, 2, 4, 8, 16, 32]
# 150's choice is called good within this much of the fastest group (kChoiceTolerance in 150).
CHOICE_TOLERANCE = 0.10


def group_size_table(header, every):
    rows = timed(every)
    lines = ["| input | CV | longest / mean | " + " | ".join(f"G = {g}" for g in GROUP_SIZES)
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
    return lines
