"""Finding, loading and binding libtileglu.so through ctypes. Torch-free.

Where the library is looked for, first match wins:
  1. $TILEGLU_LIBRARY, a path to the .so. When set it is the only candidate: a wrong path is an
     error, never a silent fall back to another build.
  2. The package directory (a libtileglu.so placed next to this file).
  3. <repo>/build/libtileglu.so for the checkout the package was installed from (recorded in
     _install_info.py by setup.py), and for the checkout this file lies in (PYTHONPATH=python or an
     editable install).

Nothing is loaded at import: the first call that needs the library loads it, and a library that
cannot be found raises LibraryNotFoundError then, listing every path tried. Each C function gets
its argtypes/restype once, at load.
"""
import ctypes
import os
import struct
import threading
from pathlib import Path

from ._errors import LibraryNotFoundError, error_from_status

ENV_VAR = "TILEGLU_LIBRARY"
LIBRARY_NAMES = ("libtileglu.so", "libtileglu.so.0")
_PACKAGE_DIR = Path(__file__).resolve().parent

# tileglu_dtype_t and the alignment macros of the header (tests/python/test_lib.py checks them).
DTYPE_BF16 = 0
DTYPE_FP16 = 1
ALIGNMENT_ELEMENTS = 8
ALIGNMENT_BYTES = 16

_c_i64 = ctypes.c_int64
_c_int = ctypes.c_int
_c_vp = ctypes.c_void_p


class SwigluProblem(ctypes.Structure):
    """tileglu_swiglu_problem_t (checked against the header by tests/python/test_lib.py)."""

    _fields_ = [
        ("dtype", _c_int),
        ("m", _c_i64),
        ("k", _c_i64),
        ("i", _c_i64),
        ("x", _c_vp),
        ("ldx", _c_i64),
        ("w_gate", _c_vp),
        ("ld_gate", _c_i64),
        ("w_up", _c_vp),
        ("ld_up", _c_i64),
        ("out", _c_vp),
        ("ld_out", _c_i64),
    ]


# The same struct packed by the struct module: the eager fast path builds one per call (bytes, so
# each call and thread has its own) and passes it as a char* to tileglu_swiglu.
PROBLEM_STRUCT = struct.Struct("=i4x11q")


class Config(ctypes.Structure):
    """tileglu_config_t (checked against the header by tests/python/test_lib.py)."""

    _fields_ = [
        ("kernel", _c_int),
        ("tile_m", _c_int),
        ("tile_n", _c_int),
        ("tile_k", _c_int),
        ("stages", _c_int),
        ("cluster_m", _c_int),
        ("cluster_n", _c_int),
        ("promote_k_tiles", _c_int),
        ("split_k", _c_int),
        ("ablation", _c_int),
        ("name", ctypes.c_char * 64),
    ]


def _repo_roots():
    """Checkouts whose build/ may hold the library: the one installed from, the one we lie in."""
    roots = []
    try:
        from ._install_info import REPO_ROOT  # written by setup.py at install time
        roots.append(Path(REPO_ROOT))
    except ImportError:
        pass
    here = _PACKAGE_DIR.parent.parent  # <repo>/python/tileglu -> <repo>
    if (here / "include" / "tileglu" / "tileglu.h").is_file():
        roots.append(here)
    unique = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def candidate_paths(environ=None):
    """Every path that would be tried, in order, as (where it comes from, Path)."""
    environ = os.environ if environ is None else environ
    explicit = environ.get(ENV_VAR)
    if explicit:
        return [(f"${ENV_VAR}", Path(explicit))]
    found = [("package directory", _PACKAGE_DIR / name) for name in LIBRARY_NAMES]
    for root in _repo_roots():
        found.append((f"checkout {root}", root / "build" / "libtileglu.so"))
    return found


def find_library(environ=None):
    """The path of the library that would be loaded; LibraryNotFoundError if there is none."""
    candidates = candidate_paths(environ)
    for _, path in candidates:
        if path.is_file():
            return path
    tried = "\n".join(f"  {path}  ({where})" for where, path in candidates)
    if candidates and candidates[0][0].startswith("$"):
        hint = f"{ENV_VAR} names a file that does not exist; point it at a built libtileglu.so"
    else:
        hint = (f"build it with `bash scripts/test.sh` (it lands in build/), or set {ENV_VAR} "
                "to the path of libtileglu.so")
    raise LibraryNotFoundError(f"tileglu: libtileglu.so not found. Tried:\n{tried}\n{hint}")


