// The README's path, link by link. Its first 60 lines hold one table, a row a lesson: each row's
// program, notes section, figure and exercise must exist, and the notes section must be a
// heading of the chapter's notes whose GitHub anchor is the link's. Every program of
// programs.txt has exactly one row, the core path first and then the advanced lessons. Every
// relative link of README.md and notes/reference.md must reach its file, and its heading where
// it names one. Run from the repository root, as every test is.
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>
#include "program_list.h"
#include "run_program.h"

namespace fs = std::filesystem;

namespace {

constexpr size_t kFirstScreen = 60;  // the lines within which the path table must end

// The core path of each chapter: the programs that programs.txt does not mark `advanced`.
bool is_core(int number) {
    for (const ListedProgram& program : listed_programs())
        if (std::stoi(program.name.substr(0, 3)) == number) return !program.has("advanced");
    return false;
}

// The next code point of UTF-8 `text` at `at`, which moves past it; a stray byte is itself.
uint32_t next_code_point(const std::string& text, size_t& at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
    if (extra == 0 || at + extra >= text.size()) return byte(at++);
    uint32_t point = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) point = (point << 6) | (byte(at + k) & 0x3F);
    at += extra + 1;
    return point;
}

// Letters and digits beyond ASCII count as letters, except the punctuation blocks that headings
// use: Latin-1's signs, General Punctuation (dashes, quotes) and CJK and full-width punctuation.
bool is_letter_or_digit(uint32_t point) {
    if (point < 0x80) return std::isalnum(static_cast<int>(point)) != 0;
    if (point <= 0xBF || point == 0xD7 || point == 0xF7) return false;
    if (point >= 0x2000 && point <= 0x206F) return false;
    if (point >= 0x3000 && point <= 0x303F) return false;
    return !(point >= 0xFF00 && point <= 0xFF20);
}

// GitHub's anchor of a heading: lowercase; every character that is not a letter, digit, space
// or hyphen dropped; spaces turned into hyphens.
std::string github_slug(const std::string& heading) {
    std::string slug;
    for (size_t at = 0; at < heading.size();) {
        const size_t start = at;
        const uint32_t point = next_code_point(heading, at);
        if (point == ' ' || point == '-') {
            slug += '-';
        } else if (is_letter_or_digit(point)) {
            slug += point < 0x80
                        ? std::string(1, static_cast<char>(std::tolower(static_cast<int>(point))))
                        : heading.substr(start, at - start);
        }
    }
    return slug;
}

// The lines of a Markdown file outside its fenced code blocks; the others are left empty, so
// that line numbers stay the file's.
std::vector<std::string> prose_lines(const std::string& path) {
    std::vector<std::string> lines = lines_of(slurp(path));
    bool in_fence = false;
    for (std::string& line : lines) {
        const bool fence = line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0;
        if (fence) in_fence = !in_fence;
        if (fence || in_fence) line.clear();
    }
    return lines;
}

// Every heading's anchor in a Markdown file; a repeated heading gets -1, -2, ... as on GitHub.
std::set<std::string> anchors_of(const std::string& path) {
    std::set<std::string> anchors;
    std::map<std::string, int> seen;
    const std::regex heading("#{1,6} +(.*?) *#* *");
    std::smatch m;
    for (const std::string& line : prose_lines(path)) {
        if (!std::regex_match(line, m, heading)) continue;
        const std::string slug = github_slug(m[1].str());
        const int repeat = seen[slug]++;
        anchors.insert(repeat == 0 ? slug : slug + "-" + std::to_string(repeat));
    }
    return anchors;
}

struct Link {
    std::string target;  // as written: "notes/ch21_csr.md#112-adjacency-list-to-csr"
    size_t line;         // 1-based
};

// The Markdown links and images of a text, outside code spans.
std::vector<Link> links_in(const std::string& text, size_t line_number) {
    const std::string prose = std::regex_replace(text, std::regex("`[^`]*`"), "");
    std::vector<Link> links;
    const std::regex link(R"(\[[^\]]*\]\(([^)\s]+)\))");
    for (std::sregex_iterator it(prose.begin(), prose.end(), link), end; it != end; ++it)
        links.push_back({(*it)[1].str(), line_number});
    return links;
}

bool is_relative(const std::string& target) {
    return !std::regex_search(target, std::regex("^[a-zA-Z][a-zA-Z0-9+.-]*:"));
}

