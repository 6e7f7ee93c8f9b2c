// 14.7, kernel: SpMV and CG across ranks, a GPU each where there are enough. The rows are cut
// into one block per rank, by rows or by equal nonzeros; each rank holds x whole, multiplies its
// block, and an all-gather (ncclAllGather) rebuilds the next x on every rank from their pieces of
// y; CG's dot products are summed across the ranks (ncclAllReduce). The slowest rank sets the
// pace: with 143's thread per row it is the rank with the longest rows, even at equal nonzeros;
// with 148's merge path, time follows rows + nonzeros and the split by nonzeros evens the ranks
// out. Pieces are padded to one size for the all-gather (rank_blocks.h); where the ranks live and
// how pieces move is rank_fabric.cuh's part.
//
// Build and run:  make 149_spmv_across_ranks_kernel && build/149_spmv_across_ranks_kernel
//                 build/149_spmv_across_ranks_kernel --scale 16 --ranks 4
//                 build/149_spmv_across_ranks_kernel --scale 22 --max-memory 64G
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "147_conjugate_gradient_kernel.cu"
#include "148_spmv_merge_path_kernel.cu"
#include "rank_blocks.h"
#include "rank_fabric.cuh"

// The cut. By rows, each rank gets R / P rows, whatever they hold. By nonzeros, the cuts are
// placed so that each rank's rows hold about nnz / P entries, which is the work of an SpMV. On a
// skewed matrix the two differ by the rows' lengths: a block of the first rows, where R-MAT's
// hubs live, can hold many times its share. A row is never cut, so one row longer than nnz / P
// still lands whole on one rank: the nonzero split is balanced to within the longest row.
inline RowSplit split_by_rows(int num_rows, int ranks) {
    RowSplit split;
    for (int k = 0; k <= ranks; ++k)
        split.first_row.push_back(static_cast<int>(int64_t{num_rows} * k / ranks));
    return split;
}

