"""The trace driver shared by tests/diff/tables_pg.py and unique_pg.py.

A trace generator produces one statement per step; PostgreSQL runs the whole
trace in one psql session, each statement in a DO block that records its
error in a table errlog (step INT, then one or more TEXT fields) and rolls
it back, followed by the step's check queries between `\\echo @@ STEP CHECK`
markers and, last, `\\echo @@ errlog` and a SELECT of errlog. This module
holds the command line, the psql run, the parsing of its output and the
writing of a check as an .slt query record (docs/slt.md).

Python 3 stdlib only.
"""
import argparse
import random
import shlex
import subprocess
import sys

# the opening of every psql script
PRELUDE = ["\\set ON_ERROR_STOP 1", "SET client_min_messages = warning;"]


def parse_args():
    """--psql CMD (a psql command line prefix), --seed N (default 1),
    --steps S (default 200), --slt OUT (the file to write)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--slt", required=True)
    return ap.parse_args()


def start(gen):
    """The command line (parse_args) and the trace gen(rng, steps) of its
    seed: (args, trace)."""
    a = parse_args()
    return a, gen(random.Random(a.seed), a.steps)


def run(psql, script, n_err_fields):
    """Runs the psql script (a list of lines) unaligned, tab-separated, NULL
    printed as \\N by the script's own \\pset. Returns (results, errors):
    results[(step, check)] = the check's output lines, errors[step] = the
    tuple of errlog's n_err_fields TEXT fields after the step (the last
    keeps any tabs: a message with a tab stays whole). None on a psql failure (its stderr is copied)."""
    res = subprocess.run(shlex.split(psql) + ["-X", "-q", "-At", "-F", "\t"],
                         input="\n".join(script) + "\n", capture_output=True,
                         text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        return None
    results, errors, cur = {}, {}, None
    for line in res.stdout.split("\n"):
        if line.startswith("@@ "):
            parts = line.split()
            cur = "err" if parts[1] == "errlog" else (int(parts[1]),
                                                      int(parts[2]))
            if cur != "err":
                results[cur] = []
            continue
        if cur is None or line == "":
            continue
        if cur == "err":
            fields = line.split("\t", n_err_fields)
            errors[int(fields[0])] = tuple(fields[1:])
        else:
            results[cur].append(line)
    return results, errors


def slt_value(s, t):
    """One psql output cell s as the slt runner prints a value of type t."""
    if s == "\\N":
        return "NULL"
    if s == "" and t == "T":
        return "(empty)"
    return s


def query_record(sql, types, lines):
    """The .slt lines of a rowsort query record: sql expecting psql's output
    lines (tab-separated cells of slt types `types`), then a blank line."""
    out = [f"query {types} rowsort", sql, "----"]
    for row in lines:
        cells = row.split("\t")
        out.append(" ".join(slt_value(c, t) for c, t in zip(cells, types)))
    out.append("")
    return out


def step_records(i, lam, errors, late_view):
    """The .slt records of trace step i: the late view's CREATE when lam is
    the CREATE_VIEW marker, else the statement, expected to fail with
    PostgreSQL's first message line when errors has step i."""
    if lam == "CREATE_VIEW":
        return ["statement ok",
                f"CREATE MATERIALIZED VIEW {late_view[0]} AS {late_view[1]}",
                ""]
    if i in errors:
        msg = errors[i][0].split("\n")[0]
        return [f"# step {i}", f"statement error {msg}", lam, ""]
    return [f"# step {i}", "statement ok", lam, ""]
