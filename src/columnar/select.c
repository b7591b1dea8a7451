/* columnar/select.c — type-generic gather (take) and concatenation of
 * arrays, for every type including nested ones (used by exec/kernels.c,
 * the IPC reader's dictionary deltas and lm_array_dictionary_decode). */
#include "columnar/lm_columnar.h"

#include <stdlib.h>
#include <string.h>

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

static inline int64_t load_off(const uint8_t *p, int ow, int64_t k) {
  if (ow == 4)
    return ((const int32_t *)(const void *)p)[k];
  return ((const int64_t *)(const void *)p)[k];
}

static inline void store_off(uint8_t *p, int ow, int64_t k, int64_t v) {
  if (ow == 4)
    ((int32_t *)(void *)p)[k] = (int32_t)v;
  else
    ((int64_t *)(void *)p)[k] = v;
}

/* Byte width of the values buffer entries of fixed-width-like types
 * (dictionary indices included); 0 otherwise. */
static int value_width(lm_type t) {
  if (t.id == LM_TYPE_DICTIONARY)
    return lm_type_width(lm_type_dict_index(t));
  return lm_type_width(t);
}

static bool row_valid(const lm_array *a, int64_t i) {
  return a->type.id != LM_TYPE_NULL && !lm_array_is_null(a, i);
}

lm_array *lm_array_take_nullable(const lm_array *a, const int32_t *idx,
                                 int64_t n) {
  if (n < 0)
    return NULL;
  lm_type t = a->type;
  if (t.id == LM_TYPE_NULL)
    return lm_array_new_null(t, n);
  /* validity */
  lm_buffer *validity = NULL;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++)
    nulls += idx[i] < 0 || !row_valid(a, idx[i]);
  if (nulls > 0) {
    validity = lm_buffer_new((size_t)((n + 7) / 8));
    if (!validity)
      return NULL;
    for (int64_t i = 0; i < n; i++)
      if (idx[i] >= 0 && row_valid(a, idx[i]))
        lm_bit_set(validity->data, i);
  }
  lm_buffer *values = NULL, *data = NULL;
  lm_array *kids[1] = {NULL};
  lm_array **children = NULL;
  int n_children = 0;
  lm_array *dict = NULL;
  int ow = offset_width(t.id), w = value_width(t);
  if (t.id == LM_TYPE_BOOL) {
    values = lm_buffer_new((size_t)((n + 7) / 8));
    if (!values)
      goto oom;
    for (int64_t i = 0; i < n; i++)
      if (idx[i] >= 0 && lm_array_bool(a, idx[i]))
        lm_bit_set(values->data, i);
  } else if (ow && t.id != LM_TYPE_LIST && t.id != LM_TYPE_LARGE_LIST) {
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0)
        continue;
      int64_t k = a->offset + idx[i];
      bytes += load_off(a->values->data, ow, k + 1) -
               load_off(a->values->data, ow, k);
    }
    if (ow == 4 && bytes > INT32_MAX)
      goto oom;
    values = lm_buffer_new((size_t)(n + 1) * (size_t)ow);
    data = lm_buffer_new((size_t)bytes);
    if (!values || !data)
      goto oom;
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] >= 0) {
        int64_t k = a->offset + idx[i];
        int64_t o0 = load_off(a->values->data, ow, k),
                o1 = load_off(a->values->data, ow, k + 1);
        if (o1 > o0)
          memcpy(data->data + pos, a->data->data + o0, (size_t)(o1 - o0));
        pos += o1 - o0;
      }
      store_off(values->data, ow, i + 1, pos);
    }
  } else if (ow) { /* LIST, LARGE_LIST */
    int64_t items = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0)
        continue;
      int64_t s, e;
      lm_array_list_range(a, idx[i], &s, &e);
      items += e - s;
    }
    if (items > INT32_MAX)
      goto oom;
    values = lm_buffer_new((size_t)(n + 1) * (size_t)ow);
    int32_t *cidx = malloc(sizeof(int32_t) * (size_t)(items + 1));
    if (!values || !cidx) {
      free(cidx);
      goto oom;
    }
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] >= 0) {
        int64_t s, e;
        lm_array_list_range(a, idx[i], &s, &e);
        for (int64_t k = s; k < e; k++)
          cidx[pos++] = (int32_t)k;
      }
      store_off(values->data, ow, i + 1, pos);
    }
    kids[0] = lm_array_take_nullable(a->children[0], cidx, items);
    free(cidx);
    if (!kids[0])
      goto oom;
    children = kids;
    n_children = 1;
  } else if (t.id == LM_TYPE_STRUCT) {
    n_children = a->n_children;
    children = calloc((size_t)n_children + 1, sizeof *children);
    if (!children)
      goto oom;
    for (int c = 0; c < n_children; c++) {
      lm_array *s = lm_array_slice(a->children[c], a->offset, a->length);
      children[c] = s ? lm_array_take_nullable(s, idx, n) : NULL;
      lm_array_release(s);
      if (!children[c]) {
        for (int j = 0; j < c; j++)
          lm_array_release(children[j]);
        free(children);
        children = NULL;
        goto oom;
      }
    }
  } else if (w > 0 || t.id == LM_TYPE_FIXED_SIZE_BINARY) {
    values = lm_buffer_new((size_t)n * (size_t)w);
    if (!values)
      goto oom;
    if (w > 0) {
      const uint8_t *src = a->values->data + (size_t)a->offset * (size_t)w;
      uint8_t *dst = values->data;
      if (w == 8) {
        for (int64_t i = 0; i < n; i++)
          if (idx[i] >= 0)
            memcpy(dst + i * 8, src + (size_t)idx[i] * 8, 8);
      } else {
        for (int64_t i = 0; i < n; i++)
          if (idx[i] >= 0)
            memcpy(dst + i * w, src + (size_t)idx[i] * (size_t)w, (size_t)w);
      }
    }
    if (t.id == LM_TYPE_DICTIONARY)
      dict = lm_array_retain(a->dictionary);
  }
  lm_array *r = lm_array_new(t, n, nulls, 0, validity, values, data, n_children,
                             children, dict);
  if (children && children != kids)
    free(children);
  return r;
