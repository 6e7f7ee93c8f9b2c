// Reads a sparse matrix or graph from a file into a HostCoo, strictly: every valid file is read
// as its format says, and every invalid one is refused with "FILE:LINE: problem" (a BadInput),
// never read halfway or guessed at.
//
// Matrix Market: coordinate files with real, integer or pattern values (pattern entries are 1)
// and general, symmetric or skew-symmetric symmetry. A symmetric file stores one triangle; each
// off-diagonal entry is mirrored (negated for skew-symmetric), and a file with entries on both
// sides of the diagonal is refused. Indices are 1-based in the file, 0-based in memory.
// Explicit zeros and duplicate coordinates are stored entries and are kept as they are. A
// nonzero value too small for a float is stored as 0 and counted (TinyValues), so that the
// program can say so once per file.
//
// Edge lists: "src dst" or "src dst weight" per line, separated by spaces, tabs or commas;
// lines starting with # or % are comments; ids are 0-based; the vertex count is the largest id
// plus one; the weight is 1 when absent.
//
// Which of the two a file is: a first line that starts with "%%" makes it Matrix Market, and
// must then be a correct banner; a file named *.mtx must start with the banner; any other file
// is an edge list, in which a "%%" line is refused. Empty, compressed and non-regular files
// (FIFOs, devices) are refused, and no line may be longer than 1 MiB.
#pragma once
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>
#include "from_chars.h"
#include "matrix_facts.h"
#include "memory_budget.h"
#include "options.h"
#include "sparse_host.h"

// The values of one file that are nonzero but that a float holds as 0. They are stored as 0 and
// their entries kept, as SciPy reads them, rather than refused: real matrices (SuiteSparse's
// bayer10, adder_dcop_05) hold such couplings. `count` counts the values that the file writes,
// not the stored entries: a symmetric file's mirrored copy is not counted again.
struct TinyValues {
    uint64_t count = 0;
    int first_line = 0;
    long double first_value = 0;
};

// The one line that a program prints on stderr about a file's tiny values, or "" when it has
// none.
inline std::string tiny_values_note(const std::string& path, const TinyValues& tiny) {
    if (tiny.count == 0) return "";
    char value[32];
    std::snprintf(value, sizeof value, "%.3Lg", tiny.first_value);
    const std::string place = "line " + std::to_string(tiny.first_line) + ": " + value + ")";
    if (tiny.count == 1)
        return "note: " + path + ": 1 value is too small for a float and is stored as 0 (at " +
               place;
    return "note: " + path + ": " + std::to_string(tiny.count) +
           " values are too small for a float and are stored as 0 (the first at " + place;
}

namespace matrix_reader_detail {

// No line of a matrix file is anywhere near this long; a longer one means the file is not a
// matrix file (a binary, /dev/zero), and reading on would only fill the memory.
constexpr size_t kMaxLineBytes = size_t{1} << 20;

inline bool is_line_end(char c) {
    return c == '\n' || c == '\r';
}

// The lines of a stream, numbered from 1, without their line ends, read a block at a time: the
// file is never held whole, and no line may pass kMaxLineBytes. A line ends at "\n", at "\r\n" or
// at a lone "\r" (classic Mac OS), in any mixture, so that every line number is the one an editor
// shows; "\r\r\n" is a lone "\r" and then a "\r\n", with a blank line between them. `total_bytes`
// is the stream's length, which tells how many entries the rest of it can still hold.
class LineReader {
public:
    LineReader(std::string path, std::istream& in, uint64_t total_bytes)
        : path_(std::move(path)), in_(in), total_bytes_(total_bytes), block_(size_t{1} << 16) {}

    bool next(std::string_view& line) {
        if (replay_) {
            replay_ = false;
            ++number_;
            line = line_;
            return true;
        }
        line_.clear();
        bool any = false;
        for (;;) {
            if (block_pos_ == block_len_ && !refill()) {
                if (!any) return false;
                break;
            }
            if (lf_may_follow_) {
                lf_may_follow_ = false;
                if (block_[block_pos_] == '\n') {
                    consume(1);
                    continue;
                }
            }
            any = true;
            const char* start = block_.data() + block_pos_;
            const size_t available = block_len_ - block_pos_;
            const size_t take =
                static_cast<size_t>(std::find_if(start, start + available, is_line_end) - start);
            if (line_.size() + take > kMaxLineBytes)
                fail_at(number_ + 1, "the line is longer than " + std::to_string(kMaxLineBytes) +
                                         " bytes: this is not a text matrix file");
            line_.append(start, take);
            consume(take);
            if (take < available) {
                lf_may_follow_ = start[take] == '\r';
                consume(1);
                // The '\n' of a "\r\n" is taken now when it is in this block, so that
                // bytes_left() counts only what lies beyond the line; one that the block's end
                // split from its '\r' is taken by the next call.
                if (lf_may_follow_ && block_pos_ < block_len_) {
                    lf_may_follow_ = false;
                    if (block_[block_pos_] == '\n') consume(1);
                }
                break;
            }
        }
        if (number_ == 0 && line_.compare(0, 3, "\xEF\xBB\xBF") == 0) line_.erase(0, 3);
        ++number_;
        line = line_;
        return true;
    }

