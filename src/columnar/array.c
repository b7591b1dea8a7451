/* columnar/array.c — refcounted arrays: slices, all-NULL arrays, accessors. */
#include "columnar/lm_columnar.h"
#include "columnar/lm_decimal.h"
#include "columnar/lm_jsonb_ord.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t lm_bitmap_count_set(const uint8_t *bits, int64_t off, int64_t len) {
  if (len <= 0)
    return 0;
  int64_t count = 0;
  int64_t i = off, end = off + len;
  /* leading bits up to a byte boundary */
  while (i < end && (i & 7)) {
    count += lm_bit_get(bits, i);
    i++;
  }
  /* whole 64-bit words, then whole bytes */
  const uint8_t *p = bits + (i >> 3);
  int64_t nbytes = (end - i) >> 3;
  int64_t k = 0;
  for (; k + 8 <= nbytes; k += 8) {
    uint64_t w;
    memcpy(&w, p + k, 8);
    count += __builtin_popcountll(w);
  }
  for (; k < nbytes; k++)
    count += __builtin_popcount(p[k]);
  i += nbytes * 8;
  while (i < end) {
    count += lm_bit_get(bits, i);
    i++;
  }
  return count;
}

lm_array *lm_array_retain(lm_array *a) {
  if (a)
    __atomic_fetch_add(&a->refcnt, 1, __ATOMIC_RELAXED);
  return a;
}

