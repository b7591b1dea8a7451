/*
 * Retractable aggregate states (src/exec/agg_table.c, agg_vtree.c):
 * randomized traces of insertions and retractions checked after every step
 * against a brute-force recomputation over the live rows, and merges of
 * partial states checked against one table that saw every row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"
#include "exec/agg_vtree.h"
#include "exec/lm_exec.h"
#include "lm_test.h"
#include "plan/lm_plan.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void) {
  return lm_test_xorshift(&rng);
}

/* ------------------------------------------------------------ vtree */

static void test_vtree(void) {
  enum { G = 6, V = 25 };
  int64_t cnt[G][V] = {{0}};
  lm_vtree t;
  lm_vtree_init(&t, LM_VT_INT, LM_VT_NONE);
  for (int step = 0; step < 20000; step++) {
    uint32_t g = (uint32_t)(rnd() % G);
    int64_t v = (int64_t)(rnd() % V);
    int64_t d = (int64_t)(rnd() % 5) - 2;
    lm_vval x = {v, 0, NULL, 0};
    int64_t old = -1;
    int rc = lm_vtree_add(&t, g, &x, 0, d, NULL, &old);
    CHECK_EQ_I64(old, cnt[g][v]);
    if (cnt[g][v] + d < 0) {
      CHECK_EQ_I64(rc, -2);
    } else {
      CHECK_EQ_I64(rc, 0);
      cnt[g][v] += d;
    }
    /* extremes and an in-order walk of group g */
    int lo = -1, hi = -1, distinct = 0;
    for (int k = 0; k < V; k++)
      if (cnt[g][k]) {
        if (lo < 0)
          lo = k;
        hi = k;
        distinct++;
      }
    int32_t f = lm_vtree_first(&t, g), l = lm_vtree_last(&t, g);
    CHECK_EQ_I64(f < 0 ? -1 : lm_vtree_key(&t, f).i, lo);
    CHECK_EQ_I64(l < 0 ? -1 : lm_vtree_key(&t, l).i, hi);
    int walked = 0;
    int64_t prev = -1;
    for (int32_t n = f; n >= 0; n = lm_vtree_next(&t, n)) {
      int64_t k = lm_vtree_key(&t, n).i;
      CHECK(k > prev);
      CHECK_EQ_I64(t.nodes[n].cnt, cnt[g][k]);
      prev = k;
      walked++;
    }
    CHECK_EQ_I64(walked, distinct);
  }
  lm_vtree_drop_group(&t, 2);
  CHECK_EQ_I64(lm_vtree_first(&t, 2), -1);
  lm_vtree_free(&t);

  /* strings and the (gid, value, seq) form used by first/last_value */
  lm_vtree s;
  lm_vtree_init(&s, LM_VT_STR, LM_VT_NONE);
  const char *w[] = {"pear", "apple", "fig", "apple", "", "pea"};
  for (int i = 0; i < 6; i++) {
    lm_vval x = {0, 0, w[i], (int32_t)strlen(w[i])};
    CHECK_EQ_I64(lm_vtree_add(&s, 1, &x, i, 1, NULL, NULL), 0);
  }
  lm_vval apple = {0, 0, "apple", 5};
  int32_t n = lm_vtree_last_with(&s, 1, &apple);
  CHECK(n >= 0 && s.nodes[n].k2 == 3);
  CHECK_EQ_I64(lm_vtree_key(&s, lm_vtree_first(&s, 1)).len, 0);
  CHECK_EQ_STR(lm_vtree_key(&s, lm_vtree_last(&s, 1)).s, "pear");
  lm_vtree_free(&s);
}

/* ------------------------------------------ aggregates vs brute force */

enum { NA = 11 };
static const lm_agg_kind kinds[NA] = {
    LM_AGG_COUNT_STAR, LM_AGG_COUNT, LM_AGG_SUM,      LM_AGG_MIN,
    LM_AGG_MAX,        LM_AGG_AVG,   LM_AGG_VAR_SAMP, LM_AGG_STDDEV_POP,
    LM_AGG_COUNT,      LM_AGG_SUM,   LM_AGG_FIRST};
static const bool dist[NA] = {false, false, false, false, false, false,
                              false, false, true,  true,  false};

