#!/usr/bin/env bash
# Acceptance case seed-trades (../shared/cases/README.md): the seed README's
# per-minute volume query. Expected rows are the README's, hand-checked:
# unbounded (pushed, watermark stops at 09:32:25) -> 3 rows; bounded (file
# read once, final watermark +inf) -> those 3 plus MSFT 09:32. The JSON sink
# must use the seed's exact shape. Windows close in time order, so the
# expected files list rows in emission order and are compared sorted.
set -euo pipefail
bin=$(realpath "$1")
export CASE_DIR=$(realpath tests/cases/trades)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for variant in unbounded bounded; do
  # ${CASE_DIR} in the .sql is expanded through a laminardb.toml wrapper
  printf "sql = '''\n%s\n'''\n" "$(cat "$CASE_DIR/$variant.sql")" >"$variant.toml"
  "$bin" run "$variant.toml" >/dev/null 2>"$variant.err" || {
    cat "$variant.err"; exit 1; }
  diff -u <(sort "$CASE_DIR/expected_$variant.ndjson") \
          <(sort out/minute_volume.ndjson)
  rm -rf out
  echo "trades $variant: OK"
done
