#!/usr/bin/env node
// The DuckDB half of bench/flights_adhoc.sh: the queries of
// bench/flights_adhoc.sql over the same CSV, DuckDB single-threaded
// (SET threads = 1), the table in memory (CREATE TABLE ... AS read_csv).
//
//   node bench/flights_adhoc.js CSV [repetitions]
//
// Prints `load ROWS MS CPU_MS` and, per query,
// `result NAME ROWS BEST_MS MEDIAN_MS BEST_CPU_MS MEDIAN_CPU_MS` (ms of one
// run, rows fully materialized: wall clock, then the process's CPU time,
// user + sys of every thread from process.cpuUsage() = getrusage; best and
// median of the repetitions), as bench_flights_adhoc does. The CPU time
// includes node's own work for the call (result conversion to JS values,
// tiny for these results); an idle event loop costs none.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require(path.join(__dirname, '..', 'tests', 'oracle',
  'node_modules', '@duckdb', 'node-api'));

async function main() {
  const csv = process.argv[2];
  const reps = Math.max(1, parseInt(process.argv[3] || '5', 10));
  if (!csv) {
    process.stderr.write('usage: flights_adhoc.js CSV [repetitions]\n');
    process.exit(2);
  }
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run('SET threads = 1');
  await con.run("SET TimeZone = 'UTC'");
  // LM_FLIGHTS_ADHOC_SQL: another query file; its `@duckdb SQL` lines
  // (with $DATA = the first argument) replace the flights load
  const qfile = process.env.LM_FLIGHTS_ADHOC_SQL || path.join(__dirname, 'flights_adhoc.sql');
  const lines = fs.readFileSync(qfile, 'utf8').split('\n');
  const setup = lines.filter((l) => l.startsWith('@duckdb '))
    .map((l) => l.slice(8).split('$DATA').join(csv));
  let last = 'flights';
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
  let t0 = performance.now(), c0 = cpuMs();
  if (setup.length === 0) {
    await con.run(`CREATE TABLE flights AS SELECT * FROM read_csv('${csv}', header = true,
      columns = {'date': 'TIMESTAMP', 'delay': 'BIGINT', 'distance': 'BIGINT',
                 'origin': 'VARCHAR', 'destination': 'VARCHAR'})`);
  }
  for (const sql of setup) {
    await con.run(sql);
    last = sql.split(/\s+/)[2];
  }
  const load = performance.now() - t0, loadCpu = cpuMs() - c0;
  const n = (await con.runAndReadAll(`SELECT COUNT(*) FROM ${last}`)).getRows()[0][0];
  console.log(`load ${n} ${load.toFixed(1)} ${loadCpu.toFixed(1)}`);
  for (const line of lines) {
    const bar = line.indexOf('|');
    if (line.startsWith('#') || line.startsWith('@') || bar < 0) continue;
    const name = line.slice(0, bar), sql = line.slice(bar + 1);
    const ms = [], cpu = [];
    let rows = 0;
    for (let i = 0; i < reps; i++) {
      t0 = performance.now();
      c0 = cpuMs();
      const r = await con.runAndReadAll(sql);
      rows = r.getRows().length;
      ms.push(performance.now() - t0);
      cpu.push(cpuMs() - c0);
    }
    const mid = Math.floor(reps / 2);
    ms.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    console.log(`result ${name} ${rows} ${ms[0].toFixed(2)} ${ms[mid].toFixed(2)} ` +
      `${cpu[0].toFixed(2)} ${cpu[mid].toFixed(2)}`);
  }
}
main().catch((e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
