// dict_ids.mjs write DIR | check [--dict-metadata] FILE
//
// Dictionary ids and the custom_metadata of dictionary batches, kept by
// `laminardb convert` Arrow -> Arrow (tests/cases/interop.sh part (h)).
//
// write: apache-arrow writes DIR/ids.arrow (file) and DIR/ids.arrows
// (stream) of three dictionary-encoded columns whose ids are not the ones
// a writer numbering from 0 (or from the column count) would pick:
//   a  Dictionary<Int32, Utf8>            id 42
//   l  List<Dictionary<Int8, Utf8>>       id 7 (a nested dictionary)
//   c  Dictionary<Int16, Utf8>            id 1e12 (beyond 32 bits)
// in two batches (4 + 3 rows) sharing the dictionaries. In the stream,
// every DictionaryBatch message is re-encoded with a custom_metadata map
// {"dict": "id N"} (apache-arrow writes none itself; its Message.encode
// does): DIR/ids.arrows.
// check: FILE (file or stream) must have the three fields with those ids
// and index types, and every value; with --dict-metadata, every
// DictionaryBatch message in FILE must carry {"dict": "id N"} for its own
// id N, and each of the three ids must have one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as A from 'apache-arrow';

const fail = (m) => { const e = new Error(m); e.interop = true; throw e; };
const IDS = { a: 42, l: 7, c: 1e12 };
const ROWS = [
  ['x', ['p', 'q'], 'k1'],
  [null, [], 'k2'],
  ['y', null, null],
  ['x', ['q', null, 'p'], 'k1'],
  ['', ['p'], 'k3'],
  ['y', ['r'], 'k2'],
  [null, null, 'k3'],
];

function table() {
  const a = new A.Dictionary(new A.Utf8(), new A.Int32(), IDS.a);
  const li = new A.Dictionary(new A.Utf8(), new A.Int8(), IDS.l);
  const l = new A.List(new A.Field('item', li, true));
  const c = new A.Dictionary(new A.Utf8(), new A.Int16(), IDS.c);
  const schema = new A.Schema([new A.Field('a', a, true), new A.Field('l', l, true), new A.Field('c', c, true)]);
  const vec = (type, vals) => A.vectorFromArray(vals, type);
  const all = new A.RecordBatch(schema, A.makeData({
    type: new A.Struct(schema.fields), length: ROWS.length, nullCount: 0,
    children: [vec(a, ROWS.map((r) => r[0])).data[0], vec(l, ROWS.map((r) => r[1])).data[0],
      vec(c, ROWS.map((r) => r[2])).data[0]],
  }));
  return new A.Table(schema, [all.slice(0, 4), all.slice(4, 7)]);
}

// Re-encodes every message of stream bytes, DictionaryBatch messages with
// {"dict": "id N"} as their custom_metadata.
function withDictMetadata(bytes) {
  const reader = new A.MessageReader(bytes);
  const parts = [];
  let msg;
  while ((msg = reader.readMessage()) !== null) {
    const body = reader.readMessageBody(msg.bodyLength);
    let md = msg.metadata;
    if (msg.isDictionaryBatch()) md = new Map([['dict', `id ${msg.header().id}`]]);
    const m = new A.Message(msg.bodyLength, msg.version, msg.headerType, msg.header(), md);
    const fb = A.Message.encode(m);
    const size = (fb.byteLength + 8 + 7) & ~7;
    const pre = new Uint8Array(8);
    new DataView(pre.buffer).setInt32(0, -1, true);
    new DataView(pre.buffer).setInt32(4, size - 8, true);
    parts.push(pre, fb, new Uint8Array(size - 8 - fb.byteLength), body);
  }
  parts.push(Uint8Array.of(255, 255, 255, 255, 0, 0, 0, 0));
  return Buffer.concat(parts);
}

function check(file, wantMetadata) {
  const bytes = readFileSync(file);
  const t = A.tableFromIPC(bytes);
  const f = Object.fromEntries(t.schema.fields.map((x) => [x.name, x]));
  const dictOf = { a: f.a?.type, l: f.l?.type?.children?.[0]?.type, c: f.c?.type };
  const idx = { a: 32, l: 8, c: 16 };
  for (const k of Object.keys(IDS)) {
    const d = dictOf[k];
    if (!d || !A.DataType.isDictionary(d)) fail(`${file}: column '${k}' is not dictionary-encoded`);
    if (Number(d.id) !== IDS[k]) fail(`${file}: column '${k}' has dictionary id ${d.id}, expected ${IDS[k]}`);
    if (d.indices.bitWidth !== idx[k]) fail(`${file}: column '${k}' has Int${d.indices.bitWidth} indices, expected Int${idx[k]}`);
  }
  if (t.numRows !== ROWS.length) fail(`${file}: ${t.numRows} rows, expected ${ROWS.length}`);
  const got = [...t].map((r) => [r.a, r.l === null ? null : [...r.l], r.c]);
  if (JSON.stringify(got) !== JSON.stringify(ROWS)) fail(`${file}: rows ${JSON.stringify(got)}, expected ${JSON.stringify(ROWS)}`);
  if (wantMetadata) {
    const isFile = bytes.subarray(0, 6).toString('latin1') === 'ARROW1';
    const reader = new A.MessageReader(isFile ? bytes.subarray(8) : bytes);
    const seen = new Set();
    let msg;
    while ((msg = reader.readMessage()) !== null) {
      reader.readMessageBody(msg.bodyLength);
      if (!msg.isDictionaryBatch()) continue;
      const id = Number(msg.header().id);
      const md = JSON.stringify([...msg.metadata]);
      if (md !== JSON.stringify([['dict', `id ${id}`]]))
        fail(`${file}: the dictionary batch of id ${id} has metadata ${md}, expected {"dict": "id ${id}"}`);
      seen.add(id);
    }
    for (const id of Object.values(IDS))
      if (!seen.has(id)) fail(`${file}: no dictionary batch with id ${id}`);
  }
  process.stdout.write(`dict_ids: ${file}: ids ${Object.values(IDS).join(', ')} and ${ROWS.length} rows OK` +
    (wantMetadata ? ', dictionary batch metadata kept' : '') + '\n');
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'write') {
  mkdirSync(args[0], { recursive: true });
  const t = table();
  writeFileSync(`${args[0]}/ids.arrow`, A.tableToIPC(t, 'file'));
  writeFileSync(`${args[0]}/ids.arrows`, withDictMetadata(A.tableToIPC(t, 'stream')));
} else if (cmd === 'check') {
  const md = args[0] === '--dict-metadata';
  if (md) args.shift();
  check(args[0], md);
} else {
  fail('usage: dict_ids.mjs write DIR | check [--dict-metadata] FILE');
}
