// write_fixtures.mjs OUTDIR
//
// Writes Arrow IPC fixtures with apache-arrow, for Laminar to read:
//   OUTDIR/NAME.arrow          IPC file format
//   OUTDIR/NAME.arrows         IPC stream format (same schema and batches)
//   OUTDIR/NAME.csv            the same rows as CSV (header; for Laminar's
//                              CSV -> Arrow conversion; types not carried)
//   OUTDIR/NAME.expected.json  the expectation (README.md: conventions)
// The expectations are computed from the values put in, not read back, so
// `read_check.mjs OUTDIR/NAME.arrow OUTDIR/NAME.expected.json` tests
// apache-arrow's writer and the checker against each other.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { A, buildData, f32Text, f64Text, describeField, csvField, displayText, runMain, fail } from './lib.mjs';

const TS = (unit, tz = null) => new A.Timestamp(unit, tz);
const U = A.TimeUnit;

// ------------------------------------------------------------ building

// The expectation text of a value put in (README.md).
function expectedCell(type, v) {
  if (v == null) return null;
  switch (type.typeId) {
    case A.Type.Bool: return v ? 'true' : 'false';
    case A.Type.Float: return type.precision === A.Precision.SINGLE ? f32Text(v) : f64Text(v);
    default: return String(v); // ints, Utf8, Timestamp (count of its unit)
  }
}

const field = (name, type, nullable = true) => ({ name, type, nullable });

// cols: [{name, type, nullable}], batches: [[values per column]] (each batch
// an array of column value arrays). slice: optional per-batch
// {pre, post} of junk rows to build around the values and slice away.
function fixture(name, cols, batches, { slices, note } = {}) {
  const schema = new A.Schema(cols.map((c) => new A.Field(c.name, c.type, c.nullable)));
  const rbs = batches.map((cv, bi) => {
    const length = cv[0]?.length ?? 0;
    const children = cols.map((c, k) => {
      if (cv[k].length !== length) fail(`${name}: batch ${bi} column ${c.name} length`);
      const s = slices?.[bi]?.[k];
      if (!s) return buildData(c.type, cv[k]);
      // build [pre junk][values][post junk] and slice the values out
      const junk = (n) => Array.from({ length: n }, (_, i) => junkValue(c.type, i));
      const full = A.makeVector(buildData(c.type, [...junk(s[0]), ...cv[k], ...junk(s[1])]));
      const d = full.slice(s[0], s[0] + length).data[0];
      if (d.offset !== s[0]) fail(`${name}: slice did not keep an offset`);
      return d;
    });
    return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length, nullCount: 0, children }));
  });
  return { name, cols, schema, batches, rbs, note };
}

function junkValue(type, i) {
  if (i % 3 === 2) return null;
  switch (type.typeId) {
    case A.Type.Bool: return i % 2 === 0;
    case A.Type.Float: return -999.25 - i;
    case A.Type.Utf8: return `junk${i}`;
    case A.Type.Null: return null;
    default: return type.bitWidth === 8 ? -99 : 99999 + i;
  }
}

// ------------------------------------------------------------ fixtures

const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n;

// deterministic pseudo-random numbers (LCG), so fixtures never change
function rng(seed) {
  let s = BigInt(seed);
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 33n) / 2 ** 31;
  };
}

