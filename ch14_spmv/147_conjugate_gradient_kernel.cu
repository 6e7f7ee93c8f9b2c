// 14.1, kernel: the solver that SpMV is for. Conjugate gradient solves A x = b for a symmetric
// positive definite A by repeated guesses; each iteration costs one SpMV (q = A p, here the
// chapter's own CSR kernel, one thread per row), two dot products and three vector updates.
// Vectors are float, dot products are summed in double (CUB on the GPU). In float the updated
// residual r = r - alpha * q drifts away from the true b - A x, so convergence is accepted only
// after b - A x is recomputed from scratch with the same SpMV. b = A x_true for a known x_true,
// so the error is known; a double CG on the CPU is the reference. Matrices whose diagonal varies
// are scaled to a unit diagonal first (Jacobi scaling), which lowers their condition number.
//
// Build and run:  make 147_conjugate_gradient_kernel && build/147_conjugate_gradient_kernel
//                 build/147_conjugate_gradient_kernel --matrix data/1138_bus.mtx
//                 build/147_conjugate_gradient_kernel --scale 20
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <cuda/std/functional>
#include <string>
#include <tuple>
#include <vector>
#include "../common/cusparse_support.cuh"
#include "../common/kernel_program.cuh"
#include "../common/self_check.h"
#include "chapter_inputs.h"
#include "spmv_bodies.cuh"

constexpr double kCgTolerance = 1e-6;        // relative residual ||b - A x|| / ||b||
constexpr double kReferenceTolerance = 1e-10;
constexpr int kIterationsPerUnknown = 10;     // the iteration cap is 10 n
constexpr int kDefaultGridSide = 16;
constexpr int kMaxReferenceRows = 1 << 21;   // beyond this the double CPU solve takes minutes
constexpr uint64_t kSolutionSeed = 147;

