#!/usr/bin/env python3
"""Merges tuning tables (format: src/dispatch/tuning_table.h): the rows of each OVERLAY replace the
BASE rows of the same (dtype, K, I, M) and add the ones BASE lacks.

Why: a tuner run over a subset (new configs, or only the decode sizes) measures only some rows;
merged onto the table it refines, the result is a whole table for TILEGLU_TUNING_TABLE or for
scripts/gen_default_table.py. The header (library, device, sm_count) must agree between the
tables; the merged table says which files it came from.

With --stand-in, BASE may come from another device of the same SM count (the H200's embedded
table under an H100's tuner runs): the result carries the overlays' device, and its comment says
that BASE's rows stand in where no overlay measured. Why: a whole table takes several device
calls to tune, and a partial one loses the rows it lacks to the nearest tuned M (tuning_table.h).

Usage: merge_tuning_tables.py BASE OVERLAY [OVERLAY ...] --out PATH [--stand-in]
Python 3 standard library only.
"""
import argparse
import os
import sys

HEADER_KEYS = ("library", "device", "sm_count")


def parse(path):
    """(header dict, ordered dict of (dtype, K, I, M) -> row text) of one table."""
    header, rows = {}, {}
    with open(path, encoding="utf-8") as f:
        records = [line.split("#")[0].strip() for line in f]
    records = [r for r in records if r]
    if not records or records[0] != "tileglu-tuning-table 1":
        raise ValueError(f"{path}: not a tileglu tuning table")
    for lineno, record in enumerate(records[1:], start=2):
        fields = record.split()
        if fields[0] in HEADER_KEYS:
            header[fields[0]] = " ".join(fields[1:])
        elif len(fields) >= 5:
            rows[(fields[0], int(fields[1]), int(fields[2]), int(fields[3]))] = " ".join(fields)
        else:
            raise ValueError(f"{path}: record {lineno} is neither a header nor a row: {record!r}")
    return header, rows


def merge(base_path, overlay_paths, stand_in=False):
    """The merged table's text. stand_in: BASE was measured on another device of the same SM
    count; the overlays' device (theirs must agree) heads the result, and BASE's rows stand in for
    the keys no overlay measured (the comment says so)."""
    header, rows = parse(base_path)
    base_device = header.get("device")
    if stand_in:
        header["device"] = parse(overlay_paths[0])[0].get("device")
        for path, device in ((base_path, base_device), (overlay_paths[0], header["device"])):
            if not device:
                raise ValueError(f"{path}: no 'device' record, which --stand-in needs")
    for path in overlay_paths:
        other_header, other_rows = parse(path)
        for key in HEADER_KEYS:
            if header.get(key) != other_header.get(key):
                owner = overlay_paths[0] if stand_in and key == "device" else base_path
                raise ValueError(f"{path}: {key} {other_header.get(key)!r} differs from "
                                 f"{owner}'s {header.get(key)!r}")
        rows.update(other_rows)
    names = ", ".join(os.path.basename(p) for p in [base_path, *overlay_paths])
    lines = [f"# merged by scripts/merge_tuning_tables.py from {names} (later files win)"]
    if stand_in:
        lines.append(f"# rows no overlay measured are {os.path.basename(base_path)}'s, measured on "
                     f"{base_device}, standing in")
    lines.append("tileglu-tuning-table 1")
    lines += [f"{key} {header[key]}" for key in HEADER_KEYS if key in header]
    lines.append("# dtype K I M config time_us (graph replay for M <= 64, else events)")
    lines += [rows[key] for key in sorted(rows)]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("overlays", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stand-in", action="store_true",
                    help="BASE is another device's table: its rows stand in where the overlays "
                         "have none, and the result takes the overlays' device")
    args = ap.parse_args(argv)
    try:
        text = merge(args.base, args.overlays, stand_in=args.stand_in)
    except (OSError, ValueError) as e:
        print(f"merge_tuning_tables: {e}", file=sys.stderr)
        return 2
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
