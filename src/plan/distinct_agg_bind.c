/*
 * plan/distinct_agg_bind.c — array_agg(DISTINCT x), json_agg(DISTINCT x)
 * and jsonb_agg(DISTINCT x) (docs/functions.md): PostgreSQL sorts a
 * DISTINCT aggregate's input by the type's order, NULL last (one NULL
 * kept), or as ORDER BY x [DESC] [NULLS ...] says. Built, as their plain
 * forms are, on string_agg: string_agg(DISTINCT __array_dkey(x, t, low),
 * ',' [ORDER BY that DESC]) whose keys sort bytewise in x's order
 * (exec/expr_dkey.c), then LM_FN_ARR_DKEY_OUT takes the item texts t back
 * out, joined by the caller's separator. So they run wherever string_agg
 * DISTINCT does (GROUP BY, materialized views with retractions).
 */
#include <string.h>

#include "exec/expr_array.h"
#include "plan/bind_internal.h"
#include "plan/distinct_agg_bind.h"

static lm_expr *new_expr(lm_bctx *c, const lm_expr *at, lm_expr_kind k) {
  lm_expr *x = lm_arena_alloc(c->arena, sizeof *x);
  if (!x) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(x, 0, sizeof *x);
  x->kind = k;
  x->line = at->line;
  x->column = at->column;
  return x;
}

lm_bexpr *lm_bind_distinct_items(lm_bctx *c, const lm_expr *e,
                                 const lm_bexpr *x, lm_expr *item,
                                 const char *sep,
                                 lm_bexpr *(*agg)(lm_bctx *, const lm_expr *)) {
  if (x->type.id != LM_TYPE_NULL && !lm_dkey_type_ok(x->type)) {
    lm_bind_fail(c, e->args[0], "%s(DISTINCT ...) of type %s is not supported",
                 e->name, lm_bind_pg_type_of(e->args[0], x));
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  bool desc = false, low = false;
  if (e->n_agg_order) {
    lm_bctx in = *c;
    in.post = false;
    in.plan = NULL;
    in.in = c->plan->input_schema;
    for (int i = 0; i < e->n_agg_order; i++) {
      const lm_order_item *oi = &e->agg_order[i];
      lm_bexpr *k = lm_bind_expr(&in, oi->expr);
      if (!k)
        return NULL;
      if (!lm_bexpr_equal(k, x)) {
        lm_bind_fail(c, oi->expr,
                     "in an aggregate with DISTINCT, ORDER BY expressions "
                     "must appear in argument list",
                     NULL, NULL);
        lm_err_state(c->err, "42P10");
        return NULL;
      }
    }
    /* the first key decides (the others repeat x) */
    const lm_order_item *oi = &e->agg_order[0];
    desc = oi->desc;
    bool nulls_first = oi->nulls == 1 || (oi->nulls == 0 && oi->desc);
    low = nulls_first != desc; /* a NULL's key below every value */
  }
  lm_expr *key = new_expr(c, e->args[0], LM_EXPR_FUNC),
          *flag = new_expr(c, e, LM_EXPR_LITERAL),
          *comma = new_expr(c, e, LM_EXPR_LITERAL),
          *sa = new_expr(c, e, LM_EXPR_FUNC);
  lm_expr **ka = lm_arena_alloc(c->arena, 3 * sizeof *ka),
          **sargs = lm_arena_alloc(c->arena, 2 * sizeof *sargs);
  lm_order_item *ord = lm_arena_alloc(c->arena, sizeof *ord);
  if (!key || !flag || !comma || !sa || !ka || !sargs || !ord) {
    if (!c->err->code)
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  flag->lit = LM_LIT_INT;
  flag->ival = low;
  key->name = "__array_dkey";
  ka[0] = e->args[0];
  ka[1] = item;
  ka[2] = flag;
  key->args = ka;
  key->n_args = 3;
  comma->lit = LM_LIT_STRING;
  comma->text = ",";
  *sa = *e;
  sa->name = "string_agg";
  sargs[0] = key;
  sargs[1] = comma;
  sa->args = sargs;
  sa->n_args = 2;
  sa->agg_order = NULL;
  sa->n_agg_order = 0;
  if (desc) {
    ord->expr = key;
    ord->desc = true;
    ord->nulls = 0;
    sa->agg_order = ord;
    sa->n_agg_order = 1;
  }
  lm_bexpr *s = agg(c, sa);
  if (!s)
    return NULL;
  lm_type txt = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *lit = lm_bind_node(c, LM_BX_LITERAL, txt, e, 0);
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, txt, e, 2);
  if (!lit || !r)
    return NULL;
  lit->lit.type = txt;
  lit->lit.v.s.p = sep;
  lit->lit.v.s.len = (int32_t)strlen(sep);
  r->fn = LM_FN_ARR_DKEY_OUT;
  r->args[0] = s;
  r->args[1] = lit;
  return r;
}
