"""Query templates for the randomized differential test (tests/diff/README.md).

Every template builds, from a seeded random.Random, one or more Laminar
objects over the pushed source `s` plus the checks that compare them with
PostgreSQL after every step. A check pairs:
  - what is read on the Laminar side: a `query ... rowsort` over a
    materialized view (its full contents) or an `emitted` read of a
    subscription (the rows a stream emitted since the previous read);
  - a PostgreSQL query computing the same rows in batch over table `s`,
    which holds exactly the rows Laminar accepted (late rows never reach it).
    The query is a function of the watermark before (`prev`) and after
    (`now`) the step, given as SQL timestamp literals ('-infinity' before
    the first watermark, 'infinity' after `end`).

Features not in the engine yet are behind flags (FEATURES below); a
template or an expression that needs a disabled feature is never chosen.
Turn one on for a run with `--enable NAME` (or LM_DIFF_ENABLE=a,b), and by
default by setting it to True here once the engine supports it.

Type correspondence (Laminar -> the PostgreSQL cast in the oracle form):
  COUNT            BIGINT   PG bigint, no cast
  SUM(BIGINT)      NUMERIC  DECIMAL(38,0), printed as an integer: PG ::bigint
                            prints the same digits (values stay far from 2^63)
  AVG(BIGINT)      NUMERIC  DECIMAL(38,16); PG numeric -> ::float8 (compared
                            with 1e-9 rel.)
  SUM/AVG(DOUBLE)  DOUBLE   PG float8, no cast; doubles are multiples of 0.25
                            below 2^40, so every sum is exact in any order
  STDDEV/VARIANCE  DOUBLE   PG numeric for bigint input -> ::float8
  SUM(v) / COUNT(*)         numeric / bigint in both (sum(bigint) is numeric),
                            compared as reals
  v % 3                     sign of the dividend in both (C and PG)
  MIN/MAX(VARCHAR)          byte order: the PG cluster is initdb --no-locale (C)
  timestamps                windows are computed in PG from the exact numeric
                            epoch (lm_tumble etc. in gen.py), floor division
"""

import dataclasses
from typing import Callable, List, Optional

# Features of the engine that templates may need. False = not available
# yet or failing: never generated unless enabled with --enable /
# LM_DIFF_ENABLE. True = used by CI's seeds (all green on 2026-11-30's
# working tree, see README.md "Status of the flags").
FEATURES = {
    # consuming an updating (changelog) view or stream as input, e.g. an
    # aggregate over an aggregate: "reading an updating (changelog) stream
    # or view is not supported yet"
    "changelog_input": True,
    # HOP(ts, slide, size [, offset]) windows: "function hop() does not exist"
    "hop": True,
    # SESSION(ts, gap) windows: "function session() does not exist"
    "session": True,
    # aggregate FILTER (WHERE ...): "FILTER clauses are not supported"
    "filter_clause": True,
    # STDDEV / VARIANCE: not parsed as aggregates yet
    "stddev": True,
    # a tumbling window over a tumbling window's output whose sizes are not
    # multiples of each other (failed on the committed engine: the outer
    # window closed before the inner one emitted rows that belong to it)
    "window_cascade_unaligned": True,
    # a windowed GROUP BY without EMIT clause, as an MV: an updating result,
    # open windows show partial rows (docs/windows.md "EMIT"); the template
    # tumble_noemit is generated only with this on
    "window_noemit_updating": True,
    # CUMULATE(ts, step, max_size) windows
    "cumulate": True,
    # HOP / CUMULATE / SESSION without EMIT (updating) as MVs
    "window_noemit_more": True,
    # ALLOW LATENESS (per-query late threshold, updates of closed windows)
    "allow_lateness": True,
    # first_value / last_value aggregates
    "first_last_value": True,
    # ... in windows that merge partial states (HOP/CUMULATE panes, SESSION):
    # batch row order kept through per-batch sequence numbers
    # (tests/slt/diff_hop_first_last_value.slt)
    "first_last_value_merge": True,
    # Top-N over the append-only source (ties in arrival order)
    "topn": True,
    # Top-N over an updating aggregate view
    "topn_agg": True,
    # a source whose last column is __weight BIGINT (a changelog source c)
    "changelog_source": True,
    # Top-N over the changelog source
    "changelog_topn": True,
    # updating joins (INNER / LEFT / RIGHT / FULL) of changelog inputs:
    # aggregate views over s, the changelog source c (docs/joins.md)
    "join_updating": True,
    # interval joins of s with itself (INNER, LEFT SEMI every step)
    "join_interval": True,
    # ... and LEFT interval joins, compared after `end` (was a bug: a left
    # row with a NULL event time was dropped as late instead of being
    # NULL-padded as PostgreSQL's LEFT JOIN does; README "Failures found")
    "join_interval_left": True,
}


# For `--enable auto`: statements that succeed once a feature is in the
# engine (run over `CREATE SOURCE s (k VARCHAR, g BIGINT, v BIGINT, x DOUBLE,
# ts TIMESTAMP, WATERMARK ...)`). Features that are behaviours rather than
# syntax (window_cascade_unaligned, window_noemit_updating) have no probe.
PROBES = {
    "changelog_input": [
        "CREATE MATERIALIZED VIEW p1 AS SELECT k, COUNT(*) AS n FROM s GROUP BY k",
        "CREATE MATERIALIZED VIEW p2 AS SELECT COUNT(*) AS c, SUM(n) AS t FROM p1"],
    "hop": ["CREATE STREAM p1 AS SELECT hop(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND) AS w, "
            "COUNT(*) AS n FROM s GROUP BY hop(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND) "
            "EMIT ON WINDOW CLOSE"],
    "session": ["CREATE STREAM p1 AS SELECT k, session_start(ts, INTERVAL '1' SECOND) AS a, "
                "session_end(ts, INTERVAL '1' SECOND) AS b, COUNT(*) AS n FROM s "
                "GROUP BY k, session(ts, INTERVAL '1' SECOND) EMIT ON WINDOW CLOSE"],
    "filter_clause": ["CREATE MATERIALIZED VIEW p1 AS SELECT k, COUNT(*) FILTER (WHERE v > 0) AS n "
                      "FROM s GROUP BY k"],
    "stddev": ["CREATE MATERIALIZED VIEW p1 AS SELECT k, STDDEV(v) AS a, VARIANCE(x) AS b "
               "FROM s GROUP BY k"],
}


@dataclasses.dataclass
class E:
    """An expression: Laminar form, PostgreSQL form, result type letter."""
    lam: str
    pg: str
    typ: str  # I integer, R real, T text, S timestamp, B boolean
    feature: Optional[str] = None

    @staticmethod
    def same(sql, typ, feature=None):
        return E(sql, sql, typ, feature)


@dataclasses.dataclass
class Check:
    name: str               # the Laminar object read
    kind: str               # 'query' (full MV contents) | 'emitted' (delta)
    types: str              # one letter per column
    pg: Callable[[str, str], str]  # (prev_wm_sql, now_wm_sql) -> PG query
    final_only: bool = False  # compared only once, after `end`


@dataclasses.dataclass
class Instance:
    template: str
    ddl: List[str]
    checks: List[Check]
    subscribe: List[str]
    window_sizes: List[int]  # µs, to aim rows and watermarks at boundaries
    created_at: int = -1  # step before which it is created (-1: at the start)
    uses_c: bool = False  # reads the changelog source c
    start_only: bool = False  # always created before the first step


def enabled(feature, feats):
    return feature is None or feats.get(feature, False)


# ---------------------------------------------------------------- pieces

KEY_VALUES = ["a", "b", "c", "dd", "A", "", "a_b", "zz", "ñu",
              "a_rather_long_key_beyond_twelve_bytes"]


