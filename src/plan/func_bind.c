/*
 * Scalar function binding: name resolution, argument checks and casts, and
 * result types for every built-in scalar function (window functions,
 * math, strings, dates, the Flink / Nexmark functions).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_regex_are.h" /* PostgreSQL regex checks */
#include "exec/lm_strfn.h"     /* literal date_format / regex checks */
#include "plan/bind_internal.h"
#include "plan/mktstz_bind.h"
#include "plan/whole_row_bind.h"

static lm_bexpr *const_interval(lm_bctx *c, const lm_expr *e, lm_bexpr *x,
                                int64_t *out) {
  if (!x)
    return NULL;
  if (x->type.id == LM_TYPE_INTERVAL_MDN) { /* months have no fixed length */
    lm_bind_fail(c, e,
                 "window size and offset cannot be an INTERVAL with months "
                 "or years",
                 NULL, NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  if (x->kind != LM_BX_LITERAL || x->type.id != LM_TYPE_INTERVAL ||
      x->lit.is_null) {
    lm_bind_fail(c, e, "window size and offset must be INTERVAL literals", NULL,
                 NULL);
    return NULL;
  }
  *out = x->lit.v.i;
  return x;
}

/* Window functions: the function id (the *_start names are the start
 * function itself, so GROUP BY hop(...) matches SELECT hop_start(...)),
 * argument counts and the signature for messages. */
static bool window_func(const char *n, lm_func_id *fn, int *min_args,
                        int *max_args, const char **sig) {
  static const struct {
    const char *name;
    lm_func_id fn;
    int lo, hi;
    const char *sig;
  } w[] = {
      {"tumble", LM_FN_TUMBLE, 2, 3, "(ts, size [, offset])"},
      {"tumble_start", LM_FN_TUMBLE, 2, 3, "(ts, size [, offset])"},
      {"tumble_end", LM_FN_TUMBLE_END, 2, 3, "(ts, size [, offset])"},
      {"hop", LM_FN_HOP, 3, 4, "(ts, slide, size [, offset])"},
      {"hop_start", LM_FN_HOP, 3, 4, "(ts, slide, size [, offset])"},
      {"hop_end", LM_FN_HOP_END, 3, 4, "(ts, slide, size [, offset])"},
      {"cumulate", LM_FN_CUMULATE, 3, 4, "(ts, step, max_size [, offset])"},
      {"cumulate_start", LM_FN_CUMULATE, 3, 4,
       "(ts, step, max_size [, offset])"},
      {"cumulate_end", LM_FN_CUMULATE_END, 3, 4,
       "(ts, step, max_size [, offset])"},
      {"session", LM_FN_SESSION, 2, 2, "(ts, gap)"},
      {"session_start", LM_FN_SESSION, 2, 2, "(ts, gap)"},
      {"session_end", LM_FN_SESSION_END, 2, 2, "(ts, gap)"},
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
    if (!strcmp(n, w[i].name)) {
      *fn = w[i].fn;
      *min_args = w[i].lo;
      *max_args = w[i].hi;
      *sig = w[i].sig;
      return true;
    }
  return false;
}

/* ------------------------------------------- PostgreSQL function table */

/* Argument and result codes: T text (anything is cast to VARCHAR), I
 * integer (BIGINT), F number (DOUBLE), N number keeping BIGINT or DOUBLE
 * (the result follows the first N argument), S TIMESTAMP, A any scalar
 * (cast to text), B BOOLEAN (result only), V INTERVAL (result only). The
 * last argument code repeats for variadic functions. */
typedef struct pg_sig {
  const char *name;
  lm_func_id fn;
  int lo, hi;
  const char *args;
  char ret;
} pg_sig;

static const pg_sig pg_funcs[] = {
    {"trunc", LM_FN_TRUNC, 1, 1, "F", 'F'},
    {"trunc", LM_FN_TRUNC, 2, 2, "NI", 'N'},
    {"sqrt", LM_FN_SQRT, 1, 1, "F", 'F'},
    {"cbrt", LM_FN_CBRT, 1, 1, "F", 'F'},
    {"ln", LM_FN_LN, 1, 1, "F", 'F'},
    {"log10", LM_FN_LOG10, 1, 1, "F", 'F'},
    {"log", LM_FN_LOG10, 1, 1, "F", 'F'},
    {"log", LM_FN_LOG, 2, 2, "FF", 'F'},
    {"exp", LM_FN_EXP, 1, 1, "F", 'F'},
    {"power", LM_FN_POWER, 2, 2, "FF", 'F'},
    {"pow", LM_FN_POWER, 2, 2, "FF", 'F'},
    {"sign", LM_FN_SIGN, 1, 1, "F", 'F'},
    {"pi", LM_FN_PI, 0, 0, "", 'F'},
    {"degrees", LM_FN_DEGREES, 1, 1, "F", 'F'},
    {"radians", LM_FN_RADIANS, 1, 1, "F", 'F'},
    {"random", LM_FN_RANDOM, 0, 0, "", 'F'},
    {"setseed", LM_FN_SETSEED, 1, 1, "F", 'T'},
    {"width_bucket", LM_FN_WIDTH_BUCKET, 4, 4, "FFFI", 'I'},
    {"octet_length", LM_FN_OCTET_LENGTH, 1, 1, "T", 'I'},
    {"char_length", LM_FN_LENGTH, 1, 1, "T", 'I'},
    {"character_length", LM_FN_LENGTH, 1, 1, "T", 'I'},
    {"strpos", LM_FN_STRPOS, 2, 2, "TT", 'I'},
    {"position", LM_FN_STRPOS, 2, 2, "TT", 'I'}, /* position(a IN b) */
    {"btrim", LM_FN_TRIM, 1, 1, "T", 'T'},
    {"trim", LM_FN_TRIM, 1, 1, "T", 'T'},
    {"ltrim", LM_FN_LTRIM, 1, 1, "T", 'T'},
    {"rtrim", LM_FN_RTRIM, 1, 1, "T", 'T'},
    {"btrim", LM_FN_BTRIM_CHARS, 2, 2, "TT", 'T'},
    {"trim", LM_FN_BTRIM_CHARS, 2, 2, "TT", 'T'},
    {"ltrim", LM_FN_LTRIM_CHARS, 2, 2, "TT", 'T'},
    {"rtrim", LM_FN_RTRIM_CHARS, 2, 2, "TT", 'T'},
    {"split_part", LM_FN_SPLIT_PART, 3, 3, "TTI", 'T'},
    {"concat_ws", LM_FN_CONCAT_WS, 2, 100, "TA", 'T'},
    {"left", LM_FN_LEFT, 2, 2, "TI", 'T'},
    {"right", LM_FN_RIGHT, 2, 2, "TI", 'T'},
    {"lpad", LM_FN_LPAD, 2, 3, "TIT", 'T'},
    {"rpad", LM_FN_RPAD, 2, 3, "TIT", 'T'},
    {"repeat", LM_FN_REPEAT, 2, 2, "TI", 'T'},
    {"reverse", LM_FN_REVERSE, 1, 1, "T", 'T'},
    {"starts_with", LM_FN_STARTS_WITH, 2, 2, "TT", 'B'},
    {"md5", LM_FN_MD5, 1, 1, "T", 'T'},
    {"initcap", LM_FN_INITCAP, 1, 1, "T", 'T'},
    {"ascii", LM_FN_ASCII, 1, 1, "T", 'I'},
    {"chr", LM_FN_CHR, 1, 1, "I", 'T'},
    {"regexp_replace", LM_FN_REGEXP_REPLACE, 3, 4, "TTTT", 'T'},
    {"regexp_match", LM_FN_REGEXP_MATCH, 2, 3, "TTT", 'T'},
    /* LM_FN_REGEXP_MATCH with negated set (array_bind.c) */
    {"regexp_split_to_array", LM_FN_REGEXP_MATCH, 2, 3, "TTT", 'T'},
    {"regexp_substr", LM_FN_REGEXP_SUBSTR, 2, 6, "TTIITI", 'T'},
    {"regexp_like", LM_FN_REGEX_OP, 2, 3, "TTT", 'B'},
    {"to_char", LM_FN_TO_CHAR, 2, 2, "ST", 'T'},
    {"to_timestamp", LM_FN_TO_TIMESTAMP, 1, 1, "F", 'S'},
    {"to_timestamp", LM_FN_TO_TIMESTAMP, 2, 2, "TT", 'S'},
    {"make_timestamp", LM_FN_MAKE_TIMESTAMP, 6, 6, "IIIIIF", 'S'},
    {"age", LM_FN_AGE, 2, 2, "SS", 'M'}, /* INTERVAL_MDN: expr_mdn.c */
    {"json_extract_path_text", LM_FN_JSON_GET_TEXT, 1, 100, "TT", 'T'},
    {"json_extract_path", LM_FN_JSON_GET, 1, 100, "TT", 'T'},
    {"jsonb_extract_path_text", LM_FN_JSON_GET_TEXT, 1, 100, "TT", 'T'},
    {"jsonb_extract_path", LM_FN_JSON_GET, 1, 100, "TT", 'T'},
    {"jsonb_get", LM_FN_JSON_GET, 2, 2, "TA", 'T'},
    {"jsonb_get_text", LM_FN_JSON_GET_TEXT, 2, 2, "TA", 'T'},
    {"jsonb_get_path", LM_FN_JSON_GET, 1, 100, "TT", 'T'},
    {"jsonb_get_path_text", LM_FN_JSON_GET_TEXT, 1, 100, "TT", 'T'},
};

/* Whether a DOUBLE expression is, in PostgreSQL, of type numeric: built
 * only from literals and integers (a decimal literal is numeric there). */
static bool numeric_origin(const lm_bexpr *x) {
  if (!is_float(x->type))
    return true;
  switch (x->kind) {
  case LM_BX_LITERAL:
    return true;
  case LM_BX_CAST:
  case LM_BX_UNARY:
  case LM_BX_BINARY:
    for (int i = 0; i < x->n_args; i++)
      if (!numeric_origin(x->args[i]))
        return false;
    return true;
  default:
    return false;
  }
}

/* Whether an argument's text names a float: a CAST to REAL / DOUBLE
 * (2.5::float8) in it makes it float8 in PostgreSQL too. */
static bool explicit_float(const lm_expr *x) {
  if (!x)
    return false;
  if (x->kind == LM_EXPR_CAST)
    return x->cast_type.id == LM_TYPE_FLOAT64 ||
           x->cast_type.id == LM_TYPE_FLOAT32;
  if (x->kind == LM_EXPR_UNARY || x->kind == LM_EXPR_BINARY) {
    for (int i = 0; i < x->n_args; i++)
      if (explicit_float(x->args[i]))
        return true;
  }
  return false;
}

/* PostgreSQL's name of a type, for "function f(integer) does not exist". */
static const char *pg_name(lm_type t) {
  return lm_pg_type_name(t);
}

/* The type PostgreSQL gives a literal before any coercion ('x' unknown, 1
 * integer, 1.5 numeric), or NULL for other expressions. */
static const char *literal_pg_type(const lm_expr *x) {
  if (x->kind != LM_EXPR_LITERAL)
    return NULL;
  if (x->lit == LM_LIT_STRING)
    return "unknown";
  if (x->lit == LM_LIT_INT)
    return x->ival >= INT32_MIN && x->ival <= INT32_MAX ? "integer" : "bigint";
  if (x->lit == LM_LIT_DECIMAL)
    return "numeric";
  return NULL;
}

static int undefined_function(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  static const char *const window_only[] = {
      "row_number", "rank", "dense_rank",  "percent_rank", "cume_dist", "ntile",
      "lag",        "lead", "first_value", "last_value",   "nth_value"};
  for (size_t i = 0; !e->over && i < LM_ARRAY_LEN(window_only); i++)
    if (!lm_strcasecmp(e->name, window_only[i])) {
      /* PostgreSQL: 42809 wrong_object_type */
      int rc = lm_bind_fail(c, e, "window function %s requires an OVER clause",
                            window_only[i], NULL);
      lm_err_state(c->err, "42809");
      return rc;
    }
  char sig[400];
  size_t k = 0;
  for (int i = 0; i < e->n_args && k < sizeof sig - 40; i++)
    k += (size_t)snprintf(sig + k, sizeof sig - k, "%s%s", i ? ", " : "",
                          literal_pg_type(e->args[i])
                              ? literal_pg_type(e->args[i])
                          : args[i] ? pg_name(args[i]->type)
                                    : "?");
  sig[k] = '\0';
  char what[600];
  snprintf(what, sizeof what, "%s(%s)", e->name, sig);
  int rc = lm_bind_fail(c, e, "function %s does not exist", what, NULL);
  lm_err_state(c->err, "42883");
  lm_err_hint(c->err, "No function matches the given name and argument "
                      "types. You might need to add explicit type casts.");
  return rc;
}

static bool arg_fits(char code, lm_type t) {
  switch (code) {
  case 'I':
    return is_int(t) || is_null(t);
  case 'F':
  case 'N': /* numeric goes to double precision, PostgreSQL's implicit
             * cast for the float-only functions (cbrt, sin, to_timestamp) */
    return is_num(t) || is_null(t) || t.id == LM_TYPE_DECIMAL128;
  case 'S':
    return t.id == LM_TYPE_TIMESTAMP || t.id == LM_TYPE_UTF8 || is_null(t);
  default: /* T, A */
    return true;
  }
}

/* Whether t is a string PostgreSQL's text functions take (text, varchar,
 * char(n); NULL), not json / jsonb nor a type without an implicit cast to
 * text. */
static bool pg_text(lm_type t) {
  return is_null(t) || ((t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_LARGE_UTF8) &&
                        !lm_type_is_json(t));
}

/* Whether argument x (AST ast) of function s fits the argument code as
 * PostgreSQL resolves it: a T argument must be a string (text, varchar,
 * char(n), an unknown literal or NULL), not a number, date, bytea, json or
 * array (PostgreSQL has no implicit cast to text from those: reverse(1) is
 * 42883); an S argument a timestamp, or a string only as an unknown literal
 * ('2020-01-01'), not a text column; to_timestamp's F argument may be an
 * unknown literal (read as float8), not a text-typed expression. The json
 * functions keep taking any first argument (the seed's text JSON). */
static bool pg_arg_fits(const pg_sig *s, char code, const lm_expr *ast,
                        const lm_bexpr *x) {
  lm_type t = x->type;
  bool unknown = lm_bind_is_unknown(ast, x);
  bool json_fn = !strncmp(s->name, "json", 4);
  switch (code) {
  case 'T':
    return json_fn || pg_text(t);
  case 'S':
    return t.id == LM_TYPE_TIMESTAMP || is_null(t) || unknown;
  case 'F':
    return arg_fits(code, t) || (s->fn == LM_FN_TO_TIMESTAMP && unknown);
  default:
    return arg_fits(code, t);
  }
}

static lm_type code_type(char code, lm_type n_type) {
  switch (code) {
  case 'I':
    return lm_type_make(LM_TYPE_INT64);
  case 'F':
    return lm_type_make(LM_TYPE_FLOAT64);
  case 'N':
    return n_type;
  case 'S':
    return lm_type_make(LM_TYPE_TIMESTAMP);
  case 'B':
    return lm_type_make(LM_TYPE_BOOL);
  case 'V':
    return lm_type_make(LM_TYPE_INTERVAL);
  case 'M':
    return lm_type_make(LM_TYPE_INTERVAL_MDN);
  default:
    return lm_type_make(LM_TYPE_UTF8);
  }
}

/* The common type of args[0..n) as PostgreSQL resolves GREATEST, LEAST,
 * NULLIF, COALESCE and CASE branches: the widest integer (SMALLINT,
 * INTEGER, BIGINT; an integer literal counts as INTEGER), REAL for REAL
 * with integers, DOUBLE when a DOUBLE is present (lm_bind_num_merge);
 * NULLs take the others' type; a string literal takes
 * the others' type. NULL type + err set when they cannot be matched. */
static bool common_type(lm_bctx *c, const lm_expr *e, lm_bexpr **args, int n,
                        lm_type *out) {
  lm_type t = lm_type_make(LM_TYPE_NULL);
  lm_bind_types_lits(c, args, n); /* bind_types.c */
  for (int i = 0; i < n; i++) {
    lm_type a = args[i]->type;
    if (is_null(a))
      continue;
    if (a.id == LM_TYPE_UTF8 && args[i]->kind == LM_BX_LITERAL)
      continue; /* unknown-typed literal: resolved below */
    /* an integer literal counts as INTEGER (bind_num.c) */
    if (is_num(a))
      a = lm_bind_num_type(args[i]);
    if (is_null(t))
      t = a;
    else if (is_num(t) && is_num(a))
      t = lm_bind_num_merge(t, a, false);
    else if (lm_bind_types_merge(t, a, &t)) /* bind_types.c */
      continue;
    else if (!lm_type_eq(t, a)) {
      char what[200], up[64]; /* PostgreSQL's GREATEST / COALESCE */
      size_t k = 0;
      for (; e->name[k] && k + 1 < sizeof up; k++)
        up[k] = (char)(e->name[k] >= 'a' && e->name[k] <= 'z' ? e->name[k] - 32
                                                              : e->name[k]);
      up[k] = 0;
      snprintf(what, sizeof what, "%s types %s and %s", up, pg_name(t),
               pg_name(a));
      lm_bind_fail(c, e->args[i], "%s cannot be matched", what, NULL);
      lm_err_state(c->err, "42804");
      return false;
    }
  }
  if (is_null(t))
    for (int i = 0; i < n && is_null(t); i++)
      if (!is_null(args[i]->type))
        t = args[i]->type;
  *out = lm_bind_num_real(t, args, n, 0); /* REAL kept (bind_num.c) */
  return true;
}

/* Whether one of args[0..n) is a NULL literal, which makes the strict
 * function r NULL: *z is then a NULL literal of r's type at e (NULL when
 * out of memory). */
static bool null_folds(lm_bctx *c, const lm_expr *e, const lm_bexpr *r,
                       lm_bexpr *const *args, int n, lm_bexpr **z) {
  for (int i = 0; i < n; i++)
    if (args[i]->kind == LM_BX_LITERAL && args[i]->lit.is_null) {
      *z = lm_bind_node(c, LM_BX_LITERAL, r->type, e, 0);
      if (*z) {
        (*z)->lit.type = r->type;
        (*z)->lit.is_null = true;
      }
      return true;
    }
  return false;
}

/* Binds the functions of pg_funcs and GREATEST / LEAST / NULLIF. Returns
 * false when `e` names none of them (nothing done); true otherwise, with
 * *out the complete node (arguments cast and filled in; possibly a folded
 * literal) or NULL with the error set. */
static bool pg_bind(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                    lm_bexpr **out) {
  const char *n = e->name;
  *out = NULL;
  if (!strcmp(n, "greatest") || !strcmp(n, "least") || !strcmp(n, "nullif")) {
    bool nullif = n[0] == 'n';
    if ((nullif && e->n_args != 2) || e->n_args < 1) {
      undefined_function(c, e, args);
      return true;
    }
    lm_type t;
    if (!common_type(c, e, args, e->n_args, &t))
      return true;
    lm_bexpr *first = args[0];
    /* NULLIF(a, b) is PostgreSQL's a = b operator's left input: a's own
     * type where the operator takes both types as they are (integers,
     * floats, dates and timestamps), else the common type (1 vs 1.5:
     * numeric) */
    lm_type rt = t;
    if (nullif) {
      lm_type fa = first->type, fb = args[1]->type;
      bool ints = lm_type_is_integer(fa) && lm_type_is_integer(fb);
      bool flts = is_float(fa) && is_float(fb);
      bool dt = (fa.id == LM_TYPE_DATE32 || fa.id == LM_TYPE_TIMESTAMP) &&
                (fb.id == LM_TYPE_DATE32 || fb.id == LM_TYPE_TIMESTAMP);
      if ((ints || flts || dt) && !lm_bind_is_unknown(e->args[0], first))
        rt = fa;
    }
    for (int i = 0; i < e->n_args; i++)
      if (!(args[i] = lm_bind_cast(c, args[i], t)))
        return true;
    /* NULLIF with a NULL constant argument is its first argument, the
     * other not evaluated (PostgreSQL's planner) */
    if (nullif && ((args[0]->kind == LM_BX_LITERAL && args[0]->lit.is_null) ||
                   (args[1]->kind == LM_BX_LITERAL && args[1]->lit.is_null))) {
      *out = args[0];
      return true;
    }
    bool own = nullif && !lm_type_eq(rt, t); /* the first, uncast */
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, rt, e, e->n_args + (own ? 1 : 0));
    if (r) {
      r->fn = nullif        ? LM_FN_NULLIF
              : n[0] == 'g' ? LM_FN_GREATEST
                            : LM_FN_LEAST;
      for (int i = 0; i < e->n_args; i++)
        r->args[i] = args[i];
      if (own)
        r->args[2] = first;
    }
    *out = r;
    return true;
  }
  bool named = false;
  for (size_t k = 0; k < sizeof pg_funcs / sizeof pg_funcs[0]; k++) {
    const pg_sig *s = &pg_funcs[k];
    if (strcmp(n, s->name))
      continue;
    named = true;
    if (e->n_args < s->lo || e->n_args > s->hi)
      continue;
    size_t na = strlen(s->args);
    bool ok = true;
    lm_type nt = lm_type_make(LM_TYPE_NULL);
    for (int i = 0; i < e->n_args && ok; i++) {
      char code = s->args[(size_t)i < na ? (size_t)i : na - 1];
      /* to_timestamp('1700000000'): the unknown literal is read as float8,
       * PostgreSQL's only one-argument to_timestamp; to_timestamp(text) is
       * 42883 as there */
      ok = pg_arg_fits(s, code, e->args[i], args[i]);
      if (code == 'N' && is_null(nt))
        nt = lm_type_make(is_int(args[i]->type) ? LM_TYPE_INT64
                                                : LM_TYPE_FLOAT64);
    }
    if (!ok)
      continue;
    if (is_null(nt))
      nt = lm_type_make(LM_TYPE_FLOAT64);
    for (int i = 0; i < e->n_args; i++) {
      char code = s->args[(size_t)i < na ? (size_t)i : na - 1];
      /* octet_length(CHAR(n)) counts the padding (PostgreSQL's
       * bpcharoctetlen); every other text function sees the text */
      if (s->fn == LM_FN_OCTET_LENGTH && lm_type_is_bpchar(args[i]->type))
        continue;
      /* concat_ws's values: a CHAR(n) keeps its padding (PostgreSQL's
       * output function of the value, not its cast to text) */
      if (s->fn == LM_FN_CONCAT_WS && i > 0 && lm_type_is_bpchar(args[i]->type))
        continue;
      if (!(args[i] = lm_bind_cast(c, args[i], code_type(code, nt))))
        return true;
    }
    lm_bexpr *r =
        lm_bind_node(c, LM_BX_FUNC, code_type(s->ret, nt), e, e->n_args);
    if (!r)
      return true;
    r->fn = s->fn;
    /* to_timestamp(epoch seconds) is TIMESTAMPTZ, as PostgreSQL (the same
     * UTC µs, printed and compared as an instant) */
    if (s->fn == LM_FN_TO_TIMESTAMP && e->n_args == 1)
      r->type = lm_type_timestamptz();
    for (int i = 0; i < e->n_args; i++)
      r->args[i] = args[i];
    /* literal regular expressions and flags are checked now */
    if ((s->fn >= LM_FN_REGEX_OP && s->fn <= LM_FN_REGEXP_SUBSTR) &&
        args[1]->kind == LM_BX_LITERAL && !args[1]->lit.is_null) {
      char msg[400];
      int fa = s->fn == LM_FN_REGEXP_REPLACE  ? 3 /* the flags */
               : s->fn == LM_FN_REGEXP_SUBSTR ? 4
                                              : 2;
      const lm_bexpr *f = e->n_args > fa ? args[fa] : NULL;
      bool flit = f && f->kind == LM_BX_LITERAL && !f->lit.is_null &&
                  f->type.id == LM_TYPE_UTF8;
      if ((!f || flit) &&
          lm_regex_check_pg(args[1]->lit.v.s.p, (size_t)args[1]->lit.v.s.len,
                            flit ? f->lit.v.s.p : NULL,
                            flit ? (size_t)f->lit.v.s.len : 0, msg,
                            sizeof msg)) {
        lm_bind_fail(c, e->args[1], "%s", msg, NULL);
        lm_err_state(c->err, "2201B");
        return true;
      }
    }
    /* strict functions of a NULL literal are NULL without evaluating the
     * other arguments (PostgreSQL folds them so when planning) */
    if (s->fn == LM_FN_CONCAT_WS || !null_folds(c, e, r, args, e->n_args, out))
      *out = r;
    /* to_timestamp(text, fmt) is TIMESTAMPTZ, as PostgreSQL: the fields
     * read are a wall-clock time in the session time zone */
    if (s->fn == LM_FN_TO_TIMESTAMP && e->n_args == 2 && *out) {
      if ((*out)->kind == LM_BX_FUNC) /* a TZH instant: read back local */
        (*out)->tz = lm_tz_session();
      *out = lm_bind_cast(c, *out, lm_type_timestamptz());
    }
    return true;
  }
  if (!named)
    return false;
  /* PostgreSQL's bytea trims and position(bytea IN bytea), which Laminar
   * does not have: not supported rather than "does not exist" */
  bool bytes = e->n_args == 2 && (!strcmp(n, "btrim") || !strcmp(n, "trim") ||
                                  !strcmp(n, "ltrim") || !strcmp(n, "rtrim") ||
                                  !strcmp(n, "position"));
  for (int i = 0; bytes && i < e->n_args; i++)
    bytes = args[i]->type.id == LM_TYPE_BINARY;
  if (bytes) {
    lm_bind_fail(c, e, "%s(bytea, bytea) is not supported", n, NULL);
    lm_err_state(c->err, "0A000");
    return true;
  }
  undefined_function(c, e, args);
  return true;
}

/* Whether x is a constant PostgreSQL would fold when planning: literals
 * under immutable operators and functions (not random(), setseed() or the
 * window functions). */
static bool is_const(const lm_bexpr *x) {
  switch (x->kind) {
  case LM_BX_LITERAL:
    return true;
  case LM_BX_COLUMN:
  case LM_BX_PARAM:
  case LM_BX_SUBQUERY:
    return false;
  case LM_BX_FUNC:
    if (x->fn == LM_FN_RANDOM || x->fn == LM_FN_SETSEED ||
        x->fn == LM_FN_GEN_RANDOM_UUID || x->fn == LM_FN_CLOCK_TIMESTAMP ||
        x->fn == LM_FN_TUMBLE || x->fn == LM_FN_TUMBLE_END ||
        (x->fn >= LM_FN_HOP && x->fn <= LM_FN_SESSION_END))
      return false;
    break;
  default:
    break;
  }
  for (int i = 0; i < x->n_args; i++)
    if (x->args[i] && !is_const(x->args[i]))
      return false;
  return true;
}

static _Thread_local int no_fold;

void lm_bind_no_fold(int delta) {
  no_fold += delta;
}

lm_bexpr *lm_bind_fold(lm_bctx *c, lm_bexpr *x) {
  if (!x || x->kind == LM_BX_LITERAL || !is_const(x))
    return x;
  /* CAST('text' AS t) is read when parsing in PostgreSQL, wherever it is */
  bool text_cast = x->kind == LM_BX_CAST && x->args[0]->kind == LM_BX_LITERAL &&
                   x->args[0]->type.id == LM_TYPE_UTF8;
  if (no_fold > 0 && !text_cast)
    return x;
  lm_type_id t = x->type.id;
  if (t != LM_TYPE_BOOL && t != LM_TYPE_INT64 && t != LM_TYPE_FLOAT64 &&
      t != LM_TYPE_INT32 && t != LM_TYPE_INT16 && t != LM_TYPE_FLOAT32 &&
      t != LM_TYPE_UTF8 && t != LM_TYPE_TIMESTAMP && t != LM_TYPE_INTERVAL &&
      !lm_bind_sql_type(x->type)) /* + DECIMAL, DATE, TIME, BYTEA */
    return x;
  lm_schema *s = lm_schema_new(0);
  lm_batch *b = s ? lm_batch_new(s, 1, NULL) : NULL;
  if (!b) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  lm_array *r = NULL;
  int rc = lm_eval(x, b, &r, c->err);
  lm_batch_release(b);
  if (rc)
    return NULL; /* PostgreSQL raises it when planning, too */
  lm_value v;
  lm_array_get_value(r, 0, &v);
  lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, x->type, NULL, 0);
  if (z) {
    z->line = x->line;
    z->column = x->column;
    z->lit = v;
    z->lit.type = x->type;
    z->pg_numeric = lm_bind_num_is_numeric(x); /* bind_num.c */
    if (!v.is_null && (t == LM_TYPE_UTF8 || t == LM_TYPE_BINARY)) {
      z->lit.v.s.p = lm_arena_strndup(c->arena, v.v.s.p, (size_t)v.v.s.len);
      if (!z->lit.v.s.p) {
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        z = NULL;
      }
    }
  }
  lm_array_release(r);
  return z;
}

lm_bexpr *lm_bind_other_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                           lm_bexpr *b) {
  if (!a || !b)
    return NULL;
  bool json = op == LM_OP_JSON_GET || op == LM_OP_JSON_GET_TEXT;
  if (!json && !arg_fits('T', b->type))
    return NULL;
  /* json -> k is json, jsonb -> k jsonb; over text (the seed's) text */
  lm_type jt =
      json && lm_type_is_json(a->type) ? a->type : lm_type_make(LM_TYPE_UTF8);
  a = lm_bind_cast(c, a, jt);
  if (!json || !is_int(b->type))
    b = lm_bind_cast(c, b, lm_type_make(LM_TYPE_UTF8));
  else
    b = lm_bind_cast(c, b, lm_type_make(LM_TYPE_INT64));
  if (!a || !b)
    return NULL;
  lm_bexpr *r = lm_bind_node(
      c, LM_BX_FUNC,
      op == LM_OP_JSON_GET ? jt
                           : lm_type_make(json ? LM_TYPE_UTF8 : LM_TYPE_BOOL),
      e, 2);
  if (!r)
    return NULL;
  r->fn = op == LM_OP_JSON_GET        ? LM_FN_JSON_GET
          : op == LM_OP_JSON_GET_TEXT ? LM_FN_JSON_GET_TEXT
                                      : LM_FN_REGEX_OP;
  r->icase = op == LM_OP_REGEX_I || op == LM_OP_NOT_REGEX_I;
  /* for -> / ->>, negated marks the operator form, where a text key names
   * only object members (the path functions also index arrays with it) */
  r->negated = op == LM_OP_NOT_REGEX || op == LM_OP_NOT_REGEX_I || json;
  r->args[0] = a;
  r->args[1] = b;
  if (!json && b->kind == LM_BX_LITERAL && !b->lit.is_null) {
    char msg[400];
    if (lm_regex_check_pg(b->lit.v.s.p, (size_t)b->lit.v.s.len, NULL, 0, msg,
                          sizeof msg)) {
      lm_bind_fail(c, e, "%s", msg, NULL);
      lm_err_state(c->err, "2201B");
      return NULL;
    }
  }
  return r;
}

