"""Models: instances built from arrays and values, or read from files."""

import os

import numpy as np

from . import _locus
from ._locus import InstanceError

__all__ = ["Model", "TSP", "CVRP", "QAP", "read"]


def _real_array(name, value, ndim):
    """`value` as a C-ordered float64 array of `ndim` axes; TypeError when it holds no numbers."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be an array of numbers ({error})") from None
    if array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension{'s' if ndim > 1 else ''}, "
                         f"got shape {array.shape}")
    return np.ascontiguousarray(array)


def _number(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    return float(value)


def _text(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return value


class Model:
    """An instance of a problem of locus, ready to solve (``locus.solve``).

    Built from data by ``TSP``, ``CVRP`` and ``QAP``, or from a file by ``read``. Its data is
    checked when it is made, by the reader of the problem plugin, with the messages the
    command line gives; a model is immutable. ``instance`` is what a config's
    ``problem.instance`` receives: ``model:<id>`` (data held in this process) or a file path.
    """

    problem = ""  # the plugin's problem name

    def __init__(self, instance, handle, *, owned, best_known=None, params=None):
        self._instance = instance
        self._handle = handle
        self._owned = owned
        self.best_known = None if best_known is None else _number("best_known", best_known)
        self.params = dict(params or {})
        self.data = {}  # the arrays and values a model was built from (none for a file)

    def _register(self, name, arrays, numbers, texts, best_known, params=None):
        """Registers the data of a new model and loads it with the plugin's checks."""
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty string")
        spec = _locus.register_model(self.problem, name, arrays, numbers, texts)
        try:
            handle = _locus.load_problem(spec, self.problem, [], _param_list(params))
        except BaseException:
            _locus.forget_model(spec)
            raise
        Model.__init__(self, spec, handle, owned=True, best_known=best_known, params=params)
        self.data = dict(arrays, **numbers, **texts)

    def __del__(self):
        if getattr(self, "_owned", False):
            _locus.forget_model(self._instance)

    def __repr__(self):
        return f"<locus.{type(self).__name__} {self.name!r}, size {self.size}>"

    @property
    def instance(self):
        """The instance spec a job names: ``model:<id>`` or the file's path."""
        return self._instance

    @property
    def name(self):
        """The instance name (results, best-known lookup)."""
        return self._handle.instance_name

    @property
    def size(self):
        """The size of the instance as the plugin counts it: cities, customers, facilities."""
        return self._handle.size

    @property
    def solution_extension(self):
        """Extension of the standard solution file (``.tour``, ``.sol``, ``.sln``)."""
        return self._handle.extension

    # Solutions: the natural form of each problem (encode/decode) and the plugin's checks.
    def encode(self, solution):
        """The plugin's encoding (int32 array) of a solution in its natural form."""
        return np.ascontiguousarray(np.asarray(solution, dtype=np.int32))

    def decode(self, encoded):
        """The natural form of an encoded solution."""
        return np.asarray(encoded, dtype=np.int64)

    def verify(self, solution):
        """``(feasible, objective, reason)``: the plugin's independent check of a solution
        (objective None and a reason when it is infeasible)."""
        return self._handle.verify(self.encode(solution))

    def evaluate(self, solution):
        """The objective of a feasible solution; InstanceError naming the reason otherwise."""
        feasible, objective, reason = self.verify(solution)
        if not feasible:
            raise InstanceError(f"{self.name}: the solution is not feasible: {reason}")
        return objective

    def write_solution(self, path, solution):
        """Writes a feasible solution in the problem's standard format."""
        self._handle.write(str(path), self.encode(solution))

    def read_solution(self, path):
        """Reads a solution file of the standard format (natural form)."""
        return self.decode(self._handle.read(str(path)))


