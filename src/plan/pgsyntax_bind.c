/*
 * Binding of PostgreSQL's boolean tests (x IS [NOT] TRUE | FALSE |
 * UNKNOWN), SIMILAR TO and the integer bit operators (& | # ~ << >>),
 * docs/functions.md. Each becomes nodes the evaluator already knows
 * (COALESCE, NOT, IS NULL, the regular expression match) or an integer
 * function of exec/expr_intfn.c.
 */
#include <stdio.h>
#include <string.h>

#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* PostgreSQL's name of x's type, a literal's as PostgreSQL types it
 * (integer, bigint, numeric, unknown). */
static const char *pg_type_of(const lm_expr *ast, const lm_bexpr *x) {
  if (ast && ast->kind == LM_EXPR_LITERAL) {
    if (ast->lit == LM_LIT_INT)
      return ast->ival >= INT32_MIN && ast->ival <= INT32_MAX ? "integer"
                                                              : "bigint";
    if (ast->lit == LM_LIT_DECIMAL)
      return "numeric";
  }
  return lm_pg_type_name(x->type);
}

static lm_bexpr *bool_lit(lm_bctx *c, const lm_expr *e, bool v) {
  lm_bexpr *z =
      lm_bind_node(c, LM_BX_LITERAL, lm_type_make(LM_TYPE_BOOL), e, 0);
  if (z) {
    z->lit.type = z->type;
    z->lit.v.b = v;
  }
  return z;
}

lm_bexpr *lm_bind_booltest(lm_bctx *c, const lm_expr *e) {
  static const char *const names[] = {"", "IS TRUE", "IS FALSE", "IS UNKNOWN"};
  static const char *const not_names[] = {"", "IS NOT TRUE", "IS NOT FALSE",
                                          "IS NOT UNKNOWN"};
  lm_bexpr *a = lm_bind_expr(c, e->args[0]);
  if (!a)
    return NULL;
  lm_type t = a->type;
  /* PostgreSQL coerces the operand to boolean: an unknown literal ('t')
   * is read as one, anything else must be boolean already */
  if (!(t.id == LM_TYPE_BOOL || is_null(t) ||
        (t.id == LM_TYPE_UTF8 && a->kind == LM_BX_LITERAL))) {
    char what[120];
    snprintf(what, sizeof what, "argument of %s must be type boolean, not type",
             e->negated ? not_names[e->booltest] : names[e->booltest]);
    lm_bind_fail(c, e->args[0], "%s %s", what, pg_type_of(e->args[0], a));
    lm_err_state(c->err, "42804");
    return NULL;
  }
  lm_type bt = lm_type_make(LM_TYPE_BOOL);
  if (!(a = lm_bind_cast(c, a, bt)))
    return NULL;
  if (e->booltest == 3) { /* IS [NOT] UNKNOWN = IS [NOT] NULL */
    lm_bexpr *r = lm_bind_node(c, LM_BX_IS_NULL, bt, e, 1);
    if (r) {
      r->negated = e->negated;
      r->args[0] = a;
    }
    return r;
  }
  /* IS TRUE: coalesce(x, false); IS NOT TRUE: coalesce(NOT x, true);
   * IS FALSE: coalesce(NOT x, false); IS NOT FALSE: coalesce(x, true) */
  bool is_false = e->booltest == 2;
  if (is_false != e->negated) {
    lm_bexpr *n = lm_bind_node(c, LM_BX_UNARY, bt, e, 1);
    if (!n)
      return NULL;
    n->op = LM_OP_NOT;
    n->args[0] = a;
    a = n;
  }
  lm_bexpr *d = bool_lit(c, e, e->negated);
  lm_bexpr *r = d ? lm_bind_node(c, LM_BX_FUNC, bt, e, 2) : NULL;
  if (!r)
    return NULL;
  r->fn = LM_FN_COALESCE;
  r->args[0] = a;
  r->args[1] = d;
  return r;
}

