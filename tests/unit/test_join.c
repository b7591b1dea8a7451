/*
 * tests/unit/test_join.c — the join operators (exec/lm_join.h) driven
 * through their side callbacks with seeded random interleavings of
 * batches, weights and watermarks, checked against a brute-force
 * nested-loop join of the net inputs written here independently of the
 * operators (UPDATING: after every push; INTERVAL: the final output after
 * the +inf watermark, plus the watermark discipline all along). Plus the
 * hand-checked scenarios 18 (ASOF) and 19 (interval) of
 * ../shared/reference/laminardb-surface.md §6, strict/inclusive edges,
 * NULL keys, times before 1970 and at the INT64 extremes, and the
 * over-retraction error.
 *
 * Both inputs have the columns (k BIGINT, ts TIMESTAMP, v BIGINT); the
 * output rows are compared as text "k|ts|v|k|ts|v" (N = NULL).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_join.h"
#include "lm_test.h"

typedef struct trow {
  int64_t k, ts, v; /* ts == TS_NULL: a NULL time */
  bool knull;
} trow;
#define TS_NULL INT64_MIN

/* ------------------------------------------------------------ multiset */

typedef struct mrow {
  char *s;
  int64_t w;
} mrow;
typedef struct mset {
  mrow *r;
  int n, cap;
} mset;

static void ms_add(mset *m, const char *s, int64_t w) {
  for (int i = 0; i < m->n; i++)
    if (strcmp(m->r[i].s, s) == 0) {
      m->r[i].w += w;
      return;
    }
  if (m->n == m->cap) {
    m->cap = m->cap ? m->cap * 2 : 64;
    m->r = realloc(m->r, sizeof *m->r * (size_t)m->cap);
  }
  m->r[m->n].s = strdup(s);
  m->r[m->n].w = w;
  m->n++;
}
static void ms_free(mset *m) {
  for (int i = 0; i < m->n; i++)
    free(m->r[i].s);
  free(m->r);
  memset(m, 0, sizeof *m);
}
static int64_t ms_get(const mset *m, const char *s) {
  for (int i = 0; i < m->n; i++)
    if (strcmp(m->r[i].s, s) == 0)
      return m->r[i].w;
  return 0;
}
/* Equal as multisets (zero weights ignored); prints the first difference. */
static bool ms_eq(const mset *a, const mset *b, const char *what) {
  for (int i = 0; i < a->n; i++)
    if (a->r[i].w != ms_get(b, a->r[i].s)) {
      fprintf(stderr, "%s: row %s: got %lld, expected %lld\n", what, a->r[i].s,
              (long long)a->r[i].w, (long long)ms_get(b, a->r[i].s));
      return false;
    }
  for (int i = 0; i < b->n; i++)
    if (b->r[i].w != ms_get(a, b->r[i].s)) {
      fprintf(stderr, "%s: row %s: got %lld, expected %lld\n", what, b->r[i].s,
              (long long)ms_get(a, b->r[i].s), (long long)b->r[i].w);
      return false;
    }
  return true;
}

/* ----------------------------------------------------------- collector */

typedef struct coll {
  mset got;
  int ncols; /* data columns */
  bool weighted;
  int64_t wm, rows;
  int late_out; /* rows emitted with a left time below the sent watermark */
  int wm_back;  /* watermark went backwards */
  int ts_col;   /* output time column (left ts), -1 = none */
} coll;

static void fmt_row(char *buf, size_t cap, lm_array *const *cols, int nc,
                    int64_t r) {
  size_t p = 0;
  buf[0] = 0;
  for (int c = 0; c < nc; c++) {
    if (c)
      p += (size_t)snprintf(buf + p, cap - p, "|");
    if (lm_array_is_null(cols[c], r))
      p += (size_t)snprintf(buf + p, cap - p, "N");
    else
      p += (size_t)snprintf(buf + p, cap - p, "%lld",
                            (long long)lm_array_get_i64(cols[c], r));
  }
}

static int coll_batch(void *ctx, lm_batch *b, lm_error *err) {
  (void)err;
  coll *c = ctx;
  char buf[512];
  for (int64_t r = 0; r < b->num_rows; r++) {
    fmt_row(buf, sizeof buf, b->columns, c->ncols, r);
    int64_t w =
        c->weighted ? lm_array_i64(b->columns[c->ncols])[r] : (int64_t)1;
    if (c->ts_col >= 0 && !lm_array_is_null(b->columns[c->ts_col], r) &&
        lm_array_get_i64(b->columns[c->ts_col], r) < c->wm)
      c->late_out++;
    ms_add(&c->got, buf, w);
    c->rows++;
  }
  return 0;
}
static int coll_wm(void *ctx, int64_t wm, lm_error *err) {
  (void)err;
  coll *c = ctx;
  if (wm < c->wm)
    c->wm_back++;
  c->wm = wm;
  return 0;
}

/* --------------------------------------------------------------- setup */

static lm_schema *side_schema(bool weighted) {
  lm_schema *s = lm_schema_new(weighted ? 4 : 3);
  lm_schema_set_field(s, 0, "k", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 1, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_schema_set_field(s, 2, "v", lm_type_make(LM_TYPE_INT64), true);
  if (weighted)
    lm_schema_set_field(s, 3, "__weight", lm_type_make(LM_TYPE_INT64), false);
  return s;
}

static lm_schema *out_schema(lm_join_type t, bool weighted) {
  bool lo = t == LM_JOIN_SEMI || t == LM_JOIN_ANTI;
  int n = (lo ? 3 : 6) + (weighted ? 1 : 0);
  lm_schema *s = lm_schema_new(n);
  static const char *nm[] = {"k", "ts", "v", "k2", "ts2", "v2"};
  for (int c = 0; c < (lo ? 3 : 6); c++)
    lm_schema_set_field(
        s, c, nm[c],
        lm_type_make(c % 3 == 1 ? LM_TYPE_TIMESTAMP : LM_TYPE_INT64), true);
  if (weighted)
    lm_schema_set_field(s, n - 1, "__weight", lm_type_make(LM_TYPE_INT64),
                        false);
  return s;
}

/* A batch of rows (with a __weight column when w != NULL). */
static lm_batch *mk_batch(lm_schema *s, const trow *rows, const int64_t *w,
                          int n) {
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, n);
  for (int i = 0; i < n; i++) {
    if (rows[i].knull)
      lm_builder_append_null(&bb.cols[0]);
    else
      lm_builder_append_int(&bb.cols[0], rows[i].k);
    if (rows[i].ts == TS_NULL)
      lm_builder_append_null(&bb.cols[1]);
    else
      lm_builder_append_int(&bb.cols[1], rows[i].ts);
    lm_builder_append_int(&bb.cols[2], rows[i].v);
    if (w)
      lm_builder_append_int(&bb.cols[3], w[i]);
  }
  lm_batch *b = NULL;
  lm_error err;
  memset(&err, 0, sizeof err);
  lm_batch_builder_finish(&bb, &b, &err);
  lm_batch_builder_free(&bb);
  return b;
}

/* residual l.v < r.v: columns 2 and 5 of [left..., right...] */
static lm_bexpr rc_l, rc_r, rc_lt;
static lm_bexpr *rc_args[2];
static const lm_bexpr *residual_lt(void) {
  memset(&rc_l, 0, sizeof rc_l);
  rc_l.kind = LM_BX_COLUMN;
  rc_l.type = lm_type_make(LM_TYPE_INT64);
  rc_l.col = 2;
  rc_r = rc_l;
  rc_r.col = 5;
  memset(&rc_lt, 0, sizeof rc_lt);
  rc_lt.kind = LM_BX_BINARY;
  rc_lt.type = lm_type_make(LM_TYPE_BOOL);
  rc_lt.op = LM_OP_LT;
  rc_args[0] = &rc_l;
  rc_args[1] = &rc_r;
  rc_lt.args = rc_args;
  rc_lt.n_args = 2;
  return &rc_lt;
}

typedef struct harness {
  lm_schema *ls, *rs, *lws, *rws, *os;
  lm_join_spec spec;
  lm_operator *j;
  coll c;
  int keys[1];
} harness;

