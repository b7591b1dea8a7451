/*
 * exec/op_asof_join.c — LM_JOIN_ASOF and LM_JOIN_TEMPORAL (lm_join.h).
 *
 * Right rows are kept per key in a chain ordered by their version time
 * (ASOF: the row's time; TEMPORAL: the time a version starts; equal times
 * in arrival order). Left rows wait in the left store, chained per key in
 * time order and in a min-heap by time, until the right watermark makes
 * their answer final:
 *  - BACKWARD: wm_right > t (>= t when strict): later right rows are not
 *    earlier than t;
 *  - FORWARD: the first right row f with f.time >= t (> t when strict) is
 *    final once wm_right > f.time; none can come within the tolerance once
 *    wm_right > t + tolerance;
 *  - NEAREST: the backward part is final and the forward part is final or
 *    can no longer beat the backward row (wm_right - t >= t - b.time; a tie
 *    goes to the earlier row);
 *  - everything at the final watermark (INT64_MAX).
 * Among right rows with equal times, BACKWARD takes the last arrived and
 * FORWARD the first. A tolerance bounds |left.time - right.time|.
 *
 * ASOF with a residual (ON conditions besides the keys and the match
 * condition): as DuckDB, the residual filters the candidates before the
 * nearest is chosen — a left row meets the nearest right row of its key
 * for which the residual holds (answer_res). Right rows are then evicted
 * only by the tolerance (BACKWARD/NEAREST: an older row may be needed when
 * a later one fails the residual) or, FORWARD, when older than every
 * pending and future left row. TEMPORAL: the residual is evaluated on the
 * version valid at the left row's time (FALSE = no match).
 *
 * TEMPORAL: the right input is a versioned table's changelog keyed by the
 * join keys. +row at time t starts a version at t; a -row followed in the
 * same batch by a +row of the same key is the upsert's retraction (the new
 * version ends the old one); a -row alone is a delete, which ends the
 * version at max(right watermark, largest right time seen) with a
 * tombstone. Each left row meets the version valid at its time
 * (BACKWARD, inclusive, no tolerance; a tombstone = no match).
 *
 * Right state eviction per key (when a right row arrives for the key and
 * when a left row of the key is decided), with L = min(wm_left, the
 * earliest pending left time of the key): BACKWARD/NEAREST/TEMPORAL drop a
 * row when a later row of the key has time <= L (< L when strict), and any
 * row older than L - tolerance; FORWARD drops rows older than L (<= L when
 * strict).
 *
 * Output: append-only; the output watermark is min(wm_left, wm_right, the
 * earliest pending left time).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/op_join_internal.h"

#define F_TOMB 2
#define H_VT 8 /* right slot: version time */

typedef struct jasof {
  jbase b;
  bool temporal;
  int tc[2];
  /* pending left rows: min-heap by time */
  int64_t *ht;
  uint32_t *hs;
  int64_t hn, hcap;
  int64_t max_rt;
  /* decided this round */
  uint32_t *dl, *dr, *redo;
  int64_t *rt;
  uint8_t *pass;
  int64_t dn, dcap, rn;
} jasof;

static int hp_push(jasof *u, int64_t t, uint32_t s) {
  if (u->hn == u->hcap) {
    int64_t nc = u->hcap ? u->hcap * 2 : 1024;
    int64_t *a = realloc(u->ht, (size_t)nc * 8);
    if (a)
      u->ht = a;
    uint32_t *b = realloc(u->hs, (size_t)nc * 4);
    if (b)
      u->hs = b;
    if (!a || !b)
      return -1;
    u->hcap = nc;
  }
  int64_t i = u->hn++;
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (u->ht[p] <= t)
      break;
    u->ht[i] = u->ht[p];
    u->hs[i] = u->hs[p];
    i = p;
  }
  u->ht[i] = t;
  u->hs[i] = s;
  return 0;
}

