/*
 * Binding of the SQL types DECIMAL(p,s), DATE, TIME and BYTEA
 * (bind_internal.h): operand coercion and result types, PostgreSQL's rules
 * within Decimal128's 38 digits (docs/types.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "plan/bind_internal.h"

bool lm_bind_sql_type(lm_type t) {
  switch (t.id) {
  case LM_TYPE_DECIMAL128:
    return t.precision >= 1 && t.precision <= 38 && t.scale >= 0;
  case LM_TYPE_DATE32:
  case LM_TYPE_BINARY:
  case LM_TYPE_INTERVAL_MDN: /* SQL INTERVAL with months (lm_interval.h) */
    return true;
  case LM_TYPE_TIME64:
    return t.unit == LM_UNIT_MICRO;
  default:
    return false;
  }
}

static bool is_dec(lm_type t) {
  return t.id == LM_TYPE_DECIMAL128;
}

static lm_type int_dec(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
    return lm_type_decimal128(5, 0);
  case LM_TYPE_INT32:
    return lm_type_decimal128(10, 0);
  default:
    return lm_type_decimal128(19, 0);
  }
}

/* A DECIMAL literal of the digits of text s (its own scale). */
static lm_bexpr *dec_literal(lm_bctx *c, lm_bexpr *x, const char *s) {
  lm_i128 v;
  int frac = 0;
  if (lm_dec_parse(s, strlen(s), 0, &v, &frac) == LM_DEC_ESYNTAX)
    return NULL;
  if (frac > 38)
    frac = 38;
  if (lm_dec_parse(s, strlen(s), frac, &v, NULL))
    return NULL;
  int digits = lm_dec_digits(v);
  int p = digits > frac ? digits : frac + (frac < 38);
  if (p < 1)
    p = 1;
  lm_type t = lm_type_decimal128(p > 38 ? 38 : p, frac);
  lm_bexpr *b = lm_bind_node(c, LM_BX_LITERAL, t, NULL, 0);
  if (!b)
    return NULL;
  b->line = x->line;
  b->column = x->column;
  b->lit.type = t;
  b->lit.is_null = false;
  b->lit.v.d128.lo = (uint64_t)(unsigned __int128)v;
  b->lit.v.d128.hi = (int64_t)((unsigned __int128)v >> 64);
  return b;
}

/* The shortest text that reads back as d (a literal's digits). */
static void shortest(double d, char *buf, size_t n) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, d);
    if (strtod(buf, NULL) == d)
      return;
  }
}

static bool is_float_lit(const lm_bexpr *x) {
  return x->kind == LM_BX_LITERAL && !x->lit.is_null &&
         x->type.id == LM_TYPE_FLOAT64;
}

/* A FLOAT64 literal as the exact DECIMAL it was written as: its shortest
 * digits at the scale of its text (x->col, lm_bind_lit_scale). */
static lm_bexpr *float_lit_to_dec(lm_bctx *c, lm_bexpr *x) {
  lm_bexpr *exact = lm_bind_lit_exact(c, x);
  if (exact)
    return exact;
  char buf[64];
  shortest(x->lit.v.f, buf, sizeof buf);
  lm_bexpr *d = dec_literal(c, x, buf);
  int want = x->col > 38 ? 38 : x->col;
  if (d && want > d->type.scale) {
    lm_i128 v = ((lm_i128)d->lit.v.d128.hi << 64) |
                (lm_i128)(unsigned __int128)d->lit.v.d128.lo;
    lm_i128 r;
    int p = d->type.precision + (want - d->type.scale);
    if (p <= 38 && lm_dec_rescale(v, d->type.scale, want, &r) == 0) {
      d->type = d->lit.type = lm_type_decimal128(p, want);
      d->lit.v.d128.lo = (uint64_t)(unsigned __int128)r;
      d->lit.v.d128.hi = (int64_t)((unsigned __int128)r >> 64);
    }
  }
  return d;
}

lm_bexpr *lm_bind_lit_exact(lm_bctx *c, lm_bexpr *x) {
  if (!is_float_lit(x) || !x->lit_text)
    return NULL;
  lm_i128 v;
  int frac = 0;
  const char *s = x->lit_text;
  /* at most 38 digits after the point, all of them kept */
  if (lm_dec_parse(s, strlen(s), 0, &v, &frac) == LM_DEC_ESYNTAX || frac > 38)
    return NULL;
  return dec_literal(c, x, s);
}