/* substring(s FROM re) (PostgreSQL's textregexsubstr: the first capture
 * group's text, or the whole match), substring(s SIMILAR p ESCAPE e) and
 * substring(s FROM p FOR e) (the same over similar_to_escape(p, e), whose
 * #" separators make the group): LM_FN_REGEXP_SUBSTR with negated set. */
static lm_bexpr *substring_re(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  lm_type text = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *s = lm_bind_cast(c, args[0], text);
  lm_bexpr *re = lm_bind_cast(c, args[1], text);
  if (!s || !re)
    return NULL;
  if (e->n_args == 3) {
    lm_bexpr *esc = lm_bind_cast(c, args[2], text);
    lm_bexpr *f = esc ? lm_bind_node(c, LM_BX_FUNC, text, e, 2) : NULL;
    if (!f)
      return NULL;
    f->fn = LM_FN_SIMILAR_ESCAPE;
    f->args[0] = re;
    f->args[1] = esc;
    if (!(re = lm_bind_fold(c, f)))
      return NULL;
  }
  if (re->kind == LM_BX_LITERAL && !re->lit.is_null) {
    char msg[400];
    if (lm_regex_check_pg(re->lit.v.s.p, (size_t)re->lit.v.s.len, NULL, 0, msg,
                          sizeof msg)) {
      lm_bind_fail(c, e->args[1], "%s", msg, NULL);
      lm_err_state(c->err, "2201B");
      return NULL;
    }
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, text, e, 2);
  if (!r)
    return NULL;
  r->fn = LM_FN_REGEXP_SUBSTR;
  r->negated = true;
  r->args[0] = s;
  r->args[1] = re;
  return r;
}

