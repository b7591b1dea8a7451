/*
 * api/srf_stream.c — set-returning functions as ProjectSet operators
 * (exec/op_project_set.c) ahead of a query's plan, ad hoc and in
 * continuous queries (api/srf_from.h, docs/functions.md).
 *
 * A FROM clause `base [, | CROSS JOIN | JOIN ... ON | LEFT JOIN ... ON
 * TRUE] f1 [...] fk` whose items after the first are function calls
 * (lateral or not; the select list's set-returning calls become such a
 * call, api/srf_from.c) runs as: the base relation's rows (none: one row
 * without columns), then one ProjectSet stage per function, each appending
 * its columns to the rows of the stages before it, then the query's plan
 * over the extended rows, its names resolved through a scope (base
 * columns qualified by the base's name, a function's by its alias). The
 * rows are made a batch at a time and consumed by the pipeline, so
 * `SELECT sum(g) FROM generate_series(1, 1000000000) g` runs in constant
 * memory; over a stream each input row's rows follow it (with its
 * __weight: a retraction retracts them), its event-time column kept.
 * Other shapes take the materializing path of api/srf_from.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/srf_from.h"
#include "columnar/lm_tz.h"
#include "plan/bind_internal.h"
#include "plan/whole_row_bind.h"

#define MAX_STAGES 16
#define MAX_CALLS 64

typedef struct chain {
  const lm_from *base; /* TABLE or SUBQUERY item; NULL = no relation */
  const lm_from *stage[MAX_STAGES];
  bool outer[MAX_STAGES];
  int n;
  /* stages [0, n_lead) were written before the base (continuous queries:
   * `FROM generate_series(1, 3) g, s`): they run after it, their
   * arguments see no column of it, and `*` lists their columns first */
  int n_lead;
  lm_expr *on[MAX_STAGES]; /* INNER JOIN conditions (NULL = none) */
  int n_on;
} chain;

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------- shape */

static bool has_subq(const lm_expr *e, int depth) {
  if (!e)
    return false;
  if (depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_subq(e->args[i], depth + 1))
      return true;
  return false;
}

static bool is_true_lit(const lm_expr *e) {
  return e && e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_BOOL && e->bval;
}

/* Whether sel's FROM is base + function calls as described above (and
 * nothing in sel needs another path: subquery expressions, window
 * functions). lead_ok: function calls may also come before the base,
 * joined to it by a comma, CROSS JOIN or INNER JOIN (ch->n_lead). */
