#!/usr/bin/env python3
"""make memory-figures PROGRAM=NAME: the figures that NAME's .with_memory should hold.

A program estimates what an input will cost before it allocates (common/memory_budget.h): bytes
per stored entry, bytes per row or column (whichever are more), and, on a GPU, a fixed part for
the CUDA context, the library handles and the copy-bandwidth buffers. This runs the program on
inputs of two shapes, R-MAT's 16 entries a row at each --scale given and a tridiagonal matrix of
3 a row with four times the rows (read with --matrix), since one shape alone cannot tell an
entry's bytes from a row's. It takes each run's peak, its largest resident set (from the kernel)
and the device bytes that it allocated (its memory: line), fits

    peak = fixed + per_entry * entries + per_row * max(rows, cols)

by least squares, and prints the figures that .with_memory should hold (the fit and a quarter
more, rounded up to 4 bytes) beside those that the proof file holds now, and whether those cover
every run. In emulation the device's arrays are host memory and the fixed part is the process
itself, which the model leaves out there; a GPU's fixed part is measured on a GPU, where the
context's own device memory is still not seen by the program, so it is kept where it is larger.
"""
import argparse
import glob
import math
import os
import re
import subprocess
import sys
import tempfile

from sweep import fields

MARGIN = 1.25
MODEL = re.compile(r"\.with_memory\(\{\s*([^,{}]+?)\s*,\s*([^,{}]+?)\s*,\s*([^,{}]+?)\s*\}\)")
DEVICE_BYTES = re.compile(r"and ([0-9.]+) (bytes|KB|MB|GB|TB) on the device")
UNITS = {"bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def proof_file(name):
    found = glob.glob(f"ch*/proof/{name}.cuh") + glob.glob(f"ch*/proof/{name}.h")
    return found[0] if found else None


def figures_now(path):
    """The three numbers of the proof file's .with_memory({per_entry, per_row, fixed})."""
    with open(path) as f:
        found = MODEL.search(f.read())
    return tuple(float(v) for v in found.groups()) if found else None


def write_tridiagonal(path, rows):
    """The symmetric positive definite matrix with 4 on the diagonal and -1 beside it, every
    entry written (general), so that CG and the square-only programs take it too."""
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{rows} {rows} {3 * rows - 2}\n")
        for r in range(1, rows + 1):
            if r > 1:
                f.write(f"{r} {r - 1} -1\n")
            f.write(f"{r} {r} 4\n")
            if r < rows:
                f.write(f"{r} {r + 1} -1\n")


def device_bytes(out):
    """The device bytes of the memory: line, which may continue on indented lines."""
    lines = out.splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith("memory: ")), None)
    if at is None:
        return 0.0
    text = lines[at]
    for line in lines[at + 1:]:
        if not line.startswith(" "):
            break
        text += " " + line.strip()
    found = DEVICE_BYTES.search(text)
    return float(found.group(1)) * UNITS[found.group(2)] if found else 0.0


def measure(binary, flags, env):
    """(peak bytes, output) of one run, or None with the reason printed."""
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([binary] + flags, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if child.returncode != 0:
        last = (text.strip().splitlines() or ["no output"])[-1]
        print(f"  {' '.join(flags)}: exit {child.returncode} ({last}), left out of the fit")
        return None
    return usage.ru_maxrss * 1024.0 + device_bytes(text), text


def solve(matrix, vector):
    """Gaussian elimination with partial pivoting; None where the matrix is singular."""
    n = len(vector)
    rows = [list(matrix[i]) + [vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12 * max(1.0, max(abs(v) for v in rows[pivot][:n])):
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col])]
    solution = [0.0] * n
    for r in reversed(range(n)):
        solution[r] = (rows[r][n] - sum(rows[r][c] * solution[c] for c in range(r + 1, n))) \
            / rows[r][r]
    return solution


def least_squares(runs, terms):
    """The coefficients of the fixed part and of each term (0: entries, 1: the dimension) that fit
    the (entries, dimension, peak) runs best."""
    basis = [[1.0] + [(e, d)[t] for t in terms] for e, d, _ in runs]
    size = len(terms) + 1
    normal = [[sum(b[i] * b[j] for b in basis) for j in range(size)] for i in range(size)]
    target = [sum(b[i] * peak for b, (_, _, peak) in zip(basis, runs)) for i in range(size)]
    return solve(normal, target)


def fit(runs):
    """(fixed, per_entry, per_row) of least squares over the runs, where no part is negative: a
    negative per-entry or per-row part is fitted again as 0 (the other part then carries it)."""
    found = least_squares(runs, [0, 1])
    if found is None or min(found[1:]) >= 0:
        return found
    for kept in ([0], [1]):
        found = least_squares(runs, kept)
        if found is not None and found[1] >= 0:
            return (found[0], found[1], 0.0) if kept == [0] else (found[0], 0.0, found[1])
    return None


