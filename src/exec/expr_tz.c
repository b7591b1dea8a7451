/* exec/expr_tz.c — evaluation of TIMESTAMPTZ casts in a time zone (the
 * bound node's tz: the session zone when it was bound, or AT TIME ZONE's
 * zone). PostgreSQL's rules (docs/timezones.md). */
#include "exec/expr_tz.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_strfn.h"

#include <stdio.h>
#include <string.h>

static bool other_ok(lm_type t) {
  return t.id == LM_TYPE_UTF8 ||
         (t.id == LM_TYPE_TIMESTAMP && t.unit == LM_UNIT_MICRO) ||
         t.id == LM_TYPE_DATE32 ||
         (t.id == LM_TYPE_TIME64 && t.unit == LM_UNIT_MICRO);
}

bool lm_tz_cast_handles(lm_type from, lm_type to) {
  bool ft = lm_type_is_tstz(from), tt = lm_type_is_tstz(to);
  if (ft == tt)
    return false;
  if (tt) /* to TIMESTAMPTZ: from text, TIMESTAMP, DATE */
    return other_ok(from) && from.id != LM_TYPE_TIME64;
  return other_ok(to); /* from TIMESTAMPTZ: to all four */
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b) != 0 && ((a < 0) != (b < 0)))
    q--;
  return q;
}

/* PostgreSQL's range of timestamptz text here: years 0001-9999 */
/* PostgreSQL's timestamp range, a day of margin each side (4714-11-24 BC
 * .. 294277-01-01) */
#define TS_MIN ((LM_DT_MIN_DAYS - 1) * LM_US_PER_DAY)
#define TS_MAX ((LM_TS_END_DAYS + 1) * LM_US_PER_DAY)

int lm_tz_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
               lm_error *err) {
  const lm_tz *z = e && e->tz ? e->tz : lm_tz_utc();
  int64_t n = a->length;
  lm_builder b;
  if (lm_builder_init(&b, to, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool from_tz = lm_type_is_tstz(a->type);
  int rc = 0;
  char buf[80];
  for (int64_t i = 0; i < n && !rc; i++) {
    if (a->validity && lm_array_is_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    if (!from_tz) {
      int64_t v = 0;
      switch (a->type.id) {
      case LM_TYPE_UTF8: {
        int32_t len;
        const char *p = lm_array_str(a, i, &len);
        int prc = lm_tz_parse_timestamptz(p, (size_t)len, z, &v);
        if (prc != 0) {
          char m[200];
          const char *state;
          lm_dt_message(prc, "timestamp with time zone", p, (size_t)len, m,
                        sizeof m, &state);
          rc = lm_fn_error(err, e, state, "%s", m);
          continue;
        }
        break;
      }
      case LM_TYPE_DATE32: {
        int64_t d = lm_array_get_i64(a, i);
        v = !lm_date_finite(d) ? (d > 0 ? LM_TS_INFINITY : LM_TS_NEG_INFINITY)
                               : lm_tz_from_local(z, d * LM_US_PER_DAY, NULL);
        break;
      }
      default: /* TIMESTAMP µs: a local time in z */
        v = lm_array_get_i64(a, i);
        if (v > TS_MIN && v < TS_MAX)
          v = lm_tz_from_local(z, v, NULL);
        break;
      }
      lm_builder_append_int(&b, v);
      continue;
    }
    int64_t u = lm_array_get_i64(a, i);
    bool in_range = u > TS_MIN && u < TS_MAX;
    int64_t local = in_range ? lm_tz_to_local(z, u) : u;
    switch (to.id) {
    case LM_TYPE_UTF8: {
      int k =
          in_range ? lm_tz_format(u, z, buf) : lm_format_timestamp(u, ' ', buf);
      lm_builder_append_str(&b, buf, k);
      break;
    }
    case LM_TYPE_DATE32:
      lm_builder_append_int(&b, lm_ts_finite(u)
                                    ? floor_div(local, LM_US_PER_DAY)
                                : u > 0 ? LM_DATE_INFINITY
                                        : LM_DATE_NEG_INFINITY);
      break;
    case LM_TYPE_TIME64:
      lm_builder_append_int(&b, local - floor_div(local, LM_US_PER_DAY) *
                                            LM_US_PER_DAY);
      break;
    default: /* TIMESTAMP */
      lm_builder_append_int(&b, local);
      break;
    }
  }
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  if (lm_builder_finish(&b, out)) {
    lm_builder_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder_free(&b);
  return 0;
}
