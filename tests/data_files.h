// The real matrices in the repository's data/ folder (relative to the repository root, where
// the tests run; SUITE_DATA_DIR overrides the folder). A missing folder or file fails the test
// that asked for it: finding nothing to check must never look like a pass.
#pragma once
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include "../common/matrix_reader.h"

inline std::filesystem::path data_dir() {
    const char* override_dir = std::getenv("SUITE_DATA_DIR");
    const std::filesystem::path dir = override_dir && *override_dir
                                          ? std::filesystem::path(override_dir)
                                          : std::filesystem::path("data");
    if (!std::filesystem::is_directory(dir))
        FAIL("the data folder "
             << dir
             << " does not exist: run the tests from the repository "
                "root, or point SUITE_DATA_DIR at the folder that holds data/README.md's files");
    return dir;
}

inline std::string data_file(const std::string& name) {
    const std::filesystem::path path = data_dir() / name;
    if (!std::filesystem::is_regular_file(path)) FAIL("the data file " << path << " is missing");
    return path.string();
}

inline HostCoo read_data_file(const std::string& name) {
    return read_matrix_file(data_file(name));
}

// Every data file that the reader accepts, by name: all but the README and young1c.mtx, which
// is complex and refused by design.
inline std::vector<std::string> readable_data_files() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name != "README.md" && name != "young1c.mtx")
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    if (names.size() < 7)
        FAIL("expected the 7 readable files of the data README, found " << names.size());
    return names;
}
