#!/usr/bin/env bash
# Penalised Split on the CPU twin: configs/vrptw/best.yaml, 300 iterations, batch 16, seed 1,
# --set algorithm.policy.split_warp_weight=W. Prints instance, W, objective, gap %, routes, seconds.
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/split-runs
for inst in R2_10_4 RC2_10_4 R2_10_1 R1_10_1; do
  for w in 0 1 10; do
    [ "$inst" = R1_10_1 ] && [ "$w" = 10 ] && continue
    out=/tmp/split-runs/$inst-$w; rm -rf $out
    start=$(date +%s.%N)
    "${LOCUS:-build/bin/locus}" run configs/vrptw/best.yaml -q --instance data/vrptw/$inst.vrp --backend cpu --seed 1 \
      --set termination.iterations=300 --set termination.time_limit=0 --set batch=16 \
      --set algorithm.policy.split_warp_weight=$w --out $out > /dev/null 2>&1 || echo "$inst $w failed"
    end=$(date +%s.%N)
    bks=$(awk -F, -v n=$inst '$1=="vrptw" && $2==n {print $3}' data/best-known.csv)
    python3 -c "
import json; l=json.loads(open('$out/results.jsonl').readline())
import glob; sol=glob.glob('$out/**/best.sol', recursive=True)[0]
r=sum(1 for x in open(sol) if x.startswith('Route'))
print('$inst', $w, l['objective'], '%.3f' % (100*(l['objective']-$bks)/$bks), r, l['feasible'], '%.1f' % ($end-$start))"
  done
done
