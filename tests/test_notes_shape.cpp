// Each chapter's notes hold the course's shape: a title, a contents list, one section a numbered
// program in program order with its seven parts (Question, Idea, Figure, Run it, What to notice,
// Self-check, Exercise), then the measurements and the glossary; every question answered in a
// folded block, every number of a question used once, every link and image found. Each check is
// a function over a text, proved first on a small synthetic chapter that passes and on variants
// that must fail, then run on notes/ch21_csr.md and notes/ch14_spmv.md.
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "notes_text.h"
#include "program_list.h"

namespace fs = std::filesystem;
using notes_text::Heading;
using notes_text::Link;
using Problems = std::vector<std::string>;

namespace {

// Whether a program is one of the advanced lessons (programs.txt's `advanced`), which the
// contents list marks "(advanced)".
bool is_advanced(int number) {
    for (const ListedProgram& program : listed_programs())
        if (std::stoi(program.name.substr(0, 3)) == number) return program.has("advanced");
    return false;
}

const std::vector<std::string> kParts = {"Question",       "Idea",       "Figure",  "Run it",
                                         "What to notice", "Self-check", "Exercise"};
const std::string kMeasured = "Measured on an NVIDIA H200";
const std::string kGlossary = "Glossary: English and zh-TW";
const std::string kAnswerOpen = "<details><summary>Answer</summary>";

// A source that names a self-check question by its number ("self-check question 6").
struct Citation {
    std::string file;
    int program;  // the numbered program whose source cites it, or 0
    int question;
};

struct Chapter {
    int number;                       // 21 or 14
    std::string path;                 // its notes
    std::vector<int> programs;        // its programs' numbers, in program order
    int kept_questions;               // questions 1 to this one were asked before the course
    std::vector<Citation> citations;  // its sources' references to its questions
    std::vector<fs::path> exercises;  // its exercises' skeletons, ch21_csr/exercises/ex*.cu
};

// The citations of questions in the sources under a chapter's folder.
std::vector<Citation> citations_in(const std::string& folder) {
    static const std::regex cited("question ([0-9]+)", std::regex::icase);
    static const std::regex numbered("([0-9]{3})_\\w+");
    std::vector<Citation> citations;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (!entry.is_regular_file()) continue;
        const std::string text = notes_text::read_text(entry.path().string());
        std::smatch program;
        const std::string stem = entry.path().stem().string();
        const int number = std::regex_match(stem, program, numbered) ? std::stoi(program[1]) : 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), cited);
             it != std::sregex_iterator(); ++it)
            citations.push_back({entry.path().string(), number, std::stoi((*it)[1])});
    }
    return citations;
}

std::vector<fs::path> exercises_in(const std::string& folder) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().filename().string().rfind("ex", 0) == 0 &&
            entry.path().extension() == ".cu")
            found.push_back(entry.path().lexically_normal());
    std::sort(found.begin(), found.end());
    return found;
}

// The chapters, their programs taken from programs.txt: 11x and 12x are chapter 21's, 14x and
// 150 chapter 14's. Before the course, chapter 21's notes asked questions 1 to 11, and chapter
// 14's 1 to 12; each keeps its number.
Chapter chapter_of(int number, const std::string& folder, int kept_questions) {
    Chapter chapter{};
    chapter.number = number;
    chapter.path = "notes/" + folder + ".md";
    chapter.kept_questions = kept_questions;
    chapter.citations = citations_in(folder);
    chapter.exercises = exercises_in(folder + "/exercises");
    return chapter;
}

std::vector<Chapter> chapters() {
    Chapter ch21 = chapter_of(21, "ch21_csr", 11), ch14 = chapter_of(14, "ch14_spmv", 12);
    for (const ListedProgram& program : listed_programs()) {
        const int number = std::stoi(program.name.substr(0, 3));
        (number >= 140 ? ch14 : ch21).programs.push_back(number);
    }
    return {ch21, ch14};
}

struct Notes {
    std::string path;
    std::string text;
    std::vector<std::string> lines;
    std::vector<Heading> headings;
    std::vector<std::string> anchors;
};

Notes notes_of(const std::string& path, const std::string& text) {
    return {path, text, notes_text::split_lines(text), notes_text::headings_of(text),
            notes_text::anchors_of(text)};
}

std::string at(const Notes& notes, size_t line) {
    return notes.path + ":" + std::to_string(line) + ": ";
}

