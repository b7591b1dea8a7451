/*
 * api/explain_adhoc.c — EXPLAIN [ANALYZE] of an ad-hoc SELECT
 * (docs/explain.md): the per-thread trace the ad-hoc paths write while the
 * explained query runs (over no rows for EXPLAIN, for real for ANALYZE),
 * and the descriptions of the steps that are not a plain query's pipeline
 * (api/explain.c prints those): WITH, set operations, VALUES, derived
 * tables, window functions, subquery expressions.
 *
 * Each query lm_engine_select runs gets a frame; the queries it runs in
 * turn are its kids. A frame is described when its query ends, at depth 0,
 * by the path that ran it; its parent embeds those lines where its own
 * description reads that query's rows (a join input, a CTE, a subquery).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/explain_int.h"
#include "api/srf_from.h"

static _Thread_local lm_xt_ctx *ctx;

lm_xt_ctx *lm_xt_ctx_get(void) {
  return ctx;
}

lm_xt_ctx *lm_xt_ctx_set(lm_xt_ctx *c) {
  lm_xt_ctx *prev = ctx;
  ctx = c;
  return prev;
}

bool lm_xt_on(void) {
  return ctx != NULL;
}

bool lm_xt_dry(void) {
  return ctx && ctx->dry;
}

void lm_xt_next_role(lm_xt_role r, const char *name, const void *key) {
  if (!ctx)
    return;
  ctx->pending = r;
  ctx->pending_name = name;
  ctx->pending_key = key;
}

static void lines_free(char **l, int n) {
  for (int i = 0; i < n; i++)
    free(l[i]);
  free(l);
}

void lm_xt_free(lm_xt *f) {
  if (!f)
    return;
  for (int i = 0; i < f->n_kids; i++)
    lm_xt_free(f->kids[i]);
  free(f->kids);
  lines_free(f->lines, f->n_lines);
  lines_free(f->in_lines, f->n_in_lines);
  for (int i = 0; i < f->n_pset; i++) {
    free(f->pset[i].calls);
    free(f->pset[i].fn);
    free(f->pset[i].alias);
  }
  free(f->name);
  free(f);
}

static int add_kid(lm_xt *p, lm_xt *k) {
  if (p->n_kids == p->cap_kids) {
    int cap = p->cap_kids ? p->cap_kids * 2 : 4;
    lm_xt **n = realloc(p->kids, sizeof *n * (size_t)cap);
    if (!n)
      return -1;
    p->kids = n;
    p->cap_kids = cap;
  }
  p->kids[p->n_kids++] = k;
  return 0;
}

lm_xt *lm_xt_open(void) {
  if (!ctx)
    return NULL;
  lm_xt *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  f->role = ctx->pending;
  f->key = ctx->pending_key;
  if (ctx->pending_name)
    f->name = lm_strdup(ctx->pending_name);
  ctx->pending = LM_XT_QUERY;
  ctx->pending_name = NULL;
  ctx->pending_key = NULL;
  f->hidden = f->role == LM_XT_VALUES_ROW || (ctx->cur && ctx->cur->hidden);
  f->parent = ctx->cur;
  f->loops = 1;
  f->t0_ns = lm_now_ns();
  if (f->parent && !f->hidden && add_kid(f->parent, f)) {
    lm_xt_free(f);
    return NULL;
  }
  ctx->cur = f;
  return f;
}

void lm_xt_close(lm_xt *f, const laminar_result *res, int rc) {
  if (!ctx || !f)
    return;
  f->ns = lm_now_ns() - f->t0_ns;
  f->rows = !rc && res ? res->rows : 0;
  ctx->cur = f->parent;
  lm_xt *p = f->parent;
  if (f->hidden) { /* never a kid: dropped now */
    lm_xt_free(f);
    return;
  }
  /* a correlated subquery's runs are one SubPlan: the first run's frame
   * counts the others (loops, rows, time) */
  if (p && f->role == LM_XT_SUBPLAN_RUN && !rc) {
    for (int i = 0; i < p->n_kids - 1; i++) {
      lm_xt *o = p->kids[i];
      if (o->role == LM_XT_SUBPLAN_RUN && o->key == f->key) {
        o->loops++;
        o->rows += f->rows;
        o->ns += f->ns;
        p->n_kids--; /* f is the last kid */
        lm_xt_free(f);
        return;
      }
    }
  }
}

void lm_xt_take_lines(lm_xt *f, ex *x) {
  if (!f)
    return;
  lines_free(f->lines, f->n_lines);
  f->lines = x->lines;
  f->n_lines = x->n;
  x->lines = NULL;
  x->n = x->cap = 0;
}

