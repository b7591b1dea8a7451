/*
 * format/ipc_writer.c — Arrow IPC stream and file writer (see lm_ipc.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "format/flatbuf.h"
#include "format/ipc_internal.h"

#include "columnar/lm_decimal.h"

#include <lz4frame.h>
#include <zstd.h>

bool lm_ipc_codec_available(int codec) {
  return codec == LM_IPC_COMPRESS_NONE || codec == LM_IPC_COMPRESS_LZ4 ||
         codec == LM_IPC_COMPRESS_ZSTD;
}

typedef struct block {
  int64_t offset;
  int32_t meta_len;
  int64_t body_len;
} block;

/* The dictionary of one VARCHAR column under dictionary_encode_utf8: its
 * distinct values in first-seen order and a hash index over them. */
typedef struct wdict {
  lm_buf bytes;    /* the values, concatenated */
  lm_buf offs;     /* int32 offsets, count + 1 */
  uint32_t *slots; /* open addressing: entry + 1; 0 = empty */
  size_t cap;      /* slots (a power of two) */
  int32_t count;   /* entries */
  int32_t emitted; /* entries already written in a DictionaryBatch */
  bool written;    /* a non-delta batch was written */
} wdict;

/* One DICTIONARY occurrence in the schema (pre-order), written as its own
 * dictionary id: where its arrays are in a batch and what was written. */
typedef struct wdictarr {
  int64_t id;
  int owner;       /* the first occurrence with this id (holds the state) */
  bool nested;     /* owner: some occurrence of the id has depth > 0 */
  int col;         /* top-level column */
  int depth;       /* steps below it */
  int path[64];    /* child index at each step (LIST: 0) */
  lm_array *last;  /* the dictionary last written (one reference) */
  int64_t base;    /* where `last` starts in the written dictionary */
  int64_t emitted; /* entries written for this id so far */
  lm_ipc_kv *kv;   /* custom_metadata of its DictionaryBatch messages */
  int n_kv;
} wdictarr;

struct lm_ipc_writer {
  lm_schema *schema;
  wdictarr *darr; /* DICTIONARY occurrences */
  int n_darr;
  lm_buf *out;
  int64_t pos; /* bytes produced so far */
  bool file_format;
  bool finished;
  int alignment;
  int compression;
  int n_kv;
  lm_ipc_kv *kv;
  /* custom_metadata of the RecordBatch message being written (borrowed
   * during lm_ipc_writer_write_metadata) */
  const lm_ipc_kv *msg_kv;
  int msg_n_kv;
  block *blocks;
  size_t n_blocks, cap_blocks;
  bool dict_utf8;
  wdict *dicts;   /* per field (used for VARCHAR fields) */
  lm_buf dblocks; /* file format: dictionary Blocks */
  /* sink mode (lm_ipc_writer_new_sink): out is &own, handed to the sink
   * after every message; with `gather` (no compression) a message body is
   * not copied: segs lists its pieces (a batch's own buffers, padding,
   * rebased offsets / realigned bitmaps kept in body) for one writev */
  lm_ipc_sink_fn sink;
  void *sink_ctx;
  lm_buf own;
  bool gather;
  struct wseg *segs;
  size_t n_segs, cap_segs;
  struct iovec *iov;
  size_t cap_iov;
  int sink_rc; /* first sink error, repeated (sink_err) */
  lm_error sink_err;
  /* per batch scratch */
  size_t blen; /* body bytes of the message being built */
  lm_buf body;
  lm_buf nodes;   /* FieldNode structs */
  lm_buf buffers; /* Buffer structs */
  lm_buf tmp;
};

/* A piece of a gathered body: p[0, n), or body.data[off, off + n) when p
 * is NULL (body may move while the message is built). */
typedef struct wseg {
  const uint8_t *p;
  size_t off, n;
} wseg;

static const uint8_t ZEROS[64];

static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* Emits raw bytes to the output, counting them. */
static int emit(lm_ipc_writer *w, const void *p, size_t n) {
  if (lm_buf_append(w->out, p, n))
    return LM_ERR_NOMEM;
  w->pos += (int64_t)n;
  return 0;
}

static int emit_zeros(lm_ipc_writer *w, size_t n) {
  while (n) {
    size_t k = n < 64 ? n : 64;
    if (emit(w, ZEROS, k))
      return LM_ERR_NOMEM;
    n -= k;
  }
  return 0;
}

/* ------------------------------------------------------------- metadata */

static lm_fb_ref build_kvs(lm_fb_builder *b, const lm_ipc_kv *kv, int n) {
  lm_fb_ref *refs = calloc((size_t)n + 1, sizeof *refs);
  if (!refs) {
    b->oom = true;
    return 0;
  }
  for (int i = 0; i < n; i++) {
    lm_fb_ref k = lm_fb_create_string(b, kv[i].key, strlen(kv[i].key));
    lm_fb_ref v = lm_fb_create_string(b, kv[i].value, strlen(kv[i].value));
    lm_fb_table_start(b);
    lm_fb_add_ref(b, KV_KEY, k);
    lm_fb_add_ref(b, KV_VALUE, v);
    refs[i] = lm_fb_table_end(b);
  }
  lm_fb_ref r = lm_fb_create_ref_vector(b, refs, (size_t)n);
  free(refs);
  return r;
}

/* Arrow type table for t (a DICTIONARY's value type is written: the
 * encoding goes to Field.dictionary); sets *type_id to the Type union tag.
 */
static lm_fb_ref build_type(lm_fb_builder *b, lm_type t, const char *tz,
                            uint8_t *type_id) {
  if (t.id == LM_TYPE_DICTIONARY)
    t = lm_type_dict_value(t);
  /* strings are created before the table that refers to them */
  lm_fb_ref tz_ref = t.id == LM_TYPE_TIMESTAMP && tz
                         ? lm_fb_create_string(b, tz, strlen(tz))
                         : 0;
  lm_fb_table_start(b);
  switch (t.id) {
  case LM_TYPE_NULL:
    *type_id = ARROW_TYPE_NULL;
    break;
  case LM_TYPE_BOOL:
    *type_id = ARROW_TYPE_BOOL;
    break;
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
    *type_id = ARROW_TYPE_INT;
    lm_fb_add_i32(b, INT_BIT_WIDTH, 8 * lm_type_width(t));
    lm_fb_add_u8(b, INT_IS_SIGNED, lm_type_is_integer(t) ? 1 : 0);
    break;
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    *type_id = ARROW_TYPE_FLOATING_POINT;
    lm_fb_add_i16(b, FP_PRECISION,
                  t.id == LM_TYPE_FLOAT16   ? ARROW_PREC_HALF
                  : t.id == LM_TYPE_FLOAT32 ? ARROW_PREC_SINGLE
                                            : ARROW_PREC_DOUBLE);
    break;
  case LM_TYPE_UTF8:
    *type_id = ARROW_TYPE_UTF8;
    break;
  case LM_TYPE_LARGE_UTF8:
    *type_id = ARROW_TYPE_LARGE_UTF8;
    break;
  case LM_TYPE_BINARY:
    *type_id = ARROW_TYPE_BINARY;
    break;
  case LM_TYPE_LARGE_BINARY:
    *type_id = ARROW_TYPE_LARGE_BINARY;
    break;
  case LM_TYPE_FIXED_SIZE_BINARY:
    *type_id = ARROW_TYPE_FIXED_SIZE_BINARY;
    lm_fb_add_i32(b, FSB_BYTE_WIDTH, lm_type_width(t));
    break;
  case LM_TYPE_DECIMAL128:
    *type_id = ARROW_TYPE_DECIMAL;
    lm_fb_add_i32(b, DEC_PRECISION, t.precision);
    lm_fb_add_i32(b, DEC_SCALE, t.scale);
    lm_fb_add_i32(b, DEC_BIT_WIDTH, 128);
    break;
  case LM_TYPE_DATE32:
    *type_id = ARROW_TYPE_DATE;
    lm_fb_add_i16(b, DATE_UNIT, 0 /* DAY */);
    break;
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
    *type_id = ARROW_TYPE_TIME;
    lm_fb_add_i16(b, TIME_UNIT, (int16_t)t.unit);
    lm_fb_add_i32(b, TIME_BIT_WIDTH, t.id == LM_TYPE_TIME32 ? 32 : 64);
    break;
  case LM_TYPE_TIMESTAMP:
    *type_id = ARROW_TYPE_TIMESTAMP;
    lm_fb_add_i16(b, TS_UNIT, (int16_t)t.unit);
    if (tz_ref)
      lm_fb_add_ref(b, TS_TIMEZONE, tz_ref);
    break;
  case LM_TYPE_INTERVAL:
    *type_id = ARROW_TYPE_DURATION;
    lm_fb_add_i16(b, DURATION_UNIT, LM_UNIT_MICRO);
    break;
  case LM_TYPE_DURATION:
    *type_id = ARROW_TYPE_DURATION;
    lm_fb_add_i16(b, DURATION_UNIT, (int16_t)t.unit);
    break;
  case LM_TYPE_INTERVAL_MDN:
    *type_id = ARROW_TYPE_INTERVAL;
    lm_fb_add_i16(b, INTERVAL_UNIT, 2 /* MONTH_DAY_NANO */);
    break;
  case LM_TYPE_LIST:
    *type_id = ARROW_TYPE_LIST;
    break;
  case LM_TYPE_LARGE_LIST:
    *type_id = ARROW_TYPE_LARGE_LIST;
    break;
  case LM_TYPE_STRUCT:
    *type_id = ARROW_TYPE_STRUCT;
    break;
  default:
    *type_id = ARROW_TYPE_NONE;
    break;
  }
  return lm_fb_table_end(b);
}

