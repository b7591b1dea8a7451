/* columnar/builder.c — growable column builders producing lm_arrays. */
#include "columnar/lm_columnar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LM_BUILDER_MIN_ROWS 32
#define LM_BUILDER_MIN_DATA 256
/* After finish, a builder pre-allocates at most this much for the next
 * batch (same capacity as before, bounded). */
#define LM_BUILDER_KEEP_ROWS 65536
#define LM_BUILDER_KEEP_DATA (1 << 20)

static inline size_t round64(size_t n) {
  return (n + (LM_ALIGN - 1)) & ~(size_t)(LM_ALIGN - 1);
}

/* Bytes the values buffer needs for `rows` rows. */
static size_t values_bytes(lm_type t, int64_t rows) {
  switch (t.id) {
  case LM_TYPE_NULL:
    return 0;
  case LM_TYPE_BOOL:
    return (size_t)((rows + 7) / 8);
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LIST:
    return (size_t)(rows + 1) * 4;
  default:
    return (size_t)rows * (size_t)lm_type_width(t);
  }
}

static inline size_t bitmap_bytes(int64_t rows) {
  return (size_t)((rows + 7) / 8);
}

/* Moves `used` bytes of *p into a fresh allocation of `bytes` (padded to 64);
 * when `zero`, the tail beyond `used` is zero-filled. */
static int regrow(uint8_t **p, size_t used, size_t bytes, bool zero) {
  uint8_t *q = lm_aligned_alloc(bytes);
  if (!q)
    return LM_ERR_NOMEM;
  if (used)
    memcpy(q, *p, used);
  if (zero)
    memset(q + used, 0, round64(bytes ? bytes : 1) - used);
  lm_aligned_free(*p);
  *p = q;
  return LM_OK;
}

/* Builders make flat arrays with int32 offsets: not LARGE_UTF8,
 * LARGE_BINARY or the nested types (kernels build those directly). */
static bool type_supported(lm_type t) {
  if (!lm_type_valid(t))
    return false;
  switch (t.id) {
  case LM_TYPE_LIST: /* of a flat item type: a child builder */
    return type_supported(t.node->children[0].type) &&
           !lm_type_is_nested(t.node->children[0].type);
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_LARGE_LIST:
  case LM_TYPE_STRUCT:
  case LM_TYPE_DICTIONARY:
    return false;
  default:
    return true;
  }
}

/* UTF8 and BINARY share the offsets + data layout in builders. */
static inline bool is_str(lm_type t) {
  return t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_BINARY;
}
/* int32 offsets in values: UTF8, BINARY and LIST (into the child). */
static inline bool has_offsets(lm_type t) {
  return is_str(t) || t.id == LM_TYPE_LIST;
}

int lm_builder_init(lm_builder *b, lm_type type, int64_t capacity_hint) {
  memset(b, 0, sizeof *b);
  b->type = type;
  if (!type_supported(type))
    return LM_ERR_INVALID;
  if (capacity_hint > 0) {
    if (lm_builder_grow(b, capacity_hint)) {
      lm_builder_free(b);
      b->type = type;
      return LM_ERR_NOMEM;
    }
    if (is_str(type) && lm_builder_grow_data(b, capacity_hint * 8)) {
      lm_builder_free(b);
      b->type = type;
      return LM_ERR_NOMEM;
    }
  }
  return LM_OK;
}

void lm_builder_free(lm_builder *b) {
  if (b->child) {
    lm_builder_free(b->child);
    free(b->child);
  }
  lm_aligned_free(b->validity);
  lm_aligned_free(b->values);
  lm_aligned_free(b->data);
  lm_type t = b->type;
  memset(b, 0, sizeof *b);
  b->type = t;
}

