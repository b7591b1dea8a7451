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
#include "columnar/lm_decimal.h"

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

/* Writes the Arrow format string of t (zone label tz for TIMESTAMP) into
 * buf[0, n); false when t has none. A DICTIONARY's format is its index
 * type's (the value type goes to ArrowSchema.dictionary). */
static bool format_of(lm_type t, const char *tz, char *buf, size_t n) {
  static const char units[] = "smun";
  const char *f = NULL;
  if (!lm_type_valid(t))
    return false;
  switch (t.id) {
  case LM_TYPE_NULL:
    f = "n";
    break;
  case LM_TYPE_BOOL:
    f = "b";
    break;
  case LM_TYPE_INT8:
    f = "c";
    break;
  case LM_TYPE_INT16:
    f = "s";
    break;
  case LM_TYPE_INT32:
    f = "i";
    break;
  case LM_TYPE_INT64:
    f = "l";
    break;
  case LM_TYPE_UINT8:
    f = "C";
    break;
  case LM_TYPE_UINT16:
    f = "S";
    break;
  case LM_TYPE_UINT32:
    f = "I";
    break;
  case LM_TYPE_UINT64:
    f = "L";
    break;
  case LM_TYPE_FLOAT16:
    f = "e";
    break;
  case LM_TYPE_FLOAT32:
    f = "f";
    break;
  case LM_TYPE_FLOAT64:
    f = "g";
    break;
  case LM_TYPE_UTF8:
    f = "u";
    break;
  case LM_TYPE_LARGE_UTF8:
    f = "U";
    break;
  case LM_TYPE_BINARY:
    f = "z";
    break;
  case LM_TYPE_LARGE_BINARY:
    f = "Z";
    break;
  case LM_TYPE_DATE32:
    f = "tdD";
    break;
  case LM_TYPE_INTERVAL_MDN:
    f = "tin";
    break;
  case LM_TYPE_INTERVAL:
    f = "tDu"; /* duration[µs] */
    break;
  case LM_TYPE_LIST:
    f = "+l";
    break;
  case LM_TYPE_LARGE_LIST:
    f = "+L";
    break;
  case LM_TYPE_STRUCT:
    f = "+s";
    break;
  case LM_TYPE_TIMESTAMP: { /* per exported batch: no snprintf */
    size_t tl = tz ? strlen(tz) : 0;
    if (tl + 5 > n)
      return false;
    memcpy(buf, "ts?:", 4);
    buf[2] = units[t.unit & 3];
    memcpy(buf + 4, tz ? tz : "", tl);
    buf[4 + tl] = 0;
    return true;
  }
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
    return snprintf(buf, n, "tt%c", units[t.unit & 3]) < (int)n;
  case LM_TYPE_DURATION:
    return snprintf(buf, n, "tD%c", units[t.unit & 3]) < (int)n;
  case LM_TYPE_DECIMAL128:
    return snprintf(buf, n, "d:%d,%d", t.precision, t.scale) < (int)n;
  case LM_TYPE_FIXED_SIZE_BINARY:
    return snprintf(buf, n, "w:%d", (int)lm_type_width(t)) < (int)n;
  case LM_TYPE_DICTIONARY:
    return format_of(lm_type_dict_index(t), NULL, buf, n);
  default:
    return false;
  }
  size_t fl = strlen(f);
  if (fl >= n)
    return false;
  memcpy(buf, f, fl + 1);
  return true;
}

/* Whether every type in t (recursively) has a format. */
static bool exportable(lm_type t) {
  char tmp[8];
  if (t.id == LM_TYPE_TIMESTAMP)
    return lm_type_valid(t);
  if (!format_of(t, NULL, tmp, sizeof tmp))
    return false;
  if (t.node && t.id != LM_TYPE_FIXED_SIZE_BINARY)
    for (int i = 0; i < t.node->n_children; i++)
      if (!exportable(t.node->children[i].type))
        return false;
  return true;
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
  /* duration "tDu" -> INTERVAL (µs); other units are DURATION (generic
   * import) */
  if (s[0] == 't' && s[1] == 'D' && s[2] == 'u' && !s[3]) {
    if (!unit_factor(s[2], f))
      return false;
    f->type = lm_type_make(LM_TYPE_INTERVAL);
    f->width = 8;
    return true;
  }
  return false;
}

/* ------------------------------------------------------- schema export */

/* private_data of every exported schema node: its copied name and
 * format, its children and its dictionary. */
typedef struct schema_priv {
  char *name; /* both in the same allocation as the struct (strs) */
  char *format;
  int64_t n;
  struct ArrowSchema **ptrs; /* children pointers handed out */
  struct ArrowSchema *kids;  /* n entries */
  struct ArrowSchema *dict;  /* DICTIONARY: the value type, else NULL */
  char strs[];               /* name NUL format NUL: one allocation per field */
} schema_priv;

