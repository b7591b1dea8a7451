/* exec/window_fn.c — window functions over one batch (lm_window_fn.h). */
#include "exec/lm_window_fn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_strfn.h"
#include "exec/window_stat.h"

/* ------------------------------------------------------------ compare */

static bool is_null_at(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

static bool is_float_type(lm_type_id t) {
  return t == LM_TYPE_FLOAT32 || t == LM_TYPE_FLOAT64 || t == LM_TYPE_FLOAT16;
}

/* Compares two non-NULL values of a (lm_array_cmp: NaN above numbers). */
static int cmp_val(const lm_array *a, int64_t x, int64_t y) {
  return lm_array_cmp(a, x, a, y);
}

/* Key comparison, NULLs equal to each other. */
static int cmp_key(const lm_array *a, bool desc, bool nulls_first, int64_t x,
                   int64_t y) {
  bool xn = is_null_at(a, x), yn = is_null_at(a, y);
  if (xn || yn) {
    if (xn && yn)
      return 0;
    int c = xn ? 1 : -1;
    return nulls_first ? -c : c;
  }
  int c = cmp_val(a, x, y);
  return desc ? -c : c;
}

typedef struct wctx {
  const lm_wf_call *c;
} wctx;

static int cmp_part(const lm_wf_call *c, int64_t x, int64_t y) {
  for (int k = 0; k < c->n_part; k++) {
    int r = cmp_key(c->part[k], false, false, x, y);
    if (r)
      return r;
  }
  return 0;
}

static int cmp_order(const lm_wf_call *c, int64_t x, int64_t y) {
  for (int k = 0; k < c->n_order; k++) {
    bool desc = c->desc[k];
    bool nf = c->nulls_first[k];
    int r = cmp_key(c->order[k], desc, nf, x, y);
    if (r)
      return r;
  }
  return 0;
}

static int cmp_rows(const lm_wf_call *c, int32_t x, int32_t y) {
  int r = cmp_part(c, x, y);
  return r ? r : cmp_order(c, x, y);
}

static void merge_sort(const lm_wf_call *c, int32_t *v, int32_t *tmp,
                       int64_t n) {
  if (n < 2)
    return;
  if (n <= 16) {
    for (int64_t i = 1; i < n; i++) {
      int32_t x = v[i];
      int64_t j = i;
      while (j > 0 && cmp_rows(c, v[j - 1], x) > 0) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
    return;
  }
  int64_t m = n / 2;
  merge_sort(c, v, tmp, m);
  merge_sort(c, v + m, tmp, n - m);
  int64_t i = 0, j = m, k = 0;
  while (i < m && j < n)
    tmp[k++] = cmp_rows(c, v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < m)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof(int32_t) * (size_t)n);
}

/* ------------------------------------------------------------- typing */

enum wf_kind {
  WF_ROW_NUMBER,
  WF_RANK,
  WF_DENSE_RANK,
  WF_PERCENT_RANK,
  WF_CUME_DIST,
  WF_NTILE,
  WF_LAG,
  WF_LEAD,
  WF_FIRST,
  WF_LAST,
  WF_NTH,
  WF_COUNT,
  WF_SUM,
  WF_AVG,
  WF_MIN,
  WF_MAX,
  WF_VAR_SAMP,
  WF_VAR_POP,
  WF_STDDEV_SAMP,
  WF_STDDEV_POP,
  WF_BOOL_AND,
  WF_BOOL_OR,
  WF_STRING_AGG,
  WF_REGR, /* corr, covar_*, regr_* (window_stat.c) */
  WF_REGR_COUNT,
  WF_BIT_AND,
  WF_BIT_OR,
  WF_BIT_XOR,
  WF_UNKNOWN,
};

static const struct {
  const char *name;
  enum wf_kind kind;
  int min_args, max_args;
} k_fns[] = {
    {"row_number", WF_ROW_NUMBER, 0, 0},
    {"rank", WF_RANK, 0, 0},
    {"dense_rank", WF_DENSE_RANK, 0, 0},
    {"percent_rank", WF_PERCENT_RANK, 0, 0},
    {"cume_dist", WF_CUME_DIST, 0, 0},
    {"ntile", WF_NTILE, 1, 1},
    {"lag", WF_LAG, 1, 3},
    {"lead", WF_LEAD, 1, 3},
    {"first_value", WF_FIRST, 1, 1},
    {"last_value", WF_LAST, 1, 1},
    {"nth_value", WF_NTH, 2, 2},
    {"count", WF_COUNT, 0, 1},
    {"sum", WF_SUM, 1, 1},
    {"avg", WF_AVG, 1, 1},
    {"min", WF_MIN, 1, 1},
    {"max", WF_MAX, 1, 1},
    {"variance", WF_VAR_SAMP, 1, 1},
    {"var_samp", WF_VAR_SAMP, 1, 1},
    {"var_pop", WF_VAR_POP, 1, 1},
    {"stddev", WF_STDDEV_SAMP, 1, 1},
    {"stddev_samp", WF_STDDEV_SAMP, 1, 1},
    {"stddev_pop", WF_STDDEV_POP, 1, 1},
    {"bool_and", WF_BOOL_AND, 1, 1},
    {"every", WF_BOOL_AND, 1, 1},
    {"bool_or", WF_BOOL_OR, 1, 1},
    {"string_agg", WF_STRING_AGG, 2, 2},
    {"corr", WF_REGR, 2, 2},
    {"covar_pop", WF_REGR, 2, 2},
    {"covar_samp", WF_REGR, 2, 2},
    {"regr_slope", WF_REGR, 2, 2},
    {"regr_intercept", WF_REGR, 2, 2},
    {"regr_r2", WF_REGR, 2, 2},
    {"regr_avgx", WF_REGR, 2, 2},
    {"regr_avgy", WF_REGR, 2, 2},
    {"regr_sxx", WF_REGR, 2, 2},
    {"regr_syy", WF_REGR, 2, 2},
    {"regr_sxy", WF_REGR, 2, 2},
    {"regr_count", WF_REGR_COUNT, 2, 2},
    {"bit_and", WF_BIT_AND, 1, 1},
    {"bit_or", WF_BIT_OR, 1, 1},
    {"bit_xor", WF_BIT_XOR, 1, 1},
};

static enum wf_kind kind_of(const lm_wf_call *c, int *lo, int *hi) {
  for (size_t i = 0; i < sizeof k_fns / sizeof k_fns[0]; i++)
    if (!strcmp(c->fn, k_fns[i].name)) {
      *lo = k_fns[i].min_args;
      *hi = k_fns[i].max_args;
      return k_fns[i].kind;
    }
  return WF_UNKNOWN;
}

static bool is_int_type(lm_type_id t) {
  switch (t) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_NULL:
    return true;
  default:
    return false;
  }
}

