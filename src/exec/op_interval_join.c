/*
 * exec/op_interval_join.c — LM_JOIN_INTERVAL (lm_join.h): right.time -
 * left.time in [lo_us, hi_us] (each end strict or inclusive) on equal keys.
 *
 * State per side: rows in the side's jstore, chained per key in arrival
 * order (O(1) appends), and a binary min-heap of (time, slot) that drives
 * eviction. A new row probes the other side's chain of its key, stopping
 * once the chain's times (known up to the largest disorder seen) are past
 * the bound, then is stored unless nothing can match it any more.
 * Evicted rows are marked dead and freed lazily (by the next probe of
 * their key, or by a sweep once they are many).
 * Each pair is therefore emitted once, by whichever row arrives second.
 * A left row is evicted when wm_right > time + hi (>= when hi is strict),
 * a right row when wm_left > time - lo (>= when lo is strict); outer rows
 * that never matched are NULL-padded then (LEFT/FULL/ANTI for left rows,
 * RIGHT/FULL for right rows), before the output watermark moves past them.
 * SEMI emits a left row at its first match. Rows older than their own
 * side's watermark are late (late_dropped). Rows with a NULL key or a
 * NULL time never match (the bound compares with NULL, as in
 * PostgreSQL): never stored nor counted late; outer ones (ANTI: the row
 * as is) are padded at once. Bounds and times are compared in 128-bit
 * arithmetic, so no extreme overflows.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/op_join_internal.h"

#define F_MATCHED 2
#define F_DEAD 4

typedef struct jheap {
  int64_t *t;
  uint32_t *s;
  int64_t n, cap;
} jheap;

typedef struct jint {
  jbase b;
  jheap hp[2];
  int tc[2];
  jcand cand;           /* candidates (with a residual) */
  int64_t dead[2];      /* evicted rows not freed yet (heap sides) */
  bool heap[2];         /* side s keeps an eviction heap (outer side) */
  int64_t swept[2];     /* live rows after the last sweep */
  __int128 disorder[2]; /* see chain_insert */
  int64_t max_t[2];
  /* dynamic filter (lm_join_set_dynfilter), and per batch a cache of the
   * bounds read (window start -> value; stale values stay valid bounds) */
  bool df_on;
  lm_join_dynfilter df;
  int64_t df_dropped;
  int df_n;
  int64_t df_ws[4], df_v[4];
  bool df_known[4];
  /* per batch: the times [dc_lo, dc_hi] that reach the same windows as
   * the last row tested, and their verdict: keep every row (dc_all) or
   * those with key >= dc_thr (MIN: <=) */
  bool dc_valid, dc_all;
  int64_t dc_lo, dc_hi, dc_thr;
} jint;

static int hp_push(jheap *h, int64_t t, uint32_t s) {
  if (h->n == h->cap) {
    int64_t nc = h->cap ? h->cap * 2 : 1024;
    int64_t *a = realloc(h->t, (size_t)nc * 8);
    if (a)
      h->t = a;
    uint32_t *b = realloc(h->s, (size_t)nc * 4);
    if (b)
      h->s = b;
    if (!a || !b)
      return -1;
    h->cap = nc;
  }
  int64_t i = h->n++;
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (h->t[p] <= t)
      break;
    h->t[i] = h->t[p];
    h->s[i] = h->s[p];
    i = p;
  }
  h->t[i] = t;
  h->s[i] = s;
  return 0;
}

static void hp_pop(jheap *h) {
  int64_t n = --h->n;
  if (n == 0)
    return;
  int64_t t = h->t[n];
  uint32_t s = h->s[n];
  int64_t i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h->t[c + 1] < h->t[c])
      c++;
    if (h->t[c] >= t)
      break;
    h->t[i] = h->t[c];
    h->s[i] = h->s[c];
    i = c;
  }
  h->t[i] = t;
  h->s[i] = s;
}

static bool pads(const jbase *j, int s) {
  lm_join_type t = j->spec.type;
  if (s == 0)
    return t == LM_JOIN_LEFT || t == LM_JOIN_FULL || t == LM_JOIN_ANTI;
  return t == LM_JOIN_RIGHT || t == LM_JOIN_FULL;
}

