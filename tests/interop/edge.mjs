// edge.mjs — the issue owner's acceptance list (issue 3, "What I will
// check"), as apache-arrow files the other fixtures do not already cover:
//
//   node edge.mjs write DIR           apache-arrow writes DIR/NAME.arrow and
//                                     NAME.arrows, plain and compressed
//                                     (NAME.zstd.arrow[s], NAME.lz4.arrow[s]),
//                                     and NAME.expected.json
//   node edge.mjs ndjson FILE EXP...  checks Laminar's NDJSON (types.mjs)
//   node edge.mjs read FILE EXP...    apache-arrow reads Laminar's Arrow
//   node edge.mjs sql FILE EXP...     checks the NDJSON of SELECT * over a
//                                     FILES source (FORMAT ARROW_IPC) whose
//                                     columns edge.mjs sqlcols NAME printed
//   node edge.mjs sqlcols NAME        the CREATE SOURCE column list of NAME
//
// Fixtures (batches are slices of one record batch: non-zero offsets):
//  `edge`: Dictionary<LargeUtf8> with Int8 indices, Timestamp of every
//    unit with and without zones (America/New_York, Asia/Tokyo, UTC,
//    -09:30), Duration of every unit at its extremes, Float16, Decimal128
//    of precision 38 (scales 0, 10, 38), Interval(MonthDayNano),
//    List<Struct<a, List<Struct<c, Float64>>>>, Struct with a Null and a
//    Bool child, List<Null>, a Bool column, zero-length strings, column
//    names with spaces, quotes and non-ASCII letters;
//  `edge_empty`: the same, zero-row batches first, between and last;
//  `edge_none`: its schema and no batch;
//  `edge_null`: every column NULL in every row;
//  `edge_big`: 70,001 rows (batches of 1, 65,537 and 4,463 rows), strings
//    of 0..40 bytes (~1.4 MB), a dictionary of 100 LargeUtf8 values with
//    Int8 indices, NULL every 7th row.
// Each is also written compressed by apache-arrow (ZSTD and LZ4 frame,
// file and stream; the codecs run the `zstd` / `lz4` tools, once per file). apache-arrow 21's compressing writer puts the compressed length
// in each buffer's prefix (apache/arrow-js#470); Laminar reads that too.
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import {
  A, F, item, fail, TOOLS, sharedFixture, expectation, checkNdjson, checkArrow, tsText,
} from './types.mjs';

const U = A.TimeUnit;
const TS = (u, z) => new A.Timestamp(u, z);

