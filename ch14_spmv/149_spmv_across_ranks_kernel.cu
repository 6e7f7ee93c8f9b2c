// 149 (14.7) kernel: SpMV and CG across ranks, the rows split by rows or by nonzeros.
// Each rank (a GPU each, where there are enough) holds a block of rows and x whole. After its
// product, an all-gather (ncclAllGather) rebuilds the next x on every rank from their pieces of y,
// and CG's dot products are summed across the ranks (ncclAllReduce). The slowest rank sets the
// pace: with 143's thread per row it is the rank with the longest rows, even at equal nonzeros;
// with 148's merge path time follows rows + nonzeros, and the split by nonzeros evens it out.
//
// Build and run:  make 149_spmv_across_ranks_kernel && build/149_spmv_across_ranks_kernel
//                 build/149_spmv_across_ranks_kernel --scale 16 --ranks 4
//                 build/149_spmv_across_ranks_kernel --scale 22 --max-memory 64G
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>
#include "../common/binary_search.h"
// 147's lesson: CG's vector kernels and their scalars, and through it 143's CSR kernel.
#include "147_conjugate_gradient_kernel.cu"
// 148's lesson: the block-staged merge path, whose time follows rows + nonzeros.
#include "148_spmv_merge_path_kernel.cu"
#include "rank_blocks.h"    // each rank's block, its columns renumbered into the padded x
#include "rank_fabric.cuh"  // where the ranks live, and how pieces move between them

// The cut by rows. Each rank gets R / P rows, whatever they hold. On a skewed matrix a
// block of the first rows, where R-MAT's hubs live, can hold many times its share of the work.
inline RowSplit split_by_rows(int num_rows, int ranks) {
    RowSplit split;
    for (int k = 0; k <= ranks; ++k)
        split.first_row.push_back(static_cast<int>(int64_t{num_rows} * k / ranks));
    return split;
}

// The cut by nonzeros, so that each rank's rows hold about nnz / P entries, the work of
// an SpMV. Cut k sits at the first row whose start is at or past k * nnz / P nonzeros, or one row
// earlier when that row's start is nearer to the target: the nearer cut keeps each block's
// nonzeros within half a row of its share, wherever a row allows. A row is never cut, so one row
// longer than nnz / P still lands whole on one rank: the split is balanced to within the longest
// row.
inline RowSplit split_by_nonzeros(const std::vector<int>& row_offsets, int ranks) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    const int64_t nnz = row_offsets.back();
    RowSplit split;
    split.first_row.push_back(0);
    for (int k = 1; k < ranks; ++k) {
        const int target = static_cast<int>(nnz * k / ranks);
        int cut = lower_bound_index(row_offsets.data(), num_rows + 1, target);
        if (cut > 0 && target - row_offsets[cut - 1] < row_offsets[cut] - target) --cut;
        split.first_row.push_back(std::clamp(cut, split.first_row.back(), num_rows));
    }
    split.first_row.push_back(num_rows);
    return split;
}

// The CPU baseline, in the kernels' shape: one product across the ranks, one rank after another.
// Each rank multiplies its block by 143's row loop into its piece of y, and the gather copies every
// piece into x at its place in the padded layout. Returned in row order.
inline std::vector<float> spmv_across_ranks_cpu(const HostCsr& a, const PaddedLayout& layout,
                                                const std::vector<float>& x) {
    const std::vector<float> x_padded = layout.padded(x);
    std::vector<float> gathered(layout.length(), 0.0f);
    for (int k = 0; k < layout.split.ranks(); ++k) {
        std::vector<float> piece(layout.piece, 0.0f);
        spmv_csr_cpu(rank_block(a, layout, k), x_padded, piece);
        std::copy(piece.begin(), piece.end(),
                  gathered.begin() + static_cast<size_t>(k) * layout.piece);
    }
    return layout.in_row_order(gathered);
}

// One rank's arrays where its kernels run: its block, the whole x in the padded layout, its
// piece of y, as long as the largest block's, and the tile starts of 148's kernel.
struct RankArrays {
    RankArrays(const Here& here, const HostCsr& block, const PaddedLayout& layout)
        : block(here, block),
          x(here, layout.length()),
          y(here, static_cast<size_t>(layout.piece)),
          tiles(here, block) {}
    DeviceCsr block;
    DeviceArray<float> x, y;
    MergePathTiles tiles;
};

// Which kernel each rank runs on its block. 143's thread per row is the one that the checks hold
// to bit for bit; 148's merge path takes time in proportion to rows + nonzeros, whatever the
// rows' lengths, so only with it does an equal share of the nonzeros become an equal share of
// the time.
enum class RankKernel { thread_per_row, merge_path };

inline void launch_on_rank(const Here& here, RankKernel kernel, RankArrays& r) {
    if (kernel == RankKernel::thread_per_row)
        launch_spmv_csr(here, r.block, r.x.data(), r.y.data());
    else
        launch_spmv_merge_path_blocks(here, r.block, r.tiles, r.x.data(), r.y.data());
}

