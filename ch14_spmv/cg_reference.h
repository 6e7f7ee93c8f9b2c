// 147's host side: the systems that its conjugate gradient solves, and what its solutions are
// judged by.
//   the Poisson matrix   the 5-point Laplacian on a grid, its exact condition number, and the
//                        grid that --scale S gives
//   an SPD file          the cheap checks that a file must pass before CG may take it
//   the system           Jacobi scaling where the diagonal varies, and b = A x_true for a known
//                        x_true, so that the error of a solution is known
//   the reference        what 147's CPU baseline (CG in double on the same float matrix and b)
//                        returns, and the condition number estimated from its coefficients (the
//                        Ritz values)
//   the judgement        a float solution's residual recomputed in double, its error, and its
//                        distance from the reference, each beside the bound that it must meet
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <vector>
#include "../common/random.h"
#include "../common/sparse_host.h"
#include "chapter_inputs.h"

constexpr uint64_t kSolutionSeed = 147;
constexpr int kDefaultGridSide = 16;
constexpr double kReferenceTolerance = 1e-10;
constexpr int kIterationsPerUnknown = 10;   // the iteration cap is 10 n
constexpr int kMaxReferenceRows = 1 << 21;  // beyond this the double CPU solve takes minutes
// CG's work grows as n^1.5 on the grid (its iterations grow with the grid's side): from here
// on a solve on the host takes a second or more, and says so as it starts.
constexpr int kAnnouncedUnknowns = 1 << 16;

// ------------------------------------------------------------------------ the Poisson matrix

// The 5-point Laplacian on an nx x ny grid with zero boundary values, the matrix of chapter 8's
// stencil sweeps. Unknown (i, j) is row j * nx + i: 4 on the diagonal, -1 for each of its up to
// four grid neighbours. It is symmetric, and positive definite because its eigenvalues, given
// below, are all positive.
inline HostCoo poisson_5_point(int nx, int ny) {
    HostCoo a;
    a.num_rows = a.num_cols = nx * ny;
    auto add = [&](int row, int col, float value) {
        a.rows.push_back(row);
        a.cols.push_back(col);
        a.values.push_back(value);
    };
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const int row = j * nx + i;
            if (j > 0) add(row, row - nx, -1.0f);
            if (i > 0) add(row, row - 1, -1.0f);
            add(row, row, 4.0f);
            if (i < nx - 1) add(row, row + 1, -1.0f);
            if (j < ny - 1) add(row, row + nx, -1.0f);
        }
    return a;
}

// Its eigenvalues are 4 - 2 cos(i pi / (nx + 1)) - 2 cos(j pi / (ny + 1)), i in 1..nx and
// j in 1..ny; the extremes give the condition number exactly.
inline double poisson_condition_number(int nx, int ny) {
    const double pi = std::acos(-1.0);
    const double cx = std::cos(pi / (nx + 1)), cy = std::cos(pi / (ny + 1));
    return (4 + 2 * cx + 2 * cy) / (4 - 2 * cx - 2 * cy);
}

// --scale S: 2^S unknowns on a grid of 2^(S/2) x 2^(S - S/2) points.
inline void poisson_grid_for_scale(int scale, int& nx, int& ny) {
    nx = 1 << (scale / 2);
    ny = 1 << (scale - scale / 2);
}

// ------------------------------------------------------------------------------ an SPD file

