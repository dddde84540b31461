#!/usr/bin/env python3
"""Runs scripts/gen_readme_table.py on a small fixture and checks what it writes.

   test_gen_readme_table.py <path to gen_readme_table.py>
"""
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "scripts", "gen_readme_table.py")
FIXTURE = os.path.join(HERE, "fixtures", "latest_small.json")

README = """# title

before

<!-- perf-table:begin -->
stale text
<!-- perf-table:end -->

after
"""

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    readme = os.path.join(tmp, "README.md")
    with open(readme, "w", encoding="utf-8") as f:
        f.write(README)

    proc = run("--results", FIXTURE, "--readme", readme)
    check(proc.returncode == 0, "generator exits 0 (stderr: %s)" % proc.stderr.strip())
    text = open(readme, encoding="utf-8").read()
    body = text.split("<!-- perf-table:begin -->")[1].split("<!-- perf-table:end -->")[0]

    check(text.startswith("# title\n\nbefore\n\n<!-- perf-table:begin -->\n"), "text before kept")
    check(text.endswith("<!-- perf-table:end -->\n\nafter\n"), "text after kept")
    check("stale text" not in text, "old section replaced")
    check("NVIDIA H200" in body and "1980 MHz" in body and "`0123456789ab`" in body,
          "device, clock and short commit in the header")

    # 0.5b at M=2048: 2*2048*896*2*4864 flops in 50 us.
    tf = 2 * 2048 * 896 * 2 * 4864 / 50e-6 / 1e12
    row = "| qwen2.5-0.5b | 2048 | 896 | 4864 | k2_pingpong_128x64x64_s6 | 50.0 | %.0f | 1.250 | 0.800 | 0.125 |" % tf
    check(row in body, "headline row for 0.5b M=2048: " + row)
    row72 = "| qwen2.5-72b | 4096 | 8192 | 29568 | k2_pingpong_128x64x64_s6 | 5000.0 | %.0f | 1.000 | 0.909 | 0.500 |" % (
        2 * 4096 * 8192 * 2 * 29568 / 5000e-6 / 1e12)
    check(row72 in body, "headline row for 72b M=4096: " + row72)
    headline = body.split("Geometric mean over these rows")[0]
    check("| qwen2.5-0.5b | 1 |" not in headline, "M=1 is not a headline row")

    # Headline geomeans: sqrt(1.25 * 1.0), sqrt(0.8 * 0.90909).
    g1 = "%.3f" % math.sqrt(1.25 * 1.0)
    g2 = "%.3f" % math.sqrt(0.8 * 5000.0 / 5500.0)
    check("Geometric mean over these rows: ÷ GEMM %s, ÷ (GEMM + silu) %s." % (g1, g2) in body,
          "headline geometric means %s %s" % (g1, g2))

    # All-M summary: columns 1, 2048, 4096.
    check("| model | 1 | 2048 | 4096 | geomean |" in body, "all-M header")
    check("| qwen2.5-0.5b | 0.92 | 0.80 |  | %.3f |" % math.sqrt((6.0 / 6.5) * 0.8) in body,
          "all-M row for 0.5b")
    check("| qwen2.5-72b |  |  | 0.91 | 0.909 |" in body, "all-M row for 72b")
    g_all = "%.3f" % ((6.0 / 5.0) * 1.25 * 1.0) ** (1 / 3)
    check("Geometric mean over all 3 rows: ÷ GEMM %s" % g_all in body, "all-rows geomean " + g_all)

    # Against the faster baseline, graph replay at M <= 64: 0.5b M=1 5.5 / min(6.0, 5.0) = 1.10
    # (events would say 6.0 / 6.5); M=2048 50 / min(62.5, 70) = 0.80; 72b (no eager time) 0.91.
    best = body.split("two GEMMs + silu + mul), CUDA-graph replay at M ≤ 64:")[1]
    check("| qwen2.5-0.5b | 1.10 | 0.80 |  | %.3f |" % math.sqrt(1.1 * 0.8) in best,
          "best-baseline row for 0.5b uses the graph times")
    check("| qwen2.5-72b |  |  | 0.91 | 0.909 |" in best, "best-baseline row for 72b")
    check("At or below 1.00 on 2 of 3 rows; geometric mean %.3f." % (1.1 * 0.8 * 5000.0 / 5500.0) ** (1 / 3)
          in best, "best-baseline count and geomean")

    # Issue 5's decode bar at M <= 16: 0.5b M=1, weights 2*4864*896*2 bytes in 5.5 us (graph);
    # the bar max(0.91 * 6.0, bytes / 4.5 TB/s) = 5.46 us; no stream probe in the fixture.
    decode = body.split("M ≤ 16, CUDA-graph replay")[1] if "M ≤ 16, CUDA-graph replay" in body else ""
    wbytes = 2 * 4864 * 896 * 2
    bar = max(0.91 * 6.0, wbytes / 4.5e12 * 1e6)
    row = "| qwen2.5-0.5b | 1 | %.1f | 5.50 | %.2f | 6.00 | %.2f | %.3f | – |" % (
        wbytes * 1e-6, wbytes / 5.5e-6 * 1e-12, bar, 5.5 / bar)
    check(row in decode, "decode bar row for 0.5b M=1: " + row)
    check("| qwen2.5-0.5b | 2048 |" not in decode, "M=2048 is not a decode bar row")
    check("At or below the bar on 0 of 1 rows." in decode, "decode bar count")

    # Idempotent, and --check agrees.
    before = open(readme, encoding="utf-8").read()
    proc = run("--results", FIXTURE, "--readme", readme)
    check(open(readme, encoding="utf-8").read() == before, "second run changes nothing")
    check(run("--results", FIXTURE, "--readme", readme, "--check").returncode == 0,
          "--check passes on a fresh section")

    # Without results: "no results yet"; --check notices the difference first.
    missing = os.path.join(tmp, "nope.json")
    check(run("--results", missing, "--readme", readme, "--check").returncode == 1,
          "--check fails when the section is stale")
    proc = run("--results", missing, "--readme", readme)
    text = open(readme, encoding="utf-8").read()
    check(proc.returncode == 0 and
          "<!-- perf-table:begin -->\nno results yet\n<!-- perf-table:end -->" in text,
          "missing results file writes 'no results yet'")

    # A README without markers is an error, not a silent no-op.
    bare = os.path.join(tmp, "bare.md")
    with open(bare, "w", encoding="utf-8") as f:
        f.write("# no markers\n")
    check(run("--results", FIXTURE, "--readme", bare).returncode != 0, "README without markers fails")

print("%d failed" % len(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
