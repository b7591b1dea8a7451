/*
 * exec/op_join_updating.c — LM_JOIN_UPDATING, the regular join of two
 * changelogs (lm_join.h), and the state machine LM_JOIN_LOOKUP reuses.
 *
 * State: every row of both sides in the side's jstore, chained per key in
 * the shared key table (rows with a NULL key in a per-side chain of their
 * own: they never match but are retracted like any row). A slot holds a
 * multiplicity (a +w change of a row adds a slot of multiplicity w; a -w
 * change takes w from identical slots, which are freed at 0) and the
 * row's match count mc: the sum of the multiplicities of the other side's
 * rows it matches (keys equal, residual TRUE).
 *
 * A change of weight w to row x of side s, against the other side's rows
 * y (multiplicity m_y) that match it:
 *  - pairs (x, y) with weight w * m_y;
 *  - x's own padding (LEFT/FULL/ANTI for the left side, RIGHT/FULL for the
 *    right; SEMI: the left row itself) with weight w, when x matches
 *    nothing (anything, for SEMI);
 *  - y's padding flips when y's match count crosses 0: -m_y when it gains
 *    its first match, +m_y when it loses its last (SEMI the opposite).
 * The candidate pairs of a chunk of the batch are collected first, the
 * residual is evaluated over all of them at once (jb_residual), then the
 * rows are applied in order. The flips of the other side's rows are summed
 * per row over the whole batch and emitted at its end, net: a row that
 * loses its last match and gains one again in one batch (an upsert of the
 * row it matched: -old, +new) emits no transient padded (or SEMI) row. A
 * retraction of a row the side does not hold
 * is refused (LM_ERR_EXEC) before that row changes anything; the rows
 * before it stay applied and their output is emitted.
 *
 * Eviction by time: when both sides have a time column and one equi-join
 * key pair is the two time columns (Nexmark q5: AuctionBids and MaxBids on
 * starttime), a side's watermark promises that none of its later changes
 * (insertions or retractions) has a time below it (plan/join_bind.c
 * changelog_time_col). A key whose time is below both watermarks can then
 * neither meet a new row nor lose one: its rows of both sides are freed
 * (no output: nothing about their pairs changes). Each key entry is pushed
 * on a min-heap of times when created; a watermark pops the entries below
 * min(wm_left, wm_right), the eviction horizon. A change whose time is
 * below the horizon (late, against that promise) is dropped and counted in
 * late_dropped: the rows it would meet are gone.
 *
 * TTL (ttl_us > 0): each slot keeps the processing time of its last write;
 * lm_operator_tick drops slots idle for ttl_us and retractions of rows no
 * longer held are then ignored. The pairs an expired row formed are not
 * retracted (as Flink's state TTL), but the other side's rows that matched
 * it lose that match: one that loses its last flips as after a retraction
 * (an outer row is NULL-padded again, an ANTI row re-emitted, a SEMI row
 * retracted), so that it is not left without a match and without its
 * padding.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/op_join_internal.h"

#define H_MULT 8
#define H_MC 16
#define H_TS 24

typedef struct jupd {
  jbase b;
  bool lookup;       /* LM_JOIN_LOOKUP: left rows are not kept */
  bool done[2];      /* side complete (lm_join_side_done): the other side's
                        rows are probed, not kept */
  uint32_t nhead[2]; /* rows with a NULL key */
  int64_t now, last_sweep;
  jcand cand;      /* candidates of a chunk (no crow) */
  int64_t *cstart; /* per row of the chunk: first candidate */
  int64_t rcap;
  /* net flips of the other side's rows in this batch: open addressing on
   * row index + 1 (0 = empty), the slots in first-touch order */
  uint32_t *fkey, *forder;
  int64_t *fval;
  uint32_t fcap, fn;
  /* eviction by time (evk >= 0: key evk is the time columns tc[0], tc[1]) */
  int evk, tc[2];
  int64_t horizon; /* keys below it are evicted; INT64_MIN = none yet */
  struct evh {
    int64_t t;
    uint32_t e;
  } * eh; /* min-heap of (time, entry) */
  uint32_t ehn, ehcap;
} jupd;

