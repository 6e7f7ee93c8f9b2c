// The notes' tables of measured numbers are written from committed CSV files by
// bench/notes_tables.py; here the notes are held to what the CSVs give, and a digit changed in
// any block that the script writes, each block found in the notes in turn, is caught. A sweep
// that records its time in its header (`# took_s=N`, written when the sweep ends) is read as one
// without it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

namespace {
const std::vector<std::string> kNotes = {"notes/ch14_spmv.md", "notes/ch21_csr.md"};

// The script's --check, on the notes it is given ("" for all of them): 0 where they match.
int notes_tables_check(const std::string& notes_flags) {
    const std::string command =
        "python3 bench/notes_tables.py --check" + notes_flags + " > /dev/null 2>&1";
    return std::system(command.c_str());
}

std::string text_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Block {
    std::string name;
    size_t begin;  // where its begin marker starts
    size_t end;    // where its end marker starts
};

std::vector<Block> blocks_of(const std::string& notes) {
    static const std::regex begin(
        "<!-- ([a-z0-9-]+): begin \\(bench/notes_tables.py writes this table\\) -->");
    std::vector<Block> blocks;
    for (auto it = std::sregex_iterator(notes.begin(), notes.end(), begin);
         it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        const size_t at = static_cast<size_t>(it->position());
        blocks.push_back({name, at, notes.find("<!-- " + name + ": end -->", at)});
    }
    return blocks;
}

// Where the digit to change lies: in the table's rows under its rule, the last digit of the first
// number with a decimal point past a row's first cell (a measurement or a figure made from one,
// not a row's label); npos where the block has none.
size_t digit_to_change(const std::string& notes, const Block& block) {
    static const std::regex decimal("\\d\\.\\d+");
    const size_t rule = notes.find("\n|---", block.begin);
    if (rule == std::string::npos || rule > block.end) return std::string::npos;
    for (size_t line = notes.find('\n', rule + 1) + 1; line < block.end;
         line = notes.find('\n', line) + 1) {
        const std::string row = notes.substr(line, notes.find('\n', line) - line);
        const size_t first_cell_end = row.find('|', 1);
        if (first_cell_end == std::string::npos) continue;
        const std::string cells = row.substr(first_cell_end);
        std::smatch found;
        if (!std::regex_search(cells, found, decimal)) continue;
        const auto last_digit = static_cast<size_t>(found.position() + found.length() - 1);
        return line + first_cell_end + last_digit;
    }
    return std::string::npos;
}
}  // namespace

TEST_CASE("notes: every generated table is the one its CSV gives", "[notes]") {
    CHECK(notes_tables_check("") == 0);
}

TEST_CASE("notes: a digit changed in any generated table is caught", "[notes]") {
    const std::filesystem::path changed =
        std::filesystem::temp_directory_path() /
        ("suite_notes_changed_" + std::to_string(getpid()) + ".md");
    for (const std::string& path : kNotes) {
        CAPTURE(path);
        const std::string notes = text_of(path);
        const std::string flags = " --notes '" + changed.string() + "'";
        // The copy unchanged passes, so that each failure below is the digit's.
        std::ofstream(changed) << notes;
        CHECK(notes_tables_check(flags) == 0);
        const std::vector<Block> blocks = blocks_of(notes);
        // A notes file without generated tables would prove nothing here.
        CHECK_FALSE(blocks.empty());
        for (const Block& block : blocks) {
            CAPTURE(block.name);
            REQUIRE(block.end != std::string::npos);
            const size_t digit = digit_to_change(notes, block);
            REQUIRE(digit != std::string::npos);
            std::string altered = notes;
            altered[digit] = altered[digit] == '9' ? '8' : '9';
            std::ofstream(changed) << altered;
            CHECK(notes_tables_check(flags) != 0);
        }
    }
    std::filesystem::remove(changed);
}

TEST_CASE("notes: a sweep whose header records its time reads as the same sweep", "[notes]") {
    const std::filesystem::path folder = std::filesystem::temp_directory_path();
    const std::string own = std::to_string(getpid());
    const std::filesystem::path copy = folder / ("sweep-suite-took-" + own + ".csv");
    const std::filesystem::path script = folder / ("suite_sweep_took_" + own + ".py");
    // The newest sweep, copied and given the line that bench/sweep.py adds when it ends (in
    // place of the one it may hold already); then the header, the rows and the tables drawn from
    // the newest sweep, read from both.
    std::ofstream(script) << "import shutil, sys\n"
                             "sys.path.insert(0, 'bench')\n"
                             "import notes_tables, plots, sweep\n"
                             "newest, copy = plots.newest_csv(), sys.argv[1]\n"
                             "shutil.copy(newest, copy)\n"
                             "sweep.record_took(copy, 251.4)\n"
                             "lines = open(copy).read().splitlines()\n"
                             "header_lines = [l for l in lines if l.startswith('#')]\n"
                             "assert header_lines[-1] == '# took_s=251', header_lines\n"
                             "assert lines.index('# took_s=251') == len(header_lines) - 1\n"
                             "assert sum(l.startswith('# took_s=') for l in lines) == 1\n"
                             "old_header, old_rows = sweep.read_sweep(newest)\n"
                             "old_header.pop('took_s', None)\n"
                             "header, rows = sweep.read_sweep(copy)\n"
                             "assert header.pop('took_s') == '251'\n"
                             "assert (header, rows) == (old_header, old_rows)\n"
                             "for name in ('format-table', 'group-size-table'):\n"
                             "    assert notes_tables.block_text(name, copy) == \\\n"
                             "        notes_tables.block_text(name, newest).replace(newest, copy)\n";
    const std::string python = "python3 " + script.string() + " " + copy.string();
    CHECK(std::system((python + " > /dev/null 2>&1").c_str()) == 0);
    CHECK(std::system(("python3 bench/plots.py --check " + copy.string() + " > /dev/null 2>&1")
                          .c_str()) == 0);
    // A check that can fail: the same script refuses a header without the line.
    std::ofstream(script, std::ios::app) << "open(copy, 'w').writelines(l + '\\n' for l in lines "
                                            "if not l.startswith('# took_s'))\n"
                                            "assert '# took_s' in open(copy).read()\n";
    CHECK(std::system((python + " > /dev/null 2>&1").c_str()) != 0);
    std::filesystem::remove(copy);
    std::filesystem::remove(script);
}
