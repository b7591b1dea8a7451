/*
 * columnar/cdata.c — the Arrow C Data Interface: export of batches and
 * schemas as ArrowArray/ArrowSchema, import of foreign struct arrays.
 *
 * Export is zero-copy: each exported column (a child ArrowArray) holds one
 * reference to its lm_array and drops it in its own release callback, so a
 * consumer may move children out and release them independently; the
 * parent holds a reference to the lm_batch. Schemas are self-contained
 * (names copied).
 *
 * Import moves the parent ArrowArray into a refcounted holder. Buffers
 * whose layout matches ours are wrapped (lm_buffer_wrap) without copying;
 * each wrapped buffer holds a holder reference and the producer's release
 * runs when the last one goes. Everything is validated before it is read.
 * Columns that need a conversion (timestamp/duration units other than µs),
 * buffers not aligned to their element width, and string columns without
 * a data buffer are copied through builders. A parent (struct-level)
 * validity bitmap is folded into each column's own bitmap (a new bitmap;
 * the values stay zero-copy).
 */
#include "columnar/lm_cdata.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Imported struct arrays with more children are rejected. */
#define CDATA_MAX_COLUMNS 65536
/* Upper bound on offset + length of any imported array, so that byte sizes
 * computed from element counts cannot overflow. */
#define CDATA_MAX_INDEX (INT64_MAX / 16)

/* Stand-in for empty buffers on export: some consumers reject NULL buffer
 * pointers even where the buffer size is 0. */
static _Alignas(64) const uint8_t zero_buf[64];

/* ------------------------------------------------------------ formats */

/* The Arrow format string of t, or NULL when t has none. */
static const char *type_format(lm_type t) {
  switch (t.id) {
  case LM_TYPE_NULL:
    return "n";
  case LM_TYPE_BOOL:
    return "b";
  case LM_TYPE_INT8:
    return "c";
  case LM_TYPE_INT16:
    return "s";
  case LM_TYPE_INT32:
    return "i";
  case LM_TYPE_INT64:
    return "l";
  case LM_TYPE_FLOAT32:
    return "f";
  case LM_TYPE_FLOAT64:
    return "g";
  case LM_TYPE_UTF8:
    return "u";
  case LM_TYPE_TIMESTAMP:
    switch (t.unit) {
    case LM_UNIT_SECOND:
      return "tss:";
    case LM_UNIT_MILLI:
      return "tsm:";
    case LM_UNIT_MICRO:
      return "tsu:";
    case LM_UNIT_NANO:
      return "tsn:";
    default:
      return NULL;
    }
  case LM_TYPE_INTERVAL:
    return "tDu"; /* duration[µs] */
  default:
    return NULL;
  }
}

/* How an imported column is read: its Laminar type, the byte width of one
 * source value (0 for null/bool/utf8) and the factor converting the source
 * unit to µs (mul > 1: multiply; div > 1: floor-divide). */
typedef struct import_format {
  lm_type type;
  int width;
  int64_t mul, div;
} import_format;

/* Sets *f for the time unit letter u ('s', 'm', 'u', 'n'); false if u is
 * not one. */
static bool unit_factor(char u, import_format *f) {
  f->mul = f->div = 1;
  switch (u) {
  case 's':
    f->mul = 1000000;
    return true;
  case 'm':
    f->mul = 1000;
    return true;
  case 'u':
    return true;
  case 'n':
    f->div = 1000;
    return true;
  default:
    return false;
  }
}

/* Parses a child format string; false if unsupported. */
static bool parse_format(const char *s, import_format *f) {
  memset(f, 0, sizeof *f);
  f->mul = f->div = 1;
  if (s[0] && !s[1]) {
    switch (s[0]) {
    case 'n':
      f->type = lm_type_make(LM_TYPE_NULL);
      return true;
    case 'b':
      f->type = lm_type_make(LM_TYPE_BOOL);
      return true;
    case 'c':
      f->type = lm_type_make(LM_TYPE_INT8);
      break;
    case 's':
      f->type = lm_type_make(LM_TYPE_INT16);
      break;
    case 'i':
      f->type = lm_type_make(LM_TYPE_INT32);
      break;
    case 'l':
      f->type = lm_type_make(LM_TYPE_INT64);
      break;
    case 'f':
      f->type = lm_type_make(LM_TYPE_FLOAT32);
      break;
    case 'g':
      f->type = lm_type_make(LM_TYPE_FLOAT64);
      break;
    case 'u':
      f->type = lm_type_make(LM_TYPE_UTF8);
      return true;
    default:
      return false;
    }
    f->width = lm_type_width(f->type);
    return true;
  }
  /* timestamp "ts<unit>:<timezone>" (any zone, including none) */
  if (s[0] == 't' && s[1] == 's' && s[2] && s[3] == ':') {
    if (!unit_factor(s[2], f))
      return false;
    f->type = lm_type_make(LM_TYPE_TIMESTAMP);
    f->width = 8;
    return true;
  }
  /* duration "tD<unit>" -> INTERVAL (µs) */
  if (s[0] == 't' && s[1] == 'D' && s[2] && !s[3]) {
    if (!unit_factor(s[2], f))
      return false;
    f->type = lm_type_make(LM_TYPE_INTERVAL);
    f->width = 8;
    return true;
  }
  return false;
}

