#!/usr/bin/env node
// DuckDB oracle for Laminar's differential tests.
//
//   node tests/oracle/duckdb_query.js [--no-header] 'SQL'
//   node tests/oracle/duckdb_query.js [--no-header] -f query.sql
//   echo 'SQL' | node tests/oracle/duckdb_query.js -
//
// Runs SQL (one or more ';'-separated statements) in a fresh in-memory
// DuckDB (session time zone UTC) and prints the result of the last statement
// as RFC 4180 CSV with a header line, in the text forms Laminar prints:
//   - NULL as an empty field; the empty string as "" (quoted);
//   - integers (any width, DECIMAL too) in decimal;
//   - DOUBLE as JavaScript's shortest round-trip text (17 significant digits
//     at most, exponent form like 1e+21 for very large/small magnitudes),
//     NaN as nan, infinities as inf / -inf; FLOAT likewise for float32;
//   - TIMESTAMP / TIMESTAMPTZ (as a UTC instant) as YYYY-MM-DDTHH:MM:SS with
//     .ffffff appended when the microseconds are not zero; DATE as YYYY-MM-DD;
//   - BOOLEAN as true / false; anything else as DuckDB's own text.
// Exit status: 0 on success, 1 on a SQL error (message on stderr), 2 on
// usage errors. The SQL usually reads ../shared/data/*.csv with read_csv.
'use strict';

const fs = require('fs');
const { DuckDBInstance, DuckDBTypeId } = require('@duckdb/node-api');

function usage() {
  process.stderr.write(
    "usage: duckdb_query.js [--no-header] ('SQL' | -f FILE | -)\n");
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { header: true, sql: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-header') opts.header = false;
    else if (a === '-f') {
      if (i + 1 >= argv.length) usage();
      opts.sql = fs.readFileSync(argv[++i], 'utf8');
    } else if (a === '-') opts.sql = fs.readFileSync(0, 'utf8');
    else if (opts.sql === null) opts.sql = a;
    else usage();
  }
  if (opts.sql === null) usage();
  return opts;
}

const pad = (n, w) => String(n).padStart(w, '0');

// Days since 1970-01-01 -> [y, m, d] (proleptic Gregorian; H. Hinnant's
// civil_from_days).
function civilFromDays(z) {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe =
    Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) -
                Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}

function fmtDate(days) {
  const [y, m, d] = civilFromDays(days);
  const ys = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  return `${ys}-${pad(m, 2)}-${pad(d, 2)}`;
}

const US_PER_DAY = 86400000000n;

// micros (BigInt) since the epoch -> YYYY-MM-DDTHH:MM:SS[.ffffff]
function fmtTimestampMicros(us) {
  let days = us / US_PER_DAY;
  let rem = us % US_PER_DAY;
  if (rem < 0n) {
    rem += US_PER_DAY;
    days -= 1n;
  }
  const secs = Number(rem / 1000000n);
  const frac = Number(rem % 1000000n);
  let s = `${fmtDate(Number(days))}T${pad(Math.floor(secs / 3600), 2)}:` +
          `${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}`;
  if (frac !== 0) s += '.' + pad(frac, 6);
  return s;
}

function fmtDouble(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return String(x); // shortest round-trip
}

function fmtFloat32(x) {
  if (!Number.isFinite(x) || x === 0) return fmtDouble(x);
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

function fmtValue(v, typeId) {
  if (v === null || v === undefined) return null;
  switch (typeId) {
  case DuckDBTypeId.BOOLEAN:
    return v ? 'true' : 'false';
  case DuckDBTypeId.DOUBLE:
    return fmtDouble(v);
  case DuckDBTypeId.FLOAT:
    return fmtFloat32(v);
  case DuckDBTypeId.DATE:
    return v.isFinite === false ? v.toString() : fmtDate(v.days);
  case DuckDBTypeId.TIMESTAMP:
  case DuckDBTypeId.TIMESTAMP_TZ:
    return v.isFinite === false ? v.toString() : fmtTimestampMicros(v.micros);
  case DuckDBTypeId.TIMESTAMP_S:
    return v.isFinite === false ? v.toString()
                                : fmtTimestampMicros(v.seconds * 1000000n);
  case DuckDBTypeId.TIMESTAMP_MS:
    return v.isFinite === false ? v.toString()
                                : fmtTimestampMicros(v.millis * 1000n);
  case DuckDBTypeId.TIMESTAMP_NS:
    if (v.isFinite === false) return v.toString();
    {
      // floor to µs, as Laminar stores µs
      let us = v.nanos / 1000n;
      if (v.nanos < 0n && v.nanos % 1000n !== 0n) us -= 1n;
      return fmtTimestampMicros(us);
    }
  default:
    return typeof v === 'string' ? v : String(v);
  }
}

function csvField(s) {
  if (s === null) return '';
  if (s === '' || /[",\r\n]/.test(s)) return '"' + s.replace(/"/g, '""') + '"';
  return s;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  let reader = null;
  try {
    try {
      await con.run("SET TimeZone = 'UTC'");
    } catch (e) {
      // without ICU there is no TimeZone setting; TIMESTAMPTZ is UTC then
    }
    const stmts = await con.extractStatements(opts.sql);
    for (let i = 0; i < stmts.count; i++) {
      const prepared = await stmts.prepare(i);
      reader = await prepared.runAndReadAll();
    }
  } catch (e) {
    process.stderr.write(`duckdb: ${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  if (reader === null) return;
  const names = reader.columnNames();
  const typeIds = reader.columnTypes().map((t) => t.typeId);
  const out = [];
  if (opts.header) out.push(names.map(csvField).join(','));
  for (const row of reader.getRows()) {
    out.push(row.map((v, i) => csvField(fmtValue(v, typeIds[i]))).join(','));
  }
  if (out.length) process.stdout.write(out.join('\n') + '\n');
}

// required as a module (tests/cases/nexmark_duckdb.js): the value formats
// only
if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`duckdb_query: ${e.stack || e}\n`);
    process.exitCode = 1;
  });
}
module.exports = { fmtValue, csvField };
