/*
 * plan/row_count_bind.c — count(ROW(a, b, ...)) and count(DISTINCT (a, b,
 * ...)) of a row constructor (plan/row_count_bind.h).
 *
 * PostgreSQL counts a row value unless the row itself is NULL, which a
 * row constructor never is: (NULL, NULL) counts, and DISTINCT compares
 * rows field by field with NULL equal to NULL (record_eq). Laminar has no
 * record values; the row is counted as an array key that keeps those
 * rules (a NULL item equals a NULL item; the array is never NULL):
 * ARRAY[a, b] when the fields have one type (compared as the type
 * compares: 0 = -0, '1 mon' = '30 days'), else ARRAY[a::text, b::text]
 * with a float field's -0 as 0 (equal values, equal text: integers,
 * numerics of one column's scale, text, dates, timestamps; CHAR without
 * its trailing blanks).
 */
#include <string.h>

#include "plan/array_bind.h"
#include "plan/bind_internal.h"
#include "plan/row_count_bind.h"

static bool is_row(const lm_expr *e) {
  return e && e->kind == LM_EXPR_FUNC && e->name && !strcmp(e->name, "row") &&
         !e->over && !e->distinct && !e->filter && e->n_args > 0;
}

bool lm_row_count_applies(const lm_expr *e) {
  return e->kind == LM_EXPR_FUNC && e->name && !strcmp(e->name, "count") &&
         e->n_args == 1 && is_row(e->args[0]) && !e->within_group;
}

static lm_expr *nomem(lm_bctx *c) {
  lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  return NULL;
}

/* f as text, a float's -0 as 0 (f + 0: -0 + 0 is 0). */
static lm_expr *as_text(lm_bctx *c, lm_expr *f, lm_type t) {
  lm_arena *a = c->arena;
  lm_expr *x = f;
  if (t.id == LM_TYPE_FLOAT32 || t.id == LM_TYPE_FLOAT64) {
    lm_expr *z = lm_sql_node(a, LM_EXPR_LITERAL, f->line, f->column, 0);
    if (!z)
      return NULL;
    z->lit = LM_LIT_INT;
    z->ival = 0;
    z->text = "0";
    x = lm_sql_op_node(a, LM_EXPR_BINARY, LM_OP_ADD, f, z, f->line, f->column);
  }
  lm_expr *cs = x ? lm_sql_node(a, LM_EXPR_CAST, f->line, f->column, 1) : NULL;
  if (!cs)
    return NULL;
  cs->args[0] = x;
  cs->cast_type = lm_type_make(LM_TYPE_UTF8);
  return cs;
}

const lm_expr *lm_row_count_rewrite(lm_bctx *c, const lm_expr *e) {
  const lm_expr *row = e->args[0];
  int n = row->n_args;
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = c->plan->input_schema;
  lm_type *ts = lm_arena_alloc(c->arena, sizeof *ts * (size_t)n);
  if (!ts)
    return nomem(c);
  bool same = true;
  for (int i = 0; i < n; i++) {
    lm_bexpr *x = lm_bind_expr(&in, row->args[i]);
    if (!x)
      return NULL;
    ts[i] = x->type;
    if (lm_bind_is_unknown(row->args[i], x))
      ts[i] = lm_type_make(LM_TYPE_UTF8);
    same = same && (!i || lm_type_eq(ts[i], ts[0]));
  }
  lm_type lt;
  if (same && (!lm_bind_list_of(ts[0], &lt) || ts[0].id == LM_TYPE_NULL ||
               lm_type_is_bpchar(ts[0])))
    same = false;
  lm_expr *arr = lm_sql_node(c->arena, LM_EXPR_FUNC, row->line, row->column, n);
  lm_expr *ne = lm_arena_alloc(c->arena, sizeof *ne);
  lm_expr **na = lm_arena_alloc(c->arena, sizeof *na);
  if (!arr || !ne || !na)
    return nomem(c);
  arr->name = "__array";
  for (int i = 0; i < n; i++)
    if (!(arr->args[i] = same ? row->args[i] : as_text(c, row->args[i], ts[i])))
      return nomem(c);
  *ne = *e;
  na[0] = arr;
  ne->args = na;
  return ne;
}
