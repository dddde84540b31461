"""scripts/ab_faster_rows.py: of a table A/B's rows, only those the table's config won by more than
the margin become rows of the output table; a table other than the one the A/B loaded (another
config in a timed row, another device) is refused. Torch-free."""
import importlib.util
import json

from conftest import REPO

spec = importlib.util.spec_from_file_location("ab_faster_rows", REPO / "scripts" / "ab_faster_rows.py")
ab_faster_rows = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab_faster_rows)

HEADER = "tileglu-tuning-table 1\nlibrary 0.1.0\ndevice NVIDIA H200\nsm_count 132\n"
ROWS = ["bf16 5120 13824 256 k2_coop_128x112x64_s4_tma 140.0",
        "bf16 5120 13824 1537 k2_swapab_coop_c96_n224_fs_s4 700.0",
        "bf16 5120 13824 4096 k2_coop_128x128x64_s4_tma 1800.0",
        "bf16 5120 13824 8192 k2_coop_128x128x64_s4_tma 3500.0"]


def ab_row(m, default, table, ratio, rounds=5):
    return {"model": "qwen2.5-14b", "M": m, "K": 5120, "I": 13824,
            "table_ab": {"default_config": default, "table_config": table, "rounds": rounds,
                         "default_us": 100.0, "table_us": None if ratio is None else 100.0 * ratio,
                         "table_over_default": ratio, "noise": 0.03}}


def write(tmp_path, ab_rows, device="NVIDIA H200", rows=ROWS):
    table = tmp_path / "t.table"
    table.write_text(HEADER + "".join(r + "\n" for r in rows))
    ab = tmp_path / "ab.json"
    ab.write_text(json.dumps({"commit": "abc1234", "device": device, "rows": ab_rows}))
    return str(ab), str(table)


def body_rows(text):
    return [l for l in text.splitlines() if l.startswith("bf16")]


def test_keeps_only_rows_faster_beyond_the_margin(tmp_path, capsys):
    ab, table = write(tmp_path, [
        ab_row(256, "k2_pingpong_64x64x64_s8_tma", "k2_coop_128x112x64_s4_tma", 0.95),
        ab_row(1537, "k2_swapab_coop_c96_n224_s4", "k2_swapab_coop_c96_n224_fs_s4", 0.99),
        ab_row(4096, "k2_pingpong_128x64x64_s6_tma", "k2_coop_128x128x64_s4_tma", 1.04),
        ab_row(8192, "k2_coop_128x128x64_s4_tma", "k2_coop_128x128x64_s4_tma", None, rounds=0),
    ])
    out = tmp_path / "faster.table"
    assert ab_faster_rows.main([ab, table, "--out", str(out)]) == 0
    text = out.read_text()
    assert body_rows(text) == ["bf16 5120 13824 256 k2_coop_128x112x64_s4_tma 95.000"]
    assert "device NVIDIA H200" in text.splitlines()
    report = capsys.readouterr().out
    assert "keep qwen2.5-14b M=256" in report and "drop qwen2.5-14b M=1537" in report
    assert "M=8192" not in report  # the configs agreed: nothing was timed
    # A smaller margin takes the 1 % row too.
    assert ab_faster_rows.main([ab, table, "--out", str(out), "--margin", "0.005"]) == 0
    assert len(body_rows(out.read_text())) == 2


def test_untimed_row_is_reported_not_kept(tmp_path, capsys):
    ab, table = write(tmp_path, [ab_row(256, "a", "k2_coop_128x112x64_s4_tma", None)])
    out = tmp_path / "faster.table"
    assert ab_faster_rows.main([ab, table, "--out", str(out)]) == 0
    assert body_rows(out.read_text()) == []
    assert "skip qwen2.5-14b M=256" in capsys.readouterr().out


def test_another_table_is_refused(tmp_path, capsys):
    ab, table = write(tmp_path, [ab_row(256, "a", "k2_pingpong_64x112x64_s5_tma", 0.9)])
    out = tmp_path / "faster.table"
    assert ab_faster_rows.main([ab, table, "--out", str(out)]) == 2
    assert "not the table that A/B loaded" in capsys.readouterr().err
    assert not out.exists()


def test_another_device_is_refused(tmp_path, capsys):
    ab, table = write(tmp_path, [ab_row(256, "a", "k2_coop_128x112x64_s4_tma", 0.9)],
                      device="NVIDIA H100 80GB HBM3")
    assert ab_faster_rows.main([ab, table, "--out", str(tmp_path / "f.table")]) == 2
    assert "but the A/B ran on" in capsys.readouterr().err
