// What 147 prints, checks and times around its lesson (147_conjugate_gradient_kernel.cu): the
// system and the CPU baseline's solve, the residual history, the solution's accuracy beside its
// bounds, the claims about it, and at --scale the solve timed with its SpMV share.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include "../../common/cusparse_support.cuh"
#include "../../common/self_check.h"
#include "../../common/timing_table.cuh"
#include "../cg_reference.h"

inline ProgramDescription conjugate_gradient_program() {
    return ProgramDescription("147 (14.1) kernel: conjugate gradient on the chapter's CSR SpMV",
                              {"make 147_conjugate_gradient_kernel && "
                               "build/147_conjugate_gradient_kernel",
                               "build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx",
                               "build/147_conjugate_gradient_kernel --scale 20"})
        .with_book_input("the 2-D Poisson matrix of a 16 x 16 grid (256 unknowns)")
        .with_scale_input("a 2-D Poisson matrix of 2^S unknowns", "stencil2d")
        .with_memory({92, 16, 900e6});
}

// The CPU baseline, conjugate_gradient_cpu, and the condition number from its coefficients,
// unless the system is too large; where the system is scaled, the unscaled matrix's too. A matrix
// that is not positive definite shows here first, and is refused (exit 2).
inline Reference solve_reference(const CgInput& in, const HostCsr& a, const CgSystem& s) {
    Reference ref;
    if (a.num_rows > kMaxReferenceRows) return ref;
    if (a.num_rows >= kAnnouncedUnknowns) announce("solving in double on the CPU, the reference");
    ref.available = true;
    ref.solve = conjugate_gradient_cpu(s.matrix, s.b, kReferenceTolerance, cg_iteration_cap(s));
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

// A float solve that overflowed, or met p . A p <= 0, ends the program (exit 2) with the reason.
inline void refuse_unless_solvable(const CgInput& in, const CgSystem& s, const CgOutcome& out) {
    if (out.overflow) refuse_float_overflow_in_cg(in.source, s, out.iterations);
    if (out.breakdown) refuse_not_positive_definite(in.source, out.breakdown_value, out.iterations);
}

inline void show_system(const HostCsr& a, const CgSystem& s) {
    const std::vector<double> d = diagonal_of(a);
    if (s.scaled)
        std::printf(
            "the diagonal ranges from %.4g to %.4g: CG solves the Jacobi-scaled system\n"
            "  S A S y = S b with S = diag(A)^(-1/2) (unit diagonal), and x = S y\n",
            *std::min_element(d.begin(), d.end()), *std::max_element(d.begin(), d.end()));
    else
        std::printf("the diagonal is constant (%g): CG solves A x = b as it is\n", d.front());
    std::printf(
        "b = A x_true, with x_true = 1 + a random ripple in [-0.5, 0.5] (seed %d), "
        "rounded to float\n",
        static_cast<int>(kSolutionSeed));
    std::printf(
        "float vectors, double dot products; stop at ||b - A x|| / ||b|| <= %.0e or after\n"
        "  %s (10 n)\n\n",
        kCgTolerance, counted(cg_iteration_cap(s), "iteration").c_str());
}

inline void show_reference(const CgInput& in, const HostCsr& a, const Reference& ref) {
    if (!ref.available) {
        std::printf("CPU reference: skipped (%s; a double CG on the host would take minutes)\n\n",
                    counted(a.num_rows, "unknown").c_str());
        return;
    }
    std::printf("CPU reference: CG in double, %s to %.0e%s\n",
                counted(ref.solve.iterations, "iteration").c_str(), kReferenceTolerance,
                ref.solve.converged ? "" : " (NOT reached)");
    std::printf(
        "  Ritz values, the extreme eigenvalues of the tridiagonal matrix that CG's "
        "coefficients build:\n    lambda_min ~ %.6g, lambda_max ~ %.6g, so the condition "
        "number kappa ~ %.6g\n",
        ref.condition.lambda_min, ref.condition.lambda_max, ref.condition.kappa());
    if (in.poisson())
        std::printf("  the Poisson formula gives kappa = %.6g\n",
                    poisson_condition_number(in.nx, in.ny));
    if (ref.unscaled_available) {
        char text[300];
        std::snprintf(text, sizeof text,
                      "  A unscaled: kappa ~ %.4g and %s in double (scaled: %.4g and %s): "
                      "the scaling shrinks the error bound kappa * residual by the same factor "
                      "as kappa",
                      ref.unscaled_condition.kappa(),
                      counted(ref.unscaled_iterations, "iteration").c_str(), ref.condition.kappa(),
                      with_separators(ref.solve.iterations).c_str());
        print_wrapped(text, 4);
    }
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
        "relative residual ||r|| / ||b|| by the recurrence, every %dth iteration and the "
        "last:\n",
        stride);
    for (int it = 0; it <= last; ++it)
        if (it % stride == 0 || it == last)
            std::printf("  iteration %6d  %.3e\n", it, out.history[it]);
    std::printf(
        "convergence checks (b - A x recomputed with the same SpMV once the recurrence "
        "is below %.0e):\n",
        kCgTolerance);
    if (out.checks.empty()) std::printf("  none\n");
    for (const CgCheck& c : out.checks) {
        char text[200];
        std::snprintf(
            text, sizeof text, "  iteration %6d  recurrence %.3e, recomputed %.3e: %s", c.iteration,
            c.recurrence, c.recomputed,
            c.recomputed <= kCgTolerance ? "converged" : "it had drifted; CG restarts from it");
        print_wrapped(text, 4);
    }
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
        "    evaluation of b - A x (worst case over rounding)\n",
        acc.recurrence, acc.scratch.relative, std::fabs(acc.recurrence - acc.scratch.relative),
        acc.scratch.float_bound);
    std::printf("  error against x_true, ||x - x_true|| / ||x_true||: %.3e\n", acc.error);
    if (acc.poisson_kappa > 0)
        std::printf(
            "    bound: the Poisson formula's kappa * the residual against b before its "
            "rounding to float\n    = %.4g * %.3e = %.3e\n",
            acc.poisson_kappa, acc.exact_residual, acc.poisson_kappa * acc.exact_residual);
    if (ref.available) {
        if (s.scaled)
            std::printf(
                "  distance from y_cpu, the double CPU solution of the scaled system (x = S y):\n"
                "    ||y - y_cpu|| / ||y_cpu|| = %.3e\n",
                acc.distance);
        else
            std::printf(
                "  distance from x_cpu, the double CPU solution:\n"
                "    ||x - x_cpu|| / ||x_cpu|| = %.3e\n",
                acc.distance);
        std::printf(
            "    bound: kappa * (the two relative residuals) = %.4g * (%.2e + %.2e) = %.3e\n"
            "  the double CPU solution's own error against x_true: %.3e\n",
            ref.condition.kappa(), acc.scratch.relative, acc.reference_residual, acc.bound,
            acc.reference_error);
    }
    std::printf("\n");
}

