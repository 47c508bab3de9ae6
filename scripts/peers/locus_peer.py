#!/usr/bin/env python3
"""Peer solvers of locus: LKH-3 (elkai), HGS-CVRP (hygese), PyVRP and OR-Tools routing.

Run by the python of the peers' virtual environment (scripts/peers/install):

  locus_peer.py run PEER INSTANCE --time-limit S --seed N --out DIR [--set KEY=VALUE ...]
  locus_peer.py check [PEER ...]     versions of the installed peers (exit 3 naming a missing one)
  locus_peer.py describe             what each peer models, as JSON

`run` reads a TSPLIB .tsp or CVRPLIB .vrp file, builds the distance matrix the way the locus
launcher does (TSP: EUC_2D nint, CEIL_2D, ATT, GEO, EXPLICIT; CVRP: real Euclidean distances,
TSPLIB nint rounding for the sets X, A, B, E, F, M and P and the Belgium instances, as dcvrp's
rounding 'auto', so that `locus verify` finds the Cost line of its .sol true), runs the
peer with the seed under the wall-clock limit (counted from the start of this script, loading
included), and writes into DIR:

  best.tour (TSP) or best.sol (CVRP)   the peer's solution in the format `locus verify` reads
  peer.json                            the run's summary (peer, version, objective as the peer
                                       computed it, times, integer scale, unsupported constraints)

Exit status: 0 when the peer ran (whether or not it found a solution), 2 when the peer cannot
model the instance or an argument is wrong, 3 when a peer package is missing, 1 otherwise.
"""

import os
import time

# The budget counts from here (imports and loading included), or from the start of the process
# that re-executed this one with the wall clock preloaded (see _with_wall_clock).
_STARTED = float(os.environ.get("LOCUS_PEER_STARTED", time.monotonic()))

import argparse
import importlib
import json
import math
import re
import resource
import sys

PACKAGES = {"lkh3": "elkai", "hgs": "hygese", "pyvrp": "pyvrp", "ortools": "ortools"}
MODULES = {"lkh3": "elkai", "hgs": "hygese", "pyvrp": "pyvrp",
           "ortools": "ortools.constraint_solver.pywrapcp"}

# What each peer models. 'problems': the locus problems it solves; 'models': the constraints of
# those problems it takes; 'lacks': those it does not (an instance needing one is refused);
# 'integer': whether it needs integer distances (real-valued instances are then scaled).
CAPABILITIES = {
    "lkh3": {
        "package": "elkai",
        "problems": ["tsp"],
        "models": ["EUC_2D", "CEIL_2D", "ATT", "GEO", "EXPLICIT"],
        "lacks": [],
        "integer": True,
        "time_limit": "LKH TIME_LIMIT and TOTAL_TIME_LIMIT (clock(): wall seconds with the "
                      "preloaded wall clock)",
        "seed": "LKH SEED",
        "time_to_best": "not reported (elkai returns the final tour only)",
    },
    "hgs": {
        "package": "hygese",
        "problems": ["dcvrp"],
        "models": ["capacity", "duration limit (DISTANCE)", "service time", "fleet size",
                   "real distances"],
        "lacks": [],
        "integer": False,
        "time_limit": "HGS timeLimit (clock(): wall seconds with the preloaded wall clock)",
        "seed": "HGS seed",
        "time_to_best": "from HGS's trace, every nbIterTraces (100) iterations",
    },
    "pyvrp": {
        "package": "pyvrp",
        "problems": ["dcvrp"],
        "models": ["capacity", "duration limit (shift_duration)", "service time",
                   "fleet size"],
        "lacks": [],
        "integer": True,
        "time_limit": "MaxRuntime (wall seconds) on the iterated local search",
        "seed": "solve(seed=...)",
        "time_to_best": "on_best callback of the iterated local search",
    },
    "ortools": {
        "package": "ortools",
        "problems": ["tsp", "dcvrp"],
        "models": ["capacity (dimension)", "duration limit (dimension)", "service time",
                   "fleet size (a fixed fleet: VEHICLES, else a bound)"],
        "lacks": [],
        "integer": True,
        "time_limit": "RoutingSearchParameters.time_limit (wall seconds)",
        "seed": "none: guided local search is deterministic; the seed is recorded only",
        "time_to_best": "AtSolutionCallback (each improving solution)",
    },
}

