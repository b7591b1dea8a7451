/*
 * format/ipc_reader.c — Arrow IPC stream and file readers (see lm_ipc.h).
 *
 * Every message goes through the same verified path: the Message
 * flatbuffer (format/flatbuf.h verifies each access), then for a
 * RecordBatch every FieldNode and Buffer is checked against the body and
 * against the column's layout before an array is built over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/flatbuf.h"
#include "format/format_internal.h"
#include "format/ipc_internal.h"

#include <lz4frame.h>
#include <zstd.h>

void lm_ipc_limits_default(lm_ipc_limits *l) {
  l->max_message_bytes = INT64_C(256) << 20;
  l->max_depth = 64;
  l->max_columns = 65536;
  l->max_buffer_bytes = INT64_C(256) << 20;
  l->max_records = INT32_MAX;
  l->max_dictionary_entries = INT64_C(64) << 20;
}

static void limits_fill(lm_ipc_limits *dst, const lm_ipc_limits *src) {
  lm_ipc_limits d;
  lm_ipc_limits_default(&d);
  *dst = d;
  if (!src)
    return;
  if (src->max_message_bytes > 0)
    dst->max_message_bytes = src->max_message_bytes;
  if (src->max_depth > 0)
    dst->max_depth = src->max_depth;
  if (src->max_columns > 0)
    dst->max_columns = src->max_columns;
  if (src->max_buffer_bytes > 0)
    dst->max_buffer_bytes = src->max_buffer_bytes;
  if (src->max_records > 0)
    dst->max_records = src->max_records;
  if (src->max_dictionary_entries > 0)
    dst->max_dictionary_entries = src->max_dictionary_entries;
}

/* How a field is stored on the wire and delivered. The tree mirrors the
 * schema's Field tree; a dictionary-encoded field (dict >= 0) carries only
 * indices in record batches, its value layout (type = the value type,
 * children) being what DictionaryBatch messages hold. */
typedef struct ipc_field {
  char *name;    /* for messages: "col", "col.item", "col.x" */
  lm_type type;  /* delivered type (DICTIONARY when encoded) */
  lm_type plain; /* with every dictionary decoded */
  lm_type value; /* encoded: the value type; else == type */
  int dict;      /* index into ipc_schema.dicts; -1 = not encoded */
  int n_children;
  struct ipc_field *children; /* of the (value) type */
} ipc_field;

/* One dictionary id (Schema.fbs DictionaryEncoding.id): the value layout
 * (vf: the encoded field seen as unencoded; its children are borrowed from
 * the field) and its current values (NULL until the first
 * DictionaryBatch). */
typedef struct ipc_dict {
  int64_t id;
  ipc_field vf;
  lm_array *values;
  bool seen_base; /* a non-delta batch was applied (file format check) */
} ipc_dict;

/* A decoded schema with what the batch decoder needs per column. */
typedef struct ipc_schema {
  lm_schema *schema; /* delivered types (DICTIONARY kept) */
  lm_schema *plain;  /* dictionaries decoded */
  ipc_field *fields; /* one per schema field */
  int n_fields;
  ipc_dict *dicts;
  int n_dicts, cap_dicts;
  /* the id of every dictionary-encoded field, pre-order (a field before
   * its children, columns in order): lm_ipc_*_dictionary_ids */
  int64_t *dict_ids;
  int n_dict_ids;
  lm_ipc_kv *kv;
  int n_kv;
} ipc_schema;

static void ipc_field_free(ipc_field *f) {
  for (int i = 0; i < f->n_children; i++)
    ipc_field_free(&f->children[i]);
  free(f->children);
  free(f->name);
}

static void ipc_schema_free(ipc_schema *s) {
  if (s->schema)
    lm_schema_release(s->schema);
  if (s->plain)
    lm_schema_release(s->plain);
  for (int i = 0; i < s->n_fields; i++)
    ipc_field_free(&s->fields[i]);
  free(s->fields);
  for (int i = 0; i < s->n_dicts; i++) {
    free(s->dicts[i].vf.name);
    if (s->dicts[i].values)
      lm_array_release(s->dicts[i].values);
  }
  free(s->dicts);
  free(s->dict_ids);
  for (int i = 0; i < s->n_kv; i++) {
    free(s->kv[i].key);
    free(s->kv[i].value);
  }
  free(s->kv);
  memset(s, 0, sizeof *s);
}

typedef struct ipc_ctx {
  const lm_ipc_limits *lim;
  const char *source;
  lm_error *err;
  bool keep_dicts; /* deliver DICTIONARY arrays (else decode them) */
} ipc_ctx;

static int ipc_err(const ipc_ctx *c, int code, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int ipc_err(const ipc_ctx *c, int code, size_t at, const char *fmt,
                   ...) {
  char text[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return lm_err(c->err, code, "%s: byte %zu: %s", c->source, at, text);
}

static const char *const TYPE_NAMES[] = {
    "NONE",          "Null",      "Int",           "FloatingPoint",
    "Binary",        "Utf8",      "Bool",          "Decimal",
    "Date",          "Time",      "Timestamp",     "Interval",
    "List",          "Struct",    "Union",         "FixedSizeBinary",
    "FixedSizeList", "Map",       "Duration",      "LargeBinary",
    "LargeUtf8",     "LargeList", "RunEndEncoded", "BinaryView",
    "Utf8View",      "ListView",  "LargeListView"};

static const char *type_name(uint8_t t) {
  return t < LM_ARRAY_LEN(TYPE_NAMES) ? TYPE_NAMES[t] : "unknown";
}

/* --------------------------------------------------------------- schema */

static void kvs_free(lm_ipc_kv *kv, int n) {
  for (int i = 0; i < n; i++) {
    free(kv[i].key);
    free(kv[i].value);
  }
  free(kv);
}

/* Reads the custom_metadata vector (KeyValue tables) in slot of t into a
 * new array *out of *n_out pairs (NULL/0 when absent or empty); on error
 * what was read is in *out and *n_out for the caller to free. */
static int read_kvs(const ipc_ctx *c, const lm_fb_table *t, int slot,
                    lm_ipc_kv **out, int *n_out) {
  lm_fb_vec v;
  int rc = lm_fb_get_vector(t, slot, 4, &v);
  if (rc)
    return rc;
  *out = NULL;
  *n_out = 0;
  if (v.n == 0)
    return 0;
  if (v.n > (uint32_t)c->lim->max_columns)
    return ipc_err(c, LM_ERR_LIMIT, t->r->base + v.pos,
                   "%u custom_metadata entries exceed the limit of %d", v.n,
                   c->lim->max_columns);
  lm_ipc_kv *kv = calloc(v.n, sizeof *kv);
  if (!kv)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  *out = kv;
  for (uint32_t i = 0; i < v.n; i++) {
    lm_fb_table e;
    const char *k, *val;
    uint32_t kn, vn;
    if ((rc = lm_fb_vec_table(&v, i, &e)) != 0 ||
        (rc = lm_fb_get_string(&e, KV_KEY, &k, &kn)) != 0 ||
        (rc = lm_fb_get_string(&e, KV_VALUE, &val, &vn)) != 0)
      return rc;
    kv[i].key = lm_strndup(k ? k : "", kn);
    kv[i].value = lm_strndup(val ? val : "", vn);
    *n_out = (int)i + 1;
    if (!kv[i].key || !kv[i].value)
      return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}

/* Enforces the nesting limit on a field's children (depth of f is d) and
 * counts the fields of the tree in *count against max_columns. */
static int check_depth(const ipc_ctx *c, const lm_fb_table *f, int d,
                       int64_t *count) {
  if (d > c->lim->max_depth)
    return ipc_err(c, LM_ERR_LIMIT, f->r->base + f->pos,
                   "fields nested deeper than the limit of %d",
                   c->lim->max_depth);
  if (++*count > c->lim->max_columns)
    return ipc_err(c, LM_ERR_LIMIT, f->r->base + f->pos,
                   "schema has more fields (nested ones included) than the "
                   "limit of %d",
                   c->lim->max_columns);
  lm_fb_vec ch;
  int rc = lm_fb_get_vector(f, FIELD_CHILDREN, 4, &ch);
  if (rc)
    return rc;
  for (uint32_t i = 0; i < ch.n; i++) {
    lm_fb_table t;
    if ((rc = lm_fb_vec_table(&ch, i, &t)) != 0 ||
        (rc = check_depth(c, &t, d + 1, count)) != 0)
      return rc;
  }
  return 0;
}

/* The Laminar type of an Arrow Type union value (flat types; lists and
 * structs are made by decode_field from the children). */
static int decode_flat_type(const ipc_ctx *c, uint8_t tt,
                            const lm_fb_table *tt_tab, bool present, size_t at,
                            const char *name, lm_type *out) {
  int rc;
  bool needs_params = tt == ARROW_TYPE_INT || tt == ARROW_TYPE_FLOATING_POINT ||
                      tt == ARROW_TYPE_TIMESTAMP || tt == ARROW_TYPE_DURATION ||
                      tt == ARROW_TYPE_DECIMAL ||
                      tt == ARROW_TYPE_FIXED_SIZE_BINARY ||
                      tt == ARROW_TYPE_INTERVAL;
  if (needs_params && !present)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "column '%s': Arrow type %s without its parameters", name,
                   type_name(tt));
  switch (tt) {
  case ARROW_TYPE_NULL:
    *out = lm_type_make(LM_TYPE_NULL);
    return 0;
  case ARROW_TYPE_BOOL:
    *out = lm_type_make(LM_TYPE_BOOL);
    return 0;
  case ARROW_TYPE_UTF8:
    *out = lm_type_make(LM_TYPE_UTF8);
    return 0;
  case ARROW_TYPE_LARGE_UTF8:
    *out = lm_type_make(LM_TYPE_LARGE_UTF8);
    return 0;
  case ARROW_TYPE_BINARY:
    *out = lm_type_make(LM_TYPE_BINARY);
    return 0;
  case ARROW_TYPE_LARGE_BINARY:
    *out = lm_type_make(LM_TYPE_LARGE_BINARY);
    return 0;
  case ARROW_TYPE_INT: {
    int32_t bw;
    uint8_t sign;
    if ((rc = lm_fb_get_i32(tt_tab, INT_BIT_WIDTH, 0, &bw)) != 0 ||
        (rc = lm_fb_get_u8(tt_tab, INT_IS_SIGNED, 0, &sign)) != 0)
      return rc;
    int k = bw == 8 ? 0 : bw == 16 ? 1 : bw == 32 ? 2 : bw == 64 ? 3 : -1;
    if (k < 0)
      return ipc_err(c, LM_ERR_PARSE, at, "column '%s': Int with bit width %d",
                     name, (int)bw);
    *out =
        lm_type_make((lm_type_id)((sign ? LM_TYPE_INT8 : LM_TYPE_UINT8) + k));
    return 0;
  }
  case ARROW_TYPE_FLOATING_POINT: {
    int16_t prec;
    if ((rc = lm_fb_get_i16(tt_tab, FP_PRECISION, 0, &prec)) != 0)
      return rc;
    if (prec < ARROW_PREC_HALF || prec > ARROW_PREC_DOUBLE)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': FloatingPoint with precision %d", name,
                     (int)prec);
    *out = lm_type_make(prec == ARROW_PREC_HALF     ? LM_TYPE_FLOAT16
                        : prec == ARROW_PREC_SINGLE ? LM_TYPE_FLOAT32
                                                    : LM_TYPE_FLOAT64);
    return 0;
  }
  case ARROW_TYPE_DECIMAL: {
    int32_t prec, scale, bits;
    if ((rc = lm_fb_get_i32(tt_tab, DEC_PRECISION, 0, &prec)) != 0 ||
        (rc = lm_fb_get_i32(tt_tab, DEC_SCALE, 0, &scale)) != 0 ||
        (rc = lm_fb_get_i32(tt_tab, DEC_BIT_WIDTH, 128, &bits)) != 0)
      return rc;
    if (bits != 128)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "unsupported Arrow type Decimal%d in column '%s' (only "
                     "Decimal128 is)",
                     (int)bits, name);
    if (prec < 1 || prec > 38 || scale < -128 || scale > 127)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': Decimal128 with precision %d, scale %d",
                     name, (int)prec, (int)scale);
    *out = lm_type_decimal128(prec, scale);
    return 0;
  }
  case ARROW_TYPE_DATE: {
    int16_t unit = 1;
    if (present && (rc = lm_fb_get_i16(tt_tab, 0, 1, &unit)) != 0)
      return rc;
    if (unit != 0)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "unsupported Arrow type Date64 in column '%s' (Date32 "
                     "is supported)",
                     name);
    *out = lm_type_make(LM_TYPE_DATE32);
    return 0;
  }
  case ARROW_TYPE_TIME: {
    int16_t unit = LM_UNIT_MILLI;
    int32_t bits = 32;
    if (present &&
        ((rc = lm_fb_get_i16(tt_tab, TIME_UNIT, LM_UNIT_MILLI, &unit)) != 0 ||
         (rc = lm_fb_get_i32(tt_tab, TIME_BIT_WIDTH, 32, &bits)) != 0))
      return rc;
    bool t32 = unit == LM_UNIT_SECOND || unit == LM_UNIT_MILLI;
    if (unit < 0 || unit > 3 || bits != (t32 ? 32 : 64))
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': Time with unit %d and bit width %d", name,
                     (int)unit, (int)bits);
    *out =
        lm_type_unit(t32 ? LM_TYPE_TIME32 : LM_TYPE_TIME64, (lm_time_unit)unit);
    return 0;
  }
  case ARROW_TYPE_INTERVAL: {
    int16_t unit;
    if ((rc = lm_fb_get_i16(tt_tab, 0, 0, &unit)) != 0)
      return rc;
    if (unit != 2)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "unsupported Arrow type Interval(%s) in column '%s' "
                     "(MONTH_DAY_NANO is supported)",
                     unit == 0   ? "YEAR_MONTH"
                     : unit == 1 ? "DAY_TIME"
                                 : "?",
                     name);
    *out = lm_type_make(LM_TYPE_INTERVAL_MDN);
    return 0;
  }
  case ARROW_TYPE_FIXED_SIZE_BINARY: {
    int32_t w;
    if ((rc = lm_fb_get_i32(tt_tab, 0, 0, &w)) != 0)
      return rc;
    if (w < 0 || w > (INT32_MAX >> 4))
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': FixedSizeBinary of byte width %d", name,
                     (int)w);
    if (lm_type_fixed_size_binary(w, out))
      return ipc_err(c, LM_ERR_LIMIT, at,
                     "column '%s': cannot make FixedSizeBinary(%d)", name,
                     (int)w);
    return 0;
  }
  case ARROW_TYPE_TIMESTAMP:
  case ARROW_TYPE_DURATION: {
    int16_t unit;
    if ((rc = lm_fb_get_i16(tt_tab, 0,
                            tt == ARROW_TYPE_DURATION ? LM_UNIT_MILLI : 0,
                            &unit)) != 0)
      return rc;
    if (unit < 0 || unit > 3)
      return ipc_err(c, LM_ERR_PARSE, at, "column '%s': bad time unit %d", name,
                     unit);
    if (tt == ARROW_TYPE_DURATION)
      *out = unit == LM_UNIT_MICRO
                 ? lm_type_make(LM_TYPE_INTERVAL)
                 : lm_type_unit(LM_TYPE_DURATION, (lm_time_unit)unit);
    else
      *out = lm_type_unit(LM_TYPE_TIMESTAMP, (lm_time_unit)unit);
    return 0;
  }
  default:
    return ipc_err(c, LM_ERR_PARSE, at,
                   "unsupported Arrow type %s in column '%s'", type_name(tt),
                   name);
  }
}