static int h_init(harness *h, lm_join_algo algo, lm_join_type t, bool changelog,
                  bool out_changelog, lm_error *err) {
  memset(h, 0, sizeof *h);
  h->ls = side_schema(false);
  h->rs = side_schema(false);
  h->lws = side_schema(true);
  h->rws = side_schema(true);
  h->os = out_schema(t, out_changelog);
  h->keys[0] = 0;
  lm_join_spec *sp = &h->spec;
  sp->type = t;
  sp->algo = algo;
  for (int s = 0; s < 2; s++) {
    sp->side[s].schema = s ? h->rs : h->ls;
    sp->side[s].changelog = changelog;
    sp->side[s].n_keys = 1;
    sp->side[s].keys = h->keys;
    sp->side[s].time_col = 1;
  }
  sp->asof_tolerance_us = -1;
  sp->out_schema = h->os;
  sp->out_changelog = out_changelog;
  h->c.ncols = t == LM_JOIN_SEMI || t == LM_JOIN_ANTI ? 3 : 6;
  h->c.weighted = out_changelog;
  h->c.wm = INT64_MIN;
  h->c.ts_col = 1;
  return 0;
  (void)err;
}

static int h_open(harness *h, lm_error *err) {
  h->j = lm_op_join_new(&h->spec, err);
  if (!h->j)
    return err->code ? err->code : 1;
  lm_output_cb cb = {coll_batch, coll_wm, &h->c};
  h->j->next = lm_op_output_new(cb);
  return 0;
}

static void h_free(harness *h) {
  if (h->j)
    lm_pipeline_free(h->j);
  lm_schema_release(h->ls);
  lm_schema_release(h->rs);
  lm_schema_release(h->lws);
  lm_schema_release(h->rws);
  lm_schema_release(h->os);
  ms_free(&h->c.got);
}

static int h_push(harness *h, int side, const trow *rows, const int64_t *w,
                  int n, lm_error *err) {
  lm_schema *s = h->spec.side[side].changelog ? (side ? h->rws : h->lws)
                                              : (side ? h->rs : h->ls);
  lm_batch *b = mk_batch(s, rows, h->spec.side[side].changelog ? w : NULL, n);
  lm_output_cb cb = lm_join_side(h->j, side);
  int rc = cb.batch(cb.ctx, b, err);
  lm_batch_release(b);
  return rc;
}

static int h_wm(harness *h, int side, int64_t wm, lm_error *err) {
  lm_output_cb cb = lm_join_side(h->j, side);
  return cb.watermark(cb.ctx, wm, err);
}

/* --------------------------------------------------------- brute force */

static void side_text(char *buf, size_t cap, const trow *x) {
  char k[32], t[32];
  if (!x) {
    snprintf(buf, cap, "N|N|N");
    return;
  }
  x->knull ? snprintf(k, sizeof k, "N")
           : snprintf(k, sizeof k, "%lld", (long long)x->k);
  x->ts == TS_NULL ? snprintf(t, sizeof t, "N")
                   : snprintf(t, sizeof t, "%lld", (long long)x->ts);
  snprintf(buf, cap, "%s|%s|%lld", k, t, (long long)x->v);
}

static void row_text(char *buf, size_t cap, const trow *l, const trow *r,
                     bool left_only) {
  char a[128], b[128];
  side_text(a, sizeof a, l);
  if (left_only) {
    snprintf(buf, cap, "%s", a);
    return;
  }
  side_text(b, sizeof b, r);
  snprintf(buf, cap, "%s|%s", a, b);
}

typedef struct bspec {
  lm_join_type t;
  bool resid;
  bool interval;
  int64_t lo, hi;
  bool lo_strict, hi_strict;
} bspec;

static bool bmatch(const bspec *bs, const trow *l, const trow *r) {
  if (l->knull || r->knull || l->k != r->k)
    return false;
  if (bs->resid && !(l->v < r->v))
    return false;
  if (bs->interval) {
    /* as in PostgreSQL: a bound comparing with a NULL time is not TRUE */
    if (l->ts == TS_NULL || r->ts == TS_NULL)
      return false;
    __int128 d = (__int128)r->ts - l->ts;
    if (bs->lo_strict ? d <= bs->lo : d < bs->lo)
      return false;
    if (bs->hi_strict ? d >= bs->hi : d > bs->hi)
      return false;
  }
  return true;
}

/* The batch join of net multisets L (rows l[i], multiplicity lm[i]) and R. */
static void brute(const bspec *bs, const trow *l, const int64_t *lm, int nl,
                  const trow *r, const int64_t *rm, int nr, mset *out) {
  char buf[512];
  bool lo = bs->t == LM_JOIN_SEMI || bs->t == LM_JOIN_ANTI;
  for (int i = 0; i < nl; i++) {
    if (lm[i] <= 0)
      continue;
    int64_t m = 0;
    for (int q = 0; q < nr; q++)
      if (rm[q] > 0 && bmatch(bs, &l[i], &r[q])) {
        m += rm[q];
        if (!lo) {
          row_text(buf, sizeof buf, &l[i], &r[q], false);
          ms_add(out, buf, lm[i] * rm[q]);
        }
      }
    bool pad = (bs->t == LM_JOIN_LEFT || bs->t == LM_JOIN_FULL ||
                bs->t == LM_JOIN_ANTI) &&
               m == 0;
    if (pad || (bs->t == LM_JOIN_SEMI && m > 0)) {
      row_text(buf, sizeof buf, &l[i], NULL, lo);
      ms_add(out, buf, lm[i]);
    }
  }
  if (bs->t == LM_JOIN_RIGHT || bs->t == LM_JOIN_FULL)
    for (int q = 0; q < nr; q++) {
      if (rm[q] <= 0)
        continue;
      bool any = false;
      for (int i = 0; i < nl && !any; i++)
        any = lm[i] > 0 && bmatch(bs, &l[i], &r[q]);
      if (!any) {
        row_text(buf, sizeof buf, NULL, &r[q], false);
        ms_add(out, buf, rm[q]);
      }
    }
}

static const char *type_name(lm_join_type t) {
  static const char *n[] = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"};
  return n[t];
}

/* ------------------------------------------------------- updating: random */

#define MAXR 256

static void random_updating(uint64_t seed, lm_join_type t, bool resid) {
  uint64_t rs = seed * 7919 + (uint64_t)t * 31 + resid + 1;
  harness h;
  lm_error err;
  memset(&err, 0, sizeof err);
  h_init(&h, LM_JOIN_UPDATING, t, true, true, &err);
  if (resid)
    h.spec.residual = residual_lt();
  if (h_open(&h, &err)) {
    fprintf(stderr, "updating open: %s\n", err.msg);
    CHECK(0);
    h_free(&h);
    return;
  }
  trow rows[2][MAXR];
  int64_t mult[2][MAXR];
  int nrow[2] = {0, 0};
  bspec bs = {t, resid, false, 0, 0, false, false};
  bool ok = true;
  for (int step = 0; step < 60 && ok; step++) {
    int side = (int)(lm_test_rand(&rs) % 2);
    int n = 1 + (int)(lm_test_rand(&rs) % 4);
    trow b[8];
    int64_t w[8];
    for (int i = 0; i < n; i++) {
      /* retract a held row (maybe all its copies) or insert a new one */
      int held = 0;
      for (int q = 0; q < nrow[side]; q++)
        held += mult[side][q] > 0;
      if (held && lm_test_rand(&rs) % 3 == 0) {
        int pick = (int)(lm_test_rand(&rs) % (uint64_t)held);
        for (int q = 0; q < nrow[side]; q++)
          if (mult[side][q] > 0 && pick-- == 0) {
            b[i] = rows[side][q];
            w[i] =
                -(1 + (int64_t)(lm_test_rand(&rs) % (uint64_t)mult[side][q]));
            mult[side][q] += w[i];
            break;
          }
        continue;
      }
      trow x;
      memset(&x, 0, sizeof x);
      x.knull = lm_test_rand(&rs) % 8 == 0;
      x.k = (int64_t)(lm_test_rand(&rs) % 3);
      x.ts = (int64_t)(lm_test_rand(&rs) % 3) - 1;
      x.v = (int64_t)(lm_test_rand(&rs) % 4);
      w[i] = 1 + (int64_t)(lm_test_rand(&rs) % 2);
      b[i] = x;
      int q = 0;
      for (; q < nrow[side]; q++)
        if (memcmp(&rows[side][q], &x, sizeof x) == 0)
          break;
      if (q == nrow[side] && nrow[side] < MAXR) {
        rows[side][q] = x;
        mult[side][q] = 0;
        nrow[side]++;
      }
      mult[side][q] += w[i];
    }
    if (h_push(&h, side, b, w, n, &err)) {
      fprintf(stderr, "push: %s\n", err.msg);
      ok = false;
      break;
    }
    /* now and then: an over-retraction, refused without any change */
    if (lm_test_rand(&rs) % 10 == 0) {
      trow x = {99, 0, 0, false};
      int64_t wx = -1;
      int64_t before = h.c.rows;
      int rc = h_push(&h, side, &x, &wx, 1, &err);
      CHECK_EQ_I64(rc, LM_ERR_EXEC);
      CHECK(strstr(err.msg, "more retractions than insertions") != NULL);
      CHECK_EQ_I64(h.c.rows, before);
    }
    mset exp = {0};
    brute(&bs, rows[0], mult[0], nrow[0], rows[1], mult[1], nrow[1], &exp);
    char what[128];
    snprintf(what, sizeof what, "updating %s%s seed %llu step %d", type_name(t),
             resid ? " +residual" : "", (unsigned long long)seed, step);
    ok = ms_eq(&h.c.got, &exp, what);
    CHECK(ok);
    ms_free(&exp);
    for (int q = 0; q < h.c.got.n; q++)
      CHECK(h.c.got.r[q].w >= 0);
  }
  h_free(&h);
}

