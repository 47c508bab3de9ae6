#pragma once
/// \file
/// The QAP as a locus Problem: solutions are permutations p (facility i at location p[i]), the
/// objective is sum_ij a_ij b_p(i)p(j) (exact in 64 bits by the bound checked at load).

#include <memory>
#include <string>

#include "locus/problem.hpp"
#include "locus/qap/instance.hpp"

namespace locus::qap {

class QapProblem final : public Problem {
public:
    explicit QapProblem(Instance instance) : instance_(std::move(instance)) {}

    /// A generator spec ("random-qap:n=...") or a QAPLIB .dat file found through the data path.
    static std::unique_ptr<QapProblem> load(const std::string& spec);

    std::string_view problem_name() const override { return "qap"; }
    std::string instance_name() const override { return instance_.name; }
    std::size_t size() const override { return static_cast<std::size_t>(instance_.n); }
    std::size_t solution_width() const override { return static_cast<std::size_t>(instance_.n); }
    Objective evaluate(std::span<const std::int32_t> p) const override;
    Verdict verify(std::span<const std::int32_t> p) const override;
    std::string solution_extension() const override { return ".sln"; }
    void write_solution(const std::filesystem::path& path, std::span<const std::int32_t> p,
                        Objective objective) const override;
    std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const override;

    const Instance& instance() const { return instance_; }

private:
    Instance instance_;
};

/// Registers the QAP problem, its construction, perturbation and swap neighborhood.
void register_qap_components(class Registry& registry);

} // namespace locus::qap
