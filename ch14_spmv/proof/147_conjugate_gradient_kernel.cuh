// What 147 prints, checks and times: kappa, the residuals, the accuracy and its bounds, the solve.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>
#include "../../common/cusparse_support.cuh"
#include "../../common/self_check.h"
#include "../../common/stencils.h"
#include "../../common/timing_table.cuh"
#include "../chapter_inputs.h"

inline ProgramDescription conjugate_gradient_program() {
    return ProgramDescription("147 (14.1) kernel: conjugate gradient on the chapter's CSR SpMV",
                              {"make 147_conjugate_gradient_kernel && "
                               "build/147_conjugate_gradient_kernel",
                               "build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx",
                               "build/147_conjugate_gradient_kernel --scale 20"})
        .with_book_input("the 2-D Poisson matrix of a 16 x 16 grid (256 unknowns)")
        .with_scale_input("the 2-D Poisson matrix of --stencil 2d, about 2^S unknowns", "stencil2d")
        .with_memory({92, 16, 900e6});
}

constexpr double kReferenceTolerance = 1e-10;
constexpr int kMaxReferenceRows = 1 << 21;   // beyond this the double CPU solve takes minutes
constexpr int kAnnouncedUnknowns = 1 << 16;  // from here on a host solve takes a second or more

// The 5-point Laplacian of an nx x ny grid (common/stencils.h builds the square ones) has the
// eigenvalues 4 - 2 cos(i pi / (nx + 1)) - 2 cos(j pi / (ny + 1)): the extremes give kappa.
inline double poisson_condition_number(int nx, int ny) {
    const double pi = std::acos(-1.0), cx = std::cos(pi / (nx + 1)), cy = std::cos(pi / (ny + 1));
    return (4 + 2 * cx + 2 * cy) / (4 - 2 * cx - 2 * cy);
}

// printf's text as a string, for the refusals.
template <class... Args>
std::string formatted(const char* format, Args... args) {
    char text[320];
    std::snprintf(text, sizeof text, format, args...);
    return text;
}

// Why a file cannot go to CG, or "" (definiteness shows only in the solve); duplicates summed.
inline std::string spd_refusal(const HostCoo& a) {
    if (a.num_rows != a.num_cols)
        return "not square (" + std::to_string(a.num_rows) + " x " + std::to_string(a.num_cols) +
               ")";
    if (a.num_rows == 0) return "empty (0 x 0): there is nothing to solve";
    std::map<std::pair<int, int>, double> merged;
    for (const auto& [r, c, v] : sorted_entries(a))  // the first as is: -0 stays -0
        if (const auto [at, first] = merged.emplace(std::pair(r, c), v); !first) at->second += v;
    auto value_at = [&](int r, int c) {
        const auto it = merged.find({r, c});
        return it == merged.end() ? 0.0 : it->second;
    };
    for (int r = 0; r < a.num_rows; ++r)
        if (!(value_at(r, r) > 0))
            return formatted("diagonal not positive: a(%d,%d) = %g", r + 1, r + 1, value_at(r, r));
    for (const auto& [place, v] : merged)
        if (const auto [r, c] = place; value_at(c, r) != v)
            return formatted("not symmetric: a(%d,%d) = %.9g but a(%d,%d) = %.9g", r + 1, c + 1, v,
                             c + 1, r + 1, value_at(c, r));
    return "";
}

// The matrix that CG solves: a file, or the Poisson matrix of a side x side grid.
struct CgInput {
    HostCoo coo;
    std::string source;  // for refusals: the file, or "the Poisson matrix"
    int side = 0;        // the Poisson matrix's grid; 0 for a file
    bool poisson() const { return side > 0; }
};

// A file is refused (exit 2) with spd_refusal's reason; --scale S gives --stencil 2d's grid.
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
    const StencilShape shape = options.scale > 0 ? stencil_shape(StencilKind::two_d, options.scale)
                                                 : StencilShape{StencilKind::two_d, 16};
    in.side = shape.side;
    const uint64_t unknowns = static_cast<uint64_t>(shape.rows());
    if (options.scale > 0)
        require_memory(options, "--scale " + std::to_string(options.scale), unknowns, unknowns,
                       5 * unknowns);
    std::printf(
        "input: the 2-D Poisson matrix (the 5-point Laplacian) of a %s x %s grid,\n  %s, %s\n",
        with_separators(in.side).c_str(), with_separators(in.side).c_str(),
        counted(unknowns, "unknown").c_str(), counted(shape.nnz(), "nonzero").c_str());
    if (static_cast<size_t>(shape.nnz()) >= kAnnouncedSize) announce("building the Poisson matrix");
    in.coo = make_stencil(shape);
    return in;
}

