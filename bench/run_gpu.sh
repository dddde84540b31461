#!/usr/bin/env bash
# What the GPU machine runs, in one call: the check and the benchmark of every model shape.
#   OUT=/some/dir bench/run_gpu.sh [extra swiglu_bench flags, e.g. --quick or --models qwen2.5-7b]
# Writes $OUT/bench.json and $OUT/log.txt. Exit status: the bench's (non-zero if a check failed).
# SWIGLU_BENCH overrides the binary (default build/bench/swiglu_bench); if it is missing and cmake
# is there, the build tree is configured and the bench target built first.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-bench_out}"
mkdir -p "$OUT"
BIN="${SWIGLU_BENCH:-build/bench/swiglu_bench}"

if [ ! -x "$BIN" ] && [ -z "${SWIGLU_BENCH:-}" ] && command -v cmake >/dev/null; then
  echo "[run_gpu] $BIN missing: building" | tee "$OUT/build_log.txt"
  { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
    cmake --build build -j "$(nproc)" --target swiglu_bench; } >>"$OUT/build_log.txt" 2>&1 ||
    { tail -40 "$OUT/build_log.txt"; exit 3; }
fi
[ -x "$BIN" ] || { echo "[run_gpu] no bench binary at $BIN" >&2; exit 3; }

# The library (wherever the build put its shared object) and cuBLASLt.
LIBS="$PWD/build"
for d in $(find build -maxdepth 3 -name 'libtileglu*.so*' -printf '%h\n' 2>/dev/null | sort -u); do
  LIBS="$LIBS:$PWD/$d"
done
if ! ldconfig -p 2>/dev/null | grep -q 'libcublasLt\.so\.13'; then
  for d in \
    "$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__))' 2>/dev/null)/lib" \
    "$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))' 2>/dev/null)/lib" \
    /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    if [ -e "$d/libcublasLt.so.13" ]; then LIBS="$LIBS:$d"; break; fi
  done
fi
export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TILEGLU_COMMIT="${TILEGLU_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

{
  echo "[run_gpu] $(date -u +%FT%TZ) commit $TILEGLU_COMMIT"
  echo "[run_gpu] LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>/dev/null || true
} | tee "$OUT/log.txt"

start=$(date +%s)
"$BIN" --check --bench --out "$OUT/bench.json" "$@" 2>&1 | tee -a "$OUT/log.txt"
rc=${PIPESTATUS[0]}
echo "[run_gpu] swiglu_bench exit $rc after $(( $(date +%s) - start )) s" | tee -a "$OUT/log.txt"
exit "$rc"
