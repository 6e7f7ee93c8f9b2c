// The chapter's one upload, launch and download, for any of its kernels: x and y0 copied where
// the kernels run (see common/here.cuh), the launch run `runs` times on them (each run adds
// A * x once more), and y copied back. A launch that needs more than a device format, x and y
// (a group size, scratch arrays) is wrapped in a lambda.
#pragma once
#include <string>
#include <vector>
#include "../common/device_formats.cuh"

template <class Launch>
std::vector<float> spmv_on_device(const Here& here, const std::vector<float>& x,
                                  const std::vector<float>& y0, Launch&& launch, int runs = 1) {
    DeviceArray<float> dx(here, x), dy(here, y0);
    for (int i = 0; i < runs; ++i) launch(dx.data(), dy.data());
    return dy.download();
}

// The same for a launch of the lessons' shape, launch(here, format, x, y), on the host format a.
template <class Device, class Host>
std::vector<float> spmv_on_device(const Here& here,
                                  void (*launch)(const Here&, Device&, const float*, float*),
                                  const Host& a, const std::vector<float>& x,
                                  const std::vector<float>& y0, int runs = 1) {
    Device d(here, a);
    return spmv_on_device(
        here, x, y0, [&](const float* dx, float* dy) { launch(here, d, dx, dy); }, runs);
}

// A kernel's y and its CPU baseline's; `not_built` says why a kernel not built has neither.
struct SpmvRun {
    std::string kernel;
    std::vector<float> y, y_cpu;
    std::string not_built;
};

template <class Device, class Host>
SpmvRun spmv_run(const Here& here, const std::string& kernel,
                 void (*launch)(const Here&, Device&, const float*, float*),
                 void (*cpu)(const Host&, const std::vector<float>&, std::vector<float>&),
                 const Host& a, const std::vector<float>& x, const std::vector<float>& y0) {
    SpmvRun run{kernel, spmv_on_device(here, launch, a, x, y0), y0, ""};
    cpu(a, x, run.y_cpu);
    return run;
}