/* The dictionary of id (added when new, with the value layout of fd). */
static int find_dict(const ipc_ctx *c, ipc_schema *s, int64_t id,
                     const ipc_field *fd, size_t at, int *out) {
  for (int d = 0; d < s->n_dicts; d++) {
    if (s->dicts[d].id != id)
      continue;
    if (!lm_type_eq(s->dicts[d].vf.type, fd->value))
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': dictionary %lld is shared with a column of "
                     "another value type",
                     fd->name, (long long)id);
    *out = d;
    return 0;
  }
  if (s->n_dicts == s->cap_dicts) {
    int nc = s->cap_dicts ? 2 * s->cap_dicts : 4;
    ipc_dict *nd = realloc(s->dicts, (size_t)nc * sizeof *nd);
    if (!nd)
      return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    s->dicts = nd;
    s->cap_dicts = nc;
  }
  ipc_dict *d = &s->dicts[s->n_dicts];
  memset(d, 0, sizeof *d);
  d->id = id;
  d->vf = *fd;
  d->vf.type = fd->value;
  d->vf.dict = -1;
  d->vf.name = lm_strdup(fd->name);
  if (!d->vf.name)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  *out = s->n_dicts++;
  return 0;
}

/* Decodes Field table f (Schema.fbs) into *fd and its lm_type_field form
 * *tf (name borrowed from fd; tz is a new string or NULL, owned by the
 * caller). Lists and structs recurse over the children (depth checked by
 * check_depth beforehand); a DictionaryEncoding makes the type DICTIONARY
 * and registers its id. */
static int decode_field(const ipc_ctx *c, const lm_fb_table *f,
                        const char *parent, ipc_schema *s, ipc_field *fd,
                        bool *nullable, char **tz) {
  const char *nm;
  uint32_t nn;
  uint8_t nul, tt;
  lm_fb_table tt_tab;
  bool present;
  int rc;
  size_t at = f->r->base + f->pos;
  memset(fd, 0, sizeof *fd);
  fd->dict = -1;
  *tz = NULL;
  if ((rc = lm_fb_get_string(f, FIELD_NAME, &nm, &nn)) != 0 ||
      (rc = lm_fb_get_u8(f, FIELD_NULLABLE, 0, &nul)) != 0 ||
      (rc = lm_fb_get_u8(f, FIELD_TYPE_TYPE, 0, &tt)) != 0 ||
      (rc = lm_fb_get_table(f, FIELD_TYPE, &tt_tab, &present)) != 0)
    return rc;
  *nullable = nul != 0;
  if (parent) {
    size_t pl = strlen(parent);
    fd->name = malloc(pl + nn + 2);
    if (fd->name) {
      memcpy(fd->name, parent, pl);
      fd->name[pl] = '.';
      memcpy(fd->name + pl + 1, nm ? nm : "", nn);
      fd->name[pl + 1 + nn] = 0;
    }
  } else {
    fd->name = lm_strndup(nm ? nm : "", nn);
  }
  if (!fd->name)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  lm_fb_vec ch;
  if ((rc = lm_fb_get_vector(f, FIELD_CHILDREN, 4, &ch)) != 0)
    return rc;
  lm_type t;
  if (tt == ARROW_TYPE_LIST || tt == ARROW_TYPE_LARGE_LIST ||
      tt == ARROW_TYPE_STRUCT) {
    if (tt != ARROW_TYPE_STRUCT && ch.n != 1)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "column '%s': %s with %u children (needs 1)", fd->name,
                     type_name(tt), ch.n);
    fd->children = calloc(ch.n + 1, sizeof *fd->children);
    lm_type_field *tf = calloc(ch.n + 1, sizeof *tf);
    char **tzs = calloc(ch.n + 1, sizeof *tzs);
    rc = fd->children && tf && tzs
             ? 0
             : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < ch.n && !rc; i++) {
      lm_fb_table cf;
      bool cnull;
      if ((rc = lm_fb_vec_table(&ch, i, &cf)) != 0 ||
          (rc = decode_field(c, &cf, fd->name, s, &fd->children[i], &cnull,
                             &tzs[i])) != 0) {
        fd->n_children = (int)i + 1;
        break;
      }
      fd->n_children = (int)i + 1;
      const char *cn = strrchr(fd->children[i].name, '.');
      tf[i].name = cn ? cn + 1 : fd->children[i].name;
      tf[i].type = fd->children[i].type;
      tf[i].nullable = cnull;
      tf[i].timezone = tzs[i];
    }
    if (!rc) {
      int mk = tt == ARROW_TYPE_STRUCT
                   ? lm_type_struct((int)ch.n, tf, &t)
                   : lm_type_list(tt == ARROW_TYPE_LIST ? LM_TYPE_LIST
                                                        : LM_TYPE_LARGE_LIST,
                                  tf, &t);
      if (mk)
        rc = ipc_err(c, mk == LM_ERR_LIMIT ? LM_ERR_LIMIT : LM_ERR_NOMEM, at,
                     "column '%s': cannot make its type", fd->name);
      if (!rc) {
        /* the same type with dictionaries decoded */
        for (uint32_t i = 0; i < ch.n; i++)
          tf[i].type = fd->children[i].plain;
        mk = tt == ARROW_TYPE_STRUCT ? lm_type_struct((int)ch.n, tf, &fd->plain)
                                     : lm_type_list(t.id, tf, &fd->plain);
        if (mk)
          rc = ipc_err(c, LM_ERR_LIMIT, at, "column '%s': cannot make its type",
                       fd->name);
      }
    }
    if (tzs)
      for (uint32_t i = 0; i < ch.n; i++)
        free(tzs[i]);
    free(tzs);
    free(tf);
    if (rc)
      return rc;
  } else {
    if ((rc = decode_flat_type(c, tt, &tt_tab, present, at, fd->name, &t)) != 0)
      return rc;
    fd->plain = t;
    if (t.id == LM_TYPE_TIMESTAMP && present) {
      /* Timestamp.timezone (Schema.fbs): kept as the field's label */
      const char *z = NULL;
      uint32_t zn = 0;
      if ((rc = lm_fb_get_string(&tt_tab, TS_TIMEZONE, &z, &zn)) != 0)
        return rc;
      if (z && !(*tz = lm_strndup(z, zn)))
        return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    }
  }
  fd->type = fd->value = t;

  /* Field.dictionary (Schema.fbs DictionaryEncoding {id: long; indexType:
   * Int; isOrdered: bool; dictionaryKind: DenseArray}): the Field's own
   * type is the dictionary's value type (Columnar.html "Dictionary
   * Messages"). */
  bool has_dict;
  lm_fb_table de, it;
  bool has_it = false;
  if ((rc = lm_fb_get_table(f, FIELD_DICTIONARY, &de, &has_dict)) != 0)
    return rc;
  if (!has_dict)
    return 0;
  size_t dat = f->r->base + de.pos;
  int64_t id;
  int16_t kind;
  uint8_t ordered;
  int32_t bits = 32;
  uint8_t sign = 1;
  if ((rc = lm_fb_get_i64(&de, DE_ID, 0, &id)) != 0 ||
      (rc = lm_fb_get_table(&de, DE_INDEX_TYPE, &it, &has_it)) != 0 ||
      (rc = lm_fb_get_u8(&de, DE_IS_ORDERED, 0, &ordered)) != 0 ||
      (rc = lm_fb_get_i16(&de, DE_KIND, 0, &kind)) != 0)
    return rc;
  if (has_it && ((rc = lm_fb_get_i32(&it, INT_BIT_WIDTH, 0, &bits)) != 0 ||
                 (rc = lm_fb_get_u8(&it, INT_IS_SIGNED, 0, &sign)) != 0))
    return rc;
  int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
  if (k < 0)
    return ipc_err(c, LM_ERR_PARSE, dat,
                   "column '%s': dictionary index type with bit width %d",
                   fd->name, (int)bits);
  if (kind != 0)
    return ipc_err(c, LM_ERR_PARSE, dat,
                   "column '%s': unsupported dictionary kind %d", fd->name,
                   (int)kind);
  lm_type_id index = (lm_type_id)((sign ? LM_TYPE_INT8 : LM_TYPE_UINT8) + k);
  if (lm_type_dictionary(index, t, ordered != 0, &fd->type))
    return ipc_err(c, LM_ERR_LIMIT, dat,
                   "column '%s': cannot make its dictionary type", fd->name);
  return find_dict(c, s, id, fd, dat, &fd->dict);
}

