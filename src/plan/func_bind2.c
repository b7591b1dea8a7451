/*
 * Binding of the PostgreSQL functions evaluated by exec/expr_intfn.c
 * (div, gcd, lcm, factorial, to_hex, num_nulls, num_nonnulls, scale,
 * min_scale), exec/expr_trigfn.c (sin .. atanh, sind .. atan2d) and
 * exec/expr_fmtfn.c (translate, overlay, bit_length, format, quote_*,
 * similar_to_escape, encode, decode, sha256): names, argument checks and
 * casts, result types (docs/functions.md).
 */
#include <stdio.h>
#include <string.h>

#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* Argument codes: F DOUBLE, N number (BIGINT when every N argument is an
 * integer, else DOUBLE), W integer at PostgreSQL's width (the widest W
 * argument), I BIGINT, T text, Y bytea, A any (kept), a any cast to text
 * (a BOOLEAN kept: printed t / f). Result codes: the same, plus D
 * DECIMAL(38, 0), 4 INTEGER (INT32), B bytea. The last argument code
 * repeats for variadic functions. strict: a NULL literal argument makes
 * the call NULL. */
typedef struct sig2 {
  const char *name;
  lm_func_id fn;
  int lo, hi;
  const char *args;
  char ret;
  bool strict;
} sig2;

static const sig2 funcs[] = {
    {"div", LM_FN_DIV, 2, 2, "NN", 'N', true},
    {"gcd", LM_FN_GCD, 2, 2, "WW", 'W', true},
    {"lcm", LM_FN_LCM, 2, 2, "WW", 'W', true},
    {"to_hex", LM_FN_TO_HEX, 1, 1, "W", 'T', true},
    {"factorial", LM_FN_FACTORIAL, 1, 1, "I", 'D', true},
    {"num_nulls", LM_FN_NUM_NULLS, 1, 100, "A", '4', false},
    {"regexp_count", LM_FN_REGEXP_COUNT, 2, 4, "TTIT", '4', true},
    {"regexp_instr", LM_FN_REGEXP_INSTR, 2, 7, "TTIIITI", '4', true},
    {"num_nonnulls", LM_FN_NUM_NONNULLS, 1, 100, "A", '4', false},
    {"sin", LM_FN_SIN, 1, 1, "F", 'F', true},
    {"cos", LM_FN_COS, 1, 1, "F", 'F', true},
    {"tan", LM_FN_TAN, 1, 1, "F", 'F', true},
    {"cot", LM_FN_COT, 1, 1, "F", 'F', true},
    {"asin", LM_FN_ASIN, 1, 1, "F", 'F', true},
    {"acos", LM_FN_ACOS, 1, 1, "F", 'F', true},
    {"atan", LM_FN_ATAN, 1, 1, "F", 'F', true},
    {"atan2", LM_FN_ATAN2, 2, 2, "FF", 'F', true},
    {"sind", LM_FN_SIND, 1, 1, "F", 'F', true},
    {"cosd", LM_FN_COSD, 1, 1, "F", 'F', true},
    {"tand", LM_FN_TAND, 1, 1, "F", 'F', true},
    {"cotd", LM_FN_COTD, 1, 1, "F", 'F', true},
    {"asind", LM_FN_ASIND, 1, 1, "F", 'F', true},
    {"acosd", LM_FN_ACOSD, 1, 1, "F", 'F', true},
    {"atand", LM_FN_ATAND, 1, 1, "F", 'F', true},
    {"atan2d", LM_FN_ATAN2D, 2, 2, "FF", 'F', true},
    {"sinh", LM_FN_SINH, 1, 1, "F", 'F', true},
    {"cosh", LM_FN_COSH, 1, 1, "F", 'F', true},
    {"tanh", LM_FN_TANH, 1, 1, "F", 'F', true},
    {"asinh", LM_FN_ASINH, 1, 1, "F", 'F', true},
    {"acosh", LM_FN_ACOSH, 1, 1, "F", 'F', true},
    {"atanh", LM_FN_ATANH, 1, 1, "F", 'F', true},
    {"translate", LM_FN_TRANSLATE, 3, 3, "TTT", 'T', true},
    {"overlay", LM_FN_OVERLAY, 3, 4, "TTII", 'T', true},
    {"bit_length", LM_FN_BIT_LENGTH, 1, 1, "T", '4', true},
    {"format", LM_FN_FORMAT, 1, 100, "Ta", 'T', false},
    {"quote_ident", LM_FN_QUOTE_IDENT, 1, 1, "T", 'T', true},
    {"quote_literal", LM_FN_QUOTE_LITERAL, 1, 1, "T", 'T', true},
    {"quote_nullable", LM_FN_QUOTE_NULLABLE, 1, 1, "T", 'T', false},
    {"similar_to_escape", LM_FN_SIMILAR_ESCAPE, 1, 2, "TT", 'T', true},
    {"encode", LM_FN_ENCODE, 2, 2, "YT", 'T', true},
    {"decode", LM_FN_DECODE, 2, 2, "TT", 'B', true},
    {"sha256", LM_FN_SHA256, 1, 1, "Y", 'B', true},
};

