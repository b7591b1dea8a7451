// check_ndjson.mjs FILE.json EXPECTED.json
//
// Checks NDJSON (one object per line, as `laminardb convert X.arrow X.json`
// writes) against an expectation from write_fixtures.mjs/make_expected.mjs:
// one line per row, in order; each object has exactly the expectation's
// fields as keys, in schema order; each value, by the field's type:
//   NULL          JSON null
//   Bool          true / false
//   Int8..Int64   a JSON integer, compared exactly (no float rounding)
//   Float32/64    a JSON number, parsed and compared as float32/float64
//                 (so any round-tripping spelling passes; -0 must keep its
//                 sign); NaN and ±Infinity, which JSON cannot write, must be
//                 null or the strings "NaN", "Infinity", "-Infinity"
//   Utf8          a JSON string, equal after unescaping
//   Timestamp     a JSON string, RFC 3339 / ISO text (zone optional, none =
//                 UTC), compared as an instant: to the microsecond (floor)
//                 when it has at most 6 fraction digits, else to the ns
// Numbers are taken from the source text (not JSON.parse), so int64 values
// beyond 2^53 are compared exactly. Exits 1 with the first mismatch.
import { readFileSync } from 'node:fs';
import { fail, matchText, parseJsonExact, readInput, runMain, typeText } from './lib.mjs';

const SPECIAL = new Set(['NaN', 'Infinity', '-Infinity']);

runMain('check_ndjson', () => {
  const [file, expFile] = process.argv.slice(2);
  if (!expFile) fail('usage: check_ndjson.mjs FILE.json EXPECTED.json');
  const exp = JSON.parse(readFileSync(expFile, 'utf8'));
  const text = readInput(file).toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else if (lines.length > 0) fail(`${file}: the last line has no line break`);
  if (lines.length !== exp.num_rows) fail(`${file}: ${lines.length} lines, expected ${exp.num_rows} rows`);
  const names = exp.fields.map((f) => f.name);
  let lenient = 0;
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    let obj;
    try {
      obj = parseJsonExact(line.endsWith('\r') ? line.slice(0, -1) : line);
    } catch (e) {
      fail(`${at}: ${e.message}`);
    }
    if (obj.kind !== 'obj') fail(`${at}: not a JSON object`);
    const keys = obj.v.map(([k]) => k);
    if (JSON.stringify(keys) !== JSON.stringify(names))
      fail(`${at}: keys ${JSON.stringify(keys)}, expected ${JSON.stringify(names)}`);
    exp.fields.forEach((f, k) => {
      const want = f.values[i];
      const tok = obj.v[k][1];
      let why = null;
      if (want != null && /^Float/.test(f.type) && SPECIAL.has(want)) {
        // not representable as a JSON number
        const ok = tok.kind === 'null' || (tok.kind === 'str' && tok.v === want);
        if (!ok) why = `${want} must be null or "${want}"`;
        else if (tok.kind === 'null') lenient++;
      } else if (tok.kind === 'null') {
        why = matchText(f, want, null, 'floor');
      } else {
        const kindOk = {
          Bool: tok.kind === 'bool', Utf8: tok.kind === 'str', LargeUtf8: tok.kind === 'str',
          Timestamp: tok.kind === 'str', Null: false,
        }[f.type] ?? tok.kind === 'num';
        if (!kindOk) why = `a JSON ${tok.kind} for a ${typeText(f)}`;
        else why = matchText(f, want, String(tok.v), 'floor');
      }
      if (why)
        fail(`${at}: column '${f.name}' (${typeText(f)}): ${why}: got ${tok.kind === 'num' ? tok.v : JSON.stringify(tok.v)}, ` +
          `expected ${JSON.stringify(want)}`);
    });
  });
  process.stdout.write(`check_ndjson: ${file}: ${lines.length} rows x ${names.length} columns OK` +
    (lenient ? ` (${lenient} NaN/Infinity values written as null)` : '') + '\n');
});