// The default input and the --scale input: the 5-point Laplacian on an nx x ny grid with zero
// boundary values, the matrix of the stencil sweeps of chapter 8. Unknown (i, j) is row
// j * nx + i: 4 on the diagonal, -1 for each of its up to four grid neighbours. It is symmetric,
// and positive definite because its eigenvalues, given below, are all positive.
HostCoo poisson_5_point(int nx, int ny) {
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
double poisson_condition_number(int nx, int ny) {
    const double pi = std::acos(-1.0);
    const double cx = std::cos(pi / (nx + 1)), cy = std::cos(pi / (ny + 1));
    return (4 + 2 * cx + 2 * cy) / (4 - 2 * cx - 2 * cy);
}

// --scale S: 2^S unknowns on a grid of 2^(S/2) x 2^(S - S/2) points.
void poisson_grid_for_scale(int scale, int& nx, int& ny) {
    nx = 1 << (scale / 2);
    ny = 1 << (scale - scale / 2);
}

// Why a file cannot go to CG, or "" when it can as far as cheap checks tell. Positive
// definiteness itself shows only during the solve (p . A p <= 0). Rows are 1-based in the
// messages, as in the file. Duplicate entries count as their sum.
std::string spd_refusal(const HostCoo& a) {
    if (a.num_rows != a.num_cols)
        return "not square (" + std::to_string(a.num_rows) + " x " +
               std::to_string(a.num_cols) + ")";
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

// The diagonal of a CSR matrix, duplicates summed.
std::vector<double> diagonal_of(const HostCsr& a) {
    std::vector<double> d(a.num_rows, 0.0);
    for (int r = 0; r < a.num_rows; ++r)
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            if (a.col_idx[k] == r) d[r] += a.values[k];
    return d;
}

// The system that CG solves, A y = b, and how its solution maps back to the user's x.
// Jacobi scaling: with D = diag(A) and S = D^-1/2, S A S has a unit diagonal and is still
// symmetric positive definite; S A S y = S b gives x = S y. When the diagonal is constant it
// would only divide everything by one number, so the matrix is then left as it is.
struct CgSystem {
    HostCsr matrix;                // float, the matrix that the solvers run on
    std::vector<float> b;          // the right-hand side the solvers get (rounded to float)
    std::vector<double> b_exact;   // matrix * y_true in double, before rounding
    std::vector<double> y_true;    // the exact solution of matrix * y = b_exact
    std::vector<double> x_of_y;    // x = x_of_y * y, entry by entry (S's diagonal, or ones)
    bool scaled = false;
};

// x_true = 1 + a random ripple in [-0.5, 0.5]. A constant x_true would be a poor test: on the
// Poisson grid A * 1 vanishes away from the boundary, so ||b|| is tiny beside ||A|| ||x||, and
// float arithmetic cannot resolve a relative residual of 1e-6 there.
std::vector<double> known_solution(int n) {
    SplitMix64 rng(kSolutionSeed);
    std::vector<double> x(n);
    for (double& v : x) v = 1.0 + (rng.uniform() - 0.5);
    return x;
}

bool has_constant_diagonal(const HostCsr& a) {
    const std::vector<double> d = diagonal_of(a);
    return std::all_of(d.begin(), d.end(), [&](double v) { return v == d.front(); });
}

// Host loops shorter than this run on one thread: starting a parallel region for each short
// vector operation costs more than it saves, and much more on a busy machine.
constexpr int kMinParallelLength = 1 << 16;
inline bool worth_threads(int length) { return length >= kMinParallelLength; }

// y = matrix * v in double, with the float matrix's values exactly as stored.
std::vector<double> multiply_in_double(const HostCsr& a, const std::vector<double>& v) {
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

CgSystem make_cg_system(const HostCsr& a, bool scale) {
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

double norm2(const std::vector<double>& v) {
    double sum = 0;
    for (double e : v) sum += e * e;
    return std::sqrt(sum);
}

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

// ---------------------------------------------------------------------------------------------
// The CPU baseline: CG in double on the same float matrix and float b. Its alpha and beta are
// kept: they are the Lanczos coefficients of A, from which the extreme eigenvalues, and so the
// condition number, can be estimated.
struct ReferenceSolve {
    std::vector<double> y;
    int iterations = 0;
    bool converged = false;
    bool breakdown = false;  // p . A p <= 0: the matrix is not positive definite
    double breakdown_value = 0;
    std::vector<double> alphas, betas;
};

ReferenceSolve cg_reference_double(const HostCsr& a, const std::vector<float>& b, double tolerance,
                                   int max_iterations) {
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

// CG's coefficients build the Lanczos tridiagonal T: diagonal 1/alpha_0, then 1/alpha_j +
// beta_(j-1)/alpha_(j-1); off-diagonal sqrt(beta_j)/alpha_j. T's extreme eigenvalues (Ritz
// values) approach A's from inside, and have converged by the time CG has, so their ratio
// estimates kappa(A), from below if anything. They are found by bisection on Sturm counts.
struct ConditionEstimate {
    double lambda_min = 0, lambda_max = 0;
    double kappa() const { return lambda_max / lambda_min; }
};

ConditionEstimate ritz_condition_estimate(const std::vector<double>& alphas,
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

// ---------------------------------------------------------------------------------------------
// The float CG, on the GPU or in emulation. Its per-element work is three bodies, written once:
__host__ __device__ inline void cg_step_thread(int i, float alpha, const float* p, const float* q,
                                               float* x, float* r) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
}

__host__ __device__ inline void cg_direction_thread(int i, float beta, const float* r, float* p) {
    p[i] = r[i] + beta * p[i];
}

__host__ __device__ inline void cg_residual_thread(int i, const float* b, const float* ax,
                                                   float* r) {
    r[i] = b[i] - ax[i];
}

// The scalars live on the device, so that alpha and beta never travel to the host and back:
// each update kernel divides them itself.
enum CgScalar { kRr = 0, kPq = 1, kRrNext = 2, kNumScalars = 3 };

__host__ __device__ inline float cg_alpha(const double* s) {
    return static_cast<float>(s[kRr] / s[kPq]);
}
__host__ __device__ inline float cg_beta(const double* s) {
    return static_cast<float>(s[kRrNext] / s[kRr]);
}

__global__ void cg_step_kernel(int n, const double* scalars, const float* p, const float* q,
                               float* x, float* r) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_step_thread(i, cg_alpha(scalars), p, q, x, r);
}

__global__ void cg_direction_kernel(int n, const double* scalars, const float* r, float* p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_direction_thread(i, cg_beta(scalars), r, p);
}

__global__ void cg_residual_kernel(int n, const float* b, const float* ax, float* r) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cg_residual_thread(i, b, ax, r);
}

// A dot product's terms, each float product widened to double (exact: 24 + 24 bits < 53).
struct ProductInDouble {
    const float* u;
    const float* v;
    __host__ __device__ double operator()(int i) const { return static_cast<double>(u[i]) * v[i]; }
};

struct CgScalars {
    double rr, pq;
};

namespace {

// The GPU side: the matrix, the five vectors and the scalars on the device. Every step is
// queued on the default stream; read() is the one point per iteration where the host waits.
class GpuCgOps {
public:
    GpuCgOps(const HostCsr& a, const std::vector<float>& b_host, bool time_spmv)
        : n(a.num_rows), row_offsets(a.row_offsets), col_idx(a.col_idx), values(a.values),
          b(b_host), x(n), r(n), p(n), q(n), scalars(kNumScalars), time_spmv_(time_spmv) {
        // read() copies all three scalars, before the first iteration has written two of them.
        scalars.fill_bytes(0);
        size_t bytes = 0;
        CUDA_CHECK(dot_into(nullptr, bytes, r.data(), r.data(), kRr));
        scratch_ = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
        CUDA_CHECK(cudaEventCreate(&spmv_start_));
        CUDA_CHECK(cudaEventCreate(&spmv_stop_));
    }
    ~GpuCgOps() {
        cudaEventDestroy(spmv_start_);
        cudaEventDestroy(spmv_stop_);
    }
    GpuCgOps(const GpuCgOps&) = delete;
    GpuCgOps& operator=(const GpuCgOps&) = delete;

    void start() {
        x.fill_bytes(0);
        copy(b, r);
        copy(b, p);
        dot(r, r, kRr);
    }
    void matvec_direction() { spmv(p, q); }
    void dot_direction() { dot(p, q, kPq); }
    void step() {
        cg_step_kernel<<<blocks_for(n), kThreadsPerBlock>>>(n, scalars.data(), p.data(), q.data(),
                                                             x.data(), r.data());
        CUDA_CHECK_LAUNCH();
    }
    void dot_residual_next() { dot(r, r, kRrNext); }
    void new_direction() {
        cg_direction_kernel<<<blocks_for(n), kThreadsPerBlock>>>(n, scalars.data(), r.data(),
                                                                 p.data());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpyAsync(scalars.data() + kRr, scalars.data() + kRrNext, sizeof(double),
                                   cudaMemcpyDeviceToDevice));
    }
    // r = b - A x from scratch (q = A x, then r = b - q), and a fresh direction p = r.
    void recompute_residual() {
        spmv(x, q);
        cg_residual_kernel<<<blocks_for(n), kThreadsPerBlock>>>(n, b.data(), q.data(), r.data());
        CUDA_CHECK_LAUNCH();
        copy(r, p);
        dot(r, r, kRr);
    }
    CgScalars read() {
        double host[kNumScalars];
        CUDA_CHECK(cudaMemcpy(host, scalars.data(), sizeof host, cudaMemcpyDeviceToHost));
        collect_spmv_time();
        return {host[kRr], host[kPq]};
    }
    std::vector<float> solution() const { return x.download(); }

    double spmv_ms = 0;
    int spmv_calls = 0;
    int n;
    DeviceBuffer<int> row_offsets, col_idx;
    DeviceBuffer<float> values, b, x, r, p, q;
    DeviceBuffer<double> scalars;

private:
    // dst = A src: the chapter's kernel adds into dst, so dst is zeroed first.
    void spmv(const DeviceBuffer<float>& src, DeviceBuffer<float>& dst) {
        collect_spmv_time();
        dst.fill_bytes(0);
        if (time_spmv_) CUDA_CHECK(cudaEventRecord(spmv_start_));
        spmv_csr_kernel<<<blocks_for(n), kThreadsPerBlock>>>(n, row_offsets.data(), col_idx.data(),
                                                             values.data(), src.data(), dst.data());
        CUDA_CHECK_LAUNCH();
        if (time_spmv_) CUDA_CHECK(cudaEventRecord(spmv_stop_));
        ++spmv_calls;
        pending_ = time_spmv_;
    }
    void collect_spmv_time() {
        if (!pending_) return;
        CUDA_CHECK(cudaEventSynchronize(spmv_stop_));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, spmv_start_, spmv_stop_));
        spmv_ms += ms;
        pending_ = false;
    }
    cudaError_t dot_into(void* scratch, size_t& bytes, const float* u, const float* v, int slot) {
        return cub::DeviceReduce::TransformReduce(
            scratch, bytes, thrust::counting_iterator<int>(0), scalars.data() + slot, n,
            cuda::std::plus<double>{}, ProductInDouble{u, v}, 0.0);
    }
    void dot(const DeviceBuffer<float>& u, const DeviceBuffer<float>& v, int slot) {
        size_t bytes = scratch_.size();
        CUDA_CHECK(dot_into(scratch_.data(), bytes, u.data(), v.data(), slot));
    }
    static void copy(const DeviceBuffer<float>& from, DeviceBuffer<float>& to) {
        if (from.bytes() == 0) return;
        CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToDevice));
    }

    bool time_spmv_, pending_ = false;
    DeviceBuffer<unsigned char> scratch_;
    cudaEvent_t spmv_start_ = nullptr, spmv_stop_ = nullptr;
};

