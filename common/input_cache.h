// Inputs that take the host seconds to make (an R-MAT graph of 2^22 vertices, the stable sort of
// its 2^26 edges by row), kept in files between runs: the sweep runs several programs on each
// graph, and each would otherwise make it again. Only where SUITE_RMAT_CACHE names a folder;
// without it nothing is read or written.
// A file is believed only when its size, its header (format, version, the input's key) and the
// checksum of its arrays agree with what the key's input must be; otherwise the input is made
// again, with a one-line note on stderr, and the file replaced. A file is written under a
// temporary name in its folder and then renamed, so that a run killed while writing leaves no
// part of a file under the real name.
#pragma once
#include <sys/types.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>
#include "random.h"
#include "text.h"

constexpr const char* kInputCacheVariable = "SUITE_RMAT_CACHE";

// The cache's folder, or "" where the variable is unset or empty.
inline std::string input_cache_folder() {
    const char* folder = std::getenv(kInputCacheVariable);
    return folder == nullptr ? "" : folder;
}

// Everything that determines an input: what kind it is, and its numbers (for an R-MAT graph
// its scale, edge factor, four probabilities and seed).
struct InputKey {
    char kind[16] = {};
    std::array<uint64_t, 8> numbers = {};

    InputKey() = default;
    InputKey(const char* name, std::initializer_list<uint64_t> values) {
        if (std::strlen(name) >= sizeof kind || values.size() > numbers.size())
            throw std::invalid_argument("an input key holds a kind of 15 letters and 8 numbers");
        std::strcpy(kind, name);
        std::copy(values.begin(), values.end(), numbers.begin());
    }
    bool operator==(const InputKey& o) const {
        return std::memcmp(kind, o.kind, sizeof kind) == 0 && numbers == o.numbers;
    }
    uint64_t hash() const {
        uint64_t h = 0;
        for (char c : kind) h = mix64(h ^ static_cast<unsigned char>(c));
        for (uint64_t n : numbers) h = mix64(h + n);
        return h;
    }
};

// One array of a cached input, as bytes, read into or written from. Its elements are 4-byte
// words (int, float, uint32_t), the checksum's unit.
struct CachedArray {
    void* data;
    size_t bytes;
};

template <class T>
CachedArray cached_array(std::vector<T>& v) {
    static_assert(sizeof(T) == 4, "the checksum is taken over 4-byte words");
    return {v.data(), v.size() * sizeof(T)};
}

// For a checksum, which only reads.
template <class T>
CachedArray cached_array(const std::vector<T>& v) {
    return cached_array(const_cast<std::vector<T>&>(v));
}

// The checksum's terms of `words` words from `bytes` on, the first of them at `position` of the
// arrays: each word mixed with its position, so that a changed or moved word changes its term
// (mix64 is a bijection).
inline uint64_t checksum_terms(const unsigned char* bytes, size_t words, uint64_t position) {
    uint64_t sum = 0;
    for (size_t i = 0; i < words; ++i) {
        uint32_t word;
        std::memcpy(&word, bytes + 4 * i, 4);
        sum += mix64(word ^ ((position + i) * kGoldenGamma));
    }
    return sum;
}

// The arrays' words in pieces of this many bytes, which the cores read, write and sum at once.
constexpr size_t kCachePieceBytes = size_t{1} << 22;

struct CachePiece {
    size_t array;     // which array
    size_t offset;    // its first byte in that array
    size_t bytes;
    uint64_t position;  // its first word's position in the arrays, for the checksum
};

inline std::vector<CachePiece> cache_pieces(const std::vector<CachedArray>& arrays) {
    std::vector<CachePiece> pieces;
    uint64_t position = 0;
    for (size_t a = 0; a < arrays.size(); ++a) {
        for (size_t offset = 0; offset < arrays[a].bytes; offset += kCachePieceBytes)
            pieces.push_back({a, offset, std::min(kCachePieceBytes, arrays[a].bytes - offset),
                              position + offset / 4});
        position += arrays[a].bytes / 4;
    }
    return pieces;
}

