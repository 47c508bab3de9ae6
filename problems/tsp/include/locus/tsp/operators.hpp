#pragma once
/// \file
/// The TSP operators, one file each under operators/, and what the engines and the
/// registration ask of them. An operator is a struct of static members:
///   kind                       its MoveKind tag (the TourMove::kind of its moves)
///   name, description          the registered neighborhood's name and schema text
///   plan(m, n)                 the reversals applying move m (ReversingOperator), or
///   apply(tour, n, m)          applying it sequentially (e.g. Swap, which is no reversal)
///   touched(m, tour, n, out)   the cities at the ends of the edges m removes (at most
///                              kMaxTouchedCities; read before the move)
///   conflicts(a, b, n),        optional (IndependentOperator): the dependency rule of the
///   apply_independent(t, ms)   parallel descent, and applying independent moves together
///   declare(schema)            adds its parameters to the registered schema
///   configure(spec, p, build)  optional: reads them into the NeighborhoodSpec
///   visit_space<M, D>(spec, f) calls f(SpaceTag<Evaluator>{}) for the index space of spec
///   sample_unit                optional: what one sample is (sampled operators' labels)
/// Evaluators name their operator as `operator_type`, so that the engines apply, mark and
/// describe a move through its type; only the chain policy (whose engine applies moves of
/// several operators) and the functions below dispatch on the tag, through an OperatorList.

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>

#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/operators/or_opt.hpp"
#include "locus/tsp/operators/swap.hpp"
#include "locus/tsp/operators/three_opt.hpp"
#include "locus/tsp/operators/two_h_opt.hpp"
#include "locus/tsp/operators/two_opt.hpp"

namespace locus::tsp {

/// An operator whose moves are reversals (plan()).
template <class Op>
concept ReversingOperator = requires(const TourMove& m, std::int32_t n) {
    { Op::plan(m, n) } -> std::same_as<ReversalPlan>;
};

/// An operator with an independence rule for the parallel descent.
template <class Op>
concept IndependentOperator = requires(const TourMove& m, std::int32_t n,
                                       std::span<std::int32_t> tour,
                                       std::span<const TourMove> moves) {
    { Op::conflicts(m, m, n) } -> std::same_as<bool>;
    Op::apply_independent(tour, moves);
};

/// Applies a valid move of operator Op sequentially.
template <class Op, class T>
LOCUS_HD_INLINE void apply_operator_move(T* tour, std::int32_t n, const TourMove& m) {
    if constexpr (ReversingOperator<Op>)
        apply_plan(tour, n, Op::plan(m, n));
    else
        Op::apply(tour, n, m);
}

/// A list of operators, dispatching on a move's tag: each member calls the operator whose kind
/// is the move's (in list order).
template <class... Ops> struct OperatorList {
    static constexpr int size = sizeof...(Ops);
    /// The k-th operator.
    template <int k> using at = std::tuple_element_t<k, std::tuple<Ops...>>;

    /// Calls f(OperatorTag<Op>{}) for the operator of `kind`; false when none is listed.
    template <class F> static bool visit(MoveKind kind, F&& f) {
        return ((kind == Ops::kind && (f(OperatorTag<Ops>{}), true)) || ...);
    }
    /// The reversals of a valid move (every listed operator reverses).
    LOCUS_HD_INLINE static ReversalPlan plan(const TourMove& m, std::int32_t n) {
        ReversalPlan plan;
        (void)((m.kind == Ops::kind && (plan = Ops::plan(m, n), true)) || ...);
        return plan;
    }
    /// The cities at the ends of the edges a valid move removes.
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        int count = 0;
        (void)((m.kind == Ops::kind && (count = Ops::touched(m, tour, n, out), true)) || ...);
        return count;
    }
    /// Applies a valid move sequentially.
    template <class T>
    LOCUS_HD_INLINE static void apply(T* tour, std::int32_t n, const TourMove& m) {
        (void)((m.kind == Ops::kind && (apply_operator_move<Ops>(tour, n, m), true)) || ...);
    }
};

/// Every TSP operator: the registered neighborhoods, in registration order. Adding an operator
/// is its file, its MoveKind tag and an entry here.
using TourOperators = OperatorList<TwoOpt, OrOpt, ThreeOpt, Swap, TwoHOpt>;

/// Applies a valid move of any operator sequentially.
template <class T> LOCUS_HD_INLINE void apply_move(T* tour, std::int32_t n, const TourMove& m) {
    TourOperators::apply(tour, n, m);
}

/// The evaluator Eval over view `v` with the parameters of `spec`: Eval::from_spec where the
/// space takes parameters (sampled spaces), else Eval{v}.
template <class Eval, class View> Eval make_evaluator(const View& v, const NeighborhoodSpec& spec) {
    if constexpr (requires { Eval::from_spec(v, spec); })
        return Eval::from_spec(v, spec);
    else
        return Eval{v};
}

} // namespace locus::tsp
