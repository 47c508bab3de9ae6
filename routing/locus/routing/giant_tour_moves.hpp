#pragma once
/// \file
/// The giant-tour moves (giant_two_opt.hpp, giant_three_opt.hpp) and what their users pick
/// them by: the candidate filter of a whole-grid evaluator (NearFilterOf) and an evaluator over
/// given tours (with_tours).

#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/hd.hpp"
#include "locus/routing/giant_three_opt.hpp"
#include "locus/routing/giant_tours.hpp"
#include "locus/routing/giant_two_opt.hpp"

namespace locus::routing {

/// The candidate filter of a whole-grid giant-tour evaluator (KeepEveryCell for the others).
template <class E> struct NearFilterOf { using type = gpu::KeepEveryCell; };
template <class R> struct NearFilterOf<GiantTwoOpt<R>> { using type = GiantTwoOptNearFilter<R>; };
template <class R> struct NearFilterOf<GiantThreeOpt<R>> {
    using type = GiantThreeOptNearFilter<R>;
};

/// An evaluator of type E over the tours `t` (the wrapped evaluator's, for GiantThreeOptNear).
template <class E, class R> LOCUS_HD_INLINE E with_tours(const GiantTours<R>& t) {
    E eval;
    if constexpr (requires { eval.base.tours; })
        eval.base.tours = t;
    else
        eval.tours = t;
    return eval;
}

} // namespace locus::routing
