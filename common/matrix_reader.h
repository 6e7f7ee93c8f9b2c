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
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>
#include "options.h"
#include "sparse_host.h"

namespace matrix_reader_detail {

// The file split into lines, numbered from 1, without their "\n" or "\r\n". It views the
// text, which its owner keeps alive; a copy is a cheap second cursor.
class LineCursor {
public:
    LineCursor(std::string path, std::string_view text) : path_(std::move(path)), text_(text) {}

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        const size_t end = text_.find('\n', pos_);
        const size_t stop = end == std::string::npos ? text_.size() : end;
        line = text_.substr(pos_, stop - pos_);
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
    std::string path_;
    std::string_view text_;
    size_t pos_ = 0;
    int number_ = 0;
};

inline bool is_separator(char c) { return c == ' ' || c == '\t'; }

// Fields separated by runs of spaces and tabs.
inline std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_separator(line[i])) ++i;
        const size_t start = i;
        while (i < line.size() && !is_separator(line[i])) ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

// Edge-list fields: runs of spaces and tabs separate fields, and so does a comma, once. Two
// commas with nothing between them are an empty field, which is an error, not a separator.
inline bool split_edge_fields(std::string_view line, std::vector<std::string_view>& fields) {
    fields.clear();
    if (line.find(',') == std::string_view::npos) {
        fields = split_fields(line);
        return true;
    }
    size_t start = 0;
    for (;;) {
        const size_t comma = line.find(',', start);
        const std::string_view part =
            line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        const std::vector<std::string_view> inside = split_fields(part);
        if (inside.empty()) return false;
        fields.insert(fields.end(), inside.begin(), inside.end());
        if (comma == std::string_view::npos) return true;
        start = comma + 1;
    }
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

// from_chars takes a leading '-' but not a '+', which files do write; one sign, not two.
inline std::string_view without_plus(std::string_view field) {
    if (!field.empty() && field.front() == '+') {
        field.remove_prefix(1);
        if (field.empty() || field.front() == '+' || field.front() == '-') return {};
    }
    return field;
}

// Parses a whole field as a value that a float can hold. Returns what is wrong with it, or
// an empty string.
inline std::string value_problem(std::string_view field, bool integer, double& value) {
    const std::string_view digits = without_plus(field);
    const char* first = digits.data();
    const char* last = digits.data() + digits.size();
    std::from_chars_result parsed{first, std::errc::invalid_argument};
    if (integer) {
        long long whole = 0;
        if (!digits.empty()) parsed = std::from_chars(first, last, whole);
        value = static_cast<double>(whole);
    } else if (!digits.empty()) {
        parsed = std::from_chars(first, last, value);
    }
    const std::errc ec = parsed.ec;
    const char* end = parsed.ptr;
    if (ec == std::errc::result_out_of_range) return "is out of range";
    if (ec != std::errc() || end != digits.data() + digits.size())
        return integer ? "is not an integer" : "is not a number";
    if (!std::isfinite(value)) return "is not a finite number";
    if (std::fabs(value) > std::numeric_limits<float>::max()) return "is beyond the range of a float";
    return {};
}

inline std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// The fewest bytes one more entry line can take: two one-digit fields, a separator and a
// line end, so a declared count larger than the bytes left allow is a lie about the file.
constexpr size_t kMinBytesPerEntry = 4;

// Every program allocates per-row arrays, so a size line, which costs a few bytes to write, must
// not be able to ask for tens of gigabytes. 2^28 rows is beyond every matrix this suite is meant
// for and still fits the 32-bit indices.
constexpr uint64_t kMaxDimension = uint64_t{1} << 28;

// Matrix Market is chosen by content: the first line starts with %%MatrixMarket. A first line
// that is nearly that (one '%', leading blanks, blank lines before it) would otherwise be read
// as an edge list whose first "edge" is the size line, so it is refused instead.
inline bool announces_matrix_market(const LineCursor& start) {
    LineCursor look = start;
    std::string_view line;
    while (look.next(line)) {
        if (is_blank(line)) continue;
        const std::string lower = lowercase(line);
        if (look.line_number() == 1 && lower.rfind("%%matrixmarket", 0) == 0) return true;
        if (lower.find("matrixmarket") != std::string::npos && trim_left(lower).front() == '%')
            look.fail("bad banner: a Matrix Market file's first line must start with "
                      "'%%MatrixMarket'");
        return false;
    }
    return false;
}

inline HostCoo read_matrix_market(LineCursor& in) {
    std::string_view line;
    in.next(line);
    const std::vector<std::string_view> banner = split_fields(line);
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
        size = split_fields(line);
        break;
    }
    uint64_t num_rows = 0, num_cols = 0, declared = 0;
    if (size.size() != 3 || !parse_count(size[0], num_rows) || !parse_count(size[1], num_cols) ||
        !parse_count(size[2], declared))
        in.fail("bad size line: expected three non-negative integers 'rows cols entries'");
    if (num_rows > kMaxDimension || num_cols > kMaxDimension)
        in.fail("bad size line: " + std::to_string(num_rows) + " x " + std::to_string(num_cols) +
                " is beyond this suite's limit of " + std::to_string(kMaxDimension) +
                " rows or columns");
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
        const std::vector<std::string_view> f = split_fields(line);
        if (f.size() != fields_per_entry)
            in.fail("expected " + std::to_string(fields_per_entry) + " fields ('row col" +
                    (pattern ? "" : " value") + "'), found " + std::to_string(f.size()));
        uint64_t row = 0, col = 0;
        if (!parse_count(f[0], row) || row < 1 || row > num_rows)
            in.fail("row index " + quoted(f[0]) + " is not in [1, " + std::to_string(num_rows) + "]");
        if (!parse_count(f[1], col) || col < 1 || col > num_cols)
            in.fail("column index " + quoted(f[1]) + " is not in [1, " + std::to_string(num_cols) + "]");
        double value = 1.0;
        if (!pattern) {
            const std::string problem = value_problem(f[2], integer, value);
            if (!problem.empty()) in.fail("value " + quoted(f[2]) + " " + problem);
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
        std::vector<std::string_view> f;
        if (!split_edge_fields(line, f)) in.fail("empty field between commas");
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
            if (ids[k] >= kMaxDimension)
                in.fail("vertex id " + quoted(f[k]) + " is beyond this suite's limit of " +
                        std::to_string(kMaxDimension) + " vertices");
        }
        double weight = 1.0;
        if (f.size() == 3) {
            const std::string problem = value_problem(f[2], false, weight);
            if (!problem.empty()) in.fail("weight " + quoted(f[2]) + " " + problem);
        }
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
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) throw BadInput(path + ": is a folder, not a file");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw BadInput(path + ": cannot open the file: " + std::strerror(errno));
    std::ostringstream contents;
    contents << file.rdbuf();
    if (file.bad()) throw BadInput(path + ": cannot read the file");
    std::string text = contents.str();
    const std::string byte_order_mark = "\xEF\xBB\xBF";
    if (text.compare(0, byte_order_mark.size(), byte_order_mark) == 0) text.erase(0, byte_order_mark.size());
    matrix_reader_detail::LineCursor in(path, text);
    if (matrix_reader_detail::announces_matrix_market(in)) return matrix_reader_detail::read_matrix_market(in);
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