/* Field table (Schema.fbs Field) for a field of type t, children first
 * (pre-order). DICTIONARY types take the id of the next occurrence
 * darr[*k] (the same pre-order as writer_new's collect_dicts). utf8_dict_id
 * >= 0 encodes a VARCHAR field (dictionary_encode_utf8) with that id. */
static lm_fb_ref build_field(lm_fb_builder *b, const char *name, lm_type t,
                             bool nullable, const char *tz,
                             const wdictarr *darr, int *k,
                             int64_t utf8_dict_id) {
  bool encoded = t.id == LM_TYPE_DICTIONARY;
  int64_t dict_id = encoded ? darr[(*k)++].id : 0;
  lm_type vt = t.id == LM_TYPE_DICTIONARY ? lm_type_dict_value(t) : t;
  int n = vt.id == LM_TYPE_LIST || vt.id == LM_TYPE_LARGE_LIST ||
                  vt.id == LM_TYPE_STRUCT
              ? vt.node->n_children
              : 0;
  lm_fb_ref kids[64] = {0};
  lm_fb_ref *refs = n <= 64 ? kids : calloc((size_t)n, sizeof *refs);
  if (!refs) {
    b->oom = true;
    return 0;
  }
  for (int i = 0; i < n; i++) {
    const lm_type_field *f = &vt.node->children[i];
    refs[i] =
        build_field(b, f->name, f->type, f->nullable, f->timezone, darr, k, -1);
  }
  lm_fb_ref children = lm_fb_create_ref_vector(b, refs, (size_t)n);
  if (refs != kids)
    free(refs);
  lm_fb_ref nm = lm_fb_create_string(b, name, strlen(name));
  uint8_t tid;
  lm_fb_ref type = build_type(b, vt, tz, &tid);
  lm_fb_ref dict = 0;
  if (encoded || utf8_dict_id >= 0) {
    lm_type it = encoded ? lm_type_dict_index(t) : lm_type_make(LM_TYPE_INT32);
    lm_fb_table_start(b);
    lm_fb_add_i32(b, INT_BIT_WIDTH, 8 * lm_type_width(it));
    lm_fb_add_u8(b, INT_IS_SIGNED, lm_type_is_integer(it) ? 1 : 0);
    lm_fb_ref itr = lm_fb_table_end(b);
    lm_fb_table_start(b);
    lm_fb_add_i64(b, DE_ID, encoded ? dict_id : utf8_dict_id);
    lm_fb_add_ref(b, DE_INDEX_TYPE, itr);
    if (encoded && t.node->ordered)
      lm_fb_add_u8(b, DE_IS_ORDERED, 1);
    dict = lm_fb_table_end(b);
  }
  lm_fb_table_start(b);
  if (dict)
    lm_fb_add_ref(b, FIELD_DICTIONARY, dict);
  lm_fb_add_ref(b, FIELD_NAME, nm);
  lm_fb_add_u8(b, FIELD_NULLABLE, nullable ? 1 : 0);
  lm_fb_add_u8(b, FIELD_TYPE_TYPE, tid);
  lm_fb_add_ref(b, FIELD_TYPE, type);
  lm_fb_add_ref(b, FIELD_CHILDREN, children);
  return lm_fb_table_end(b);
}

/* Schema table (Schema.fbs Schema) for s with the custom metadata.
 * DICTIONARY fields get the ids of darr, in order (dictionary_encode_utf8
 * uses the column numbers). */
static lm_fb_ref build_schema(lm_fb_builder *b, const lm_schema *s,
                              const lm_ipc_kv *kv, int n_kv, bool dict_utf8,
                              const wdictarr *darr) {
  lm_fb_ref *fields = calloc((size_t)s->n_fields + 1, sizeof *fields);
  if (!fields) {
    b->oom = true;
    return 0;
  }
  int k = 0;
  for (int i = 0; i < s->n_fields; i++) {
    const lm_field *f = &s->fields[i];
    fields[i] =
        build_field(b, f->name, f->type, f->nullable, f->timezone, darr, &k,
                    dict_utf8 && f->type.id == LM_TYPE_UTF8 ? (int64_t)i : -1);
  }
  lm_fb_ref fv = lm_fb_create_ref_vector(b, fields, (size_t)s->n_fields);
  free(fields);
  lm_fb_ref md = n_kv ? build_kvs(b, kv, n_kv) : 0;
  lm_fb_table_start(b);
  lm_fb_add_ref(b, SCHEMA_FIELDS, fv);
  if (n_kv)
    lm_fb_add_ref(b, SCHEMA_CUSTOM_METADATA, md);
  return lm_fb_table_end(b);
}

/* Records the DICTIONARY occurrences of type t (pre-order, as build_field
 * numbers them) under column col at path[0, depth). LM_ERR_INVALID for a
 * dictionary inside a dictionary's values or nesting beyond 64. */
static int collect_dicts(lm_ipc_writer *w, lm_type t, int col, int *path,
                         int depth, int64_t *next, lm_error *err) {
  if (depth >= 64)
    return lm_err(err, LM_ERR_INVALID,
                  "column '%s' is nested too deeply for the IPC writer",
                  w->schema->fields[col].name);
  if (t.id == LM_TYPE_DICTIONARY) {
    lm_type vt = lm_type_dict_value(t);
    if (lm_type_depth(vt) > 1 && vt.id != LM_TYPE_FIXED_SIZE_BINARY)
      return lm_err(err, LM_ERR_INVALID,
                    "column '%s': dictionaries of nested values are not "
                    "supported by the IPC writer",
                    w->schema->fields[col].name);
    wdictarr *nd = realloc(w->darr, (size_t)(w->n_darr + 1) * sizeof *nd);
    if (!nd)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    w->darr = nd;
    wdictarr *d = &w->darr[w->n_darr++];
    memset(d, 0, sizeof *d);
    d->id = (*next)++;
    d->col = col;
    d->depth = depth;
    memcpy(d->path, path, (size_t)depth * sizeof *path);
    return 0;
  }
  if (t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST ||
      t.id == LM_TYPE_STRUCT)
    for (int i = 0; i < t.node->n_children; i++) {
      path[depth] = i;
      int rc = collect_dicts(w, t.node->children[i].type, col, path, depth + 1,
                             next, err);
      if (rc)
        return rc;
    }
  return 0;
}