bool has(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// The program of a "## NNN: ..." heading, or 0.
int program_of(const Heading& heading) {
    static const std::regex numbered("([0-9]{3}): .*");
    std::smatch found;
    if (heading.level != 2 || !std::regex_match(heading.text, found, numbered)) return 0;
    return std::stoi(found[1]);
}

// The index of the first heading of `level` whose text is `text`, or npos.
size_t find_heading(const Notes& notes, int level, const std::string& text) {
    for (size_t i = 0; i < notes.headings.size(); ++i)
        if (notes.headings[i].level == level && notes.headings[i].text == text) return i;
    return std::string::npos;
}

// The index of the heading that ends heading `i`'s part: the next one of its level or above.
size_t part_end(const Notes& notes, size_t i) {
    size_t next = i + 1;
    while (next < notes.headings.size() && notes.headings[next].level > notes.headings[i].level)
        ++next;
    return next;
}

// The first and one past the last line (1-based) of heading `i`'s part, the heading excluded.
std::pair<size_t, size_t> part_lines(const Notes& notes, size_t i) {
    const size_t end = part_end(notes, i);
    return {notes.headings[i].line + 1,
            end < notes.headings.size() ? notes.headings[end].line : notes.lines.size() + 1};
}

std::string part_text(const Notes& notes, size_t i) {
    const auto [first, last] = part_lines(notes, i);
    std::string text;
    for (size_t line = first; line < last; ++line) text += notes.lines[line - 1] + "\n";
    return text;
}

// The program sections: heading index by program number, in the file's order.
std::vector<std::pair<int, size_t>> program_sections(const Notes& notes) {
    std::vector<std::pair<int, size_t>> sections;
    for (size_t i = 0; i < notes.headings.size(); ++i)
        if (program_of(notes.headings[i])) sections.push_back({program_of(notes.headings[i]), i});
    return sections;
}

// The heading index of a program section's part, or npos.
size_t part_of(const Notes& notes, size_t section, const std::string& name) {
    for (size_t i = section + 1; i < part_end(notes, section); ++i)
        if (notes.headings[i].level == 3 && notes.headings[i].text == name) return i;
    return std::string::npos;
}

std::string joined(const std::vector<int>& numbers) {
    std::string text;
    for (int n : numbers) text += (text.empty() ? "" : ", ") + std::to_string(n);
    return text;
}

Problems check_title(const Notes& notes, const Chapter& chapter) {
    const std::string want = "Chapter " + std::to_string(chapter.number) + ": ";
    size_t first = 0;
    while (first < notes.lines.size() && notes.lines[first].empty()) ++first;
    if (notes.headings.empty() || notes.headings[0].level != 1 ||
        notes.headings[0].line != first + 1 || notes.headings[0].text.rfind(want, 0) != 0)
        return {at(notes, first + 1) + "the file does not open with `# " + want + "...`"};
    return {};
}

Problems check_program_sections(const Notes& notes, const Chapter& chapter) {
    Problems problems;
    std::vector<int> order;
    for (const auto& [number, index] : program_sections(notes)) {
        const Heading& heading = notes.headings[index];
        if (std::find(chapter.programs.begin(), chapter.programs.end(), number) ==
            chapter.programs.end())
            problems.push_back(at(notes, heading.line) + "a section for " + std::to_string(number) +
                               ", which is not this chapter's program");
        const std::string prefix = std::to_string(number) + ": ";
        if (heading.text.size() <= prefix.size() || heading.text.rfind(prefix, 0) != 0)
            problems.push_back(at(notes, heading.line) + "`## " + heading.text +
                               "`: a section's heading is `## " + prefix + "its title`");
        order.push_back(number);
    }
    for (int program : chapter.programs) {
        const auto count = std::count(order.begin(), order.end(), program);
        if (count != 1)
            problems.push_back(notes.path + ": " + std::to_string(count) + " sections `## " +
                               std::to_string(program) + ": ...`; one is wanted");
    }
    if (!std::is_sorted(order.begin(), order.end()))
        problems.push_back(notes.path + ": the program sections run " + joined(order) +
                           "; program order is " + joined(chapter.programs));
    if (find_heading(notes, 2, "Advanced lessons") != std::string::npos)
        problems.push_back(notes.path +
                           ": `## Advanced lessons` is not used; the contents list "
                           "marks the advanced lessons");
    return problems;
}

// The items of a list in a text: each item's text, continuation lines included, with its line.
std::vector<std::pair<std::string, size_t>> list_items(const std::string& text, size_t first) {
    static const std::regex item_start("^\\s*[-*+] .*");
    std::vector<std::pair<std::string, size_t>> items;
    const std::vector<std::string> lines = notes_text::split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
        if (std::regex_match(lines[i], item_start))
            items.push_back({lines[i], first + i});
        else if (!lines[i].empty() && !items.empty())
            items.back().first += "\n" + lines[i];
    }
    return items;
}