// A sum of the checksum's terms over every word of the arrays: it comes out the same on any
// number of cores, and whichever pieces they take.
inline uint64_t checksum_of(const std::vector<CachedArray>& arrays) {
    const std::vector<CachePiece> pieces = cache_pieces(arrays);
    const long long count = static_cast<long long>(pieces.size());
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic)
    for (long long p = 0; p < count; ++p)
        sum += checksum_terms(static_cast<const unsigned char*>(arrays[pieces[p].array].data) +
                                  pieces[p].offset,
                              pieces[p].bytes / 4, pieces[p].position);
    return sum;
}

constexpr char kCacheMagic[8] = {'s', 'u', 'i', 't', 'e', 'i', 'n', '\0'};
constexpr uint64_t kCacheFormatVersion = 1;

struct CacheFileHeader {
    char magic[8];
    uint64_t version;
    InputKey key;
    uint64_t payload_bytes;
    uint64_t checksum;
};

inline size_t payload_bytes_of(const std::vector<CachedArray>& arrays) {
    size_t bytes = 0;
    for (const CachedArray& array : arrays) bytes += array.bytes;
    return bytes;
}

// One input's place in the cache: its file, its key, the words that name it in what a run
// prints ("the R-MAT graph"), and its number of entries, which decides whether reading it is
// announced.
struct CacheEntry {
    std::string path;
    InputKey key;
    std::string what;
    size_t entries;
};

// The entry of `key`'s input in `folder`: its file is named by `stem`, which a reader of the
// folder can recognize, and by the key's hash.
inline CacheEntry cache_entry(const std::string& folder, const std::string& stem,
                              const InputKey& key, const std::string& what, size_t entries) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(key.hash()));
    return {(std::filesystem::path(folder) / (stem + "-" + hash + ".bin")).string(), key, what,
            entries};
}

// The arrays' pieces read from the file `fd` (or written to it), each at `offset` plus its place
// in the arrays, every core moving pieces at once: a file in the page cache comes in and goes out
// at the speed of many memory copies. A piece read is summed into `sum` while its words are in
// the core's cache, so that the checksum costs no second pass. False where the file ends early or
// a read or write fails.
inline bool move_pieces(int fd, const std::vector<CachedArray>& arrays, off_t offset, bool reading,
                        uint64_t* sum = nullptr) {
    const std::vector<CachePiece> pieces = cache_pieces(arrays);
    const long long count = static_cast<long long>(pieces.size());
    long long failed = 0;
    uint64_t total = 0;
#pragma omp parallel for reduction(+ : failed, total) schedule(dynamic)
    for (long long p = 0; p < count; ++p) {
        const CachePiece& piece = pieces[p];
        unsigned char* bytes = static_cast<unsigned char*>(arrays[piece.array].data) + piece.offset;
        size_t done = 0;
        while (done < piece.bytes) {
            const off_t at = offset + static_cast<off_t>(piece.position * 4 + done);
            const ssize_t moved = reading ? pread(fd, bytes + done, piece.bytes - done, at)
                                          : pwrite(fd, bytes + done, piece.bytes - done, at);
            if (moved <= 0) break;
            done += static_cast<size_t>(moved);
        }
        failed += done != piece.bytes;
        if (reading) total += checksum_terms(bytes, piece.bytes / 4, piece.position);
    }
    if (sum != nullptr) *sum = total;
    return failed == 0;
}

