#!/usr/bin/env bash
# Tests cmake/nvcc_guard.sh with fake compilers: it must fail a compile whose stderr carries
# C7510, C7511, C7515 or C7517 (and remove its object file), and pass through everything else.
#   test_nvcc_guard.sh <path to nvcc_guard.sh>
set -uo pipefail
guard="$1"
work="$(mktemp -d "${TMPDIR:-/tmp}/nvcc_guard_test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

# A fake compiler: prints $FAKE_STDOUT and $FAKE_STDERR, writes the -o file, exits $FAKE_RC.
cat >"$work/fake_nvcc" <<'FAKE'
#!/usr/bin/env bash
out=""
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "-o" ]]; then out="$2"; shift; fi
  shift
done
[[ -n "$out" ]] && echo "object" >"$out"
printf '%s' "${FAKE_STDOUT:-}"
printf '%s' "${FAKE_STDERR:-}" >&2
exit "${FAKE_RC:-0}"
FAKE
chmod +x "$work/fake_nvcc"

# check NAME WANT_RC WANT_OBJECT(yes|no) STDERR [RC]
check() {
  local name="$1" want_rc="$2" want_object="$3" stderr_text="$4" fake_rc="${5:-0}"
  local obj="$work/$name.o"
  rm -f "$obj"
  FAKE_STDOUT="out-$name" FAKE_STDERR="$stderr_text" FAKE_RC="$fake_rc" \
    bash "$guard" "$work/fake_nvcc" -c x.cu -o "$obj" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  local ok=1
  if [[ $rc -ne $want_rc ]]; then echo "FAIL $name: exit $rc, want $want_rc"; ok=0; fi
  if [[ "$want_object" == yes && ! -f "$obj" ]]; then echo "FAIL $name: object removed"; ok=0; fi
  if [[ "$want_object" == no && -f "$obj" ]]; then echo "FAIL $name: object kept"; ok=0; fi
  if [[ "$(cat "$work/stdout")" != "out-$name" ]]; then echo "FAIL $name: stdout not passed through"; ok=0; fi
  if [[ -n "$stderr_text" ]] && ! grep -qF "${stderr_text%%$'\n'*}" "$work/stderr"; then
    echo "FAIL $name: stderr not passed through"; ok=0
  fi
  if [[ $ok -eq 1 ]]; then passes=$((passes + 1)); echo "ok   $name"; else failures=$((failures + 1)); sed 's/^/     | /' "$work/stderr"; fi
}

c7510='ptxas /tmp/k.ptx, line 812; warning : Potential Performance Loss: wgmma.mma_async instructions are serialized due to the presence of Extern calls in the function (C7510)'
check clean           0 yes ""
check benign_warning  0 yes $'ptxas info    : Used 168 registers\nwarning : Registers are spilled to local memory in function (C7509)'
check c7510           1 no  "$c7510"
# The form ptxas 13.0 prints (an "info" line, the code in parentheses), from a real compile.
check c7510_ptxas13   1 no  "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to wgmma pipeline crossing function boundary at a function call in the function '_ZN7tileglu7kernels30sm90_swiglu_k2_pingpong_kernel'"
check c7511           1 no  $'ptxas warning : wgmma.mma_async serialized due to non wgmma instructions defining accumulator registers of a wgmma (C7511)\n'
check c7515           1 no  'warning : wgmma.mma_async serialized: accumulator touched between arrive and wait (C7515)'
# C7517 in the form ptxas prints it (an "info" line, the code in parentheses).
check c7517           1 no  "ptxas info    : (C7517) warpgroup.wait is injected in around line 27304 by compiler to allow use of registers defined by GMMA in function '_ZN7tileglu7kernels30sm90_swiglu_k2_pingpong_kernel'"
check c7517_warning   1 no  'ptxas warning : warpgroup.wait is injected by compiler to allow use of registers defined by GMMA (C7517)'
check c7510_after_ok  1 no  $'ptxas info    : Used 168 registers\n'"$c7510"
check compiler_error  3 yes 'x.cu(1): error: expected a ;' 3
check similar_code    0 yes 'warning (C75100) and C7512 are not the guarded codes'
check similar_c7517   0 yes 'C75170, XC7517 and C7516 are not the guarded codes'

# No arguments is a usage error.
bash "$guard" >/dev/null 2>&1
if [[ $? -eq 64 ]]; then passes=$((passes + 1)); echo "ok   usage"; else failures=$((failures + 1)); echo "FAIL usage"; fi

echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
