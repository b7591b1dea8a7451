#!/usr/bin/env python3
"""convert_roundtrip.py ORIGINAL OUTPUT...: every OUTPUT (CSV or NDJSON, by
extension) must hold the ORIGINAL's rows, in order, with the same column
names in the same order and no changed value (tests/cases/convert.sh, the
round trips of `laminardb convert` over ../shared/data).

A value is unchanged when the texts are equal, or both parse as numbers and
are the same double ("1469.250000" = 1469.25; an integer is compared
exactly), or both parse as timestamps with a time of day and are the same
instant (zone suffix optional = UTC; Laminar writes UTC without a suffix),
or, for NDJSON, an object/array equals a string holding the same JSON (an
NDJSON object is kept as its JSON text in a VARCHAR column). NULL: an empty
unquoted CSV field, a JSON null or a missing key; the empty string "" in
CSV is a quoted empty field. Prints the first 10 differences; exit 1."""
import csv, json, sys
from datetime import datetime, timezone

NULL = object()

def load(path):
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            text = f.read()
        # empty unquoted field = NULL; a quoted "" is the empty string
        raw = _raw_fields(text)
        head = [v for v, _ in raw[0]]
        out = []
        for rr in raw[1:]:
            out.append([NULL if (v == "" and not q) else v for v, q in rr])
        return head, out
    head, out = [], []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            for k in o:
                if k not in head:
                    head.append(k)
            out.append(o)
    return head, [[NULL if o.get(k) is None else o[k] for k in head] for o in out]

def _raw_fields(text):
    """RFC 4180 fields with a flag: was the field quoted."""
    if '"' not in text:  # fast path: no quoting at all
        return [[(v, False) for v in l.split(",")] for l in text.splitlines()]
    rows, row, field, quoted, i, n = [], [], [], False, 0, len(text)
    inq = False
    while i < n:
        c = text[i]
        if inq:
            if c == '"':
                if i + 1 < n and text[i + 1] == '"':
                    field.append('"'); i += 2; continue
                inq = False
            else:
                field.append(c)
        elif c == '"':
            inq = quoted = True
        elif c == ',':
            row.append(("".join(field), quoted)); field, quoted = [], False
        elif c in "\r\n":
            if c == "\r" and i + 1 < n and text[i + 1] == "\n":
                i += 1
            row.append(("".join(field), quoted)); rows.append(row)
            row, field, quoted = [], [], False
        else:
            field.append(c)
        i += 1
    if field or row:
        row.append(("".join(field), quoted)); rows.append(row)
    return rows

def as_num(v):
    if isinstance(v, bool) or v is NULL:
        return None
    if isinstance(v, (int, float)):
        return v
    try:
        s = v.strip()
        if s and (s.lstrip("-+").isdigit()):
            return int(s)
        return float(s)
    except (ValueError, AttributeError):
        return None

def as_ts(v):
    if not isinstance(v, str) or len(v) < 16 or v[10] not in "T ":
        return None
    try:
        d = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)

def same(a, b):
    if a is NULL or b is NULL:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        t = lambda x: ("true" if x else "false") if isinstance(x, bool) else str(x).lower()
        return t(a) == t(b)
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        pa = a if not isinstance(a, str) else json.loads(a)
        pb = b if not isinstance(b, str) else json.loads(b)
        return pa == pb
    if a == b and type(a) is type(b):
        return True
    # fast path: an NDJSON integer against its CSV text
    if type(b) is int and type(a) is str and a == str(b) or \
            type(a) is int and type(b) is str and b == str(a):
        return True
    x, y = as_num(a), as_num(b)
    if x is not None and y is not None:
        if isinstance(x, int) and isinstance(y, int):
            return x == y
        return float(x) == float(y)
    ta, tb = as_ts(a), as_ts(b)
    if ta is not None and tb is not None:
        return ta == tb
    return str(a) == str(b)

def main():
    ha, ra = load(sys.argv[1])
    bad = 0
    for out in sys.argv[2:]:
        hb, rb = load(out)
        if ha != hb:
            print(f"{out}: columns {hb} != {ha}")
            bad += 1
            continue
        if len(ra) != len(rb):
            print(f"{out}: {len(rb)} rows, expected {len(ra)}")
            bad += 1
            continue
        for i, (x, y) in enumerate(zip(ra, rb)):
            for k, (u, v) in enumerate(zip(x, y)):
                if not same(u, v):
                    bad += 1
                    if bad <= 10:
                        print(f"{out}: row {i + 1} column {ha[k]!r}: {v!r} != original {u!r}")
    sys.exit(1 if bad else 0)

main()
