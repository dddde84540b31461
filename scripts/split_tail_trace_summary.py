#!/usr/bin/env python3
"""Summarises build/bench/split_tail_trace's JSON: per case, where the split-tail kernel's time goes.

    python3 scripts/split_tail_trace_summary.py TRACE.json

Per case: the three timings, the plan, and from the stamped run (microseconds from the first CTA's
start): when the whole tiles end (median and last CTA), how long CTAs wait to hold the exchange,
per tail round the sweep, the hand-over or peer adds, and the store (median and max over the CTAs
that ran such a unit), and when the last CTA finishes.
"""
import json
import statistics
import sys

START, WHOLE_DONE, ACQUIRED, UNIT = 0, 1, 2, 3


def describe(values):
    """'median / max' of a list of nanosecond spans, in microseconds; '-' when empty."""
    if not values:
        return "-"
    return f"{statistics.median(values) / 1000:.1f} / {max(values) / 1000:.1f}"


def summarise(case):
    stamps = [row for row in case["stamps_ns"] if row[START] >= 0]
    steps = case["stamp_steps"]
    released = steps - 1
    lines = [
        f"{case['case']} M={case['m']} K={case['k']} I={case['i']}: whole {case['whole_us']:.1f} us, "
        f"split {case['split_us']:.1f}, traced {case['traced_us']:.1f} "
        f"(split/whole {case['split_us'] / case['whole_us']:.3f}); tiles {case['tiles']} = "
        f"{case['dp_tiles']} whole + {case['tail_tiles']} x {case['pieces']} pieces on {case['grid']} CTAs"
        f"{ {True: ' (cooperative)', False: ' (plain launch)'}.get(case.get('cooperative'), '')}; "
        f"traced != split: {case['traced_outputs_differing_from_split']}, "
        f"whole != split: {case['whole_outputs_differing_from_split']} of {case['outputs']}"
    ]
    if not stamps:
        return lines + ["  no stamps"]
    lines.append(f"  CTAs stamped {len(stamps)}; start spread {describe([r[START] for r in stamps])} us")
    lines.append(f"  whole tiles done at (median / last) {describe([r[WHOLE_DONE] for r in stamps])} us")
    lines.append(f"  wait for the exchange {describe([r[ACQUIRED] - r[WHOLE_DONE] for r in stamps])} us")
    previous = {id(r): r[ACQUIRED] for r in stamps}
    for unit in range((released - UNIT) // 3):
        swept, exchanged, stored = UNIT + 3 * unit, UNIT + 3 * unit + 1, UNIT + 3 * unit + 2
        ran = [r for r in stamps if r[swept] >= 0]
        if not ran:
            break
        sweep = [r[swept] - previous[id(r)] for r in ran]
        exchange = [r[exchanged] - r[swept] for r in ran if r[exchanged] >= 0]
        store = [r[stored] - r[exchanged] for r in ran if r[stored] >= 0]
        ends = [max(r[swept], r[exchanged], r[stored]) for r in ran]
        lines.append(
            f"  tail round {unit}: {len(ran)} CTAs; sweep {describe(sweep)}, exchange {describe(exchange)}, "
            f"store {describe(store)} us; ends {describe(ends)} us"
        )
        for r in ran:
            previous[id(r)] = max(r[swept], r[exchanged], r[stored])
    lines.append(f"  released (median / last) {describe([r[released] for r in stamps if r[released] >= 0])} us")
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    print(f"{trace['device']}, {trace['sm_count']} SMs, {trace['reps']} timed runs per kernel")
    for case in trace["cases"]:
        print("\n".join(summarise(case)))


if __name__ == "__main__":
    main()
