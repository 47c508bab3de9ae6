#!/usr/bin/env bash
# temporary: build variants of the FANG bench (VARIANTS="name:flags;...") and run some configurations
export PATH="$PATH:/usr/local/cuda/bin"
t0=$SECONDS
IFS=';' read -ra vs <<< "$VARIANTS"
for v in "${vs[@]}"; do
  name=${v%%:*}; flags=${v#*:}
  ( cmake -S . -B build-v-$name -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=$flags" > $OUT/cmake-$name.log 2>&1 &&
    cmake --build build-v-$name --target locus-fang-bench --parallel 8 > $OUT/build-$name.log 2>&1 || echo "build $name failed" ) &
done
wait
echo "builds $((SECONDS-t0)) s"
for rep in 1 2; do
for v in "${vs[@]}"; do
  name=${v%%:*}
  build-v-$name/bin/locus-fang-bench --only ${ONLY:-7,15,19} --reps 100 --cpu-seconds 0 | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l); print('$name',d['load'],d['states'],d['possibilities'],d['cuda_ms'],d['identical'],d['registers'],d['groups'],round(d['paper_gpu_over_ours'],2))"
done
done
echo "total $((SECONDS-t0)) s"