/* A zeroed schema_priv holding copies of name and format and, in the same
 * allocation, room for n (at least 1) children (p->kids, p->ptrs; p->n
 * stays 0 until they are filled); NULL on OOM. */
static schema_priv *schema_priv_new(const char *name, const char *format,
                                    int n) {
  size_t nl = strlen(name), fl = strlen(format);
  size_t room = n > 0 ? (size_t)n : 1; /* kids/ptrs never NULL */
  size_t kids = room * sizeof(struct ArrowSchema);
  size_t ptrs = room * sizeof(struct ArrowSchema *);
  /* kids and ptrs first (pointer-aligned), then the strings */
  size_t head = (sizeof(schema_priv) + 7) & ~(size_t)7;
  schema_priv *p = lm_aligned_calloc(head + kids + ptrs + nl + fl + 2);
  if (!p)
    return NULL;
  char *base = (char *)p + head;
  p->kids = (struct ArrowSchema *)(void *)base;
  p->ptrs = (struct ArrowSchema **)(void *)(base + kids);
  p->name = base + kids + ptrs;
  memcpy(p->name, name, nl + 1);
  p->format = p->name + nl + 1;
  memcpy(p->format, format, fl + 1);
  return p;
}

/* Release callback of every exported schema: releases the children (and
 * dictionary) not moved out by the consumer, then our bookkeeping. */
static void release_schema(struct ArrowSchema *s) {
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < p->n; i++) {
    struct ArrowSchema *c = p->ptrs[i];
    if (c->release)
      c->release(c);
  }
  if (p->dict && p->dict->release)
    p->dict->release(p->dict);
  free(p->dict);
  lm_aligned_free(p); /* with the children, name and format */
  s->private_data = NULL;
  s->release = NULL;
}

/* Fills *out (released by the caller) with the schema of a field of type
 * t. On error out->release is NULL. */
static int export_type(const char *name, lm_type t, bool nullable,
                       const char *tz, struct ArrowSchema *out, lm_error *err) {
  memset(out, 0, sizeof *out);
  char fmt[96];
  if (!format_of(t, tz, fmt, sizeof fmt))
    return lm_err(err, LM_ERR_INVALID,
                  "column '%.200s': type %s has no Arrow format", name,
                  lm_type_name(t));
  int n = t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST ||
                  t.id == LM_TYPE_STRUCT
              ? t.node->n_children
              : 0;
  schema_priv *p = schema_priv_new(name ? name : "", fmt, n);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a schema");
  if (t.id == LM_TYPE_DICTIONARY)
    p->dict = lm_calloc(1, sizeof *p->dict);
  out->format = p->format;
  out->name = p->name;
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  if (t.id == LM_TYPE_DICTIONARY && t.node->ordered)
    out->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  out->release = release_schema;
  out->private_data = p;
  if (!p->name || !p->format || (n && (!p->kids || !p->ptrs)) ||
      (t.id == LM_TYPE_DICTIONARY && !p->dict)) {
    release_schema(out);
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a schema");
  }
  for (int i = 0; i < n; i++) {
    const lm_type_field *f = &t.node->children[i];
    int rc = export_type(f->name, f->type, f->nullable, f->timezone,
                         &p->kids[i], err);
    if (rc) {
      release_schema(out);
      return rc;
    }
    p->ptrs[i] = &p->kids[i];
    p->n = i + 1;
  }
  out->n_children = n;
  out->children = n ? p->ptrs : NULL;
  if (t.id == LM_TYPE_DICTIONARY) {
    int rc = export_type("", lm_type_dict_value(t), true, NULL, p->dict, err);
    if (rc) {
      free(p->dict);
      p->dict = NULL;
      release_schema(out);
      return rc;
    }
    out->dictionary = p->dict;
  }
  return LM_OK;
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
    if (!exportable(t)) {
      const char *name = s->fields[i].name ? s->fields[i].name : "";
      return lm_err(err, LM_ERR_INVALID,
                    "column '%.200s': type %s has no Arrow format", name,
                    lm_type_name(t));
    }
  }
  schema_priv *p = schema_priv_new("", "+s", n);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a schema");
  out->format = p->format;
  out->name = p->name;
  out->release = release_schema;
  out->private_data = p;
  for (int i = 0; i < n; i++) {
    const lm_field *f = &s->fields[i];
    int rc = export_type(f->name ? f->name : "", cols ? cols[i]->type : f->type,
                         f->nullable, f->timezone, &p->kids[i], err);
    if (rc) {
      release_schema(out);
      return rc;
    }
    p->ptrs[i] = &p->kids[i];
    p->n = i + 1;
  }
  out->n_children = n;
  out->children = p->ptrs;
  return LM_OK;
}

