/* sql/limit_fold.c — the value of a LIMIT / OFFSET / FETCH FIRST count.
 *
 * PostgreSQL evaluates the count expression once, before the first row,
 * coerced to bigint (a numeric rounds half away from zero, a float8 to
 * even); NULL means no limit (LIMIT) or 0 (OFFSET). Laminar folds it when
 * parsing, so every later stage sees a plain number: integer and decimal
 * literals, string literals (read as bigint), NULL, unary + / -, + - * / %,
 * parentheses and casts to integer, numeric or float types. A count
 * holding a subquery or a column is computed when the query runs
 * (api/select_limit.c: a column of an enclosing query is its value there,
 * any other is PostgreSQL's 42P10 "argument of LIMIT must not contain
 * variables"); other expressions (functions) are refused with 0A000. */
#include "sql/sql_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cval {
  bool null;
  bool isf;     /* d holds the value (else i) */
  bool numeric; /* isf and PostgreSQL's type is numeric (rounds half away) */
  int64_t i;
  double d;
} cval;

static int fail(lm_error *err, const lm_expr *e, const char *state,
                const char *fmt, const char *a) {
  int rc = lm_err_at(err, LM_ERR_PARSE, e->line, e->column, fmt, a);
  lm_err_state(err, state);
  return rc;
}

static int range(lm_error *err, const lm_expr *e) {
  return fail(err, e, "22003", "bigint out of range", NULL);
}

/* PostgreSQL's bigint input: optional spaces, sign, digits, spaces. */
static int text_int(lm_error *err, const lm_expr *e, cval *v) {
  const char *s = e->text ? e->text : "";
  const char *q = s;
  while (*q == ' ' || (*q >= '\t' && *q <= '\r'))
    q++;
  bool neg = *q == '-';
  if (*q == '+' || *q == '-')
    q++;
  uint64_t m = 0;
  bool any = false;
  for (; *q >= '0' && *q <= '9'; q++, any = true) {
    unsigned d = (unsigned)(*q - '0');
    if (m > (UINT64_MAX - d) / 10 || m * 10 + d > (uint64_t)INT64_MAX + neg) {
      char msg[300];
      snprintf(msg, sizeof msg,
               "value \"%.200s\" is out of range for type bigint", s);
      return fail(err, e, "22003", "%s", msg);
    }
    m = m * 10 + d;
  }
  while (*q == ' ' || (*q >= '\t' && *q <= '\r'))
    q++;
  if (!any || *q) {
    char msg[300];
    snprintf(msg, sizeof msg,
             "invalid input syntax for type bigint: \"%.200s\"", s);
    return fail(err, e, "22P02", "%s", msg);
  }
  v->i = neg ? (int64_t)(0 - m) : (int64_t)m;
  return 0;
}

static double as_f(const cval *v) {
  return v->isf ? v->d : (double)v->i;
}

/* v as a bigint (PostgreSQL's numeric / float8 to int8 casts). */
static int to_int(lm_error *err, const lm_expr *e, cval *v) {
  if (v->null || !v->isf)
    return 0;
  double r = v->numeric ? round(v->d) : nearbyint(v->d);
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
    return range(err, e);
  v->i = (int64_t)r;
  v->isf = v->numeric = false;
  return 0;
}

