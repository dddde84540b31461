"""Exceptions and the C status codes they stand for (include/tileglu/tileglu.h, tileglu_status_t).

Torch-free. Every exception tileglu raises is a TileGluError, and also the built-in type a
Python caller expects: a bad argument is a ValueError, a bad dtype a TypeError, a device or CUDA
failure a RuntimeError. ``status`` is the C status the problem corresponds to (also for checks
that Python makes before calling C), ``status_name`` its header name, or None for problems the C
library has no status for (the library not found).
"""

# The C enum, value -> name. tests/python/test_lib.py parses the header and fails on any drift.
STATUS_NAMES = {
    0: "TILEGLU_SUCCESS",
    1: "TILEGLU_ERROR_NULL_POINTER",
    2: "TILEGLU_ERROR_INVALID_SHAPE",
    3: "TILEGLU_ERROR_UNALIGNED_DIMENSION",
    4: "TILEGLU_ERROR_INVALID_LEADING_DIM",
    5: "TILEGLU_ERROR_MISALIGNED_POINTER",
    6: "TILEGLU_ERROR_ALIASING",
    7: "TILEGLU_ERROR_UNSUPPORTED_DTYPE",
    8: "TILEGLU_ERROR_UNSUPPORTED_DEVICE",
    9: "TILEGLU_ERROR_CUDA",
    10: "TILEGLU_ERROR_NO_KERNEL",
    11: "TILEGLU_ERROR_INVALID_ARGUMENT",
    12: "TILEGLU_ERROR_INVALID_TABLE",
}
STATUS = {name: value for value, name in STATUS_NAMES.items()}

SUCCESS = 0
NULL_POINTER = 1
INVALID_SHAPE = 2
UNALIGNED_DIMENSION = 3
INVALID_LEADING_DIM = 4
MISALIGNED_POINTER = 5
ALIASING = 6
UNSUPPORTED_DTYPE = 7
UNSUPPORTED_DEVICE = 8
CUDA = 9
NO_KERNEL = 10
INVALID_ARGUMENT = 11
INVALID_TABLE = 12


class TileGluError(RuntimeError):
    """Base of every tileglu exception."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status
        self.status_name = STATUS_NAMES.get(status) if status is not None else None


class TileGluValueError(TileGluError, ValueError):
    """A shape, stride, alignment, aliasing or device-placement problem in the arguments."""


class TileGluTypeError(TileGluError, TypeError):
    """An unsupported or mismatched dtype, or an argument that is not a tensor."""


class TileGluDeviceError(TileGluError):
    """No usable sm_90 device, a CUDA failure, or no compiled kernel for the problem."""


class LibraryNotFoundError(TileGluError):
    """libtileglu.so could not be found or loaded. Raised at call time, never at import."""


# Which Python exception a C status becomes.
STATUS_EXCEPTIONS = {
    NULL_POINTER: TileGluValueError,
    INVALID_SHAPE: TileGluValueError,
    UNALIGNED_DIMENSION: TileGluValueError,
    INVALID_LEADING_DIM: TileGluValueError,
    MISALIGNED_POINTER: TileGluValueError,
    ALIASING: TileGluValueError,
    UNSUPPORTED_DTYPE: TileGluTypeError,
    UNSUPPORTED_DEVICE: TileGluDeviceError,
    CUDA: TileGluDeviceError,
    NO_KERNEL: TileGluDeviceError,
    INVALID_ARGUMENT: TileGluValueError,
    INVALID_TABLE: TileGluValueError,
}


def error_from_status(status, message, where="tileglu"):
    """The exception for a failing C status and its tileglu_last_error_message()."""
    cls = STATUS_EXCEPTIONS.get(status, TileGluError)
    name = STATUS_NAMES.get(status, f"unknown status {status}")
    text = f"{where}: {message} ({name})" if message else f"{where}: {name}"
    return cls(text, status)
