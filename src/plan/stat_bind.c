/*
 * plan/stat_bind.c — binding of the two-argument statistical aggregates
 * corr, covar_pop, covar_samp and regr_* (PostgreSQL 15's float8
 * aggregates; docs/aggregates.md): two consecutive aggregate slots, the
 * LM_AGG_REGR one over Y and an LM_AGG_PAIR one over X (exec/agg_table.c
 * reads both).
 */
#include <string.h>

#include "exec/agg_stat.h"
#include "plan/bind_internal.h"

lm_bexpr *lm_bind_regr(lm_bctx *c, lm_bctx *in, const lm_expr *e, lm_bexpr *flt,
                       int fn) {
  lm_plan *p = c->plan;
  if (e->n_args != 2)
    return lm_bind_agg_undefined(c, in, e);
  if (e->distinct) {
    lm_bind_fail(c, e, "%s(DISTINCT ...) is not supported", e->name, NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  lm_bexpr *a[2];
  for (int i = 0; i < 2; i++) {
    if (lm_bind_expr_has_agg(e->args[i])) {
      lm_bind_fail(c, e->args[i], "aggregate function calls cannot be nested",
                   NULL, NULL);
      lm_err_state(c->err, "42803"); /* grouping_error */
      return NULL;
    }
    if (!(a[i] = lm_bind_expr(in, e->args[i])) ||
        lm_bind_agg_outer_only(c, e, a[i]))
      return NULL;
    lm_type t = a[i]->type;
    if (!is_num(t) && !is_null(t) && t.id != LM_TYPE_DECIMAL128)
      return lm_bind_agg_undefined(c, in, e);
  }
  for (int i = 0; i < 2; i++) {
    if (!(a[i] = lm_bind_cast(in, a[i], lm_type_make(LM_TYPE_FLOAT64))))
      return NULL;
    if (flt) { /* FILTER: CASE WHEN f THEN v END */
      lm_bexpr *cs = lm_bind_node(in, LM_BX_CASE, a[i]->type, e, 2);
      if (!cs)
        return NULL;
      cs->args[0] = flt;
      cs->args[1] = a[i];
      a[i] = cs;
    }
  }
  int idx = -1;
  for (int i = 0; i + 1 < p->n_aggs && idx < 0; i++)
    if (p->aggs[i].kind == LM_AGG_REGR && p->aggs[i].regr_fn == fn &&
        lm_bexpr_equal(p->aggs[i].arg, a[0]) &&
        lm_bexpr_equal(p->aggs[i + 1].arg, a[1]))
      idx = i;
  lm_type out = lm_type_make(fn < 0 ? LM_TYPE_INT64 : LM_TYPE_FLOAT64);
  if (idx < 0) {
    lm_agg_spec *na =
        lm_arena_alloc(c->arena, sizeof *na * (size_t)(p->n_aggs + 2));
    if (!na) {
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
    if (p->n_aggs)
      memcpy(na, p->aggs, sizeof *na * (size_t)p->n_aggs);
    memset(&na[p->n_aggs], 0, sizeof *na * 2);
    for (int i = 0; i < 2; i++) {
      lm_agg_spec *s = &na[p->n_aggs + i];
      s->kind = i ? LM_AGG_PAIR : LM_AGG_REGR;
      s->arg = a[i];
      s->in_type = lm_type_make(LM_TYPE_FLOAT64);
      s->out_type = i ? s->in_type : out;
      s->regr_fn = fn;
    }
    p->aggs = na;
    idx = p->n_aggs;
    p->n_aggs += 2;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_COLUMN, out, e, 0);
  if (r)
    r->col = p->n_keys + idx;
  return r;
}

/* ----------------------------------------------- ordered-set aggregates */

bool lm_bind_is_ordset(const char *name) {
  return !strcmp(name, "percentile_cont") || !strcmp(name, "percentile_disc") ||
         !strcmp(name, "mode");
}

static lm_bexpr *ordset_fail(lm_bctx *c, const lm_expr *at, const char *msg,
                             const char *a, const char *state) {
  lm_bind_fail(c, at, msg, a, NULL);
  lm_err_state(c->err, state);
  return NULL;
}

lm_bexpr *lm_bind_ordset(lm_bctx *c, lm_bctx *in, const lm_expr *e,
                         lm_bexpr *flt) {
  lm_plan *p = c->plan;
  const char *n = e->name;
  if (!lm_bind_is_ordset(n))
    return ordset_fail(c, e,
                       "%s is not an ordered-set aggregate, so it cannot have "
                       "WITHIN GROUP",
                       n, "42809");
  if (!e->within_group)
    return ordset_fail(c, e,
                       "WITHIN GROUP is required for ordered-set aggregate %s",
                       n, "42809");
  bool mode = n[0] == 'm', cont = !mode && n[11] == 'c';
  if (e->n_args != (mode ? 0 : 1) || e->n_agg_order != 1)
    return lm_bind_agg_undefined(c, in, e);
  lm_agg_spec s;
  memset(&s, 0, sizeof s);
  s.kind = mode ? LM_AGG_MODE : cont ? LM_AGG_PCT_CONT : LM_AGG_PCT_DISC;
  if (!mode) { /* the fraction: a constant */
    if (lm_bind_expr_has_agg(e->args[0]))
      return ordset_fail(c, e->args[0],
                         "aggregate function calls cannot be nested", NULL,
                         "42803");
    lm_bexpr *f = lm_bind_expr(in, e->args[0]);
    if (!f)
      return NULL;
    if (!is_num(f->type) && !is_null(f->type) &&
        f->type.id != LM_TYPE_DECIMAL128)
      return lm_bind_agg_undefined(c, in, e);
    if (!(f = lm_bind_cast(in, f, lm_type_make(LM_TYPE_FLOAT64))) ||
        !(f = lm_bind_fold(in, f)))
      return NULL;
    if (f->kind != LM_BX_LITERAL)
      return ordset_fail(c, e->args[0],
                         "%s with a fraction that is not a constant is not "
                         "supported",
                         n, "0A000");
    s.frac_null = f->lit.is_null;
    s.frac = f->lit.is_null ? 0 : f->lit.v.f;
  }
  const lm_order_item *oi = &e->agg_order[0];
  if (lm_bind_expr_has_agg(oi->expr))
    return ordset_fail(c, oi->expr, "aggregate function calls cannot be nested",
                       NULL, "42803");
  lm_bexpr *x = lm_bind_expr(in, oi->expr);
  if (!x || lm_bind_agg_outer_only(c, e, x))
    return NULL;
  lm_type t = x->type, back = lm_type_make(LM_TYPE_NULL);
  if (cont) {
    if (!is_num(t) && !is_null(t) && t.id != LM_TYPE_DECIMAL128)
      return lm_bind_agg_undefined(c, in, e);
    x = lm_bind_cast(in, x, lm_type_make(LM_TYPE_FLOAT64));
  } else if (is_null(t)) {
    x = lm_bind_cast(in, x, lm_type_make(LM_TYPE_INT64));
  } else if (t.id == LM_TYPE_FLOAT32) {
    x = lm_bind_cast(in, x, lm_type_make(LM_TYPE_FLOAT64));
    back = t; /* real: kept as DOUBLE, cast back (exact) */
  } else if (lm_type_is_bpchar(t)) {
    return ordset_fail(c, oi->expr, "%s of CHAR(n) is not supported", n,
                       "0A000");
  } else if (!is_num(t) && t.id != LM_TYPE_DECIMAL128 && t.id != LM_TYPE_UTF8 &&
             t.id != LM_TYPE_DATE32 && t.id != LM_TYPE_TIMESTAMP &&
             t.id != LM_TYPE_BOOL) {
    return ordset_fail(c, oi->expr, "%s of %s is not supported", n, "0A000");
  }
  if (!x)
    return NULL;
  if (flt) { /* FILTER: CASE WHEN f THEN x END */
    lm_bexpr *cs = lm_bind_node(in, LM_BX_CASE, x->type, e, 2);
    if (!cs)
      return NULL;
    cs->args[0] = flt;
    cs->args[1] = x;
    x = cs;
  }
  s.arg = x;
  s.in_type = x->type;
  s.out_type = cont ? lm_type_make(LM_TYPE_FLOAT64) : x->type;
  s.order_desc = oi->desc;
  int idx = -1;
  for (int i = 0; i < p->n_aggs && idx < 0; i++)
    if (p->aggs[i].kind == s.kind && p->aggs[i].order_desc == s.order_desc &&
        p->aggs[i].frac_null == s.frac_null && p->aggs[i].frac == s.frac &&
        lm_bexpr_equal(p->aggs[i].arg, s.arg))
      idx = i;
  if (idx < 0 && (idx = lm_bind_agg_append(c, &s)) < 0)
    return NULL;
  lm_bexpr *r = lm_bind_node(c, LM_BX_COLUMN, s.out_type, e, 0);
  if (r)
    r->col = p->n_keys + idx;
  if (r && back.id == LM_TYPE_FLOAT32)
    return lm_bind_cast(c, r, back);
  return r;
}
