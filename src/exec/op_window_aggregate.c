/*
 * Windowed aggregate over panes: TUMBLE, HOP and CUMULATE
 * (docs/windows.md).
 *
 * Time is cut into panes of g = gcd(slide, size) µs (TUMBLE: g = size;
 * CUMULATE: g = step), aligned to the epoch plus the offset with floor
 * division. A row is folded into the group table of its pane only, once;
 * a window [start, end) is assembled when it is emitted by merging the
 * partial states of the panes it covers (lm_aggtable_merge_groups), so a
 * HOP of size/slide = 5 keeps one state per pane, not five copies.
 *
 * Emission (lm_window_emit):
 *   CLOSE   at watermark >= end, one row per group; with allowed lateness
 *           L the panes stay until watermark >= end + L and a row landing
 *           in a closed window emits -old/+new for its group;
 *   FINAL   at watermark >= end + L, one row per group, nothing after;
 *   UPDATES after every batch, -old/+new for each (window, group) the
 *           batch changed (old only if the group existed), like the
 *           non-windowed aggregate's changelog.
 * A row whose windows have all expired (end + L <= watermark) is late.
 *
 * Changelog input (plan->changelog_input): each row carries its BIGINT
 * __weight (column plan->weight_col); pane states are retractable and a
 * retraction folds out of its pane like an insertion folds in. A
 * retraction whose windows have all expired is late like any late row. A
 * group whose live rows in a window drop to 0 has no row in that window
 * (its old row is retracted, in the modes that emit changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

typedef struct pane {
  int64_t start;
  lm_aggtable *t;
  int64_t before;          /* groups before the current batch */
  const uint32_t *touched; /* group ids the current batch folds into */
  int64_t n_touched;       /* (borrowed from the batch's scratch) */
} pane;

typedef struct win {
  int64_t start, end;
} win;

#define PW_SPARES 16

typedef struct pw_op {
  lm_operator base;
  const lm_plan *plan;
  lm_window_emit mode;
  lm_schema *wschema; /* out_schema + __weight, or NULL */
  lm_output_cb late;
  int64_t g, size, slide, off, lateness;
  pane *panes; /* sorted by start */
  int64_t n_panes, cap_panes;
  int64_t wm;         /* INT64_MIN until the first watermark */
  int64_t emitted_to; /* windows with end <= this were emitted (CLOSE/FINAL) */
  int64_t out_wm;
  int64_t wm_shift; /* added to the output watermark: the size when the
                       output's time column is the window end */
  win *wins;
  int64_t n_wins, cap_wins;
  /* expired panes' tables, emptied (capacity kept), for the next panes */
  lm_aggtable *spare[PW_SPARES];
  int n_spare;
  lm_aggtable *merge; /* a window's panes merged (emptied after each use) */
  /* Sliding HOP emission (slide_ok: HOP with size >= 3 slides, CLOSE or
   * FINAL without lateness, append-only input, invertible aggregates):
   * `merge` keeps the panes [slide_lo, slide_hi) merged between windows
   * (slide_valid); the next window adds the panes it gains and, after it
   * is emitted, subtracts those it loses (lm_aggtable_unmerge_groups), 2
   * passes over pane tables instead of size/slide. Groups whose rows in
   * the window are 0 stay in `merge` (skipped) until it is rebuilt. */
  bool slide_ok, slide_valid;
  int64_t slide_lo, slide_hi;
  uint32_t *live;
  int64_t cap_live;
  /* the window keys' placeholders (zeros, filled at emission) of the last
   * batch's size, shared by the batches of that size */
  lm_array *zk[2];
} pw_op;

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* end + lateness <= wm: the window can no longer change */
static bool expired(const pw_op *o, int64_t end) {
  return lm_window_expired(o->wm, end, o->lateness);
}
static bool closed(const pw_op *o, int64_t end) {
  return lm_window_closed(o->wm, end);
}

/* floor((t - off) / unit) * unit + off, clamped to int64; in 64 bits
 * unless that overflows (a 128-bit division per row was ~5% of q5) */
static int64_t floor_align(int64_t t, int64_t unit, int64_t off) {
  int64_t y, a, r;
  if (!__builtin_sub_overflow(t, off, &y)) {
    r = y % unit;
    if (r < 0)
      r += unit;
    if (!__builtin_sub_overflow(y, r, &a) &&
        !__builtin_add_overflow(a, off, &a))
      return a;
  }
  return lm_clamp_i64(lm_floor_align128(t, unit, off));
}

