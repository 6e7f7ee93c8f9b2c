// The machine-readable line that every timing prints, for the sweep (make bench) and its plots:
//   timing: program=143 kernel=csr_thread_per_row scale=22 skew=0.57
//           rmat=0.57,0.1433,0.1433,0.1433 ms=2.687 gbs=225 copy_gbs=4219 device="NVIDIA H200"
//           matrix=rmat
// (one line in the output). skew is R-MAT's a; rmat all four quadrants, which tells --skew 0.57
// from Graph500's 0.57,0.19,0.19,0.05. matrix is the input's class (ProgramOptions::matrix_class:
// rmat, stencil2d, stencil3d, file or book), last so that the fields before it keep their places.
// Fields are key=value pairs separated by single spaces; only the device's name is quoted.
#pragma once
#include <cstdio>
#include <string>

struct TimingFields {
    std::string program;  // "143"
    std::string kernel;   // letters, digits and underscores
    int scale = 0;
    double skew = -1;  // negative: the input is not an R-MAT matrix ("skew=none")
    std::string rmat = "none";
    double ms = 0, gbs = 0, copy_gbs = 0;
    std::string device;
    std::string matrix = "rmat";
};

inline std::string skew_text(double skew) {
    char text[32];
    if (skew >= 0)
        std::snprintf(text, sizeof text, "%.2f", skew);
    else
        std::snprintf(text, sizeof text, "none");
    return text;
}

inline std::string timing_line(const TimingFields& f) {
    char line[400];
    std::snprintf(line, sizeof line,
                  "timing: program=%s kernel=%s scale=%d skew=%s rmat=%s ms=%.4g gbs=%.0f "
                  "copy_gbs=%.0f device=\"%s\" matrix=%s",
                  f.program.c_str(), f.kernel.c_str(), f.scale, skew_text(f.skew).c_str(),
                  f.rmat.c_str(), f.ms, f.gbs, f.copy_gbs, f.device.c_str(), f.matrix.c_str());
    return line;
}

// A kernel that the program did not time, and why, in the timing line's form, so that the sweep
// can record the gap instead of leaving it blank:
//   skipped: program=144 kernel=ell_thread_per_row scale=22 skew=0.80 rmat=... reason=fill
//            device="NVIDIA H200" matrix=rmat
// `reason` is one word (fill: the format's padding is beyond what the program builds).
inline std::string skipped_line(const TimingFields& f, const std::string& reason) {
    char line[400];
    std::snprintf(line, sizeof line,
                  "skipped: program=%s kernel=%s scale=%d skew=%s rmat=%s reason=%s "
                  "device=\"%s\" matrix=%s",
                  f.program.c_str(), f.kernel.c_str(), f.scale, skew_text(f.skew).c_str(),
                  f.rmat.c_str(), reason.c_str(), f.device.c_str(), f.matrix.c_str());
    return line;
}