/* ------------------------------------------------------- interval: random */

static void random_interval(uint64_t seed, lm_join_type t, bool resid,
                            int64_t base) {
  uint64_t rs = seed * 104729 + (uint64_t)t * 17 + resid + 3;
  harness h;
  lm_error err;
  memset(&err, 0, sizeof err);
  h_init(&h, LM_JOIN_INTERVAL, t, false, false, &err);
  bspec bs = {t, resid, true, 0, 0, false, false};
  bs.lo = (int64_t)(lm_test_rand(&rs) % 9) - 5;
  bs.hi = bs.lo + (int64_t)(lm_test_rand(&rs) % 7);
  bs.lo_strict = lm_test_rand(&rs) % 2;
  bs.hi_strict = lm_test_rand(&rs) % 2;
  h.spec.lo_us = bs.lo;
  h.spec.hi_us = bs.hi;
  h.spec.lo_strict = bs.lo_strict;
  h.spec.hi_strict = bs.hi_strict;
  if (resid)
    h.spec.residual = residual_lt();
  if (h_open(&h, &err)) {
    fprintf(stderr, "interval open: %s\n", err.msg);
    CHECK(0);
    h_free(&h);
    return;
  }
  trow rows[2][MAXR];
  int64_t mult[2][MAXR];
  int nrow[2] = {0, 0};
  int64_t clock[2] = {base, base}, wm[2] = {INT64_MIN, INT64_MIN};
  int64_t late = 0;
  bool ok = true;
  for (int step = 0; step < 80 && ok; step++) {
    int side = (int)(lm_test_rand(&rs) % 2);
    if (lm_test_rand(&rs) % 4 == 0) {
      /* watermark: up to 3 below the clock */
      int64_t w = clock[side] - (int64_t)(lm_test_rand(&rs) % 4);
      if (w > wm[side])
        wm[side] = w;
      if (h_wm(&h, side, w, &err)) {
        ok = false;
        CHECK(0);
      }
      continue;
    }
    int n = 1 + (int)(lm_test_rand(&rs) % 4);
    trow b[8];
    for (int i = 0; i < n; i++) {
      clock[side] += (int64_t)(lm_test_rand(&rs) % 3);
      trow x;
      memset(&x, 0, sizeof x);
      x.knull = lm_test_rand(&rs) % 10 == 0;
      x.k = (int64_t)(lm_test_rand(&rs) % 3);
      x.ts = clock[side] - (int64_t)(lm_test_rand(&rs) % 5); /* disorder */
      if (lm_test_rand(&rs) % 10 == 0)
        x.ts = TS_NULL; /* never matches, never late */
      x.v = (int64_t)(lm_test_rand(&rs) % 4);
      b[i] = x;
      if (x.ts != TS_NULL && x.ts < wm[side]) {
        late++;
        continue;
      }
      if (nrow[side] < MAXR) {
        rows[side][nrow[side]] = x;
        mult[side][nrow[side]++] = 1;
      }
    }
    if (nrow[0] >= MAXR - 8 || nrow[1] >= MAXR - 8)
      break;
    if (h_push(&h, side, b, NULL, n, &err)) {
      fprintf(stderr, "push: %s\n", err.msg);
      ok = false;
      CHECK(0);
    }
  }
  h_wm(&h, 0, INT64_MAX, &err);
  h_wm(&h, 1, INT64_MAX, &err);
  mset exp = {0};
  brute(&bs, rows[0], mult[0], nrow[0], rows[1], mult[1], nrow[1], &exp);
  char what[160];
  snprintf(what, sizeof what,
           "interval %s%s seed %llu base %lld bound %s%lld, %lld%s",
           type_name(t), resid ? " +residual" : "", (unsigned long long)seed,
           (long long)base, bs.lo_strict ? "(" : "[", (long long)bs.lo,
           (long long)bs.hi, bs.hi_strict ? ")" : "]");
  bool eq = ms_eq(&h.c.got, &exp, what);
  CHECK(eq);
  if (!eq)
    fprintf(stderr, "  (%s)\n", what);
  CHECK_EQ_I64(h.j->late_dropped, late);
  CHECK_EQ_I64(h.c.late_out, 0);
  CHECK_EQ_I64(h.c.wm_back, 0);
  CHECK_EQ_I64(h.c.wm, INT64_MAX);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
  ms_free(&exp);
  h_free(&h);
}

/* ------------------------------------------------------- hand scenarios */

/* Scenario 19: interval join, bound 100 ms (±100 000 µs), key id. */
static void scenario19(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  for (int variant = 0; variant < 6; variant++) {
    harness h;
    h_init(&h, LM_JOIN_INTERVAL, variant == 5 ? LM_JOIN_LEFT : LM_JOIN_INNER,
           false, false, &err);
    h.spec.lo_us = -100000;
    h.spec.hi_us = 100000;
    CHECK(h_open(&h, &err) == 0);
    const int64_t ms = 1000;
    trow A100 = {1, 100 * ms, 0, false}, B200 = {2, 200 * ms, 0, false};
    trow A110 = {1, 110 * ms, 0, false}, B250 = {2, 250 * ms, 0, false};
    trow A300 = {1, 300 * ms, 0, false}, A150 = {1, 150 * ms, 0, false};
    switch (variant) {
    case 0: { /* left A@100, B@200; right A@110, B@250 -> 2 rows */
      trow l[2] = {A100, B200}, r[2] = {A110, B250};
      h_push(&h, 0, l, NULL, 2, &err);
      h_push(&h, 1, r, NULL, 2, &err);
      CHECK_EQ_I64(h.c.rows, 2);
      break;
    }
    case 1: /* A@100 vs A@300 -> 0 rows */
      h_push(&h, 0, &A100, NULL, 1, &err);
      h_push(&h, 1, &A300, NULL, 1, &err);
      CHECK_EQ_I64(h.c.rows, 0);
      break;
    case 2: /* A@100 in cycle 1: nothing; right A@150 in cycle 2: 1 row */
      h_push(&h, 0, &A100, NULL, 1, &err);
      CHECK_EQ_I64(h.c.rows, 0);
      h_push(&h, 1, &A150, NULL, 1, &err);
      CHECK_EQ_I64(h.c.rows, 1);
      break;
    case 3: /* both sides in one cycle: exactly 1 row */
      h_push(&h, 1, &A150, NULL, 1, &err);
      h_push(&h, 0, &A100, NULL, 1, &err);
      h_wm(&h, 0, 1000 * ms, &err);
      h_wm(&h, 1, 1000 * ms, &err);
      CHECK_EQ_I64(h.c.rows, 1);
      break;
    case 4: /* WM=300 evicts left@100: 100 + 100 < 300 */
      h_push(&h, 0, &A100, NULL, 1, &err);
      CHECK_EQ_I64(lm_join_state_rows(h.j), 1);
      h_wm(&h, 1, 300 * ms, &err);
      CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
      break;
    case 5: /* LEFT: unmatched left row NULL-padded once, when evicted */
      h_push(&h, 0, &A100, NULL, 1, &err);
      h_wm(&h, 0, 250 * ms, &err);
      CHECK_EQ_I64(h.c.rows, 0);
      h_wm(&h, 1, 200 * ms, &err); /* 200 > 100+100 is false: kept */
      CHECK_EQ_I64(h.c.rows, 0);
      h_wm(&h, 1, 200 * ms + 1, &err);
      CHECK_EQ_I64(h.c.rows, 1);
      CHECK_EQ_I64(ms_get(&h.c.got, "1|100000|0|N|N|N"), 1);
      h_wm(&h, 1, INT64_MAX, &err);
      h_wm(&h, 0, INT64_MAX, &err);
      CHECK_EQ_I64(h.c.rows, 1);
      break;
    }
    h_free(&h);
  }
}

