#!/usr/bin/env python3
"""Writes an .slt file whose expected rows are PostgreSQL 15's answers.

    python3 tests/slt/pg_specs/slt_from_pg.py SPEC OUT.slt DBNAME
    (PGHOST / PGPORT: a running server, e.g. one started like tests/lib/pg.sh)

SPEC: records separated by blank lines; `# ...` lines are copied;
`statement` + SQL runs in PostgreSQL and becomes `statement ok`;
`query TYPES [rowsort]` + SQL takes PostgreSQL's rows (B: t/f -> true/false,
S: the space of a timestamp -> 'T'); `error TEXT` + SQL is copied as
`statement error TEXT` (not run in PostgreSQL: our documented errors).
DBNAME is dropped and created first. types_flow.slt was edited by hand
after generation (its sources read tests/slt/data/types.*)."""
import os, re, subprocess, sys
PSQL = ['/usr/lib/postgresql/15/bin/psql', '-h', os.environ.get('PGHOST', '/tmp'),
        '-p', os.environ.get('PGPORT', '5432'),
        '-U', 'postgres', '-At', '-F', '\x1f', '-v', 'ON_ERROR_STOP=1', '-d', sys.argv[3]]
def pg_form(sql):
    # a Laminar materialized view is always current: PostgreSQL's view
    return re.sub(r'^(\s*CREATE\s+)MATERIALIZED\s+VIEW\b', r'\1VIEW', sql, flags=re.I)
def pg(sql):
    r = subprocess.run(PSQL + ['-c', pg_form(sql)], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit('PG failed: %s\n%s' % (sql, r.stderr))
    return r.stdout
def cell(v, t):
    if v == '':
        return '(empty)'
    if t == 'B':
        return {'t': 'true', 'f': 'false'}.get(v, v)
    if t == 'S':
        return v.replace(' ', 'T')
    if t == 'R' and v != 'NULL':
        return '%.3f' % float(v)  # as slt_pg.py compares them
    return v
subprocess.run(PSQL[:-1] + ['postgres', '-c', 'DROP DATABASE IF EXISTS ' + sys.argv[3]], capture_output=True)
subprocess.run(PSQL[:-1] + ['postgres', '-c', 'CREATE DATABASE ' + sys.argv[3]], capture_output=True)
out = []
for rec in open(sys.argv[1]).read().split('\n\n'):
    rec = rec.strip('\n')
    if not rec:
        continue
    lines = rec.split('\n')
    comments = [l for l in lines if l.startswith('#')]
    body = [l for l in lines if not l.startswith('#')]
    out.extend(comments)
    if not body:
        out.append('')
        continue
    head, sql = body[0], '\n'.join(body[1:])
    if head.startswith('statement'):
        pg(sql)
        out += ['statement ok', sql, '']
    elif head.startswith('error'):
        out += ['statement error ' + head[6:].strip(), sql, '']
    else:
        parts = head.split()
        types = parts[1]
        mode = parts[2] if len(parts) > 2 else ''
        rows = []
        r = subprocess.run(PSQL + ['-P', 'null=NULL', '-c', pg_form(sql)], capture_output=True, text=True)
        if r.returncode:
            raise SystemExit('PG failed: %s\n%s' % (sql, r.stderr))
        for line in r.stdout.split('\n'):
            if line == '' :
                continue
            vals = line.split('\x1f')
            rows.append(' '.join(cell(v, types[i] if i < len(types) else 'T') for i, v in enumerate(vals)))
        out += ['query %s%s' % (types, ' ' + mode if mode else ''), sql, '----'] + rows + ['']
open(sys.argv[2], 'w').write('\n'.join(out).rstrip('\n') + '\n')
