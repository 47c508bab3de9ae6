#!/usr/bin/env bash
# x336 (run by hand with the same settings, before this script): configs/dcvrp/best.yaml --instance cvrplib/X/X-n336-k84.vrp --seed 1 --set batch=4 --set termination.iterations=150
# ab.sh TAG CONFIG ARGS... : old (.dev/bin, 3f6d483) and new (build/bin) alternately, twice
cd /work/main
tag=$1; cfg=$2; shift 2
for i in 1 2; do for v in old new; do
  if [ $v = old ]; then B=.dev/bin; else B=build/bin; fi
  rm -rf /tmp/ab/$tag-$v-$i
  LD_LIBRARY_PATH=$PWD/$B /usr/bin/time -o /tmp/ab/t -f "%U" $B/locus run $cfg -q --plugin-path $B --backend cpu --set threads=1 --set termination.time_limit=0 "$@" --out /tmp/ab/$tag-$v-$i > /dev/null 2>&1; t=$(cat /tmp/ab/t)
  python3 -c "
import json,sys;l=json.loads(open('/tmp/ab/$tag-$v-$i/results.jsonl').readline());print('$tag','$v','$i','user_s',sys.argv[1],'objective',l['objective'],'evaluations',l['evaluations'],'build',l['build_id'])" "$t"
done; done
