#!/usr/bin/env bash
# Expression differential test, Laminar vs PostgreSQL 15 (tests/diff_expr/README.md).
# Starts a throwaway PostgreSQL cluster (tests/lib/pg_gen.sh: initdb in a
# temporary directory, a Unix socket only, fsync off), runs gen.py against it
# and LAMINARDB, and stops and removes the cluster on exit, even on failure.
#
#   bash tests/diff_expr/run.sh LAMINARDB [gen.py options]
#   e.g. bash tests/diff_expr/run.sh build/laminardb --seed 42 --exprs 300
#
# Environment: LM_DIFF_EXPR_SEEDS=1,2,3 overrides the seeds.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash tests/diff_expr/run.sh LAMINARDB [gen.py options]" >&2
  exit 2
fi
lm=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/pg_gen.sh"
pg_gen_run diff_expr "$here/gen.py" "${LM_DIFF_EXPR_SEEDS:-}" --laminardb "$lm" "$@"