# Real-valued instances (CMT, Golden) become integers for peers that need them: distances are
# multiplied by SCALE and rounded; durations are rounded up and the limit down, so that a route
# the peer finds within its integer limit is within the real limit too.
SCALE = 10000

ROUNDED_SETS = ("X-", "A-", "B-", "E-", "F-", "M-", "P-",
                "Leuven", "Antwerp", "Ghent", "Brussels", "Flanders")


class Refusal(Exception):
    """The peer cannot model this instance or an argument is wrong (exit status 2)."""


class Missing(Exception):
    """A peer package is not installed (exit status 3)."""


# ---------------------------------------------------------------------------------------------
# Instance files


class KeyedFile:
    """A TSPLIB-style file: `KEY : value` headers and sections of numbers."""

    SECTIONS = ("NODE_COORD_SECTION", "DEMAND_SECTION", "DEPOT_SECTION", "EDGE_WEIGHT_SECTION",
                "DISPLAY_DATA_SECTION", "FIXED_EDGES_SECTION", "TOUR_SECTION")

    def __init__(self, path):
        self.path = path
        self.headers = {}
        self.sections = {}
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            text = f.read()
        current = None
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            if line == "EOF":
                break
            word = re.split(r"[\s:]", line, maxsplit=1)[0]
            if word in self.SECTIONS:
                current = self.sections.setdefault(word, [])
                continue
            if current is not None and not line[0].isalpha():
                current.extend(line.split())
                continue
            if ":" not in line:
                raise Refusal(f"{path}:{number}: expected 'KEY : value', found '{line}'")
            key, value = line.split(":", 1)
            self.headers[key.strip()] = value.strip()
            current = None

    def header(self, key, default=None):
        return self.headers.get(key, default)

    def name(self, suffix):
        name = self.header("NAME", "")
        if name.endswith(suffix):
            name = name[: -len(suffix)]
        return name or os.path.splitext(os.path.basename(self.path))[0]

    def dimension(self):
        value = self.header("DIMENSION")
        if value is None:
            raise Refusal(f"{self.path}: missing DIMENSION")
        return int(value)

    def coordinates(self, n):
        words = self.sections.get("NODE_COORD_SECTION")
        if words is None:
            return None
        if len(words) != 3 * n:
            raise Refusal(f"{self.path}: NODE_COORD_SECTION does not hold {n} lines 'id x y'")
        x = [0.0] * n
        y = [0.0] * n
        for k in range(n):
            node = int(words[3 * k]) - 1
            x[node] = float(words[3 * k + 1])
            y[node] = float(words[3 * k + 2])
        return x, y

    def explicit_matrix(self, n):
        """The n x n matrix of EDGE_WEIGHT_SECTION (FULL_MATRIX and the row/column layouts)."""
        fmt = self.header("EDGE_WEIGHT_FORMAT", "")
        words = [float(w) for w in self.sections.get("EDGE_WEIGHT_SECTION", [])]
        m = [[0.0] * n for _ in range(n)]
        # Column layouts of a symmetric matrix list the same numbers as their row twins.
        twin = {"UPPER_COL": "LOWER_ROW", "LOWER_COL": "UPPER_ROW",
                "UPPER_DIAG_COL": "LOWER_DIAG_ROW", "LOWER_DIAG_COL": "UPPER_DIAG_ROW"}
        fmt = twin.get(fmt, fmt)
        if fmt == "FULL_MATRIX":
            cells = [(i, j) for i in range(n) for j in range(n)]
        elif fmt == "UPPER_ROW":
            cells = [(i, j) for i in range(n) for j in range(i + 1, n)]
        elif fmt == "LOWER_ROW":
            cells = [(i, j) for i in range(n) for j in range(i)]
        elif fmt == "UPPER_DIAG_ROW":
            cells = [(i, j) for i in range(n) for j in range(i, n)]
        elif fmt == "LOWER_DIAG_ROW":
            cells = [(i, j) for i in range(n) for j in range(i + 1)]
        else:
            raise Refusal(f"{self.path}: unsupported EDGE_WEIGHT_FORMAT '{fmt}'")
        if len(words) != len(cells):
            raise Refusal(f"{self.path}: EDGE_WEIGHT_SECTION has {len(words)} weights, "
                          f"{fmt} with DIMENSION {n} needs {len(cells)}")
        for (i, j), w in zip(cells, words):
            m[i][j] = w
            if fmt != "FULL_MATRIX":
                m[j][i] = w
        for i in range(n):
            m[i][i] = 0.0
        return m


