// Tests of common/matrix_reader.h: the real files of data/ read to the facts of its
// README and to a second, independent reading; the Matrix Market and edge-list rules on small
// files written here; and every refusal naming the file, the line and the problem.
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "../common/matrix_reader.h"
#include "data_files.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

void add_entry(HostCoo& a, int row, int col, double value) {
    a.rows.push_back(row);
    a.cols.push_back(col);
    a.values.push_back(static_cast<float>(value));
}

// A second reader, for well-formed files only, built on iostreams rather than on the strict
// reader's tokenizer: the reference that the strict reader must match entry for entry.
HostCoo read_plainly(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    HostCoo a;
    if (line.rfind("%%MatrixMarket", 0) == 0) {
        std::istringstream banner(line);
        std::string word, object, format, field, symmetry;
        banner >> word >> object >> format >> field >> symmetry;
        while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
        }
        long long declared = 0;
        std::istringstream(line) >> a.num_rows >> a.num_cols >> declared;
        for (long long k = 0; k < declared; ++k) {
            int row = 0, col = 0;
            double value = 1.0;
            in >> row >> col;
            if (field != "pattern") in >> value;
            add_entry(a, row - 1, col - 1, value);
            if (symmetry != "general" && row != col)
                add_entry(a, col - 1, row - 1, symmetry == "skew-symmetric" ? -value : value);
        }
        return a;
    }
    int largest = -1;
    do {
        if (line.empty() || line[0] == '#' || line[0] == '%') continue;
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream fields(line);
        int src = 0, dst = 0;
        double weight = 1.0;
        fields >> src >> dst;
        if (!(fields >> weight)) weight = 1.0;
        add_entry(a, src, dst, weight);
        largest = std::max({largest, src, dst});
    } while (std::getline(in, line));
    a.num_rows = a.num_cols = largest + 1;
    return a;
}

std::vector<int> row_lengths(const HostCoo& a) {
    std::vector<int> length(a.num_rows, 0);
    for (int r : a.rows) ++length[r];
    return length;
}

int count_empty(const std::vector<int>& lengths) {
    return static_cast<int>(std::count(lengths.begin(), lengths.end(), 0));
}

int longest(const std::vector<int>& lengths) {
    return lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
}

double entry_sum(const HostCoo& a) {
    double sum = 0;
    for (float v : a.values) sum += v;
    return sum;
}

size_t count_diagonal(const HostCoo& a) {
    size_t n = 0;
    for (size_t k = 0; k < a.nnz(); ++k) n += a.rows[k] == a.cols[k];
    return n;
}

std::vector<Entry> sorted(std::vector<Entry> e) {
    std::sort(e.begin(), e.end());
    return e;
}

// A folder of its own under the system's temporary folder, removed with everything in it.
class ScratchDir {
public:
    ScratchDir()
        : root_(fs::temp_directory_path() / ("matrix_reader_test_" + std::to_string(getpid()) +
                                             "_" + std::to_string(next_id_++))) {
        fs::create_directories(root_);
    }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    // Binary mode, so that "\r\n" and a missing final newline reach the file as written.
    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = (root_ / name).string();
        std::ofstream out(path, std::ios::binary);
        out << text;
        return path;
    }
    std::string path(const std::string& name) const { return (root_ / name).string(); }
    // How a refusal must begin: "FILE:LINE: ".
    std::string place(const std::string& name, int line) const {
        return path(name) + ":" + std::to_string(line) + ": ";
    }

private:
    fs::path root_;
    static inline int next_id_ = 0;
};

// The refusal message, or a line that says the file was accepted (which no refusal starts with).
std::string refusal_of(const std::string& path) {
    try {
        return "accepted: " + result_line(read_matrix_file(path));
    } catch (const BadInput& e) {
        return e.what();
    }
}

struct RefusalCase {
    std::string name;  // also the file name, so that the message must name this very file
    std::string text;
    int line;
    std::string problem;
};

void check_refusals(const std::vector<RefusalCase>& cases) {
    const ScratchDir dir;
    for (const RefusalCase& c : cases) {
        INFO("case " << c.name << ", file text:\n" << c.text);
        CHECK_THAT(refusal_of(dir.write(c.name, c.text)),
                   StartsWith(dir.place(c.name, c.line)) && Contains(c.problem));
    }
}

const std::string kRealGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kRealSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string kIntegerGeneral = "%%MatrixMarket matrix coordinate integer general\n";
const std::string kPatternGeneral = "%%MatrixMarket matrix coordinate pattern general\n";
const std::string kSkewSymmetric = "%%MatrixMarket matrix coordinate real skew-symmetric\n";

struct DataFile {
    std::string name;
    int rows;
    size_t nnz;
};

// From data/README.md: the full matrix after mirroring, as SciPy reads it.
const std::vector<DataFile> kReadableData = {
    {"lund_a.mtx", 147, 2449},
    {"1138_bus.mtx", 1138, 4054},
    {"jagmesh7.mtx", 1138, 7450},
    {"west2021.mtx", 2021, 7353},
    {"karate.mtx", 34, 156},
    {"netscience.mtx", 1589, 5484},
    {"email-Eu-core.csv", 1005, 25571},
};

}  // namespace

TEST_CASE("reader: every real file matches an independent reading and the README's size",
          "[reader][data]") {
    for (const DataFile& d : kReadableData) {
        INFO(d.name);
        const std::string path = data_file(d.name);
        const HostCoo a = read_matrix_file(path);
        CHECK(a.num_rows == d.rows);
        CHECK(a.num_cols == d.rows);
        CHECK(a.nnz() == d.nnz);
        CHECK(a.cols.size() == a.nnz());
        CHECK(a.values.size() == a.nnz());
        const HostCoo reference = read_plainly(path);
        CHECK(a.num_rows == reference.num_rows);
        CHECK(a.num_cols == reference.num_cols);
        CHECK(sorted_entries(a) == sorted_entries(reference));

        const MatrixFacts facts = matrix_facts(a);
        const std::vector<int> lengths = row_lengths(a);
        CHECK(facts.rows == d.rows);
        CHECK(facts.cols == d.rows);
        CHECK(facts.nnz == d.nnz);
        CHECK(facts.empty_rows == count_empty(lengths));
        CHECK(facts.max_row == longest(lengths));
    }
}

TEST_CASE("reader: every file in the data folder is read, or refused with its name and line",
          "[reader][data]") {
    std::set<std::string> seen;
    for (const fs::directory_entry& entry : fs::directory_iterator(data_dir())) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || name == "README.md") continue;
        seen.insert(name);
        INFO(name);
        const std::string message = refusal_of(entry.path().string());
        if (name == "young1c.mtx") continue;  // its refusal has a test of its own
        const bool accepted = message.rfind("accepted: ", 0) == 0;
        const bool refused_with_place = message.rfind(entry.path().string() + ":", 0) == 0;
        CHECK((accepted || refused_with_place));
    }
    for (const DataFile& d : kReadableData) {
        INFO("the README lists " << d.name);
        CHECK(seen.count(d.name) == 1);
    }
    CHECK(seen.count("young1c.mtx") == 1);
}

TEST_CASE("reader: the symmetric files are mirrored, one copy of each diagonal entry",
          "[reader][data]") {
    // Entries stored in the file, from the README: mirroring doubles all but the diagonal.
    const std::vector<std::pair<std::string, size_t>> stored = {{"lund_a.mtx", 1298},
                                                                {"1138_bus.mtx", 2596},
                                                                {"jagmesh7.mtx", 4294},
                                                                {"karate.mtx", 78},
                                                                {"netscience.mtx", 2742}};
    for (const auto& [name, in_file] : stored) {
        INFO(name);
        const HostCoo a = read_matrix_file(data_file(name));
        CHECK(a.nnz() + count_diagonal(a) == 2 * in_file);
        CHECK(sorted_entries(a) == sorted_entries(transposed(a)));
    }
    const HostCoo west = read_matrix_file(data_file("west2021.mtx"));
    CHECK(sorted_entries(west) != sorted_entries(transposed(west)));
}