/* Pushes (t, e) on the eviction heap. -1 on OOM. */
static int evh_push(jupd *u, int64_t t, uint32_t e) {
  if (u->ehn == u->ehcap) {
    uint32_t nc = u->ehcap ? u->ehcap * 2 : 64;
    struct evh *n = nc > u->ehcap ? realloc(u->eh, (size_t)nc * sizeof *n) : 0;
    if (!n)
      return -1;
    u->eh = n;
    u->ehcap = nc;
  }
  uint32_t i = u->ehn++;
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (u->eh[p].t <= t)
      break;
    u->eh[i] = u->eh[p];
    i = p;
  }
  u->eh[i].t = t;
  u->eh[i].e = e;
  return 0;
}

static void evh_pop(jupd *u) {
  struct evh last = u->eh[--u->ehn];
  uint32_t i = 0, n = u->ehn;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && u->eh[c + 1].t < u->eh[c].t)
      c++;
    if (u->eh[c].t >= last.t)
      break;
    u->eh[i] = u->eh[c];
    i = c;
  }
  if (n)
    u->eh[i] = last;
}

static inline int64_t hget(const jstore *s, uint32_t i, int off) {
  int64_t v;
  memcpy(&v, js_slot(s, i) + off, 8);
  return v;
}
static inline void hset(jstore *s, uint32_t i, int off, int64_t v) {
  memcpy(js_slot(s, i) + off, &v, 8);
}

static bool pads(const jbase *j, int s) {
  lm_join_type t = j->spec.type;
  if (s == 0)
    return t == LM_JOIN_LEFT || t == LM_JOIN_FULL || t == LM_JOIN_ANTI;
  return t == LM_JOIN_RIGHT || t == LM_JOIN_FULL;
}
static bool emits_pairs(const jbase *j) {
  return j->spec.type != LM_JOIN_SEMI && j->spec.type != LM_JOIN_ANTI;
}

static int mul_w(int64_t a, int64_t b, int64_t *out, lm_error *err) {
  if (__builtin_mul_overflow(a, b, out))
    return lm_err(err, LM_ERR_EXEC,
                  "integer out of range: join multiplicity overflow");
  return 0;
}

/* The chain head of row r's key on side s (entry e or the NULL chain). */
static uint32_t *chain_head(jupd *u, int s, uint32_t e) {
  return e == JNONE ? &u->nhead[s] : &u->b.kt.ents[e].head[s];
}

/* Takes -w (w < 0) of row r of b from side s's chain (entry e, JNONE = the
 * NULL-key chain). Refuses, changing nothing, when the side holds fewer
 * copies (unless a TTL may have dropped them: then takes what is there).
 * *took receives the (negative) weight actually removed, *mc the removed
 * rows' match count. */
static int retract_row(jupd *u, int s, uint32_t e, const lm_batch *b, int64_t r,
                       int64_t w, int64_t *took, int64_t *mc, lm_error *err) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  uint32_t *head = chain_head(u, s, e);
  int64_t have = 0;
  *mc = 0;
  for (uint32_t i = *head; i != JNONE && have < -w; i = js_next(st, i))
    if (js_row_eq(st, i, b, r)) {
      have += hget(st, i, H_MULT);
      *mc = hget(st, i, H_MC);
    }
  if (have < -w && j->spec.ttl_us <= 0)
    return lm_err(err, LM_ERR_EXEC,
                  "more retractions than insertions for a row of the %s "
                  "input of the join (row %lld of the batch: the join does "
                  "not hold it %lld time(s))",
                  s ? "right" : "left", (long long)r, (long long)-w);
  int64_t need = have < -w ? have : -w;
  *took = -need;
  uint32_t prev = JNONE;
  uint32_t *tail = e == JNONE ? NULL : &j->kt.ents[e].tail[s];
  for (uint32_t i = *head; i != JNONE && need > 0;) {
    uint32_t nx = js_next(st, i);
    if (js_row_eq(st, i, b, r)) {
      int64_t m = hget(st, i, H_MULT);
      int64_t t = m < need ? m : need;
      need -= t;
      if (m - t > 0) {
        hset(st, i, H_MULT, m - t);
        if (j->spec.ttl_us > 0)
          hset(st, i, H_TS, u->now);
        prev = i;
      } else {
        if (prev == JNONE)
          *head = nx;
        else
          js_set_next(st, prev, nx);
        if (tail && *tail == i)
          *tail = prev;
        js_del(st, i);
      }
    } else
      prev = i;
    i = nx;
  }
  return 0;
}

