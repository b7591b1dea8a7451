// Shared helpers of the Arrow interop harness (see README.md in this
// directory for the value conventions). Everything here reads Arrow data
// through apache-arrow's Data objects but takes values straight from the
// buffers (validity bitmap, values, offsets, each with the Data's offset),
// so that sliced arrays and int64/timestamp values are read exactly.
import * as A from 'apache-arrow';
import { readFileSync } from 'node:fs';

export { A };

export function fail(msg) {
  const e = new Error(msg);
  e.interop = true;
  throw e;
}

// Runs main(), printing an interop failure as "PROG: message" and exiting 1.
// Under run_jobs.mjs (globalThis.interopRunner set) the promise is handed
// to the runner instead, which reports the failure and goes on.
export function runMain(prog, main) {
  if (globalThis.interopRunner) {
    globalThis.interopRunner.pending = Promise.resolve().then(main).catch((e) => {
      if (e.interop) e.message = `${prog}: ${e.message}`;
      throw e;
    });
    return;
  }
  Promise.resolve()
    .then(main)
    .then((code) => { process.exitCode = code ?? 0; })
    .catch((e) => {
      process.stderr.write(`${prog}: ${e.interop ? e.message : e.stack || e}\n`);
      process.exit(1);
    });
}

export function readInput(path) {
  return path === '-' ? readFileSync(0) : readFileSync(path);
}

// ---------------------------------------------------------------- types

const UNITS = ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'];
const UNIT_NS = [1000000000n, 1000000n, 1000n, 1n];

// A type as the expectation files spell it: {type, unit?, timezone?}.
export function describeType(t) {
  switch (t.typeId) {
    case A.Type.Null: return { type: 'Null' };
    case A.Type.Bool: return { type: 'Bool' };
    case A.Type.Int: return { type: `${t.isSigned ? 'Int' : 'UInt'}${t.bitWidth}` };
    case A.Type.Float:
      return { type: ['Float16', 'Float32', 'Float64'][t.precision] };
    case A.Type.Utf8: return { type: 'Utf8' };
    case A.Type.LargeUtf8: return { type: 'LargeUtf8' };
    case A.Type.Timestamp:
      return { type: 'Timestamp', unit: UNITS[t.unit], timezone: t.timezone ?? null };
    default:
      return { type: `unsupported:${String(t)}` };
  }
}

export function describeField(f) {
  return { name: f.name, ...describeType(f.type), nullable: f.nullable };
}

export function typeText(d) {
  return d.type === 'Timestamp'
    ? `Timestamp<${d.unit}${d.timezone == null ? '' : ', ' + d.timezone}>`
    : d.type;
}

export function sameType(a, b) {
  return a.type === b.type &&
    (a.type !== 'Timestamp' || (a.unit === b.unit && (a.timezone ?? null) === (b.timezone ?? null)));
}

const isIntType = (t) => /^U?Int\d+$/.test(t);
const isFloatType = (t) => /^Float(32|64)$/.test(t);

// ---------------------------------------------------------------- values

// Shortest decimal that reads back as the same float32 (1 to 9 significant
// digits), in JavaScript's Number-to-string form; "-0", "NaN", "Infinity",
// "-Infinity" for the special values.
export function f32Text(x) {
  x = Math.fround(x);
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x < 0 ? '-Infinity' : 'Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  for (let p = 1; p <= 9; p++) {
    const n = Number(x.toPrecision(p));
    if (Math.fround(n) === x) return String(n);
  }
  return String(x); // not reached: 9 digits always round-trip
}

// JavaScript's shortest round-trip form of a double, with "-0".
export function f64Text(x) {
  if (Object.is(x, -0)) return '-0';
  return String(x); // NaN, Infinity, -Infinity spelled as such
}

