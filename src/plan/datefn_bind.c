/*
 * plan/datefn_bind.c — binding of PostgreSQL's date/time functions that
 * need more than a fixed signature (func_bind.c calls lm_bind_datefn
 * first; docs/functions.md "Date and time"):
 *
 *   now(), current_timestamp[(p)], transaction_timestamp(),
 *   statement_timestamp()        the statement's start, TIMESTAMPTZ
 *   localtimestamp[(p)]          the same, local to the session zone
 *   current_date, current_time[(p)], localtime[(p)]
 *   clock_timestamp()            the wall clock, read for every row
 *   to_char(timestamp | timestamptz | date | interval | number, text)
 *   to_date(text, text), make_date, make_time, make_interval,
 *   justify_days / justify_hours / justify_interval,
 *   date_part / EXTRACT (field FROM interval)
 *
 * The statement-time functions are constants of the statement (PostgreSQL
 * gives every row, and every call in the statement, the same value): they
 * bind to a literal of lm_dt_now_us(), which laminar_execute fixes for the
 * statement. In a continuous query (CREATE STREAM / MATERIALIZED VIEW /
 * SINK) they are refused: see lm_bind_continuous.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_strfn.h" /* lm_pg_type_name */
#include "plan/bind_internal.h"

static _Thread_local bool continuous;

void lm_bind_continuous(bool on) {
  continuous = on;
}

static lm_bexpr *lit_i64(lm_bctx *c, const lm_expr *e, lm_type t, int64_t v) {
  lm_bexpr *z = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
  if (z) {
    z->lit.type = t;
    z->lit.is_null = false;
    z->lit.v.i = v;
  }
  return z;
}

static lm_type time_type(void) {
  return lm_type_unit(LM_TYPE_TIME64, LM_UNIT_MICRO);
}

/* v (µs, >= 0) rounded to p fractional digits, half away from zero
 * (PostgreSQL's AdjustTimestampForTypmod). */
static int64_t round_prec(int64_t v, int p) {
  if (p < 0 || p >= 6)
    return v;
  int64_t s = 1;
  for (int i = p; i < 6; i++)
    s *= 10;
  return v >= 0 ? (v + s / 2) / s * s : -((-v + s / 2) / s * s);
}

static const char *const stmt_fns[] = {"now",
                                       "current_timestamp",
                                       "transaction_timestamp",
                                       "statement_timestamp",
                                       "clock_timestamp",
                                       "current_date",
                                       "current_time",
                                       "localtimestamp",
                                       "localtime"};

