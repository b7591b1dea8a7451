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
 * last + gap), kept as a sorted list of (first, last) updated with each
 * time that enters or leaves the set: a time joins the chain within gap
 * of it (and may bridge it with the next one), a time that leaves
 * shrinks its chain or splits it where the gap it leaves is >= gap — the
 * same chains a recompute from scratch gives.
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
 * Only the sessions near a change are compared: after a batch, those
 * (current or emitted) within gap of a time the batch touched; at a
 * watermark, those that end at or before it (the only ones that can
 * close or expire). Every other session of the key is as it was, and so
 * is its row.
 *
 * Cost: a touched time costs O(log(live times of its key)) plus the
 * shift of the arrays after the insertion point (small when the data
 * comes nearly in time order); a session whose row changes costs O(its
 * distinct times) (its row is rebuilt from its panes).
 */
#include <stddef.h>
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

typedef struct cur_sess {
  int64_t start, last; /* a maximal chain of the live times */
} cur_sess;

typedef struct ckey {
  ts_ent *ts; /* live times, ascending */
  int32_t n, cap;
  cur_sess *s; /* the current sessions of ts, ascending */
  int32_t ns, caps;
  em_sess *e; /* emitted sessions, ascending */
  int32_t ne, cape;
  int64_t due;   /* next watermark at which the key needs work */
  int64_t mark;  /* epoch of the last refresh */
  int64_t first; /* ts[0].t when last pushed on o->firsts */
} ckey;

/* A session to insert: its panes are pg[p0 .. p1) of the op's scratch. */
typedef struct ins_rec {
  int64_t start, last, kid;
  int64_t p0, p1;
  uint32_t ogid;
  bool keep; /* stays emitted (not expired) */
} ins_rec;

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
  lm_wheap dues, firsts; /* (key, key id, -) entries; stale when the key's
                           due / first time is no longer the entry's key */
  /* per refresh round */
  ins_rec *ins;
  int64_t n_ins, cap_ins;
  uint32_t *pg;
  int64_t n_pg, cap_pg;
  lm_window_row *ret;
  int64_t n_ret, cap_ret;
} sc_op;

/* Grows *arr (of `elem`-byte entries, capacity *cap) to hold need
 * entries: -1 on OOM. */
static int grow(void **arr, int32_t *cap, int64_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  int64_t c = *cap ? *cap : 4;
  while (c < need)
    c *= 2;
  if (c > INT32_MAX)
    return -1;
  void *p = realloc(*arr, elem * (size_t)c);
  if (!p)
    return -1;
  *arr = p;
  *cap = (int32_t)c;
  return 0;
}

static bool expired_end(const sc_op *o, int64_t end) {
  return lm_window_expired(o->wm, end, o->lateness);
}
static bool closed_end(const sc_op *o, int64_t end) {
  return lm_window_closed(o->wm, end);
}
static int64_t end_of(const sc_op *o, int64_t last) {
  return lm_sat_add(last, o->gap);
}

/* The first i in [0, n) whose value v(i) = (the int64_t at byte `off` of
 * element i of arr, elements `stride` bytes apart) + add (saturating) is
 * > t (strict) or >= t; the values ascend. n when there is none. */