// Proleptic Gregorian date of day z since 1970-01-01 (H. Hinnant).
function civilFromDays(z) {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

// rint(): to the nearest integer, halves to even (the default rounding mode).
const rint = (x) => {
  const fl = Math.floor(x), d = x - fl;
  return d > 0.5 ? fl + 1 : d < 0.5 ? fl : fl % 2 === 0 ? fl : fl + 1;
};
// The microsecond PostgreSQL (and Laminar, src/columnar/temporal.c frac_us)
// reads from the text of instant `ns` (BigInt nanoseconds since the epoch)
// written with 9 fraction digits: the whole seconds, plus
// rint(strtod("0.<9 digits>") * 10^6) microseconds (ParseFractionalSecond).
// JavaScript's Number() parses decimal text correctly rounded, as strtod
// does, and multiplies in the same IEEE doubles.
export function usRounded(ns) {
  const sec = floorDiv(ns, 1000000000n), frac = ns - sec * 1000000000n;
  const f = Number('0.' + String(frac).padStart(9, '0')) * 1e6;
  return sec * 1000000n + BigInt(rint(f));
}
const pad = (n, w) => String(n).padStart(w, '0');

// Nanoseconds since the epoch (BigInt) -> "YYYY-MM-DDTHH:MM:SS[.ffffff]"
// (UTC, no zone); the fraction is the floor to microseconds, 6 digits,
// written only when nonzero — Laminar's text form. With nanos = true a
// nonzero sub-microsecond part is written as 9 digits instead.
export function isoFromNs(ns, nanos = false) {
  const day = 86400n * 1000000000n;
  const days = floorDiv(ns, day);
  const rem = ns - days * day; // 0 <= rem < day
  const [y, m, d] = civilFromDays(Number(days));
  const secs = Number(rem / 1000000000n);
  const fracNs = rem % 1000000000n;
  const ys = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  let s = `${ys}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(secs / 3600), 2)}:` +
    `${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}`;
  if (nanos && fracNs % 1000n !== 0n) s += '.' + pad(fracNs, 9);
  else if (fracNs / 1000n !== 0n) s += '.' + pad(fracNs / 1000n, 6);
  return s;
}

export const tsToNs = (raw, unit) => BigInt(raw) * UNIT_NS[UNITS.indexOf(unit)];

// Parses RFC 3339 / "YYYY-MM-DD HH:MM:SS[.f]" / a bare date; no zone means
// UTC. Returns {ns: BigInt, digits: number of fraction digits} or null.
export function parseIso(s) {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return null;
  const frac = m[7] ?? '';
  let ns = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + se);
  ns = ns * 1000000000n + BigInt(frac.padEnd(9, '0') || '0');
  if (m[9]) {
    const off = BigInt(Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60) * 1000000000n;
    ns = m[9] === '+' ? ns - off : ns + off;
  }
  return { ns, digits: frac.length };
}

// ---------------------------------------------------------------- reading

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bit(bytes, i) {
  return (bytes[i >> 3] >> (i & 7)) & 1;
}

// Checks the buffers of one Data against its length (what a reader must
// be able to rely on); throws on the first problem.
export function checkData(data, where) {
  const { type, offset, length } = data;
  const need = (buf, n, what) => {
    if (!buf || buf.length < n)
      fail(`${where}: ${what} buffer holds ${buf ? buf.length : 0} elements, needs ${n}`);
  };
  if (type.typeId === A.Type.Null) return;
  const bm = data.nullBitmap;
  if (bm && bm.length > 0) {
    need(bm, (offset + length + 7) >> 3, 'validity');
    let nulls = 0;
    for (let i = 0; i < length; i++) nulls += 1 - bit(bm, offset + i);
    if (data._nullCount >= 0 && data._nullCount !== nulls)
      fail(`${where}: null_count is ${data._nullCount} but the validity bitmap has ${nulls} nulls`);
  } else if (data._nullCount > 0) {
    fail(`${where}: null_count is ${data._nullCount} but there is no validity bitmap`);
  }
  if (length === 0) return;
  switch (type.typeId) {
    case A.Type.Bool: need(data.values, (offset + length + 7) >> 3, 'values'); break;
    case A.Type.Utf8:
    case A.Type.LargeUtf8: {
      const vo = data.valueOffsets;
      need(vo, offset + length + 1, 'offsets');
      let prev = Number(vo[offset]);
      if (prev < 0) fail(`${where}: negative first offset ${prev}`);
      for (let i = 1; i <= length; i++) {
        const o = Number(vo[offset + i]);
        if (o < prev) fail(`${where}: offsets decrease at row ${i - 1} (${prev} -> ${o})`);
        prev = o;
      }
      need(data.values, prev, 'data');
      break;
    }
    default: need(data.values, offset + length, 'values');
  }
}

