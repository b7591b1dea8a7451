/*
 * The type modifiers of a recursive WITH query's columns, as PostgreSQL's
 * analyzeCTE checks them (recursive_typmod.h): the non-recursive term
 * fixes each column's type and typmod; the UNION's result column keeps the
 * typmod only when the recursive term's item has the same one (a
 * reference to that column, a cast to the same type, a CASE / COALESCE /
 * GREATEST / LEAST of such), else the overall type has none and the query
 * is 42804.
 */
#include "api/recursive_typmod.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/engine.h"

/* A type modifier: kind 0 none, 'N' numeric(a,b), 'V' varchar(a), 'C'
 * char(a). */
typedef struct tmod {
  char kind;
  int a, b;
} tmod;

static bool tmod_eq(tmod x, tmod y) {
  return x.kind == y.kind && x.a == y.a && x.b == y.b;
}

/* The modifier an expression's text gives its value: a cast to
 * numeric(p,s), varchar(n) or char(n); none otherwise. */
static tmod cast_mod(const lm_expr *e) {
  tmod m = {0, 0, 0};
  if (!e || e->kind != LM_EXPR_CAST)
    return m;
  if (e->cast_type.id == LM_TYPE_DECIMAL128 && e->cast_type.precision > 0) {
    m.kind = 'N';
    m.a = e->cast_type.precision;
    m.b = e->cast_type.scale;
  } else if (e->cast_type.id == LM_TYPE_UTF8 && e->cast_tlen > 0 &&
             (e->cast_varchar || e->cast_bpchar)) {
    m.kind = e->cast_bpchar ? 'C' : 'V';
    m.a = e->cast_tlen;
  }
  return m;
}

typedef struct ctx {
  const lm_cte *c;
  const lm_schema *ws;
  const tmod *mods;  /* the working table's columns' modifiers */
  const char *alias; /* the recursive term's FROM alias of the CTE */
} ctx;

/* Whether the recursive term's item e keeps modifier m (see the file
 * comment); what the AST cannot tell keeps it. */
static bool keeps(const ctx *x, const lm_expr *e, tmod m, int depth) {
  if (!e || depth > 200)
    return true;
  switch (e->kind) {
  case LM_EXPR_CAST:
    return tmod_eq(cast_mod(e), m);
  case LM_EXPR_COLUMN: {
    if (e->table && strcasecmp(e->table, x->c->name) &&
        !(x->alias && !strcasecmp(e->table, x->alias)))
      return true; /* another relation's column */
    for (int j = 0; j < x->ws->n_fields; j++) {
      const char *n = x->ws->fields[j].name;
      if (n && (e->quoted ? !strcmp(n, e->name) : !strcasecmp(n, e->name)))
        return tmod_eq(x->mods[j], m);
    }
    return true;
  }
  case LM_EXPR_CASE: {
    if (!e->has_else) /* ELSE NULL has no modifier */
      return false;
    int k = e->has_operand ? 1 : 0;
    int pairs = (e->n_args - k - 1) / 2;
    for (int i = 0; i < pairs; i++)
      if (!keeps(x, e->args[k + 2 * i + 1], m, depth + 1))
        return false;
    return keeps(x, e->args[e->n_args - 1], m, depth + 1);
  }
  case LM_EXPR_FUNC:
    if (e->name && !e->over &&
        (!strcmp(e->name, "coalesce") || !strcmp(e->name, "greatest") ||
         !strcmp(e->name, "least")) &&
        e->n_args > 0) {
      for (int i = 0; i < e->n_args; i++)
        if (!keeps(x, e->args[i], m, depth + 1))
          return false;
      return true;
    }
    if (e->name && !e->over && !strcmp(e->name, "nullif") && e->n_args == 2)
      return keeps(x, e->args[0], m, depth + 1);
    return false;
  case LM_EXPR_SUBQUERY:
    return e->subq == LM_SUBQ_SCALAR; /* its item's: not told here */
  default:
    return false;
  }
}

/* PostgreSQL's name of the type with modifier m (with: "numeric(10,2)")
 * or without ("numeric"). */
static void mod_name(tmod m, bool with, char *buf, size_t n) {
  const char *base = m.kind == 'N'   ? "numeric"
                     : m.kind == 'V' ? "character varying"
                     : with          ? "character"
                                     : "bpchar";
  if (!with)
    snprintf(buf, n, "%s", base);
  else if (m.kind == 'N')
    snprintf(buf, n, "%s(%d,%d)", base, m.a, m.b);
  else
    snprintf(buf, n, "%s(%d)", base, m.a);
}

int lm_recursive_typmod_check(const lm_cte *c, const lm_schema *ws, bool *fixed,
                              lm_error *err) {
  int nf = ws->n_fields;
  for (int i = 0; i < nf; i++)
    fixed[i] = false;
  const lm_select *l = c->query ? c->query->set_left : NULL;
  const lm_select *r = c->query ? c->query->set_right : NULL;
  if (!l || l->setop != LM_SETOP_NONE || l->values || l->n_items != nf)
    return 0;
  tmod mods[64];
  if (nf > (int)(sizeof mods / sizeof mods[0]))
    return 0;
  bool any = false;
  for (int i = 0; i < nf; i++) {
    mods[i] = cast_mod(l->items[i].expr);
    if (mods[i].kind == 'N' && ws->fields[i].type.id != LM_TYPE_DECIMAL128)
      mods[i].kind = 0; /* not what the column holds: leave it */
    fixed[i] = mods[i].kind != 0;
    any |= fixed[i];
  }
  if (!any || !r || r->setop != LM_SETOP_NONE || r->values || r->n_items != nf)
    return 0;
  ctx x = {c, ws, mods, NULL};
  if (r->from_clause && r->from_clause->kind == LM_FROM_TABLE &&
      r->from_clause->name && !strcasecmp(r->from_clause->name, c->name))
    x.alias = r->from_clause->alias;
  for (int i = 0; i < nf; i++) {
    if (!fixed[i] || keeps(&x, r->items[i].expr, mods[i], 0))
      continue;
    char with[64], without[64];
    mod_name(mods[i], true, with, sizeof with);
    mod_name(mods[i], false, without, sizeof without);
    const lm_expr *at = l->items[i].expr;
    int rc = lm_engine_pos_errf(err, LM_ERR_BIND, at->line, at->column, "42804",
                                "recursive query \"%s\" column %d has type %s "
                                "in non-recursive term but type %s overall",
                                c->name, i + 1, with, without);
    lm_err_hint(err, "Cast the output of the non-recursive term to the "
                     "correct type.");
    return rc;
  }
  return 0;
}

bool lm_recursive_typmod_fixed_dec(const lm_cte *c, int i) {
  const lm_select *l = c->query ? c->query->set_left : NULL;
  if (!l || l->setop != LM_SETOP_NONE || l->values || i < 0 || i >= l->n_items)
    return false;
  for (int k = 0; k < l->n_items; k++)
    if (!l->items[k].expr || l->items[k].expr->kind == LM_EXPR_STAR)
      return false;
  return cast_mod(l->items[i].expr).kind == 'N';
}