/* The largest end among the windows containing pane ps. */
static int64_t pane_last_end(const pw_op *o, int64_t ps) {
  if (o->plan->window_kind == LM_WIN_CUMULATE)
    return lm_sat_add(floor_align(ps, o->size, o->off), o->size);
  return lm_sat_add(floor_align(ps, o->slide, o->off), o->size);
}

static int add_win(pw_op *o, int64_t s, int64_t e) {
  if (o->n_wins == o->cap_wins) {
    int64_t cap = o->cap_wins ? o->cap_wins * 2 : 16;
    win *w = realloc(o->wins, sizeof(win) * (size_t)cap);
    if (!w)
      return -1;
    o->wins = w;
    o->cap_wins = cap;
  }
  o->wins[o->n_wins].start = s;
  o->wins[o->n_wins++].end = e;
  return 0;
}

/* Appends to o->wins the windows containing pane ps with end in (lo, hi]
 * that `keep` accepts (NULL = all). */
static int windows_of(pw_op *o, int64_t ps, int64_t lo, int64_t hi,
                      bool (*keep)(const pw_op *, int64_t end)) {
  /* in 128 bits: windows near the ends of the int64 range */
  typedef __int128 i128;
  const i128 max = INT64_MAX, min = INT64_MIN;
  if (o->plan->window_kind == LM_WIN_CUMULATE) {
    i128 base = floor_align(ps, o->size, o->off);
    for (i128 e = (i128)ps + o->g; e - base <= o->size; e += o->g) {
      int64_t e64 = e > max ? INT64_MAX : (int64_t)e;
      if (e64 > lo && e64 <= hi && (!keep || keep(o, e64)) &&
          add_win(o, (int64_t)base, e64))
        return -1;
      if (e > max)
        break;
    }
    return 0;
  }
  for (i128 s = floor_align(ps, o->slide, o->off);
       s >= min && s + o->size >= (i128)ps + o->g; s -= o->slide) {
    i128 e = s + o->size;
    int64_t e64 = e > max ? INT64_MAX : (int64_t)e;
    if (e64 > lo && e64 <= hi && (!keep || keep(o, e64)) &&
        add_win(o, (int64_t)s, e64))
      return -1;
  }
  return 0;
}

static int cmp_win(const void *x, const void *y) {
  const win *a = x, *b = y;
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return (a->start > b->start) - (a->start < b->start);
}

static void sort_unique_wins(pw_op *o) {
  if (o->n_wins > 1)
    qsort(o->wins, (size_t)o->n_wins, sizeof(win), cmp_win);
  int64_t k = 0;
  for (int64_t i = 0; i < o->n_wins; i++)
    if (k == 0 || cmp_win(&o->wins[k - 1], &o->wins[i]) != 0)
      o->wins[k++] = o->wins[i];
  o->n_wins = k;
}