/* Decodes a Schema table (Schema.fbs). */
/* Appends the dictionary ids of fd and its children, pre-order, to
 * s->dict_ids (room for every field was allocated). */
static void collect_dict_ids(ipc_schema *s, const ipc_field *fd) {
  if (fd->dict >= 0)
    s->dict_ids[s->n_dict_ids++] = s->dicts[fd->dict].id;
  for (int i = 0; i < fd->n_children; i++)
    collect_dict_ids(s, &fd->children[i]);
}

static int decode_schema(const ipc_ctx *c, const lm_fb_table *st,
                         ipc_schema *out) {
  int rc;
  int16_t endian;
  memset(out, 0, sizeof *out);
  if ((rc = lm_fb_get_i16(st, SCHEMA_ENDIANNESS, 0, &endian)) != 0)
    return rc;
  if (endian != 0)
    return ipc_err(c, LM_ERR_PARSE, st->r->base + st->pos,
                   "big-endian Arrow data is not supported");
  lm_fb_vec fv;
  if ((rc = lm_fb_get_vector(st, SCHEMA_FIELDS, 4, &fv)) != 0)
    return rc;
  if (fv.n > (uint32_t)c->lim->max_columns)
    return ipc_err(c, LM_ERR_LIMIT, st->r->base + fv.pos,
                   "schema has %u columns, more than the limit of %d", fv.n,
                   c->lim->max_columns);
  out->schema = lm_schema_new((int)fv.n);
  out->plain = lm_schema_new((int)fv.n);
  out->fields = calloc(fv.n + 1, sizeof *out->fields);
  if (!out->schema || !out->plain || !out->fields)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  int64_t count = 0;
  for (uint32_t i = 0; i < fv.n; i++) {
    lm_fb_table f;
    if ((rc = lm_fb_vec_table(&fv, i, &f)) != 0 ||
        (rc = check_depth(c, &f, 1, &count)) != 0)
      return rc;
    bool nullable;
    char *tz = NULL;
    ipc_field *fd = &out->fields[i];
    rc = decode_field(c, &f, NULL, out, fd, &nullable, &tz);
    out->n_fields = (int)i + 1;
    if (rc == 0 && (lm_schema_set_field(out->schema, (int)i, fd->name, fd->type,
                                        nullable) ||
                    lm_schema_set_field(out->plain, (int)i, fd->name, fd->plain,
                                        nullable) ||
                    (tz && (lm_schema_set_timezone(out->schema, (int)i, tz) ||
                            lm_schema_set_timezone(out->plain, (int)i, tz)))))
      rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    free(tz);
    if (rc)
      return rc;
  }
  out->dict_ids = malloc(((size_t)count + 1) * sizeof *out->dict_ids);
  if (!out->dict_ids)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < out->n_fields; i++)
    collect_dict_ids(out, &out->fields[i]);
  return read_kvs(c, st, SCHEMA_CUSTOM_METADATA, &out->kv, &out->n_kv);
}

/* --------------------------------------------------------------- message */

/* Verifies the Message flatbuffer p[0, len) found at absolute offset abs. */
static int parse_message(const ipc_ctx *c, lm_fb_reader *rd, const uint8_t *p,
                         size_t len, size_t abs, uint8_t *htype,
                         lm_fb_table *header, int64_t *body_len,
                         lm_fb_table *msg_out) {
  rd->p = p;
  rd->len = len;
  rd->base = abs;
  rd->source = c->source;
  rd->err = c->err;
  lm_fb_table local, *msg = msg_out ? msg_out : &local;
  int16_t version;
  bool present;
  int rc;
  if ((rc = lm_fb_root(rd, msg)) != 0 ||
      (rc = lm_fb_get_i16(msg, MSG_VERSION, 0, &version)) != 0 ||
      (rc = lm_fb_get_u8(msg, MSG_HEADER_TYPE, 0, htype)) != 0 ||
      (rc = lm_fb_get_table(msg, MSG_HEADER, header, &present)) != 0 ||
      (rc = lm_fb_get_i64(msg, MSG_BODY_LENGTH, 0, body_len)) != 0)
    return rc;
  if (version < ARROW_METADATA_V4 || version > ARROW_METADATA_V5)
    return ipc_err(c, LM_ERR_PARSE, abs,
                   "unsupported Arrow metadata version V%d (V4 and V5 are)",
                   version + 1);
  if (!present)
    return ipc_err(c, LM_ERR_PARSE, abs, "message without a header");
  if (*body_len < 0 || *body_len > c->lim->max_message_bytes)
    return ipc_err(c, *body_len < 0 ? LM_ERR_PARSE : LM_ERR_LIMIT, abs,
                   "message body length %lld is %s", (long long)*body_len,
                   *body_len < 0 ? "negative" : "over the message size limit");
  return 0;
}

/* ----------------------------------------------------------- record batch */

static void release_owner(lm_buffer *b) {
  lm_buffer_release(b->owner);
}

typedef struct body_ref {
  const uint8_t *p; /* body start */
  size_t len;
  size_t abs;       /* absolute offset of the body */
  lm_buffer *owner; /* keeps p alive (NULL = borrowed) */
  int codec;        /* -1 = uncompressed */
} body_ref;

/* A view of body bytes [p, p + n) as a buffer: zero-copy when aligned to
 * 8 bytes, else a copy. */
static lm_buffer *view(const body_ref *b, const uint8_t *p, size_t n) {
  if (((uintptr_t)p & 7) == 0) {
    lm_buffer *v =
        lm_buffer_wrap(p, n, b->owner ? release_owner : NULL, b->owner);
    if (v && b->owner)
      lm_buffer_retain(b->owner);
    return v;
  }
  lm_buffer *v = lm_buffer_new(n);
  if (v && n)
    memcpy(v->data, p, n);
  return v;
}

static int decompress(const ipc_ctx *c, size_t at, int codec,
                      const uint8_t *src, size_t n, uint8_t *dst, size_t ulen) {
  if (codec == ARROW_CODEC_ZSTD) {
    size_t r = ZSTD_decompress(dst, ulen, src, n);
    if (ZSTD_isError(r) || r != ulen)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "ZSTD buffer does not decompress to its %zu bytes%s%s",
                     ulen, ZSTD_isError(r) ? ": " : "",
                     ZSTD_isError(r) ? ZSTD_getErrorName(r) : "");
    return 0;
  }
  LZ4F_dctx *d;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  size_t out = 0, in = 0, r = 1;
  while (in < n && out <= ulen) {
    size_t dn = ulen - out, sn = n - in;
    r = LZ4F_decompress(d, dst + out, &dn, src + in, &sn, NULL);
    if (LZ4F_isError(r))
      break;
    in += sn;
    out += dn;
    if (r == 0 || (sn == 0 && dn == 0))
      break;
  }
  LZ4F_freeDecompressionContext(d);
  if (LZ4F_isError(r) || r != 0 || out != ulen)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "LZ4 frame buffer does not decompress to its %zu bytes%s%s",
                   ulen, LZ4F_isError(r) ? ": " : "",
                   LZ4F_isError(r) ? LZ4F_getErrorName(r) : "");
  return 0;
}

/* Decompresses src[0, n) to as many bytes as its frames hold (at most
 * `max`), into a new buffer *out: for a prefix that does not give the
 * uncompressed length (see take_buffer). A single ZSTD frame that records
 * its content size is decoded in one call, others (and LZ4 frames) by
 * streaming into a buffer that doubles as needed. */
