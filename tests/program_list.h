// The numbered programs: their sources, as the Makefile finds them in the chapters' folders, and
// what programs.txt says of each (its opening comment lists the facts). A test that runs every
// program of a kind (every --matrix program, every SpMV program) takes them from here, so that a
// new program is added to the list alone.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

struct NumberedProgram {
    std::filesystem::path source;  // ch21_csr/115_csr_concurrent_construction_kernel.cu
    std::string name;              // 115_csr_concurrent_construction_kernel
    bool needs_cuda;
};

// Every ch*/NNN_name.cu and .cpp, in the order of their numbers.
inline std::vector<NumberedProgram> numbered_programs() {
    std::vector<NumberedProgram> found;
    for (const char* chapter : {"ch21_csr", "ch14_spmv"})
        for (const auto& entry : std::filesystem::directory_iterator(chapter)) {
            const std::filesystem::path path = entry.path();
            const std::string stem = path.stem().string();
            if (!std::regex_match(stem, std::regex("[0-9]{3}_\\w+"))) continue;
            if (path.extension() != ".cu" && path.extension() != ".cpp") continue;
            found.push_back({path, stem, path.extension() == ".cu"});
        }
    std::sort(found.begin(), found.end(),
              [](const NumberedProgram& a, const NumberedProgram& b) { return a.name < b.name; });
    return found;
}

struct ListedProgram {
    std::string name;
    bool needs_cuda = false;      // its source is a .cu
    std::set<std::string> facts;  // the list's bare words: matrix, y_sum, square, spd, ...

    bool has(const std::string& fact) const { return facts.count(fact) > 0; }
};

// programs.txt's programs, in its order. The facts with a value (sweep=, figure=, ...) and the
// indented curve lines are the sweep's and the figures', read by bench/program_list.py.
inline std::vector<ListedProgram> listed_programs() {
    std::vector<NumberedProgram> sources = numbered_programs();
    std::vector<ListedProgram> listed;
    std::ifstream in("programs.txt");
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] < '0' || line[0] > '9') continue;
        std::istringstream words(line);
        ListedProgram program;
        words >> program.name;
        for (std::string fact; words >> fact;)
            if (fact.find('=') == std::string::npos) program.facts.insert(fact);
        for (const NumberedProgram& source : sources)
            if (source.name == program.name) program.needs_cuda = source.needs_cuda;
        listed.push_back(program);
    }
    return listed;
}
