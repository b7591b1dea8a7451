/*
 * exec/op_join.c — the plumbing shared by the join operators (lm_join.h):
 * lm_op_join_new (dispatch by algorithm), the side callbacks, watermarks,
 * the compact row store and key table (op_join_internal.h), output batch
 * assembly with NULL padding and __weight, the vectorized residual, and
 * state accounting. The algorithms live in op_join_updating.c,
 * op_interval_join.c, op_lookup_join.c and op_asof_join.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_jsonb_ord.h"
#include "exec/op_join_internal.h"

/* ================================================================ store */

/* Store arrays past this many bytes are mmap'ed and grown with mremap: no
 * copy of the old bytes on growth (what a realloc of a large block below
 * glibc's dynamic mmap threshold does). */
#define JS_MAP_MIN ((size_t)1 << 20)

/* Grows *p (old bytes, malloc'ed or, when *mapped, mmap'ed) to nb bytes,
 * keeping its contents. -1 (nothing changed) when out of memory. */
static int js_grow(uint8_t **p, size_t old, size_t nb, bool *mapped) {
#ifdef __linux__
  if (*mapped || nb >= JS_MAP_MIN) {
    void *q;
    if (*mapped)
      q = mremap(*p, old, nb, MREMAP_MAYMOVE);
    else {
      q = mmap(NULL, nb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
      if (q != MAP_FAILED && old)
        memcpy(q, *p, old);
    }
    if (q == MAP_FAILED)
      return -1;
#ifdef MADV_HUGEPAGE
    /* 2 MiB pages where the system allows (THP "madvise"): 1/512 of the
     * page faults of filling the state; advice only, errors ignored */
    (void)madvise(q, nb, MADV_HUGEPAGE);
#endif
    if (!*mapped)
      free(*p);
    *p = q;
    *mapped = true;
    return 0;
  }
#endif
  (void)old;
  uint8_t *q = realloc(*p, nb);
  if (!q)
    return -1;
  *p = q;
  return 0;
}

static void js_release(uint8_t *p, size_t bytes, bool mapped) {
#ifdef __linux__
  if (mapped) {
    if (p)
      munmap(p, bytes);
    return;
  }
#endif
  (void)bytes;
  (void)mapped;
  free(p);
}

static uint32_t size_of_col(const jcol *c) {
  switch (c->kind) {
  case JC_NULLT:
    return 0;
  case JC_BOOL:
    return 1;
  case JC_VAR:
  case JC_OBJ:
    return 8;
  default:
    return c->width;
  }
}

int js_init(jstore *s, lm_schema *schema, uint32_t hdr, const bool *pruned,
            lm_error *err) {
  memset(s, 0, sizeof *s);
  s->free_head = JNONE;
  s->ncols = schema->n_fields;
  s->cols = calloc((size_t)s->ncols + 1, sizeof *s->cols);
  if (!s->cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
  s->schema = lm_schema_retain(schema);
  for (int c = 0; c < s->ncols; c++) {
    jcol *jc = &s->cols[c];
    lm_type t = schema->fields[c].type;
    jc->type = t;
    if (pruned && pruned[c]) {
      jc->kind = JC_NULLT;
      jc->pruned = 1;
    } else if (t.id == LM_TYPE_NULL)
      jc->kind = JC_NULLT;
    else if (t.id == LM_TYPE_BOOL)
      jc->kind = JC_BOOL;
    else if (t.id == LM_TYPE_FLOAT32) {
      jc->kind = JC_FLOAT32;
      jc->width = 4;
    } else if (t.id == LM_TYPE_FLOAT64) {
      jc->kind = JC_FLOAT64;
      jc->width = 8;
    } else if (lm_type_is_varbinary(t)) {
      jc->kind = JC_VAR;
      jc->large = t.id == LM_TYPE_LARGE_UTF8 || t.id == LM_TYPE_LARGE_BINARY;
    } else if (!lm_type_is_nested(t) && lm_type_width(t) > 0) {
      jc->kind = JC_FIXED;
      jc->width = (uint32_t)lm_type_width(t);
    } else {
      jc->kind = JC_OBJ;
      s->n_obj++;
    }
  }
  if (hdr < 4)
    hdr = 4;
  s->hdr = hdr;
  s->flag_off = hdr;
  s->null_off = hdr + 1;
  uint32_t cur = s->null_off + (uint32_t)((s->ncols + 7) / 8);
  /* values grouped by natural alignment (8, 4, 2, 1 bytes) */
  for (uint32_t al = 8; al >= 1; al /= 2)
    for (int c = 0; c < s->ncols; c++) {
      jcol *jc = &s->cols[c];
      uint32_t sz = size_of_col(jc);
      if (sz == 0)
        continue;
      uint32_t nat = sz % 8 == 0 ? 8 : sz % 4 == 0 ? 4 : sz % 2 == 0 ? 2 : 1;
      if (nat != al)
        continue;
      cur = (cur + al - 1) / al * al;
      jc->off = cur;
      cur += sz;
    }
  s->slot_size = (cur + 7) / 8 * 8;
  return 0;
}

static void js_release_obj(jstore *s, uint32_t i) {
  uint8_t *p = js_slot(s, i);
  for (int c = 0; c < s->ncols; c++)
    if (s->cols[c].kind == JC_OBJ && !js_isnull(s, i, c)) {
      lm_array *a;
      memcpy(&a, p + s->cols[c].off, sizeof a);
      lm_array_release(a);
    }
}

void js_free(jstore *s) {
  if (s->n_obj)
    for (uint32_t i = 0; i < s->used; i++)
      if (js_slot(s, i)[s->flag_off] & 1)
        js_release_obj(s, i);
  js_release(s->data, (size_t)s->cap * s->slot_size, s->data_mapped);
  js_release(s->heap, (size_t)s->heap_cap, s->heap_mapped);
  free(s->cols);
  if (s->schema)
    lm_schema_release(s->schema);
  memset(s, 0, sizeof *s);
}

int64_t js_bytes(const jstore *s) {
  return (int64_t)s->cap * s->slot_size + s->heap_cap;
}

static int js_heap_put(jstore *s, const uint8_t *p, int64_t len,
                       uint32_t *off) {
  if (s->heap_len + len > (int64_t)UINT32_MAX)
    return -1;
  if (s->heap_len + len > s->heap_cap) {
    int64_t nc = s->heap_cap ? s->heap_cap * 2 : 4096;
    while (nc < s->heap_len + len)
      nc *= 2;
    if (js_grow(&s->heap, (size_t)s->heap_cap, (size_t)nc, &s->heap_mapped))
      return -1;
    s->heap_cap = nc;
  }
  if (len)
    memcpy(s->heap + s->heap_len, p, (size_t)len);
  *off = (uint32_t)s->heap_len;
  s->heap_len += len;
  return 0;
}

/* Rewrites the heap with only the live rows' bytes. */
static void js_compact_heap(jstore *s) {
  int64_t live = s->heap_len - s->heap_dead;
  uint8_t *nh = malloc((size_t)(live > 0 ? live : 1));
  if (!nh)
    return; /* keep the old heap: still correct */
  int64_t pos = 0;
  for (uint32_t i = 0; i < s->used; i++) {
    uint8_t *p = js_slot(s, i);
    if (!(p[s->flag_off] & 1))
      continue;
    for (int c = 0; c < s->ncols; c++) {
      if (s->cols[c].kind != JC_VAR || js_isnull(s, i, c))
        continue;
      uint32_t ol[2];
      memcpy(ol, p + s->cols[c].off, 8);
      memcpy(nh + pos, s->heap + ol[0], ol[1]);
      ol[0] = (uint32_t)pos;
      pos += ol[1];
      memcpy(p + s->cols[c].off, ol, 8);
    }
  }
  js_release(s->heap, (size_t)s->heap_cap, s->heap_mapped);
  s->heap_mapped = false;
  s->heap = nh;
  s->heap_cap = live > 0 ? live : 1;
  s->heap_len = pos;
  s->heap_dead = 0;
}

uint32_t js_add(jstore *s, const lm_batch *b, int64_t r) {
  uint32_t i;
  if (s->free_head != JNONE) {
    i = s->free_head;
    s->free_head = js_next(s, i);
  } else {
    if (s->used == s->cap) {
      if (s->cap >= UINT32_MAX / 2)
        return JNONE;
      uint32_t nc = s->cap ? s->cap * 2 : 256;
      if (js_grow(&s->data, (size_t)s->cap * s->slot_size,
                  (size_t)nc * s->slot_size, &s->data_mapped))
        return JNONE;
      s->cap = nc;
    }
    i = s->used++;
  }
  uint8_t *p = js_slot(s, i);
  memset(p, 0, s->null_off + (uint32_t)((s->ncols + 7) / 8));
  for (int c = 0; c < s->ncols; c++) {
    const lm_array *a = b->columns[c];
    const jcol *jc = &s->cols[c];
    if (jc->kind == JC_NULLT || lm_array_is_null(a, r)) {
      p[s->null_off + (c >> 3)] |= (uint8_t)(1u << (c & 7));
      continue;
    }
    switch (jc->kind) {
    case JC_BOOL:
      p[jc->off] = lm_array_bool(a, r);
      break;
    case JC_VAR: {
      int64_t len;
      const uint8_t *v = lm_array_bytes(a, r, &len);
      uint32_t ol[2];
      if (len > (int64_t)UINT32_MAX || js_heap_put(s, v, len, &ol[0])) {
        /* undo: release objects stored so far, free the slot */
        for (int k = 0; k < c; k++)
          if (s->cols[k].kind == JC_VAR && !js_isnull(s, i, k)) {
            uint32_t o2[2];
            memcpy(o2, p + s->cols[k].off, 8);
            s->heap_dead += o2[1];
          }
        p[s->flag_off] = 1;
        s->live++;
        for (int k = c; k < s->ncols; k++)
          p[s->null_off + (k >> 3)] |= (uint8_t)(1u << (k & 7));
        js_del(s, i);
        return JNONE;
      }
      ol[1] = (uint32_t)len;
      memcpy(p + jc->off, ol, 8);
      break;
    }
    case JC_OBJ: {
      int32_t idx = (int32_t)r;
      lm_array *x = lm_array_take_nullable(a, &idx, 1);
      if (!x) {
        p[s->flag_off] = 1;
        s->live++;
        for (int k = c; k < s->ncols; k++)
          p[s->null_off + (k >> 3)] |= (uint8_t)(1u << (k & 7));
        js_del(s, i);
        return JNONE;
      }
      memcpy(p + jc->off, &x, sizeof x);
      break;
    }
    default: {
      const uint8_t *src =
          a->values->data + (size_t)(a->offset + r) * jc->width;
      if (jc->width == 8) /* a constant size: inlined, no libc call */
        memcpy(p + jc->off, src, 8);
      else if (jc->width == 4)
        memcpy(p + jc->off, src, 4);
      else
        memcpy(p + jc->off, src, jc->width);
    }
    }
  }
  p[s->flag_off] = 1;
  s->live++;
  return i;
}

void js_del(jstore *s, uint32_t i) {
  uint8_t *p = js_slot(s, i);
  for (int c = 0; c < s->ncols; c++) {
    if (js_isnull(s, i, c))
      continue;
    if (s->cols[c].kind == JC_VAR) {
      uint32_t ol[2];
      memcpy(ol, p + s->cols[c].off, 8);
      s->heap_dead += ol[1];
    } else if (s->cols[c].kind == JC_OBJ) {
      lm_array *a;
      memcpy(&a, p + s->cols[c].off, sizeof a);
      lm_array_release(a);
    }
  }
  p[s->flag_off] = 0;
  js_set_next(s, i, s->free_head);
  s->free_head = i;
  s->live--;
  if (!s->defer_compact)
    js_maybe_compact(s);
}

void js_maybe_compact(jstore *s) {
  if (s->heap_dead > 65536 && s->heap_dead * 2 >= s->heap_len)
    js_compact_heap(s);
}

void js_clear(jstore *s) {
  if (s->n_obj)
    for (uint32_t i = 0; i < s->used; i++)
      if (js_slot(s, i)[s->flag_off] & 1)
        js_release_obj(s, i);
  s->used = 0;
  s->free_head = JNONE;
  s->live = 0;
  s->heap_len = s->heap_dead = 0;
}

static inline double norm_f(double d) {
  if (d == 0)
    return 0;
  if (isnan(d))
    return NAN;
  return d;
}

static bool slot_val_eq(const jstore *s, uint32_t i, int c, const lm_array *a,
                        int64_t r) {
  const jcol *jc = &s->cols[c];
  const uint8_t *p = js_slot(s, i) + jc->off;
  switch (jc->kind) {
  case JC_NULLT:
    return true;
  case JC_BOOL:
    return (p[0] != 0) == lm_array_bool(a, r);
  case JC_FLOAT32: {
    float x;
    memcpy(&x, p, 4);
    double y = lm_array_f32(a)[r];
    return x == y || (isnan(x) && isnan(y));
  }
  case JC_FLOAT64: {
    double x;
    memcpy(&x, p, 8);
    double y = lm_array_f64(a)[r];
    return x == y || (isnan(x) && isnan(y));
  }
  case JC_VAR: {
    uint32_t ol[2];
    memcpy(ol, p, 8);
    int64_t len;
    const uint8_t *v = lm_array_bytes(a, r, &len);
    return len == ol[1] && (len == 0 || memcmp(s->heap + ol[0], v, ol[1]) == 0);
  }
  case JC_OBJ: {
    lm_array *x;
    memcpy(&x, p, sizeof x);
    lm_buf b1, b2;
    lm_buf_init(&b1);
    lm_buf_init(&b2);
    int rc = lm_array_format_json(&b1, x, 0) | lm_array_format_json(&b2, a, r);
    bool eq = rc == 0 && b1.len == b2.len &&
              (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0);
    lm_buf_free(&b1);
    lm_buf_free(&b2);
    return eq;
  }
  default:
    if (jc->width == 8) {
      uint64_t x, y;
      memcpy(&x, p, 8);
      memcpy(&y, a->values->data + (size_t)(a->offset + r) * 8, 8);
      return x == y;
    }
    return memcmp(p, a->values->data + (size_t)(a->offset + r) * jc->width,
                  jc->width) == 0;
  }
}

bool js_col_eq(const jstore *s, uint32_t i, int c, const lm_array *a,
               int64_t r) {
  if (js_isnull(s, i, c) || lm_array_is_null(a, r) ||
      a->type.id == LM_TYPE_NULL)
    return false;
  if (s->cols[c].type.id == LM_TYPE_INTERVAL_MDN &&
      a->type.id == LM_TYPE_INTERVAL_MDN) /* '1 mon' = '30 days' */
    return lm_iv_span_slot(js_slot(s, i) + s->cols[c].off) ==
           lm_iv_span_slot(a->values->data + (size_t)(a->offset + r) * 16);
  if (s->cols[c].kind == JC_VAR && lm_type_is_jsonb(s->cols[c].type) &&
      lm_type_is_jsonb(a->type)) { /* jsonb: '1' = '1.0' */
    uint32_t ol[2];
    memcpy(ol, js_slot(s, i) + s->cols[c].off, 8);
    int32_t len;
    const char *v = lm_array_str(a, r, &len);
    return lm_jsonb_eq((const char *)s->heap + ol[0], ol[1], v, (size_t)len);
  }
  return slot_val_eq(s, i, c, a, r);
}

bool js_row_eq(const jstore *s, uint32_t i, const lm_batch *b, int64_t r) {
  for (int c = 0; c < s->ncols; c++) {
    if (s->cols[c].pruned)
      continue;
    const lm_array *a = b->columns[c];
    bool n1 = js_isnull(s, i, c);
    bool n2 = a->type.id == LM_TYPE_NULL || lm_array_is_null(a, r);
    if (n1 != n2)
      return false;
    if (!n1 && !slot_val_eq(s, i, c, a, r))
      return false;
  }
  return true;
}

/* Whether the key columns ka of slot i (store s) equal columns kb of slot
 * j (store t); NULL equals nothing. */
static bool js_keys_eq_slot(const jstore *s, uint32_t i, const int *ka,
                            const jstore *t, uint32_t j, const int *kb,
                            int nk) {
  for (int k = 0; k < nk; k++) {
    const jcol *x = &s->cols[ka[k]], *y = &t->cols[kb[k]];
    if (js_isnull(s, i, ka[k]) || js_isnull(t, j, kb[k]))
      return false;
    const uint8_t *p = js_slot(s, i) + x->off, *q = js_slot(t, j) + y->off;
    switch (x->kind) {
    case JC_BOOL:
      if ((p[0] != 0) != (q[0] != 0))
        return false;
      break;
    case JC_FLOAT32: {
      float u, v;
      memcpy(&u, p, 4);
      memcpy(&v, q, 4);
      if (!(u == v || (isnan(u) && isnan(v))))
        return false;
      break;
    }
    case JC_FLOAT64: {
      double u, v;
      memcpy(&u, p, 8);
      memcpy(&v, q, 8);
      if (!(u == v || (isnan(u) && isnan(v))))
        return false;
      break;
    }
    case JC_VAR: {
      uint32_t o1[2], o2[2];
      memcpy(o1, p, 8);
      memcpy(o2, q, 8);
      if (lm_type_is_jsonb(x->type) && lm_type_is_jsonb(y->type)) {
        if (!lm_jsonb_eq((const char *)s->heap + o1[0], o1[1],
                         (const char *)t->heap + o2[0], o2[1]))
          return false; /* jsonb: '1' = '1.0' */
        break;
      }
      if (o1[1] != o2[1] ||
          (o1[1] && memcmp(s->heap + o1[0], t->heap + o2[0], o1[1])))
        return false;
      break;
    }
    case JC_NULLT:
    case JC_OBJ:
      return false;
    default:
      if (x->type.id == LM_TYPE_INTERVAL_MDN) { /* interval_cmp's equality */
        if (lm_iv_span_slot(p) != lm_iv_span_slot(q))
          return false;
      } else if (memcmp(p, q, x->width))
        return false;
    }
  }
  return true;
}

/* ----------------------------------------------------------- hashing */

static inline uint64_t hash_fixed(const uint8_t *p, uint32_t w) {
  if (w <= 8) {
    uint64_t x = 0;
    memcpy(&x, p, w);
    return lm_hash_u64(x);
  }
  return lm_hash_bytes(p, w, 0);
}

static inline uint64_t hash_f(double d) {
  d = norm_f(d);
  uint64_t x;
  memcpy(&x, &d, 8);
  return lm_hash_u64(x);
}

static inline uint64_t fold(uint64_t h, uint64_t v, int k) {
  return k == 0 ? v : lm_hash_combine(h, v);
}

void jk_hash_rows(lm_array *const *cols, int nk, int64_t n, uint64_t *h,
                  uint8_t *nul) {
  memset(nul, 0, (size_t)n);
  for (int k = 0; k < nk; k++) {
    const lm_array *a = cols[k];
    lm_type t = a->type;
    if (t.id == LM_TYPE_NULL) {
      memset(nul, 1, (size_t)n);
      continue;
    }
    if (a->validity && a->null_count)
      for (int64_t r = 0; r < n; r++)
        if (lm_array_is_null(a, r))
          nul[r] = 1;
    if (t.id == LM_TYPE_BOOL) {
      for (int64_t r = 0; r < n; r++)
        h[r] = fold(h[r], lm_hash_u64(lm_array_bool(a, r)), k);
    } else if (t.id == LM_TYPE_FLOAT32) {
      const float *v = lm_array_f32(a);
      for (int64_t r = 0; r < n; r++)
        h[r] = fold(h[r], hash_f(v[r]), k);
    } else if (t.id == LM_TYPE_FLOAT64) {
      const double *v = lm_array_f64(a);
      for (int64_t r = 0; r < n; r++)
        h[r] = fold(h[r], hash_f(v[r]), k);
    } else if (lm_type_is_varbinary(t)) {
      bool jb = lm_type_is_jsonb(t); /* jsonb: its equality key */
      lm_buf tmp;
      lm_buf_init(&tmp);
      for (int64_t r = 0; r < n; r++) {
        if (nul[r])
          continue;
        int64_t len;
        const uint8_t *p = lm_array_bytes(a, r, &len);
        size_t kl = (size_t)len;
        if (jb)
          p = (const uint8_t *)lm_jsonb_key((const char *)p, kl, &tmp, &kl);
        h[r] = fold(h[r], lm_hash_bytes(p, kl, 0), k);
      }
      lm_buf_free(&tmp);
    } else if (t.id == LM_TYPE_INTERVAL_MDN) { /* the span (interval_hash) */
      const uint8_t *base = a->values->data + (size_t)a->offset * 16;
      for (int64_t r = 0; r < n; r++) {
        __int128 sp = lm_iv_span_slot(base + (size_t)r * 16);
        h[r] = fold(h[r], lm_hash_bytes(&sp, 16, 0), k);
      }
    } else {
      int w = lm_type_width(t);
      if (w == 8) {
        const uint64_t *v =
            (const uint64_t *)(const void *)a->values->data + a->offset;
        if (k == 0)
          for (int64_t r = 0; r < n; r++)
            h[r] = lm_hash_u64(v[r]);
        else
          for (int64_t r = 0; r < n; r++)
            h[r] = lm_hash_combine(h[r], lm_hash_u64(v[r]));
      } else {
        const uint8_t *base = a->values->data + (size_t)a->offset * (size_t)w;
        for (int64_t r = 0; r < n; r++)
          h[r] = fold(h[r],
                      hash_fixed(base + (size_t)r * (size_t)w, (uint32_t)w), k);
      }
    }
  }
}

uint64_t js_key_hash(const jstore *s, uint32_t i, const int *keys, int nk) {
  uint64_t h = 0;
  const uint8_t *p = js_slot(s, i);
  for (int k = 0; k < nk; k++) {
    const jcol *jc = &s->cols[keys[k]];
    const uint8_t *v = p + jc->off;
    uint64_t x;
    switch (jc->kind) {
    case JC_BOOL:
      x = lm_hash_u64(v[0] != 0);
      break;
    case JC_FLOAT32: {
      float f;
      memcpy(&f, v, 4);
      x = hash_f(f);
      break;
    }
    case JC_FLOAT64: {
      double d;
      memcpy(&d, v, 8);
      x = hash_f(d);
      break;
    }
    case JC_VAR: {
      uint32_t ol[2];
      memcpy(ol, v, 8);
      if (lm_type_is_jsonb(jc->type)) { /* its equality key */
        lm_buf tmp;
        lm_buf_init(&tmp);
        size_t kl;
        const char *kp =
            lm_jsonb_key((const char *)s->heap + ol[0], ol[1], &tmp, &kl);
        x = lm_hash_bytes(kp, kl, 0);
        lm_buf_free(&tmp);
      } else
        x = lm_hash_bytes(s->heap + ol[0], ol[1], 0);
      break;
    }
    case JC_FIXED:
      if (jc->type.id == LM_TYPE_INTERVAL_MDN) { /* as jk_hash_rows */
        __int128 sp = lm_iv_span_slot(v);
        x = lm_hash_bytes(&sp, 16, 0);
      } else
        x = hash_fixed(v, jc->width);
      break;
    default:
      x = 0;
    }
    h = fold(h, x, k);
  }
  return h;
}

/* ------------------------------------------------------------ gather */

lm_array *js_gather(const jstore *s, int c, const uint32_t *sl, int64_t n) {
  const jcol *jc = &s->cols[c];
  lm_type t = jc->type;
  if (jc->kind == JC_NULLT)
    return lm_array_new_null(t, n);
  int64_t nulls = 0;
  for (int64_t k = 0; k < n; k++)
    nulls += sl[k] == JNONE || js_isnull(s, sl[k], c);
  if (jc->kind == JC_OBJ) {
    if (n <= 0 || n > INT32_MAX)
      return n == 0 ? lm_array_new_null(t, 0) : NULL;
    lm_array **parts = calloc((size_t)n, sizeof *parts);
    if (!parts)
      return NULL;
    lm_array *out = NULL;
    int64_t k = 0;
    for (; k < n; k++) {
      if (sl[k] == JNONE || js_isnull(s, sl[k], c))
        parts[k] = lm_array_new_null(t, 1);
      else {
        memcpy(&parts[k], js_slot(s, sl[k]) + jc->off, sizeof parts[k]);
        lm_array_retain(parts[k]);
      }
      if (!parts[k])
        goto objdone;
    }
    lm_error e;
    memset(&e, 0, sizeof e);
    out = lm_array_concat(parts, (int)n, &e);
  objdone:
    for (int64_t q = 0; q < k && q < n; q++)
      if (parts[q])
        lm_array_release(parts[q]);
    free(parts);
    return out;
  }
  lm_buffer *validity = NULL, *values = NULL, *data = NULL;
  if (nulls) {
    validity = lm_buffer_new((size_t)((n + 7) / 8));
    if (!validity)
      return NULL;
    for (int64_t k = 0; k < n; k++)
      if (sl[k] != JNONE && !js_isnull(s, sl[k], c))
        lm_bit_set(validity->data, k);
  }
  switch (jc->kind) {
  case JC_BOOL:
    values = lm_buffer_new((size_t)((n + 7) / 8));
    if (!values)
      goto oom;
    for (int64_t k = 0; k < n; k++)
      if (sl[k] != JNONE && !js_isnull(s, sl[k], c) &&
          js_slot(s, sl[k])[jc->off])
        lm_bit_set(values->data, k);
    break;
  case JC_VAR: {
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++)
      if (sl[k] != JNONE && !js_isnull(s, sl[k], c)) {
        uint32_t ol[2];
        memcpy(ol, js_slot(s, sl[k]) + jc->off, 8);
        total += ol[1];
      }
    if (!jc->large && total > INT32_MAX)
      goto oom;
    int ow = jc->large ? 8 : 4;
    values = lm_buffer_new((size_t)(n + 1) * (size_t)ow);
    data = lm_buffer_new((size_t)(total ? total : 1));
    if (!values || !data)
      goto oom;
    data->size = (size_t)total;
    int64_t pos = 0;
    for (int64_t k = 0; k < n; k++) {
      if (ow == 4)
        ((int32_t *)(void *)values->data)[k] = (int32_t)pos;
      else
        ((int64_t *)(void *)values->data)[k] = pos;
      if (sl[k] == JNONE || js_isnull(s, sl[k], c))
        continue;
      uint32_t ol[2];
      memcpy(ol, js_slot(s, sl[k]) + jc->off, 8);
      if (ol[1])
        memcpy(data->data + pos, s->heap + ol[0], ol[1]);
      pos += ol[1];
    }
    if (ow == 4)
      ((int32_t *)(void *)values->data)[n] = (int32_t)pos;
    else
      ((int64_t *)(void *)values->data)[n] = pos;
    break;
  }
  default: {
    uint32_t w = jc->width;
    values = lm_buffer_new((size_t)(n ? n : 1) * w);
    if (!values)
      goto oom;
    uint8_t *d = values->data;
    if (w == 8) {
      for (int64_t k = 0; k < n; k++)
        if (sl[k] != JNONE)
          memcpy(d + k * 8, js_slot(s, sl[k]) + jc->off, 8);
    } else {
      for (int64_t k = 0; k < n; k++)
        if (sl[k] != JNONE)
          memcpy(d + (size_t)k * w, js_slot(s, sl[k]) + jc->off, w);
    }
  }
  }
  return lm_array_new(t, n, nulls, 0, validity, values, data, 0, NULL, NULL);
oom:
  if (validity)
    lm_buffer_release(validity);
  if (values)
    lm_buffer_release(values);
  if (data)
    lm_buffer_release(data);
  return NULL;
}

/* ============================================================ key table */

int jk_init(jkeys *k, lm_error *err) {
  memset(k, 0, sizeof *k);
  k->free_head = JNONE;
  k->nslots = 64;
  k->slots = calloc(k->nslots, sizeof *k->slots);
  if (!k->slots)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join key table)");
  return 0;
}

