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
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "../common/binary_search.h"
// 147's lesson: its CG iteration, run_conjugate_gradient, over parts of the vectors that each
// rank holds, with its kernels and scalars, and through it 143's CSR kernel.
#include "147_conjugate_gradient_kernel.cu"
// 148's lesson: the block-staged merge path, whose time follows rows + nonzeros.
#include "148_spmv_merge_path_kernel.cu"

// Each rank's share of the matrix: its block of rows with the column indices renumbered into the
// padded layout of x that an all-gather fills. An all-gather moves pieces of one size, so each
// rank's piece of y is as long as the largest block, and rank k's rows land at positions
// k * piece .. k * piece + rows(k) - 1 of every rank's x. Renumbering the columns once, when the
// blocks are made, lets each rank's SpMV read that x directly: no copy turns the gathered pieces
// back into row order.

// first_row[k] .. first_row[k + 1] - 1 are rank k's rows; first_row[0] = 0, first_row[P] = R.
struct RowSplit {
    std::vector<int> first_row;

    int ranks() const { return static_cast<int>(first_row.size()) - 1; }
    int rows(int rank) const { return first_row[rank + 1] - first_row[rank]; }
    int64_t nonzeros(int rank, const std::vector<int>& row_offsets) const {
        return int64_t{row_offsets[first_row[rank + 1]]} - row_offsets[first_row[rank]];
    }
};

struct PaddedLayout {
    RowSplit split;
    int piece = 0;  // rows of the largest block

    explicit PaddedLayout(RowSplit s) : split(std::move(s)) {
        for (int k = 0; k < split.ranks(); ++k) piece = std::max(piece, split.rows(k));
    }
    size_t length() const { return static_cast<size_t>(piece) * split.ranks(); }
    // The last rank whose first row is at or before `row`, the one just before the first rank
    // that starts after it (a rank without rows starts where the next one does).
    int rank_of(int row) const {
        return lower_bound_index(split.first_row.data(), static_cast<int>(split.first_row.size()),
                                 row + 1) -
               1;
    }
    size_t position(int row) const {
        const int k = rank_of(row);
        return static_cast<size_t>(k) * piece + (row - split.first_row[k]);
    }
    // A vector in row order, laid out as the all-gather leaves it (padding slots 0).
    std::vector<float> padded(const std::vector<float>& in_row_order) const {
        std::vector<float> out(length(), 0.0f);
        for (size_t row = 0; row < in_row_order.size(); ++row)
            out[position(static_cast<int>(row))] = in_row_order[row];
        return out;
    }
    std::vector<float> in_row_order(const std::vector<float>& padded_vector) const {
        const int rows = split.first_row.back();
        std::vector<float> out(rows);
        for (int row = 0; row < rows; ++row) out[row] = padded_vector[position(row)];
        return out;
    }
};

// Rank k's rows, their offsets rebased to 0, their columns renumbered into the padded layout.
inline HostCsr rank_block(const HostCsr& a, const PaddedLayout& layout, int rank) {
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument("an SpMV across ranks gathers y into x: A must be square");
    const int first = layout.split.first_row[rank], rows = layout.split.rows(rank);
    HostCsr block;
    block.num_rows = rows;
    block.num_cols = static_cast<int>(layout.length());
    const int begin = a.row_offsets[first], end = a.row_offsets[first + rows];
    for (int r = 0; r <= rows; ++r) block.row_offsets.push_back(a.row_offsets[first + r] - begin);
    for (int k = begin; k < end; ++k) {
        block.col_idx.push_back(static_cast<int>(layout.position(a.col_idx[k])));
        block.values.push_back(a.values[k]);
    }
    return block;
}

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

// Where the ranks live and how their pieces move between them. With no GPU, the ranks run in
// the emulator and an all-gather or an all-reduce is a host copy or a host sum. With more ranks
// than GPUs, or a build without NCCL, or where one place is asked for, every rank lives on GPU 0
// and the exchanges are device-to-device copies and a sum on the host. Otherwise rank k lives on
// GPU k, with one NCCL communicator per GPU (ncclCommInitAll, one process), and the exchanges
// are ncclAllGather and ncclAllReduce; one rank on one GPU takes that road too, so that a
// machine with a single GPU runs NCCL's calls as well.
#ifdef SUITE_HAVE_NCCL
#include <nccl.h>

