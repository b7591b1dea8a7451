#!/usr/bin/env python3
"""Query differential test: random tables, random ad-hoc SELECTs and random
materialized views, run on PostgreSQL 15 and on Laminar (slt_runner),
compared result by result. See README.md. Python 3 stdlib only.

Per seed: PostgreSQL answers every query (inside a PL/pgSQL function that
catches errors, one psql session); the answers become the expectations of
an .slt file (docs/slt.md) that slt_runner runs against Laminar."""
import argparse, datetime, json, os, random, re, subprocess, sys, tempfile

# ------------------------------------------------------------ tables

# column name -> type; every table has k, a random subset of the others
# (shared names: USING joins and ambiguous names are exercised)
COLTYPES = {"k": "int", "g": "int", "v": "int", "s": "text", "x": "float", "ts": "ts"}
LM_TYPE = {"int": "BIGINT", "float": "DOUBLE", "text": "VARCHAR", "ts": "TIMESTAMP",
           "bool": "BOOLEAN"}
PG_TYPE = {"int": "bigint", "float": "double precision", "text": "text", "ts": "timestamp",
           "bool": "boolean"}
LETTER = {"int": "I", "float": "R", "text": "T", "ts": "S", "bool": "B"}
# no spaces (slt values are space-separated); bytewise order in both (C collation)
TEXTS = ["a", "b", "B", "", "ab", "é", "a_b", "zz", "A%", "b2"]
TSS = ["2020-01-01 00:00:00", "2020-01-01 00:00:01.5", "1969-12-31 23:59:59",
       "2024-02-29 12:00:00", "2020-01-02 00:00:00"]
FEATURES = ["subq", "setop", "winfn", "paren", "gsets"]


def q(s):
    return "'" + s.replace("'", "''") + "'"


class Table:
    def __init__(self, name, cols, pk):
        self.name, self.cols, self.pk = name, cols, pk  # cols: [(name, type)]
        self.rows = []
        self.next_id = 1


def rand_value(r, t, nullp=0.15):
    if r.random() < nullp:
        return None
    if t == "int":
        return r.randint(-2, 5) if r.random() < 0.85 else r.choice([100, -100, 7])
    if t == "float":
        return r.randint(-12, 20) * 0.25
    if t == "text":
        return r.choice(TEXTS)
    if t == "ts":
        return r.choice(TSS)
    return r.random() < 0.5


def sql_value(v, t):
    if v is None:
        return "NULL"
    if t == "int":
        return str(v)
    if t == "float":
        return repr(float(v))
    if t == "ts":
        return "TIMESTAMP " + q(v)
    if t == "bool":
        return "TRUE" if v else "FALSE"
    return q(v)


def make_tables(r):
    tabs = []
    for i in range(r.randint(2, 4)):
        others = [c for c in COLTYPES if c != "k"]
        r.shuffle(others)
        cols = [("k", "int")] + [(c, COLTYPES[c]) for c in sorted(others[:r.randint(1, 4)])]
        pk = r.random() < 0.3
        if pk:
            cols = [("id", "int")] + cols
        tabs.append(Table("t%d" % (i + 1), cols, pk))
    return tabs


def new_row(r, t, dup_from=None):
    if dup_from is not None and r.random() < 0.3:
        row = list(dup_from)
    else:
        row = [rand_value(r, ct) for _, ct in t.cols]
    if t.pk:
        row[0] = t.next_id
        t.next_id += 1
    return row


def insert_sql(t, rows):
    return "INSERT INTO %s VALUES %s" % (t.name, ", ".join(
        "(" + ", ".join(sql_value(v, ct) for v, (_, ct) in zip(row, t.cols)) + ")" for row in rows))


def ddl(t, pg):
    ty = PG_TYPE if pg else LM_TYPE
    cols = ", ".join("%s %s%s" % (c, ty[ct], " PRIMARY KEY" if t.pk and c == "id" else "")
                     for c, ct in t.cols)
    return "CREATE TABLE %s (%s)" % (t.name, cols)


# ------------------------------------------------------------ queries

class Rel:
    """A FROM item: its alias and visible columns [(name, type)]."""

    def __init__(self, alias, cols):
        self.alias, self.cols = alias, cols