int lm_builder_grow(lm_builder *b, int64_t extra) {
  if (b->oom)
    return LM_ERR_NOMEM;
  if (extra < 0 || extra > INT64_MAX / 2 - b->length)
    goto oom;
  int64_t need = b->length + extra;
  if (need <= b->capacity)
    return LM_OK;
  int64_t cap = b->capacity * 2;
  if (cap < need)
    cap = need;
  if (cap < LM_BUILDER_MIN_ROWS)
    cap = LM_BUILDER_MIN_ROWS;
  if (cap < b->keep_rows)
    cap = b->keep_rows;
  if ((uint64_t)cap > SIZE_MAX / 16)
    goto oom;
  lm_type t = b->type;
  if (t.id != LM_TYPE_NULL) {
    bool first = b->values == NULL;
    size_t used = b->capacity ? values_bytes(t, b->length) : 0;
    if (has_offsets(t) && b->capacity)
      used = (size_t)(b->length + 1) * 4;
    if (regrow(&b->values, used, values_bytes(t, cap), t.id == LM_TYPE_BOOL))
      goto oom;
    if (has_offsets(t) && first)
      ((int32_t *)b->values)[0] = 0;
  }
  if (b->validity) {
    if (regrow(&b->validity, bitmap_bytes(b->length), bitmap_bytes(cap), true))
      goto oom;
  }
  b->capacity = cap;
  return LM_OK;
oom:
  b->oom = true;
  return LM_ERR_NOMEM;
}

int lm_builder_grow_data(lm_builder *b, int64_t extra_bytes) {
  if (b->oom)
    return LM_ERR_NOMEM;
  if (extra_bytes < 0 || extra_bytes > INT32_MAX - b->data_len)
    goto oom;
  int64_t need = b->data_len + extra_bytes;
  if (need <= b->data_cap && b->data)
    return LM_OK;
  int64_t cap = b->data_cap * 2;
  if (cap < need)
    cap = need;
  if (cap < LM_BUILDER_MIN_DATA)
    cap = LM_BUILDER_MIN_DATA;
  if (cap < b->keep_data)
    cap = b->keep_data;
  if (cap > INT32_MAX)
    cap = INT32_MAX;
  if (regrow(&b->data, (size_t)b->data_len, (size_t)cap, false))
    goto oom;
  b->data_cap = cap;
  return LM_OK;
oom:
  b->oom = true;
  return LM_ERR_NOMEM;
}

int lm_builder_ensure_validity(lm_builder *b) {
  if (b->validity)
    return LM_OK;
  if (b->oom)
    return LM_ERR_NOMEM;
  size_t bytes = bitmap_bytes(b->capacity);
  uint8_t *v = lm_aligned_alloc(bytes);
  if (!v) {
    b->oom = true;
    return LM_ERR_NOMEM;
  }
  size_t full = (size_t)(b->length >> 3);
  memset(v, 0xff, full);
  memset(v + full, 0, round64(bytes ? bytes : 1) - full);
  if (b->length & 7)
    v[full] = (uint8_t)((1u << (b->length & 7)) - 1);
  b->validity = v;
  return LM_OK;
}

/* Ensures room for one more row; false on OOM. */
static inline bool room1(lm_builder *b) {
  return b->length < b->capacity || lm_builder_grow(b, 1) == 0;
}

static inline void commit_valid(lm_builder *b) {
  if (b->validity)
    lm_bit_set(b->validity, b->length);
  b->length++;
}

void lm_builder_append_null(lm_builder *b) {
  if (!room1(b))
    return;
  if (!b->validity && lm_builder_ensure_validity(b))
    return;
  int64_t n = b->length;
  if (has_offsets(b->type)) {
    ((int32_t *)b->values)[n + 1] = ((int32_t *)b->values)[n];
  } else if (b->type.id != LM_TYPE_NULL && b->type.id != LM_TYPE_BOOL) {
    /* bool bits beyond length are always zero */
    size_t w = (size_t)lm_type_width(b->type);
    memset(b->values + (size_t)n * w, 0, w);
  }
  b->length++;
  b->null_count++;
}

void lm_builder_append_bool(lm_builder *b, bool v) {
  if (b->type.id != LM_TYPE_BOOL) {
    lm_builder_append_int(b, v);
    return;
  }
  if (!room1(b))
    return;
  if (v)
    lm_bit_set(b->values, b->length);
  commit_valid(b);
}

