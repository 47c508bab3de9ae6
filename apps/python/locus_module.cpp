// The extension module locus._locus: the host framework and the commands of the launcher,
// bound with pybind11. The Python package (locus/) builds its API on top of it.

#include <signal.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "launcher.hpp"
#include "locus/build_info.hpp"
#include "locus/data_path.hpp"
#include "locus/gpu/device.hpp"
#include "locus/error.hpp"
#include "locus/model.hpp"
#include "locus/problem.hpp"
#include "locus/program_directory.hpp"
#include "locus/search_context.hpp"

namespace py = pybind11;

namespace locus::python {

namespace {

using IntArray = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
using RealArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<std::int32_t> to_vector(const IntArray& array) {
    if (array.ndim() != 1)
        throw py::value_error("a solution must be a one-dimensional array of integers");
    return {array.data(), array.data() + array.size()};
}

IntArray to_array(std::span<const std::int32_t> values) {
    IntArray array(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), array.mutable_data());
    return array;
}

/// A loaded problem (instance) as Python sees it: objectives as users read them.
class ProblemHandle {
public:
    explicit ProblemHandle(std::shared_ptr<Problem> problem) : problem_(std::move(problem)) {}

    std::string problem_name() const { return std::string(problem_->problem_name()); }
    std::string instance_name() const { return problem_->instance_name(); }
    std::size_t size() const { return problem_->size(); }
    std::size_t solution_width() const { return problem_->solution_width(); }
    std::string sense() const { return std::string(to_string(problem_->objective_sense())); }
    std::string extension() const { return problem_->solution_extension(); }