static bool fits(char code, const lm_bexpr *x) {
  lm_type t = x->type;
  bool unknown = t.id == LM_TYPE_UTF8 && x->kind == LM_BX_LITERAL;
  switch (code) {
  case 'F': /* numeric goes to double precision, PostgreSQL's implicit
             * cast for the float-only functions (sin, degrees, ...) */
    return lm_type_is_numeric(t) || is_null(t) || unknown ||
           t.id == LM_TYPE_DECIMAL128;
  case 'N': /* numeric: computed in double precision (docs/functions.md) */
    return lm_type_is_numeric(t) || is_null(t) || unknown ||
           t.id == LM_TYPE_DECIMAL128;
  case 'W':
  case 'I':
    return is_int(t) || is_null(t) || unknown;
  case 'Y':
    return t.id == LM_TYPE_BINARY || t.id == LM_TYPE_UTF8 || is_null(t);
  case 'T': /* a string: PostgreSQL casts no number, date, json or array to
             * text implicitly (translate(1, ...) is 42883); bytea as before */
    return is_null(t) || t.id == LM_TYPE_BINARY ||
           ((t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_LARGE_UTF8) &&
            !lm_type_is_json(t));
  default:
    return true;
  }
}

/* PostgreSQL's "function f(integer, text) does not exist" (42883). */
static int undefined(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  char sig[300];
  size_t k = 0;
  sig[0] = '\0';
  for (int i = 0; i < e->n_args && k < sizeof sig - 40; i++) {
    const lm_expr *a = e->args[i];
    const char *tn = lm_pg_type_name(args[i]->type);
    if (a->kind == LM_EXPR_LITERAL && a->lit == LM_LIT_STRING)
      tn = "unknown";
    else if (a->kind == LM_EXPR_LITERAL && a->lit == LM_LIT_DECIMAL)
      tn = "numeric";
    else if (a->kind == LM_EXPR_LITERAL && a->lit == LM_LIT_INT)
      tn = a->ival >= INT32_MIN && a->ival <= INT32_MAX ? "integer" : "bigint";
    k += (size_t)snprintf(sig + k, sizeof sig - k, "%s%s", i ? ", " : "", tn);
  }
  char what[400];
  snprintf(what, sizeof what, "%s(%s)", e->name, sig);
  int rc = lm_bind_fail(c, e, "function %s does not exist", what, NULL);
  lm_err_state(c->err, "42883");
  return rc;
}

static lm_bexpr *int_lit(lm_bctx *c, const lm_expr *e, lm_type t, int64_t v) {
  lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
  if (z) {
    z->lit.type = t;
    z->lit.v.i = v;
  }
  return z;
}

/* scale(x) / min_scale(x) of a numeric: (x DECIMAL, mode 1 | 0). */
static bool bind_scale(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                       lm_bexpr **out) {
  bool scale = !strcmp(e->name, "scale");
  lm_type i4 = lm_type_make(LM_TYPE_INT32);
  *out = NULL;
  if (e->n_args != 1) {
    undefined(c, e, args);
    return true;
  }
  lm_bexpr *x = args[0];
  if (x->kind == LM_BX_LITERAL && x->lit_text) /* 1.50: numeric */
    x = lm_bind_lit_exact(c, x);
  else if (x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_UTF8 &&
           !x->lit.is_null) { /* '1.50': read as numeric */
    lm_type t;
    if (lm_bind_numeric_type(c, e->args[0], x, &t))
      return true;
    x = lm_bind_cast(c, x, t);
  } else if (is_int(x->type))
    x = lm_bind_cast(c, x, lm_type_decimal128(19, 0));
  if (!x)
    return true;
  if (is_null(x->type)) {
    *out = lm_bind_null_lit(c, e, i4);
    return true;
  }
  if (x->type.id != LM_TYPE_DECIMAL128) {
    undefined(c, e, args);
    return true;
  }
  lm_bexpr *m = int_lit(c, e, lm_type_make(LM_TYPE_INT64), scale);
  lm_bexpr *r = m ? lm_bind_node(c, LM_BX_FUNC, i4, e, 2) : NULL;
  if (r) {
    r->fn = LM_FN_MIN_SCALE;
    r->args[0] = x;
    r->args[1] = m;
  }
  *out = r;
  return true;
}