static int insert_row(jupd *u, int s, const lm_batch *b, int64_t r, uint32_t e,
                      int64_t w, int64_t mc, lm_error *err) {
  jbase *j = &u->b;
  jstore *st = &j->st[s];
  uint32_t i = js_add(st, b, r);
  if (i == JNONE)
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
  hset(st, i, H_MULT, w);
  hset(st, i, H_MC, mc);
  if (j->spec.ttl_us > 0)
    hset(st, i, H_TS, u->now);
  js_set_next(st, i, JNONE);
  if (e == JNONE) { /* NULL key: push front */
    js_set_next(st, i, u->nhead[s]);
    u->nhead[s] = i;
    return 0;
  }
  jentry *en = &j->kt.ents[e];
  if (u->evk >= 0 && en->head[0] == JNONE && en->head[1] == JNONE &&
      evh_push(u, lm_array_i64(b->columns[u->tc[s]])[r], e)) {
    /* a new key: its time goes on the eviction heap */
    js_del(st, i);
    jk_maybe_remove(&j->kt, e);
    return lm_err(err, LM_ERR_NOMEM, "out of memory (join state)");
  }
  if (en->head[s] == JNONE)
    en->head[s] = i;
  else
    js_set_next(st, en->tail[s], i);
  en->tail[s] = i;
  return 0;
}

/* Adds d to the pending flip of the other side's row y. */
static int flip_add(jupd *u, uint32_t y, int64_t d, lm_error *err) {
  if (2 * (u->fn + 1) > u->fcap) {
    uint32_t nc = u->fcap ? u->fcap * 2 : 64;
    uint32_t *nk = calloc(nc, sizeof *nk), *no = malloc(nc / 2 * sizeof *no);
    int64_t *nv = malloc(nc * sizeof *nv);
    if (!nk || !no || !nv) {
      free(nk), free(no), free(nv);
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    }
    for (uint32_t i = 0; i < u->fn; i++) {
      uint32_t o = u->forder[i], key = u->fkey[o];
      uint32_t h = (key * 2654435761u) & (nc - 1);
      while (nk[h])
        h = (h + 1) & (nc - 1);
      nk[h] = key;
      nv[h] = u->fval[o];
      no[i] = h;
    }
    free(u->fkey), free(u->forder), free(u->fval);
    u->fkey = nk, u->forder = no, u->fval = nv, u->fcap = nc;
  }
  uint32_t key = y + 1, h = (key * 2654435761u) & (u->fcap - 1);
  while (u->fkey[h] && u->fkey[h] != key)
    h = (h + 1) & (u->fcap - 1);
  if (!u->fkey[h]) {
    u->fkey[h] = key;
    u->fval[h] = 0;
    u->forder[u->fn++] = h;
  }
  if (__builtin_add_overflow(u->fval[h], d, &u->fval[h]))
    return lm_err(err, LM_ERR_EXEC,
                  "integer out of range: join multiplicity overflow");
  return 0;
}

/* Emits the net flips of the other side's rows (a push into side s) and
 * empties the table. */
static int flip_flush(jupd *u, int s, lm_error *err) {
  int rc = 0;
  for (uint32_t i = 0; i < u->fn; i++) {
    uint32_t h = u->forder[i], y = u->fkey[h] - 1;
    int64_t v = u->fval[h];
    u->fkey[h] = 0;
    if (v && !rc)
      rc = s == 0 ? jo_add(&u->b, JNONE, y, v, err)
                  : jo_add(&u->b, y, JNONE, v, err);
  }
  u->fn = 0;
  return rc;
}

static int upd_push_rows(jbase *j, int s, lm_batch *b, lm_error *err);

/* Whether rows a and b of the key columns kc[0..nk) (no NULLs) hold the
 * same bytes: then they are the same key (a false "no" only costs a hash
 * table probe). */
static bool same_key_rows(lm_array *const *kc, int nk, int64_t a, int64_t b) {
  for (int k = 0; k < nk; k++) {
    const lm_array *x = kc[k];
    if (lm_type_is_varbinary(x->type)) {
      int64_t la, lb;
      const uint8_t *pa = lm_array_bytes(x, a, &la),
                    *pb = lm_array_bytes(x, b, &lb);
      if (la != lb || (la && memcmp(pa, pb, (size_t)la)))
        return false;
      continue;
    }
    if (x->type.id == LM_TYPE_BOOL) {
      if (lm_array_bool(x, a) != lm_array_bool(x, b))
        return false;
      continue;
    }
    int w = lm_type_width(x->type);
    if (w <= 0 || lm_type_is_nested(x->type))
      return false;
    const uint8_t *v = x->values->data;
    if (memcmp(v + (size_t)(x->offset + a) * (size_t)w,
               v + (size_t)(x->offset + b) * (size_t)w, (size_t)w))
      return false;
  }
  return true;
}