TEST_CASE("reader: sums of entries match the README", "[reader][data]") {
    // The README's sums come from the decimal values in double precision; the reader stores
    // floats, each off by up to 2^-24 of itself (6e-8). The entries have both signs, so that
    // error, relative to the sum, grows with the cancellation: 1e-5 covers it and still
    // catches any entry lost, doubled or mirrored with the wrong sign.
    const HostCoo bus = read_matrix_file(data_file("1138_bus.mtx"));
    CHECK(entry_sum(bus) == Approx(1460.0402679).epsilon(1e-5));
    const HostCoo net = read_matrix_file(data_file("netscience.mtx"));
    CHECK(entry_sum(net) == Approx(2379.9994484).epsilon(1e-5));
    const HostCoo west = read_matrix_file(data_file("west2021.mtx"));
    CHECK(entry_sum(west) == Approx(-11635283.092682214).epsilon(1e-5));
}

TEST_CASE("reader: row lengths, empty rows, patterns and zeros of the real files",
          "[reader][data]") {
    SECTION("1138_bus: longest row 18") {
        const HostCoo a = read_matrix_file(data_file("1138_bus.mtx"));
        CHECK(longest(row_lengths(a)) == 18);
        CHECK(matrix_facts(a).max_row == 18);
    }
    SECTION("karate: longest row 17") {
        const HostCoo a = read_matrix_file(data_file("karate.mtx"));
        CHECK(longest(row_lengths(a)) == 17);
        CHECK(matrix_facts(a).max_row == 17);
    }
    SECTION("netscience: 128 empty rows") {
        const HostCoo a = read_matrix_file(data_file("netscience.mtx"));
        CHECK(count_empty(row_lengths(a)) == 128);
        CHECK(matrix_facts(a).empty_rows == 128);
    }
    SECTION("jagmesh7: a pattern, rows of 4 to 7 entries") {
        const HostCoo a = read_matrix_file(data_file("jagmesh7.mtx"));
        const std::vector<int> lengths = row_lengths(a);
        CHECK(*std::min_element(lengths.begin(), lengths.end()) == 4);
        CHECK(longest(lengths) == 7);
        CHECK(matrix_facts(a).empty_rows == 0);
        CHECK(std::all_of(a.values.begin(), a.values.end(), [](float v) { return v == 1.0f; }));
    }
    SECTION("west2021: its 43 explicit zeros are kept") {
        const HostCoo a = read_matrix_file(data_file("west2021.mtx"));
        CHECK(std::count(a.values.begin(), a.values.end(), 0.0f) == 43);
    }
    SECTION(
        "email-Eu-core: 0-based ids, 642 self-loops, 137 silent vertices, out-degree up to 334") {
        const HostCoo g = read_matrix_file(data_file("email-Eu-core.csv"));
        CHECK(*std::min_element(g.rows.begin(), g.rows.end()) == 0);
        CHECK(std::max(*std::max_element(g.rows.begin(), g.rows.end()),
                       *std::max_element(g.cols.begin(), g.cols.end())) == 1004);
        CHECK(count_diagonal(g) == 642);
        const std::vector<int> out_degree = row_lengths(g);
        CHECK(count_empty(out_degree) == 137);
        CHECK(longest(out_degree) == 334);
        const MatrixFacts facts = matrix_facts(g);
        CHECK(facts.empty_rows == 137);
        CHECK(facts.max_row == 334);
    }
}

TEST_CASE("reader: young1c.mtx is refused because it is complex", "[reader][data]") {
    CHECK_THROWS_WITH(read_matrix_file(data_file("young1c.mtx")),
                      Contains("young1c.mtx:1:") && Contains("complex values are not supported"));
}

TEST_CASE("reader: symmetric files mirror off-diagonal entries only", "[reader][mirror]") {
    const ScratchDir dir;
    const HostCoo a = read_matrix_file(dir.write("sym.mtx", kRealSymmetric + "3 3 5\n"
                                                                             "1 1 4\n"
                                                                             "2 1 -1\n"
                                                                             "3 2 2.5\n"
                                                                             "3 3 7\n"
                                                                             "2 1 -1\n"));
    CHECK(a.num_rows == 3);
    CHECK(a.num_cols == 3);
    // The duplicate (2,1) stays a separate entry, and so does its mirror.
    CHECK(sorted_entries(a) == sorted({{0, 0, 4.0f},
                                       {1, 0, -1.0f},
                                       {0, 1, -1.0f},
                                       {1, 0, -1.0f},
                                       {0, 1, -1.0f},
                                       {2, 1, 2.5f},
                                       {1, 2, 2.5f},
                                       {2, 2, 7.0f}}));
}

TEST_CASE("reader: skew-symmetric files mirror with the sign flipped", "[reader][mirror]") {
    const ScratchDir dir;
    const HostCoo a = read_matrix_file(dir.write("skew.mtx", kSkewSymmetric + "3 3 3\n"
                                                                              "2 1 3\n"
                                                                              "3 1 -2.5\n"
                                                                              "2 2 0\n"));
    CHECK(sorted_entries(a) ==
          sorted({{1, 0, 3.0f}, {0, 1, -3.0f}, {2, 0, -2.5f}, {0, 2, 2.5f}, {1, 1, 0.0f}}));
}

TEST_CASE("reader: pattern entries are 1, integer values are whole numbers", "[reader][mirror]") {
    const ScratchDir dir;
    const HostCoo p = read_matrix_file(dir.write(
        "pattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"));
    CHECK(sorted_entries(p) == sorted({{1, 0, 1.0f}, {0, 1, 1.0f}, {2, 2, 1.0f}}));
    const HostCoo n = read_matrix_file(dir.write("integer.mtx", kIntegerGeneral + "2 3 3\n"
                                                                                  "1 1 -7\n"
                                                                                  "2 2 +3\n"
                                                                                  "1 3 123456\n"));
    CHECK(sorted_entries(n) == sorted({{0, 0, -7.0f}, {1, 1, 3.0f}, {0, 2, 123456.0f}}));
    const HostCoo s = read_matrix_file(dir.write(
        "int_sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 5\n"));
    CHECK(sorted_entries(s) == sorted({{1, 0, 5.0f}, {0, 1, 5.0f}}));
}

TEST_CASE("reader: explicit zeros and duplicates are stored; indices become 0-based",
          "[reader][mirror]") {
    const ScratchDir dir;
    const HostCoo a = read_matrix_file(dir.write("dups.mtx", kRealGeneral + "2 4 5\n"
                                                                            "1 1 0\n"
                                                                            "1 1 2\n"
                                                                            "1 1 2\n"
                                                                            "2 4 9\n"
                                                                            "2 1 -0.0\n"));
    CHECK(a.num_rows == 2);
    CHECK(a.num_cols == 4);
    CHECK(sorted_entries(a) ==
          sorted({{0, 0, 0.0f}, {0, 0, 2.0f}, {0, 0, 2.0f}, {1, 3, 9.0f}, {1, 0, 0.0f}}));
    CHECK(result_line(a) == "result: rows=2 cols=4 nnz=5 empty_rows=0 max_row=3");
}