/* Strict and inclusive edges of an asymmetric bound [lo, hi] = [-5, 10]:
 * right times at left +/- the edges, the expected matches written down. */
static void interval_edges(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  for (int strict = 0; strict < 4; strict++) {
    harness h;
    h_init(&h, LM_JOIN_INTERVAL, LM_JOIN_INNER, false, false, &err);
    h.spec.lo_us = -5;
    h.spec.hi_us = 10;
    h.spec.lo_strict = strict & 1;
    h.spec.hi_strict = (strict & 2) != 0;
    CHECK(h_open(&h, &err) == 0);
    trow l = {7, -1000, 0, false}; /* before 1970 */
    h_push(&h, 0, &l, NULL, 1, &err);
    /* right times: l-6 (out), l-5 (lo edge), l (in), l+10 (hi edge), l+11 */
    trow r[5] = {{7, -1006, 1, false},
                 {7, -1005, 2, false},
                 {7, -1000, 3, false},
                 {7, -990, 4, false},
                 {7, -989, 5, false}};
    h_push(&h, 1, r, NULL, 5, &err);
    /* inclusive both: -1005, -1000, -990 -> 3; each strict end drops one */
    int64_t want = 3 - (strict & 1) - ((strict & 2) != 0);
    CHECK_EQ_I64(h.c.rows, want);
    CHECK_EQ_I64(ms_get(&h.c.got, "7|-1000|0|7|-1005|2"), (strict & 1) ? 0 : 1);
    CHECK_EQ_I64(ms_get(&h.c.got, "7|-1000|0|7|-990|4"), (strict & 2) ? 0 : 1);
    /* eviction edge: left row kept while wm_right <= -1000 + 10 (or < when
     * strict), then dropped */
    h_wm(&h, 1, -990, &err);
    CHECK_EQ_I64(lm_join_state_rows(h.j) >= 1, 1);
    h_free(&h);
  }
  /* INT64 extremes: bounds that would overflow in 64-bit arithmetic */
  harness h;
  h_init(&h, LM_JOIN_INTERVAL, LM_JOIN_FULL, false, false, &err);
  h.spec.lo_us = INT64_MIN + 1;
  h.spec.hi_us = INT64_MAX - 1;
  CHECK(h_open(&h, &err) == 0);
  trow l = {1, INT64_MAX - 1, 0, false}, r = {1, INT64_MIN + 1, 0, false};
  h_push(&h, 0, &l, NULL, 1, &err);
  h_push(&h, 1, &r, NULL, 1, &err);
  h_wm(&h, 0, INT64_MAX - 1, &err);
  h_wm(&h, 1, INT64_MAX, &err);
  h_wm(&h, 0, INT64_MAX, &err);
  /* d = MIN+1 - (MAX-1) = -2^64 + 3 < lo: no match, both padded */
  CHECK_EQ_I64(h.c.rows, 2);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
  h_free(&h);
}

/* NULL times and keys in an interval join (PostgreSQL: the bound compares
 * with NULL, so the row matches nothing): on an outer-preserved side the
 * row is NULL-padded at once (ANTI: emitted as is), before any watermark;
 * otherwise ignored. Never stored, never counted late; the other rows
 * still join. With and without a residual. */
static void interval_null_time(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  for (int t = LM_JOIN_INNER; t <= LM_JOIN_ANTI; t++)
    for (int resid = 0; resid < 2; resid++) {
      harness h;
      h_init(&h, LM_JOIN_INTERVAL, (lm_join_type)t, false, false, &err);
      h.spec.lo_us = -10;
      h.spec.hi_us = 10;
      if (resid)
        h.spec.residual = residual_lt();
      CHECK(h_open(&h, &err) == 0);
      h_wm(&h, 0, 100, &err);
      h_wm(&h, 1, 100, &err);
      /* left: NULL time, NULL key, a normal row (matched on the right) */
      trow l[3] = {
          {1, TS_NULL, 0, false}, {1, 105, 0, true}, {1, 105, 0, false}};
      trow r[3] = {
          {1, TS_NULL, 5, false}, {1, 106, 5, true}, {1, 106, 5, false}};
      CHECK_EQ_I64(h_push(&h, 0, l, NULL, 3, &err), 0);
      bool lpad = t == LM_JOIN_LEFT || t == LM_JOIN_FULL || t == LM_JOIN_ANTI;
      bool rpad = t == LM_JOIN_RIGHT || t == LM_JOIN_FULL;
      bool lonly = t == LM_JOIN_SEMI || t == LM_JOIN_ANTI;
      const char *lt = lonly ? "1|N|0" : "1|N|0|N|N|N";
      const char *lk = lonly ? "N|105|0" : "N|105|0|N|N|N";
      /* padded at once: no watermark moved */
      CHECK_EQ_I64(h.c.rows, lpad ? 2 : 0);
      CHECK_EQ_I64(ms_get(&h.c.got, lt), lpad ? 1 : 0);
      CHECK_EQ_I64(ms_get(&h.c.got, lk), lpad ? 1 : 0);
      CHECK_EQ_I64(lm_join_state_rows(h.j), 1); /* the normal row only */
      int64_t before = h.c.rows;
      CHECK_EQ_I64(h_push(&h, 1, r, NULL, 3, &err), 0);
      int64_t pairs = t == LM_JOIN_ANTI ? 0 : 1; /* 1|105 with 1|106 */
      CHECK_EQ_I64(h.c.rows - before, pairs + (rpad ? 2 : 0));
      CHECK_EQ_I64(ms_get(&h.c.got, "N|N|N|1|N|5"), rpad ? 1 : 0);
      CHECK_EQ_I64(ms_get(&h.c.got, "N|N|N|N|106|5"), rpad ? 1 : 0);
      if (!lonly)
        CHECK_EQ_I64(ms_get(&h.c.got, "1|105|0|1|106|5"), 1);
      CHECK_EQ_I64(h.j->late_dropped, 0);
      /* a late row still is late */
      trow late = {1, 99, 0, false};
      CHECK_EQ_I64(h_push(&h, 0, &late, NULL, 1, &err), 0);
      CHECK_EQ_I64(h.j->late_dropped, 1);
      h_wm(&h, 0, INT64_MAX, &err);
      h_wm(&h, 1, INT64_MAX, &err);
      /* nothing more: each NULL row once, the matched rows never padded
       * (SEMI: the matched left row; ANTI: nothing for it) */
      CHECK_EQ_I64(h.c.rows, (lpad ? 2 : 0) + (rpad ? 2 : 0) + pairs);
      if (lonly)
        CHECK_EQ_I64(ms_get(&h.c.got, "1|105|0"), t == LM_JOIN_SEMI ? 1 : 0);
      CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
      CHECK_EQ_I64(h.c.late_out, 0);
      h_free(&h);
    }
}

/* Updating join, hand-checked: a key that changes under a LEFT join, a key
 * that becomes NULL, and an over-retraction. */
