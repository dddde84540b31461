#!/usr/bin/env python3
"""Pairs up the old-vs-new library runs of bench/run_session.sh's `oldnew` step: per case and row
(model, M), the median time of each library over its rounds and new / old.

Why: an A/B of two builds of the library has to run in separate processes (one library per
process); the step alternates them, and this script turns the per-process JSON files
(`{old,new}_case{C}_round{R}.json`, written by `swiglu_bench --out`) into one record per row.

Usage: old_new_summary.py DIR [--out PATH]
Prints one line per row; with --out also writes the records as JSON. Python 3 standard library
only.
"""
import argparse
import collections
import glob
import json
import os
import re
import statistics
import sys

NAME = re.compile(r"^(old|new)_case(\d+)_round(\d+)\.json$")


def summarize(directory):
    """(records, problems): one record per (case, model, M) that both libraries timed."""
    times = collections.defaultdict(lambda: {"old": [], "new": []})
    configs = collections.defaultdict(lambda: {"old": set(), "new": set()})
    over_gemm_silu = collections.defaultdict(list)
    problems = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        match = NAME.match(os.path.basename(path))
        if not match:
            continue
        version, case = match.group(1), int(match.group(2))
        try:
            with open(path, encoding="utf-8") as f:
                rows = json.load(f)["rows"]
        except (OSError, ValueError, KeyError) as e:  # a process cut off by the step's limit
            problems.append(f"{os.path.basename(path)}: {e}")
            continue
        for r in rows:
            key = (case, r["model"], int(r["M"]))
            times[key][version].append(float(r["ours_us"]))
            configs[key][version].add(r["config"])
            if version == "new" and r.get("ours_over_gemm_silu"):
                over_gemm_silu[key].append(float(r["ours_over_gemm_silu"]))
    records = []
    for key in sorted(times):
        old, new = times[key]["old"], times[key]["new"]
        if not old or not new:
            problems.append(f"case {key[0]} {key[1]} M={key[2]}: timed by one library only")
            continue
        old_us, new_us = statistics.median(old), statistics.median(new)
        records.append({
            "case": key[0], "model": key[1], "M": key[2],
            "old_config": sorted(configs[key]["old"]), "new_config": sorted(configs[key]["new"]),
            "old_us": old_us, "new_us": new_us, "new_over_old": new_us / old_us,
            "old_runs_us": old, "new_runs_us": new,
            "new_over_gemm_silu": (statistics.median(over_gemm_silu[key])
                                   if over_gemm_silu[key] else None),
        })
    return records, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--out")
    args = parser.parse_args()
    records, problems = summarize(args.directory)
    for p in problems:
        print(f"old_new_summary: {p}", file=sys.stderr)
    for r in records:
        ratio = r["new_over_gemm_silu"]
        print(f"case {r['case']} {r['model']} M={r['M']} {'/'.join(r['new_config'])}: "
              f"old {r['old_us']:.2f} us, new {r['new_us']:.2f} us, new/old {r['new_over_old']:.4f}"
              + (f", new/(GEMM + silu) {ratio:.4f}" if ratio else "")
              + f" ({len(r['old_runs_us'])} + {len(r['new_runs_us'])} runs)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"records": records, "problems": problems}, f, indent=1)
    return 0 if records else 1


if __name__ == "__main__":
    sys.exit(main())
