// Every numbered program follows the one anatomy (CONTRIBUTING.md): its header's first line says
// "NNN (CH.S) kernel: ..." or "NNN (CH.S) CPU baseline: ...", as its --help title does; the
// commands of its "Build and run:" block are its --help examples, the same lines in the same
// order; its main, and the proof file that main calls, are left out when a later lesson or a
// test includes it; every include of an earlier lesson says what it takes; a kernel lesson's main
// launches its kernels (or an earlier lesson's that it takes); no proof or chapter helper
// includes a lesson or has a line over 100 columns. And, run on the book's example, it labels
// each array that it prints with a name from its own sources or from common/, or gives the
// book's name beside it. programs.txt lists every one.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>
#include "program_list.h"
#include "run_program.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string trimmed(const std::string& s) {
    const size_t first = s.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// The commands of the header's "Build and run:" block: the rest of its line, then each comment
// line indented under it, up to the first line that is not.
std::vector<std::string> header_commands(const std::vector<std::string>& lines) {
    std::vector<std::string> commands;
    const std::string marker = "Build and run:";
    for (size_t i = 0; i < lines.size() && lines[i].rfind("//", 0) == 0; ++i) {
        const size_t at = lines[i].find(marker);
        if (at == std::string::npos) continue;
        commands.push_back(trimmed(lines[i].substr(at + marker.size())));
        for (size_t j = i + 1; j < lines.size() && lines[j].rfind("//   ", 0) == 0; ++j)
            commands.push_back(trimmed(lines[j].substr(2)));
        break;
    }
    return commands;
}

// The lines under "examples:" in --help.
std::vector<std::string> help_examples(const std::string& help) {
    std::vector<std::string> examples;
    bool in_examples = false;
    for (const std::string& line : lines_of(help)) {
        if (line == "examples:") {
            in_examples = true;
        } else if (in_examples) {
            if (line.rfind("  ", 0) != 0) break;
            examples.push_back(trimmed(line));
        }
    }
    return examples;
}

// The text of a source and of every file it includes with quotes, transitively.
void gather_sources(const fs::path& file, std::set<fs::path>& seen, std::string& text) {
    const fs::path canonical = fs::weakly_canonical(file);
    if (!fs::exists(canonical) || !seen.insert(canonical).second) return;
    const std::string own = slurp(canonical.string());
    text += own + "\n";
    const std::regex include("#include \"([^\"]+)\"");
    for (std::sregex_iterator it(own.begin(), own.end(), include), end; it != end; ++it)
        gather_sources(canonical.parent_path() / (*it)[1].str(), seen, text);
}

// The names of the code: identifiers outside comments and string literals, so that a label that
// appears only in the very string that prints it is not taken for a name of the code.
std::set<std::string> identifiers_in(const std::string& text) {
    const std::string code = std::regex_replace(
        text,
        std::regex("//[^\n]*|\"(\\\\.|[^\"\\\\\\n])*\"|'(\\\\.|[^'\\\\\\n])*'"), " ");
    std::set<std::string> names;
    const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
    for (std::sregex_iterator it(code.begin(), code.end(), word), end; it != end; ++it)
        names.insert(it->str());
    return names;
}

