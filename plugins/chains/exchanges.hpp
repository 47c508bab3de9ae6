#pragma once
/// \file
/// The exchanges between the chains of the many-chain search, made before every epoch: none,
/// copy_best (on islands, optionally folding the islands' leaders into the best one), elite,
/// recombine, population (a population managed by cost and diversity) and merge.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/chain_policy_component.hpp"
#include "population.hpp"

namespace locus::chains {

/// How chains exchange solutions before every epoch.
enum class Exchange {
    none,       ///< chains stay independent
    copy_best,  ///< every chain continues from the leader's best solution
    elite,      ///< chain c continues from the (c mod E)-th of the E best distinct chains
    recombine,  ///< chain c continues from a recombination of two elite chains' bests
    population, ///< a population managed by cost and diversity; every chain restarts from a
                ///< recombination of two parents chosen by binary tournament
    merge,      ///< the chains' bests fold pairwise into one (a binary tree of
                ///< recombinations, the better parent first); every chain continues from it
    decompose,  ///< every chain continues from one base solution confined to a region of it
                ///< (Decomposer); the regions' best parts are assembled into the next base
};

/// Settings of the exchanges.
struct ExchangeOptions {
    Exchange exchange = Exchange::copy_best; ///< the exchange made before every epoch
    std::uint32_t elite = 8;      ///< elite pool size (elite, recombine); protected members
                                  ///< of the population's biased fitness (population)
    PopulationOptions population; ///< population exchange
    std::uint32_t islands = 1;    ///< copy_best or merge within each of this many groups
    bool cross_islands = false;   ///< the best island's leader folds in the other leaders
    std::uint32_t group_size = 0; ///< decompose: elements per region
    /// decompose: above this many elements (problem size) the chains start confined to the
    /// regions of the best start; at most this many, every chain descends its own start whole
    /// first (0: always confined)
    std::uint64_t regional_start_above = 0;
};

/// The exchanges of one run: the state they keep between epochs (the population; for merge,
/// whether every chain of an island started the epoch from one solution).
class Exchanges {
public:
    /// `seed`: the run's seed (population draws); `width`: words per solution; `distance`:
    /// the problem's distance between solutions (needed by the population exchange only).
    Exchanges(const ExchangeOptions& options, std::uint64_t seed, std::size_t width,
              gpu::SolutionDistance distance);

    /// Whether every chain of an island continues from one solution after each epoch
    /// (copy_best, merge), so that only the island's best start is worth a descent.
    static bool single_line(Exchange exchange) {
        return exchange == Exchange::copy_best || exchange == Exchange::merge;
    }

    /// The chains (re)started from the batch: they no longer share one solution per island,
    /// and the population (population exchange) starts again from their children, as Vidal's
    /// hybrid genetic search restarts its population after a number of iterations without
    /// improvement (the run keeps its best).
    void started() {
        single_start_ = false;
        if (population_) population_->clear();
    }

    /// The exchange before the epoch `round` (0, 1, ...), given every chain's best objective.
    void before_epoch(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                      std::uint64_t round);

    /// Seconds spent so far in the parts of the population exchange: `download` (the chains'
    /// bests to the host), `population` (its update and the parents' draws and rows) and
    /// `restart` (the runner's restart_from: the parents' upload, the recombinations and
    /// their evaluations, waited for). Empty for the other exchanges.
    const std::map<std::string, double>& part_seconds() const { return parts_; }

private:
    void copy_best(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                   std::uint64_t round) const;
    void elite(gpu::ChainRunner& runner, std::span<const std::int64_t> values) const;
    void recombine(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                   std::uint64_t round) const;
    void merge(gpu::ChainRunner& runner, std::span<const std::int64_t> values, std::uint64_t round);
    void repopulate(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                    std::uint64_t round);
    /// cross_islands: the best island's leader takes in every other island's leader.
    static void fold_islands(gpu::ChainRunner& runner, std::span<const std::uint32_t> heads,
                             std::span<const std::int64_t> values, std::uint64_t round);

    ExchangeOptions options_;
    std::uint64_t seed_;
    std::size_t width_;
    std::unique_ptr<Population> population_;
    /// merge: whether every chain of an island started the epoch from one solution (not so
    /// after a (re)start), and that solution's objective per island.
    bool single_start_ = false;
    std::vector<std::int64_t> island_start_;
    std::map<std::string, double> parts_;
};

} // namespace locus::chains
