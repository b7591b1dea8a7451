/*
 * exec/expr_num.h — SMALLINT, INTEGER and REAL arithmetic for the
 * vectorized evaluator (expr_eval.c calls in here): PostgreSQL's int2 /
 * int4 / float4 operators, computed in their own width, with its overflow
 * errors (docs/types.md, "Integer and float widths").
 */
#ifndef LM_EXPR_NUM_H
#define LM_EXPR_NUM_H

#include "exec/lm_exec.h"
#include <string.h>

/* --- the builders of expression results (expr_eval.c, expr_num.c) --- */

/* b: a builder of n rows of fixed-width type t with length n, values
 * uninitialised (BOOL: all false), all valid. LM_ERR_NOMEM (b freed). */
static inline int lm_out_fixed(lm_builder *b, lm_type t, int64_t n) {
  if (lm_builder_init(b, t, n) != 0)
    return LM_ERR_NOMEM;
  if (b->capacity < n && lm_builder_grow(b, n) != 0) {
    lm_builder_free(b);
    return LM_ERR_NOMEM;
  }
  if (t.id == LM_TYPE_BOOL && n > 0)
    memset(b->values, 0, (size_t)(n + 7) / 8);
  b->length = n;
  return 0;
}
/* Marks row i of b NULL (an OOM shows at lm_out_finish via b->oom). */
static inline void lm_out_null(lm_builder *b, int64_t i) {
  if (!b->validity && lm_builder_ensure_validity(b) != 0) {
    b->oom = true;
    return;
  }
  lm_bit_clear(b->validity, i);
  b->null_count++;
}
/* Finishes b into *out (a new array) and frees b. LM_ERR_NOMEM. */
static inline int lm_out_finish(lm_builder *b, lm_array **out, lm_error *err) {
  int rc = lm_builder_finish(b, out);
  lm_builder_free(b);
  return rc ? lm_err(err, LM_ERR_NOMEM, "out of memory") : 0;
}

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

/* Whether the three-way comparison result c (< 0, 0, > 0) satisfies the
 * comparison operator op (=, <>, <, <=, >, >=); false for any other op. */
static inline bool lm_cmp_holds(lm_op op, int c) {
  switch (op) {
  case LM_OP_EQ:
    return c == 0;
  case LM_OP_NE:
    return c != 0;
  case LM_OP_LT:
    return c < 0;
  case LM_OP_LE:
    return c <= 0;
  case LM_OP_GT:
    return c > 0;
  case LM_OP_GE:
    return c >= 0;
  default:
    return false;
  }
}

#endif
