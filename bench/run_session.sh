#!/usr/bin/env bash
# GPU checks and benchmarks of a session, run in one call of the device tool with the build tree
# built on the CPU machine and carried (`carry: ["build"]`):
#   OUT=/dir bash bench/run_session.sh STEP[:LIMIT_S] ...
# Steps run in the order given, each under its own time limit (default in the table below) so that
# one slow step cannot eat the others' results. The device tool returns at most 8 files, so the
# main results are plain files and everything else is packed, after every step, into
# session.tar.gz.
# Invocations sharing one call (one $OUT subdirectory each) add their plain files up: a session-6
# call of three tune invocations made ten and lost two (a tune.json and its table); keep a call
# to at most 8 plain files, or tar the subdirectories at its end.
#   step      default limit  writes
#   ctest     150            tests.txt: the GPU test binary in $GPU_SHARDS shards ($GTEST_FILTER,
#                            e.g. '*tma*'); the CPU tests run on the CPU machine
#   bench     200            bench.json, log.txt: check (strict 0.01 %) + bench, default dispatch
#                            (with $BENCH_TABLE set: that tuning table, via TILEGLU_TUNING_TABLE;
#                            $BENCH_ARGS, e.g. --rounds 3 --models a --m 256)
#   tune      300            tune.json, tune.table: bench (bf16) of every config at $TUNE_M
#                            ($TUNE_ARGS, e.g. --no-baselines --tune-configs a,b)
#   abtable   300            ab.json, session/ab_log.txt: the table $AB_TABLE (default: this
#                            $OUT's tune.table) loaded back, its config against the embedded
#                            default's at $TUNE_M, interleaved rounds (swiglu_bench --ab-table)
#   readknobs 300            knobs.json, session/knobs_log.txt: the swap-AB weight-read knobs
#                            (decode_plan.h) A/B in one process: per case at $KNOB_M, the dispatched
#                            config under each of $KNOB_SETTINGS (BATCH/PROMOTION[/STAGGER[/p|k]],
#                            p/k: the weights packed slot by slot in tile/k order,
#                            TILEGLU_SWAPAB_PACKED_WEIGHTS;
#                            swiglu_bench --read-knobs) against
#                            the default read, with the read probes ($KNOB_ARGS, e.g. --config X)
#   oldnew    200            oldnew.json, session/oldnew/: the library of .devbuild/old/ (built by
#                            bench/old_library.sh REV) against this build, in alternating
#                            processes, $OLDNEW_ROUNDS rounds (default 3) of each of the
#                            ';'-separated bench argument sets $OLDNEW_CASES (default: 14B-72B at
#                            M = 1537); scripts/old_new_summary.py pairs them up
#   splittrace 120           trace.json, session/trace_log.txt + trace_summary.txt: the split-tail
#                            config's per-CTA timeline next to the whole-tile config
#                            (build/bench/split_tail_trace, scripts/split_tail_trace_summary.py) on
#                            $TRACE_CASES (NAME:M:K:I, space-separated), $TRACE_REPS timed runs each
#   promoted  150            session/bench_promoted.json: check + bench, TILEGLU_ACCUMULATION=promoted
#   pytest    150            tests.txt (appended): tests/python on the GPU
#   overhead  60             session/overhead.json: host cost per Python call
#   torch     300            session/torch.json, torch.png: python/bench_torch.py $TORCH_ARGS
#   e2e       200            session/e2e.json: python/e2e_qwen.py $E2E_ARGS
#   ncu       200            session/ncu.txt: Nsight Compute sections of tileglu's kernel (the
#                            default, or each of the space-separated $NCU_CONFIGS forced) and of
#                            the first $NCU_CUBLAS cuBLAS kernels on $NCU_MODELS at M = $NCU_M
#                            (clocks left alone)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-session_out}"
mkdir -p "$OUT"
MORE="$(mktemp -d)/session"
mkdir -p "$MORE"
# An invocation whose steps wrote nothing secondary leaves an earlier session.tar.gz in $OUT alone
# (a pytest-only call once replaced the torch/e2e results that way); still, give each
# invocation its own $OUT.
pack() {
  [[ -n "$(ls -A "$MORE")" ]] || return 0
  tar czf "$OUT/session.tar.gz" -C "$(dirname "$MORE")" session
}
TUNE_M="${TUNE_M:-1,4,16,64,128,256,512,1000,1537,2048,4096,8192,16384}"

