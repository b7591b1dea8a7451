/*
 * exec/join_oneshot.c — the one-shot hash join of an ad-hoc SELECT
 * (lm_join_oneshot.h): the smaller input is hashed once, the larger one
 * probed slice by slice, and the joined rows leave as batches gathered
 * from the two inputs by row index (a run of consecutive probe rows is a
 * zero-copy slice; a column nothing reads after the join is NULL), so
 * that the next operator (filter, aggregate, projection) consumes them
 * while they are in cache. No per-row allocation: the table is one array
 * of 64-bit slots (the key hash's high 32 bits over the build row + 1),
 * duplicates chained through one uint32 per build row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_join_oneshot.h"
#include "exec/op_join_internal.h"

#define OJ_ROWS ((int64_t)65536) /* probe rows per slice */
/* rows per output batch: its columns stay in cache for the next operator */
#ifndef OJ_OUT
#define OJ_OUT ((int64_t)8192)
#endif
#define OJ_NONE UINT32_MAX
#define OJ_MAXK 64

enum { K_W8, K_FIX, K_F64, K_F32, K_BOOL, K_VAR };

/* How keys of type t are compared; -1 = not here (the updating join). */
static int key_kind(lm_type t) {
  switch (t.id) {
  case LM_TYPE_FLOAT64:
    return K_F64;
  case LM_TYPE_FLOAT32:
    return K_F32;
  case LM_TYPE_BOOL:
    return K_BOOL;
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY:
    return lm_type_is_jsonb(t) ? -1 : K_VAR;
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    return lm_type_width(t) == 8 ? K_W8 : K_FIX;
  default:
    return -1;
  }
}

bool lm_join_oneshot_ok(const lm_join_spec *sp, lm_batch *const side[2]) {
  if (sp->algo != LM_JOIN_UPDATING || sp->ttl_us > 0 || sp->side[0].changelog ||
      sp->side[1].changelog || sp->out_changelog)
    return false;
  int nk = sp->side[0].n_keys;
  if (nk > OJ_MAXK || sp->side[1].n_keys != nk)
    return false;
  bool left_only = sp->type == LM_JOIN_SEMI || sp->type == LM_JOIN_ANTI;
  int n0 = sp->side[0].schema->n_fields, n1 = sp->side[1].schema->n_fields;
  if (sp->out_schema->n_fields != (left_only ? n0 : n0 + n1))
    return false;
  for (int s = 0; s < 2; s++)
    if (!side[s] || side[s]->num_columns < sp->side[s].schema->n_fields ||
        side[s]->num_rows >= INT32_MAX)
      return false;
  for (int k = 0; k < nk; k++) {
    const lm_array *a = side[0]->columns[sp->side[0].keys[k]],
                   *b = side[1]->columns[sp->side[1].keys[k]];
    if (!lm_type_eq(a->type, b->type) || key_kind(a->type) < 0)
      return false;
  }
  return true;
}

typedef struct oj {
  const lm_join_spec *sp;
  int p, bs; /* the probed side, the hashed (build) side */
  int nk;
  int kind[OJ_MAXK];
  lm_array *bk[OJ_MAXK]; /* build key columns */
  lm_batch *build;
  int64_t nb;
  uint64_t *bh;   /* build rows' key hashes */
  uint32_t *next; /* next build row of the same key */
  uint64_t *tab;  /* tag << 32 | build row + 1; 0 = empty */
  uint64_t mask;
  /* one 8-byte integer key over a small range: the first build row + 1
   * of key dmin + i at dir[i] (no hashing) */
  uint32_t *dir;
  int64_t dmin;
  uint64_t drange;
  uint8_t *bmatched; /* per build row: met a match (padding, SEMI/ANTI) */
  bool pad[2];       /* side s's rows without a match are NULL-padded */
  bool left_only;    /* SEMI/ANTI: left columns only */
  /* pending output rows: per side a row of src[s] (-1 = NULL) */
  int32_t *oi[2];
  int64_t on;
  lm_batch *src[2];
  lm_array **pnull; /* per output column: cached all-NULL array (pruned) */
  lm_output_cb out;
  int64_t rows;
  /* residual */
  lm_schema *pair_schema;
  uint8_t *rcol; /* per pair column: read by the residual (NULL = all) */
  lm_array *rnull;
  int32_t *cq, *cr; /* candidate pairs: probe row, build row */
  uint8_t *pass;
  int64_t ccap;
} oj;

