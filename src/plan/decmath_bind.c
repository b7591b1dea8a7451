/*
 * sqrt, ln, log, log10, exp and power over PostgreSQL numeric arguments
 * (DECIMAL values and decimal constants such as 2.5, which PostgreSQL
 * types numeric): bound to LM_FN_DECIMAL_FN with a function code of 10 and
 * above, evaluated by exec/expr_decmath.c with PostgreSQL's result scales
 * (columnar/decimal_math.c). Other arguments keep the double precision
 * functions of func_bind.c.
 */
#include <string.h>

#include "columnar/lm_decimal_math.h"
#include "plan/bind_internal.h"

static bool dec_type(lm_type t) {
  return t.id == LM_TYPE_DECIMAL128;
}

/* A DOUBLE literal written as a decimal number (numeric in PostgreSQL),
 * not an explicit cast to a float type. */
static bool numeric_lit(const lm_expr *ast, const lm_bexpr *x) {
  return x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_FLOAT64 &&
         !x->lit.is_null && x->lit_text && ast->kind != LM_EXPR_CAST;
}

/* Whether x is numeric (or integer / NULL, which PostgreSQL converts to
 * numeric) and, in *dec, whether it is numeric itself. */
static bool pg_numeric_arg(const lm_expr *ast, const lm_bexpr *x, bool *dec) {
  if (dec_type(x->type) || numeric_lit(ast, x)) {
    *dec = true;
    return true;
  }
  return lm_type_is_integer(x->type) || x->type.id == LM_TYPE_NULL;
}

/* x as a DECIMAL of its own digits (integers: scale 0). */
static lm_bexpr *to_dec(lm_bctx *c, const lm_expr *at, lm_bexpr *x) {
  if (dec_type(x->type))
    return x;
  if (x->type.id == LM_TYPE_FLOAT64) {
    lm_bexpr *d = lm_bind_lit_exact(c, x);
    if (d)
      return d;
  }
  lm_type t;
  if (x->type.id == LM_TYPE_NULL)
    t = lm_type_decimal128(38, 0);
  else if (lm_bind_numeric_type(c, at, x, &t))
    return NULL;
  return lm_bind_cast(c, x, t);
}

static lm_i128 lit_dec(const lm_bexpr *x) {
  return (lm_i128)(((unsigned __int128)(uint64_t)x->lit.v.d128.hi << 64) |
                   (unsigned __int128)x->lit.v.d128.lo);
}

bool lm_bind_decmath(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                     lm_bexpr **out) {
  static const struct {
    const char *name;
    int n;
    lm_decm_fn fn;
  } fns[] = {{"sqrt", 1, LM_DECM_SQRT},   {"ln", 1, LM_DECM_LN},
             {"log", 1, LM_DECM_LOG10},   {"log10", 1, LM_DECM_LOG10},
             {"log", 2, LM_DECM_LOG},     {"exp", 1, LM_DECM_EXP},
             {"power", 2, LM_DECM_POWER}, {"pow", 2, LM_DECM_POWER}};
  int k = -1;
  for (int i = 0; i < (int)(sizeof fns / sizeof fns[0]); i++)
    if (!strcmp(e->name, fns[i].name) && e->n_args == fns[i].n)
      k = i;
  if (k < 0)
    return false;
  bool any_dec = false;
  for (int i = 0; i < e->n_args; i++)
    if (!args[i] || !pg_numeric_arg(e->args[i], args[i], &any_dec))
      return false;
  /* log(b, x) exists for numeric only in PostgreSQL: log(2, 8) too */
  if (!any_dec && fns[k].fn != LM_DECM_LOG)
    return false;
  lm_bexpr *a[2] = {NULL, NULL};
  for (int i = 0; i < e->n_args; i++) {
    a[i] = to_dec(c, e->args[i], args[i]);
    if (!a[i]) {
      *out = NULL;
      return true;
    }
  }
  /* the result scale: PostgreSQL's for constant arguments; otherwise its
   * scale for results between 1 and 10 (a larger scale of an argument
   * wins), each row computed at its own scale and stored at this one */
  int sa = a[0]->type.scale, sb = a[1] ? a[1]->type.scale : 0;
  int rs = fns[k].fn == LM_DECM_SQRT ? 15 : 16;
  rs = rs < sa ? sa : rs;
  rs = rs < sb ? sb : rs;
  bool konst = true;
  for (int i = 0; i < e->n_args; i++) {
    lm_bexpr *f = lm_bind_fold(c, a[i]);
    if (!f) {
      *out = NULL;
      return true;
    }
    a[i] = f;
    konst = konst && f->kind == LM_BX_LITERAL && !f->lit.is_null &&
            dec_type(f->type);
  }
  if (konst) {
    lm_i128 v;
    int r = -1;
    if (lm_dec_math(fns[k].fn, lit_dec(a[0]), a[0]->type.scale,
                    a[1] ? lit_dec(a[1]) : 0, a[1] ? a[1]->type.scale : 0, &v,
                    &r) == 0)
      rs = r;
  }
  if (rs > 38)
    rs = 38;
  lm_bexpr *node =
      lm_bind_node(c, LM_BX_FUNC, lm_type_decimal128(38, rs), e, 3);
  lm_bexpr *wl = lm_bind_int64_lit(c, e, 10 + (int)fns[k].fn);
  if (!node || !wl) {
    *out = NULL;
    return true;
  }
  node->fn = LM_FN_DECIMAL_FN;
  node->args[0] = a[0];
  node->args[1] = a[1] ? a[1] : lm_bind_int64_lit(c, e, 0);
  node->args[2] = wl;
  *out = node->args[1] ? node : NULL;
  return true;
}
