// Exercise 14.5's harness: the diagonal search of ex14_5_merge_path_search.cu, run for every
// diagonal of each matrix's merge path (one thread per diagonal) and held against a walk of the
// whole path on the host, which finds each split by taking the steps one by one, without a
// search. Then a merge-path SpMV whose threads start and stop where the search says is held
// against the chapter's reference. The SpMV runs only if every split lies inside the path's grid,
// so that a wrong search gives a MISMATCH, not a read past the arrays.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
// The suite's binary search, for the exercise's body to use if it likes.
#include "../../../common/binary_search.h"
#include "../../../common/device_formats.cuh"
#include "spmv_exercise.h"

// Where a diagonal crosses the merge path: on diagonal d, rows + nonzeros == d.
struct PathSplit {
    int rows;      // the row ends taken before the diagonal: the row that the path is in
    int nonzeros;  // the nonzeros taken before it: the next nonzero to multiply
};

// The exercise: the split of diagonal `diagonal`, 0 .. num_rows + nnz, of the merge path of the
// row ends row_offsets[1 .. num_rows] and the nonzero indices 0 .. nnz - 1 (148's lesson). Row
// end i is taken before nonzero j when row_offsets[i + 1] <= j: row i has no entries from j on.
__host__ __device__ PathSplit merge_path_split(int diagonal, const int* row_offsets, int num_rows,
                                               int nnz);

// Steps of the path per SpMV thread: few, so that even Fig. 14.1's 12 steps are split between
// three threads, and many splits fall inside a row.
constexpr int kStepsPerSplitThread = 4;

__host__ __device__ inline void split_diagonal_thread(int d, const int* row_offsets, int num_rows,
                                                      int nnz, int* split_rows,
                                                      int* split_nonzeros) {
    const PathSplit split = merge_path_split(d, row_offsets, num_rows, nnz);
    split_rows[d] = split.rows;
    split_nonzeros[d] = split.nonzeros;
}

__global__ void split_diagonal_kernel(int num_diagonals, const int* row_offsets, int num_rows,
                                      int nnz, int* split_rows, int* split_nonzeros) {
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d < num_diagonals)
        split_diagonal_thread(d, row_offsets, num_rows, nnz, split_rows, split_nonzeros);
}

// Thread t owns the diagonals [t K, (t + 1) K): between the splits at its two ends lie the rows
// first.rows .. last.rows and the nonzeros first.nonzeros .. last.nonzeros - 1, and each of those
// rows gets the products of its own nonzeros among them. Unlike 148's walk, this one never asks
// which step comes next. A row's other nonzeros may belong to the threads on either side, so the
// sum goes into y by an atomic. Every loop stays inside the arrays for any split in the grid.
__host__ __device__ inline void spmv_between_splits_thread(int t, const int* row_offsets,
                                                           const int* col_idx, const float* values,
                                                           const float* x, float* y, int num_rows,
                                                           int nnz) {
    const int path = num_rows + nnz, begin = t * kStepsPerSplitThread;
    const int end = begin + kStepsPerSplitThread < path ? begin + kStepsPerSplitThread : path;
    const PathSplit first = merge_path_split(begin, row_offsets, num_rows, nnz);
    const PathSplit last = merge_path_split(end, row_offsets, num_rows, nnz);
    for (int row = first.rows; row <= last.rows && row < num_rows; ++row) {
        const int from = first.nonzeros > row_offsets[row] ? first.nonzeros : row_offsets[row];
        const int to = last.nonzeros < row_offsets[row + 1] ? last.nonzeros : row_offsets[row + 1];
        if (from >= to) continue;
        float sum = 0.0f;
        for (int k = from; k < to; ++k) sum += values[k] * x[col_idx[k]];
        atomic_add_shim(&y[row], sum);
    }
}

__global__ void spmv_between_splits_kernel(int num_threads, const int* row_offsets,
                                           const int* col_idx, const float* values, const float* x,
                                           float* y, int num_rows, int nnz) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads)
        spmv_between_splits_thread(t, row_offsets, col_idx, values, x, y, num_rows, nnz);
}

struct PathSplits {
    std::vector<int> rows, nonzeros;  // diagonal d's split is (rows[d], nonzeros[d])
};

inline int path_length(const HostCsr& a) { return a.num_rows + static_cast<int>(a.nnz()); }

// The exercise's split of every diagonal, 0 .. num_rows + nnz.
inline PathSplits searched_splits(const Here& here, const HostCsr& a) {
    const size_t diagonals = static_cast<size_t>(path_length(a)) + 1;
    const DeviceArray<int> row_offsets(here, a.row_offsets);
    DeviceArray<int> rows(here, diagonals), nonzeros(here, diagonals);
    here.launch(blocks_for(diagonals), kThreadsPerBlock, split_diagonal_kernel,
                split_diagonal_thread, diagonals, row_offsets.data(), a.num_rows,
                static_cast<int>(a.nnz()), rows.data(), nonzeros.data());
    return {rows.download(), nonzeros.download()};
}