export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TILEGLU_LIBRARY="$PWD/build/libtileglu.so"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export TILEGLU_COMMIT="${TILEGLU_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
log() { echo "[session] $(date -u +%T) $*"; }
# The build tree was configured on the CPU machine: ctest and the tests' library paths name that
# checkout's absolute path. Where this copy lives elsewhere, make that path lead here.
src_dir="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build/CMakeCache.txt 2>/dev/null)"
if [[ -n "$src_dir" && "$src_dir" != "$PWD" && ! -e "$src_dir" ]]; then
  mkdir -p "$(dirname "$src_dir")" && ln -s "$PWD" "$src_dir" && log "linked $src_dir -> $PWD"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv,noheader 2>/dev/null

for spec in "$@"; do
  step="${spec%%:*}"
  limit="${spec#*:}"
  [[ "$limit" == "$spec" ]] && limit=""
  case "$step" in
    ctest|gputest)
      log "GPU tests (limit ${limit:=150}s)"
      # The test binary itself, in $GPU_SHARDS parallel gtest shards (default 14: the fp64
      # references are the slow part): ctest cannot load the test files on the device machine,
      # whose CMake lacks the GoogleTest module they include (session 11). $GTEST_FILTER narrows.
      shards="${GPU_SHARDS:-14}"
      for i in $(seq 0 $((shards - 1))); do
        GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout "$limit" build/tests/tileglu_gpu_tests \
          --gtest_filter="${GTEST_FILTER:-*}" >"$MORE/gpu_shard_$i.txt" 2>&1 &
      done
      wait
      cat "$MORE"/gpu_shard_*.txt >>"$OUT/tests.txt"; rm -f "$MORE"/gpu_shard_*.txt
      echo "GPU tests: $(grep -c '^\[       OK \]' "$OUT/tests.txt") passed, $(grep -c '^\[  FAILED  \] .*ms)$' "$OUT/tests.txt") failed" |
        tee -a "$OUT/tests.txt"
      grep -E '^\[  FAILED  \] .*ms\)$' "$OUT/tests.txt" | head -8 ;;
    bench)
      log "check + bench, default dispatch (limit ${limit:=200}s)"
      if [[ -n "${BENCH_TABLE:-}" ]]; then log "with TILEGLU_TUNING_TABLE=$BENCH_TABLE"; fi
      # shellcheck disable=SC2086
      TILEGLU_TUNING_TABLE="${BENCH_TABLE:-}" OUT="$OUT" timeout "$limit" bash bench/run_gpu.sh --strict \
        ${BENCH_ARGS:-} >/dev/null 2>&1
      echo "exit $?"; tail -8 "$OUT/log.txt" ;;
    tune)
      log "tune: every config, bf16, M in $TUNE_M (limit ${limit:=300}s)"
      # shellcheck disable=SC2086
      timeout "$limit" build/bench/swiglu_bench --bench --dtype bf16 --m "$TUNE_M" ${TUNE_ARGS:-} \
        --tune "$OUT/tune.table" --out "$OUT/tune.json" >"$MORE/tune_log.txt" 2>&1
      echo "exit $?"; tail -4 "$MORE/tune_log.txt" ;;
    abtable)
      table="${AB_TABLE:-$OUT/tune.table}"
      log "tuning table $table against the embedded default, M in $TUNE_M (limit ${limit:=300}s)"
      # shellcheck disable=SC2086
      timeout "$limit" build/bench/swiglu_bench --bench --no-baselines --no-ceilings --dtype bf16 \
        --m "$TUNE_M" ${AB_ARGS:-} --ab-table "$table" --out "$OUT/ab.json" >"$MORE/ab_log.txt" 2>&1
      echo "exit $?"; grep -E "SLOWER|ERROR" "$MORE/ab_log.txt" | head -20; tail -2 "$MORE/ab_log.txt" ;;
    readknobs)
      log "weight-read knobs ${KNOB_SETTINGS:=-/128,4/-,2/-,-/-/1,4/-/1} at M ${KNOB_M:=1,16} (limit ${limit:=300}s)"
      # shellcheck disable=SC2086
      timeout "$limit" build/bench/swiglu_bench --bench --no-baselines --dtype bf16 --m "$KNOB_M" \
        --read-knobs "$KNOB_SETTINGS" ${KNOB_ARGS:-} --out "$OUT/knobs.json" >"$MORE/knobs_log.txt" 2>&1
      echo "exit $?"; grep -E "warning|stream qwen|  tma_|bench qwen|read knobs" "$MORE/knobs_log.txt" | cut -c1-400 ;;
    oldnew)
      log "old library ($(cat .devbuild/old/REV 2>/dev/null)) against this build (limit ${limit:=200}s)"
      deadline=$(( $(date +%s) + limit ))
      old_lib="$(ls .devbuild/old/libtileglu.so.*.xz 2>/dev/null | head -1)"
      if [[ -z "$old_lib" ]]; then echo "no .devbuild/old/libtileglu.so.*.xz (bench/old_library.sh)"; continue; fi
      mkdir -p "$MORE/oldnew" /tmp/tileglu_old
      so="$(basename "$old_lib" .xz)"
      xz -dc "$old_lib" >"/tmp/tileglu_old/$so"
      ln -sf "$so" /tmp/tileglu_old/libtileglu.so.0 && ln -sf libtileglu.so.0 /tmp/tileglu_old/libtileglu.so
      IFS=';' read -r -a cases <<<"${OLDNEW_CASES:---models qwen2.5-14b,qwen2.5-32b,qwen2.5-72b --m 1537}"
      # Alternating processes: old, new, old, new ... per case, so that clock and thermal drift
      # fall on both; the old library comes first on the library path, ahead of the bench's RUNPATH.
      for r in $(seq 1 "${OLDNEW_ROUNDS:-3}"); do
        for c in "${!cases[@]}"; do
          for v in old new; do
            left=$(( deadline - $(date +%s) )); (( left > 5 )) || break 3
            libs="$LD_LIBRARY_PATH"; [[ $v == old ]] && libs="/tmp/tileglu_old:$libs"
            # shellcheck disable=SC2086
            LD_LIBRARY_PATH="$libs" timeout "$left" build/bench/swiglu_bench --bench --no-ceilings \
              --dtype bf16 ${cases[$c]} --out "$MORE/oldnew/${v}_case${c}_round$r.json" \
              >"$MORE/oldnew/${v}_case${c}_round$r.log" 2>&1
          done
        done
      done
      python3 scripts/old_new_summary.py "$MORE/oldnew" --out "$OUT/oldnew.json" ;;
    splittrace)
      cases="${TRACE_CASES:-14b:256:5120:13824 32b:256:5120:27648 72b:100:8192:29568 72b:256:8192:29568 72b:512:8192:29568 0.5b:256:896:4864}"
      log "split-tail timeline: $cases (limit ${limit:=120}s)"
      args=()
      for c in $cases; do args+=(--case "$c"); done
      timeout "$limit" build/bench/split_tail_trace "${args[@]}" --reps "${TRACE_REPS:-20}" \
        --out "$OUT/trace.json" >"$MORE/trace_log.txt" 2>&1
      echo "exit $?"; cat "$MORE/trace_log.txt"
      python3 scripts/split_tail_trace_summary.py "$OUT/trace.json" | tee "$MORE/trace_summary.txt" ;;
    promoted)
      log "check + bench, TILEGLU_ACCUMULATION=promoted (limit ${limit:=150}s)"
      TILEGLU_ACCUMULATION=promoted timeout "$limit" build/bench/swiglu_bench --check --bench \
        --strict --out "$MORE/bench_promoted.json" >"$MORE/promoted_log.txt" 2>&1
      echo "exit $?"; tail -6 "$MORE/promoted_log.txt" ;;
    pytest)
      log "pytest tests/python (limit ${limit:=150}s)"
      timeout "$limit" python3 -m pytest tests/python -q -rs -p no:cacheprovider >>"$OUT/tests.txt" 2>&1
      echo "pytest exit $?" | tee -a "$OUT/tests.txt"; tail -15 "$OUT/tests.txt" ;;
    overhead)
      log "Python host overhead (limit ${limit:=60}s)"
      timeout "$limit" python3 python/bench_overhead.py --json "$MORE/overhead.json" >"$MORE/overhead.txt" 2>&1
      echo "exit $?"; tail -6 "$MORE/overhead.txt" ;;
    torch)
      log "python/bench_torch.py ${TORCH_ARGS:-} (limit ${limit:=300}s)"
      # shellcheck disable=SC2086
      timeout "$limit" python3 python/bench_torch.py ${TORCH_ARGS:-} --json "$MORE/torch.json" \
        --png "$MORE/torch.png" >"$MORE/torch.txt" 2>&1
      echo "exit $?"; tail -40 "$MORE/torch.txt" ;;
    e2e)
      log "python/e2e_qwen.py ${E2E_ARGS:-} (limit ${limit:=200}s)"
      # shellcheck disable=SC2086
      timeout "$limit" python3 python/e2e_qwen.py ${E2E_ARGS:-} --json "$MORE/e2e.json" >"$MORE/e2e.txt" 2>&1
      echo "exit $?"; tail -20 "$MORE/e2e.txt" ;;
    ncu)
      log "ncu on ${NCU_MODELS:=qwen2.5-0.5b,qwen2.5-72b} M=${NCU_M:=16384} (limit ${limit:=200}s)"
      deadline=$(( $(date +%s) + limit ))
      # One ncu process per (model, target): ours under each forced config ("" = the default
      # dispatch), then cuBLAS's kernels (a small-M GEMM may be a GEMM and a split-K reduction).
      ncu_run() {  # config kernel_regex count model
        local left=$(( deadline - $(date +%s) )); (( left > 5 )) || return 0
        echo "=== model $4 M $NCU_M config ${1:-default} kernels $2" >>"$MORE/ncu.txt"
        TILEGLU_FORCE_CONFIG="$1" timeout "$left" ncu --clock-control none -k "regex:$2" -c "$3" \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
          --section WarpStateStats --section LaunchStats --section Occupancy \
          build/bench/swiglu_bench --bench --no-ceilings --dtype bf16 --models "$4" \
          --m "$NCU_M" --reps 1 --out /dev/null >>"$MORE/ncu.txt" 2>&1
      }
      for model in ${NCU_MODELS//,/ }; do
        for config in ${NCU_CONFIGS:-default}; do
          [[ "$config" == default ]] && config=""
          ncu_run "$config" "sm90_swiglu" 1 "$model"
        done
        ncu_run "" "xmma|nvjet|sm90_gemm|cutlass|gemv|splitK|reduce" "${NCU_CUBLAS:-1}" "$model"
      done
      grep -E "^  [a-zA-Z_].*\(|SM Frequency|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Registers Per" "$MORE/ncu.txt" | head -80 ;;
    *)
      echo "unknown step '$step'" >&2 ;;
  esac
  pack
done
log "done"
