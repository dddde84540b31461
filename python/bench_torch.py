#!/usr/bin/env python3
"""tileglu against the PyTorch ways of computing silu(x @ Wg.T) * (x @ Wu.T), per model and M.

Needs an sm_90 GPU, PyTorch, Triton (for the merged-GEMM baseline), libtileglu.so; matplotlib for
the PNG (skipped with a message without it). Methods:

  tileglu               tileglu.swiglu(x, w_gate, w_up): separate [I, K] weights
  tileglu_stacked       tileglu.swiglu(x, w_gate_up): one stacked [2I, K] weight
  eager                 F.silu(x @ Wg.T) * (x @ Wu.T): two cuBLAS GEMMs, two elementwise kernels
  merged_triton         x @ W_gate_up.T (one cuBLAS GEMM to [M, 2I]) + a Triton silu-and-mul
                        kernel (the vLLM layout)
  compile_default       torch.compile(eager) (default mode)
  compile_max_autotune  torch.compile(eager, mode="max-autotune-no-cudagraphs"), only for the M
                        values of --autotune-m (autotuning takes minutes); CUDA graphs off because
                        the decode timing captures its own
  cublas_merged_gemm    x @ W_gate_up.T alone: the GEMM a fused kernel has to match

Timing (GPU time, CUDA events, median of --reps):
  * M <= --graph-max-m (decode): each method's calls are captured in one CUDA graph that cycles
    through enough copies of the weights to exceed 3x L2 (so every call reads its weights from
    HBM), at least 20 calls, the graph is replayed, and time per call = replay time / calls. No
    launch overhead is included.
  * larger M: every timed call follows an L2 flush (a write of 2x L2) and a GPU sleep that keeps
    the stream busy while the host enqueues the call, so host overhead is not timed either.
Before timing, every method's output is compared with an fp32 reference (relative error recorded).

Output: JSON (--json) with every measurement and a PNG (--png) with speedup over eager vs M, one
panel per model.

    python3 python/bench_torch.py                         # defaults below, ~10 min on an H200
    python3 python/bench_torch.py --quick                 # 2 models, 3 M values, no max-autotune
    python3 python/bench_torch.py --models qwen2.5-7b --m 1,4096 --autotune-m none
"""
import argparse
import datetime
import json
import math
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # run from a checkout without install

# (hidden size K, intermediate size I) of each model's MLP.
MODELS = {
    "qwen2.5-0.5b": (896, 4864),
    "qwen2.5-7b": (3584, 18944),
    "llama-3-8b": (4096, 14336),
    "qwen2.5-72b": (8192, 29568),
}
DEFAULT_M = [1, 16, 64, 256, 1024, 4096, 16384]
METHODS = ["tileglu", "tileglu_stacked", "eager", "merged_triton", "compile_default",
           "compile_max_autotune", "cublas_merged_gemm"]


def parse_list(text, kind=str):
    if text.strip().lower() in ("", "none"):
        return []
    return [kind(v) for v in text.split(",") if v.strip()]


def build_parser():
    ap = argparse.ArgumentParser(description="tileglu vs PyTorch SwiGLU baselines (needs an sm_90 GPU)")
    ap.add_argument("--models", default=",".join(MODELS), help=f"comma list of {list(MODELS)}")
    ap.add_argument("--m", default=",".join(map(str, DEFAULT_M)), help="comma list of M (tokens)")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"comma list of {METHODS}")
    ap.add_argument("--autotune-m", default="16,4096",
                    help="M values that also run compile_max_autotune ('none' to skip)")
    ap.add_argument("--autotune-models", default="qwen2.5-0.5b,qwen2.5-7b",
                    help="models that run compile_max_autotune ('all' or a comma list)")
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--graph-max-m", type=int, default=64,
                    help="M up to which calls are timed by CUDA-graph replay")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "bench_torch.json")
    ap.add_argument("--png", type=Path, default=HERE / "results" / "bench_torch.png")
    ap.add_argument("--quick", action="store_true",
                    help="qwen2.5-0.5b and qwen2.5-7b, M = 1, 64, 4096, no max-autotune")
    return ap


def resolve_args(args):
    if args.quick:
        args.models, args.m, args.autotune_m = "qwen2.5-0.5b,qwen2.5-7b", "1,64,4096", "none"
    args.model_list = parse_list(args.models)
    unknown = [m for m in args.model_list if m not in MODELS]
    if unknown:
        raise SystemExit(f"unknown models {unknown}; known: {list(MODELS)}")
    args.m_list = parse_list(args.m, int)
    args.method_list = parse_list(args.methods)
    bad = [m for m in args.method_list if m not in METHODS]
    if bad:
        raise SystemExit(f"unknown methods {bad}; known: {METHODS}")
    args.autotune_m_list = parse_list(args.autotune_m, int)
    args.autotune_model_list = (args.model_list if args.autotune_models == "all"
                                else parse_list(args.autotune_models))
    return args


# --- plotting (no GPU needed; tests/python/test_scripts.py runs it on made-up results) ---------

