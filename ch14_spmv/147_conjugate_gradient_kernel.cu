// 14.1, kernel: the solver that SpMV is for. Conjugate gradient solves A x = b for a symmetric
// positive definite A by repeated guesses. Each iteration is one SpMV (q = A p, by 143's CSR
// kernel), two dot products (CUB on the GPU, summed in double) and the vector updates below, one
// thread per element. In float the updated residual r = r - alpha q drifts away from b - A x, so
// convergence counts only once b - A x, recomputed with the same SpMV, agrees. b = A x_true for a
// known x_true; a double CG on the CPU is the reference (cg_reference.h).
//
// Build and run:  make 147_conjugate_gradient_kernel && build/147_conjugate_gradient_kernel
//                 build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx
//                 build/147_conjugate_gradient_kernel --scale 20
#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <limits>
#include <string>
#include <vector>
#include "cg_reference.h"
// 143's lesson without its main: the CSR kernel, one thread per row, and launch_spmv_csr.
#include "143_spmv_csr_kernel.cu"

// An iteration's scalars stay where the kernels run, so that alpha and beta never travel to the
// host and back: each update thread divides them itself.
enum CgScalar { kRr = 0, kPq = 1, kRrNext = 2, kNumScalars = 3 };

__host__ __device__ inline float cg_alpha(const double* s) {
    return static_cast<float>(s[kRr] / s[kPq]);
}
__host__ __device__ inline float cg_beta(const double* s) {
    return static_cast<float>(s[kRrNext] / s[kRr]);
}

// The first guess x = 0, whose residual b is also the first direction.
__host__ __device__ inline void cg_start_thread(int i, const float* b, float* x, float* r,
                                                float* p) {
    x[i] = 0.0f;
    r[i] = b[i];
    p[i] = b[i];
}

__global__ void cg_start_kernel(int n, const float* b, float* x, float* r, float* p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_start_thread(i, b, x, r, p);
}

// The step along p, x += alpha p; the residual follows it without an SpMV, r -= alpha q.
__host__ __device__ inline void cg_step_thread(int i, const double* scalars, const float* p,
                                               const float* q, float* x, float* r) {
    const float alpha = cg_alpha(scalars);
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
}

__global__ void cg_step_kernel(int n, const double* scalars, const float* p, const float* q,
                               float* x, float* r) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_step_thread(i, scalars, p, q, x, r);
}

// The next direction, p = r + beta p, A-conjugate to the earlier ones.
__host__ __device__ inline void cg_direction_thread(int i, const double* scalars, const float* r,
                                                    float* p) {
    p[i] = r[i] + cg_beta(scalars) * p[i];
}

__global__ void cg_direction_kernel(int n, const double* scalars, const float* r, float* p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_direction_thread(i, scalars, r, p);
}

// One thread: the new r . r becomes the current one. It is a launch of its own because every
// thread of the direction kernel must read the old value first.
__host__ __device__ inline void cg_next_round_thread(int, double* scalars) {
    scalars[kRr] = scalars[kRrNext];
}

__global__ void cg_next_round_kernel(int n, double* scalars) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_next_round_thread(i, scalars);
}

// The residual from scratch, r = b - A x (ax holds A x); the directions restart from it, p = r.
__host__ __device__ inline void cg_residual_thread(int i, const float* b, const float* ax, float* r,
                                                   float* p) {
    r[i] = b[i] - ax[i];
    p[i] = r[i];
}

__global__ void cg_residual_kernel(int n, const float* b, const float* ax, float* r, float* p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_residual_thread(i, b, ax, r, p);
}

constexpr double kCgTolerance = 1e-6;  // relative residual ||b - A x|| / ||b||

// A dot product's terms, each float product widened to double (exact: 24 + 24 bits < 53).
struct ProductInDouble {
    const float* u;
    const float* v;
    __host__ __device__ double operator()(int i) const { return static_cast<double>(u[i]) * v[i]; }
};

