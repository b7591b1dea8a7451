/*
 * plan/mktstz_bind.c — PostgreSQL's make_timestamptz(year, month, day,
 * hour, min, sec [, timezone]) (docs/functions.md): make_timestamp's
 * wall-clock time read in the session's time zone (a cast to timestamptz)
 * or in the given zone (timezone(zone, ts), AT TIME ZONE's function), so
 * its errors and DST rules are theirs; a literal numeric offset ('+05:30')
 * is east of UTC, as PostgreSQL's make_timestamptz reads it.
 */
#include <string.h>

#include "plan/bind_internal.h"
#include "plan/mktstz_bind.h"

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
