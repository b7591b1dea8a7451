/*
 * The binder: resolves names against a schema, types every expression,
 * inserts implicit casts, and splits an aggregate query into keys,
 * aggregate calls and post-aggregation expressions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/agg_stat.h"
#include "exec/expr_inset.h"
#include "exec/lm_strfn.h" /* lm_pg_type_name */
#include "plan/array_bind.h"
#include "plan/bind_internal.h"
#include "plan/json_agg_bind.h"
#include "plan/row_count_bind.h"
#include "plan/whole_row_bind.h"

/* the parser's limit (LM_SQL_MAX_DEPTH) plus room for the nodes the
 * binder builds itself; the stack check usually stops first */
#define LM_BIND_MAX_DEPTH 10100

lm_bexpr *lm_bind_expr(lm_bctx *c, const lm_expr *e);

lm_bexpr *lm_bind_node(lm_bctx *c, lm_bexpr_kind kind, lm_type type,
                       const lm_expr *at, int n_args) {
  lm_bexpr *b = lm_arena_alloc(c->arena, sizeof *b);
  if (!b) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  b->kind = kind;
  b->type = type;
  b->tz = lm_tz_session(); /* zone-dependent nodes read it (lm_tz.h) */
  if (at) {
    b->line = at->line;
    b->column = at->column;
  }
  if (n_args) {
    b->args = lm_arena_alloc(c->arena, sizeof(lm_bexpr *) * (size_t)n_args);
    if (!b->args) {
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
  }
  b->n_args = n_args;
  return b;
}

int lm_bind_fail(lm_bctx *c, const lm_expr *at, const char *fmt, const char *a,
                 const char *b) {
  char msg[600];
  snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
  if (at)
    lm_err_at(c->err, LM_ERR_BIND, at->line, at->column, "%s", msg);
  else
    lm_err(c->err, LM_ERR_BIND, "%s", msg);
  lm_bind_default_state(c->err, msg); /* bind_pgerr.c */
  return LM_ERR_BIND;
}

/* Wraps x in a cast to t unless it already has type t. NULL literals are
 * retyped in place. */
/* An IN list's term x = k: a constant k that is a cast of a literal (a
 * quoted '1' against an INTEGER column, '2024-01-05' against a DATE)
 * becomes the literal of its value, read once as PostgreSQL reads it when
 * parsing, so that the list makes a sorted set (expr_inset.c). False with
 * c->err set when the text is no value of the type (22P02, as
 * PostgreSQL). */
static bool in_fold_consts(lm_bctx *c, lm_bexpr *eq) {
  if (eq->kind != LM_BX_BINARY || eq->op != LM_OP_EQ || eq->n_args != 2)
    return true;
  for (int k = 0; k < 2; k++) {
    lm_bexpr *a = eq->args[k];
    if (a && a->kind == LM_BX_CAST && a->n_args == 1 &&
        a->args[0]->kind == LM_BX_LITERAL &&
        !(eq->args[k] = lm_bind_fold(c, a)))
      return false;
  }
  return true;
}

lm_bexpr *lm_bind_cast(lm_bctx *c, lm_bexpr *x, lm_type t) {
  if (!x)
    return NULL;
  if (lm_type_eq(x->type, t))
    return x;
  if (x->kind == LM_BX_LITERAL && x->lit.is_null) {
    x->type = t;
    x->lit.type = t;
    return x;
  }
  if (t.id == LM_TYPE_DECIMAL128 && x->kind == LM_BX_LITERAL && x->lit_text) {
    /* 1.25 to DECIMAL: from its digits, not through the double */
    lm_bexpr *d = lm_bind_lit_exact(c, x);
    if (d && lm_type_eq(d->type, t))
      return d;
    if (d)
      x = d;
  }
  lm_bexpr *b = lm_bind_node(c, LM_BX_CAST, t, NULL, 1);
  if (!b)
    return NULL;
  b->line = x->line;
  b->column = x->column;
  b->args[0] = x;
  return b;
}

static bool numeric_origin(const lm_bexpr *x) {
  switch (x->kind) {
  case LM_BX_LITERAL:
    return lm_type_is_integer(x->type) || x->type.id == LM_TYPE_DECIMAL128 ||
           (x->type.id == LM_TYPE_FLOAT64 && x->lit_text);
  case LM_BX_COLUMN:
    return lm_type_is_integer(x->type) || x->type.id == LM_TYPE_DECIMAL128;
  case LM_BX_CAST:
    return x->type.id == LM_TYPE_FLOAT64 && numeric_origin(x->args[0]);
  case LM_BX_UNARY:
    return x->op == LM_OP_NEG && numeric_origin(x->args[0]);
  case LM_BX_BINARY:
    return (x->op == LM_OP_ADD || x->op == LM_OP_SUB || x->op == LM_OP_MUL ||
            x->op == LM_OP_DIV || x->op == LM_OP_MOD) &&
           numeric_origin(x->args[0]) && numeric_origin(x->args[1]);
  default:
    return false;
  }
}

bool lm_bexpr_numeric_origin(const lm_bexpr *x) {
  return x && x->type.id == LM_TYPE_FLOAT64 && numeric_origin(x);
}

bool lm_bexpr_equal(const lm_bexpr *a, const lm_bexpr *b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  if (a->kind != b->kind || !lm_type_eq(a->type, b->type) ||
      a->n_args != b->n_args)
    return false;
  if (a->kind == LM_BX_CAST &&
      (a->tz != b->tz || /* AT TIME ZONE 'x' vs 'y' */
       a->tprec != b->tprec || a->tlen != b->tlen || a->tbpchar != b->tbpchar ||
       a->tassign != b->tassign))
    return false;
  switch (a->kind) {
  case LM_BX_COLUMN:
    if (a->col != b->col)
      return false;
    break;
  case LM_BX_LITERAL:
    if (a->lit.is_null != b->lit.is_null)
      return false;
    if (!a->lit.is_null) {
      if (a->type.id == LM_TYPE_DECIMAL128) {
        if (a->lit.v.d128.lo != b->lit.v.d128.lo ||
            a->lit.v.d128.hi != b->lit.v.d128.hi)
          return false;
      } else if (a->type.id == LM_TYPE_UTF8 || a->type.id == LM_TYPE_BINARY) {
        if (a->lit.v.s.len != b->lit.v.s.len ||
            memcmp(a->lit.v.s.p, b->lit.v.s.p, (size_t)a->lit.v.s.len) != 0)
          return false;
      } else if (is_float(a->type)) {
        if (a->lit.v.f != b->lit.v.f)
          return false;
      } else if (a->type.id == LM_TYPE_BOOL) {
        if (a->lit.v.b != b->lit.v.b)
          return false;
      } else if (a->lit.v.i != b->lit.v.i)
        return false;
    }
    break;
  case LM_BX_UNARY:
  case LM_BX_BINARY:
    if (a->op != b->op)
      return false;
    break;
  case LM_BX_FUNC:
    if (a->fn != b->fn || a->negated != b->negated || a->icase != b->icase)
      return false;
    break;
  case LM_BX_IS_NULL:
  case LM_BX_LIKE:
    if (a->negated != b->negated || a->icase != b->icase)
      return false;
    break;
  case LM_BX_CASE:
    if (a->has_else != b->has_else)
      return false;
    break;
  case LM_BX_CAST:
    break;
  case LM_BX_PARAM:
    if (a->param != b->param)
      return false;
    break;
  case LM_BX_SUBQUERY:
    if (a->sub != b->sub)
      return false;
    break;
  }
  for (int i = 0; i < a->n_args; i++)
    if (!lm_bexpr_equal(a->args[i], b->args[i]))
      return false;
  return true;
}

bool lm_bexpr_mark_cols(const lm_bexpr *x, uint8_t *used, int n) {
  if (!x)
    return true;
  if (x->kind == LM_BX_SUBQUERY)
    return false;
  if (x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n)
    used[x->col] = 1;
  for (int i = 0; i < x->n_args; i++)
    if (!lm_bexpr_mark_cols(x->args[i], used, n))
      return false;
  return true;
}

/* A decimal literal too large for DOUBLE PRECISION (1e400): PostgreSQL's
 * 22003 error, naming the value as its numeric prints it (1 and 400 zeros;
 * cut at 900 characters). Returns the error code. */
static int literal_overflow(lm_bctx *c, const lm_expr *e) {
  char out[904];
  size_t n = 0;
  long frac = 0, ex = 0;
  bool dot = false;
  const char *t = e->text ? e->text : "";
  for (; *t && *t != 'e' && *t != 'E'; t++) {
    if (*t == '.') {
      dot = true;
    } else if (*t >= '0' && *t <= '9') {
      frac += dot;
      if ((n > 0 || *t != '0') && n < 900)
        out[n++] = *t;
    }
  }
  if (*t)
    ex = strtol(t + 1, NULL, 10);
  for (long z = ex - frac; z > 0 && n > 0 && n < 900; z--)
    out[n++] = '0';
  out[n] = 0;
  lm_err_at(c->err, LM_ERR_BIND, e->line, e->column,
            "\"%s\" is out of range for type double precision", out);
  return lm_err_state(c->err, "22003");
}

/* Whether a decimal literal's text must be an exact DECIMAL rather than
 * the documented DOUBLE: an integer beyond BIGINT (PostgreSQL: numeric),
 * or more significant digits than a double keeps (15), without exponent. */
static bool lit_needs_numeric(const char *t) {
  int sig = 0;
  bool dot = false, lead = true;
  for (const char *s = t; *s; s++) {
    if (*s == '.') {
      dot = true;
    } else if (*s >= '0' && *s <= '9') {
      if (*s != '0')
        lead = false;
      if (!lead)
        sig++;
    } else if (*s != '-' && *s != '+') {
      return false; /* 1e5 */
    }
  }
  if (!dot)
    return true; /* the parser made it DECIMAL: beyond BIGINT */
  /* trailing zeros after the point are digits PostgreSQL keeps (scale),
   * the double keeps them too (lm_bind_lit_scale): not counted */
  const char *end = t + strlen(t);
  while (end > t && end[-1] == '0')
    end--, sig--;
  return sig > 15;
}

/* not inlined: its locals stay off the stack of lm_bind_expr's recursion
 * (a 4,000-term chain must fit, as in PostgreSQL) */
__attribute__((noinline)) static lm_bexpr *literal(lm_bctx *c,
                                                   const lm_expr *e) {
  lm_type t;
  if (e->lit == LM_LIT_INTERVAL) { /* with months: mdn_bind.c */
    lm_bexpr *m = NULL;
    int r = lm_bind_mdn_literal(c, e, &m);
    if (r <= 0)
      return r < 0 ? NULL : m;
  }
  if (e->lit == LM_LIT_DECIMAL && isinf(e->dval)) {
    literal_overflow(c, e);
    return NULL;
  }
  switch (e->lit) {
  case LM_LIT_NULL:
    t = lm_type_make(LM_TYPE_NULL);
    break;
  case LM_LIT_BOOL:
    t = lm_type_make(LM_TYPE_BOOL);
    break;
  case LM_LIT_INT:
    t = lm_type_make(LM_TYPE_INT64);
    break;
  case LM_LIT_DECIMAL:
    t = lm_type_make(LM_TYPE_FLOAT64);
    break;
  case LM_LIT_STRING:
    t = lm_type_make(LM_TYPE_UTF8);
    break;
  case LM_LIT_TIMESTAMP:
    t = lm_type_make(LM_TYPE_TIMESTAMP);
    break;
  case LM_LIT_INTERVAL:
    t = lm_type_make(LM_TYPE_INTERVAL);
    break;
  default:
    lm_bind_fail(c, e, "unsupported literal", NULL, NULL);
    return NULL;
  }
  lm_bexpr *b = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
  if (!b)
    return NULL;
  b->lit.type = t;
  b->lit.is_null = e->lit == LM_LIT_NULL;
  switch (e->lit) {
  case LM_LIT_BOOL:
    b->lit.v.b = e->bval;
    break;
  case LM_LIT_INT:
  case LM_LIT_TIMESTAMP:
  case LM_LIT_INTERVAL:
    b->lit.v.i = e->ival;
    if (e->lit == LM_LIT_INTERVAL) /* PostgreSQL's days: mdn_bind.c */
      lm_bind_mdn_days(e, b);
    b->lit_int4 = e->lit == LM_LIT_INT && e->ival >= INT32_MIN &&
                  e->ival <= INT32_MAX; /* bind_num.c */
    break;
  case LM_LIT_DECIMAL: /* numeric, which has no -0: -0.0 is 0.0 */
    b->lit.v.f = e->dval == 0 ? 0.0 : e->dval;
    b->col = lm_bind_lit_scale(e->text); /* 1.50: 2 (bind_types.c) */
    if (e->text) {
      b->lit_text = lm_arena_strndup(c->arena, e->text, strlen(e->text));
      if (!b->lit_text) {
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        return NULL;
      }
      /* numeric, as PostgreSQL: DECIMAL(p, s) of the literal's own digits
       * (docs/types.md "Literals"); an exponent form beyond Decimal128
       * (1e-50) stays the double it reads as */
      bool expo = strpbrk(e->text, "eE") != NULL;
      if (!expo || lit_needs_numeric(e->text) ||
          lm_bind_lit_digits(e->text, NULL) <= 38) {
        lm_bexpr *d = lm_bind_lit_exact(c, b);
        if (d)
          return d;
        if (expo && !lit_needs_numeric(e->text))
          break;
        /* beyond Decimal128: an error, never a silent double */
        lm_bind_lit_too_long(c, e->line, e->column, e->text);
        return NULL;
      }
    }
    break;
  case LM_LIT_STRING: {
    size_t n = e->text ? strlen(e->text) : 0;
    b->lit.v.s.p = lm_arena_strndup(c->arena, e->text ? e->text : "", n);
    b->lit.v.s.len = (int32_t)n;
    break;
  }
  default:
    break;
  }
  return b;
}

/* A column over a join's scope: rel.name must name one entry; a bare name
 * must be unique among the unqualified entries (PostgreSQL's messages). */
static lm_bexpr *scope_column(lm_bctx *c, const lm_expr *e) {
  const lm_scope *s = c->scope;
  const lm_scope_col *hit = NULL;
  /* names: exact, else (unquoted) in any case (docs/sql.md "Names") */
  int passes = e->quoted ? 1 : 2;
  if (e->table) {
    bool rel_seen = false;
    for (int pass = 0; pass < passes && !hit; pass++)
      for (int i = 0; i < s->n; i++) {
        if (!s->cols[i].rel || strcmp(s->cols[i].rel, e->table))
          continue;
        rel_seen = true;
        if (lm_ident_eq(s->cols[i].name, e->name, pass)) {
          if (hit) { /* (a JOIN b ...) AS x where both have the column */
            lm_bind_fail(c, e, "column reference \"%s\" is ambiguous", e->name,
                         NULL);
            lm_err_state(c->err, "42702"); /* ambiguous_column */
            return NULL;
          }
          hit = &s->cols[i];
        }
      }
    if (!rel_seen) {
      bool bad = false;
      lm_bexpr *o = lm_bind_outer_ref(c, e, &bad); /* subquery_bind.c */
      if (o || bad)
        return o;
      lm_bind_fail(c, e, "missing FROM-clause entry for table \"%s\"", e->table,
                   NULL);
      lm_err_state(c->err, "42P01"); /* undefined_table */
      return NULL;
    }
    if (!hit) {
      char q[300];
      snprintf(q, sizeof q, "%s.%s", e->table, e->name);
      lm_bind_fail(c, e, "column %s does not exist", q, NULL);
      lm_err_state(c->err, "42703");
      return NULL;
    }
  } else {
    for (int pass = 0; pass < passes && !hit; pass++)
      for (int i = 0; i < s->n; i++) {
        const lm_scope_col *x = &s->cols[i];
        if (x->qualified_only || !lm_ident_eq(x->name, e->name, pass))
          continue;
        if (hit) {
          lm_bind_fail(c, e, "column reference \"%s\" is ambiguous", e->name,
                       NULL);
          lm_err_state(c->err, "42702"); /* ambiguous_column */
          return NULL;
        }
        hit = x;
      }
    if (!hit) {
      bool bad = false;
      lm_bexpr *o = lm_bind_outer_ref(c, e, &bad);
      if (o || bad)
        return o;
      if ((o = lm_bind_whole_row(c, e))) /* whole_row_bind.c */
        return o;
      lm_bind_fail(c, e, "column \"%s\" does not exist", e->name, NULL);
      lm_err_state(c->err, "42703");
      return NULL;
    }
  }
  if (hit->expr)
    return hit->expr;
  lm_type t = c->in->fields[hit->col].type;
  lm_bexpr *b = lm_bind_node(c, LM_BX_COLUMN, t, e, 0);
  if (b)
    b->col = hit->col;
  return b;
}

/* not inlined: its locals stay off the stack of lm_bind_expr's recursion
 * (a 4,000-term chain must fit, as in PostgreSQL) */
__attribute__((noinline)) static lm_bexpr *column(lm_bctx *c,
                                                  const lm_expr *e) {
  if (c->scope && !c->post && c->in)
    return scope_column(c, e);
  if (!c->post &&
      (!c->in ||
       (e->table ? !c->from || strcmp(e->table, c->from)
                 : lm_schema_find_ref(c->in, e->name, e->quoted, NULL) < 0))) {
    /* not ours: a column of an enclosing query? (subquery_bind.c) */
    bool bad = false;
    lm_bexpr *o = lm_bind_outer_ref(c, e, &bad);
    if (o || bad)
      return o;
  }
  if (!c->in) {
    lm_bind_fail(c, e, "column '%s' cannot be used here", e->name, NULL);
    return NULL;
  }
  if (e->table && c->from && strcmp(e->table, c->from) != 0) {
    /* Qualified names must name the FROM object (or its alias, which the
     * caller passes as `from`). */
    lm_bind_fail(c, e, "missing FROM-clause entry for table \"%s\"", e->table,
                 NULL);
    lm_err_state(c->err, "42P01"); /* undefined_table */
    return NULL;
  }
  int n_hits = 0;
  int i = lm_schema_find_ref(c->in, e->name, e->quoted, &n_hits);
  if (i < 0 && !c->post) { /* SELECT e FROM f(...) e: whole_row_bind.c */
    lm_bexpr *w = lm_bind_whole_row(c, e);
    if (w)
      return w;
  }
  if (i < 0) {
    if (c->post)
      lm_bind_fail(c, e, "column '%s' does not exist in the aggregate result",
                   e->name, NULL);
    else if (e->table && !c->from) { /* no FROM item has that name */
      lm_bind_fail(c, e, "missing FROM-clause entry for table \"%s\"", e->table,
                   NULL);
      lm_err_state(c->err, "42P01"); /* undefined_table */
      return NULL;
    } else if (e->table) /* PostgreSQL's wording: rel.col unquoted */
      lm_bind_fail(c, e, "column %s.%s does not exist", e->table, e->name);
    else
      lm_bind_fail(c, e, "column \"%s\" does not exist", e->name, NULL);
    lm_err_state(c->err, "42703");
    return NULL;
  }
  if (!c->post && n_hits > 1) {
    /* (SELECT 1 AS a, 2 AS a) s: PostgreSQL's ambiguous_column */
    lm_bind_fail(c, e, "column reference \"%s\" is ambiguous", e->name, NULL);
    lm_err_state(c->err, "42702");
    return NULL;
  }
  lm_type t = c->in->fields[i].type;
  if (t.id >= LM_TYPE_UINT8 && !lm_bind_sql_type(t) &&
      !lm_bind_is_array_type(t)) { /* SQL arrays: array_bind.c */
    /* Arrow-only types (lm_columnar.h) have no SQL operators, keys or
     * formatting in the evaluator yet; ingest converts them to declared SQL
     * types (lm_conform.h), so this is a safety net, not a feature gap. */
    lm_bind_fail(c, e,
                 "column '%s' has type %s, which SQL does not support yet",
                 e->name, lm_type_name(t));
    return NULL;
  }
  lm_bexpr *b = lm_bind_node(c, LM_BX_COLUMN, t, e, 0);
  if (b)
    b->col = i;
  return b;
}

/* Whether x is VARCHAR as PostgreSQL types it against CHAR(n) (bpchareq
 * for varchar = bpchar): a column (TEXT and VARCHAR columns are one type
 * here) or a cast to VARCHAR; other text (`::text`, a function's result)
 * is text (texteq). */
static bool varchar_ast(const lm_expr *x) {
  return x && (x->kind == LM_EXPR_COLUMN ||
               (x->kind == LM_EXPR_CAST && x->cast_varchar));
}

/* x IN (v1, v2, ...) with CHAR(n) among text values, as PostgreSQL: more
 * than one value that is not a column is compared in the common type of x
 * and those values (the first typed one: CHAR(n), VARCHAR and TEXT each
 * convert implicitly to the others): 1 bpchar (trailing spaces do not
 * count), 2 text; 0 otherwise
 * (no CHAR(n), other types, or each value on its own, as x = v). */
static bool expr_has_agg(const lm_expr *e);
static int in_char_mode(lm_bctx *c, const lm_expr *e) {
  int nonvar = 0;
  for (int i = 1; i < e->n_args; i++)
    nonvar += e->args[i]->kind != LM_EXPR_COLUMN;
  if (nonvar < 2)
    return 0;
  int mode = 0;
  bool bp = false;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *a = e->args[i];
    if (i > 0 && a->kind == LM_EXPR_COLUMN)
      continue;
    if (a->kind == LM_EXPR_SUBQUERY || expr_has_agg(a))
      return 0;         /* (bound once only) */
    lm_bctx probe = *c; /* its type only (errors are reported later) */
    lm_error perr;
    lm_err_clear(&perr);
    probe.err = &perr;
    lm_bexpr *x = lm_bind_expr(&probe, a);
    if (!x)
      return 0;
    if (x->type.id == LM_TYPE_NULL || lm_bind_is_unknown(a, x))
      continue;
    if (x->type.id != LM_TYPE_UTF8 || lm_type_is_json(x->type))
      return 0;
    int k = lm_type_is_bpchar(x->type) ? 1 : 2;
    bp = bp || k == 1;
    if (!mode) /* each converts implicitly to the other: the first stays */
      mode = k;
  }
  return bp ? mode : 0;
}

