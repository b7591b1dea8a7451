// types.mjs — interop for the Arrow types beyond the first set (issue 3,
// item 1): unsigned ints, Float16, Decimal128, Date32, Time32/64, Duration,
// Interval(MonthDayNano), LargeUtf8, Binary, LargeBinary, FixedSizeBinary,
// List, LargeList, Struct and Dictionary (with replacement and deltas).
//
//   node types.mjs write DIR          apache-arrow writes DIR/NAME.arrow,
//                                     NAME.arrows (and NAME.zstd.arrows,
//                                     NAME.lz4.arrow when the zstd / lz4
//                                     command-line tools exist) and
//                                     NAME.expected.json
//   node types.mjs ndjson FILE EXP... checks Laminar's NDJSON of a fixture
//   node types.mjs read FILE EXP...   apache-arrow reads FILE (Arrow written
//                                     by Laminar) and checks types and values
//                                     (several FILE EXP pairs: one node run)
//
// Fixtures: `flat`, `nested`, `dict` (above), and the checker's mixes:
// `mix` (struct of list of dictionary, list of struct, large list of large
// strings, FixedSizeBinary(0), Decimal128 scale 0 and 38 at +-(10^38 - 1),
// timestamps with zones and int64 bounds, Float16 bounds and subnormal,
// int64/uint64 bounds, zero-length strings and binaries, dictionaries over
// Binary and LargeUtf8, List<Struct<List<Dictionary>>>, Float16 NaN / -0 /
// +-Infinity, Decimal128 of precision 1 and 38/37 negative, timestamps in
// the zones Asia/Kathmandu, -03:30, +14:00, Etc/GMT+12 and
// America/Argentina/Buenos_Aires, negative and extreme MonthDayNano
// intervals), `mix_empty` (the same with zero-row batches first,
// between and last), `all_null` (every nullable column of all of them,
// NULL in every row, and a Null column) and `mix_none` (schema, no batch);
// their batches are slices of one record batch (non-zero offsets).
//
// The expectation holds, per column, the apache-arrow type text, the
// nullability and each value in Laminar's text form (lm_array_format_value /
// lm_array_format_json: decimals exact, binary as \x hex, DATE "YYYY-MM-DD",
// TIME "HH:MM:SS[.f]" (no trailing zeros), DURATION "[-][N days ]HH:MM:SS[.f]", intervals
// PostgreSQL style, lists as arrays, structs as objects, dictionaries as
// their values), computed from the values put in, never read back.
// Compression: apache-arrow 21 compresses and decompresses through codecs
// registered in compressionRegistry; Node 20 has neither LZ4 frame nor
// zstd, so the codecs here run the `zstd` / `lz4` tools (skipped, with a
// note, when they are missing), except LZ4 decoding, done here in
// JavaScript (lz4FrameDecode).
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as A from 'apache-arrow';

const fail = (m) => { const e = new Error(m); e.interop = true; throw e; };

// ---------------------------------------------------------------- codecs

