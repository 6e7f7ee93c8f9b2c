// The notes and the README say what was measured in words and leave the numbers to the tables
// that bench/notes_tables.py writes from committed CSVs. Here a scanner reports each measured
// number written anywhere else (a time, a bandwidth, a percentage, a ratio of times), skipping
// the generated blocks and the HTML comments, and each generated block is held to naming a CSV
// that is there. Both are proved on planted texts before they run on the real files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>
#include "notes_text.h"

namespace {

const std::vector<std::string> kProse = {"notes/ch21_csr.md", "notes/ch14_spmv.md", "README.md"};

struct Finding {
    std::string file;
    size_t line;
    std::string text;  // the number and its unit, as written
};

// What the scanner reports: a number followed by a unit of time, of bandwidth, by a percent
// sign, or by a ratio of times (2.3x, 2.3×, "2.3 times faster", "three times the time"); not a
// number that is part of a word, of another number or an exponent (H200, sm_90, 2^24).
const std::regex& measured_number() {
    // 3.2, 1,589 or 4,237.5; not a list such as 0.57,0.1433.
    static const std::string number = "(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\\.[0-9]+)?";
    static const std::string spelled = "(?:two|three|four|five|six|seven|eight|nine|ten)";
    // A plain space, a no-break space or a thin one.
    static const std::string space = "(?: |\xC2\xA0|\xE2\x80\x89|\xE2\x80\xAF)";
    // A unit ends its word; "ms=" is a key of a timing: line, not a unit.
    static const std::string end = "(?![A-Za-z0-9_=])";
    static const std::string compared =
        "(?:faster|slower|quicker|longer|shorter|as fast|as slow|as long|the time|more time|"
        "less time)";
    static const std::string time = space + "?(?:ms|\xC2\xB5s|\xCE\xBCs|us|ns)" + end + "|" +
                                    space + "(?:s|(?:milli|micro|nano)?seconds?)" + end;
    static const std::string bandwidth = space + "?[KMGT]i?B/s";
    static const std::string percent = space + "?%|" + space + "(?:percent|per cent)" + end;
    // "2.3x", "2.3 ×": not a dimension such as "4x4" or "6 × 6", nor hexadecimal ("0x1f").
    static const std::string ratio = space + "?(?:x|\xC3\x97)(?![A-Za-z0-9]|" + space + "?[0-9])|" +
                                     space + "times" + space + compared;
    static const std::regex pattern("(^|[^A-Za-z0-9_.,^])((?:" + number + "(?:" + time + "|" +
                                        bandwidth + "|" + percent + "|" + ratio + ")|" + spelled +
                                        space + "times" + space + compared + "|twice" + space +
                                        "as" + space + "(?:fast|slow|long)))",
                                    std::regex::icase);
    return pattern;
}

// What a sentence may state although the scanner would report it: the book's constants and the
// counts that a program derives from a matrix alone, the same on every machine. Each entry is a
// pattern; a number within a match of it is not reported. The book's other constants (32 threads
// a warp, 128-byte lines, 32-byte sectors, 256 threads a block) carry no unit that the scanner
// reports, and need no entry.
const std::vector<std::regex> kAllowed = {
    // The share of a warp's lanes that hold work: 146's access model counts it from the matrix.
    std::regex("[0-9.]+% (?:of (?:the )?lanes )?busy"),
    // The share of contiguous requests: 146's access model counts it from the matrix.
    std::regex("[0-9.]+% contiguous"),
    // The margin that 150 prints its choice of group size against: a constant of its code.
    std::regex("within 10% of the fastest"),
};

bool allowed(const std::string& line, size_t begin, size_t length) {
    for (const std::regex& pattern : kAllowed)
        for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern);
             it != std::sregex_iterator(); ++it) {
            const auto at = static_cast<size_t>(it->position());
            if (at <= begin && begin + length <= at + static_cast<size_t>(it->length()))
                return true;
        }
    return false;
}

