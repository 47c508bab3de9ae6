#!/bin/bash
# configs/dcvrp/best.yaml with and without swap_star at an equal wall-clock limit (10 s, 2 threads).
cd /tmp/exp
for inst in X-n125-k30 X-n148-k46 X-n172-k51 X-n195-k51 X-n242-k48; do
 for seed in 1 2 3; do
  for v in base star; do
   sets=""
   [ $v = star ] && sets="--set algorithm.policy.swap_star=true"
   rm -rf out3-$v
   /work/main/build/bin/locus run /work/main/configs/dcvrp/best.yaml -q --backend cpu --instance cvrplib/X/$inst.vrp --seed $seed --time-limit 10 --set threads=2 $sets --out out3-$v >/dev/null 2>&1
   python3 -c "
import json,sys; l=json.loads(open('out3-$v/results.jsonl').readline()); print('$inst',$seed,'$v',l['objective'],round(l['gap'],3),round(l['total_time_s'],1), l['iterations'], l['feasible'])" >> results3.txt
  done
 done
done
echo done >> results3.txt
