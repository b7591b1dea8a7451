#!/usr/bin/env bash
# Builds and runs the benchmarks (make first). Usage: bench/run.sh [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory build >/dev/null
./build/bench/bench_flights examples/flights/data/flights-200k.csv "${1:-5}"
# ad-hoc aggregate queries over the 3 M flights rows beside DuckDB (one
# thread each; needs ../shared/data/flights-3m.parquet and node's DuckDB)
if [ -f ../shared/data/flights-3m.parquet ] && [ -d tests/oracle/node_modules ]; then
  bash bench/flights_adhoc.sh build "${1:-5}"
fi
