// make_expected.mjs ARROW_FILE > EXPECTED.json
//
// Writes the expectation (README.md conventions, as write_fixtures.mjs
// writes) for any Arrow IPC file or stream, from apache-arrow's reading of
// it: used for files not made by write_fixtures.mjs, such as
// ../shared/data/flights-200k.arrow, so that Laminar's conversions of them
// can be checked with read_check.mjs and check_ndjson.mjs.
import { arrowValues, fail, readInput, runMain } from './lib.mjs';

runMain('make_expected', () => {
  const file = process.argv[2];
  if (!file) fail('usage: make_expected.mjs ARROW_FILE');
  const v = arrowValues(readInput(file));
  const exp = {
    convention: 'laminar-interop/1 (tests/interop/README.md)',
    fixture: file,
    num_rows: v.rows,
    batch_rows: v.batchRows,
    fields: v.fields.map((f, k) => ({ ...f, values: v.columns[k] })),
  };
  process.stdout.write(JSON.stringify(exp) + '\n');
});
