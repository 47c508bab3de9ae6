#pragma once
// Per-chain arrays of the resident ILS, shared by the CPU runner (std::vector) and the CUDA
// runner (gpu::DeviceBuffer): one list of arrays, their sizes and what ChainArrays points at.

#include <cstddef>
#include <cstdint>

#include "locus/tsp/resident_ils.hpp"

namespace locus::tsp::detail {

template <template <class> class Buffer, class Metric> struct ChainStorage {
    using Point = typename Metric::point_type;

    Buffer<std::int32_t> current, trial, best, pos, D, focus_list, scratch, focus_count;
    Buffer<std::int32_t> active_list, active_count;
    Buffer<std::uint8_t> focus_bits, active_bits, improving;
    Buffer<Point> P;
    Buffer<std::int64_t> current_objective, trial_objective, best_objective;
    Buffer<unsigned long long> evaluations;

    /// Sizes every array for `chains` chains of n cities: alloc(buffer, count, what) allocates
    /// `count` zeroed elements.
    template <class Alloc> void allocate(std::size_t n, std::size_t chains, Alloc&& alloc) {
        const std::size_t total = n * chains;
        alloc(current, total, "resident ILS current tours");
        alloc(trial, total, "resident ILS trial tours");
        alloc(best, total, "resident ILS best tours");
        alloc(pos, total, "resident ILS positions");
        alloc(D, total, "resident ILS edge lengths");
        alloc(focus_list, total, "resident ILS focus lists");
        alloc(scratch, total, "resident ILS scratch");
        alloc(focus_bits, total, "resident ILS focus");
        alloc(active_list, total, "resident ILS active lists");
        alloc(active_bits, total, "resident ILS active flags");
        alloc(improving, total, "resident ILS improvement flags");
        alloc(active_count, chains, "resident ILS active counts");
        alloc(P, (n + 1) * chains, "resident ILS points");
        alloc(focus_count, chains, "resident ILS focus counts");
        alloc(current_objective, chains, "resident ILS objectives");
        alloc(trial_objective, chains, "resident ILS objectives");
        alloc(best_objective, chains, "resident ILS objectives");
        alloc(evaluations, chains, "resident ILS counters");
    }

    /// Points the chain arguments at these arrays.
    void bind(ChainArrays<Metric>& a) {
        a.current = current.data();
        a.trial = trial.data();
        a.best = best.data();
        a.pos = pos.data();
        a.P = P.data();
        a.D = D.data();
        a.focus_bits = focus_bits.data();
        a.focus_list = focus_list.data();
        a.focus_count = focus_count.data();
        a.scratch = scratch.data();
        a.active_list = active_list.data();
        a.active_count = active_count.data();
        a.active_bits = active_bits.data();
        a.improving = improving.data();
        a.current_objective = current_objective.data();
        a.trial_objective = trial_objective.data();
        a.best_objective = best_objective.data();
        a.evaluations = evaluations.data();
    }
};

} // namespace locus::tsp::detail
