#include "locus/tsp/tsp_problem.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/error.hpp"
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

const std::vector<std::int32_t>& TspProblem::lists(std::int32_t k, bool quadrant) const {
    std::lock_guard lock(candidates_mutex_);
    auto& slot = candidates_[{k, quadrant}];
    if (slot) return *slot;
    const auto n = static_cast<std::int32_t>(instance_.n);
    if (k < 1 || k > n - 1)
        throw ConfigError(
            fmt::format("candidates: {} is out of range for {} cities (1..{})", k, n, n - 1));
    auto lists = std::make_unique<std::vector<std::int32_t>>(static_cast<std::size_t>(n) * k);
    const bool geometric = quadrant && !instance_.x.empty();
    // NOTE: quadrant candidate lists (Johnson & McGeoch): for instances with coordinates, the
    // k/4 nearest cities of each quadrant around a city come first, the rest are its nearest
    // others. Plain nearest-neighbor lists fail on instances whose cities lie on lines (drilling
    // instances such as d1291): all candidates then sit on the same line.
#pragma omp parallel
    {
        using Entry = std::pair<std::int32_t, std::int32_t>; // (distance, city)
        std::vector<Entry> row(static_cast<std::size_t>(n - 1));
        std::vector<Entry> quadrants[4];
        std::vector<std::uint8_t> taken(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 64)
        for (std::int32_t a = 0; a < n; ++a) {
            std::size_t m = 0;
            for (auto& q : quadrants)
                q.clear();
            for (std::int32_t b = 0; b < n; ++b) {
                if (b == a) continue;
                const Entry e{instance_.distance(a, b), b};
                row[m++] = e;
                if (geometric) {
                    const double dx = instance_.x[static_cast<std::size_t>(b)] -
                                      instance_.x[static_cast<std::size_t>(a)];
                    const double dy = instance_.y[static_cast<std::size_t>(b)] -
                                      instance_.y[static_cast<std::size_t>(a)];
                    const int q = dx >= 0 ? (dy > 0 ? 0 : 1) : (dy < 0 ? 2 : 3);
                    quadrants[q].push_back(e);
                }
            }
            std::vector<Entry> chosen;
            if (geometric) {
                const std::size_t per = static_cast<std::size_t>(k) / 4;
                for (auto& q : quadrants) {
                    const std::size_t take = std::min(per, q.size());
                    std::partial_sort(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(take),
                                      q.end());
                    chosen.insert(chosen.end(), q.begin(),
                                  q.begin() + static_cast<std::ptrdiff_t>(take));
                }
            }
            for (const auto& e : chosen)
                taken[static_cast<std::size_t>(e.second)] = 1;
            std::sort(row.begin(), row.end());
            for (std::size_t r = 0; r < row.size() && chosen.size() < static_cast<std::size_t>(k);
                 ++r)
                if (taken[static_cast<std::size_t>(row[r].second)] == 0) chosen.push_back(row[r]);
            for (const auto& e : chosen)
                taken[static_cast<std::size_t>(e.second)] = 0;
            std::sort(chosen.begin(), chosen.end());
            for (std::int32_t c = 0; c < k; ++c)
                (*lists)[static_cast<std::size_t>(a) * k + c] =
                    chosen[static_cast<std::size_t>(c)].second;
        }
    }
    slot = std::move(lists);
    return *slot;
}

} // namespace locus::tsp