static bool chain_of(const lm_select *sel, chain *ch, bool lead_ok) {
  memset(ch, 0, sizeof *ch);
  if (!sel->from_clause || sel->setop || sel->values || sel->n_ctes ||
      lm_select_has_over(sel) || has_subq(sel->where, 0) ||
      has_subq(sel->having, 0))
    return false;
  for (int i = 0; i < sel->n_items; i++)
    if (has_subq(sel->items[i].expr, 0))
      return false;
  for (int i = 0; i < sel->n_group_by; i++)
    if (has_subq(sel->group_by[i], 0))
      return false;
  for (int i = 0; i < sel->n_order_by; i++)
    if (has_subq(sel->order_by[i].expr, 0))
      return false;
  const lm_from *f = sel->from_clause;
  const lm_from *rev[MAX_STAGES];
  bool outer[MAX_STAGES];
  int n = 0;
  int after_base = -1; /* function items after the base (when found) */
  for (; f->kind == LM_FROM_JOIN; f = f->left) {
    const lm_from *r = f->right;
    if (lead_ok && after_base < 0 &&
        (r->kind == LM_FROM_TABLE || r->kind == LM_FROM_SUBQUERY) &&
        (f->join == LM_SQL_JOIN_INNER || f->join == LM_SQL_JOIN_CROSS) &&
        !f->asof && !f->system_time && !f->match && !f->n_using &&
        !f->natural && !f->parenthesized && !r->lateral) {
      /* the base after leading calls: its ON joins them in WHERE */
      if (f->on && !is_true_lit(f->on)) {
        if (has_subq(f->on, 0) || ch->n_on == MAX_STAGES)
          return false;
        ch->on[ch->n_on++] = f->on;
      }
      ch->base = r;
      after_base = n;
      continue;
    }
    if (n == MAX_STAGES || r->kind != LM_FROM_FUNCTION || f->asof ||
        f->system_time || f->match || f->n_using || f->natural ||
        f->parenthesized)
      return false;
    if (f->join == LM_SQL_JOIN_LEFT) {
      if (f->on && !is_true_lit(f->on))
        return false;
      outer[n] = true;
    } else if (f->join == LM_SQL_JOIN_INNER || f->join == LM_SQL_JOIN_CROSS) {
      outer[n] = false;
      if (f->on && !is_true_lit(f->on)) {
        if (has_subq(f->on, 0))
          return false;
        ch->on[ch->n_on++] = f->on;
      }
    } else {
      return false;
    }
    rev[n++] = r;
  }
  if (f->kind == LM_FROM_FUNCTION) {
    if (n == MAX_STAGES)
      return false;
    outer[n] = false;
    rev[n++] = f;
  } else if (after_base < 0 &&
             (f->kind == LM_FROM_TABLE || f->kind == LM_FROM_SUBQUERY)) {
    ch->base = f;
  } else {
    return false;
  }
  ch->n_lead = after_base < 0 ? 0 : n - after_base;
  for (int i = 0; i < n; i++) {
    const lm_from *s = rev[n - 1 - i];
    if (s->n_funcs < 1 || s->n_funcs > MAX_CALLS)
      return false;
    for (int j = 0; j < s->n_funcs; j++)
      for (int k = 0; k < s->funcs[j]->n_args; k++)
        if (has_subq(s->funcs[j]->args[k], 0))
          return false;
    ch->stage[i] = s;
    ch->outer[i] = outer[n - 1 - i];
  }
  ch->n = n;
  return n > 0;
}

/* sel's WHERE with the chain's INNER JOIN conditions ANDed in (arena a);
 * NULL on OOM when there is something to build. */
static lm_expr *where_of(lm_arena *a, const lm_select *sel, const chain *ch,
                         bool *oom) {
  lm_expr *w = sel->where;
  for (int i = 0; i < ch->n_on; i++) {
    if (!w) {
      w = ch->on[i];
      continue;
    }
    lm_expr *e = lm_arena_alloc(a, sizeof *e);
    lm_expr **args = lm_arena_alloc(a, sizeof *args * 2);
    if (!e || !args) {
      *oom = true;
      return NULL;
    }
    e->kind = LM_EXPR_BINARY;
    e->op = LM_OP_AND;
    e->line = ch->on[i]->line;
    e->column = ch->on[i]->column;
    args[0] = w;
    args[1] = ch->on[i];
    e->args = args;
    e->n_args = 2;
    w = e;
  }
  return w;
}

/* ------------------------------------------------------------- build */

typedef struct built {
  lm_operator *head, *tail; /* the stages' operators, chained */
  lm_schema *ext;           /* the last stage's output (a reference) */
  lm_scope scope;           /* names over ext (in the arena) */
  /* each stage's calls (in the arena), for the columns they read */
  const lm_pset_call *calls[MAX_STAGES];
  int n_calls[MAX_STAGES];
  int n_stages;
} built;

static void built_free(built *b) {
  for (lm_operator *o = b->head; o;) {
    lm_operator *nx = o == b->tail ? NULL : o->next;
    o->vt->free(o);
    o = nx;
  }
  b->head = b->tail = NULL;
  lm_schema_release(b->ext);
  b->ext = NULL;
}

/* `SELECT e FROM f(...) e` where f's one column (at `first`) is not named
 * e (value): a hidden scope entry for the whole-row reference
 * (plan/whole_row_bind.h) into *out; 1 when made, 0 when not needed, an
 * error code < 0 on OOM. */
static int whole_row(const lm_from *f, int first, const lm_schema *ext,
                     lm_arena *a, lm_scope_col *out) {
  if (!lm_whole_row_needed(f->alias, f->n_funcs, f->ordinality,
                           ext->fields[first].name))
    return 0;
  size_t len = strlen(f->alias) + sizeof LM_WHOLE_ROW_PREFIX;
  char *nm = lm_arena_alloc(a, len);
  if (!nm)
    return -1;
  lm_whole_row_name(f->alias, nm, len);
  memset(out, 0, sizeof *out);
  out->rel = f->alias;
  out->name = nm;
  out->col = first;
  return 1;
}

