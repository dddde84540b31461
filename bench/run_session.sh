#!/usr/bin/env bash
# Everything a session checks and times on the GPU machine, in one call of the device tool, with
# the build tree built on the CPU machine and carried (`carry: ["build"]`):
#   OUT=/dir bash bench/run_session.sh
# Each step has its own time limit so that one slow step cannot eat the others' results. The
# device tool returns at most 8 files, so the main results are plain files and everything else is
# packed, after every step, into session.tar.gz:
#   bench.json, log.txt  the C++ check + benchmark, default dispatch, strict 0.01% limit
#   tests.txt            ctest (GPU tests included) and tests/python on the GPU
#   session.tar.gz       bench_promoted.json (TILEGLU_ACCUMULATION=promoted), ablation_<config>.json
#                        (Kernel-2 vs Kernel-1 vs Kernel-1 serialized, prefill M), overhead.json,
#                        torch.json + torch.png, e2e.json, and the logs of those steps
# Step limits (seconds): TILEGLU_STEP_LIMITS="ctest bench promoted ablation py tail".
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-session_out}"
mkdir -p "$OUT"
read -r T_CTEST T_BENCH T_PROMOTED T_ABLATION T_PYTEST T_TAIL \
  <<<"${TILEGLU_STEP_LIMITS:-120 150 150 120 120 150}"
MORE="$(mktemp -d)/session"
mkdir -p "$MORE"
pack() { tar czf "$OUT/session.tar.gz" -C "$(dirname "$MORE")" session; }

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
  --strict --out "$MORE/bench_promoted.json" >"$MORE/promoted_log.txt" 2>&1
echo "exit $?"; tail -6 "$MORE/promoted_log.txt"; pack

step "ablation: Kernel-2 vs Kernel-1 vs Kernel-1 serialized, prefill M (limit ${T_ABLATION}s)"
deadline=$(( $(date +%s) + T_ABLATION ))
left() { local s=$(( deadline - $(date +%s) )); (( s > 1 )) && echo "$s" || echo 1; }
for c in k2_pingpong_128x64x64_s6 k1_pingpong_128x64x64_s6 k1_pingpong_128x64x64_s6_serial; do
  timeout "$(left)" build/bench/swiglu_bench --bench --config "$c" --m 128,1000,2048,4096,8192,16384 \
    --out "$MORE/ablation_$c.json" >"$MORE/ablation_$c.txt" 2>&1
  echo "$c exit $?"; tail -4 "$MORE/ablation_$c.txt"
done
pack

step "pytest tests/python (limit ${T_PYTEST}s)"
timeout "$T_PYTEST" python3 -m pytest tests/python -q -rs -p no:cacheprovider >>"$OUT/tests.txt" 2>&1
echo "pytest exit $?" >>"$OUT/tests.txt"
tail -3 "$OUT/tests.txt"

step "Python overhead, PyTorch bench, end-to-end (limit ${T_TAIL}s together)"
deadline=$(( $(date +%s) + T_TAIL ))
timeout "$(left)" python3 python/bench_overhead.py --json "$MORE/overhead.json" >"$MORE/overhead.txt" 2>&1
tail -3 "$MORE/overhead.txt"; pack
timeout "$(left)" python3 python/bench_torch.py --json "$MORE/torch.json" --png "$MORE/torch.png" \
  >"$MORE/torch.txt" 2>&1
tail -5 "$MORE/torch.txt"; pack
timeout "$(left)" python3 python/e2e_qwen.py --json "$MORE/e2e.json" >"$MORE/e2e.txt" 2>&1
tail -5 "$MORE/e2e.txt"; pack
step "done"