/* ------------------------------------------------------- schema export */

/* private_data of the exported top-level schema. */
typedef struct schema_priv {
  int64_t n;
  struct ArrowSchema **ptrs;  /* children pointers handed out */
  struct ArrowSchema kids[1]; /* n entries (at least one allocated) */
} schema_priv;

/* Release callback of an exported field schema: frees its copied name. */
static void release_field_schema(struct ArrowSchema *s) {
  free(s->private_data);
  s->private_data = NULL;
  s->release = NULL;
}

/* Release callback of the exported top-level schema: releases the children
 * not moved out by the consumer, then our bookkeeping. */
static void release_struct_schema(struct ArrowSchema *s) {
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < p->n; i++) {
    struct ArrowSchema *c = p->ptrs[i];
    if (c->release)
      c->release(c);
  }
  free(p->ptrs);
  free(p);
  s->private_data = NULL;
  s->release = NULL;
}

/* Fills *out with a "+s" schema of s's fields. When cols is non-NULL the
 * column types come from the arrays (so that the schema always describes
 * the exported data), otherwise from the fields. */
static int export_schema(const lm_schema *s, lm_array *const *cols,
                         struct ArrowSchema *out, lm_error *err) {
  memset(out, 0, sizeof *out);
  int n = s->n_fields;
  for (int i = 0; i < n; i++) {
    lm_type t = cols ? cols[i]->type : s->fields[i].type;
    if (!type_format(t)) {
      const char *name = s->fields[i].name ? s->fields[i].name : "";
      return lm_err(err, LM_ERR_INVALID,
                    "column '%.200s': type %s has no Arrow format", name,
                    lm_type_name(t));
    }
  }
  size_t kids = n ? (size_t)n : 1;
  schema_priv *p =
      calloc(1, sizeof *p + (kids - 1) * sizeof(struct ArrowSchema));
  struct ArrowSchema **ptrs = malloc(kids * sizeof *ptrs);
  if (!p || !ptrs) {
    free(p);
    free(ptrs);
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a schema");
  }
  p->n = n;
  p->ptrs = ptrs;
  for (int i = 0; i < n; i++) {
    const lm_field *f = &s->fields[i];
    struct ArrowSchema *c = &p->kids[i];
    char *name = lm_strdup(f->name ? f->name : "");
    if (!name) {
      for (int j = 0; j < i; j++)
        p->kids[j].release(&p->kids[j]);
      free(ptrs);
      free(p);
      return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a schema");
    }
    c->format = type_format(cols ? cols[i]->type : f->type);
    c->name = name;
    c->metadata = NULL;
    c->flags = f->nullable ? ARROW_FLAG_NULLABLE : 0;
    c->n_children = 0;
    c->children = NULL;
    c->dictionary = NULL;
    c->release = release_field_schema;
    c->private_data = name;
    ptrs[i] = c;
  }
  out->format = "+s";
  out->name = "";
  out->metadata = NULL;
  out->flags = 0;
  out->n_children = n;
  out->children = ptrs;
  out->dictionary = NULL;
  out->release = release_struct_schema;
  out->private_data = p;
  return LM_OK;
}

/* Exports schema s (borrowed) as a struct "+s" ArrowSchema, one child per
 * field with its name, format and ARROW_FLAG_NULLABLE. *out is filled for
 * the caller, who must call out->release. On error out->release is NULL. */