/* The scope cols followed by extra (n_extra entries) in a; NULL on OOM. */
static lm_scope_col *scope_plus(const lm_scope_col *cols, int n,
                                const lm_scope_col *extra, int n_extra,
                                lm_arena *a) {
  lm_scope_col *sc = lm_arena_alloc(a, sizeof *sc * (size_t)(n + n_extra + 1));
  if (sc && n)
    memcpy(sc, cols, sizeof *sc * (size_t)n);
  if (sc && n_extra)
    memcpy(sc + n, extra, sizeof *sc * (size_t)n_extra);
  return sc;
}

/* One stage: function item f over rows of schema b->ext named by
 * b->scope (and the whole-row names wr of the stages before it); extends
 * both and appends its operator. */
static int build_stage(built *b, const lm_from *f, bool outer, int weight_col,
                       const char *base_rel, int hide, const lm_scope_col *wr,
                       int n_wr, lm_arena *a, lm_error *err) {
  int nf = f->n_funcs;
  lm_bctx c;
  memset(&c, 0, sizeof c);
  c.arena = a;
  c.in = b->ext;
  c.from = hide ? NULL : base_rel;
  c.err = err;
  /* hide: the first `hide` names (the base's, for a call written before
   * it) are out of the arguments' reach */
  lm_scope vis = {b->scope.cols + hide, b->scope.n - hide};
  if (n_wr) { /* the whole-row names of the functions before it */
    vis.cols = scope_plus(vis.cols, vis.n, wr, n_wr, a);
    if (!vis.cols)
      return nomem(err);
    vis.n += n_wr;
  }
  c.scope = &vis;
  lm_pset_call calls[MAX_CALLS];
  memset(calls, 0, sizeof calls);
  for (int j = 0; j < nf; j++) {
    const lm_expr *call = f->funcs[j];
    lm_pset_call *pc = &calls[j];
    pc->line = call->line;
    pc->column = call->column;
    if (!lm_srf_is_name(call->name) || call->over) { /* a scalar call */
      lm_bexpr *x = lm_bind_expr(&c, call);
      if (!x)
        return err->code ? err->code : LM_ERR_BIND;
      pc->kind = LM_SRF_SCALAR;
      pc->args[0] = x;
      pc->n_args = 1;
      pc->out = x->type;
      continue;
    }
    if (call->n_args > 3 || call->n_args < 1)
      return lm_engine_pos_err(err, LM_ERR_BIND, call->line, call->column,
                               "wrong number of arguments");
    lm_bexpr *x[3];
    lm_schema *ts = lm_schema_new(call->n_args);
    if (!ts)
      return nomem(err);
    for (int i = 0; i < call->n_args; i++) {
      if (!(x[i] = lm_bind_expr(&c, call->args[i]))) {
        lm_schema_release(ts);
        return err->code ? err->code : LM_ERR_BIND;
      }
      char nm[16];
      snprintf(nm, sizeof nm, "a%d", i);
      lm_type t = x[i]->type;
      if (lm_type_is_integer(t)) { /* an integer literal is integer */
        int w = lm_bind_int_width(call->args[i], x[i]);
        t = lm_type_make(w == 16   ? LM_TYPE_INT16
                         : w == 32 ? LM_TYPE_INT32
                                   : t.id);
      }
      lm_schema_set_field(ts, i, nm, t, true);
    }
    lm_srf_call_plan cp;
    int rc = lm_srf_plan_call(call, ts, 0, &cp, err);
    lm_schema_release(ts);
    if (rc)
      return rc;
    pc->kind = cp.kind;
    pc->out = cp.out;
    pc->n_args = call->n_args;
    pc->step_days = cp.step_days;
    pc->tz = cp.step_days ? lm_tz_session() : NULL;
    for (int i = 0; i < call->n_args; i++) {
      lm_bexpr *y = x[i];
      if (i < 3 && cp.cast[i].id != LM_TYPE_NULL &&
          !(y = lm_bind_cast(&c, y, cp.cast[i])))
        return err->code ? err->code : nomem(err);
      pc->args[i] = y;
    }
  }
  /* the output columns, named as PostgreSQL names them */
  int n_out = nf + (f->ordinality ? 1 : 0);
  const char *rel = f->alias ? f->alias : f->name;
  if (f->n_col_aliases > n_out) {
    char m[300];
    snprintf(m, sizeof m,
             "table \"%s\" has %d columns available but %d columns "
             "specified",
             rel, n_out, f->n_col_aliases);
    lm_engine_pos_err(err, LM_ERR_BIND, f->line, f->column, m);
    return lm_err_state(err, "42P10");
  }
  int n_in = b->ext->n_fields;
  lm_schema *s = lm_schema_new(n_in + n_out);
  lm_scope_col *sc =
      lm_arena_alloc(a, sizeof *sc * (size_t)(b->scope.n + n_out + 1));
  if (!s || !sc) {
    lm_schema_release(s);
    return nomem(err);
  }
  for (int k = 0; k < n_in; k++)
    lm_schema_set_field(s, k, b->ext->fields[k].name, b->ext->fields[k].type,
                        b->ext->fields[k].nullable);
  if (b->scope.n)
    memcpy(sc, b->scope.cols, sizeof *sc * (size_t)b->scope.n);
  for (int j = 0; j < n_out; j++) {
    const char *nm;
    lm_type t;
    if (j < nf) {
      nm = j < f->n_col_aliases  ? f->col_aliases[j]
           : nf == 1 && f->alias ? f->alias
                                 : f->funcs[j]->name;
      t = calls[j].out;
    } else {
      nm = nf < f->n_col_aliases ? f->col_aliases[nf] : "ordinality";
      t = lm_type_make(LM_TYPE_INT64);
    }
    lm_schema_set_field(s, n_in + j, nm, t, j < nf);
    lm_scope_col *e = &sc[b->scope.n + j];
    memset(e, 0, sizeof *e);
    e->rel = rel;
    e->name = s->fields[n_in + j].name;
    e->col = n_in + j;
    e->star = true;
  }
  lm_pset_call *kept = lm_arena_alloc(a, sizeof *kept * (size_t)nf);
  lm_operator *op = kept
                        ? lm_op_project_set_new(calls, nf, f->ordinality, outer,
                                                weight_col, lm_schema_retain(s))
                        : NULL;
  if (!op) {
    lm_schema_release(s);
    return nomem(err);
  }
  memcpy(kept, calls, sizeof *kept * (size_t)nf);
  if (b->n_stages < MAX_STAGES) {
    b->calls[b->n_stages] = kept;
    b->n_calls[b->n_stages++] = nf;
  }
  if (b->tail)
    b->tail->next = op;
  else
    b->head = op;
  b->tail = op;
  lm_schema_release(b->ext);
  b->ext = s;
  b->scope.cols = sc;
  b->scope.n += n_out;
  return 0;
}