/* The type (DICTIONARY) of occurrence d in the schema. */
static lm_type dict_array_type(const lm_ipc_writer *w, const wdictarr *d) {
  lm_type t = w->schema->fields[d->col].type;
  for (int k = 0; k < d->depth; k++)
    t = t.node->children[d->path[k]].type;
  return t;
}

/* The dictionary ids of the occurrences: opts->dictionary_ids when given
 * (checked: their count, a shared id's value type, no clash with a
 * dictionary_encode_utf8 column number), else those collect_dicts
 * numbered; sets each occurrence's owner (the first with its id). */
static int set_dict_ids(lm_ipc_writer *w, const lm_ipc_write_options *opts,
                        lm_error *err) {
  int n = opts ? opts->n_dictionary_ids : 0;
  if (n != 0 && (n != w->n_darr || !opts->dictionary_ids))
    return lm_err(err, LM_ERR_INVALID,
                  "%d dictionary ids given for %d dictionary-encoded fields", n,
                  w->n_darr);
  for (int k = 0; k < w->n_darr; k++) {
    wdictarr *d = &w->darr[k];
    if (n)
      d->id = opts->dictionary_ids[k];
    d->owner = k;
    if (opts && opts->dictionary_encode_utf8 && d->id >= 0 &&
        d->id < w->schema->n_fields &&
        w->schema->fields[d->id].type.id == LM_TYPE_UTF8)
      return lm_err(err, LM_ERR_INVALID,
                    "dictionary id %lld is also the id of VARCHAR column '%s' "
                    "(dictionary_encode_utf8)",
                    (long long)d->id, w->schema->fields[d->id].name);
    for (int j = 0; j < k; j++) {
      if (w->darr[j].id != d->id)
        continue;
      lm_type a = dict_array_type(w, &w->darr[j]);
      lm_type b = dict_array_type(w, d);
      if (!lm_type_eq(lm_type_dict_value(a), lm_type_dict_value(b)))
        return lm_err(err, LM_ERR_INVALID,
                      "columns '%s' and '%s' share dictionary id %lld but "
                      "their dictionaries hold different types",
                      w->schema->fields[w->darr[j].col].name,
                      w->schema->fields[d->col].name, (long long)d->id);
      d->owner = j;
      break;
    }
    if (d->depth > 0)
      w->darr[d->owner].nested = true;
  }
  return 0;
}

/* Sink mode: hands the bytes in out, then the gathered body segments, to
 * the sink in one call, and empties both. 0, or the sink's error (kept in
 * sink_rc / sink_err and repeated). Without a sink: 0. */
static int sink_flush(lm_ipc_writer *w) {
  if (!w->sink || w->sink_rc)
    return w->sink_rc;
  size_t n = (w->out->len ? 1 : 0) + w->n_segs;
  if (n == 0)
    return 0;
  if (n > w->cap_iov) {
    size_t nc = n < 64 ? 64 : 2 * n;
    struct iovec *v = realloc(w->iov, nc * sizeof *v);
    if (!v)
      return LM_ERR_NOMEM;
    w->iov = v;
    w->cap_iov = nc;
  }
  size_t k = 0;
  if (w->out->len)
    w->iov[k++] = (struct iovec){w->out->data, w->out->len};
  for (size_t i = 0; i < w->n_segs; i++) {
    const wseg *g = &w->segs[i];
    const uint8_t *p = g->p ? g->p : (const uint8_t *)w->body.data + g->off;
    if (k && (const uint8_t *)w->iov[k - 1].iov_base + w->iov[k - 1].iov_len ==
                 p) /* contiguous: one piece */
      w->iov[k - 1].iov_len += g->n;
    else
      w->iov[k++] = (struct iovec){(void *)p, g->n};
  }
  lm_err_clear(&w->sink_err);
  int rc = w->sink(w->sink_ctx, w->iov, (int)k, &w->sink_err);
  lm_buf_reset(w->out);
  w->n_segs = 0;
  if (rc)
    w->sink_rc = rc;
  return rc;
}

/* Writes one encapsulated message: continuation, metadata length (padded
 * so that the body starts aligned), flatbuffer, padding, body. Records a
 * Block when `blk` is non-NULL. */
static int write_message(lm_ipc_writer *w, const uint8_t *fb, size_t fb_len,
                         const lm_buf *body, block *blk) {
  int64_t start = w->pos;
  size_t a = (size_t)w->alignment;
  size_t meta = 8 + fb_len;
  size_t end = (size_t)start + meta;
  size_t pad = (a - end % a) % a;
  int32_t L = (int32_t)(fb_len + pad);
  uint8_t pre[8];
  put_le(pre, 0xFFFFFFFFu, 4);
  put_le(pre + 4, (uint32_t)L, 4);
  if (emit(w, pre, 8) || emit(w, fb, fb_len) || emit_zeros(w, pad))
    return LM_ERR_NOMEM;
  size_t blen = body ? w->blen : 0;
  if (blen && !w->gather && emit(w, body->data, blen))
    return LM_ERR_NOMEM;
  if (blen && w->gather)
    w->pos += (int64_t)blen; /* the segments go out with the header */
  if (blk) {
    blk->offset = start;
    blk->meta_len = 8 + L;
    blk->body_len = (int64_t)blen;
  }
  return w->gather ? sink_flush(w) : 0;
}

/* Message table around an already-built header. */
static int finish_message(lm_fb_builder *b, uint8_t header_type,
                          lm_fb_ref header, int64_t body_len,
                          const lm_ipc_kv *kv, int n_kv, const uint8_t **fb,
                          size_t *fb_len) {
  lm_fb_ref md = n_kv > 0 ? build_kvs(b, kv, n_kv) : 0;
  lm_fb_table_start(b);
  if (md)
    lm_fb_add_ref(b, MSG_CUSTOM_METADATA, md);
  lm_fb_add_i64(b, MSG_BODY_LENGTH, body_len);
  lm_fb_add_ref(b, MSG_HEADER, header);
  lm_fb_add_i16(b, MSG_VERSION, ARROW_METADATA_V5);
  lm_fb_add_u8(b, MSG_HEADER_TYPE, header_type);
  lm_fb_ref msg = lm_fb_table_end(b);
  return lm_fb_finish(b, msg, fb, fb_len);
}

/* ---------------------------------------------------------------- public */