/* A column of n NULLs for pruned output column oc (side s, column c). */
static lm_array *null_col(oj *j, int oc, int s, int c, int64_t n) {
  lm_array *z = j->pnull[oc];
  if (!z || z->length < n) {
    lm_array *nz =
        lm_array_new_null(j->sp->side[s].schema->fields[c].type, OJ_OUT);
    if (!nz)
      return NULL;
    lm_array_release(z);
    j->pnull[oc] = z = nz;
  }
  return lm_array_slice(z, 0, n);
}

/* Emits the pending rows as one batch. */
static int oj_flush(oj *j, lm_error *err) {
  int64_t n = j->on;
  if (!n)
    return 0;
  j->on = 0;
  int nf = j->sp->out_schema->n_fields, oc = 0, rc = 0;
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
  for (int s = 0; s < (j->left_only ? 1 : 2) && !rc; s++) {
    const int32_t *ix = j->oi[s];
    /* consecutive rows of the source: a slice, no copy */
    bool run = ix[0] >= 0;
    for (int64_t i = 1; run && i < n; i++)
      run = ix[i] == ix[0] + i;
    const bool *pr = j->sp->side[s].pruned;
    for (int c = 0; c < j->sp->side[s].schema->n_fields; c++, oc++) {
      lm_array *a = j->src[s]->columns[c];
      cols[oc] = pr && pr[c] ? null_col(j, oc, s, c, n)
                 : run       ? lm_array_slice(a, ix[0], n)
                             : lm_array_take_nullable(a, ix, n);
      if (!cols[oc]) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
        break;
      }
    }
  }
  lm_batch *b = NULL;
  if (!rc) {
    b = lm_batch_new(lm_schema_retain(j->sp->out_schema), n, cols);
    memset(cols, 0, sizeof *cols * (size_t)nf); /* taken (also on OOM) */
    if (!b)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join output)");
  }
  for (int c = 0; c < nf; c++)
    if (cols[c])
      lm_array_release(cols[c]);
  free(cols);
  if (!rc) {
    j->rows += n;
    rc = j->out.batch(j->out.ctx, b, err);
  }
  lm_batch_release(b);
  return rc;
}

/* Adds an output row: row l of the left source, r of the right (-1 =
 * NULL). */
static inline int oj_add(oj *j, int32_t l, int32_t r, lm_error *err) {
  if (j->on == OJ_OUT) {
    int rc = oj_flush(j, err);
    if (rc)
      return rc;
  }
  j->oi[0][j->on] = l;
  j->oi[1][j->on] = r;
  j->on++;
  return 0;
}

/* Adds the pair (probe row q, build row r; -1 = NULL). */
static inline int oj_pair(oj *j, int32_t q, int32_t r, lm_error *err) {
  return j->p == 0 ? oj_add(j, q, r, err) : oj_add(j, r, q, err);
}

static inline uint32_t next_of(const oj *j, uint32_t r) {
  return j->next[r];
}

/* Row x of key columns xa equals row y of ya (non-NULL, same types). */
static inline bool keys_eq(const oj *j, lm_array *const *xa, int64_t x,
                           lm_array *const *ya, int64_t y) {
  for (int k = 0; k < j->nk; k++) {
    const lm_array *a = xa[k], *b = ya[k];
    switch (j->kind[k]) {
    case K_W8:
      if (lm_array_i64(a)[x] != lm_array_i64(b)[y])
        return false;
      break;
    case K_FIX: {
      int w = lm_type_width(a->type);
      if (memcmp(a->values->data + (size_t)(a->offset + x) * (size_t)w,
                 b->values->data + (size_t)(b->offset + y) * (size_t)w,
                 (size_t)w))
        return false;
      break;
    }
    case K_F64: {
      double u = lm_array_f64(a)[x], v = lm_array_f64(b)[y];
      if (!(u == v || (isnan(u) && isnan(v))))
        return false;
      break;
    }
    case K_F32: {
      float u = lm_array_f32(a)[x], v = lm_array_f32(b)[y];
      if (!(u == v || (isnan(u) && isnan(v))))
        return false;
      break;
    }
    case K_BOOL:
      if (lm_array_bool(a, x) != lm_array_bool(b, y))
        return false;
      break;
    default: {
      int64_t la, lb;
      const uint8_t *pa = lm_array_bytes(a, x, &la),
                    *pb = lm_array_bytes(b, y, &lb);
      if (la != lb || (la && memcmp(pa, pb, (size_t)la)))
        return false;
    }
    }
  }
  return true;
}