int lm_bind_lit_digits(const char *text, int *scale) {
  int before = 0, after = 0;
  bool dot = false, lead = true;
  for (const char *t = text ? text : ""; *t; t++) {
    if (*t == '.')
      dot = true;
    else if (*t < '0' || *t > '9')
      break; /* 1e5: the exponent is not counted */
    else if (dot)
      after++;
    else if (*t != '0' || !lead)
      lead = false, before++;
  }
  if (scale)
    *scale = after;
  return before;
}

int lm_bind_lit_too_long(lm_bctx *c, int line, int column, const char *text) {
  int scale = 0, before = lm_bind_lit_digits(text, &scale);
  size_t n = text ? strlen(text) : 0;
  lm_err_at(c->err, LM_ERR_BIND, line, column,
            "numeric literal \"%.*s%s\" needs %d digits (%d before and %d "
            "after the point): Laminar's NUMERIC (Decimal128) holds at most "
            "38",
            n > 60 ? 60 : (int)n, text ? text : "", n > 60 ? "..." : "",
            before + scale, before, scale);
  return lm_err_state(c->err, "22003");
}

int lm_bind_lit_scale(const char *text) {
  lm_i128 v;
  int frac = 0;
  if (!text || lm_dec_parse(text, strlen(text), 0, &v, &frac) == LM_DEC_ESYNTAX)
    return 0;
  return frac;
}

int lm_bind_numeric_type(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                         lm_type *out) {
  if (is_dec(x->type)) {
    *out = x->type;
    return 0;
  }
  if (lm_type_is_integer(x->type)) {
    *out = int_dec(x->type);
    return 0;
  }
  if (x->type.id == LM_TYPE_NULL) {
    *out = lm_type_decimal128(38, 0);
    return 0;
  }
  lm_bexpr *d = NULL;
  if (is_float_lit(x))
    d = float_lit_to_dec(c, x);
  else if (x->kind == LM_BX_LITERAL && !x->lit.is_null &&
           x->type.id == LM_TYPE_UTF8)
    d = dec_literal(c, x, x->lit.v.s.p);
  if (d) {
    *out = d->type;
    return 0;
  }
  if (x->kind == LM_BX_LITERAL && !x->lit.is_null &&
      x->type.id == LM_TYPE_UTF8) {
    /* a quoted literal that is no number: PostgreSQL's numeric_in error,
     * at the literal */
    int len = (int)(x->lit.v.s.len > 200 ? 200 : x->lit.v.s.len);
    lm_err_at(c->err, LM_ERR_BIND, x->line, x->column,
              "invalid input syntax for type numeric: \"%.*s\"", len,
              x->lit.v.s.p);
    return lm_err_state(c->err, "22P02");
  }
  return lm_bind_fail(c, at,
                      "NUMERIC without (precision, scale) is supported for "
                      "constants, integers and DECIMAL values only, not %s; "
                      "write NUMERIC(p, s)",
                      lm_type_name(x->type), NULL);
}

int lm_bind_cast_numeric_type(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                              lm_type *out) {
  if ((x->type.id == LM_TYPE_FLOAT64 || x->type.id == LM_TYPE_FLOAT32) &&
      (x->kind != LM_BX_LITERAL ||
       (!x->lit.is_null && !isfinite(x->lit.v.f)))) { /* 'NaN'::float8 */
    /* float8 -> numeric keeps 15 significant digits (lm_dec_from_double);
     * a fixed scale holds them for |x| >= 0.01, up to 10^22 */
    *out = lm_type_decimal128(38, LM_FLOAT_NUMERIC_SCALE);
    return 0;
  }
  return lm_bind_numeric_type(c, at, x, out);
}

/* Makes an operand of a DECIMAL operation a DECIMAL (ints, float
 * literals); false when it cannot be one. */
static bool to_dec(lm_bctx *c, lm_bexpr **px) {
  lm_bexpr *x = *px;
  if (is_dec(x->type))
    return true;
  if (lm_type_is_integer(x->type)) {
    *px = lm_bind_cast(c, x, int_dec(x->type));
    return *px != NULL;
  }
  if (is_float_lit(x)) {
    lm_bexpr *d = float_lit_to_dec(c, x);
    if (d)
      *px = d;
    return d != NULL;
  }
  return false;
}