void lm_xt_note_ops(lm_operator *const *ops, int n) {
  lm_xt *f = ctx ? ctx->cur : NULL;
  if (!f)
    return;
  f->n_ops = 0;
  for (int i = 0; i < n && i < LM_XT_MAX_OPS; i++)
    if (ops[i]) {
      const lm_operator *op = ops[i];
      opstat *s = &f->ops[f->n_ops++];
      memset(s, 0, sizeof *s);
      s->name = op->vt->name;
      s->rows_in = op->rows_in;
      s->rows_out = op->rows_out;
      s->batches_in = op->batches_in;
      s->batches_out = op->batches_out;
      s->time_ns = op->time_ns;
      s->late = op->late_dropped;
      s->state_rows = s->state_bytes = -1;
      if (op->state)
        op->state(op, &s->state_rows, &s->state_bytes);
    }
}

void lm_xt_pset_stage(int i, const lm_from *f, bool outer) {
  lm_xt *x = ctx ? ctx->cur : NULL;
  if (!x || i < 0 || i >= LM_XT_MAX_PSET || i > x->n_pset)
    return;
  while (x->n_pset > i) { /* a stage noted again: from i on */
    x->n_pset--;
    free(x->pset[x->n_pset].calls);
    free(x->pset[x->n_pset].fn);
    free(x->pset[x->n_pset].alias);
  }
  lm_buf b;
  lm_buf_init(&b);
  for (int j = 0; j < f->n_funcs; j++) {
    if (j)
      lm_buf_printf(&b, ", ");
    lm_sql_expr_to_string(f->funcs[j], &b);
  }
  memset(&x->pset[i], 0, sizeof x->pset[i]);
  x->pset[i].calls = lm_strdup(b.data ? b.data : "");
  x->pset[i].fn = lm_strdup(f->n_funcs && f->funcs[0]->name ? f->funcs[0]->name
                                                            : "function");
  /* the select list's calls (srf_from.c's rewrite) have a hidden alias */
  x->pset[i].alias =
      f->alias && f->alias[0] != LM_SRF_HIDDEN ? lm_strdup(f->alias) : NULL;
  x->pset[i].n_calls = f->n_funcs;
  x->pset[i].outer = outer;
  x->pset[i].ordinality = f->ordinality;
  x->n_pset = i + 1;
  lm_buf_free(&b);
}

void lm_xt_note_pre(const lm_operator *head, const lm_operator *tail) {
  lm_xt *f = ctx ? ctx->cur : NULL;
  int k = 0;
  for (const lm_operator *op = head; f && op && k < f->n_pset; op = op->next) {
    f->pset[k].st = lm_ex_snap(op);
    f->pset[k++].has_stat = true;
    if (op == tail)
      break;
  }
}

void lm_xt_note_join(int step, const lm_operator *join) {
  lm_xt *f = ctx ? ctx->cur : NULL;
  if (!f || step < 0 || step >= LM_XT_MAX_OPS || !join)
    return;
  f->joins[step] = lm_ex_snap(join);
  f->has_join[step] = true;
}

const lm_xt *lm_xt_kid(const lm_xt *f, lm_xt_role r, const void *key,
                       bool any_key) {
  for (int i = f ? f->n_kids - 1 : -1; i >= 0; i--)
    if (f->kids[i]->role == r && (any_key || f->kids[i]->key == key))
      return f->kids[i];
  return NULL;
}

const lm_xt *lm_xt_producer(const char *name) {
  for (const lm_xt *f = ctx ? ctx->cur : NULL; f; f = f->parent)
    for (int i = f->n_kids - 1; i >= 0; i--) {
      const lm_xt *k = f->kids[i];
      if ((k->role == LM_XT_CTE || k->role == LM_XT_DERIVED ||
           k->role == LM_XT_FILTERED || k->role == LM_XT_VIEW) &&
          k->name && !lm_strcasecmp(k->name, name))
        return k;
    }
  return NULL;
}

/* ------------------------------------------------------- subqueries */

static const char *subq_kind(const lm_subplan *sp) {
  switch (sp->kind) {
  case LM_SUBQ_SCALAR:
    return "scalar";
  case LM_SUBQ_EXISTS:
    return "EXISTS";
  case LM_SUBQ_ANY:
    return sp->op == LM_OP_EQ ? "IN" : "ANY";
  case LM_SUBQ_ALL:
    return "ALL";
  }
  return "subquery";
}

