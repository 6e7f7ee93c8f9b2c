// The inputs and checks that chapter 14's SpMV programs share: the 4x4 matrix of Fig. 14.1, the
// --scale and --matrix inputs, the x vector, and the float32 tolerance that every y is judged by.
#pragma once
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>
#include "../common/graph_generators.h"
#include "../common/matrix_reader.h"
#include "../common/options.h"
#include "../common/rmat_cache.h"
#include "../common/self_check.h"
#include "../common/sparse_host.h"
#include "../common/stencil_input.h"
#include "../common/text.h"

// Fig. 14.1, in COO, row by row:
//        x0 x1 x2 x3
//   r0 [  1  7  .  . ]
//   r1 [  5  .  3  9 ]
//   r2 [  .  2  8  . ]
//   r3 [  .  .  .  6 ]
inline HostCoo fig14_1() {
    HostCoo a;
    a.num_rows = a.num_cols = 4;
    a.rows = {0, 0, 1, 1, 1, 2, 2, 3};
    a.cols = {0, 1, 0, 2, 3, 1, 2, 3};
    a.values = {1, 7, 5, 3, 9, 2, 8, 6};
    return a;
}

const std::vector<int> kFigRowOffsets = {0, 2, 5, 7, 8};  // the notes' rowPtrs

constexpr uint64_t kMatrixSeed = 14;

// The largest x entry that any of the chapter's SpMVs uses (lesson_x below; the result: line
// uses ones), and the largest y0 entry.
constexpr double kLargestX = 1.875;
constexpr double kLargestY0 = 1.0;

// SpMV sums each row in float. When a row's |a_ij| * |x_j| add up past the largest float, some
// order of the additions overflows to inf: that is the input's values, not a kernel's fault,
// so it is refused (exit 2) before any kernel runs, naming the row.
inline void refuse_float_overflow(const HostCoo& a, const std::string& source) {
    std::vector<double> magnitude(a.num_rows, 0.0);
    for (size_t k = 0; k < a.nnz(); ++k)
        magnitude[a.rows[k]] += std::fabs(static_cast<double>(a.values[k])) * kLargestX;
    for (int r = 0; r < a.num_rows; ++r)
        if (magnitude[r] + kLargestY0 > std::numeric_limits<float>::max()) {
            char text[240];
            std::snprintf(text, sizeof text,
                          "%s: the input's values overflow float: row %d's |a_ij| * x_j add up to "
                          "%.3g, beyond the largest float (%.4g), so a float SpMV can reach inf",
                          source.c_str(), r + 1, magnitude[r],
                          static_cast<double>(std::numeric_limits<float>::max()));
            fail_bad_input(text);
        }
}

// Fig. 14.1; with --scale S an R-MAT matrix (2^S rows, 16 * 2^S entries, skewed row lengths),
// or with --stencil too a Poisson matrix of about 2^S rows (stencil_input.h); with --matrix FILE
// the file's matrix. An input beyond the program's memory budget, a file that cannot be read, or
// values that overflow float end the program (exit 2). The R-MAT matrix comes through the cache
// where SUITE_RMAT_CACHE names one (rmat_cache.h).
inline HostCoo spmv_input(const ProgramOptions& opt) {
    if (!opt.matrix.empty()) {
        HostCoo a = read_matrix_option(opt);
        refuse_float_overflow(a, opt.matrix);
        return a;
    }
    if (opt.scale == 0) return fig14_1();
    if (opt.stencil != StencilKind::none) return stencil_input(opt);
    const uint64_t rows = uint64_t{1} << opt.scale;
    require_memory(opt, "--scale " + std::to_string(opt.scale), rows, rows,
                   rows * kEdgeFactor);
    std::printf("input: R-MAT matrix, scale %d (%s x %s, %s entries), a,b,c,d = %s\n",
                opt.scale, with_separators(rows).c_str(), with_separators(rows).c_str(),
                with_separators(rows * kEdgeFactor).c_str(), opt.rmat.text().c_str());
    HostCoo generated =
        make_rmat_through_cache(opt.scale, kEdgeFactor, opt.rmat, kMatrixSeed, "the R-MAT matrix");
    std::printf("%s\n", graph_line(generated, opt.scale, opt.rmat.text(), "rmat").c_str());
    return generated;
}

