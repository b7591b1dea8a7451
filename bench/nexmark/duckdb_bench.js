#!/usr/bin/env node
// DuckDB's side of bench/nexmark/run.sh: times each query's batch equivalent
// (bench/nexmark/duckdb/qN.sql) over Nexmark events written to CSV.
//
//   node bench/nexmark/duckdb_bench.js DIR THREADS REPS q0 q1 ...
//
// DIR holds person.csv, auction.csv, bid.csv (as tests/cases/nexmark_oracle.sh
// writes them). They are loaded into in-memory tables first (not timed);
// then each query runs as CREATE OR REPLACE TEMP TABLE out AS <query> (the
// result is materialized, not just counted, so projections cannot be
// skipped), REPS times; the best wall time and the best CPU time (this
// process's user + system time, process.cpuUsage(), every thread: DuckDB's
// and node's) are printed as one line per query:
//   duckdb query=qN ms=T cpu_ms=C rows=R
// THREADS is DuckDB's `SET threads` (1 = per-core comparison). With 1 thread
// DuckDB runs the query on the one thread that calls it (no I/O threads: the
// tables are in memory), so C <= T on an idle machine; under load T grows
// (waiting for a core) and C much less: C is the per-core figure.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require(
  path.join(__dirname, '../../tests/oracle/node_modules/@duckdb/node-api'));

async function main() {
  const [dir, threads, reps, ...queries] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`SET threads = ${Number(threads) || 1}`);
  await con.run("SET TimeZone = 'UTC'");
  const tables = {
    person: `{'id':'BIGINT','name':'VARCHAR','emailAddress':'VARCHAR','creditCard':'VARCHAR',
      'city':'VARCHAR','state':'VARCHAR','dateTime':'TIMESTAMP','extra':'VARCHAR'}`,
    auction: `{'id':'BIGINT','itemName':'VARCHAR','description':'VARCHAR','initialBid':'BIGINT',
      'reserve':'BIGINT','dateTime':'TIMESTAMP','expires':'TIMESTAMP','seller':'BIGINT',
      'category':'BIGINT','extra':'VARCHAR'}`,
    bid: `{'auction':'BIGINT','bidder':'BIGINT','price':'BIGINT','channel':'VARCHAR',
      'url':'VARCHAR','dateTime':'TIMESTAMP','extra':'VARCHAR'}`,
  };
  for (const [t, cols] of Object.entries(tables)) {
    const f = path.join(dir, `${t}.csv`);
    if (!fs.existsSync(f)) continue;
    await con.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv('${f}', header=true, columns=${cols})`);
  }
  for (const q of queries) {
    // statements before the last (e.g. q18/q19 numbering the bids in file
    // order) run once, untimed; the last one is the timed query
    const stmts = fs.readFileSync(path.join(__dirname, 'duckdb', `${q}.sql`), 'utf8')
      .split(/;\s*\n/).map((x) => x.replace(/;\s*$/, '')).filter((x) => x.replace(/--.*$/gm, '').trim());
    const sql = stmts.pop();
    for (const st of stmts) await con.run(st);
    await con.run(`SET threads = ${Number(threads) || 1}`);
    let best = Infinity;
    let bestCpu = Infinity;
    let rows = 0;
    for (let i = 0; i < (Number(reps) || 3); i++) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await con.run(`CREATE OR REPLACE TEMP TABLE out AS ${sql}`);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const c = process.cpuUsage(c0);
      const cpuMs = (c.user + c.system) / 1e3;
      if (ms < best) best = ms;
      if (cpuMs < bestCpu) bestCpu = cpuMs;
    }
    const r = await con.runAndReadAll('SELECT count(*) FROM out');
    rows = Number(r.getRows()[0][0]);
    console.log(`duckdb query=${q} ms=${best.toFixed(3)} cpu_ms=${bestCpu.toFixed(3)} rows=${rows}`);
  }
}
main().catch((e) => { console.error(e.message || e); process.exit(1); });
