// arrow_to_csv.mjs [--ndjson] FILE
//
// Prints an Arrow IPC file or stream (FILE, or - for stdin) as apache-arrow
// reads it, as CSV on stdout:
//   - a header of the field names; records end with LF;
//   - RFC 4180 quoting: a field holding a comma, quote, CR or LF, or a text
//     value starting or ending with a space, is quoted, quotes doubled;
//   - NULL is an empty unquoted field; the empty string is "";
//   - Bool true/false; integers in decimal (int64 exact);
//   - Float32: the shortest decimal (1-9 significant digits) that reads back
//     as the same float32, Float64: the shortest that reads back as the same
//     double, both in JavaScript's number form (1e+21, 1e-7, -0); NaN,
//     Infinity, -Infinity;
//   - Timestamp: YYYY-MM-DDTHH:MM:SS[.ffffff] in UTC without a zone suffix
//     (whatever the column's zone), the fraction the floor to microseconds,
//     6 digits, only when nonzero (Laminar's text form).
// With --ndjson it prints one JSON object per row instead: numbers as JSON
// numbers (NaN/Infinity as null), timestamps as the text above, in quotes,
// except that a nanosecond value with a sub-microsecond part keeps all 9
// fraction digits (so a reader's rounding to microseconds is tested).
// compare_csv.mjs compares such output with another writer's, by value.
import { arrowValues, csvLines, fail, ndjsonLines, readInput, runMain, writeLines } from './lib.mjs';

runMain('arrow_to_csv', () => {
  const args = process.argv.slice(2);
  const ndjson = args[0] === '--ndjson';
  if (ndjson) args.shift();
  if (args.length !== 1) fail('usage: arrow_to_csv.mjs [--ndjson] FILE');
  const v = arrowValues(readInput(args[0]));
  writeLines(ndjson ? ndjsonLines(v) : csvLines(v));
});