/* Coerces the two operands of a comparison to one type. */
static int coerce_pair(lm_bctx *c, const lm_expr *at, lm_bexpr **pa,
                       lm_bexpr **pb) {
  lm_bexpr *a = *pa, *b = *pb;
  lm_type ta = a->type, tb = b->type;
  if (is_null(ta) && is_null(tb))
    return 0;
  if (is_null(ta)) {
    *pa = lm_bind_cast(c, a, tb);
    return 0;
  }
  if (is_null(tb)) {
    *pb = lm_bind_cast(c, b, ta);
    return 0;
  }
  if (lm_type_is_bpchar(ta) || lm_type_is_bpchar(tb)) {
    /* CHAR(n): trailing spaces do not count (PostgreSQL's bpchar
     * comparison, and its cast to text against a text value); a string
     * literal is read as CHAR too */
    lm_type v = lm_type_make(LM_TYPE_UTF8);
    if (ta.id == LM_TYPE_UTF8 && tb.id == LM_TYPE_UTF8) {
      /* (not a literal cast to text: 'x  '::text is text) */
      bool two = at && at->kind == LM_EXPR_BINARY && at->n_args == 2;
      if (a->kind == LM_BX_LITERAL &&
          !(two && at->args[0]->kind == LM_EXPR_CAST))
        a = lm_bind_cast(c, a, lm_type_bpchar());
      if (b->kind == LM_BX_LITERAL &&
          !(two && at->args[1]->kind == LM_EXPR_CAST))
        b = lm_bind_cast(c, b, lm_type_bpchar());
      /* a VARCHAR column against CHAR(n) is read as CHAR (PostgreSQL
       * picks bpchareq for bpchar = varchar: the varchar's trailing
       * spaces do not count either); other text (a function's result,
       * `::text`) stays text, as PostgreSQL's texteq for text = bpchar */
      bool sub = at && at->kind == LM_EXPR_SUBQUERY && at->n_args >= 1;
      if ((two || sub) && lm_type_is_bpchar(b->type) &&
          varchar_ast(at->args[0]))
        a = lm_bind_cast(c, a, lm_type_bpchar());
      if (lm_type_is_bpchar(a->type) &&
          (sub || (two && varchar_ast(at->args[1]))))
        b = lm_bind_cast(c, b, lm_type_bpchar()); /* (x IN (SELECT col)) */
      *pa = lm_bind_cast(c, a, v);
      *pb = lm_bind_cast(c, b, v);
      return *pa && *pb ? 0 : -1;
    }
    if (lm_type_is_bpchar(ta) && !(*pa = lm_bind_cast(c, a, v)))
      return -1;
    if (lm_type_is_bpchar(tb) && !(*pb = lm_bind_cast(c, b, v)))
      return -1;
    a = *pa, b = *pb, ta = a->type, tb = b->type;
  }
  int tr = lm_bind_types_pair(c, at, pa, pb); /* bind_types.c */
  if (tr <= 0)
    return tr;
  if (is_num(ta) && is_num(tb)) {
    lm_type t = lm_type_make(is_float(ta) || is_float(tb) ? LM_TYPE_FLOAT64
                                                          : LM_TYPE_INT64);
    *pa = lm_bind_cast(c, a, t);
    *pb = lm_bind_cast(c, b, t);
    return 0;
  }
  if (lm_type_eq(ta, tb))
    return 0;
  /* A string literal against a timestamp/number/bool is converted; in a
   * comparison a op b read once here, as PostgreSQL reads it when parsing
   * (22P02 for 'x' against an INTEGER, even over no rows). 'x' IN (SELECT
   * ...) still reads it per compared row (no error over no rows). */
  bool now = at && at->kind == LM_EXPR_BINARY;
  /* (a jsonb or uuid literal, '1.0'::jsonb folded, stays itself: the other
   * is read) */
  if (ta.id == LM_TYPE_UTF8 && a->kind == LM_BX_LITERAL &&
      !((lm_type_is_json(ta) || lm_type_is_uuid(ta)) &&
        tb.id == LM_TYPE_UTF8)) {
    *pa = lm_bind_cast(c, a, tb);
    *pa = now ? lm_bind_fold(c, *pa) : *pa;
    return *pa ? 0 : -1;
  }
  if (tb.id == LM_TYPE_UTF8 && b->kind == LM_BX_LITERAL &&
      !((lm_type_is_json(tb) || lm_type_is_uuid(tb)) &&
        ta.id == LM_TYPE_UTF8)) {
    *pb = lm_bind_cast(c, b, ta);
    *pb = now ? lm_bind_fold(c, *pb) : *pb;
    return *pb ? 0 : -1;
  }
  lm_bind_op_undefined(c, at,
                       at && at->kind == LM_EXPR_BINARY ? at->op : LM_OP_EQ, a,
                       b, false); /* bind_pgerr.c */
  return LM_ERR_BIND;
}

