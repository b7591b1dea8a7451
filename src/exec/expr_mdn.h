/*
 * exec/expr_mdn.h — SQL INTERVAL values with months (LM_TYPE_INTERVAL_MDN,
 * columnar/lm_interval.h) in the vectorized evaluator: casts, arithmetic,
 * unary minus, comparison and the interval functions (extract, justify_*,
 * age, make_interval, date_trunc) as PostgreSQL 15 computes them.
 */
#ifndef LM_EXPR_MDN_H
#define LM_EXPR_MDN_H

#include "exec/lm_exec.h"

/* Whether a cast from `from` to `to` is one of ours: to or from
 * INTERVAL_MDN (text, µs INTERVAL). */
bool lm_mdn_cast_handles(lm_type_id from, lm_type to);
/* a cast to `to` into *out (new array, caller releases). Errors at e:
 * 22007 bad interval text, 22015 a field out of range, 22008 a value
 * beyond the µs INTERVAL's / ns range, 0A000 months into a µs INTERVAL;
 * LM_ERR_NOMEM. */
int lm_mdn_cast(const lm_bexpr *e, const lm_array *a, lm_type to,
                lm_array **out, lm_error *err);

/* Whether the arithmetic node e over x, y is one of ours: an operand or
 * the result INTERVAL_MDN (timestamp ± interval, interval ± interval,
 * interval * / number). */
bool lm_mdn_arith_handles(const lm_bexpr *e, const lm_array *x,
                          const lm_array *y);
/* x op y row by row into *out (new array of e's type); a NULL operand
 * gives NULL. Errors at e: 22008 "timestamp out of range" / "interval
 * out of range", 22012 "division by zero"; LM_ERR_NOMEM. */
int lm_mdn_arith(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                 lm_array **out, lm_error *err);
/* -x of an INTERVAL_MDN array; 22008 on overflow, LM_ERR_NOMEM. */
int lm_mdn_neg(const lm_bexpr *e, const lm_array *x, lm_array **out,
               lm_error *err);
/* interval_cmp of row i of x and row j of y (each INTERVAL or
 * INTERVAL_MDN, not NULL): -1, 0, 1 (a month is 30 days, a day 24 h). */
int lm_mdn_cmp(const lm_array *x, int64_t i, const lm_array *y, int64_t j);

/* Whether function fn is computed by lm_mdn_fn_row: make_interval,
 * justify_days / _hours / _interval, extract / date_part of an interval,
 * age. */
bool lm_mdn_fn_handles(lm_func_id fn);
/* Row i of function e over its evaluated arguments a (not NULL) appended
 * to b (INTERVAL_MDN, or FLOAT64 for date_part) as PostgreSQL 15
 * computes it. 22008 "interval out of range"; 0 ok. */
int lm_mdn_fn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                  lm_builder *b, lm_error *err);

#endif
