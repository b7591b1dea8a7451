/*
 * Session windows (docs/windows.md): per group key, a session is
 * [first, last + gap). A row at t joins every session it overlaps
 * ([t, t + gap) intersects [first, last + gap)); a row at exactly
 * last + gap starts a new session; a row that overlaps two sessions
 * merges them into one (their partial aggregate states are merged with
 * lm_aggtable_merge_groups). A session closes when the watermark reaches
 * last + gap and expires at last + gap + allowed lateness.
 *
 * State: a dictionary of group keys (key id -> the key's sessions, sorted
 * and disjoint), a pool of session records, and one group table whose key
 * is the plan's keys with the window start column holding the session's
 * id. Groups of merged or expired sessions are dead until the table is
 * compacted (when they outnumber the live ones).
 *
 * Emission follows lm_window_emit as the pane windows do; in changelog
 * modes a merge retracts every visible part and inserts the merged
 * session, so a session is never left emitted in pieces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/op_internal.h"

typedef struct sess {
  int64_t start, last, sid;
  int64_t old_start, old_last;  /* bounds before the batch (saved == epoch) */
  int64_t gid;                  /* in o->st; -1 before the first lookup */
  int64_t created, saved, mark; /* batch epochs */
  int32_t parent;               /* merged into (this batch); -1 = root */
  int32_t kid;
  int64_t hkey; /* its end heap entry's key, <= due_key (INT64_MIN: none) */
  bool emitted; /* its current row has been emitted (changelog modes) */
  bool live;
} sess;

typedef struct slist {
  int32_t *ix; /* session pool indices, sorted by start */
  int32_t n, cap;
} slist;

typedef struct ss_op {
  lm_operator base;
  const lm_plan *plan;
  lm_window_emit mode;
  lm_schema *wschema;
  lm_output_cb late;
  int64_t gap, lateness;
  lm_aggtable *kd; /* key dictionary: plan keys, window columns constant */
  slist *lists;    /* per key id */
  int64_t n_lists;
  lm_aggtable *st; /* states: plan keys, window start = session id */
  sess *pool;
  int32_t n_pool, cap_pool;
  int32_t *free_ix;
  int32_t n_free, cap_free;
  int64_t next_sid, live, dead;
  int64_t wm, out_wm;
  /* heap entries (key, sid, pool index): valid while the session at the
   * index has this sid, is live and still has this key (stale entries are
   * skipped when popped) */
  lm_wheap ends;   /* when each live session next closes or expires */
  lm_wheap starts; /* the live sessions' starts (for the output watermark) */
  int64_t epoch;   /* batches pushed */
  int32_t *parts;  /* sessions merged away in this batch */
  int64_t n_parts, cap_parts;
} ss_op;

static int64_t sess_end(const ss_op *o, const sess *s) {
  return lm_sat_add(s->last, o->gap);
}

/* When the session next needs the watermark handler: its end (close)
 * or, once it can only expire, its end plus the allowed lateness. */
static int64_t due_key(const ss_op *o, const sess *s) {
  int64_t e = sess_end(o, s);
  return o->mode == LM_WEMIT_CLOSE && !s->emitted ? e
                                                  : lm_sat_add(e, o->lateness);
}

/* (Re)schedules live session i in the end heap if its key changed. */
static int sched(ss_op *o, int32_t i) {
  sess *s = &o->pool[i];
  int64_t k = due_key(o, s);
  if (s->hkey != INT64_MIN && s->hkey <= k)
    return 0; /* its entry is a lower bound: rescheduled when popped */
  s->hkey = k;
  return lm_wheap_push(&o->ends, k, s->sid, i);
}

static int32_t new_sess(ss_op *o) {
  int32_t i;
  if (o->n_free) {
    i = o->free_ix[--o->n_free];
  } else {
    if (o->n_pool == o->cap_pool) {
      int32_t cap = o->cap_pool ? o->cap_pool * 2 : 64;
      sess *p = realloc(o->pool, sizeof(sess) * (size_t)cap);
      if (!p)
        return -1;
      o->pool = p;
      o->cap_pool = cap;
    }
    i = o->n_pool++;
  }
  memset(&o->pool[i], 0, sizeof(sess));
  o->pool[i].gid = -1;
  o->pool[i].parent = -1;
  o->pool[i].hkey = INT64_MIN;
  o->pool[i].live = true;
  o->pool[i].created = o->epoch;
  o->live++;
  return i;
}