/* isfinite(date | timestamp | interval), PostgreSQL's: whether x is
 * neither infinity nor -infinity (NULL for NULL), bound as x > '-infinity'
 * AND x < 'infinity'; an interval is always finite (PostgreSQL 15). */
static bool bind_isfinite(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                          lm_bexpr **out) {
  lm_type t = args[0]->type;
  if (e->n_args != 1 ||
      !(t.id == LM_TYPE_DATE32 || t.id == LM_TYPE_TIMESTAMP ||
        t.id == LM_TYPE_INTERVAL || t.id == LM_TYPE_INTERVAL_MDN ||
        t.id == LM_TYPE_NULL)) {
    lm_bind_fail(c, e, "function isfinite(%s) does not exist",
                 lm_bind_pg_type_of(e->n_args ? e->args[0] : NULL, args[0]),
                 NULL);
    lm_err_state(c->err, "42883");
    return true;
  }
  if (t.id != LM_TYPE_DATE32 && t.id != LM_TYPE_TIMESTAMP) {
    lm_bexpr *again = lm_bind_expr(c, e->args[0]);
    *out = lm_bind_binary(c, NULL, LM_OP_EQ, args[0], again);
    return true;
  }
  lm_bexpr *cmp[2];
  for (int k = 0; k < 2; k++) {
    const char *w = k ? "infinity" : "-infinity";
    lm_bexpr *u =
        lm_bind_node(c, LM_BX_LITERAL, lm_type_make(LM_TYPE_UTF8), e, 0);
    lm_bexpr *x = k ? lm_bind_expr(c, e->args[0]) : args[0];
    if (!u || !x)
      return true;
    u->lit.type = u->type;
    u->lit.v.s.p = w; /* a static string, never freed */
    u->lit.v.s.len = (int32_t)strlen(w);
    cmp[k] = lm_bind_binary(c, NULL, k ? LM_OP_LT : LM_OP_GT, x,
                            lm_bind_cast(c, u, t));
    if (!cmp[k])
      return true;
  }
  *out = lm_bind_binary(c, NULL, LM_OP_AND, cmp[0], cmp[1]);
  return true;
}

/* date_bin(stride, source, origin): TIMESTAMP or TIMESTAMPTZ (the
 * source's; a quoted literal is TIMESTAMP), the stride an INTERVAL
 * (exec/expr_datebin.c). */
static bool bind_date_bin(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                          lm_bexpr **out) {
  if (e->n_args != 3) {
    lm_bind_fail(c, e, "date_bin() takes (interval, timestamp, timestamp)",
                 NULL, NULL);
    lm_err_state(c->err, "42883");
    return true;
  }
  lm_type t = args[1]->type.id == LM_TYPE_TIMESTAMP ? args[1]->type
              : args[2]->type.id == LM_TYPE_TIMESTAMP
                  ? args[2]->type
                  : lm_type_make(LM_TYPE_TIMESTAMP);
  if (args[0]->type.id == LM_TYPE_INTERVAL_MDN) {
    lm_bind_fail(c, e,
                 "timestamps cannot be binned into intervals containing "
                 "months or years",
                 NULL, NULL);
    lm_err_state(c->err, "0A000");
    return true;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, t, e, 3);
  if (!r)
    return true;
  r->fn = LM_FN_DATE_BIN;
  r->args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_INTERVAL));
  r->args[1] = lm_bind_cast(c, args[1], t);
  r->args[2] = lm_bind_cast(c, args[2], t);
  *out = r->args[0] && r->args[1] && r->args[2] ? r : NULL;
  return true;
}