static void hp_pop(jasof *u) {
  int64_t n = --u->hn;
  if (n == 0)
    return;
  int64_t t = u->ht[n];
  uint32_t s = u->hs[n];
  int64_t i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && u->ht[c + 1] < u->ht[c])
      c++;
    if (u->ht[c] >= t)
      break;
    u->ht[i] = u->ht[c];
    u->hs[i] = u->hs[c];
    i = c;
  }
  u->ht[i] = t;
  u->hs[i] = s;
}

static inline int64_t rvt(const jbase *j, uint32_t i) {
  int64_t v;
  memcpy(&v, js_slot(&j->st[1], i) + H_VT, 8);
  return v;
}
static inline int64_t lt_of(const jasof *u, uint32_t i) {
  return js_i64(&u->b.st[0], i, u->tc[0]);
}
static inline bool is_tomb(const jbase *j, uint32_t i) {
  return js_slot(&j->st[1], i)[j->st[1].flag_off] & F_TOMB;
}

/* Inserts slot i with time t into side s's time-ordered chain of e. */
static void chain_insert(jasof *u, int s, uint32_t e, uint32_t i, int64_t t) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  jentry *en = &j->kt.ents[e];
  js_set_next(st, i, JNONE);
  if (en->head[s] == JNONE) {
    en->head[s] = en->tail[s] = i;
    return;
  }
  int64_t tt = s ? rvt(j, en->tail[s]) : lt_of(u, en->tail[s]);
  if (tt <= t) {
    js_set_next(st, en->tail[s], i);
    en->tail[s] = i;
    return;
  }
  uint32_t prev = JNONE, c = en->head[s];
  while (c != JNONE && (s ? rvt(j, c) : lt_of(u, c)) <= t) {
    prev = c;
    c = js_next(st, c);
  }
  js_set_next(st, i, c);
  if (prev == JNONE)
    en->head[s] = i;
  else
    js_set_next(st, prev, i);
}

static void chain_remove(jbase *j, int s, uint32_t e, uint32_t i) {
  jstore *st = &j->st[s];
  jentry *en = &j->kt.ents[e];
  uint32_t prev = JNONE, c = en->head[s];
  while (c != JNONE && c != i) {
    prev = c;
    c = js_next(st, c);
  }
  if (c == JNONE)
    return;
  uint32_t nx = js_next(st, i);
  if (prev == JNONE)
    en->head[s] = nx;
  else
    js_set_next(st, prev, nx);
  if (en->tail[s] == i)
    en->tail[s] = prev;
}

static bool backward_like(const jbase *j) {
  return j->spec.algo == LM_JOIN_TEMPORAL ||
         j->spec.asof_dir != LM_ASOF_FORWARD;
}

/* Drops right rows of entry e no pending or future left row can meet. */
static void evict_right(jasof *u, uint32_t e) {
  jbase *j = &u->b;
  jstore *rs = &j->st[1];
  jentry *en = &j->kt.ents[e];
  int64_t L = j->wm[0];
  if (en->head[0] != JNONE) {
    int64_t t = lt_of(u, en->head[0]);
    if (t < L)
      L = t;
  }
  if (L == INT64_MIN)
    return;
  if (L == INT64_MAX) { /* no left row will come: nothing is needed */
    while (en->head[1] != JNONE) {
      uint32_t h = en->head[1];
      en->head[1] = js_next(rs, h);
      js_del(rs, h);
    }
    en->tail[1] = JNONE;
    return;
  }
  bool strict = j->spec.algo == LM_JOIN_ASOF && j->spec.asof_strict;
  int64_t tol = j->spec.algo == LM_JOIN_ASOF ? j->spec.asof_tolerance_us : -1;
  /* with a residual filtering candidates a later row does not hide an
   * earlier one */
  bool later_hides = !(j->spec.algo == LM_JOIN_ASOF && j->spec.residual);
  for (;;) {
    uint32_t h = en->head[1];
    if (h == JNONE)
      break;
    int64_t t = rvt(j, h);
    bool drop;
    if (backward_like(j)) {
      uint32_t nx = js_next(rs, h);
      drop = later_hides && nx != JNONE &&
             (strict ? rvt(j, nx) < L : rvt(j, nx) <= L);
      if (!drop && tol >= 0)
        drop = (__int128)L - t > tol;
      if (!drop && nx == JNONE && is_tomb(j, h))
        drop = t <= L;
    } else {
      drop = strict ? t <= L : t < L;
    }
    if (!drop)
      break;
    en->head[1] = js_next(rs, h);
    if (en->head[1] == JNONE)
      en->tail[1] = JNONE;
    js_del(rs, h);
  }
}

