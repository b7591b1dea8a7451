/*
 * Session windows over a changelog input (docs/windows.md,
 * docs/changelog.md): rows carry a BIGINT __weight (plan->weight_col), and
 * a retraction can shrink a session or split it in two (when the removed
 * row was the bridge), which a merge-only operator (op_session_window.c)
 * cannot do.
 *
 * State: per group key, the sorted set of its live event times, each with
 * a pane: a group of the pane table `pt` keyed by the plan's keys with the
 * window start column holding the time itself (retractable states of the
 * rows at exactly that time). A key's sessions are the maximal chains of
 * its live times t1 < t2 < ... with t(i+1) < t(i) + gap, i.e. [first,
 * last + gap) — recomputed from the time set whenever it changes, so a
 * split or a merge is exactly what a recompute from scratch gives.
 *
 * Emitted sessions (the rows currently visible downstream in the modes
 * that emit changes) are kept per key with their own group in the table
 * `ot` (window start column = a unique session id), built by merging the
 * session's panes. After a batch, each key it touched is compared with
 * what it has emitted: an emitted session whose bounds changed, or that
 * holds a time the batch touched, is retracted (__weight -1) and the
 * sessions now visible are inserted (+1); retractions come first.
 *
 *   UPDATES  visible: every session;
 *   CLOSE    visible once closed (watermark >= last + gap); without
 *            allowed lateness a closed session is final (its rows can only
 *            be late), with lateness L later changes are -old/+new until
 *            watermark >= end + L;
 *   FINAL    one row at watermark >= end + L.
 * A session expires (its panes are freed, its row stands) at watermark >=
 * end + L; a row (insertion or retraction) older than watermark - L, or
 * with a NULL time, is late.
 *
 * Cost: a touched key's sessions are recomputed from its time set (O(live
 * times of the key)) and a changed session's row from its panes (O(its
 * distinct times)).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/op_internal.h"

typedef struct ts_ent {
  int64_t t;
  uint32_t gid; /* pane group in pt */
} ts_ent;

typedef struct em_sess {
  int64_t start, last;
  uint32_t ogid; /* group in ot */
} em_sess;

typedef struct ckey {
  ts_ent *ts; /* live times, ascending */
  int32_t n, cap;
  em_sess *e; /* emitted sessions, ascending */
  int32_t ne, cape;
  int64_t due;   /* next watermark at which the key needs work */
  int64_t mark;  /* epoch of the last refresh */
  int64_t first; /* ts[0].t when last pushed on o->firsts */
} ckey;

typedef struct dhent {
  int64_t key, kid;
} dhent;

typedef struct dheap {
  dhent *a;
  int64_t n, cap;
} dheap;

/* A session to insert: its panes are pg[p0 .. p1) of the op's scratch. */
typedef struct ins_rec {
  int64_t start, last, kid;
  int64_t p0, p1;
  uint32_t ogid;
  bool keep; /* stays emitted (not expired) */
} ins_rec;

typedef struct out_rec {
  uint32_t g;
  int64_t ws, we;
} out_rec;

typedef struct sc_op {
  lm_operator base;
  const lm_plan *plan;
  lm_window_emit mode;
  lm_schema *wschema;
  lm_output_cb late;
  int64_t gap, lateness;
  bool changes;
  lm_aggtable *kd; /* key dictionary (window columns constant) */
  ckey *keys;
  int64_t n_keys;
  lm_aggtable *pt, *ot;
  int64_t live_ts, live_e;
  int64_t wm, out_wm, epoch, next_sid;
  dheap dues, firsts;
  /* per refresh round */
  ins_rec *ins;
  int64_t n_ins, cap_ins;
  uint32_t *pg;
  int64_t n_pg, cap_pg;
  out_rec *ret;
  int64_t n_ret, cap_ret;
} sc_op;