int lm_bind_types_pair(lm_bctx *c, const lm_expr *at, lm_bexpr **pa,
                       lm_bexpr **pb) {
  int mr = lm_bind_mdn_pair(c, pa, pb); /* intervals with months */
  if (mr != 1)
    return mr;
  lm_type ta = (*pa)->type, tb = (*pb)->type;
  if (is_dec(ta) || is_dec(tb)) {
    lm_bexpr **other = is_dec(ta) ? pb : pa;
    if (is_dec((*other)->type) || to_dec(c, other))
      return *other ? 0 : -1;
    lm_type ot = (*other)->type;
    if (ot.id == LM_TYPE_FLOAT32 || ot.id == LM_TYPE_FLOAT64) {
      /* numeric vs double precision compares as double (PostgreSQL) */
      *pa = lm_bind_cast(c, *pa, lm_type_make(LM_TYPE_FLOAT64));
      *pb = lm_bind_cast(c, *pb, lm_type_make(LM_TYPE_FLOAT64));
      return *pa && *pb ? 0 : -1;
    }
    if (ot.id == LM_TYPE_UTF8 && (*other)->kind == LM_BX_LITERAL) {
      lm_type t;
      if (lm_bind_numeric_type(c, at, *other, &t))
        return -1;
      *other = lm_bind_cast(c, *other, t);
      return *other ? 0 : -1;
    }
    return 1;
  }
  /* TIMESTAMPTZ against TIMESTAMP or DATE: the other side is read in the
   * session zone (PostgreSQL casts it to timestamptz) */
  if (lm_type_is_tstz(ta) != lm_type_is_tstz(tb)) {
    lm_bexpr **other = lm_type_is_tstz(ta) ? pb : pa;
    lm_type_id o = (*other)->type.id;
    if (o == LM_TYPE_TIMESTAMP || o == LM_TYPE_DATE32) {
      *other = lm_bind_cast(c, *other, lm_type_timestamptz());
      return *other ? 0 : -1;
    }
  }
  /* DATE against TIMESTAMP: the date's midnight */
  if (ta.id == LM_TYPE_DATE32 && tb.id == LM_TYPE_TIMESTAMP) {
    *pa = lm_bind_cast(c, *pa, tb);
    return *pa ? 0 : -1;
  }
  if (tb.id == LM_TYPE_DATE32 && ta.id == LM_TYPE_TIMESTAMP) {
    *pb = lm_bind_cast(c, *pb, ta);
    return *pb ? 0 : -1;
  }
  return 1;
}

static int imin(int a, int b) {
  return a < b ? a : b;
}
static int imax(int a, int b) {
  return a > b ? a : b;
}

/* timestamptz ± INTERVAL literal with whole days (e's operand `iv`, 0 or
 * 1): as PostgreSQL, the days move the local date in the session zone
 * (keeping the wall-clock time across a DST change), then the rest is
 * added as µs. Rewrites the timestamptz operand into
 * CAST(CAST(ts AS TIMESTAMP) ± days AS TIMESTAMPTZ) and the literal into
 * the rest. An interval that is not a literal adds µs. 0 or -1. */
static int tz_add_days(lm_bctx *c, const lm_expr *e, int iv, bool sub,
                       lm_bexpr **pa, lm_bexpr **pb) {
  lm_bexpr **pl = iv ? pb : pa, **pt = iv ? pa : pb;
  const lm_expr *le = e && e->n_args == 2 ? e->args[iv] : NULL;
  lm_bexpr *lit = *pl;
  if (!le || le->kind != LM_EXPR_LITERAL || le->lit != LM_LIT_INTERVAL ||
      lit->kind != LM_BX_LITERAL || lit->lit.is_null ||
      lit->lit.v.i != le->ival || !le->text)
    return 0;
  int64_t us, days;
  if (lm_parse_interval_days(le->text, strlen(le->text), le->name,
                             le->name ? strlen(le->name) : 0, &us,
                             &days) != 0 ||
      us != le->ival || days == 0)
    return 0;
  if (lit->iv_split && (days = lit->iv_days) == 0)
    return 0; /* PostgreSQL's days field: '24 hours' has none (mdn_bind.c) */
  lm_type ts = lm_type_make(LM_TYPE_TIMESTAMP);
  lm_bexpr *local = lm_bind_cast(c, *pt, ts);
  lm_bexpr *dl = lm_bind_node(c, LM_BX_LITERAL, lit->type, le, 0);
  lm_bexpr *rest = lm_bind_node(c, LM_BX_LITERAL, lit->type, le, 0);
  lm_bexpr *sum = lm_bind_node(c, LM_BX_BINARY, ts, e, 2);
  if (!local || !dl || !rest || !sum)
    return -1;
  dl->lit = lit->lit;
  dl->lit.v.i = days * LM_US_PER_DAY;
  rest->lit = lit->lit;
  rest->lit.v.i = us - days * LM_US_PER_DAY;
  sum->op = sub ? LM_OP_SUB : LM_OP_ADD;
  sum->args[0] = local;
  sum->args[1] = dl;
  lm_bexpr *back = lm_bind_cast(c, sum, lm_type_timestamptz());
  if (!back)
    return -1;
  *pt = back;
  *pl = rest;
  return 0;
}