/* The answer for left row l (time t) of entry e, or JNONE; *final whether
 * it can no longer change. */
static uint32_t answer(jasof *u, uint32_t e, int64_t t, bool *final) {
  jbase *j = &u->b;
  const lm_join_spec *sp = &j->spec;
  int64_t wr = j->wm[1];
  bool end = wr == INT64_MAX;
  uint32_t b = JNONE, f = JNONE;
  bool strict = sp->algo == LM_JOIN_ASOF && sp->asof_strict;
  int64_t tol = sp->algo == LM_JOIN_ASOF ? sp->asof_tolerance_us : -1;
  lm_asof_dir dir =
      sp->algo == LM_JOIN_TEMPORAL ? LM_ASOF_BACKWARD : sp->asof_dir;
  if (e != JNONE)
    for (uint32_t i = j->kt.ents[e].head[1]; i != JNONE;
         i = js_next(&j->st[1], i)) {
      int64_t v = rvt(j, i);
      if (strict ? v < t : v <= t)
        b = i; /* the last one at or before t */
      if (f == JNONE && (strict ? v > t : v >= t))
        f = i;
      if (v > t && f != JNONE)
        break;
    }
  if (b != JNONE &&
      (is_tomb(j, b) || (tol >= 0 && (__int128)t - rvt(j, b) > tol)))
    b = JNONE;
  if (f != JNONE && tol >= 0 && (__int128)rvt(j, f) - t > tol)
    f = JNONE;
  bool bfinal = end || (strict ? wr >= t : wr > t);
  bool ffinal = end || (tol >= 0 && (__int128)wr > (__int128)t + tol) ||
                (f != JNONE && wr > rvt(j, f));
  switch (dir) {
  case LM_ASOF_BACKWARD:
    *final = bfinal;
    return b;
  case LM_ASOF_FORWARD:
    *final = ffinal;
    return f;
  default:
    break;
  }
  /* NEAREST: ties go to the earlier (backward) row */
  if (b != JNONE && (__int128)wr - t >= (__int128)t - rvt(j, b))
    ffinal = true;
  *final = bfinal && ffinal;
  if (b == JNONE)
    return f;
  if (f == JNONE)
    return b;
  return (__int128)rvt(j, f) - t < (__int128)t - rvt(j, b) ? f : b;
}

/* answer() for an ASOF join with a residual: the nearest right row of
 * entry e for which the residual holds on (left slot l, it). *r receives
 * it or JNONE; *final whether that can no longer change. Errors: the
 * residual's. */