// The arguments of the call whose "(" is at `open`, split at the commas outside brackets.
std::vector<std::string> call_arguments(const std::string& text, size_t open) {
    std::vector<std::string> args;
    int depth = 0;
    size_t start = open + 1;
    for (size_t i = open + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '{' || c == '[') {
            ++depth;
        } else if (c == ')' || c == '}' || c == ']') {
            if (depth == 0) {
                args.push_back(trimmed(text.substr(start, i - start)));
                break;
            }
            --depth;
        } else if (c == ',' && depth == 0) {
            args.push_back(trimmed(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    for (std::string& a : args) a = trimmed(std::regex_replace(a, std::regex("\\s+"), " "));
    return args;
}

// A grid or block size that the reader sees in the file: a number, or a name (the first of the
// expression, past a cast) that the file gives a value (`name =`) or defines as a function or a
// constant.
bool shown_in(const std::string& size, const std::string& text) {
    const std::string bare =
        std::regex_replace(size, std::regex("^static_cast<\\w+>\\((.*)\\)$"), "$1");
    if (std::regex_match(bare, std::regex("[0-9]+u?"))) return true;
    std::smatch m;
    if (!std::regex_search(bare, m, std::regex("^\\(*([A-Za-z_]\\w*)"))) return false;
    const std::string name = m[1].str();
    return std::regex_search(text, std::regex("\\b" + name + "\\s*=[^=]")) ||
           std::regex_search(text, std::regex("(unsigned|int|size_t) " + name + "\\(")) ||
           std::regex_search(text, std::regex("constexpr \\w+ " + name + "\\b"));
}

// The code of a source without its comments, string literals and preprocessor lines.
std::string bare_code(const std::string& text) {
    const std::string no_strings = std::regex_replace(
        text,
        std::regex("//[^\n]*|\"(\\\\.|[^\"\\\\\\n])*\"|'(\\\\.|[^'\\\\\\n])*'"), " ");
    return std::regex_replace(no_strings, std::regex("(^|\n)[ \t]*#[^\n]*"), "\n");
}

// The functions and types that a file defines at its top level, each with the text of its
// body: a braced block at depth 0 takes the name before its first "(" (a function), or the name
// after struct or class (a type, whose member functions are in its body).
std::vector<std::pair<std::string, std::string>> top_level_definitions(const std::string& code) {
    std::vector<std::pair<std::string, std::string>> definitions;
    int depth = 0;
    size_t head_start = 0, body_start = 0;
    const std::regex type_name("\\b(?:struct|class)\\s+(\\w+)");
    const std::regex function_name("(\\w+)\\s*\\(");
    for (size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '{' && depth++ == 0) body_start = i;
        if (c == '}' && --depth == 0) {
            const std::string head = code.substr(head_start, body_start - head_start);
            std::smatch m;
            if (std::regex_search(head, m, type_name) || std::regex_search(head, m, function_name))
                definitions.emplace_back(m[1].str(), code.substr(body_start, i - body_start));
            head_start = i + 1;
        }
        if (c == ';' && depth == 0) head_start = i + 1;
    }
    return definitions;
}

// The earlier lessons that a lesson includes, and those that they include.
std::vector<fs::path> included_lessons(const fs::path& lesson) {
    std::vector<fs::path> found;
    std::vector<fs::path> pending{lesson};
    const std::regex include("#include \"([^\"]*[0-9]{3}_\\w+\\.(cu|cpp))\"");
    while (!pending.empty()) {
        const fs::path file = pending.back();
        pending.pop_back();
        const std::string text = slurp(file.string());
        for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
            const fs::path taken = fs::weakly_canonical(file.parent_path() / (*it)[1].str());
            if (std::find(found.begin(), found.end(), taken) != found.end()) continue;
            found.push_back(taken);
            pending.push_back(taken);
        }
    }
    return found;
}

bool launches_directly(const std::string& body) {
    return body.find(".launch(") != std::string::npos ||
           body.find(".launch_blocks(") != std::string::npos ||
           body.find("<<<") != std::string::npos;
}

bool mentions(const std::string& body, const std::string& name) {
    return std::regex_search(body, std::regex("\\b" + name + "\\b"));
}

}  // namespace

TEST_CASE("anatomy: programs.txt lists every numbered program once, in the order of numbers",
          "[anatomy]") {
    std::vector<std::string> sources, listed;
    for (const NumberedProgram& p : numbered_programs()) sources.push_back(p.name);
    for (const ListedProgram& p : listed_programs()) listed.push_back(p.name);
    CHECK(listed == sources);
}

TEST_CASE("anatomy: each header's first line names the program, its section and its kind",
          "[anatomy]") {
    const std::regex first_line("// ([0-9]{3}) \\((21|14)\\.[0-9]+\\) (kernel|CPU baseline): .+");
    for (const NumberedProgram& p : numbered_programs()) {
        const std::vector<std::string> lines = lines_of(slurp(p.source.string()));
        REQUIRE(!lines.empty());
        std::smatch m;
        INFO(p.source.string() << ": " << lines[0]);
        CHECK(std::regex_match(lines[0], m, first_line));
        if (m.empty()) continue;
        CHECK(m[1].str() == p.name.substr(0, 3));
        CHECK((m[3].str() == "kernel") == p.needs_cuda);
        const ProgramRun help = run_program(p.name, {"--help"});
        CHECK(help.exit_code == 0);
        CHECK(lines_of(help.out)[0].rfind(lines[0].substr(3, m[0].str().find(':') - 2), 0) == 0);
    }
}

