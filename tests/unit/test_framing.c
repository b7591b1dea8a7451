/*
 * tests/unit/test_framing.c — the framing protocol (docs/framing.md):
 * round trips of several interleaved table and opaque channels, the same
 * conversation split at every byte and fed a byte at a time, the sequence
 * merger over 3 connections with shuffled arrival (plus gaps and
 * duplicates), and hostile input: bad magic/version/flags, unknown and
 * duplicate channels, expectation mismatches, frames after end, oversize
 * lengths, truncation at every byte (an error at finish) and byte flips at
 * every offset (an error naming a byte, never a crash); feed_buffer (frames
 * decoded in place in the caller's buffer) against feed.
 */
#include <stdlib.h>
#include <string.h>

#include "format/lm_framing.h"
#include "lm_test.h"

static lm_schema *trades_schema(void) {
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "symbol", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 1, "price", lm_type_make(LM_TYPE_FLOAT64), true);
  lm_schema_set_field(s, 2, "volume", lm_type_make(LM_TYPE_INT64), false);
  return s;
}

static lm_schema *ticks_schema(void) {
  lm_schema *s = lm_schema_new(1);
  lm_schema_set_field(s, 0, "n", lm_type_make(LM_TYPE_INT32), false);
  return s;
}

static lm_batch *make_batch(lm_schema *s, int64_t n, int seed) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, n))
    return NULL;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = i + seed;
    for (int c = 0; c < s->n_fields; c++) {
      lm_builder *b = &bb.cols[c];
      if (s->fields[c].nullable && k % 4 == 3) {
        lm_builder_append_null(b);
        continue;
      }
      switch (s->fields[c].type.id) {
      case LM_TYPE_UTF8: {
        char t[32];
        int len = snprintf(t, sizeof t, "s%lld", (long long)k);
        lm_builder_append_str(b, t, len);
        break;
      }
      case LM_TYPE_FLOAT64:
        lm_builder_append_double(b, (double)k * 0.5);
        break;
      default:
        lm_builder_append_int(b, k * 7 + 1);
      }
    }
  }
  lm_batch *out = NULL;
  lm_batch_builder_finish(&bb, &out, NULL);
  lm_batch_builder_free(&bb);
  return out;
}

/* Appends a text form of one event (what the tests compare). */
static void dump_event(lm_buf *o, const lm_framing_event *ev) {
  lm_buf_printf(o, "ev%d ch%d %s", (int)ev->kind, ev->channel,
                ev->name ? ev->name : "-");
  if (ev->has_seq)
    lm_buf_printf(o, " seq%llu", (unsigned long long)ev->seq);
  switch (ev->kind) {
  case LM_FRAMING_EV_CHANNEL:
    lm_buf_printf(o, " kind%d", ev->channel_kind);
    if (ev->schema)
      for (int i = 0; i < ev->schema->n_fields; i++)
        lm_buf_printf(o, " %s:%s", ev->schema->fields[i].name,
                      lm_type_name(ev->schema->fields[i].type));
    break;
  case LM_FRAMING_EV_BATCH:
    lm_buf_printf(o, " rows%lld:", (long long)ev->batch->num_rows);
    for (int64_t i = 0; i < ev->batch->num_rows; i++)
      for (int c = 0; c < ev->batch->num_columns; c++) {
        lm_array_format_value(o, ev->batch->columns[c], i, "NULL");
        lm_buf_putc(o, ',');
      }
    break;
  case LM_FRAMING_EV_MESSAGE:
    lm_buf_printf(o, " msg[%zu]", ev->len);
    lm_buf_append(o, ev->data, ev->len);
    break;
  case LM_FRAMING_EV_ERROR:
    lm_buf_printf(o, " error %u '%s'", ev->error_code, (char *)ev->data);
    break;
  default:
    break;
  }
  lm_buf_putc(o, '\n');
}

/* Feeds `p` in pieces cut at the given points (sorted), then finish;
 * dumps every event and the final status into o. Returns the status. */
static int decode_cuts(const uint8_t *p, size_t n, const size_t *cuts,
                       int ncuts, lm_framing_decoder *d, lm_buf *o,
                       lm_error *err) {
  int rc = 0;
  size_t at = 0;
  for (int i = 0; i <= ncuts && !rc; i++) {
    size_t to = i < ncuts ? cuts[i] : n;
    rc = lm_framing_decoder_feed(d, p + at, to - at, err);
    at = to;
    lm_framing_event ev;
    while (lm_framing_decoder_next(d, &ev)) {
      dump_event(o, &ev);
      lm_framing_event_clear(&ev);
    }
  }
  if (!rc)
    rc = lm_framing_decoder_finish(d, err);
  lm_framing_event ev;
  while (lm_framing_decoder_next(d, &ev)) {
    dump_event(o, &ev);
    lm_framing_event_clear(&ev);
  }
  if (rc)
    lm_buf_printf(o, "ERROR %d %s\n", rc, err->msg);
  return rc;
}

static void dump_batch_rows(lm_buf *o, const lm_batch *b) {
  for (int64_t i = 0; i < b->num_rows; i++)
    for (int c = 0; c < b->num_columns; c++) {
      lm_array_format_value(o, b->columns[c], i, "NULL");
      lm_buf_putc(o, ',');
    }
  lm_buf_putc(o, '\n');
}

/* As decode_cuts, but every event is kept until the end and dumped only
 * then: batches decoded in place keep the decoder's earlier pending
 * memory alive while it continues in new memory (their values must not
 * change when later pieces are fed). */
