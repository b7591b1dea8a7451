#!/usr/bin/env python3
"""Groups the sqllogictest corpus failures by cause.

    bash tests/sqllogictest/run.sh build/tests/slt_runner --failures /tmp/f.tsv
    python3 tests/sqllogictest/categorize.py /tmp/f.tsv [CORPUS_DIR]

The TSV has one line per failing record (slt_runner --failures): file, line,
reason, the engine's error, the first SQL line. The record's full SQL is read
from the corpus file (CORPUS_DIR, default ../shared/testsuites/sqllogictest)
to tell e.g. an IN subquery from a scalar one. Prints one line per cause,
with its record count, most frequent first; the rules are the list below, the
first that matches wins, and anything unmatched is shown with its error."""
import collections
import os
import re
import sys


def record_sql(corpus, cache, path, line):
    """The SQL lines of the record at `line` (1-based) of corpus/path."""
    if path not in cache:
        try:
            with open(os.path.join(corpus, path), encoding="utf-8",
                      errors="replace") as f:
                cache[path] = f.read().split("\n")
        except OSError:
            cache[path] = []
    lines = cache[path]
    out = []
    for l in lines[line:]:  # the directive is lines[line - 1]
        if not l.strip() or l == "----":
            break
        out.append(l)
    return out


def before_error(sql_lines, err):
    """The SQL text before the error's line:column, if it has one."""
    m = re.match(r"(\d+):(\d+):", err)
    if not m:
        return ""
    ln, col = int(m.group(1)), int(m.group(2))
    if ln < 1 or ln > len(sql_lines):
        return ""
    return " ".join(sql_lines[:ln - 1] + [sql_lines[ln - 1][:col - 1]])


path_of_record = [""]  # the file of the record cause() looks at
record_info = [None]  # (directive, expected lines) of that record


def record_parts(corpus, cache, path, line):
    """The directive line and the expected-result lines of the record at
    `line` (1-based) of corpus/path (read through record_sql's cache)."""
    record_sql(corpus, cache, path, line)
    lines = cache.get(path) or []
    if not 1 <= line <= len(lines):
        return "", []
    want, seen = [], False
    for l in lines[line:]:
        if not l.strip():
            break
        if seen:
            want.append(l)
        seen = seen or l == "----"
    return lines[line - 1], want


def cause(reason, err, sql_lines):
    sql = " ".join(sql_lines)
    up = sql.upper()
    if reason == "record timed out":
        m = re.search(r"\bFROM\b(.*?)(\bWHERE\b|$)", up)
        n = len(m.group(1).split(",")) if m else 1
        return f"ran over the time limit: a {n}-table FROM (comma join)" \
            if n > 1 else "ran over the time limit"
    if reason == "statement failed":
        if "found 'TRIGGER'" in err:
            return ("CREATE/DROP TRIGGER in SQLite's syntax (TRIGGER t UPDATE "
                    "ON t1 BEGIN ...; END; DROP TRIGGER t without ON table), "
                    "which PostgreSQL rejects too")
        if "expected INDEX or TABLE" in err or "found 'REINDEX'" in err:
            return ("REINDEX name (SQLite's syntax; PostgreSQL needs REINDEX "
                    "INDEX | TABLE name)")
        if re.search(r"found '(INDEX|TRIGGER|REINDEX)'", err):
            return "CREATE/DROP INDEX, CREATE/DROP TRIGGER, REINDEX"
        if "found 'VIEW'" in err:
            return "CREATE VIEW / DROP VIEW not supported"
        if "found 'UNIQUE'" in err:
            return "CREATE TABLE: UNIQUE column constraint not supported"
        if "found 'REPLACE'" in err or "expected INTO, found 'OR'" in err:
            return "REPLACE INTO / INSERT OR REPLACE (SQLite syntax)"
        if "multiple assignments to same column" in err:
            return ("UPDATE SET x=.., x=.. (SQLite keeps the last; PostgreSQL "
                    "rejects it, as Laminar does)")
        if re.search(r"no (source or table|source, stream or view) named", err):
            return "table missing: its CREATE TABLE failed earlier"
        return "statement: " + re.sub(r"^\d+:\d+: ", "", err)
    if reason == "query failed":
        if "found 'SELECT'" in err:
            pre = before_error(sql_lines, err).rstrip().upper()
            if re.search(r"\bIN\s*\($", pre):
                return "subquery: IN (SELECT ...)"
            return "subquery: scalar (SELECT ...) in an expression"
        if "found 'EXISTS'" in err:
            return "subquery: EXISTS (SELECT ...)"
        m = re.search(r"found '(UNION|EXCEPT|INTERSECT)'", err)
        if m:
            return "compound SELECT: UNION [ALL] / EXCEPT / INTERSECT"
        if "found ')'" in err and re.search(r"\bIN\s*\(\s*\)", up):
            return "empty IN () list (SQLite extension)"
        if "invalid input syntax for type integer" in err and re.search(
                r"'[^']*'\s+(NOT\s+)?IN\s*\(\s*SELECT", up):
            return ("text literal IN (SELECT intcol): PostgreSQL converts the "
                    "literal while binding and refuses it too (22P02)")
        if re.search(r"found string '", err) and re.search(r"\bX'", up):
            return "x'..' literal (a blob in SQLite, a bit string in PostgreSQL)"
        if re.search(r"no (source or table|source, stream or view) named", err):
            return "table or view missing: its CREATE failed earlier"
        return "query: " + re.sub(r"'[^']*'", "'..'",
                                  re.sub(r"^\d+:\d+: ", "", err))
    if reason.startswith("wrong result"):
        name = os.path.basename(path_of_record[0])
        if name == "slt_lang_replace.test":
            return ("wrong result after a refused REPLACE INTO / INSERT OR "
                    "REPLACE (SQLite syntax)")
        if name == "slt_lang_update.test":
            return ("wrong result after the refused UPDATE SET x=.., x=.. "
                    "(SQLite's count; PostgreSQL refuses it too)")
        d, want = record_info[0] or ("", [])
        tok = d.split()
        if (reason == "wrong result" and len(tok) >= 3 and tok[2] == "rowsort"
                and re.search(r"[RT]", tok[1]) and len(tok[1]) == 1
                and want != sorted(want)):
            return ("expected values of a one-column R/T rowsort query are "
                    "not in sorted order (the random/ files list R and T "
                    "answers in insertion order; SQLite's runner sorts "
                    "them, as ours does)")
        return f"{reason} (see the run's output for the values)"
    return reason + (": " + err if err else "")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: categorize.py FAILURES.tsv [CORPUS_DIR]")
    corpus = sys.argv[2] if len(sys.argv) > 2 else \
        "../shared/testsuites/sqllogictest"
    counts = collections.Counter()
    per_file = collections.defaultdict(collections.Counter)
    cache = {}
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        for row in f:
            parts = row.rstrip("\n").split("\t")
            if len(parts) < 5:
                parts += [""] * (5 - len(parts))
            path, line, reason, err = parts[0], parts[1], parts[2], parts[3]
            try:
                ln = int(line)
            except ValueError:
                ln = 0
            path_of_record[0] = path
            record_info[0] = record_parts(corpus, cache, path, ln)
            c = cause(reason, err, record_sql(corpus, cache, path, ln))
            counts[c] += 1
            per_file[c][path] += 1
    total = sum(counts.values())
    print(f"{total} failing records")
    for c, n in counts.most_common():
        files = ", ".join(f"{p} {k}" for p, k in per_file[c].most_common(4))
        more = "" if len(per_file[c]) <= 4 else ", ..."
        print(f"{n:6d}  {c}  [{files}{more}]")


main()