static int decompress_unsized(const ipc_ctx *c, size_t at, int codec,
                              const uint8_t *src, size_t n, size_t max,
                              lm_buffer **out) {
  *out = NULL;
  if (n == 0) { /* an empty buffer (arrow-java writes prefix 0, no frame) */
    *out = lm_buffer_new(0);
    return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  }
  if (codec == ARROW_CODEC_ZSTD) {
    /* one frame recording its size: decoded in one call */
    unsigned long long fs = ZSTD_getFrameContentSize(src, n);
    if (fs == ZSTD_CONTENTSIZE_ERROR)
      return ipc_err(c, LM_ERR_PARSE, at, "ZSTD buffer is not a ZSTD frame");
    if (fs != ZSTD_CONTENTSIZE_UNKNOWN &&
        ZSTD_findFrameCompressedSize(src, n) == n) {
      if (fs > max)
        return ipc_err(c, LM_ERR_LIMIT, at,
                       "ZSTD buffer of %llu bytes is over the buffer size "
                       "limit",
                       fs);
      lm_buffer *nb = lm_buffer_new((size_t)fs);
      if (!nb)
        return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      int rc = decompress(c, at, codec, src, n, nb->data, (size_t)fs);
      if (rc) {
        lm_buffer_release(nb);
        return rc;
      }
      *out = nb;
      return 0;
    }
  }
  size_t cap = n < 64 ? 256 : n * 4, len = 0, in = 0;
  if (cap > max)
    cap = max;
  uint8_t *dst = malloc(cap ? cap : 1);
  ZSTD_DCtx *z = NULL;
  LZ4F_dctx *l = NULL;
  if (codec == ARROW_CODEC_ZSTD)
    z = ZSTD_createDCtx();
  else if (LZ4F_isError(LZ4F_createDecompressionContext(&l, LZ4F_VERSION)))
    l = NULL;
  int rc = 0;
  if (!dst || (!z && !l)) {
    rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (;;) {
    if (len == cap) {
      if (cap >= max) {
        rc = ipc_err(c, LM_ERR_LIMIT, at,
                     "compressed buffer decompresses to more than the buffer "
                     "size limit (%zu bytes)",
                     max);
        goto done;
      }
      size_t ncap = cap > max / 2 ? max : cap * 2;
      uint8_t *nd = realloc(dst, ncap);
      if (!nd) {
        rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        goto done;
      }
      dst = nd;
      cap = ncap;
    }
    size_t before_in = in, before_len = len, r;
    if (z) {
      ZSTD_inBuffer ib = {src, n, in};
      ZSTD_outBuffer ob = {dst, cap, len};
      r = ZSTD_decompressStream(z, &ob, &ib);
      if (ZSTD_isError(r)) {
        rc = ipc_err(c, LM_ERR_PARSE, at, "ZSTD buffer does not decompress: %s",
                     ZSTD_getErrorName(r));
        goto done;
      }
      in = ib.pos;
      len = ob.pos;
    } else {
      size_t dn = cap - len, sn = n - in;
      r = LZ4F_decompress(l, dst + len, &dn, src + in, &sn, NULL);
      if (LZ4F_isError(r)) {
        rc = ipc_err(c, LM_ERR_PARSE, at,
                     "LZ4 frame buffer does not decompress: %s",
                     LZ4F_getErrorName(r));
        goto done;
      }
      in += sn;
      len += dn;
    }
    if (r == 0 && in == n)
      break; /* the last frame is complete and every byte used */
    if (in == n && len < cap && before_in == in && before_len == len) {
      rc = ipc_err(c, LM_ERR_PARSE, at,
                   "compressed buffer ends inside its frame");
      goto done;
    }
  }
  lm_buffer *nb = lm_buffer_new(len);
  if (!nb) {
    rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (len)
    memcpy(nb->data, dst, len);
  *out = nb;
done:
  free(dst);
  if (z)
    ZSTD_freeDCtx(z);
  if (l)
    LZ4F_freeDecompressionContext(l);
  return rc;
}

typedef struct batch_cursor {
  const ipc_ctx *c;
  const body_ref *body;
  lm_fb_vec bufs;
  uint32_t next_buf;
  lm_fb_vec nodes;
  uint32_t next_node;
  ipc_schema *s; /* dictionaries */
} batch_cursor;

/* Takes the next Buffer descriptor, checks it against the body (and
 * decompresses it), and returns its bytes as a new buffer reference. */
static int take_buffer(batch_cursor *bc, lm_buffer **out, size_t *at_out) {
  const ipc_ctx *c = bc->c;
  *out = NULL;
  uint32_t i = bc->next_buf++;
  if (i >= bc->bufs.n)
    return ipc_err(c, LM_ERR_PARSE, bc->bufs.r->base + bc->bufs.pos,
                   "record batch has %u buffers; its columns need more",
                   bc->bufs.n);
  const uint8_t *d = lm_fb_vec_elem(&bc->bufs, i);
  size_t at = bc->bufs.r->base + bc->bufs.pos + (size_t)i * ARROW_BUFFER_SIZE;
  *at_out = at;
  int64_t off = lm_fb_i64(d), len = lm_fb_i64(d + 8);
  if (off < 0 || len < 0 || (uint64_t)off > bc->body->len ||
      (uint64_t)len > bc->body->len - (uint64_t)off)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "record batch buffer %u extends past the body (offset "
                   "%lld, length %lld, body %zu)",
                   i, (long long)off, (long long)len, bc->body->len);
  const uint8_t *p = bc->body->p + off;
  if (bc->body->codec >= 0 && len > 0) {
    if (len < 8)
      return ipc_err(c, LM_ERR_PARSE, at,
                     "compressed buffer %u is shorter than its length prefix",
                     i);
    int64_t ulen = lm_fb_i64(p);
    if (ulen == -1) {
      p += 8;
      len -= 8;
    } else {
      if (ulen < 0 || ulen > c->lim->max_buffer_bytes)
        return ipc_err(c, ulen < 0 ? LM_ERR_PARSE : LM_ERR_LIMIT, at,
                       "buffer %u uncompressed length %lld is %s", i,
                       (long long)ulen,
                       ulen < 0 ? "negative" : "over the buffer size limit");
      if (ulen == len - 8)
        /* apache-arrow (JavaScript) 21 writes the compressed length in
         * the prefix (apache/arrow-js#470, fixed after 21.2.0): a prefix
         * equal to the bytes that follow is read as "size unknown" and
         * the frames give the size; the layout checks that follow still
         * apply. (A true uncompressed length equal to it decodes to the
         * same bytes.) */
        return decompress_unsized(c, at, bc->body->codec, p + 8,
                                  (size_t)len - 8,
                                  (size_t)c->lim->max_buffer_bytes, out);
      lm_buffer *nb = lm_buffer_new((size_t)ulen);
      if (!nb)
        return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      int rc = decompress(c, at, bc->body->codec, p + 8, (size_t)len - 8,
                          nb->data, (size_t)ulen);
      if (rc) {
        lm_buffer_release(nb);
        return rc;
      }
      *out = nb;
      return 0;
    }
  }
  if (len > c->lim->max_buffer_bytes)
    return ipc_err(c, LM_ERR_LIMIT, at,
                   "buffer %u of %lld bytes is over the buffer size limit", i,
                   (long long)len);
  *out = view(bc->body, p, (size_t)len);
  return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
}

/* Takes the next buffer as field f's validity bitmap for n rows with
 * null_count NULLs: dropped (*out NULL) when there are none, else checked
 * for size and against null_count. */
static int take_validity(batch_cursor *bc, const char *name, int64_t n,
                         int64_t *null_count_io, size_t node_at,
                         lm_buffer **out) {
  const ipc_ctx *c = bc->c;
  size_t at;
  lm_buffer *validity = NULL;
  int64_t null_count = *null_count_io;
  *out = NULL;
  int rc = take_buffer(bc, &validity, &at);
  if (rc)
    return rc;
  if (null_count < 0 && validity->size == 0)
    *null_count_io = null_count = 0; /* unknown count, no bitmap: no NULL */
  if (null_count == 0) {
    lm_buffer_release(validity);
    return 0;
  }
  size_t bitmap_bytes = (size_t)((n + 7) / 8);
  if (validity->size < bitmap_bytes) {
    rc = ipc_err(c, LM_ERR_PARSE, at,
                 "column '%s': validity buffer of %zu bytes is too short "
                 "for %lld rows",
                 name, validity->size, (long long)n);
    lm_buffer_release(validity);
    return rc;
  }
  int64_t valid = lm_bitmap_count_set(validity->data, 0, n);
  if (null_count < 0) /* -1: "unknown" (as Arrow C++ reads it): count */
    *null_count_io = null_count = n - valid;
  if (n - valid != null_count) {
    rc = ipc_err(c, LM_ERR_PARSE, node_at,
                 "column '%s': null_count %lld does not match the validity "
                 "bitmap (%lld nulls)",
                 name, (long long)null_count, (long long)(n - valid));
    lm_buffer_release(validity);
    return rc;
  }
  *out = validity;
  return 0;
}

/* Builds a flat column (any type but NULL, lists, structs and
 * dictionaries) of n rows from the next buffers: validity, values (or
 * offsets and data). Every layout rule is checked here. */
static int decode_column(batch_cursor *bc, const lm_field *f, int64_t n,
                         int64_t null_count, size_t node_at, lm_array **out) {
  const ipc_ctx *c = bc->c;
  *out = NULL;
  lm_type_id id = f->type.id;
  if (id == LM_TYPE_NULL) {
    *out = lm_array_new_null(f->type, n);
    return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  }
  lm_buffer *validity = NULL, *values = NULL, *data = NULL;
  size_t at;
  int rc = take_validity(bc, f->name, n, &null_count, node_at, &validity);
  if (rc)
    return rc;
  size_t bitmap_bytes = (size_t)((n + 7) / 8);
  if ((rc = take_buffer(bc, &values, &at)) != 0)
    goto fail;
  bool var = lm_type_is_varbinary(f->type);
  if (!var) {
    size_t need = id == LM_TYPE_BOOL
                      ? bitmap_bytes
                      : (size_t)n * (size_t)lm_type_width(f->type);
    if (values->size < need) {
      rc = ipc_err(c, LM_ERR_PARSE, at,
                   "column '%s': values buffer of %zu bytes is too short for "
                   "%lld rows (need %zu)",
                   f->name, values->size, (long long)n, need);
      goto fail;
    }
  } else {
    size_t ow = id == LM_TYPE_UTF8 || id == LM_TYPE_BINARY ? 4 : 8;
    bool utf8 = id == LM_TYPE_UTF8 || id == LM_TYPE_LARGE_UTF8;
    size_t oat = at;
    if ((rc = take_buffer(bc, &data, &at)) != 0)
      goto fail;
    if (n == 0 && values->size < ow) {
      /* an empty array may come without offsets */
      lm_buffer_release(values);
      values = lm_buffer_new(ow);
      if (!values) {
        rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        goto fail;
      }
    } else {
      if (values->size / ow < (size_t)n + 1) {
        rc = ipc_err(c, LM_ERR_PARSE, oat,
                     "column '%s': offsets buffer of %zu bytes is too short "
                     "for %lld rows",
                     f->name, values->size, (long long)n);
        goto fail;
      }
      int64_t prev = 0, first = 0;
      for (int64_t i = 0; i <= n; i++) {
        int64_t o = ow == 4 ? ((const int32_t *)(const void *)values->data)[i]
                            : ((const int64_t *)(const void *)values->data)[i];
        if (i == 0)
          first = o;
        if (o < prev || (uint64_t)o > data->size) {
          rc =
              ipc_err(c, LM_ERR_PARSE, oat,
                      "column '%s': offset %lld at row %lld is %s (data "
                      "%zu bytes)",
                      f->name, (long long)o, (long long)i,
                      o < prev ? "not monotonic" : "past the data", data->size);
          goto fail;
        }
        prev = o;
      }
      if (utf8) {
        size_t bad = lm_fmt_utf8_check((const char *)data->data + first,
                                       (size_t)(prev - first));
        if (bad != (size_t)(prev - first)) {
          rc = ipc_err(c, LM_ERR_PARSE, at,
                       "column '%s': invalid UTF-8 at data byte %lld", f->name,
                       (long long)(first + (int64_t)bad));
          goto fail;
        }
      }
    }
  }
  lm_array *a = lm_array_new(f->type, n, validity ? null_count : 0, 0, validity,
                             values, data, 0, NULL, NULL);
  validity = values = data = NULL;
  if (a && var && !a->data && !(a->data = lm_buffer_new(0))) {
    lm_array_release(a);
    a = NULL;
  }
  if (!a)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  *out = a;
  return 0;
fail:
  if (validity)
    lm_buffer_release(validity);
  if (values)
    lm_buffer_release(values);
  if (data)
    lm_buffer_release(data);
  return rc;
}

/* Index r of a little-endian integer vector of `bits` width, widened; *neg
 * is set for a negative signed index. */
static uint64_t load_index(const uint8_t *p, int bits, bool is_signed,
                           int64_t r, bool *neg) {
  int64_t sv;
  uint64_t uv;
  switch (bits) {
  case 8: {
    uint8_t v = p[r];
    sv = (int8_t)v;
    uv = v;
    break;
  }
  case 16: {
    uint16_t v;
    memcpy(&v, p + 2 * r, 2);
    sv = (int16_t)v;
    uv = v;
    break;
  }
  case 32: {
    uint32_t v;
    memcpy(&v, p + 4 * r, 4);
    sv = (int32_t)v;
    uv = v;
    break;
  }
  default:
    memcpy(&uv, p + 8 * r, 8);
    sv = (int64_t)uv;
    break;
  }
  *neg = is_signed && sv < 0;
  return is_signed ? (uint64_t)sv : uv;
}

/* Takes the next FieldNode: its length and null_count (checked) and its
 * absolute offset. */
static int take_node(batch_cursor *bc, const char *name, int64_t *n,
                     int64_t *nulls, size_t *at) {
  const ipc_ctx *c = bc->c;
  uint32_t i = bc->next_node++;
  if (i >= bc->nodes.n)
    return ipc_err(c, LM_ERR_PARSE, bc->nodes.r->base + bc->nodes.pos,
                   "record batch has %u field nodes; its columns need more",
                   bc->nodes.n);
  const uint8_t *nd = lm_fb_vec_elem(&bc->nodes, i);
  *at = bc->nodes.r->base + bc->nodes.pos + (size_t)i * ARROW_FIELD_NODE_SIZE;
  *n = lm_fb_i64(nd);
  *nulls = lm_fb_i64(nd + 8);
  /* null_count -1 is "unknown" (apache-arrow's JavaScript writer writes it
   * for a sliced Null column; Arrow C++ then counts the bitmap): the
   * validity buffer decides (take_validity) */
  if (*n < 0 || *n > c->lim->max_records || *nulls < -1 || *nulls > *n)
    return ipc_err(c, *n > c->lim->max_records ? LM_ERR_LIMIT : LM_ERR_PARSE,
                   *at,
                   "column '%s': field node (length %lld, null_count %lld) is "
                   "invalid",
                   name, (long long)*n, (long long)*nulls);
  return 0;
}

/* Decodes field fd (its FieldNode was taken: n rows, nulls NULLs, at
 * node_at) and, recursively, its children, from the next buffers. */
static int decode_node(batch_cursor *bc, const ipc_field *fd, int64_t n,
                       int64_t nulls, size_t node_at, lm_array **out) {
  const ipc_ctx *c = bc->c;
  *out = NULL;
  int rc;
  lm_field f = {fd->name, fd->type, true, NULL};
  if (fd->dict >= 0) {
    /* Columnar.html "Dictionary Messages": indices into the current
     * dictionary of the id, each checked */
    const ipc_dict *d = &bc->s->dicts[fd->dict];
    if (!d->values)
      return ipc_err(c, LM_ERR_PARSE, node_at,
                     "column '%s': no dictionary with id %lld before this "
                     "record batch",
                     fd->name, (long long)d->id);
    lm_type it = lm_type_dict_index(fd->type);
    f.type = it;
    uint32_t vbuf = bc->next_buf + 1;
    lm_array *idx;
    if ((rc = decode_column(bc, &f, n, nulls, node_at, &idx)) != 0)
      return rc;
    /* absolute offset of index 0 (of its descriptor when compressed) */
    size_t base_at = bc->bufs.r->base + bc->bufs.pos +
                     (size_t)vbuf * ARROW_BUFFER_SIZE,
           step = 0;
    int bits = 8 * lm_type_width(it);
    if (bc->body->codec < 0) {
      base_at =
          bc->body->abs + (size_t)lm_fb_i64(lm_fb_vec_elem(&bc->bufs, vbuf));
      step = (size_t)bits / 8;
    }
    int64_t dn = d->values->length;
    bool sgn = lm_type_is_integer(it);
    for (int64_t r = 0; r < n; r++) {
      if (lm_array_is_null(idx, r))
        continue;
      bool neg;
      uint64_t k = load_index(idx->values->data, bits, sgn, r, &neg);
      if (neg || k >= (uint64_t)dn) {
        rc = ipc_err(c, LM_ERR_PARSE, base_at + (size_t)r * step,
                     "column '%s': dictionary index %s%llu at row %lld is out "
                     "of range (dictionary %lld has %lld entries)",
                     fd->name, neg ? "-" : "",
                     (unsigned long long)(neg ? 0 - k : k), (long long)r,
                     (long long)d->id, (long long)dn);
        lm_array_release(idx);
        return rc;
      }
    }
    *out = lm_array_new(fd->type, n, idx->null_count, 0,
                        lm_buffer_retain(idx->validity),
                        lm_buffer_retain(idx->values), NULL, 0, NULL,
                        lm_array_retain(d->values));
    lm_array_release(idx);
    return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  }
  lm_type_id id = fd->type.id;
  if (id != LM_TYPE_LIST && id != LM_TYPE_LARGE_LIST && id != LM_TYPE_STRUCT)
    return decode_column(bc, &f, n, nulls, node_at, out);
  lm_buffer *validity = NULL, *offs = NULL;
  lm_array **kids = NULL;
  int nk = fd->n_children;
  if ((rc = take_validity(bc, fd->name, n, &nulls, node_at, &validity)) != 0)
    return rc;
  size_t oat = 0;
  int ow = id == LM_TYPE_LIST ? 4 : 8;
  if (id != LM_TYPE_STRUCT) {
    if ((rc = take_buffer(bc, &offs, &oat)) != 0)
      goto fail;
    if (n == 0 && offs->size < (size_t)ow) {
      lm_buffer_release(offs);
      if (!(offs = lm_buffer_new((size_t)ow))) {
        rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        goto fail;
      }
    } else if (offs->size / (size_t)ow < (size_t)n + 1) {
      rc = ipc_err(c, LM_ERR_PARSE, oat,
                   "column '%s': offsets buffer of %zu bytes is too short for "
                   "%lld rows",
                   fd->name, offs->size, (long long)n);
      goto fail;
    }
  }
  kids = calloc((size_t)nk + 1, sizeof *kids);
  if (!kids) {
    rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int k = 0; k < nk; k++) {
    int64_t cn, cnulls;
    size_t cat;
    if ((rc = take_node(bc, fd->children[k].name, &cn, &cnulls, &cat)) != 0 ||
        (rc = decode_node(bc, &fd->children[k], cn, cnulls, cat, &kids[k])) !=
            0)
      goto fail;
    if (id == LM_TYPE_STRUCT && cn < n) {
      rc = ipc_err(c, LM_ERR_PARSE, cat,
                   "column '%s': struct field of %lld rows in a struct of "
                   "%lld",
                   fd->children[k].name, (long long)cn, (long long)n);
      goto fail;
    }
  }
  if (id != LM_TYPE_STRUCT) {
    int64_t prev = 0, items = kids[0]->length;
    for (int64_t i = 0; i <= n; i++) {
      int64_t o = ow == 4 ? ((const int32_t *)(const void *)offs->data)[i]
                          : ((const int64_t *)(const void *)offs->data)[i];
      if (o < prev || o > items) {
        rc = ipc_err(c, LM_ERR_PARSE, oat,
                     "column '%s': list offset %lld at row %lld is %s (%lld "
                     "items)",
                     fd->name, (long long)o, (long long)i,
                     o < prev ? "not monotonic" : "past the items",
                     (long long)items);
        goto fail;
      }
      prev = o;
    }
  }
  *out = lm_array_new(fd->type, n, validity ? nulls : 0, 0, validity, offs,
                      NULL, nk, kids, NULL);
  free(kids);
  return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
fail:
  if (validity)
    lm_buffer_release(validity);
  if (offs)
    lm_buffer_release(offs);
  if (kids)
    for (int k = 0; k < nk; k++)
      lm_array_release(kids[k]);
  free(kids);
  return rc;
}

/* Decodes a RecordBatch table (Message.fbs) over `body` into nf columns
 * (*cols, malloc'ed, one reference each) of *length rows, one per field
 * descriptor. Dictionaries come from s. */
static int decode_columns(const ipc_ctx *c, const lm_fb_table *rb,
                          ipc_schema *s, const ipc_field *fields, int nf,
                          body_ref *body, lm_array ***cols_out,
                          int64_t *length_out) {
  int64_t length;
  batch_cursor bc = {c, body, {0}, 0, {0}, 0, s};
  lm_fb_table comp;
  bool has_comp;
  int rc;
  size_t at = rb->r->base + rb->pos;
  *cols_out = NULL;
  if ((rc = lm_fb_get_i64(rb, RB_LENGTH, 0, &length)) != 0 ||
      (rc = lm_fb_get_vector(rb, RB_NODES, ARROW_FIELD_NODE_SIZE, &bc.nodes)) !=
          0 ||
      (rc = lm_fb_get_vector(rb, RB_BUFFERS, ARROW_BUFFER_SIZE, &bc.bufs)) !=
          0 ||
      (rc = lm_fb_get_table(rb, RB_COMPRESSION, &comp, &has_comp)) != 0)
    return rc;
  if (length < 0 || length > c->lim->max_records)
    return ipc_err(c, length < 0 ? LM_ERR_PARSE : LM_ERR_LIMIT, at,
                   "record batch length %lld is %s", (long long)length,
                   length < 0 ? "negative" : "over the record count limit");
  body->codec = -1;
  if (has_comp) {
    uint8_t codec, method;
    if ((rc = lm_fb_get_u8(&comp, BC_CODEC, 0, &codec)) != 0 ||
        (rc = lm_fb_get_u8(&comp, BC_METHOD, 0, &method)) != 0)
      return rc;
    if (codec > ARROW_CODEC_ZSTD || method != 0)
      return ipc_err(c, LM_ERR_PARSE, rb->r->base + comp.pos,
                     "unsupported body compression (codec %u, method %u)",
                     codec, method);
    body->codec = codec;
  }
  if (bc.nodes.n < (uint32_t)nf)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "record batch has %u field nodes for %d columns", bc.nodes.n,
                   nf);
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  if (!cols)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < nf; i++) {
    int64_t n, nulls;
    size_t nat;
    if ((rc = take_node(&bc, fields[i].name, &n, &nulls, &nat)) != 0)
      goto fail;
    if (n != length) {
      rc = ipc_err(c, LM_ERR_PARSE, nat,
                   "column '%s': field node (length %lld, null_count %lld) "
                   "does not fit a batch of %lld rows",
                   fields[i].name, (long long)n, (long long)nulls,
                   (long long)length);
      goto fail;
    }
    if ((rc = decode_node(&bc, &fields[i], n, nulls, nat, &cols[i])) != 0)
      goto fail;
  }
  if (bc.next_node != bc.nodes.n) {
    rc = ipc_err(c, LM_ERR_PARSE, at,
                 "record batch has %u field nodes; its columns use %u",
                 bc.nodes.n, bc.next_node);
    goto fail;
  }
  if (bc.next_buf != bc.bufs.n) {
    rc = ipc_err(c, LM_ERR_PARSE, at,
                 "record batch has %u buffers; its columns use %u", bc.bufs.n,
                 bc.next_buf);
    goto fail;
  }
  *cols_out = cols;
  *length_out = length;
  return 0;
