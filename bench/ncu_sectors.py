#!/usr/bin/env python3
"""make ncu-sectors: Nsight Compute's sectors per element loaded, one array at a time.

Profiles build/load_probes (one kernel per mapping of 144 and per array) with ncu, and prints,
for each mapping, the 32-byte sectors that its loads of the values, the column indices and the
x gather touch per element loaded, beside 144's model of the values array. The x gather is the x
probe less the column probe (the gather reads the column first); the CSR probes less the bounds
probe, which loads only each row's two offsets.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
LABELS = {
    "csr_thread_per_row": "CSR, thread per row",
    "coo_thread_per_nonzero": "COO, thread per nonzero",
    "csr_warp_per_row": "CSR, warp per row",
    "ell_thread_per_row": "ELL, thread per row",
}


def fields(line, prefix):
    return dict(part.split("=", 1) for part in line[len(prefix):].split())


def number(text):
    return float(text.replace(",", ""))


def counts_by_launch(path):
    """Each profiled launch's (sectors, requests), in launch order."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if line.startswith('"')))
    if not rows or "ID" not in rows[0]:
        sys.exit(f"make ncu-sectors: ncu wrote no table that this script can read ({path})")
    by_id = {}
    for row in rows:
        by_id.setdefault(int(row["ID"]), {})[row["Metric Name"]] = number(row["Metric Value"])
    return [(m[SECTORS], m[REQUESTS]) for _, m in sorted(by_id.items())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--build", default="build")
    parser.add_argument("args", nargs="*", default=["--scale", "16"],
                        help="the input of build/load_probes (default: --scale 16)")
    args = parser.parse_args()
    program = os.path.join(args.build, "load_probes")
    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "ncu.csv")
        command = [args.ncu, "--csv", "--log-file", log, "--metrics", f"{SECTORS},{REQUESTS}",
                   "--kernel-name", "regex:_probe_kernel", program] + args.args
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"make ncu-sectors: {' '.join(command)} exited with {done.returncode}:\n"
                     + done.stdout[-2000:] + done.stderr[-2000:])
        if "\n[gpu] " not in "\n" + done.stdout:
            print("make ncu-sectors: no GPU here, so Nsight Compute has nothing to count")
            return 0
        launches = counts_by_launch(log)
    probes = [fields(l, "probe: ") for l in done.stdout.splitlines() if l.startswith("probe: ")]
    models = {f["mapping"]: f for f in
              (fields(l, "model: ") for l in done.stdout.splitlines() if l.startswith("model: "))}
    launched = [p for p in probes if int(p["threads"]) > 0]
    if len(launched) != len(launches):
        sys.exit(f"make ncu-sectors: {len(launched)} probes ran but ncu counted "
                 f"{len(launches)} launches")
    measured = {(p["mapping"], p["loaded"]): (c, int(p["elements"]))
                for p, c in zip(launched, launches)}

    def counts(mapping, loaded):
        return measured.get((mapping, loaded), ((0.0, 0.0), 0))[0]

    device = next(l for l in done.stdout.splitlines() if l.startswith("[gpu] "))[6:]
    print(f"make ncu-sectors: {device}, build/load_probes {' '.join(args.args)}")
    print("32-byte sectors per element loaded (ncu: l1tex__t_sectors_pipe_lsu_mem_global_op_ld), "
          "each array measured alone;")
    print("144's model counts the values array: 0.125 when a warp's 32 lanes read 32 "
          "neighbouring elements, 1 when each lane's element has a sector to itself.")
    print(f"  {'mapping':26s} {'values':>8s} {'col_idx':>8s} {'x gather':>9s} "
          f"{'model':>7s} {'values sectors/request':>23s} {'model':>7s}")
    for mapping, label in LABELS.items():
        if (mapping, "values") not in measured:
            continue
        bounds = counts(mapping, "bounds")
        values, elements = measured[(mapping, "values")]
        col = counts(mapping, "col_idx")
        gather = counts(mapping, "x_gather")
        per = lambda sectors: sectors / elements if elements else 0.0
        values_sectors = values[0] - bounds[0]
        values_requests = values[1] - bounds[1]
        model = models.get(mapping, {})
        print(f"  {label:26s} {per(values_sectors):8.3f} {per(col[0] - bounds[0]):8.3f} "
              f"{per(gather[0] - col[0]):9.3f} {float(model.get('sectors_per_element', 0)):7.3f} "
              f"{values_sectors / values_requests if values_requests else 0:23.2f} "
              f"{float(model.get('sectors_per_request', 0)):7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