void lm_builder_append_int(lm_builder *b, int64_t v) {
  if (!room1(b))
    return;
  int64_t n = b->length;
  switch (b->type.id) {
  case LM_TYPE_INT8:
    ((int8_t *)b->values)[n] = (int8_t)v;
    break;
  case LM_TYPE_INT16:
    ((int16_t *)b->values)[n] = (int16_t)v;
    break;
  case LM_TYPE_INT32:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
    ((int32_t *)b->values)[n] = (int32_t)v;
    break;
  case LM_TYPE_UINT8:
    ((uint8_t *)b->values)[n] = (uint8_t)v;
    break;
  case LM_TYPE_UINT16:
    ((uint16_t *)b->values)[n] = (uint16_t)v;
    break;
  case LM_TYPE_UINT32:
    ((uint32_t *)b->values)[n] = (uint32_t)v;
    break;
  case LM_TYPE_INT64:
  case LM_TYPE_UINT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    ((int64_t *)b->values)[n] = v;
    break;
  case LM_TYPE_FLOAT16:
    ((uint16_t *)b->values)[n] = lm_double_to_half((double)v);
    break;
  case LM_TYPE_FLOAT32:
    ((float *)b->values)[n] = (float)v;
    break;
  case LM_TYPE_FLOAT64:
    ((double *)b->values)[n] = (double)v;
    break;
  case LM_TYPE_BOOL:
    if (v)
      lm_bit_set(b->values, n);
    break;
  default: /* NULL / UTF8: not an integer column */
    lm_builder_append_null(b);
    return;
  }
  commit_valid(b);
}

static inline int64_t double_to_i64(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
    if (isnan(d))
      return 0;
    return d < 0 ? INT64_MIN : INT64_MAX;
  }
  return (int64_t)d;
}

void lm_builder_append_double(lm_builder *b, double v) {
  switch (b->type.id) {
  case LM_TYPE_FLOAT64:
    if (!room1(b))
      return;
    ((double *)b->values)[b->length] = v;
    commit_valid(b);
    return;
  case LM_TYPE_FLOAT32:
    if (!room1(b))
      return;
    ((float *)b->values)[b->length] = (float)v;
    commit_valid(b);
    return;
  case LM_TYPE_FLOAT16:
    if (!room1(b))
      return;
    ((uint16_t *)b->values)[b->length] = lm_double_to_half(v);
    commit_valid(b);
    return;
  case LM_TYPE_BOOL:
    lm_builder_append_bool(b, v != 0);
    return;
  default:
    lm_builder_append_int(b, double_to_i64(v));
    return;
  }
}

void lm_builder_append_str(lm_builder *b, const char *p, int32_t len) {
  if (!is_str(b->type)) {
    lm_builder_append_null(b);
    return;
  }
  if (len < 0)
    len = 0;
  lm_builder_append_str_fast(b, p, len);
}

lm_builder *lm_builder_list_items(lm_builder *b) {
  if (b->type.id != LM_TYPE_LIST || !room1(b))
    return NULL;
  if (!b->child) {
    b->child = malloc(sizeof *b->child);
    if (!b->child ||
        lm_builder_init(b->child, b->type.node->children[0].type, 0)) {
      free(b->child);
      b->child = NULL;
      b->oom = true;
      return NULL;
    }
  }
  return b->child;
}

void lm_builder_list_end(lm_builder *b) {
  if (!b->child || b->oom)
    return;
  if (b->child->length > INT32_MAX || b->child->oom) {
    b->oom = true;
    return;
  }
  ((int32_t *)b->values)[b->length + 1] = (int32_t)b->child->length;
  commit_valid(b);
}

/* LIST builder b: appends row i of LIST array a (items converted to b's
 * item type as lm_builder_append_from does). */
static void append_list(lm_builder *b, const lm_array *a, int64_t i) {
  if (a->type.id != LM_TYPE_LIST && a->type.id != LM_TYPE_LARGE_LIST) {
    lm_builder_append_null(b);
    return;
  }
  lm_builder *items = lm_builder_list_items(b);
  if (!items)
    return;
  int64_t s, e;
  lm_array_list_range(a, i, &s, &e);
  for (int64_t k = s; k < e; k++)
    lm_builder_append_from(items, a->children[0], k);
  lm_builder_list_end(b);
}

