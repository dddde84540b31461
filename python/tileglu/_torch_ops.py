"""The PyTorch layer: tensor checks, the eager fast path, and the torch.library custom ops.

One set of checks serves three callers (_plan: a fast test for the common all-contiguous case,
falling back to _plan_full, which handles strided views and names the first problem it finds):
  * the eager fast path of tileglu.swiglu, which calls the C ABI through ctypes directly (no
    dispatcher in between: the per-call host cost is what python/bench_overhead.py measures);
  * the real implementation of the custom ops torch.ops.tileglu.swiglu / swiglu_stacked /
    swiglu_out / swiglu_stacked_out, which torch.compile, FakeTensorMode, CUDA-graph capture
    through compiled code and opcheck go through;
  * their fake (meta) implementations, so a compile-time call fails with the same message as an
    eager one.
Pointer alignment needs real pointers and is checked only where the kernel is launched; aliasing of
out with an input is left to the C library's check (its message is passed on).
"""
import torch
from torch import Tensor

from . import _errors as st
from . import _lib
from ._errors import TileGluTypeError, TileGluValueError

if not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
    raise ImportError(f"tileglu needs PyTorch >= 2.4 (torch.library.custom_op); found {torch.__version__}")

_DTYPE_CODE = {torch.bfloat16: _lib.DTYPE_BF16, torch.float16: _lib.DTYPE_FP16}
_ALIGN_ELEMENTS = _lib.ALIGNMENT_ELEMENTS
_ALIGN_BYTES = _lib.ALIGNMENT_BYTES

_is_compiling = torch.compiler.is_compiling
_is_grad_enabled = torch.is_grad_enabled
_dispatch_stack_len = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 0)
_raw_stream = torch._C._cuda_getCurrentRawStream if hasattr(torch._C, "_cuda_getCurrentRawStream") else None
_get_device = torch._C._cuda_getDevice if hasattr(torch._C, "_cuda_getDevice") else None
_empty = torch.empty


# --- checks -------------------------------------------------------------------------------------

def _dtype_error(where, x, others):
    if x.dtype not in _DTYPE_CODE:
        return TileGluTypeError(
            f"{where}: x has dtype {x.dtype}; tileglu supports torch.bfloat16 and torch.float16",
            st.UNSUPPORTED_DTYPE)
    for name, t in others:
        if t.dtype != x.dtype:
            return TileGluTypeError(
                f"{where}: {name} has dtype {t.dtype} but x has dtype {x.dtype}; "
                "x, the weights and out must share one dtype", st.UNSUPPORTED_DTYPE)
    raise AssertionError("no dtype error")


def _device_error(where, x, others):
    if x.device.type != "cuda":
        return TileGluValueError(
            f"{where}: x is on {x.device}; tileglu runs on CUDA tensors (an sm_90 GPU)",
            st.UNSUPPORTED_DEVICE)
    for name, t in others:
        if t.device != x.device:
            return TileGluValueError(
                f"{where}: {name} is on {t.device} but x is on {x.device}; all tensors must be "
                "on one device", st.UNSUPPORTED_DEVICE)
    raise AssertionError("no device error")