/* The value of a constant DECIMAL operand x (a literal, or an integer
 * literal cast to DECIMAL) in *v at scale *s; false for anything else. */
static bool const_dec(const lm_bexpr *x, lm_i128 *v, int *s) {
  if (x->kind == LM_BX_CAST && is_dec(x->type) &&
      x->args[0]->kind == LM_BX_LITERAL && !x->args[0]->lit.is_null &&
      lm_type_is_integer(x->args[0]->type)) {
    *v = (lm_i128)x->args[0]->lit.v.i;
    *s = 0;
    return true;
  }
  if (x->kind != LM_BX_LITERAL || !is_dec(x->type) || x->lit.is_null)
    return false;
  *v = (lm_i128)(((unsigned __int128)(uint64_t)x->lit.v.d128.hi << 64) |
                 (unsigned __int128)x->lit.v.d128.lo);
  *s = x->type.scale;
  return !lm_dec_is_special(*v);
}

/* PostgreSQL's base-10000 weight and first digit of v · 10^-s (numeric's
 * NumericVar; 0 has weight 0 and first digit 0). */
static void nbase_lead(lm_i128 v, int s, int *weight, int *first) {
  *weight = *first = 0;
  if (v == 0)
    return;
  if (v < 0)
    v = -v;
  int e10 = lm_dec_digits(v) - 1 - s; /* 10^e10 <= |value| */
  int w = e10 >= 0 ? e10 / 4 : -((-e10 + 3) / 4);
  int sh = s + 4 * w; /* first = floor(|v| / 10^sh) */
  *weight = w;
  *first = (int)(sh >= 0 ? v / lm_dec_pow10(sh) : v * lm_dec_pow10(-sh));
}

/* PostgreSQL's select_div_scale (numeric.c) for constant operands: at
 * least 16 significant digits of the quotient, at least either scale. */
static int pg_div_scale(lm_i128 a, int sa, lm_i128 b, int sb) {
  int w1, f1, w2, f2;
  nbase_lead(a, sa, &w1, &f1);
  nbase_lead(b, sb, &w2, &f2);
  int qweight = w1 - w2;
  if (f1 <= f2)
    qweight--;
  int rs = 16 - qweight * 4;
  rs = imax(imax(rs, sa), imax(sb, 0));
  return imin(rs, 1000);
}

