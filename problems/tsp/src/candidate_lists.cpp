#include "locus/tsp/candidate_lists.hpp"

#include "kd_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <atomic>
#include <utility>

#include "locus/search_context.hpp"

namespace locus::tsp {

namespace {
using detail::KdTree;
using detail::planar;
using detail::quadrant_of;

using Entry = std::pair<std::int32_t, std::int32_t>; // (distance, city): the list order

/// One city's list from its k nearest others (`nearest`, sorted) and, for quadrant lists, the
/// k/4 nearest of each quadrant (`quadrants`, each sorted): the quadrant picks, filled up to k
/// with the nearest not picked, in (distance, index) order.
void assemble(const std::vector<Entry>& nearest, std::vector<Entry> (&quadrants)[4],
              bool geometric, std::int32_t k, std::int32_t* row) {
    std::vector<Entry> chosen;
    if (geometric) {
        const std::size_t per = static_cast<std::size_t>(k) / 4;
        for (auto& q : quadrants)
            chosen.insert(chosen.end(), q.begin(),
                          q.begin() + static_cast<std::ptrdiff_t>(std::min(per, q.size())));
    }
    const std::size_t picked = chosen.size();
    for (std::size_t r = 0; r < nearest.size() && chosen.size() < static_cast<std::size_t>(k);
         ++r) {
        bool taken = false;
        for (std::size_t c = 0; c < picked && !taken; ++c)
            taken = chosen[c].second == nearest[r].second;
        if (!taken) chosen.push_back(nearest[r]);
    }
    std::sort(chosen.begin(), chosen.end());
    for (std::int32_t c = 0; c < k; ++c) row[c] = chosen[static_cast<std::size_t>(c)].second;
}

/// The m cities other than a (in quadrant q; -1: any) that come first in (distance, index)
/// order, sorted. The tree gives the m Euclidean-nearest; every city whose distance does not
/// exceed the largest of theirs lies within s (D + 1) of a, and that disk is searched again
/// and ranked exactly, so ties of the rounded distances are broken by index as everywhere.
void first_by_distance(const Instance& instance, const KdTree& tree, double scale, std::int32_t a,
                       int q, std::size_t m, std::vector<std::pair<double, std::int32_t>>& heap,
                       std::vector<std::int32_t>& disk, std::vector<Entry>& out) {
    out.clear();
    tree.nearest(a, q, m, heap);
    if (heap.size() < m) {
        for (const auto& [d2, b] : heap) out.emplace_back(instance.distance(a, b), b);
        std::sort(out.begin(), out.end());
        return;
    }
    std::int32_t largest = 0;
    for (const auto& [d2, b] : heap) largest = std::max(largest, instance.distance(a, b));
    const double radius = scale * (static_cast<double>(largest) + 1.0) * (1.0 + 1e-12);
    tree.within(a, q, radius, disk);
    for (const std::int32_t b : disk) out.emplace_back(instance.distance(a, b), b);
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(m), out.end());
    out.resize(m);
}

} // namespace

/// Rows built even after a stop: instances this small take milliseconds, so a run stopped
/// while loading still gets its lists and its first solution.
constexpr std::int32_t kUnchecked = 4096;

std::vector<std::int32_t> candidate_lists_all_pairs(const Instance& instance, std::int32_t k,
                                                    bool quadrant) {
    const auto n = static_cast<std::int32_t>(instance.n);
    std::vector<std::int32_t> lists(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    const bool geometric = quadrant && !instance.x.empty();
    // Rows are skipped once the stop flag is raised (a run's limit or a signal), and the lists
    // then throw Stopped instead of returning.
    std::atomic<bool> skipped{false};
#pragma omp parallel
    {
        std::vector<Entry> row;
        std::vector<Entry> quadrants[4];
        row.reserve(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 64)
        for (std::int32_t a = 0; a < n; ++a) {
            if (a >= kUnchecked && stop_requested()) {
                skipped.store(true, std::memory_order_relaxed);
                continue;
            }
            row.clear();
            for (auto& q : quadrants) q.clear();
            for (std::int32_t b = 0; b < n; ++b) {
                if (b == a) continue;
                const Entry e{instance.distance(a, b), b};
                row.push_back(e);
                if (geometric) {
                    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
                    quadrants[quadrant_of(instance.x[ub] - instance.x[ua],
                                          instance.y[ub] - instance.y[ua])]
                        .push_back(e);
                }
            }
            std::partial_sort(row.begin(), row.begin() + k, row.end());
            row.resize(static_cast<std::size_t>(k));
            if (geometric)
                for (auto& q : quadrants) {
                    const std::size_t take = std::min(static_cast<std::size_t>(k) / 4, q.size());
                    std::partial_sort(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(take),
                                      q.end());
                    q.resize(take);
                }
            assemble(row, quadrants, geometric,  k,
                     lists.data() + static_cast<std::size_t>(a) * static_cast<std::size_t>(k));
        }
    }
    if (skipped.load()) throw Stopped();
    return lists;
}

std::vector<std::int32_t> candidate_lists(const Instance& instance, std::int32_t k,
                                          bool quadrant) {
    double scale = 1.0;
    if (!planar(instance, scale)) return candidate_lists_all_pairs(instance, k, quadrant);
    const auto n = static_cast<std::int32_t>(instance.n);
    std::vector<std::int32_t> lists(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    const KdTree tree(instance.x, instance.y);
    const auto per = static_cast<std::size_t>(k) / 4;
    const bool geometric = quadrant && per > 0;
    std::atomic<bool> skipped{false}; // as in candidate_lists_all_pairs
#pragma omp parallel
    {
        std::vector<std::pair<double, std::int32_t>> heap;
        std::vector<std::int32_t> disk;
        std::vector<Entry> nearest;
        std::vector<Entry> quadrants[4];
#pragma omp for schedule(dynamic, 256)
        for (std::int32_t a = 0; a < n; ++a) {
            if (a >= kUnchecked && stop_requested()) {
                skipped.store(true, std::memory_order_relaxed);
                continue;
            }
            first_by_distance(instance, tree, scale, a, -1, static_cast<std::size_t>(k), heap,
                              disk, nearest);
            if (geometric)
                for (int q = 0; q < 4; ++q)
                    first_by_distance(instance, tree, scale, a, q, per, heap, disk,
                                      quadrants[q]);
            assemble(nearest, quadrants, geometric, k,
                     lists.data() + static_cast<std::size_t>(a) * static_cast<std::size_t>(k));
        }
    }
    if (skipped.load()) throw Stopped();
    return lists;
}

} // namespace locus::tsp