void jk_free(jkeys *k) {
  free(k->slots);
  free(k->ents);
  memset(k, 0, sizeof *k);
}

int64_t jk_bytes(const jkeys *k) {
  return (int64_t)k->nslots * 8 + (int64_t)k->cap * (int64_t)sizeof(jentry);
}

static bool ent_matches(const jkeys *k, uint32_t e, const jstore *st,
                        const int *const *keys, int nk, lm_array *const *cols,
                        int64_t r) {
  const jentry *en = &k->ents[e];
  int s = en->head[0] != JNONE ? 0 : 1;
  uint32_t hd = en->head[s];
  if (hd == JNONE)
    return false;
  for (int q = 0; q < nk; q++)
    if (!js_col_eq(&st[s], hd, keys[s][q], cols[q], r))
      return false;
  return true;
}

#define SLOT_E(v) ((uint32_t)(v))
#define SLOT_TAG(v) ((uint32_t)((v) >> 32))
#define SLOT_MK(e, h) (((h) >> 32 << 32) | (uint64_t)((e) + 1))

uint32_t jk_find(const jkeys *k, const jstore *st, const int *const *keys,
                 int nk, lm_array *const *cols, int64_t r, uint64_t h) {
  uint64_t mask = k->nslots - 1;
  uint32_t tag = (uint32_t)(h >> 32);
  for (uint64_t p = h & mask;; p = (p + 1) & mask) {
    uint64_t sv = k->slots[p];
    uint32_t v = SLOT_E(sv);
    if (!v)
      return JNONE;
    if (SLOT_TAG(sv) == tag && k->ents[v - 1].hash == h &&
        ent_matches(k, v - 1, st, keys, nk, cols, r))
      return v - 1;
  }
}

