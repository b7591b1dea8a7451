#!/usr/bin/env bash
# laminardb convert over transports (issue 3, items 5 and 7): flights-200k
# as an Arrow stream over TCP loopback, over a Unix socket and over a pipe,
# CSV over TCP with the listener on the writing side, each compared with a
# direct conversion; a stale Unix socket file replaced (a live one kept),
# an accept timeout; then the error cases (no format for a socket,
# arrow-file over a socket, bad URLs, connection refused).
# Usage: bash tests/cases/convert_transport.sh path/to/laminardb  (repo root)
# Listeners start in the background; readiness is a bounded poll of
# /proc/net/{tcp,tcp6,unix}; every command runs under `timeout`.
set -euo pipefail
B=${1:-build/laminardb}
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
D=../shared/data
IN=$D/flights-200k.csv
TO="timeout 120"

$TO "$B" convert "$IN" "$T/direct.csv"

# True if something listens on TCP port $1 (any local address).
tcp_listening() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
                    END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# True if something listens on the Unix socket path $1.
unix_listening() {
  awk -v p="$1" '$8 == p && $4 == "00010000" { f = 1 } END { exit !f }' \
    /proc/net/unix
}
# wait_ready PID CHECK ARG: polls (at most ~30 s) until CHECK ARG holds;
# fails when the listener PID exits first.
wait_ready() {
  local i
  for ((i = 0; i < 600; i++)); do
    "$2" "$3" && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.05
  done
  echo "listener $1 not ready after 30 s" >&2
  return 1
}

# start_tcp_listener CMD...: runs "CMD with @PORT@ replaced" in the
# background on the first free port of a range; sets PORT and LPID.
start_tcp_listener() {
  local port base=$((20000 + RANDOM % 20000))
  for ((port = base; port < base + 50; port++)); do
    tcp_listening "$port" && continue
    local args=("${@//@PORT@/$port}")
    $TO "${args[@]}" 2>"$T/listener.err" &
    LPID=$!
    if wait_ready "$LPID" tcp_listening "$port"; then
      PORT=$port
      PIDS+=("$LPID")
      return 0
    fi
    wait "$LPID" || true
    grep -q "in use" "$T/listener.err" && continue
    cat "$T/listener.err" >&2
    return 1
  done
  echo "no free TCP port in $base..$((base + 49))" >&2
  return 1
}

# 1. TCP: the reader listens, the writer connects, Arrow stream on the wire.
start_tcp_listener "$B" convert tcp-listen://127.0.0.1:@PORT@ \
  --from arrow-stream "$T/tcp.csv"
$TO "$B" convert "$IN" "tcp://127.0.0.1:$PORT" --to arrow-stream
wait "$LPID"
cmp "$T/direct.csv" "$T/tcp.csv"
echo "ok tcp arrow-stream (port $PORT)"

# 2. TCP the other way round: the writer listens, the reader connects; CSV
#    on the wire, NDJSON out.
start_tcp_listener "$B" convert "$IN" tcp-listen://127.0.0.1:@PORT@ --to csv
$TO "$B" convert "tcp://127.0.0.1:$PORT" --from csv "$T/tcp2.json"
wait "$LPID"
$TO "$B" convert "$IN" "$T/direct.json"
cmp "$T/direct.json" "$T/tcp2.json"
echo "ok tcp csv, listening writer"

# 3. Unix domain socket; the socket file is removed afterwards.
S=$T/conv.sock
$TO "$B" convert "unix-listen://$S" --from arrow-stream "$T/unix.csv" \
  2>"$T/listener.err" &
LPID=$!
PIDS+=("$LPID")
wait_ready "$LPID" unix_listening "$S" || { cat "$T/listener.err" >&2; exit 1; }
$TO "$B" convert "$IN" "unix://$S" --to arrow-stream --compression zstd
wait "$LPID"
cmp "$T/direct.csv" "$T/unix.csv"
test ! -e "$S"
echo "ok unix arrow-stream (zstd)"

# 3b. A stale socket file (its listener killed) is replaced by the next
# listener; a live one is not (the second listener fails, the first works).
$TO "$B" convert "unix-listen://$S" --from arrow-stream "$T/unix2.csv" \
  2>"$T/listener.err" &
LPID=$!
PIDS+=("$LPID")
wait_ready "$LPID" unix_listening "$S" || { cat "$T/listener.err" >&2; exit 1; }
if $TO "$B" convert "unix-listen://$S" --from arrow-stream "$T/x.csv" \
  2>"$T/err"; then
  echo "a live socket was replaced" >&2
  exit 1
