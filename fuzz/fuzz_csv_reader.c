/* fuzz/fuzz_csv_reader.c — libFuzzer target for the CSV reader.
 *
 * Input: byte 0 picks the variant (bits 0-1: schema/options, bits 2-7: a
 * split point as a fraction of the rest); the rest is the CSV text.
 * Checks, besides memory safety:
 *  - feeding in one piece, in two pieces at the split point, and (for small
 *    inputs) one byte at a time gives identical batches and errors;
 *  - whatever parses writes back (lm_csv_write_*) and re-reads to the same
 *    batches.
 * A violated invariant traps (__builtin_trap), which libFuzzer reports.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined -Isrc -Iinclude
 *   fuzz/fuzz_csv_reader.c src/base/ *.c src/columnar/ *.c src/format/ *.c -lm
 */
#include "format/lm_csv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct variant {
  int n;
  const char *names[10];
  lm_type_id types[10];
  bool nullable[10];
  bool header;
  char delim;
} variant;

static const variant VARIANTS[4] = {
    {5,
     {"ts", "origin", "destination", "delay", "distance"},
     {LM_TYPE_TIMESTAMP, LM_TYPE_UTF8, LM_TYPE_UTF8, LM_TYPE_INT64,
      LM_TYPE_INT64},
     {true, true, true, true, true},
     true,
     ','},
    {9,
     {"b", "i8", "i16", "i32", "i64", "f32", "f64", "s", "ts"},
     {LM_TYPE_BOOL, LM_TYPE_INT8, LM_TYPE_INT16, LM_TYPE_INT32, LM_TYPE_INT64,
      LM_TYPE_FLOAT32, LM_TYPE_FLOAT64, LM_TYPE_UTF8, LM_TYPE_TIMESTAMP},
     {true, true, true, true, true, true, true, true, true},
     false,
     ','},
    {1, {"v"}, {LM_TYPE_UTF8}, {true}, true, ','},
    {3,
     {"a", "b", "c"},
     {LM_TYPE_UTF8, LM_TYPE_INT32, LM_TYPE_FLOAT64},
     {false, true, true},
     true,
     ';'},
};

/* The reader's options, for run. */
typedef struct run_ctx {
  lm_schema *s;
  const lm_csv_options *o;
} run_ctx;

static const lm_reader_vt csv_vt = LM_READER_VT_CSV;

/* A fuzz_read_fn (fuzz_reader.h) over a new reader. */
static int run(const void *ctx, const char *data, size_t size, size_t split,
               size_t step, lm_buf *dump, lm_buf *keep, lm_error *err) {
  const run_ctx *c = ctx;
  lm_csv_reader *r = lm_csv_reader_new(c->s, c->o, "fuzz.csv");
  if (!r)
    return LM_ERR_NOMEM;
  int rc =
      fuzz_read(&csv_vt, r, c->o, 0, data, size, split, step, dump, keep, err);
  lm_csv_reader_free(r);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  const char *text = (const char *)data + 1;
  size--;
  const variant *v = &VARIANTS[sel & 3];
  size_t split = size * (size_t)(sel >> 2) / 63;
  lm_schema *s = fuzz_schema(v->n, v->names, v->types, v->nullable);
  if (!s)
    return 0;
  lm_csv_options o;
  lm_csv_options_default(&o);
  o.header = v->header;
  o.delimiter = v->delim;
  o.batch_rows = 1 + (int64_t)(size % 5);

  lm_buf written;
  lm_buf_init(&written);
  if (v->header && lm_csv_write_header(&written, s, &o))
    __builtin_trap();
  run_ctx c = {s, &o};
  /* round trip: same batch_rows, so the batch boundaries match too */
  fuzz_reader_check(run, &c, text, size, split, &written);
  lm_schema_release(s);
  return 0;
}