fail:
  for (int i = 0; i < nf; i++)
    if (cols[i])
      lm_array_release(cols[i]);
  free(cols);
  return rc;
}

/* Decodes a RecordBatch message into a batch of the schema (dictionaries
 * decoded unless c->keep_dicts). */
static int decode_batch(const ipc_ctx *c, const lm_fb_table *rb, ipc_schema *s,
                        body_ref *body, lm_batch **out) {
  lm_array **cols;
  int64_t length;
  *out = NULL;
  int rc =
      decode_columns(c, rb, s, s->fields, s->n_fields, body, &cols, &length);
  if (rc)
    return rc;
  for (int i = 0; !c->keep_dicts && i < s->n_fields; i++) {
    if (lm_type_eq(cols[i]->type, s->fields[i].plain))
      continue;
    lm_array *p = lm_array_undictionary(cols[i]);
    if (!p) {
      for (int k = 0; k < s->n_fields; k++)
        lm_array_release(cols[k]);
      free(cols);
      return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    }
    lm_array_release(cols[i]);
    cols[i] = p;
  }
  *out = lm_batch_new(lm_schema_retain(c->keep_dicts ? s->schema : s->plain),
                      length, cols);
  free(cols);
  return *out ? 0 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
}

/* Applies a DictionaryBatch (Message.fbs {id: long; data: RecordBatch;
 * isDelta: bool}; Columnar.html "Dictionary Messages"): decodes its
 * one-column record batch with the dictionary's value layout, then
 * replaces the dictionary (isDelta false) or appends to it (isDelta true).
 * In the file format a second non-delta batch for one id is an error
 * ("IPC File Format": replacement is not supported). */
static int apply_dictionary(const ipc_ctx *c, ipc_schema *s,
                            const lm_fb_table *db, body_ref *body,
                            bool file_format) {
  size_t at = db->r->base + db->pos;
  int64_t id;
  lm_fb_table data;
  bool present;
  uint8_t delta;
  int rc;
  if ((rc = lm_fb_get_i64(db, DB_ID, 0, &id)) != 0 ||
      (rc = lm_fb_get_table(db, DB_DATA, &data, &present)) != 0 ||
      (rc = lm_fb_get_u8(db, DB_IS_DELTA, 0, &delta)) != 0)
    return rc;
  if (!present)
    return ipc_err(c, LM_ERR_PARSE, at, "dictionary batch %lld without data",
                   (long long)id);
  int d = 0;
  while (d < s->n_dicts && s->dicts[d].id != id)
    d++;
  if (d == s->n_dicts)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "dictionary batch for id %lld, which no column uses",
                   (long long)id);
  ipc_dict *dict = &s->dicts[d];
  if (!delta && file_format && dict->seen_base)
    return ipc_err(c, LM_ERR_PARSE, at,
                   "a second non-delta dictionary batch for id %lld "
                   "(replacement is not allowed in the file format)",
                   (long long)id);
  lm_array **cols;
  int64_t length;
  if ((rc = decode_columns(c, &data, s, &dict->vf, 1, body, &cols, &length)) !=
      0)
    return rc;
  lm_array *nv = cols[0];
  free(cols);
  bool append = delta && dict->values;
  int64_t total = nv->length + (append ? dict->values->length : 0);
  if (total > c->lim->max_dictionary_entries) {
    lm_array_release(nv);
    return ipc_err(c, LM_ERR_LIMIT, at,
                   "dictionary %lld would hold %lld entries, more than the "
                   "limit of %lld",
                   (long long)id, (long long)total,
                   (long long)c->lim->max_dictionary_entries);
  }
  if (append) {
    lm_array *two[2] = {dict->values, nv};
    lm_error e = {0};
    lm_array *cat = lm_array_concat(two, 2, &e);
    lm_array_release(nv);
    if (!cat)
      return e.code == LM_ERR_LIMIT
                 ? ipc_err(c, LM_ERR_LIMIT, at, "dictionary %lld: %s",
                           (long long)id, e.msg)
                 : lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    nv = cat;
  }
  if (dict->values)
    lm_array_release(dict->values);
  dict->values = nv;
  if (!delta)
    dict->seen_base = true;
  return 0;
}

/* ---------------------------------------------------------- stream reader */

/* A RecordBatch message's custom_metadata (Message.fbs
 * Message.custom_metadata) and the DictionaryBatch messages applied since
 * the record batch before it (one entry per id: the last one's map). */
typedef struct ipc_md {
  lm_ipc_kv *kv;
  int n;
  lm_ipc_dict_batch *db;
  int n_db;
} ipc_md;

static void dbs_free(lm_ipc_dict_batch *db, int n) {
  for (int i = 0; i < n; i++)
    kvs_free(db[i].metadata, db[i].n_metadata);
  free(db);
}

