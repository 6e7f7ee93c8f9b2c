#include "../common/cuda_support.cuh"
#include "gpu_probe.h"

bool gpu_for_tests(std::string& where) {
    const Backend b = detect_backend();
    where = b.gpu ? b.device_name + " (sm_" + std::to_string(b.sm) + ")" : b.reason;
    return b.gpu;
}
