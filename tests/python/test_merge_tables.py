"""scripts/merge_tuning_tables.py: overlay rows replace base rows of the same key, new keys are
added, a header mismatch is refused. Torch-free."""
import importlib.util

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location(
    "merge_tuning_tables", REPO / "scripts" / "merge_tuning_tables.py")
merge_tuning_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(merge_tuning_tables)

HEADER = "tileglu-tuning-table 1\nlibrary 0.1.0\ndevice {device}\nsm_count {sms}\n"
H100 = "NVIDIA H100 80GB HBM3"


def write(path, rows, sms=132, device="NVIDIA H200"):
    path.write_text(HEADER.format(sms=sms, device=device) + "".join(r + "\n" for r in rows))
    return str(path)


def rows_of(text):
    return [l for l in text.splitlines() if l and l[0] in "bf" and not l.startswith("#")]


def test_overlay_replaces_and_adds(tmp_path):
    base = write(tmp_path / "base.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3",
                                           "bf16 896 4864 4096 k2_pingpong_128x64x64_s6 120.0"])
    over = write(tmp_path / "over.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1",
                                           "fp16 896 4864 2 k2_decode_n8_c8_u4 6.2"])
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, over, "--out", str(out)]) == 0
    text = out.read_text()
    assert rows_of(text) == ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1",
                             "bf16 896 4864 4096 k2_pingpong_128x64x64_s6 120.0",
                             "fp16 896 4864 2 k2_decode_n8_c8_u4 6.2"]
    assert "sm_count 132" in text.splitlines()
    assert "base.table, over.table" in text


def test_header_mismatch_is_refused(tmp_path, capsys):
    base = write(tmp_path / "base.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3"])
    over = write(tmp_path / "over.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1"], sms=114)
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, over, "--out", str(out)]) == 2
    assert "sm_count '114' differs" in capsys.readouterr().err
    assert not out.exists()


def test_not_a_table_is_refused(tmp_path):
    bad = tmp_path / "bad.table"
    bad.write_text("hello\n")
    with pytest.raises(ValueError, match="not a tileglu tuning table"):
        merge_tuning_tables.parse(str(bad))


def test_device_mismatch_is_refused_without_stand_in(tmp_path, capsys):
    base = write(tmp_path / "base.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3"])
    over = write(tmp_path / "over.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1"], device=H100)
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, over, "--out", str(out)]) == 2
    assert "device 'NVIDIA H100 80GB HBM3' differs" in capsys.readouterr().err


def test_stand_in_takes_the_overlays_device_and_says_so(tmp_path):
    base = write(tmp_path / "h200.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3",
                                           "bf16 896 4864 4096 k2_pingpong_128x64x64_s6 120.0"])
    over = write(tmp_path / "h100.table", ["bf16 896 4864 4096 k2_coop_128x128x64_s4 118.0"],
                 device=H100)
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, over, "--out", str(out), "--stand-in"]) == 0
    text = out.read_text()
    assert f"device {H100}" in text.splitlines()
    assert "device NVIDIA H200" not in text.splitlines()
    assert "h200.table's, measured on NVIDIA H200, standing in" in text
    assert rows_of(text) == ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3",
                             "bf16 896 4864 4096 k2_coop_128x128x64_s4 118.0"]


def test_stand_in_still_refuses_another_sm_count_or_mixed_overlays(tmp_path, capsys):
    base = write(tmp_path / "h200.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3"])
    pcie = write(tmp_path / "pcie.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1"], sms=114,
                 device="NVIDIA H100 PCIe")
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, pcie, "--out", str(out), "--stand-in"]) == 2
    assert "sm_count '114' differs" in capsys.readouterr().err
    sxm = write(tmp_path / "sxm.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1"], device=H100)
    nvl = write(tmp_path / "nvl.table", ["bf16 896 4864 2 k2_decode_n8_c8_u4 6.1"],
                device="NVIDIA H100 NVL")
    assert merge_tuning_tables.main([base, sxm, nvl, "--out", str(out), "--stand-in"]) == 2
    assert f"device 'NVIDIA H100 NVL' differs from {sxm}'s '{H100}'" in capsys.readouterr().err
    assert not out.exists()


def test_stand_in_needs_device_records(tmp_path, capsys):
    base = write(tmp_path / "h200.table", ["bf16 896 4864 1 k2_pingpong_64x64x64_s8 11.3"])
    bare = tmp_path / "bare.table"
    bare.write_text("tileglu-tuning-table 1\nlibrary 0.1.0\nsm_count 132\n"
                    "bf16 896 4864 1 k2_decode_n8_c8_u4 6.1\n")
    out = tmp_path / "merged.table"
    assert merge_tuning_tables.main([base, str(bare), "--out", str(out), "--stand-in"]) == 2
    assert "bare.table: no 'device' record, which --stand-in needs" in capsys.readouterr().err
    over = write(tmp_path / "h100.table", ["bf16 896 4864 1 k2_decode_n8_c8_u4 6.1"], device=H100)
    assert merge_tuning_tables.main([str(bare), over, "--out", str(out), "--stand-in"]) == 2
    assert "bare.table: no 'device' record" in capsys.readouterr().err
    assert not out.exists()