static int upd_push(jbase *j, int s, lm_batch *b, lm_error *err) {
  jupd *u = (jupd *)j;
  int rc = upd_push_rows(j, s, b, err);
  /* the flips of the rows applied (all of them, or those before a
   * refused row) */
  lm_error scratch;
  int rc2 = flip_flush(u, s, rc ? &scratch : err);
  return rc ? rc : rc2;
}

static int upd_push_rows(jbase *j, int s, lm_batch *b, lm_error *err) {
  jupd *u = (jupd *)j;
  int o = 1 - s;
  int64_t n = b->num_rows;
  const int64_t *W = jb_weights(j, s, b);
  int rc = jb_hash_batch(j, s, b, err);
  if (rc)
    return rc;
  if (u->evk >= 0 && u->horizon != INT64_MIN) {
    /* changes below the eviction horizon: dropped (nul 2 = skip) */
    const int64_t *tv = lm_array_i64(b->columns[u->tc[s]]);
    for (int64_t r = 0; r < n; r++)
      if (!j->nul[r] && tv[r] < u->horizon) {
        j->nul[r] = 2;
        j->op.late_dropped++;
      }
  }
  if (n + 1 > u->rcap) {
    int64_t *cs = realloc(u->cstart, (size_t)(n + 1) * 8);
    if (!cs)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (join)");
    u->cstart = cs;
    u->rcap = n + 1;
  }
  lm_array *kc[64];
  if (j->nk > 64)
    return lm_err(err, LM_ERR_LIMIT, "join: more than 64 key columns");
  for (int k = 0; k < j->nk; k++)
    kc[k] = b->columns[j->keys[s][k]];
  const int *const *keys = (const int *const *)j->keys;
  jstore *ost = &j->st[o];
  bool store_own = !(u->lookup && s == 0) && !u->done[o];
  bool lookup_right = u->lookup && s == 1;
  const lm_batch *lb = s == 0 ? b : NULL, *rb = s == 1 ? b : NULL;
  if ((rc = jo_sources(j, lb, rb, err)))
    return rc;
  for (int64_t start = 0; start < n;) {
    /* phase 1: candidate pairs of rows start..end */
    int64_t nc = 0, end = start;
    for (; end < n && (end == start || nc < (1 << 20)); end++) {
      u->cstart[end - start] = nc;
      uint32_t e = JNONE;
      if (!j->nul[end] && !lookup_right && (!W || W[end] != 0))
        e = jk_find(&j->kt, j->st, keys, j->nk, kc, end, j->hash[end]);
      j->ent[end] = e;
      if (e == JNONE)
        continue;
      for (uint32_t i = j->kt.ents[e].head[o]; i != JNONE;
           i = js_next(ost, i)) {
        if (nc == u->cand.cap &&
            (rc = jcand_grow(&u->cand, nc + 1, false, err)))
          return rc;
        u->cand.cl[nc] = s == 0 ? (uint32_t)end : i;
        u->cand.cr[nc] = s == 0 ? i : (uint32_t)end;
        nc++;
      }
    }
    u->cstart[end - start] = nc;
    /* phase 2: the residual over every candidate */
    if (nc && (rc = jcand_grow(&u->cand, nc, false, err)))
      return rc;
    if ((rc = jb_residual(j, lb, rb, u->cand.cl, u->cand.cr, nc, u->cand.pass,
                          err)))
      return rc;
    /* phase 3: apply the rows in order; a row with the key of the row just
     * stored before it (a window's rows, Nexmark q5) takes its entry */
    uint32_t last_e = JNONE;
    for (int64_t r = start; r < end; r++) {
      uint32_t prev_e = last_e;
      last_e = JNONE;
      int64_t w = W ? W[r] : 1;
      if (w == 0 || j->nul[r] == 2)
        continue;
      int64_t c0 = u->cstart[r - start], c1 = u->cstart[r - start + 1];
      uint32_t *oix = s == 0 ? u->cand.cr : u->cand.cl;
      /* own state first (a refused retraction changes nothing) */
      uint32_t e = JNONE;
      if (!j->nul[r]) {
        e = j->ent[r];
        if ((e == JNONE || j->kt.ents[e].head[o] == JNONE) && prev_e != JNONE &&
            j->hash[r] == j->hash[r - 1] && same_key_rows(kc, j->nk, r - 1, r))
          e = prev_e;
        else if (e == JNONE || j->kt.ents[e].head[o] == JNONE)
          e = w > 0 && store_own
                  ? jk_find_add(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r])
                  : jk_find(&j->kt, j->st, keys, j->nk, kc, r, j->hash[r]);
        if (e == JNONE && w > 0 && store_own)
          return lm_err(err, LM_ERR_NOMEM, "out of memory (join keys)");
      }
      int64_t m = 0;
      for (int64_t c = c0; c < c1; c++)
        if (u->cand.pass[c] &&
            __builtin_add_overflow(m, hget(ost, oix[c], H_MULT), &m))
          return lm_err(err, LM_ERR_EXEC,
                        "integer out of range: join match count overflow");
      if (lookup_right) { /* the table: state only */
        if (w > 0)
          rc = insert_row(u, s, b, r, e, w, 0, err);
        else {
          int64_t took, mc;
          uint32_t ee = e;
          if (!j->nul[r] && ee == JNONE) {
            if (j->spec.ttl_us > 0)
              continue;
            return lm_err(err, LM_ERR_EXEC,
                          "more retractions than insertions for a row of the "
                          "right input of the join (row %lld of the batch)",
                          (long long)r);
          }
          rc = retract_row(u, s, ee, b, r, w, &took, &mc, err);
          if (!rc && ee != JNONE)
            jk_maybe_remove(&j->kt, ee);
        }
        if (rc)
          return rc;
        continue;
      }
      if (store_own) {
        if (w > 0) {
          if ((rc = insert_row(u, s, b, r, e, w, m, err)))
            return rc;
          last_e = e;
        } else {
          int64_t took, mc;
          if (!j->nul[r] && e == JNONE) {
            if (j->spec.ttl_us > 0)
              continue;
            return lm_err(err, LM_ERR_EXEC,
                          "more retractions than insertions for a row of the "
                          "%s input of the join (row %lld of the batch: the "
                          "join holds no row with its key)",
                          s ? "right" : "left", (long long)r);
          }
          if ((rc = retract_row(u, s, e, b, r, w, &took, &mc, err)))
            return rc;
          w = took;
          if (e != JNONE)
            jk_maybe_remove(&j->kt, e);
          if (w == 0)
            continue;
        }
      }
      /* pairs and the other side's padding flips */
      for (int64_t c = c0; c < c1; c++) {
        if (!u->cand.pass[c])
          continue;
        uint32_t y = oix[c];
        int64_t my = hget(ost, y, H_MULT), pw;
        if ((rc = mul_w(w, my, &pw, err)))
          return rc;
        if (emits_pairs(j) &&
            (rc = s == 0 ? jo_add(j, (uint32_t)r, y, pw, err)
                         : jo_add(j, y, (uint32_t)r, pw, err)))
          return rc;
        if (u->lookup)
          continue;
        int64_t old = hget(ost, y, H_MC), nw = old + w;
        if (nw < 0)
          nw = 0; /* only after a TTL dropped rows */
        hset(ost, y, H_MC, nw);
        bool flip = (old == 0) != (nw == 0);
        if (!flip)
          continue;
        int64_t sign = old == 0 ? -1 : 1; /* gains its first match: -1 */
        if (pads(j, o))
          rc = flip_add(u, y, sign * my, err);
        else if (o == 0 && j->spec.type == LM_JOIN_SEMI)
          rc = flip_add(u, y, -sign * my, err);
        if (rc)
          return rc;
      }
      /* x's own padding */
      if (pads(j, s) && m == 0)
        rc = s == 0 ? jo_add(j, (uint32_t)r, JNONE, w, err)
                    : jo_add(j, JNONE, (uint32_t)r, w, err);
      else if (s == 0 && j->spec.type == LM_JOIN_SEMI && m > 0)
        rc = jo_add(j, (uint32_t)r, JNONE, w, err);
      if (rc)
        return rc;
    }
    start = end;
  }
  return 0;
}

