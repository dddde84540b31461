#!/usr/bin/env bash
# Session 11, first GPU call: the GPU tests of the new swap-AB kernels (Pingpong/Cooperative
# prefill, cluster stream-K decode), the tuner over them (decode and prefill M), and the
# read-stream probes; everything packed into $OUT/s11a.tgz plus the short logs.
set -uo pipefail
cd "$(dirname "$0")/.."
O="$OUT"
CTEST_ARGS="-j 12 -R (swapab_pp|swapab_coop|_sk_|Dispatch)" OUT="$O/t" bash bench/run_session.sh ctest:220
TUNE_M=1,2,3,4,8,16,17,32 \
  TUNE_ARGS="--tune-configs k2_swapab_n8_s12_sk,k2_swapab_n16_s11_sk,k2_swapab_n32_s9_sk,k2_swapab_n8_s12_bal,k2_swapab_n16_s11_bal,k2_swapab_n32_s10_bal" \
  OUT="$O/d" bash bench/run_session.sh tune:120
TUNE_M=100,128,256,512,1000,1024,1537,5000 \
  TUNE_ARGS="--tune-configs k2_swapab_pp_c96_n128_s5,k2_swapab_pp_c96_n112_s5,k2_swapab_pp_c64_n176_s5,k2_swapab_coop_c96_n176_s4,k2_swapab_coop_c96_n224_s4,k2_swapab_coop_c96_n256_s4,k2_swapab_coop_c128_n128_s4" \
  OUT="$O/p" bash bench/run_session.sh tune:220
export LD_LIBRARY_PATH="$PWD/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
TILEGLU_LOG_DISPATCH=1 TILEGLU_FORCE_CONFIG=k2_swapab_n8_s12_sk timeout 60 build/bench/swiglu_bench --bench --m 1 \
  --out "$O/probe.json" > "$O/probe_log.txt" 2>&1
echo "probe exit $?"; grep -E "stream|stream-K" "$O/probe_log.txt" | head -20
tar czf "$O/s11a.tgz" -C "$O" t d p probe.json probe_log.txt && rm -rf "$O/d" "$O/p" && mv "$O/t/tests.txt" "$O/tests.txt"; rm -rf "$O/t"
