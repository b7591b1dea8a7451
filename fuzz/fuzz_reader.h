/* fuzz/fuzz_reader.h — what the text reader targets (fuzz_csv_reader.c,
 * fuzz_json_reader.c) share: the schema of a variant, a read fed in pieces
 * and the checks run over one input (the readers' table of functions and
 * the text form of a batch: tests/unit/lm_reader_text.h). Header-only: each
 * target is built alone (see its Build line). A violated invariant traps
 * (__builtin_trap), which libFuzzer reports. */
#ifndef FUZZ_READER_H
#define FUZZ_READER_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/lm_reader_text.h"

/* A new schema of n columns (names, types, nullability), NULL on OOM. */
static inline lm_schema *fuzz_schema(int n, const char *const *names,
                                     const lm_type_id *types,
                                     const bool *nullable) {
  lm_schema *s = lm_schema_new(n);
  if (!s)
    return NULL;
  for (int i = 0; i < n; i++)
    lm_schema_set_field(s, i, names[i], lm_type_make(types[i]), nullable[i]);
  return s;
}

/* Reads data[0..size) with r (vt: its functions, options: its options):
 * the first piece ends at `split`, the others are at most `step` bytes;
 * every batch goes to dump (lm_dump_batch with dump_flags; a bad column
 * always traps) and,
 * when keep is not NULL and the read succeeded, written back to keep (a
 * failed write traps); then a final "OK rows" / "ERROR ..." line. Returns
 * the status, the error in *err. r stays the caller's. */
static inline int fuzz_read(const lm_reader_vt *vt, void *r,
                            const void *options, int dump_flags,
                            const char *data, size_t size, size_t split,
                            size_t step, lm_buf *dump, lm_buf *keep,
                            lm_error *err) {
  int rc = 0;
  size_t pos = 0;
  while (rc == 0 && pos < size) {
    size_t to = pos < split ? split : LM_MIN(size, pos + step);
    rc = vt->feed(r, data + pos, to - pos, err);
    pos = to;
  }
  if (rc == 0)
    rc = vt->finish(r, err);
  lm_batch *b;
  while ((b = vt->next(r)) != NULL) {
    lm_dump_batch(dump, b, dump_flags | LM_DUMP_TRAP_BAD);
    if (keep && rc == 0 && vt->write(keep, b, options))
      __builtin_trap();
    lm_batch_release(b);
  }
  if (rc)
    lm_buf_printf(dump, "ERROR %d %d:%d %s\n", rc, err->line, err->column,
                  err->msg);
  else
    lm_buf_printf(dump, "OK %" PRId64 "\n", vt->rows(r));
  return rc;
}

/* One read of data[0..size) by the target's reader: fuzz_read's
 * contract, with the target's options in ctx. */
typedef int (*fuzz_read_fn)(const void *ctx, const char *data, size_t size,
                            size_t split, size_t step, lm_buf *dump,
                            lm_buf *keep, lm_error *err);

/* The checks over text[0..size): one piece (writing back into *written,
 * which may already hold a header), two pieces at split and (size <= 512)
 * one byte at a time give the same dump; when the text reads, what was
 * written reads back to the same dump (a failure is allowed only for a
 * TIMESTAMP out of range). Frees *written. */
static inline void fuzz_reader_check(fuzz_read_fn run, const void *ctx,
                                     const char *text, size_t size,
                                     size_t split, lm_buf *written) {
  lm_buf ref, alt;
  lm_buf_init(&ref);
  lm_buf_init(&alt);
  lm_error err;
  int rc = run(ctx, text, size, size, size, &ref, written, &err);
  run(ctx, text, size, split, size, &alt, NULL, &err);
  if (strcmp(ref.data, alt.data) != 0)
    __builtin_trap();
  if (size <= 512) {
    lm_buf_reset(&alt);
    run(ctx, text, size, 0, 1, &alt, NULL, &err);
    if (strcmp(ref.data, alt.data) != 0)
      __builtin_trap();
  }
  if (rc == 0) {
    lm_buf back;
    lm_buf_init(&back);
    int rc2 = run(ctx, written->data ? written->data : "", written->len,
                  written->len, written->len, &back, NULL, &err);
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
  lm_buf_free(written);
}

#endif