lm_bexpr *lm_bind_similar(lm_bctx *c, const lm_expr *e) {
  lm_type text = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *a = lm_bind_cast(c, lm_bind_expr(c, e->args[0]), text);
  lm_bexpr *p = a ? lm_bind_cast(c, lm_bind_expr(c, e->args[1]), text) : NULL;
  lm_bexpr *esc = NULL;
  if (!p || (e->n_args > 2 && e->args[2] &&
             !(esc = lm_bind_cast(c, lm_bind_expr(c, e->args[2]), text))))
    return NULL;
  /* PostgreSQL: s SIMILAR TO p ESCAPE e is s ~ similar_to_escape(p, e) */
  lm_bexpr *re = lm_bind_node(c, LM_BX_FUNC, text, e, esc ? 2 : 1);
  if (!re)
    return NULL;
  re->fn = LM_FN_SIMILAR_ESCAPE;
  re->args[0] = p;
  if (esc)
    re->args[1] = esc;
  if (!(re = lm_bind_fold(c, re)))
    return NULL;
  return lm_bind_other_op(c, e, e->negated ? LM_OP_NOT_REGEX : LM_OP_REGEX, a,
                          re);
}

int lm_bind_int_width(const lm_expr *ast, const lm_bexpr *x) {
  if (ast && ast->kind == LM_EXPR_LITERAL && ast->lit == LM_LIT_INT)
    return ast->ival >= INT32_MIN && ast->ival <= INT32_MAX ? 32 : 64;
  switch (x->type.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_UINT8:
    return 16;
  case LM_TYPE_INT32:
  case LM_TYPE_UINT16:
    return 32;
  case LM_TYPE_NULL:
    return 0;
  default:
    return 64;
  }
}

lm_type lm_bind_width_type(int w) {
  return lm_type_make(w == 16   ? LM_TYPE_INT16
                      : w == 32 ? LM_TYPE_INT32
                                : LM_TYPE_INT64);
}

lm_bexpr *lm_bind_bitop(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                        lm_bexpr *b) {
  static const char *const txt[] = {"&", "|", "#", "<<", ">>", "~"};
  int k = op - LM_OP_BIT_AND;
  if (!a || (op != LM_OP_BIT_NOT && !b))
    return NULL;
  lm_bexpr *x[2] = {a, b};
  int n = op == LM_OP_BIT_NOT ? 1 : 2;
  bool ok = true;
  int w = 0;
  for (int i = 0; i < n; i++) {
    lm_type t = x[i]->type;
    /* an unknown literal ('5') is read as an integer, as PostgreSQL */
    if (t.id == LM_TYPE_UTF8 && x[i]->kind == LM_BX_LITERAL)
      x[i] = lm_bind_cast(c, x[i], lm_type_make(LM_TYPE_INT64));
    else if (!is_int(t) && !is_null(t))
      ok = false;
    if (!x[i])
      return NULL;
    int wi = lm_bind_int_width(e->args[i], x[i]);
    if (x[i]->type.id == LM_TYPE_INT64 && t.id == LM_TYPE_UTF8)
      wi = 32;
    if (i == 0 || (op != LM_OP_SHL && op != LM_OP_SHR))
      w = wi > w ? wi : w;
  }
  if (!ok) {
    char what[200];
    if (n == 1)
      snprintf(what, sizeof what, "%s %s", txt[k], pg_type_of(e->args[0], a));
    else
      snprintf(what, sizeof what, "%s %s %s", pg_type_of(e->args[0], a), txt[k],
               pg_type_of(e->args[1], b));
    lm_bind_fail(c, e, "operator does not exist: %s", what, NULL);
    lm_err_state(c->err, "42883");
    return NULL;
  }
  if (w == 0)
    w = 32; /* NULL & NULL: PostgreSQL resolves unknown to integer */
  lm_type rt = lm_bind_width_type(w);
  for (int i = 0; i < n; i++) {
    if (x[i]->kind == LM_BX_LITERAL && x[i]->lit.is_null) {
      lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, rt, e, 0);
      if (z) {
        z->lit.type = rt;
        z->lit.is_null = true;
      }
      return z; /* strict: NULL, the other operand not evaluated */
    }
    lm_type at = i == 1 && (op == LM_OP_SHL || op == LM_OP_SHR)
                     ? lm_type_make(LM_TYPE_INT64)
                     : rt;
    if (!(x[i] = lm_bind_cast(c, x[i], at)))
      return NULL;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, rt, e, n);
  if (!r)
    return NULL;
  r->fn = (lm_func_id)(LM_FN_BIT_AND + k);
  for (int i = 0; i < n; i++)
    r->args[i] = x[i];
  return r;
}