/* Drops the slots of side s idle for ttl_us (chains rebuilt in place). */
static void sweep_chain(jupd *u, int s, uint32_t *head, uint32_t *tail) {
  jstore *st = &u->b.st[s];
  uint32_t prev = JNONE;
  for (uint32_t i = *head; i != JNONE;) {
    uint32_t nx = js_next(st, i);
    if (lm_sat_add(hget(st, i, H_TS), u->b.spec.ttl_us) <= u->now) {
      if (prev == JNONE)
        *head = nx;
      else
        js_set_next(st, prev, nx);
      if (tail && *tail == i)
        *tail = prev;
      js_del(st, i);
    } else
      prev = i;
    i = nx;
  }
}

static bool idle(const jupd *u, int s, uint32_t i) {
  return lm_sat_add(hget(&u->b.st[s], i, H_TS), u->b.spec.ttl_us) <= u->now;
}

/* Before entry e's idle slots are swept: every live row of the other side
 * that matched an idle row (residual TRUE) loses the idle row's
 * multiplicity from its match count, and flips when that was its last
 * match (pads(): +m NULL-padded; SEMI left: -m). Output rows go to the
 * pending output (flushed by the caller). */
static int unmatch_idle(jupd *u, uint32_t e, lm_error *err) {
  jbase *j = &u->b;
  jentry *en = &j->kt.ents[e];
  for (int s = 0; s < 2; s++) {
    int o = 1 - s;
    jstore *st = &j->st[s], *ost = &j->st[o];
    bool flips = pads(j, o) || (o == 0 && j->spec.type == LM_JOIN_SEMI);
    if (!flips)
      continue;
    int64_t nc = 0;
    int rc;
    for (uint32_t x = en->head[s]; x != JNONE; x = js_next(st, x)) {
      if (!idle(u, s, x))
        continue;
      for (uint32_t y = en->head[o]; y != JNONE; y = js_next(ost, y)) {
        if (idle(u, o, y) || hget(ost, y, H_MC) == 0)
          continue; /* swept too, or nothing to lose */
        if (nc == u->cand.cap &&
            (rc = jcand_grow(&u->cand, nc + 1, false, err)))
          return rc;
        u->cand.cl[nc] = s == 0 ? x : y;
        u->cand.cr[nc] = s == 0 ? y : x;
        nc++;
      }
    }
    if (!nc)
      continue;
    if ((rc = jb_residual(j, NULL, NULL, u->cand.cl, u->cand.cr, nc,
                          u->cand.pass, err)))
      return rc;
    for (int64_t c = 0; c < nc; c++) {
      if (!u->cand.pass[c])
        continue;
      uint32_t x = s == 0 ? u->cand.cl[c] : u->cand.cr[c];
      uint32_t y = s == 0 ? u->cand.cr[c] : u->cand.cl[c];
      int64_t old = hget(ost, y, H_MC), nw = old - hget(st, x, H_MULT);
      if (nw < 0)
        nw = 0;
      hset(ost, y, H_MC, nw);
      if (old == 0 || nw != 0)
        continue;
      int64_t my = hget(ost, y, H_MULT);
      if (pads(j, o))
        rc = o == 0 ? jo_add(j, y, JNONE, my, err)
                    : jo_add(j, JNONE, y, my, err);
      else
        rc = jo_add(j, y, JNONE, -my, err); /* SEMI */
      if (rc)
        return rc;
    }
  }
  return 0;
}