static int decode_cuts_held(const uint8_t *p, size_t n, const size_t *cuts,
                            int ncuts, lm_buf *o, lm_error *err) {
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_event evs[64];
  int nev = 0, rc = 0;
  size_t at = 0;
  for (int i = 0; i <= ncuts + 1 && !rc; i++) {
    if (i <= ncuts) {
      size_t to = i < ncuts ? cuts[i] : n;
      rc = lm_framing_decoder_feed(d, p + at, to - at, err);
      at = to;
    } else {
      rc = lm_framing_decoder_finish(d, err);
    }
    while (nev < 64 && lm_framing_decoder_next(d, &evs[nev]))
      nev++;
  }
  lm_buf before, after;
  lm_buf_init(&before);
  lm_buf_init(&after);
  for (int i = 0; i < nev; i++) {
    dump_event(o, &evs[i]); /* names are the decoder's: dump first */
    if (evs[i].batch)
      dump_batch_rows(&before, evs[i].batch);
  }
  lm_framing_decoder_free(d); /* the batches outlive the decoder */
  for (int i = 0; i < nev; i++) {
    if (evs[i].batch)
      dump_batch_rows(&after, evs[i].batch);
    lm_framing_event_clear(&evs[i]);
  }
  if (before.len != after.len || memcmp(before.data, after.data, before.len))
    lm_buf_printf(o, "batch values changed after the decoder was freed\n");
  lm_buf_free(&before);
  lm_buf_free(&after);
  if (rc)
    lm_buf_printf(o, "ERROR %d %s\n", rc, err->msg);
  return rc;
}

static int decode_all(const uint8_t *p, size_t n, lm_buf *o, lm_error *err) {
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  int rc = decode_cuts(p, n, NULL, 0, d, o, err);
  lm_framing_decoder_free(d);
  return rc;
}

/* A small conversation: two table channels and an opaque one, interleaved,
 * with an end-of-channel, a channel error and the end of the stream. */
static void conversation(lm_buf *out, uint32_t flags, uint64_t *seq) {
  lm_schema *ts = trades_schema(), *ks = ticks_schema();
  lm_framing_encoder *e = lm_framing_encoder_new(out, flags, seq, NULL);
  int t, k, c;
  lm_error err;
  CHECK(lm_framing_encoder_add_table(e, "trades", ts, &t, &err) == 0);
  CHECK(lm_framing_encoder_add_opaque(e, "control", &c, &err) == 0);
  CHECK(lm_framing_encoder_add_table(e, "ticks", ks, &k, &err) == 0);
  CHECK(lm_framing_encoder_begin(e, &err) == 0);
  lm_batch *b1 = make_batch(ts, 5, 0), *b2 = make_batch(ks, 3, 10),
           *b3 = make_batch(ts, 2, 100), *b4 = make_batch(ks, 0, 0);
  CHECK(lm_framing_encoder_write_batch(e, t, b1, &err) == 0);
  CHECK(lm_framing_encoder_write_message(e, c, "hello", 5, &err) == 0);
  CHECK(lm_framing_encoder_write_batch(e, k, b2, &err) == 0);
  CHECK(lm_framing_encoder_write_message(e, c, "", 0, &err) == 0);
  CHECK(lm_framing_encoder_write_batch(e, t, b3, &err) == 0);
  CHECK(lm_framing_encoder_end_channel(e, t, &err) == 0);
  CHECK(lm_framing_encoder_write_batch(e, k, b4, &err) == 0);
  CHECK(lm_framing_encoder_write_error(e, k, 42, "disk full — é", &err) == 0);
  CHECK(lm_framing_encoder_end_channel(e, c, &err) == 0);
  CHECK(lm_framing_encoder_finish(e, &err) == 0);
  /* the encoder refuses misuse */
  CHECK(lm_framing_encoder_write_message(e, c, "x", 1, &err) == LM_ERR_INVALID);
  lm_batch_release(b1);
  lm_batch_release(b2);
  lm_batch_release(b3);
  lm_batch_release(b4);
  lm_framing_encoder_free(e);
  lm_schema_release(ts);
  lm_schema_release(ks);
}

static const char *EXPECTED =
    "ev1 ch0 trades kind1 symbol:VARCHAR price:DOUBLE volume:BIGINT\n"
    "ev1 ch1 control kind2\n"
    "ev1 ch2 ticks kind1 n:INTEGER\n"
    "ev2 ch0 trades rows5:s0,0,1,s1,0.5,8,s2,1,15,NULL,NULL,22,s4,2,29,\n"
    "ev3 ch1 control msg[5]hello\n"
    "ev2 ch2 ticks rows3:71,78,85,\n"
    "ev3 ch1 control msg[0]\n"
    "ev2 ch0 trades rows2:s100,50,701,s101,50.5,708,\n"
    "ev4 ch0 trades\n"
    "ev2 ch2 ticks rows0:\n"
    "ev5 ch2 ticks error 42 'disk full — é'\n"
    "ev4 ch1 control\n"
    "ev6 ch-1 -\n";

