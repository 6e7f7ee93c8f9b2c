// Exercise 14.3: the slot index of ELL stored column-major.
// ELL pads every row to `width` slots (the longest row's length) and keeps the num_rows * width
// slots in one array. The SpMV kernel runs one thread per row, and in step i each thread reads
// entry i of its row. Stored row by row, as the body below has it, the threads of a warp read
// slots `width` apart in each step; stored column by column, they read neighbouring slots, and
// the warp's loads coalesce (144 measures the difference). Write ell_slot for the
// column-major layout: entry i of every row first for i = 0, then for i = 1, and so on.
// Hint: print Fig. 14.1's slots for each step with the body below, then draw the 4 x 3 slot
// grid both ways; size_t keeps num_rows * width from overflowing an int.
// Build and run:  make exercises     (every exercise, one line each), or
//                 make ex14_3_ell_column_major && build/exercises/ex14_3_ell_column_major
// It is solved when every claim says confirmed; the reference is in solutions/ (try it first).
#include "harness/ex14_3_ell_column_major.h"

// TODO: the row-major slot, as it is; return the column-major one.
__host__ __device__ size_t ell_slot(int row, int i, int num_rows, int width) {
    return static_cast<size_t>(row) * width + i;
}
