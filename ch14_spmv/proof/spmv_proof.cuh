// What every SpMV kernel lesson (142 to 145, 148, 150) prints, checks and times around its
// kernels: y side by side, the claims about y, cuSPARSE checked, and the kernels timed beside it.
#pragma once
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/device_formats.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"
#include "../spmv_on_device.cuh"

// The byte model of the chapter's GB/s, a floor: the matrix's arrays, x read once (a cache may
// serve a gather's repeats), y read and written once.
inline double spmv_vector_bytes(int num_rows, int num_cols) {
    return 4.0 * num_cols + 8.0 * num_rows;
}
inline double csr_spmv_bytes(const HostCsr& a) {
    return static_cast<double>(csr_bytes(a)) + spmv_vector_bytes(a.num_rows, a.num_cols);
}

// A kernel lesson's description: Fig. 14.1 by default, an R-MAT matrix at --scale.
inline ProgramDescription spmv_kernel_program(std::string title, std::vector<std::string> examples,
                                              MemoryModel memory) {
    return ProgramDescription(std::move(title), std::move(examples))
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
        .with_memory(memory);
}

inline void show_ys(const SpmvLessonInput& in,
                    const std::vector<std::pair<std::string, const std::vector<float>*>>& ys) {
    if (!printable(in.csr)) return;
    size_t width = 0;
    for (const auto& named : ys) width = std::max(width, named.first.size());
    for (const auto& [name, y] : ys) print_array(name, *y, static_cast<int>(width));
    std::printf("\n");
}

// Kernel and baseline may add a row in other orders, and a GPU's atomics flush subnormals, so
// neither need equal the other bit for bit: both are held to the double reference's bound. The
// kernel's name says where it ran ("the emulated kernel"); one not built is skipped, with why.
inline void claim_kernel_matches_baseline(const KernelProgram& p, const SpmvLessonInput& in,
                                          const std::string& kernel, const std::vector<float>& y,
                                          const std::vector<float>& y_cpu, SelfCheck& check,
                                          const std::string& not_built = "") {
    const std::string claim =
        std::string("the ") + p.here.name() + " " + kernel + "'s y matches its CPU baseline's";
    if (!not_built.empty()) return check.skip(claim, not_built);
    check.claim(claim + ": both within float32 rounding and underflow of the double reference",
                spmv_matches(y, in.reference()) && spmv_matches(y_cpu, in.reference()));
}

inline void check_spmv(const KernelProgram& p, const SpmvLessonInput& in, const std::string& kernel,
                       const std::vector<float>& y_cpu, const std::vector<float>& y,
                       SelfCheck& check) {
    check.claim("the CPU baseline's y is within float32 rounding of the double reference",
                spmv_matches(y_cpu, in.reference()));
    claim_kernel_matches_baseline(p, in, kernel, y, y_cpu, check);
}

inline void check_runs(const KernelProgram& p, const SpmvLessonInput& in,
                       const std::vector<SpmvRun>& runs, SelfCheck& check) {
    for (const SpmvRun& run : runs)
        claim_kernel_matches_baseline(p, in, run.kernel, run.y, run.y_cpu, check, run.not_built);
}

// A launch on x and y, its format already where the kernels run.
using SpmvLaunch = std::function<void(const float*, float*)>;

// A timed kernel: `upload` copies its format where the kernels run (a CSR kernel takes the
// table's copy) and returns its launch; without it, the kernel is not built, `not_built` says why.
struct TimedSpmv {
    std::string kernel, label;
    std::function<SpmvLaunch(const HostCsr&, DeviceCsr&)> upload;
    double bytes = 0;  // 0: the bytes that any SpMV of the matrix must move (csr_spmv_bytes)
    std::string not_built;
};

// A launch of the lessons' shape on the host format *a; not built where a is null.
template <class Device, class Host>
TimedSpmv timed_spmv(const Here& here, const std::string& kernel, const std::string& label,
                     void (*launch)(const Here&, Device&, const float*, float*), const Host* a,
                     double bytes = 0, const std::string& not_built = "") {
    TimedSpmv timed{kernel, label, nullptr, bytes, not_built};
    if (!a) return timed;
    timed.upload = [&here, launch, a](const HostCsr& matrix, DeviceCsr& on_device) -> SpmvLaunch {
        if constexpr (std::is_same_v<Device, DeviceCsr>)
            if (static_cast<const void*>(a) == &matrix)
                return [&here, launch, &on_device](const float* x, float* y) {
                    launch(here, on_device, x, y);
                };
        auto d = std::make_shared<Device>(here, *a);
        return [&here, launch, d](const float* x, float* y) { launch(here, *d, x, y); };
    };
    return timed;
}