static void test_round_trip(void) {
  lm_buf w, o;
  lm_buf_init(&w);
  lm_buf_init(&o);
  conversation(&w, 0, NULL);
  lm_error err;
  CHECK(decode_all((const uint8_t *)w.data, w.len, &o, &err) == 0);
  CHECK_EQ_STR(o.data, EXPECTED);
  /* every two-piece split and a byte at a time give the same events */
  int bad = 0;
  for (size_t cut = 0; cut <= w.len; cut++) {
    lm_buf o2;
    lm_buf_init(&o2);
    lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
    decode_cuts((const uint8_t *)w.data, w.len, &cut, 1, d, &o2, &err);
    lm_framing_decoder_free(d);
    if (strcmp(o2.data, EXPECTED))
      bad++;
    lm_buf_free(&o2);
  }
  CHECK_EQ_I64(bad, 0);
  size_t *cuts = malloc(w.len * sizeof *cuts);
  for (size_t i = 0; i < w.len; i++)
    cuts[i] = i;
  lm_buf o3;
  lm_buf_init(&o3);
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  CHECK(decode_cuts((const uint8_t *)w.data, w.len, cuts, (int)w.len, d, &o3,
                    &err) == 0);
  lm_framing_decoder_free(d);
  CHECK_EQ_STR(o3.data, EXPECTED);
  /* events held to the end: whole, every two-piece split, byte by byte */
  lm_buf_reset(&o3);
  CHECK(decode_cuts_held((const uint8_t *)w.data, w.len, NULL, 0, &o3, &err) ==
        0);
  CHECK_EQ_STR(o3.data, EXPECTED);
  bad = 0;
  for (size_t cut = 0; cut <= w.len; cut++) {
    lm_buf_reset(&o3);
    decode_cuts_held((const uint8_t *)w.data, w.len, &cut, 1, &o3, &err);
    if (strcmp(o3.data, EXPECTED))
      bad++;
  }
  CHECK_EQ_I64(bad, 0);
  lm_buf_reset(&o3);
  CHECK(decode_cuts_held((const uint8_t *)w.data, w.len, cuts, (int)w.len, &o3,
                         &err) == 0);
  CHECK_EQ_STR(o3.data, EXPECTED);
  free(cuts);
  lm_buf_free(&o3);

  /* expectations that match, in another order, with schemas */
  lm_schema *ts = trades_schema();
  d = lm_framing_decoder_new(NULL, NULL, "t");
  CHECK(lm_framing_decoder_expect(d, "ticks", LM_FRAMING_TABLE, NULL, &err) ==
        0);
  CHECK(lm_framing_decoder_expect(d, "control", LM_FRAMING_OPAQUE, NULL,
                                  &err) == 0);
  CHECK(lm_framing_decoder_expect(d, "trades", LM_FRAMING_TABLE, ts, &err) ==
        0);
  lm_buf_reset(&o);
  CHECK(decode_cuts((const uint8_t *)w.data, w.len, NULL, 0, d, &o, &err) == 0);
  CHECK_EQ_STR(o.data, EXPECTED);
  CHECK_EQ_I64(lm_framing_decoder_find(d, "ticks"), 2);
  CHECK_EQ_I64(lm_framing_decoder_find(d, "nope"), -1);
  CHECK(!lm_framing_decoder_sequenced(d));
  lm_framing_decoder_free(d);
  lm_schema_release(ts);

  /* sequenced: the same events, with seq 7.. on every frame but the end */
  uint64_t seq = 7;
  lm_buf_reset(&w);
  conversation(&w, LM_FRAMING_FLAG_SEQ, &seq);
  CHECK_EQ_I64(seq, 7 + 9);
  lm_buf_reset(&o);
  CHECK(decode_all((const uint8_t *)w.data, w.len, &o, &err) == 0);
  CHECK(strstr(o.data, "ev2 ch0 trades seq7 rows5") != NULL);
  CHECK(strstr(o.data, "ev4 ch1 control seq15\n") != NULL);
  CHECK(strstr(o.data, "ev6 ch-1 -\n") != NULL);
  lm_buf_free(&w);
  lm_buf_free(&o);
}

/* Decodes p and expects failure code `code` with `text` and "byte AT". */
static void expect_reject(const uint8_t *p, size_t n, int code,
                          const char *text, long at,
                          lm_framing_decoder *d_opt) {
  lm_framing_decoder *d =
      d_opt ? d_opt : lm_framing_decoder_new(NULL, NULL, "t");
  lm_buf o;
  lm_buf_init(&o);
  lm_error err;
  int rc = decode_cuts(p, n, NULL, 0, d, &o, &err);
  CHECK_EQ_I64(rc, code);
  if (rc) {
    char want[64];
    snprintf(want, sizeof want, "t: byte %ld: ", at);
    if (!strstr(err.msg, text) ||
        (at >= 0 && strncmp(err.msg, want, strlen(want)) != 0)) {
      fprintf(stderr, "unexpected message: %s (want %s...%s)\n", err.msg, want,
              text);
      CHECK(0);
    }
    /* the error repeats */
    lm_error e2;
    CHECK_EQ_I64(lm_framing_decoder_feed(d, "x", 1, &e2), code);
    CHECK_EQ_STR(e2.msg, err.msg);
  }
  lm_framing_decoder_free(d);
  lm_buf_free(&o);
}

/* Hand-made streams (§2–§4), to say what the encoder never would. */
static void put(lm_buf *b, uint64_t v, int width) {
  for (int i = 0; i < width; i++)
    lm_buf_putc(b, (char)(v >> (8 * i)));
}
static void hs(lm_buf *b, uint16_t ver, uint16_t flags, uint32_t n) {
  lm_buf_append(b, LM_FRAMING_MAGIC, 8);
  put(b, ver, 2);
  put(b, flags, 2);
  put(b, n, 4);
}
static void decl_opaque(lm_buf *b, const char *name) {
  put(b, LM_FRAMING_OPAQUE, 1);
  put(b, 0, 1);
  put(b, strlen(name), 2);
  put(b, 0, 4);
  lm_buf_puts(b, name);
}
static void frame(lm_buf *b, int kind, uint32_t ch, bool seq, uint64_t s,
                  const char *payload, uint64_t len) {
  put(b, (uint64_t)kind, 1);
  put(b, 0, 3);
  put(b, ch, 4);
  if (seq)
    put(b, s, 8);
  put(b, len, 8);
  if (payload)
    lm_buf_append(b, payload, (size_t)len);
}