/* Exports schema s (borrowed) as a struct "+s" ArrowSchema, one child per
 * field with its name, format and ARROW_FLAG_NULLABLE (nested types with
 * their children, DICTIONARY with its value type in .dictionary). *out is
 * filled for the caller, who must call out->release. On error
 * out->release is NULL. */
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

/* private_data of every exported array node: one reference to its
 * lm_array (which keeps the buffers alive), its children and dictionary. */
typedef struct array_priv {
  lm_array *arr;   /* one reference (NULL for the batch's parent) */
  lm_batch *batch; /* the top-level struct: one reference */
  const void *bufs[3];
  int64_t n;
  struct ArrowArray **ptrs;
  struct ArrowArray *kids;
  struct ArrowArray *dict;
} array_priv;

/* A zeroed array_priv with room for n (at least 1) children in the same
 * allocation (p->kids, p->ptrs; p->n stays 0 until they are filled); NULL
 * on OOM. */
static array_priv *array_priv_new(int n) {
  size_t room = n > 0 ? (size_t)n : 1; /* kids/ptrs never NULL */
  size_t kids = room * sizeof(struct ArrowArray);
  array_priv *p = lm_aligned_calloc(sizeof(array_priv) + kids +
                                    room * sizeof(struct ArrowArray *));
  if (p) {
    p->kids = (struct ArrowArray *)(void *)(p + 1);
    p->ptrs = (struct ArrowArray **)(void *)((char *)(p + 1) + kids);
  }
  return p;
}

/* Release callback of every exported array: releases the children and
 * dictionary still in place, then the array/batch reference. */
static void release_array(struct ArrowArray *a) {
  array_priv *p = a->private_data;
  for (int64_t i = 0; i < p->n; i++) {
    struct ArrowArray *c = p->ptrs[i];
    if (c->release)
      c->release(c);
  }
  if (p->dict && p->dict->release)
    p->dict->release(p->dict);
  free(p->dict);
  lm_array_release(p->arr);
  lm_batch_release(p->batch);
  lm_aligned_free(p); /* with the children */
  a->private_data = NULL;
  a->release = NULL;
}

/* Pointer to export for buffer b; zero_buf stands in for a missing buffer
 * when nothing is read from it. */
static const void *buf_ptr(const lm_buffer *b) {
  return b && b->data ? (const void *)b->data : (const void *)zero_buf;
}

/* Fills *out with array a (retained) and, recursively, its children and
 * dictionary. */