def key_exprs():
    case_x = "CASE WHEN x > 0 THEN 'pos' WHEN x < 0 THEN 'neg' ELSE 'zero' END"
    return [
        E.same("k", "T"), E.same("k", "T"), E.same("g", "I"), E.same("g", "I"),
        E.same("v % 3", "I"),
        E.same(case_x, "T"),
        E.same("upper(k)", "T"),
        E.same("k || '_'", "T"),
        E.same("coalesce(k, 'none')", "T"),
        E.same("date_trunc('minute', ts)", "S"),
        E.same("v IS NULL", "B"),
    ]


def agg_exprs(windowed=False):
    a = [
        E.same("COUNT(*)", "I"), E.same("COUNT(*)", "I"),
        E.same("COUNT(v)", "I"), E.same("COUNT(x)", "I"), E.same("COUNT(k)", "I"),
        E("SUM(v)", "SUM(v)::bigint", "I"), E("SUM(v)", "SUM(v)::bigint", "I"),
        E.same("SUM(x)", "R"),
        E("AVG(v)", "AVG(v)::float8", "R"),
        E.same("AVG(x)", "R"),
        E.same("MIN(v)", "I"), E.same("MAX(v)", "I"),
        E.same("MIN(x)", "R"), E.same("MAX(x)", "R"),
        E.same("MIN(k)", "T"), E.same("MAX(k)", "T"),
        E.same("MIN(ts)", "S"), E.same("MAX(ts)", "S"),
        E.same("COUNT(DISTINCT v)", "I"), E.same("COUNT(DISTINCT k)", "I"),
        E.same("COUNT(DISTINCT x)", "I"),
        E("SUM(DISTINCT v)", "SUM(DISTINCT v)::bigint", "I"),
        E.same("AVG(DISTINCT x)", "R"),
        E("SUM(v * 2 - g)", "SUM(v * 2 - g)::bigint", "I"),
        E("SUM(CASE WHEN v > 0 THEN v ELSE 0 END)",
          "SUM(CASE WHEN v > 0 THEN v ELSE 0 END)::bigint", "I"),
        E.same("COUNT(CASE WHEN x > 0 THEN 1 END)", "I"),
        E.same("MAX(v % 7)", "I"),
        E.same("SUM(v) / COUNT(*)", "R"),
        E("SUM(v) + COUNT(*) * 2", "SUM(v)::bigint + COUNT(*) * 2", "I"),
        E.same("MAX(x) - MIN(x)", "R"),
        # features not there yet
        E.same("COUNT(*) FILTER (WHERE v > 0)", "I", "filter_clause"),
        E("SUM(v) FILTER (WHERE k IS NOT NULL)",
          "(SUM(v) FILTER (WHERE k IS NOT NULL))::bigint", "I", "filter_clause"),
        E("STDDEV(v)", "STDDEV(v)::float8", "R", "stddev"),
        E("VARIANCE(x)", "VARIANCE(x)::float8", "R", "stddev"),
        # arrival order = __id in PG (the order rows were pushed), NULLs skipped
        E("first_value(v)", "(array_agg(v ORDER BY __id) FILTER (WHERE v IS NOT NULL))[1]",
          "I", "first_last_value"),
        E("last_value(k)", "(array_agg(k ORDER BY __id DESC) FILTER (WHERE k IS NOT NULL))[1]",
          "T", "first_last_value"),
        E("last_value(x)", "(array_agg(x ORDER BY __id DESC) FILTER (WHERE x IS NOT NULL))[1]",
          "R", "first_last_value"),
    ]
    return a


def pred(rng):
    """A random WHERE predicate over the source's columns."""
    c = rng.randint(-10, 30)
    d = rng.randint(-40, 40) / 4
    ks = rng.sample(KEY_VALUES, 2)
    choices = [
        f"v > {c}", f"v >= {c}", f"v < {c}", f"x < {d}", f"x >= {d}",
        f"v BETWEEN {c} AND {c + rng.randint(0, 30)}",
        f"k IN ('{ks[0]}', '{ks[1]}')", "k IS NULL", "k IS NOT NULL",
        "v IS NULL", f"NOT (v > {c})", f"v > {c} OR x < {d}",
        "k LIKE 'a%'", "v % 2 = 0", f"k <> '{ks[0]}'",
        f"g = {rng.randint(0, 3)} AND v > {c}", "x IS NOT NULL AND v IS NOT NULL",
        f"coalesce(v, 0) + g > {c}",
    ]
    return E.same(rng.choice(choices), "B")


def having(rng):
    c = rng.randint(0, 40)
    choices = [
        (f"COUNT(*) > {rng.randint(1, 3)}", None),
        (f"SUM(v) > {c}", None),
        (f"MAX(x) >= {rng.randint(-20, 20) / 4}", None),
        (f"MIN(v) < {c}", None),
        (f"COUNT(DISTINCT v) >= 2", None),
    ]
    s, _ = rng.choice(choices)
    return E.same(s, "B")


def pick_aggs(rng, feats, n_lo=1, n_hi=5, windowed=False, merged=False):
    """merged: the window merges partial states (HOP/CUMULATE panes,
    SESSION merges): first_value/last_value only with first_last_value_merge."""
    pool = [a for a in agg_exprs(windowed) if enabled(a.feature, feats)
            and not (merged and a.feature == "first_last_value"
                     and not feats.get("first_last_value_merge"))]
    n = rng.randint(n_lo, n_hi)
    return [rng.choice(pool) for _ in range(n)]


def pick_keys(rng, feats, n_hi=2):
    pool = [k for k in key_exprs() if enabled(k.feature, feats)]
    n = rng.randint(0, n_hi)
    out = []
    for _ in range(n):
        k = rng.choice(pool)
        if all(k.lam != o.lam for o in out):
            out.append(k)
    return out


def select_list(exprs, side):
    return ", ".join(f"{getattr(e, side)} AS c{i}" for i, e in enumerate(exprs))


def cols(n):
    return ", ".join(f"c{i}" for i in range(n))


def types_of(exprs):
    return "".join(e.typ for e in exprs)


# window sizes and offsets, µs
SECOND = 1_000_000
WINDOW_SIZES = [
    (250_000, "INTERVAL '250' MILLISECOND"),
    (SECOND, "INTERVAL '1' SECOND"),
    (2 * SECOND, "INTERVAL '2' SECOND"),
    (5 * SECOND, "INTERVAL '5' SECOND"),
    (10 * SECOND, "INTERVAL '10' SECOND"),
    (60 * SECOND, "INTERVAL '1' MINUTE"),
]


def interval_sql(us):
    if us % SECOND == 0:
        return f"INTERVAL '{us // SECOND}' SECOND"
    assert us % 1000 == 0
    return f"INTERVAL '{us // 1000}' MILLISECOND"


def pick_window(rng):
    size, _ = rng.choice(WINDOW_SIZES)
    off = 0
    if rng.random() < 0.35:
        off = rng.randrange(0, size, 250_000 if size >= 250_000 else 1000) if size > 250_000 else 0
    return size, off


def tumble_lam(size, off, fn="tumble", col="ts"):
    args = f"{col}, {interval_sql(size)}"
    if off:
        args += f", {interval_sql(off)}"
    return f"{fn}({args})"


def tumble_pg(size, off, col="ts"):
    return f"lm_tumble({col}, {size}, {off})"


# ---------------------------------------------------------------- templates

def t_agg(rng, name, feats, global_agg=False):
    """Keyed (or global) aggregate, optional WHERE and HAVING, as an MV."""
    keys = [] if global_agg else pick_keys(rng, feats)
    if not global_agg and not keys:
        keys = [E.same("k", "T")]
    aggs = pick_aggs(rng, feats)
    exprs = keys + aggs
    w = pred(rng) if rng.random() < 0.5 else None
    h = having(rng) if (keys and rng.random() < 0.3) else None
    lam = f"SELECT {select_list(exprs, 'lam')} FROM s"
    pgq = f"SELECT {select_list(exprs, 'pg')} FROM s"
    if w:
        lam += f" WHERE {w.lam}"
        pgq += f" WHERE {w.pg}"
    if keys:
        lam += " GROUP BY " + ", ".join(k.lam for k in keys)
        pgq += " GROUP BY " + ", ".join(k.pg for k in keys)
    if h:
        lam += f" HAVING {h.lam}"
        pgq += f" HAVING {h.pg}"
    return Instance("global_agg" if global_agg else "agg",
                    [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), lambda p, n, q=pgq: q)],
                    [], [])


