// The search at the heart of sorted-COO-to-CSR conversion (120, 121): where does row r begin?
// In row-sorted COO, row r's entries start at the first index whose row id is not below r,
// the lower bound of r. Rows with no entries get the same bound as the next row that has some,
// which is exactly the repeated offset that CSR uses for an empty row.
#pragma once

// The first index k in [0, n) with sorted_rows[k] >= row, or n if there is none.
// Binary search: about log2(n) reads, and no thread depends on another's result.
__host__ __device__ inline int lower_bound_index(const int* sorted_rows, int n, int row) {
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (sorted_rows[mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
