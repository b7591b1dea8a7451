/*
 * Binding of the functions evaluated by exec/expr_fn5.c: to_number(text,
 * text) (the template a constant: its digits after the point are the
 * result's scale), gen_random_uuid(), sha224 / sha384 / sha512(bytea) and
 * get_byte, set_byte, get_bit, set_bit, bit_count(bytea), with
 * PostgreSQL's argument types, and the function-style casts int4(x),
 * text(x), date(x), ... (docs/functions.md).
 */
#include <stdio.h>
#include <string.h>

#include "exec/lm_fn5.h"
#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* PostgreSQL's "function f(integer, text) does not exist" (42883). */
static bool undefined(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  char sig[300];
  size_t k = 0;
  sig[0] = '\0';
  for (int i = 0; i < e->n_args && k < sizeof sig - 40; i++)
    k += (size_t)snprintf(sig + k, sizeof sig - k, "%s%s", i ? ", " : "",
                          lm_bind_pg_type_of(e->args[i], args[i]));
  char what[400];
  snprintf(what, sizeof what, "%s(%s)", e->name, sig);
  lm_bind_fail(c, e, "function %s does not exist", what, NULL);
  lm_err_state(c->err, "42883");
  lm_err_hint(c->err, "No function matches the given name and argument "
                      "types. You might need to add explicit type casts.");
  return true;
}

/* Argument i cast to what code wants: 'T' text, 'Y' bytea, 'I' BIGINT (an
 * integer, NULL or an unknown literal). NULL when it does not fit. */
static lm_bexpr *arg(lm_bctx *c, const lm_expr *e, lm_bexpr **args, int i,
                     char code) {
  lm_bexpr *x = args[i];
  lm_type t = x->type;
  bool unknown = lm_bind_is_unknown(e->args[i], x) || is_null(t);
  switch (code) {
  case 'T':
    if (t.id != LM_TYPE_UTF8 && !unknown)
      return NULL;
    return lm_bind_cast(c, x, lm_type_make(LM_TYPE_UTF8));
  case 'Y':
    if (t.id != LM_TYPE_BINARY && !unknown)
      return NULL;
    return lm_bind_cast(c, x, lm_type_make(LM_TYPE_BINARY));
  default:
    if (!is_int(t) && !unknown)
      return NULL;
    return lm_bind_cast(c, x, lm_type_make(LM_TYPE_INT64));
  }
}

static bool bind_to_number(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                           lm_bexpr **out) {
  if (e->n_args != 2)
    return undefined(c, e, args);
  lm_bexpr *s = arg(c, e, args, 0, 'T'), *f = arg(c, e, args, 1, 'T');
  if (!s || !f)
    return c->err->code ? true : undefined(c, e, args);
  f = lm_bind_fold(c, f);
  if (!f)
    return true;
  if (f->kind != LM_BX_LITERAL) {
    lm_bind_fail(c, e->args[1],
                 "to_number's template must be a constant here (it sets the "
                 "result's scale)",
                 NULL, NULL);
    lm_err_state(c->err, "0A000");
    return true;
  }
  if (f->lit.is_null || (s->kind == LM_BX_LITERAL && s->lit.is_null)) {
    *out = lm_bind_null_lit(c, e, lm_type_decimal128(38, 0));
    return true;
  }
  int post = 0;
  const char *msg, *state;
  if (lm_to_number_template(f->lit.v.s.p, (size_t)f->lit.v.s.len, &post, &msg,
                            &state)) {
    lm_bind_fail(c, e->args[1], "%s", msg, NULL);
    lm_err_state(c->err, state);
    return true;
  }
  if (post > 38)
    post = 38;
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, lm_type_decimal128(38, post), e, 2);
  if (r) {
    r->fn = LM_FN_TO_NUMBER;
    r->args[0] = s;
    r->args[1] = f;
  }
  *out = r;
  return true;
}