TEST_CASE("reader: the tightest file that its declared count allows is accepted",
          "[reader][mirror]") {
    // Shortest entry lines, no final newline: the bound on the declared count must not bite.
    const ScratchDir dir;
    const HostCoo a =
        read_matrix_file(dir.write("tight.mtx", kPatternGeneral + "4 4 3\n1 1\n2 2\n3 3"));
    CHECK(sorted_entries(a) == sorted({{0, 0, 1.0f}, {1, 1, 1.0f}, {2, 2, 1.0f}}));
    const HostCoo none = read_matrix_file(dir.write("none.mtx", kRealGeneral + "3 3 0"));
    CHECK(none.nnz() == 0);
    CHECK(none.num_rows == 3);
}

TEST_CASE("reader: comments, blank lines, CRLF, spacing and letter case are accepted",
          "[reader][format]") {
    const std::vector<Entry> expected = sorted({{0, 0, 1.5f}, {1, 2, -2.0f}, {2, 0, 0.25f}});
    struct Variant {
        std::string name, text;
    };
    const std::vector<Variant> variants = {
        {"plain.mtx", kRealGeneral + "3 3 3\n1 1 1.5\n2 3 -2\n3 1 0.25\n"},
        {"comments.mtx", kRealGeneral +
                             "% a comment\n%another\n3 3 3\n% between\n1 1 1.5\n  % indented\n"
                             "2 3 -2\n3 1 0.25\n% after the last entry\n"},
        {"blank.mtx", kRealGeneral + "\n\n3 3 3\n\n1 1 1.5\n \t \n2 3 -2\n\n3 1 0.25\n\n\n"},
        {"crlf.mtx",
         "%%MatrixMarket matrix coordinate real general\r\n% note\r\n\r\n3 3 3\r\n1 1 1.5\r\n"
         "\r\n2 3 -2\r\n3 1 0.25\r\n"},
        {"no_final_newline.mtx", kRealGeneral + "3 3 3\n1 1 1.5\n2 3 -2\n3 1 0.25"},
        {"spaces.mtx", kRealGeneral + "  3   3  3  \n   1 1    1.5   \n2  3 -2 \n 3 1 0.25\n"},
        {"tabs.mtx",
         "%%MatrixMarket\tmatrix\tcoordinate\treal\tgeneral\t\n3\t3\t3\n\t1\t1\t1.5\n2\t3\t-2\t\n"
         "3 \t1\t 0.25\n"},
        {"upper.mtx",
         "%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL\n3 3 3\n1 1 1.5\n2 3 -2\n3 1 0.25\n"},
        {"mixed_case.mtx",
         "%%matrixMarket Matrix COORDINATE Real gEnErAl\n3 3 3\n1 1 1.5\n2 3 -2\n3 1 0.25\n"},
        {"number_forms.mtx", kRealGeneral + "3 3 3\n1 1 +1.5e0\n2 3 -2.000\n3 1 25E-2\n"},
        {"everything.mtx",
         "%%MatrixMarket  Matrix\tcoordinate REAL general  \r\n\r\n% c\r\n \t3 3 3 \r\n"
         "\r\n\t1\t1 1.5\r\n  %  x\r\n2 3\t-2 \r\n \r\n3 1 .25"},
    };
    const ScratchDir dir;
    for (const Variant& v : variants) {
        INFO(v.name);
        HostCoo a;
        REQUIRE_NOTHROW(a = read_matrix_file(dir.write(v.name, v.text)));
        CHECK(a.num_rows == 3);
        CHECK(a.num_cols == 3);
        CHECK(sorted_entries(a) == expected);
    }
}

TEST_CASE("reader: bad banners are refused on line 1", "[reader][refusal]") {
    check_refusals({
        {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n", 1,
         "complex values are not supported"},
        {"complex_sym.mtx", "%%MatrixMarket matrix coordinate complex symmetric\n2 2 0\n", 1,
         "complex values are not supported"},
        {"hermitian.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 0\n", 1,
         "complex values are not supported"},
        {"real_hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n2 2 0\n", 1,
         "complex values are not supported"},
        {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
         "'array' files are not supported"},
        {"four_fields.mtx", "%%MatrixMarket matrix coordinate real\n2 2 0\n", 1, "bad banner"},
        {"six_fields.mtx", "%%MatrixMarket matrix coordinate real general extra\n2 2 0\n", 1,
         "bad banner"},
        {"banner_only_word.mtx", "%%MatrixMarket\n2 2 0\n", 1, "bad banner"},
        {"wrong_first_word.mtx", "%%MatrixMarketFile matrix coordinate real general\n2 2 0\n", 1,
         "bad banner"},
        {"vector.mtx", "%%MatrixMarket vector coordinate real general\n2 2 0\n", 1,
         "object 'vector' is not 'matrix'"},
        {"format.mtx", "%%MatrixMarket matrix sparse real general\n2 2 0\n", 1,
         "unknown format 'sparse'"},
        {"field.mtx", "%%MatrixMarket matrix coordinate double general\n2 2 0\n", 1,
         "unknown field 'double'"},
        {"symmetry.mtx", "%%MatrixMarket matrix coordinate real upper\n2 2 0\n", 1,
         "unknown symmetry 'upper'"},
        {"pattern_skew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", 1,
         "a pattern file cannot be skew-symmetric"},
    });
}

TEST_CASE("reader: bad or missing size lines are refused on their line", "[reader][refusal]") {
    check_refusals({
        {"words.mtx", kRealGeneral + "three 3 2\n1 1 1\n2 2 2\n", 2, "bad size line"},
        {"two_fields.mtx", kRealGeneral + "3 3\n1 1 1\n", 2, "bad size line"},
        {"four_fields.mtx", kRealGeneral + "3 3 2 1\n1 1 1\n2 2 2\n", 2, "bad size line"},
        {"negative_rows.mtx", kRealGeneral + "-3 3 1\n1 1 1\n", 2, "bad size line"},
        {"negative_cols.mtx", kRealGeneral + "3 -3 1\n1 1 1\n", 2, "bad size line"},
        {"negative_count.mtx", kRealGeneral + "3 3 -1\n1 1 1\n", 2, "bad size line"},
        {"fraction.mtx", kRealGeneral + "3.0 3 1\n1 1 1\n", 2, "bad size line"},
        {"after_comments.mtx", kRealGeneral + "% c\n\n3 x 1\n1 1 1\n", 4, "bad size line"},
        {"too_wide.mtx", kRealGeneral + "2147483648 3 0\n", 2,
         "beyond this suite's limit of 268435456"},
        {"too_tall.mtx", kRealGeneral + "3 268435457 0\n", 2,
         "beyond this suite's limit of 268435456"},
        {"missing.mtx", kRealGeneral, 1, "the file ends before the size line"},
        {"only_comments.mtx", kRealGeneral + "% c\n\n", 3, "the file ends before the size line"},
        {"not_square.mtx", kRealSymmetric + "3 4 1\n1 1 1\n", 2, "must be square, not 3 x 4"},
        {"skew_not_square.mtx", kSkewSymmetric + "4 3 1\n2 1 1\n", 2, "must be square, not 4 x 3"},
    });
}

