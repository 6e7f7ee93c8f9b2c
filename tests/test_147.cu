// Tests of 147: conjugate gradient on the chapter's CSR SpMV, emulated and on the GPU, on the
// Poisson matrix and the two SPD data files; the Poisson generator against a Kronecker-sum
// construction; the condition-number estimate against known spectra; the refusals; the program's
// own claims; and the history's printing step.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "../ch14_spmv/147_conjugate_gradient_kernel.cu"
#include "../ch14_spmv/proof/147_conjugate_gradient_kernel.cuh"
#include "data_files.h"

using Catch::Matchers::StartsWith;

namespace {

constexpr uint64_t kSeed147 = 147147;

// The 2-D Laplacian as a Kronecker sum, I (x) T_nx + T_ny (x) I with T = tridiag(-1, 2, -1),
// built densely entry by entry: a second construction that the generator must match.
HostCoo poisson_by_kronecker_sum(int nx, int ny) {
    auto t = [](int i, int j) { return i == j ? 2.0 : (i - j == 1 || j - i == 1) ? -1.0 : 0.0; };
    HostCoo a;
    a.num_rows = a.num_cols = nx * ny;
    for (int r = 0; r < nx * ny; ++r)
        for (int c = 0; c < nx * ny; ++c) {
            const int ri = r % nx, rj = r / nx, ci = c % nx, cj = c / nx;
            const double v = (rj == cj ? t(ri, ci) : 0.0) + (ri == ci ? t(rj, cj) : 0.0);
            if (v != 0) {
                a.rows.push_back(r);
                a.cols.push_back(c);
                a.values.push_back(static_cast<float>(v));
            }
        }
    return a;
}

HostCoo coo_of(int rows, int cols, const std::vector<Entry>& entries) {
    HostCoo a;
    a.num_rows = rows;
    a.num_cols = cols;
    for (const auto& [r, c, v] : entries) {
        a.rows.push_back(r);
        a.cols.push_back(c);
        a.values.push_back(v);
    }
    return a;
}

struct Prepared {
    CgSystem system;
    ReferenceSolve reference;
    ConditionEstimate condition;
};

Prepared prepare(const HostCoo& coo) {
    const HostCsr a = csr_from_coo_by_stable_sort(coo);
    Prepared p{make_cg_system(a, !has_constant_diagonal(a)), {}, {}};
    p.reference = conjugate_gradient_cpu(p.system.matrix, p.system.b, kReferenceTolerance,
                                         cg_iteration_cap(p.system));
    p.condition = ritz_condition_estimate(p.reference.alphas, p.reference.betas);
    return p;
}

// The program's claims, as test assertions.
void require_good_solution(const Prepared& p, const CgOutcome& out) {
    REQUIRE_FALSE(p.reference.breakdown);
    REQUIRE(p.reference.converged);
    REQUIRE_FALSE(out.breakdown);
    CAPTURE(out.iterations, out.final_residual, out.checks.size(), p.condition.kappa());
    REQUIRE(out.converged);
    REQUIRE(out.iterations <= out.max_iterations);
    const ResidualFromScratch scratch = residual_from_scratch(p.system, out.y);
    CHECK(scratch.relative <= kCgTolerance);
    CHECK(std::fabs(out.history.back() - scratch.relative) <= scratch.float_bound);
    const std::vector<double> y(out.y.begin(), out.y.end());
    const std::vector<double> b(p.system.b.begin(), p.system.b.end());
    const double reference_residual = relative_residual(p.system.matrix, b, p.reference.y);
    CHECK(reference_residual <= 2 * kReferenceTolerance);
    CHECK(relative_difference(y, p.reference.y) <=
          p.condition.kappa() * (scratch.relative + reference_residual));
    // Against the solution it was built from, the same bound with the exact right-hand side.
    CHECK(relative_difference(y, p.system.y_true) <=
          1.01 * p.condition.kappa() * relative_residual(p.system.matrix, p.system.b_exact, y));
}

}  // namespace

// 147's Poisson matrix: common/stencils.h's 5-point stencil on a side x side grid.
HostCoo poisson(int side) {
    return make_stencil({StencilKind::two_d, side});
}

TEST_CASE("147: the Poisson generator equals the Kronecker-sum construction", "[147]") {
    for (int side : {1, 2, 3, 5, 6}) {
        CAPTURE(side);
        const HostCoo a = poisson(side);
        CHECK(sorted_entries(a) == sorted_entries(poisson_by_kronecker_sum(side, side)));
        CHECK(a.nnz() == static_cast<size_t>(5 * side * side - 4 * side));
        CHECK(spd_refusal(a).empty());
    }
    for (int nx : {1, 2, 3, 5})
        for (int ny : {1, 2, 4, 6}) CHECK(spd_refusal(poisson_by_kronecker_sum(nx, ny)).empty());
    CHECK(stencil_shape(StencilKind::two_d, 20).side == 1024);
}