Problems check_contents(const Notes& notes, const Chapter&) {
    const size_t contents = find_heading(notes, 2, "Contents");
    if (contents == std::string::npos) return {notes.path + ": no `## Contents`"};
    Problems problems;
    const auto sections = program_sections(notes);
    if (!sections.empty() && sections[0].second < contents)
        problems.push_back(at(notes, notes.headings[contents].line) +
                           "`## Contents` comes after the first program section");
    std::vector<std::string> listed;
    for (const auto& [item, line] :
         list_items(part_text(notes, contents), notes.headings[contents].line + 1))
        for (const Link& link : notes_text::links_of(item)) {
            if (link.target.empty() || link.target[0] != '#') continue;
            const std::string anchor = link.target.substr(1);
            listed.push_back(anchor);
            if (!has(notes.anchors, anchor))
                problems.push_back(at(notes, line) + "the contents link to #" + anchor +
                                   ", which no heading of the file gives");
            for (const auto& [number, index] : sections) {
                if (notes.headings[index].anchor != anchor) continue;
                const bool marked = item.find("(advanced)") != std::string::npos;
                if (marked != is_advanced(number))
                    problems.push_back(at(notes, line) + "the contents mark " +
                                       std::to_string(number) +
                                       (marked ? " \"(advanced)\", which is a core lesson"
                                               : " without \"(advanced)\", which it is"));
            }
        }
    // The sections that the contents must list, in the file's order.
    std::vector<std::string> wanted;
    for (size_t i = 0; i < notes.headings.size(); ++i)
        if (program_of(notes.headings[i]) ||
            (notes.headings[i].level == 2 &&
             (notes.headings[i].text == kMeasured || notes.headings[i].text == kGlossary)))
            wanted.push_back(notes.headings[i].anchor);
    for (const std::string& anchor : wanted)
        if (!has(listed, anchor))
            problems.push_back(notes.path + ": the contents do not list #" + anchor);
    std::vector<std::string> listed_wanted;
    for (const std::string& anchor : listed)
        if (has(wanted, anchor)) listed_wanted.push_back(anchor);
    std::vector<std::string> file_order;
    for (const std::string& anchor : wanted)
        if (has(listed_wanted, anchor)) file_order.push_back(anchor);
    if (listed_wanted != file_order)
        problems.push_back(notes.path +
                           ": the contents list the sections in another order "
                           "than the file gives them");
    return problems;
}

Problems check_lesson_parts(const Notes& notes, const Chapter&) {
    Problems problems;
    for (const auto& [number, section] : program_sections(notes)) {
        const std::string where =
            at(notes, notes.headings[section].line) + std::to_string(number) + ": ";
        std::vector<std::string> found;
        for (size_t i = section + 1; i < part_end(notes, section); ++i) {
            if (notes.headings[i].level != 3) continue;
            found.push_back(notes.headings[i].text);
            if (!has(kParts, notes.headings[i].text))
                problems.push_back(at(notes, notes.headings[i].line) + "`### " +
                                   notes.headings[i].text + "` is not one of the seven parts");
        }
        bool each_once = true;
        for (const std::string& part : kParts) {
            const auto count = std::count(found.begin(), found.end(), part);
            if (count == 1) continue;
            each_once = false;
            problems.push_back(
                where + "`### " + part + "` " +
                (count ? "appears " + std::to_string(count) + " times" : "is missing"));
        }
        std::vector<std::string> parts_found;
        for (const std::string& text : found)
            if (has(kParts, text)) parts_found.push_back(text);
        if (each_once && parts_found != kParts)
            problems.push_back(where + "the parts are out of the course's order");
    }
    return problems;
}

// The file that a relative path from the notes names.
fs::path resolved(const Notes& notes, const std::string& path) {
    return (fs::path(notes.path).parent_path() / notes_text::decoded(path)).lexically_normal();
}

Problems check_figures(const Notes& notes, const Chapter&) {
    Problems problems;
    const fs::path notes_folder = fs::path(notes.path).parent_path().lexically_normal();
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t figure = part_of(notes, section, "Figure");
        if (figure == std::string::npos) continue;
        const size_t first = notes.headings[figure].line + 1;
        size_t images = 0;
        for (const Link& link : notes_text::links_of(part_text(notes, figure))) {
            if (!link.image) continue;
            ++images;
            const fs::path file = resolved(notes, link.target);
            const std::string inside = fs::relative(file, notes_folder).string();
            if (notes_text::is_external(link.target) || !fs::is_regular_file(file) ||
                inside.rfind("..", 0) == 0)
                problems.push_back(at(notes, first + link.line - 1) + std::to_string(number) +
                                   "'s figure " + link.target + " is not a file under " +
                                   notes_folder.string() + "/");
        }
        if (images == 0)
            problems.push_back(at(notes, notes.headings[figure].line) + std::to_string(number) +
                               ": the Figure part shows no image");
    }
    return problems;
}

Problems check_run_it(const Notes& notes, const Chapter&) {
    Problems problems;
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t run_it = part_of(notes, section, "Run it");
        if (run_it == std::string::npos) continue;
        const std::string text = part_text(notes, run_it);
        const size_t command = text.find("```sh\n");
        const std::string where = at(notes, notes.headings[run_it].line) + std::to_string(number);
        if (command == std::string::npos || text.find("```text\n", command) == std::string::npos)
            problems.push_back(where +
                               ": Run it wants a ```sh block, then a ```text block of output");
        // The programs' machine-readable timing lines are measurements.
        if (text.find("\ntiming: ") != std::string::npos)
            problems.push_back(where + ": Run it quotes a timing: line");
    }
    return problems;
}

