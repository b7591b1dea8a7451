/*
 * exec/expr_inset.h — a long OR of `x = constant` tests (an ORM's
 * `a = 1 OR a = 2 OR ...`, an IN list) as one sorted set of the constants:
 * each row is one binary search instead of one comparison per term. x is
 * a column or an expression of columns written the same way in every term
 * (an IN list's left operand: lower(s), a + 1, a cast), evaluated once per
 * row. The binder attaches the set to the root of the OR tree
 * (lm_bexpr.inset); the evaluator answers the whole tree from it.
 * Three-valued as the ORs: a NULL x gives NULL, a value in the set TRUE,
 * else NULL when a term is `x = NULL` (or a folded NULL), else FALSE; NOT
 * IN is the NOT of that.
 */
#ifndef LM_EXPR_INSET_H
#define LM_EXPR_INSET_H

#include "exec/lm_exec.h"

struct lm_arena;

typedef struct lm_inset {
  lm_type type;  /* x's type (INT16/32/64, TIMESTAMP, INTERVAL, DATE32, UTF8,
                    FLOAT64, DECIMAL128) */
  int64_t n;     /* distinct constants */
  int64_t *ints; /* sorted, for the integer-like types */
  struct lm_inset_str {
    const char *p;
    int32_t len;
  } * strs;       /* sorted by bytes, for UTF8 */
  double *dbls;   /* sorted, for FLOAT64 (no NaN among them) */
  __int128 *decs; /* sorted unscaled values, for DECIMAL128 (x's scale) */
  bool has_null;  /* a term is NULL: a miss is NULL, not FALSE */
} lm_inset;

/* Fewest terms worth a set (shorter chains evaluate as they are). */
#define LM_INSET_MIN 16

/* The set of the terms leaves[0..n) of an OR chain when every one is
 * `x = constant` or `constant = x` for one x (equal trees without
 * subqueries or volatile functions) of a supported type and a constant of
 * that type (integers of any width for an integer x), or a NULL constant;
 * NULL otherwise (or when n < LM_INSET_MIN, or out of memory: the ORs are
 * then evaluated as they are). Arena-allocated in a (the plan's arena);
 * the constants' bytes are borrowed from the leaves (the same arena). */
const lm_inset *lm_inset_build(lm_bexpr *const *leaves, int n,
                               struct lm_arena *a);

/* Sets x->inset when x is an OR tree whose terms (the operands under its
 * OR nodes, left to right) make a set (lm_inset_build); else leaves x as
 * it is. x's nodes live in a. */
void lm_inset_attach(lm_bexpr *x, struct lm_arena *a);

/* e (the OR root carrying the set) over `in`: *out a new BOOL array of
 * in->num_rows rows. -1 (nothing done) when the input's column does not
 * fit the set: the caller evaluates the ORs. Errors: LM_ERR_NOMEM, and
 * x's own (lm_eval). */
int lm_inset_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err);

#endif
