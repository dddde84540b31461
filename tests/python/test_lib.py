"""Torch-free: library loading, the C status codes and their exceptions, the ctypes layouts
(checked against include/tileglu/tileglu.h, parsed here, so that a header change fails this file
until python/tileglu follows it), and calls into a built libtileglu.so that fail validation, so
they run on any machine and never launch."""
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import (REPO, built_library, header_define, header_enum, header_struct_fields)

import tileglu
from tileglu import _errors, _lib


# --- the header's enums, macros and structs ------------------------------------------------------

def test_status_names_match_the_header():
    header = header_enum("tileglu_status")
    assert header, "no status parsed"
    assert _errors.STATUS == header
    assert {v: k for k, v in header.items()} == _errors.STATUS_NAMES
    for name, value in header.items():
        short = name[len("TILEGLU_ERROR_"):] if name.startswith("TILEGLU_ERROR_") else "SUCCESS"
        assert getattr(_errors, short) == value, name


def test_every_failing_status_maps_to_a_tileglu_exception():
    header = header_enum("tileglu_status")
    for name, value in header.items():
        if value == 0:
            assert value not in _errors.STATUS_EXCEPTIONS
            continue
        cls = _errors.STATUS_EXCEPTIONS[value]
        assert issubclass(cls, tileglu.TileGluError), name
    argument_problems = ["NULL_POINTER", "INVALID_SHAPE", "UNALIGNED_DIMENSION",
                         "INVALID_LEADING_DIM", "MISALIGNED_POINTER", "ALIASING"]
    for short in argument_problems:
        assert issubclass(_errors.STATUS_EXCEPTIONS[header["TILEGLU_ERROR_" + short]], ValueError)
    assert issubclass(_errors.STATUS_EXCEPTIONS[header["TILEGLU_ERROR_UNSUPPORTED_DTYPE"]],
                      TypeError)
    for short in ["UNSUPPORTED_DEVICE", "CUDA", "NO_KERNEL"]:
        cls = _errors.STATUS_EXCEPTIONS[header["TILEGLU_ERROR_" + short]]
        assert issubclass(cls, RuntimeError) and not issubclass(cls, (ValueError, TypeError))


def test_error_from_status_carries_status_and_message():
    e = _errors.error_from_status(6, "out overlaps x", "tileglu.swiglu")
    assert isinstance(e, tileglu.TileGluValueError) and isinstance(e, ValueError)
    assert e.status == 6 and e.status_name == "TILEGLU_ERROR_ALIASING"
    assert str(e) == "tileglu.swiglu: out overlaps x (TILEGLU_ERROR_ALIASING)"
    unknown = _errors.error_from_status(99, "", "here")
    assert type(unknown) is tileglu.TileGluError and str(unknown) == "here: unknown status 99"


def test_dtype_enum_and_alignment_match_the_header():
    assert header_enum("tileglu_dtype") == {"TILEGLU_DTYPE_BF16": _lib.DTYPE_BF16,
                                            "TILEGLU_DTYPE_FP16": _lib.DTYPE_FP16}
    assert header_define("TILEGLU_ALIGNMENT_ELEMENTS") == _lib.ALIGNMENT_ELEMENTS
    assert header_define("TILEGLU_ALIGNMENT_BYTES") == _lib.ALIGNMENT_BYTES


_CTYPES_FOR = {
    "tileglu_dtype_t": ctypes.c_int, "int": ctypes.c_int, "int64_t": ctypes.c_int64,
    "constvoid*": ctypes.c_void_p, "void*": ctypes.c_void_p,
}


@pytest.mark.parametrize("c_name, py_struct", [("tileglu_swiglu_problem", _lib.SwigluProblem),
                                               ("tileglu_config", _lib.Config)])
def test_ctypes_structs_match_the_header(c_name, py_struct):
    header = header_struct_fields(c_name)
    ours = py_struct._fields_
    assert [f[1] for f in header] == [f[0] for f in ours]
    for (ctype, name, length), (_, pytype) in zip(header, ours):
        if length is not None:
            assert ctype == "char" and pytype == ctypes.c_char * length, name
        else:
            assert pytype == _CTYPES_FOR[ctype], (name, ctype)


def test_packed_problem_has_the_ctypes_layout():
    assert _lib.PROBLEM_STRUCT.size == ctypes.sizeof(_lib.SwigluProblem) == 96
    values = (1, 3, 64, 32, 0x1000, 72, 0x2000, 80, 0x3000, 88, 0x4000, 40)
    p = _lib.SwigluProblem.from_buffer_copy(_lib.PROBLEM_STRUCT.pack(*values))
    assert tuple(getattr(p, f[0]) for f in _lib.SwigluProblem._fields_) == values