// The host side: the same steps through the same bodies, one emulated thread per element; the
// dot products are plain loops in double.
class EmulatedCgOps {
public:
    EmulatedCgOps(const HostCsr& a, const std::vector<float>& b_host, const ThreadOrder& order)
        : n(a.num_rows), a_(a), b(b_host), x(n), r(n), p(n), q(n), order_(order) {}

    void start() {
        std::fill(x.begin(), x.end(), 0.0f);
        r = b;
        p = b;
        scalars_[kRr] = dot(r, r);
    }
    void matvec_direction() { spmv(p, q); }
    void dot_direction() { scalars_[kPq] = dot(p, q); }
    void step() {
        const float alpha = cg_alpha(scalars_);
        emulate_threads(n, order_, [&](int i) {
            cg_step_thread(i, alpha, p.data(), q.data(), x.data(), r.data());
        });
    }
    void dot_residual_next() { scalars_[kRrNext] = dot(r, r); }
    void new_direction() {
        const float beta = cg_beta(scalars_);
        emulate_threads(n, order_,
                        [&](int i) { cg_direction_thread(i, beta, r.data(), p.data()); });
        scalars_[kRr] = scalars_[kRrNext];
    }
    void recompute_residual() {
        spmv(x, q);
        emulate_threads(n, order_,
                        [&](int i) { cg_residual_thread(i, b.data(), q.data(), r.data()); });
        p = r;
        scalars_[kRr] = dot(r, r);
    }
    CgScalars read() { return {scalars_[kRr], scalars_[kPq]}; }
    std::vector<float> solution() const { return x; }

