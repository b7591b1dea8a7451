#!/usr/bin/env bash
# Installs the DuckDB oracle used by differential tests (tests/oracle):
# the npm package @duckdb/node-api, pinned in tests/oracle/package.json and
# package-lock.json. Quiet when it is already installed at that version.
#
# (The older npm package `duckdb` downloads its native binary from a host
# outside the npm registry and otherwise compiles DuckDB from source; the
# @duckdb/node-api package ships the binary as an npm dependency.)
set -euo pipefail
cd "$(dirname "$0")/../tests/oracle"

want=$(node -p 'require("./package.json").dependencies["@duckdb/node-api"]')
have=$(node -p 'try { require("./node_modules/@duckdb/node-api/package.json").version } catch (e) { "" }' 2>/dev/null || true)
if [[ "$have" == "$want" ]] && node -e 'require("@duckdb/node-bindings")' >/dev/null 2>&1; then
  exit 0
fi
echo "install-oracle: installing @duckdb/node-api@$want" >&2
if [[ -f package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  npm install --no-audit --no-fund --loglevel=error >/dev/null
fi
