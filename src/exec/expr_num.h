/*
 * exec/expr_num.h — SMALLINT, INTEGER and REAL arithmetic for the
 * vectorized evaluator (expr_eval.c calls in here): PostgreSQL's int2 /
 * int4 / float4 operators, computed in their own width, with its overflow
 * errors (docs/types.md, "Integer and float widths").
 */
#ifndef LM_EXPR_NUM_H
#define LM_EXPR_NUM_H

#include "exec/lm_exec.h"

/* Whether the arithmetic node e (+ - * / %) over x, y is one of ours: e's
 * type SMALLINT (INT16), INTEGER (INT32) or REAL (FLOAT32) with both
 * operands of that type (the binder casts them so, plan/bind_num.c). */
bool lm_num_arith_handles(const lm_bexpr *e, const lm_array *x,
                          const lm_array *y);
/* x op y row by row (x, y of equal length; a NULL operand gives NULL) into
 * *out (a new array of e's type; caller releases). Errors (LM_ERR_EXEC at
 * e's position, nothing in *out): 22003 "smallint out of range" / "integer
 * out of range" / "value out of range: overflow" / "... underflow", 22012
 * "division by zero"; LM_ERR_NOMEM. */
int lm_num_arith(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                 lm_array **out, lm_error *err);
/* e (x op literal) when e is one of ours and its right operand a non-NULL
 * literal: the left side evaluated over `in`, the literal not broadcast;
 * the same results and errors as lm_num_arith. -1: not taken (the caller
 * evaluates e as usual); otherwise 0 or the error code. */
int lm_num_arith_literal(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                         lm_error *err);
/* Whether the unary minus e over x is one of ours (x and e SMALLINT,
 * INTEGER or REAL). */
bool lm_num_neg_handles(const lm_bexpr *e, const lm_array *x);
/* -x into *out (new array; caller releases); 22003 for -(-32768) and
 * -(-2147483648), LM_ERR_NOMEM. */
int lm_num_neg(const lm_bexpr *e, const lm_array *x, lm_array **out,
               lm_error *err);

/* abs(x) (LM_FN_ABS) when e's type is SMALLINT, INTEGER or REAL (the
 * binder keeps the argument's type, as PostgreSQL's int2abs / int4abs /
 * float4abs): x evaluated over `in`, *out a new array (caller releases);
 * 22003 for abs(-32768) / abs(-2147483648), LM_ERR_NOMEM. */
int lm_num_abs(const lm_bexpr *e, const lm_batch *in, lm_array **out,
               lm_error *err);

#endif
