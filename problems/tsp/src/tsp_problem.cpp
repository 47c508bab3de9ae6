#include "locus/tsp/tsp_problem.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/tour_io.hpp"
#include "locus/tsp/tsplib.hpp"

namespace locus::tsp {

TspProblem::TspProblem(Instance instance) : instance_(std::move(instance)) {}

std::unique_ptr<TspProblem> TspProblem::load(const std::string& spec) {
    if (is_generator_spec(spec)) return std::make_unique<TspProblem>(generate_from_spec(spec));
    return std::make_unique<TspProblem>(read_tsplib(resolve_data_file(spec, "instance file")));
}

Objective TspProblem::evaluate(std::span<const std::int32_t> tour) const {
    return static_cast<Objective>(instance_.tour_length(tour));
}

Verdict TspProblem::verify(std::span<const std::int32_t> tour) const {
    if (auto why = check_tour(tour, instance_.n)) return Verdict{false, 0.0, *why};
    return Verdict{true, evaluate(tour), {}};
}

void TspProblem::write_solution(const std::filesystem::path& path,
                                std::span<const std::int32_t> tour, Objective objective) const {
    write_tour(path, instance_.name, tour, static_cast<std::int64_t>(objective));
}

std::vector<std::int32_t> TspProblem::read_solution(const std::filesystem::path& path) const {
    return read_tour(path, instance_.n);
}

const std::vector<std::int32_t>& TspProblem::candidates(std::int32_t k) const {
    std::lock_guard lock(candidates_mutex_);
    auto& slot = candidates_[k];
    if (slot) return *slot;
    const auto n = static_cast<std::int32_t>(instance_.n);
    if (k < 1 || k > n - 1)
        throw ConfigError(fmt::format("candidates: {} is out of range for {} cities (1..{})", k,
                                      n, n - 1));
    auto lists = std::make_unique<std::vector<std::int32_t>>(static_cast<std::size_t>(n) * k);
    // NOTE: brute force O(n^2) per build with a partial sort per city; fine up to ~50k cities
    // with all cores, and candidate lists are built once per run.
#pragma omp parallel
    {
        std::vector<std::pair<std::int32_t, std::int32_t>> row(static_cast<std::size_t>(n - 1));
#pragma omp for schedule(dynamic, 64)
        for (std::int32_t a = 0; a < n; ++a) {
            std::size_t m = 0;
            for (std::int32_t b = 0; b < n; ++b)
                if (b != a) row[m++] = {instance_.distance(a, b), b};
            std::partial_sort(row.begin(), row.begin() + k, row.end());
            for (std::int32_t c = 0; c < k; ++c)
                (*lists)[static_cast<std::size_t>(a) * k + c] = row[static_cast<std::size_t>(c)].second;
        }
    }
    slot = std::move(lists);
    return *slot;
}

} // namespace locus::tsp
