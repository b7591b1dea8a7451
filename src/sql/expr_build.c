/*
 * sql/expr_build.c — AST nodes made outside the parser: the rewrites of
 * the api and plan layers (LATERAL keys, SRF guards, JSON of whole rows,
 * JSON aggregates OVER) build small expression trees that the binder then
 * reads as if the user had written them.
 */
#include <string.h>

#include "sql/lm_sql.h"

lm_expr *lm_sql_node(lm_arena *a, lm_expr_kind kind, int line, int column,
                     int n_args) {
  lm_expr *x = lm_arena_alloc(a, sizeof *x); /* zeroed */
  if (!x)
    return NULL;
  if (n_args > 0) {
    x->args = lm_arena_alloc(a, sizeof *x->args * (size_t)n_args);
    if (!x->args)
      return NULL;
    x->n_args = n_args;
  }
  x->kind = kind;
  x->line = line;
  x->column = column;
  return x;
}

lm_expr *lm_sql_op_node(lm_arena *a, lm_expr_kind kind, lm_op op, lm_expr *l,
                        lm_expr *r, int line, int column) {
  int n = kind == LM_EXPR_BINARY ? 2 : kind == LM_EXPR_IS_NULL ? 1 : 0;
  if ((n >= 1 && !l) || (n == 2 && !r))
    return NULL;
  lm_expr *x = lm_sql_node(a, kind, line, column, n);
  if (!x)
    return NULL;
  x->op = op;
  if (n >= 1)
    x->args[0] = l;
  if (n == 2)
    x->args[1] = r;
  return x;
}

lm_expr *lm_sql_string_lit(lm_arena *a, const char *s, int line, int column) {
  lm_expr *x = lm_sql_node(a, LM_EXPR_LITERAL, line, column, 0);
  if (x) {
    x->lit = LM_LIT_STRING;
    x->text = s;
  }
  return x;
}

void lm_sql_select_star(lm_select *ss, lm_select_item *it, lm_expr *star,
                        const char *name, int line, int column) {
  memset(star, 0, sizeof *star);
  star->kind = LM_EXPR_STAR;
  star->line = line;
  star->column = column;
  it->expr = star;
  it->alias = NULL;
  memset(ss, 0, sizeof *ss);
  ss->line = line;
  ss->column = column;
  ss->items = it;
  ss->n_items = 1;
  ss->from = name;
  ss->from_line = line;
  ss->from_column = column;
  ss->limit = -1;
}
