"""Solving in process: the same results as the CLI, callbacks, Ctrl-C, the GIL, errors."""

import json
import os
import signal
import threading
import time

import numpy as np
import pytest

import locus
from files import write_cvrplib, write_qaplib, write_tsplib


def cli_result(run_cli, tmp_path, config, instance, *sets):
    out = tmp_path / "cli"
    arguments = ["run", config, "-q", "--instance", instance, "--backend", "cpu", "--seed", "7",
                 "--out", out]
    for item in sets:
        arguments += ["--set", item]
    run_cli(*arguments)
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def check_same(model, result, line):
    assert result.feasible and line["feasible"]
    assert result.objective == line["objective"]
    assert result.iterations == line["iterations"] and result.evaluations == line["evaluations"]
    assert result.stop_reason == line["stop_reason"] == "iterations"
    encoded_cli = model.encode(model.read_solution(line["solution_file"]))
    np.testing.assert_array_equal(model.encode(result.solution), encoded_cli)
    assert model.evaluate(result.solution) == result.objective


def test_tsp_from_arrays_solves_as_the_cli(run_cli, tmp_path):
    rng = np.random.default_rng(11)
    xy = rng.integers(0, 10000, size=(200, 2))
    write_tsplib(tmp_path / "pts200.tsp", "pts200", xy)
    sets = ["termination.iterations=40", "termination.time_limit=0", "threads=2"]
    line = cli_result(run_cli, tmp_path, "configs/tsp/ils.yaml", tmp_path / "pts200.tsp", *sets)
    model = locus.TSP(xy, name="pts200")
    result = locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", seed=7, iterations=40,
                         time_limit=0, overrides={"threads": 2})
    check_same(model, result, line)
    assert result.backend == "cpu" and result.seed == 7
    assert len(result.trace["objective"]) >= 2
    assert np.all(np.diff(result.trace["objective"]) < 0)
    assert result.trace["objective"][-1] == result.objective
    result.write(tmp_path / "best.tour")
    assert model.read_solution(tmp_path / "best.tour").tolist() == list(result.solution)


def test_cvrp_from_arrays_solves_as_the_cli(run_cli, tmp_path):
    rng = np.random.default_rng(12)
    n = 200
    xy = rng.integers(0, 1000, size=(n, 2))
    demands = np.concatenate(([0], rng.integers(1, 20, size=n - 1)))
    write_cvrplib(tmp_path / "c200.vrp", "c200", xy, demands, 100)
    sets = ["termination.iterations=30", "termination.time_limit=0", "threads=2", "batch=8"]
    line = cli_result(run_cli, tmp_path, "configs/dcvrp/best.yaml", tmp_path / "c200.vrp", *sets)
    model = locus.CVRP(xy, demands=demands, capacity=100, name="c200")
    result = locus.solve(model, "configs/dcvrp/best.yaml", backend="cpu", seed=7,
                         iterations=30, time_limit=0, overrides={"threads": 2, "batch": 8})
    check_same(model, result, line)
    assert sorted(c for route in result.solution for c in route) == list(range(1, n))
    assert all(demands[route].sum() <= 100 for route in result.solution)


def test_qap_from_arrays_solves_as_the_cli(run_cli, tmp_path):
    rng = np.random.default_rng(13)
    a, b = rng.integers(0, 50, size=(2, 25, 25))
    write_qaplib(tmp_path / "q25.dat", a, b)
    sets = ["termination.iterations=50", "termination.time_limit=0", "threads=2"]
    line = cli_result(run_cli, tmp_path, "configs/qap/ils.yaml", tmp_path / "q25.dat", *sets)
    model = locus.QAP(a, b, name="q25")
    result = locus.solve(model, "configs/qap/ils.yaml", backend="cpu", seed=7, iterations=50,
                         time_limit=0, overrides={"threads": 2})
    check_same(model, result, line)


def test_file_model_and_dict_config_and_gap(root):
    model = locus.read(root / "data/tsplib/berlin52.tsp")
    config = {"problem": {"name": "tsp", "instance": "unused"},
              "construction": "nearest_neighbor",
              "algorithm": {"name": "ils", "local_search": {"name": "vnd", "neighborhoods": [
                  {"name": "two_opt", "candidates": 10}, {"name": "or_opt", "candidates": 10}]},
                  "perturbation": {"name": "double_bridge", "window": 50},
                  "acceptance": "better"},
              "termination": {"iterations": 2000, "target_gap": 0}}
    result = locus.solve(model, config, backend="cpu", seed=1)
    assert result.line["best_known"] == 7542  # from data/best-known.csv
    assert result.gap == pytest.approx(100.0 * (result.objective - 7542) / 7542)
    assert result.stop_reason in ("target", "iterations")
    given = locus.TSP(np.random.default_rng(0).integers(0, 100, size=(52, 2)),
                      best_known=100.0)
    assert locus.solve(given, config, backend="cpu", seed=1, iterations=5).line["best_known"] == 100


def test_callback_sees_improvements_and_stops_the_run():
    rng = np.random.default_rng(14)
    model = locus.TSP(rng.integers(0, 10000, size=(300, 2)))
    seen = []

    def callback(improvement):
        assert isinstance(improvement, locus.Improvement)
        assert model.evaluate(improvement.solution) == improvement.objective
        seen.append(improvement.objective)
        return len(seen) == 5

    result = locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", seed=3,
                         iterations=100000, time_limit=0, callback=callback)
    assert len(seen) == 5 and result.stop_reason == "interrupted"
    assert result.iterations < 100000 and result.objective == seen[-1]
    np.testing.assert_array_equal(result.trace["objective"], seen)
    # The stop request ends with the job: reading and the next run are not stopped by it.
    assert locus.read("data/tsplib/d1291.tsp").size == 1291
    again = locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", seed=3, iterations=20,
                        time_limit=0)
    assert again.stop_reason == "iterations"


