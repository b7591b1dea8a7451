#!/usr/bin/env bash
# Acceptance case ../shared/cases/flights: the pipeline over 200,000 real
# flights. The sink must hold exactly hourly_delays.expected.csv (any order,
# AVG within 1e-9 relative) and the final SELECT must print
# top_origins.expected.csv (computed by DuckDB, not by us).
set -euo pipefail
bin=$(realpath "$1")
repo=$(pwd)
case_dir=$(realpath ../shared/cases/flights)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The case's pipeline reads ../shared/data/... relative to its working dir.
mkdir -p "$tmp/work"
ln -s "$(realpath ../shared)" "$tmp/shared"
cd "$tmp/work"
"$bin" run "$case_dir/pipeline.sql" --output csv >select.csv 2>stderr.txt
diff -u "$case_dir/top_origins.expected.csv" select.csv
python3 "$repo/tests/cases/compare_rows.py" \
  --expected "$case_dir/hourly_delays.expected.csv" \
  --got out/hourly_delays.ndjson --keys origin,hour --float avg_delay
grep -q "hourly_out: 28794 rows written to out/hourly_delays.ndjson" stderr.txt
echo "flights: OK"