int lm_cdata_export_schema(const lm_schema *s, struct ArrowSchema *out,
                           lm_error *err) {
  if (!out)
    return lm_err(err, LM_ERR_INVALID, "no output schema");
  memset(out, 0, sizeof *out);
  if (!s)
    return lm_err(err, LM_ERR_INVALID, "no schema to export");
  return export_schema(s, NULL, out, err);
}

/* -------------------------------------------------------- array export */

/* private_data of an exported column. */
typedef struct column_priv {
  lm_array *arr; /* one reference */
  const void *bufs[3];
} column_priv;

/* private_data of the exported top-level struct array. */
typedef struct batch_priv {
  lm_batch *batch; /* one reference */
  const void *bufs[1];
  int64_t n;
  struct ArrowArray **ptrs;
  struct ArrowArray kids[1]; /* n entries (at least one allocated) */
} batch_priv;

/* Release callback of an exported column: drops its array reference. */
static void release_column(struct ArrowArray *a) {
  column_priv *p = a->private_data;
  lm_array_release(p->arr);
  free(p);
  a->private_data = NULL;
  a->release = NULL;
}

/* Release callback of the exported struct array: releases the children
 * still in place, then the batch reference. */
static void release_batch(struct ArrowArray *a) {
  batch_priv *p = a->private_data;
  for (int64_t i = 0; i < p->n; i++) {
    struct ArrowArray *c = p->ptrs[i];
    if (c->release)
      c->release(c);
  }
  lm_batch_release(p->batch);
  free(p->ptrs);
  free(p);
  a->private_data = NULL;
  a->release = NULL;
}

/* Pointer to export for buffer b; zero_buf stands in for a missing buffer
 * when nothing is read from it. */
static const void *buf_ptr(const lm_buffer *b) {
  return b && b->data ? (const void *)b->data : (const void *)zero_buf;
}

/* Fills *out with column a (retained). */
static int export_column(lm_array *a, const char *name, struct ArrowArray *out,
                         lm_error *err) {
  memset(out, 0, sizeof *out);
  lm_type_id id = a->type.id;
  bool empty = a->length == 0;
  if (id != LM_TYPE_NULL && !empty &&
      (!a->values || !a->values->data ||
       (id == LM_TYPE_UTF8 && (!a->data || !a->data->data))))
    return lm_err(err, LM_ERR_INVALID, "column '%.200s': missing buffer", name);
  if (id != LM_TYPE_NULL && a->null_count > 0 &&
      (!a->validity || !a->validity->data))
    return lm_err(err, LM_ERR_INVALID,
                  "column '%.200s': NULLs without a validity bitmap", name);
  column_priv *p = calloc(1, sizeof *p);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a batch");
  p->arr = lm_array_retain(a);
  out->length = a->length;
  out->offset = a->offset;
  out->null_count = a->null_count;
  out->buffers = p->bufs;
  if (id == LM_TYPE_NULL) {
    out->null_count = a->length;
    out->offset = 0;
    out->n_buffers = 0;
  } else {
    p->bufs[0] = a->null_count > 0 ? a->validity->data : NULL;
    p->bufs[1] = buf_ptr(a->values);
    out->n_buffers = 2;
    if (id == LM_TYPE_UTF8) {
      p->bufs[2] = buf_ptr(a->data);
      out->n_buffers = 3;
    }
    if (empty && (!a->values || !a->values->data))
      out->offset = 0; /* zero_buf holds one zero offset, no more */
  }
  out->n_children = 0;
  out->children = NULL;
  out->dictionary = NULL;
  out->release = release_column;
  out->private_data = p;
  return LM_OK;
}

/* Exports b as a struct array of its columns (zero-copy; see the header)
 * and its schema. On error both out structs have release == NULL. */