lm_bexpr *lm_bind_binary(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                         lm_bexpr *b) {
  if (!a || !b)
    return NULL;
  bool pg_num = false; /* + - * / % typed numeric in PostgreSQL */
  if (lm_type_is_json(a->type) || lm_type_is_json(b->type) ||
      op == LM_OP_JSON_PATH || op == LM_OP_JSON_PATH_TEXT ||
      op == LM_OP_JSON_EXISTS || op == LM_OP_JSON_EXISTS_ANY ||
      op == LM_OP_JSON_EXISTS_ALL || op == LM_OP_JSON_DELETE_PATH) {
    lm_bexpr *j; /* json / jsonb operands (json_bind.c) */
    if (lm_bind_json_op(c, e, op, a, b, &j))
      return j;
  }
  lm_bexpr *arr = NULL; /* array operands, @> <@ && (array_bind.c) */
  if (lm_bind_array_op(c, e, op, a, b, &arr))
    return arr;
  lm_type ta = a->type, tb = b->type, rt;
  switch (op) {
  case LM_OP_AND:
  case LM_OP_OR:
    /* a quoted literal is read as boolean (22P02 when it is none) */
    if (e && e->kind == LM_EXPR_BINARY && e->n_args == 2) {
      if (lm_bind_is_unknown(e->args[0], a) &&
          !(a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_BOOL))))
        return NULL;
      if (lm_bind_is_unknown(e->args[1], b) &&
          !(b = lm_bind_cast(c, b, lm_type_make(LM_TYPE_BOOL))))
        return NULL;
      ta = a->type, tb = b->type;
    }
    if (!(ta.id == LM_TYPE_BOOL || is_null(ta)) ||
        !(tb.id == LM_TYPE_BOOL || is_null(tb))) {
      /* PostgreSQL: 42804 at the operand that is not boolean */
      bool bad_a = !(ta.id == LM_TYPE_BOOL || is_null(ta));
      const lm_expr *ast = e && e->kind == LM_EXPR_BINARY && e->n_args == 2
                               ? e->args[bad_a ? 0 : 1]
                               : e;
      char what[200];
      snprintf(what, sizeof what, "argument of %s must be type boolean, not",
               op == LM_OP_AND ? "AND" : "OR");
      lm_bind_fail(c, ast, "%s type %s", what,
                   lm_bind_pg_type_of(ast == e ? NULL : ast, bad_a ? a : b));
      lm_err_state(c->err, "42804");
      return NULL;
    }
    a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_BOOL));
    b = lm_bind_cast(c, b, lm_type_make(LM_TYPE_BOOL));
    rt = lm_type_make(LM_TYPE_BOOL);
    break;
  case LM_OP_EQ:
  case LM_OP_NE:
  case LM_OP_LT:
  case LM_OP_LE:
  case LM_OP_GT:
  case LM_OP_GE:
    if (coerce_pair(c, e, &a, &b))
      return NULL;
    rt = lm_type_make(LM_TYPE_BOOL);
    break;
  case LM_OP_CONCAT: {
    /* PostgreSQL has text || anynonarray (either side), bytea || bytea,
     * arrays: numeric || integer is 42883 */
    bool txa = ta.id == LM_TYPE_UTF8 || ta.id == LM_TYPE_LARGE_UTF8 ||
               ta.id == LM_TYPE_BINARY || ta.id == LM_TYPE_LIST || is_null(ta);
    bool txb = tb.id == LM_TYPE_UTF8 || tb.id == LM_TYPE_LARGE_UTF8 ||
               tb.id == LM_TYPE_BINARY || tb.id == LM_TYPE_LIST || is_null(tb);
    if (!txa && !txb)
      return lm_bind_op_undefined(c, e, op, a, b, false);
    /* bytea || bytea is bytea; anything else concatenates text */
    bool bin = (ta.id == LM_TYPE_BINARY || is_null(ta)) &&
               (tb.id == LM_TYPE_BINARY || is_null(tb)) &&
               !(is_null(ta) && is_null(tb));
    rt = lm_type_make(bin ? LM_TYPE_BINARY : LM_TYPE_UTF8);
    a = lm_bind_cast(c, a, rt);
    b = lm_bind_cast(c, b, rt);
    break;
  }
  case LM_OP_REGEX:
  case LM_OP_REGEX_I:
  case LM_OP_NOT_REGEX:
  case LM_OP_NOT_REGEX_I:
  case LM_OP_JSON_GET:
  case LM_OP_JSON_GET_TEXT:
    return lm_bind_other_op(c, e, op, a, b); /* func_bind.c */
  case LM_OP_BIT_AND:
  case LM_OP_BIT_OR:
  case LM_OP_BIT_XOR:
  case LM_OP_SHL:
  case LM_OP_SHR:
    return lm_bind_bitop(c, e, op, a, b); /* pgsyntax_bind.c */
  case LM_OP_ADD:
  case LM_OP_SUB:
  case LM_OP_MUL:
  case LM_OP_DIV:
  case LM_OP_MOD: {
    /* a quoted literal takes the other operand's type (bind_pgerr.c) */
    if (lm_bind_unknown_arith(c, e, op, &a, &b))
      return NULL;
    ta = a->type, tb = b->type;
    bool ts_a = ta.id == LM_TYPE_TIMESTAMP, ts_b = tb.id == LM_TYPE_TIMESTAMP;
    bool iv_a = ta.id == LM_TYPE_INTERVAL, iv_b = tb.id == LM_TYPE_INTERVAL;
    /* interval * / number: a float8 factor, BIGINT for an integer (exact
     * and faster, the same results: exec/expr_interval.c) */
    if ((op == LM_OP_MUL || op == LM_OP_DIV) && iv_a &&
        (is_num(tb) || is_null(tb) || tb.id == LM_TYPE_DECIMAL128))
      tb = (b = lm_bind_cast(
                c, b,
                lm_type_make(is_int(tb) ? LM_TYPE_INT64 : LM_TYPE_FLOAT64)))
               ? b->type
               : tb;
    if (op == LM_OP_MUL && iv_b &&
        (is_num(ta) || is_null(ta) || ta.id == LM_TYPE_DECIMAL128))
      ta = (a = lm_bind_cast(
                c, a,
                lm_type_make(is_int(ta) ? LM_TYPE_INT64 : LM_TYPE_FLOAT64)))
               ? a->type
               : ta;
    if (!a || !b)
      return NULL;
    if (is_null(ta) && !is_null(tb)) {
      a = lm_bind_cast(c, a, tb);
      ta = tb;
    } else if (is_null(tb) && !is_null(ta)) {
      b = lm_bind_cast(c, b, ta);
      tb = ta;
    }
    int tr = lm_bind_types_arith(c, e, op, &a, &b, &rt); /* bind_types.c */
    if (tr < 0)
      return NULL;
    if (tr == 0) {
      /* DECIMAL, DATE, TIME operands: typed in bind_types.c */
    } else if ((ts_a && iv_b && (op == LM_OP_ADD || op == LM_OP_SUB)) ||
               (iv_a && ts_b && op == LM_OP_ADD)) {
      rt = lm_type_make(LM_TYPE_TIMESTAMP);
    } else if (ts_a && ts_b && op == LM_OP_SUB) {
      rt = lm_type_make(LM_TYPE_INTERVAL);
    } else if (iv_a && iv_b && (op == LM_OP_ADD || op == LM_OP_SUB)) {
      rt = lm_type_make(LM_TYPE_INTERVAL);
    } else if (iv_a && is_num(tb) && (op == LM_OP_MUL || op == LM_OP_DIV)) {
      rt = lm_type_make(LM_TYPE_INTERVAL); /* (cast above) */
    } else if (is_num(ta) && iv_b && op == LM_OP_MUL) {
      rt = lm_type_make(LM_TYPE_INTERVAL);
    } else if ((is_num(ta) || is_null(ta)) && (is_num(tb) || is_null(tb))) {
      /* int2 / int4 / int8 and real / double as PostgreSQL (bind_num.c) */
      rt = lm_bind_num_merge(lm_bind_num_type(a), lm_bind_num_type(b), true);
      pg_num = lm_bind_num_numeric_op(a, b); /* bind_num.c */
      a = lm_bind_cast(c, a, rt);
      b = lm_bind_cast(c, b, rt);
    } else {
      return lm_bind_op_undefined(c, e, op, a, b, false); /* bind_pgerr.c */
    }
    break;
  }
  default:
    lm_bind_fail(c, e, "unsupported operator", NULL, NULL);
    return NULL;
  }
  if (!a || !b)
    return NULL;
  if (op == LM_OP_AND || op == LM_OP_OR) {
    /* x AND FALSE is FALSE, x OR TRUE is TRUE, x not evaluated
     * (PostgreSQL's planner) */
    bool decide = op == LM_OP_OR;
    lm_bexpr *lits[2] = {a, b};
    for (int k = 0; k < 2; k++)
      if (lits[k]->kind == LM_BX_LITERAL && !lits[k]->lit.is_null &&
          lits[k]->type.id == LM_TYPE_BOOL && lits[k]->lit.v.b == decide)
        return lits[k];
  }
  if (op != LM_OP_AND && op != LM_OP_OR &&
      ((a->kind == LM_BX_LITERAL && a->lit.is_null) ||
       (b->kind == LM_BX_LITERAL && b->lit.is_null))) {
    /* a strict operator with a NULL literal operand is NULL, the other
     * side not evaluated (PostgreSQL folds it so when planning) */
    lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, rt, e, 0);
    if (z) {
      z->lit.type = rt;
      z->lit.is_null = true;
    }
    return z;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_BINARY, rt, e, 2);
  if (!r)
    return NULL;
  r->op = op;
  r->args[0] = a;
  r->args[1] = b;
  r->pg_numeric = pg_num && rt.id == LM_TYPE_FLOAT64;
  return r;
}

static const char *const agg_names[] = {"count",
                                        "sum",
                                        "avg",
                                        "min",
                                        "max",
                                        "first_value",
                                        "last_value",
                                        "stddev",
                                        "stddev_samp",
                                        "stddev_pop",
                                        "variance",
                                        "var_samp",
                                        "var_pop",
                                        "approx_count_distinct",
                                        "bool_and",
                                        "bool_or",
                                        "every",
                                        "string_agg",
                                        "grouping",
                                        "array_agg",
                                        "corr",
                                        "covar_pop",
                                        "covar_samp",
                                        "regr_slope",
                                        "regr_intercept",
                                        "regr_count",
                                        "regr_r2",
                                        "regr_avgx",
                                        "regr_avgy",
                                        "regr_sxx",
                                        "regr_syy",
                                        "regr_sxy",
                                        "bit_and",
                                        "bit_or",
                                        "bit_xor",
                                        "percentile_cont",
                                        "percentile_disc",
                                        "mode",
                                        "json_agg",
                                        "jsonb_agg",
                                        "json_object_agg",
                                        "jsonb_object_agg",
                                        NULL};

bool lm_bind_is_agg_name(const char *n) {
  for (int i = 0; agg_names[i]; i++)
    if (!strcmp(n, agg_names[i]))
      return true;
  return false;
}

static bool expr_has_agg(const lm_expr *e) {
  if (!e)
    return false;
  if (e->kind == LM_EXPR_FUNC && e->name && lm_bind_is_agg_name(e->name))
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (expr_has_agg(e->args[i]))
      return true;
  return false;
}

/* expr_has_agg, but an aggregate call of an enclosing query (its
 * arguments name only that query's columns: lm_bind_agg_level) is not
 * c's */
static bool has_local_agg(const lm_bctx *c, const lm_expr *e) {
  if (!e)
    return false;
  if (e->kind == LM_EXPR_FUNC && e->name && lm_bind_is_agg_name(e->name) &&
      lm_bind_agg_level(c, e) == 0)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_local_agg(c, e->args[i]))
      return true;
  return false;
}

/* PostgreSQL's 42883 for an aggregate call no signature takes, e.g.
 * "function bool_and(integer) does not exist": each argument's type (a
 * string literal is 'unknown' there), bound over the input `in`. */
static lm_bexpr *agg_undefined(lm_bctx *c, lm_bctx *in, const lm_expr *e) {
  char sig[400];
  size_t k = 0;
  sig[0] = '\0';
  for (int i = 0; i < e->n_args && k < sizeof sig - 40; i++) {
    const lm_expr *a = e->args[i];
    const char *tn = "unknown";
    if (!(a->kind == LM_EXPR_LITERAL &&
          (a->lit == LM_LIT_STRING || a->lit == LM_LIT_NULL))) {
      lm_bexpr *x = a->kind == LM_EXPR_STAR ? NULL : lm_bind_expr(in, a);
      if (!x && a->kind != LM_EXPR_STAR)
        return NULL;
      tn = x ? lm_bind_pg_type_of(a, x) : "*"; /* 1 is integer */
    }
    k += (size_t)snprintf(sig + k, sizeof sig - k, "%s%s", i ? ", " : "", tn);
  }
  char what[600];
  snprintf(what, sizeof what, "%s(%s)", e->name, sig);
  lm_bind_fail(c, e, "function %s does not exist", what, NULL);
  lm_err_state(c->err, "42883");
  lm_err_hint(c->err, "No function matches the given name and argument "
                      "types. You might need to add explicit type casts.");
  return NULL;
}

lm_bexpr *lm_bind_agg_undefined(lm_bctx *c, lm_bctx *in, const lm_expr *e) {
  return agg_undefined(c, in, e);
}

bool lm_bind_expr_has_agg(const lm_expr *e) {
  return expr_has_agg(e);
}

/* Whether an aggregate's result depends on the order of its input rows. */
static bool agg_order_matters(const char *n, bool distinct) {
  return !distinct && (!strcmp(n, "string_agg") || !strcmp(n, "first_value") ||
                       !strcmp(n, "last_value"));
}

/* agg(... ORDER BY k, ...): DISTINCT string_agg may order by its value
 * only (*desc: descending); string_agg ordered by its own value alone
 * keeps a sorted multiset (*by_value); the other order-sensitive calls
 * make the query's input sorted by the keys (p->agg_order, one ORDER BY
 * for every such call of the query: 0A000 otherwise). Errors as
 * PostgreSQL's (42P10) where it has them. 0 or an error code. */
static int agg_order_keys(lm_bctx *c, lm_bctx *in, const lm_expr *e,
                          const lm_bexpr *value, bool *desc, bool *by_value) {
  lm_plan *p = c->plan;
  *desc = false;
  *by_value = false;
  if (!e->n_agg_order)
    return 0;
  lm_sort_key *keys =
      lm_arena_alloc(c->arena, sizeof *keys * (size_t)e->n_agg_order);
  if (!keys)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < e->n_agg_order; i++) {
    const lm_order_item *oi = &e->agg_order[i];
    if (expr_has_agg(oi->expr)) {
      lm_bind_fail(c, oi->expr, "aggregate function calls cannot be nested",
                   NULL, NULL);
      return lm_err_state(c->err, "42803"); /* grouping_error */
    }
    lm_bexpr *k = lm_bind_expr(in, oi->expr);
    if (!k)
      return c->err->code ? c->err->code : LM_ERR_BIND;
    keys[i].expr = k;
    keys[i].desc = oi->desc;
    keys[i].nulls_first = oi->nulls == 1 || (oi->nulls == 0 && oi->desc);
    if (e->distinct) {
      bool in_args = value && lm_bexpr_equal(k, value);
      for (int a = 1; a < e->n_args && !in_args; a++) {
        const lm_expr *x = e->args[a];
        in_args = x->kind == oi->expr->kind && x->kind == LM_EXPR_LITERAL &&
                  x->lit == oi->expr->lit && x->text && oi->expr->text &&
                  !strcmp(x->text, oi->expr->text);
      }
      if (!in_args) {
        lm_bind_fail(c, oi->expr,
                     "in an aggregate with DISTINCT, ORDER BY expressions "
                     "must appear in argument list",
                     NULL, NULL);
        return lm_err_state(c->err, "42P10");
      }
      if (value && lm_bexpr_equal(k, value) && i == 0)
        *desc = oi->desc;
    }
  }
  if (!agg_order_matters(e->name, e->distinct))
    return 0; /* count, sum, min ... : the order changes nothing */
  if (!strcmp(e->name, "string_agg") && e->n_agg_order == 1 && value &&
      lm_bexpr_equal(keys[0].expr, value)) {
    *by_value = true; /* NULL values are skipped: NULLS FIRST/LAST moot */
    *desc = keys[0].desc;
    return 0;
  }
  if (!p->n_agg_order) {
    p->agg_order = keys;
    p->n_agg_order = e->n_agg_order;
    return 0;
  }
  bool same = p->n_agg_order == e->n_agg_order;
  for (int i = 0; same && i < e->n_agg_order; i++)
    same = lm_bexpr_equal(p->agg_order[i].expr, keys[i].expr) &&
           p->agg_order[i].desc == keys[i].desc &&
           p->agg_order[i].nulls_first == keys[i].nulls_first;
  if (!same) {
    lm_bind_fail(c, e->agg_order[0].expr,
                 "aggregates with different ORDER BY clauses in one query "
                 "are not supported",
                 NULL, NULL);
    return lm_err_state(c->err, "0A000");
  }
  return 0;
}

int lm_bind_agg_append(lm_bctx *c, const lm_agg_spec *s) {
  lm_plan *p = c->plan;
  lm_agg_spec *na =
      lm_arena_alloc(c->arena, sizeof *na * (size_t)(p->n_aggs + 1));
  if (!na) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return -1;
  }
  if (p->n_aggs)
    memcpy(na, p->aggs, sizeof *na * (size_t)p->n_aggs);
  na[p->n_aggs] = *s;
  p->aggs = na;
  return p->n_aggs++;
}

/* Finds or adds an aggregate call; returns a column reference to its slot
 * in the aggregate schema (n_keys + index). */
/* not inlined: its locals stay off the stack of lm_bind_expr's recursion
 * (a 4,000-term chain must fit, as in PostgreSQL) */