static void test_reject(void) {
  lm_buf b;
  lm_buf_init(&b);
  /* bad magic (detected from the first byte) */
  expect_reject((const uint8_t *)"LMFX", 4, LM_ERR_PARSE, "bad magic", 0, NULL);
  expect_reject((const uint8_t *)"ARROW1\0\0\0\0\0\0\0\0\0\0", 16, LM_ERR_PARSE,
                "bad magic", 0, NULL);
  /* version, flags */
  hs(&b, 2, 0, 0);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "unsupported framing version 2", 8, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0x8000, 0);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE, "unknown flags", 10,
                NULL);
  /* too many channels; name too long; empty name; bad UTF-8 name */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 5000);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_LIMIT,
                "5000 channels is over the limit of 1024", 12, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  put(&b, LM_FRAMING_OPAQUE, 1);
  put(&b, 0, 1);
  put(&b, 300, 2);
  put(&b, 0, 4);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_LIMIT,
                "channel name of 300 bytes is over the limit", 18, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a\xff");
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE, "not UTF-8", 24, NULL);
  /* duplicate channel names */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 2);
  decl_opaque(&b, "a");
  decl_opaque(&b, "a");
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "duplicate channel name 'a'", 16 + 9 + 8, NULL);
  /* expectations: unexpected, missing, wrong kind, wrong schema */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_END_STREAM, LM_FRAMING_NO_CHANNEL, false, 0, NULL, 0);
  lm_error err;
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_decoder_expect(d, "b", LM_FRAMING_OPAQUE, NULL, &err);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "unexpected channel 'a'", 24, d);
  d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_decoder_expect(d, "a", LM_FRAMING_OPAQUE, NULL, &err);
  lm_framing_decoder_expect(d, "b", LM_FRAMING_OPAQUE, NULL, &err);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "expected channel 'b' was not registered", 25, d);
  d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_decoder_expect(d, "a", LM_FRAMING_TABLE, NULL, &err);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "channel 'a' is opaque, expected a table", 16, d);
  lm_buf w;
  lm_buf_init(&w);
  conversation(&w, 0, NULL);
  lm_schema *ks = ticks_schema();
  d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_decoder_expect(d, "trades", LM_FRAMING_TABLE, ks, &err);
  lm_framing_decoder_expect(d, "ticks", LM_FRAMING_TABLE, ks, &err);
  lm_framing_decoder_expect(d, "control", LM_FRAMING_OPAQUE, NULL, &err);
  expect_reject((uint8_t *)w.data, w.len, LM_ERR_PARSE,
                "channel 'trades' has a schema other than expected", 16 + 14,
                d);
  lm_schema_release(ks);
  /* unknown channel; wrong frame kind for the channel; frames after end */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_MESSAGE, 1, false, 0, "x", 1);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE, "unknown channel 1",
                25 + 4, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_BATCH, 0, false, 0, "12345678", 8);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "batch frame on opaque channel 'a'", 25, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_END_CHANNEL, 0, false, 0, NULL, 0);
  frame(&b, LM_FRAME_MESSAGE, 0, false, 0, "x", 1);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "frame on channel 'a' after its end", 25 + 16, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_END_STREAM, LM_FRAMING_NO_CHANNEL, false, 0, NULL, 0);
  frame(&b, LM_FRAME_MESSAGE, 0, false, 0, "x", 1);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "bytes after the end of the stream", 25 + 16, NULL);
  /* after a connection error nothing may follow either */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 0);
  frame(&b, LM_FRAME_ERROR, LM_FRAMING_NO_CHANNEL, false, 0, "\1\0\0\0oops", 8);
  lm_buf o;
  lm_buf_init(&o);
  CHECK(decode_all((uint8_t *)b.data, b.len, &o, &err) == 0);
  CHECK_EQ_STR(o.data, "ev5 ch-1 - error 1 'oops'\n");
  frame(&b, LM_FRAME_END_STREAM, LM_FRAMING_NO_CHANNEL, false, 0, NULL, 0);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "bytes after the end of the stream", 16 + 24, NULL);
  /* unknown frame kind, reserved bytes, short error, bad UTF-8 text */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 0);
  frame(&b, 9, 0, false, 0, NULL, 0);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE, "unknown frame kind 9",
                16, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 0);
  frame(&b, LM_FRAME_ERROR, LM_FRAMING_NO_CHANNEL, false, 0, "\1\0", 2);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "error frame shorter than its 4-byte code", 24, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 0);
  frame(&b, LM_FRAME_ERROR, LM_FRAMING_NO_CHANNEL, false, 0, "\1\0\0\0ab\xc3",
        7);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "error frame text is not UTF-8", 16 + 16 + 6, NULL);
  /* oversize lengths: rejected from the header, before any payload */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_MESSAGE, 0, false, 0, NULL, UINT64_MAX);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_LIMIT,
                "frame length 18446744073709551615 is over the limit", 25 + 8,
                NULL);
  lm_framing_limits lim = {.max_frame_bytes = 4};
  d = lm_framing_decoder_new(&lim, NULL, "t");
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_MESSAGE, 0, false, 0, "12345", 5);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_LIMIT,
                "frame length 5 is over the limit of 4 bytes", 25 + 8, d);
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  put(&b, LM_FRAMING_TABLE, 1);
  put(&b, 0, 1);
  put(&b, 1, 2);
  put(&b, 0xFFFFFFFFu, 4);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_LIMIT,
                "schema of 4294967295 bytes is over the limit", 20, NULL);
  /* a table declaration whose schema is not an IPC schema message */
  lm_buf_reset(&b);
  hs(&b, 1, 0, 1);
  put(&b, LM_FRAMING_TABLE, 1);
  put(&b, 0, 1);
  put(&b, 1, 2);
  put(&b, 8, 4);
  lm_buf_append(&b, "t\xff\xff\xff\xff\0\0\0\0", 9);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "no Schema message in the stream", 25, NULL);
  /* sequence numbers must increase within a connection */
  lm_buf_reset(&b);
  hs(&b, 1, LM_FRAMING_FLAG_SEQ, 1);
  decl_opaque(&b, "a");
  frame(&b, LM_FRAME_MESSAGE, 0, true, 5, "x", 1);
  frame(&b, LM_FRAME_MESSAGE, 0, true, 5, "y", 1);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "sequence number 5 does not increase", 25 + 25 + 8, NULL);
  lm_buf_reset(&b);
  hs(&b, 1, LM_FRAMING_FLAG_SEQ, 0);
  frame(&b, LM_FRAME_END_STREAM, LM_FRAMING_NO_CHANNEL, true, 3, NULL, 0);
  expect_reject((uint8_t *)b.data, b.len, LM_ERR_PARSE,
                "end-of-stream frame with a sequence number", 24, NULL);
  lm_buf_free(&o);
  lm_buf_free(&w);
  lm_buf_free(&b);
}

/* Truncation at every byte is an error at finish (never a crash), and any
 * byte changed at any offset fails with a byte offset or still decodes. */
