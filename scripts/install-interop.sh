#!/usr/bin/env bash
# Installs apache-arrow, the JavaScript Arrow implementation that Laminar's
# interop tests (tests/interop, tests/cases/interop.sh) read and write Arrow
# IPC with: the npm package pinned in tests/interop/package.json and
# package-lock.json. Quiet when it is already installed at that version.
set -euo pipefail
cd "$(dirname "$0")/../tests/interop"

want=$(node -p 'require("./package.json").dependencies["apache-arrow"]')
have=$(node -p 'try { require("./node_modules/apache-arrow/package.json").version } catch (e) { "" }' 2>/dev/null || true)
if [[ "$have" == "$want" ]] && node -e 'require("apache-arrow")' >/dev/null 2>&1; then
  exit 0
fi
echo "install-interop: installing apache-arrow@$want" >&2
if [[ -f package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  npm install --no-audit --no-fund --loglevel=error >/dev/null
fi
