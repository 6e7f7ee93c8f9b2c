// Exercise 14.6's harness: the byte count of ex14_6_predict_bytes.cu for 143's kernel, held
// against the byte model that the chapter's timings turn into GB/s (csr_spmv_bytes, in
// proof/spmv_proof.cuh), on matrices of different shapes, so that a term left out or counted twice
// shows. The kernel itself runs as written in 143, and its y is checked as in every exercise. On
// a GPU each matrix is also timed with the suite's timing table, which prints the GB/s that the
// prediction implies beside the time: a measurement, never a self-check.
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include "../../../common/timing_table.cuh"
// 143's lesson: the kernel that is counted and timed (launch_spmv_csr)
#include "../../143_spmv_csr_kernel.cu"
#include "../../proof/spmv_proof.cuh"
#include "spmv_exercise.h"

// The exercise: the bytes that 143's kernel, one thread per row, y = A * x + y, must move at
// least, for the matrix a: each array that it reads or writes, every element counted once.
double predicted_csr_thread_per_row_bytes(const HostCsr& a);

inline std::vector<float> csr_thread_per_row_spmv(const Here& here, const HostCoo& coo,
                                                  const std::vector<float>& x,
                                                  const std::vector<float>& y0) {
    return spmv_on_device(here, launch_spmv_csr, csr_for_lesson(coo), x, y0);
}

// A 1,000 x 3 matrix and a 3 x 1,000 one, three entries in each of the long side's lines: the
// terms that scale with the rows and those that scale with the columns differ by far.
inline ExerciseMatrix tall_matrix() {
    std::vector<int> rows, cols;
    for (int r = 0; r < 1000; ++r)
        for (int c = 0; c < 3; ++c) {
            rows.push_back(r);
            cols.push_back(c);
        }
    return {"a tall matrix", coo_of(1000, 3, rows, cols, std::vector<float>(rows.size(), 1.0f))};
}

inline ExerciseMatrix wide_matrix() {
    const HostCoo tall = tall_matrix().coo;
    return {"a wide matrix", sorted_by_row(transposed(tall))};
}

// The timings, on a GPU: one table for all the matrices, which measures the copy bandwidth once.
class BytesTimer {
public:
    explicit BytesTimer(const KernelProgram& p) : p_(p) {}

    void time(const ExerciseMatrix& m, const HostCsr& a, double predicted) {
        if (!p_.on_gpu()) return;
        if (!table_)
            table_ = std::make_unique<TimingTable>(
                p_, "ex14_6", p_.options.skew,
                "bytes: your prediction; the arrays of a small matrix fit in the L2, so its time "
                "is the launch's and the caches', not DRAM's");
        DeviceCsr d(p_.here, a);
        DeviceArray<float> dx(p_.here, lesson_x(a.num_cols)), dy(p_.here, lesson_y0(a.num_rows));
        const double ms = table_->time("csr_thread_per_row", m.name + ": CSR, thread per row",
                                       predicted,
                                       [&] { launch_spmv_csr(p_.here, d, dx.data(), dy.data()); });
        std::printf("  with 143's byte model instead: %.0f GB/s\n",
                    gb_per_s(csr_spmv_bytes(a), ms));
    }

private:
    const KernelProgram& p_;
    std::unique_ptr<TimingTable> table_;
};

inline void check_prediction(const ExerciseMatrix& m, BytesTimer& timer, SelfCheck& check) {
    const HostCsr a = csr_for_lesson(m.coo);
    const double predicted = predicted_csr_thread_per_row_bytes(a), model = csr_spmv_bytes(a);
    std::printf("  bytes: predicted %.0f, 143's byte model %.0f\n", predicted, model);
    check.claim(m.name + ": the prediction equals 143's byte model", predicted == model);
    timer.time(m, a, predicted);
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_6_predict_bytes",
        "exercise 14.6: predict the bytes that 143's kernel moves, then measure",
        "Fig. 14.1, empty rows and a duplicate, an R-MAT matrix of 2^8 rows, a tall and a wide "
        "matrix, no nonzeros; on a GPU also an R-MAT matrix of 2^20 rows",
        {48, 100, 900e6});
    std::vector<ExerciseMatrix> matrices = exercise_matrices();
    matrices.push_back(tall_matrix());
    matrices.push_back(wide_matrix());
    matrices.push_back({"no nonzeros", coo_of(4, 4, {}, {}, {})});
    // Its arrays, about 200 MB, are several times an H200's L2, so its time is DRAM's.
    if (p.on_gpu())
        matrices.push_back(
            {"R-MAT scale 20",
             sorted_by_row(make_rmat(20, kEdgeFactor, kDefaultSkew, kMatrixSeed))});
    if (!p.on_gpu())
        std::printf("timing skipped: it needs a GPU (an emulated time says nothing about "
                    "memory)\n\n");
    BytesTimer timer(p);
    return run_spmv_exercise(p, matrices, csr_thread_per_row_spmv,
                             [&](const ExerciseMatrix& m, const std::vector<float>&,
                                 const std::vector<float>&, const std::vector<float>&,
                                 SelfCheck& check) { check_prediction(m, timer, check); });
}
