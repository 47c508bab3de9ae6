#!/usr/bin/env bash
# The A/B of configs/dcvrp/best.yaml's neighborhoods, kicks and chain count on the GPU:
# 60 s, seed 1, four instances of 300-500 customers where HGS-CVRP led; one variant after the
# other through scripts/peers/routing-quality (HGS-CVRP beside the base variant's runs).
#   docs/bench/2026-11-29-h200-route-moves-ab/run.sh BUILD_DIR OUT_DIR VARIANT...
set -uo pipefail
cd "$(dirname "$0")/../../.."
build=$1 out=$2
shift 2
p=algorithm.policy
for variant in "$@"; do
    args=""
    for part in ${variant//+/ }; do # a variant joins parts with "+", e.g. moves+ruin
        case $part in
            base) ;;
            moves) args+=" --set $p.swap_star=true --set $p.segment_swaps=true --set $p.segments=true" ;;
            ruin) args+=" --set $p.ruin=10" ;;
            auto) args+=" --set batch=auto" ;;
            *) echo "unknown variant $part"; exit 2 ;;
        esac
    done
    dir="$out/${variant//+/-}" # "+" is not a folder name that comes back from the device
    mkdir -p "$dir"
    echo "== $variant: $args"
    ROUTING_SEEDS=1 ROUTING_INSTANCES="${AB_INSTANCES:-Golden_8 Golden_20 X/X-n313-k71 X-n502-k39}" \
        ROUTING_HGS=$([ "$variant" = base ] && echo 1 || echo 0) \
        ROUTING_CUDA_ARGS="$args" scripts/peers/routing-quality "$build" "$dir"
done