static int32_t first_at(const void *arr, size_t stride, size_t off, int32_t n,
                        int64_t add, int64_t t, bool strict) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int64_t v;
    memcpy(&v, (const char *)arr + (size_t)mid * stride + off, sizeof v);
    v = lm_sat_add(v, add);
    if (strict ? v > t : v >= t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* First live time >= t. */
static int32_t ts_lower(const ckey *k, int64_t t) {
  return first_at(k->ts, sizeof(ts_ent), offsetof(ts_ent, t), k->n, 0, t,
                  false);
}
/* First current session with last >= t, with start > t, with end (last +
 * gap) > t. */
static int32_t cs_last_ge(const ckey *k, int64_t t) {
  return first_at(k->s, sizeof(cur_sess), offsetof(cur_sess, last), k->ns, 0, t,
                  false);
}
static int32_t cs_start_gt(const ckey *k, int64_t t) {
  return first_at(k->s, sizeof(cur_sess), offsetof(cur_sess, start), k->ns, 0,
                  t, true);
}
static int32_t cs_end_gt(const sc_op *o, const ckey *k, int64_t t) {
  return first_at(k->s, sizeof(cur_sess), offsetof(cur_sess, last), k->ns,
                  o->gap, t, true);
}
/* The same over the emitted sessions. */
static int32_t es_last_ge(const ckey *k, int64_t t) {
  return first_at(k->e, sizeof(em_sess), offsetof(em_sess, last), k->ne, 0, t,
                  false);
}
static int32_t es_start_gt(const ckey *k, int64_t t) {
  return first_at(k->e, sizeof(em_sess), offsetof(em_sess, start), k->ne, 0, t,
                  true);
}
static int32_t es_end_gt(const sc_op *o, const ckey *k, int64_t t) {
  return first_at(k->e, sizeof(em_sess), offsetof(em_sess, last), k->ne, o->gap,
                  t, true);
}

static int cs_insert(ckey *k, int32_t i, cur_sess c) {
  if (grow((void **)&k->s, &k->caps, (int64_t)k->ns + 1, sizeof(cur_sess)))
    return -1;
  memmove(&k->s[i + 1], &k->s[i], sizeof(cur_sess) * (size_t)(k->ns - i));
  k->s[i] = c;
  k->ns++;
  return 0;
}
static void cs_remove(ckey *k, int32_t i) {
  memmove(&k->s[i], &k->s[i + 1], sizeof(cur_sess) * (size_t)(k->ns - i - 1));
  k->ns--;
}

/* Inserts time t (not live; its pane gid) at ts[i] and updates the
 * current sessions: t joins the chain within gap of it, or starts one. */
static int add_time(sc_op *o, ckey *k, int32_t i, int64_t t, uint32_t gid) {
  if (grow((void **)&k->ts, &k->cap, (int64_t)k->n + 1, sizeof(ts_ent)))
    return -1;
  memmove(&k->ts[i + 1], &k->ts[i], sizeof(ts_ent) * (size_t)(k->n - i));
  k->ts[i] = (ts_ent){t, gid};
  k->n++;
  o->live_ts++;
  /* the sessions before c end at or before t: t is not within their gap */
  int32_t c = cs_end_gt(o, k, t);
  if (c == k->ns || k->s[c].start >= end_of(o, t))
    return cs_insert(k, c, (cur_sess){t, t});
  cur_sess *s = &k->s[c];
  if (t < s->start)
    s->start = t;
  if (t > s->last) {
    s->last = t;
    if (c + 1 < k->ns && k->s[c + 1].start < end_of(o, t)) { /* bridged */
      s->last = k->s[c + 1].last;
      cs_remove(k, c + 1);
    }
  }
  return 0;
}

/* Removes the live time ts[i] and updates the current sessions: its
 * chain shrinks, or splits where the gap it leaves is >= gap. */
static int remove_time(sc_op *o, ckey *k, int32_t i) {
  int64_t t = k->ts[i].t;
  memmove(&k->ts[i], &k->ts[i + 1], sizeof(ts_ent) * (size_t)(k->n - i - 1));
  k->n--;
  o->live_ts--;
  int32_t c = cs_last_ge(k, t); /* the chain holding t */
  cur_sess *s = &k->s[c];
  if (s->start == t && s->last == t) {
    cs_remove(k, c);
  } else if (s->start == t) {
    s->start = k->ts[i].t;
  } else if (s->last == t) {
    s->last = k->ts[i - 1].t;
  } else {
    int64_t before = k->ts[i - 1].t, after = k->ts[i].t;
    if (after >= end_of(o, before)) { /* t was the bridge */
      cur_sess right = {after, s->last};
      s->last = before;
      return cs_insert(k, c + 1, right);
    }
  }
  return 0;
}

static int retract(sc_op *o, const em_sess *e) {
  if (o->n_ret == o->cap_ret) {
    int64_t c = o->cap_ret ? o->cap_ret * 2 : 16;
    lm_window_row *p = realloc(o->ret, sizeof(lm_window_row) * (size_t)c);
    if (!p)
      return -1;
    o->ret = p;
    o->cap_ret = c;
  }
  o->ret[o->n_ret++] = (lm_window_row){e->ogid, e->start, end_of(o, e->last)};
  o->live_e--;
  return 0;
}

/* Queues session [start, last] of key kid (its panes: the times ts[a..b))
 * for insertion; keep: it stays emitted. */
static int queue_insert(sc_op *o, int64_t kid, int64_t start, int64_t last,
                        int32_t a, int32_t b, bool keep) {
  const ckey *k = &o->keys[kid];
  if (o->n_ins == o->cap_ins) {
    int64_t c = o->cap_ins ? o->cap_ins * 2 : 16;
    ins_rec *p = realloc(o->ins, sizeof(ins_rec) * (size_t)c);
    if (!p)
      return -1;
    o->ins = p;
    o->cap_ins = c;
  }
  if (o->n_pg + (b - a) > o->cap_pg) {
    int64_t c = o->cap_pg ? o->cap_pg : 64;
    while (c < o->n_pg + (b - a))
      c *= 2;
    uint32_t *p = realloc(o->pg, sizeof(uint32_t) * (size_t)c);
    if (!p)
      return -1;
    o->pg = p;
    o->cap_pg = c;
  }
  o->ins[o->n_ins++] =
      (ins_rec){start, last, kid, o->n_pg, o->n_pg + (b - a), 0, keep};
  for (int32_t x = a; x < b; x++)
    o->pg[o->n_pg++] = k->ts[x].gid;
  return 0;
}

/* Compares the current sessions s[c0..c1) of key kid with its emitted
 * sessions e[e0..e1) (a range holding every session, either kind, of
 * its span): retractions of emitted sessions that changed go to o->ret,
 * sessions to (re)emit to o->ins, expired sessions leave the time set.
 * touched[0..nt): the times the batch changed, ascending. -1 on OOM. */
static int refresh_range(sc_op *o, int64_t kid, int32_t c0, int32_t c1,
                         int32_t e0, int32_t e1, const int64_t *touched,
                         int64_t nt) {
  ckey *k = &o->keys[kid];
  int32_t oi = e0, ew = e0; /* emitted: read, kept */
  int32_t cw = c0;          /* current sessions kept */
  int64_t ti = 0;
  if (c0 < c1) /* the first touched time >= the range's first start */
    for (int64_t hi = nt; ti < hi;) {
      int64_t mid = ti + (hi - ti) / 2;
      if (touched[mid] < k->s[c0].start)
        ti = mid + 1;
      else
        hi = mid;
    }
  for (int32_t ci = c0; ci < c1; ci++) {
    int64_t start = k->s[ci].start, last = k->s[ci].last;
    int64_t end = end_of(o, last);
    bool exp = expired_end(o, end);
    bool vis = o->mode == LM_WEMIT_UPDATES ||
               (o->mode == LM_WEMIT_CLOSE && closed_end(o, end)) ||
               (o->mode == LM_WEMIT_FINAL && exp);
    while (ti < nt && touched[ti] < start)
      ti++;
    bool dirty = ti < nt && touched[ti] <= last;
    /* emitted sessions before this one are gone */
    for (; oi < e1 && k->e[oi].start < start; oi++)
      if (retract(o, &k->e[oi]))
        return -1;
    bool same = oi < e1 && k->e[oi].start == start && k->e[oi].last == last &&
                !dirty && vis;
    if (oi < e1 && k->e[oi].start == start) {
      if (!same) {
        if (retract(o, &k->e[oi]))
          return -1;
      } else if (!exp)
        k->e[ew++] = k->e[oi];
      else
        o->live_e--;
      oi++;
    }
    int32_t a = ts_lower(k, start), b = ts_lower(k, last) + 1;
    if (vis && !same &&
        queue_insert(o, kid, start, last, a, b, !exp && o->changes))
      return -1;
    if (exp) { /* its times leave the set */
      memmove(&k->ts[a], &k->ts[b], sizeof(ts_ent) * (size_t)(k->n - b));
      k->n -= b - a;
      o->live_ts -= b - a;
    } else
      k->s[cw++] = k->s[ci];
  }
  for (; oi < e1; oi++)
    if (retract(o, &k->e[oi]))
      return -1;
  /* the inserted sessions that stay emitted join e when built (their
   * ogid is known then) */
  if (k->ne > e1) /* k->e may be NULL (no sessions): no pointer arithmetic */
    memmove(&k->e[ew], &k->e[e1], sizeof(em_sess) * (size_t)(k->ne - e1));
  k->ne -= e1 - ew;
  if (k->ns > c1)
    memmove(&k->s[cw], &k->s[c1], sizeof(cur_sess) * (size_t)(k->ns - c1));
  k->ns -= c1 - cw;
  return 0;
}

/* Re-arms the key's schedules: due = the next watermark at which one of
 * its sessions closes (CLOSE, not yet closed) or expires; first = its
 * smallest live time (for the output watermark). -1 on OOM. */
static int reschedule(sc_op *o, int64_t kid) {
  ckey *k = &o->keys[kid];
  int64_t due = INT64_MAX;
  if (k->ns) {
    int64_t e0 = end_of(o, k->s[0].last);
    if (o->mode == LM_WEMIT_CLOSE && !closed_end(o, e0)) {
      due = e0;
    } else {
      due = lm_sat_add(e0, o->lateness);
      if (o->mode == LM_WEMIT_CLOSE) { /* the first one still open */
        int32_t c = cs_end_gt(o, k, o->wm);
        if (c < k->ns && end_of(o, k->s[c].last) < due)
          due = end_of(o, k->s[c].last);
      }
    }
  }
  if (due != k->due) {
    k->due = due;
    if (due != INT64_MAX && lm_wheap_push(&o->dues, due, kid, 0))
      return -1;
  }
  if (!k->n)
    k->first = INT64_MIN;
  else if (k->ts[0].t != k->first) {
    k->first = k->ts[0].t;
    if (lm_wheap_push(&o->firsts, k->first, kid, 0))
      return -1;
  }
  return 0;
}

/* After a batch: compares the sessions (current and emitted) within gap
 * of the touched times touched[0..nt) (ascending), span by span. */
static int refresh_touched(sc_op *o, int64_t kid, const int64_t *touched,
                           int64_t nt) {
  ckey *k = &o->keys[kid];
  for (int64_t r = 0; r < nt;) {
    int64_t lo = lm_sat_add(touched[r], -o->gap);
    int64_t hi = end_of(o, touched[r]);
    r++;
    int32_t c0, c1, e0, e1;
    for (;;) { /* widen to whole sessions until no session straddles */
      for (; r < nt && lm_sat_add(touched[r], -o->gap) <= hi; r++)
        if (end_of(o, touched[r]) > hi)
          hi = end_of(o, touched[r]);
      c0 = cs_last_ge(k, lo);
      c1 = cs_start_gt(k, hi);
      e0 = es_last_ge(k, lo);
      e1 = es_start_gt(k, hi);
      int64_t nlo = lo, nhi = hi;
      if (c0 < c1) {
        nlo = k->s[c0].start < nlo ? k->s[c0].start : nlo;
        nhi = k->s[c1 - 1].last > nhi ? k->s[c1 - 1].last : nhi;
      }
      if (e0 < e1) {
        nlo = k->e[e0].start < nlo ? k->e[e0].start : nlo;
        nhi = k->e[e1 - 1].last > nhi ? k->e[e1 - 1].last : nhi;
      }
      if (nlo == lo && nhi == hi)
        break;
      lo = nlo;
      hi = nhi;
    }
    if (refresh_range(o, kid, c0, c1, e0, e1, touched, nt))
      return -1;
  }
  return reschedule(o, kid);
}

/* At watermark o->wm: the sessions that end at or before it (the only
 * ones that can have closed or expired since the key's last refresh). */
static int refresh_due(sc_op *o, int64_t kid) {
  ckey *k = &o->keys[kid];
  if (refresh_range(o, kid, 0, cs_end_gt(o, k, o->wm), 0,
                    es_end_gt(o, k, o->wm), NULL, 0))
    return -1;
  return reschedule(o, kid);
}

static int cmp_ins(const void *x, const void *y) {
  const ins_rec *a = x, *b = y;
  if (a->last != b->last) /* end order */
    return a->last < b->last ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->kid < b->kid ? -1 : a->kid > b->kid;
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
  lm_window_row *rows = NULL;
  int64_t n = o->n_ins;
  if (n) {
    qsort(o->ins, (size_t)n, sizeof(ins_rec), cmp_ins);
    first = malloc(sizeof(uint32_t) * (size_t)n);
    og = malloc(sizeof(uint32_t) * (size_t)n);
    dg = malloc(sizeof(uint32_t) * (size_t)(o->n_pg + 1));
    rows = malloc(sizeof(lm_window_row) * (size_t)n);
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
      rows[i] = (lm_window_row){r->ogid, r->start, lm_sat_add(r->last, o->gap)};
      if (r->keep) { /* into the key's emitted sessions, in start order */
        ckey *k = &o->keys[r->kid];
        if (grow((void **)&k->e, &k->cape, (int64_t)k->ne + 1,
                 sizeof(em_sess))) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          goto done;
        }
        int32_t at = es_start_gt(k, r->start);
        memmove(&k->e[at + 1], &k->e[at],
                sizeof(em_sess) * (size_t)(k->ne - at));
        k->e[at] = (em_sess){r->start, r->last, r->ogid};
        k->ne++;
        o->live_e++;
      }
    }
  }
  if (o->changes)
    rc = lm_window_emit_rows(&o->base, p, o->ot, o->ret, o->n_ret, o->wschema,
                             -1, err);
  if (!rc)
    rc = lm_window_emit_rows(&o->base, p, o->ot, rows, n, o->wschema,
                             o->changes   ? 1
                             : o->wschema ? 1
                                          : 0,
                             err);
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
  uint32_t *sg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  if (!sg)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++)
    sg[i] = *g[i];
  int rc = lm_window_compact(o->plan, t, sg, n, err);
  for (int64_t i = 0; i < n && !rc; i++)
    *g[i] = sg[i];
  free(sg);
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

