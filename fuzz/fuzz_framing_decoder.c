/* fuzz/fuzz_framing_decoder.c — libFuzzer target for the framing decoder
 * (docs/framing.md, format/lm_framing.h).
 *
 * Input: byte 0 picks the mode (bit 0: also drain the events through a
 * one-source lm_framing_merger; bits 1-7: a split point, as a fraction of
 * the rest); the rest is the framed byte stream. Checks, besides memory
 * safety (ASan sees the exact input size; the decoder copies what it
 * keeps):
 *  - fed in one piece and in two pieces, the decoder gives the same events
 *    and the same error;
 *  - every error message names a byte offset.
 */
#include "format/lm_framing.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(lm_buf *o, const lm_framing_event *ev) {
  lm_buf_printf(o, "%d %d %s %d %llu %lld", (int)ev->kind, ev->channel,
                ev->name ? ev->name : "-", (int)ev->has_seq,
                (unsigned long long)ev->seq, (long long)ev->offset);
  if (ev->batch) {
    const lm_batch *b = ev->batch;
    for (int64_t i = 0; i < b->num_rows; i++)
      for (int c = 0; c < b->num_columns; c++) {
        if (b->columns[c]->length != b->num_rows)
          __builtin_trap();
        lm_array_format_value(o, b->columns[c], i, "NULL");
        lm_buf_putc(o, '|');
      }
  }
  if (ev->data) {
    lm_buf_printf(o, " %u [%zu]", ev->error_code, ev->len);
    lm_buf_append(o, ev->data, ev->len);
  }
  lm_buf_putc(o, '\n');
}

/* Pops every available event; a merger error is reported once. */
static void drain(lm_framing_decoder *d, lm_framing_merger **mp, lm_buf *o) {
  lm_framing_event ev;
  lm_framing_merger *m = *mp;
  if (m) {
    lm_error err;
    int rc;
    while ((rc = lm_framing_merger_next(m, &ev, &err)) == 0 &&
           ev.kind != LM_FRAMING_EV_NONE) {
      dump(o, &ev);
      lm_framing_event_clear(&ev);
    }
    if (rc) {
      if (!strstr(err.msg, ": byte "))
        __builtin_trap();
      lm_buf_printf(o, "MERGE %d %s\n", rc, err.msg);
      lm_framing_merger_free(m);
      *mp = NULL;
    }
    return;
  }
  while (lm_framing_decoder_next(d, &ev)) {
    dump(o, &ev);
    lm_framing_event_clear(&ev);
  }
}

static void run(const uint8_t *p, size_t n, size_t split, bool merge,
                lm_buf *o) {
  lm_framing_limits lim = {.max_frame_bytes = 1 << 20, .max_channels = 64};
  lm_ipc_limits il = {.max_message_bytes = 1 << 20,
                      .max_buffer_bytes = 1 << 20,
                      .max_records = 1 << 16};
  lm_framing_decoder *d = lm_framing_decoder_new(&lim, &il, "fuzz");
  if (!d)
    return;
  lm_framing_merger *m = merge ? lm_framing_merger_new(1, &d, 0) : NULL;
  lm_error err;
  int rc = lm_framing_decoder_feed(d, p, split, &err);
  drain(d, &m, o);
  if (!rc)
    rc = lm_framing_decoder_feed(d, p + split, n - split, &err);
  drain(d, &m, o);
  if (!rc)
    rc = lm_framing_decoder_finish(d, &err);
  drain(d, &m, o);
  if (rc) {
    if (rc != LM_ERR_NOMEM && !strstr(err.msg, ": byte "))
      __builtin_trap();
    lm_buf_printf(o, "ERROR %d %s\n", rc, err.msg);
  }
  lm_framing_merger_free(m);
  lm_framing_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  const uint8_t *p = data + 1;
  size--;
  size_t split = size * (size_t)(sel >> 1) / 127;
  bool merge = sel & 1;
  lm_buf a, b;
  lm_buf_init(&a);
  lm_buf_init(&b);
  run(p, size, size, merge, &a);
  run(p, size, split, merge, &b);
  if (strcmp(a.data ? a.data : "", b.data ? b.data : ""))
    __builtin_trap();
  lm_buf_free(&a);
  lm_buf_free(&b);
  return 0;
}
