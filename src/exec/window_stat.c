/* exec/window_stat.c — restarting aggregates OVER (...) (window_stat.h). */
#include "exec/window_stat.h"

#include <math.h>

#include "columnar/lm_decimal.h"

void lm_wstat_reset(lm_wstat *s) {
  s->n = s->sx = s->sxx = 0;
  s->r = (lm_regr){0, 0, 0, 0, 0, 0};
  s->cnt = 0;
  s->bits = 0;
}

static bool null_at(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

/* Row i of a as PostgreSQL's cast to float8. */
static double f8(const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    return lm_array_get_f64(a, i);
  case LM_TYPE_DECIMAL128:
    return lm_dec_to_double(lm_dec_get(a, i), a->type.scale);
  default:
    return (double)lm_array_get_i64(a, i);
  }
}

/* PostgreSQL 15's float8_accum: Youngs-Cramer's N, Sx, Sxx. */
static int accum(lm_wstat *s, double v) {
  double n0 = s->n, sx0 = s->sx, n = n0 + 1.0, sx = sx0 + v, sxx = s->sxx;
  if (n0 > 0.0) {
    double tmp = v * n - sx;
    sxx += tmp * tmp / (n * n0);
    if (isinf(sx) || isinf(sxx)) {
      if (!isinf(sx0) && !isinf(v))
        return -1;
      sxx = NAN;
    }
  } else if (isnan(v) || isinf(v)) {
    sxx = NAN;
  }
  s->n = n;
  s->sx = sx;
  s->sxx = sxx;
  return 0;
}

int lm_wstat_add(lm_wstat *s, int64_t row) {
  if (null_at(s->y, row) || (s->x && null_at(s->x, row)))
    return 0;
  switch (s->kind) {
  case LM_WS_VAR_POP:
  case LM_WS_VAR_SAMP:
  case LM_WS_STDDEV_POP:
  case LM_WS_STDDEV_SAMP:
    if (accum(s, f8(s->y, row)))
      return -1;
    break;
  case LM_WS_REGR:
    if (lm_regr_accum(&s->r, f8(s->y, row), f8(s->x, row)))
      return -1;
    break;
  case LM_WS_REGR_COUNT:
    break;
  case LM_WS_BIT_AND:
  case LM_WS_BIT_OR:
  case LM_WS_BIT_XOR: {
    int64_t v = lm_array_get_i64(s->y, row);
    if (!s->cnt)
      s->bits = v;
    else if (s->kind == LM_WS_BIT_AND)
      s->bits &= v;
    else if (s->kind == LM_WS_BIT_OR)
      s->bits |= v;
    else
      s->bits ^= v;
    break;
  }
  }
  s->cnt++;
  return 0;
}

bool lm_wstat_result(const lm_wstat *s, double *f, int64_t *i) {
  switch (s->kind) {
  case LM_WS_VAR_POP:
  case LM_WS_STDDEV_POP:
  case LM_WS_VAR_SAMP:
  case LM_WS_STDDEV_SAMP: {
    bool samp = s->kind == LM_WS_VAR_SAMP || s->kind == LM_WS_STDDEV_SAMP;
    if (s->n <= (samp ? 1.0 : 0.0))
      return false;
    double v = s->sxx / (samp ? s->n - 1.0 : s->n);
    *f = s->kind == LM_WS_STDDEV_POP || s->kind == LM_WS_STDDEV_SAMP ? sqrt(v)
                                                                     : v;
    return true;
  }
  case LM_WS_REGR:
    return lm_regr_final(s->regr_fn, &s->r, f);
  case LM_WS_REGR_COUNT:
    *i = s->cnt;
    return true;
  default:
    if (!s->cnt)
      return false;
    *i = s->bits;
    return true;
  }
}