Problems check_what_to_notice(const Notes& notes, const Chapter&) {
    static const std::regex bullet("^[-*+] .*");
    Problems problems;
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t notice = part_of(notes, section, "What to notice");
        if (notice == std::string::npos) continue;
        size_t bullets = 0;
        for (const std::string& line : notes_text::split_lines(part_text(notes, notice)))
            bullets += std::regex_match(line, bullet);
        if (bullets < 2 || bullets > 5)
            problems.push_back(at(notes, notes.headings[notice].line) + std::to_string(number) +
                               ": What to notice has " + std::to_string(bullets) +
                               " bullets; two to five are wanted");
    }
    return problems;
}

// The questions (`**Qn.**`) of a text outside code: each one's number and position.
std::vector<std::pair<int, size_t>> questions_of(const std::string& text) {
    static const std::regex question("\\*\\*Q([0-9]+)\\.\\*\\*");
    const std::string prose = notes_text::without_inline_code(notes_text::outside_code(text));
    std::vector<std::pair<int, size_t>> found;
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), question);
         it != std::sregex_iterator(); ++it)
        found.push_back({std::stoi((*it)[1]), static_cast<size_t>(it->position())});
    return found;
}

Problems check_self_check(const Notes& notes, const Chapter&) {
    Problems problems;
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t self_check = part_of(notes, section, "Self-check");
        if (self_check == std::string::npos) continue;
        const std::string text = part_text(notes, self_check);
        const size_t first = notes.headings[self_check].line + 1;
        const auto questions = questions_of(text);
        if (questions.empty())
            problems.push_back(at(notes, first - 1) + std::to_string(number) +
                               ": the Self-check part asks no **Qn.** question");
        for (size_t q = 0; q < questions.size(); ++q) {
            const size_t begin = questions[q].second;
            const size_t end = q + 1 < questions.size() ? questions[q + 1].second : text.size();
            const std::string between = text.substr(begin, end - begin);
            const size_t open = between.find(kAnswerOpen);
            if (open == std::string::npos || between.find("</details>", open) == std::string::npos)
                problems.push_back(at(notes, first + notes_text::line_at(text, begin) - 1) + "Q" +
                                   std::to_string(questions[q].first) + " is not followed by " +
                                   kAnswerOpen + " ... </details> before the next question");
        }
    }
    return problems;
}

Problems check_question_numbers(const Notes& notes, const Chapter&) {
    Problems problems;
    std::vector<std::pair<size_t, size_t>> self_check_lines;
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t self_check = part_of(notes, section, "Self-check");
        if (self_check != std::string::npos)
            self_check_lines.push_back(part_lines(notes, self_check));
    }
    std::map<int, size_t> first_seen;
    for (const auto& [question, position] : questions_of(notes.text)) {
        const size_t line = notes_text::line_at(notes.text, position);
        const std::string name = "Q" + std::to_string(question);
        if (first_seen.count(question))
            problems.push_back(at(notes, line) + name + " is asked again (first on line " +
                               std::to_string(first_seen[question]) + ")");
        else
            first_seen[question] = line;
        const bool in_self_check =
            std::any_of(self_check_lines.begin(), self_check_lines.end(),
                        [&](const auto& part) { return line >= part.first && line < part.second; });
        if (!in_self_check)
            problems.push_back(at(notes, line) + name + " is outside every Self-check part");
    }
    return problems;
}

// Every question asked before the course is still asked, under its number, and a question that
// a numbered program's source cites lies in that program's section.
Problems check_kept_questions(const Notes& notes, const Chapter& chapter) {
    Problems problems;
    std::map<int, int> section_of;  // question -> the program whose section asks it
    for (const auto& [number, section] : program_sections(notes)) {
        const auto [first, last] = part_lines(notes, section);
        for (const auto& [question, position] : questions_of(notes.text)) {
            const size_t line = notes_text::line_at(notes.text, position);
            if (line >= first && line < last) section_of[question] = number;
        }
    }
    std::map<int, bool> asked;
    for (const auto& [question, position] : questions_of(notes.text)) asked[question] = true;
    for (int question = 1; question <= chapter.kept_questions; ++question)
        if (!asked[question])
            problems.push_back(notes.path + ": Q" + std::to_string(question) +
                               ", asked before the course, is no longer asked");
    for (const Citation& citation : chapter.citations) {
        if (!asked[citation.question])
            problems.push_back(citation.file + " cites question " +
                               std::to_string(citation.question) + ", which " + notes.path +
                               " does not ask");
        else if (citation.program && section_of[citation.question] != citation.program)
            problems.push_back(citation.file + " cites question " +
                               std::to_string(citation.question) + ", which " + notes.path +
                               " does not ask in " + std::to_string(citation.program) +
                               "'s section");
    }
    return problems;
}