// The value of row i of a Data as a string (the expectation convention), or
// null. Ints in decimal, floats via f32Text/f64Text, Bool "true"/"false",
// Utf8 as is, Timestamp the integer count of its unit.
export function cellText(data, i) {
  const t = data.type;
  if (t.typeId === A.Type.Null) return null;
  const j = data.offset + i;
  const bm = data.nullBitmap;
  if (bm && bm.length > 0 && !bit(bm, j)) return null;
  switch (t.typeId) {
    case A.Type.Bool: return bit(data.values, j) ? 'true' : 'false';
    case A.Type.Int:
    case A.Type.Timestamp: {
      const v = data.values;
      if (v instanceof Int32Array && (t.bitWidth === 64 || t.typeId === A.Type.Timestamp)) {
        // old-style int64 stored as pairs of int32 (little-endian)
        return String((BigInt(v[2 * j + 1]) << 32n) | BigInt(v[2 * j] >>> 0));
      }
      return String(v[j]);
    }
    case A.Type.Float:
      if (t.precision === A.Precision.HALF) return f32Text(A.util.uint16ToFloat64(data.values[j]));
      return t.precision === A.Precision.SINGLE ? f32Text(data.values[j]) : f64Text(data.values[j]);
    case A.Type.Utf8:
    case A.Type.LargeUtf8: {
      const a = Number(data.valueOffsets[j]), b = Number(data.valueOffsets[j + 1]);
      try {
        return utf8.decode(data.values.subarray(a, b));
      } catch {
        fail(`row ${i}: invalid UTF-8`);
      }
    }
    // falls through (not reached)
    default:
      fail(`unsupported type ${String(t)}`);
  }
}

// Opens an Arrow IPC file or stream. Returns {format: 'file'|'stream',
// schema, batches: [{numRows, columns: [Data]}]} with each column of a
// batch as one Data.
export function readArrow(bytes) {
  const magic = Buffer.from('ARROW1');
  const format = bytes.length >= 6 && Buffer.from(bytes.subarray(0, 6)).equals(magic) ? 'file' : 'stream';
  const reader = A.RecordBatchReader.from(bytes);
  reader.open();
  const schema = reader.schema;
  if (!schema) fail('no schema message');
  const batches = [];
  for (const rb of reader) {
    // apache-arrow yields a placeholder batch for a stream or file that has
    // none; it is not in the data
    if (rb.constructor.name === "_InternalEmptyPlaceholderRecordBatch") continue;
    const sd = rb.data;
    if (sd.children.length !== schema.fields.length)
      fail(`batch ${batches.length}: ${sd.children.length} columns, schema has ${schema.fields.length}`);
    const columns = sd.children.map((c, k) => {
      if (c.length !== rb.numRows)
        fail(`batch ${batches.length} column '${schema.fields[k].name}': length ${c.length}, batch has ${rb.numRows} rows`);
      checkData(c, `batch ${batches.length} column '${schema.fields[k].name}'`);
      return c;
    });
    batches.push({ numRows: rb.numRows, columns });
  }
  return { format, schema, batches };
}

// All of a file's values: {format, fields: [descr], batchRows, rows, columns: [[cell]]}.
export function arrowValues(bytes) {
  const { format, schema, batches } = readArrow(bytes);
  const fields = schema.fields.map(describeField);
  const columns = fields.map(() => []);
  for (const b of batches)
    b.columns.forEach((data, k) => {
      for (let i = 0; i < b.numRows; i++) columns[k].push(cellText(data, i));
    });
  return {
    format, fields, batchRows: batches.map((b) => b.numRows),
    rows: batches.reduce((n, b) => n + b.numRows, 0), columns,
  };
}

