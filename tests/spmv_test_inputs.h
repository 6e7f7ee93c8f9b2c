// Inputs that the SpMV tests share: a y0 that is not all zeros (so that "+ y" is exercised) and
// Fig. 14.1's product worked out from its dense rows, independently of any sparse format.
#pragma once
#include <vector>
#include "../ch14_spmv/chapter_inputs.h"
#include "../common/sparse_host.h"

inline std::vector<float> varied_y0(int n) {
    std::vector<float> y(n);
    for (int i = 0; i < n; ++i) y[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    return y;
}

inline std::vector<float> book_product(const std::vector<float>& x, const std::vector<float>& y0) {
    const float dense[4][4] = {{1, 7, 0, 0}, {5, 0, 3, 9}, {0, 2, 8, 0}, {0, 0, 0, 6}};
    std::vector<float> y = y0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) y[r] += dense[r][c] * x[c];
    return y;
}

// What an SpMV test needs of one input: its CSR (rows in input order), the chapter's x and y0,
// and the double reference that every kernel's y is judged by. Unpacked with
//   const auto [csr, x, y0, reference] = spmv_case(input);
struct SpmvCase {
    HostCsr csr;
    std::vector<float> x, y0;
    SpmvReference reference;
};

inline SpmvCase spmv_case(const HostCoo& input) {
    SpmvCase c{csr_from_coo_by_stable_sort(input),
               lesson_x(input.num_cols),
               lesson_y0(input.num_rows),
               {}};
    c.reference = spmv_reference(input, c.x, c.y0);
    return c;
}