static void test_hostile(void) {
  lm_buf w;
  lm_buf_init(&w);
  uint64_t seq = 0;
  conversation(&w, LM_FRAMING_FLAG_SEQ, &seq);
  lm_error err;
  int bad = 0;
  for (size_t n = 0; n < w.len; n++) {
    lm_buf o;
    lm_buf_init(&o);
    int rc = decode_all((const uint8_t *)w.data, n, &o, &err);
    if (rc != LM_ERR_PARSE || !strstr(err.msg, ": byte "))
      bad++;
    lm_buf_free(&o);
  }
  CHECK_EQ_I64(bad, 0);
  uint8_t *cp = malloc(w.len);
  static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  bad = 0;
  for (size_t i = 0; i < w.len; i++)
    for (size_t v = 0; v < sizeof vals; v++) {
      memcpy(cp, w.data, w.len);
      if (cp[i] == vals[v])
        continue;
      cp[i] = vals[v];
      lm_buf o;
      lm_buf_init(&o);
      int rc = decode_all(cp, w.len, &o, &err);
      if (rc && rc != LM_ERR_NOMEM && !strstr(err.msg, ": byte "))
        bad++;
      lm_buf_free(&o);
    }
  CHECK_EQ_I64(bad, 0);
  free(cp);
  lm_buf_free(&w);
}

/* Three connections of one logical stream, written with one shared
 * counter in a random order, fed in random chunks in a random order. */
static void test_merge(void) {
  lm_schema *ts = trades_schema();
  for (int mode = 0; mode < 3; mode++) { /* 0 ok, 1 gap, 2 duplicate */
    lm_buf out[3];
    lm_framing_encoder *e[3];
    uint64_t seq = 100;
    int t = 0, c = 0;
    lm_error err;
    for (int i = 0; i < 3; i++) {
      lm_buf_init(&out[i]);
      e[i] = lm_framing_encoder_new(&out[i], LM_FRAMING_FLAG_SEQ, &seq, NULL);
      lm_framing_encoder_add_table(e[i], "trades", ts, &t, &err);
      lm_framing_encoder_add_opaque(e[i], "log", &c, &err);
      lm_framing_encoder_begin(e[i], &err);
    }
    uint64_t rng = 12345 + (uint64_t)mode;
    lm_buf want;
    lm_buf_init(&want);
    const int N = 60;
    int prev = 0;
    for (int k = 0; k < N; k++) {
      int i = (int)(lm_test_rand(&rng) % 3);
      if (mode == 2 && k == 41)
        i = (prev + 1) % 3; /* on another connection than 140 */
      prev = i;
      if (mode == 1 && k == 37)
        seq++; /* a frame that never arrives */
      if (mode == 2 && k == 41)
        seq--; /* a number used twice */
      uint64_t s = seq;
      if (k % 3 == 0) {
        lm_batch *b = make_batch(ts, k % 5, k);
        lm_framing_encoder_write_batch(e[i], t, b, &err);
        lm_framing_event ev = {.kind = LM_FRAMING_EV_BATCH,
                               .channel = t,
                               .name = "trades",
                               .batch = b,
                               .has_seq = true,
                               .seq = s};
        dump_event(&want, &ev);
        lm_batch_release(b);
      } else {
        char m[32];
        int len = snprintf(m, sizeof m, "msg %d", k);
        lm_framing_encoder_write_message(e[i], c, m, (size_t)len, &err);
        lm_framing_event ev = {.kind = LM_FRAMING_EV_MESSAGE,
                               .channel = c,
                               .name = "log",
                               .data = (uint8_t *)m,
                               .len = (size_t)len,
                               .has_seq = true,
                               .seq = s};
        dump_event(&want, &ev);
      }
    }
    lm_buf_puts(&want, "ev6 ch-1 -\n");
    lm_framing_decoder *d[3];
    size_t at[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
      lm_framing_encoder_finish(e[i], &err);
      lm_framing_encoder_free(e[i]);
      char name[16];
      snprintf(name, sizeof name, "conn%d", i);
      d[i] = lm_framing_decoder_new(NULL, NULL, name);
    }
    lm_framing_merger *m = lm_framing_merger_new(3, d, 100);
    lm_buf got;
    lm_buf_init(&got);
    int channels = 0, rc = 0;
    for (;;) {
      lm_framing_event ev;
      rc = lm_framing_merger_next(m, &ev, &err);
      if (rc)
        break;
      if (ev.kind == LM_FRAMING_EV_CHANNEL) {
        channels++;
        lm_framing_event_clear(&ev);
        continue;
      }
      if (ev.kind != LM_FRAMING_EV_NONE) {
        dump_event(&got, &ev);
        bool end = ev.kind == LM_FRAMING_EV_END_STREAM;
        lm_framing_event_clear(&ev);
        if (end)
          break;
        continue;
      }
      /* nothing ready: feed a random chunk to a random connection */
      int i = (int)(lm_test_rand(&rng) % 3);
      if (at[i] == out[i].len) {
        int j;
        for (j = 0; j < 3 && at[j] == out[j].len; j++)
          ;
        if (j == 3) {
          rc = -1; /* everything fed yet nothing to yield */
          break;
        }
        i = j;
      }
      size_t n = 1 + (size_t)(lm_test_rand(&rng) % 97);
      n = LM_MIN(n, out[i].len - at[i]);
      CHECK(lm_framing_decoder_feed(d[i], out[i].data + at[i], n, &err) == 0);
      at[i] += n;
      if (at[i] == out[i].len)
        CHECK(lm_framing_decoder_finish(d[i], &err) == 0);
    }
    if (mode == 0) {
      CHECK_EQ_I64(rc, 0);
      CHECK_EQ_I64(channels, 6);
      CHECK_EQ_STR(got.data, want.data);
    } else if (mode == 1) {
      CHECK_EQ_I64(rc, LM_ERR_PARSE);
      CHECK(strstr(err.msg, "sequence gap: 137 is missing") != NULL);
      CHECK(strstr(err.msg, ": byte ") != NULL);
    } else {
      CHECK_EQ_I64(rc, LM_ERR_PARSE);
      CHECK(strstr(err.msg, "duplicate sequence number 140") != NULL);
    }
    if (rc) { /* repeats */
      lm_error e2;
      lm_framing_event ev;
      CHECK_EQ_I64(lm_framing_merger_next(m, &ev, &e2), rc);
    }
    lm_framing_merger_free(m);
    for (int i = 0; i < 3; i++) {
      lm_framing_decoder_free(d[i]);
      lm_buf_free(&out[i]);
    }
    lm_buf_free(&want);
    lm_buf_free(&got);
  }
  /* an unsequenced connection cannot be merged */
  lm_buf w;
  lm_buf_init(&w);
  conversation(&w, 0, NULL);
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_error err;
  lm_framing_decoder_feed(d, w.data, w.len, &err);
  lm_framing_merger *m = lm_framing_merger_new(1, &d, 0);
  lm_framing_event ev;
  int rc;
  while ((rc = lm_framing_merger_next(m, &ev, &err)) == 0 &&
         ev.kind != LM_FRAMING_EV_NONE)
    lm_framing_event_clear(&ev);
  CHECK_EQ_I64(rc, LM_ERR_PARSE);
  CHECK(strstr(err.msg, "without a sequence number") != NULL);
  lm_framing_merger_free(m);
  lm_framing_decoder_free(d);
  lm_buf_free(&w);
  lm_schema_release(ts);
}