static int jk_rehash(jkeys *k) {
  uint64_t ns = k->nslots * 2;
  uint64_t *nsl = calloc(ns, sizeof *nsl);
  if (!nsl)
    return -1;
  for (uint64_t p = 0; p < k->nslots; p++) {
    uint64_t sv = k->slots[p];
    if (!SLOT_E(sv))
      continue;
    uint64_t q = k->ents[SLOT_E(sv) - 1].hash & (ns - 1);
    while (nsl[q])
      q = (q + 1) & (ns - 1);
    nsl[q] = sv;
  }
  free(k->slots);
  k->slots = nsl;
  k->nslots = ns;
  return 0;
}

uint32_t jk_find_add(jkeys *k, const jstore *st, const int *const *keys, int nk,
                     lm_array *const *cols, int64_t r, uint64_t h) {
  uint64_t mask = k->nslots - 1, p = h & mask;
  uint32_t tag = (uint32_t)(h >> 32);
  for (;; p = (p + 1) & mask) {
    uint64_t sv = k->slots[p];
    uint32_t v = SLOT_E(sv);
    if (!v)
      break;
    if (SLOT_TAG(sv) == tag && k->ents[v - 1].hash == h &&
        ent_matches(k, v - 1, st, keys, nk, cols, r))
      return v - 1;
  }
  uint32_t e;
  if (k->free_head != JNONE) {
    e = k->free_head;
    k->free_head = k->ents[e].tail[0];
  } else {
    if (k->nents == k->cap) {
      if (k->cap >= UINT32_MAX / 4)
        return JNONE;
      uint32_t nc = k->cap ? k->cap * 2 : 64;
      jentry *ne = realloc(k->ents, (size_t)nc * sizeof *ne);
      if (!ne)
        return JNONE;
      k->ents = ne;
      k->cap = nc;
    }
    e = k->nents++;
  }
  jentry *en = &k->ents[e];
  en->hash = h;
  en->head[0] = en->head[1] = en->tail[0] = en->tail[1] = JNONE;
  k->slots[p] = SLOT_MK(e, h);
  k->live++;
  if ((uint64_t)k->live * 2 > k->nslots && jk_rehash(k) &&
      (uint64_t)k->live * 4 > k->nslots * 3) {
    /* could not grow and too full to probe well: refuse (OOM) */
    jk_maybe_remove(k, e);
    return JNONE;
  }
  return e;
}