fi
grep -qF "$S is a socket another process is listening on" "$T/err"
# kill laminardb itself (the child of `timeout`), as a crash would
CPID=$(pgrep -P "$LPID")
kill -KILL "$CPID"
wait "$LPID" 2>/dev/null || true
test -S "$S" # left behind by the killed listener
$TO "$B" convert "unix-listen://$S" --from arrow-stream "$T/unix2.csv" \
  2>"$T/listener.err" &
LPID=$!
PIDS+=("$LPID")
wait_ready "$LPID" unix_listening "$S" || { cat "$T/listener.err" >&2; exit 1; }
$TO "$B" convert "$IN" "unix://$S" --to arrow-stream
wait "$LPID"
cmp "$T/direct.csv" "$T/unix2.csv"
test ! -e "$S"
echo "ok stale unix socket replaced, live one kept"

# 3c. Timeouts: a listener nobody connects to gives up with a clear error.
if $TO "$B" convert --accept-timeout 300 "unix-listen://$S" \
  --from arrow-stream "$T/x.csv" 2>"$T/err"; then
  echo "accept timeout ignored" >&2
  exit 1
fi
grep -qF "unix-listen://$S: accept: no peer connected within 300 ms (accept timeout)" "$T/err"
test ! -e "$S"
echo "ok accept timeout"

# 4. A pipe.
$TO "$B" convert "$IN" - --to arrow-stream |
  $TO "$B" convert --from arrow-stream - "$T/pipe.csv"
cmp "$T/direct.csv" "$T/pipe.csv"
echo "ok pipe"

# 5. Errors: exit 1 with a clear message.
expect_fail() { # expect_fail TEXT CMD...
  local want=$1
  shift
  if $TO "$@" >"$T/out" 2>"$T/err"; then
    echo "expected failure: $*" >&2
    exit 1
  fi
  if ! grep -qF -- "$want" "$T/err"; then
    echo "message for '$*' lacks '$want':" >&2
    cat "$T/err" >&2
    exit 1
  fi
}
expect_fail "cannot tell the format of 'tcp://127.0.0.1:$PORT' from the endpoint; use --to" \
  "$B" convert "$IN" "tcp://127.0.0.1:$PORT"
expect_fail "cannot tell the format of 'tcp-listen://127.0.0.1:$PORT' from the endpoint; use --from" \
  "$B" convert "tcp-listen://127.0.0.1:$PORT" "$T/x.csv"
expect_fail "arrow-file needs a regular file" \
  "$B" convert "$IN" "tcp://127.0.0.1:$PORT" --to arrow-file
expect_fail "arrow-file needs a regular file" \
  "$B" convert "unix://$S" "$T/x.csv" --from arrow-file
expect_fail "missing port" "$B" convert "$IN" tcp://127.0.0.1 --to csv
expect_fail "unsupported scheme 'http'" "$B" convert "$IN" http://x:1 --to csv
expect_fail "absolute path" "$B" convert "$IN" unix://rel.sock --to csv
# the listener of step 2 is gone: nothing accepts on $PORT any more
tcp_listening "$PORT" ||
  expect_fail "tcp://127.0.0.1:$PORT: connect: Connection refused" \
    "$B" convert "$IN" "tcp://127.0.0.1:$PORT" --to csv
expect_fail "unix://$S: connect: No such file or directory" \
  "$B" convert "$IN" "unix://$S" --to csv
# a stream cut short on the wire: the listening reader fails naming it
$TO "$B" convert "$IN" - --to arrow-stream 2>/dev/null |
  head -c 100000 >"$T/cut.arrows" || true
start_tcp_listener "$B" convert tcp-listen://127.0.0.1:@PORT@ \
  --from arrow-stream "$T/cut.csv"
cat "$T/cut.arrows" >"/dev/tcp/127.0.0.1/$PORT" # raw bytes (bash /dev/tcp)
if wait "$LPID"; then
  echo "truncated stream accepted" >&2
  exit 1
fi
grep -q "tcp-listen://127.0.0.1:$PORT: byte [0-9]*: truncated message" \
  "$T/listener.err" || { cat "$T/listener.err" >&2; exit 1; }
# a reader that stops early: the writer fails with an error, not a signal
rc=0
$TO "$B" convert "$IN" - --to csv 2>"$T/err" | head -c 100 >/dev/null || rc=$?
grep -q "<stdout>: write: Broken pipe" "$T/err"
echo "ok errors"