[[noreturn]] inline void refuse_not_positive_definite(const std::string& source, double value,
                                                      int iteration) {
    fail_bad_input(
        formatted("%s: not positive definite: CG met p . A p = %.6g <= 0 at iteration "
                  "%d; conjugate gradient needs a symmetric positive definite matrix",
                  source.c_str(), value, iteration));
}

// Overflow or p . A p <= 0 ends the program (exit 2); for overflow the largest |a_ij|, |b_i|.
inline void refuse_unless_solvable(const CgInput& in, const CgSystem& s, const CgOutcome& out) {
    if (out.breakdown) refuse_not_positive_definite(in.source, out.breakdown_value, out.iterations);
    if (!out.overflow) return;
    double largest_entry = 0, largest_b = 0;
    for (float v : s.matrix.values) largest_entry = std::max(largest_entry, std::fabs(double(v)));
    for (float v : s.b) largest_b = std::max(largest_b, std::fabs(double(v)));
    fail_bad_input(formatted(
        "%s: the input's values overflow float: at iteration %d the float CG's A p or its dot "
        "products passed the largest float (%.4g), with entries of A up to %.3g and of b up to "
        "%.3g; scale the matrix down",
        in.source.c_str(), out.iterations, static_cast<double>(std::numeric_limits<float>::max()),
        largest_entry, largest_b));
}

// CG's coefficients build the Lanczos tridiagonal T, whose extreme eigenvalues (Ritz values,
// by bisection on Sturm counts) approach A's from inside: their ratio estimates kappa(A).
struct ConditionEstimate {
    double lambda_min = 0, lambda_max = 0;
    double kappa() const { return lambda_max / lambda_min; }
};