// ---------------------------------------------------------------- building

function validity(vals) {
  if (!vals.some((v) => v == null)) return [undefined, 0];
  const bm = new Uint8Array(Math.max(1, (vals.length + 7) >> 3));
  let nulls = 0;
  vals.forEach((v, i) => {
    if (v == null) nulls++;
    else bm[i >> 3] |= 1 << (i & 7);
  });
  return [bm, nulls];
}

// One column of one batch as an apache-arrow Data, built from its buffers.
// NULL slots hold junk (not zero), so a reader that ignores the validity
// bitmap is caught.
export function buildData(type, vals) {
  const length = vals.length;
  if (type.typeId === A.Type.Null) return A.makeData({ type, length, nullCount: length });
  const [nullBitmap, nullCount] = validity(vals);
  const base = { type, length, nullCount, nullBitmap };
  switch (type.typeId) {
    case A.Type.Bool: {
      const data = new Uint8Array(Math.max(1, (length + 7) >> 3));
      vals.forEach((v, i) => { if (v == null ? i % 2 === 0 : v) data[i >> 3] |= 1 << (i & 7); });
      return A.makeData({ ...base, data });
    }
    case A.Type.Int:
    case A.Type.Timestamp: {
      const T = type.typeId === A.Type.Timestamp || type.bitWidth === 64 ? BigInt64Array
        : { 8: Int8Array, 16: Int16Array, 32: Int32Array }[type.bitWidth];
      const junk = T === BigInt64Array ? 0x5555n : 0x55;
      return A.makeData({ ...base, data: T.from(vals, (v) => (v == null ? junk : T === BigInt64Array ? BigInt(v) : v)) });
    }
    case A.Type.Float: {
      const T = type.precision === A.Precision.SINGLE ? Float32Array : Float64Array;
      return A.makeData({ ...base, data: T.from(vals, (v) => (v == null ? 12345.5 : v)) });
    }
    case A.Type.Utf8: {
      const enc = new TextEncoder();
      const parts = vals.map((v) => enc.encode(v == null ? 'junk' : v));
      const valueOffsets = new Int32Array(length + 1);
      parts.forEach((p, i) => { valueOffsets[i + 1] = valueOffsets[i] + p.length; });
      const data = new Uint8Array(valueOffsets[length]);
      parts.forEach((p, i) => data.set(p, valueOffsets[i]));
      return A.makeData({ ...base, valueOffsets, data });
    }
    default:
      fail(`buildData: ${type}`);
  }
}

// ---------------------------------------------------------------- text forms

// A cell as display text (CSV, or what a text format is compared with):
// timestamps as ISO (µs, or ns when the unit is ns and there is a
// sub-microsecond part and nanos is set), everything else as its cell text.
export function displayText(field, cell, nanos = false) {
  if (cell == null) return null;
  if (field.type === 'Timestamp') return isoFromNs(tsToNs(cell, field.unit), nanos);
  return cell;
}

const NONFINITE = { nan: NaN, inf: Infinity, infinity: Infinity, '+inf': Infinity, '+infinity': Infinity, '-inf': -Infinity, '-infinity': -Infinity };

export function parseNumber(s) {
  const k = s.trim().toLowerCase();
  if (k in NONFINITE) return NONFINITE[k];
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(k)) return undefined;
  return Number(k);
}

const sameNum = (a, b) => (Number.isNaN(a) ? Number.isNaN(b) : Object.is(a, b));

