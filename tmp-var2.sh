#!/usr/bin/env bash
export PATH="$PATH:/usr/local/cuda/bin"
t0=$SECONDS
build() { cmake -S . -B build-v-$1 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=$2" > $OUT/cmake-$1.log 2>&1 && cmake --build build-v-$1 --target locus-fang-bench --parallel 8 > $OUT/build-$1.log 2>&1 || echo "build $1 failed"; }
build n "" & build c "-DLOCUS_OLD_MAP" & wait
echo "builds $((SECONDS-t0)) s"
run() { name=$1; shift; env "$@" build-v-${name%%-*}/bin/locus-fang-bench --only ${ONLY:-7,15,19} --reps 100 --cpu-seconds 0 | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l); print('$name',d['load'],d['states'],d['possibilities'],d['cuda_ms'],d['identical'],d['registers'],d['groups'],round(d['paper_gpu_over_ours'],2))"; }
for rep in 1 2; do
run c; run c-9 LOCUS_GROUPS_PER_SM=9; run n-8 LOCUS_GROUPS_PER_SM=8; run n-9 LOCUS_GROUPS_PER_SM=9; run n-10 LOCUS_GROUPS_PER_SM=10
done
echo "total $((SECONDS-t0)) s"