/* First pane with start >= t. */
static int64_t lower_pane(const pw_op *o, int64_t t) {
  int64_t lo = 0, hi = o->n_panes;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (o->panes[mid].start < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static pane *get_pane(pw_op *o, int64_t start) {
  int64_t i = lower_pane(o, start);
  if (i < o->n_panes && o->panes[i].start == start)
    return &o->panes[i];
  if (o->n_panes == o->cap_panes) {
    int64_t cap = o->cap_panes ? o->cap_panes * 2 : 8;
    pane *p = realloc(o->panes, sizeof(pane) * (size_t)cap);
    if (!p)
      return NULL;
    o->panes = p;
    o->cap_panes = cap;
  }
  lm_aggtable *t =
      o->n_spare ? o->spare[--o->n_spare] : lm_plan_new_aggtable(o->plan);
  if (!t)
    return NULL;
  if (o->n_panes) { /* sized like the latest pane: no regrowth (advice) */
    const lm_aggtable *l = o->panes[o->n_panes - 1].t;
    (void)lm_aggtable_reserve(t, lm_aggtable_groups(l),
                              lm_aggtable_key_bytes(l));
  }
  memmove(&o->panes[i + 1], &o->panes[i],
          sizeof(pane) * (size_t)(o->n_panes - i));
  memset(&o->panes[i], 0, sizeof(pane));
  o->panes[i].start = start;
  o->panes[i].t = t;
  o->n_panes++;
  return &o->panes[i];
}

static void free_pane(pane *p) {
  lm_aggtable_free(p->t);
}

static int emit(pw_op *o, lm_batch *b, lm_error *err) {
  return lm_window_emit_batch(&o->base, b, err);
}

/* Merges, for every group of `keys` (a table of the plan's shape), the
 * states of the panes of window w into a new table with the same group
 * ids. existed[g] (optional) is set when some pane had the group before
 * the current batch. */
static int assemble(pw_op *o, const win *w, const lm_aggtable *keys,
                    bool *existed, lm_aggtable **out, lm_error *err) {
  int64_t n = lm_aggtable_groups(keys);
  lm_aggtable *r = lm_plan_new_aggtable(o->plan);
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n + 1));
  uint32_t *dg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  uint32_t *sg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  int rc = 0;
  if (!r || !ids || !dg || !sg) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if ((rc = lm_aggtable_intern(r, keys, NULL, n, true, ids, err)))
    goto done;
  for (int64_t i = lower_pane(o, w->start);
       i < o->n_panes && o->panes[i].start < w->end && !rc; i++) {
    pane *p = &o->panes[i];
    if ((rc = lm_aggtable_intern(p->t, keys, NULL, n, false, ids, err)))
      break;
    int64_t k = 0;
    for (int64_t g = 0; g < n; g++) {
      if (ids[g] < 0)
        continue;
      if (existed && ids[g] < p->before)
        existed[g] = true;
      dg[k] = (uint32_t)g;
      sg[k++] = (uint32_t)ids[g];
    }
    rc = lm_aggtable_merge_groups(r, dg, p->t, sg, k, err);
  }
done:
  free(ids);
  free(dg);
  free(sg);
  if (rc) {
    lm_aggtable_free(r);
    r = NULL;
  }
  *out = r;
  return rc;
}

/* The whole window: every group of every pane it covers, in order of
 * first appearance (pane by pane). A window of one pane is that pane's
 * table; otherwise each pane's groups are interned into a new table and
 * their states merged. */
/* Interns the groups of panes [first, last) into o->merge and merges their
 * states (the window's partial states so far plus these panes). */
static int merge_panes(pw_op *o, int64_t first, int64_t last, lm_error *err) {
  lm_aggtable *r = o->merge;
  int64_t total = 0, kb = 0;
  for (int64_t i = first; i < last; i++) {
    total += lm_aggtable_groups(o->panes[i].t);
    kb += lm_aggtable_key_bytes(o->panes[i].t);
  }
  /* an empty table is sized for the sum of the panes; one that slides
   * already holds most of their keys, and grows as needed */
  if (!lm_aggtable_groups(r) && lm_aggtable_reserve(r, total, kb))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t *ids = NULL, cap = 0, cap2 = 0;
  uint32_t *dg = NULL, *sg = NULL;
  int rc = 0;
  for (int64_t i = first; i < last && !rc; i++) {
    pane *p = &o->panes[i];
    int64_t n = lm_aggtable_groups(p->t);
    if (!n)
      continue;
    if ((rc = lm_scratch_grow((void **)&ids, &cap, n, sizeof(int64_t), err)))
      break;
    int64_t c2 = cap2;
    if ((rc = lm_scratch_grow((void **)&dg, &cap2, n, sizeof(uint32_t), err)) ||
        (rc = lm_scratch_grow((void **)&sg, &c2, n, sizeof(uint32_t), err)))
      break;
    if ((rc = lm_aggtable_intern(r, p->t, NULL, n, true, ids, err)))
      break;
    for (int64_t g = 0; g < n; g++) {
      dg[g] = (uint32_t)ids[g];
      sg[g] = (uint32_t)g;
    }
    rc = lm_aggtable_merge_groups(r, dg, p->t, sg, n, err);
  }
  free(ids);
  free(dg);
  free(sg);
  return rc;
}

/* Sliding HOP (o->slide_ok): subtracts from o->merge the panes window w
 * loses to the next one ([w->start, w->start + slide)); 1 when that is not
 * possible (o->merge must then be rebuilt), else 0 or an error. */
