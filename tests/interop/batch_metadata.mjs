// batch_metadata.mjs write DIR | check FILE
//
// Message-level custom metadata (Message.fbs Message.custom_metadata, one
// map per record batch; apache-arrow's RecordBatch.metadata). `write`
// puts three batches in DIR/bm.arrow (IPC file) and DIR/bm.arrows (IPC
// stream): the first and third with metadata (an empty key and value,
// multi-byte UTF-8), the second without. `check` reads FILE (file or
// stream, detected by apache-arrow) and requires exactly those maps and
// the rows, batch by batch. Used by tests/cases/interop.sh part (f).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as A from 'apache-arrow';

const MD = [
  [['seq', '1'], ['src', 'sensor é']],
  [],
  [['', ''], ['k', 'a much longer value, past 8 bytes']],
];
const fail = (m) => { process.stderr.write(`batch_metadata: ${m}\n`); process.exit(1); };

function batches() {
  return MD.map((md, k) => {
    const rb = new A.RecordBatch({
      x: A.vectorFromArray([1n, 2n, 3n].map((v) => v + BigInt(10 * k)), new A.Int64()).data[0],
      s: A.vectorFromArray(['a', null, `b${k}`], new A.Utf8()).data[0],
    });
    return new A.RecordBatch(rb.schema, rb.data, new Map(md));
  });
}

const [cmd, arg] = process.argv.slice(2);
if (cmd === 'write') {
  mkdirSync(arg, { recursive: true });
  const bs = batches();
  writeFileSync(`${arg}/bm.arrow`, A.RecordBatchFileWriter.writeAll(bs).toUint8Array(true));
  writeFileSync(`${arg}/bm.arrows`, A.RecordBatchStreamWriter.writeAll(bs).toUint8Array(true));
} else if (cmd === 'check') {
  const reader = A.RecordBatchReader.from(readFileSync(arg));
  let k = 0;
  for (const rb of reader) {
    if (k >= MD.length) fail(`${arg}: more than ${MD.length} batches`);
    const got = JSON.stringify([...(rb.metadata ?? new Map())]);
    const want = JSON.stringify(MD[k]);
    if (got !== want) fail(`${arg}: batch ${k}: metadata ${got}, expected ${want}`);
    const xs = [...rb.getChild('x')].map(String).join(',');
    const ss = [...rb.getChild('s')].map(String).join(',');
    const wx = [1, 2, 3].map((v) => String(v + 10 * k)).join(',');
    if (xs !== wx || ss !== `a,null,b${k}`) fail(`${arg}: batch ${k}: rows ${xs} / ${ss}`);
    k++;
  }
  if (k !== MD.length) fail(`${arg}: ${k} batches, expected ${MD.length}`);
  process.stdout.write(`batch_metadata: ${arg}: ${k} batches, metadata equal\n`);
} else {
  fail('usage: batch_metadata.mjs write DIR | check FILE');
}