function edgeColumns() {
  const inner = new A.Struct([F('c', new A.Utf8()), F('d', new A.Float64())]);
  const ls = new A.List(item(new A.Struct([F('a', new A.Int32()), F('b', new A.List(item(inner)))])));
  const I64MAX = 9223372036854775807n, I64MIN = -9223372036854775808n;
  return [
    [F('d_lutf8_i8', new A.Dictionary(new A.LargeUtf8(), new A.Int8(), 20)), ['', 'é', null, 'long'.repeat(40)], ['é', '']],
    [F('ts_s', TS(U.SECOND)), [0n, -1n, null, 253402300799n], [-62135596800n, 1n]],
    [F('ts_s_ny', TS(U.SECOND, 'America/New_York')), [1710054000n, null, 0n, -1n], [1699164000n, 1n]],
    [F('ts_ms', TS(U.MILLISECOND)), [1n, null, -86400001n, 0n], [951782400000n, -1n]],
    [F('ts_ms_tokyo', TS(U.MILLISECOND, 'Asia/Tokyo')), [0n, 1700000000999n, null, -1n], [1n, null]],
    [F('ts_us', TS(U.MICROSECOND)), [null, 0n, -1n, 1700000000000001n], [86399999999n, 1n]],
    [F('ts_us_m0930', TS(U.MICROSECOND, '-09:30')), [1n, -1n, null, 0n], [1700000000123456n, null]],
    [F('ts_ns', TS(U.NANOSECOND)), [I64MAX, I64MIN + 1n, null, -1n], [1n, 999n]],
    [F('ts_ns_utc', TS(U.NANOSECOND, 'UTC')), [0n, null, 1700000000123456789n, -999n], [-1000n, 1001n]],
    [F('dur_s', new A.DurationSecond()), [I64MAX / 1000000n, -1n, null, 0n], [86399n, -86400n]],
    [F('dur_ms', new A.DurationMillisecond()), [-1n, 86400001n, null, 0n], [I64MAX / 1000n, 1n]],
    [F('dur_us', new A.DurationMicrosecond()), [0n, I64MAX, null, -86400000000n], [1n, -1n]],
    [F('dur_ns', new A.DurationNanosecond()), [I64MIN + 1n, 1n, null, 1000n], [I64MAX, -1n]],
    [F('f16', new A.Float16()), [0.333251953125, -2, null, 1024], [0.000060975551605224609, -0]],
    [F('dec38_0', new A.Decimal(0, 38, 128)), [10n ** 38n - 1n, -(10n ** 38n - 1n), null, 0n], [1n, -1n]],
    [F('dec38_10', new A.Decimal(10, 38, 128)), [12345678901234567890123456789012345678n, -1n, null, 10n ** 10n], [5n, -(10n ** 37n)]],
    [F('dec38_38', new A.Decimal(38, 38, 128)), [10n ** 38n - 1n, null, -(10n ** 37n), 1n], [0n, -5n]],
    [F('mdn', new A.IntervalMonthDayNano()), [[0, 0, 1n], [-1, 31, -1n], null, [1200, -30, 86400000000000n]], [[0, 0, 0n], [12, 0, 0n]]],
    [F('l_s_l_s', ls), [[{ a: 1, b: [{ c: 'x', d: 123.45 }, null] }, null], [], null, [{ a: null, b: null }, { a: -1, b: [] }]],
      [[{ a: 2, b: [{ c: '', d: -0.5 }, { c: null, d: null }] }], [null, null]]],
    [F('s_null_bool', new A.Struct([F('n', new A.Null()), F('b', new A.Bool())])), [{ n: null, b: true }, null, { n: null, b: null }, { n: null, b: false }],
      [{ n: null, b: false }, null]],
    [F('l_null', new A.List(item(new A.Null()))), [[null, null], [], null, [null]], [[], [null, null, null]]],
    [F('b', new A.Bool()), [true, false, null, true], [false, null]],
    [F('sp ace "q",é', new A.Utf8()), ['', 'a,b', null, '"'], ['', 'ü\n']],
    [F('i8_nn', new A.Int8(), false), [-128, 127, 0, -1], [1, 2]],
  ];
}

// 70,001 rows; NULL every 7th row (not in `seq`)
function bigColumns(n) {
  const seq = [], s = [], d = [], f = [], b = [];
  const words = Array.from({ length: 100 }, (_, k) => `w${k}`.repeat(k % 5));
  for (let i = 0; i < n; i++) {
    const nul = i % 7 === 3;
    seq.push(BigInt(i) * 1000003n - 35000000000n);
    s.push(nul ? null : 'abcdefghijklmnopqrstuvwxyz0123456789ABCD'.slice(0, (i * 13) % 41));
    d.push(nul ? null : words[(i * 7) % 100]);
    f.push(nul ? null : i / 8 - 4000);
    b.push(nul ? null : (i % 3 === 0));
  }
  const split = (v) => [v, []];
  return [
    [F('seq', new A.Int64(), false), ...split(seq)],
    [F('s', new A.Utf8()), ...split(s)],
    [F('d', new A.Dictionary(new A.LargeUtf8(), new A.Int8(), 30)), ...split(d)],
    [F('f', new A.Float64()), ...split(f)],
    [F('b', new A.Bool()), ...split(b)],
  ];
}