static void specs(lm_agg_spec *s) {
  for (int a = 0; a < NA; a++) {
    memset(&s[a], 0, sizeof s[a]);
    s[a].kind = kinds[a];
    s[a].distinct = dist[a];
    s[a].in_type = lm_type_make(LM_TYPE_FLOAT64);
    s[a].out_type =
        lm_type_make(kinds[a] == LM_AGG_COUNT || kinds[a] == LM_AGG_COUNT_STAR
                         ? LM_TYPE_INT64
                         : LM_TYPE_FLOAT64);
  }
}

/* One batch of rows (g BIGINT, x DOUBLE nullable, w BIGINT). */
typedef struct rows {
  lm_array *g, *x, *w;
} rows;

static rows make_rows(const int64_t *g, const double *x, const bool *xnull,
                      const int64_t *w, int n) {
  lm_builder bg, bx, bw;
  lm_builder_init(&bg, lm_type_make(LM_TYPE_INT64), n);
  lm_builder_init(&bx, lm_type_make(LM_TYPE_FLOAT64), n);
  lm_builder_init(&bw, lm_type_make(LM_TYPE_INT64), n);
  for (int i = 0; i < n; i++) {
    lm_builder_append_int(&bg, g[i]);
    if (xnull[i])
      lm_builder_append_null(&bx);
    else
      lm_builder_append_double(&bx, x[i]);
    lm_builder_append_int(&bw, w[i]);
  }
  rows r = {NULL, NULL, NULL};
  lm_builder_finish(&bg, &r.g);
  lm_builder_finish(&bx, &r.x);
  lm_builder_finish(&bw, &r.w);
  lm_builder_free(&bg);
  lm_builder_free(&bx);
  lm_builder_free(&bw);
  return r;
}

static void free_rows(rows *r) {
  lm_array_release(r->g);
  lm_array_release(r->x);
  lm_array_release(r->w);
}

static int add_rows(lm_aggtable *t, rows *r, bool weighted, lm_error *err) {
  lm_array *in[NA];
  for (int a = 0; a < NA; a++)
    in[a] = kinds[a] == LM_AGG_COUNT_STAR ? NULL : r->x;
  int64_t n = r->g->length;
  uint32_t *gids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  const int64_t *w = weighted ? lm_array_i64(r->w) : NULL;
  int rc = lm_aggtable_lookup(t, &r->g, NULL, n, gids, err);
  if (!rc)
    rc = lm_aggtable_check_w(t, in, w, NULL, n, gids, err);
  if (!rc)
    rc = lm_aggtable_accumulate_w(t, in, w, NULL, n, gids, err);
  free(gids);
  return rc;
}

/* The aggregate results of every group of t, one batch. */
static lm_batch *results(lm_aggtable *t, lm_schema *s) {
  lm_batch_builder bb;
  lm_batch *b = NULL;
  lm_batch_builder_init(&bb, s, lm_aggtable_groups(t));
  lm_error err = {0};
  CHECK_EQ_I64(lm_aggtable_emit(t, NULL, 0, &bb, &err), 0);
  lm_batch_builder_finish(&bb, &b, &err);
  lm_batch_builder_free(&bb);
  return b;
}

static lm_schema *result_schema(const lm_agg_spec *sp) {
  lm_schema *s = lm_schema_new(1 + NA);
  lm_schema_set_field(s, 0, "g", lm_type_make(LM_TYPE_INT64), true);
  for (int a = 0; a < NA; a++) {
    char nm[16];
    snprintf(nm, sizeof nm, "a%d", a);
    lm_schema_set_field(s, 1 + a, nm, sp[a].out_type, true);
  }
  return s;
}