static inline bool in_bound(const lm_join_spec *sp, int64_t lt, int64_t rt) {
  __int128 d = (__int128)rt - lt;
  if (sp->lo_strict ? d <= sp->lo_us : d < sp->lo_us)
    return false;
  if (sp->hi_strict ? d >= sp->hi_us : d > sp->hi_us)
    return false;
  return true;
}

/* Whether a row of side s at time t can no longer match (the other side's
 * watermark is past its bound). */
static inline bool expired(const jbase *j, int s, int64_t t) {
  const lm_join_spec *sp = &j->spec;
  int64_t wo = j->wm[1 - s];
  if (wo == INT64_MAX)
    return true;
  if (s == 0) { /* future right rows have time >= wo */
    __int128 lim = (__int128)t + sp->hi_us;
    return sp->hi_strict ? wo >= lim : wo > lim;
  }
  /* future left rows have time >= wl; need lt <= rt - lo */
  __int128 lim = (__int128)t - sp->lo_us;
  return sp->lo_strict ? wo >= lim : wo > lim;
}

/* Appends slot i (time t) to side s's chain of entry e. Chains are in
 * arrival order; u->disorder[s] is the largest amount by which a row of
 * side s came earlier than the latest time the side had seen before it,
 * so rows that follow a row in a chain are never earlier than its time -
 * disorder (what lets probes stop early). */
static void chain_insert(jint *u, int s, uint32_t e, uint32_t i, int64_t t) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  jentry *en = &j->kt.ents[e];
  if (t < u->max_t[s]) {
    __int128 d = (__int128)u->max_t[s] - t;
    if (d > u->disorder[s])
      u->disorder[s] = d;
  } else
    u->max_t[s] = t;
  js_set_next(st, i, JNONE);
  if (en->head[s] == JNONE) {
    en->head[s] = en->tail[s] = i;
    return;
  }
  js_set_next(st, en->tail[s], i);
  en->tail[s] = i;
}

static inline void set_matched(jstore *st, uint32_t i) {
  js_slot(st, i)[st->flag_off] |= F_MATCHED;
}
static inline bool is_matched(const jstore *st, uint32_t i) {
  return js_slot(st, i)[st->flag_off] & F_MATCHED;
}
/* Whether row i of side s is evicted: flagged by the heap on an outer
 * side, else simply expired (a pure function of its time and the other
 * side's watermark, so an inner side needs no heap at all). */
static inline bool is_dead(const jint *u, int s, uint32_t i) {
  const jstore *st = &u->b.st[s];
  if (u->heap[s])
    return js_slot(st, i)[st->flag_off] & F_DEAD;
  return expired(&u->b, s, js_i64(st, i, u->tc[s]));
}
static void purge_chain(jint *u, int s, uint32_t e, bool head_only);

/* Emits or stores row r (side s) after its probe (matched = it met a
 * partner now). e: the key's entry found by the probe; e_live: it is still
 * in the key table (settled right after the probe), so no second lookup. */
static int settle_row(jint *u, int s, const lm_batch *b, int64_t r, int64_t t,
                      bool matched, uint32_t e, bool e_live, lm_error *err) {
  jbase *j = &u->b;
  lm_join_type ty = j->spec.type;
  const int *const *keys = (const int *const *)j->keys;
  int rc = 0;
  if (j->nul[r] == 1) { /* NULL key or time: never matches, never stored */
    if (pads(j, s))
      rc = s == 0 ? jo_add(j, (uint32_t)r, JNONE, 1, err)
                  : jo_add(j, JNONE, (uint32_t)r, 1, err);
    return rc;
  }
  if (s == 0 && ty == LM_JOIN_SEMI) {
    if (matched)
      return jo_add(j, (uint32_t)r, JNONE, 1, err); /* done with it */
  }
  if (expired(j, s, t)) {
    if (!matched && pads(j, s))
      rc = s == 0 ? jo_add(j, (uint32_t)r, JNONE, 1, err)
                  : jo_add(j, JNONE, (uint32_t)r, 1, err);
    return rc;
  }
  if (e == JNONE || (!e_live && j->kt.ents[e].head[1 - s] == JNONE)) {
    lm_array *kc[64];
    for (int k = 0; k < j->nk; k++)
      kc[k] = b->columns[j->keys[s][k]];
    e = jk_find_add(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
    if (e == JNONE)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join keys)");
  }
  uint32_t i = js_add(&j->st[s], b, r);
  if (i == JNONE || (u->heap[s] && hp_push(&u->hp[s], t, i))) {
    if (i != JNONE)
      js_del(&j->st[s], i);
    jk_maybe_remove(&j->kt, e);
    j->failed = true;
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
  }
  if (matched)
    set_matched(&j->st[s], i);
  chain_insert(u, s, e, i, t);
  return 0;
}

