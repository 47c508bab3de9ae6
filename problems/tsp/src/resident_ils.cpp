// The TSP chains (chain_policy `ils`) of the many-chain search, and the deprecated name
// `resident_ils` of that search on the TSP.

#include <algorithm>
#include <memory>

#include "locus/gpu/chain_policy_component.hpp"
#include "locus/params.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/tsp/chain_runner.hpp"
#include "locus/tsp/combine.hpp"

namespace locus::tsp {

namespace {

TspChainOptions chain_options(const Params& p, const BuildContext& b) {
    const auto& problem = problem_as<TspProblem>(b, "tsp", "chain_policy ils");
    TspChainOptions options;
    options.candidates = static_cast<std::int32_t>(std::min<std::int64_t>(
        p.get_int("candidates"), static_cast<std::int64_t>(problem.size()) - 1));
    options.window = static_cast<std::int32_t>(p.get_int("window"));
    options.three_opt = static_cast<std::int32_t>(std::min<std::int64_t>(
        p.get_int("three_opt"), static_cast<std::int64_t>(problem.size()) - 1));
    options.depth = static_cast<std::int32_t>(p.get_int("depth"));
    options.second_breadth = static_cast<std::int32_t>(p.get_int("second_breadth"));
    options.step = static_cast<std::int32_t>(p.get_int("step"));
    const std::string& lists = p.get_string("candidate_lists");
    options.lists = lists == "alpha"     ? CandidateKind::alpha
                    : lists == "nearest" ? CandidateKind::nearest
                                         : CandidateKind::quadrant;
    options.ascent = static_cast<std::int32_t>(p.get_int("ascent"));
    return options;
}

} // namespace

void register_resident_ils(Registry& registry) {
    gpu::ChainPolicySpec<TspChainOptions> spec;
    spec.problem = "tsp";
    spec.doc = "TSP chains of the many-chain search (algorithm chains): each chain iterates a "
               "local double bridge, a VND over candidate 2-opt, Or-opt and optionally "
               "sequential 3-opt with don't-look bits, optionally a variable-depth move, and "
               "acceptance; recombination keeps the parents' common edges.";
    spec.parameters = [](ComponentSchema& schema) {
        schema.integer("candidates", "10", "candidate-list size K", 1, 1024);
        schema.choice("candidate_lists", "quadrant", {"quadrant", "alpha", "nearest"},
                      "how the candidates are chosen: quadrant (the K/4 nearest cities of each "
                      "quadrant, then the nearest), alpha (alpha-nearness under the penalties "
                      "of a Held-Karp subgradient ascent, as in LKH), nearest");
        schema.integer("ascent", "200",
                       "subgradient iterations of the alpha-nearness ascent (0: alpha from the "
                       "plain minimum spanning tree)",
                       0, 100000);
        schema.integer("window", "100", "double-bridge window in positions (0 = whole tour)", 0);
        schema.integer("three_opt", "0",
                       "candidate-list size of a third VND neighborhood, sequential 3-opt (remove "
                       "(t1,t2), add (t2,t3), remove (t3,t4), add (t4,t5), remove (t5,t6), close "
                       "(t6,t1); 4 K^2 moves per city and side); 0 = off",
                       0, 64);
        schema.integer("depth", "0",
                       "variable-depth move tried when the VND is exhausted: most 2-opt steps "
                       "of a Lin-Kernighan-style chain from the iteration's cities (candidate "
                       "lists, positive partial gains, the best closed tour kept); 0 = off",
                       0, kMaxDepth);
        schema.integer("second_breadth", "1",
                       "second steps the variable-depth move tries after each of its first "
                       "steps before giving up on that first step (Lin-Kernighan's breadth at "
                       "the second level; the first level tries 3)",
                       1, kMaxSecondBreadth);
        schema.integer("step", "2",
                       "steps of the variable-depth move: 2 (2-opt steps) or 3 (each step the "
                       "better of a 2-opt and a sequential 3-opt step, as LKH's 3-opt basic "
                       "move; includes Or-opt moves of segments)",
                       2, 3);
    };
    spec.options = chain_options;
    spec.cpu = [](const BuildContext& b, const TspChainOptions& options, std::uint32_t chains,
                  const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cpu_chain_runner(problem_as<TspProblem>(b, "tsp", "chain_policy ils"), options,
                                     chains, params, settings.threads);
    };
    spec.cuda = [](const BuildContext& b, const TspChainOptions& options, std::uint32_t chains,
                   const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cuda_chain_runner(problem_as<TspProblem>(b, "tsp", "chain_policy ils"), options,
                                      chains, params, settings.device, settings.memory);
    };
    spec.distance = [](const BuildContext&) -> gpu::SolutionDistance { return tour_distance; };
    gpu::register_chain_policy(registry, std::move(spec));
    gpu::register_chains_alias(registry, "resident_ils", "tsp");
}

} // namespace locus::tsp