static int free_sess(ss_op *o, int32_t i) {
  if (o->n_free == o->cap_free) {
    int32_t cap = o->cap_free ? o->cap_free * 2 : 64;
    int32_t *f = realloc(o->free_ix, sizeof(int32_t) * (size_t)cap);
    if (!f)
      return -1;
    o->free_ix = f;
    o->cap_free = cap;
  }
  if (o->pool[i].gid >= 0)
    o->dead++;
  o->pool[i].live = false;
  o->live--;
  o->free_ix[o->n_free++] = i;
  return 0;
}

static int32_t root(ss_op *o, int32_t i) {
  while (o->pool[i].parent >= 0)
    i = o->pool[i].parent;
  return i;
}

static int list_insert(slist *l, int32_t pos, int32_t ix) {
  if (l->n == l->cap) {
    int32_t cap = l->cap ? l->cap * 2 : 2;
    int32_t *p = realloc(l->ix, sizeof(int32_t) * (size_t)cap);
    if (!p)
      return -1;
    l->ix = p;
    l->cap = cap;
  }
  memmove(&l->ix[pos + 1], &l->ix[pos], sizeof(int32_t) * (size_t)(l->n - pos));
  l->ix[pos] = ix;
  l->n++;
  return 0;
}

/* Keeps a session's bounds as they were before the batch. */
static void save(ss_op *o, sess *s) {
  if (s->saved != o->epoch) {
    s->saved = o->epoch;
    s->old_start = s->start;
    s->old_last = s->last;
  }
}

/* Places a row at t of key kid: returns its session (pool index), or -1
 * on OOM. Sessions it bridges are merged into the first one (parent). */
static int32_t place(ss_op *o, int32_t kid, int64_t t) {
  slist *l = &o->lists[kid];
  int64_t t_end = lm_sat_add(t, o->gap);
  /* first session whose end > t */
  int32_t lo = 0, hi = l->n;
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (sess_end(o, &o->pool[l->ix[mid]]) <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == l->n || o->pool[l->ix[lo]].start >= t_end) {
    int32_t i = new_sess(o);
    if (i < 0 || list_insert(&o->lists[kid], lo, i))
      return -1;
    sess *s = &o->pool[i];
    s->start = s->last = t;
    s->sid = o->next_sid++;
    s->kid = kid;
    if (lm_wheap_push(&o->starts, t, s->sid, i))
      return -1;
    return i;
  }
  int32_t first = l->ix[lo];
  sess *f = &o->pool[first];
  save(o, f);
  if (t < f->start) {
    f->start = t;
    if (lm_wheap_push(&o->starts, t, f->sid, first))
      return -1;
  }
  if (t > f->last)
    f->last = t;
  /* absorb the following sessions the (grown) first one now overlaps */
  int32_t k = lo + 1, j = lo + 1;
  for (; j < l->n; j++) {
    sess *s = &o->pool[l->ix[j]];
    if (s->start >= sess_end(o, f))
      break;
    if (s->last > f->last)
      f->last = s->last;
    save(o, s);
    s->parent = first;
    if (o->n_parts == o->cap_parts) {
      int64_t cap = o->cap_parts ? o->cap_parts * 2 : 16;
      int32_t *np = realloc(o->parts, sizeof(int32_t) * (size_t)cap);
      if (!np)
        return -1;
      o->parts = np;
      o->cap_parts = cap;
    }
    o->parts[o->n_parts++] = l->ix[j];
  }
  memmove(&l->ix[k], &l->ix[j], sizeof(int32_t) * (size_t)(l->n - j));
  l->n -= j - k;
  return first;
}

/* Emits the rows of sessions ix[0..n) (which all have a group) with
 * `weight` (0 = final rows without __weight); old: the bounds they had
 * before this batch. */
static int emit_sessions(ss_op *o, const int32_t *ix, int64_t n, int64_t weight,
                         bool old, lm_error *err) {
  if (!n)
    return 0;
  lm_window_row *r = malloc(sizeof(lm_window_row) * (size_t)n);
  if (!r)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    const sess *s = &o->pool[ix[i]];
    bool o_ = old && s->saved == o->epoch;
    r[i] = (lm_window_row){(uint32_t)s->gid, o_ ? s->old_start : s->start,
                           lm_sat_add(o_ ? s->old_last : s->last, o->gap)};
  }
  int rc = lm_window_emit_rows(&o->base, o->plan, o->st, r, n, o->wschema,
                               weight, err);
  free(r);
  return rc;
}

