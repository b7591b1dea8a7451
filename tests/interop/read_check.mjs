// read_check.mjs [--format file|stream] [--loose-types] FILE EXPECTED.json
//
// Reads an Arrow IPC file or stream (FILE, or - for stdin; the format is
// detected from the ARROW1 magic, and --format requires one) with
// apache-arrow and checks it against an expectation written by
// write_fixtures.mjs or make_expected.mjs:
//  - field count, names and order; each field's type (Int8..Int64, Float32/64,
//    Bool, Utf8, Null, Timestamp unit and time zone) and nullability;
//  - the buffers of every column of every batch: validity bitmap long
//    enough and agreeing with null_count, offsets monotonic and in bounds,
//    value buffers long enough (apache-arrow itself does not check these);
//  - the total row count and every value, in order (batch boundaries may
//    differ from the expectation's: they are reported, not required).
// With --loose-types (for files whose types a writer chose, e.g. Laminar
// converting CSV) types and nullability are reported instead of required and
// values are compared by meaning: numbers parsed, timestamps as instants
// (lib.mjs matchText).
// Exits 0 when everything matches, else 1 with the first mismatch.
import { readFileSync } from 'node:fs';
import { arrowValues, displayText, fail, matchText, readInput, runMain, sameType, typeText } from './lib.mjs';

runMain('read_check', () => {
  const args = process.argv.slice(2);
  let format = null, loose = false;
  while (args[0]?.startsWith('--')) {
    const a = args.shift();
    if (a === '--format') format = args.shift();
    else if (a === '--loose-types') loose = true;
    else fail(`unknown option ${a}`);
  }
  if (args.length !== 2) fail('usage: read_check.mjs [--format file|stream] [--loose-types] FILE EXPECTED.json');
  const [file, expFile] = args;
  const exp = JSON.parse(readFileSync(expFile, 'utf8'));
  let got;
  try {
    got = arrowValues(readInput(file));
  } catch (e) {
    fail(`${file}: ${e.interop ? e.message : 'apache-arrow cannot read it: ' + (e.message || e)}`);
  }
  const where = `${file}`;
  if (format && got.format !== format) fail(`${where}: is an Arrow IPC ${got.format}, expected ${format}`);
  const ef = exp.fields, gf = got.fields;
  if (gf.length !== ef.length)
    fail(`${where}: ${gf.length} fields (${gf.map((f) => f.name)}), expected ${ef.length} (${ef.map((f) => f.name)})`);
  const notes = [];
  ef.forEach((e, k) => {
    const g = gf[k];
    if (g.name !== e.name) fail(`${where}: field ${k} is '${g.name}', expected '${e.name}'`);
    if (!sameType(g, e)) {
      if (!loose) fail(`${where}: field '${e.name}' has type ${typeText(g)}, expected ${typeText(e)}`);
      notes.push(`${e.name}: ${typeText(g)} (source ${typeText(e)})`);
    }
    if (!loose && g.nullable !== e.nullable)
      fail(`${where}: field '${e.name}' nullable=${g.nullable}, expected ${e.nullable}`);
  });
  if (got.rows !== exp.num_rows) fail(`${where}: ${got.rows} rows, expected ${exp.num_rows}`);
  // row-major, so the first mismatch reported is the first in the file
  for (let i = 0; i < exp.num_rows; i++) {
    for (let k = 0; k < ef.length; k++) {
      const e = ef[k], want = e.values[i], have = got.columns[k][i];
      let why = null;
      if (loose && !sameType(gf[k], e)) why = matchText(e, want, displayText(gf[k], have, true), 'round');
      else if (want !== have) why = 'different value';
      if (why)
        fail(`${where}: row ${i} column '${e.name}' (${typeText(gf[k])}): ${why}: ` +
          `got ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
    }
  }
  const batches = JSON.stringify(got.batchRows) === JSON.stringify(exp.batch_rows) ? ''
    : ` (batches ${JSON.stringify(got.batchRows)}, source had ${JSON.stringify(exp.batch_rows)})`;
  process.stdout.write(`read_check: ${file}: ${got.format}, ${got.rows} rows x ${ef.length} columns OK${batches}` +
    (notes.length ? `; types chosen: ${notes.join(', ')}` : '') + '\n');
});
