// What the machine-readable lines say about a matrix: the facts of the result: line that ends
// every --matrix and --scale run, and the graph: line that describes a generated input.
#pragma once
#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>
#include "sparse_host.h"

// The facts that the result: line reports.
struct MatrixFacts {
    int rows = 0, cols = 0;
    size_t nnz = 0;
    int empty_rows = 0, max_row = 0;
};

// Rows are counted in a per-row array when there are not many more rows than entries, and
// otherwise by sorting the entries' rows: either way the memory is proportional to the entries,
// so a matrix of 2^28 mostly empty rows costs no more to describe than its few entries.
inline MatrixFacts matrix_facts(const HostCoo& a) {
    MatrixFacts f;
    f.rows = a.num_rows;
    f.cols = a.num_cols;
    f.nnz = a.nnz();
    if (static_cast<size_t>(a.num_rows) <= 4 * a.nnz() + 64) {
        const std::vector<int> length = entries_per_row(a);
        int empty = 0, longest = 0;
#pragma omp parallel for reduction(+ : empty) reduction(max : longest) \
    if (a.num_rows >= static_cast<int>(kParallelSize))
        for (int r = 0; r < a.num_rows; ++r) {
            empty += length[r] == 0;
            longest = std::max(longest, length[r]);
        }
        f.empty_rows = empty;
        f.max_row = longest;
        return f;
    }
    std::vector<int> rows = a.rows;
    std::sort(rows.begin(), rows.end());
    int distinct = 0;
    for (size_t k = 0; k < rows.size();) {
        size_t end = k;
        while (end < rows.size() && rows[end] == rows[k]) ++end;
        ++distinct;
        f.max_row = std::max(f.max_row, static_cast<int>(end - k));
        k = end;
    }
    f.empty_rows = a.num_rows - distinct;
    return f;
}

// Where a matrix's entries lie, the facts that decide between the diagonal and the row formats:
// the mean row, the bandwidth (the largest |column - row|) and the number of distinct diagonals
// (column - row) that hold an entry. The diagonals are marked in a bitmap of rows + cols - 1 bits
// when that is not much larger than the entries, and otherwise counted by sorting them.
struct StructureFacts {
    double mean_row = 0;
    int64_t bandwidth = 0, diagonals = 0;
};

inline StructureFacts structure_facts(const HostCoo& a) {
    StructureFacts f;
    f.mean_row = a.num_rows > 0 ? static_cast<double>(a.nnz()) / a.num_rows : 0.0;
    const int64_t places = int64_t{a.num_rows} + a.num_cols - 1;
    auto offset = [&](size_t k) { return int64_t{a.cols[k]} - a.rows[k]; };
    int64_t bandwidth = 0;
    const long long n = static_cast<long long>(a.nnz());
#pragma omp parallel for reduction(max : bandwidth) if (a.nnz() >= kParallelSize)
    for (long long k = 0; k < n; ++k) bandwidth = std::max(bandwidth, std::abs(offset(k)));
    f.bandwidth = bandwidth;
    if (places <= static_cast<int64_t>(64 * a.nnz() + 64)) {
        const std::vector<uint64_t> held = places_marked(
            static_cast<size_t>(std::max<int64_t>(places, 0)), a.nnz(),
            [&](size_t k, auto set) { set(static_cast<size_t>(offset(k) + a.num_rows - 1)); });
        for (uint64_t word : held) f.diagonals += std::bitset<64>(word).count();
        return f;
    }
    std::vector<int64_t> offsets(a.nnz());
    for (size_t k = 0; k < a.nnz(); ++k) offsets[k] = offset(k);
    std::sort(offsets.begin(), offsets.end());
    f.diagonals = std::unique(offsets.begin(), offsets.end()) - offsets.begin();
    return f;
}

// The line that describes a generated --scale input for the sweep's CSV: how skewed its rows
// are, as the longest row, the share of empty rows and the coefficient of variation of the row
// lengths (standard deviation over mean). `rmat` is R-MAT's quadrants ("none" for a stencil),
// `matrix` the input's class (ProgramOptions::matrix_class), then the structure facts, after
// the fields that older lines have.
inline std::string graph_line(const HostCoo& a, int scale, const std::string& rmat,
                              const std::string& matrix) {
    const std::vector<int> length = entries_per_row(a);
    double sum = 0, squares = 0;
    int longest = 0, empty = 0;
    for (int n : length) {
        sum += n;
        squares += static_cast<double>(n) * n;
        longest = std::max(longest, n);
        empty += n == 0;
    }
    const double rows = std::max(1, a.num_rows), mean = sum / rows;
    const double cv = mean > 0 ? std::sqrt(std::max(0.0, squares / rows - mean * mean)) / mean : 0;
    const StructureFacts structure = structure_facts(a);
    char text[320];
    std::snprintf(text, sizeof text,
                  "graph: scale=%d rmat=%s rows=%d nnz=%zu max_row=%d empty_share=%.4f "
                  "degree_cv=%.4f matrix=%s mean_row=%.2f bandwidth=%lld diagonals=%lld",
                  scale, rmat.c_str(), a.num_rows, a.nnz(), longest, empty / rows, cv,
                  matrix.c_str(), structure.mean_row,
                  static_cast<long long>(structure.bandwidth),
                  static_cast<long long>(structure.diagonals));
    return text;
}

// The machine-readable last line of a program given --matrix.
inline std::string result_line(const HostCoo& a) {
    const MatrixFacts f = matrix_facts(a);
    return "result: rows=" + std::to_string(f.rows) + " cols=" + std::to_string(f.cols) +
           " nnz=" + std::to_string(f.nnz) + " empty_rows=" + std::to_string(f.empty_rows) +
           " max_row=" + std::to_string(f.max_row);
}
