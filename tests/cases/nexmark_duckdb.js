#!/usr/bin/env node
// The DuckDB side of tests/cases/nexmark_oracle.sh, in one process: runs a
// setup script once (loading the events' CSV files into tables), then each
// job's SQL, writing the result of its last statement as CSV in
// tests/oracle/duckdb_query.js's text forms (the same functions).
//
//   node tests/cases/nexmark_duckdb.js SETUP.sql JOBS
//
// JOBS has one job per line: OUT.csv <TAB> ERR <TAB> QUERY.sql. A job that
// fails writes `duckdb: <message>` to ERR (and no OUT) and the next job
// runs. Exit status: 0, or 1 when the setup fails or a job failed.
'use strict';

const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require(
  path.join(__dirname, '../oracle/node_modules/@duckdb/node-api'));
const { fmtValue, csvField } = require('../oracle/duckdb_query.js');

async function runAll(con, sql) {
  const stmts = await con.extractStatements(sql);
  let reader = null;
  for (let i = 0; i < stmts.count; i++) {
    const prepared = await stmts.prepare(i);
    reader = await prepared.runAndReadAll();
  }
  return reader;
}

function toCsv(reader) {
  const names = reader.columnNames();
  const typeIds = reader.columnTypes().map((t) => t.typeId);
  const out = [names.map(csvField).join(',')];
  for (const row of reader.getRows())
    out.push(row.map((v, i) => csvField(fmtValue(v, typeIds[i]))).join(','));
  return out.join('\n') + '\n';
}

async function main() {
  const [setup, jobs] = process.argv.slice(2);
  if (!setup || !jobs) {
    process.stderr.write('usage: nexmark_duckdb.js SETUP.sql JOBS\n');
    process.exit(2);
  }
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  try {
    await con.run("SET TimeZone = 'UTC'");
  } catch (e) {
    // without ICU there is no TimeZone setting; TIMESTAMPTZ is UTC then
  }
  await runAll(con, fs.readFileSync(setup, 'utf8'));
  let failed = 0;
  for (const line of fs.readFileSync(jobs, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const [out, err, file] = line.split('\t');
    try {
      const reader = await runAll(con, fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(out, reader ? toCsv(reader) : '');
    } catch (e) {
      fs.writeFileSync(err, `duckdb: ${e.message}\n`);
      failed = 1;
    }
  }
  process.exitCode = failed;
}

main().catch((e) => {
  process.stderr.write(`nexmark_duckdb: ${e.stack || e}\n`);
  process.exitCode = 1;
});