    // The next call of next() gives the same line again.
    void unread() {
        replay_ = true;
        --number_;
    }

    uint64_t bytes_left() const { return total_bytes_ > consumed_ ? total_bytes_ - consumed_ : 0; }
    int line_number() const { return number_; }
    const std::string& path() const { return path_; }

    [[noreturn]] void fail(const std::string& problem) const { fail_at(number_, problem); }
    [[noreturn]] void fail_at(int line, const std::string& problem) const {
        throw BadInput(path_ + ":" + std::to_string(line) + ": " + problem);
    }

private:
    void consume(size_t bytes) {
        block_pos_ += bytes;
        consumed_ += bytes;
    }

    bool refill() {
        in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
        block_len_ = static_cast<size_t>(in_.gcount());
        block_pos_ = 0;
        if (in_.bad()) throw BadInput(path_ + ": cannot read the file");
        return block_len_ > 0;
    }

    std::string path_;
    std::istream& in_;
    uint64_t total_bytes_;
    uint64_t consumed_ = 0;
    std::vector<char> block_;
    size_t block_pos_ = 0, block_len_ = 0;
    std::string line_;
    bool replay_ = false;
    // The last line ended at a '\r' that was the block's last byte: a '\n' that starts the next
    // block belongs to that line end.
    bool lf_may_follow_ = false;
    int number_ = 0;
};

inline bool is_separator(char c) {
    return c == ' ' || c == '\t';
}

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
        const std::string_view part = line.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
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
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
        line.remove_prefix(1);
    return line;
}

inline std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
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

// Values up to here round to the largest float (3.4028235e38, as it is usually printed, is a
// little above FLT_MAX itself): FLT_MAX plus half of its last place, 2^103.
inline double largest_float_rounding_down() {
    return static_cast<double>(std::numeric_limits<float>::max()) + std::ldexp(1.0, 103);
}

// Parses a whole field as a value that a float can hold, or that a float holds as 0. Returns
// what is wrong with it, or an empty string. `value` is a long double so that a value beyond a
// double's range stays what it is: 1e-400 is too small for a float, like 1e-50, and 1e400 is
// beyond a float's range, like 1e39.
inline std::string value_problem(std::string_view field, bool integer, long double& value) {
    const std::string_view digits = without_plus(field);
    const char* first = digits.data();
    const char* last = digits.data() + digits.size();
    std::from_chars_result parsed{first, std::errc::invalid_argument};
    if (integer) {
        long long whole = 0;
        if (!digits.empty()) parsed = std::from_chars(first, last, whole);
        value = whole;
    } else if (!digits.empty()) {
        // A double holds every value that a file is likely to write, and parses much faster
        // than a long double, which is for the rest.
        double nearest = 0;
        parsed = floating_from_chars(first, last, nearest);
        value = nearest;
        if (parsed.ec == std::errc::result_out_of_range)
            parsed = floating_from_chars(first, last, value);
    }
    const std::errc ec = parsed.ec;
    const char* end = parsed.ptr;
    if (ec == std::errc::result_out_of_range) return "is out of range";
    if (ec != std::errc() || end != digits.data() + digits.size())
        return integer ? "is not an integer" : "is not a number";
    if (!std::isfinite(value)) return "is not a finite number";
    if (!(std::fabs(value) < largest_float_rounding_down()))
        return "is beyond the range of a float";
    return {};
}

// Counts the value of the line just read when a float holds it as 0 although it is not 0.
inline void count_if_tiny(TinyValues& tiny, const LineReader& in, long double value) {
    if (value == 0 || static_cast<float>(value) != 0.0f) return;
    if (tiny.count == 0) {
        tiny.first_line = in.line_number();
        tiny.first_value = value;
    }
    ++tiny.count;
}

