// 147 (14.1) kernel: conjugate gradient, the solver that SpMV is for.
// CG solves A x = b for a symmetric positive definite A by repeated guesses. Each iteration is one
// SpMV (q = A p, by 143's CSR kernel), two dot products (summed in double) and the vector updates
// below, one thread per element. In float the updated residual r = r - alpha q drifts away from
// b - A x, so convergence counts only once b - A x, recomputed with the same SpMV, agrees. b is
// A x_true for a known x_true; the CPU baseline is the same iteration in double.
//
// Build and run:  make 147_conjugate_gradient_kernel && build/147_conjugate_gradient_kernel
//                 build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx
//                 build/147_conjugate_gradient_kernel --scale 20
#ifndef CONJUGATE_GRADIENT_KERNEL_147  // 149 takes this lesson's kernels and its iteration
#define CONJUGATE_GRADIENT_KERNEL_147
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/dot_in_double.cuh"
#include "../common/event_stopwatch.cuh"
#include "../common/random.h"
// 143's lesson: the CSR kernel, one thread per row, and launch_spmv_csr, for q = A p.
#include "143_spmv_csr_kernel.cu"

constexpr double kCgTolerance = 1e-6;      // relative residual ||b - A x|| / ||b||
constexpr int kIterationsPerUnknown = 10;  // the iteration cap is 10 n

// ------------------------------------------------------------------------------- the system
// The system that CG solves, A y = b, and how its solution maps back to the user's x. Jacobi
// scaling: with D = diag(A) and S = D^-1/2, S A S has a unit diagonal and is still symmetric
// positive definite; S A S y = S b gives x = S y. Where the diagonal is constant it would only
// divide everything by one number, so the matrix is then left as it is.
struct CgSystem {
    HostCsr matrix;               // float, the matrix that the solvers run on
    std::vector<float> b;         // the right-hand side that the solvers get (rounded to float)
    std::vector<double> b_exact;  // matrix * y_true in double, before that rounding
    std::vector<double> y_true;   // the exact solution of matrix * y = b_exact
    std::vector<double> x_of_y;   // x = x_of_y * y, entry by entry (S's diagonal, or ones)
    bool scaled = false;
};

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