static int writer_new(lm_schema *schema, bool file_format,
                      const lm_ipc_write_options *opts, lm_buf *out,
                      lm_ipc_sink_fn sink, void *sink_ctx, lm_ipc_writer **wp,
                      lm_error *err) {
  *wp = NULL;
  int alignment = opts && opts->alignment ? opts->alignment : 8;
  int compression = opts ? opts->compression : 0;
  if (alignment != 8 && alignment != 64)
    return lm_err(err, LM_ERR_INVALID,
                  "Arrow IPC alignment must be 8 or 64, not %d", alignment);
  if (!lm_ipc_codec_available(compression))
    return lm_err(err, LM_ERR_INVALID, "unknown IPC compression codec %d",
                  compression);
  for (int i = 0; i < schema->n_fields; i++)
    if (!lm_type_valid(schema->fields[i].type))
      return lm_err(err, LM_ERR_INVALID, "column '%s' has no Arrow IPC type",
                    schema->fields[i].name);
  lm_ipc_writer *w = calloc(1, sizeof *w);
  if (!w)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  w->schema = lm_schema_retain(schema);
  {
    int path[64];
    int64_t next = schema->n_fields;
    for (int i = 0; i < schema->n_fields; i++) {
      int rc = collect_dicts(w, schema->fields[i].type, i, path, 0, &next, err);
      if (rc) {
        lm_ipc_writer_free(w);
        return rc;
      }
    }
    int rc = set_dict_ids(w, opts, err);
    if (rc) {
      lm_ipc_writer_free(w);
      return rc;
    }
  }
  w->out = out;
  if (sink) {
    lm_buf_init(&w->own);
    w->out = &w->own;
    w->sink = sink;
    w->sink_ctx = sink_ctx;
    w->gather = compression == LM_IPC_COMPRESS_NONE;
  }
  w->file_format = file_format;
  w->alignment = alignment;
  w->compression = compression;
  lm_buf_init(&w->body);
  lm_buf_init(&w->nodes);
  lm_buf_init(&w->buffers);
  lm_buf_init(&w->tmp);
  lm_buf_init(&w->dblocks);
  w->dict_utf8 = opts && opts->dictionary_encode_utf8;
  if (w->dict_utf8) {
    w->dicts = calloc((size_t)schema->n_fields + 1, sizeof *w->dicts);
    if (!w->dicts)
      goto oom;
    for (int i = 0; i < schema->n_fields; i++) {
      lm_buf_init(&w->dicts[i].bytes);
      lm_buf_init(&w->dicts[i].offs);
    }
  }
  int n = opts ? opts->n_metadata : 0;
  if (n > 0) {
    w->kv = calloc((size_t)n, sizeof *w->kv);
    if (!w->kv)
      goto oom;
    w->n_kv = n;
    for (int i = 0; i < n; i++) {
      w->kv[i].key = lm_strdup(opts->metadata[i].key);
      w->kv[i].value = lm_strdup(opts->metadata[i].value);
      if (!w->kv[i].key || !w->kv[i].value)
        goto oom;
    }
  }
  if (file_format && emit(w, ARROW_MAGIC "\0\0", 8))
    goto oom;
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref sch =
      build_schema(&b, schema, w->kv, w->n_kv, w->dict_utf8, w->darr);
  const uint8_t *fb;
  size_t fb_len;
  int rc = finish_message(&b, ARROW_MSG_SCHEMA, sch, 0, NULL, 0, &fb, &fb_len);
  if (rc == 0)
    rc = write_message(w, fb, fb_len, NULL, NULL);
  lm_fb_builder_free(&b);
  if (rc == 0 && sink)
    rc = sink_flush(w);
  if (rc && w->sink_rc) {
    if (err)
      *err = w->sink_err;
    rc = w->sink_rc;
    lm_ipc_writer_free(w);
    return rc;
  }
  if (rc)
    goto oom;
  *wp = w;
  return 0;
oom:
  lm_ipc_writer_free(w);
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_ipc_writer_new(lm_schema *schema, bool file_format,
                      const lm_ipc_write_options *opts, lm_buf *out,
                      lm_ipc_writer **wp, lm_error *err) {
  return writer_new(schema, file_format, opts, out, NULL, NULL, wp, err);
}

int lm_ipc_writer_new_sink(lm_schema *schema, bool file_format,
                           const lm_ipc_write_options *opts,
                           lm_ipc_sink_fn sink, void *sink_ctx,
                           lm_ipc_writer **wp, lm_error *err) {
  *wp = NULL;
  if (!sink)
    return lm_err(err, LM_ERR_INVALID, "IPC writer: no sink");
  return writer_new(schema, file_format, opts, NULL, sink, sink_ctx, wp, err);
}

/* Sink mode: passes what the last call produced to the sink; a sink error
 * (also one met inside a message) replaces rc and *err. */
static int finish_call(lm_ipc_writer *w, int rc, lm_error *err) {
  if (!w->sink)
    return rc;
  if (rc == 0 || w->sink_rc)
    sink_flush(w);
  if (w->sink_rc) {
    if (err)
      *err = w->sink_err;
    return w->sink_rc;
  }
  return rc;
}

/* Gather mode: appends a body segment (p NULL: body.data[off, off + n)). */
static int add_seg(lm_ipc_writer *w, const uint8_t *p, size_t off, size_t n) {
  if (n == 0)
    return 0;
  if (w->n_segs == w->cap_segs) {
    size_t nc = w->cap_segs ? 2 * w->cap_segs : 32;
    wseg *g = realloc(w->segs, nc * sizeof *g);
    if (!g)
      return LM_ERR_NOMEM;
    w->segs = g;
    w->cap_segs = nc;
  }
  w->segs[w->n_segs++] = (wseg){p, off, n};
  w->blen += n;
  return 0;
}

/* Appends one body buffer (compressed when the writer compresses), padded
 * to the alignment, and its Buffer descriptor. `stable`: p stays valid
 * until the message is written (a batch's own buffer, not w->tmp), so in
 * gather mode it is referenced instead of copied. */
static int add_buffer_ex(lm_ipc_writer *w, const void *p, size_t n,
                         bool stable) {
  int64_t off = (int64_t)w->blen;
  int64_t len = (int64_t)n;
  size_t a = (size_t)w->alignment;
  if (w->gather) {
    if (n && stable) {
      if (add_seg(w, p, 0, n))
        return LM_ERR_NOMEM;
    } else if (n) {
      size_t at = w->body.len;
      if (lm_buf_append(&w->body, p, n) || add_seg(w, NULL, at, n))
        return LM_ERR_NOMEM;
    }
    if (w->blen % a && add_seg(w, ZEROS, 0, a - w->blen % a))
      return LM_ERR_NOMEM;
  } else if (w->compression && n > 0) {
    size_t bound = w->compression == LM_IPC_COMPRESS_ZSTD
                       ? ZSTD_compressBound(n)
                       : LZ4F_compressFrameBound(n, NULL);
    if (lm_buf_reserve(&w->body, 8 + bound))
      return LM_ERR_NOMEM;
    uint8_t *dst = (uint8_t *)w->body.data + w->body.len;
    size_t clen;
    if (w->compression == LM_IPC_COMPRESS_ZSTD) {
      clen = ZSTD_compress(dst + 8, bound, p, n, 1);
      if (ZSTD_isError(clen))
        clen = SIZE_MAX;
    } else {
      clen = LZ4F_compressFrame(dst + 8, bound, p, n, NULL);
      if (LZ4F_isError(clen))
        clen = SIZE_MAX;
    }
    if (clen == SIZE_MAX || clen >= n) {
      /* not worth it (or failed): -1 marks an uncompressed buffer */
      put_le(dst, UINT64_MAX, 8);
      memcpy(dst + 8, p, n);
      clen = n;
    } else {
      put_le(dst, (uint64_t)n, 8);
    }
    w->body.len += 8 + clen;
    len = (int64_t)(8 + clen);
  } else if (n && lm_buf_append(&w->body, p, n)) {
    return LM_ERR_NOMEM;
  }
  if (!w->gather) {
    while (w->body.len % a)
      if (lm_buf_putc(&w->body, 0))
        return LM_ERR_NOMEM;
    w->blen = w->body.len;
  }
  uint8_t d[16];
  put_le(d, (uint64_t)off, 8);
  put_le(d + 8, (uint64_t)len, 8);
  return lm_buf_append(&w->buffers, d, 16) ? LM_ERR_NOMEM : 0;
}

static int add_buffer(lm_ipc_writer *w, const void *p, size_t n) {
  return add_buffer_ex(w, p, n, true);
}

/* A bitmap of n bits starting at bit `off` of bits, realigned to bit 0. */
static int add_bitmap(lm_ipc_writer *w, const uint8_t *bits, int64_t off,
                      int64_t n) {
  size_t nb = (size_t)((n + 7) / 8);
  if (off % 8 == 0)
    return add_buffer(w, bits + off / 8, nb);
  lm_buf_reset(&w->tmp);
  if (lm_buf_reserve(&w->tmp, nb + 1))
    return LM_ERR_NOMEM;
  uint8_t *d = (uint8_t *)w->tmp.data;
  memset(d, 0, nb);
  for (int64_t i = 0; i < n; i++)
    if (lm_bit_get(bits, off + i))
      lm_bit_set(d, i);
  return add_buffer_ex(w, d, nb, false);
}

/* Writes offsets [off, off + n] of a (int32 or int64), rebased to start
 * at 0; *first / *last get the original first and last offsets. */
static int add_offsets(lm_ipc_writer *w, const lm_array *a, int64_t *first,
                       int64_t *last) {
  int64_t n = a->length, off = a->offset;
  bool large = a->type.id == LM_TYPE_LARGE_UTF8 ||
               a->type.id == LM_TYPE_LARGE_BINARY ||
               a->type.id == LM_TYPE_LARGE_LIST;
  size_t ow = large ? 8 : 4;
  const uint8_t *base = a->values->data + (size_t)off * ow;
  int64_t f, l;
  if (large) {
    memcpy(&f, base, 8);
    memcpy(&l, base + (size_t)n * 8, 8);
  } else {
    int32_t f32, l32;
    memcpy(&f32, base, 4);
    memcpy(&l32, base + (size_t)n * 4, 4);
    f = f32;
    l = l32;
  }
  *first = f;
  *last = l;
  if (f == 0)
    return add_buffer(w, base, (size_t)(n + 1) * ow);
  lm_buf_reset(&w->tmp);
  if (lm_buf_reserve(&w->tmp, (size_t)(n + 1) * ow))
    return LM_ERR_NOMEM;
  uint8_t *d = (uint8_t *)w->tmp.data;
  for (int64_t i = 0; i <= n; i++) {
    if (large) {
      int64_t v;
      memcpy(&v, base + (size_t)i * 8, 8);
      v -= f;
      memcpy(d + (size_t)i * 8, &v, 8);
    } else {
      int32_t v;
      memcpy(&v, base + (size_t)i * 4, 4);
      v -= (int32_t)f;
      memcpy(d + (size_t)i * 4, &v, 4);
    }
  }
  return add_buffer_ex(w, d, (size_t)(n + 1) * ow, false);
}

/* Writes the FieldNode and buffers of a (then, for nested types, its
 * children: a LIST's items [first, last), a STRUCT's rows [offset,
 * offset + length) of each child), compactly from row 0. */
static int add_column(lm_ipc_writer *w, const lm_array *a) {
  int64_t n = a->length, off = a->offset;
  uint8_t node[16];
  int64_t nulls = a->type.id == LM_TYPE_NULL ? n : a->null_count;
  put_le(node, (uint64_t)n, 8);
  put_le(node + 8, (uint64_t)nulls, 8);
  if (lm_buf_append(&w->nodes, node, 16))
    return LM_ERR_NOMEM;
  if (a->type.id == LM_TYPE_NULL)
    return 0;
  int rc;
  if (a->null_count > 0 && a->validity)
    rc = add_bitmap(w, a->validity->data, off, n);
  else
    rc = add_buffer(w, NULL, 0);
  if (rc)
    return rc;
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    return add_bitmap(w, a->values->data, off, n);
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY: {
    int64_t first, last;
    if ((rc = add_offsets(w, a, &first, &last)) != 0)
      return rc;
    return add_buffer(w, a->data ? a->data->data + first : NULL,
                      (size_t)(last - first));
  }
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST: {
    int64_t first, last;
    if ((rc = add_offsets(w, a, &first, &last)) != 0)
      return rc;
    lm_array *items = lm_array_slice(a->children[0], first, last - first);
    if (!items)
      return LM_ERR_NOMEM;
    rc = add_column(w, items);
    lm_array_release(items);
    return rc;
  }
  case LM_TYPE_STRUCT:
    for (int c = 0; c < a->n_children; c++) {
      lm_array *part = lm_array_slice(a->children[c], off, n);
      if (!part)
        return LM_ERR_NOMEM;
      rc = add_column(w, part);
      lm_array_release(part);
      if (rc)
        return rc;
    }
    return 0;
  default: {
    size_t width = a->type.id == LM_TYPE_DICTIONARY
                       ? (size_t)lm_type_width(lm_type_dict_index(a->type))
                       : (size_t)lm_type_width(a->type);
    return add_buffer(w,
                      a->values ? a->values->data + (size_t)off * width : NULL,
                      (size_t)n * width);
  }
  }
}

