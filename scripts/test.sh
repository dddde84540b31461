#!/usr/bin/env bash
# Everything CI runs, on any machine (no GPU needed): install the build's dependencies, configure
# (Release, Ninja, build/), build the library, every kernel for sm_90a, the tests and the benchmark
# if present, then run the CPU tests under ctest.
#   TILEGLU_JOBS     parallel build jobs (default 2: the CI machine has 2 cores)
#   TILEGLU_BUILD_DIR build directory (default build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${TILEGLU_BUILD_DIR:-build}"
JOBS="${TILEGLU_JOBS:-2}"

bash scripts/setup.sh

# Ninja for a new build tree; an existing one keeps the generator it was made with.
generator=(-G Ninja)
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then generator=(); fi
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "test.sh: build took $(( $(date +%s) - start )) s"
ctest --test-dir "$BUILD_DIR" --output-on-failure
