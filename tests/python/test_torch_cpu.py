"""Needs PyTorch, no GPU: argument checks on CPU tensors, and the fake (meta) implementations,
the stride logic and torch.export tracing on fake CUDA tensors (FakeTensorMode makes CUDA tensors
without a GPU)."""
import pytest

from conftest import need_torch

torch = need_torch()

import tileglu  # noqa: E402
from tileglu import _torch_ops as T  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

BF16, FP16 = torch.bfloat16, torch.float16


@pytest.fixture
def fake():
    with FakeTensorMode() as mode:
        yield mode


def cuda(*shape, dtype=BF16, device="cuda"):
    return torch.empty(*shape, dtype=dtype, device=device)


# --- eager checks on CPU tensors -----------------------------------------------------------------

def cpu(*shape, dtype=BF16):
    return torch.zeros(*shape, dtype=dtype)


def test_cpu_tensors_are_rejected_as_a_value_error_naming_the_device():
    with pytest.raises(tileglu.TileGluValueError) as info:
        tileglu.swiglu(cpu(4, 64), cpu(32, 64), cpu(32, 64))
    assert isinstance(info.value, ValueError)
    assert info.value.status_name == "TILEGLU_ERROR_UNSUPPORTED_DEVICE"
    assert str(info.value) == ("tileglu.swiglu: x is on cpu; tileglu runs on CUDA tensors "
                               "(an sm_90 GPU)")


@pytest.mark.parametrize("args, message", [
    ((cpu(4, 64, dtype=torch.float32), cpu(32, 64), cpu(32, 64)),
     "x has dtype torch.float32; tileglu supports torch.bfloat16 and torch.float16"),
    ((cpu(4, 64), cpu(32, 64, dtype=FP16), cpu(32, 64)),
     "w_gate has dtype torch.float16 but x has dtype torch.bfloat16"),
    ((cpu(4, 64, dtype=FP16), cpu(32, 64, dtype=FP16), cpu(32, 64)),
     "w_up has dtype torch.bfloat16 but x has dtype torch.float16"),
    ((cpu(4, 64), cpu(64, 64, dtype=torch.float32)),
     "w_gate_up has dtype torch.float32 but x has dtype torch.bfloat16"),
])
def test_dtype_problems_are_type_errors(args, message):
    with pytest.raises(tileglu.TileGluTypeError) as info:
        tileglu.swiglu(*args)
    assert isinstance(info.value, TypeError) and message in str(info.value)
    assert info.value.status_name == "TILEGLU_ERROR_UNSUPPORTED_DTYPE"


def test_out_dtype_is_checked_before_the_device():
    with pytest.raises(TypeError, match="out has dtype torch.float16 but x has dtype torch.bfloat16"):
        tileglu.swiglu(cpu(4, 64), cpu(32, 64), cpu(32, 64), out=cpu(4, 32, dtype=FP16))


@pytest.mark.parametrize("bad, name", [("x", "x"), ("w_gate", "w_gate"), ("w_up", "w_up"),
                                       ("out", "out")])
def test_non_tensors_are_type_errors(bad, name):
    args = dict(x=cpu(4, 64), w_gate=cpu(32, 64), w_up=cpu(32, 64), out=None)
    args[bad] = [1, 2, 3]
    with pytest.raises(TypeError, match=f"{name} must be a torch.Tensor.*got list"):
        tileglu.swiglu(args["x"], args["w_gate"], args["w_up"], out=args["out"])


def test_reference_matches_the_formula():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 16, generator=g).to(BF16)
    wg = torch.randn(8, 16, generator=g).to(BF16)
    wu = torch.randn(8, 16, generator=g).to(BF16)
    want = (torch.nn.functional.silu(x.double() @ wg.double().t()) * (x.double() @ wu.double().t()))
    got = tileglu.swiglu_reference(x, wg, wu)
    assert got.dtype == BF16 and got.shape == (5, 8)
    torch.testing.assert_close(got.double(), want, rtol=1e-2, atol=1e-2)
    assert torch.equal(tileglu.swiglu_reference(x, torch.cat([wg, wu])), got)


# --- routing: eager fast path or the custom op ---------------------------------------------------

