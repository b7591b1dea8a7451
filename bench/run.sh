#!/usr/bin/env bash
# Builds and runs the benchmarks (make first). Usage: bench/run.sh [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory build >/dev/null
./build/bench/bench_flights examples/flights/data/flights-200k.csv "${1:-5}"