static int fold(lm_error *err, const lm_expr *e, const char *what, cval *v,
                int depth) {
  memset(v, 0, sizeof *v);
  if (depth > 64)
    return fail(err, e, "54001", "%s expression nested too deeply", what);
  switch (e->kind) {
  case LM_EXPR_LITERAL:
    switch (e->lit) {
    case LM_LIT_NULL:
      v->null = true;
      return 0;
    case LM_LIT_INT:
      v->i = e->ival;
      return 0;
    case LM_LIT_DECIMAL:
      v->isf = v->numeric = true;
      v->d = e->dval;
      return 0;
    case LM_LIT_STRING:
      return text_int(err, e, v);
    default:
      break;
    }
    break;
  case LM_EXPR_COLUMN: {
    char msg[80];
    snprintf(msg, sizeof msg, "argument of %s must not contain variables",
             what);
    return fail(err, e, "42P10", "%s", msg);
  }
  case LM_EXPR_UNARY:
    if (e->op != LM_OP_NEG)
      break;
    if (fold(err, e->args[0], what, v, depth + 1))
      return err->code;
    if (v->isf)
      v->d = -v->d;
    else if (!v->null && v->i == INT64_MIN)
      return range(err, e);
    else
      v->i = -v->i;
    return 0;
  case LM_EXPR_BINARY: {
    if (e->op < LM_OP_ADD || e->op > LM_OP_MOD)
      break;
    cval a, b;
    if (fold(err, e->args[0], what, &a, depth + 1) ||
        fold(err, e->args[1], what, &b, depth + 1))
      return err->code;
    if (a.null || b.null) {
      v->null = true;
      return 0;
    }
    if (a.isf || b.isf) {
      double x = as_f(&a), y = as_f(&b), r = 0;
      v->isf = true;
      v->numeric = (!a.isf || a.numeric) && (!b.isf || b.numeric);
      if ((e->op == LM_OP_DIV || e->op == LM_OP_MOD) && y == 0)
        return fail(err, e, "22012", "division by zero", NULL);
      switch (e->op) {
      case LM_OP_ADD:
        r = x + y;
        break;
      case LM_OP_SUB:
        r = x - y;
        break;
      case LM_OP_MUL:
        r = x * y;
        break;
      case LM_OP_DIV:
        r = x / y;
        break;
      default:
        r = fmod(x, y);
        break;
      }
      v->d = r;
      return 0;
    }
    int64_t x = a.i, y = b.i, r = 0;
    bool over = false;
    switch (e->op) {
    case LM_OP_ADD:
      over = __builtin_add_overflow(x, y, &r);
      break;
    case LM_OP_SUB:
      over = __builtin_sub_overflow(x, y, &r);
      break;
    case LM_OP_MUL:
      over = __builtin_mul_overflow(x, y, &r);
      break;
    default:
      if (y == 0)
        return fail(err, e, "22012", "division by zero", NULL);
      if (y == -1) {
        over = e->op == LM_OP_DIV && x == INT64_MIN;
        r = e->op == LM_OP_DIV ? (over ? 0 : -x) : 0;
      } else {
        r = e->op == LM_OP_DIV ? x / y : x % y;
      }
      break;
    }
    if (over)
      return range(err, e);
    v->i = r;
    return 0;
  }
  case LM_EXPR_CAST: {
    lm_type_id t = e->cast_type.id;
    if (fold(err, e->args[0], what, v, depth + 1))
      return err->code;
    if (v->null)
      return 0;
    if (t == LM_TYPE_INT8 || t == LM_TYPE_INT16 || t == LM_TYPE_INT32 ||
        t == LM_TYPE_INT64)
      return to_int(err, e, v);
    if (t == LM_TYPE_FLOAT32 || t == LM_TYPE_FLOAT64 ||
        t == LM_TYPE_DECIMAL128) {
      v->d = as_f(v);
      v->isf = true;
      v->numeric = t == LM_TYPE_DECIMAL128;
      return 0;
    }
    break;
  }
  default:
    break;
  }
  char msg[120];
  snprintf(msg, sizeof msg,
           "%s supports only constant arithmetic (numbers, NULL, + - * / %%, "
           "casts)",
           what);
  return fail(err, e, "0A000", "%s", msg);
}

int lm_sql_fold_count(const lm_expr *e, const char *what, bool *is_null,
                      int64_t *out, lm_error *err) {
  cval v;
  if (fold(err, e, what, &v, 0) || to_int(err, e, &v))
    return err->code;
  *is_null = v.null;
  *out = v.null ? 0 : v.i;
  return 0;
}

/* 1: e holds a subquery or a column (an enclosing query's value, in a
 * subquery: api/select_limit.c), 0: neither, -1: a '*'. */
static int subq_only(const lm_expr *e, int depth) {
  if (!e || depth > 64)
    return 0;
  if (e->kind == LM_EXPR_SUBQUERY || e->kind == LM_EXPR_COLUMN)
    return 1;
  if (e->kind == LM_EXPR_STAR)
    return -1;
  int r = 0;
  for (int i = 0; i < e->n_args; i++) {
    int k = subq_only(e->args[i], depth + 1);
    if (k < 0)
      return -1;
    r |= k;
  }
  return r;
}

bool lm_sql_count_deferred(const lm_expr *e) {
  return subq_only(e, 0) > 0;
}