function haveTool(t) {
  try { execFileSync(t, ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}
const TOOLS = { zstd: haveTool('zstd'), lz4: haveTool('lz4') };
const run = (tool, args, input) => new Uint8Array(execFileSync(tool, args, { input, maxBuffer: 1 << 30 }));
// A tool run per buffer costs a process start: decoded buffers are
// remembered by their compressed bytes (all-NULL columns repeat the same
// validity bitmap, and the file and stream outputs the same buffers).
const memo = new Map();
const memoized = (f) => (d) => {
  const key = d.length <= 65536 ? Buffer.from(d.buffer, d.byteOffset, d.length).toString('latin1') : null;
  if (key !== null && memo.has(key)) return memo.get(key);
  const r = f(d);
  if (key !== null) memo.set(key, r);
  return r;
};

// LZ4 frame format (lz4_Frame_format.md) and block format
// (lz4_Block_format.md) decoder, so reading LZ4 needs no tool: frames in
// sequence (skippable ones skipped), blocks compressed or stored, linked or
// independent (matches may reach into earlier blocks of the frame),
// checksums skipped (a wrong byte shows as a wrong value in the checks).
function lz4FrameDecode(src) {
  let buf = new Uint8Array(Math.max(64, src.length * 4)), n = 0, p = 0;
  const bad = (why) => fail(`LZ4 frame: ${why} at byte ${p}`);
  const room = (k) => {
    if (n + k <= buf.length) return;
    const nb = new Uint8Array(Math.max(buf.length * 2, n + k));
    nb.set(buf.subarray(0, n));
    buf = nb;
  };
  const u32 = (i) => {
    if (i + 4 > src.length) bad('truncated');
    return (src[i] | (src[i + 1] << 8) | (src[i + 2] << 16) | (src[i + 3] << 24)) >>> 0;
  };
  const more = (s) => { // LSIC length continuation bytes
    let v = 0, b;
    do { if (s.i >= src.length) bad('truncated length'); b = src[s.i++]; v += b; } while (b === 255);
    return v;
  };
  while (p < src.length) {
    const magic = u32(p);
    p += 4;
    if ((magic & 0xfffffff0) === 0x184d2a50) { p += 4 + u32(p); continue; }
    if (magic !== 0x184d2204) bad(`magic 0x${magic.toString(16)}`);
    const flg = src[p];
    p += 2 + (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0) + 1;
    for (;;) {
      const bs = u32(p);
      p += 4;
      if (bs === 0) break;
      const size = bs & 0x7fffffff, end = p + size;
      if (end > src.length) bad('block past the end');
      if (bs & 0x80000000) {
        room(size);
        buf.set(src.subarray(p, end), n);
        n += size;
      } else {
        const s = { i: p };
        while (s.i < end) {
          const token = src[s.i++];
          let lit = token >> 4;
          if (lit === 15) lit += more(s);
          if (s.i + lit > end) bad('literals past the block');
          room(lit);
          buf.set(src.subarray(s.i, s.i + lit), n);
          n += lit;
          s.i += lit;
          if (s.i >= end) break;
          const off = src[s.i] | (src[s.i + 1] << 8);
          s.i += 2;
          let ml = token & 15;
          if (ml === 15) ml += more(s);
          ml += 4;
          if (off === 0 || off > n) bad(`match offset ${off}`);
          room(ml);
          for (let k = 0, from = n - off; k < ml; k++) buf[n++] = buf[from + k];
        }
      }
      p = end + (flg & 0x10 ? 4 : 0);
    }
    if (flg & 0x04) p += 4;
  }
  return buf.slice(0, n);
}

if (TOOLS.zstd)
  A.compressionRegistry.set(A.CompressionType.ZSTD, {
    encode: (d) => run('zstd', ['-q', '-c'], d), decode: memoized((d) => run('zstd', ['-q', '-d', '-c'], d)),
  });
A.compressionRegistry.set(A.CompressionType.LZ4_FRAME, {
  encode: (d) => (TOOLS.lz4 ? run('lz4', ['-q', '-c'], d) : fail('no lz4 tool to compress with')),
  decode: memoized(lz4FrameDecode),
});

// ---------------------------------------------------------------- text forms

const pad = (n, w) => String(n).padStart(w, '0');
const NS = { SECOND: 1000000000n, MILLISECOND: 1000000n, MICROSECOND: 1000n, NANOSECOND: 1n };
const unitName = (u) => ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'][u];

function civil(z) { // days since epoch -> [y, m, d] (H. Hinnant)
  z += 719468;
  const era = Math.floor(z / 146097), doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1, m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}
// HH:MM:SS[.f] of BigInt ns >= 0: the fraction with as many digits as it
// needs, at most 9 (PostgreSQL's TIME / INTERVAL text: 12:00:00.5)
function hmsNs(ns) {
  const secs = ns / 1000000000n, frac = ns % 1000000000n;
  let s = `${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}`;
  if (frac) s += '.' + pad(frac, 9).replace(/0+$/, '');
  return s;
}
function durationText(v, unit) {
  v = BigInt(v);
  // Duration(MICROSECOND) is Laminar's INTERVAL: PostgreSQL's text, the
  // days and the time of day each with its own sign, "day" only for +1
  // (PostgreSQL 15: SELECT interval '-1 day -1 us' is -1 days -00:00:00.000001)
  if (unit === 'MICROSECOND') {
    const perDay = 86400000000n, days = v / perDay, rem = v % perDay; // truncated
    const parts = [];
    if (days) parts.push(`${days} day${days === 1n ? '' : 's'}`);
    if (rem || !days) parts.push((rem < 0n ? '-' : '') + hmsNs((rem < 0n ? -rem : rem) * 1000n));
    return parts.join(' ');
  }
  const neg = v < 0n, a = neg ? -v : v, per = NS[unit];
  const perDay = 86400000000000n / per, days = a / perDay, rem = a % perDay;
  let s = neg ? '-' : '';
  if (days) { s += `${days} day${days === 1n ? '' : 's'}`; if (!rem) return s; s += ' '; }
  return s + hmsNs(rem * per);
}
function mdnText(months, days, ns) {
  // PostgreSQL's interval output (EncodeInterval): "-1 mons", "-1 days",
  // and a '+' before a positive field that follows a negative one
  const parts = [];
  let before = false;
  const y = Math.trunc(months / 12), mo = months % 12;
  for (const [v, u] of [[y, 'year'], [mo, 'mon'], [days, 'day']]) {
    if (!v) continue;
    parts.push(`${before && v > 0 ? '+' : ''}${v} ${u}${v === 1 ? '' : 's'}`);
    before = v < 0;
  }
  if (parts.length && ns === 0n) return parts.join(' ');
  parts.push((ns < 0n ? '-' : before ? '+' : '') + hmsNs(ns < 0n ? -ns : ns));
  return parts.join(' ');
}
function decimalText(big, scale) {
  const neg = big < 0n;
  let digits = (neg ? -big : big).toString();
  if (scale <= 0) return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  return (neg ? '-' : '') + digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
}
// Laminar's text of a timestamp (lm_format_timestamp): UTC,
// YYYY-MM-DDTHH:MM:SS, then the fraction floored to µs, 6 digits, when
// nonzero; `raw` is the count of `unit` since the epoch (BigInt text).
function tsText(raw, unit) {
  const ns = BigInt(raw) * NS[unit];
  let us = ns / 1000n;
  if (ns < 0n && ns % 1000n) us -= 1n; // floor
  let days = us / 86400000000n, rem = us % 86400000000n;
  if (rem < 0n) { rem += 86400000000n; days -= 1n; }
  const [y, m, d] = civil(Number(days));
  const secs = rem / 1000000n, frac = rem % 1000000n;
  let s = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}`;
  if (frac) s += '.' + pad(frac, 6);
  return s;
}
const hex = (u8) => '\\x' + [...u8].map((b) => pad(b.toString(16), 2)).join('');

// A value as a "jv": null | {num: text} | string | [jv] | {obj: [[k, jv]]},
// the shape of Laminar's NDJSON. `v` is apache-arrow's get() of row i of
// Data d (decimals and intervals are read from the buffers).
function jvOf(type, d, i) {
  const j = d.offset + i;
  const bm = d.nullBitmap;
  if (type.typeId === A.Type.Null) return null;
  if (bm && bm.length && !((bm[j >> 3] >> (j & 7)) & 1)) return null;
  switch (type.typeId) {
    case A.Type.Int: return { num: String(A.makeVector(d).get(i)) };
    case A.Type.Float: {
      const x = A.makeVector(d).get(i);
      return { num: Object.is(x, -0) ? '-0' : String(x), float: type.precision };
    }
    case A.Type.Decimal: {
      const w = d.values; // Uint32Array, 4 words per value
      let big = 0n;
      for (let k = 3; k >= 0; k--) big = (big << 32n) | BigInt(w[j * 4 + k]);
      big = BigInt.asIntN(128, big);
      return { num: decimalText(big, type.scale) };
    }
    case A.Type.Date: {
      const [y, m, dd] = civil(Number(d.values[j]));
      return `${pad(y, 4)}-${pad(m, 2)}-${pad(dd, 2)}`;
    }
    case A.Type.Time: return hmsNs(BigInt(d.values[j]) * NS[unitName(type.unit)]);
    case A.Type.Timestamp: return { ts: String(BigInt(d.values[j])), unit: unitName(type.unit) };
    case A.Type.Duration: return durationText(d.values[j], unitName(type.unit));
    case A.Type.Interval: {
      const v = d.values; // Int32Array: months, days, ns lo, ns hi
      const ns = BigInt.asIntN(64, (BigInt(v[j * 4 + 3] >>> 0) << 32n) | BigInt(v[j * 4 + 2] >>> 0));
      return mdnText(v[j * 4], v[j * 4 + 1], ns);
    }
    case A.Type.Utf8:
    case A.Type.LargeUtf8: return A.makeVector(d).get(i);
    case A.Type.Binary:
    case A.Type.LargeBinary:
    case A.Type.FixedSizeBinary: return hex(A.makeVector(d).get(i));
    case A.Type.Bool: return { num: String(A.makeVector(d).get(i)) };
    case A.Type.List:
    case A.Type.LargeList: {
      const o = d.valueOffsets, s = Number(o[j]), e = Number(o[j + 1]);
      const c = d.children[0];
      const out = [];
      for (let k = s; k < e; k++) out.push(jvOf(c.type, c, k - c.offset));
      return out;
    }
    case A.Type.Struct:
      return { obj: type.children.map((f, k) => [f.name, jvOf(f.type, d.children[k], j - d.children[k].offset)]) };
    case A.Type.Dictionary: {
      const dict = d.dictionary.data; // chunks
      let idx = Number(d.values[j]);
      for (const c of dict) { if (idx < c.length) return jvOf(c.type, c, idx); idx -= c.length; }
      fail(`dictionary index out of range at row ${i}`);
    }
    // falls through
    default: fail(`no text form for ${type}`);
  }
}

// Parses one NDJSON line into jvs, keeping number tokens as text.
function parseJson(s) {
  let p = 0;
  const ws = () => { while (' \t\r\n'.includes(s[p]) && p < s.length) p++; };
  const val = () => {
    ws();
    const c = s[p];
    if (c === '{') {
      p++; const obj = []; ws();
      if (s[p] === '}') { p++; return { obj }; }
      for (;;) { ws(); const k = str(); ws(); p++; const v = val(); obj.push([k, v]); ws(); if (s[p++] === '}') return { obj }; }
    }
    if (c === '[') {
      p++; const arr = []; ws();
      if (s[p] === ']') { p++; return arr; }
      for (;;) { arr.push(val()); ws(); if (s[p++] === ']') return arr; }
    }
    if (c === '"') return str();
    if (s.startsWith('null', p)) { p += 4; return null; }
    if (s.startsWith('true', p)) { p += 4; return { num: 'true' }; }
    if (s.startsWith('false', p)) { p += 5; return { num: 'false' }; }
    const m = /^-?[0-9.eE+-]+/.exec(s.slice(p));
    if (!m) fail(`bad JSON at ${p}: ${s.slice(p, p + 20)}`);
    p += m[0].length;
    return { num: m[0] };
  };
  const str = () => {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(s.slice(p));
    if (!m) fail(`bad JSON string at ${p}`);
    p += m[0].length;
    return JSON.parse(m[0]);
  };
  return val();
}

// the same half: within half a unit in the last place of b (2^-11 of |b|
// for normal halves; 2^-25, half the subnormal step 2^-24, below 2^-14)
const toHalfTol = (a, b) => Math.abs(a - b) <= Math.max(Math.abs(b) * 2 ** -10, 2 ** -25) || (Object.is(a, b));
// In NDJSON (JSON has no NaN or Infinity) a float's NaN / +-Infinity may be
// null, as check_ndjson.mjs allows; set by checkNdjson only.
let specialsAsNull = false;
const SPECIAL_FLOAT = ['NaN', 'Infinity', '-Infinity'];
function same(a, b, path) {
  if (a === null && specialsAsNull && b && b.float !== undefined && SPECIAL_FLOAT.includes(b.num)) return;
  if (a === null || b === null) { if (a !== b) fail(`${path}: ${show(a)} != expected ${show(b)}`); return; }
  if (typeof b === 'string') { if (a !== b) fail(`${path}: ${show(a)} != expected ${show(b)}`); return; }
  if (Array.isArray(b)) {
    if (!Array.isArray(a) || a.length !== b.length) fail(`${path}: ${show(a)} != expected ${show(b)}`);
    b.forEach((x, k) => same(a[k], x, `${path}[${k}]`));
    return;
  }
  if (b.ts !== undefined) { // NDJSON gives text, Arrow the raw count
    const want = tsText(b.ts, b.unit);
    if (typeof a === 'string') { if (a !== want) fail(`${path}: ${show(a)} != expected ${want} (${b.ts} ${b.unit})`); return; }
    if (!a || a.ts !== b.ts || a.unit !== b.unit) fail(`${path}: ${show(a)} != expected ${show(b)}`);
    return;
  }
  if (b.obj) {
    if (!a || !a.obj || a.obj.length !== b.obj.length) fail(`${path}: ${show(a)} != expected ${show(b)}`);
    b.obj.forEach(([k, x], n) => { if (a.obj[n][0] !== k) fail(`${path}: key ${a.obj[n][0]} != ${k}`); same(a.obj[n][1], x, `${path}.${k}`); });
    return;
  }
  // NaN and +-Infinity have no JSON number: NDJSON gives them as strings
  if (b.float !== undefined && typeof a === 'string' && SPECIAL_FLOAT.includes(a)) a = { num: a };
  if (!a || a.num === undefined) fail(`${path}: ${show(a)} != expected ${show(b)}`);
  if (b.float !== undefined) {
    const x = Number(a.num), y = Number(b.num);
    // a zero keeps its sign
    if (y === 0 && !Object.is(x, y)) fail(`${path}: ${a.num} != expected ${b.num} (the sign of zero)`);
    const ok = b.float === A.Precision.HALF ? toHalfTol(x, y)
      : b.float === A.Precision.SINGLE ? Math.fround(x) === Math.fround(y) || (isNaN(x) && isNaN(y)) : x === y || (isNaN(x) && isNaN(y));
    if (!ok) fail(`${path}: ${a.num} != expected ${b.num}`);
    return;
  }
  if (a.num !== b.num) fail(`${path}: ${a.num} != expected ${b.num}`);
}
const show = (x) => JSON.stringify(x);

// ---------------------------------------------------------------- fixtures

const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const item = (t) => new A.Field('item', t, true);

function decData(type, vals) { // BigInt values
  const n = vals.length;
  const w = new Uint32Array(n * 4);
  const bm = new Uint8Array(Math.max(1, (n + 7) >> 3));
  let nulls = 0;
  vals.forEach((v, i) => {
    if (v == null) { nulls++; w[i * 4] = 0xdead; return; }
    bm[i >> 3] |= 1 << (i & 7);
    let x = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) { w[i * 4 + k] = Number(x & 0xffffffffn); x >>= 32n; }
  });
  return A.makeData({ type, length: n, nullCount: nulls, nullBitmap: nulls ? bm : undefined, data: w });
}
function mdnData(type, vals) { // [months, days, nsBigInt]
  const n = vals.length;
  const w = new Int32Array(n * 4);
  const bm = new Uint8Array(Math.max(1, (n + 7) >> 3));
  let nulls = 0;
  vals.forEach((v, i) => {
    if (v == null) { nulls++; return; }
    bm[i >> 3] |= 1 << (i & 7);
    const ns = BigInt.asUintN(64, v[2]);
    w.set([v[0], v[1], Number(ns & 0xffffffffn) | 0, Number(ns >> 32n) | 0], i * 4);
  });
  return A.makeData({ type, length: n, nullCount: nulls, nullBitmap: nulls ? bm : undefined, data: w });
}
function tsData(type, vals) { // raw BigInt counts of the unit
  const n = vals.length;
  const w = new BigInt64Array(n);
  const bm = new Uint8Array(Math.max(1, (n + 7) >> 3));
  let nulls = 0;
  vals.forEach((v, i) => {
    if (v == null) { nulls++; w[i] = 0x5eedn; return; } // junk under NULL
    bm[i >> 3] |= 1 << (i & 7);
    w[i] = BigInt(v);
  });
  return A.makeData({ type, length: n, nullCount: nulls, nullBitmap: nulls ? bm : undefined, data: w });
}
function dataOf(type, vals) {
  if (type.typeId === A.Type.Decimal) return decData(type, vals);
  if (type.typeId === A.Type.Interval) return mdnData(type, vals);
  if (type.typeId === A.Type.Timestamp) return tsData(type, vals);
  return A.vectorFromArray(vals, type).data[0];
}

const u8 = (...b) => new Uint8Array(b);
const te = new TextEncoder();

function flatColumns() {
  return [
    [F('u8', new A.Uint8()), [0, 255, null, 7], [128, null]],
    [F('u16', new A.Uint16()), [0, 65535, 1, null], [null, 40000]],
    [F('u32', new A.Uint32()), [0, 4294967295, null, 3], [2147483648, 1]],
    [F('u64', new A.Uint64()), [0n, 18446744073709551615n, 9223372036854775808n, null], [1n, null]],
    [F('f16', new A.Float16()), [0.5, -1.25, 65504, null], [0.0009765625, -0]],
    [F('dec', new A.Decimal(2, 10, 128)), [12345n, -5n, 0n, null], [99999999n, -100n]],
    [F('dec38', new A.Decimal(10, 38, 128)), [10n ** 37n + 1n, -(10n ** 38n - 1n), null, 1n], [0n, -1n]],
    [F('dec_neg_scale', new A.Decimal(-3, 5, 128)), [12n, -7n, null, 0n], [1n, null]],
    [F('date', new A.DateDay()), [0, 86400000 * 365, -86400000, null], [86400000 * 18000, 951782400000]],
    [F('t32s', new A.TimeSecond()), [0, 86399, null, 3600], [1, 45296]],
    [F('t32ms', new A.TimeMillisecond()), [0, 86399999, 1, null], [45296789, null]],
    [F('t64us', new A.TimeMicrosecond()), [0n, 86399999999n, null, 1n], [45296789012n, 500000n]],
    [F('t64ns', new A.TimeNanosecond()), [0n, 86399999999999n, 1n, null], [45296789012345n, 1000n]],
    [F('dur_s', new A.DurationSecond()), [0n, 90061n, -1n, null], [86400n, -172801n]],
    [F('dur_ms', new A.DurationMillisecond()), [1n, -1500n, null, 86400000n], [3723004n, 0n]],
    [F('dur_us', new A.DurationMicrosecond()), [5n, -3600000000n, 86400000001n, null], [1n, null]],
    [F('dur_ns', new A.DurationNanosecond()), [1n, 1000n, -86400000000001n, null], [9223372036854775807n, 0n]],
    [F('mdn', new A.IntervalMonthDayNano()), [[1, 2, 3000000000n], [14, 0, 0n], null, [0, 0, 0n]], [[-1, -2, -1500n], [0, 3, 90061000000001n]]],
    [F('lutf8', new A.LargeUtf8()), ['', 'héllo', null, 'x'.repeat(300)], ['"quoted", comma', 'line\nbreak']],
    [F('bin', new A.Binary()), [u8(), u8(0, 1, 255), null, te.encode('abc')], [u8(0x5c), null]],
    [F('lbin', new A.LargeBinary()), [u8(9), null, u8(), u8(1, 2, 3, 4)], [u8(0xde, 0xad), u8(0)]],
    [F('fsb', new A.FixedSizeBinary(3)), [u8(1, 2, 3), null, u8(0, 0, 0), u8(255, 254, 253)], [u8(7, 7, 7), null]],
    [F('u64_nn', new A.Uint64(), false), [1n, 2n, 3n, 4n], [5n, 6n]],
  ];
}

function nestedColumns() {
  const st = new A.Struct([F('a', new A.Int32()), F('b', new A.Utf8()), F('c', new A.List(item(new A.Float64())))]);
  const ls = new A.List(item(new A.Struct([F('x', new A.Int16()), F('y', new A.Binary())])));
  return [
    [F('li', new A.List(item(new A.Int32()))), [[1, 2], null, [], [null, 3]], [[4], [5, 6, 7]]],
    [F('ls', new A.List(item(new A.Utf8()))), [['a', ''], ['b', null], null, []], [['c,"d"'], null]],
    [F('ll', new A.LargeList(item(new A.Int64()))), [[1n], [], null, [9223372036854775807n, -1n]], [null, [0n]]],
    [F('st', st), [{ a: 1, b: 'x', c: [1.5] }, null, { a: null, b: null, c: null }, { a: -7, b: 'y', c: [] }],
      [{ a: 2, b: '', c: [0.25, -1] }, null]],
    [F('lst', ls), [[{ x: 1, y: u8(1) }, null], null, [], [{ x: null, y: null }]], [[{ x: -2, y: u8() }], [null]]],
    [F('lli', new A.List(item(new A.List(item(new A.Int8()))))), [[[1], [2, 3]], null, [[]], [null]], [[[4, 5, 6]], []]],
  ];
}

// Other type mixes (the checker's list): a struct of a list of a
// dictionary, a list of structs, a large list of large strings,
// FixedSizeBinary(0), Decimal128 with scale 0 / 38 at +-(10^38 - 1),
// timestamps with zones (and int64 bounds in ns), Float16 bounds and a
// subnormal, int64 / uint64 bounds, zero-length strings and binaries,
// dictionaries over Binary (UInt32 indices) and LargeUtf8 (UInt8).
function mixColumns() {
  const dTag = new A.Dictionary(new A.Utf8(), new A.Int16(), 10);
  const sld = new A.Struct([F('tags', new A.List(item(dTag))), F('n', new A.Int32())]);
  const lsx = new A.List(item(new A.Struct([F('x', new A.Float64()), F('y', new A.LargeUtf8())])));
  const TS = (u, z) => new A.Timestamp(u, z);
  const U = A.TimeUnit;
  const D38 = 10n ** 38n - 1n;
  const dW = new A.Dictionary(new A.Utf8(), new A.Int32(), 13);
  const lsld = new A.List(item(new A.Struct([F('ws', new A.List(item(dW))), F('k', new A.Int8())])));
  return [
    [F('s_l_dict', sld), [{ tags: ['a', 'b', 'a'], n: 1 }, null, { tags: [], n: null }, { tags: null, n: 4 }],
      [{ tags: ['', 'b'], n: 5 }, { tags: [null, 'c'], n: 6 }]],
    [F('l_struct', lsx), [[{ x: 1.5, y: 'p' }], [], null, [null, { x: -0.5, y: '' }]], [[{ x: null, y: 'é' }], null]],
    [F('ll_lutf8', new A.LargeList(item(new A.LargeUtf8()))), [['', 'a'], [], null, [null]], [['x'.repeat(100)], ['', '']]],
    [F('fsb0', new A.FixedSizeBinary(0)), [u8(), null, u8(), u8()], [u8(), null]],
    [F('dec_s0', new A.Decimal(0, 38, 128)), [-D38, D38, null, -1n], [0n, 12345678901234567890123n]],
    [F('dec_s38', new A.Decimal(38, 38, 128)), [1n, -D38, null, 0n], [-1n, 10n ** 37n]],
    [F('ts_ns_paris', TS(U.NANOSECOND, 'Europe/Paris')), [-1n, 0n, null, 1700000000123456789n],
      [9223372036854775807n, -9223372036854775807n]],
    [F('ts_s_ist', TS(U.SECOND, '+05:30')), [0n, -62135596800n, null, 253402300799n], [1n, -1n]],
    [F('ts_ms', TS(U.MILLISECOND)), [-1n, 1n, 86400000n, null], [null, 951782400000n]],
    [F('ts_us_utc', TS(U.MICROSECOND, 'UTC')), [null, -1n, 1n, 1700000000000001n], [0n, 999999n]],
    [F('f16', new A.Float16()), [65504, -65504, null, 6.103515625e-05], [5.960464477539063e-08, 1]],
    [F('u64max', new A.Uint64()), [18446744073709551615n, 0n, null, 1n], [18446744073709551614n, null]],
    [F('i64', new A.Int64()), [-9223372036854775808n, 9223372036854775807n, null, 0n], [-1n, 1n]],
    [F('bin0', new A.Binary()), [u8(), u8(), null, u8(0)], [u8(), null]],
    [F('utf8_0', new A.Utf8()), ['', '', null, ' '], ['', null]],
    [F('d_bin', new A.Dictionary(new A.Binary(), new A.Uint32(), 11)), [u8(1), u8(), null, u8(1)], [u8(2), u8()]],
    [F('d_lutf8', new A.Dictionary(new A.LargeUtf8(), new A.Uint8(), 12)), ['', 'q', 'q', null], [null, 'r']],
    // List<Struct<List<Dictionary>>>: a dictionary four levels down
    [F('l_s_l_dict', lsld), [[{ ws: ['x', 'y'], k: 1 }, null], [], null, [{ ws: [], k: null }, { ws: null, k: -1 }]],
      [[{ ws: [null, 'x', ''], k: 2 }], [null]]],
    // Float16 specials: NaN, -0, +-Infinity
    [F('f16_sp', new A.Float16()), [NaN, -0, null, 0], [Infinity, -Infinity]],
    // Decimal128 at the precision bounds: 1 digit (scale 0 and 1) and
    // 38 digits with scale 37, negative values
    [F('dec_p1', new A.Decimal(0, 1, 128)), [-9n, 9n, null, 0n], [-1n, 1n]],
    [F('dec_p1s1', new A.Decimal(1, 1, 128)), [-9n, 9n, null, -1n], [5n, 0n]],
    [F('dec_p38s37', new A.Decimal(37, 38, 128)), [-D38, D38, null, -(10n ** 37n)], [-1n, 10n ** 37n + 5n]],
    // more zone strings: offsets west and with 45 / 30 minutes, +14:00,
    // Etc/GMT+12 (POSIX sign: UTC-12), a three-part zone name
    [F('ts_us_ktm', TS(U.MICROSECOND, 'Asia/Kathmandu')), [0n, -1n, null, 1700000000000000n], [1n, 86400000000n]],
    [F('ts_ms_m0330', TS(U.MILLISECOND, '-03:30')), [-1n, 0n, null, 951782400000n], [1n, null]],
    [F('ts_s_p14', TS(U.SECOND, '+14:00')), [0n, 1n, null, -1n], [253402300799n, -62135596800n]],
    [F('ts_ns_gmt12', TS(U.NANOSECOND, 'Etc/GMT+12')), [1n, -1n, null, 0n], [1700000000000000001n, null]],
    [F('ts_ms_ba', TS(U.MILLISECOND, 'America/Argentina/Buenos_Aires')), [0n, 86400000n, null, -86400001n], [1n, -1n]],
    // Interval(MonthDayNano) negative, mixed signs and at the field bounds
    [F('mdn_neg', new A.IntervalMonthDayNano()),
      [[-14, -3, -1n], [1, -1, 0n], null, [0, 0, -86400000000000n]],
      [[-2147483648, -2147483648, -9223372036854775808n], [2147483647, 2147483647, 9223372036854775807n]]],
  ];
}

// Batches that share one set of dictionaries (the file format cannot
// replace one): every row is built once as a single record batch, and the
// fixture's batches are slices of it (non-zero offsets). `shape` lists the
// batches as [start, end) row ranges of [b1 rows][b2 rows][b1 rows 1..2].
function sharedFixture(name, cols, shape) {
  const schema = new A.Schema(cols.map((c) => c[0]));
  const n1 = cols[0][1].length, n2 = cols[0][2].length;
  const all = cols.map((c) => [...c[1], ...c[2], c[1][1], c[1][2]]);
  const kids = cols.map((c, k) => dataOf(c[0].type, all[k]));
  const big = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: all[0].length, nullCount: 0, children: kids }));
  const ranges = shape(n1, n2, all[0].length);
  const rbs = ranges.map(([s, e]) => big.slice(s, e));
  const rows = [];
  for (const [s, e] of ranges)
    for (let i = s; i < e; i++) rows.push(cols.map((c, k) => all[k][i]));
  return { name, schema, rbs, rows };
}

// Every column of `flat`, `nested` and `mix` with NULL in every row
// (batches of 3, 0 and 2 rows; NULL slots hold junk where a builder
// leaves any).
function allNullColumns() {
  const cols = [...flatColumns(), ...nestedColumns(), ...mixColumns()].filter((c) => c[0].nullable);
  cols.push([F('n', new A.Null()), [], []]);
  return cols.map(([f]) => [f, [null, null, null], [null, null]]);
}

function expectedOf(type, v) { // jv of a JS input value
  if (v == null) return null;
  switch (type.typeId) {
    case A.Type.Int: return { num: String(v) };
    case A.Type.Float: return { num: Object.is(v, -0) ? '-0' : String(v), float: type.precision };
    case A.Type.Bool: return { num: String(v) };
    case A.Type.Decimal: return { num: decimalText(BigInt(v), type.scale) };
    case A.Type.Date: {
      const [y, m, d] = civil(Math.floor(v / 86400000));
      return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
    }
    case A.Type.Time: return hmsNs(BigInt(v) * NS[unitName(type.unit)]);
    case A.Type.Timestamp: return { ts: String(BigInt(v)), unit: unitName(type.unit) };
    case A.Type.Duration: return durationText(v, unitName(type.unit));
    case A.Type.Interval: return mdnText(v[0], v[1], v[2]);
    case A.Type.Utf8:
    case A.Type.LargeUtf8: return v;
    case A.Type.Binary:
    case A.Type.LargeBinary:
    case A.Type.FixedSizeBinary: return hex(v);
    case A.Type.List:
    case A.Type.LargeList: return v.map((x) => expectedOf(type.children[0].type, x));
    case A.Type.Struct: return { obj: type.children.map((f) => [f.name, expectedOf(f.type, v[f.name])]) };
    case A.Type.Dictionary: return expectedOf(type.dictionary, v);
    default: fail(`no expectation for ${type}`);
  }
}

// cols: [[field, batch1 values, batch2 values]]: two batches, the second
// built inside a longer one and sliced (non-zero offsets), plus a whole
// RecordBatch.slice of the first.
function fixture(name, cols) {
  const schema = new A.Schema(cols.map((c) => c[0]));
  const mk = (vals) => {
    const len = vals[0].length;
    const kids = cols.map((c, k) => dataOf(c[0].type, vals[k]));
    return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: len, nullCount: 0, children: kids }));
  };
  const b1 = cols.map((c) => c[1]);
  // batch 2: [b1 rows][b2 rows], sliced to the b2 rows
  const both = mk(cols.map((c) => [...c[1], ...c[2]]));
  const n1 = cols[0][1].length, n2 = cols[0][2].length;
  const b2 = both.slice(n1, n1 + n2);
  const b3 = mk(b1).slice(1, 3);
  const rbs = [mk(b1), b2, b3];
  const rows = [
    ...b1[0].map((_, i) => cols.map((c) => c[1][i])),
    ...cols[0][2].map((_, i) => cols.map((c) => c[2][i])),
    ...[1, 2].map((i) => cols.map((c) => c[1][i])),
  ];
  return { name, schema, rbs, rows };
}

// Dictionaries: batches sharing a growing dictionary (apache-arrow writes
// deltas or replacements itself) and a replaced one.
function dictFixture() {
  const t1 = new A.Dictionary(new A.Utf8(), new A.Int8(), 0);
  const t2 = new A.Dictionary(new A.Int64(), new A.Uint16(), 1);
  const t3 = new A.Dictionary(new A.DateDay(), new A.Int32(), 2);
  const schema = new A.Schema([F('d_utf8', t1), F('d_i64', t2), F('d_date', t3)]);
  const dv1 = A.vectorFromArray(['apple', 'banana', ''], new A.Utf8());
  const dv1b = dv1.concat(A.vectorFromArray(['cherry'], new A.Utf8())); // a delta
  const dv1c = A.vectorFromArray(['zeta', 'apple'], new A.Utf8()); // replaces
  const dv2 = A.vectorFromArray([10n, -20n, 9223372036854775807n], new A.Int64());
  const dv3 = A.vectorFromArray([0, 86400000 * 10000], new A.DateDay());
  const idx = (T, a) => {
    const bm = new Uint8Array(Math.max(1, (a.length + 7) >> 3));
    let nulls = 0;
    a.forEach((x, i) => { if (x == null) nulls++; else bm[i >> 3] |= 1 << (i & 7); });
    return { data: T.from(a, (x) => x ?? 0), nullBitmap: nulls ? bm : undefined, nullCount: nulls, length: a.length };
  };
  const col = (type, dv, ixs, T) => A.makeData({ type, ...idx(T, ixs), dictionary: dv });
  const batches = [
    [[0, 1, null, 2], [2, 0, 1, null], [1, null, 0, 0]],
    [[3, 0, 3, null], [1, 1, 0, 2], [0, 1, 1, null]],
    [[1, 0, null, 0], [null, 2, 2, 0], [1, 1, 0, 0]],
  ];
  const dicts = [[dv1, dv2, dv3], [dv1b, dv2, dv3], [dv1c, dv2, dv3]];
  const rbs = batches.map((b, k) => new A.RecordBatch(schema, A.makeData({
    type: new A.Struct(schema.fields), length: 4, nullCount: 0,
    children: [col(t1, dicts[k][0], b[0], Int8Array), col(t2, dicts[k][1], b[1], Uint16Array), col(t3, dicts[k][2], b[2], Int32Array)],
  })));
  const rows = [];
  batches.forEach((b, k) => {
    for (let i = 0; i < 4; i++)
      rows.push(b.map((ixs, c) => (ixs[i] == null ? null : dicts[k][c].get(ixs[i]))));
  });
  return { name: 'dict', schema, rbs, rows, streamOnly: true };
}

function expectation(fx) {
  return {
    fixture: fx.name,
    fields: fx.schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable })),
    rows: fx.rows.map((r) => r.map((v, k) => expectedOf(fx.schema.fields[k].type, v))),
  };
}

function writeAll(dir) {
  mkdirSync(dir, { recursive: true });
  const mix = mixColumns();
  const fxs = [fixture('flat', flatColumns()), fixture('nested', nestedColumns()), dictFixture(),
    sharedFixture('mix', mix, (n1, n2, n) => [[0, n1], [n1, n1 + n2], [n1 + n2, n]]),
    // zero-row batches first, between and last
    sharedFixture('mix_empty', mix, (n1, n2, n) => [[0, 0], [0, n1], [n1, n1], [n1, n1], [n1, n], [n, n]]),
    sharedFixture('all_null', allNullColumns(), (n1, n2, n) => [[0, n1], [n1, n1], [n1, n1 + n2]]),
    // a schema and no batch at all
    { ...sharedFixture('mix_none', mix, () => []), rbs: [] }];
  const notes = [];
  for (const fx of fxs) {
    const table = new A.Table(fx.schema, fx.rbs);
    writeFileSync(join(dir, `${fx.name}.arrows`), A.tableToIPC(table, 'stream'));
    if (!fx.streamOnly) writeFileSync(join(dir, `${fx.name}.arrow`), A.tableToIPC(table, 'file'));
    else {
      // the file format cannot replace a dictionary: the first two batches
      const t2 = new A.Table(fx.schema, fx.rbs.slice(0, 2));
      writeFileSync(join(dir, `${fx.name}.arrow`), A.tableToIPC(t2, 'file'));
      const e2 = expectation({ ...fx, rows: fx.rows.slice(0, 8) });
      writeFileSync(join(dir, `${fx.name}_file.expected.json`), JSON.stringify(e2) + '\n');
    }
    // apache-arrow's compressed files (saved in fixtures/ for
    // test_ipc_hostile; not read by interop.sh): slow, a tool per buffer,
    // so only with LM_INTEROP_COMPRESSED=1
    for (const [tool, ct, ext] of [['zstd', A.CompressionType.ZSTD, 'zstd.arrows'], ['lz4', A.CompressionType.LZ4_FRAME, 'lz4.arrow']]) {
      if (!process.env.LM_INTEROP_COMPRESSED) continue;
      if (fx.streamOnly || !['flat', 'nested'].includes(fx.name)) continue;
      if (!TOOLS[tool]) { notes.push(`no ${tool} tool: ${fx.name}.${ext} not written`); continue; }
      const W = ext.endsWith('arrows') ? A.RecordBatchStreamWriter : A.RecordBatchFileWriter;
      const w = new W({ compressionType: ct });
      w.writeAll(table);
      writeFileSync(join(dir, `${fx.name}.${ext}`), w.toUint8Array(true));
    }
    writeFileSync(join(dir, `${fx.name}.expected.json`), JSON.stringify(expectation(fx)) + '\n');
  }
  for (const n of notes) console.log(`note: ${n}`);
}

// ---------------------------------------------------------------- checks

function checkNdjson(file, expFile) {
  specialsAsNull = true;
  const exp = JSON.parse(readFileSync(expFile, 'utf8'));
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length);
  if (lines.length !== exp.rows.length) fail(`${lines.length} lines, expected ${exp.rows.length}`);
  lines.forEach((l, r) => {
    const o = parseJson(l);
    if (!o.obj) fail(`line ${r + 1} is not an object`);
    exp.fields.forEach((f, k) => {
      const kv = o.obj.find(([n]) => n === f.name);
      if (!kv) fail(`line ${r + 1}: no key ${f.name}`);
      same(kv[1], exp.rows[r][k], `row ${r} ${f.name}`);
    });
  });
}

function checkArrow(file, expFile) {
  specialsAsNull = false; // (a module instance may serve several checks)
  const exp = JSON.parse(readFileSync(expFile, 'utf8'));
  const bytes = readFileSync(file);
  const reader = A.RecordBatchReader.from(bytes);
  reader.open();
  const schema = reader.schema;
  exp.fields.forEach((f, k) => {
    const g = schema.fields[k];
    if (!g || g.name !== f.name || String(g.type) !== f.type || g.nullable !== f.nullable)
      fail(`field ${k}: ${g ? `${g.name} ${g.type} nullable=${g.nullable}` : 'missing'}, expected ${f.name} ${f.type} nullable=${f.nullable}`);
  });
  let r = 0;
  for (const rb of reader) {
    if (rb.constructor.name === '_InternalEmptyPlaceholderRecordBatch') continue;
    for (let i = 0; i < rb.numRows; i++, r++) {
      if (r >= exp.rows.length) fail(`more rows than the ${exp.rows.length} expected`);
      exp.fields.forEach((f, k) => {
        const d = rb.data.children[k];
        same(jvOf(d.type, d, i), exp.rows[r][k], `row ${r} ${f.name}`);
      });
    }
  }
  if (r !== exp.rows.length) fail(`${r} rows, expected ${exp.rows.length}`);
}

// edge.mjs imports the fixture builders and checkers; the command line
// runs only when this file is the script (node types.mjs, run_jobs.mjs)
export {
  A, F, item, u8, fail, TOOLS, dataOf, expectedOf, expectation, fixture, sharedFixture,
  checkNdjson, checkArrow, flatColumns, nestedColumns, mixColumns, tsText,
};
const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) try {
  // ndjson / read take one or more FILE EXPECTED pairs (one node start
  // for many checks); the first failing pair names its file
  const [cmd, ...args] = process.argv.slice(2);
  const pairs = (f) => {
    if (!args.length || args.length % 2) fail(`usage: types.mjs ${cmd} FILE EXPECTED [FILE EXPECTED]...`);
    for (let k = 0; k < args.length; k += 2) {
      try { f(args[k], args[k + 1]); } catch (e) { if (e.interop) e.message = `${args[k]}: ${e.message}`; throw e; }
    }
  };
  if (cmd === 'write') writeAll(args[0]);
  else if (cmd === 'ndjson') pairs(checkNdjson);
  else if (cmd === 'read') pairs(checkArrow);
  else fail('usage: types.mjs write DIR | ndjson FILE EXPECTED... | read FILE EXPECTED...');
} catch (e) {
  process.stderr.write(`types.mjs: ${e.interop ? e.message : e.stack}\n`);
  process.exit(1);
}
