// Command-line handling shared by the numbered programs. Bad usage never crashes and never
// runs with a guessed value: it prints one line saying what is wrong, the usage, and exits 2.
// Values are read strictly: "--scale 0x10", "--scale 1e1", "--seed +5" and a flag given twice
// are refused, not interpreted.
#pragma once
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>
#include "from_chars.h"
#include "memory_budget.h"
#include "self_check.h"
#include "rmat_params.h"
#include "stencils.h"

constexpr int kExitBadInput = 2;
constexpr int kMinScale = 1;
constexpr int kMaxScale = 24;
constexpr double kMinSkew = 0.25;
constexpr double kMaxSkew = 0.95;
constexpr double kDefaultSkew = 0.57;
constexpr int kEdgeFactor = 16;

[[noreturn]] inline void fail_bad_input(const std::string& reason) {
    std::fprintf(stderr, "error: %s\n", reason.c_str());
    std::exit(kExitBadInput);
}

// Thrown by parsers and readers with a message that names the place and the problem; a
// program's main turns it into one line on stderr and exit code 2.
struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ProgramOptions {
    int scale = 0;               // 0: the book's example, unless a matrix file is given
    std::string matrix;          // --matrix FILE
    double skew = kDefaultSkew;  // R-MAT's top-left quadrant, a
    bool skew_given = false;
    RmatParams rmat = RmatParams::from_skew(kDefaultSkew);  // --skew or --rmat
    bool rmat_given = false;
    StencilKind stencil = StencilKind::none;  // --stencil 2d|3d: a Poisson matrix, not R-MAT
    std::string scale_matrix = "rmat";        // the class of the program's own --scale input
    bool seed_given = false;
    uint64_t seed = 0;
    bool max_memory_given = false;
    MemoryBudget budget;                // --max-memory, or the default (see memory_budget.h)
    MemoryModel memory;                 // the program's own, held against the budget
    RowLimit row_limit;                 // where the program's kernels take fewer rows than int
    std::vector<std::string> switches;  // boolean flags that were given, such as --sorted-rows
    std::vector<std::pair<std::string, uint64_t>> whole_values;  // program flags with a number
    // Instructor mode: --order A|B|reverse|N (the emulator's thread order; N is a seed, as with
    // --seed), --step (a pause after each kernel launch), --quiet (only the tally and result:).
    std::string order;
    bool step = false;
    bool quiet = false;
    std::string figure_data;  // --figure-data FILE: the JSON that bench/figures.py draws

    bool book_example() const { return scale == 0 && matrix.empty(); }

    // What the input is, as the graph: and timing: lines and the sweep's CSV name it: rmat,
    // stencil2d or stencil3d for a --scale input, file for --matrix, book for the example.
    std::string matrix_class() const {
        if (!matrix.empty()) return "file";
        if (scale == 0) return "book";
        if (stencil != StencilKind::none) return StencilShape{stencil, 0}.name();
        return scale_matrix;
    }
    // The input that --scale or --matrix chose, for people: "R-MAT scale 8", "the 2D Poisson
    // matrix, scale 8" or the file's name.
    std::string chosen_input_name() const {
        if (scale == 0) return matrix;
        const std::string at_scale = "scale " + std::to_string(scale);
        if (stencil == StencilKind::none) return "R-MAT " + at_scale;
        return std::string("the ") + (stencil == StencilKind::two_d ? "2D" : "3D") +
               " Poisson matrix, " + at_scale;
    }

    bool has(const std::string& flag) const {
        for (const auto& s : switches)
            if (s == flag) return true;
        for (const auto& w : whole_values)
            if (w.first == flag) return true;
        return false;
    }
    // The value of a program's whole-number flag, or `fallback` where it was not given.
    uint64_t whole(const std::string& flag, uint64_t fallback) const {
        for (const auto& w : whole_values)
            if (w.first == flag) return w.second;
        return fallback;
    }
};