uint32_t jk_find_slot(const jkeys *k, const jstore *st, const int *const *keys,
                      int nk, int s, uint32_t i, uint64_t h) {
  uint64_t mask = k->nslots - 1;
  for (uint64_t p = h & mask;; p = (p + 1) & mask) {
    uint64_t sv = k->slots[p];
    uint32_t v = SLOT_E(sv);
    if (!v)
      return JNONE;
    if (SLOT_TAG(sv) != (uint32_t)(h >> 32))
      continue;
    const jentry *en = &k->ents[v - 1];
    if (en->hash != h)
      continue;
    int t = en->head[0] != JNONE ? 0 : 1;
    if (en->head[t] == JNONE)
      continue;
    if (js_keys_eq_slot(&st[s], i, keys[s], &st[t], en->head[t], keys[t], nk))
      return v - 1;
  }
}

void jk_maybe_remove(jkeys *k, uint32_t e) {
  jentry *en = &k->ents[e];
  if (en->head[0] != JNONE || en->head[1] != JNONE)
    return;
  uint64_t mask = k->nslots - 1, p = en->hash & mask;
  while (SLOT_E(k->slots[p]) != e + 1)
    p = (p + 1) & mask;
  /* backward-shift deletion */
  uint64_t q = p;
  for (;;) {
    q = (q + 1) & mask;
    uint64_t sv = k->slots[q];
    if (!SLOT_E(sv))
      break;
    uint64_t home = k->ents[SLOT_E(sv) - 1].hash & mask;
    bool move = (q > p) ? (home <= p || home > q) : (home <= p && home > q);
    if (move) {
      k->slots[p] = sv;
      p = q;
    }
  }
  k->slots[p] = 0;
  en->tail[0] = k->free_head;
  en->hash = 0;
  k->free_head = e;
  k->live--;
}