/* Writes one RecordBatch message over cols (n_rows rows), or, when dict
 * is non-NULL, a DictionaryBatch (Message.fbs {id, data, isDelta})
 * wrapping it for dictionary dict (its owner's map as the message's
 * custom_metadata). Records its Block in *blk. 0 or LM_ERR_NOMEM. */
static int write_record_batch(lm_ipc_writer *w, const lm_array *const *cols,
                              int n_cols, int64_t n_rows, const wdictarr *dict,
                              bool is_delta, block *blk) {
  lm_buf_reset(&w->body);
  lm_buf_reset(&w->nodes);
  lm_buf_reset(&w->buffers);
  w->blen = 0;
  w->n_segs = 0;
  for (int c = 0; c < n_cols; c++)
    if (add_column(w, cols[c]))
      return LM_ERR_NOMEM;
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  size_t n_nodes = w->nodes.len / 16, n_bufs = w->buffers.len / 16;
  lm_fb_ref nodes =
      lm_fb_create_vector(&b, w->nodes.data, n_nodes, ARROW_FIELD_NODE_SIZE, 8);
  lm_fb_ref bufs =
      lm_fb_create_vector(&b, w->buffers.data, n_bufs, ARROW_BUFFER_SIZE, 8);
  lm_fb_ref comp = 0;
  if (w->compression) {
    lm_fb_table_start(&b);
    lm_fb_add_u8(&b, BC_CODEC,
                 w->compression == LM_IPC_COMPRESS_ZSTD
                     ? ARROW_CODEC_ZSTD
                     : ARROW_CODEC_LZ4_FRAME);
    lm_fb_add_u8(&b, BC_METHOD, 0);
    comp = lm_fb_table_end(&b);
  }
  lm_fb_table_start(&b);
  lm_fb_add_i64(&b, RB_LENGTH, n_rows);
  lm_fb_add_ref(&b, RB_NODES, nodes);
  lm_fb_add_ref(&b, RB_BUFFERS, bufs);
  if (comp)
    lm_fb_add_ref(&b, RB_COMPRESSION, comp);
  lm_fb_ref rb = lm_fb_table_end(&b);
  uint8_t htype = ARROW_MSG_RECORD_BATCH;
  if (dict) {
    lm_fb_table_start(&b);
    lm_fb_add_i64(&b, DB_ID, dict->id);
    lm_fb_add_ref(&b, DB_DATA, rb);
    if (is_delta)
      lm_fb_add_u8(&b, DB_IS_DELTA, 1);
    rb = lm_fb_table_end(&b);
    htype = ARROW_MSG_DICTIONARY_BATCH;
  }
  const uint8_t *fb;
  size_t fb_len;
  int rc = finish_message(&b, htype, rb, (int64_t)w->blen,
                          dict ? dict->kv : w->msg_kv,
                          dict ? dict->n_kv : w->msg_n_kv, &fb, &fb_len);
  if (rc == 0)
    rc = write_message(w, fb, fb_len, &w->body, blk);
  lm_fb_builder_free(&b);
  return rc;
}

