#pragma once
/// \file
/// The giant tours of a batch as the giant-tour moves read them (Schulz 2011, §4.3): a tour is
/// closed and linear — t[0] and t[L-1] are depot copies, and a move keeps both ends — with its
/// hierarchy of segment summaries (segment_table.hpp) over the composed resources R. A move's
/// delta is the change of the total length of the route set; a move whose result exceeds a
/// resource's limit, or uses more routes than the fleet allows, is not a move (invalid_delta).

#include <cstdint>

#include "locus/hd.hpp"
#include "locus/routing/segment_table.hpp"

namespace locus::routing {

/// Relative size below which a decrease of a real-valued objective is rounding, not improvement.
inline constexpr double kImprovementTolerance = 1e-12;

/// The share of the summed lengths a float bound subtracts to stay below the exact delta: a sum
/// of a few float terms errs by a few 2^-24 of the summed magnitudes; 2^-18 covers it 16-fold.
inline constexpr float kCoarseMargin = 1.0f / 262144.0f;

/// Distances of a routing instance: an n x n row-major matrix (host or device pointer).
struct DistanceMatrix {
    const double* d = nullptr;
    std::int32_t n = 0;
    LOCUS_HD_INLINE double operator()(std::int32_t u, std::int32_t v) const {
        return d[static_cast<std::int64_t>(u) * n + v];
    }
};

/// The tours of a batch as the giant-tour evaluators read them (host or device pointers), with
/// the segment hierarchies of the composed resources R.
template <class R> struct GiantTours {
    const SegmentView<R>* segments = nullptr; ///< per tour: its hierarchy
    const std::int32_t* tours = nullptr;      ///< batch x length node ids
    const double* objectives = nullptr;       ///< per tour: total length (from its summary)
    const std::int32_t* routes = nullptr;     ///< per tour: non-empty routes
    std::int32_t length = 0;                  ///< L, positions of every tour
    DistanceMatrix distance;
    std::int32_t vehicles = 0; ///< fleet size (0: unlimited)
    /// Optional: batch x L x L distances between tour positions (entry (i, j) = d(t[i], t[j])),
    /// so that a row's lookups along a column sweep are contiguous; null: the node matrix. The
    /// values are the same either way.
    const double* by_position = nullptr;
    /// Optional (3-opt): batch x L x L float distances by position; bound() then filters with
    /// a float sum less a margin that covers its rounding, so it stays a lower bound, and the
    /// exact double delta is computed only for the cells that pass.
    const float* coarse = nullptr;

    /// Candidate lists (the *_near evaluators): the `candidates` nearest customers of every
    /// node (nodes x candidates ids), and per tour the position of every node in it (batch x
    /// nodes; the depot's entry unused).
    const std::int32_t* neighbors = nullptr;
    std::int32_t candidates = 0;
    const std::int32_t* where = nullptr;
    std::int32_t nodes = 0;

    /// The float distances between positions of `solution` (null without coarse).
    LOCUS_HD_INLINE const float* coarse_positions(std::uint32_t solution) const {
        return coarse == nullptr ? nullptr
                                 : coarse + static_cast<std::int64_t>(solution) * length * length;
    }

    /// The distances between positions of `solution` (null without by_position).
    LOCUS_HD_INLINE const double* positions(std::uint32_t solution) const {
        return by_position == nullptr
                   ? nullptr
                   : by_position + static_cast<std::int64_t>(solution) * length * length;
    }
    /// d(tour[i], tour[j]) through `pos` (positions(solution)) or the node matrix.
    LOCUS_HD_INLINE double between(const double* pos, const std::int32_t* tour, std::int32_t i,
                                   std::int32_t j) const {
        return pos != nullptr ? pos[static_cast<std::int64_t>(i) * length + j]
                              : distance(tour[i], tour[j]);
    }

    LOCUS_HD_INLINE const std::int32_t* tour(std::uint32_t solution) const {
        return tours + static_cast<std::int64_t>(solution) * length;
    }

    /// Whether a move whose new tour has summary `after`, from a tour with `routes_before`
    /// routes, is a move: no resource's excess (R::feasible), and no more routes than
    /// max(vehicles, routes_before).
    LOCUS_HD_INLINE bool admissible(const typename R::Segment& after,
                                    std::int32_t routes_before) const {
        if (!R::feasible(after)) return false;
        return !(vehicles > 0 && after.routes > vehicles && after.routes > routes_before);
    }

    /// A length change `d` of a tour of length `objective` as a delta: changes within rounding
    /// of zero are 0.
    LOCUS_HD_INLINE static double clamp(double d, double objective) {
        // NOTE: the added and removed edges are summed in different orders, so a move to an
        // equally long tour may come out a few ulps below zero; such a move is not improving
        // (otherwise a descent could cycle between equal tours).
        const double scale = objective > 1.0 ? objective : 1.0;
        return d > -kImprovementTolerance * scale ? (d > 0.0 ? d : 0.0) : d;
    }
};

/// Whether `node`'s candidate list (GiantTours::neighbors) holds `other`.
template <class R>
LOCUS_HD_INLINE bool is_candidate(const GiantTours<R>& t, std::int32_t node, std::int32_t other) {
    const std::int32_t* list = t.neighbors + static_cast<std::int64_t>(node) * t.candidates;
    for (std::int32_t k = 0; k < t.candidates; ++k)
        if (list[k] == other) return true;
    return false;
}

} // namespace locus::routing
