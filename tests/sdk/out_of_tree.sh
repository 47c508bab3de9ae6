#!/usr/bin/env bash
# The plugin SDK as an outside user meets it: install locus, build the Max-Cut example plugin
# against the installed package, run it with the installed launcher. Checks: the package's
# paths (locus_LIBRARY_DIR, locus_PLUGIN_DIR, the run path of an installed plugin) lie in the
# install prefix; the installed tree holds the docs, the plot script and the test headers, which
# compile; a project without a build type builds Release; the installed launcher loads its own
# plugins from <prefix>/lib/locus/plugins and the example through --plugin-path, and warns when
# one plugin file shadows another; a maximisation problem reports cuts (results, trace, verify,
# gap against a best-known value found by enumeration, an objective target met exactly); every
# applied move's delta equals a full re-evaluation (check_moves, and the example's own tests
# built on include/locus/testing); `locus new-problem` prints the install prefix, refuses the
# names of plugins and makes a project that builds and runs; on a machine with a CUDA device the
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
prefix=$(realpath "$work/prefix")
under_prefix() { # PATH: whether PATH lies in the install prefix (as given or resolved)
    case "$1" in "$work/prefix"/*|"$prefix"/*) return 0 ;; *) return 1 ;; esac
}
for f in share/doc/locus/writing-a-plugin.md share/doc/locus/config-reference.md \
         share/locus/plots/locus_plots.py include/locus/testing/neighborhood_checks.hpp \
         include/locus/testing/chain_policy_harness.hpp include/locus/testing/chain_policy_harness.cuh \
         include/locus/testing/engine_checks.hpp share/locus/examples/maxcut/maxcut_test.cpp; do
    [ -f "$prefix/$f" ] || fail "the installed tree lacks $f"
done
# The data ships with the package: an installed launcher finds it from any directory.
for f in share/locus/data/best-known.csv share/locus/data/README.md \
         share/locus/data/tsplib/kroA100.tsp share/locus/data/tsplib/opt-tours/kroA100.opt.tour; do
    [ -f "$prefix/$f" ] || fail "the installed tree lacks $f"
done
verdict=$(cd "$work" && "$prefix/bin/locus" verify --instance tsplib/kroA100.tsp \
          --solution "$prefix/share/locus/data/tsplib/opt-tours/kroA100.opt.tour" 2>&1)
[[ "$verdict" == "feasible: objective 21282 "* ]] ||
    fail "the installed launcher did not find tsplib/kroA100.tsp in its data: $verdict"
for f in "$src"/docs/*.md; do
    [ -f "$prefix/share/doc/locus/$(basename "$f")" ] || fail "docs/$(basename "$f") is not installed"
done
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# The package seen from a project: its paths lie in the prefix (the dependencies it finds live
# elsewhere, in /usr), and the test headers compile (host and device).
mkdir -p "$work/probe"
cat >"$work/probe/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(locus_probe LANGUAGES CXX CUDA)
find_package(locus REQUIRED)
find_package(doctest REQUIRED)
foreach(v locus_LIBRARY_DIR locus_PLUGIN_DIR locus_INCLUDE_DIR LOCUS_PLUGIN_RPATH CMAKE_BUILD_TYPE)
    message(STATUS "probe: ${v}=${${v}}")
endforeach()
add_library(probe OBJECT probe.cpp probe.cu)
set_target_properties(probe PROPERTIES CUDA_ARCHITECTURES "${locus_CUDA_ARCHITECTURES}")
target_link_libraries(probe PRIVATE locus::core locus::gpu doctest::doctest)
CMAKE
cat >"$work/probe/probe.cpp" <<'CPP'
#include "locus/testing/chain_policy_harness.hpp"
#include "locus/testing/engine_checks.hpp"
#include "locus/testing/neighborhood_checks.hpp"
CPP
cat >"$work/probe/probe.cu" <<'CU'
#include "locus/testing/chain_policy_harness.cuh"
CU
cmake -S "$work/probe" -B "$work/probe/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" \
    >"$work/probe.log" 2>&1 || { cat "$work/probe.log"; fail "configure a project with find_package(locus)"; }
probe() { sed -n "s/^-- probe: $1=//p" "$work/probe.log"; }
for v in locus_LIBRARY_DIR locus_PLUGIN_DIR locus_INCLUDE_DIR LOCUS_PLUGIN_RPATH; do
    under_prefix "$(probe $v)" || fail "$v is '$(probe $v)', not under the install prefix $prefix"
done
[ "$(probe locus_PLUGIN_DIR)" -ef "$prefix/lib/locus/plugins" ] || fail "locus_PLUGIN_DIR: $(probe locus_PLUGIN_DIR)"
[ "$(probe locus_LIBRARY_DIR)" -ef "$prefix/lib" ] || fail "locus_LIBRARY_DIR: $(probe locus_LIBRARY_DIR)"
[ "$(probe CMAKE_BUILD_TYPE)" = Release ] || fail "a project without a build type builds '$(probe CMAKE_BUILD_TYPE)'"
cmake --build "$work/probe/build" >"$work/probe-build.log" 2>&1 || { cat "$work/probe-build.log"; fail "compile the test headers"; }

cmake -S "$src/docs/examples/maxcut" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure the example"; }
cmake --build "$work/build" --parallel "$(nproc)" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the example"; }
[ -f "$work/build/locus_maxcut.so" ] || fail "no locus_maxcut.so"
# The example's tests (doctest, include/locus/testing): every flip's delta, check_moves descents.
[ -x "$work/build/maxcut_test" ] || fail "the example's test was not built: $(grep -i doctest "$work/configure.log")"
ctest --test-dir "$work/build" --output-on-failure >"$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "the example's tests"; }
grep -q "100% tests passed" "$work/ctest.log" || fail "the example's tests: $(cat "$work/ctest.log")"
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
# loads next to it; the commands it prints name the install prefix and this launcher.
"$locus" new-problem knap_sack --out "$work/knap" >"$work/new.log" || { cat "$work/new.log"; fail "new-problem"; }
[ -f "$work/knap/knap_sack.cpp" ] && [ -f "$work/knap/knap_sack.yaml" ] && [ -f "$work/knap/knap_sack_test.cpp" ] \
    || fail "new-problem: files $(ls "$work/knap")"
! grep -qi "maxcut" "$work/knap"/* || fail "new-problem left the example's name in: $(grep -il maxcut "$work/knap"/*)"
grep -qF -- "-DCMAKE_PREFIX_PATH=$prefix" "$work/new.log" || fail "new-problem does not print the prefix $prefix: $(cat "$work/new.log")"
grep -qF -- "$locus run $work/knap/knap_sack.yaml" "$work/new.log" || fail "new-problem does not name the launcher: $(cat "$work/new.log")"
! grep -q "<locus install prefix>\|build tree" "$work/new.log" || fail "new-problem of an installed launcher: $(cat "$work/new.log")"
"$locus" new-problem knap_sack --out "$work/knap" >/dev/null 2>&1 && fail "new-problem overwrote a folder"
"$locus" new-problem "Bad-Name" >/dev/null 2>&1 && fail "new-problem accepted 'Bad-Name'"
for taken in tsp qap dcvrp gridpath ils; do
    if "$locus" new-problem "$taken" --out "$work/taken-$taken" >"$work/taken.log" 2>&1; then
        fail "new-problem accepted the plugin name '$taken'"
    fi
    grep -q "^locus: error: new-problem: '$taken' is the name of a plugin" "$work/taken.log" || fail "new-problem $taken: $(cat "$work/taken.log")"
    [ ! -e "$work/taken-$taken" ] || fail "new-problem $taken made a folder"
done
# The printed configure command, without a build type: the project builds Release (-O3).
configure=$(grep '^  cmake -S ' "$work/new.log") || fail "new-problem prints no configure command: $(cat "$work/new.log")"
eval "$configure" '"${generator[@]}"' -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/knap.log" 2>&1 \
    && cmake --build "$work/knap/build" --target locus_knap_sack >>"$work/knap.log" 2>&1 \
    || { cat "$work/knap.log"; fail "build the new-problem project"; }
grep -q "^CMAKE_BUILD_TYPE:STRING=Release$" "$work/knap/build/CMakeCache.txt" \
    || fail "the new-problem project without a build type: $(grep "^CMAKE_BUILD_TYPE" "$work/knap/build/CMakeCache.txt")"
python3 - "$work/knap/build/compile_commands.json" <<'PY' || fail "the new-problem project is not compiled optimised"
import json, sys
commands = [c["command"] for c in json.load(open(sys.argv[1])) if c["file"].endswith("knap_sack.cpp")]
assert commands and all(" -O3" in c or " -O2" in c for c in commands), commands
PY
# A plugin of that name in the search path: the name is taken.
LOCUS_PLUGIN_PATH="$work/knap/build" "$locus" new-problem knap_sack --out "$work/again" >"$work/again.log" 2>&1 \
    && fail "new-problem accepted the name of a plugin in LOCUS_PLUGIN_PATH"
grep -qF "'knap_sack' is the name of a plugin in the plugin search path ($(realpath "$work/knap/build/locus_knap_sack.so"))" \
    "$work/again.log" || fail "new-problem knap_sack: $(cat "$work/again.log")"
"$locus" run "$work/knap/knap_sack.yaml" -q --plugin-path "$work/knap/build" --plugin-path "$work/build" \
    --backend cpu --set termination.iterations=20 --out "$work/knap-out" >"$work/knap-run.log" 2>&1 \
    || { cat "$work/knap-run.log"; fail "run the new-problem plugin"; }
grep -q '"problem":"knap_sack"' "$work/knap-out/results.jsonl" || fail "new-problem run: $(cat "$work/knap-out/results.jsonl")"

# A Debian package of the installed tree.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/locus_*.deb)
dpkg-deb -c "$deb" >"$work/deb.txt"
for f in ./usr/bin/locus ./usr/lib/locus/plugins/locus_tsp.so ./usr/lib/cmake/locus/locusConfig.cmake ./usr/include/locus/problem.hpp \
         ./usr/include/locus/testing/neighborhood_checks.hpp ./usr/share/doc/locus/writing-a-plugin.md \
         ./usr/share/locus/plots/locus_plots.py; do
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
# `cmake --install` of the example puts it next to the launcher's own plugins, with a run path
# into this prefix; the launcher then finds it without --plugin-path, and warns when the copy
# in the build folder shadows it.
cmake --install "$work/build" --prefix "$work/prefix" >"$work/install-example.log" 2>&1 \
    || { cat "$work/install-example.log"; fail "install the example"; }
installed="$prefix/lib/locus/plugins/locus_maxcut.so"
[ -f "$installed" ] || fail "the example was not installed into $prefix/lib/locus/plugins"
runpath=$(readelf -d "$installed" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ -n "$runpath" ] || fail "the installed example has no RUNPATH: $(readelf -d "$installed")"
IFS=: read -ra runpath_dirs <<<"$runpath"
for dir in "${runpath_dirs[@]}"; do
    under_prefix "$dir" || fail "the installed example's RUNPATH $runpath leaves the prefix $prefix"
done
"$locus" plugins >"$work/plugins-installed.txt" 2>&1 || { cat "$work/plugins-installed.txt"; fail "plugins with the installed example"; }
grep -q "maxcut" "$work/plugins-installed.txt" || fail "the installed example is not found: $(cat "$work/plugins-installed.txt")"
! grep -q "^locus: warning" "$work/plugins-installed.txt" || fail "plugins: $(cat "$work/plugins-installed.txt")"
"$locus" plugins --plugin-path "$work/build" >"$work/plugins-shadow.txt" 2>&1 || { cat "$work/plugins-shadow.txt"; fail "plugins, shadowed"; }
[ "$(grep -c "^locus: warning: plugin '.*' shadows" "$work/plugins-shadow.txt")" = 1 ] \
    && grep -qF "locus: warning: plugin '$(realpath "$work/build/locus_maxcut.so")' shadows '$installed'" "$work/plugins-shadow.txt" \
    || fail "no warning about the shadowed plugin: $(cat "$work/plugins-shadow.txt")"
echo "out-of-tree plugin: ok"
