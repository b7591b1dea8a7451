/*
 * api/srf_guard.c — PostgreSQL filters a table's rows (WHERE, and an
 * inner join's ON) before a lateral function in FROM or a set-returning
 * call in the select list sees them; Laminar computes the calls over all
 * of the relation's rows and filters after, so a call would fail on a
 * row the filter drops (SELECT json_array_elements(doc) FROM t WHERE
 * json_typeof(doc) = 'array'; FROM t JOIN generate_series(1, 20 / t.v) g
 * ON t.v <> 0). The guard passes such a call NULL (no rows, no error)
 * where the filter does not hold: f(CASE WHEN <the conjuncts that read
 * none of the functions' columns> THEN x END). The rows the guard empties
 * are the ones the filter removes, so answers do not change. The ad-hoc
 * paths add the same rule with the catalog at hand
 * (select_lateral.c lm_lateral_guard_func / lm_lateral_guard_chain).
 */
#include <string.h>

#include "api/srf_from.h"
#include "base/lm_base.h"

#define MAX_ITEMS 64

/* The function items of a left-deep FROM chain `base, f(..) [INNER |
 * LEFT] JOIN g(..) ...` and the filter they see. */
typedef struct chain {
  const lm_from *fn[MAX_ITEMS];
  int n;
} chain;

/* Whether e reads a column of function item fn (qualified by its name,
 * or unqualified with one of its column names). */
static bool reads_fn(const lm_expr *e, const lm_from *fn) {
  const char *rel = fn->alias ? fn->alias : fn->name;
  if (e->table)
    return rel && !lm_strcasecmp(e->table, rel);
  for (int i = 0; i < fn->n_col_aliases; i++)
    if (fn->col_aliases[i] && !lm_strcasecmp(e->name, fn->col_aliases[i]))
      return true;
  for (int j = 0; j < fn->n_funcs; j++)
    if (fn->funcs[j]->name && !lm_strcasecmp(e->name, fn->funcs[j]->name))
      return true;
  if (fn->alias && !lm_strcasecmp(e->name, fn->alias))
    return true;
  return !lm_strcasecmp(e->name, "ordinality") ||
         !lm_strcasecmp(e->name, "key") || !lm_strcasecmp(e->name, "value");
}

/* Whether e reads a column of a function item of ch, calls a subquery, an
 * aggregate or window function, or a volatile or set-returning function:
 * such a conjunct stays out of the guard. */
static bool unfit(const lm_expr *e, const chain *ch, int depth) {
  if (!e)
    return false;
  if (depth > 200 || e->kind == LM_EXPR_SUBQUERY || e->kind == LM_EXPR_STAR)
    return true;
  if (e->kind == LM_EXPR_FUNC &&
      (e->over || e->filter || e->distinct ||
       (e->name && (!strcmp(e->name, "random") || !strcmp(e->name, "nextval") ||
                    lm_srf_is_name(e->name)))))
    return true;
  if (e->kind == LM_EXPR_COLUMN) {
    if (!e->name)
      return true;
    for (int k = 0; k < ch->n; k++)
      if (reads_fn(e, ch->fn[k]))
        return true;
    return false;
  }
  for (int i = 0; i < e->n_args; i++)
    if (unfit(e->args[i], ch, depth + 1))
      return true;
  return false;
}