def test_eager_calls_take_the_fast_path_and_autograd_goes_through_the_op():
    x, wg, wu = cpu(4, 64), cpu(32, 64), cpu(32, 64)
    assert str(_raises(x, wg, wu)).startswith("tileglu.swiglu: ")
    wg.requires_grad_()
    assert str(_raises(x, wg, wu)).startswith("tileglu::swiglu: ")   # recorded for autograd
    with torch.no_grad():
        assert str(_raises(x, wg, wu)).startswith("tileglu.swiglu: ")
    with torch.inference_mode():
        assert str(_raises(x, wg.detach(), wu)).startswith("tileglu.swiglu: ")
    assert str(_raises(x, torch.cat([wg, wu]))).startswith("tileglu::swiglu_stacked: ")
    assert str(_raises(x, wg, wu, out=cpu(4, 32))).startswith("tileglu::swiglu_out: ")


def _raises(*args, **kwargs):
    with pytest.raises(tileglu.TileGluError) as info:
        tileglu.swiglu(*args, **kwargs)
    return info.value


# --- fake tensors: shapes and checks without a GPU -----------------------------------------------

@pytest.mark.parametrize("x_shape", [(4, 64), (64,), (2, 3, 64), (2, 1, 3, 64), (0, 64)])
@pytest.mark.parametrize("dtype", [BF16, FP16])
def test_fake_output_shapes(fake, x_shape, dtype):
    x, wg, wu = cuda(*x_shape, dtype=dtype), cuda(48, 64, dtype=dtype), cuda(48, 64, dtype=dtype)
    want = (*x_shape[:-1], 48)
    for y in (tileglu.swiglu(x, wg, wu), torch.ops.tileglu.swiglu(x, wg, wu),
              tileglu.swiglu(x, torch.cat([wg, wu])), torch.ops.tileglu.swiglu_stacked(x, torch.cat([wg, wu]))):
        assert tuple(y.shape) == want and y.dtype == dtype and y.device.type == "cuda"
        assert y.is_contiguous()
    out = cuda(*want, dtype=dtype)
    assert tileglu.swiglu(x, wg, wu, out=out) is out
    assert tileglu.swiglu(x, torch.cat([wg, wu]), out=out) is out
    assert torch.ops.tileglu.swiglu_out(x, wg, wu, out) is None
    assert torch.ops.tileglu.swiglu_stacked_out(x, torch.cat([wg, wu]), out) is None


@pytest.mark.parametrize("make, message, status", [
    (lambda: (cuda(4, 64), cuda(32, 56), cuda(32, 56)),
     "w_gate has shape (32, 56); expected [I, K] with K = x.shape[-1] = 64", "INVALID_SHAPE"),
    (lambda: (cuda(4, 64), cuda(32, 64), cuda(40, 64)),
     "w_up has shape (40, 64) but w_gate has shape (32, 64)", "INVALID_SHAPE"),
    (lambda: (cuda(4, 64), cuda(32, 64, 1), cuda(32, 64, 1)),
     "w_gate has shape (32, 64, 1); expected [I, K]", "INVALID_SHAPE"),
    (lambda: (cuda(4, 64), cuda(33, 64)),
     "w_gate_up has shape (33, 64); its first dimension must be 2I", "INVALID_SHAPE"),
    (lambda: (cuda(4, 64), cuda(40, 64)),
     "K (=64) and I (=20) must be multiples of 8", "UNALIGNED_DIMENSION"),
    (lambda: (cuda(4, 60), cuda(32, 60), cuda(32, 60)),
     "K (=60) and I (=32) must be multiples of 8", "UNALIGNED_DIMENSION"),
    (lambda: (cuda(4, 64), cuda(36, 64), cuda(36, 64)),
     "K (=64) and I (=36) must be multiples of 8", "UNALIGNED_DIMENSION"),
    (lambda: (cuda(4, 64), cuda(0, 64), cuda(0, 64)), "I (=0) must be positive", "INVALID_SHAPE"),
    (lambda: (cuda(4, 0), cuda(8, 0), cuda(8, 0)), "K (=0) and I (=8) must be positive",
     "INVALID_SHAPE"),
    (lambda: (torch.empty((), dtype=BF16, device="cuda"), cuda(8, 64), cuda(8, 64)),
     "x must have at least one dimension", "INVALID_SHAPE"),
    (lambda: (cuda(64, 4).t(), cuda(32, 64), cuda(32, 64)),
     "x must be contiguous in its last dimension (shape (4, 64), stride (1, 4))",
     "INVALID_LEADING_DIM"),
    (lambda: (cuda(4, 100)[:, :64], cuda(32, 64), cuda(32, 64)),
     "has row stride 100 elements, not a multiple of 8", "INVALID_LEADING_DIM"),
    (lambda: (cuda(1, 64).expand(4, 64), cuda(32, 64), cuda(32, 64)),
     "x (shape (4, 64), stride (0, 1)) is broadcast (row stride 0)", "INVALID_LEADING_DIM"),
    (lambda: (cuda(4, 64), cuda(64, 32).t(), cuda(32, 64)),
     "w_gate must be contiguous in its last dimension", "INVALID_LEADING_DIM"),
    (lambda: (cuda(3, 2, 64).transpose(0, 1), cuda(32, 64), cuda(32, 64)),
     "x (shape (2, 3, 64), stride (64, 128, 1)) has leading dimensions that do not flatten",
     "INVALID_LEADING_DIM"),
    (lambda: (cuda(2, 4, 64)[:, :3], cuda(32, 64), cuda(32, 64)),
     "do not flatten into one row stride; pass x.contiguous()", "INVALID_LEADING_DIM"),
])
def test_fake_checks_name_the_problem(fake, make, message, status):
    args = make()
    for call in (lambda: tileglu.swiglu(*args),
                 lambda: (torch.ops.tileglu.swiglu(*args) if len(args) == 3
                          else torch.ops.tileglu.swiglu_stacked(*args))):
        with pytest.raises(tileglu.TileGluValueError) as info:
            call()
        assert message in str(info.value)
        assert info.value.status_name == "TILEGLU_ERROR_" + status