static int answer_res(jasof *u, uint32_t e, uint32_t l, int64_t t, uint32_t *r,
                      bool *final, lm_error *err) {
  jbase *j = &u->b;
  const lm_join_spec *sp = &j->spec;
  int64_t wr = j->wm[1];
  bool end = wr == INT64_MAX;
  bool strict = sp->asof_strict;
  int64_t tol = sp->asof_tolerance_us;
  lm_asof_dir dir = sp->asof_dir;
  uint32_t b = JNONE, f = JNONE;
  *r = JNONE;
  /* the candidates in time order (equal times in arrival order) */
  int64_t n = 0;
  if (e != JNONE)
    for (uint32_t i = j->kt.ents[e].head[1]; i != JNONE;
         i = js_next(&j->st[1], i))
      n++;
  uint32_t *c = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  if (!c)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
  n = 0;
  if (e != JNONE)
    for (uint32_t i = j->kt.ents[e].head[1]; i != JNONE;
         i = js_next(&j->st[1], i))
      c[n++] = i;
  int rc = 0;
  uint8_t pass = 0;
  if (dir != LM_ASOF_FORWARD) /* backward: the latest passing row */
    for (int64_t k = n - 1; k >= 0 && b == JNONE && !rc; k--) {
      int64_t v = rvt(j, c[k]);
      if (strict ? v >= t : v > t)
        continue;
      if (tol >= 0 && (__int128)t - v > tol)
        break;
      rc = jb_residual(j, NULL, NULL, &l, &c[k], 1, &pass, err);
      if (!rc && pass)
        b = c[k];
    }
  if (dir != LM_ASOF_BACKWARD) /* forward: the first passing row */
    for (int64_t k = 0; k < n && f == JNONE && !rc; k++) {
      int64_t v = rvt(j, c[k]);
      if (strict ? v <= t : v < t)
        continue;
      if (tol >= 0 && (__int128)v - t > tol)
        break;
      rc = jb_residual(j, NULL, NULL, &l, &c[k], 1, &pass, err);
      if (!rc && pass)
        f = c[k];
    }
  free(c);
  if (rc)
    return rc;
  /* every right row older than wr is present: a passing row below it is
   * the first passing one for good */
  bool bfinal = end || (strict ? wr >= t : wr > t);
  bool ffinal = end || (tol >= 0 && (__int128)wr > (__int128)t + tol) ||
                (f != JNONE && wr > rvt(j, f));
  if (dir == LM_ASOF_BACKWARD) {
    *final = bfinal;
    *r = b;
    return 0;
  }
  if (dir == LM_ASOF_FORWARD) {
    *final = ffinal;
    *r = f;
    return 0;
  }
  /* NEAREST: ties go to the earlier (backward) row */
  if (b != JNONE && (__int128)wr - t >= (__int128)t - rvt(j, b))
    ffinal = true;
  *final = bfinal && ffinal;
  *r = b == JNONE                                          ? f
       : f == JNONE                                        ? b
       : (__int128)rvt(j, f) - t < (__int128)t - rvt(j, b) ? f
                                                           : b;
  return 0;
}

static int grow_dec(jasof *u, int64_t n, lm_error *err) {
  if (n <= u->dcap)
    return 0;
  int64_t nc = u->dcap ? u->dcap * 2 : 1024;
  while (nc < n)
    nc *= 2;
  uint32_t *a = realloc(u->dl, (size_t)nc * 4);
  if (a)
    u->dl = a;
  uint32_t *b = realloc(u->dr, (size_t)nc * 4);
  if (b)
    u->dr = b;
  uint32_t *c = realloc(u->redo, (size_t)nc * 4);
  if (c)
    u->redo = c;
  uint8_t *d = realloc(u->pass, (size_t)nc);
  if (d)
    u->pass = d;
  int64_t *f = realloc(u->rt, (size_t)nc * 8);
  if (f)
    u->rt = f;
  if (!a || !b || !c || !d || !f)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
  u->dcap = nc;
  return 0;
}

