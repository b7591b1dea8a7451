// fake_convert.mjs [--from FMT] [--to FMT] IN OUT
//
// A stand-in for `laminardb convert`, written with apache-arrow, used only
// to test the interop harness itself (selftest.sh runs
// tests/cases/interop.sh against it). Formats arrow-file, arrow-stream, csv,
// json (NDJSON), from the extension (.arrow .arrows .csv .json/.ndjson)
// unless given; - is stdin/stdout. CSV and NDJSON input get inferred types:
// Bool, Int64, Float64, Timestamp(µs) or Utf8 (all NULL: Utf8).
import { writeFileSync } from 'node:fs';
import {
  A, arrowValues, buildData, csvLines, f64Text, fail, ndjsonLines, parseCsv, parseIso,
  parseJsonExact, parseNumber, readInput, runMain,
} from './lib.mjs';

const EXT = { arrow: 'arrow-file', arrows: 'arrow-stream', csv: 'csv', json: 'json', ndjson: 'json' };
const UNIT = { SECOND: A.TimeUnit.SECOND, MILLISECOND: A.TimeUnit.MILLISECOND, MICROSECOND: A.TimeUnit.MICROSECOND, NANOSECOND: A.TimeUnit.NANOSECOND };

function arrowType(d) {
  switch (d.type) {
    case 'Null': return new A.Null();
    case 'Bool': return new A.Bool();
    case 'Int8': return new A.Int8();
    case 'Int16': return new A.Int16();
    case 'Int32': return new A.Int32();
    case 'Int64': return new A.Int64();
    case 'Float32': return new A.Float32();
    case 'Float64': return new A.Float64();
    case 'Utf8': return new A.Utf8();
    case 'Timestamp': return new A.Timestamp(UNIT[d.unit], d.timezone);
    default: fail(`fake_convert: cannot write ${d.type}`);
  }
}

function cellValue(d, c) {
  if (c == null) return null;
  if (d.type === 'Bool') return c === 'true';
  if (d.type === 'Int64' || d.type === 'Timestamp') return BigInt(c);
  if (/^(Int|Float)/.test(d.type)) return Number(c);
  return c;
}

// texts: array of string|null -> {type descr, cells}
function infer(name, texts) {
  const vals = texts.filter((t) => t != null);
  const all = (p) => vals.length > 0 && vals.every(p);
  const d = { name, nullable: true };
  let conv;
  if (all((t) => /^(true|false)$/i.test(t))) { d.type = 'Bool'; conv = (t) => String(t.toLowerCase() === 'true'); }
  else if (all((t) => /^\s*[+-]?\d+\s*$/.test(t) && BigInt(t.trim()) >= -(2n ** 63n) && BigInt(t.trim()) < 2n ** 63n)) {
    d.type = 'Int64'; conv = (t) => String(BigInt(t.trim()));
  } else if (all((t) => parseNumber(t) !== undefined)) { d.type = 'Float64'; conv = (t) => f64Text(parseNumber(t)); }
  else if (all((t) => parseIso(t) != null)) {
    d.type = 'Timestamp'; d.unit = 'MICROSECOND'; d.timezone = null;
    conv = (t) => { const ns = parseIso(t).ns; return String(ns >= 0n ? ns / 1000n : -((-ns + 999n) / 1000n)); };
  } else { d.type = 'Utf8'; conv = (t) => t; }
  return { d, cells: texts.map((t) => (t == null ? null : conv(t))) };
}

function readCsv(bytes) {
  const recs = parseCsv(bytes.toString('utf8'));
  const names = recs[0].map((f) => f.text);
  const cols = names.map((n, k) => {
    const texts = recs.slice(1).map((r) => {
      const f = r[k];
      if (!f || (f.text === '' && !f.quoted)) return null;
      return f.text;
    });
    // a quoted empty field is NULL unless the column is text
    let r = infer(n, texts.map((t) => (t === '' ? null : t)));
    if (r.d.type === 'Utf8' || texts.every((t) => t == null || t === '')) r = infer(n, texts);
    if (r.d.type !== 'Utf8') r = infer(n, texts.map((t) => (t === '' ? null : t)));
    return r;
  });
  return { fields: cols.map((c) => c.d), columns: cols.map((c) => c.cells), rows: recs.length - 1 };
}

function readJson(bytes) {
  const objs = bytes.toString('utf8').split('\n').filter((l) => l !== '').map(parseJsonExact);
  const names = [];
  for (const o of objs) for (const [k] of o.v) if (!names.includes(k)) names.push(k);
  const cols = names.map((n) => {
    const toks = objs.map((o) => o.v.find(([k]) => k === n)?.[1] ?? { kind: 'null' });
    return infer(n, toks.map((t) => (t.kind === 'null' ? null : String(t.v))));
  });
  return { fields: cols.map((c) => c.d), columns: cols.map((c) => c.cells), rows: objs.length };
}

function writeArrow(v, kind) {
  const schema = new A.Schema(v.fields.map((d) => new A.Field(d.name, arrowType(d), d.nullable)));
  const batches = [];
  const size = 8192;
  for (let s = 0; s < v.rows; s += size) {
    const n = Math.min(size, v.rows - s);
    const children = v.fields.map((d, k) => buildData(arrowType(d), v.columns[k].slice(s, s + n).map((c) => cellValue(d, c))));
    batches.push(new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0, children })));
  }
  return A.tableToIPC(new A.Table(schema, batches), kind === 'arrow-file' ? 'file' : 'stream');
}

runMain('fake_convert', () => {
  const args = process.argv.slice(2);
  let from = null, to = null;
  while (args[0]?.startsWith('--')) {
    const a = args.shift();
    if (a === '--from') from = args.shift();
    else if (a === '--to') to = args.shift();
    else if (a === '--compression') args.shift();
    else fail(`unknown option ${a}`);
  }
  if (args.length !== 2) fail('usage: convert [--from FMT] [--to FMT] IN OUT');
  const [inp, outp] = args;
  from ??= EXT[inp.split('.').pop()];
  to ??= EXT[outp.split('.').pop()];
  if (!from || !to) fail('cannot tell the format');
  const bytes = readInput(inp);
  const v = from === 'csv' ? readCsv(bytes) : from === 'json' ? readJson(bytes) : arrowValues(bytes);
  let out;
  if (to === 'csv') out = csvLines(v).join('\n') + '\n';
  else if (to === 'json') out = v.rows ? ndjsonLines(v).join('\n') + '\n' : '';
  else out = writeArrow(v, to);
  if (outp === '-') process.stdout.write(out);
  else writeFileSync(outp, out);
});