def test_fake_out_checks(fake):
    x, wg, wu = cuda(2, 3, 64), cuda(32, 64), cuda(32, 64)
    with pytest.raises(ValueError, match=r"out has shape \(6, 32\); expected \(2, 3, 32\)"):
        tileglu.swiglu(x, wg, wu, out=cuda(6, 32))
    with pytest.raises(ValueError, match=r"out has shape \(2, 3, 40\); expected \(2, 3, 32\)"):
        torch.ops.tileglu.swiglu_out(x, wg, wu, cuda(2, 3, 40))
    with pytest.raises(TypeError, match="out has dtype torch.float16"):
        tileglu.swiglu(x, wg, wu, out=cuda(2, 3, 32, dtype=FP16))
    with pytest.raises(ValueError, match="out must be contiguous in its last dimension"):
        tileglu.swiglu(x, wg, wu, out=cuda(2, 32, 3).transpose(1, 2))
    # A padded out (row stride 40, a multiple of 8) is written in place.
    padded = cuda(6, 40)[:, :32].view(2, 3, 32)
    assert tileglu.swiglu(x, wg, wu, out=padded) is padded


def test_fake_devices_must_match(fake):
    x = cuda(4, 64)
    with pytest.raises(tileglu.TileGluValueError, match="w_up is on cpu but x is on cuda:0"):
        tileglu.swiglu(x, cuda(32, 64), torch.empty(32, 64, dtype=BF16, device="cpu"))
    if torch.cuda.is_available() and torch.cuda.device_count() < 2:
        return  # FakeTensorMode initialises a real device per fake one: cuda:1 needs a second GPU
    with pytest.raises(tileglu.TileGluValueError,
                       match="w_gate is on cuda:1 but x is on cuda:0; all tensors must be on one"):
        tileglu.swiglu(x, cuda(32, 64, device="cuda:1"), cuda(32, 64))