void lm_xt_subplans(ex *x, const lm_xt *f, int d) {
  const void *seen[64];
  int n_seen = 0;
  for (int i = 0; f && i < f->n_kids && n_seen < 64; i++) {
    const lm_xt *k = f->kids[i];
    if (k->role != LM_XT_SUBPLAN_PREPARE && k->role != LM_XT_SUBPLAN_RUN)
      continue;
    bool dup = false;
    for (int j = 0; j < n_seen && !dup; j++)
      dup = seen[j] == k->key;
    if (dup)
      continue;
    seen[n_seen++] = k->key;
    const lm_subplan *sp = k->key;
    /* the run that answered the outer rows, else the planning run */
    const lm_xt *run = lm_xt_kid(f, LM_XT_SUBPLAN_RUN, k->key, false);
    const lm_xt *show = run ? run : k;
    const lm_xt *cnt = run ? run : !sp->n_params ? k : NULL;
    const char *how;
    if (!sp->n_params)
      how = "uncorrelated: run once";
    else if (sp->decor && sp->decor->state == 1)
      how = "decorrelated: run once, hashed by its correlation keys";
    else if (sp->decor && sp->decor->state == 0)
      how = "correlated by equalities: run once and hashed when it runs";
    else
      how = "correlated: run once per distinct outer value";
    char ab[160];
    lm_ex_detail(x, d, "%s %d  (%s, %s)%s",
                 sp->n_params ? "SubPlan" : "InitPlan", n_seen, subq_kind(sp),
                 how,
                 cnt ? lm_ex_actual_rows(x, ab, sizeof ab, cnt->rows,
                                         cnt->loops, cnt->ns)
                     : "");
    if (show->n_lines)
      lm_ex_embed_at(x, (d ? 6 * d + 2 : 2) + 2, show->lines, show->n_lines);
  }
}

/* ----------------------------------------------- setop.c's steps */

/* The current frame's description from x (freed). */
static void done(ex *x) {
  if (ctx && ctx->cur)
    lm_xt_take_lines(ctx->cur, x);
  for (int i = 0; i < x->n; i++)
    free(x->lines[i]);
  free(x->lines);
}

static ex ex_for(void) {
  ex x;
  memset(&x, 0, sizeof x);
  x.db = ctx->db;
  x.analyze = ctx->analyze;
  x.timing = ctx->timing;
  x.verbose = ctx->verbose;
  x.adhoc = true;
  return x;
}

/* Sort / Limit of a set operation's or VALUES' ORDER BY, LIMIT, OFFSET
 * (setop.c's order_limit) from depth 0; returns the depth below them. */
static int order_limit(ex *x, const lm_select *sel, int64_t rows,
                       int64_t rows_out) {
  int d = 0;
  char ab[160];
  lm_buf b;
  lm_buf_init(&b);
  if (sel->limit >= 0 || sel->offset > 0) {
    if (sel->limit >= 0)
      lm_buf_printf(&b, "%lld", (long long)sel->limit);
    else
      lm_buf_printf(&b, "ALL");
    if (sel->offset > 0)
      lm_buf_printf(&b, " offset %lld", (long long)sel->offset);
    lm_ex_node(x, d++, "Limit: %s%s", b.data,
               lm_ex_actual_rows(x, ab, sizeof ab, rows_out, 1, -1));
    lm_buf_reset(&b);
  }
  if (sel->n_order_by) {
    for (int i = 0; i < sel->n_order_by; i++) {
      if (i)
        lm_buf_printf(&b, ", ");
      lm_sql_expr_to_string(sel->order_by[i].expr, &b);
      if (sel->order_by[i].desc)
        lm_buf_printf(&b, " DESC");
    }
    lm_ex_node(x, d, "Sort%s",
               lm_ex_actual_rows(x, ab, sizeof ab, rows, 1, -1));
    lm_ex_detail(x, d++, "Sort Key: %s", b.data);
  }
  lm_buf_free(&b);
  return d;
}

void lm_xt_setop_done(const lm_select *sel, int n, int64_t rows,
                      int64_t rows_out) {
  if (!ctx || !ctx->cur)
    return;
  ex x = ex_for();
  char ab[160];
  int d = order_limit(&x, sel, rows, rows_out);
  if (!sel->setop) {
    lm_ex_node(&x, d, "Values Scan  (%d rows)%s", n,
               lm_ex_actual_rows(&x, ab, sizeof ab, rows, 1, -1));
    done(&x);
    return;
  }
  const char *op = sel->setop == LM_SETOP_UNION       ? "Union"
                   : sel->setop == LM_SETOP_INTERSECT ? "Intersect"
                                                      : "Except";
  lm_ex_node(&x, d, "%s%s  (%d inputs)%s", op, sel->set_all ? " All" : "", n,
             lm_ex_actual_rows(&x, ab, sizeof ab, rows, 1, -1));
  if (sel->setop == LM_SETOP_UNION && !sel->set_all)
    lm_ex_detail(&x, d, "Distinct: every column (UNION)");
  const lm_xt *f = ctx->cur;
  for (int i = 0; i < f->n_kids; i++)
    if (f->kids[i]->role == LM_XT_OPERAND && f->kids[i]->n_lines)
      lm_ex_embed(&x, d + 1, f->kids[i]->lines, f->kids[i]->n_lines);
  done(&x);
}