def speedups(results):
    """{model: {method: [(M, eager time / method time)]}} from the result rows."""
    eager = {(r["model"], r["m"]): r["median_us"] for r in results
             if r["method"] == "eager" and r.get("median_us")}
    table = {}
    for r in results:
        base = eager.get((r["model"], r["m"]))
        if r["method"] == "eager" or not base or not r.get("median_us"):
            continue
        table.setdefault(r["model"], {}).setdefault(r["method"], []).append(
            (r["m"], base / r["median_us"]))
    for per_method in table.values():
        for points in per_method.values():
            points.sort()
    return table


def plot(results, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_torch: matplotlib not importable; no PNG written", file=sys.stderr)
        return False
    table = speedups(results)
    if not table:
        print("bench_torch: no speedups to plot (eager missing?)", file=sys.stderr)
        return False
    models = list(table)
    cols = min(2, len(models))
    rows = math.ceil(len(models) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.2 * rows), squeeze=False)
    for ax, model in zip(axes.flat, models):
        for method, points in table[model].items():
            ms, sp = zip(*points)
            ax.plot(ms, sp, marker="o", label=method,
                    linewidth=2.5 if method.startswith("tileglu") else 1.2)
        ax.axhline(1.0, color="gray", linewidth=0.8, linestyle="--")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("M (tokens)")
        ax.set_ylabel("speedup over eager (time ratio)")
        k, i = MODELS.get(model, ("?", "?"))
        ax.set_title(f"{model}  (K={k}, I={i})")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(models):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --- GPU part -------------------------------------------------------------------------------

def gpu_main(args):
    import torch
    import torch.nn.functional as F

    import tileglu

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        print("bench_torch: needs an sm_90 GPU", file=sys.stderr)
        return 2
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2_bytes = getattr(props, "L2_cache_size", 0)
    if not l2_bytes:
        raise SystemExit("bench_torch: this PyTorch does not report the L2 size")
    for name in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 256)

    silu_and_mul = make_triton_silu_and_mul() if "merged_triton" in args.method_list else None

    def eager(x, wg, wu, ws):
        return F.silu(x @ wg.t()) * (x @ wu.t())

    # Distinct code objects, so that the two torch.compile modes keep separate caches.
    def eager_for_default(x, wg, wu, ws):
        return F.silu(x @ wg.t()) * (x @ wu.t())

    def eager_for_autotune(x, wg, wu, ws):
        return F.silu(x @ wg.t()) * (x @ wu.t())

    compiled_default = torch.compile(eager_for_default)
    compiled_autotune = torch.compile(eager_for_autotune, mode="max-autotune-no-cudagraphs",
                                      dynamic=False)

    fns = {
        "tileglu": lambda x, wg, wu, ws: tileglu.swiglu(x, wg, wu),
        "tileglu_stacked": lambda x, wg, wu, ws: tileglu.swiglu(x, ws),
        "eager": eager,
        "merged_triton": lambda x, wg, wu, ws: silu_and_mul(torch.mm(x, ws.t())),
        "compile_default": compiled_default,
        "compile_max_autotune": compiled_autotune,
        "cublas_merged_gemm": lambda x, wg, wu, ws: torch.mm(x, ws.t()),
    }

    flush = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=dev)
    results = []
    t_start = time.time()
    with torch.inference_mode():
        for model in args.model_list:
            k, i = MODELS[model]
            weight_bytes = 2 * i * k * torch.finfo(dtype).bits // 8
            copies = max(1, math.ceil(3 * l2_bytes / weight_bytes))
            g = torch.Generator(device=dev).manual_seed(0)
            sets = []
            for _ in range(copies):
                wg = (torch.randn(i, k, device=dev, generator=g) / math.sqrt(k)).to(dtype)
                wu = (torch.randn(i, k, device=dev, generator=g) / math.sqrt(k)).to(dtype)
                sets.append((wg, wu, torch.cat([wg, wu]).contiguous()))
            for m in args.m_list:
                x = torch.randn(m, k, device=dev, generator=g).to(dtype)
                wg, wu, ws = sets[0]
                ref = tileglu.swiglu_reference(x, wg, wu).float()
                ref_norm = ref.norm().item() or 1.0
                for method in args.method_list:
                    row = {"model": model, "k": k, "i": i, "m": m, "dtype": args.dtype,
                           "method": method}
                    if method == "compile_max_autotune" and (
                            m not in args.autotune_m_list or model not in args.autotune_model_list):
                        continue
                    fn = fns[method]
                    try:
                        t0 = time.time()
                        y = fn(x, wg, wu, ws)   # compiles, autotunes, warms up
                        torch.cuda.synchronize()
                        row["first_call_s"] = round(time.time() - t0, 3)
                        if method == "cublas_merged_gemm":
                            row["rel_error"] = None   # computes [M, 2I], not the SwiGLU
                        else:
                            row["rel_error"] = (y.float() - ref).norm().item() / ref_norm
                        if m <= args.graph_max_m:
                            row["timing"] = (f"cuda-graph replay cycling {copies} weight copies, "
                                             f"at least {GRAPH_MIN_CALLS} calls")
                            row["median_us"] = time_graph(torch, fn, x, sets, args.reps)
                        else:
                            row["timing"] = "events, L2 flushed before each call"
                            row["median_us"] = time_cold(torch, fn, x, sets[0], flush, args.reps)
                        flops = 2.0 * m * k * 2 * i
                        row["tflops"] = flops / (row["median_us"] * 1e-6) / 1e12
                    except Exception as e:   # one failing baseline must not lose the rest
                        row["error"] = f"{type(e).__name__}: {e}"[:500]
                    results.append(row)
                    report(row)
    for r in results:
        base = next((b["median_us"] for b in results if b["model"] == r["model"]
                     and b["m"] == r["m"] and b["method"] == "eager" and b.get("median_us")),
                    None)
        if base and r.get("median_us"):
            r["speedup_vs_eager"] = base / r["median_us"]
    summary = {
        "tool": "python/bench_torch.py",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(dev), "sm_count": props.multi_processor_count,
        "l2_bytes": l2_bytes, "torch": torch.__version__, "library": str(tileglu.find_library()),
        "args": {k: v for k, v in vars(args).items() if isinstance(v, (str, int, float, list))},
        "wall_s": round(time.time() - t_start, 1),
        "results": results,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.json}")
    if plot(results, args.png, f"tileglu vs PyTorch SwiGLU, {args.dtype}, "
            f"{summary['device']}, torch {torch.__version__}"):
        print(f"wrote {args.png}")
    failed = [r for r in results if "error" in r]
    return 1 if any(r["method"].startswith("tileglu") for r in failed) else 0