static int export_array(lm_array *a, const char *name, struct ArrowArray *out,
                        lm_error *err) {
  memset(out, 0, sizeof *out);
  lm_type_id id = a->type.id;
  bool empty = a->length == 0;
  bool var = lm_type_is_varbinary(a->type);
  bool list = id == LM_TYPE_LIST || id == LM_TYPE_LARGE_LIST;
  bool needs_values =
      id != LM_TYPE_NULL && id != LM_TYPE_STRUCT &&
      !(id == LM_TYPE_FIXED_SIZE_BINARY && lm_type_width(a->type) == 0);
  if (!empty && ((needs_values && (!a->values || !a->values->data)) ||
                 (var && (!a->data || !a->data->data))))
    return lm_err(err, LM_ERR_INVALID, "column '%.200s': missing buffer", name);
  if (id != LM_TYPE_NULL && a->null_count > 0 &&
      (!a->validity || !a->validity->data))
    return lm_err(err, LM_ERR_INVALID,
                  "column '%.200s': NULLs without a validity bitmap", name);
  if ((list && (a->n_children != 1 || !a->children[0])) ||
      (id == LM_TYPE_STRUCT && a->n_children != a->type.node->n_children) ||
      (id == LM_TYPE_DICTIONARY && !a->dictionary))
    return lm_err(err, LM_ERR_INVALID, "column '%.200s': missing child arrays",
                  name);
  array_priv *p = array_priv_new(a->n_children > 0 ? a->n_children : 0);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a batch");
  p->arr = lm_array_retain(a);
  out->length = a->length;
  out->offset = a->offset;
  out->null_count = a->null_count;
  out->buffers = p->bufs;
  out->release = release_array;
  out->private_data = p;
  if (id == LM_TYPE_NULL) {
    out->null_count = a->length;
    out->offset = 0;
    out->n_buffers = 0;
    return LM_OK;
  }
  p->bufs[0] = a->null_count > 0 ? a->validity->data : NULL;
  out->n_buffers = 1;
  if (id != LM_TYPE_STRUCT) {
    p->bufs[1] = buf_ptr(a->values);
    out->n_buffers = 2;
  }
  if (var) {
    p->bufs[2] = buf_ptr(a->data);
    out->n_buffers = 3;
  }
  if (empty && needs_values && (!a->values || !a->values->data))
    out->offset = 0; /* zero_buf holds one zero offset, no more */
  int n = a->n_children;
  if (n > 0) {
    for (int i = 0; i < n; i++) {
      int rc = export_array(a->children[i], name, &p->kids[i], err);
      if (rc) {
        release_array(out);
        return rc;
      }
      p->ptrs[i] = &p->kids[i];
      p->n = i + 1;
    }
    out->n_children = n;
    out->children = p->ptrs;
  }
  if (id == LM_TYPE_DICTIONARY) {
    p->dict = lm_calloc(1, sizeof *p->dict);
    int rc = p->dict ? export_array(a->dictionary, name, p->dict, err)
                     : lm_err(err, LM_ERR_NOMEM, "out of memory");
    if (rc) {
      free(p->dict);
      p->dict = NULL;
      release_array(out);
      return rc;
    }
    out->dictionary = p->dict;
  }
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
    lm_i128 sv; /* NaN / ±Infinity: Arrow's Decimal128 has none */
    if (lm_dec_find_special(b->columns[i], &sv)) {
      lm_err(err, LM_ERR_EXEC,
             "cannot export numeric %s in column '%.200s' through the Arrow "
             "C data interface: Decimal128 has no NaN or Infinity (cast the "
             "column to double precision or text)",
             sv == LM_DEC_NAN ? "NaN"
             : sv > 0         ? "Infinity"
                              : "-Infinity",
             name);
      return lm_err_state(err, "22003");
    }
  }
  int rc = export_schema(b->schema, b->columns, out_schema, err);
  if (rc)
    return rc;
  array_priv *p = array_priv_new(n);
  if (!p) {
    out_schema->release(out_schema);
    return lm_err(err, LM_ERR_NOMEM, "out of memory exporting a batch");
  }
  p->batch = lm_batch_retain(b);
  p->bufs[0] = NULL;
  out_array->length = b->num_rows;
  out_array->n_buffers = 1;
  out_array->buffers = p->bufs;
  out_array->release = release_array;
  out_array->private_data = p;
  for (int i = 0; i < n; i++) {
    const char *name = b->schema->fields[i].name;
    rc = export_array(b->columns[i], name ? name : "", &p->kids[i], err);
    if (rc) {
      release_array(out_array);
      out_schema->release(out_schema);
      return rc;
    }
    p->ptrs[i] = &p->kids[i];
    p->n = i + 1;
  }
  out_array->n_children = n;
  out_array->children = p->ptrs;
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
  lm_array *a = lm_aligned_calloc(sizeof *a);
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

/* ------------------------------------------------ generic (any type) */

/* Nesting limit of imported types and arrays. */
#define CDATA_MAX_DEPTH 64

/* Parses "N" (decimal, 0..INT32_MAX) from *p; advances *p. */
static bool parse_num(const char **p, int64_t *out) {
  const char *q = *p;
  bool neg = *q == '-';
  if (neg)
    q++;
  if (*q < '0' || *q > '9')
    return false;
  int64_t v = 0;
  while (*q >= '0' && *q <= '9') {
    v = v * 10 + (*q++ - '0');
    if (v > INT32_MAX)
      return false;
  }
  *out = neg ? -v : v;
  *p = q;
  return true;
}

static int unit_of(char c) {
  switch (c) {
  case 's':
    return LM_UNIT_SECOND;
  case 'm':
    return LM_UNIT_MILLI;
  case 'u':
    return LM_UNIT_MICRO;
  case 'n':
    return LM_UNIT_NANO;
  default:
    return -1;
  }
}

/* The type of a schema node (any format this import supports, children
 * and dictionary included); *tz is the TIMESTAMP zone label (borrowed from
 * the format string; NULL when none). */