// Cut k sits at the first row whose start is at or past k * nnz / P nonzeros, or one row
// earlier when that row's start is nearer to the target: the nearer cut keeps each block's
// nonzeros within half a row of its share, wherever a row allows.
inline RowSplit split_by_nonzeros(const std::vector<int>& row_offsets, int ranks) {
    const int num_rows = static_cast<int>(row_offsets.size()) - 1;
    const int64_t nnz = row_offsets.back();
    RowSplit split;
    split.first_row.push_back(0);
    for (int k = 1; k < ranks; ++k) {
        const int64_t target = nnz * k / ranks;
        int cut = static_cast<int>(
            std::lower_bound(row_offsets.begin(), row_offsets.end(), target) - row_offsets.begin());
        if (cut > 0 && target - row_offsets[cut - 1] < row_offsets[cut] - target) --cut;
        split.first_row.push_back(std::clamp(cut, split.first_row.back(), num_rows));
    }
    split.first_row.push_back(num_rows);
    return split;
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

// Every rank's arrays, each made where the rank lives (its own GPU, where it has one).
inline std::vector<RankArrays> make_ranks(const RankFabric& fabric, const HostCsr& a,
                                          const PaddedLayout& layout) {
    std::vector<RankArrays> ranks;
    for (int k = 0; k < fabric.ranks(); ++k) {
        fabric.on(k);
        ranks.emplace_back(fabric.here(), rank_block(a, layout, k), layout);
    }
    fabric.on(0);
    return ranks;
}

// Every rank's x set to x0 (in the padded layout) and its y to 0.
inline void start_ranks(const RankFabric& fabric, std::vector<RankArrays>& ranks,
                        const PaddedLayout& layout, const std::vector<float>& x0) {
    const std::vector<float> start = layout.padded(x0);
    for (int k = 0; k < fabric.ranks(); ++k) {
        fabric.on(k);
        ranks[k].x.upload(start);
        ranks[k].y.fill_bytes(0);
    }
    fabric.on(0);
}

// One product on every rank, y_k = A_k x (y starts at 0), then the all-gather: afterwards every
// rank's x holds A x, in the padded layout.
inline void spmv_then_gather(const RankFabric& fabric, std::vector<RankArrays>& ranks, int piece,
                             RankKernel kernel) {
    std::vector<const float*> pieces;
    std::vector<float*> wholes;
    for (int k = 0; k < fabric.ranks(); ++k) {
        fabric.on(k);
        ranks[k].y.fill_bytes(0);
        launch_on_rank(fabric.here(), kernel, ranks[k]);
        pieces.push_back(ranks[k].y.data());
        wholes.push_back(ranks[k].x.data());
    }
    fabric.all_gather(pieces, wholes, piece);
    fabric.on(0);
}

// A^steps x0 across the ranks, back in row order.
inline std::vector<float> power_across_ranks(const RankFabric& fabric, const HostCsr& a,
                                             const PaddedLayout& layout,
                                             const std::vector<float>& x0, int steps,
                                             RankKernel kernel = RankKernel::thread_per_row) {
    std::vector<RankArrays> ranks = make_ranks(fabric, a, layout);
    start_ranks(fabric, ranks, layout, x0);
    for (int s = 0; s < steps; ++s) spmv_then_gather(fabric, ranks, layout.piece, kernel);
    return layout.in_row_order(ranks.front().x.download());
}

// The same products on one rank, with 143's kernel on the whole matrix.
inline std::vector<float> power_on_one(const Here& here, const HostCsr& a,
                                       const std::vector<float>& x0, int steps) {
    std::vector<float> x = x0;
    for (int s = 0; s < steps; ++s) x = csr_spmv(here, a, x, zeros(a.num_rows));
    return x;
}

inline void show_split(const char* how, const RowSplit& split, const HostCsr& a) {
    std::printf("split %s:\n", how);
    int64_t most = 0;
    for (int k = 0; k < split.ranks(); ++k) {
        most = std::max(most, split.nonzeros(k, a.row_offsets));
        std::printf(
            "  rank %d: rows %d .. %d (%s), %s\n", k, split.first_row[k],
            split.first_row[k + 1] - 1, counted(split.rows(k), "row").c_str(),
            counted(static_cast<size_t>(split.nonzeros(k, a.row_offsets)), "nonzero").c_str());
    }
    const double share = split.ranks() ? double(a.nnz()) / split.ranks() : 0.0;
    std::printf("  the busiest rank holds %.2f times an equal share of the nonzeros\n",
                share > 0 ? most / share : 0.0);
}

// Both splits, each checked against the one-rank products bit for bit: each row is summed by
// the same body, in the same order, from the same x values. 148's kernel, which the timings
// also run, adds a long row's pieces in another order, so it is held to the double reference.
inline void check_splits(const KernelProgram& p, const RankFabric& fabric, const HostCoo& coo,
                         const HostCsr& a, SelfCheck& check) {
    const int ranks = fabric.ranks();
    const int steps = 3;
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const std::vector<float> one = power_on_one(p.here, a, x0, steps);
    for (const auto& [how, split] :
         {std::pair{"by rows", split_by_rows(a.num_rows, ranks)},
          std::pair{"by nonzeros", split_by_nonzeros(a.row_offsets, ranks)}}) {
        show_split(how, split, a);
        const PaddedLayout layout(split);
        std::printf("  each gather: %s of %s, %s received by each rank\n\n",
                    counted(ranks, "piece").c_str(), counted(layout.piece, "float").c_str(),
                    readable_bytes(4.0 * layout.piece * (ranks - 1)).c_str());
        const std::vector<float> across = power_across_ranks(fabric, a, layout, x0, steps);
        check.claim(std::string("A^3 x across ") + counted(ranks, "rank") + ", split " + how +
                        ", equals the one-rank products bit for bit",
                    across == one);
        const std::vector<float> merged =
            power_across_ranks(fabric, a, layout, x0, 1, RankKernel::merge_path);
        check.claim("A x across " + counted(ranks, "rank") + " with 148's merge path, split " +
                        how + ", matches the double reference within float32 rounding",
                    spmv_matches(merged, spmv_reference(coo, x0, zeros(a.num_rows))));
    }
}

// ------------------------------------------------------------------- CG across the ranks
// 147's conjugate gradient with its vectors cut like the rows: rank k keeps the pieces of b, x,
// r and q of its rows, and the whole direction p, in the padded layout, which its SpMV reads; its
// own piece of p is the slice of that whole p at k * piece, updated in place. A dot product is
// each rank's sum over its rows, then the sum of those partial sums (an all-reduce) written
// into every rank's scalars, so that every rank takes the same alpha and beta.
class CgRanks {
public:
    CgRanks(const RankFabric& fabric, const HostCsr& a, const PaddedLayout& layout,
            const std::vector<float>& b)
        : fabric_(fabric), layout_(layout) {
        const std::vector<float> b_padded = layout.padded(b);
        const Here& here = fabric.here();
        for (int k = 0; k < fabric.ranks(); ++k) {
            fabric.on(k);
            const size_t offset = static_cast<size_t>(k) * layout.piece;
            ranks_.push_back(
                Rank{RankArrays(here, rank_block(a, layout, k), layout),
                     offset,
                     layout.split.rows(k),
                     DeviceArray<float>(
                         here, std::vector<float>(b_padded.begin() + offset,
                                                  b_padded.begin() + offset + layout.piece)),
                     DeviceArray<float>(here, static_cast<size_t>(layout.piece)),
                     DeviceArray<float>(here, static_cast<size_t>(layout.piece)),
                     DeviceArray<double>(here, std::vector<double>(kNumScalars, 0.0)),
                     {}});
            Rank& r = ranks_.back();
            // The padding past a short block's rows is never computed, but the all-gather carries
            // it with the rank's piece of p, and solution() downloads it with the piece of x.
            r.arrays.x.fill_bytes(0);
            r.x.fill_bytes(0);
            if (here.on_gpu()) {
                size_t bytes = 0;
                CUDA_CHECK(
                    dot_on_gpu(nullptr, bytes, r.r.data(), r.r.data(), r.rows, r.scalars.data()));
                r.scratch = DeviceBuffer<unsigned char>(std::max<size_t>(bytes, 1));
            }
        }
        fabric.on(0);
    }

    // Up to `iterations` steps from x = 0, fewer once the relative residual that the recurrence
    // gives is at or below `stop_at` (by default no residual is); that residual after each step.
    std::vector<double> run(int iterations, double b_norm, double stop_at = -1.0) {
        each_rank([&](Rank& r) {
            here().launch(r.rows, cg_start_kernel, cg_start_thread, r.b.data(), r.x.data(),
                          r.r.data(), r.p());
        });
        gather_directions();
        all_reduce_dot(kRr, [](Rank& r) { return std::pair{r.r.data(), r.r.data()}; });
        std::vector<double> history = {std::sqrt(scalar(kRr)) / b_norm};
        for (int i = 0; i < iterations && history.back() > stop_at; ++i) {
            each_rank([&](Rank& r) {
                r.arrays.y.fill_bytes(0);
                launch_spmv_csr(here(), r.arrays.block, r.arrays.x.data(), r.arrays.y.data());
            });
            all_reduce_dot(kPq, [](Rank& r) { return std::pair{r.p(), r.arrays.y.data()}; });
            each_rank([&](Rank& r) {
                here().launch(r.rows, cg_step_kernel, cg_step_thread, r.scalars.data(), r.p(),
                              r.arrays.y.data(), r.x.data(), r.r.data());
            });
            all_reduce_dot(kRrNext, [](Rank& r) { return std::pair{r.r.data(), r.r.data()}; });
            each_rank([&](Rank& r) {
                here().launch(r.rows, cg_direction_kernel, cg_direction_thread, r.scalars.data(),
                              r.r.data(), r.p());
                here().launch(1, cg_next_round_kernel, cg_next_round_thread, r.scalars.data());
            });
            gather_directions();
            history.push_back(std::sqrt(scalar(kRr)) / b_norm);
        }
        return history;
    }

    std::vector<float> solution() const {
        std::vector<float> padded(layout_.length(), 0.0f);
        for (int k = 0; k < fabric_.ranks(); ++k) {
            fabric_.on(k);
            const std::vector<float> piece = ranks_[k].x.download();
            std::copy(piece.begin(), piece.end(), padded.begin() + ranks_[k].offset);
        }
        fabric_.on(0);
        return layout_.in_row_order(padded);
    }

private:
    struct Rank {
        RankArrays arrays;  // x: the whole direction p; y: q, this rank's piece
        size_t offset;
        int rows;
        DeviceArray<float> b, x, r;
        DeviceArray<double> scalars;
        DeviceBuffer<unsigned char> scratch;  // CUB's, for the partial dot products on a GPU
        float* p() { return arrays.x.data() + offset; }
    };

    const Here& here() const { return fabric_.here(); }

    template <class Work>
    void each_rank(Work work) {
        for (int k = 0; k < fabric_.ranks(); ++k) {
            fabric_.on(k);
            work(ranks_[k]);
        }
        fabric_.on(0);
    }

    // Every rank's own piece of p into every rank's whole p; each piece lies in place already.
    void gather_directions() {
        std::vector<const float*> pieces;
        std::vector<float*> wholes;
        for (Rank& r : ranks_) {
            pieces.push_back(r.p());
            wholes.push_back(r.arrays.x.data());
        }
        fabric_.all_gather(pieces, wholes, layout_.piece);
    }

    // Each rank's partial sum over its rows, in double, into its scalars[slot] where its kernels
    // run; then the all-reduce leaves the sum over the ranks in every rank's slot.
    template <class Vectors>
    void all_reduce_dot(CgScalar slot, Vectors vectors) {
        std::vector<double*> slots;
        each_rank([&](Rank& r) {
            const auto [u, v] = vectors(r);
            double* target = r.scalars.data() + slot;
            slots.push_back(target);
            if (here().on_gpu()) {
                size_t bytes = r.scratch.size();
                CUDA_CHECK(dot_on_gpu(r.scratch.data(), bytes, u, v, r.rows, target));
                return;
            }
            double sum = 0;
            for (int i = 0; i < r.rows; ++i) sum += static_cast<double>(u[i]) * v[i];
            *target = sum;
        });
        fabric_.all_reduce_sum(slots);
    }

    static cudaError_t dot_on_gpu(void* scratch, size_t& bytes, const float* u, const float* v,
                                  int n, double* result) {
        return cub::DeviceReduce::TransformReduce(scratch, bytes, thrust::counting_iterator<int>(0),
                                                  result, n, cuda::std::plus<double>{},
                                                  ProductInDouble{u, v}, 0.0);
    }

    double scalar(CgScalar slot) const { return ranks_.front().scalars.download()[slot]; }

    const RankFabric& fabric_;
    PaddedLayout layout_;
    std::vector<Rank> ranks_;
};

// CG on the Poisson matrix across the ranks, against the same CG on one rank: the same number
// of iterations, the ones that one rank needs to reach 147's tolerance. Only the order in which
// the dot products' terms are added differs between the two.
inline void check_cg(const KernelProgram& p, const RankFabric& fabric, SelfCheck& check) {
    const int ranks = fabric.ranks();
    // CG's iterations grow with the grid's side, and the check runs two solves, so at --scale
    // it stops at a 128 x 128 grid; the timings below take the full 2^S unknowns.
    const int side =
        p.options.scale > 0 ? std::min(1 << (p.options.scale / 2), 128) : kDefaultGridSide;
    const CgSystem system =
        make_cg_system(csr_from_coo_by_stable_sort(poisson_5_point(side, side)), false);
    const HostCsr& a = system.matrix;
    const double b_norm = rhs_norm(system);
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    CgRanks one(alone, a, PaddedLayout(split_by_rows(a.num_rows, 1)), system.b);
    const std::vector<double> one_history = one.run(cg_iteration_cap(system), b_norm, kCgTolerance);
    const int iterations = static_cast<int>(one_history.size()) - 1;
    CgRanks across(fabric, a, PaddedLayout(split_by_nonzeros(a.row_offsets, ranks)), system.b);
    const std::vector<double> history = across.run(iterations, b_norm);
    const std::vector<float> x_one = one.solution(), x_across = across.solution();
    double largest = 0, difference = 0;
    for (size_t i = 0; i < x_one.size(); ++i) {
        largest = std::max(largest, std::fabs(double(x_one[i])));
        difference = std::max(difference, std::fabs(double(x_one[i]) - x_across[i]));
    }
    char line[200];
    std::snprintf(
        line, sizeof line,
        "CG on the Poisson matrix of a %d x %d grid: %d iterations to a relative residual "
        "of %.2e on one rank, %.2e across %s",
        side, side, iterations, one_history.back(), history.back(), counted(ranks, "rank").c_str());
    print_wrapped(line);
    std::printf("  largest difference of x across ranks from x on one rank: %.3g (of %.3g)\n\n",
                difference, largest);
    check.claim("CG across " + counted(ranks, "rank") +
                    " gets within twice 147's tolerance in the iterations that one rank takes",
                history.back() <= kCgTolerance * 2);
    check.claim("its x equals one rank's to within 1e-5 of x's largest entry",
                difference <= 1e-5 * largest);
}

// ------------------------------------------------------------------------------- timings
// The median wall time of `step` and the wait for every rank, after warm-ups: the ranks of one
// step run at once on their GPUs, so host time around the whole step is what counts.
template <class Step>
double median_step_ms(const RankFabric& fabric, Step step) {
    const TimedRuns runs = timed_runs();
    for (int i = 0; i < runs.warmups; ++i) step();
    fabric.synchronize();
    std::vector<double> ms;
    for (int i = 0; i < runs.repetitions; ++i) {
        ms.push_back(host_ms([&] {
            step();
            fabric.synchronize();
        }));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// CG on the Poisson matrix of 2^S unknowns (147's --scale input): ten iterations, each with its
// SpMV, its gather and its three all-reduced dot products, on one GPU and across the ranks.
inline void time_cg_iterations(const KernelProgram& p, const RankFabric& fabric,
                               const TimingTable& table) {
    const int side = 1 << (p.options.scale / 2);
    const CgSystem s =
        make_cg_system(csr_from_coo_by_stable_sort(poisson_5_point(side, side)), false);
    const double b_norm = rhs_norm(s);
    const int iterations = 10;
    const double bytes = iterations * (8.0 * s.matrix.nnz() + 64.0 * s.matrix.num_rows);
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    CgRanks one(alone, s.matrix, PaddedLayout(split_by_rows(s.matrix.num_rows, 1)), s.b);
    CgRanks across(fabric, s.matrix,
                   PaddedLayout(split_by_nonzeros(s.matrix.row_offsets, fabric.ranks())), s.b);
    const double one_ms = median_step_ms(alone, [&] { one.run(iterations, b_norm); }) / iterations;
    const double across_ms =
        median_step_ms(fabric, [&] { across.run(iterations, b_norm); }) / iterations;
    table.report("cg_iteration_one_gpu", "one CG iteration on one rank (Poisson)",
                 bytes / iterations, one_ms);
    table.report("cg_iteration_ranks", "one CG iteration across the ranks (Poisson)",
                 bytes / iterations, across_ms);
    table.ratio("CG iteration across ranks / one rank", across_ms / one_ms, "the ranks are faster");
}

// Every rank's SpMV launched at once, each on its own GPU where it has one; then the wait for all.
inline double median_ranks_ms(const RankFabric& fabric, std::vector<RankArrays>& ranks,
                              RankKernel kernel) {
    return median_step_ms(fabric, [&] {
        for (int k = 0; k < fabric.ranks(); ++k) {
            fabric.on(k);
            launch_on_rank(fabric.here(), kernel, ranks[k]);
        }
        fabric.on(0);
    });
}

struct TimedKernel {
    RankKernel kernel;
    const char* key;
    const char* name;
};
constexpr TimedKernel kTimedKernels[] = {
    {RankKernel::thread_per_row, "thread_per_row", "143's thread per row"},
    {RankKernel::merge_path, "merge_path", "148's merge path by blocks"}};

// At --scale on a GPU, for both kernels and both splits: each rank's SpMV alone, all ranks' at
// once, and the same product on one rank; the all-gather of each split; then CG.
inline void time_across_ranks(const KernelProgram& p, const RankFabric& fabric, const HostCsr& a) {
    const double bytes = 8.0 * a.nnz() + 4.0 * (a.num_rows + 1) + 8.0 * a.num_rows;
    TimingTable table(p, "149", p.options.skew,
                      "bytes: the CSR arrays, x once, y written once; " + fabric.describe());
    if (fabric.kind() == RankFabric::Kind::one_gpu)
        print_wrapped(
            "  the ranks share GPU 0 and take turns, so a step of all ranks costs the sum "
            "of their times: the ratios below show what the split costs, not a "
            "speed-up, which needs one GPU per rank");
    const std::vector<float> x0 = lesson_x(a.num_cols);
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    const PaddedLayout whole(split_by_rows(a.num_rows, 1));
    std::vector<RankArrays> one = make_ranks(alone, a, whole);
    start_ranks(alone, one, whole, x0);
    std::vector<double> one_ms;
    for (const TimedKernel& k : kTimedKernels) {
        one_ms.push_back(median_ranks_ms(alone, one, k.kernel));
        table.report(std::string("spmv_one_gpu_") + k.key,
                     std::string("SpMV on one rank, ") + k.name, bytes, one_ms.back());
    }
    for (const auto& [split_key, split] :
         {std::pair{"by_nonzeros", split_by_nonzeros(a.row_offsets, fabric.ranks())},
          std::pair{"by_rows", split_by_rows(a.num_rows, fabric.ranks())}}) {
        const PaddedLayout layout(split);
        std::vector<RankArrays> ranks = make_ranks(fabric, a, layout);
        start_ranks(fabric, ranks, layout, x0);
        std::vector<const float*> pieces;
        std::vector<float*> wholes;
        for (RankArrays& r : ranks) {
            pieces.push_back(r.y.data());
            wholes.push_back(r.x.data());
        }
        const double gather_ms =
            median_step_ms(fabric, [&] { fabric.all_gather(pieces, wholes, layout.piece); });
        table.report(std::string("gather_ranks_") + split_key,
                     std::string("all-gather of y, split ") + split_key,
                     4.0 * layout.piece * (fabric.ranks() - 1) * fabric.ranks(), gather_ms);
        for (size_t i = 0; i < std::size(kTimedKernels); ++i) {
            const TimedKernel& k = kTimedKernels[i];
            std::vector<double> rank_ms;
            for (int r = 0; r < fabric.ranks(); ++r) {
                fabric.on(r);
                rank_ms.push_back(
                    median_step_ms(fabric, [&] { launch_on_rank(p.here, k.kernel, ranks[r]); }));
                std::printf(
                    "  rank %d, split %s, %s: %s, %.3f ms\n", r, split_key, k.name,
                    counted(static_cast<size_t>(split.nonzeros(r, a.row_offsets)), "nonzero")
                        .c_str(),
                    rank_ms.back());
            }
            fabric.on(0);
            const double spmv_ms = median_ranks_ms(fabric, ranks, k.kernel);
            const std::string what = std::string(k.name) + ", split " + split_key;
            table.report(std::string("spmv_ranks_") + k.key + "_" + split_key,
                         "SpMV on every rank at once, " + what, bytes, spmv_ms);
            const auto [fastest, slowest] = std::minmax_element(rank_ms.begin(), rank_ms.end());
            table.ratio("slowest / fastest rank's SpMV, " + what, *slowest / *fastest);
            table.ratio("SpMV across ranks / one rank, " + what, spmv_ms / one_ms[i],
                        "the ranks are faster");
            table.ratio("SpMV and gather across ranks / one rank, " + what,
                        (spmv_ms + gather_ms) / one_ms[i], "the ranks are faster");
            std::printf("  a step: compute %.3f ms, gather %.3f ms (%.0f%% of the step)\n\n",
                        spmv_ms, gather_ms, 100.0 * gather_ms / (spmv_ms + gather_ms));
        }
    }
    time_cg_iterations(p, fabric, table);
}

#if __INCLUDE_LEVEL__ == 0  // main, unless a later lesson or a test includes this file
int main(int argc, char** argv) {
    const KernelProgram p = start_kernel_program(
        argc, argv,
        ProgramDescription(
            "149 (14.7) kernel: SpMV across ranks, rows split by nonzeros",
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
    const RankFabric fabric(p.here, static_cast<int>(p.options.whole("--ranks", 2)));
    std::printf("%s: %s\n\n", counted(fabric.ranks(), "rank").c_str(), fabric.describe().c_str());
    SelfCheck check;
    check_splits(p, fabric, coo, a, check);
    check_cg(p, fabric, check);
    if (p.on_gpu() && p.options.scale > 0) time_across_ranks(p, fabric, a);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            coo, power_across_ranks(fabric, a,
                                    PaddedLayout(split_by_nonzeros(a.row_offsets, fabric.ranks())),
                                    ones(a.num_cols), 1)));
    return check.finish();
}
#endif
