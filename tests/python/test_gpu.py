"""Needs PyTorch, CUDA, an sm_90 GPU and a built libtileglu.so: the fused op against an fp64
reference, strided and stacked layouts, errors the C library reports, opcheck, torch.compile,
CUDA-graph capture/replay, and patch() on a tiny model. Every test skips elsewhere, with why."""
import pytest

from conftest import need_sm90

torch = need_sm90()

import tileglu  # noqa: E402
from tileglu import _torch_ops as T  # noqa: E402

F = torch.nn.functional
DTYPES = [torch.bfloat16, torch.float16]


def make(m, k, i, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    wg = (torch.randn(i, k, device="cuda", generator=g) / k ** 0.5).to(dtype)
    wu = (torch.randn(i, k, device="cuda", generator=g) / k ** 0.5).to(dtype)
    return x, wg, wu


def fp64_ref(x, wg, wu):
    xd = x.double().reshape(-1, x.shape[-1])
    h = F.silu(xd @ wg.double().t()) * (xd @ wu.double().t())
    return h.reshape(*x.shape[:-1], wg.shape[0])


def eager(x, wg, wu):
    return F.silu(x @ wg.t()) * (x @ wu.t())


def assert_accurate(out, x, wg, wu):
    """No worse than PyTorch's own same-precision path: max error at most 2x its max error, mean
    error at most its mean error (tileglu rounds once, eager rounds g, u, silu and the product)."""
    ref = fp64_ref(x, wg, wu)
    assert out.shape == ref.shape and out.dtype == x.dtype
    assert torch.isfinite(out).all()
    err = (out.double() - ref).abs()
    base = (eager(x, wg, wu).double() - ref).abs()
    assert err.max().item() <= 2 * base.max().item() + 1e-6, (err.max().item(), base.max().item())
    assert err.mean().item() <= 1.01 * base.mean().item() + 1e-9, (err.mean().item(),
                                                                   base.mean().item())


SHAPES = [(1, 64, 64), (7, 128, 256), (333, 512, 1024), (1, 896, 4864), (64, 3584, 18944 // 8)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, k, i", SHAPES)
def test_separate_and_stacked_match_the_reference(dtype, m, k, i):
    x, wg, wu = make(m, k, i, dtype)
    out = tileglu.swiglu(x, wg, wu)
    assert_accurate(out, x, wg, wu)
    stacked = torch.cat([wg, wu]).contiguous()
    assert torch.equal(tileglu.swiglu(x, stacked), out)
    assert torch.equal(torch.ops.tileglu.swiglu(x, wg, wu), out)
    assert torch.equal(torch.ops.tileglu.swiglu_stacked(x, stacked), out)
    buf = torch.full_like(out, float("nan"))
    assert tileglu.swiglu(x, wg, wu, out=buf) is buf and torch.equal(buf, out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_layouts_are_read_in_place(dtype):
    m, k, i = 37, 256, 128
    x, wg, wu = make(m, k, i, dtype, seed=1)
    want = tileglu.swiglu(x, wg, wu)

    padded_x = torch.zeros(m, k + 64, dtype=dtype, device="cuda")
    padded_x[:, :k] = x
    assert torch.equal(tileglu.swiglu(padded_x[:, :k], wg, wu), want)

    big_w = torch.zeros(3 * i, k + 8, dtype=dtype, device="cuda")
    big_w[:i, :k], big_w[2 * i:, :k] = wg, wu
    assert torch.equal(tileglu.swiglu(x, big_w[:i, :k], big_w[2 * i:, :k]), want)
    assert torch.equal(tileglu.swiglu(x, wg, big_w[2 * i:, :k]), want)   # ld_gate != ld_up
    stacked = torch.zeros(2 * i, k + 16, dtype=dtype, device="cuda")
    stacked[:i, :k], stacked[i:, :k] = wg, wu
    assert torch.equal(tileglu.swiglu(x, stacked[:, :k]), want)

    # Another M may get another tile config, so compare with a contiguous copy of the same rows.
    x3 = x[:36].reshape(4, 9, k)
    assert torch.equal(tileglu.swiglu(x3, wg, wu),
                       tileglu.swiglu(x[:36].contiguous(), wg, wu).reshape(4, 9, i))
    row4 = x3[:, 4]   # [4, k] with row stride 9k
    assert torch.equal(tileglu.swiglu(row4, wg, wu), tileglu.swiglu(row4.contiguous(), wg, wu))
    assert_accurate(tileglu.swiglu(x3, wg, wu), x3, wg, wu)

    out = torch.full((m, i + 24), float("nan"), dtype=dtype, device="cuda")
    tileglu.swiglu(x, wg, wu, out=out[:, :i])
    assert torch.equal(out[:, :i], want) and torch.isnan(out[:, i:]).all()   # padding untouched

    empty = tileglu.swiglu(x[:0], wg, wu)
    assert empty.shape == (0, i)


def test_misaligned_and_aliasing_errors():
    x, wg, wu = make(8, 64, 32, torch.bfloat16)
    flat = torch.zeros(8 * 64 + 8, dtype=torch.bfloat16, device="cuda")
    shifted = flat[1:1 + 8 * 64].view(8, 64)   # 2 bytes off a 16-byte boundary
    with pytest.raises(tileglu.TileGluValueError, match="x.data_ptr.*not 16-byte aligned") as info:
        tileglu.swiglu(shifted, wg, wu)
    assert info.value.status_name == "TILEGLU_ERROR_MISALIGNED_POINTER"

    buf = torch.zeros(8, 96, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(tileglu.TileGluValueError) as info:
        tileglu.swiglu(buf[:, :64], wg, wu, out=buf[:, 64:])   # out inside x's byte range
    assert info.value.status_name == "TILEGLU_ERROR_ALIASING"
    assert "overlap" in str(info.value) and str(info.value).startswith("tileglu.swiglu: ")
    stacked = torch.cat([wg, wu])
    with pytest.raises(tileglu.TileGluValueError, match="w_gate_up") as info:
        tileglu.swiglu(x, stacked, out=stacked[:8, :32])
    assert info.value.status_name == "TILEGLU_ERROR_ALIASING"


@pytest.mark.parametrize("dtype", DTYPES)
def test_opcheck(dtype):
    x, wg, wu = make(24, 128, 64, dtype)
    stacked = torch.cat([wg, wu])
    out = torch.empty(24, 64, dtype=dtype, device="cuda")
    torch.library.opcheck(torch.ops.tileglu.swiglu.default, (x, wg, wu))
    torch.library.opcheck(torch.ops.tileglu.swiglu_stacked.default, (x, stacked))
    torch.library.opcheck(torch.ops.tileglu.swiglu_out.default, (x, wg, wu, out))
    torch.library.opcheck(torch.ops.tileglu.swiglu_stacked_out.default, (x, stacked, out))
    torch.library.opcheck(torch.ops.tileglu.swiglu.default, (x.view(4, 6, 128), wg, wu))


@pytest.mark.parametrize("mode", [None, "reduce-overhead", "max-autotune-no-cudagraphs"])
def test_torch_compile_fullgraph(mode):
    torch._dynamo.reset()
    x, wg, wu = make(48, 256, 128, torch.bfloat16)
    stacked = torch.cat([wg, wu])

    def block(x):
        h = tileglu.swiglu(x * 0.5, wg, wu)
        buf = torch.empty_like(h)
        tileglu.swiglu(x, stacked, out=buf)
        return h + buf

    want = block(x)
    compiled = torch.compile(block, fullgraph=True, mode=mode)
    for _ in range(3):   # reduce-overhead records a CUDA graph on a later call
        got = compiled(x)
    torch.cuda.synchronize()
    assert torch.equal(got, want)
    explanation = torch._dynamo.explain(block)(x)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1


def test_compile_with_dynamic_batch():
    torch._dynamo.reset()
    _, wg, wu = make(1, 256, 128, torch.bfloat16)
    compiled = torch.compile(lambda x: tileglu.swiglu(x, wg, wu), fullgraph=True, dynamic=True)
    for m in (3, 17, 64):
        x = make(m, 256, 128, torch.bfloat16, seed=m)[0]
        assert torch.equal(compiled(x), tileglu.swiglu(x, wg, wu))


@pytest.mark.parametrize("through_op", [False, True])
def test_cuda_graph_capture_and_replay_follow_the_inputs(through_op):
    x, wg, wu = make(16, 256, 128, torch.bfloat16)
    fn = (lambda: torch.ops.tileglu.swiglu(x, wg, wu)) if through_op else \
        (lambda: tileglu.swiglu(x, wg, wu))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()   # warm up off the default stream, as PyTorch's docs advise
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = fn()
    for seed in (5, 6):
        x.copy_(make(16, 256, 128, torch.bfloat16, seed=seed)[0])
        graph.replay()
        torch.cuda.synchronize()
        # Only a kernel launched on the capturing (current) stream is in the graph.
        assert torch.equal(y, tileglu.swiglu(x, wg, wu))


def test_runs_on_the_current_stream():
    x, wg, wu = make(512, 1024, 512, torch.bfloat16)
    want = tileglu.swiglu(x, wg, wu)
    buf = torch.full_like(want, float("nan"))
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)   # s is busy for tens of milliseconds
        tileglu.swiglu(x, wg, wu, out=buf)
    snapshot = buf.clone()   # on the default stream, which does not wait for s
    torch.cuda.default_stream().synchronize()
    # Launched on s, the kernel is still queued behind the sleep; launched on any other stream it
    # would have run by now.
    assert torch.isnan(snapshot).all()
    s.synchronize()
    assert torch.equal(buf, want)


def test_query_config_names_a_kernel():
    x, wg, wu = make(4096, 3584, 18944, torch.bfloat16)
    cfg = tileglu.query_config(x, wg, wu)
    assert cfg["name"].startswith("k2_pingpong_") and cfg["kernel"] == 2
    assert cfg["tile_m"] in (64, 128) and cfg["tile_n"] > 0
    # M = 1 takes a decode-sized tile (the embedded table's swap-AB kernel: tile_m = its tokens
    # per CTA), not the prefill one; the stacked weight is queried like the separate ones.
    small = tileglu.query_config(x[:1], torch.cat([wg, wu]))
    assert small["tile_m"] <= 64 and small["name"] != cfg["name"]
    assert small == tileglu.query_config(x[:1], wg, wu)


def test_autograd_inputs_go_through_the_op_and_have_no_backward():
    x, wg, wu = make(8, 64, 32, torch.bfloat16)
    wg.requires_grad_()
    y = tileglu.swiglu(x, wg, wu)
    assert torch.equal(y.detach(), tileglu.swiglu(x, wg.detach(), wu))
    with pytest.raises(RuntimeError):
        y.float().sum().backward()


@pytest.mark.skipif("torch.cuda.device_count() < 2", reason="needs two CUDA devices")
def test_tensors_on_another_device_than_the_current_one():
    with torch.cuda.device(1):
        x, wg, wu = make(8, 64, 32, torch.bfloat16)
    assert torch.cuda.current_device() == 0
    y = tileglu.swiglu(x, wg, wu)
    assert y.device == x.device
    assert_accurate(y, x, wg, wu)


def test_patched_tiny_qwen2_is_as_accurate_as_stock():
    transformers = pytest.importorskip("transformers", reason="transformers is not importable")
    import copy
    torch.manual_seed(0)
    cfg = transformers.Qwen2Config(vocab_size=256, hidden_size=128, intermediate_size=384,
                                   num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, max_position_embeddings=64)
    fp32 = transformers.Qwen2ForCausalLM(cfg).to("cuda").eval()
    model = copy.deepcopy(fp32).to(torch.bfloat16)
    ids = torch.randint(0, 256, (2, 16), device="cuda")
    with torch.inference_mode():
        exact = fp32(ids).logits.double()
        stock = model(ids).logits
        assert tileglu.patch(model) == ["model.layers.0.mlp", "model.layers.1.mlp"]
        patched = model(ids).logits
        mlp = model.model.layers[0].mlp
        h = torch.randn(2, 16, 128, device="cuda", dtype=torch.bfloat16)
        torch.testing.assert_close(torch.compile(mlp, fullgraph=True)(h), mlp(h))
        assert tileglu.unpatch(model) == ["model.layers.0.mlp", "model.layers.1.mlp"]
        assert torch.equal(model(ids).logits, stock)
    err_patched = ((patched.double() - exact).norm() / exact.norm()).item()
    err_stock = ((stock.double() - exact).norm() / exact.norm()).item()
    assert not torch.equal(patched, stock)   # the fused kernel did run
    assert err_patched <= 1.5 * err_stock + 1e-4, (err_patched, err_stock)