// Every Exercise part sets an exercise, and every exercise of the chapter is linked from one,
// which names its make target (`make ex21_1_csc_scatter`).
Problems check_exercises(const Notes& notes, const Chapter& chapter) {
    Problems problems;
    std::vector<fs::path> linked;
    for (const auto& [number, section] : program_sections(notes)) {
        const size_t exercise = part_of(notes, section, "Exercise");
        if (exercise == std::string::npos) continue;
        const std::string text = part_text(notes, exercise);
        const std::string where =
            at(notes, notes.headings[exercise].line) + std::to_string(number) + ": ";
        if (text.find_first_not_of(" \n") == std::string::npos)
            problems.push_back(where + "the Exercise part is empty");
        for (const Link& link : notes_text::links_of(text)) {
            const fs::path file = resolved(notes, link.target.substr(0, link.target.find('#')));
            if (std::find(chapter.exercises.begin(), chapter.exercises.end(), file) ==
                chapter.exercises.end())
                continue;
            linked.push_back(file);
            if (text.find("make " + file.stem().string()) == std::string::npos)
                problems.push_back(where + "the Exercise part links " + file.string() +
                                   " without naming its target, make " + file.stem().string());
        }
    }
    for (const fs::path& exercise : chapter.exercises)
        if (std::find(linked.begin(), linked.end(), exercise) == linked.end())
            problems.push_back(notes.path + ": no Exercise part links " + exercise.string());
    return problems;
}

// The sweep CSV that the sweeps of notes/bench/ end with: the latest date and time in its name
// (sweep-scaleS-YYYYMMDD-HHMM.csv), as bench/plots.py's newest_csv finds it.
std::string newest_sweep() {
    static const std::regex stamped(".*-([0-9]{8}-[0-9]{4})\\.csv");
    std::string newest, newest_stamp;
    for (const auto& entry : fs::directory_iterator("notes/bench")) {
        const std::string path = entry.path().lexically_normal().string();
        std::smatch found;
        if (entry.path().filename().string().rfind("sweep-", 0) != 0 ||
            !std::regex_match(path, found, stamped) || found[1].str() <= newest_stamp)
            continue;
        newest = path;
        newest_stamp = found[1];
    }
    return newest;
}

// The sweep CSV that a generated block comes from: the first CSV that its source line names, where
// that is a sweep's (notes/bench/sweep-...); "" otherwise. A later CSV on the line is one that
// the sweep copied rows from.
std::string sweep_of(const Notes& notes, const notes_text::GeneratedBlock& block) {
    static const std::regex csv("`(notes/bench/sweep-[^`]+\\.csv)`|`[^`]+\\.csv`");
    size_t line = block.line;  // the 0-based index of the line after the marker
    while (line < notes.lines.size() && notes.lines[line].empty()) ++line;
    std::smatch found;
    if (line >= notes.lines.size() || !std::regex_search(notes.lines[line], found, csv)) return "";
    return found[1];
}

Problems check_closing_sections(const Notes& notes, const Chapter& chapter) {
    Problems problems;
    const size_t measured = find_heading(notes, 2, kMeasured);
    const size_t glossary = find_heading(notes, 2, kGlossary);
    const auto sections = program_sections(notes);
    const size_t last_program = sections.empty() ? 0 : sections.back().second;
    if (measured == std::string::npos)
        problems.push_back(notes.path + ": no `## " + kMeasured + "`");
    else if (measured < last_program)
        problems.push_back(at(notes, notes.headings[measured].line) + "`## " + kMeasured +
                           "` comes before a program section");
    if (glossary == std::string::npos)
        problems.push_back(notes.path + ": no `## " + kGlossary + "`");
    else if (glossary < last_program || (measured != std::string::npos && glossary < measured))
        problems.push_back(at(notes, notes.headings[glossary].line) + "`## " + kGlossary +
                           "` comes before a program section or the measurements");
    for (const Heading& heading : notes.headings)
        if (heading.text.rfind("The sweep at commit", 0) == 0)
            problems.push_back(at(notes, heading.line) + "`" + heading.text +
                               "`: the sweeps' own sections go; the newest sweep's tables stay, "
                               "in the measurements");
    // Each generated table lies in the measurements, under a ### heading naming its lessons.
    const auto [first, last] = measured == std::string::npos ? std::pair<size_t, size_t>{0, 0}
                                                             : part_lines(notes, measured);
    for (const auto& block : notes_text::generated_blocks(notes.text)) {
        const std::string sweep = sweep_of(notes, block);
        if (!sweep.empty() && sweep != newest_sweep())
            problems.push_back(at(notes, block.line) + "the table " + block.name + " comes from " +
                               sweep + ", which " + newest_sweep() +
                               " replaced; only the newest sweep's tables stay");
        if (block.line < first || block.line >= last) {
            problems.push_back(at(notes, block.line) + "the table " + block.name +
                               " lies outside `## " + kMeasured + "`");
            continue;
        }
        const Heading* above = nullptr;
        for (const Heading& heading : notes.headings)
            if (heading.line < block.line) above = &heading;
        bool names_a_lesson = false;
        for (int program : chapter.programs)
            if (above && above->text.find(std::to_string(program)) != std::string::npos)
                names_a_lesson = true;
        if (!above || above->level != 3 || !names_a_lesson)
            problems.push_back(at(notes, block.line) + "the table " + block.name +
                               " has no ### heading above it that names its lessons");
    }
    return problems;
}