static void md_free(ipc_md *md) {
  kvs_free(md->kv, md->n);
  dbs_free(md->db, md->n_db);
  memset(md, 0, sizeof *md);
}

/* Records the DictionaryBatch message msg (header db, already applied) in
 * the list *list / *n (capacity *cap): its id, isDelta and custom_metadata.
 * An entry for the same id is replaced (a delta after a replacement stays
 * a replacement), so the list never holds more entries than the schema has
 * dictionaries. LM_ERR_NOMEM or a metadata error. */
static int record_dict_batch(const ipc_ctx *c, const lm_fb_table *db,
                             const lm_fb_table *msg, lm_ipc_dict_batch **list,
                             int *n, int *cap) {
  int64_t id;
  uint8_t delta;
  int rc;
  if ((rc = lm_fb_get_i64(db, DB_ID, 0, &id)) != 0 ||
      (rc = lm_fb_get_u8(db, DB_IS_DELTA, 0, &delta)) != 0)
    return rc;
  lm_ipc_kv *kv = NULL;
  int nkv = 0;
  if (msg && (rc = read_kvs(c, msg, MSG_CUSTOM_METADATA, &kv, &nkv)) != 0) {
    kvs_free(kv, nkv);
    return rc;
  }
  int i = 0;
  while (i < *n && (*list)[i].id != id)
    i++;
  if (i < *n) {
    kvs_free((*list)[i].metadata, (*list)[i].n_metadata);
    (*list)[i].is_delta = (*list)[i].is_delta && delta;
  } else {
    if (*n == *cap) {
      int nc = *cap ? 2 * *cap : 4;
      lm_ipc_dict_batch *p = realloc(*list, (size_t)nc * sizeof *p);
      if (!p) {
        kvs_free(kv, nkv);
        return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      }
      *list = p;
      *cap = nc;
    }
    (*list)[i].id = id;
    (*list)[i].is_delta = delta != 0;
    (*n)++;
  }
  (*list)[i].metadata = kv;
  (*list)[i].n_metadata = nkv;
  return 0;
}

/* Reads msg's custom_metadata into *md (freed on error). */
static int read_message_md(const ipc_ctx *c, const lm_fb_table *msg,
                           ipc_md *md) {
  memset(md, 0, sizeof *md);
  int rc = read_kvs(c, msg, MSG_CUSTOM_METADATA, &md->kv, &md->n);
  if (rc) {
    kvs_free(md->kv, md->n);
    md->kv = NULL;
    md->n = 0;
  }
  return rc;
}

struct lm_ipc_stream_reader {
  lm_ipc_limits lim;
  char *source;
  /* Pending input: bytes [0, pend_len) of pend->data (capacity pend_cap)
   * were fed, [0, pend_off) are decoded messages. Record batch buffers are
   * zero-copy views into pend holding a reference to it, so bytes already
   * fed are never moved while batches may use them: when more room is
   * needed, the incomplete tail goes to a new pending buffer (or to the
   * front of this one when nothing else references it). NULL until the
   * first feed. */
  lm_buffer *pend;
  size_t pend_len, pend_cap;
  size_t pend_off; /* consumed bytes at the front of pend */
  size_t abs;      /* absolute offset of pend->data[0] */
  size_t need;     /* bytes of the incomplete message at pend_off, if known */
  ipc_schema sch;
  bool keep_dicts;
  bool have_schema;
  bool done;
  int err_code;
  lm_error saved;
  lm_fmt_queue q;
  /* the custom_metadata of the queued batches' messages, in q's order:
   * mdq[mdq_head, mdq_len) */
  ipc_md *mdq;
  size_t mdq_head, mdq_len, mdq_cap;
  ipc_md last; /* of the batch last returned by next or decode_message */
  /* DictionaryBatch messages applied since the last RecordBatch message
   * (moved into that batch's ipc_md when it comes) */
  lm_ipc_dict_batch *pdb;
  int n_pdb, cap_pdb;
};

/* Applies DictionaryBatch header hdr (message msg) and records it in the
 * reader's pending list. */
static int stream_apply_dictionary(lm_ipc_stream_reader *r, const ipc_ctx *c,
                                   const lm_fb_table *hdr,
                                   const lm_fb_table *msg, body_ref *body) {
  int rc = apply_dictionary(c, &r->sch, hdr, body, false);
  return rc ? rc
            : record_dict_batch(c, hdr, msg, &r->pdb, &r->n_pdb, &r->cap_pdb);
}

/* Reads the custom_metadata of RecordBatch message msg into *md, with the
 * pending dictionary batches (which the reader no longer holds). */
static int batch_md(lm_ipc_stream_reader *r, const ipc_ctx *c,
                    const lm_fb_table *msg, ipc_md *md) {
  int rc = read_message_md(c, msg, md);
  if (rc)
    return rc;
  md->db = r->pdb;
  md->n_db = r->n_pdb;
  r->pdb = NULL;
  r->n_pdb = r->cap_pdb = 0;
  return 0;
}

/* Appends md to the metadata queue (taking it); LM_ERR_NOMEM. */
static int mdq_push(lm_ipc_stream_reader *r, ipc_md md) {
  if (r->mdq_head == r->mdq_len)
    r->mdq_head = r->mdq_len = 0;
  if (r->mdq_len == r->mdq_cap) {
    if (r->mdq_head > 0) {
      memmove(r->mdq, r->mdq + r->mdq_head,
              (r->mdq_len - r->mdq_head) * sizeof *r->mdq);
      r->mdq_len -= r->mdq_head;
      r->mdq_head = 0;
    } else {
      size_t cap = r->mdq_cap ? r->mdq_cap * 2 : 16;
      ipc_md *q = realloc(r->mdq, cap * sizeof *q);
      if (!q)
        return LM_ERR_NOMEM;
      r->mdq = q;
      r->mdq_cap = cap;
    }
  }
  r->mdq[r->mdq_len++] = md;
  return 0;
}

static void set_last(lm_ipc_stream_reader *r, ipc_md md) {
  md_free(&r->last);
  r->last = md;
}

lm_ipc_stream_reader *lm_ipc_stream_reader_new(const lm_ipc_limits *limits,
                                               const char *source_name) {
  lm_ipc_stream_reader *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  limits_fill(&r->lim, limits);
  r->source = lm_strdup(source_name ? source_name : "<input>");
  if (!r->source) {
    free(r);
    return NULL;
  }
  return r;
}

static int stream_fail(lm_ipc_stream_reader *r, int rc, lm_error *err) {
  r->err_code = rc;
  if (err)
    r->saved = *err;
  else
    lm_err(&r->saved, rc, "%s: IPC stream error", r->source);
  return rc;
}

/* Decodes complete messages from pend. */
static int stream_pump(lm_ipc_stream_reader *r, lm_error *err) {
  ipc_ctx c = {&r->lim, r->source, err, r->keep_dicts};
  while (!r->done) {
    if (!r->pend)
      return 0;
    const uint8_t *p = r->pend->data + r->pend_off;
    size_t avail = r->pend_len - r->pend_off;
    size_t at = r->abs + r->pend_off;
    if (avail < 4)
      return 0;
    uint32_t first = lm_fb_u32(p);
    size_t prefix = 4;
    int32_t L = (int32_t)first;
    if (first == 0xFFFFFFFFu) {
      if (avail < 8)
        return 0;
      prefix = 8;
      L = (int32_t)lm_fb_u32(p + 4);
    }
    if (L == 0) {
      r->done = true;
      r->pend_off += prefix;
      return 0;
    }
    if (L < 0)
      return ipc_err(&c, LM_ERR_PARSE, at, "negative metadata length %d",
                     (int)L);
    if (L > r->lim.max_message_bytes)
      return ipc_err(&c, LM_ERR_LIMIT, at,
                     "metadata length %d is over the message size limit",
                     (int)L);
    if (avail < prefix + (size_t)L)
      return 0;
    lm_fb_reader rd;
    uint8_t ht;
    lm_fb_table hdr, msg;
    int64_t blen;
    int rc = parse_message(&c, &rd, p + prefix, (size_t)L, at + prefix, &ht,
                           &hdr, &blen, &msg);
    if (rc)
      return rc;
    size_t total = prefix + (size_t)L + (size_t)blen;
    if (avail < total) {
      r->need = total;
      return 0;
    }
    r->need = 0;
    if (ht == ARROW_MSG_SCHEMA) {
      if (r->have_schema)
        return ipc_err(&c, LM_ERR_PARSE, at, "a second Schema message");
      if ((rc = decode_schema(&c, &hdr, &r->sch)) != 0) {
        ipc_schema_free(&r->sch);
        return rc;
      }
      r->have_schema = true;
    } else if (ht == ARROW_MSG_RECORD_BATCH ||
               ht == ARROW_MSG_DICTIONARY_BATCH) {
      if (!r->have_schema)
        return ipc_err(&c, LM_ERR_PARSE, at, "%s before the Schema message",
                       ht == ARROW_MSG_RECORD_BATCH ? "record batch"
                                                    : "dictionary batch");
      /* decoded in place: buffers are views into pend (view() copies
       * one whose address is not 8-aligned) */
      body_ref body = {p + prefix + L, (size_t)blen, at + prefix + (size_t)L,
                       r->pend, -1};
      if (ht == ARROW_MSG_DICTIONARY_BATCH) {
        if ((rc = stream_apply_dictionary(r, &c, &hdr, &msg, &body)) != 0)
          return rc;
      } else {
        lm_batch *b;
        ipc_md md;
        if ((rc = decode_batch(&c, &hdr, &r->sch, &body, &b)) != 0)
          return rc;
        if ((rc = batch_md(r, &c, &msg, &md)) != 0) {
          lm_batch_release(b);
          return rc;
        }
        if (mdq_push(r, md)) {
          md_free(&md);
          lm_batch_release(b);
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        }
        if (lm_fmt_queue_push(&r->q, b)) {
          r->mdq_len--;
          md_free(&md);
          lm_batch_release(b);
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        }
      }
    } else {
      return ipc_err(&c, LM_ERR_PARSE, at, "unexpected message type %u", ht);
    }
    r->pend_off += total;
  }
  return 0;
}

static void release_pending(lm_buffer *b) {
  free(b->data);
}

/* Smallest and largest step of the pending buffer's geometric growth. */
#define PEND_MIN ((size_t)4096)
#define PEND_STEP ((size_t)4 << 20)
/* From this size on, the pending buffer asks for huge pages. */
#define PEND_HUGE ((size_t)2 << 20)

/* Ensures room for len more bytes after pend_len. Bytes before pend_off
 * (decoded messages, maybe referenced by batches) are never moved or
 * overwritten; the incomplete tail [pend_off, pend_len) is moved to the
 * front of pend when nothing else references it, else copied to the front
 * of a new pending buffer (the old one lives on in its views).
 * LM_ERR_NOMEM on failure (state unchanged). */
