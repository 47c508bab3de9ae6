"""Solving a model in process: ``solve`` runs a job as ``locus run`` does."""

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field

import numpy as np

from . import _locus
from .models import Model

__all__ = ["solve", "Result", "Improvement"]


@dataclass(frozen=True)
class Improvement:
    """One improvement of a run's best solution, as the callback of ``solve`` sees it."""

    run: int
    time_s: float
    iteration: int
    evaluations: int
    objective: float
    feasible: bool
    solution: object  # natural form (tour, routes, permutation)


@dataclass
class Result:
    """A finished run: the figures of its results line (docs/results-format.md), its best
    solution and its trace of improvements.

    ``trace`` holds equal-length arrays ``time_s``, ``iteration``, ``evaluations``,
    ``objective``, ``feasible``. ``line`` is the whole results line; ``runs`` lists the
    Result of every run of the job (``repeat`` jobs have several; this one is the best)."""

    objective: float
    gap: float
    feasible: bool
    stop_reason: str
    time_to_best_s: float
    total_time_s: float
    iterations: int
    evaluations: int
    backend: str
    device: str
    seed: int
    run: int
    solution: object = field(repr=False)
    encoded: np.ndarray = field(repr=False)
    trace: dict = field(repr=False)
    line: dict = field(repr=False)
    model: Model = field(repr=False)
    problem: object = field(repr=False, default=None)  # the job's loaded problem
    runs: list = field(default_factory=list, repr=False)
    interrupted: bool = False

    def write(self, path):
        """Writes the best solution in the problem's standard format (.tour, .sol, .sln)."""
        (self.problem or self.model._handle).write(os.fspath(path), self.encoded)


def _config_arguments(config):
    """(path, text) of a config given as a file path or a dict (a YAML mapping)."""
    if isinstance(config, dict):
        return None, json.dumps(config)  # JSON is YAML
    if not isinstance(config, (str, os.PathLike)):
        raise TypeError(f"config must be a file path or a dict, got {type(config).__name__}")
    path = os.fspath(config)
    if os.path.exists(path):
        return path, None
    # A config of the package (share/locus/configs) or of the source tree it was built from.
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.path.join(here, "share", "locus"), _locus.source_dir):
        for candidate in (os.path.join(root, path), os.path.join(root, "configs", path)):
            if os.path.isfile(candidate):
                return candidate, None
    return path, None  # the launcher reports the missing file


def _value_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def _result(model, line, run, interrupted):
    encoded = run["solution"]
    trace = run["trace"]
    return Result(
        objective=line["objective"], gap=line["gap"], feasible=line["feasible"],
        stop_reason=line["stop_reason"], time_to_best_s=line["time_to_best_s"],
        total_time_s=line["total_time_s"], iterations=line["iterations"],
        evaluations=line["evaluations"], backend=line["backend"], device=line["device"],
        seed=line["seed"], run=line["run"],
        solution=model.decode(encoded) if run["has_solution"] else None, encoded=encoded,
        trace={"time_s": trace[:, 0], "iteration": trace[:, 1].astype(np.int64),
               "evaluations": trace[:, 2].astype(np.int64), "objective": trace[:, 3],
               "feasible": trace[:, 4].astype(bool)},
        line=line, model=model, interrupted=interrupted)


# The config each problem is solved with when none is given.
DEFAULT_CONFIGS = {"tsp": "configs/tsp/resident-ils.yaml", "qap": "configs/qap/resident-ils.yaml",
                   "dcvrp": "configs/dcvrp/best.yaml"}
TIME_WINDOW_CONFIG = "configs/vrptw/best.yaml"


def solve(model, config=None, *, backend="auto", time_limit=None,
          seed=None, iterations=None, overrides=None, callback=None, initial=None, out=None,
          quiet=True, plugin_path=()):
    """Solves ``model`` with ``config`` (a YAML file, or a dict of the same structure) and
    returns the Result of its best run. Without ``config``: DEFAULT_CONFIGS of the model's
    problem (configs/vrptw/best.yaml for a routing model with time windows).

    ``backend`` (auto, cpu, cuda), ``time_limit`` (seconds, loading included), ``seed`` and
    ``iterations`` set the config's ``backend``, ``termination.time_limit``, ``seed`` and
    ``termination.iterations``; ``overrides`` maps other config keys to values
    (``{"batch": 16, "algorithm.population": 32}``), as ``locus run --set`` does. The model is
    the job's ``problem.instance``.

    ``callback(improvement)`` is called with each Improvement of a best solution, in the
    thread that runs ``solve``; a true return value stops the run (stop_reason
    "interrupted"), and an exception it raises stops the run and is raised by ``solve``.
    ``initial``: a feasible solution (natural form) that every solution of the batch starts
    from instead of the construction, as ``locus run --initial`` does.

    Ctrl-C stops the run the same way and ``solve`` returns its best solution
    (``result.interrupted``). The GIL is released while the search runs.

    Results files (results.jsonl, trace, solution) go to ``out``; without ``out`` to a
    temporary directory that is removed. Errors of the job (bad config, unknown names, no GPU)
    raise locus.ConfigError, InstanceError, PluginError or CudaError with the launcher's
    message; a run that ends without a feasible solution is returned with feasible False.
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a locus model (TSP, CVRP, QAP, read(...)), got "
                        f"{type(model).__name__}")
    if config is None:
        if model.problem not in DEFAULT_CONFIGS:
            raise TypeError(f"no default config for a {model.problem} model: pass config=")
        config = DEFAULT_CONFIGS[model.problem]
        if getattr(model, "has_time_windows", False):
            config = TIME_WINDOW_CONFIG
    config_path, config_text = _config_arguments(config)
    sets = [f"problem.instance={model.instance}"]
    sets += [f"problem.{k}={_value_text(v)}" for k, v in model.params.items()]
    if backend is not None:
        sets.append(f"backend={backend}")
    if time_limit is not None:
        sets.append(f"termination.time_limit={_value_text(time_limit)}")
    if iterations is not None:
        sets.append(f"termination.iterations={_value_text(iterations)}")
    if seed is not None:
        sets.append(f"seed={_value_text(seed)}")
    for key, value in (overrides or {}).items():
        sets.append(f"{key}={_value_text(value)}")
    temporary = None
    if out is None:
        temporary = tempfile.mkdtemp(prefix="locus-")
        out = temporary
    sets.append(f"output={os.fspath(out)}")

    def on_improvement(event):
        improvement = Improvement(
            run=event["run"], time_s=event["time_s"], iteration=event["iteration"],
            evaluations=event["evaluations"], objective=event["objective"],
            feasible=event["feasible"], solution=model.decode(event["solution"]))
        return bool(callback(improvement))

    try:
        initial_file = None
        if initial is not None:
            initial_file = os.path.join(out, "initial" + model.solution_extension)
            os.makedirs(out, exist_ok=True)
            model.write_solution(initial_file, initial)
        outcome = _locus.solve(config_path, config_text, sets, [os.fspath(p) for p in plugin_path],
                               model.best_known, quiet, on_improvement if callback else None,
                               initial_file)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    lines = [json.loads(text) for text in outcome["lines"]]
    results = [_result(model, line, run, outcome["interrupted"])
               for line, run in zip(lines, outcome["runs"])]
    for r in results:
        r.problem = outcome["problem"]
    if not results:
        raise _locus.Error("the job ended without a run")

    def rank(r):
        if r.objective is None:
            return (True, 0.0)
        maximize = r.line.get("objective_sense") == "maximize"
        return (not r.feasible, -r.objective if maximize else r.objective)

    best = min(results, key=rank)
    best.runs = results
    return best
