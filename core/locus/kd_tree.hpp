#pragma once
/// \file
/// A static 2-d tree over planar points (cities, customers): m-nearest and fixed-radius
/// searches, optionally restricted to a quadrant, and nearest-left searches over points being
/// removed. Used for the candidate lists and the constructions of large planar instances
/// (TSP, DCVRP); O(n log n) to build, about O(log n + m) per query.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "locus/search_context.hpp"

namespace locus {

/// Quadrant of b around a: 0 (dx >= 0, dy > 0), 1 (dx >= 0, dy <= 0), 2 (dx < 0, dy < 0),
/// 3 (dx < 0, dy >= 0).
inline int quadrant_of(double dx, double dy) { return dx >= 0 ? (dy > 0 ? 0 : 1) : (dy < 0 ? 2 : 3); }

/// A static 2-d tree over the cities' coordinates: m-nearest and fixed-radius searches
/// restricted to a quadrant (or not), pruning boxes by distance and by quadrant. Building it
/// over 2^16 or more cities throws Stopped once the stop flag is raised.
class KdTree {
public:
    KdTree(const std::vector<double>& x, const std::vector<double>& y) : x_(x), y_(y) {
        order_.resize(x.size());
        for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::int32_t>(i);
        nodes_.reserve(2 * x.size() / kLeaf + 2);
        leaf_of_.assign(x.size(), -1);
        build(0, static_cast<std::int32_t>(order_.size()));
        parent_.assign(nodes_.size(), -1);
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (nodes_[i].left >= 0) {
                parent_[static_cast<std::size_t>(nodes_[i].left)] = static_cast<std::int32_t>(i);
                parent_[static_cast<std::size_t>(nodes_[i].right)] = static_cast<std::int32_t>(i);
            }
    }

    /// Cities left per node, all of them: the state of a search that removes cities (remove)
    /// and asks for the nearest one left (nearest_left).
    std::vector<std::int32_t> counts() const {
        std::vector<std::int32_t> left(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i) left[i] = nodes_[i].end - nodes_[i].begin;
        return left;
    }

    /// Removes `city` from the counts.
    void remove(std::int32_t city, std::vector<std::int32_t>& left) const {
        for (std::int32_t node = leaf_of_[static_cast<std::size_t>(city)]; node >= 0;
             node = parent_[static_cast<std::size_t>(node)])
            --left[static_cast<std::size_t>(node)];
    }

    /// The city left (`gone[c] == 0`) nearest to a in Euclidean distance (ties: any), or -1.
    std::int32_t nearest_left(std::int32_t a, const std::vector<std::int32_t>& left,
                              const std::uint8_t* gone) const {
        std::int32_t best = -1;
        double best_d2 = 0.0;
        nearest_left(0, a, left, gone, best, best_d2);
        return best;
    }

    /// Every city left within `radius` of a.
    void within_left(std::int32_t a, double radius, const std::vector<std::int32_t>& left,
                     const std::uint8_t* gone, std::vector<std::int32_t>& out) const {
        out.clear();
        within_left(0, a, radius * radius, left, gone, out);
    }

    /// The Euclidean-nearest `m` cities other than `a` in quadrant `q` around a (q = -1: any),
    /// as (squared distance, city), unordered; fewer when fewer exist.
    void nearest(std::int32_t a, int q, std::size_t m,
                 std::vector<std::pair<double, std::int32_t>>& heap) const {
        heap.clear();
        nearest(0, a, q, m, heap);
    }

    /// Every city other than `a` in quadrant `q` (-1: any) within `radius` of a.
    void within(std::int32_t a, int q, double radius, std::vector<std::int32_t>& out) const {
        out.clear();
        within(0, a, q, radius * radius, out);
    }

private:
    static constexpr std::int32_t kLeaf = 8;

    struct Node {
        double xmin, xmax, ymin, ymax;
        std::int32_t begin, end;  ///< range of order_
        std::int32_t left = -1;   ///< children (-1: leaf)
        std::int32_t right = -1;
    };