int lm_window_fn_type(const lm_wf_call *c, lm_type *out, lm_error *err) {
  int lo = 0, hi = 0;
  enum wf_kind k = kind_of(c, &lo, &hi);
  if (k == WF_UNKNOWN)
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "function %s() is not a window or aggregate function "
                     "usable with OVER",
                     c->fn);
  int na = c->count_star ? 0 : c->n_args;
  if (na > 0 && hi == 0 &&
      (!strcmp(c->fn, "rank") || !strcmp(c->fn, "dense_rank") ||
       !strcmp(c->fn, "percent_rank") || !strcmp(c->fn, "cume_dist"))) {
    /* rank(x): PostgreSQL's hypothetical-set aggregate, 42809 */
    lm_err_at(err, LM_ERR_BIND, c->line, c->column,
              "WITHIN GROUP is required for ordered-set aggregate %s", c->fn);
    return lm_err_state(err, "42809");
  }
  if (na < lo || na > hi)
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "%s() takes %d to %d arguments, found %d", c->fn, lo, hi,
                     na);
  lm_type t = na ? c->args[0]->type : lm_type_make(LM_TYPE_INT64);
  switch (k) {
  case WF_ROW_NUMBER:
  case WF_RANK:
  case WF_DENSE_RANK:
  case WF_NTILE:
  case WF_COUNT:
    *out = lm_type_make(LM_TYPE_INT64);
    return 0;
  case WF_VAR_SAMP:
  case WF_VAR_POP:
  case WF_STDDEV_SAMP:
  case WF_STDDEV_POP:
    if (is_int_type(t.id) || t.id == LM_TYPE_DECIMAL128) {
      /* numeric from exact sums, as the GROUP BY aggregate (binder.c:
       * the scale max(16, 2s)) */
      int sc = t.id == LM_TYPE_DECIMAL128 ? 2 * t.scale : 0;
      *out = lm_type_decimal128(38, sc > 16 ? (sc > 38 ? 38 : sc) : 16);
      return 0;
    }
    if (!is_float_type(t.id))
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "%s() OVER (...) of %s is not supported", c->fn,
                       lm_type_name(t));
    *out = lm_type_make(LM_TYPE_FLOAT64);
    return 0;
  case WF_REGR:
  case WF_REGR_COUNT:
    for (int i = 0; i < 2; i++) {
      lm_type_id ai = c->args[i]->type.id;
      if (!is_int_type(ai) && !is_float_type(ai) && ai != LM_TYPE_DECIMAL128)
        return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                         "%s() OVER (...) takes numbers, found %s", c->fn,
                         lm_type_name(c->args[i]->type));
    }
    *out = lm_type_make(k == WF_REGR ? LM_TYPE_FLOAT64 : LM_TYPE_INT64);
    return 0;
  case WF_BIT_AND:
  case WF_BIT_OR:
  case WF_BIT_XOR:
    if (!is_int_type(t.id))
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "%s() OVER (...) takes an integer, found %s", c->fn,
                       lm_type_name(t));
    *out = t.id == LM_TYPE_NULL ? lm_type_make(LM_TYPE_INT64) : t;
    return 0;
  case WF_PERCENT_RANK:
  case WF_CUME_DIST:
  case WF_AVG:
    if (k == WF_AVG && t.id == LM_TYPE_INTERVAL_MDN) {
      *out = t; /* interval_avg: the months interval sum / count */
      return 0;
    }
    if (!is_int_type(t.id) && !is_float_type(t.id) && k != WF_PERCENT_RANK &&
        k != WF_CUME_DIST && !(k == WF_AVG && t.id == LM_TYPE_DECIMAL128))
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "%s() OVER (...) of %s is not supported", c->fn,
                       lm_type_name(t));
    /* avg of integers and DECIMAL: numeric, as the GROUP BY aggregate
     * (sum / count at the division's scale: docs/aggregates.md) */
    if (k == WF_AVG && t.id == LM_TYPE_DECIMAL128) {
      int s = t.scale > 16 ? t.scale : 16;
      *out = lm_type_decimal128(38, s > 37 ? 37 : s);
    } else {
      *out = k == WF_AVG && is_int_type(t.id) ? lm_type_decimal128(38, 16)
                                              : lm_type_make(LM_TYPE_FLOAT64);
    }
    return 0;
  case WF_SUM:
    if (is_float_type(t.id))
      *out = lm_type_make(LM_TYPE_FLOAT64);
    else if (t.id == LM_TYPE_INTERVAL || t.id == LM_TYPE_INTERVAL_MDN)
      *out = t; /* months: msum / dsum / isum (interval_pl) */
    else if (t.id == LM_TYPE_INT8 || t.id == LM_TYPE_INT16 ||
             t.id == LM_TYPE_INT32)
      *out = lm_type_make(LM_TYPE_INT64);
    else if (is_int_type(t.id)) /* sum(int8) is numeric */
      *out = lm_type_decimal128(38, 0);
    else if (t.id == LM_TYPE_DECIMAL128) /* numeric at the input's scale */
      *out = lm_type_decimal128(38, t.scale);
    else
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "sum() OVER (...) of %s is not supported",
                       lm_type_name(t));
    return 0;
  case WF_BOOL_AND:
  case WF_BOOL_OR:
    if (t.id != LM_TYPE_BOOL && t.id != LM_TYPE_NULL)
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "%s() needs a BOOLEAN argument, found %s", c->fn,
                       lm_type_name(t));
    *out = lm_type_make(LM_TYPE_BOOL);
    return 0;
  case WF_STRING_AGG:
    for (int i = 0; i < 2; i++)
      if (c->args[i]->type.id != LM_TYPE_UTF8 &&
          c->args[i]->type.id != LM_TYPE_NULL)
        return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                         "string_agg() OVER (...) takes text arguments, "
                         "found %s",
                         lm_type_name(c->args[i]->type));
    *out = lm_type_make(LM_TYPE_UTF8);
    return 0;
  case WF_NTH:
  case WF_LAG:
  case WF_LEAD:
    if (na >= 2 && !is_int_type(c->args[1]->type.id))
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "%s()'s second argument must be an integer, found %s",
                       c->fn, lm_type_name(c->args[1]->type));
    *out = t;
    return 0;
  default:
    *out = t;
    return 0;
  }
}

/* ----------------------------------------------------------- frames */

/* The value of an order key as a long double on one scale (DATE32 in
 * µs, so INTERVAL offsets apply). */
static long double key_val(const lm_array *a, int64_t i) {
  if (is_float_type(a->type.id))
    return (long double)lm_array_get_f64(a, i);
  int64_t v = lm_array_get_i64(a, i);
  if (a->type.id == LM_TYPE_DATE32)
    return (long double)v * 86400e6L;
  return (long double)v;
}

/* A frame offset (row 0 of o) as a long double; errors on NULL/negative. */
static int frame_offset(const lm_wf_call *c, const lm_array *o, bool range,
                        long double *out, lm_error *err) {
  if (!o || o->length < 1 || is_null_at(o, 0))
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "frame starting or ending offset must not be null");
  long double v;
  if (is_float_type(o->type.id))
    v = (long double)lm_array_get_f64(o, 0);
  else if (is_int_type(o->type.id) || o->type.id == LM_TYPE_INTERVAL ||
           o->type.id == LM_TYPE_INT64)
    v = (long double)lm_array_get_i64(o, 0);
  else if (o->type.id == LM_TYPE_DECIMAL128 && range)
    v = (long double)lm_dec_get(o, 0) / powl(10.0L, o->type.scale);
  else
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "frame offset of type %s is not supported",
                     lm_pg_type_name(o->type));
  if (!range && !is_int_type(o->type.id))
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "ROWS and GROUPS frame offsets must be integers");
  if (v < 0)
    return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                     "frame starting or ending offset must not be negative");
  *out = v;
  return 0;
}

/* --------------------------------------------------------- accumulators */

typedef struct acc {
  enum wf_kind k;
  const lm_array *a;
  const int32_t *perm;
  int64_t cnt;
  /* integer sums; DECIMAL sums of the unscaled values, exact as
   * ihi * 2^128 + isum (a sum passing 128 bits while the frame slides) */
  __int128 isum;
  int64_t ihi;
  /* INTERVAL_MDN sums: its months and days (its µs in isum) */
  __int128 msum, dsum;
  double fsum, fcomp; /* Neumaier-compensated float sum (finite values) */
  double flost;       /* a bound on what fcomp's own rounding lost */
  int64_t n_nan, n_pinf, n_ninf; /* non-finite values in the frame */
  /* PostgreSQL's own float state while the frame only grew since the
   * reset (float8pl for SUM; float8_accum's Sx, Sxx for AVG, pn values):
   * ovf when finite values overflow it (its 22003); after a removal, the
   * finite sum no longer finite is the overflow */
  double psx, psxx;
  int64_t pn;
  bool shrunk, ovf;
  long double sx, sxx;
  /* numeric VAR / STDDEV: the exact sum of the squares of the unscaled
   * values, sqhi * 2^128 + sq, and the values whose square passes 128
   * bits (the sum of the values is isum / ihi) */
  __int128 sq;
  int64_t sqhi, nbig;
  int64_t n_true;
  /* MIN/MAX: a monotonic deque of positions (into perm) */
  int64_t *dq;
  int64_t dh, dt;
} acc;

