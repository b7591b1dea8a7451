/* plan/tfilter_bind.c — the temporal filter of a continuous query: WHERE
 * conjuncts such as `ts > now() - INTERVAL '10' SECOND`, where now() is the
 * input's watermark floored to the second (the seed's rule,
 * ../shared/reference/laminardb-surface.md, "Temporal filter";
 * docs/changelog.md). They are taken out of WHERE before the rest is bound
 * (the binder refuses now() in a continuous query) and normalised to
 * `e op now() + k` for the operator (exec/op_temporal_filter.c). */
#include <stdlib.h>
#include <string.h>

#include "plan/bind_internal.h"
#include "plan/lm_plan.h"

/* now(), current_timestamp, localtimestamp (and their transaction /
 * statement synonyms) without arguments: the temporal filter's clock. */
static bool is_now(const lm_expr *e) {
  static const char *const names[] = {"now", "current_timestamp",
                                      "localtimestamp", "transaction_timestamp",
                                      "statement_timestamp"};
  if (e->kind != LM_EXPR_FUNC || e->n_args || e->over || !e->name)
    return false;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(e->name, names[i]))
      return true;
  return false;
}

/* Whether e calls a statement-time function anywhere (subqueries are not
 * looked into: the binder refuses them in continuous queries). */
static bool mentions_now(const lm_expr *e, int depth) {
  if (!e)
    return false;
  if (lm_stack_low()) /* as deep as that: treated as mentioning it (the */
    return true;      /* binder's 54001 follows), never silently not */
  if (e->kind == LM_EXPR_FUNC && e->name &&
      (is_now(e) || !strcmp(e->name, "clock_timestamp") ||
       !strcmp(e->name, "current_date") || !strcmp(e->name, "current_time") ||
       !strcmp(e->name, "localtime")))
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (mentions_now(e->args[i], depth + 1))
      return true;
  return mentions_now(e->filter, depth + 1);
}

/* The now() side of a conjunct: now(), now() + i, now() - i or i + now()
 * with i free of columns and of now(). *ival = i (NULL for bare now()),
 * *neg = subtracted. False for any other shape. */
static bool now_side(const lm_expr *e, const lm_expr **ival, bool *neg) {
  *ival = NULL;
  *neg = false;
  if (is_now(e))
    return true;
  if (e->kind != LM_EXPR_BINARY || e->n_args != 2 ||
      (e->op != LM_OP_ADD && e->op != LM_OP_SUB))
    return false;
  const lm_expr *a = e->args[0], *b = e->args[1];
  if (is_now(a) && !mentions_now(b, 0)) {
    *ival = b;
    *neg = e->op == LM_OP_SUB;
    return true;
  }
  if (e->op == LM_OP_ADD && is_now(b) && !mentions_now(a, 0)) {
    *ival = a;
    return true;
  }
  return false;
}

static bool is_cmp(lm_op op) {
  return op == LM_OP_LT || op == LM_OP_LE || op == LM_OP_GT || op == LM_OP_GE;
}

/* The comparison seen from the other side: a < b is b > a. */
static lm_op mirror(lm_op op) {
  switch (op) {
  case LM_OP_LT:
    return LM_OP_GT;
  case LM_OP_LE:
    return LM_OP_GE;
  case LM_OP_GT:
    return LM_OP_LT;
  default:
    return LM_OP_LE;
  }
}

static const char shape_msg[] =
    "now() in a continuous query is a temporal filter: a WHERE conjunct "
    "comparing a row's timestamp with now() [+|- INTERVAL constant] using < "
    "<= > or >=, e.g. WHERE ts > now() - INTERVAL '10' SECOND";

/* Collects the conjuncts of the AND tree e into keep / tf. */
static int split(const lm_expr *e, const lm_expr **keep, int *nk,
                 const lm_expr **tf, int max, int *nt, int cap, lm_error *err) {
  if (e->kind == LM_EXPR_BINARY && e->op == LM_OP_AND && e->n_args == 2) {
    int rc = split(e->args[0], keep, nk, tf, max, nt, cap, err);
    return rc ? rc : split(e->args[1], keep, nk, tf, max, nt, cap, err);
  }
  if (!mentions_now(e, 0)) {
    if (*nk >= cap)
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "WHERE has too many conjuncts (%d)", cap);
    keep[(*nk)++] = e;
    return 0;
  }
  if (e->kind != LM_EXPR_BINARY || e->n_args != 2 || !is_cmp(e->op)) {
    keep[(*nk)++] = e; /* the binder refuses it, with its own message */
    return 0;
  }
  const lm_expr *iv;
  bool neg;
  bool left = now_side(e->args[0], &iv, &neg) && !mentions_now(e->args[1], 0);
  bool right = now_side(e->args[1], &iv, &neg) && !mentions_now(e->args[0], 0);
  if (!left && !right) {
    lm_err_at(err, LM_ERR_BIND, e->line, e->column, "%s", shape_msg);
    return lm_err_state(err, "0A000");
  }
  if (*nt >= max) {
    lm_err_at(err, LM_ERR_BIND, e->line, e->column,
              "a temporal filter takes at most %d comparisons with now()", max);
    return lm_err_state(err, "0A000");
  }
  tf[(*nt)++] = e;
  return 0;
}