static void updating_hand(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_UPDATING, LM_JOIN_LEFT, true, true, &err);
  CHECK(h_open(&h, &err) == 0);
  trow a = {1, 0, 10, false}, r1 = {1, 0, 20, false};
  int64_t p1 = 1, m1 = -1;
  h_push(&h, 0, &a, &p1, 1, &err); /* +(1,0,10,N,N,N) */
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|10|N|N|N"), 1);
  h_push(&h, 1, &r1, &p1, 1, &err); /* -padded, +pair */
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|10|N|N|N"), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|10|1|0|20"), 1);
  /* the left key changes 1 -> NULL: -old row, +new row */
  trow ch[2] = {a, {0, 0, 10, true}};
  int64_t w2[2] = {-1, 1};
  h_push(&h, 0, ch, w2, 2, &err);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|10|1|0|20"), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "N|0|10|N|N|N"), 1);
  /* retracting the right row twice: the second is refused */
  CHECK_EQ_I64(h_push(&h, 1, &r1, &m1, 1, &err), 0);
  CHECK_EQ_I64(h_push(&h, 1, &r1, &m1, 1, &err), LM_ERR_EXEC);
  CHECK(strstr(err.msg, "more retractions than insertions") != NULL);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 1);
  h_free(&h);
}

/* ------------------------------------------------------------ ASOF */

/* The ASOF answer for left row l among right rows r[0..nr) (arrival
 * order): BACKWARD the latest time <= t (< when strict; equal times: the
 * last arrived), FORWARD the earliest >= t (> when strict; the first
 * arrived), NEAREST the nearer of the two (a tie to the backward row);
 * tolerance tol >= 0 bounds the distance. -1 = none. With `resid`, only
 * the right rows for which the residual l.v < r.v holds are candidates
 * (DuckDB's semantics: the residual filters before the nearest is
 * chosen). */
static int brute_asof(const trow *l, const trow *r, int nr, lm_asof_dir dir,
                      bool strict, int64_t tol, bool resid) {
  if (l->knull)
    return -1;
  int b = -1, f = -1;
  for (int q = 0; q < nr; q++) {
    if (r[q].knull || r[q].k != l->k || (resid && !(l->v < r[q].v)))
      continue;
    if ((strict ? r[q].ts < l->ts : r[q].ts <= l->ts) &&
        (b < 0 || r[q].ts >= r[b].ts))
      b = q;
    if ((strict ? r[q].ts > l->ts : r[q].ts >= l->ts) &&
        (f < 0 || r[q].ts < r[f].ts))
      f = q;
  }
  if (b >= 0 && tol >= 0 && (__int128)l->ts - r[b].ts > tol)
    b = -1;
  if (f >= 0 && tol >= 0 && (__int128)r[f].ts - l->ts > tol)
    f = -1;
  if (dir == LM_ASOF_BACKWARD)
    return b;
  if (dir == LM_ASOF_FORWARD)
    return f;
  if (b < 0)
    return f;
  if (f < 0)
    return b;
  return (__int128)r[f].ts - l->ts < (__int128)l->ts - r[b].ts ? f : b;
}

/* Scenario 18: trades AAPL@100, AAPL@200, GOOG@150, AAPL@300; quotes
 * AAPL@90, AAPL@180, GOOG@140, AAPL@250, GOOG@160 (ms); LEFT ASOF on sym
 * (AAPL = 1, GOOG = 2). The table of §6 gives the matched quote times in
 * trade order: backward 90, 180, 140, 250; forward 180, 250, 160, NULL;
 * nearest 90, 180, 140, 250 (AAPL@100: 90 is 10 away, 180 is 80; AAPL@200:
 * 180 is 20, 250 is 50; GOOG@150: 140 and 160 tie at 10 -> backward;
 * AAPL@300: 250); backward with tolerance 15 ms 90, NULL, 140, NULL. */
static void scenario18(void) {
  const int64_t ms = 1000;
  trow trades[4] = {{1, 100 * ms, 1, false},
                    {1, 200 * ms, 2, false},
                    {2, 150 * ms, 3, false},
                    {1, 300 * ms, 4, false}};
  trow quotes[5] = {{1, 90 * ms, 0, false},
                    {1, 180 * ms, 0, false},
                    {2, 140 * ms, 0, false},
                    {1, 250 * ms, 0, false},
                    {2, 160 * ms, 0, false}};
  static const int64_t want[4][4] = {{90, 180, 140, 250},
                                     {180, 250, 160, -1},
                                     {90, 180, 140, 250},
                                     {90, -1, 140, -1}};
  lm_error err;
  memset(&err, 0, sizeof err);
  for (int v = 0; v < 4; v++)
    for (int order = 0; order < 2; order++) {
      harness h;
      h_init(&h, LM_JOIN_ASOF, LM_JOIN_LEFT, false, false, &err);
      h.spec.asof_dir = v == 1   ? LM_ASOF_FORWARD
                        : v == 2 ? LM_ASOF_NEAREST
                                 : LM_ASOF_BACKWARD;
      h.spec.asof_tolerance_us = v == 3 ? 15 * ms : -1;
      CHECK(h_open(&h, &err) == 0);
      if (order == 0) { /* quotes first */
        h_push(&h, 1, quotes, NULL, 5, &err);
        h_push(&h, 0, trades, NULL, 4, &err);
      } else { /* trades first, quotes in two batches */
        h_push(&h, 0, trades, NULL, 4, &err);
        h_push(&h, 1, quotes, NULL, 2, &err);
        h_push(&h, 1, quotes + 2, NULL, 3, &err);
      }
      CHECK_EQ_I64(h.c.rows, 0); /* no right watermark yet: undecided */
      h_wm(&h, 1, INT64_MAX, &err);
      h_wm(&h, 0, INT64_MAX, &err);
      CHECK_EQ_I64(h.c.rows, 4);
      for (int i = 0; i < 4; i++) {
        char buf[128];
        if (want[v][i] < 0)
          snprintf(buf, sizeof buf, "%lld|%lld|%lld|N|N|N",
                   (long long)trades[i].k, (long long)trades[i].ts,
                   (long long)trades[i].v);
        else
          snprintf(buf, sizeof buf, "%lld|%lld|%lld|%lld|%lld|0",
                   (long long)trades[i].k, (long long)trades[i].ts,
                   (long long)trades[i].v, (long long)trades[i].k,
                   (long long)(want[v][i] * ms));
        if (ms_get(&h.c.got, buf) != 1)
          fprintf(stderr, "scenario 18 variant %d order %d: missing %s\n", v,
                  order, buf);
        CHECK_EQ_I64(ms_get(&h.c.got, buf), 1);
      }
      h_free(&h);
    }
  /* INNER drops the unmatched trades: forward has 3 rows */
  harness h;
  h_init(&h, LM_JOIN_ASOF, LM_JOIN_INNER, false, false, &err);
  h.spec.asof_dir = LM_ASOF_FORWARD;
  CHECK(h_open(&h, &err) == 0);
  h_push(&h, 1, quotes, NULL, 5, &err);
  h_push(&h, 0, trades, NULL, 4, &err);
  h_wm(&h, 1, INT64_MAX, &err);
  CHECK_EQ_I64(h.c.rows, 3);
  h_free(&h);
}