// Host loops shorter than this run on one thread: a parallel region for each short vector
// operation costs more than it saves.
inline bool worth_threads(int length) {
    return length >= (1 << 16);
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

// x_true = 1 + a random ripple in [-0.5, 0.5]. A constant x_true would be a poor test: on the
// Poisson grid A * 1 vanishes away from the boundary, so ||b|| is tiny beside ||A|| ||x||, and
// float arithmetic cannot resolve a relative residual of 1e-6 there.
constexpr uint64_t kSolutionSeed = 147;
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

inline int cg_iteration_cap(const CgSystem& s) {
    return kIterationsPerUnknown * s.matrix.num_rows;
}

inline double rhs_norm(const CgSystem& s) {
    double sum = 0;
    for (float v : s.b) sum += static_cast<double>(v) * v;
    return std::sqrt(sum);
}

// ---------------------------------------------------------------------------- the baseline
// What the CPU baseline returns. Its alphas and betas are the Lanczos coefficients of A, from
// which its extreme eigenvalues, and so its condition number, are estimated (147's proof).
struct ReferenceSolve {
    std::vector<double> y;
    int iterations = 0;
    bool converged = false;
    bool breakdown = false;  // p . A p <= 0: the matrix is not positive definite
    double breakdown_value = 0;
    std::vector<double> alphas, betas;
};

// The CPU baseline, in the kernels' shape: the same iteration from x = 0, its vector updates one
// element after another (on every core, for long vectors), in double throughout.
inline ReferenceSolve conjugate_gradient_cpu(const HostCsr& a, const std::vector<float>& b,
                                             double tolerance, int max_iterations) {
    const int n = a.num_rows;
    ReferenceSolve out;
    out.y.assign(n, 0.0);
    std::vector<double> r(b.begin(), b.end()), p = r, q(n);
    auto dot = [n](const std::vector<double>& u, const std::vector<double>& v) {
        double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) if (worth_threads(n))
        for (int i = 0; i < n; ++i) sum += u[i] * v[i];
        return sum;
    };
    const double b_norm = std::sqrt(dot(r, r));
    double rr = b_norm * b_norm;
    while (std::sqrt(rr) > tolerance * b_norm && out.iterations < max_iterations) {
        q = multiply_in_double(a, p);
        const double pq = dot(p, q);
        if (!(pq > 0)) {
            out.breakdown = true;
            out.breakdown_value = pq;
            return out;
        }
        const double alpha = rr / pq;
#pragma omp parallel for schedule(static) if (worth_threads(n))
        for (int i = 0; i < n; ++i) {
            out.y[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rr_next = dot(r, r);
        const double beta = rr_next / rr;
#pragma omp parallel for schedule(static) if (worth_threads(n))
        for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
        rr = rr_next;
        out.alphas.push_back(alpha);
        out.betas.push_back(beta);
        ++out.iterations;
    }
    out.converged = std::sqrt(rr) <= tolerance * b_norm;
    return out;
}

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

struct CgScalars {
    double rr, pq;
};

// One part of CG's vectors where its kernels run: its rows of b, x, r, p and q, and its scalars.
// On one GPU the part is the whole vector; across 149's ranks each rank holds one. The iteration
// names a vector by its member, &CgPart::p, and each part answers with its own piece.
struct CgPart {
    int rows;
    float *b, *x, *r, *p, *q;
    double* scalars;
};

// What CG works on, where the kernels run: the matrix, b, the iteration's four vectors and its
// scalars, as one part; each SpMV timed inside a timed GPU solve. The iteration below asks of it
// what 149's ranks also answer: each_part, gather (nothing to gather here), multiply, dot, read,
// solution.
struct CgState {
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
          dot_in_double(where, b_host.size()),
          stopwatch(time_spmv && where.on_gpu()) {}

    template <class Work>
    void each_part(Work work) {
        CgPart part{static_cast<int>(b.size()),
                    b.data(),
                    x.data(),
                    r.data(),
                    p.data(),
                    q.data(),
                    scalars.data()};
        work(part);
    }
    void gather(float* CgPart::*) {}
    // q = A v by 143's kernel, which adds into q, so q is zeroed first.
    void multiply(float* CgPart::*v) {
        float* source = v == &CgPart::x ? x.data() : p.data();
        q.fill_bytes(0);
        stopwatch.start();
        launch_spmv_csr(here, matrix, source, q.data());
        stopwatch.stop();
        ++spmv_calls;
    }
    void dot(float* CgPart::*u, float* CgPart::*v, CgScalar slot) {
        each_part([&](CgPart& part) { dot_in_double(part.*u, part.*v, part.scalars + slot); });
    }
    // r . r and p . q on the host: the one point of an iteration where the host waits.
    CgScalars read() {
        const std::vector<double> s = scalars.download();
        stopwatch.collect();
        return {s[kRr], s[kPq]};
    }
    std::vector<float> solution() { return x.download(); }

    Here here;
    DeviceCsr matrix;
    DeviceArray<float> b, x, r, p, q;
    DeviceArray<double> scalars;
    DotInDouble dot_in_double;
    EventStopwatch stopwatch;
    int spmv_calls = 0;
};

// One convergence check: where the recurrence said "done", and what b - A x really was.
struct CgCheck {
    int iteration;
    double recurrence, recomputed;
};

struct CgOutcome {
    std::vector<float> y;  // the solution, as the caller downloads it
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

// Conjugate gradient, its iteration run from the host, every kernel launched on every part of
// `s`. When the recurrence's residual drops below the tolerance, b - A x is recomputed; if that
// is still too large, CG restarts from it (p = r). x stays where the kernels run: s.solution().
template <class Parts>
CgOutcome run_conjugate_gradient(Parts& s, double b_norm, double tolerance, int max_iterations) {
    CgOutcome out;
    out.max_iterations = max_iterations;
    const double spmv_ms_before = s.stopwatch.total_ms;
    const int spmv_calls_before = s.spmv_calls;
    const Here& here = s.here;
    // Each vector step: one thread per unknown of the part, in blocks of 256 threads, as many
    // blocks as cover them. The scalars' step is one thread of one block.
    const unsigned threads = 256;
    const auto blocks = [](const CgPart& v) { return (v.rows + threads - 1) / threads; };
    s.each_part([&](CgPart& v) {
        here.launch(blocks(v), threads, cg_start_kernel, cg_start_thread, v.rows, v.b, v.x, v.r,
                    v.p);
    });
    s.gather(&CgPart::p);
    s.dot(&CgPart::r, &CgPart::r, kRr);
    double residual = 0;  // b = 0: the starting guess x = 0 is the exact solution
    if (b_norm > 0) residual = std::sqrt(s.read().rr) / b_norm;
    out.history.push_back(residual);
    for (;;) {
        if (b_norm > 0 && residual <= tolerance) {
            s.gather(&CgPart::x);
            s.multiply(&CgPart::x);
            s.each_part([&](CgPart& v) {
                here.launch(blocks(v), threads, cg_residual_kernel, cg_residual_thread, v.rows, v.b,
                            v.q, v.r, v.p);
            });
            s.gather(&CgPart::p);
            s.dot(&CgPart::r, &CgPart::r, kRr);
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
        s.multiply(&CgPart::p);              // q = A p
        s.dot(&CgPart::p, &CgPart::q, kPq);  // alpha = r . r / p . q
        s.each_part([&](CgPart& v) {
            here.launch(blocks(v), threads, cg_step_kernel, cg_step_thread, v.rows, v.scalars, v.p,
                        v.q, v.x, v.r);
        });
        s.dot(&CgPart::r, &CgPart::r, kRrNext);  // beta = (new r . r) / (old r . r)
        s.each_part([&](CgPart& v) {
            here.launch(blocks(v), threads, cg_direction_kernel, cg_direction_thread, v.rows,
                        v.scalars, v.r, v.p);
            here.launch(1, 1, cg_next_round_kernel, cg_next_round_thread, 1, v.scalars);
        });
        s.gather(&CgPart::p);
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
    out.spmv_ms = s.stopwatch.total_ms - spmv_ms_before;
    out.spmv_calls = s.spmv_calls - spmv_calls_before;
    return out;
}

// CG on `parts` from x = 0, with x brought back into y (kept out of the timed iteration).
template <class Parts>
CgOutcome solve_for_x(Parts& parts, const CgSystem& s, double tolerance, int max_iterations) {
    CgOutcome out = run_conjugate_gradient(parts, rhs_norm(s), tolerance, max_iterations);
    out.y = parts.solution();
    return out;
}

// The float CG of a system, on the GPU or emulated.
inline CgOutcome cg_solve(const Here& here, const CgSystem& s) {
    CgState state(here, s.matrix, s.b);
    return solve_for_x(state, s, kCgTolerance, cg_iteration_cap(s));
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/147_conjugate_gradient_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, conjugate_gradient_program());
    const CgInput input = cg_input(p.options);
    const HostCsr a = csr_for_lesson(input.coo);
    const CgSystem system = make_cg_system(a, !has_constant_diagonal(a));
    show_system(a, system);
    Reference reference;
    if (a.num_rows <= kMaxReferenceRows) {  // beyond, the double CPU solve would take minutes
        if (a.num_rows >= kAnnouncedUnknowns)
            announce("solving in double on the CPU, the reference");
        reference =
            reference_of(input, a, system,
                         conjugate_gradient_cpu(system.matrix, system.b, kReferenceTolerance,
                                                cg_iteration_cap(system)));
    }
    show_reference(input, a, reference);

    if (a.num_rows >= kAnnouncedUnknowns)
        announce(std::string("solving in float, ") + (p.on_gpu() ? "on the GPU" : "emulated"));
    const CgOutcome out = cg_solve(p.here, system);
    refuse_unless_solvable(input, system, out);
    show_history(out);
    const Accuracy accuracy = measure_accuracy(input, system, reference, out.y, out.history.back());
    show_solution(p.here, system, out, accuracy, reference);
    compare_with_library(p, system);

    SelfCheck check;
    check_solution(input, reference, out, accuracy, check);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            input.coo,
            spmv_on_device(p.here, launch_spmv_csr, a, ones(a.num_cols), zeros(a.num_rows))));
    return check.finish();
}
#endif
#endif  // CONJUGATE_GRADIENT_KERNEL_147