void lm_array_release(lm_array *a) {
  if (!a || __atomic_sub_fetch(&a->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  lm_buffer_release(a->validity);
  lm_buffer_release(a->values);
  lm_buffer_release(a->data);
  for (int i = 0; i < a->n_children; i++)
    lm_array_release(a->children[i]);
  free(a->children);
  lm_array_release(a->dictionary);
  lm_aligned_free(a); /* recycled (lm_aligned_calloc) */
}

lm_array *lm_array_new(lm_type t, int64_t length, int64_t null_count,
                       int64_t offset, lm_buffer *validity, lm_buffer *values,
                       lm_buffer *data, int n_children, lm_array **children,
                       lm_array *dictionary) {
  lm_array *a = lm_aligned_calloc(sizeof *a);
  lm_array **kids =
      n_children > 0 ? lm_calloc((size_t)n_children, sizeof *kids) : NULL;
  if (!a || (n_children > 0 && !kids)) {
    free(a);
    free(kids);
    lm_buffer_release(validity);
    lm_buffer_release(values);
    lm_buffer_release(data);
    for (int i = 0; i < n_children; i++)
      lm_array_release(children[i]);
    lm_array_release(dictionary);
    return NULL;
  }
  a->refcnt = 1;
  a->type = t;
  a->length = length;
  a->null_count = null_count;
  a->offset = offset;
  a->validity = validity;
  a->values = values;
  a->data = data;
  if (n_children > 0)
    memcpy(kids, children, (size_t)n_children * sizeof *kids);
  a->n_children = n_children > 0 ? n_children : 0;
  a->children = kids;
  a->dictionary = dictionary;
  return a;
}

lm_array *lm_array_slice(lm_array *a, int64_t off, int64_t len) {
  if (!a || off < 0 || len < 0 || off > a->length || len > a->length - off)
    return NULL;
  lm_array *s = lm_aligned_calloc(sizeof *s);
  if (!s)
    return NULL;
  if (a->n_children > 0) {
    s->children = lm_calloc((size_t)a->n_children, sizeof *s->children);
    if (!s->children) {
      free(s);
      return NULL;
    }
    for (int i = 0; i < a->n_children; i++)
      s->children[i] = lm_array_retain(a->children[i]);
    s->n_children = a->n_children;
  }
  s->dictionary = lm_array_retain(a->dictionary);
  s->refcnt = 1;
  s->type = a->type;
  s->length = len;
  s->offset = a->offset + off;
  s->values = lm_buffer_retain(a->values);
  s->data = lm_buffer_retain(a->data);
  s->validity = NULL;
  s->null_count = 0;
  if (a->type.id == LM_TYPE_NULL) {
    s->null_count = len;
    s->validity = lm_buffer_retain(a->validity);
  } else if (a->validity && a->null_count > 0) {
    if (a->null_count == a->length) {
      s->null_count = len;
    } else {
      s->null_count =
          len - lm_bitmap_count_set(a->validity->data, s->offset, len);
    }
    if (s->null_count > 0)
      s->validity = lm_buffer_retain(a->validity);
  }
  return s;
}

/* Bytes of one offset of a variable-size type (4 or 8), 0 otherwise. */
static int offset_width(lm_type_id id) {
  switch (id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LIST:
    return 4;
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_LARGE_LIST:
    return 8;
  default:
    return 0;
  }
}

lm_array *lm_array_new_null(lm_type t, int64_t length) {
  if (length < 0 || !lm_type_valid(t))
    return NULL;
  lm_array *a = lm_aligned_calloc(sizeof *a);
  if (!a)
    return NULL;
  a->refcnt = 1;
  a->type = t;
  a->length = length;
  a->null_count = length;
  size_t bitmap = (size_t)((length + 7) / 8);
  a->validity = lm_buffer_new(bitmap);
  if (!a->validity)
    goto oom;
  int w = lm_type_width(t), ow = offset_width(t.id);
  if (ow) {
    a->values = lm_buffer_new((size_t)(length + 1) * (size_t)ow);
    if (!a->values)
      goto oom;
    if (t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST) {
      a->children = lm_calloc(1, sizeof *a->children);
      if (!a->children)
        goto oom;
      a->n_children = 1;
      a->children[0] = lm_array_new_null(t.node->children[0].type, 0);
      if (!a->children[0])
        goto oom;
    } else {
      a->data = lm_buffer_new(0);
      if (!a->data)
        goto oom;
    }
  } else if (t.id == LM_TYPE_BOOL) {
    a->values = lm_buffer_new(bitmap);
    if (!a->values)
      goto oom;
  } else if (t.id == LM_TYPE_STRUCT) {
    int n = t.node->n_children;
    if (n > 0) {
      a->children = lm_calloc((size_t)n, sizeof *a->children);
      if (!a->children)
        goto oom;
      a->n_children = n;
      for (int i = 0; i < n; i++) {
        a->children[i] = lm_array_new_null(t.node->children[i].type, length);
        if (!a->children[i])
          goto oom;
      }
    }
  } else if (t.id == LM_TYPE_DICTIONARY) {
    a->values = lm_buffer_new((size_t)length *
                              (size_t)lm_type_width(lm_type_dict_index(t)));
    a->dictionary = lm_array_new_null(lm_type_dict_value(t), 0);
    if (!a->values || !a->dictionary)
      goto oom;
  } else if (w > 0 || t.id == LM_TYPE_FIXED_SIZE_BINARY) {
    a->values = lm_buffer_new((size_t)length * (size_t)w);
    if (!a->values)
      goto oom;
  }
  return a;
oom:
  lm_array_release(a);
  return NULL;
}

int64_t lm_array_dict_index(const lm_array *a, int64_t i) {
  const uint8_t *p = a->values->data;
  int64_t k = a->offset + i;
  switch (a->type.node->index) {
  case LM_TYPE_INT8:
    return ((const int8_t *)p)[k];
  case LM_TYPE_UINT8:
    return p[k];
  case LM_TYPE_INT16:
    return ((const int16_t *)(const void *)p)[k];
  case LM_TYPE_UINT16:
    return ((const uint16_t *)(const void *)p)[k];
  case LM_TYPE_INT32:
    return ((const int32_t *)(const void *)p)[k];
  case LM_TYPE_UINT32:
    return ((const uint32_t *)(const void *)p)[k];
  default: /* INT64, UINT64 (validated to be < the dictionary length) */
    return ((const int64_t *)(const void *)p)[k];
  }
}

void lm_array_list_range(const lm_array *a, int64_t i, int64_t *start,
                         int64_t *end) {
  int64_t k = a->offset + i;
  if (a->type.id == LM_TYPE_LARGE_LIST) {
    const int64_t *o = (const int64_t *)(const void *)a->values->data;
    *start = o[k];
    *end = o[k + 1];
  } else {
    const int32_t *o = (const int32_t *)(const void *)a->values->data;
    *start = o[k];
    *end = o[k + 1];
  }
}

const uint8_t *lm_array_bytes(const lm_array *a, int64_t i, int64_t *len) {
  int64_t k = a->offset + i;
  switch (a->type.id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY: {
    const int32_t *o = (const int32_t *)(const void *)a->values->data;
    *len = o[k + 1] - o[k];
    return a->data->data + o[k];
  }
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY: {
    const int64_t *o = (const int64_t *)(const void *)a->values->data;
    *len = o[k + 1] - o[k];
    return a->data->data + o[k];
  }
  case LM_TYPE_FIXED_SIZE_BINARY: {
    int w = lm_type_width(a->type);
    *len = w;
    return a->values ? a->values->data + (size_t)k * (size_t)w
                     : (const uint8_t *)"";
  }
  default:
    *len = 0;
    return (const uint8_t *)"";
  }
}

bool lm_array_row_equal(const lm_array *a, int64_t i, int64_t j) {
  bool ni = lm_array_is_null(a, i), nj = lm_array_is_null(a, j);
  if (ni || nj)
    return ni == nj;
  if (i == j)
    return true;
  switch (a->type.id) {
  case LM_TYPE_NULL:
    return true;
  case LM_TYPE_BOOL:
    return lm_array_bool(a, i) == lm_array_bool(a, j);
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_FIXED_SIZE_BINARY: {
    int64_t li, lj;
    const uint8_t *pi = lm_array_bytes(a, i, &li),
                  *pj = lm_array_bytes(a, j, &lj);
    return li == lj && (li == 0 || memcmp(pi, pj, (size_t)li) == 0);
  }
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST: {
    int64_t si, ei, sj, ej;
    lm_array_list_range(a, i, &si, &ei);
    lm_array_list_range(a, j, &sj, &ej);
    if (ei - si != ej - sj)
      return false;
    for (int64_t k = 0; k < ei - si; k++)
      if (!lm_array_row_equal(a->children[0], si + k, sj + k))
        return false;
    return true;
  }
  case LM_TYPE_STRUCT:
    for (int k = 0; k < a->n_children; k++)
      if (!lm_array_row_equal(a->children[k], a->offset + i, a->offset + j))
        return false;
    return true;
  case LM_TYPE_DICTIONARY: {
    int64_t di = lm_array_dict_index(a, i), dj = lm_array_dict_index(a, j);
    return di == dj || lm_array_row_equal(a->dictionary, di, dj);
  }
  default: {
    int w = lm_type_width(a->type);
    const uint8_t *p = a->values->data;
    return memcmp(p + (size_t)(a->offset + i) * (size_t)w,
                  p + (size_t)(a->offset + j) * (size_t)w, (size_t)w) == 0;
  }
  }
}

static int cmp_dec(lm_i128 p, int sp, lm_i128 q, int sq) {
  if (sp != sq) { /* at the larger scale; an overflow there decides by sign */
    int s = sp > sq ? sp : sq;
    lm_i128 p2, q2;
    bool op = lm_dec_rescale(p, sp, s, &p2) != 0,
         oq = lm_dec_rescale(q, sq, s, &q2) != 0;
    if (op != oq)
      return op ? (p < 0 ? -1 : 1) : (q < 0 ? 1 : -1);
    if (!op) {
      p = p2;
      q = q2;
    }
  }
  return p < q ? -1 : p > q;
}

int lm_array_cmp(const lm_array *a, int64_t x, const lm_array *b, int64_t y) {
  if (a->type.id == LM_TYPE_DICTIONARY)
    return lm_array_cmp(a->dictionary, lm_array_dict_index(a, x), b, y);
  if (b->type.id == LM_TYPE_DICTIONARY)
    return lm_array_cmp(a, x, b->dictionary, lm_array_dict_index(b, y));
  switch (a->type.id) {
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double p = lm_array_get_f64(a, x), q = lm_array_get_f64(b, y);
    if (isnan(p) || isnan(q)) /* NaN above every number, as PostgreSQL */
      return isnan(p) && isnan(q) ? 0 : isnan(p) ? 1 : -1;
    return p < q ? -1 : p > q;
  }
  case LM_TYPE_DECIMAL128:
    return cmp_dec(lm_dec_get(a, x), a->type.scale, lm_dec_get(b, y),
                   b->type.id == LM_TYPE_DECIMAL128 ? b->type.scale
                                                    : a->type.scale);
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_FIXED_SIZE_BINARY: {
    int64_t pl, ql;
    const uint8_t *p = lm_array_bytes(a, x, &pl),
                  *q = lm_array_bytes(b, y, &ql);
    /* jsonb: PostgreSQL's jsonb_cmp (lm_jsonb_ord.h) */
    if (lm_type_is_jsonb(a->type) && lm_type_is_jsonb(b->type))
      return lm_jsonb_cmp((const char *)p, (size_t)pl, (const char *)q,
                          (size_t)ql);
    /* CHAR(n): trailing spaces do not count (PostgreSQL's bpcharcmp) */
    if (lm_type_is_bpchar(a->type) || lm_type_is_bpchar(b->type)) {
      while (pl > 0 && p[pl - 1] == ' ')
        pl--;
      while (ql > 0 && q[ql - 1] == ' ')
        ql--;
    }
    int64_t m = pl < ql ? pl : ql;
    int c = m ? memcmp(p, q, (size_t)m) : 0;
    if (!c)
      return pl < ql ? -1 : pl > ql;
    return c < 0 ? -1 : 1;
  }
  case LM_TYPE_BOOL:
    return (int)lm_array_bool(a, x) - (int)lm_array_bool(b, y);
  case LM_TYPE_UINT64: {
    uint64_t p = (uint64_t)lm_array_get_i64(a, x),
             q = (uint64_t)lm_array_get_i64(b, y);
    return p < q ? -1 : p > q;
  }
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST: {
    /* PostgreSQL's array_cmp: item by item (a NULL item above every
     * value, NULLs equal), then the shorter array first */
    int64_t s1, e1, s2, e2;
    lm_array_list_range(a, x, &s1, &e1);
    lm_array_list_range(b, y, &s2, &e2);
    const lm_array *ca = a->children[0], *cb = b->children[0];
    for (; s1 < e1 && s2 < e2; s1++, s2++) {
      bool n1 = ca->type.id == LM_TYPE_NULL || lm_array_is_null(ca, s1),
           n2 = cb->type.id == LM_TYPE_NULL || lm_array_is_null(cb, s2);
      if (n1 || n2) {
        if (n1 != n2)
          return n1 ? 1 : -1;
        continue;
      }
      int c = lm_array_cmp(ca, s1, cb, s2);
      if (c)
        return c;
    }
    return s1 < e1 ? 1 : s2 < e2 ? -1 : 0;
  }
  case LM_TYPE_INTERVAL_MDN: {
    lm_value p, q;
    lm_array_get_value(a, x, &p);
    lm_array_get_value(b, y, &q);
    /* span in ns as PostgreSQL's interval_cmp_value (month = 30 days) */
    lm_i128 sp = ((lm_i128)p.v.mdn.months * 30 + p.v.mdn.days) *
                     (lm_i128)86400000000000LL +
                 p.v.mdn.ns,
            sq = ((lm_i128)q.v.mdn.months * 30 + q.v.mdn.days) *
                     (lm_i128)86400000000000LL +
                 q.v.mdn.ns;
    return sp < sq ? -1 : sp > sq;
  }
  default: {
    int64_t p = lm_array_get_i64(a, x), q = lm_array_get_i64(b, y);
    return p < q ? -1 : p > q;
  }
  }
}

int64_t lm_array_get_i64(const lm_array *a, int64_t i) {
  const uint8_t *p = a->values ? a->values->data : NULL;
  int64_t k = a->offset + i;
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    return lm_array_bool(a, i);
  case LM_TYPE_INT8:
    return lm_array_i8(a)[i];
  case LM_TYPE_INT16:
    return lm_array_i16(a)[i];
  case LM_TYPE_INT32:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
    return lm_array_i32(a)[i];
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
  case LM_TYPE_UINT64:
    return lm_array_i64(a)[i];
  case LM_TYPE_UINT8:
    return p[k];
  case LM_TYPE_UINT16:
    return ((const uint16_t *)(const void *)p)[k];
  case LM_TYPE_UINT32:
    return ((const uint32_t *)(const void *)p)[k];
  case LM_TYPE_FLOAT32: {
    float f = lm_array_f32(a)[i];
    if (!(f >= -9223372036854775808.0f && f < 9223372036854775808.0f))
      return 0;
    return (int64_t)f;
  }
  case LM_TYPE_FLOAT64: {
    double f = lm_array_f64(a)[i];
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
      return 0;
    return (int64_t)f;
  }
  case LM_TYPE_DICTIONARY:
    return lm_array_get_i64(a->dictionary, lm_array_dict_index(a, i));
  default:
    return 0;
  }
}