static int import_type(const struct ArrowSchema *s, int depth, const char *path,
                       lm_type *out, const char **tz, lm_error *err) {
  *tz = NULL;
  if (!s || !s->release)
    return col_err(err, path, "child schema is missing or released");
  if (!s->format)
    return col_err(err, path, "no format string");
  if (depth > CDATA_MAX_DEPTH)
    return col_err(err, path, "types nested deeper than %d levels",
                   CDATA_MAX_DEPTH);
  if (s->n_children < 0 || s->n_children > CDATA_MAX_COLUMNS ||
      (s->n_children > 0 && !s->children))
    return col_err(err, path, "invalid children");
  const char *f = s->format;
  lm_type t = lm_type_make(LM_TYPE__COUNT);
  int64_t want_children = 0;
  if (f[0] && !f[1]) {
    static const char codes[] = "nbcsilCSILefguUzZ";
    static const lm_type_id ids[] = {
        LM_TYPE_NULL,    LM_TYPE_BOOL,        LM_TYPE_INT8,
        LM_TYPE_INT16,   LM_TYPE_INT32,       LM_TYPE_INT64,
        LM_TYPE_UINT8,   LM_TYPE_UINT16,      LM_TYPE_UINT32,
        LM_TYPE_UINT64,  LM_TYPE_FLOAT16,     LM_TYPE_FLOAT32,
        LM_TYPE_FLOAT64, LM_TYPE_UTF8,        LM_TYPE_LARGE_UTF8,
        LM_TYPE_BINARY,  LM_TYPE_LARGE_BINARY};
    const char *k = strchr(codes, f[0]);
    if (k)
      t = lm_type_make(ids[k - codes]);
  } else if (f[0] == 'w' && f[1] == ':') {
    const char *q = f + 2;
    int64_t w;
    if (parse_num(&q, &w) && !*q && w >= 0) {
      int rc = lm_type_fixed_size_binary((int32_t)w, &t);
      if (rc)
        return col_err(err, path, "cannot make type '%.40s'", f);
    }
  } else if (f[0] == 'd' && f[1] == ':') {
    const char *q = f + 2;
    int64_t prec, scale, bits = 128;
    if (parse_num(&q, &prec) && *q++ == ',' && parse_num(&q, &scale) &&
        (!*q || (*q++ == ',' && parse_num(&q, &bits) && !*q)) && bits == 128 &&
        prec >= 1 && prec <= 38 && scale >= -128 && scale <= 127)
      t = lm_type_decimal128((int)prec, (int)scale);
  } else if (!strcmp(f, "tdD")) {
    t = lm_type_make(LM_TYPE_DATE32);
  } else if (!strcmp(f, "tin")) {
    t = lm_type_make(LM_TYPE_INTERVAL_MDN);
  } else if (f[0] == 't' && f[1] == 't' && f[2] && !f[3]) {
    int u = unit_of(f[2]);
    if (u == LM_UNIT_SECOND || u == LM_UNIT_MILLI)
      t = lm_type_unit(LM_TYPE_TIME32, (lm_time_unit)u);
    else if (u >= 0)
      t = lm_type_unit(LM_TYPE_TIME64, (lm_time_unit)u);
  } else if (f[0] == 't' && f[1] == 'D' && f[2] && !f[3]) {
    int u = unit_of(f[2]);
    if (u == LM_UNIT_MICRO)
      t = lm_type_make(LM_TYPE_INTERVAL);
    else if (u >= 0)
      t = lm_type_unit(LM_TYPE_DURATION, (lm_time_unit)u);
  } else if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
    int u = unit_of(f[2]);
    if (u >= 0) {
      t = lm_type_unit(LM_TYPE_TIMESTAMP, (lm_time_unit)u);
      *tz = f[4] ? f + 4 : NULL;
    }
  } else if (!strcmp(f, "+l") || !strcmp(f, "+L")) {
    t.id = f[1] == 'l' ? LM_TYPE_LIST : LM_TYPE_LARGE_LIST;
    want_children = 1;
  } else if (!strcmp(f, "+s")) {
    t.id = LM_TYPE_STRUCT;
    want_children = s->n_children;
  }
  if (t.id == LM_TYPE__COUNT)
    return col_err(err, path, "unsupported format '%.40s'", f);
  if (s->n_children != want_children)
    return col_err(err, path, "format '%.40s' with %lld children", f,
                   (long long)s->n_children);
  int rc = 0;
  if (want_children > 0 || t.id == LM_TYPE_STRUCT) {
    int n = (int)want_children;
    lm_type_field *kids = lm_calloc((size_t)n + 1, sizeof *kids);
    if (!kids)
      return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
    for (int i = 0; i < n && !rc; i++) {
      const struct ArrowSchema *c = s->children[i];
      char sub[256];
      snprintf(sub, sizeof sub, "%s.%s", path, c && c->name ? c->name : "?");
      rc =
          import_type(c, depth + 1, sub, &kids[i].type, &kids[i].timezone, err);
      if (!rc) {
        kids[i].name = c->name ? c->name : "";
        kids[i].nullable = (c->flags & ARROW_FLAG_NULLABLE) != 0;
      }
    }
    if (!rc) {
      rc = t.id == LM_TYPE_STRUCT ? lm_type_struct(n, kids, &t)
                                  : lm_type_list(t.id, kids, &t);
      if (rc)
        rc = col_err(err, path, "cannot make type '%.40s' (%s)", f,
                     rc == LM_ERR_LIMIT ? "too many distinct types"
                                        : "invalid or out of memory");
    }
    free(kids);
    if (rc)
      return rc;
  }
  if (s->dictionary) {
    if (!lm_type_is_integer(t) && !lm_type_is_unsigned(t))
      return col_err(err, path,
                     "dictionary index format '%.40s' is not an "
                     "integer type",
                     f);
    lm_type vt;
    const char *vtz;
    char sub[256];
    snprintf(sub, sizeof sub, "%s.dictionary", path);
    if ((rc = import_type(s->dictionary, depth + 1, sub, &vt, &vtz, err)))
      return rc;
    if (lm_type_dictionary(t.id, vt,
                           (s->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0, &t))
      return col_err(err, path, "cannot make the dictionary type");
  }
  *out = t;
  return 0;
}

