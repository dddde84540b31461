"""Shared helpers for tests/python. The checkout's python/ goes first on sys.path, so these tests
exercise the tileglu package of this tree even where another one is installed.

Three tiers, each skipping with its reason (pytest -rs prints them):
  * needs nothing but Python (and, for some tests, a built libtileglu.so): test_lib.py
  * needs PyTorch, no GPU: test_torch_cpu.py, test_patch.py (also transformers)
  * needs PyTorch, CUDA, an sm_90 GPU and libtileglu.so: test_gpu.py
"""
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADER = REPO / "include" / "tileglu" / "tileglu.h"
sys.path.insert(0, str(REPO / "python"))


def header_text():
    return HEADER.read_text()


def header_enum(name):
    """{enumerator: value} of `typedef enum <name> { ... }` in the public header."""
    text = re.sub(r"/\*.*?\*/", "", header_text(), flags=re.S)
    body = re.search(r"typedef\s+enum\s+" + name + r"\s*\{(.*?)\}", text, flags=re.S)
    assert body, f"enum {name} not found in {HEADER}"
    values, nxt = {}, 0
    for item in body.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        m = re.fullmatch(r"(\w+)\s*(?:=\s*(-?\d+))?", item)
        assert m, f"cannot parse enumerator {item!r}"
        value = int(m.group(2)) if m.group(2) is not None else nxt
        values[m.group(1)] = value
        nxt = value + 1
    return values


def header_struct_fields(name):
    """[(C type, field name, array length or None)] of `typedef struct <name> { ... }`."""
    text = re.sub(r"/\*.*?\*/", "", header_text(), flags=re.S)
    body = re.search(r"typedef\s+struct\s+" + name + r"\s*\{(.*?)\}", text, flags=re.S)
    assert body, f"struct {name} not found in {HEADER}"
    fields = []
    for decl in body.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = re.fullmatch(r"(const\s+)?([\w]+\s*\**)\s*(\w+)(?:\[(\d+)\])?", decl)
        assert m, f"cannot parse field {decl!r}"
        ctype = ((m.group(1) or "") + m.group(2)).replace(" ", "")
        fields.append((ctype, m.group(3), int(m.group(4)) if m.group(4) else None))
    return fields


def header_define(name):
    m = re.search(r"#define\s+" + name + r"\s+(\d+)", header_text())
    assert m, f"#define {name} not found in {HEADER}"
    return int(m.group(1))


def built_library():
    """A loadable libtileglu.so, or pytest.skip with the reason."""
    import tileglu
    try:
        return tileglu.load_library()
    except tileglu.LibraryNotFoundError as e:
        pytest.skip(f"libtileglu.so not available (build it with bash scripts/test.sh): {e}",
                    allow_module_level=True)


def need_torch():
    return pytest.importorskip("torch", reason="PyTorch is not importable")


def need_sm90():
    """torch, with a CUDA device of compute capability 9.0 as the current device."""
    torch = need_torch()
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device visible to PyTorch", allow_module_level=True)
    cap = torch.cuda.get_device_capability()
    if cap != (9, 0):
        pytest.skip(f"the current CUDA device is sm_{cap[0]}{cap[1]}, tileglu needs sm_90",
                    allow_module_level=True)
    built_library()
    return torch
