#!/usr/bin/env python3
"""Seeded randomized differential test: Laminar (incremental) vs PostgreSQL 15
(batch). See tests/diff/README.md. Python 3 standard library only.

For each seed:
  1. generate a trace: a pushed source `s`, a random set of views/streams
     from templates.py, then steps (batches of rows, watermark advances, the
     end of the source). The generator models the watermark exactly as
     DESIGN.md "Time semantics" says, row by row: a row whose event time is
     strictly below the current watermark is late and dropped; every other
     row advances the watermark to max(watermark, ts - delay); a row with a
     NULL event time is accepted and does not move it; `watermark` directives
     only move it forward; `end` makes it +infinity;
  2. run one psql session: the accepted rows go into table s step by step,
     and after each step every check's PostgreSQL query runs;
  3. write an .slt file (docs/slt.md) whose expected results are PG's
     answers after every step, and run slt_runner on it.

Any mismatch prints the seed, the step, the view, and a command that
replays just that (the .slt is kept too: it replays without PostgreSQL).
"""

import argparse
import datetime
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import templates as T  # noqa: E402

INF = float("inf")
NULL_MARK = "<NULL>"
SEP = "\x1f"
EPOCH = datetime.datetime(1970, 1, 1)

# ------------------------------------------------------------ values


def ts_text(us):
    """µs since the epoch -> 'YYYY-MM-DD HH:MM:SS[.ffffff]' (both engines)."""
    return (EPOCH + datetime.timedelta(microseconds=us)).isoformat(sep=" ")


def wm_sql(wm):
    if wm is None:
        return "'-infinity'::timestamp"
    if wm == INF:
        return "'infinity'::timestamp"
    return f"TIMESTAMP '{ts_text(wm)}'"


def pg_ts_to_slt(s):
    """PG 'YYYY-MM-DD HH:MM:SS[.f]' -> Laminar's 'YYYY-MM-DDTHH:MM:SS[.ffffff]'."""
    d, t = s.split(" ")
    if "." in t:
        a, f = t.split(".")
        t = a + "." + f.ljust(6, "0")
    return d + "T" + t


def to_slt_value(v, typ):
    if v == NULL_MARK:
        return "NULL"
    if typ == "T":
        return v if v != "" else "(empty)"
    if typ == "S":
        return pg_ts_to_slt(v)
    if typ == "B":
        return {"t": "true", "f": "false"}[v]
    return v


# ------------------------------------------------------------ trace

COLUMNS = [("k", "VARCHAR", "text"), ("g", "BIGINT", "bigint"), ("v", "BIGINT", "bigint"),
           ("x", "DOUBLE", "float8"), ("ts", "TIMESTAMP", "timestamp")]
DELAYS = [(0, "INTERVAL '0' SECOND"), (T.SECOND, "INTERVAL '1' SECOND"),
          (2_500_000, "INTERVAL '2500' MILLISECOND"), (5 * T.SECOND, "INTERVAL '5' SECOND")]
C_SOURCE_DDL = "CREATE SOURCE c (k VARCHAR, g BIGINT, v BIGINT, __weight BIGINT)"
BASES = [-90 * T.SECOND,                      # crosses 1970-01-01 00:00:00
         -3 * 86400 * T.SECOND - 7 * T.SECOND,  # days before 1970
         0,
         1792316400 * T.SECOND]               # 2026-10-18 09:30:00


