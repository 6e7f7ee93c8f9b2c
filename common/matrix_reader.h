// Reads a sparse matrix or graph from a file into a HostCoo, strictly: every valid file is read
// as its format says, and every invalid one is refused with "FILE:LINE: problem" (a BadInput),
// never read halfway or guessed at.
//
// Matrix Market (chosen by content: the first line starts with %%MatrixMarket): coordinate
// files with real, integer or pattern values (pattern entries are 1) and general, symmetric or
// skew-symmetric symmetry. Symmetric files store one triangle; each off-diagonal entry is
// mirrored (negated for skew-symmetric). Indices are 1-based in the file, 0-based in memory.
// Explicit zeros and duplicate coordinates are stored entries and are kept as they are.
//
// Any other file is an edge list: "src dst" or "src dst weight" per line, separated by spaces,
// tabs or commas; lines starting with # or % are comments; ids are 0-based; the vertex count is
// the largest id plus one; the weight is 1 when absent.
#pragma once
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
#include "options.h"
#include "sparse_host.h"

namespace matrix_reader_detail {

// The file split into lines, numbered from 1, without their "\n" or "\r\n".
class LineCursor {
public:
    LineCursor(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        const size_t end = text_.find('\n', pos_);
        const size_t stop = end == std::string::npos ? text_.size() : end;
        line = std::string_view(text_).substr(pos_, stop - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = stop + 1;
        ++number_;
        return true;
    }

    size_t bytes_left() const { return pos_ >= text_.size() ? 0 : text_.size() - pos_; }
    int line_number() const { return number_; }

    [[noreturn]] void fail(const std::string& problem) const {
        throw BadInput(path_ + ":" + std::to_string(number_) + ": " + problem);
    }

private:
    std::string path_, text_;
    size_t pos_ = 0;
    int number_ = 0;
};

inline bool is_separator(char c, bool commas) {
    return c == ' ' || c == '\t' || (commas && c == ',');
}

inline std::vector<std::string_view> split_fields(std::string_view line, bool commas) {
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_separator(line[i], commas)) ++i;
        const size_t start = i;
        while (i < line.size() && !is_separator(line[i], commas)) ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

inline bool is_blank(std::string_view line) {
    for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    return true;
}

inline std::string_view trim_left(std::string_view line) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    return line;
}

inline std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A whole field as a non-negative integer, or false.
inline bool parse_count(std::string_view field, uint64_t& value) {
    if (field.empty() || field.front() == '-' || field.front() == '+') return false;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    return ec == std::errc() && end == field.data() + field.size();
}

// A whole field as a finite number, or false.
inline bool parse_number(std::string_view field, double& value) {
    if (!field.empty() && field.front() == '+') field.remove_prefix(1);
    if (field.empty() || field.front() == '+') return false;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    return ec == std::errc() && end == field.data() + field.size() && std::isfinite(value);
}

inline bool parse_integer(std::string_view field, long long& value) {
    if (!field.empty() && field.front() == '+') field.remove_prefix(1);
    if (field.empty() || field.front() == '+') return false;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    return ec == std::errc() && end == field.data() + field.size();
}

inline std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// The fewest bytes one more entry line can take: two one-digit fields, a separator and a
// line end, so a declared count larger than the bytes left allow is a lie about the file.
constexpr size_t kMinBytesPerEntry = 4;

inline HostCoo read_matrix_market(LineCursor& in) {
    std::string_view line;
    in.next(line);
    const std::vector<std::string_view> banner = split_fields(line, false);
    if (banner.size() != 5 || lowercase(banner[0]) != "%%matrixmarket")
        in.fail("bad banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    const std::string object = lowercase(banner[1]), format = lowercase(banner[2]);
    const std::string field = lowercase(banner[3]), symmetry = lowercase(banner[4]);
    if (object != "matrix") in.fail("bad banner: object " + quoted(banner[1]) + " is not 'matrix'");
    if (field == "complex" || symmetry == "hermitian") in.fail("complex values are not supported");
    if (format == "array")
        in.fail("dense 'array' files are not supported: only sparse 'coordinate' files are");
    if (format != "coordinate") in.fail("bad banner: unknown format " + quoted(banner[2]));
    if (field != "real" && field != "integer" && field != "pattern")
        in.fail("bad banner: unknown field " + quoted(banner[3]) +
                " (expected real, integer or pattern)");
    if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
        in.fail("bad banner: unknown symmetry " + quoted(banner[4]) +
                " (expected general, symmetric or skew-symmetric)");
    if (field == "pattern" && symmetry == "skew-symmetric")
        in.fail("bad banner: a pattern file cannot be skew-symmetric");
    const bool pattern = field == "pattern", integer = field == "integer";
    const bool mirrored = symmetry != "general", negate_mirror = symmetry == "skew-symmetric";

    std::vector<std::string_view> size;
    for (;;) {
        if (!in.next(line)) in.fail("the file ends before the size line");
        if (is_blank(line) || trim_left(line).front() == '%') continue;
        size = split_fields(line, false);
        break;
    }
    uint64_t num_rows = 0, num_cols = 0, declared = 0;
    if (size.size() != 3 || !parse_count(size[0], num_rows) || !parse_count(size[1], num_cols) ||
        !parse_count(size[2], declared))
        in.fail("bad size line: expected three non-negative integers 'rows cols entries'");
    const uint64_t max_dim = static_cast<uint64_t>(std::numeric_limits<int>::max());
    if (num_rows > max_dim || num_cols > max_dim)
        in.fail("bad size line: " + std::to_string(num_rows) + " x " + std::to_string(num_cols) +
                " is beyond the 32-bit index range");
    if (mirrored && num_rows != num_cols)
        in.fail("bad size line: a " + symmetry + " matrix must be square, not " +
                std::to_string(num_rows) + " x " + std::to_string(num_cols));
    const size_t room = in.bytes_left() / kMinBytesPerEntry + 1;
    if (declared > room)
        in.fail("the size line declares " + std::to_string(declared) +
                " entries, more than the rest of the file can hold (at most " +
                std::to_string(room) + ")");

    HostCoo a;
    a.num_rows = static_cast<int>(num_rows);
    a.num_cols = static_cast<int>(num_cols);
    const size_t expected = static_cast<size_t>(declared) * (mirrored ? 2 : 1);
    a.rows.reserve(expected);
    a.cols.reserve(expected);
    a.values.reserve(expected);
    const size_t fields_per_entry = pattern ? 2 : 3;
    uint64_t read = 0;
    while (in.next(line)) {
        if (is_blank(line) || trim_left(line).front() == '%') continue;
        if (read == declared)
            in.fail("more entries than the " + std::to_string(declared) + " that the size line declares");
        const std::vector<std::string_view> f = split_fields(line, false);
        if (f.size() != fields_per_entry)
            in.fail("expected " + std::to_string(fields_per_entry) + " fields ('row col" +
                    (pattern ? "" : " value") + "'), found " + std::to_string(f.size()));
        uint64_t row = 0, col = 0;
        if (!parse_count(f[0], row) || row < 1 || row > num_rows)
            in.fail("row index " + quoted(f[0]) + " is not in [1, " + std::to_string(num_rows) + "]");
        if (!parse_count(f[1], col) || col < 1 || col > num_cols)
            in.fail("column index " + quoted(f[1]) + " is not in [1, " + std::to_string(num_cols) + "]");
        double value = 1.0;
        if (integer) {
            long long whole = 0;
            if (!parse_integer(f[2], whole)) in.fail("value " + quoted(f[2]) + " is not an integer");
            value = static_cast<double>(whole);
        } else if (!pattern && !parse_number(f[2], value)) {
            in.fail("value " + quoted(f[2]) + " is not a finite number");
        }
        if (negate_mirror && row == col && value != 0)
            in.fail("a skew-symmetric matrix has zeros on its diagonal, but this entry is " +
                    std::string(f[2]));
        const int r = static_cast<int>(row - 1), c = static_cast<int>(col - 1);
        a.rows.push_back(r);
        a.cols.push_back(c);
        a.values.push_back(static_cast<float>(value));
        if (mirrored && r != c) {
            a.rows.push_back(c);
            a.cols.push_back(r);
            a.values.push_back(static_cast<float>(negate_mirror ? -value : value));
        }
        ++read;
    }
    if (read < declared)
        in.fail("the file ends after " + std::to_string(read) + " of the " +
                std::to_string(declared) + " declared entries");
    return a;
}

inline HostCoo read_edge_list(LineCursor& in) {
    constexpr uint64_t kMaxId = static_cast<uint64_t>(std::numeric_limits<int>::max()) - 1;
    HostCoo g;
    uint64_t largest = 0;
    bool any = false;
    std::string_view line;
    while (in.next(line)) {
        const std::string_view content = trim_left(line);
        if (content.empty() || content.front() == '#' || content.front() == '%') continue;
        const std::vector<std::string_view> f = split_fields(line, true);
        if (f.size() < 2 || f.size() > 3)
            in.fail("expected 'src dst' or 'src dst weight', found " + std::to_string(f.size()) +
                    " field(s)");
        uint64_t ids[2];
        for (int k = 0; k < 2; ++k) {
            if (!f[k].empty() && f[k].front() == '-')
                in.fail("vertex id " + quoted(f[k]) + " is negative");
            if (!parse_count(f[k], ids[k])) {
                const bool digits_only = f[k].find_first_not_of("0123456789") == std::string_view::npos;
                in.fail("vertex id " + quoted(f[k]) +
                        (digits_only ? " is beyond the 32-bit range" : " is not a whole number"));
            }
            if (ids[k] > kMaxId)
                in.fail("vertex id " + quoted(f[k]) + " is beyond the 32-bit range (at most " +
                        std::to_string(kMaxId) + ")");
        }
        double weight = 1.0;
        if (f.size() == 3 && !parse_number(f[2], weight))
            in.fail("weight " + quoted(f[2]) + " is not a finite number");
        g.rows.push_back(static_cast<int>(ids[0]));
        g.cols.push_back(static_cast<int>(ids[1]));
        g.values.push_back(static_cast<float>(weight));
        largest = std::max({largest, ids[0], ids[1]});
        any = true;
    }
    g.num_rows = g.num_cols = any ? static_cast<int>(largest + 1) : 0;
    return g;
}

}  // namespace matrix_reader_detail

// Reads a Matrix Market file or an edge list; throws BadInput("FILE:LINE: problem").
inline HostCoo read_matrix_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw BadInput(path + ": cannot open the file: " + std::strerror(errno));
    std::ostringstream contents;
    contents << file.rdbuf();
    if (file.bad()) throw BadInput(path + ": cannot read the file");
    std::string text = contents.str();
    const std::string start =
        matrix_reader_detail::lowercase(std::string_view(text).substr(0, std::strlen("%%MatrixMarket")));
    matrix_reader_detail::LineCursor in(path, std::move(text));
    if (start == "%%matrixmarket") return matrix_reader_detail::read_matrix_market(in);
    return matrix_reader_detail::read_edge_list(in);
}

// The facts that the result: line reports.
struct MatrixFacts {
    int rows = 0, cols = 0;
    size_t nnz = 0;
    int empty_rows = 0, max_row = 0;
};

inline MatrixFacts matrix_facts(const HostCoo& a) {
    MatrixFacts f;
    f.rows = a.num_rows;
    f.cols = a.num_cols;
    f.nnz = a.nnz();
    std::vector<int> length(a.num_rows, 0);
    for (int r : a.rows) ++length[r];
    for (int n : length) {
        f.empty_rows += n == 0;
        f.max_row = std::max(f.max_row, n);
    }
    return f;
}

// The machine-readable last line of a program given --matrix.
inline std::string result_line(const HostCoo& a) {
    const MatrixFacts f = matrix_facts(a);
    return "result: rows=" + std::to_string(f.rows) + " cols=" + std::to_string(f.cols) +
           " nnz=" + std::to_string(f.nnz) + " empty_rows=" + std::to_string(f.empty_rows) +
           " max_row=" + std::to_string(f.max_row);
}
