#!/usr/bin/env bash
# Installs the Debian 12 packages that building and testing Laminar need.
# Idempotent and silent when everything is already present: it asks dpkg
# first and only runs apt-get for what is missing.
#
#   build-essential cmake   C17 toolchain (gcc 12, with libquadmath: numeric
#                           sqrt / ln / exp / power) and the build system
#   clang-14 clang          the libFuzzer build (make fuzz) and clang checks
#   libclang-rt-14-dev      clang's sanitizer and libFuzzer runtimes
#   clang-format            make format
#   nodejs npm              the DuckDB oracle (tests/oracle, npm package)
#   python3                 row comparison in the acceptance cases (tests/cases)
#   libzstd-dev liblz4-dev  Arrow IPC body compression (ZSTD, LZ4_FRAME)
#   libpcre2-dev            regular expressions (regexp_extract)
#   nettle-dev pkg-config   md5() and sha256() (Nettle), found by CMake's
#                           pkg-config module
#   tzdata                  the time zone database (/usr/share/zoneinfo) that
#                           SET TIME ZONE and TIMESTAMPTZ read (docs/timezones.md)
#   libc-bin                zdump, the oracle of tests/unit/test_tz.c
#   postgresql-15 postgresql-client-15
#                           the PostgreSQL oracle of the randomized differential
#                           test (tests/diff: postgres/initdb/pg_ctl and psql)
#
# Add a package here when a test starts needing one.
set -euo pipefail

PACKAGES=(build-essential cmake clang-14 clang libclang-rt-14-dev clang-format python3 libzstd-dev liblz4-dev
  libpcre2-dev nettle-dev pkg-config tzdata libc-bin ca-certificates postgresql-15 postgresql-client-15)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
  [[ "$status" == ii* ]] || missing+=("$p")
done
# Node.js: any installed node + npm will do (NodeSource's nodejs package
# ships npm itself and conflicts with Debian's npm package).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

((${#missing[@]} == 0)) && exit 0

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  SUDO=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
