// 14.3, kernel: why the CSR kernel's reads are strided and the COO kernel's contiguous, what that
// costs, and two fixes.
// (1) Which entry each thread reads in each step, computed from the matrix (on Fig. 14.1 it is
//     the notes' table), and a model of the 32-byte sectors that each warp request touches.
// (2) Measured: thread t reads element t * stride of a 1 GiB array, for strides 1 to 32.
// (3) The fixes, checked against the CPU reference and timed beside cuSPARSE: CSR with one warp
//     per row (the lanes read one row's consecutive entries) and ELL stored column-major (the
//     threads read consecutive slots), which pays for it with padding.
//
// Build and run:  make 144_coalescing_kernel && build/144_coalescing_kernel
//                 build/144_coalescing_kernel --scale 20 --skew 0.8   (skewed: warp per row wins)
//                 build/144_coalescing_kernel --scale 20 --skew 0.3   (ELL's padding stays small)
//                 make ncu-sectors   (the sectors per request measured by Nsight Compute)
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "access_table.h"
#include "chapter_inputs.h"
#include "regular_formats.h"
#include "spmv_bodies.cuh"

namespace coalescing {

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// Not zero, so that a kernel that stores into y instead of adding to it fails the check.
std::vector<float> starting_y(int n) {
    std::vector<float> y(n);
    for (int i = 0; i < n; ++i) y[i] = 0.5f * static_cast<float>(i % 3);
    return y;
}

// ------------------------------------------------------------------------- (2) strided reads

// 2^28 floats, 1 GiB: 18 times the 60 MB L2 of an H200, so every pass comes from DRAM.
constexpr int kStridedLog2Length = 28;
const std::vector<int> kStrides = {1, 2, 4, 8, 16, 32};

// Thread t's element. t * stride runs `stride` times around the array; pass p (= t * stride /
// length) starts at element p, so pass p reads p, p + stride, p + 2 * stride, ... and all the
// passes together read every element exactly once, whatever the stride (a power of two).
__host__ __device__ inline size_t strided_index(size_t t, int stride, int log2_length) {
    const size_t i = t * static_cast<size_t>(stride);
    return (i & ((size_t{1} << log2_length) - 1)) + (i >> log2_length);
}

// The data are zeros, so the store never happens; the compiler cannot know that, so the load
// stays, and nothing but the loads reaches memory.
__global__ void strided_read_kernel(const float* data, int stride, int log2_length, float* sink) {
    const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= (size_t{1} << log2_length)) return;
    const float v = data[strided_index(t, stride, log2_length)];
    if (v != 0.0f) *sink = v;
}

// The same reads as a mapping for the access model: one step, thread t reads its element.
class StridedRead {
public:
    StridedRead(int stride, int log2_length) : stride_(stride), log2_length_(log2_length) {}
    size_t num_threads() const { return size_t{1} << log2_length_; }
    int length(size_t) const { return 1; }
    long long element(size_t t, int) const {
        return static_cast<long long>(strided_index(t, stride_, log2_length_));
    }

private:
    int stride_, log2_length_;
};

// ------------------------------------------------------------------- (3) CSR, one warp per row

// Warp w owns row w: lane l reads entries l, l + 32, ... of the row, so in each step the warp
// reads 32 consecutive entries. Warp-cooperative, so there is no host emulation. The row is the
// same for all 32 lanes (blocks hold whole warps), so a warp past the last row leaves as a
// whole and the shuffles below always see every lane. After the halving steps 16, 8, 4, 2, 1
// lane 0 holds the row's sum, and only it writes y[row]: no atomics.
__global__ void spmv_csr_warp_per_row_kernel(int num_rows, const int* row_ptrs, const int* cols,
                                             const float* values, const float* x, float* y) {
    const size_t thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t row = thread / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    if (row >= static_cast<size_t>(num_rows)) return;
    float sum = 0.0f;
    for (int k = row_ptrs[row] + lane; k < row_ptrs[row + 1]; k += kWarpSize)
        sum += values[k] * x[cols[k]];
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
    if (lane == 0) y[row] += sum;
}
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must hold whole warps");

// The launches, y += A * x; a matrix with no rows or no entries launches nothing.
void launch_csr_thread_per_row(DeviceCsrMatrix& a, const float* x, float* y) {
    if (a.num_rows == 0) return;
    spmv_csr_kernel<<<blocks_for(a.num_rows), kThreadsPerBlock>>>(
        a.num_rows, a.row_ptrs.data(), a.col_idx.data(), a.values.data(), x, y);
    CUDA_CHECK_LAUNCH();
}