inline ConditionEstimate ritz_condition_estimate(const std::vector<double>& alphas,
                                                 const std::vector<double>& betas) {
    const size_t m = alphas.size();
    if (m == 0) return {};
    std::vector<double> diag(m), off(m, 0.0);
    double lo = HUGE_VAL, hi = -HUGE_VAL;  // the span of Gershgorin's discs, which hold them all
    for (size_t j = 0; j < m; ++j) {
        diag[j] = 1.0 / alphas[j] + (j > 0 ? betas[j - 1] / alphas[j - 1] : 0.0);
        if (j + 1 < m) off[j] = std::sqrt(betas[j]) / alphas[j];
        const double radius = std::fabs(off[j]) + (j > 0 ? std::fabs(off[j - 1]) : 0.0);
        lo = std::min(lo, diag[j] - radius);
        hi = std::max(hi, diag[j] + radius);
    }
    // How many eigenvalues of T lie below t: the negative pivots of T - t I.
    auto count_below = [&](double t) {
        size_t count = 0;
        double pivot = 1;
        for (size_t j = 0; j < m; ++j) {
            pivot = diag[j] - t - (j > 0 ? off[j - 1] * off[j - 1] / pivot : 0.0);
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
    return {eigenvalue(0), eigenvalue(m - 1)};
}

// The double solve and its kappa (and the unscaled matrix's, to show what scaling gains).
struct Reference {
    bool available = false;
    ReferenceSolve solve;
    ConditionEstimate condition;
    bool unscaled_available = false;
    ConditionEstimate unscaled_condition;
    int unscaled_iterations = 0;
};

inline Reference reference_of(const CgInput& in, const HostCsr& a, const CgSystem& s,
                              ReferenceSolve solve) {
    Reference ref;
    ref.available = true;
    ref.solve = std::move(solve);
    if (ref.solve.breakdown)
        refuse_not_positive_definite(in.source, ref.solve.breakdown_value, ref.solve.iterations);
    ref.condition = ritz_condition_estimate(ref.solve.alphas, ref.solve.betas);
    if (!s.scaled) return ref;
    const CgSystem unscaled = make_cg_system(a, false);
    const ReferenceSolve raw = conjugate_gradient_cpu(unscaled.matrix, unscaled.b,
                                                      kReferenceTolerance, cg_iteration_cap(s));
    ref.unscaled_available = !raw.breakdown;
    ref.unscaled_condition = ritz_condition_estimate(raw.alphas, raw.betas);
    ref.unscaled_iterations = raw.iterations;
    return ref;
}

inline double norm2(const std::vector<double>& v) {
    return std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
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

// ||rhs - A y|| / ||rhs||, all in double.
inline double relative_residual(const HostCsr& a, const std::vector<double>& rhs,
                                const std::vector<double>& y) {
    return relative_difference(multiply_in_double(a, y), rhs);
}

// b - A y in double, and the float32 bound within which the solver's float check must lie.
struct ResidualFromScratch {
    double relative;     // ||b - A y|| / ||b||, in double
    double float_bound;  // ||per-row float32 bound|| / ||b||
};

inline ResidualFromScratch residual_from_scratch(const CgSystem& s, const std::vector<float>& y) {
    const HostCsr& m = s.matrix;
    HostCoo a = coo_of(m.num_rows, m.num_cols, {}, m.col_idx, m.values);
    for (int r = 0; r < m.num_rows; ++r)
        a.rows.insert(a.rows.end(), m.row_offsets[r + 1] - m.row_offsets[r], r);
    std::vector<float> minus_y(y.size());
    for (size_t i = 0; i < y.size(); ++i) minus_y[i] = -y[i];
    const SpmvReference ref = spmv_reference(a, minus_y, s.b);
    return {norm2(ref.y) / rhs_norm(s), norm2(ref.tolerance) / rhs_norm(s)};
}

// How good the float solution is, in the unknowns y that CG solved for (x = S y, or y = x).
struct Accuracy {
    ResidualFromScratch scratch;
    double recurrence = 0;          // the recurrence's last residual
    double error = 0;               // ||x - x_true|| / ||x_true||
    double reference_residual = 0;  // the double solve's, ||b - A y_cpu|| / ||b||
    double distance = 0, bound = 0;
    double poisson_kappa = 0, exact_residual = 0, error_y = 0;  // the Poisson matrix only
};

// ||y - y*|| <= kappa ||y*|| ||b - A y|| / ||b|| for both solves bounds their distance; with
// the Poisson matrix's exact kappa and b before rounding, it bounds the true error too.
inline Accuracy measure_accuracy(const CgInput& in, const CgSystem& s, const Reference& ref,
                                 const std::vector<float>& solution, double recurrence) {
    Accuracy acc;
    const std::vector<double> y(solution.begin(), solution.end());
    std::vector<double> x = y;
    for (size_t i = 0; i < x.size(); ++i) x[i] *= s.x_of_y[i];
    acc.scratch = residual_from_scratch(s, solution);
    acc.recurrence = recurrence;
    acc.error = relative_difference(x, known_solution(s.matrix.num_rows));
    if (ref.available) {
        acc.reference_residual =
            relative_residual(s.matrix, std::vector<double>(s.b.begin(), s.b.end()), ref.solve.y);
        acc.distance = relative_difference(y, ref.solve.y);
        acc.bound = ref.condition.kappa() * (acc.scratch.relative + acc.reference_residual);
    }
    if (in.poisson()) {
        acc.poisson_kappa = poisson_condition_number(in.side, in.side);
        acc.exact_residual = relative_residual(s.matrix, s.b_exact, y);
        acc.error_y = relative_difference(y, s.y_true);
    }
    return acc;
}

inline void show_system(const HostCsr& a, const CgSystem& s) {
    const std::vector<double> d = diagonal_of(a);
    const auto [low, high] = std::minmax_element(d.begin(), d.end());
    if (s.scaled)
        std::printf(
            "the diagonal ranges from %.4g to %.4g: CG solves the Jacobi-scaled system\n"
            "  S A S y = S b with S = diag(A)^(-1/2) (unit diagonal), and x = S y\n",
            *low, *high);
    else
        std::printf("the diagonal is constant (%g): CG solves A x = b as it is\n", *low);
    std::printf(
        "b = A x_true, with x_true = 1 + a random ripple in [-0.5, 0.5] (seed %d), rounded to "
        "float\nfloat vectors, double dot products; stop at ||b - A x|| / ||b|| <= %.0e or "
        "after\n  %s (10 n)\n\n",
        static_cast<int>(kSolutionSeed), kCgTolerance,
        counted(cg_iteration_cap(s), "iteration").c_str());
}

inline void show_reference(const CgInput& in, const HostCsr& a, const Reference& ref) {
    if (!ref.available) {
        std::printf("CPU reference: skipped (%s; a double CG on the host would take minutes)\n\n",
                    counted(a.num_rows, "unknown").c_str());
        return;
    }
    std::printf(
        "CPU reference: CG in double, %s to %.0e%s\n  Ritz values, the extreme eigenvalues of "
        "the tridiagonal matrix that CG's coefficients build:\n    lambda_min ~ %.6g, "
        "lambda_max ~ %.6g, so the condition number kappa ~ %.6g\n",
        counted(ref.solve.iterations, "iteration").c_str(), kReferenceTolerance,
        ref.solve.converged ? "" : " (NOT reached)", ref.condition.lambda_min,
        ref.condition.lambda_max, ref.condition.kappa());
    if (in.poisson())
        std::printf("  the Poisson formula gives kappa = %.6g\n",
                    poisson_condition_number(in.side, in.side));
    if (ref.unscaled_available)
        print_wrapped("  A unscaled: kappa ~ " + fixed_text(ref.unscaled_condition.kappa(), 0) +
                          " and " + counted(ref.unscaled_iterations, "iteration") +
                          " in double (scaled: " + fixed_text(ref.condition.kappa(), 0) + " and " +
                          with_separators(ref.solve.iterations) +
                          "): the scaling shrinks the error bound kappa * residual by the same "
                          "factor as kappa",
                      4);
    std::printf("\n");
}

// Every 5th iteration and the last; a long history at a rounder step, about 20 lines.
inline int history_stride(int iterations) {
    int stride = 5;
    while (iterations > 20 * stride)
        stride = std::to_string(stride)[0] == '2' ? stride / 2 * 5 : stride * 2;
    return stride;
}

inline void show_history(const CgOutcome& out) {
    const int last = out.iterations, stride = history_stride(last);
    std::printf(
        "relative residual ||r|| / ||b|| by the recurrence, every %dth iteration and the last:\n",
        stride);
    for (int it = 0; it <= last; ++it)
        if (it % stride == 0 || it == last)
            std::printf("  iteration %6d  %.3e\n", it, out.history[it]);
    std::printf(
        "convergence checks (b - A x recomputed with the same SpMV once the recurrence "
        "is below %.0e):\n",
        kCgTolerance);
    if (out.checks.empty()) std::printf("  none\n");
    for (const CgCheck& c : out.checks)
        std::printf("  iteration %6d  recurrence %.3e, recomputed %.3e: %s\n", c.iteration,
                    c.recurrence, c.recomputed,
                    c.recomputed <= kCgTolerance ? "converged" : "drifted; CG restarts from it");
    std::printf("\n");
}

inline void show_solution(const Here& here, const CgSystem& s, const CgOutcome& out,
                          const Accuracy& acc, const Reference& ref) {
    std::printf("%s CG: %s (cap %s), %s; %s, final residual %.3e\n", here.name(),
                counted(out.iterations, "iteration").c_str(),
                with_separators(out.max_iterations).c_str(),
                counted(out.spmv_calls, "SpMV call").c_str(),
                out.converged ? "converged" : "NOT converged", out.final_residual);
    std::printf(
        "  residual ||b - A x|| / ||b||: %.3e by the recurrence, %.3e recomputed in double\n"
        "    from scratch; they differ by %.1e, within %.1e, the float32 bound of one\n"
        "    evaluation of b - A x (worst case over rounding)\n"
        "  error against x_true, ||x - x_true|| / ||x_true||: %.3e\n",
        acc.recurrence, acc.scratch.relative, std::fabs(acc.recurrence - acc.scratch.relative),
        acc.scratch.float_bound, acc.error);
    if (acc.poisson_kappa > 0)
        std::printf(
            "    bound: the Poisson formula's kappa * the residual against b before its "
            "rounding to float\n    = %.4g * %.3e = %.3e\n",
            acc.poisson_kappa, acc.exact_residual, acc.poisson_kappa * acc.exact_residual);
    if (ref.available)
        std::printf(
            "  distance from %s, the double CPU solution%s:\n    ||%s|| = %.3e\n"
            "    bound: kappa * (the two relative residuals) = %.4g * (%.2e + %.2e) = "
            "%.3e\n",
            s.scaled ? "y_cpu" : "x_cpu", s.scaled ? " of the scaled system (x = S y)" : "",
            s.scaled ? "y - y_cpu|| / ||y_cpu" : "x - x_cpu|| / ||x_cpu", acc.distance,
            ref.condition.kappa(), acc.scratch.relative, acc.reference_residual, acc.bound);
    std::printf("\n");
}

// At --scale on a GPU: the whole solve again (now warm), then one SpMV by 143's kernel and by
// cuSPARSE's CSR SpMV on the same arrays, the fair bar: same format and arithmetic, tuned.
inline void compare_with_library(const KernelProgram& p, const CgSystem& s) {
    if (!p.on_gpu() || p.options.scale == 0) return;
#ifdef __CUDACC__
    // An SpMV: 8 per nonzero, 4 per row + 4, p once, q read and written (12 per row). The rest
    // of an iteration, 48 per row: p.q 8, the step 16 + 8, r.r 4, the direction 8 + 4.
    const double n = s.matrix.num_rows;
    const double spmv_bytes = 8.0 * s.matrix.nnz() + 4.0 * (n + 1) + 12.0 * n;
    TimingTable table(p, "147", -1,
                      "bytes: one SpMV's CSR arrays, p once and q read and written once; the "
                      "solve's SpMVs, and 48 per row per iteration for its vector kernels");
    CgState state(p.here, s.matrix, s.b, true);
    CgOutcome out;
    const double solve_ms = host_ms([&] {
        out = solve_for_x(state, s, kCgTolerance, cg_iteration_cap(s));
    });
    table.report("cg_solve", "the whole solve, one run",
                 out.spmv_calls * spmv_bytes + 48.0 * n * out.iterations, solve_ms);
    // Both add A * p into q again on every run: the same work each time.
    const double kernel_ms =
        table.time("csr_thread_per_row", "one SpMV, 143's kernel", spmv_bytes,
                   [&] { launch_spmv_csr(p.here, state.matrix, state.p.data(), state.q.data()); });
    CusparseSpmv library(s.matrix.num_rows, s.matrix.num_cols, s.matrix.nnz(),
                         state.matrix.row_offsets.data(), state.matrix.col_idx.data(),
                         state.matrix.values.data(), state.p.data(), state.q.data());
    const double library_ms =
        table.time("cusparse_csr", "one SpMV, cuSPARSE", spmv_bytes, [&] { library.run(); });
    table.ratio("cuSPARSE / 143's kernel", library_ms / kernel_ms, "cuSPARSE is faster");
    print_wrapped("measured, not a self-check: the solve's " + counted(out.spmv_calls, "SpMV") +
                  " took " + fixed_text(out.spmv_ms, 2) + " ms, " +
                  fixed_text(100 * out.spmv_ms / solve_ms, 1) + "% of its " +
                  fixed_text(solve_ms, 2) + " ms (" +
                  fixed_text(1e3 * solve_ms / std::max(out.iterations, 1), 1) +
                  " us per iteration); the rest, dot products, vector updates and one read-back "
                  "per iteration, took " +
                  fixed_text(100 * (solve_ms - out.spmv_ms) / solve_ms, 1) + "%.");
    std::printf("\n");
#endif
}

inline void check_solution(const CgInput& in, const Reference& ref, const CgOutcome& out,
                           const Accuracy& acc, SelfCheck& check) {
    // The solver judged by its float b - A x; the double one may differ by its float32 bound.
    check.claim(
        "converged: b - A x, recomputed by the solver's float SpMV, is below 1e-6 within "
        "the iteration cap, and the double recomputation is within its float32 bound",
        out.converged && acc.scratch.relative <= kCgTolerance + acc.scratch.float_bound);
    check.claim(
        "b - A x recomputed from scratch agrees with the recurrence's residual within the "
        "float32 bound of one evaluation",
        std::fabs(acc.recurrence - acc.scratch.relative) <= acc.scratch.float_bound);
    const std::string reference_claim =
        "the float solution is within kappa * (its residual + the reference's) of the double CPU "
        "solve";
    // Both sides are double roundings of the same y; where the bound is attained (1 x 1, or
    // diagonal after scaling) only their last bits differ.
    if (ref.available)
        check.claim(reference_claim, acc.distance <= acc.bound * (1 + 1e-9) + 1e-15);
    else
        check.skip(reference_claim, "no CPU reference at this size");
    if (!in.poisson()) return;
    if (ref.available)
        check.claim("the Ritz estimate of kappa is within 1% of the Poisson formula's",
                    std::fabs(ref.condition.kappa() / acc.poisson_kappa - 1) <= 0.01);
    check.claim("the error against x_true is within the Poisson formula's kappa times the residual",
                acc.error_y <= acc.poisson_kappa * acc.exact_residual);
}
