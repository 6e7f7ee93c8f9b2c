// 14.7, kernel: SpMV across ranks. The rows are cut into one contiguous block per rank
// (row_split.h): by rows, or so that each block holds an equal share of the nonzeros. Each rank
// holds x whole and multiplies its block with 143's kernel, thread per row; then an all-gather
// gives every rank the whole of the next x, assembled from the ranks' pieces of y. The rank with
// the most nonzeros sets the pace, so on a skewed matrix the split by rows leaves the other
// ranks waiting, and the split by nonzeros does not. Every rank's pieces have one size (the
// largest block's rows), as an all-gather needs, and the columns are renumbered once into that
// padded layout (rank_blocks.h), so that each rank reads the gathered x as it lies.
//
// Build and run:  make 149_spmv_across_ranks_kernel && build/149_spmv_across_ranks_kernel
//                 build/149_spmv_across_ranks_kernel --scale 16 --ranks 4
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "143_spmv_csr_kernel.cu"
#include "rank_blocks.h"

// One rank's arrays where its kernels run: its block, the whole x in the padded layout, and
// its piece of y, as long as the largest block's.
struct RankArrays {
    RankArrays(const Here& here, const HostCsr& block, const PaddedLayout& layout)
        : block(here, block), x(here, layout.length()), y(here, static_cast<size_t>(layout.piece)) {}
    DeviceCsr block;
    DeviceArray<float> x, y;
};

// The ranks' pieces of y into every rank's x: rank k's piece lands at k * piece. Where the ranks
// share one place (the emulator, or one GPU), the gather is a copy per pair of ranks.
inline void all_gather_copies(const Here& here, std::vector<RankArrays>& ranks, int piece) {
    for (RankArrays& to : ranks)
        for (size_t k = 0; k < ranks.size(); ++k)
            copy_where_kernels_run(here, to.x.data() + k * piece, ranks[k].y.data(), piece);
}

// One product on every rank, y_k = A_k x (y starts at 0), then the gather: afterwards every
// rank's x holds A x, in the padded layout.
inline void spmv_then_gather(const Here& here, std::vector<RankArrays>& ranks, int piece) {
    for (RankArrays& r : ranks) {
        r.y.fill_bytes(0);
        launch_spmv_csr(here, r.block, r.x.data(), r.y.data());
    }
    all_gather_copies(here, ranks, piece);
}

// A^steps x0 across the ranks, back in row order.
inline std::vector<float> power_across_ranks(const Here& here, const HostCsr& a,
                                             const PaddedLayout& layout,
                                             const std::vector<float>& x0, int steps) {
    std::vector<RankArrays> ranks;
    for (int k = 0; k < layout.split.ranks(); ++k)
        ranks.emplace_back(here, rank_block(a, layout, k), layout);
    const std::vector<float> start = layout.padded(x0);
    for (RankArrays& r : ranks) r.x.upload(start);
    for (int s = 0; s < steps; ++s) spmv_then_gather(here, ranks, layout.piece);
    return layout.in_row_order(ranks.front().x.download());
}

// The same products on one rank, with 143's kernel on the whole matrix.
inline std::vector<float> power_on_one(const Here& here, const HostCsr& a,
                                       const std::vector<float>& x0, int steps) {
    std::vector<float> x = x0;
    for (int s = 0; s < steps; ++s) x = csr_spmv(here, a, x, std::vector<float>(a.num_rows, 0.0f));
    return x;
}

inline void show_split(const char* how, const RowSplit& split, const HostCsr& a) {
    std::printf("split %s:\n", how);
    int64_t most = 0;
    for (int k = 0; k < split.ranks(); ++k) {
        most = std::max(most, split.nonzeros(k, a.row_offsets));
        std::printf("  rank %d: rows %d .. %d (%s), %s\n", k, split.first_row[k],
                    split.first_row[k + 1] - 1, counted(split.rows(k), "row").c_str(),
                    counted(static_cast<size_t>(split.nonzeros(k, a.row_offsets)), "nonzero").c_str());
    }
    const double share = split.ranks() ? double(a.nnz()) / split.ranks() : 0.0;
    std::printf("  the busiest rank holds %.2f times an equal share of the nonzeros\n",
                share > 0 ? most / share : 0.0);
}

// Both splits, each checked against the one-rank products bit for bit: each row is summed by
// the same body, in the same order, from the same x values.
inline void check_splits(const KernelProgram& p, const HostCsr& a, int ranks, SelfCheck& check) {
    const int steps = 3;
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const std::vector<float> one = power_on_one(p.here, a, x0, steps);
    for (const auto& [how, split] : {std::pair{"by rows", split_by_rows(a.num_rows, ranks)},
                                    std::pair{"by nonzeros", split_by_nonzeros(a.row_offsets, ranks)}}) {
        show_split(how, split, a);
        const PaddedLayout layout(split);
        std::printf("  each gather: %d pieces of %s, %s received by each rank\n\n", ranks,
                    counted(layout.piece, "float").c_str(),
                    readable_bytes(4.0 * layout.piece * (ranks - 1)).c_str());
        const std::vector<float> across = power_across_ranks(p.here, a, layout, x0, steps);
        check.claim(std::string("A^3 x across ") + counted(ranks, "rank") + ", split " + how +
                        ", equals the one-rank products bit for bit",
                    across == one);
    }
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription("149 (14.7) kernel: SpMV across ranks, rows split by nonzeros",
                           {"make 149_spmv_across_ranks_kernel && build/149_spmv_across_ranks_kernel",
                            "build/149_spmv_across_ranks_kernel --scale 16 --ranks 4"})
            .with_book_input("the 4 x 4 matrix of Fig. 14.1")
            .with_scale_input("an R-MAT matrix of 2^S rows and 16 * 2^S entries")
            .with_whole_flag({"--ranks", "P", "ranks, each with a block of rows; default 2", 1, 64})
            .with_memory({80, 320, 900e6}));
    const HostCoo coo = spmv_input(p.options);
    if (coo.num_rows != coo.num_cols)
        fail_bad_input(p.options.matrix + ": not square (" + std::to_string(coo.num_rows) + " x " +
                       std::to_string(coo.num_cols) +
                       "); each product's y is gathered into the next x, so A must be square");
    const HostCsr a = csr_for_lesson(coo);
    const int ranks = static_cast<int>(p.options.whole("--ranks", 2));
    SelfCheck check;
    check_splits(p, a, ranks, check);
    return check.finish();
}
#endif