bool lm_bind_func2(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                   lm_bexpr **out) {
  const char *n = e->name;
  *out = NULL;
  if (!strcmp(n, "isfinite"))
    return bind_isfinite(c, e, args, out);
  if (!strcmp(n, "date_bin"))
    return bind_date_bin(c, e, args, out);
  if (!strcmp(n, "scale") || !strcmp(n, "min_scale"))
    return bind_scale(c, e, args, out);
  const sig2 *s = NULL;
  bool named = false;
  for (size_t k = 0; k < LM_ARRAY_LEN(funcs); k++) {
    if (strcmp(n, funcs[k].name))
      continue;
    named = true;
    if (e->n_args < funcs[k].lo || e->n_args > funcs[k].hi)
      continue;
    size_t na = strlen(funcs[k].args);
    bool ok = true;
    /* quote_literal / quote_nullable take anyelement in PostgreSQL */
    bool any = funcs[k].fn == LM_FN_QUOTE_LITERAL ||
               funcs[k].fn == LM_FN_QUOTE_NULLABLE;
    for (int i = 0; i < e->n_args && ok; i++) {
      char code = funcs[k].args[(size_t)i < na ? (size_t)i : na - 1];
      ok = (any && code == 'T') || fits(code, args[i]);
    }
    if (ok) {
      s = &funcs[k];
      break;
    }
  }
  if (!named)
    return false;
  if (!s) {
    undefined(c, e, args);
    return true;
  }
  size_t na = strlen(s->args);
  /* N: BIGINT unless a float or numeric; W: the widest integer */
  bool nflt = false;
  int w = 0;
  for (int i = 0; i < e->n_args; i++) {
    char code = s->args[(size_t)i < na ? (size_t)i : na - 1];
    if (code == 'N' && !is_int(args[i]->type) && !is_null(args[i]->type))
      nflt = true;
    if (code == 'W') {
      int wi = args[i]->type.id == LM_TYPE_UTF8
                   ? 32
                   : lm_bind_int_width(e->args[i], args[i]);
      w = wi > w ? wi : w;
    }
  }
  if (w == 0)
    w = 32;
  lm_type wt = lm_bind_width_type(w);
  lm_type nt = lm_type_make(nflt ? LM_TYPE_FLOAT64 : LM_TYPE_INT64);
  for (int i = 0; i < e->n_args; i++) {
    char code = s->args[(size_t)i < na ? (size_t)i : na - 1];
    lm_type t;
    switch (code) {
    case 'F':
      t = lm_type_make(LM_TYPE_FLOAT64);
      break;
    case 'N':
      t = nt;
      break;
    case 'W':
      t = wt;
      break;
    case 'I':
      t = lm_type_make(LM_TYPE_INT64);
      break;
    case 'Y':
      t = lm_type_make(LM_TYPE_BINARY);
      break;
    case 'A':
      continue;
    case 'a':
      /* format('%s', CHAR(n)) keeps the padding (PostgreSQL's output of
       * the bpchar value) */
      if (args[i]->type.id == LM_TYPE_BOOL || lm_type_is_bpchar(args[i]->type))
        continue;
      t = lm_type_make(LM_TYPE_UTF8);
      break;
    default:
      /* bit_length of a bytea counts its bytes */
      if (s->fn == LM_FN_BIT_LENGTH && args[i]->type.id == LM_TYPE_BINARY)
        continue;
      t = lm_type_make(LM_TYPE_UTF8);
      break;
    }
    if (!(args[i] = lm_bind_cast(c, args[i], t)))
      return true;
  }
  lm_type rt;
  switch (s->ret) {
  case 'F':
    rt = lm_type_make(LM_TYPE_FLOAT64);
    break;
  case 'N':
    rt = nt;
    break;
  case 'W':
    rt = wt;
    break;
  case 'D':
    rt = lm_type_decimal128(38, 0);
    break;
  case '4':
    rt = lm_type_make(LM_TYPE_INT32);
    break;
  case 'B':
    rt = lm_type_make(LM_TYPE_BINARY);
    break;
  default:
    rt = lm_type_make(LM_TYPE_UTF8);
    break;
  }
  if (s->strict)
    for (int i = 0; i < e->n_args; i++)
      if (args[i]->kind == LM_BX_LITERAL && args[i]->lit.is_null) {
        *out = lm_bind_null_lit(c, e, rt);
        return true;
      }
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, rt, e, e->n_args);
  if (!r)
    return true;
  r->fn = s->fn;
  for (int i = 0; i < e->n_args; i++)
    r->args[i] = args[i];
  *out = r;
  return true;
}