// One x and y0 for the whole chapter, so one matrix gives one y everywhere. x: distinct, exact
// values, so a wrong column index changes y; y0 not zero, so storing instead of adding is caught.
// The result: line uses x = all ones and y0 = 0 instead (y_sum is then the sum of A).
inline std::vector<float> lesson_x(int num_cols) {
    std::vector<float> x(num_cols);
    for (int j = 0; j < num_cols; ++j) x[j] = 1.0f + static_cast<float>(j % 8) * 0.125f;
    return x;
}

inline std::vector<float> lesson_y0(int num_rows) {
    std::vector<float> y(num_rows);
    for (int i = 0; i < num_rows; ++i) y[i] = 0.5f * static_cast<float>(i % 3);
    return y;
}

inline std::vector<float> ones(int n) { return std::vector<float>(n, 1.0f); }
inline std::vector<float> zeros(int n) { return std::vector<float>(n, 0.0f); }

// The CPU reference y = A * x + y0 in double, with the bound that float32 arithmetic must stay
// within. Two kinds of error make up the bound of y_i:
// - Rounding. y_i is a sum of n_i products and y0_i; adding them in float32, in any order
//   (atomics and shuffles reorder them), errs by at most about n_i * 2^-24 * sum_k |a_ik * x_k|,
//   here (n_i + 2) * 2^-23 * (sum_k |a_ik * x_k| + |y0_i|), with room to spare.
// - Underflow, which that relative term cannot see: it is an absolute error, and the sum it
//   spoils may be tiny or zero. A float atomicAdd on global memory runs in flush-to-zero mode on
//   every NVIDIA GPU, whatever -ftz says, and so may a library's kernels (cuSPARSE's do): a
//   subnormal operand is read as zero and a subnormal result is stored as zero. Each of a row's
//   n_i multiply-adds can lose less than the smallest normal float (FLT_MIN, 2^-126) three ways:
//   a subnormal a_ik read as zero (|a_ik * x_k| < FLT_MIN * |x_k|), a subnormal product flushed,
//   a subnormal sum flushed; and y0_i, read as zero where it is subnormal. So the bound adds
//   FLT_MIN * (sum_k (|x_k| + 2) + 1). It is below 10^-30 for any row shorter than 10^7
//   entries, so it loosens nothing for sums in float's normal range.
struct SpmvReference {
    std::vector<double> y;
    std::vector<double> tolerance;
};

// From the COO as given, so that a wrong CSR cannot also make the reference wrong. The entries
// are dealt to bands of rows in entry order (deal_stably), one band a thread, so each band's sums
// stay in its cache (one thread adding into rows all over y took seconds at scale 22) and each
// row's products are added in entry order, however many bands there are.
inline SpmvReference spmv_reference(const HostCoo& a, const std::vector<float>& x,
                                    const std::vector<float>& y0) {
    SpmvReference ref;
    ref.y.assign(y0.begin(), y0.end());
    std::vector<double> magnitude(a.num_rows, 0.0), underflow_weight(a.num_rows, 1.0);
    std::vector<int> length(a.num_rows, 0);
    auto add = [&](int row, int col, float value) {
        if (row < 0 || row >= a.num_rows) return;
        const double product = static_cast<double>(value) * x[col];
        ref.y[row] += product;
        magnitude[row] += std::fabs(product);
        underflow_weight[row] += std::fabs(static_cast<double>(x[col])) + 2;
        ++length[row];
    };
    if (a.nnz() < kAnnouncedSize) {
        for (size_t k = 0; k < a.nnz(); ++k) add(a.rows[k], a.cols[k], a.values[k]);
    } else {
        const int bands = threads_available(), rows_per_band = a.num_rows / bands + 1;
        const DealtEntries dealt = deal_stably(a, bands, [&](int row) {
            return static_cast<size_t>(std::min(bands - 1, std::max(row, 0) / rows_per_band));
        });
#pragma omp parallel for schedule(dynamic, 1)
        for (int b = 0; b < bands; ++b)
            for (size_t i = dealt.begin[b]; i < dealt.begin[b + 1]; ++i)
                add(dealt.entries[i].row, dealt.entries[i].col, dealt.entries[i].value);
    }
    const double smallest_normal = std::numeric_limits<float>::min();
    ref.tolerance.resize(a.num_rows);
    for (int i = 0; i < a.num_rows; ++i)
        ref.tolerance[i] = (length[i] + 2) * std::ldexp(1.0, -23) *
                               (magnitude[i] + std::fabs(static_cast<double>(y0[i]))) +
                           underflow_weight[i] * smallest_normal;
    return ref;
}

