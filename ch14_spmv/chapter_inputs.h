// The inputs and checks that chapter 14's SpMV programs share: the 4x4 matrix of Fig. 14.1, the
// --scale and --matrix inputs, the x vector, and the float32 tolerance that every y is judged by.
#pragma once
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>
#include "../common/matrix_reader.h"
#include "../common/options.h"
#include "../common/rmat_cache.h"
#include "../common/self_check.h"
#include "../common/sparse_host.h"
#include "../common/stencil_input.h"
#include "../common/text.h"

// Fig. 14.1, in COO, row by row: [ 1 7 . . ], [ 5 . 3 9 ], [ . 2 8 . ], [ . . . 6 ].
inline HostCoo fig14_1() {
    return coo_of(4, 4, {0, 0, 1, 1, 1, 2, 2, 3}, {0, 1, 0, 2, 3, 1, 2, 3},
                  {1, 7, 5, 3, 9, 2, 8, 6});
}

const std::vector<int> kFigRowOffsets = {0, 2, 5, 7, 8};  // the notes' rowPtrs

constexpr uint64_t kMatrixSeed = 14;

// The largest x entry (lesson_x; the result: line's are ones) and y0 entry that SpMVs here use.
constexpr double kLargestX = 1.875;
constexpr double kLargestY0 = 1.0;

// A row whose |a_ij| * x_j add up past the largest float overflows to inf in some order of the
// additions: the input's fault, not a kernel's, so it is refused before any kernel runs.
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

// Fig. 14.1; with --scale S an R-MAT matrix (through rmat_cache.h's cache) or, with --stencil,
// a Poisson matrix; with --matrix FILE the file's. Input beyond the budget or unusable exits 2.
inline HostCoo spmv_input(const ProgramOptions& opt) {
    if (!opt.matrix.empty()) {
        HostCoo a = read_matrix_option(opt);
        refuse_float_overflow(a, opt.matrix);
        return a;
    }
    if (opt.scale == 0) return fig14_1();
    if (opt.stencil != StencilKind::none) return stencil_input(opt);
    const uint64_t rows = uint64_t{1} << opt.scale;
    require_memory(opt, "--scale " + std::to_string(opt.scale), rows, rows, rows * kEdgeFactor);
    std::printf("input: R-MAT matrix, scale %d (%s x %s, %s entries), a,b,c,d = %s\n", opt.scale,
                with_separators(rows).c_str(), with_separators(rows).c_str(),
                with_separators(rows * kEdgeFactor).c_str(), opt.rmat.text().c_str());
    HostCoo generated =
        make_rmat_through_cache(opt.scale, kEdgeFactor, opt.rmat, kMatrixSeed, "the R-MAT matrix");
    std::printf("%s\n", graph_line(generated, opt.scale, opt.rmat.text(), "rmat").c_str());
    return generated;
}

// One x and y0 for the whole chapter, so one matrix gives one y everywhere. x: distinct, exact
// values, so a wrong column index changes y; y0 not zero, so storing instead of adding is caught.
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

// The result: line's x and y0, so that its y_sum is the sum of A.
inline std::vector<float> ones(int n) { return std::vector<float>(n, 1.0f); }
inline std::vector<float> zeros(int n) { return std::vector<float>(n, 0.0f); }

// y = A * x + y0 in double, and each y_i's float32 bound. Rounding, in any order of the adds
// (atomics and shuffles reorder them): (n_i + 2) * 2^-23 * (sum_k |a_ik * x_k| + |y0_i|). And
// underflow, which no relative term sees: float atomics on global memory (and cuSPARSE) flush
// subnormals, so each multiply-add may lose under FLT_MIN three ways (operand, product, sum) and
// y0_i once: FLT_MIN * (sum_k (|x_k| + 2) + 1), below 10^-30 for rows under 10^7 entries.
struct SpmvReference {
    std::vector<double> y;
    std::vector<double> tolerance;
};

// From the COO as given, so that a wrong CSR cannot also make the reference wrong. Bands of rows,
// one a thread (deal_stably), keep each band's sums in its cache, in each row's entry order.
inline SpmvReference spmv_reference(const HostCoo& a, const std::vector<float>& x,
                                    const std::vector<float>& y0) {
    SpmvReference ref;
    ref.y.assign(y0.begin(), y0.end());
    std::vector<double> magnitude(a.num_rows, 0.0), underflow_weight(a.num_rows, 1.0);
    std::vector<int> length(a.num_rows, 0);
    const int bands = threads_available(), rows_per_band = a.num_rows / bands + 1;
    const DealtEntries dealt = deal_stably(a, bands, [&](int row) {
        return static_cast<size_t>(std::min(bands - 1, std::max(row, 0) / rows_per_band));
    });
#pragma omp parallel for schedule(dynamic, 1) if (a.nnz() >= kAnnouncedSize)
    for (int b = 0; b < bands; ++b)
        for (size_t i = dealt.begin[b]; i < dealt.begin[b + 1]; ++i) {
            const DealtEntry& e = dealt.entries[i];
            if (e.row < 0 || e.row >= a.num_rows) continue;
            const double product = static_cast<double>(e.value) * x[e.col];
            ref.y[e.row] += product;
            magnitude[e.row] += std::fabs(product);
            underflow_weight[e.row] += std::fabs(static_cast<double>(x[e.col])) + 2;
            ++length[e.row];
        }
    const double smallest_normal = std::numeric_limits<float>::min();
    ref.tolerance.resize(a.num_rows);
    for (int i = 0; i < a.num_rows; ++i)
        ref.tolerance[i] = (length[i] + 2) * std::ldexp(1.0, -23) *
                               (magnitude[i] + std::fabs(static_cast<double>(y0[i]))) +
                           underflow_weight[i] * smallest_normal;
    return ref;
}

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

// The result: line: the matrix's facts and the sum of y = A * 1, which any other tool can give.
inline std::string spmv_result_line(const HostCoo& a, const std::vector<float>& y_of_ones) {
    double sum = 0;
    for (float v : y_of_ones) sum += v;
    char text[64];
    std::snprintf(text, sizeof text, " y_sum=%.10g", sum);
    return result_line(a) + text;
}

// A lesson's input; the double reference is made when a check first asks for it, then kept.
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

enum class ShownFormat { coo, csr };

// The input, its arrays printed under the code's names with the notes' beside them.
inline SpmvLessonInput spmv_lesson_input(const ProgramOptions& opt,
                                         ShownFormat format = ShownFormat::csr) {
    SpmvLessonInput in;
    in.coo = spmv_input(opt);
    in.csr = csr_for_lesson(in.coo);
    in.x = lesson_x(in.csr.num_cols);
    in.y0 = lesson_y0(in.csr.num_rows);
    if (!printable(in.coo)) return in;
    const int width = format == ShownFormat::coo ? 28 : 33;
    if (format == ShownFormat::coo) {
        std::printf("the matrix in COO, %s:\n", counted(in.coo.nnz(), "nonzero").c_str());
        print_array("values (the book's value)", in.coo.values, width);
        print_array("cols (the book's colIdx)", in.coo.cols, width);
        print_array("rows (the book's rowIdx)", in.coo.rows, width);
    } else {
        print_csr("the matrix in CSR, " + counted(in.csr.nnz(), "nonzero") + " grouped by row:",
                  in.csr, CsrValues::book_values, width);
    }
    print_array("x", in.x, width);
    print_array("y0", in.y0, width);
    std::printf("\n");
    return in;
}
