/*
 * exec/expr_types.h — evaluation of the SQL types DECIMAL(p,s) (Arrow
 * Decimal128), DATE (Date32, days), TIME (Time64 µs) and BYTEA (Binary)
 * for the vectorized evaluator (expr_eval.c calls in here; docs/types.md).
 */
#ifndef LM_EXPR_TYPES_H
#define LM_EXPR_TYPES_H

#include "exec/lm_exec.h"

/* Whether a cast from `from` to `to` is handled here (one side DECIMAL128,
 * DATE32, TIME64 or BINARY). */
bool lm_types_cast_handles(lm_type from, lm_type to);
/* Casts every row of a (a->length rows) to `to` into *out (new reference).
 * Errors (LM_ERR_EXEC with a SQLSTATE at e's position): 22P02/22007 bad
 * text, 22003 "numeric field overflow" / out of range, 22008 dates out of
 * range. */
int lm_types_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err);
/* Whether the arithmetic node e (+ - * / %) over x, y is one of ours:
 * DECIMAL operands, DATE ± integer, DATE - DATE, DATE + TIME, TIME ±
 * INTERVAL, TIME - TIME. */
bool lm_types_arith_handles(const lm_bexpr *e, const lm_array *x,
                            const lm_array *y);
/* Evaluates it row by row (x, y of equal length); 22003 numeric field
 * overflow, 22012 division by zero. */
int lm_types_arith(const lm_bexpr *e, lm_array *x, lm_array *y, lm_array **out,
                   lm_error *err);
/* -x of a DECIMAL128 array. */
int lm_types_neg(const lm_bexpr *e, lm_array *x, lm_array **out, lm_error *err);
/* LM_FN_DECIMAL_FN (lm_plan.h) over a batch. */
int lm_types_decfn(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err);
/* Three-way comparison of row i of x with row j of y when both are
 * DECIMAL128 (any scales), DATE32, TIME64 or BINARY: -1, 0, 1. */
int lm_types_cmp(const lm_array *x, int64_t i, const lm_array *y, int64_t j);

#endif