static void random_asof(uint64_t seed, lm_join_type t, lm_asof_dir dir,
                        bool strict, int64_t tol, bool resid) {
  uint64_t rs = seed * 15485863 + (uint64_t)dir * 7 + strict * 3 +
                (uint64_t)(tol + 2) * 11 + (uint64_t)t + resid * 5;
  harness h;
  lm_error err;
  memset(&err, 0, sizeof err);
  h_init(&h, LM_JOIN_ASOF, t, false, false, &err);
  h.spec.asof_dir = dir;
  h.spec.asof_strict = strict;
  h.spec.asof_tolerance_us = tol;
  if (resid)
    h.spec.residual = residual_lt();
  if (h_open(&h, &err)) {
    fprintf(stderr, "asof open: %s\n", err.msg);
    CHECK(0);
    h_free(&h);
    return;
  }
  trow rows[2][MAXR];
  int nrow[2] = {0, 0};
  int64_t clock[2] = {0, 0}, wm[2] = {INT64_MIN, INT64_MIN}, late = 0;
  for (int step = 0; step < 80; step++) {
    int side = (int)(lm_test_rand(&rs) % 2);
    if (lm_test_rand(&rs) % 4 == 0) {
      int64_t w = clock[side] - (int64_t)(lm_test_rand(&rs) % 4);
      if (w > wm[side])
        wm[side] = w;
      CHECK(h_wm(&h, side, w, &err) == 0);
      continue;
    }
    int n = 1 + (int)(lm_test_rand(&rs) % 4);
    trow b[8];
    for (int i = 0; i < n; i++) {
      clock[side] += (int64_t)(lm_test_rand(&rs) % 3);
      trow x;
      memset(&x, 0, sizeof x);
      x.knull = lm_test_rand(&rs) % 10 == 0;
      x.k = (int64_t)(lm_test_rand(&rs) % 3);
      x.ts = clock[side] - (int64_t)(lm_test_rand(&rs) % 5);
      x.v = (int64_t)(lm_test_rand(&rs) % 4);
      b[i] = x;
      if (x.ts < wm[side]) {
        late++;
        continue;
      }
      rows[side][nrow[side]++] = x;
    }
    if (h_push(&h, side, b, NULL, n, &err)) {
      fprintf(stderr, "asof push: %s\n", err.msg);
      CHECK(0);
    }
    if (nrow[0] >= MAXR - 8 || nrow[1] >= MAXR - 8)
      break;
  }
  h_wm(&h, 1, INT64_MAX, &err);
  h_wm(&h, 0, INT64_MAX, &err);
  mset exp = {0};
  char buf[512];
  for (int i = 0; i < nrow[0]; i++) {
    int q = brute_asof(&rows[0][i], rows[1], nrow[1], dir, strict, tol, resid);
    if (q < 0 && t == LM_JOIN_INNER)
      continue;
    row_text(buf, sizeof buf, &rows[0][i], q >= 0 ? &rows[1][q] : NULL, false);
    ms_add(&exp, buf, 1);
  }
  char what[160];
  snprintf(what, sizeof what, "asof %s dir %d%s tol %lld%s seed %llu",
           type_name(t), (int)dir, strict ? " strict" : "", (long long)tol,
           resid ? " +residual" : "", (unsigned long long)seed);
  bool eq = ms_eq(&h.c.got, &exp, what);
  CHECK(eq);
  if (!eq)
    fprintf(stderr, "  (%s)\n", what);
  CHECK_EQ_I64(h.j->late_dropped, late);
  CHECK_EQ_I64(h.c.late_out, 0);
  CHECK_EQ_I64(h.c.wm_back, 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
  ms_free(&exp);
  h_free(&h);
}

/* Temporal join, hand-checked. Versions of key 1: v=10 from t=100, upsert
 * to v=20 at t=200 (-old/+new in one batch), delete seen when the right
 * side's largest time is 300 (tombstone at 300). Left rows at 50 (before
 * any version: no match), 150 (v=10), 200 (v=20: the version starting at
 * 200 is valid at 200), 250 (v=20), 300 and 350 (deleted: no match). */
static void temporal_hand(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_TEMPORAL, LM_JOIN_LEFT, false, false, &err);
  h.spec.side[1].changelog = true;
  CHECK(h_open(&h, &err) == 0);
  trow v1 = {1, 100, 10, false}, v2 = {1, 200, 20, false};
  trow other = {2, 300, 99, false};
  int64_t p = 1, up_w[2] = {-1, 1}, m = -1;
  h_push(&h, 1, &v1, &p, 1, &err);
  trow up[2] = {v1, v2};
  h_push(&h, 1, up, up_w, 2, &err);
  h_push(&h, 1, &other, &p, 1, &err); /* right time reaches 300 */
  h_push(&h, 1, &v2, &m, 1, &err);    /* delete: tombstone at 300 */
  trow l[6] = {{1, 50, 0, false},  {1, 150, 1, false}, {1, 200, 2, false},
               {1, 250, 3, false}, {1, 300, 4, false}, {1, 350, 5, false}};
  h_push(&h, 0, l, NULL, 6, &err);
  CHECK_EQ_I64(h.c.rows, 0);
  h_wm(&h, 1, 251, &err); /* decides 50 .. 250 */
  CHECK_EQ_I64(h.c.rows, 4);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|50|0|N|N|N"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|150|1|1|100|10"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|200|2|1|200|20"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|250|3|1|200|20"), 1);
  h_wm(&h, 1, INT64_MAX, &err);
  CHECK_EQ_I64(h.c.rows, 6);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|300|4|N|N|N"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|350|5|N|N|N"), 1);
  h_free(&h);
}

/* Lookup join: a table changelog (upserts as -old/+new) and a stream; each
 * stream row meets the table as it is when the row arrives. */
static void lookup_hand(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_LOOKUP, LM_JOIN_LEFT, false, false, &err);
  h.spec.side[1].changelog = true;
  CHECK(h_open(&h, &err) == 0);
  trow t1 = {1, 0, 10, false}, t1b = {1, 0, 11, false};
  int64_t p = 1, up_w[2] = {-1, 1};
  h_push(&h, 1, &t1, &p, 1, &err);
  trow s1 = {1, 5, 0, false}, s2 = {2, 6, 0, false}, s3 = {1, 7, 0, false};
  h_push(&h, 0, &s1, NULL, 1, &err);
  h_push(&h, 0, &s2, NULL, 1, &err);
  trow up[2] = {t1, t1b};
  h_push(&h, 1, up, up_w, 2, &err); /* revises nothing already emitted */
  h_push(&h, 0, &s3, NULL, 1, &err);
  CHECK_EQ_I64(h.c.rows, 3);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|5|0|1|0|10"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "2|6|0|N|N|N"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "1|7|0|1|0|11"), 1);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 1);
  /* over-retraction of a table row is an error */
  int64_t m2 = -2;
  CHECK_EQ_I64(h_push(&h, 1, &t1b, &m2, 1, &err), LM_ERR_EXEC);
  /* FULL is refused */
  harness g;
  h_init(&g, LM_JOIN_LOOKUP, LM_JOIN_FULL, false, false, &err);
  CHECK(h_open(&g, &err) != 0);
  h_free(&g);
  h_free(&h);
}

/* Updating join with a processing-time TTL of 100 µs: a row idle for 100
 * µs is dropped without output; its retraction is then ignored. */