TEST_CASE("reader: bad entries are refused on their line", "[reader][refusal]") {
    check_refusals({
        {"row_zero.mtx", kRealGeneral + "3 3 2\n1 1 1\n0 1 1\n", 4,
         "row index '0' is not in [1, 3]"},
        {"col_zero.mtx", kRealGeneral + "3 3 1\n1 0 1\n", 3, "column index '0' is not in [1, 3]"},
        {"row_high.mtx", kRealGeneral + "2 5 1\n3 1 1\n", 3, "row index '3' is not in [1, 2]"},
        {"col_high.mtx", kRealGeneral + "2 5 1\n1 6 1\n", 3, "column index '6' is not in [1, 5]"},
        {"row_negative.mtx", kRealGeneral + "3 3 1\n-1 1 1\n", 3, "row index '-1'"},
        {"row_fraction.mtx", kRealGeneral + "3 3 1\n1.0 1 1\n", 3, "row index '1.0'"},
        {"value_word.mtx", kRealGeneral + "3 3 1\n1 1 abc\n", 3, "value 'abc' is not a number"},
        {"value_plus_minus.mtx", kRealGeneral + "3 3 1\n1 1 +-1.5\n", 3,
         "value '+-1.5' is not a number"},
        {"integer_plus_minus.mtx", kIntegerGeneral + "3 3 1\n1 1 +-7\n", 3,
         "value '+-7' is not an integer"},
        {"value_beyond_float.mtx", kRealGeneral + "3 3 1\n1 1 1e39\n", 3,
         "value '1e39' is beyond the range of a float"},
        {"value_far_beyond_float.mtx", kRealGeneral + "3 3 1\n1 1 -1e400\n", 3,
         "value '-1e400' is beyond the range of a float"},
        {"value_beyond_long_double.mtx", kRealGeneral + "3 3 1\n1 1 1e-5000\n", 3,
         "value '1e-5000' is out of range"},
        {"value_nan.mtx", kRealGeneral + "3 3 1\n1 1 nan\n", 3,
         "value 'nan' is not a finite number"},
        {"value_inf.mtx", kRealGeneral + "3 3 1\n1 1 inf\n", 3,
         "value 'inf' is not a finite number"},
        {"value_minus_inf.mtx", kRealGeneral + "3 3 1\n1 1 -Infinity\n", 3, "not a finite number"},
        {"value_two_points.mtx", kRealGeneral + "3 3 1\n1 1 1.5.2\n", 3, "value '1.5.2'"},
        {"value_comma.mtx", kRealGeneral + "3 3 1\n1 1 1,5\n", 3, "value '1,5'"},
        {"value_double_sign.mtx", kRealGeneral + "3 3 1\n1 1 ++1\n", 3, "value '++1'"},
        {"integer_fraction.mtx", kIntegerGeneral + "3 3 1\n1 1 1.5\n", 3,
         "value '1.5' is not an integer"},
        {"integer_exponent.mtx", kIntegerGeneral + "3 3 1\n1 1 2e3\n", 3,
         "value '2e3' is not an integer"},
        {"too_few.mtx", kRealGeneral + "3 3 3\n1 1 1\n2 2 2\n", 4,
         "the file ends after 2 of the 3 declared entries"},
        {"none_of_two.mtx", kRealGeneral + "3 3 2\n% only a comment\n", 3,
         "the file ends after 0 of the 2 declared entries"},
        {"too_many.mtx", kRealGeneral + "3 3 1\n1 1 1\n\n2 2 2\n", 5,
         "more entries than the 1 that the size line declares"},
        {"two_fields.mtx", kRealGeneral + "3 3 1\n1 1\n", 3,
         "expected 3 fields ('row col value'), found 2"},
        {"four_fields.mtx", kRealGeneral + "3 3 1\n1 1 1 0\n", 3,
         "expected 3 fields ('row col value'), found 4"},
        {"pattern_value.mtx", kPatternGeneral + "3 3 1\n1 1 1\n", 3,
         "expected 2 fields ('row col'), found 3"},
        {"skew_diagonal.mtx", kSkewSymmetric + "3 3 2\n2 1 1\n2 2 5\n", 4,
         "a skew-symmetric matrix has zeros on its diagonal, but this entry is '5'"},
        // The count of lines includes comments, blank lines and CRLF ends, and a refusal
        // quotes the field without its '\r'.
        {"counted.mtx",
         "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n3 3 2\r\n\r\n1 1 1\r\n"
         "% c\r\n1 4 1\r\n",
         8, "column index '4' is not in [1, 3]"},
    });
}

TEST_CASE("reader: a declared count beyond what the file can hold is refused before any allocation",
          "[reader][refusal]") {
    // 10^15 entries of 12 bytes is more than any address space: a reader that reserved room
    // for the declared count first would throw bad_alloc here, not BadInput.
    check_refusals({
        {"billion.mtx", kRealGeneral + "3 3 1000000000\n1 1 1\n2 2 2\n", 2,
         "declares 1000000000 entries, more than the rest of the file can hold"},
        {"quadrillion.mtx", kRealGeneral + "3 3 1000000000000000\n1 1 1\n", 2,
         "declares 1000000000000000 entries"},
        {"quadrillion_sym.mtx", kRealSymmetric + "3 3 1000000000000000\n1 1 1\n", 2,
         "declares 1000000000000000 entries"},
        {"largest_count.mtx", kRealGeneral + "3 3 18446744073709551615\n", 2,
         "declares 18446744073709551615"},
        {"count_overflows.mtx", kRealGeneral + "3 3 18446744073709551616\n", 2, "bad size line"},
    });
}

TEST_CASE("reader: a file that cannot be opened is refused with its name", "[reader][refusal]") {
    const ScratchDir dir;
    const std::string path = dir.path("absent.mtx");
    CHECK_THAT(refusal_of(path), StartsWith(path + ": cannot open the file"));
    const std::string in_missing_folder = dir.path("no_such_folder/graph.csv");
    CHECK_THAT(refusal_of(in_missing_folder),
               StartsWith(in_missing_folder + ": cannot open the file"));
    CHECK(refusal_of(dir.path("")) == dir.path("") + ": is a folder, not a file");
}

TEST_CASE("reader: edge lists with spaces, tabs, commas, comments and blank lines",
          "[reader][edges]") {
    const ScratchDir dir;
    struct Variant {
        std::string name, text;
    };
    // The same four edges each time: (0,1) weight 1, (1,2) weight 2.5, (3,3) weight 1, (1,2) again.
    const std::vector<Entry> expected =
        sorted({{0, 1, 1.0f}, {1, 2, 2.5f}, {3, 3, 1.0f}, {1, 2, -4.0f}});
    const std::vector<Variant> variants = {
        {"spaces.csv", "0 1\n1 2 2.5\n3 3\n1 2 -4\n"},
        {"tabs.tsv", "0\t1\n1\t2\t2.5\n3\t3\t\n\t1\t2\t-4\n"},
        {"commas.csv", "0,1\n1,2,2.5\n3,3\n1,2,-4\n"},
        {"mixed.csv", "0, 1\n1 ,2,\t2.5\n  3 3  \n1,2 -4"},
        {"comments.txt",
         "# directed\n% also a comment\n0 1\n  # indented\n1 2 2.5\n3 3\n1 2 -4\n# end\n"},
        {"blank.txt", "\n0 1\n\n \t\n1 2 2.5\n3 3\n\n1 2 -4\n\n"},
        {"crlf.csv", "# header\r\n0,1\r\n1,2,2.5\r\n\r\n3,3\r\n1,2,-4\r\n"},
    };
    for (const Variant& v : variants) {
        INFO(v.name);
        HostCoo g;
        REQUIRE_NOTHROW(g = read_matrix_file(dir.write(v.name, v.text)));
        CHECK(g.num_rows == 4);
        CHECK(g.num_cols == 4);
        CHECK(sorted_entries(g) == expected);
    }
}