static void test_encoder_misuse(void) {
  lm_buf w;
  lm_buf_init(&w);
  lm_error err;
  CHECK(lm_framing_encoder_new(&w, LM_FRAMING_FLAG_SEQ, NULL, NULL) == NULL);
  CHECK(lm_framing_encoder_new(&w, 0x10, NULL, NULL) == NULL);
  lm_framing_encoder *e = lm_framing_encoder_new(&w, 0, NULL, NULL);
  int id;
  CHECK(lm_framing_encoder_add_opaque(e, "", &id, &err) == LM_ERR_INVALID);
  CHECK(lm_framing_encoder_add_opaque(e, "a", &id, &err) == 0);
  CHECK(lm_framing_encoder_add_opaque(e, "a", &id, &err) == LM_ERR_INVALID);
  CHECK(lm_framing_encoder_write_message(e, 0, "x", 1, &err) ==
        LM_ERR_INVALID); /* before begin */
  CHECK(lm_framing_encoder_begin(e, &err) == 0);
  CHECK(lm_framing_encoder_add_opaque(e, "b", &id, &err) == LM_ERR_INVALID);
  CHECK(lm_framing_encoder_write_message(e, 1, "x", 1, &err) == LM_ERR_INVALID);
  lm_schema *ts = trades_schema();
  lm_batch *b = make_batch(ts, 1, 0);
  CHECK(lm_framing_encoder_write_batch(e, 0, b, &err) == LM_ERR_INVALID);
  lm_batch_release(b);
  lm_schema_release(ts);
  CHECK(lm_framing_encoder_write_error(e, -1, 3, "bye", &err) == 0);
  CHECK(lm_framing_encoder_finish(e, &err) == LM_ERR_INVALID);
  lm_framing_encoder_free(e);
  lm_buf o;
  lm_buf_init(&o);
  CHECK(decode_all((uint8_t *)w.data, w.len, &o, &err) == 0);
  CHECK_EQ_STR(o.data, "ev1 ch0 a kind2\nev5 ch-1 - error 3 'bye'\n");
  lm_buf_free(&o);
  lm_buf_free(&w);
}

/* feed_buffer: each piece p[cuts[i-1], cuts[i]) is copied into its own
 * lm_buffer (exact size, so ASan sees overreads) and fed with
 * lm_framing_decoder_feed_buffer; events are held to the end, the pieces
 * and the decoder released first, then the batches dumped again (views of
 * the pieces must keep them alive and unchanged). *in_place counts batch
 * columns whose values buffer lies inside a piece (zero-copy). */
static int decode_buffers(const uint8_t *p, size_t n, const size_t *cuts,
                          int ncuts, lm_buf *o, int *in_place, lm_error *err) {
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_framing_event evs[64];
  int nev = 0, rc = 0;
  size_t at = 0;
  for (int i = 0; i <= ncuts + 1 && !rc; i++) {
    if (i <= ncuts) {
      size_t to = i < ncuts ? cuts[i] : n;
      lm_buffer *piece = lm_buffer_new(to - at ? to - at : 1);
      memcpy(piece->data, p + at, to - at);
      piece->size = to - at;
      int ev0 = nev;
      rc = lm_framing_decoder_feed_buffer(d, piece, 0, to - at, err);
      while (nev < 64 && lm_framing_decoder_next(d, &evs[nev]))
        nev++;
      for (int k = ev0; k < nev; k++)
        if (evs[k].batch)
          for (int c = 0; c < evs[k].batch->num_columns; c++) {
            lm_buffer *v = evs[k].batch->columns[c]->values;
            if (v && v->data >= piece->data &&
                v->data < piece->data + piece->size)
              (*in_place)++;
          }
      lm_buffer_release(piece); /* batches hold what they use */
      at = to;
    } else {
      rc = lm_framing_decoder_finish(d, err);
      while (nev < 64 && lm_framing_decoder_next(d, &evs[nev]))
        nev++;
    }
  }
  lm_buf before, after;
  lm_buf_init(&before);
  lm_buf_init(&after);
  for (int i = 0; i < nev; i++) {
    dump_event(o, &evs[i]);
    if (evs[i].batch)
      dump_batch_rows(&before, evs[i].batch);
  }
  lm_framing_decoder_free(d);
  for (int i = 0; i < nev; i++) {
    if (evs[i].batch)
      dump_batch_rows(&after, evs[i].batch);
    lm_framing_event_clear(&evs[i]);
  }
  if (before.len != after.len ||
      (before.len && memcmp(before.data, after.data, before.len)))
    lm_buf_printf(o, "batch values changed after the pieces were released\n");
  lm_buf_free(&before);
  lm_buf_free(&after);
  if (rc)
    lm_buf_printf(o, "ERROR %d %s\n", rc, err->msg);
  return rc;
}

/* lm_framing_decoder_feed_buffer gives the events of feed for every split
 * (whole, every two- and three-piece split, a byte at a time), decodes
 * batches in place when the frame lies whole in a piece, copies only
 * partial frames, and reports errors at the same offsets as feed. */