void launch_csr_warp_per_row(DeviceCsrMatrix& a, const float* x, float* y) {
    if (a.num_rows == 0) return;
    spmv_csr_warp_per_row_kernel<<<blocks_for(static_cast<size_t>(a.num_rows) * kWarpSize),
                                   kThreadsPerBlock>>>(a.num_rows, a.row_ptrs.data(),
                                                       a.col_idx.data(), a.values.data(), x, y);
    CUDA_CHECK_LAUNCH();
}

std::vector<float> csr_thread_per_row_gpu(const HostCsr& a, const std::vector<float>& x,
                                          const std::vector<float>& y0) {
    DeviceCsrMatrix d(a);
    return spmv_on_gpu(x, y0,
                       [&](const float* dx, float* dy) { launch_csr_thread_per_row(d, dx, dy); });
}

std::vector<float> csr_warp_per_row_gpu(const HostCsr& a, const std::vector<float>& x,
                                        const std::vector<float>& y0) {
    DeviceCsrMatrix d(a);
    return spmv_on_gpu(x, y0,
                       [&](const float* dx, float* dy) { launch_csr_warp_per_row(d, dx, dy); });
}

std::vector<float> coo_thread_per_entry_gpu(const HostCoo& a, const std::vector<float>& x,
                                            const std::vector<float>& y0) {
    DeviceCooMatrix d(a);
    return spmv_on_gpu(x, y0, [&](const float* dx, float* dy) { d.spmv(dx, dy); });
}

// The same per-thread bodies, run on the host one thread at a time.
std::vector<float> csr_thread_per_row_emulated(const HostCsr& a, const std::vector<float>& x,
                                               std::vector<float> y, const ThreadOrder& order) {
    emulate_threads(a.num_rows, order, [&](int row) {
        spmv_csr_thread(row, a.row_offsets.data(), a.col_idx.data(), a.values.data(), x.data(),
                        y.data());
    });
    return y;
}

std::vector<float> coo_thread_per_entry_emulated(const HostCoo& a, const std::vector<float>& x,
                                                 std::vector<float> y, const ThreadOrder& order) {
    emulate_threads(a.nnz(), order, [&](int k) {
        spmv_coo_thread(k, a.rows.data(), a.cols.data(), a.values.data(), x.data(), y.data());
    });
    return y;
}

void print_stats_row(const char* name, const AccessStats& s) {
    std::printf("  %-32s %10zu %11zu %11.2f %12.2f %10.1f%% %9.1f%%\n", name, s.requests, s.sectors,
                s.sectors_per_request(), s.fetched_per_used(), 100 * s.contiguous_fraction(),
                100 * s.lanes_busy());
}

}  // namespace coalescing

#ifndef LESSON_WITHOUT_MAIN
// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{52, 96, 1600e6};