int lm_cdata_export_batch(lm_batch *b, struct ArrowArray *out_array,
                          struct ArrowSchema *out_schema, lm_error *err) {
  if (!out_array || !out_schema)
    return lm_err(err, LM_ERR_INVALID, "no output array or schema");
  memset(out_array, 0, sizeof *out_array);
  memset(out_schema, 0, sizeof *out_schema);
  if (!b || !b->schema || b->num_columns != b->schema->n_fields ||
      b->num_rows < 0)
    return lm_err(err, LM_ERR_INVALID, "malformed batch");
  int n = b->num_columns;
  for (int i = 0; i < n; i++) {
    const char *name = b->schema->fields[i].name;
    if (!name)
      name = "";
    if (!b->columns[i] || b->columns[i]->length < b->num_rows)
      return lm_err(err, LM_ERR_INVALID,
                    "column '%.200s': shorter than the batch", name);
  }
  int rc = export_schema(b->schema, b->columns, out_schema, err);
  if (rc)
    return rc;
  size_t kids = n ? (size_t)n : 1;
  batch_priv *p = calloc(1, sizeof *p + (kids - 1) * sizeof(struct ArrowArray));
  struct ArrowArray **ptrs = malloc(kids * sizeof *ptrs);
  if (!p || !ptrs) {
    free(p);
    free(ptrs);
    out_schema->release(out_schema);
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a batch");
  }
  p->n = n;
  p->ptrs = ptrs;
  for (int i = 0; i < n; i++) {
    const char *name = b->schema->fields[i].name;
    rc = export_column(b->columns[i], name ? name : "", &p->kids[i], err);
    if (rc) {
      for (int j = 0; j < i; j++)
        p->kids[j].release(&p->kids[j]);
      free(ptrs);
      free(p);
      out_schema->release(out_schema);
      return rc;
    }
    ptrs[i] = &p->kids[i];
  }
  p->batch = lm_batch_retain(b);
  p->bufs[0] = NULL;
  out_array->length = b->num_rows;
  out_array->null_count = 0;
  out_array->offset = 0;
  out_array->n_buffers = 1;
  out_array->n_children = n;
  out_array->buffers = p->bufs;
  out_array->children = ptrs;
  out_array->dictionary = NULL;
  out_array->release = release_batch;
  out_array->private_data = p;
  return LM_OK;
}

/* -------------------------------------------------------------- import */

/* Owns the moved-in parent ArrowArray; one reference per wrapped buffer
 * plus one held by the import while it runs. */
typedef struct import_holder {
  int refcnt;
  struct ArrowArray array;
} import_holder;