def _nint(values):
    import numpy as np
    return np.floor(values + 0.5)


def _geo_radians(c):
    import numpy as np
    deg = np.trunc(c)
    return 3.141592 * (deg + 5.0 * (c - deg) / 3.0) / 180.0


class Tsp:
    problem = "tsp"
    extension = ".tour"

    def __init__(self, path):
        import numpy as np
        f = KeyedFile(path)
        self.path = path
        self.file = f
        self.name = f.name(".tsp")
        self.n = f.dimension()
        self.kind = f.header("EDGE_WEIGHT_TYPE", "")
        self.coords = None
        if self.kind == "EXPLICIT":
            self.dist = np.array(f.explicit_matrix(self.n), dtype=np.float64)
            if not np.all(np.floor(self.dist) == self.dist):
                raise Refusal(f"{path}: EXPLICIT weights must be whole numbers")
            self.dist = self.dist.astype(np.int64)
            return
        coords = f.coordinates(self.n)
        if coords is None:
            raise Refusal(f"{path}: missing NODE_COORD_SECTION")
        self.coords = coords
        x = np.array(coords[0])
        y = np.array(coords[1])
        if self.kind == "GEO":
            lat = _geo_radians(x)
            lon = _geo_radians(y)
            q1 = np.cos(lon[:, None] - lon[None, :])
            q2 = np.cos(lat[:, None] - lat[None, :])
            q3 = np.cos(lat[:, None] + lat[None, :])
            c = np.clip(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3), -1.0, 1.0)
            d = np.trunc(6378.388 * np.arccos(c) + 1.0)
        else:
            dx = x[:, None] - x[None, :]
            dy = y[:, None] - y[None, :]
            if self.kind == "EUC_2D":
                d = _nint(np.sqrt(dx * dx + dy * dy))
            elif self.kind == "CEIL_2D":
                d = np.ceil(np.sqrt(dx * dx + dy * dy))
            elif self.kind == "ATT":
                r = np.sqrt((dx * dx + dy * dy) / 10.0)
                t = _nint(r)
                d = np.where(t < r, t + 1.0, t)
            else:
                raise Refusal(f"{path}: unsupported EDGE_WEIGHT_TYPE '{self.kind}' "
                              "(supported: EUC_2D, CEIL_2D, ATT, GEO, EXPLICIT)")
        np.fill_diagonal(d, 0.0)
        self.dist = d.astype(np.int64)

    def needs(self):
        return []

    def tour_cost(self, tour):
        return int(sum(self.dist[tour[k - 1], tour[k]] for k in range(len(tour))))

    def write(self, file, tour):
        with open(file, "w") as out:
            out.write(f"NAME : {self.name}\nTYPE : TOUR\nDIMENSION : {self.n}\nTOUR_SECTION\n")
            for city in tour:
                out.write(f"{city + 1}\n")
            out.write("-1\nEOF\n")


