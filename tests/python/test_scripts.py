"""The GPU scripts' parts that need no GPU: bench_torch.py's arguments, speedup table and plot,
e2e_qwen.py's model configs (parameter counts of the published checkpoints, on the meta device)
and its static-cache greedy decoder (on CPU, against transformers' generate), and the scripts'
refusal to run without an sm_90 GPU."""
import importlib
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

PY = REPO / "python"
sys.path.insert(0, str(PY))

bench_torch = importlib.import_module("bench_torch")


def test_bench_torch_defaults_and_quick():
    args = bench_torch.resolve_args(bench_torch.build_parser().parse_args([]))
    assert args.model_list == list(bench_torch.MODELS)
    assert args.m_list == [1, 16, 64, 256, 1024, 4096, 16384]
    assert args.method_list == bench_torch.METHODS and args.autotune_m_list == [16, 4096]
    assert args.autotune_model_list == ["qwen2.5-0.5b", "qwen2.5-7b"]
    quick = bench_torch.resolve_args(bench_torch.build_parser().parse_args(["--quick"]))
    assert quick.model_list == ["qwen2.5-0.5b", "qwen2.5-7b"] and quick.m_list == [1, 64, 4096]
    assert quick.autotune_m_list == []
    with pytest.raises(SystemExit, match="unknown methods"):
        bench_torch.resolve_args(bench_torch.build_parser().parse_args(["--methods", "magic"]))
    assert bench_torch.MODELS["qwen2.5-7b"] == (3584, 18944)


ROWS = [
    {"model": "qwen2.5-7b", "m": 1, "method": "eager", "median_us": 30.0},
    {"model": "qwen2.5-7b", "m": 1, "method": "tileglu", "median_us": 20.0},
    {"model": "qwen2.5-7b", "m": 4096, "method": "eager", "median_us": 900.0},
    {"model": "qwen2.5-7b", "m": 4096, "method": "tileglu", "median_us": 600.0},
    {"model": "qwen2.5-7b", "m": 4096, "method": "merged_triton", "error": "boom"},
    {"model": "qwen2.5-0.5b", "m": 16, "method": "eager", "median_us": 10.0},
    {"model": "qwen2.5-0.5b", "m": 16, "method": "compile_default", "median_us": 8.0},
]


def test_speedups_are_eager_time_over_method_time():
    table = bench_torch.speedups(ROWS)
    assert table == {"qwen2.5-7b": {"tileglu": [(1, 1.5), (4096, 1.5)]},
                     "qwen2.5-0.5b": {"compile_default": [(16, 1.25)]}}


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not importable")
    path = tmp_path / "sub" / "plot.png"
    assert bench_torch.plot(ROWS, path, "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def _run(script, *args):
    env = dict(os.environ, PYTHONPATH=str(PY))
    return subprocess.run([sys.executable, str(PY / script), *args], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("script", ["bench_overhead.py", "bench_torch.py", "e2e_qwen.py"])
def test_scripts_refuse_to_run_without_an_sm90_gpu(script):
    torch = pytest.importorskip("torch", reason="PyTorch is not importable")
    if torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0):
        pytest.skip("an sm_90 GPU is present: the scripts would run for real")
    r = _run(script, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout
    r = _run(script)
    assert r.returncode == 2 and "needs an sm_90 GPU" in r.stderr


# --- e2e_qwen on CPU -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def e2e():
    pytest.importorskip("torch", reason="PyTorch is not importable")
    pytest.importorskip("transformers", reason="transformers is not importable")
    return importlib.import_module("e2e_qwen")


@pytest.mark.parametrize("name", ["qwen2.5-0.5b", "qwen2.5-7b"])
def test_configs_give_the_published_parameter_counts(e2e, name):
    import torch
    model = e2e.build_model(name, "meta", torch.bfloat16)
    assert sum(p.numel() for p in model.parameters()) == e2e.PARAMETERS[name]
    assert next(model.parameters()).dtype == torch.bfloat16
    mlps = [type(m).__name__ for m in model.modules() if type(m).__name__ == "Qwen2MLP"]
    assert len(mlps) == e2e.CONFIGS[name]["num_hidden_layers"]
    mlp = model.model.layers[0].mlp
    assert tuple(mlp.gate_proj.weight.shape) == (e2e.CONFIGS[name]["intermediate_size"],
                                                 e2e.CONFIGS[name]["hidden_size"])


def test_static_cache_decoder_matches_generate(e2e):
    import torch
    model = e2e.build_model("tiny", "cpu", torch.float32, initializer_range=0.3)
    with torch.inference_mode():
        got = e2e.reference_tokens(model, batch=2, prompt_len=5, n=8)
        prompt = e2e.Decoder(model, 2, 5, 1).prompt
        want = model.generate(prompt, max_new_tokens=8, min_new_tokens=8, do_sample=False,
                              pad_token_id=0)[:, 5:]
        assert torch.equal(got, want)
        assert len(set(got.flatten().tolist())) > 2   # not a degenerate constant sequence
        tps, details = e2e.decode_tokens_per_s(model, 2, 5, 4, use_graph=False, check_tokens=6)
        assert tps > 0 and details["tokens_match_eager"] and details["cuda_graph"] is False
        assert e2e.prefill_latency_ms(model, 2, 8, reps=2) > 0


def test_reversed_k_logits_match_stock_and_restore_the_mlps(e2e):
    import torch
    model = e2e.build_model("tiny", "cpu", torch.float64, initializer_range=0.3)
    ids = torch.randint(0, model.config.vocab_size, (1, 12), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        stock = model(input_ids=ids, use_cache=False).logits
        reordered = e2e.reversed_k_logits(model, ids, torch)
        # The same dot products summed in the other order agree to rounding (fp64 GEMMs;
        # Qwen2RMSNorm computes in fp32, so a last-bit difference can surface at fp32's 6e-8).
        assert e2e.logits_error(reordered, stock)["rel_error"] < 1e-5
        mlps = [m for m in model.modules() if type(m).__name__ == "Qwen2MLP"]
        assert mlps and all("forward" not in m.__dict__ for m in mlps)
        # A changed up projection changes these logits: the reordered forward really ran.
        mlps[0].up_proj.weight.mul_(2)
        assert e2e.logits_error(e2e.reversed_k_logits(model, ids, torch), stock)["rel_error"] > 1e-2


def test_logits_error(e2e):
    import torch
    a = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    b = torch.tensor([[1.0, 2.0, 3.5], [1.0, 2.0, 3.0]])
    err = e2e.logits_error(a, b)
    assert err["max_abs"] == 2.0 and err["argmax_agreement"] == 0.5
    assert err["rel_error"] == pytest.approx(((a - b).norm() / b.norm()).item())


def test_parse_prefill():
    sys.path.insert(0, str(PY))
    e2e = importlib.import_module("e2e_qwen")   # importable without torch: it imports lazily
    assert e2e.parse_prefill("1x4096,8x512") == [(1, 4096), (8, 512)]
    assert json.loads(json.dumps(e2e.parse_prefill("1x4096"))) == [[1, 4096]]