def t_global_agg(rng, name, feats):
    return t_agg(rng, name, feats, global_agg=True)


def t_filter_project(rng, name, feats):
    """Filter + projection (no aggregate): the MV is the multiset of rows."""
    proj_pool = [
        E.same("k", "T"), E.same("g", "I"), E.same("v", "I"), E.same("x", "R"),
        E.same("ts", "S"), E.same("v + g", "I"), E.same("x * 2", "R"),
        E.same("coalesce(k, 'none')", "T"), E.same("v * 3 - 1", "I"),
        E.same("CASE WHEN v > 10 THEN 'big' ELSE 'small' END", "T"),
        E.same("upper(k)", "T"), E.same("v % 4", "I"),
    ]
    exprs = [rng.choice(proj_pool) for _ in range(rng.randint(1, 4))]
    w = pred(rng)
    lam = f"SELECT {select_list(exprs, 'lam')} FROM s WHERE {w.lam}"
    pgq = f"SELECT {select_list(exprs, 'pg')} FROM s WHERE {w.pg}"
    return Instance("filter_project", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), lambda p, n, q=pgq: q)], [], [])


def _tumble_parts(rng, feats, size, off, with_where=True):
    keys = pick_keys(rng, feats, n_hi=1)
    keys = [k for k in keys if k.typ != "S"]
    ws = E(tumble_lam(size, off), tumble_pg(size, off), "S")
    extra = []
    if rng.random() < 0.4:
        extra = [E(tumble_lam(size, off, "tumble_end"),
                   f"({tumble_pg(size, off)} + {size} * INTERVAL '1 microsecond')", "S")]
    aggs = pick_aggs(rng, feats, windowed=True)
    if rng.random() < 0.5:
        keys_first = keys + [ws] + extra
    else:
        keys_first = [ws] + extra + keys
    exprs = keys_first + aggs
    w = pred(rng) if with_where and rng.random() < 0.3 else None
    h = having(rng) if rng.random() < 0.15 else None
    group = [k for k in keys_first]
    lam = f"SELECT {select_list(exprs, 'lam')} FROM s"
    if w:
        lam += f" WHERE {w.lam}"
    lam += " GROUP BY " + ", ".join(g.lam for g in group)
    if h:
        lam += f" HAVING {h.lam}"
    # PG: the window end as an extra column __we, filtered by the watermark
    pg_inner = (f"SELECT {select_list(exprs, 'pg')}, "
                f"{tumble_pg(size, off)} + {size} * INTERVAL '1 microsecond' AS __we "
                f"FROM s WHERE ts IS NOT NULL" + (f" AND ({w.pg})" if w else "") +
                " GROUP BY " + ", ".join(g.pg for g in group) +
                (f" HAVING {h.pg}" if h else ""))
    return exprs, lam, pg_inner


def t_tumble_eowc(rng, name, feats):
    """Tumbling window EMIT ON WINDOW CLOSE: each step's emitted rows are the
    windows whose end is in (watermark before, watermark after]."""
    size, off = pick_window(rng)
    exprs, lam, inner = _tumble_parts(rng, feats, size, off)
    n = len(exprs)
    pg = lambda p, nw, i=inner, n=n: (
        f"SELECT {cols(n)} FROM ({i}) q WHERE __we > {p} AND __we <= {nw}")
    return Instance("tumble_eowc", [f"CREATE STREAM {name} AS {lam} EMIT ON WINDOW CLOSE"],
                    [Check(name, "emitted", types_of(exprs), pg)], [name], [size, off])


def t_tumble_mv(rng, name, feats):
    """Windowed aggregate EMIT ON WINDOW CLOSE as an MV: every closed window."""
    size, off = pick_window(rng)
    exprs, lam, inner = _tumble_parts(rng, feats, size, off)
    n = len(exprs)
    pg = lambda p, nw, i=inner, n=n: f"SELECT {cols(n)} FROM ({i}) q WHERE __we <= {nw}"
    return Instance("tumble_mv", [f"CREATE MATERIALIZED VIEW {name} AS {lam} EMIT ON WINDOW CLOSE"],
                    [Check(name, "query", types_of(exprs), pg)], [], [size, off])


def t_tumble_noemit(rng, name, feats):
    """Windowed aggregate without an EMIT clause as an MV. Its meaning is
    changing (issue 4 item 4, "the seed's behaviour when no EMIT is given"):
    with window_noemit_updating the window start is just another group key
    (partial rows of open windows, updated as rows arrive: PG = a plain
    GROUP BY over the rows with an event time); the other branch is
    README.md's current wording (only closed windows)."""
    size, off = pick_window(rng)
    exprs, lam, inner = _tumble_parts(rng, feats, size, off)
    n = len(exprs)
    if feats.get("window_noemit_updating"):
        pg = lambda p, nw, i=inner, n=n: f"SELECT {cols(n)} FROM ({i}) q"
    else:
        pg = lambda p, nw, i=inner, n=n: f"SELECT {cols(n)} FROM ({i}) q WHERE __we <= {nw}"
    return Instance("tumble_noemit", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), pg)], [], [size, off])


def _inner_stream(rng, feats, name, size, off):
    """An EOWC stream `name`: key k, window start ws, n = COUNT(*), sv = SUM(v)."""
    key = rng.choice([E.same("k", "T"), E.same("g", "I"), None])
    exprs = ([key] if key else []) + [E(tumble_lam(size, off), tumble_pg(size, off), "S")]
    names = (["kk"] if key else []) + ["ws"]
    aggs = [E.same("COUNT(*)", "I"), E("SUM(v)", "SUM(v)::bigint", "I"), E.same("MAX(x)", "R")]
    anames = ["n", "sv", "mx"]
    sel_l = ", ".join(f"{e.lam} AS {a}" for e, a in zip(exprs + aggs, names + anames))
    sel_p = ", ".join(f"{e.pg} AS {a}" for e, a in zip(exprs + aggs, names + anames))
    grp_l = ", ".join(e.lam for e in exprs)
    grp_p = ", ".join(e.pg for e in exprs)
    ddl = f"CREATE STREAM {name} AS SELECT {sel_l} FROM s GROUP BY {grp_l} EMIT ON WINDOW CLOSE"
    # PG: closed windows at watermark `now` (a function of now)
    pg_closed = lambda nw: (
        f"(SELECT * FROM (SELECT {sel_p}, {tumble_pg(size, off)} + {size} * INTERVAL '1 microsecond' AS __we "
        f"FROM s WHERE ts IS NOT NULL GROUP BY {grp_p}) i WHERE __we <= {nw})")
    cols_types = ([key.typ] if key else []) + ["S", "I", "I", "R"]
    return ddl, pg_closed, names + anames, "".join(cols_types), key is not None


def t_mv_over_stream(rng, name, feats):
    """MV over an EOWC stream (append-only input): all rows emitted so far."""
    size, off = pick_window(rng)
    ddl, closed, names, types, _ = _inner_stream(rng, feats, f"{name}_w", size, off)
    c = rng.randint(0, 3)
    where_l = f" WHERE n > {c}" if rng.random() < 0.5 else ""
    pg = lambda p, nw: f"SELECT {', '.join(names)} FROM {closed(nw)} q{where_l}"
    return Instance("mv_over_stream",
                    [ddl, f"CREATE MATERIALIZED VIEW {name} AS SELECT * FROM {name}_w{where_l}"],
                    [Check(name, "query", types, pg)], [], [size, off])


