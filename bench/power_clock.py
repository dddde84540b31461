#!/usr/bin/env python3
"""Power, SM clock and throughput of tileglu and of cuBLAS's merged GEMM under sustained load.

Why: at M >= 2048 tileglu and cuBLAS's GEMM run the same multiply-adds and, under ncu, both keep
the tensor pipe ~98 % busy (bench/NOTES.md, session 2); what separates them in a minutes-long
benchmark is the clock the card holds. If both run at the board's power limit, a kernel can only
be faster at equal tensor-pipe occupancy by spending less energy per multiply-add. This script
measures that directly: each method runs back to back for --seconds (A B A B ...) on the same
inputs while nvidia-smi samples power, SM clock and the clock-event reasons every 100 ms.

Per phase it reports TFLOP/s (2*M*K*2I per call over the event-timed batches after the first
--settle seconds), the median power draw and SM clock of the samples in the same window, and the
energy per unit of work (W / TFLOP/s = J per TFLOP). Needs an sm_90 GPU, PyTorch, libtileglu.so
and nvidia-smi.

    python3 bench/power_clock.py --shapes qwen2.5-72b:16384,qwen2.5-0.5b:16384 --json out.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

SHAPES = json.loads((Path(__file__).resolve().parent / "shapes.json").read_text())["models"]
FIELDS = ["power.draw", "clocks.sm", "clocks.mem", "temperature.gpu"]


class Sampler:
    """nvidia-smi --query-gpu ... -lms 100 in a subprocess; every line stamped with time.time()."""

    def __init__(self, reason_field):
        query = ",".join(FIELDS + ([reason_field] if reason_field else []))
        self.proc = subprocess.Popen(
            ["nvidia-smi", "-i", "0", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-lms", "100"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.samples = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            try:
                values = [float(p) for p in parts[:len(FIELDS)]]
            except ValueError:
                continue
            reason = parts[len(FIELDS)] if len(parts) > len(FIELDS) else ""
            self.samples.append((time.time(), values, reason))

    def window(self, t0, t1):
        return [s for s in self.samples if t0 <= s[0] <= t1]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


def reason_field():
    """The clock-event reasons field this nvidia-smi knows (renamed in newer drivers), or None."""
    for field in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        probe = subprocess.run(["nvidia-smi", "-i", "0", f"--query-gpu={field}", "--format=csv,noheader"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() and "Field" not in probe.stdout:
            return field
    return None


def run_phase(torch, fn, flops, seconds, settle, batch):
    """Calls fn in event-timed batches for `seconds`; returns (TFLOP/s after settle, window)."""
    events = []
    t_start = time.time()
    while time.time() - t_start < seconds:
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()  # keeps the host within one batch of the GPU, so host time maps to GPU time
        events.append((time.time(), begin, end))
    t_end = time.time()
    kept = [(t, b, e) for t, b, e in events if t >= t_start + settle]
    ms = sum(b.elapsed_time(e) for _, b, e in kept)
    tflops = flops * batch * len(kept) / (ms * 1e-3) / 1e12 if ms > 0 else float("nan")
    return tflops, (t_start + settle, t_end)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="qwen2.5-72b:16384,qwen2.5-7b:8192,qwen2.5-0.5b:16384",
                    help="model:M pairs (models of bench/shapes.json)")
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each phase")
    ap.add_argument("--settle", type=float, default=1.0, help="seconds of each phase left out")
    ap.add_argument("--rounds", type=int, default=2, help="A B rounds per shape")
    ap.add_argument("--configs", default="",
                    help="tileglu configs to run as well, each forced by TILEGLU_FORCE_CONFIG for its phase")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import torch
    import tileglu

    reasons = reason_field()
    limits = subprocess.run(["nvidia-smi", "-i", "0", "--query-gpu=name,power.limit,power.max_limit,clocks.max.sm,clocks.max.mem",
                             "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    print(f"GPU: {limits}")
    sampler = Sampler(reasons)
    torch.manual_seed(0)
    results = []
    for spec in args.shapes.split(","):
        model, m = spec.split(":")
        k, i = SHAPES[model]["hidden"], SHAPES[model]["intermediate"]
        m = int(m)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = (torch.randn(2 * i, k, device="cuda", dtype=torch.float32) * 0.02).to(torch.bfloat16)
        h = torch.empty(m, i, device="cuda", dtype=torch.bfloat16)
        y = torch.empty(m, 2 * i, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * k * 2 * i
        methods = {
            "cublas_merged_gemm": lambda: torch.matmul(x, w.t(), out=y),
            "tileglu": lambda: tileglu.swiglu(x, w, out=h),
        }
        for config in filter(None, args.configs.split(",")):
            methods[f"tileglu:{config}"] = lambda: tileglu.swiglu(x, w, out=h)
        # Calls per event-timed batch: about 50 ms of work at ~700 TFLOP/s.
        batch = max(1, int(0.05 * 700e12 / flops))
        for rnd in range(args.rounds):
            for name, fn in methods.items():
                # The C library reads TILEGLU_FORCE_CONFIG at every call.
                forced = name.split(":", 1)[1] if ":" in name else ""
                os.environ["TILEGLU_FORCE_CONFIG"] = forced
                fn()  # warm-up: handles, heuristics, module load
                torch.cuda.synchronize()
                tflops, (t0, t1) = run_phase(torch, fn, flops, args.seconds, args.settle, batch)
                window = sampler.window(t0, t1)
                power = statistics.median(s[1][0] for s in window) if window else float("nan")
                clock = statistics.median(s[1][1] for s in window) if window else float("nan")
                mem_clock = statistics.median(s[1][2] for s in window) if window else float("nan")
                temp = max(s[1][3] for s in window) if window else float("nan")
                row = {"model": model, "M": m, "K": k, "I": i, "method": name, "round": rnd,
                       "tflops": round(tflops, 1), "power_w": round(power, 1), "sm_clock_mhz": clock,
                       "mem_clock_mhz": mem_clock, "max_temp_c": temp,
                       "j_per_tflop": round(power / tflops, 3) if tflops == tflops and tflops > 0 else None,
                       "tflops_per_ghz": round(tflops / (clock / 1000), 1) if clock == clock and clock > 0 else None,
                       "samples": len(window),
                       "clock_event_reasons": sorted({s[2] for s in window})}
                results.append(row)
                print(f"{model:13s} M={m:6d} {name:20s} r{rnd} {tflops:6.1f} TFLOP/s  {power:6.1f} W  "
                      f"SM {clock:6.0f} MHz  {row['j_per_tflop']} J/TFLOP  {row['tflops_per_ghz']} TFLOP/s per GHz  "
                      f"reasons {row['clock_event_reasons']}", flush=True)
        os.environ.pop("TILEGLU_FORCE_CONFIG", None)
        del x, w, h, y
        torch.cuda.empty_cache()
    sampler.stop()
    if args.json:
        Path(args.json).write_text(json.dumps({"gpu": limits, "reason_field": reasons, "seconds": args.seconds,
                                               "settle": args.settle, "rows": results}, indent=1))


if __name__ == "__main__":
    main()