void lm_builder_append_value(lm_builder *b, const lm_value *v) {
  if (v->is_null || v->type.id == LM_TYPE_NULL) {
    lm_builder_append_null(b);
    return;
  }
  if (b->type.id == LM_TYPE_LIST) {
    if (v->v.ref.a &&
        (v->type.id == LM_TYPE_LIST || v->type.id == LM_TYPE_LARGE_LIST))
      append_list(b, v->v.ref.a, v->v.ref.i);
    else
      lm_builder_append_null(b);
    return;
  }
  lm_type_id src = v->type.id;
  if (lm_type_eq(v->type, b->type) &&
      (src == LM_TYPE_DECIMAL128 || src == LM_TYPE_INTERVAL_MDN ||
       src == LM_TYPE_FIXED_SIZE_BINARY || src == LM_TYPE_BINARY)) {
    if (src == LM_TYPE_BINARY) {
      lm_builder_append_str_fast(b, v->v.s.p, v->v.s.len);
      return;
    }
    if (!room1(b))
      return;
    size_t w = (size_t)lm_type_width(b->type);
    const void *p = src == LM_TYPE_FIXED_SIZE_BINARY ? (const void *)v->v.s.p
                    : src == LM_TYPE_DECIMAL128      ? (const void *)&v->v.d128
                                                     : (const void *)&v->v.mdn;
    if (src == LM_TYPE_INTERVAL_MDN) {
      uint8_t raw[16];
      memcpy(raw, &v->v.mdn.months, 4);
      memcpy(raw + 4, &v->v.mdn.days, 4);
      memcpy(raw + 8, &v->v.mdn.ns, 8);
      memcpy(b->values + (size_t)b->length * w, raw, 16);
    } else if (src == LM_TYPE_DECIMAL128) {
      memcpy(b->values + (size_t)b->length * w, &v->v.d128.lo, 8);
      memcpy(b->values + (size_t)b->length * w + 8, &v->v.d128.hi, 8);
    } else if (w) {
      memcpy(b->values + (size_t)b->length * w, p, w);
    }
    commit_valid(b);
    return;
  }
  if (lm_type_is_nested(v->type) || src == LM_TYPE_DECIMAL128 ||
      src == LM_TYPE_INTERVAL_MDN || src == LM_TYPE_FIXED_SIZE_BINARY ||
      src == LM_TYPE_BINARY || src == LM_TYPE_LARGE_BINARY ||
      src == LM_TYPE_LARGE_UTF8) {
    if (b->type.id == LM_TYPE_UTF8 && src == LM_TYPE_LARGE_UTF8) {
      lm_builder_append_str_fast(b, v->v.s.p, v->v.s.len);
      return;
    }
    if (b->type.id != LM_TYPE_UTF8) {
      lm_builder_append_null(b); /* no conversion */
      return;
    }
  }
  if (b->type.id == LM_TYPE_UTF8) {
    if (src == LM_TYPE_UTF8) {
      lm_builder_append_str_fast(b, v->v.s.p, v->v.s.len);
      return;
    }
    lm_buf tmp;
    lm_buf_init(&tmp);
    if (lm_value_format(&tmp, v, "") != 0) {
      b->oom = true;
    } else {
      lm_builder_append_str_fast(b, tmp.data ? tmp.data : "", (int32_t)tmp.len);
    }
    lm_buf_free(&tmp);
    return;
  }
  switch (src) {
  case LM_TYPE_BOOL:
    if (b->type.id == LM_TYPE_BOOL)
      lm_builder_append_bool(b, v->v.b);
    else
      lm_builder_append_int(b, v->v.b ? 1 : 0);
    return;
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    lm_builder_append_double(b, v->v.f);
    return;
  case LM_TYPE_UTF8:
    lm_builder_append_null(b); /* no implicit text -> number parse here */
    return;
  case LM_TYPE_UINT64:
    if (b->type.id == LM_TYPE_FLOAT32 || b->type.id == LM_TYPE_FLOAT64 ||
        b->type.id == LM_TYPE_FLOAT16)
      lm_builder_append_double(b, (double)(uint64_t)v->v.i);
    else
      lm_builder_append_int(b, v->v.i);
    return;
  default:
    if (b->type.id == LM_TYPE_FLOAT32 || b->type.id == LM_TYPE_FLOAT64 ||
        b->type.id == LM_TYPE_FLOAT16)
      lm_builder_append_double(b, (double)v->v.i);
    else if (b->type.id == LM_TYPE_BOOL)
      lm_builder_append_bool(b, v->v.i != 0);
    else
      lm_builder_append_int(b, v->v.i);
    return;
  }
}

