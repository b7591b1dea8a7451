/* plan/bind_pgerr.c — PostgreSQL's typing of quoted literals ("unknown")
 * in operators, and PostgreSQL's SQLSTATE / wording for bind errors. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

bool lm_bind_is_unknown(const lm_expr *ast, const lm_bexpr *x) {
  return ast && x && ast->kind == LM_EXPR_LITERAL &&
         ast->lit == LM_LIT_STRING && x->kind == LM_BX_LITERAL &&
         !x->lit.is_null && x->type.id == LM_TYPE_UTF8;
}

const char *lm_bind_pg_type_of(const lm_expr *ast, const lm_bexpr *x) {
  if (ast && ast->kind == LM_EXPR_LITERAL) {
    if (ast->lit == LM_LIT_INT)
      return ast->ival >= INT32_MIN && ast->ival <= INT32_MAX ? "integer"
                                                              : "bigint";
    if (ast->lit == LM_LIT_DECIMAL)
      return "numeric";
    if (ast->lit == LM_LIT_STRING && lm_bind_is_unknown(ast, x))
      return "unknown";
  }
  if (!ast && x && x->kind == LM_BX_LITERAL && x->lit_int4 &&
      x->type.id == LM_TYPE_INT64)
    return "integer"; /* 1 IN (SELECT text ...): PostgreSQL's int4 */
  return x ? lm_pg_type_name(x->type) : "unknown";
}

/* The operator's place: its token for a binary node, else the node. */
static void op_pos(const lm_expr *e, int *line, int *col) {
  *line = e ? e->line : 0;
  *col = e ? e->column : 0;
  if (e && (e->kind == LM_EXPR_BINARY || e->kind == LM_EXPR_UNARY) &&
      e->op_line > 0) {
    *line = e->op_line;
    *col = e->op_column;
  }
}

lm_bexpr *lm_bind_op_undefined(lm_bctx *c, const lm_expr *e, lm_op op,
                               const lm_bexpr *a, const lm_bexpr *b,
                               bool unique) {
  const lm_expr *aa = NULL, *ab = NULL;
  if (e && e->kind == LM_EXPR_BINARY && e->n_args == 2)
    aa = e->args[0], ab = e->args[1];
  int line, col;
  op_pos(e, &line, &col);
  lm_err_at(c->err, LM_ERR_BIND, line, col, "operator %s: %s %s %s",
            unique ? "is not unique" : "does not exist",
            lm_bind_pg_type_of(aa, a), lm_sql_op_text(op),
            lm_bind_pg_type_of(ab, b));
  lm_err_state(c->err, unique ? "42725" : "42883");
  lm_err_hint(c->err, unique ? "Could not choose a best candidate operator. "
                               "You might need to add explicit type casts."
                             : "No operator matches the given name and "
                               "argument types. You might need to add "
                               "explicit type casts.");
  return NULL;
}

int lm_bind_like_types(lm_bctx *c, const lm_expr *e, const lm_bexpr *a,
                       const lm_bexpr *p) {
  const lm_bexpr *x[2] = {a, p};
  bool ok = true;
  for (int i = 0; i < 2; i++) {
    lm_type t = x[i]->type;
    ok = ok && (is_null(t) || t.id == LM_TYPE_BINARY ||
                ((t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_LARGE_UTF8) &&
                 !lm_type_is_json(t)));
  }
  if (ok)
    return 0;
  const char *op =
      e->icase ? (e->negated ? "!~~*" : "~~*") : (e->negated ? "!~~" : "~~");
  int line = e->op_line > 0 ? e->op_line : e->line;
  int col = e->op_line > 0 ? e->op_column : e->column;
  lm_err_at(c->err, LM_ERR_BIND, line, col, "operator does not exist: %s %s %s",
            lm_bind_pg_type_of(e->args[0], a), op,
            lm_bind_pg_type_of(e->args[1], p));
  lm_err_state(c->err, "42883");
  lm_err_hint(c->err, "No operator matches the given name and argument "
                      "types. You might need to add explicit type casts.");
  return -1;
}

