// Max-Cut plugin: the problem, a random construction, random flips, the flip neighborhood on the
// CPU (the CUDA one is in maxcut_cuda.cu) and the registration.

#include "maxcut.hpp"

#include <fmt/format.h>

#include <fstream>

#include "locus/data_path.hpp"
#include "locus/generator_spec.hpp"
#include "locus/plugin.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"

namespace maxcut {
using namespace locus;
namespace {

struct Edge {
    std::int32_t u, v;
    std::int64_t w;
};

/// The adjacency lists (CSR) of `edges` (0-based ends).
Graph make_graph(std::string name, std::int32_t n, const std::vector<Edge>& edges) {
    Graph g{std::move(name), n, std::vector<std::int64_t>(n + 1, 0), {}, {}};
    for (const Edge& e : edges)
        ++g.offset[e.u + 1], ++g.offset[e.v + 1];
    for (std::int32_t v = 0; v < n; ++v)
        g.offset[v + 1] += g.offset[v];
    g.other.resize(2 * edges.size());
    g.weight.resize(2 * edges.size());
    std::vector<std::int64_t> next(g.offset.begin(), g.offset.end() - 1);
    for (const Edge& e : edges) {
        g.other[next[e.u]] = e.v, g.weight[next[e.u]++] = e.w;
        g.other[next[e.v]] = e.u, g.weight[next[e.v]++] = e.w;
    }
    return g;
}

/// "n m", then m lines "u v w" (1-based ends), as the G-set files.
Graph read_graph(const std::filesystem::path& path) {
    std::ifstream in(path);
    const auto fail = [&](const std::string& why) {
        return InstanceError(fmt::format("{}: {}", path.string(), why));
    };
    long long n = 0, m = 0, u = 0, v = 0, w = 0;
    if (!(in >> n >> m) || n < 2 || n > (1 << 24) || m < 0 || m > (1 << 28))
        throw fail("expected 'n m' with 2 <= n <= 2^24 and 0 <= m <= 2^28 first");
    std::vector<Edge> edges;
    for (long long k = 1; k <= m; ++k) {
        if (!(in >> u >> v >> w)) throw fail(fmt::format("edge {} of {}: expected 'u v w'", k, m));
        if (u < 1 || u > n || v < 1 || v > n || u == v || w < -(1 << 30) || w > (1 << 30))
            throw fail(fmt::format("edge {}: ends must differ in 1..{}, |w| <= 2^30", k, n));
        edges.push_back({std::int32_t(u - 1), std::int32_t(v - 1), w});
    }
    if (std::string extra; in >> extra) throw fail("unexpected '" + extra + "' after the edges");
    return make_graph(path.stem().string(), std::int32_t(n), edges);
}

/// n vertices, each joined to `degree` random others, weights 1.
Graph generate(const std::string& spec) {
    const GeneratorSpec parsed(spec, "random-maxcut", {{"n"}, {"degree"}, {"seed"}});
    const std::uint64_t n = parsed.integer("n").value_or(0);
    const std::uint64_t degree = parsed.integer("degree").value_or(3);
    if (n < 2 || n > (1u << 24)) throw parsed.error("n must be in 2..2^24");
    if (degree < 1 || degree >= n || degree > 64) throw parsed.error("degree: 1..min(n - 1, 64)");
    std::vector<Edge> edges;
    Rng rng(derive_key(parsed.integer("seed").value_or(1), 0x6d617863u), 0);
    for (std::uint32_t u = 0; u < n; ++u)
        for (std::uint64_t k = 0; k < degree; ++k)
            edges.push_back({std::int32_t(u), std::int32_t((u + 1 + rng.below(n - 1)) % n), 1});
    return make_graph(spec, std::int32_t(n), edges);
}

/// Draws every side (count = 0) or flips `count` random vertices of every solution; solution i
/// draws from derive_key(seed, i).
void draw(const MaxCutProblem& p, SolutionBatch& batch, std::uint64_t seed, std::uint32_t count) {
    for (std::size_t i = 0; i < batch.count(); ++i) {
        Rng rng(derive_key(seed, i), 0);
        for (auto& side : batch[i])
            side = count == 0 ? std::int32_t(rng.below(2)) : side;
        for (std::uint32_t k = 0; k < count; ++k)
            batch[i][rng.below(p.graph().n)] ^= 1;
        batch.objective(i) = p.evaluate(batch[i]);
    }
}
struct RandomSides final : Construction {
    explicit RandomSides(const MaxCutProblem& problem) : p(problem) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override { draw(p, batch, seed, 0); }
    const MaxCutProblem& p;
};
struct RandomFlips final : Perturbation {
    RandomFlips(const MaxCutProblem& problem, std::uint32_t n) : p(problem), count(n) {}
    void perturb(SolutionBatch& batch, std::uint64_t seed) override { draw(p, batch, seed, count); }
    const MaxCutProblem& p;
    std::uint32_t count;
};

const MaxCutProblem& maxcut_of(const BuildContext& build) {
    return problem_as<MaxCutProblem>(build, "maxcut", "this Max-Cut component");
}

} // namespace

std::unique_ptr<Neighborhood> make_cpu_flip(const MaxCutProblem& problem,
                                            const gpu::EngineSettings& settings) {
    using Adapter = gpu::CpuNeighborhoodAdapter<FlipPolicy>;
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>(
        "flip", Backend::cpu, problem.size(), FlipPolicy{&problem}, settings);
}

std::unique_ptr<MaxCutProblem> MaxCutProblem::load(const std::string& spec) {
    if (is_generator_spec(spec, "random-maxcut"))
        return std::make_unique<MaxCutProblem>(generate(spec));
    return std::make_unique<MaxCutProblem>(read_graph(resolve_data_file(spec, "graph file")));
}

Objective MaxCutProblem::evaluate(std::span<const std::int32_t> sides) const {
    std::int64_t twice = 0; // every edge is seen from both ends
    for (std::int32_t v = 0; v < graph_.n; ++v)
        for (std::int64_t e = graph_.offset[v]; e < graph_.offset[v + 1]; ++e)
            twice += sides[v] != sides[graph_.other[e]] ? graph_.weight[e] : 0;
    return -Objective(twice / 2); // the engines minimise the negated cut
}

Verdict MaxCutProblem::verify(std::span<const std::int32_t> sides) const {
    if (sides.size() != size())
        return {false, 0.0, fmt::format("{} sides for {} vertices", sides.size(), size())};
    for (std::size_t v = 0; v < sides.size(); ++v)
        if (sides[v] != 0 && sides[v] != 1)
            return {false, 0.0, fmt::format("vertex {} has side {}", v + 1, sides[v])};
    return {true, evaluate(sides), {}};
}

/// "cut <value>", then the side of every vertex, one per line.
void MaxCutProblem::write_solution(const std::filesystem::path& path,
                                   std::span<const std::int32_t> sides, Objective value) const {
    std::ofstream out(path);
    out << "cut " << -static_cast<long long>(value) << '\n';
    for (const std::int32_t s : sides)
        out << s << '\n';
    if (!out.flush()) throw Error("cannot write " + path.string());
}

std::vector<std::int32_t> MaxCutProblem::read_solution(const std::filesystem::path& path) const {
    std::ifstream in(path);
    std::string word;
    long long cut = 0;
    std::vector<std::int32_t> sides;
    if (!(in >> word >> cut) || word != "cut") throw InstanceError(path.string() + ": no 'cut'");
    while (in >> word) {
        if (word != "0" && word != "1")
            throw InstanceError(path.string() + ": side '" + word + "' is not 0 or 1");
        sides.push_back(word == "1");
    }
    return sides;
}

void register_components(Registry& registry) {
    using Made = std::unique_ptr<Component>;
    ComponentSchema problem{"problem", "maxcut", "",
                            "Max-Cut (the cut is maximised): G-set style graph files or "
                            "'random-maxcut:n=N[,degree=D][,seed=S]'."};
    problem.string("instance", "", "graph file (through the data path) or a generator spec")
        .required();
    registry.add(problem, [](const Params& p, BuildContext&) -> Made {
        return MaxCutProblem::load(p.get_string("instance"));
    });
    ComponentSchema random{"construction", "random", "maxcut", "Every vertex on a random side."};
    registry.add(random, [](const Params&, BuildContext& b) -> Made {
        return std::make_unique<RandomSides>(maxcut_of(b));
    });
    ComponentSchema flips{"perturbation", "random_flips", "maxcut", "Flips random vertices."};
    flips.integer("count", "10", "number of flips", 1, 1000000);
    registry.add(flips, [](const Params& p, BuildContext& b) -> Made {
        return std::make_unique<RandomFlips>(maxcut_of(b), std::uint32_t(p.get_int("count")));
    });
    ComponentSchema flip{"neighborhood", "flip", "maxcut",
                         "Move one vertex to the other side: n moves, O(degree) delta each."};
    registry.add(flip, [](const Params&, BuildContext& b) -> Made {
        const MaxCutProblem& problem = maxcut_of(b);
        const gpu::EngineSettings settings = gpu::engine_settings(b);
        return b.backend == Backend::cuda ? make_cuda_flip(problem, settings)
                                          : make_cpu_flip(problem, settings);
    });
}

} // namespace maxcut

LOCUS_PLUGIN("maxcut", "Max-Cut: a flip neighborhood on CPU and CUDA, built outside the tree",
             maxcut::register_components)