static void acc_reset(acc *s) {
  s->cnt = 0;
  s->isum = 0;
  s->ihi = 0;
  s->msum = s->dsum = 0;
  s->fsum = s->fcomp = s->flost = 0;
  s->n_nan = s->n_pinf = s->n_ninf = 0;
  s->psx = s->psxx = 0;
  s->pn = 0;
  s->shrunk = s->ovf = false;
  s->sx = s->sxx = 0;
  s->sq = 0;
  s->sqhi = s->nbig = 0;
  s->n_true = 0;
  s->dh = s->dt = 0;
}

/* Adds (dir = 1) or removes (dir = -1) v. NaN and ±Infinity are counted,
 * not summed (as PostgreSQL's float8 moving aggregates), so the sum is
 * right again once they leave the frame. */
static void acc_fadd(acc *s, double v, int dir) {
  if (dir > 0 && !s->shrunk) { /* PostgreSQL's step (agg_table.c's too) */
    double sx0 = s->psx, sx = sx0 + v, nn = (double)s->pn + 1;
    if (s->pn == 0) {
      sx = v;
      s->psxx = isfinite(v) ? 0 : NAN;
    } else if (s->k == WF_AVG) {
      double tmp = v * nn - sx;
      s->psxx += tmp * tmp / (nn * (double)s->pn);
      if ((isinf(sx) || isinf(s->psxx)) && !isinf(sx0) && !isinf(v))
        s->ovf = true;
      if (isinf(sx) || isinf(s->psxx))
        s->psxx = NAN;
    } else if (isinf(sx) && !isinf(sx0) && !isinf(v)) {
      s->ovf = true;
    }
    s->psx = sx;
    s->pn++;
  } else if (dir < 0) {
    s->shrunk = true;
  }
  if (!isfinite(v)) {
    int64_t *n = isnan(v) ? &s->n_nan : v > 0 ? &s->n_pinf : &s->n_ninf;
    *n += dir;
    return;
  }
  if (dir < 0)
    v = -v;
  double t = s->fsum + v;
  double e = fabs(s->fsum) >= fabs(v) ? (s->fsum - t) + v : (v - t) + s->fsum;
  double z = s->fcomp + e, bv = z - s->fcomp, av = z - bv;
  s->flost += fabs((s->fcomp - av) + (e - bv)); /* z's rounding (TwoSum) */
  s->fcomp = z;
  s->fsum = t;
}

/* Whether the rounding the compensated float sum could not hold may show
 * in it (more than 2^-50 of it, or not finite): after a large value left
 * the frame. The frame is then summed again from its rows. */
static bool acc_fdrift(const acc *s) {
  double v = s->fsum + s->fcomp;
  return s->flost != 0 && (!isfinite(s->flost) || !isfinite(v) ||
                           !(s->flost * 0x1p50 <= fabs(v)));
}

/* Whether the frame's finite float values overflow a double, as
 * PostgreSQL's SUM / AVG report it (22003). */
static bool acc_foverflow(const acc *s) {
  if (!s->shrunk)
    return s->ovf;
  return !s->n_nan && !s->n_pinf && !s->n_ninf &&
         !(isfinite(s->fsum) && isfinite(s->fcomp) &&
           isfinite(s->fsum + s->fcomp));
}

/* The frame's float sum: NaN with a NaN or both infinities in it, else
 * the infinity in it, else the compensated finite sum. */
static double acc_fsum(const acc *s) {
  if (s->n_nan || (s->n_pinf && s->n_ninf))
    return NAN;
  if (s->n_pinf)
    return INFINITY;
  if (s->n_ninf)
    return -INFINITY;
  return s->fsum + s->fcomp;
}

/* Adds (dir 1) or removes (dir -1) an unscaled DECIMAL value v to the
 * exact sum ihi * 2^128 + isum. */
static void acc_dadd(acc *s, __int128 v, int dir) {
  if (lm_dec_is_special(v)) { /* DECIMAL NaN / ±Infinity: counted apart */
    if (v == LM_DEC_NAN)
      s->n_nan += dir;
    else if (v > 0)
      s->n_pinf += dir;
    else
      s->n_ninf += dir;
    return;
  }
  bool o = dir > 0 ? __builtin_add_overflow(s->isum, v, &s->isum)
                   : __builtin_sub_overflow(s->isum, v, &s->isum);
  if (o)
    s->ihi += (dir > 0) == (v > 0) ? 1 : -1;
}

/* Adds (dir 1) or removes (dir -1) an integer / DECIMAL value v (unscaled)
 * to a numeric VAR / STDDEV's exact sums. */
static void acc_vadd(acc *s, __int128 v, int dir) {
  __int128 q;
  acc_dadd(s, v, dir);
  if (lm_dec_is_special(v))
    return;
  if (__builtin_mul_overflow(v, v, &q)) {
    s->nbig += dir;
    return;
  }
  bool o = dir > 0 ? __builtin_add_overflow(s->sq, q, &s->sq)
                   : __builtin_sub_overflow(s->sq, q, &s->sq);
  if (o)
    s->sqhi += dir;
}

/* An integer or DECIMAL value of a, unscaled. */
static __int128 int_val(const lm_array *a, int64_t r) {
  return a->type.id == LM_TYPE_DECIMAL128 ? lm_dec_get(a, r)
                                          : (__int128)lm_array_get_i64(a, r);
}

/* The frame's DECIMAL special sum (NaN over a NaN or both infinities,
 * else ±Infinity, PostgreSQL's numeric_sum), or 0 when it has none. */
static __int128 acc_dec_special(const acc *s) {
  if (s->n_nan > 0 || (s->n_pinf > 0 && s->n_ninf > 0))
    return LM_DEC_NAN;
  return s->n_pinf > 0 ? LM_DEC_PINF : s->n_ninf > 0 ? LM_DEC_NINF : 0;
}

/* Whether the frame's exact integer / DECIMAL sum is a numeric of at most
 * 38 digits (else 22003, numeric field overflow). */
static bool acc_dec_fits(const acc *s) {
  return s->ihi == 0 && lm_dec_fits(s->isum, LM_DEC_MAX_DIGITS);
}

/* Adds (dir 1) or removes (dir -1) row r of an INTERVAL_MDN array: its
 * months, days and µs summed apart, as PostgreSQL's interval_pl. */
static void acc_ivadd(acc *s, int64_t r, int dir) {
  lm_iv v = lm_iv_at(s->a, r);
  s->msum += dir * (__int128)v.months;
  s->dsum += dir * (__int128)v.days;
  s->isum += dir * (__int128)v.us;
}

/* The months interval of s's sums (avg: divided by its count, as
 * interval_div) packed as a 16-byte INTERVAL_MDN slot into *out; -1 out
 * of range (22008). */
static int acc_ivresult(const acc *s, bool avg, lm_i128 *out) {
  if (s->msum > INT32_MAX || s->msum < INT32_MIN || s->dsum > INT32_MAX ||
      s->dsum < INT32_MIN || s->isum > INT64_MAX / 1000 ||
      s->isum < INT64_MIN / 1000)
    return -1;
  lm_iv v = {(int32_t)s->msum, (int32_t)s->dsum, (int64_t)s->isum}, q = v;
  if (avg && lm_iv_mul(&v, (double)s->cnt, true, &q))
    return -1;
  return lm_iv_store(out, &q);
}

