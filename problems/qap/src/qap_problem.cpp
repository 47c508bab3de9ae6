#include "locus/qap/qap_problem.hpp"

#include "locus/data_path.hpp"
#include "locus/model.hpp"
#include "locus/qap/generator.hpp"
#include "locus/qap/qaplib.hpp"

namespace locus::qap {

std::unique_ptr<QapProblem> QapProblem::load(const std::string& spec) {
    if (is_generator_spec(spec)) return std::make_unique<QapProblem>(generate_from_spec(spec));
    if (is_model_spec(spec))
        return std::make_unique<QapProblem>(instance_from_model(*find_model(spec, "qap")));
    return std::make_unique<QapProblem>(read_qaplib(resolve_data_file(spec, "instance file")));
}

Objective QapProblem::evaluate(std::span<const std::int32_t> p) const {
    return static_cast<Objective>(objective(instance_, p));
}

Verdict QapProblem::verify(std::span<const std::int32_t> p) const {
    if (auto why = check_permutation(p, instance_.n)) return {false, 0.0, *why};
    return {true, evaluate(p), {}};
}

void QapProblem::write_solution(const std::filesystem::path& path, std::span<const std::int32_t> p,
                                Objective value) const {
    qap::write_solution(path, instance_.name, p, static_cast<std::int64_t>(value));
}

std::vector<std::int32_t> QapProblem::read_solution(const std::filesystem::path& path) const {
    return qap::read_solution(path, instance_).p;
}

} // namespace locus::qap