__attribute__((noinline)) static lm_bexpr *aggregate(lm_bctx *c,
                                                     const lm_expr *e) {
  lm_plan *p = c->plan;
  const char *n = e->name;
  if (!strcmp(n, "grouping")) /* GROUPING(): gsets_bind.c */
    return lm_bind_grouping(c, e);
  if (lm_bind_agg_level(c, e) > 0) /* an enclosing query's (subquery_bind.c) */
    return lm_bind_outer_agg(c, e);
  /* count(DISTINCT (a, b)) of a row: row_count_bind.c */
  if (lm_row_count_applies(e) && !(e = lm_row_count_rewrite(c, e)))
    return NULL;
  if (!strcmp(n, "array_agg")) /* as string_agg (array_bind.c) */
    return lm_bind_array_agg(c, e, aggregate);
  if (lm_bind_is_json_agg(n)) /* as string_agg (json_agg_bind.c) */
    return lm_bind_json_agg(c, e, aggregate);
  lm_agg_spec s;
  memset(&s, 0, sizeof s);
  s.distinct = e->distinct;
  /* a DECIMAL aggregate's result type (bind_types.c) */
  lm_type dec_t = lm_type_make(LM_TYPE_NULL);
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = p->input_schema;
  in.mdn_part = 0;
  /* agg(x) FILTER (WHERE f) => agg(CASE WHEN f THEN x END): every
   * aggregate skips NULLs, so rows failing f are simply not counted */
  lm_bexpr *flt = NULL;
  if (e->filter) {
    if (expr_has_agg(e->filter)) {
      lm_bind_fail(c, e->filter,
                   "aggregate functions are not allowed in FILTER", NULL, NULL);
      lm_err_state(c->err, "42803"); /* grouping_error */
      return NULL;
    }
    if (!(flt = lm_bind_expr(&in, e->filter)))
      return NULL;
    if (flt->type.id != LM_TYPE_BOOL && !is_null(flt->type)) {
      lm_bind_fail(c, e->filter, "FILTER (WHERE ...) must be BOOLEAN, found %s",
                   lm_type_name(flt->type), NULL);
      return NULL;
    }
    if (!(flt = lm_bind_cast(&in, flt, lm_type_make(LM_TYPE_BOOL))))
      return NULL;
  }
  if (e->distinct && (!strcmp(n, "first_value") || !strcmp(n, "last_value") ||
                      !strcmp(n, "approx_count_distinct"))) {
    lm_bind_fail(c, e, "%s(DISTINCT ...) is not supported", n, NULL);
    return NULL;
  }
  if (!strcmp(n, "count") && !flt &&
      (e->n_args == 0 ||
       (e->n_args == 1 && e->args[0]->kind == LM_EXPR_STAR))) {
    s.kind = LM_AGG_COUNT_STAR;
    s.out_type = lm_type_make(LM_TYPE_INT64);
  } else {
    bool star = !strcmp(n, "count") &&
                (e->n_args == 0 ||
                 (e->n_args == 1 && e->args[0]->kind == LM_EXPR_STAR));
    bool sagg = !strcmp(n, "string_agg");
    bool bagg =
        !strcmp(n, "bool_and") || !strcmp(n, "bool_or") || !strcmp(n, "every");
    bool bitagg = !strncmp(n, "bit_", 4);
    int rfn = lm_regr_fn_named(n);
    if (e->within_group || lm_bind_is_ordset(n)) /* stat_bind.c */
      return lm_bind_ordset(c, &in, e, flt);
    if (rfn > -2) /* corr, covar_*, regr_*: stat_bind.c */
      return lm_bind_regr(c, &in, e, flt, rfn);
    if ((sagg || bagg) && e->n_args != (sagg ? 2 : 1))
      return agg_undefined(c, &in, e);
    if (e->n_args != 1 && !star && !sagg)
      return agg_undefined(c, &in, e); /* max(): PostgreSQL's 42883 */
    for (int i = 0; !star && i < e->n_args; i++)
      if (expr_has_agg(e->args[i])) {
        lm_bind_fail(c, e->args[i], "aggregate function calls cannot be nested",
                     NULL, NULL);
        lm_err_state(c->err, "42803"); /* grouping_error */
        return NULL;
      }
    if (star) { /* COUNT(*) FILTER (WHERE f) = COUNT(CASE WHEN f THEN TRUE) */
      s.arg =
          lm_bind_node(&in, LM_BX_LITERAL, lm_type_make(LM_TYPE_BOOL), e, 0);
      if (!s.arg)
        return NULL;
      s.arg->lit.type = s.arg->type;
      s.arg->lit.v.b = true;
    } else {
      s.arg = lm_bind_expr(&in, e->args[0]);
    }
    if (!s.arg || lm_bind_agg_outer_only(c, e, s.arg)) /* bind_pgerr.c */
      return NULL;
    if (flt) {
      lm_bexpr *cs = lm_bind_node(&in, LM_BX_CASE, s.arg->type, e, 2);
      if (!cs)
        return NULL;
      cs->args[0] = flt;
      cs->args[1] = s.arg;
      s.arg = cs;
    }
    lm_type t = s.arg->type;
    s.in_type = t;
    if (t.id == LM_TYPE_INTERVAL_MDN && c->mdn_part) {
      /* one field of sum / avg (interval): mdn_bind.c */
      if (!(s.arg = lm_bind_mdn_part(c, e, s.arg)))
        return NULL;
      t = s.in_type = s.arg->type;
    } else if (t.id == LM_TYPE_INTERVAL_MDN && !e->distinct &&
               (!strcmp(n, "sum") || !strcmp(n, "avg"))) {
      return lm_bind_mdn_agg(c, e, aggregate); /* months: mdn_bind.c */
    } else if (t.id == LM_TYPE_INTERVAL_MDN && strcmp(n, "count") &&
               strcmp(n, "min") && strcmp(n, "max") &&
               strcmp(n, "first_value") && strcmp(n, "last_value")) {
      /* months: no aggregate state for them yet (docs/types.md) */
      lm_bind_fail(c, e,
                   "%s() of an interval with months or years is not "
                   "supported",
                   n, NULL);
      lm_err_state(c->err, "0A000");
      return NULL;
    }
    if (t.id == LM_TYPE_DECIMAL128 && !strcmp(n, "sum")) {
      /* numeric: exact 128-bit sums of the unscaled values (agg_table.c;
       * DISTINCT: of the distinct values) */
      s.kind = LM_AGG_SUM;
      s.out_type = lm_type_decimal128(38, t.scale);
    } else if (t.id == LM_TYPE_DECIMAL128 &&
               (!strcmp(n, "min") || !strcmp(n, "max"))) {
      /* the Decimal128 values themselves (ordered bytes, agg_table.c) */
      s.kind = n[1] == 'i' ? LM_AGG_MIN : LM_AGG_MAX;
      s.out_type = t;
    } else if (t.id == LM_TYPE_DECIMAL128 && !strcmp(n, "avg")) {
      /* avg = sum / count at the numeric division scale (PostgreSQL) */
      lm_expr es = *e, ec = *e;
      es.name = "sum";
      ec.name = "count";
      lm_bexpr *su = aggregate(c, &es), *cn = su ? aggregate(c, &ec) : NULL;
      return cn ? lm_bind_binary(c, e, LM_OP_DIV, su, cn) : NULL;
    }
    if (s.out_type.id == LM_TYPE_DECIMAL128) {
      /* bound above */
    } else if (bitagg) { /* bit_and / bit_or / bit_xor of an integer */
      if (is_null(t))
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_INT32));
      else if (!lm_type_is_integer(t))
        return agg_undefined(c, &in, e);
      s.kind = n[4] == 'a'   ? LM_AGG_BIT_AND
               : n[4] == 'o' ? LM_AGG_BIT_OR
                             : LM_AGG_BIT_XOR;
      s.in_type = s.out_type = s.arg ? s.arg->type : t;
    } else if (bagg) {
      if (is_null(t))
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_BOOL));
      else if (t.id != LM_TYPE_BOOL)
        return agg_undefined(c, &in, e);
      s.kind = !strcmp(n, "bool_or") ? LM_AGG_BOOL_OR : LM_AGG_BOOL_AND;
      s.in_type = s.out_type = lm_type_make(LM_TYPE_BOOL);
    } else if (sagg) {
      /* string_agg(text, text) or string_agg(bytea, bytea) */
      lm_bexpr *d = lm_bind_expr(&in, e->args[1]);
      if (!d)
        return NULL;
      bool bin = t.id == LM_TYPE_BINARY ||
                 (is_null(t) && d->type.id == LM_TYPE_BINARY);
      lm_type st = lm_type_make(bin ? LM_TYPE_BINARY : LM_TYPE_UTF8);
      bool lit1 =
          e->args[1]->kind == LM_EXPR_LITERAL &&
          (e->args[1]->lit == LM_LIT_STRING || e->args[1]->lit == LM_LIT_NULL);
      if ((!is_null(t) && t.id != st.id) ||
          (!is_null(d->type) && d->type.id != st.id && !lit1))
        return agg_undefined(c, &in, e);
      if (is_null(t) || lm_type_is_bpchar(t)) /* CHAR(n): cast to text */
        s.arg = lm_bind_cast(&in, s.arg, st); /* (padding dropped) */
      if (!(d = lm_bind_cast(&in, d, st)) || !(d = lm_bind_fold(&in, d)))
        return NULL;
      if (d->kind != LM_BX_LITERAL) {
        lm_bind_fail(c, e->args[1],
                     "string_agg with a delimiter that is not a constant is "
                     "not supported",
                     NULL, NULL);
        lm_err_state(c->err, "0A000");
        return NULL;
      }
      if (!d->lit.is_null) {
        int32_t len = d->lit.v.s.len;
        char *sep = lm_arena_alloc(c->arena, (size_t)len + 1);
        if (!sep) {
          lm_err(c->err, LM_ERR_NOMEM, "out of memory");
          return NULL;
        }
        if (len)
          memcpy(sep, d->lit.v.s.p, (size_t)len);
        sep[len] = '\0';
        s.sep = sep;
        s.sep_len = len;
      }
      s.kind = LM_AGG_STRING_AGG;
      s.in_type = s.out_type = st;
    } else if (!strcmp(n, "count")) {
      s.kind = LM_AGG_COUNT;
      s.out_type = lm_type_make(LM_TYPE_INT64);
    } else if (!strcmp(n, "sum") || !strcmp(n, "avg")) {
      bool avg = n[0] == 'a';
      /* PostgreSQL: sum(int2|int4) is bigint, sum(int8) numeric, avg of
       * any integer numeric (DECIMAL(38,16): the division's scale rule) */
      bool narrow = t.id == LM_TYPE_INT8 || t.id == LM_TYPE_INT16 ||
                    t.id == LM_TYPE_INT32 ||
                    (t.id == LM_TYPE_INT64 && s.arg->kind == LM_BX_LITERAL &&
                     s.arg->lit_int4);
      if (!is_num(t) && t.id != LM_TYPE_INTERVAL && !is_null(t))
        return agg_undefined(c, &in, e); /* sum(date): 42883 */
      if (is_null(t))
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_INT64));
      lm_type wide =
          lm_type_make(is_float(s.arg->type)                ? LM_TYPE_FLOAT64
                       : s.arg->type.id == LM_TYPE_INTERVAL ? LM_TYPE_INTERVAL
                                                            : LM_TYPE_INT64);
      s.arg = lm_bind_cast(&in, s.arg, wide);
      s.in_type = wide;
      s.kind = avg ? LM_AGG_AVG : LM_AGG_SUM;
      s.out_type = avg ? lm_type_make(LM_TYPE_FLOAT64) : wide;
      if (wide.id == LM_TYPE_INT64 && (avg || !narrow))
        s.out_type = lm_type_decimal128(38, avg ? 16 : 0);
      if (wide.id == LM_TYPE_INTERVAL)
        s.out_type = wide; /* avg(interval) is interval */
      if (!avg && t.id == LM_TYPE_FLOAT32)
        dec_t = t; /* sum(real) is real (summed as DOUBLE, cast below) */
    } else if (!strcmp(n, "approx_count_distinct")) {
      s.kind = LM_AGG_APPROX_DISTINCT;
      s.out_type = lm_type_make(LM_TYPE_INT64);
      if (t.id == LM_TYPE_FLOAT32 || is_null(t)) {
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_FLOAT64));
        s.in_type = lm_type_make(LM_TYPE_FLOAT64);
      }
    } else if (n[0] == 's' || n[0] == 'v') { /* stddev*, variance, var_* */
      if (!is_num(t) && !is_null(t) && t.id != LM_TYPE_DECIMAL128)
        return agg_undefined(c, &in, e); /* stddev(text): 42883 */
      if (t.id == LM_TYPE_DECIMAL128 || lm_type_is_integer(t)) {
        /* numeric, as PostgreSQL: exact sums (agg_table.c, agg_stat.c),
         * the column's scale max(16, 2s) as AVG's */
        int sc = t.id == LM_TYPE_DECIMAL128 ? 2 * t.scale : 0;
        if (t.id != LM_TYPE_DECIMAL128)
          s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_INT64));
        s.in_type = s.arg ? s.arg->type : t;
        s.out_type = lm_type_decimal128(38, sc > 16 ? (sc > 38 ? 38 : sc) : 16);
      } else {
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_FLOAT64));
        s.in_type = s.out_type = lm_type_make(LM_TYPE_FLOAT64);
      }
      bool pop = strstr(n, "_pop") != NULL;
      s.kind = n[0] == 's' ? (pop ? LM_AGG_STDDEV_POP : LM_AGG_STDDEV_SAMP)
                           : (pop ? LM_AGG_VAR_POP : LM_AGG_VAR_SAMP);
    } else {
      s.kind = !strcmp(n, "min")           ? LM_AGG_MIN
               : !strcmp(n, "max")         ? LM_AGG_MAX
               : !strcmp(n, "first_value") ? LM_AGG_FIRST
                                           : LM_AGG_LAST;
      if (is_null(t)) {
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_INT64));
        t = s.arg->type;
      }
      if (lm_type_is_json(t) && s.kind != LM_AGG_FIRST &&
          s.kind != LM_AGG_LAST) /* PostgreSQL: no min/max(jsonb) */
        return agg_undefined(c, &in, e);
      if (t.id == LM_TYPE_FLOAT32) {
        s.arg = lm_bind_cast(&in, s.arg, lm_type_make(LM_TYPE_FLOAT64));
        dec_t = t; /* min(real) is real: cast back below (exact) */
        t = s.arg->type;
      }
      s.in_type = t;
      s.out_type = t;
    }
    if (!s.arg)
      return NULL;
  }
  if (e->n_agg_order) {
    bool desc = false, byv = false;
    /* the value without FILTER's CASE WHEN f THEN x END around it */
    const lm_bexpr *val = s.kind == LM_AGG_COUNT_STAR ? NULL : s.arg;
    if (val && flt && val->kind == LM_BX_CASE && val->n_args == 2 &&
        val->args[0] == flt)
      val = val->args[1];
    if (agg_order_keys(c, &in, e, val, &desc, &byv))
      return NULL;
    s.ordered = agg_order_matters(n, e->distinct);
    s.order_desc = desc;
    s.by_value = byv;
  }
  int idx = -1;
  for (int i = 0; i < p->n_aggs; i++)
    if (p->aggs[i].kind == s.kind && p->aggs[i].distinct == s.distinct &&
        lm_bexpr_equal(p->aggs[i].arg, s.arg) &&
        p->aggs[i].ordered == s.ordered &&
        p->aggs[i].order_desc == s.order_desc &&
        p->aggs[i].by_value == s.by_value &&
        (p->aggs[i].sep == NULL) == (s.sep == NULL) &&
        p->aggs[i].sep_len == s.sep_len &&
        (!s.sep || !memcmp(p->aggs[i].sep, s.sep, (size_t)s.sep_len))) {
      idx = i;
      break;
    }
  if (idx < 0 && (idx = lm_bind_agg_append(c, &s)) < 0)
    return NULL;
  lm_bexpr *r = lm_bind_node(c, LM_BX_COLUMN, s.out_type, e, 0);
  if (r)
    r->col = p->n_keys + idx;
  if (dec_t.id == LM_TYPE_DECIMAL128)
    return lm_bind_dec_rescale(c, e, r, dec_t); /* bind_types.c */
  if (dec_t.id == LM_TYPE_FLOAT32)
    return lm_bind_cast(c, r, dec_t);
  return r;
}

