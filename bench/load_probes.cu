// make ncu-sectors: the loads of 144's four SpMV mappings, one array at a time, for Nsight
// Compute to count. A probe kernel walks a mapping's loop and sums one array: the values, the
// column indices, or x gathered through the column indices. Sectors per element loaded are then
// each probe's sectors over the elements that it loads, with no other array mixed in; the x
// gather is the x probe less the column probe, and the CSR probes' row bounds are the bounds
// probe, measured alone. bench/ncu_sectors.py profiles this program and makes the table.
//
// Build and run:  make ncu-sectors                        (a GPU and ncu)
//                 build/load_probes --scale 16            (the probes, checked, anywhere)
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
// 144's lesson: its mappings' kernels, ELL where the kernels run, and its access model
#include "../ch14_spmv/144_coalescing_kernel.cu"
#include "../ch14_spmv/proof/144_coalescing_kernel.cuh"

enum class Loaded { bounds, values, col_idx, x_gather };

constexpr Loaded kLoaded[] = {Loaded::bounds, Loaded::values, Loaded::col_idx, Loaded::x_gather};

// The probes launch as the lessons' kernels do: 256 threads a block, enough blocks for every
// thread, so that each probe's warps read what the mapping's warps read.
constexpr unsigned kProbeThreads = 256;
inline unsigned probe_blocks(size_t threads) {
    return static_cast<unsigned>((threads + kProbeThreads - 1) / kProbeThreads);
}

inline const char* loaded_name(Loaded l) {
    switch (l) {
        case Loaded::bounds:
            return "bounds";
        case Loaded::values:
            return "values";
        case Loaded::col_idx:
            return "col_idx";
        case Loaded::x_gather:
            return "x_gather";
    }
    return "";
}

template <Loaded L>
__host__ __device__ inline float probe_load(size_t k, const float* values, const int* col_idx,
                                            const float* x) {
    if constexpr (L == Loaded::values) return values[k];
    if constexpr (L == Loaded::col_idx) return static_cast<float>(col_idx[k]);
    if constexpr (L == Loaded::x_gather) return x[col_idx[k]];
    return 0.0f;
}

// The bounds probe stores the bounds themselves, so that their loads cannot be left out.
template <Loaded L>
__host__ __device__ inline float probe_result(float sum, int length) {
    return L == Loaded::bounds ? static_cast<float>(length) : sum;
}

// CSR, `lanes` threads per row: lane l of row r reads entries l, l + lanes, ... of the row. One
// lane is the chapter's thread per row, 32 are 144's warp per row.
template <Loaded L>
__host__ __device__ void csr_probe_thread(int t, int lanes, const int* row_offsets,
                                          const float* values, const int* col_idx, const float* x,
                                          float* out) {
    const int row = t / lanes, lane = t % lanes;
    const int begin = row_offsets[row], end = row_offsets[row + 1];
    float sum = 0.0f;
    for (int k = begin + lane; k < end; k += lanes) sum += probe_load<L>(k, values, col_idx, x);
    out[t] = probe_result<L>(sum, end - begin);
}

template <Loaded L>
__global__ void csr_probe_kernel(int n, int lanes, const int* row_offsets, const float* values,
                                 const int* col_idx, const float* x, float* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) csr_probe_thread<L>(t, lanes, row_offsets, values, col_idx, x, out);
}

// COO, thread per nonzero: thread k reads entry k.
template <Loaded L>
__host__ __device__ void coo_entries_probe_thread(int k, const float* values, const int* col_idx,
                                                  const float* x, float* out) {
    out[k] = probe_load<L>(k, values, col_idx, x);
}

template <Loaded L>
__global__ void coo_entries_probe_kernel(int n, const float* values, const int* col_idx,
                                         const float* x, float* out) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) coo_entries_probe_thread<L>(k, values, col_idx, x, out);
}

// ELL, thread per row, column-major: thread r reads slot i * R + r for each of its entries.
template <Loaded L>
__host__ __device__ void ell_rows_probe_thread(int r, int num_rows, const int* nnz_per_row,
                                               const float* values, const int* col_idx,
                                               const float* x, float* out) {
    float sum = 0.0f;
    for (int i = 0; i < nnz_per_row[r]; ++i)
        sum += probe_load<L>(static_cast<size_t>(i) * num_rows + r, values, col_idx, x);
    out[r] = probe_result<L>(sum, nnz_per_row[r]);
}

template <Loaded L>
__global__ void ell_rows_probe_kernel(int n, int num_rows, const int* nnz_per_row,
                                      const float* values, const int* col_idx, const float* x,
                                      float* out) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) ell_rows_probe_thread<L>(r, num_rows, nnz_per_row, values, col_idx, x, out);
}

// One probe's launch and its check. The expected outputs are read from the CSR arrays directly,
// not through the probes' bodies: each row's length, each entry's loaded value, and each row's
// sum of them within float32 rounding. So a probe that read the wrong array, or skipped or
// repeated an element, would fail. The line that it prints is what the script reads.
class Probes {
public:
    Probes(const KernelProgram& p, const HostCsr& a, const std::optional<HostEll>& ell)
        : p_(p), a_(a), d_csr_(p.here, a), x_(lesson_x(a.num_cols)), dx_(p.here, x_) {
        if (ell) d_ell_.emplace(p.here, *ell);
    }

    void run_all(SelfCheck& check) {
        bool all_match = true;
        for (Loaded l : kLoaded) all_match = run(l) && all_match;
        check.claim(
            "every probe's outputs match its array read directly on the host: each row's "
            "length, each entry, each row's sum within float32 rounding",
            all_match);
    }

private:
    int row_length(int row) const { return a_.row_offsets[row + 1] - a_.row_offsets[row]; }

