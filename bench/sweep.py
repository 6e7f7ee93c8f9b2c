#!/usr/bin/env python3
"""make bench: the degree-skew sweep.

Runs the numbered programs that programs.txt marks sweep=N themselves at --scale S for each
R-MAT skew (and Graph500's exact parameters), collects their `graph:` and `timing:` lines, and
writes one CSV: a row per (program, kernel, skew, scale), with the device, the date and the
commit in its header. The plots (bench/plots.py) read that CSV. Without a GPU nothing is timed:
it says so and exits 0.

The programs share their inputs through SUITE_RMAT_CACHE (BUILD/rmat-cache unless it is set):
the first program of a skew generates each R-MAT graph, and the others read it from there; a
later sweep reads them all. A program marked gpus=N runs only where there are at least N GPUs
(149: on one, its ranks take turns, and its times say nothing about several GPUs).
The sweep prints an estimate of its time as it starts; as each run ends, its seconds and their
split between the host and the timed GPU measurements (the program's `seconds:` line); and at the
end, each program's host and GPU seconds summed over its runs, and the time it took, which the
CSV's header records as `# took_s=N` once the sweep is done.
"""
import argparse
import csv
import ctypes
import datetime
import os
import re
import subprocess
import sys
import time

from program_list import read_programs

# The skews of the sweep: a label and the flags that give it.
SKEWS = [
    ("0.25", ["--skew", "0.25"]),
    ("0.45", ["--skew", "0.45"]),
    ("0.57", ["--skew", "0.57"]),
    ("0.70", ["--skew", "0.70"]),
    ("0.80", ["--skew", "0.80"]),
    ("graph500", ["--rmat", "0.57,0.19,0.19"]),
]

# The programs that programs.txt marks sweep=N, in that order: each times one family's textbook
# kernels, fast kernels and library reference in one run (their curves in the list say which).
SWEPT = sorted((p for p in read_programs() if "sweep" in p.values),
               key=lambda p: int(p.values["sweep"]))
PROGRAMS = [p.name for p in SWEPT]

# The structured classes, beside R-MAT's skews: the 5-point and 7-point Poisson matrices of about
# 2^scale rows, timed by the programs marked stencils (the SpMV family: their rows are as long as
# each other, which is what ELL, DIA and a small vector group are for).
STENCILS = [
    ("stencil2d", ["--stencil", "2d"]),
    ("stencil3d", ["--stencil", "3d"]),
]
STENCIL_PROGRAMS = [p.name for p in SWEPT if p.has("stencils")]

# Where the list says so, a program runs at some skews only (skews=), or where there are enough
# GPUs (gpus=).
ONLY_AT_SKEWS = {p.name: set(p.values["skews"].split(",")) for p in SWEPT if "skews" in p.values}
LEAST_GPUS = {p.name: int(p.values["gpus"]) for p in SWEPT if "gpus" in p.values}

# Seconds per input that each program took at --scale 22 (the list's seconds=, and where they
# were measured). A run at another scale is estimated from these by 2^(scale - 22); a program
# without a figure is named in the estimate instead.
SECONDS_AT_SCALE_22 = {p.name: float(p.values["seconds"]) for p in SWEPT if "seconds" in p.values}

FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')


def fields(line, prefix):
    return {k: v.strip('"') for k, v in FIELD.findall(line[len(prefix):])}


# The CSV's columns: the timing: line's fields, the graph: line's facts, the input's class
# (rmat, stencil2d, stencil3d, file or book), the reason where a kernel was not timed (a
# skipped: line; fill where a format's padding was beyond reach), and the graph's structure (mean
# row, bandwidth, diagonals), each group after the ones before so that the columns of older CSVs
# keep their places. An older CSV has none of these: its rows are all R-MAT's, and all timed.
TIMING_COLUMNS = ["program", "kernel", "skew", "scale", "rmat", "ms", "gbs", "copy_gbs"]
GRAPH_COLUMNS = ["max_row", "empty_share", "degree_cv"]
STRUCTURE_COLUMNS = ["mean_row", "bandwidth", "diagonals"]
COLUMNS = TIMING_COLUMNS + GRAPH_COLUMNS + ["matrix", "skipped"] + STRUCTURE_COLUMNS


def matrix_class(row):
    """A CSV row's or a timing: line's input class; rmat where it predates the field."""
    return row.get("matrix") or "rmat"


def timing_rows(out, label):
    """One CSV row per timing: or skipped: line of a program's output, with its graph's facts;
    `label` is the input's place in the sweep (a skew, graph500, or a stencil's class)."""
    graph, rows = {}, []
    for line in out.splitlines():
        if line.startswith("graph: "):
            graph = fields(line, "graph: ")
            continue
        prefix = next((p for p in ("timing: ", "skipped: ") if line.startswith(p)), None)
        if prefix is None:
            continue
        t = fields(line, prefix)
        row = {key: t.get(key, "") for key in TIMING_COLUMNS}
        row["skew"] = label
        row.update({key: graph.get(key, "") for key in GRAPH_COLUMNS + STRUCTURE_COLUMNS})
        row["matrix"] = matrix_class(t)
        row["skipped"] = t.get("reason", "") if prefix == "skipped: " else ""
        rows.append(row)
    return rows