    double spmv_ms = 0;
    int spmv_calls = 0;
    int n;

private:
    void spmv(const std::vector<float>& src, std::vector<float>& dst) {
        std::fill(dst.begin(), dst.end(), 0.0f);
        emulate_threads(n, order_, [&](int row) {
            spmv_csr_thread(row, a_.row_offsets.data(), a_.col_idx.data(), a_.values.data(),
                            src.data(), dst.data());
        });
        ++spmv_calls;
    }
    double dot(const std::vector<float>& u, const std::vector<float>& v) const {
        double sum = 0;
        for (int i = 0; i < n; ++i) sum += static_cast<double>(u[i]) * v[i];
        return sum;
    }
    const HostCsr& a_;
    std::vector<float> b, x, r, p, q;
    ThreadOrder order_;
    double scalars_[kNumScalars] = {0, 0, 0};
};

}  // namespace

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
    bool overflow = false;         // a dot product came out inf or NaN: float ran out of range
    double final_residual = 0;     // relative; the last recomputed one when converged
    std::vector<double> history;   // relative residual by the recurrence, after each iteration
    std::vector<CgCheck> checks;
    double spmv_ms = 0;
    int spmv_calls = 0;
};

// The CG loop, written once for both sides. When the recurrence's residual drops below the
// tolerance, b - A x is recomputed; if that is still too large, CG restarts from it (p = r).
template <class Ops>
CgOutcome run_conjugate_gradient(Ops& ops, double b_norm, double tolerance, int max_iterations) {
    CgOutcome out;
    out.max_iterations = max_iterations;
    const double spmv_ms_before = ops.spmv_ms;
    const int spmv_calls_before = ops.spmv_calls;
    ops.start();
    if (!(b_norm > 0)) {  // b = 0: the starting guess x = 0 is the exact solution
        out.converged = true;
        out.history.push_back(0.0);
        out.y = ops.solution();
        return out;
    }
    double residual = std::sqrt(ops.read().rr) / b_norm;
    out.history.push_back(residual);
    for (;;) {
        if (residual <= tolerance) {
            ops.recompute_residual();
            const CgScalars fresh = ops.read();
            if (!std::isfinite(fresh.rr)) {
                out.overflow = true;
                break;
            }
            const double recomputed = std::sqrt(fresh.rr) / b_norm;
            out.checks.push_back({out.iterations, residual, recomputed});
            residual = recomputed;
            if (recomputed <= tolerance) {
                out.converged = true;
                break;
            }
        }
        if (out.iterations == max_iterations) break;
        ops.matvec_direction();
        ops.dot_direction();
        ops.step();
        ops.dot_residual_next();
        ops.new_direction();
        const CgScalars s = ops.read();
        // An inf or NaN here is float overflow, not a property of the matrix: it must not be
        // mistaken for p . A p <= 0.
        if (!std::isfinite(s.pq) || !std::isfinite(s.rr)) {
            out.overflow = true;
            break;
        }
        if (!(s.pq > 0)) {
            out.breakdown = true;
            out.breakdown_value = s.pq;
            break;
        }
        residual = std::sqrt(s.rr) / b_norm;
        ++out.iterations;
        out.history.push_back(residual);
    }
    out.final_residual = residual;
    out.y = ops.solution();
    out.spmv_ms = ops.spmv_ms - spmv_ms_before;
    out.spmv_calls = ops.spmv_calls - spmv_calls_before;
    return out;
}

