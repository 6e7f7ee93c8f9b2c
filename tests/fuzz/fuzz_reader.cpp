// libFuzzer target for the matrix reader (make fuzz SECONDS=N). The first byte of an input
// picks the name that the text is read under (odd: "fuzz.mtx", which must be Matrix Market;
// even: "fuzz.txt"); the rest is the file's text. Any input must end in one of two ways:
//   accepted: every index within the declared dimensions, every value a finite float, the
//             three entry arrays of one length, and the values stored as 0 for being too small
//             for a float no more than the entries, the first of them nonzero, 0 as a float,
//             on a numbered line, and named in a note that names the file;
//   refused:  a BadInput whose message starts "fuzz.mtx:LINE: " or "fuzz.txt:LINE: ".
// A text with no '\r' in it is also read with each '\n' made a lone '\r' (classic Mac OS line
// ends): that must end in the same way, with the same matrix or the same message.
// Anything else (a crash, a sanitizer report, another exception, a refusal that names no line)
// aborts, and libFuzzer saves the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "../../common/matrix_reader.h"

namespace {

[[noreturn]] void broken(const std::string& what) {
    std::fprintf(stderr, "fuzz_reader: %s\n", what.c_str());
    std::abort();
}

bool names_a_line(const std::string& message, const std::string& name) {
    if (message.compare(0, name.size() + 1, name + ":") != 0) return false;
    size_t i = name.size() + 1;
    const size_t digits_start = i;
    while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
    return i > digits_start && message.compare(i, 2, ": ") == 0;
}

// What the reader makes of one text: the matrix and its tiny values, or the refusal.
struct Reading {
    HostCoo a;
    TinyValues tiny;
    std::string refusal;
};

Reading read_fuzzed(const std::string& name, const std::string& text) {
    // A small budget, so that a size line cannot make the fuzzer itself run out of memory.
    const matrix_reader_detail::InputLimits limits{{16, 16, 0}, {uint64_t{256} << 20, "fuzzing"}};
    Reading r;
    try {
        r.a = read_matrix_text(name, text, &limits, &r.tiny);
    } catch (const BadInput& e) {
        r.refusal = e.what();
        if (!names_a_line(r.refusal, name)) broken("a refusal names no line: " + r.refusal);
    } catch (const std::exception& e) {
        broken(std::string("not a BadInput: ") + e.what());
    }
    return r;
}

void check_same_reading(const Reading& lf, const Reading& cr) {
    if (cr.refusal != lf.refusal)
        broken("with CR line ends: '" + cr.refusal + "', with LF: '" + lf.refusal + "'");
    if (cr.a.num_rows != lf.a.num_rows || cr.a.num_cols != lf.a.num_cols ||
        cr.a.rows != lf.a.rows || cr.a.cols != lf.a.cols || cr.a.values != lf.a.values)
        broken("CR line ends read to another matrix than LF ends");
    if (cr.tiny.count != lf.tiny.count || cr.tiny.first_line != lf.tiny.first_line)
        broken("CR line ends give other tiny values than LF ends");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string name = (data[0] & 1) ? "fuzz.mtx" : "fuzz.txt";
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const Reading r = read_fuzzed(name, text);
    if (text.find('\r') == std::string::npos) {
        std::string cr_text = text;
        std::replace(cr_text.begin(), cr_text.end(), '\n', '\r');
        check_same_reading(r, read_fuzzed(name, cr_text));
    }
    if (!r.refusal.empty()) return 0;
    const HostCoo& a = r.a;
    const TinyValues& tiny = r.tiny;
    if (a.rows.size() != a.cols.size() || a.rows.size() != a.values.size())
        broken("entry arrays of different lengths");
    for (size_t k = 0; k < a.nnz(); ++k) {
        if (a.rows[k] < 0 || a.rows[k] >= a.num_rows) broken("row index out of range");
        if (a.cols[k] < 0 || a.cols[k] >= a.num_cols) broken("column index out of range");
        if (!std::isfinite(a.values[k])) broken("a value that is not finite");
    }
    if (tiny.count > a.nnz()) broken("more tiny values than entries");
    if (tiny.count > 0) {
        if (tiny.first_line < 1) broken("a tiny value on no line");
        if (tiny.first_value == 0 || static_cast<float>(tiny.first_value) != 0.0f)
            broken("a tiny value that is 0, or that a float holds");
        if (tiny_values_note(name, tiny).rfind("note: " + name + ": ", 0) != 0)
            broken("a note that does not name the file");
    }
    return 0;
}