/* Drops a holder reference; the last one releases the foreign array. */
static void holder_unref(import_holder *h) {
  if (__atomic_sub_fetch(&h->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  if (h->array.release)
    h->array.release(&h->array);
  free(h);
}

/* lm_buffer release hook of a wrapped foreign buffer. */
static void release_imported_buffer(lm_buffer *b) {
  holder_unref(b->owner);
}

/* Wraps size bytes of foreign memory at p; the buffer keeps h alive. */
static lm_buffer *wrap_foreign(import_holder *h, const void *p, size_t size) {
  lm_buffer *b = lm_buffer_wrap(p, size, release_imported_buffer, h);
  if (b)
    __atomic_fetch_add(&h->refcnt, 1, __ATOMIC_RELAXED);
  return b;
}

/* One column being imported, after validation. Row i of the result is
 * element pos + i of the child's buffers; it is valid when both the
 * child's bitmap (if any) at pos + i and the parent's (if any) at
 * ppos + i are set. */
typedef struct col_src {
  const char *name;
  import_format fmt;
  const uint8_t *valid;  /* child validity or NULL (no NULLs) */
  const uint8_t *pvalid; /* parent validity or NULL (no NULLs) */
  int64_t pos, ppos, len;
  const uint8_t *values; /* values, bool bits or utf8 offsets */
  const uint8_t *data;   /* utf8 bytes (may be NULL if all empty) */
} col_src;

/* Whether row i of the column is valid (child and parent bitmaps). */
static inline bool src_valid(const col_src *s, int64_t i) {
  return (!s->valid || lm_bit_get(s->valid, s->pos + i)) &&
         (!s->pvalid || lm_bit_get(s->pvalid, s->ppos + i));
}

/* Reads element k of a possibly unaligned int32 array. */
static inline int32_t load_i32(const uint8_t *p, int64_t k) {
  int32_t v;
  memcpy(&v, p + k * 4, 4);
  return v;
}

/* Reads element k of a possibly unaligned signed integer array of width w. */
static int64_t load_int(const uint8_t *p, int w, int64_t k) {
  const uint8_t *q = p + k * w;
  switch (w) {
  case 1:
    return (int8_t)q[0];
  case 2: {
    int16_t v;
    memcpy(&v, q, 2);
    return v;
  }
  case 4: {
    int32_t v;
    memcpy(&v, q, 4);
    return v;
  }
  default: {
    int64_t v;
    memcpy(&v, q, 8);
    return v;
  }
  }
}

/* Formats a "column 'name': ..." LM_ERR_INVALID error. */
static int col_err(lm_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int col_err(lm_error *err, const char *name, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0)
    msg[0] = '\0';
  return lm_err(err, LM_ERR_INVALID, "column '%.200s': %s", name, msg);
}

/* Copies the column through a builder (conversions, unaligned buffers). */
static int import_copy(const col_src *s, lm_array **out, lm_error *err) {
  lm_builder bld;
  if (lm_builder_init(&bld, s->fmt.type, s->len))
    return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  lm_type_id id = s->fmt.type.id;
  for (int64_t i = 0; i < s->len; i++) {
    if (!src_valid(s, i)) {
      lm_builder_append_null(&bld);
      continue;
    }
    int64_t k = s->pos + i;
    if (id == LM_TYPE_BOOL) {
      lm_builder_append_bool(&bld, lm_bit_get(s->values, k));
    } else if (id == LM_TYPE_UTF8) {
      int32_t o0 = load_i32(s->values, k), o1 = load_i32(s->values, k + 1);
      lm_builder_append_str(&bld, o1 > o0 ? (const char *)s->data + o0 : "",
                            o1 - o0);
    } else if (id == LM_TYPE_FLOAT32) {
      float v;
      memcpy(&v, s->values + k * 4, 4);
      lm_builder_append_double(&bld, v);
    } else if (id == LM_TYPE_FLOAT64) {
      double v;
      memcpy(&v, s->values + k * 8, 8);
      lm_builder_append_double(&bld, v);
    } else {
      int64_t v = load_int(s->values, s->fmt.width, k);
      if (s->fmt.mul > 1 && lm_mul_overflow_i64(v, s->fmt.mul, &v)) {
        lm_builder_free(&bld);
        return col_err(err, s->name, "value out of range for µs at row %lld",
                       (long long)i);
      }
      if (s->fmt.div > 1)
        v = lm_floor_div(v, s->fmt.div);
      lm_builder_append_int(&bld, v);
    }
  }
  int rc = lm_builder_finish(&bld, out);
  lm_builder_free(&bld);
  if (rc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  return LM_OK;
}

/* Imports the column without copying its values: buffers are wrapped from
 * element pos - pos % 8 on, so the array's offset is pos % 8 (bitmaps stay
 * byte-aligned). A parent bitmap is ANDed into a new validity bitmap. */
static int import_wrap(import_holder *h, const col_src *s, int64_t nulls,
                       lm_array **out, lm_error *err) {
  lm_array *a = calloc(1, sizeof *a);
  if (!a)
    goto oom;
  int64_t r = s->pos & 7, shift = s->pos - r, n = r + s->len;
  size_t bitmap = (size_t)((n + 7) / 8);
  a->refcnt = 1;
  a->type = s->fmt.type;
  a->length = s->len;
  a->offset = r;
  a->null_count = nulls;
  if (nulls > 0) {
    if (s->pvalid) {
      a->validity = lm_buffer_new(bitmap);
      if (!a->validity)
        goto oom;
      for (int64_t i = 0; i < s->len; i++)
        if (src_valid(s, i))
          lm_bit_set(a->validity->data, r + i);
    } else {
      a->validity = wrap_foreign(h, s->valid + shift / 8, bitmap);
      if (!a->validity)
        goto oom;
    }
  }
  switch (s->fmt.type.id) {
  case LM_TYPE_BOOL:
    a->values = wrap_foreign(h, s->values + shift / 8, bitmap);
    break;
  case LM_TYPE_UTF8:
    a->values = wrap_foreign(h, s->values + shift * 4, (size_t)(n + 1) * 4);
    if (a->values)
      a->data = wrap_foreign(h, s->data,
                             (size_t)load_i32(s->values, s->pos + s->len));
    if (!a->data)
      goto oom;
    break;
  default:
    a->values = wrap_foreign(h, s->values + shift * s->fmt.width,
                             (size_t)n * (size_t)s->fmt.width);
    break;
  }
  if (!a->values)
    goto oom;
  *out = a;
  return LM_OK;
oom:
  lm_array_release(a);
  return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
}

/* Validates child i (schema cs, array ca) of the parent (poff, len, pvalid)
 * and imports it into *out. */
static int import_column(import_holder *h, const struct ArrowSchema *cs,
                         const struct ArrowArray *ca, int64_t poff, int64_t len,
                         const uint8_t *pvalid, int i, lm_field *field,
                         lm_array **out, lm_error *err) {
  char label[32];
  const char *name = cs ? cs->name : NULL;
  if (!name) {
    snprintf(label, sizeof label, "#%d", i);
    name = label;
  }
  col_src s;
  memset(&s, 0, sizeof s);
  s.name = name;
  if (!cs || !cs->release)
    return col_err(err, name, "child schema is missing or released");
  if (!cs->format)
    return col_err(err, name, "no format string");
  if (!parse_format(cs->format, &s.fmt))
    return col_err(err, name, "unsupported format '%.40s'", cs->format);
  if (cs->dictionary)
    return col_err(err, name, "dictionary-encoded columns are not supported");
  if (cs->n_children != 0)
    return col_err(err, name, "format '%.40s' has no children", cs->format);
  if (!ca || !ca->release)
    return col_err(err, name, "child array is missing or released");
  if (ca->n_children != 0 || ca->dictionary)
    return col_err(err, name, "unexpected children or dictionary");
  if (ca->length < 0 || ca->offset < 0)
    return col_err(err, name, "negative length or offset");
  if (ca->null_count < -1 || ca->null_count > ca->length)
    return col_err(err, name, "invalid null_count %lld",
                   (long long)ca->null_count);
  lm_type_id id = s.fmt.type.id;
  int64_t nbuf = id == LM_TYPE_NULL ? 0 : id == LM_TYPE_UTF8 ? 3 : 2;
  if (ca->n_buffers != nbuf)
    return col_err(err, name, "expected %lld buffers, got %lld",
                   (long long)nbuf, (long long)ca->n_buffers);
  if (nbuf > 0 && !ca->buffers)
    return col_err(err, name, "buffers array is NULL");
  /* parent row j is child element poff + j; poff + len does not overflow */
  if (ca->length < poff + len)
    return col_err(err, name, "length %lld is shorter than the parent's %lld",
                   (long long)ca->length, (long long)(poff + len));
  if (ca->offset > CDATA_MAX_INDEX - (poff + len))
    return col_err(err, name, "offset too large");
  s.pos = ca->offset + poff;
  s.ppos = poff;
  s.len = len;
  s.pvalid = pvalid;
  field->type = s.fmt.type;
  field->nullable = (cs->flags & ARROW_FLAG_NULLABLE) != 0;

  if (id == LM_TYPE_NULL) {
    if (len > 0 && !field->nullable)
      return col_err(err, name, "non-nullable column of type null");
    *out = lm_array_new_null(s.fmt.type, len);
    return *out ? LM_OK
                : lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  }

  /* validity */
  const uint8_t *vb = ca->buffers[0];
  if (ca->null_count != 0) {
    if (vb)
      s.valid = vb;
    else if (ca->null_count > 0)
      return col_err(err, name,
                     "validity buffer is NULL but null_count is %lld",
                     (long long)ca->null_count);
  }
  /* values / offsets / data: only read when rows are */
  s.values = ca->buffers[1];
  if (id == LM_TYPE_UTF8)
    s.data = ca->buffers[2];
  if (len > 0 && !s.values)
    return col_err(err, name, "%s buffer is NULL",
                   id == LM_TYPE_UTF8 ? "offsets" : "values");
  if (id == LM_TYPE_UTF8 && len > 0) {
    int32_t prev = load_i32(s.values, s.pos);
    if (prev < 0)
      return col_err(err, name, "negative first offset %d", (int)prev);
    for (int64_t j = 1; j <= len; j++) {
      int32_t o = load_i32(s.values, s.pos + j);
      if (o < prev)
        return col_err(err, name, "offsets not monotonic at row %lld",
                       (long long)(j - 1));
      prev = o;
    }
    if (!s.data && prev > load_i32(s.values, s.pos))
      return col_err(err, name, "data buffer is NULL");
  }

  /* NULLs in the rows we keep */
  int64_t nulls = 0;
  if (s.pvalid) {
    for (int64_t j = 0; j < len; j++)
      nulls += !src_valid(&s, j);
  } else if (s.valid) {
    nulls = len - lm_bitmap_count_set(s.valid, s.pos, len);
  }
  if (nulls == 0)
    s.valid = s.pvalid = NULL;
  if (nulls > 0 && !field->nullable)
    return col_err(err, name, "non-nullable column has %lld NULLs",
                   (long long)nulls);

  if (len == 0)
    return import_copy(&s, out, err); /* an empty array, nothing read */
  bool copy = s.fmt.mul > 1 || s.fmt.div > 1;
  if (s.fmt.width > 1 && (uintptr_t)s.values % (uintptr_t)s.fmt.width)
    copy = true;
  if (id == LM_TYPE_UTF8 && ((uintptr_t)s.values % 4 || !s.data))
    copy = true;
  if (copy)
    return import_copy(&s, out, err);
  return import_wrap(h, &s, nulls, out, err);
}

/* Imports a "+s" struct array (moved) described by schema (borrowed) into
 * a new batch (*out, refcount 1) whose columns share the foreign buffers
 * where possible; see the header for the contract. */
int lm_cdata_import_batch(struct ArrowArray *array,
                          const struct ArrowSchema *schema, lm_batch **out,
                          lm_error *err) {
  if (out)
    *out = NULL;
  if (!array || !array->release)
    return lm_err(err, LM_ERR_INVALID, "arrow array is missing or released");
  import_holder *h = malloc(sizeof *h);
  if (!h) {
    array->release(array);
    array->release = NULL;
    return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  }
  h->refcnt = 1;
  h->array = *array;
  array->release = NULL; /* moved */
  const struct ArrowArray *pa = &h->array;

  int rc = LM_OK;
  lm_schema *sch = NULL;
  lm_array **cols = NULL;
  int n = 0;
  if (!out) {
    rc = lm_err(err, LM_ERR_INVALID, "no output batch");
    goto done;
  }
  if (!schema || !schema->release || !schema->format) {
    rc = lm_err(err, LM_ERR_INVALID, "arrow schema is missing or released");
    goto done;
  }
  if (strcmp(schema->format, "+s") != 0) {
    rc = lm_err(err, LM_ERR_INVALID,
                "expected a struct array (format '+s'), got '%.40s'",
                schema->format);
    goto done;
  }
  if (schema->n_children < 0 || schema->n_children > CDATA_MAX_COLUMNS ||
      (schema->n_children > 0 && !schema->children)) {
    rc = lm_err(err, LM_ERR_INVALID, "struct schema: invalid children");
    goto done;
  }
  n = (int)schema->n_children;
  if (pa->n_children != n || (n > 0 && !pa->children)) {
    rc = lm_err(err, LM_ERR_INVALID,
                "struct array has %lld children, the schema %d",
                (long long)pa->n_children, n);
    goto done;
  }
  if (pa->length < 0 || pa->offset < 0 ||
      pa->offset > CDATA_MAX_INDEX - pa->length) {
    rc = lm_err(err, LM_ERR_INVALID, "struct array: invalid length or offset");
    goto done;
  }
  if (pa->n_buffers != 1 || !pa->buffers || pa->dictionary) {
    rc =
        lm_err(err, LM_ERR_INVALID, "struct array: expected 1 buffer, got %lld",
               (long long)pa->n_buffers);
    goto done;
  }
  if (pa->null_count < -1 || pa->null_count > pa->length) {
    rc = lm_err(err, LM_ERR_INVALID, "struct array: invalid null_count %lld",
                (long long)pa->null_count);
    goto done;
  }
  const uint8_t *pvalid = NULL;
  if (pa->null_count != 0) {
    pvalid = pa->buffers[0];
    if (!pvalid && pa->null_count > 0) {
      rc = lm_err(err, LM_ERR_INVALID,
                  "struct array: validity buffer is NULL but null_count is "
                  "%lld",
                  (long long)pa->null_count);
      goto done;
    }
    if (pvalid &&
        lm_bitmap_count_set(pvalid, pa->offset, pa->length) == pa->length)
      pvalid = NULL;
  }

  sch = lm_schema_new(n);
  cols = calloc(n ? (size_t)n : 1, sizeof *cols);
  if (!sch || !cols) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    lm_field f = {0};
    rc = import_column(h, schema->children[i], pa->children[i], pa->offset,
                       pa->length, pvalid, i, &f, &cols[i], err);
    if (rc)
      goto done;
    const char *name = schema->children[i]->name;
    if (lm_schema_set_field(sch, i, name ? name : "", f.type, f.nullable)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
      goto done;
    }
  }
  *out = lm_batch_new(sch, pa->length, cols);
  sch = NULL; /* taken by lm_batch_new, as are the columns */
  n = 0;
  if (!*out)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");

done:
  if (cols)
    for (int i = 0; i < n; i++)
      lm_array_release(cols[i]);
  free(cols);
  lm_schema_release(sch);
  holder_unref(h);
  return rc;
}
