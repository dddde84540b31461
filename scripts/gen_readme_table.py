#!/usr/bin/env python3
"""Fills README.md's Performance section from bench/results/latest.json.

Rewrites the text between <!-- perf-table:begin --> and <!-- perf-table:end --> with
  * a table per model at M in {2048, 4096, 8192, 16384}: our time, TFLOP/s (2*M*K*2I / t),
    t_ours / t_cuBLAS-GEMM and t_ours / t_(cuBLAS GEMM + silu-and-mul), 1-ulp mismatch share;
  * a compact all-M summary: t_ours / t_(GEMM + silu) for every M measured, one row per model;
  * geometric means of both ratios;
  * the same all-M summary against the faster of (GEMM + silu) and (two GEMMs + silu + mul), with
    CUDA-graph replay times at M <= 64 where measured (issue 5's yardstick: never slower than
    what a user switches from), and how many rows are at or below 1;
  * issue 5's decode bar at M <= 16 per row, with the TB/s reached and the read probe's.
A ratio below 1 means tileglu is faster. Without a results file the section says "no results yet".

Usage: gen_readme_table.py [--results PATH] [--readme PATH] [--check]
  --check  exit 1 (and change nothing) when the README's section is not what would be written.
Python 3 standard library only.
"""
import argparse
import json
import math
import os
import sys

BEGIN = "<!-- perf-table:begin -->"
END = "<!-- perf-table:end -->"
HEADLINE_M = (2048, 4096, 8192, 16384)
DECODE_MAX_M = 64  # M up to which the benchmark also times under CUDA-graph replay
# Issue 5's decode bar: at M <= BAR_MAX_M, no slower than the larger of BAR_CUBLAS_SHARE x (cuBLAS
# GEMM + silu) and the weight bytes over BAR_TBPS TB/s.
BAR_MAX_M = 16
BAR_CUBLAS_SHARE = 0.91
BAR_TBPS = 4.5
ELEMENT_BYTES = 2  # bf16: what the bench times
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tflops(row):
    t = row.get("ours_us")
    if not t:
        return None
    return 2.0 * row["M"] * row["K"] * 2.0 * row["I"] / (t * 1e-6) / 1e12


def ratio(num, den):
    if num is None or not den:
        return None
    return num / den


def gemm_ratio(row):
    return ratio(row.get("ours_us"), row.get("cublas_gemm_us"))


def fused_ratio(row):
    return ratio(row.get("ours_us"), row.get("cublas_gemm_silu_us"))


def timed(row, key):
    """`key`'s time, the CUDA-graph replay one (`*_graph_us`) at decode sizes when measured."""
    graph = row.get(key.replace("_us", "_graph_us"))
    if row["M"] <= DECODE_MAX_M and graph:
        return graph
    return row.get(key)


def best_baseline_ratio(row):
    bases = [b for b in (timed(row, "cublas_gemm_silu_us"), timed(row, "cublas_eager_us")) if b]
    return ratio(timed(row, "ours_us"), min(bases)) if bases else None


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt(value, spec):
    return "–" if value is None else format(value, spec)


def model_order(rows):
    seen = []
    for row in rows:
        if row["model"] not in seen:
            seen.append(row["model"])
    return seen


def render(results):
    rows = results.get("rows", [])
    lines = []
    clock = results.get("sm_clock_mhz")
    lines.append(
        "Measured on {} (SM clock {} MHz) at commit `{}`; "
        "ratios are t_tileglu / t_baseline, below 1 is faster.".format(
            results.get("device", "unknown device"),
            clock if clock is not None else "?",
            str(results.get("commit", "unknown"))[:12],
        )
    )
    lines.append("")
    if not rows:
        lines.append("no results yet")
        return "\n".join(lines)

    headline = [r for r in rows if r["M"] in HEADLINE_M]
    headline.sort(key=lambda r: (model_order(rows).index(r["model"]), r["M"]))
    lines.append(
        "| model | M | K | I | config | tileglu µs | TFLOP/s | ÷ GEMM | ÷ (GEMM + silu) | mismatch % |"
    )
    lines.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in headline:
        lines.append(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r["model"], r["M"], r["K"], r["I"], r.get("config") or "–",
                fmt(r.get("ours_us"), ".1f"), fmt(tflops(r), ".0f"),
                fmt(gemm_ratio(r), ".3f"), fmt(fused_ratio(r), ".3f"),
                fmt(r.get("mismatch_pct"), ".3f"),
            )
        )
    lines.append("")
    lines.append(
        "Geometric mean over these rows: ÷ GEMM {}, ÷ (GEMM + silu) {}.".format(
            fmt(geomean(gemm_ratio(r) for r in headline), ".3f"),
            fmt(geomean(fused_ratio(r) for r in headline), ".3f"),
        )
    )
    lines.append("")

    all_m = sorted({r["M"] for r in rows})

    def all_m_table(title, row_ratio):
        lines.append(title)
        lines.append("")
        lines.append("| model | " + " | ".join(str(m) for m in all_m) + " | geomean |")
        lines.append("|---|" + "---:|" * (len(all_m) + 1))
        for model in model_order(rows):
            by_m = {r["M"]: r for r in rows if r["model"] == model}
            cells = [fmt(row_ratio(by_m[m]), ".2f") if m in by_m else "" for m in all_m]
            cells.append(fmt(geomean(row_ratio(r) for r in by_m.values()), ".3f"))
            lines.append("| {} | {} |".format(model, " | ".join(cells)))
        lines.append("")

    all_m_table("All M, t_tileglu / t_(cuBLAS GEMM + silu):", fused_ratio)
    lines.append(
        "Geometric mean over all {} rows: ÷ GEMM {}, ÷ (GEMM + silu) {}.".format(
            len(rows),
            fmt(geomean(gemm_ratio(r) for r in rows), ".3f"),
            fmt(geomean(fused_ratio(r) for r in rows), ".3f"),
        )
    )
    lines.append("")
    all_m_table("All M, t_tileglu / t_(the faster of cuBLAS GEMM + silu and two GEMMs + silu + mul), "
                "CUDA-graph replay at M ≤ {}:".format(DECODE_MAX_M), best_baseline_ratio)
    best = [best_baseline_ratio(r) for r in rows]
    lines.append(
        "At or below 1.00 on {} of {} rows; geometric mean {}.".format(
            sum(1 for v in best if v is not None and v <= 1.0), len(rows),
            fmt(geomean(best), ".3f"),
        )
    )
    lines.append("")
    decode_bandwidth_table(results, lines)
    return "\n".join(lines)


