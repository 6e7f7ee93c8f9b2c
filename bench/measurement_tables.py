"""The notes' tables of measurements other than the sweeps' (ncu readings, variants of a kernel,
single runs of a program), each from its CSV in notes/measurements/ (bench/notes_tables.py
writes them).

A CSV holds the numbers as the run printed them, and they are shown with the digits it has. What
the notes work out from them (a ratio of two times, a share of the copy bandwidth) is computed
here. A ratio that a program printed from its unrounded times, and that its rounded times would
not give again, is in the CSV as printed.
"""
from table_text import as_recorded, fixed, percent, ratio, significant, table


def keyed(rows, *columns):
    """The rows by the values of `columns`: a tuple of them, or the one value."""
    def key(r):
        values = tuple(r[c] for c in columns)
        return values if len(values) > 1 else values[0]
    return {key(r): r for r in rows}


def times_faster(value):
    """3 significant digits, at most 2 places: 10.3, 0.63, 1,589."""
    return significant(value, 3, most_decimals=2)


def ncu_load_probes(header, rows):
    labels = [("csr_thread_per_row", "CSR, thread per row"),
              ("coo_thread_per_nonzero", "COO, thread per nonzero"),
              ("csr_warp_per_row", "CSR, warp per row")]
    by = keyed(rows, "mapping")
    return table(
        ["mapping", "values", "col_idx", "x gather", "144's model (values)",
         "values: sectors per request, measured / model"],
        [[label, by[m]["values"], by[m]["col_idx"], by[m]["x_gather"], by[m]["model_values"],
          f"{by[m]['sectors_per_request']} / {by[m]['model_sectors_per_request']}"]
         for m, label in labels])


def dia_kernel_forms(header, rows):
    return table(["form", "5-point (ms)", "7-point (ms)"],
                 [[r["form"], r["stencil2d_ms"], r["stencil3d_ms"]] for r in rows])


def coo_csr_scale22(header, rows):
    by = keyed(rows, "kernel")
    library = by["cusparse_csr"]["ms"]
    lines = [("142", "coo_thread_per_nonzero", "COO, thread per nonzero, `atomicAdd`"),
             ("143", "csr_thread_per_row", "CSR, thread per row")]
    return table(
        ["program", "kernel", "time", "GB/s", f"against cuSPARSE SpMV ({library} ms)"],
        [[program, label, f"{by[k]['ms']} ms", as_recorded(by[k]["gbs"]),
          f"cuSPARSE takes {fixed(ratio(library, by[k]['ms']), 2)} of our time"]
         for program, k, label in lines])


def coalescing_scale20(header, rows):
    by = keyed(rows, "skew", "kernel")
    skews = ["0.8", "0.3"]
    lines = [("csr_thread_per_row", "CSR, thread per row"),
             ("coo_thread_per_nonzero", "COO, thread per entry"),
             ("csr_warp_per_row", "CSR, warp per row"),
             ("ell_thread_per_row", "ELL, thread per row"),
             ("cusparse_csr", "cuSPARSE SpMV")]

    def cell(skew, kernel):
        r = by[(skew, kernel)]
        if r["skipped"] == "fill":
            return f"not built: {as_recorded(r['bytes_x_csr'])} x the CSR's bytes"
        if kernel in ("csr_thread_per_row", "cusparse_csr"):
            return f"{r['ms']} ms"
        # Against thread per row, the kernel that the others fix.
        speedup = ratio(by[(skew, "csr_thread_per_row")]["ms"], r["ms"])
        return f"{r['ms']} ms ({times_faster(speedup)} x{' faster' if speedup > 1 else ''})"
    return table(
        ["kernel"] + [f"skew {s} (longest row {as_recorded(by[(s, 'cusparse_csr')]['max_row'])} "
                      f"entries)" for s in skews],
        [[label] + [cell(s, k) for s in skews] for k, label in lines])


def stride_benchmark(header, rows):
    lowest = header["copy_gbs_lowest"]
    first = rows[0]["gbs"]
    lines = table(["stride"] + [r["stride"] for r in rows], [
        ["effective GB/s"] + [as_recorded(r["gbs"]) for r in rows],
        ["against stride 1"] + [fixed(ratio(r["gbs"], first), 2) for r in rows],
        [f"against copy ({as_recorded(lowest)} to {as_recorded(header['copy_gbs_highest'])} "
         f"GB/s)"] + [percent(ratio(r["gbs"], lowest)) for r in rows]])
    return lines + ["", f"The shares of copy take its lowest figure, {as_recorded(lowest)} GB/s."]


def residual(text):
    """7.133e-07 as 7.1e-7."""
    mantissa, exponent = f"{float(text):.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def cg_share(header, rows):
    labels = {"poisson_scale20": "Poisson, 2^20 unknowns (`--scale 20`)",
              "1138_bus_jacobi": "`1138_bus.mtx`, Jacobi-scaled"}

    def share(r):
        if not r["solve_ms"]:
            return ["not timed", "not timed"]
        return [f"{r['solve_ms']} ms", f"{r['spmv_share_percent']}% ({r['spmv_us']} us per "
                f"SpMV, {as_recorded(r['spmv_gbs'])} GB/s)"]
    return table(["input", "iterations", "final residual", "solve", "SpMV share"],
                 [[labels[r["input"]], as_recorded(r["iterations"]), residual(r["final_residual"])]
                  + share(r) for r in rows])


