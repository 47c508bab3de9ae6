"""The launcher's experiment and report commands, run as `locus` runs them."""

import os
import subprocess

from . import _locus

__all__ = ["launcher", "experiment", "report"]


def launcher():
    """Path of the `locus` launcher of this package (its plugins are the package's)."""
    path = os.path.join(_locus.program_directory(), "locus")
    if not os.path.isfile(path):
        raise _locus.PluginError(f"the locus launcher is missing: {path}")
    return path


def _run(arguments, check):
    completed = subprocess.run([launcher()] + arguments, capture_output=True, text=True)
    if check and completed.returncode != 0:
        message = completed.stderr.strip().splitlines()
        raise _locus.Error(message[-1] if message else
                           f"locus {arguments[0]} failed with status {completed.returncode}")
    return completed


def experiment(spec, out="experiment", *, jobs=1, gpus=None, shard=None, dry_run=False,
               force=False, plugin_path=(), check=True):
    """`locus experiment SPEC --out OUT`: runs the spec's runs not yet recorded in OUT and
    returns the path of OUT/results.jsonl. locus.Error with the launcher's message when it
    fails (``check=False``: the CompletedProcess instead)."""
    arguments = ["experiment", os.fspath(spec), "--out", os.fspath(out), "--jobs", str(jobs)]
    if gpus is not None:
        arguments += ["--gpus", str(gpus)]
    if shard is not None:
        arguments += ["--shard", shard]
    if dry_run:
        arguments.append("--dry-run")
    if force:
        arguments.append("--force")
    for path in plugin_path:
        arguments += ["--plugin-path", os.fspath(path)]
    completed = _run(arguments, check)
    return os.path.join(os.fspath(out), "results.jsonl") if check else completed


def report(*inputs, out="report", plots=None, check=True):
    """`locus report INPUT... --out OUT`: tables (report.md, report.csv) of results files or
    experiment directories; returns the path of OUT/report.md. ``plots`` True requires the
    plots, False skips them."""
    arguments = ["report"] + [os.fspath(i) for i in inputs] + ["--out", os.fspath(out)]
    if plots is True:
        arguments.append("--plots")
    elif plots is False:
        arguments.append("--no-plots")
    completed = _run(arguments, check)
    return os.path.join(os.fspath(out), "report.md") if check else completed