/* The last BODY kid's lines into x at depth 0. */
static const lm_xt *body_into(ex *x) {
  const lm_xt *b = lm_xt_kid(ctx->cur, LM_XT_BODY, NULL, true);
  if (b && b->n_lines)
    lm_ex_embed(x, 0, b->lines, b->n_lines);
  else
    lm_ex_node(x, 0, "Query");
  return b;
}

void lm_xt_with_done(const lm_select *sel) {
  if (!ctx || !ctx->cur)
    return;
  ex x = ex_for();
  body_into(&x);
  /* each WITH query under the top node, as PostgreSQL shows its CTEs:
   * computed once, read by each CTE Scan of its name */
  ex c = ex_for();
  char ab[160];
  for (int i = 0; i < sel->n_ctes; i++) {
    const lm_xt *k = lm_xt_producer(sel->ctes[i].name);
    lm_ex_detail(&c, 0, "CTE %s  (computed once%s)%s", sel->ctes[i].name,
                 sel->ctes[i].n_cols ? ", columns renamed" : "",
                 k ? lm_ex_actual_rows(&c, ab, sizeof ab, k->rows, 1, k->ns)
                   : "");
    if (k && k->n_lines)
      lm_ex_embed_at(&c, 4, k->lines, k->n_lines);
  }
  if (!x.oom && !c.oom && c.n) {
    int at = lm_ex_top_details_end(x.lines, x.n);
    char **nl = realloc(x.lines, sizeof *nl * (size_t)(x.n + c.n));
    if (nl) {
      x.lines = nl;
      memmove(&x.lines[at + c.n], &x.lines[at],
              sizeof *nl * (size_t)(x.n - at));
      memcpy(&x.lines[at], c.lines, sizeof *nl * (size_t)c.n);
      x.n += c.n;
      x.cap = x.n;
      free(c.lines);
      c.lines = NULL;
      c.n = 0;
    }
  }
  for (int i = 0; i < c.n; i++)
    free(c.lines[i]);
  free(c.lines);
  done(&x);
}

void lm_xt_body_done(void) {
  if (!ctx || !ctx->cur)
    return;
  ex x = ex_for();
  body_into(&x);
  done(&x);
}

void lm_xt_recursive_close(lm_xt *f, int rc, bool distinct, int iters,
                           int64_t rows) {
  if (!ctx || !f)
    return;
  if (!rc) {
    ex x = ex_for();
    char ab[160];
    lm_ex_node(&x, 0, "Recursive Union%s",
               lm_ex_actual_rows(&x, ab, sizeof ab, rows, 1, -1));
    if (distinct)
      lm_ex_detail(&x, 0, "Distinct: every column (UNION)");
    if (ctx->analyze)
      lm_ex_detail(&x, 0, "Iterations: %d", iters);
    for (int i = 0; i < f->n_kids; i++)
      if (f->kids[i]->role == LM_XT_OPERAND && f->kids[i]->n_lines)
        lm_ex_embed(&x, 1, f->kids[i]->lines, f->kids[i]->n_lines);
    lm_xt_take_lines(f, &x);
    for (int i = 0; i < x.n; i++)
      free(x.lines[i]);
    free(x.lines);
  }
  bool hidden = f->hidden; /* then freed by lm_xt_close */
  lm_xt_close(f, NULL, rc);
  if (!hidden)
    f->rows = rc ? 0 : rows;
}

/* ------------------------------------------- select_over.c's inputs */

static void set_in_lines(ex *x) {
  lm_xt *f = ctx->cur;
  lines_free(f->in_lines, f->n_in_lines);
  f->in_lines = x->lines;
  f->n_in_lines = x->n;
  x->lines = NULL;
  x->n = 0;
}