// Does text `actual` (from CSV, NDJSON or another Arrow type) denote the
// expected cell of field `f`? Returns null when it does, else a reason.
// `actual` null means NULL. Tolerant of formatting (numbers parsed, floats
// compared as float32/float64 values, timestamps as instants), strict about
// values. `subUs` says how a timestamp finer than a microsecond reached
// microseconds (text with at most 6 fraction digits): 'floor' when Laminar
// printed the value (lm_format_timestamp floors to the microsecond), 'round'
// when Laminar read text with more fraction digits into a µs TIMESTAMP
// (rounded as PostgreSQL does: usRounded). Only that one value matches.
export function matchText(f, exp, actual, subUs) {
  if (exp == null) return actual == null ? null : 'expected NULL';
  if (actual == null) return 'unexpected NULL';
  const t = f.type;
  if (t === 'Utf8' || t === 'LargeUtf8') return exp === actual ? null : 'different text';
  if (t === 'Bool') {
    const k = actual.trim().toLowerCase();
    const v = ['true', 't', '1'].includes(k) ? 'true' : ['false', 'f', '0'].includes(k) ? 'false' : null;
    return v === exp ? null : 'different boolean';
  }
  if (isIntType(t)) {
    if (!/^\s*[+-]?\d+\s*$/.test(actual)) {
      // an integer that arrived as a float (e.g. a type chosen by inference)
      const n = parseNumber(actual);
      return n !== undefined && Number.isInteger(n) && BigInt(n) === BigInt(exp) &&
        Math.abs(n) <= Number.MAX_SAFE_INTEGER ? null : 'not this integer';
    }
    return BigInt(actual.trim()) === BigInt(exp) ? null : 'different integer';
  }
  if (isFloatType(t) || t === 'Float16') {
    const a = parseNumber(actual), e = Number(exp);
    if (a === undefined) return 'not a number';
    const r = t === 'Float64' ? (x) => x : Math.fround;
    return sameNum(r(a), r(e)) ? null : 'different number';
  }
  if (t === 'Timestamp') {
    let p = parseIso(actual.trim());
    if (!p) return 'not a timestamp';
    const e = tsToNs(exp, f.unit);
    // text with at most 6 fraction digits carries microseconds: compare at
    // that precision, else to the nanosecond. A nanosecond value taken into
    // microseconds is floored when Laminar printed it and rounded when
    // Laminar read its 9-digit text (subUs); exactly that instant matches.
    if (p.digits > 6) return p.ns === e ? null : 'different instant';
    if (subUs !== 'floor' && subUs !== 'round') fail(`matchText: subUs must be 'floor' or 'round', not ${subUs}`);
    const us = floorDiv(p.ns, 1000n);
    const want = subUs === 'floor' ? floorDiv(e, 1000n) : usRounded(e);
    return us === want ? null : `different instant (want ${subUs === 'floor' ? 'floored' : 'rounded'} µs ${want})`;
  }
  if (t === 'Null') return 'expected NULL';
  return `cannot compare type ${t}`;
}