/* PostgreSQL's function-style casts: int2(x), int4(x), int8(x),
 * float4(x), float8(x), text(x), bool(x), date(x), timestamptz(x) are
 * CAST(x AS type) (its rounding, ranges and errors). */
static bool bind_cast_call(lm_bctx *c, const lm_expr *e, lm_bexpr **out) {
  static const struct {
    const char *name;
    lm_type_id id;
  } ct[] = {{"int2", LM_TYPE_INT16},
            {"int4", LM_TYPE_INT32},
            {"int8", LM_TYPE_INT64},
            {"float4", LM_TYPE_FLOAT32},
            {"float8", LM_TYPE_FLOAT64},
            {"text", LM_TYPE_UTF8},
            {"bool", LM_TYPE_BOOL},
            {"date", LM_TYPE_DATE32},
            {"timestamptz", LM_TYPE_TIMESTAMP}};
  for (size_t k = 0; k < sizeof ct / sizeof *ct; k++) {
    if (strcmp(e->name, ct[k].name) || e->n_args != 1 || e->over || e->distinct)
      continue;
    lm_expr ce = *e; /* CAST(args[0] AS type), e's position */
    ce.kind = LM_EXPR_CAST;
    ce.cast_type = ct[k].id == LM_TYPE_TIMESTAMP ? lm_type_timestamptz()
                                                 : lm_type_make(ct[k].id);
    ce.cast_tprec = 0;
    ce.cast_tlen = 0;
    ce.cast_bpchar = ce.cast_varchar = false;
    *out = lm_bind_expr(c, &ce);
    return true;
  }
  return false;
}

bool lm_bind_fn5(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                 lm_bexpr **out) {
  const char *n = e->name;
  *out = NULL;
  if (bind_cast_call(c, e, out))
    return true;
  if (!strcmp(n, "to_number"))
    return bind_to_number(c, e, args, out);
  if (!strcmp(n, "gen_random_uuid")) {
    if (e->n_args != 0)
      return undefined(c, e, args);
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, lm_type_uuid(), e, 0);
    if (r)
      r->fn = LM_FN_GEN_RANDOM_UUID;
    *out = r;
    return true;
  }
  int bits = !strcmp(n, "sha224")   ? 224
             : !strcmp(n, "sha384") ? 384
             : !strcmp(n, "sha512") ? 512
                                    : 0;
  if (bits) {
    lm_bexpr *x = e->n_args == 1 ? arg(c, e, args, 0, 'Y') : NULL;
    if (!x)
      return c->err->code ? true : undefined(c, e, args);
    lm_bexpr *r =
        lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_BINARY), e, 2);
    if (r) {
      r->fn = LM_FN_SHA2;
      r->args[0] = x;
      r->args[1] = lm_bind_int64_lit(c, e, bits);
    }
    *out = r && r->args[1] ? r : NULL;
    return true;
  }
  static const struct {
    const char *name;
    int n_args;
    lm_type_id ret;
  } bf[] = {{"get_byte", 2, LM_TYPE_INT32},
            {"set_byte", 3, LM_TYPE_BINARY},
            {"get_bit", 2, LM_TYPE_INT32},
            {"set_bit", 3, LM_TYPE_BINARY},
            {"bit_count", 1, LM_TYPE_INT64}};
  for (int op = 0; op < 5; op++) {
    if (strcmp(n, bf[op].name))
      continue;
    if (e->n_args != bf[op].n_args)
      return undefined(c, e, args);
    lm_bexpr *r =
        lm_bind_node(c, LM_BX_FUNC, lm_type_make(bf[op].ret), e, e->n_args + 1);
    if (!r)
      return true;
    r->fn = LM_FN_BYTEA_BITS;
    for (int i = 0; i < e->n_args; i++)
      if (!(r->args[i] = arg(c, e, args, i, i ? 'I' : 'Y')))
        return c->err->code ? true : undefined(c, e, args);
    if (!(r->args[e->n_args] = lm_bind_int64_lit(c, e, op)))
      return true;
    *out = r;
    return true;
  }
  return false;
}