/* The dynamic filter's bound for the window starting at ws (cached for
 * the batch). */
static bool df_bound(jint *u, int64_t ws, int64_t *v) {
  for (int i = 0; i < u->df_n; i++)
    if (u->df_ws[i] == ws) {
      *v = u->df_v[i];
      return u->df_known[i];
    }
  bool k = u->df.bound(u->df.ctx, u->df.agg, u->df.max, ws, ws + u->df.size, v);
  int i = u->df_n < 4 ? u->df_n++ : (int)((uint64_t)ws / 7 % 4);
  u->df_ws[i] = ws;
  u->df_v[i] = k ? *v : 0;
  u->df_known[i] = k;
  return k;
}

/* Whether a row of the filtered side with key v at time t may still meet
 * a window of the other side: false only when every window whose time
 * (end or start) lies in the row's bound has a running value above v (MIN:
 * below), so its final value cannot equal v. */
static __attribute__((noinline)) bool df_keep_slow(jint *u, int64_t v,
                                                   int64_t t) {
  const lm_join_dynfilter *df = &u->df;
  const lm_join_spec *sp = &u->b.spec;
  __int128 c1, c2; /* the other side's time lies in [t + c1, t + c2] */
  if (df->side == 0) {
    c1 = (__int128)sp->lo_us + (sp->lo_strict ? 1 : 0);
    c2 = (__int128)sp->hi_us - (sp->hi_strict ? 1 : 0);
  } else {
    c1 = -(__int128)sp->hi_us + (sp->hi_strict ? 1 : 0);
    c2 = -(__int128)sp->lo_us - (sp->lo_strict ? 1 : 0);
  }
  if (df->time_is_end) {
    c1 -= df->size;
    c2 -= df->size;
  }
  __int128 a = t + c1, z = t + c2;
  __int128 sl = df->slide, rem, y = a - df->off;
  if (y >= INT64_MIN && y <= INT64_MAX) /* a 64-bit division */
    rem = (int64_t)y % df->slide;
  else
    rem = y % sl;
  if (rem < 0)
    rem += sl;
  __int128 ws0 = rem ? a + (sl - rem) : a; /* the first aligned start >= a */
  /* the verdict for every window in range: the smallest running MAX (the
   * largest MIN) a key must reach; unknown (or too many) windows keep */
  bool all = false;
  int64_t thr = df->max ? INT64_MAX : INT64_MIN;
  int n = 0;
  __int128 ws = ws0;
  for (; ws <= z; ws += sl) {
    int64_t b;
    if (++n > 8 || ws < INT64_MIN || ws + df->size > INT64_MAX ||
        !df_bound(u, (int64_t)ws, &b)) {
      all = true;
      break;
    }
    if (df->max ? b < thr : b > thr)
      thr = b;
  }
  if (n == 0)
    all = true; /* no window in range: keep (never reached for windows) */
  /* times t' reaching the same windows: the same first start (ws0 - sl <
   * t' + c1 <= ws0) and, when the loop saw them all, the same last one
   * (last <= t' + c2 < last + sl) */
  __int128 lo = ws0 - sl - c1 + 1, hi = ws0 - c1;
  if (n > 0 && ws > z) {
    __int128 last = ws - sl;
    if (last - c2 > lo)
      lo = last - c2;
    if (last + sl - c2 - 1 < hi)
      hi = last + sl - c2 - 1;
  } else {
    lo = hi = t;
  }
  u->dc_valid = lo <= t && t <= hi && lo >= INT64_MIN && hi <= INT64_MAX;
  u->dc_lo = (int64_t)(lo < INT64_MIN ? INT64_MIN : lo);
  u->dc_hi = (int64_t)(hi > INT64_MAX ? INT64_MAX : hi);
  u->dc_all = all;
  u->dc_thr = thr;
  return all || (df->max ? v >= thr : v <= thr);
}

