// The peer solvers' runs of an experiment (see peer_runs.hpp).

#include "peer_runs.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launcher.hpp"
#include "locus/build_info.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/search_context.hpp"
#include "locus/text.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The CPU's model name, as `locus run` describes a CPU run's device.
std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

/// Runs `argv` (argv[0] an executable path) to its end; returns its exit status (kInterrupted
/// when a signal ended it) and what it wrote on stdout and stderr together.
std::pair<int, std::string> capture(const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe(fds) != 0) throw Error("cannot start a child process: pipe failed");
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (std::string& a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw Error("cannot start a child process: fork failed");
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::dup2(fds[1], STDOUT_FILENO);
        ::dup2(fds[1], STDERR_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "cannot run '%s'\n", argv[0]);
        std::_Exit(127);
    }
    ::close(fds[1]);
    std::string output;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
        if (got > 0) {
            output.append(buffer, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return {WIFEXITED(status) ? WEXITSTATUS(status) : kInterrupted, output};
}

/// Objectives are exact integers for integer problems: written as integers then (as `locus
/// run` writes them).
nlohmann::json as_number(double value) {
    if (value == static_cast<double>(static_cast<long long>(value)) && std::abs(value) < 9.0e15)
        return static_cast<long long>(value);
    return value;
}

/// What the peer runner wrote of run `r` into `dir`/peer.json (Error when it wrote nothing
/// readable).
nlohmann::json peer_summary(const Run& r, const fs::path& dir) {
    nlohmann::json summary;
    try {
        summary = nlohmann::json::parse(read_text_file(dir / "peer.json", "peer summary"), nullptr,
                                        false);
    } catch (const InstanceError&) {
        summary = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    if (summary.is_discarded() || !summary.is_object())
        throw Error(fmt::format("peer run '{}' left no summary in '{}' (see its peer.log)", r.key(),
                                (dir / "peer.json").string()));
    return summary;
}

/// Re-checks the peer's `solution` file with `locus verify` (its output kept in
/// `dir`/verify.txt) and sets the results line's feasibility, objective, gap and instance name
/// from it; returns the best-known value when the solution is feasible and one is known.
std::optional<double> verify_peer_solution(nlohmann::json& line, const Run& r, const fs::path& dir,
                                           const std::string& instance_file,
                                           const std::string& solution,
                                           const std::vector<fs::path>& plugin_paths,
                                           const BestKnownTable& best) {
    std::vector<std::string> args{"/proc/self/exe", "verify",     "--instance",
                                  instance_file,    "--solution", solution};
    for (const fs::path& p : plugin_paths) {
        args.push_back("--plugin-path");
        args.push_back(p.string());
    }
    const auto [code, output] = capture(args);
    std::ofstream(dir / "verify.txt") << output;
    std::string text = output.substr(0, output.find('\n'));
    line["solution_file"] = solution;
    line["verify"] = text;
    if (code == kOk && text.starts_with("feasible: objective ")) {
        // "feasible: objective V (FILE on NAME)"
        const std::string value = text.substr(20, text.find(' ', 20) - 20);
        const double objective = std::stod(value);
        const auto on = text.rfind(" on ");
        if (on != std::string::npos && text.back() == ')')
            line["instance"] = text.substr(on + 4, text.size() - on - 5);
        line["feasible"] = true;
        line["objective"] = as_number(objective);
        const std::optional<double> known = best.lookup(line["instance"].get<std::string>());
        if (known) line["gap"] = gap_percent(objective, *known);
        return known;
    }
    if (code == kInfeasible && text.starts_with("infeasible: ")) {
        line["infeasible_reason"] = text.substr(12);
        return std::nullopt;
    }
    throw Error(fmt::format("peer run '{}': locus verify failed (exit status {}): {}", r.key(),
                            code, text));
}

/// What the peer said of its run, beside the verified figures: its objective (recomputed
/// from its solution) and its own cost, the integer scale of real distances, its fleet, the
/// instance's constraints and those it lacks, how it limits time and takes the seed.
void add_peer_facts(nlohmann::json& line, const nlohmann::json& summary) {
    const std::pair<const char*, const char*> copied[] = {{"objective", "peer_objective"},
                                                          {"peer_cost", "peer_cost"},
                                                          {"scale", "peer_scale"},
                                                          {"fleet", "peer_fleet"},
                                                          {"rounding", "rounding"},
                                                          {"constraints", "constraints"},
                                                          {"unsupported", "peer_unsupported"},
                                                          {"time_limit_kind", "peer_time_limit"},
                                                          {"time_limit_clock", "peer_time_clock"},
                                                          {"seed_use", "peer_seed"},
                                                          {"options", "peer_options"},
                                                          {"status", "peer_status"}};
    for (const auto& [from, to] : copied)
        if (summary.contains(from)) line[to] = summary[from];
}

/// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return stamp;
}

} // namespace

