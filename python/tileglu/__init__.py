"""tileglu: the fused SwiGLU kernel (silu(x @ Wg.T) * (x @ Wu.T)) of libtileglu.so for PyTorch.

    import tileglu
    h = tileglu.swiglu(x, w_gate, w_up)          # x [..., K], weights [I, K] -> [..., I]
    h = tileglu.swiglu(x, w_gate_up)             # stacked [2I, K], gate rows first
    tileglu.swiglu(x, w_gate, w_up, out=h)       # into an existing tensor
    torch.ops.tileglu.swiglu(x, w_gate, w_up)    # the custom op (torch.compile, CUDA graphs)
    tileglu.patch(model); tileglu.unpatch(model) # Hugging Face Qwen2/Llama/Mistral MLPs
    tileglu.load_tuning_table("h200.table")      # dispatch by your own tuner run

Importing never loads the library and never fails for its absence; the first call that needs it
loads it (see tileglu._lib for where it is looked for) or raises LibraryNotFoundError. The
torch-free parts (library loading, status codes, exceptions) import without PyTorch.
"""
from ._errors import (STATUS, STATUS_NAMES, LibraryNotFoundError, TileGluDeviceError,
                      TileGluError, TileGluTypeError, TileGluValueError)
from ._lib import (ENV_VAR, candidate_paths, find_library, load_library, load_tuning_table,
                   status_string)

__version__ = "0.1.0"

try:
    import torch as _torch  # noqa: F401
except ImportError as _e:  # the torch-free layer stays usable
    _TORCH_IMPORT_ERROR = _e

    def _needs_torch(*args, **kwargs):
        raise ImportError(f"tileglu: this function needs PyTorch (>= 2.4): {_TORCH_IMPORT_ERROR}")

    swiglu = swiglu_reference = query_config = patch = unpatch = _needs_torch
else:
    from ._torch_ops import query_config, swiglu, swiglu_reference
    from ._patch import patch, unpatch

__all__ = [
    "swiglu", "swiglu_reference", "query_config", "patch", "unpatch",
    "TileGluError", "TileGluValueError", "TileGluTypeError", "TileGluDeviceError",
    "LibraryNotFoundError", "STATUS", "STATUS_NAMES",
    "ENV_VAR", "candidate_paths", "find_library", "load_library", "load_tuning_table",
    "status_string",
]