void lm_builder_append_from(lm_builder *b, const lm_array *a, int64_t i) {
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i)) {
    lm_builder_append_null(b);
    return;
  }
  if (b->type.id == LM_TYPE_LIST) {
    append_list(b, a, i);
    return;
  }
  if (!lm_type_eq(a->type, b->type) &&
      (a->type.id != b->type.id || lm_type_width(a->type) > 8 ||
       a->type.id == LM_TYPE_FIXED_SIZE_BINARY)) {
    lm_value v;
    lm_array_get_value(a, i, &v);
    lm_builder_append_value(b, &v);
    return;
  }
  switch (b->type.id) {
  case LM_TYPE_BINARY: {
    int64_t len;
    const uint8_t *p = lm_array_bytes(a, i, &len);
    lm_builder_append_str_fast(b, (const char *)p, (int32_t)len);
    return;
  }
  case LM_TYPE_FLOAT16:
  case LM_TYPE_DECIMAL128:
  case LM_TYPE_INTERVAL_MDN:
  case LM_TYPE_FIXED_SIZE_BINARY: {
    if (!room1(b))
      return;
    size_t w = (size_t)lm_type_width(b->type);
    if (w)
      memcpy(b->values + (size_t)b->length * w,
             a->values->data + (size_t)(a->offset + i) * w, w);
    commit_valid(b);
    return;
  }
  case LM_TYPE_BOOL:
    lm_builder_append_bool(b, lm_array_bool(a, i));
    return;
  case LM_TYPE_UTF8: {
    int32_t len;
    const char *p = lm_array_str(a, i, &len);
    lm_builder_append_str_fast(b, p, len);
    return;
  }
  case LM_TYPE_FLOAT32:
    lm_builder_append_double(b, lm_array_f32(a)[i]);
    return;
  case LM_TYPE_FLOAT64:
    lm_builder_append_f64_fast(b, lm_array_f64(a)[i]);
    return;
  case LM_TYPE_INT64:
  case LM_TYPE_UINT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    lm_builder_append_i64_fast(b, lm_array_i64(a)[i]);
    return;
  default:
    lm_builder_append_int(b, lm_array_get_i64(a, i));
    return;
  }
}

/* Wraps our own 64-aligned memory (allocation of round64(bytes)) in a
 * buffer; zero-fills the padding after `size`. */
static lm_buffer *adopt(uint8_t *mem, size_t size, size_t alloc_bytes) {
  lm_buffer *buf = malloc(sizeof *buf);
  if (!buf)
    return NULL;
  size_t cap = round64(alloc_bytes ? alloc_bytes : 1);
  size_t pad = round64(size ? size : 1);
  if (pad > cap)
    pad = cap;
  if (pad > size)
    memset(mem + size, 0, pad - size);
  buf->refcnt = 1;
  buf->data = mem;
  buf->size = size;
  buf->capacity = cap;
  buf->release = NULL;
  buf->owner = NULL;
  return buf;
}

static void reset_after_finish(lm_builder *b, int64_t old_cap,
                               int64_t old_data_cap) {
  lm_type t = b->type;
  memset(b, 0, sizeof *b);
  b->type = t;
  /* no allocation here: a builder finished then freed (the common case)
   * would pay a malloc and a free per batch; the first append of a reused
   * one grows to these at once */
  b->keep_rows = LM_MIN(old_cap, (int64_t)LM_BUILDER_KEEP_ROWS);
  if (is_str(t))
    b->keep_data = LM_MIN(old_data_cap, (int64_t)LM_BUILDER_KEEP_DATA);
}