/* Key hashes of rows 0..n of key columns kc into h, NULL flags into nul. */
static void hash_keys(const oj *j, lm_array *const *kc, int64_t n, uint64_t *h,
                      uint8_t *nul) {
  if (j->nk == 0) { /* no equi-key: every pair is a candidate */
    memset(h, 0, (size_t)n * sizeof *h);
    memset(nul, 0, (size_t)n);
  } else
    jk_hash_rows(kc, j->nk, n, h, nul);
}

/* Hashes the build side. */
static int oj_build(oj *j, lm_error *err) {
  int64_t n = j->nb;
  uint64_t cap = 16;
  while (cap < (uint64_t)n * 2)
    cap *= 2;
  j->mask = cap - 1;
  j->bh = malloc((size_t)(n ? n : 1) * sizeof *j->bh);
  j->next = malloc((size_t)(n ? n : 1) * sizeof *j->next);
  j->tab = calloc(cap, sizeof *j->tab);
  uint8_t *nul = malloc((size_t)(n ? n : 1));
  uint32_t *tail = malloc((size_t)(n ? n : 1) * sizeof *tail);
  int rc = 0;
  if (!j->bh || !j->next || !j->tab || !nul || !tail) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    goto done;
  }
  if (j->nk == 1 && j->kind[0] == K_W8 && n > 0) {
    /* a dense range of integer keys (a dimension's ids): direct index */
    const lm_array *a = j->bk[0];
    const int64_t *v = lm_array_i64(a);
    bool any = false;
    int64_t lo = 0, hi = 0;
    for (int64_t r = 0; r < n; r++)
      if (!lm_array_is_null(a, r)) {
        lo = !any || v[r] < lo ? v[r] : lo;
        hi = !any || v[r] > hi ? v[r] : hi;
        any = true;
      }
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1,
             lim = (uint64_t)n * 4 > 4096 ? (uint64_t)n * 4 : 4096;
    if (any && range && range <= lim && range <= ((uint64_t)1 << 26) &&
        (j->dir = calloc(range, sizeof *j->dir))) {
      j->dmin = lo;
      j->drange = range;
      for (int64_t r = 0; r < n; r++) {
        j->next[r] = OJ_NONE;
        if (lm_array_is_null(a, r))
          continue;
        uint64_t d = (uint64_t)v[r] - (uint64_t)lo;
        if (!j->dir[d]) {
          j->dir[d] = (uint32_t)r + 1;
          tail[r] = (uint32_t)r;
        } else {
          uint32_t hd = j->dir[d] - 1;
          j->next[tail[hd]] = (uint32_t)r;
          tail[hd] = (uint32_t)r;
        }
      }
      goto done;
    }
  }
  hash_keys(j, j->bk, n, j->bh, nul);
  for (int64_t r = 0; r < n; r++) {
    j->next[r] = OJ_NONE;
    if (nul[r])
      continue;
    uint64_t h = j->bh[r], tag = h >> 32, slot = h & j->mask;
    for (;;) {
      uint64_t e = j->tab[slot];
      if (!e) {
        j->tab[slot] = tag << 32 | (uint64_t)(r + 1);
        tail[r] = (uint32_t)r;
        break;
      }
      uint32_t hd = (uint32_t)e - 1;
      if (e >> 32 == tag && keys_eq(j, j->bk, hd, j->bk, r)) {
        j->next[tail[hd]] = (uint32_t)r;
        tail[hd] = (uint32_t)r;
        break;
      }
      slot = (slot + 1) & j->mask;
    }
  }
done:
  free(nul);
  free(tail);
  return rc;
}

