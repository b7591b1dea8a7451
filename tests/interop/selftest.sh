#!/usr/bin/env bash
# Tests the interop harness against itself, without Laminar: apache-arrow's
# fixtures read back by read_check.mjs, check_ndjson.mjs and compare_csv.mjs
# (all must pass), a few corrupted expectations (all must fail), then
# tests/cases/interop.sh run against fake_convert.mjs, a stand-in for
# `laminardb convert` built on apache-arrow. Run from anywhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$here/write_fixtures.mjs" "$tmp/fx"
for e in "$tmp"/fx/*.expected.json; do
  n=${e%.expected.json}
  node "$here/read_check.mjs" --format file "$n.arrow" "$e" >/dev/null
  node "$here/read_check.mjs" --format stream "$n.arrows" "$e" >/dev/null
  node "$here/arrow_to_csv.mjs" --ndjson "$n.arrow" >"$n.ndjson"
  node "$here/check_ndjson.mjs" "$n.ndjson" "$e" >/dev/null
  node "$here/arrow_to_csv.mjs" "$n.arrows" >"$n.out.csv"
  node "$here/compare_csv.mjs" "$n.arrow" "$n.out.csv" >/dev/null
  node "$here/compare_csv.mjs" "$n.arrow" "$n.csv" >/dev/null
done
echo "selftest: fixtures read back OK"
# the checkers must catch a changed value, type, NULL and nullability
mutate() { # EXPR -> a corrupted copy of the expectation it names
  node -e 'const fs=require("fs");const [f,o,x]=process.argv.slice(1);const e=JSON.parse(fs.readFileSync(f));eval(x);fs.writeFileSync(o,JSON.stringify(e))' "$@"
}
must_fail() { if "$@" >/dev/null 2>&1; then echo "selftest: should have failed: $*"; exit 1; fi; }
fx=$tmp/fx
mutate "$fx/primitives.expected.json" "$tmp/m1.json" 'e.fields[4].values[1]="9223372036854775806"'
must_fail node "$here/read_check.mjs" "$fx/primitives.arrow" "$tmp/m1.json"
must_fail node "$here/check_ndjson.mjs" "$fx/primitives.ndjson" "$tmp/m1.json"
mutate "$fx/primitives.expected.json" "$tmp/m2.json" 'e.fields[5].values[0]="0.10000001"'
must_fail node "$here/read_check.mjs" "$fx/primitives.arrows" "$tmp/m2.json"
must_fail node "$here/check_ndjson.mjs" "$fx/primitives.ndjson" "$tmp/m2.json"
mutate "$fx/timestamps.expected.json" "$tmp/m3.json" 'e.fields[7].timezone="UTC"'
must_fail node "$here/read_check.mjs" "$fx/timestamps.arrow" "$tmp/m3.json"
mutate "$fx/timestamps.expected.json" "$tmp/m4.json" 'e.fields[2].values[1]="-2"'
must_fail node "$here/read_check.mjs" "$fx/timestamps.arrow" "$tmp/m4.json"
must_fail node "$here/check_ndjson.mjs" "$fx/timestamps.ndjson" "$tmp/m4.json"
must_fail node "$here/read_check.mjs" --loose-types "$fx/timestamps.arrow" "$tmp/m4.json"
mutate "$fx/strings.expected.json" "$tmp/m5.json" 'e.fields[0].values[0]=null'
must_fail node "$here/read_check.mjs" "$fx/strings.arrow" "$tmp/m5.json"
must_fail node "$here/check_ndjson.mjs" "$fx/strings.ndjson" "$tmp/m5.json"
mutate "$fx/not_null.expected.json" "$tmp/m6.json" 'e.fields[0].nullable=true'
must_fail node "$here/read_check.mjs" "$fx/not_null.arrow" "$tmp/m6.json"
must_fail node "$here/read_check.mjs" --format stream "$fx/not_null.arrow" "$fx/not_null.expected.json"
sed 's/0\.1,/0.1000001,/' "$fx/csv_basic.out.csv" >"$tmp/bad.csv"
must_fail node "$here/compare_csv.mjs" "$fx/csv_basic.arrow" "$tmp/bad.csv"
head -c 300 "$fx/primitives.arrows" >"$tmp/trunc.arrows"
must_fail node "$here/read_check.mjs" "$tmp/trunc.arrows" "$fx/primitives.expected.json"
echo "selftest: corrupted expectations are caught"
# the whole case against the stand-in converter
cat >"$tmp/laminardb" <<EOS
#!/usr/bin/env bash
[[ \${1:-} == convert ]] || { echo "laminardb: unknown command '\${1:-}'" >&2; exit 1; }
shift
exec node "$here/fake_convert.mjs" "\$@"
EOS
chmod +x "$tmp/laminardb"
cd "$repo" && bash tests/cases/interop.sh "$tmp/laminardb"
