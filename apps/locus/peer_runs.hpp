#pragma once
/// \file
/// The peer solvers' runs of an experiment: the runner script and the peers' virtual
/// environment, and the results line of a finished peer run, re-checked by `locus verify`.

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "experiment_spec.hpp"

namespace locus {
class BestKnownTable;
}

namespace locus::app {

/// Where the peer runs come from: the runner script and the python of the peers' virtual
/// environment.
struct PeerTools {
    std::filesystem::path runner; ///< scripts/peers/locus_peer.py
    std::filesystem::path venv;   ///< the virtual environment (scripts/peers/install creates it)
    std::filesystem::path python() const { return venv / "bin" / "python"; }
};

/// The runner is $LOCUS_PEERS_RUNNER, else scripts/peers/locus_peer.py in the first directory
/// above the launcher (a build tree inside the source tree) or above the working directory
/// that has one; the environment is $LOCUS_PEERS_VENV, else .venv-peers beside that scripts/.
PeerTools find_peer_tools();

/// Checks that the environment has the packages of `peers`; Error naming scripts/peers/install
/// when it or one of them is missing.
void check_peers(const PeerTools& tools, const std::set<std::string>& peers);

/// Re-checks a finished peer run with `locus verify` and writes its results line to
/// `dir`/results.jsonl, as `locus run` does for its runs: objective and feasibility are those
/// of the verification, not the peer's own.
void write_peer_line(const Run& r, const std::filesystem::path& dir,
                     const std::string& instance_file,
                     const std::vector<std::filesystem::path>& plugin_paths,
                     const BestKnownTable& best);

} // namespace locus::app