int lm_bind_types_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                        lm_bexpr **pb, lm_type *rt) {
  int mr = lm_bind_mdn_arith(c, e, op, pa, pb, rt); /* mdn_bind.c */
  if (mr != 1)
    return mr;
  lm_type ta = (*pa)->type, tb = (*pb)->type;
  lm_type_id a = ta.id, b = tb.id;
  if (is_dec(ta) || is_dec(tb)) {
    lm_bexpr **other = is_dec(ta) ? pb : pa;
    /* an integer column stays as it is in * + -: the kernels read it at
     * scale 0 (exec/expr_decfast.c, expr_types.c), no cast pass */
    lm_type ot0 = (*other)->type;
    bool keep_int = (op == LM_OP_MUL || op == LM_OP_ADD || op == LM_OP_SUB) &&
                    (ot0.id == LM_TYPE_INT64 || ot0.id == LM_TYPE_INT32 ||
                     ot0.id == LM_TYPE_INT16) &&
                    (*other)->kind != LM_BX_LITERAL;
    if (!keep_int && !is_dec((*other)->type) && !to_dec(c, other)) {
      lm_type ot = (*other)->type;
      if (ot.id != LM_TYPE_FLOAT32 && ot.id != LM_TYPE_FLOAT64)
        return 1; /* the caller's "operator does not exist" */
      *pa = lm_bind_cast(c, *pa, lm_type_make(LM_TYPE_FLOAT64));
      *pb = lm_bind_cast(c, *pb, lm_type_make(LM_TYPE_FLOAT64));
      *rt = lm_type_make(LM_TYPE_FLOAT64);
      return *pa && *pb ? 0 : -1;
    }
    if (!*other)
      return -1;
    lm_type da = (*pa)->type, db = (*pb)->type;
    if (keep_int)
      *(is_dec(ta) ? &db : &da) = int_dec(ot0);
    int p1 = da.precision, s1 = da.scale;
    int p2 = db.precision, s2 = db.scale;
    int i1 = p1 - s1, i2 = p2 - s2, p, s;
    switch (op) {
    case LM_OP_ADD:
    case LM_OP_SUB:
      s = imax(s1, s2);
      p = imax(i1, i2) + s + 1;
      break;
    case LM_OP_MUL:
      s = imin(s1 + s2, 38);
      p = i1 + i2 + s;
      break;
    case LM_OP_DIV:
      /* PostgreSQL picks the scale per value (select_div_scale: at least
       * 16 significant digits); a column needs one scale: 16 or more */
      s = imin(imax(imax(s1, s2), 16), 37);
      p = 38;
      {
        /* constants: PostgreSQL's own scale (0.1 / 3 has 20 decimals) */
        lm_i128 va, vb;
        int sa, sb;
        if (const_dec(*pa, &va, &sa) && const_dec(*pb, &vb, &sb) && vb != 0)
          s = imin(pg_div_scale(va, sa, vb, sb), 37);
      }
      break;
    default: /* % */
      s = imax(s1, s2);
      p = imax(i1, i2) + s;
      break;
    }
    p = imax(imin(p, 38), imax(s, 1));
    *rt = lm_type_decimal128(p, s);
    return 0;
  }
  bool add = op == LM_OP_ADD, sub = op == LM_OP_SUB;
  if (lm_type_is_tstz(ta) || lm_type_is_tstz(tb)) {
    lm_type tz = lm_type_timestamptz();
    if ((lm_type_is_tstz(ta) && b == LM_TYPE_INTERVAL && (add || sub)) ||
        (lm_type_is_tstz(tb) && a == LM_TYPE_INTERVAL && add)) {
      *rt = tz; /* an instant ± µs, the days of a literal in local time */
      return tz_add_days(c, e, lm_type_is_tstz(ta) ? 1 : 0, sub, pa, pb);
    }
    if (sub && (a == LM_TYPE_TIMESTAMP || a == LM_TYPE_DATE32) &&
        (b == LM_TYPE_TIMESTAMP || b == LM_TYPE_DATE32)) {
      /* timestamptz - timestamp|date: the other read in the session zone */
      *pa = lm_bind_cast(c, *pa, tz);
      *pb = lm_bind_cast(c, *pb, tz);
      *rt = lm_type_make(LM_TYPE_INTERVAL);
      return *pa && *pb ? 0 : -1;
    }
    return 1;
  }
  if (a == LM_TYPE_DATE32 || b == LM_TYPE_DATE32) {
    if (a == LM_TYPE_DATE32 && b == LM_TYPE_DATE32 && sub) {
      *rt = lm_type_make(LM_TYPE_INT32); /* days between */
      return 0;
    }
    if ((add || sub) && a == LM_TYPE_DATE32 && lm_type_is_integer(tb)) {
      *rt = ta;
      return 0;
    }
    if (add && b == LM_TYPE_DATE32 && lm_type_is_integer(ta)) {
      *rt = tb;
      return 0;
    }
    if (add && ((a == LM_TYPE_DATE32 && b == LM_TYPE_TIME64) ||
                (b == LM_TYPE_DATE32 && a == LM_TYPE_TIME64))) {
      *rt = lm_type_make(LM_TYPE_TIMESTAMP);
      return 0;
    }
    bool iv = (a == LM_TYPE_DATE32 && b == LM_TYPE_INTERVAL && (add || sub)) ||
              (b == LM_TYPE_DATE32 && a == LM_TYPE_INTERVAL && add);
    bool ts = sub && (a == LM_TYPE_TIMESTAMP || b == LM_TYPE_TIMESTAMP);
    if (iv || ts) {
      /* the date's midnight as a TIMESTAMP, then the TIMESTAMP rules */
      lm_type t = lm_type_make(LM_TYPE_TIMESTAMP);
      if (a == LM_TYPE_DATE32)
        *pa = lm_bind_cast(c, *pa, t);
      if (b == LM_TYPE_DATE32)
        *pb = lm_bind_cast(c, *pb, t);
      *rt = lm_type_make(iv ? LM_TYPE_TIMESTAMP : LM_TYPE_INTERVAL);
      return *pa && *pb ? 0 : -1;
    }
    return 1;
  }
  if (a == LM_TYPE_TIME64 || b == LM_TYPE_TIME64) {
    if (a == LM_TYPE_TIME64 && b == LM_TYPE_TIME64 && sub) {
      *rt = lm_type_make(LM_TYPE_INTERVAL);
      return 0;
    }
    if ((a == LM_TYPE_TIME64 && b == LM_TYPE_INTERVAL && (add || sub)) ||
        (b == LM_TYPE_TIME64 && a == LM_TYPE_INTERVAL && add)) {
      *rt = a == LM_TYPE_TIME64 ? ta : tb;
      return 0;
    }
    return 1;
  }
  (void)e;
  return 1;
}

