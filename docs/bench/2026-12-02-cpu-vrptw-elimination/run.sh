#!/bin/bash
# INSTANCE TAG [--set ...]
I=$1; T=$2; shift 2
d=/tmp/cpu/$I-$T; rm -rf $d
s=$(date +%s)
build/bin/locus run configs/vrptw/best.yaml -q --instance data/vrptw/$I.vrp --backend cpu --seed 1 --set termination.iterations=300 --set termination.time_limit=0 --set batch=16 --set threads=1 --out $d "$@" > $d.log 2>&1
e=$(date +%s)
python3 - $I $T $d $((e-s)) <<'PY'
import json,sys,csv,glob
I,T,d,sec=sys.argv[1:]
bks={r[1]:float(r[2]) for r in csv.reader(open('data/best-known.csv')) if r and r[0]=='vrptw'}
l=json.loads(open(d+'/results.jsonl').readline())
sol=glob.glob(d+'/**/best.sol',recursive=True)
routes=sum(1 for x in open(sol[0]) if x.startswith('Route')) if sol else None
o=l.get('objective')
print(I,T,'gap %.3f'%(100*(o-bks[I])/bks[I]) if o else None,'routes',routes,'feasible',l.get('feasible'),'evals',l.get('evaluations'),'sec',sec,flush=True)
PY
