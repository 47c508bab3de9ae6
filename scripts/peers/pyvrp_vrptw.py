"""PyVRP on a VRPTW file (CVRPLIB style, DIMACS convention) for the vrptw benchmark section.

    python3 scripts/peers/pyvrp_vrptw.py INSTANCE SEED LIMIT_S SOL_OUT NAME [BEST_KNOWN]

Reads the file with PyVRP's own reader (round_func "dimacs": distances and times truncated to
one decimal, as integers of tenths), solves it on one core with seed SEED for LIMIT_S seconds of
wall time counted from the start of this script, writes the routes as a CVRPLIB .sol file and
prints one JSON line: {"solver": "pyvrp", instance, seed, objective (total distance), routes,
feasible, best_known, gap (percent; null without best_known), time_limit, wall_s}.
"""

import json
import sys
import time

START = time.monotonic()


def main():
    path, seed, limit, sol_out, name = sys.argv[1:6]
    best_known = float(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] else None
    seed, limit = int(seed), float(limit)
    import pyvrp
    from pyvrp.stop import MaxRuntime

    data = pyvrp.read(path, round_func="dimacs")
    remaining = max(0.1, limit - (time.monotonic() - START))
    result = pyvrp.solve(data, stop=MaxRuntime(remaining), seed=seed, collect_stats=False,
                         display=False)
    best = result.best
    # DIMACS rounding works in tenths: the objective is the distance over 10.
    objective = best.distance() / 10.0
    routes = [[a.idx + 1 for a in route if a.is_client()] for route in best.routes()]
    with open(sol_out, "w") as out:
        for k, route in enumerate(routes, 1):
            out.write("Route #%d: %s\n" % (k, " ".join(str(c) for c in route)))
        out.write("Cost %.1f\n" % objective)
    gap = None if best_known is None else 100.0 * (objective - best_known) / best_known
    print(json.dumps({"solver": "pyvrp", "instance": name, "seed": seed,
                      "objective": objective, "routes": len(routes),
                      "feasible": best.is_feasible(), "best_known": best_known, "gap": gap,
                      "time_limit": limit, "wall_s": time.monotonic() - START}))


if __name__ == "__main__":
    main()