/* Decides the pending left rows whose answer is final. */
static int decide(jasof *u, lm_error *err) {
  jbase *j = &u->b;
  const int *const *keys = (const int *const *)j->keys;
  int64_t wr = j->wm[1];
  u->dn = u->rn = 0;
  int rc = 0;
  /* ASOF: the residual picks among the candidates (answer_res) */
  bool res_first = j->spec.algo == LM_JOIN_ASOF && j->spec.residual;
  /* only rows with t < wm_right (or all at the end) can be final */
  while (u->hn > 0 && (wr == INT64_MAX || u->ht[0] < wr ||
                       (j->spec.algo == LM_JOIN_ASOF && j->spec.asof_strict &&
                        u->ht[0] <= wr))) {
    uint32_t l = u->hs[0];
    int64_t t = u->ht[0];
    hp_pop(u);
    uint64_t h = js_key_hash(&j->st[0], l, j->keys[0], j->nk);
    uint32_t e = jk_find_slot(&j->kt, j->st, keys, j->nk, 0, l, h);
    bool final = false;
    uint32_t r = JNONE;
    if (res_first)
      rc = answer_res(u, e, l, t, &r, &final, err);
    else
      r = answer(u, e, t, &final);
    if (!rc)
      rc = grow_dec(u, (u->dn > u->rn ? u->dn : u->rn) + 1, err);
    if (rc) {
      if (hp_push(u, t, l))
        j->failed = true;
      for (int64_t k = 0; k < u->rn; k++)
        if (hp_push(u, u->rt[k], u->redo[k]))
          j->failed = true;
      return rc;
    }
    if (!final) {
      u->redo[u->rn] = l;
      u->rt[u->rn++] = t;
      continue;
    }
    u->dl[u->dn] = l;
    u->dr[u->dn++] = r;
  }
  for (int64_t k = 0; k < u->rn; k++)
    if (hp_push(u, u->rt[k], u->redo[k])) {
      j->failed = true;
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    }
  if (u->dn == 0)
    return 0;
  /* TEMPORAL: the residual on the chosen pairs */
  if (j->spec.residual && !res_first) {
    int64_t m = 0;
    for (int64_t k = 0; k < u->dn; k++)
      if (u->dr[k] != JNONE) {
        u->redo[m] = u->dl[k];
        u->rt[m++] = u->dr[k];
      }
    uint32_t *rr = malloc((size_t)(m ? m : 1) * 4);
    if (!rr)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    for (int64_t k = 0; k < m; k++)
      rr[k] = (uint32_t)u->rt[k];
    rc = jb_residual(j, NULL, NULL, u->redo, rr, m, u->pass, err);
    free(rr);
    if (rc)
      return rc;
    for (int64_t k = 0, q = 0; k < u->dn; k++)
      if (u->dr[k] != JNONE && !u->pass[q++])
        u->dr[k] = JNONE;
  }
  if ((rc = jo_sources(j, NULL, NULL, err)))
    return rc;
  for (int64_t k = 0; k < u->dn; k++) {
    if (u->dr[k] == JNONE && j->spec.type != LM_JOIN_LEFT)
      continue;
    if ((rc = jo_add(j, u->dl[k], u->dr[k], 1, err)))
      return rc;
  }
  rc = jo_flush(j, err);
  /* unlink and free the decided rows, then evict per key */
  for (int64_t k = 0; k < u->dn; k++) {
    uint32_t l = u->dl[k];
    uint64_t h = js_key_hash(&j->st[0], l, j->keys[0], j->nk);
    uint32_t e = jk_find_slot(&j->kt, j->st, keys, j->nk, 0, l, h);
    if (e != JNONE) {
      chain_remove(j, 0, e, l);
      evict_right(u, e);
      jk_maybe_remove(&j->kt, e);
    }
    js_del(&j->st[0], l);
  }
  u->dn = 0;
  return rc;
}