/* A buffer over size bytes of foreign memory at p: zero-copy when p is
 * aligned to `align`, else a copy. */
static lm_buffer *wrap_buf(import_holder *h, const void *p, size_t size,
                           size_t align) {
  if (!p || size == 0)
    return lm_buffer_new(0);
  if (align > 1 && (uintptr_t)p % align) {
    lm_buffer *b = lm_buffer_new(size);
    if (b)
      memcpy(b->data, p, size);
    return b;
  }
  return wrap_foreign(h, p, size);
}

/* Imports array a (schema s, already parsed into type t) and its children
 * and dictionary, zero-copy where aligned. Checks the structure (buffer,
 * child and dictionary counts, NULL buffers, null_count against the
 * bitmap) and sizes each buffer from the layout; the caller runs
 * lm_array_validate on the result for offsets and indices. */
static int import_generic(import_holder *h, const struct ArrowSchema *s,
                          const struct ArrowArray *a, lm_type t, int depth,
                          const char *path, lm_array **out, lm_error *err) {
  *out = NULL;
  if (!a || !a->release)
    return col_err(err, path, "child array is missing or released");
  if (a->length < 0 || a->offset < 0 || a->offset > CDATA_MAX_INDEX - a->length)
    return col_err(err, path, "negative or too large length or offset");
  if (a->null_count < -1 || a->null_count > a->length)
    return col_err(err, path, "invalid null_count %lld",
                   (long long)a->null_count);
  lm_type_id id = t.id;
  bool var = lm_type_is_varbinary(t);
  bool list = id == LM_TYPE_LIST || id == LM_TYPE_LARGE_LIST;
  int64_t nb = id == LM_TYPE_NULL ? 0 : id == LM_TYPE_STRUCT ? 1 : var ? 3 : 2;
  int64_t nc = list ? 1 : id == LM_TYPE_STRUCT ? t.node->n_children : 0;
  if (a->n_buffers != nb)
    return col_err(err, path, "expected %lld buffers, got %lld", (long long)nb,
                   (long long)a->n_buffers);
  if (nb > 0 && !a->buffers)
    return col_err(err, path, "buffers array is NULL");
  if (a->n_children != nc || (nc > 0 && !a->children))
    return col_err(err, path, "expected %lld children, got %lld", (long long)nc,
                   (long long)a->n_children);
  if ((id == LM_TYPE_DICTIONARY) != (a->dictionary != NULL))
    return col_err(err, path, "%s dictionary array",
                   a->dictionary ? "unexpected" : "missing its");
  if (id == LM_TYPE_NULL || a->length == 0) {
    *out = lm_array_new_null(t, a->length);
    if (*out && id != LM_TYPE_NULL) {
      (*out)->null_count = 0;
      lm_buffer_release((*out)->validity);
      (*out)->validity = NULL;
    }
    return *out ? 0
                : lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  }
  int64_t end = a->offset + a->length;
  lm_buffer *validity = NULL, *values = NULL, *data = NULL;
  lm_array **kids = NULL, *dict = NULL;
  int rc = 0;
  int64_t nulls = 0;
  if (a->null_count != 0) {
    const void *vb = a->buffers[0];
    if (!vb && a->null_count > 0)
      return col_err(err, path,
                     "validity buffer is NULL but null_count is %lld",
                     (long long)a->null_count);
    if (vb) {
      validity = wrap_buf(h, vb, (size_t)((end + 7) / 8), 1);
      if (!validity)
        goto oom;
      nulls =
          a->length - lm_bitmap_count_set(validity->data, a->offset, a->length);
      if (a->null_count >= 0 && nulls != a->null_count) {
        rc = col_err(err, path,
                     "null_count %lld does not match the validity bitmap "
                     "(%lld NULLs)",
                     (long long)a->null_count, (long long)nulls);
        goto fail;
      }
      if (nulls == 0) {
        lm_buffer_release(validity);
        validity = NULL;
      }
    }
  }
  if (id != LM_TYPE_STRUCT) {
    const uint8_t *vp = a->buffers[1];
    size_t size, align;
    if (id == LM_TYPE_BOOL) {
      size = (size_t)((end + 7) / 8);
      align = 1;
    } else if (var || list) {
      int ow = id == LM_TYPE_UTF8 || id == LM_TYPE_BINARY || id == LM_TYPE_LIST
                   ? 4
                   : 8;
      size = (size_t)(end + 1) * (size_t)ow;
      align = (size_t)ow;
    } else {
      int w = id == LM_TYPE_DICTIONARY ? lm_type_width(lm_type_dict_index(t))
                                       : lm_type_width(t);
      size = (size_t)end * (size_t)w;
      align = w >= 8 ? 8 : w > 0 ? (size_t)w : 1;
      if (id == LM_TYPE_FIXED_SIZE_BINARY)
        align = 1;
    }
    if (!vp && size > 0) {
      rc = col_err(err, path, "%s buffer is NULL",
                   var || list ? "offsets" : "values");
      goto fail;
    }
    values = wrap_buf(h, vp, size, align);
    if (!values)
      goto oom;
    if (var) {
      int64_t last;
      if (id == LM_TYPE_UTF8 || id == LM_TYPE_BINARY) {
        int32_t v;
        memcpy(&v, values->data + (size_t)end * 4, 4);
        last = v;
      } else {
        memcpy(&last, values->data + (size_t)end * 8, 8);
      }
      if (last < 0)
        last = 0; /* lm_array_validate reports the bad offset */
      if (last > 0 && !a->buffers[2]) {
        rc = col_err(err, path, "data buffer is NULL");
        goto fail;
      }
      data = wrap_buf(h, a->buffers[2], (size_t)last, 1);
      if (!data)
        goto oom;
    }
  }
  if (nc > 0) {
    kids = lm_calloc((size_t)nc, sizeof *kids);
    if (!kids)
      goto oom;
    for (int64_t i = 0; i < nc && !rc; i++) {
      const lm_type_field *f = &t.node->children[i];
      char sub[256];
      snprintf(sub, sizeof sub, "%s.%s", path, f->name);
      rc = import_generic(h, s->children[i], a->children[i], f->type, depth + 1,
                          sub, &kids[i], err);
    }
    if (rc)
      goto fail;
  }
  if (id == LM_TYPE_DICTIONARY) {
    char sub[256];
    snprintf(sub, sizeof sub, "%s.dictionary", path);
    rc = import_generic(h, s->dictionary, a->dictionary, lm_type_dict_value(t),
                        depth + 1, sub, &dict, err);
    if (rc)
      goto fail;
  }
  *out = lm_array_new(t, a->length, nulls, a->offset, validity, values, data,
                      (int)nc, kids, dict);
  free(kids);
  return *out ? 0
              : lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
oom:
  rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
fail:
  lm_buffer_release(validity);
  lm_buffer_release(values);
  lm_buffer_release(data);
  if (kids)
    for (int64_t i = 0; i < nc; i++)
      lm_array_release(kids[i]);
  free(kids);
  lm_array_release(dict);
  return rc;
}

