"""scripts/old_new_summary.py: the old and the new library's per-process bench files become one
record per (case, model, M) with each library's median and new / old; a row only one library
timed, and a file cut off mid-write, are reported, not paired. Torch-free."""
import importlib.util
import json

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("old_new_summary", REPO / "scripts" / "old_new_summary.py")
old_new_summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old_new_summary)


def bench_file(tmp_path, version, case, rnd, rows):
    path = tmp_path / f"{version}_case{case}_round{rnd}.json"
    path.write_text(json.dumps({"commit": "abc1234", "rows": rows}))


def row(model, m, us, config="k2_swapab_coop_c96_n224_fs_s4", over=None):
    r = {"model": model, "M": m, "config": config, "ours_us": us}
    if over is not None:
        r["ours_over_gemm_silu"] = over
    return r


def test_medians_and_ratio_per_case_and_row(tmp_path):
    for rnd, (old_us, new_us) in enumerate([(100.0, 95.0), (104.0, 90.0), (102.0, 99.0)], 1):
        bench_file(tmp_path, "old", 0, rnd, [row("qwen2.5-32b", 1537, old_us)])
        bench_file(tmp_path, "new", 0, rnd, [row("qwen2.5-32b", 1537, new_us, over=0.9 + rnd / 100)])
        # the same row under another case (a forced config) stays a record of its own
        bench_file(tmp_path, "old", 1, rnd, [row("qwen2.5-32b", 1537, 200.0, config="x")])
        bench_file(tmp_path, "new", 1, rnd, [row("qwen2.5-32b", 1537, 150.0, config="x")])
    records, problems = old_new_summary.summarize(str(tmp_path))
    assert problems == []
    assert [(r["case"], r["model"], r["M"]) for r in records] == [(0, "qwen2.5-32b", 1537),
                                                                (1, "qwen2.5-32b", 1537)]
    first = records[0]
    assert first["old_us"] == 102.0 and first["new_us"] == 95.0
    assert first["new_over_old"] == pytest.approx(95.0 / 102.0)
    assert first["new_over_gemm_silu"] == pytest.approx(0.92)
    assert first["old_runs_us"] == [100.0, 104.0, 102.0]
    assert records[1]["new_over_old"] == pytest.approx(0.75)
    assert records[1]["new_config"] == ["x"] and records[1]["new_over_gemm_silu"] is None


def test_unpaired_rows_and_cut_off_files_are_reported(tmp_path):
    bench_file(tmp_path, "old", 0, 1, [row("qwen2.5-14b", 1537, 50.0), row("qwen2.5-72b", 1537, 80.0)])
    bench_file(tmp_path, "new", 0, 1, [row("qwen2.5-14b", 1537, 49.0)])
    (tmp_path / "new_case0_round2.json").write_text('{"rows": [')  # killed mid-write
    (tmp_path / "notes.json").write_text("{}")  # not a run's file: ignored
    records, problems = old_new_summary.summarize(str(tmp_path))
    assert [r["model"] for r in records] == ["qwen2.5-14b"]
    assert any("new_case0_round2.json" in p for p in problems)
    assert any("qwen2.5-72b" in p and "one library only" in p for p in problems)