def ranks_split_scale22(header, rows):
    labels = {"by_nonzeros": "by nonzeros", "by_rows": "by rows"}

    def times(r, kernel):
        slowest, fastest = r[f"{kernel}_slowest_ms"], r[f"{kernel}_fastest_ms"]
        return f"{slowest} / {fastest} ms: {times_faster(ratio(slowest, fastest))}"
    return table(
        ["split", "rank 0", "rank 1", "143, thread per row (slowest / fastest rank)",
         "148, merge path by blocks (slowest / fastest rank)"],
        [[labels[r["split"]], f"{as_recorded(r['rank0_nnz'])} nonzeros",
          f"{as_recorded(r['rank1_nnz'])} nonzeros", times(r, "thread_per_row"),
          times(r, "merge_path")] for r in rows])


MERGE_STEPS = [("per thread", "csr_merge_path_per_thread"),
               ("staged", "csr_merge_path_staged"),
               ("conflict_free", "csr_merge_path_conflict_free"),
               ("warp_carries", "csr_merge_path_warp_carries"),
               ("registers", "csr_merge_path_registers"),
               ("streaming_loads", "csr_merge_path"),
               ("cuSPARSE ALG1", "cusparse_csr_alg1")]


def merge_path_steps(header, rows):
    by = keyed(rows, "kernel", "input")
    inputs = ["0.80", "0.25", "graph500"]
    return table(
        ["step", "timing name", "a = 0.80", "a = 0.25", "Graph500 (`--rmat 0.57,0.19,0.19`)"],
        [[step, f"`{kernel}`"] + [by[(kernel, i)]["ms"] for i in inputs]
         for step, kernel in MERGE_STEPS]
        + [["`csr_merge_path` / ALG1", ""]
           + [by[("csr_merge_path", i)]["ratio_to_alg1"] for i in inputs]])


def merge_path_steps_ncu(header, rows):
    also = [("achieved_occupancy_percent", "achieved occupancy {}%"),
            ("theoretical_occupancy_percent", "theoretical occupancy {}%"),
            ("dram_throughput_percent", "DRAM throughput {}%"),
            ("l1_hit_rate_percent", "L1 hit rate {}%"),
            ("l2_hit_rate_percent", "L2 hit rate {}%"),
            ("warp_cycles_per_issued_instruction", "{} warp cycles per issued instruction")]

    def million(text):
        return f"{text} million" if text else ""
    return table(
        ["step", "time", "shared wavefronts", "of them excessive (bank conflicts)", "registers",
         "also"],
        [[r["step"], f"{r['time_us']} us", million(r["shared_wavefronts_million"]),
          million(r["excessive_wavefronts_million"]), r["registers"],
          ", ".join(words.format(r[key]) for key, words in also if r[key])] for r in rows])


def scatter_locality_ncu(header, rows):
    return table(
        ["skew", "kernel", "time", "DRAM read", "DRAM written", "L2 hit rate",
         "L2 sectors of atomics / reductions"],
        [[r["skew"], f"`{r['kernel']}`", f"{r['time_ms']} ms", f"{r['dram_read_gb']} GB",
          f"{r['dram_write_gb']} GB", f"{r['l2_hit_rate_percent']}%",
          f"{r['l2_atomic_sectors_million']} million / {r['l2_reduction_sectors_million']} million"]
         for r in rows])


def merge_path_tile_shapes(header, rows):
    by = keyed(rows, "threads", "steps", "skew")
    shapes = list(dict.fromkeys((r["threads"], r["steps"]) for r in rows))

    def cell(r):
        return f"{r['ms']} ({r['ratio_to_alg1']})" if r["ratio_to_alg1"] else r["ms"]
    return table(["threads x steps", "a = 0.80", "a = 0.25"],
                 [[f"{threads} x {steps}"] + [cell(by[(threads, steps, s)]) for s in
                                              ("0.80", "0.25")] for threads, steps in shapes])


