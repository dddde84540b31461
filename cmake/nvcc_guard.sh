#!/usr/bin/env bash
# Compiler launcher for CUDA translation units (CMAKE_CUDA_COMPILER_LAUNCHER).
#
#   nvcc_guard.sh [ccache] nvcc <args...>
#
# Runs the command it is given, passes its stdout and stderr through, and fails the compile when
# ptxas reports (as an "info" or "warning" line, depending on the version) that it serialized
# WGMMA:
#   C7510  wgmma pipeline crosses a function boundary (a real call inside the mainloop)
#   C7511  wgmma serialized for another reason (e.g. an unsupported pattern of accumulator use)
#   C7515  an accumulator is touched between warpgroup_arrive and its wait
#   C7517  "warpgroup.wait is injected ... by compiler to allow use of registers defined by GMMA":
#          a register a WGMMA writes is read before the code waits for it, so ptxas inserts a
#          wait there and the WGMMA that should overlap it runs serialized
# A kernel that compiles with one of these runs every WGMMA serialized: several times slower and
# still correct, so nothing but the build can catch it. ccache replays a cached compile's stderr,
# so a cache hit fails the same way. On failure the object file is removed, so the next build
# compiles the TU again instead of treating it as up to date.
set -uo pipefail

if [[ $# -eq 0 ]]; then
  echo "nvcc_guard.sh: usage: nvcc_guard.sh <compiler> <args...>" >&2
  exit 64
fi

stderr_file="$(mktemp "${TMPDIR:-/tmp}/nvcc_guard.XXXXXX")"
trap 'rm -f "$stderr_file"' EXIT

"$@" 2>"$stderr_file"
rc=$?
cat "$stderr_file" >&2

if [[ $rc -ne 0 ]]; then
  exit "$rc"
fi

codes="$(grep -oE '\bC751[0157]\b' "$stderr_file" | sort -u | tr '\n' ' ')"
if [[ -n "$codes" ]]; then
  # Remove the object so that the TU is not considered built.
  output=""
  prev=""
  for arg in "$@"; do
    if [[ "$prev" == "-o" ]]; then output="$arg"; fi
    case "$arg" in
      --output-file=*) output="${arg#--output-file=}" ;;
    esac
    prev="$arg"
  done
  if [[ -n "$output" && -f "$output" ]]; then rm -f "$output"; fi
  echo "nvcc_guard.sh: error: ptxas reported ${codes}(treated as errors${output:+, compiling $output}):" \
       "WGMMA would run serialized; see README.md, section Build" >&2
  exit 1
fi
exit 0
