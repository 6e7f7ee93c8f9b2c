// Small helpers for what the programs print: counts with thousands separators and the right
// plural, byte sizes, and paragraphs wrapped at the suite's 100 columns.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

constexpr size_t kOutputColumns = 100;

// 268435456 as "268,435,456".
inline std::string with_separators(uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// "1 block", "2 blocks", "1,024 entries": the count with separators and the noun that fits it.
inline std::string counted(uint64_t n, const std::string& one, const std::string& many) {
    return with_separators(n) + " " + (n == 1 ? one : many);
}
inline std::string counted(uint64_t n, const std::string& one) {
    return counted(n, one, one + "s");
}

// "2.48 GB": decimal units, three significant digits.
inline std::string readable_bytes(double bytes) {
    const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        ++u;
    }
    char text[32];
    std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
    return text;
}

// 2.5 with `decimals` digits after the point: "2.50".
inline std::string fixed_text(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// Inputs this large take the host a second or more to build or check; a step that may take
// that long says what it is doing as it starts, so that a long run is never silent.
constexpr size_t kAnnouncedSize = size_t{1} << 22;

inline void announce(const std::string& step) {
    std::printf("%s ...\n", step.c_str());
    std::fflush(stdout);
}

// announce(step) for a step over `size` items, when there are enough of them to take that long.
inline void announce_large(size_t size, const std::string& step) {
    if (size >= kAnnouncedSize) announce(step);
}

// Prints `text` as lines of at most kOutputColumns, breaking at spaces; continuation lines are
// indented by `indent` spaces. A word longer than a line is printed whole.
inline void print_wrapped(const std::string& text, size_t indent = 2) {
    size_t start = 0;
    bool first = true;
    while (start < text.size()) {
        const size_t room = kOutputColumns - (first ? 0 : indent);
        size_t end = start + room;
        if (end >= text.size()) {
            end = text.size();
        } else {
            const size_t space = text.rfind(' ', end);
            if (space != std::string::npos && space > start) end = space;
        }
        std::printf("%*s%s\n", first ? 0 : static_cast<int>(indent), "",
                    text.substr(start, end - start).c_str());
        start = end;
        while (start < text.size() && text[start] == ' ') ++start;
        first = false;
    }
}
