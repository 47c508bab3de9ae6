#pragma once
/// \file
/// Segment hierarchies of a batch of giant tours built on the device (nvcc only), by the steps
/// SegmentTable runs on the host (segment_table.hpp: build_edge, build_inner_row,
/// build_run_row), so both give the same summaries bit for bit. Four kernels, every one
/// parallel over the positions (or parts) of every tour: edges, rows of level 0 (a thread joins
/// a row left to right: at most `part` joins, every segment for the zero level), rows of level
/// 1 (a thread per row, few rows per block, the part summaries staged in shared memory), and
/// each tour's view with the summary of the whole tour. A thread that folds a row writes it
/// alone, so blocks are small: a multiprocessor then serves few scattered rows at a time.

#include <cuda_runtime.h>

#include <cstdint>

#include "locus/routing/segment_table.hpp"

namespace locus::routing {

/// Device arrays of the hierarchies of `count` tours of shape.n positions each, tour-major, for
/// the composed resources R.
template <class R> struct SegmentBatchArrays {
    using Segment = typename R::Segment;
    Segment* inner = nullptr;        ///< count x shape.inner_size()
    Segment* runs = nullptr;         ///< count x shape.runs_size()
    double* edges = nullptr;         ///< count x shape.n
    SegmentView<R>* views = nullptr; ///< count
    Segment* wholes = nullptr;       ///< count: summary of each whole tour
    HierarchyShape shape;
    std::uint32_t count = 0;

    LOCUS_HD_INLINE SegmentArrays<R> of(std::uint32_t tour) const {
        return {inner + static_cast<std::int64_t>(tour) * shape.inner_size(),
                runs + static_cast<std::int64_t>(tour) * shape.runs_size(),
                edges + static_cast<std::int64_t>(tour) * shape.n, shape};
    }
};

namespace detail {

inline constexpr unsigned kSegmentBuildThreads = 128;

template <class Distance, class R>
__global__ void segment_edges_kernel(const std::int32_t* tours, const Distance distance,
                                     const SegmentBatchArrays<R> a) {
    const std::uint64_t id = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t n = static_cast<std::uint64_t>(a.shape.n);
    if (id >= n * a.count) return;
    const auto tour = static_cast<std::uint32_t>(id / n);
    build_edge(tours + static_cast<std::int64_t>(tour) * a.shape.n, distance, a.of(tour),
               static_cast<std::int32_t>(id % n));
}

template <class R>
__global__ void segment_inner_kernel(const R resources, const std::int32_t* tours,
                                     const SegmentBatchArrays<R> a) {
    const std::uint64_t id = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t n = static_cast<std::uint64_t>(a.shape.n);
    if (id >= n * a.count) return;
    const auto tour = static_cast<std::uint32_t>(id / n);
    build_inner_row(resources, tours + static_cast<std::int64_t>(tour) * a.shape.n, a.of(tour),
                    static_cast<std::int32_t>(id % n));
}

/// Parts whose summaries a block of segment_runs_kernel stages in shared memory at a time.
inline constexpr std::int32_t kRunChunk = 32;
/// Threads of a block of segment_runs_kernel, and the rows of level 1 it folds (one per thread
/// of its first kRunRows): each thread writes a row of its own, so few rows per block keep the
/// scattered stores of one multiprocessor few; the others help staging the summaries.
inline constexpr unsigned kRunThreads = 32;
inline constexpr std::int32_t kRunRows = 8;

/// Level 1, as build_run_row: thread k < kRunRows of block (tour, g) folds row first = g *
/// kRunRows + k left to right. Every row folds the same part summaries, so the block stages
/// them in shared memory kRunChunk parts at a time (the chain of joins then waits on no global
/// load).
template <class R>
__global__ void __launch_bounds__(kRunThreads)
    segment_runs_kernel(const R resources, const SegmentBatchArrays<R> a, std::uint32_t groups) {
    using Segment = typename R::Segment;
    __shared__ Segment s_whole[kRunChunk];
    __shared__ double s_edge[kRunChunk];
    const std::uint32_t tour = blockIdx.x / groups;
    const std::uint32_t group = blockIdx.x - tour * groups;
    const SegmentArrays<R> arrays = a.of(tour);
    const HierarchyShape& h = a.shape;
    const auto row0 = static_cast<std::int32_t>(group) * kRunRows;
    const std::int32_t first = row0 + static_cast<std::int32_t>(threadIdx.x);
    const bool mine = static_cast<std::int32_t>(threadIdx.x) < kRunRows && first < h.parts;
    Segment* row = arrays.runs + static_cast<std::int64_t>(first) * h.parts;
    Segment s{};
    for (std::int32_t chunk = row0; chunk < h.parts; chunk += kRunChunk) {
        const std::int32_t size = h.parts - chunk < kRunChunk ? h.parts - chunk : kRunChunk;
        __syncthreads();
        for (auto k = static_cast<std::int32_t>(threadIdx.x); k < size;
             k += static_cast<std::int32_t>(blockDim.x)) {
            s_whole[k] = whole_part(arrays, chunk + k);
            s_edge[k] = arrays.edges[static_cast<std::int64_t>(chunk + k) * h.part];
        }
        __syncthreads();
        if (!mine || first >= chunk + size) continue;
        for (std::int32_t k = first > chunk ? first - chunk : 0; k < size; ++k) {
            const std::int32_t b = chunk + k;
            s = b == first ? s_whole[k] : resources.join(s, s_whole[k], s_edge[k]);
            row[b] = s;
        }
    }
}

template <class R>
__global__ void segment_views_kernel(const R resources, const SegmentBatchArrays<R> a) {
    const std::uint32_t tour = blockIdx.x * blockDim.x + threadIdx.x;
    if (tour >= a.count) return;
    const SegmentView<R> view = view_of(a.of(tour), resources);
    a.views[tour] = view;
    a.wholes[tour] = view.segment(0, a.shape.n - 1);
}

inline unsigned segment_blocks(std::uint64_t threads) {
    return static_cast<unsigned>((threads + kSegmentBuildThreads - 1) / kSegmentBuildThreads);
}

} // namespace detail

/// Builds the hierarchies of the `a.count` tours at `tours` (device, tour-major, a.shape.n
/// positions each) into `a`, with the views and whole-tour summaries. `resources` and
/// `distance` read device memory. Asynchronous on `stream`; returns the launch status.
template <class R, class Distance>
cudaError_t build_segment_hierarchies(const R& resources, const std::int32_t* tours,
                                      const Distance& distance, const SegmentBatchArrays<R>& a,
                                      cudaStream_t stream) {
    if (a.count == 0 || a.shape.n == 0) return cudaSuccess;
    const std::uint64_t positions = static_cast<std::uint64_t>(a.shape.n) * a.count;
    const unsigned threads = detail::kSegmentBuildThreads;
    detail::segment_edges_kernel<Distance, R>
        <<<detail::segment_blocks(positions), threads, 0, stream>>>(tours, distance, a);
    const auto inner_blocks =
        static_cast<unsigned>((positions + detail::kRunThreads - 1) / detail::kRunThreads);
    detail::segment_inner_kernel<R>
        <<<inner_blocks, detail::kRunThreads, 0, stream>>>(resources, tours, a);
    const auto groups =
        static_cast<std::uint32_t>((a.shape.parts + detail::kRunRows - 1) / detail::kRunRows);
    detail::segment_runs_kernel<R>
        <<<groups * a.count, detail::kRunThreads, 0, stream>>>(resources, a, groups);
    detail::segment_views_kernel<R>
        <<<detail::segment_blocks(a.count), threads, 0, stream>>>(resources, a);
    return cudaGetLastError();
}

} // namespace locus::routing
