#!/usr/bin/env bash
# The plugin SDK as an outside user meets it: install locus, build the Max-Cut example plugin
# against the installed package, run it with the installed launcher. Checks: the installed
# launcher loads its own plugins from <prefix>/lib/locus/plugins and the example through
# --plugin-path; a maximisation problem reports cuts (results, trace, verify, gap against a
# best-known value found by enumeration, an objective target met exactly); every applied
# move's delta equals a full re-evaluation (check_moves); on a machine with a CUDA device the
# CUDA flip neighborhood gives the CPU twin's run.
# usage: out_of_tree.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LOCUS_PLUGIN_PATH
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src/docs/examples/maxcut" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure the example"; }
cmake --build "$work/build" --parallel "$(nproc)" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the example"; }
[ -f "$work/build/locus_maxcut.so" ] || fail "no locus_maxcut.so"
locus="$work/prefix/bin/locus"
# Moved out of the build tree, the installed launcher still finds its plugins.
"$locus" plugins >"$work/plugins.txt" 2>&1 || { cat "$work/plugins.txt"; fail "installed launcher: plugins"; }
grep -q "locus_tsp.so" "$work/plugins.txt" || fail "installed launcher does not list the TSP plugin: $(cat "$work/plugins.txt")"
grep -q "lib/locus/plugins" "$work/plugins.txt" || fail "plugins not loaded from lib/locus/plugins: $(cat "$work/plugins.txt")"
"$locus" plugins --plugin-path "$work/build" 2>&1 | grep -q "maxcut" || fail "--plugin-path does not load the example"

# A random weighted graph of 16 vertices, its maximum cut by enumeration.
python3 - "$work" <<'PY'
import itertools, random, sys
work = sys.argv[1]
rng = random.Random(7)
n = 16
edges = sorted({tuple(sorted(rng.sample(range(1, n + 1), 2))) for _ in range(40)})
edges = [(u, v, rng.randint(1, 9)) for u, v in edges]
with open(f"{work}/g16.txt", "w") as f:
    f.write(f"{n} {len(edges)}\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges))
best = max(sum(w for u, v, w in edges if (mask >> (u - 1) & 1) != (mask >> (v - 1) & 1))
           for mask in range(1 << (n - 1)))
open(f"{work}/best-known.csv", "w").write(f"instance,best_known\ng16,{best}\n")
open(f"{work}/optimum", "w").write(str(best))
PY
run() { # out backend extra...
    local out=$1 backend=$2; shift 2
    "$locus" run "$src/docs/examples/maxcut/maxcut.yaml" -q --plugin-path "$work/build" --backend "$backend" \
        --out "$work/$out" "$@" >"$work/$out.log" 2>&1 || { cat "$work/$out.log"; fail "run $out"; }
}
optimum=$(cat "$work/optimum")
run target cpu --instance "$work/g16.txt" --set best_known="$work/best-known.csv" \
    --set termination.target="$optimum" --set termination.iterations=100000
run checked cpu --set check_moves=true --set termination.iterations=50
python3 - "$work" "$optimum" <<'PY'
import json, sys
work, optimum = sys.argv[1], int(sys.argv[2])
def result(name):
    lines = [json.loads(t) for t in open(f"{work}/{name}/results.jsonl")]
    assert len(lines) == 1, lines
    return lines[0]
r = result("target")
assert r["objective_sense"] == "maximize", r
assert r["feasible"] and r["objective"] == optimum, (r["objective"], optimum)
assert r["stop_reason"] == "target", r["stop_reason"]
assert r["best_known"] == optimum and r["gap"] == 0, (r["best_known"], r["gap"])
# The cut of the written solution, computed here from the graph file.
edges = [tuple(map(int, l.split())) for l in open(f"{work}/g16.txt").read().splitlines()[1:]]
sides = [l for l in open(r["solution_file"]).read().split("\n") if l in ("0", "1")]
cut = sum(w for u, v, w in edges if sides[u - 1] != sides[v - 1])
assert cut == optimum, (cut, optimum)
trace = [json.loads(t)["objective"] for t in open(r["trace_file"])]
assert trace == sorted(trace) and trace[-1] == optimum, trace
c = result("checked")
assert c["feasible"] and "error" not in c, c
# A local optimum of the flip neighborhood (positive weights) cuts at least half the weight.
assert c["objective"] > 0, c
print("ok", r["objective"], c["objective"])
PY
"$locus" verify --plugin-path "$work/build" --problem maxcut --instance "$work/g16.txt" \
    --solution "$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['solution_file'])" "$work/target/results.jsonl")" \
    >"$work/verify.txt" || { cat "$work/verify.txt"; fail "verify"; }
