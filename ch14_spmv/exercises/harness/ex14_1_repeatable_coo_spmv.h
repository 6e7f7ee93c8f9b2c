// Exercise 14.1's harness: the launch of the COO SpMV body of ex14_1_repeatable_coo_spmv.cu, one
// thread per nonzero as in 142, and the claim that y does not depend on the order in which the
// threads run. A GPU cannot be told an order, so that claim is always tested in the emulator,
// which replays the same body in chosen orders; on a GPU, repeated runs are compared as well.
#pragma once
#include <cstring>
#include <string>
#include <vector>
#include "../../../common/device_formats.cuh"
#include "spmv_exercise.h"

// The exercise: y = A * x + y for a COO matrix sorted by row, launched with one thread per
// nonzero, giving the same y, bit for bit, whatever order the threads run in.
__host__ __device__ void spmv_coo_repeatable_thread(int k, int nnz, const int* rows,
                                                    const int* cols, const float* values,
                                                    const float* x, float* y);

__global__ void spmv_coo_repeatable_kernel(int num_threads, int nnz, const int* rows,
                                           const int* cols, const float* values, const float* x,
                                           float* y) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < num_threads) spmv_coo_repeatable_thread(k, nnz, rows, cols, values, x, y);
}

inline std::vector<float> repeatable_coo_spmv(const Here& here, const HostCoo& a,
                                              const std::vector<float>& x,
                                              const std::vector<float>& y0) {
    const DeviceCoo d(here, a);
    const DeviceArray<float> dx(here, x);
    DeviceArray<float> dy(here, y0);
    here.launch(blocks_for(a.nnz()), kThreadsPerBlock, spmv_coo_repeatable_kernel,
                spmv_coo_repeatable_thread, a.nnz(), d.nnz(), d.rows.data(), d.cols.data(),
                d.values.data(), dx.data(), dy.data());
    return dy.download();
}

// Rows whose float sum depends on the order of its additions. With lesson_x = 1, 1.125, 1.25,
// 1.375, row 0's products are 1.125 * 2^27, -1.125 * 2^27 and 1.25: float keeps 24 bits, so a
// sum of magnitude 2^27 moves in steps of 16 and 1.25 added to it is lost. In entry order row 0
// sums to 1.25; from the last entry to the first, to 0. Row 3 is the same the other way round,
// and stores column 0 twice; row 1 has one entry and row 2 none.
inline HostCoo cancelling_rows() {
    const float big = 134217728.0f;  // 2^27
    return coo_of(4, 4, {0, 0, 0, 1, 3, 3, 3}, {0, 1, 2, 3, 0, 1, 0},
                  {1.125f * big, -big, 1.0f, 5.0f, 0.5f, big, -1.125f * big});
}

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct NamedOrder {
    std::string name;
    ThreadOrder order;
};

inline std::vector<NamedOrder> orders_to_try(const KernelProgram& p) {
    return {{"index order", ThreadOrder::ascending()},
            {"reversed", ThreadOrder::descending()},
            {"seed " + std::to_string(p.seed), ThreadOrder::shuffled(p.seed)},
            {"seed " + std::to_string(p.seed + 1), ThreadOrder::shuffled(p.seed + 1)}};
}

inline void check_repeatable(const KernelProgram& p, const ExerciseMatrix& m,
                             const std::vector<float>& x, const std::vector<float>& y0,
                             SelfCheck& check) {
    const std::vector<NamedOrder> orders = orders_to_try(p);
    bool same = true;
    std::vector<float> first;
    for (const NamedOrder& o : orders) {
        const std::vector<float> y = repeatable_coo_spmv(Here::emulated(o.order), m.coo, x, y0);
        if (printable(m.coo)) print_array("y, " + o.name, y, 21);
        if (first.empty()) first = y;
        same = same && same_bits(y, first);
    }
    check.claim(m.name + ": y is bitwise the same in " + std::to_string(orders.size()) +
                    " emulated thread orders",
                same);
    const std::string gpu_claim = m.name + ": 3 GPU runs give bitwise the same y";
    if (!p.on_gpu()) return check.skip(gpu_claim);
    const std::vector<float> y = repeatable_coo_spmv(p.here, m.coo, x, y0);
    check.claim(gpu_claim, same_bits(y, repeatable_coo_spmv(p.here, m.coo, x, y0)) &&
                               same_bits(y, repeatable_coo_spmv(p.here, m.coo, x, y0)));
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_1_repeatable_coo_spmv",
        "exercise 14.1: a COO SpMV that gives the same y on every run",
        "Fig. 14.1, empty rows and a duplicate, R-MAT 2^8 rows, cancelling rows", {60, 100, 900e6});
    std::vector<ExerciseMatrix> matrices = exercise_matrices();
    matrices.push_back({"cancelling rows", cancelling_rows()});
    return run_spmv_exercise(
        p, matrices, repeatable_coo_spmv,
        [&](const ExerciseMatrix& m, const std::vector<float>& x, const std::vector<float>& y0,
            const std::vector<float>&, SelfCheck& check) { check_repeatable(p, m, x, y0, check); });
}
