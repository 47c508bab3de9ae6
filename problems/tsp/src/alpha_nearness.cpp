#include "locus/tsp/alpha_nearness.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/search_context.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/heuristics.hpp"
#include "kd_tree.hpp"

namespace locus::tsp {

namespace {

/// Largest n for which a disconnected sparse graph is completed with a spanning tree of the
/// complete graph (O(n^2) Prim).
constexpr std::size_t kMaxDenseRepair = 50000;

struct Dsu {
    std::vector<std::int32_t> parent;
    explicit Dsu(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    std::int32_t find(std::int32_t a) {
        while (parent[static_cast<std::size_t>(a)] != a) {
            auto& p = parent[static_cast<std::size_t>(a)];
            p = parent[static_cast<std::size_t>(p)];
            a = p;
        }
        return a;
    }
};

/// Minimum spanning tree of the complete graph under weights d(i, j) + pi_i + pi_j (Prim,
/// O(n^2)): parent of every city, -1 for city 0.
std::vector<std::int32_t> dense_tree(const Instance& instance, const std::vector<double>& pi,
                                     std::vector<double>& key) {
    const auto n = static_cast<std::int32_t>(instance.n);
    std::vector<std::int32_t> parent(instance.n, -1);
    std::vector<char> in(instance.n, 0);
    key.assign(instance.n, std::numeric_limits<double>::infinity());
    key[0] = 0.0;
    for (std::int32_t round = 0; round < n; ++round) {
        std::int32_t u = -1;
        for (std::int32_t v = 0; v < n; ++v)
            if (!in[static_cast<std::size_t>(v)] &&
                (u < 0 || key[static_cast<std::size_t>(v)] < key[static_cast<std::size_t>(u)]))
                u = v;
        in[static_cast<std::size_t>(u)] = 1;
        for (std::int32_t v = 0; v < n; ++v) {
            if (in[static_cast<std::size_t>(v)]) continue;
            const double w = instance.distance(u, v) + pi[static_cast<std::size_t>(u)] +
                             pi[static_cast<std::size_t>(v)];
            if (w < key[static_cast<std::size_t>(v)]) {
                key[static_cast<std::size_t>(v)] = w;
                parent[static_cast<std::size_t>(v)] = u;
            }
        }
    }
    return parent;
}

/// The symmetric sparse graph: every city's `pool` quadrant candidates, both ways.
void build_graph(const Instance& instance, std::int32_t pool, AlphaNearness& out) {
    const std::size_t n = instance.n;
    const auto lists = candidate_lists(instance, pool, true);
    std::vector<std::pair<std::int32_t, std::int32_t>> edges;
    edges.reserve(2 * lists.size());
    for (std::size_t a = 0; a < n; ++a)
        for (std::int32_t q = 0; q < pool; ++q) {
            const std::int32_t b = lists[a * static_cast<std::size_t>(pool) + static_cast<std::size_t>(q)];
            edges.emplace_back(static_cast<std::int32_t>(a), b);
            edges.emplace_back(b, static_cast<std::int32_t>(a));
        }
    // A disconnected graph (coincident cities, or nearest lists of a matrix instance inside
    // clusters) gets the edges of a spanning tree of the complete graph.
    Dsu dsu(n);
    std::size_t components = n;
    for (const auto& [a, b] : edges) {
        const auto ra = dsu.find(a), rb = dsu.find(b);
        if (ra != rb) {
            dsu.parent[static_cast<std::size_t>(ra)] = rb;
            --components;
        }
    }
    if (components > 1) {
        if (n > kMaxDenseRepair)
            throw InstanceError(fmt::format(
                "{}: alpha-nearness: the graph of each city's {} quadrant candidates falls into "
                "{} parts (coincident cities?); use quadrant candidate lists for {} cities",
                instance.name, pool, components, n));
        std::vector<double> key;
        const auto parent = dense_tree(instance, std::vector<double>(n, 0.0), key);
        for (std::size_t v = 1; v < n; ++v) {
            edges.emplace_back(static_cast<std::int32_t>(v), parent[v]);
            edges.emplace_back(parent[v], static_cast<std::int32_t>(v));
        }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    out.offsets.assign(n + 1, 0);
    out.adjacent.resize(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
        ++out.offsets[static_cast<std::size_t>(edges[e].first) + 1];
        out.adjacent[e] = edges[e].second;
    }
    for (std::size_t v = 0; v < n; ++v) out.offsets[v + 1] += out.offsets[v];
}

/// Minimum spanning tree of the sparse graph under weights d + pi_i + pi_j (Prim with a binary
/// heap, O(m log m)): parent of every city (-1 for city 0) and the weight of its tree edge.
class SparseTree {
    const Instance& instance_;
    const AlphaNearness& graph_;
    std::vector<char> in_;

public:
    SparseTree(const Instance& instance, const AlphaNearness& graph)
        : instance_(instance), graph_(graph), in_(instance.n), parent(instance.n),
          weight(instance.n) {}

    /// Returns the tree's weight.
    double build(const std::vector<double>& pi) {
        std::fill(in_.begin(), in_.end(), 0);
        std::fill(parent.begin(), parent.end(), -1);
        std::fill(weight.begin(), weight.end(), std::numeric_limits<double>::infinity());
        using Item = std::pair<double, std::int32_t>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
        weight[0] = 0.0;
        heap.emplace(0.0, 0);
        double total = 0.0;
        while (!heap.empty()) {
            const auto [w, u] = heap.top();
            heap.pop();
            const auto uu = static_cast<std::size_t>(u);
            if (in_[uu] || w > weight[uu]) continue;
            in_[uu] = 1;
            total += w;
            for (auto e = graph_.offsets[uu]; e < graph_.offsets[uu + 1]; ++e) {
                const std::int32_t v = graph_.adjacent[static_cast<std::size_t>(e)];
                const auto vv = static_cast<std::size_t>(v);
                if (in_[vv]) continue;
                const double wv = instance_.distance(u, v) + pi[uu] + pi[vv];
                if (wv < weight[vv]) {
                    weight[vv] = wv;
                    parent[vv] = u;
                    heap.emplace(wv, v);
                }
            }
        }
        return total;
    }

    std::vector<std::int32_t> parent;
    std::vector<double> weight;
};

/// The minimum 1-tree from the spanning tree: the tree plus, at the leaf whose second-lightest
/// edge is heaviest, that edge (Helsgaun's choice of the special node). Fills the degrees and
/// returns the 1-tree's weight.
double one_tree(const Instance& instance, const AlphaNearness& graph, SparseTree& tree,
                const std::vector<double>& pi, std::vector<std::int32_t>& degree) {
    const std::size_t n = instance.n;
    double total = tree.build(pi);
    std::fill(degree.begin(), degree.end(), 0);
    for (std::size_t v = 1; v < n; ++v) {
        ++degree[v];
        ++degree[static_cast<std::size_t>(tree.parent[v])];
    }
    std::int32_t special = -1, partner = -1;
    double extra = -std::numeric_limits<double>::infinity();
    for (std::size_t s = 0; s < n; ++s) {
        if (degree[s] != 1) continue;
        // The leaf's one tree edge joins it to its parent, or to its one child (city 0).
        std::int32_t joined = tree.parent[s];
        if (joined < 0)
            for (std::size_t v = 1; v < n && joined < 0; ++v)
                if (tree.parent[v] == static_cast<std::int32_t>(s)) joined = static_cast<std::int32_t>(v);
        double lightest = std::numeric_limits<double>::infinity();
        std::int32_t with = -1;
        for (auto e = graph.offsets[s]; e < graph.offsets[s + 1]; ++e) {
            const std::int32_t v = graph.adjacent[static_cast<std::size_t>(e)];
            if (v == joined) continue;
            const double w = instance.distance(static_cast<std::int32_t>(s), v) + pi[s] +
                             pi[static_cast<std::size_t>(v)];
            if (w < lightest) {
                lightest = w;
                with = v;
            }
        }
        if (with >= 0 && lightest > extra) {
            extra = lightest;
            special = static_cast<std::int32_t>(s);
            partner = with;
        }
    }
    if (special >= 0) {
        total += extra;
        ++degree[static_cast<std::size_t>(special)];
        ++degree[static_cast<std::size_t>(partner)];
    }
    return total;
}

/// Subgradient ascent on the 1-tree bound (Held & Karp, with the step of Held, Wolfe and
/// Crowder): pi += t (0.7 v + 0.3 v_previous), v = degree - 2, t = lambda (U - W) / |v|^2 with
/// U the length of a nearest-neighbor tour and W the current bound; lambda starts at 2 and
/// halves after 10 iterations without a better bound.
void ascend(const Instance& instance, const AlphaOptions& options, AlphaNearness& out) {
    const std::size_t n = instance.n;
    SparseTree tree(instance, out);
    std::vector<double> pi(n, 0.0);
    std::vector<std::int32_t> degree(n), last(n, 0);
    const auto bound_of = [&](double length) {
        return length - 2.0 * std::accumulate(pi.begin(), pi.end(), 0.0);
    };
    double length = one_tree(instance, out, tree, pi, degree);
    out.pi = pi;
    out.bound = bound_of(length);
    out.iterations = 0;
    const auto norm2 = [&] {
        double sum = 0.0;
        for (const std::int32_t d : degree) sum += static_cast<double>((d - 2) * (d - 2));
        return sum;
    };
    out.tour = norm2() == 0.0;
    if (out.tour || options.ascent <= 0) return;
    constexpr std::int32_t kList = 8;
    const std::int32_t k = std::min<std::int32_t>(kList, static_cast<std::int32_t>(n) - 1);
    const auto nearest = candidate_lists(instance, k, false);
    std::vector<std::int32_t> tour(n);
    nearest_neighbor_tour(instance, 0, tour, nearest.data(), k);
    const double upper = static_cast<double>(instance.tour_length(tour));
    double lambda = 2.0;
    std::int32_t stale = 0;
    for (std::size_t v = 0; v < n; ++v) last[v] = degree[v] - 2;
    double w = out.bound;
    while (out.iterations < options.ascent && lambda > 1e-6) {
        // An iteration is one 1-tree, O(n log n): read the stop flag where that is long.
        if (n > 4096) throw_if_stopped();
        const double step = lambda * std::max(upper - w, 0.0) / norm2();
        if (!(step > 0.0)) break;
        for (std::size_t v = 0; v < n; ++v) {
            const std::int32_t g = degree[v] - 2;
            pi[v] += step * (0.7 * g + 0.3 * last[v]);
            last[v] = g;
        }
        length = one_tree(instance, out, tree, pi, degree);
        ++out.iterations;
        w = bound_of(length);
        if (w > out.bound) {
            out.bound = w;
            out.pi = pi;
            stale = 0;
            if (norm2() == 0.0) {
                out.tour = true;
                return;
            }
        } else if (++stale >= 10) {
            lambda /= 2.0;
            stale = 0;
        }
    }
}

} // namespace

AlphaNearness alpha_nearness(const Instance& instance, const AlphaOptions& options) {
    const std::size_t n = instance.n;
    AlphaNearness out;
    const auto pool = static_cast<std::int32_t>(
        std::clamp<std::int64_t>(options.pool, 1, static_cast<std::int64_t>(n) - 1));
    build_graph(instance, pool, out);
    ascend(instance, options, out);
    // The tree of the best penalties; the heaviest tree edge between the ends of every graph
    // edge is the weight at which Kruskal's algorithm (tree edges, lightest first) first joins
    // them: components merge smaller list into larger, answering the edges they close.
    SparseTree tree(instance, out);
    tree.build(out.pi);
    std::vector<std::tuple<double, std::int32_t, std::int32_t>> joins;
    joins.reserve(n);
    for (std::size_t v = 1; v < n; ++v)
        joins.emplace_back(tree.weight[v], static_cast<std::int32_t>(v), tree.parent[v]);
    std::sort(joins.begin(), joins.end());
    const std::size_t m = out.adjacent.size();
    std::vector<double> beta(m, -1.0);
    std::vector<std::vector<std::int64_t>> pending(n); // entries (u, v) with u < v, per end
    for (std::size_t u = 0; u < n; ++u)
        for (auto e = out.offsets[u]; e < out.offsets[u + 1]; ++e) {
            const auto v = static_cast<std::size_t>(out.adjacent[static_cast<std::size_t>(e)]);
            if (u < v) {
                pending[u].push_back(e);
                pending[v].push_back(e);
            }
        }
    std::vector<std::int32_t> owner(m); // the smaller end of entry e
    for (std::size_t u = 0; u < n; ++u)
        for (auto e = out.offsets[u]; e < out.offsets[u + 1]; ++e)
            owner[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(u);
    Dsu dsu(n);
    for (const auto& [w, a, b] : joins) {
        std::int32_t ra = dsu.find(a), rb = dsu.find(b);
        if (pending[static_cast<std::size_t>(ra)].size() > pending[static_cast<std::size_t>(rb)].size())
            std::swap(ra, rb);
        auto& small = pending[static_cast<std::size_t>(ra)];
        auto& large = pending[static_cast<std::size_t>(rb)];
        for (const std::int64_t e : small) {
            const auto ee = static_cast<std::size_t>(e);
            if (beta[ee] >= 0.0) continue; // answered from its other end
            const std::int32_t u = owner[ee];
            const std::int32_t v = out.adjacent[ee];
            const std::int32_t other = dsu.find(u) == ra ? v : u;
            if (dsu.find(other) == rb) beta[ee] = w;
            else large.push_back(e);
        }
        small.clear();
        small.shrink_to_fit();
        dsu.parent[static_cast<std::size_t>(ra)] = rb;
    }
    out.alpha.assign(m, 0.0);
    for (std::size_t u = 0; u < n; ++u)
        for (auto e = out.offsets[u]; e < out.offsets[u + 1]; ++e) {
            const auto ee = static_cast<std::size_t>(e);
            const auto v = static_cast<std::size_t>(out.adjacent[ee]);
            if (u > v) continue;
            const double w = instance.distance(static_cast<std::int32_t>(u),
                                               static_cast<std::int32_t>(v)) +
                             out.pi[u] + out.pi[v];
            out.alpha[ee] = std::max(0.0, w - beta[ee]);
        }
    // The entry (v, u) of every (u, v): binary search in v's ascending row.
    for (std::size_t u = 0; u < n; ++u)
        for (auto e = out.offsets[u]; e < out.offsets[u + 1]; ++e) {
            const auto v = static_cast<std::size_t>(out.adjacent[static_cast<std::size_t>(e)]);
            if (u < v) continue;
            const auto first = out.adjacent.begin() + out.offsets[v];
            const auto last = out.adjacent.begin() + out.offsets[v + 1];
            const auto it = std::lower_bound(first, last, static_cast<std::int32_t>(u));
            out.alpha[static_cast<std::size_t>(e)] =
                out.alpha[static_cast<std::size_t>(it - out.adjacent.begin())];
        }
    return out;
}

std::vector<std::int32_t> alpha_candidate_lists(const Instance& instance, std::int32_t k,
                                                const AlphaOptions& options) {
    const std::size_t n = instance.n;
    AlphaOptions o = options;
    o.pool = std::max(o.pool, k);
    const AlphaNearness a = alpha_nearness(instance, o);
    std::vector<std::int32_t> lists(n * static_cast<std::size_t>(k));
    using Entry = std::tuple<double, std::int32_t, std::int32_t>; // (alpha, distance, city)
    std::vector<Entry> row;
    std::vector<Entry> quadrants[4];
    const bool geometric = options.quadrant && !instance.x.empty() && k >= 4;
    for (std::size_t u = 0; u < n; ++u) {
        row.clear();
        for (auto& q : quadrants) q.clear();
        for (auto e = a.offsets[u]; e < a.offsets[u + 1]; ++e) {
            const std::int32_t v = a.adjacent[static_cast<std::size_t>(e)];
            const Entry entry{a.alpha[static_cast<std::size_t>(e)],
                              instance.distance(static_cast<std::int32_t>(u), v), v};
            row.push_back(entry);
            if (geometric)
                quadrants[detail::quadrant_of(instance.x[static_cast<std::size_t>(v)] - instance.x[u],
                                              instance.y[static_cast<std::size_t>(v)] - instance.y[u])]
                    .push_back(entry);
        }
        // The graph holds every city's pool >= k quadrant candidates, so a row has k entries.
        std::vector<Entry> chosen;
        if (geometric)
            for (auto& q : quadrants) {
                const std::size_t take = std::min(static_cast<std::size_t>(k) / 4, q.size());
                std::partial_sort(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(take), q.end());
                chosen.insert(chosen.end(), q.begin(), q.begin() + static_cast<std::ptrdiff_t>(take));
            }
        std::sort(row.begin(), row.end());
        for (const Entry& e : row) {
            if (chosen.size() == static_cast<std::size_t>(k)) break;
            if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) chosen.push_back(e);
        }
        std::sort(chosen.begin(), chosen.end());
        for (std::int32_t q = 0; q < k; ++q)
            lists[u * static_cast<std::size_t>(k) + static_cast<std::size_t>(q)] =
                std::get<2>(chosen[static_cast<std::size_t>(q)]);
    }
    return lists;
}

std::vector<double> alpha_all_pairs(const Instance& instance, const std::vector<double>& pi) {
    const std::size_t n = instance.n;
    std::vector<double> key;
    const auto parent = dense_tree(instance, pi, key);
    std::vector<std::vector<std::pair<std::int32_t, double>>> children(n);
    for (std::size_t v = 1; v < n; ++v) {
        children[static_cast<std::size_t>(parent[v])].emplace_back(static_cast<std::int32_t>(v), key[v]);
        children[v].emplace_back(parent[v], key[v]);
    }
    std::vector<double> alpha(n * n, 0.0);
    std::vector<double> heaviest(n);
    std::vector<std::int32_t> stack;
    std::vector<char> seen(n);
    for (std::size_t s = 0; s < n; ++s) {
        // Heaviest tree edge from s to every city (a walk of the tree from s).
        std::fill(seen.begin(), seen.end(), 0);
        heaviest[s] = -std::numeric_limits<double>::infinity();
        seen[s] = 1;
        stack.assign(1, static_cast<std::int32_t>(s));
        while (!stack.empty()) {
            const auto u = static_cast<std::size_t>(stack.back());
            stack.pop_back();
            for (const auto& [v, w] : children[u]) {
                const auto vv = static_cast<std::size_t>(v);
                if (seen[vv]) continue;
                seen[vv] = 1;
                heaviest[vv] = std::max(heaviest[u], w);
                stack.push_back(v);
            }
        }
        for (std::size_t t = 0; t < n; ++t) {
            if (t == s) continue;
            const double w = instance.distance(static_cast<std::int32_t>(s),
                                               static_cast<std::int32_t>(t)) +
                             pi[s] + pi[t];
            alpha[s * n + t] = std::max(0.0, w - heaviest[t]);
        }
    }
    return alpha;
}

} // namespace locus::tsp
