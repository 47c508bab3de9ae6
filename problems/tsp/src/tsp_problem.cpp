#include "locus/tsp/tsp_problem.hpp"
#include "locus/model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/tour_io.hpp"
#include "locus/tsp/tsplib.hpp"

namespace locus::tsp {

TspProblem::TspProblem(Instance instance) : instance_(std::move(instance)) {
    double bound = 0.0;
    if (!instance_.matrix.empty()) {
        for (std::int32_t w : instance_.matrix)
            bound = std::max(bound, std::abs(static_cast<double>(w)));
    } else if (!instance_.x.empty()) {
        const auto [xmin, xmax] = std::minmax_element(instance_.x.begin(), instance_.x.end());
        const auto [ymin, ymax] = std::minmax_element(instance_.y.begin(), instance_.y.end());
        const double dx = *xmax - *xmin, dy = *ymax - *ymin;
        // Euclidean bound; ATT distances are smaller, CEIL adds at most 1.
        bound = std::sqrt(dx * dx + dy * dy) + 2.0;
    }
    narrow_deltas_ =
        !instance_.x.empty() || !instance_.matrix.empty() ? 4.0 * bound < 2147483647.0 : false;
}

std::unique_ptr<TspProblem> TspProblem::load(const std::string& spec) {
    if (is_generator_spec(spec)) return std::make_unique<TspProblem>(generate_from_spec(spec));
    if (is_model_spec(spec))
        return std::make_unique<TspProblem>(instance_from_model(*find_model(spec, "tsp")));
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

const std::vector<std::int32_t>& TspProblem::lists(std::int32_t k, CandidateKind type,
                                                   const AlphaOptions& alpha) const {
    std::lock_guard lock(candidates_mutex_);
    const bool by_alpha = type == CandidateKind::alpha;
    auto& slot =
        candidates_[{k, type, by_alpha ? alpha.pool : 0, by_alpha ? alpha.ascent : 0}];
    if (slot) return *slot;
    const auto n = static_cast<std::int32_t>(instance_.n);
    if (k < 1 || k > n - 1)
        throw ConfigError(
            fmt::format("candidates: {} is out of range for {} cities (1..{})", k, n, n - 1));
    // NOTE: quadrant candidate lists (Johnson & McGeoch): for instances with coordinates, the
    // k/4 nearest cities of each quadrant around a city come first, the rest are its nearest
    // others. Plain nearest-neighbor lists fail on instances whose cities lie on lines (drilling
    // instances such as d1291): all candidates then sit on the same line.
    auto lists = std::make_unique<std::vector<std::int32_t>>(
        by_alpha ? alpha_candidate_lists(instance_, k, alpha)
                 : candidate_lists(instance_, k, type == CandidateKind::quadrant));
    slot = std::move(lists);
    return *slot;
}

} // namespace locus::tsp