static int sc_push(lm_operator *op, lm_batch *b, lm_error *err) {
  sc_op *o = (sc_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  uint32_t *gids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  row_ref *refs = malloc(sizeof(row_ref) * (size_t)(n + 1));
  int64_t *touched = malloc(sizeof(int64_t) * (size_t)(n + 1));
  lm_array *wk = NULL;
  lm_session_in in = {0};
  int rc = 0;
  if (!gids || !refs || !touched) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  rc =
      lm_session_in_open(op, p, b, o->kd, lm_window_horizon(o->wm, o->lateness),
                         true, o->late, &in, err);
  if (rc)
    goto done;
  lm_array **keys = in.keys, **aggs = in.aggs;
  const int64_t *wts = in.wts, *ts = in.ts;
  const int32_t *sel = in.sel;
  const uint32_t *kids = in.kids;
  int64_t m = in.m;
  if (!m)
    goto done;
  int64_t k0 = o->n_keys;
  if ((rc = lm_grow_zeroed((void **)&o->keys, &o->n_keys,
                           lm_aggtable_groups(o->kd), sizeof(ckey), err)))
    goto done;
  for (int64_t k = k0; k < o->n_keys; k++) {
    o->keys[k].due = INT64_MAX;
    o->keys[k].first = INT64_MIN;
  }
  /* the panes: the window start column holds the row's time */
  wk = keys[p->window_key];
  keys[p->window_key] = (lm_array *)in.tc;
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
    /* each distinct time enters the set (it has live rows now) or leaves
     * it (its rows were all retracted) */
    for (; e < m && refs[e].kid == refs[a].kid; e++) {
      if (nt && touched[nt - 1] == refs[e].t)
        continue;
      touched[nt++] = refs[e].t;
      bool live = lm_aggtable_group_rows(o->pt, refs[e].gid) > 0;
      int32_t i = ts_lower(k, refs[e].t);
      bool had = i < k->n && k->ts[i].t == refs[e].t;
      if (rc || live == had)
        continue;
      if (live ? add_time(o, k, i, refs[e].t, refs[e].gid)
               : remove_time(o, k, i))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    k->mark = o->epoch;
    if (!rc && refresh_touched(o, refs[a].kid, touched, nt))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    a = e;
  }
  if (!rc)
    rc = flush(o, err);
  if (!rc)
    rc = maybe_compact(o, err);
done:
  free(gids);
  free(refs);
  free(touched);
  lm_session_in_free(p, &in);
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
    lm_wheap_ent t = o->dues.a[0];
    lm_wheap_pop(&o->dues);
    ckey *k = &o->keys[t.id];
    if (k->due != t.key || k->mark == o->epoch)
      continue;
    k->mark = o->epoch;
    k->due = INT64_MAX;
    if (refresh_due(o, t.id))
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
    lm_wheap_ent t = o->firsts.a[0];
    ckey *k = &o->keys[t.id];
    if (k->n && k->ts[0].t == t.key)
      break;
    lm_wheap_pop(&o->firsts);
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
    free(o->keys[k].s);
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
  o->changes = lm_window_changelog(plan, mode);
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
