#!/usr/bin/env bash
# Installs what the build needs that the machine may lack. Idempotent: a second run does nothing.
#   - CUTLASS 4.2 headers (the nvidia-cutlass wheel) into .deps/cutlass
#   - ccache, through apt-get, when it is missing and apt is usable (optional: never fails the run)
#   - pytest, through pip, for the torch-free Python tests (optional: never fails the run)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CUTLASS_VERSION="4.2.0.0"
CUTLASS_TARGET="$ROOT/.deps/cutlass"
CUTLASS_INCLUDE="$CUTLASS_TARGET/cutlass_library/source/include"
STAMP="$CUTLASS_TARGET/.tileglu-nvidia-cutlass-$CUTLASS_VERSION"

if [[ -f "$STAMP" && -f "$CUTLASS_INCLUDE/cutlass/cutlass.h" ]]; then
  echo "setup: CUTLASS $CUTLASS_VERSION headers present in $CUTLASS_TARGET"
else
  echo "setup: installing nvidia-cutlass==$CUTLASS_VERSION into $CUTLASS_TARGET"
  rm -rf "$CUTLASS_TARGET"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target "$CUTLASS_TARGET" "nvidia-cutlass==$CUTLASS_VERSION"
  if [[ ! -f "$CUTLASS_INCLUDE/cutlass/cutlass.h" ]]; then
    echo "setup: nvidia-cutlass installed but $CUTLASS_INCLUDE/cutlass/cutlass.h is missing" >&2
    exit 1
  fi
  touch "$STAMP"
fi

# ccache only speeds rebuilds up; its absence is not an error.
if command -v ccache >/dev/null 2>&1; then
  echo "setup: ccache present ($(command -v ccache))"
elif command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]]; then
  echo "setup: installing ccache with apt-get"
  if ! { apt-get update -qq >/dev/null 2>&1 &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache >/dev/null 2>&1; }; then
    echo "setup: could not install ccache; building without it"
  fi
else
  echo "setup: ccache not found and apt-get not usable; building without it"
fi

# pytest for the Python package's torch-free tests (tests/python); without it ctest skips them.
if python3 -c 'import pytest' >/dev/null 2>&1; then
  echo "setup: pytest present"
elif ! python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore pytest; then
  echo "setup: could not install pytest; the Python tests will be skipped"
fi