#define GROW(arr, n, cap, need)                                                \
  do {                                                                         \
    if ((n) + (need) > (cap)) {                                                \
      int64_t nc_ = (cap) ? (cap) : 16;                                        \
      while (nc_ < (n) + (need))                                               \
        nc_ *= 2;                                                              \
      void *p_ = realloc((arr), sizeof(*(arr)) * (size_t)nc_);                 \
      if (!p_)                                                                 \
        return -1;                                                             \
      (arr) = p_;                                                              \
      (cap) = nc_;                                                             \
    }                                                                          \
  } while (0)

static int dh_push(dheap *h, int64_t key, int64_t kid) {
  GROW(h->a, h->n, h->cap, 1);
  int64_t i = h->n++;
  while (i > 0) {
    int64_t up = (i - 1) / 2;
    if (h->a[up].key <= key)
      break;
    h->a[i] = h->a[up];
    i = up;
  }
  h->a[i] = (dhent){key, kid};
  return 0;
}

static void dh_pop(dheap *h) {
  dhent x = h->a[--h->n];
  int64_t i = 0, n = h->n;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h->a[c + 1].key < h->a[c].key)
      c++;
    if (x.key <= h->a[c].key)
      break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n)
    h->a[i] = x;
}

static bool expired_end(const sc_op *o, int64_t end) {
  return o->wm != INT64_MIN &&
         (o->wm == INT64_MAX || lm_sat_add(end, o->lateness) <= o->wm);
}
static bool closed_end(const sc_op *o, int64_t end) {
  return o->wm != INT64_MIN && end <= o->wm;
}

/* Recomputes key kid's sessions: retractions of emitted sessions that
 * changed go to o->ret, sessions to (re)emit to o->ins, expired sessions
 * leave the time set. touched[0..nt): the times the batch changed,
 * ascending. Returns -1 on OOM. */
