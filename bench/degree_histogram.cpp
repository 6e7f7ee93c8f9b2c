// The row lengths (out-degrees) of an input, counted: how many rows have each length. make
// figures draws them log-log for the sweep's graphs, from the generator that the programs use:
// chapter 14's R-MAT input (spmv_input, its seed and common/graph_generators.h), at a scale small
// enough to generate in seconds. A tool beside the sweep, not a lesson.
//
// Build and run:  make build/degree_histogram
//                 build/degree_histogram --scale 16 --skew 0.8 --figure-data degrees.json
#include <map>
#include <string>
#include <vector>
#include "../ch14_spmv/chapter_inputs.h"
#include "../common/figure_data.h"

inline ProgramDescription degree_histogram_tool() {
    return ProgramDescription("degree histogram: how many rows have each length (out-degree)",
                              {"make build/degree_histogram",
                               "build/degree_histogram --scale 16 --skew 0.8 --figure-data "
                               "degrees.json"})
        .with_book_input("the 4 x 4 matrix of Fig. 14.1")
        .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries, chapter 14's")
        .with_figure_data("the input, then each row length with its count of rows",
                          FigureInput::any);
}

// Row length -> rows of that length, in increasing length.
inline std::map<int, long long> rows_by_length(const HostCoo& a) {
    std::vector<int> length(a.num_rows, 0);
    for (int r : a.rows) ++length[r];
    std::map<int, long long> rows;
    for (int n : length) ++rows[n];
    return rows;
}

inline void write_degree_figure(const ProgramOptions& options, const HostCoo& a,
                                const std::map<int, long long>& rows) {
    if (!wants_figure_data(options)) return;
    const bool rmat = options.matrix_class() == "rmat";
    std::vector<int> lengths;
    std::vector<long long> counts;
    for (const auto& [length, count] : rows) {
        lengths.push_back(length);
        counts.push_back(count);
    }
    JsonWriter figure = begin_figure_data(options, "degree_histogram");
    figure.field("scale", options.scale).field("rmat", rmat ? options.rmat.text() : "");
    figure.field("seed", rmat ? kMatrixSeed : 0).field("rows", a.num_rows);
    figure.field("entries", a.nnz()).field("row_length", lengths).field("rows_of_length", counts);
    write_figure_data(options, figure);
}

inline void show_lengths(const HostCoo& a, const std::map<int, long long>& rows) {
    if (rows.empty()) return print_wrapped("the input has no rows");
    const long long empty = rows.begin()->first == 0 ? rows.begin()->second : 0;
    print_wrapped(counted(rows.size(), "distinct row length") + ", from " +
                  std::to_string(rows.begin()->first) + " to " +
                  with_separators(rows.rbegin()->first) + "; " + with_separators(empty) + " of " +
                  counted(a.num_rows, "row") + " empty");
}

int main(int argc, char** argv) {
    const ProgramOptions options = start_cpu_program(argc, argv, degree_histogram_tool());
    const HostCoo a = spmv_input(options);
    const std::map<int, long long> rows = rows_by_length(a);
    show_lengths(a, rows);
    write_degree_figure(options, a, rows);
    return 0;
}