/* A DECIMAL constant 10^k at scale `scale` (k, scale in 0..18). */
static lm_bexpr *dec_const(lm_bctx *c, const lm_expr *at, int k, int scale) {
  int64_t v = 1;
  for (int i = 0; i < k; i++)
    v *= 10;
  int p = lm_dec_digits(v);
  lm_type t = lm_type_decimal128(p > scale ? p : scale > 0 ? scale : 1, scale);
  lm_bexpr *b = lm_bind_node(c, LM_BX_LITERAL, t, at, 0);
  if (!b)
    return NULL;
  b->lit.type = t;
  b->lit.v.d128.lo = (uint64_t)v;
  b->lit.v.d128.hi = 0;
  return b;
}

int lm_bind_dec_unscale(lm_bctx *c, const lm_expr *at, lm_bexpr **arg) {
  int s = (*arg)->type.scale;
  if (s > 18)
    return lm_bind_fail(c, at,
                        "aggregates of DECIMAL with a scale above 18 are not "
                        "supported",
                        NULL, NULL);
  lm_bexpr *k = dec_const(c, at, s, 0);
  lm_bexpr *m = k ? lm_bind_binary(c, at, LM_OP_MUL, *arg, k) : NULL;
  *arg = m ? lm_bind_cast(c, m, lm_type_make(LM_TYPE_INT64)) : NULL;
  return *arg ? 0 : -1;
}

lm_bexpr *lm_bind_dec_rescale(lm_bctx *c, const lm_expr *at, lm_bexpr *r,
                              lm_type t) {
  if (!r)
    return NULL;
  lm_bexpr *d = lm_bind_cast(c, r, lm_type_decimal128(38, 0));
  lm_bexpr *k = dec_const(c, at, 0, t.scale);
  lm_bexpr *m = d && k ? lm_bind_binary(c, at, LM_OP_MUL, d, k) : NULL;
  return m ? lm_bind_cast(c, m, t) : NULL;
}

/* A BIGINT literal v bound at `at` (arena-owned; NULL on allocation failure,
 * with c's error set). */
lm_bexpr *lm_bind_null_lit(lm_bctx *c, const lm_expr *at, lm_type t) {
  lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, t, at, 0);
  if (z) {
    z->lit.type = t;
    z->lit.is_null = true;
  }
  return z;
}

lm_bexpr *lm_bind_int64_lit(lm_bctx *c, const lm_expr *at, int64_t v) {
  lm_bexpr *b =
      lm_bind_node(c, LM_BX_LITERAL, lm_type_make(LM_TYPE_INT64), at, 0);
  if (b) {
    b->lit.type = b->type;
    b->lit.v.i = v;
  }
  return b;
}

lm_bexpr *lm_bind_types_func(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                             bool *handled) {
  const char *n = e->name;
  lm_type t = args[0]->type;
  *handled = false;
  if (t.id == LM_TYPE_BINARY) {
    bool len = !strcmp(n, "length") || !strcmp(n, "octet_length");
    if (!(len || !strcmp(n, "md5")) || e->n_args != 1)
      return NULL;
    *handled = true;
    lm_bexpr *r = lm_bind_node(
        c, LM_BX_FUNC, lm_type_make(len ? LM_TYPE_INT64 : LM_TYPE_UTF8), e, 1);
    if (r) {
      r->fn = len ? LM_FN_OCTET_LENGTH : LM_FN_MD5;
      r->args[0] = args[0];
    }
    return r;
  }
  static const char *const names[] = {"round", "trunc", "abs",    "ceil",
                                      "floor", "sign",  "ceiling"};
  int which = -1;
  for (int i = 0; i < 7; i++)
    if (!strcmp(n, names[i]))
      which = i == 6 ? 3 : i;
  if (which < 0)
    return NULL;
  *handled = true;
  int maxa = which <= 1 ? 2 : 1;
  if (e->n_args > maxa) {
    lm_bind_fail(c, e, "%s() takes %s", n,
                 maxa == 2 ? "(numeric[, integer])" : "one argument");
    return NULL;
  }
  int64_t d = 0;
  if (e->n_args == 2) {
    lm_bexpr *x = lm_bind_fold(c, args[1]);
    if (!x)
      return NULL;
    if (x->kind == LM_BX_LITERAL && x->lit.is_null &&
        (x->type.id == LM_TYPE_NULL || lm_type_is_integer(x->type))) {
      /* round(x, NULL): NULL (a strict function, as PostgreSQL) */
      lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
      if (z) {
        z->lit.type = t;
        z->lit.is_null = true;
      }
      return z;
    }
    if (x->kind != LM_BX_LITERAL || !lm_type_is_integer(x->type) ||
        x->lit.is_null) {
      lm_bind_fail(c, e->args[1],
                   "%s(numeric, digits): digits must be an integer constant "
                   "(the result scale depends on it)",
                   n, NULL);
      return NULL;
    }
    d = x->lit.v.i;
    if (d > 38)
      d = 38;
    if (d < -38)
      d = -38;
  }
  int s = which == 2 ? t.scale : which <= 1 ? (d > 0 ? (int)d : 0) : 0;
  int intd = t.precision - t.scale + 1;
  int p = intd + s;
  if (which == 2)
    p = t.precision;
  if (which == 5)
    p = 1;
  if (p > 38)
    p = 38;
  if (p < s)
    p = s;
  if (p < 1)
    p = 1;
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, lm_type_decimal128(p, s), e, 3);
  lm_bexpr *dl = lm_bind_int64_lit(c, e, d),
           *wl = lm_bind_int64_lit(c, e, which);
  if (!r || !dl || !wl)
    return NULL;
  r->fn = LM_FN_DECIMAL_FN;
  r->args[0] = args[0];
  r->args[1] = dl;
  r->args[2] = wl;
  return r;
}

