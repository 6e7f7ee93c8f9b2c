// What 144 prints, checks and times around its lesson (144_coalescing_kernel.cu): which entry
// each thread reads, the modelled warp requests, the fixes' y, and the kernels and strides timed.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
#include "../../common/figure_data.h"
#include "../request_model.h"
#include "spmv_proof.cuh"

inline ProgramDescription coalescing_program() {
    return spmv_kernel_program(
               "144 (14.3) kernel: CSR reads strided, COO contiguous; warp per row and ELL",
               {"make 144_coalescing_kernel && build/144_coalescing_kernel",
                "build/144_coalescing_kernel --scale 20 --skew 0.8",
                "build/144_coalescing_kernel --scale 20 --skew 0.3", "make ncu-sectors"},
               {52, 96, 1600e6})
        .with_figure_data(
            "the element of values that each thread reads in each step, for CSR thread per "
            "row, CSR warp per row and ELL column-major, with the model's warp requests");
}

// One line per step, "t3->values[7]" or "t3 done", in columns, wrapped at 100 columns; past 8
// threads (a warp per row has 32) only the active ones are listed, with a count of the idle.
inline void print_access_table(const AccessTable& table, const std::string& array) {
    const bool in_full = table.num_threads <= 8;
    auto cell = [&](size_t t, long long e) {
        return "t" + std::to_string(t) +
               (e == kDone ? std::string(" done") : "->" + array + "[" + std::to_string(e) + "]");
    };
    auto print_line = [](std::string line) {
        line.erase(line.find_last_not_of(' ') + 1);
        std::printf("%s\n", line.c_str());
    };
    size_t width = 0;
    for (const auto& step : table.reads)
        for (size_t t = 0; t < table.num_threads; ++t)
            width = std::max(width, cell(t, step[t]).size());
    const size_t label_width = std::to_string(table.num_steps() - 1).size() + 8;
    for (int i = 0; i < table.num_steps(); ++i) {
        std::string line = "  step " + std::to_string(i) + ":";
        line.resize(label_width, ' ');
        std::vector<std::string> cells;
        for (size_t t = 0; t < table.num_threads; ++t)
            if (in_full || table.reads[i][t] != kDone) cells.push_back(cell(t, table.reads[i][t]));
        const size_t idle = table.num_threads - cells.size();
        if (idle > 0) cells.push_back("(" + counted(idle, "thread") + " idle)");
        for (const std::string& c : cells) {
            if (line.size() > label_width && line.size() + 2 + c.size() > kOutputColumns) {
                print_line(line);
                line = std::string(label_width, ' ');
            }
            line += "  " + c + std::string(width > c.size() ? width - c.size() : 0, ' ');
        }
        print_line(line);
    }
}

// The stride benchmark's reads as a mapping of the access model: one step, one element each.
struct StridedRead {
    int stride, log2_length;
    size_t num_threads() const { return size_t{1} << log2_length; }
    int length(size_t) const { return 1; }
    long long element(size_t t, int) const {
        return static_cast<long long>(strided_index(t, stride, log2_length));
    }
};

// The four mappings' warp requests; ELL's needs only the row lengths, so it is always modelled.
struct RequestModel {
    int longest_row = 0;
    AccessStats csr_rows, coo_entries, csr_warps, ell_rows;
};

inline RequestModel model_requests(const HostCsr& a) {
    announce_large(a.nnz(), "modelling the warp requests of four mappings");
    RequestModel m;
    m.longest_row = max_row_length(a);
    m.csr_rows = access_stats(CsrThreadPerRow(a.row_offsets));
    m.coo_entries = access_stats(CooThreadPerEntry(a.nnz()));
    m.csr_warps = access_stats(CsrWarpPerRow(a.row_offsets));
    m.ell_rows = access_stats(EllThreadPerRow(row_lengths(a)));
    return m;
}