// Every rank's arrays, each made where the rank lives: its x set to x0 (in the padded layout),
// its y to 0.
inline std::vector<RankArrays> make_ranks(const RankFabric& fabric, const HostCsr& a,
                                          const PaddedLayout& layout,
                                          const std::vector<float>& x0) {
    const std::vector<float> start = layout.padded(x0);
    std::vector<RankArrays> ranks;
    fabric.each_rank([&](int k) {
        ranks.emplace_back(fabric.here(), rank_block(a, layout, k), layout);
        ranks.back().x.upload(start);
        ranks.back().y.fill_bytes(0);
    });
    return ranks;
}

// One product across the ranks, y_k = A_k x on every rank at once (y starts at 0), then
// the all-gather of the pieces of y: afterwards every rank's x holds A x, in the padded layout.
inline void spmv_then_gather(const RankFabric& fabric, std::vector<RankArrays>& ranks, int piece,
                             RankKernel kernel) {
    std::vector<const float*> pieces;
    std::vector<float*> wholes;
    fabric.each_rank([&](int k) {
        ranks[k].y.fill_bytes(0);
        launch_on_rank(fabric.here(), kernel, ranks[k]);
        pieces.push_back(ranks[k].y.data());
        wholes.push_back(ranks[k].x.data());
    });
    fabric.all_gather(pieces, wholes, piece);
}

// A^steps x0 across the ranks, one product and one gather a step, back in row order.
inline std::vector<float> power_across_ranks(const RankFabric& fabric, const HostCsr& a,
                                             const PaddedLayout& layout,
                                             const std::vector<float>& x0, int steps,
                                             RankKernel kernel = RankKernel::thread_per_row) {
    std::vector<RankArrays> ranks = make_ranks(fabric, a, layout, x0);
    for (int s = 0; s < steps; ++s) spmv_then_gather(fabric, ranks, layout.piece, kernel);
    return layout.in_row_order(ranks.front().x.download());
}

// Rank k's share of 147's CG: the pieces of b, x and r of its rows, and the whole direction p in
// the padded layout, which its SpMV reads (arrays.x) into q, its piece (arrays.y). Its own piece
// of p is the slice of that whole p at k * piece, updated in place.
struct CgRank {
    RankArrays arrays;
    size_t offset;
    int rows;
    DeviceArray<float> b, x, r;
    DeviceArray<double> scalars;
    DotInDouble dot;
    float* p() { return arrays.x.data() + offset; }
};

// Every rank's share, and the layout that places each piece in the whole vectors.
struct CgRanks {
    PaddedLayout layout;
    std::vector<CgRank> ranks;
};

inline CgRanks make_cg_ranks(const RankFabric& fabric, const HostCsr& a, const PaddedLayout& layout,
                             const std::vector<float>& b) {
    const std::vector<float> b_padded = layout.padded(b);
    const Here& here = fabric.here();
    CgRanks cg{layout, {}};
    fabric.each_rank([&](int k) {
        const size_t offset = static_cast<size_t>(k) * layout.piece, piece = layout.piece;
        const auto b_piece = b_padded.begin() + offset;
        cg.ranks.push_back({RankArrays(here, rank_block(a, layout, k), layout), offset,
                            layout.split.rows(k),
                            DeviceArray<float>(here, std::vector<float>(b_piece, b_piece + piece)),
                            DeviceArray<float>(here, piece), DeviceArray<float>(here, piece),
                            DeviceArray<double>(here, std::vector<double>(kNumScalars, 0.0)),
                            DotInDouble(here, layout.split.rows(k))});
        // The padding past a short block's rows is never computed, but the all-gather carries
        // it with the rank's piece of p, and cg_solution downloads it with the piece of x.
        cg.ranks.back().arrays.x.fill_bytes(0);
        cg.ranks.back().x.fill_bytes(0);
    });
    return cg;
}

// A dot product across the ranks: each rank's partial sum over its rows, in double, into
// its scalars[slot] where its kernels run; then the all-reduce leaves the sum over the ranks in
// every rank's slot, so that every rank takes the same alpha and beta.
template <class Vectors>
void all_reduce_dot(const RankFabric& fabric, CgRanks& cg, CgScalar slot, Vectors vectors) {
    std::vector<double*> slots;
    fabric.each_rank([&](int k) {
        CgRank& r = cg.ranks[k];
        const auto [u, v] = vectors(r);
        slots.push_back(r.scalars.data() + slot);
        r.dot(u, v, slots.back());
    });
    fabric.all_reduce_sum(slots);
}