oom:
  lm_buffer_release(validity);
  lm_buffer_release(values);
  lm_buffer_release(data);
  lm_array_release(kids[0]);
  return NULL;
}

/* ------------------------------------------------------------- concat */

static void copy_bits(uint8_t *dst, int64_t doff, const uint8_t *src,
                      int64_t soff, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (lm_bit_get(src, soff + i))
      lm_bit_set(dst, doff + i);
}

/* Concatenates n arrays of one type whose dictionaries (if any) have
 * already been made the same. */
static lm_array *concat_rec(lm_array *const *arrs, int n, lm_error *err);

/* Slices of each array's child c covering the rows in use. */
static lm_array *concat_children(lm_array *const *arrs, int n, int c, bool list,
                                 lm_error *err) {
  lm_array **parts = calloc((size_t)n + 1, sizeof *parts);
  if (!parts) {
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  lm_array *r = NULL;
  int made = 0;
  for (; made < n; made++) {
    const lm_array *a = arrs[made];
    int64_t s = a->offset, len = a->length;
    if (list) {
      int64_t e = s;
      if (a->length > 0) {
        lm_array_list_range(a, 0, &s, &e);
        int64_t s2, e2;
        lm_array_list_range(a, a->length - 1, &s2, &e2);
        e = e2;
      } else {
        s = 0;
      }
      len = e - s;
    }
    parts[made] = lm_array_slice(a->children[c], s, len);
    if (!parts[made]) {
      lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
  }
  r = concat_rec(parts, n, err);
done:
  for (int i = 0; i < made; i++)
    lm_array_release(parts[i]);
  free(parts);
  return r;
}

static lm_array *concat_rec(lm_array *const *arrs, int n, lm_error *err) {
  lm_type t = arrs[0]->type;
  int64_t total = 0, nulls = 0;
  for (int i = 0; i < n; i++) {
    total += arrs[i]->length;
    nulls += arrs[i]->type.id == LM_TYPE_NULL ? arrs[i]->length
                                              : arrs[i]->null_count;
  }
  if (t.id == LM_TYPE_NULL) {
    lm_array *r = lm_array_new_null(t, total);
    if (!r)
      lm_err(err, LM_ERR_NOMEM, "out of memory");
    return r;
  }
  lm_buffer *validity = NULL, *values = NULL, *data = NULL;
  lm_array *kid = NULL, **children = NULL;
  int n_children = 0;
  if (nulls > 0) {
    validity = lm_buffer_new((size_t)((total + 7) / 8));
    if (!validity)
      goto oom;
    int64_t pos = 0;
    for (int i = 0; i < n; i++) {
      const lm_array *a = arrs[i];
      if (a->null_count == 0 || !a->validity)
        for (int64_t k = 0; k < a->length; k++)
          lm_bit_set(validity->data, pos + k);
      else
        copy_bits(validity->data, pos, a->validity->data, a->offset, a->length);
      pos += a->length;
    }
  }
  int ow = offset_width(t.id), w = value_width(t);
  if (t.id == LM_TYPE_BOOL) {
    values = lm_buffer_new((size_t)((total + 7) / 8));
    if (!values)
      goto oom;
    int64_t pos = 0;
    for (int i = 0; i < n; i++) {
      copy_bits(values->data, pos, arrs[i]->values->data, arrs[i]->offset,
                arrs[i]->length);
      pos += arrs[i]->length;
    }
  } else if (ow) {
    bool list = t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST;
    int64_t bytes = 0;
    for (int i = 0; i < n; i++) {
      const lm_array *a = arrs[i];
      if (a->length > 0)
        bytes += load_off(a->values->data, ow, a->offset + a->length) -
                 load_off(a->values->data, ow, a->offset);
    }
    if (ow == 4 && bytes > INT32_MAX) {
      lm_err(err, LM_ERR_LIMIT,
             "concatenation of %s arrays exceeds 2^31 - 1 %s", lm_type_name(t),
             list ? "items" : "bytes");
      goto fail;
    }
    values = lm_buffer_new((size_t)(total + 1) * (size_t)ow);
    if (!values)
      goto oom;
    if (!list && !(data = lm_buffer_new((size_t)bytes)))
      goto oom;
    int64_t pos = 0, row = 0;
    for (int i = 0; i < n; i++) {
      const lm_array *a = arrs[i];
      if (a->length == 0)
        continue;
      int64_t first = load_off(a->values->data, ow, a->offset);
      for (int64_t k = 1; k <= a->length; k++)
        store_off(values->data, ow, row + k,
                  pos + load_off(a->values->data, ow, a->offset + k) - first);
      int64_t len =
          load_off(a->values->data, ow, a->offset + a->length) - first;
      if (!list && len > 0)
        memcpy(data->data + pos, a->data->data + first, (size_t)len);
      pos += len;
      row += a->length;
    }
    if (list) {
      kid = concat_children(arrs, n, 0, true, err);
      if (!kid)
        goto fail;
      children = &kid;
      n_children = 1;
    }
  } else if (t.id == LM_TYPE_STRUCT) {
    n_children = arrs[0]->n_children;
    children = calloc((size_t)n_children + 1, sizeof *children);
    if (!children)
      goto oom;
    for (int c = 0; c < n_children; c++) {
      children[c] = concat_children(arrs, n, c, false, err);
      if (!children[c]) {
        for (int j = 0; j < c; j++)
          lm_array_release(children[j]);
        free(children);
        children = NULL;
        goto fail;
      }
    }
  } else if (w > 0 || t.id == LM_TYPE_FIXED_SIZE_BINARY) {
    values = lm_buffer_new((size_t)total * (size_t)w);
    if (!values)
      goto oom;
    int64_t pos = 0;
    for (int i = 0; i < n && w > 0; i++) {
      const lm_array *a = arrs[i];
      if (a->length)
        memcpy(values->data + (size_t)pos * (size_t)w,
               a->values->data + (size_t)a->offset * (size_t)w,
               (size_t)a->length * (size_t)w);
      pos += a->length;
    }
  }
  lm_array *dict =
      t.id == LM_TYPE_DICTIONARY ? lm_array_retain(arrs[0]->dictionary) : NULL;
  lm_array *r = lm_array_new(t, total, nulls, 0, validity, values, data,
                             n_children, children, dict);
  if (children && children != &kid)
    free(children);
  if (!r)
    lm_err(err, LM_ERR_NOMEM, "out of memory");
  return r;
oom:
  lm_err(err, LM_ERR_NOMEM, "out of memory");
fail:
  lm_buffer_release(validity);
  lm_buffer_release(values);
  lm_buffer_release(data);
  lm_array_release(kid);
  return NULL;
}

/* DICTIONARY inputs with different dictionaries: one dictionary (the
 * concatenation of the distinct ones, in order) and indices rebased onto
 * it. *out_arrs gets new references. */
static int unify_dictionaries(lm_array *const *arrs, int n, lm_array **out,
                              lm_error *err) {
  lm_type t = arrs[0]->type;
  lm_type it = lm_type_dict_index(t);
  int w = lm_type_width(it);
  lm_array **dicts = calloc((size_t)n + 1, sizeof *dicts);
  int64_t *base = calloc((size_t)n + 1, sizeof *base);
  int nd = 0;
  int rc = 0;
  if (!dicts || !base) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < i && arrs[j]->dictionary != arrs[i]->dictionary)
      j++;
    if (j < i) {
      base[i] = base[j];
      continue;
    }
    base[i] = total;
    dicts[nd++] = arrs[i]->dictionary;
    total += arrs[i]->dictionary->length;
  }
  int64_t max = it.id == LM_TYPE_INT8     ? INT8_MAX
                : it.id == LM_TYPE_UINT8  ? UINT8_MAX
                : it.id == LM_TYPE_INT16  ? INT16_MAX
                : it.id == LM_TYPE_UINT16 ? UINT16_MAX
                : it.id == LM_TYPE_INT32  ? INT32_MAX
                : it.id == LM_TYPE_UINT32 ? UINT32_MAX
                                          : INT64_MAX;
  if (total - 1 > max) {
    rc = lm_err(err, LM_ERR_LIMIT,
                "concatenated dictionaries hold %lld entries, more than the "
                "%s index type can address",
                (long long)total, lm_type_name(it));
    goto done;
  }
  lm_error e = {0};
  lm_array *ud = concat_rec(dicts, nd, &e);
  if (!ud) {
    rc = lm_err(err, e.code ? e.code : LM_ERR_NOMEM, "%s", e.msg);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    const lm_array *a = arrs[i];
    lm_buffer *v = lm_buffer_new((size_t)a->length * (size_t)w);
    if (!v) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      lm_array_release(ud);
      goto done;
    }
    for (int64_t k = 0; k < a->length; k++) {
      int64_t x =
          lm_array_is_null(a, k) ? 0 : lm_array_dict_index(a, k) + base[i];
      memcpy(v->data + k * w, &x, (size_t)w); /* little-endian narrowing */
    }
    out[i] = lm_array_new(t, a->length, a->null_count, 0, NULL, v, NULL, 0,
                          NULL, lm_array_retain(ud));
    if (out[i] && a->null_count > 0) {
      lm_buffer *vb = lm_buffer_new((size_t)((a->length + 7) / 8));
      if (vb) {
        copy_bits(vb->data, 0, a->validity->data, a->offset, a->length);
        out[i]->validity = vb;
      } else {
        lm_array_release(out[i]);
        out[i] = NULL;
      }
    }
    if (!out[i]) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      lm_array_release(ud);
      goto done;
    }
  }
  lm_array_release(ud);
