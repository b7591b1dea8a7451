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
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void dump_batch(lm_buf *o, const lm_batch *b) {
  lm_buf_printf(o, "[batch %" PRId64 "]\n", b->num_rows);
  for (int64_t i = 0; i < b->num_rows; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      const lm_array *a = b->columns[c];
      if (a->length != b->num_rows)
        __builtin_trap();
      if (c)
        lm_buf_putc(o, '|');
      if (lm_array_is_null(a, i)) {
        lm_buf_puts(o, "NULL");
        continue;
      }
      switch (a->type.id) {
      case LM_TYPE_BOOL:
        lm_buf_puts(o, lm_array_bool(a, i) ? "true" : "false");
        break;
      case LM_TYPE_FLOAT32:
      case LM_TYPE_FLOAT64: {
        double v = a->type.id == LM_TYPE_FLOAT32 ? lm_array_f32(a)[i]
                                                 : lm_array_f64(a)[i];
        if (isnan(v))
          lm_buf_puts(o, "nan");
        else
          lm_buf_printf(o, "%a", v);
        break;
      }
      case LM_TYPE_UTF8: {
        int32_t n;
        const char *p = lm_array_str(a, i, &n);
        lm_buf_printf(o, "s%d:", n);
        lm_buf_append(o, p, (size_t)n);
        break;
      }
      default:
        lm_buf_printf(o, "%" PRId64, lm_array_get_i64(a, i));
        break;
      }
    }
    lm_buf_putc(o, '\n');
  }
}

/* Reads `data` in pieces of at most `step` bytes, except that the first
 * piece ends at `split`. Fills dump; keeps the batches in *keep when
 * non-NULL. Returns the status and the error in *err. */
static int run(lm_schema *s, const lm_csv_options *o, const char *data,
               size_t size, size_t split, size_t step, lm_buf *dump,
               lm_buf *keep, lm_error *err) {
  lm_csv_reader *r = lm_csv_reader_new(s, o, "fuzz.csv");
  if (!r)
    return LM_ERR_NOMEM;
  int rc = 0;
  size_t pos = 0;
  while (rc == 0 && pos < size) {
    size_t to = pos < split ? split : LM_MIN(size, pos + step);
    rc = lm_csv_reader_feed(r, data + pos, to - pos, err);
    pos = to;
  }
  if (rc == 0)
    rc = lm_csv_reader_finish(r, err);
  lm_batch *b;
  while ((b = lm_csv_reader_next(r)) != NULL) {
    dump_batch(dump, b);
    if (keep && rc == 0) {
      if (lm_csv_write_batch(keep, b, o))
        __builtin_trap();
    }
    lm_batch_release(b);
  }
  if (rc)
    lm_buf_printf(dump, "ERROR %d %d:%d %s\n", rc, err->line, err->column,
                  err->msg);
  else
    lm_buf_printf(dump, "OK %" PRId64 "\n", lm_csv_reader_rows(r));
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
  lm_schema *s = lm_schema_new(v->n);
  if (!s)
    return 0;
  for (int i = 0; i < v->n; i++)
    lm_schema_set_field(s, i, v->names[i], lm_type_make(v->types[i]),
                        v->nullable[i]);
  lm_csv_options o;
  lm_csv_options_default(&o);
  o.header = v->header;
  o.delimiter = v->delim;
  o.batch_rows = 1 + (int64_t)(size % 5);

  lm_buf ref, alt, written;
  lm_buf_init(&ref);
  lm_buf_init(&alt);
  lm_buf_init(&written);
  lm_error err;
  if (v->header && lm_csv_write_header(&written, s, &o))
    __builtin_trap();
  int rc = run(s, &o, text, size, size, size, &ref, &written, &err);

  run(s, &o, text, size, split, size, &alt, NULL, &err);
  if (strcmp(ref.data, alt.data) != 0)
    __builtin_trap();
  if (size <= 512) {
    lm_buf_reset(&alt);
    run(s, &o, text, size, 0, 1, &alt, NULL, &err);
    if (strcmp(ref.data, alt.data) != 0)
      __builtin_trap();
  }

  if (rc == 0) {
    /* round trip: what we write must read back to the same batches (but
     * batch boundaries: same batch_rows, so they match too) */
    lm_buf back;
    lm_buf_init(&back);
    int rc2 = run(s, &o, written.data ? written.data : "", written.len,
                  written.len, written.len, &back, NULL, &err);
    if (rc2 == 0) {
      if (strcmp(ref.data, back.data) != 0)
        __builtin_trap();
    } else if (!strstr(err.msg, "TIMESTAMP")) {
      /* only a timestamp shifted by a zone offset out of years 1-9999 may
       * fail to read back */
      __builtin_trap();
    }
    lm_buf_free(&back);
  }
  lm_buf_free(&ref);
  lm_buf_free(&alt);
  lm_buf_free(&written);
  lm_schema_release(s);
  return 0;
}