/* The first build row with the key of probe row q (hash h), or OJ_NONE. */
static inline uint32_t oj_find(const oj *j, lm_array *const *pk, int64_t q,
                               uint64_t h, bool w8) {
  uint64_t tag = h >> 32, slot = h & j->mask, e;
  if (w8) { /* one 8-byte key: compare the values directly */
    int64_t v = lm_array_i64(pk[0])[q];
    const int64_t *bv = lm_array_i64(j->bk[0]);
    while ((e = j->tab[slot])) {
      uint32_t r = (uint32_t)e - 1;
      if (e >> 32 == tag && bv[r] == v)
        return r;
      slot = (slot + 1) & j->mask;
    }
    return OJ_NONE;
  }
  while ((e = j->tab[slot])) {
    uint32_t r = (uint32_t)e - 1;
    if (e >> 32 == tag && keys_eq(j, pk, q, j->bk, r))
      return r;
    slot = (slot + 1) & j->mask;
  }
  return OJ_NONE;
}

/* The first build row with probe row q's key (one dense integer key), or
 * OJ_NONE. */
static inline uint32_t oj_dense(const oj *j, const lm_array *a,
                                const int64_t *v, bool nulls, int64_t q) {
  if (nulls && lm_array_is_null(a, q))
    return OJ_NONE;
  uint64_t d = (uint64_t)v[q] - (uint64_t)j->dmin;
  return d < j->drange ? j->dir[d] - 1 : OJ_NONE; /* 0 - 1 = OJ_NONE */
}

/* The first build row with probe row q's key, or OJ_NONE. */
static inline uint32_t oj_head(const oj *j, lm_array *const *pk,
                               const uint64_t *h, const uint8_t *nul, int64_t q,
                               bool w8, const int64_t *dv, bool dnulls) {
  if (j->dir)
    return oj_dense(j, pk[0], dv, dnulls, q);
  return nul[q] ? OJ_NONE : oj_find(j, pk, q, h[q], w8);
}

/* The residual over candidate pairs cq[i] (probe row of src[p]) / cr[i]
 * (build row) into j->pass. */
static int oj_residual(oj *j, int64_t n, lm_error *err) {
  int n0 = j->sp->side[0].schema->n_fields,
      n1 = j->sp->side[1].schema->n_fields, nf = n0 + n1, oc = 0, rc = 0;
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
  for (int s = 0; s < 2 && !rc; s++) {
    const int32_t *ix = s == j->p ? j->cq : j->cr;
    for (int c = 0; c < (s ? n1 : n0); c++, oc++) {
      if (j->rcol && !j->rcol[oc]) { /* not read: a placeholder */
        if (!j->rnull || j->rnull->length < n) {
          lm_array_release(j->rnull);
          j->rnull = lm_array_new_null(lm_type_make(LM_TYPE_NULL), j->ccap);
        }
        cols[oc] = j->rnull ? lm_array_slice(j->rnull, 0, n) : NULL;
      } else
        cols[oc] = lm_array_take_nullable(j->src[s]->columns[c], ix, n);
      if (!cols[oc])
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
    }
  }
  lm_batch *pb = NULL;
  if (!rc) {
    pb = lm_batch_new(lm_schema_retain(j->pair_schema), n, cols);
    memset(cols, 0, sizeof *cols * (size_t)nf);
    if (!pb)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join residual)");
  }
  for (int c = 0; c < nf; c++)
    if (cols[c])
      lm_array_release(cols[c]);
  free(cols);
  lm_array *pred = NULL;
  if (!rc && (rc = lm_eval(j->sp->residual, pb, &pred, err)))
    lm_err_prefix(err, "join condition: ");
  lm_batch_release(pb);
  if (!rc && pred->type.id != LM_TYPE_BOOL)
    rc = lm_err(err, LM_ERR_EXEC, "join condition is not BOOLEAN");
  for (int64_t i = 0; !rc && i < n; i++)
    j->pass[i] = !lm_array_is_null(pred, i) && lm_array_bool(pred, i);
  lm_array_release(pred);
  return rc;
}

/* What probe row q emits once its matches are known (any: one passed). */
static inline int oj_probe_done(oj *j, int32_t q, bool any, lm_error *err) {
  lm_join_type t = j->sp->type;
  if (j->p == 0 && t == LM_JOIN_SEMI)
    return any ? oj_add(j, q, -1, err) : 0;
  if (j->p == 0 && t == LM_JOIN_ANTI)
    return any ? 0 : oj_add(j, q, -1, err);
  if (j->pad[j->p] && !any)
    return oj_pair(j, q, -1, err);
  return 0;
}

