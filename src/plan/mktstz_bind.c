/*
 * plan/mktstz_bind.c — PostgreSQL's make_timestamptz(year, month, day,
 * hour, min, sec [, timezone]) (docs/functions.md): make_timestamp's
 * wall-clock time read in the session's time zone (a cast to timestamptz)
 * or in the given zone (timezone(zone, ts), AT TIME ZONE's function), so
 * its errors and DST rules are theirs; a literal numeric offset ('+05:30')
 * is east of UTC, as PostgreSQL's make_timestamptz reads it. A zone that
 * is no string constant (a column, NULL) is read per row (per_row_zone).
 */
#include <string.h>

#include "plan/bind_internal.h"
#include "plan/mktstz_bind.h"

/* make_timestamptz(..., zone) with a zone that is no string constant (a
 * column, an expression, NULL): make_timestamp's FUNC node with the zone
 * text as a 7th argument, read per row by expr_datefn.c as PostgreSQL's
 * make_timestamptz_at_timezone does. */
static lm_bexpr *per_row_zone(lm_bctx *c, const lm_expr *e) {
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, lm_type_timestamptz(), e, 7);
  if (!r)
    return NULL;
  r->fn = LM_FN_MAKE_TIMESTAMP;
  for (int i = 0; i < 7; i++) {
    lm_bexpr *x = lm_bind_expr(c, e->args[i]);
    if (!x)
      return NULL;
    lm_type want = lm_type_make(i == 6   ? LM_TYPE_UTF8
                                : i == 5 ? LM_TYPE_FLOAT64
                                         : LM_TYPE_INT64);
    bool ok =
        x->type.id == LM_TYPE_NULL ||
        (i == 6 ? x->type.id == LM_TYPE_UTF8
                : lm_type_is_numeric(x->type) ||
                      x->type.id == LM_TYPE_DECIMAL128 ||
                      (x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_UTF8));
    if (!ok) {
      lm_bind_fail(c, e->args[i],
                   "function make_timestamptz does not exist: argument of "
                   "type %s where %s is wanted",
                   lm_type_name(x->type), i == 6 ? "text" : "a number");
      lm_err_state(c->err, "42883");
      return NULL;
    }
    if (x->type.id != want.id && !(x = lm_bind_cast(c, x, want)))
      return NULL;
    r->args[i] = x;
  }
  return r;
}

lm_bexpr *lm_bind_make_tstz(lm_bctx *c, const lm_expr *e) {
  lm_expr *mt = lm_arena_alloc(c->arena, sizeof *mt),
          *top = lm_arena_alloc(c->arena, sizeof *top);
  lm_expr **ta = lm_arena_alloc(c->arena, 2 * sizeof *ta);
  if (!mt || !top || !ta) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  *mt = *e;
  mt->name = "make_timestamp";
  mt->n_args = 6;
  memset(top, 0, sizeof *top);
  top->line = e->line;
  top->column = e->column;
  const lm_expr *z7 = e->n_args == 7 ? e->args[6] : NULL;
  if (z7 && !(z7->kind == LM_EXPR_LITERAL && z7->lit == LM_LIT_STRING))
    return per_row_zone(c, e);
  if (e->n_args == 7) { /* timezone(zone, make_timestamp(...)) */
    top->kind = LM_EXPR_FUNC;
    top->name = "timezone";
    ta[0] = e->args[6];
    const lm_expr *z = e->args[6];
    if (z->kind == LM_EXPR_LITERAL && z->lit == LM_LIT_STRING && z->text &&
        (z->text[0] == '+' || z->text[0] == '-') && z->text[1] >= '0' &&
        z->text[1] <= '9') {
      /* a numeric offset is ISO 8601's here (+05:30 east of UTC), where
       * AT TIME ZONE reads it as POSIX does (west): flip the sign */
      lm_expr *fz = lm_arena_alloc(c->arena, sizeof *fz);
      char *t = lm_arena_strndup(c->arena, z->text, strlen(z->text));
      if (!fz || !t) {
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        return NULL;
      }
      t[0] = t[0] == '+' ? '-' : '+';
      *fz = *z;
      fz->text = t;
      ta[0] = fz;
    }
    ta[1] = mt;
    top->args = ta;
    top->n_args = 2;
  } else {
    top->kind = LM_EXPR_CAST;
    top->cast_type = lm_type_timestamptz();
    ta[0] = mt;
    top->args = ta;
    top->n_args = 1;
  }
  return lm_bind_expr(c, top);
}