/* df_keep_slow, the verdict of the last time range inlined */
static inline bool df_keep(jint *u, int64_t v, int64_t t) {
  if (u->dc_valid && t >= u->dc_lo && t <= u->dc_hi)
    return u->dc_all || (u->df.max ? v >= u->dc_thr : v <= u->dc_thr);
  return df_keep_slow(u, v, t);
}

static int int_push(jbase *j, int s, lm_batch *b, lm_error *err) {
  jint *u = (jint *)j;
  int o = 1 - s;
  int64_t n = b->num_rows;
  const lm_join_spec *sp = &j->spec;
  lm_join_type ty = sp->type;
  if (sp->side[s].changelog) {
    const int64_t *W = jb_weights(j, s, b);
    for (int64_t r = 0; r < n; r++)
      if (W[r] != 1)
        return lm_err(err, LM_ERR_EXEC,
                      "interval join: the %s input is not append-only "
                      "(row %lld has __weight %lld)",
                      s ? "right" : "left", (long long)r, (long long)W[r]);
  }
  int rc = jb_hash_batch(j, s, b, err);
  if (rc)
    return rc;
  if (j->nk > 64)
    return lm_err(err, LM_ERR_LIMIT, "join: more than 64 key columns");
  lm_array *kc[64];
  for (int k = 0; k < j->nk; k++)
    kc[k] = b->columns[j->keys[s][k]];
  const lm_array *ta = b->columns[u->tc[s]];
  const int64_t *tv = lm_array_i64(ta);
  const int *const *keys = (const int *const *)j->keys;
  jstore *ost = &j->st[o];
  int otc = u->tc[o];
  const lm_batch *lb = s == 0 ? b : NULL, *rb = s == 1 ? b : NULL;
  if ((rc = jo_sources(j, lb, rb, err)))
    return rc;
  bool pairs = ty != LM_JOIN_SEMI && ty != LM_JOIN_ANTI;
  bool resid = sp->residual != NULL;
  int64_t nc = 0;
  const int64_t *dfk = NULL; /* the filtered key column */
  if (u->df_on && u->df.side == s) {
    dfk = lm_array_i64(b->columns[j->keys[s][u->df.key]]);
    u->df_n = 0;
    u->dc_valid = false;
  }
  /* phase 1: probe (and, without a residual, settle at once) */
  for (int64_t r = 0; r < n; r++) {
    j->ent[r] = JNONE;
    if (lm_array_is_null(ta, r)) {
      /* a NULL time never satisfies the bound (as in PostgreSQL): like
       * a NULL key, the row is padded at once when outer, else ignored;
       * it is not late */
      j->nul[r] = 1;
      continue;
    }
    if (tv[r] < j->wm[s]) {
      j->op.late_dropped++;
      j->nul[r] = 2; /* skip */
      continue;
    }
    if (j->nul[r])
      continue;
    int64_t t = tv[r];
    if (dfk && !df_keep(u, dfk[r], t)) { /* can never match */
      u->df_dropped++;
      j->nul[r] = 2;
      continue;
    }
    if (r + 8 < n)
      jk_prefetch(&j->kt, j->hash[r + 8]);
    uint32_t e = jk_find(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
    bool matched = false;
    if (e != JNONE && (u->dead[o] > 0 || !u->heap[o])) {
      purge_chain(u, o, e, true);
      if (j->kt.ents[e].head[o] == JNONE && j->kt.ents[e].head[s] == JNONE) {
        jk_maybe_remove(&j->kt, e);
        e = JNONE;
      }
    }
    j->ent[r] = e;
    if (e != JNONE) {
      for (uint32_t y = j->kt.ents[e].head[o]; y != JNONE;
           y = js_next(ost, y)) {
        int64_t yt = js_i64(ost, y, otc);
        int64_t lt = s == 0 ? t : yt, rt = s == 0 ? yt : t;
        if (!in_bound(sp, lt, rt)) {
          /* later rows of the chain are not earlier than yt - disorder:
           * stop once even those would be past the bound */
          __int128 d = (__int128)rt - lt, dis = u->disorder[o];
          if (s == 0 && d - dis > sp->hi_us)
            break;
          if (s == 1 && d + dis < sp->lo_us)
            break;
          continue;
        }
        if (resid) {
          if (nc == u->cand.cap &&
              (rc = jcand_grow(&u->cand, nc + 1, true, err)))
            return rc;
          u->cand.cl[nc] = s == 0 ? (uint32_t)r : y;
          u->cand.cr[nc] = s == 0 ? y : (uint32_t)r;
          u->cand.crow[nc] = (uint32_t)r;
          nc++;
          continue;
        }
        matched = true;
        if (pairs)
          rc = s == 0 ? jo_add(j, (uint32_t)r, y, 1, err)
                      : jo_add(j, y, (uint32_t)r, 1, err);
        else if (s == 1 && ty == LM_JOIN_SEMI && !is_matched(ost, y))
          rc = jo_add(j, y, JNONE, 1, err);
        if (rc)
          return rc;
        set_matched(ost, y);
      }
    }
    if (!resid && (rc = settle_row(u, s, b, r, t, matched, e, true, err)))
      return rc;
  }
  if (!resid) {
    for (int64_t r = 0; r < n; r++) /* NULL keys/times: never match */
      if (j->nul[r] == 1 &&
          (rc = settle_row(u, s, b, r, 0, false, JNONE, false, err)))
        return rc;
    return 0;
  }
  /* phase 2: the residual over the candidates; phase 3: settle in order */
  if (nc && (rc = jcand_grow(&u->cand, nc, true, err)))
    return rc;
  if ((rc = jb_residual(j, lb, rb, u->cand.cl, u->cand.cr, nc, u->cand.pass,
                        err)))
    return rc;
  int64_t c = 0;
  for (int64_t r = 0; r < n; r++) {
    if (j->nul[r] == 2)
      continue;
    bool matched = false;
    for (; c < nc && u->cand.crow[c] == (uint32_t)r; c++) {
      if (!u->cand.pass[c])
        continue;
      uint32_t y = s == 0 ? u->cand.cr[c] : u->cand.cl[c];
      matched = true;
      if (pairs)
        rc = jo_add(j, u->cand.cl[c], u->cand.cr[c], 1, err);
      else if (s == 1 && ty == LM_JOIN_SEMI && !is_matched(ost, y))
        rc = jo_add(j, y, JNONE, 1, err);
      if (rc)
        return rc;
      set_matched(ost, y);
    }
    int64_t t = j->nul[r] ? 0 : tv[r]; /* unused for NULL keys/times */
    if ((rc = settle_row(u, s, b, r, t, matched, j->ent[r], false, err)))
      return rc;
  }
  return 0;
}

/* Frees the dead (evicted) rows of side s's chain of entry e: all of
 * them, or only those at the head. */
static void purge_chain(jint *u, int s, uint32_t e, bool head_only) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  jentry *en = &j->kt.ents[e];
  uint32_t prev = JNONE, c = en->head[s];
  while (c != JNONE) {
    uint32_t nx = js_next(st, c);
    if (is_dead(u, s, c)) {
      if (prev == JNONE)
        en->head[s] = nx;
      else
        js_set_next(st, prev, nx);
      if (en->tail[s] == c)
        en->tail[s] = prev;
      js_del(st, c);
      if (u->heap[s]) {
        u->dead[s]--;
        j->dead--;
      }
    } else if (head_only)
      break;
    else
      prev = c;
    c = nx;
  }
}