TEST_CASE("reader: an edge list has as many vertices as its largest id plus one",
          "[reader][edges]") {
    const ScratchDir dir;
    const HostCoo isolated = read_matrix_file(dir.write("isolated.csv", "5 2\n0 2\n"));
    CHECK(isolated.num_rows == 6);
    CHECK(isolated.num_cols == 6);
    CHECK(result_line(isolated) == "result: rows=6 cols=6 nnz=2 empty_rows=4 max_row=1");
    const HostCoo by_destination = read_matrix_file(dir.write("by_destination.csv", "0 9\n"));
    CHECK(by_destination.num_rows == 10);
    const HostCoo only_comments =
        read_matrix_file(dir.write("only_comments.csv", "# nothing\n\n% here\n"));
    CHECK(only_comments.num_rows == 0);
    CHECK(only_comments.nnz() == 0);
    // The largest id within the suite's limit of 2^28 vertices.
    const HostCoo widest = read_matrix_file(dir.write("widest.csv", "268435455 0\n"));
    CHECK(widest.num_rows == 268435456);
    CHECK(sorted_entries(widest) == std::vector<Entry>{{268435455, 0, 1.0f}});
    // A UTF-8 byte order mark before the banner is not part of it.
    const HostCoo marked = read_matrix_file(dir.write(
        "marked.mtx", "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3\n"));
    CHECK(sorted_entries(marked) == std::vector<Entry>{{1, 0, 3.0f}});
}

TEST_CASE("reader: bad edge-list lines are refused on their line", "[reader][edges][refusal]") {
    check_refusals({
        {"negative_src.csv", "0 1\n-1 2\n", 2, "vertex id '-1' is negative"},
        {"negative_dst.csv", "# c\n0 -3\n", 2, "vertex id '-3' is negative"},
        {"int_max.csv", "0 1\n1 2\n2147483647 0\n", 3,
         "vertex id '2147483647' is beyond the 32-bit range"},
        {"huge_id.csv", "0 99999999999999999999\n", 1,
         "vertex id '99999999999999999999' is beyond the 32-bit range"},
        {"header.csv", "src,dst\n0,1\n", 1, "vertex id 'src' is not a whole number"},
        {"fraction.csv", "0 1\n1.5 2\n", 2, "vertex id '1.5' is not a whole number"},
        {"one_field.csv", "0 1\n\n7\n", 3, "found 1 field(s)"},
        {"four_fields.csv", "0 1 2 3\n", 1, "found 4 field(s)"},
        {"bad_weight.csv", "0 1 2\n1 2 heavy\n", 2, "weight 'heavy' is not a number"},
        {"float_weight.csv", "0 1 1e39\n", 1, "weight '1e39' is beyond the range of a float"},
        {"empty_field.csv", "0 1\n0,,5\n", 2, "empty field between commas"},
        {"leading_comma.csv", ",1,2\n", 1, "empty field between commas"},
        {"beyond_limit.csv", "0 1\n268435456 0\n", 2,
         "beyond this suite's limit of 268435456 vertices"},
        {"one_percent_banner.mtx",
         "%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.5\n2 3 -2\n", 1,
         "a Matrix Market file's first line must start with '%%MatrixMarket'"},
        {"indented_banner.mtx", " %%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n", 1,
         "first line must start with '%%MatrixMarket'"},
        {"banner_after_blank.mtx",
         "\n%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n", 2,
         "first line must start with '%%MatrixMarket'"},
        {"nan_weight.csv", "0,1,nan\n", 1, "weight 'nan' is not a finite number"},
        {"inf_weight.csv", "0\t1\tinf\n", 1, "weight 'inf' is not a finite number"},
        {"crlf_counted.csv", "# c\r\n\r\n0 1\r\n1 x\r\n", 4, "vertex id 'x' is not a whole number"},
    });
}

TEST_CASE("reader: matrix_facts and result_line on small files", "[reader][facts]") {
    const ScratchDir dir;
    // Rows hold 3, 0, 1 and 1 entries; one of them an explicit zero, which still counts.
    const HostCoo a = read_matrix_file(dir.write("facts.mtx", kRealGeneral + "4 3 5\n"
                                                                             "1 1 1\n"
                                                                             "1 2 2\n"
                                                                             "1 3 0\n"
                                                                             "3 1 4\n"
                                                                             "4 2 5\n"));
    const MatrixFacts f = matrix_facts(a);
    CHECK(f.rows == 4);
    CHECK(f.cols == 3);
    CHECK(f.nnz == 5);
    CHECK(f.empty_rows == 1);
    CHECK(f.max_row == 3);
    CHECK(result_line(a) == "result: rows=4 cols=3 nnz=5 empty_rows=1 max_row=3");

    // nnz counts the mirrored entries: 3 stored, 2 of them off the diagonal.
    const HostCoo s = read_matrix_file(
        dir.write("facts_sym.mtx", kRealSymmetric + "3 3 3\n1 1 1\n2 1 1\n3 1 1\n"));
    CHECK(result_line(s) == "result: rows=3 cols=3 nnz=5 empty_rows=0 max_row=3");

    const HostCoo no_entries =
        read_matrix_file(dir.write("no_entries.mtx", kRealGeneral + "3 2 0\n"));
    CHECK(result_line(no_entries) == "result: rows=3 cols=2 nnz=0 empty_rows=3 max_row=0");
    const HostCoo nothing = read_matrix_file(dir.write("nothing.csv", "# no edges\n"));
    CHECK(result_line(nothing) == "result: rows=0 cols=0 nnz=0 empty_rows=0 max_row=0");
    // Many more rows than entries: the facts are counted from the entries alone.
    const HostCoo tall = read_matrix_file(
        dir.write("tall.mtx", kRealGeneral + "268435456 3 4\n"
                                             "7 1 1\n7 2 1\n9 1 1\n268435456 3 1\n"));
    CHECK(result_line(tall) ==
          "result: rows=268435456 cols=3 nnz=4 empty_rows=268435453 max_row=2");
}

TEST_CASE("reader: the format follows the name and the first line together", "[reader][format]") {
    check_refusals({
        {"misspelt.mtx", "%%MatrixMarkt matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n", 1,
         "a first line that starts with '%%' must be a Matrix Market banner"},
        {"misspelt.txt", "%%MatrixMarkt matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n", 1,
         "bad banner"},
        {"spaced.csv", "%%Matrix Market matrix coordinate real general\n3 3 2\n1 1 1\n", 1,
         "bad banner"},
        {"hyphen.csv", "%%Matrix-Market matrix coordinate real general\n3 3 2\n1 1 1\n", 1,
         "bad banner"},
        {"second_line.txt", "# made by hand\n" + kRealGeneral + "3 3 1\n1 1 1\n", 2,
         "a line that starts with '%%' is a Matrix Market banner, which must be the file's first "
         "line"},
        {"late_banner.csv", "0 1\n1 2\n%%MatrixMarket matrix coordinate real general\n", 3,
         "must be the file's first line"},
        {"no_banner.mtx", "3 3 1\n1 1 1\n", 1,
         "a .mtx file must start with the Matrix Market banner"},
        {"NO_BANNER.MTX", "0 1\n", 1, "a .mtx file must start with the Matrix Market banner"},
        {"comment_first.mtx", "% a comment\n" + kRealGeneral + "3 3 1\n1 1 1\n", 1,
         "a .mtx file must start with the Matrix Market banner"},
        {"empty.mtx", "", 1, "the file is empty"},
        {"empty.csv", "", 1, "the file is empty"},
        {"blank.csv", "\n  \n\t\n", 3, "nothing but blank lines"},
        {"gzip_content.csv", std::string("\x1f\x8b\x08\x00\x00", 5), 1, "decompress it first"},
    });
}

