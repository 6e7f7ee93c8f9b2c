// The notes' Markdown as the tests of their shape and of their prose read it: the headings and
// their GitHub anchors, the links and images, the blocks that bench/notes_tables.py writes, and
// the text with its code, its inline code or its HTML comments blanked out. Blanking keeps every
// newline and every column, so that a position in the blanked text is a line and a column of the
// file.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace notes_text {

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The lines of a text, without their line ends.
inline std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The 1-based line of a position in a text.
inline size_t line_at(const std::string& text, size_t position) {
    return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + position, '\n'));
}

// `text` with [begin, end) replaced by spaces, its newlines kept.
inline void blank(std::string& text, size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < text.size(); ++i)
        if (text[i] != '\n') text[i] = ' ';
}

// The text with every fenced code block (``` or ~~~, fence lines included) blanked.
inline std::string without_fenced_code(const std::string& text) {
    std::string out = text;
    std::string fence;  // the opening fence while inside a block
    size_t block_start = 0;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        const size_t first = line.find_first_not_of(' ');
        const std::string rest = first == std::string::npos ? "" : line.substr(first);
        const char mark = rest.empty() ? '\0' : rest[0];
        if (mark == '`' || mark == '~') {
            const size_t run = rest.find_first_not_of(mark);
            const std::string marks = rest.substr(0, run);
            if (marks.size() >= 3) {
                if (fence.empty()) {
                    fence = marks;
                    block_start = start;
                } else if (marks[0] == fence[0] && marks.size() >= fence.size() &&
                           rest.find_first_not_of(" ", marks.size()) == std::string::npos) {
                    blank(out, block_start, end);
                    fence.clear();
                }
            }
        }
        start = end + 1;
    }
    if (!fence.empty()) blank(out, block_start, text.size());
    return out;
}

// The text with every inline code span (`x`, ``x``) blanked, backticks included.
inline std::string without_inline_code(const std::string& text) {
    std::string out = text;
    for (size_t at = text.find('`'); at != std::string::npos;) {
        const size_t run_end = text.find_first_not_of('`', at);
        if (run_end == std::string::npos) break;
        const std::string run = text.substr(at, run_end - at);
        size_t close = text.find(run, run_end);
        // The closing run must be exactly as long as the opening one.
        while (close != std::string::npos && close + run.size() < text.size() &&
               text[close + run.size()] == '`')
            close = text.find(run, text.find_first_not_of('`', close));
        // A span ends within its paragraph.
        const size_t paragraph_end = text.find("\n\n", run_end);
        if (close == std::string::npos || close > paragraph_end) {
            at = text.find('`', run_end);
            continue;
        }
        blank(out, at, close + run.size());
        at = text.find('`', close + run.size());
    }
    return out;
}

// The text with every HTML comment blanked.
inline std::string without_html_comments(const std::string& text) {
    std::string out = text;
    for (size_t at = text.find("<!--"); at != std::string::npos;) {
        const size_t close = text.find("-->", at + 4);
        const size_t end = close == std::string::npos ? text.size() : close + 3;
        blank(out, at, end);
        at = text.find("<!--", end);
    }
    return out;
}

// The text with its fenced code and its HTML comments blanked: what a reader sees as the
// document's structure.
inline std::string outside_code(const std::string& text) {
    return without_html_comments(without_fenced_code(text));
}

// A block that bench/notes_tables.py writes: `<!-- NAME: begin (...) -->` to `<!-- NAME: end -->`.
struct GeneratedBlock {
    std::string name;
    size_t begin;  // where its begin marker starts
    size_t end;    // just past its end marker; npos where it has none
    size_t line;   // the begin marker's line, 1-based
};

inline std::vector<GeneratedBlock> generated_blocks(const std::string& text) {
    static const std::regex begin("<!-- ([A-Za-z0-9_-]+): begin \\(");
    std::vector<GeneratedBlock> blocks;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), begin);
         it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        const size_t at = static_cast<size_t>(it->position());
        const std::string end_marker = "<!-- " + name + ": end -->";
        const size_t end = text.find(end_marker, at);
        blocks.push_back({name, at, end == std::string::npos ? end : end + end_marker.size(),
                          line_at(text, at)});
    }
    return blocks;
}

// The text with every generated block blanked, markers included; a block without its end line
// runs to the end of the text.
inline std::string without_generated_blocks(const std::string& text) {
    std::string out = text;
    for (const GeneratedBlock& block : generated_blocks(text))
        blank(out, block.begin, block.end == std::string::npos ? text.size() : block.end);
    return out;
}

// The code point of the UTF-8 sequence at `at`, and its length in bytes.
inline uint32_t code_point_at(const std::string& text, size_t at, size_t& length) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (at + length > text.size()) length = 1;
    if (length == 1) return lead;
    uint32_t point = lead & (0x7F >> length);
    for (size_t i = 1; i < length; ++i) point = (point << 6) | (byte(at + i) & 0x3F);
    return point;
}

