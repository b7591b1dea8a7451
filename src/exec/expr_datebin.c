/*
 * date_bin(stride, source, origin), PostgreSQL 14+'s (bound in
 * plan/func_bind2.c): the start of the stride-wide bin, counted from
 * origin, that holds source. TIMESTAMP or TIMESTAMPTZ (both µs since the
 * epoch; the result has source's type). Errors as PostgreSQL:
 * 22023 "stride must be greater than zero", 22008 "interval out of
 * range" / "timestamp out of range" / "origin out of range". An infinite
 * source is returned as it is.
 */
#include <stdint.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

static int datebin_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                       lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)o;
  (void)ctx;
  int64_t stride = lm_array_get_i64(a[0], i);
  int64_t ts = lm_array_get_i64(a[1], i);
  int64_t origin = lm_array_get_i64(a[2], i);
  if (stride <= 0)
    return lm_fn_error(err, e, "22023", "stride must be greater than zero");
  if (!lm_ts_finite(ts)) {
    lm_builder_append_int(b, ts);
    return 0;
  }
  if (!lm_ts_finite(origin))
    return lm_fn_error(err, e, "22008", "origin out of range");
  int64_t diff, r;
  if (__builtin_sub_overflow(ts, origin, &diff))
    return lm_fn_error(err, e, "22008", "interval out of range");
  int64_t mod = diff % stride;
  r = origin + (diff - mod); /* between origin and ts: no overflow */
  if (mod < 0 && __builtin_sub_overflow(r, stride, &r))
    return lm_fn_error(err, e, "22008", "timestamp out of range");
  lm_builder_append_int(b, r);
  return 0;
}

int lm_datebin_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err) {
  return lm_fn_rows(e, in, 3, datebin_row, NULL, out, err);
}