static void acc_add(acc *s, int64_t pos, bool count_star) {
  if (count_star) {
    s->cnt++;
    return;
  }
  int64_t r = s->perm[pos];
  if (is_null_at(s->a, r))
    return;
  s->cnt++;
  switch (s->k) {
  case WF_SUM:
  case WF_AVG:
    if (is_float_type(s->a->type.id))
      acc_fadd(s, lm_array_get_f64(s->a, r), 1);
    else if (s->a->type.id == LM_TYPE_DECIMAL128)
      acc_dadd(s, lm_dec_get(s->a, r), 1);
    else if (s->a->type.id == LM_TYPE_INTERVAL_MDN)
      acc_ivadd(s, r, 1);
    else
      s->isum += lm_array_get_i64(s->a, r);
    break;
  case WF_VAR_SAMP:
  case WF_VAR_POP:
  case WF_STDDEV_SAMP:
  case WF_STDDEV_POP:
    acc_vadd(s, int_val(s->a, r), 1); /* floats: window_stat.c */
    break;
  case WF_BOOL_AND:
  case WF_BOOL_OR:
    s->n_true += lm_array_bool(s->a, r);
    break;
  case WF_MIN:
  case WF_MAX: {
    int sign = s->k == WF_MIN ? 1 : -1;
    /* equal months intervals ('1 mon', '30 days'), 0 and -0: the later
     * one, as PostgreSQL's interval_smaller / float8smaller ... */
    int tie =
        s->a->type.id == LM_TYPE_INTERVAL_MDN || is_float_type(s->a->type.id)
            ? 0
            : 1;
    while (s->dt > s->dh &&
           sign * cmp_val(s->a, s->perm[s->dq[s->dt - 1]], r) >= tie)
      s->dt--;
    s->dq[s->dt++] = pos;
    break;
  }
  default:
    break;
  }
}

static void acc_remove(acc *s, int64_t pos, bool count_star) {
  if (count_star) {
    s->cnt--;
    return;
  }
  int64_t r = s->perm[pos];
  if (is_null_at(s->a, r))
    return;
  s->cnt--;
  switch (s->k) {
  case WF_SUM:
  case WF_AVG:
    if (is_float_type(s->a->type.id))
      acc_fadd(s, lm_array_get_f64(s->a, r), -1);
    else if (s->a->type.id == LM_TYPE_DECIMAL128)
      acc_dadd(s, lm_dec_get(s->a, r), -1);
    else if (s->a->type.id == LM_TYPE_INTERVAL_MDN)
      acc_ivadd(s, r, -1);
    else
      s->isum -= lm_array_get_i64(s->a, r);
    break;
  case WF_VAR_SAMP:
  case WF_VAR_POP:
  case WF_STDDEV_SAMP:
  case WF_STDDEV_POP:
    acc_vadd(s, int_val(s->a, r), -1);
    break;
  case WF_BOOL_AND:
  case WF_BOOL_OR:
    s->n_true -= lm_array_bool(s->a, r);
    break;
  case WF_MIN:
  case WF_MAX:
    if (s->dt > s->dh && s->dq[s->dh] == pos)
      s->dh++;
    break;
  default:
    break;
  }
}

/* Slides s from positions [*cs, *ce) to [fs, fe): rows enter at the end
 * and leave at the start; a frame that does not overlap the old one, or
 * that shrinks from the end, or a float sum that may have drifted, is
 * summed again from its rows. */
static void acc_slide(acc *s, int64_t *cs, int64_t *ce, int64_t fs, int64_t fe,
                      bool count_star) {
  if (fs >= *ce || fs < *cs) {
    acc_reset(s);
    *cs = *ce = fs;
  }
  while (*ce < fe)
    acc_add(s, (*ce)++, count_star);
  while (*cs < fs)
    acc_remove(s, (*cs)++, count_star);
  if (*ce > fe || (s->shrunk && acc_fdrift(s))) {
    acc_reset(s);
    *cs = *ce = fs;
    while (*ce < fe)
      acc_add(s, (*ce)++, count_star);
  }
}

/* Adds the rows of accumulator b to m (not MIN / MAX, whose deques are
 * compared by the caller): the frame of an EXCLUDE is two runs of rows,
 * one accumulator each. m's float sum is then the compensated sum of
 * both (its overflow the finite sum's, as after a removal). */
static void acc_merge(acc *m, const acc *b) {
  m->shrunk = true;
  m->cnt += b->cnt;
  acc_dadd(m, b->isum, 1);
  m->ihi += b->ihi;
  m->msum += b->msum;
  m->dsum += b->dsum;
  if (b->fsum != 0)
    acc_fadd(m, b->fsum, 1);
  if (b->fcomp != 0)
    acc_fadd(m, b->fcomp, 1);
  m->flost += b->flost;
  m->n_nan += b->n_nan;
  m->n_pinf += b->n_pinf;
  m->n_ninf += b->n_ninf;
  m->sx += b->sx;
  m->sxx += b->sxx;
  if (__builtin_add_overflow(m->sq, b->sq, &m->sq))
    m->sqhi += b->sq > 0 ? 1 : -1;
  m->sqhi += b->sqhi;
  m->nbig += b->nbig;
  m->n_true += b->n_true;
}

/* The text of row `row` of a (a CHAR(n) without its padding, as
 * PostgreSQL's cast to text). */
static const char *text_at(const lm_array *a, int64_t row, int32_t *len) {
  const char *p = lm_array_str(a, row, len);
  if (lm_type_is_bpchar(a->type))
    while (*len > 0 && p[*len - 1] == ' ')
      (*len)--;
  return p;
}

/* string_agg(v, d) over positions [from, to) of perm appended to o, as
 * PostgreSQL's string_agg_transfn: NULL values are skipped, each value
 * after the first is preceded by its own row's delimiter (none when it
 * is NULL); *any tells whether a value was written. */
static int sagg_run(lm_buf *o, const lm_wf_call *c, const int32_t *perm,
                    int64_t from, int64_t to, bool *any) {
  for (int64_t q = from; q < to; q++) {
    int32_t row = perm[q], l;
    if (is_null_at(c->args[0], row))
      continue;
    if (*any && !is_null_at(c->args[1], row)) {
      const char *d = text_at(c->args[1], row, &l);
      if (lm_buf_append(o, d, (size_t)l))
        return LM_ERR_NOMEM;
    }
    const char *v = text_at(c->args[0], row, &l);
    if (lm_buf_append(o, v, (size_t)l))
      return LM_ERR_NOMEM;
    *any = true;
  }
  return 0;
}

/* ------------------------------------------------------------- output */

typedef struct res {
  int64_t *i;   /* INT64 / INTERVAL results (by original row) */
  double *f;    /* FLOAT64 results */
  int32_t *src; /* take index (-1 = NULL) for value-returning functions */
  uint8_t *null;
  lm_i128 *d; /* DECIMAL128 results (numeric SUM / AVG), or NULL */
} res;

/* A RANGE frame offset: its value (numbers, µs for INTERVAL), and for a
 * DECIMAL key the offset exact at the key's comparison scale (d), for a
 * TIMESTAMPTZ key the whole days written in the offset (days, moved in the
 * session zone's local time). */
typedef struct range_off {
  long double v;
  __int128 d;
  int64_t days;
} range_off;

/* The current row of a RANGE frame: its order key column `ok` (NULL
 * without ORDER BY), direction, the partition's positions perm sorted by
 * it with the non-NULL keys at [vs, ve), its key value v, and whether the
 * key is NULL. A DECIMAL key (dec) compares exactly: its value dv and the
 * bounds at scale dscale (>= the key's). A TIMESTAMPTZ key (tz set) moves
 * by an offset's days in zone tz. */
typedef struct range_key {
  const lm_array *ok;
  bool desc;
  const int32_t *perm;
  int64_t vs, ve;
  long double v;
  bool null;
  bool dec;
  int dscale;
  __int128 dv;
  const lm_tz *tz;
} range_key;

/* x (a DECIMAL at scale dscale - up) compared to b (at dscale): -1, 0, 1. */
static int dec_cmp_up(__int128 x, int up, __int128 b) {
  __int128 xs;
  if (__builtin_mul_overflow(x, lm_dec_pow10(up), &xs))
    return x < 0 ? -1 : 1; /* beyond any bound that fits */
  return xs < b ? -1 : xs > b;
}