def test_callback_exception_is_raised():
    model = locus.TSP(np.random.default_rng(15).integers(0, 1000, size=(100, 2)))

    def callback(improvement):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", iterations=1000,
                    time_limit=0, callback=callback)


def test_ctrl_c_returns_the_best_so_far():
    model = locus.TSP(np.random.default_rng(16).integers(0, 100000, size=(2000, 2)))
    timer = threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    try:
        result = locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", time_limit=120)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 100
    assert result.stop_reason == "interrupted" and result.interrupted
    assert result.feasible and model.evaluate(result.solution) == result.objective
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_gil_is_released_while_searching():
    model = locus.TSP(np.random.default_rng(17).integers(0, 100000, size=(1000, 2)))
    done = []
    thread = threading.Thread(target=lambda: done.append(locus.solve(
        model, "configs/tsp/ils.yaml", backend="cpu", time_limit=3)))
    thread.start()
    ticks = 0
    while thread.is_alive():
        ticks += 1
        time.sleep(0.01)
    thread.join()
    assert done and done[0].feasible
    assert ticks >= 20


def test_job_errors_raise_the_launchers_message(run_cli):
    model = locus.TSP(np.random.default_rng(18).integers(0, 1000, size=(20, 2)))
    with pytest.raises(locus.ConfigError) as error:
        locus.solve(model, "configs/tsp/ils.yaml", overrides={"algorithm.nonsense": 1})
    cli = run_cli("run", "configs/tsp/ils.yaml", "--set", "algorithm.nonsense=1",
                  check=False)
    assert cli.returncode == 2
    assert str(error.value) in cli.stderr
    with pytest.raises(locus.InstanceError, match="model 'model' is a tsp model, not a dcvrp one"):
        locus.solve(model, "configs/dcvrp/best.yaml", iterations=1)
    with pytest.raises(TypeError):
        locus.solve("data/tsplib/berlin52.tsp")
    with pytest.raises(locus.ConfigError):
        locus.solve(model, "configs/tsp/ils.yaml", backend="gpu")


def test_results_files_and_report(tmp_path):
    model = locus.TSP(np.random.default_rng(19).integers(0, 1000, size=(50, 2)), name="r50")
    result = locus.solve(model, "configs/tsp/ils.yaml", backend="cpu", iterations=10,
                         time_limit=0, out=tmp_path / "runs")
    line = json.loads((tmp_path / "runs" / "results.jsonl").read_text().splitlines()[0])
    assert line["objective"] == result.objective and line["instance"] == "r50"
    report = locus.report(tmp_path / "runs" / "results.jsonl", out=tmp_path / "report",
                          plots=False)
    assert "r50" in open(report).read()


def test_plots_return_figures():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    rng = np.random.default_rng(20)
    xy = rng.uniform(0, 100, size=(40, 2))
    model = locus.CVRP(xy, demands=[0] + [1] * 39, capacity=10)
    result = locus.solve(model, "configs/dcvrp/best.yaml", backend="cpu", iterations=5,
                         time_limit=0, overrides={"batch": 4})
    figure = locus.plots.routes(model, result.solution)
    assert len(figure.axes[0].lines) == len(result.solution) + 2
    figure = locus.plots.convergence(result)
    assert figure.axes[0].get_xlabel() == "time (s)"
    figure = locus.plots.tour(xy, rng.permutation(40))
    assert len(figure.axes[0].lines) == 2
    with pytest.raises(ValueError, match="no coordinates"):
        locus.plots.tour(locus.TSP(matrix=np.ones((3, 3)) - np.eye(3)), [0, 1, 2])


def test_experiment_and_its_errors(root, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(f"name: tiny\nconfigs:\n  - file: {root}/configs/tsp/ils.yaml\n"
                    "    set: [termination.iterations=5, termination.time_limit=0]\n"
                    "instances: ['random-uniform:n=60,seed=1']\nseeds: 2\nbackends: [cpu]\n")
    results = locus.experiment(spec, tmp_path / "exp")
    lines = [json.loads(t) for t in open(results).read().splitlines()]
    assert sorted(line["seed"] for line in lines) == [1, 2]
    assert all(line["feasible"] and line["iterations"] == 5 for line in lines)
    report = locus.report(tmp_path / "exp", out=tmp_path / "report", plots=False)
    assert "random-uniform:n=60,seed=1" in open(report).read()
    with pytest.raises(locus.Error, match="no-such-spec.yaml"):
        locus.experiment(tmp_path / "no-such-spec.yaml", tmp_path / "exp2")


def test_initial_solution_starts_the_search():
    rng = np.random.default_rng(22)
    xy = rng.integers(0, 1000, size=(120, 2))
    model = locus.CVRP(xy, demands=np.concatenate(([0], rng.integers(1, 10, size=119))),
                       capacity=50)
    first = locus.solve(model, backend="cpu", iterations=20, time_limit=0, overrides={"batch": 4})
    again = locus.solve(model, backend="cpu", iterations=3, time_limit=0, overrides={"batch": 4},
                        initial=first.solution)
    # The batch starts from the given solution: the first recorded best is no worse than it.
    assert again.trace["objective"][0] <= first.objective
    assert again.objective <= first.objective
    alone = [[c] for c in range(1, 120)]
    start = model.evaluate(alone)
    from_alone = locus.solve(model, backend="cpu", iterations=1, time_limit=0,
                             overrides={"batch": 4}, initial=alone)
    assert from_alone.trace["objective"][0] == start
    with pytest.raises(locus.InstanceError, match="infeasible solution: customer 3 is not visited"):
        locus.solve(model, backend="cpu", iterations=1, initial=[[1, 2]])
