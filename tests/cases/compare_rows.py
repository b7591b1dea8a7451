#!/usr/bin/env python3
"""Compares rows as multisets: an expected CSV (from an oracle) against our
NDJSON or CSV output. Timestamps 'YYYY-MM-DD HH:MM:SS' and
'YYYY-MM-DDTHH:MM:SS' compare equal; --float columns compare with a relative
tolerance of 1e-9; empty CSV fields and JSON nulls are NULL.

Rows are grouped by the normalized --keys columns (a --float key to 12
significant digits: a double and a numeric of one value group together); a key's rows must be as
many on both sides, and are compared pairwise in file order, column by column
over the expected file's columns: a --float column within the tolerance
(NULL only against NULL), any other column equal after normalization, or
both non-NULL and equal as numbers ('1.0' = '1').

Two CSV files with the same header, every column a key and no float column,
one row per line, are equal when their lines are (sorted); two CSV files with
regular rows take a fast path with the same verdicts and messages: cells are compared as read (equal text is equal after
normalization), and only a row whose non-float cells differ as text is
compared by the rules above; anything else (NDJSON, ragged rows, a column of
the expected file missing from ours) takes the general path."""
import argparse, csv, json, sys
from operator import itemgetter


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


def fkey(v):
    """A --float column that is also a key (q6's avg_price): its value to 12
    significant digits, so that a double ('2.3333333333333335') and a
    numeric ('2.3333333333333333') of the same value group together."""
    if v is None or v == "":
        return None
    try:
        return "%.12g" % float(v)
    except ValueError:
        return v


def cell_ok(c, ev, ov, floats):
    """Whether expected cell ev equals our cell ov in column c."""
    if c in floats:
        if norm(ev) is None or norm(ov) is None:
            return norm(ev) is None and norm(ov) is None
        x, y = float(ev), float(ov)
        return abs(x - y) <= 1e-9 * max(1.0, abs(x))
    ok = norm(ev) == norm(ov)
    if not ok and norm(ev) and norm(ov):
        try:
            ok = float(ev) == float(ov)
        except ValueError:
            pass
    return ok


def load(path):
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            return [dict(r) for r in csv.DictReader(f)]
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def report(exp_n, got_n, ei, gi, cells_ok):
    """Prints the differences (the general and the fast path alike); ei and
    gi map a key to its rows (anything cells_ok takes); cells_ok(e, o)
    yields (column, expected, got) for each differing cell of a pair.
    Returns the number of differences."""
    errors = 0
    if exp_n != got_n:
        print(f"row count: expected {exp_n}, got {got_n}")
        errors += 1
    for k, rows in ei.items():
        g = gi.get(k)
        if not g or len(g) != len(rows):
            print(f"key {k}: expected {len(rows)} rows, got {len(g or [])}")
            errors += 1
            continue
        for e, o in zip(rows, g):
            for c, ev, ov in cells_ok(e, o):
                errors += 1
                if errors < 20:
                    print(f"key {k} column {c}: expected {ev!r}, got {ov!r}")
    for k in gi:
        if k not in ei:
            errors += 1
            if errors < 20:
                print(f"unexpected key {k}")
    return errors


def general(a, keys, floats):
    exp, got = load(a.expected), load(a.got)
    cols = list(exp[0].keys()) if exp else []

    def index(rows):
        out = {}
        for r in rows:
            k = tuple(fkey(r.get(c)) if c in floats else norm(r.get(c))
                      for c in keys)
            out.setdefault(k, []).append(r)
        return out

    def diffs(e, o):
        for c in cols:
            ev, ov = e.get(c), o.get(c)
            if not cell_ok(c, ev, ov, floats):
                yield c, ev, ov

    return len(exp), report(len(exp), len(got), index(exp), index(got), diffs)


def read_csv(path):
    """(header, rows) of a CSV file as lists of text, blank lines skipped
    (as csv.DictReader does); None when a row's field count is not the
    header's (DictReader's restkey / restval cases)."""
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd, None)
        if header is None:
            return [], []
        if header == []:  # DictReader takes a blank first line as the header
            return None
        rows = [r for r in rd if r]
    w = len(header)
    if any(len(r) != w for r in rows) or len(set(header)) != w:
        return None
    return header, rows


