#!/usr/bin/env bash
# Packs the build tree for the device tool's `carry` (at most 64 MiB with the working tree):
# .devbuild/build = build/ without object files, the reference archive and CMake's compiler-id
# files, binaries stripped, and the CPU-test binary (22 MB: it links every kernel) replaced by a
# stand-in that lists no tests, since the CPU tests run on the CPU machine. On the GPU machine:
#   rm -rf build && mv .devbuild/build build
# (.devbuild/ is in .gitignore.) It empties .devbuild/ first: run bench/old_library.sh, which adds
# .devbuild/old/, after it.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .devbuild && mkdir -p .devbuild
cp -a build .devbuild/build
cd .devbuild/build
find . -name '*.o' -delete
rm -rf libtileglu_reference.a CMakeFiles/3.*
strip --strip-unneeded tests/tileglu_gpu_tests bench/swiglu_bench
[[ -f bench/split_tail_trace ]] && strip --strip-unneeded bench/split_tail_trace
strip --strip-debug libtileglu.so.*.*.*
printf '#!/bin/sh\n# stand-in on the GPU machine: the CPU tests run on the CPU machine\nexit 0\n' > tests/tileglu_cpu_tests
du -sh .