/* Post-aggregation binding: aggregates become references to their slot,
 * expressions equal to a GROUP BY key become references to the key. */
static lm_bexpr *bind_post(lm_bctx *c, const lm_expr *e, bool *matched);

static lm_bexpr *match_key(lm_bctx *c, const lm_expr *e) {
  lm_plan *p = c->plan;
  if (expr_has_agg(e) || lm_expr_has_subquery(e))
    return NULL;
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = p->input_schema;
  in.window_ok = true;
  lm_error scratch;
  lm_err_clear(&scratch);
  in.err = &scratch;
  lm_bexpr *x = lm_bind_expr(&in, e);
  if (!x) {
    /* an unknown function (or argument types no function takes) is
     * PostgreSQL's 42883 at the call, found before the GROUP BY check */
    if (scratch.code && !strcmp(scratch.sqlstate, "42883") && c->err)
      *c->err = scratch;
    return NULL;
  }
  for (int k = 0; k < p->n_keys; k++) {
    if (p->n_gsets && k == p->gset_key)
      continue; /* __grouping_set: a placeholder, no expression's value */
    if (lm_bexpr_equal(p->keys[k], x)) {
      lm_bexpr *r = lm_bind_node(c, LM_BX_COLUMN, p->keys[k]->type, e, 0);
      if (r)
        r->col = k;
      return r;
    }
  }
  /* tumble_end(ts, size[, off]) when tumble(ts, size[, off]) is a key. */
  if (x->kind == LM_BX_FUNC && x->fn == LM_FN_TUMBLE_END) {
    lm_bexpr probe = *x;
    probe.fn = LM_FN_TUMBLE;
    for (int k = 0; k < p->n_keys; k++) {
      if (lm_bexpr_equal(p->keys[k], &probe)) {
        lm_bexpr *ref = lm_bind_node(c, LM_BX_COLUMN, p->keys[k]->type, e, 0);
        if (!ref)
          return NULL;
        ref->col = k;
        return lm_bind_binary(c, e, LM_OP_ADD, ref, x->args[1]);
      }
    }
  }
  return NULL;
}

/* not inlined: its locals stay off the stack of lm_bind_expr's recursion
 * (a 4,000-term chain must fit, as in PostgreSQL) */
__attribute__((noinline)) static lm_bexpr *
bind_post(lm_bctx *c, const lm_expr *e, bool *matched) {
  lm_bexpr *k = match_key(c, e);
  if (k)
    return k;
  if (e->kind == LM_EXPR_FUNC && e->name && lm_bind_is_agg_name(e->name))
    return aggregate(c, e);
  if (e->kind == LM_EXPR_COLUMN) {
    const lm_scope *sc = c->scope;
    bool local = lm_schema_find_ref(c->plan->input_schema, e->name, e->quoted,
                                    NULL) >= 0;
    if (e->table && !sc)
      local = local && c->from && !strcmp(e->table, c->from);
    if (e->table && sc) {
      local = false;
      for (int i = 0; i < sc->n; i++)
        if (sc->cols[i].rel && !strcmp(sc->cols[i].rel, e->table))
          local = true;
    }
    if (!local) { /* a column of an enclosing query? (subquery_bind.c) */
      bool bad = false;
      lm_bexpr *o = lm_bind_outer_ref(c, e, &bad);
      if (o || bad)
        return o;
    }
    /* Not a key: is it a known input column at all? */
    if (lm_schema_find_ref(c->plan->input_schema, e->name, e->quoted, NULL) <
        0) {
      if (e->table) /* PostgreSQL's wording */
        lm_bind_fail(c, e, "column %s.%s does not exist", e->table, e->name);
      else
        lm_bind_fail(c, e, "column \"%s\" does not exist", e->name, NULL);
      lm_err_state(c->err, "42703");
      return NULL;
    }
    /* PostgreSQL's wording (42803 grouping_error): the column qualified by
     * its relation when one is known */
    const char *rel = e->table ? e->table : c->from;
    for (int i = 0; !rel && sc && i < sc->n; i++)
      if (sc->cols[i].rel && lm_ident_eq(sc->cols[i].name, e->name, 1))
        rel = sc->cols[i].rel;
    char q[300];
    snprintf(q, sizeof q, "%s%s%s", rel ? rel : "", rel ? "." : "", e->name);
    lm_bind_fail(c, e,
                 "column \"%s\" must appear in the GROUP BY clause or be used "
                 "in an aggregate function",
                 q, NULL);
    lm_err_state(c->err, "42803");
    return NULL;
  }
  (void)matched;
  return NULL; /* caller recurses through lm_bind_expr() with c->post set */
}

/* x [NOT] IN (a, b, ...). Not inlined: its locals stay off the stack of
 * lm_bind_expr's recursion. */
__attribute__((noinline)) static lm_bexpr *bind_in_list(lm_bctx *c,
                                                        const lm_expr *e) {
  /* x IN (a, b, ...)  =>  x = a OR x = b ... (three-valued as in SQL).
   * The ORs form a balanced tree (depth log2(n)), not a chain: a list of
   * 100,000 constants must not recurse 100,000 deep in the evaluator.
   * OR is associative and the tree keeps the left-to-right order, so the
   * short circuit and the NULL rules are those of the written chain. */
  int n_eq = e->n_args - 1;
  if (n_eq < 1) {
    lm_bind_fail(c, e, "IN needs at least one value", NULL, NULL);
    return NULL;
  }
  lm_bexpr **eqs = malloc(sizeof(*eqs) * (size_t)n_eq);
  if (!eqs) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  int bpmode = in_char_mode(c, e); /* CHAR(n) among text: PostgreSQL's */
  for (int i = 1; i < e->n_args; i++) {
    lm_bexpr *x = lm_bind_expr(c, e->args[0]), *y = lm_bind_expr(c, e->args[i]);
    const char *tx = x ? lm_bind_pg_type_of(e->args[0], x) : "",
               *ty = y ? lm_bind_pg_type_of(e->args[i], y) : "";
    const lm_expr *at = e->args[i];
    lm_expr syn; /* x = y as written, for the CHAR(n) rules of '=' */
    lm_expr *pair[2] = {e->args[0], e->args[i]};
    if (x && y && bpmode == 1) { /* common type bpchar */
      if (x->type.id == LM_TYPE_UTF8 && !lm_type_is_bpchar(x->type) &&
          x->kind != LM_BX_LITERAL)
        x = lm_bind_cast(c, x, lm_type_bpchar());
      if (y->type.id == LM_TYPE_UTF8 && !lm_type_is_bpchar(y->type) &&
          y->kind != LM_BX_LITERAL)
        y = lm_bind_cast(c, y, lm_type_bpchar());
    } else if (x && y && bpmode == 2) { /* common type text */
      if (lm_type_is_bpchar(x->type))
        x = lm_bind_cast(c, x, lm_type_make(LM_TYPE_UTF8));
      if (lm_type_is_bpchar(y->type))
        y = lm_bind_cast(c, y, lm_type_make(LM_TYPE_UTF8));
    } else if (x && y &&
               (lm_type_is_bpchar(x->type) || lm_type_is_bpchar(y->type))) {
      memset(&syn, 0, sizeof syn); /* one value: PostgreSQL's x = y */
      syn.kind = LM_EXPR_BINARY;
      syn.op = LM_OP_EQ;
      syn.args = pair;
      syn.n_args = 2;
      syn.line = at->line;
      syn.column = at->column;
      at = &syn;
    }
    eqs[i - 1] = x && y ? lm_bind_binary(c, at, LM_OP_EQ, x, y) : NULL;
    if (eqs[i - 1] && !in_fold_consts(c, eqs[i - 1])) {
      free(eqs);
      return NULL;
    }
    if (!eqs[i - 1]) {
      if (x && y && e->op_line > 0 && !strcmp(c->err->sqlstate, "42883") &&
          strstr(c->err->msg, "operator does not exist")) {
        /* PostgreSQL's place (the IN) and its names of the types */
        lm_err_at(c->err, LM_ERR_BIND, e->op_line, e->op_column,
                  "operator does not exist: %s %s %s", tx,
                  e->negated ? "<>" : "=", ty);
        lm_err_state(c->err, "42883");
        lm_err_hint(c->err, "No operator matches the given name and "
                            "argument types. You might need to add "
                            "explicit type casts.");
      }
      free(eqs);
      return NULL;
    }
  }
  while (n_eq > 1) { /* pair neighbours: [a b c d e] -> [(a|b) (c|d) e] */
    int m = 0;
    for (int i = 0; i < n_eq; i += 2) {
      lm_bexpr *r = i + 1 < n_eq
                        ? lm_bind_binary(c, e, LM_OP_OR, eqs[i], eqs[i + 1])
                        : eqs[i];
      if (!r) {
        free(eqs);
        return NULL;
      }
      eqs[m++] = r;
    }
    n_eq = m;
  }
  lm_bexpr *acc = eqs[0];
  free(eqs);
  lm_inset_attach(acc, c->arena); /* one sorted set (expr_inset.c) */
  if (e->negated) {
    lm_bexpr *n = lm_bind_node(c, LM_BX_UNARY, acc->type, e, 1);
    if (!n)
      return NULL;
    n->op = LM_OP_NOT;
    n->args[0] = acc;
    acc = n;
  }
  return acc;
}

/* The AND / OR / operator node whose operands are being bound (bind_inner) */
static _Thread_local const lm_expr *binding_binary;