def _rows(where, name, t, row_len):
    """(rows, row stride) of `t` read as a row-major [rows, row_len] matrix, or raise.

    The leading dimensions must collapse into one with a single stride: a sliced, padded or
    transposed-batch tensor whose rows are evenly spaced is used in place; anything else is
    rejected (size-1 dimensions are ignored)."""
    shape = t.shape
    stride = t.stride()
    rows = 1
    for size in shape[:-1]:
        rows *= size
    if rows == 0:
        return 0, row_len
    if stride[-1] != 1:
        raise TileGluValueError(
            f"{where}: {name} must be contiguous in its last dimension (shape {tuple(shape)}, "
            f"stride {tuple(stride)}); pass {name}.contiguous()", st.INVALID_LEADING_DIM)
    ld = None
    span = 0
    for d in range(len(shape) - 2, -1, -1):
        size = shape[d]
        if size == 1:
            continue
        if ld is None:
            ld = stride[d]
            span = ld * size
        elif stride[d] != span:
            raise TileGluValueError(
                f"{where}: {name} (shape {tuple(shape)}, stride {tuple(stride)}) has leading "
                f"dimensions that do not flatten into one row stride; pass {name}.contiguous()",
                st.INVALID_LEADING_DIM)
        else:
            span *= size
    if ld is None:  # a single row: its stride does not matter
        ld = row_len
    if ld < row_len or ld % _ALIGN_ELEMENTS:
        if ld == 0:
            why = "is broadcast (row stride 0)"
        elif ld < row_len:
            why = f"has row stride {ld} < its row length {row_len} (rows overlap)"
        else:
            why = (f"has row stride {ld} elements, not a multiple of {_ALIGN_ELEMENTS} "
                   f"({_ALIGN_BYTES} bytes)")
        raise TileGluValueError(
            f"{where}: {name} (shape {tuple(shape)}, stride {tuple(stride)}) {why}; pass "
            f"{name}.contiguous()", st.INVALID_LEADING_DIM)
    return rows, ld


def _plan_full(where, x, w_gate, w_up, out):
    """Checks everything that needs no pointer, naming the first problem found. w_up=None means w_gate is stacked [2I, K].
    Returns (dtype code, M, K, I, ldx, ld_gate, ld_up, out shape or None when out is given, ld_out)."""
    if not isinstance(x, Tensor):
        raise TileGluTypeError(f"{where}: x must be a torch.Tensor, got {type(x).__name__}",
                               st.UNSUPPORTED_DTYPE)
    stacked = w_up is None
    wname = "w_gate_up" if stacked else "w_gate"
    if not isinstance(w_gate, Tensor):
        raise TileGluTypeError(f"{where}: {wname} must be a torch.Tensor, got "
                               f"{type(w_gate).__name__}", st.UNSUPPORTED_DTYPE)
    if not stacked and not isinstance(w_up, Tensor):
        raise TileGluTypeError(f"{where}: w_up must be a torch.Tensor, got {type(w_up).__name__}",
                               st.UNSUPPORTED_DTYPE)
    if out is not None and not isinstance(out, Tensor):
        raise TileGluTypeError(f"{where}: out must be a torch.Tensor or None, got "
                               f"{type(out).__name__}", st.UNSUPPORTED_DTYPE)

    dtype = x.dtype
    code = _DTYPE_CODE.get(dtype)
    if (code is None or w_gate.dtype != dtype or (not stacked and w_up.dtype != dtype)
            or (out is not None and out.dtype != dtype)):
        others = [(wname, w_gate)] + ([] if stacked else [("w_up", w_up)])
        raise _dtype_error(where, x, others + ([("out", out)] if out is not None else []))

    dev = x.device
    if (dev.type != "cuda" or w_gate.device != dev or (not stacked and w_up.device != dev)
            or (out is not None and out.device != dev)):
        others = [(wname, w_gate)] + ([] if stacked else [("w_up", w_up)])
        raise _device_error(where, x, others + ([("out", out)] if out is not None else []))

    xs = x.shape
    if not xs:
        raise TileGluValueError(f"{where}: x must have at least one dimension [..., K], got a "
                                "0-d tensor", st.INVALID_SHAPE)
    k = xs[-1]
    ws = w_gate.shape
    if len(ws) != 2 or ws[1] != k:
        form = "[2I, K] (gate rows first)" if stacked else "[I, K]"
        raise TileGluValueError(
            f"{where}: {wname} has shape {tuple(ws)}; expected {form} with K = x.shape[-1] = {k}",
            st.INVALID_SHAPE)
    if stacked:
        if ws[0] % 2:
            raise TileGluValueError(
                f"{where}: w_gate_up has shape {tuple(ws)}; its first dimension must be 2I "
                "(gate rows, then up rows), an even number", st.INVALID_SHAPE)
        i = ws[0] // 2
    else:
        if w_up.shape != ws:
            raise TileGluValueError(
                f"{where}: w_up has shape {tuple(w_up.shape)} but w_gate has shape {tuple(ws)}",
                st.INVALID_SHAPE)
        i = ws[0]
    if k == 0 or i == 0:
        raise TileGluValueError(f"{where}: K (={k}) and I (={i}) must be positive",
                                st.INVALID_SHAPE)
    if k % _ALIGN_ELEMENTS or i % _ALIGN_ELEMENTS:
        raise TileGluValueError(
            f"{where}: K (={k}) and I (={i}) must be multiples of {_ALIGN_ELEMENTS}",
            st.UNALIGNED_DIMENSION)

    m, ldx = _rows(where, "x", x, k)
    _, ld_gate = _rows(where, wname, w_gate, k)
    ld_up = ld_gate
    if not stacked:
        _, ld_up = _rows(where, "w_up", w_up, k)

    if out is None:
        return code, m, k, i, ldx, ld_gate, ld_up, (*xs[:-1], i), i
    os_ = out.shape
    if len(os_) != len(xs) or os_[-1] != i or os_[:-1] != xs[:-1]:
        raise TileGluValueError(
            f"{where}: out has shape {tuple(os_)}; expected {(*xs[:-1], i)} (x's leading "
            "dimensions, then I)", st.INVALID_SHAPE)
    _, ld_out = _rows(where, "out", out, i)
    return code, m, k, i, ldx, ld_gate, ld_up, None, ld_out