    /// (feasible, objective, message) of an encoded solution.
    py::tuple verify(const IntArray& solution) const {
        const auto encoded = to_vector(solution);
        const Verdict verdict = problem_->verify(encoded);
        return py::make_tuple(verdict.feasible,
                              verdict.feasible
                                  ? py::object(py::float_(user_objective(
                                        problem_->objective_sense(), verdict.objective)))
                                  : py::object(py::none()),
                              verdict.message);
    }
    void write(const std::filesystem::path& path, const IntArray& solution) const {
        const auto encoded = to_vector(solution);
        const Verdict verdict = problem_->verify(encoded);
        if (!verdict.feasible)
            throw InstanceError("cannot write an infeasible solution: " + verdict.message);
        problem_->write_solution(path, encoded, verdict.objective);
    }
    IntArray read(const std::filesystem::path& path) const {
        return to_array(problem_->read_solution(path));
    }
    const std::shared_ptr<Problem>& problem() const { return problem_; }

private:
    std::shared_ptr<Problem> problem_;
};

/// SIGINT handling of a solve: Ctrl-C asks the search to stop (request_interrupt) and the run
/// ends with its best solution; the interpreter's handler is back when the solve returns.
class InterruptScope {
public:
    InterruptScope() {
        struct sigaction action {};
        action.sa_handler = [](int) { request_interrupt(); };
        sigemptyset(&action.sa_mask);
        installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
    }
    ~InterruptScope() {
        if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
    }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    struct sigaction previous_ {};
    bool installed_ = false;
};

std::mutex g_solve_mutex;

struct TraceRow {
    double time_s;
    double iteration;
    double evaluations;
    double objective;
    double feasible;
};

py::dict solve(const std::optional<std::string>& config,
               const std::optional<std::string>& config_text,
               const std::vector<std::string>& overrides,
               const std::vector<std::filesystem::path>& plugin_paths,
               std::optional<double> best_known, bool quiet, const py::object& callback,
               const std::optional<std::string>& initial) {
    app::RunOptions options;
    options.initial = initial;
    options.config = config.value_or("");
    options.config_text = config_text;
    options.overrides = overrides;
    options.plugin_paths = plugin_paths;
    options.best_known_value = best_known;
    options.quiet = quiet;

    std::vector<std::vector<TraceRow>> traces;
    std::exception_ptr callback_error;
    ObjectiveSense sense = ObjectiveSense::minimize;
    app::JobHooks hooks;
    hooks.signals = false;
    hooks.on_improvement = [&](std::uint32_t run, const TracePoint& point) -> bool {
        if (traces.size() <= run) traces.resize(run + 1);
        const double objective = user_objective(sense, point.objective);
        traces[run].push_back({point.time_s, static_cast<double>(point.iteration),
                               static_cast<double>(point.evaluations), objective,
                               point.feasible ? 1.0 : 0.0});
        if (callback.is_none() || callback_error) return static_cast<bool>(callback_error);
        py::gil_scoped_acquire gil;
        try {
            py::dict event;
            event["run"] = run;
            event["time_s"] = point.time_s;
            event["iteration"] = point.iteration;
            event["evaluations"] = point.evaluations;
            event["objective"] = objective;
            event["feasible"] = point.feasible;
            event["solution"] = to_array(point.solution);
            return py::bool_(callback(event)).cast<bool>();
        } catch (...) {
            callback_error = std::current_exception();
            return true;
        }
    };
    hooks.on_loaded = [&](const Problem& problem) { sense = problem.objective_sense(); };
    app::JobOutcome outcome;
    bool interrupted = false;
    {
        py::gil_scoped_release release;
        // NOTE: the stop flag and the deadline of a job are process-wide (search_context.hpp):
        // solves run one at a time, and the flag is cleared after each so that a stopped job
        // does not stop what the process does next (reading a file polls it).
        const std::lock_guard lock(g_solve_mutex);
        InterruptScope interrupts;
        // NOTE: so is the config's directory, first on the data path while its job runs: it
        // is forgotten after the job, as the stop flag is, whether the job ended or threw.
        struct JobStateReset {
            JobStateReset() = default;
            JobStateReset(const JobStateReset&) = delete;
            JobStateReset& operator=(const JobStateReset&) = delete;
            ~JobStateReset() {
                clear_interrupt();
                set_config_directory({});
            }
        } const reset;
        outcome = app::execute_job(options, hooks);
        interrupted = interrupt_requested();
    }
    if (callback_error) std::rethrow_exception(callback_error);
    py::list runs;
    for (const RunSummary& summary : outcome.runs) {
        py::dict run;
        run["run"] = summary.run;
        run["seed"] = summary.seed;
        run["has_solution"] = summary.has_solution;
        run["solution"] = to_array(summary.best_solution);
        std::vector<TraceRow> rows =
            summary.run < traces.size() ? traces[summary.run] : std::vector<TraceRow>{};
        RealArray trace({static_cast<py::ssize_t>(rows.size()), py::ssize_t{5}});
        auto view = trace.mutable_unchecked<2>();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const TraceRow& r = rows[i];
            const double values[5] = {r.time_s, r.iteration, r.evaluations, r.objective,
                                      r.feasible};
            for (py::ssize_t k = 0; k < 5; ++k)
                view(static_cast<py::ssize_t>(i), k) = values[k];
        }
        run["trace"] = trace;
        runs.append(run);
    }
    py::list lines;
    for (const auto& line : outcome.lines)
        lines.append(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    py::dict result;
    result["status"] = outcome.status;
    result["interrupted"] = interrupted;
    result["lines"] = lines;
    result["runs"] = runs;
    result["problem"] = ProblemHandle(outcome.problem);
    return result;
}

std::string register_model_data(const std::string& problem, const std::string& name,
                           const py::dict& arrays, const py::dict& numbers,
                           const py::dict& texts) {
    auto model = std::make_shared<Model>();
    model->problem = problem;
    model->name = name;
    for (const auto& [key, value] : arrays) {
        const RealArray array = py::cast<RealArray>(value);
        ModelArray data;
        data.shape.assign(array.shape(), array.shape() + array.ndim());
        data.values.assign(array.data(), array.data() + array.size());
        model->arrays.emplace(py::cast<std::string>(key), std::move(data));
    }
    for (const auto& [key, value] : numbers)
        model->numbers.emplace(py::cast<std::string>(key), py::cast<double>(value));
    for (const auto& [key, value] : texts)
        model->texts.emplace(py::cast<std::string>(key), py::cast<std::string>(value));
    return register_model(std::shared_ptr<const Model>(std::move(model)));
}

} // namespace

} // namespace locus::python