def t_agg_over_stream(rng, name, feats):
    """Keyed aggregate over an EOWC stream's rows, as an MV."""
    size, off = pick_window(rng)
    ddl, closed, names, types, keyed = _inner_stream(rng, feats, f"{name}_w", size, off)
    aggs = [E.same("COUNT(*)", "I"), E("SUM(n)", "SUM(n)::bigint", "I"),
            E("SUM(sv)", "SUM(sv)::bigint", "I"), E.same("MAX(ws)", "S"),
            E.same("MIN(ws)", "S"), E.same("MAX(mx)", "R"), E("AVG(n)", "AVG(n)::float8", "R")]
    chosen = [rng.choice(aggs) for _ in range(rng.randint(1, 3))]
    exprs = ([E.same("kk", types[0])] if keyed else []) + chosen
    lam = f"SELECT {select_list(exprs, 'lam')} FROM {name}_w" + (" GROUP BY kk" if keyed else "")
    pg = lambda p, nw: (f"SELECT {select_list(exprs, 'pg')} FROM {closed(nw)} q"
                        + (" GROUP BY kk" if keyed else ""))
    return Instance("agg_over_stream", [ddl, f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), pg)], [], [size, off])


def _cascade(rng, name, feats, aligned):
    size, off = pick_window(rng)
    if aligned:
        size2 = size * rng.choice([1, 2, 3, 4])
        off2 = off
    else:
        size2 = size * rng.choice([2, 3]) + rng.choice([250_000, 500_000, SECOND])
        off2 = 0
    ddl, closed, names, types, keyed = _inner_stream(rng, feats, f"{name}_w", size, off)
    w2 = E(tumble_lam(size2, off2, col="ws"), tumble_pg(size2, off2, col="ws"), "S")
    exprs = ([E.same("kk", types[0])] if keyed else []) + [w2, E.same("COUNT(*)", "I"),
                                                           E("SUM(n)", "SUM(n)::bigint", "I")]
    grp_l = ", ".join(e.lam for e in exprs[:-2])
    grp_p = ", ".join(e.pg for e in exprs[:-2])
    ddl2 = (f"CREATE STREAM {name} AS SELECT {select_list(exprs, 'lam')} FROM {name}_w "
            f"GROUP BY {grp_l} EMIT ON WINDOW CLOSE")
    n = len(exprs)
    # The outer window closes when the watermark reaches its end; when size2
    # is a multiple of size (same offset) every inner window in it has
    # closed by then, so the per-step result is exact. Otherwise only the
    # final result (after `end`) is defined.
    pg = lambda p, nw: (
        f"SELECT {cols(n)} FROM (SELECT {select_list(exprs, 'pg')}, "
        f"{tumble_pg(size2, off2, col='ws')} + {size2} * INTERVAL '1 microsecond' AS __we2 "
        f"FROM {closed(nw)} q GROUP BY {grp_p}) o WHERE __we2 > {p} AND __we2 <= {nw}")
    return Instance("window_cascade" + ("" if aligned else "_unaligned"), [ddl, ddl2],
                    [Check(name, "emitted", types_of(exprs), pg, final_only=not aligned)],
                    [name], [size, off, size2, off2])


def t_window_cascade(rng, name, feats):
    return _cascade(rng, name, feats, True)


def t_window_cascade_unaligned(rng, name, feats):
    return _cascade(rng, name, feats, False)


def t_agg_over_agg(rng, name, feats):
    """Retractions: v1 is an updating aggregate; v2 aggregates over it, so
    every change of a v1 row is a delete + insert for v2."""
    inner_key = rng.choice([["k", "g"], ["k"], ["g"], ["v % 3", "k"]])
    ik_names = [f"i{j}" for j in range(len(inner_key))]
    sel_i_l = ", ".join(f"{k} AS {n}" for k, n in zip(inner_key, ik_names))
    # an inner HAVING makes inner rows disappear and come back, so the outer
    # aggregate sees pure deletes too (COUNT(*) % 2 = 1 flips on every row)
    hv = rng.choice(["", "", " HAVING COUNT(*) % 2 = 1", f" HAVING SUM(v) > {rng.randint(0, 40)}",
                     f" HAVING MAX(x) < {rng.randint(-20, 60)}"])
    inner_l = (f"SELECT {sel_i_l}, COUNT(*) AS n, SUM(v) AS sv, MAX(x) AS mx, MIN(v) AS mn "
               f"FROM s GROUP BY {', '.join(inner_key)}{hv}")
    inner_p = (f"SELECT {sel_i_l}, COUNT(*) AS n, SUM(v)::bigint AS sv, MAX(x) AS mx, MIN(v) AS mn "
               f"FROM s GROUP BY {', '.join(inner_key)}{hv}")
    outer_key = [E.same(ik_names[0], "T" if inner_key[0] == "k" else "I")] if rng.random() < 0.7 else []
    aggs = [E.same("COUNT(*)", "I"), E("SUM(n)", "SUM(n)::bigint", "I"),
            E("SUM(sv)", "SUM(sv)::bigint", "I"), E.same("MIN(sv)", "I"), E.same("MAX(sv)", "I"),
            E.same("MAX(mx)", "R"), E.same("MIN(mn)", "I"), E.same("COUNT(DISTINCT n)", "I"),
            E("AVG(sv)", "AVG(sv)::float8", "R"), E.same("MAX(n)", "I")]
    exprs = outer_key + [rng.choice(aggs) for _ in range(rng.randint(1, 4))]
    grp = (" GROUP BY " + outer_key[0].lam) if outer_key else ""
    filt = f" WHERE n > {rng.randint(1, 3)}" if rng.random() < 0.3 else ""
    lam = f"SELECT {select_list(exprs, 'lam')} FROM {name}_in{filt}{grp}"
    pgq = f"SELECT {select_list(exprs, 'pg')} FROM ({inner_p}) i{filt}{grp}"
    return Instance("agg_over_agg",
                    [f"CREATE MATERIALIZED VIEW {name}_in AS {inner_l}",
                     f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(f"{name}_in", "query", "".join(
                        "T" if k == "k" else "I" for k in inner_key) + "IIRI",
                        lambda p, nw, q=inner_p: q),
                     Check(name, "query", types_of(exprs), lambda p, nw, q=pgq: q)], [], [])


def t_filter_over_agg(rng, name, feats):
    """A filter over an updating aggregate: rows enter and leave the filter."""
    c = rng.randint(1, 4)
    inner_l = "SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM s GROUP BY k"
    inner_p = "SELECT k, COUNT(*) AS n, SUM(v)::bigint AS sv FROM s GROUP BY k"
    return Instance("filter_over_agg",
                    [f"CREATE MATERIALIZED VIEW {name}_in AS {inner_l}",
                     f"CREATE MATERIALIZED VIEW {name} AS SELECT k, n, sv FROM {name}_in "
                     f"WHERE n >= {c} AND (sv IS NULL OR sv > 0)"],
                    [Check(name, "query", "TII",
                           lambda p, nw: f"SELECT k, n, sv FROM ({inner_p}) i "
                                         f"WHERE n >= {c} AND (sv IS NULL OR sv > 0)")], [], [])


def t_hop_eowc(rng, name, feats):
    """HOP(ts, slide, size): each row in size/slide windows (PG: a lateral
    generate_series over the window indexes containing the row)."""
    slide, _ = rng.choice(WINDOW_SIZES[:4])
    size = slide * rng.choice([2, 3, 4])
    key = rng.choice([E.same("k", "T"), E.same("g", "I"), None])
    aggs = pick_aggs(rng, feats, 1, 3, windowed=True, merged=True)
    hop_l = f"hop(ts, {interval_sql(slide)}, {interval_sql(size)})"
    exprs_l = ([key.lam] if key else []) + [hop_l] + [a.lam for a in aggs]
    lam = (f"SELECT {', '.join(f'{e} AS c{i}' for i, e in enumerate(exprs_l))} FROM s "
           f"GROUP BY {', '.join(([key.lam] if key else []) + [hop_l])} EMIT ON WINDOW CLOSE")
    pws = f"(TIMESTAMP '1970-01-01' + (h.i * {slide}) * INTERVAL '1 microsecond')"
    exprs_p = ([key.pg] if key else []) + [pws] + [a.pg for a in aggs]
    n = len(exprs_p)
    inner = (f"SELECT {', '.join(f'{e} AS c{i}' for i, e in enumerate(exprs_p))}, "
             f"{pws} + {size} * INTERVAL '1 microsecond' AS __we FROM s, LATERAL generate_series("
             f"(floor(lm_us(ts) / {slide}) - {size // slide - 1})::bigint, floor(lm_us(ts) / {slide})::bigint) h(i) "
             f"WHERE ts IS NOT NULL GROUP BY {', '.join(([key.pg] if key else []) + [pws])}")
    types = (key.typ if key else "") + "S" + types_of(aggs)
    pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q WHERE __we > {p} AND __we <= {nw}"
    return Instance("hop_eowc", [f"CREATE STREAM {name} AS {lam}"],
                    [Check(name, "emitted", types, pg)], [name], [slide, 0])