done:
  free(dicts);
  free(base);
  return rc;
}

lm_array *lm_array_concat(lm_array *const *arrs, int n, lm_error *err) {
  if (n <= 0) {
    lm_err(err, LM_ERR_INVALID, "nothing to concatenate");
    return NULL;
  }
  for (int i = 1; i < n; i++)
    if (!lm_type_eq(arrs[i]->type, arrs[0]->type)) {
      lm_err(err, LM_ERR_INVALID, "cannot concatenate %s and %s arrays",
             lm_type_name(arrs[0]->type), lm_type_name(arrs[i]->type));
      return NULL;
    }
  if (n == 1)
    return lm_array_retain(arrs[0]);
  if (arrs[0]->type.id == LM_TYPE_DICTIONARY) {
    bool same = true;
    for (int i = 1; i < n; i++)
      same = same && arrs[i]->dictionary == arrs[0]->dictionary;
    if (!same) {
      lm_array **u = calloc((size_t)n, sizeof *u);
      if (!u) {
        lm_err(err, LM_ERR_NOMEM, "out of memory");
        return NULL;
      }
      lm_array *r = NULL;
      if (unify_dictionaries(arrs, n, u, err) == 0)
        r = concat_rec(u, n, err);
      for (int i = 0; i < n; i++)
        lm_array_release(u[i]);
      free(u);
      return r;
    }
  }
  return concat_rec(arrs, n, err);
}