/* The stages of ch over `in` (the base relation's columns, named rel;
 * weight_col: see lm_op_project_set_new) and the plan of sel over their
 * output (sel's FROM is the base alone; where: its WHERE). */
static int build_all(const lm_select *sel, const chain *ch, lm_schema *in,
                     const char *rel, int weight_col, lm_arena *a, built *b,
                     lm_plan **plan, lm_error *err) {
  memset(b, 0, sizeof *b);
  *plan = NULL;
  b->ext = lm_schema_retain(in);
  int n = in->n_fields;
  b->scope.cols = lm_arena_alloc(a, sizeof *b->scope.cols * (size_t)(n + 1));
  if (!b->scope.cols)
    return nomem(err);
  for (int k = 0; k < n; k++) {
    lm_scope_col *e = &b->scope.cols[k];
    memset(e, 0, sizeof *e);
    e->rel = rel;
    e->name = in->fields[k].name;
    e->col = k;
    e->star = true;
  }
  b->scope.n = n;
  int rc = 0;
  lm_scope_col wr[MAX_STAGES]; /* whole-row names, kept last */
  int n_wr = 0;
  for (int i = 0; !rc && i < ch->n; i++) {
    int first = b->ext->n_fields;
    rc = build_stage(b, ch->stage[i], ch->outer[i],
                     weight_col < 0 ? -1 : b->ext->n_fields, rel,
                     i < ch->n_lead ? n : 0, wr, n_wr, a, err);
    int k = rc ? 0 : whole_row(ch->stage[i], first, b->ext, a, &wr[n_wr]);
    if (k < 0)
      rc = nomem(err);
    n_wr += k > 0;
  }
  if (!rc && ch->n_lead) {
    /* the calls written before the base: their names first (SELECT *
     * lists the FROM items in their written order) */
    int lead = 0;
    for (int i = 0; i < ch->n_lead; i++)
      lead += ch->stage[i]->n_funcs + (ch->stage[i]->ordinality ? 1 : 0);
    lm_scope_col *sc = lm_arena_alloc(a, sizeof *sc * (size_t)(b->scope.n + 1));
    if (!sc) {
      built_free(b);
      return nomem(err);
    }
    memcpy(sc, b->scope.cols + n, sizeof *sc * (size_t)lead);
    memcpy(sc + lead, b->scope.cols, sizeof *sc * (size_t)n);
    memcpy(sc + lead + n, b->scope.cols + n + lead,
           sizeof *sc * (size_t)(b->scope.n - n - lead));
    b->scope.cols = sc;
  }
  if (!rc && n_wr) {
    lm_scope_col *sc = scope_plus(b->scope.cols, b->scope.n, wr, n_wr, a);
    if (sc) {
      b->scope.cols = sc;
      b->scope.n += n_wr;
    } else {
      rc = nomem(err);
    }
  }
  if (!rc)
    rc = lm_plan_select_scope(sel, b->ext, rel, &b->scope, plan, err);
  if (rc)
    built_free(b);
  return rc;
}