def run_seconds(out):
    """The host's and the timed measurements' seconds from a run's `seconds:` line, as floats;
    None where the program printed none."""
    line = next((l for l in out.splitlines() if l.startswith("seconds: ")), None)
    if line is None:
        return None
    f = fields(line, "seconds: ")
    return float(f["host"]), float(f["gpu"])


def record_took(path, seconds):
    """Adds `# took_s=N` to the header of the CSV at `path`, after its other header lines: the
    header is written before the first run, and the sweep's time is known after the last. A
    took_s that the header already holds is replaced."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("# took_s=")]
    at = next((i for i, l in enumerate(lines) if not l.startswith("#")), len(lines))
    lines.insert(at, f"# took_s={seconds:.0f}\n")
    with open(path + ".partial", "w") as f:
        f.writelines(lines)
    os.replace(path + ".partial", path)


def read_sweep(path):
    """A sweep CSV's header (its "# key=value" lines; device whole) and its rows, as written."""
    with open(path) as f:
        lines = list(f)
    header = {}
    for line in lines:
        if line.startswith("# "):
            for part in line[2:].split():
                if "=" in part:
                    key, value = part.split("=", 1)
                    header[key] = value
    header["device"] = next((l[len("# device="):].strip() for l in lines
                             if l.startswith("# device=")), "unknown device")
    return header, list(csv.DictReader(l for l in lines if not l.startswith("#")))


