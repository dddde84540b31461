#!/usr/bin/env bash
# Session 11, second GPU call: the GPU tests of every swap-AB config (the header changed for all
# of them; the Pingpong/Cooperative prefill and stream-K ones never ran their tests) and the
# dispatch tests, run from the binary in 14 parallel shards (ctest cannot load the gtest
# discovery files on the device machine: it lacks CMake's GoogleTest module), then the full
# check + bench with the new embedded table.
set -uo pipefail
cd "$(dirname "$0")/.."
O="$OUT"
export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
shards=14
for i in $(seq 0 $((shards - 1))); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout 200 build/tests/tileglu_gpu_tests \
    --gtest_filter='*swapab*:*Dispatch*' > "$O/gpu_shard_$i.txt" 2>&1 &
done
wait
cat "$O"/gpu_shard_*.txt > "$O/gpu_tests.txt"; rm -f "$O"/gpu_shard_*.txt
grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED TEST" "$O/gpu_tests.txt" | sort | uniq -c | head -40
OUT="$O" bash bench/run_session.sh bench:260
