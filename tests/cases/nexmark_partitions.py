#!/usr/bin/env python3
"""Reads the output directory of a partitioned FILES sink (docs/sinks.md)
and writes one CSV of every row, each with the partition values of its
directory appended (dt=2025-01-01/hm=00%3A01/part-0.csv gives dt, hm), for
comparing with an oracle. Fails (exit 1) when a part file is still in
progress, a partition directory lacks _SUCCESS, a file is outside a
partition directory or the partition columns are in a file, or when
directories do not follow the partition order.
Usage: nexmark_partitions.py DIR COLS(dt,hm) OUT.csv"""
import csv, os, sys
from urllib.parse import unquote

def main():
    root, cols, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    rows, header, bad, files = [], None, [], 0
    for d, _, names in os.walk(root):
        rel = os.path.relpath(d, root)
        parts = [] if rel == "." else rel.split(os.sep)
        for n in names:
            p = os.path.join(d, n)
            if n.startswith(".") or n.endswith(".inprogress"):
                bad.append(f"in-progress file left: {p}")
                continue
            if len(parts) != len(cols):
                bad.append(f"file outside a partition directory: {p}")
                continue
            if n == "_SUCCESS":
                continue
            vals = []
            for c, part in zip(cols, parts):
                k, _, v = part.partition("=")
                if k != c:
                    bad.append(f"{p}: directory {part} is not {c}=...")
                vals.append(unquote(v))
            if "_SUCCESS" not in names:
                bad.append(f"{d}: no _SUCCESS")
            files += 1
            with open(p, newline="") as f:
                r = csv.reader(f)
                h = next(r)
                if any(c in h for c in cols):
                    bad.append(f"{p}: the partition columns are in the file")
                if header is None:
                    header = h
                for row in r:
                    rows.append(row + vals)
    if bad:
        print("\n".join(sorted(set(bad))[:20]))
        sys.exit(1)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow((header or []) + cols)
        w.writerows(rows)
    print(f"{files} part files, {len(rows)} rows")

main()
