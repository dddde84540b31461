#!/usr/bin/env python3
"""End to end: Hugging Face Qwen2.5-0.5B and -7B, stock vs tileglu.patch(model).

The models are built from their published configs (hardcoded below) with random weights: nothing
is downloaded. For each model, stock and then patched (the same weights, patched in place):
  * prefill latency, batch x sequence 1x4096 and 8x512 (use_cache=False, last-token logits only),
    CUDA events, median of --reps;
  * decode tokens/s at batch 1 and 32: a StaticCache, a prompt of --prompt-len tokens, then one
    greedy decode step (forward, argmax, position update) captured in a CUDA graph and replayed
    --decode-tokens times; the graph's first tokens are checked against eager decoding;
  * logits relative error, patched vs stock and both vs an fp32 copy of the model, on 1x512;
    and the stock model against itself with its gate and up GEMMs summing their K products in
    reverse order (x and the weights reversed along K: the same bf16 math, only the order of the
    additions differs): how far the logits move when nothing changes but that order.

Needs an sm_90 GPU, PyTorch, transformers and libtileglu.so for the real run; the functions also
run on CPU with the "tiny" config (tests/python/test_scripts.py), without the patch and graphs.

    python3 python/e2e_qwen.py                     # both models, ~5 min on an H200
    python3 python/e2e_qwen.py --models qwen2.5-0.5b --json /tmp/e2e.json
"""
import argparse
import copy
import datetime
import inspect
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # run from a checkout without install

# Qwen2ForCausalLM configs as published with the models (config.json), generation-only fields
# left out.
CONFIGS = {
    "qwen2.5-0.5b": dict(
        vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, hidden_act="silu",
        max_position_embeddings=32768, rms_norm_eps=1e-6, rope_theta=1000000.0,
        tie_word_embeddings=True, use_sliding_window=False, sliding_window=32768,
        max_window_layers=21, attention_dropout=0.0, initializer_range=0.02,
        bos_token_id=151643, eos_token_id=151643),
    "qwen2.5-7b": dict(
        vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, hidden_act="silu",
        max_position_embeddings=131072, rms_norm_eps=1e-6, rope_theta=1000000.0,
        tie_word_embeddings=False, use_sliding_window=False, sliding_window=131072,
        max_window_layers=28, attention_dropout=0.0, initializer_range=0.02,
        bos_token_id=151643, eos_token_id=151643),
    # For tests on CPU.
    "tiny": dict(
        vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, hidden_act="silu",
        max_position_embeddings=512, rms_norm_eps=1e-6, rope_theta=10000.0,
        tie_word_embeddings=True, use_sliding_window=False, initializer_range=0.02),
}
# Parameter counts of the published checkpoints (embeddings counted once when tied).
PARAMETERS = {"qwen2.5-0.5b": 494_032_768, "qwen2.5-7b": 7_615_616_512}


def build_model(name, device, dtype, **overrides):
    import torch
    import transformers

    config = transformers.Qwen2Config(**{**CONFIGS[name], **overrides}, attn_implementation="sdpa")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            torch.manual_seed(0)
            model = transformers.Qwen2ForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


class Timer:
    """CUDA events on a GPU, perf_counter on a CPU; milliseconds."""

    def __init__(self, torch, device):
        self.torch, self.cuda = torch, torch.device(device).type == "cuda"

    def __call__(self, fn):
        if self.cuda:
            start = self.torch.cuda.Event(enable_timing=True)
            end = self.torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1000.0


def prefill_latency_ms(model, batch, seq, reps, warmup=2):
    import torch

    device = next(model.parameters()).device
    ids = torch.randint(0, model.config.vocab_size, (batch, seq), device=device,
                        generator=torch.Generator(device=device).manual_seed(batch * seq))
    timer = Timer(torch, device)

    def run():
        model(input_ids=ids, use_cache=False, logits_to_keep=1)

    for _ in range(warmup):
        run()
    return statistics.median(timer(run) for _ in range(reps))


def _forward_names(model):
    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"
    return cache_kw, "cache_position" in params


def _static_cache(model, batch, max_len):
    import torch
    import transformers

    try:   # transformers 5: sized lazily from the first update
        return transformers.StaticCache(config=model.config, max_cache_len=max_len)
    except TypeError:   # transformers 4.x
        p = next(model.parameters())
        return transformers.StaticCache(config=model.config, max_batch_size=batch,
                                        max_cache_len=max_len, device=p.device, dtype=p.dtype)