class Cvrp:
    problem = "dcvrp"
    extension = ".sol"

    def __init__(self, path):
        import numpy as np
        f = KeyedFile(path)
        self.path = path
        self.name = f.name(".vrp")
        n = f.dimension()
        self.n = n
        self.capacity = int(f.header("CAPACITY", "0"))
        if self.capacity < 1:
            raise Refusal(f"{path}: missing or bad CAPACITY")
        self.max_duration = float(f.header("DISTANCE")) if f.header("DISTANCE") else None
        self.service_time = float(f.header("SERVICE_TIME", "0"))
        self.vehicles = int(f.header("VEHICLES")) if f.header("VEHICLES") else 0
        depots = [int(w) for w in f.sections.get("DEPOT_SECTION", []) if int(w) != -1]
        if len(depots) != 1:
            raise Refusal(f"{path}: DEPOT_SECTION must list one depot")
        # Node 0 is the depot, the customers follow in file order (the numbering of .sol files).
        order = [depots[0] - 1] + [i for i in range(n) if i != depots[0] - 1]
        demand = [0] * n
        words = f.sections.get("DEMAND_SECTION", [])
        for k in range(0, len(words), 2):
            demand[int(words[k]) - 1] = int(words[k + 1])
        self.demand = [demand[i] for i in order]
        kind = f.header("EDGE_WEIGHT_TYPE", "")
        coords = f.coordinates(n)
        self.coords = None
        if coords is not None:
            self.coords = ([coords[0][i] for i in order], [coords[1][i] for i in order])
        if kind == "EXPLICIT":
            m = np.array(f.explicit_matrix(n))
            self.dist = m[np.ix_(order, order)]
            self.rounding = "explicit"
        elif kind == "EUC_2D":
            x = np.array(self.coords[0])
            y = np.array(self.coords[1])
            dx = x[:, None] - x[None, :]
            dy = y[:, None] - y[None, :]
            d = np.sqrt(dx * dx + dy * dy)
            self.rounding = "nint" if self.name.startswith(ROUNDED_SETS) else "exact"
            if self.rounding == "nint":
                d = _nint(d)
            np.fill_diagonal(d, 0.0)
            self.dist = d
        else:
            raise Refusal(f"{path}: unsupported EDGE_WEIGHT_TYPE '{kind}' "
                          "(supported: EUC_2D, EXPLICIT)")

    def needs(self):
        """The constraints of this instance beyond capacity."""
        out = []
        if self.max_duration is not None:
            out.append("duration limit")
        if self.service_time > 0:
            out.append("service time")
        if self.vehicles > 0:
            out.append("fleet size")
        return out

    def integral(self):
        import numpy as np
        whole = lambda v: float(v).is_integer()
        return (bool(np.all(np.floor(self.dist) == self.dist)) and whole(self.service_time)
                and (self.max_duration is None or whole(self.max_duration)))

    def scaled(self):
        """Integer data for peers that need it: (scale, distances, travel durations, service
        time, duration limit). Scale 1 when everything is whole already."""
        import numpy as np
        if self.integral():
            d = self.dist.astype(np.int64)
            limit = None if self.max_duration is None else int(self.max_duration)
            return 1, d, d.copy(), int(self.service_time), limit
        s = SCALE
        d = np.rint(self.dist * s).astype(np.int64)
        t = np.ceil(self.dist * s).astype(np.int64)
        service = int(math.ceil(self.service_time * s))
        limit = None if self.max_duration is None else int(math.floor(self.max_duration * s))
        return s, d, t, service, limit

    def fleet_bound(self):
        """A fleet for peers that need a fixed one: VEHICLES, else enough for capacity and
        duration with room to spare."""
        if self.vehicles > 0:
            return self.vehicles
        customers = self.n - 1
        by_load = math.ceil(1.3 * sum(self.demand) / self.capacity) + 3
        by_time = 0
        if self.max_duration is not None:
            work = customers * self.service_time + sum(
                min(self.dist[c][k] for k in range(self.n) if k != c) for c in range(1, self.n))
            by_time = math.ceil(1.3 * work / self.max_duration) + 3
        return min(customers, max(by_load, by_time))

    def routes_cost(self, routes):
        total = 0.0
        for route in routes:
            prev = 0
            for c in route:
                total += self.dist[prev][c]
                prev = c
            total += self.dist[prev][0]
        return float(total)

    def write(self, file, routes):
        with open(file, "w") as out:
            k = 0
            for route in routes:
                if route:
                    k += 1
                    out.write(f"Route #{k}: {' '.join(str(c) for c in route)}\n")
            cost = self.routes_cost(routes)
            out.write(f"Cost {int(cost) if cost.is_integer() else repr(cost)}\n")


