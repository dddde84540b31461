#!/usr/bin/env bash
# Everything a session checks and times on the GPU machine, in one call of the device tool, with
# the build tree built on the CPU machine and carried (`carry: ["build"]`):
#   OUT=/dir bash bench/run_session.sh
# Each step has its own time limit so that one slow step cannot eat the others' results, and
# writes one file under $OUT (the device tool returns at most 8):
#   tests.txt            ctest (the GPU tests of tests/gpu, the CPU suite again), then tests/python
#                        on the GPU (opcheck, torch.compile, CUDA graphs, patch)
#   bench.json, log.txt  the C++ check + benchmark, default accumulation, strict 0.01% limit
#   bench_promoted.json  the same check + benchmark with TILEGLU_ACCUMULATION=promoted
#   overhead.json        per-call host overhead of the Python binding
#   torch.json, .png     the PyTorch-side benchmark (eager, merged+Triton, torch.compile) and plot
#   e2e.json             Qwen2.5-0.5B / 7B stock vs patched
# Step limits (seconds) can be changed with TILEGLU_STEP_LIMITS="ctest bench promoted py tail".
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-session_out}"
mkdir -p "$OUT"
read -r T_CTEST T_BENCH T_PROMOTED T_PYTEST T_TAIL <<<"${TILEGLU_STEP_LIMITS:-120 150 150 120 150}"

export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TILEGLU_LIBRARY="$PWD/build/libtileglu.so"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
step() { echo "[session] $(date -u +%T) $*"; }

step "ctest (limit ${T_CTEST}s)"
timeout "$T_CTEST" ctest --test-dir build --output-on-failure >"$OUT/tests.txt" 2>&1
echo "ctest exit $?" >>"$OUT/tests.txt"
tail -3 "$OUT/tests.txt"

step "C++ check + bench, default accumulation (limit ${T_BENCH}s)"
OUT="$OUT" timeout "$T_BENCH" bash bench/run_gpu.sh --strict >/dev/null 2>&1
echo "exit $?"; tail -6 "$OUT/log.txt"

step "C++ check + bench, TILEGLU_ACCUMULATION=promoted (limit ${T_PROMOTED}s)"
TILEGLU_ACCUMULATION=promoted timeout "$T_PROMOTED" build/bench/swiglu_bench --check --bench \
  --strict --out "$OUT/bench_promoted.json" >"$OUT/promoted_log.tmp" 2>&1
echo "exit $?"; tail -6 "$OUT/promoted_log.tmp"; rm -f "$OUT/promoted_log.tmp"

step "pytest tests/python (limit ${T_PYTEST}s)"
timeout "$T_PYTEST" python3 -m pytest tests/python -q -rs -p no:cacheprovider >>"$OUT/tests.txt" 2>&1
echo "pytest exit $?" >>"$OUT/tests.txt"
tail -3 "$OUT/tests.txt"

step "Python overhead, PyTorch bench, end-to-end (limit ${T_TAIL}s together)"
deadline=$(( $(date +%s) + T_TAIL ))
left() { local s=$(( deadline - $(date +%s) )); (( s > 1 )) && echo "$s" || echo 1; }
timeout "$(left)" python3 python/bench_overhead.py --json "$OUT/overhead.json" 2>&1 | tail -3
timeout "$(left)" python3 python/bench_torch.py --json "$OUT/torch.json" --png "$OUT/torch.png" 2>&1 | tail -5
timeout "$(left)" python3 python/e2e_qwen.py --json "$OUT/e2e.json" 2>&1 | tail -5
step "done"