static uint64_t hash_bytes(const char *p, int32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < n; i++)
    h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static void wdict_reset(wdict *d) {
  lm_buf_reset(&d->bytes);
  lm_buf_reset(&d->offs);
  if (d->slots)
    memset(d->slots, 0, d->cap * sizeof *d->slots);
  d->count = d->emitted = 0;
}

static void wdict_free(wdict *d) {
  lm_buf_free(&d->bytes);
  lm_buf_free(&d->offs);
  free(d->slots);
}

/* The entry of value p[0, n) in d, added when new; -1 on OOM, -2 when the
 * dictionary would exceed 2 GiB. */
static int64_t wdict_find(wdict *d, const char *p, int32_t n) {
  if ((size_t)d->count * 2 + 2 > d->cap) {
    size_t nc = d->cap ? 2 * d->cap : 1024;
    uint32_t *ns = calloc(nc, sizeof *ns);
    if (!ns)
      return -1;
    const int32_t *o = (const int32_t *)(const void *)d->offs.data;
    for (int32_t e = 0; e < d->count; e++) {
      size_t h = hash_bytes(d->bytes.data + o[e], o[e + 1] - o[e]) & (nc - 1);
      while (ns[h])
        h = (h + 1) & (nc - 1);
      ns[h] = (uint32_t)e + 1;
    }
    free(d->slots);
    d->slots = ns;
    d->cap = nc;
  }
  if (d->offs.len == 0) {
    int32_t z = 0;
    if (lm_buf_append(&d->offs, &z, 4))
      return -1;
  }
  size_t h = hash_bytes(p, n) & (d->cap - 1);
  const int32_t *o = (const int32_t *)(const void *)d->offs.data;
  while (d->slots[h]) {
    int32_t e = (int32_t)d->slots[h] - 1;
    if (o[e + 1] - o[e] == n &&
        (n == 0 || memcmp(d->bytes.data + o[e], p, (size_t)n) == 0))
      return e;
    h = (h + 1) & (d->cap - 1);
  }
  if ((int64_t)d->bytes.len + n > INT32_MAX || d->count == INT32_MAX - 1)
    return -2;
  if ((n && lm_buf_append(&d->bytes, p, (size_t)n)))
    return -1;
  int32_t end = (int32_t)d->bytes.len;
  if (lm_buf_append(&d->offs, &end, 4))
    return -1;
  d->slots[h] = (uint32_t)d->count + 1;
  return d->count++;
}

/* Appends a Block to a list of them (file footer). */
static int push_block(lm_ipc_writer *w, const block *blk) {
  if (w->n_blocks == w->cap_blocks) {
    size_t nc = w->cap_blocks ? 2 * w->cap_blocks : 16;
    block *nb = realloc(w->blocks, nc * sizeof *nb);
    if (!nb)
      return LM_ERR_NOMEM;
    w->blocks = nb;
    w->cap_blocks = nc;
  }
  w->blocks[w->n_blocks++] = *blk;
  return 0;
}

/* Dictionary-encodes VARCHAR column c of the batch: fills *ix (an INT32
 * index array sharing a's validity, its values in ixbuf->data, malloc'ed
 * and freed by the caller) and writes the column's
 * DictionaryBatch (Columnar.html "Dictionary Messages"): a replacement in
 * the stream format, the first dictionary then deltas in the file format. */
