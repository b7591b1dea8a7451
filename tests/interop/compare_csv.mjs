// compare_csv.mjs [--max-report N] ARROW_FILE CSV_FILE
//
// Compares CSV text (e.g. `laminardb convert X.arrow X.csv`) with the values
// apache-arrow reads from ARROW_FILE, value for value: the header must name
// the Arrow fields in order, there must be one record per row, and each
// field must denote the Arrow value by the column's type (lib.mjs
// matchText): integers exactly, Float32 values compared after rounding the
// CSV number to float32 (so "0.1", "0.100000001" and "1.00000001e-1" all
// match the float32 0.1, and C's %g spellings such as "1e+20" pass), Float64
// as doubles, NaN/inf spelled any usual way, timestamps as instants
// (microsecond precision unless the text has more fraction digits), Bool
// as true/false/t/f/1/0, text exactly. NULL is an empty unquoted field; an
// empty quoted field is the empty string for text columns, NULL otherwise.
// Exits 1 after reporting the first N (default 5) mismatches.
import { readFileSync } from 'node:fs';
import { arrowValues, csvCellText, displayText, fail, matchText, parseCsv, readInput, runMain, typeText } from './lib.mjs';

runMain('compare_csv', () => {
  const args = process.argv.slice(2);
  let max = 5;
  if (args[0] === '--max-report') { args.shift(); max = Number(args.shift()); }
  if (args.length !== 2) fail('usage: compare_csv.mjs [--max-report N] ARROW_FILE CSV_FILE');
  const [arrowFile, csvFile] = args;
  const v = arrowValues(readInput(arrowFile));
  const recs = parseCsv(readFileSync(csvFile, 'utf8'));
  if (recs.length === 0) fail(`${csvFile}: no header`);
  const header = recs[0].map((f) => f.text);
  const names = v.fields.map((f) => f.name);
  if (JSON.stringify(header) !== JSON.stringify(names))
    fail(`${csvFile}: header ${JSON.stringify(header)}, expected ${JSON.stringify(names)}`);
  if (recs.length - 1 !== v.rows) fail(`${csvFile}: ${recs.length - 1} records, ${arrowFile} has ${v.rows} rows`);
  let bad = 0;
  for (let i = 0; i < v.rows; i++) {
    const rec = recs[i + 1];
    if (rec.length !== names.length) {
      process.stderr.write(`${csvFile}: record ${i + 1}: ${rec.length} fields, expected ${names.length}\n`);
      if (++bad >= max) break;
      continue;
    }
    v.fields.forEach((f, k) => {
      if (bad >= max) return;
      const want = v.columns[k][i];
      const why = matchText(f, want, csvCellText(f, rec[k]), 'floor');
      if (why) {
        bad++;
        process.stderr.write(`${csvFile}: row ${i} column '${f.name}' (${typeText(f)}): ${why}: got ` +
          `${JSON.stringify(rec[k].quoted ? '"' + rec[k].text + '"' : rec[k].text)}, apache-arrow reads ` +
          `${JSON.stringify(displayText(f, want))}\n`);
      }
    });
    if (bad >= max) break;
  }
  if (bad) fail(`${csvFile}: differs from ${arrowFile} (first ${bad} differences above)`);
  process.stdout.write(`compare_csv: ${csvFile}: ${v.rows} rows x ${names.length} columns equal to ${arrowFile}\n`);
});
