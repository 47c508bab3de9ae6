"""locus: GPU-accelerated local search, from Python.

Models are built from arrays (``TSP``, ``CVRP``, ``QAP``) or read from files (``read``), solved
in process with a YAML config (``solve``) exactly as ``locus run`` solves them, and the results
come back as objects (``Result``). See docs/python.md.
"""

import os as _os

from . import _locus
from ._locus import (ConfigError, CudaError, Error, InstanceError,  # noqa: F401
                     NotImplementedInLocus, PluginError)


def _launcher_directory():
    # NOTE: an installed package holds the launcher, the core and the plugins (bin/, lib/);
    # a package in a build tree uses the build's bin/ directory.
    here = _os.path.dirname(_os.path.abspath(__file__))
    installed = _os.path.join(here, "bin")
    if _os.path.isfile(_os.path.join(installed, "locus")):
        return installed
    return _locus.build_bin_dir


_locus.set_program_directory(_launcher_directory())

__version__ = _locus.version

from .models import CVRP, QAP, TSP, Model, read  # noqa: E402,F401
from .solving import Improvement, Result, solve  # noqa: E402,F401
from .commands import experiment, launcher, report  # noqa: E402,F401
from . import plots  # noqa: E402,F401

__all__ = ["TSP", "CVRP", "QAP", "Model", "read", "solve", "Result", "Improvement",
           "experiment", "report", "launcher", "plots", "Error", "ConfigError", "InstanceError",
           "PluginError", "CudaError", "NotImplementedInLocus"]