def load_instance(path):
    ext = os.path.splitext(path)[1].lower()
    if ext == ".tsp":
        return Tsp(path)
    if ext == ".vrp":
        return Cvrp(path)
    raise Refusal(f"{path}: expected a TSPLIB .tsp or CVRPLIB .vrp file")


# ---------------------------------------------------------------------------------------------
# Peers. Each returns (solution or None, extra summary fields); times are from _STARTED.


def _elapsed():
    return time.monotonic() - _STARTED


def _remaining():
    """Seconds left of the run's limit (at least 10 ms, so that every peer starts)."""
    return max(_deadline[0] - _elapsed(), 0.01)


def _options(given, allowed, peer):
    out = {}
    for item in given:
        key, eq, value = item.partition("=")
        if not eq or key not in allowed:
            raise Refusal(f"--set '{item}': {peer} takes KEY=VALUE with KEY one of "
                          f"{', '.join(sorted(allowed)) or '(none)'}")
        out[key] = allowed[key](value)
    return out


class _CaptureStdout:
    """Sends what C code prints on file descriptor 1 to a file while the peer runs."""

    def __init__(self, file):
        self.file = file

    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        self.target = os.open(self.file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(self.target, 1)

    def __exit__(self, *exc):
        import ctypes
        ctypes.CDLL(None).fflush(None)
        os.dup2(self.saved, 1)
        os.close(self.saved)
        os.close(self.target)


def run_lkh3(inst, seed, options, out_dir):
    from elkai import _elkai
    opts = _options(options, {"RUNS": int, "MAX_TRIALS": int, "MOVE_TYPE": int,
                              "MAX_CANDIDATES": int, "PATCHING_C": int, "PATCHING_A": int,
                              "INITIAL_TOUR_ALGORITHM": str}, "lkh3")
    lines = [f"NAME : {inst.name}", "TYPE : TSP", f"DIMENSION : {inst.n}"]
    if inst.coords is None:
        # Our matrix, so that LKH sees exactly the weights locus uses.
        lines += ["EDGE_WEIGHT_TYPE : EXPLICIT", "EDGE_WEIGHT_FORMAT : FULL_MATRIX",
                  "EDGE_WEIGHT_SECTION"]
        lines += [" ".join(str(int(w)) for w in row) for row in inst.dist]
    else:
        # LKH implements the TSPLIB distance functions of these types itself.
        lines += [f"EDGE_WEIGHT_TYPE : {inst.kind}", "NODE_COORD_SECTION"]
        lines += [f"{k + 1} {inst.coords[0][k]!r} {inst.coords[1][k]!r}" for k in range(inst.n)]
    lines.append("EOF")
    budget = _remaining()
    params = {"PROBLEM_FILE": ":stdin:", "RUNS": 100000, "SEED": seed,
              "TIME_LIMIT": f"{budget:.3f}", "TOTAL_TIME_LIMIT": f"{budget:.3f}"}
    params.update(opts)
    text = "".join(f"{k} = {v}\n" for k, v in params.items())
    with _CaptureStdout(os.path.join(out_dir, "lkh3.log")):
        tour = _elkai.solve_problem(text, "\n".join(lines) + "\n")
    tour = [c - 1 for c in tour]
    return tour, {"parameters": params}


def run_hgs(inst, seed, options, out_dir):
    import numpy as np
    import hygese
    opts = _options(options, {"nbGranular": int, "mu": int, "lambda_": int, "nbElite": int,
                              "nbClose": int, "targetFeasible": float, "nbIter": int,
                              "nbIterTraces": int,
                              "useSwapStar": lambda v: v.lower() in ("1", "true", "yes")},
                    "hgs")
    data = {"distance_matrix": np.ascontiguousarray(inst.dist, dtype=np.float64),
            "demands": np.array(inst.demand, dtype=np.float64),
            "vehicle_capacity": inst.capacity,
            "service_times": np.array([0.0] + [inst.service_time] * (inst.n - 1)),
            "depot": 0}
    if inst.coords is not None:
        # HGS sorts customers by polar angle around the depot: a shift keeps the angles and
        # makes the coordinates non-negative, as it requires.
        x = np.array(inst.coords[0])
        y = np.array(inst.coords[1])
        data["x_coordinates"] = x - min(0.0, x.min())
        data["y_coordinates"] = y - min(0.0, y.min())
    if inst.max_duration is not None:
        data["duration_limit"] = inst.max_duration
    if inst.vehicles > 0:
        data["num_vehicles"] = inst.vehicles
    # HGS prints a trace line every nbIterTraces iterations with its CPU time and the best
    # feasible cost of its population: the time to best is read from it.
    opts.setdefault("nbIterTraces", 100)
    params = hygese.AlgorithmParameters(timeLimit=_remaining(), seed=seed, **opts)
    solver = hygese.Solver(parameters=params, verbose=True)
    log = os.path.join(out_dir, "hgs.log")
    started = _elapsed()
    with _CaptureStdout(log):
        result = solver.solve_cvrp(data)
    routes = [list(r) for r in result.routes if len(r) > 0]
    visited = sorted(c for r in routes for c in r)
    extra = {"parameters": {"timeLimit": params.timeLimit, "seed": seed, **opts},
             "peer_cost": result.cost}
    if visited != list(range(1, inst.n)):
        return None, extra  # HGS keeps only feasible solutions: none was found
    best = round(inst.routes_cost(routes), 2)
    trace = re.compile(r"^It\s+\d+\s+\d+\s+\|\s+T\(s\)\s+([0-9.]+)\s+\|\s+Feas\s+\d+\s+([0-9.]+)")
    with open(log, errors="replace") as f:
        for line in f:
            m = trace.match(line)
            if m and float(m.group(2)) <= best + 0.005:
                # The first trace showing the final cost: its CPU time after HGS started.
                extra["time_to_best_s"] = started + float(m.group(1))
                extra["time_to_best_resolution"] = f"{params.nbIterTraces} iterations"
                break
    return routes, extra


def run_pyvrp(inst, seed, options, out_dir):
    import numpy as np
    import pyvrp
    from pyvrp.stop import MaxRuntime
    _options(options, {}, "pyvrp")
    scale, dist, travel, service, limit = inst.scaled()
    locations = [pyvrp.Location(x=inst.coords[0][k] if inst.coords else 0.0,
                                y=inst.coords[1][k] if inst.coords else 0.0)
                 for k in range(inst.n)]
    clients = [pyvrp.Client(location=c, delivery=[inst.demand[c]], service_duration=service)
               for c in range(1, inst.n)]
    fleet = inst.vehicles if inst.vehicles > 0 else inst.n - 1
    vehicle = {"num_available": fleet, "capacity": [inst.capacity]}
    if limit is not None:
        vehicle["shift_duration"] = limit
    else:
        travel = np.zeros_like(travel)  # durations play no part without a limit
    data = pyvrp.ProblemData(locations=locations, clients=clients,
                             depots=[pyvrp.Depot(location=0)],
                             vehicle_types=[pyvrp.VehicleType(**vehicle)],
                             distance_matrices=[dist], duration_matrices=[travel])

    best_times = []

    class Callbacks(pyvrp.IteratedLocalSearchCallbacks):
        def on_start(self, ils):
            best_times.append(_elapsed())

        def on_best(self, best):
            if best.is_feasible():
                best_times.append(_elapsed())

    params = pyvrp.SolveParams(ils=pyvrp.IteratedLocalSearchParams(callbacks=Callbacks()))
    result = pyvrp.solve(data, stop=MaxRuntime(_remaining()), seed=seed, collect_stats=False,
                         display=False, params=params)
    best = result.best
    extra = {"scale": scale, "iterations": result.num_iterations,
             "peer_cost": best.distance() / scale, "fleet": fleet}
    if not best.is_feasible():
        extra["peer_feasible"] = False
    # Activities of a route: depot visits and client visits; a client's idx counts the
    # clients from 0, our customers from 1.
    routes = [[a.idx + 1 for a in route if a.is_client()] for route in best.routes()]
    if best_times:
        extra["time_to_best_s"] = best_times[-1]
    return routes, extra


def run_ortools(inst, seed, options, out_dir):
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2
    firsts = routing_enums_pb2.FirstSolutionStrategy.Value.Value
    metas = routing_enums_pb2.LocalSearchMetaheuristic.Value.Value
    opts = _options(options, {"first_solution": str, "metaheuristic": str}, "ortools")
    first = opts.get("first_solution", "PATH_CHEAPEST_ARC")
    meta = opts.get("metaheuristic", "GUIDED_LOCAL_SEARCH")
    try:
        first_value, meta_value = firsts(first), metas(meta)
    except ValueError as e:
        raise Refusal(f"ortools: {e}")
    if inst.problem == "tsp":
        scale, dist, fleet = 1, inst.dist, 1
    else:
        scale, dist, travel, service, limit = inst.scaled()
        fleet = inst.fleet_bound()
    manager = pywrapcp.RoutingIndexManager(inst.n, fleet, 0)
    routing = pywrapcp.RoutingModel(manager)
    arc = routing.RegisterTransitMatrix(dist.tolist())
    routing.SetArcCostEvaluatorOfAllVehicles(arc)
    if inst.problem == "dcvrp":
        load = routing.RegisterUnaryTransitVector([int(q) for q in inst.demand])
        routing.AddDimensionWithVehicleCapacity(load, 0, [inst.capacity] * fleet, True, "load")
        if limit is not None:
            # The time from a node includes its service (none at the depot).
            duration = travel.copy()
            duration[1:, :] += service
            step = routing.RegisterTransitMatrix(duration.tolist())
            routing.AddDimension(step, 0, limit, True, "duration")
    found = []

    def on_solution():
        cost = routing.CostVar().Max()
        if not found or cost < found[-1][1]:
            found.append((_elapsed(), cost))

    routing.AddAtSolutionCallback(on_solution)
    search = pywrapcp.DefaultRoutingSearchParameters()
    search.first_solution_strategy = first_value
    search.local_search_metaheuristic = meta_value
    search.time_limit.FromMilliseconds(int(_remaining() * 1000))
    solution = routing.SolveWithParameters(search)
    extra = {"scale": scale, "fleet": fleet, "first_solution": first, "metaheuristic": meta}
    if solution is None:
        return None, extra
    extra["peer_cost"] = solution.ObjectiveValue() / scale
    if found:
        extra["time_to_best_s"] = found[-1][0]
    routes = []
    for v in range(fleet):
        index = routing.Start(v)
        route = []
        while not routing.IsEnd(index):
            node = manager.IndexToNode(index)
            if node != 0 or inst.problem == "tsp":
                route.append(node)
            index = solution.Value(routing.NextVar(index))
        routes.append(route)
    if inst.problem == "tsp":
        return routes[0], extra
    return routes, extra


RUNNERS = {"lkh3": run_lkh3, "hgs": run_hgs, "pyvrp": run_pyvrp, "ortools": run_ortools}
_deadline = [0.0]


def version_of(peer):
    from importlib import metadata
    package = PACKAGES[peer]
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        raise Missing(f"peer '{peer}' needs the package '{package}', which is not installed in "
                      f"{sys.prefix}; run scripts/peers/install")


# HGS-CVRP and LKH-3 measure their time limits with clock(), the process's CPU time, which on a
# busy machine runs slower than the wall clock. scripts/peers/install builds wall_clock.c into
# the environment; these peers run with it preloaded, so that they stop on wall-clock time.
WALL_CLOCK = os.path.join(sys.prefix, "lib", "locus_wall_clock.so")
CLOCK_PEERS = ("hgs", "lkh3")


def _with_wall_clock(peer):
    """Re-executes this process with the wall clock preloaded when `peer` needs it and it is
    there; returns how the peer's time limit is measured."""
    if peer not in CLOCK_PEERS:
        return "wall"
    if WALL_CLOCK in os.environ.get("LD_PRELOAD", "").split(":"):
        return "wall (clock() preloaded)"
    if not os.path.exists(WALL_CLOCK):
        return "process CPU time (no wall clock built: run scripts/peers/install)"
    env = dict(os.environ)
    env["LD_PRELOAD"] = ":".join(p for p in (WALL_CLOCK, env.get("LD_PRELOAD")) if p)
    env["LOCUS_PEER_STARTED"] = repr(_STARTED)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)


