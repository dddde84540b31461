#!/usr/bin/env bash
# session 13 experiment 1: TMA tile-order probes and the decode kernels at L2 promotion 128 vs 256
set -u
B=build/bench/swiglu_bench
X=$OUT/x; mkdir -p $X
run() { # name env...
  local name=$1; shift
  env "$@" timeout 120 $B --bench --no-baselines --m 1,16 ${EXTRA:-} --out $X/$name.json > $X/$name.txt 2>&1; echo "$name exit $?"
}
run p128a
EXTRA=--no-ceilings run p256a TILEGLU_TMA_L2_PROMOTION=256
EXTRA=--no-ceilings run p128b TILEGLU_TMA_L2_PROMOTION=128
EXTRA=--no-ceilings run p256b TILEGLU_TMA_L2_PROMOTION=256
grep -A4 'stream qwen' $X/p128a.txt | cut -c1-200
grep -h 'warning' $X/*.txt | sort | uniq -c
python3 - <<'PY'
import json,os
X=os.environ['OUT']+'/x'
runs=['p128a','p256a','p128b','p256b']
d={r:json.load(open(f'{X}/{r}.json')) for r in runs}
print('model M config', *runs)
for i,row in enumerate(d['p128a']['rows']):
    print(row['model'],row['M'],row['config'],*[d[r]['rows'][i].get('ours_graph_us') for r in runs])
PY