static lm_bexpr *bind_inner(lm_bctx *c, const lm_expr *e) {
  if (c->post) {
    lm_bexpr *r = bind_post(c, e, NULL);
    if (r)
      return r;
    if (c->err && c->err->code)
      return NULL;
    if (e->kind == LM_EXPR_LITERAL)
      return literal(c, e);
    /* fall through: structural recursion with post-bound children */
  }
  switch (e->kind) {
  case LM_EXPR_LITERAL:
    return literal(c, e);
  case LM_EXPR_COLUMN:
    return column(c, e);
  case LM_EXPR_STAR:
    lm_bind_fail(c, e, "'*' is not allowed here", NULL, NULL);
    return NULL;
  case LM_EXPR_SUBQUERY:
    return lm_bind_subquery(c, e); /* subquery_bind.c */
  case LM_EXPR_UNARY: {
    lm_bexpr *a = lm_bind_expr(c, e->args[0]);
    if (!a)
      return NULL;
    if (e->op == LM_OP_BIT_NOT)
      return lm_bind_bitop(c, e, e->op, a, NULL); /* pgsyntax_bind.c */
    if (e->op == LM_OP_NOT) {
      if (lm_bind_is_unknown(e->args[0], a) &&
          !(a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_BOOL))))
        return NULL;
      if (a->type.id != LM_TYPE_BOOL && !is_null(a->type)) {
        lm_bind_fail(c, e->args[0],
                     "argument of NOT must be type boolean, not type %s",
                     lm_bind_pg_type_of(e->args[0], a), NULL);
        lm_err_state(c->err, "42804");
        return NULL;
      }
      a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_BOOL));
    } else {
      if (a->kind == LM_BX_LITERAL && !a->lit.is_null) {
        /* fold -literal */
        if (a->type.id == LM_TYPE_INT64 || a->type.id == LM_TYPE_INTERVAL) {
          if (a->lit.v.i == INT64_MIN) {
            lm_bind_fail(c, e, "integer out of range", NULL, NULL);
            return NULL;
          }
          a->lit.v.i = -a->lit.v.i;
          a->iv_days = -a->iv_days;
          if (a->type.id == LM_TYPE_INT64) /* -2147483648 is int4 */
            a->lit_int4 = a->lit.v.i >= INT32_MIN && a->lit.v.i <= INT32_MAX;
          a->line = e->line;
          a->column = e->column;
          return a;
        }
        lm_i128 dv =
            (lm_i128)(((unsigned __int128)(uint64_t)a->lit.v.d128.hi << 64) |
                      (unsigned __int128)a->lit.v.d128.lo);
        if (a->type.id == LM_TYPE_DECIMAL128 && !lm_dec_is_special(dv)) {
          lm_i128 v = -dv; /* -1.5: numeric */
          a->lit.v.d128.lo = (uint64_t)(unsigned __int128)v;
          a->lit.v.d128.hi = (int64_t)((unsigned __int128)v >> 64);
          a->line = e->line;
          a->column = e->column;
          return a;
        }
        if (a->type.id == LM_TYPE_FLOAT64) {
          /* a decimal constant is numeric in PostgreSQL, which has no
           * negative zero: -0.0 is 0.0 (float8 -0 stays -0) */
          if (!(a->lit_text && a->lit.v.f == 0))
            a->lit.v.f = -a->lit.v.f;
          if (a->lit_text) { /* keep the digits: "-" + text, or text less "-" */
            size_t n = strlen(a->lit_text);
            char *t = lm_arena_alloc(c->arena, n + 2);
            if (!t) {
              lm_err(c->err, LM_ERR_NOMEM, "out of memory");
              return NULL;
            }
            if (a->lit_text[0] == '-')
              memcpy(t, a->lit_text + 1, n);
            else {
              t[0] = '-';
              memcpy(t + 1, a->lit_text, n + 1);
            }
            a->lit_text = t;
          }
          return a;
        }
      }
      if (!is_num(a->type) && a->type.id != LM_TYPE_INTERVAL &&
          a->type.id != LM_TYPE_INTERVAL_MDN &&
          a->type.id != LM_TYPE_DECIMAL128 && !is_null(a->type)) {
        lm_bind_fail(c, e, "unary minus needs a numeric operand, found %s",
                     lm_type_name(a->type), NULL);
        return NULL;
      }
      /* -x keeps SMALLINT / INTEGER / REAL (PostgreSQL's int2um ...) */
      if (is_null(a->type))
        a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_INT64));
      else if (a->type.id == LM_TYPE_INT8)
        a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_INT16));
    }
    if (!a)
      return NULL;
    lm_bexpr *r = lm_bind_node(c, LM_BX_UNARY, a->type, e, 1);
    if (!r)
      return NULL;
    r->op = e->op;
    r->args[0] = a;
    return r;
  }
  case LM_EXPR_BINARY: {
    /* the root of an OR chain (its parent is no OR) gets a set of its
     * `column = constant` terms, when they all are such (expr_inset.c) */
    bool or_root =
        e->op == LM_OP_OR &&
        !(binding_binary && binding_binary->op == LM_OP_OR &&
          (binding_binary->args[0] == e || binding_binary->args[1] == e));
    const lm_expr *outer = binding_binary;
    binding_binary = e;
    lm_bexpr *l = lm_bind_expr(c, e->args[0]);
    /* FALSE AND x, TRUE OR x: x is not evaluated, not even folded */
    bool decided = l && l->kind == LM_BX_LITERAL && !l->lit.is_null &&
                   l->type.id == LM_TYPE_BOOL &&
                   ((e->op == LM_OP_AND && !l->lit.v.b) ||
                    (e->op == LM_OP_OR && l->lit.v.b));
    lm_bind_no_fold(decided); /* func_bind.c */
    lm_bexpr *r = l ? lm_bind_expr(c, e->args[1]) : NULL;
    lm_bind_no_fold(-(int)decided);
    binding_binary = outer;
    lm_bexpr *x = lm_bind_binary(c, e, e->op, l, r);
    if (x && or_root)
      lm_inset_attach(x, c->arena);
    return x;
  }
  case LM_EXPR_FUNC:
    /* ARRAY(SELECT ...): array_sub_bind.c */
    if (e->name && !strcmp(e->name, "__array_sub"))
      return lm_bind_array_sub(c, e);
    if (lm_bind_is_array_fn(e->name)) /* ARRAY[...], a[i], ... */
      return lm_bind_array_fn(c, e);  /* array_bind.c */
    if (e->name && lm_bind_is_agg_name(e->name)) {
      if (strcmp(e->name, "grouping") && lm_bind_agg_level(c, e) > 0)
        return lm_bind_outer_agg(c, e); /* subquery_bind.c */
      if (!c->plan && c->want_agg)
        *c->want_agg = true; /* planned again as an aggregate query */
      if (!c->plan) {
        lm_bind_fail(c, e, "aggregate function %s() is not allowed here",
                     e->name, NULL);
        lm_err_state(c->err, "42803"); /* grouping_error */
      } else
        return aggregate(c, e);
      return NULL;
    }
    return lm_bind_func(c, e);
  case LM_EXPR_CAST: {
    if (e->cast_type.id == LM_TYPE_LIST && e->args[0]->kind == LM_EXPR_FUNC &&
        e->args[0]->n_args == 0 && e->args[0]->name &&
        !strcmp(e->args[0]->name, "__array")) /* ARRAY[]::int[] */
      return lm_bind_array_empty(c, e, e->cast_type);
    const lm_expr *arg = e->args[0];
    if ((e->cast_type.id == LM_TYPE_FLOAT64 ||
         e->cast_type.id == LM_TYPE_FLOAT32) &&
        arg->kind == LM_EXPR_LITERAL && arg->lit == LM_LIT_DECIMAL &&
        arg->text && isfinite(strtod(arg->text, NULL))) {
      /* 3.14159...(50 digits)::float8: the double itself (1e400 keeps its
       * text for literal_overflow's message) */
      lm_expr *d = lm_arena_alloc(c->arena, sizeof *d);
      if (!d) {
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        return NULL;
      }
      *d = *arg;
      d->text = NULL;
      arg = d;
    }
    lm_bexpr *a = lm_bind_expr(c, arg);
    if (!a)
      return NULL;
    lm_type ct = e->cast_type;
    if (lm_bind_json_cast_check(c, e, a, ct)) /* json_bind.c */
      return NULL;
    if (ct.id == LM_TYPE_DECIMAL128 && ct.precision == 0 &&
        lm_bind_cast_numeric_type(c, e, a, &ct)) /* bind_types.c */
      return NULL;
    if (ct.id == LM_TYPE_LIST && e->cast_tlen < 0 &&
        lm_bind_array_numeric(c, e, a, &ct))
      return NULL; /* numeric[]: array_bind.c */
    if (a->kind == LM_BX_LITERAL && a->lit.is_null)
      return lm_bind_cast(c, a, ct);
    if (ct.id == LM_TYPE_INTERVAL) { /* months: INTERVAL_MDN, mdn_bind.c */
      if (a->type.id == LM_TYPE_INTERVAL_MDN)
        return a;
      lm_bexpr *m = lm_bind_mdn_text(c, a);
      if (m)
        return m;
      if (a->type.id == LM_TYPE_UTF8 && a->kind != LM_BX_LITERAL)
        ct = lm_type_make(LM_TYPE_INTERVAL_MDN); /* its text may name months */
    }
    lm_bexpr *r = lm_bind_node(c, LM_BX_CAST, ct, e, 1);
    if (!r)
      return NULL;
    r->args[0] = a;
    if (e->args[0]->kind == LM_EXPR_LITERAL && e->args[0]->line > 0) {
      /* a literal's bad text is reported at the literal (PostgreSQL) */
      r->line = e->args[0]->line;
      r->column = e->args[0]->column;
    } else if (e->op_line > 0) { /* x::t: at the '::' (PostgreSQL's 42846) */
      r->line = e->op_line;
      r->column = e->op_column;
    }
    if (ct.id == LM_TYPE_TIMESTAMP || ct.id == LM_TYPE_TIME64)
      r->tprec = e->cast_tprec; /* TIMESTAMP(p): expr_eval.c rounds */
    /* Infinity fits NUMERIC and numeric[] only, not NUMERIC(p,s) or
     * NUMERIC(p,s)[] (expr_types.c) */
    if (ct.id == LM_TYPE_DECIMAL128)
      r->tprec = e->cast_type.precision == 0 ? -1 : -2;
    else if (ct.id == LM_TYPE_LIST && ct.node &&
             ct.node->children[0].type.id == LM_TYPE_DECIMAL128)
      r->tprec = e->cast_tlen < 0 ? -1 : -2;
    /* CAST(2.5 AS INT): numeric in PostgreSQL, rounded half away */
    if (lm_type_is_integer(ct) && lm_bexpr_numeric_origin(a))
      r->tassign = true;
    /* VARCHAR(n) truncates, CHAR(n) pads */
    if (ct.id == LM_TYPE_UTF8) {
      r->tlen = e->cast_tlen;
      r->tbpchar = e->cast_bpchar;
    }
    return r;
  }
  case LM_EXPR_IS_NULL: {
    if (e->booltest)                 /* IS [NOT] TRUE | FALSE | UNKNOWN */
      return lm_bind_booltest(c, e); /* pgsyntax_bind.c */
    lm_bexpr *a = lm_bind_expr(c, e->args[0]);
    if (!a)
      return NULL;
    lm_bexpr *r =
        lm_bind_node(c, LM_BX_IS_NULL, lm_type_make(LM_TYPE_BOOL), e, 1);
    if (!r)
      return NULL;
    r->negated = e->negated;
    r->args[0] = a;
    return r;
  }
  case LM_EXPR_BETWEEN: {
    /* x BETWEEN a AND b  =>  x >= a AND x <= b */
    lm_bexpr *x1 = lm_bind_expr(c, e->args[0]);
    lm_bexpr *x2 = lm_bind_expr(c, e->args[0]);
    lm_bexpr *lo =
        lm_bind_binary(c, e, LM_OP_GE, x1, lm_bind_expr(c, e->args[1]));
    lm_bexpr *hi =
        lm_bind_binary(c, e, LM_OP_LE, x2, lm_bind_expr(c, e->args[2]));
    lm_bexpr *r = lm_bind_binary(c, e, LM_OP_AND, lo, hi);
    if (r && e->symmetric) { /* ... OR x BETWEEN b AND a */
      lm_bexpr *lo2 =
          lm_bind_binary(c, e, LM_OP_GE, lm_bind_expr(c, e->args[0]),
                         lm_bind_expr(c, e->args[2]));
      lm_bexpr *hi2 =
          lm_bind_binary(c, e, LM_OP_LE, lm_bind_expr(c, e->args[0]),
                         lm_bind_expr(c, e->args[1]));
      r = lm_bind_binary(c, e, LM_OP_OR, r,
                         lm_bind_binary(c, e, LM_OP_AND, lo2, hi2));
    }
    if (r && e->negated) {
      lm_bexpr *n = lm_bind_node(c, LM_BX_UNARY, r->type, e, 1);
      if (!n)
        return NULL;
      n->op = LM_OP_NOT;
      n->args[0] = r;
      r = n;
    }
    return r;
  }
  case LM_EXPR_IN:
    return bind_in_list(c, e);
  case LM_EXPR_LIKE: {
    if (e->booltest)                /* [NOT] SIMILAR TO */
      return lm_bind_similar(c, e); /* pgsyntax_bind.c */
    /* a CHAR(n) value is matched with its padding, as PostgreSQL's
     * bpcharlike ('x  ' LIKE 'x' is false) */
    lm_bexpr *a = lm_bind_expr(c, e->args[0]);
    lm_bexpr *p = a ? lm_bind_expr(c, e->args[1]) : NULL;
    if (a && p && lm_bind_like_types(c, e, a, p)) /* 1 LIKE 'a': 42883 */
      return NULL;
    if (a && !lm_type_is_bpchar(a->type))
      a = lm_bind_cast(c, a, lm_type_make(LM_TYPE_UTF8));
    p = lm_bind_cast(c, p, lm_type_make(LM_TYPE_UTF8));
    lm_bexpr *esc = NULL;
    if (e->n_args > 2 && !(esc = lm_bind_cast(c, lm_bind_expr(c, e->args[2]),
                                              lm_type_make(LM_TYPE_UTF8))))
      return NULL;
    if (!a || !p)
      return NULL;
    lm_bexpr *r =
        lm_bind_node(c, LM_BX_LIKE, lm_type_make(LM_TYPE_BOOL), e, esc ? 3 : 2);
    if (!r)
      return NULL;
    r->negated = e->negated;
    r->icase = e->icase;
    r->args[0] = a;
    r->args[1] = p;
    if (esc)
      r->args[2] = esc;
    return r;
  }
  case LM_EXPR_CASE: {
    /* CASE x WHEN v THEN r  =>  CASE WHEN x = v THEN r */
    int i = 0;
    const lm_expr *operand = NULL;
    if (e->has_operand)
      operand = e->args[i++];
    int n_pairs = (e->n_args - i - (e->has_else ? 1 : 0)) / 2;
    int n = n_pairs * 2 + (e->has_else ? 1 : 0);
    lm_bexpr *r = lm_bind_node(c, LM_BX_CASE, lm_type_make(LM_TYPE_NULL), e, n);
    if (!r)
      return NULL;
    r->has_else = e->has_else;
    int case_decided = 0; /* no_fold levels taken after a constant TRUE */
    lm_type t = lm_type_make(LM_TYPE_NULL);
    bool cond_ok = true;
    for (int k = 0; k < n_pairs; k++) {
      const lm_expr *w = e->args[i + 2 * k], *th = e->args[i + 2 * k + 1];
      lm_bexpr *cond =
          operand ? lm_bind_binary(c, w, LM_OP_EQ, lm_bind_expr(c, operand),
                                   lm_bind_expr(c, w))
                  : lm_bind_expr(c, w);
      if (!cond) {
        cond_ok = false;
        break;
      }
      if (cond->type.id != LM_TYPE_BOOL && !is_null(cond->type)) {
        lm_bind_fail(c, w, "CASE WHEN condition must be BOOLEAN", NULL, NULL);
        cond_ok = false;
        break;
      }
      r->args[2 * k] = lm_bind_cast(c, cond, lm_type_make(LM_TYPE_BOOL));
      /* PostgreSQL does not simplify a branch behind a constant FALSE /
       * NULL condition, nor anything after a constant TRUE one */
      bool lit = cond->kind == LM_BX_LITERAL;
      bool is_true = lit && !cond->lit.is_null &&
                     cond->type.id == LM_TYPE_BOOL && cond->lit.v.b;
      lm_bind_no_fold(lit && !is_true);
      r->args[2 * k + 1] = lm_bind_expr(c, th);
      lm_bind_no_fold(-(int)(lit && !is_true));
      if (is_true) {
        lm_bind_no_fold(1);
        case_decided++;
      }
      if (!r->args[2 * k + 1]) {
        cond_ok = false;
        break;
      }
    }
    bool ok = n_pairs == 0 || cond_ok;
    if (ok && e->has_else)
      ok = (r->args[n - 1] = lm_bind_expr(c, e->args[e->n_args - 1])) != NULL;
    lm_bind_no_fold(-case_decided);
    if (!ok)
      return NULL;
    lm_bind_types_lits(c, r->args, n); /* DECIMAL branches: bind_types.c */
    bool unknown = false; /* quoted literals take the others' type */
    for (int k = 0; k < n; k++) {
      if (k < n_pairs * 2 && k % 2 == 0)
        continue;
      lm_type a = r->args[k]->type;
      if (is_null(a))
        continue;
      if (lm_bind_is_unknown(e->args[i + k], r->args[k])) {
        unknown = true;
        continue;
      }
      /* an integer literal counts as INTEGER (bind_num.c) */
      if (is_num(a))
        a = lm_bind_num_type(r->args[k]);
      if (is_null(t))
        t = a;
      else if (is_num(t) && is_num(a))
        t = lm_bind_num_merge(t, a, false);
      else if (lm_bind_types_merge(t, a, &t)) /* bind_types.c */
        continue;
      else if (!lm_type_eq(t, a)) {
        lm_bind_fail(c, e, "CASE branches have types %s and %s",
                     lm_type_name(t), lm_type_name(a));
        return NULL;
      }
    }
    for (int k = 0; unknown && k < n; k++)
      if (!(k < n_pairs * 2 && k % 2 == 0) &&
          lm_bind_is_unknown(e->args[i + k], r->args[k]) &&
          lm_bind_unknown_member(c, e->args[i + k], r->args[k], &t))
        return NULL;                              /* bind_pgerr.c */
    t = lm_bind_num_real(t, r->args, n, n_pairs); /* bind_num.c */
    for (int k = 0; k < n; k++) {
      if (k < n_pairs * 2 && k % 2 == 0)
        continue;
      r->args[k] = lm_bind_cast(c, r->args[k], t);
      if (!r->args[k])
        return NULL;
    }
    r->type = t;
    /* PostgreSQL's planner drops the WHEN arms with a constant FALSE /
     * NULL condition, and a constant TRUE one becomes the ELSE */
    int w = 0;
    bool has_else = r->has_else;
    lm_bexpr *els = has_else ? r->args[n - 1] : NULL;
    for (int k = 0; k < n_pairs; k++) {
      lm_bexpr *cond = r->args[2 * k];
      if (cond->kind == LM_BX_LITERAL) {
        if (cond->lit.is_null || !cond->lit.v.b)
          continue;
        els = r->args[2 * k + 1];
        has_else = true;
        break;
      }
      r->args[w++] = cond;
      r->args[w++] = r->args[2 * k + 1];
    }
    if (w == 0) { /* no arm left: the ELSE, or NULL */
      if (els)
        return els;
      lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
      if (z) {
        z->lit.type = t;
        z->lit.is_null = true;
      }
      return z;
    }
    if (has_else)
      r->args[w++] = els;
    r->has_else = has_else;
    r->n_args = w;
    return r;
  }
  }
  lm_bind_fail(c, e, "unsupported expression", NULL, NULL);
  return NULL;
}