static void updating_ttl(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_UPDATING, LM_JOIN_INNER, true, true, &err);
  h.spec.ttl_us = 100;
  CHECK(h_open(&h, &err) == 0);
  CHECK_EQ_I64(lm_operator_tick(h.j, 1000, &err), 0);
  trow a = {1, 0, 10, false}, r = {1, 0, 20, false};
  int64_t p = 1, m = -1;
  h_push(&h, 0, &a, &p, 1, &err);
  CHECK_EQ_I64(lm_operator_tick(h.j, 1050, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 1); /* idle 50 µs: kept */
  CHECK_EQ_I64(lm_operator_tick(h.j, 1100, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0); /* idle 100 µs: dropped */
  h_push(&h, 1, &r, &p, 1, &err);
  CHECK_EQ_I64(h.c.rows, 0);                       /* no match */
  CHECK_EQ_I64(h_push(&h, 0, &a, &m, 1, &err), 0); /* ignored */
  CHECK_EQ_I64(h.c.rows, 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 1);
  h_free(&h);
}

/* ------------------------------------------- updating: eviction by time */

/* residual l.v >= r.v (Nexmark q5's num >= maxn) */
static lm_bexpr ge_l, ge_r, ge_op;
static lm_bexpr *ge_args[2];
static const lm_bexpr *residual_ge(void) {
  memset(&ge_l, 0, sizeof ge_l);
  ge_l.kind = LM_BX_COLUMN;
  ge_l.type = lm_type_make(LM_TYPE_INT64);
  ge_l.col = 2;
  ge_r = ge_l;
  ge_r.col = 5;
  memset(&ge_op, 0, sizeof ge_op);
  ge_op.kind = LM_BX_BINARY;
  ge_op.type = lm_type_make(LM_TYPE_BOOL);
  ge_op.op = LM_OP_GE;
  ge_args[0] = &ge_l;
  ge_args[1] = &ge_r;
  ge_op.args = ge_args;
  ge_op.n_args = 2;
  return &ge_op;
}

/* Nexmark q5's join by hand: left = AuctionBids (append-only: k auction,
 * ts window start, v its count), right = MaxBids (a changelog: v the
 * window's maximum count), keyed on ts (both sides' time column), residual
 * l.v >= r.v. Window 0's maximum is first 3, then updated to 5 before the
 * window closes (a late update: -3 +5); auctions 2 and 3 tie at 5. Then
 * both watermarks pass 0: window 0's rows are evicted, window 10's stay; a
 * change below the horizon is dropped and counted as late. */
static void updating_evict_hand(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_UPDATING, LM_JOIN_INNER, false, true, &err);
  h.keys[0] = 1; /* ts */
  h.spec.side[1].changelog = true;
  h.spec.residual = residual_ge();
  CHECK(h_open(&h, &err) == 0);
  trow l0[3] = {{1, 0, 3, false}, {2, 0, 5, false}, {3, 0, 5, false}};
  trow l10 = {4, 10, 7, false};
  trow m3 = {0, 0, 3, false}, m5 = {0, 0, 5, false}, m7 = {0, 10, 7, false};
  int64_t p = 1, m = -1;
  CHECK_EQ_I64(h_push(&h, 0, l0, NULL, 3, &err), 0);
  CHECK_EQ_I64(h_push(&h, 1, &m3, &p, 1, &err), 0);
  /* max 3: every auction of window 0 has v >= 3 */
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|3|0|0|3"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "2|0|5|0|0|3"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "3|0|5|0|0|3"), 1);
  trow up[2] = {m3, m5};
  int64_t upw[2] = {-1, 1};
  CHECK_EQ_I64(h_push(&h, 1, up, upw, 2, &err), 0);
  CHECK_EQ_I64(h_push(&h, 0, &l10, NULL, 1, &err), 0);
  CHECK_EQ_I64(h_push(&h, 1, &m7, &p, 1, &err), 0);
  /* net: the pairs at the maximum 5 (a tie: two), and window 10's */
  CHECK_EQ_I64(ms_get(&h.c.got, "1|0|3|0|0|3"), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "2|0|5|0|0|3"), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "3|0|5|0|0|3"), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "2|0|5|0|0|5"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "3|0|5|0|0|5"), 1);
  CHECK_EQ_I64(ms_get(&h.c.got, "4|10|7|0|10|7"), 1);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 6);
  /* one watermark alone evicts nothing: the other side may still change */
  CHECK_EQ_I64(h_wm(&h, 0, 5, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 6);
  CHECK_EQ_I64(h_wm(&h, 1, 5, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 2); /* window 10's two rows */
  CHECK_EQ_I64(h.c.wm, 5);
  /* changes below the horizon 5: dropped, counted, no output, no error */
  int64_t rows = h.c.rows;
  CHECK_EQ_I64(h_push(&h, 1, &m5, &m, 1, &err), 0);
  CHECK_EQ_I64(h_push(&h, 0, &l0[0], NULL, 1, &err), 0);
  CHECK_EQ_I64(h.c.rows, rows);
  CHECK_EQ_I64(h.j->late_dropped, 2);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 2);
  /* window 10 updated after the horizon moved: still joined */
  trow m9 = {0, 10, 9, false};
  trow up2[2] = {m7, m9};
  CHECK_EQ_I64(h_push(&h, 1, up2, upw, 2, &err), 0);
  CHECK_EQ_I64(ms_get(&h.c.got, "4|10|7|0|10|7"), 0);
  CHECK_EQ_I64(h_wm(&h, 0, INT64_MAX, &err), 0);
  CHECK_EQ_I64(h_wm(&h, 1, INT64_MAX, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
  /* without the time columns as a key pair: nothing is evicted */
  harness g;
  h_init(&g, LM_JOIN_UPDATING, LM_JOIN_INNER, false, true, &err);
  g.spec.side[1].changelog = true;
  CHECK(h_open(&g, &err) == 0);
  CHECK_EQ_I64(h_push(&g, 0, l0, NULL, 3, &err), 0);
  CHECK_EQ_I64(h_wm(&g, 0, INT64_MAX, &err), 0);
  CHECK_EQ_I64(h_wm(&g, 1, INT64_MAX, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(g.j), 3);
  h_free(&g);
  h_free(&h);
}

/* Random changelogs on both sides keyed on (k, ts) with k = ts (so the
 * brute force's k equality is the key), every change at or after its
 * side's watermark (the promise of a time column), watermarks advancing at
 * random: eviction must change no output (checked against the brute force
 * after every push), and the +inf watermarks leave no state. Now and then
 * a change below the horizon: dropped without output. */
static void random_evict(uint64_t seed, lm_join_type t, bool resid) {
  uint64_t rs = seed * 104729 + (uint64_t)t * 17 + resid + 5;
  harness h;
  lm_error err;
  memset(&err, 0, sizeof err);
  h_init(&h, LM_JOIN_UPDATING, t, true, true, &err);
  static int keys2[2] = {0, 1};
  for (int s = 0; s < 2; s++) {
    h.spec.side[s].n_keys = 2;
    h.spec.side[s].keys = keys2;
  }
  if (resid)
    h.spec.residual = residual_lt();
  if (h_open(&h, &err)) {
    fprintf(stderr, "evict open: %s\n", err.msg);
    CHECK(0);
    h_free(&h);
    return;
  }
  trow rows[2][MAXR];
  int64_t mult[2][MAXR], wm[2] = {0, 0};
  int nrow[2] = {0, 0};
  bspec bs = {t, resid, false, 0, 0, false, false};
  bool ok = true;
  int64_t late = 0, ins_ts[1024];
  int n_ins = 0;
  for (int step = 0; step < 80 && ok; step++) {
    int side = (int)(lm_test_rand(&rs) % 2);
    if (lm_test_rand(&rs) % 4 == 0) {
      wm[side] += (int64_t)(lm_test_rand(&rs) % 3);
      CHECK_EQ_I64(h_wm(&h, side, wm[side], &err), 0);
      continue;
    }
    int n = 1 + (int)(lm_test_rand(&rs) % 4);
    trow b[8];
    int64_t w[8];
    int nb = 0;
    for (int i = 0; i < n; i++) {
      int held = 0;
      for (int q = 0; q < nrow[side]; q++)
        held += mult[side][q] > 0 && rows[side][q].ts >= wm[side];
      if (held && lm_test_rand(&rs) % 3 == 0) {
        int pick = (int)(lm_test_rand(&rs) % (uint64_t)held);
        for (int q = 0; q < nrow[side]; q++)
          if (mult[side][q] > 0 && rows[side][q].ts >= wm[side] &&
              pick-- == 0) {
            b[nb] = rows[side][q];
            w[nb] =
                -(1 + (int64_t)(lm_test_rand(&rs) % (uint64_t)mult[side][q]));
            mult[side][q] += w[nb++];
            break;
          }
        continue;
      }
      trow x;
      memset(&x, 0, sizeof x);
      x.ts = wm[side] + (int64_t)(lm_test_rand(&rs) % 4);
      x.k = x.ts;
      x.v = (int64_t)(lm_test_rand(&rs) % 4);
      int q = 0;
      for (; q < nrow[side]; q++)
        if (memcmp(&rows[side][q], &x, sizeof x) == 0)
          break;
      if (q == nrow[side]) {
        if (nrow[side] == MAXR)
          continue;
        rows[side][q] = x;
        mult[side][q] = 0;
        nrow[side]++;
      }
      b[nb] = x;
      w[nb] = 1 + (int64_t)(lm_test_rand(&rs) % 2);
      mult[side][q] += w[nb++];
      if (n_ins < 1024)
        ins_ts[n_ins++] = x.ts;
    }
    if (nb && h_push(&h, side, b, w, nb, &err)) {
      fprintf(stderr, "evict push: %s\n", err.msg);
      ok = false;
      break;
    }
    int64_t horizon = wm[0] < wm[1] ? wm[0] : wm[1];
    if (horizon > 0 && lm_test_rand(&rs) % 6 == 0) {
      /* below the horizon: breaks the promise, dropped */
      trow x = {horizon - 1, horizon - 1, 1, false};
      int64_t wx = 1, before = h.c.rows;
      CHECK_EQ_I64(h_push(&h, side, &x, &wx, 1, &err), 0);
      CHECK_EQ_I64(h.c.rows, before);
      late++;
    }
    mset exp = {0};
    brute(&bs, rows[0], mult[0], nrow[0], rows[1], mult[1], nrow[1], &exp);
    char what[128];
    snprintf(what, sizeof what, "evict %s%s seed %llu step %d", type_name(t),
             resid ? " +residual" : "", (unsigned long long)seed, step);
    ok = ms_eq(&h.c.got, &exp, what);
    CHECK(ok);
    ms_free(&exp);
    for (int q = 0; q < h.c.got.n; q++)
      CHECK(h.c.got.r[q].w >= 0);
  }
  CHECK_EQ_I64(h.j->late_dropped, late);
  /* one slot per insertion (fewer after retractions), none below the
   * horizon */
  int64_t above = 0, horizon = wm[0] < wm[1] ? wm[0] : wm[1];
  for (int i = 0; i < n_ins; i++)
    above += ins_ts[i] >= horizon;
  CHECK(lm_join_state_rows(h.j) <= above);
  CHECK_EQ_I64(h_wm(&h, 0, INT64_MAX, &err), 0);
  CHECK_EQ_I64(h_wm(&h, 1, INT64_MAX, &err), 0);
  CHECK_EQ_I64(lm_join_state_rows(h.j), 0);
  h_free(&h);
}

/* An append-only output expands a pair of multiplicity k into k rows: a
 * lookup join whose table row has __weight 2^62 asks for 2^62 copies per
 * stream row (and two rows overflow BIGINT). Refused with a clear
 * LM_ERR_EXEC (the engine then stops the query, naming it), instead of an
 * allocation of 2^64 bytes failing as "out of memory". */
static void append_only_weight_overflow(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  harness h;
  h_init(&h, LM_JOIN_LOOKUP, LM_JOIN_INNER, false, false, &err);
  h.spec.side[1].changelog = true;
  CHECK(h_open(&h, &err) == 0);
  trow t1 = {1, 0, 10, false};
  int64_t big = (int64_t)1 << 62;
  CHECK_EQ_I64(h_push(&h, 1, &t1, &big, 1, &err), 0);
  trow s1[2] = {{1, 5, 0, false}, {1, 6, 0, false}};
  CHECK_EQ_I64(h_push(&h, 0, s1, NULL, 1, &err), LM_ERR_EXEC);
  CHECK(strstr(err.msg, "copies of its rows") != NULL);
  memset(&err, 0, sizeof err);
  trow t2 = {1, 0, 11, false};
  CHECK_EQ_I64(h_push(&h, 1, &t2, &big, 1, &err), 0);
  CHECK_EQ_I64(h_push(&h, 0, s1, NULL, 2, &err), LM_ERR_EXEC);
  CHECK(strstr(err.msg, "integer out of range") != NULL);
  CHECK_EQ_I64(h.c.rows, 0);
  h_free(&h);
}

/* VARCHAR keys through the updating join: 10 000 left rows, the odd ones
 * retracted (enough dead string bytes to compact the string heap), then a
 * right row per key: 5 000 pairs, each with equal strings and the left row
 * the even one whose text carries its number. */
typedef struct str_coll {
  int64_t rows, bad;
} str_coll;
static int str_batch(void *ctx, lm_batch *b, lm_error *err) {
  (void)err;
  str_coll *c = ctx;
  for (int64_t r = 0; r < b->num_rows; r++) {
    int32_t l1, l2;
    const char *a = lm_array_str(b->columns[0], r, &l1);
    const char *x = lm_array_str(b->columns[2], r, &l2);
    int64_t v = lm_array_i64(b->columns[1])[r];
    int64_t w = lm_array_i64(b->columns[4])[r];
    char want[64];
    int n = snprintf(want, sizeof want, "key%05lld-some-padding-text",
                     (long long)v);
    if (l1 != l2 || memcmp(a, x, (size_t)l1) || l1 != n ||
        memcmp(a, want, (size_t)n) || v % 2 || w != 1)
      c->bad++;
    c->rows++;
  }
  return 0;
}

static void varchar_keys(void) {
  lm_error err;
  memset(&err, 0, sizeof err);
  lm_schema *ws = lm_schema_new(3), *ss = lm_schema_new(2),
            *os = lm_schema_new(5);
  lm_schema_set_field(ss, 0, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(ss, 1, "v", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(ws, 0, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(ws, 1, "v", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(ws, 2, "__weight", lm_type_make(LM_TYPE_INT64), false);
  static const char *on[] = {"s", "v", "s2", "v2", "__weight"};
  for (int c = 0; c < 5; c++)
    lm_schema_set_field(
        os, c, on[c],
        lm_type_make(c % 2 == 0 && c < 4 ? LM_TYPE_UTF8 : LM_TYPE_INT64), true);
  int keys[1] = {0};
  lm_join_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.type = LM_JOIN_INNER;
  sp.algo = LM_JOIN_UPDATING;
  for (int s = 0; s < 2; s++) {
    sp.side[s].schema = ss;
    sp.side[s].changelog = true;
    sp.side[s].n_keys = 1;
    sp.side[s].keys = keys;
    sp.side[s].time_col = -1;
  }
  sp.asof_tolerance_us = -1;
  sp.out_schema = os;
  sp.out_changelog = true;
  lm_operator *j = lm_op_join_new(&sp, &err);
  CHECK(j != NULL);
  if (!j)
    return;
  str_coll sc = {0, 0};
  lm_output_cb cb = {str_batch, NULL, &sc};
  j->next = lm_op_output_new(cb);
  for (int pass = 0; pass < 3; pass++) {
    lm_batch_builder bb;
    lm_batch_builder_init(&bb, ws, 10000);
    for (int i = 0; i < 10000; i++) {
      if (pass == 1 && i % 2 == 0)
        continue;
      char buf[64];
      int n = snprintf(buf, sizeof buf, "key%05d-some-padding-text", i);
      lm_builder_append_str(&bb.cols[0], buf, n);
      lm_builder_append_int(&bb.cols[1], pass == 2 ? 0 : i);
      lm_builder_append_int(&bb.cols[2], pass == 1 ? -1 : 1);
    }
    lm_batch *b = NULL;
    lm_batch_builder_finish(&bb, &b, &err);
    lm_batch_builder_free(&bb);
    lm_output_cb side = lm_join_side(j, pass == 2 ? 1 : 0);
    CHECK_EQ_I64(side.batch(side.ctx, b, &err), 0);
    lm_batch_release(b);
  }
  /* right rows carry v = 0: the pair's left v is the key's number */
  CHECK_EQ_I64(sc.rows, 5000);
  CHECK_EQ_I64(sc.bad, 0);
  CHECK_EQ_I64(lm_join_state_rows(j), 15000);
  lm_pipeline_free(j);
  lm_schema_release(ws);
  lm_schema_release(ss);
  lm_schema_release(os);
}

int main(int argc, char **argv) {
  int seeds = argc > 1 ? atoi(argv[1]) : 40;
  updating_hand();
  updating_ttl();
  updating_evict_hand();
  append_only_weight_overflow();
  for (int t = LM_JOIN_INNER; t <= LM_JOIN_ANTI; t++)
    for (int resid = 0; resid < 2; resid++)
      for (int s = 1; s <= seeds / 2 + 1; s++)
        random_evict((uint64_t)s, (lm_join_type)t, resid);
  varchar_keys();
  scenario19();
  interval_edges();
  interval_null_time();
  for (int t = LM_JOIN_INNER; t <= LM_JOIN_ANTI; t++)
    for (int resid = 0; resid < 2; resid++)
      for (int s = 1; s <= seeds; s++)
        random_updating((uint64_t)s, (lm_join_type)t, resid);
  static const int64_t bases[] = {0, -1000000000000LL, 1000};
  for (int t = LM_JOIN_INNER; t <= LM_JOIN_ANTI; t++)
    for (int resid = 0; resid < 2; resid++)
      for (int s = 1; s <= seeds; s++)
        random_interval((uint64_t)s, (lm_join_type)t, resid, bases[s % 3]);
  scenario18();
  temporal_hand();
  lookup_hand();
  static const int64_t tols[] = {-1, 0, 3};
  for (int t = LM_JOIN_INNER; t <= LM_JOIN_LEFT; t++)
    for (int dir = 0; dir < 3; dir++)
      for (int strict = 0; strict < 2; strict++)
        for (int ti = 0; ti < 3; ti++)
          for (int s = 1; s <= seeds / 2 + 1; s++)
            random_asof((uint64_t)s, (lm_join_type)t, (lm_asof_dir)dir, strict,
                        tols[ti], s % 3 == 0);
  return lm_test_done("test_join");
}