#define NCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        const ncclResult_t nccl_result = (call);                                                   \
        if (nccl_result != ncclSuccess)                                                            \
            throw std::runtime_error(std::string(#call) + ": " + ncclGetErrorString(nccl_result)); \
    } while (0)
#endif

class RankFabric {
public:
    enum class Kind { emulated, one_gpu, gpu_per_rank };
    enum class Placement { one_place, gpu_per_rank_where_possible };

    RankFabric(const Here& here, int ranks,
               [[maybe_unused]] Placement placement = Placement::gpu_per_rank_where_possible)
        : here_(here), ranks_(ranks) {
        kind_ = here.on_gpu() ? Kind::one_gpu : Kind::emulated;
#ifdef SUITE_HAVE_NCCL
        int devices = 0;
        if (here.on_gpu()) CUDA_CHECK(cudaGetDeviceCount(&devices));
        if (placement == Placement::gpu_per_rank_where_possible && here.on_gpu() &&
            ranks <= devices) {
            kind_ = Kind::gpu_per_rank;
            comms_.resize(ranks);
            std::vector<int> device_ids(ranks);
            for (int k = 0; k < ranks; ++k) device_ids[k] = k;
            NCCL_CHECK(ncclCommInitAll(comms_.data(), ranks, device_ids.data()));
        }
#endif
    }
    RankFabric(const RankFabric&) = delete;
    RankFabric& operator=(const RankFabric&) = delete;
    ~RankFabric() {
#ifdef SUITE_HAVE_NCCL
        for (ncclComm_t c : comms_) ncclCommDestroy(c);
        if (kind_ == Kind::gpu_per_rank) cudaSetDevice(0);
#endif
    }

    Kind kind() const {
        return kind_;
    }
    int ranks() const {
        return ranks_;
    }
    const Here& here() const {
        return here_;
    }

    std::string describe() const {
        switch (kind_) {
            case Kind::emulated:
                return "in the emulator: gathers and sums are host copies and host sums";
            case Kind::one_gpu:
#ifdef SUITE_HAVE_NCCL
                return "all on GPU 0: gathers are device copies, sums are added on the host";
#else
                return "all on GPU 0 (built without NCCL): gathers are device copies, sums are "
                       "added on the host";
#endif
            case Kind::gpu_per_rank:
                return "rank k on GPU k, one NCCL communicator each: ncclAllGather, ncclAllReduce";
        }
        return "";
    }

    // Makes rank k's GPU current, before anything of rank k is allocated or launched.
    void on(int rank) const {
        if (kind_ == Kind::gpu_per_rank) CUDA_CHECK(cudaSetDevice(rank));
    }

    // work(k) for every rank k in turn, with rank k's GPU current; rank 0's again afterwards.
    template <class Work>
    void each_rank(Work work) const {
        for (int k = 0; k < ranks_; ++k) {
            on(k);
            work(k);
        }
        on(0);
    }

    // Rank k's piece (piece floats) into every rank's whole (ranks * piece floats) at k * piece.
    // A piece may already lie in its own rank's whole, at its place.
    void all_gather(const std::vector<const float*>& pieces, const std::vector<float*>& wholes,
                    int piece) const {
        if (piece == 0) return;
#ifdef SUITE_HAVE_NCCL
        if (kind_ == Kind::gpu_per_rank) {
            NCCL_CHECK(ncclGroupStart());
            for (int k = 0; k < ranks_; ++k)
                NCCL_CHECK(ncclAllGather(pieces[k], wholes[k], piece, ncclFloat, comms_[k], 0));
            NCCL_CHECK(ncclGroupEnd());
            return;
        }
#endif
        for (int to = 0; to < ranks_; ++to)
            for (int k = 0; k < ranks_; ++k) {
                float* place = wholes[to] + static_cast<size_t>(k) * piece;
                if (place != pieces[k]) copy_where_kernels_run(here_, place, pieces[k], piece);
            }
    }

    // Each rank's double at slots[k] (where rank k's kernels run) becomes the sum over ranks.
    void all_reduce_sum(const std::vector<double*>& slots) const {
#ifdef SUITE_HAVE_NCCL
        if (kind_ == Kind::gpu_per_rank) {
            NCCL_CHECK(ncclGroupStart());
            for (int k = 0; k < ranks_; ++k)
                NCCL_CHECK(ncclAllReduce(slots[k], slots[k], 1, ncclDouble, ncclSum, comms_[k], 0));
            NCCL_CHECK(ncclGroupEnd());
            return;
        }
#endif
        double total = 0;
        for (double* slot : slots) total += read(slot);
        for (double* slot : slots) write(slot, total);
    }

    // Waits for every rank's work: the end of a timed step. The current GPU is left as it was,
    // so that a step timed on one rank's GPU keeps launching there.
    void synchronize() const {
        if (!here_.on_gpu()) return;
        int current = 0;
        CUDA_CHECK(cudaGetDevice(&current));
        for (int k = 0; k < (kind_ == Kind::gpu_per_rank ? ranks_ : 1); ++k) {
            on(k);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        CUDA_CHECK(cudaSetDevice(current));
    }

private:
    double read(const double* slot) const {
        double value = 0;
        if (here_.on_gpu())
            CUDA_CHECK(cudaMemcpy(&value, slot, sizeof value, cudaMemcpyDeviceToHost));
        else
            value = *slot;
        return value;
    }
    void write(double* slot, double value) const {
        if (here_.on_gpu())
            CUDA_CHECK(cudaMemcpy(slot, &value, sizeof value, cudaMemcpyHostToDevice));
        else
            *slot = value;
    }

    Here here_;
    int ranks_;
    Kind kind_;
#ifdef SUITE_HAVE_NCCL
    std::vector<ncclComm_t> comms_;
#endif
};

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

// 147's CG with its vectors cut like the rows: rank k holds its block and its pieces of b, r
// and q, and x and p whole in the padded layout, which its SpMV reads; its own pieces of x and p
// are their slices at k * piece, updated in place. 147's run_conjugate_gradient runs the
// iteration on the ranks' parts: every dot product is summed across the ranks (all-reduced), and
// every new direction is gathered.
struct CgRank {
    CgRank(const Here& here, const HostCsr& block, const PaddedLayout& layout,
           const std::vector<float>& b_piece, size_t offset)
        : block(here, block),
          b(here, b_piece),
          r(here, b_piece.size()),
          q(here, b_piece.size()),
          x(here, layout.length()),
          p(here, layout.length()),
          scalars(here, std::vector<double>(kNumScalars, 0.0)),
          dot(here, block.num_rows),
          offset(offset) {
        // The padding past a short block's rows is never computed, but the all-gather carries
        // it with the rank's pieces, and the solution downloads it with the piece of x.
        x.fill_bytes(0);
        p.fill_bytes(0);
    }
    CgPart part() {
        return {block.num_rows,    b.data(), x.data() + offset, r.data(),
                p.data() + offset, q.data(), scalars.data()};
    }
    DeviceCsr block;
    DeviceArray<float> b, r, q, x, p;
    DeviceArray<double> scalars;
    DotInDouble dot;
    size_t offset;
};

struct CgRanks {
    CgRanks(const RankFabric& fabric, const HostCsr& a, const PaddedLayout& layout,
            const std::vector<float>& b)
        : fabric(fabric), here(fabric.here()), layout(layout) {
        const std::vector<float> b_padded = layout.padded(b);
        fabric.each_rank([&](int k) {
            const size_t offset = static_cast<size_t>(k) * layout.piece;
            const auto piece = b_padded.begin() + offset;
            ranks.emplace_back(here, rank_block(a, layout, k), layout,
                               std::vector<float>(piece, piece + layout.piece), offset);
        });
    }
    template <class Work>
    void each_part(Work work) {
        fabric.each_rank([&](int k) {
            CgPart part = ranks[k].part();
            work(part);
        });
    }
    DeviceArray<float>& whole(float* CgPart::*v, CgRank& r) { return v == &CgPart::x ? r.x : r.p; }
    // Every rank's piece of v into every rank's whole v; each piece lies in place already.
    void gather(float* CgPart::*v) {
        std::vector<const float*> pieces;
        std::vector<float*> wholes;
        for (CgRank& r : ranks) {
            pieces.push_back(r.part().*v);
            wholes.push_back(whole(v, r).data());
        }
        fabric.all_gather(pieces, wholes, layout.piece);
    }
    // q = A v on every rank, from its whole v, by 143's kernel, which adds into q.
    void multiply(float* CgPart::*v) {
        fabric.each_rank([&](int k) {
            ranks[k].q.fill_bytes(0);
            launch_spmv_csr(here, ranks[k].block, whole(v, ranks[k]).data(), ranks[k].q.data());
        });
        ++spmv_calls;
    }
    // Each rank's partial sum over its rows, in double, into its scalars[slot]; then the
    // all-reduce leaves the sum over the ranks in every rank's slot, so that every rank takes
    // the same alpha and beta.
    void dot(float* CgPart::*u, float* CgPart::*v, CgScalar slot) {
        std::vector<double*> slots;
        fabric.each_rank([&](int k) {
            CgPart part = ranks[k].part();
            slots.push_back(part.scalars + slot);
            ranks[k].dot(part.*u, part.*v, slots.back());
        });
        fabric.all_reduce_sum(slots);
    }
    CgScalars read() {
        const std::vector<double> s = ranks.front().scalars.download();
        return {s[kRr], s[kPq]};
    }
    // x, gathered from the ranks' pieces, in row order.
    std::vector<float> solution() {
        std::vector<float> padded(layout.length(), 0.0f);
        fabric.each_rank([&](int k) {
            const std::vector<float> x = ranks[k].x.download();
            std::copy(x.begin() + ranks[k].offset, x.begin() + ranks[k].offset + layout.piece,
                      padded.begin() + ranks[k].offset);
        });
        return layout.in_row_order(padded);
    }

    const RankFabric& fabric;
    Here here;
    PaddedLayout layout;
    std::vector<CgRank> ranks;
    EventStopwatch stopwatch{false};  // 147's solve times its SpMVs; these are timed whole
    int spmv_calls = 0;
};

// 147's CG across the ranks of `fabric`, the rows cut by `split`, from x = 0 to 147's tolerance
// or for at most max_iterations; x comes back in row order.
inline CgOutcome cg_across_ranks(const RankFabric& fabric, const CgSystem& s, const RowSplit& split,
                                 int max_iterations, double tolerance = kCgTolerance) {
    CgRanks cg(fabric, s.matrix, PaddedLayout(split), s.b);
    return solve_for_x(cg, s, tolerance, max_iterations);
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
        show_split(how, split, a, fabric.ranks());
        const PaddedLayout layout(split);
        const std::vector<float> y_cpu = spmv_across_ranks_cpu(a, layout, x);
        const std::vector<float> power = power_across_ranks(fabric, a, layout, x, kCheckedPowers);
        const std::vector<float> merged =
            power_across_ranks(fabric, a, layout, x, 1, RankKernel::merge_path);
        check_split(coo, how, fabric.ranks(), power_one_rank, power, merged, y_cpu, check);
    }

    // CG across the ranks, capped at the iterations that CG on one rank takes.
    const CgSystem poisson = poisson_system(cg_grid_side(p.options));
    const HostCsr& poisson_a = poisson.matrix;
    const RankFabric alone(p.here, 1, RankFabric::Placement::one_place);
    const CgOutcome one = cg_across_ranks(alone, poisson, split_by_rows(poisson_a.num_rows, 1),
                                          cg_iteration_cap(poisson));
    const CgOutcome across = cg_across_ranks(
        fabric, poisson, split_by_nonzeros(poisson_a.row_offsets, fabric.ranks()), one.iterations);
    check_cg(fabric.ranks(), poisson_a, one, across, check);
    compare_with_library(p, fabric, a);
    if (!p.options.book_example())
        check.end_with(spmv_result_line(
            coo, power_across_ranks(fabric, a,
                                    PaddedLayout(split_by_nonzeros(a.row_offsets, fabric.ranks())),
                                    ones(a.num_cols), 1)));
    return check.finish();
}
#endif