// Fills `arrays`, already sized for `key`'s input, from the file at `path`, and returns true,
// when the file holds that input. Otherwise returns false, with `problem` saying what is wrong
// with the file, or "" when there is no file.
inline bool read_cache_file(const std::string& path, const InputKey& key,
                            const std::vector<CachedArray>& arrays, std::string& problem) {
    problem.clear();
    std::error_code error;
    const uintmax_t file_bytes = std::filesystem::file_size(path, error);
    if (error) return false;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        problem = std::string("cannot be opened (") + std::strerror(errno) + ")";
        return false;
    }
    const size_t expected_bytes = sizeof(CacheFileHeader) + payload_bytes_of(arrays);
    CacheFileHeader header;
    if (std::fread(&header, sizeof header, 1, f) != 1)
        problem = "is shorter than its header";
    else if (std::memcmp(header.magic, kCacheMagic, sizeof kCacheMagic) != 0)
        problem = "is not a cache file (its first bytes are wrong)";
    else if (header.version != kCacheFormatVersion)
        problem = "has format version " + std::to_string(header.version) + ", not " +
                  std::to_string(kCacheFormatVersion);
    else if (!(header.key == key))
        problem = "holds another input than its name says";
    else if (file_bytes != expected_bytes || header.payload_bytes != payload_bytes_of(arrays))
        problem = "is " + std::to_string(file_bytes) + " bytes, not the " +
                  std::to_string(expected_bytes) + " that its input takes";
    if (problem.empty()) {
        uint64_t sum = 0;
        if (!move_pieces(fileno(f), arrays, sizeof header, true, &sum))
            problem = "cannot be read to its end";
        else if (sum != header.checksum)
            problem = "does not match its checksum";
    }
    std::fclose(f);
    return problem.empty();
}

// Writes `arrays` as `key`'s input at `path`. A failure (a full disk, say) is a note on
// stderr, and the run goes on without the file.
inline void write_cache_file(const std::string& path, const InputKey& key,
                             const std::vector<CachedArray>& arrays) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    const std::string temporary = path + ".partial-" + std::to_string(getpid());
    CacheFileHeader header{{}, kCacheFormatVersion, key, payload_bytes_of(arrays),
                           checksum_of(arrays)};
    std::memcpy(header.magic, kCacheMagic, sizeof kCacheMagic);
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    std::FILE* f = std::fopen(temporary.c_str(), "wb");
    bool written = f != nullptr && std::fwrite(&header, sizeof header, 1, f) == 1 &&
                   std::fflush(f) == 0 &&
                   move_pieces(fileno(f), arrays, sizeof header, false);
    if (f != nullptr) written = std::fclose(f) == 0 && written;
    std::string reason = written ? "" : std::strerror(errno);
    if (written) {
        std::filesystem::rename(temporary, path, error);
        if (error) reason = error.message();
    }
    if (reason.empty()) return;
    std::filesystem::remove(temporary, error);
    std::fprintf(stderr, "note: %s could not be written (%s), so the next run makes it again\n",
                 path.c_str(), reason.c_str());
}

// The entry's input: read from its file when the file holds it and `doubt(input)`, a check
// of what was read, returns ""; otherwise `make()`'s, which is then written to the file.
// `sized()` gives an input of the entry's size to read into, and `arrays(input)` its arrays.
// What was read is let go before anything is made, so that the two are never held at once.
template <class Sized, class Arrays, class Doubt, class Make>
auto read_or_make(const CacheEntry& entry, Sized sized, Arrays arrays, Doubt doubt, Make make)
    -> decltype(make()) {
    if (std::filesystem::exists(entry.path)) {
        announce_large(entry.entries,
                       "reading " + entry.what + " from " +
                           std::filesystem::path(entry.path).parent_path().string());
        auto input = sized();
        std::string problem;
        if (read_cache_file(entry.path, entry.key, arrays(input), problem)) {
            problem = doubt(input);
            if (problem.empty()) return input;
        }
        if (!problem.empty())
            std::fprintf(stderr, "note: %s %s, so %s is made again\n", entry.path.c_str(),
                         problem.c_str(), entry.what.c_str());
    }
    auto made = make();
    write_cache_file(entry.path, entry.key, arrays(made));
    return made;
}
