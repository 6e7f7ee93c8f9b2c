// R-MAT's four quadrant probabilities, as --skew and --rmat give them (graph_generators.h).
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

struct RmatParams {
    double a = 0.57, b = 0.43 / 3, c = 0.43 / 3;

    // --skew A: the top-left quadrant A, the other three (1 - A) / 3 each.
    static RmatParams from_skew(double skew) {
        const double rest = (1.0 - skew) / 3.0;
        return {skew, rest, rest};
    }
    // Graph500's generator.
    static RmatParams graph500() { return {0.57, 0.19, 0.19}; }

    double d() const { return 1.0 - a - b - c; }
    bool valid() const {
        return a > 0 && b > 0 && c > 0 && d() > 1e-9 && a < 1 && std::isfinite(a + b + c);
    }
    // "0.57,0.19,0.19,0.05": the four, for timing: lines and titles.
    std::string text() const {
        char t[80];
        std::snprintf(t, sizeof t, "%.4g,%.4g,%.4g,%.4g", a, b, c, d());
        return t;
    }
};