    template <Loaded L>
    float entry(size_t k) const {
        if (L == Loaded::values) return a_.values[k];
        if (L == Loaded::col_idx) return static_cast<float>(a_.col_idx[k]);
        return x_[a_.col_idx[k]];
    }

    // `got` holds one float sum of the row's entries, however its lanes split them.
    template <Loaded L>
    bool row_matches(int row, double got) const {
        if (L == Loaded::bounds) return got == row_length(row);
        double sum = 0, magnitude = 0;
        for (int k = a_.row_offsets[row]; k < a_.row_offsets[row + 1]; ++k) {
            sum += entry<L>(k);
            magnitude += std::fabs(entry<L>(k));
        }
        return std::fabs(got - sum) <= (row_length(row) + 1) * 1.2e-7 * magnitude;
    }

    template <Loaded L>
    bool run_mappings() {
        const int rows = a_.num_rows, nnz = a_.nnz();
        bool match = true;
        auto launch_and_check = [&](const char* mapping, size_t threads, auto launch,
                                    auto outputs_match) {
            DeviceArray<float> out(p_.here, threads);
            launch(out.data());
            match = outputs_match(out.download()) && match;
            const size_t elements = L == Loaded::bounds ? 0 : static_cast<size_t>(nnz);
            std::printf("probe: mapping=%s loaded=%s elements=%zu threads=%zu\n", mapping,
                        loaded_name(L), elements, threads);
        };
        const int* offsets = d_csr_.row_offsets.data();
        const float* values = d_csr_.values.data();
        const int* cols = d_csr_.col_idx.data();
        const float* x = dx_.data();
        // A bounds probe stores the row's length in every lane; the others store partial sums.
        auto rows_match = [&](const std::vector<float>& out, int lanes) {
            for (int row = 0; row < rows; ++row) {
                double got = 0;
                for (int l = 0; l < lanes; ++l) {
                    const float v = out[static_cast<size_t>(row) * lanes + l];
                    if (L == Loaded::bounds && v != row_length(row)) return false;
                    got = L == Loaded::bounds ? v : got + v;
                }
                if (!row_matches<L>(row, got)) return false;
            }
            return true;
        };
        auto csr_lanes = [&](const char* mapping, int lanes) {
            const size_t threads = static_cast<size_t>(rows) * lanes;
            launch_and_check(
                mapping, threads,
                [&](float* out) {
                    p_.here.launch(probe_blocks(threads), kProbeThreads, csr_probe_kernel<L>,
                                   csr_probe_thread<L>, threads, lanes, offsets, values, cols, x,
                                   out);
                },
                [&](const std::vector<float>& out) { return rows_match(out, lanes); });
        };
        csr_lanes("csr_thread_per_row", 1);
        if (L != Loaded::bounds)
            launch_and_check(
                "coo_thread_per_nonzero", nnz,
                [&](float* out) {
                    p_.here.launch(probe_blocks(nnz), kProbeThreads, coo_entries_probe_kernel<L>,
                                   coo_entries_probe_thread<L>, nnz, values, cols, x, out);
                },
                [&](const std::vector<float>& out) {
                    for (int k = 0; k < nnz; ++k)
                        if (out[k] != entry<L>(k)) return false;
                    return true;
                });
        csr_lanes("csr_warp_per_row", kWarpSize);
        if (!d_ell_) return match;
        DeviceEll& e = *d_ell_;
        launch_and_check(
            "ell_thread_per_row", rows,
            [&](float* out) {
                p_.here.launch(probe_blocks(rows), kProbeThreads, ell_rows_probe_kernel<L>,
                               ell_rows_probe_thread<L>, rows, e.num_rows, e.nnz_per_row.data(),
                               e.values.data(), e.col_idx.data(), x, out);
            },
            [&](const std::vector<float>& out) { return rows_match(out, 1); });
        return match;
    }

    bool run(Loaded l) {
        switch (l) {
            case Loaded::bounds:
                return run_mappings<Loaded::bounds>();
            case Loaded::values:
                return run_mappings<Loaded::values>();
            case Loaded::col_idx:
                return run_mappings<Loaded::col_idx>();
            case Loaded::x_gather:
                return run_mappings<Loaded::x_gather>();
        }
        return false;
    }

    const KernelProgram& p_;
    const HostCsr& a_;
    DeviceCsr d_csr_;
    std::optional<DeviceEll> d_ell_;
    std::vector<float> x_;
    DeviceArray<float> dx_;
};

// 144's model of the values array for each mapping, for the script to set beside the counts.
inline void print_model(const HostCsr& a, const std::optional<HostEll>& ell) {
    const RequestModel m = model_requests(a);
    auto line = [](const char* mapping, const AccessStats& s) {
        std::printf("model: mapping=%s sectors_per_element=%.4f sectors_per_request=%.4f\n",
                    mapping, s.reads ? double(s.sectors) / s.reads : 0.0, s.sectors_per_request());
    };
    line("csr_thread_per_row", m.csr_rows);
    line("coo_thread_per_nonzero", m.coo_entries);
    line("csr_warp_per_row", m.csr_warps);
    if (ell) line("ell_thread_per_row", m.ell_rows);
}

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription("load probes: 144's four mappings, one array at a time",
                           {"make ncu-sectors", "build/load_probes --scale 16"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_memory({60, 300, 900e6}));
    const HostCoo coo = spmv_input(p.options);
    const HostCsr a = csr_for_lesson(coo);
    const std::optional<HostEll> ell = ell_if_practical(a);
    print_model(a, ell);
    SelfCheck check;
    Probes(p, a, ell).run_all(check);
    return check.finish();
}
