// cuSPARSE, the library that the kernels are measured against: a checked-call macro and a
// handle that is destroyed with its scope.
#pragma once
#include <cusparse.h>
#include <cstdio>
#include <cstdlib>

#define CUSPARSE_CHECK(call)                                                               \
    do {                                                                                   \
        const cusparseStatus_t cusparse_check_status_ = (call);                            \
        if (cusparse_check_status_ != CUSPARSE_STATUS_SUCCESS) {                           \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                         cusparseGetErrorString(cusparse_check_status_));                  \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

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