int lm_tfilter_split(const lm_expr *where, const lm_expr **rest,
                     lm_expr **nodes, const lm_expr **conj, int max, int *n,
                     lm_error *err) {
  *rest = where;
  *nodes = NULL;
  *n = 0;
  if (!where || !mentions_now(where, 0))
    return 0;
  enum { CAP = 4096 };
  const lm_expr **keep = malloc(sizeof *keep * CAP);
  if (!keep)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int nk = 0;
  int rc = split(where, keep, &nk, conj, max, n, CAP, err);
  if (rc || !*n) { /* nothing taken out: where as it is */
    free(keep);
    if (rc)
      *n = 0;
    return rc;
  }
  *rest = NULL;
  /* the kept conjuncts, AND-ed left to right in new nodes: one block of
   * nk - 1 nodes followed by their argument pairs */
  size_t nn = nk > 1 ? (size_t)nk - 1 : 0;
  if (nn &&
      !(*nodes = calloc(1, nn * (sizeof(lm_expr) + 2 * sizeof(lm_expr *))))) {
    free(keep);
    *n = 0;
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_expr **pairs = nn ? (lm_expr **)(void *)(*nodes + nn) : NULL;
  const lm_expr *acc = nk ? keep[0] : NULL;
  for (int i = 1; i < nk; i++) {
    lm_expr *a = &(*nodes)[i - 1];
    a->kind = LM_EXPR_BINARY;
    a->op = LM_OP_AND;
    a->line = keep[i]->line;
    a->column = keep[i]->column;
    a->args = pairs + 2 * (i - 1);
    a->args[0] = (lm_expr *)acc;
    a->args[1] = (lm_expr *)keep[i];
    a->n_args = 2;
    acc = a;
  }
  *rest = acc;
  free(keep);
  return 0;
}

int lm_tfilter_bind(lm_plan *p, const lm_expr *const *conj, int n,
                    lm_error *err) {
  if (n <= 0)
    return 0;
  lm_tfilter_cond *tf = lm_arena_alloc(&p->arena, sizeof *tf * (size_t)n);
  if (!tf)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    const lm_expr *c = conj[i], *iv = NULL, *row;
    bool neg = false;
    lm_op op = c->op;
    if (now_side(c->args[1], &iv, &neg) && !mentions_now(c->args[0], 0)) {
      row = c->args[0]; /* e op now() + k */
    } else {
      (void)now_side(c->args[0], &iv, &neg); /* now() + k op e */
      row = c->args[1];
      op = mirror(op);
    }
    lm_bexpr *e = NULL;
    int rc = lm_bind_scalar(row, p->input_schema, &p->arena, &e, err);
    if (rc)
      return rc;
    if (e->type.id != LM_TYPE_TIMESTAMP || e->type.unit != LM_UNIT_MICRO) {
      lm_err_at(err, LM_ERR_BIND, row->line, row->column,
                "a temporal filter compares now() with a TIMESTAMP or "
                "TIMESTAMPTZ, not %s (cast it)",
                lm_type_name(e->type));
      return lm_err_state(err, "42804");
    }
    int64_t k = 0;
    int32_t km = 0, kd = 0;
    if (iv) {
      lm_bexpr *x = NULL;
      if (!lm_bind_scalar(iv, NULL, &p->arena, &x, err) &&
          x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_INTERVAL_MDN &&
          !x->lit.is_null && x->lit.v.mdn.months != INT32_MIN &&
          x->lit.v.mdn.days != INT32_MIN) {
        /* months: now() + k per now() (exec/op_temporal_filter.c) */
        km = neg ? -x->lit.v.mdn.months : x->lit.v.mdn.months;
        kd = neg ? -x->lit.v.mdn.days : x->lit.v.mdn.days;
        k = neg ? -(x->lit.v.mdn.ns / 1000) : x->lit.v.mdn.ns / 1000;
        tf[i] = (lm_tfilter_cond){e, op, k, km, kd};
        continue;
      }
      if (err->code || x->kind != LM_BX_LITERAL ||
          x->type.id != LM_TYPE_INTERVAL || x->lit.is_null ||
          x->lit.v.i == INT64_MIN) {
        lm_err_at(err, LM_ERR_BIND, iv->line, iv->column,
                  "a temporal filter adds to now() only a constant, non-null "
                  "INTERVAL, e.g. now() - INTERVAL '10' SECOND");
        return lm_err_state(err, "0A000");
      }
      k = neg ? -x->lit.v.i : x->lit.v.i;
    }
    tf[i] = (lm_tfilter_cond){e, op, k, 0, 0};
  }
  p->tfilter = tf;
  p->n_tfilter = n;
  return 0;
}