Problems check_links(const Notes& notes, const Chapter&) {
    static const std::regex line_anchor("L[0-9]+(-L[0-9]+)?");
    Problems problems;
    for (const Link& link : notes_text::links_of(notes.text)) {
        if (notes_text::is_external(link.target)) continue;
        const size_t hash = link.target.find('#');
        const std::string path = link.target.substr(0, hash);
        const std::string anchor = hash == std::string::npos ? "" : link.target.substr(hash + 1);
        const std::string where = at(notes, link.line) + link.target + ": ";
        if (link.target.empty()) {
            problems.push_back(at(notes, link.line) + "a link without a target");
            continue;
        }
        if (path.empty()) {
            if (!anchor.empty() && !has(notes.anchors, anchor))
                problems.push_back(where + "no heading of the file gives this anchor");
            continue;
        }
        const fs::path file = resolved(notes, path);
        if (!fs::exists(file)) {
            problems.push_back(where + file.string() + " is not there");
            continue;
        }
        if (anchor.empty()) continue;
        if (file.extension() == ".md") {
            if (!has(notes_text::anchors_of(notes_text::read_text(file.string())), anchor))
                problems.push_back(where + "no heading of " + file.string() + " gives this anchor");
        } else if (!std::regex_match(anchor, line_anchor)) {
            problems.push_back(where + "an anchor into a file that is not Markdown");
        }
    }
    return problems;
}

using Check = std::function<Problems(const Notes&, const Chapter&)>;
const std::vector<std::pair<std::string, Check>> kChecks = {
    {"title", check_title},
    {"program sections", check_program_sections},
    {"contents", check_contents},
    {"the seven parts", check_lesson_parts},
    {"figures", check_figures},
    {"run it", check_run_it},
    {"what to notice", check_what_to_notice},
    {"self-check answers", check_self_check},
    {"exercises", check_exercises},
    {"question numbers", check_question_numbers},
    {"kept and cited questions", check_kept_questions},
    {"measurements and glossary", check_closing_sections},
    {"links", check_links},
};

std::string listed(const Problems& problems) {
    std::string text;
    for (const std::string& problem : problems) text += problem + "\n";
    return text;
}

// Every `from` in `text` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A small chapter in the course's shape: programs 112, 113 and 123 (an advanced lesson), each
// with its question (NNN, TITLE, QN and EXERCISE stand for each section's own), a measured table
// and the glossary. A heading in a code block and a question in inline code are not the notes'.
const char* const kSyntheticSection = R"(## NNN: TITLE

### Question

What does NNN ask?

### Idea

The idea, with `row_offsets` and `col_idx`.

### Figure

![The lesson's figure](figures/lesson.png)

Look at the slices.

### Run it

```sh
# from the repository root
build/NNN
```

```text
row_offsets = [ 0 2 4 ]
```

### What to notice

- the first point
- the second point,
  on two lines

### Self-check

**QN.** Why NNN?

<details><summary>Answer</summary>

Because of `**Q9.**`, which is code.

</details>

### Exercise

EXERCISE

)";

std::string synthetic_section(int number, int question) {
    const std::string exercise =
        number == 113 ? "Finish [the skeleton](exercises/ex21_9_synthetic.cu), then run "
                        "`make ex21_9_synthetic`."
                      : "Change the block size, predict, run, compare; see "
                        "[measured](#measured-on-an-nvidia-h200) and [the other "
                        "notes](other.md#other).";
    std::string text = with(kSyntheticSection, "NNN", std::to_string(number));
    const std::map<int, std::string> titles = {{112, "Adjacency list to CSR"},
                                               {113, "One thread per vertex"},
                                               {123, "Binned CSR construction"}};
    text = with(text, "TITLE", titles.at(number));
    text = with(text, "QN", "Q" + std::to_string(question));
    return with(text, "EXERCISE", exercise);
}