static int unmerge_leaving(pw_op *o, const win *w, lm_error *err) {
  int64_t next = lm_sat_add(w->start, o->slide);
  int64_t *ids = NULL, cap = 0, cap2 = 0;
  uint32_t *dg = NULL, *sg = NULL;
  int rc = 0;
  for (int64_t i = lower_pane(o, w->start);
       i < o->n_panes && o->panes[i].start < next && !rc; i++) {
    pane *p = &o->panes[i];
    int64_t n = lm_aggtable_groups(p->t), c2 = cap2;
    if (!n)
      continue;
    if ((rc = lm_scratch_grow((void **)&ids, &cap, n, sizeof(int64_t), err)) ||
        (rc = lm_scratch_grow((void **)&dg, &cap2, n, sizeof(uint32_t), err)) ||
        (rc = lm_scratch_grow((void **)&sg, &c2, n, sizeof(uint32_t), err)) ||
        (rc = lm_aggtable_intern(o->merge, p->t, NULL, n, false, ids, err)))
      break;
    for (int64_t g = 0; g < n && rc == 0; g++) {
      if (ids[g] < 0)
        rc = 1; /* not merged in: the state is not what we think */
      dg[g] = (uint32_t)ids[g];
      sg[g] = (uint32_t)g;
    }
    if (!rc)
      rc = lm_aggtable_unmerge_groups(o->merge, dg, p->t, sg, n);
  }
  free(ids);
  free(dg);
  free(sg);
  return rc;
}