static int refresh(sc_op *o, int64_t kid, const int64_t *touched, int64_t nt) {
  ckey *k = &o->keys[kid];
  em_sess *old = k->e;
  int32_t n_old = k->ne, oi = 0;
  em_sess *ne = NULL;
  int32_t n_ne = 0, cap_ne = 0;
  int64_t ti = 0, due = INT64_MAX;
  int32_t w = 0; /* times kept */
  for (int32_t a = 0; a < k->n;) {
    int32_t b = a + 1;
    while (b < k->n && k->ts[b].t < lm_sat_add(k->ts[b - 1].t, o->gap))
      b++;
    int64_t start = k->ts[a].t, last = k->ts[b - 1].t;
    int64_t end = lm_sat_add(last, o->gap);
    bool exp = expired_end(o, end);
    bool vis = o->mode == LM_WEMIT_UPDATES ||
               (o->mode == LM_WEMIT_CLOSE && closed_end(o, end)) ||
               (o->mode == LM_WEMIT_FINAL && exp);
    while (ti < nt && touched[ti] < start)
      ti++;
    bool dirty = ti < nt && touched[ti] <= last;
    /* emitted sessions before this one are gone */
    while (oi < n_old && old[oi].start < start) {
      GROW(o->ret, o->n_ret, o->cap_ret, 1);
      o->ret[o->n_ret++] = (out_rec){old[oi].ogid, old[oi].start,
                                     lm_sat_add(old[oi].last, o->gap)};
      o->live_e--;
      oi++;
    }
    bool same = oi < n_old && old[oi].start == start && old[oi].last == last &&
                !dirty && vis;
    if (oi < n_old && old[oi].start == start) {
      if (same) {
        if (!exp) {
          if (n_ne == cap_ne) {
            cap_ne = cap_ne ? cap_ne * 2 : 4;
            em_sess *p = realloc(ne, sizeof(em_sess) * (size_t)cap_ne);
            if (!p) {
              free(ne);
              return -1;
            }
            ne = p;
          }
          ne[n_ne++] = old[oi];
        } else {
          o->live_e--;
        }
      } else {
        GROW(o->ret, o->n_ret, o->cap_ret, 1);
        o->ret[o->n_ret++] = (out_rec){old[oi].ogid, old[oi].start,
                                       lm_sat_add(old[oi].last, o->gap)};
        o->live_e--;
      }
      oi++;
    }
    if (vis && !same) {
      if (o->n_ins == o->cap_ins) {
        int64_t c = o->cap_ins ? o->cap_ins * 2 : 16;
        ins_rec *p = realloc(o->ins, sizeof(ins_rec) * (size_t)c);
        if (!p) {
          free(ne);
          return -1;
        }
        o->ins = p;
        o->cap_ins = c;
      }
      if (o->n_pg + (b - a) > o->cap_pg) {
        int64_t c = o->cap_pg ? o->cap_pg : 64;
        while (c < o->n_pg + (b - a))
          c *= 2;
        uint32_t *p = realloc(o->pg, sizeof(uint32_t) * (size_t)c);
        if (!p) {
          free(ne);
          return -1;
        }
        o->pg = p;
        o->cap_pg = c;
      }
      ins_rec *r = &o->ins[o->n_ins++];
      *r = (ins_rec){
          start, last, kid, o->n_pg, o->n_pg + (b - a), 0, !exp && o->changes};
      for (int32_t x = a; x < b; x++)
        o->pg[o->n_pg++] = k->ts[x].gid;
    }
    if (exp) {
      o->live_ts -= b - a;
    } else {
      int64_t d = o->mode == LM_WEMIT_CLOSE && !closed_end(o, end)
                      ? end
                      : lm_sat_add(end, o->lateness);
      if (d < due)
        due = d;
      if (w != a)
        memmove(&k->ts[w], &k->ts[a], sizeof(ts_ent) * (size_t)(b - a));
      w += b - a;
    }
    a = b;
  }
  k->n = w;
  for (; oi < n_old; oi++) {
    GROW(o->ret, o->n_ret, o->cap_ret, 1);
    o->ret[o->n_ret++] = (out_rec){old[oi].ogid, old[oi].start,
                                   lm_sat_add(old[oi].last, o->gap)};
    o->live_e--;
  }
  /* the inserted sessions that stay emitted join ne when built (their
   * ogid is known then): ne holds the kept ones for now */
  free(k->e);
  k->e = ne;
  k->ne = n_ne;
  k->cape = cap_ne;
  if (due != k->due) {
    k->due = due;
    if (due != INT64_MAX && dh_push(&o->dues, due, kid))
      return -1;
  }
  if (!k->n)
    k->first = INT64_MIN;
  else if (k->ts[0].t != k->first) {
    k->first = k->ts[0].t;
    if (dh_push(&o->firsts, k->first, kid))
      return -1;
  }
  return 0;
}

static int cmp_ins(const void *x, const void *y) {
  const ins_rec *a = x, *b = y;
  if (a->last != b->last) /* end order */
    return a->last < b->last ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->kid < b->kid ? -1 : a->kid > b->kid;
}

static int cmp_es(const void *x, const void *y) {
  const em_sess *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int emit_rows(sc_op *o, const out_rec *r, int64_t n, int64_t weight,
                     lm_error *err) {
  if (!n)
    return 0;
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)n);
  int64_t *ws = malloc(sizeof(int64_t) * (size_t)n);
  int64_t *we = malloc(sizeof(int64_t) * (size_t)n);
  int rc = 0;
  if (!g || !ws || !we) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else {
    for (int64_t i = 0; i < n; i++) {
      g[i] = r[i].g;
      ws[i] = r[i].ws;
      we[i] = r[i].we;
    }
    lm_batch *b = NULL;
    rc = lm_window_rows(o->plan, o->ot, g, n, ws, we, 0, 0, o->wschema, weight,
                        &b, err);
    if (!rc) {
      rc = b->num_rows ? lm_operator_emit(&o->base, b, err) : 0;
      lm_batch_release(b);
    }
  }
  free(g);
  free(ws);
  free(we);
  return rc;
}

