#!/usr/bin/env python3
"""Compare the swap-AB weight-read knob settings of one `run_session.sh readknobs` call.

Each input is a swiglu_bench tune JSON written under one setting of TILEGLU_SWAPAB_ISSUE_BATCH and
TILEGLU_TMA_L2_PROMOTION, named batch<B>_l2_<P>.json (batch1_l2_128 is the library's default read).
Per (model, M) it prints, for every setting, the fastest config's graph-replay time, its ratio to
the default setting's fastest, and the default's fastest config timed under that setting (the
same kernel, only the read changed); then the read probes of the JSON that has them (the bulk
copy and the TMA tile-order variants, stream_probe.cuh), as TB/s of the model's weight bytes.

Usage: compare_read_knobs.py knobs/*.json [--json summary.json]
"""
import argparse
import json
import os
import sys

BASE = "batch1_l2_128"


def setting_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def tuned_graph_us(row):
    """config -> graph-replay us (the plain time where a row has no graph time)."""
    out = {}
    for t in row.get("tuned") or []:
        us = t.get("graph_us") if t.get("graph_us") is not None else t.get("us")
        if us is not None:
            out[t["config"]] = us
    return out


def compare(runs):
    """runs: {setting: tune JSON}. Returns the summary rows, one per (model, M)."""
    if BASE not in runs:
        raise SystemExit(f"no {BASE}.json among {sorted(runs)}: the default read is what the others are against")
    settings = [BASE] + sorted(s for s in runs if s != BASE)
    by_key = {s: {(r["model"], r["M"]): tuned_graph_us(r) for r in runs[s]["rows"]} for s in settings}
    rows = []
    for key in [(r["model"], r["M"]) for r in runs[BASE]["rows"]]:  # the bench's order
        base = by_key[BASE][key]
        if not base:
            continue
        base_config = min(base, key=base.get)
        entry = {"model": key[0], "M": key[1], "base_config": base_config, "base_us": base[base_config], "settings": {}}
        for s in settings:
            times = by_key[s].get(key) or {}
            if not times:
                continue
            best = min(times, key=times.get)
            entry["settings"][s] = {
                "best_config": best,
                "best_us": times[best],
                "best_over_base": times[best] / base[base_config],
                "base_config_us": times.get(base_config),
                "base_config_over_base": times[base_config] / base[base_config] if base_config in times else None,
            }
        rows.append(entry)
    return settings, rows


def probes(runs):
    for s, d in runs.items():
        if d.get("stream_probe"):
            return s, d["stream_probe"]
    return None, []


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json", help="write the comparison here")
    args = ap.parse_args(argv)
    runs = {}
    for path in args.files:
        with open(path) as f:
            runs[setting_name(path)] = json.load(f)
    settings, rows = compare(runs)
    print("fastest config per setting (graph replay us, ratio to the default read's fastest); "
          "[the default's config under the setting]")
    for e in rows:
        cells = []
        for s in settings:
            v = e["settings"].get(s)
            if v is None:
                cells.append(f"{s}: -")
                continue
            same = v["base_config_over_base"]
            cells.append(f"{s}: {v['best_us']:.2f} ({v['best_over_base']:.3f} {v['best_config']})"
                         + (f" [{same:.3f}]" if same is not None and s != BASE else ""))
        print(f"{e['model']:13s} M={e['M']:<3d} " + " | ".join(cells))
    where, sp = probes(runs)
    if sp:
        print(f"read probes ({where}), TB/s of the weight bytes:")
        for p in sp:
            keys = ["bulk_graph_us"] + sorted(k for k in p if k.startswith("tma_") and k.endswith("_graph_us"))
            cells = [f"{k[:-len('_graph_us')]} {p['bytes'] / p[k] * 1e-6:.2f}" for k in keys if p.get(k)]
            print(f"  {p['model']:13s} " + ", ".join(cells))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": settings, "rows": rows, "stream_probe": sp}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