// A field as a message shows it: at most 40 characters, with anything unprintable (a NUL, a
// form feed, a byte of a binary file) written as \xNN, so that the message is one readable line.
inline std::string quoted(std::string_view s) {
    constexpr size_t kShown = 40;
    std::string out = "'";
    for (size_t i = 0; i < s.size() && i < kShown; ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        }
    }
    out += "'";
    if (s.size() > kShown) out += " (" + std::to_string(s.size()) + " characters in all)";
    return out;
}

// The fewest bytes one more entry line can take: two one-digit fields, a separator and a
// line end, so a declared count larger than the bytes left allow is a lie about the file.
constexpr size_t kMinBytesPerEntry = 4;

// 2^28 rows is beyond every matrix this suite is meant for and still fits the 32-bit indices.
// What a program may allocate for an input is decided by its memory budget (memory_budget.h).
constexpr uint64_t kMaxDimension = uint64_t{1} << 28;

// The program's memory model and budget, checked as soon as the input's size is known, before
// anything is allocated for it. Without limits (tests of the reader itself) nothing is checked.
struct InputLimits {
    MemoryModel model;
    MemoryBudget budget;
    RowLimit row_limit;
};

inline void check_limits(const InputLimits* limits, const LineReader& in, int line, uint64_t rows,
                         uint64_t cols, uint64_t entries) {
    if (limits == nullptr) return;
    const std::string too_many_rows = row_limit_problem(limits->row_limit, rows);
    if (!too_many_rows.empty()) in.fail_at(line, too_many_rows);
    const std::string problem =
        over_budget_problem(limits->model, limits->budget, rows, cols, entries);
    if (!problem.empty()) in.fail_at(line, problem);
}

constexpr const char* kBannerForm = "'%%MatrixMarket matrix coordinate <field> <symmetry>'";

// Which side of the diagonal a symmetric file's entry lies on.
enum class Triangle { none, lower, upper };