double lm_half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0)
    v = ldexp(frac, -24);
  else if (exp == 31)
    v = frac ? NAN : INFINITY;
  else
    v = ldexp(frac | 0x400, exp - 25);
  return sign ? -v : v;
}

double lm_array_get_f64(const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_FLOAT64:
    return lm_array_f64(a)[i];
  case LM_TYPE_FLOAT32:
    return lm_array_f32(a)[i];
  case LM_TYPE_FLOAT16:
    return lm_half_to_double(
        ((const uint16_t *)(const void *)a->values->data)[a->offset + i]);
  case LM_TYPE_UINT64:
    return (double)(uint64_t)lm_array_get_i64(a, i);
  case LM_TYPE_DICTIONARY:
    return lm_array_get_f64(a->dictionary, lm_array_dict_index(a, i));
  case LM_TYPE_BOOL:
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    return (double)lm_array_get_i64(a, i);
  default:
    return 0.0;
  }
}

void lm_array_get_value(const lm_array *a, int64_t i, lm_value *out) {
  memset(out, 0, sizeof *out);
  out->type = a->type;
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i)) {
    if (a->type.id == LM_TYPE_DICTIONARY)
      out->type = lm_type_dict_value(a->type);
    out->is_null = true;
    return;
  }
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    out->v.b = lm_array_bool(a, i);
    break;
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    out->v.i = lm_array_get_i64(a, i);
    break;
  case LM_TYPE_FLOAT16:
    out->v.f = lm_array_get_f64(a, i);
    break;
  case LM_TYPE_FLOAT32:
    out->v.f = lm_array_f32(a)[i];
    break;
  case LM_TYPE_FLOAT64:
    out->v.f = lm_array_f64(a)[i];
    break;
  case LM_TYPE_UTF8:
    out->v.s.p = lm_array_str(a, i, &out->v.s.len);
    break;
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_FIXED_SIZE_BINARY: {
    int64_t len;
    out->v.s.p = (const char *)lm_array_bytes(a, i, &len);
    out->v.s.len = len > INT32_MAX ? INT32_MAX : (int32_t)len;
    break;
  }
  case LM_TYPE_DECIMAL128: {
    const uint8_t *p = a->values->data + (size_t)(a->offset + i) * 16;
    memcpy(&out->v.d128.lo, p, 8);
    memcpy(&out->v.d128.hi, p + 8, 8);
    break;
  }
  case LM_TYPE_INTERVAL_MDN: {
    const uint8_t *p = a->values->data + (size_t)(a->offset + i) * 16;
    memcpy(&out->v.mdn.months, p, 4);
    memcpy(&out->v.mdn.days, p + 4, 4);
    memcpy(&out->v.mdn.ns, p + 8, 8);
    break;
  }
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST:
  case LM_TYPE_STRUCT:
    out->v.ref.a = a;
    out->v.ref.i = i;
    break;
  case LM_TYPE_DICTIONARY:
    lm_array_get_value(a->dictionary, lm_array_dict_index(a, i), out);
    break;
  default:
    out->is_null = true;
    break;
  }
}

lm_array *lm_array_dictionary_decode(const lm_array *a) {
  if (a->type.id != LM_TYPE_DICTIONARY)
    return lm_array_retain((lm_array *)(uintptr_t)a);
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(a->length + 1));
  if (!idx)
    return NULL;
  bool nulls = false;
  for (int64_t i = 0; i < a->length; i++) {
    if (lm_array_is_null(a, i)) {
      idx[i] = -1;
      nulls = true;
    } else {
      idx[i] = (int32_t)lm_array_dict_index(a, i);
    }
  }
  (void)nulls;
  lm_array *r = lm_array_take_nullable(a->dictionary, idx, a->length);
  free(idx);
  return r;
}

uint16_t lm_double_to_half(double d) {
  float f = (float)d;
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  uint32_t mant = x & 0x7fffff;
  if (exp == 255) /* inf / nan */
    return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31)
    return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10)
      return (uint16_t)sign;
    mant |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    h++; /* may carry into the exponent: still correct (up to inf) */
  return (uint16_t)(sign | h);
}