TEST_CASE("147: the Ritz estimate of kappa on known spectra", "[147]") {
    // A diagonal matrix with eigenvalues 1..200: kappa = 200.
    HostCoo diagonal;
    diagonal.num_rows = diagonal.num_cols = 200;
    for (int i = 0; i < 200; ++i) {
        diagonal.rows.push_back(i);
        diagonal.cols.push_back(i);
        diagonal.values.push_back(static_cast<float>(i + 1));
    }
    const HostCsr d = csr_from_coo_by_stable_sort(diagonal);
    const CgSystem s = make_cg_system(d, false);
    const ReferenceSolve solve =
        conjugate_gradient_cpu(d, s.b, kReferenceTolerance, cg_iteration_cap(s));
    REQUIRE(solve.converged);
    const ConditionEstimate e = ritz_condition_estimate(solve.alphas, solve.betas);
    CHECK(e.lambda_min == Approx(1.0).epsilon(0.01));
    CHECK(e.lambda_max == Approx(200.0).epsilon(0.01));

    CHECK(poisson_condition_number(1, 1) == Approx(1.0));
    for (int side : {4, 8, 16, 31}) {
        CAPTURE(side);
        const Prepared p = prepare(poisson_by_kronecker_sum(side, side + 3));
        CHECK(p.condition.kappa() ==
              Approx(poisson_condition_number(side, side + 3)).epsilon(0.01));
    }
}

TEST_CASE("147: matrices that CG cannot take are refused with their reason", "[147]") {
    CHECK_THAT(spd_refusal(coo_of(3, 4, {{0, 0, 1.0f}})), StartsWith("not square"));
    CHECK_THAT(spd_refusal(coo_of(0, 0, {})), StartsWith("empty"));
    CHECK_THAT(spd_refusal(coo_of(2, 2, {{0, 0, 1.0f}})),
               StartsWith("diagonal not positive: a(2,2) = 0"));
    CHECK_THAT(spd_refusal(coo_of(2, 2, {{0, 0, 1.0f}, {1, 1, -3.0f}})),
               StartsWith("diagonal not positive: a(2,2) = -3"));
    CHECK_THAT(spd_refusal(coo_of(2, 2, {{0, 0, 4.0f}, {1, 1, 4.0f}, {0, 1, 1.0f}})),
               StartsWith("not symmetric: a(1,2) = 1 but a(2,1) = 0"));
    // Duplicates count as their sum: 0.5 + 0.5 mirrors 1.
    CHECK(spd_refusal(
              coo_of(2, 2, {{0, 0, 4.0f}, {1, 1, 4.0f}, {0, 1, 0.5f}, {0, 1, 0.5f}, {1, 0, 1.0f}}))
              .empty());
    CHECK_THAT(spd_refusal(read_data_file("west2021.mtx")), StartsWith("diagonal not positive"));
    CHECK_THAT(spd_refusal(read_data_file("karate.mtx")), StartsWith("diagonal not positive"));
    CHECK_THAT(spd_refusal(read_data_file("netscience.mtx")), StartsWith("diagonal not positive"));
    CHECK(spd_refusal(read_data_file("lund_a.mtx")).empty());
    CHECK(spd_refusal(read_data_file("1138_bus.mtx")).empty());
    // jagmesh7 passes the cheap checks but is indefinite: CG meets p . A p <= 0.
    const HostCoo jagmesh = read_data_file("jagmesh7.mtx");
    CHECK(spd_refusal(jagmesh).empty());
    const Prepared p = prepare(jagmesh);
    CHECK(p.reference.breakdown);
    CHECK(cg_solve(Here::emulated(ThreadOrder::shuffled(kSeed147)), p.system).breakdown);
}

TEST_CASE("147: emulated CG converges on the Poisson matrix", "[147][emulation]") {
    for (const auto& [nx, ny] : {std::pair{16, 16}, std::pair{1, 2}, std::pair{7, 40}}) {
        CAPTURE(nx, ny);
        const Prepared p = prepare(poisson_by_kronecker_sum(nx, ny));
        CHECK_FALSE(p.system.scaled);
        const CgOutcome out = cg_solve(Here::emulated(ThreadOrder::shuffled(kSeed147)), p.system);
        require_good_solution(p, out);
        // Exact kappa, so the bound against x_true holds without any estimate.
        CHECK(
            relative_difference(std::vector<double>(out.y.begin(), out.y.end()), p.system.y_true) <=
            poisson_condition_number(nx, ny) *
                relative_residual(p.system.matrix, p.system.b_exact,
                                  std::vector<double>(out.y.begin(), out.y.end())));
    }
}