static int stream_make_room(lm_ipc_stream_reader *r, size_t len) {
  size_t tail = r->pend ? r->pend_len - r->pend_off : 0;
  if (r->pend && tail == 0 && r->pend_off > 0 && r->pend_cap >= len &&
      __atomic_load_n(&r->pend->refcnt, __ATOMIC_ACQUIRE) == 1) {
    /* every message decoded and no batch uses pend: start again at its
     * front (nothing to move; the same memory stays in the cache) */
    r->abs += r->pend_off;
    r->pend_len = r->pend_off = 0;
    return 0;
  }
  if (r->pend && r->pend_cap - r->pend_len >= len)
    return 0;
  if (len > SIZE_MAX / 2 - tail)
    return LM_ERR_NOMEM;
  size_t want = tail + len;
  if (r->pend && __atomic_load_n(&r->pend->refcnt, __ATOMIC_ACQUIRE) == 1 &&
      want <= r->pend_cap) {
    /* no batch uses pend: reuse it (its pages are already mapped) */
    memmove(r->pend->data, r->pend->data + r->pend_off, tail);
    r->abs += r->pend_off;
    r->pend_len = tail;
    r->pend_off = 0;
    return 0;
  }
  /* geometric growth up to PEND_STEP; room for the whole incomplete
   * message when its size is known, but at most twice the bytes at hand
   * (a header cannot make us reserve more than that; a large message
   * still arrives in O(n) copying) */
  size_t cap = r->pend ? r->pend_cap * 2 : PEND_MIN;
  if (cap > PEND_STEP)
    cap = PEND_STEP;
  size_t hint = r->need > want ? LM_MIN(r->need, 2 * want) : want;
  if (cap < hint)
    cap = hint;
  uint8_t *mem;
  if (cap >= PEND_HUGE) {
    /* 2 MiB aligned and backed by transparent huge pages where the kernel
     * offers them: first-touch page faults on fresh memory otherwise cost
     * more than the copy itself */
    cap = (cap + PEND_HUGE - 1) & ~(PEND_HUGE - 1);
    mem = aligned_alloc(PEND_HUGE, cap);
#ifdef MADV_HUGEPAGE
    if (mem)
      (void)madvise(mem, cap, MADV_HUGEPAGE);
#endif
  } else {
    cap = (cap + 63) & ~(size_t)63;
    mem = malloc(cap);
  }
  if (!mem)
    return LM_ERR_NOMEM;
  /* data set after wrapping: the bytes are not written yet */
  lm_buffer *nb = lm_buffer_wrap(NULL, cap, release_pending, NULL);
  if (!nb) {
    free(mem);
    return LM_ERR_NOMEM;
  }
  nb->data = mem;
  if (r->pend) {
    if (tail)
      memcpy(mem, r->pend->data + r->pend_off, tail);
    r->abs += r->pend_off;
    lm_buffer_release(r->pend);
  }
  r->pend = nb;
  r->pend_cap = cap;
  r->pend_len = tail;
  r->pend_off = 0;
  return 0;
}

int lm_ipc_stream_reader_feed(lm_ipc_stream_reader *r, const void *data,
                              size_t len, lm_error *err) {
  if (r->err_code) {
    if (err)
      *err = r->saved;
    return r->err_code;
  }
  if (r->done || len == 0)
    return 0;
  if (stream_make_room(r, len))
    return stream_fail(r, lm_err(err, LM_ERR_NOMEM, "out of memory"), err);
  memcpy(r->pend->data + r->pend_len, data, len);
  r->pend_len += len;
  lm_error local;
  lm_error *e = err ? err : &local;
  int rc = stream_pump(r, e);
  return rc ? stream_fail(r, rc, e) : 0;
}

/* One message at data[0, len): its length in *used; with `trailing`
 * false nothing may follow it. */
static int decode_one(lm_ipc_stream_reader *r, const void *data, size_t len,
                      lm_buffer *owner, size_t abs, bool trailing, size_t *used,
                      lm_batch **out, lm_error *e) {
  ipc_ctx c = {&r->lim, r->source, e, r->keep_dicts};
  const uint8_t *p = data;
  *out = NULL;
  *used = 0;
  if (!r->have_schema)
    return ipc_err(&c, LM_ERR_INVALID, abs, "no schema to decode against");
  if (len < 8)
    return ipc_err(&c, LM_ERR_PARSE, abs,
                   "truncated message (%zu bytes at the end of the input)",
                   len);
  uint32_t first = lm_fb_u32(p);
  size_t prefix = first == 0xFFFFFFFFu ? 8 : 4;
  int32_t L = (int32_t)lm_fb_u32(p + prefix - 4);
  if (L == 0)
    return ipc_err(&c, LM_ERR_PARSE, abs, "an end-of-stream marker");
  if (L < 0)
    return ipc_err(&c, LM_ERR_PARSE, abs, "negative metadata length %d",
                   (int)L);
  if (L > r->lim.max_message_bytes)
    return ipc_err(&c, LM_ERR_LIMIT, abs,
                   "metadata length %d is over the message size limit", (int)L);
  if (len - prefix < (size_t)L)
    return ipc_err(&c, LM_ERR_PARSE, abs,
                   "truncated message (%zu bytes at the end of the input)",
                   len);
  lm_fb_reader rd;
  uint8_t ht;
  lm_fb_table hdr, msg;
  int64_t blen;
  int rc = parse_message(&c, &rd, p + prefix, (size_t)L, abs + prefix, &ht,
                         &hdr, &blen, &msg);
  if (rc)
    return rc;
  size_t total = prefix + (size_t)L + (size_t)blen;
  if (total > len)
    return ipc_err(&c, LM_ERR_PARSE, abs,
                   "truncated message (%zu of %zu bytes)", len, total);
  if (total < len && !trailing)
    return ipc_err(&c, LM_ERR_PARSE, abs + total, "%zu bytes after the message",
                   len - total);
  *used = total;
  if (ht == ARROW_MSG_SCHEMA)
    return ipc_err(&c, LM_ERR_PARSE, abs, "a second Schema message");
  if (ht != ARROW_MSG_RECORD_BATCH && ht != ARROW_MSG_DICTIONARY_BATCH)
    return ipc_err(&c, LM_ERR_PARSE, abs, "unexpected message type %u", ht);
  body_ref body = {p + prefix + L, (size_t)blen, abs + prefix + (size_t)L,
                   owner, -1};
  if (ht == ARROW_MSG_DICTIONARY_BATCH)
    return stream_apply_dictionary(r, &c, &hdr, &msg, &body);
  ipc_md md;
  if ((rc = decode_batch(&c, &hdr, &r->sch, &body, out)) != 0)
    return rc;
  if ((rc = batch_md(r, &c, &msg, &md)) != 0) {
    lm_batch_release(*out);
    *out = NULL;
    return rc;
  }
  set_last(r, md);
  return 0;
}

int lm_ipc_stream_reader_decode_message(lm_ipc_stream_reader *r,
                                        const void *data, size_t len,
                                        lm_buffer *owner, size_t abs,
                                        lm_batch **out, lm_error *err) {
  lm_error local;
  size_t used;
  return decode_one(r, data, len, owner, abs, false, &used, out,
                    err ? err : &local);
}

int lm_ipc_stream_reader_decode_messages(lm_ipc_stream_reader *r,
                                         const void *data, size_t len,
                                         lm_buffer *owner, size_t abs,
                                         lm_batch **out, lm_error *err) {
  lm_error local;
  lm_error *e = err ? err : &local;
  const uint8_t *p = data;
  *out = NULL;
  size_t at = 0;
  for (;;) {
    size_t used = 0;
    lm_batch *b = NULL;
    int rc =
        decode_one(r, p + at, len - at, owner, abs + at, true, &used, &b, e);
    if (rc)
      return rc;
    at += used;
    if (b) {
      if (at < len) {
        lm_batch_release(b);
        ipc_ctx c = {&r->lim, r->source, e, r->keep_dicts};
        return ipc_err(&c, LM_ERR_PARSE, abs + at,
                       "%zu bytes after the record batch", len - at);
      }
      *out = b;
      return 0;
    }
    if (at == len) /* only dictionary batches */
      return 0;
  }
}

/* Bytes to ask for when the next message's size is not known yet. */
#define DIRECT_PROBE ((size_t)256 << 10)
/* The most a declared (not yet received) message length reserves at once. */
#define DIRECT_DECLARED ((size_t)8 << 20)

int lm_ipc_stream_reader_reserve(lm_ipc_stream_reader *r, size_t max, void **p,
                                 size_t *n, lm_error *err) {
  *p = NULL;
  *n = 0;
  if (r->err_code) {
    if (err)
      *err = r->saved;
    return r->err_code;
  }
  size_t avail = r->pend ? r->pend_len - r->pend_off : 0;
  /* the rest of the incomplete message when its size is known (so the
   * next read ends on its last byte and nothing is moved afterwards),
   * else a probe for the next header */
  size_t want = r->need > avail ? r->need - avail : DIRECT_PROBE;
  /* a declared length alone never reserves more than the bytes at hand
   * or DIRECT_DECLARED: a hostile header cannot make us allocate its
   * body, and a message of up to 8 MiB arrives in two reads (the probe,
   * then the rest) */
  if (want > LM_MAX(avail, DIRECT_DECLARED))
    want = LM_MAX(avail, DIRECT_DECLARED);
  if (want > max)
    want = max;
  if (want == 0)
    want = 1;
  if (stream_make_room(r, want))
    return stream_fail(r, lm_err(err, LM_ERR_NOMEM, "out of memory"), err);
  if (r->need <= avail) {
    /* size unknown: take what fits (at least the probe) */
    size_t room = r->pend_cap - r->pend_len;
    want = LM_MIN(LM_MAX(want, LM_MIN(room, DIRECT_PROBE)), max);
  }
  *p = r->pend->data + r->pend_len;
  *n = want;
  return 0;
}

int lm_ipc_stream_reader_commit(lm_ipc_stream_reader *r, size_t n,
                                lm_error *err) {
  if (r->err_code) {
    if (err)
      *err = r->saved;
    return r->err_code;
  }
  if (n == 0 || r->done)
    return 0;
  if (!r->pend || n > r->pend_cap - r->pend_len)
    return stream_fail(r,
                       lm_err(err, LM_ERR_INVALID,
                              "%s: commit of %zu bytes beyond the reserved "
                              "room",
                              r->source, n),
                       err);
  r->pend_len += n;
  lm_error local;
  lm_error *e = err ? err : &local;
  int rc = stream_pump(r, e);
  return rc ? stream_fail(r, rc, e) : 0;
}

int lm_ipc_stream_reader_finish(lm_ipc_stream_reader *r, lm_error *err) {
  if (r->err_code) {
    if (err)
      *err = r->saved;
    return r->err_code;
  }
  lm_error local;
  lm_error *e = err ? err : &local;
  ipc_ctx c = {&r->lim, r->source, e, r->keep_dicts};
  size_t avail = r->pend_len - r->pend_off;
  int rc = 0;
  if (!r->done && avail > 0)
    rc =
        ipc_err(&c, LM_ERR_PARSE, r->abs + r->pend_off,
                "truncated message (%zu bytes at the end of the input)", avail);
  else if (!r->have_schema)
    rc = ipc_err(&c, LM_ERR_PARSE, r->abs + r->pend_off,
                 "no Schema message in the stream");
  return rc ? stream_fail(r, rc, e) : 0;
}

lm_batch *lm_ipc_stream_reader_next(lm_ipc_stream_reader *r) {
  lm_batch *b = lm_fmt_queue_pop(&r->q);
  if (b && r->mdq_head < r->mdq_len)
    set_last(r, r->mdq[r->mdq_head++]);
  return b;
}
int lm_ipc_stream_reader_batch_metadata(const lm_ipc_stream_reader *r,
                                        const lm_ipc_kv **kv) {
  *kv = r->last.kv;
  return r->last.n;
}
int lm_ipc_stream_reader_dictionary_batches(const lm_ipc_stream_reader *r,
                                            const lm_ipc_dict_batch **db) {
  *db = r->last.db;
  return r->last.n_db;
}
int lm_ipc_stream_reader_dictionary_ids(const lm_ipc_stream_reader *r,
                                        const int64_t **ids) {
  *ids = r->have_schema ? r->sch.dict_ids : NULL;
  return r->have_schema ? r->sch.n_dict_ids : 0;
}
lm_schema *lm_ipc_stream_reader_schema(const lm_ipc_stream_reader *r) {
  if (!r->have_schema)
    return NULL;
  return r->keep_dicts ? r->sch.schema : r->sch.plain;
}

void lm_ipc_stream_reader_keep_dictionaries(lm_ipc_stream_reader *r,
                                            bool keep) {
  r->keep_dicts = keep;
}
int lm_ipc_stream_reader_metadata(const lm_ipc_stream_reader *r,
                                  const lm_ipc_kv **kv) {
  *kv = r->sch.kv;
  return r->sch.n_kv;
}
bool lm_ipc_stream_reader_done(const lm_ipc_stream_reader *r) {
  return r->done;
}
void lm_ipc_stream_reader_free(lm_ipc_stream_reader *r) {
  if (!r)
    return;
  ipc_schema_free(&r->sch);
  lm_fmt_queue_free(&r->q);
  for (size_t i = r->mdq_head; i < r->mdq_len; i++)
    md_free(&r->mdq[i]);
  free(r->mdq);
  md_free(&r->last);
  dbs_free(r->pdb, r->n_pdb);
  if (r->pend)
    lm_buffer_release(r->pend);
  free(r->source);
  free(r);
}