int main(int argc, char** argv) {
    using namespace coalescing;
    const KernelProgram p = start_kernel_program(
        argc, argv, "144 (14.3) kernel: CSR reads strided, COO contiguous; warp per row and ELL");
    const HostCoo input = spmv_input(p.options, kMemory);
    const HostCoo coo = sorted_by_row(input);  // the notes' COO: the entries in row order
    const HostCsr csr = csr_from_coo_by_stable_sort(input);
    const std::vector<int> lengths = row_lengths(csr);
    const int longest = max_row_length(csr);
    const double mean_length = csr.num_rows ? double(csr.nnz()) / csr.num_rows : 0.0;
    const bool small = csr.num_rows <= 8 && csr.nnz() <= 32;
    const bool timed = p.on_gpu() && p.options.scale > 0;
    const std::vector<char> every_entry(csr.nnz(), 1);
    SelfCheck check;

    // (1) ----------------------------------------------------------------------------------
    std::printf("(1) which entry each thread reads, step by step, computed from row_ptrs\n");
    const CsrThreadPerRow csr_threads(csr.row_offsets);
    const CooThreadPerEntry coo_threads(coo.nnz());
    const CsrWarpPerRow csr_warps(csr.row_offsets);
    const EllThreadPerRow ell_threads(lengths);
    if (small) {
        print_array("row_ptrs", csr.row_offsets, 8);
        print_array("value", csr.values, 8);
        std::printf("CSR, one thread per row: thread t reads value[row_ptrs[t] + i] in step i\n");
        print_access_table(access_table(csr_threads), "value");
        std::printf("COO, one thread per entry: thread t reads value[t]\n");
        print_access_table(access_table(coo_threads), "value");
        std::printf("In one step the CSR threads read entries a row apart (strided), and the\n"
                    "shorter rows' threads sit idle while the longest row finishes; the COO\n"
                    "threads read neighbouring entries (contiguous).\n");
    }
    const AccessStats csr_stats = access_stats(csr_threads), coo_stats = access_stats(coo_threads),
                      warp_stats = access_stats(csr_warps), ell_stats = access_stats(ell_threads);
    std::printf(
        "\nper warp request, the model of access_table.h (4-byte values, 32-byte sectors):\n");
    std::printf("  %-32s %10s %11s %11s %12s %11s %10s\n", "mapping", "requests", "sectors",
                "sectors/req", "fetched/used", "contiguous", "lanes busy");
    print_stats_row("CSR, thread per row", csr_stats);
    print_stats_row("COO, thread per entry", coo_stats);
    print_stats_row("CSR, warp per row", warp_stats);
    print_stats_row("ELL column-major, thread per row", ell_stats);
    std::printf("  (ELL's row needs only the row lengths: it is computed, built or not)\n");
    if (csr.nnz() <= 8)
        std::printf(
            "(The whole value array fits in one 32-byte sector here, so only the contiguity\n"
            "tells the mappings apart; the sectors do on a larger matrix: try --scale 16.)\n");
    std::printf("\n");

    if (p.options.book_example()) {
        check.claim("the CSR table is the notes' table (t0->value[0] t1->value[2] t2->value[5] "
                    "t3->value[7], then 1 3 6 done, then done 4 done done)",
                    access_table(csr_threads).reads == kNotesCsrAccessTable);
        check.claim("the COO table is the notes' (thread t reads value[t], in one step)",
                    access_table(coo_threads).reads == kNotesCooAccessTable);
    }
    check.claim("CSR thread per row, COO thread per entry and CSR warp per row each read every "
                "entry exactly once",
                reads_each_entry_once(csr_threads, every_entry) &&
                    reads_each_entry_once(coo_threads, every_entry) &&
                    reads_each_entry_once(csr_warps, every_entry));
    check.claim(
        "thread per row takes as many steps as the longest row (" + std::to_string(longest) +
            "), warp per row a 32nd of that, rounded up",
        csr_stats.max_work == static_cast<size_t>(longest) &&
            warp_stats.max_work == static_cast<size_t>((longest + kWarpSize - 1) / kWarpSize));
    check.claim("every COO, warp-per-row and ELL request is contiguous in the model",
                coo_stats.contiguous_fraction() == 1.0 && warp_stats.contiguous_fraction() == 1.0 &&
                    ell_stats.contiguous_fraction() == 1.0);

    // (2) ----------------------------------------------------------------------------------
    std::printf("(2) measured: thread t reads element t * stride of a 1 GiB float array, wrapping\n"
                "    around so that every element is read once; effective GB/s counts 4 bytes per\n"
                "    thread, the bytes that the threads asked for\n");
    double copy_gbs = 0;
    if (!p.on_gpu()) {
        std::printf("    (needs a GPU: not measured in emulation)\n\n");
    } else if (p.options.scale == 0) {
        std::printf("    (a timing, so it runs with --scale only)\n\n");
    } else {
        copy_gbs = measure_copy_gbs();
        DeviceBuffer<float> data(size_t{1} << kStridedLog2Length), sink(1);
        data.fill_bytes(0);
        std::printf("  %6s %16s %10s %15s %10s   (copy bandwidth %.0f GB/s)\n", "stride",
                    "sectors/request", "time ms", "effective GB/s", "% of copy", copy_gbs);
        std::vector<double> gbs;
        for (int stride : kStrides) {
            // The model needs one pass of the pattern, not the whole gigabyte.
            const AccessStats model = access_stats(StridedRead(stride, 16));
            const double ms = median_gpu_ms([&] {
                strided_read_kernel<<<blocks_for(data.size()), kThreadsPerBlock>>>(
                    data.data(), stride, kStridedLog2Length, sink.data());
                CUDA_CHECK_LAUNCH();
            });
            gbs.push_back(gb_per_s(static_cast<double>(data.bytes()), ms));
            std::printf("  %6d %16.1f %10.3f %15.0f %9.1f%%\n", stride, model.sectors_per_request(),
                        ms, gbs.back(), 100 * gbs.back() / copy_gbs);
        }
        std::printf(
            "A warp asks for 128 bytes at every stride; at stride s its 32 reads span 4s\n"
            "sectors and touch min(4s, 32) of them, so from stride 8 on each 32-byte sector\n"
            "brings one useful float.\n\n");
        std::printf("measured, not a self-check (times vary with the GPU and its load):\n"
                    "  stride 2 reaches %.2f and stride 32 %.2f of stride 1's effective bandwidth\n"
                    "  (the model: 1/2 and 1/8)\n\n",
                    gbs[1] / gbs[0], gbs[5] / gbs[0]);
    }

    // (3) ----------------------------------------------------------------------------------
    std::printf("(3) the fixes\n");
    const bool ell_built = ell_is_practical(csr);
    HostEll ell;
    if (ell_built) ell = ell_from_csr(csr);
    if (small && ell_built) {
        std::printf(
            "CSR, one warp per row: lane l of warp w (thread 32w + l) reads entries l, l + 32,\n"
            "... of row w\n");
        print_access_table(access_table(csr_warps), "value");
        std::printf("ELL, column-major: slot (row, i) at i * num_rows + row; thread t reads\n"
                    "ell_values[i * num_rows + t] in step i\n");
        print_array("nnz_per_row", ell.nnz_per_row, 11);
        print_array("ell_values", ell.values, 11);
        print_access_table(access_table(ell_threads), "ell_values");
    }
    const std::string ell_skip_reason = "ELL is not built: its padding would take " +
                                        readable_ratio(ell_to_csr_bytes(csr)) + " the CSR's bytes";
    if (!ell_built)
        std::printf(
            "ELL: the longest row has %d entries, so ELL would pad all %d rows to %d slots:\n"
            "  %s, %s the CSR's %s. Past %.0fx this program does not build it (and\n"
            "  never trims rows to make it fit); 145's HYB keeps ELL narrow and puts the\n"
            "  long rows' extra entries in COO.\n",
            longest, csr.num_rows, longest,
            readable_bytes(static_cast<double>(ell_bytes(csr.num_rows, longest))).c_str(),
            readable_ratio(ell_to_csr_bytes(csr)).c_str(),
            readable_bytes(static_cast<double>(csr_bytes(csr))).c_str(), kEllPaddingLimit);
    std::printf("\n");

    const std::vector<float> x = lesson_x(csr.num_cols);
    const std::vector<float> y0 = starting_y(csr.num_rows);
    const SpmvReference reference = spmv_reference(input, x, y0);
    const std::string where = p.on_gpu() ? "on the GPU" : "emulated";
    const std::string warp_claim = "y from CSR, warp per row, matches the CPU reference";
    const std::string ell_claim =
        "y from ELL, thread per row (" + where + "), matches the CPU reference";
    if (p.on_gpu()) {
        check.claim("y from CSR, thread per row (on the GPU), matches the CPU reference",
                    spmv_matches(csr_thread_per_row_gpu(csr, x, y0), reference));
        check.claim("y from COO, thread per entry (on the GPU), matches the CPU reference",
                    spmv_matches(coo_thread_per_entry_gpu(coo, x, y0), reference));
        check.claim(warp_claim, spmv_matches(csr_warp_per_row_gpu(csr, x, y0), reference));
        if (ell_built) check.claim(ell_claim, spmv_matches(spmv_ell_gpu(ell, x, y0), reference));
    } else {
        check.claim(
            "y from CSR, thread per row (emulated), matches the CPU reference",
            spmv_matches(csr_thread_per_row_emulated(csr, x, y0, p.shuffled_order()), reference));
        check.claim("y from COO, thread per entry (emulated), matches the CPU reference",
                    spmv_matches(coo_thread_per_entry_emulated(coo, x, y0, p.shuffled_order()),
                                 reference));
        check.skip(warp_claim, "needs a GPU: warp-cooperative, no emulation");
        if (ell_built)
            check.claim(ell_claim, spmv_matches(spmv_ell_emulated(ell, x, y0, p.shuffled_order()),
                                                reference));
    }
    if (!ell_built) check.skip(ell_claim, ell_skip_reason);

    const double skew_ratio = mean_length > 0 ? longest / mean_length : 0.0;
    if (!timed) {
        std::printf("timings: %s\n\n", p.on_gpu() ? "at --scale only" : "need a GPU");
    } else {
        DeviceCsrMatrix d_csr(csr);
        DeviceCooMatrix d_coo(coo);
        std::unique_ptr<DeviceEll> d_ell = ell_built ? std::make_unique<DeviceEll>(ell) : nullptr;
        DeviceBuffer<float> d_x(x), d_y(y0);
        // At --scale 1 to 3 the R-MAT matrix can hold more entries than places, which cuSPARSE
        // refuses; it is then neither checked nor timed.
        const std::unique_ptr<CusparseSpmv> library = cusparse_spmv_checked(
            check, "y from cuSPARSE's SpMV matches the CPU reference", d_csr.num_rows,
            d_csr.num_cols, d_csr.nnz(), d_csr.row_ptrs.data(), d_csr.col_idx.data(),
            d_csr.values.data(), d_x.data(), d_y.data(),
            [&] { return spmv_matches(d_y.download(), reference); });

        // Bytes that any SpMV of this matrix must move at least once: the CSR arrays, x, and y
        // read and written. The same count for every kernel, so GB/s ranks them as time does.
        const double bytes =
            static_cast<double>(csr_bytes(csr)) + 4.0 * csr.num_cols + 8.0 * csr.num_rows;
        auto median_ms_of = [&](auto launch) {
            return median_gpu_ms([&] { launch(d_x.data(), d_y.data()); });
        };
        const double thread_ms = median_ms_of(
            [&](const float* dx, float* dy) { launch_csr_thread_per_row(d_csr, dx, dy); });
        const double coo_ms = median_ms_of([&](const float* dx, float* dy) { d_coo.spmv(dx, dy); });
        const double warp_ms = median_ms_of(
            [&](const float* dx, float* dy) { launch_csr_warp_per_row(d_csr, dx, dy); });
        const double ell_ms =
            ell_built ? median_ms_of([&](const float* dx, float* dy) { d_ell->spmv(dx, dy); })
                      : 0.0;
        const double library_ms = library ? median_gpu_ms([&] { library->run(); }) : 0.0;
        std::printf("timings on %s (%s; copy bandwidth %.0f GB/s; each\n"
                    "counts %.1f MB: the CSR arrays, x, and y read and written):\n",
                    p.backend.device_name.c_str(), timing_description().c_str(), copy_gbs, bytes / 1e6);
        auto row = [&](const char* name, double ms) {
            std::printf("  %-24s %9.3f ms %7.0f GB/s (%5.1f%% of copy)  %6.2fx thread per row\n",
                        name, ms, gb_per_s(bytes, ms), 100 * gb_per_s(bytes, ms) / copy_gbs,
                        thread_ms / ms);
        };
        row("CSR, thread per row", thread_ms);
        row("COO, thread per entry", coo_ms);
        row("CSR, warp per row", warp_ms);
        if (ell_built)
            row("ELL, thread per row", ell_ms);
        else
            std::printf("  %-24s not built (padding: %s the CSR's bytes)\n", "ELL, thread per row",
                        readable_ratio(ell_to_csr_bytes(csr)).c_str());
        if (library) {
            row("cuSPARSE SpMV (CSR)", library_ms);
            std::printf("  ratio cuSPARSE / warp per row: %.2f\n", library_ms / warp_ms);
            if (ell_built) std::printf("  ratio cuSPARSE / ELL: %.2f\n", library_ms / ell_ms);
        }
        std::printf("  longest row %d entries, %.0f times the mean row length %.2f\n\n", longest,
                    skew_ratio, mean_length);
        std::printf("measured, not a self-check: warp per row takes %.2f of thread per row's time",
                    warp_ms / thread_ms);
        if (ell_built)
            std::printf(", ELL %.2f;\n  the model: ELL touches %zu sectors to thread per row's %zu",
                        ell_ms / thread_ms, ell_stats.sectors, csr_stats.sectors);
        std::printf("\n\n");
    }

    if (!p.options.matrix.empty()) {
        const std::vector<float> ones(csr.num_cols, 1.0f), zeros(csr.num_rows, 0.0f);
        const std::vector<float> y_ones =
            p.on_gpu() ? csr_thread_per_row_gpu(csr, ones, zeros)
                       : csr_thread_per_row_emulated(csr, ones, zeros, p.shuffled_order());
        check.end_with(spmv_result_line(input, y_ones));
    }
    return check.finish();
}
#endif