/* Rebuilds the state table with the live sessions' groups only. */
static int compact(ss_op *o, lm_error *err) {
  int64_t n = 0;
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)(o->n_pool + 1));
  int32_t *who = malloc(sizeof(int32_t) * (size_t)(o->n_pool + 1));
  int rc = 0;
  if (!g || !who) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else {
    for (int32_t i = 0; i < o->n_pool; i++)
      if (o->pool[i].live && o->pool[i].gid >= 0) {
        who[n] = i;
        g[n++] = (uint32_t)o->pool[i].gid;
      }
    rc = lm_window_compact(o->plan, &o->st, g, n, err);
  }
  if (!rc) {
    for (int64_t i = 0; i < n; i++)
      o->pool[who[i]].gid = g[i];
    o->dead = 0;
  }
  free(g);
  free(who);
  return rc;
}

static int ss_push(lm_operator *op, lm_batch *b, lm_error *err) {
  ss_op *o = (ss_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  int32_t *rs = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *aff = malloc(sizeof(int32_t) * (size_t)(2 * n + 1));
  int32_t *parts = malloc(sizeof(int32_t) * (size_t)(2 * n + 1));
  uint32_t *gids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  lm_array *sids = NULL;
  int64_t n_aff = 0, n_parts = 0;
  lm_session_in in = {0};
  int rc = 0;
  if (!rs || !aff || !parts || !gids) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  rc =
      lm_session_in_open(op, p, b, o->kd, lm_window_horizon(o->wm, o->lateness),
                         false, o->late, &in, err);
  if (rc)
    goto done;
  lm_array **keys = in.keys, **aggs = in.aggs;
  const int32_t *sel = in.sel;
  const uint32_t *kids = in.kids;
  const int64_t *ts = in.ts;
  int64_t m = in.m;
  if (!m)
    goto done;
  if ((rc = lm_grow_zeroed((void **)&o->lists, &o->n_lists,
                           lm_aggtable_groups(o->kd), sizeof(slist), err)))
    goto done;
  /* sessions: place every row, merging as rows bridge sessions */
  o->epoch++;
  o->n_parts = 0;
  for (int64_t j = 0; j < m; j++) {
    int32_t s = place(o, (int32_t)kids[j], ts[sel[j]]);
    if (s < 0) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    rs[j] = s;
  }
  /* the roots (affected sessions) */
  for (int64_t j = 0; j < m; j++) {
    int32_t s = root(o, rs[j]);
    rs[j] = s;
    if (o->pool[s].mark != o->epoch) {
      o->pool[s].mark = o->epoch;
      aff[n_aff++] = s;
    }
  }
  n_parts = o->n_parts;
  if (n_parts > m) {
    int32_t *np = realloc(parts, sizeof(int32_t) * (size_t)(n_parts + 1));
    if (!np) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    parts = np;
  }
  if (n_parts)
    memcpy(parts, o->parts, sizeof(int32_t) * (size_t)n_parts);
  /* retract what was visible of the roots and of the merged parts */
  bool changes = lm_window_changelog(p, o->mode);
  if (changes) {
    int32_t *vis = malloc(sizeof(int32_t) * (size_t)(n_aff + n_parts + 1));
    int64_t nv = 0;
    if (!vis) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    for (int pass = 0; pass < 2; pass++)
      for (int64_t i = 0; i < (pass ? n_parts : n_aff); i++) {
        int32_t x = pass ? parts[i] : aff[i];
        sess *s = &o->pool[x];
        if (s->created < o->epoch && s->gid >= 0 && s->emitted) {
          vis[nv++] = x;
          s->emitted = false;
        }
      }
    rc = emit_sessions(o, vis, nv, -1, true, err);
    free(vis);
    if (rc)
      goto done;
  }
  /* the session id of each row's root, and the group ids */
  {
    lm_builder sb;
    if (lm_builder_init(&sb, p->agg_schema->fields[p->window_key].type, n)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
      if (j < m && sel[j] == i)
        lm_builder_append_int(&sb, o->pool[rs[j++]].sid);
      else
        lm_builder_append_int(&sb, 0);
    }
    rc = lm_builder_finish(&sb, &sids);
    lm_builder_free(&sb);
    if (rc) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
  }
  lm_array *wk = keys[p->window_key];
  keys[p->window_key] = sids;
  rc = lm_aggtable_lookup(o->st, keys, sel, m, gids, err);
  if (!rc)
    rc = lm_aggtable_check(o->st, aggs, sel, m, gids, err);
  keys[p->window_key] = wk;
  if (rc)
    goto done;
  for (int64_t j = 0; j < m; j++)
    o->pool[rs[j]].gid = gids[j];
  /* fold the merged parts into their roots, then the rows */
  for (int64_t i = 0; i < n_parts && !rc; i++) {
    sess *s = &o->pool[parts[i]];
    int32_t r = root(o, parts[i]);
    if (s->gid >= 0)
      rc = lm_aggtable_merge_group(o->st, (uint32_t)o->pool[r].gid, o->st,
                                   (uint32_t)s->gid, err);
  }
  if (!rc) { /* first/last_value: the batch's row order, not sel's */
    lm_aggtable_set_seq_base(o->st, lm_agg_seq_reserve(n));
    rc = lm_aggtable_accumulate(o->st, aggs, sel, m, gids, err);
    lm_aggtable_set_seq_base(o->st, -1);
  }
  for (int64_t i = 0; i < n_parts; i++)
    if (free_sess(o, parts[i]) && !rc)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n_aff && !rc; i++)
    if (sched(o, aff[i]))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc)
    goto done;
  /* insert the affected sessions that are visible now */
  if (changes) {
    int64_t k = 0;
    for (int64_t i = 0; i < n_aff; i++) {
      sess *s = &o->pool[aff[i]];
      if (o->mode == LM_WEMIT_UPDATES ||
          lm_window_closed(o->wm, sess_end(o, s))) {
        s->emitted = true;
        if (sched(o, aff[i]) && !rc)
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        aff[k++] = aff[i];
      }
    }
    if (!rc)
      rc = emit_sessions(o, aff, k, 1, false, err);
  }
  if (!rc && o->dead > 4096 && o->dead > o->live)
    rc = compact(o, err);