/* Top-level column of a type the flat path does not handle: imported
 * generically, validated, sliced to the parent's rows, the parent's
 * validity folded in. */
static int import_column_generic(import_holder *h, const struct ArrowSchema *cs,
                                 const struct ArrowArray *ca, int64_t poff,
                                 int64_t len, const uint8_t *pvalid,
                                 const char *name, lm_field *field,
                                 lm_array **out, lm_error *err) {
  lm_type t;
  const char *tz;
  int rc = import_type(cs, 1, name, &t, &tz, err);
  if (rc)
    return rc;
  if (!ca || !ca->release)
    return col_err(err, name, "child array is missing or released");
  if (ca->length < 0 || ca->offset < 0)
    return col_err(err, name, "negative length or offset");
  if (ca->length < poff + len)
    return col_err(err, name, "length %lld is shorter than the parent's %lld",
                   (long long)ca->length, (long long)(poff + len));
  lm_array *full;
  if ((rc = import_generic(h, cs, ca, t, 1, name, &full, err)))
    return rc;
  lm_error e = {0};
  if (lm_array_validate(full, CDATA_MAX_DEPTH, &e)) {
    lm_array_release(full);
    return col_err(err, name, "%s", e.msg);
  }
  lm_array *a = lm_array_slice(full, poff, len);
  lm_array_release(full);
  if (!a)
    return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
  if (pvalid && t.id != LM_TYPE_NULL) {
    int64_t nulls = 0;
    lm_buffer *vb = lm_buffer_new((size_t)((a->offset + len + 7) / 8));
    if (!vb) {
      lm_array_release(a);
      return lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
    }
    for (int64_t j = 0; j < len; j++) {
      if (!lm_array_is_null(a, j) && lm_bit_get(pvalid, poff + j))
        lm_bit_set(vb->data, a->offset + j);
      else
        nulls++;
    }
    lm_buffer_release(a->validity);
    a->validity = vb;
    a->null_count = nulls;
  }
  field->type = t;
  field->nullable = (cs->flags & ARROW_FLAG_NULLABLE) != 0;
  if (a->type.id != LM_TYPE_NULL && a->null_count > 0 && !field->nullable) {
    long long nn = (long long)a->null_count;
    lm_array_release(a);
    return col_err(err, name, "non-nullable column has %lld NULLs", nn);
  }
  if (tz)
    field->timezone = (char *)(uintptr_t)tz; /* borrowed; copied by caller */
  *out = a;
  return 0;
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
  if (!parse_format(cs->format, &s.fmt) || cs->dictionary ||
      cs->n_children != 0)
    return import_column_generic(h, cs, ca, poff, len, pvalid, name, field, out,
                                 err);
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
  if (id == LM_TYPE_TIMESTAMP && cs->format[4])
    field->timezone = (char *)(uintptr_t)(cs->format + 4); /* copied later */

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

/* Whether imported column i (field f, array a, the C schema's name) can be
 * labelled with field i of `like`: same name (ASCII case-insensitive), same
 * type, and no NULLs when `like` says NOT NULL. */
static bool like_field(const lm_schema *like, int i, const char *name,
                       const lm_field *f, const lm_array *a) {
  const lm_field *lf = &like->fields[i];
  return lf->name && name && lm_type_eq(f->type, lf->type) &&
         (lf->nullable || a->null_count == 0) &&
         lm_strcasecmp(lf->name, name) == 0;
}

/* Few-column imports (the common push) keep their columns and fields on
 * the stack. */
#define IMPORT_SMALL 16

int lm_cdata_import_batch(struct ArrowArray *array,
                          const struct ArrowSchema *schema, lm_batch **out,
                          lm_error *err) {
  return lm_cdata_import_batch_like(array, schema, NULL, out, err);
}

/* Imports a "+s" struct array (moved) described by schema (borrowed) into
 * a new batch (*out, refcount 1) whose columns share the foreign buffers
 * where possible; see the header for the contract. */
int lm_cdata_import_batch_like(struct ArrowArray *array,
                               const struct ArrowSchema *schema,
                               const lm_schema *like, lm_batch **out,
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

  /* a batch shaped like `like` takes its schema (no new one per call) */
  bool small = n <= IMPORT_SMALL;
  bool same = like && small && like->n_fields == n;
  lm_array *col_buf[IMPORT_SMALL];
  lm_field fld_buf[IMPORT_SMALL];
  cols = small ? col_buf : lm_calloc((size_t)n, sizeof *cols);
  if (!small)
    sch = lm_schema_new(n);
  if (!cols || (!small && !sch)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    lm_field f = {0};
    cols[i] = NULL;
    rc = import_column(h, schema->children[i], pa->children[i], pa->offset,
                       pa->length, pvalid, i, &f, &cols[i], err);
    if (rc) {
      n = i + 1; /* the columns to release */
      goto done;
    }
    const char *name = schema->children[i]->name;
    if (small) {
      fld_buf[i] = f;
      fld_buf[i].name = (char *)(uintptr_t)(name ? name : "");
      same = same && like_field(like, i, name, &f, cols[i]);
    } else if (lm_schema_set_field(sch, i, name ? name : "", f.type,
                                   f.nullable) ||
               (f.timezone && lm_schema_set_timezone(sch, i, f.timezone))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory importing an array");
      goto done;
    }
  }
  if (same) {
    sch = lm_schema_retain((lm_schema *)(uintptr_t)like);
  } else if (small) {
    sch = lm_schema_new(n);
    for (int i = 0; sch && i < n; i++)
      if (lm_schema_set_field(sch, i, fld_buf[i].name, fld_buf[i].type,
                              fld_buf[i].nullable) ||
          (fld_buf[i].timezone &&
           lm_schema_set_timezone(sch, i, fld_buf[i].timezone))) {
        lm_schema_release(sch);
        sch = NULL;
      }
    if (!sch) {
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
  if (cols != col_buf)
    free(cols);
  lm_schema_release(sch);
  holder_unref(h);
  return rc;
}