def report(row):
    if "error" in row:
        print(f"{row['model']:13s} M={row['m']:6d} {row['method']:21s} ERROR {row['error']}")
        return
    err = "" if row["rel_error"] is None else f"rel err {row['rel_error']:.2e}"
    print(f"{row['model']:13s} M={row['m']:6d} {row['method']:21s} {row['median_us']:10.2f} us "
          f"{row['tflops']:7.1f} TFLOP/s  {err}", flush=True)


GRAPH_MIN_CALLS = 20


def time_graph(torch, fn, x, sets, reps):
    """Median GPU time per call of fn, replaying a CUDA graph that cycles through the weight copies
    for at least GRAPH_MIN_CALLS calls. Why at least 20: where one copy already exceeds 3x L2
    (qwen2.5-72b) a graph of one call per copy is a graph of one kernel, whose replay time carries
    the graph launch and the clock ramp of the first method timed: 72B M = 1 read 254-268 us for
    the separate-weight call (timed first) and 228-238 for the same kernel on stacked weights,
    while python/bench_weight_layout.py, 20 calls per graph, measures 221-222 us for both and for
    every offset of W_up from W_gate (H200, bench/NOTES.md session 5)."""
    calls = [sets[j % len(sets)] for j in range(max(len(sets), GRAPH_MIN_CALLS))]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for wg, wu, ws in sets:
            fn(x, wg, wu, ws)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for wg, wu, ws in calls:
            fn(x, wg, wu, ws)
    for _ in range(3):
        graph.replay()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / len(calls))
    del graph
    return statistics.median(times)


def time_cold(torch, fn, x, weights, flush, reps):
    """Median GPU time of one call after an L2 flush; a GPU sleep keeps the stream busy while the
    host enqueues the call, so the host's launch cost is not measured."""
    wg, wu, ws = weights
    for _ in range(2):
        fn(x, wg, wu, ws)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for r in range(reps):
        flush.zero_()
        torch.cuda._sleep(200_000)   # ~100 us at H200 clocks
        starts[r].record()
        fn(x, wg, wu, ws)
        ends[r].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends))


def make_triton_silu_and_mul():
    """A Triton kernel computing silu(gu[:, :I]) * gu[:, I:] in fp32, one rounding (vLLM's
    silu_and_mul): one program per (row, block of columns)."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(gu_ptr, out_ptr, n_cols, stride_gu, stride_out, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < n_cols
        g = tl.load(gu_ptr + row * stride_gu + cols, mask=mask).to(tl.float32)
        u = tl.load(gu_ptr + row * stride_gu + n_cols + cols, mask=mask).to(tl.float32)
        h = g / (1.0 + tl.exp(-g)) * u
        tl.store(out_ptr + row * stride_out + cols, h.to(out_ptr.dtype.element_ty), mask=mask)

    def silu_and_mul(gu):
        m, two_i = gu.shape
        n = two_i // 2
        out = torch.empty((m, n), dtype=gu.dtype, device=gu.device)
        block = 1024
        kernel[(m, triton.cdiv(n, block))](gu, out, n, gu.stride(0), out.stride(0), BLOCK=block)
        return out

    return silu_and_mul


def main(argv=None):
    args = resolve_args(build_parser().parse_args(argv))
    return gpu_main(args)


if __name__ == "__main__":
    sys.exit(main())
