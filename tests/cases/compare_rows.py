#!/usr/bin/env python3
"""Compares rows as multisets: an expected CSV (from an oracle) against our
NDJSON or CSV output. Timestamps 'YYYY-MM-DD HH:MM:SS' and
'YYYY-MM-DDTHH:MM:SS' compare equal; --float columns compare with a relative
tolerance of 1e-9; empty CSV fields and JSON nulls are NULL."""
import argparse, csv, json, sys

def norm(v):
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        v = repr(v)
    s = str(v)
    if len(s) >= 19 and s[4] == "-" and s[10] in " T" and s[13] == ":":
        s = s[:10] + "T" + s[11:]
        if s.endswith(".000000"):
            s = s[:-7]
    return s

def load(path):
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            return [dict(r) for r in csv.DictReader(f)]
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expected", required=True)
    ap.add_argument("--got", required=True)
    ap.add_argument("--keys", required=True)
    ap.add_argument("--float", default="")
    a = ap.parse_args()
    keys = a.keys.split(",")
    floats = set(x for x in a.float.split(",") if x)
    exp, got = load(a.expected), load(a.got)
    cols = list(exp[0].keys()) if exp else []
    def index(rows, what):
        out = {}
        for r in rows:
            k = tuple(norm(r.get(c)) for c in keys)
            out.setdefault(k, []).append(r)
        return out
    ei, gi = index(exp, "expected"), index(got, "got")
    errors = 0
    if len(exp) != len(got):
        print(f"row count: expected {len(exp)}, got {len(got)}")
        errors += 1
    for k, rows in ei.items():
        g = gi.get(k)
        if not g or len(g) != len(rows):
            print(f"key {k}: expected {len(rows)} rows, got {len(g or [])}")
            errors += 1
            continue
        for e, o in zip(rows, g):
            for c in cols:
                ev, ov = e.get(c), o.get(c)
                if c in floats:
                    if norm(ev) is None or norm(ov) is None:
                        ok = norm(ev) is None and norm(ov) is None
                    else:
                        x, y = float(ev), float(ov)
                        ok = abs(x - y) <= 1e-9 * max(1.0, abs(x))
                else:
                    ok = norm(ev) == norm(ov)
                    if not ok and norm(ev) and norm(ov):
                        try:
                            ok = float(ev) == float(ov)
                        except ValueError:
                            pass
                if not ok:
                    errors += 1
                    if errors < 20:
                        print(f"key {k} column {c}: expected {ev!r}, got {ov!r}")
    for k in gi:
        if k not in ei:
            errors += 1
            if errors < 20:
                print(f"unexpected key {k}")
    if errors:
        print(f"{errors} differences")
        sys.exit(1)
    print(f"{len(exp)} rows equal")

main()