int cg_iteration_cap(const CgSystem& s) { return kIterationsPerUnknown * s.matrix.num_rows; }

double rhs_norm(const CgSystem& s) {
    double sum = 0;
    for (float v : s.b) sum += static_cast<double>(v) * v;
    return std::sqrt(sum);
}

CgOutcome cg_solve_gpu(const CgSystem& s, bool time_spmv = false) {
    GpuCgOps ops(s.matrix, s.b, time_spmv);
    return run_conjugate_gradient(ops, rhs_norm(s), kCgTolerance, cg_iteration_cap(s));
}

CgOutcome cg_solve_emulated(const CgSystem& s, const ThreadOrder& order) {
    EmulatedCgOps ops(s.matrix, s.b, order);
    return run_conjugate_gradient(ops, rhs_norm(s), kCgTolerance, cg_iteration_cap(s));
}

// b - A y recomputed in double from scratch, and the bound within which a float evaluation of
// it (the solver's own check: a float SpMV, then b minus it) must lie: spmv_reference's per-row
// float32 bound for b + A * (-y), whose norm bounds the difference of the two norms.
struct ResidualFromScratch {
    double relative;     // ||b - A y|| / ||b||, in double
    double float_bound;  // ||per-row float32 bound|| / ||b||
};

ResidualFromScratch residual_from_scratch(const CgSystem& s, const std::vector<float>& y) {
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

// ||rhs - A y|| / ||rhs||, all in double: for the double solve, and against the exact
// right-hand side (before b was rounded to float).
double relative_residual(const HostCsr& a, const std::vector<double>& rhs,
                         const std::vector<double>& y) {
    const std::vector<double> ay = multiply_in_double(a, y);
    std::vector<double> r(ay.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = rhs[i] - ay[i];
    return norm2(r) / norm2(rhs);
}

std::vector<double> x_from_y(const CgSystem& s, const std::vector<double>& y) {
    std::vector<double> x(y.size());
    for (size_t i = 0; i < y.size(); ++i) x[i] = s.x_of_y[i] * y[i];
    return x;
}

// y = A * 1 by the chapter's kernel (on the GPU or emulated), for the result: line.
std::vector<float> csr_times_ones(const HostCsr& a, bool on_gpu, const ThreadOrder& order) {
    const std::vector<float> ones(a.num_cols, 1.0f);
    if (!on_gpu) {
        std::vector<float> y(a.num_rows, 0.0f);
        emulate_threads(a.num_rows, order, [&](int row) {
            spmv_csr_thread(row, a.row_offsets.data(), a.col_idx.data(), a.values.data(),
                            ones.data(), y.data());
        });
        return y;
    }
    DeviceBuffer<int> row_offsets(a.row_offsets), col_idx(a.col_idx);
    DeviceBuffer<float> values(a.values), x(ones), y(a.num_rows);
    y.fill_bytes(0);
    if (a.num_rows > 0) {
        spmv_csr_kernel<<<blocks_for(a.num_rows), kThreadsPerBlock>>>(
            a.num_rows, row_offsets.data(), col_idx.data(), values.data(), x.data(), y.data());
        CUDA_CHECK_LAUNCH();
    }
    return y.download();
}

#ifndef LESSON_WITHOUT_MAIN
namespace {


void print_history(const CgOutcome& out) {
    const int last = out.iterations;
    const int stride = last <= static_cast<int>(kPrintLimit) ? 1 : (last + 19) / 20;
    const std::string which = stride == 1
                                  ? "every iteration"
                                  : "every " + std::to_string(stride) + " iterations and the last";
    std::printf("relative residual ||r|| / ||b|| by the recurrence, %s:\n", which.c_str());
    for (int it = 0; it <= last; ++it)
        if (it % stride == 0 || it == last)
            std::printf("  iteration %6d  %.3e\n", it, out.history[it]);
    std::printf("convergence checks (b - A x recomputed with the same SpMV when the recurrence "
                "drops below %.0e):\n", kCgTolerance);
    if (out.checks.empty()) std::printf("  none\n");
    for (const CgCheck& c : out.checks)
        std::printf("  iteration %6d  recurrence %.3e, recomputed %.3e: %s\n", c.iteration,
                    c.recurrence, c.recomputed,
                    c.recomputed <= kCgTolerance
                        ? "converged"
                        : "the recurrence had drifted; restart from the recomputed residual");
}

[[noreturn]] void refuse_not_positive_definite(const std::string& source, double value,
                                               int iteration) {
    char text[240];
    std::snprintf(
        text, sizeof text,
        "%s: not positive definite: CG met p . A p = %.6g <= 0 at iteration %d; conjugate "
        "gradient needs a symmetric positive definite matrix",
        source.c_str(), value, iteration);
    fail_bad_input(text);
}

// The matrix's largest |a_ij| and b's largest |b_i|, which tell why float overflowed.
[[noreturn]] void refuse_float_overflow_in_cg(const std::string& source, const CgSystem& s,
                                              int iteration) {
    double largest_entry = 0, largest_b = 0;
    for (float v : s.matrix.values) largest_entry = std::max(largest_entry, std::fabs(double(v)));
    for (float v : s.b) largest_b = std::max(largest_b, std::fabs(double(v)));
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s: the input's values overflow float: at iteration %d the float CG's A p or "
                  "its dot products passed the largest float (%.4g), with entries of A up to "
                  "%.3g and of b up to %.3g; scale the matrix down",
                  source.c_str(), iteration,
                  static_cast<double>(std::numeric_limits<float>::max()), largest_entry, largest_b);
    fail_bad_input(text);
}

}  // namespace

// What this program allocates for an input, host and device together, in bytes per entry, per row
// or column, and in all: its peaks measured on an H200, with a quarter more (memory_budget.h).
constexpr MemoryModel kMemory{92, 16, 900e6};

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--skew") == 0)
            fail_bad_input(
                "--skew shapes R-MAT matrices; this program's --scale input is a Poisson grid");
    const KernelProgram p = start_kernel_program(
        argc, argv, "147 (14.1) kernel: conjugate gradient on the chapter's CSR SpMV");
    const bool from_file = !p.options.matrix.empty();
    const bool timed = p.options.scale > 0;
    HostCoo coo;
    int nx = kDefaultGridSide, ny = kDefaultGridSide;
    if (from_file) {
        coo = spmv_input(p.options, kMemory);
        const std::string refusal = spd_refusal(coo);
        if (!refusal.empty())
            fail_bad_input(p.options.matrix + ": " + refusal +
                           "; conjugate gradient needs a symmetric positive definite matrix");
    } else {
        if (timed) {
            poisson_grid_for_scale(p.options.scale, nx, ny);
            const uint64_t unknowns = uint64_t{1} << p.options.scale;
            require_memory(p.options, kMemory, "--scale " + std::to_string(p.options.scale),
                           unknowns, unknowns, 5 * unknowns);
        }
        coo = poisson_5_point(nx, ny);
        std::printf(
            "input: 2-D Poisson matrix, the 5-point Laplacian on a %d x %d grid (%d unknowns, "
            "%zu nonzeros)\n",
            nx, ny, coo.num_rows, coo.nnz());
    }
    const std::string source = from_file ? p.options.matrix : "the Poisson matrix";
    const HostCsr a = csr_from_coo_by_stable_sort(coo);
    const int n = a.num_rows;

    const std::vector<double> diag = diagonal_of(a);
    const bool scale = !has_constant_diagonal(a);
    const CgSystem system = make_cg_system(a, scale);
    if (scale)
        std::printf(
            "the diagonal ranges from %.4g to %.4g: CG solves the Jacobi-scaled system\n"
            "  S A S y = S b with S = diag(A)^(-1/2) (unit diagonal), and x = S y\n",
            *std::min_element(diag.begin(), diag.end()),
            *std::max_element(diag.begin(), diag.end()));
    else
        std::printf("the diagonal is constant (%g): CG solves A x = b as it is\n", diag.front());
    std::printf("b = A x_true with x_true = 1 + a random ripple in [-0.5, 0.5] (seed %d)\n",
                static_cast<int>(kSolutionSeed));
    std::printf("float vectors, double dot products; stop at ||b - A x|| / ||b|| <= %.0e or after\n"
                "  %d iterations (10 n)\n\n", kCgTolerance, cg_iteration_cap(system));

    // The reference first: a double solve, which also tells whether the matrix is positive
    // definite and estimates its condition number.
    const bool with_reference = n <= kMaxReferenceRows;
    ReferenceSolve reference;
    ConditionEstimate condition;
    if (with_reference) {
        reference = cg_reference_double(system.matrix, system.b, kReferenceTolerance,
                                        cg_iteration_cap(system));
        if (reference.breakdown)
            refuse_not_positive_definite(source, reference.breakdown_value, reference.iterations);
        condition = ritz_condition_estimate(reference.alphas, reference.betas);
        std::printf("CPU reference: CG in double, %d iterations to %.0e%s\n", reference.iterations,
                    kReferenceTolerance, reference.converged ? "" : " (NOT reached)");
        std::printf(
            "  Ritz values: lambda_min ~ %.6g, lambda_max ~ %.6g, condition number ~ %.6g\n",
            condition.lambda_min, condition.lambda_max, condition.kappa());
        if (!from_file)
            std::printf("  the Poisson formula gives condition number %.6g\n",
                        poisson_condition_number(nx, ny));
        if (scale) {
            const CgSystem unscaled = make_cg_system(a, false);
            const ReferenceSolve raw = cg_reference_double(
                unscaled.matrix, unscaled.b, kReferenceTolerance, cg_iteration_cap(unscaled));
            if (!raw.breakdown)
                std::printf(
                    "  A unscaled: condition number ~ %.4g and %d iterations in double\n"
                    "  (scaled: %.4g and %d): the scaling shrinks the error bound kappa * residual\n"
                    "  by the same factor as kappa\n",
                    ritz_condition_estimate(raw.alphas, raw.betas).kappa(), raw.iterations,
                    condition.kappa(), reference.iterations);
        }
    } else {
        std::printf(
            "CPU reference: skipped (%d unknowns; a double CG on the host would take minutes)\n",
            n);
    }
    std::printf("\n");

    // On a GPU at --scale, one untimed solve first: the first launches of a program load its
    // kernels, which is not the solver's time. The device arrays are set up outside the timing.
    CgOutcome out;
    double solve_ms = 0;
    const double b_norm = rhs_norm(system);
    std::unique_ptr<GpuCgOps> device;
    if (p.on_gpu()) {
        device = std::make_unique<GpuCgOps>(system.matrix, system.b, timed);
        if (timed) run_conjugate_gradient(*device, b_norm, kCgTolerance, cg_iteration_cap(system));
        cudaEvent_t start, stop;
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
        CUDA_CHECK(cudaEventRecord(start));
        out = run_conjugate_gradient(*device, b_norm, kCgTolerance, cg_iteration_cap(system));
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        solve_ms = ms;
        CUDA_CHECK(cudaEventDestroy(start));
        CUDA_CHECK(cudaEventDestroy(stop));
    } else {
        solve_ms = host_ms([&] { out = cg_solve_emulated(system, p.shuffled_order()); });
    }
    if (out.overflow) refuse_float_overflow_in_cg(source, system, out.iterations);
    if (out.breakdown) refuse_not_positive_definite(source, out.breakdown_value, out.iterations);

    print_history(out);
    const ResidualFromScratch scratch = residual_from_scratch(system, out.y);
    const double recurrence = out.history.back();
    std::printf("\n%s CG: %d iterations (cap %d), %d SpMV calls; final residual %.3e, %s\n",
                p.on_gpu() ? "GPU" : "emulated", out.iterations, out.max_iterations, out.spmv_calls,
                out.final_residual, out.converged ? "converged" : "NOT converged");
    std::printf(
        "  the recurrence's last residual %.3e; ||b - A x|| / ||b|| recomputed in double from\n"
        "  scratch %.3e: they differ by %.1e (the float32 bound of one evaluation of b - A x,\n"
        "  worst case over rounding: %.1e)\n",
        recurrence, scratch.relative, std::fabs(recurrence - scratch.relative),
        scratch.float_bound);
    const std::vector<double> y(out.y.begin(), out.y.end());
    const std::vector<double> x_true = known_solution(n);
    std::printf("  error ||x - x_true|| / ||x_true||: %.3e\n",
                relative_difference(x_from_y(system, y), x_true));

    // ||y - y*|| <= ||A^-1|| ||b - A y|| <= kappa ||y*|| ||b - A y|| / ||b|| holds for both solves,
    // so they can differ by at most kappa times the sum of their relative residuals.
    double difference = 0, bound = 0;
    if (with_reference) {
        const double reference_residual = relative_residual(
            system.matrix, std::vector<double>(system.b.begin(), system.b.end()), reference.y);
        difference = relative_difference(y, reference.y);
        bound = condition.kappa() * (scratch.relative + reference_residual);
        std::printf("  difference from the double CPU solve ||y - y_cpu|| / ||y_cpu||: %.3e\n"
                    "    bound kappa * (%.2e + %.2e) = %.3e, kappa ~ %.4g from the Ritz values\n",
                    difference, scratch.relative, reference_residual, bound, condition.kappa());
        std::printf("  the double CPU solve's error against x_true: %.3e\n",
                    relative_difference(x_from_y(system, reference.y), x_true));
    }
    // The Poisson matrix's kappa is known exactly, and its b_exact = A y_true has no rounding
    // of b in it, so the same bound holds against the true solution itself.
    const double poisson_kappa = from_file ? 0 : poisson_condition_number(nx, ny);
    const double exact_residual =
        from_file ? 0 : relative_residual(system.matrix, system.b_exact, y);
    const double true_error = relative_difference(y, system.y_true);
    if (!from_file)
        std::printf("  against x_true: %.3e, bound kappa * ||b_exact - A x|| / ||b_exact||\n"
                    "    = %.4g * %.3e = %.3e\n",
                    true_error, poisson_kappa, exact_residual, poisson_kappa * exact_residual);
    std::printf("\n");

    if (timed && !p.on_gpu())
        std::printf("time: %.1f ms for the solve on the host (emulation: not a GPU time)\n\n",
                    solve_ms);
    if (timed && p.on_gpu()) {
        const double copy_gbs = measure_copy_gbs();
        // One SpMV moves at least colIdx and value (8 per nonzero), rowPtrs (4 per row + 4),
        // the input vector once (4 per row), and the zeroed output read and written (8 per row).
        const double bytes = 8.0 * a.nnz() + 4.0 * (n + 1) + 12.0 * n;
        const double per_call = out.spmv_ms / out.spmv_calls;
        GpuCgOps& d = *device;
        d.start();
        // Both add A * p into q again on every run: the same work each time.
        const double kernel_ms = median_gpu_ms([&] {
            spmv_csr_kernel<<<blocks_for(n), kThreadsPerBlock>>>(
                n, d.row_offsets.data(), d.col_idx.data(), d.values.data(), d.p.data(), d.q.data());
            CUDA_CHECK_LAUNCH();
        });
        CusparseSpmv library(d.n, d.n, static_cast<int64_t>(d.col_idx.size()),
                             d.row_offsets.data(), d.col_idx.data(), d.values.data(), d.p.data(),
                             d.q.data());
        const double library_ms = median_gpu_ms([&] { library.run(); });
        std::printf("timings on %s (copy bandwidth %.0f GB/s):\n", p.backend.device_name.c_str(),
                    copy_gbs);
        std::printf("  whole solve  %9.2f ms, %d iterations, %.1f us per iteration\n", solve_ms,
                    out.iterations, 1e3 * solve_ms / std::max(out.iterations, 1));
        std::printf(
            "  all %d SpMVs %9.2f ms = %.1f%% of the solve;\n"
            "    %.1f us each, %.0f GB/s (%.0f%% of copy)\n",
            out.spmv_calls, out.spmv_ms, 100 * out.spmv_ms / solve_ms, 1e3 * per_call,
            gb_per_s(bytes, per_call), 100 * gb_per_s(bytes, per_call) / copy_gbs);
        std::printf(
            "  the rest (dot products, vector updates, one read-back per iteration): %.1f%%\n",
            100 * (solve_ms - out.spmv_ms) / solve_ms);
        std::printf("  one SpMV alone (%s): chapter's kernel %.1f us, cuSPARSE %.1f us;\n"
                    "  ratio cuSPARSE / chapter's kernel %.2f (below 1: cuSPARSE is faster)\n\n",
                    timing_description().c_str(), 1e3 * kernel_ms, 1e3 * library_ms,
                    library_ms / kernel_ms);
    }

    SelfCheck check;
    // The solver judged convergence by its own float evaluation of b - A x; the double one may
    // differ from it by up to that evaluation's float32 bound (the next claim checks that).
    check.claim("converged: b - A x, recomputed by the solver's float SpMV, is below 1e-6 within "
                "the iteration cap, and the double recomputation is within its float32 bound",
                out.converged && scratch.relative <= kCgTolerance + scratch.float_bound);
    check.claim("b - A x recomputed from scratch agrees with the recurrence's residual within the "
                "float32 bound of one evaluation",
                std::fabs(recurrence - scratch.relative) <= scratch.float_bound);
    const std::string reference_claim =
        "the float solution is within kappa * (its residual + the reference's) of the "
        "double CPU solve";
    // Both sides are computed in double from the same float y, each with a relative rounding
    // error of a few units of 2^-53 per term; where the bound is attained (a 1 x 1 system, a
    // diagonal one after scaling) only those last bits tell them apart.
    const double relative_rounding = 1e-9, absolute_rounding = 1e-15;
    if (with_reference)
        check.claim(reference_claim,
                    difference <= bound * (1 + relative_rounding) + absolute_rounding);
    else
        check.skip(reference_claim, "no CPU reference at this size");
    if (!from_file) {
        if (with_reference)
            check.claim("the Ritz estimate of kappa is within 1% of the Poisson formula's",
                        std::fabs(condition.kappa() / poisson_kappa - 1) <= 0.01);
        check.claim(
            "the error against x_true is within the Poisson formula's kappa times the residual",
            true_error <= poisson_kappa * exact_residual);
    }
    if (from_file)
        check.end_with(spmv_result_line(coo, csr_times_ones(a, p.on_gpu(), p.shuffled_order())));
    return check.finish();
}
#endif