static int emit_window(pw_op *o, const win *w, lm_error *err) {
  int64_t first = lower_pane(o, w->start), last = first;
  while (last < o->n_panes && o->panes[last].start < w->end)
    last++;
  int64_t total = 0;
  for (int64_t i = first; i < last; i++)
    total += lm_aggtable_groups(o->panes[i].t);
  if (!total) {
    o->slide_valid = false;
    return 0;
  }
  int rc = 0;
  lm_aggtable *r = NULL;
  const lm_aggtable *src = NULL;
  const uint32_t *gids = NULL;
  int64_t n_gids = 0;
  if (last - first == 1 && !o->slide_ok) {
    src = o->panes[first].t;
  } else {
    /* one table reused for every window: it keeps the capacity of the
     * largest window so far (no regrowth, no fresh pages per window) */
    if (!o->merge && !(o->merge = lm_plan_new_aggtable(o->plan)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    r = o->merge;
    if (o->slide_ok && !lm_aggtable_invertible(r))
      o->slide_ok = o->slide_valid = false;
    bool slid = false;
    if (o->slide_ok && o->slide_valid && o->slide_lo == w->start &&
        o->slide_hi <= w->end) {
      /* the panes this window gains; a merge error (an int64 SUM passing
       * its range on the way) is decided by a rebuild below */
      int64_t gain = lower_pane(o, o->slide_hi);
      lm_error scratch;
      lm_err_clear(&scratch);
      rc = merge_panes(o, gain < first ? first : gain, last, &scratch);
      if (rc == LM_ERR_NOMEM)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      slid = rc == 0;
      rc = 0;
    }
    if (!slid) {
      lm_aggtable_truncate(r, 0);
      rc = merge_panes(o, first, last, err);
    }
    src = r;
    if (!rc && o->slide_ok) {
      /* groups with rows in this window (the others are kept for later) */
      int64_t ng = lm_aggtable_groups(r);
      if ((rc = lm_scratch_grow((void **)&o->live, &o->cap_live, ng,
                                sizeof(uint32_t), err)))
        return rc;
      for (int64_t g = 0; g < ng; g++)
        if (lm_aggtable_group_rows(r, (uint32_t)g) > 0)
          o->live[n_gids++] = (uint32_t)g;
      gids = o->live;
      /* compact when the dead outnumber the live */
      o->slide_valid = ng <= 2 * n_gids + 4096;
      o->slide_lo = w->start;
      o->slide_hi = w->end;
    }
  }
  lm_batch *b = NULL;
  if (!rc)
    rc = lm_window_rows(o->plan, src, gids, gids ? n_gids : 0, NULL, NULL,
                        w->start, w->end, o->wschema, o->wschema ? 1 : 0, &b,
                        err);
  if (r && !o->slide_ok)
    lm_aggtable_truncate(r, 0);
  else if (r && !rc && o->slide_valid) {
    int urc = unmerge_leaving(o, w, err);
    if (urc < 0 || urc > 1) {
      lm_batch_release(b);
      return urc;
    }
    if (urc == 1)
      o->slide_valid = false;
    else
      o->slide_lo = lm_sat_add(w->start, o->slide);
  }
  return rc ? rc : emit(o, b, err);
}

typedef struct win_row {
  int64_t pane;
  int32_t row;
} win_row;

static int cmp_win_row(const void *x, const void *y) {
  const win_row *a = x, *b = y;
  if (a->pane != b->pane)
    return a->pane < b->pane ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

static bool changes_emitted(const pw_op *o, int64_t end) {
  if (expired(o, end))
    return false;
  if (o->mode == LM_WEMIT_UPDATES)
    return true;
  return o->mode == LM_WEMIT_CLOSE && o->lateness > 0 && closed(o, end);
}

/* lm_window_placeholder_keys with the arrays kept for the next batch of the
 * same size (they are only read). For a plan grouped by the window only,
 * whose lookup reads one row per pane (Nexmark q7): building and freeing
 * two n-row arrays per batch (their page faults included) cost q7 ~20% of
 * its events/s; with other keys (q5) keeping them measured slower, so
 * there they are made afresh. */
static int pw_placeholders(pw_op *o, lm_array **keys, int64_t n,
                           lm_error *err) {
  const lm_plan *p = o->plan;
  for (int pass = 0; pass < 2; pass++) {
    int k = pass ? p->window_end_key : p->window_key;
    if (!o->zk[pass] || o->zk[pass]->length != n) {
      lm_array_release(o->zk[pass]);
      o->zk[pass] = lm_const_ts_array(p->agg_schema->fields[k].type, n, 0);
      if (!o->zk[pass])
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    lm_array_release(keys[k]);
    keys[k] = lm_array_retain(o->zk[pass]);
  }
  return 0;
}

static int pw_push(lm_operator *op, lm_batch *b, lm_error *err) {
  pw_op *o = (pw_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  lm_array *keys[64] = {0}, *aggs[64] = {0};
  if (p->n_keys > 64 || p->n_aggs > 64)
    return lm_err(err, LM_ERR_BIND, "too many GROUP BY keys or aggregates");
  win_row *wr = NULL;
  int32_t *sel = NULL, *late = NULL;
  uint32_t *gids = NULL;
  lm_aggtable **tk = NULL; /* per affected window: the touched keys */
  int64_t n_aff = 0;
  /* the window columns are filled at emission: constant in the panes, so
   * the window keys are not evaluated (a 128-bit floor per row, ~15% of
   * Nexmark q5's time) */
  int rc = 0;
  for (int k = 0; k < p->n_keys && !rc; k++)
    if (k != p->window_key && k != p->window_end_key)
      rc = lm_eval(p->keys[k], b, &keys[k], err);
  for (int a = 0; a < p->n_aggs && !rc; a++)
    if (p->aggs[a].arg)
      rc = lm_eval(p->aggs[a].arg, b, &aggs[a], err);
  if (rc)
    goto done;
  bool win_only = p->n_keys == 2 && p->window_key != p->window_end_key;
  if ((rc = win_only ? pw_placeholders(o, keys, n, err)
                     : lm_window_placeholder_keys(p, keys, n, err)))
    goto done;
  wr = malloc(sizeof(win_row) * (size_t)(n + 1));
  sel = malloc(sizeof(int32_t) * (size_t)(n + 1));
  late = malloc(sizeof(int32_t) * (size_t)(n + 1));
  gids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  if (!wr || !sel || !late || !gids) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  const lm_array *tc = b->columns[p->window_time_col];
  const int64_t *ts = lm_array_i64(tc);
  const int64_t *wts = p->changelog_input && p->weight_col < b->num_columns
                           ? lm_array_i64(b->columns[p->weight_col])
                           : NULL;
  if (p->changelog_input && !wts) {
    rc = lm_err(err, LM_ERR_EXEC, "internal error: changelog without __weight");
    goto done;
  }
  int64_t m = 0, n_late = 0;
  bool sorted = true;
  /* the pane [cps, cpe) of the previous row and whether it has expired:
   * consecutive rows mostly share a pane (no division per row) */
  int64_t cps = 0, cpe = INT64_MIN;
  bool cexp = false;
  for (int64_t i = 0; i < n; i++) {
    int64_t ps = 0;
    /* a NULL or infinite time is in no window: dropped as late */
    bool null_t = lm_array_is_null(tc, i) || !lm_ts_finite(ts[i]);
    if (!null_t) {
      int64_t t = ts[i];
      if (t < cps || t >= cpe) {
        cps = floor_align(t, o->g, o->off);
        cpe = lm_sat_add(cps, o->g);
        cexp = expired(o, pane_last_end(o, cps));
      }
      ps = cps;
    }
    if (null_t || cexp) {
      late[n_late++] = (int32_t)i;
      continue;
    }
    wr[m].pane = ps;
    wr[m].row = (int32_t)i;
    if (m > 0 && ps < wr[m - 1].pane)
      sorted = false;
    m++;
  }
  if ((rc = lm_window_send_late(op, o->late, b, late, n_late, err)))
    goto done;
  if (!sorted)
    qsort(wr, (size_t)m, sizeof *wr, cmp_win_row);
  for (int64_t i = 0; i < m; i++)
    sel[i] = wr[i].row;
  /* panes first (creating one moves the others), then the group ids */
  for (int64_t a = 0; a < m; a++)
    if ((a == 0 || wr[a].pane != wr[a - 1].pane) && !get_pane(o, wr[a].pane)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
  for (int64_t i = 0; i < o->n_panes; i++) {
    o->panes[i].before = lm_aggtable_groups(o->panes[i].t);
    o->panes[i].n_touched = 0;
  }
  for (int64_t a = 0; a < m && !rc;) {
    int64_t e = a;
    while (e < m && wr[e].pane == wr[a].pane)
      e++;
    pane *pn = &o->panes[lower_pane(o, wr[a].pane)];
    pn->touched = gids + a;
    pn->n_touched = e - a;
    if (p->n_keys == 2 && p->window_key != p->window_end_key) {
      /* grouped by the window only: one group per pane (Nexmark q7) */
      rc = lm_aggtable_lookup(pn->t, keys, sel + a, 1, gids + a, err);
      for (int64_t i = a + 1; i < e && !rc; i++)
        gids[i] = gids[a];
    } else
      rc = lm_aggtable_lookup(pn->t, keys, sel + a, e - a, gids + a, err);
    if (!rc)
      rc = lm_aggtable_check_w(pn->t, aggs, wts, sel + a, e - a, gids + a, err);
    a = e;
  }
  if (rc) { /* a failed batch leaves no trace */
    for (int64_t a = 0; a < m; a++)
      if (a == 0 || wr[a].pane != wr[a - 1].pane) {
        pane *pn = &o->panes[lower_pane(o, wr[a].pane)];
        lm_aggtable_truncate(pn->t, pn->before);
      }
    goto done;
  }
  /* changelog: the windows whose rows change, and their old rows */
  o->n_wins = 0;
  bool any_changes = lm_window_changelog(p, o->mode);
  for (int64_t a = 0; any_changes && a < m; a++)
    if ((a == 0 || wr[a].pane != wr[a - 1].pane) &&
        windows_of(o, wr[a].pane, INT64_MIN, INT64_MAX, changes_emitted)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
  sort_unique_wins(o);
  n_aff = o->n_wins;
  if (n_aff) {
    tk = calloc((size_t)n_aff, sizeof *tk);
    if (!tk && !rc)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    int64_t *ids = NULL, cap = 0;
    for (int64_t w = 0; w < n_aff && !rc; w++) {
      const win *wi = &o->wins[w];
      if (!(tk[w] = lm_plan_new_aggtable(p))) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      for (int64_t i = lower_pane(o, wi->start);
           i < o->n_panes && o->panes[i].start < wi->end && !rc; i++) {
        pane *pn = &o->panes[i];
        if (!pn->n_touched)
          continue;
        rc = lm_scratch_grow((void **)&ids, &cap, pn->n_touched,
                             sizeof(int64_t), err);
        if (!rc)
          rc = lm_aggtable_intern(tk[w], pn->t, pn->touched, pn->n_touched,
                                  true, ids, err);
      }
      int64_t ng = lm_aggtable_groups(tk[w]);
      bool *existed = calloc((size_t)ng + 1, 1);
      uint32_t *old = malloc(sizeof(uint32_t) * (size_t)(ng + 1));
      lm_aggtable *r = NULL;
      if (!rc && (!existed || !old))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      if (!rc)
        rc = assemble(o, wi, tk[w], existed, &r, err);
      int64_t k = 0;
      for (int64_t g = 0; !rc && g < ng; g++)
        if (existed[g])
          old[k++] = (uint32_t)g;
      lm_batch *ob = NULL;
      if (!rc && k)
        rc = lm_window_rows(p, r, old, k, NULL, NULL, wi->start, wi->end,
                            o->wschema, -1, &ob, err);
      if (ob)
        rc = rc ? rc : emit(o, ob, err);
      lm_aggtable_free(r);
      free(existed);
      free(old);
    }
    free(ids);
    if (rc)
      goto done;
  }
  /* rows are folded pane by pane; first/last_value keep the batch's row
   * order through sequence numbers reserved for the whole batch */
  int64_t seq_base = lm_agg_seq_reserve(n);
  for (int64_t a = 0; a < m && !rc;) {
    int64_t e = a;
    while (e < m && wr[e].pane == wr[a].pane)
      e++;
    pane *pn = &o->panes[lower_pane(o, wr[a].pane)];
    lm_aggtable_set_seq_base(pn->t, seq_base);
    if (o->slide_valid && pn->start >= o->slide_lo && pn->start < o->slide_hi)
      o->slide_valid = false; /* a merged pane changes: rebuild */
    rc = lm_aggtable_accumulate_w(pn->t, aggs, wts, sel + a, e - a, gids + a,
                                  err);
    lm_aggtable_set_seq_base(pn->t, -1);
    a = e;
  }
  /* the new rows of the changed groups */
  for (int64_t w = 0; w < n_aff && !rc; w++) {
    lm_aggtable *r = NULL;
    lm_batch *nb = NULL;
    rc = assemble(o, &o->wins[w], tk[w], NULL, &r, err);
    if (!rc)
      rc = lm_window_rows(p, r, NULL, 0, NULL, NULL, o->wins[w].start,
                          o->wins[w].end, o->wschema, 1, &nb, err);
    if (!rc)
      rc = emit(o, nb, err);
    lm_aggtable_free(r);
  }
  for (int64_t i = 0; i < o->n_panes; i++)
    o->panes[i].n_touched = 0;
done:
  for (int64_t w = 0; tk && w < n_aff; w++)
    lm_aggtable_free(tk[w]);
  free(tk);
  free(wr);
  free(sel);
  free(late);
  free(gids);
  lm_release_inputs(p, keys, aggs);
  return rc;
}

/* The smallest start of a window that may still emit: windows with end +
 * lateness > wm, i.e. end > h = wm - lateness (plus wm_shift: the smallest
 * end when the output's time column is the end). */
static int64_t output_watermark(const pw_op *o) {
  if (o->wm == INT64_MAX)
    return INT64_MAX;
  int64_t h = lm_sat_add(o->wm, -o->lateness);
  if (h == INT64_MIN)
    return INT64_MIN;
  if (o->plan->window_kind == LM_WIN_CUMULATE)
    return floor_align(h, o->size, o->off);
  /* s > h - size, s = off (mod slide) */
  int64_t lim = lm_sat_add(h, -o->size);
  if (lim == INT64_MIN)
    return INT64_MIN;
  return lm_sat_add(lm_sat_add(floor_align(lim, o->slide, o->off), o->slide),
                    o->wm_shift);
}

static int pw_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  pw_op *o = (pw_op *)op;
  if (o->wm != INT64_MIN && wm <= o->wm)
    return 0;
  o->wm = wm;
  int rc = 0;
  if (o->mode != LM_WEMIT_UPDATES) {
    /* windows closing now, in order of end */
    int64_t hi = o->mode == LM_WEMIT_FINAL && wm != INT64_MAX
                     ? lm_sat_add(wm, -o->lateness)
                     : wm;
    if (hi > o->emitted_to) {
      o->n_wins = 0;
      for (int64_t i = 0; i < o->n_panes && o->panes[i].start < hi; i++)
        if (windows_of(o, o->panes[i].start, o->emitted_to, hi, NULL))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
      sort_unique_wins(o);
      o->emitted_to = hi;
      /* o->wins may be reused below: copy */
      int64_t nw = o->n_wins;
      win *ws = malloc(sizeof(win) * (size_t)(nw + 1));
      if (!ws)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      if (nw)
        memcpy(ws, o->wins, sizeof(win) * (size_t)nw);
      for (int64_t i = 0; i < nw && !rc; i++)
        rc = emit_window(o, &ws[i], err);
      free(ws);
      if (rc)
        return rc;
    }
  }
  /* panes every window of which has expired */
  int64_t k = 0;
  for (int64_t i = 0; i < o->n_panes; i++) {
    if (expired(o, pane_last_end(o, o->panes[i].start))) {
      if (o->n_spare < PW_SPARES) { /* kept (capacity and all) */
        lm_aggtable_truncate(o->panes[i].t, 0);
        o->spare[o->n_spare++] = o->panes[i].t;
      } else
        free_pane(&o->panes[i]);
    } else
      o->panes[k++] = o->panes[i];
  }
  o->n_panes = k;
  int64_t ow = output_watermark(o);
  if (ow > o->out_wm) {
    o->out_wm = ow;
    rc = lm_operator_forward_watermark(op, ow, err);
  }
  return rc;
}

static void pw_free(lm_operator *op) {
  pw_op *o = (pw_op *)op;
  for (int64_t i = 0; i < o->n_panes; i++)
    free_pane(&o->panes[i]);
  for (int i = 0; i < o->n_spare; i++)
    lm_aggtable_free(o->spare[i]);
  lm_aggtable_free(o->merge);
  free(o->live);
  lm_array_release(o->zk[0]);
  lm_array_release(o->zk[1]);
  free(o->panes);
  free(o->wins);
  lm_schema_release(o->wschema);
  free(o);
}

static const lm_operator_vt pw_vt = {"window_aggregate", pw_push, pw_watermark,
                                     pw_free};

lm_operator *lm_window_aggregate_find(lm_operator *head) {
  for (; head; head = head->next)
    if (head->vt == &pw_vt)
      return head;
  return NULL;
}

bool lm_window_aggregate_bound(const void *ctx, int agg, bool max, int64_t ws,
                               int64_t we, int64_t *out) {
  const lm_operator *op = ctx;
  if (!op || op->vt != &pw_vt)
    return false;
  const pw_op *o = (const pw_op *)op;
  if (o->plan->changelog_input)
    return false;
  bool any = false;
  int64_t best = 0;
  for (int64_t i = lower_pane(o, ws); i < o->n_panes && o->panes[i].start < we;
       i++) {
    const lm_aggtable *t = o->panes[i].t;
    int64_t ng = lm_aggtable_groups(t), v;
    if (ng > 1)
      return false; /* grouped: no single value per window */
    if (ng == 1 && lm_aggtable_extreme_i64(t, agg, 0, &v) &&
        (!any || (max ? v > best : v < best))) {
      best = v;
      any = true;
    }
  }
  if (any)
    *out = best;
  return any;
}

lm_operator *lm_op_window_aggregate_new(const lm_plan *plan,
                                        lm_window_emit mode, lm_schema *wschema,
                                        lm_output_cb late) {
  pw_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &pw_vt;
  o->plan = plan;
  o->mode = mode;
  o->wschema = wschema ? lm_schema_retain(wschema) : NULL;
  o->late = late;
  o->size = plan->window_size_us;
  o->slide = plan->window_slide_us;
  o->off = plan->window_offset_us;
  o->lateness = plan->allowed_lateness_us;
  o->g = plan->window_kind == LM_WIN_HOP ? gcd64(o->slide, o->size) : o->slide;
  o->wm = INT64_MIN;
  o->emitted_to = INT64_MIN;
  o->out_wm = INT64_MIN;
  if (mode != LM_WEMIT_UPDATES && lm_plan_time_is_window_end(plan))
    o->wm_shift = o->size;
  /* sliding HOP emission (emit_window); the aggregates are checked on the
   * first window (lm_aggtable_invertible) */
  o->slide_ok = plan->window_kind == LM_WIN_HOP && mode != LM_WEMIT_UPDATES &&
                o->lateness == 0 && !plan->changelog_input && o->slide > 0 &&
                o->size / o->slide >= 3;
  return &o->base;
}
