/*
 * Scalar function binding: name resolution, argument checks and casts, and
 * result types for every built-in scalar function (window functions,
 * math, strings, dates, the Flink / Nexmark functions).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_strfn.h" /* literal date_format / regex checks */
#include "plan/bind_internal.h"

static lm_bexpr *const_interval(lm_bctx *c, const lm_expr *e, lm_bexpr *x,
                                int64_t *out) {
  if (!x)
    return NULL;
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

lm_bexpr *lm_bind_func(lm_bctx *c, const lm_expr *e) {
  const char *n = e->name;
  lm_bexpr *args[8] = {0};
  if (e->n_args > 8) {
    lm_bind_fail(c, e, "too many arguments to %s()", n, NULL);
    return NULL;
  }
  for (int i = 0; i < e->n_args; i++) {
    if (e->args[i]->kind == LM_EXPR_STAR) {
      lm_bind_fail(c, e->args[i], "'*' is only allowed in COUNT(*)", NULL,
                   NULL);
      return NULL;
    }
    args[i] = lm_bind_expr(c, e->args[i]);
    if (!args[i])
      return NULL;
  }
  lm_bexpr *r = NULL;
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
        lm_bind_fail(c, e->args[i + 1], "window size must be positive", NULL,
                     NULL);
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
    r = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_TIMESTAMP), e,
                     e->n_args);
    if (!r)
      return NULL;
    r->fn = wfn;
  } else if (!strcmp(n, "abs") || !strcmp(n, "round") || !strcmp(n, "floor") ||
             !strcmp(n, "ceil") || !strcmp(n, "ceiling")) {
    bool two = e->n_args == 2 && !strcmp(n, "round");
    if ((e->n_args != 1 && !two) || !is_num(args[0]->type) ||
        (two && !is_int(args[1]->type))) {
      lm_bind_fail(c, e,
                   !strcmp(n, "round")
                       ? "round() takes a number and optionally an "
                         "integer count of decimal places"
                       : "%s() takes one numeric argument",
                   n, NULL);
      return NULL;
    }
    lm_type t =
        lm_type_make(is_float(args[0]->type) ? LM_TYPE_FLOAT64 : LM_TYPE_INT64);
    args[0] = lm_bind_cast(c, args[0], t);
    if (two)
      args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_INT64));
    r = lm_bind_node(c, LM_BX_FUNC, t, e, e->n_args);
    if (!r)
      return NULL;
    r->fn = !strcmp(n, "abs")     ? LM_FN_ABS
            : !strcmp(n, "round") ? LM_FN_ROUND
            : !strcmp(n, "floor") ? LM_FN_FLOOR
                                  : LM_FN_CEIL;
  } else if (!strcmp(n, "lower") || !strcmp(n, "upper") ||
             !strcmp(n, "length") || !strcmp(n, "char_length")) {
    if (e->n_args != 1) {
      lm_bind_fail(c, e, "%s() takes one argument", n, NULL);
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
    if (e->n_args != 2 || args[0]->kind != LM_BX_LITERAL ||
        args[0]->type.id != LM_TYPE_UTF8 || args[0]->lit.is_null) {
      lm_bind_fail(c, e, "%s('unit', timestamp) needs a string literal unit", n,
                   NULL);
      return NULL;
    }
    if (args[1]->type.id != LM_TYPE_TIMESTAMP && !is_null(args[1]->type)) {
      lm_bind_fail(c, e->args[1], "%s() needs a TIMESTAMP, found %s", n,
                   lm_type_name(args[1]->type));
      return NULL;
    }
    const char *u = args[0]->lit.v.s.p;
    static const char *const trunc_units[] = {
        "microsecond", "millisecond", "second",  "minute", "hour", "day",
        "week",        "month",       "quarter", "year",   NULL};
    static const char *const part_units[] = {
        "microsecond", "millisecond", "second",  "minute", "hour",
        "day",         "month",       "quarter", "year",   "dow",
        "isodow",      "doy",         "epoch",   NULL};
    const char *const *units = trunc ? trunc_units : part_units;
    bool ok = false, dbl = false;
    for (int i = 0; units[i] && !ok; i++) {
      size_t l = strlen(units[i]);
      ok = !lm_strcasecmp(u, units[i]) ||
           (!strncasecmp(u, units[i], l) && (u[l] == 's' || u[l] == 'S') &&
            !u[l + 1]);
      dbl = ok && !trunc && i <= 2; /* microsecond, millisecond, second */
      if (ok && !trunc && !lm_strcasecmp(u, "epoch"))
        dbl = true;
    }
    if (!ok) {
      lm_bind_fail(c, e->args[0], "unknown %s unit '%s'",
                   trunc ? "date_trunc" : n, u);
      return NULL;
    }
    args[1] = lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_TIMESTAMP));
    lm_type t = lm_type_make(trunc ? LM_TYPE_TIMESTAMP
                             : dbl ? LM_TYPE_FLOAT64
                                   : LM_TYPE_INT64);
    r = lm_bind_node(c, LM_BX_FUNC, t, e, 2);
    if (!r)
      return NULL;
    r->fn = trunc ? LM_FN_DATE_TRUNC : LM_FN_DATE_PART;
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
    for (int i = 0; i < e->n_args; i++)
      args[i] = lm_bind_cast(c, args[i], lm_type_make(LM_TYPE_UTF8));
    r = lm_bind_node(c, LM_BX_FUNC, lm_type_make(LM_TYPE_UTF8), e, e->n_args);
    if (!r)
      return NULL;
    r->fn = rep                   ? LM_FN_REPLACE
            : cat                 ? LM_FN_CONCAT
            : !strcmp(n, "ltrim") ? LM_FN_LTRIM
            : !strcmp(n, "rtrim") ? LM_FN_RTRIM
                                  : LM_FN_TRIM;
  } else if (!strcmp(n, "substr") || !strcmp(n, "substring")) {
    if (e->n_args < 2 || e->n_args > 3 || !is_int(args[1]->type) ||
        (e->n_args == 3 && !is_int(args[2]->type))) {
      lm_bind_fail(c, e, "%s(string, start [, count]) takes integer positions",
                   n, NULL);
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
    for (int i = 0; i < e->n_args; i++) {
      lm_type a = args[i]->type;
      if (is_null(a))
        continue;
      if (is_null(t))
        t = a;
      else if (is_num(t) && is_num(a))
        t = lm_type_make(is_float(t) || is_float(a) ? LM_TYPE_FLOAT64
                                                    : LM_TYPE_INT64);
      else if (!lm_type_eq(t, a)) {
        lm_bind_fail(c, e->args[i], "coalesce() arguments have types %s and %s",
                     lm_type_name(t), lm_type_name(a));
        return NULL;
      }
    }
    r = lm_bind_node(c, LM_BX_FUNC, t, e, e->n_args);
    if (!r)
      return NULL;
    r->fn = LM_FN_COALESCE;
    for (int i = 0; i < e->n_args; i++)
      args[i] = lm_bind_cast(c, args[i], t);
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
    lm_bind_fail(c, e, "function %s() does not exist", n, NULL);
    return NULL;
  }
  for (int i = 0; i < r->n_args; i++) {
    if (!args[i])
      return NULL;
    r->args[i] = args[i];
  }
  return r;
}