TEST_CASE("anatomy: the header's Build and run lines are the --help examples", "[anatomy]") {
    for (const NumberedProgram& p : numbered_programs()) {
        const std::vector<std::string> header = header_commands(lines_of(slurp(p.source.string())));
        const ProgramRun help = run_program(p.name, {"--help"});
        INFO(p.source.string());
        CHECK(!header.empty());
        CHECK(header == help_examples(help.out));
    }
}

TEST_CASE("anatomy: main and the proof that it calls are the program's alone; included lessons "
          "say why",
          "[anatomy]") {
    const std::regex lesson_include(
        "\\s*#include \"(\\.\\./)*(ch21_csr/|ch14_spmv/)?[0-9]{3}_\\w+\\.(cu|cpp)\"");
    std::vector<fs::path> includers;
    for (const NumberedProgram& p : numbered_programs()) includers.push_back(p.source);
    for (const char* folder : {"ch21_csr", "ch14_spmv", "bench", "tests"})
        for (const auto& entry : fs::recursive_directory_iterator(folder))
            if (entry.is_regular_file()) includers.push_back(entry.path());
    for (const NumberedProgram& p : numbered_programs()) {
        const std::vector<std::string> lines = lines_of(slurp(p.source.string()));
        INFO(p.source.string());
        size_t program_part = lines.size(), main_line = lines.size(), proof_line = lines.size();
        for (size_t i = 0; i < lines.size(); ++i) {
            if (lines[i].rfind("#if __INCLUDE_LEVEL__ == 0", 0) == 0) program_part = i;
            if (lines[i].rfind("int main(", 0) == 0) main_line = i;
            if (lines[i].rfind("#include \"proof/", 0) == 0 && proof_line == lines.size())
                proof_line = i;
        }
        CHECK(program_part < proof_line);
        CHECK(proof_line < main_line);
        CHECK(main_line < lines.size());
    }
    for (const fs::path& file : includers) {
        if (file.extension() == ".out" || file.extension() == ".o") continue;
        const std::vector<std::string> lines = lines_of(slurp(file.string()));
        for (size_t i = 0; i < lines.size(); ++i) {
            if (!std::regex_match(lines[i], lesson_include)) continue;
            if (file.string().rfind("tests/", 0) == 0) continue;  // a test takes the whole lesson
            INFO(file.string() << ":" << i + 1 << ": " << lines[i]);
            CHECK((i > 0 && trimmed(lines[i - 1]).rfind("//", 0) == 0));
        }
    }
}

TEST_CASE("anatomy: every array label printed on the book's example is a name of the code, or "
          "gives the book's name",
          "[anatomy][labels]") {
    std::set<fs::path> seen;
    std::string common_text;
    for (const auto& entry : fs::directory_iterator("common")) {
        common_text += slurp(entry.path().string()) + "\n";
    }
    const std::set<std::string> common_names = identifiers_in(common_text);
    // "  row_offsets (the book's rowPtrs) = [ 0 2 4 ]", "  x = (10 entries, too many to print)"
    const std::regex array_line("  (\\S(?:.*\\S)?) += [\\[(].*");
    const std::regex with_book_name(".+ \\(the book's [^)]+\\)");
    for (const NumberedProgram& p : numbered_programs()) {
        std::set<fs::path> own_seen;
        std::string own_text;
        gather_sources(p.source, own_seen, own_text);
        const std::set<std::string> own_names = identifiers_in(own_text);
        const ProgramRun run = run_program(p.name, {});
        INFO(p.name << " exit " << run.exit_code);
        CHECK(run.exit_code == 0);
        for (const std::string& line : lines_of(run.out)) {
            std::smatch m;
            if (!std::regex_match(line, m, array_line)) continue;
            const std::string label = m[1].str();
            INFO(p.name << " prints the array label '" << label << "'");
            const bool named = own_names.count(label) > 0 || common_names.count(label) > 0;
            CHECK((named || std::regex_match(label, with_book_name)));
        }
    }
}