/* --------------------------------------------------------- ad hoc */

/* Marks in used[0..n) the input columns x reads. */
static void mark_cols(const lm_bexpr *x, bool *used, int n) {
  if (!x)
    return;
  if (x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n)
    used[x->col] = true;
  for (int i = 0; i < x->n_args; i++)
    mark_cols(x->args[i], used, n);
  if (x->kind == LM_BX_SUBQUERY && x->sub) /* the outer values it reads */
    for (int i = 0; i < x->sub->n_params; i++)
      mark_cols(x->sub->param_exprs[i], used, n);
}

/* Marks in used[0..n) the columns of the stages' output that ad-hoc plan p
 * (over that output) reads: WHERE, GROUP BY keys, aggregate arguments and
 * ORDER BY, the projection without aggregation (ORDER BY and DISTINCT read
 * the projection). false when p has a shape not understood here: every
 * column is then kept. */
static bool plan_reads(const built *b, const lm_plan *p, bool *used, int n) {
  if (!p || p->join || p->topn || p->changelog_input || p->n_tfilter ||
      p->window_kind != LM_WIN_NONE || b->n_stages == MAX_STAGES)
    return false;
  mark_cols(p->where, used, n);
  for (int k = 0; k < p->n_keys; k++)
    mark_cols(p->keys[k], used, n);
  for (int k = 0; k < p->n_aggs; k++)
    mark_cols(p->aggs[k].arg, used, n);
  for (int k = 0; k < p->n_agg_order; k++)
    mark_cols(p->agg_order[k].expr, used, n);
  if (!p->has_agg) /* with ORDER BY's hidden columns after n_out */
    for (int o = 0; o < (p->out_schema ? p->out_schema->n_fields : p->n_out);
         o++)
      mark_cols(p->out[o], used, n);
  return true;
}

typedef struct adhoc_ctx {
  const lm_select *sel; /* over the base */
  const chain *ch;
  const char *rel;
  lm_arena *a;
  built b;
} adhoc_ctx;

