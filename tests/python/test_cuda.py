"""The GPU from Python: the same result as the CLI and as the CPU twin (skipped without a
CUDA device; run by scripts/gpu-check)."""

import json

import numpy as np
import pytest

import locus
from files import write_cvrplib

pytestmark = pytest.mark.skipif(
    locus._locus.cuda_devices() == 0,
    reason=f"no CUDA device ({locus._locus.cuda_unavailable_reason()})")


def test_cuda_solve_matches_the_cli_and_the_cpu(run_cli, tmp_path):
    rng = np.random.default_rng(21)
    n = 200
    xy = rng.integers(0, 1000, size=(n, 2))
    demands = np.concatenate(([0], rng.integers(1, 20, size=n - 1)))
    write_cvrplib(tmp_path / "g200.vrp", "g200", xy, demands, 100)
    run_cli("run", "configs/dcvrp/best.yaml", "-q", "--instance", tmp_path / "g200.vrp",
            "--backend", "cuda", "--seed", "5", "--out", tmp_path / "cli",
            "--set", "termination.iterations=40", "--set", "termination.time_limit=0")
    line = json.loads((tmp_path / "cli" / "results.jsonl").read_text().splitlines()[0])
    model = locus.CVRP(xy, demands=demands, capacity=100, name="g200")
    cuda = locus.solve(model, "configs/dcvrp/best.yaml", backend="cuda", seed=5, iterations=40,
                       time_limit=0)
    assert cuda.backend == "cuda" and line["backend"] == "cuda"
    assert cuda.objective == line["objective"] and cuda.evaluations == line["evaluations"]
    assert cuda.solution == model.read_solution(line["solution_file"])
    cpu = locus.solve(model, "configs/dcvrp/best.yaml", backend="cpu", seed=5, iterations=40,
                      time_limit=0, overrides={"batch": cuda.line["batch"]})
    assert cpu.objective == cuda.objective and cpu.solution == cuda.solution