// The notes' tables, computed: which entry each thread reads in each step.
inline void show_reads_by_step(const HostCsr& a) {
    if (!printable(a)) return;
    std::printf("CSR, one thread per row: thread t reads values[row_offsets[t] + i] in step i\n");
    print_access_table(access_table(CsrThreadPerRow(a.row_offsets)), "values");
    std::printf("COO, one thread per nonzero: thread t reads values[t]\n");
    print_access_table(access_table(CooThreadPerEntry(a.nnz())), "values");
    print_wrapped(
        "In one step the CSR threads read entries a row apart (strided), and the threads of "
        "shorter rows sit idle while the longest row finishes; the COO threads read neighbouring "
        "entries (contiguous).");
    std::printf("\n");
}

inline void print_model_row(const char* mapping, const AccessStats& s) {
    std::printf("  %-23s %12s %13s %11.2f %12.2f %9.1f%% %9.1f%%\n", mapping,
                with_separators(s.requests).c_str(), with_separators(s.sectors).c_str(),
                s.sectors_per_request(), s.fetched_per_used(), 100 * s.contiguous_fraction(),
                100 * s.lanes_busy());
}

// Bytes and 32-byte sectors of an array of 4-byte elements: "48 bytes, 2 sectors".
inline std::string array_extent(size_t elements) {
    const size_t bytes = elements * kElementBytes;
    return counted(bytes, "byte") + ", " +
           counted((bytes + kSectorBytes - 1) / kSectorBytes, "sector");
}

// Where every request touches a single sector, the mappings differ in requests and contiguity.
inline void explain_small_model(const HostCsr& a, const RequestModel& m) {
    const size_t ell_slots = static_cast<size_t>(a.num_rows) * m.longest_row;
    std::string text = "CSR's values holds " + counted(a.nnz(), "float") + " (" +
                       array_extent(a.nnz()) + "); ELL's values has " + counted(ell_slots, "slot") +
                       " (" + array_extent(ell_slots) + ").";
    const AccessStats* all[] = {&m.csr_rows, &m.coo_entries, &m.csr_warps, &m.ell_rows};
    if (std::all_of(all, all + 4, [](const AccessStats* s) { return s->sectors == s->requests; }))
        text +=
            " Every request here touches a single sector, so each mapping's sector count is "
            "its request count: here the mappings differ in how many requests they need and in "
            "whether each request is contiguous. On a larger matrix the sectors per request "
            "differ too: try --scale 16.";
    print_wrapped(text);
}

inline void show_request_model(const HostCsr& a, const RequestModel& m) {
    std::printf(
        "per warp request, the model of request_model.h (4-byte values, 32-byte sectors):\n");
    std::printf("  %-23s %12s %13s %11s %12s %10s %10s\n", "mapping", "requests", "sectors",
                "sectors/req", "fetched/used", "contiguous", "lanes busy");
    print_model_row("CSR, thread per row", m.csr_rows);
    print_model_row("COO, thread per nonzero", m.coo_entries);
    print_model_row("CSR, warp per row", m.csr_warps);
    print_model_row("ELL, thread per row", m.ell_rows);
    if (!ell_is_practical(a))
        std::printf("  (ELL's row is modelled from the row lengths: ELL itself is not built)\n");
    if (printable(a)) explain_small_model(a, m);
    std::printf("\n");
}

inline void check_request_model(const KernelProgram& p, const HostCsr& a, const RequestModel& m,
                                SelfCheck& check) {
    if (p.options.book_example()) {
        check.claim(
            "the CSR table is the notes' table (t0->values[0] t1->values[2] t2->values[5] "
            "t3->values[7], then 1 3 6 done, then done 4 done done)",
            access_table(CsrThreadPerRow(a.row_offsets)).reads == kNotesCsrAccessTable);
        check.claim("the COO table is the notes' (thread t reads values[t], in one step)",
                    access_table(CooThreadPerEntry(a.nnz())).reads == kNotesCooAccessTable);
    }
    announce_large(a.nnz(), "checking that each mapping reads every entry once");
    const std::vector<char> every_entry(a.nnz(), 1);
    check.claim(
        "CSR thread per row, COO thread per nonzero and CSR warp per row each read every entry "
        "exactly once",
        reads_each_entry_once(CsrThreadPerRow(a.row_offsets), every_entry) &&
            reads_each_entry_once(CooThreadPerEntry(a.nnz()), every_entry) &&
            reads_each_entry_once(CsrWarpPerRow(a.row_offsets), every_entry));
    const size_t longest = static_cast<size_t>(m.longest_row);
    check.claim("thread per row takes as many steps as the longest row (" +
                    with_separators(longest) + "), warp per row a 32nd of that, rounded up",
                m.csr_rows.max_work == longest &&
                    m.csr_warps.max_work == (longest + kWarpSize - 1) / kWarpSize);
    check.claim("every COO, warp-per-row and ELL request is contiguous in the model",
                m.coo_entries.contiguous_fraction() == 1.0 &&
                    m.csr_warps.contiguous_fraction() == 1.0 &&
                    m.ell_rows.contiguous_fraction() == 1.0);
    std::printf("\n");
}