// Each measured number of a Markdown text outside its generated blocks and HTML comments. In a
// fenced code block, a program's output, a percentage or a ratio is a count that the program
// derives (146's share of contiguous requests), and only a time or a bandwidth, what a timing
// line prints, is reported: each of their units ends in "s", and no other kind does.
std::vector<Finding> measured_numbers(const std::string& file, const std::string& text) {
    const std::string scanned =
        notes_text::without_html_comments(notes_text::without_generated_blocks(text));
    const std::vector<std::string> lines = notes_text::split_lines(scanned);
    const std::vector<std::string> prose_lines =
        notes_text::split_lines(notes_text::without_fenced_code(scanned));
    std::vector<Finding> findings;
    for (size_t i = 0; i < lines.size(); ++i)
        for (auto it = std::sregex_iterator(lines[i].begin(), lines[i].end(), measured_number());
             it != std::sregex_iterator(); ++it) {
            const std::string found = (*it)[2];
            const bool in_code = prose_lines[i] != lines[i];
            const bool time_or_bandwidth = found.back() == 's' || found.back() == 'S';
            if (in_code && !time_or_bandwidth) continue;
            if (!allowed(lines[i], static_cast<size_t>(it->position(2)), found.size()))
                findings.push_back({file, i + 1, found});
        }
    return findings;
}

std::vector<std::string> texts_of(const std::vector<Finding>& findings) {
    std::vector<std::string> texts;
    for (const Finding& finding : findings) texts.push_back(finding.text);
    return texts;
}

std::string listed(const std::vector<Finding>& findings) {
    std::string text;
    for (const Finding& f : findings)
        text += f.file + ":" + std::to_string(f.line) + ": " + f.text + "\n";
    return text;
}

// Each generated block whose source line (the first line after its begin marker) names no CSV
// (`notes/.../NAME.csv`), or names one that is not there, or names no commit, or that has no end
// line.
std::vector<std::string> block_source_problems(const std::string& file, const std::string& text) {
    static const std::regex csv("`([^`\\s]+\\.csv)`");
    std::vector<std::string> problems;
    const std::vector<std::string> lines = notes_text::split_lines(text);
    for (const notes_text::GeneratedBlock& block : notes_text::generated_blocks(text)) {
        const std::string where = file + ":" + std::to_string(block.line) + ": " + block.name;
        if (block.end == std::string::npos) problems.push_back(where + " has no end line");
        size_t source = block.line;  // the 0-based index of the line after the marker
        while (source < lines.size() && lines[source].empty()) ++source;
        const std::string line = source < lines.size() ? lines[source] : "";
        size_t named = 0;
        for (auto it = std::sregex_iterator(line.begin(), line.end(), csv);
             it != std::sregex_iterator(); ++it) {
            ++named;
            if (!std::filesystem::is_regular_file((*it)[1].str()))
                problems.push_back(where + " comes from " + (*it)[1].str() +
                                   ", which is not there");
        }
        if (named == 0) problems.push_back(where + ": its source line names no CSV");
        if (line.find("commit ") == std::string::npos)
            problems.push_back(where + ": its source line names no commit");
    }
    return problems;
}

const std::string kPlanted =
    "The kernel took 3.2 ms at 812 GB/s, 85% of copy: 2.5x faster than 142, and 1.6 times the "
    "time of the library.";
const std::vector<std::string> kPlantedNumbers = {"3.2 ms", "812 GB/s", "85%", "2.5x",
                                                  "1.6 times the time"};

std::string generated(const std::string& name, const std::string& source, const std::string& body) {
    return "<!-- " + name + ": begin (bench/notes_tables.py writes this table) -->\n" + source +
           "\n\n" + body + "\n<!-- " + name + ": end -->\n";
}
}  // namespace

