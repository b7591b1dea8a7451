/* columnar/array.c — refcounted arrays: slices, all-NULL arrays, accessors. */
#include "columnar/lm_columnar.h"

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
  free(a);
}

lm_array *lm_array_slice(lm_array *a, int64_t off, int64_t len) {
  if (!a || off < 0 || len < 0 || off > a->length || len > a->length - off)
    return NULL;
  lm_array *s = malloc(sizeof *s);
  if (!s)
    return NULL;
  s->refcnt = 1;
  s->type = a->type;
  s->length = len;
  s->offset = a->offset + off;
  s->values = lm_buffer_retain(a->values);
  s->data = lm_buffer_retain(a->data);
  s->validity = NULL;
  s->null_count = 0;
  if (a->validity && a->null_count > 0) {
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

lm_array *lm_array_new_null(lm_type t, int64_t length) {
  if (length < 0)
    return NULL;
  lm_array *a = calloc(1, sizeof *a);
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
  int w = lm_type_width(t);
  if (t.id == LM_TYPE_UTF8) {
    a->values = lm_buffer_new((size_t)(length + 1) * 4);
    a->data = lm_buffer_new(0);
    if (!a->values || !a->data)
      goto oom;
  } else if (t.id == LM_TYPE_BOOL) {
    a->values = lm_buffer_new(bitmap);
    if (!a->values)
      goto oom;
  } else if (w > 0) {
    a->values = lm_buffer_new((size_t)length * (size_t)w);
    if (!a->values)
      goto oom;
  }
  return a;
oom:
  lm_array_release(a);
  return NULL;
}

int64_t lm_array_get_i64(const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    return lm_array_bool(a, i);
  case LM_TYPE_INT8:
    return lm_array_i8(a)[i];
  case LM_TYPE_INT16:
    return lm_array_i16(a)[i];
  case LM_TYPE_INT32:
    return lm_array_i32(a)[i];
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
    return lm_array_i64(a)[i];
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
  default:
    return 0;
  }
}

double lm_array_get_f64(const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_FLOAT64:
    return lm_array_f64(a)[i];
  case LM_TYPE_FLOAT32:
    return lm_array_f32(a)[i];
  case LM_TYPE_BOOL:
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
    return (double)lm_array_get_i64(a, i);
  default:
    return 0.0;
  }
}

void lm_array_get_value(const lm_array *a, int64_t i, lm_value *out) {
  memset(out, 0, sizeof *out);
  out->type = a->type;
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i)) {
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
    out->v.i = lm_array_get_i64(a, i);
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
  default:
    out->is_null = true;
    break;
  }
}