/* ================================================================ base */

static void jb_free(jbase *j);

static int side_batch(void *ctx, lm_batch *b, lm_error *err);
static int side_watermark(void *ctx, int64_t wm, lm_error *err);

/* j->rcol / j->rnull for the residual (ncols set). LM_ERR_NOMEM. */
static int residual_cols(jbase *j, lm_error *err) {
  int nf = j->ncols[0] + j->ncols[1];
  j->rcol = calloc((size_t)nf + 1, 1);
  if (!j->rcol)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (!lm_bexpr_mark_cols(j->spec.residual, j->rcol, nf)) {
    free(j->rcol); /* every column */
    j->rcol = NULL;
  }
  return 0;
}

/* Column c of the residual's input for n pairs: gathered when the
 * residual reads it, else a slice of a cached all-NULL array (of type
 * NULL: the evaluator reads only the columns the expression names). */
static lm_array *side_col(jbase *j, int s, int c, const lm_batch *b,
                          const uint32_t *ix, int64_t n);
static lm_array *residual_col(jbase *j, int s, int c, const lm_batch *b,
                              const uint32_t *ix, int64_t n) {
  int pc = s ? j->ncols[0] + c : c;
  if (!j->rcol || j->rcol[pc])
    return side_col(j, s, c, b, ix, n);
  lm_array *z = j->rnull;
  if (!z || z->length < n) {
    int64_t len = z ? z->length : 1024;
    while (len < n)
      len *= 2;
    lm_array *nz = lm_array_new_null(lm_type_make(LM_TYPE_NULL), len);
    if (!nz)
      return NULL;
    lm_array_release(z);
    j->rnull = z = nz;
  }
  return lm_array_slice(z, 0, n);
}

static bool key_type_ok(lm_type t) {
  return t.id != LM_TYPE_NULL && !lm_type_is_nested(t) &&
         (t.id == LM_TYPE_BOOL || lm_type_is_varbinary(t) ||
          lm_type_width(t) > 0);
}

