/*
 * api/srf_guard.c — PostgreSQL filters a table's rows (WHERE) before a
 * lateral function in FROM or a set-returning call in the select list
 * sees them; Laminar computes the calls over all of the relation's rows
 * and filters after, so a JSON function would fail on a row the WHERE
 * drops (SELECT json_array_elements(doc) FROM t WHERE json_typeof(doc) =
 * 'array'). The guard passes such a call NULL (no rows, no error) where
 * the WHERE does not hold: f(CASE WHEN <the WHERE's conjuncts that do
 * not read the function's columns> THEN x END). The rows the guard
 * empties are the ones the WHERE removes, so answers do not change.
 */
#include <string.h>

#include "api/srf_from.h"
#include "base/lm_base.h"

/* Whether e reads a column of function item fn (qualified by its name,
 * or unqualified with one of its column names), calls a subquery or a
 * volatile function: such a conjunct stays out of the guard. */
static bool unfit(const lm_expr *e, const lm_from *fn, int depth) {
  if (!e)
    return false;
  if (depth > 200 || e->kind == LM_EXPR_SUBQUERY || e->kind == LM_EXPR_STAR)
    return true;
  if (e->kind == LM_EXPR_FUNC &&
      (e->over ||
       (e->name && (!strcmp(e->name, "random") || !strcmp(e->name, "nextval") ||
                    lm_srf_is_name(e->name)))))
    return true;
  if (e->kind == LM_EXPR_COLUMN) {
    const char *rel = fn->alias ? fn->alias : fn->name;
    if (e->table)
      return rel && !lm_strcasecmp(e->table, rel);
    for (int i = 0; i < fn->n_col_aliases; i++)
      if (fn->col_aliases[i] && !lm_strcasecmp(e->name, fn->col_aliases[i]))
        return true;
    for (int j = 0; j < fn->n_funcs; j++)
      if (!lm_strcasecmp(e->name, fn->funcs[j]->name))
        return true;
    if (fn->n_funcs == 1 && fn->alias && !lm_strcasecmp(e->name, fn->alias))
      return true;
    return !lm_strcasecmp(e->name, "ordinality") ||
           !lm_strcasecmp(e->name, "key") || !lm_strcasecmp(e->name, "value");
  }
  for (int i = 0; i < e->n_args; i++)
    if (unfit(e->args[i], fn, depth + 1))
      return true;
  return false;
}

/* The AND of where's conjuncts that fit (NULL: none), in arena a. */
static lm_expr *fitting(lm_arena *a, lm_expr *w, const lm_from *fn, int depth) {
  if (!w || depth > 200)
    return NULL;
  if (w->kind == LM_EXPR_BINARY && w->op == LM_OP_AND && w->n_args == 2) {
    lm_expr *l = fitting(a, w->args[0], fn, depth + 1),
            *r = fitting(a, w->args[1], fn, depth + 1);
    if (!l || !r)
      return l ? l : r;
    if (l == w->args[0] && r == w->args[1])
      return w;
    lm_expr *x = lm_arena_alloc(a, sizeof *x);
    lm_expr **xa = lm_arena_alloc(a, 2 * sizeof *xa);
    if (!x || !xa)
      return NULL;
    *x = *w;
    xa[0] = l;
    xa[1] = r;
    x->args = xa;
    return x;
  }
  return unfit(w, fn, 0) ? NULL : w;
}

static lm_expr *guarded(lm_arena *a, lm_expr *call, lm_expr *cond) {
  lm_expr *c = lm_arena_alloc(a, sizeof *c), *k = lm_arena_alloc(a, sizeof *k);
  lm_expr **ca = lm_arena_alloc(a, 2 * sizeof *ca),
          **ka = lm_arena_alloc(a, sizeof *ka);
  if (!c || !k || !ca || !ka)
    return NULL;
  memset(c, 0, sizeof *c);
  c->kind = LM_EXPR_CASE;
  c->line = call->args[0]->line;
  c->column = call->args[0]->column;
  ca[0] = cond;
  ca[1] = call->args[0];
  c->args = ca;
  c->n_args = 2;
  *k = *call;
  ka[0] = c;
  k->args = ka;
  return k;
}

int lm_srf_guard(lm_arena *a, const lm_select *sel, const lm_select **out) {
  *out = sel;
  const lm_from *j = sel->from_clause;
  if (!sel->where || !j || j->kind != LM_FROM_JOIN || !j->right ||
      j->right->kind != LM_FROM_FUNCTION || !j->left ||
      (j->left->kind != LM_FROM_TABLE && j->left->kind != LM_FROM_SUBQUERY) ||
      (j->join != LM_SQL_JOIN_CROSS && j->join != LM_SQL_JOIN_INNER &&
       j->join != LM_SQL_JOIN_LEFT))
    return 0;
  const lm_from *fn = j->right;
  bool any = false;
  for (int i = 0; i < fn->n_funcs; i++)
    any = any || (lm_srf_is_json(lm_srf_kind_of(fn->funcs[i]->name)) &&
                  fn->funcs[i]->n_args == 1);
  if (!any)
    return 0;
  lm_expr *cond = fitting(a, sel->where, fn, 0);
  if (!cond)
    return 0;
  lm_from *nf = lm_arena_alloc(a, sizeof *nf),
          *nj = lm_arena_alloc(a, sizeof *nj);
  lm_expr **calls = lm_arena_alloc(a, (size_t)fn->n_funcs * sizeof *calls);
  lm_select *ns = lm_arena_alloc(a, sizeof *ns);
  if (!nf || !nj || !calls || !ns)
    return LM_ERR_NOMEM;
  for (int i = 0; i < fn->n_funcs; i++) {
    lm_expr *f = fn->funcs[i];
    calls[i] = f;
    if (lm_srf_is_json(lm_srf_kind_of(f->name)) && f->n_args == 1 &&
        !(calls[i] = guarded(a, f, cond)))
      return LM_ERR_NOMEM;
  }
  *nf = *fn;
  nf->funcs = calls;
  *nj = *j;
  nj->right = nf;
  *ns = *sel;
  ns->from_clause = nj;
  *out = ns;
  return 0;
}