PYBIND11_MODULE(_locus, m) {
    using namespace locus;
    using namespace locus::python;
    m.doc() = "locus host framework (the Python package 'locus' is its interface)";
    m.attr("version") = LOCUS_VERSION;
    m.attr("git_revision") = LOCUS_GIT_REVISION;
    m.attr("build_id") = LOCUS_BUILD_ID;
    m.attr("build_bin_dir") = LOCUS_PYTHON_BUILD_BIN_DIR;
    m.attr("source_dir") = LOCUS_PYTHON_SOURCE_DIR;

    // Exceptions: each locus error is also the built-in Python error that fits it.
    static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
    const auto derived = [&](const char* name, PyObject* builtin) {
        const py::tuple bases = py::make_tuple(error, py::handle(builtin));
        PyObject* type = PyErr_NewException((std::string("locus._locus.") + name).c_str(),
                                            bases.ptr(), nullptr);
        if (type == nullptr) throw py::error_already_set();
        m.attr(name) = py::reinterpret_steal<py::object>(type);
        return type;
    };
    static PyObject* config_error = derived("ConfigError", PyExc_ValueError);
    static PyObject* instance_error = derived("InstanceError", PyExc_ValueError);
    static PyObject* plugin_error = derived("PluginError", PyExc_ImportError);
    static PyObject* cuda_error = derived("CudaError", PyExc_RuntimeError);
    static PyObject* not_implemented = derived("NotImplementedInLocus", PyExc_NotImplementedError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ConfigError& e) {
            PyErr_SetString(config_error, e.what());
        } catch (const InstanceError& e) {
            PyErr_SetString(instance_error, e.what());
        } catch (const PluginError& e) {
            PyErr_SetString(plugin_error, e.what());
        } catch (const CudaError& e) {
            PyErr_SetString(cuda_error, e.what());
        } catch (const NotImplemented& e) {
            PyErr_SetString(not_implemented, e.what());
        } catch (const Stopped& e) {
            PyErr_SetString(error.ptr(), e.what());
        }
    });

    m.def("set_program_directory",
          [](const std::filesystem::path& dir) { set_program_directory(dir); },
          "The directory of the launcher whose plugins and data this process uses.");
    m.def("program_directory", [] { return program_directory(); });
    m.def("cuda_devices", [] { return gpu::device_count(); },
          "Number of usable CUDA devices (0 without a GPU or driver).");
    m.def("cuda_unavailable_reason", [] { return gpu::device_unavailable_reason(); });
    m.def(
        "find_data_file",
        [](const std::string& spec) -> std::optional<std::filesystem::path> {
            try {
                return resolve_data_file(spec, "instance file");
            } catch (const InstanceError&) {
                return std::nullopt;
            }
        },
        "The file `spec` names, found through the data path, or None.");

    py::class_<ProblemHandle>(m, "Problem")
        .def_property_readonly("problem_name", &ProblemHandle::problem_name)
        .def_property_readonly("instance_name", &ProblemHandle::instance_name)
        .def_property_readonly("size", &ProblemHandle::size)
        .def_property_readonly("solution_width", &ProblemHandle::solution_width)
        .def_property_readonly("sense", &ProblemHandle::sense)
        .def_property_readonly("extension", &ProblemHandle::extension)
        .def("verify", &ProblemHandle::verify, py::arg("solution"))
        .def("write", &ProblemHandle::write, py::arg("path"), py::arg("solution"))
        .def("read", &ProblemHandle::read, py::arg("path"));

    m.def(
        "load_problem",
        [](const std::string& instance, const std::string& problem,
           const std::vector<std::filesystem::path>& plugin_paths,
           const std::vector<std::string>& params) {
            std::shared_ptr<Problem> loaded;
            {
                py::gil_scoped_release release;
                loaded = app::load_problem(instance, problem, plugin_paths, params);
            }
            return ProblemHandle(std::move(loaded));
        },
        py::arg("instance"), py::arg("problem") = "", py::arg("plugin_paths") = py::list(),
        py::arg("params") = py::list());
    m.def("register_model", &register_model_data, py::arg("problem"), py::arg("name"),
          py::arg("arrays"), py::arg("numbers"), py::arg("texts"));
    m.def("forget_model", [](const std::string& spec) { forget_model(spec); });
    m.def("solve", &solve, py::arg("config"), py::arg("config_text"), py::arg("overrides"),
          py::arg("plugin_paths"), py::arg("best_known"), py::arg("quiet"), py::arg("callback"),
          py::arg("initial") = py::none());
}