lm_bexpr *lm_bind_expr(lm_bctx *c, const lm_expr *e) {
  if (++c->depth > LM_BIND_MAX_DEPTH || lm_stack_low()) {
    /* PostgreSQL's check_stack_depth error */
    lm_bind_fail(c, e, "stack depth limit exceeded", NULL, NULL);
    lm_err_state(c->err, "54001");
    c->depth--;
    return NULL;
  }
  lm_bexpr *r = bind_inner(c, e);
  if (r)
    r = lm_bind_fold(c, r); /* func_bind.c */
  c->depth--;
  return r;
}

int lm_bind_scalar(const lm_expr *e, const lm_schema *input, lm_arena *arena,
                   lm_bexpr **out, lm_error *err) {
  lm_error local;
  if (!err)
    err = &local;
  lm_bctx c = {arena, input, NULL, NULL, false, err, 0, false, NULL, NULL, 0};
  lm_err_clear(err);
  *out = lm_bind_expr(&c, e);
  return *out ? 0 : (err && err->code ? err->code : LM_ERR_BIND);
}

/* ------------------------------------------------------- SELECT planning */

/* PostgreSQL's internal name of a cast's target type, a result column's
 * name when the cast operand has none (1::bigint is "int8"). */
static const char *cast_colname(const lm_expr *e) {
  lm_type t = e->cast_type;
  switch (t.id) {
  case LM_TYPE_BOOL:
    return "bool";
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
    return "int2";
  case LM_TYPE_INT32:
    return "int4";
  case LM_TYPE_INT64:
    return "int8";
  case LM_TYPE_FLOAT32:
    return "float4";
  case LM_TYPE_FLOAT64:
    return "float8";
  case LM_TYPE_DECIMAL128:
    return "numeric";
  case LM_TYPE_UTF8:
    if (lm_type_is_json(t))
      return lm_type_is_jsonb(t) ? "jsonb" : "json";
    return e->cast_bpchar || lm_type_is_bpchar(t) ? "bpchar"
           : e->cast_tlen                         ? "varchar"
                                                  : "text";
  case LM_TYPE_TIMESTAMP:
    return lm_type_is_tstz(t) ? "timestamptz" : "timestamp";
  case LM_TYPE_DATE32:
    return "date";
  case LM_TYPE_TIME64:
    return "time";
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN:
    return "interval";
  case LM_TYPE_BINARY:
    return "bytea";
  default:
    return "?column?";
  }
}

static const char *default_name(const lm_expr *e) {
  return lm_expr_default_name(e);
}

/* PostgreSQL's FigureColname strength of e's name: 2 for a column's,
 * function's or subquery's, 1 for a cast's type name and "case", 0 none. */
static int name_strength(const lm_expr *e) {
  if (e->kind == LM_EXPR_CAST) {
    int s = name_strength(e->args[0]);
    return s == 2 ? 2 : strcmp(cast_colname(e), "?column?") ? 1 : s;
  }
  if (e->kind == LM_EXPR_CASE) {
    int s = e->has_else ? name_strength(e->args[e->n_args - 1]) : 0;
    return s == 2 ? 2 : 1;
  }
  return strcmp(default_name(e), "?column?") ? 2 : 0;
}

const char *lm_expr_default_name(const lm_expr *e) {
  if (e->kind == LM_EXPR_COLUMN)
    return e->name;
  if (e->kind == LM_EXPR_FUNC && e->name && e->name[0] == '_' &&
      e->name[1] == '_') /* the parser's array forms (array_bind.c) */
    return !strcmp(e->name, "__array") || !strcmp(e->name, "__array_sub")
               ? "array"
           : (!strcmp(e->name, "__subscript") || !strcmp(e->name, "__slice"))
               ? default_name(e->args[0])
               : "?column?";
  if (e->kind == LM_EXPR_FUNC) /* EXTRACT(...): "extract" (PostgreSQL 14+) */
    return e->extract_syntax ? "extract" : e->name;
  if (e->kind == LM_EXPR_CAST) /* the operand's name, else the type's */
    return name_strength(e->args[0]) == 2 ? default_name(e->args[0])
                                          : cast_colname(e);
  if (e->kind == LM_EXPR_CASE) /* the ELSE value's name, else "case" */
    return e->has_else && name_strength(e->args[e->n_args - 1]) == 2
               ? default_name(e->args[e->n_args - 1])
               : "case";
  if (e->kind == LM_EXPR_SUBQUERY && e->subq == LM_SUBQ_EXISTS)
    return "exists";
  if (e->kind == LM_EXPR_SUBQUERY && e->subq == LM_SUBQ_SCALAR && e->subquery &&
      e->subquery->n_items > 0) /* its column's name (PG) */
    return e->subquery->items[0].alias
               ? e->subquery->items[0].alias
               : default_name(e->subquery->items[0].expr);
  return "?column?";
}

/* GROUP BY may name a select alias or an ordinal. */
static const lm_expr *resolve_group_expr(const lm_select *sel,
                                         const lm_schema *in, const lm_expr *g,
                                         lm_error *err, bool *bad) {
  if (g->kind == LM_EXPR_LITERAL && g->lit == LM_LIT_INT) {
    if (g->ival < 1 || g->ival > sel->n_items) {
      lm_err_at(err, LM_ERR_BIND, g->line, g->column,
                "GROUP BY position %lld is not in select list",
                (long long)g->ival);
      lm_err_state(err, "42P10"); /* invalid_column_reference */
      *bad = true;
      return NULL;
    }
    return sel->items[g->ival - 1].expr;
  }
  if (g->kind == LM_EXPR_COLUMN && !g->table &&
      lm_schema_find_ref(in, g->name, g->quoted, NULL) < 0) {
    for (int i = 0; i < sel->n_items; i++) /* output names match exactly */
      if (sel->items[i].alias && !strcmp(sel->items[i].alias, g->name))
        return sel->items[i].expr;
  }
  return g;
}

static bool is_window_fn(const lm_bexpr *x) {
  return x->kind == LM_BX_FUNC &&
         (x->fn == LM_FN_TUMBLE || x->fn == LM_FN_TUMBLE_END ||
          (x->fn >= LM_FN_HOP && x->fn <= LM_FN_SESSION_END));
}

/* Finds the window among the GROUP BY keys: one window function (start or
 * end; both name the same window). Makes sure both the start and the end
 * are keys (adding __window_start / __window_end) and records the window's
 * shape in the plan. */
static int plan_window(lm_plan *p, const lm_select *sel, lm_error *err) {
  const lm_bexpr *w = NULL;
  for (int k = 0; k < p->n_keys; k++) {
    const lm_bexpr *kx = p->keys[k];
    if (!is_window_fn(kx))
      continue;
    const lm_expr *g = sel->group_by[k];
    if (kx->args[0]->kind != LM_BX_COLUMN)
      return lm_err_at(err, LM_ERR_BIND, g->line, g->column,
                       "a window's time argument must be a column");
    if (w) {
      lm_bexpr probe = *kx;
      probe.fn = w->fn;
      if (!lm_bexpr_equal(&probe, w))
        return lm_err_at(err, LM_ERR_BIND, g->line, g->column,
                         "only one window per query");
      continue;
    }
    w = kx;
  }
  if (!w)
    return 0;
  lm_func_id start_fn, end_fn;
  switch (w->fn) {
  case LM_FN_TUMBLE:
  case LM_FN_TUMBLE_END:
    start_fn = LM_FN_TUMBLE, end_fn = LM_FN_TUMBLE_END;
    p->window_kind = LM_WIN_TUMBLE;
    break;
  case LM_FN_HOP:
  case LM_FN_HOP_END:
    start_fn = LM_FN_HOP, end_fn = LM_FN_HOP_END;
    p->window_kind = LM_WIN_HOP;
    break;
  case LM_FN_CUMULATE:
  case LM_FN_CUMULATE_END:
    start_fn = LM_FN_CUMULATE, end_fn = LM_FN_CUMULATE_END;
    p->window_kind = LM_WIN_CUMULATE;
    break;
  default:
    start_fn = LM_FN_SESSION, end_fn = LM_FN_SESSION_END;
    p->window_kind = LM_WIN_SESSION;
    break;
  }
  for (int pass = 0; pass < 2; pass++) {
    lm_func_id f = pass ? end_fn : start_fn;
    lm_bexpr *probe = lm_arena_alloc(&p->arena, sizeof *probe);
    if (!probe)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    *probe = *w;
    probe->fn = f;
    int found = -1;
    for (int k = 0; k < p->n_keys && found < 0; k++)
      if (lm_bexpr_equal(p->keys[k], probe))
        found = k;
    if (found < 0) {
      const char *nm = pass ? "__window_end" : "__window_start";
      found = p->n_keys++;
      p->keys[found] = probe;
      p->key_names[found] = lm_arena_strndup(&p->arena, nm, strlen(nm));
    }
    if (pass)
      p->window_end_key = found;
    else
      p->window_key = found;
  }
  p->window_time_col = w->args[0]->col;
  int64_t a1 = w->args[1]->lit.v.i;
  int64_t a2 = w->n_args > 2 ? w->args[2]->lit.v.i : 0;
  int64_t a3 = w->n_args > 3 ? w->args[3]->lit.v.i : 0;
  switch (p->window_kind) {
  case LM_WIN_TUMBLE:
    p->window_size_us = p->window_slide_us = a1;
    p->window_offset_us = a2;
    break;
  case LM_WIN_HOP:      /* the seed's order: slide, then size */
  case LM_WIN_CUMULATE: /* step, then max size */
    p->window_slide_us = a1;
    p->window_size_us = a2;
    p->window_offset_us = a3;
    break;
  default:
    p->window_size_us = p->window_slide_us = a1; /* the gap */
    break;
  }
  return 0;
}

/* DISTINCT ON (e, ...) of sel (ad-hoc; after ORDER BY is bound): each
 * expression names an output column as ORDER BY items do (an output name,
 * an ordinal, else an expression: a hidden column, out[*n_total]); they
 * must match the leftmost ORDER BY items (PostgreSQL's rule: 42P10 at the
 * DISTINCT ON expression), and those ORDER BY does not list are appended
 * to the sort (ascending). Fills p->distinct_on and clears p->distinct. 0
 * or an error code (err set). */
static int plan_distinct_on(lm_bctx *c, lm_plan *p, const lm_select *sel,
                            const char **names, int n_items, int *n_total) {
  int nd = sel->n_distinct_on;
  p->distinct_on = lm_arena_alloc(&p->arena, sizeof(int) * (size_t)nd);
  lm_sort_key *sk =
      lm_arena_alloc(&p->arena, sizeof *sk * (size_t)(p->n_sort + nd));
  if (!p->distinct_on || !sk)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < nd; i++) {
    const lm_expr *e = sel->distinct_on[i];
    int idx = -1;
    if (expr_has_agg(e) && !c->plan)
      return lm_bind_fail(c, e, "aggregate functions are not allowed here",
                          NULL, NULL);
    if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT) {
      if (e->ival < 1 || e->ival > n_items) {
        lm_err_at(c->err, LM_ERR_BIND, e->line, e->column,
                  "SELECT DISTINCT ON position %lld is not in select list",
                  (long long)e->ival);
        return lm_err_state(c->err, "42P10");
      }
      idx = (int)e->ival - 1;
    } else if (e->kind == LM_EXPR_COLUMN && !e->table) {
      for (int o = 0; o < n_items; o++)
        if (names[o] && !strcmp(names[o], e->name)) { /* output name: exact */
          idx = o;
          break;
        }
    }
    if (idx < 0) {
      lm_bexpr *b = lm_bind_expr(c, e);
      if (!b)
        return c->err->code ? c->err->code : LM_ERR_BIND;
      for (int o = 0; o < *n_total; o++)
        if (lm_bexpr_equal(p->out[o], b))
          idx = o;
      if (idx < 0) {
        p->out[*n_total] = b;
        idx = (*n_total)++;
      }
    }
    p->distinct_on[i] = idx;
  }
  p->n_distinct_on = nd;
  p->distinct = false;
  /* ORDER BY items that are DISTINCT ON columns must come first */
  bool skipped = false;
  for (int i = 0; i < p->n_sort; i++) {
    int col = p->sort[i].expr->col, j = 0;
    while (j < nd && p->distinct_on[j] != col)
      j++;
    if (j == nd) {
      skipped = true;
    } else if (skipped) {
      lm_bind_fail(c, sel->distinct_on[j],
                   "SELECT DISTINCT ON expressions must match initial ORDER "
                   "BY expressions",
                   NULL, NULL);
      return lm_err_state(c->err, "42P10");
    }
    sk[i] = p->sort[i];
  }
  int ns = p->n_sort;
  for (int j = 0; j < nd; j++) {
    bool listed = false;
    for (int i = 0; i < ns && !listed; i++)
      listed = sk[i].expr->col == p->distinct_on[j];
    if (listed)
      continue;
    if (skipped) {
      lm_bind_fail(c, sel->distinct_on[j],
                   "SELECT DISTINCT ON expressions must match initial ORDER "
                   "BY expressions",
                   NULL, NULL);
      return lm_err_state(c->err, "42P10");
    }
    const lm_expr *e = sel->distinct_on[j];
    lm_bexpr *ref =
        lm_bind_node(c, LM_BX_COLUMN, p->out[p->distinct_on[j]]->type, e, 0);
    if (!ref)
      return c->err->code ? c->err->code : LM_ERR_NOMEM;
    ref->col = p->distinct_on[j];
    sk[ns].expr = ref;
    sk[ns].desc = false;
    sk[ns].nulls_first = false;
    ns++;
  }
  p->sort = sk;
  p->n_sort = ns;
  return 0;
}

int lm_plan_select(const lm_select *sel, lm_schema *input,
                   const char *from_name, lm_plan **out, lm_error *err) {
  return lm_plan_select_scope(sel, input, from_name, NULL, out, err);
}

/* The entries SELECT * (table NULL) or table.* expands to, in order: their
 * count, and with `out` their indexes into scope->cols. */
static int star_entries(const lm_scope *s, const char *table, int *out) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    const lm_scope_col *x = &s->cols[i];
    if (table ? !(x->rel && !strcmp(x->rel, table)) : !x->star)
      continue;
    if (x->name && x->name[0] == '\x01') /* hidden (api/srf_from.h) */
      continue;
    if (out)
      out[n] = i;
    n++;
  }
  return n;
}

static int plan_select(const lm_select *sel, lm_schema *input,
                       const char *from_name, const lm_scope *scope,
                       lm_plan **out, lm_error *err, bool *want_agg);

int lm_plan_select_scope(const lm_select *sel, lm_schema *input,
                         const char *from_name, const lm_scope *scope,
                         lm_plan **out, lm_error *err) {
  /* an aggregate of the query found only inside a subquery of it
   * (`SELECT (SELECT count(t.a)) FROM t`) makes it an aggregate query:
   * planned again as one */
  bool want_agg = false;
  int rc = plan_select(sel, input, from_name, scope, out, err, &want_agg);
  if (rc && want_agg) {
    bool again = true;
    lm_err_clear(err);
    rc = plan_select(sel, input, from_name, scope, out, err, &again);
  }
  return rc;
}

