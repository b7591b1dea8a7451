/*
 * exec/window_stat.h — the aggregates OVER (...) that PostgreSQL 15 has no
 * inverse transition for (window_stat.c): var_* / stddev* of floats
 * (float8_accum), corr / covar_* / regr_* (float8_regr_accum) and
 * bit_and / bit_or / bit_xor. As PostgreSQL's eval_windowaggregates, the
 * caller (window_fn.c) restarts the state at each frame whose head moved
 * (and at every row under EXCLUDE) and adds the frame's rows in order, so
 * the floats are PostgreSQL's to the bit; a sliding frame of w rows costs
 * O(w) per row, as in PostgreSQL.
 */
#ifndef LM_WINDOW_STAT_H
#define LM_WINDOW_STAT_H

#include "exec/agg_stat.h"
#include "exec/lm_exec.h"

typedef enum lm_ws_kind {
  LM_WS_VAR_POP,
  LM_WS_VAR_SAMP,
  LM_WS_STDDEV_POP,
  LM_WS_STDDEV_SAMP,
  LM_WS_REGR, /* corr, covar_*, regr_* but regr_count: regr_fn */
  LM_WS_REGR_COUNT,
  LM_WS_BIT_AND,
  LM_WS_BIT_OR,
  LM_WS_BIT_XOR,
} lm_ws_kind;

/* One call's state. y (and x for the two-argument functions: y is the
 * first argument, as regr_*(y, x)) are borrowed arrays indexed by row:
 * floats, integers or DECIMAL (read as PostgreSQL's cast to float8). */
typedef struct lm_wstat {
  lm_ws_kind kind;
  lm_regr_fn regr_fn;
  const lm_array *y, *x;
  double n, sx, sxx; /* float8_accum's N, Sx, Sxx */
  lm_regr r;         /* float8_regr_accum's state */
  int64_t cnt;       /* rows taken (both arguments non-NULL) */
  int64_t bits;
} lm_wstat;

/* Empties s (keeps kind, regr_fn and the arrays). */
void lm_wstat_reset(lm_wstat *s);

/* Adds row `row` (skipped when an argument is NULL). 0, or -1 when finite
 * inputs overflow the float state (PostgreSQL's 22003 "value out of
 * range: overflow"; the caller reports it). */
int lm_wstat_add(lm_wstat *s, int64_t row);

/* The result of s: false for NULL, else true with *f (the float
 * functions) or *i (regr_count, bit_*) set. */
bool lm_wstat_result(const lm_wstat *s, double *f, int64_t *i);

#endif