bool lm_bind_types_merge(lm_type t, lm_type a, lm_type *out) {
  if ((t.id == LM_TYPE_INTERVAL && a.id == LM_TYPE_INTERVAL_MDN) ||
      (a.id == LM_TYPE_INTERVAL && t.id == LM_TYPE_INTERVAL_MDN)) {
    *out = lm_type_make(LM_TYPE_INTERVAL_MDN); /* months: lm_interval.h */
    return true;
  }
  if (t.id == LM_TYPE_UTF8 && a.id == LM_TYPE_UTF8) {
    /* CHAR(n) with VARCHAR: text (PostgreSQL's preferred string type) */
    if (lm_type_eq(t, a))
      return false;
    *out = lm_type_make(LM_TYPE_UTF8);
    return true;
  }
  if (is_dec(t) || is_dec(a)) {
    if (lm_type_is_integer(t))
      t = int_dec(t);
    if (lm_type_is_integer(a))
      a = int_dec(a);
    if (is_dec(t) && is_dec(a)) {
      int s = imax(t.scale, a.scale);
      int p = imin(38, imax(t.precision - t.scale, a.precision - a.scale) + s);
      *out = lm_type_decimal128(imax(p, imax(s, 1)), s);
      return true;
    }
    lm_type o = is_dec(t) ? a : t;
    if (o.id == LM_TYPE_FLOAT32 || o.id == LM_TYPE_FLOAT64) {
      *out = lm_type_make(LM_TYPE_FLOAT64);
      return true;
    }
    return false;
  }
  /* TIMESTAMPTZ with TIMESTAMP or DATE: TIMESTAMPTZ (PostgreSQL's
   * preferred type of the datetime category) */
  if ((lm_type_is_tstz(t) &&
       (a.id == LM_TYPE_TIMESTAMP || a.id == LM_TYPE_DATE32)) ||
      (lm_type_is_tstz(a) &&
       (t.id == LM_TYPE_TIMESTAMP || t.id == LM_TYPE_DATE32))) {
    *out = lm_type_timestamptz();
    return true;
  }
  if ((t.id == LM_TYPE_DATE32 && a.id == LM_TYPE_TIMESTAMP) ||
      (a.id == LM_TYPE_DATE32 && t.id == LM_TYPE_TIMESTAMP)) {
    *out = lm_type_make(LM_TYPE_TIMESTAMP);
    return true;
  }
  return false;
}

void lm_bind_types_lits(lm_bctx *c, lm_bexpr **args, int n) {
  bool dec = false;
  for (int i = 0; i < n; i++)
    dec |= args[i] && is_dec(args[i]->type);
  for (int i = 0; dec && i < n; i++)
    if (args[i] && is_float_lit(args[i])) {
      lm_bexpr *d = float_lit_to_dec(c, args[i]);
      if (d)
        args[i] = d;
    }
}

/* ------------------------------------------------------------ TIMESTAMPTZ */

/* The zone named by a constant text argument x (at e's position). */
static const lm_tz *const_zone(lm_bctx *c, const lm_expr *at, lm_bexpr *x) {
  if (!x || x->kind != LM_BX_LITERAL || x->type.id != LM_TYPE_UTF8 ||
      x->lit.is_null) {
    lm_bind_fail(c, at, "the time zone must be a constant string", NULL, NULL);
    return NULL;
  }
  const lm_tz *z;
  lm_error e2;
  if (lm_tz_lookup_at(x->lit.v.s.p, &z, &e2) != 0) {
    lm_bind_fail(c, at, "time zone \"%s\" not recognized", x->lit.v.s.p, NULL);
    lm_err_state(c->err, "22023");
    return NULL;
  }
  return z;
}