lm_bexpr *lm_bind_func(lm_bctx *c, const lm_expr *e) {
  const char *n = e->name;
  if (!strcmp(n, "make_timestamptz") && (e->n_args == 6 || e->n_args == 7))
    return lm_bind_make_tstz(c, e); /* mktstz_bind.c */
  if ((!strcmp(n, "to_json") || !strcmp(n, "to_jsonb") ||
       !strcmp(n, "row_to_json")) &&
      e->n_args == 1) { /* to_json(t) of a whole row: whole_row_bind.c */
    lm_expr *w = lm_whole_row_json(c, e->args[0]);
    if (w && n[7] == 'b')
      w->cast_type = lm_type_json(true);
    if (w)
      return lm_bind_expr(c, w);
    if (c->err->code)
      return NULL;
  }
  if (!strcmp(n, "row")) { /* rows: sql/row_expr.c, row_count_bind.c */
    lm_bind_fail(c, e,
                 "row values (records) are supported in comparisons, IN, IS "
                 "[NOT] NULL, IS [NOT] DISTINCT FROM and count(), not as a "
                 "value",
                 NULL, NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  if (!strncmp(n, "json:agg_item", 13) && e->n_args == 1) {
    /* json_agg(t) OVER (...) of a whole row (api/over_json.c): the row as
     * an object, a line break before it but the first as json_agg's */
    lm_expr *w = lm_whole_row_json(c, e->args[0]);
    if (w) {
      lm_expr *ne = lm_arena_alloc(c->arena, sizeof *ne);
      lm_expr **na = lm_arena_alloc(c->arena, sizeof *na);
      if (!ne || !na) {
        lm_err(c->err, LM_ERR_NOMEM, "out of memory");
        return NULL;
      }
      *ne = *e;
      na[0] = w;
      ne->args = na;
      if (!strcmp(n, "json:agg_item_auto"))
        ne->name = "json:agg_item_nl";
      return lm_bind_func(c, ne);
    }
    if (c->err->code)
      return NULL;
  }
  /* PostgreSQL's FUNC_MAX_ARGS: 100 arguments per call; at least 8 slots
   * so the checks below may read args[1..7] of a shorter call as NULL */
  if (e->n_args > 100 && strcmp(n, "coalesce") && strcmp(n, "greatest") &&
      strcmp(n, "least")) { /* these three are expressions in PostgreSQL */
    lm_bind_fail(c, e, "cannot pass more than 100 arguments to a function",
                 NULL, NULL);
    lm_err_state(c->err, "54023");
    return NULL;
  }
  lm_bexpr **args =
      lm_arena_alloc(c->arena, sizeof *args * (size_t)LM_MAX(e->n_args, 8));
  if (!args) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(args, 0, sizeof *args * (size_t)LM_MAX(e->n_args, 8));
  bool coalesce = !strcmp(n, "coalesce"), decided = false;
  for (int i = 0; i < e->n_args; i++) {
    if (e->args[i]->kind == LM_EXPR_STAR) {
      lm_bind_fail(c, e->args[i], "'*' is only allowed in COUNT(*)", NULL,
                   NULL);
      return NULL;
    }
    lm_bind_no_fold(decided);
    args[i] = lm_bind_expr(c, e->args[i]);
    lm_bind_no_fold(-(int)decided);
    if (!args[i])
      return NULL;
    /* after a non-NULL constant, COALESCE's arguments are not evaluated */
    decided |=
        coalesce && args[i]->kind == LM_BX_LITERAL && !args[i]->lit.is_null;
  }
  if (!strcmp(n, "pg_typeof") && e->n_args == 1)
    return lm_bind_pg_typeof(c, e, args[0]); /* bind_num.c */
  lm_bexpr *r = NULL;
  if (lm_bind_json_func(c, e, args, &r)) /* json / jsonb (json_bind.c) */
    return r;
  if (lm_bind_decmath(c, e, args, &r)) /* numeric sqrt, ln, log, exp, power */
    return r;                          /* (decmath_bind.c) */
  if (e->n_args >= 1 && (args[0]->type.id == LM_TYPE_DECIMAL128 ||
                         args[0]->type.id == LM_TYPE_BINARY)) {
    bool handled = false; /* DECIMAL / BYTEA functions (bind_types.c) */
    r = lm_bind_types_func(c, e, args, &handled);
    if (handled)
      return r;
  }
  lm_func_id wfn;
  int wmin, wmax;
  const char *wsig;
  if (window_func(n, &wfn, &wmin, &wmax, &wsig)) {
    if (e->n_args < wmin || e->n_args > wmax) {
      lm_bind_fail(c, e, "%s takes the arguments %s", n, wsig);
      return NULL;
    }
    if ((wfn == LM_FN_SESSION || wfn == LM_FN_SESSION_END) && !c->window_ok) {
      lm_bind_fail(
          c, e,
          "%s() is only allowed in GROUP BY (and, when grouped by, in the "
          "select list)",
          n, NULL);
      return NULL;
    }
    if (args[0]->type.id != LM_TYPE_TIMESTAMP) {
      lm_bind_fail(c, e->args[0],
                   "%s() needs a TIMESTAMP time column, found %s", n,
                   lm_type_name(args[0]->type));
      return NULL;
    }
    int64_t iv[3] = {0, 0, 0};
    for (int i = 1; i < e->n_args; i++)
      if (!const_interval(c, e->args[i], args[i], &iv[i - 1]))
        return NULL;
    /* sizes (all but a trailing offset) must be positive */
    int n_sizes = wfn == LM_FN_TUMBLE || wfn == LM_FN_TUMBLE_END ||
                          wfn == LM_FN_SESSION || wfn == LM_FN_SESSION_END
                      ? 1
                      : 2;
    for (int i = 0; i < n_sizes; i++)
      if (iv[i] <= 0) {
        lm_bind_fail(c, e->args[i + 1],
                     wfn == LM_FN_SESSION || wfn == LM_FN_SESSION_END
                         ? "session gap must be positive"
                         : "window size must be positive",
                     NULL, NULL);
        return NULL;
      }
    if ((wfn == LM_FN_CUMULATE || wfn == LM_FN_CUMULATE_END) &&
        iv[1] % iv[0] != 0) {
      lm_bind_fail(
          c, e->args[2],
          "cumulate(ts, step, max_size): max_size must be a multiple of step",
          NULL, NULL);
      return NULL;
    }
    /* window bounds keep the time column's type: TIMESTAMPTZ bounds are
     * UTC instants printed in the session zone (docs/timezones.md) */
    r = lm_bind_node(c, LM_BX_FUNC,
                     lm_type_is_tstz(args[0]->type)
                         ? lm_type_timestamptz()
                         : lm_type_make(LM_TYPE_TIMESTAMP),
                     e, e->n_args);
    if (!r)
      return NULL;
    r->fn = wfn;
  } else if (lm_bind_datefn(c, e, args, &r)) { /* datefn_bind.c */
    return r;
  } else if (pg_bind(c, e, args, &r)) {
    return r; /* complete (arguments filled), or NULL with err set */
  } else if (lm_bind_func2(c, e, args, &r)) { /* func_bind2.c */
    return r;
  } else if (lm_bind_fn5(c, e, args, &r)) { /* fn5_bind.c */
    return r;
  } else if (!strcmp(n, "abs") || !strcmp(n, "round") || !strcmp(n, "floor") ||
             !strcmp(n, "ceil") || !strcmp(n, "ceiling")) {
    bool two = e->n_args == 2 && !strcmp(n, "round");
    if (e->n_args >= 1 &&
        (args[0]->type.id == LM_TYPE_NULL || /* abs(NULL) */
         lm_bind_is_unknown(e->args[0], args[0])) &&
        !(args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_FLOAT64))))
      return NULL; /* round('a'): float8's 22P02, as PostgreSQL */
    if (two && args[1]->type.id == LM_TYPE_NULL) /* round(x, NULL): NULL */
      args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_INT64));
    if ((e->n_args != 1 && !two) || !args[0] || !is_num(args[0]->type) ||
        (two && !is_int(args[1]->type))) {
      undefined_function(c, e, args); /* round(text, int): 42883 */
      return NULL;
    }
    /* PostgreSQL: abs keeps the integer type; round / floor / ceil of an
     * integer go through float8 (round(x, n) through numeric: BIGINT) */
    bool f64 = is_float(args[0]->type) || (!two && strcmp(n, "abs"));
    lm_type t = lm_type_make(f64 ? LM_TYPE_FLOAT64 : LM_TYPE_INT64);
    lm_type_id at = args[0]->type.id;
    if (!strcmp(n, "abs") && (at == LM_TYPE_INT8 || at == LM_TYPE_INT16 ||
                              at == LM_TYPE_INT32 || at == LM_TYPE_FLOAT32))
      t = lm_type_make(at == LM_TYPE_INT8 ? LM_TYPE_INT16 : at); /* int2abs */
    args[0] = lm_bind_cast(c, args[0], t);
    if (two)
      args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_INT64));
    r = lm_bind_node(c, LM_BX_FUNC, t, e, e->n_args);
    if (!r)
      return NULL;
    /* PostgreSQL rounds float8 half to even (rint) but numeric half away
     * from zero; decimal literals are numeric there (DOUBLE here), so an
     * argument made only of literals and integers rounds half away. */
    r->negated = numeric_origin(args[0]) && !explicit_float(e->args[0]);
    r->fn = !strcmp(n, "abs")     ? LM_FN_ABS
            : !strcmp(n, "round") ? LM_FN_ROUND
            : !strcmp(n, "floor") ? LM_FN_FLOOR
                                  : LM_FN_CEIL;
  } else if (!strcmp(n, "lower") || !strcmp(n, "upper") ||
             !strcmp(n, "length") || !strcmp(n, "char_length")) {
    /* PostgreSQL: text (bytea for length, bind_types.c) only, no implicit
     * cast from a number, boolean, date/time, json or array: upper(numeric)
     * and upper(jsonb) are 42883 */
    if (e->n_args != 1 || !pg_text(args[0]->type)) {
      undefined_function(c, e, args);
      return NULL;
    }
    args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_UTF8));
    bool len = n[0] == 'l' && n[1] == 'e';
    len = len || n[0] == 'c';
    r = lm_bind_node(c, LM_BX_FUNC,
                     lm_type_make(len ? LM_TYPE_INT64 : LM_TYPE_UTF8), e, 1);
    if (!r)
      return NULL;
    r->fn =
        len ? LM_FN_LENGTH : (!strcmp(n, "lower") ? LM_FN_LOWER : LM_FN_UPPER);
  } else if (!strcmp(n, "date_trunc") || !strcmp(n, "date_part") ||
             !strcmp(n, "extract")) {
    bool trunc = !strcmp(n, "date_trunc");
    /* a unit that is not a constant string is read per row (expr_eval.c) */
    bool unit_row =
        (e->n_args == 2 || (trunc && e->n_args == 3)) &&
        !(args[0]->kind == LM_BX_LITERAL && args[0]->type.id == LM_TYPE_UTF8 &&
          !args[0]->lit.is_null) &&
        (args[0]->type.id == LM_TYPE_UTF8 || is_null(args[0]->type));
    if (unit_row &&
        !(args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_UTF8))))
      return NULL;
    /* date_trunc(unit, DATE) is date_trunc(unit, TIMESTAMPTZ) of the date's
     * midnight in the session time zone, as PostgreSQL (the only candidate
     * a date casts to implicitly); a per-row unit truncates the midnight
     * and makes the result TIMESTAMPTZ the same way */
    bool date_tz = trunc && args[1]->type.id == LM_TYPE_DATE32;
    if (date_tz && !unit_row &&
        !(args[1] = lm_bind_cast(c, args[1], lm_type_timestamptz())))
      return NULL;
    if (!unit_row &&
        ((e->n_args != 2 && !(trunc && e->n_args == 3)) ||
         args[0]->kind != LM_BX_LITERAL || args[0]->type.id != LM_TYPE_UTF8 ||
         args[0]->lit.is_null)) {
      lm_bind_fail(c, e, "%s('unit', timestamp) needs a string literal unit", n,
                   NULL);
      return NULL;
    }
    if (args[1]->type.id == LM_TYPE_DATE32 ||
        (args[1]->type.id == LM_TYPE_TIME64 && !trunc))
      /* a DATE is its midnight, a TIME that time on 1970-01-01 */
      args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_TIMESTAMP));
    if (!args[1])
      return NULL;
    if (args[1]->type.id != LM_TYPE_TIMESTAMP && !is_null(args[1]->type)) {
      /* PostgreSQL: an unknown literal fits several candidates (42725),
       * any other type none (42883) */
      bool unknown = lm_bind_is_unknown(e->args[1], args[1]);
      char what[80];
      snprintf(what, sizeof what, "%s%s(%s, %s)",
               e->extract_syntax ? "pg_catalog." : "",
               e->extract_syntax ? "extract" : n,
               lm_bind_pg_type_of(e->args[0], args[0]),
               lm_bind_pg_type_of(e->args[1], args[1]));
      lm_bind_fail(c, e,
                   unknown ? "function %s is not unique"
                           : "function %s does not exist",
                   what, NULL);
      lm_err_state(c->err, unknown ? "42725" : "42883");
      lm_err_hint(c->err,
                  unknown
                      ? "Could not choose a best candidate function. You "
                        "might need to add explicit type casts."
                      : "No function matches the given name and argument "
                        "types. You might need to add explicit type casts.");
      return NULL;
    }
    if (unit_row && lm_type_is_tstz(args[1]->type)) {
      lm_bind_fail(c, e->args[0],
                   "%s() with a unit that is not a constant needs a timestamp "
                   "without time zone",
                   n, NULL);
      lm_err_state(c->err, "0A000");
      return NULL;
    }
    if (unit_row) {
      r = lm_bind_node(
          c, LM_BX_FUNC,
          lm_type_make(trunc ? LM_TYPE_TIMESTAMP : LM_TYPE_FLOAT64), e, 2);
      if (!r)
        return NULL;
      r->fn = trunc ? LM_FN_DATE_TRUNC : LM_FN_DATE_PART;
      r->args[0] = args[0];
      r->args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_TIMESTAMP));
      lm_bexpr *z = NULL;
      if (!r->args[1])
        return NULL;
      z = null_folds(c, e, r, r->args, 2, &z) ? z : r;
      return date_tz && z ? lm_bind_cast(c, z, lm_type_timestamptz()) : z;
    }
    /* TIMESTAMPTZ: fields in a zone (bind_types.c) */
    const struct lm_tz *tz = NULL;
    lm_bexpr *tzdone = NULL;
    int tzr = lm_bind_tz_part(c, e, args, trunc, &tz, &tzdone);
    if (tzr)
      return tzr > 0 ? tzdone : NULL;
    const char *u = args[0]->lit.v.s.p;
    static const char *const trunc_units[] = {
        "microsecond", "millisecond", "second",     "minute",  "hour",
        "day",         "week",        "month",      "quarter", "year",
        "decade",      "century",     "millennium", NULL};
    static const char *const part_units[] = {
        "microsecond", "millisecond", "second",  "minute", "hour",
        "day",         "month",       "quarter", "year",   "dow",
        "isodow",      "doy",         "epoch",   "decade", "century",
        "millennium",  "week",        "isoyear", "julian", NULL};
    const char *const *units = trunc ? trunc_units : part_units;
    bool ok = false, dbl = false;
    int ui = -1; /* the unit's index */
    for (int i = 0; units[i] && !ok; i++) {
      size_t l = strlen(units[i]);
      ok = !lm_strcasecmp(u, units[i]) ||
           (!strncasecmp(u, units[i], l) && (u[l] == 's' || u[l] == 'S') &&
            !u[l + 1]);
      ui = ok ? i : ui;
      dbl = ok && !trunc && i <= 2; /* microsecond, millisecond, second */
      if (ok && !trunc && !lm_strcasecmp(u, "epoch"))
        dbl = true;
    }
    if (!ok) {
      /* PostgreSQL's wording and invalid_parameter_value */
      char m[200];
      snprintf(m, sizeof m, "unit \"%.80s\" not recognized for type %%s", u);
      lm_bind_fail(c, e->args[0], m, lm_pg_type_name(args[1]->type), NULL);
      lm_err_state(c->err, "22023");
      return NULL;
    }
    lm_bexpr *src = args[1]; /* the TIMESTAMPTZ, for date_trunc below */
    args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_TIMESTAMP));
    if (tz && args[1] && args[1]->kind == LM_BX_CAST)
      args[1]->tz = tz;
    /* PostgreSQL: date_part is double precision, EXTRACT numeric */
    (void)dbl;
    lm_type t = lm_type_make(trunc ? LM_TYPE_TIMESTAMP : LM_TYPE_FLOAT64);
    r = lm_bind_node(c, LM_BX_FUNC, t, e, 2);
    if (!r)
      return NULL;
    r->fn = trunc ? LM_FN_DATE_TRUNC : LM_FN_DATE_PART;
    if (tz && trunc) { /* truncated local time, back to an instant */
      if (!args[1])
        return NULL;
      r->args[0] = args[0];
      r->args[1] = args[1];
      if (ui >= 0 && ui <= 4) {
        /* below a day PostgreSQL (timestamptz_trunc_internal) converts the
         * truncated local time back with the input's own offset, not by
         * the zone's rule (which differs in a DST overlap or after a
         * gap): source - (local - date_trunc(unit, local)) */
        lm_bexpr *d = lm_bind_binary(c, e, LM_OP_SUB, args[1], r);
        return d ? lm_bind_binary(c, e, LM_OP_SUB, src, d) : NULL;
      }
      lm_bexpr *w = lm_bind_cast(c, r, lm_type_timestamptz());
      if (w)
        w->tz = tz;
      return w;
    }
  } else if (!strcmp(n, "timezone")) {   /* x AT TIME ZONE zone */
    return lm_bind_timezone(c, e, args); /* bind_types.c */
  } else if (!strcmp(n, "trim") || !strcmp(n, "ltrim") || !strcmp(n, "rtrim") ||
             !strcmp(n, "btrim") || !strcmp(n, "replace") ||
             !strcmp(n, "concat")) {
    bool rep = !strcmp(n, "replace"), cat = !strcmp(n, "concat");
    if ((rep && e->n_args != 3) || (cat && e->n_args < 1) ||
        (!rep && !cat && e->n_args != 1)) {
      lm_bind_fail(c, e,
                   rep   ? "%s(string, from, to) takes 3 arguments"
                   : cat ? "%s() needs at least one argument"
                         : "%s(string) takes one argument",
                   n, NULL);
      return NULL;
    }
    /* PostgreSQL's trims and replace take text only (replace(1, ...) is
     * 42883); concat any value */
    for (int i = 0; !cat && i < e->n_args; i++)
      if (!pg_text(args[i]->type)) {
        undefined_function(c, e, args);
        return NULL;
      }
    /* concat keeps a CHAR(n)'s padding (PostgreSQL's output of the value) */
    for (int i = 0; i < e->n_args; i++)
      if (!(cat && lm_type_is_bpchar(args[i]->type)))
        args[i] = lm_bind_cast(c, args[i], lm_type_make(LM_TYPE_UTF8));
    r = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_UTF8), e, e->n_args);
    if (!r)
      return NULL;
    r->fn = rep                   ? LM_FN_REPLACE
            : cat                 ? LM_FN_CONCAT
            : !strcmp(n, "ltrim") ? LM_FN_LTRIM
            : !strcmp(n, "rtrim") ? LM_FN_RTRIM
                                  : LM_FN_TRIM;
  } else if (!strcmp(n, "substring") && e->n_args >= 2 && e->n_args <= 3 &&
             (args[1]->type.id == LM_TYPE_UTF8 ||
              (args[1]->type.id == LM_TYPE_NULL && e->n_args == 3)) &&
             (e->n_args == 2 || args[2]->type.id == LM_TYPE_UTF8 ||
              args[2]->type.id == LM_TYPE_NULL)) {
    return substring_re(c, e, args); /* substring(s FROM re), SIMILAR */
  } else if (!strcmp(n, "substr") || !strcmp(n, "substring")) {
    if (e->n_args < 2 || e->n_args > 3 || !is_int(args[1]->type) ||
        (e->n_args == 3 && !is_int(args[2]->type)) ||
        !(pg_text(args[0]->type) || args[0]->type.id == LM_TYPE_BINARY)) {
      undefined_function(c, e, args); /* substr(text): 42883 */
      return NULL;
    }
    args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_UTF8));
    for (int i = 1; i < e->n_args; i++)
      args[i] = lm_bind_cast(c, args[i], lm_type_make(LM_TYPE_INT64));
    r = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_UTF8), e, e->n_args);
    if (!r)
      return NULL;
    r->fn = LM_FN_SUBSTR;
  } else if (!strcmp(n, "coalesce")) {
    if (e->n_args < 1) {
      lm_bind_fail(c, e, "coalesce() needs at least one argument", NULL, NULL);
      return NULL;
    }
    lm_type t = lm_type_make(LM_TYPE_NULL);
    lm_bind_types_lits(c, args, e->n_args); /* bind_types.c */
    bool unknown = false; /* quoted literals take the others' type */
    for (int i = 0; i < e->n_args; i++) {
      lm_type a = args[i]->type;
      if (is_null(a))
        continue;
      if (lm_bind_is_unknown(e->args[i], args[i])) {
        unknown = true;
        continue;
      }
      /* an integer literal counts as INTEGER (bind_num.c) */
      if (is_num(a))
        a = lm_bind_num_type(args[i]);
      if (is_null(t))
        t = a;
      else if (is_num(t) && is_num(a))
        t = lm_bind_num_merge(t, a, false);
      else if (lm_bind_types_merge(t, a, &t)) /* bind_types.c */
        continue;
      else if (!lm_type_eq(t, a)) {
        lm_bind_fail(c, e->args[i], "coalesce() arguments have types %s and %s",
                     lm_type_name(t), lm_type_name(a));
        return NULL;
      }
    }
    for (int i = 0; unknown && i < e->n_args; i++)
      if (lm_bind_is_unknown(e->args[i], args[i]) &&
          lm_bind_unknown_member(c, e->args[i], args[i], &t))
        return NULL;                             /* bind_pgerr.c */
    t = lm_bind_num_real(t, args, e->n_args, 0); /* bind_num.c */
    r = lm_bind_node(c, LM_BX_FUNC, t, e, e->n_args);
    if (!r)
      return NULL;
    r->fn = LM_FN_COALESCE;
    for (int i = 0; i < e->n_args; i++) {
      /* a quoted literal converts when bound (PostgreSQL: 22P02 even if
       * never reached) */
      bool u = unknown && lm_bind_is_unknown(e->args[i], args[i]);
      args[i] = lm_bind_cast(c, args[i], t);
      if (u && args[i] && !(args[i] = lm_bind_fold(c, args[i])))
        return NULL;
    }
  } else if (!strcmp(n, "mod")) { /* Flink / PostgreSQL MOD(a, b) = a % b */
    if (e->n_args != 2) {
      lm_bind_fail(c, e, "mod(a, b) takes 2 arguments", NULL, NULL);
      return NULL;
    }
    return lm_bind_binary(c, e, LM_OP_MOD, args[0], args[1]);
  } else if (!strcmp(n, "hour") || !strcmp(n, "minute") ||
             !strcmp(n, "second")) {
    /* Flink's HOUR(ts) etc. = date_part('hour', ts), BIGINT */
    if (e->n_args != 1 ||
        (args[0]->type.id != LM_TYPE_TIMESTAMP && !is_null(args[0]->type))) {
      lm_bind_fail(c, e, "%s() takes one TIMESTAMP argument", n, NULL);
      return NULL;
    }
    lm_bexpr *u =
        lm_bind_node(c, LM_BX_LITERAL, lm_type_make(LM_TYPE_UTF8), e, 0);
    if (!u)
      return NULL;
    u->lit.type = u->type;
    u->lit.v.s.p = lm_arena_strndup(c->arena, n, strlen(n));
    u->lit.v.s.len = (int32_t)strlen(n);
    if (!u->lit.v.s.p) {
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
    args[1] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_TIMESTAMP));
    args[0] = u;
    r = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_INT64), e, 2);
    if (!r)
      return NULL;
    r->fn = LM_FN_DATE_PART;
  } else if (!strcmp(n, "date_format") || !strcmp(n, "regexp_extract") ||
             !strcmp(n, "split_index") || !strcmp(n, "count_char")) {
    bool df = n[0] == 'd', re = n[0] == 'r', sp = n[1] == 'p';
    int lo = re ? 2 : 2, hi = re || sp ? 3 : 2;
    if (sp)
      lo = 3;
    if (e->n_args < lo || e->n_args > hi) {
      lm_bind_fail(c, e, "%s takes the arguments %s", n,
                   df   ? "(timestamp, 'pattern')"
                   : re ? "(string, regex [, group])"
                   : sp ? "(string, delimiter, index)"
                        : "(string, character)");
      return NULL;
    }
    if (df && args[0]->type.id != LM_TYPE_TIMESTAMP &&
        !is_null(args[0]->type)) {
      lm_bind_fail(c, e->args[0], "date_format() needs a TIMESTAMP, found %s",
                   lm_type_name(args[0]->type), NULL);
      return NULL;
    }
    int int_arg = re ? 2 : sp ? 2 : -1; /* group / index */
    if (int_arg >= 0 && int_arg < e->n_args && !is_int(args[int_arg]->type) &&
        !is_null(args[int_arg]->type)) {
      lm_bind_fail(c, e->args[int_arg], "%s() needs an integer %s", n,
                   re ? "group number" : "index");
      return NULL;
    }
    for (int i = df ? 1 : 0; i < e->n_args; i++)
      args[i] = lm_bind_cast(
          c, args[i],
          lm_type_make(i == int_arg ? LM_TYPE_INT64 : LM_TYPE_UTF8));
    if (df)
      args[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_TIMESTAMP));
    for (int i = 0; i < e->n_args; i++)
      if (!args[i])
        return NULL;
    /* literal patterns are checked now, with their position */
    lm_bexpr *pat = args[1];
    if ((df || re) && pat->kind == LM_BX_LITERAL && !pat->lit.is_null) {
      char bad = 0, msg[400];
      struct pcre2_real_code_8 *code = NULL;
      if (df && !lm_date_format_valid(pat->lit.v.s.p, &bad)) {
        char b[2] = {bad, 0};
        lm_bind_fail(
            c, e->args[1],
            bad == '\'' ? "date_format(): unterminated quote in the pattern%s"
                        : "date_format(): pattern letter '%s' is not supported "
                          "(supported: y M d H m s S; no month names)",
            bad == '\'' ? "" : b, NULL);
        return NULL;
      }
      if (re) {
        if (lm_regex_compile(pat->lit.v.s.p, (size_t)pat->lit.v.s.len, &code,
                             msg, sizeof msg)) {
          lm_bind_fail(c, e->args[1], "regexp_extract(): %s", msg, NULL);
          return NULL;
        }
        lm_regex_free(code);
      }
    }
    r = lm_bind_node(c, LM_BX_FUNC,
                     lm_type_make(n[0] == 'c' ? LM_TYPE_INT64 : LM_TYPE_UTF8),
                     e, e->n_args);
    if (!r)
      return NULL;
    r->fn = df   ? LM_FN_DATE_FORMAT
            : re ? LM_FN_REGEXP_EXTRACT
            : sp ? LM_FN_SPLIT_INDEX
                 : LM_FN_COUNT_CHAR;
  } else if (lm_bind_is_agg_name(n)) {
    lm_bind_fail(c, e, "aggregate function %s() is not allowed here", n, NULL);
    return NULL;
  } else {
    undefined_function(c, e, args);
    return NULL;
  }
  for (int i = 0; i < r->n_args; i++) {
    if (!args[i])
      return NULL;
    r->args[i] = args[i];
  }
  /* the strict PostgreSQL built-ins of a NULL literal are NULL, the other
   * arguments not evaluated (PostgreSQL folds them so when planning) */
  bool strict =
      r->kind == LM_BX_FUNC &&
      (r->fn == LM_FN_ABS || r->fn == LM_FN_ROUND || r->fn == LM_FN_FLOOR ||
       r->fn == LM_FN_CEIL || r->fn == LM_FN_LOWER || r->fn == LM_FN_UPPER ||
       r->fn == LM_FN_LENGTH || r->fn == LM_FN_SUBSTR ||
       r->fn == LM_FN_DATE_TRUNC || r->fn == LM_FN_DATE_PART ||
       (r->fn >= LM_FN_TRIM && r->fn <= LM_FN_REPLACE));
  lm_bexpr *z = NULL;
  if (strict && null_folds(c, e, r, r->args, r->n_args, &z))
    return z;
  return r;
}