/* Frees every dead row of side s (the heap compacted once, at the end).
 * When the other side has ended (watermark INT64_MAX) on an inner side
 * every row is dead: the store is cleared at once. */
static void sweep(jint *u, int s) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  if (!u->heap[s] && j->wm[1 - s] == INT64_MAX) {
    for (uint32_t e = 0; e < j->kt.nents; e++) {
      if (j->kt.ents[e].head[s] == JNONE)
        continue;
      j->kt.ents[e].head[s] = j->kt.ents[e].tail[s] = JNONE;
      jk_maybe_remove(&j->kt, e);
    }
    js_clear(st);
    return;
  }
  st->defer_compact = true;
  for (uint32_t e = 0; e < j->kt.nents && (u->dead[s] > 0 || !u->heap[s]);
       e++) {
    if (j->kt.ents[e].head[s] == JNONE)
      continue;
    purge_chain(u, s, e, false);
    jk_maybe_remove(&j->kt, e);
  }
  st->defer_compact = false;
  js_maybe_compact(st);
}

/* Evicts the rows of the side opposite to `side` that the new watermark
 * expired: they are marked dead (and NULL-padded when outer and never
 * matched) in time order from the heap; their slots are freed lazily, by
 * the next probe of their key or by a sweep once dead rows are many. */
