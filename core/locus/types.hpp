#pragma once
/// \file
/// Plain data shared by every layer: objectives, backends, solution batches and move choices.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace locus {

/// Objective value (always minimised). Integer objectives (TSP, QAP) are exact: every integer
/// up to 2^53 is representable.
using Objective = double;

/// How users read a problem's objective. Engines always minimise: a maximisation problem's
/// evaluate() and verify() return the negated value, and the launcher shows users the value
/// itself (results, traces, messages) and negates best-known values and objective targets.
enum class ObjectiveSense { minimize, maximize };

/// The value users read for internal objective `value` (and, the negation being its own
/// inverse, the internal objective of a value users give).
inline Objective user_objective(ObjectiveSense sense, Objective value) {
    return sense == ObjectiveSense::maximize ? -value : value;
}
/// "minimize" / "maximize".
inline std::string_view to_string(ObjectiveSense sense) {
    return sense == ObjectiveSense::maximize ? "maximize" : "minimize";
}

/// Whether an objective tracked by deltas agrees with a full re-evaluation: exactly for integral
/// objectives; up to a relative 1e-9 for real-valued ones (DCVRP with exact Euclidean
/// distances), whose deltas are summed in another order than the full evaluation.
inline bool objectives_agree(Objective tracked, Objective full) {
    if (tracked == full) return true;
    const double scale = std::max({1.0, tracked < 0 ? -tracked : tracked, full < 0 ? -full : full});
    const double difference = tracked > full ? tracked - full : full - tracked;
    return difference <= 1e-9 * scale;
}

/// Where the engines of a component run.
enum class Backend { cpu, cuda };

/// "cpu" / "cuda".
std::string_view to_string(Backend backend);

/// A batch of `count()` solutions of equal width, each an encoding of `width` 32-bit integers
/// (a tour, a permutation, ...), with the objective of each. Plain, copyable, core-owned data:
/// it crosses plugin boundaries by reference.
class SolutionBatch {
public:
    SolutionBatch() = default;
    SolutionBatch(std::size_t count, std::size_t width)
        : width_(width), data_(count * width), objective_(count, 0.0) {}

    std::size_t count() const { return objective_.size(); }
    std::size_t width() const { return width_; }

    std::span<std::int32_t> operator[](std::size_t i) {
        return {data_.data() + i * width_, width_};
    }
    std::span<const std::int32_t> operator[](std::size_t i) const {
        return {data_.data() + i * width_, width_};
    }

    Objective& objective(std::size_t i) { return objective_[i]; }
    Objective objective(std::size_t i) const { return objective_[i]; }

    /// All encodings, solution-major (solution i occupies [i*width, (i+1)*width)).
    std::span<std::int32_t> data() { return data_; }
    std::span<const std::int32_t> data() const { return data_; }

    /// Copies solution `from` of `other` into slot `to` (objective and focus included).
    void copy_from(std::size_t to, const SolutionBatch& other, std::size_t from) {
        const auto src = other[from];
        std::copy(src.begin(), src.end(), (*this)[to].begin());
        objective_[to] = other.objective_[from];
        if (has_focus() && other.has_focus()) {
            const auto f = other.focus(from);
            std::copy(f.begin(), f.end(), focus(to).begin());
        }
    }

    /// Focus: optionally, one byte per element (city, item, ...) of each solution marking where
    /// the solution changed since it was last locally optimal. Perturbations that know what they
    /// changed set it; neighborhoods that support it evaluate only moves anchored at focused
    /// elements and add the elements touched by each move they apply (don't-look bits in a
    /// form that is deterministic on every backend). Without focus, neighborhoods are complete.
    bool has_focus() const { return !focus_.empty(); }
    /// Enables focus with every element unfocused, or disables it.
    void set_focus_enabled(bool enabled) {
        focus_.assign(enabled ? data_.size() : 0, std::uint8_t{0});
    }
    std::span<std::uint8_t> focus(std::size_t i) { return {focus_.data() + i * width_, width_}; }
    std::span<const std::uint8_t> focus(std::size_t i) const {
        return {focus_.data() + i * width_, width_};
    }
    std::span<std::uint8_t> focus_data() { return focus_; }
    std::span<const std::uint8_t> focus_data() const { return focus_; }

private:
    std::size_t width_ = 0;
    std::vector<std::int32_t> data_;
    std::vector<Objective> objective_;
    std::vector<std::uint8_t> focus_;
};

/// Index meaning "no move selected".
inline constexpr std::uint64_t kNoMove = std::numeric_limits<std::uint64_t>::max();

/// The move a neighborhood exploration selected for one solution.
struct MoveChoice {
    std::uint64_t index = kNoMove; ///< move index in the neighborhood's index space
    Objective delta = 0.0;         ///< objective change if applied (< 0 improves)
    bool found() const { return index != kNoMove; }
};

/// Pivoting rule of a neighborhood exploration.
enum class Pivot {
    best, ///< minimal delta over all moves, ties broken by lowest index
    first ///< lowest-index improving move (delta < 0)
};

std::string_view to_string(Pivot pivot);

} // namespace locus
