// The many-chain search as an algorithm plugin: `chains`, on the chains a problem offers through
// its chain_policy component (chain_policy_component.hpp).

#include <memory>
#include <string>

#include <fmt/format.h>

#include "chain_search.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/registry.hpp"

namespace locus::chains {
namespace {

/// The population kept when `population` is auto and the problem has no preference.
constexpr std::size_t kDefaultPopulation = 25;

/// The engine's parameters: epoch, acceptance, exchanges, islands, restarts, mapping.
void add_engine_parameters(ComponentSchema& schema) {
    schema.integer("epoch", "20", "iterations per chain between exchanges", 1, 1000000)
        .choice("acceptance", "better", {"better", "threshold", "annealing"},
                "better: trial <= current; threshold: trial <= current + threshold x start "
                "objective; annealing: Metropolis at temperature x start objective x cooling^it")
        .real("threshold", "0.001", "threshold acceptance: share of the start objective", 0.0, 1.0)
        .real("temperature", "0.0005",
              "annealing: initial temperature, share of the start "
              "objective",
              0.0, 1.0)
        .real("cooling", "0.9999", "annealing: temperature factor per iteration", 0.5, 1.0)
        .choice("exchange", "copy_best",
                {"none", "copy_best", "elite", "recombine", "population", "merge", "decompose"},
                "before every epoch: none, every chain from the best (copy_best), chain c from "
                "the (c mod elite)-th best distinct chain (elite), from a recombination of two "
                "elite chains (recombine), or from a recombination of two parents drawn by "
                "binary tournament from a population kept by cost and diversity (population; "
                "the chains' bests since their restart are its children), or from the fold "
                "of every chain's best into one by pairwise recombination, the better parent "
                "first (merge), or from one base solution, chain c confined to region c mod G "
                "of it (groups of about group_size elements, e.g. sectors of routes, drawn "
                "again every epoch), each region's best part assembled into the next base "
                "(decompose; problems with a decomposition: dcvrp)")
        .integer("group_size", "400",
                 "decompose: elements (customers) per region; as many regions as the batch "
                 "has chains at most",
                 1, 1 << 30)
        .integer("regional_start_above", "30000",
                 "decompose: on problems of more elements (customers) than this the chains "
                 "start from the best construction, each descending only its region (64 whole "
                 "descents of 100,000 customers did not end within a minute); up to this many "
                 "every chain first descends its own construction whole and the best of them "
                 "is the first base (better at 3,000-20,000 customers); 0 = always regional",
                 0, 1e12)
        .integer("elite", "8",
                 "elite pool size (elite, recombine); members protected by cost in the "
                 "population's biased fitness (population)",
                 1, 1048576)
        .integer("population", "25",
                 "population: members kept after every epoch; auto: the problem's choice for "
                 "the instance (DCVRP: 50 when routes hold at most 15 customers on average by "
                 "the capacity bound, else 25), 25 for problems without one",
                 2, 100000)
        .or_auto()
        .integer("generation", "64",
                 "population: most children (the cheapest chains' bests) admitted per epoch", 1,
                 1048576)
        .boolean("child_descent", "false",
                 "population: a restarted chain first descends from every element of its "
                 "child, as from a start (false: its first kick and descent educate it)")
        .choice("pivot", "best", {"best", "first", "independent"},
                "pivoting rule of every exploration of the chains' descents: best (smallest "
                "delta), first (lowest-index improving move), or independent (every row's best "
                "move that is the best on each group it changes — e.g. routes — all applied "
                "in one step: a descent from a construction of 10^4 customers in tens of steps; "
                "policies whose moves name their groups: dcvrp)")
        .choice("start_pivot", "pivot", {"pivot", "best", "first", "independent"},
                "pivoting rule of the chains' first descents, from their starts: pivot (the "
                "same as every other descent), best, first or independent (a descent from a "
                "construction applies as many moves as there are customers, independent "
                "applies them in tens of steps; policies whose moves name their groups: "
                "dcvrp)")
        .choice("mapping", "block", {"block", "thread"},
                "CUDA: one block per chain (the block shares each exploration) or one thread per "
                "chain (Delévacq et al.'s FI-thread; TSP chains); the CPU twin runs a chain per "
                "core either way")
        .integer("restart", "0",
                 "epochs in which no chain improves on the chains' best since their start after "
                 "which every chain starts again from a solution of restart_construction (the "
                 "run's best is kept; exchange population: the population too starts again "
                 "from the new chains' children); 0 = never",
                 0, 1000000000)
        .integer("islands", "1",
                 "exchange copy_best or merge: the chains form this many islands of consecutive "
                 "chains (chains [i N / I, (i + 1) N / I)), each continuing from its own leader "
                 "(merge: the fold of its chains), so "
                 "islands started differently (construction mixed) search different regions; "
                 "restarts stay common to all",
                 1, 1048576)
        .boolean("cross_islands", "false",
                 "islands: after every epoch the best island's leader also takes the shorter "
                 "interchangeable parts of every other island's leader (the problem's "
                 "recombination, as merge); the other islands keep their own leaders")
        .integer("close", "5",
                 "population: nearest members a member's diversity contribution averages over", 1,
                 1000);
}

Exchange exchange_of(const std::string& name) {
    return name == "none"         ? Exchange::none
           : name == "elite"      ? Exchange::elite
           : name == "recombine"  ? Exchange::recombine
           : name == "population" ? Exchange::population
           : name == "merge"      ? Exchange::merge
           : name == "decompose"  ? Exchange::decompose
                                  : Exchange::copy_best;
}

/// The options of validated params, with the checks of their combinations (islands, restarts).
ChainSearchOptions options_of(const Params& p, const BuildContext& b) {
    ChainSearchOptions o;
    o.epoch = static_cast<std::uint32_t>(p.get_int("epoch"));
    const std::string& acceptance = p.get_string("acceptance");
    o.acceptance = acceptance == "threshold"   ? gpu::AcceptanceKind::threshold
                   : acceptance == "annealing" ? gpu::AcceptanceKind::annealing
                                               : gpu::AcceptanceKind::better_or_equal;
    o.threshold = p.get_real("threshold");
    o.temperature = p.get_real("temperature");
    o.cooling = p.get_real("cooling");
    ExchangeOptions& x = o.exchange;
    x.exchange = exchange_of(p.get_string("exchange"));
    x.elite = static_cast<std::uint32_t>(p.get_int("elite"));
    x.population.size = static_cast<std::size_t>(p.get_int("population"));
    x.population.generation = static_cast<std::size_t>(p.get_int("generation"));
    x.population.close = static_cast<std::size_t>(p.get_int("close"));
    x.population.elite = x.elite;
    x.population.threads = b.threads;
    o.child_descent = p.get_bool("child_descent");
    o.first_improvement = p.get_string("pivot") == "first";
    o.independent_moves = p.get_string("pivot") == "independent";
    const std::string& start_pivot = p.get_string("start_pivot");
    o.start_pivot = start_pivot == "best"          ? gpu::StartPivot::best
                    : start_pivot == "first"       ? gpu::StartPivot::first
                    : start_pivot == "independent" ? gpu::StartPivot::independent
                                                   : gpu::StartPivot::same;
    o.thread_per_chain = p.get_string("mapping") == "thread";
    o.restart = static_cast<std::uint64_t>(p.get_int("restart"));
    if (o.restart > 0 && !p.has("restart_construction"))
        throw ConfigError(fmt::format(
            "{}.restart: {} epochs needs a restart_construction, the construction the chains "
            "restart from (e.g. restart_construction: {{name: greedy}})",
            p.path(), o.restart));
    x.islands = static_cast<std::uint32_t>(p.get_int("islands"));
    if (x.islands > 1 && x.exchange != Exchange::copy_best && x.exchange != Exchange::merge)
        throw ConfigError(fmt::format("{}.islands: {} islands work with exchange copy_best "
                                      "or merge (exchange is {})",
                                      p.path(), x.islands, p.get_string("exchange")));
    if (b.batch > 0) check_islands(p, x.islands, b.batch);
    x.cross_islands = p.get_bool("cross_islands");
    x.group_size = static_cast<std::uint32_t>(p.get_int("group_size"));
    x.regional_start_above = static_cast<std::uint64_t>(p.get_int("regional_start_above"));
    if (x.cross_islands && x.islands < 2)
        throw ConfigError(fmt::format("{}.cross_islands: folds islands into each other and "
                                      "needs islands >= 2 (islands is {})",
                                      p.path(), x.islands));
    return o;
}

std::unique_ptr<Component> build_chains(const Params& p, BuildContext& b) {
    if (b.problem == nullptr) throw ConfigError(fmt::format("{} needs a loaded problem", p.name()));
    auto policy = b.registry->create<gpu::ChainPolicyComponent>(
        p.get_component(std::string(gpu::kChainsPolicyParam)), b);
    if (p.get_string("exchange") == "population" && !policy->has_distance())
        throw ConfigError(fmt::format(
            "{}.exchange: population needs a distance between solutions, which the chains of "
            "problem '{}' do not have; use copy_best, elite, recombine or none",
            p.path(), b.problem->problem_name()));
    if (b.auto_batch_multiprocessors > 0) { // batch: auto on a device
        const std::size_t chosen = policy->chains(b.auto_batch_multiprocessors);
        if (chosen > 0) {
            b.batch = chosen;
            if (b.resolved != nullptr) (*b.resolved)["batch"] = static_cast<std::int64_t>(chosen);
        }
    }
    ChainSearchOptions options = options_of(p, b);
    if (options.exchange.population.size == 0) { // population: auto
        const std::size_t chosen = policy->population();
        options.exchange.population.size = chosen > 0 ? chosen : kDefaultPopulation;
        if (options.exchange.exchange == Exchange::population) {
            if (b.resolved != nullptr)
                (*b.resolved)[p.path() + ".population"] =
                    static_cast<std::int64_t>(options.exchange.population.size);
            const std::string_view problem = b.problem->problem_name();
            const std::string why =
                chosen > 0
                    ? fmt::format("chosen for the instance by problem '{}'", problem)
                    : fmt::format("the default (problem '{}' has no choice of its own)", problem);
            b.registry->note(fmt::format("{}.population: auto = {}, {}", p.path(),
                                         options.exchange.population.size, why));
        }
    }
    for (const auto& [key, independent] :
         {std::pair{"pivot", options.independent_moves},
          std::pair{"start_pivot", options.start_pivot == gpu::StartPivot::independent}})
        if (independent && !policy->independent_moves())
            throw ConfigError(fmt::format(
                "{}.{}: independent needs chains whose moves name the parts of a solution "
                "they change, which the chains of problem '{}' do not; use best or first",
                p.path(), key, b.problem->problem_name()));
    if (options.exchange.exchange == Exchange::decompose && !policy->decomposition())
        throw ConfigError(fmt::format(
            "{}.exchange: decompose needs a decomposition of solutions into regions, which "
            "the chains of problem '{}' do not have; use copy_best, elite or none",
            p.path(), b.problem->problem_name()));
    std::unique_ptr<Algorithm> start;
    if (p.has("start")) start = b.registry->create<Algorithm>(p.get_component("start"), b);
    std::unique_ptr<Construction> restart;
    if (p.has("restart_construction"))
        restart = b.registry->create<Construction>(p.get_component("restart_construction"), b);
    return make_chain_search(p, b, options, std::move(policy), std::move(start),
                             std::move(restart));
}

void register_components(Registry& registry) {
    ComponentSchema schema{
        "algorithm", std::string(gpu::kChainsAlgorithm), "",
        "Many-chain search on the many-chain engine: one chain per solution of the batch, each "
        "running the problem's whole iterated local search (its chain_policy: perturbation, "
        "descent, acceptance) in one CUDA block (or thread: mapping) or one CPU thread; chains "
        "exchange solutions before every epoch (copy_best on islands, elite, recombine, "
        "population, merge) and restart after quiet epochs. Iterations count iterations per "
        "chain. Problems with chains: tsp, qap, dcvrp."};
    schema.component(std::string(gpu::kChainsPolicyParam), "chain_policy", "ils",
                     "the problem's chains and their own parameters (e.g. TSP candidates, depth; "
                     "QAP kick; DCVRP kicks, penalties); every problem with chains has `ils`");
    schema.component("start", "algorithm", "",
                     "algorithm run before the chains start: on the best constructed solution "
                     "(exchange copy_best) or on every one, e.g. a parallel VND over the whole "
                     "candidate neighborhood, which reaches a local optimum of 10^5+ cities far "
                     "sooner than one chain's descent; none by default");
    schema.component("restart_construction", "construction", "",
                     "construction of the chains' solutions at a restart (restart > 0), e.g. "
                     "{name: greedy}: a start unlike the run's construction leads the chains "
                     "into other regions");
    add_engine_parameters(schema);
    registry.add(std::move(schema), build_chains);
}

} // namespace
} // namespace locus::chains

LOCUS_PLUGIN("chains", "The many-chain search over the chains of a problem",
             locus::chains::register_components)