// A relative link of the Markdown file `from`, as the file it reaches (from the repository root)
// and the anchor that it names ("" for none).
struct Resolved {
    fs::path file;
    std::string anchor;
};

Resolved resolve(const std::string& from, const std::string& target) {
    const size_t hash = target.find('#');
    const std::string file = target.substr(0, hash);
    const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
    if (file.empty()) return {fs::path(from), anchor};
    return {(fs::path(from).parent_path() / file).lexically_normal(), anchor};
}

// Checks that a relative link reaches an existing file, and a heading of it where it names one.
void check_link_resolves(const std::string& from, const Link& link) {
    INFO(from << ":" << link.line << " links " << link.target);
    const Resolved to = resolve(from, link.target);
    CHECK(fs::exists(to.file));
    if (to.anchor.empty() || !fs::exists(to.file)) return;
    CHECK(to.file.extension() == ".md");
    const std::set<std::string> anchors = anchors_of(to.file.string());
    CHECK(anchors.count(to.anchor) == 1);
}

std::string trim(const std::string& text) {
    const size_t first = text.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The cells of a table row "| a | b |": {"a", "b"}.
std::vector<std::string> cells_of(const std::string& row) {
    std::vector<std::string> cells;
    size_t start = 1;
    for (size_t bar = row.find('|', start); bar != std::string::npos;
         start = bar + 1, bar = row.find('|', start))
        cells.push_back(trim(row.substr(start, bar - start)));
    return cells;
}

// A group's label: a row whose only text is bold, in its first or second cell.
bool is_label(const std::vector<std::string>& cells) {
    size_t filled = 0;
    for (const std::string& cell : cells) filled += cell.empty() ? 0 : 1;
    const std::string label = cells[0] + cells[1];
    return filled == 1 && label.size() > 4 && label.rfind("**", 0) == 0 &&
           label.compare(label.size() - 2, 2, "**") == 0;
}

const std::vector<std::string> kColumns = {"section", "question", "program",
                                           "notes",   "figure",   "exercise"};

struct PathRow {
    size_t line;
    bool core;                       // under the core path's label
    std::vector<std::string> cells;  // in kColumns' order
};

// The rows of the README's path table; it must end within the first screen.
std::vector<PathRow> path_rows() {
    const std::vector<std::string> lines = prose_lines("README.md");
    size_t header = 0;
    while (header < lines.size() && cells_of(lines[header]) != kColumns) ++header;
    INFO(
        "README.md's path table, headed | section | question | program | notes | figure | "
        "exercise |, within its first "
        << kFirstScreen << " lines");
    REQUIRE(header + 2 < kFirstScreen);
    REQUIRE(lines[header + 1].rfind("|---", 0) == 0);

    std::vector<PathRow> rows;
    int group = -1;  // -1 before a label, then 1 under the core path's, 0 under the advanced
    size_t line = header + 2;
    for (; line < lines.size() && lines[line].rfind("|", 0) == 0; ++line) {
        const std::vector<std::string> cells = cells_of(lines[line]);
        INFO("README.md:" << line + 1 << ": " << lines[line]);
        REQUIRE(cells.size() == kColumns.size());
        if (is_label(cells)) {
            const std::string label = cells[0] + cells[1];
            const bool core = label.find("**Core path") != std::string::npos;
            const bool advanced = label.find("**Advanced") != std::string::npos;
            CHECK(core != advanced);
            group = core ? 1 : 0;
            continue;
        }
        REQUIRE(group != -1);
        rows.push_back({line + 1, group == 1, cells});
    }
    INFO("the table ends at line " << line);
    CHECK(line <= kFirstScreen);
    return rows;
}

// The one link of a cell.
std::string only_link(const PathRow& row, size_t column) {
    const std::vector<Link> links = links_in(row.cells[column], row.line);
    INFO("README.md:" << row.line << ", column " << kColumns[column] << ": " << row.cells[column]);
    REQUIRE(links.size() == 1);
    return links[0].target;
}

}  // namespace