// Events around each SpMV of a timed GPU solve, read at the next read-back, where the host waits
// anyway: the SpMV share is measured inside the solve. Off (in emulation, or untimed), it does
// nothing.
class SpmvStopwatch {
public:
    explicit SpmvStopwatch(bool on) : on_(on) {
        if (!on_) return;
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~SpmvStopwatch() {
        if (!on_) return;
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    SpmvStopwatch(const SpmvStopwatch&) = delete;
    SpmvStopwatch& operator=(const SpmvStopwatch&) = delete;

    void start() {
        collect();
        if (on_) CUDA_CHECK(cudaEventRecord(start_));
    }
    void stop() {
        if (!on_) return;
        CUDA_CHECK(cudaEventRecord(stop_));
        pending_ = true;
    }
    // Adds the last SpMV's time once the GPU has finished it.
    void collect() {
        if (!pending_) return;
        float ms = 0;
        CUDA_CHECK(cudaEventSynchronize(stop_));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        total_ms += ms;
        pending_ = false;
    }
    double total_ms = 0;

private:
    bool on_, pending_ = false;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

struct CgScalars {
    double rr, pq;
};

// What CG works on, where the kernels run: the matrix, b, the iteration's four vectors and its
// scalars. The dot products are library calls, CUB's reduction on the GPU and a plain loop in
// double in emulation: the one place where the two differ.
class CgState {
public:
    CgState(const Here& where, const HostCsr& a, const std::vector<float>& b_host,
            bool time_spmv = false)
        : here(where),
          matrix(where, a),
          b(where, b_host),
          x(where, b_host.size()),
          r(where, b_host.size()),
          p(where, b_host.size()),
          q(where, b_host.size()),
          // read() copies all three, before the first iteration has written two of them.
          scalars(where, std::vector<double>(kNumScalars, 0.0)),
          stopwatch_(time_spmv && where.on_gpu()) {
        if (!here.on_gpu()) return;
        size_t bytes = 0;
        CUDA_CHECK(cub_dot(nullptr, bytes, r, r, kRr));
        scratch_ = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }
    size_t size() const { return b.size(); }

    // dst = A src by 143's kernel, which adds into dst, so dst is zeroed first.
    void multiply(const DeviceArray<float>& src, DeviceArray<float>& dst) {
        dst.fill_bytes(0);
        stopwatch_.start();
        launch_spmv_csr(here, matrix, src.data(), dst.data());
        stopwatch_.stop();
        ++spmv_calls;
    }
    void dot(const DeviceArray<float>& u, const DeviceArray<float>& v, CgScalar slot) {
        if (here.on_gpu()) {
            size_t bytes = scratch_.size();
            CUDA_CHECK(cub_dot(scratch_.data(), bytes, u, v, slot));
            return;
        }
        double sum = 0;
        for (size_t i = 0; i < size(); ++i) sum += static_cast<double>(u.data()[i]) * v.data()[i];
        scalars.data()[slot] = sum;
    }
    // r . r and p . q on the host: the one point of an iteration where the host waits.
    CgScalars read() {
        const std::vector<double> s = scalars.download();
        stopwatch_.collect();
        return {s[kRr], s[kPq]};
    }
    double spmv_ms() const { return stopwatch_.total_ms; }

    Here here;
    DeviceCsr matrix;
    DeviceArray<float> b, x, r, p, q;
    DeviceArray<double> scalars;
    int spmv_calls = 0;

private:
    cudaError_t cub_dot(void* scratch, size_t& bytes, const DeviceArray<float>& u,
                        const DeviceArray<float>& v, CgScalar slot) {
        return cub::DeviceReduce::TransformReduce(scratch, bytes, thrust::counting_iterator<int>(0),
                                                  scalars.data() + slot, static_cast<int>(size()),
                                                  cuda::std::plus<double>{},
                                                  ProductInDouble{u.data(), v.data()}, 0.0);
    }
    SpmvStopwatch stopwatch_;
    DeviceBuffer<unsigned char> scratch_;
};

// One convergence check: where the recurrence said "done", and what b - A x really was.
struct CgCheck {
    int iteration;
    double recurrence, recomputed;
};

struct CgOutcome {
    std::vector<float> y;
    int iterations = 0;
    int max_iterations = 0;
    bool converged = false;
    bool breakdown = false;
    double breakdown_value = 0;
    bool overflow = false;        // a dot product came out inf or NaN: float ran out of range
    double final_residual = 0;    // relative; the last recomputed one when converged
    std::vector<double> history;  // relative residual by the recurrence, after each iteration
    std::vector<CgCheck> checks;
    double spmv_ms = 0;
    int spmv_calls = 0;
};

// Conjugate gradient, every kernel launched where `s` lives. When the recurrence's residual
// drops below the tolerance, b - A x is recomputed; if that is still too large, CG restarts
// from it (p = r).
inline CgOutcome run_conjugate_gradient(CgState& s, double b_norm, double tolerance,
                                        int max_iterations) {
    CgOutcome out;
    out.max_iterations = max_iterations;
    const double spmv_ms_before = s.spmv_ms();
    const int spmv_calls_before = s.spmv_calls;
    const size_t n = s.size();
    const Here& here = s.here;
    here.launch(n, cg_start_kernel, cg_start_thread, s.b.data(), s.x.data(), s.r.data(),
                s.p.data());
    s.dot(s.r, s.r, kRr);
    double residual = 0;  // b = 0: the starting guess x = 0 is the exact solution
    if (b_norm > 0) residual = std::sqrt(s.read().rr) / b_norm;
    out.history.push_back(residual);
    for (;;) {
        if (b_norm > 0 && residual <= tolerance) {
            s.multiply(s.x, s.q);
            here.launch(n, cg_residual_kernel, cg_residual_thread, s.b.data(), s.q.data(),
                        s.r.data(), s.p.data());
            s.dot(s.r, s.r, kRr);
            const CgScalars fresh = s.read();
            if (!std::isfinite(fresh.rr)) {
                out.overflow = true;
                break;
            }
            out.checks.push_back({out.iterations, residual, std::sqrt(fresh.rr) / b_norm});
            residual = out.checks.back().recomputed;
        }
        if (residual <= tolerance) {
            out.converged = true;
            break;
        }
        if (out.iterations == max_iterations) break;
        s.multiply(s.p, s.q);  // q = A p
        s.dot(s.p, s.q, kPq);  // alpha = r . r / p . q
        here.launch(n, cg_step_kernel, cg_step_thread, s.scalars.data(), s.p.data(), s.q.data(),
                    s.x.data(), s.r.data());
        s.dot(s.r, s.r, kRrNext);  // beta = (new r . r) / (old r . r)
        here.launch(n, cg_direction_kernel, cg_direction_thread, s.scalars.data(), s.r.data(),
                    s.p.data());
        here.launch(1, cg_next_round_kernel, cg_next_round_thread, s.scalars.data());
        const CgScalars now = s.read();
        // An inf or NaN here is float overflow, not a property of the matrix: it must not be
        // mistaken for p . A p <= 0.
        if (!std::isfinite(now.pq) || !std::isfinite(now.rr)) {
            out.overflow = true;
            break;
        }
        if (!(now.pq > 0)) {
            out.breakdown = true;
            out.breakdown_value = now.pq;
            break;
        }
        residual = std::sqrt(now.rr) / b_norm;
        ++out.iterations;
        out.history.push_back(residual);
    }
    out.final_residual = residual;
    out.y = s.x.download();
    out.spmv_ms = s.spmv_ms() - spmv_ms_before;
    out.spmv_calls = s.spmv_calls - spmv_calls_before;
    return out;
}

// The float CG of a system, on the GPU or emulated.
inline CgOutcome cg_solve(const Here& here, const CgSystem& s, bool time_spmv = false) {
    CgState state(here, s.matrix, s.b, time_spmv);
    return run_conjugate_gradient(state, rhs_norm(s), kCgTolerance, cg_iteration_cap(s));
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
// its SpMVs timed inside it, and then one SpMV alone, by 143's kernel and by cuSPARSE.
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

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription("147 (14.1) kernel: conjugate gradient on the chapter's CSR SpMV",
                           {"make 147_conjugate_gradient_kernel && "
                            "build/147_conjugate_gradient_kernel",
                            "build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx",
                            "build/147_conjugate_gradient_kernel --scale 20"})
            .with_book_input("the 2-D Poisson matrix of a 16 x 16 grid (256 unknowns)")
            .with_scale_input("a 2-D Poisson matrix of 2^S unknowns", false)
            .with_memory({92, 16, 900e6}));
    const CgInput input = cg_input(p.options);
    const HostCsr a = csr_for_lesson(input.coo);
    const CgSystem system = make_cg_system(a, !has_constant_diagonal(a));
    show_system(a, system);
    const Reference reference = solve_reference(input, a, system);
    show_reference(input, a, reference);

    if (a.num_rows >= kAnnouncedUnknowns)
        announce(std::string("solving in float, ") + (p.on_gpu() ? "on the GPU" : "emulated"));
    const CgOutcome out = cg_solve(p.here, system);
    if (out.overflow) refuse_float_overflow_in_cg(input.source, system, out.iterations);
    if (out.breakdown)
        refuse_not_positive_definite(input.source, out.breakdown_value, out.iterations);
    show_history(out);
    const Accuracy accuracy = measure_accuracy(input, system, reference, out.y, out.history.back());
    show_solution(p.here, system, out, accuracy, reference);
    time_solve(p, system);

    SelfCheck check;
    check_solution(input, reference, out, accuracy, check);
    if (!p.options.book_example())
        check.end_with(
            spmv_result_line(input.coo, csr_spmv(p.here, a, ones(a.num_cols), zeros(a.num_rows))));
    return check.finish();
}
#endif
