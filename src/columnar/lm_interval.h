/*
 * PostgreSQL's interval with months and days: {months, days, µs}, read,
 * printed and added to timestamps as PostgreSQL 15 does (interval_in,
 * EncodeInterval, timestamp_pl_interval, interval_cmp). SQL INTERVAL
 * values with months are LM_TYPE_INTERVAL_MDN arrays ({int32 months,
 * int32 days, int64 ns}, the ns a multiple of 1000); the others stay
 * LM_TYPE_INTERVAL (int64 µs), read as {0, µs / day, µs % day}
 * (docs/types.md).
 */
#ifndef LM_INTERVAL_H
#define LM_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "columnar/lm_columnar.h"

typedef struct lm_iv {
  int32_t months;
  int32_t days;
  int64_t us;
} lm_iv;

/* Parses PostgreSQL interval text s[0, len): "n unit" parts (microseconds
 * to millennia, plural and abbreviated forms, fractions cascading down as
 * PostgreSQL's), a "[-]H:MM[:SS[.f]]" clock part, a leading '@', a
 * trailing "ago", or an ISO 8601 "P1Y2M3DT4H5M6S" form. unit[0, unit_len)
 * (may be NULL) is an SQL qualifier like INTERVAL '2' MONTH: the unit of a
 * bare number. Returns 0 ok, -1 bad text (22007), -2 a field out of range
 * (22015). */
int lm_iv_parse(const char *s, size_t len, const char *unit, size_t unit_len,
                lm_iv *out);

/* Whether s[0, len) parses and names months or years (so that it needs
 * LM_TYPE_INTERVAL_MDN). */
bool lm_iv_text_has_months(const char *s, size_t len, const char *unit,
                           size_t unit_len);

/* PostgreSQL's output ("1 year 2 mons -3 days +04:05:06.5") into buf (at
 * least 96 bytes), NUL-terminated; returns its length. */
int lm_iv_format(const lm_iv *v, char *buf);

/* {0, us / day, us % day}: a µs INTERVAL read as PostgreSQL's. */
lm_iv lm_iv_from_us(int64_t us);

/* The span interval_cmp orders by: (months * 30 + days) days + µs. */
static inline __int128 lm_iv_span(const lm_iv *v) {
  return ((__int128)v->months * 30 + v->days) * (__int128)86400000000LL + v->us;
}

/* lm_iv_span of a stored 16-byte INTERVAL_MDN slot p ({int32 months,
 * int32 days, int64 ns}): the value hash keys and key equality use, so
 * that '1 mon' and '30 days' (equal under interval_cmp) hash equal. */
static inline __int128 lm_iv_span_slot(const void *p) {
  int32_t m, d;
  int64_t ns;
  memcpy(&m, p, 4);
  memcpy(&d, (const char *)p + 4, 4);
  memcpy(&ns, (const char *)p + 8, 8);
  return ((__int128)m * 30 + d) * (__int128)86400000000LL + ns / 1000;
}

/* Row i of an INTERVAL (µs) or INTERVAL_MDN array (not NULL). */
lm_iv lm_iv_at(const lm_array *a, int64_t i);
/* Stores v in a 16-byte INTERVAL_MDN slot; -1 when the µs do not fit
 * int64 ns (time parts beyond ±292 years). */
int lm_iv_store(void *slot16, const lm_iv *v);

/* a + b (sign -1: a - b); -1 when a field overflows (22008). */
int lm_iv_add(const lm_iv *a, const lm_iv *b, int sign, lm_iv *out);
/* v * factor (div: v / factor) as PostgreSQL's interval_mul /
 * interval_div: the months' fraction cascades into days, the days'
 * into µs. 0, -1 out of range (22008), -2 division by zero (22012). */
int lm_iv_mul(const lm_iv *v, double factor, bool div, lm_iv *out);

/* THE timestamp + interval of PostgreSQL (timestamp_pl_interval and
 * timestamptz_pl_interval): ts (µs since the epoch) plus iv's months
 * (the day of month clamped to the month's end: Jan 31 + 1 mon = Feb 29
 * in a leap year), then its days, then its µs. When zone is not NULL
 * (a TIMESTAMPTZ) the months and days move the local date in that zone
 * keeping the wall-clock time (DST), as PostgreSQL does in the session
 * zone; NULL: a TIMESTAMP. *out in µs; -1 when the result is out of
 * range (22008 "timestamp out of range"). sign -1 subtracts iv. */
struct lm_tz;
int lm_ts_plus_iv(int64_t ts, const lm_iv *iv, int sign,
                  const struct lm_tz *zone, int64_t *out);

/* The least timestamp `now` (µs) with now + k >= e (lm_ts_plus_iv, zone
 * as there): the moment a temporal filter's bound `now() + k` reaches e.
 * now + k is non-decreasing in now; the answer is searched within 4 days
 * of e - k (a month end's clamping moves at most 3 days). */
int64_t lm_ts_iv_reach(int64_t e, const lm_iv *k, const struct lm_tz *zone);

/* PostgreSQL's age(a, b) of two timestamps (µs; zone as above for
 * TIMESTAMPTZ, NULL for TIMESTAMP): years / months / days field by field,
 * borrowing from the month before a's. -1 out of range. */
int lm_iv_age(int64_t a, int64_t b, const struct lm_tz *zone, lm_iv *out);

/* justify_hours / justify_days / justify_interval. -1 out of range. */
int lm_iv_justify(const lm_iv *v, bool hours, bool days, lm_iv *out);

#endif
