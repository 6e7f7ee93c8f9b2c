// libFuzzer target for the matrix reader (make fuzz SECONDS=N). The first byte of an input
// picks the name that the text is read under (odd: "fuzz.mtx", which must be Matrix Market;
// even: "fuzz.txt"); the rest is the file's text. Any input must end in one of two ways:
//   accepted: every index within the declared dimensions, every value a finite float, the
//             three entry arrays of one length, and the values stored as 0 for being too small
//             for a float no more than the entries, the first of them nonzero, 0 as a float,
//             on a numbered line, and named in a note that names the file;
//   refused:  a BadInput whose message starts "fuzz.mtx:LINE: " or "fuzz.txt:LINE: ".
// Anything else (a crash, a sanitizer report, another exception, a refusal that names no line)
// aborts, and libFuzzer saves the input.
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string name = (data[0] & 1) ? "fuzz.mtx" : "fuzz.txt";
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    // A small budget, so that a size line cannot make the fuzzer itself run out of memory.
    const matrix_reader_detail::InputLimits limits{{16, 16, 0}, {uint64_t{256} << 20, "fuzzing"}};
    HostCoo a;
    TinyValues tiny;
    try {
        a = read_matrix_text(name, text, &limits, &tiny);
    } catch (const BadInput& e) {
        if (!names_a_line(e.what(), name))
            broken(std::string("a refusal names no line: ") + e.what());
        return 0;
    } catch (const std::exception& e) {
        broken(std::string("not a BadInput: ") + e.what());
    }
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
