#!/usr/bin/env python3
"""Compares Laminar's errors with PostgreSQL 15's (tests/cases/errors_pg.sh).

Every record of the statements file (format in its header comment) runs
through Laminar (err_probe: rc, line, column, SQLSTATE, message, DETAIL) and,
in one psql session with VERBOSITY=verbose, through PostgreSQL, each inside
BEGIN ... ROLLBACK after the setup. They agree when both succeed, or both
fail with the same SQLSTATE, the same message (Laminar's without its
"line:column: " prefix; or the record's "-- lm-message:"), the same DETAIL,
and, when PostgreSQL points at a place (its "LINE n:" and caret), the same
line:column. Exit status 0 when every record agrees, 1 when any does not
(each difference printed with the record's line in the file).

  errors_pg.py --probe BUILD/tests/err_probe --psql "psql -h DIR -U postgres" FILE

Python 3 stdlib only.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile


def parse(path):
    """(setup SQL, [(line, pre SQL list, lm-message or None, SQL)])."""
    setup, recs = "", []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip() or lines[i].startswith("#"):
            i += 1
            continue
        start, body = i + 1, []
        while i < len(lines) and lines[i].strip():
            if not lines[i].startswith("#"):
                body.append(lines[i])
            i += 1
        if body and body[0] == "-- setup":
            setup = "\n".join(body[1:])
            continue
        pre, lm_msg = [], None
        while body and body[0].startswith("-- "):
            d = body.pop(0)[3:]
            if d.startswith("pre: "):
                pre.append(d[5:])
            elif d.startswith("lm-message: "):
                lm_msg = d[len("lm-message: "):]
            else:
                sys.exit("%s:%d: unknown directive %r" % (path, start, d))
        recs.append((start, pre, lm_msg, "\n".join(body)))
    return setup, recs


def run_laminar(probe, setup, recs):
    with tempfile.TemporaryDirectory() as d:
        sp, qp = os.path.join(d, "setup.sql"), os.path.join(d, "stmts.txt")
        open(sp, "w", encoding="utf-8").write(setup)
        chunks = []
        for _, pre, _, sql in recs:
            chunks.append((";\n".join(pre) + "\x1e" if pre else "") + sql)
        open(qp, "w", encoding="utf-8").write("\n;;\n".join(chunks))
        p = subprocess.run([probe, sp, qp], capture_output=True, text=True)
    if p.returncode:
        sys.exit("err_probe failed: " + p.stderr)
    out = []
    for ln in p.stdout.split("\n")[:len(recs)]:
        rc, line, col, state, msg, det = ln.split("\x1f")
        out.append((int(rc), int(line), int(col), state,
                    msg.replace("\\n", "\n"), det))
    if len(out) != len(recs):
        sys.exit("err_probe printed %d lines for %d records" %
                 (len(out), len(recs)))
    return out


# the lines psql prints after an error's message, in verbose mode
FIELD = (r"(LINE \d+: |DETAIL:  |HINT:  |LOCATION:  |QUERY:  |CONTEXT:  |"
         r"[A-Z]+ NAME:  |@@R )")


def run_pg(psql, setup, recs):
    """[(ok, sqlstate, message, 'line:col' or '', detail)] per record."""
    script = ["\\set VERBOSITY verbose"]
    for n, (_, pre, _, sql) in enumerate(recs):
        script.append("\\echo @@R %d" % n)
        script.append("BEGIN;")
        script.append(setup.rstrip().rstrip(";") + ";")
        for s in pre:
            script.append(s + ";")
        script.append("\\echo @@S")
        # \gexec sends the statement's text exactly (no ';', no psql
        # lexing: an unterminated quote stays in the statement)
        if "$lmq$" in sql:
            sys.exit("%d: a statement must not hold $lmq$" % recs[n][0])
        script.append("SELECT $lmq$%s$lmq$ \\gexec" % sql)
        script.append("ROLLBACK;")
    pre_cmd = shlex.split(psql)
    cmd = ["stdbuf", "-o0"] + pre_cmd
    for i, a in enumerate(pre_cmd):  # after a runuser prefix (as root)
        if a.endswith("psql"):
            cmd = pre_cmd[:i] + ["stdbuf", "-o0"] + pre_cmd[i:]
            break
    cmd += ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0", "-f", "-"]
    p = subprocess.run(cmd, input="\n".join(script) + "\n",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if os.environ.get("LM_ERRORS_DEBUG"):
        sys.stderr.write(p.stdout)
    blocks = {}
    cur = None
    for ln in p.stdout.split("\n"):
        m = re.match(r"@@R (\d+)$", ln)
        if m:
            cur = int(m.group(1))
            blocks[cur] = []
        elif cur is not None:
            blocks[cur].append(ln)
    out = []
    for n, (start, _, _, sql) in enumerate(recs):
        b = blocks.get(n, [])
        if "@@S" not in b:
            sys.exit("line %d: the setup failed in PostgreSQL:\n%s" %
                     (start, "\n".join(b)))
        b = b[b.index("@@S") + 1:]
        err = [i for i, ln in enumerate(b) if " ERROR:  " in ln]
        if not err:
            out.append((True, "", "", "", ""))
            continue
        i = err[0]
        m = re.search(r" ERROR:  (\w{5}): (.*)$", b[i])
        state, msg = m.group(1), m.group(2)
        while i + 1 < len(b) and not re.match(FIELD, b[i + 1]):
            i += 1  # a message holding newlines
            msg += "\n" + b[i]
        pos = det = ""
        for j in range(i + 1, len(b)):
            lm = re.match(r"LINE (\d+): (.*)$", b[j])
            if lm and j + 1 < len(b):
                if lm.group(2).startswith("..."):
                    sys.exit("line %d: psql elided the statement's line; "
                             "keep lines shorter" % start)
                caret = b[j + 1].index("^") - len("LINE %s: " % lm.group(1))
                pos = "%s:%d" % (lm.group(1), caret + 1)
            dm = re.match(r"DETAIL:  (.*)$", b[j])
            if dm:
                det = dm.group(1)
        out.append((False, state, msg, pos, det))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--psql", required=True)
    ap.add_argument("file")
    a = ap.parse_args()
    setup, recs = parse(a.file)
    lam = run_laminar(a.probe, setup, recs)
    pg = run_pg(a.psql, setup, recs)
    bad = 0
    for (start, _, lm_msg, sql), (rc, line, col, state, msg, det), \
            (ok, pstate, pmsg, ppos, pdet) in zip(recs, lam, pg):
        if line > 0:
            msg = re.sub(r"^%d:%d: " % (line, col), "", msg, count=1)
        got = "ok" if rc == 0 else "%s|%s|%s|%s" % (
            state, msg, "%d:%d" % (line, col) if ppos else "", det)
        want = "ok" if ok else "%s|%s|%s|%s" % (
            pstate, lm_msg if lm_msg is not None else pmsg, ppos, pdet)
        if got != want:
            bad += 1
            print("%s:%d: %s" % (a.file, start, sql.split("\n")[0]))
            print("  laminar:    %s" % got)
            print("  postgresql: %s" % want)
    print("errors_pg: %d records, %d differ" % (len(recs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