// Why a file cannot go to CG, or "" when it can as far as cheap checks tell. Positive
// definiteness itself shows only during the solve (p . A p <= 0). Rows are 1-based in the
// messages, as in the file. Duplicate entries count as their sum.
inline std::string spd_refusal(const HostCoo& a) {
    if (a.num_rows != a.num_cols)
        return "not square (" + std::to_string(a.num_rows) + " x " + std::to_string(a.num_cols) +
               ")";
    if (a.num_rows == 0) return "empty (0 x 0): there is nothing to solve";
    std::vector<std::tuple<int, int, double>> merged;
    for (const Entry& e : sorted_entries(a)) {
        const auto [r, c, v] = e;
        if (!merged.empty() && std::get<0>(merged.back()) == r && std::get<1>(merged.back()) == c)
            std::get<2>(merged.back()) += v;
        else
            merged.emplace_back(r, c, v);
    }
    auto value_at = [&](int r, int c) {
        const auto it =
            std::lower_bound(merged.begin(), merged.end(), std::make_tuple(r, c, -HUGE_VAL));
        return it != merged.end() && std::get<0>(*it) == r && std::get<1>(*it) == c
                   ? std::get<2>(*it)
                   : 0.0;
    };
    for (int r = 0; r < a.num_rows; ++r) {
        const double d = value_at(r, r);
        if (!(d > 0)) {
            char text[160];
            std::snprintf(text, sizeof text, "diagonal not positive: a(%d,%d) = %g", r + 1, r + 1,
                          d);
            return text;
        }
    }
    for (const auto& [r, c, v] : merged)
        if (value_at(c, r) != v) {
            char text[200];
            std::snprintf(text, sizeof text, "not symmetric: a(%d,%d) = %.9g but a(%d,%d) = %.9g",
                          r + 1, c + 1, v, c + 1, r + 1, value_at(c, r));
            return text;
        }
    return "";
}

[[noreturn]] inline void refuse_not_positive_definite(const std::string& source, double value,
                                                      int iteration) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "%s: not positive definite: CG met p . A p = %.6g <= 0 at iteration %d; "
                  "conjugate gradient needs a symmetric positive definite matrix",
                  source.c_str(), value, iteration);
    fail_bad_input(text);
}

// ------------------------------------------------------------------------------- the system

// The diagonal of a CSR matrix, duplicates summed.
inline std::vector<double> diagonal_of(const HostCsr& a) {
    std::vector<double> d(a.num_rows, 0.0);
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            if (a.col_idx[k] == r) d[r] += a.values[k];
    return d;
}

inline bool has_constant_diagonal(const HostCsr& a) {
    const std::vector<double> d = diagonal_of(a);
    return std::all_of(d.begin(), d.end(), [&](double v) { return v == d.front(); });
}

// Host loops shorter than this run on one thread: starting a parallel region for each short
// vector operation costs more than it saves, and much more on a busy machine.
constexpr int kMinParallelLength = 1 << 16;
inline bool worth_threads(int length) {
    return length >= kMinParallelLength;
}

// y = matrix * v in double, with the float matrix's values exactly as stored.
inline std::vector<double> multiply_in_double(const HostCsr& a, const std::vector<double>& v) {
    std::vector<double> y(a.num_rows, 0.0);
#pragma omp parallel for schedule(static) if (worth_threads(a.num_rows))
    for (int r = 0; r < a.num_rows; ++r) {
        double sum = 0;
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            sum += static_cast<double>(a.values[k]) * v[a.col_idx[k]];
        y[r] = sum;
    }
    return y;
}

inline double norm2(const std::vector<double>& v) {
    double sum = 0;
    for (double e : v) sum += e * e;
    return std::sqrt(sum);
}

// ||got - expected|| / ||expected|| (the plain difference where expected is 0).
template <class A, class B>
double relative_difference(const std::vector<A>& got, const std::vector<B>& expected) {
    double diff = 0, size = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double d = static_cast<double>(got[i]) - static_cast<double>(expected[i]);
        diff += d * d;
        size += static_cast<double>(expected[i]) * static_cast<double>(expected[i]);
    }
    return size == 0 ? std::sqrt(diff) : std::sqrt(diff / size);
}