TEST_CASE("readme: an anchor is GitHub's slug of its heading", "[readme]") {
    CHECK(github_slug("112: Adjacency list to CSR") == "112-adjacency-list-to-csr");
    CHECK(github_slug("120: Sorted COO to CSR, one search per row boundary") ==
          "120-sorted-coo-to-csr-one-search-per-row-boundary");
    CHECK(github_slug("147: Conjugate gradient on the chapter's SpMV") ==
          "147-conjugate-gradient-on-the-chapters-spmv");
    CHECK(github_slug("Measured on an NVIDIA H200") == "measured-on-an-nvidia-h200");
    CHECK(github_slug("Glossary: English and zh-TW") == "glossary-english-and-zh-tw");
    CHECK(github_slug("Across several GPUs: 149 and `--ranks`") ==
          "across-several-gpus-149-and---ranks");
    CHECK(github_slug("Which GPUs: the oldest, a laptop\xE2\x80\x99s, and Colab's") ==
          "which-gpus-the-oldest-a-laptops-and-colabs");
    CHECK(github_slug("CSR \xE2\x80\x94 \xE5\x88\x97") == "csr--\xE5\x88\x97");
}

TEST_CASE("readme: every program of programs.txt has one row of the path, core path first",
          "[readme]") {
    std::vector<std::string> expected;
    for (const bool core : {true, false})
        for (const ListedProgram& program : listed_programs())
            if (is_core(std::stoi(program.name.substr(0, 3))) == core)
                expected.push_back(program.name);
    REQUIRE(expected.size() == 23);

    std::vector<std::string> in_table;
    for (const PathRow& row : path_rows()) {
        const std::string name = fs::path(only_link(row, 2)).stem().string();
        INFO("README.md:" << row.line << " is " << name);
        CHECK(is_core(std::stoi(name.substr(0, 3))) == row.core);
        in_table.push_back(name);
    }
    CHECK(in_table == expected);
}

TEST_CASE("readme: each row of the path links its program, notes, figure and exercise",
          "[readme]") {
    for (const PathRow& row : path_rows()) {
        INFO("README.md:" << row.line);
        CHECK_FALSE(row.cells[0].empty());
        CHECK_FALSE(row.cells[1].empty());

        const fs::path program = only_link(row, 2);
        const std::string number = program.stem().string().substr(0, 3);
        INFO("program " << program.string());
        CHECK(fs::is_regular_file(program));
        CHECK(std::regex_match(program.parent_path().string(), std::regex("ch(21_csr|14_spmv)")));
        std::smatch opening;  // the program's first line: "// NNN (CH.S) kernel: ..."
        const std::string first_line = lines_of(slurp(program.string())).at(0);
        const std::regex section_of_program("^// [0-9]{3} \\(([0-9.]+)\\)");
        REQUIRE(std::regex_search(first_line, opening, section_of_program));
        CHECK(row.cells[0] == opening[1].str());

        const Resolved notes = resolve("README.md", only_link(row, 3));
        INFO("notes " << notes.file.string() << "#" << notes.anchor);
        CHECK(notes.file == fs::path("notes") / (program.parent_path().string() + ".md"));
        CHECK(notes.anchor.rfind(number + "-", 0) == 0);
        REQUIRE(fs::is_regular_file(notes.file));
        CHECK(anchors_of(notes.file.string()).count(notes.anchor) == 1);

        const fs::path figure = only_link(row, 4);
        INFO("figure " << figure.string());
        CHECK(figure.parent_path() == fs::path("notes/figures"));
        CHECK(figure.extension() == ".png");
        CHECK(fs::is_regular_file(figure));

        if (row.cells[5] != "\xE2\x80\x94") {  // an em dash where the lesson has no exercise
            const fs::path exercise = only_link(row, 5);
            INFO("exercise " << exercise.string());
            CHECK(exercise.parent_path() == program.parent_path() / "exercises");
            CHECK(exercise.extension() == ".cu");
            CHECK(fs::is_regular_file(exercise));
        }
    }
}

TEST_CASE("readme: every relative link of the README and the reference resolves", "[readme]") {
    for (const char* from : {"README.md", "notes/reference.md"}) {
        REQUIRE(fs::is_regular_file(from));
        const std::vector<std::string> lines = prose_lines(from);
        size_t relative = 0;
        for (size_t i = 0; i < lines.size(); ++i)
            for (const Link& link : links_in(lines[i], i + 1))
                if (is_relative(link.target)) {
                    check_link_resolves(from, link);
                    ++relative;
                }
        INFO(from);
        CHECK(relative > 0);
    }
}