static int encode_column(lm_ipc_writer *w, int c, const lm_array *a,
                         lm_array *ix, lm_buffer *ixbuf, lm_error *err) {
  wdict *d = &w->dicts[c];
  if (!w->file_format)
    wdict_reset(d);
  int64_t n = a->length, off = a->offset;
  int32_t *iv = malloc((size_t)(off + n + 1) * 4);
  memset(ixbuf, 0, sizeof *ixbuf);
  ixbuf->data = (uint8_t *)iv;
  if (!iv)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    if (lm_array_is_null(a, i)) {
      iv[off + i] = 0;
      continue;
    }
    int32_t len;
    const char *p = lm_array_str(a, i, &len);
    int64_t e = wdict_find(d, p, len);
    if (e == -2)
      return lm_err(err, LM_ERR_INVALID,
                    "the dictionary of column '%s' exceeds 2 GiB",
                    w->schema->fields[c].name);
    if (e < 0)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    iv[off + i] = (int32_t)e;
  }
  ixbuf->refcnt = 1;
  ixbuf->size = ixbuf->capacity = (size_t)(off + n) * 4;
  *ix = *a;
  ix->type = lm_type_make(LM_TYPE_INT32);
  ix->values = ixbuf;
  ix->data = NULL;
  bool delta = w->file_format && d->written;
  if (delta && d->count == d->emitted)
    return 0; /* file format: nothing new */
  if (d->offs.len == 0) {
    int32_t z = 0;
    if (lm_buf_append(&d->offs, &z, 4))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_buffer ob = {1,   (uint8_t *)d->offs.data, d->offs.len, d->offs.len, NULL,
                  NULL};
  static uint8_t no_bytes[8];
  lm_buffer db = {1,
                  d->bytes.data ? (uint8_t *)d->bytes.data : no_bytes,
                  d->bytes.len,
                  d->bytes.len,
                  NULL,
                  NULL};
  lm_array dv;
  memset(&dv, 0, sizeof dv);
  dv.refcnt = 1;
  dv.type = lm_type_make(LM_TYPE_UTF8);
  dv.length = d->count - d->emitted;
  dv.offset = d->emitted;
  dv.values = &ob;
  dv.data = &db;
  const lm_array *cols[1] = {&dv};
  block blk;
  wdictarr ud; /* dictionary id c, no metadata */
  memset(&ud, 0, sizeof ud);
  ud.id = c;
  if (write_record_batch(w, cols, 1, dv.length, &ud, delta, &blk) ||
      (w->file_format && lm_buf_append(&w->dblocks, &blk, sizeof blk)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  d->emitted = d->count;
  d->written = true;
  return 0;
}

/* The array of DICTIONARY occurrence d in batch bt. */
static const lm_array *dict_array(const lm_batch *bt, const wdictarr *d) {
  const lm_array *a = bt->columns[d->col];
  for (int k = 0; k < d->depth; k++)
    a = a->children[d->path[k]];
  return a;
}

/* Whether rows [0, n) of a and b are equal (compared by their JSON text,
 * which is exact for every type). */
static bool rows_equal(const lm_array *a, const lm_array *b, int64_t n,
                       lm_buf *x, lm_buf *y) {
  if (a == b)
    return true;
  for (int64_t i = 0; i < n; i++) {
    lm_buf_reset(x);
    lm_buf_reset(y);
    if (lm_array_format_json(x, a, i) || lm_array_format_json(y, b, i) ||
        x->len != y->len || (x->len && memcmp(x->data, y->data, x->len)))
      return false;
  }
  return true;
}

/* Writes one DictionaryBatch of rows [off, off + len) of dv. */
static int write_dict_batch(lm_ipc_writer *w, const wdictarr *d, lm_array *dv,
                            int64_t off, int64_t len, bool delta) {
  lm_array *part = lm_array_slice(dv, off, len);
  if (!part)
    return LM_ERR_NOMEM;
  const lm_array *cols[1] = {part};
  block blk;
  int rc = write_record_batch(w, cols, 1, len, d, delta, &blk);
  if (rc == 0 && w->file_format && lm_buf_append(&w->dblocks, &blk, sizeof blk))
    rc = LM_ERR_NOMEM;
  lm_array_release(part);
  return rc;
}

/* Columnar.html "Dictionary Messages": before a record batch, writes what
 * each DICTIONARY occurrence's dictionary needs. The same dictionary
 * (pointer) as last time: nothing; one that extends the last one: a delta
 * of the new entries; another one: in the stream format a replacement, in
 * the file format (no replacement allowed) the whole dictionary as a delta
 * and the column's indices rebased onto it (top-level columns only;
 * *rebased gets the new column). */
static int write_dicts(lm_ipc_writer *w, const lm_batch *bt, lm_array **rebased,
                       lm_error *err) {
  lm_buf x, y;
  lm_buf_init(&x);
  lm_buf_init(&y);
  int rc = 0;
  for (int k = 0; k < w->n_darr && !rc; k++) {
    wdictarr *occ = &w->darr[k];
    wdictarr *d = &w->darr[occ->owner]; /* the id's state */
    const lm_array *a = dict_array(bt, occ);
    lm_array *dv = a->dictionary;
    if (occ != d && d->last != dv &&
        !(d->last && dv->length == d->last->length &&
          rows_equal(d->last, dv, dv->length, &x, &y))) {
      rc = lm_err(err, LM_ERR_INVALID,
                  "columns '%s' and '%s' share dictionary id %lld but hold "
                  "different dictionaries",
                  w->schema->fields[d->col].name,
                  w->schema->fields[occ->col].name, (long long)d->id);
      break;
    }
    if (occ == d && d->last != dv) {
      int64_t ll = d->last ? d->last->length : 0;
      bool tail = d->last && d->base + ll == d->emitted;
      if (tail && dv->length >= ll && rows_equal(d->last, dv, ll, &x, &y)) {
        if (dv->length > ll &&
            write_dict_batch(w, d, dv, ll, dv->length - ll, true))
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        d->emitted = d->base + dv->length;
      } else if (!d->last || !w->file_format) {
        if (write_dict_batch(w, d, dv, 0, dv->length, false))
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        d->base = 0;
        d->emitted = dv->length;
      } else if (d->nested) {
        rc = lm_err(err, LM_ERR_INVALID,
                    "column '%s': a nested dictionary changed between "
                    "batches, which the IPC file format cannot replace (use "
                    "the stream format)",
                    w->schema->fields[d->col].name);
      } else {
        if (write_dict_batch(w, d, dv, 0, dv->length, true))
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        d->base = d->emitted;
        d->emitted += dv->length;
      }
      if (rc)
        break;
      lm_array_release(d->last);
      d->last = lm_array_retain(dv);
    }
    if (d->base == 0 || occ->depth > 0)
      continue;
    /* file format: indices into the written dictionary start at base */
    lm_type it = lm_type_dict_index(a->type);
    int wd = lm_type_width(it);
    int64_t max = wd == 8                  ? INT64_MAX
                  : lm_type_is_integer(it) ? (INT64_C(1) << (8 * wd - 1)) - 1
                                           : (INT64_C(1) << (8 * wd)) - 1;
    if (d->emitted - 1 > max) {
      rc = lm_err(err, LM_ERR_INVALID,
                  "column '%s': the file's dictionary grew to %lld entries, "
                  "more than its %s indices address",
                  w->schema->fields[occ->col].name, (long long)d->emitted,
                  lm_type_name(it));
      break;
    }
    lm_buffer *v = lm_buffer_new((size_t)a->length * (size_t)wd);
    if (!v) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    for (int64_t i = 0; i < a->length; i++) {
      int64_t ix =
          lm_array_is_null(a, i) ? 0 : lm_array_dict_index(a, i) + d->base;
      memcpy(v->data + i * wd, &ix, (size_t)wd); /* little-endian */
    }
    rebased[occ->col] =
        lm_array_new(a->type, a->length, a->null_count, a->offset, NULL, v,
                     NULL, 0, NULL, lm_array_retain(a->dictionary));
    if (!rebased[occ->col]) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    /* the values buffer starts at row 0: shift by offset */
    rebased[occ->col]->offset = 0;
    rebased[occ->col]->validity =
        a->null_count > 0 ? lm_buffer_retain(a->validity) : NULL;
    if (a->offset && a->null_count > 0) {
      /* keep validity aligned with the new values: copy the bits */
      lm_buffer *vb = lm_buffer_new((size_t)((a->length + 7) / 8));
      if (!vb) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      for (int64_t i = 0; i < a->length; i++)
        if (!lm_array_is_null(a, i))
          lm_bit_set(vb->data, i);
      lm_buffer_release(rebased[occ->col]->validity);
      rebased[occ->col]->validity = vb;
    }
  }
  lm_buf_free(&x);
  lm_buf_free(&y);
  return rc;
}

static void kvs_free(lm_ipc_kv *kv, int n) {
  for (int i = 0; i < n; i++) {
    free(kv[i].key);
    free(kv[i].value);
  }
  free(kv);
}

int lm_ipc_writer_set_dictionary_metadata(lm_ipc_writer *w, int64_t id,
                                          const lm_ipc_kv *kv, int n_kv,
                                          lm_error *err) {
  int k = 0;
  while (k < w->n_darr && w->darr[k].id != id)
    k++;
  if (k == w->n_darr)
    return lm_err(err, LM_ERR_INVALID,
                  "no dictionary-encoded column has dictionary id %lld",
                  (long long)id);
  if (n_kv < 0 || (n_kv > 0 && !kv))
    return lm_err(err, LM_ERR_INVALID, "bad dictionary metadata count %d",
                  n_kv);
  for (int i = 0; i < n_kv; i++)
    if (!kv[i].key || !kv[i].value)
      return lm_err(err, LM_ERR_INVALID,
                    "dictionary metadata pair %d has a NULL key or value", i);
  lm_ipc_kv *copy = n_kv ? calloc((size_t)n_kv, sizeof *copy) : NULL;
  if (n_kv && !copy)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n_kv; i++) {
    copy[i].key = lm_strdup(kv[i].key);
    copy[i].value = lm_strdup(kv[i].value);
    if (!copy[i].key || !copy[i].value) {
      kvs_free(copy, n_kv);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  }
  wdictarr *d = &w->darr[w->darr[k].owner];
  kvs_free(d->kv, d->n_kv);
  d->kv = copy;
  d->n_kv = n_kv;
  return 0;
}

static int writer_write(lm_ipc_writer *w, const lm_batch *bt, lm_error *err);

int lm_ipc_writer_write(lm_ipc_writer *w, const lm_batch *bt, lm_error *err) {
  return lm_ipc_writer_write_metadata(w, bt, NULL, 0, err);
}

int lm_ipc_writer_write_metadata(lm_ipc_writer *w, const lm_batch *bt,
                                 const lm_ipc_kv *kv, int n_kv, lm_error *err) {
  if (w->sink_rc) {
    if (err)
      *err = w->sink_err;
    return w->sink_rc;
  }
  if (n_kv < 0 || (n_kv > 0 && !kv))
    return lm_err(err, LM_ERR_INVALID, "bad message metadata count %d", n_kv);
  for (int i = 0; i < n_kv; i++)
    if (!kv[i].key || !kv[i].value)
      return lm_err(err, LM_ERR_INVALID,
                    "message metadata pair %d has a NULL key or value", i);
  w->msg_kv = kv;
  w->msg_n_kv = n_kv;
  int rc = writer_write(w, bt, err);
  w->msg_kv = NULL;
  w->msg_n_kv = 0;
  return finish_call(w, rc, err);
}

static int writer_write(lm_ipc_writer *w, const lm_batch *bt, lm_error *err) {
  if (w->finished)
    return lm_err(err, LM_ERR_INVALID, "IPC writer already finished");
  if (bt->num_columns != w->schema->n_fields)
    return lm_err(err, LM_ERR_INVALID,
                  "batch has %d columns, the IPC writer's schema %d",
                  bt->num_columns, w->schema->n_fields);
  for (int c = 0; c < bt->num_columns; c++)
    if (!lm_type_eq(bt->columns[c]->type, w->schema->fields[c].type) ||
        bt->columns[c]->length != bt->num_rows)
      return lm_err(err, LM_ERR_INVALID,
                    "column %d ('%s') does not match the IPC writer's schema",
                    c, w->schema->fields[c].name);
  for (int c = 0; c < bt->num_columns; c++) {
    lm_i128 sv; /* NaN / ±Infinity: Arrow's Decimal128 has none */
    if (lm_dec_find_special(bt->columns[c], &sv)) {
      lm_err(err, LM_ERR_EXEC,
             "cannot write numeric %s in column '%s' to Arrow IPC: "
             "Decimal128 has no NaN or Infinity (cast the column to double "
             "precision or text)",
             sv == LM_DEC_NAN ? "NaN"
             : sv > 0         ? "Infinity"
                              : "-Infinity",
             w->schema->fields[c].name);
      return lm_err_state(err, "22003");
    }
  }
  const lm_array **cols = calloc((size_t)bt->num_columns + 1, sizeof *cols);
  lm_array *ix = NULL;
  lm_buffer *ixbuf = NULL;
  if (w->dict_utf8) {
    ix = calloc((size_t)bt->num_columns + 1, sizeof *ix);
    ixbuf = calloc((size_t)bt->num_columns + 1, sizeof *ixbuf);
  }
  lm_array **rebased = calloc((size_t)bt->num_columns + 1, sizeof *rebased);
  int rc = 0;
  if (!cols || !rebased || (w->dict_utf8 && (!ix || !ixbuf)))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc == 0 && w->n_darr)
    rc = write_dicts(w, bt, rebased, err);
  for (int c = 0; rc == 0 && c < bt->num_columns; c++) {
    cols[c] = rebased[c] ? rebased[c] : bt->columns[c];
    if (!w->dict_utf8 || cols[c]->type.id != LM_TYPE_UTF8)
      continue;
    rc = encode_column(w, c, cols[c], &ix[c], &ixbuf[c], err);
    cols[c] = &ix[c];
  }
  block blk;
  if (rc == 0 && (write_record_batch(w, cols, bt->num_columns, bt->num_rows,
                                     NULL, false, &blk) ||
                  (w->file_format && push_block(w, &blk))))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (ixbuf)
    for (int c = 0; c < bt->num_columns; c++)
      free(ixbuf[c].data);
  if (rebased)
    for (int c = 0; c < bt->num_columns; c++)
      lm_array_release(rebased[c]);
  free(rebased);
  free(cols);
  free(ix);
  free(ixbuf);
  return rc;
}

static int writer_finish(lm_ipc_writer *w, lm_error *err);

int lm_ipc_writer_finish(lm_ipc_writer *w, lm_error *err) {
  if (w->sink_rc) {
    if (err)
      *err = w->sink_err;
    return w->sink_rc;
  }
  return finish_call(w, writer_finish(w, err), err);
}

static int writer_finish(lm_ipc_writer *w, lm_error *err) {
  if (w->finished)
    return lm_err(err, LM_ERR_INVALID, "IPC writer already finished");
  w->finished = true;
  uint8_t eos[8];
  put_le(eos, 0xFFFFFFFFu, 4);
  put_le(eos + 4, 0, 4);
  if (emit(w, eos, 8))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (!w->file_format)
    return 0;
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref sch =
      build_schema(&b, w->schema, w->kv, w->n_kv, w->dict_utf8, w->darr);
  uint8_t *blocks = calloc(w->n_blocks + 1, ARROW_BLOCK_SIZE);
  if (!blocks) {
    lm_fb_builder_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < w->n_blocks; i++) {
    uint8_t *p = blocks + i * ARROW_BLOCK_SIZE;
    put_le(p, (uint64_t)w->blocks[i].offset, 8);
    put_le(p + 8, (uint32_t)w->blocks[i].meta_len, 4);
    put_le(p + 16, (uint64_t)w->blocks[i].body_len, 8);
  }
  lm_fb_ref rbs =
      lm_fb_create_vector(&b, blocks, w->n_blocks, ARROW_BLOCK_SIZE, 8);
  free(blocks);
  size_t n_dicts = w->dblocks.len / sizeof(block);
  uint8_t *dblk = calloc(n_dicts + 1, ARROW_BLOCK_SIZE);
  if (!dblk) {
    lm_fb_builder_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n_dicts; i++) {
    block bk;
    memcpy(&bk, w->dblocks.data + i * sizeof bk, sizeof bk);
    uint8_t *p = dblk + i * ARROW_BLOCK_SIZE;
    put_le(p, (uint64_t)bk.offset, 8);
    put_le(p + 8, (uint32_t)bk.meta_len, 4);
    put_le(p + 16, (uint64_t)bk.body_len, 8);
  }
  lm_fb_ref dicts = lm_fb_create_vector(&b, dblk, n_dicts, ARROW_BLOCK_SIZE, 8);
  free(dblk);
  lm_fb_table_start(&b);
  lm_fb_add_ref(&b, FOOTER_SCHEMA, sch);
  lm_fb_add_ref(&b, FOOTER_DICTIONARIES, dicts);
  lm_fb_add_ref(&b, FOOTER_RECORD_BATCHES, rbs);
  lm_fb_add_i16(&b, FOOTER_VERSION, ARROW_METADATA_V5);
  lm_fb_ref footer = lm_fb_table_end(&b);
  const uint8_t *fb;
  size_t fb_len;
  int rc = lm_fb_finish(&b, footer, &fb, &fb_len);
  uint8_t tail[4];
  put_le(tail, (uint32_t)fb_len, 4);
  if (rc == 0 &&
      (emit(w, fb, fb_len) || emit(w, tail, 4) || emit(w, ARROW_MAGIC, 6)))
    rc = LM_ERR_NOMEM;
  lm_fb_builder_free(&b);
  return rc ? lm_err(err, LM_ERR_NOMEM, "out of memory") : 0;
}

void lm_ipc_writer_free(lm_ipc_writer *w) {
  if (!w)
    return;
  if (w->dicts)
    for (int i = 0; i < w->schema->n_fields; i++)
      wdict_free(&w->dicts[i]);
  free(w->dicts);
  for (int i = 0; i < w->n_darr; i++) {
    lm_array_release(w->darr[i].last);
    kvs_free(w->darr[i].kv, w->darr[i].n_kv);
  }
  free(w->darr);
  lm_schema_release(w->schema);
  for (int i = 0; i < w->n_kv; i++) {
    free(w->kv[i].key);
    free(w->kv[i].value);
  }
  free(w->kv);
  free(w->blocks);
  lm_buf_free(&w->dblocks);
  lm_buf_free(&w->body);
  lm_buf_free(&w->nodes);
  lm_buf_free(&w->buffers);
  lm_buf_free(&w->tmp);
  lm_buf_free(&w->own);
  free(w->segs);
  free(w->iov);
  free(w);
}