/* want_agg: in, plan as an aggregate query; out, the query was planned as
 * none but an aggregate of it was found (in a subquery) */
static int plan_select(const lm_select *sel, lm_schema *input,
                       const char *from_name, const lm_scope *scope,
                       lm_plan **out, lm_error *err, bool *want_agg) {
  bool force_agg = *want_agg;
  lm_error local;
  if (!err)
    err = &local;
  *out = NULL;
  lm_err_clear(err);
  if (sel->setop || sel->values || sel->n_ctes) /* api/setop.c runs these */
    return lm_err_at(err, LM_ERR_BIND, sel->line, sel->column,
                     "%s is only supported in a top-level ad-hoc SELECT here",
                     sel->setop ? "a set operation (UNION, INTERSECT, EXCEPT)"
                     : sel->values ? "VALUES"
                                   : "WITH");
  if (sel->from_subquery && !scope) /* Top-N over ROW_NUMBER: topn_bind.c */
    return lm_plan_topn(sel, input, from_name, out, err);
  int orc = lm_plan_check_no_over(sel, err);
  if (orc)
    return orc;
  lm_plan *p = calloc(1, sizeof *p);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_arena_init(&p->arena, 16384);
  p->input_schema = lm_schema_retain(input);
  p->window_key = -1;
  p->window_end_key = -1;
  p->window_time_col = -1;
  p->allowed_lateness_us = sel->allowed_lateness_us;
  p->emit_interval_us = sel->emit_interval_us;
  p->limit = sel->limit;
  p->limit_with_ties = sel->limit_with_ties;
  p->offset = sel->offset;
  p->distinct = sel->distinct;
  p->emit = sel->emit;
  const char *from = sel->from_alias ? sel->from_alias : from_name;
  lm_bctx c = {&p->arena, input, from,  NULL, false, err,
               0,         false, scope, NULL, 0};
  int rc = LM_ERR_BIND;

  if (sel->where) {
    if (lm_bind_grouping_misplaced(sel->where, "WHERE", err))
      goto fail;
    if (has_local_agg(&c, sel->where)) {
      lm_err_at(err, LM_ERR_BIND, sel->where->line, sel->where->column,
                "aggregate functions are not allowed in WHERE");
      lm_err_state(err, "42803"); /* grouping_error */
      goto fail;
    }
    p->where = lm_bind_expr(&c, sel->where);
    if (!p->where)
      goto fail;
    if (p->where->type.id != LM_TYPE_BOOL && !is_null(p->where->type)) {
      lm_err_at(err, LM_ERR_BIND, sel->where->line, sel->where->column,
                "argument of WHERE must be type boolean, not type %s",
                lm_bind_pg_type_of(sel->where, p->where));
      lm_err_state(err, "42804");
      goto fail;
    }
  }

  bool any_agg =
      force_agg || sel->n_group_by > 0 || sel->group_elems || sel->having;
  for (int i = 0; i < sel->n_items; i++)
    if (has_local_agg(&c, sel->items[i].expr))
      any_agg = true;
  p->has_agg = any_agg;
  c.want_agg = any_agg ? NULL : want_agg;

  /* Expand the select list (SELECT *). */
  int n_items = 0;
  for (int i = 0; i < sel->n_items; i++) {
    const lm_expr *e = sel->items[i].expr;
    if (e->kind != LM_EXPR_STAR) {
      n_items++;
    } else if (!scope) {
      n_items += input->n_fields;
    } else {
      int k = star_entries(scope, e->table, NULL);
      if (k == 0 && e->table) {
        lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                  "missing FROM-clause entry for table \"%s\"", e->table);
        goto fail;
      }
      n_items += k;
    }
  }
  /* hidden sort and DISTINCT ON columns, at most */
  int n_extra = sel->n_order_by + sel->n_distinct_on;
  p->out = lm_arena_alloc(&p->arena,
                          sizeof(lm_bexpr *) * (size_t)(n_items + n_extra + 1));
  const char **names =
      lm_arena_alloc(&p->arena, sizeof(char *) * (size_t)(n_items + 1));
  if (!p->out || !names) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto fail;
  }

  if (any_agg) {
    p->n_keys = sel->n_group_by;
    /* + 2: the window start and end keys plan_window may add */
    p->keys =
        lm_arena_alloc(&p->arena, sizeof(lm_bexpr *) * (size_t)(p->n_keys + 2));
    p->key_names =
        lm_arena_alloc(&p->arena, sizeof(char *) * (size_t)(p->n_keys + 2));
    for (int k = 0; k < p->n_keys; k++) {
      bool bad = false;
      const lm_expr *g =
          resolve_group_expr(sel, input, sel->group_by[k], err, &bad);
      if (bad || lm_bind_grouping_misplaced(g, "GROUP BY", err))
        goto fail;
      if (expr_has_agg(g)) {
        lm_err_at(err, LM_ERR_BIND, g->line, g->column,
                  "aggregate functions are not allowed in GROUP BY");
        lm_err_state(err, "42803"); /* grouping_error */
        goto fail;
      }
      c.window_ok = true;
      p->keys[k] = lm_bind_expr(&c, g);
      c.window_ok = false;
      if (!p->keys[k])
        goto fail;
      if (lm_type_is_json(p->keys[k]->type) &&
          !lm_type_is_jsonb(p->keys[k]->type)) { /* PostgreSQL's */
        lm_err_at(err, LM_ERR_BIND, g->line, g->column,
                  "could not identify an equality operator for type json");
        lm_err_state(err, "42883");
        goto fail;
      }
      const char *nm = default_name(g);
      for (int i = 0; i < sel->n_items; i++)
        if (sel->items[i].alias && sel->items[i].expr == g)
          nm = sel->items[i].alias;
      p->key_names[k] = lm_arena_strndup(&p->arena, nm, strlen(nm));
    }
    if (plan_window(p, sel, err) || lm_bind_grouping_sets(&c, p, sel))
      goto fail;
    c.plan = p;
    c.post = true;
    for (int i = 0, o = 0; i < sel->n_items; i++) {
      const lm_expr *e = sel->items[i].expr;
      if (e->kind == LM_EXPR_STAR) {
        /* As PostgreSQL: each column '*' stands for is bound as a column
         * reference, so it must be a GROUP BY key ("column ... must appear
         * in the GROUP BY clause" otherwise). */
        int nk = scope ? star_entries(scope, e->table, NULL) : input->n_fields;
        int *idx =
            scope ? lm_arena_alloc(&p->arena, sizeof(int) * (size_t)(nk + 1))
                  : NULL;
        if (scope && !idx) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          goto fail;
        }
        if (scope)
          star_entries(scope, e->table, idx);
        for (int j = 0; j < nk; j++) {
          lm_expr *ref = lm_arena_alloc(&p->arena, sizeof *ref);
          if (!ref) {
            rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
            goto fail;
          }
          memset(ref, 0, sizeof *ref);
          ref->kind = LM_EXPR_COLUMN;
          ref->line = e->line;
          ref->column = e->column;
          ref->table = scope ? scope->cols[idx[j]].rel : NULL;
          ref->name = scope ? scope->cols[idx[j]].name : input->fields[j].name;
          p->out[o] = lm_bind_expr(&c, ref);
          if (!p->out[o])
            goto fail;
          names[o++] = ref->name;
        }
        continue;
      }
      p->out[o] = lm_bind_out_int4(lm_bind_expr(&c, e));
      if (!p->out[o])
        goto fail;
      names[o++] = sel->items[i].alias ? sel->items[i].alias : default_name(e);
    }
    if (sel->having) {
      p->having = lm_bind_expr(&c, sel->having);
      if (!p->having)
        goto fail;
      if (p->having->type.id != LM_TYPE_BOOL) {
        lm_err_at(err, LM_ERR_BIND, sel->having->line, sel->having->column,
                  "argument of HAVING must be type boolean, not type %s",
                  lm_bind_pg_type_of(sel->having, p->having));
        lm_err_state(err, "42804");
        goto fail;
      }
    }
  } else {
    for (int i = 0, o = 0; i < sel->n_items; i++) {
      const lm_expr *e = sel->items[i].expr;
      if (e->kind == LM_EXPR_STAR && scope) {
        int *idx =
            lm_arena_alloc(&p->arena, sizeof(int) * (size_t)(scope->n + 1));
        if (!idx) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          goto fail;
        }
        int k = star_entries(scope, e->table, idx);
        for (int j = 0; j < k; j++) {
          const lm_scope_col *x = &scope->cols[idx[j]];
          lm_bexpr *b = x->expr;
          if (!b && (b = lm_bind_node(&c, LM_BX_COLUMN,
                                      input->fields[x->col].type, e, 0)))
            b->col = x->col;
          if (!b)
            goto fail;
          p->out[o] = b;
          names[o++] = x->name;
        }
        continue;
      }
      if (e->kind == LM_EXPR_STAR) {
        for (int f = 0; f < input->n_fields; f++) {
          lm_bexpr *b =
              lm_bind_node(&c, LM_BX_COLUMN, input->fields[f].type, e, 0);
          if (!b)
            goto fail;
          b->col = f;
          p->out[o] = b;
          names[o++] = input->fields[f].name;
        }
        continue;
      }
      p->out[o] = lm_bind_out_int4(lm_bind_expr(&c, e));
      if (!p->out[o])
        goto fail;
      names[o++] = sel->items[i].alias ? sel->items[i].alias : default_name(e);
    }
  }
  p->n_out = n_items;

  /* ORDER BY: an output name or ordinal, else an expression (a hidden
   * output column). */
  int n_total = n_items;
  if (sel->n_order_by) {
    p->sort = lm_arena_alloc(&p->arena,
                             sizeof(lm_sort_key) * (size_t)sel->n_order_by);
    if (!p->sort) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto fail;
    }
  }
  for (int i = 0; i < sel->n_order_by; i++) {
    const lm_order_item *oi = &sel->order_by[i];
    const lm_expr *e = oi->expr;
    int idx = -1;
    if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT) {
      if (e->ival < 1 || e->ival > n_items) {
        lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                  "ORDER BY position %lld is not in select list",
                  (long long)e->ival);
        lm_err_state(err, "42P10"); /* invalid_column_reference */
        goto fail;
      }
      idx = (int)e->ival - 1;
    } else if (e->kind == LM_EXPR_COLUMN && !e->table) {
      for (int o = 0; o < n_items; o++)
        if (names[o] && !strcmp(names[o], e->name)) { /* output name: exact */
          if (idx >= 0 && !lm_bexpr_equal(p->out[idx], p->out[o])) {
            /* two different output columns of that name (PostgreSQL) */
            lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                      "ORDER BY \"%s\" is ambiguous", e->name);
            lm_err_state(err, "42702"); /* ambiguous_column */
            goto fail;
          }
          if (idx < 0)
            idx = o;
        }
    }
    if (idx < 0) {
      lm_bexpr *b = lm_bind_expr(&c, e);
      if (!b)
        goto fail;
      for (int o = 0; o < n_total; o++)
        if (lm_bexpr_equal(p->out[o], b))
          idx = o;
      if (idx < 0 && sel->distinct && !sel->n_distinct_on) {
        /* a hidden sort column would change what DISTINCT compares */
        lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                  "for SELECT DISTINCT, ORDER BY expressions must appear in "
                  "select list");
        lm_err_state(err, "42P10"); /* invalid_column_reference */
        goto fail;
      }
      if (idx < 0) {
        p->out[n_total] = b;
        idx = n_total++;
      }
    }
    if (lm_type_is_json(p->out[idx]->type) &&
        !lm_type_is_jsonb(p->out[idx]->type)) { /* PostgreSQL's */
      lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                "could not identify an ordering operator for type json");
      lm_err_state(err, "42883");
      lm_err_hint(err, "Use an explicit ordering operator or modify the "
                       "query.");
      goto fail;
    }
    lm_bexpr *ref = lm_bind_node(&c, LM_BX_COLUMN, p->out[idx]->type, e, 0);
    if (!ref)
      goto fail;
    ref->col = idx;
    p->sort[i].expr = ref;
    p->sort[i].desc = oi->desc;
    p->sort[i].nulls_first = oi->nulls == 1 || (oi->nulls == 0 && oi->desc);
  }
  p->n_sort = sel->n_order_by;
  if (sel->n_distinct_on &&
      (rc = plan_distinct_on(&c, p, sel, names, n_items, &n_total)))
    goto fail;

  if (any_agg && p->n_keys == 0 && p->n_aggs == 0) {
    /* HAVING without GROUP BY or an aggregate (SELECT 1 HAVING true): one
     * group over all rows, as PostgreSQL; a hidden COUNT(*) gives the
     * aggregate's output batch its one row */
    lm_agg_spec *na = lm_arena_alloc(c.arena, sizeof *na);
    if (!na) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto fail;
    }
    memset(na, 0, sizeof *na);
    na->kind = LM_AGG_COUNT_STAR;
    na->out_type = lm_type_make(LM_TYPE_INT64);
    p->aggs = na;
    p->n_aggs = 1;
  }
  if (any_agg) {
    /* The aggregate operator's output schema, once ORDER BY has added any
     * aggregate of its own. */
    p->agg_schema = lm_schema_new(p->n_keys + p->n_aggs);
    if (!p->agg_schema) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto fail;
    }
    for (int k = 0; k < p->n_keys; k++)
      lm_schema_set_field(p->agg_schema, k, p->key_names[k], p->keys[k]->type,
                          !(p->keys[k]->kind == LM_BX_COLUMN &&
                            !input->fields[p->keys[k]->col].nullable) ||
                              lm_bind_gset_nullable(p, k));
    for (int a = 0; a < p->n_aggs; a++) {
      char nm[32];
      snprintf(nm, sizeof nm, "__agg%d", a);
      lm_schema_set_field(p->agg_schema, p->n_keys + a, nm, p->aggs[a].out_type,
                          p->aggs[a].kind != LM_AGG_COUNT &&
                              p->aggs[a].kind != LM_AGG_COUNT_STAR);
    }
  }
  p->out_schema = lm_schema_new(n_total);
  if (!p->out_schema) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int o = 0; o < n_total; o++)
    lm_schema_set_field(p->out_schema, o, o < n_items ? names[o] : "__sort",
                        p->out[o]->type, true);
  /* Plain column references keep the input's NOT NULL. */
  for (int o = 0; o < n_total; o++) {
    const lm_bexpr *x = p->out[o];
    const lm_schema *src = any_agg ? p->agg_schema : input;
    if (x->kind == LM_BX_COLUMN && src && !src->fields[x->col].nullable)
      p->out_schema->fields[o].nullable = false;
  }
  *out = p;
  return 0;
fail:
  if (!err || !err->code)
    lm_err(err, rc, "could not plan query");
  rc = err ? err->code : rc;
  lm_plan_free(p);
  return rc;
}

void lm_plan_free(lm_plan *p) {
  if (!p)
    return;
  lm_plan_free(p->topn);
  lm_plan_free_join(p);
  lm_schema_release(p->input_schema);
  lm_schema_release(p->agg_schema);
  lm_schema_release(p->out_schema);
  lm_arena_free(&p->arena);
  free(p);
}