/* ------------------------------------------------------ undictionary */

lm_array *lm_array_undictionary(const lm_array *a) {
  lm_type t = a->type;
  if (t.id == LM_TYPE_DICTIONARY) {
    if (a->dictionary->length > INT32_MAX)
      return NULL;
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)(a->length + 1));
    if (!idx)
      return NULL;
    for (int64_t i = 0; i < a->length; i++)
      idx[i] = lm_array_is_null(a, i) ? -1 : (int32_t)lm_array_dict_index(a, i);
    lm_array *r = lm_array_take_nullable(a->dictionary, idx, a->length);
    free(idx);
    if (!r)
      return NULL;
    lm_array *p = lm_array_undictionary(r);
    lm_array_release(r);
    return p;
  }
  if (t.id != LM_TYPE_LIST && t.id != LM_TYPE_LARGE_LIST &&
      t.id != LM_TYPE_STRUCT)
    return lm_array_retain((lm_array *)(uintptr_t)a);
  int n = a->n_children;
  lm_array **kids = calloc((size_t)n + 1, sizeof *kids);
  lm_type_field *tf = calloc((size_t)n + 1, sizeof *tf);
  lm_array *r = NULL;
  bool changed = false;
  int made = 0;
  if (!kids || !tf)
    goto done;
  for (; made < n; made++) {
    kids[made] = lm_array_undictionary(a->children[made]);
    if (!kids[made])
      goto done;
    changed = changed || kids[made] != a->children[made];
    tf[made] = t.node->children[made];
    tf[made].type = kids[made]->type;
  }
  if (!changed) {
    r = lm_array_retain((lm_array *)(uintptr_t)a);
    goto done;
  }
  lm_type nt;
  if (t.id == LM_TYPE_STRUCT ? lm_type_struct(n, tf, &nt)
                             : lm_type_list(t.id, tf, &nt))
    goto done;
  r = lm_array_new(nt, a->length, a->null_count, a->offset,
                   lm_buffer_retain(a->validity), lm_buffer_retain(a->values),
                   lm_buffer_retain(a->data), n, kids, NULL);
  made = 0; /* references taken */
done:
  for (int i = 0; i < made; i++)
    lm_array_release(kids[i]);
  free(kids);
  free(tf);
  return r;
}