static int int_watermark(jbase *j, int side, lm_error *err) {
  jint *u = (jint *)j;
  int s = 1 - side; /* the side whose rows may expire */
  jheap *h = &u->hp[s];
  jstore *st = &j->st[s];
  int rc = jo_sources(j, NULL, NULL, err);
  if (rc)
    return rc;
  bool pad = pads(j, s);
  while (h->n > 0 && expired(j, s, h->t[0])) {
    uint32_t i = h->s[0];
    hp_pop(h);
    js_slot(st, i)[st->flag_off] |= F_DEAD;
    u->dead[s]++;
    j->dead++;
    if (pad && !is_matched(st, i) &&
        (rc = s == 0 ? jo_add(j, i, JNONE, 1, err)
                     : jo_add(j, JNONE, i, 1, err)))
      return rc;
  }
  rc = jo_flush(j, err); /* the padded rows read the slots */
  if (u->heap[s]
          ? u->dead[s] > 0 && (j->wm[side] == INT64_MAX ||
                               (u->dead[s] > 4096 && u->dead[s] * 2 > st->live))
          : st->live > 0 && (j->wm[side] == INT64_MAX ||
                             st->live > 2 * u->swept[s] + 4096)) {
    sweep(u, s);
    u->swept[s] = st->live;
  }
  return rc;
}

static int64_t int_out_wm(const jbase *j) {
  int64_t wr =
      j->wm[1] == INT64_MAX ? INT64_MAX : jsat_sub(j->wm[1], j->spec.hi_us);
  return j->wm[0] < wr ? j->wm[0] : wr;
}

static int64_t int_extra(const jbase *j) {
  const jint *u = (const jint *)j;
  return (u->hp[0].cap + u->hp[1].cap) * 12;
}

static void int_free(jbase *j) {
  jint *u = (jint *)j;
  for (int s = 0; s < 2; s++) {
    free(u->hp[s].t);
    free(u->hp[s].s);
  }
  jcand_free(&u->cand);
}

/* Live rows: on a side without a heap, expired rows still held (freed
 * lazily) are not counted, which takes a pass over the slots. */
static int64_t int_state_rows(const jbase *j) {
  const jint *u = (const jint *)j;
  int64_t n = 0;
  for (int s = 0; s < 2; s++) {
    const jstore *st = &j->st[s];
    if (u->heap[s]) {
      n += st->live - u->dead[s];
      continue;
    }
    for (uint32_t i = 0; i < st->used; i++)
      if ((js_slot(st, i)[st->flag_off] & 1) && !is_dead(u, s, i))
        n++;
  }
  return n;
}

static const jops int_ops = {int_push,      int_watermark, NULL,
                             int_out_wm,    int_extra,     int_free,
                             int_state_rows};

int lm_join_set_dynfilter(lm_operator *join, const lm_join_dynfilter *df,
                          lm_error *err) {
  jbase *j = (jbase *)join;
  const lm_join_spec *sp = &j->spec;
  if (sp->algo != LM_JOIN_INTERVAL ||
      (sp->type != LM_JOIN_INNER && sp->type != LM_JOIN_SEMI))
    return lm_err(err, LM_ERR_BIND,
                  "dynamic filter: only on an INNER or SEMI interval join");
  if (!df || df->side < 0 || df->side > 1 || df->key < 0 ||
      df->key >= sp->side[df->side].n_keys || !df->bound || df->slide <= 0 ||
      df->size <= 0)
    return lm_err(err, LM_ERR_BIND, "dynamic filter: bad arguments");
  const lm_schema *sc = sp->side[df->side].schema;
  if (sc->fields[j->keys[df->side][df->key]].type.id != LM_TYPE_INT64)
    return lm_err(err, LM_ERR_BIND, "dynamic filter: the key is not BIGINT");
  jint *u = (jint *)j;
  u->df = *df;
  u->df_on = true;
  return 0;
}