// RFC 4180 field for CSV output: NULL empty, the empty string as "",
// quoted when it holds a comma, quote, CR or LF or starts/ends with a space.
export function csvField(text, isString) {
  if (text == null) return '';
  if (isString && text === '') return '""';
  if (/[",\r\n]/.test(text) || (isString && /^\s|\s$/.test(text)))
    return '"' + text.replace(/"/g, '""') + '"';
  return text;
}

// Parses RFC 4180 text into records of {text, quoted} fields.
export function parseCsv(src) {
  let s = src.charCodeAt(0) === 0xfeff ? src.slice(1) : src;
  const rows = [];
  let row = [], i = 0;
  const n = s.length;
  let line = 1;
  while (i < n) {
    let text = '', quoted = false;
    if (s[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= n) fail(`CSV line ${line}: unterminated quoted field`);
        const c = s[i++];
        if (c === '"') {
          if (s[i] === '"') { text += '"'; i++; } else break;
        } else {
          if (c === '\n') line++;
          text += c;
        }
      }
      if (i < n && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r')
        fail(`CSV line ${line}: text after a closing quote`);
    } else {
      let j = i;
      while (j < n && s[j] !== ',' && s[j] !== '\n' && s[j] !== '\r') j++;
      text = s.slice(i, j);
      if (text.includes('"')) fail(`CSV line ${line}: quote in an unquoted field`);
      i = j;
    }
    row.push({ text, quoted });
    if (i >= n) { rows.push(row); break; }
    if (s[i] === ',') { i++; if (i >= n) { row.push({ text: '', quoted: false }); rows.push(row); } continue; }
    if (s[i] === '\r') i++;
    if (s[i] === '\n') i++;
    line++;
    rows.push(row);
    row = [];
  }
  return rows;
}

// A CSV field as comparison text: unquoted empty is NULL; a quoted empty
// field is the empty string for Utf8 and NULL otherwise (Laminar's reader).
export function csvCellText(f, fld) {
  if (fld.text === '' && (!fld.quoted || !(f.type === 'Utf8' || f.type === 'LargeUtf8'))) return null;
  if (!fld.quoted && f.type !== 'Utf8' && f.type !== 'LargeUtf8' && fld.text.trim() === '') return null;
  return fld.text;
}

// ---------------------------------------------------------------- JSON

// Parses one JSON text keeping numbers as their source text:
// {kind: 'null'|'bool'|'num'|'str'|'obj'|'arr', v}. obj v is an array of
// [key, value] pairs in order.
export function parseJsonExact(s) {
  let i = 0;
  const ws = () => { while (i < s.length && ' \t\r\n'.includes(s[i])) i++; };
  const err = (m) => fail(`JSON at ${i}: ${m}`);
  function str() {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(s.slice(i));
    if (!m) err('bad string');
    i += m[0].length;
    return JSON.parse(m[0]);
  }
  function val() {
    ws();
    const c = s[i];
    if (c === '{') {
      i++; const v = []; ws();
      if (s[i] === '}') { i++; return { kind: 'obj', v }; }
      for (;;) {
        ws(); if (s[i] !== '"') err('expected a key');
        const k = str(); ws();
        if (s[i++] !== ':') err("expected ':'");
        v.push([k, val()]); ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i] === '}') { i++; return { kind: 'obj', v }; }
        err("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++; const v = []; ws();
      if (s[i] === ']') { i++; return { kind: 'arr', v }; }
      for (;;) {
        v.push(val()); ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i] === ']') { i++; return { kind: 'arr', v }; }
        err("expected ',' or ']'");
      }
    }
    if (c === '"') return { kind: 'str', v: str() };
    for (const [w, kind, v] of [['null', 'null', null], ['true', 'bool', true], ['false', 'bool', false]])
      if (s.startsWith(w, i)) { i += w.length; return { kind, v }; }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i));
    if (!m) err('unexpected character');
    i += m[0].length;
    return { kind: 'num', v: m[0] };
  }
  const v = val(); ws();
  if (i !== s.length) err('trailing text');
  return v;
}

// ---------------------------------------------------------------- writers

const isText = (f) => f.type === 'Utf8' || f.type === 'LargeUtf8';

// arrowValues() output as CSV lines (header first), arrow_to_csv.mjs's form.
export function csvLines(v) {
  const out = [v.fields.map((f) => csvField(f.name, true)).join(',')];
  for (let i = 0; i < v.rows; i++)
    out.push(v.fields.map((f, k) => csvField(displayText(f, v.columns[k][i]), isText(f))).join(','));
  return out;
}

// arrowValues() output as NDJSON lines: numbers as JSON numbers (NaN and
// Infinity as null), timestamps as displayText in quotes.
export function ndjsonLines(v) {
  const out = [];
  for (let i = 0; i < v.rows; i++)
    out.push('{' + v.fields.map((f, k) => {
      const c = v.columns[k][i];
      let j;
      if (c == null) j = 'null';
      else if (isText(f) || f.type === 'Timestamp') j = JSON.stringify(displayText(f, c, true));
      else if (/^Float/.test(f.type)) j = /^(-?Infinity|NaN)$/.test(c) ? 'null' : c;
      else j = c; // Bool, ints
      return `${JSON.stringify(f.name)}:${j}`;
    }).join(',') + '}');
  return out;
}

// Writes lines to stdout in pieces (200k rows make one string too large).
export function writeLines(lines, stream = process.stdout) {
  const chunk = 65536;
  for (let i = 0; i < lines.length; i += chunk) stream.write(lines.slice(i, i + chunk).join('\n') + '\n');
}