// ||rhs - A y|| / ||rhs||, all in double: for the double solve, and against the right-hand side
// before it was rounded to float.
inline double relative_residual(const HostCsr& a, const std::vector<double>& rhs,
                                const std::vector<double>& y) {
    const std::vector<double> ay = multiply_in_double(a, y);
    std::vector<double> r(ay.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = rhs[i] - ay[i];
    return norm2(r) / norm2(rhs);
}

// The system that CG solves, A y = b, and how its solution maps back to the user's x.
// Jacobi scaling: with D = diag(A) and S = D^-1/2, S A S has a unit diagonal and is still
// symmetric positive definite; S A S y = S b gives x = S y. When the diagonal is constant it
// would only divide everything by one number, so the matrix is then left as it is.
struct CgSystem {
    HostCsr matrix;               // float, the matrix that the solvers run on
    std::vector<float> b;         // the right-hand side that the solvers get (rounded to float)
    std::vector<double> b_exact;  // matrix * y_true in double, before that rounding
    std::vector<double> y_true;   // the exact solution of matrix * y = b_exact
    std::vector<double> x_of_y;   // x = x_of_y * y, entry by entry (S's diagonal, or ones)
    bool scaled = false;
};

// x_true = 1 + a random ripple in [-0.5, 0.5]. A constant x_true would be a poor test: on the
// Poisson grid A * 1 vanishes away from the boundary, so ||b|| is tiny beside ||A|| ||x||, and
// float arithmetic cannot resolve a relative residual of 1e-6 there.
inline std::vector<double> known_solution(int n) {
    SplitMix64 rng(kSolutionSeed);
    std::vector<double> x(n);
    for (double& v : x) v = 1.0 + (rng.uniform() - 0.5);
    return x;
}

inline CgSystem make_cg_system(const HostCsr& a, bool scale) {
    CgSystem s;
    s.scaled = scale;
    s.matrix = a;
    const int n = a.num_rows;
    s.x_of_y.assign(n, 1.0);
    if (scale) {
        const std::vector<double> d = diagonal_of(a);
        for (int i = 0; i < n; ++i) s.x_of_y[i] = 1.0 / std::sqrt(d[i]);
        // s_r * s_c is the same product for (r, c) and (c, r): the scaled matrix stays exactly
        // symmetric.
        for (int r = 0; r < n; ++r)
            for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
                s.matrix.values[k] = static_cast<float>(static_cast<double>(a.values[k]) *
                                                        s.x_of_y[r] * s.x_of_y[a.col_idx[k]]);
    }
    const std::vector<double> x_true = known_solution(n);
    s.y_true.resize(n);
    for (int i = 0; i < n; ++i) s.y_true[i] = x_true[i] / s.x_of_y[i];
    s.b_exact = multiply_in_double(s.matrix, s.y_true);
    s.b.assign(s.b_exact.begin(), s.b_exact.end());
    return s;
}

inline std::vector<double> x_from_y(const CgSystem& s, const std::vector<double>& y) {
    std::vector<double> x(y.size());
    for (size_t i = 0; i < y.size(); ++i) x[i] = s.x_of_y[i] * y[i];
    return x;
}

inline int cg_iteration_cap(const CgSystem& s) {
    return kIterationsPerUnknown * s.matrix.num_rows;
}

inline double rhs_norm(const CgSystem& s) {
    double sum = 0;
    for (float v : s.b) sum += static_cast<double>(v) * v;
    return std::sqrt(sum);
}

// The matrix's largest |a_ij| and b's largest |b_i|, which tell why float overflowed.
[[noreturn]] inline void refuse_float_overflow_in_cg(const std::string& source, const CgSystem& s,
                                                     int iteration) {
    double largest_entry = 0, largest_b = 0;
    for (float v : s.matrix.values) largest_entry = std::max(largest_entry, std::fabs(double(v)));
    for (float v : s.b) largest_b = std::max(largest_b, std::fabs(double(v)));
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s: the input's values overflow float: at iteration %d the float CG's A p or "
                  "its dot products passed the largest float (%.4g), with entries of A up to "
                  "%.3g and of b up to %.3g; scale the matrix down",
                  source.c_str(), iteration, static_cast<double>(std::numeric_limits<float>::max()),
                  largest_entry, largest_b);
    fail_bad_input(text);
}

// The matrix that CG solves: a file, or the Poisson matrix on its grid.
struct CgInput {
    HostCoo coo;
    std::string source;  // for refusals: the file, or "the Poisson matrix"
    int nx = 0, ny = 0;  // the Poisson matrix's grid; 0 for a file
    bool poisson() const { return nx > 0; }
};