function fixtures() {
  const out = [];

  // every first type, nulls first / middle / last, bounds, a zero-length
  // batch between two others
  out.push(fixture('primitives', [
    field('b', new A.Bool()), field('i8', new A.Int8()), field('i16', new A.Int16()),
    field('i32', new A.Int32()), field('i64', new A.Int64()), field('f32', new A.Float32()),
    field('f64', new A.Float64()), field('s', new A.Utf8()), field('n', new A.Null()),
  ], [
    [
      [null, true, false, true, null, false],
      [null, -128, 127, 0, -1, 42],
      [-32768, null, 32767, 0, 1, -2],
      [-2147483648, 2147483647, null, 0, 7, null],
      [I64_MIN, I64_MAX, 0n, null, 9007199254740993n, -9007199254740993n],
      [0.1, -1.5, null, 3.4028234663852886e38, 1e-45, 16777216],
      [0.1, -0.0, 1 / 3, null, 1e300, -2.2250738585072014e-308],
      ['', 'a', 'hello, world', null, 'say "hi"', ''],
      [null, null, null, null, null, null],
    ],
    [[], [], [], [], [], [], [], [], []],
    [
      [false, false, true, true, null],
      [1, 2, 3, 4, null],
      [5, 6, 7, 8, null],
      [9, 10, 11, 12, null],
      [13n, 14n, 15n, 16n, null],
      [0.5, 0.25, 100, -0, null],
      [1e21, 1e-7, 123456789.125, 5e-324, null],
      ['x', 'yy', '', 'zzz', null],
      [null, null, null, null, null],
    ],
  ]));

  // NaN, infinities, -0, subnormals, float32 rounding
  out.push(fixture('float_special', [
    field('f32', new A.Float32()), field('f64', new A.Float64()),
  ], [[
    [NaN, Infinity, -Infinity, -0, 1.401298464324817e-45, 1.1754942106924411e-38, Math.fround(16777217), Math.fround(0.1), Math.fround(1 / 3), null],
    [NaN, Infinity, -Infinity, -0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, null],
  ]]));

  // text that writers must quote or escape, multi-byte UTF-8, long text
  out.push(fixture('strings', [
    field('s', new A.Utf8()), field('k', new A.Int32()),
  ], [[
    ['', 'plain', 'comma,inside', 'quote"inside', '"quoted"', 'line\nbreak', 'cr\r\nlf',
      'tab\tsep', 'back\\slash', ' leading', 'trailing ', 'é ñ ü', '中文字符', '😀 emoji', 'ctl\u0001\u001f',
      'nul\u0000byte', 'x'.repeat(10000), null, '', 'NULL', 'null', '\u2028\u2029'],
    Array.from({ length: 22 }, (_, i) => i),
  ]]));

  // every unit, with and without a zone; before 1970, leap days, bounds of
  // each unit's range
  const sec = [0n, -1n, 978307260n, -2208988800n, 951827696n, 253402300799n, -62135596800n, null];
  const ms = [0n, -1n, 978307260123n, -2208988800001n, 951827696789n, 253402300799999n, null, 1n];
  const us = [0n, -1n, 978307260123456n, -2208988800000001n, 951827696789012n, 253402300799999999n, -62135596800000000n, null];
  const ns = [0n, -1n, 978307260123456789n, -2208988800000000001n, 951827696789012345n, I64_MAX, null, 1000n];
  out.push(fixture('timestamps', [
    field('ts_s', TS(U.SECOND)), field('ts_ms', TS(U.MILLISECOND)),
    field('ts_us', TS(U.MICROSECOND)), field('ts_ns', TS(U.NANOSECOND)),
    field('ts_s_utc', TS(U.SECOND, 'UTC')), field('ts_ms_utc', TS(U.MILLISECOND, 'UTC')),
    field('ts_us_utc', TS(U.MICROSECOND, 'UTC')), field('ts_ns_ist', TS(U.NANOSECOND, '+05:30')),
    field('ts_us_ny', TS(U.MICROSECOND, 'America/New_York')),
  ], [
    [sec, ms, us, ns, sec, ms, us, ns, us].map((a) => a.slice(0, 5)),
    [sec, ms, us, ns, sec, ms, us, ns, us].map((a) => a.slice(5)),
  ]));

  // sliced children (offsets 3 and 13: not byte-aligned for bitmaps), and
  // a whole RecordBatch.slice
  const scols = [field('b', new A.Bool()), field('i32', new A.Int32()), field('i64', new A.Int64()),
    field('f64', new A.Float64()), field('s', new A.Utf8()), field('ts', TS(U.MICROSECOND))];
  const sb1 = [[true, null, false, true, false], [1, 2, null, 4, 5], [10n, null, 30n, 40n, 50n],
    [1.5, 2.5, 3.5, null, 5.5], ['a', '', null, 'dd', 'eee'], [1n, 2n, 3n, null, 5n]];
  const sb2 = [[null, true, true], [null, -7, 8], [-1n, -2n, null], [null, -0.5, 1e10], ['q', null, 'rr'], [-5n, null, 86400000000n]];
  const sl = fixture('sliced', scols, [sb1, sb2], {
    slices: [scols.map(() => [3, 4]), scols.map(() => [13, 2])],
  });
  out.push(sl);
  {
    // RecordBatch.slice(2, 5) of a batch of 7
    const full = fixture('x', scols, [[[true, false, null, true, false, true, true], [0, 1, 2, null, 4, 5, 6],
      [0n, 1n, 2n, 3n, null, 5n, 6n], [0, 0.5, 1, 1.5, 2, null, 3], ['z0', 'z1', 'z2', '', null, 'z5', 'z6'],
      [0n, 1n, 2n, null, 4n, 5n, 6n]]]);
    const piece = full.rbs[0].slice(2, 5);
    sl.rbs.push(piece);
    sl.batches.push(full.batches[0].map((col) => col.slice(2, 5)));
  }

  // all NULL, every type
  const acols = [field('b', new A.Bool()), field('i8', new A.Int8()), field('i16', new A.Int16()),
    field('i32', new A.Int32()), field('i64', new A.Int64()), field('f32', new A.Float32()),
    field('f64', new A.Float64()), field('s', new A.Utf8()), field('ts', TS(U.MICROSECOND)),
    field('ts_ns_utc', TS(U.NANOSECOND, 'UTC')), field('n', new A.Null())];
  out.push(fixture('all_null', acols, [4, 9].map((n) => acols.map(() => Array(n).fill(null)))));

  // zero-length batches around and between others
  const ecols = [field('b', new A.Bool()), field('i64', new A.Int64()), field('s', new A.Utf8()), field('ts', TS(U.MILLISECOND))];
  const empty = ecols.map(() => []);
  out.push(fixture('empty_batches', ecols, [empty, [[true, null], [1n, 2n], ['', 'x'], [1n, null]], empty, empty,
    [[false], [null], [null], [-1n]], empty]));

  // a schema and no batch at all
  out.push(fixture('no_batches', ecols, []));

  // NOT NULL fields (nullable = false in the schema)
  out.push(fixture('not_null', [field('id', new A.Int64(), false), field('name', new A.Utf8(), false),
    field('ok', new A.Bool(), false), field('ts', TS(U.MICROSECOND), false), field('opt', new A.Float64(), true)], [
    [[1n, 2n, 3n], ['one', '', 'three'], [true, false, true], [0n, 1n, 2n], [null, 1.25, null]],
  ]));

  // many batches of varying sizes, pseudo-random content
  {
    const r = rng(20240601);
    const cols = [field('seq', new A.Int64()), field('v', new A.Float64()), field('x', new A.Float32()),
      field('tag', new A.Utf8()), field('flag', new A.Bool()), field('ts', TS(U.MILLISECOND, 'UTC')),
      field('small', new A.Int16())];
    const batches = [];
    let seq = 0n;
    for (let b = 0; b < 25; b++) {
      const n = b === 7 ? 0 : Math.floor(r() * 1000) + 1;
      const cv = cols.map(() => []);
      for (let i = 0; i < n; i++, seq++) {
        const nul = () => r() < 0.1;
        cv[0].push(seq);
        cv[1].push(nul() ? null : (r() - 0.5) * 10 ** Math.floor(r() * 20 - 10));
        cv[2].push(nul() ? null : Math.fround((r() - 0.5) * 10 ** Math.floor(r() * 10 - 5)));
        cv[3].push(nul() ? null : ['AA', 'BBB', '', 'c,d', 'é"'][Math.floor(r() * 5)] + Math.floor(r() * 100));
        cv[4].push(nul() ? null : r() < 0.5);
        cv[5].push(nul() ? null : 978307200000n + BigInt(Math.floor(r() * 3e11)) - 10n ** 11n);
        cv[6].push(nul() ? null : Math.floor(r() * 65536) - 32768);
      }
      batches.push(cv);
    }
    out.push(fixture('many_batches', cols, batches));
  }

  // what Laminar's SQL types map to (BOOLEAN, BIGINT, DOUBLE, VARCHAR,
  // TIMESTAMP): the natural CSV round trip
  out.push(fixture('csv_basic', [field('b', new A.Bool()), field('i', new A.Int64()), field('f', new A.Float64()),
    field('s', new A.Utf8()), field('ts', TS(U.MICROSECOND))], [[
    [true, false, null, true, false, true],
    [1n, -42n, 9007199254740993n, null, 0n, I64_MIN],
    [0.1, -2.5, 1e21, 3, null, 1 / 3],
    ['hello', '', 'a,b "c"\nd', null, 'ünïcödé', ' x '],
    [978307260000000n, -1n, null, 0n, 951827696789012n, 1700000000123456n],
  ]]));

  return out;
}

