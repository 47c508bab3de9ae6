export LOCUS_DATA=$PWD/benchdata
LOCUS_BUILD_DIR=build-gpu scripts/build -DCMAKE_CUDA_ARCHITECTURES=90 -DLOCUS_WERROR=ON > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
B=build-gpu/bin
show() { python3 -c "
import json,sys
for t in open(sys.argv[1]):
    l=json.loads(t); print(sys.argv[2], {k:l.get(k) for k in ('stop_reason','total_time_s','time_to_best_s','iterations','evaluations','objective','feasible','engine_memory_bytes','peak_host_memory_bytes','batch')})
" $1 $2; }
run() { # name timeout args...
  local name=$1 t=$2; shift 2; rm -rf $OUT/$name; local t0=$(date +%s.%N)
  timeout $t $B/locus run "$@" -q --out $OUT/$name > $OUT/$name.log 2>&1; local rc=$?
  echo "$name rc=$rc wall=$(python3 -c "print(round($(date +%s.%N)-$t0,2))") $(tail -c 300 $OUT/$name.log)"
  [ -f $OUT/$name/results.jsonl ] && show $OUT/$name/results.jsonl $name
}
run qap1000-default-cuda 90 configs/qap/multistart-ts-gpu.yaml --instance random-qap:n=1000,seed=1 --backend cuda --time-limit 30
run qap1000-b256-cuda 90 configs/qap/multistart-ts-gpu.yaml --instance random-qap:n=1000,seed=1 --backend cuda --time-limit 30 --set batch=256
run qap1000-b256-cpu 90 configs/qap/multistart-ts-gpu.yaml --instance random-qap:n=1000,seed=1 --backend cpu --time-limit 30 --set batch=256
run grid4096-cuda 90 configs/gridpath/beam.yaml --instance random-grid:size=4096,agents=64,obstacles=0.2,seed=1 --backend cuda --time-limit 30
run grid4096-cpu 90 configs/gridpath/beam.yaml --instance random-grid:size=4096,agents=64,obstacles=0.2,seed=1 --backend cpu --time-limit 30