TEST_CASE("reader: a symmetric file stores one triangle", "[reader][mirror]") {
    check_refusals({
        {"both.mtx", kRealSymmetric + "3 3 3\n2 1 5\n3 3 1\n1 2 5\n", 5,
         "a symmetric file stores one triangle, but this entry (1, 2) is above the diagonal and "
         "line 3's entry is below it"},
        {"both_skew.mtx", kSkewSymmetric + "3 3 2\n1 3 2\n3 2 1\n", 4,
         "a skew-symmetric file stores one triangle, but this entry (3, 2) is below the diagonal"},
    });
    // Karate stored with both triangles: refused, where mirroring it again would give 312.
    const ScratchDir dir;
    const HostCoo karate = read_data_file("karate.mtx");
    std::string both = "%%MatrixMarket matrix coordinate pattern symmetric\n34 34 156\n";
    for (size_t k = 0; k < karate.nnz(); ++k)
        both +=
            std::to_string(karate.rows[k] + 1) + " " + std::to_string(karate.cols[k] + 1) + "\n";
    CHECK_THAT(refusal_of(dir.write("karate_both.mtx", both)), Contains("stores one triangle"));
    // The upper triangle alone is read as its mirror: the same matrix as the lower.
    std::string upper = "%%MatrixMarket matrix coordinate pattern symmetric\n34 34 78\n";
    for (size_t k = 0; k < karate.nnz(); ++k)
        if (karate.rows[k] < karate.cols[k])
            upper += std::to_string(karate.rows[k] + 1) + " " + std::to_string(karate.cols[k] + 1) +
                     "\n";
    const HostCoo from_upper = read_matrix_file(dir.write("karate_upper.mtx", upper));
    CHECK(sorted_entries(from_upper) == sorted_entries(karate));
}

TEST_CASE("reader: files that are not matrix files are refused without being read whole",
          "[reader][refusal]") {
    const ScratchDir dir;
    CHECK_THAT(refusal_of("/dev/zero"), StartsWith("/dev/zero: is not a regular file"));
    const std::string fifo = dir.path("pipe.csv");
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(refusal_of(fifo), StartsWith(fifo + ": is not a regular file"));
    for (const char* name : {"a.mtx.gz", "a.csv.bz2", "a.mtx.xz", "a.zip", "a.mtx.zst"}) {
        const std::string path = dir.write(name, "0 1\n");
        CHECK_THAT(refusal_of(path),
                   StartsWith(path + ": is compressed") && Contains("decompress it first"));
    }
    // One line of 10 MB: refused at the cap, naming the line, not echoed.
    const std::string path = dir.write("long.csv", "0 1\n1 " + std::string(10 << 20, '7') + "\n");
    const std::string message = refusal_of(path);
    CHECK_THAT(message, StartsWith(path + ":2: the line is longer than 1048576 bytes"));
    CHECK(message.size() < 200);
}

TEST_CASE("reader: messages stay one short, readable line", "[reader][refusal]") {
    const ScratchDir dir;
    const std::string nul = refusal_of(dir.write("nul.csv", std::string("0 1\n1 a\0b\n", 11)));
    CHECK_THAT(nul, Contains("vertex id 'a\\x00b' is not a whole number"));
    const std::string wide =
        refusal_of(dir.write("wide.csv", "0 1\n1 " + std::string(5000, 'x') + "\n"));
    CHECK_THAT(wide, Contains("(5000 characters in all)"));
    CHECK(wide.size() < 300);
}

TEST_CASE("reader: the float maximum and values too small for a float", "[reader][format]") {
    const ScratchDir dir;
    // 3.4028235e38, the float maximum as it is usually printed, rounds to FLT_MAX.
    const HostCoo top =
        read_matrix_file(dir.write("top.csv", "0 1 3.4028235e38\n1 0 -3.4028235e38\n"));
    CHECK(top.values[0] == std::numeric_limits<float>::max());
    CHECK(top.values[1] == -std::numeric_limits<float>::max());
    check_refusals({{"above_top.csv", "0 1 3.4028236e38\n", 1, "is beyond the range of a float"}});
    // Below half the smallest subnormal float (7.0e-46) a value rounds to 0, and is stored so.
    const HostCoo tiny_weight = read_matrix_file(dir.write("tiny.csv", "0 1 1e-50\n"));
    CHECK(tiny_weight.values == std::vector<float>{0.0f});
    const HostCoo tiny_value =
        read_matrix_file(dir.write("tiny.mtx", kRealGeneral + "2 2 1\n1 1 -1e-46\n"));
    CHECK(tiny_value.values == std::vector<float>{0.0f});
    CHECK(std::signbit(tiny_value.values[0]));
}

namespace {

// The text with every "\n" replaced by `end`.
std::string with_line_ends(const std::string& text, const std::string& end) {
    std::string out;
    for (char c : text) {
        if (c == '\n')
            out += end;
        else
            out += c;
    }
    return out;
}

// Two files of the same lines, one with "\n" line ends and one with others: what the reader makes
// of the second must be what it makes of the first, and what the iostream reader makes of the
// first.
void check_same_as_lf(const ScratchDir& dir, const std::string& name, const std::string& lf_text,
                      const std::string& other_text) {
    INFO(name << ", file text:\n" << other_text);
    const std::string lf_path = dir.write("lf_" + name, lf_text);
    const HostCoo lf = read_matrix_file(lf_path);
    const HostCoo plain = read_plainly(lf_path);
    HostCoo other;
    REQUIRE_NOTHROW(other = read_matrix_file(dir.write(name, other_text)));
    CHECK(other.num_rows == lf.num_rows);
    CHECK(other.num_cols == lf.num_cols);
    CHECK(sorted_entries(other) == sorted_entries(lf));
    CHECK(other.num_rows == plain.num_rows);
    CHECK(sorted_entries(other) == sorted_entries(plain));
}

}  // namespace