static int upd_tick(jbase *j, int64_t now, lm_error *err) {
  jupd *u = (jupd *)j;
  if (now > u->now)
    u->now = now;
  if (j->spec.ttl_us <= 0)
    return 0;
  int64_t every = j->spec.ttl_us / 4 > 0 ? j->spec.ttl_us / 4 : 1;
  if (u->last_sweep && u->now - u->last_sweep < every)
    return 0;
  u->last_sweep = u->now;
  int rc = u->lookup ? 0 : jo_sources(j, NULL, NULL, err);
  for (uint32_t e = 0; e < j->kt.nents && !rc; e++) {
    jentry *en = &j->kt.ents[e];
    if (en->head[0] == JNONE && en->head[1] == JNONE)
      continue; /* free */
    if (!u->lookup && (rc = unmatch_idle(u, e, err)))
      break;
    for (int s = 0; s < 2; s++)
      sweep_chain(u, s, &en->head[s], &en->tail[s]);
    jk_maybe_remove(&j->kt, e);
  }
  for (int s = 0; s < 2; s++)
    sweep_chain(u, s, &u->nhead[s], NULL);
  if (!rc && !u->lookup)
    rc = jo_flush(j, err);
  return rc;
}

/* Evicts the keys whose time is below min(wm_left, wm_right). */
static int upd_watermark(jbase *j, int side, lm_error *err) {
  (void)side;
  (void)err;
  jupd *u = (jupd *)j;
  int64_t h = j->wm[0] < j->wm[1] ? j->wm[0] : j->wm[1];
  if (u->evk < 0 || h <= u->horizon)
    return 0;
  u->horizon = h;
  for (int s = 0; s < 2; s++)
    j->st[s].defer_compact = true;
  while (u->ehn && u->eh[0].t < h) {
    uint32_t e = u->eh[0].e;
    evh_pop(u);
    jentry *en = &j->kt.ents[e];
    int t = en->head[0] != JNONE ? 0 : 1;
    if (en->head[t] == JNONE || js_i64(&j->st[t], en->head[t], u->tc[t]) >= h)
      continue; /* removed (and maybe reused by a later key) since */
    for (int s = 0; s < 2; s++) {
      jstore *st = &j->st[s];
      for (uint32_t i = en->head[s]; i != JNONE;) {
        uint32_t nx = js_next(st, i);
        js_del(st, i);
        i = nx;
      }
      en->head[s] = en->tail[s] = JNONE;
    }
    jk_maybe_remove(&j->kt, e);
  }
  for (int s = 0; s < 2; s++) {
    j->st[s].defer_compact = false;
    js_maybe_compact(&j->st[s]);
  }
  return 0;
}