def fast(a, keys, floats):
    """The CSV fast path; None when it does not apply."""
    if not (a.expected.endswith(".csv") and a.got.endswith(".csv")):
        return None
    e, g = read_csv(a.expected), read_csv(a.got)
    if e is None or g is None:
        return None
    eh, er = e
    gh, gr = g
    cols = eh if er else []
    gpos = {c: i for i, c in enumerate(gh)}
    if any(c not in gpos for c in cols) or any(c not in gpos for c in keys if gr):
        return None  # None cells (a missing column): the general path

    def tsfix(v):
        s = v[:10] + "T" + v[11:]
        return s[:-7] if s.endswith(".000000") else s

    def key_col(rows, pos):
        if pos is None:
            return [None] * len(rows)
        col = [r[pos] for r in rows]
        # norm() of a text cell, inlined
        return [None if v == "" else
                (v if len(v) < 19 or v[4] != "-" or v[10] not in " T" or v[13] != ":"
                 else tsfix(v)) for v in col]

    def index(header, rows):
        pos = {c: i for i, c in enumerate(header)}
        kc = [[fkey(v) for v in key_col(rows, pos.get(c))] if c in floats
              else key_col(rows, pos.get(c)) for c in keys]
        out = {}
        for i, k in enumerate(zip(*kc) if kc else [()] * len(rows)):
            l = out.get(k)
            if l is None:
                out[k] = [i]
            else:
                l.append(i)
        return out

    # the expected columns in expected order: text-compared ones and floats
    plain = [c for c in cols if c not in floats]
    fl = [c for c in cols if c in floats]
    ep = {c: i for i, c in enumerate(eh)}

    def getter(pos, names):
        if not names:
            return lambda r: ()
        if len(names) == 1:
            i = pos[names[0]]
            return lambda r: (r[i],)
        return itemgetter(*(pos[c] for c in names))

    e_plain, g_plain = getter(ep, plain), getter(gpos, plain)

    def diffs(i, j):
        x, y = er[i], gr[j]
        if e_plain(x) == g_plain(y):
            for c in fl:  # equal texts pass; floats by the rule
                ev, ov = x[ep[c]], y[gpos[c]]
                if not cell_ok(c, ev, ov, floats):
                    yield c, ev, ov
            return
        for c in cols:
            ev, ov = x[ep[c]], y[gpos[c]]
            if not cell_ok(c, ev, ov, floats):
                yield c, ev, ov

    return len(er), report(len(er), len(gr), index(eh, er), index(gh, gr), diffs)


def same_lines(a, keys, floats):
    """The fastest path: two CSV files with the same header line, no float
    column, every column a key, no quote, CR or blank line (one row per
    line): equal when their lines are equal as multisets. Then the old
    verdict is "equal" too (every key group holds the same rows, which
    normalize equal column by column). The row count, or None (then the
    other paths decide: a difference is reported by them)."""
    if floats or not (a.expected.endswith(".csv") and a.got.endswith(".csv")):
        return None
    with open(a.expected, "rb") as f:
        e = f.read()
    with open(a.got, "rb") as f:
        g = f.read()
    if b'"' in e or b'"' in g or b"\r" in e or b"\r" in g:
        return None
    el, gl = e.split(b"\n"), g.split(b"\n")
    for l in (el, gl):
        if l and l[-1] == b"":
            l.pop()
    if not el or not gl or el[0] != gl[0] or b"" in el or b"" in gl:
        return None
    header = el[0].decode("utf-8", "replace").split(",")
    if len(set(header)) != len(header) or not set(header) <= set(keys):
        return None
    rows = el[1:]
    if len(rows) != len(gl) - 1:
        return None
    rows.sort()
    g_rows = gl[1:]
    g_rows.sort()
    return len(rows) if rows == g_rows else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expected", required=True)
    ap.add_argument("--got", required=True)
    ap.add_argument("--keys", required=True)
    ap.add_argument("--float", default="")
    a = ap.parse_args()
    keys = a.keys.split(",")
    floats = set(x for x in a.float.split(",") if x)
    n = same_lines(a, keys, floats)
    if n is not None:
        print(f"{n} rows equal")
        return
    res = fast(a, keys, floats)
    n, errors = res if res is not None else general(a, keys, floats)
    if errors:
        print(f"{errors} differences")
        sys.exit(1)
    print(f"{n} rows equal")


main()