TEST_CASE("prose numbers: a planted number is caught", "[notes]") {
    const std::string text = "# Notes\n\nSome prose.\n\n" + kPlanted + "\n";
    const std::vector<Finding> findings = measured_numbers("planted.md", text);
    INFO(listed(findings));
    CHECK(texts_of(findings) == kPlantedNumbers);
    for (const Finding& finding : findings) CHECK(finding.line == 5);

    // The other ways of writing each kind are caught too.
    const std::string others =
        "85 % of it; 0.5 s; 3 µs, 40 us and 7 ns; 2 milliseconds; 1.2 TB/s and 0.9 GiB/s; "
        "1,589 x faster; 2.3× the time; 2.3 times slower; 4 times as fast; three times faster; "
        "twice as fast; 12 percent";
    CHECK(texts_of(measured_numbers("others.md", others)) ==
          std::vector<std::string>{"85 %", "0.5 s", "3 µs", "40 us", "7 ns", "2 milliseconds",
                                   "1.2 TB/s", "0.9 GiB/s", "1,589 x", "2.3×", "2.3 times slower",
                                   "4 times as fast", "three times faster", "twice as fast",
                                   "12 percent"});

    // The same line inside a generated block or an HTML comment is not prose.
    CHECK(measured_numbers("block.md", "# Notes\n\n" +
                                           generated("a-table", "From `x.csv` (H200):", kPlanted) +
                                           "\nProse after it.\n")
              .empty());
    CHECK(measured_numbers("comment.md", "<!-- " + kPlanted + "\n" + kPlanted + " -->\n").empty());

    // In a program's output, a timing line is caught and a counted share is not.
    CHECK(texts_of(measured_numbers("output.md",
                                    "```text\n  COO   2.687 ms   225 GB/s   100.0%"
                                    "   4.00x\ntiming: rmat=0.57,0.1433 ms=2.687"
                                    "\n```\n")) ==
          std::vector<std::string>{"2.687 ms", "225 GB/s"});

    // The book's constants, and numbers that are not measurements, are not reported.
    const std::string constants =
        "A warp has 32 threads; 128-byte lines hold four 32-byte sectors; 256 threads a block; "
        "Fig. 14.3; a 4x4 tile; a 6 × 6 matrix; address 0x1f; sm_90 on an H200; 2 sections; "
        "scale 22; v1.5x; 3 steps; A^3 x; 2^24 rows.";
    const std::vector<Finding> none = measured_numbers("constants.md", constants);
    INFO(listed(none));
    CHECK(none.empty());

    // Each allowed pattern lets its own number through, and that number alone.
    const std::string counts =
        "11.1% of lanes busy and 3.4% busy; 100% contiguous requests; "
        "within 10% of the fastest, and within 5% of the fastest";
    CHECK(texts_of(measured_numbers("counts.md", counts)) == std::vector<std::string>{"5%"});
}

TEST_CASE("prose numbers: the notes and the README state no measured number in prose", "[notes]") {
    for (const std::string& file : kProse) {
        CAPTURE(file);
        const std::string text = notes_text::read_text(file);
        REQUIRE_FALSE(text.empty());
        const std::vector<Finding> findings = measured_numbers(file, text);
        INFO(listed(findings));
        CHECK(findings.empty());
    }
}

TEST_CASE("prose numbers: every generated block names a CSV that is there", "[notes]") {
    SECTION("a synthetic text") {
        const std::string good = generated(
            "coo-csr-scale22", "From `notes/measurements/coo-csr-scale22.csv` (an H200, commit 0):",
            "| a |\n|---|\n| 1.0 |");
        CHECK(block_source_problems("good.md", good).empty());
        const std::string missing = generated(
            "gone", "From `notes/measurements/no-such-table.csv` (an H200, commit 0):", "| a |");
        const std::vector<std::string> problems = block_source_problems("missing.md", missing);
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find("no-such-table.csv") != std::string::npos);
        CHECK(block_source_problems("unnamed.md", generated("x", "From somewhere, commit 0:", "|"))
                  .size() == 1);
        CHECK(block_source_problems(
                  "no-commit.md",
                  generated("x", "From `notes/measurements/coo-csr-scale22.csv`:", "| a |"))
                  .size() == 1);
        CHECK(block_source_problems("open.md",
                                    "<!-- x: begin (bench/notes_tables.py writes this table) "
                                    "-->\nFrom `notes/measurements/coo-csr-scale22.csv`, "
                                    "commit 0:\n")
                  .size() == 1);
    }
    SECTION("the notes") {
        for (const std::string& file : kProse) {
            CAPTURE(file);
            const std::vector<std::string> problems =
                block_source_problems(file, notes_text::read_text(file));
            std::string text;
            for (const std::string& problem : problems) text += problem + "\n";
            INFO(text);
            CHECK(problems.empty());
        }
    }
}