/* The statement-time functions; *out as lm_bind_datefn. */
static bool bind_now(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                     lm_bexpr **out) {
  const char *n = e->name;
  int which = -1;
  for (int i = 0; i < (int)(sizeof stmt_fns / sizeof *stmt_fns); i++)
    if (!strcmp(n, stmt_fns[i]))
      which = i;
  if (which < 0)
    return false;
  *out = NULL;
  bool takes_prec = which == 1 || which >= 6;
  if (e->n_args > (takes_prec ? 1 : 0)) {
    lm_bind_fail(c, e, "%s() takes %s", n,
                 takes_prec ? "at most one argument, the precision"
                            : "no arguments");
    lm_err_state(c->err, "42883");
    return true;
  }
  if (continuous) {
    char what[40];
    snprintf(what, sizeof what, "%s%s", n,
             which != 1 && which <= 4 ? "()" : ""); /* keywords: no () */
    lm_bind_fail(
        c, e,
        "%s is not allowed here in a continuous query: its value would "
        "depend on when a row is processed. Use the event-time column, a "
        "source column declared AS PROCTIME(), or a temporal filter: a "
        "WHERE conjunct such as ts > now() - INTERVAL '10' SECOND (now() is "
        "then the watermark)",
        what, NULL);
    lm_err_state(c->err, "0A000");
    return true;
  }
  int prec = 6;
  if (e->n_args == 1) {
    lm_bexpr *x = lm_bind_fold(c, args[0]);
    if (!x)
      return true;
    if (x->kind != LM_BX_LITERAL || !lm_type_is_integer(x->type) ||
        x->lit.is_null) {
      lm_bind_fail(c, e->args[0],
                   "%s(p): the precision must be an integer "
                   "constant",
                   n, NULL);
      lm_err_state(c->err, "22023");
      return true;
    }
    if (x->lit.v.i < 0) {
      char what[80];
      snprintf(what, sizeof what, "%s(%lld)", n, (long long)x->lit.v.i);
      for (char *q = what; *q && *q != '('; q++)
        *q = (char)(*q >= 'a' && *q <= 'z' ? *q - 32 : *q);
      lm_bind_fail(c, e->args[0], "%s precision must not be negative", what,
                   NULL);
      lm_err_state(c->err, "22023");
      return true;
    }
    prec = x->lit.v.i > 6 ? 6 : (int)x->lit.v.i; /* PostgreSQL: 6 + WARNING */
  }
  if (which == 4) { /* clock_timestamp(): volatile, per row */
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, lm_type_timestamptz(), e, 0);
    if (r)
      r->fn = LM_FN_CLOCK_TIMESTAMP;
    *out = r;
    return true;
  }
  int64_t now = lm_dt_now_us();
  const lm_tz *z = lm_tz_session() ? lm_tz_session() : lm_tz_utc();
  int64_t local = lm_tz_to_local(z, now);
  int64_t day = lm_floor_div(local, LM_US_PER_DAY);
  switch (which) {
  case 5: /* current_date */
    *out = lit_i64(c, e, lm_type_make(LM_TYPE_DATE32), day);
    break;
  case 6: /* current_time: PostgreSQL's timetz; a TIME here */
  case 8: /* localtime */
    *out =
        lit_i64(c, e, time_type(),
                round_prec(local - day * LM_US_PER_DAY, prec) % LM_US_PER_DAY);
    break;
  case 7: /* localtimestamp */
    *out =
        lit_i64(c, e, lm_type_make(LM_TYPE_TIMESTAMP), round_prec(local, prec));
    break;
  default: /* now, current_timestamp, transaction_ / statement_timestamp */
    *out = lit_i64(c, e, lm_type_timestamptz(), round_prec(now, prec));
    break;
  }
  return true;
}

/* A FUNC node fn of type t over args[0..n) (already cast). */
static lm_bexpr *fn_node(lm_bctx *c, const lm_expr *e, lm_func_id fn, lm_type t,
                         lm_bexpr **args, int n) {
  for (int i = 0; i < n; i++)
    if (!args[i])
      return NULL;
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, t, e, n);
  if (!r)
    return NULL;
  r->fn = fn;
  for (int i = 0; i < n; i++)
    r->args[i] = args[i];
  return r;
}

static bool is_intish(lm_type t) {
  return lm_type_is_integer(t) || t.id == LM_TYPE_NULL;
}
static bool is_numish(lm_type t) {
  return lm_type_is_numeric(t) || t.id == LM_TYPE_NULL ||
         t.id == LM_TYPE_DECIMAL128;
}

static int no_such(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  char sig[300];
  size_t k = 0;
  for (int i = 0; i < e->n_args && k < sizeof sig - 40; i++)
    k += (size_t)snprintf(sig + k, sizeof sig - k, "%s%s", i ? ", " : "",
                          lm_bind_pg_type_of(e->args[i], args[i]));
  sig[k] = '\0';
  char what[400];
  snprintf(what, sizeof what, "%s(%s)", e->name, sig);
  int rc = lm_bind_fail(c, e, "function %s does not exist", what, NULL);
  lm_err_state(c->err, "42883");
  lm_err_hint(c->err, "No function matches the given name and argument "
                      "types. You might need to add explicit type casts.");
  return rc;
}

/* date_part / EXTRACT over an INTERVAL. */
static bool bind_interval_part(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                               lm_bexpr **out) {
  *out = NULL;
  const char *u = args[0]->lit.v.s.p;
  static const char *const ok[] = {
      "microsecond", "millisecond", "second",  "minute", "hour",
      "day",         "month",       "quarter", "year",   "decade",
      "century",     "millennium",  "epoch",   NULL};
  bool found = false;
  for (int i = 0; ok[i] && !found; i++) {
    size_t l = strlen(ok[i]);
    found =
        !lm_strcasecmp(u, ok[i]) || (!strncasecmp(u, ok[i], l) &&
                                     (u[l] == 's' || u[l] == 'S') && !u[l + 1]);
  }
  if (!found && !lm_strcasecmp(u, "centuries"))
    found = true;
  if (!found) {
    lm_bind_fail(c, e->args[0], "unit \"%s\" not supported for type interval",
                 u, NULL);
    lm_err_state(c->err, "0A000");
    return true;
  }
  *out = fn_node(c, e, LM_FN_INTERVAL_PART, lm_type_make(LM_TYPE_FLOAT64), args,
                 2);
  return true;
}