TEST_CASE("reader: lines may end in a lone CR, as classic Mac OS wrote them, or in a mixture",
          "[reader][format][line-ends]") {
    const ScratchDir dir;
    const std::string general = kRealGeneral +
                                "% a comment\n"
                                "\n"
                                "3 4 4\n"
                                "1 1 1.5\n"
                                "2 3 -2\n"
                                "\n"
                                "3 1 0.25\n"
                                "3 4 7\n";
    const std::string symmetric = kRealSymmetric +
                                  "3 3 4\n"
                                  "1 1 2\n"
                                  "2 1 -1\n"
                                  "3 2 0.5\n"
                                  "3 3 4\n";
    const std::string edges =
        "# src,dst,weight\n"
        "0,1\n"
        "1,2,2.5\n"
        "\n"
        "3 3\n"
        "1 2 -4\n";
    const std::string spaced_edges =
        "% src dst weight\n"
        "0 1\n"
        "1\t2 2.5\n"
        "\n"
        "3 3\n"
        "1 2 -4\n";
    SECTION("a lone CR ends every line") {
        const HostCoo a = read_matrix_file(dir.write("cr.mtx", with_line_ends(general, "\r")));
        CHECK(a.num_rows == 3);
        CHECK(a.num_cols == 4);
        CHECK(sorted_entries(a) ==
              sorted({{0, 0, 1.5f}, {1, 2, -2.0f}, {2, 0, 0.25f}, {2, 3, 7.0f}}));
        const HostCoo s =
            read_matrix_file(dir.write("cr_symmetric.mtx", with_line_ends(symmetric, "\r")));
        CHECK(s.num_rows == 3);
        CHECK(sorted_entries(s) == sorted({{0, 0, 2.0f},
                                           {1, 0, -1.0f},
                                           {0, 1, -1.0f},
                                           {2, 1, 0.5f},
                                           {1, 2, 0.5f},
                                           {2, 2, 4.0f}}));
        const HostCoo g = read_matrix_file(dir.write("cr.csv", with_line_ends(edges, "\r")));
        CHECK(g.num_rows == 4);
        CHECK(sorted_entries(g) ==
              sorted({{0, 1, 1.0f}, {1, 2, 2.5f}, {3, 3, 1.0f}, {1, 2, -4.0f}}));
    }
    SECTION("every kind of line end reads as the same file with LF ends") {
        for (const std::string end : {"\r", "\r\n"}) {
            const std::string kind = end == "\r" ? "cr" : "crlf";
            check_same_as_lf(dir, kind + "_general.mtx", general, with_line_ends(general, end));
            check_same_as_lf(dir, kind + "_symmetric.mtx", symmetric,
                             with_line_ends(symmetric, end));
            check_same_as_lf(dir, kind + "_edges.csv", edges, with_line_ends(edges, end));
            check_same_as_lf(dir, kind + "_edges.txt", spaced_edges,
                             with_line_ends(spaced_edges, end));
        }
        // The same lines as the texts above, their ends of every kind. The blank lines among
        // them are "\r\r", "\n\r\n", "\r\n\r" and "\r\r\n"; a lone "\r" followed by "\n" would
        // be one "\r\n", not two ends.
        check_same_as_lf(dir, "mixed_general.mtx", general,
                         "%%MatrixMarket matrix coordinate real general\r\n"
                         "% a comment\r"
                         "\r"
                         "3 4 4\n"
                         "1 1 1.5\r\n"
                         "2 3 -2\n"
                         "\r\n"
                         "3 1 0.25\r"
                         "3 4 7");
        check_same_as_lf(dir, "mixed_symmetric.mtx", symmetric,
                         "%%MatrixMarket matrix coordinate real symmetric\r"
                         "3 3 4\n"
                         "1 1 2\r\n"
                         "2 1 -1\r"
                         "3 2 0.5\n"
                         "3 3 4\r\n");
        check_same_as_lf(dir, "mixed_edges.csv", edges,
                         "# src,dst,weight\r"
                         "0,1\n"
                         "1,2,2.5\r\n"
                         "\r"
                         "3 3\r"
                         "1 2 -4\n");
        check_same_as_lf(dir, "mixed_edges.txt", spaced_edges,
                         "% src dst weight\n"
                         "0 1\r"
                         "1\t2 2.5\r"
                         "\r\n"
                         "3 3\n"
                         "1 2 -4");
    }
    SECTION("the real files of data/, rewritten with CR ends, read as they do with LF ends") {
        for (const DataFile& d : kReadableData) {
            const std::string path = data_file(d.name);
            std::ifstream in(path, std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
            REQUIRE(text.find('\r') == std::string::npos);
            const HostCoo reference = read_plainly(path);
            const HostCoo cr =
                read_matrix_file(dir.write("cr_" + d.name, with_line_ends(text, "\r")));
            INFO(d.name);
            CHECK(cr.num_rows == reference.num_rows);
            CHECK(cr.num_cols == reference.num_cols);
            CHECK(cr.nnz() == d.nnz);
            CHECK(sorted_entries(cr) == sorted_entries(reference));
        }
    }
    SECTION("a refusal names the line that an editor shows") {
        check_refusals({
            {"cr_row_high.mtx", with_line_ends(kRealGeneral + "3 3 2\n1 1 1\n4 1 1\n", "\r"), 4,
             "row index '4' is not in [1, 3]"},
            {"cr_blank_lines.mtx",
             with_line_ends(kRealGeneral + "\n3 3 2\n\n\n1 1 1\n1 9 1\n", "\r"), 7,
             "column index '9' is not in [1, 3]"},
            {"cr_too_few.mtx", with_line_ends(kRealGeneral + "3 3 2\n1 1 1\n", "\r"), 3,
             "the file ends after 1 of the 2 declared entries"},
            {"cr_edges.csv", "0 1\r1 2\r\r1 x\r", 4, "vertex id 'x' is not a whole number"},
            // Banner (CRLF), comment (CR), blank (CRLF), size (LF), blank (CRLF), entry.
            {"mixed_col_high.mtx",
             "%%MatrixMarket matrix coordinate real general\r\n% c\r\r\n3 3 1\n\r\n1 9 1\r", 6,
             "column index '9' is not in [1, 3]"},
            {"mixed_edges.csv", "0 1\n1 2\r\n\r2 3\r\r\n2 -5\n", 6, "vertex id '-5' is negative"},
            // "\r\r\n" is a lone CR and then a CRLF, with a blank line between them.
            {"crcr.mtx",
             "%%MatrixMarket matrix coordinate real general\r\r\n2 2 2\r\r\n2 1 4\r\r\n3 1 4\r\r\n",
             7, "row index '3' is not in [1, 2]"},
            {"cr_banner.mtx", "%MatrixMarket matrix coordinate real general\r3 3 1\r1 1 1\r", 1,
             "a Matrix Market file's first line must start with '%%MatrixMarket'"},
            {"cr_symmetric_both.mtx",
             with_line_ends(kRealSymmetric + "3 3 2\n2 1 1\n1 2 1\n", "\r"), 4,
             "line 3's entry is below it"},
        });
        const HostCoo crcr = read_matrix_file(
            dir.write("crcr_read.mtx",
                      "%%MatrixMarket matrix coordinate real general\r\r\n2 2 1\r\r\n2 1 4\r\r\n"));
        CHECK(sorted_entries(crcr) == std::vector<Entry>{{1, 0, 4.0f}});
    }
    SECTION("a line end across two of the reader's 64 KiB blocks is counted once") {
        // A comment line that ends near byte 65536 puts each byte of its line end, and of the
        // blank line after it, on the first block's last byte in turn.
        const std::string banner_and_percent = "%%MatrixMarket matrix coordinate real general\r\n%";
        for (size_t end_offset = 65530; end_offset < 65540; ++end_offset) {
            for (const std::string end : {"\r\n", "\r", "\n", "\r\r", "\r\n\r\n", "\r\r\n"}) {
                const size_t blank_lines = end == "\r\n" || end == "\r" || end == "\n" ? 0 : 1;
                const std::string head = banner_and_percent +
                                         std::string(end_offset - banner_and_percent.size(), 'c') +
                                         end + "2 2 1\r\n";
                const int entry_line = static_cast<int>(4 + blank_lines);
                INFO("the comment's end at byte " << end_offset << ", then " << blank_lines
                                                  << " blank line(s)");
                const HostCoo a = read_matrix_file(dir.write("split.mtx", head + "2 1 4\r\n"));
                CHECK(sorted_entries(a) == std::vector<Entry>{{1, 0, 4.0f}});
                const std::string bad = dir.write("split_bad.mtx", head + "2 3 4\r\n");
                CHECK_THAT(refusal_of(bad), StartsWith(dir.place("split_bad.mtx", entry_line)) &&
                                                Contains("column index '3' is not in [1, 2]"));
            }
        }
    }
}

namespace {

// A file read as a program reads it: the matrix, with the note that the program would print.
struct NotedRead {
    HostCoo a;
    TinyValues tiny;
    std::string note;
};

NotedRead read_noting(const std::string& path) {
    NotedRead r;
    r.a = read_matrix_file(path, nullptr, &r.tiny);
    r.note = tiny_values_note(path, r.tiny);
    return r;
}

}  // namespace

TEST_CASE("reader: values too small for a float are stored as 0, their entries kept, in one note",
          "[reader][tiny]") {
    const ScratchDir dir;
    SECTION("an edge list's weight") {
        const std::string path = dir.write("tiny_weight.csv", "0 1 2\n1 2 1e-50\n2 0 3\n");
        const NotedRead r = read_noting(path);
        CHECK(r.a.values == std::vector<float>{2.0f, 0.0f, 3.0f});
        CHECK(r.a.nnz() == 3);
        CHECK(result_line(r.a) == "result: rows=3 cols=3 nnz=3 empty_rows=0 max_row=1");
        CHECK(r.note ==
              "note: " + path +
                  ": 1 value is too small for a float and is stored as 0 (at line 2: 1e-50)");
    }
    SECTION("Matrix Market values, the first of them negative") {
        const std::string path = dir.write("tiny_values.mtx", kRealGeneral +
                                                                  "% a comment\n"
                                                                  "3 4 4\n"
                                                                  "1 1 1.5\n"
                                                                  "2 3 -1e-300\n"
                                                                  "3 4 7.630486546499983e-55\n"
                                                                  "3 1 -2\n");
        const NotedRead r = read_noting(path);
        CHECK(r.a.values == std::vector<float>{1.5f, 0.0f, 0.0f, -2.0f});
        // The sign is the conversion's: IEEE rounding keeps it on a zero.
        CHECK(std::signbit(r.a.values[1]));
        CHECK_FALSE(std::signbit(r.a.values[2]));
        CHECK(r.a.rows == std::vector<int>{0, 1, 2, 2});
        CHECK(r.a.cols == std::vector<int>{0, 2, 3, 0});
        CHECK(result_line(r.a) == "result: rows=3 cols=4 nnz=4 empty_rows=0 max_row=2");
        CHECK(r.note == "note: " + path +
                            ": 2 values are too small for a float and are stored as 0 (the first "
                            "at line 5: -1e-300)");
    }
    SECTION("a file whose every value is too small, one of them too small for a double") {
        const std::string path = dir.write("all_tiny.mtx", kRealGeneral +
                                                               "2 3 3\n"
                                                               "2 2 1e-400\n"
                                                               "1 3 -2e-60\n"
                                                               "1 1 1e-50\n");
        const NotedRead r = read_noting(path);
        CHECK(r.a.values == std::vector<float>{0.0f, 0.0f, 0.0f});
        CHECK(result_line(r.a) == "result: rows=2 cols=3 nnz=3 empty_rows=0 max_row=2");
        CHECK(r.tiny.count == 3);
        CHECK(r.note == "note: " + path +
                            ": 3 values are too small for a float and are stored as 0 (the first "
                            "at line 3: 1e-400)");
    }
    SECTION("subnormal floats and the smallest normal float are kept, as the floats they are") {
        const std::string path =
            dir.write("small.csv", "0 1 1e-40\n1 0 1.17549435e-38\n0 0 1e-45\n1 1 7e-46\n");
        const NotedRead r = read_noting(path);
        REQUIRE(r.a.nnz() == 4);
        CHECK(r.a.values[0] == 1e-40f);
        CHECK(std::fpclassify(r.a.values[0]) == FP_SUBNORMAL);
        CHECK(r.a.values[1] == std::numeric_limits<float>::min());
        CHECK(r.a.values[2] == std::numeric_limits<float>::denorm_min());
        // 7e-46 is just below half of the smallest subnormal float: it rounds to 0.
        CHECK(7e-46 < std::numeric_limits<float>::denorm_min() / 2.0);
        CHECK(r.a.values[3] == 0.0f);
        CHECK(result_line(r.a) == "result: rows=2 cols=2 nnz=4 empty_rows=0 max_row=2");
        CHECK(r.note ==
              "note: " + path +
                  ": 1 value is too small for a float and is stored as 0 (at line 4: 7e-46)");
    }
    SECTION("a file without them has no note") {
        const NotedRead r = read_noting(dir.write("plain.csv", "0 1 0\n1 0 1e-30\n"));
        CHECK(r.tiny.count == 0);
        CHECK(r.note.empty());
    }
}

TEST_CASE("reader: a tiny value's mirror is 0 too, and a skew-symmetric diagonal must be 0",
          "[reader][tiny][mirror]") {
    const ScratchDir dir;
    const NotedRead sym =
        read_noting(dir.write("tiny_sym.mtx", kRealSymmetric + "3 3 2\n2 1 1e-50\n3 3 4\n"));
    CHECK(sorted_entries(sym.a) == sorted({{1, 0, 0.0f}, {0, 1, 0.0f}, {2, 2, 4.0f}}));
    // The file's values are counted, not the stored entries: the mirror is no second value.
    CHECK(sym.tiny.count == 1);
    CHECK(sym.tiny.first_line == 3);
    const NotedRead skew =
        read_noting(dir.write("tiny_skew.mtx", kSkewSymmetric + "3 3 2\n2 1 -1e-300\n3 2 5\n"));
    REQUIRE(skew.a.nnz() == 4);
    CHECK(skew.a.values[0] == 0.0f);
    CHECK(std::signbit(skew.a.values[0]));
    CHECK(skew.a.values[1] == 0.0f);
    CHECK_FALSE(std::signbit(skew.a.values[1]));
    CHECK(skew.tiny.count == 1);
    // A diagonal written nonzero contradicts the banner whether or not a float can tell.
    check_refusals({
        {"skew_tiny_diagonal.mtx", kSkewSymmetric + "2 2 1\n1 1 1e-50\n", 3,
         "a skew-symmetric matrix has zeros on its diagonal, but this entry is '1e-50'"},
        {"skew_tinier_diagonal.mtx", kSkewSymmetric + "2 2 2\n2 1 1\n2 2 -1e-400\n", 4,
         "a skew-symmetric matrix has zeros on its diagonal, but this entry is '-1e-400'"},
        {"skew_subnormal_diagonal.mtx", kSkewSymmetric + "2 2 1\n1 1 1e-40\n", 3,
         "a skew-symmetric matrix has zeros on its diagonal, but this entry is '1e-40'"},
    });
}

TEST_CASE("reader: the count of tiny values is of the file just read, and only of a read one",
          "[reader][tiny]") {
    TinyValues tiny;
    read_matrix_text("t.csv", "0 1 1e-50\n1 0 -1e-50\n", nullptr, &tiny);
    CHECK(tiny.count == 2);
    CHECK(tiny.first_line == 1);
    read_matrix_text("t.csv", "0 1 1\n", nullptr, &tiny);
    CHECK(tiny.count == 0);
    // A refused file has no note: what the caller holds is left as it was.
    tiny.count = 7;
    CHECK_THROWS(read_matrix_text("t.csv", "0 1 1e-50\n0 x\n", nullptr, &tiny));
    CHECK(tiny.count == 7);
}

TEST_CASE("reader: a program's memory budget is checked before anything is allocated",
          "[reader][memory]") {
    const ScratchDir dir;
    const matrix_reader_detail::InputLimits limits{{16, 16, 0},
                                                   {uint64_t{1} << 30, "a test budget"}};
    auto refusal_within = [&](const std::string& path) {
        try {
            read_matrix_file(path, &limits);
            return std::string("accepted");
        } catch (const BadInput& e) {
            return std::string(e.what());
        }
    };
    const std::string big = dir.write("big.mtx", kRealGeneral + "268435456 268435456 1\n1 1 1\n");
    CHECK_THAT(refusal_within(big),
               StartsWith(big + ":2: this program would need about 4.29 GB") &&
                   Contains("more than its memory budget of 1.07 GB (a test budget)") &&
                   Contains("give --max-memory 5G"));
    const std::string wide = dir.write("wide.csv", "1 2\n# comment\n268435455 0\n3 4\n");
    CHECK_THAT(refusal_within(wide), StartsWith(wide + ":3: this program would need about"));
    const std::string fits = dir.write("fits.mtx", kRealGeneral + "1000 1000 1\n1 1 1\n");
    CHECK(refusal_within(fits) == "accepted");
}

TEST_CASE("reader: text in memory is read as a file of the given name", "[reader][format]") {
    CHECK(read_matrix_text("t.csv", "0 1\n").nnz() == 1);
    CHECK_THROWS_WITH(read_matrix_text("t.mtx", "0 1\n"),
                      StartsWith("t.mtx:1: a .mtx file must start"));
    CHECK_THROWS_WITH(read_matrix_text("t.txt", ""), StartsWith("t.txt:1: the file is empty"));
}