static void test_feed_buffer(void) {
  lm_buf w, o;
  lm_buf_init(&w);
  lm_buf_init(&o);
  conversation(&w, 0, NULL);
  const uint8_t *p = (const uint8_t *)w.data;
  lm_error err;
  int in_place = 0;
  CHECK(decode_buffers(p, w.len, NULL, 0, &o, &in_place, &err) == 0);
  CHECK_EQ_STR(o.data, EXPECTED);
  /* the conversation's payloads are not 8-aligned (names of odd length,
   * a 5-byte message: docs/framing.md §1), so its batches are copied; a
   * stream whose structures are all multiples of 8 bytes (an 8-byte name)
   * decodes in place: both batches' 3 columns are views of the buffer */
  {
    lm_buf a;
    lm_buf_init(&a);
    lm_schema *ts = trades_schema();
    lm_framing_encoder *e = lm_framing_encoder_new(&a, 0, NULL, NULL);
    int t;
    CHECK(lm_framing_encoder_add_table(e, "trades_8", ts, &t, &err) == 0);
    CHECK(lm_framing_encoder_begin(e, &err) == 0);
    for (int k = 0; k < 2; k++) {
      lm_batch *b = make_batch(ts, 40, k * 100);
      CHECK(lm_framing_encoder_write_batch(e, t, b, &err) == 0);
      lm_batch_release(b);
    }
    CHECK(lm_framing_encoder_finish(e, &err) == 0);
    lm_framing_encoder_free(e);
    lm_schema_release(ts);
    lm_buf ra, rb;
    lm_buf_init(&ra);
    lm_buf_init(&rb);
    CHECK(decode_all((const uint8_t *)a.data, a.len, &ra, &err) == 0);
    in_place = 0;
    CHECK(decode_buffers((const uint8_t *)a.data, a.len, NULL, 0, &rb,
                         &in_place, &err) == 0);
    CHECK_EQ_STR(rb.data, ra.data);
    CHECK_EQ_I64(in_place, 6);
    /* split inside the second batch frame: the first is in place, the
     * second completed in the pending buffer (copied once) */
    size_t cut = a.len - 40;
    in_place = 0;
    lm_buf_reset(&rb);
    CHECK(decode_buffers((const uint8_t *)a.data, a.len, &cut, 1, &rb,
                         &in_place, &err) == 0);
    CHECK_EQ_STR(rb.data, ra.data);
    CHECK_EQ_I64(in_place, 3);
    lm_buf_free(&ra);
    lm_buf_free(&rb);
    lm_buf_free(&a);
  }
  int bad = 0, in_place_split = 0;
  for (size_t cut = 0; cut <= w.len; cut++) {
    lm_buf_reset(&o);
    decode_buffers(p, w.len, &cut, 1, &o, &in_place_split, &err);
    if (strcmp(o.data, EXPECTED))
      bad++;
    size_t cuts3[2] = {cut, cut + 7 <= w.len ? cut + 7 : w.len};
    lm_buf_reset(&o);
    decode_buffers(p, w.len, cuts3, 2, &o, &in_place_split, &err);
    if (strcmp(o.data, EXPECTED))
      bad++;
  }
  CHECK_EQ_I64(bad, 0);
  size_t *cuts = malloc(w.len * sizeof *cuts);
  for (size_t i = 0; i < w.len; i++)
    cuts[i] = i;
  lm_buf_reset(&o);
  CHECK(decode_buffers(p, w.len, cuts, (int)w.len, &o, &in_place, &err) == 0);
  CHECK_EQ_STR(o.data, EXPECTED);
  free(cuts);
  /* sequenced conversation, whole and split */
  uint64_t seq = 7;
  lm_buf_reset(&w);
  conversation(&w, LM_FRAMING_FLAG_SEQ, &seq);
  p = (const uint8_t *)w.data;
  lm_buf ref;
  lm_buf_init(&ref);
  CHECK(decode_all(p, w.len, &ref, &err) == 0);
  bad = 0;
  for (size_t cut = 0; cut <= w.len; cut += 3) {
    lm_buf_reset(&o);
    decode_buffers(p, w.len, &cut, 1, &o, &in_place_split, &err);
    if (strcmp(o.data, ref.data))
      bad++;
  }
  CHECK_EQ_I64(bad, 0);
  /* hostile: truncation and a changed byte give the same result (events
   * and error text, offsets included) as feed */
  bad = 0;
  lm_buf mut;
  lm_buf_init(&mut);
  for (size_t at = 0; at < w.len; at++) {
    for (int trunc = 0; trunc < 2; trunc++) {
      lm_buf_reset(&mut);
      lm_buf_append(&mut, w.data, trunc ? at : w.len);
      if (!trunc)
        mut.data[at] ^= 0x5a;
      const uint8_t *mp = (const uint8_t *)mut.data;
      size_t half = mut.len / 2;
      lm_buf a, b;
      lm_buf_init(&a);
      lm_buf_init(&b);
      lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
      decode_cuts(mp, mut.len, &half, 1, d, &a, &err);
      lm_framing_decoder_free(d);
      int ip = 0;
      decode_buffers(mp, mut.len, &half, 1, &b, &ip, &err);
      if (a.len != b.len || memcmp(a.data, b.data, a.len)) {
        if (bad++ < 3)
          fprintf(stderr, "feed vs feed_buffer at %zu (%s):\n%s---\n%s\n", at,
                  trunc ? "truncated" : "changed", a.data, b.data);
      }
      lm_buf_free(&a);
      lm_buf_free(&b);
    }
  }
  CHECK_EQ_I64(bad, 0);
  /* a range outside the buffer is refused, not sticky */
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
  lm_buffer *small = lm_buffer_new(8);
  small->size = 8;
  CHECK_EQ_I64(lm_framing_decoder_feed_buffer(d, small, 4, 5, &err),
               LM_ERR_INVALID);
  CHECK_EQ_I64(lm_framing_decoder_feed_buffer(d, small, 0, 0, &err), 0);
  lm_buffer_release(small);
  lm_framing_decoder_free(d);
  lm_buf_free(&mut);
  lm_buf_free(&ref);
  lm_buf_free(&w);
  lm_buf_free(&o);
}

/* A DICTIONARY<INT8, VARCHAR> array of the given indices (-1 = NULL) over
 * dict (one reference taken). */
