/*
 * format/framing.c — the framing protocol of docs/framing.md: encoder,
 * incremental decoder and sequence merger (API in format/lm_framing.h).
 */
#include "format/lm_framing.h"

#include "format/format_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_BYTES 16   /* §2 */
#define DECL_BYTES 8   /* §3 fixed part */
#define FRAME_BYTES 16 /* §4 without the sequence field */
#define MAX_CHANNELS_HARD 65536
#define MAX_NAME_HARD 65535

void lm_framing_limits_default(lm_framing_limits *l) {
  l->max_frame_bytes = (int64_t)64 << 20;
  l->max_channels = 1024;
  l->max_name_bytes = 255;
}

static void limits_fill(lm_framing_limits *dst, const lm_framing_limits *src) {
  lm_framing_limits_default(dst);
  if (!src)
    return;
  if (src->max_frame_bytes > 0)
    dst->max_frame_bytes = src->max_frame_bytes;
  if (src->max_channels > 0)
    dst->max_channels = LM_MIN(src->max_channels, MAX_CHANNELS_HARD);
  if (src->max_name_bytes > 0)
    dst->max_name_bytes = LM_MIN(src->max_name_bytes, MAX_NAME_HARD);
}

static void put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t get_u64(const uint8_t *p) {
  return (uint64_t)get_u32(p) | ((uint64_t)get_u32(p + 4) << 32);
}

/* A channel name: 1..limit bytes of UTF-8 without NUL (§3). */
static bool name_ok(const char *s, size_t n, size_t limit) {
  if (n == 0 || n > limit || memchr(s, 0, n))
    return false;
  return lm_fmt_utf8_check(s, n) == n;
}

/* ================================================================ encoder */

typedef struct enc_channel {
  char *name;
  int kind;
  lm_schema *schema;
  lm_ipc_writer *w;
  lm_buf scratch; /* the IPC writer's output: schema, then one batch */
  bool closed;
} enc_channel;

struct lm_framing_encoder {
  lm_buf *out;
  uint32_t flags;
  uint64_t *seq;
  lm_ipc_write_options ipc;
  bool has_ipc;
  enc_channel *ch;
  int n_ch, cap_ch;
  bool begun, ended;
};

lm_framing_encoder *lm_framing_encoder_new(lm_buf *out, uint32_t flags,
                                           uint64_t *seq_counter,
                                           const lm_ipc_write_options *ipc) {
  if (!out || (flags & ~LM_FRAMING_FLAG_SEQ) ||
      ((flags & LM_FRAMING_FLAG_SEQ) && !seq_counter))
    return NULL;
  lm_framing_encoder *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->out = out;
  e->flags = flags;
  e->seq = seq_counter;
  if (ipc) {
    e->ipc = *ipc;
    e->has_ipc = true;
  }
  return e;
}