# --- finding the library -------------------------------------------------------------------------

def test_env_var_is_the_only_candidate_when_set(tmp_path):
    fake = tmp_path / "libtileglu.so"
    env = {_lib.ENV_VAR: str(fake)}
    assert _lib.candidate_paths(env) == [("$TILEGLU_LIBRARY", fake)]
    with pytest.raises(tileglu.LibraryNotFoundError) as info:
        _lib.find_library(env)
    assert str(fake) in str(info.value) and "TILEGLU_LIBRARY names a file" in str(info.value)
    fake.write_bytes(b"")
    assert _lib.find_library(env) == fake


def test_search_order_package_dir_then_checkout_build(tmp_path, monkeypatch):
    pkg, repo = tmp_path / "pkg", tmp_path / "repo"
    (repo / "build").mkdir(parents=True)
    pkg.mkdir()
    monkeypatch.setattr(_lib, "_PACKAGE_DIR", pkg)
    monkeypatch.setattr(_lib, "_repo_roots", lambda: [repo])
    env = {}
    assert [p for _, p in _lib.candidate_paths(env)] == [
        pkg / "libtileglu.so", pkg / "libtileglu.so.0", repo / "build" / "libtileglu.so"]
    with pytest.raises(tileglu.LibraryNotFoundError) as info:
        _lib.find_library(env)
    message = str(info.value)
    assert str(pkg / "libtileglu.so") in message and str(repo / "build" / "libtileglu.so") in message
    assert "scripts/test.sh" in message
    (repo / "build" / "libtileglu.so").write_bytes(b"")
    assert _lib.find_library(env) == repo / "build" / "libtileglu.so"
    (pkg / "libtileglu.so.0").write_bytes(b"")
    assert _lib.find_library(env) == pkg / "libtileglu.so.0"


def test_repo_roots_include_the_install_record_and_this_checkout(monkeypatch, tmp_path):
    record = type(sys)("tileglu._install_info")
    record.REPO_ROOT = str(tmp_path)
    monkeypatch.setitem(sys.modules, "tileglu._install_info", record)
    roots = _lib._repo_roots()
    assert roots[0] == tmp_path
    # The package under test lies in this checkout's python/, so the checkout is a root too.
    assert Path(tileglu.__file__).resolve().parents[2] == REPO
    assert REPO in roots


def test_a_file_that_is_not_a_library_raises_library_not_found(tmp_path):
    bogus = tmp_path / "libtileglu.so"
    bogus.write_text("not an ELF file")
    with pytest.raises(tileglu.LibraryNotFoundError, match="could not load"):
        _lib.Library(bogus)