// cuSPARSE's CSR SpMV on the same arrays, the fair bar; ALG1 splits rows like the row kernels,
// ALG2 the nonzeros like the merge path.
// A build without the CUDA Toolkit names the routes, which it leaves out, and no algorithm.
#ifdef __CUDACC__
#define CUSPARSE_ALGORITHM(algorithm) , algorithm
#else
#define CUSPARSE_ALGORITHM(algorithm)
#endif
struct LibrarySpmv {
    const char* kernel;
    const char* label;
#ifdef __CUDACC__
    cusparseSpMVAlg_t algorithm;
#endif
};
const LibrarySpmv kCusparseDefault = {"cusparse_csr", "cuSPARSE CSR SpMV"
                                      CUSPARSE_ALGORITHM(CUSPARSE_SPMV_ALG_DEFAULT)};
const LibrarySpmv kCusparseAlg1 = {"cusparse_csr_alg1", "cuSPARSE CSR SpMV, ALG1"
                                   CUSPARSE_ALGORITHM(CUSPARSE_SPMV_CSR_ALG1)};
const LibrarySpmv kCusparseAlg2 = {"cusparse_csr_alg2", "cuSPARSE CSR SpMV, ALG2"
                                   CUSPARSE_ALGORITHM(CUSPARSE_SPMV_CSR_ALG2)};
#undef CUSPARSE_ALGORITHM

// The median milliseconds of each kernel timed, by its timing: name.
using SpmvTimes = std::map<std::string, double>;

// The kernels, then the library's, on one x and y: runs keep adding into y, so no reset is
// timed. cuSPARSE refuses more entries than places (R-MAT at --scale 1 to 3): then not timed.
inline SpmvTimes time_beside_library(const KernelProgram& p, TimingTable& table, const HostCsr& a,
                                     const std::vector<TimedSpmv>& kernels,
                                     const std::vector<LibrarySpmv>& libraries) {
    DeviceCsr d(p.here, a);
    DeviceArray<float> dx(p.here, lesson_x(a.num_cols)), dy(p.here, lesson_y0(a.num_rows));
    SpmvTimes ms;
    for (const TimedSpmv& k : kernels)
        if (!k.upload)
            table.skipped(k.kernel, k.not_built, "fill");
        else
            ms[k.kernel] =
                table.time(k.kernel, k.label, k.bytes > 0 ? k.bytes : csr_spmv_bytes(a),
                           [&, launch = k.upload(a, d)] { launch(dx.data(), dy.data()); });
#ifdef __CUDACC__
    if (!cusparse_refusal(a.num_rows, a.num_cols, a.nnz()).empty()) return ms;
    for (const LibrarySpmv& library : libraries) {
        CusparseSpmv route(a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(), d.col_idx.data(),
                           d.values.data(), dx.data(), dy.data(), library.algorithm);
        ms[library.kernel] =
            table.time(library.kernel, library.label, csr_spmv_bytes(a), [&] { route.run(); });
    }
#endif
    return ms;
}

inline bool timed_here(const KernelProgram& p) {
    return p.on_gpu() && p.options.scale > 0;
}

// cuSPARSE's CSR SpMV (its default algorithm) on the lesson's x and y0, held to the same double
// reference as the kernels. It skips in emulation, and where the library refuses the matrix.
inline void check_library_route(const KernelProgram& p, const SpmvLessonInput& in,
                                SelfCheck& check) {
    const std::string claim = "cuSPARSE's CSR SpMV matches the same double reference";
    if (!p.on_gpu()) return check.skip(claim);
#ifdef __CUDACC__
    const HostCsr& a = in.csr;
    DeviceCsr d(p.here, a);
    DeviceArray<float> dx(p.here, in.x), dy(p.here, in.y0);
    cusparse_spmv_checked(check, claim, a.num_rows, a.num_cols, a.nnz(), d.row_offsets.data(),
                          d.col_idx.data(), d.values.data(), dx.data(), dy.data(),
                          [&] { return spmv_matches(dy.download(), in.reference()); });
#endif
}

// The library route checked; then, at --scale on a GPU, the lesson's kernels timed beside it,
// in a table of `program`'s, and `ratios` given the times to compare.
inline void compare_with_library(const KernelProgram& p, const SpmvLessonInput& in,
                                 const std::string& program, const std::string& bytes_note,
                                 const std::vector<TimedSpmv>& kernels,
                                 const std::vector<LibrarySpmv>& libraries, SelfCheck& check,
                                 const std::function<void(TimingTable&, SpmvTimes&)>& ratios) {
    check_library_route(p, in, check);
    if (!timed_here(p)) return;
    TimingTable table(p, program, p.options.skew, bytes_note);
    SpmvTimes ms = time_beside_library(p, table, in.csr, kernels, libraries);
    ratios(table, ms);
}

// "ratio what: over / under", where both were timed.
inline void print_ratio(const TimingTable& table, const SpmvTimes& ms, const std::string& what,
                        const std::string& over, const std::string& under,
                        const std::string& below_one = "") {
    if (ms.count(over) && ms.count(under)) table.ratio(what, ms.at(over) / ms.at(under), below_one);
}

const std::string kCsrBytesNote = "bytes: the CSR arrays, x once, y read and written once";
