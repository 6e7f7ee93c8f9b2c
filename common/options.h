// Command-line handling shared by the numbered programs. Bad usage never crashes and never
// runs with a guessed value: it prints one line saying what is wrong, the usage, and exits 2.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

constexpr int kExitBadInput = 2;
constexpr int kMinScale = 1;
constexpr int kMaxScale = 24;
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
    int scale = 0;       // 0: the book's example, unless a matrix file is given
    std::string matrix;  // --matrix FILE
    double skew = kDefaultSkew;
    bool seed_given = false;
    uint64_t seed = 0;
    std::vector<std::string> switches;  // boolean flags that were given, such as --sorted-rows

    bool book_example() const { return scale == 0 && matrix.empty(); }

    bool has(const std::string& flag) const {
        for (const auto& s : switches)
            if (s == flag) return true;
        return false;
    }
};

// `allow_scale` is false for CPU baselines, which only ever run the book's example; kernel
// programs take --scale, --skew, --seed and --matrix.
// `extra_switches` lists the boolean flags that this program accepts.
inline ProgramOptions parse_options_or_throw(int argc, char** argv, bool allow_scale,
                                             const std::vector<std::string>& extra_switches = {}) {
    std::string usage = std::string("usage: ") + argv[0];
    if (allow_scale)
        usage += " [--scale S (" + std::to_string(kMinScale) + ".." + std::to_string(kMaxScale) +
                 ")] [--skew A (0.25..0.95, with --scale)] [--matrix FILE] [--seed N]";
    for (const auto& s : extra_switches) usage += " [" + s + "]";
    auto fail = [&](const std::string& why) { throw BadInput(why + "\n" + usage); };

    ProgramOptions opt;
    bool skew_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) fail(arg + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string& text, double lo, double hi) {
            char* end = nullptr;
            errno = 0;
            const double x = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || errno != 0 || !(x >= lo && x <= hi))
                fail(arg + " " + text + ": expected a number in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
            return x;
        };
        bool known_switch = false;
        for (const auto& s : extra_switches) known_switch = known_switch || arg == s;
        if (known_switch) {
            opt.switches.push_back(arg);
        } else if (allow_scale && arg == "--scale") {
            const std::string text = value();
            const double s = number(text, kMinScale, kMaxScale);
            if (s != static_cast<int>(s)) fail("--scale " + text + ": expected a whole number");
            opt.scale = static_cast<int>(s);
        } else if (allow_scale && arg == "--skew") {
            opt.skew = number(value(), 0.25, 0.95);
            skew_given = true;
        } else if (allow_scale && arg == "--matrix") {
            opt.matrix = value();
            if (opt.matrix.empty()) fail("--matrix needs a file name");
        } else if (allow_scale && arg == "--seed") {
            const std::string text = value();
            char* end = nullptr;
            errno = 0;
            const unsigned long long s = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0)
                fail("--seed " + text + ": expected a non-negative whole number");
            opt.seed = s;
            opt.seed_given = true;
        } else {
            fail("unknown argument '" + arg + "'");
        }
    }
    if (skew_given && opt.scale == 0) fail("--skew applies to the --scale graph; give --scale too");
    if (opt.scale > 0 && !opt.matrix.empty()) fail("give --scale or --matrix, not both");
    return opt;
}

inline ProgramOptions parse_options(int argc, char** argv, bool allow_scale,
                                    const std::vector<std::string>& extra_switches = {}) {
    try {
        return parse_options_or_throw(argc, argv, allow_scale, extra_switches);
    } catch (const BadInput& e) {
        fail_bad_input(e.what());
    }
}
