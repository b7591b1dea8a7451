// run_jobs.mjs JOBFILE
//
// Runs many interop scripts in one node process (node's start and
// apache-arrow's import cost ~0.6 s of CPU each, the largest part of
// tests/cases/interop.sh when every check started its own node).
// JOBFILE holds one job per line, tab-separated:
//   ID <TAB> [>OUTFILE <TAB>] [!]SCRIPT <TAB> ARG <TAB> ARG ...
// (a leading ! inverts the job: it passes when the script fails, for
// controls that a checker notices a planted change). SCRIPT is one of this directory's scripts (check_ndjson.mjs,
// read_check.mjs, compare_csv.mjs, arrow_to_csv.mjs, make_expected.mjs,
// types.mjs, batch_metadata.mjs, write_fixtures.mjs); each job runs it
// exactly as `node SCRIPT ARG...` would (a fresh module instance, its own
// process.argv), its stdout written to OUTFILE when given. No argument
// may be `-` (stdin). Jobs run in order; for each one a line
//   ID <TAB> ok        or        ID <TAB> FAIL <TAB> MESSAGE
// goes to stdout (MESSAGE: the script's error text and what it wrote to
// stderr, newlines as " | "). Exits 0 when every job passed, else 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const jobs = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l !== '');

class Exit extends Error {
  constructor(code) { super(`exit(${code})`); this.code = code; }
}

const realOut = process.stdout.write.bind(process.stdout);
const realErr = process.stderr.write.bind(process.stderr);
const realExit = process.exit;
const argv0 = process.argv.slice(0, 1);
let failed = 0;

for (let n = 0; n < jobs.length; n++) {
  const f = jobs[n].split('\t');
  const id = f.shift();
  const outFile = f[0].startsWith('>') ? f.shift().slice(1) : null;
  let [script, ...args] = f;
  const invert = script.startsWith('!');
  if (invert) script = script.slice(1);
  const out = [], err = [];
  process.stdout.write = (s) => { out.push(String(s)); return true; };
  process.stderr.write = (s) => { err.push(String(s)); return true; };
  process.exit = (code) => { throw new Exit(code ?? 0); };
  process.argv = [...argv0, join(here, script), ...args];
  process.exitCode = undefined;
  globalThis.interopRunner = { pending: null };
  let why = null;
  const t0 = performance.now();
  try {
    await import(`${pathToFileURL(join(here, script)).href}?job=${n}`);
    if (globalThis.interopRunner.pending) await globalThis.interopRunner.pending;
    if (process.exitCode) why = `exit code ${process.exitCode}`;
  } catch (e) {
    if (!(e instanceof Exit && e.code === 0))
      why = e instanceof Exit ? `exit(${e.code})` : e.interop ? e.message : (e.stack || String(e));
  }
  if (invert) why = why ? null : 'the check passed, but it was to fail';
  process.stdout.write = realOut;
  process.stderr.write = realErr;
  process.exit = realExit;
  process.exitCode = undefined;
  if (!why && outFile) writeFileSync(outFile, out.join(''));
  if (process.env.LM_INTEROP_TIMES)
    realErr(`run_jobs: ${((performance.now() - t0) / 1000).toFixed(2)} s ${id} ${script} ${args.join(' ')}\n`);
  if (why) {
    failed++;
    const text = [err.join('').trim(), why].filter((s) => s).join(' | ').replace(/\n/g, ' | ');
    realOut(`${id}\tFAIL\t${text}\n`);
  } else {
    realOut(`${id}\tok\n`);
  }
}
process.exitCode = failed ? 1 : 0;