// One mapping's reads[i][t] (kDone once finished) of `elements`, `padding` listed, and requests.
template <class Mapping>
void add_access_map(JsonWriter& figure, const std::string& name, const std::string& label,
                    const Mapping& m, size_t elements, const std::vector<long long>& padding) {
    const AccessStats stats = access_stats(m);
    figure.begin_object().field("name", name).field("label", label).field("array", "values");
    figure.field("elements", elements).field("padding", padding).field("warp_size", kWarpSize);
    figure.field("reads", access_table(m).reads).field("requests", stats.requests);
    figure.field("contiguous_requests", stats.contiguous_requests);
    figure.field("sectors", stats.sectors).end();
}

// --figure-data: the CSR's and ELL's arrays, and the maps of all but COO (the identity).
inline void write_access_figure(const ProgramOptions& options, const HostCsr& a,
                                const std::optional<HostEll>& ell) {
    if (!wants_figure_data(options)) return;
    JsonWriter figure = begin_figure_data(options, "144");
    figure.field("row_offsets", a.row_offsets).field("col_idx", a.col_idx);
    figure.field("values", a.values).field("sector_bytes", kSectorBytes);
    figure.field("element_bytes", kElementBytes);
    if (ell) {
        figure.key("ell").begin_object().field("nnz_per_row", ell->nnz_per_row);
        figure.field("width", ell->width).field("col_idx", ell->col_idx);
        figure.field("values", ell->values).end();
    }
    figure.key("maps").begin_array();
    add_access_map(figure, "csr_thread_per_row", "CSR, thread per row",
                   CsrThreadPerRow(a.row_offsets), a.nnz(), {});
    add_access_map(figure, "csr_warp_per_row", "CSR, warp per row", CsrWarpPerRow(a.row_offsets),
                   a.nnz(), {});
    if (ell) {
        std::vector<long long> padding;
        for (size_t slot = 0; slot < ell->num_slots(); ++slot)
            if (ell->col_idx[slot] == kEllPadding) padding.push_back(static_cast<long long>(slot));
        add_access_map(figure, "ell_thread_per_row", "ELL, column-major, thread per row",
                       EllThreadPerRow(ell->nnz_per_row), ell->num_slots(), padding);
    }
    figure.end();
    write_figure_data(options, figure);
}

// The fixes' tables on a small matrix, then ELL's padding where ELL is built.
inline void show_fixes(const HostCsr& a, const std::optional<HostEll>& ell) {
    if (printable(a)) {
        std::printf(
            "CSR, one warp per row: lane l of warp w (thread 32w + l) reads entries l, "
            "l + 32, ... of row w\n");
        print_access_table(access_table(CsrWarpPerRow(a.row_offsets)), "values");
    }
    if (ell && printable(a)) {
        print_wrapped(
            "ELL, column-major: slot (row, i) at i * num_rows + row; thread t reads "
            "values[i * num_rows + t] in step i");
        print_array("nnz_per_row", ell->nnz_per_row, 11);
        print_array("values", ell->values, 11);
        print_access_table(access_table(EllThreadPerRow(ell->nnz_per_row)), "values");
    }
    if (ell) {
        const size_t slots = ell->num_slots(), padding = slots - a.nnz();
        print_wrapped("ELL: every row padded to " + counted(ell->width, "slot") + ", " +
                      counted(slots, "slot") + " for " + counted(a.nnz(), "entry", "entries") +
                      " (" + fixed_text(slots ? 100.0 * padding / slots : 0.0, 1) + "% padding), " +
                      readable_ratio(ell_to_csr_bytes(a)) + " the CSR's bytes");
    }
    std::printf("\n");
}

