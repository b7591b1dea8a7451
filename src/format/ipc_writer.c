/*
 * format/ipc_writer.c — Arrow IPC stream and file writer (see lm_ipc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "format/ipc_internal.h"

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

struct lm_ipc_writer {
  lm_schema *schema;
  lm_buf *out;
  int64_t pos; /* bytes produced so far */
  bool file_format;
  bool finished;
  int alignment;
  int compression;
  int n_kv;
  lm_ipc_kv *kv;
  block *blocks;
  size_t n_blocks, cap_blocks;
  bool dict_utf8;
  wdict *dicts;   /* per field (used for VARCHAR fields) */
  lm_buf dblocks; /* file format: dictionary Blocks */
  /* per batch scratch */
  lm_buf body;
  lm_buf nodes;   /* FieldNode structs */
  lm_buf buffers; /* Buffer structs */
  lm_buf tmp;
};

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
  static const uint8_t z[64];
  while (n) {
    size_t k = n < 64 ? n : 64;
    if (emit(w, z, k))
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

/* Arrow type table for t; sets *type_id to the Type union tag. */
static lm_fb_ref build_type(lm_fb_builder *b, lm_type t, const char *tz,
                            uint8_t *type_id) {
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
    *type_id = ARROW_TYPE_INT;
    lm_fb_add_i32(b, INT_BIT_WIDTH, 8 * lm_type_width(t));
    lm_fb_add_u8(b, INT_IS_SIGNED, 1);
    break;
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    *type_id = ARROW_TYPE_FLOATING_POINT;
    lm_fb_add_i16(b, FP_PRECISION,
                  t.id == LM_TYPE_FLOAT32 ? ARROW_PREC_SINGLE
                                          : ARROW_PREC_DOUBLE);
    break;
  case LM_TYPE_UTF8:
    *type_id = ARROW_TYPE_UTF8;
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
  default:
    *type_id = ARROW_TYPE_NONE;
    break;
  }
  return lm_fb_table_end(b);
}