def test_import_loads_nothing_and_failure_comes_at_call_time(tmp_path):
    missing = tmp_path / "nowhere" / "libtileglu.so"
    code = (
        "import tileglu, tileglu._lib as L\n"
        "assert L._LIBRARY is None\n"
        "try:\n"
        "    tileglu.load_library()\n"
        "except tileglu.LibraryNotFoundError as e:\n"
        "    print('ERR', e)\n"
    )
    env = dict(os.environ, TILEGLU_LIBRARY=str(missing),
               PYTHONPATH=str(REPO / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ERR tileglu: libtileglu.so not found") and str(missing) in r.stdout


# --- the built library, through calls that fail validation ---------------------------------------

HDR = header_enum("tileglu_status")


def test_status_string_names_every_status():
    lib = built_library()
    for name, value in HDR.items():
        assert lib.status_string(value).decode() == name
    assert tileglu.status_string(HDR["TILEGLU_ERROR_ALIASING"]) == "TILEGLU_ERROR_ALIASING"


def _separate(lib, dtype=0, m=4, k=64, i=32, x=0x1000, ldx=64, wg=0x2000, wu=0x3000, ldw=64,
              out=0x10000, ld_out=32):
    return lib.swiglu_separate(dtype, m, k, i, x, ldx, wg, wu, ldw, out, ld_out, None)


def test_validation_failures_come_back_as_status_and_message():
    lib = built_library()
    assert _separate(lib, k=100, ldx=104, ldw=104) == HDR["TILEGLU_ERROR_UNALIGNED_DIMENSION"]
    assert "k (=100)" in lib.last_error_message().decode()
    e = lib.error(HDR["TILEGLU_ERROR_UNALIGNED_DIMENSION"], "where")
    assert isinstance(e, tileglu.TileGluValueError) and "k (=100)" in str(e)
    assert str(e).startswith("where: ") and str(e).endswith("(TILEGLU_ERROR_UNALIGNED_DIMENSION)")

    assert _separate(lib, dtype=5) == HDR["TILEGLU_ERROR_UNSUPPORTED_DTYPE"]
    assert isinstance(lib.error(HDR["TILEGLU_ERROR_UNSUPPORTED_DTYPE"]), TypeError)
    assert _separate(lib, x=0x1008) == HDR["TILEGLU_ERROR_MISALIGNED_POINTER"]
    assert _separate(lib, out=0x1000) == HDR["TILEGLU_ERROR_ALIASING"]
    assert _separate(lib, x=None) == HDR["TILEGLU_ERROR_NULL_POINTER"]
    assert _separate(lib, m=0) == HDR["TILEGLU_ERROR_INVALID_SHAPE"]


@pytest.mark.parametrize("field, index, value, named", [
    ("ldx", 5, 40, "ldx (=40)"),
    ("ld_gate", 7, 48, "ld_gate (=48)"),
    ("ld_up", 9, 56, "ld_up (=56)"),
    ("ld_out", 11, 20, "ld_out (=20)"),
    ("k", 2, 60, "k (=60)"),
    ("i", 3, 12, "i (=12)"),
])
def test_each_packed_field_reaches_its_c_field(field, index, value, named):
    """The fast path's struct.pack layout, checked by the C validator itself: a bad value in one
    slot must be reported under that slot's name."""
    lib = built_library()
    values = [0, 4, 64, 32, 0x1000, 64, 0x2000, 64, 0x3000, 64, 0x10000, 32]
    values[index] = value
    status = lib.swiglu_packed(_lib.PROBLEM_STRUCT.pack(*values), None)
    assert status != 0
    assert named in lib.last_error_message().decode(), field
    struct_problem = _lib.SwigluProblem(*values)
    assert lib.swiglu(ctypes.byref(struct_problem), None) == status


def test_stacked_messages_name_w_gate_up():
    lib = built_library()
    status = lib.swiglu_stacked(0, 4, 64, 32, 0x1000, 64, 0x2008, 64, 0x10000, 32, None)
    assert status == HDR["TILEGLU_ERROR_MISALIGNED_POINTER"]
    assert "w_gate_up" in lib.last_error_message().decode()


def test_success_clears_the_message_or_device_is_reported():
    """query_config validates and checks the device but launches nothing, so it is safe with
    made-up pointers: without an sm_90 GPU it reports the device, with one it names a config."""
    lib = built_library()
    _separate(lib, k=100)
    assert lib.last_error_message().decode() != ""
    problem = _lib.SwigluProblem(0, 4, 64, 32, 0x1000, 64, 0x2000, 64, 0x3000, 64, 0x10000, 32)
    try:
        cfg = lib.config_for(problem)
    except tileglu.TileGluDeviceError as e:
        assert e.status == HDR["TILEGLU_ERROR_UNSUPPORTED_DEVICE"]
        assert lib.last_error_message().decode() in str(e)
    else:
        assert cfg["name"].startswith("k2_") and cfg["tile_m"] in (64, 128)
        assert lib.last_error_message().decode() == ""


def test_load_tuning_table_rejects_bad_files_and_unloads(tmp_path):
    """A malformed or stale table is a TileGluValueError naming the file and line; None drops a
    loaded table (always succeeds). A valid table needs the device, so without an sm_90 GPU it
    reports the device."""
    built_library()
    with pytest.raises(tileglu.TileGluValueError, match="path is empty"):
        tileglu.load_tuning_table("")
    missing = tmp_path / "missing.table"
    with pytest.raises(tileglu.TileGluValueError, match="cannot open") as e:
        tileglu.load_tuning_table(missing)
    assert e.value.status == HDR["TILEGLU_ERROR_INVALID_TABLE"]
    bad = tmp_path / "bad.table"
    bad.write_text("tileglu-tuning-table 1\nlibrary 0.1.0\nsm_count 132\nbf16 896 4864 1 k2_gone\n")
    with pytest.raises(tileglu.TileGluValueError, match=r"bad.table:4: stale: configuration 'k2_gone'"):
        tileglu.load_tuning_table(str(bad))
    tileglu.load_tuning_table(None)