static int adhoc_build(void *ctx, lm_schema *in, lm_plan **plan,
                       lm_operator **head, lm_operator **tail, lm_error *err) {
  adhoc_ctx *x = ctx;
  int rc = build_all(x->sel, x->ch, in, x->rel, -1, x->a, &x->b, plan, err);
  if (rc)
    return rc;
  /* the columns nothing reads are not repeated into each function row (a
   * large jsonb document into each of its elements' rows) */
  int n = x->b.ext->n_fields;
  bool *used = lm_arena_alloc(x->a, sizeof *used * (size_t)(n + 1));
  if (!used) {
    built_free(&x->b);
    lm_plan_free(*plan);
    *plan = NULL;
    return nomem(err);
  }
  lm_operator *ops[MAX_STAGES];
  int n_ops = 0;
  for (lm_operator *o = x->b.head; o && n_ops < MAX_STAGES; o = o->next) {
    ops[n_ops++] = o;
    if (o == x->b.tail)
      break;
  }
  /* stage i keeps what the plan and the stages after it read (its own
   * arguments are computed before its rows are made) */
  if (n_ops == x->b.n_stages && plan_reads(&x->b, *plan, used, n))
    for (int i = n_ops - 1; !rc && i >= 0; i--) {
      rc = lm_op_project_set_unused(ops[i], used, n) ? nomem(err) : 0;
      for (int j = 0; j < x->b.n_calls[i]; j++)
        for (int k = 0; k < x->b.calls[i][j].n_args; k++)
          mark_cols(x->b.calls[i][j].args[k], used, n);
    }
  if (rc) {
    built_free(&x->b);
    lm_plan_free(*plan);
    *plan = NULL;
    return rc;
  }
  *head = x->b.head;
  *tail = x->b.tail;
  x->b.head = x->b.tail = NULL; /* the caller frees them */
  lm_schema_release(x->b.ext);
  x->b.ext = NULL;
  return 0;
}

bool lm_srf_stream_applies(const lm_select *sel, const lm_from **base) {
  chain ch;
  if (!chain_of(sel, &ch, false))
    return false;
  *base = ch.base;
  return true;
}

int lm_srf_stream_select(laminar_db *db, lm_arena *a, const lm_select *sel,
                         const lm_from *base, laminar_result **res,
                         lm_error *err) {
  chain ch;
  if (!chain_of(sel, &ch, false))
    return lm_err(err, LM_ERR_GENERIC, "srf_stream: not a function chain");
  bool oom = false;
  lm_select body = *sel;
  body.where = where_of(a, sel, &ch, &oom);
  if (oom)
    return nomem(err);
  body.adhoc_rewritten = true;
  body.from_subquery = NULL;
  body.from_clause = (lm_from *)base;
  body.from = base ? base->name : NULL;
  body.from_alias = base ? base->alias : NULL;
  if (base) {
    body.from_line = base->line;
    body.from_column = base->column;
  }
  adhoc_ctx x;
  memset(&x, 0, sizeof x);
  x.sel = &body;
  x.ch = &ch;
  x.rel = base ? (base->alias ? base->alias : base->name) : NULL;
  x.a = a;
  for (int i = 0; i < ch.n; i++) /* EXPLAIN: what the stages call */
    lm_xt_pset_stage(i, ch.stage[i], ch.outer[i]);
  lm_select_pre pre = {adhoc_build, &x};
  return lm_engine_select_pre(db, &body, &pre, res, err);
}

/* ---------------------------------------------------- continuous */

struct lm_srf_cq {
  lm_arena *a; /* the rewritten AST and the bound arguments */
  lm_select body;
  chain ch;
  const char *rel;
  built b;
};

void lm_srf_cq_free(lm_srf_cq *cq) {
  if (!cq)
    return;
  built_free(&cq->b);
  if (cq->a) {
    lm_arena_free(cq->a);
    free(cq->a);
  }
  free(cq);
}

/* The relations (tables, sources, views, subqueries) in FROM tree f. */
static int rels(const lm_from *f, int depth) {
  if (!f || depth > 1000)
    return 0;
  if (f->kind == LM_FROM_JOIN)
    return rels(f->left, depth + 1) + rels(f->right, depth + 1);
  return f->kind == LM_FROM_TABLE || f->kind == LM_FROM_SUBQUERY;
}