int jb_init(jbase *j, const lm_join_spec *spec, const uint32_t hdr[2],
            const jops *ops, lm_error *err) {
  j->spec = *spec;
  j->ops = ops;
  j->nk = spec->side[0].n_keys;
  j->wm[0] = j->wm[1] = j->wm_sent = INT64_MIN;
  j->kt.slots = NULL;
  if (spec->side[1].n_keys != j->nk || j->nk < 0)
    return lm_err(err, LM_ERR_BIND,
                  "join: the two sides have different key counts (%d, %d)",
                  spec->side[0].n_keys, spec->side[1].n_keys);
  for (int s = 0; s < 2; s++) {
    const lm_join_side_spec *sp = &spec->side[s];
    if (!sp->schema)
      return lm_err(err, LM_ERR_BIND, "join: side %d has no schema", s);
    j->ncols[s] = sp->schema->n_fields;
    j->keys[s] = calloc((size_t)j->nk + 1, sizeof(int));
    if (!j->keys[s])
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < j->nk; k++) {
      int c = sp->keys[k];
      if (c < 0 || c >= j->ncols[s])
        return lm_err(err, LM_ERR_BIND, "join: key column %d out of range", c);
      j->keys[s][k] = c;
    }
    j->spec.side[s].keys = j->keys[s];
    if (sp->time_col >= j->ncols[s])
      return lm_err(err, LM_ERR_BIND, "join: time column %d out of range",
                    sp->time_col);
  }
  for (int k = 0; k < j->nk; k++) {
    lm_type a = spec->side[0].schema->fields[j->keys[0][k]].type;
    lm_type b = spec->side[1].schema->fields[j->keys[1][k]].type;
    if (!lm_type_eq(a, b))
      return lm_err(err, LM_ERR_BIND,
                    "join: key %d has types %s and %s (cast before the join)",
                    k + 1, lm_type_name(a), lm_type_name(b));
    if (!key_type_ok(a))
      return lm_err(err, LM_ERR_BIND, "join: cannot join on a %s key",
                    lm_type_name(a));
  }
  if (!spec->out_schema)
    return lm_err(err, LM_ERR_BIND, "join: no output schema");
  bool left_only = spec->type == LM_JOIN_SEMI || spec->type == LM_JOIN_ANTI;
  int want = j->ncols[0] + (left_only ? 0 : j->ncols[1]) +
             (spec->out_changelog ? 1 : 0);
  if (spec->out_schema->n_fields != want)
    return lm_err(err, LM_ERR_BIND,
                  "join: output schema has %d fields, expected %d",
                  spec->out_schema->n_fields, want);
  j->out_schema = lm_schema_retain(spec->out_schema);
  j->pair_schema = lm_schema_new(j->ncols[0] + j->ncols[1]);
  if (!j->pair_schema)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int s = 0, o = 0; s < 2; s++)
    for (int c = 0; c < j->ncols[s]; c++, o++) {
      const lm_field *f = &spec->side[s].schema->fields[c];
      if (lm_schema_set_field(j->pair_schema, o, f->name, f->type, true))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  int rc0;
  if (spec->residual && (rc0 = residual_cols(j, err)))
    return rc0;
  for (int s = 0; s < 2; s++) {
    /* keys and the time column are always kept */
    bool *pr = NULL;
    if (spec->side[s].pruned) {
      int nc = spec->side[s].schema->n_fields;
      pr = malloc((size_t)nc + 1);
      if (!pr)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      memcpy(pr, spec->side[s].pruned, (size_t)nc);
      for (int k = 0; k < j->nk; k++)
        pr[j->keys[s][k]] = false;
      if (spec->side[s].time_col >= 0)
        pr[spec->side[s].time_col] = false;
    }
    int rc = js_init(&j->st[s], spec->side[s].schema, hdr[s], pr, err);
    free(pr);
    if (rc)
      return rc;
    if (spec->side[s].pruned &&
        !(j->pnull[s] = calloc((size_t)j->st[s].ncols + 1, sizeof(lm_array *))))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    j->sctx[s].j = j;
    j->sctx[s].side = s;
  }
  return jk_init(&j->kt, err);
}

void jb_destroy(jbase *j) {
  if (j->ops && j->ops->free)
    j->ops->free(j);
  jb_free(j);
  free(j);
}

static void jb_free(jbase *j) {
  for (int s = 0; s < 2; s++) {
    for (int c = 0; j->pnull[s] && c < j->st[s].ncols; c++)
      lm_array_release(j->pnull[s][c]);
    free(j->pnull[s]);
    js_free(&j->st[s]);
    free(j->keys[s]);
    free(j->out.ix[s]);
  }
  free(j->out.w);
  jk_free(&j->kt);
  if (j->out_schema)
    lm_schema_release(j->out_schema);
  if (j->pair_schema)
    lm_schema_release(j->pair_schema);
  free(j->hash);
  free(j->nul);
  free(j->ent);
  lm_array_release(j->rnull);
  free(j->rcol);
}

int jb_grow_scratch(jbase *j, int64_t n, lm_error *err) {
  if (n <= j->scratch_cap)
    return 0;
  int64_t nc = j->scratch_cap ? j->scratch_cap : 1024;
  while (nc < n)
    nc *= 2;
  uint64_t *h = realloc(j->hash, (size_t)nc * sizeof *h);
  if (h)
    j->hash = h;
  uint8_t *u = realloc(j->nul, (size_t)nc);
  if (u)
    j->nul = u;
  uint32_t *e = realloc(j->ent, (size_t)nc * sizeof *e);
  if (e)
    j->ent = e;
  if (!h || !u || !e)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
  j->scratch_cap = nc;
  return 0;
}

int jb_hash_batch(jbase *j, int s, const lm_batch *b, lm_error *err) {
  int64_t n = b->num_rows;
  int rc = jb_grow_scratch(j, n, err);
  if (rc)
    return rc;
  lm_array *cols[64];
  lm_array **kc = cols;
  if (j->nk > 64) {
    kc = calloc((size_t)j->nk, sizeof *kc);
    if (!kc)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < j->nk; k++)
    kc[k] = b->columns[j->keys[s][k]];
  if (j->nk == 0) {
    memset(j->hash, 0, (size_t)n * sizeof *j->hash);
    memset(j->nul, 0, (size_t)n);
  } else
    jk_hash_rows(kc, j->nk, n, j->hash, j->nul);
  if (kc != cols)
    free(kc);
  return 0;
}

const int64_t *jb_weights(const jbase *j, int s, const lm_batch *b) {
  if (!j->spec.side[s].changelog)
    return NULL;
  return lm_array_i64(b->columns[j->ncols[s]]);
}

/* --------------------------------------------------------------- output */

int jo_add(jbase *j, uint32_t l, uint32_t r, int64_t w, lm_error *err) {
  jout *o = &j->out;
  if (o->n == o->cap) {
    int64_t nc = o->cap ? o->cap * 2 : 1024;
    uint32_t *a = realloc(o->ix[0], (size_t)nc * 4);
    if (a)
      o->ix[0] = a;
    uint32_t *b = realloc(o->ix[1], (size_t)nc * 4);
    if (b)
      o->ix[1] = b;
    int64_t *c = realloc(o->w, (size_t)nc * 8);
    if (c)
      o->w = c;
    if (!a || !b || !c)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
    o->cap = nc;
  }
  o->ix[0][o->n] = l;
  o->ix[1][o->n] = r;
  o->w[o->n] = w;
  o->n++;
  if (o->n >= 65536)
    return jo_flush(j, err);
  return 0;
}

