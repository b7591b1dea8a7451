/*
 * exec/srf.c — generate_series cursors (exec/lm_srf.h).
 */
#include <string.h>

#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_srf.h"

bool lm_srf_is_name(const char *name) {
  return name && !strcmp(name, "generate_series");
}

static bool is_ts(lm_type t) {
  return t.id == LM_TYPE_TIMESTAMP;
}

int lm_srf_series_init(lm_srf_series *s, lm_type type, const lm_value *start,
                       const lm_value *stop, const lm_value *step,
                       int64_t step_days, const struct lm_tz *tz,
                       lm_error *err) {
  memset(s, 0, sizeof *s);
  s->type = type;
  bool dec = type.id == LM_TYPE_DECIMAL128;
  if (!dec && type.id != LM_TYPE_INT32 && type.id != LM_TYPE_INT64 &&
      !is_ts(type))
    return lm_err(err, LM_ERR_BIND,
                  "generate_series: unsupported argument type");
  if (!step && is_ts(type))
    return lm_err(err, LM_ERR_BIND,
                  "generate_series over timestamps needs an interval step");
  if (start->is_null || stop->is_null || (step && step->is_null)) {
    s->done = true;
    return 0;
  }
  if (dec) {
    int sa = start->type.scale, sb = stop->type.scale;
    int sc = step ? step->type.scale : 0;
    int w = sa > sb ? sa : sb;
    w = w > sc ? w : sc;
    lm_i128 a = (lm_i128)start->v.d128.lo | ((lm_i128)start->v.d128.hi << 64);
    lm_i128 b = (lm_i128)stop->v.d128.lo | ((lm_i128)stop->v.d128.hi << 64);
    lm_i128 c = 1;
    if (step)
      c = (lm_i128)step->v.d128.lo | ((lm_i128)step->v.d128.hi << 64);
    if (lm_dec_rescale(a, sa, w, &s->dcur) ||
        lm_dec_rescale(b, sb, w, &s->dstop) ||
        lm_dec_rescale(c, step ? sc : 0, w, &s->dstep))
      return lm_err(err, LM_ERR_EXEC, "numeric field overflow");
    s->wscale = w;
    if (s->dstep == 0) {
      lm_err(err, LM_ERR_EXEC, "step size cannot equal zero");
      return lm_err_state(err, "22023");
    }
    return 0;
  }
  s->cur = start->v.i;
  s->stop = stop->v.i;
  s->step = step ? step->v.i : 1;
  s->step_days = step_days;
  s->tz = tz;
  if (step_days) /* step holds the whole interval: keep the rest apart */
    s->step -= step_days * LM_US_PER_DAY;
  if (s->step == 0 && s->step_days == 0) {
    lm_err(err, LM_ERR_EXEC, "step size cannot equal zero");
    return lm_err_state(err, "22023");
  }
  return 0;
}

/* The next timestamp after cur; false on overflow. */
static bool ts_next(const lm_srf_series *s, int64_t cur, int64_t *out) {
  int64_t v = cur;
  if (s->step_days) {
    int64_t d;
    if (__builtin_mul_overflow(s->step_days, LM_US_PER_DAY, &d))
      return false;
    if (s->tz) {
      int64_t local = lm_tz_to_local(s->tz, v);
      if (__builtin_add_overflow(local, d, &local))
        return false;
      v = lm_tz_from_local(s->tz, local, NULL);
    } else if (__builtin_add_overflow(v, d, &v)) {
      return false;
    }
  }
  return !__builtin_add_overflow(v, s->step, out);
}

int64_t lm_srf_series_fill(lm_srf_series *s, lm_builder *b, int64_t max) {
  int64_t n = 0;
  if (s->type.id == LM_TYPE_DECIMAL128) {
    int os = s->type.scale;
    lm_i128 lim = lm_dec_pow10(LM_DEC_MAX_DIGITS);
    while (!s->done && n < max) {
      bool in = s->dstep > 0 ? s->dcur <= s->dstop : s->dcur >= s->dstop;
      if (!in) {
        s->done = true;
        break;
      }
      lm_i128 v = s->dcur;
      if (os != s->wscale && lm_dec_rescale(v, s->wscale, os, &v)) {
        s->done = true;
        break;
      }
      lm_dec_append(b, v);
      n++;
      lm_i128 nx = s->dcur + s->dstep;
      if (nx >= lim || nx <= -lim)
        s->done = true;
      s->dcur = nx;
    }
    return n;
  }
  bool up = s->step > 0 || (s->step == 0 && s->step_days > 0);
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  if (s->type.id == LM_TYPE_INT32) {
    lo = INT32_MIN;
    hi = INT32_MAX;
  }
  bool ts = is_ts(s->type);
  while (!s->done && n < max) {
    if (up ? s->cur > s->stop : s->cur < s->stop) {
      s->done = true;
      break;
    }
    lm_builder_append_int(b, s->cur);
    n++;
    int64_t nx;
    bool ok = ts ? ts_next(s, s->cur, &nx)
                 : !__builtin_add_overflow(s->cur, s->step, &nx);
    if (!ok || nx < lo || nx > hi)
      s->done = true; /* PostgreSQL stops before overflowing */
    else
      s->cur = nx;
  }
  return n;
}
