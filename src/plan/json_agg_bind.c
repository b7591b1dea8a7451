/*
 * plan/json_agg_bind.c — PostgreSQL's JSON aggregates json_agg,
 * jsonb_agg, json_object_agg and jsonb_object_agg (docs/functions.md
 * "JSON"), built on string_agg as array_agg is (plan/array_bind.c): each
 * row's value as JSON text (LM_FN_JSON_AGG_ITEM: a NULL is null, a NULL
 * key is 22023 "field name must not be null"), joined by string_agg with
 * ORDER BY and FILTER as written, bracketed and cast to json / jsonb (the
 * jsonb cast sorts keys and keeps a repeated key's last value, as
 * PostgreSQL's jsonb_object_agg). No rows: NULL. So they run wherever
 * string_agg does, continuous queries with retractions included.
 */
#include <string.h>

#include "plan/bind_internal.h"
#include "plan/distinct_agg_bind.h"
#include "plan/json_agg_bind.h"
#include "plan/whole_row_bind.h"

static lm_expr *new_expr(lm_bctx *c, const lm_expr *at) {
  lm_expr *x = lm_arena_alloc(c->arena, sizeof *x);
  if (!x) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(x, 0, sizeof *x);
  x->line = at->line;
  x->column = at->column;
  return x;
}

static lm_bexpr *text_lit(lm_bctx *c, const lm_expr *e, const char *s) {
  lm_type txt = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *l = lm_bind_node(c, LM_BX_LITERAL, txt, e, 0);
  if (!l)
    return NULL;
  l->lit.type = txt;
  l->lit.v.s.p = s;
  l->lit.v.s.len = (int32_t)strlen(s);
  return l;
}

static lm_bexpr *concat(lm_bctx *c, const lm_expr *e, lm_bexpr *a,
                        lm_bexpr *b) {
  lm_bexpr *r = lm_bind_node(c, LM_BX_BINARY, lm_type_make(LM_TYPE_UTF8), e, 2);
  if (!r || !a || !b)
    return NULL;
  r->op = LM_OP_CONCAT;
  r->args[0] = a;
  r->args[1] = b;
  return r;
}

bool lm_bind_is_json_agg(const char *n) {
  return !strcmp(n, "json_agg") || !strcmp(n, "jsonb_agg") ||
         !strcmp(n, "json_object_agg") || !strcmp(n, "jsonb_object_agg");
}

lm_bexpr *lm_bind_json_agg(lm_bctx *c, const lm_expr *e,
                           lm_bexpr *(*agg)(lm_bctx *, const lm_expr *)) {
  const char *n = e->name;
  bool jsonb = n[4] == 'b';
  bool obj = strstr(n, "object") != NULL;
  int want = obj ? 2 : 1;
  if (e->n_args != want || e->args[0]->kind == LM_EXPR_STAR) {
    /* PostgreSQL's "function json_agg(integer, integer) does not exist" */
    lm_bctx in = *c;
    in.post = false;
    in.plan = NULL;
    in.in = c->plan->input_schema;
    if (e->n_args && e->args[0]->kind == LM_EXPR_STAR) {
      lm_bind_fail(c, e, "function %s() does not exist (it takes %s)", n,
                   obj ? "two arguments" : "one argument");
      lm_err_state(c->err, "42883");
      return NULL;
    }
    return lm_bind_agg_undefined(c, &in, e);
  }
  if (e->distinct && obj) {
    lm_bind_fail(c, e, "%s(DISTINCT ...) is not supported", n, NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  /* the value's type (bound over the aggregate's input): json_agg puts a
   * line break before each array but the first, as PostgreSQL */
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = c->plan->input_schema;
  /* json_agg(t) of a whole row: its rows as objects (whole_row_bind.c) */
  lm_expr *row = obj ? NULL : lm_whole_row_json(&in, e->args[0]);
  if (!row && c->err->code)
    return NULL;
  if (row) {
    lm_expr *ne = new_expr(c, e);
    lm_expr **na = lm_arena_alloc(c->arena, sizeof *na);
    if (!ne || !na) {
      if (!na)
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
    *ne = *e;
    na[0] = row;
    ne->args = na;
    e = ne;
  }
  lm_bexpr *x = lm_bind_expr(&in, e->args[want - 1]);
  if (!x)
    return NULL;
  bool structured = x->type.id == LM_TYPE_LIST || row;
  /* string_agg(json:agg_item(args), sep ...) */
  lm_expr *item = new_expr(c, e->args[0]), *sep = new_expr(c, e),
          *sa = new_expr(c, e);
  lm_expr **sargs = lm_arena_alloc(c->arena, 2 * sizeof *sargs);
  if (!item || !sep || !sa || !sargs) {
    if (!sargs)
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  item->kind = LM_EXPR_FUNC;
  bool nl = !jsonb && !obj && structured; /* "\n " before each array */
  item->name = nl ? "json:agg_item_nl" : "json:agg_item";
  item->args = e->args;
  item->n_args = e->n_args;
  sep->kind = LM_EXPR_LITERAL;
  sep->lit = LM_LIT_STRING;
  sep->text = ", ";
  *sa = *e;
  sa->name = "string_agg";
  sargs[0] = item;
  sargs[1] = sep;
  sa->args = sargs;
  sa->n_args = 2;
  if (e->distinct && row) {
    lm_bind_fail(c, e, "%s(DISTINCT ...) of a whole row is not supported", n,
                 NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  /* DISTINCT: the items in x's order (distinct_agg_bind.c) */
  lm_bexpr *s = e->distinct ? lm_bind_distinct_items(c, e, x, item, ", ", agg)
                            : agg(c, sa);
  if (!s)
    return NULL;
  const char *open = obj ? (jsonb ? "{" : "{ ") : "[",
             *close = obj ? (jsonb ? "}" : " }") : "]";
  if (nl) { /* ltrim(s, '\n '): not before the first */
    lm_bexpr *t = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_UTF8), e, 2);
    if (!t)
      return NULL;
    t->fn = LM_FN_LTRIM_CHARS;
    t->args[0] = s;
    if (!(t->args[1] = text_lit(c, e, "\n ")))
      return NULL;
    s = t;
  }
  lm_bexpr *r = concat(c, e, concat(c, e, text_lit(c, e, open), s),
                       text_lit(c, e, close));
  if (!r)
    return NULL;
  return lm_bind_cast(c, r, lm_type_json(jsonb));
}