int jo_sources(jbase *j, const lm_batch *l, const lm_batch *r, lm_error *err) {
  if (j->out.b[0] == l && j->out.b[1] == r)
    return 0;
  int rc = jo_flush(j, err);
  j->out.b[0] = l;
  j->out.b[1] = r;
  return rc;
}

static lm_array *side_col(jbase *j, int s, int c, const lm_batch *b,
                          const uint32_t *ix, int64_t n) {
  if (j->st[s].cols[c].pruned && j->pnull[s]) {
    /* nothing reads it: NULL, as a stored row gives it (a batch's strings
     * are not copied: Nexmark q4's bid extra, url, channel) */
    lm_array *z = j->pnull[s][c];
    if (!z || z->length < n) {
      int64_t len = z ? z->length : 1024;
      while (len < n)
        len *= 2;
      lm_array *nz = lm_array_new_null(j->st[s].cols[c].type, len);
      if (!nz)
        return NULL;
      lm_array_release(z);
      j->pnull[s][c] = z = nz;
    }
    return lm_array_slice(z, 0, n);
  }
  if (b)
    return lm_array_take_nullable(b->columns[c], (const int32_t *)ix, n);
  return js_gather(&j->st[s], c, ix, n);
}

static lm_array *i64_array(const int64_t *v, int64_t n) {
  lm_buffer *buf = lm_buffer_new((size_t)(n ? n : 1) * 8);
  if (!buf)
    return NULL;
  if (n)
    memcpy(buf->data, v, (size_t)n * 8);
  return lm_array_new(lm_type_make(LM_TYPE_INT64), n, 0, 0, NULL, buf, NULL, 0,
                      NULL, NULL);
}

/* Rows an append-only output may expand to in one flush (a pair's weight
 * k > 0 is k copies; row indexes are 32-bit). */
#define JO_MAX_ROWS ((int64_t)INT32_MAX)

int jo_flush(jbase *j, lm_error *err) {
  jout *o = &j->out;
  int64_t n = o->n;
  if (n == 0)
    return 0;
  o->n = 0;
  const uint32_t *ix[2] = {o->ix[0], o->ix[1]};
  const int64_t *w = o->w;
  uint32_t *ex[2] = {NULL, NULL};
  int rc = 0;
  bool chg = j->spec.out_changelog;
  if (!chg) { /* append-only output: a weight k > 0 is k copies */
    int64_t total = 0;
    bool ones = true;
    for (int64_t i = 0; i < n; i++) {
      if (w[i] < 0)
        return lm_err(err, LM_ERR_EXEC,
                      "internal error: retraction in an append-only join "
                      "output");
      /* a pair of rows of multiplicities a and b is a * b output rows:
       * checked, and bounded by what one batch can hold (the engine names
       * the failing query) */
      if (lm_add_overflow_i64(total, w[i], &total))
        return lm_err(err, LM_ERR_EXEC,
                      "integer out of range: the join's output rows number "
                      "more than a BIGINT holds (rows of its inputs with "
                      "huge __weight multiplicities)");
      if (total > JO_MAX_ROWS)
        return lm_err(err, LM_ERR_EXEC,
                      "the join's output has %lld copies of its rows to "
                      "emit at once, more than %lld (rows of its inputs with "
                      "huge __weight multiplicities)",
                      (long long)total, (long long)JO_MAX_ROWS);
      ones &= w[i] == 1;
    }
    if (!ones) {
      ex[0] = malloc((size_t)(total ? total : 1) * 4);
      ex[1] = malloc((size_t)(total ? total : 1) * 4);
      if (!ex[0] || !ex[1]) {
        free(ex[0]);
        free(ex[1]);
        return lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
      }
      int64_t q = 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < w[i]; k++, q++) {
          ex[0][q] = ix[0][i];
          ex[1][q] = ix[1][i];
        }
      ix[0] = ex[0];
      ix[1] = ex[1];
      n = total;
    }
  }
  int nf = j->out_schema->n_fields;
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  if (!cols) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
    goto done;
  }
  int o_c = 0;
  bool left_only = j->spec.type == LM_JOIN_SEMI || j->spec.type == LM_JOIN_ANTI;
  for (int s = 0; s < (left_only ? 1 : 2); s++)
    for (int c = 0; c < j->ncols[s]; c++) {
      cols[o_c] = side_col(j, s, c, o->b[s], ix[s], n);
      if (!cols[o_c++]) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
        goto done;
      }
    }
  if (chg) {
    cols[o_c] = i64_array(w, n);
    if (!cols[o_c++]) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
      goto done;
    }
  }
  lm_batch *b = lm_batch_new(lm_schema_retain(j->out_schema), n, cols);
  memset(cols, 0, sizeof(*cols) * (size_t)nf);
  if (!b) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
    goto done;
  }
  rc = lm_operator_emit(&j->op, b, err);
  lm_batch_release(b);
done:
  if (cols) {
    for (int c = 0; c < nf; c++)
      if (cols[c])
        lm_array_release(cols[c]);
    free(cols);
  }
  free(ex[0]);
  free(ex[1]);
  return rc;
}

