/*
 * sqrt, ln, log, exp and power of DECIMAL values, a batch at a time: the
 * arguments evaluated, each row through columnar/decimal_math.c at
 * PostgreSQL's own result scale, then stored at the column's scale.
 */
#include "exec/expr_decmath.h"

#include "columnar/lm_decimal_math.h"
#include "exec/lm_strfn.h"

static bool nul(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

int lm_decmath_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err) {
  lm_array **a;
  lm_builder b;
  int rc = lm_fn_begin(e, in, &a, &b, err);
  if (rc)
    return rc;
  lm_decm_fn fn = (lm_decm_fn)(e->args[2]->lit.v.i - 10);
  bool two = fn == LM_DECM_LOG || fn == LM_DECM_POWER;
  int cs = e->type.scale;
  for (int64_t i = 0; i < in->num_rows && !rc; i++) {
    if (nul(a[0], i) || (two && nul(a[1], i))) {
      lm_builder_append_null(&b);
      continue;
    }
    lm_i128 x = lm_dec_get(a[0], i), y = two ? lm_dec_get(a[1], i) : 0, r = 0;
    int rs = cs;
    int code = lm_dec_math(fn, x, a[0]->type.scale, y,
                           two ? a[1]->type.scale : 0, &r, &rs);
    if (!code && lm_dec_rescale(r, rs, cs, &r))
      code = LM_DECM_TOOBIG;
    if (!code && !lm_dec_is_special(r) && !lm_dec_fits(r, e->type.precision))
      code = LM_DECM_TOOBIG;
    if (code) {
      const char *state;
      const char *msg = lm_dec_math_error(code, &state);
      rc = lm_fn_error(err, e, state, "%s", msg);
      if (code == LM_DECM_TOOBIG)
        rc = lm_err_detail(err, "DECIMAL128 holds 38 digits.");
      break;
    }
    lm_dec_append(&b, r);
  }
  return lm_fn_end(e, a, &b, rc, out, err);
}