/* A LIST builder's array: offsets, validity and the child's items. */
static int finish_list(lm_builder *b, lm_array **out) {
  int64_t n = b->length, old_cap = b->capacity;
  lm_type t = b->type;
  lm_array *items = NULL;
  if (b->child) {
    if (lm_builder_finish(b->child, &items))
      goto oom;
  } else if (!(items = lm_array_new_null(t.node->children[0].type, 0))) {
    goto oom;
  }
  lm_buffer *off = b->values ? adopt(b->values, values_bytes(t, n),
                                     values_bytes(t, b->capacity))
                             : lm_buffer_new(values_bytes(t, 0));
  if (!off) {
    lm_array_release(items);
    goto oom;
  }
  b->values = NULL;
  lm_buffer *valid = NULL;
  if (b->null_count > 0) {
    valid = adopt(b->validity, bitmap_bytes(n), bitmap_bytes(b->capacity));
    if (!valid) {
      lm_buffer_release(off);
      lm_array_release(items);
      goto oom;
    }
    b->validity = NULL;
  }
  *out =
      lm_array_new(t, n, b->null_count, 0, valid, off, NULL, 1, &items, NULL);
  lm_builder_free(b);
  reset_after_finish(b, old_cap, 0);
  return *out ? LM_OK : LM_ERR_NOMEM;
oom:
  lm_builder_free(b);
  reset_after_finish(b, 0, 0);
  return LM_ERR_NOMEM;
}

int lm_builder_finish(lm_builder *b, lm_array **out) {
  *out = NULL;
  int64_t old_cap = b->capacity, old_data_cap = b->data_cap;
  if (b->oom) {
    lm_builder_free(b);
    reset_after_finish(b, 0, 0);
    return LM_ERR_NOMEM;
  }
  if (b->type.id == LM_TYPE_LIST)
    return finish_list(b, out);
  lm_type t = b->type;
  int64_t n = b->length;
  lm_array *a = lm_aligned_calloc(sizeof *a);
  if (!a)
    goto oom;
  a->refcnt = 1;
  a->type = t;
  a->length = n;
  a->null_count = b->null_count;

  /* values */
  if (t.id != LM_TYPE_NULL) {
    if (!b->values) {
      /* never grown: length is 0 */
      a->values = lm_buffer_new(values_bytes(t, 0));
      if (!a->values)
        goto oom;
    } else {
      a->values =
          adopt(b->values, values_bytes(t, n), values_bytes(t, b->capacity));
      if (!a->values)
        goto oom;
      b->values = NULL;
    }
  }
  if (is_str(t)) {
    if (!b->data) {
      a->data = lm_buffer_new(0);
      if (!a->data)
        goto oom;
    } else {
      a->data = adopt(b->data, (size_t)b->data_len, (size_t)b->data_cap);
      if (!a->data)
        goto oom;
      b->data = NULL;
    }
  }
  if (b->null_count > 0) {
    a->validity =
        adopt(b->validity, bitmap_bytes(n), bitmap_bytes(b->capacity));
    if (!a->validity)
      goto oom;
    b->validity = NULL;
  }
  lm_builder_free(b); /* frees an unused validity bitmap, if any */
  reset_after_finish(b, old_cap, old_data_cap);
  *out = a;
  return LM_OK;
oom:
  lm_array_release(a);
  lm_builder_free(b);
  reset_after_finish(b, 0, 0);
  return LM_ERR_NOMEM;
}

void lm_builder_truncate(lm_builder *b, int64_t len) {
  if (len < 0 || len >= b->length)
    return;
  for (int64_t i = len; i < b->length; i++) {
    if (b->validity) {
      if (!lm_bit_get(b->validity, i))
        b->null_count--;
      lm_bit_clear(b->validity, i);
    }
    if (b->type.id == LM_TYPE_BOOL) /* bits beyond length stay zero */
      lm_bit_clear(b->values, i);
  }
  if (is_str(b->type))
    b->data_len = ((int32_t *)b->values)[len];
  if (b->type.id == LM_TYPE_LIST && b->child)
    lm_builder_truncate(b->child, ((int32_t *)b->values)[len]);
  b->length = len;
}