// ------------------------------------------------------------ output

function expectation(fx) {
  const fields = fx.schema.fields.map(describeField);
  const rows = fx.batches.reduce((n, cv) => n + (cv[0]?.length ?? 0), 0);
  return {
    convention: 'laminar-interop/1 (tests/interop/README.md)',
    fixture: fx.name,
    note: fx.note,
    num_rows: rows,
    batch_rows: fx.batches.map((cv) => cv[0]?.length ?? 0),
    fields: fields.map((f, k) => ({
      ...f,
      values: fx.batches.flatMap((cv) => cv[k].map((v) => expectedCell(fx.cols[k].type, v))),
    })),
  };
}

function csvText(exp) {
  const lines = [exp.fields.map((f) => csvField(f.name, true)).join(',')];
  for (let i = 0; i < exp.num_rows; i++)
    lines.push(exp.fields.map((f) => {
      const t = displayText(f, f.values[i], true);
      // a float's special values in the spelling Laminar's CSV reader takes
      return csvField(t, f.type === 'Utf8');
    }).join(','));
  return lines.join('\n') + '\n';
}

runMain('write_fixtures', () => {
  const dir = process.argv[2];
  if (!dir) fail('usage: write_fixtures.mjs OUTDIR');
  mkdirSync(dir, { recursive: true });
  for (const fx of fixtures()) {
    const table = new A.Table(fx.schema, fx.rbs);
    writeFileSync(join(dir, `${fx.name}.arrow`), A.tableToIPC(table, 'file'));
    writeFileSync(join(dir, `${fx.name}.arrows`), A.tableToIPC(table, 'stream'));
    const exp = expectation(fx);
    writeFileSync(join(dir, `${fx.name}.expected.json`), JSON.stringify(exp, null, 1) + '\n');
    writeFileSync(join(dir, `${fx.name}.csv`), csvText(exp));
  }
});
