#!/usr/bin/env python3
"""Does where W_up lies relative to W_gate change tileglu's decode time?

bench_torch.py sees qwen2.5-72b at M = 1 take 254-268 us with two separately allocated weights and
228-238 us with one stacked [2I, K] weight, the same kernel both times. This script times one
shape (default 72B, M = 1) under CUDA-graph replay with W_up placed at several byte offsets after
W_gate inside one buffer (the stacked layout is offset I*K elements), and with two separate
allocations, so the difference can be tied to the offset or ruled out.

    python3 python/bench_weight_layout.py [--k 8192] [--i 29568] [--m 1] [--json PATH]
Needs an sm_90 GPU, PyTorch and libtileglu.so.
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=8192)
    ap.add_argument("--i", type=int, default=29568)
    ap.add_argument("--m", type=int, default=1)
    ap.add_argument("--calls", type=int, default=20, help="calls per graph")
    ap.add_argument("--reps", type=int, default=30, help="graph replays timed")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import torch
    import tileglu

    k, i, m = args.k, args.i, args.m
    dev = torch.device("cuda")
    elems = i * k
    # Offsets (elements) of W_up after the start of W_gate inside one buffer: the stacked layout,
    # then that plus a few alignments (2 MiB, 64 KiB, 4 KiB, 256 B, in elements of 2 bytes).
    extras = {"stacked (+0)": 0, "+2MiB": 1 << 20, "+64KiB": 1 << 15, "+4KiB": 1 << 11, "+256B": 128,
              "+1MiB": 1 << 19}
    buf = torch.randn(2 * elems + (1 << 21), device=dev, dtype=torch.bfloat16).mul_(0.02)
    x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    out = torch.empty(m, i, device=dev, dtype=torch.bfloat16)

    def time_call(fn):
        fn()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(args.calls):
                fn()
        g.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            g.replay()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1000.0 / args.calls)
        return statistics.median(times)

    rows = []
    wg = buf[:elems].view(i, k)
    for name, extra in extras.items():
        wu = buf[elems + extra: 2 * elems + extra].view(i, k)
        us = time_call(lambda: tileglu.swiglu(x, wg, wu, out=out))
        rows.append({"layout": name, "up_minus_gate_bytes": (wu.data_ptr() - wg.data_ptr()), "us": us})
    stacked = buf[:2 * elems].view(2 * i, k)
    rows.append({"layout": "stacked call", "up_minus_gate_bytes": 2 * elems,
                 "us": time_call(lambda: tileglu.swiglu(x, stacked, out=out))})
    del buf
    torch.cuda.empty_cache()
    wg2 = torch.randn(i, k, device=dev, dtype=torch.bfloat16).mul_(0.02)
    wu2 = torch.randn(i, k, device=dev, dtype=torch.bfloat16).mul_(0.02)
    rows.append({"layout": "separate allocations", "up_minus_gate_bytes": wu2.data_ptr() - wg2.data_ptr(),
                 "us": time_call(lambda: tileglu.swiglu(x, wg2, wu2, out=out))})
    for r in rows:
        print(f"{r['layout']:22s} up - gate = {r['up_minus_gate_bytes']:>14d} B  {r['us']:8.1f} us")
    if args.json:
        Path(args.json).write_text(json.dumps({"k": k, "i": i, "m": m, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