// 2^28 floats, 1 GiB: 18 times the 60 MB L2 of an H200, so every pass comes from DRAM.
constexpr int kStridedLog2Length = 28;
const std::vector<int> kStrides = {1, 2, 4, 8, 16, 32};

// Measured: the same reads at strides 1 to 32, beside the sectors that the model predicts.
inline void time_strided_reads(TimingTable& table) {
    print_wrapped(
        "  strided reads: thread t reads element t * stride of a 1 GiB float array, wrapping "
        "around so that every element is read once; bytes: 4 per thread, the bytes asked for",
        4);
    DeviceBuffer<float> data(size_t{1} << kStridedLog2Length), sink(1);
    data.fill_bytes(0);
    std::vector<double> ms, sectors;
    for (int stride : kStrides) {
        // The model needs one pass of the pattern, not the whole gigabyte.
        sectors.push_back(access_stats(StridedRead{stride, 16}).sectors_per_request());
        ms.push_back(
            table.time("strided_read_" + std::to_string(stride),
                       "stride " + std::to_string(stride) + ", model " +
                           fixed_text(sectors.back(), 0) + " sectors per request",
                       static_cast<double>(data.bytes()), [&] {
#ifdef __CUDACC__  // timed on a GPU only, which a build without nvcc never has
                           strided_read_kernel<<<blocks_for(data.size()), kThreadsPerBlock>>>(
                               data.data(), stride, kStridedLog2Length, sink.data());
                           CUDA_CHECK_LAUNCH();
#endif
                       }));
    }
    print_wrapped("  measured, not a self-check: stride 2 runs at " + fixed_text(ms[0] / ms[1], 2) +
                      " and stride 32 at " + fixed_text(ms[0] / ms.back(), 2) +
                      " of stride 1's speed, where the model's sectors per request say 1/" +
                      fixed_text(sectors[1] / sectors[0], 0) + " and 1/" +
                      fixed_text(sectors.back() / sectors[0], 0),
                  4);
}

// cuSPARSE checked; on a GPU at --scale, the stride benchmark, and the four mappings beside
// cuSPARSE, each given the bytes that any SpMV must move, so GB/s ranks them as time does.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 const HostCoo& coo, const std::optional<HostEll>& ell,
                                 SelfCheck& check) {
    check_library_route(p, in, check);
    std::printf("\n(3) measured\n");
    if (!timed_here(p)) {
        std::printf("  the stride benchmark and the kernels' timings run on a GPU, with --scale\n");
        return;
    }
    TimingTable table(p, "144", p.options.skew, "");
    time_strided_reads(table);
    print_wrapped("  SpMV: bytes for every kernel: the CSR arrays, x, and y read and written", 4);
    const HostCsr& a = in.csr;
    const SpmvTimes ms = time_beside_library(
        p, table, a,
        {timed_spmv(p.here, "csr_thread_per_row", "CSR, thread per row", launch_spmv_csr, &a),
         timed_spmv(p.here, "coo_thread_per_nonzero", "COO, thread per nonzero", launch_spmv_coo,
                    &coo),
         timed_spmv(p.here, "csr_warp_per_row", "CSR, warp per row", launch_spmv_csr_warp_per_row,
                    &a),
         timed_spmv(p.here, "ell_thread_per_row", "ELL, thread per row", launch_spmv_ell,
                    ell ? &*ell : nullptr, 0, ell_not_built(a))},
        {kCusparseDefault});
    print_ratio(table, ms, "cuSPARSE / warp per row", "cusparse_csr", "csr_warp_per_row",
                "cuSPARSE is faster");
    print_ratio(table, ms, "cuSPARSE / ELL", "cusparse_csr", "ell_thread_per_row",
                "cuSPARSE is faster");
    print_ratio(table, ms, "warp per row / thread per row", "csr_warp_per_row",
                "csr_thread_per_row", "warp per row is faster");
    print_ratio(table, ms, "ELL / thread per row", "ell_thread_per_row", "csr_thread_per_row",
                "ELL is faster");
}