def rounded_up(value, step):
    return max(0.0, math.ceil(value / step) * step)


def readable(value):
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.0f} bytes"


def figure_text(figures):
    per_entry, per_row, fixed = figures
    return f"{{{per_entry:g}, {per_row:g}, {fixed / 1e6:g}e6}}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", help="a numbered program's name, e.g. 143_spmv_csr_kernel")
    parser.add_argument("--build", default="build")
    parser.add_argument("--scale", type=int, action="append",
                        help="an R-MAT --scale to run at (may be given more than once; default "
                             "14 and 16); the tridiagonal file has 2^(S+2) rows for each")
    args = parser.parse_args()
    scales = args.scale or [14, 16]
    binary = os.path.join(args.build, args.program)
    proof = proof_file(args.program)
    now = figures_now(proof) if proof else None
    if not os.access(binary, os.X_OK):
        print(f"memory-figures: {binary} is not built (make {args.program})")
        return 2
    if now is None:
        print(f"memory-figures: {args.program} states no .with_memory "
              f"({proof or 'no proof file'}): it takes no input whose memory it estimates")
        return 2
    usage = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    env = {k: v for k, v in os.environ.items() if k != "SUITE_RMAT_CACHE"}
    opening = subprocess.run([binary], capture_output=True, text=True, env=env).stdout
    on_gpu = "\n[gpu] " in opening
    where = ("on a GPU" if on_gpu else "in emulation" if "\n[emulation] " in opening
             else "on the host (a CPU program)")
    print(f"memory-figures: {args.program} {where}, its peak on each input:")
    runs, shown = [], []
    with tempfile.TemporaryDirectory() as scratch:
        inputs = []
        if "--scale S" in usage:
            inputs += [(f"--scale {s}", ["--scale", str(s)]) for s in scales]
        if "--matrix FILE" in usage:
            for s in scales:
                path = os.path.join(scratch, f"tridiagonal-{s + 2}.mtx")
                write_tridiagonal(path, 2 ** (s + 2))
                inputs.append((f"tridiagonal, 2^{s + 2} rows", ["--matrix", path]))
        for label, flags in inputs:
            measured = measure(binary, flags, env)
            if measured is None:
                continue
            peak, out = measured
            facts = fields(next(l for l in out.splitlines() if l.startswith("result: ")),
                           "result: ")
            entries = float(facts["nnz"])
            dimension = float(max(int(facts["rows"]), int(facts["cols"])))
            runs.append((entries, dimension, peak))
            shown.append((label, entries, dimension, peak))
    solved = fit(runs) if len(runs) >= 3 else None
    if solved is None:
        print("memory-figures: too few runs of different shapes to tell an entry's bytes from a "
              "row's")
        return 1
    fixed, per_entry, per_row = solved
    gpu_fixed = max(now[2], rounded_up(fixed * MARGIN, 100e6)) if on_gpu else now[2]
    should = (rounded_up(per_entry * MARGIN, 4), rounded_up(per_row * MARGIN, 4), gpu_fixed)
    def estimate(figures, entries, dimension):
        """What the program estimates here, as common/memory_budget.h does."""
        return figures[0] * entries + figures[1] * dimension + (figures[2] if on_gpu else 0)
    print(f"  {'input':<24} {'rows':>9} {'entries':>11} {'peak':>9} {'estimated now':>14} "
          f"{'and should':>11}")
    short = []
    for label, entries, dimension, peak in shown:
        now_bytes = estimate(now, entries, dimension)
        # Off a GPU the estimate leaves the process's own fixed part out.
        beyond = peak - (0 if on_gpu else fixed)
        verdict = "" if now_bytes >= beyond else f"  now short by {readable(beyond - now_bytes)}"
        if verdict:
            short.append(label)
        print(f"  {label:<24} {dimension:>9,.0f} {entries:>11,.0f} {readable(peak):>9} "
              f"{readable(now_bytes):>14} {readable(estimate(should, entries, dimension)):>11}"
              f"{verdict}")
    worst = max(abs(fixed + per_entry * e + per_row * d - peak) for e, d, peak in runs)
    print(f"fit: {per_entry:.1f} bytes an entry, {per_row:.1f} a row, {readable(fixed)} fixed"
          + ("" if on_gpu else " (the process)") + f", within {readable(worst)} of each run")
    print(f".with_memory should hold: {figure_text(should)}  (the fit and a quarter more"
          + (")" if on_gpu else "; the GPU's fixed part as it is)"))
    print(f".with_memory holds now:   {figure_text(now)}  ({proof})")
    if short:
        print(f"memory-figures: the figures it holds now are too small for {', '.join(short)}"
              + ("" if on_gpu else " (the process's own fixed part left out)"))
        return 1
    print("memory-figures: the figures it holds now cover every run"
          + ("" if on_gpu else " (the process's own fixed part left out)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
