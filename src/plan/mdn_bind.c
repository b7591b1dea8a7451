/*
 * Binding SQL INTERVAL values with months (LM_TYPE_INTERVAL_MDN,
 * columnar/lm_interval.h): literals, quoted-literal casts, the operators'
 * result types and the µs INTERVAL's promotion. See bind_internal.h.
 */
#include <string.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "plan/bind_internal.h"

static lm_type mdn(void) {
  return lm_type_make(LM_TYPE_INTERVAL_MDN);
}

static bool is_iv(lm_type_id t) {
  return t == LM_TYPE_INTERVAL || t == LM_TYPE_INTERVAL_MDN;
}

static lm_bexpr *mdn_lit(lm_bctx *c, const lm_expr *at, const lm_iv *v) {
  lm_bexpr *b = lm_bind_node(c, LM_BX_LITERAL, mdn(), at, 0);
  if (!b)
    return NULL;
  b->lit.type = mdn();
  b->lit.is_null = false;
  b->lit.v.mdn.months = v->months;
  b->lit.v.mdn.days = v->days;
  b->lit.v.mdn.ns = v->us * 1000;
  return b;
}

int lm_bind_mdn_literal(lm_bctx *c, const lm_expr *e, lm_bexpr **out) {
  lm_iv v;
  if (e->lit != LM_LIT_INTERVAL || !e->text ||
      lm_iv_parse(e->text, strlen(e->text), e->name,
                  e->name ? strlen(e->name) : 0, &v) != 0 ||
      v.months == 0)
    return 1;
  if (v.us > INT64_MAX / 1000 || v.us < INT64_MIN / 1000) {
    lm_bind_fail(c, e, "interval out of range", NULL, NULL);
    lm_err_state(c->err, "22008");
    return -1;
  }
  *out = mdn_lit(c, e, &v);
  return *out ? 0 : -1;
}

lm_bexpr *lm_bind_mdn_text(lm_bctx *c, lm_bexpr *x) {
  lm_iv v;
  if (x->kind != LM_BX_LITERAL || x->lit.is_null ||
      x->type.id != LM_TYPE_UTF8 || !x->lit.v.s.p ||
      lm_iv_parse(x->lit.v.s.p, (size_t)x->lit.v.s.len, NULL, 0, &v) != 0 ||
      v.months == 0 || v.us > INT64_MAX / 1000 || v.us < INT64_MIN / 1000)
    return NULL;
  lm_bexpr *b = mdn_lit(c, NULL, &v);
  if (b) {
    b->line = x->line;
    b->column = x->column;
  }
  return b;
}

int lm_bind_mdn_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                      lm_bexpr **pb, lm_type *rt) {
  lm_type ta = (*pa)->type, tb = (*pb)->type;
  if (ta.id != LM_TYPE_INTERVAL_MDN && tb.id != LM_TYPE_INTERVAL_MDN)
    return 1;
  (void)e;
  bool add = op == LM_OP_ADD, sub = op == LM_OP_SUB;
  lm_bexpr **iv = ta.id == LM_TYPE_INTERVAL_MDN ? pa : pb;
  lm_bexpr **other = iv == pa ? pb : pa;
  lm_type to = (*other)->type;
  if (add || sub) {
    if (is_iv(to.id) || to.id == LM_TYPE_NULL) {
      *other = lm_bind_cast(c, *other, mdn());
      *rt = mdn();
      return *other ? 0 : -1;
    }
    if (sub && iv == pa)
      return 1;                    /* interval - timestamp */
    if (to.id == LM_TYPE_DATE32) { /* the date's midnight, a timestamp */
      *other = lm_bind_cast(c, *other, lm_type_make(LM_TYPE_TIMESTAMP));
      to = lm_type_make(LM_TYPE_TIMESTAMP);
    }
    if (to.id == LM_TYPE_TIMESTAMP) {
      *rt = to; /* TIMESTAMP or TIMESTAMPTZ */
      return *other ? 0 : -1;
    }
    return 1;
  }
  if ((op == LM_OP_MUL || op == LM_OP_DIV) && ta.id == tb.id &&
      (*pb)->kind == LM_BX_LITERAL && (*pb)->lit.is_null) {
    other = pb; /* interval * NULL: the NULL was given the interval's type */
    iv = pa;
    to = lm_type_make(LM_TYPE_NULL);
  } else if ((op == LM_OP_MUL) && ta.id == tb.id &&
             (*pa)->kind == LM_BX_LITERAL && (*pa)->lit.is_null) {
    other = pa;
    iv = pb;
    to = lm_type_make(LM_TYPE_NULL);
  }
  if (op == LM_OP_MUL || (op == LM_OP_DIV && iv == pa)) {
    lm_type_id o = to.id;
    if (lm_type_is_integer(to) || o == LM_TYPE_FLOAT32 ||
        o == LM_TYPE_FLOAT64 || o == LM_TYPE_DECIMAL128 || o == LM_TYPE_NULL) {
      *other = lm_bind_cast(c, *other, lm_type_make(LM_TYPE_FLOAT64));
      *rt = mdn();
      return *other ? 0 : -1;
    }
  }
  return 1;
}

