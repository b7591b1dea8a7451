/*
 * exec/expr_interval.h — INTERVAL * number, number * INTERVAL and
 * INTERVAL / number (expr_interval.c), PostgreSQL's interval_mul and
 * interval_div over Laminar's µs INTERVAL.
 */
#ifndef LM_EXPR_INTERVAL_H
#define LM_EXPR_INTERVAL_H

#include "exec/lm_exec.h"

/* Whether the arithmetic node e over x, y is INTERVAL * / DOUBLE (either
 * order for *): the binder casts the number to DOUBLE. */
bool lm_interval_arith_handles(const lm_bexpr *e, const lm_array *x,
                               const lm_array *y);
/* Evaluates it (x, y of equal length) into *out (new reference, INTERVAL).
 * Errors at e's position: 22012 division by zero, 22008 "interval out of
 * range" (NaN, a result beyond 64-bit µs or beyond PostgreSQL's int32
 * days). */
int lm_interval_arith(const lm_bexpr *e, lm_array *x, lm_array *y,
                      lm_array **out, lm_error *err);

#endif
