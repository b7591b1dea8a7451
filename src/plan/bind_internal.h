/*
 * plan/ internals shared by the binder's files: the binding context and
 * the helpers every binding step uses. Not part of any public API.
 */
#ifndef LM_BIND_INTERNAL_H
#define LM_BIND_INTERNAL_H

#include "plan/lm_plan.h"

/* The names visible over a join's output (join_bind.c): each entry maps
 * [rel.]name to a column of the input batch, or to an expression over it
 * (a FULL JOIN's USING column is COALESCE(left, right)). */
typedef struct lm_scope_col {
  const char *rel;     /* qualifier (alias or object name); NULL = merged */
  const char *name;    /* column name */
  int col;             /* column index in the input */
  lm_bexpr *expr;      /* non-NULL: the value (instead of col) */
  bool qualified_only; /* only rel.name finds it (a side of a USING col) */
  bool star;           /* expanded by SELECT * */
} lm_scope_col;

typedef struct lm_scope {
  lm_scope_col *cols;
  int n;
} lm_scope;

typedef struct lm_bctx {
  lm_arena *arena;
  const lm_schema *in;
  const char *from;
  lm_plan *plan; /* non-NULL when aggregates are allowed */
  bool post;     /* binding over the aggregate output */
  lm_error *err;
  int depth;
  bool window_ok;        /* binding GROUP BY keys: session() is allowed */
  const lm_scope *scope; /* names over a join's output; NULL = c->in's */
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
/* a ~ b, ~*, !~, !~* (BOOLEAN) and a -> b, a ->> b (VARCHAR JSON / text)
 * as LM_BX_FUNC nodes (func_bind.c); NULL with err set (a literal
 * pattern that does not compile: SQLSTATE 2201B). */
lm_bexpr *lm_bind_other_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                           lm_bexpr *b);
/* Constant folding as PostgreSQL's planner does it (func_bind.c): x when
 * it reads a column or a volatile function (random()); otherwise the value
 * it evaluates to, as a literal in c->arena. NULL with err set when that
 * evaluation fails (e.g. "division by zero" for 1/0, even in a CASE branch
 * not taken: PostgreSQL raises it when planning too) or on OOM. */
lm_bexpr *lm_bind_fold(lm_bctx *c, lm_bexpr *x);
/* Turns constant folding off (+1) or back on (-1) for what is bound in
 * between, as PostgreSQL does not simplify what a constant already
 * decided: the COALESCE arguments after a non-NULL constant, the AND / OR
 * operand after a constant FALSE / TRUE, a CASE branch behind a constant
 * condition. Nests; per thread. */
void lm_bind_no_fold(int delta);
/* Frees p->join (its inputs' subquery plans, its steps' schemas) and
 * p->join_arena; sets both to NULL (join_bind.c). */
void lm_plan_free_join(lm_plan *p);
/* lm_plan_select with the names of `scope` (NULL = input's own names):
 * columns resolve through it and SELECT * / rel.* expand its entries. */
int lm_plan_select_scope(const lm_select *sel, lm_schema *input,
                         const char *from_name, const lm_scope *scope,
                         lm_plan **out, lm_error *err);
/* A scalar function call (func_bind.c): resolves the name, checks and
 * casts the arguments. NULL with err set ("function f() does not exist"). */
lm_bexpr *lm_bind_func(lm_bctx *c, const lm_expr *e);

#endif