/* Binary search in positions [k->vs, k->ve) of the key's sorted positions
 * (by the call's direction): the first position whose key is not "before"
 * the bound (v, or dv for a DECIMAL key; strict: the first position
 * strictly after it). */
static int64_t range_search(const range_key *k, long double v, __int128 dv,
                            bool strict) {
  int64_t lo = k->vs, hi = k->ve;
  int up = k->dec ? k->dscale - k->ok->type.scale : 0;
  while (lo < hi) {
    int64_t m = lo + (hi - lo) / 2;
    bool before;
    if (k->dec) {
      int c = dec_cmp_up(lm_dec_get(k->ok, k->perm[m]), up, dv);
      if (k->desc)
        c = -c;
      before = strict ? c <= 0 : c < 0;
    } else {
      long double x = key_val(k->ok, k->perm[m]);
      before = k->desc ? (strict ? x >= v : x > v) : (strict ? x <= v : x < v);
    }
    if (before)
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}

/* The instant `ts` (UTC µs) moved by sign * (days, us) as PostgreSQL's
 * timestamptz_pl_interval / _mi_interval (lm_ts_plus_iv: the days in zone
 * z's local time, a day across a DST change being 23 or 25 hours, then the
 * µs). The one place a RANGE frame bound over a TIMESTAMPTZ key is
 * computed. Saturates at the ends of the int64 range. */
static int64_t tstz_move(int64_t ts, int sign, int64_t days, int64_t us,
                         const lm_tz *z) {
  int64_t r;
  bool up = (days > 0 || (days == 0 && us > 0)) == (sign > 0);
  if (days > INT32_MAX || days < -INT32_MAX ||
      lm_ts_plus_iv(ts, &(lm_iv){0, (int32_t)days, us}, sign, z, &r))
    return up ? INT64_MAX : INT64_MIN;
  return r;
}

/* The position of a RANGE frame bound of kind bk with offset off: CURRENT
 * ROW (and an offset from a NULL key) is the row's peer boundary `peer`;
 * an offset searches the keys (strict: the end, past the last key within
 * the offset); other kinds keep `dflt`. */
static int64_t range_bound(const range_key *k, lm_frame_bound_kind bk,
                           const range_off *off, int64_t peer, int64_t dflt,
                           bool strict) {
  switch (bk) {
  case LM_BOUND_CURRENT_ROW:
    return peer;
  case LM_BOUND_PRECEDING:
  case LM_BOUND_FOLLOWING: {
    if (k->null)
      return peer;
    bool pre = bk == LM_BOUND_PRECEDING;
    int sign = (pre != k->desc) ? -1 : 1;
    if (k->dec) {
      __int128 b; /* saturated: beyond every key */
      if (__builtin_add_overflow(k->dv, sign * off->d, &b))
        return (sign > 0) != k->desc ? k->ve : k->vs;
      return range_search(k, 0, b, strict);
    }
    long double b = k->v + sign * off->v;
    if (k->tz && off->days)
      b = (long double)tstz_move((int64_t)k->v, sign, off->days,
                                 (int64_t)off->v - off->days * LM_US_PER_DAY,
                                 k->tz);
    return range_search(k, b, 0, strict);
  }
  default:
    return dflt;
  }
}

/* The offsets of a RANGE frame over a DECIMAL key, exact: *dscale is the
 * larger of the key's and the offsets' scales, ro_s->d / ro_e->d the
 * offsets at it. An integer or DECIMAL offset (PostgreSQL's in_range for
 * numeric); another type, or a key or offset beyond 38 digits at that
 * scale, is an error. */
static int dec_offsets(const lm_wf_call *c, bool so, bool eo, int *dscale,
                       range_off *ro_s, range_off *ro_e, lm_error *err) {
  const lm_array *o[2] = {so ? c->start_off : NULL, eo ? c->end_off : NULL};
  range_off *ro[2] = {ro_s, ro_e};
  int ks = c->order[0]->type.scale, ds = ks;
  __int128 fv[2] = {0, 0}; /* a float offset (a literal 0.5) as numeric */
  int fs[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    if (!o[i])
      continue;
    if (is_float_type(o[i]->type.id)) {
      /* its 15 significant digits, as PostgreSQL's float8 -> numeric */
      char buf[64];
      int len = snprintf(buf, sizeof buf, "%.15g", lm_array_get_f64(o[i], 0));
      /* its digits after the point: the fraction's, less the exponent */
      const char *dot = strchr(buf, '.'), *ex = strchr(buf, 'e');
      int fd = dot ? (int)((ex ? ex : buf + len) - dot - 1) : 0;
      if (ex)
        fd -= atoi(ex + 1);
      fs[i] = fd < 0 ? 0 : fd > 37 ? 37 : fd;
      if (lm_dec_parse(buf, (size_t)len, fs[i], &fv[i], NULL)) {
        lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                  "numeric field overflow");
        return lm_err_state(err, "22003");
      }
      if (fs[i] > ds)
        ds = fs[i];
    } else if (o[i]->type.id == LM_TYPE_DECIMAL128) {
      if (o[i]->type.scale > ds)
        ds = o[i]->type.scale;
    } else if (!is_int_type(o[i]->type.id)) {
      lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                "RANGE with offset PRECEDING/FOLLOWING is not supported for "
                "column type numeric and offset type %s",
                lm_type_name(o[i]->type));
      return lm_err_state(err, "0A000");
    }
  }
  for (int i = 0; i < 2; i++) {
    if (!o[i])
      continue;
    bool d = o[i]->type.id == LM_TYPE_DECIMAL128;
    bool f = is_float_type(o[i]->type.id);
    __int128 v = f   ? fv[i]
                 : d ? lm_dec_get(o[i], 0)
                     : (__int128)lm_array_get_i64(o[i], 0);
    if (lm_dec_rescale(v, d ? o[i]->type.scale : fs[i], ds, &ro[i]->d)) {
      lm_err_at(err, LM_ERR_EXEC, c->line, c->column, "numeric field overflow");
      return lm_err_state(err, "22003");
    }
  }
  /* every key must fit 38 digits at the common scale */
  const lm_array *k = c->order[0];
  if (ds > ks)
    for (int64_t i = 0; i < k->length; i++) {
      __int128 x;
      if (!is_null_at(k, i) &&
          __builtin_mul_overflow(lm_dec_get(k, i), lm_dec_pow10(ds - ks), &x)) {
        lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                  "numeric field overflow");
        return lm_err_state(err, "22003");
      }
    }
  *dscale = ds;
  return 0;
}

