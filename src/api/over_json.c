/*
 * api/over_json.c — json_agg & co. OVER (...) in ad-hoc queries
 * (api/over_json.h).
 */
#include <string.h>

#include "api/over_json.h"

bool lm_over_is_json_agg(const lm_expr *e) {
  if (!e || e->kind != LM_EXPR_FUNC || !e->over || !e->name)
    return false;
  const char *n = e->name;
  bool obj = !strcmp(n, "json_object_agg") || !strcmp(n, "jsonb_object_agg");
  bool arr = !strcmp(n, "json_agg") || !strcmp(n, "jsonb_agg");
  return (obj && e->n_args == 2) ||
         (arr && e->n_args == 1 && e->args[0]->kind != LM_EXPR_STAR);
}

static lm_expr *node(lm_arena *a, lm_expr_kind k, const lm_expr *at, int n) {
  return lm_sql_node(a, k, at->line, at->column, n);
}

static lm_expr *str(lm_arena *a, const lm_expr *at, const char *s) {
  return lm_sql_string_lit(a, s, at->line, at->column);
}

static lm_expr *cat(lm_arena *a, const lm_expr *at, lm_expr *l, lm_expr *r) {
  return lm_sql_op_node(a, LM_EXPR_BINARY, LM_OP_CONCAT, l, r, at->line,
                        at->column);
}

lm_expr *lm_over_json_agg(lm_arena *a, const lm_expr *e) {
  const char *n = e->name;
  bool jsonb = n[4] == 'b';
  bool obj = strstr(n, "object") != NULL;
  lm_expr *item = node(a, LM_EXPR_FUNC, e->args[0], 0);
  lm_expr *sa = lm_arena_alloc(a, sizeof *sa);
  lm_expr **sargs = lm_arena_alloc(a, 2 * sizeof *sargs);
  lm_expr *trim = node(a, LM_EXPR_FUNC, e, 2);
  lm_expr *cast = node(a, LM_EXPR_CAST, e, 1);
  if (!item || !sa || !sargs || !trim || !cast)
    return NULL;
  /* json_agg: "\n " before an array item but the first (json_bind.c) */
  item->name = !jsonb && !obj ? "json:agg_item_auto" : "json:agg_item";
  item->args = e->args;
  item->n_args = e->n_args;
  *sa = *e; /* the window, FILTER, DISTINCT */
  sa->name = "string_agg";
  sargs[0] = item;
  if (!(sargs[1] = str(a, e, ", ")))
    return NULL;
  sa->args = sargs;
  sa->n_args = 2;
  trim->name = "ltrim";
  trim->args[0] = sa;
  if (!(trim->args[1] = str(a, e, "\n ")))
    return NULL;
  const char *open = obj ? (jsonb ? "{" : "{ ") : "[",
             *close = obj ? (jsonb ? "}" : " }") : "]";
  lm_expr *body = cat(a, e, cat(a, e, str(a, e, open), trim), str(a, e, close));
  if (!body)
    return NULL;
  cast->args[0] = body;
  cast->cast_type = lm_type_json(jsonb);
  return cast;
}