int lm_bind_unknown_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                          lm_bexpr **pb) {
  if (!e || e->kind != LM_EXPR_BINARY || e->n_args != 2 || !*pa || !*pb)
    return 0;
  bool ua = lm_bind_is_unknown(e->args[0], *pa);
  bool ub = lm_bind_is_unknown(e->args[1], *pb);
  if (ua == ub)
    return 0;
  lm_bexpr **u = ua ? pa : pb;
  lm_type ot = (ua ? *pb : *pa)->type, t = ot;
  switch (ot.id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_NULL:
  case LM_TYPE_BOOL:
  case LM_TYPE_BINARY:
    return 0; /* no such operator: the caller's 42883 */
  case LM_TYPE_TIME64:
    /* time + unknown: time + interval; time - unknown: time - time */
    if (op == LM_OP_ADD)
      t = lm_type_make(LM_TYPE_INTERVAL);
    else if (op != LM_OP_SUB)
      return 0;
    break;
  case LM_TYPE_DATE32:
    /* date + unknown: date + integer / interval / time all match */
    if (op == LM_OP_ADD) {
      lm_bind_op_undefined(c, e, op, *pa, *pb, true);
      return -1;
    }
    if (op != LM_OP_SUB)
      return 0;
    break; /* date - date (integer days) */
  case LM_TYPE_TIMESTAMP:
    /* timestamp + unknown: timestamp + interval; timestamp - unknown:
     * timestamp - timestamp (PostgreSQL's exact match first) */
    if (op == LM_OP_ADD)
      t = lm_type_make(LM_TYPE_INTERVAL);
    else if (op != LM_OP_SUB)
      return 0;
    break;
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN:
    if (op == LM_OP_MUL || op == LM_OP_DIV)
      t = lm_type_make(LM_TYPE_FLOAT64); /* interval * float8 */
    else if (op != LM_OP_ADD && op != LM_OP_SUB)
      return 0;
    break;
  case LM_TYPE_DECIMAL128:
    /* numeric op unknown: the literal as an unconstrained numeric (its
     * own digits); 22P02 when it is no number */
    if (lm_bind_numeric_type(c, e, *u, &t))
      return -1;
    break;
  case LM_TYPE_INT64: {
    /* 'abc' + 1: the literal 1 is integer (int4) in PostgreSQL */
    const lm_bexpr *o = ua ? *pb : *pa;
    if (o->kind == LM_BX_LITERAL && o->lit_int4)
      t = lm_type_make(LM_TYPE_INT32);
    break;
  }
  default:
    break;
  }
  /* converted now: a literal that is not of the type fails when bound, as
   * PostgreSQL's (22P02 / 22007 at the literal) */
  if (t.id == LM_TYPE_INTERVAL) { /* '1 month': INTERVAL_MDN (mdn_bind.c) */
    lm_bexpr *m = lm_bind_mdn_text(c, *u);
    if (m) {
      *u = m;
      return 0;
    }
  }
  *u = lm_bind_cast(c, *u, t);
  if (*u)
    *u = lm_bind_fold(c, *u);
  return *u ? 0 : -1;
}

/* The SQLSTATE PostgreSQL gives the error a bind message describes; NULL
 * when no rule applies. */
static const char *state_of(const char *m) {
  static const struct {
    const char *needle, *state;
  } rules[] = {
      {"operator does not exist", "42883"},
      {"operator is not unique", "42725"},
      {"cannot compare ", "42883"},
      {"function ", "42883"}, /* "function f(...) does not exist" */
      {"missing FROM-clause entry", "42P01"},
      {"is ambiguous", "42702"},
      {"window functions are not allowed", "42P20"},
      {"window function calls cannot be nested", "42P20"},
      {"aggregate functions are not allowed", "42803"},
      {"aggregate function calls cannot be nested", "42803"},
      {"must appear in the GROUP BY", "42803"},
      {"window \"", "42704"},
      {"column ", "42703"}, /* column "x" does not exist */
      {"stack depth limit", "54001"},
      {"out of range", "22003"},
      {"must be a BOOLEAN", "42804"},
      {"must be BOOLEAN", "42804"},
      {"needs BOOLEAN", "42804"},
      {"needs a BOOLEAN", "42804"},
      {"must be type boolean", "42804"},
      {"cannot be matched", "42804"},
      {" have types ", "42804"},
      {"branches have types", "42804"},
      {"arguments have types", "42804"},
      {" takes ", "42883"}, /* f() takes one argument */
      {"needs at least one argument", "42883"},
      {"not supported", "0A000"},
      {"unsupported", "0A000"},
      {"not allowed", "42601"},
      {"does not exist", "42704"},
      {"already exists", "42710"},
  };
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    const char *n = rules[i].needle;
    bool at_start = !strcmp(n, "function ") || !strcmp(n, "column ") ||
                    !strcmp(n, "window \"");
    if (at_start ? !strncmp(m, n, strlen(n)) && strstr(m, "does not exist")
                 : strstr(m, n) != NULL)
      return rules[i].state;
  }
  return NULL;
}

