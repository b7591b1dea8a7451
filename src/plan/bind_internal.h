/*
 * plan/ internals shared by the binder's files: the binding context and
 * the helpers every binding step uses. Not part of any public API.
 */
#ifndef LM_BIND_INTERNAL_H
#define LM_BIND_INTERNAL_H

#include "plan/lm_plan.h"

typedef struct lm_bctx {
  lm_arena *arena;
  const lm_schema *in;
  const char *from;
  lm_plan *plan; /* non-NULL when aggregates are allowed */
  bool post;     /* binding over the aggregate output */
  lm_error *err;
  int depth;
  bool window_ok; /* binding GROUP BY keys: session() is allowed */
} lm_bctx;

static inline bool is_int(lm_type t) {
  return lm_type_is_integer(t);
}
static inline bool is_float(lm_type t) {
  return t.id == LM_TYPE_FLOAT32 || t.id == LM_TYPE_FLOAT64;
}
static inline bool is_num(lm_type t) {
  return lm_type_is_numeric(t);
}
static inline bool is_null(lm_type t) {
  return t.id == LM_TYPE_NULL;
}

/* Binds an expression over c->in (binder.c). NULL with c->err set. */
lm_bexpr *lm_bind_expr(lm_bctx *c, const lm_expr *e);
/* A new bound node of `kind` and `type` with n_args argument slots, at the
 * position of `at` (may be NULL), in c->arena. NULL on OOM (err set). */
lm_bexpr *lm_bind_node(lm_bctx *c, lm_bexpr_kind kind, lm_type type,
                       const lm_expr *at, int n_args);
/* Sets LM_ERR_BIND at `at`'s line:column with fmt (up to two %s: a, b);
 * returns the error code. */
int lm_bind_fail(lm_bctx *c, const lm_expr *at, const char *fmt, const char *a,
                 const char *b);
/* x cast to t (x itself when it already has type t; NULL literals are
 * retyped in place). NULL on OOM or when x is NULL. */
lm_bexpr *lm_bind_cast(lm_bctx *c, lm_bexpr *x, lm_type t);
/* a op b with PostgreSQL's operand coercions; NULL with err set. */
lm_bexpr *lm_bind_binary(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                         lm_bexpr *b);
bool lm_bind_is_agg_name(const char *n);
/* A scalar function call (func_bind.c): resolves the name, checks and
 * casts the arguments. NULL with err set ("function f() does not exist"). */
lm_bexpr *lm_bind_func(lm_bctx *c, const lm_expr *e);

#endif
