// The chapter's one upload, launch and download, for any of its kernels: x and y0 copied where
// the kernels run (see common/here.cuh), the launch run `runs` times on them (each launch on the
// same y adds A * x once more), and y copied back. The lessons' launches take a device format,
// x and y; a launch that needs more (a group size, scratch arrays) is wrapped in a lambda.
#pragma once
#include <vector>
#include "../common/device_formats.cuh"

template <class Launch>
std::vector<float> spmv_on_device(const Here& here, const std::vector<float>& x,
                                  const std::vector<float>& y0, Launch&& launch, int runs = 1) {
    DeviceArray<float> dx(here, x), dy(here, y0);
    for (int i = 0; i < runs; ++i) launch(dx.data(), dy.data());
    return dy.download();
}

// The same for a launch of the lessons' shape, launch(here, format, x, y): the host format `a`
// copied where the kernels run first, as the launch's device format.
template <class Device, class Host>
std::vector<float> spmv_on_device(const Here& here,
                                  void (*launch)(const Here&, Device&, const float*, float*),
                                  const Host& a, const std::vector<float>& x,
                                  const std::vector<float>& y0, int runs = 1) {
    Device d(here, a);
    return spmv_on_device(
        here, x, y0, [&](const float* dx, float* dy) { launch(here, d, dx, dy); }, runs);
}