void lm_bind_default_state(lm_error *err, const char *msg) {
  if (!err || err->sqlstate[0] || !msg)
    return;
  const char *s = state_of(msg);
  if (s)
    lm_err_state(err, s);
}

void lm_err_default_state(lm_error *err) {
  if (!err || !err->code || err->sqlstate[0])
    return;
  const char *m = err->msg;
  /* skip the "line:column: " prefix */
  const char *p = m;
  while (*p >= '0' && *p <= '9')
    p++;
  if (*p == ':' && p > m) {
    p++;
    while (*p >= '0' && *p <= '9')
      p++;
    if (*p == ':' && p[1] == ' ')
      m = p + 2;
  }
  const char *s = NULL;
  switch (err->code) {
  case LM_ERR_NOMEM:
    s = "53200"; /* out_of_memory */
    break;
  case LM_ERR_IO:
    s = "58030"; /* io_error */
    break;
  case LM_ERR_PARSE:
    s = "42601"; /* syntax_error */
    break;
  case LM_ERR_BIND:
    s = state_of(m);
    if (!s)
      s = "42000"; /* syntax_error_or_access_rule_violation */
    break;
  case LM_ERR_EXEC:
    s = state_of(m);
    if (!s || s[0] == '4')
      s = "22000"; /* data_exception */
    break;
  case LM_ERR_INVALID:
    s = "22023"; /* invalid_parameter_value */
    break;
  case LM_ERR_NOTFOUND:
    s = "42704"; /* undefined_object */
    break;
  case LM_ERR_EXISTS:
    s = "42710"; /* duplicate_object */
    break;
  case LM_ERR_LIMIT:
    s = "54000"; /* program_limit_exceeded */
    break;
  default:
    s = "XX000"; /* internal_error */
    break;
  }
  lm_err_state(err, s);
}

int lm_bind_unknown_member(lm_bctx *c, const lm_expr *ast, lm_bexpr *x,
                           lm_type *t) {
  if (t->id == LM_TYPE_NULL) {
    *t = lm_type_make(LM_TYPE_UTF8); /* all unknown: text */
    return 0;
  }
  if (t->id != LM_TYPE_DECIMAL128)
    return 0;
  lm_type lt, m;
  if (lm_bind_numeric_type(c, ast, x, &lt))
    return -1;
  if (lm_bind_types_merge(*t, lt, &m))
    *t = m;
  return 0;
}

/* Whether x reads an enclosing query's value (*outer) or a column of its
 * own input (*local). */
static void refs(const lm_bexpr *x, bool *outer, bool *local) {
  if (!x)
    return;
  if (x->kind == LM_BX_PARAM)
    *outer = true;
  else if (x->kind == LM_BX_COLUMN)
    *local = true;
  for (int i = 0; i < x->n_args; i++)
    refs(x->args[i], outer, local);
}

int lm_bind_agg_outer_only(lm_bctx *c, const lm_expr *e, const lm_bexpr *arg) {
  bool outer = false, local = false;
  refs(arg, &outer, &local);
  if (!outer || local)
    return 0;
  lm_bind_fail(c, e,
               "an aggregate whose arguments are only outer-query columns "
               "(%s() here) is not supported: PostgreSQL computes it in the "
               "outer query; compute it there",
               e->name, NULL);
  return lm_err_state(c->err, "0A000");
}
