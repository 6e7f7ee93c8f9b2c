#!/usr/bin/env python3
"""The notes' tables of measured numbers, written from the committed CSV files (make plots).

Each table lies between two marker lines of a notes file,
`<!-- NAME: begin (bench/notes_tables.py writes this table) -->` and `<!-- NAME: end -->`, and
BLOCKS below says where NAME's numbers come from and how they are laid out: a sweep CSV of
notes/bench/ (bench/sweep.py's), or a measurement CSV of notes/measurements/ whose header names
the device, the date, the commit and the command. Every table starts with a line that names
its CSV, device, date and commit, so that a reader can find where each number came from, and
none can drift from its CSV: `--check` exits 1 where the notes differ from what the CSVs give
(tests/test_notes_tables.cpp runs it, and changes a digit of every block to see it caught).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_table  # noqa: E402
import measurement_tables as measured  # noqa: E402
import sweep_tables  # noqa: E402
from plots import newest_csv  # noqa: E402
from sweep import read_sweep  # noqa: E402
from table_text import read_measurements  # noqa: E402

NOTES = ["notes/ch14_spmv.md", "notes/ch21_csr.md"]
WRITER = "bench/notes_tables.py"
# A block's CSV where it follows the newest sweep, or the one that make plots is given.
NEWEST_SWEEP = None


def sweep(stamp, day="20261201"):
    return f"notes/bench/sweep-scale22-{day}-{stamp}.csv"


def measurement(name):
    return f"notes/measurements/{name}.csv"


# Each block: its marker's name -> (its CSV, the function that lays its rows out).
BLOCKS = {
    "format-table": (NEWEST_SWEEP, format_table.format_table),
    "group-size-table": (NEWEST_SWEEP, format_table.group_size_table),
    "sweep-2b8f9dd-spmv-times": (sweep("1432", "20261202"), sweep_tables.SPMV_STEP_TIMES),
    "sweep-2b8f9dd-spmv-ratios": (sweep("1432", "20261202"), sweep_tables.SPMV_TARGET_RATIOS),
    "sweep-2b8f9dd-build-times": (sweep("1432", "20261202"), sweep_tables.BUILD_STEP_TIMES),
    "sweep-2b8f9dd-build-ratios": (sweep("1432", "20261202"), sweep_tables.BUILD_TARGET_RATIOS),
    "ncu-load-probes": (measurement("ncu-load-probes"), measured.ncu_load_probes),
    "dia-kernel-forms": (measurement("dia-kernel-forms"), measured.dia_kernel_forms),
    "coo-csr-scale22": (measurement("coo-csr-scale22"), measured.coo_csr_scale22),
    "coalescing-scale20": (measurement("coalescing-scale20"), measured.coalescing_scale20),
    "stride-benchmark": (measurement("stride-benchmark"), measured.stride_benchmark),
    "cg-share": (measurement("cg-share"), measured.cg_share),
    "ranks-split-scale22": (measurement("ranks-split-scale22"), measured.ranks_split_scale22),
    "merge-path-steps": (measurement("merge-path-steps"), measured.merge_path_steps),
    "merge-path-steps-ncu": (measurement("merge-path-steps-ncu"), measured.merge_path_steps_ncu),
    "scatter-locality-ncu": (measurement("scatter-locality-ncu"), measured.scatter_locality_ncu),
    "merge-path-tile-shapes": (measurement("merge-path-tile-shapes"),
                               measured.merge_path_tile_shapes),
    "coo-to-csr-120-121": (measurement("coo-to-csr-120-121"), measured.coo_to_csr_120_121),
    "builds-113-118": (measurement("builds-113-118"), measured.builds_113_118),
    "bucketed-build-159432c": (measurement("bucketed-build-159432c"),
                               measured.bucketed_build_159432c),
}

BLOCK = re.compile(r"<!-- (?P<name>[a-z0-9-]+): begin \(" + re.escape(WRITER)
                   + r" writes this table\) -->\n.*?<!-- (?P=name): end -->", re.S)
BEGIN = re.compile(r"<!-- ([a-z0-9-]+): begin \(")


def sweep_source(path, header):
    return (f"From `{path}` ({header['device']}, {header.get('date', '?')}, commit "
            f"{header.get('commit', '?')}, scale {header.get('scale', '?')}"
            + (f"; the rows of programs other than {header['run_now']} copied from "
               f"`{header['others_from']}`, commit {header.get('others_commit', '?')}"
               if header.get("others_from") else "") + "):")


def measurement_source(path, header):
    date = header.get("date", "not recorded")
    return (f"From `{path}` ({header.get('device', 'device not recorded')}, "
            + ("date " if date.startswith("not recorded") else "") + date
            + f", commit {header.get('commit', 'not recorded')}):")


def block_text(name, sweep_csv):
    """The whole block of `name`: its markers, the line that names its source, its table."""
    path, render = BLOCKS[name]
    path = path or sweep_csv
    if not os.path.exists(path):
        raise SystemExit(f"notes_tables: {name}'s CSV, {path}, is not there")
    is_sweep = os.path.basename(path).startswith("sweep-")
    header, rows = (read_sweep if is_sweep else read_measurements)(path)
    source = (sweep_source if is_sweep else measurement_source)(path, header)
    return "\n".join([f"<!-- {name}: begin ({WRITER} writes this table) -->", source, ""]
                     + render(header, rows) + [f"<!-- {name}: end -->"])


def rewritten(notes, path, sweep_csv):
    """The notes with each of their blocks written afresh, the names of those blocks, and the
    names of those that changed."""
    names = [m.group("name") for m in BLOCK.finditer(notes)]
    opened = BEGIN.findall(notes)
    if opened != names:
        unclosed = [n for n in opened if n not in names]
        raise SystemExit(f"notes_tables: {path}: a block without its end line: "
                         f"{', '.join(unclosed) or 'out of order'}")
    unknown = [n for n in names if n not in BLOCKS]
    if unknown:
        raise SystemExit(f"notes_tables: {path}: no table is registered for {', '.join(unknown)} "
                         f"(BLOCKS in {WRITER})")
    changed = []

    def written(block):
        text = block_text(block.group("name"), sweep_csv)
        if text != block.group(0):
            changed.append(block.group("name"))
        return text
    return BLOCK.sub(written, notes), names, changed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?",
                        help="the sweep for the blocks that follow the newest one (default: the "
                             "newest in notes/bench/)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 where a table differs from its CSV's")
    parser.add_argument("--notes", action="append",
                        help="a notes file whose blocks are written or checked (may be given "
                             "more than once; default: " + ", ".join(NOTES) + ")")
    args = parser.parse_args()
    sweep_csv = args.csv or newest_csv()
    if sweep_csv is None:
        print("notes_tables: no sweep CSV in notes/bench/")
        return 1
    found, differ = [], []
    for path in args.notes or NOTES:
        with open(path) as f:
            notes = f.read()
        updated, names, changed = rewritten(notes, path, sweep_csv)
        found += names
        differ += [f"{path}: {name}" for name in changed]
        if changed and not args.check:
            with open(path, "w") as f:
                f.write(updated)
    if not args.notes:
        missing = [n for n in BLOCKS if n not in found]
        if missing:
            print(f"notes_tables: no notes hold the blocks {', '.join(missing)}")
            return 1
    if args.check:
        if differ:
            print("notes_tables: these tables differ from what their CSVs give (make plots "
                  "rewrites them):\n  " + "\n  ".join(differ))
            return 1
        print(f"notes_tables: {len(found)} tables are their CSVs'")
        return 0
    print(f"notes_tables: {len(found)} tables written, {len(differ)} of them changed"
          + "".join(f"\n  {d}" for d in differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