int lm_bind_tz_part(lm_bctx *c, const lm_expr *e, lm_bexpr **args, bool trunc,
                    const struct lm_tz **tz, lm_bexpr **done) {
  *tz = NULL;
  *done = NULL;
  if (e->n_args == 3 && !lm_type_is_tstz(args[1]->type)) {
    lm_bind_fail(c, e,
                 "date_trunc(unit, source, zone) needs a timestamp with time "
                 "zone source",
                 NULL, NULL);
    return -1;
  }
  if (!lm_type_is_tstz(args[1]->type))
    return 0;
  const lm_tz *z = lm_tz_session();
  if (e->n_args == 3 && !(z = const_zone(c, e->args[2], args[2])))
    return -1;
  const char *u = args[0]->lit.v.s.p;
  if (!trunc && !strcasecmp(u, "epoch"))
    z = lm_tz_utc(); /* seconds since 1970-01-01 00:00 UTC */
  *tz = z;
  if (trunc || (strcasecmp(u, "timezone") && strcasecmp(u, "timezone_hour") &&
                strcasecmp(u, "timezone_minute")))
    return 0;
  /* the offset in seconds: (local - utc) as µs, / 10^6 */
  lm_bexpr *loc = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_TIMESTAMP));
  lm_bexpr *utc =
      lm_bind_node(c, LM_BX_CAST, lm_type_make(LM_TYPE_TIMESTAMP), e, 1);
  if (!loc || !utc)
    return -1;
  loc->tz = z;
  utc->args[0] = args[1];
  utc->tz = lm_tz_utc();
  lm_bexpr *d = lm_bind_binary(c, e, LM_OP_SUB, loc, utc);
  d = d ? lm_bind_cast(c, d, lm_type_make(LM_TYPE_INT64)) : NULL;
  d = d ? lm_bind_binary(c, e, LM_OP_DIV, d,
                         lm_bind_int64_lit(c, e, LM_US_PER_SEC))
        : NULL;
  if (d && !strcasecmp(u, "timezone_hour"))
    d = lm_bind_binary(c, e, LM_OP_DIV, d, lm_bind_int64_lit(c, e, 3600));
  if (d && !strcasecmp(u, "timezone_minute")) {
    d = lm_bind_binary(c, e, LM_OP_DIV, d, lm_bind_int64_lit(c, e, 60));
    d = d ? lm_bind_binary(c, e, LM_OP_MOD, d, lm_bind_int64_lit(c, e, 60))
          : NULL;
  }
  d = d ? lm_bind_cast(c, d, lm_type_make(LM_TYPE_FLOAT64)) : NULL;
  if (!d)
    return -1;
  *done = d;
  return 1;
}

lm_bexpr *lm_bind_timezone(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  if (e->n_args != 2) {
    lm_bind_fail(c, e, "timezone(zone, timestamp) takes 2 arguments", NULL,
                 NULL);
    return NULL;
  }
  const lm_tz *z = const_zone(c, e->args[0], args[0]);
  if (!z)
    return NULL;
  lm_bexpr *x = args[1];
  lm_type t = x->type;
  if (t.id == LM_TYPE_UTF8 && x->kind == LM_BX_LITERAL)
    x = lm_bind_cast(c, x, lm_type_timestamptz()); /* unknown: timestamptz */
  else if (t.id == LM_TYPE_DATE32) /* date -> timestamptz (session zone) */
    x = lm_bind_cast(c, x, lm_type_timestamptz());
  else if (t.id == LM_TYPE_NULL)
    x = lm_bind_cast(c, x, lm_type_timestamptz());
  if (!x)
    return NULL;
  t = x->type;
  if (t.id != LM_TYPE_TIMESTAMP) {
    lm_bind_fail(c, e->args[1],
                 "AT TIME ZONE needs a timestamp or timestamp with time zone, "
                 "found %s",
                 lm_type_name(t), NULL);
    lm_err_state(c->err, "42883");
    return NULL;
  }
  lm_bexpr *r =
      lm_bind_node(c, LM_BX_CAST,
                   lm_type_is_tstz(t) ? lm_type_make(LM_TYPE_TIMESTAMP)
                                      : lm_type_timestamptz(),
                   e, 1);
  if (!r)
    return NULL;
  r->args[0] = x;
  r->tz = z;
  return r;
}