static int left_push(jasof *u, lm_batch *b, lm_error *err) {
  jbase *j = &u->b;
  const int *const *keys = (const int *const *)j->keys;
  int64_t n = b->num_rows;
  const lm_array *ta = b->columns[u->tc[0]];
  const int64_t *tv = lm_array_i64(ta);
  lm_array *kc[64];
  for (int k = 0; k < j->nk; k++)
    kc[k] = b->columns[j->keys[0][k]];
  int rc = jo_sources(j, b, NULL, err);
  if (rc)
    return rc;
  for (int64_t r = 0; r < n; r++) {
    if (lm_array_is_null(ta, r) || tv[r] < j->wm[0]) {
      j->op.late_dropped++;
      continue;
    }
    if (j->nul[r]) { /* NULL key: no match, decided now */
      if (j->spec.type == LM_JOIN_LEFT &&
          (rc = jo_add(j, (uint32_t)r, JNONE, 1, err)))
        return rc;
      continue;
    }
    uint32_t e = jk_find_add(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
    uint32_t i = e == JNONE ? JNONE : js_add(&j->st[0], b, r);
    if (i == JNONE || hp_push(u, tv[r], i)) {
      if (i != JNONE)
        js_del(&j->st[0], i);
      if (e != JNONE)
        jk_maybe_remove(&j->kt, e);
      j->failed = true;
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
    }
    chain_insert(u, 0, e, i, tv[r]);
  }
  if ((rc = jo_flush(j, err)))
    return rc;
  j->out.b[0] = NULL;
  return decide(u, err);
}

static int right_push(jasof *u, lm_batch *b, lm_error *err) {
  jbase *j = &u->b;
  const int *const *keys = (const int *const *)j->keys;
  int64_t n = b->num_rows;
  const lm_array *ta = b->columns[u->tc[1]];
  const int64_t *tv = lm_array_i64(ta);
  const int64_t *W = jb_weights(j, 1, b);
  lm_array *kc[64];
  for (int k = 0; k < j->nk; k++)
    kc[k] = b->columns[j->keys[1][k]];
  jstore *rs = &j->st[1];
  for (int64_t r = 0; r < n; r++) {
    int64_t w = W ? W[r] : 1;
    if (w == 0)
      continue;
    if (w > 0 && (lm_array_is_null(ta, r) || tv[r] < j->wm[1])) {
      j->op.late_dropped++;
      continue;
    }
    if (j->nul[r])
      continue; /* a NULL key never matches */
    if (w > 0) {
      uint32_t e = jk_find_add(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
      uint32_t i = e == JNONE ? JNONE : js_add(rs, b, r);
      if (i == JNONE) {
        if (e != JNONE)
          jk_maybe_remove(&j->kt, e);
        j->failed = true;
        return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
      }
      int64_t vt = tv[r];
      memcpy(js_slot(rs, i) + H_VT, &vt, 8);
      if (vt > u->max_rt)
        u->max_rt = vt;
      chain_insert(u, 1, e, i, vt);
      evict_right(u, e);
      continue;
    }
    /* a retraction */
    uint32_t e = jk_find(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
    if (u->temporal) {
      if (e == JNONE)
        continue; /* nothing valid to end */
      /* an upsert: a later +row of the same key (compared by value, not
       * by hash alone: jk_find finds e again only for an equal key) */
      bool upsert = false;
      for (int64_t q = r + 1; q < n && !upsert; q++)
        upsert = (W ? W[q] : 1) > 0 && !j->nul[q] && j->hash[q] == j->hash[r] &&
                 jk_find(&j->kt, j->st, keys, j->nk, kc, q, j->hash[q]) == e;
      if (upsert)
        continue; /* the new version ends this one */
      uint32_t i = js_add(rs, b, r);
      if (i == JNONE) {
        j->failed = true;
        return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
      }
      int64_t vt = u->max_rt > j->wm[1] ? u->max_rt : j->wm[1];
      memcpy(js_slot(rs, i) + H_VT, &vt, 8);
      js_slot(rs, i)[rs->flag_off] |= F_TOMB;
      chain_insert(u, 1, e, i, vt);
      evict_right(u, e);
      continue;
    }
    /* ASOF: remove an identical row */
    uint32_t found = JNONE;
    if (e != JNONE)
      for (uint32_t i = j->kt.ents[e].head[1]; i != JNONE; i = js_next(rs, i))
        if (js_row_eq(rs, i, b, r)) {
          found = i;
          break;
        }
    if (found == JNONE)
      continue; /* evicted already (no left row can need it) or never held */
    chain_remove(j, 1, e, found);
    js_del(rs, found);
    jk_maybe_remove(&j->kt, e);
  }
  return 0;
}

static int asof_push(jbase *j, int s, lm_batch *b, lm_error *err) {
  jasof *u = (jasof *)j;
  if (j->nk > 64)
    return lm_err(err, LM_ERR_LIMIT, "join: more than 64 key columns");
  if (s == 0 && j->spec.side[0].changelog) {
    const int64_t *W = jb_weights(j, 0, b);
    for (int64_t r = 0; r < b->num_rows; r++)
      if (W[r] != 1)
        return lm_err(err, LM_ERR_EXEC,
                      "%s join: the left input is not append-only (row %lld "
                      "has __weight %lld)",
                      u->temporal ? "temporal" : "ASOF", (long long)r,
                      (long long)W[r]);
  }
  int rc = jb_hash_batch(j, s, b, err);
  if (rc)
    return rc;
  return s == 0 ? left_push(u, b, err) : right_push(u, b, err);
}

static int asof_watermark(jbase *j, int side, lm_error *err) {
  if (side == 1)
    return decide((jasof *)j, err);
  /* the left watermark frees right rows of keys that saw no activity:
   * a sweep when the right state is well above one row per key */
  if (j->st[1].live > 2 * j->kt.live + 64 || j->wm[0] == INT64_MAX) {
    for (uint32_t e = 0; e < j->kt.nents; e++) {
      jentry *en = &j->kt.ents[e];
      if (en->head[1] == JNONE)
        continue;
      evict_right((jasof *)j, e);
      jk_maybe_remove(&j->kt, e);
    }
  }
  return 0;
}

static int64_t asof_out_wm(const jbase *j) {
  const jasof *u = (const jasof *)j;
  int64_t w = j->wm[0] < j->wm[1] ? j->wm[0] : j->wm[1];
  if (u->hn > 0 && u->ht[0] < w)
    w = u->ht[0];
  return w;
}

static int64_t asof_extra(const jbase *j) {
  const jasof *u = (const jasof *)j;
  return u->hcap * 12 + u->dcap * 21;
}

static void asof_free(jbase *j) {
  jasof *u = (jasof *)j;
  free(u->ht);
  free(u->hs);
  free(u->dl);
  free(u->dr);
  free(u->redo);
  free(u->rt);
  free(u->pass);
}

static const jops asof_ops = {asof_push,  asof_watermark, NULL, asof_out_wm,
                              asof_extra, asof_free,      NULL};

lm_operator *lm_join_asof_new(const lm_join_spec *spec, lm_error *err) {
  const char *what = spec->algo == LM_JOIN_TEMPORAL ? "temporal" : "ASOF";
  if (spec->type != LM_JOIN_INNER && spec->type != LM_JOIN_LEFT) {
    lm_err(err, LM_ERR_BIND, "%s join: only INNER and LEFT joins are supported",
           what);
    return NULL;
  }
  jasof *u = calloc(1, sizeof *u);
  if (!u) {
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  u->temporal = spec->algo == LM_JOIN_TEMPORAL;
  u->max_rt = INT64_MIN;
  uint32_t hdrs[2] = {4, H_VT + 8};
  if (jb_init(&u->b, spec, hdrs, &asof_ops, err))
    goto fail;
  for (int s = 0; s < 2; s++) {
    int tc = spec->side[s].time_col;
    if (tc < 0) {
      lm_err(err, LM_ERR_BIND, "%s join: the %s input has no time column", what,
             s ? "right" : "left");
      goto fail;
    }
    lm_type_id id = spec->side[s].schema->fields[tc].type.id;
    if (id != LM_TYPE_TIMESTAMP && id != LM_TYPE_INT64) {
      lm_err(err, LM_ERR_BIND,
             "%s join: the %s time column is %s, not "
             "TIMESTAMP",
             what, s ? "right" : "left",
             lm_type_name(spec->side[s].schema->fields[tc].type));
      goto fail;
    }
    u->tc[s] = tc;
  }
  return &u->b.op;
fail:
  jb_destroy(&u->b);
  return NULL;
}
