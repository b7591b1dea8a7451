/*
 * exec/agg_stat.h — the statistical aggregates' arithmetic (agg_stat.c):
 * PostgreSQL 15's numeric VAR / STDDEV from exact sums, and its float8
 * two-argument state (corr, covar_*, regr_*) with its transition,
 * combine and final functions.
 */
#ifndef LM_AGG_STAT_H
#define LM_AGG_STAT_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/lm_decimal.h"

/* Errors of lm_numvar_result. */
#define LM_NUMVAR_NULL 1     /* no result: n = 0, or n = 1 for samp */
#define LM_NUMVAR_OVERFLOW 2 /* the result needs more than 38 digits */

/* PostgreSQL's numeric_stddev_internal over n values whose unscaled sum at
 * scale s is sx and whose sum of squares (scale 2s) is sxx: the variance
 * (sd false) or standard deviation, sample (n - 1) or population (n),
 * computed at PostgreSQL's scale (select_div_scale; the square root at
 * the same scale, rounded) and then stored rounded half away from zero
 * (or padded) at out_scale: *out is its unscaled value, 38 digits at
 * most. A negative numerator (rounding cannot make one here: the sums are
 * exact) is 0. Returns 0, LM_NUMVAR_NULL or LM_NUMVAR_OVERFLOW. */
int lm_numvar_result(int64_t n, lm_i128 sx, lm_i128 sxx, int s, bool samp,
                     bool sd, int out_scale, lm_i128 *out);

/* A signed 256-bit integer hi * 2^128 + lo (two's complement; lo holds
 * the low 128 bits unsigned): a numeric VAR / STDDEV's exact sum of
 * squares, which passes 128 bits long before the result does (x of 38
 * digits, or a BIGINT near 2^63, squared). Zero-initialize. */
typedef struct lm_s256 {
  lm_i128 hi;
  unsigned __int128 lo;
} lm_s256;

/* *acc += x * x * w. -1 when the sum passes 256 bits (acc unchanged),
 * else 0. */
int lm_s256_add_sq(lm_s256 *acc, lm_i128 x, int64_t w);
/* *acc += b. -1 on overflow (acc unchanged), else 0. */
int lm_s256_add(lm_s256 *acc, lm_s256 b);

/* lm_numvar_result with a 256-bit sum of squares sxx (>= 0). */
int lm_numvar_result256(int64_t n, lm_i128 sx, lm_s256 sxx, int s, bool samp,
                        bool sd, int out_scale, lm_i128 *out);

/* PostgreSQL's float8 regression state (float8_regr_accum's array):
 * N, Sx, Sxx, Sy, Syy, Sxy, with Youngs-Cramer's updates. */
typedef struct lm_regr {
  double n, sx, sxx, sy, syy, sxy;
} lm_regr;

/* One (y, x) pair into r (float8_regr_accum). -1 when finite inputs
 * overflow the state (PostgreSQL's 22003 "value out of range:
 * overflow"), r unchanged; else 0. */
int lm_regr_accum(lm_regr *r, double y, double x);
/* Folds b into a (float8_regr_combine). -1 on overflow as above. */
int lm_regr_combine(lm_regr *a, const lm_regr *b);

typedef enum lm_regr_fn {
  LM_REGR_CORR,
  LM_REGR_COVAR_POP,
  LM_REGR_COVAR_SAMP,
  LM_REGR_SLOPE,
  LM_REGR_INTERCEPT,
  LM_REGR_R2,
  LM_REGR_AVGX,
  LM_REGR_AVGY,
  LM_REGR_SXX,
  LM_REGR_SYY,
  LM_REGR_SXY,
} lm_regr_fn;

/* The lm_regr_fn of aggregate name (corr, covar_pop, covar_samp, regr_*;
 * case-sensitive, as the binder lower-cases names), -1 for regr_count
 * (a count, no final function), -2 for any other name. */
int lm_regr_fn_named(const char *name);

/* The final function fn of state r (float8_corr, float8_covar_pop, ...):
 * false for PostgreSQL's NULL results, else true with *out. */
bool lm_regr_final(lm_regr_fn fn, const lm_regr *r, double *out);

#endif
