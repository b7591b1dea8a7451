#!/usr/bin/env bash
# sqllogictest files that are not in ../shared (e.g. parts of SQLite's
# test/random/* and test/index/* fetched by hand into a scratch directory,
# never committed): runs tests/sqllogictest/run.sh over DIR (same runner
# options, per-record CPU limit and resume logic; no baseline is compared, so
# it never fails on pass counts) and adds a pass rate per folder.
# Run from the repository root:
#
#   bash tests/sqllogictest/run_extra.sh RUNNER DIR [--failures OUT.tsv]
#
# RUNNER is build*/tests/slt_runner. Prints run.sh's line per file, then one
# line per folder ("folder: N records, P passed, F failed, S skipped (x%)")
# and the total. --failures OUT.tsv keeps one line per failing record for
# `python3 tests/sqllogictest/categorize.py OUT.tsv DIR`. Exit 0 when every
# file ran to its end (whatever its pass count), 2 on bad usage.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: run_extra.sh RUNNER DIR [--failures OUT.tsv]" >&2; exit 2; }
runner=$1 dir=$2
shift 2
[ -d "$dir" ] || { echo "run_extra.sh: no directory $dir" >&2; exit 2; }
here=$(dirname "$0")
out=$(bash "$here/run.sh" "$runner" "$@" "$dir" | grep -v '^  (no baseline entry for ')
printf '%s\n' "$out"
echo "per folder:"
printf '%s\n' "$out" | awk '
  / records, [0-9]+ passed, / && $1 != "total:" {
    f = $1; sub(/:$/, "", f); d = f; sub(/\/[^\/]*$/, "", d); if (d == f) d = ".";
    n[d] += $2; p[d] += $4; fl[d] += $6; s[d] += $8
    if (!(d in seen)) { seen[d] = 1; order[++k] = d }
  }
  END {
    for (i = 1; i <= k; i++) {
      d = order[i]; r = p[d] + fl[d]
      printf "  %s: %d records, %d passed, %d failed, %d skipped (%.1f%% of the records run passed)\n",
        d, n[d], p[d], fl[d], s[d], r ? 100 * p[d] / r : 100
    }
  }'
