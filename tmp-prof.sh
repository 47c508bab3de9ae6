#!/usr/bin/env bash
# temporary: profile the FANG bench kernel
export PATH="$PATH:/usr/local/cuda/bin"
t0=$SECONDS
[ -f build-prof/build.ninja ] || cmake -S . -B build-prof -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/cmake.log 2>&1
cmake --build build-prof --target locus-fang-bench --parallel 16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
echo "build $((SECONDS-t0)) s"
b=build-prof/bin/locus-fang-bench
$b --only ${ONLY:-7,12,13,14,15,16,17,18,19} --reps 100 --cpu-seconds 0 | tee $OUT/base.jsonl | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l); print(d['load'],d['states'],d['possibilities'],d['cuda_ms'],d['identical'],d['registers'],d['groups'],round(d['paper_gpu_over_ours'],2))"
if [ -n "${PROF:-}" ]; then
ncu --set full --import-source no -k regex:assign_states --launch-skip 3 -c 1 -o $OUT/l16 $b --only 15 --reps 5 --cpu-seconds 0 > $OUT/ncu16.log 2>&1
ncu -i $OUT/l16.ncu-rep --page source --csv --print-source sass > $OUT/l16-source.csv 2> $OUT/l16-source.err
rm -f $OUT/l16.ncu-rep
fi
echo "total $((SECONDS-t0)) s"