class Trace:
    def __init__(self, seed, nsteps, feats, only_templates=None):
        self.seed = seed
        rng = random.Random(seed)
        self.rng = rng
        self.feats = feats
        cols = COLUMNS[:]
        rng.shuffle(cols)
        self.cols = cols
        self.delay, delay_sql = rng.choice(DELAYS)
        self.ts_nullable = rng.random() < 0.5
        # key domain: usually a few keys; sometimes many (group tables grow)
        r = rng.random()
        if r < 0.7:
            self.keys = T.KEY_VALUES
        elif r < 0.9:
            self.keys = T.KEY_VALUES + [f"k{i}" for i in range(50)]
        else:
            self.keys = T.KEY_VALUES + [f"key_{i:04d}_" + "x" * (i % 40) for i in range(400)]
        coldefs = []
        for c, lt, _ in cols:
            nn = " NOT NULL" if c == "ts" and not self.ts_nullable else ""
            coldefs.append(f"{c} {lt}{nn}")
        self.source_ddl = (f"CREATE SOURCE s ({', '.join(coldefs)}, "
                           f"WATERMARK FOR ts AS ts - {delay_sql})")
        # __step: the step that inserted the row, for views created mid-trace
        # __id: arrival order (over every row pushed to s); s_all holds
        # every row pushed, late or not, with __wm, the watermark in force
        # when it arrived (µs; NULL before the first), for ALLOW LATENESS
        self.pg_ddl = ("CREATE TABLE s (" + ", ".join(f"{c} {pt}" for c, _, pt in cols) +
                       ", __step int, __id bigint);\n"
                       "CREATE TABLE s_all (" + ", ".join(f"{c} {pt}" for c, _, pt in cols) +
                       ", __step int, __id bigint, __wm numeric);\n"
                       "CREATE TABLE c (k text, g bigint, v bigint, __id bigint)")
        # views
        pool = [t for t in T.TEMPLATES if T.enabled(t.feature, feats)
                and (not only_templates or t.name in only_templates)]
        if not pool:
            raise SystemExit("no template enabled")
        self.instances = []
        for i in range(rng.randint(3, 6)):
            t = rng.choices(pool, weights=[p.weight for p in pool])[0]
            inst = t.build(rng, f"q{i}", feats)
            # most views exist from the start; some are created mid-trace
            # and see only the rows pushed after they were created (not the
            # ones over the changelog source c: a retraction of a row pushed
            # before the view existed would be an error there)
            inst.created_at = -1 if rng.random() < 0.7 else rng.randint(0, max(0, nsteps // 2))
            if inst.start_only:
                inst.created_at = -1
            self.instances.append((f"q{i}", inst))
        # the changelog source c (k, g, v, __weight), only when a view reads it
        self.uses_c = any(inst.uses_c for _, inst in self.instances)
        self.c_live = []  # rows of c live now: dicts k, g, v, __id
        self.next_id = 0
        self.sizes = [(8 * T.SECOND, 0), (T.SECOND, 0)]
        for _, inst in self.instances:
            ws = inst.window_sizes
            for j in range(0, len(ws), 2):
                self.sizes.append((ws[j], ws[j + 1]))
        # steps
        self.frontier = rng.choice(BASES) + rng.randint(0, 5) * 250_000
        self.wm = None
        self.pushed = []
        self.steps = []  # (kind, payload, wm_before, wm_after, accepted_rows)
        for i in range(nsteps):
            last = i == nsteps - 1
            if last:
                self._end()
            else:
                r = rng.random()
                if self.uses_c and rng.random() < 0.3:
                    self._cpush()
                elif r < 0.78:
                    self._push()
                else:
                    self._watermark()
        # a batch after the end: every row with an event time is late
        if rng.random() < 0.5:
            self._push()

    # --- row values
    def _key(self):
        r = self.rng.random()
        if r < 0.12:
            return None
        return self.rng.choice(self.keys)

    def _ts(self):
        rng = self.rng
        wm = self.wm
        m = rng.random()
        if self.ts_nullable and m < 0.05:
            return None
        if wm is not None and wm != INF:
            if m < 0.10:
                return wm                      # exactly the watermark: on time
            if m < 0.14:
                return wm - 1                  # 1 µs below: late
            if m < 0.20:
                return wm - rng.randint(1, 20) * 250_000  # late
        if m < 0.35:
            size, off = rng.choice(self.sizes)  # exactly on a window boundary
            b = ((self.frontier - off) // size) * size + off
            return b + rng.choice([0, size, size, -size])
        if m < 0.55:
            return self.frontier - rng.randint(0, self.delay // 1000 + 1000) * 1000  # jitter
        step = rng.choice([0, rng.randint(0, 400) * 1000, rng.randint(0, 3000) * 1000,
                           rng.randint(0, 2_000_000)])
        return self.frontier + step

    def _row(self):
        rng = self.rng
        if self.pushed and rng.random() < 0.08:
            return dict(rng.choice(self.pushed))  # an exact duplicate
        v = None if rng.random() < 0.1 else rng.randint(-20, 50)
        if v is not None and rng.random() < 0.03:
            v = rng.choice([1, -1]) * rng.randint(10**11, 10**12)
        x = None if rng.random() < 0.12 else rng.randint(-400, 400) / 4
        g = None if rng.random() < 0.08 else rng.randint(0, 3)
        return {"k": self._key(), "g": g, "v": v, "x": x, "ts": self._ts()}

    def _accept(self, row):
        ts = row["ts"]
        if ts is None:
            return True  # no event time: not late, does not move the watermark
        if self.wm is not None and ts < self.wm:
            return False
        nw = ts - self.delay
        if self.wm is None or nw > self.wm:
            self.wm = nw
        if self.wm != INF:
            self.frontier = max(self.frontier, ts)
        return True

    def _push(self):
        rng = self.rng
        n = rng.choice([1, 1, 2, 3, 4, 5, 8, rng.randint(1, 20)])
        if rng.random() < 0.004:
            n = rng.randint(300, 2500)  # a big batch: crosses internal batch sizes
        before = self.wm
        rows, acc = [], []
        for _ in range(n):
            row = self._row()
            # arrival order (Top-N ties, first_value) and the watermark in
            # force when the row arrives (ALLOW LATENESS: s_all)
            row["__id"] = self.next_id
            self.next_id += 1
            row["__wm"] = self.wm
            rows.append(row)
            self.pushed.append(row)
            if self._accept(row):
                acc.append(row)
        via = "push" if rng.random() < 0.5 else "insert"
        omit = set()
        if via == "insert" and rng.random() < 0.15:
            # leave out columns that are NULL in every row (implicit NULL)
            omit = {c for c, _, _ in self.cols
                    if c != "ts" and all(r[c] is None for r in rows)}
        self.steps.append(("push", (rows, via, omit), before, self.wm, acc))

    def _cpush(self):
        """A batch of the changelog source c: insertions (+1) and
        retractions (-1) of rows live before the batch. The PostgreSQL
        table c holds the live rows; a retraction deletes the most recent
        live copy of that row (as Laminar's Top-N does)."""
        rng = self.rng
        n = rng.choice([1, 1, 2, 3, 4, 6, rng.randint(1, 15)])
        live_before = list(self.c_live)
        retracted = set()
        rows, ops = [], []
        for _ in range(n):
            cand = [r for r in live_before if r["__id"] not in retracted]
            if cand and rng.random() < 0.4:
                r = rng.choice(cand)
                same = [q for q in self.c_live if (q["k"], q["g"], q["v"]) == (r["k"], r["g"], r["v"])]
                victim = max(same, key=lambda q: q["__id"])
                retracted.add(victim["__id"])
                self.c_live = [q for q in self.c_live if q["__id"] != victim["__id"]]
                rows.append(dict(r, __weight=-1))
                ops.append(("del", victim["__id"]))
            else:
                if self.c_live and rng.random() < 0.15:
                    base = rng.choice(self.c_live)  # an exact duplicate of a live row
                    r = {"k": base["k"], "g": base["g"], "v": base["v"]}
                else:
                    v = None if rng.random() < 0.1 else rng.randint(-20, 50)
                    g = None if rng.random() < 0.1 else rng.randint(0, 3)
                    r = {"k": self._key(), "g": g, "v": v}
                r["__id"] = self.next_id
                self.next_id += 1
                self.c_live.append(r)
                rows.append(dict(r, __weight=1))
                ops.append(("ins", r))
        via = "push" if rng.random() < 0.5 else "insert"
        self.steps.append(("cpush", (rows, via, set()), self.wm, self.wm, ops))

    def _watermark(self):
        rng = self.rng
        before = self.wm
        base = self.wm if self.wm is not None else self.frontier - self.delay
        r = rng.random()
        if r < 0.35:
            size, off = rng.choice(self.sizes)
            w = ((base - off) // size + rng.randint(1, 2)) * size + off  # a boundary
        elif r < 0.45:
            w = base - rng.randint(1, 10) * 250_000  # backwards: ignored
        elif r < 0.55:
            w = base  # unchanged
        else:
            w = base + rng.randint(0, 4000) * 1000
        if self.wm is None or w > self.wm:
            self.wm = w
        self.frontier = max(self.frontier, self.wm)
        self.steps.append(("watermark", w, before, self.wm, []))

    def _end(self):
        before = self.wm
        self.wm = INF
        self.steps.append(("end", None, before, INF, []))


# ------------------------------------------------------------ SQL text

def lit_lam(v, col):
    if v is None:
        return "NULL"
    if col == "k":
        return "'" + v.replace("'", "''") + "'"
    if col == "ts":
        return f"TIMESTAMP '{ts_text(v)}'"
    return repr(v)  # int, float (multiples of 0.25: repr is exact)


def csv_field(v, col):
    if v is None:
        return ""
    if col == "k":
        return '""' if v == "" else v
    if col == "ts":
        return ts_text(v)
    return repr(v)


def lit_pg(v, col):
    if col == "__wm":  # the watermark at arrival, µs (NULL: none yet)
        if v is None:
            return "NULL"
        return "'Infinity'::numeric" if v == INF else str(v)
    return lit_lam(v, col)


def insert_sql(rows, colnames, lit, table="s"):
    vals = ", ".join("(" + ", ".join(lit(r[c], c) for c in colnames) + ")" for r in rows)
    return f"INSERT INTO {table} ({', '.join(colnames)}) VALUES {vals}"


PG_PRELUDE = f"""\\set ON_ERROR_STOP 1
\\pset null {NULL_MARK}
SET client_min_messages = warning;
SET TIME ZONE 'UTC';
SET extra_float_digits = 3;
DROP SCHEMA IF EXISTS {{schema}} CASCADE;
CREATE SCHEMA {{schema}};
SET search_path = {{schema}};
-- exact µs since the epoch (numeric), and the tumbling window start by
-- floor division (correct before 1970 and on boundaries)
CREATE FUNCTION lm_us(t timestamp) RETURNS numeric LANGUAGE sql IMMUTABLE AS
  $$ SELECT extract(epoch FROM t) * 1000000 $$;
CREATE FUNCTION lm_tumble(t timestamp, size bigint, off bigint) RETURNS timestamp
  LANGUAGE sql IMMUTABLE AS
  $$ SELECT TIMESTAMP '1970-01-01' +
            ((floor((lm_us(t) - off) / size) * size + off)::bigint) * INTERVAL '1 microsecond' $$;
"""


# ------------------------------------------------------------ one seed

class Result:
    def __init__(self, seed):
        self.seed = seed
        self.ok = True
        self.msg = ""
        self.nsteps = 0
        self.slt = None


def build(trace, schema, until=None, only_view=None):
    """Returns (pg_script, slt_header_lines, plan) where plan lists, per step,
    the slt text of the step and the check ids to fill in from PG."""
    insts = [(n, i) for n, i in trace.instances
             if only_view is None or n == only_view or
             any(c.name == only_view for c in i.checks)]
    pg = []
    checks = []  # (check_id, step_index, Check)
    colnames = [c for c, _, _ in trace.cols]
    steps = trace.steps if until is None else trace.steps[:until + 1]
    for si, (kind, payload, before, after, acc) in enumerate(steps):
        if kind == "push":
            rows = [dict(r, __step=si) for r in payload[0]]
            pg.append(insert_sql(rows, colnames + ["__step", "__id", "__wm"], lit_pg, "s_all") + ";")
        if kind == "cpush":
            for op, r in acc:
                if op == "ins":
                    pg.append(insert_sql([r], ["k", "g", "v", "__id"], lit_pg, "c") + ";")
                else:
                    pg.append(f"DELETE FROM c WHERE __id = {r};")
        elif acc:
            rows = [dict(r, __step=si) for r in acc]
            pg.append(insert_sql(rows, colnames + ["__step", "__id"], lit_pg) + ";")
        for name, inst in insts:
            if si < inst.created_at:
                continue
            for c in inst.checks:
                if c.final_only and kind != "end":
                    continue  # compared once, with everything it emitted
                cid = len(checks)
                checks.append((cid, si, c))
                prev = wm_sql(before)
                if c.final_only:
                    prev = wm_sql(None)
                pg.append(f"\\echo @@{cid}")
                q = c.pg(prev, wm_sql(after))
                if inst.created_at >= 0:
                    # the view sees only rows pushed since its creation: a
                    # CTE named s hides the table s inside the query
                    q = (f"WITH s AS (SELECT {', '.join(colnames)}, __id FROM {schema}.s "
                         f"WHERE __step >= {inst.created_at}), "
                         f"s_all AS (SELECT * FROM {schema}.s_all "
                         f"WHERE __step >= {inst.created_at}) {q}")
                pg.append(q + ";")
    return pg, insts, checks, steps


def run_psql(script, args):
    cmd = [args.psql, "-X", "-q", "-A", "-t", "-F", SEP, "-h", args.pg_host, "-p", str(args.pg_port),
           "-U", args.pg_user, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-f", "-"]
    p = subprocess.run(cmd, input=script, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"psql failed ({p.returncode}):\n{p.stderr[-4000:]}")
    out = {}
    cur = None
    lines = p.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:  # an empty line is a row: one column, the empty string
        if line.startswith("@@"):
            cur = int(line[2:])
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def rows_text(lines, types):
    out = []
    for ln in lines:
        vals = ln.split(SEP)
        if len(vals) != len(types):
            raise RuntimeError(f"PG row {ln!r} has {len(vals)} columns, expected {len(types)}")
        out.append(" ".join(to_slt_value(v, t) for v, t in zip(vals, types)))
    return out


def step_desc(step):
    kind, payload, before, after, acc = step
    fmt = lambda w: "-inf" if w is None else ("+inf" if w == INF else ts_text(w))
    if kind == "push":
        rows, via, _ = payload
        return (f"{via} {len(rows)} rows ({len(acc)} accepted), "
                f"watermark {fmt(before)} -> {fmt(after)}")
    if kind == "cpush":
        rows, via, _ = payload
        return (f"{via} {len(rows)} rows into changelog source c "
                f"({sum(1 for r in rows if r['__weight'] < 0)} retractions)")
    if kind == "watermark":
        return f"watermark {fmt(payload)}: {fmt(before)} -> {fmt(after)}"
    return f"end: {fmt(before)} -> +inf"


def diff_summary(out):
    """The first failing record's rows: expected-not-got and got-not-expected."""
    blk = {"expected": [], "got": []}
    cur = None
    started = False
    for ln in out.splitlines():
        if ln.startswith("FAIL "):
            if started:
                break
            started = True
            continue
        m = re.match(r"^  (expected|got)\b.*:$", ln)
        if m:
            cur = m.group(1)
            continue
        if cur and ln.startswith("    "):
            blk[cur].append(ln.strip())
        elif not ln.startswith("    "):
            cur = None
    e, g = list(blk["expected"]), list(blk["got"])
    missing, extra = [], []
    for r in e:
        if r in g:
            g.remove(r)
        else:
            missing.append(r)
    extra = g
    res = []
    if missing or extra:
        res.append(f"  expected but not produced ({len(missing)}): " + "; ".join(missing[:12]))
        res.append(f"  produced but not expected ({len(extra)}): " + "; ".join(extra[:12]))
    return res


def run_seed(seed, args, feats):
    res = Result(seed)
    tr = Trace(seed, args.steps, feats, args.templates)
    schema = f"diff_{seed}_{os.getpid()}"
    pg_lines, insts, checks, steps = build(tr, schema, args.until, args.view)
    script = PG_PRELUDE.format(schema=schema) + tr.pg_ddl + ";\n" + "\n".join(pg_lines) + \
        f"\nSET search_path = public;\nDROP SCHEMA {schema} CASCADE;\n"
    pg_out = run_psql(script, args)

    # --- the .slt file
    L = []
    where = {}  # slt line -> (step, check name)
    step_lines = []  # (first slt line of the step, step)

    def rec(lines):
        L.extend(lines)
        L.append("")

    colnames = [c for c, _, _ in tr.cols]
    L.append(f"# tests/diff seed {seed}: generated by tests/diff/gen.py; expected results from PostgreSQL 15")
    L.append(f"# templates: " + ", ".join(f"{n}={i.template}" for n, i in tr.instances))
    L.append("")
    rec(["statement ok", tr.source_ddl])
    if tr.uses_c:
        rec(["statement ok", C_SOURCE_DDL])
    def create(name, inst):
        for d in inst.ddl:
            L.append(f"# {name}: {inst.template}")
            rec(["statement ok", d])
        for sname in inst.subscribe:
            rec([f"subscribe {sname}"])

    for name, inst in insts:
        if inst.created_at < 0:
            create(name, inst)
    by_step = {}
    for cid, si, c in checks:
        by_step.setdefault(si, []).append((cid, c))
    for si, step in enumerate(steps):
        kind, payload, before, after, acc = step
        for name, inst in insts:
            if inst.created_at == si:
                create(name, inst)
        L.append(f"# step {si}: {step_desc(step)}")
        step_lines.append((len(L) + 1, si))
        if kind == "push":
            rows, via, omit = payload
            cn = [c for c in colnames if c not in omit]
            if via == "push":
                rec(["push s", ",".join(cn)] + [",".join(csv_field(r[c], c) for c in cn) for r in rows])
            else:
                rec(["statement ok", insert_sql(rows, cn, lit_lam)])
        elif kind == "cpush":
            rows, via, _ = payload
            cn = ["k", "g", "v", "__weight"]
            if via == "push":
                rec(["push c", ",".join(cn)] + [",".join(csv_field(r[c], c) for c in cn) for r in rows])
            else:
                rec(["statement ok", insert_sql(rows, cn, lit_lam, "c")])
        elif kind == "watermark":
            rec([f"watermark s {ts_text(payload)}"])
        else:
            rec(["end s"])
        for cid, c in by_step.get(si, []):
            exp = rows_text(pg_out.get(cid, []), c.types)
            where[len(L) + 1] = (si, c.name)
            if c.kind == "query":
                rec([f"query {c.types} rowsort", f"SELECT * FROM {c.name}", "----"] + exp)
            else:
                rec([f"emitted {c.name} rowsort", "----"] + exp)
    res.nsteps = len(steps)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"seed-{seed}.slt")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    res.slt = path
    if args.write_only:
        return res

    p = subprocess.run([args.runner, "--verbose", path], capture_output=True, text=True)
    # without the --verbose trace (one line per record started)
    out = "\n".join(ln for ln in (p.stdout + p.stderr).splitlines()
                    if not ln.startswith(path + ":"))
    if p.returncode == 0:
        os.unlink(path)
        return res
    res.ok = False
    first = None
    for m in re.finditer(r"^FAIL \S+?:(\d+):", p.stdout, re.M):
        first = int(m.group(1))
        break
    msg = [f"diff_pg: MISMATCH seed {seed}"]
    if first is not None and first in where:
        si, cname = where[first]
        msg.append(f"  first failure: step {si} ({step_desc(steps[si])}), view {cname}")
        replay = (f"bash tests/diff/run.sh {args.runner} --seed {seed} --steps {args.steps} "
                  f"--until {si} --view {cname}")
    else:
        # a crash: the last record the runner started (--verbose) and its step
        started = [int(m.group(1)) for m in
                   re.finditer(r"^" + re.escape(path) + r":(\d+): ", p.stdout, re.M)]
        si = None
        if started:
            si = max([s for ln, s in step_lines if ln <= started[-1]], default=None)
        msg.append(f"  runner exit {p.returncode} (crash?) in the record at line "
                   f"{started[-1] if started else '?'}"
                   + (f", step {si} ({step_desc(steps[si])})" if si is not None else ""))
        replay = f"bash tests/diff/run.sh {args.runner} --seed {seed} --steps {args.steps}"
        if si is not None:
            replay += f" --until {si}"

    if args.enable:
        replay += f" --enable {','.join(args.enable)}"
    if args.templates:
        replay += f" --templates {','.join(args.templates)}"
    msg.append(f"  replay:  {replay}")
    msg.append(f"  or without PostgreSQL: {args.runner} {path}")
    msg.extend(diff_summary(out))
    head = out if len(out) < 3000 else out[:3000] + "\n  ...(truncated)"
    msg.append("  runner output:\n" + "\n".join("    " + x for x in head.splitlines()))
    res.msg = "\n".join(msg)
    return res


def probe_features(runner):
    """The features of templates.PROBES whose statements the engine accepts."""
    found = []
    d = tempfile.mkdtemp(prefix="laminar-diff-probe-")
    try:
        for feat, stmts in T.PROBES.items():
            path = os.path.join(d, f"{feat}.slt")
            with open(path, "w") as f:
                f.write("statement ok\nCREATE SOURCE s (k VARCHAR, g BIGINT, v BIGINT, x DOUBLE, "
                        "ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)\n\n")
                for st in stmts:
                    f.write(f"statement ok\n{st}\n\n")
            if subprocess.run([runner, "--quiet", path], capture_output=True).returncode == 0:
                found.append(feat)
    finally:
        for x in os.listdir(d):
            os.unlink(os.path.join(d, x))
        os.rmdir(d)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", required=True, help="path of slt_runner")
    ap.add_argument("--pg-host", required=True, help="PostgreSQL socket directory")
    ap.add_argument("--pg-port", type=int, default=5432)
    ap.add_argument("--pg-user", default="postgres")
    ap.add_argument("--psql", default="psql", help="psql binary")
    ap.add_argument("--seed", action="append", type=int, help="seed (repeatable); default: --seeds")
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--date-seed", action="store_true", help="also run the seed YYYYMMDD of today (UTC)")
    ap.add_argument("--no-date-seed", action="store_true", help="overrides --date-seed")
    ap.add_argument("--steps", type=int, default=300, help="steps per seed")
    ap.add_argument("--until", type=int, help="stop after this step (replay)")
    ap.add_argument("--view", help="keep only this view/stream (replay)")
    ap.add_argument("--enable", type=lambda s: [x for x in s.split(",") if x], default=[],
                    help="features to turn on (templates.FEATURES), comma-separated")
    ap.add_argument("--templates", type=lambda s: [x for x in s.split(",") if x],
                    help="only these templates, comma-separated")
    ap.add_argument("--out", default=None, help="directory for the .slt files (kept on failure)")
    ap.add_argument("--write-only", action="store_true", help="write the .slt files, do not run them")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    feats = dict(T.FEATURES)
    env = [x for x in os.environ.get("LM_DIFF_ENABLE", "").split(",") if x]
    if "auto" in args.enable + env:
        auto = probe_features(args.runner)
        print(f"diff_pg: --enable auto: the engine accepts {', '.join(auto) or 'none'}")
        args.enable = [f for f in args.enable if f != "auto"] + auto
        env = [f for f in env if f != "auto"]
    for f in args.enable + env:
        if f not in feats:
            raise SystemExit(f"unknown feature {f!r}; known: {', '.join(feats)}")
        feats[f] = True
    args.enable = sorted(set(args.enable + env))
    if args.out is None:
        args.out = tempfile.mkdtemp(prefix="laminar-diff-")
    seeds = args.seed or [int(s) for s in args.seeds.split(",") if s]
    if args.date_seed and not args.no_date_seed and not args.seed:
        seeds.append(int(datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")))
    print(f"diff_pg: seeds {' '.join(map(str, seeds))}, {args.steps} steps each, "
          f"features on: {', '.join(k for k, v in feats.items() if v) or 'none'}", flush=True)
    t0 = time.time()
    results = []
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_seed, s, args, feats): s for s in seeds}
        for fu in cf.as_completed(futs):
            s = futs[fu]
            try:
                r = fu.result()
            except Exception as e:  # oracle side broke: still report the seed
                r = Result(s)
                r.ok = False
                r.msg = f"diff_pg: ERROR seed {s}: {e}"
            results.append(r)
            if r.ok:
                print(f"ok   seed {s}: {r.nsteps} steps" + (f" ({r.slt})" if args.write_only else ""),
                      flush=True)
            else:
                print(r.msg, flush=True)
    total = sum(r.nsteps for r in results)
    bad = [r.seed for r in results if not r.ok]
    print(f"diff_pg: {len(results)} seeds, {total} steps, {time.time() - t0:.1f} s: "
          + ("OK" if not bad else f"FAILED seeds {' '.join(map(str, sorted(bad)))}"))
    if not bad and not args.write_only:
        try:
            os.rmdir(args.out)
        except OSError:
            pass
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
