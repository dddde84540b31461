#!/usr/bin/env python3
"""Writes the rows of a tuning table that a table A/B (`swiglu_bench --ab-table`) measured faster
than the embedded default, as a table to merge onto a base (scripts/merge_tuning_tables.py).

Why: the A/B times, per row where the two differ, the loaded table's config against the embedded
default's in interleaved rounds; a row belongs in the next embedded table only where the table's
config won by more than MARGIN (the tuner's own incumbent margin, 2 %, by default), since rows
within that of 1 swap places from run to run. This is how another device's rows (the H100's table
under an H200's header) or a partial retune are carried into a device's table without a full tune.

Usage: ab_faster_rows.py AB_JSON TABLE --out PATH [--margin 0.02]
  AB_JSON  the A/B's JSON (its rows' `table_ab` records)
  TABLE    the table that A/B loaded (its header and rows are copied)
Prints one line per row that differed: kept or not, and why. Python 3 standard library only.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from merge_tuning_tables import HEADER_KEYS, parse  # noqa: E402  (the table format's one parser)

AB_DTYPE = "bf16"  # the dtype the A/B step times (bench/run_session.sh abtable: --dtype bf16)


def faster_rows(ab, table_path, margin):
    """(table text, report lines)."""
    header, rows = parse(table_path)
    if ab.get("device") and header.get("device") and ab["device"] != header["device"]:
        raise ValueError(f"{table_path}: device {header['device']!r}, but the A/B ran on "
                         f"{ab['device']!r}")
    kept, report = [], []
    for r in ab.get("rows", []):
        t = r.get("table_ab") or {}
        if not t.get("rounds"):
            continue  # the two configs agree (or the row was not timed)
        key = (AB_DTYPE, int(r["K"]), int(r["I"]), int(r["M"]))
        ratio = t.get("table_over_default")
        where = f"{r['model']} M={r['M']}: {t['table_config']} vs {t['default_config']}"
        if ratio is None:
            report.append(f"skip {where}: no timing (error?)")
            continue
        if key not in rows:
            report.append(f"skip {where}: the table has no row {key}")
            continue
        fields = rows[key].split()
        if fields[4] != t["table_config"]:
            raise ValueError(f"{where}: the table's row says {fields[4]}, the A/B "
                             f"timed {t['table_config']}: not the table that A/B loaded")
        verdict = "keep" if ratio <= 1.0 - margin else "drop"
        report.append(f"{verdict} {where}: {ratio:.4f} (noise {t.get('noise') or 0:.3f})")
        if verdict == "keep":
            kept.append(" ".join(fields[:5] + [f"{t['table_us']:.3f}"]))
    lines = [f"# rows of {table_path} faster than the embedded default by more than "
             f"{margin:.1%} in the A/B {ab.get('commit', '?')} on {ab.get('device', '?')}",
             "tileglu-tuning-table 1"]
    lines += [f"{key} {header[key]}" for key in HEADER_KEYS if key in header]
    lines.append("# dtype K I M config time_us (graph replay for M <= 64, else events)")
    lines += kept
    return "\n".join(lines) + "\n", report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ab_json")
    ap.add_argument("table")
    ap.add_argument("--out", required=True)
    ap.add_argument("--margin", type=float, default=0.02)
    args = ap.parse_args(argv)
    try:
        with open(args.ab_json, encoding="utf-8") as f:
            ab = json.load(f)
        text, report = faster_rows(ab, args.table, args.margin)
    except (OSError, ValueError, KeyError) as e:
        print(f"ab_faster_rows: {e}", file=sys.stderr)
        return 2
    print("\n".join(report))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