class Decoder:
    """Greedy decoding with a StaticCache, one step = forward + argmax + position update, all on
    static buffers so that a step can be captured in a CUDA graph."""

    def __init__(self, model, batch, prompt_len, max_new):
        import torch

        self.torch, self.model = torch, model
        device = next(model.parameters()).device
        self.cache_kw, self.wants_cache_position = _forward_names(model)
        self.cache = _static_cache(model, batch, prompt_len + max_new + 8)
        prompt = torch.randint(0, model.config.vocab_size, (batch, prompt_len), device=device,
                               generator=torch.Generator(device=device).manual_seed(7))
        self.prompt = prompt
        kwargs = {self.cache_kw: self.cache, "use_cache": True, "logits_to_keep": 1}
        if self.wants_cache_position:
            kwargs["cache_position"] = torch.arange(prompt_len, device=device)
        out = model(input_ids=prompt, **kwargs)
        self.ids = out.logits[:, -1].argmax(-1, keepdim=True)   # [batch, 1], the first new token
        self.position = torch.full((batch, 1), prompt_len, dtype=torch.long, device=device)
        self.cache_position = torch.full((1,), prompt_len, dtype=torch.long, device=device)
        self.graph = None

    def step(self):
        kwargs = {self.cache_kw: self.cache, "use_cache": True, "position_ids": self.position}
        if self.wants_cache_position:
            kwargs["cache_position"] = self.cache_position
        out = self.model(input_ids=self.ids, **kwargs)
        self.ids.copy_(out.logits[:, -1].argmax(-1, keepdim=True))
        self.position.add_(1)
        self.cache_position.add_(1)

    def capture(self):
        """Runs one eager step on a side stream (a warm-up that also decodes a token), then
        captures the next step. Returns the warm-up's token."""
        torch = self.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self.step()
        torch.cuda.current_stream().wait_stream(side)
        token = self.ids.clone()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.step()
        return token

    def next(self):
        if self.graph is None:
            self.step()
        else:
            self.graph.replay()


def reference_tokens(model, batch, prompt_len, n):
    """n greedy tokens decoded eagerly (the first from the prompt's logits)."""
    dec = Decoder(model, batch, prompt_len, n)
    tokens = [dec.ids.clone()]
    for _ in range(n - 1):
        dec.step()
        tokens.append(dec.ids.clone())
    return dec.torch.cat(tokens, dim=1)


def decode_tokens_per_s(model, batch, prompt_len, new_tokens, use_graph, check_tokens=8):
    """(tokens/s, details). With use_graph the captured step's first tokens are compared with
    eager decoding; a capture that fails falls back to eager steps and says why."""
    import torch

    device = next(model.parameters()).device
    details = {"batch": batch, "prompt_len": prompt_len, "new_tokens": new_tokens}
    want = reference_tokens(model, batch, prompt_len, check_tokens)
    dec = Decoder(model, batch, prompt_len, check_tokens + new_tokens + 2)
    got = [dec.ids.clone()]
    if use_graph:
        try:
            got.append(dec.capture())
        except Exception as e:   # report it and time eager steps instead
            details["graph_error"] = f"{type(e).__name__}: {e}"[:500]
            dec = Decoder(model, batch, prompt_len, check_tokens + new_tokens + 2)
            got = [dec.ids.clone()]
    details["cuda_graph"] = dec.graph is not None
    while len(got) < check_tokens:
        dec.next()
        got.append(dec.ids.clone())
    got = torch.cat(got, dim=1)
    details["tokens_match_eager"] = bool(torch.equal(got, want))
    # Random-weight logits are nearly flat, so an argmax can flip between two valid orders of
    # summation (cuBLAS picks other kernels under capture): the stock model mismatches too
    # (batch 32, both models, bench/NOTES.md). The share says how far apart the two runs are.
    details["token_agreement"] = (got == want).double().mean().item()
    timer = Timer(torch, device)

    def run():
        for _ in range(new_tokens):
            dec.next()

    ms = timer(run)
    details["ms"] = ms
    return batch * new_tokens / (ms / 1000.0), details


def logits_error(a, b):
    """Relative error of logits a against b, max |a - b| and argmax agreement."""
    a, b = a.double(), b.double()
    return {"rel_error": ((a - b).norm() / b.norm()).item(),
            "max_abs": (a - b).abs().max().item(),
            "argmax_agreement": (a.argmax(-1) == b.argmax(-1)).double().mean().item()}


def reversed_k_logits(model, ids, torch):
    """Logits of the stock model with each MLP's gate and up GEMMs over K reversed: x[..., ::-1]
    times the weights' columns reversed is the same dot product summed in the opposite order, so
    g and u differ from stock only by the rounding of the GEMM's fp32 sums (what any other GEMM
    kernel, tileglu's included, changes too). One merged [Wg; Wu] GEMM does not do this: cuBLAS
    gives bit-identical outputs for it (session 9)."""
    import types
    import torch.nn.functional as F

    def reversed_forward(self, x):
        xr = x.flip(-1)
        gate = F.linear(xr, self.gate_proj.weight.flip(-1))
        up = F.linear(xr, self.up_proj.weight.flip(-1))
        return self.down_proj(self.act_fn(gate) * up)

    mlps = [m for m in model.modules() if type(m).__name__ in ("Qwen2MLP", "LlamaMLP", "MistralMLP")]
    saved = [m.__dict__.get("forward") for m in mlps]  # an instance forward (a patch) to put back
    for m in mlps:
        m.forward = types.MethodType(reversed_forward, m)
    try:
        return model(input_ids=ids, use_cache=False).logits.float()
    finally:
        for m, forward in zip(mlps, saved):
            if forward is None:
                del m.forward
            else:
                m.forward = forward