LAYOUTS = {
    "contiguous 2-D": lambda: cuda(5, 64),
    "1-D": lambda: cuda(64),
    "contiguous 3-D": lambda: cuda(2, 3, 64),
    "padded rows": lambda: cuda(5, 128)[:, :64],
    "every other row": lambda: cuda(10, 64)[::2],
    "one row of a padded batch": lambda: cuda(4, 7, 64)[:, 3],
    "middle size-1 dim": lambda: cuda(4, 7, 64)[:, 3:4],
    "single row, odd stride": lambda: cuda(3, 100)[1:2, :64],
    "3-D padded rows": lambda: cuda(2, 3, 72)[..., :64],
    "empty": lambda: cuda(0, 3, 64),
}
WANT_ROWS_LD = {
    "contiguous 2-D": (5, 64), "1-D": (1, 64), "contiguous 3-D": (6, 64), "padded rows": (5, 128),
    "every other row": (5, 128), "one row of a padded batch": (4, 7 * 64),
    "middle size-1 dim": (4, 7 * 64), "single row, odd stride": (1, 64),
    "3-D padded rows": (6, 72), "empty": (0, 64),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_strided_x_is_read_in_place_through_its_row_stride(fake, layout):
    x = LAYOUTS[layout]()
    wg, wu = cuda(16, 64), cuda(16, 64)
    plan = T._plan("t", x, wg, wu, None)
    assert plan == T._plan_full("t", x, wg, wu, None)   # fast path and full checks agree
    code, m, k, i, ldx, ld_gate, ld_up, out_shape, ld_out = plan
    assert (m, ldx) == WANT_ROWS_LD[layout]
    assert (code, k, i, ld_gate, ld_up, ld_out) == (0, 64, 16, 64, 64, 16)
    assert out_shape == (*x.shape[:-1], 16)


def test_weight_row_strides_and_stacked_rows(fake):
    big = cuda(64, 96)
    wg, wu = big[:16, :64], big[32:40 + 8, :64]
    plan = T._plan("t", cuda(4, 64), wg, wu, None)
    assert plan[5:7] == (96, 96)
    plan = T._plan("t", cuda(4, 64), cuda(16, 64), big[:16, :64], None)
    assert plan[5:7] == (64, 96)   # different leading dims: the general tileglu_swiglu path
    stacked = T._plan("t", cuda(4, 64), big[:32, :64], None, None)
    assert stacked[3] == 16 and stacked[5] == stacked[6] == 96
    assert T._plan("t", cuda(4, 64, dtype=FP16), cuda(32, 64, dtype=FP16), None, None)[0] == 1


def test_export_traces_the_wrapper_into_one_graph(fake):
    class Block(torch.nn.Module):
        def forward(self, x, wg, wu, w_stacked, out):
            h = tileglu.swiglu(x * 2, wg, wu)
            tileglu.swiglu(x, w_stacked, out=out)
            return h + tileglu.swiglu(x, w_stacked) + out

    args = (cuda(2, 3, 64), cuda(32, 64), cuda(32, 64), cuda(64, 64), cuda(2, 3, 32))
    ep = torch.export.export(Block(), args, strict=True)   # strict: dynamo, fails on a break
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    assert targets.count("tileglu.swiglu.default") == 1
    assert targets.count("tileglu.swiglu_stacked.default") == 1
    assert "tileglu.swiglu_stacked_out.default" in targets or any(
        "auto_functionalized" in t for t in targets)
    out_node = [n for n in ep.graph.nodes if n.op == "output"][0]
    assert tuple(out_node.args[0][0].meta["val"].shape) == (2, 3, 32)


def test_export_with_a_dynamic_batch(fake):
    class Block(torch.nn.Module):
        def forward(self, x, wg, wu):
            return tileglu.swiglu(x, wg, wu)

    batch = torch.export.Dim("batch", min=2, max=4096)
    ep = torch.export.export(Block(), (cuda(16, 64), cuda(32, 64), cuda(32, 64)),
                             dynamic_shapes=({0: batch}, None, None), strict=True)
    val = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0].meta["val"]
    assert str(val.shape[0]) != "16" and val.shape[1] == 32


def test_symbolic_tracing_of_all_four_ops(fake):
    """What opcheck's dynamic-shape test and torch.compile(dynamic=True) do: trace the ops with
    every size symbolic (K and I as multiples of 8, which the fake implementations require)."""
    from torch.export import Dim

    class Block(torch.nn.Module):
        def forward(self, x, w_stacked, wg, wu, out):
            torch.ops.tileglu.swiglu_out(x, wg, wu, out)
            torch.ops.tileglu.swiglu_stacked_out(x, w_stacked, out)
            return (torch.ops.tileglu.swiglu_stacked(x, w_stacked)
                    + torch.ops.tileglu.swiglu(x, wg, wu) + out)

    m, k8, i8 = Dim("M", min=2, max=1 << 20), Dim("K8", max=1 << 16), Dim("I8", max=1 << 16)
    k, i, i2 = 8 * k8, 8 * i8, 16 * i8
    args = (cuda(16, 64), cuda(64, 64), cuda(32, 64), cuda(32, 64), cuda(16, 32))
    dims = ({0: m, 1: k}, {0: i2, 1: k}, {0: i, 1: k}, {0: i, 1: k}, {0: m, 1: i})
    ep = torch.export.export(Block(), args, dynamic_shapes=dims, strict=True)
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    assert targets.count("tileglu.swiglu.default") == 1
    assert targets.count("tileglu.swiglu_stacked.default") == 1
    assert sum("swiglu_out" in t or "swiglu_stacked_out" in t or "auto_functionalized" in t
               for t in targets) == 2
    val = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0].meta["val"]
    assert [str(s) for s in val.shape] == [str(s) for s in
                                          [n for n in ep.graph.nodes if n.op == "placeholder"][-1]
                                          .meta["val"].shape]
    assert not any(isinstance(s, int) for s in val.shape)   # M and I stayed symbolic