// A file that is not symmetric with a positive diagonal is refused (exit 2) with the reason.
inline CgInput cg_input(const ProgramOptions& options) {
    CgInput in;
    if (!options.matrix.empty()) {
        in.coo = spmv_input(options);
        in.source = options.matrix;
        const std::string refusal = spd_refusal(in.coo);
        if (!refusal.empty())
            fail_bad_input(options.matrix + ": " + refusal +
                           "; conjugate gradient needs a symmetric positive definite matrix");
        return in;
    }
    in.source = "the Poisson matrix";
    in.nx = in.ny = kDefaultGridSide;
    if (options.scale > 0) {
        poisson_grid_for_scale(options.scale, in.nx, in.ny);
        const uint64_t unknowns = uint64_t{1} << options.scale;
        require_memory(options, "--scale " + std::to_string(options.scale), unknowns,
                       unknowns, 5 * unknowns);
    }
    const size_t unknowns = static_cast<size_t>(in.nx) * in.ny;
    const size_t nonzeros = 5 * unknowns - 2 * in.nx - 2 * in.ny;
    std::printf(
        "input: the 2-D Poisson matrix (the 5-point Laplacian) of a %s x %s grid,\n  %s, %s\n",
        with_separators(in.nx).c_str(), with_separators(in.ny).c_str(),
        counted(unknowns, "unknown").c_str(), counted(nonzeros, "nonzero").c_str());
    if (nonzeros >= kAnnouncedSize) announce("building the Poisson matrix");
    in.coo = poisson_5_point(in.nx, in.ny);
    return in;
}

// ---------------------------------------------------------------------------- the reference

// What 147's CPU baseline, CG in double on the same float matrix and float b, returns. Its alphas
// and betas are the Lanczos coefficients of A.
struct ReferenceSolve {
    std::vector<double> y;
    int iterations = 0;
    bool converged = false;
    bool breakdown = false;  // p . A p <= 0: the matrix is not positive definite
    double breakdown_value = 0;
    std::vector<double> alphas, betas;
};

// CG's coefficients build the Lanczos tridiagonal T: diagonal 1/alpha_0, then 1/alpha_j +
// beta_(j-1)/alpha_(j-1); off-diagonal sqrt(beta_j)/alpha_j. T's extreme eigenvalues (Ritz
// values) approach A's from inside, and have converged by the time CG has, so their ratio
// estimates kappa(A), from below if anything. They are found by bisection on Sturm counts.
struct ConditionEstimate {
    double lambda_min = 0, lambda_max = 0;
    double kappa() const { return lambda_max / lambda_min; }
};

inline ConditionEstimate ritz_condition_estimate(const std::vector<double>& alphas,
                                                 const std::vector<double>& betas) {
    const size_t m = alphas.size();
    ConditionEstimate e;
    if (m == 0) return e;
    std::vector<double> diag(m), off(m, 0.0);
    for (size_t j = 0; j < m; ++j) {
        diag[j] = 1.0 / alphas[j] + (j > 0 ? betas[j - 1] / alphas[j - 1] : 0.0);
        if (j + 1 < m) off[j] = std::sqrt(betas[j]) / alphas[j];
    }
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t j = 0; j < m; ++j) {
        const double radius = std::fabs(off[j]) + (j > 0 ? std::fabs(off[j - 1]) : 0.0);
        lo = std::min(lo, diag[j] - radius);
        hi = std::max(hi, diag[j] + radius);
    }
    // How many eigenvalues of T lie below t: the negative pivots of T - t I.
    auto count_below = [&](double t) {
        size_t count = 0;
        double pivot = 1;
        for (size_t j = 0; j < m; ++j) {
            const double coupling = j > 0 ? off[j - 1] * off[j - 1] / pivot : 0.0;
            pivot = diag[j] - t - coupling;
            if (pivot == 0) pivot = -1e-300;
            count += pivot < 0;
        }
        return count;
    };
    // The point where the count passes `k`: the (k+1)-th smallest eigenvalue.
    auto eigenvalue = [&](size_t k) {
        double a = lo, b = hi;
        for (int step = 0; step < 200 && b - a > 1e-15 * std::max(std::fabs(a), std::fabs(b));
             ++step) {
            const double mid = 0.5 * (a + b);
            (count_below(mid) > k ? b : a) = mid;
        }
        return 0.5 * (a + b);
    };
    e.lambda_min = eigenvalue(0);
    e.lambda_max = eigenvalue(m - 1);
    return e;
}