def commit():
    """The commit measured: SUITE_COMMIT where the tree was copied without its history."""
    if os.environ.get("SUITE_COMMIT"):
        return os.environ["SUITE_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def gpu_count():
    """The CUDA devices that the programs will see (CUDA_VISIBLE_DEVICES applies), as the
    driver counts them: 0 where there is no driver or it fails."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def estimated_seconds(runs, scale):
    """The sweep's time from SECONDS_AT_SCALE_22 for its (program, input) runs, and the programs
    that have no figure there."""
    known = [p for p, _ in runs if p in SECONDS_AT_SCALE_22]
    unknown = sorted({p for p, _ in runs if p not in SECONDS_AT_SCALE_22})
    return sum(SECONDS_AT_SCALE_22[p] for p in known) * 2.0 ** (scale - 22), unknown


def sweep_runs(programs):
    """Every (program, input) run, in order: each R-MAT skew with every program, then each
    stencil with the SpMV family among them."""
    unknown_skews = {s for skews in ONLY_AT_SKEWS.values() for s in skews} - dict(SKEWS).keys()
    if unknown_skews:
        raise SystemExit(f"programs.txt: skews= names {', '.join(sorted(unknown_skews))}, which "
                         f"the sweep does not run (its skews: {', '.join(dict(SKEWS))})")
    runs = [(program, (label, flags)) for label, flags in SKEWS for program in programs
            if label in ONLY_AT_SKEWS.get(program, {label})]
    runs += [(program, (label, flags)) for label, flags in STENCILS
             for program in STENCIL_PROGRAMS if program in programs]
    return runs


def run_flags(scale, max_memory, input_flags):
    return ["--scale", str(scale), "--max-memory", max_memory] + input_flags


def print_plan(runs, scale, cache):
    """The line that opens a sweep: its runs and its estimated time, which it returns."""
    estimate, unknown = estimated_seconds(runs, scale)
    on_stencils = sum(label in dict(STENCILS) for _, (label, _) in runs)
    print(f"make bench: {len(runs)} runs ({len(runs) - on_stencils} on {len(SKEWS)} R-MAT skews, "
          f"{on_stencils} on the stencils) at --scale {scale}, "
          f"an estimated {minutes(estimate)}"
          + (f" and whatever {', '.join(unknown)} take{'s' if len(unknown) == 1 else ''}"
             if unknown else "")
          + f"; inputs shared through SUITE_RMAT_CACHE={cache}", flush=True)
    return estimate


def minutes(seconds):
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"


def run(program, flags, build, timeout, env=None):
    """The program's output, or None with the reason printed."""
    command = [os.path.join(build, program)] + flags
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        print(f"\n  {program}: ran past {timeout} s, left out", flush=True)
        return None
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        print(f"\n  {program}: exit {done.returncode} ({reason}), left out", flush=True)
        return None
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="notes/bench")
    parser.add_argument("--max-memory", default="64G")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--programs", nargs="*", default=PROGRAMS)
    parser.add_argument("--others-from", metavar="CSV",
                        help="a sweep whose rows of the programs not run now are copied into the "
                             "new CSV, after a change to the programs run now alone; the header "
                             "names that sweep and its commit")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the runs that a sweep on this many GPUs would make, in "
                             "order, and its estimated time; runs nothing, needs no GPU")
    args = parser.parse_args()
    others_header, others = read_sweep(args.others_from) if args.others_from else ({}, [])
    cache = os.environ.get("SUITE_RMAT_CACHE", os.path.join(args.build, "rmat-cache"))
    if args.dry_run:
        gpus = max(1, gpu_count())
        programs = [p for p in args.programs if gpus >= LEAST_GPUS.get(p, 1)]
        runs = sweep_runs(programs)
        print_plan(runs, args.scale, cache)
        for program, (label, input_flags) in runs:
            print(" ".join([os.path.join(args.build, program)]
                           + run_flags(args.scale, args.max_memory, input_flags)))
        left_out = [p for p in args.programs if p not in programs]
        for program in left_out:
            print(f"{program}: left out, as on fewer than {LEAST_GPUS[program]} GPUs")
        return 0

    probe = run(args.programs[0], ["--help"], args.build, 60)
    first = run(args.programs[0], [], args.build, 120) if probe is not None else None
    if first is None or "\n[gpu] " not in "\n" + first:
        where = first.splitlines()[1] if first and len(first.splitlines()) > 1 else "no output"
        print(f"make bench: no GPU here ({where}): nothing was timed")
        return 0

    device = re.search(r"^\[gpu\] (.*)$", first, re.M).group(1)
    programs = list(args.programs)
    gpus = gpu_count()
    for program in [p for p in programs if p in LEAST_GPUS and gpus < LEAST_GPUS[p]]:
        programs.remove(program)
        print(f"{program} left out: {gpus} GPU{'' if gpus == 1 else 's'} here, and it is swept "
              f"on {LEAST_GPUS[program]} or more (gpus= in programs.txt, which says why)")
    env = dict(os.environ, SUITE_RMAT_CACHE=cache)
    runs = sweep_runs(programs)
    estimate = print_plan(runs, args.scale, cache)
    os.makedirs(args.out, exist_ok=True)
    now = datetime.datetime.now()
    name = os.path.join(args.out, f"sweep-scale{args.scale}-{now.strftime('%Y%m%d-%H%M')}.csv")
    started = time.time()
    count = 0
    seconds_per_run = {}
    split = {}  # program: [host seconds, GPU seconds], summed over its runs
    # Rows are written as each program ends, so that a sweep cut short keeps what it measured.
    with open(name, "w", newline="") as f:
        f.write(f"# device={device}\n# date={now.strftime('%Y-%m-%d %H:%M')}\n")
        f.write(f"# commit={commit()}\n# scale={args.scale} edge_factor=16\n")
        run_now = {p.split("_")[0] for p in programs}
        kept = [r for r in others if r["program"] not in run_now]
        if args.others_from:
            f.write(f"# others_from={os.path.basename(args.others_from)} "
                    f"others_commit={others_header.get('commit', 'unknown')} "
                    f"run_now={','.join(sorted(run_now))}\n")
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(kept)
        for program, (label, input_flags) in runs:
            print(f"{program} at --scale {args.scale}, {label} ...", end="", flush=True)
            flags = run_flags(args.scale, args.max_memory, input_flags)
            began = time.time()
            out = run(program, flags, args.build, args.timeout, env)
            if out is None:
                continue
            seconds = time.time() - began
            parts = run_seconds(out)
            print(f" {seconds:.1f} s" + (f" (host {parts[0]:.1f}, GPU {parts[1]:.1f})"
                                         if parts else ""), flush=True)
            seconds_per_run.setdefault(program, []).append(seconds)
            if parts:
                total = split.setdefault(program, [0.0, 0.0])
                total[0] += parts[0]
                total[1] += parts[1]
            rows = timing_rows(out, label)
            writer.writerows(rows)
            f.flush()
            count += len(rows)
    took = time.time() - started
    record_took(name, took)
    print(f"make bench: {count} rows in {minutes(took)} (estimated {minutes(estimate)}), "
          f"written to {name}")
    print("mean seconds per run, as programs.txt keeps them (seconds=): " +
          ", ".join(f"{p.split('_')[0]} {sum(t) / len(t):.1f}"
                    for p, t in seconds_per_run.items()))
    print("seconds summed over each program's runs, the host's and the timed measurements':")
    for program, (host, gpu) in split.items():
        runs = len(seconds_per_run[program])
        print(f"  {program.split('_')[0]}: host {host:.1f} s, GPU {gpu:.1f} s "
              f"({runs} run{'' if runs == 1 else 's'}, {sum(seconds_per_run[program]):.1f} s "
              f"in all)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