static void bound_text(lm_buf *b, const lm_frame_bound *fb) {
  switch (fb->kind) {
  case LM_BOUND_UNBOUNDED_PRECEDING:
    lm_buf_printf(b, "UNBOUNDED PRECEDING");
    return;
  case LM_BOUND_CURRENT_ROW:
    lm_buf_printf(b, "CURRENT ROW");
    return;
  case LM_BOUND_UNBOUNDED_FOLLOWING:
    lm_buf_printf(b, "UNBOUNDED FOLLOWING");
    return;
  case LM_BOUND_PRECEDING:
  case LM_BOUND_FOLLOWING:
    lm_sql_expr_to_string(fb->offset, b);
    lm_buf_printf(b,
                  fb->kind == LM_BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
    return;
  }
}

void lm_xt_window_call(const lm_expr *call, lm_expr *const *part, int n_part,
                       const lm_order_item *order, int n_order,
                       const lm_window_frame *frame) {
  if (!ctx || !ctx->cur)
    return;
  lm_xt *f = ctx->cur;
  lm_buf b;
  lm_buf_init(&b);
  lm_buf_printf(&b, "%s(%s", call->name ? call->name : "?",
                call->distinct ? "DISTINCT " : "");
  if (!call->n_args && call->name && !strcmp(call->name, "count"))
    lm_buf_printf(&b, "*");
  for (int i = 0; i < call->n_args; i++) {
    if (i)
      lm_buf_printf(&b, ", ");
    lm_sql_expr_to_string(call->args[i], &b);
  }
  lm_buf_printf(&b, ") OVER (");
  for (int i = 0; i < n_part; i++) {
    lm_buf_printf(&b, i ? ", " : "PARTITION BY ");
    lm_sql_expr_to_string(part[i], &b);
  }
  for (int i = 0; i < n_order; i++) {
    lm_buf_printf(&b, i ? ", " : n_part ? " ORDER BY " : "ORDER BY ");
    lm_sql_expr_to_string(order[i].expr, &b);
    if (order[i].desc)
      lm_buf_printf(&b, " DESC");
  }
  bool sp = n_part || n_order;
  if (frame) {
    lm_buf_printf(&b, "%s%s BETWEEN ", sp ? " " : "",
                  frame->unit == LM_FRAME_ROWS    ? "ROWS"
                  : frame->unit == LM_FRAME_RANGE ? "RANGE"
                                                  : "GROUPS");
    bound_text(&b, &frame->start);
    lm_buf_printf(&b, " AND ");
    bound_text(&b, &frame->end);
    static const char *const ex[] = {"", " EXCLUDE CURRENT ROW",
                                     " EXCLUDE GROUP", " EXCLUDE TIES"};
    if (frame->exclude > 0 && frame->exclude < 4)
      lm_buf_printf(&b, "%s", ex[frame->exclude]);
  } else {
    lm_buf_printf(&b, "%s%s", sp ? " " : "",
                  n_order ? "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
                          : "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED "
                            "FOLLOWING");
  }
  lm_buf_printf(&b, ")");
  char **nl = realloc(f->in_lines, sizeof *nl * (size_t)(f->n_in_lines + 1));
  char *t = lm_strdup(b.data ? b.data : "");
  if (nl)
    f->in_lines = nl;
  if (nl && t)
    f->in_lines[f->n_in_lines++] = t;
  else
    free(t);
  lm_buf_free(&b);
}

void lm_xt_window_input(int64_t rows) {
  if (!ctx || !ctx->cur)
    return;
  ex x = ex_for();
  char ab[160];
  lm_xt *f = ctx->cur;
  lm_ex_node(&x, 0, "WindowAgg%s",
             lm_ex_actual_rows(&x, ab, sizeof ab, rows, 1, -1));
  for (int i = 0; i < f->n_in_lines; i++)
    lm_ex_detail(&x, 0, "Call: %s", f->in_lines[i]);
  const lm_xt *k = lm_xt_kid(f, LM_XT_OVER_INNER, NULL, true);
  if (k && k->n_lines)
    lm_ex_embed(&x, 1, k->lines, k->n_lines);
  set_in_lines(&x);
}

void lm_xt_subquery_input(const char *alias, int64_t rows) {
  if (!ctx || !ctx->cur)
    return;
  ex x = ex_for();
  char ab[160];
  lm_ex_node(&x, 0, "Subquery Scan%s%s%s", alias ? " on " : "",
             alias ? alias : "",
             lm_ex_actual_rows(&x, ab, sizeof ab, rows, 1, -1));
  const lm_xt *k = lm_xt_kid(ctx->cur, LM_XT_FROM_SUB, NULL, true);
  if (k && k->n_lines)
    lm_ex_embed(&x, 1, k->lines, k->n_lines);
  set_in_lines(&x);
}