/* Probes the rows of one slice (src[p]). */
static int oj_probe(oj *j, uint64_t *h, uint8_t *nul, lm_error *err) {
  lm_batch *b = j->src[j->p];
  int64_t n = b->num_rows;
  lm_array *pk[OJ_MAXK];
  for (int k = 0; k < j->nk; k++)
    pk[k] = b->columns[j->sp->side[j->p].keys[k]];
  const int64_t *dv = NULL;
  bool dnulls = false;
  if (j->dir) {
    dv = lm_array_i64(pk[0]);
    dnulls = pk[0]->validity && pk[0]->null_count;
  } else
    hash_keys(j, pk, n, h, nul);
  bool w8 = j->nk == 1 && j->kind[0] == K_W8;
  bool pairs = !j->left_only, mark = j->bmatched != NULL;
  /* SEMI/ANTI probing the left side: the first match decides */
  bool first_only = j->left_only && j->p == 0;
  int rc = 0;
  if (!j->sp->residual) {
    for (int64_t q = 0; q < n && !rc; q++) {
      uint32_t r = oj_head(j, pk, h, nul, q, w8, dv, dnulls);
      bool any = r != OJ_NONE;
      for (; r != OJ_NONE && !rc; r = next_of(j, r)) {
        if (mark)
          j->bmatched[r] = 1;
        if (first_only)
          break;
        if (pairs)
          rc = oj_pair(j, (int32_t)q, (int32_t)r, err);
      }
      if (!rc)
        rc = oj_probe_done(j, (int32_t)q, any, err);
    }
    return rc;
  }
  /* with a residual: the candidate pairs of a run of rows, the residual
   * over all of them at once, then the rows in order */
  for (int64_t q0 = 0; q0 < n && !rc;) {
    int64_t nc = 0, q1 = q0;
    for (; q1 < n && (q1 == q0 || nc < OJ_ROWS); q1++) {
      for (uint32_t r = oj_head(j, pk, h, nul, q1, w8, dv, dnulls);
           r != OJ_NONE; r = next_of(j, r)) {
        if (nc == j->ccap) {
          int64_t cap = j->ccap * 2;
          int32_t *a = realloc(j->cq, (size_t)cap * 4);
          if (a)
            j->cq = a;
          int32_t *c = realloc(j->cr, (size_t)cap * 4);
          if (c)
            j->cr = c;
          uint8_t *d = realloc(j->pass, (size_t)cap);
          if (d)
            j->pass = d;
          if (!a || !c || !d)
            return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
          j->ccap = cap;
        }
        j->cq[nc] = (int32_t)q1;
        j->cr[nc] = (int32_t)r;
        nc++;
      }
    }
    if (nc && (rc = oj_residual(j, nc, err)))
      return rc;
    int64_t c = 0;
    for (int64_t q = q0; q < q1 && !rc; q++) {
      bool any = false;
      for (; c < nc && j->cq[c] == q && !rc; c++) {
        if (!j->pass[c])
          continue;
        any = true;
        if (mark)
          j->bmatched[j->cr[c]] = 1;
        if (pairs)
          rc = oj_pair(j, (int32_t)q, j->cr[c], err);
      }
      if (!rc)
        rc = oj_probe_done(j, (int32_t)q, any, err);
    }
    q0 = q1;
  }
  return rc;
}

/* The build rows emitted at the end: unmatched ones NULL-padded (the
 * build side preserved), or the left rows of SEMI / ANTI. */
static int oj_build_rest(oj *j, lm_error *err) {
  lm_join_type t = j->sp->type;
  int rc = 0;
  for (int64_t r = 0; r < j->nb && !rc; r++) {
    bool m = j->bmatched[r];
    if (j->left_only) {
      if (m == (t == LM_JOIN_SEMI))
        rc = oj_add(j, (int32_t)r, -1, err);
    } else if (!m)
      rc = oj_pair(j, -1, (int32_t)r, err);
  }
  return rc;
}