def coo_to_csr_120_121(header, rows):
    by = keyed(rows, "kernel")
    low, high = header["copy_gbs_lowest"], header["copy_gbs_highest"]

    def of_copy(gbs):
        """The share against the fastest and the slowest copy of the runs: which one this run
        measured is not recorded."""
        shares = {fixed(ratio(gbs, copy) * 100, 1) for copy in (high, low)}
        return " to ".join(sorted(shares, key=float)) + "% of copy"

    search_speedup = times_faster(ratio(by["cusparse_coo2csr"]["ms"],
                                        by["row_boundary_search"]["ms"]))
    lines = [
        ("validate_sorted_coo", "validation (one thread per entry)", ""),
        ("lower_bound_route", "lower bound: search kernel + copies of columns and values",
         f" ({of_copy(by['lower_bound_route']['gbs'])})"),
        ("rle_scan_route", "run-length encoding + scan (CUB) + the same copies", ""),
        ("cusparse_coo2csr", "`cusparseXcoo2csr` (offsets only)", ""),
        ("row_boundary_search", "search kernel alone (offsets only)",
         f": {search_speedup} x faster than cuSPARSE's offsets"),
        ("chunked_offsets_copies", "chunked (7 input chunks, 5 output chunks): offsets + copies",
         ""),
        ("one_piece_offsets_copies", "the same kernel on one chunk + 2 copies", ""),
    ]

    def bytes_counted(r):
        formula = r["bytes_formula"]
        return f"{formula} = {as_recorded(r['bytes'])}" if r["bytes"] else formula
    return table(["program", "route", "time", "GB/s", "bytes counted"],
                 [[by[k]["program"], label, f"{by[k]['ms']} ms",
                   as_recorded(by[k]["gbs"]) + note, bytes_counted(by[k])]
                  for k, label, note in lines])


def builds_113_118(header, rows):
    by = keyed(rows, "run", "program", "kernel")

    def ms(program, kernel, run="default"):
        return by[(run, program, kernel)]["ms"]

    def timed(program, kernel, footnote=""):
        r = by[("default", program, kernel)]
        return f"{r['ms']} ms ({as_recorded(r['gbs'])} GB/s){footnote}"

    def of_ours(library, ours):
        return fixed(ratio(library, ours), 2)
    sorted_build = ms("115", "count_scan_scatter", "skew_0.8_sorted_rows")
    row_sort = ms("115", "cub_segmented_row_sort", "skew_0.8_sorted_rows")
    printed = {k: by[("default", "117", k)]["printed_ratio"]
               for k in ("atomic_per_edge", "warp_aggregated")}
    return table(["program", "what", "time", "against the library"], [
        ["113", "one thread per vertex, neighbour-id sums", timed("113", "csr_thread_per_vertex"),
         f"cuSPARSE SpMV (f64) {ms('113', 'cusparse_spmv_f64')} ms: cuSPARSE takes "
         f"{of_ours(ms('113', 'cusparse_spmv_f64'), ms('113', 'csr_thread_per_vertex'))} of our "
         f"time"],
        ["115", "count (atomic histogram)", f"{ms('115', 'atomic_count')} ms",
         f"`cub::DeviceHistogram::HistogramEven` {ms('115', 'cub_histogram')} ms: "
         f"{fixed(ratio(ms('115', 'cub_histogram'), ms('115', 'atomic_count')), 1)} x slower "
         f"with one bin per vertex"],
        ["115", "scan (CUB)", f"{ms('115', 'cub_scan')} ms", ""],
        ["115", "scatter (atomic bump allocators)", f"{ms('115', 'atomic_scatter')} ms", ""],
        ["115", "whole build", timed("115", "count_scan_scatter", "[^alike]"),
         f"sort-based build (CUB radix sort + gather + `cusparseXcoo2csr`) "
         f"{ms('115', 'cub_sort_build')} ms: "
         f"{of_ours(ms('115', 'cub_sort_build'), ms('115', 'count_scan_scatter'))} of ours"],
        ["115 `--skew 0.8 --sorted-rows`", "whole build / row sort",
         f"{sorted_build} ms / {row_sort} ms",
         f"`--sorted-rows` costs {fixed(ratio(row_sort, sorted_build), 2)} x the build"],
        ["117", "one atomic per edge into one total", timed("117", "atomic_per_edge"),
         f"`cub::DeviceReduce` {ms('117', 'cub_reduce')} ms: "
         f"{as_recorded(printed['atomic_per_edge'])} x faster"],
        ["117", "warp-aggregated (one atomic per warp)", timed("117", "warp_aggregated"),
         f"{printed['warp_aggregated']} x CUB's time"],
        ["118", "CSC by count, scan, scatter", timed("118", "count_scan_scatter", "[^alike]"),
         f"`cusparseCsr2cscEx2` from the CSR {ms('118', 'cusparse_csr2csc')} ms: "
         f"{of_ours(ms('118', 'cusparse_csr2csc'), ms('118', 'count_scan_scatter'))} of ours"],
    ])


def bucketed_build_159432c(header, rows):
    by = keyed(rows, "input", "kernel")
    inputs = [("0.25", "0.25"), ("0.57", "0.57 (`--skew`)"),
              ("graph500", "Graph500 (`--rmat 0.57,0.19,0.19`)"), ("0.80", "0.80")]
    columns = ["bucketed_count_plan", "bucketed_through_partition", "bucketed_build",
               "cub_payload_sort_build"]
    return table(
        ["skew", "pass 1 + plan", "passes 1 and 2", "whole bucketed build",
         "payload-sort build (CUB)", "bucketed / payload-sort (target <= 0.70)",
         "gather-sort build"],
        [[label] + [by[(i, k)]["ms"] for k in columns]
         + [fixed(ratio(by[(i, "bucketed_build")]["ms"], by[(i, "cub_payload_sort_build")]["ms"]),
                  2), by[(i, "cub_sort_build")]["ms"]] for i, label in inputs])
