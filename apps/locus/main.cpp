// The `locus` launcher: run, validate, plugins, verify.

#include <cstdio>
#include <new>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "launcher.hpp"
#include "locus/build_info.hpp"
#include "locus/error.hpp"
#include "locus/search_context.hpp"


int main(int argc, char** argv) {
    using namespace locus::app;
    CLI::App app{"locus: GPU-accelerated local search and successor generation"};
    app.set_version_flag("--version", std::string("locus ") + LOCUS_VERSION + " (" +
                                          LOCUS_GIT_REVISION + ", build " + LOCUS_BUILD_ID + ")");
    app.require_subcommand(1);
    // Command-line errors read like every other error of the launcher: one line on stderr.
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return std::string("locus: error: ") + e.what() + " (see 'locus --help')\n";
    });

    RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "Run a job (default: the embedded demo job)");
    run_cmd->add_option("config", run.config, "YAML config file (omit for the embedded demo job)");
    run_cmd->add_option("--set", run.overrides, "Override a config value: key.path=value")
        ->take_all();
    run_cmd->add_option("--instance", run.instance,
                        "Instance file or generator spec (problem.instance)");
    // NOTE: --time-limit and --seed are range-checked by the config validation (as the
    // overrides termination.time_limit and seed), which gives the same message as in a file.
    run_cmd->add_option("--time-limit", run.time_limit, "Wall-clock limit per run in seconds");
    run_cmd->add_option("--seed", run.seed, "Job seed");
    // NOTE: checked by the config validation (as the override backend), whose message suggests
    // 'cuda' for 'gpu'.
    run_cmd->add_option("--backend", run.backend, "auto, cpu or cuda");
    run_cmd->add_option("--initial", run.initial, "Start from this solution file");
    run_cmd->add_option("--out", run.out, "Output directory (results.jsonl, traces, solutions)");
    run_cmd->add_option("--plugin-path", run.plugin_paths, "Extra plugin directory (repeatable)");
    run_cmd->add_flag("--quiet,-q", run.quiet, "No progress line");

    RunOptions validate;
    auto* validate_cmd = app.add_subcommand("validate", "Validate a config without running it");
    validate_cmd->add_option("config", validate.config, "YAML config file")->required();
    validate_cmd->add_option("--set", validate.overrides, "Override a config value")->take_all();
    validate_cmd->add_option("--plugin-path", validate.plugin_paths, "Extra plugin directory");

    bool verbose = false;
    std::vector<std::filesystem::path> plugin_paths;
    auto* plugins_cmd = app.add_subcommand("plugins", "List plugins and their components");
    plugins_cmd->add_flag("--verbose,-v", verbose, "Show every parameter with type and default");
    plugins_cmd->add_option("--plugin-path", plugin_paths, "Extra plugin directory");

    ExperimentOptions experiment;
    auto* experiment_cmd =
        app.add_subcommand("experiment", "Run an experiment: configs x instances x seeds x "
                                         "backends, resumable");
    experiment_cmd->add_option("spec", experiment.spec, "Experiment spec (YAML)")->required();
    experiment_cmd->add_option("--out", experiment.out, "Output directory (default: experiment)");
    experiment_cmd->add_option("--shard", experiment.shard,
                               "i/N: run the runs at positions i-1 mod N of the expansion");
    experiment_cmd->add_flag("--dry-run", experiment.dry_run, "List the runs, run nothing");
    experiment_cmd->add_flag("--force", experiment.force,
                             "Add to an output directory written by another spec");
    experiment_cmd->add_option("--jobs", experiment.jobs,
                               "CPU runs at once, each on its own share of the cores (default 1)");
    auto* gpus_opt = experiment_cmd->add_option(
        "--gpus", experiment.gpus,
        "CUDA runs at once, one per device 0..N-1 (default: every device)");
    experiment_cmd
        ->add_option("--devices", experiment.devices,
                     "CUDA devices to run on, one run each at a time (a list: 0,1)")
        ->excludes(gpus_opt);
    experiment_cmd->add_option("--plugin-path", experiment.plugin_paths, "Extra plugin directory");

    ReportOptions report;
    auto* report_cmd = app.add_subcommand(
        "report", "Tables and plots of results: per instance and config, with significance "
                  "marks, convergence, time to target and the best solutions");
    report_cmd->add_option("inputs", report.inputs, "results.jsonl files or experiment directories")
        ->required();
    report_cmd->add_option("--out", report.out, "Output directory (default: report)");
    auto* plots_flag = report_cmd->add_flag(
        "--plots", report.plots,
        "Fail when the plots cannot be drawn (default: say why and write the tables only)");
    report_cmd->add_flag("--no-plots", report.no_plots, "Tables only, no plots")
        ->excludes(plots_flag);

    std::string instance, solution, problem;
    auto* verify_cmd = app.add_subcommand("verify", "Check a solution's feasibility and objective");
    verify_cmd->add_option("--instance", instance, "Instance file")->required();
    verify_cmd->add_option("--solution", solution, "Solution file")->required();
    verify_cmd->add_option("--problem", problem, "Problem name (default: from the file extension)");
    verify_cmd->add_option("--plugin-path", plugin_paths, "Extra plugin directory");
    std::vector<std::string> verify_params;
    verify_cmd->add_option("--param", verify_params,
                           "Problem parameter KEY=VALUE (repeatable), e.g. rounding=nint or "
                           "vehicles=25 for dcvrp; others take their defaults");

    std::string new_name, new_out;
    auto* new_cmd = app.add_subcommand(
        "new-problem", "Start a problem plugin: a project copied from the Max-Cut example, "
                       "built outside this tree against an installed locus");
    new_cmd->add_option("name", new_name, "Problem name (lower case, digits, '_')")->required();
    new_cmd->add_option("--out", new_out, "Project directory (default: ./NAME; must not exist)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kOk : kUsage;
    }
    try {
        if (*run_cmd) return run_job(run);
        if (*validate_cmd) return validate_job(validate);
        if (*plugins_cmd) return list_plugins(plugin_paths, verbose);
        if (*experiment_cmd) return run_experiment(experiment);
        if (*report_cmd) return run_report(report);
        if (*new_cmd) return new_problem(new_name, new_out);
        if (*verify_cmd)
            return verify_solution(instance, solution, problem, plugin_paths, verify_params);
    } catch (const locus::ConfigError& e) {
        std::fprintf(stderr, "locus: error: %s\n", locus::message_line(e.what()).c_str());
        return kUsage;
    } catch (const locus::Stopped&) {
        // A set-up phase (candidate lists, a construction) ended by the limit or a signal
        // before the run had any solution: nothing to write.
        if (locus::interrupt_requested()) {
            std::fprintf(stderr, "locus: interrupted before the first solution was built\n");
            return kInterrupted;
        }
        std::fprintf(stderr,
                     "locus: error: the time limit ended the run before its first solution was "
                     "built (the instance was still being read, or its candidate lists or "
                     "construction built); raise --time-limit or use a faster construction\n");
        return kFailure;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "locus: error: out of host memory (the instance, the batch or the "
                             "candidate lists are too large for this machine; try a smaller "
                             "batch)\n");
        return kFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locus: error: %s\n", locus::message_line(e.what()).c_str());
        return kFailure;
    }
    return kUsage;
}
