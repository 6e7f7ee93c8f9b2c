// cuSPARSE, the library that the kernels are measured against: a checked-call macro, a handle
// that is destroyed with its scope, and the float SpMV that chapter 14's kernels are timed against.
// A build without the CUDA Toolkit has no cuSPARSE: it leaves all of this out, and so do the
// library routes that use it.
#pragma once
#ifdef __CUDACC__
#include <cusparse.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>
#include "cuda_support.cuh"
#include "self_check.h"
#include "sparse_host.h"

#define CUSPARSE_CHECK(call)                                                          \
    do {                                                                              \
        const cusparseStatus_t cusparse_check_status_ = (call);                       \
        if (cusparse_check_status_ == CUSPARSE_STATUS_ALLOC_FAILED)                   \
            report_device_out_of_memory(#call, 0);                                    \
        if (cusparse_check_status_ != CUSPARSE_STATUS_SUCCESS) {                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cusparseGetErrorString(cusparse_check_status_));             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

// cuSPARSE refuses a matrix descriptor that stores more entries than the matrix has places
// ("dimension mismatch"), which duplicates make possible, and is not asked about a matrix with
// no entries. The reason to skip the library's comparison then, or "" when it takes the matrix.
inline std::string cusparse_refusal(int64_t num_rows, int64_t num_cols, int64_t nnz) {
    if (nnz == 0) return "the matrix has no nonzeros";
    if (nnz <= num_rows * num_cols) return "";
    return "cuSPARSE refuses a matrix of " + std::to_string(num_rows) + " x " +
           std::to_string(num_cols) + " that stores " + std::to_string(nnz) +
           " entries (duplicates)";
}

class CusparseHandle {
public:
    CusparseHandle() { CUSPARSE_CHECK(cusparseCreate(&handle_)); }
    ~CusparseHandle() { cusparseDestroy(handle_); }
    CusparseHandle(const CusparseHandle&) = delete;
    CusparseHandle& operator=(const CusparseHandle&) = delete;
    operator cusparseHandle_t() const { return handle_; }

private:
    cusparseHandle_t handle_ = nullptr;
};

// y = A * x + beta * y by cuSPARSE's SpMV (CSR, alpha = 1; the default algorithm, or
// CUSPARSE_SPMV_CSR_ALG1 / ALG2), on device arrays that the caller owns. In float with beta = 1
// it is the same operation as the chapter's SpMV kernels; 113 takes it in double, with beta = 0.
template <class Value>
class CusparseSpmvOf {
public:
    CusparseSpmvOf(int num_rows, int num_cols, int64_t nnz, int* row_offsets, int* col_idx,
                   Value* values, Value* x, Value* y,
                   cusparseSpMVAlg_t algorithm = CUSPARSE_SPMV_ALG_DEFAULT, Value beta = 1)
        : algorithm_(algorithm), beta_(beta) {
        CUSPARSE_CHECK(cusparseCreateCsr(&matrix_, num_rows, num_cols, nnz, row_offsets, col_idx,
                                         values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, kType));
        CUSPARSE_CHECK(cusparseCreateDnVec(&x_, num_cols, x, kType));
        CUSPARSE_CHECK(cusparseCreateDnVec(&y_, num_rows, y, kType));
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne,
                                               matrix_, x_, &beta_, y_, kType, algorithm_,
                                               &bytes));
        workspace_ = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
    }
    ~CusparseSpmvOf() {
        cusparseDestroySpMat(matrix_);
        cusparseDestroyDnVec(x_);
        cusparseDestroyDnVec(y_);
    }
    CusparseSpmvOf(const CusparseSpmvOf&) = delete;
    CusparseSpmvOf& operator=(const CusparseSpmvOf&) = delete;

    void run() {
        CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne, matrix_, x_,
                                    &beta_, y_, kType, algorithm_, workspace_.data()));
    }

private:
    static constexpr Value kOne = 1;
    static constexpr cudaDataType kType = std::is_same_v<Value, double> ? CUDA_R_64F : CUDA_R_32F;
    cusparseSpMVAlg_t algorithm_;
    Value beta_;
    CusparseHandle handle_;
    DeviceBuffer<unsigned char> workspace_;
    cusparseSpMatDescr_t matrix_ = nullptr;
    cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
};

using CusparseSpmv = CusparseSpmvOf<float>;

// The library's SpMV on the caller's device arrays, run once, and the claim that the y it left
// is right (`y_is_right` reads it back and judges it). Where cuSPARSE refuses the matrix, the
// claim is skipped with the reason and the result is null: nothing to time.
template <class Judge>
std::unique_ptr<CusparseSpmv> cusparse_spmv_checked(SelfCheck& check, const std::string& claim,
                                                    int num_rows, int num_cols, int64_t nnz,
                                                    int* row_offsets, int* col_idx, float* values,
                                                    float* x, float* y, Judge&& y_is_right) {
    const std::string refused = cusparse_refusal(num_rows, num_cols, nnz);
    if (!refused.empty()) {
        check.skip(claim, refused);
        return nullptr;
    }
    auto library =
        std::make_unique<CusparseSpmv>(num_rows, num_cols, nnz, row_offsets, col_idx, values, x, y);
    library->run();
    check.claim(claim, y_is_right());
    return library;
}

// The same, on its own device copy of a host CSR, x and y.
class CusparseCsrSpmv {
public:
    CusparseCsrSpmv(const HostCsr& a, const std::vector<float>& x_host,
                    const std::vector<float>& y0)
        : row_offsets(a.row_offsets),
          col_idx(a.col_idx),
          values(a.values),
          x(x_host),
          y(y0),
          spmv_(a.num_rows, a.num_cols, static_cast<int64_t>(a.nnz()), row_offsets.data(),
                col_idx.data(), values.data(), x.data(), y.data()) {}

    void run() { spmv_.run(); }

    DeviceBuffer<int> row_offsets, col_idx;
    DeviceBuffer<float> values, x, y;

private:
    CusparseSpmv spmv_;
};
#endif  // __CUDACC__
