"""tileglu.patch / tileglu.unpatch: run the gate/up/SiLU half of Hugging Face MLPs fused.

Qwen2MLP, LlamaMLP and MistralMLP compute down_proj(act_fn(gate_proj(x)) * up_proj(x)). A patched
module computes down_proj(tileglu.swiglu(x, gate_proj.weight, up_proj.weight)): the weights are
read from the module at every call (no copy, no stacking, so load_state_dict, .to() and tied
parameters keep working), and down_proj is the module's own. Patching sets an instance attribute
`forward`; unpatching restores exactly what was there before (the class's forward, or an instance
forward someone else had set).
"""
import types
import warnings

import torch
from torch import nn

from ._lib import ALIGNMENT_ELEMENTS as _ALIGN_ELEMENTS
from ._torch_ops import swiglu

MLP_CLASS_NAMES = ("Qwen2MLP", "LlamaMLP", "MistralMLP")
# Activation modules that compute silu(x) (transformers' ACT2FN["silu"] is SiLUActivation, "swish"
# is nn.SiLU).
_SILU_CLASS_NAMES = ("SiLU", "SiLUActivation")

_ORIGINAL = "_tileglu_original_forward"
_MISSING = object()


def _is_silu(act):
    if act is torch.nn.functional.silu:
        return True
    return isinstance(act, nn.Module) and (isinstance(act, nn.SiLU)
                                          or type(act).__name__ in _SILU_CLASS_NAMES)


def _why_not(module):
    """None when `module` can be patched, else the reason it cannot."""
    for name in ("gate_proj", "up_proj", "down_proj"):
        if not isinstance(getattr(module, name, None), nn.Linear):
            return f"{name} is not an nn.Linear"
    if not _is_silu(getattr(module, "act_fn", None)):
        return f"act_fn is {type(getattr(module, 'act_fn', None)).__name__}, not SiLU"
    if module.gate_proj.bias is not None or module.up_proj.bias is not None:
        return "gate_proj or up_proj has a bias"
    g, u = module.gate_proj.weight, module.up_proj.weight
    if g.shape != u.shape:
        return f"gate_proj.weight {tuple(g.shape)} and up_proj.weight {tuple(u.shape)} differ"
    i, k = g.shape
    if k % _ALIGN_ELEMENTS or i % _ALIGN_ELEMENTS:
        return f"hidden size {k} or intermediate size {i} is not a multiple of {_ALIGN_ELEMENTS}"
    return None


def _fused_forward(self, x):
    return self.down_proj(swiglu(x, self.gate_proj.weight, self.up_proj.weight))


def is_patched(module):
    return _ORIGINAL in module.__dict__


def patch(model):
    """Patches every Qwen2MLP / LlamaMLP / MistralMLP in `model` (the model itself included).

    A module whose act_fn is not SiLU, whose gate/up projections have a bias, or whose sizes the
    kernel cannot take is left alone with a warning. Already patched modules are skipped.
    Returns the qualified names of the modules patched by this call."""
    patched = []
    for name, module in model.named_modules():
        if type(module).__name__ not in MLP_CLASS_NAMES or is_patched(module):
            continue
        reason = _why_not(module)
        if reason is not None:
            warnings.warn(f"tileglu.patch: left {name or type(module).__name__} "
                          f"({type(module).__name__}) unpatched: {reason}", stacklevel=2)
            continue
        setattr(module, _ORIGINAL, module.__dict__.get("forward", _MISSING))
        module.forward = types.MethodType(_fused_forward, module)
        patched.append(name)
    return patched


def unpatch(model):
    """Restores the forward of every module that patch() changed. Returns their names."""
    restored = []
    for name, module in model.named_modules():
        if not is_patched(module):
            continue
        original = module.__dict__.pop(_ORIGINAL)
        if original is _MISSING:
            del module.forward
        else:
            module.forward = original
        restored.append(name)
    return restored