/* The AND of w's conjuncts that fit (NULL: none), in arena a. */
static lm_expr *fitting(lm_arena *a, lm_expr *w, const chain *ch, int depth) {
  if (!w || depth > 200)
    return NULL;
  if (w->kind == LM_EXPR_BINARY && w->op == LM_OP_AND && w->n_args == 2) {
    lm_expr *l = fitting(a, w->args[0], ch, depth + 1),
            *r = fitting(a, w->args[1], ch, depth + 1);
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
  return unfit(w, ch, 0) ? NULL : w;
}

static lm_expr *and_of(lm_arena *a, lm_expr *l, lm_expr *r) {
  if (!l || !r)
    return l ? l : r;
  return lm_sql_op_node(a, LM_EXPR_BINARY, LM_OP_AND, l, r, l->line, l->column);
}

static bool reads_col(const lm_expr *e, int depth) {
  if (!e || depth > 200)
    return false;
  if (e->kind == LM_EXPR_COLUMN || e->kind == LM_EXPR_SUBQUERY)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (reads_col(e->args[i], depth + 1))
      return true;
  return false;
}

lm_expr *lm_srf_guard_call(lm_arena *a, lm_expr *call, lm_expr *cond) {
  bool any = false;
  for (int i = 0; i < call->n_args; i++)
    any = any || reads_col(call->args[i], 0);
  if (!any || call->over)
    return call;
  lm_expr *k = lm_arena_alloc(a, sizeof *k);
  lm_expr **ka = lm_arena_alloc(a, (size_t)call->n_args * sizeof *ka);
  if (!k || !ka)
    return NULL;
  *k = *call;
  for (int i = 0; i < call->n_args; i++) {
    lm_expr *x = call->args[i];
    ka[i] = x;
    if (!reads_col(x, 0))
      continue;
    /* CASE WHEN cond THEN x END: NULL (no rows, no error) where the
     * filter removes the row */
    lm_expr *c = lm_sql_node(a, LM_EXPR_CASE, x->line, x->column, 2);
    if (!c)
      return NULL;
    c->args[0] = cond;
    c->args[1] = x;
    ka[i] = c;
  }
  k->args = ka;
  return k;
}

/* A copy of chain link j (a JOIN whose right side is a function item)
 * and of the links below it, the calls guarded by cond. */
static int rebuild(lm_arena *a, const lm_from *j, lm_expr *cond, lm_from **out,
                   int depth) {
  *out = (lm_from *)j;
  if (!j || j->kind != LM_FROM_JOIN || depth > MAX_ITEMS)
    return 0;
  lm_from *nj = lm_arena_alloc(a, sizeof *nj),
          *nf = lm_arena_alloc(a, sizeof *nf);
  const lm_from *fn = j->right;
  lm_expr **calls = lm_arena_alloc(a, (size_t)(fn->n_funcs ? fn->n_funcs : 1) *
                                          sizeof *calls);
  if (!nj || !nf || !calls)
    return LM_ERR_NOMEM;
  for (int i = 0; i < fn->n_funcs; i++)
    if (!(calls[i] = lm_srf_guard_call(a, fn->funcs[i], cond)))
      return LM_ERR_NOMEM;
  *nf = *fn;
  nf->funcs = calls;
  *nj = *j;
  nj->right = nf;
  *out = nj;
  return rebuild(a, j->left, cond, &nj->left, depth + 1);
}

int lm_srf_guard(lm_arena *a, const lm_select *sel, const lm_select **out) {
  *out = sel;
  chain ch = {.n = 0};
  lm_expr *filter = sel->where;
  const lm_from *f = sel->from_clause;
  for (; f && f->kind == LM_FROM_JOIN; f = f->left) {
    if (ch.n >= MAX_ITEMS || f->asof || !f->right ||
        f->right->kind != LM_FROM_FUNCTION ||
        (f->join != LM_SQL_JOIN_CROSS && f->join != LM_SQL_JOIN_INNER &&
         f->join != LM_SQL_JOIN_LEFT))
      return 0;
    ch.fn[ch.n++] = f->right;
    /* an inner join's ON filters the rows as the WHERE does (the chain
     * has no outer join's nullable side above the base) */
    if (f->join == LM_SQL_JOIN_INNER && f->on &&
        !(filter = and_of(a, filter, f->on)))
      return LM_ERR_NOMEM;
  }
  if (!ch.n || !filter || !f ||
      (f->kind != LM_FROM_TABLE && f->kind != LM_FROM_SUBQUERY))
    return 0;
  lm_expr *cond = fitting(a, filter, &ch, 0);
  if (!cond)
    return 0;
  lm_from *nf = NULL;
  lm_select *ns = lm_arena_alloc(a, sizeof *ns);
  if (!ns || rebuild(a, sel->from_clause, cond, &nf, 0))
    return LM_ERR_NOMEM;
  *ns = *sel;
  ns->from_clause = nf;
  *out = ns;
  return 0;
}
