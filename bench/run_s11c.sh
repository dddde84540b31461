#!/usr/bin/env bash
# Session 11, last GPU call (under 3 minutes of device time left): the GPU tests of the narrow-
# unit stream-K configs, the tuner over the M <= 16 rows with them, and the check + bench of those
# rows with the table it wrote (TILEGLU_TUNING_TABLE), so the table's rows are measured as chosen.
set -uo pipefail
cd "$(dirname "$0")/.."
O="$OUT"
export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for i in 0 1 2 3 4 5; do
  GTEST_TOTAL_SHARDS=6 GTEST_SHARD_INDEX=$i timeout 40 build/tests/tileglu_gpu_tests \
    --gtest_filter='*c32_*' > "$O/gpu_shard_$i.txt" 2>&1 &
done
wait
cat "$O"/gpu_shard_*.txt > "$O/gpu_tests.txt"; rm -f "$O"/gpu_shard_*.txt
echo "GPU tests: $(grep -c '^\[       OK \]' "$O/gpu_tests.txt") passed, $(grep -c '^\[  FAILED  \] .*ms)$' "$O/gpu_tests.txt") failed"
if grep -q '^\[  FAILED  \] .*ms)$' "$O/gpu_tests.txt"; then
  CONFIGS=k2_swapab_n8_s12_bal,k2_swapab_n16_s11_sk  # the narrow configs failed: leave them out
else
  CONFIGS=k2_swapab_c32_n8_s24_sk,k2_swapab_c32_n16_s21_sk,k2_swapab_n8_s12_bal,k2_swapab_n16_s11_sk
fi
timeout 70 build/bench/swiglu_bench --bench --no-ceilings --dtype bf16 --m 1,2,4,8,16 --tune-configs "$CONFIGS" \
  --tune "$O/tune.table" --out "$O/tune.json" > "$O/tune_log.txt" 2>&1
echo "tune exit $?"
TILEGLU_TUNING_TABLE="$O/tune.table" timeout 40 build/bench/swiglu_bench --check --bench --no-ceilings --dtype bf16 --m 1,2,4,8,16 \
  --out "$O/bench_decode.json" > "$O/bench_decode_log.txt" 2>&1
echo "bench exit $?"; grep -E "geometric|checks" "$O/bench_decode_log.txt" | head -4