void lm_join_dynfilter_verdict(lm_operator *join, int64_t t, int64_t *t_lo,
                               int64_t *t_hi, int64_t *k_lo, int64_t *k_hi) {
  jbase *j = (jbase *)join;
  *t_lo = INT64_MIN;
  *t_hi = INT64_MAX;
  *k_lo = INT64_MIN;
  *k_hi = INT64_MAX;
  if (!j || j->spec.algo != LM_JOIN_INTERVAL || !((jint *)j)->df_on)
    return;
  jint *u = (jint *)j;
  /* fresh running values (int_push starts each batch afresh too) */
  u->df_n = 0;
  u->dc_valid = false;
  df_keep_slow(u, 0, t);
  if (u->dc_valid) {
    *t_lo = u->dc_lo;
    *t_hi = u->dc_hi;
  } else {
    *t_lo = *t_hi = t;
  }
  if (!u->dc_all) {
    if (u->df.max)
      *k_lo = u->dc_thr;
    else
      *k_hi = u->dc_thr;
  }
  u->df_n = 0;
  u->dc_valid = false;
}

int64_t lm_join_dynfilter_dropped(const lm_operator *join) {
  const jbase *j = (const jbase *)join;
  if (j->spec.algo != LM_JOIN_INTERVAL)
    return 0;
  return ((const jint *)j)->df_dropped;
}

int lm_join_dynfilter_connect(lm_operator *join, const lm_join_step *st,
                              const lm_plan *sub, lm_operator *agg_head,
                              lm_error *err) {
  lm_operator *w = st->dyn ? lm_window_aggregate_find(agg_head) : NULL;
  if (!w)
    return 0;
  lm_join_dynfilter df = {
      .side = st->dyn_side,
      .key = st->dyn_key,
      .max = st->dyn_max,
      .time_is_end = st->dyn_time_end,
      .size = sub->window_size_us,
      .slide = sub->window_slide_us,
      .off = sub->window_offset_us,
      .bound = lm_window_aggregate_bound,
      .ctx = w,
      .agg = st->dyn_agg,
  };
  return lm_join_set_dynfilter(join, &df, err);
}

lm_operator *lm_join_interval_new(const lm_join_spec *spec, lm_error *err) {
  jint *u = calloc(1, sizeof *u);
  if (!u) {
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  uint32_t hdrs[2] = {4, 4};
  u->max_t[0] = u->max_t[1] = INT64_MIN;
  if (jb_init(&u->b, spec, hdrs, &int_ops, err))
    goto fail;
  for (int s = 0; s < 2; s++)
    u->heap[s] = pads(&u->b, s);
  for (int s = 0; s < 2; s++) {
    int tc = spec->side[s].time_col;
    if (tc < 0) {
      lm_err(err, LM_ERR_BIND, "interval join: the %s input has no time column",
             s ? "right" : "left");
      goto fail;
    }
    lm_type_id id = spec->side[s].schema->fields[tc].type.id;
    if (id != LM_TYPE_TIMESTAMP && id != LM_TYPE_INT64) {
      lm_err(err, LM_ERR_BIND,
             "interval join: the %s time column is %s, not TIMESTAMP",
             s ? "right" : "left",
             lm_type_name(spec->side[s].schema->fields[tc].type));
      goto fail;
    }
    u->tc[s] = tc;
  }
  if (spec->lo_us > spec->hi_us) {
    lm_err(err, LM_ERR_BIND,
           "interval join: empty time bound (lower %lld > upper %lld µs)",
           (long long)spec->lo_us, (long long)spec->hi_us);
    goto fail;
  }
  return &u->b.op;
fail:
  jb_destroy(&u->b);
  return NULL;
}
