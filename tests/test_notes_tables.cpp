// The notes' tables of measured numbers are written from the committed sweep CSV by
// bench/format_table.py; here the notes are held to what the CSV gives, and a changed number in
// a copy of them is caught.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {
int format_table_check(const std::string& notes) {
    const std::string command =
        "python3 bench/format_table.py --check --notes '" + notes + "' > /dev/null 2>&1";
    return std::system(command.c_str());
}
}  // namespace

TEST_CASE("notes: chapter 14's which-format table is the one the newest sweep CSV gives",
          "[notes]") {
    CHECK(format_table_check("notes/ch14_spmv.md") == 0);
}

TEST_CASE("notes: a table that differs from the CSV is caught", "[notes]") {
    std::ifstream in("notes/ch14_spmv.md");
    std::stringstream text;
    text << in.rdbuf();
    std::string notes = text.str();
    const size_t table = notes.find("<!-- format-table: begin");
    REQUIRE(table != std::string::npos);
    const size_t ms = notes.find(" ms |", table);
    REQUIRE(ms != std::string::npos);
    notes[ms - 1] = notes[ms - 1] == '9' ? '8' : '9';  // the last digit of the first time
    const std::string changed =
        (std::filesystem::temp_directory_path() / "suite_notes_changed.md").string();
    std::ofstream(changed) << notes;
    CHECK(format_table_check(changed) != 0);
    std::filesystem::remove(changed);
}
