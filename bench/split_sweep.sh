#!/usr/bin/env bash
# Times the swap-AB decode configs at every fixed cluster split (TILEGLU_SWAPAB_SPLITS = 1..8) so
# the split rule in src/kernels/decode_plan.h (swapab_splits) can be checked against the best
# measured split per shape and M. Run on the GPU machine with the build tree carried:
#   OUT=/dir [SWEEP_MODELS=a,b] [SWEEP_M=16,17,32] [SWEEP_CONFIGS=a,b] bash bench/split_sweep.sh
# Writes $OUT/split_<S>.json (the bench's JSON; each row's `tuned` list holds every config's time)
# and $OUT/split_sweep.txt (the log), packed into $OUT/split_sweep.tar.gz at the end.
# scripts/split_sweep_summary.py reads them back.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-split_sweep_out}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
MODELS="${SWEEP_MODELS:-qwen2.5-0.5b,qwen2.5-1.5b,qwen2.5-3b,qwen2.5-7b,qwen2.5-14b,qwen2.5-32b,qwen2.5-72b}"
MS="${SWEEP_M:-1,8,16,17,32}"
CONFIGS="${SWEEP_CONFIGS:-k2_swapab_n8_s6,k2_swapab_n8_s12,k2_swapab_n16_s6,k2_swapab_n16_s11,k2_swapab_n32_s5,k2_swapab_n32_s10}"
for s in 1 2 3 4 5 6 7 8; do
  echo "[sweep] $(date -u +%T) TILEGLU_SWAPAB_SPLITS=$s" | tee -a "$OUT/split_sweep.txt"
  TILEGLU_SWAPAB_SPLITS=$s build/bench/swiglu_bench --bench --no-baselines --no-ceilings --dtype bf16 \
    --models "$MODELS" --m "$MS" --tune-configs "$CONFIGS" --tune "$OUT/split_$s.table" \
    --out "$OUT/split_$s.json" >>"$OUT/split_sweep.txt" 2>&1
  echo "exit $?" | tee -a "$OUT/split_sweep.txt"
done
# The device tool returns at most 8 files: pack them.
tar czf "$OUT/split_sweep.tar.gz" -C "$OUT" $(cd "$OUT" && ls split_*.json split_*.table split_sweep.txt) &&
  rm -f "$OUT"/split_*.json "$OUT"/split_*.table