static int64_t upd_extra(const jbase *j) {
  const jupd *u = (const jupd *)j;
  return u->cand.cap * 9 + u->rcap * 8 + (int64_t)u->ehcap * 16;
}

static void upd_free(jbase *j) {
  jupd *u = (jupd *)j;
  jcand_free(&u->cand);
  free(u->cstart);
  free(u->fkey);
  free(u->forder);
  free(u->fval);
  free(u->eh);
}

static const jops upd_ops = {upd_push,  upd_watermark, upd_tick, NULL,
                             upd_extra, upd_free,      NULL};

/* A lookup join's output keeps the left (stream) watermark: a table has no
 * event time. */
static int64_t lookup_out_wm(const jbase *j) {
  return j->wm[0];
}
static const jops lookup_ops = {upd_push,  NULL,     upd_tick, lookup_out_wm,
                                upd_extra, upd_free, NULL};

static lm_operator *upd_new(const lm_join_spec *spec, bool lookup,
                            lm_error *err) {
  jupd *u = calloc(1, sizeof *u);
  if (!u) {
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  u->lookup = lookup;
  u->nhead[0] = u->nhead[1] = JNONE;
  uint32_t hdr = spec->ttl_us > 0 ? H_TS + 8 : H_MC + 8;
  uint32_t hdrs[2] = {hdr, hdr};
  if (jb_init(&u->b, spec, hdrs, lookup ? &lookup_ops : &upd_ops, err)) {
    jb_destroy(&u->b);
    return NULL;
  }
  /* eviction by time: a key pair that is both sides' time columns */
  u->evk = -1;
  u->horizon = INT64_MIN;
  for (int k = 0; !lookup && k < u->b.nk && u->evk < 0; k++) {
    bool ok = true;
    for (int s = 0; s < 2; s++) {
      int tc = spec->side[s].time_col;
      lm_type_id id =
          tc >= 0 ? spec->side[s].schema->fields[tc].type.id : LM_TYPE_NULL;
      ok &= tc >= 0 && spec->side[s].keys[k] == tc &&
            (id == LM_TYPE_TIMESTAMP || id == LM_TYPE_INT64);
      u->tc[s] = tc;
    }
    if (ok)
      u->evk = k;
  }
  return &u->b.op;
}

lm_operator *lm_join_updating_new(const lm_join_spec *spec, lm_error *err) {
  return upd_new(spec, false, err);
}

bool lm_join_side_done(lm_operator *join, int side) {
  jbase *j = (jbase *)join;
  if (!join || j->ops != &upd_ops || (side != 0 && side != 1) ||
      j->spec.ttl_us > 0)
    return false;
  ((jupd *)j)->done[side] = true;
  return true;
}

/* LM_JOIN_LOOKUP (op_lookup_join.c): the same state machine with the left
 * rows not kept and right changes only updating the table. */
lm_operator *lm_join_lookup_state_new(const lm_join_spec *spec, lm_error *err) {
  return upd_new(spec, true, err);
}