// SQL column types for a FILES source (FORMAT ARROW_IPC) over `edge`:
// types SQL has keep their type; the others are read as VARCHAR, their
// text form (docs/ipc.md; src/columnar/lm_conform.h)
const SQL_TYPES = {
  ts_s: 'TIMESTAMP', ts_ms: 'TIMESTAMP', ts_us: 'TIMESTAMP', ts_ns: 'TIMESTAMP',
  ts_s_ny: 'TIMESTAMPTZ', ts_ms_tokyo: 'TIMESTAMP', ts_us_m0930: 'TIMESTAMP', ts_ns_utc: 'TIMESTAMPTZ',
  dur_s: 'VARCHAR', dur_ms: 'VARCHAR', dur_us: 'VARCHAR', dur_ns: 'VARCHAR',
  f16: 'REAL', dec38_0: 'DECIMAL(38,0)', dec38_10: 'DECIMAL(38,10)', dec38_38: 'DECIMAL(38,38)',
  b: 'BOOLEAN', i8_nn: 'TINYINT', seq: 'BIGINT', f: 'DOUBLE',
};
const sqlCols = (fields) => fields.map((f) => `"${f.name.replace(/"/g, '""')}" ${SQL_TYPES[f.name] || 'VARCHAR'}`).join(', ');