static bool near(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

/* live rows per group: values 0..V-1 (as doubles) and NULLs, with counts
 * and the arrival order of the live copies (for first_value) */
enum { G = 4, V = 9, MAXLIVE = 4096 };
typedef struct live {
  int64_t cnt[G][V + 1]; /* [V] = NULL */
  int order[G][MAXLIVE]; /* values of live non-NULL copies, arrival order */
  int n_order[G];
} live;

static void check_group(const live *L, int g, const lm_batch *b, int64_t row) {
  int64_t rows_ = 0, nn = 0, nd = 0;
  double sum = 0, dsum = 0, mn = NAN, mx = NAN;
  for (int v = 0; v <= V; v++) {
    rows_ += L->cnt[g][v];
    if (v == V || !L->cnt[g][v])
      continue;
    nn += L->cnt[g][v];
    sum += (double)v * (double)L->cnt[g][v];
    nd++;
    dsum += v;
    if (isnan(mn))
      mn = v;
    mx = v;
  }
  double mean = nn ? sum / (double)nn : 0, m2 = 0;
  for (int v = 0; v < V; v++)
    m2 += (double)L->cnt[g][v] * ((double)v - mean) * ((double)v - mean);
  lm_array *const *c = b->columns;
  CHECK_EQ_I64(lm_array_get_i64(c[1], row), rows_);
  CHECK_EQ_I64(lm_array_get_i64(c[2], row), nn);
  CHECK_EQ_I64(lm_array_get_i64(c[9], row), nd);
  if (!nn) {
    for (int a = 3; a <= 8; a++)
      CHECK(lm_array_is_null(c[a], row));
    CHECK(lm_array_is_null(c[10], row));
    CHECK(lm_array_is_null(c[11], row));
    return;
  }
  CHECK(near(lm_array_get_f64(c[3], row), sum));
  CHECK(near(lm_array_get_f64(c[4], row), mn));
  CHECK(near(lm_array_get_f64(c[5], row), mx));
  CHECK(near(lm_array_get_f64(c[6], row), mean));
  if (nn < 2)
    CHECK(lm_array_is_null(c[7], row));
  else
    CHECK(near(lm_array_get_f64(c[7], row), m2 / (double)(nn - 1)));
  CHECK(near(lm_array_get_f64(c[8], row), sqrt(m2 / (double)nn)));
  CHECK(near(lm_array_get_f64(c[10], row), dsum));
  CHECK(L->n_order[g] > 0 &&
        near(lm_array_get_f64(c[11], row), L->order[g][0]));
}

static void test_random_retractions(void) {
  lm_agg_spec sp[NA];
  specs(sp);
  lm_type kt = lm_type_make(LM_TYPE_INT64);
  lm_aggtable *t = lm_aggtable_new(1, &kt, NA, sp);
  lm_error err = {0};
  CHECK_EQ_I64(lm_aggtable_set_retractable(t, &err), 0);
  lm_schema *s = result_schema(sp);
  static live L;
  memset(&L, 0, sizeof L);
  for (int step = 0; step < 400; step++) {
    int n = 1 + (int)(rnd() % 8);
    int64_t g[8], w[8];
    double x[8];
    bool xn[8];
    live next = L;
    for (int i = 0; i < n; i++) {
      g[i] = (int64_t)(rnd() % G);
      int v = (int)(rnd() % (V + 1));
      xn[i] = v == V;
      x[i] = v;
      /* retract a live copy half of the time */
      w[i] = (rnd() % 2 && next.cnt[g[i]][v] > 0) ? -1 : 1;
      next.cnt[g[i]][v] += w[i];
      if (v < V) {
        int *o = next.order[g[i]], *k = &next.n_order[g[i]];
        if (w[i] > 0 && *k < MAXLIVE) {
          o[(*k)++] = v;
        } else if (w[i] < 0) { /* the most recent live copy goes */
          for (int j = *k - 1; j >= 0; j--)
            if (o[j] == v) {
              memmove(&o[j], &o[j + 1], sizeof(int) * (size_t)(*k - j - 1));
              (*k)--;
              break;
            }
        }
      }
    }
    rows r = make_rows(g, x, xn, w, n);
    CHECK_EQ_I64(add_rows(t, &r, true, &err), 0);
    free_rows(&r);
    L = next;
    lm_batch *b = results(t, s);
    for (int64_t row = 0; b && row < b->num_rows; row++) {
      int gg = (int)lm_array_get_i64(b->columns[0], row);
      int64_t live_rows = lm_aggtable_group_rows(t, (uint32_t)row);
      int64_t want = 0;
      for (int v = 0; v <= V; v++)
        want += L.cnt[gg][v];
      CHECK_EQ_I64(live_rows, want);
      check_group(&L, gg, b, row);
    }
    lm_batch_release(b);
  }
  /* over-retraction: refused, nothing changes */
  int64_t g1[1] = {0}, w1[1] = {-1000};
  double x1[1] = {1};
  bool n1[1] = {false};
  rows r = make_rows(g1, x1, n1, w1, 1);
  lm_error e2 = {0};
  CHECK(add_rows(t, &r, true, &e2) != 0);
  CHECK(strstr(e2.msg, "more retractions than insertions") != NULL);
  free_rows(&r);
  lm_schema_release(s);
  lm_aggtable_free(t);
}

/* ----------------------------------------------------------- merging */

static void test_merge(bool retract) {
  lm_agg_spec sp[NA];
  specs(sp);
  lm_type kt = lm_type_make(LM_TYPE_INT64);
  lm_aggtable *parts = lm_aggtable_new(1, &kt, NA, sp);
  lm_aggtable *whole = lm_aggtable_new(1, &kt, NA, sp);
  lm_aggtable *dst = lm_aggtable_new(1, &kt, NA, sp);
  lm_error err = {0};
  if (retract) {
    lm_aggtable_set_retractable(parts, &err);
    lm_aggtable_set_retractable(whole, &err);
    lm_aggtable_set_retractable(dst, &err);
  }
  /* group g of `parts` holds rows of 4 panes (key g), `whole` has them all
   * in group 0; merging parts' groups into dst's group 0 must equal whole */
  for (int p = 0; p < 4; p++) {
    int64_t g[6], w[6], g0[6] = {0};
    double x[6];
    bool xn[6];
    for (int i = 0; i < 6; i++) {
      g[i] = p;
      w[i] = 1;
      x[i] = (double)(rnd() % 7) + (p == 2 ? 1e9 : 0);
      xn[i] = rnd() % 5 == 0;
    }
    rows r = make_rows(g, x, xn, w, 6);
    CHECK_EQ_I64(add_rows(parts, &r, retract, &err), 0);
    free_rows(&r);
    r = make_rows(g0, x, xn, w, 6);
    CHECK_EQ_I64(add_rows(whole, &r, retract, &err), 0);
    free_rows(&r);
  }
  uint32_t src[4] = {0, 1, 2, 3};
  int64_t dg[4];
  CHECK_EQ_I64(lm_aggtable_intern(dst, whole, NULL, 1, true, dg, &err), 0);
  uint32_t d4[4] = {(uint32_t)dg[0], (uint32_t)dg[0], (uint32_t)dg[0],
                    (uint32_t)dg[0]};
  CHECK_EQ_I64(lm_aggtable_merge_groups(dst, d4, parts, src, 4, &err), 0);
  lm_schema *s = result_schema(sp);
  lm_batch *a = results(dst, s), *b = results(whole, s);
  CHECK(a && b && a->num_rows == 1 && b->num_rows == 1);
  for (int c = 1; a && b && c < s->n_fields; c++) {
    bool na = lm_array_is_null(a->columns[c], 0),
         nb = lm_array_is_null(b->columns[c], 0);
    CHECK(na == nb);
    if (!na && !nb) {
      double va = sp[c - 1].out_type.id == LM_TYPE_INT64
                      ? (double)lm_array_get_i64(a->columns[c], 0)
                      : lm_array_get_f64(a->columns[c], 0);
      double vb = sp[c - 1].out_type.id == LM_TYPE_INT64
                      ? (double)lm_array_get_i64(b->columns[c], 0)
                      : lm_array_get_f64(b->columns[c], 0);
      if (!near(va, vb))
        fprintf(stderr, "merge (retract=%d) a%d: %.17g != %.17g\n", retract,
                c - 1, va, vb);
      CHECK(near(va, vb));
    }
  }
  CHECK_EQ_I64(lm_aggtable_group_rows(dst, (uint32_t)dg[0]), 24);
  lm_batch_release(a);
  lm_batch_release(b);
  lm_schema_release(s);
  lm_aggtable_free(parts);
  lm_aggtable_free(whole);
  lm_aggtable_free(dst);
}

/* SUM of BIGINT over a changelog: the state is 128-bit, so a batch whose
 * running sum leaves BIGINT but whose per-group result fits is accepted
 * (+MAX, +1, -MAX -> 1), and only a result that does not fit is an error,
 * refused before the state changes. Merged partial states (panes) add in
 * 128 bits too. */
static void sum_rows(lm_aggtable *t, const int64_t *x, const int64_t *w, int n,
                     int *rc_check, lm_error *err) {
  lm_builder bg, bx, bw;
  lm_builder_init(&bg, lm_type_make(LM_TYPE_INT64), n);
  lm_builder_init(&bx, lm_type_make(LM_TYPE_INT64), n);
  lm_builder_init(&bw, lm_type_make(LM_TYPE_INT64), n);
  for (int i = 0; i < n; i++) {
    lm_builder_append_int(&bg, 7);
    lm_builder_append_int(&bx, x[i]);
    lm_builder_append_int(&bw, w[i]);
  }
  lm_array *g = NULL, *xa = NULL, *wa = NULL;
  lm_builder_finish(&bg, &g);
  lm_builder_finish(&bx, &xa);
  lm_builder_finish(&bw, &wa);
  lm_builder_free(&bg);
  lm_builder_free(&bx);
  lm_builder_free(&bw);
  uint32_t gids[16];
  lm_array *in[1] = {xa};
  CHECK_EQ_I64(lm_aggtable_lookup(t, &g, NULL, n, gids, err), 0);
  *rc_check = lm_aggtable_check_w(t, in, lm_array_i64(wa), NULL, n, gids, err);
  if (!*rc_check)
    CHECK_EQ_I64(
        lm_aggtable_accumulate_w(t, in, lm_array_i64(wa), NULL, n, gids, err),
        0);
  lm_array_release(g);
  lm_array_release(xa);
  lm_array_release(wa);
}

static int64_t sum_result(lm_aggtable *t, bool *is_null, int *rc) {
  lm_schema *s = lm_schema_new(2);
  lm_schema_set_field(s, 0, "g", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 1, "s", lm_type_make(LM_TYPE_INT64), true);
  lm_batch_builder bb;
  lm_batch *b = NULL;
  lm_error err = {0};
  lm_batch_builder_init(&bb, s, 1);
  *rc = lm_aggtable_emit(t, NULL, 0, &bb, &err);
  int64_t v = 0;
  if (!*rc && !lm_batch_builder_finish(&bb, &b, &err) && b->num_rows == 1) {
    *is_null = lm_array_is_null(b->columns[1], 0);
    v = *is_null ? 0 : lm_array_get_i64(b->columns[1], 0);
  }
  lm_batch_release(b);
  lm_batch_builder_free(&bb);
  lm_schema_release(s);
  return v;
}

static void test_sum_wide(void) {
  lm_agg_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = LM_AGG_SUM;
  sp.in_type = sp.out_type = lm_type_make(LM_TYPE_INT64);
  lm_type kt = lm_type_make(LM_TYPE_INT64);
  lm_aggtable *t = lm_aggtable_new(1, &kt, 1, &sp);
  lm_error err = {0};
  CHECK_EQ_I64(lm_aggtable_set_retractable(t, &err), 0);
  int rc = 0, erc = 0;
  bool nul = false;
  /* one batch: +MAX, +1, -MAX (a retraction of the MAX row) -> 1 */
  int64_t x1[] = {INT64_MAX, 1, INT64_MAX}, w1[] = {1, 1, -1};
  sum_rows(t, x1, w1, 3, &rc, &err);
  CHECK_EQ_I64(rc, 0);
  CHECK_EQ_I64(sum_result(t, &nul, &erc), 1);
  CHECK(!nul && erc == 0);
  /* +MAX alone now gives MAX + 1: refused, nothing changes */
  int64_t x2[] = {INT64_MAX}, w2[] = {1};
  lm_err_clear(&err);
  sum_rows(t, x2, w2, 1, &rc, &err);
  CHECK_EQ_I64(rc, LM_ERR_EXEC);
  CHECK(strstr(err.msg, "overflow in SUM") != NULL);
  CHECK_EQ_I64(sum_result(t, &nul, &erc), 1);
  /* +MIN, then the value 1 retracted, then MIN retracted: one batch whose
   * running sum is 1 + MIN (fits) ... then 0 live rows: NULL, as SQL */
  int64_t x3[] = {INT64_MIN, 1, INT64_MIN}, w3[] = {1, -1, -1};
  lm_err_clear(&err);
  sum_rows(t, x3, w3, 3, &rc, &err);
  CHECK_EQ_I64(rc, 0);
  CHECK_EQ_I64(lm_aggtable_group_rows(t, 0), 0);
  sum_result(t, &nul, &erc);
  CHECK(nul && erc == 0);
  /* the running sum may go below MIN inside a batch: -1 - 1 ... */
  int64_t x4[] = {-1, INT64_MIN, -1}, w4[] = {1, 1, -1};
  sum_rows(t, x4, w4, 3, &rc, &err);
  CHECK_EQ_I64(rc, 0);
  CHECK_EQ_I64(sum_result(t, &nul, &erc), INT64_MIN);
  CHECK(!nul && erc == 0);

  /* merges (HOP panes): two states of MAX and MIN - the sum fits */
  lm_aggtable *a = lm_aggtable_new(1, &kt, 1, &sp);
  lm_aggtable *b = lm_aggtable_new(1, &kt, 1, &sp);
  lm_aggtable *m = lm_aggtable_new(1, &kt, 1, &sp);
  CHECK_EQ_I64(lm_aggtable_set_retractable(a, &err), 0);
  CHECK_EQ_I64(lm_aggtable_set_retractable(b, &err), 0);
  CHECK_EQ_I64(lm_aggtable_set_retractable(m, &err), 0);
  int64_t xa[] = {INT64_MAX, 5}, wa[] = {1, 1};
  int64_t xb[] = {INT64_MIN, 5}, wb[] = {1, -1};
  sum_rows(a, xa, wa, 2, &rc, &err); /* MAX + 5: does not fit alone */
  CHECK_EQ_I64(rc, LM_ERR_EXEC);
  int64_t xa2[] = {INT64_MAX}, wa2[] = {1};
  sum_rows(a, xa2, wa2, 1, &rc, &err);
  CHECK_EQ_I64(rc, 0);
  int64_t xa3[] = {5}, wa3[] = {1};
  sum_rows(b, xa3, wa3, 1, &rc, &err);
  CHECK_EQ_I64(rc, 0);
  sum_rows(b, xb, wb, 2, &rc, &err); /* 5 + MIN - 5 = MIN */
  CHECK_EQ_I64(rc, 0);
  int64_t ids[1];
  uint32_t dg = 0, sg = 0;
  CHECK_EQ_I64(lm_aggtable_intern(m, a, NULL, 1, true, ids, &err), 0);
  CHECK_EQ_I64(lm_aggtable_merge_groups(m, &dg, a, &sg, 1, &err), 0);
  CHECK_EQ_I64(lm_aggtable_merge_groups(m, &dg, b, &sg, 1, &err), 0);
  CHECK_EQ_I64(sum_result(m, &nul, &erc), -1); /* MAX + MIN */
  CHECK(erc == 0);
  /* a merged result outside BIGINT is an error at emit, not a wrap */
  lm_aggtable *m2 = lm_aggtable_new(1, &kt, 1, &sp);
  CHECK_EQ_I64(lm_aggtable_set_retractable(m2, &err), 0);
  CHECK_EQ_I64(lm_aggtable_intern(m2, a, NULL, 1, true, ids, &err), 0);
  CHECK_EQ_I64(lm_aggtable_merge_groups(m2, &dg, a, &sg, 1, &err), 0);
  CHECK_EQ_I64(lm_aggtable_merge_groups(m2, &dg, a, &sg, 1, &err), 0);
  sum_result(m2, &nul, &erc);
  CHECK_EQ_I64(erc, LM_ERR_EXEC);
  lm_aggtable_free(a);
  lm_aggtable_free(b);
  lm_aggtable_free(m);
  lm_aggtable_free(m2);
  lm_aggtable_free(t);
}

int main(void) {
  test_sum_wide();
  test_vtree();
  test_random_retractions();
  for (int i = 0; i < 20; i++) {
    test_merge(false);
    test_merge(true);
  }
  return lm_test_done("test_agg_retract");
}
