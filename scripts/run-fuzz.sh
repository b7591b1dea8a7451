#!/usr/bin/env bash
# Runs every libFuzzer binary of a fuzz build for a short time.
#   scripts/run-fuzz.sh BUILD_DIR SECONDS
# fuzz/fuzz_X.c's seeds are in fuzz/corpus/<short>, where <short> is X
# without a trailing _reader / _parser / _decoder (fuzz_csv_reader -> csv,
# fuzz_toml -> toml); new inputs go to BUILD_DIR/corpus/<short>, so the
# committed corpus only changes when someone copies inputs over on purpose.
# Exit status is nonzero if any target finds a crash.
set -euo pipefail
build=${1:-build-fuzz}
secs=${2:-20}
cd "$(dirname "$0")/.."
status=0
shopt -s nullglob
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  bin=$build/fuzz/$name
  [[ -x $bin ]] || { echo "run-fuzz: $bin not built" >&2; status=1; continue; }
  short=${name#fuzz_}
  short=${short%_reader}; short=${short%_parser}; short=${short%_decoder}
  mkdir -p "$build/corpus/$short" "fuzz/corpus/$short"
  echo "== $name: ${secs}s, seeds fuzz/corpus/$short"
  log=$build/$name.log
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/$name-" -print_final_stats=1 \
      "$build/corpus/$short" "fuzz/corpus/$short" >"$log" 2>&1; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$log" || true
  else
    echo "run-fuzz: $name FAILED (log: $log)" >&2
    tail -n 40 "$log" >&2
    status=1
  fi
done
exit $status