def run_model(name, args, torch, tileglu):
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    t0 = time.time()
    model = build_model(name, "cuda", dtype)
    n_params = sum(p.numel() for p in model.parameters())
    row = {"model": name, "parameters": n_params, "build_s": round(time.time() - t0, 1)}
    ids = torch.randint(0, model.config.vocab_size, (1, 512), device="cuda",
                        generator=torch.Generator(device="cuda").manual_seed(3))
    logits = {}
    for variant in ("stock", "patched"):
        if variant == "patched":
            row["patched_modules"] = len(tileglu.patch(model))
        v = {}
        for b, s in args.prefill:
            v[f"prefill_{b}x{s}_ms"] = prefill_latency_ms(model, b, s, args.reps)
            print(f"{name} {variant:7s} prefill {b}x{s}: {v[f'prefill_{b}x{s}_ms']:.2f} ms",
                  flush=True)
        for b in args.decode_batches:
            tps, details = decode_tokens_per_s(model, b, args.prompt_len, args.decode_tokens,
                                               use_graph=not args.no_graphs)
            v[f"decode_b{b}_tokens_per_s"] = tps
            v[f"decode_b{b}"] = details
            print(f"{name} {variant:7s} decode batch {b}: {tps:.1f} tokens/s "
                  f"(graph {details['cuda_graph']}, tokens match eager "
                  f"{details['tokens_match_eager']}, agreement {details['token_agreement']:.3f})",
                  flush=True)
        logits[variant] = model(input_ids=ids, use_cache=False).logits.float()
        row[variant] = v
    tileglu.unpatch(model)
    row["patched_vs_stock"] = logits_error(logits["patched"], logits["stock"])
    row["stock_reversed_k_vs_stock"] = logits_error(reversed_k_logits(model, ids, torch), logits["stock"])
    if not args.no_fp32_reference:
        exact = copy.deepcopy(model).float()
        ref = exact(input_ids=ids, use_cache=False).logits
        row["stock_vs_fp32"] = logits_error(logits["stock"], ref)
        row["patched_vs_fp32"] = logits_error(logits["patched"], ref)
        del exact, ref
    for key in row["stock"]:
        s, p = row["stock"][key], row["patched"][key]
        if isinstance(s, float):
            row.setdefault("patched_speedup", {})[key] = (s / p if key.endswith("_ms") else p / s)
    print(f"{name}: speedups {json.dumps(row['patched_speedup'])}; logits patched vs stock "
          f"{json.dumps(row['patched_vs_stock'])}; stock with its GEMMs' K order reversed vs stock "
          f"{json.dumps(row['stock_reversed_k_vs_stock'])}", flush=True)
    del model
    torch.cuda.empty_cache()
    return row


def parse_prefill(text):
    return [tuple(int(v) for v in item.split("x")) for item in text.split(",") if item]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Qwen2.5 stock vs tileglu.patch (needs an sm_90 GPU)")
    ap.add_argument("--models", default="qwen2.5-0.5b,qwen2.5-7b")
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--prefill", type=parse_prefill, default=parse_prefill("1x4096,8x512"),
                    help="batch x sequence list, e.g. 1x4096,8x512")
    ap.add_argument("--decode-batches", type=lambda t: [int(v) for v in t.split(",")],
                    default=[1, 32])
    ap.add_argument("--prompt-len", type=int, default=128)
    ap.add_argument("--decode-tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--no-graphs", action="store_true", help="decode with eager steps")
    ap.add_argument("--no-fp32-reference", action="store_true")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "e2e_qwen.json")
    args = ap.parse_args(argv)

    import torch

    import tileglu

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        print("e2e_qwen: needs an sm_90 GPU", file=sys.stderr)
        return 2
    import transformers

    rows = []
    with torch.inference_mode():
        for name in args.models.split(","):
            rows.append(run_model(name, args, torch, tileglu))
    summary = {
        "tool": "python/e2e_qwen.py",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(), "torch": torch.__version__,
        "transformers": transformers.__version__, "library": str(tileglu.find_library()),
        "args": {k: (v if isinstance(v, (int, float, str, list, bool)) else str(v))
                 for k, v in vars(args).items()},
        "results": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.json}")
    # Graph-vs-eager token equality is reported, not enforced: the stock model fails it as often
    # (see decode_tokens_per_s); the op's own graph replay is checked bit for bit by
    # tests/python/test_gpu.py.
    return 0


if __name__ == "__main__":
    sys.exit(main())