grep -q "^feasible: objective $optimum " "$work/verify.txt" || fail "verify: $(cat "$work/verify.txt")"

# `locus new-problem`: a renamed copy of the example builds against the installed package and
# loads next to it.
"$locus" new-problem knap_sack --out "$work/knap" >"$work/new.log" || { cat "$work/new.log"; fail "new-problem"; }
[ -f "$work/knap/knap_sack.cpp" ] && [ -f "$work/knap/knap_sack.yaml" ] || fail "new-problem: files $(ls "$work/knap")"
! grep -qi "maxcut" "$work/knap"/* || fail "new-problem left the example's name in: $(grep -il maxcut "$work/knap"/*)"
"$locus" new-problem knap_sack --out "$work/knap" >/dev/null 2>&1 && fail "new-problem overwrote a folder"
"$locus" new-problem "Bad-Name" >/dev/null 2>&1 && fail "new-problem accepted 'Bad-Name'"
cmake -S "$work/knap" -B "$work/knap/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/knap.log" 2>&1 && cmake --build "$work/knap/build" >>"$work/knap.log" 2>&1 \
    || { cat "$work/knap.log"; fail "build the new-problem project"; }
"$locus" run "$work/knap/knap_sack.yaml" -q --plugin-path "$work/knap/build" --plugin-path "$work/build" \
    --backend cpu --set termination.iterations=20 --out "$work/knap-out" >"$work/knap-run.log" 2>&1 \
    || { cat "$work/knap-run.log"; fail "run the new-problem plugin"; }
grep -q '"problem":"knap_sack"' "$work/knap-out/results.jsonl" || fail "new-problem run: $(cat "$work/knap-out/results.jsonl")"

# A Debian package of the installed tree.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/locus_*.deb)
dpkg-deb -c "$deb" >"$work/deb.txt"
for f in ./usr/bin/locus ./usr/lib/locus/plugins/locus_tsp.so ./usr/lib/cmake/locus/locusConfig.cmake ./usr/include/locus/problem.hpp; do
    grep -q " $f\$" "$work/deb.txt" || fail "the package lacks $f"
done

# CPU twin = CUDA where a device is present.
if "$locus" run "$src/docs/examples/maxcut/maxcut.yaml" -q --plugin-path "$work/build" --backend cuda \
        --set termination.iterations=30 --out "$work/cuda" >"$work/cuda.log" 2>&1; then
    run cpu cpu --set termination.iterations=30
    python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
a, b = (json.loads(open(f"{work}/{x}/results.jsonl").readline()) for x in ("cpu", "cuda"))
assert a["objective"] == b["objective"] and a["evaluations"] == b["evaluations"], (a, b)
assert open(a["solution_file"]).read() == open(b["solution_file"]).read()
print("CPU = CUDA:", a["objective"], a["evaluations"])
PY
elif grep -qi "no CUDA device\|no usable CUDA\|cuda.*not available" "$work/cuda.log"; then
    echo "CUDA part skipped: $(head -c 300 "$work/cuda.log")"
else
    cat "$work/cuda.log"; fail "cuda run"
fi
echo "out-of-tree plugin: ok"