def t_session_eowc(rng, name, feats):
    """SESSION(ts, gap) per key: PG gaps-and-islands over the accepted rows
    (a row at exactly last + gap starts a new session); a session closes when
    the watermark reaches last + gap."""
    gap, _ = rng.choice(WINDOW_SIZES[:4])
    key = rng.choice([E.same("k", "T"), E.same("g", "I")])
    aggs = pick_aggs(rng, feats, 1, 3, windowed=True, merged=True)
    sess = f"session(ts, {interval_sql(gap)})"
    lam = (f"SELECT {key.lam} AS c0, session_start(ts, {interval_sql(gap)}) AS c1, "
           f"session_end(ts, {interval_sql(gap)}) AS c2, "
           + ", ".join(f"{a.lam} AS c{i + 3}" for i, a in enumerate(aggs)) +
           f" FROM s GROUP BY {key.lam}, {sess} EMIT ON WINDOW CLOSE")
    gi = f"{gap} * INTERVAL '1 microsecond'"
    marked = (f"SELECT *, SUM(CASE WHEN prev_ts IS NULL OR ts >= prev_ts + {gi} THEN 1 ELSE 0 END) "
              f"OVER (PARTITION BY {key.pg} ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM "
              f"(SELECT *, lag(ts) OVER (PARTITION BY {key.pg} ORDER BY ts) AS prev_ts FROM s "
              f"WHERE ts IS NOT NULL) a")
    n = 3 + len(aggs)
    inner = (f"SELECT {key.pg} AS c0, MIN(ts) AS c1, MAX(ts) + {gi} AS c2, "
             + ", ".join(f"{a.pg} AS c{i + 3}" for i, a in enumerate(aggs)) +
             f", MAX(ts) + {gi} AS __we FROM ({marked}) m GROUP BY {key.pg}, sid")
    pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q WHERE __we > {p} AND __we <= {nw}"
    return Instance("session_eowc", [f"CREATE STREAM {name} AS {lam}"],
                    [Check(name, "emitted", key.typ + "SS" + types_of(aggs), pg)], [name], [gap, 0])


# ------------------------------------------------- windows: HOP / CUMULATE

def _win_spec(rng, kind):
    """A HOP or CUMULATE window over ts: (Laminar group expr, Laminar start,
    Laminar end, PG FROM suffix (a lateral generate_series h(i) of the
    windows holding the row), PG start, PG end, slide/pane size)."""
    us = "INTERVAL '1 microsecond'"
    if kind == "hop":
        slide, _ = rng.choice(WINDOW_SIZES[:4])
        size = slide * rng.choice([2, 3, 4])
        a = f"ts, {interval_sql(slide)}, {interval_sql(size)}"
        lat = (f", LATERAL generate_series((floor(lm_us(ts) / {slide}) - {size // slide - 1})::bigint, "
               f"floor(lm_us(ts) / {slide})::bigint) h(i)")
        st = f"(TIMESTAMP '1970-01-01' + (h.i * {slide}) * {us})"
        en = f"({st} + {size} * {us})"
        return f"hop({a})", f"hop({a})", f"hop_end({a})", lat, st, en, slide
    step, _ = rng.choice(WINDOW_SIZES[:4])
    mx = step * rng.choice([1, 2, 3, 4])
    a = f"ts, {interval_sql(step)}, {interval_sql(mx)}"
    # the period [b, b + mx) holding ts, windows [b, b + j*step) with end > ts
    b = f"(floor(lm_us(ts) / {mx}) * {mx})"
    lat = (f", LATERAL generate_series(1, {mx // step}) h(i)")
    st = f"(TIMESTAMP '1970-01-01' + {b}::bigint * {us})"
    en = f"(TIMESTAMP '1970-01-01' + ({b} + h.i * {step})::bigint * {us})"
    return f"cumulate({a})", f"cumulate({a})", f"cumulate_end({a})", lat, st, en, step, f" AND {en} > ts"


def _win_query(rng, feats, kind):
    spec = _win_spec(rng, kind)
    grp_l, st_l, en_l, lat, st_p, en_p, pane = spec[:7]
    extra_where = spec[7] if len(spec) > 7 else ""
    key = rng.choice([E.same("k", "T"), E.same("g", "I"), None])
    aggs = pick_aggs(rng, feats, 1, 3, windowed=True, merged=True)
    # CUMULATE: windows of one period share their start: the end is a key too
    wins = [E(st_l, st_p, "S")] + ([E(en_l, en_p, "S")] if kind == "cumulate" or rng.random() < 0.4 else [])
    exprs = ([key] if key else []) + wins + aggs
    lam = (f"SELECT {select_list(exprs, 'lam')} FROM s "
           f"GROUP BY {', '.join(([key.lam] if key else []) + [grp_l])}")
    inner = (f"SELECT {select_list(exprs, 'pg')}, {en_p} AS __we FROM s{lat} "
             f"WHERE ts IS NOT NULL{extra_where} "
             f"GROUP BY {', '.join(([key.pg] if key else []) + [st_p, en_p])}")
    return exprs, lam, inner, pane


def t_cumulate_eowc(rng, name, feats):
    """CUMULATE(ts, step, max_size) EMIT ON WINDOW CLOSE: per step, the
    windows whose end is in (watermark before, watermark after]."""
    exprs, lam, inner, pane = _win_query(rng, feats, "cumulate")
    n = len(exprs)
    pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q WHERE __we > {p} AND __we <= {nw}"
    return Instance("cumulate_eowc", [f"CREATE STREAM {name} AS {lam} EMIT ON WINDOW CLOSE"],
                    [Check(name, "emitted", types_of(exprs), pg)], [name], [pane, 0])


def t_window_noemit(rng, name, feats):
    """HOP / CUMULATE / SESSION without EMIT as an MV: the updating result,
    every window (open or closed) over all accepted rows."""
    kind = rng.choice(["hop", "cumulate", "session"])
    if kind == "session":
        exprs, lam, inner, gap = _session_query(rng, feats)
        pane = gap
    else:
        exprs, lam, inner, pane = _win_query(rng, feats, kind)
    n = len(exprs)
    pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q"
    return Instance("window_noemit", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), pg)], [], [pane, 0])


def _session_query(rng, feats):
    gap, _ = rng.choice(WINDOW_SIZES[:4])
    key = rng.choice([E.same("k", "T"), E.same("g", "I")])
    aggs = pick_aggs(rng, feats, 1, 3, windowed=True, merged=True)
    iv = interval_sql(gap)
    exprs_l = [key, E(f"session_start(ts, {iv})", "", "S"), E(f"session_end(ts, {iv})", "", "S")] + aggs
    lam = (f"SELECT {select_list(exprs_l, 'lam')} FROM s GROUP BY {key.lam}, session(ts, {iv})")
    gi = f"{gap} * INTERVAL '1 microsecond'"
    # gaps and islands: a row at or after the previous row's ts + gap starts
    # a new session (lag + running sum per key, in event-time order)
    marked = (f"SELECT *, SUM(CASE WHEN prev_ts IS NULL OR ts >= prev_ts + {gi} THEN 1 ELSE 0 END) "
              f"OVER (PARTITION BY {key.pg} ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM "
              f"(SELECT *, lag(ts) OVER (PARTITION BY {key.pg} ORDER BY ts) AS prev_ts FROM s "
              f"WHERE ts IS NOT NULL) a")
    exprs_p = [key, E("", "MIN(ts)", "S"), E("", f"MAX(ts) + {gi}", "S")] + aggs
    inner = (f"SELECT {select_list(exprs_p, 'pg')}, MAX(ts) + {gi} AS __we "
             f"FROM ({marked}) m GROUP BY {key.pg}, sid")
    return exprs_l, lam, inner, gap