def _plan(where, x, w_gate, w_up, out):
    """The checks of _plan_full with the same result, fast for the common case: every tensor
    contiguous, on one CUDA device, of one supported dtype. Anything else (a strided view, an
    error) goes to _plan_full, which takes the strides it can and names what it cannot."""
    try:
        dt = x.dtype
        xs = x.shape
        ws = w_gate.shape
        k = xs[-1]
        rows = ws[0]
        if (dt in _DTYPE_CODE and w_gate.dtype is dt and len(ws) == 2 and ws[1] == k and k
                and not k % _ALIGN_ELEMENTS and x.is_cuda and w_gate.is_cuda
                and x.is_contiguous() and w_gate.is_contiguous()):
            dev = x.get_device()
            if w_up is None:
                i = rows // 2
                ok = not rows % (2 * _ALIGN_ELEMENTS)
            else:
                i = rows
                ok = (not rows % _ALIGN_ELEMENTS and w_up.dtype is dt and w_up.shape == ws
                      and w_up.is_cuda and w_up.get_device() == dev and w_up.is_contiguous())
            if ok and i and w_gate.get_device() == dev:
                if len(xs) == 2:
                    m = xs[0]
                    out_shape = (m, i)
                else:
                    m = x.numel() // k
                    out_shape = (*xs[:-1], i)
                if out is None:
                    return _DTYPE_CODE[dt], m, k, i, k, k, k, out_shape, i
                if (out.dtype is dt and out.is_cuda and out.get_device() == dev
                        and out.is_contiguous() and out.shape == out_shape):
                    return _DTYPE_CODE[dt], m, k, i, k, k, k, None, i
    except (AttributeError, TypeError, IndexError):
        pass
    return _plan_full(where, x, w_gate, w_up, out)


def _misaligned(where, named):
    for name, t in named:
        p = t.data_ptr()
        if p % _ALIGN_BYTES:
            return TileGluValueError(
                f"{where}: {name}.data_ptr() = {p:#x} is not {_ALIGN_BYTES}-byte aligned "
                f"(storage offset {t.storage_offset()} elements); pass {name}.clone()",
                st.MISALIGNED_POINTER)
    raise AssertionError("no misaligned pointer")


# --- launch -------------------------------------------------------------------------------------

_LIB = None
_pack_problem = _lib.PROBLEM_STRUCT.pack