TEST_CASE("147: emulated CG converges on lund_a and 1138_bus, Jacobi-scaled",
          "[147][emulation][data]") {
    for (const std::string name : {"lund_a.mtx", "1138_bus.mtx"}) {
        CAPTURE(name);
        const Prepared p = prepare(read_data_file(name));
        CHECK(p.system.scaled);
        for (double d : diagonal_of(p.system.matrix)) REQUIRE(d == Approx(1.0).epsilon(1e-6));
        require_good_solution(p,
                              cg_solve(Here::emulated(ThreadOrder::shuffled(kSeed147)), p.system));
    }
}

TEST_CASE("147: the program's own claims hold, emulated, on the Poisson matrix and the SPD files",
          "[147][emulation][data]") {
    std::vector<CgInput> inputs(3);
    inputs[0].coo = poisson(16);
    inputs[0].side = 16;
    inputs[1].coo = read_data_file("lund_a.mtx");
    inputs[2].coo = read_data_file("1138_bus.mtx");
    for (const CgInput& in : inputs) {
        CAPTURE(in.coo.num_rows, in.poisson());
        const HostCsr a = csr_from_coo_by_stable_sort(in.coo);
        const CgSystem s = make_cg_system(a, !has_constant_diagonal(a));
        const Reference ref = reference_of(
            in, a, s,
            conjugate_gradient_cpu(s.matrix, s.b, kReferenceTolerance, cg_iteration_cap(s)));
        REQUIRE(ref.available);
        CHECK(ref.unscaled_available == s.scaled);
        const CgOutcome out = cg_solve(Here::emulated(ThreadOrder::shuffled(kSeed147)), s);
        // Every SpMV is one iteration's q = A p or one recomputation of b - A x; none is timed.
        CHECK(out.spmv_calls == out.iterations + static_cast<int>(out.checks.size()));
        CHECK(out.spmv_ms == 0);
        const Accuracy acc = measure_accuracy(in, s, ref, out.y, out.history.back());
        if (in.poisson()) CHECK(acc.error == acc.error_y);  // unscaled: y is x
        std::FILE* quiet = std::tmpfile();
        REQUIRE(quiet != nullptr);
        SelfCheck check(quiet);
        check_solution(in, ref, out, acc, check);
        CHECK(check.mismatches() == 0);
        std::fclose(quiet);
    }
}

TEST_CASE("147: the residual history is printed every 5th iteration, or at a rounder step",
          "[147]") {
    CHECK(history_stride(0) == 5);
    CHECK(history_stride(40) == 5);
    CHECK(history_stride(100) == 5);
    CHECK(history_stride(101) == 10);
    CHECK(history_stride(781) == 50);
    CHECK(history_stride(4001) == 500);
    for (int n : {7, 99, 450, 12345, 1000000}) CHECK(n / history_stride(n) <= 20);
}

TEST_CASE("147: with b = 0 the answer is x = 0, after no iterations", "[147][emulation]") {
    CgSystem s = make_cg_system(csr_from_coo_by_stable_sort(poisson(3)), false);
    std::fill(s.b.begin(), s.b.end(), 0.0f);
    const CgOutcome out = cg_solve(Here::emulated(ThreadOrder::shuffled(1)), s);
    CHECK(out.converged);
    CHECK(out.iterations == 0);
    CHECK(out.y == std::vector<float>(9, 0.0f));
}

TEST_CASE("147: GPU CG converges on the Poisson matrix, lund_a and 1138_bus", "[147][gpu][data]") {
    std::vector<HostCoo> inputs = {poisson(16), poisson(64), read_data_file("lund_a.mtx"),
                                   read_data_file("1138_bus.mtx")};
    for (size_t i = 0; i < inputs.size(); ++i) {
        CAPTURE(i, inputs[i].num_rows);
        const Prepared p = prepare(inputs[i]);
        const CgOutcome gpu = cg_solve(Here::gpu(), p.system);
        require_good_solution(p, gpu);
        // The same algorithm as the emulation; only the order of the dot products' additions
        // differs, so the iteration counts stay close.
        const CgOutcome emulated =
            cg_solve(Here::emulated(ThreadOrder::shuffled(kSeed147)), p.system);
        CHECK(std::abs(gpu.iterations - emulated.iterations) <= 0.1 * emulated.iterations + 5);
    }
}

TEST_CASE("147: the GPU solve counts and times its SpMV calls", "[147][gpu]") {
    const Prepared p = prepare(poisson(32));
    CgState timed(Here::gpu(), p.system.matrix, p.system.b, true);
    const CgOutcome out =
        run_conjugate_gradient(timed, rhs_norm(p.system), kCgTolerance, cg_iteration_cap(p.system));
    CHECK(out.spmv_calls == out.iterations + static_cast<int>(out.checks.size()));
    CHECK(out.spmv_ms > 0);
    CHECK(cudaGetLastError() == cudaSuccess);
}