// apache-arrow compresses buffer by buffer through a synchronous codec; a
// tool run per buffer is slow, so the writes go twice: the first records
// every buffer (storing it uncompressed), one `zstd` / `lz4` run then
// compresses them all (each as its own frame), and the second write looks
// its buffers up.
function precompress(tool, writeIt) {
  const seen = new Map();
  const key = (d) => Buffer.from(d.buffer, d.byteOffset, d.length).toString('latin1');
  const ct = tool === 'zstd' ? A.CompressionType.ZSTD : A.CompressionType.LZ4_FRAME;
  const prev = A.compressionRegistry.get(ct);
  // apache-arrow's check of a codec encodes [1..8] and wants the frame's
  // magic; the first pass answers with a frame header longer than the input
  // (so the writer stores the buffer uncompressed)
  const magic = tool === 'zstd' ? [40, 181, 47, 253] : [4, 34, 77, 24, 0x40];
  const probe = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
  seen.set(key(probe), null);
  A.compressionRegistry.set(ct, {
    encode: (d) => { seen.set(key(d), null); const o = new Uint8Array(d.length + 16); o.set(magic); return o; },
    decode: prev.decode,
  });
  writeIt();
  const tmp = mkdtempSync(join(tmpdir(), 'edge-'));
  try {
    const names = [];
    [...seen.keys()].forEach((k, n) => { names.push(join(tmp, `b${n}`)); writeFileSync(names[n], Buffer.from(k, 'latin1')); });
    if (names.length) execFileSync(tool, tool === 'zstd' ? ['-q', '-f', ...names] : ['-q', '-f', '-m', ...names]);
    [...seen.keys()].forEach((k, n) => seen.set(k, new Uint8Array(readFileSync(`${names[n]}.${tool === 'zstd' ? 'zst' : 'lz4'}`))));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  A.compressionRegistry.set(ct, {
    encode: (d) => seen.get(key(d)) || fail('a buffer the first pass did not see'), decode: prev.decode,
  });
  try { writeIt(); } finally { A.compressionRegistry.set(ct, prev); }
}

function writeAll(dir) {
  const cols = edgeColumns();
  const whole = (n1, n2, n) => [[0, n1], [n1, n1 + n2], [n1 + n2, n]];
  const fxs = [
    sharedFixture('edge', cols, whole),
    sharedFixture('edge_empty', cols, (n1, n2, n) => [[0, 0], [0, n1], [n1, n1], [n1, n], [n, n]]),
    { ...sharedFixture('edge_none', cols, () => []), rbs: [] },
    sharedFixture('edge_null', cols.filter((c) => c[0].nullable).map(([f]) => [f, [null, null, null], [null]]), whole),
    sharedFixture('edge_big', bigColumns(70001 - 2), () => [[0, 1], [1, 65538], [65538, 70001]]),
  ];
  const notes = [];
  for (const fx of fxs) {
    const table = new A.Table(fx.schema, fx.rbs);
    writeFileSync(join(dir, `${fx.name}.arrows`), A.tableToIPC(table, 'stream'));
    writeFileSync(join(dir, `${fx.name}.arrow`), A.tableToIPC(table, 'file'));
    for (const [tool, ct] of [['zstd', A.CompressionType.ZSTD], ['lz4', A.CompressionType.LZ4_FRAME]]) {
      if (!TOOLS[tool]) { notes.push(`no ${tool} tool: ${fx.name}.${tool}.* not written`); continue; }
      for (const [W, ext] of [[A.RecordBatchStreamWriter, 'arrows'], [A.RecordBatchFileWriter, 'arrow']]) {
        precompress(tool, () => {
          const w = new W({ compressionType: ct });
          w.writeAll(table);
          writeFileSync(join(dir, `${fx.name}.${tool}.${ext}`), w.toUint8Array(true));
        });
      }
    }
    writeFileSync(join(dir, `${fx.name}.expected.json`), JSON.stringify(expectation(fx)) + '\n');
    writeFileSync(join(dir, `${fx.name}.sqlcols`), sqlCols(fx.schema.fields) + '\n');
  }
  for (const n of notes) console.log(`note: ${n}`);
}

// The NDJSON of `SELECT *` over a FILES source declared with SQL_TYPES:
// columns read as VARCHAR hold the value's text (a list or struct as its
// JSON text); TIMESTAMP columns are µs (floored); Duration(µs) (Laminar's
// INTERVAL) read as VARCHAR is PostgreSQL's interval text; REAL a float32;
// DECIMAL exact.
function checkSql(file, expFile) {
  const exp = JSON.parse(readFileSync(expFile, 'utf8'));
  exp.rows = exp.rows.map((r) => r.map((v, k) => {
    const t = SQL_TYPES[exp.fields[k].name] || 'VARCHAR';
    if (v === null) return null;
    if (t === 'VARCHAR' && typeof v === 'object') return textOf(v); // a list or struct
    if (t === 'REAL' && v.float !== undefined) return { ...v, float: A.Precision.HALF }; // a half read as float32
    // TIMESTAMPTZ prints as PostgreSQL does in the session zone UTC:
    // "2024-03-10 07:00:00+00", fraction without trailing zeros
    if (t === 'TIMESTAMPTZ') return tsText(v.ts, v.unit).replace('T', ' ').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') + '+00';
    return v;
  }));
  const e2 = `${file}.expected.json`;
  writeFileSync(e2, JSON.stringify(exp) + '\n');
  checkNdjson(file, e2);
}
// Laminar's text of a nested value (lm_array_format_value): JSON with ", "
// and ": " separators; numbers bare, strings quoted
function textOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return '[' + v.map(textOf).join(', ') + ']';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v.obj) return '{' + v.obj.map(([k, x]) => `${JSON.stringify(k)}: ${textOf(x)}`).join(', ') + '}';
  if (v.ts !== undefined) fail('no text form for a timestamp inside a nested value here');
  return v.num;
}

try {
  const [cmd, ...args] = process.argv.slice(2);
  const pairs = (f) => {
    if (!args.length || args.length % 2) fail(`usage: edge.mjs ${cmd} FILE EXPECTED [FILE EXPECTED]...`);
    for (let k = 0; k < args.length; k += 2) {
      try { f(args[k], args[k + 1]); } catch (e) { if (e.interop) e.message = `${args[k]}: ${e.message}`; throw e; }
    }
  };
  if (cmd === 'write') writeAll(args[0]);
  else if (cmd === 'ndjson') pairs(checkNdjson);
  else if (cmd === 'read') pairs(checkArrow);
  else if (cmd === 'sql') pairs(checkSql);
  else fail('usage: edge.mjs write DIR | ndjson FILE EXPECTED... | read FILE EXPECTED... | sql FILE EXPECTED...');
} catch (e) {
  process.stderr.write(`edge.mjs: ${e.interop ? e.message : e.stack}\n`);
  process.exit(1);
}