done:
  free(rs);
  free(aff);
  free(parts);
  free(gids);
  lm_array_release(sids);
  lm_session_in_free(p, &in);
  return rc;
}

static int cmp_end(const void *x, const void *y) {
  const int64_t *a = x, *b = y; /* (end, start, index) triples */
  for (int i = 0; i < 3; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}
static int cmp_kid(const void *x, const void *y) {
  const int64_t *a = x, *b = y; /* (key id, start, index) triples */
  for (int i = 0; i < 2; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* Pops the valid entries with key <= wm: the sessions due at wm go to
 * *out (pool indices), those extended since are rescheduled. */
static int pop_due(ss_op *o, int64_t wm, int32_t **out, int64_t *n_out) {
  int32_t *v = NULL;
  int64_t n = 0, cap = 0;
  lm_wheap *h = &o->ends;
  while (h->n && h->a[0].key <= wm) {
    lm_wheap_ent t = h->a[0];
    lm_wheap_pop(h);
    sess *s = &o->pool[t.ix];
    if (!s->live || s->sid != t.id || s->hkey != t.key)
      continue;
    s->hkey = INT64_MIN;
    if (due_key(o, s) > wm) { /* extended since it was scheduled */
      if (sched(o, t.ix)) {
        free(v);
        return -1;
      }
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      int32_t *nv = realloc(v, sizeof(int32_t) * (size_t)cap);
      if (!nv) {
        free(v);
        return -1;
      }
      v = nv;
    }
    v[n++] = t.ix;
  }
  *out = v;
  *n_out = n;
  return 0;
}

static int ss_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  ss_op *o = (ss_op *)op;
  if (o->wm != INT64_MIN && wm <= o->wm)
    return 0;
  o->wm = wm;
  int rc = 0;
  int64_t h = wm == INT64_MAX ? INT64_MAX : lm_sat_add(wm, -o->lateness);
  int32_t *cand = NULL;
  int64_t nc = 0;
  if (pop_due(o, wm, &cand, &nc))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (nc) {
    int64_t *due = malloc(sizeof(int64_t) * 3 * (size_t)nc);
    int32_t *ix = malloc(sizeof(int32_t) * (size_t)nc);
    if (!due || !ix) {
      free(due);
      free(ix);
      free(cand);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    int64_t nd = 0;
    for (int64_t c = 0; c < nc; c++) {
      int32_t i = cand[c];
      sess *s = &o->pool[i];
      int64_t e = sess_end(o, s);
      bool fire = o->mode == LM_WEMIT_FINAL   ? e <= h
                  : o->mode == LM_WEMIT_CLOSE ? e <= wm && !s->emitted
                                              : false;
      if (fire) {
        due[3 * nd] = e;
        due[3 * nd + 1] = s->start;
        due[3 * nd + 2] = i;
        nd++;
      }
    }
    qsort(due, (size_t)nd, 3 * sizeof(int64_t), cmp_end);
    for (int64_t i = 0; i < nd; i++) {
      ix[i] = (int32_t)due[3 * i + 2];
      o->pool[ix[i]].emitted = true;
    }
    rc = emit_sessions(o, ix, nd, o->wschema ? 1 : 0, false, err);
    /* expired sessions leave their key's list, freed in (key, start)
     * order; the others are rescheduled */
    int64_t nx = 0;
    for (int64_t c = 0; c < nc && !rc; c++) {
      int32_t i = cand[c];
      sess *s = &o->pool[i];
      if (lm_window_expired(o->wm, sess_end(o, s), o->lateness)) {
        due[3 * nx] = s->kid;
        due[3 * nx + 1] = s->start;
        due[3 * nx + 2] = i;
        nx++;
      } else if (sched(o, i)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      }
    }
    if (!rc)
      qsort(due, (size_t)nx, 3 * sizeof(int64_t), cmp_kid);
    for (int64_t x = 0; x < nx && !rc; x++) {
      int32_t i = (int32_t)due[3 * x + 2];
      slist *l = &o->lists[o->pool[i].kid];
      int32_t j = 0;
      while (j < l->n && l->ix[j] != i)
        j++;
      if (j < l->n) {
        memmove(&l->ix[j], &l->ix[j + 1],
                sizeof(int32_t) * (size_t)(l->n - j - 1));
        l->n--;
      }
      if (free_sess(o, i))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    free(due);
    free(ix);
    free(cand);
    if (!rc && o->dead > 4096 && o->dead > o->live)
      rc = compact(o, err);
    if (rc)
      return rc;
  }
  /* the smallest live start: drop stale entries */
  lm_wheap *sh = &o->starts;
  while (sh->n) {
    lm_wheap_ent t = sh->a[0];
    sess *s = &o->pool[t.ix];
    if (s->live && s->sid == t.id && s->start == t.key)
      break;
    lm_wheap_pop(sh);
  }
  int64_t min_start = sh->n ? sh->a[0].key : INT64_MAX;
  int64_t ow = o->live ? (min_start < h ? min_start : h) : h;
  if (ow > o->out_wm) {
    o->out_wm = ow;
    rc = lm_operator_forward_watermark(op, ow, err);
  }
  return rc;
}

static void ss_free(lm_operator *op) {
  ss_op *o = (ss_op *)op;
  for (int64_t k = 0; k < o->n_lists; k++)
    free(o->lists[k].ix);
  free(o->lists);
  free(o->pool);
  free(o->free_ix);
  free(o->parts);
  free(o->ends.a);
  free(o->starts.a);
  lm_aggtable_free(o->kd);
  lm_aggtable_free(o->st);
  lm_schema_release(o->wschema);
  free(o);
}

static const lm_operator_vt ss_vt = {"session_window", ss_push, ss_watermark,
                                     ss_free};

lm_operator *lm_op_session_window_new(const lm_plan *plan, lm_window_emit mode,
                                      lm_schema *wschema, lm_output_cb late) {
  if (plan->changelog_input) /* retractions can split sessions */
    return lm_op_session_changelog_new(plan, mode, wschema, late);
  ss_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &ss_vt;
  o->plan = plan;
  o->mode = mode;
  o->wschema = wschema ? lm_schema_retain(wschema) : NULL;
  o->late = late;
  o->gap = plan->window_size_us;
  o->lateness = plan->allowed_lateness_us;
  o->wm = INT64_MIN;
  o->out_wm = INT64_MIN;
  o->st = lm_plan_new_aggtable(plan);
  o->kd = lm_plan_new_aggtable(plan);
  if (!o->st || !o->kd) {
    ss_free(&o->base);
    return NULL;
  }
  return &o->base;
}