static int add_channel(lm_framing_encoder *e, const char *name, int kind,
                       lm_schema *schema, int *id, lm_error *err) {
  if (e->begun)
    return lm_err(err, LM_ERR_INVALID,
                  "framing: channels must be declared before begin");
  size_t n = name ? strlen(name) : 0;
  if (!name || !name_ok(name, n, MAX_NAME_HARD))
    return lm_err(err, LM_ERR_INVALID,
                  "framing: a channel name must be 1..65535 bytes of UTF-8");
  if (e->n_ch >= MAX_CHANNELS_HARD)
    return lm_err(err, LM_ERR_INVALID, "framing: too many channels");
  for (int i = 0; i < e->n_ch; i++)
    if (strcmp(e->ch[i].name, name) == 0)
      return lm_err(err, LM_ERR_INVALID, "framing: duplicate channel '%s'",
                    name);
  if (e->n_ch == e->cap_ch) {
    int nc = e->cap_ch ? e->cap_ch * 2 : 4;
    enc_channel *p = realloc(e->ch, (size_t)nc * sizeof *p);
    if (!p)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    e->ch = p;
    e->cap_ch = nc;
  }
  enc_channel *c = &e->ch[e->n_ch];
  memset(c, 0, sizeof *c);
  lm_buf_init(&c->scratch);
  c->kind = kind;
  c->name = lm_strdup(name);
  if (!c->name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (kind == LM_FRAMING_TABLE) {
    int rc = lm_ipc_writer_new(schema, false, e->has_ipc ? &e->ipc : NULL,
                               &c->scratch, &c->w, err);
    if (rc) {
      free(c->name);
      lm_buf_free(&c->scratch);
      return rc;
    }
    c->schema = lm_schema_retain(schema);
  }
  *id = e->n_ch++;
  return 0;
}

int lm_framing_encoder_add_table(lm_framing_encoder *e, const char *name,
                                 lm_schema *schema, int *id, lm_error *err) {
  if (!schema)
    return lm_err(err, LM_ERR_INVALID, "framing: a table needs a schema");
  return add_channel(e, name, LM_FRAMING_TABLE, schema, id, err);
}

int lm_framing_encoder_set_dictionary_ids(lm_framing_encoder *e, int ch,
                                          const int64_t *ids, int n_ids,
                                          lm_error *err) {
  if (e->begun)
    return lm_err(err, LM_ERR_INVALID,
                  "framing: dictionary ids must be set before begin");
  if (ch < 0 || ch >= e->n_ch || e->ch[ch].kind != LM_FRAMING_TABLE)
    return lm_err(err, LM_ERR_INVALID, "framing: %d is not a table channel",
                  ch);
  enc_channel *c = &e->ch[ch];
  lm_ipc_write_options o;
  if (e->has_ipc)
    o = e->ipc;
  else
    memset(&o, 0, sizeof o);
  o.n_dictionary_ids = n_ids;
  o.dictionary_ids = ids;
  /* the writer appends to c->scratch (its Schema message at once): try
   * the ids on a scratch buffer first, so a refusal leaves c as it was */
  lm_buf trial;
  lm_buf_init(&trial);
  lm_ipc_writer *w;
  int rc = lm_ipc_writer_new(c->schema, false, &o, &trial, &w, err);
  lm_ipc_writer_free(rc ? NULL : w);
  lm_buf_free(&trial);
  if (rc)
    return rc;
  lm_ipc_writer_free(c->w);
  c->w = NULL;
  lm_buf_reset(&c->scratch);
  return lm_ipc_writer_new(c->schema, false, &o, &c->scratch, &c->w, err);
}

int lm_framing_encoder_add_opaque(lm_framing_encoder *e, const char *name,
                                  int *id, lm_error *err) {
  return add_channel(e, name, LM_FRAMING_OPAQUE, NULL, id, err);
}

int lm_framing_encoder_begin(lm_framing_encoder *e, lm_error *err) {
  if (e->begun)
    return lm_err(err, LM_ERR_INVALID, "framing: begin called twice");
  uint8_t h[HDR_BYTES];
  memcpy(h, LM_FRAMING_MAGIC, 8);
  put_u16(h + 8, LM_FRAMING_VERSION);
  put_u16(h + 10, (uint16_t)e->flags);
  put_u32(h + 12, (uint32_t)e->n_ch);
  if (lm_buf_append(e->out, h, sizeof h))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < e->n_ch; i++) {
    enc_channel *c = &e->ch[i];
    size_t nl = strlen(c->name);
    size_t sl = c->kind == LM_FRAMING_TABLE ? c->scratch.len : 0;
    if (sl > UINT32_MAX)
      return lm_err(err, LM_ERR_INVALID, "framing: schema message too large");
    uint8_t d[DECL_BYTES];
    d[0] = (uint8_t)c->kind;
    d[1] = 0;
    put_u16(d + 2, (uint16_t)nl);
    put_u32(d + 4, (uint32_t)sl);
    if (lm_buf_append(e->out, d, sizeof d) ||
        lm_buf_append(e->out, c->name, nl) ||
        (sl && lm_buf_append(e->out, c->scratch.data, sl)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  e->begun = true;
  return 0;
}

/* Appends a frame header and payload (§4). */
static int put_frame(lm_framing_encoder *e, int kind, uint32_t ch,
                     const void *p1, size_t n1, const void *p2, size_t n2,
                     lm_error *err) {
  uint8_t h[FRAME_BYTES + 8];
  size_t hl = 0;
  h[0] = (uint8_t)kind;
  h[1] = h[2] = h[3] = 0;
  put_u32(h + 4, ch);
  hl = 8;
  if (e->flags & LM_FRAMING_FLAG_SEQ) {
    uint64_t s = kind == LM_FRAME_END_STREAM
                     ? LM_FRAMING_NO_SEQ
                     : __atomic_fetch_add(e->seq, 1, __ATOMIC_RELAXED);
    put_u64(h + hl, s);
    hl += 8;
  }
  put_u64(h + hl, (uint64_t)n1 + n2);
  hl += 8;
  if (lm_buf_append(e->out, h, hl) || (n1 && lm_buf_append(e->out, p1, n1)) ||
      (n2 && lm_buf_append(e->out, p2, n2)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return 0;
}

static int check_ch(lm_framing_encoder *e, int ch, int kind, lm_error *err) {
  if (!e->begun || e->ended)
    return lm_err(err, LM_ERR_INVALID,
                  e->ended ? "framing: the stream has ended"
                           : "framing: begin has not been called");
  if (ch < 0 || ch >= e->n_ch)
    return lm_err(err, LM_ERR_INVALID, "framing: no channel %d", ch);
  if (kind && e->ch[ch].kind != kind)
    return lm_err(err, LM_ERR_INVALID, "framing: channel '%s' is %s",
                  e->ch[ch].name,
                  e->ch[ch].kind == LM_FRAMING_TABLE ? "a table channel"
                                                     : "an opaque channel");
  if (e->ch[ch].closed)
    return lm_err(err, LM_ERR_INVALID, "framing: channel '%s' has ended",
                  e->ch[ch].name);
  return 0;
}

int lm_framing_encoder_write_batch(lm_framing_encoder *e, int ch,
                                   const lm_batch *b, lm_error *err) {
  return lm_framing_encoder_write_batch_metadata(e, ch, b, NULL, 0, err);
}

int lm_framing_encoder_write_batch_metadata(lm_framing_encoder *e, int ch,
                                            const lm_batch *b,
                                            const lm_ipc_kv *kv, int n_kv,
                                            lm_error *err) {
  int rc = check_ch(e, ch, LM_FRAMING_TABLE, err);
  if (rc)
    return rc;
  enc_channel *c = &e->ch[ch];
  if (!c->w) /* set_dictionary_ids ran out of memory */
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf_reset(&c->scratch);
  if ((rc = lm_ipc_writer_write_metadata(c->w, b, kv, n_kv, err)) != 0)
    return rc;
  return put_frame(e, LM_FRAME_BATCH, (uint32_t)ch, c->scratch.data,
                   c->scratch.len, NULL, 0, err);
}

int lm_framing_encoder_write_message(lm_framing_encoder *e, int ch,
                                     const void *data, size_t len,
                                     lm_error *err) {
  int rc = check_ch(e, ch, LM_FRAMING_OPAQUE, err);
  if (rc)
    return rc;
  return put_frame(e, LM_FRAME_MESSAGE, (uint32_t)ch, data, len, NULL, 0, err);
}

int lm_framing_encoder_end_channel(lm_framing_encoder *e, int ch,
                                   lm_error *err) {
  int rc = check_ch(e, ch, 0, err);
  if (rc)
    return rc;
  e->ch[ch].closed = true;
  return put_frame(e, LM_FRAME_END_CHANNEL, (uint32_t)ch, NULL, 0, NULL, 0,
                   err);
}

int lm_framing_encoder_write_error(lm_framing_encoder *e, int ch, uint32_t code,
                                   const char *msg, lm_error *err) {
  size_t n = msg ? strlen(msg) : 0;
  if (n && lm_fmt_utf8_check(msg, n) != n)
    return lm_err(err, LM_ERR_INVALID, "framing: error text is not UTF-8");
  uint32_t id = LM_FRAMING_NO_CHANNEL;
  if (ch >= 0) {
    int rc = check_ch(e, ch, 0, err);
    if (rc)
      return rc;
    e->ch[ch].closed = true;
    id = (uint32_t)ch;
  } else if (!e->begun || e->ended) {
    return lm_err(err, LM_ERR_INVALID, "framing: the stream is not open");
  }
  uint8_t c4[4];
  put_u32(c4, code);
  int rc = put_frame(e, LM_FRAME_ERROR, id, c4, 4, msg, n, err);
  if (ch < 0)
    e->ended = true;
  return rc;
}

int lm_framing_encoder_finish(lm_framing_encoder *e, lm_error *err) {
  if (!e->begun || e->ended)
    return lm_err(err, LM_ERR_INVALID, "framing: the stream is not open");
  e->ended = true;
  return put_frame(e, LM_FRAME_END_STREAM, LM_FRAMING_NO_CHANNEL, NULL, 0, NULL,
                   0, err);
}

void lm_framing_encoder_free(lm_framing_encoder *e) {
  if (!e)
    return;
  for (int i = 0; i < e->n_ch; i++) {
    free(e->ch[i].name);
    lm_ipc_writer_free(e->ch[i].w);
    if (e->ch[i].schema)
      lm_schema_release(e->ch[i].schema);
    lm_buf_free(&e->ch[i].scratch);
  }
  free(e->ch);
  free(e);
}

/* ================================================================ events */

void lm_framing_event_clear(lm_framing_event *ev) {
  if (!ev)
    return;
  if (ev->batch)
    lm_batch_release(ev->batch);
  free(ev->data);
  for (int i = 0; i < ev->n_metadata; i++) {
    free(ev->metadata[i].key);
    free(ev->metadata[i].value);
  }
  free(ev->metadata);
  memset(ev, 0, sizeof *ev);
}

/* ================================================================ decoder */

typedef struct dec_channel {
  char *name;
  int kind;
  lm_schema *schema;
  uint8_t *schema_msg; /* the declaration's IPC Schema message */
  size_t schema_len;
  /* table channels: a stream reader that decoded schema_msg once; every
   * BATCH payload is decoded against it (decode_message) */
  lm_ipc_stream_reader *rd;
  bool closed;
} dec_channel;

typedef struct expect {
  char *name;
  int kind;
  lm_schema *schema;
  bool seen;
} expect;

enum { ST_HEADER, ST_DECLS, ST_FRAMES, ST_ENDED };

struct lm_framing_decoder {
  lm_framing_limits lim;
  lm_ipc_limits ipc_lim;
  char *source;
  lm_buf pend;
  size_t pend_off;
  size_t abs; /* absolute offset of pend.data[0] */
  /* Once a BATCH payload was decoded in place, pend's memory belongs to
   * this refcounted buffer (the batches' column views hold references to
   * it): it is never moved or reallocated again; the next feed takes it
   * back when no batch uses it any more, else continues in new memory. */
  lm_buffer *pend_owner;
  int state;
  uint16_t flags;
  uint32_t n_decl; /* declared in the header */
  dec_channel *ch;
  int n_ch;
  int32_t *hash; /* open addressing over ch by name; -1 = empty */
  size_t hash_cap;
  expect *exp;
  int n_exp;
  bool fed;
  bool keep_dicts; /* channel readers deliver DICTIONARY arrays */
  bool have_seq;
  uint64_t last_seq;
  int err_code;
  lm_error saved;
  lm_framing_event *q;
  size_t q_head, q_len, q_cap;
};

lm_framing_decoder *lm_framing_decoder_new(const lm_framing_limits *limits,
                                           const lm_ipc_limits *ipc_limits,
                                           const char *source_name) {
  lm_framing_decoder *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  limits_fill(&d->lim, limits);
  lm_ipc_limits_default(&d->ipc_lim);
  if (ipc_limits)
    d->ipc_lim = *ipc_limits;
  d->source = lm_strdup(source_name ? source_name : "<input>");
  if (!d->source) {
    free(d);
    return NULL;
  }
  lm_buf_init(&d->pend);
  return d;
}

int lm_framing_decoder_expect(lm_framing_decoder *d, const char *name, int kind,
                              lm_schema *schema, lm_error *err) {
  if (d->fed)
    return lm_err(err, LM_ERR_INVALID,
                  "framing: expect must precede the first feed");
  if (!name || (kind != LM_FRAMING_TABLE && kind != LM_FRAMING_OPAQUE) ||
      (schema && kind != LM_FRAMING_TABLE))
    return lm_err(err, LM_ERR_INVALID, "framing: bad expected channel");
  for (int i = 0; i < d->n_exp; i++)
    if (strcmp(d->exp[i].name, name) == 0)
      return lm_err(err, LM_ERR_INVALID, "framing: channel '%s' expected twice",
                    name);
  expect *p = realloc(d->exp, (size_t)(d->n_exp + 1) * sizeof *p);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  d->exp = p;
  expect *x = &d->exp[d->n_exp];
  x->name = lm_strdup(name);
  if (!x->name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  x->kind = kind;
  x->schema = schema ? lm_schema_retain(schema) : NULL;
  x->seen = false;
  d->n_exp++;
  return 0;
}

static int derr(const lm_framing_decoder *d, lm_error *err, int code, size_t at,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int derr(const lm_framing_decoder *d, lm_error *err, int code, size_t at,
                const char *fmt, ...) {
  char text[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return lm_err(err, code, "%s: byte %zu: %s", d->source, at, text);
}

static int push_event(lm_framing_decoder *d, lm_framing_event *ev,
                      lm_error *err) {
  if (d->q_head + d->q_len == d->q_cap) {
    if (d->q_head > 0) {
      memmove(d->q, d->q + d->q_head, d->q_len * sizeof *d->q);
      d->q_head = 0;
    } else {
      size_t nc = d->q_cap ? d->q_cap * 2 : 16;
      lm_framing_event *p = realloc(d->q, nc * sizeof *p);
      if (!p) {
        lm_framing_event_clear(ev);
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      }
      d->q = p;
      d->q_cap = nc;
    }
  }
  d->q[d->q_head + d->q_len++] = *ev;
  memset(ev, 0, sizeof *ev);
  return 0;
}

static int find_channel(const lm_framing_decoder *d, const char *name,
                        size_t n) {
  if (!d->hash_cap)
    return -1;
  size_t m = d->hash_cap - 1;
  size_t h = (size_t)lm_hash_bytes(name, n, 0x6c6d6672) & m;
  for (;;) {
    int32_t i = d->hash[h];
    if (i < 0)
      return -1;
    if (strlen(d->ch[i].name) == n && memcmp(d->ch[i].name, name, n) == 0)
      return i;
    h = (h + 1) & m;
  }
}

/* Decodes `len` bytes of IPC stream (the channel's schema message, when
 * given, then one payload) with a fresh reader. Exactly one Schema
 * message (schema_only) or one RecordBatch message must result. */
static int ipc_decode(lm_framing_decoder *d, const dec_channel *c,
                      const uint8_t *p, size_t len, size_t at,
                      lm_schema **schema_out, lm_batch **batch_out,
                      lm_ipc_stream_reader **keep, lm_error *err) {
  const char *what = c ? "record batch" : "schema";
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(&d->ipc_lim, "ipc");
  if (!r)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_ipc_stream_reader_keep_dictionaries(r, d->keep_dicts);
  lm_error ie;
  lm_err_clear(&ie);
  int rc = 0;
  if (c)
    rc = lm_ipc_stream_reader_feed(r, c->schema_msg, c->schema_len, &ie);
  if (!rc)
    rc = lm_ipc_stream_reader_feed(r, p, len, &ie);
  if (!rc)
    rc = lm_ipc_stream_reader_finish(r, &ie);
  lm_batch *b = lm_ipc_stream_reader_next(r);
  lm_batch *b2 = b ? lm_ipc_stream_reader_next(r) : NULL;
  if (rc) {
    rc = derr(d, err, rc, at,
              "bad %s payload (IPC offsets count from the start of the "
              "channel's schema message): %s",
              what, ie.msg);
  } else if (lm_ipc_stream_reader_done(r)) {
    rc = derr(d, err, LM_ERR_PARSE, at,
              "%s payload holds an IPC end-of-stream marker", what);
  } else if (c && !b) {
    rc = derr(d, err, LM_ERR_PARSE, at, "batch payload holds no record batch");
  } else if (b2 || (!c && b)) {
    rc = derr(d, err, LM_ERR_PARSE, at,
              "%s payload holds more than one IPC message", what);
  }
  if (!rc) {
    if (schema_out)
      *schema_out = lm_schema_retain(lm_ipc_stream_reader_schema(r));
    if (batch_out) {
      *batch_out = b;
      b = NULL;
    }
  }
  if (b)
    lm_batch_release(b);
  if (b2)
    lm_batch_release(b2);
  lm_batch *x;
  while ((x = lm_ipc_stream_reader_next(r)) != NULL)
    lm_batch_release(x);
  if (!rc && keep)
    *keep = r;
  else
    lm_ipc_stream_reader_free(r);
  return rc;
}

static void release_payload(lm_buffer *b) {
  free(b->data);
}

/* A BATCH payload p[0, len) at absolute offset `at` (§4.1), inside pend
 * (owner NULL) or inside a caller's buffer `owner` (feed_buffer): one
 * RecordBatch message decoded in place against the channel's reader
 * (which holds the schema decoded once at the declaration); the batch's
 * column buffers are zero-copy views holding a reference to that memory
 * (pend_owner or owner), except buffers at an address that is not 8-aligned
 * (after a MESSAGE frame of odd length, say), which the IPC reader copies. */
static int decode_batch_frame(lm_framing_decoder *d, dec_channel *c,
                              const uint8_t *p, size_t len, size_t at,
                              lm_buffer *owner, lm_batch **out, lm_error *err) {
  *out = NULL;
  if (!owner && !d->pend_owner) {
    d->pend_owner = lm_buffer_wrap(NULL, d->pend.cap, release_payload, NULL);
    if (!d->pend_owner)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    d->pend_owner->data = (uint8_t *)d->pend.data;
  }
  lm_error ie;
  lm_err_clear(&ie);
  lm_batch *b = NULL;
  int rc = lm_ipc_stream_reader_decode_messages(
      c->rd, p, len, owner ? owner : d->pend_owner, at, &b, &ie);
  if (rc)
    return derr(d, err, rc, at, "bad record batch payload: %s", ie.msg);
  if (!b)
    return derr(d, err, LM_ERR_PARSE, at,
                "batch payload holds no record batch");
  *out = b;
  return 0;
}

/* Copies the channel reader's map of the batch just decoded (the
 * RecordBatch message's custom_metadata) into the event. */
static int copy_batch_metadata(const dec_channel *c, lm_framing_event *ev,
                               lm_error *err) {
  const lm_ipc_kv *kv = NULL;
  int n = lm_ipc_stream_reader_batch_metadata(c->rd, &kv);
  if (n <= 0)
    return 0;
  ev->metadata = calloc((size_t)n, sizeof *ev->metadata);
  if (!ev->metadata)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  ev->n_metadata = n;
  for (int i = 0; i < n; i++) {
    ev->metadata[i].key = lm_strdup(kv[i].key);
    ev->metadata[i].value = lm_strdup(kv[i].value);
    if (!ev->metadata[i].key || !ev->metadata[i].value)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}

static bool schema_matches(const lm_schema *want, const lm_schema *got) {
  if (want->n_fields != got->n_fields)
    return false;
  for (int i = 0; i < want->n_fields; i++)
    if (strcmp(want->fields[i].name, got->fields[i].name) != 0 ||
        !lm_type_eq(want->fields[i].type, got->fields[i].type))
      return false;
  return true;
}

/* Checks the expected set once every declaration was read (§3.1). */
static int check_expected_all(lm_framing_decoder *d, size_t at, lm_error *err) {
  for (int i = 0; i < d->n_exp; i++)
    if (!d->exp[i].seen)
      return derr(d, err, LM_ERR_PARSE, at,
                  "expected channel '%s' was not registered", d->exp[i].name);
  return 0;
}

/* One channel declaration at p (all of it available) (§3). */
static int take_decl(lm_framing_decoder *d, const uint8_t *p, size_t at,
                     size_t nl, size_t sl, int kind, lm_error *err) {
  const char *name = (const char *)p + DECL_BYTES;
  int rc;
  if (find_channel(d, name, nl) >= 0)
    return derr(d, err, LM_ERR_PARSE, at + DECL_BYTES,
                "duplicate channel name '%.*s'", (int)nl, name);
  int xi = -1;
  if (d->n_exp) {
    for (int i = 0; i < d->n_exp; i++)
      if (strlen(d->exp[i].name) == nl && memcmp(d->exp[i].name, name, nl) == 0)
        xi = i;
    if (xi < 0)
      return derr(d, err, LM_ERR_PARSE, at + DECL_BYTES,
                  "unexpected channel '%.*s'", (int)nl, name);
    if (d->exp[xi].kind != kind)
      return derr(d, err, LM_ERR_PARSE, at, "channel '%.*s' is %s, expected %s",
                  (int)nl, name,
                  kind == LM_FRAMING_TABLE ? "a table" : "opaque",
                  kind == LM_FRAMING_TABLE ? "opaque" : "a table");
  }
  lm_schema *schema = NULL;
  lm_ipc_stream_reader *rd = NULL;
  const uint8_t *sm = p + DECL_BYTES + nl;
  size_t sat = at + DECL_BYTES + nl;
  if (kind == LM_FRAMING_TABLE) {
    if ((rc = ipc_decode(d, NULL, sm, sl, sat, &schema, NULL, &rd, err)) != 0)
      return rc;
    if (xi >= 0 && d->exp[xi].schema &&
        !schema_matches(d->exp[xi].schema, schema)) {
      lm_schema_release(schema);
      lm_ipc_stream_reader_free(rd);
      return derr(d, err, LM_ERR_PARSE, sat,
                  "channel '%.*s' has a schema other than expected", (int)nl,
                  name);
    }
  }
  dec_channel *c = &d->ch[d->n_ch];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->schema = schema;
  c->rd = rd;
  c->name = lm_strndup(name, nl);
  c->schema_msg = malloc(sl ? sl : 1);
  if (!c->name || !c->schema_msg) {
    free(c->name);
    free(c->schema_msg);
    lm_ipc_stream_reader_free(rd);
    c->rd = NULL;
    if (schema)
      lm_schema_release(schema);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (sl)
    memcpy(c->schema_msg, sm, sl);
  c->schema_len = sl;
  size_t m = d->hash_cap - 1;
  size_t h = (size_t)lm_hash_bytes(name, nl, 0x6c6d6672) & m;
  while (d->hash[h] >= 0)
    h = (h + 1) & m;
  d->hash[h] = d->n_ch;
  if (xi >= 0)
    d->exp[xi].seen = true;
  int id = d->n_ch++;
  lm_framing_event ev = {0};
  ev.kind = LM_FRAMING_EV_CHANNEL;
  ev.channel = id;
  ev.name = c->name;
  ev.channel_kind = kind;
  ev.schema = c->schema;
  ev.offset = (int64_t)at;
  return push_event(d, &ev, err);
}

/* One frame (all of it available): header at p, payload at p + hl (§4). */
static int take_frame(lm_framing_decoder *d, const uint8_t *p, size_t at,
                      size_t hl, size_t len, lm_buffer *owner, lm_error *err) {
  int kind = p[0];
  uint32_t id = get_u32(p + 4);
  const uint8_t *pl = p + hl;
  size_t pat = at + hl;
  lm_framing_event ev = {0};
  ev.offset = (int64_t)at;
  ev.channel = -1;
  if (d->flags & LM_FRAMING_FLAG_SEQ) {
    uint64_t s = get_u64(p + 8);
    if (kind != LM_FRAME_END_STREAM) {
      ev.has_seq = true;
      ev.seq = s;
    }
  }
  dec_channel *c = id == LM_FRAMING_NO_CHANNEL ? NULL : &d->ch[id];
  if (c) {
    ev.channel = (int)id;
    ev.name = c->name;
    ev.channel_kind = c->kind;
    ev.schema = c->schema;
  }
  int rc;
  switch (kind) {
  case LM_FRAME_BATCH:
    ev.kind = LM_FRAMING_EV_BATCH;
    if ((rc = decode_batch_frame(d, c, pl, len, pat, owner, &ev.batch, err)) !=
            0 ||
        (rc = copy_batch_metadata(c, &ev, err)) != 0) {
      lm_framing_event_clear(&ev);
      return rc;
    }
    break;
  case LM_FRAME_MESSAGE:
    ev.kind = LM_FRAMING_EV_MESSAGE;
    ev.data = malloc(len ? len : 1);
    if (!ev.data)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    if (len)
      memcpy(ev.data, pl, len);
    ev.len = len;
    break;
  case LM_FRAME_END_CHANNEL:
    ev.kind = LM_FRAMING_EV_END_CHANNEL;
    c->closed = true;
    break;
  case LM_FRAME_ERROR: {
    size_t tl = len - 4;
    if (lm_fmt_utf8_check((const char *)pl + 4, tl) != tl)
      return derr(d, err, LM_ERR_PARSE,
                  pat + 4 + lm_fmt_utf8_check((const char *)pl + 4, tl),
                  "error frame text is not UTF-8");
    ev.kind = LM_FRAMING_EV_ERROR;
    ev.error_code = get_u32(pl);
    ev.data = malloc(tl + 1);
    if (!ev.data)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    memcpy(ev.data, pl + 4, tl);
    ev.data[tl] = 0;
    ev.len = tl;
    if (c)
      c->closed = true;
    else
      d->state = ST_ENDED;
    break;
  }
  default: /* END_STREAM */
    ev.kind = LM_FRAMING_EV_END_STREAM;
    d->state = ST_ENDED;
    break;
  }
  return push_event(d, &ev, err);
}

/* Validates a frame header (all hl bytes available) before its payload is
 * awaited (§4, §6). */
static int check_frame_header(lm_framing_decoder *d, const uint8_t *p,
                              size_t at, size_t hl, uint64_t len,
                              lm_error *err) {
  int kind = p[0];
  uint32_t id = get_u32(p + 4);
  if (kind < LM_FRAME_BATCH || kind > LM_FRAME_END_STREAM)
    return derr(d, err, LM_ERR_PARSE, at, "unknown frame kind %d", kind);
  if (p[1] || p[2] || p[3])
    return derr(d, err, LM_ERR_PARSE, at + 1,
                "reserved frame header bytes are not zero");
  if (len > (uint64_t)d->lim.max_frame_bytes)
    return derr(d, err, LM_ERR_LIMIT, at + hl - 8,
                "frame length %llu is over the limit of %lld bytes",
                (unsigned long long)len, (long long)d->lim.max_frame_bytes);
  bool conn = kind == LM_FRAME_END_STREAM ||
              (kind == LM_FRAME_ERROR && id == LM_FRAMING_NO_CHANNEL);
  if (kind == LM_FRAME_END_STREAM && id != LM_FRAMING_NO_CHANNEL)
    return derr(d, err, LM_ERR_PARSE, at + 4,
                "end-of-stream frame with channel %u", (unsigned)id);
  if (!conn) {
    if (id >= (uint32_t)d->n_ch)
      return derr(d, err, LM_ERR_PARSE, at + 4, "unknown channel %u",
                  (unsigned)id);
    dec_channel *c = &d->ch[id];
    if (c->closed)
      return derr(d, err, LM_ERR_PARSE, at,
                  "frame on channel '%s' after its end", c->name);
    if (kind == LM_FRAME_BATCH && c->kind != LM_FRAMING_TABLE)
      return derr(d, err, LM_ERR_PARSE, at,
                  "batch frame on opaque channel '%s'", c->name);
    if (kind == LM_FRAME_MESSAGE && c->kind != LM_FRAMING_OPAQUE)
      return derr(d, err, LM_ERR_PARSE, at,
                  "message frame on table channel '%s'", c->name);
  }
  if (kind == LM_FRAME_BATCH && len == 0)
    return derr(d, err, LM_ERR_PARSE, at + hl - 8, "empty batch frame");
  if ((kind == LM_FRAME_END_CHANNEL || kind == LM_FRAME_END_STREAM) && len)
    return derr(
        d, err, LM_ERR_PARSE, at + hl - 8, "%s frame with a %llu-byte payload",
        kind == LM_FRAME_END_STREAM ? "end-of-stream" : "end-of-channel",
        (unsigned long long)len);
  if (kind == LM_FRAME_ERROR && len < 4)
    return derr(d, err, LM_ERR_PARSE, at + hl - 8,
                "error frame shorter than its 4-byte code");
  if (d->flags & LM_FRAMING_FLAG_SEQ) {
    uint64_t s = get_u64(p + 8);
    if (kind == LM_FRAME_END_STREAM) {
      if (s != LM_FRAMING_NO_SEQ)
        return derr(d, err, LM_ERR_PARSE, at + 8,
                    "end-of-stream frame with a sequence number");
    } else {
      if (s == LM_FRAMING_NO_SEQ || (d->have_seq && s <= d->last_seq))
        return derr(d, err, LM_ERR_PARSE, at + 8,
                    "sequence number %llu does not increase (previous "
                    "%llu)",
                    (unsigned long long)s, (unsigned long long)d->last_seq);
    }
  }
  return 0;
}

/* Decodes everything complete in base[*off, blen), whose byte 0 is at
 * absolute offset abs0, advancing *off past each declaration and frame
 * taken. owner NULL: the region is pend (batches reference pend_owner);
 * else a caller's buffer that batches reference (feed_buffer). */
static int pump_region(lm_framing_decoder *d, const uint8_t *base, size_t blen,
                       size_t *off, size_t abs0, lm_buffer *owner,
                       lm_error *err) {
  for (;;) {
    const uint8_t *p = base ? base + *off : (const uint8_t *)"";
    size_t avail = blen - *off;
    size_t at = abs0 + *off;
    int rc;
    switch (d->state) {
    case ST_HEADER: {
      if (avail < HDR_BYTES) {
        size_t k = LM_MIN(avail, (size_t)8);
        if (k && memcmp(p, LM_FRAMING_MAGIC, k) != 0)
          return derr(d, err, LM_ERR_PARSE, at,
                      "not a Laminar framing stream (bad magic)");
        return 0;
      }
      if (memcmp(p, LM_FRAMING_MAGIC, 8) != 0)
        return derr(d, err, LM_ERR_PARSE, at,
                    "not a Laminar framing stream (bad magic)");
      uint16_t ver = get_u16(p + 8);
      if (ver != LM_FRAMING_VERSION)
        return derr(d, err, LM_ERR_PARSE, at + 8,
                    "unsupported framing version %u (this reader knows %d)",
                    ver, LM_FRAMING_VERSION);
      uint16_t fl = get_u16(p + 10);
      if (fl & ~LM_FRAMING_FLAG_SEQ)
        return derr(d, err, LM_ERR_PARSE, at + 10, "unknown flags 0x%04x", fl);
      uint32_t n = get_u32(p + 12);
      if (n > (uint32_t)d->lim.max_channels)
        return derr(d, err, LM_ERR_LIMIT, at + 12,
                    "%u channels is over the limit of %d", (unsigned)n,
                    d->lim.max_channels);
      d->flags = fl;
      d->n_decl = n;
      if (n) {
        size_t cap = 4;
        while (cap < 2 * (size_t)n)
          cap *= 2;
        d->ch = calloc(n, sizeof *d->ch);
        d->hash = malloc(cap * sizeof *d->hash);
        if (!d->ch || !d->hash)
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        memset(d->hash, 0xff, cap * sizeof *d->hash);
        d->hash_cap = cap;
      }
      *off += HDR_BYTES;
      d->state = ST_DECLS;
      break;
    }
    case ST_DECLS: {
      if ((uint32_t)d->n_ch == d->n_decl) {
        if ((rc = check_expected_all(d, at, err)) != 0)
          return rc;
        d->state = ST_FRAMES;
        break;
      }
      if (avail < DECL_BYTES)
        return 0;
      int kind = p[0];
      if (kind != LM_FRAMING_TABLE && kind != LM_FRAMING_OPAQUE)
        return derr(d, err, LM_ERR_PARSE, at, "unknown channel kind %d", kind);
      if (p[1])
        return derr(d, err, LM_ERR_PARSE, at + 1,
                    "reserved declaration byte is not zero");
      size_t nl = get_u16(p + 2);
      size_t sl = get_u32(p + 4);
      if (nl == 0)
        return derr(d, err, LM_ERR_PARSE, at + 2, "empty channel name");
      if (nl > (size_t)d->lim.max_name_bytes)
        return derr(d, err, LM_ERR_LIMIT, at + 2,
                    "channel name of %zu bytes is over the limit of %d", nl,
                    d->lim.max_name_bytes);
      if (kind == LM_FRAMING_OPAQUE && sl)
        return derr(d, err, LM_ERR_PARSE, at + 4,
                    "opaque channel with a schema");
      if (kind == LM_FRAMING_TABLE && sl == 0)
        return derr(d, err, LM_ERR_PARSE, at + 4,
                    "table channel without a schema");
      if ((uint64_t)sl > (uint64_t)d->lim.max_frame_bytes)
        return derr(d, err, LM_ERR_LIMIT, at + 4,
                    "schema of %zu bytes is over the limit of %lld bytes", sl,
                    (long long)d->lim.max_frame_bytes);
      if (avail >= DECL_BYTES + nl &&
          !name_ok((const char *)p + DECL_BYTES, nl, nl))
        return derr(d, err, LM_ERR_PARSE, at + DECL_BYTES,
                    "channel name is not UTF-8 without NUL bytes");
      if (avail < DECL_BYTES + nl + sl)
        return 0;
      if ((rc = take_decl(d, p, at, nl, sl, kind, err)) != 0)
        return rc;
      *off += DECL_BYTES + nl + sl;
      break;
    }
    case ST_FRAMES: {
      size_t hl = FRAME_BYTES + ((d->flags & LM_FRAMING_FLAG_SEQ) ? 8 : 0);
      if (avail < hl) {
        if (avail >= 1 && (p[0] < LM_FRAME_BATCH || p[0] > LM_FRAME_END_STREAM))
          return derr(d, err, LM_ERR_PARSE, at, "unknown frame kind %d", p[0]);
        return 0;
      }
      uint64_t len = get_u64(p + hl - 8);
      if ((rc = check_frame_header(d, p, at, hl, len, err)) != 0)
        return rc;
      if (avail - hl < len)
        return 0;
      if ((rc = take_frame(d, p, at, hl, (size_t)len, owner, err)) != 0)
        return rc;
      if ((d->flags & LM_FRAMING_FLAG_SEQ) && p[0] != LM_FRAME_END_STREAM) {
        d->have_seq = true;
        d->last_seq = get_u64(p + 8);
      }
      *off += hl + (size_t)len;
      break;
    }
    default: /* ST_ENDED */
      if (avail)
        return derr(d, err, LM_ERR_PARSE, at,
                    "bytes after the end of the stream");
      return 0;
    }
  }
}

/* Decodes everything complete in pend. */
static int pump(lm_framing_decoder *d, lm_error *err) {
  return pump_region(d, (const uint8_t *)d->pend.data, d->pend.len,
                     &d->pend_off, d->abs, NULL, err);
}

static int fail(lm_framing_decoder *d, int rc, lm_error *e) {
  d->err_code = rc;
  d->saved = *e;
  return rc;
}

/* Makes pend appendable for `len` more bytes: its memory becomes ours
 * again when no batch references it any more, else the unread tail moves
 * to new memory (batches keep the old); a mostly consumed pend is
 * compacted. */
static int pend_prepare(lm_framing_decoder *d, size_t len, lm_error *e) {
  if (d->pend_owner) {
    if (__atomic_load_n(&d->pend_owner->refcnt, __ATOMIC_ACQUIRE) == 1) {
      /* no batch uses pend any more: its memory is ours again */
      d->pend_owner->data = NULL;
    } else {
      /* batches use it: the unread tail continues in new memory */
      lm_buf fresh;
      lm_buf_init(&fresh);
      size_t rest = d->pend.len - d->pend_off;
      if (lm_buf_reserve(&fresh, rest + len) ||
          (rest && lm_buf_append(&fresh, d->pend.data + d->pend_off, rest))) {
        lm_buf_free(&fresh);
        return lm_err(e, LM_ERR_NOMEM, "out of memory");
      }
      d->abs += d->pend_off;
      d->pend_off = 0;
      d->pend = fresh;
    }
    lm_buffer_release(d->pend_owner);
    d->pend_owner = NULL;
  }
  if (d->pend_off > 0 && d->pend_off >= d->pend.len / 2) {
    size_t rest = d->pend.len - d->pend_off;
    memmove(d->pend.data, d->pend.data + d->pend_off, rest);
    d->pend.len = rest;
    d->abs += d->pend_off;
    d->pend_off = 0;
  }
  return 0;
}

int lm_framing_decoder_feed(lm_framing_decoder *d, const void *data, size_t len,
                            lm_error *err) {
  lm_error local;
  lm_error *e = err ? err : &local;
  d->fed = true;
  if (d->err_code) {
    *e = d->saved;
    return d->err_code;
  }
  if (len == 0)
    return 0;
  int rc = pend_prepare(d, len, e);
  if (rc)
    return fail(d, rc, e);
  if (lm_buf_append(&d->pend, data, len))
    return fail(d, lm_err(e, LM_ERR_NOMEM, "out of memory"), e);
  rc = pump(d, e);
  return rc ? fail(d, rc, e) : 0;
}

/* Bytes pend (holding a partial declaration or frame) still needs before
 * that declaration or frame is complete; at least 1. Only called after a
 * pump, so a complete header was already checked (§4, §6 limits). */
static size_t pend_need(const lm_framing_decoder *d) {
  const uint8_t *p = (const uint8_t *)d->pend.data + d->pend_off;
  size_t avail = d->pend.len - d->pend_off;
  uint64_t need;
  switch (d->state) {
  case ST_HEADER:
    need = HDR_BYTES;
    break;
  case ST_DECLS:
    need = avail < DECL_BYTES
               ? DECL_BYTES
               : DECL_BYTES + (uint64_t)get_u16(p + 2) + get_u32(p + 4);
    break;
  case ST_FRAMES: {
    size_t hl = FRAME_BYTES + ((d->flags & LM_FRAMING_FLAG_SEQ) ? 8 : 0);
    need = avail < hl ? hl : hl + get_u64(p + hl - 8);
    break;
  }
  default:
    return SIZE_MAX;
  }
  return need > avail ? (size_t)LM_MIN(need - avail, (uint64_t)SIZE_MAX) : 1;
}

/* pend fully consumed: forget its bytes (the memory stays with batches
 * that reference it, else is reused). */
static void pend_clear(lm_framing_decoder *d) {
  d->abs += d->pend.len;
  if (d->pend_owner) {
    if (__atomic_load_n(&d->pend_owner->refcnt, __ATOMIC_ACQUIRE) == 1)
      d->pend_owner->data = NULL; /* the memory stays pend's */
    else
      lm_buf_init(&d->pend); /* the memory stays the batches' */
    lm_buffer_release(d->pend_owner);
    d->pend_owner = NULL;
  }
  d->pend.len = 0;
  d->pend_off = 0;
}

int lm_framing_decoder_feed_buffer(lm_framing_decoder *d, lm_buffer *buf,
                                   size_t off, size_t len, lm_error *err) {
  lm_error local;
  lm_error *e = err ? err : &local;
  if (!buf || off > buf->size || len > buf->size - off)
    return lm_err(e, LM_ERR_INVALID,
                  "framing: feed_buffer range [%zu, +%zu) outside the buffer",
                  off, len);
  d->fed = true;
  if (d->err_code) {
    *e = d->saved;
    return d->err_code;
  }
  const uint8_t *src = buf->data + off;
  int rc;
  /* 1. complete the partial declaration or frame pend holds: only its
   * missing bytes are copied */
  while (len && d->pend_off < d->pend.len) {
    size_t take = LM_MIN(pend_need(d), len);
    if ((rc = pend_prepare(d, take, e)) != 0)
      return fail(d, rc, e);
    if (lm_buf_append(&d->pend, src, take))
      return fail(d, lm_err(e, LM_ERR_NOMEM, "out of memory"), e);
    src += take;
    len -= take;
    if ((rc = pump(d, e)) != 0)
      return fail(d, rc, e);
  }
  if (!len)
    return 0;
  /* 2. pend is empty: every complete frame is decoded where it lies, its
   * batch's column buffers referencing buf */
  pend_clear(d);
  size_t used = 0;
  rc = pump_region(d, src, len, &used, d->abs, buf, e);
  d->abs += used;
  if (rc)
    return fail(d, rc, e);
  /* 3. the incomplete tail waits in pend */
  if (used < len) {
    if ((rc = pend_prepare(d, len - used, e)) != 0)
      return fail(d, rc, e);
    if (lm_buf_append(&d->pend, src + used, len - used))
      return fail(d, lm_err(e, LM_ERR_NOMEM, "out of memory"), e);
    if ((rc = pump(d, e)) != 0)
      return fail(d, rc, e);
  }
  return 0;
}

int lm_framing_decoder_finish(lm_framing_decoder *d, lm_error *err) {
  lm_error local;
  lm_error *e = err ? err : &local;
  d->fed = true;
  if (d->err_code) {
    *e = d->saved;
    return d->err_code;
  }
  if (d->state == ST_HEADER && d->pend.len == d->pend_off) {
    /* nothing at all; still let pump run the zero-declaration case */
  }
  int rc = pump(d, e);
  if (rc)
    return fail(d, rc, e);
  if (d->state == ST_ENDED)
    return 0;
  size_t at = d->abs + d->pend.len;
  static const char *const where[] = {
      "the stream header", "the channel declarations", "the frames", ""};
  rc = derr(d, e, LM_ERR_PARSE, at,
            "input ends inside %s (%zu bytes pending; no end-of-stream "
            "frame)",
            where[d->state], d->pend.len - d->pend_off);
  return fail(d, rc, e);
}

bool lm_framing_decoder_next(lm_framing_decoder *d, lm_framing_event *ev) {
  if (!d->q_len) {
    memset(ev, 0, sizeof *ev);
    return false;
  }
  *ev = d->q[d->q_head++];
  if (--d->q_len == 0)
    d->q_head = 0;
  return true;
}

bool lm_framing_decoder_ended(const lm_framing_decoder *d) {
  return d->state == ST_ENDED;
}
bool lm_framing_decoder_sequenced(const lm_framing_decoder *d) {
  return d->state != ST_HEADER && (d->flags & LM_FRAMING_FLAG_SEQ);
}
int lm_framing_decoder_num_channels(const lm_framing_decoder *d) {
  return d->n_ch;
}
int lm_framing_decoder_find(const lm_framing_decoder *d, const char *name) {
  return name ? find_channel(d, name, strlen(name)) : -1;
}

int lm_framing_decoder_keep_dictionaries(lm_framing_decoder *d, bool keep,
                                         lm_error *err) {
  if (d->fed)
    return lm_err(err, LM_ERR_INVALID,
                  "framing: keep_dictionaries must precede the first feed");
  d->keep_dicts = keep;
  return 0;
}

int lm_framing_decoder_dictionary_ids(const lm_framing_decoder *d, int ch,
                                      const int64_t **ids) {
  *ids = NULL;
  if (ch < 0 || ch >= d->n_ch || !d->ch[ch].rd)
    return 0;
  return lm_ipc_stream_reader_dictionary_ids(d->ch[ch].rd, ids);
}

void lm_framing_decoder_free(lm_framing_decoder *d) {
  if (!d)
    return;
  for (size_t i = 0; i < d->q_len; i++)
    lm_framing_event_clear(&d->q[d->q_head + i]);
  free(d->q);
  for (int i = 0; i < d->n_ch; i++) {
    free(d->ch[i].name);
    free(d->ch[i].schema_msg);
    lm_ipc_stream_reader_free(d->ch[i].rd);
    if (d->ch[i].schema)
      lm_schema_release(d->ch[i].schema);
  }
  free(d->ch);
  free(d->hash);
  for (int i = 0; i < d->n_exp; i++) {
    free(d->exp[i].name);
    if (d->exp[i].schema)
      lm_schema_release(d->exp[i].schema);
  }
  free(d->exp);
  if (d->pend_owner) /* pend's memory lives as long as its batches */
    lm_buffer_release(d->pend_owner);
  else
    lm_buf_free(&d->pend);
  free(d->source);
  free(d);
}

/* ================================================================= merger */

struct lm_framing_merger {
  int n;
  lm_framing_decoder **dec;
  lm_framing_event *pending; /* kind EV_NONE = empty */
  bool *done;
  uint64_t next;
  bool end_emitted;
  int err_code;
  lm_error saved;
};

lm_framing_merger *lm_framing_merger_new(int n, lm_framing_decoder **decoders,
                                         uint64_t first_seq) {
  if (n < 1 || !decoders)
    return NULL;
  lm_framing_merger *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->n = n;
  m->next = first_seq;
  m->dec = malloc((size_t)n * sizeof *m->dec);
  m->pending = calloc((size_t)n, sizeof *m->pending);
  m->done = calloc((size_t)n, sizeof *m->done);
  if (!m->dec || !m->pending || !m->done) {
    lm_framing_merger_free(m);
    return NULL;
  }
  memcpy(m->dec, decoders, (size_t)n * sizeof *m->dec);
  return m;
}

static int merr(lm_framing_merger *m, lm_error *e, int src, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
static int merr(lm_framing_merger *m, lm_error *e, int src, const char *fmt,
                ...) {
  char text[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  lm_err(e, LM_ERR_PARSE, "%s: byte %lld: %s", m->dec[src]->source,
         (long long)m->pending[src].offset, text);
  m->err_code = LM_ERR_PARSE;
  m->saved = *e;
  return LM_ERR_PARSE;
}

int lm_framing_merger_next(lm_framing_merger *m, lm_framing_event *ev,
                           lm_error *err) {
  lm_error local;
  lm_error *e = err ? err : &local;
  memset(ev, 0, sizeof *ev);
  if (m->err_code) {
    *e = m->saved;
    return m->err_code;
  }
  if (m->end_emitted)
    return 0;
  /* Refill the empty slots; pass unsequenced events straight through. */
  for (int i = 0; i < m->n; i++) {
    while (!m->done[i] && m->pending[i].kind == LM_FRAMING_EV_NONE) {
      lm_framing_event x;
      if (!lm_framing_decoder_next(m->dec[i], &x))
        break;
      x.source = i;
      if (x.kind == LM_FRAMING_EV_CHANNEL) {
        *ev = x;
        return 0;
      }
      if (x.kind == LM_FRAMING_EV_END_STREAM) {
        m->done[i] = true;
        lm_framing_event_clear(&x);
        break;
      }
      m->pending[i] = x;
      if (!x.has_seq)
        return merr(m, e, i,
                    "frame without a sequence number (the "
                    "connection is not sequenced)");
    }
  }
  int waiting = 0, best = -1;
  for (int i = 0; i < m->n; i++) {
    lm_framing_event *p = &m->pending[i];
    if (p->kind == LM_FRAMING_EV_NONE) {
      if (!m->done[i])
        waiting++;
      continue;
    }
    if (p->seq < m->next)
      return merr(m, e, i, "duplicate sequence number %llu",
                  (unsigned long long)p->seq);
    if (p->seq == m->next) {
      if (best >= 0)
        return merr(m, e, i, "duplicate sequence number %llu",
                    (unsigned long long)p->seq);
      best = i;
    }
  }
  if (best >= 0) {
    *ev = m->pending[best];
    memset(&m->pending[best], 0, sizeof m->pending[best]);
    m->next++;
    if (ev->kind == LM_FRAMING_EV_ERROR && ev->channel < 0)
      m->done[best] = true; /* a connection error ends that source */
    return 0;
  }
  if (waiting)
    return 0;
  int lo = -1;
  for (int i = 0; i < m->n; i++)
    if (m->pending[i].kind != LM_FRAMING_EV_NONE &&
        (lo < 0 || m->pending[i].seq < m->pending[lo].seq))
      lo = i;
  if (lo >= 0)
    return merr(m, e, lo,
                "sequence gap: %llu is missing (the next frame available is "
                "%llu)",
                (unsigned long long)m->next,
                (unsigned long long)m->pending[lo].seq);
  m->end_emitted = true;
  ev->kind = LM_FRAMING_EV_END_STREAM;
  ev->channel = -1;
  ev->offset = -1;
  return 0;
}

void lm_framing_merger_free(lm_framing_merger *m) {
  if (!m)
    return;
  if (m->pending)
    for (int i = 0; i < m->n; i++)
      lm_framing_event_clear(&m->pending[i]);
  free(m->pending);
  free(m->done);
  free(m->dec);
  free(m);
}