int lm_bind_mdn_pair(lm_bctx *c, lm_bexpr **pa, lm_bexpr **pb) {
  lm_type_id a = (*pa)->type.id, b = (*pb)->type.id;
  if (!(a == LM_TYPE_INTERVAL_MDN || b == LM_TYPE_INTERVAL_MDN) ||
      !(is_iv(a) || a == LM_TYPE_NULL || a == LM_TYPE_UTF8) ||
      !(is_iv(b) || b == LM_TYPE_NULL || b == LM_TYPE_UTF8))
    return 1;
  lm_bexpr **other = a == LM_TYPE_INTERVAL_MDN ? pb : pa;
  if ((*other)->type.id == LM_TYPE_UTF8 && (*other)->kind != LM_BX_LITERAL)
    return 1;
  *other = lm_bind_cast(c, *other, mdn());
  return *other ? 0 : -1;
}

lm_bexpr *lm_bind_mdn_part(lm_bctx *c, const lm_expr *at, lm_bexpr *x) {
  lm_bexpr *k = lm_bind_int64_lit(c, at, c->mdn_part - 1);
  lm_bexpr *r =
      k ? lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_INT64), at, 2)
        : NULL;
  if (!r)
    return NULL;
  r->fn = LM_FN_IV_FIELD;
  r->args[0] = x;
  r->args[1] = k;
  return r;
}

lm_bexpr *lm_bind_mdn_agg(lm_bctx *c, const lm_expr *e,
                          lm_bexpr *(*agg)(lm_bctx *, const lm_expr *)) {
  bool avg = e->name[0] == 'a';
  lm_bexpr *part[4] = {NULL, NULL, NULL, NULL};
  lm_expr es = *e;
  es.name = "sum";
  for (int k = 0; k < 3; k++) {
    lm_bctx in = *c;
    in.mdn_part = k + 1;
    if (!(part[k] = agg(&in, &es)))
      return NULL;
  }
  if (avg) {
    es.name = "count";
    if (!(part[3] = agg(c, &es)))
      return NULL;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, mdn(), e, avg ? 4 : 3);
  if (!r)
    return NULL;
  r->fn = LM_FN_IV_MAKE;
  for (int k = 0; k < (avg ? 4 : 3); k++)
    r->args[k] = part[k];
  return r;
}

void lm_bind_mdn_days(const lm_expr *e, lm_bexpr *b) {
  lm_iv v;
  if (!e->text ||
      lm_iv_parse(e->text, strlen(e->text), e->name,
                  e->name ? strlen(e->name) : 0, &v) != 0 ||
      v.months != 0 ||
      (__int128)v.days * 86400000000LL + v.us != (__int128)b->lit.v.i)
    return;
  b->iv_split = true;
  b->iv_days = v.days;
}
