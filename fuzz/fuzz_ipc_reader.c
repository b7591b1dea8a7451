/* fuzz/fuzz_ipc_reader.c — libFuzzer target for the Arrow IPC readers.
 *
 * Input: byte 0 picks the mode (bit 0: file reader over the whole input,
 * else stream reader; bits 1-7: a split point for the stream, as a
 * fraction of the rest); the rest is the IPC data. Checks, besides memory
 * safety (every read is bounds-checked; ASan sees the exact input size):
 *  - a stream fed in one piece and in two pieces gives the same batches
 *    and the same error;
 *  - every error message names a byte offset;
 *  - whatever reads writes back and re-reads to the same values.
 */
#include "format/lm_ipc.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(lm_buf *o, const lm_batch *b) {
  for (int64_t i = 0; i < b->num_rows; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      if (b->columns[c]->length != b->num_rows)
        __builtin_trap();
      lm_array_format_value(o, b->columns[c], i, "NULL");
      lm_buf_putc(o, '|');
    }
    lm_buf_putc(o, '\n');
  }
}

static int run_stream(const uint8_t *p, size_t n, size_t split, lm_buf *d,
                      lm_buf *rewrite, lm_error *err) {
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "fuzz.arrows");
  if (!r)
    return LM_ERR_NOMEM;
  int rc = lm_ipc_stream_reader_feed(r, p, split, err);
  if (rc == 0)
    rc = lm_ipc_stream_reader_feed(r, p + split, n - split, err);
  if (rc == 0)
    rc = lm_ipc_stream_reader_finish(r, err);
  lm_ipc_writer *w = NULL;
  if (rc == 0 && rewrite)
    lm_ipc_writer_new(lm_ipc_stream_reader_schema(r), false, NULL, rewrite, &w,
                      NULL);
  lm_batch *b;
  while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
    dump(d, b);
    if (w && lm_ipc_writer_write(w, b, NULL))
      __builtin_trap();
    lm_batch_release(b);
  }
  if (w) {
    lm_ipc_writer_finish(w, NULL);
    lm_ipc_writer_free(w);
  }
  if (rc) {
    if (!strstr(err->msg, ": byte ") && rc != LM_ERR_NOMEM)
      __builtin_trap();
    lm_buf_printf(d, "ERROR %d %s\n", rc, err->msg);
  }
  lm_ipc_stream_reader_free(r);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  const uint8_t *p = data + 1;
  size--;
  lm_error err;
  if (sel & 1) {
    uint8_t *cp = malloc(size ? size : 1);
    if (!cp)
      return 0;
    memcpy(cp, p, size);
    lm_ipc_file_reader *r;
    int rc =
        lm_ipc_file_open_memory(cp, size, NULL, NULL, "fuzz.arrow", &r, &err);
    if (rc == 0) {
      lm_batch *b;
      lm_buf d;
      lm_buf_init(&d);
      while ((rc = lm_ipc_file_next(r, &b, &err)) == 0 && b) {
        dump(&d, b);
        lm_batch_release(b);
      }
      lm_buf_free(&d);
      lm_ipc_file_reader_free(r);
    }
    if (rc && rc != LM_ERR_NOMEM && !strstr(err.msg, ": byte "))
      __builtin_trap();
    free(cp);
    return 0;
  }
  size_t split = size * (size_t)(sel >> 1) / 127;
  lm_buf a, b, w, c;
  lm_buf_init(&a);
  lm_buf_init(&b);
  lm_buf_init(&w);
  lm_buf_init(&c);
  int rc = run_stream(p, size, size, &a, &w, &err);
  run_stream(p, size, split, &b, NULL, &err);
  if (strcmp(a.data ? a.data : "", b.data ? b.data : ""))
    __builtin_trap();
  if (rc == 0) {
    if (run_stream((const uint8_t *)w.data, w.len, w.len, &c, NULL, &err))
      __builtin_trap();
    if (strcmp(a.data ? a.data : "", c.data ? c.data : ""))
      __builtin_trap();
  }
  lm_buf_free(&a);
  lm_buf_free(&b);
  lm_buf_free(&w);
  lm_buf_free(&c);
  return 0;
}