TEST_CASE("anatomy: every launch in a kernel lesson shows its grid and block sizes in the lesson; "
          "the first kernel lesson of each chapter launches with <<< >>>",
          "[anatomy][launch]") {
    for (const NumberedProgram& p : numbered_programs()) {
        if (!p.needs_cuda) continue;
        const std::string text = slurp(p.source.string());
        const std::string code = std::regex_replace(text, std::regex("//[^\\n]*"), "");
        INFO(p.source.string());
        int launches = 0;
        for (const std::string call : {".launch(", ".launch_blocks(", "<<<"}) {
            for (size_t at = code.find(call); at != std::string::npos;
                 at = code.find(call, at + 1)) {
                ++launches;
                std::vector<std::string> sizes;
                if (call == "<<<") {
                    const size_t end = code.find(">>>", at);
                    REQUIRE(end != std::string::npos);
                    sizes = call_arguments("(" + code.substr(at + 3, end - at - 3) + ")", 0);
                } else {
                    const std::vector<std::string> args =
                        call_arguments(code, at + call.size() - 1);
                    REQUIRE(args.size() >= 2);
                    sizes = call == ".launch("
                                ? std::vector<std::string>{args[0], args[1]}
                                : args[0].front() == '{'
                                      ? call_arguments(args[0], 0)
                                      : std::vector<std::string>{args[0]};
                }
                for (size_t i = 0; i < std::min<size_t>(2, sizes.size()); ++i) {
                    INFO("a launch's " << (i == 0 ? "grid" : "block") << " size: " << sizes[i]);
                    CHECK(shown_in(sizes[i], code));
                }
            }
        }
        const bool first_of_chapter = p.name.rfind("113_", 0) == 0 || p.name.rfind("142_", 0) == 0;
        if (first_of_chapter) CHECK(code.find("<<<") != std::string::npos);
        if (first_of_chapter) CHECK(code.find("cudaMalloc(") != std::string::npos);
        if (first_of_chapter) CHECK(code.find("cudaMemcpy(") != std::string::npos);
        if (first_of_chapter) CHECK(code.find("cudaFree(") != std::string::npos);
        CAPTURE(launches);
    }
}

TEST_CASE("anatomy: a kernel lesson's main launches its kernels, itself or through a function "
          "of its own file or of an earlier lesson that it takes",
          "[anatomy][launch]") {
    for (const NumberedProgram& p : numbered_programs()) {
        if (!p.needs_cuda) continue;
        INFO(p.source.string());
        auto definitions = top_level_definitions(bare_code(slurp(p.source.string())));
        std::string main_body;
        for (const auto& [name, body] : definitions)
            if (name == "main") main_body = body;
        for (const fs::path& lesson : included_lessons(p.source)) {
            const auto taken = top_level_definitions(bare_code(slurp(lesson.string())));
            definitions.insert(definitions.end(), taken.begin(), taken.end());
        }
        std::set<std::string> launchers;
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& [name, body] : definitions) {
                if (name == "main" || launchers.count(name)) continue;
                bool launches = launches_directly(body);
                for (const std::string& launcher : launchers)
                    launches = launches || mentions(body, launcher);
                if (launches) grew = launchers.insert(name).second;
            }
        }
        REQUIRE(!main_body.empty());
        bool main_launches = launches_directly(main_body);
        for (const std::string& launcher : launchers)
            main_launches = main_launches || mentions(main_body, launcher);
        CHECK(main_launches);
    }
}

TEST_CASE("anatomy: a proof or a chapter helper includes no lesson and no lesson's own proof, "
          "and has no line over 100 columns",
          "[anatomy]") {
    const std::regex include("#include \"([^\"]+)\"");
    const std::regex numbered("[0-9]{3}_\\w+\\.\\w+");
    int files = 0;
    for (const char* chapter : {"ch21_csr", "ch14_spmv"}) {
        std::vector<fs::path> files_here;
        for (const auto& entry : fs::directory_iterator(chapter))
            if (entry.is_regular_file() &&
                !std::regex_match(entry.path().filename().string(), numbered))
                files_here.push_back(entry.path());
        for (const auto& entry : fs::directory_iterator(fs::path(chapter) / "proof"))
            files_here.push_back(entry.path());
        for (const fs::path& file : files_here) {
            ++files;
            const std::string text = slurp(file.string());
            for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end;
                 ++it) {
                const std::string included = fs::path((*it)[1].str()).filename().string();
                INFO(file.string() << " includes " << (*it)[1].str());
                CHECK(!std::regex_match(included, numbered));
            }
            int line_number = 0;
            for (const std::string& line : lines_of(text)) {
                ++line_number;
                INFO(file.string() << ":" << line_number);
                CHECK(line.size() <= 100);
            }
        }
    }
    CHECK(files > 0);
}