def _param_list(params):
    out = []
    for key, value in (params or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append(f"{key}={value}")
    return out


class TSP(Model):
    """A symmetric travelling salesman instance.

    ``TSP(coordinates=xy)``: an (n, 2) array, distances by ``edge_weight_type`` (TSPLIB's
    ``EUC_2D``, the default: rounded to the nearest integer; ``CEIL_2D``, ``ATT``, ``GEO``);
    or ``TSP(matrix=d)``: an (n, n) symmetric matrix of non-negative integers.
    Solutions are tours: permutations of 0..n-1.
    """

    problem = "tsp"

    def __init__(self, coordinates=None, *, matrix=None, edge_weight_type=None, name="model",
                 best_known=None, _file=None):
        if _file is not None:
            super().__init__(*_file, owned=False, best_known=best_known)
            return
        arrays, texts = {}, {}
        if coordinates is not None:
            arrays["coordinates"] = _real_array("coordinates", coordinates, 2)
        if matrix is not None:
            arrays["matrix"] = _real_array("matrix", matrix, 2)
        if edge_weight_type is not None:
            texts["edge_weight_type"] = _text("edge_weight_type", edge_weight_type)
        self._register(name, arrays, {}, texts, best_known)


class QAP(Model):
    """A quadratic assignment instance (Koopmans-Beckmann): ``QAP(flow, distance)``, two
    (n, n) arrays of non-negative integers; a solution p puts facility i at location p[i], of
    cost sum_ij flow[i, j] * distance[p[i], p[j]]."""

    problem = "qap"

    def __init__(self, flow=None, distance=None, *, name="model", best_known=None, _file=None):
        if _file is not None:
            super().__init__(*_file, owned=False, best_known=best_known)
            return
        arrays = {}
        if flow is not None:
            arrays["flow"] = _real_array("flow", flow, 2)
        if distance is not None:
            arrays["distance"] = _real_array("distance", distance, 2)
        self._register(name, arrays, {}, {}, best_known)


class CVRP(Model):
    """A capacitated vehicle routing instance, with the options of the routing plugin
    (problem ``dcvrp``): node 0 is the depot.

    ``CVRP(coordinates=xy, demands=q, capacity=Q)`` with (n, 2) coordinates (distances
    Euclidean, ``rounding`` exact, nint or tenths) or an (n, n) symmetric ``matrix``;
    ``duration_limit`` (route travel + service time, the DCVRP), ``service_time`` (per
    customer), ``vehicles`` (0: unlimited) and ``time_windows`` ((n, 2) earliest and latest
    service start; the depot's bound the routes: a VRPTW). Solutions are lists of routes, each
    a list of customers (1..n-1) in visiting order.
    """

    problem = "dcvrp"
    _time_windows = False

    @property
    def has_time_windows(self):
        """Whether the instance has time windows (a VRPTW)."""
        return self._time_windows or "time_windows" in self.data

    def __init__(self, coordinates=None, *, demands=None, capacity=None, matrix=None,
                 duration_limit=None, service_time=None, vehicles=None, time_windows=None,
                 rounding=None, name="model", best_known=None, _file=None):
        if _file is not None:
            super().__init__(*_file, owned=False, best_known=best_known)
            return
        arrays, numbers, texts = {}, {}, {}
        if coordinates is not None:
            arrays["coordinates"] = _real_array("coordinates", coordinates, 2)
        if matrix is not None:
            arrays["matrix"] = _real_array("matrix", matrix, 2)
        if demands is not None:
            arrays["demands"] = _real_array("demands", demands, 1)
        if time_windows is not None:
            arrays["time_windows"] = _real_array("time_windows", time_windows, 2)
        for key, value in (("capacity", capacity), ("duration_limit", duration_limit),
                           ("service_time", service_time), ("vehicles", vehicles)):
            if value is not None:
                numbers[key] = _number(key, value)
        if rounding is not None:
            texts["rounding"] = _text("rounding", rounding)
        self._register(name, arrays, numbers, texts, best_known)

    def encode(self, solution):
        """Routes to the plugin's giant tour: each route after a depot marker 0, padded with
        markers to 2(n - 1) entries."""
        width = self._handle.solution_width
        tour = []
        for route in solution:
            tour.append(0)
            tour.extend(int(c) for c in route)
        if len(tour) < width:
            tour.extend([0] * (width - len(tour)))
        return np.asarray(tour, dtype=np.int32)

    def decode(self, encoded):
        routes, current = [], None
        for v in np.asarray(encoded).tolist():
            if v == 0:
                if current:
                    routes.append(current)
                current = []
            else:
                current = (current if current is not None else []) + [v]
        if current:
            routes.append(current)
        return routes


_CLASSES = {"tsp": TSP, "qap": QAP, "dcvrp": CVRP}


def read(path, problem=None, *, best_known=None, plugin_path=(), **params):
    """The instance of a file (TSPLIB .tsp, CVRPLIB .vrp, VRPTW, Solomon, QAPLIB .dat, ...),
    found through the data path as ``locus run`` finds it; ``problem`` by the extension
    unless given; ``params`` are the problem's parameters (e.g. ``rounding="nint"``)."""
    path = str(path)
    found = _locus.find_data_file(path)
    if found is not None:
        path = os.path.abspath(found)
    handle = _locus.load_problem(path, problem or "", [str(p) for p in plugin_path],
                                 _param_list(params))
    cls = _CLASSES.get(handle.problem_name)
    if cls is None:
        model = Model(path, handle, owned=False, best_known=best_known, params=params)
        model.problem = handle.problem_name
        return model
    model = cls(_file=(path, handle), best_known=best_known)
    model.params = dict(params)
    if cls is CVRP:
        model._time_windows = _has_time_windows(path)
    return model


def _has_time_windows(spec):
    """Whether a routing instance file (or generator spec) has time windows: a VRPTW file
    (TIME_WINDOW_SECTION), a Solomon file (its VEHICLE line) or random-vrptw."""
    if spec.startswith("random-vrptw:"):
        return True
    try:
        with open(spec, errors="replace") as f:
            return any(line.strip() in ("VEHICLE", "TIME_WINDOW_SECTION") for line in f)
    except OSError:
        return False
