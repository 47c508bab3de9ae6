#!/usr/bin/env bash
# The same iteration budget with two plugins, one run at a time: OLD (the plugin built with the
# moves header of 433372d: every move's routes folded; the penalty with its divisions) and NEW
# (moves priced from the kept pieces; the penalty without divisions). Prints: instance, variant,
# objective, evaluations, seconds.
#   run.sh OLD_BIN_DIR NEW_BIN_DIR
set -euo pipefail
for spec in vrptw/R2_10_4:configs/vrptw/best.yaml vrptw/R2_10_1:configs/vrptw/best.yaml \
    vrptw/RC2_10_1:configs/vrptw/best.yaml vrptw/R1_10_1:configs/vrptw/best.yaml \
    vrptw/C2_10_1:configs/vrptw/best.yaml cvrplib/Golden_4:configs/dcvrp/best.yaml \
    cvrplib/X/X-n524-k153:configs/dcvrp/best.yaml; do
    instance=${spec%%:*}
    config=${spec#*:}
    for variant in old new; do
        bin=$1
        [ "$variant" = new ] && bin=$2
        out=$(mktemp -d)
        start=$(date +%s.%N)
        "$bin/locus" run "$config" -q --instance "data/$instance.vrp" --backend cpu --seed 1 \
            --set termination.iterations=100 --set termination.time_limit=0 --set batch=16 \
            --out "$out" >/dev/null
        end=$(date +%s.%N)
        python3 -c "import json,sys; l=json.loads(open('$out/results.jsonl').readline()); print('$instance', '$variant', l['objective'], l['evaluations'], '%.2f' % ($end - $start))"
        rm -rf "$out"
    done
done
