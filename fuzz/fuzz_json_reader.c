/* fuzz/fuzz_json_reader.c — libFuzzer target for the NDJSON reader.
 *
 * Input: byte 0 picks the variant (bits 0-1: schema, bits 2-7: a split
 * point as a fraction of the rest); the rest is the NDJSON text.
 * Checks, besides memory safety:
 *  - one piece, two pieces at the split point, and (small inputs) one byte
 *    at a time give identical batches and errors;
 *  - whatever parses writes back (lm_json_write_batch) and re-reads to the
 *    same batches.
 * A violated invariant traps (__builtin_trap), which libFuzzer reports.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined -Isrc -Iinclude
 *   fuzz/fuzz_json_reader.c src/base/ *.c src/columnar/ *.c src/format/ *.c -lm
 */
#include "format/lm_json.h"

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
} variant;

static const variant VARIANTS[4] = {
    {4,
     {"symbol", "minute", "volume", "high"},
     {LM_TYPE_UTF8, LM_TYPE_TIMESTAMP, LM_TYPE_INT64, LM_TYPE_FLOAT64},
     {true, true, true, true}},
    {9,
     {"b", "i8", "i16", "i32", "i64", "f32", "f64", "s", "ts"},
     {LM_TYPE_BOOL, LM_TYPE_INT8, LM_TYPE_INT16, LM_TYPE_INT32, LM_TYPE_INT64,
      LM_TYPE_FLOAT32, LM_TYPE_FLOAT64, LM_TYPE_UTF8, LM_TYPE_TIMESTAMP},
     {true, true, true, true, true, true, true, true, true}},
    {1, {"a"}, {LM_TYPE_UTF8}, {true}},
    {3,
     {"a", "A", "x"},
     {LM_TYPE_INT32, LM_TYPE_UTF8, LM_TYPE_BOOL},
     {false, true, true}},
};

typedef struct run_ctx {
  lm_schema *s;
  const lm_json_options *o;
} run_ctx;

static const lm_reader_vt json_vt = LM_READER_VT_JSON;

/* A fuzz_read_fn (fuzz_reader.h) over a new reader. */
static int run(const void *ctx, const char *data, size_t size, size_t split,
               size_t step, lm_buf *dump, lm_buf *keep, lm_error *err) {
  const run_ctx *c = ctx;
  lm_json_reader *r = lm_json_reader_new(c->s, c->o, "fuzz.json");
  if (!r)
    return LM_ERR_NOMEM;
  int rc = fuzz_read(&json_vt, r, c->o, LM_DUMP_FINITE, data, size, split, step,
                     dump, keep, err);
  lm_json_reader_free(r);
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
  lm_json_options o;
  lm_json_options_default(&o);
  o.batch_rows = 1 + (int64_t)(size % 5);

  lm_buf written;
  lm_buf_init(&written);
  run_ctx c = {s, &o};
  /* blank lines are not rows, so the row counts match too */
  fuzz_reader_check(run, &c, text, size, split, &written);
  lm_schema_release(s);
  return 0;
}
