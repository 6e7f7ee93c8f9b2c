// What the tests hold the suite's row sort (sparse_host.h's sorted_by_row, a radix sort) to: the
// same entries put in order by the standard library's comparison sort, stable, on the row alone.
#pragma once
#include <algorithm>
#include <numeric>
#include <vector>
#include "../common/sparse_host.h"

inline HostCoo sorted_by_std_stable_sort(const HostCoo& a) {
    std::vector<size_t> order(a.nnz());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return a.rows[x] < a.rows[y]; });
    HostCoo s = a;
    for (size_t k = 0; k < order.size(); ++k) {
        s.rows[k] = a.rows[order[k]];
        s.cols[k] = a.cols[order[k]];
        s.values[k] = a.values[order[k]];
    }
    return s;
}