/* Builds the groups of o->ins in ot (keys from each session's first pane,
 * window start column = a fresh session id; states merged from its
 * panes), then emits o->ret (-1) and o->ins. */
static int flush(sc_op *o, lm_error *err) {
  const lm_plan *p = o->plan;
  int rc = 0;
  lm_batch *kb = NULL;
  lm_array *sid = NULL;
  uint32_t *first = NULL, *dg = NULL, *og = NULL;
  out_rec *rows = NULL;
  int64_t n = o->n_ins;
  if (n) {
    qsort(o->ins, (size_t)n, sizeof(ins_rec), cmp_ins);
    first = malloc(sizeof(uint32_t) * (size_t)n);
    og = malloc(sizeof(uint32_t) * (size_t)n);
    dg = malloc(sizeof(uint32_t) * (size_t)(o->n_pg + 1));
    rows = malloc(sizeof(out_rec) * (size_t)n);
    if (!first || !dg || !og || !rows) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    for (int64_t i = 0; i < n; i++)
      first[i] = o->pg[o->ins[i].p0];
    lm_batch_builder bb;
    if (lm_batch_builder_init(&bb, p->agg_schema, n)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    rc = lm_aggtable_emit(o->pt, first, n, &bb, err);
    if (!rc)
      rc = lm_batch_builder_finish(&bb, &kb, err);
    lm_batch_builder_free(&bb);
    if (rc)
      goto done;
    lm_builder sb;
    if (lm_builder_init(&sb, p->agg_schema->fields[p->window_key].type, n)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    for (int64_t i = 0; i < n; i++)
      lm_builder_append_int(&sb, o->next_sid++);
    rc = lm_builder_finish(&sb, &sid);
    lm_builder_free(&sb);
    if (rc) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    lm_array *keys[64] = {0};
    for (int c = 0; c < p->n_keys && c < 64; c++)
      keys[c] = c == p->window_key ? sid : kb->columns[c];
    if ((rc = lm_aggtable_lookup(o->ot, keys, NULL, n, og, err)))
      goto done;
    for (int64_t i = 0; i < n; i++) {
      o->ins[i].ogid = og[i];
      for (int64_t x = o->ins[i].p0; x < o->ins[i].p1; x++)
        dg[x] = og[i];
    }
    if ((rc = lm_aggtable_merge_groups(o->ot, dg, o->pt, o->pg, o->n_pg, err)))
      goto done;
    for (int64_t i = 0; i < n; i++) {
      ins_rec *r = &o->ins[i];
      rows[i] = (out_rec){r->ogid, r->start, lm_sat_add(r->last, o->gap)};
      if (r->keep) {
        ckey *k = &o->keys[r->kid];
        if (k->ne == k->cape) {
          int32_t c = k->cape ? k->cape * 2 : 4;
          em_sess *e = realloc(k->e, sizeof(em_sess) * (size_t)c);
          if (!e) {
            rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
            goto done;
          }
          k->e = e;
          k->cape = c;
        }
        k->e[k->ne++] = (em_sess){r->start, r->last, r->ogid};
        k->mark = -1; /* to sort */
        o->live_e++;
      }
    }
    for (int64_t i = 0; i < n; i++) {
      ckey *k = &o->keys[o->ins[i].kid];
      if (k->mark == -1) {
        qsort(k->e, (size_t)k->ne, sizeof(em_sess), cmp_es);
        k->mark = o->epoch;
      }
    }
  }
  if (o->changes)
    rc = emit_rows(o, o->ret, o->n_ret, -1, err);
  if (!rc)
    rc = emit_rows(o, rows, n, o->changes ? 1 : o->wschema ? 1 : 0, err);
done:
  o->n_ins = o->n_pg = o->n_ret = 0;
  lm_batch_release(kb);
  lm_array_release(sid);
  free(first);
  free(dg);
  free(og);
  free(rows);
  return rc;
}

/* Rebuilds t with only the groups *g[0..n) point to (updated). */
static int compact_table(sc_op *o, lm_aggtable **t, uint32_t **g, int64_t n,
                         lm_error *err) {
  lm_aggtable *nt = lm_plan_new_aggtable(o->plan);
  uint32_t *sg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  uint32_t *dg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int rc = 0;
  if (!nt || !sg || !dg || !ids) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++)
    sg[i] = *g[i];
  rc = lm_aggtable_intern(nt, *t, sg, n, true, ids, err);
  for (int64_t i = 0; i < n && !rc; i++)
    dg[i] = (uint32_t)ids[i];
  if (!rc)
    rc = lm_aggtable_merge_groups(nt, dg, *t, sg, n, err);
  if (!rc) {
    for (int64_t i = 0; i < n; i++)
      *g[i] = dg[i];
    lm_aggtable_free(*t);
    *t = nt;
    nt = NULL;
  }
done:
  lm_aggtable_free(nt);
  free(sg);
  free(dg);
  free(ids);
  return rc;
}

static int maybe_compact(sc_op *o, lm_error *err) {
  int rc = 0;
  for (int which = 0; which < 2 && !rc; which++) {
    lm_aggtable **t = which ? &o->ot : &o->pt;
    int64_t live = which ? o->live_e : o->live_ts;
    if (lm_aggtable_groups(*t) <= 4096 || lm_aggtable_groups(*t) <= 2 * live)
      continue;
    uint32_t **g = malloc(sizeof(uint32_t *) * (size_t)(live + 1));
    if (!g)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int64_t m = 0;
    for (int64_t k = 0; k < o->n_keys; k++) {
      ckey *c = &o->keys[k];
      if (which)
        for (int32_t i = 0; i < c->ne && m <= live; i++)
          g[m++] = &c->e[i].ogid;
      else
        for (int32_t i = 0; i < c->n && m <= live; i++)
          g[m++] = &c->ts[i].gid;
    }
    rc = compact_table(o, t, g, m, err);
    free(g);
  }
  return rc;
}

static int send_late(sc_op *o, lm_batch *b, const int32_t *rows, int64_t n,
                     lm_error *err) {
  o->base.late_dropped += n;
  if (!n || !o->late.batch)
    return 0;
  lm_batch *l = lm_batch_take(b, rows, n);
  if (!l)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = o->late.batch(o->late.ctx, l, err);
  lm_batch_release(l);
  return rc;
}

typedef struct row_ref {
  int64_t kid, t;
  uint32_t gid;
} row_ref;

static int cmp_ref(const void *x, const void *y) {
  const row_ref *a = x, *b = y;
  if (a->kid != b->kid)
    return a->kid < b->kid ? -1 : 1;
  return a->t < b->t ? -1 : a->t > b->t;
}

/* Inserts (t, gid) into the key's time set unless present. */
static int add_time(sc_op *o, ckey *k, int64_t t, uint32_t gid) {
  int32_t lo = 0, hi = k->n;
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (k->ts[mid].t < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < k->n && k->ts[lo].t == t)
    return 0;
  if (k->n == k->cap) {
    int32_t c = k->cap ? k->cap * 2 : 4;
    ts_ent *p = realloc(k->ts, sizeof(ts_ent) * (size_t)c);
    if (!p)
      return -1;
    k->ts = p;
    k->cap = c;
  }
  memmove(&k->ts[lo + 1], &k->ts[lo], sizeof(ts_ent) * (size_t)(k->n - lo));
  k->ts[lo] = (ts_ent){t, gid};
  k->n++;
  o->live_ts++;
  return 0;
}

static int sc_push(lm_operator *op, lm_batch *b, lm_error *err) {
  sc_op *o = (sc_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  lm_array *keys[64] = {0}, *aggs[64] = {0};
  if (p->n_keys > 64 || p->n_aggs > 64)
    return lm_err(err, LM_ERR_BIND, "too many GROUP BY keys or aggregates");
  int32_t *sel = NULL, *late = NULL;
  uint32_t *kids = NULL, *gids = NULL;
  row_ref *refs = NULL;
  int64_t *touched = NULL;
  lm_array *wk = NULL;
  int rc = lm_eval_inputs(p, b, keys, aggs, err);
  if (rc)
    goto done;
  if ((rc = lm_window_placeholder_keys(p, keys, n, err)))
    goto done;
  const int64_t *wts = p->weight_col < b->num_columns
                           ? lm_array_i64(b->columns[p->weight_col])
                           : NULL;
  if (!wts) {
    rc = lm_err(err, LM_ERR_EXEC, "internal error: changelog without __weight");
    goto done;
  }
  sel = malloc(sizeof(int32_t) * (size_t)(n + 1));
  late = malloc(sizeof(int32_t) * (size_t)(n + 1));
  kids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  gids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  refs = malloc(sizeof(row_ref) * (size_t)(n + 1));
  touched = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!sel || !late || !kids || !gids || !refs || !touched) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  const lm_array *tc = b->columns[p->window_time_col];
  const int64_t *ts = lm_array_i64(tc);
  int64_t horizon = o->wm == INT64_MIN   ? INT64_MIN
                    : o->wm == INT64_MAX ? INT64_MAX
                                         : lm_sat_add(o->wm, -o->lateness);
  int64_t m = 0, n_late = 0;
  for (int64_t i = 0; i < n; i++) {
    if (lm_array_is_null(tc, i) || ts[i] < horizon)
      late[n_late++] = (int32_t)i;
    else if (wts[i] != 0)
      sel[m++] = (int32_t)i;
  }
  if ((rc = send_late(o, b, late, n_late, err)))
    goto done;
  if (!m)
    goto done;
  if ((rc = lm_aggtable_lookup(o->kd, keys, sel, m, kids, err)))
    goto done;
  int64_t nk = lm_aggtable_groups(o->kd);
  if (nk > o->n_keys) {
    int64_t cap = nk * 2;
    ckey *l = realloc(o->keys, sizeof(ckey) * (size_t)cap);
    if (!l) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    memset(l + o->n_keys, 0, sizeof(ckey) * (size_t)(cap - o->n_keys));
    for (int64_t k = o->n_keys; k < cap; k++) {
      l[k].due = INT64_MAX;
      l[k].first = INT64_MIN;
    }
    o->keys = l;
    o->n_keys = cap;
  }
  /* the panes: the window start column holds the row's time */
  wk = keys[p->window_key];
  keys[p->window_key] = (lm_array *)tc;
  int64_t before = lm_aggtable_groups(o->pt);
  rc = lm_aggtable_lookup(o->pt, keys, sel, m, gids, err);
  if (!rc)
    rc = lm_aggtable_check_w(o->pt, aggs, wts, sel, m, gids, err);
  keys[p->window_key] = wk;
  if (rc) { /* a refused batch leaves no trace */
    lm_aggtable_truncate(o->pt, before);
    goto done;
  }
  lm_aggtable_set_seq_base(o->pt, lm_agg_seq_reserve(n));
  rc = lm_aggtable_accumulate_w(o->pt, aggs, wts, sel, m, gids, err);
  lm_aggtable_set_seq_base(o->pt, -1);
  if (rc)
    goto done;
  for (int64_t j = 0; j < m; j++)
    refs[j] = (row_ref){kids[j], ts[sel[j]], gids[j]};
  qsort(refs, (size_t)m, sizeof(row_ref), cmp_ref);
  o->epoch++;
  for (int64_t a = 0; a < m && !rc;) {
    int64_t e = a, nt = 0;
    ckey *k = &o->keys[refs[a].kid];
    for (; e < m && refs[e].kid == refs[a].kid; e++) {
      if (nt && touched[nt - 1] == refs[e].t)
        continue;
      touched[nt++] = refs[e].t;
      if (lm_aggtable_group_rows(o->pt, refs[e].gid) > 0 &&
          add_time(o, k, refs[e].t, refs[e].gid))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    /* times whose rows were all retracted leave the set */
    int32_t w = 0;
    for (int32_t i = 0; i < k->n; i++)
      if (lm_aggtable_group_rows(o->pt, k->ts[i].gid) > 0)
        k->ts[w++] = k->ts[i];
    o->live_ts -= k->n - w;
    k->n = w;
    k->mark = o->epoch;
    if (!rc && refresh(o, refs[a].kid, touched, nt))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    a = e;
  }
  if (!rc)
    rc = flush(o, err);
  if (!rc)
    rc = maybe_compact(o, err);
done:
  free(sel);
  free(late);
  free(kids);
  free(gids);
  free(refs);
  free(touched);
  lm_release_inputs(p, keys, aggs);
  return rc;
}

static int sc_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  sc_op *o = (sc_op *)op;
  if (o->wm != INT64_MIN && wm <= o->wm)
    return 0;
  o->wm = wm;
  o->epoch++;
  int rc = 0;
  while (o->dues.n && o->dues.a[0].key <= wm && !rc) {
    dhent t = o->dues.a[0];
    dh_pop(&o->dues);
    ckey *k = &o->keys[t.kid];
    if (k->due != t.key || k->mark == o->epoch)
      continue;
    k->mark = o->epoch;
    k->due = INT64_MAX;
    if (refresh(o, t.kid, NULL, 0))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (!rc)
    rc = flush(o, err);
  if (!rc)
    rc = maybe_compact(o, err);
  if (rc)
    return rc;
  /* the smallest start of a live session (stale entries dropped) */
  while (o->firsts.n) {
    dhent t = o->firsts.a[0];
    ckey *k = &o->keys[t.kid];
    if (k->n && k->ts[0].t == t.key)
      break;
    dh_pop(&o->firsts);
  }
  int64_t h = wm == INT64_MAX ? INT64_MAX : lm_sat_add(wm, -o->lateness);
  int64_t ow = o->firsts.n && o->firsts.a[0].key < h ? o->firsts.a[0].key : h;
  if (ow > o->out_wm) {
    o->out_wm = ow;
    rc = lm_operator_forward_watermark(op, ow, err);
  }
  return rc;
}

static void sc_free(lm_operator *op) {
  sc_op *o = (sc_op *)op;
  for (int64_t k = 0; k < o->n_keys; k++) {
    free(o->keys[k].ts);
    free(o->keys[k].e);
  }
  free(o->keys);
  free(o->dues.a);
  free(o->firsts.a);
  free(o->ins);
  free(o->pg);
  free(o->ret);
  lm_aggtable_free(o->kd);
  lm_aggtable_free(o->pt);
  lm_aggtable_free(o->ot);
  lm_schema_release(o->wschema);
  free(o);
}

static const lm_operator_vt sc_vt = {"session_window", sc_push, sc_watermark,
                                     sc_free};

lm_operator *lm_op_session_changelog_new(const lm_plan *plan,
                                         lm_window_emit mode,
                                         lm_schema *wschema,
                                         lm_output_cb late) {
  sc_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &sc_vt;
  o->plan = plan;
  o->mode = mode;
  o->wschema = wschema ? lm_schema_retain(wschema) : NULL;
  o->late = late;
  o->gap = plan->window_size_us;
  o->lateness = plan->allowed_lateness_us;
  o->changes = mode == LM_WEMIT_UPDATES ||
               (mode == LM_WEMIT_CLOSE && plan->allowed_lateness_us > 0);
  o->wm = INT64_MIN;
  o->out_wm = INT64_MIN;
  o->pt = lm_plan_new_aggtable(plan);
  o->ot = lm_plan_new_aggtable(plan);
  o->kd = lm_plan_new_aggtable(plan);
  if (!o->pt || !o->ot || !o->kd) {
    sc_free(&o->base);
    return NULL;
  }
  return &o->base;
}