// True when every y_i is within its float32 bound of the reference.
inline bool spmv_matches(const std::vector<float>& y, const SpmvReference& ref) {
    if (y.size() != ref.y.size()) return false;
    for (size_t i = 0; i < y.size(); ++i)
        if (!(std::fabs(static_cast<double>(y[i]) - ref.y[i]) <= ref.tolerance[i])) return false;
    return true;
}

// A CSR's bytes, 4 per int and float: what every format's bytes are set beside.
inline size_t csr_bytes(const HostCsr& a) {
    return 8 * a.nnz() + 4 * (a.num_rows + size_t{1});
}

// The result: line of an SpMV program: the matrix's facts and the sum of y = A * 1, which a
// reader can compare with any other tool's (scipy's A.sum(), say).
inline std::string spmv_result_line(const HostCoo& a, const std::vector<float>& y_of_ones) {
    double sum = 0;
    for (float v : y_of_ones) sum += v;
    char text[64];
    std::snprintf(text, sizeof text, " y_sum=%.10g", sum);
    return result_line(a) + text;
}

// A lesson's input: the matrix in COO as read and in CSR, x and y0, and the double reference of
// y = A * x + y0, made when a check first asks for it and kept for the others.
struct SpmvLessonInput {
    HostCoo coo;
    HostCsr csr;
    std::vector<float> x, y0;

    const SpmvReference& reference() const {
        if (!reference_) reference_ = spmv_reference(coo, x, y0);
        return *reference_;
    }

private:
    mutable std::optional<SpmvReference> reference_;
};

// The format whose arrays a lesson prints, when the input is small enough to print.
enum class ShownFormat { coo, csr };

// The arrays print under the code's names, with the notes' names beside them: value, colIdx,
// rowIdx and rowPtrs.
inline void show_spmv_input(const SpmvLessonInput& in, ShownFormat format) {
    if (!printable(in.coo)) return;
    if (format == ShownFormat::coo) {
        std::printf("the matrix in COO, %s:\n", counted(in.coo.nnz(), "nonzero").c_str());
        print_array("values (the book's value)", in.coo.values, 28);
        print_array("cols (the book's colIdx)", in.coo.cols, 28);
        print_array("rows (the book's rowIdx)", in.coo.rows, 28);
    } else {
        print_csr("the matrix in CSR, " + counted(in.csr.nnz(), "nonzero") + " grouped by row:",
                  in.csr, CsrValues::book_values, 33);
    }
    print_array("x", in.x, format == ShownFormat::coo ? 28 : 33);
    print_array("y0", in.y0, format == ShownFormat::coo ? 28 : 33);
    std::printf("\n");
}

inline SpmvLessonInput spmv_lesson_input(const ProgramOptions& opt,
                                         ShownFormat format = ShownFormat::csr) {
    SpmvLessonInput in;
    in.coo = spmv_input(opt);
    in.csr = csr_for_lesson(in.coo);
    in.x = lesson_x(in.csr.num_cols);
    in.y0 = lesson_y0(in.csr.num_rows);
    show_spmv_input(in, format);
    return in;
}
