// The refusals that the tests of 119 and 120 share.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include "../ch21_csr/sorted_coo_contract.h"

struct RefusalCase {
    std::string what;
    HostCoo coo;
    int first_bad;
    std::string message;
};

// Every way to break the contract, built from the card's example (3 rows, 3 columns), with the
// index and the words that 119 and 120 must both refuse it with.
inline std::vector<RefusalCase> refusal_cases() {
    std::vector<RefusalCase> cases;
    auto with_rows = [](std::vector<int> rows) {
        HostCoo a = card_example();
        a.rows = std::move(rows);
        return a;
    };
    auto with_col = [](size_t k, int col) {
        HostCoo a = card_example();
        a.cols[k] = col;
        return a;
    };
    cases.push_back({"unsorted at the first pair", with_rows({1, 0, 1, 2, 2}), 1,
                     "entry 1: row 0 comes after row 1 (rows must be non-decreasing)"});
    cases.push_back({"unsorted later", with_rows({0, 0, 1, 2, 1}), 4,
                     "entry 4: row 1 comes after row 2 (rows must be non-decreasing)"});
    cases.push_back(
        {"negative row", with_rows({0, -1, 1, 2, 2}), 1, "entry 1: row -1 is not in [0, 3)"});
    cases.push_back(
        {"row == num_rows", with_rows({0, 0, 1, 2, 3}), 4, "entry 4: row 3 is not in [0, 3)"});
    cases.push_back({"negative column", with_col(2, -1), 2, "entry 2: column -1 is not in [0, 3)"});
    cases.push_back(
        {"column == num_cols", with_col(3, 3), 3, "entry 3: column 3 is not in [0, 3)"});
    HostCoo several = with_rows({0, 0, 1, 2, 1});  // a descent at entry 4 ...
    several.cols[2] = 9;                           // ... and a column out of range at entry 2
    cases.push_back({"several bad entries", several, 2, "entry 2: column 9 is not in [0, 3)"});
    HostCoo no_rows = card_example();
    no_rows.num_rows = 0;
    cases.push_back({"entries but no rows", no_rows, 0, "entry 0: row 0 is not in [0, 0)"});
    return cases;
}