bool lm_bind_datefn(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                    lm_bexpr **out) {
  const char *n = e->name;
  *out = NULL;
  if (bind_now(c, e, args, out))
    return true;
  int na = e->n_args;
  if (!strcmp(n, "age") && (na == 1 || na == 2)) {
    /* age(ts): age(current_date at midnight, ts); age(date, date) through
     * TIMESTAMPs (PostgreSQL's implicit cast); age(ts, ts) below */
    bool dated = na == 1;
    for (int i = 0; i < na; i++) {
      lm_type t = args[i]->type;
      if (t.id == LM_TYPE_DATE32)
        dated = true;
      else if (t.id != LM_TYPE_TIMESTAMP && t.id != LM_TYPE_UTF8 &&
               t.id != LM_TYPE_NULL)
        return false;
    }
    if (!dated)
      return false;
    lm_type ts = lm_type_make(LM_TYPE_TIMESTAMP);
    lm_bexpr *a[2];
    if (na == 1) {
      const lm_tz *z = lm_tz_session() ? lm_tz_session() : lm_tz_utc();
      int64_t local = lm_tz_to_local(z, lm_dt_now_us());
      a[0] =
          lit_i64(c, e, ts, lm_floor_div(local, LM_US_PER_DAY) * LM_US_PER_DAY);
      a[1] = lm_bind_cast(c, args[0], ts);
    } else {
      a[0] = lm_bind_cast(c, args[0], ts);
      a[1] = lm_bind_cast(c, args[1], ts);
    }
    *out = fn_node(c, e, LM_FN_AGE, lm_type_make(LM_TYPE_INTERVAL_MDN), a,
                   2); /* expr_mdn.c */
    return true;
  }
  if ((!strcmp(n, "date_part") || !strcmp(n, "extract")) && na == 2 &&
      (args[1]->type.id == LM_TYPE_INTERVAL ||
       args[1]->type.id == LM_TYPE_INTERVAL_MDN) &&
      args[0]->kind == LM_BX_LITERAL && args[0]->type.id == LM_TYPE_UTF8 &&
      !args[0]->lit.is_null)
    return bind_interval_part(c, e, args, out);
  if (!strcmp(n, "to_char") && na == 2) {
    lm_type t = args[0]->type;
    lm_bexpr *a[2] = {args[0],
                      lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_UTF8))};
    lm_func_id fn = LM_FN_TO_CHAR;
    if (lm_type_is_tstz(t)) {
      /* fields, TZ and OF in the session zone (bound now, as casts) */
    } else if (t.id == LM_TYPE_TIMESTAMP || t.id == LM_TYPE_DATE32 ||
               t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_NULL) {
      a[0] = lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_TIMESTAMP));
    } else if (t.id == LM_TYPE_INTERVAL) {
      /* its days and time of day (expr_datefn.c) */
    } else if (t.id == LM_TYPE_INTERVAL_MDN) {
      /* a table's INTERVAL column: its days and time (months: 0A000) */
    } else if (t.id == LM_TYPE_DECIMAL128) {
      fn = LM_FN_TO_CHAR_NUM; /* exact, from its digits */
    } else if (is_numish(t)) {
      fn = LM_FN_TO_CHAR_NUM;
      /* a decimal literal (1.5) is PostgreSQL's numeric: its exact digits */
      lm_bexpr *d = lm_bind_lit_exact(c, args[0]);
      a[0] = d ? d
               : lm_bind_cast(c, args[0],
                              lm_type_make(lm_type_is_integer(t)
                                               ? LM_TYPE_INT64
                                               : LM_TYPE_FLOAT64));
    } else {
      no_such(c, e, args);
      return true;
    }
    lm_bexpr *r = fn_node(c, e, fn, lm_type_make(LM_TYPE_UTF8), a, 2);
    if (r && lm_type_is_tstz(t))
      r->tz = lm_tz_session() ? lm_tz_session() : lm_tz_utc();
    *out = r;
    return true;
  }
  if (!strcmp(n, "to_date") && na == 2) {
    for (int i = 0; i < 2; i++) /* text only: to_date(1, 'YYYY') is 42883 */
      if (!is_null(args[i]->type) && (args[i]->type.id != LM_TYPE_UTF8 ||
                                      lm_type_is_json(args[i]->type))) {
        no_such(c, e, args);
        return true;
      }
    lm_bexpr *a[2] = {lm_bind_cast(c, args[0], lm_type_make(LM_TYPE_UTF8)),
                      lm_bind_cast(c, args[1], lm_type_make(LM_TYPE_UTF8))};
    *out = fn_node(c, e, LM_FN_TO_DATE, lm_type_make(LM_TYPE_DATE32), a, 2);
    return true;
  }
  if (!strcmp(n, "make_date") || !strcmp(n, "make_time")) {
    bool date = n[5] == 'd';
    if (na != 3 || !is_intish(args[0]->type) || !is_intish(args[1]->type) ||
        !(date ? is_intish(args[2]->type) : is_numish(args[2]->type))) {
      no_such(c, e, args);
      return true;
    }
    lm_bexpr *a[3];
    for (int i = 0; i < 3; i++)
      a[i] = lm_bind_cast(
          c, args[i],
          lm_type_make(i == 2 && !date ? LM_TYPE_FLOAT64 : LM_TYPE_INT64));
    *out = fn_node(c, e, date ? LM_FN_MAKE_DATE : LM_FN_MAKE_TIME,
                   date ? lm_type_make(LM_TYPE_DATE32) : time_type(), a, 3);
    return true;
  }
  if (!strcmp(n, "make_interval")) {
    /* (years, months, weeks, days, hours, mins, secs), each defaulting to
     * 0 as in PostgreSQL */
    if (na > 7) {
      no_such(c, e, args);
      return true;
    }
    lm_bexpr *a[7];
    for (int i = 0; i < 7; i++) {
      if (i < na &&
          !(i == 6 ? is_numish(args[i]->type) : is_intish(args[i]->type))) {
        no_such(c, e, args);
        return true;
      }
      lm_type t = lm_type_make(i == 6 ? LM_TYPE_FLOAT64 : LM_TYPE_INT64);
      if (i < na) {
        a[i] = lm_bind_cast(c, args[i], t);
      } else {
        a[i] = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
        if (a[i]) {
          a[i]->lit.type = t;
          if (i == 6)
            a[i]->lit.v.f = 0;
          else
            a[i]->lit.v.i = 0;
        }
      }
    }
    *out = fn_node(c, e, LM_FN_MAKE_INTERVAL,
                   lm_type_make(LM_TYPE_INTERVAL_MDN), a, 7); /* expr_mdn.c */
    return true;
  }
  if (!strncmp(n, "justify_", 8)) {
    lm_func_id fn = !strcmp(n + 8, "days")       ? LM_FN_JUSTIFY_DAYS
                    : !strcmp(n + 8, "hours")    ? LM_FN_JUSTIFY_HOURS
                    : !strcmp(n + 8, "interval") ? LM_FN_JUSTIFY_INTERVAL
                                                 : LM_FN_AGE;
    if (fn == LM_FN_AGE)
      return false;
    if (na != 1 || (args[0]->type.id != LM_TYPE_INTERVAL &&
                    args[0]->type.id != LM_TYPE_INTERVAL_MDN &&
                    args[0]->type.id != LM_TYPE_NULL &&
                    args[0]->type.id != LM_TYPE_UTF8)) {
      no_such(c, e, args);
      return true;
    }
    lm_type m = lm_type_make(LM_TYPE_INTERVAL_MDN); /* expr_mdn.c */
    lm_bexpr *a = lm_bind_cast(c, args[0], m);
    *out = fn_node(c, e, fn, m, &a, 1);
    return true;
  }
  return false;
}