/* ------------------------------------------------------------ file reader */

struct lm_ipc_file_reader {
  lm_ipc_limits lim;
  char *source;
  const uint8_t *p;
  size_t len;
  size_t footer_start;
  lm_buffer *owner;
  ipc_schema sch;
  bool keep_dicts;
  const uint8_t *blocks; /* footer Block structs (inside p) */
  size_t blocks_at;      /* absolute offset of the first Block */
  int n_blocks;
  int next;
  ipc_md last; /* custom_metadata of the batch last decoded */
  /* the footer's DictionaryBatch messages (one entry per id) */
  lm_ipc_dict_batch *db;
  int n_db, cap_db;
};

/* Verifies the footer Blocks of vector v (record batches or dictionaries):
 * each must lie inside the file's data bytes. */
static int check_blocks(const ipc_ctx *c, const lm_fb_vec *v, size_t at0,
                        size_t footer_start, const char *what) {
  for (uint32_t i = 0; i < v->n; i++) {
    const uint8_t *b = lm_fb_vec_elem(v, i);
    int64_t off = lm_fb_i64(b), blen = lm_fb_i64(b + 16);
    int32_t mlen = (int32_t)lm_fb_u32(b + 8);
    if (off < 8 || mlen < 8 || blen < 0 || (uint64_t)off > footer_start ||
        (uint64_t)mlen > footer_start - (uint64_t)off ||
        (uint64_t)blen > footer_start - (uint64_t)off - (uint64_t)mlen)
      return ipc_err(c, LM_ERR_PARSE, at0 + i * ARROW_BLOCK_SIZE,
                     "%s block %u (offset %lld, metadata %d, body "
                     "%lld) lies outside the file's %zu data bytes",
                     what, i, (long long)off, (int)mlen, (long long)blen,
                     footer_start);
  }
  return 0;
}

/* Verifies the message a (checked) Block b describes and returns its
 * header, which must be of type `want`, and its body. rd must outlive hdr. */
static int block_message(const lm_ipc_file_reader *r, const ipc_ctx *c,
                         const uint8_t *b, const char *what, int i,
                         uint8_t want, lm_fb_reader *rd, lm_fb_table *hdr,
                         body_ref *body, lm_fb_table *msg) {
  size_t off = (size_t)lm_fb_i64(b);
  size_t mlen = (size_t)(int32_t)lm_fb_u32(b + 8);
  const uint8_t *p = r->p + off;
  size_t prefix = 4;
  int32_t L = (int32_t)lm_fb_u32(p);
  if (lm_fb_u32(p) == 0xFFFFFFFFu) {
    prefix = 8;
    L = (int32_t)lm_fb_u32(p + 4);
  }
  if (L <= 0 || (size_t)L > mlen - prefix)
    return ipc_err(c, LM_ERR_PARSE, off,
                   "message metadata length %d does not fit its block (%zu "
                   "bytes)",
                   (int)L, mlen);
  uint8_t ht;
  int64_t blen;
  int rc = parse_message(c, rd, p + prefix, (size_t)L, off + prefix, &ht, hdr,
                         &blen, msg);
  if (rc)
    return rc;
  if (ht != want)
    return ipc_err(c, LM_ERR_PARSE, off,
                   "footer %s block %d is not a %s (message type %u)", what, i,
                   what, ht);
  if ((uint64_t)blen > r->footer_start - off - mlen)
    return ipc_err(c, LM_ERR_PARSE, off,
                   "%s body of %lld bytes runs into the footer", what,
                   (long long)blen);
  body_ref br = {p + mlen, (size_t)blen, off + mlen, r->owner, -1};
  *body = br;
  return 0;
}

int lm_ipc_file_open_memory(const void *data, size_t len, lm_buffer *owner,
                            const lm_ipc_limits *limits,
                            const char *source_name, lm_ipc_file_reader **out,
                            lm_error *err) {
  *out = NULL;
  lm_ipc_file_reader *r = calloc(1, sizeof *r);
  if (!r)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  limits_fill(&r->lim, limits);
  r->source = lm_strdup(source_name ? source_name : "<input>");
  if (!r->source) {
    free(r);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  r->p = data;
  r->len = len;
  if (owner)
    r->owner = lm_buffer_retain(owner);
  ipc_ctx c = {&r->lim, r->source, err, r->keep_dicts};
  int rc;
  const uint8_t *p = data;
  if (len < 18 || memcmp(p, ARROW_MAGIC, 6) != 0) {
    rc = ipc_err(&c, LM_ERR_PARSE, 0,
                 len < 18 ? "file of %zu bytes is too short for Arrow IPC"
                          : "not an Arrow IPC file (no ARROW1 magic; %zu "
                            "bytes)",
                 len);
    goto fail;
  }
  if (memcmp(p + len - 6, ARROW_MAGIC, 6) != 0) {
    rc = ipc_err(&c, LM_ERR_PARSE, len - 6,
                 "no trailing ARROW1 magic (truncated file?)");
    goto fail;
  }
  int32_t flen = (int32_t)lm_fb_u32(p + len - 10);
  if (flen <= 0 || (size_t)flen > len - 18) {
    rc = ipc_err(&c, LM_ERR_PARSE, len - 10,
                 "footer length %d does not fit the file of %zu bytes",
                 (int)flen, len);
    goto fail;
  }
  if (flen > r->lim.max_message_bytes) {
    rc = ipc_err(&c, LM_ERR_LIMIT, len - 10,
                 "footer length %d is over the message size limit", (int)flen);
    goto fail;
  }
  r->footer_start = len - 10 - (size_t)flen;
  lm_fb_reader rd = {p + r->footer_start, (size_t)flen, r->footer_start,
                     r->source, err};
  lm_fb_table footer, st;
  bool present;
  lm_fb_vec rbs, dicts;
  if ((rc = lm_fb_root(&rd, &footer)) != 0 ||
      (rc = lm_fb_get_table(&footer, FOOTER_SCHEMA, &st, &present)) != 0)
    goto fail;
  if (!present) {
    rc = ipc_err(&c, LM_ERR_PARSE, r->footer_start, "footer without a schema");
    goto fail;
  }
  if ((rc = decode_schema(&c, &st, &r->sch)) != 0 ||
      (rc = lm_fb_get_vector(&footer, FOOTER_RECORD_BATCHES, ARROW_BLOCK_SIZE,
                             &rbs)) != 0 ||
      (rc = lm_fb_get_vector(&footer, FOOTER_DICTIONARIES, ARROW_BLOCK_SIZE,
                             &dicts)) != 0)
    goto fail;
  if (rbs.n > INT32_MAX / 2 || dicts.n > INT32_MAX / 2) {
    rc = ipc_err(&c, LM_ERR_LIMIT, r->footer_start + rbs.pos,
                 "too many record batches (%u)", rbs.n);
    goto fail;
  }
  r->blocks = rd.p + rbs.pos;
  r->blocks_at = r->footer_start + rbs.pos;
  r->n_blocks = (int)rbs.n;
  if ((rc = check_blocks(&c, &rbs, r->blocks_at, r->footer_start,
                         "record batch")) != 0 ||
      (rc = check_blocks(&c, &dicts, r->footer_start + dicts.pos,
                         r->footer_start, "dictionary batch")) != 0)
    goto fail;
  /* dictionaries (and deltas) in footer order, before any record batch */
  for (uint32_t i = 0; i < dicts.n; i++) {
    lm_fb_reader drd;
    lm_fb_table hdr, msg;
    body_ref body;
    if ((rc = block_message(
             r, &c, lm_fb_vec_elem(&dicts, i), "dictionary batch", (int)i,
             ARROW_MSG_DICTIONARY_BATCH, &drd, &hdr, &body, &msg)) != 0 ||
        (rc = apply_dictionary(&c, &r->sch, &hdr, &body, true)) != 0 ||
        (rc = record_dict_batch(&c, &hdr, &msg, &r->db, &r->n_db,
                                &r->cap_db)) != 0)
      goto fail;
  }
  *out = r;
  return 0;
fail:
  lm_ipc_file_reader_free(r);
  return rc;
}

static void release_free(lm_buffer *b) {
  free(b->data);
}
static void release_munmap(lm_buffer *b) {
  munmap(b->data, b->size);
}

int lm_ipc_file_open(const char *path, const lm_ipc_limits *limits,
                     lm_ipc_file_reader **out, lm_error *err) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return lm_err(err, LM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  lm_buffer *owner = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      owner = lm_buffer_wrap(m, (size_t)st.st_size, release_munmap, NULL);
      if (!owner)
        munmap(m, (size_t)st.st_size);
    }
  }
  close(fd);
  if (!owner) {
    char *text;
    size_t n;
    int rc = lm_read_file(path, &text, &n, err);
    if (rc)
      return rc;
    owner = lm_buffer_wrap(text, n, release_free, NULL);
    if (!owner) {
      free(text);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  }
  int rc = lm_ipc_file_open_memory(owner->data, owner->size, owner, limits,
                                   path, out, err);
  lm_buffer_release(owner);
  return rc;
}

int lm_ipc_file_num_batches(const lm_ipc_file_reader *r) {
  return r->n_blocks;
}

int lm_ipc_file_read_batch(lm_ipc_file_reader *r, int i, lm_batch **out,
                           lm_error *err) {
  *out = NULL;
  ipc_ctx c = {&r->lim, r->source, err, r->keep_dicts};
  if (i < 0 || i >= r->n_blocks)
    return lm_err(err, LM_ERR_INVALID, "%s: no record batch %d (of %d)",
                  r->source, i, r->n_blocks);
  lm_fb_reader rd;
  lm_fb_table hdr, msg;
  body_ref body;
  int rc = block_message(r, &c, r->blocks + (size_t)i * ARROW_BLOCK_SIZE,
                         "record batch", i, ARROW_MSG_RECORD_BATCH, &rd, &hdr,
                         &body, &msg);
  if (rc)
    return rc;
  ipc_md md;
  if ((rc = read_message_md(&c, &msg, &md)) != 0)
    return rc;
  if ((rc = decode_batch(&c, &hdr, &r->sch, &body, out)) != 0) {
    md_free(&md);
    return rc;
  }
  md_free(&r->last);
  r->last = md;
  return 0;
}

int lm_ipc_file_dictionary_batches(const lm_ipc_file_reader *r,
                                   const lm_ipc_dict_batch **db) {
  *db = r->db;
  return r->n_db;
}

int lm_ipc_file_dictionary_ids(const lm_ipc_file_reader *r,
                               const int64_t **ids) {
  *ids = r->sch.dict_ids;
  return r->sch.n_dict_ids;
}

int lm_ipc_file_batch_metadata(const lm_ipc_file_reader *r,
                               const lm_ipc_kv **kv) {
  *kv = r->last.kv;
  return r->last.n;
}

int lm_ipc_file_next(lm_ipc_file_reader *r, lm_batch **out, lm_error *err) {
  *out = NULL;
  if (r->next >= r->n_blocks)
    return 0;
  int rc = lm_ipc_file_read_batch(r, r->next, out, err);
  if (rc == 0)
    r->next++;
  return rc;
}

lm_schema *lm_ipc_file_schema(const lm_ipc_file_reader *r) {
  return r->keep_dicts ? r->sch.schema : r->sch.plain;
}

void lm_ipc_file_reader_keep_dictionaries(lm_ipc_file_reader *r, bool keep) {
  r->keep_dicts = keep;
}
int lm_ipc_file_metadata(const lm_ipc_file_reader *r, const lm_ipc_kv **kv) {
  *kv = r->sch.kv;
  return r->sch.n_kv;
}

void lm_ipc_file_reader_free(lm_ipc_file_reader *r) {
  if (!r)
    return;
  ipc_schema_free(&r->sch);
  md_free(&r->last);
  dbs_free(r->db, r->n_db);
  if (r->owner)
    lm_buffer_release(r->owner);
  free(r->source);
  free(r);
}