inline HostCoo read_matrix_market(LineReader& in, const InputLimits* limits, TinyValues& tiny) {
    std::string_view line;
    in.next(line);
    const std::vector<std::string_view> banner = split_fields(line);
    if (banner.size() != 5 || lowercase(banner[0]) != "%%matrixmarket")
        in.fail(std::string("bad banner: a first line that starts with '%%' must be a Matrix "
                            "Market banner, ") +
                kBannerForm);
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
    const uint64_t room = in.bytes_left() / kMinBytesPerEntry + 1;
    if (declared > room)
        in.fail("the size line declares " + std::to_string(declared) +
                " entries, more than the rest of the file can hold (at most " +
                std::to_string(room) + ")");
    const size_t expected = static_cast<size_t>(declared) * (mirrored ? 2 : 1);
    check_limits(limits, in, in.line_number(), num_rows, num_cols, expected);

    HostCoo a;
    a.num_rows = static_cast<int>(num_rows);
    a.num_cols = static_cast<int>(num_cols);
    a.rows.reserve(expected);
    a.cols.reserve(expected);
    a.values.reserve(expected);
    const size_t fields_per_entry = pattern ? 2 : 3;
    Triangle stored = Triangle::none;
    int first_off_diagonal_line = 0;
    uint64_t read = 0;
    while (in.next(line)) {
        if (is_blank(line) || trim_left(line).front() == '%') continue;
        if (read == declared)
            in.fail("more entries than the " + std::to_string(declared) +
                    " that the size line declares");
        const std::vector<std::string_view> f = split_fields(line);
        if (f.size() != fields_per_entry)
            in.fail("expected " + std::to_string(fields_per_entry) + " fields ('row col" +
                    (pattern ? "" : " value") + "'), found " + std::to_string(f.size()));
        uint64_t row = 0, col = 0;
        if (!parse_count(f[0], row) || row < 1 || row > num_rows)
            in.fail("row index " + quoted(f[0]) + " is not in [1, " + std::to_string(num_rows) +
                    "]");
        if (!parse_count(f[1], col) || col < 1 || col > num_cols)
            in.fail("column index " + quoted(f[1]) + " is not in [1, " + std::to_string(num_cols) +
                    "]");
        long double value = 1.0;
        if (!pattern) {
            const std::string problem = value_problem(f[2], integer, value);
            if (!problem.empty()) in.fail("value " + quoted(f[2]) + " " + problem);
            count_if_tiny(tiny, in, value);
        }
        // The rule is on what the file writes, not on what a float keeps of it: a diagonal
        // written as 1e-50 says that the matrix is not skew-symmetric just as 1e-40 (a float)
        // does, and where a float's range ends is no reason to believe one and not the other.
        if (negate_mirror && row == col && value != 0)
            in.fail("a skew-symmetric matrix has zeros on its diagonal, but this entry is " +
                    quoted(f[2]));
        // A symmetric file stores one triangle. One that stores both would have every entry
        // mirrored onto a copy of itself, doubling the matrix without a word.
        if (mirrored && row != col) {
            const Triangle side = row > col ? Triangle::lower : Triangle::upper;
            if (stored == Triangle::none) {
                stored = side;
                first_off_diagonal_line = in.line_number();
            } else if (side != stored) {
                in.fail("a " + symmetry + " file stores one triangle, but this entry (" +
                        std::to_string(row) + ", " + std::to_string(col) + ") is " +
                        (side == Triangle::upper ? "above" : "below") + " the diagonal and line " +
                        std::to_string(first_off_diagonal_line) + "'s entry is " +
                        (side == Triangle::upper ? "below" : "above") + " it");
            }
        }
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

// How often an edge list's growing size is held against the memory budget.
constexpr size_t kEdgesBetweenBudgetChecks = size_t{1} << 20;

inline HostCoo read_edge_list(LineReader& in, const InputLimits* limits, TinyValues& tiny) {
    constexpr uint64_t kMaxId = static_cast<uint64_t>(std::numeric_limits<int>::max()) - 1;
    HostCoo g;
    uint64_t largest = 0;
    int largest_line = 0;
    bool any = false;
    std::string_view line;
    std::vector<std::string_view> f;
    while (in.next(line)) {
        const std::string_view content = trim_left(line);
        if (content.rfind("%%", 0) == 0)
            in.fail(
                "a line that starts with '%%' is a Matrix Market banner, which must be the "
                "file's first line and read " +
                std::string(kBannerForm) + "; as it is, this file reads as an edge list");
        if (content.empty() || content.front() == '#' || content.front() == '%') continue;
        if (!split_edge_fields(line, f)) in.fail("empty field between commas");
        if (f.size() < 2 || f.size() > 3)
            in.fail("expected 'src dst' or 'src dst weight', found " + std::to_string(f.size()) +
                    " field(s)");
        uint64_t ids[2];
        for (int k = 0; k < 2; ++k) {
            if (!f[k].empty() && f[k].front() == '-')
                in.fail("vertex id " + quoted(f[k]) + " is negative");
            if (!parse_count(f[k], ids[k])) {
                const bool digits_only =
                    f[k].find_first_not_of("0123456789") == std::string_view::npos;
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
        long double weight = 1.0;
        if (f.size() == 3) {
            const std::string problem = value_problem(f[2], false, weight);
            if (!problem.empty()) in.fail("weight " + quoted(f[2]) + " " + problem);
            count_if_tiny(tiny, in, weight);
        }
        g.rows.push_back(static_cast<int>(ids[0]));
        g.cols.push_back(static_cast<int>(ids[1]));
        g.values.push_back(static_cast<float>(weight));
        if (!any || std::max(ids[0], ids[1]) > largest) {
            largest = std::max(ids[0], ids[1]);
            largest_line = in.line_number();
        }
        any = true;
        if (g.nnz() % kEdgesBetweenBudgetChecks == 0)
            check_limits(limits, in, in.line_number(), largest + 1, largest + 1, g.nnz());
    }
    g.num_rows = g.num_cols = any ? static_cast<int>(largest + 1) : 0;
    check_limits(limits, in, largest_line, g.num_rows, g.num_cols, g.nnz());
    return g;
}

// The format is decided by the content and the name together. A first line that starts with
// "%%" is a Matrix Market banner and must be a correct one; so must a ".mtx" file's first line;
// a first line that is nearly a banner (one '%', leading blanks, blank lines before it) is
// refused rather than read as an edge list whose first "edge" would be the size line.
inline HostCoo read_in_its_format(LineReader& in, const InputLimits* limits, TinyValues& tiny) {
    std::string_view line;
    bool found = false;
    while (in.next(line)) {
        if (!is_blank(line)) {
            found = true;
            break;
        }
    }
    if (!found) {
        if (in.line_number() == 0) in.fail_at(1, "the file is empty");
        in.fail("the file holds nothing but blank lines");
    }
    if (line.size() >= 2 && static_cast<unsigned char>(line[0]) == 0x1F &&
        static_cast<unsigned char>(line[1]) == 0x8B)
        in.fail("the file is compressed (gzip): decompress it first, with gunzip");
    const bool first = in.line_number() == 1;
    const std::string lower = lowercase(line.substr(0, 64));
    in.unread();
    if (first && lower.rfind("%%", 0) == 0) return read_matrix_market(in, limits, tiny);
    const std::string_view content = trim_left(line);
    if (!content.empty() && content.front() == '%' &&
        lower.find("matrixmarket") != std::string::npos) {
        in.next(line);
        in.fail("bad banner: a Matrix Market file's first line must start with '%%MatrixMarket'");
    }
    if (ends_with(lowercase(in.path()), ".mtx"))
        in.fail_at(
            1, std::string("a .mtx file must start with the Matrix Market banner, ") + kBannerForm);
    return read_edge_list(in, limits, tiny);
}

// `tiny`, when given, is set only when the file is read: a refused file has no note to give.
inline HostCoo read_matrix_stream(LineReader& in, const InputLimits* limits, TinyValues* tiny) {
    TinyValues found;
    HostCoo a = read_in_its_format(in, limits, found);
    if (tiny != nullptr) *tiny = found;
    return a;
}

}  // namespace matrix_reader_detail

// Reads a Matrix Market file or an edge list held in memory; `name` stands for the file in
// messages and decides, as a file name would, whether the text must be Matrix Market. `tiny`,
// when given, receives the count of the values stored as 0 for being too small for a float.
inline HostCoo read_matrix_text(const std::string& name, const std::string& text,
                                const matrix_reader_detail::InputLimits* limits = nullptr,
                                TinyValues* tiny = nullptr) {
    std::istringstream in(text);
    matrix_reader_detail::LineReader lines(name, in, text.size());
    return matrix_reader_detail::read_matrix_stream(lines, limits, tiny);
}

// Reads a Matrix Market file or an edge list; throws BadInput("FILE:LINE: problem"). Only a
// regular file is opened: a FIFO would block, and /dev/zero would never end. `tiny` is as
// for read_matrix_text.
inline HostCoo read_matrix_file(const std::string& path,
                                const matrix_reader_detail::InputLimits* limits = nullptr,
                                TinyValues* tiny = nullptr) {
    namespace fs = std::filesystem;
    using matrix_reader_detail::ends_with;
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::is_directory(status)) throw BadInput(path + ": is a folder, not a file");
    if (fs::exists(status) && !fs::is_regular_file(status))
        throw BadInput(path +
                       ": is not a regular file (a device, a FIFO or a socket): give the "
                       "path of a matrix file");
    const std::string lower = matrix_reader_detail::lowercase(path);
    for (const char* suffix : {".gz", ".bz2", ".xz", ".zst", ".zip", ".tgz", ".tar"})
        if (ends_with(lower, suffix))
            throw BadInput(path + ": is compressed (" + std::string(suffix + 1) +
                           "): decompress it first, and give the decompressed file");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw BadInput(path + ": cannot open the file: " + std::strerror(errno));
    const uintmax_t size = fs::file_size(path, error);
    if (error) throw BadInput(path + ": cannot read the file's size: " + error.message());
    matrix_reader_detail::LineReader lines(path, file, size);
    return matrix_reader_detail::read_matrix_stream(lines, limits, tiny);
}

// A program's --matrix input: read within the program's memory budget, or the program ends
// with the reason and exit code 2. The note on tiny values goes to stderr, so that stdout, and
// what --quiet keeps of it, reads the same with them or without.
inline HostCoo read_matrix_option(const ProgramOptions& opt) {
    const matrix_reader_detail::InputLimits limits{opt.memory, opt.budget, opt.row_limit};
    HostCoo a;
    TinyValues tiny;
    try {
        a = read_matrix_file(opt.matrix, &limits, &tiny);
    } catch (const BadInput& e) {
        fail_bad_input(e.what());
    }
    const std::string note = tiny_values_note(opt.matrix, tiny);
    if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
    note_estimate(opt.memory, a.num_rows, a.num_cols, a.nnz());
    std::printf("input: %s, %d x %d, %zu stored entries\n", opt.matrix.c_str(), a.num_rows,
                a.num_cols, a.nnz());
    return a;
}