// At --scale on a GPU: the whole solve once more (the solve above loaded the kernels), each of
// its SpMVs timed inside it, and then one SpMV alone, by 143's kernel and by cuSPARSE's CSR SpMV
// (cusparseSpMV, its default algorithm) on the same arrays, the fair bar for the solve's SpMV:
// the same format and float arithmetic, NVIDIA's tuned kernel.
inline void time_solve(const KernelProgram& p, const CgSystem& s) {
    if (!p.on_gpu() || p.options.scale == 0) return;
    // One SpMV moves at least col_idx and values (8 per nonzero), row_offsets (4 per row + 4),
    // p once, and q read and written (12 per row). The rest of an iteration moves 48 per row:
    // p . q reads 8, the step reads 16 and writes 8, r . r reads 4, the direction reads 8 and
    // writes 4.
    const double n = s.matrix.num_rows;
    const double spmv_bytes = 8.0 * s.matrix.nnz() + 4.0 * (n + 1) + 12.0 * n;
    TimingTable table(p, "147", -1,
                      "bytes: one SpMV's CSR arrays, p once and q read and written once; the "
                      "solve's SpMVs, and 48 per row per iteration for its vector kernels");
    CgState state(p.here, s.matrix, s.b, true);
    CgOutcome out;
    const double solve_ms = host_ms([&] {
        out = run_conjugate_gradient(state, rhs_norm(s), kCgTolerance, cg_iteration_cap(s));
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
}

inline void check_solution(const CgInput& in, const Reference& ref, const CgOutcome& out,
                           const Accuracy& acc, SelfCheck& check) {
    // The solver judged convergence by its own float evaluation of b - A x; the double one may
    // differ from it by up to that evaluation's float32 bound (the next claim checks that).
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
    // Both sides are computed in double from the same float y, each with a relative rounding
    // error of a few units of 2^-53 per term; where the bound is attained (a 1 x 1 system, a
    // diagonal one after scaling) only those last bits tell them apart.
    const double relative_rounding = 1e-9, absolute_rounding = 1e-15;
    if (ref.available)
        check.claim(reference_claim,
                    acc.distance <= acc.bound * (1 + relative_rounding) + absolute_rounding);
    else
        check.skip(reference_claim, "no CPU reference at this size");
    if (!in.poisson()) return;
    if (ref.available)
        check.claim("the Ritz estimate of kappa is within 1% of the Poisson formula's",
                    std::fabs(ref.condition.kappa() / acc.poisson_kappa - 1) <= 0.01);
    check.claim("the error against x_true is within the Poisson formula's kappa times the residual",
                acc.error_y <= acc.poisson_kappa * acc.exact_residual);
}
