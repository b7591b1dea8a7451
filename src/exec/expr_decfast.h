/*
 * exec/expr_decfast.h — the plain-case loop of DECIMAL `*`, `+`, `-`
 * (expr_decfast.c), tried by expr_eval.c before the general DECIMAL kernel
 * (expr_types.c).
 */
#ifndef LM_EXPR_DECFAST_H
#define LM_EXPR_DECFAST_H

#include "exec/lm_exec.h"

/* x op y for the arithmetic node e of a DECIMAL type, when op is `*`
 * (e's scale the sum of the operands'), `+` or `-` (e's scale one of the
 * operands') and x, y (equal lengths) are DECIMAL128 or SMALLINT /
 * INTEGER / BIGINT arrays: row i of *out (a new array of e's type; the
 * caller releases it) is x[i] op y[i], NULL where either is. Returns 1,
 * with nothing in *out, when it does not apply or a row needs the general
 * kernel (a NaN / Infinity operand, more than 38 digits, more than e's
 * precision: lm_types_arith then gives the value or the error); 0 done;
 * LM_ERR_NOMEM. */
int lm_dec_arith_fast(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                      lm_array **out, lm_error *err);

#endif