    std::int32_t build(std::int32_t begin, std::int32_t end) {
        // A tree of millions of cities takes a second: subtrees of 2^16+ cities read the stop
        // flag (a run's limit or a signal) and end the build with Stopped.
        if (end - begin >= (1 << 16)) throw_if_stopped();
        Node node{x_[order_[begin]], x_[order_[begin]], y_[order_[begin]], y_[order_[begin]],
                  begin, end};
        for (std::int32_t i = begin; i < end; ++i) {
            const auto c = static_cast<std::size_t>(order_[i]);
            node.xmin = std::min(node.xmin, x_[c]);
            node.xmax = std::max(node.xmax, x_[c]);
            node.ymin = std::min(node.ymin, y_[c]);
            node.ymax = std::max(node.ymax, y_[c]);
        }
        const auto index = static_cast<std::int32_t>(nodes_.size());
        nodes_.push_back(node);
        if (end - begin <= kLeaf) {
            for (std::int32_t i = begin; i < end; ++i)
                leaf_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(i)])] = index;
            return index;
        }
        const bool by_x = node.xmax - node.xmin >= node.ymax - node.ymin;
        const std::int32_t mid = begin + (end - begin) / 2;
        const auto& axis = by_x ? x_ : y_;
        std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                         [&](std::int32_t u, std::int32_t v) {
                             return axis[static_cast<std::size_t>(u)] <
                                    axis[static_cast<std::size_t>(v)];
                         });
        const std::int32_t left = build(begin, mid);
        const std::int32_t right = build(mid, end);
        nodes_[static_cast<std::size_t>(index)].left = left;
        nodes_[static_cast<std::size_t>(index)].right = right;
        return index;
    }

    /// Squared distance from (ax, ay) to the node's box.
    static double box_distance2(const Node& n, double ax, double ay) {
        const double dx = ax < n.xmin ? n.xmin - ax : (ax > n.xmax ? ax - n.xmax : 0.0);
        const double dy = ay < n.ymin ? n.ymin - ay : (ay > n.ymax ? ay - n.ymax : 0.0);
        return dx * dx + dy * dy;
    }

    /// Whether the box may hold a point of quadrant q around (ax, ay) (see quadrant_of).
    static bool box_in_quadrant(const Node& n, int q, double ax, double ay) {
        switch (q) {
        case 0: return n.xmax >= ax && n.ymax > ay;
        case 1: return n.xmax >= ax && n.ymin <= ay;
        case 2: return n.xmin < ax && n.ymin < ay;
        case 3: return n.xmin < ax && n.ymax >= ay;
        default: return true;
        }
    }

    bool accepts(std::int32_t a, std::int32_t b, int q) const {
        if (b == a) return false;
        if (q < 0) return true;
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        return quadrant_of(x_[ub] - x_[ua], y_[ub] - y_[ua]) == q;
    }

    /// Depth-first over the subtree of `index`: a node is skipped when skip(index, node)
    /// holds (tested on entry, so a skip test that reads the search state sees it as of then);
    /// leaves show their cities to visit(city, squared distance to a). With `nearest_first`
    /// the child whose box is nearer to a goes first, else the left one.
    template <class Skip, class Visit>
    void traverse(std::int32_t index, std::int32_t a, bool nearest_first, const Skip& skip,
                  const Visit& visit) const {
        const Node& node = nodes_[static_cast<std::size_t>(index)];
        if (skip(index, node)) return;
        const auto ua = static_cast<std::size_t>(a);
        const double ax = x_[ua], ay = y_[ua];
        if (node.left < 0) {
            for (std::int32_t i = node.begin; i < node.end; ++i) {
                const std::int32_t b = order_[static_cast<std::size_t>(i)];
                const auto ub = static_cast<std::size_t>(b);
                const double dx = x_[ub] - ax, dy = y_[ub] - ay;
                visit(b, dx * dx + dy * dy);
            }
            return;
        }
        bool left_first = true;
        if (nearest_first)
            left_first = box_distance2(nodes_[static_cast<std::size_t>(node.left)], ax, ay) <=
                         box_distance2(nodes_[static_cast<std::size_t>(node.right)], ax, ay);
        traverse(left_first ? node.left : node.right, a, nearest_first, skip, visit);
        traverse(left_first ? node.right : node.left, a, nearest_first, skip, visit);
    }

    void nearest(std::int32_t index, std::int32_t a, int q, std::size_t m,
                 std::vector<std::pair<double, std::int32_t>>& heap) const {
        const auto ua = static_cast<std::size_t>(a);
        const double ax = x_[ua], ay = y_[ua];
        const auto skip = [&](std::int32_t, const Node& node) {
            return !box_in_quadrant(node, q, ax, ay) ||
                   (heap.size() == m && box_distance2(node, ax, ay) > heap.front().first);
        };
        const auto visit = [&](std::int32_t b, double d2) {
            if (!accepts(a, b, q)) return;
            if (heap.size() < m) {
                heap.emplace_back(d2, b);
                std::push_heap(heap.begin(), heap.end());
            } else if (d2 < heap.front().first) {
                std::pop_heap(heap.begin(), heap.end());
                heap.back() = {d2, b};
                std::push_heap(heap.begin(), heap.end());
            }
        };
        traverse(index, a, true, skip, visit);
    }

    void within(std::int32_t index, std::int32_t a, int q, double radius2,
                std::vector<std::int32_t>& out) const {
        const auto ua = static_cast<std::size_t>(a);
        const double ax = x_[ua], ay = y_[ua];
        const auto skip = [&](std::int32_t, const Node& node) {
            return !box_in_quadrant(node, q, ax, ay) || box_distance2(node, ax, ay) > radius2;
        };
        const auto visit = [&](std::int32_t b, double d2) {
            if (accepts(a, b, q) && d2 <= radius2) out.push_back(b);
        };
        traverse(index, a, false, skip, visit);
    }

    void nearest_left(std::int32_t index, std::int32_t a, const std::vector<std::int32_t>& left,
                      const std::uint8_t* gone, std::int32_t& best, double& best_d2) const {
        const auto ua = static_cast<std::size_t>(a);
        const double ax = x_[ua], ay = y_[ua];
        const auto skip = [&](std::int32_t i, const Node& node) {
            return left[static_cast<std::size_t>(i)] == 0 ||
                   (best >= 0 && box_distance2(node, ax, ay) > best_d2);
        };
        const auto visit = [&](std::int32_t b, double d2) {
            if (gone[static_cast<std::size_t>(b)] != 0) return;
            if (best < 0 || d2 < best_d2) {
                best = b;
                best_d2 = d2;
            }
        };
        traverse(index, a, true, skip, visit);
    }

    void within_left(std::int32_t index, std::int32_t a, double radius2,
                     const std::vector<std::int32_t>& left, const std::uint8_t* gone,
                     std::vector<std::int32_t>& out) const {
        const auto ua = static_cast<std::size_t>(a);
        const double ax = x_[ua], ay = y_[ua];
        const auto skip = [&](std::int32_t i, const Node& node) {
            return left[static_cast<std::size_t>(i)] == 0 || box_distance2(node, ax, ay) > radius2;
        };
        const auto visit = [&](std::int32_t b, double d2) {
            if (gone[static_cast<std::size_t>(b)] == 0 && d2 <= radius2) out.push_back(b);
        };
        traverse(index, a, false, skip, visit);
    }

    const std::vector<double>& x_;
    const std::vector<double>& y_;
    std::vector<std::int32_t> order_;
    std::vector<Node> nodes_;
    std::vector<std::int32_t> leaf_of_; ///< city -> its leaf
    std::vector<std::int32_t> parent_;  ///< node -> parent (-1: the root)
};

} // namespace locus