static lm_array *dict_col(lm_array *dict, const int8_t *ix, int n) {
  lm_type dt;
  lm_type_dictionary(LM_TYPE_INT8, dict->type, false, &dt);
  lm_buffer *iv = lm_buffer_new((size_t)n), *vb = lm_buffer_new(1);
  int nulls = 0;
  for (int i = 0; i < n; i++) {
    iv->data[i] = (uint8_t)(ix[i] < 0 ? 0 : ix[i]);
    if (ix[i] < 0)
      nulls++;
    else
      vb->data[i / 8] |= (uint8_t)(1u << (i % 8));
  }
  return lm_array_new(dt, n, nulls, 0, vb, iv, NULL, 0, NULL, dict);
}

static lm_array *utf8_values(const char *const *v, int n) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), n);
  for (int i = 0; i < n; i++)
    lm_builder_append_str(&b, v[i], (int32_t)strlen(v[i]));
  lm_array *a;
  lm_builder_finish(&b, &a);
  lm_builder_free(&b);
  return a;
}

/* Dictionary-encoded columns and batch custom_metadata through framing
 * (docs/framing.md §4.1): a BATCH payload carries the DictionaryBatch
 * messages its record batch needs (the first dictionary, a delta, a
 * replacement) before it; the decoder applies them to the channel and
 * gives each batch's custom_metadata in the event. Checked with feed and
 * with feed_buffer (every two-piece split). Expected rows by hand:
 * batch 1 over {red, green}: [red, NULL, green]; batch 2 over the delta
 * {red, green, blue}: [blue, red]; batch 3 over the replacement {x, y}:
 * [y, x, y]. */
static void test_dictionaries_metadata(void) {
  static const char *const d1v[] = {"red", "green"},
                           *const d2v[] = {"red", "green", "blue"},
                           *const d3v[] = {"x", "y"};
  lm_array *d1 = utf8_values(d1v, 2), *d2 = utf8_values(d2v, 3),
           *d3 = utf8_values(d3v, 2);
  static const int8_t i1[] = {0, -1, 1}, i2[] = {2, 0}, i3[] = {1, 0, 1};
  lm_array *c1 = dict_col(d1, i1, 3), *c2 = dict_col(d2, i2, 2),
           *c3 = dict_col(d3, i3, 3);
  lm_schema *s = lm_schema_new(1);
  lm_schema_set_field(s, 0, "color", c1->type, true);
  lm_batch *b1 = lm_batch_new(lm_schema_retain(s), 3, &c1),
           *b2 = lm_batch_new(lm_schema_retain(s), 2, &c2),
           *b3 = lm_batch_new(lm_schema_retain(s), 3, &c3);
  lm_buf w;
  lm_buf_init(&w);
  lm_error err;
  lm_framing_encoder *e = lm_framing_encoder_new(&w, 0, NULL, NULL);
  int ch;
  CHECK(lm_framing_encoder_add_table(e, "colors", s, &ch, &err) == 0);
  CHECK(lm_framing_encoder_begin(e, &err) == 0);
  lm_ipc_kv kv[2] = {{"source", "sensor-7"}, {"empty", ""}};
  CHECK(lm_framing_encoder_write_batch(e, ch, b1, &err) == 0);
  CHECK(lm_framing_encoder_write_batch_metadata(e, ch, b2, kv, 2, &err) == 0);
  CHECK(lm_framing_encoder_write_batch(e, ch, b3, &err) == 0);
  CHECK(lm_framing_encoder_finish(e, &err) == 0);
  lm_framing_encoder_free(e);
  const char *want = "red,NULL,green,||source=sensor-7;empty=;|blue,red,|"
                     "y,x,y,|";
  for (int mode = 0; mode < 2; mode++) {
    int bad = 0;
    for (size_t cut = 0; cut <= w.len; cut += mode ? 1 : w.len + 1) {
      lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "t");
      lm_buf o;
      lm_buf_init(&o);
      int rc = 0;
      size_t pieces[2][2] = {{0, cut}, {cut, w.len}};
      for (int k = 0; k < 2 && !rc; k++) {
        size_t a = pieces[k][0], n = pieces[k][1] - a;
        if (mode == 0) {
          rc = lm_framing_decoder_feed(d, w.data + a, n, &err);
        } else {
          lm_buffer *pb = lm_buffer_new(n ? n : 1);
          memcpy(pb->data, w.data + a, n);
          pb->size = n;
          rc = lm_framing_decoder_feed_buffer(d, pb, 0, n, &err);
          lm_buffer_release(pb);
        }
      }
      if (!rc)
        rc = lm_framing_decoder_finish(d, &err);
      if (rc)
        lm_buf_printf(&o, "ERROR %s", err.msg);
      lm_framing_event ev;
      while (lm_framing_decoder_next(d, &ev)) {
        if (ev.kind == LM_FRAMING_EV_BATCH) {
          for (int i = 0; i < ev.n_metadata; i++)
            lm_buf_printf(&o, "%s%s=%s;", i ? "" : "|", ev.metadata[i].key,
                          ev.metadata[i].value);
          if (ev.n_metadata)
            lm_buf_putc(&o, '|');
          for (int64_t i = 0; i < ev.batch->num_rows; i++) {
            lm_array_format_value(&o, ev.batch->columns[0], i, "NULL");
            lm_buf_putc(&o, ',');
          }
          lm_buf_putc(&o, '|');
        }
        lm_framing_event_clear(&ev);
      }
      lm_framing_decoder_free(d);
      lm_buf_putc(&o, 0);
      if (strcmp(o.data, want)) {
        if (bad++ < 2)
          fprintf(stderr, "dictionaries (%s, cut %zu): %s\n",
                  mode ? "feed_buffer" : "feed", cut, o.data);
      }
      lm_buf_free(&o);
    }
    CHECK_EQ_I64(bad, 0);
  }
  lm_buf_free(&w);
  lm_batch_release(b1);
  lm_batch_release(b2);
  lm_batch_release(b3);
  lm_schema_release(s);
}

int main(void) {
  test_round_trip();
  test_dictionaries_metadata();
  test_feed_buffer();
  test_reject();
  test_hostile();
  test_merge();
  test_encoder_misuse();
  return lm_test_done("test_framing");
}
