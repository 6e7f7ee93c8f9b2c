// What the machine-readable lines say about a matrix: the facts of the result: line that ends
// every --matrix and --scale run, and the graph: line that describes a generated input.
#pragma once
#include <algorithm>
#include <cmath>
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
        std::vector<int> length(a.num_rows, 0);
        for (int r : a.rows) ++length[r];
        for (int n : length) {
            f.empty_rows += n == 0;
            f.max_row = std::max(f.max_row, n);
        }
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

// The line that describes a generated --scale input for the sweep's CSV: how skewed its rows
// are, as the longest row, the share of empty rows and the coefficient of variation of the row
// lengths (standard deviation over mean). `rmat` is R-MAT's quadrants ("none" for a stencil),
// `matrix` the input's class (ProgramOptions::matrix_class), last as on the timing: line.
inline std::string graph_line(const HostCoo& a, int scale, const std::string& rmat,
                              const std::string& matrix) {
    std::vector<int> length(a.num_rows, 0);
    for (int r : a.rows) ++length[r];
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
    char text[256];
    std::snprintf(text, sizeof text,
                  "graph: scale=%d rmat=%s rows=%d nnz=%zu max_row=%d empty_share=%.4f "
                  "degree_cv=%.4f matrix=%s",
                  scale, rmat.c_str(), a.num_rows, a.nnz(), longest, empty / rows, cv,
                  matrix.c_str());
    return text;
}

// The machine-readable last line of a program given --matrix.
inline std::string result_line(const HostCoo& a) {
    const MatrixFacts f = matrix_facts(a);
    return "result: rows=" + std::to_string(f.rows) + " cols=" + std::to_string(f.cols) +
           " nnz=" + std::to_string(f.nnz) + " empty_rows=" + std::to_string(f.empty_rows) +
           " max_row=" + std::to_string(f.max_row);
}