# ------------------------------------------------------ ALLOW LATENESS

def t_lateness(rng, name, feats):
    """TUMBLE or HOP with ALLOW LATENESS n as an MV (docs/windows.md "Late
    rows"): the source then keeps its late rows and the query's own late
    filter drops a row only when its event time is below (the watermark in
    force when it arrives) - n. PG reads s_all (every pushed row with __wm,
    that watermark). EMIT ON WINDOW CLOSE: the view holds every closed window
    (watermark >= end), updated by later rows within the lateness; EMIT
    FINAL: windows with watermark >= end + n; no EMIT: every window."""
    lat_us, _ = rng.choice([(SECOND, 0), (2 * SECOND, 0), (2_500_000, 0), (5 * SECOND, 0),
                            (250_000, 0)])
    if rng.random() < 0.5:
        size, off = pick_window(rng)
        exprs, lam, inner = _tumble_parts(rng, feats, size, off)
        pane = size
    else:
        exprs, lam, inner, pane = _win_query(rng, feats, "hop")
        off = 0
    acc = (f"(SELECT * FROM s_all WHERE ts IS NULL OR __wm IS NULL "
           f"OR lm_us(ts) >= __wm - {lat_us})")
    # the inner queries read `FROM s` (followed by a space or a comma)
    inner = inner.replace(" FROM s ", f" FROM {acc} s ").replace(" FROM s,", f" FROM {acc} s,")
    mode = rng.choice(["eowc", "eowc", "final", "none"])
    emit = {"eowc": " EMIT ON WINDOW CLOSE", "final": " EMIT FINAL", "none": ""}[mode]
    li = interval_sql(lat_us)
    n = len(exprs)
    thr = {"eowc": "", "final": f" + {lat_us} * INTERVAL '1 microsecond'", "none": None}[mode]
    if thr is None:
        pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q"
    else:
        pg = lambda p, nw: f"SELECT {cols(n)} FROM ({inner}) q WHERE __we{thr} <= {nw}"
    return Instance("lateness_" + mode,
                    [f"CREATE MATERIALIZED VIEW {name} AS {lam}{emit} ALLOW LATENESS {li}"],
                    [Check(name, "query", types_of(exprs), pg)], [], [pane, off])


# -------------------------------------------------------------- Top-N

def _rn_filter(rng, n):
    return rng.choice([f"rn <= {n}", f"rn < {n + 1}", f"rn BETWEEN 1 AND {n}", f"{n} >= rn"]
                      + (["rn = 1"] if n == 1 else []))


def _order_item(rng, col):
    d = rng.choice(["", " ASC", " DESC"])
    nl = rng.choice(["", "", " NULLS FIRST", " NULLS LAST"])
    return f"{col}{d}{nl}"


def t_topn(rng, name, feats):
    """Top-N over the append-only source: ROW_NUMBER() OVER (PARTITION BY ..
    ORDER BY ..) filtered by rn <= N. Ties rank in arrival order (PG: __id
    as the last ORDER BY key). Also keep-first / keep-last deduplication."""
    part = rng.choice([["k"], ["g"], ["k", "g"], []])
    if rng.random() < 0.25:
        order = [rng.choice(["ts", "ts ASC", "ts DESC"])]
        n = 1
    else:
        order = [_order_item(rng, c) for c in rng.sample(["v", "x", "ts", "k", "g"], rng.randint(1, 2))]
        n = rng.choice([1, 2, 3, 5])
    w = pred(rng) if rng.random() < 0.3 else None
    outs = rng.sample(["k", "g", "v", "x", "ts"], rng.randint(2, 5))
    with_rn = rng.random() < 0.35
    typ = {"k": "T", "g": "I", "v": "I", "x": "R", "ts": "S"}
    ov = (f"PARTITION BY {', '.join(part)} " if part else "") + "ORDER BY " + ", ".join(order)
    sub_l = (f"SELECT k, g, v, x, ts, ROW_NUMBER() OVER ({ov}) AS rn FROM s"
             + (f" WHERE {w.lam}" if w else ""))
    sub_p = (f"SELECT k, g, v, x, ts, ROW_NUMBER() OVER ({ov}, __id) AS rn FROM s"
             + (f" WHERE {w.pg}" if w else ""))
    sel = ", ".join(outs + (["rn"] if with_rn else []))
    f = _rn_filter(rng, n)
    types = "".join(typ[c] for c in outs) + ("I" if with_rn else "")
    pgq = f"SELECT {sel} FROM ({sub_p}) t WHERE rn <= {n}"
    return Instance("topn", [f"CREATE MATERIALIZED VIEW {name} AS SELECT {sel} FROM ({sub_l}) t WHERE {f}"],
                    [Check(name, "query", types, lambda p, nw, q=pgq: q)], [], [])


def t_topn_agg(rng, name, feats):
    """Top-N over an updating aggregate view (its changelog: a changed group
    is retracted and re-inserted). The ORDER BY ends with the group keys, so
    there are no ties."""
    hv = rng.choice(["", "", " HAVING COUNT(*) % 2 = 1", f" HAVING SUM(v) > {rng.randint(0, 40)}"])
    inner_l = f"SELECT k, g, COUNT(*) AS n, SUM(v) AS sv, MAX(x) AS mx FROM s GROUP BY k, g{hv}"
    inner_p = f"SELECT k, g, COUNT(*) AS n, SUM(v)::bigint AS sv, MAX(x) AS mx FROM s GROUP BY k, g{hv}"
    part = rng.choice([["k"], []])
    order = [_order_item(rng, c) for c in rng.sample(["n", "sv", "mx"], rng.randint(1, 2))]
    order += [_order_item(rng, c) for c in (["g"] if part else ["k", "g"])]
    n = rng.choice([1, 2, 3])
    ov = (f"PARTITION BY {', '.join(part)} " if part else "") + "ORDER BY " + ", ".join(order)
    with_rn = rng.random() < 0.35
    sel = "k, g, n, sv, mx" + (", rn" if with_rn else "")
    lam = (f"SELECT {sel} FROM (SELECT k, g, n, sv, mx, ROW_NUMBER() OVER ({ov}) AS rn "
           f"FROM {name}_in) t WHERE {_rn_filter(rng, n)}")
    pgq = (f"SELECT {sel} FROM (SELECT k, g, n, sv, mx, ROW_NUMBER() OVER ({ov}) AS rn "
           f"FROM ({inner_p}) i) t WHERE rn <= {n}")
    return Instance("topn_agg", [f"CREATE MATERIALIZED VIEW {name}_in AS {inner_l}",
                                 f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", "TIIIR" + ("I" if with_rn else ""),
                           lambda p, nw, q=pgq: q)], [], [])


# ------------------------------------------------- the changelog source c