class Library:
    """libtileglu.so with its C functions bound once (argtypes and restype set)."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.cdll = cdll = ctypes.CDLL(str(self.path))
        except OSError as e:
            raise LibraryNotFoundError(f"tileglu: could not load {self.path}: {e}") from e

        def bind(name, restype, argtypes):
            fn = cdll[name]  # a new function object each time (getattr would share one)
            fn.restype = restype
            fn.argtypes = argtypes
            return fn

        self.swiglu = bind("tileglu_swiglu", _c_int, [ctypes.POINTER(SwigluProblem), _c_vp])
        # A second function object for the same symbol, taking PROBLEM_STRUCT bytes.
        self.swiglu_packed = bind("tileglu_swiglu", _c_int, [ctypes.c_char_p, _c_vp])
        self.swiglu_separate = bind(
            "tileglu_swiglu_separate", _c_int,
            [_c_int, _c_i64, _c_i64, _c_i64, _c_vp, _c_i64, _c_vp, _c_vp, _c_i64, _c_vp, _c_i64,
             _c_vp])
        self.swiglu_stacked = bind(
            "tileglu_swiglu_stacked", _c_int,
            [_c_int, _c_i64, _c_i64, _c_i64, _c_vp, _c_i64, _c_vp, _c_i64, _c_vp, _c_i64, _c_vp])
        self.query_config = bind("tileglu_query_config", _c_int,
                                 [ctypes.POINTER(SwigluProblem), ctypes.c_void_p])
        self.load_tuning_table_fn = bind("tileglu_load_tuning_table", _c_int, [ctypes.c_char_p])
        self.status_string = bind("tileglu_status_string", ctypes.c_char_p, [_c_int])
        self.last_error_message = bind("tileglu_last_error_message", ctypes.c_char_p, [])

    def error(self, status, where="tileglu"):
        """The Python exception for a failing status, with the library's message."""
        message = self.last_error_message().decode("utf-8", "replace")
        return error_from_status(status, message, where)

    def run_problem(self, problem, stream=0, where="tileglu"):
        """tileglu_swiglu on a SwigluProblem; raises on a failing status."""
        status = self.swiglu(ctypes.byref(problem), stream)
        if status:
            raise self.error(status, where)

    def config_for(self, problem, where="tileglu.query_config"):
        """tileglu_query_config as a dict. The buffer is larger than tileglu_config_t so that a
        header that grew the struct cannot make the library write past it."""
        buf = ctypes.create_string_buffer(max(4 * ctypes.sizeof(Config), 1024))
        status = self.query_config(ctypes.byref(problem), ctypes.cast(buf, ctypes.c_void_p))
        if status:
            raise self.error(status, where)
        cfg = Config.from_buffer_copy(buf.raw[:ctypes.sizeof(Config)])
        result = {name: getattr(cfg, name) for name, _ in Config._fields_}
        result["name"] = cfg.name.decode("utf-8", "replace")
        return result


    def load_tuning_table(self, path):
        """tileglu_load_tuning_table: `path` (str or os.PathLike) or None to drop a loaded table."""
        arg = None if path is None else os.fsencode(path)
        status = self.load_tuning_table_fn(arg)
        if status:
            raise self.error(status, "tileglu.load_tuning_table")


_LIBRARY = None
_LOCK = threading.Lock()


def load_library(path=None):
    """The loaded Library (loaded on first use and cached). `path` loads that file instead, and
    makes it the cached library from then on."""
    global _LIBRARY
    if _LIBRARY is not None and path is None:
        return _LIBRARY
    with _LOCK:
        if path is not None:
            _LIBRARY = Library(path)
        elif _LIBRARY is None:
            _LIBRARY = Library(find_library())
        return _LIBRARY


def load_tuning_table(path):
    """Dispatch by a table written by ``swiglu_bench --tune PATH`` on this GPU (bench/README.md)
    from now on, for the shapes it covers; ``None`` goes back to the embedded default. A table
    that is unreadable, malformed or stale raises TileGluValueError naming the file, line and
    fault, and the table in use stays. Same as the C ``tileglu_load_tuning_table``."""
    load_library().load_tuning_table(path)


def status_string(status):
    """The library's fixed name for a status (tileglu_status_string)."""
    return load_library().status_string(int(status)).decode()