class QGen:
    def __init__(self, r, tabs, feats):
        self.r, self.tabs, self.feats = r, tabs, feats
        # grouping sets (feature gsets) draw from their own stream, so that
        # turning them on leaves the other shapes of a seed as they were
        self.gr = random.Random(hash(r.getstate()))
        self.n = 0
        self.for_view = False

    def alias(self):
        self.n += 1
        return "a%d" % self.n

    # ---- scalar expressions over the visible columns
    def cols_of(self, rels, t=None):
        return ["%s.%s" % (rl.alias, c) for rl in rels for c, ct in rl.cols if t is None or ct == t]

    def col(self, rels, t):
        cs = self.cols_of(rels, t)
        return self.r.choice(cs) if cs else None

    def lit(self, t):
        v = rand_value(self.r, t, 0.03)
        if v is None:
            return "CAST(NULL AS %s)" % PG_TYPE[t]
        s = sql_value(v, t)
        return "(%s)" % s if s.startswith("-") else s

    def scalar(self, rels, t, d=1):
        """An expression of type t (pairs are the same text in both dialects)."""
        r = self.r
        c = self.col(rels, t)
        if c is None or r.random() < 0.1:
            if t in ("int", "float", "text", "ts"):
                return self.lit(t)
        if d <= 0 or r.random() < 0.6:
            return c
        if t == "int":
            k = r.randint(0, 3)
            if k == 0:
                return "(%s %s %s)" % (self.scalar(rels, "int", d - 1), r.choice("+-*"),
                                       self.scalar(rels, "int", d - 1))
            if k == 1:
                return "coalesce(%s, %s)" % (c, self.lit("int"))
            if k == 2:
                return "abs(%s)" % c
            return "CASE WHEN %s THEN %s ELSE %s END" % (self.pred(rels, 0), c, self.lit("int"))
        if t == "float":
            # (a positive factor: 0 * -1.5 is -0, which sorts apart from 0)
            o = r.choice("+-*")
            lit = self.lit("float")
            if o == "*" and lit.startswith("(-"):
                lit = lit[2:-1]
            return "(%s %s %s)" % (c, o, lit)
        if t == "text":
            k = r.randint(0, 2)
            if k == 0:
                return "upper(%s)" % c
            if k == 1:
                return "(%s || %s)" % (c, self.lit("text"))
            return "coalesce(%s, %s)" % (c, self.lit("text"))
        return c

    def pred(self, rels, d=1):
        r = self.r
        k = r.randint(0, 9)
        if d > 0 and k <= 1:
            return "(%s %s %s)" % (self.pred(rels, d - 1), r.choice(["AND", "OR"]),
                                   self.pred(rels, d - 1))
        if d > 0 and k == 2:
            return "(NOT %s)" % self.pred(rels, d - 1)
        ts = [t for t in ("int", "int", "float", "text", "ts") if self.cols_of(rels, t)]
        t = r.choice(ts)
        c = self.col(rels, t)
        if k == 3:
            return "(%s IS %sNULL)" % (c, r.choice(["", "NOT "]))
        if k == 4 and t in ("int", "float"):
            a, b = sorted([rand_value(r, t, 0), rand_value(r, t, 0)])
            return "(%s %sBETWEEN %s AND %s)" % (c, r.choice(["", "NOT "]), sql_value(a, t),
                                                 "(%s)" % sql_value(b, t))
        if k == 5 and t in ("int", "text"):
            return "(%s %sIN (%s))" % (c, r.choice(["", "NOT "]), ", ".join(
                self.lit(t) for _ in range(r.randint(1, 3))))
        if k == 6 and "subq" in self.feats:
            return self.subq_pred(rels)
        other = self.col(rels, t) if r.random() < 0.4 else self.lit(t)
        if t in ("int", "float") and r.random() < 0.2:
            other = self.col(rels, "float" if t == "int" else "int") or other
        return "(%s %s %s)" % (c, r.choice(["=", "<>", "<", "<=", ">", ">="]), other)

    def subq_pred(self, rels):
        """EXISTS / IN / scalar subqueries (feature subq), correlated or not."""
        r = self.r
        t = r.choice(self.tabs)
        al = self.alias()
        inner = Rel(al, t.cols)
        corr = ""
        outer = self.col(rels, "int")
        if outer and r.random() < 0.5:
            corr = " AND %s.k = %s" % (al, outer)
            # a second correlation key (both decorrelated: docs/subqueries.md)
            more = [c for c in self.cols_of([inner], "int") if c != "%s.k" % al]
            if more and r.random() < 0.3:
                corr += " AND %s = %s" % (self.col(rels, "int"), r.choice(more))
        k = r.randint(0, 2)
        if k == 0:
            return "(%sEXISTS (SELECT 1 FROM %s %s WHERE %s%s))" % (
                r.choice(["", "NOT "]), t.name, al, self.pred([inner], 0), corr)
        if k == 1 and outer:
            return "(%s %sIN (SELECT %s.k FROM %s %s WHERE %s%s))" % (
                outer, r.choice(["", "NOT "]), al, t.name, al, self.pred([inner], 0), corr)
        c = outer or "0"
        fn = r.choice(["MAX", "MIN", "COUNT", "SUM", "COUNT*"])
        arg = "COUNT(*)" if fn == "COUNT*" else "%s(%s.k)" % (fn, al)
        return "(%s %s (SELECT %s FROM %s %s WHERE %s%s))" % (
            c, r.choice(["=", "<", ">="]), arg, t.name, al, self.pred([inner], 0), corr)

    # ---- FROM
    def base(self, right=False):
        r = self.r
        t = r.choice(self.tabs)
        if "setop" in self.feats and not self.for_view and r.random() < 0.12:
            # a CTE (WITH w AS (...)) read as a relation
            al = self.alias()
            name = "w" + al
            inner = Rel("i" + al, t.cols)
            self.ctes.append("%s AS (SELECT * FROM %s %s WHERE %s)" % (
                name, t.name, inner.alias, self.pred([inner], 1)))
            return "%s %s" % (name, al), Rel(al, t.cols)
        if right and self.for_view and r.random() < 0.3:
            # a view's left side is always updating here (tables), so a
            # TABLE on the right is an updating join like a subquery over
            # it (a lookup join only serves append-only left sides,
            # docs/joins.md); both forms are generated
            al = self.alias()
            return "(SELECT * FROM %s) %s" % (t.name, al), Rel(al, t.cols)
        if r.random() < 0.15:
            # a subquery in FROM: a filter/projection or an aggregate
            al = self.alias()
            inner = Rel("i" + al, t.cols)
            if r.random() < 0.5:
                cols = [c for c in t.cols if r.random() < 0.7] or t.cols[:1]
                if ("k", "int") not in cols:
                    cols = [("k", "int")] + cols
                sel = ", ".join("%s.%s" % (inner.alias, c) for c, _ in cols)
                return ("(SELECT %s FROM %s %s WHERE %s) %s" % (
                    sel, t.name, inner.alias, self.pred([inner], 1), al), Rel(al, cols))
            aggc = [c for c, ct in t.cols if ct in ("int", "float") and c != "k"]
            ac = r.choice(aggc) if aggc else "k"
            sel = "%s.k, COUNT(*) AS n, SUM(%s.%s) AS v" % (inner.alias, inner.alias, ac)
            vt = "float" if COLTYPES.get(ac) == "float" else "int"
            return ("(SELECT %s FROM %s %s GROUP BY %s.k) %s" % (
                sel, t.name, inner.alias, inner.alias, al),
                Rel(al, [("k", "int"), ("n", "int"), ("v", vt)]))
        al = self.alias()
        return "%s %s" % (t.name, al), Rel(al, t.cols)

    def from_clause(self):
        r = self.r
        sql, rel = self.base()
        rels = [rel]
        conds = []
        scope = 0  # rels an ON may name: those after the last comma
        for _ in range(r.choice([0, 1, 1, 1, 2, 2, 3])):
            s2, rel2 = self.base(right=True)
            kind = r.choice(["JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                             "LEFT OUTER JOIN", "FULL OUTER JOIN", "CROSS JOIN", ",", "USING"])
            if kind == "CROSS JOIN":
                sql = "%s CROSS JOIN %s" % (sql, s2)
            elif kind == ",":
                sql = "%s, %s" % (sql, s2)
                conds.append("%s.k = %s.k" % (r.choice(rels).alias, rel2.alias))
                scope = len(rels)
            elif kind == "USING":
                # USING (k) needs k once on the left: only for two-relation joins
                if len(rels) == 1:
                    jt = r.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
                    sql = "%s %s %s USING (k)" % (sql, jt, s2)
                    self.using = True
                else:
                    sql = "%s JOIN %s ON %s.k = %s.k" % (sql, s2, rels[-1].alias, rel2.alias)
            else:
                vis = rels[scope:]
                rights = [rel2]
                if "paren" in self.feats and r.random() < 0.25:
                    # a parenthesized join on the right: a JOIN (b JOIN c ON ...)
                    s3, rel3 = self.base(right=True)
                    jt2 = r.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
                    on2 = "%s.k = %s.k" % (rel2.alias, rel3.alias)
                    if r.random() < 0.3:
                        on2 += " AND " + self.pred([rel2, rel3], 0)
                    s2 = "(%s %s %s ON %s)" % (s2, jt2, s3, on2)
                    rights.append(rel3)
                rel2 = r.choice(rights)
                on = "%s.k = %s.k" % (r.choice(vis).alias, rel2.alias)
                if r.random() < 0.2:
                    # another key: other columns, int = double, expressions
                    lt = r.choice(["int", "float", "text"])
                    a = self.col(vis, lt if lt != "float" else r.choice(["int", "float"]))
                    b = self.col([rel2], lt if lt != "float" else r.choice(["int", "float"]))
                    if a and b:
                        if lt == "int" and r.random() < 0.3:
                            a = "(%s + 1)" % a
                        if lt == "text" and r.random() < 0.3:
                            a = "upper(%s)" % a
                        on = "%s = %s" % (a, b)
                if r.random() < 0.3:
                    on += " AND " + self.pred(vis + [rel2], 0)
                elif r.random() < 0.1 and "FULL" not in kind:
                    # (PostgreSQL: "FULL JOIN is only supported with
                    # merge-joinable or hash-joinable join conditions")
                    on = self.pred(vis + [rel2], 0)
                sql = "%s %s %s ON %s" % (sql, kind, s2, on)
                rels.extend(x for x in rights if x is not rel2)
            rels.append(rel2)
        return sql, rels, conds

    # ---- a whole query: (sql, [types], total_order)
    def query(self, for_view=False):
        r = self.r
        self.ctes = []
        if "setop" in self.feats and not for_view and r.random() < 0.15:
            return self.setop()
        sql, types, total = self.query1(for_view)
        if self.ctes:
            sql = "WITH " + ", ".join(self.ctes) + " " + sql
        return sql, types, total

    def arm(self, types):
        """SELECT of the given types (each may be widened: int -> float)
        from a random FROM, with an optional WHERE."""
        r = self.r
        self.for_view = False
        self.using = False
        frm, rels, conds = self.from_clause()
        where = list(conds)
        if r.random() < 0.5:
            where.append(self.pred(rels, 1))
        sel = []
        for i, t in enumerate(types):
            if t == "float" and r.random() < 0.3 and self.cols_of(rels, "int"):
                e = self.scalar(rels, "int", 1)  # int in a double column
            else:
                e = self.scalar(rels, t, 1)
            sel.append("%s AS c%d" % (e, i))
        sql = "SELECT %s FROM %s" % (", ".join(sel), frm)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return sql

    def setop(self):
        r = self.r
        types = [r.choice(["int", "int", "text", "float", "ts"]) for _ in range(r.randint(1, 3))]
        sql = self.arm(types)
        for _ in range(r.choice([1, 1, 1, 2])):
            op = r.choice(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT",
                           "EXCEPT ALL"])
            b = self.arm(types)
            if r.random() < 0.3:
                sql, b = "(%s)" % sql, "(%s)" % b
            sql = "%s %s %s" % (sql, op, b)
        total = False
        if r.random() < 0.4:
            keys = ["c%d%s%s" % (i, r.choice(["", " DESC"]), r.choice(["", " NULLS FIRST"]))
                    for i in range(len(types))]
            r.shuffle(keys)
            sql += " ORDER BY " + ", ".join(keys)
            total = True
            if r.random() < 0.5:
                sql += " LIMIT %d" % r.randint(0, 5)
        if self.ctes:
            sql = "WITH " + ", ".join(self.ctes) + " " + sql
        return sql, types, total

    def grouping_sets(self, group):
        """GROUP BY ROLLUP / CUBE / GROUPING SETS / a key with ROLLUP over
        the keys (feature gsets; docs/aggregates.md)."""
        g = self.gr
        kind = g.choice(["rollup", "cube", "sets", "mixed"])
        if kind == "rollup":
            return "ROLLUP (%s)" % ", ".join(group)
        if kind == "cube":
            return "CUBE (%s)" % ", ".join(group)
        if kind == "mixed" and len(group) > 1:
            return "%s, ROLLUP (%s)" % (group[0], ", ".join(group[1:]))
        sets = []
        for _ in range(g.randint(1, 3)):
            sub = [c for c in group if g.random() < 0.6]
            sets.append("(%s)" % ", ".join(sub))
        if g.random() < 0.3:
            sets.append("()")
        return "%sGROUPING SETS (%s)" % ("DISTINCT " if g.random() < 0.1 else "",
                                        ", ".join(sets))

    def query1(self, for_view=False):
        r = self.r
        self.for_view = for_view
        self.using = False
        frm, rels, conds = self.from_clause()
        where = list(conds)
        if r.random() < 0.6:
            where.append(self.pred(rels, 2))
        sel, types = [], []
        group = []
        having = None
        agg = r.random() < 0.45
        if agg:
            for _ in range(r.choice([0, 1, 1, 2])):
                t = r.choice(["int", "int", "text", "float", "ts"])
                c = self.col(rels, t)
                if c and r.random() < 0.2 and t in ("int", "text"):
                    c = self.scalar(rels, t, 1)  # GROUP BY an expression
                elif self.using and r.random() < 0.2:
                    c, t = "k", "int"  # USING's merged column
                # (PostgreSQL refuses a constant GROUP BY key: not generated)
                if c and c not in group and not re.match(r"^'|^CAST|^TIMESTAMP|^\(?-?[0-9]", c):
                    group.append(c)
                    sel.append(c)
                    types.append(t)
            for _ in range(r.randint(1, 3)):
                e, t = self.aggregate(rels)
                if r.random() < 0.15:
                    e2, t2 = self.aggregate(rels)
                    if t in ("int", "float") and t2 in ("int", "float"):
                        e = "(%s %s %s)" % (e, r.choice("+-*"), e2)
                        t = "float" if "float" in (t, t2) else "int"
                    elif t == "text":
                        e = "coalesce(%s, 'none')" % e
                sel.append(e)
                types.append(t)
            if r.random() < 0.3:
                e, t = self.aggregate(rels)
                if t in ("int", "float"):
                    having = "%s %s %s" % (e, r.choice([">", ">=", "<", "="]),
                                           sql_value(r.randint(0, 4), "int"))
                else:
                    having = "%s IS NOT NULL" % e
        else:
            for _ in range(r.randint(1, 4)):
                t = r.choice(["int", "int", "text", "float", "ts"])
                if not self.cols_of(rels, t):
                    continue
                sel.append(self.scalar(rels, t, 1))
                types.append(t)
            if "winfn" in self.feats and not for_view and r.random() < 0.35:
                # Rows equal in every column are interchangeable within one
                # window, but not across two: which of two equal rows gets
                # ROW_NUMBER 1 in one window and the earlier LAG in another
                # is unspecified (PostgreSQL sorts each window on its own).
                # So a query keeps at most one order-sensitive window
                # function; a second one is generated (same random draws)
                # and left out.
                sensitive = False
                for _ in range(r.randint(1, 2)):
                    e, t = self.winfn(rels)
                    if self.win_sensitive and sensitive:
                        continue
                    sensitive = sensitive or self.win_sensitive
                    sel.append(e)
                    types.append(t)
            if self.using and r.random() < 0.4:
                sel.append("k")  # USING's merged column, unqualified
                types.append("int")
            if not sel:
                sel.append(self.col(rels, "int"))
                types.append("int")
        gsets, extra = None, []
        if group and "gsets" in self.feats and self.gr.random() < 0.45:
            gsets = self.grouping_sets(group)
            if self.gr.random() < 0.5:
                # a last column that ORDER BY leaves alone: the draws of
                # self.r stay those of the query without it
                args = list(group)
                self.gr.shuffle(args)
                extra.append("GROUPING(%s)" % ", ".join(args[:self.gr.randint(1, len(args))]))
                types.append("int")
        distinct = not agg and r.random() < 0.2 or agg and r.random() < 0.05
        sql = "SELECT %s%s FROM %s" % ("DISTINCT " if distinct else "", ", ".join(
            "%s AS c%d" % (e, i) for i, e in enumerate(sel + extra)), frm)
        if where:
            sql += " WHERE " + " AND ".join(where)
        if group:
            sql += " GROUP BY " + (gsets or ", ".join(group))
        if having:
            sql += " HAVING " + having
        total = False
        if for_view:
            return sql, types, False
        if r.random() < 0.5:
            # ORDER BY: all output columns (total) or a prefix (not total)
            idx = list(range(len(sel)))
            r.shuffle(idx)
            n = len(idx) if r.random() < 0.7 else r.randint(1, len(idx))
            total = n == len(idx)
            keys = []
            for i in idx[:n]:
                # (PostgreSQL refuses a constant ORDER BY key: not generated)
                const = re.match(r"^[(']|^CAST|^TIMESTAMP|^-?[0-9]", sel[i])
                kx = "c%d" % i if r.random() < 0.6 or distinct or const else sel[i]
                if r.random() < 0.15 and not distinct:
                    kx = str(i + 1)
                kx += r.choice(["", " ASC", " DESC"])
                kx += r.choice(["", "", " NULLS FIRST", " NULLS LAST"])
                keys.append(kx)
            if not agg and not distinct and r.random() < 0.3:
                # a key that is not selected: any ORDER BY holding every
                # output column orders the output totally
                keys.insert(r.randint(0, len(keys)), (self.col(rels, "int") or "1") +
                            r.choice(["", " DESC NULLS LAST"]))
            sql += " ORDER BY " + ", ".join(keys)
            lim = ""
            if total and r.random() < 0.5:
                lim += " LIMIT %d" % r.randint(0, 6)
                if r.random() < 0.5:
                    lim += " OFFSET %d" % r.randint(0, 4)
            elif total and r.random() < 0.1:
                lim += " OFFSET %d" % r.randint(0, 4)
            # With grouping sets PostgreSQL 15 drops an ORDER BY key that
            # WHERE equates to a constant, although the sets that leave it
            # out make it NULL (its answer is then in the wrong order): such
            # results compare as multisets, without LIMIT
            if gsets:
                total = False
            else:
                sql += lim
        return sql, types, total

    def winfn(self, rels):
        """A window function whose result does not depend on the order of
        peers: ROW_NUMBER / LAG / LEAD / ROWS frames order by every column of
        every relation (rows equal in all of them are interchangeable)."""
        r = self.r
        part = ""
        if r.random() < 0.6:
            ps = [self.col(rels, r.choice(["int", "text"])) for _ in range(r.randint(1, 2))]
            ps = [p for p in ps if p]
            if ps:
                part = "PARTITION BY " + ", ".join(ps)
        full = ", ".join("%s%s%s" % (c, r.choice(["", " DESC"]),
                                     r.choice(["", " NULLS FIRST", " NULLS LAST"]))
                         for c in self.cols_of(rels))
        some = self.col(rels, r.choice(["int", "float", "ts"])) or self.col(rels, "int")
        some += r.choice(["", " DESC", " NULLS FIRST"])
        k = r.randint(0, 7)
        # ROW_NUMBER, LAG/LEAD and ROWS frames depend on the order of equal rows
        self.win_sensitive = k in (0, 2, 6, 7)
        num = self.col(rels, r.choice(["int", "float"])) or self.col(rels, "int")
        nt = "int" if num in self.cols_of(rels, "int") else "float"
        if k == 0:
            return "ROW_NUMBER() OVER (%s ORDER BY %s)" % (part, full), "int"
        if k == 1:
            return "%s() OVER (%s ORDER BY %s)" % (r.choice(["RANK", "DENSE_RANK"]), part, some), "int"
        if k == 2:
            t = r.choice(["int", "text", "float", "ts"])
            c = self.col(rels, t) or self.col(rels, "int")
            t = "int" if c in self.cols_of(rels, "int") else t
            args = c if r.random() < 0.5 else "%s, %d" % (c, r.randint(1, 2))
            return "%s(%s) OVER (%s ORDER BY %s)" % (r.choice(["LAG", "LEAD"]), args, part, full), t
        fn = r.choice(["SUM", "AVG", "COUNT", "MIN", "MAX"])
        t = {"AVG": "float", "COUNT": "int"}.get(fn, nt)
        if k == 3:
            return "%s(%s) OVER (%s)" % (fn, num, part), t
        if k == 4:
            return "%s(%s) OVER (%s ORDER BY %s)" % (fn, num, part, some), t
        if k == 5:
            return "COUNT(*) OVER (%s)" % part, "int"
        a = r.choice(["UNBOUNDED PRECEDING", "1 PRECEDING", "2 PRECEDING", "CURRENT ROW"])
        b = r.choice(["CURRENT ROW", "1 FOLLOWING", "UNBOUNDED FOLLOWING"])
        return "%s(%s) OVER (%s ORDER BY %s ROWS BETWEEN %s AND %s)" % (
            fn, num, part, full, a, b), t

    def aggregate(self, rels):
        r = self.r
        k = r.randint(0, 7)
        if k == 0:
            return "COUNT(*)", "int"
        t = r.choice(["int", "int", "float", "text", "ts"])
        c = self.col(rels, t) or self.col(rels, "int")
        t = "int" if c in self.cols_of(rels, "int") else t
        if r.random() < 0.2 and t in ("int", "float", "text"):
            c = self.scalar(rels, t, 1)  # an aggregate of an expression
        if r.random() < 0.1:
            e, t2 = self.aggregate1(k, c, t)
            return "%s FILTER (WHERE %s)" % (e, self.pred(rels, 0)), t2
        return self.aggregate1(k, c, t)

    def aggregate1(self, k, c, t):
        r = self.r
        if k == 1:
            return "COUNT(%s)" % c, "int"
        if k == 2:
            return "COUNT(DISTINCT %s)" % c, "int"
        if k in (3, 4) and t in ("int", "float"):
            return ("SUM(%s)" % c, t) if k == 3 else ("AVG(%s)" % c, "float")
        if k == 5 and t in ("int", "float") and r.random() < 0.5:
            return "SUM(DISTINCT %s)" % c, t
        return "%s(%s)" % (r.choice(["MIN", "MAX"]), c), t


# ------------------------------------------------------------ PostgreSQL

PG_SETUP = r"""
SET TIME ZONE 'UTC';
SET extra_float_digits = 1;
DROP SCHEMA IF EXISTS {schema} CASCADE;
CREATE SCHEMA {schema};
SET search_path = {schema};
CREATE FUNCTION lm_run(qq text, n int) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE res text;
BEGIN
  EXECUTE 'SELECT coalesce(json_agg(json_build_array(' || (
      SELECT string_agg('lm_q.c' || i, ', ') FROM generate_series(0, n - 1) i)
      || ')), ''[]'')::text FROM (' || qq || ') lm_q' INTO res;
  RETURN res;
EXCEPTION WHEN others THEN
  RETURN 'ERROR' || chr(9) || SQLSTATE || chr(9) || replace(SQLERRM, chr(10), ' ');
END $f$;
CREATE FUNCTION lm_exec(qq text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE qq;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN 'ERROR' || chr(9) || SQLSTATE || chr(9) || replace(SQLERRM, chr(10), ' ');
END $f$;
"""


def run_psql(args, script):
    p = subprocess.run([args.psql, "-X", "-q", "-A", "-t", "-h", args.pg_host, "-p",
                        str(args.pg_port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                       input=script, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("diff_query: psql failed:\n" + p.stderr[-3000:])
    out, cur = {}, None
    for line in p.stdout.split("\n"):
        if line.startswith("@@"):
            cur = int(line[2:])
        elif line and cur is not None:
            out[cur] = line
            cur = None
    return out


def slt_value(v, t):
    if v is None:
        return "NULL"
    if t == "text":
        return v if v != "" else "(empty)"
    if t == "ts":
        d, tm = v.split("T")
        if "." in tm:
            a, f = tm.split(".")
            tm = a + "." + f.ljust(6, "0")
        return d + "T" + tm
    if t == "bool":
        return "true" if v else "false"
    return str(v)


# ------------------------------------------------------------ one seed

def run_seed(seed, args, feats):
    r = random.Random(seed)
    tabs = make_tables(r)
    g = QGen(r, tabs, feats)
    checks = []  # (id, kind, sql, types, total)
    pg = []
    slt = []  # records: (kind, payload)
    schema = "dq_%d_%d" % (seed, os.getpid())

    def check(sql, types, total, label):
        cid = len(checks)
        checks.append((cid, sql, types, total, label))
        pg.append("SELECT '@@%d';" % cid)
        pg.append("SELECT lm_run(%s, %d);" % (q(sql), len(types)))
        slt.append(("check", cid))

    def stmt(sql):
        cid = len(checks)
        checks.append((cid, sql, None, False, "statement"))
        pg.append("SELECT '@@%d';" % cid)
        pg.append("SELECT lm_exec(%s);" % q(sql))
        slt.append(("stmt", sql, cid))

    for t in tabs:
        pg.append(ddl(t, True) + ";")
        slt.append(("stmt", ddl(t, False)))
        rows = []
        for _ in range(r.randint(0, args.max_rows)):
            rows.append(new_row(r, t, r.choice(rows) if rows else None))
        t.rows = rows
        for i in range(0, len(rows), 20):
            stmt(insert_sql(t, rows[i:i + 20]))
    for i in range(args.queries):
        sql, types, total = g.query()
        check(sql, types, total, "query %d" % i)
    # views over the same shapes, then DML steps, each view compared after each
    views = []
    for i in range(args.views):
        sql, types, _ = g.query(for_view=True)
        views.append(("v%d" % i, sql, types))
    ok_views = probe_views(args, tabs, views)
    for name, sql, types in views:
        if name in ok_views:
            slt.append(("stmt", "CREATE MATERIALIZED VIEW %s AS %s" % (name, sql)))
            check(sql, types, False, "view %s (created)" % name)
            checks[-1] = checks[-1][:4] + ("view %s" % name,)
            slt[-1] = ("view", checks[-1][0], name)
    # subqueries in UPDATE/DELETE ... WHERE are not done (docs/tables.md)
    g.feats = feats - {"subq"}
    for step in range(args.steps):
        t = r.choice(tabs)
        k = r.randint(0, 5)
        rel = [Rel(t.name, t.cols)]
        if k <= 2:
            rows = [new_row(r, t, r.choice(t.rows) if t.rows else None)
                    for _ in range(r.randint(1, 5))]
            stmt(insert_sql(t, rows))
        elif k == 3:
            stmt("DELETE FROM %s WHERE %s" % (t.name, g.pred(rel, 1)))
        else:
            c, ct = r.choice([c for c in t.cols if c[0] != "id"])
            stmt("UPDATE %s SET %s = %s WHERE %s" % (t.name, c, g.scalar(rel, ct, 1),
                                                     g.pred(rel, 1)))
        for name, sql, types in views:
            if name in ok_views:
                check(sql, types, False, "view %s after step %d" % (name, step))
                slt[-1] = ("view", checks[-1][0], name)
    g.feats = feats
    for i in range(args.queries_after):
        sql, types, total = g.query()
        check(sql, types, total, "query-after %d" % i)

    script = PG_SETUP.format(schema=schema) + "\n".join(pg) + \
        "\nSET search_path = public;\nDROP SCHEMA %s CASCADE;\n" % schema
    res = run_psql(args, script)

    # the .slt file
    L = ["# diff_query seed %d (tests/diff_query/README.md)" % seed, ""]
    where = {}
    for rec in slt:
        if rec[0] == "stmt":
            if len(rec) > 2:
                ans = res.get(rec[2], "")
                if ans != "ok":
                    L.append("# PostgreSQL: " + ans.replace("\t", " "))
                where[len(L) + 1] = rec[2]
                L += ["statement ok" if ans == "ok" else "statement error", rec[1], ""]
            else:
                L += ["statement ok", rec[1], ""]
            continue
        cid = rec[1]
        _, sql, types, total, label = checks[cid]
        body = sql if rec[0] == "check" else "SELECT * FROM %s" % rec[2]
        where[len(L) + 1] = cid
        ans = res.get(cid)
        if ans is None:
            sys.exit("diff_query: no PostgreSQL answer for check %d" % cid)
        if ans.startswith("ERROR\t"):
            L.append("# PostgreSQL: " + ans.replace("\t", " "))
            where[len(L) + 1] = cid
            L += ["statement error", body, ""]
            continue
        # numbers as PostgreSQL printed them: "-0" keeps its sign, and the
        # text is the shortest round trip as Laminar prints doubles, so rows
        # sort alike under rowsort
        rows = json.loads(ans, parse_int=str, parse_float=str)
        L.append("query %s %s" % ("".join(LETTER[t] for t in types),
                                 "nosort" if total else "rowsort"))
        L += [body, "----"]
        for row in rows:
            L.append(" ".join(slt_value(v, t) for v, t in zip(row, types)))
        L.append("")
    path = os.path.join(args.out, "seed-%d.slt" % seed)
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    if args.write_only:
        return 0, len(checks), path
    p = subprocess.run([args.runner, path], capture_output=True, text=True, timeout=600)
    fails = 0
    out = p.stdout + p.stderr
    for m in re.finditer(r"^FAIL [^:]*:(\d+)", out, re.M):
        fails += 1
        if fails > args.max_report:
            continue
        line = int(m.group(1))
        cid = where.get(line)
        label = checks[cid][4] if cid is not None else "statement"
        print("MISMATCH seed %d, %s (%s:%d)" % (seed, label, path, line))
        seg = out[m.start():].split("\nFAIL ", 1)[0]
        print("  " + "\n  ".join(seg.splitlines()[:40]))
        print("  replay: bash tests/diff_query/run.sh %s --seed %d%s" % (
            args.runner, seed, "".join(" --enable " + f for f in sorted(feats))))
        print("  or without PostgreSQL: %s %s" % (args.runner, path))
    if p.returncode != 0 and fails == 0:
        print("diff_query: slt_runner failed (seed %d, rc %d):\n%s" % (seed, p.returncode, out[-3000:]))
        fails = 1
    if fails == 0 and not args.keep:
        os.unlink(path)
    return fails, len(checks), path


def probe_views(args, tabs, views):
    """The views Laminar accepts as continuous queries (CREATE MATERIALIZED
    VIEW succeeds over empty tables): the others are not generated."""
    if not views:
        return set()
    L = []
    for t in tabs:
        L += ["statement ok", ddl(t, False), ""]
    for name, sql, _ in views:
        L += ["statement ok", "CREATE MATERIALIZED VIEW %s AS %s" % (name, sql), ""]
    fd, path = tempfile.mkstemp(prefix="laminar-dq-probe-", suffix=".slt")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(L) + "\n")
    p = subprocess.run([args.runner, path], capture_output=True, text=True, timeout=120)
    os.unlink(path)
    bad = set()
    for m in re.finditer(r"CREATE MATERIALIZED VIEW (v\d+) AS", p.stdout + p.stderr):
        bad.add(m.group(1))
    ok = {n for n, _, _ in views if n not in bad}
    if args.verbose:
        print("  views accepted %d of %d" % (len(ok), len(views)))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True, help="slt_runner binary")
    ap.add_argument("--psql", default="/usr/lib/postgresql/15/bin/psql")
    ap.add_argument("--pg-host", required=True)
    ap.add_argument("--pg-port", type=int, default=5432)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--seeds", default=None, help="comma-separated seeds")
    ap.add_argument("--date-seed", action="store_true", help="add today's date (YYYYMMDD, UTC)")
    ap.add_argument("--queries", type=int, default=60, help="ad-hoc queries per seed (before DML)")
    ap.add_argument("--queries-after", type=int, default=15, help="ad-hoc queries after the DML steps")
    ap.add_argument("--views", type=int, default=6)
    ap.add_argument("--steps", type=int, default=12, help="INSERT/UPDATE/DELETE steps")
    ap.add_argument("--max-rows", type=int, default=50)
    ap.add_argument("--enable", action="append", default=[], choices=FEATURES + ["all"],
                    help="also generate: subq, setop, winfn")
    ap.add_argument("--out", default=None, help="directory for the .slt files")
    ap.add_argument("--keep", action="store_true", help="keep passing .slt files too")
    ap.add_argument("--write-only", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--max-report", type=int, default=5)
    args = ap.parse_args()
    feats = set(FEATURES if "all" in args.enable else args.enable)
    if args.seeds:
        seeds = [int(s) for s in args.seeds.split(",")]
    elif args.seed is not None:
        seeds = [args.seed]
    else:
        seeds = []
    if args.date_seed or not seeds:
        seeds.append(int(datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")))
    args.out = args.out or tempfile.mkdtemp(prefix="laminar-diffquery-")
    os.makedirs(args.out, exist_ok=True)
    print("diff_query: seeds %s, %d+%d queries, %d views x %d steps each, features: %s" % (
        ",".join(map(str, seeds)), args.queries, args.queries_after, args.views, args.steps,
        ",".join(sorted(feats)) or "-"), flush=True)
    total_f = total_c = 0
    bad_seeds = []
    for seed in seeds:
        f, c, _ = run_seed(seed, args, feats)
        total_f += f
        total_c += c
        if f:
            bad_seeds.append(seed)
    print("diff_query: %d checks, %d mismatches%s" % (
        total_c, total_f, " (seeds %s)" % ",".join(map(str, bad_seeds)) if bad_seeds else ""))
    try:
        os.rmdir(args.out)
    except OSError:
        pass
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main())
