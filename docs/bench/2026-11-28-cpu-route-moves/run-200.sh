#!/bin/bash
cd /tmp/exp
for inst in X-n148-k46 X-n172-k51 X-n195-k51 X-n242-k48; do
 for seed in 1 2 3; do
  for v in base swaps both; do
   sets=""
   [ $v = swaps ] && sets="--set algorithm.policy.segment_swaps=true"
   [ $v = both ] && sets="--set algorithm.policy.segment_swaps=true --set algorithm.policy.segments=true"
   rm -rf out-$v
   /work/main/build/bin/locus run /work/main/configs/dcvrp/best.yaml -q --backend cpu --instance cvrplib/X/$inst.vrp --seed $seed --set termination.iterations=200 --set threads=2 $sets --out out-$v >/dev/null 2>&1
   python3 -c "
import json,sys; l=json.loads(open('out-$v/results.jsonl').readline()); print('$inst',$seed,'$v',l['objective'],round(l['gap'],3),round(l['total_time_s'],1), l['feasible'])" >> results.txt
  done
 done
done
echo done >> results.txt