def run(args):
    peer = args.peer
    if peer not in RUNNERS:
        raise Refusal(f"unknown peer '{peer}' (valid: {', '.join(RUNNERS)})")
    clock = _with_wall_clock(peer)
    version = version_of(peer)
    if args.time_limit <= 0:
        raise Refusal("--time-limit must be positive")
    os.makedirs(args.out, exist_ok=True)
    inst = load_instance(args.instance)
    caps = CAPABILITIES[peer]
    if inst.problem not in caps["problems"]:
        raise Refusal(f"peer '{peer}' solves {', '.join(caps['problems'])} only; "
                      f"'{args.instance}' is a {inst.problem} instance")
    lacking = [c for c in inst.needs() if c in caps["lacks"]]
    if lacking:
        raise Refusal(f"peer '{peer}' cannot model the {', '.join(lacking)} of {inst.name}")
    loaded = _elapsed()
    _deadline[0] = args.time_limit
    solution, extra = RUNNERS[peer](inst, args.seed, args.set or [], args.out)
    total = _elapsed()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    summary = {
        "peer": peer,
        "package": caps["package"],
        "peer_version": version,
        "problem": inst.problem,
        "instance": inst.name,
        "instance_file": os.path.abspath(args.instance),
        "seed": args.seed,
        "time_limit_s": args.time_limit,
        "load_time_s": loaded,
        "total_time_s": total,
        "cpu_time_s": usage.ru_utime + usage.ru_stime,
        "time_to_best_s": None,
        "time_limit_kind": caps["time_limit"],
        "time_limit_clock": clock,
        "seed_use": caps["seed"],
        "constraints": inst.needs(),
        "unsupported": [],
        "options": args.set or [],
    }
    if inst.problem == "dcvrp":
        summary["rounding"] = inst.rounding
    summary.update(extra)
    if solution is None:
        summary["status"] = "no_solution"
        summary["solution_file"] = None
    else:
        file = os.path.join(args.out, "best" + inst.extension)
        inst.write(file, solution)
        summary["status"] = "solution"
        summary["solution_file"] = file
        summary["objective"] = (inst.tour_cost(solution) if inst.problem == "tsp"
                                else inst.routes_cost(solution))
    with open(os.path.join(args.out, "peer.json"), "w") as out:
        json.dump(summary, out, indent=2, default=float)
        out.write("\n")
    objective = summary.get("objective")
    print(f"{peer} {version} on {inst.name}: "
          f"{'no solution' if objective is None else 'objective ' + format(objective, 'g')} "
          f"in {total:.2f} s (limit {args.time_limit:g} s, seed {args.seed})")
    return 0


