"""Which kernels PyTorch's cuBLAS runs for the merged gate/up GEMM, and for how long.

    python3 python/cublas_kernels.py --models qwen2.5-7b,llama-3-8b --m 256,1024

Why: at some (shape, M) PyTorch's `x @ W.T` is faster than the cuBLASLt call of
bench/swiglu_bench.cu (qwen2.5-7b M = 256: 105 us under PyTorch against 123 us there), so the
algorithm cuBLAS picks there (tile, split-K or stream-K, cluster) is worth knowing before
tuning tileglu for those rows. Prints each kernel's name and mean device time from the PyTorch
profiler over a few calls on fresh inputs (rotated weight copies, so the weights come from HBM).
"""
import argparse
import sys

from bench_torch import MODELS  # (K, I) per model name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="qwen2.5-7b,llama-3-8b")
    ap.add_argument("--m", default="256")
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args(argv)

    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    if not torch.cuda.is_available():
        print("cublas_kernels: needs a CUDA GPU", file=sys.stderr)
        return 2
    dev = "cuda"
    for name in args.models.split(","):
        k, i = MODELS[name]
        copies = 4
        weights = [torch.randn(2 * i, k, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
        for m in (int(v) for v in args.m.split(",")):
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            for w in weights:  # warm-up: handles, heuristics, clocks
                x @ w.T
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for c in range(args.calls):
                    x @ weights[c % copies].T
                torch.cuda.synchronize()
            print(f"== {name} K={k} I={i} M={m}: x @ [Wg;Wu].T, {args.calls} calls")
            for ev in prof.key_averages():
                if ev.device_type == DeviceType.CUDA and ev.count > 0:  # kernels, not the CPU ops
                    print(f"  {ev.count:4d} x {ev.device_time_total / ev.count:9.2f} us  {ev.key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