/* Schema table (Schema.fbs Schema) for s with the custom metadata. */
static lm_fb_ref build_schema(lm_fb_builder *b, const lm_schema *s,
                              const lm_ipc_kv *kv, int n_kv, bool dict_utf8) {
  lm_fb_ref *fields = calloc((size_t)s->n_fields + 1, sizeof *fields);
  if (!fields) {
    b->oom = true;
    return 0;
  }
  for (int i = 0; i < s->n_fields; i++) {
    const lm_field *f = &s->fields[i];
    lm_fb_ref name = lm_fb_create_string(b, f->name, strlen(f->name));
    uint8_t tid;
    lm_fb_ref type = build_type(b, f->type, f->timezone, &tid);
    lm_fb_ref children = lm_fb_create_ref_vector(b, NULL, 0);
    lm_fb_ref dict = 0;
    if (dict_utf8 && f->type.id == LM_TYPE_UTF8) {
      /* DictionaryEncoding {id = column number, indexType Int32} */
      lm_fb_table_start(b);
      lm_fb_add_i32(b, INT_BIT_WIDTH, 32);
      lm_fb_add_u8(b, INT_IS_SIGNED, 1);
      lm_fb_ref it = lm_fb_table_end(b);
      lm_fb_table_start(b);
      lm_fb_add_i64(b, DE_ID, i);
      lm_fb_add_ref(b, DE_INDEX_TYPE, it);
      dict = lm_fb_table_end(b);
    }
    lm_fb_table_start(b);
    if (dict)
      lm_fb_add_ref(b, FIELD_DICTIONARY, dict);
    lm_fb_add_ref(b, FIELD_NAME, name);
    lm_fb_add_u8(b, FIELD_NULLABLE, f->nullable ? 1 : 0);
    lm_fb_add_u8(b, FIELD_TYPE_TYPE, tid);
    lm_fb_add_ref(b, FIELD_TYPE, type);
    lm_fb_add_ref(b, FIELD_CHILDREN, children);
    fields[i] = lm_fb_table_end(b);
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
  if (body && body->len && emit(w, body->data, body->len))
    return LM_ERR_NOMEM;
  if (blk) {
    blk->offset = start;
    blk->meta_len = 8 + L;
    blk->body_len = body ? (int64_t)body->len : 0;
  }
  return 0;
}

/* Message table around an already-built header. */
static int finish_message(lm_fb_builder *b, uint8_t header_type,
                          lm_fb_ref header, int64_t body_len,
                          const uint8_t **fb, size_t *fb_len) {
  lm_fb_table_start(b);
  lm_fb_add_i64(b, MSG_BODY_LENGTH, body_len);
  lm_fb_add_ref(b, MSG_HEADER, header);
  lm_fb_add_i16(b, MSG_VERSION, ARROW_METADATA_V5);
  lm_fb_add_u8(b, MSG_HEADER_TYPE, header_type);
  lm_fb_ref msg = lm_fb_table_end(b);
  return lm_fb_finish(b, msg, fb, fb_len);
}

/* ---------------------------------------------------------------- public */

int lm_ipc_writer_new(lm_schema *schema, bool file_format,
                      const lm_ipc_write_options *opts, lm_buf *out,
                      lm_ipc_writer **wp, lm_error *err) {
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
    if (schema->fields[i].type.id >= LM_TYPE__COUNT)
      return lm_err(err, LM_ERR_INVALID, "column '%s' has no Arrow IPC type",
                    schema->fields[i].name);
  lm_ipc_writer *w = calloc(1, sizeof *w);
  if (!w)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  w->schema = lm_schema_retain(schema);
  w->out = out;
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
  lm_fb_ref sch = build_schema(&b, schema, w->kv, w->n_kv, w->dict_utf8);
  const uint8_t *fb;
  size_t fb_len;
  int rc = finish_message(&b, ARROW_MSG_SCHEMA, sch, 0, &fb, &fb_len);
  if (rc == 0)
    rc = write_message(w, fb, fb_len, NULL, NULL);
  lm_fb_builder_free(&b);
  if (rc)
    goto oom;
  *wp = w;
  return 0;
oom:
  lm_ipc_writer_free(w);
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* Appends one body buffer (compressed when the writer compresses), padded
 * to the alignment, and its Buffer descriptor. */
static int add_buffer(lm_ipc_writer *w, const void *p, size_t n) {
  int64_t off = (int64_t)w->body.len;
  int64_t len = (int64_t)n;
  if (w->compression && n > 0) {
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
  size_t a = (size_t)w->alignment;
  while (w->body.len % a)
    if (lm_buf_putc(&w->body, 0))
      return LM_ERR_NOMEM;
  uint8_t d[16];
  put_le(d, (uint64_t)off, 8);
  put_le(d + 8, (uint64_t)len, 8);
  return lm_buf_append(&w->buffers, d, 16) ? LM_ERR_NOMEM : 0;
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
  return add_buffer(w, d, nb);
}

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
  case LM_TYPE_UTF8: {
    const int32_t *o = (const int32_t *)a->values->data + off;
    int32_t first = o[0], last = o[n];
    if (first == 0) {
      rc = add_buffer(w, o, (size_t)(n + 1) * 4);
    } else {
      lm_buf_reset(&w->tmp);
      if (lm_buf_reserve(&w->tmp, (size_t)(n + 1) * 4))
        return LM_ERR_NOMEM;
      int32_t *d = (int32_t *)(void *)w->tmp.data;
      for (int64_t i = 0; i <= n; i++)
        d[i] = o[i] - first;
      rc = add_buffer(w, d, (size_t)(n + 1) * 4);
    }
    if (rc)
      return rc;
    return add_buffer(w, a->data ? a->data->data + first : NULL,
                      (size_t)(last - first));
  }
  default: {
    size_t width = (size_t)lm_type_width(a->type);
    return add_buffer(w, a->values->data + (size_t)off * width,
                      (size_t)n * width);
  }
  }
}

/* Writes one RecordBatch message over cols (n_rows rows), or, when
 * dict_id >= 0, a DictionaryBatch (Message.fbs {id, data, isDelta})
 * wrapping it. Records its Block in *blk. 0 or LM_ERR_NOMEM. */
static int write_record_batch(lm_ipc_writer *w, const lm_array *const *cols,
                              int n_cols, int64_t n_rows, int64_t dict_id,
                              bool is_delta, block *blk) {
  lm_buf_reset(&w->body);
  lm_buf_reset(&w->nodes);
  lm_buf_reset(&w->buffers);
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
  if (dict_id >= 0) {
    lm_fb_table_start(&b);
    lm_fb_add_i64(&b, DB_ID, dict_id);
    lm_fb_add_ref(&b, DB_DATA, rb);
    if (is_delta)
      lm_fb_add_u8(&b, DB_IS_DELTA, 1);
    rb = lm_fb_table_end(&b);
    htype = ARROW_MSG_DICTIONARY_BATCH;
  }
  const uint8_t *fb;
  size_t fb_len;
  int rc = finish_message(&b, htype, rb, (int64_t)w->body.len, &fb, &fb_len);
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
  if (write_record_batch(w, cols, 1, dv.length, c, delta, &blk) ||
      (w->file_format && lm_buf_append(&w->dblocks, &blk, sizeof blk)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  d->emitted = d->count;
  d->written = true;
  return 0;
}

int lm_ipc_writer_write(lm_ipc_writer *w, const lm_batch *bt, lm_error *err) {
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
  const lm_array **cols = calloc((size_t)bt->num_columns + 1, sizeof *cols);
  lm_array *ix = NULL;
  lm_buffer *ixbuf = NULL;
  if (w->dict_utf8) {
    ix = calloc((size_t)bt->num_columns + 1, sizeof *ix);
    ixbuf = calloc((size_t)bt->num_columns + 1, sizeof *ixbuf);
  }
  int rc = 0;
  if (!cols || (w->dict_utf8 && (!ix || !ixbuf)))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int c = 0; rc == 0 && c < bt->num_columns; c++) {
    cols[c] = bt->columns[c];
    if (!w->dict_utf8 || cols[c]->type.id != LM_TYPE_UTF8)
      continue;
    rc = encode_column(w, c, cols[c], &ix[c], &ixbuf[c], err);
    cols[c] = &ix[c];
  }
  block blk;
  if (rc == 0 && (write_record_batch(w, cols, bt->num_columns, bt->num_rows, -1,
                                     false, &blk) ||
                  (w->file_format && push_block(w, &blk))))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (ixbuf)
    for (int c = 0; c < bt->num_columns; c++)
      free(ixbuf[c].data);
  free(cols);
  free(ix);
  free(ixbuf);
  return rc;
}

int lm_ipc_writer_finish(lm_ipc_writer *w, lm_error *err) {
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
  lm_fb_ref sch = build_schema(&b, w->schema, w->kv, w->n_kv, w->dict_utf8);
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
  free(w);
}
