/*
 * exec/lm_srf.h — set-returning functions: generate_series as a cursor
 * that appends its values to a column builder a chunk at a time, so a
 * caller can cut the rows into batches of any size and stop early (a
 * LIMIT) without computing the rest (docs/functions.md).
 *
 * Semantics are PostgreSQL 15's generate_series(start, stop[, step]):
 * the values start, start + step, ... while they do not pass stop (<= stop
 * for a positive step, >= stop for a negative one); a NULL argument gives
 * no rows; a zero step is SQLSTATE 22023 "step size cannot equal zero";
 * the series ends (no error) where the next value would overflow the
 * type, as PostgreSQL's integer versions do.
 */
#ifndef LM_SRF_H
#define LM_SRF_H

#include "columnar/lm_columnar.h"
#include "columnar/lm_decimal.h"

struct lm_tz;

/* One generate_series call's state. Fill it with lm_srf_series_init. */
typedef struct lm_srf_series {
  lm_type type; /* INT32, INT64, DECIMAL128, TIMESTAMP (tz or not) */
  bool done;
  int64_t cur, stop, step; /* integers; timestamps (µs); step > 0 or < 0 */
  /* DECIMAL128: values at scale wscale (>= the output type's scale) */
  lm_i128 dcur, dstop, dstep;
  int wscale;
  /* TIMESTAMPTZ: whole days of the step, added to the local date in zone
   * tz (keeping the wall-clock time across a DST change, as PostgreSQL),
   * then step µs; 0 = none */
  int64_t step_days;
  const struct lm_tz *tz;
} lm_srf_series;

/* Starts a series of output type `type` (INT32, INT64, DECIMAL128(p, s),
 * TIMESTAMP or TIMESTAMPTZ). start / stop / step are of that type except:
 * a timestamp series' step is an INTERVAL (µs), and a decimal series'
 * start, stop and step are DECIMAL128 values of any scale (their own
 * value.type.scale). step NULL (a pointer): 1, for integers and decimals
 * only. step_days / tz: see lm_srf_series (0 / NULL: none). A NULL value
 * makes an empty series. Errors: LM_ERR_EXEC with SQLSTATE 22023 "step
 * size cannot equal zero"; LM_ERR_BIND for an unsupported type. */
int lm_srf_series_init(lm_srf_series *s, lm_type type, const lm_value *start,
                       const lm_value *stop, const lm_value *step,
                       int64_t step_days, const struct lm_tz *tz,
                       lm_error *err);

/* Appends up to max (>= 0) next values of s to b (a builder of s->type)
 * and returns how many it appended; fewer than max only when the series
 * ended (s->done is then set). OOM shows as b->oom. */
int64_t lm_srf_series_fill(lm_srf_series *s, lm_builder *b, int64_t max);

/* Whether `name` (lower case) is a set-returning function Laminar runs:
 * generate_series. */
bool lm_srf_is_name(const char *name);

/* The rows of a set-returning call Laminar cuts its output into (the
 * batch size of the ad-hoc executor's inputs). */
#define LM_SRF_BATCH_ROWS 4096

#endif
