# HGS-CVRP (Vidal 2022) as a benchmark peer beside locus runs on a device machine, sourced by
# scripts/peers/routing-scale and scripts/peers/routing-quality. Built here from its public
# source when peers/hgs-cvrp holds it (git-ignored, never committed; put
# github.com/vidalt/HGS-CVRP's Program/ folder there), its clock() reading the wall clock
# (scripts/peers/wall_clock.c): its time limit is then wall time, as locus's is. The limit
# starts after HGS has read the instance; the process's own wall time is recorded beside it.

# hgs_build BUILD_DIR OUT_DIR: sets hgs to the built binary, or to "" (with the reason printed)
# when the source is missing or does not build (log in OUT_DIR/hgs-build.log).
hgs_build() {
    local build=$1 out=$2
    hgs=""
    if [ ! -d peers/hgs-cvrp/Program ]; then
        echo "   peers/hgs-cvrp is missing: locus runs only (no HGS-CVRP beside them)"
        return
    fi
    mkdir -p "$build/peers"
    # A binary newer than every source file (a warm machine's earlier call) is used as it is.
    if [ -x "$build/peers/hgs" ] && [ -f "$build/peers/wall_clock.so" ] &&
        [ -z "$(find peers/hgs-cvrp/Program scripts/peers/wall_clock.c -newer "$build/peers/hgs" -print -quit)" ]; then
        hgs="$build/peers/hgs"
        return
    fi
    if g++ -O3 -std=c++17 -o "$build/peers/hgs" peers/hgs-cvrp/Program/*.cpp >"$out/hgs-build.log" 2>&1 &&
        cc -O2 -shared -fPIC -o "$build/peers/wall_clock.so" scripts/peers/wall_clock.c >>"$out/hgs-build.log" 2>&1; then
        hgs="$build/peers/hgs"
    else
        echo "   HGS-CVRP did not build (see hgs-build.log): locus runs only"
    fi
}

# hgs_run VRP_FILE SEED LIMIT ROUND SOL_FILE LOG_FILE BEST_KNOWN NAME: runs HGS on one core
# (ROUND 1: distances rounded to the nearest integer, 0: real distances) and prints its JSON
# line: {"solver": "hgs", instance, seed, objective, best_known, gap, time_limit, wall_s, ...}.
# BEST_KNOWN may be empty (no gap).
hgs_run() {
    local vrp=$1 seed=$2 limit=$3 round=$4 sol=$5 log=$6 best_known=$7 name=$8 t0 t1
    t0=$(date +%s.%N)
    LD_PRELOAD="$(dirname "$hgs")/wall_clock.so" "$hgs" "$vrp" "$sol" -t "$limit" -seed "$seed" \
        -round "$round" -log 0 >"$log" 2>&1
    t1=$(date +%s.%N)
    python3 - "$name" "$seed" "$sol" "$limit" "$t0" "$t1" "$best_known" "$round" <<'PY'
import json, re, sys
name, seed, sol, limit, t0, t1, best_known, rounded = sys.argv[1:]
def cost(path):
    try:
        for text in open(path):
            m = re.match(r"\s*Cost\s+([0-9.eE+-]+)", text)
            if m: return float(m.group(1))
    except OSError:
        return None
    return None
objective = cost(sol)
best = float(best_known) if best_known else None
gap = 100.0 * (objective - best) / best if objective is not None and best else None
print(json.dumps({"solver": "hgs", "instance": name, "seed": int(seed), "objective": objective,
                  "best_known": best, "gap": gap, "time_limit": float(limit),
                  "wall_s": float(t1) - float(t0), "threads": 1, "rounded": rounded == "1"}))
PY
}

# sol_cost FILE: the "Cost" line of a CVRPLIB .sol file, or nothing.
sol_cost() {
    sed -n 's/^[[:space:]]*Cost[[:space:]]\+\([0-9.eE+-]\+\).*/\1/p' "$1" 2>/dev/null | head -n 1
}
