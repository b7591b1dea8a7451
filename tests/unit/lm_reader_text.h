/*
 * tests/unit/lm_reader_text.h — the text readers (lm_csv_reader,
 * lm_json_reader) behind one table of functions, and a canonical text form
 * of a batch. Shared by their unit tests (lm_test_reader.h) and their fuzz
 * targets (fuzz/fuzz_reader.h). Header-only, no test macros.
 */
#ifndef LM_READER_TEXT_H
#define LM_READER_TEXT_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"
#include "format/lm_csv.h"
#include "format/lm_json.h"

/* A text reader through its functions: feed bytes, finish, pop a batch,
 * rows read; write appends a batch in the reader's format to out (options:
 * the reader's, may be NULL for JSON), nonzero on failure. */
typedef struct lm_reader_vt {
  int (*feed)(void *r, const char *data, size_t len, lm_error *err);
  int (*finish)(void *r, lm_error *err);
  lm_batch *(*next)(void *r);
  int64_t (*rows)(const void *r);
  int (*write)(lm_buf *out, const lm_batch *b, const void *options);
} lm_reader_vt;

static inline int lm_rt_csv_feed(void *r, const char *d, size_t n,
                                 lm_error *e) {
  return lm_csv_reader_feed(r, d, n, e);
}
static inline int lm_rt_csv_finish(void *r, lm_error *e) {
  return lm_csv_reader_finish(r, e);
}
static inline lm_batch *lm_rt_csv_next(void *r) {
  return lm_csv_reader_next(r);
}
static inline int64_t lm_rt_csv_rows(const void *r) {
  return lm_csv_reader_rows(r);
}
static inline int lm_rt_csv_write(lm_buf *out, const lm_batch *b,
                                  const void *o) {
  return lm_csv_write_batch(out, b, o);
}
static inline int lm_rt_json_feed(void *r, const char *d, size_t n,
                                  lm_error *e) {
  return lm_json_reader_feed(r, d, n, e);
}
static inline int lm_rt_json_finish(void *r, lm_error *e) {
  return lm_json_reader_finish(r, e);
}
static inline lm_batch *lm_rt_json_next(void *r) {
  return lm_json_reader_next(r);
}
static inline int64_t lm_rt_json_rows(const void *r) {
  return lm_json_reader_rows(r);
}
static inline int lm_rt_json_write(lm_buf *out, const lm_batch *b,
                                   const void *o) {
  (void)o;
  return lm_json_write_batch(out, b);
}

/* The table of the CSV reader (r: an lm_csv_reader, options an
 * lm_csv_options) and of the NDJSON reader (lm_json_reader). */
#define LM_READER_VT_CSV                                                       \
  {                                                                            \
    lm_rt_csv_feed, lm_rt_csv_finish, lm_rt_csv_next, lm_rt_csv_rows,          \
        lm_rt_csv_write                                                        \
  }
#define LM_READER_VT_JSON                                                      \
  {                                                                            \
    lm_rt_json_feed, lm_rt_json_finish, lm_rt_json_next, lm_rt_json_rows,      \
        lm_rt_json_write                                                       \
  }

/* lm_dump_batch's checks: trap (__builtin_trap) on a column whose length
 * or null count is wrong instead of printing a "!! bad array C" line; trap
 * on a float that is not finite (JSON has none). */
enum { LM_DUMP_TRAP_BAD = 1, LM_DUMP_FINITE = 2 };

/* Appends to o a canonical text form of b, exact for every type: a
 * "[batch ROWS]" line, the column checks (flags), then a line per row ('|'
 * between values; NULL; floats in hex with an f/d prefix, a NaN as
 * "fnan"/"dnan" whatever its sign, strings as sLEN:bytes, timestamps as
 * tsMICROS, other types as integers). */
static inline void lm_dump_batch(lm_buf *o, const lm_batch *b, int flags) {
  lm_buf_printf(o, "[batch %" PRId64 "]\n", b->num_rows);
  for (int c = 0; c < b->num_columns; c++) {
    const lm_array *a = b->columns[c];
    int64_t nulls = 0;
    for (int64_t i = 0; i < a->length; i++)
      nulls += lm_array_is_null(a, i);
    if (a->length == b->num_rows && nulls == a->null_count)
      continue;
    if (flags & LM_DUMP_TRAP_BAD)
      __builtin_trap();
    lm_buf_printf(o, "!! bad array %d\n", c);
  }
  for (int64_t i = 0; i < b->num_rows; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      const lm_array *a = b->columns[c];
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
        bool f32 = a->type.id == LM_TYPE_FLOAT32;
        double v = f32 ? lm_array_f32(a)[i] : lm_array_f64(a)[i];
        if ((flags & LM_DUMP_FINITE) && !isfinite(v))
          __builtin_trap();
        if (isnan(v))
          lm_buf_puts(o, f32 ? "fnan" : "dnan");
        else
          lm_buf_printf(o, f32 ? "f%a" : "d%a", v);
        break;
      }
      case LM_TYPE_UTF8: {
        int32_t n;
        const char *p = lm_array_str(a, i, &n);
        lm_buf_printf(o, "s%d:", n);
        lm_buf_append(o, p, (size_t)n);
        break;
      }
      case LM_TYPE_TIMESTAMP:
        lm_buf_printf(o, "ts%" PRId64, lm_array_i64(a)[i]);
        break;
      default:
        lm_buf_printf(o, "%" PRId64, lm_array_get_i64(a, i));
        break;
      }
    }
    lm_buf_putc(o, '\n');
  }
}

#endif