int jb_residual(jbase *j, const lm_batch *lb, const lm_batch *rb,
                const uint32_t *l, const uint32_t *r, int64_t n, uint8_t *pass,
                lm_error *err) {
  if (!j->spec.residual || n == 0) {
    if (n > 0)
      memset(pass, 1, (size_t)n);
    return 0;
  }
  int nf = j->ncols[0] + j->ncols[1];
  lm_array **cols = calloc((size_t)nf, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
  int o_c = 0, rc = 0;
  for (int s = 0; s < 2; s++)
    for (int c = 0; c < j->ncols[s]; c++) {
      cols[o_c] = residual_col(j, s, c, s ? rb : lb, s ? r : l, n);
      if (!cols[o_c++]) {
        for (int q = 0; q < o_c; q++)
          if (cols[q])
            lm_array_release(cols[q]);
        free(cols);
        return lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
      }
    }
  lm_batch *pb = lm_batch_new(lm_schema_retain(j->pair_schema), n, cols);
  free(cols);
  if (!pb)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
  lm_array *pred = NULL;
  rc = lm_eval(j->spec.residual, pb, &pred, err);
  lm_batch_release(pb);
  if (rc) {
    lm_err_prefix(err, "join condition: ");
    return rc;
  }
  if (pred->type.id != LM_TYPE_BOOL) {
    lm_array_release(pred);
    return lm_err(err, LM_ERR_EXEC, "join condition is not BOOLEAN");
  }
  for (int64_t i = 0; i < n; i++)
    pass[i] = !lm_array_is_null(pred, i) && lm_array_bool(pred, i);
  lm_array_release(pred);
  return 0;
}

/* ------------------------------------------------------------ callbacks */

static int64_t default_out_wm(const jbase *j) {
  return j->wm[0] < j->wm[1] ? j->wm[0] : j->wm[1];
}

static int forward_wm(jbase *j, lm_error *err) {
  int64_t w = j->ops->out_wm ? j->ops->out_wm(j) : default_out_wm(j);
  if (w > j->wm_sent) {
    j->wm_sent = w;
    return lm_operator_forward_watermark(&j->op, w, err);
  }
  return 0;
}

static int side_batch_run(void *ctx, lm_batch *b, lm_error *err) {
  jside_ctx *sc = ctx;
  jbase *j = sc->j;
  int s = sc->side;
  if (j->failed)
    return lm_err(err, LM_ERR_EXEC,
                  "join: state is unreliable after an earlier error");
  int want = j->ncols[s] + (j->spec.side[s].changelog ? 1 : 0);
  if (b->num_columns != want)
    return lm_err(err, LM_ERR_EXEC,
                  "join: %s input batch has %d columns, expected %d",
                  s ? "right" : "left", b->num_columns, want);
  if (j->spec.side[s].changelog &&
      b->columns[want - 1]->type.id != LM_TYPE_INT64)
    return lm_err(err, LM_ERR_EXEC,
                  "join: %s input __weight column is not BIGINT",
                  s ? "right" : "left");
  if (b->num_rows == 0)
    return 0;
  j->op.rows_in += b->num_rows;
  j->op.batches_in++;
  int rc = j->ops->push(j, s, b, err);
  lm_error scratch;
  memset(&scratch, 0, sizeof scratch);
  int rc2 = jo_flush(j, rc ? &scratch : err);
  j->out.b[0] = j->out.b[1] = NULL;
  if (rc)
    return rc;
  if (rc2)
    return rc2;
  return 0;
}

/* side_batch_run / side_watermark_run timed as the join's own work */
static int side_batch(void *ctx, lm_batch *b, lm_error *err) {
  lm_op_timer t;
  lm_op_timer_start(&t);
  int rc = side_batch_run(ctx, b, err);
  lm_op_timer_stop(&t, &((jside_ctx *)ctx)->j->op);
  return rc;
}

static int side_watermark_run(void *ctx, int64_t wm, lm_error *err) {
  jside_ctx *sc = ctx;
  jbase *j = sc->j;
  int s = sc->side;
  if (j->failed)
    return lm_err(err, LM_ERR_EXEC,
                  "join: state is unreliable after an earlier error");
  if (wm <= j->wm[s])
    return 0;
  j->wm[s] = wm;
  int rc = j->ops->watermark ? j->ops->watermark(j, s, err) : 0;
  lm_error scratch;
  memset(&scratch, 0, sizeof scratch);
  int rc2 = jo_flush(j, rc ? &scratch : err);
  j->out.b[0] = j->out.b[1] = NULL;
  if (rc || rc2)
    return rc ? rc : rc2;
  return forward_wm(j, err);
}

static int side_watermark(void *ctx, int64_t wm, lm_error *err) {
  lm_op_timer t;
  lm_op_timer_start(&t);
  int rc = side_watermark_run(ctx, wm, err);
  lm_op_timer_stop(&t, &((jside_ctx *)ctx)->j->op);
  return rc;
}

static int join_push(lm_operator *op, lm_batch *b, lm_error *err) {
  (void)op;
  (void)b;
  return lm_err(err, LM_ERR_EXEC,
                "internal error: a join takes its inputs through "
                "lm_join_side");
}

static int join_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  jbase *j = (jbase *)op;
  int rc = side_watermark(&j->sctx[0], wm, err);
  return rc ? rc : side_watermark(&j->sctx[1], wm, err);
}

static void join_free(lm_operator *op) {
  jb_destroy((jbase *)op);
}

static int join_tick(lm_operator *op, int64_t now, lm_error *err) {
  jbase *j = (jbase *)op;
  int rc = 0;
  if (j->ops->tick && !j->failed) {
    rc = j->ops->tick(j, now, err);
    lm_error scratch;
    memset(&scratch, 0, sizeof scratch);
    int rc2 = jo_flush(j, rc ? &scratch : err);
    j->out.b[0] = j->out.b[1] = NULL;
    if (!rc)
      rc = rc2;
  }
  return rc ? rc : lm_operator_tick(op->next, now, err);
}

static const lm_operator_vt join_vt = {"join", join_push, join_watermark,
                                       join_free};

/* Finishes an algorithm's operator: vtable and tick. */
static lm_operator *finish_op(lm_operator *op) {
  if (op) {
    op->vt = &join_vt;
    op->tick = join_tick;
  }
  return op;
}

lm_operator *lm_op_join_new(const lm_join_spec *spec, lm_error *err) {
  if (!spec)
    return lm_err(err, LM_ERR_BIND, "join: no spec"), NULL;
  lm_join_type t = spec->type;
  if ((int)t < LM_JOIN_INNER || t > LM_JOIN_ANTI)
    return lm_err(err, LM_ERR_BIND, "join: unknown join type %d", (int)t), NULL;
  switch (spec->algo) {
  case LM_JOIN_UPDATING:
    return finish_op(lm_join_updating_new(spec, err));
  case LM_JOIN_INTERVAL:
    return finish_op(lm_join_interval_new(spec, err));
  case LM_JOIN_LOOKUP:
    return finish_op(lm_join_lookup_new(spec, err));
  case LM_JOIN_TEMPORAL:
  case LM_JOIN_ASOF:
    return finish_op(lm_join_asof_new(spec, err));
  }
  lm_err(err, LM_ERR_BIND, "join: unknown algorithm %d", (int)spec->algo);
  return NULL;
}

lm_output_cb lm_join_side(lm_operator *join, int side) {
  jbase *j = (jbase *)join;
  lm_output_cb cb = {side_batch, side_watermark, &j->sctx[side ? 1 : 0]};
  return cb;
}

int64_t lm_join_state_rows(const lm_operator *join) {
  const jbase *j = (const jbase *)join;
  if (j->ops && j->ops->state_rows)
    return j->ops->state_rows(j);
  return j->st[0].live + j->st[1].live - j->dead;
}

int64_t lm_join_state_bytes(const lm_operator *join) {
  const jbase *j = (const jbase *)join;
  int64_t b = js_bytes(&j->st[0]) + js_bytes(&j->st[1]) + jk_bytes(&j->kt);
  if (j->ops && j->ops->extra_bytes)
    b += j->ops->extra_bytes(j);
  return b;
}

int jcand_grow(jcand *c, int64_t n, bool with_row, lm_error *err) {
  if (n <= c->cap)
    return 0;
  int64_t nc = c->cap ? c->cap : 1024;
  while (nc < n)
    nc *= 2;
  uint32_t *a = realloc(c->cl, (size_t)nc * 4);
  if (a)
    c->cl = a;
  uint32_t *b = realloc(c->cr, (size_t)nc * 4);
  if (b)
    c->cr = b;
  uint32_t *r = with_row ? realloc(c->crow, (size_t)nc * 4) : c->crow;
  if (r)
    c->crow = r;
  uint8_t *d = realloc(c->pass, (size_t)nc);
  if (d)
    c->pass = d;
  if (!a || !b || (with_row && !r) || !d)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
  c->cap = nc;
  return 0;
}

void jcand_free(jcand *c) {
  free(c->cl);
  free(c->cr);
  free(c->crow);
  free(c->pass);
  memset(c, 0, sizeof *c);
}