int lm_srf_cq_prepare(const lm_select *sel, lm_srf_cq **out,
                      const lm_select **body, lm_error *err) {
  *out = NULL;
  *body = sel;
  if (!lm_srf_select_applies(sel))
    return 0;
  lm_srf_cq *cq = calloc(1, sizeof *cq);
  lm_arena *a = calloc(1, sizeof *a);
  if (!cq || !a) {
    free(cq);
    free(a);
    return nomem(err);
  }
  lm_arena_init(a, 4096);
  cq->a = a;
  const lm_select *rw = sel;
  int rc = lm_srf_rewrite_select(a, sel, &rw, err);
  if (!rc && !chain_of(rw, &cq->ch, true)) {
    const lm_from *f = rw->from_clause;
    rc = lm_engine_pos_err(
        err, LM_ERR_BIND, f ? f->line : sel->line, f ? f->column : sel->column,
        "set-returning functions in a continuous query (CREATE STREAM / "
        "MATERIALIZED VIEW) are supported over one source, stream, table or "
        "view followed by function calls (FROM s, generate_series(1, s.n) g; "
        "CROSS JOIN LATERAL; LEFT JOIN LATERAL ... ON TRUE) or in the select "
        "list, without subquery expressions or window functions");
    lm_err_state(err, "0A000");
    if (rels(rw->from_clause, 0) > 1)
      lm_err_hint(err, "Write the join as a materialized view and call the "
                       "functions over it: CREATE MATERIALIZED VIEW ab AS "
                       "SELECT ... FROM a JOIN b ...; then FROM ab, "
                       "f(ab.x).");
  }
  if (!rc && (!cq->ch.base || cq->ch.base->kind != LM_FROM_TABLE ||
              cq->ch.base->n_col_aliases)) {
    const lm_from *f = cq->ch.base ? cq->ch.base : cq->ch.stage[0];
    rc = lm_engine_pos_err(err, LM_ERR_BIND, f->line, f->column,
                           "set-returning functions in a continuous query "
                           "need a source, stream, table or view in FROM "
                           "(not a subquery), before or after the calls");
    lm_err_state(err, "0A000");
  }
  bool oom = false;
  if (!rc) {
    cq->body = *rw;
    cq->body.where = where_of(a, rw, &cq->ch, &oom);
    if (oom)
      rc = nomem(err);
    const lm_from *bs = cq->ch.base;
    cq->body.from_clause = (lm_from *)bs;
    cq->body.from = bs->name;
    cq->body.from_alias = bs->alias;
    cq->body.from_subquery = NULL;
    cq->body.from_line = bs->line;
    cq->body.from_column = bs->column;
    cq->rel = bs->alias ? bs->alias : bs->name;
  }
  if (rc) {
    lm_srf_cq_free(cq);
    return rc;
  }
  *out = cq;
  *body = &cq->body;
  return 0;
}

int lm_srf_stage_items(const lm_select *sel, lm_arena *a, const lm_from **items,
                       bool *outer, int max) {
  if (!lm_srf_select_applies(sel))
    return 0;
  const lm_select *rw = sel;
  lm_error err;
  lm_err_clear(&err);
  chain ch;
  if (lm_srf_rewrite_select(a, sel, &rw, &err) || !chain_of(rw, &ch, true))
    return 0;
  int n = ch.n < max ? ch.n : max;
  for (int i = 0; i < n; i++) {
    items[i] = ch.stage[i];
    outer[i] = ch.outer[i];
  }
  return n;
}

int lm_srf_cq_plan(lm_srf_cq *cq, lm_schema *in, int weight_col, lm_plan **plan,
                   lm_error *err) {
  return build_all(&cq->body, &cq->ch, in, cq->rel, weight_col, cq->a, &cq->b,
                   plan, err);
}

int lm_srf_cq_cols(const lm_srf_cq *cq) {
  return cq->b.ext ? cq->b.ext->n_fields : 0;
}

void lm_srf_cq_attach(lm_srf_cq *cq, lm_operator **head) {
  cq->b.tail->next = *head;
  *head = cq->b.head;
  lm_op_project_set_own(cq->b.head, cq->a);
  cq->a = NULL;
  cq->b.head = cq->b.tail = NULL;
  lm_srf_cq_free(cq);
}