PeerTools find_peer_tools() {
    PeerTools tools;
    const fs::path relative = fs::path("scripts") / "peers" / "locus_peer.py";
    fs::path root;
    if (const char* runner = std::getenv("LOCUS_PEERS_RUNNER"); runner && *runner) {
        tools.runner = fs::absolute(runner);
        root = tools.runner.parent_path().parent_path().parent_path();
    } else {
        std::error_code ec;
        const fs::path exe = fs::canonical("/proc/self/exe", ec);
        for (const fs::path& start : {exe.parent_path(), fs::current_path()}) {
            for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
                if (fs::exists(dir / relative)) {
                    root = dir;
                    break;
                }
                if (dir == dir.root_path()) break;
            }
            if (!root.empty()) break;
        }
        if (root.empty())
            throw Error(fmt::format("peer runs need {} of the locus source tree, found neither "
                                    "above '{}' nor above '{}'; set LOCUS_PEERS_RUNNER to it",
                                    relative.string(), exe.parent_path().string(),
                                    fs::current_path().string()));
        tools.runner = root / relative;
    }
    const char* venv = std::getenv("LOCUS_PEERS_VENV");
    tools.venv = venv && *venv ? fs::absolute(venv) : root / ".venv-peers";
    return tools;
}

void check_peers(const PeerTools& tools, const std::set<std::string>& peers) {
    if (::access(tools.python().c_str(), X_OK) != 0)
        throw Error(fmt::format("peer runs need the peers' virtual environment, and '{}' has none "
                                "(no {}); create it with scripts/peers/install (or point "
                                "LOCUS_PEERS_VENV at one)",
                                tools.venv.string(), tools.python().string()));
    std::vector<std::string> args{tools.python().string(), tools.runner.string(), "check"};
    args.insert(args.end(), peers.begin(), peers.end());
    const auto [code, output] = capture(args);
    if (code != 0) {
        std::string text = output;
        while (!text.empty() && text.back() == '\n')
            text.pop_back();
        if (const auto at = text.rfind("locus_peer: error: "); at != std::string::npos)
            text = text.substr(at + 19);
        throw Error(fmt::format("the peers' environment {} is not ready: {}", tools.venv.string(),
                                text.empty() ? "its check failed" : text));
    }
}

void write_peer_line(const Run& r, const fs::path& dir, const std::string& instance_file,
                     const std::vector<fs::path>& plugin_paths, const BestKnownTable& best) {
    const nlohmann::json summary = peer_summary(r, dir);
    nlohmann::json line;
    line["problem"] = summary.value("problem", std::string());
    line["instance"] = summary.value("instance", std::string());
    line["name"] = r.peer;
    line["algorithm"] = r.peer;
    line["peer"] = r.peer;
    line["peer_version"] = summary.value("peer_version", std::string());
    line["backend"] = "cpu";
    line["device"] = fmt::format("{} (1 threads)", cpu_model());
    line["seed"] = r.seed;
    line["run"] = 0;
    line["batch"] = 1;
    line["threads"] = 1;
    line["stop_reason"] = "time_limit";
    for (const char* key : {"time_to_best_s", "total_time_s", "cpu_time_s", "load_time_s",
                            "time_limit_s", "iterations"})
        line[key] = summary.contains(key) ? summary[key] : nlohmann::json();
    line["evaluations"] = nullptr;
    line["feasible"] = false;
    line["objective"] = nullptr;
    line["gap"] = nullptr;
    line["solution_file"] = nullptr;
    const nlohmann::json solution = summary.value("solution_file", nlohmann::json());
    std::optional<double> known;
    if (!solution.is_string())
        line["infeasible_reason"] = fmt::format("{} found no solution", r.peer);
    else
        known = verify_peer_solution(line, r, dir, instance_file, solution.get<std::string>(),
                                     plugin_paths, best);
    if (!known) known = best.lookup(line["instance"].get<std::string>());
    line["best_known"] = known ? as_number(*known) : nlohmann::json();
    line["best_known_source"] = known ? best.source().string() : "";
    line["trace_file"] = nullptr;
    line["config_file"] = r.config;
    line["config_hash"] = "";
    add_peer_facts(line, summary);
    line["peer_summary_file"] = (dir / "peer.json").string();
    line["version"] = LOCUS_VERSION;
    line["git_revision"] = LOCUS_GIT_REVISION;
    line["build_id"] = LOCUS_BUILD_ID;
    line["timestamp"] = utc_timestamp();
    std::ofstream out(dir / "results.jsonl", std::ios::app);
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out) throw Error(fmt::format("cannot write '{}'", (dir / "results.jsonl").string()));
}

} // namespace locus::app
