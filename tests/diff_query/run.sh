#!/usr/bin/env bash
# Query differential test, Laminar vs PostgreSQL 15 (tests/diff_query/README.md).
# Starts a throwaway PostgreSQL cluster (tests/lib/pg_gen.sh: initdb in a
# temporary directory, a Unix socket only, fsync off), runs gen.py against it
# and SLT_RUNNER, and stops and removes the cluster on exit, even on failure.
#
#   bash tests/diff_query/run.sh SLT_RUNNER [gen.py options]
#   e.g. bash tests/diff_query/run.sh build/tests/slt_runner --seed 42
#
# Environment: LM_DIFF_QUERY_SEEDS=1,2,3 overrides the seeds.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash tests/diff_query/run.sh SLT_RUNNER [gen.py options]" >&2
  exit 2
fi
runner=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/pg_gen.sh"
pg_gen_run diff_query "$here/gen.py" "${LM_DIFF_QUERY_SEEDS:-}" --runner "$runner" "$@"