def decode_bandwidth_table(results, lines):
    """Issue 5's M <= 16 bar per row: the graph-replay time against the larger of 0.91x cuBLAS
    GEMM + silu and the weight bytes over 4.5 TB/s, with the TB/s reached and what a kernel that
    only reads the same bytes reaches (the bench's stream probe, when the run measured it)."""
    rows = [r for r in results.get("rows", []) if r["M"] <= BAR_MAX_M and r.get("ours_graph_us")]
    if not rows:
        return
    probes = {p["model"]: p for p in results.get("stream_probe", [])}
    lines.append(
        "M ≤ {}, CUDA-graph replay: time against the bar max({} × (GEMM + silu), weight bytes / "
        "{} TB/s); TB/s = weight bytes / time; the read probe streams the same bytes and does "
        "nothing else (`bench/stream_probe.cuh`, one CTA per SM):".format(
            BAR_MAX_M, BAR_CUBLAS_SHARE, BAR_TBPS)
    )
    lines.append("")
    lines.append("| model | M | weight MB | tileglu µs | TB/s | GEMM + silu µs | the bar µs | "
                 "÷ bar | read probe µs (TB/s) |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    passed = 0
    order = model_order(rows)
    rows = sorted(rows, key=lambda r: (order.index(r["model"]), r["M"]))
    for r in rows:
        weight_bytes = 2.0 * r["I"] * r["K"] * ELEMENT_BYTES
        ours = r["ours_graph_us"]
        gemm_silu = r.get("cublas_gemm_silu_graph_us")
        bar = max(BAR_CUBLAS_SHARE * gemm_silu if gemm_silu else 0.0,
                  weight_bytes / (BAR_TBPS * 1e12) * 1e6)
        passed += ours <= bar
        probe = probes.get(r["model"], {}).get("bulk_graph_us")
        lines.append("| {} | {} | {:.1f} | {:.2f} | {:.2f} | {} | {:.2f} | {:.3f} | {} |".format(
            r["model"], r["M"], weight_bytes * 1e-6, ours, weight_bytes / (ours * 1e-6) * 1e-12,
            fmt(gemm_silu, ".2f"), bar, ours / bar,
            "{:.2f} ({:.2f})".format(probe, weight_bytes / (probe * 1e-6) * 1e-12) if probe else "–"))
    lines.append("")
    lines.append("At or below the bar on {} of {} rows.".format(passed, len(rows)))


def section(results_path):
    if not os.path.exists(results_path):
        return "no results yet"
    with open(results_path, encoding="utf-8") as f:
        return render(json.load(f))


def replace_section(readme_text, body):
    start = readme_text.find(BEGIN)
    end = readme_text.find(END)
    if start < 0 or end < 0 or end < start:
        raise ValueError("README has no {} ... {} section".format(BEGIN, END))
    return readme_text[: start + len(BEGIN)] + "\n" + body + "\n" + readme_text[end:]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(ROOT, "bench", "results", "latest.json"))
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)

    with open(args.readme, encoding="utf-8") as f:
        old = f.read()
    new = replace_section(old, section(args.results))
    if args.check:
        if new != old:
            print("{}: Performance section is out of date; run {}".format(args.readme, sys.argv[0]))
            return 1
        return 0
    if new != old:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write(new)
        print("updated {}".format(args.readme))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