def t_changelog_agg(rng, name, feats):
    """An aggregate MV over the changelog source c (k, g, v, __weight):
    inserts and retractions of earlier rows; PG: the live rows (table c)."""
    keys = rng.choice([["k"], ["g"], ["k", "g"], []])
    pool = [E.same("COUNT(*)", "I"), E.same("COUNT(v)", "I"), E("SUM(v)", "SUM(v)::bigint", "I"),
            E("AVG(v)", "AVG(v)::float8", "R"), E.same("MIN(v)", "I"), E.same("MAX(v)", "I"),
            E.same("MIN(k)", "T"), E.same("MAX(k)", "T"), E.same("COUNT(DISTINCT v)", "I"),
            E.same("COUNT(DISTINCT k)", "I"), E("SUM(DISTINCT v)", "SUM(DISTINCT v)::bigint", "I"),
            E.same("MAX(g) - MIN(g)", "I"),
            E.same("COUNT(*) FILTER (WHERE v > 0)", "I", "filter_clause"),
            E("SUM(v) FILTER (WHERE g = 1)", "(SUM(v) FILTER (WHERE g = 1))::bigint", "I", "filter_clause"),
            E("STDDEV(v)", "STDDEV(v)::float8", "R", "stddev"),
            E("VARIANCE(v)", "VARIANCE(v)::float8", "R", "stddev")]
    if keys == ["k", "g"]:
        # a retraction removes the most recent live copy of the value in
        # the group; with (k, g) as the key that is the row PG deletes
        pool += [E("first_value(v)", "(array_agg(v ORDER BY __id) FILTER (WHERE v IS NOT NULL))[1]",
                   "I", "first_last_value"),
                 E("last_value(v)", "(array_agg(v ORDER BY __id DESC) FILTER (WHERE v IS NOT NULL))[1]",
                   "I", "first_last_value")]
    pool = [a for a in pool if enabled(a.feature, feats)]
    exprs = [E.same(k, "T" if k == "k" else "I") for k in keys] + \
        [rng.choice(pool) for _ in range(rng.randint(1, 4))]
    w = rng.choice(["", "", " WHERE v > 0", " WHERE k IS NOT NULL", " WHERE g <> 2"])
    grp = (" GROUP BY " + ", ".join(keys)) if keys else ""
    hv = rng.choice(["", "", " HAVING COUNT(*) > 1"]) if keys else ""
    lam = f"SELECT {select_list(exprs, 'lam')} FROM c{w}{grp}{hv}"
    pgq = f"SELECT {select_list(exprs, 'pg')} FROM c{w}{grp}{hv}"
    return Instance("changelog_agg", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), lambda p, nw, q=pgq: q)], [], [],
                    uses_c=True, start_only=True)


def t_changelog_filter(rng, name, feats):
    """A filter/projection MV over the changelog source c: the live rows."""
    w = rng.choice(["v > 5", "k IS NOT NULL", "g IN (1, 2)", "v IS NULL OR v < 0", "TRUE"])
    proj = rng.choice([("k, g, v", "TII"), ("k, v * 2 AS v2", "TI"), ("g, coalesce(k, 'none') AS kk", "IT")])
    q = f"SELECT {proj[0]} FROM c WHERE {w}"
    return Instance("changelog_filter", [f"CREATE MATERIALIZED VIEW {name} AS {q}"],
                    [Check(name, "query", proj[1], lambda p, nw, q=q: q)], [], [],
                    uses_c=True, start_only=True)


def t_changelog_topn(rng, name, feats):
    """Top-N over the changelog source c: every live row is kept, so a
    retracted top row lets the next one in; ties in arrival order (PG: __id
    of the live row; a retraction removes the most recent live copy)."""
    part = rng.choice([["k"], ["g"], []])
    order = [_order_item(rng, c) for c in rng.sample(["v", "g", "k"], rng.randint(1, 2))]
    n = rng.choice([1, 2, 3])
    ov = (f"PARTITION BY {', '.join(part)} " if part else "") + "ORDER BY " + ", ".join(order)
    with_rn = rng.random() < 0.35
    sel = "k, g, v" + (", rn" if with_rn else "")
    lam = (f"SELECT {sel} FROM (SELECT k, g, v, ROW_NUMBER() OVER ({ov}) AS rn FROM c) t "
           f"WHERE {_rn_filter(rng, n)}")
    pgq = (f"SELECT {sel} FROM (SELECT k, g, v, ROW_NUMBER() OVER ({ov}, __id) AS rn FROM c) t "
           f"WHERE rn <= {n}")
    return Instance("changelog_topn", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", "TII" + ("I" if with_rn else ""), lambda p, nw, q=pgq: q)],
                    [], [], uses_c=True, start_only=True)


def t_changelog_agg_over_agg(rng, name, feats):
    """An aggregate over an aggregate over the changelog source c."""
    inner = "SELECT k, g, COUNT(*) AS n, SUM(v) AS sv, MIN(v) AS mn FROM c GROUP BY k, g"
    inner_p = "SELECT k, g, COUNT(*) AS n, SUM(v)::bigint AS sv, MIN(v) AS mn FROM c GROUP BY k, g"
    aggs = [E.same("COUNT(*)", "I"), E("SUM(n)", "SUM(n)::bigint", "I"), E.same("MAX(sv)", "I"),
            E.same("MIN(mn)", "I"), E.same("COUNT(DISTINCT n)", "I"), E("SUM(sv)", "SUM(sv)::bigint", "I")]
    exprs = [E.same("k", "T")] + [rng.choice(aggs) for _ in range(rng.randint(1, 3))]
    lam = f"SELECT {select_list(exprs, 'lam')} FROM {name}_in GROUP BY k"
    pgq = f"SELECT {select_list(exprs, 'pg')} FROM ({inner_p}) i GROUP BY k"
    return Instance("changelog_agg_over_agg",
                    [f"CREATE MATERIALIZED VIEW {name}_in AS {inner}",
                     f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types_of(exprs), lambda p, nw, q=pgq: q)], [], [],
                    uses_c=True, start_only=True)


# ---------------------------------------------------------------- joins

JOIN_KINDS = [("JOIN", "JOIN"), ("INNER JOIN", "INNER JOIN"), ("LEFT JOIN", "LEFT JOIN"),
              ("LEFT OUTER JOIN", "LEFT JOIN"), ("RIGHT JOIN", "RIGHT JOIN"),
              ("FULL JOIN", "FULL JOIN"), ("FULL OUTER JOIN", "FULL JOIN")]


def _join_side(rng, key, side):
    """An updating aggregate over s grouped by `key`: (Laminar, PG) query."""
    w = pred(rng) if rng.random() < 0.4 else None
    hv = rng.choice(["", "", " HAVING COUNT(*) % 2 = 1", f" HAVING SUM(v) > {rng.randint(0, 30)}"])
    ks = ", ".join(key)
    wl = f" WHERE {w.lam}" if w else ""
    wp = f" WHERE {w.pg}" if w else ""
    lam = (f"SELECT {ks}, COUNT(*) AS n{side}, SUM(v) AS sv{side}, MAX(x) AS mx{side} "
           f"FROM s{wl} GROUP BY {ks}{hv}")
    pgq = (f"SELECT {ks}, COUNT(*) AS n{side}, SUM(v)::bigint AS sv{side}, MAX(x) AS mx{side} "
           f"FROM s{wp} GROUP BY {ks}{hv}")
    return lam, pgq