// The CPU baseline's solve and the condition number from its coefficients, unless the system is
// too large; where the system is scaled, also the unscaled matrix's, to show what scaling gains.
struct Reference {
    bool available = false;
    ReferenceSolve solve;
    ConditionEstimate condition;
    bool unscaled_available = false;
    ConditionEstimate unscaled_condition;
    int unscaled_iterations = 0;
};

// ---------------------------------------------------------------------------- the judgement

// b - A y recomputed in double from scratch, and the bound within which a float evaluation of
// it (the solver's own check: a float SpMV, then b minus it) must lie: spmv_reference's per-row
// float32 bound for b + A * (-y), whose norm bounds the difference of the two norms.
struct ResidualFromScratch {
    double relative;     // ||b - A y|| / ||b||, in double
    double float_bound;  // ||per-row float32 bound|| / ||b||
};

inline ResidualFromScratch residual_from_scratch(const CgSystem& s, const std::vector<float>& y) {
    HostCoo a;
    a.num_rows = s.matrix.num_rows;
    a.num_cols = s.matrix.num_cols;
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = s.matrix.row_offsets[r]; k < s.matrix.row_offsets[r + 1]; ++k) {
            a.rows.push_back(r);
            a.cols.push_back(s.matrix.col_idx[k]);
            a.values.push_back(s.matrix.values[k]);
        }
    std::vector<float> minus_y(y.size());
    for (size_t i = 0; i < y.size(); ++i) minus_y[i] = -y[i];
    const SpmvReference ref = spmv_reference(a, minus_y, s.b);
    const double b_norm = rhs_norm(s);
    return {norm2(ref.y) / b_norm, norm2(ref.tolerance) / b_norm};
}

// How good the float solution is, in the unknowns y that CG solved for (x = S y, or y = x).
struct Accuracy {
    ResidualFromScratch scratch;
    double recurrence = 0;          // the recurrence's last residual
    double error = 0;               // ||x - x_true|| / ||x_true||
    double reference_residual = 0;  // the double solve's, ||b - A y_cpu|| / ||b||
    double distance = 0, bound = 0, reference_error = 0;
    double poisson_kappa = 0, exact_residual = 0, error_y = 0;  // the Poisson matrix only
};

// ||y - y*|| <= ||A^-1|| ||b - A y|| <= kappa ||y*|| ||b - A y|| / ||b|| holds for both solves,
// so they can differ by at most kappa times the sum of their relative residuals. The Poisson
// matrix's kappa is exact, and b before its rounding to float has no rounding in it, so the
// same bound holds against the true solution itself.
// `solution` is the float CG's y, `recurrence` the last residual that its recurrence gave.
inline Accuracy measure_accuracy(const CgInput& in, const CgSystem& s, const Reference& ref,
                                 const std::vector<float>& solution, double recurrence) {
    Accuracy acc;
    const std::vector<double> y(solution.begin(), solution.end());
    const std::vector<double> x_true = known_solution(s.matrix.num_rows);
    acc.scratch = residual_from_scratch(s, solution);
    acc.recurrence = recurrence;
    acc.error = relative_difference(x_from_y(s, y), x_true);
    if (ref.available) {
        acc.reference_residual =
            relative_residual(s.matrix, std::vector<double>(s.b.begin(), s.b.end()), ref.solve.y);
        acc.distance = relative_difference(y, ref.solve.y);
        acc.bound = ref.condition.kappa() * (acc.scratch.relative + acc.reference_residual);
        acc.reference_error = relative_difference(x_from_y(s, ref.solve.y), x_true);
    }
    if (in.poisson()) {
        acc.poisson_kappa = poisson_condition_number(in.nx, in.ny);
        acc.exact_residual = relative_residual(s.matrix, s.b_exact, y);
        acc.error_y = relative_difference(y, s.y_true);
    }
    return acc;
}