def check(args):
    peers = args.peers or list(RUNNERS)
    versions = {}
    missing = []
    for peer in peers:
        if peer not in RUNNERS:
            raise Refusal(f"unknown peer '{peer}' (valid: {', '.join(RUNNERS)})")
        try:
            versions[peer] = version_of(peer)
            importlib.import_module(MODULES[peer])
        except Missing:
            missing.append(f"{peer} ({PACKAGES[peer]} is not installed)")
        except ImportError as e:
            missing.append(f"{peer} ({PACKAGES[peer]} does not import: {e})")
    if missing:
        raise Missing(f"peers missing from {sys.prefix}: {'; '.join(missing)}; run "
                      "scripts/peers/install")
    print(json.dumps(versions))
    return 0


def describe(_args):
    print(json.dumps(CAPABILITIES, indent=2))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a peer on an instance")
    r.add_argument("peer")
    r.add_argument("instance")
    r.add_argument("--time-limit", type=float, required=True,
                   help="wall-clock seconds from the start, loading included")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", required=True, help="output directory")
    r.add_argument("--set", action="append", metavar="KEY=VALUE", help="peer option")
    r.set_defaults(func=run)
    c = sub.add_parser("check", help="versions of the installed peers")
    c.add_argument("peers", nargs="*")
    c.set_defaults(func=check)
    d = sub.add_parser("describe", help="what each peer models")
    d.set_defaults(func=describe)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Refusal as e:
        print(f"locus_peer: error: {e}", file=sys.stderr)
        return 2
    except Missing as e:
        print(f"locus_peer: error: {e}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