def t_join_updating(rng, name, feats):
    """An updating join of two aggregate views over s (changelog inputs): a
    row that changes retracts its joined row, a group that vanishes (HAVING)
    retracts it, outer rows appear and disappear. PG: the same join over the
    two aggregate queries."""
    key = rng.choice([["k"], ["k"], ["k", "g"], ["g"]])
    ll, lp = _join_side(rng, key, "l")
    rl, rp = _join_side(rng, key, "r")
    jl, jp = rng.choice(JOIN_KINDS)
    kt = ["T" if c == "k" else "I" for c in key]
    if rng.random() < 0.35:
        # USING: merged columns (COALESCE for FULL), unqualified
        on = f" USING ({', '.join(key)})"
        sel, sel_t = list(key), list(kt)
    else:
        cond = " AND ".join(f"a.{c} = b.{c}" for c in key)
        extra = rng.choice(["", "", " AND a.nl >= b.nr", " AND b.svr > 0", " AND a.mxl IS NOT NULL"])
        on = f" ON {cond}{extra}"
        sel = [f"a.{c}" for c in key] + [f"b.{c}" for c in key]
        sel_t = kt + kt
    vals = [("a.nl", "I"), ("a.svl", "I"), ("b.nr", "I"), ("b.mxr", "R"), ("b.svr", "I")]
    picked = rng.sample(vals, rng.randint(1, 4))
    sel += [v for v, _ in picked]
    sel_t += [t for _, t in picked]
    sl = ", ".join(f"{e} AS c{i}" for i, e in enumerate(sel))
    lam = f"SELECT {sl} FROM {name}_l a {jl} {name}_r b{on}"
    pgq = f"SELECT {sl} FROM ({lp}) a {jp} ({rp}) b{on}"
    return Instance("join_updating",
                    [f"CREATE MATERIALIZED VIEW {name}_l AS {ll}",
                     f"CREATE MATERIALIZED VIEW {name}_r AS {rl}",
                     f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", "".join(sel_t), lambda p, nw, q=pgq: q)], [], [])


def t_join_changelog(rng, name, feats):
    """An updating join of an aggregate view over s with the changelog
    source c (rows inserted and retracted)."""
    jl, jp = rng.choice(JOIN_KINDS)
    inner_l = "SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM s GROUP BY k"
    inner_p = "SELECT k, COUNT(*) AS n, SUM(v)::bigint AS sv FROM s GROUP BY k"
    on = rng.choice([" ON a.k = c.k", " ON a.k = c.k AND c.v > 0", " ON a.k = c.k AND a.n > c.g"])
    sel = "a.k AS c0, a.n AS c1, c.g AS c2, c.v AS c3"
    return Instance("join_changelog",
                    [f"CREATE MATERIALIZED VIEW {name}_a AS {inner_l}",
                     f"CREATE MATERIALIZED VIEW {name} AS SELECT {sel} FROM {name}_a a {jl} c{on}"],
                    [Check(name, "query", "TIII",
                           lambda p, nw: f"SELECT {sel} FROM ({inner_p}) a {jp} c{on}")],
                    [], [], uses_c=True, start_only=True)


def _bound(rng):
    """A time bound between a.ts and b.ts: (Laminar, PG) text."""
    def iv(us):
        if us % SECOND == 0:
            return interval_sql(us), f"INTERVAL '{us // SECOND} seconds'"
        return interval_sql(us), f"INTERVAL '{us // 1000} milliseconds'"
    lo = rng.choice([0, 250_000, SECOND, 2 * SECOND])
    hi = rng.choice([0, 250_000, SECOND, 3 * SECOND])
    (lol, lop), (hil, hip) = iv(lo), iv(hi)
    forms = [
        (f"b.ts BETWEEN a.ts - {lol} AND a.ts + {hil}", f"b.ts BETWEEN a.ts - {lop} AND a.ts + {hip}"),
        (f"b.ts >= a.ts - {lol} AND b.ts < a.ts + {hil}", f"b.ts >= a.ts - {lop} AND b.ts < a.ts + {hip}"),
        (f"a.ts - {lol} < b.ts AND a.ts + {hil} >= b.ts", f"a.ts - {lop} < b.ts AND a.ts + {hip} >= b.ts"),
        (f"b.ts > a.ts AND b.ts <= a.ts + {hil}", f"b.ts > a.ts AND b.ts <= a.ts + {hip}"),
        (f"a.ts >= b.ts - {hil} AND a.ts <= b.ts + {lol}", f"a.ts >= b.ts - {hip} AND a.ts <= b.ts + {lop}"),
    ]
    f = rng.choice(forms)
    if "b.ts > a.ts AND b.ts <= a.ts +" in f[0] and hi == 0:
        f = forms[0]  # (0, 0] is empty: refused
    if f is forms[1] and lo == 0 and hi == 0:
        f = forms[0]  # [0, 0) is empty: refused
    if f is forms[2] and lo == 0 and hi == 0:
        f = forms[0]
    return f


def t_join_interval(rng, name, feats):
    """An interval join of s with itself: INNER or LEFT SEMI views equal
    PG's batch join with the bound as a predicate after every step; a LEFT
    join's NULL-padded rows wait for the watermark, so it is compared
    after `end` only."""
    bl, bp = _bound(rng)
    key = rng.choice([("a.k = b.k", "a.k = b.k"), ("a.k = b.k AND a.g = b.g", "a.k = b.k AND a.g = b.g"),
                      ("a.g = b.g", "a.g = b.g"), ("upper(a.k) = upper(b.k)", "upper(a.k) = upper(b.k)")])
    res = rng.choice(["", "", " AND a.v <> b.v", " AND b.x > 0"])
    kinds = ["inner", "inner", "semi"] + (["left"] if enabled("join_interval_left", feats) else [])
    kind = rng.choice(kinds)
    if kind == "semi":
        lam = (f"SELECT a.k AS c0, a.v AS c1, a.ts AS c2 FROM s a LEFT SEMI JOIN s b "
               f"ON {key[0]} AND {bl}{res}")
        pgq = (f"SELECT a.k AS c0, a.v AS c1, a.ts AS c2 FROM s a WHERE EXISTS "
               f"(SELECT 1 FROM s b WHERE {key[1]} AND {bp}{res})")
        types = "TIS"
    else:
        j = "JOIN" if kind == "inner" else "LEFT JOIN"
        lam = (f"SELECT a.k AS c0, a.v AS c1, b.v AS c2, a.ts AS c3, b.ts AS c4 FROM s a {j} s b "
               f"ON {key[0]} AND {bl}{res}")
        pgq = (f"SELECT a.k AS c0, a.v AS c1, b.v AS c2, a.ts AS c3, b.ts AS c4 FROM s a {j} s b "
               f"ON {key[1]} AND {bp}{res}")
        if kind == "inner" and rng.random() < 0.35:
            # FROM s a, s b WHERE ...: the conditions move into the join
            lam = (f"SELECT a.k AS c0, a.v AS c1, b.v AS c2, a.ts AS c3, b.ts AS c4 FROM s a, s b "
                   f"WHERE {key[0]} AND {bl}{res}")
        types = "TIISS"
    return Instance("join_interval", [f"CREATE MATERIALIZED VIEW {name} AS {lam}"],
                    [Check(name, "query", types, lambda p, nw, q=pgq: q, final_only=kind == "left")],
                    [], [])


@dataclasses.dataclass
class Template:
    name: str
    build: Callable
    weight: int
    feature: Optional[str] = None


TEMPLATES = [
    Template("agg", t_agg, 6),
    Template("global_agg", t_global_agg, 2),
    Template("filter_project", t_filter_project, 2),
    Template("tumble_eowc", t_tumble_eowc, 5),
    Template("tumble_mv", t_tumble_mv, 2),
    Template("tumble_noemit", t_tumble_noemit, 1, "window_noemit_updating"),
    Template("mv_over_stream", t_mv_over_stream, 2),
    Template("agg_over_stream", t_agg_over_stream, 2),
    Template("window_cascade", t_window_cascade, 2),
    Template("window_cascade_unaligned", t_window_cascade_unaligned, 2, "window_cascade_unaligned"),
    Template("agg_over_agg", t_agg_over_agg, 4, "changelog_input"),
    Template("filter_over_agg", t_filter_over_agg, 2, "changelog_input"),
    Template("hop_eowc", t_hop_eowc, 3, "hop"),
    Template("session_eowc", t_session_eowc, 3, "session"),
    Template("cumulate_eowc", t_cumulate_eowc, 2, "cumulate"),
    Template("window_noemit", t_window_noemit, 2, "window_noemit_more"),
    Template("lateness", t_lateness, 3, "allow_lateness"),
    Template("topn", t_topn, 3, "topn"),
    Template("topn_agg", t_topn_agg, 2, "topn_agg"),
    Template("changelog_agg", t_changelog_agg, 3, "changelog_source"),
    Template("changelog_filter", t_changelog_filter, 1, "changelog_source"),
    Template("changelog_topn", t_changelog_topn, 2, "changelog_topn"),
    Template("changelog_agg_over_agg", t_changelog_agg_over_agg, 1, "changelog_source"),
    Template("join_updating", t_join_updating, 3, "join_updating"),
    Template("join_changelog", t_join_changelog, 2, "join_updating"),
    Template("join_interval", t_join_interval, 3, "join_interval"),
]