// Whether a code point beyond ASCII is punctuation or a symbol (dashes, quotes, arrows, maths,
// CJK and full-width punctuation, emoji), which a GitHub anchor drops; letters and digits of
// every script are kept.
inline bool is_symbol(uint32_t point) {
    return (point >= 0x00A0 && point <= 0x00BF) || point == 0x00D7 || point == 0x00F7 ||
           (point >= 0x2000 && point <= 0x2BFF) || (point >= 0x3000 && point <= 0x303F) ||
           (point >= 0xFE30 && point <= 0xFE4F) || (point >= 0xFF00 && point <= 0xFF0F) ||
           (point >= 0xFF1A && point <= 0xFF20) || (point >= 0xFF3B && point <= 0xFF40) ||
           (point >= 0xFF5B && point <= 0xFF65) || point >= 0x1F000;
}

// A heading's GitHub anchor: lower case; every character that is not a letter, a digit, a
// space, a hyphen or an underscore (which GitHub keeps too) dropped; each space a hyphen.
inline std::string slug(const std::string& heading) {
    std::string out;
    for (size_t at = 0; at < heading.size();) {
        size_t length = 1;
        const uint32_t point = code_point_at(heading, at, length);
        if (point < 0x80) {
            const char c = static_cast<char>(point);
            if (c >= 'A' && c <= 'Z')
                out += static_cast<char>(c - 'A' + 'a');
            else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                out += c;
            else if (c == ' ')
                out += '-';
        } else if (!is_symbol(point)) {
            out += heading.substr(at, length);
        }
        at += length;
    }
    return out;
}

struct Heading {
    int level;           // 1 for #, 2 for ##, ...
    std::string text;    // without the #s and the spaces around it
    std::string anchor;  // GitHub's: the slug, with -1, -2, ... on its repeats
    size_t line;         // 1-based
};

// The ATX headings outside fenced code and HTML comments, in order.
inline std::vector<Heading> headings_of(const std::string& text) {
    static const std::regex heading("^ {0,3}(#{1,6})[ \\t]+(.*?)[ \\t]*#*[ \\t]*$");
    std::vector<Heading> headings;
    std::vector<std::string> seen;
    const std::vector<std::string> lines = split_lines(outside_code(text));
    for (size_t i = 0; i < lines.size(); ++i) {
        std::smatch found;
        if (!std::regex_match(lines[i], found, heading)) continue;
        const std::string base = slug(found[2]);
        const auto repeats = std::count(seen.begin(), seen.end(), base);
        seen.push_back(base);
        const std::string anchor = repeats ? base + "-" + std::to_string(repeats) : base;
        headings.push_back({static_cast<int>(found[1].length()), found[2], anchor, i + 1});
    }
    return headings;
}

// Every anchor that a link into the text may name: its headings' and its HTML anchors'
// (`<a name="x">`, `id="x"`).
inline std::vector<std::string> anchors_of(const std::string& text) {
    std::vector<std::string> anchors;
    for (const Heading& heading : headings_of(text)) anchors.push_back(heading.anchor);
    static const std::regex html("<a\\s[^>]*(?:name|id)=\"([^\"]+)\"");
    const std::string structure = outside_code(text);
    for (auto it = std::sregex_iterator(structure.begin(), structure.end(), html);
         it != std::sregex_iterator(); ++it)
        anchors.push_back((*it)[1]);
    return anchors;
}

struct Link {
    std::string target;  // as written: "figures/x.png", "#anchor", "../README.md#run"
    bool image;
    size_t line;  // 1-based, the line where the link starts
};

// The inline links and images outside code and comments (`[text](target)`, `![alt](target
// "title")`, the text may span lines; an image inside a link counts as both), and the targets
// of reference definitions (`[name]: target`).
inline std::vector<Link> links_of(const std::string& text) {
    static const std::string target = "\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)";
    static const std::regex image("!\\[[^\\]]*\\]" + target);
    static const std::regex link("\\[[^\\]]*\\]" + target);
    // A footnote (`[^name]: text`) is not a link.
    static const std::regex definition("(^|\\n) {0,3}\\[[^\\]^][^\\]]*\\]:[ \\t]+<?([^\\s>]+)>?");
    std::string prose = without_inline_code(outside_code(text));
    std::vector<Link> links;
    // The images first, blanked once found, so that a link around one is found too.
    const std::string with_images = prose;
    for (auto it = std::sregex_iterator(with_images.begin(), with_images.end(), image);
         it != std::sregex_iterator(); ++it) {
        const auto at = static_cast<size_t>(it->position());
        links.push_back({(*it)[1], true, line_at(with_images, at)});
        blank(prose, at, at + static_cast<size_t>(it->length()));
    }
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), link);
         it != std::sregex_iterator(); ++it)
        links.push_back({(*it)[1], false, line_at(prose, static_cast<size_t>(it->position()))});
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), definition);
         it != std::sregex_iterator(); ++it)
        links.push_back({(*it)[2], false, line_at(prose, static_cast<size_t>(it->position(2)))});
    std::stable_sort(links.begin(), links.end(),
                     [](const Link& a, const Link& b) { return a.line < b.line; });
    return links;
}

// Whether a link leaves the repository (https:, mailto:, //host).
inline bool is_external(const std::string& target) {
    static const std::regex scheme("^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)");
    return std::regex_search(target, scheme);
}

// A link's path with its %XX escapes decoded.
inline std::string decoded(const std::string& path) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
        const auto hex = [&](size_t j) {
            return j < path.size() && std::isxdigit(static_cast<unsigned char>(path[j]));
        };
        if (path[i] == '%' && hex(i + 1) && hex(i + 2)) {
            out += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += path[i];
        }
    }
    return out;
}

}  // namespace notes_text
