// The notes' tables of measured numbers are written from the committed sweep CSV by
// bench/format_table.py; here the notes are held to what the CSV gives, and a changed number in
// a copy of them is caught.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace {
int format_table_check(const std::string& notes) {
    const std::string command =
        "python3 bench/format_table.py --check --notes '" + notes + "' > /dev/null 2>&1";
    return std::system(command.c_str());
}

// The notes with one digit changed: the last digit before `after`, first found past `block`.
std::string with_a_digit_changed(const std::string& block, const std::string& after) {
    std::ifstream in("notes/ch14_spmv.md");
    std::stringstream text;
    text << in.rdbuf();
    std::string notes = text.str();
    const size_t table = notes.find(block);
    REQUIRE(table != std::string::npos);
    const size_t at = notes.find(after, table);
    REQUIRE(at != std::string::npos);
    notes[at - 1] = notes[at - 1] == '9' ? '8' : '9';
    return notes;
}
}  // namespace

TEST_CASE("notes: chapter 14's tables are the ones the newest sweep CSV gives",
          "[notes]") {
    CHECK(format_table_check("notes/ch14_spmv.md") == 0);
}

TEST_CASE("notes: a table that differs from the CSV is caught", "[notes]") {
    const std::string changed =
        (std::filesystem::temp_directory_path() / "suite_notes_changed.md").string();
    // The first time of the which-format table, then the first ratio of the group-size table.
    for (const auto& [block, after] :
         {std::pair<std::string, std::string>{"<!-- format-table: begin", " ms |"},
          {"<!-- group-size-table: begin", " |\n| 0.45"}}) {
        CAPTURE(block);
        std::ofstream(changed) << with_a_digit_changed(block, after);
        CHECK(format_table_check(changed) != 0);
    }
    std::filesystem::remove(changed);
}
