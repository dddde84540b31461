"""scripts/split_tail_trace_summary.py on a made-up trace: the spans it reports are the stamps' differences."""
import importlib.util
import json

from conftest import REPO


def load_summary():
    spec = importlib.util.spec_from_file_location("split_tail_trace_summary",
                                                  REPO / "scripts" / "split_tail_trace_summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_case():
    steps = 13  # start, whole done, acquired, 3 x (swept, exchanged, stored), released
    # CTA 0: one whole tile (0 -> 50 us), a hand-over piece, then the owning piece.
    cta0 = [0, 50000, 51000, 60000, 62000, -1, 75000, 80000, 81000, -1, -1, -1, 82000]
    # CTA 1: starts 1 us late, one hand-over piece only.
    cta1 = [1000, 52000, 52000, 64000, 65000, -1, -1, -1, -1, -1, -1, -1, 66000]
    idle = [-1] * steps
    return {"case": "t", "m": 256, "k": 5120, "i": 13824, "tiles": 3, "k_tiles": 80, "grid": 3,
            "cooperative": True, "dp_tiles": 1, "tail_tiles": 2, "pieces": 2, "whole_us": 100.0, "split_us": 90.0,
            "traced_us": 91.0, "traced_outputs_differing_from_split": 0,
            "whole_outputs_differing_from_split": 7, "outputs": 100, "stamp_steps": steps,
            "stamps_ns": [cta0, cta1, idle]}


def test_summary_reports_the_stamps_differences():
    lines = load_summary().summarise(make_case())
    text = "\n".join(lines)
    assert "split/whole 0.900" in text
    assert "2 x 2 pieces on 3 CTAs (cooperative);" in text
    assert "CTAs stamped 2" in text
    assert "wait for the exchange 0.5 / 1.0 us" in text  # 1000 and 0 ns
    # Round 0: sweeps 60000 - 51000 and 64000 - 52000; hand-overs 2000 and 1000 ns.
    assert "tail round 0: 2 CTAs; sweep 10.5 / 12.0, exchange 1.5 / 2.0, store - us" in text
    # Round 1 (CTA 0 only): sweep 75000 - 62000, peers added 5000, stored 1000.
    assert "tail round 1: 1 CTAs; sweep 13.0 / 13.0, exchange 5.0 / 5.0, store 1.0 / 1.0 us" in text
    assert "released (median / last) 74.0 / 82.0 us" in text


def test_summary_runs_on_a_file(tmp_path, capsys):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"device": "d", "sm_count": 132, "reps": 3, "cases": [make_case()]}))
    module = load_summary()
    import sys
    argv, sys.argv = sys.argv, ["x", str(path)]
    try:
        module.main()
    finally:
        sys.argv = argv
    assert "tail round 1" in capsys.readouterr().out