namespace options_detail {

inline bool all_digits(const std::string& text) {
    if (text.empty()) return false;
    for (char c : text)
        if (c < '0' || c > '9') return false;
    return true;
}

// A whole number written as digits only: no sign, no spaces, no hex, no exponent.
inline bool parse_whole(const std::string& text, uint64_t& value) {
    if (!all_digits(text)) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

// A decimal number as from_chars reads it: no leading spaces or '+', no hex, no inf or nan.
inline bool parse_decimal(const std::string& text, double& value) {
    if (text.empty() || text.find_first_not_of("0123456789.eE-") != std::string::npos) return false;
    const auto [end, ec] = floating_from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

// BYTES with an optional K, M, G or T suffix (powers of 1024).
inline bool parse_bytes(const std::string& text, uint64_t& bytes) {
    if (text.empty()) return false;
    std::string digits = text;
    int shift = 0;
    switch (text.back()) {
        case 'K':
        case 'k':
            shift = 10;
            break;
        case 'M':
        case 'm':
            shift = 20;
            break;
        case 'G':
        case 'g':
            shift = 30;
            break;
        case 'T':
        case 't':
            shift = 40;
            break;
        default:
            break;
    }
    if (shift > 0) digits.pop_back();
    uint64_t count = 0;
    if (!parse_whole(digits, count) || count == 0 || count > (UINT64_MAX >> shift)) return false;
    bytes = count << shift;
    return true;
}

}  // namespace options_detail

// What a program is and which flags it takes, for its title line and its --help.
struct Switch {
    std::string flag;     // "--sorted-rows"
    std::string meaning;  // "sort each row by column after the scatter"
};

// A flag of one program that takes a whole number in [min, max]: "--ranks P".
struct WholeFlag {
    std::string flag;     // "--ranks"
    std::string value;    // "P"
    std::string meaning;  // "ranks (GPUs, or ranks sharing one GPU)"
    uint64_t min = 0, max = 0;
};

// Which inputs --figure-data takes, where a program offers it: the lessons draw their book
// example (its arrays are small enough to be drawn element by element); a tool that summarizes a
// generated graph takes any input.
enum class FigureInput { none, book_example, any };

// The flags that a usage line shows after the common ones: switches, then "--ranks P", then
// --figure-data where the program offers it.
inline std::vector<std::string> usage_flags(std::vector<std::string> switches,
                                            const std::vector<WholeFlag>& whole_flags,
                                            FigureInput figure = FigureInput::none) {
    for (const WholeFlag& w : whole_flags) switches.push_back(w.flag + " " + w.value);
    if (figure != FigureInput::none) switches.push_back("--figure-data FILE");
    return switches;
}

struct ProgramDescription {
    ProgramDescription(std::string title_line, std::vector<std::string> example_commands)
        : title(std::move(title_line)), examples(std::move(example_commands)) {}

    // What the program runs on with no flags, and what --scale gives it: `matrix_class` names
    // the class for the timing: lines (ProgramOptions::matrix_class). Only an R-MAT input takes
    // --skew, --rmat and --stencil, which reshape or replace it.
    ProgramDescription& with_book_input(std::string what) {
        book_input = std::move(what);
        return *this;
    }
    ProgramDescription& with_scale_input(std::string what, std::string matrix_class = "rmat") {
        scale_input = std::move(what);
        scale_matrix = std::move(matrix_class);
        takes_skew = scale_matrix == "rmat";
        return *this;
    }
    ProgramDescription& with_switch(std::string flag, std::string meaning) {
        switches.push_back({std::move(flag), std::move(meaning)});
        return *this;
    }
    ProgramDescription& with_whole_flag(WholeFlag f) {
        whole_flags.push_back(std::move(f));
        return *this;
    }
    // What the program allocates for an input (memory_budget.h): its measured peaks, host and
    // device together, with a quarter more.
    ProgramDescription& with_memory(MemoryModel model) {
        memory = model;
        return *this;
    }
    // A file with more rows is refused at its size line: `why` says what limits them.
    ProgramDescription& with_row_limit(uint64_t max_rows, std::string why) {
        row_limit = {max_rows, std::move(why)};
        return *this;
    }
    // --figure-data FILE writes `what` as JSON, for make figures (figure_data.h).
    ProgramDescription& with_figure_data(std::string what,
                                         FigureInput input = FigureInput::book_example) {
        figure_data = std::move(what);
        figure_input = input;
        return *this;
    }
    // A CPU baseline that runs the book's example only.
    ProgramDescription& without_inputs() {
        takes_inputs = false;
        return *this;
    }

    std::vector<std::string> switch_flags() const {
        std::vector<std::string> flags;
        for (const Switch& s : switches) flags.push_back(s.flag);
        return flags;
    }
    std::vector<std::string> flags_in_usage() const {
        return usage_flags(switch_flags(), whole_flags, figure_input);
    }

    std::string title;                  // the first line the program prints
    std::vector<std::string> examples;  // the commands of its header comment
    bool takes_inputs = true;           // --scale, --skew, --matrix, --seed, --max-memory
    std::string book_input = "the book's example";
    std::string scale_input = "an R-MAT graph of 2^S vertices and 16 * 2^S edges";
    std::string scale_matrix = "rmat";  // the --scale input's class, for the timing: lines
    bool takes_skew = true;        // false where --scale is not an R-MAT input: no --stencil either
    bool runs_kernels = true;      // false for the CPU baselines: no --order, no --step
    std::vector<Switch> switches;  // boolean flags of this program only
    std::vector<WholeFlag> whole_flags;  // flags of this program only that take a whole number
    MemoryModel memory;            // bytes per entry, per row or column, and per GPU run
    RowLimit row_limit;
    std::string figure_data;       // what --figure-data writes, where the program offers it
    FigureInput figure_input = FigureInput::none;
};

inline std::string usage_line(const std::string& program, bool allow_scale,
                              const std::vector<std::string>& extra_switches,
                              bool takes_skew = true, bool runs_kernels = true) {
    std::string usage = "usage: " + program;
    if (allow_scale)
        usage += std::string("\n         [--scale S]") +
                 (takes_skew ? " [--skew A | --rmat A,B,C | --stencil 2d|3d]\n        " : "") +
                 " [--matrix FILE] [--seed N] [--max-memory BYTES]";
    for (const auto& s : extra_switches) usage += "\n         [" + s + "]";
    usage += runs_kernels ? "\n         [--order A|B|reverse|N] [--step] [--quiet]"
                          : "\n         [--quiet]";
    return usage + " [--help]";
}

// The width of a flag's meaning in --help, after its 23 columns of name: 100 in all.
constexpr size_t kHelpMeaningColumns = 77;

// --help: one line per flag, with its meaning, range and default, then the examples.
inline std::string help_text(const std::string& program, const ProgramDescription& d) {
    std::string text = d.title + "\n\n" +
                       usage_line(program, d.takes_inputs, d.flags_in_usage(), d.takes_skew,
                                  d.runs_kernels) +
                       "\n\nflags (each may also be written --flag=value):\n";
    auto flag = [&](const std::string& name, const std::string& meaning) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-20s %s\n", name.c_str(), meaning.c_str());
        text += line;
    };
    flag("(none)", d.book_input);
    if (d.takes_inputs) {
        flag("--scale S", d.scale_input + " (timed on a GPU);");
        flag("", "S a whole number from " + std::to_string(kMinScale) + " to " +
                     std::to_string(kMaxScale));
        if (d.takes_skew)
            flag("--skew A",
                 "with --scale: R-MAT's top-left quadrant probability, from 0.25 "
                 "(uniform)");
        if (d.takes_skew) flag("", "to 0.95 (a few huge hubs); default 0.57");
        if (d.takes_skew)
            flag("--rmat A,B,C", "with --scale: all of R-MAT's quadrants, D = 1 - A - B - C;");
        if (d.takes_skew) flag("", "0.57,0.19,0.19 is Graph500's generator");
        if (d.takes_skew)
            flag("--stencil 2d|3d",
                 "with --scale: instead of R-MAT, the 5-point (2d) or 7-point (3d)");
        if (d.takes_skew) flag("", "Poisson matrix of a grid of about 2^S points");
        flag("--matrix FILE", "a Matrix Market file or an edge list (see notes/reference.md,");
        flag("", "Real inputs)");
        flag("--seed N", "the emulator's shuffle seed (kernels without a GPU), digits only;");
        flag("", "default: a new one each run");
        flag("--max-memory BYTES",
             "the memory budget, bytes or with K, M, G or T (powers of 1024);");
        flag("", "default 4G, or half the free memory if that is less");
    }
    for (const Switch& s : d.switches) flag(s.flag, s.meaning);
    for (const WholeFlag& w : d.whole_flags)
        flag(w.flag + " " + w.value, w.meaning + ", " + std::to_string(w.min) + " to " +
                                         std::to_string(w.max));
    if (d.figure_input != FigureInput::none) {
        const std::string what =
            "JSON for make figures: " + d.figure_data +
            (d.figure_input == FigureInput::book_example ? "; the book's example only" : "");
        for (size_t at = 0; at < what.size();) {
            size_t end = std::min(what.size(), at + kHelpMeaningColumns);
            const size_t space = what.rfind(' ', end);
            if (end < what.size() && space != std::string::npos && space > at) end = space;
            flag(at == 0 ? "--figure-data FILE" : "", what.substr(at, end - at));
            at = end + (end < what.size() && what[end] == ' ');
        }
    }
    if (d.runs_kernels) {
        flag("--order A|B|reverse|N", "the emulator's thread order: A ascending thread index,");
        flag("", "B the book's order B (4 0 8 1 7 5 3 6 2) over each group of");
        flag("", "nine threads, reverse descending, N a shuffle seed (as --seed)");
        flag("--step", "pause after each kernel launch until Enter is pressed;");
        flag("", "off when stdin is not a terminal");
    }
    flag("--quiet", "print only the self-check tally and the result: line");
    flag("--help", "this text");
    if (!d.examples.empty()) {
        text += "\nexamples:\n";
        for (const std::string& e : d.examples) text += "  " + e + "\n";
    }
    return text;
}

// `allow_scale` is false for CPU baselines that only ever run the book's example; the others
// take --scale, --skew, --seed, --matrix and --max-memory. `extra_switches` lists the boolean
// flags that this program accepts. Every flag may also be written --flag=value.
inline ProgramOptions parse_options_or_throw(int argc, char** argv, bool allow_scale,
                                             const std::vector<std::string>& extra_switches = {},
                                             const std::vector<WholeFlag>& whole_flags = {},
                                             FigureInput figure = FigureInput::none) {
    using namespace options_detail;
    const std::string usage =
        usage_line(argv[0], allow_scale, usage_flags(extra_switches, whole_flags, figure));
    auto fail = [&](const std::string& why) -> void { throw BadInput(why + "\n" + usage); };

    ProgramOptions opt;
    std::vector<std::string> seen;
    for (int i = 1; i < argc; ++i) {
        std::string flag = argv[i];
        std::string attached;
        bool has_attached = false;
        const size_t equals = flag.find('=');
        if (flag.rfind("--", 0) == 0 && equals != std::string::npos) {
            attached = flag.substr(equals + 1);
            flag = flag.substr(0, equals);
            has_attached = true;
        }
        for (const auto& s : seen)
            if (s == flag) fail(flag + " is given twice");
        seen.push_back(flag);
        auto value = [&]() -> std::string {
            if (has_attached) return attached;
            if (i + 1 >= argc) fail(flag + " needs a value");
            const std::string next = argv[i + 1];
            if (next.rfind("--", 0) == 0)
                fail(flag + " needs a value, but the next argument is the flag " + next);
            ++i;
            return next;
        };
        bool known_switch = false;
        for (const auto& s : extra_switches) known_switch = known_switch || flag == s;
        const WholeFlag* whole_flag = nullptr;
        for (const auto& w : whole_flags)
            if (flag == w.flag) whole_flag = &w;
        if (known_switch && !has_attached) {
            opt.switches.push_back(flag);
        } else if (whole_flag != nullptr) {
            const std::string text = value();
            uint64_t v = 0;
            if (!parse_whole(text, v) || v < whole_flag->min || v > whole_flag->max)
                fail(flag + " " + text + ": expected a whole number from " +
                     std::to_string(whole_flag->min) + " to " + std::to_string(whole_flag->max));
            opt.whole_values.push_back({flag, v});
        } else if (allow_scale && flag == "--scale") {
            const std::string text = value();
            uint64_t s = 0;
            if (!parse_whole(text, s) || s < kMinScale || s > kMaxScale)
                fail("--scale " + text + ": expected a whole number from " +
                     std::to_string(kMinScale) + " to " + std::to_string(kMaxScale));
            opt.scale = static_cast<int>(s);
        } else if (allow_scale && flag == "--skew") {
            const std::string text = value();
            if (!parse_decimal(text, opt.skew) || !(opt.skew >= kMinSkew && opt.skew <= kMaxSkew))
                fail("--skew " + text + ": expected a number from 0.25 to 0.95");
            opt.skew_given = true;
            opt.rmat = RmatParams::from_skew(opt.skew);
        } else if (allow_scale && flag == "--rmat") {
            const std::string text = value();
            const size_t c1 = text.find(','),
                         c2 = text.find(',', c1 == std::string::npos ? 0 : c1 + 1);
            RmatParams r;
            const bool parsed = c1 != std::string::npos && c2 != std::string::npos &&
                                text.find(',', c2 + 1) == std::string::npos &&
                                parse_decimal(text.substr(0, c1), r.a) &&
                                parse_decimal(text.substr(c1 + 1, c2 - c1 - 1), r.b) &&
                                parse_decimal(text.substr(c2 + 1), r.c);
            if (!parsed || !r.valid())
                fail("--rmat " + text +
                     ": expected A,B,C, three positive numbers whose sum is "
                     "below 1 (D = 1 - A - B - C), e.g. 0.57,0.19,0.19 (Graph500)");
            opt.rmat = r;
            opt.skew = r.a;
            opt.rmat_given = true;
        } else if (allow_scale && flag == "--stencil") {
            const std::string text = value();
            if (text != "2d" && text != "3d") fail("--stencil " + text + ": expected 2d or 3d");
            opt.stencil = text == "2d" ? StencilKind::two_d : StencilKind::three_d;
        } else if (allow_scale && flag == "--matrix") {
            opt.matrix = value();
            if (opt.matrix.empty()) fail("--matrix needs a file name");
        } else if (allow_scale && flag == "--seed") {
            const std::string text = value();
            if (!parse_whole(text, opt.seed))
                fail("--seed " + text + ": expected a non-negative whole number (digits only)");
            opt.seed_given = true;
        } else if (flag == "--order") {
            const std::string text = value();
            if (text != "A" && text != "B" && text != "reverse") {
                if (!parse_whole(text, opt.seed))
                    fail("--order " + text +
                         ": expected A, B, reverse or a seed (a non-negative whole number)");
                opt.seed_given = true;
            }
            opt.order = text;
        } else if (figure != FigureInput::none && flag == "--figure-data") {
            opt.figure_data = value();
            if (opt.figure_data.empty()) fail("--figure-data needs a file name");
        } else if (flag == "--step" && !has_attached) {
            opt.step = true;
        } else if (flag == "--quiet" && !has_attached) {
            opt.quiet = true;
        } else if (allow_scale && flag == "--max-memory") {
            const std::string text = value();
            uint64_t bytes = 0;
            if (!parse_bytes(text, bytes))
                fail("--max-memory " + text +
                     ": expected a positive number of bytes, optionally with K, M, G or T");
            opt.max_memory_given = true;
            opt.budget = {bytes, "set by --max-memory"};
        } else {
            fail("unknown argument '" + std::string(argv[i]) + "'");
        }
    }
    if (!opt.order.empty() && std::find(seen.begin(), seen.end(), "--seed") != seen.end())
        fail("give --order or --seed, not both");
    if (opt.skew_given && opt.rmat_given) fail("give --skew or --rmat, not both");
    if (opt.rmat_given && opt.scale == 0)
        fail("--rmat applies to the --scale graph; give --scale too");
    if (opt.skew_given && opt.scale == 0)
        fail("--skew applies to the --scale graph; give --scale too");
    if (opt.scale > 0 && !opt.matrix.empty()) fail("give --scale or --matrix, not both");
    if (figure == FigureInput::book_example && !opt.figure_data.empty() && !opt.book_example())
        fail("--figure-data draws the book's example, element by element; give it without " +
             std::string(opt.scale > 0 ? "--scale" : "--matrix"));
    if (opt.stencil != StencilKind::none) {
        if (!opt.matrix.empty()) fail("give --stencil or --matrix, not both");
        if (opt.skew_given || opt.rmat_given)
            fail(std::string(opt.skew_given ? "--skew" : "--rmat") +
                 " shapes the R-MAT graph, which --stencil replaces; give one or the other");
        if (opt.scale == 0) fail("--stencil applies to the --scale input; give --scale too");
    }
    if (!opt.max_memory_given) opt.budget = default_memory_budget(0);
    return opt;
}

// Parses the flags of a described program; --help prints the help and exits 0; bad usage
// prints the reason and the usage line and exits 2. Host allocations that fail from here on
// are reported by the memory budget's handler.
inline ProgramOptions parse_options(int argc, char** argv, const ProgramDescription& d) {
    install_out_of_memory_handler();
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
            std::fputs(help_text(argv[0], d).c_str(), stdout);
            std::exit(0);
        }
    try {
        ProgramOptions opt = parse_options_or_throw(argc, argv, d.takes_inputs, d.switch_flags(),
                                                    d.whole_flags, d.figure_input);
        if (!d.runs_kernels && (opt.step || !opt.order.empty()))
            throw BadInput(
                "--order and --step apply to the kernel programs; this one runs on the CPU "
                "only\n" +
                usage_line(argv[0], d.takes_inputs, d.flags_in_usage(), d.takes_skew, false));
        opt.memory = d.memory;
        opt.row_limit = d.row_limit;
        if (!d.takes_skew && (opt.skew_given || opt.rmat_given))
            throw BadInput(
                "--skew shapes R-MAT inputs, and this program's --scale input is not "
                "one\n" +
                usage_line(argv[0], d.takes_inputs, d.flags_in_usage(), false));
        if (!d.takes_skew && opt.stencil != StencilKind::none)
            throw BadInput("--stencil replaces an R-MAT input, and this program's --scale input "
                           "is its own: " +
                           d.scale_input + "\n" +
                           usage_line(argv[0], d.takes_inputs, d.flags_in_usage(), false));
        opt.scale_matrix = d.scale_matrix;
        g_memory_budget = opt.budget;
        return opt;
    } catch (const BadInput& e) {
        fail_bad_input(e.what());
    }
}

// The opening of a CPU baseline: its flags, then its title.
inline ProgramOptions start_cpu_program(int argc, char** argv, ProgramDescription d) {
    keep_freed_memory_for_reuse();
    d.runs_kernels = false;
    ProgramOptions opt = parse_options(argc, argv, d);
    if (opt.quiet) keep_only_verdicts();
    std::printf("=== %s ===\n\n", d.title.c_str());
    return opt;
}

// Refuses an input with more rows than the program takes, or whose estimated memory exceeds the
// budget, before anything is allocated for it; `what` names the input in the message
// ("--scale 24", "FILE:3").
inline void require_memory(const ProgramOptions& opt, const std::string& what, uint64_t rows,
                           uint64_t cols, uint64_t entries) {
    const std::string too_many_rows = row_limit_problem(opt.row_limit, rows);
    if (!too_many_rows.empty()) fail_bad_input(what + ": " + too_many_rows);
    const std::string problem = over_budget_problem(opt.memory, opt.budget, rows, cols, entries);
    if (!problem.empty()) fail_bad_input(what + ": " + problem);
    note_estimate(opt.memory, rows, cols, entries);
}
