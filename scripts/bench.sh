#!/usr/bin/env bash
# Builds and runs the GPU benchmark/check, build/bench/swiglu_bench, with this script's arguments.
# Needs an sm_90 GPU (H100/H200); exits 2 without one.
#   TILEGLU_SKIP_BUILD=1  run the existing build/bench/swiglu_bench without rebuilding
#   TILEGLU_JOBS          parallel build jobs (default: all cores)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="build"
BENCH="$BUILD_DIR/bench/swiglu_bench"

no_gpu() {
  echo "tileglu's benchmark needs an sm_90 GPU (H100/H200); none found — run scripts/test.sh for the CPU tests" >&2
  exit 2
}

command -v nvidia-smi >/dev/null 2>&1 || no_gpu
caps="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null || true)"
if [[ -n "$caps" ]]; then
  grep -qx '[[:space:]]*9\.0[[:space:]]*' <<<"$caps" || no_gpu
else
  # Drivers too old for compute_cap: go by name.
  nvidia-smi -L 2>/dev/null | grep -Eq 'H100|H200|H800|H20|GH200' || no_gpu
fi

if [[ "${TILEGLU_SKIP_BUILD:-0}" == "1" && -x "$BENCH" ]]; then
  echo "bench.sh: TILEGLU_SKIP_BUILD=1, using the existing $BENCH"
else
  bash scripts/setup.sh
  generator=(-G Ninja)
  if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || ! command -v ninja >/dev/null 2>&1; then generator=(); fi
  cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$BUILD_DIR" -j "${TILEGLU_JOBS:-$(nproc)}" --target swiglu_bench
fi
[[ -x "$BENCH" ]] || { echo "bench.sh: $BENCH was not built (is bench/CMakeLists.txt there?)" >&2; exit 3; }

# cuBLASLt may live outside the loader's path (a CUDA toolkit's lib64, or the nvidia-cublas wheel).
if ldd "$BENCH" | grep -q 'not found'; then
  extra=""
  for dir in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64 \
             "$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null || true)"; do
    [[ -n "$dir" && -d "$dir" ]] && extra="$extra:$dir"
  done
  export LD_LIBRARY_PATH="${extra#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
exec "$BENCH" "$@"