def _library():
    global _LIB
    _LIB = _lib.load_library()
    return _LIB


def _run(where, x, w_gate, w_up, out):
    """Checks, allocates `out` when None, launches on the current stream; returns out."""
    code, m, k, i, ldx, ld_gate, ld_up, out_shape, ld_out = _plan(where, x, w_gate, w_up, out)
    if out is None:
        out = _empty(out_shape, dtype=x.dtype, device=x.device)
    if m == 0:
        return out
    px = x.data_ptr()
    pg = w_gate.data_ptr()
    po = out.data_ptr()
    if w_up is None:
        pu = pg + i * ld_gate * x.element_size()  # the up rows of the stacked weight
        if (px | pg | po) % _ALIGN_BYTES:
            raise _misaligned(where, [("x", x), ("w_gate_up", w_gate), ("out", out)])
    else:
        pu = w_up.data_ptr()
        if (px | pg | pu | po) % _ALIGN_BYTES:
            raise _misaligned(where, [("x", x), ("w_gate", w_gate), ("w_up", w_up), ("out", out)])
    lib = _LIB or _library()
    dev = x.get_device()
    if dev != _get_device():
        # The library launches on the current device: make it x's for this call.
        with torch.cuda.device(dev):
            return _run(where, x, w_gate, w_up, out)
    # One packed tileglu_swiglu_problem_t and a two-argument call: ctypes converts 12 scalar
    # arguments several times slower than struct packs them.
    status = lib.swiglu_packed(
        _pack_problem(code, m, k, i, px, ldx, pg, ld_gate, pu, ld_up, po, ld_out),
        _raw_stream(dev))
    if status:
        if w_up is None and status in _VALIDATION_STATUSES:
            # Ask tileglu_swiglu_stacked for its message, which names w_gate_up, not w_up.
            # It fails in validation too, so it launches nothing.
            status = lib.swiglu_stacked(code, m, k, i, px, ldx, pg, ld_gate, po, ld_out,
                                        _raw_stream(dev)) or status
        raise lib.error(status, where)
    return out


_VALIDATION_STATUSES = frozenset(range(st.NULL_POINTER, st.UNSUPPORTED_DTYPE + 1))


# --- custom ops ---------------------------------------------------------------------------------

@torch.library.custom_op("tileglu::swiglu", mutates_args=())
def _swiglu_op(x: Tensor, w_gate: Tensor, w_up: Tensor) -> Tensor:
    return _run("tileglu::swiglu", x, w_gate, w_up, None)


@_swiglu_op.register_fake
def _swiglu_fake(x, w_gate, w_up):
    shape = _plan("tileglu::swiglu", x, w_gate, w_up, None)[7]
    return x.new_empty(shape)


@torch.library.custom_op("tileglu::swiglu_stacked", mutates_args=())
def _swiglu_stacked_op(x: Tensor, w_gate_up: Tensor) -> Tensor:
    return _run("tileglu::swiglu_stacked", x, w_gate_up, None, None)


@_swiglu_stacked_op.register_fake
def _swiglu_stacked_fake(x, w_gate_up):
    shape = _plan("tileglu::swiglu_stacked", x, w_gate_up, None, None)[7]
    return x.new_empty(shape)


@torch.library.custom_op("tileglu::swiglu_out", mutates_args=("out",))
def _swiglu_out_op(x: Tensor, w_gate: Tensor, w_up: Tensor, out: Tensor) -> None:
    _run("tileglu::swiglu_out", x, w_gate, w_up, out)


@_swiglu_out_op.register_fake
def _swiglu_out_fake(x, w_gate, w_up, out):
    _plan("tileglu::swiglu_out", x, w_gate, w_up, out)


@torch.library.custom_op("tileglu::swiglu_stacked_out", mutates_args=("out",))
def _swiglu_stacked_out_op(x: Tensor, w_gate_up: Tensor, out: Tensor) -> None:
    _run("tileglu::swiglu_stacked_out", x, w_gate_up, None, out)


