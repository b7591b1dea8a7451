#!/usr/bin/env node
// The DuckDB half of bench/srf_series.sh: SELECT sum(g) FROM
// generate_series(1, N) t(g), DuckDB single-threaded (SET threads = 1).
//
//   node bench/srf_series.js N
//
// Prints `duckdb ROWS MS SUM` (wall-clock ms of one run of the query).
'use strict';
const path = require('path');
const { DuckDBInstance } = require(path.join(__dirname, '..', 'tests', 'oracle',
  'node_modules', '@duckdb', 'node-api'));

async function main() {
  const n = parseInt(process.argv[2] || '100000000', 10);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run('SET threads = 1');
  const t0 = performance.now();
  const r = await con.runAndReadAll(`SELECT sum(g) FROM generate_series(1, ${n}) t(g)`);
  const ms = performance.now() - t0;
  process.stdout.write(`duckdb ${n} ${ms.toFixed(0)} ${r.getRows()[0][0]}\n`);
}
main().catch((e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