std::string synthetic_notes() {
    const std::string opening = R"(# Chapter 21: A chapter in the course's shape

What it teaches, in two lines.

## Contents

- [112: Adjacency list to CSR](#112-adjacency-list-to-csr)
- [113: One thread per
  vertex](#113-one-thread-per-vertex)
- [123: Binned CSR construction](#123-binned-csr-construction) (advanced)
- [Measured on an NVIDIA H200](#measured-on-an-nvidia-h200)
- [Glossary: English and zh-TW](#glossary-english-and-zh-tw)

)";
    const std::string closing = R"(## Measured on an NVIDIA H200

### 113 and 123

<!-- coo-csr-scale22: begin (bench/notes_tables.py writes this table) -->
From `notes/measurements/coo-csr-scale22.csv` (a device, a date, commit 0):

| input | kernel |
|---|---|
| book | 1.0 |
<!-- coo-csr-scale22: end -->

## Glossary: English and zh-TW

| English | zh-TW |
|---|---|
| row offsets | 列偏移 |
)";
    return opening + synthetic_section(112, 1) + synthetic_section(113, 2) +
           synthetic_section(123, 3) + closing;
}

// Writes the synthetic chapter's figure and second notes file into a folder of its own, and
// reads `text` as that folder's notes.
struct SyntheticFolder {
    fs::path folder = fs::temp_directory_path() / ("suite_notes_shape_" + std::to_string(getpid()));
    SyntheticFolder() {
        fs::create_directories(folder / "figures");
        fs::create_directories(folder / "exercises");
        std::ofstream(folder / "figures" / "lesson.png") << "png";
        std::ofstream(folder / "other.md") << "# Other\n";
        std::ofstream(folder / "exercises" / "ex21_9_synthetic.cu") << "int main() {}\n";
    }
    ~SyntheticFolder() { fs::remove_all(folder); }
    Notes notes(const std::string& text) const {
        return notes_of((folder / "ch21_synthetic.md").string(), text);
    }
    // Programs 112, 113 and 123; questions 1 to 3 asked before, 113's source citing its own
    // question and a note citing another; one exercise.
    Chapter chapter() const {
        return {21,
                "",
                {112, 113, 123},
                3,
                {{"113.cu", 113, 2}, {"notes.txt", 0, 3}},
                {(folder / "exercises" / "ex21_9_synthetic.cu").lexically_normal()}};
    }
    Problems problems_of(const std::string& text, const std::string& check_name) const {
        for (const auto& [name, check] : kChecks)
            if (name == check_name) return check(notes(text), chapter());
        FAIL("no check named " << check_name);
        return {};
    }
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("notes shape: an anchor is the heading's GitHub slug", "[notes]") {
    CHECK(notes_text::slug("112: Adjacency list to CSR") == "112-adjacency-list-to-csr");
    CHECK(notes_text::slug("120: Sorted COO to CSR, one search per row boundary") ==
          "120-sorted-coo-to-csr-one-search-per-row-boundary");
    CHECK(notes_text::slug("147: Conjugate gradient on the chapter's SpMV") ==
          "147-conjugate-gradient-on-the-chapters-spmv");
    CHECK(notes_text::slug(kMeasured) == "measured-on-an-nvidia-h200");
    CHECK(notes_text::slug(kGlossary) == "glossary-english-and-zh-tw");
    CHECK(notes_text::slug("Chapter 21: CSR — `row_offsets`") == "chapter-21-csr--row_offsets");
    CHECK(notes_text::slug("詞彙 (zh-TW)") == "詞彙-zh-tw");
    const auto headings =
        notes_text::headings_of("## Idea\n\n```sh\n# not a heading\n```\n## Idea\n");
    REQUIRE(headings.size() == 2);
    CHECK(headings[0].anchor == "idea");
    CHECK(headings[1].anchor == "idea-1");
}

TEST_CASE("notes shape: a chapter in the course's shape passes every check", "[notes]") {
    const SyntheticFolder synthetic;
    const Notes notes = synthetic.notes(synthetic_notes());
    for (const auto& [name, check] : kChecks) {
        CAPTURE(name);
        const Problems problems = check(notes, synthetic.chapter());
        INFO(listed(problems));
        CHECK(problems.empty());
    }
}

TEST_CASE("notes shape: each departure from the shape is caught", "[notes]") {
    const SyntheticFolder synthetic;
    const std::string good = synthetic_notes();
    const std::string section_112 = synthetic_section(112, 1);
    const std::string section_113 = synthetic_section(113, 2);
    // Each variant of the synthetic chapter, and the check that must report it.
    const std::vector<std::tuple<std::string, std::string, std::string>> variants = {
        {"a missing part", replaced(good, "### Idea\n\nThe idea, with", "The idea, with"),
         "the seven parts"},
        {"a repeated part", replaced(good, "### Exercise", "### Idea\n\n### Exercise"),
         "the seven parts"},
        {"parts out of order",
         replaced(good,
                  "### What to notice\n\n- the first point\n- the second point,\n  on two "
                  "lines\n\n### Self-check",
                  "### Self-check\n\n### What to notice\n\n- one\n- two\n"),
         "the seven parts"},
        {"sections out of order",
         replaced(good, section_112 + section_113, section_113 + section_112), "program sections"},
        {"a program without a section", replaced(good, section_113, ""), "program sections"},
        {"a section heading without its title",
         replaced(good, "## 112: Adjacency list to CSR", "## 112:"), "program sections"},
        {"an Advanced lessons heading", replaced(good, "## 123:", "## Advanced lessons\n\n## 123:"),
         "program sections"},
        {"a title without its chapter", replaced(good, "# Chapter 21:", "# Chapter 14:"), "title"},
        {"no contents", replaced(good, "## Contents", "## Lessons"), "contents"},
        {"a broken anchor in the contents",
         replaced(good, "](#113-one-thread-per-vertex)", "](#113-one-thread-per-vertx)"),
         "contents"},
        {"a broken anchor in a section",
         replaced(good, "[measured](#measured-on-an-nvidia-h200)", "[measured](#measured)"),
         "links"},
        {"a broken anchor into another file", replaced(good, "other.md#other", "other.md#another"),
         "links"},
        {"a link to a file that is not there", replaced(good, "other.md#other", "gone.md"),
         "links"},
        {"a section missing from the contents",
         replaced(good, "- [Measured on an NVIDIA H200](#measured-on-an-nvidia-h200)\n", ""),
         "contents"},
        {"an advanced lesson not marked",
         replaced(good, "(#123-binned-csr-construction) (advanced)",
                  "(#123-binned-csr-construction)"),
         "contents"},
        {"a core lesson marked advanced",
         replaced(good, "(#112-adjacency-list-to-csr)", "(#112-adjacency-list-to-csr) (advanced)"),
         "contents"},
        {"a figure that is not there", replaced(good, "figures/lesson.png", "figures/missing.png"),
         "figures"},
        {"a Figure part without an image",
         replaced(good, "![The lesson's figure](figures/lesson.png)", "No image."), "figures"},
        {"Run it without its output", replaced(good, "```text\n", "```\n"), "run it"},
        {"Run it quoting a timing line",
         replaced(good, "row_offsets = [ 0 2 4 ]\n", "timing: program=112 ms=1.0\n"), "run it"},
        {"one thing to notice",
         replaced(good, "- the first point\n- the second point,", "- the only point,"),
         "what to notice"},
        {"a question without an answer",
         replaced(good, "Why 113?\n\n" + kAnswerOpen, "Why 113?\n\n<details>"),
         "self-check answers"},
        {"an answer left open",
         replaced(good, "which is code.\n\n</details>", "which is code.\n\n"),
         "self-check answers"},
        {"a Self-check part without a question", replaced(good, "**Q3.**", "Q3."),
         "self-check answers"},
        {"a question number used twice", replaced(good, "**Q3.**", "**Q1.**"), "question numbers"},
        {"an exercise linked from no Exercise part",
         replaced(good, "[the skeleton](exercises/ex21_9_synthetic.cu)", "the skeleton"),
         "exercises"},
        {"an exercise without its make target",
         replaced(good, "`make ex21_9_synthetic`", "its target"), "exercises"},
        {"an empty Exercise part",
         replaced(good, "### Exercise\n\nChange the block size",
                  "### Exercise\n\n## Aside\n\nChange"),
         "exercises"},
        {"a table under a heading that names no lesson",
         replaced(good, "### 113 and 123", "### The tables"), "measurements and glossary"},
        {"a table from a replaced sweep",
         replaced(good, "From `notes/measurements/coo-csr-scale22.csv`",
                  "From `notes/bench/sweep-scale22-20261201-0021.csv`"),
         "measurements and glossary"},
        {"a question asked before the course, renumbered", replaced(good, "**Q3.**", "**Q4.**"),
         "kept and cited questions"},
        {"a cited question moved to another lesson's section",
         replaced(replaced(replaced(good, "**Q2.**", "**Qx.**"), "**Q1.**", "**Q2.**"), "**Qx.**",
                  "**Q1.**"),
         "kept and cited questions"},
        {"a question outside a Self-check part",
         replaced(good, "What does 113 ask?", "**Q7.** What does 113 ask?"), "question numbers"},
        {"no measurements", replaced(good, "## " + kMeasured, "## Measured"),
         "measurements and glossary"},
        {"no glossary", replaced(good, "## " + kGlossary, "## Glossary"),
         "measurements and glossary"},
        {"a replaced sweep", replaced(good, "### 113 and 123", "### The sweep at commit 0000000"),
         "measurements and glossary"},
        {"a table outside the measurements",
         replaced(good, "## " + kMeasured + "\n\n### 113 and 123\n\n",
                  "### 113 and 123\n\n## " + kMeasured + "\n\n"),
         "measurements and glossary"},
    };
    // Every variant departs from the shape in one way alone: the one check reports it.
    for (const auto& [what, text, check_name] : variants) {
        CAPTURE(what, check_name);
        CHECK_FALSE(synthetic.problems_of(text, check_name).empty());
    }
}

TEST_CASE("notes shape: each chapter's notes hold the course's shape", "[notes]") {
    for (const Chapter& chapter : chapters()) {
        const Notes notes = notes_of(chapter.path, notes_text::read_text(chapter.path));
        REQUIRE_FALSE(notes.text.empty());
        for (const auto& [name, check] : kChecks) {
            CAPTURE(chapter.path, name);
            const Problems problems = check(notes, chapter);
            INFO(listed(problems));
            CHECK(problems.empty());
        }
    }
}

TEST_CASE("notes shape: the README's links and images resolve", "[notes]") {
    const Notes readme = notes_of("README.md", notes_text::read_text("README.md"));
    REQUIRE_FALSE(readme.text.empty());
    const Problems problems = check_links(readme, chapters()[0]);
    INFO(listed(problems));
    CHECK(problems.empty());
}