@_swiglu_stacked_out_op.register_fake
def _swiglu_stacked_out_fake(x, w_gate_up, out):
    _plan("tileglu::swiglu_stacked_out", x, w_gate_up, None, out)


_op_swiglu = torch.ops.tileglu.swiglu.default
_op_stacked = torch.ops.tileglu.swiglu_stacked.default
_op_swiglu_out = torch.ops.tileglu.swiglu_out.default
_op_stacked_out = torch.ops.tileglu.swiglu_stacked_out.default


# --- public -------------------------------------------------------------------------------------

def swiglu(x, w_gate, w_up=None, *, out=None):
    """silu(x @ w_gate.T) * (x @ w_up.T) in one fused kernel, on the current CUDA stream.

    x: [..., K]; w_gate, w_up: [I, K] (nn.Linear weights); or swiglu(x, w_gate_up) with one stacked
    [2I, K] weight, gate rows first. bf16 or fp16, all on one CUDA device. Returns [..., I], or
    writes into `out` (same shape, last dimension contiguous) and returns it.

    Eager calls go straight to the C library; under torch.compile, a dispatch mode (FakeTensorMode
    and the like), a tensor subclass, or autograd recording (grad mode on and an input that
    requires grad) the call goes through torch.ops.tileglu.* instead. The op has no backward.
    """
    if not _is_compiling():
        if (type(x) is Tensor and not _dispatch_stack_len()
                and not (_is_grad_enabled() and (x.requires_grad
                                                 or getattr(w_gate, "requires_grad", False)
                                                 or getattr(w_up, "requires_grad", False)))):
            return _run("tileglu.swiglu", x, w_gate, w_up, out)
        if not (isinstance(x, Tensor) and isinstance(w_gate, Tensor)
                and (w_up is None or isinstance(w_up, Tensor))
                and (out is None or isinstance(out, Tensor))):
            _plan_full("tileglu.swiglu", x, w_gate, w_up, out)  # raises the TypeError
    if w_up is None:
        if out is None:
            return _op_stacked(x, w_gate)
        _op_stacked_out(x, w_gate, out)
        return out
    if out is None:
        return _op_swiglu(x, w_gate, w_up)
    _op_swiglu_out(x, w_gate, w_up, out)
    return out


def swiglu_reference(x, w_gate, w_up=None):
    """The same computation in PyTorch (fp32 accumulation through matmul, SwiGLU in fp32, one
    rounding), for tests and for checking the fused op."""
    if w_up is None:
        w_gate, w_up = w_gate.chunk(2, dim=0)
    g = torch.matmul(x.float(), w_gate.float().t())
    u = torch.matmul(x.float(), w_up.float().t())
    return (torch.nn.functional.silu(g) * u).to(x.dtype)


def query_config(x, w_gate, w_up=None):
    """The kernel configuration tileglu_query_config reports for these tensors, as a dict
    (kernel, tile_m, tile_n, tile_k, stages, cluster_m, cluster_n, promote_k_tiles, name)."""
    where = "tileglu.query_config"
    code, m, k, i, ldx, ld_gate, ld_up, out_shape, ld_out = _plan(where, x, w_gate, w_up, None)
    if m == 0:
        raise TileGluValueError(f"{where}: x has no rows (M = 0); nothing would run",
                                st.INVALID_SHAPE)
    pg = w_gate.data_ptr()
    pu = pg + i * ld_gate * x.element_size() if w_up is None else w_up.data_ptr()
    out = _empty((m, i), dtype=x.dtype, device=x.device)  # never written; query launches nothing
    lib = _LIB or _library()
    problem = _lib.SwigluProblem(code, m, k, i, x.data_ptr(), ldx, pg, ld_gate, pu, ld_up,
                                 out.data_ptr(), i)
    with torch.cuda.device(x.get_device()):
        return lib.config_for(problem, where)

