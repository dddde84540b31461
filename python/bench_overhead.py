#!/usr/bin/env python3
"""Host overhead per call of tileglu.swiglu (needs an sm_90 GPU, PyTorch and libtileglu.so).

What is timed is the CPU: N back-to-back calls of a tiny problem (M=1, K=I=64 by default), timed
with time.perf_counter_ns, in batches short enough that the GPU's launch queue never fills (so the
host never waits on the GPU), synchronising between batches outside the timed region. The median
over batches of the time per call is reported for:

  c_packed      the C call alone, tileglu_swiglu with a pre-packed problem: the C library's own
                validation, device query, dispatch and kernel launch (the floor for any wrapper)
  c_12_args     tileglu_swiglu_separate through ctypes with 12 scalar arguments (why the wrapper
                packs a struct instead)
  swiglu_out    tileglu.swiglu(x, w_gate, w_up, out=out): the eager wrapper, no allocation
  swiglu        tileglu.swiglu(x, w_gate, w_up): the wrapper plus allocating the output
  stacked       tileglu.swiglu(x, w_gate_up)
  torch_empty   torch.empty of the output alone (the allocation every PyTorch op pays)
  custom_op     torch.ops.tileglu.swiglu(x, w_gate, w_up): through the dispatcher
  torch_mm      torch.mm(x, w_gate.t()) for scale: one cuBLAS launch from PyTorch

Wrapper overhead = swiglu_out - c_packed (everything Python adds on top of the C call); with
allocation = swiglu - c_packed - torch_empty is the same overhead measured a second way. The
target is <= 5 us; the verdict line says whether it was met.

    python3 python/bench_overhead.py [--calls 200] [--batches 200] [--json out.json]
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from a checkout without install

import torch  # noqa: E402

import tileglu  # noqa: E402
from tileglu import _lib  # noqa: E402

TARGET_US = 5.0


def time_per_call(fn, calls, batches):
    for _ in range(3):
        for _ in range(calls):
            fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter_ns()
        samples.append((t1 - t0) / calls / 1000.0)
        torch.cuda.synchronize()
    return statistics.median(samples), min(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m", type=int, default=1)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--i", type=int, default=64)
    ap.add_argument("--calls", type=int, default=200, help="calls per timed batch (< 1024)")
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args()

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        print("bench_overhead: needs an sm_90 GPU", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    dt = torch.bfloat16
    x = torch.randn(args.m, args.k, device=dev, dtype=dt)
    wg = torch.randn(args.i, args.k, device=dev, dtype=dt)
    wu = torch.randn(args.i, args.k, device=dev, dtype=dt)
    w_stacked = torch.cat([wg, wu])
    out = torch.empty(args.m, args.i, device=dev, dtype=dt)
    lib = tileglu.load_library()
    stream = torch.cuda.current_stream().cuda_stream
    packed = _lib.PROBLEM_STRUCT.pack(_lib.DTYPE_BF16, args.m, args.k, args.i, x.data_ptr(),
                                      args.k, wg.data_ptr(), args.k, wu.data_ptr(), args.k,
                                      out.data_ptr(), args.i)
    c_packed, c_sep = lib.swiglu_packed, lib.swiglu_separate
    m, k, i = args.m, args.k, args.i
    px, pg, pu, po = x.data_ptr(), wg.data_ptr(), wu.data_ptr(), out.data_ptr()
    swiglu, op = tileglu.swiglu, torch.ops.tileglu.swiglu.default
    shape = (m, i)

    cases = {
        "c_packed": lambda: c_packed(packed, stream),
        "c_12_args": lambda: c_sep(0, m, k, i, px, k, pg, pu, k, po, i, stream),
        "swiglu_out": lambda: swiglu(x, wg, wu, out=out),
        "swiglu": lambda: swiglu(x, wg, wu),
        "stacked": lambda: swiglu(x, w_stacked),
        "torch_empty": lambda: torch.empty(shape, dtype=dt, device=dev),
        "custom_op": lambda: op(x, wg, wu),
        "torch_mm": lambda: torch.mm(x, wg.t()),
    }
    assert c_packed(packed, stream) == 0, lib.last_error_message()
    torch.testing.assert_close(swiglu(x, wg, wu), tileglu.swiglu_reference(x, wg, wu),
                               rtol=2e-2, atol=2e-2)
    results = {}
    with torch.inference_mode():
        for name, fn in cases.items():
            med, best = time_per_call(fn, args.calls, args.batches)
            results[name] = {"median_us": med, "min_us": best}
            print(f"{name:12s} {med:7.2f} us/call (median)  {best:7.2f} (min)")

    overhead = results["swiglu_out"]["median_us"] - results["c_packed"]["median_us"]
    overhead_alloc = (results["swiglu"]["median_us"] - results["c_packed"]["median_us"]
                      - results["torch_empty"]["median_us"])
    verdict = "MET" if max(overhead, overhead_alloc) <= TARGET_US else "NOT MET"
    print(f"wrapper overhead: {overhead:.2f} us (out=), {overhead_alloc:.2f} us (allocating, "
          f"allocation excluded); target <= {TARGET_US} us: {verdict}")
    summary = {
        "device": torch.cuda.get_device_name(), "torch": torch.__version__,
        "python": sys.version.split()[0], "library": str(lib.path),
        "shape": {"m": m, "k": k, "i": i}, "calls_per_batch": args.calls,
        "batches": args.batches, "results": results,
        "wrapper_overhead_us": overhead, "wrapper_overhead_alloc_excluded_us": overhead_alloc,
        "target_us": TARGET_US, "target_met": verdict == "MET",
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