int lm_join_oneshot(const lm_join_spec *sp, lm_batch *const side[2],
                    lm_output_cb out, int64_t *rows, lm_error *err) {
  oj j;
  memset(&j, 0, sizeof j);
  j.sp = sp;
  j.out = out;
  j.nk = sp->side[0].n_keys;
  j.bs = side[1]->num_rows < side[0]->num_rows ? 1 : 0;
  j.p = 1 - j.bs;
  j.build = side[j.bs];
  j.nb = j.build->num_rows;
  j.left_only = sp->type == LM_JOIN_SEMI || sp->type == LM_JOIN_ANTI;
  j.pad[0] = sp->type == LM_JOIN_LEFT || sp->type == LM_JOIN_FULL;
  j.pad[1] = sp->type == LM_JOIN_RIGHT || sp->type == LM_JOIN_FULL;
  for (int k = 0; k < j.nk; k++) {
    j.bk[k] = j.build->columns[sp->side[j.bs].keys[k]];
    j.kind[k] = key_kind(j.bk[k]->type);
  }
  int nf = sp->out_schema->n_fields;
  int64_t ns = side[j.p]->num_rows < OJ_ROWS ? side[j.p]->num_rows : OJ_ROWS;
  uint64_t *h = malloc((size_t)(ns + 1) * sizeof *h);
  uint8_t *nul = malloc((size_t)(ns + 1));
  j.oi[0] = malloc((size_t)OJ_OUT * sizeof(int32_t));
  j.oi[1] = malloc((size_t)OJ_OUT * sizeof(int32_t));
  j.pnull = calloc((size_t)nf + 1, sizeof *j.pnull);
  bool need_mark = j.pad[j.bs] || (j.left_only && j.bs == 0);
  if (need_mark)
    j.bmatched = calloc((size_t)(j.nb + 1), 1);
  int rc = 0;
  if (!h || !nul || !j.oi[0] || !j.oi[1] || !j.pnull ||
      (need_mark && !j.bmatched))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
  if (!rc && sp->residual) {
    int n0 = sp->side[0].schema->n_fields, n1 = sp->side[1].schema->n_fields;
    j.ccap = 1024;
    j.cq = malloc((size_t)j.ccap * 4);
    j.cr = malloc((size_t)j.ccap * 4);
    j.pass = malloc((size_t)j.ccap);
    j.rcol = calloc((size_t)(n0 + n1) + 1, 1);
    j.pair_schema = lm_schema_new(n0 + n1);
    if (!j.cq || !j.cr || !j.pass || !j.rcol || !j.pair_schema)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    for (int c = 0; !rc && c < n0 + n1; c++) {
      const lm_field *f = c < n0 ? &sp->side[0].schema->fields[c]
                                 : &sp->side[1].schema->fields[c - n0];
      if (lm_schema_set_field(j.pair_schema, c, f->name, f->type, f->nullable))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    }
    if (!rc && !lm_bexpr_mark_cols(sp->residual, j.rcol, n0 + n1)) {
      free(j.rcol); /* every column */
      j.rcol = NULL;
    }
  }
  if (!rc)
    rc = oj_build(&j, err);
  j.src[j.bs] = j.build;
  lm_batch *probe = side[j.p];
  for (int64_t off = 0; !rc && off < probe->num_rows; off += OJ_ROWS) {
    int64_t len =
        probe->num_rows - off < OJ_ROWS ? probe->num_rows - off : OJ_ROWS;
    lm_batch *sl = off == 0 && len == probe->num_rows
                       ? lm_batch_retain(probe)
                       : lm_batch_slice(probe, off, len);
    if (!sl) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
      break;
    }
    j.src[j.p] = sl;
    rc = oj_probe(&j, h, nul, err);
    if (!rc)
      rc = oj_flush(&j, err); /* the pending rows point into sl */
    j.src[j.p] = NULL;
    lm_batch_release(sl);
  }
  j.src[j.p] = probe;
  if (!rc && j.bmatched)
    rc = oj_build_rest(&j, err);
  if (!rc)
    rc = oj_flush(&j, err);
  if (rows)
    *rows = j.rows;
  free(h);
  free(nul);
  free(j.oi[0]);
  free(j.oi[1]);
  for (int c = 0; j.pnull && c < nf; c++)
    lm_array_release(j.pnull[c]);
  free(j.pnull);
  free(j.bmatched);
  free(j.bh);
  free(j.next);
  free(j.tab);
  free(j.dir);
  free(j.cq);
  free(j.cr);
  free(j.pass);
  free(j.rcol);
  lm_array_release(j.rnull);
  lm_schema_release(j.pair_schema);
  return rc;
}