// The merge itself, one step at a time from (0, 0): the next nonzero while the current row has
// one left, else the row's end. Row i's last step is its end, so the walk stays at i < num_rows.
inline PathSplits walked_splits(const HostCsr& a) {
    PathSplits walked{{0}, {0}};
    int i = 0, j = 0;
    for (int d = 1; d <= path_length(a); ++d) {
        if (j < a.row_offsets[i + 1])
            ++j;
        else
            ++i;
        walked.rows.push_back(i);
        walked.nonzeros.push_back(j);
    }
    return walked;
}

inline bool splits_inside_grid(const HostCsr& a, const PathSplits& s) {
    for (size_t d = 0; d < s.rows.size(); ++d)
        if (s.rows[d] < 0 || s.rows[d] > a.num_rows || s.nonzeros[d] < 0 ||
            static_cast<size_t>(s.nonzeros[d]) > a.nnz())
            return false;
    return true;
}

inline std::vector<float> merge_path_split_spmv(const Here& here, const HostCoo& coo,
                                                const std::vector<float>& x,
                                                const std::vector<float>& y0) {
    const HostCsr a = csr_for_lesson(coo);
    if (!splits_inside_grid(a, searched_splits(here, a))) {
        std::printf("  the SpMV is not run: some split lies outside the grid of %d rows and %zu "
                    "nonzeros\n",
                    a.num_rows, a.nnz());
        return std::vector<float>(y0.size(), std::nanf(""));
    }
    DeviceCsr d(here, a);
    const DeviceArray<float> dx(here, x);
    DeviceArray<float> dy(here, y0);
    here.launch(blocks_for(blocks_for(path_length(a), kStepsPerSplitThread)), kThreadsPerBlock,
                spmv_between_splits_kernel, spmv_between_splits_thread,
                blocks_for(path_length(a), kStepsPerSplitThread), d.row_offsets.data(),
                d.col_idx.data(), d.values.data(), dx.data(), dy.data(), a.num_rows, d.nnz());
    return dy.download();
}

inline void check_splits(const KernelProgram& p, const ExerciseMatrix& m, SelfCheck& check) {
    const HostCsr a = csr_for_lesson(m.coo);
    const PathSplits searched = searched_splits(p.here, a), walked = walked_splits(a);
    if (printable(a)) {
        print_array("row_offsets", a.row_offsets, 18);
        print_array("rows, searched", searched.rows, 18);
        print_array("rows, walked", walked.rows, 18);
        print_array("nonzeros, searched", searched.nonzeros, 18);
        print_array("nonzeros, walked", walked.nonzeros, 18);
    }
    bool on_diagonal = true;
    for (size_t d = 0; d < searched.rows.size(); ++d)
        on_diagonal = on_diagonal && searched.rows[d] + searched.nonzeros[d] == static_cast<int>(d);
    const std::string diagonals = counted(searched.rows.size(), "diagonal");
    check.claim(m.name + ": on each of the " + diagonals + ", rows + nonzeros is the diagonal",
                on_diagonal);
    check.claim(m.name + ": each split is where the walk of the path crosses that diagonal",
                searched.rows == walked.rows && searched.nonzeros == walked.nonzeros);
}

// A 5 x 60 matrix whose row 2 holds 60 entries, many threads' worth; rows 1 and 3 are empty.
inline ExerciseMatrix one_long_row() {
    std::vector<int> rows = {0}, cols = {7};
    std::vector<float> values = {2};
    for (int c = 0; c < 60; ++c) {
        rows.push_back(2);
        cols.push_back(c);
        values.push_back(static_cast<float>(1 + c % 5));
    }
    rows.push_back(4);
    cols.push_back(59);
    values.push_back(3);
    return {"one long row", coo_of(5, 60, rows, cols, values)};
}

int main(int argc, char** argv) {
    const KernelProgram p = start_spmv_exercise(
        argc, argv, "ex14_5_merge_path_search",
        "exercise 14.5: a thread's diagonal search in the merge path",
        "Fig. 14.1, empty rows and a duplicate, an R-MAT matrix of 2^8 rows, one long row, no "
        "nonzeros",
        {48, 100, 900e6});
    std::vector<ExerciseMatrix> matrices = exercise_matrices();
    matrices.push_back(one_long_row());
    matrices.push_back({"no nonzeros", coo_of(4, 4, {}, {}, {})});
    return run_spmv_exercise(p, matrices, merge_path_split_spmv,
                             [&](const ExerciseMatrix& m, const std::vector<float>&,
                                 const std::vector<float>&, const std::vector<float>&,
                                 SelfCheck& check) { check_splits(p, m, check); });
}
