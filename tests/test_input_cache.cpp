// The cache of generated inputs (common/input_cache.h, rmat_cache.h): what it gives equals what
// is made without it, a damaged, cut or misnamed file is noticed and replaced, and without
// SUITE_RMAT_CACHE nothing is read or written. The rows' stable order is made each time, never
// kept there.
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>
#include "../common/graph_generators.h"
#include "../common/input_cache.h"
#include "../common/options.h"
#include "../common/rmat_cache.h"
#include "../common/sparse_host.h"
#include "run_program.h"
#include "stable_sort_reference.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// An empty folder of this process's own, for one test's cache, named by `name`.
fs::path empty_folder(const std::string& name) {
    const fs::path folder =
        fs::temp_directory_path() / ("suite_input_cache_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

std::vector<fs::path> files_in(const fs::path& folder) {
    std::vector<fs::path> files;
    if (fs::exists(folder))
        for (const auto& entry : fs::directory_iterator(folder)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// What `step` prints on stderr, through a file, so that a note is seen as a user sees it.
std::string stderr_of(const std::function<void()>& step) {
    std::fflush(stderr);
    std::FILE* capture = std::tmpfile();
    const int saved = dup(fileno(stderr));
    dup2(fileno(capture), fileno(stderr));
    step();
    std::fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    std::rewind(capture);
    std::string text;
    for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
    std::fclose(capture);
    return text;
}

bool same_graph(const HostCoo& a, const HostCoo& b) {
    return a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.rows == b.rows &&
           a.cols == b.cols && a.values == b.values;
}

struct RmatCase {
    int scale;
    RmatParams params;
    uint64_t seed;
};

// One chunk (scales up to 12), two, and many; --skew's parameters, Graph500's, and uneven ones.
const std::vector<RmatCase> kRmatCases = {
    {1, RmatParams::from_skew(0.57), 21},     {5, RmatParams::graph500(), 14},
    {12, RmatParams::from_skew(0.25), 21},    {13, RmatParams{0.5, 0.2, 0.1}, 3},
    {17, RmatParams::from_skew(0.80), 14},
};

HostCoo through_cache(const RmatCase& c) {
    return make_rmat_through_cache(c.scale, kEdgeFactor, c.params, c.seed, "the test's graph");
}

// What the cache file at `path` holds as `c`'s graph, read as a program reads it, or a graph
// with no edges when the file is refused; `problem` says why.
HostCoo read_rmat_file(const fs::path& path, const RmatCase& c, std::string& problem) {
    HostCoo g = RmatGenerator(c.scale, kEdgeFactor, c.params, c.seed).sized_graph();
    if (!read_cache_file(path.string(), rmat_key(c.scale, kEdgeFactor, c.params, c.seed),
                         rmat_arrays(g), problem))
        return HostCoo{};
    return g;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void flip_byte(const fs::path& path, uintmax_t offset) {
    std::string bytes = slurp(path.string());
    bytes[offset] = static_cast<char>(bytes[offset] ^ 0x5A);
    write_bytes(path, bytes);
}

}  // namespace

TEST_CASE("the cache gives make_rmat's graph, values included, generated or read back",
          "[common][cache]") {
    const fs::path folder = empty_folder("equal");
    setenv(kInputCacheVariable, folder.c_str(), 1);
    size_t files = 0;
    for (const RmatCase& c : kRmatCases) {
        INFO("scale " << c.scale << ", a,b,c,d = " << c.params.text() << ", seed " << c.seed);
        const HostCoo expected = make_rmat(c.scale, kEdgeFactor, c.params, c.seed);
        CHECK(same_graph(through_cache(c), expected));
        const std::vector<fs::path> written = files_in(folder);
        REQUIRE(written.size() == ++files);
        const fs::path file = *std::find_if(written.begin(), written.end(), [&](const fs::path& p) {
            return p.filename().string().rfind("rmat-scale" + std::to_string(c.scale) + "-", 0) == 0;
        });
        std::string problem;
        CHECK(same_graph(read_rmat_file(file, c, problem), expected));
        CHECK(problem.empty());
        const auto written_at = fs::last_write_time(file);
        std::string notes;
        HostCoo second;
        notes = stderr_of([&] { second = through_cache(c); });
        CHECK(same_graph(second, expected));
        CHECK(notes.empty());
        CHECK(fs::last_write_time(file) == written_at);
        CHECK(files_in(folder).size() == files);
    }
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}

TEST_CASE("a damaged, cut, misnamed or stale cache file is noticed, noted and made again",
          "[common][cache]") {
    const RmatCase c = {14, RmatParams::from_skew(0.70), 21};
    const HostCoo expected = make_rmat(c.scale, kEdgeFactor, c.params, c.seed);
    const RmatCase other = {14, RmatParams::from_skew(0.45), 21};
    const uintmax_t header_bytes = sizeof(CacheFileHeader);

    struct Damage {
        std::string what, problem;
        std::function<void(const fs::path&)> apply;
    };
    const std::vector<Damage> damages = {
        {"a byte of the edges changed", "does not match its checksum",
         [&](const fs::path& f) { flip_byte(f, header_bytes + fs::file_size(f) / 2 - 100); }},
        {"the last byte changed", "does not match its checksum",
         [&](const fs::path& f) { flip_byte(f, fs::file_size(f) - 1); }},
        {"the magic changed", "is not a cache file", [](const fs::path& f) { flip_byte(f, 0); }},
        {"the version changed", "has format version", [](const fs::path& f) { flip_byte(f, 8); }},
        {"a number of the key changed", "holds another input",
         [&](const fs::path& f) { flip_byte(f, 16 + 16); }},
        {"cut short by one byte", "bytes, not the",
         [](const fs::path& f) { fs::resize_file(f, fs::file_size(f) - 1); }},
        {"cut inside the header", "is shorter than its header",
         [](const fs::path& f) { fs::resize_file(f, 20); }},
        {"empty", "is shorter than its header", [](const fs::path& f) { fs::resize_file(f, 0); }},
        {"one byte too long", "bytes, not the",
         [](const fs::path& f) { std::ofstream(f, std::ios::binary | std::ios::app) << 'x'; }},
        {"another graph's file under this one's name", "holds another input",
         [&](const fs::path& f) {
             const fs::path other_folder = empty_folder("other");
             setenv(kInputCacheVariable, other_folder.c_str(), 1);
             through_cache(other);
             fs::copy_file(files_in(other_folder).front(), f,
                           fs::copy_options::overwrite_existing);
             fs::remove_all(other_folder);
             setenv(kInputCacheVariable, f.parent_path().c_str(), 1);
         }},
        // Whole and with a right checksum, but not what today's generator makes: an older
        // generator's file.
        {"an edge of the first chunk changed", "differs from what the generator makes now, in chunk 0",
         [&](const fs::path& f) {
             HostCoo g = expected;
             g.cols[7] = (g.cols[7] + 1) % g.num_cols;
             write_cache_file(f.string(), rmat_key(c.scale, kEdgeFactor, c.params, c.seed),
                              rmat_arrays(g));
         }},
        {"an edge of the last chunk changed", "differs from what the generator makes now, in chunk 3",
         [&](const fs::path& f) {
             HostCoo g = expected;
             g.values.back() += 1;
             write_cache_file(f.string(), rmat_key(c.scale, kEdgeFactor, c.params, c.seed),
                              rmat_arrays(g));
         }},
    };
    for (const Damage& damage : damages) {
        INFO("the cache file: " << damage.what);
        const fs::path folder = empty_folder("damaged");
        setenv(kInputCacheVariable, folder.c_str(), 1);
        through_cache(c);
        REQUIRE(files_in(folder).size() == 1);
        const fs::path file = files_in(folder).front();
        damage.apply(file);

        HostCoo remade;
        const std::string notes = stderr_of([&] { remade = through_cache(c); });
        CHECK(same_graph(remade, expected));
        CHECK_THAT(notes, StartsWith("note: " + file.string() + " ") &&
                              Contains(damage.problem) &&
                              Contains("so the test's graph is made again\n"));
        CHECK(std::count(notes.begin(), notes.end(), '\n') == 1);
        std::string problem;
        CHECK(same_graph(read_rmat_file(file, c, problem), expected));
        CHECK(problem.empty());
        CHECK(files_in(folder).size() == 1);
        fs::remove_all(folder);
    }
    unsetenv(kInputCacheVariable);
}

TEST_CASE("a cache file is refused when it holds another input than the key asks for",
          "[common][cache]") {
    const fs::path folder = empty_folder("key");
    setenv(kInputCacheVariable, folder.c_str(), 1);
    const RmatCase c = {10, RmatParams::graph500(), 14};
    through_cache(c);
    const fs::path file = files_in(folder).front();
    // Every number of the key: scale, edge factor, each probability, the seed.
    const std::vector<RmatCase> others = {{10, RmatParams::graph500(), 15},
                                          {10, RmatParams{0.57, 0.19, 0.18}, 14},
                                          {10, RmatParams{0.57, 0.18, 0.19}, 14},
                                          {10, RmatParams{0.56, 0.19, 0.19}, 14}};
    for (const RmatCase& o : others) {
        std::string problem;
        CHECK(read_rmat_file(file, o, problem).nnz() == 0);
        CHECK(problem == "holds another input than its name says");
    }
    HostCoo g = RmatGenerator(c.scale, kEdgeFactor / 2, c.params, c.seed).sized_graph();
    std::string problem;
    CHECK_FALSE(read_cache_file(file.string(), rmat_key(c.scale, kEdgeFactor / 2, c.params, c.seed),
                                rmat_arrays(g), problem));
    CHECK(problem == "holds another input than its name says");
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}

TEST_CASE("a file being written has a name of its own, and is renamed only when whole",
          "[common][cache]") {
    const fs::path folder = empty_folder("partial");
    const RmatCase c = {10, RmatParams::from_skew(0.57), 21};
    const HostCoo expected = make_rmat(c.scale, kEdgeFactor, c.params, c.seed);
    setenv(kInputCacheVariable, folder.c_str(), 1);
    through_cache(c);
    const fs::path file = files_in(folder).front();
    // What a run killed while writing leaves: a part under the temporary name, the real name
    // still holding the last whole file, or nothing.
    const fs::path partial = file.string() + ".partial-99999";
    write_bytes(partial, slurp(file.string()).substr(0, 1000));
    CHECK(same_graph(through_cache(c), expected));
    fs::remove(file);
    const std::string notes = stderr_of([&] { CHECK(same_graph(through_cache(c), expected)); });
    CHECK(notes.empty());
    CHECK(files_in(folder) == std::vector<fs::path>{file, partial});
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}

TEST_CASE("sorting by row keeps nothing in the cache: the sort costs less than a file",
          "[common][cache]") {
    // Large enough that the rows' order was once kept there, with many ties to keep in order.
    const HostCoo a = make_uniform_random(5000, kAnnouncedSize + 3, 20260);
    const HostCoo expected = sorted_by_std_stable_sort(a);
    const fs::path folder = empty_folder("order");
    setenv(kInputCacheVariable, folder.c_str(), 1);
    CHECK(same_graph(sorted_by_row(a), expected));
    const HostCsr csr = csr_from_coo_by_stable_sort(a);
    CHECK(csr.col_idx == expected.cols);
    CHECK(csr.values == expected.values);
    CHECK(files_in(folder).empty());
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}

TEST_CASE("without SUITE_RMAT_CACHE, or with it empty, nothing is read or written",
          "[common][cache]") {
    const fs::path here = fs::current_path();
    const fs::path folder = empty_folder("none");
    fs::current_path(folder);
    const HostCoo large = make_uniform_random(5000, kAnnouncedSize, 5);
    for (const bool empty_value : {false, true}) {
        if (empty_value)
            setenv(kInputCacheVariable, "", 1);
        else
            unsetenv(kInputCacheVariable);
        const std::string notes = stderr_of([&] {
            make_rmat_through_cache(12, kEdgeFactor, RmatParams::from_skew(0.57), 21,
                                    "the test's graph");
            sorted_by_row(large);
        });
        CHECK(notes.empty());
        CHECK(files_in(folder).empty());
    }
    fs::current_path(here);
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}

namespace {
// A program's stdout without the lines that say where its input came from, without its memory
// report (with its continuation lines): the host's peak differs by a page or so between a
// generated input and a read one, and without the seconds that its run took or its kernels'
// timings.
std::string without_input_steps(const std::string& out) {
    std::istringstream lines(out);
    std::string kept;
    bool in_memory_report = false, in_timings = false;
    for (std::string line; std::getline(lines, line);) {
        in_memory_report = line.rfind("memory:", 0) == 0 ||
                           (in_memory_report && line.rfind(" ", 0) == 0);
        // On a GPU the kernels are timed, and no two runs take the same time.
        in_timings = line.rfind("timings on ", 0) == 0 ||
                     (in_timings && (line.rfind(" ", 0) == 0 || line.rfind("timing:", 0) == 0));
        if (!in_memory_report && !in_timings && line.rfind("generating ", 0) != 0 &&
            line.rfind("reading ", 0) != 0 && line.rfind("seconds: ", 0) != 0)
            kept += line + "\n";
    }
    return kept;
}
}  // namespace

TEST_CASE("programs run as the sweep runs them print the same with the cache as without",
          "[common][cache]") {
    struct Run {
        std::string program;
        std::vector<std::string> args;
        size_t new_files;  // the first time, with an empty cache
    };
    std::vector<Run> runs = {
        {"146_design_considerations_cpu_baseline", {"--scale", "12"}, 1},
    };
    // The R-MAT graph, which it sorts by row; the order is made each time, never kept.
    runs.push_back({"122_sorted_coo_to_csr_one_pass_kernel", {"--scale", "18", "--seed", "3"}, 1});
    const fs::path folder = empty_folder("programs");
    for (const Run& r : runs) {
        INFO(r.program);
        if (!fs::exists(SUITE_BUILD + r.program))
            FAIL(SUITE_BUILD << r.program << " is missing: make test builds it first");
        unsetenv(kInputCacheVariable);
        const ProgramRun plain = run_program(r.program, r.args, 120);
        REQUIRE(plain.exit_code == 0);
        const size_t before = files_in(folder).size();
        setenv(kInputCacheVariable, folder.c_str(), 1);
        const ProgramRun first = run_program(r.program, r.args, 120);
        CHECK(files_in(folder).size() == before + r.new_files);
        const ProgramRun second = run_program(r.program, r.args, 120);
        CHECK(files_in(folder).size() == before + r.new_files);
        CHECK(first.exit_code == 0);
        CHECK(second.exit_code == 0);
        CHECK(first.err.empty());
        CHECK(second.err.empty());
        CHECK(without_input_steps(first.out) == without_input_steps(plain.out));
        CHECK(without_input_steps(second.out) == without_input_steps(plain.out));
    }
    unsetenv(kInputCacheVariable);
    fs::remove_all(folder);
}