int lm_window_fn_eval(const lm_wf_call *c, int64_t n, lm_array **out,
                      lm_error *err) {
  lm_type t;
  int rc = lm_window_fn_type(c, &t, err);
  if (rc)
    return rc;
  int lo_a = 0, hi_a = 0;
  enum wf_kind k = kind_of(c, &lo_a, &hi_a);
  bool range = c->has_frame && c->unit == LM_FRAME_RANGE;
  long double off_s = 0, off_e = 0;
  range_off ro_s = {0}, ro_e = {0};
  bool dec_key = false; /* a DECIMAL RANGE key: exact bounds at dscale */
  int dscale = 0;
  const lm_tz *ktz = NULL; /* a TIMESTAMPTZ RANGE key: the session zone */
  if (c->has_frame) {
    if (c->start == LM_BOUND_UNBOUNDED_FOLLOWING)
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "frame start cannot be UNBOUNDED FOLLOWING");
    if (c->end == LM_BOUND_UNBOUNDED_PRECEDING)
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "frame end cannot be UNBOUNDED PRECEDING");
    if ((c->start == LM_BOUND_CURRENT_ROW && c->end == LM_BOUND_PRECEDING) ||
        (c->start == LM_BOUND_FOLLOWING &&
         (c->end == LM_BOUND_PRECEDING || c->end == LM_BOUND_CURRENT_ROW)))
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       c->start == LM_BOUND_CURRENT_ROW
                           ? "frame starting from current row cannot have "
                             "preceding rows"
                           : "frame starting from following row cannot have "
                             "preceding rows");
    bool so = c->start == LM_BOUND_PRECEDING || c->start == LM_BOUND_FOLLOWING;
    bool eo = c->end == LM_BOUND_PRECEDING || c->end == LM_BOUND_FOLLOWING;
    /* the offsets are evaluated per row of the input: with no rows there
     * is no value to check and no frame to compute (PostgreSQL evaluates
     * them only when it runs the window) */
    if (so && n > 0 && (rc = frame_offset(c, c->start_off, range, &off_s, err)))
      return rc;
    if (eo && n > 0 && (rc = frame_offset(c, c->end_off, range, &off_e, err)))
      return rc;
    if (range && (so || eo)) {
      if (c->n_order != 1)
        return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                         "RANGE with offset PRECEDING/FOLLOWING requires "
                         "exactly one ORDER BY column");
      lm_type_id ot = c->order[0]->type.id;
      if (!is_int_type(ot) && !is_float_type(ot) && ot != LM_TYPE_TIMESTAMP &&
          ot != LM_TYPE_DATE32 && ot != LM_TYPE_INTERVAL &&
          ot != LM_TYPE_DECIMAL128)
        return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                         "RANGE with offset PRECEDING/FOLLOWING is not "
                         "supported for column type %s",
                         lm_type_name(c->order[0]->type));
      if (lm_type_is_tstz(c->order[0]->type))
        ktz = lm_tz_session();
      if (ot == LM_TYPE_DECIMAL128 && n > 0 &&
          (rc = dec_offsets(c, so, eo, &dscale, &ro_s, &ro_e, err)))
        return rc;
      dec_key = ot == LM_TYPE_DECIMAL128;
    }
    if (c->unit == LM_FRAME_GROUPS && c->n_order == 0)
      return lm_err_at(err, LM_ERR_BIND, c->line, c->column,
                       "GROUPS mode requires an ORDER BY clause");
  }
  ro_s.v = off_s;
  ro_e.v = off_e;
  ro_s.days = c->start_days;
  ro_e.days = c->end_days;
  int32_t *perm = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *tmp = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int64_t *pgs = malloc(sizeof(int64_t) * (size_t)(n + 1)); /* peer start */
  int64_t *pge = malloc(sizeof(int64_t) * (size_t)(n + 1)); /* peer end */
  int64_t *gi = malloc(sizeof(int64_t) * (size_t)(n + 1));  /* peer group */
  int64_t *gst = malloc(sizeof(int64_t) * (size_t)(n + 2)); /* group starts */
  int64_t *dq = malloc(sizeof(int64_t) * (size_t)(n + 1));
  bool ex = c->has_frame && c->exclude != LM_EXCLUDE_NO_OTHERS;
  int64_t *dq2 = ex ? malloc(sizeof(int64_t) * (size_t)(n + 1)) : NULL;
  lm_buf sb; /* string_agg: the results' text (r.i start, r.src length) */
  lm_buf_init(&sb);
  res r = {malloc(sizeof(int64_t) * (size_t)(n + 1)),
           malloc(sizeof(double) * (size_t)(n + 1)),
           malloc(sizeof(int32_t) * (size_t)(n + 1)), calloc((size_t)n + 1, 1),
           t.id == LM_TYPE_DECIMAL128 || t.id == LM_TYPE_INTERVAL_MDN
               ? malloc(sizeof(lm_i128) * (size_t)(n + 1))
               : NULL};
  if (!perm || !tmp || !pgs || !pge || !gi || !gst || !dq || !r.i || !r.f ||
      !r.src || !r.null || (ex && !dq2) ||
      ((t.id == LM_TYPE_DECIMAL128 || t.id == LM_TYPE_INTERVAL_MDN) && !r.d)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++)
    perm[i] = (int32_t)i;
  merge_sort(c, perm, tmp, n);
  const lm_array *a0 = c->n_args ? c->args[0] : NULL;
  acc s = {.k = k, .a = a0, .perm = perm, .dq = dq};
  acc s2 = {.k = k, .a = a0, .perm = perm, .dq = dq2}; /* EXCLUDE's 2nd run */
  /* aggregates PostgreSQL restarts (no inverse transition): window_stat.c;
   * [wbase, wupto) the positions aggregated */
  bool fvar = (k == WF_VAR_SAMP || k == WF_VAR_POP || k == WF_STDDEV_SAMP ||
               k == WF_STDDEV_POP) &&
              is_float_type(a0->type.id);
  bool ws_on = fvar || k == WF_REGR || k == WF_REGR_COUNT || k == WF_BIT_AND ||
               k == WF_BIT_OR || k == WF_BIT_XOR;
  lm_wstat ws = {.y = a0,
                 .x = k == WF_REGR || k == WF_REGR_COUNT ? c->args[1] : NULL};
  ws.kind = k == WF_VAR_POP       ? LM_WS_VAR_POP
            : k == WF_VAR_SAMP    ? LM_WS_VAR_SAMP
            : k == WF_STDDEV_POP  ? LM_WS_STDDEV_POP
            : k == WF_STDDEV_SAMP ? LM_WS_STDDEV_SAMP
            : k == WF_REGR        ? LM_WS_REGR
            : k == WF_REGR_COUNT  ? LM_WS_REGR_COUNT
            : k == WF_BIT_AND     ? LM_WS_BIT_AND
            : k == WF_BIT_OR      ? LM_WS_BIT_OR
                                  : LM_WS_BIT_XOR;
  if (k == WF_REGR) /* regr_count has no final function */
    ws.regr_fn = (lm_regr_fn)lm_regr_fn_named(c->fn);
  int64_t wbase = 0, wupto = 0;
  for (int64_t ps = 0; ps < n && !rc;) {
    int64_t pe = ps + 1;
    while (pe < n && cmp_part(c, perm[ps], perm[pe]) == 0)
      pe++;
    int64_t np = pe - ps, ng = 0;
    /* peer groups */
    for (int64_t i = ps; i < pe;) {
      int64_t j = i + 1;
      while (j < pe && cmp_order(c, perm[i], perm[j]) == 0)
        j++;
      gst[ng] = i;
      for (int64_t q = i; q < j; q++) {
        pgs[q] = i;
        pge[q] = j;
        gi[q] = ng;
      }
      ng++;
      i = j;
    }
    gst[ng] = pe;
    acc_reset(&s);
    acc_reset(&s2);
    int64_t cs = ps, ce = ps;   /* accumulator window [cs, ce) */
    int64_t cs2 = ps, ce2 = ps; /* and s2's */
    for (int64_t pos = ps; pos < pe && !rc; pos++) {
      int32_t row = perm[pos];
      switch (k) {
      case WF_ROW_NUMBER:
        r.i[row] = pos - ps + 1;
        continue;
      case WF_RANK:
        r.i[row] = pgs[pos] - ps + 1;
        continue;
      case WF_DENSE_RANK:
        r.i[row] = gi[pos] + 1;
        continue;
      case WF_PERCENT_RANK:
        r.f[row] = np > 1 ? (double)(pgs[pos] - ps) / (double)(np - 1) : 0.0;
        continue;
      case WF_CUME_DIST:
        r.f[row] = (double)(pge[pos] - ps) / (double)np;
        continue;
      case WF_NTILE: {
        if (is_null_at(a0, row)) {
          r.null[row] = 1;
          continue;
        }
        int64_t b = lm_array_get_i64(a0, perm[ps]);
        if (b <= 0) {
          lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                    "argument of ntile must be greater than zero");
          rc = lm_err_state(err, "22014"); /* invalid_argument_for_ntile */
          continue;
        }
        /* PostgreSQL: the first np % b buckets get one extra row */
        int64_t per = np / b, extra = np % b, idx = pos - ps;
        int64_t big = extra * (per + 1);
        r.i[row] = idx < big ? idx / (per + 1) + 1
                             : (per ? extra + (idx - big) / per + 1 : idx + 1);
        continue;
      }
      case WF_LAG:
      case WF_LEAD: {
        int64_t off = 1;
        if (c->n_args >= 2) {
          if (is_null_at(c->args[1], row)) {
            r.src[row] = -1;
            r.i[row] = 0; /* NULL result */
            continue;
          }
          off = lm_array_get_i64(c->args[1], row);
        }
        int64_t q = k == WF_LAG ? pos - off : pos + off;
        if (q >= ps && q < pe) {
          r.src[row] = perm[q];
          r.i[row] = 0;
        } else {
          r.src[row] = -1;
          r.i[row] = c->n_args >= 3 ? 1 : 0; /* 1: take the default */
        }
        continue;
      }
      default:
        break;
      }
      /* a frame: [fs, fe) in positions */
      int64_t fs = ps, fe = pe;
      if (!c->has_frame) {
        fe = c->n_order ? pge[pos] : pe;
      } else if (c->unit == LM_FRAME_ROWS) {
        int64_t os = (int64_t)off_s, oe = (int64_t)off_e;
        switch (c->start) {
        case LM_BOUND_PRECEDING:
          fs = pos - os < ps ? ps : pos - os;
          break;
        case LM_BOUND_CURRENT_ROW:
          fs = pos;
          break;
        case LM_BOUND_FOLLOWING:
          fs = os > pe - pos ? pe : pos + os;
          break;
        default:
          break;
        }
        switch (c->end) {
        case LM_BOUND_PRECEDING:
          fe = pos - oe + 1 < ps ? ps : pos - oe + 1;
          break;
        case LM_BOUND_CURRENT_ROW:
          fe = pos + 1;
          break;
        case LM_BOUND_FOLLOWING:
          fe = oe >= pe - pos ? pe : pos + oe + 1;
          break;
        default:
          break;
        }
      } else if (c->unit == LM_FRAME_GROUPS) {
        int64_t g = gi[pos], os = (int64_t)off_s, oe = (int64_t)off_e;
        switch (c->start) {
        case LM_BOUND_PRECEDING:
          fs = gst[g - os < 0 ? 0 : g - os];
          break;
        case LM_BOUND_CURRENT_ROW:
          fs = pgs[pos];
          break;
        case LM_BOUND_FOLLOWING:
          fs = os >= ng - g ? pe : gst[g + os];
          break;
        default:
          break;
        }
        switch (c->end) {
        case LM_BOUND_PRECEDING:
          fe = g - oe < 0 ? ps : gst[g - oe + 1];
          break;
        case LM_BOUND_CURRENT_ROW:
          fe = pge[pos];
          break;
        case LM_BOUND_FOLLOWING:
          fe = oe >= ng - g ? pe : gst[g + oe + 1];
          break;
        default:
          break;
        }
      } else { /* RANGE */
        const lm_array *ok = c->n_order ? c->order[0] : NULL;
        bool cur_null = ok && is_null_at(ok, row);
        /* the non-NULL positions of the partition: [vs, ve) */
        int64_t vs = ps, ve = pe;
        if (ok) {
          while (vs < pe && is_null_at(ok, perm[vs]))
            vs++;
          while (ve > vs && is_null_at(ok, perm[ve - 1]))
            ve--;
        }
        range_key rk = {.ok = ok,
                        .desc = c->n_order ? c->desc[0] : false,
                        .perm = perm,
                        .vs = vs,
                        .ve = ve,
                        .null = cur_null,
                        .dec = dec_key,
                        .dscale = dscale,
                        .tz = ktz};
        if (ok && !cur_null && dec_key)
          rk.dv = lm_dec_get(ok, row) * lm_dec_pow10(dscale - ok->type.scale);
        else if (ok && !cur_null)
          rk.v = key_val(ok, row);
        fs = range_bound(&rk, c->start, &ro_s, pgs[pos], fs, false);
        fe = range_bound(&rk, c->end, &ro_e, pge[pos], fe, true);
      }
      if (fe < fs)
        fe = fs;
      /* EXCLUDE takes [xs, xe) out of the frame (TIES keeps the current
       * row): the frame is then the runs [fs, ae) and [bs, fe), with the
       * current row between them when kept. Each run's ends only move
       * forward as pos does. */
      int64_t ae = fe, bs = fe;
      bool keep = false;
      if (ex) {
        int64_t xs = c->exclude == LM_EXCLUDE_CURRENT_ROW ? pos : pgs[pos];
        int64_t xe = c->exclude == LM_EXCLUDE_CURRENT_ROW ? pos + 1 : pge[pos];
        ae = xs < fe ? xs : fe;
        if (ae < fs)
          ae = fs;
        bs = xe > fs ? xe : fs;
        if (bs > fe)
          bs = fe;
        keep = c->exclude == LM_EXCLUDE_TIES && pos >= fs && pos < fe;
      }
      int64_t na = ae - fs, nk = keep ? 1 : 0, nfr = na + nk + (fe - bs);
      if (k == WF_FIRST || k == WF_LAST || k == WF_NTH) {
        int64_t j = -1; /* the index into the frame's rows */
        if (k == WF_FIRST)
          j = nfr > 0 ? 0 : -1;
        else if (k == WF_LAST)
          j = nfr - 1;
        else if (!is_null_at(c->args[1], row)) {
          int64_t nth = lm_array_get_i64(c->args[1], row);
          if (nth <= 0) {
            rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                           "argument of nth_value must be greater than "
                           "zero");
            continue;
          }
          j = nth <= nfr ? nth - 1 : -1;
        }
        int64_t q = j < 0         ? -1
                    : j < na      ? fs + j
                    : j < na + nk ? pos
                                  : bs + (j - na - nk);
        r.src[row] = q < 0 ? -1 : perm[q];
        r.i[row] = 0;
        continue;
      }
      if (k == WF_STRING_AGG) {
        bool any = false;
        size_t at = sb.len;
        if (sagg_run(&sb, c, perm, fs, ae, &any) ||
            (keep && sagg_run(&sb, c, perm, pos, pos + 1, &any)) ||
            sagg_run(&sb, c, perm, bs, fe, &any)) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          continue;
        }
        if (sb.len > INT32_MAX) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "string_agg() OVER (...): results longer than "
                         "2 GB in all are not supported");
          lm_err_state(err, "54000");
          continue;
        }
        r.null[row] = !any;
        r.i[row] = (int64_t)at;
        r.src[row] = (int32_t)(sb.len - at);
        continue;
      }
      if (ws_on) { /* restarting aggregates, as PostgreSQL's */
        if (pos == ps || fs != wbase || ex || wupto <= fs) {
          lm_wstat_reset(&ws);
          wbase = wupto = fs;
        }
        int ovf = 0;
        if (ex) { /* restarted: the runs and the kept row, in order */
          for (int64_t q = fs; q < ae && !ovf; q++)
            ovf = lm_wstat_add(&ws, perm[q]);
          if (keep && !ovf)
            ovf = lm_wstat_add(&ws, row);
          for (int64_t q = bs; q < fe && !ovf; q++)
            ovf = lm_wstat_add(&ws, perm[q]);
        } else {
          for (int64_t q = wupto; q < fe && !ovf; q++)
            ovf = lm_wstat_add(&ws, perm[q]);
        }
        if (fe > wupto)
          wupto = fe;
        if (ovf) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "value out of range: overflow");
          lm_err_state(err, "22003");
          continue;
        }
        r.null[row] = !lm_wstat_result(&ws, &r.f[row], &r.i[row]);
        continue;
      }
      /* slide the accumulators to [fs, ae) and [bs, fe) */
      acc_slide(&s, &cs, &ce, fs, ae, c->count_star);
      const acc *rs = &s;
      acc m;
      if (ex) {
        acc_slide(&s2, &cs2, &ce2, bs, fe, c->count_star);
        if (k != WF_MIN && k != WF_MAX) {
          bool fl = a0 && is_float_type(a0->type.id);
          if (fl && (acc_foverflow(&s) || acc_foverflow(&s2))) {
            rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                           "value out of range: overflow");
            lm_err_state(err, "22003");
            continue;
          }
          m = s;
          acc_merge(&m, &s2);
          if (keep)
            acc_add(&m, pos, c->count_star);
          rs = &m;
        }
      }
      switch (k) {
      case WF_COUNT:
        r.i[row] = rs->cnt;
        break;
      case WF_SUM:
      case WF_AVG:
        if (rs->cnt && t.id == LM_TYPE_INTERVAL_MDN) { /* months: 16 bytes */
          if (acc_ivresult(rs, k == WF_AVG, &r.d[row])) {
            rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                           "interval out of range");
            lm_err_state(err, "22008");
          }
          break;
        }
        if (k == WF_AVG)
          goto avg;
        if (!rs->cnt) {
          r.null[row] = 1;
        } else if (is_float_type(a0->type.id) && acc_foverflow(rs)) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "value out of range: overflow");
          lm_err_state(err, "22003");
        } else if (is_float_type(a0->type.id)) {
          r.f[row] = acc_fsum(rs);
        } else if (r.d && acc_dec_special(rs)) {
          r.d[row] = acc_dec_special(rs);
        } else if (r.d && !acc_dec_fits(rs)) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "numeric field overflow");
          lm_err_state(err, "22003");
        } else if (r.d) {
          r.d[row] = rs->isum; /* at the input's scale */
        } else if (rs->isum > INT64_MAX || rs->isum < INT64_MIN) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "bigint out of range (sum() OVER (...))");
        } else {
          r.i[row] = (int64_t)rs->isum;
        }
        break;
      avg:
        if (!rs->cnt)
          r.null[row] = 1;
        else if (is_float_type(a0->type.id) && acc_foverflow(rs)) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "value out of range: overflow");
          lm_err_state(err, "22003");
        } else if (is_float_type(a0->type.id))
          r.f[row] = acc_fsum(rs) / (double)rs->cnt;
        else if (r.d && acc_dec_special(rs)) {
          r.d[row] = acc_dec_special(rs);
        } else if (r.d) {
          int sa = a0->type.id == LM_TYPE_DECIMAL128 ? a0->type.scale : 0;
          if (!acc_dec_fits(rs) ||
              lm_dec_quotient(rs->isum, sa, rs->cnt, 0, t.scale, &r.d[row])) {
            rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                           "numeric field overflow");
            lm_err_state(err, "22003");
          }
        } else
          r.f[row] = (double)((long double)rs->isum / (long double)rs->cnt);
        break;
      case WF_VAR_SAMP:
      case WF_VAR_POP:
      case WF_STDDEV_SAMP:
      case WF_STDDEV_POP: {
        bool samp = k == WF_VAR_SAMP || k == WF_STDDEV_SAMP;
        if (rs->cnt < (samp ? 2 : 1)) {
          r.null[row] = 1;
          break;
        }
        int sc = a0->type.id == LM_TYPE_DECIMAL128 ? a0->type.scale : 0;
        if (a0->type.id == LM_TYPE_DECIMAL128 &&
            (rs->n_nan || rs->n_pinf || rs->n_ninf)) {
          r.d[row] = LM_DEC_NAN; /* PostgreSQL's numeric variance */
          break;
        }
        if (rs->ihi || rs->sqhi || rs->nbig ||
            lm_numvar_result(rs->cnt, rs->isum, rs->sq, sc, samp,
                             k == WF_STDDEV_SAMP || k == WF_STDDEV_POP, t.scale,
                             &r.d[row]) == LM_NUMVAR_OVERFLOW) {
          rc = lm_err_at(err, LM_ERR_EXEC, c->line, c->column,
                         "numeric field overflow");
          lm_err_state(err, "22003");
        }
        break;
      }
      case WF_BOOL_AND:
      case WF_BOOL_OR:
        if (!rs->cnt)
          r.null[row] = 1;
        else
          r.i[row] = k == WF_BOOL_AND ? rs->n_true == rs->cnt : rs->n_true > 0;
        break;
      case WF_MIN:
      case WF_MAX: {
        /* the least (greatest) of the runs' fronts and a kept row */
        int32_t best = s.dt > s.dh ? perm[s.dq[s.dh]] : -1;
        /* in frame order (the kept row before the second run): of equal
         * values that print differently the later one, as in acc_add */
        int32_t cand[2] = {keep && !is_null_at(a0, row) ? row : -1,
                           ex && s2.dt > s2.dh ? perm[s2.dq[s2.dh]] : -1};
        int sign = k == WF_MIN ? 1 : -1;
        int tie =
            a0->type.id == LM_TYPE_INTERVAL_MDN || is_float_type(a0->type.id)
                ? 0
                : 1;
        for (int q = 0; q < 2; q++)
          if (cand[q] >= 0 &&
              (best < 0 || sign * cmp_val(a0, best, cand[q]) >= tie))
            best = cand[q];
        r.src[row] = best;
        r.i[row] = 0;
        break;
      }
      default:
        break;
      }
    }
    ps = pe;
  }
  if (rc)
    goto done;
  /* build the result in input row order */
  switch (k) {
  case WF_LAG:
  case WF_LEAD:
  case WF_FIRST:
  case WF_LAST:
  case WF_NTH:
  case WF_MIN:
  case WF_MAX: {
    bool dflt = false;
    for (int64_t i = 0; i < n; i++)
      if (r.i[i])
        dflt = true;
    if (!dflt) {
      *out = lm_array_take_nullable(a0, r.src, n);
    } else {
      lm_builder b;
      if (lm_builder_init(&b, a0->type, n)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        goto done;
      }
      for (int64_t i = 0; i < n; i++) {
        const lm_array *from = r.i[i] ? c->args[2] : a0;
        int64_t at = r.i[i] ? i : r.src[i];
        if (at < 0 || is_null_at(from, at))
          lm_builder_append_null(&b);
        else
          lm_builder_append_from(&b, from, at);
      }
      rc = lm_builder_finish(&b, out);
      lm_builder_free(&b);
      if (rc) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        goto done;
      }
    }
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  default:
    break;
  }
  lm_builder b;
  if (lm_builder_init(&b, t, n)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    if (r.null[i])
      lm_builder_append_null(&b);
    else if (k == WF_STRING_AGG) /* r.i: the start in sb, r.src: length */
      lm_builder_append_str(&b, sb.data ? sb.data + r.i[i] : "", r.src[i]);
    else if (t.id == LM_TYPE_FLOAT64)
      lm_builder_append_double(&b, r.f[i]);
    else if (t.id == LM_TYPE_DECIMAL128)
      lm_dec_append(&b, r.d[i]);
    else if (t.id == LM_TYPE_INTERVAL_MDN) {
      lm_value v = {.type = t}; /* acc_ivresult's slot */
      memcpy(&v.v.mdn.months, (const char *)&r.d[i], 4);
      memcpy(&v.v.mdn.days, (const char *)&r.d[i] + 4, 4);
      memcpy(&v.v.mdn.ns, (const char *)&r.d[i] + 8, 8);
      lm_builder_append_value(&b, &v);
    } else if (t.id == LM_TYPE_BOOL)
      lm_builder_append_bool(&b, r.i[i] != 0);
    else
      lm_builder_append_int(&b, r.i[i]);
  }
  rc = lm_builder_finish(&b, out);
  lm_builder_free(&b);
  if (rc)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
done:
  free(perm);
  free(tmp);
  free(pgs);
  free(pge);
  free(gi);
  free(gst);
  free(dq);
  free(dq2);
  lm_buf_free(&sb);
  free(r.i);
  free(r.f);
  free(r.src);
  free(r.null);
  free(r.d);
  return rc;
}
