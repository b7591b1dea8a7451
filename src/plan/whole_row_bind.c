/*
 * plan/whole_row_bind.c — whole-row references to a function in FROM
 * (plan/whole_row_bind.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/lm_base.h"
#include "plan/whole_row_bind.h"

bool lm_whole_row_needed(const char *alias, int n_funcs, bool ordinality,
                         const char *col0) {
  return alias && n_funcs == 1 && !ordinality && col0 &&
         lm_strcasecmp(alias, col0) != 0;
}

const char *lm_whole_row_name(const char *alias, char *buf, size_t n) {
  snprintf(buf, n, "%s%s", LM_WHOLE_ROW_PREFIX, alias ? alias : "");
  return buf;
}

lm_bexpr *lm_bind_whole_row(lm_bctx *c, const lm_expr *e) {
  if (e->table || !e->name || !c->in)
    return NULL;
  char nm[300];
  lm_whole_row_name(e->name, nm, sizeof nm);
  int col = -1;
  lm_bexpr *x = NULL;
  if (c->scope) {
    for (int i = 0; i < c->scope->n; i++) {
      const lm_scope_col *s = &c->scope->cols[i];
      if (s->name && !lm_strcasecmp(s->name, nm)) {
        if (col >= 0 || x)
          return NULL; /* two functions aliased alike: the usual error */
        col = s->col;
        x = s->expr;
      }
    }
  } else {
    col = lm_schema_find(c->in, nm);
  }
  if (x)
    return x;
  if (col < 0 || col >= c->in->n_fields)
    return NULL;
  lm_bexpr *b = lm_bind_node(c, LM_BX_COLUMN, c->in->fields[col].type, e, 0);
  if (b)
    b->col = col;
  return b;
}

/* --------------------------------------------- a row as a JSON object */

/* The sql/expr_build.c nodes at at's position; NULL with the OOM error set */
static lm_expr *nomem(lm_bctx *c, lm_expr *x) {
  if (!x)
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  return x;
}

static lm_expr *ast(lm_bctx *c, lm_expr_kind k, const lm_expr *at, int n) {
  return nomem(c, lm_sql_node(c->arena, k, at->line, at->column, n));
}

static lm_expr *str_lit(lm_bctx *c, const lm_expr *at, const char *s) {
  return nomem(c, lm_sql_string_lit(c->arena, s, at->line, at->column));
}

static lm_expr *concat(lm_bctx *c, const lm_expr *at, lm_expr *l, lm_expr *r) {
  return nomem(c, lm_sql_op_node(c->arena, LM_EXPR_BINARY, LM_OP_CONCAT, l, r,
                                 at->line, at->column));
}

/* ',"name":' (first: '{"name":'), the name escaped as a JSON string. */
static const char *key_text(lm_bctx *c, const char *name, bool first) {
  size_t n = strlen(name);
  char *s = lm_arena_alloc(c->arena, 2 * n + 8);
  if (!s)
    return NULL;
  size_t k = 0;
  s[k++] = first ? '{' : ',';
  s[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    if (name[i] == '"' || name[i] == '\\')
      s[k++] = '\\';
    s[k++] = name[i];
  }
  s[k++] = '"';
  s[k++] = ':';
  s[k] = 0;
  return s;
}

/* COALESCE(to_json(rel.name)::text, 'null') */
static lm_expr *field_json(lm_bctx *c, const lm_expr *at, const char *rel,
                           const char *name) {
  lm_expr *col = ast(c, LM_EXPR_COLUMN, at, 0),
          *tj = ast(c, LM_EXPR_FUNC, at, 1), *tx = ast(c, LM_EXPR_CAST, at, 1),
          *co = ast(c, LM_EXPR_FUNC, at, 2);
  if (!col || !tj || !tx || !co)
    return NULL;
  col->table = rel;
  col->name = name;
  tj->name = "to_json";
  tj->args[0] = col;
  tx->cast_type = lm_type_make(LM_TYPE_UTF8);
  tx->args[0] = tj;
  co->name = "coalesce";
  co->args[0] = tx;
  if (!(co->args[1] = str_lit(c, at, "null")))
    return NULL;
  return co;
}

lm_expr *lm_whole_row_json(lm_bctx *c, const lm_expr *e) {
  if (!e || e->kind != LM_EXPR_COLUMN || e->table || !e->name || !c->in)
    return NULL;
  const char *names[256], *rel = NULL;
  int n = 0;
  if (c->scope) {
    for (int i = 0; i < c->scope->n; i++) {
      const lm_scope_col *s = &c->scope->cols[i];
      if (!s->name)
        continue;
      if (!s->qualified_only && !lm_strcasecmp(s->name, e->name))
        return NULL; /* a column of that name */
      if (s->rel && !lm_strcasecmp(s->rel, e->name) && s->name[0] != '\x01') {
        if (n == 256)
          return NULL;
        rel = s->rel;
        names[n++] = s->name;
      }
    }
  } else {
    if (!c->from || lm_strcasecmp(c->from, e->name) ||
        lm_schema_find(c->in, e->name) >= 0)
      return NULL;
    rel = c->from;
    for (int i = 0; i < c->in->n_fields && n < 256; i++)
      if (c->in->fields[i].name && c->in->fields[i].name[0] != '\x01' &&
          strncmp(c->in->fields[i].name, "__", 2))
        names[n++] = c->in->fields[i].name;
  }
  if (!n)
    return NULL;
  lm_expr *body = NULL;
  for (int i = 0; i < n; i++) {
    const char *k = key_text(c, names[i], i == 0);
    lm_expr *kv =
        k ? concat(c, e, str_lit(c, e, k), field_json(c, e, rel, names[i]))
          : NULL;
    if (!kv || !(body = body ? concat(c, e, body, kv) : kv))
      return NULL;
  }
  lm_expr *cast = ast(c, LM_EXPR_CAST, e, 1);
  if (!cast || !(body = concat(c, e, body, str_lit(c, e, "}"))))
    return NULL;
  cast->cast_type = lm_type_json(false);
  cast->args[0] = body;
  return cast;
}