// Every rank's own piece of p into every rank's whole p; each piece lies in place already.
inline void gather_directions(const RankFabric& fabric, CgRanks& cg) {
    std::vector<const float*> pieces;
    std::vector<float*> wholes;
    for (CgRank& r : cg.ranks) {
        pieces.push_back(r.p());
        wholes.push_back(r.arrays.x.data());
    }
    fabric.all_gather(pieces, wholes, cg.layout.piece);
}

// 147's CG with its vectors cut like the rows, from x = 0: each rank runs 147's kernels
// on its rows, every dot product is summed across the ranks, and every new direction is gathered.
// Up to `iterations` steps, fewer once the relative residual that the recurrence gives is at or
// below `stop_at` (by default no residual is); returns that residual after each step.
inline std::vector<double> cg_across_ranks(const RankFabric& fabric, CgRanks& cg, int iterations,
                                           double b_norm, double stop_at = -1.0) {
    const Here& here = fabric.here();
    // Each rank's vector steps: one thread per row of its block, in blocks of 256 threads.
    const unsigned threads = 256;
    const auto blocks = [](const CgRank& r) { return (r.rows + threads - 1) / threads; };
    const auto r_r = [](CgRank& r) { return std::pair{r.r.data(), r.r.data()}; };
    fabric.each_rank([&](int k) {
        CgRank& r = cg.ranks[k];
        here.launch(blocks(r), threads, cg_start_kernel, cg_start_thread, r.rows, r.b.data(),
                    r.x.data(), r.r.data(), r.p());
    });
    gather_directions(fabric, cg);
    all_reduce_dot(fabric, cg, kRr, r_r);
    const auto residual = [&] {
        return std::sqrt(cg.ranks.front().scalars.download()[kRr]) / b_norm;
    };
    std::vector<double> history = {residual()};
    for (int i = 0; i < iterations && history.back() > stop_at; ++i) {
        fabric.each_rank([&](int k) {
            RankArrays& a = cg.ranks[k].arrays;
            a.y.fill_bytes(0);
            launch_spmv_csr(here, a.block, a.x.data(), a.y.data());
        });
        all_reduce_dot(fabric, cg, kPq, [](CgRank& r) {
            return std::pair{r.p(), r.arrays.y.data()};
        });
        fabric.each_rank([&](int k) {
            CgRank& r = cg.ranks[k];
            here.launch(blocks(r), threads, cg_step_kernel, cg_step_thread, r.rows,
                        r.scalars.data(), r.p(), r.arrays.y.data(), r.x.data(), r.r.data());
        });
        all_reduce_dot(fabric, cg, kRrNext, r_r);
        fabric.each_rank([&](int k) {
            CgRank& r = cg.ranks[k];
            here.launch(blocks(r), threads, cg_direction_kernel, cg_direction_thread, r.rows,
                        r.scalars.data(), r.r.data(), r.p());
            here.launch(1, 1, cg_next_round_kernel, cg_next_round_thread, 1, r.scalars.data());
        });
        gather_directions(fabric, cg);
        history.push_back(residual());
    }
    return history;
}

// CG's x, gathered from the ranks' pieces, in row order.
inline std::vector<float> cg_solution(const RankFabric& fabric, const CgRanks& cg) {
    std::vector<float> padded(cg.layout.length(), 0.0f);
    fabric.each_rank([&](int k) {
        const std::vector<float> piece = cg.ranks[k].x.download();
        std::copy(piece.begin(), piece.end(), padded.begin() + cg.ranks[k].offset);
    });
    return cg.layout.in_row_order(padded);
}

#if __INCLUDE_LEVEL__ == 0  // the program; a later lesson or a test takes the lesson alone
#include "proof/149_spmv_across_ranks_kernel.cuh"

int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(argc, argv, spmv_across_ranks_program());
    const HostCoo coo = square_spmv_input(p.options);
    const HostCsr a = csr_for_lesson(coo);
    const RankFabric fabric(p.here, static_cast<int>(p.options.whole("--ranks", 2)));
    show_fabric(fabric);

    SelfCheck check;
    const std::vector<float> x = lesson_x(a.num_cols);
    const std::vector<float> power_one_rank = power_on_one(p.here, a, x, kCheckedPowers);
    for (const auto& [how, split] :
         {std::pair{"by rows", split_by_rows(a.num_rows, fabric.ranks())},
          std::pair{"by nonzeros", split_by_nonzeros(a.row_offsets, fabric.ranks())}}) {
        show_split(how, split, a);
        const PaddedLayout layout(split);
        const std::vector<float> y_cpu = spmv_across_ranks_cpu(a, layout, x);
        check_split(fabric, coo, a, how, layout, power_one_rank, y_cpu, check);
    }
    check_cg(p, fabric, check);
    time_across_ranks(p, fabric, a);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            coo, power_across_ranks(fabric, a,
                                    PaddedLayout(split_by_nonzeros(a.row_offsets, fabric.ranks())),
                                    ones(a.num_cols), 1)));
    return check.finish();
}
#endif
