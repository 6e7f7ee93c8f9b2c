"""The tables of the newest sweep in each chapter's "Measured on an NVIDIA H200" section, from the
sweep CSV of notes/bench/ that each names (bench/notes_tables.py writes them).

A table is a grid: one column per input of the sweep, one row per kernel's time or per ratio of
two times, and, for a ratio, its geometric mean over the inputs and its target where it has them.
"""
from table_text import fixed, geometric_mean, ratio, significant, table

SKEWS = [("0.25", "0.25"), ("0.45", "0.45"), ("0.57", "0.57"), ("0.70", "0.70"),
         ("0.80", "0.80"), ("graph500", "Graph500")]


def time_of(program, kernel):
    """A row's value at one input: the time of `kernel` as `program` timed it."""
    return lambda at: at[(program, kernel)]["ms"]


def ratio_of(numerator, denominator):
    return lambda at: ratio(numerator(at), denominator(at))


def copy_share_of(program, kernel):
    """The kernel's GB/s as a share of the copy bandwidth that its own run measured."""
    return lambda at: ratio(at[(program, kernel)]["gbs"], at[(program, kernel)]["copy_gbs"])


def sweep_time(ms):
    """Three significant digits below a millisecond (0.0915, 0.545), four from one up (2.300,
    10.47), as the program printed them at most."""
    return significant(ms, 3 if float(ms) < 1 else 4)


def decimals(places):
    return lambda value: fixed(value, places)



def by_input(rows):
    """The sweep's timed rows: for each input's label, (program, kernel) -> row."""
    inputs = {}
    for r in rows:
        if r.get("ms") and not r.get("skipped"):
            inputs.setdefault(r["skew"], {})[(r["program"], r["kernel"])] = r
    return inputs


def grid(first_heading, lines, with_geomean=False, with_target=False):
    """The renderer of a grid whose rows are `lines`, each made by line(): value(at) gives the
    row's value at one input and shown(value) its text. The geomean and target columns are
    there where asked for, blank in a row that has neither."""
    def render(header, rows):
        inputs = by_input(rows)
        headings = [first_heading] + [name for _, name in SKEWS]
        headings += ["geomean"] if with_geomean else []
        headings += ["target"] if with_target else []
        cells = []
        for label, value, shown, geomean, target in lines:
            values = [value(inputs[skew]) for skew, _ in SKEWS]
            line = [label] + [shown(v) for v in values]
            if with_geomean:
                line.append(shown(geometric_mean(values)) if geomean else "")
            if with_target:
                line.append(target)
            cells.append(line)
        return table(headings, cells)
    return render


def line(label, value, shown, target="", geomean=False):
    return (label, value, shown, geomean, target)


def times_grid(kernels):
    """A grid of times, one row for each (label, program, kernel)."""
    return grid("kernel", [line(label, time_of(program, kernel), sweep_time)
                           for label, program, kernel in kernels])


MERGE_PATH = time_of("148", "csr_merge_path")
ALG1 = time_of("148", "cusparse_csr_alg1")
ALG2 = time_of("148", "cusparse_csr_alg2")
THREAD_PER_ROW_144 = time_of("144", "csr_thread_per_row")
WARP_PER_ROW_144 = time_of("144", "csr_warp_per_row")

# Chapter 14, the sweeps from commit 9123e1b on: 148's steps one after another, then the
# libraries and 144's two CSR kernels.
SPMV_STEP_TIMES = times_grid([
    ("148 merge path, per thread", "148", "csr_merge_path_per_thread"),
    ("148 block steps: staged", "148", "csr_merge_path_staged"),
    ("+ conflict-free staging", "148", "csr_merge_path_conflict_free"),
    ("+ warp carries", "148", "csr_merge_path_warp_carries"),
    ("+ registers", "148", "csr_merge_path_registers"),
    ("+ streaming loads (`csr_merge_path`)", "148", "csr_merge_path"),
    ("cuSPARSE CSR ALG1", "148", "cusparse_csr_alg1"),
    ("cuSPARSE CSR ALG2", "148", "cusparse_csr_alg2"),
    ("144 warp per row", "144", "csr_warp_per_row"),
    ("144 thread per row (143's kernel)", "144", "csr_thread_per_row"),
])

SPMV_TARGET_RATIOS = grid("ratio against its target", [
    line("148 / cuSPARSE ALG1", ratio_of(MERGE_PATH, ALG1), decimals(3),
         "geomean <= 1.0, each <= 1.1", geomean=True),
    line("148 / cuSPARSE ALG2", ratio_of(MERGE_PATH, ALG2), decimals(3), geomean=True),
    line("thread per row / warp per row (144)", ratio_of(THREAD_PER_ROW_144, WARP_PER_ROW_144),
         decimals(2), ">= 12 with Graph500's parameters"),
], with_geomean=True, with_target=True)

BUCKETED = time_of("124", "bucketed_build")
PAYLOAD_SORT_BUILD = time_of("124", "cub_payload_sort_build")
ONE_PASS = time_of("122", "row_change_scatter")
COO2CSR = time_of("122", "cusparse_coo2csr")
BLOCK_REDUCE = time_of("117", "block_reduce")
CUB_REDUCE = time_of("117", "cub_reduce")

# Chapter 21, the sweeps from commit 9123e1b on: 124's passes and the builds it is timed beside,
# then the sorted conversions and the reductions.
BUILD_STEP_TIMES = times_grid([
    ("124 pass 1 and the plan", "124", "bucketed_count_plan"),
    ("124 passes 1 and 2", "124", "bucketed_through_partition"),
    ("124 bucketed build (passes 1 to 3)", "124", "bucketed_build"),
    ("CUB `SortPairs`, (col, weight) moved with the key", "124", "cub_payload_sort"),
    ("the payload-sort build (that sort, unpack, 122's offsets)", "124", "cub_payload_sort_build"),
    ("the gather-sort build (sort of indices, gather, coo2csr)", "124", "cub_sort_build"),
    ("115's count, scan, scatter", "124", "count_scan_scatter"),
    ("122 one pass", "122", "row_change_scatter"),
    ("120 one search per row", "122", "row_boundary_search"),
    ("cusparseXcoo2csr", "122", "cusparse_coo2csr"),
    ("117 block reduction", "117", "block_reduce"),
    ("cub::DeviceReduce", "117", "cub_reduce"),
])

BUILD_TARGET_RATIOS = grid("ratio against its target", [
    line("bucketed build (124) / payload-sort build", ratio_of(BUCKETED, PAYLOAD_SORT_BUILD),
         decimals(3), "<= 0.70"),
    line("bucketed build (124) / gather-sort build",
         ratio_of(BUCKETED, time_of("124", "cub_sort_build")), decimals(3)),
    line("bucketed build (124) / 115's build",
         ratio_of(BUCKETED, time_of("124", "count_scan_scatter")), decimals(3)),
    line("122's share of copy bandwidth", copy_share_of("122", "row_change_scatter"),
         lambda share: fixed(share * 100, 1) + "%", ">= 85%"),
    line("122 / cusparseXcoo2csr", ratio_of(ONE_PASS, COO2CSR), decimals(3)),
    line("117's block reduction / cub::DeviceReduce", ratio_of(BLOCK_REDUCE, CUB_REDUCE),
         decimals(2)),
], with_target=True)
