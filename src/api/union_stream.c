/* UNION ALL of streams in continuous queries (docs/setops.md, "UNION ALL
 * of streams"; engine.h for the contracts).
 *
 * CREATE STREAM u AS SELECT .. FROM a UNION ALL SELECT .. FROM b: one
 * query with an input per operand (lm_query.ins[i]: the operand's FROM
 * node and its own pipeline: late-row filter, then the operand's plan —
 * filter, projection, aggregate, window, Top-N). Every pipeline ends in
 * this file's input callback for its operand, which casts the operand's
 * columns to the union's types, passes __weight on (or adds +1 for an
 * append-only operand of an updating union) and emits the rows as the
 * union node's. The union's watermark is the minimum over its operands'
 * watermarks (Spark's SPARK-22017, Hazelcast #21053), so a window over the
 * union never sees an operand's rows as late because another operand ran
 * ahead; an operand reading a source idle for its 'idle.timeout.ms' stops
 * holding the minimum back (Flink's idleness, RisingWave #11554).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "exec/lm_strfn.h"
#include "plan/lm_plan.h"

typedef struct lm_union lm_union;

/* The output callback context of operand i. */
typedef struct uin {
  lm_union *u;
  int i;
} uin;

struct lm_union {
  lm_query *q;
  int n;
  lm_plan **plans;   /* operand plans; plans[0] is also q->plan (owned there) */
  bool *changelog;   /* per operand: its pipeline emits __weight */
  int64_t *wm;       /* per operand: its latest watermark (µs; MIN = none) */
  lm_bexpr *bx;      /* n * nf * 2: a column reference and its cast */
  lm_bexpr **argp;   /* n * nf: the cast's argument (the column) */
  lm_bexpr **use;    /* n * nf: what each output column evaluates */
  uin *ctx;          /* n callback contexts */
  lm_operator *sink; /* the agg_op slot of lm_pipeline_build_ex (unused) */
  /* FROM (... UNION ALL ...) t: the outer query's pipeline (q->head, owned
   * there) receives the union's rows and watermark instead of the node;
   * every operand plan is then owned here (q->plan is the outer plan) */
  lm_operator *down;
  int64_t down_wm;
  bool owns_all; /* plans[0] too (the outer query owns its own plan) */
  /* the union's rows: ts (columns), ws (ts + __weight when cl) */
  lm_schema *ts, *ws;
  bool cl;
};

void lm_union_free(lm_union *u) {
  if (!u)
    return;
  for (int i = u->owns_all ? 0 : 1; i < u->n; i++)
    lm_plan_free(u->plans[i]);
  free(u->plans);
  free(u->changelog);
  free(u->wm);
  free(u->bx);
  free(u->argp);
  free(u->use);
  free(u->ctx);
  lm_schema_release(u->ts);
  lm_schema_release(u->ws);
  free(u);
}

void lm_union_operand(const lm_union *u, int i, const lm_plan **plan,
                      bool *changelog) {
  *plan = u->plans[i];
  *changelog = u->changelog[i];
}

int lm_union_operands(const lm_select *sel, const lm_select **ops, int cap) {
  if (!sel || cap <= 0)
    return 0;
  if (!sel->setop) {
    ops[0] = sel;
    return 1;
  }
  int n = lm_union_operands(sel->set_left, ops, cap);
  return n + lm_union_operands(sel->set_right, ops + n, cap - n);
}

/* FROM (q1 UNION ALL q2 ...) [alias] of a single-relation query */
static bool from_union(const lm_select *sel) {
  return sel->from_subquery && sel->from_subquery->setop && sel->from_clause &&
         sel->from_clause->kind == LM_FROM_SUBQUERY &&
         !sel->from_clause->n_col_aliases;
}

bool lm_union_applies(const lm_select *sel) {
  return sel && (sel->setop != LM_SETOP_NONE || from_union(sel));
}

/* Whether input i reads a source that has been quiet for its
 * 'idle.timeout.ms' (processing time). */
static bool input_idle(const lm_union *u, int i) {
  const lm_node *s = u->q->ins[i].node;
  return s->kind == LM_NODE_SOURCE && s->idle_timeout > 0 && !s->ended &&
         u->q->db->now_us - s->last_row_at >= s->idle_timeout;
}

/* Moves the union's watermark to the minimum over its operands (the idle
 * ones left out while another is active). */
static int refresh_wm(lm_union *u, lm_error *err) {
  int64_t lo = INT64_MAX, lo_all = INT64_MAX;
  bool active = false;
  for (int i = 0; i < u->n; i++) {
    if (u->wm[i] < lo_all)
      lo_all = u->wm[i];
    if (input_idle(u, i))
      continue;
    active = true;
    if (u->wm[i] < lo)
      lo = u->wm[i];
  }
  int64_t wm = active ? lo : lo_all;
  if (wm == INT64_MIN)
    return 0;
  if (u->down) {
    if (u->down_wm != INT64_MIN && wm <= u->down_wm)
      return 0;
    u->down_wm = wm;
    return lm_operator_watermark(u->down, wm, err);
  }
  return lm_engine_watermark(u->q->db, u->q->output, wm, err);
}

static int in_wm(void *ctx, int64_t wm, lm_error *err) {
  uin *c = ctx;
  if (wm > c->u->wm[c->i])
    c->u->wm[c->i] = wm;
  return refresh_wm(c->u, err);
}

/* A batch of operand i (its plan's columns, then __weight if its pipeline
 * is a changelog): cast to the union's columns and emitted. */
static int in_batch(void *ctx, lm_batch *b, lm_error *err) {
  uin *c = ctx;
  lm_union *u = c->u;
  lm_node *n = u->q->output;
  const lm_schema *ts = u->ts, *ws = u->ws;
  int nf = ts->n_fields;
  if (!b->num_rows)
    return 0;
  lm_batch *p = NULL;
  int rc = lm_project(&u->use[(size_t)c->i * (size_t)nf], nf, (lm_schema *)ts,
                      b, &p, err);
  if (rc)
    return rc;
  lm_array **cols = calloc((size_t)nf + 2, sizeof *cols);
  if (!cols) {
    lm_batch_release(p);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < nf; k++)
    cols[k] = lm_array_retain(p->columns[k]);
  int64_t rows = p->num_rows;
  lm_batch_release(p);
  int ncols = nf;
  if (u->cl) {
    if (u->changelog[c->i]) {
      cols[nf] = lm_array_retain(b->columns[b->num_columns - 1]);
    } else { /* an append-only operand: every row inserts once */
      lm_builder wb;
      if (lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), rows)) {
        rc = LM_ERR_NOMEM;
      } else {
        for (int64_t r = 0; r < rows; r++)
          lm_builder_append_i64_fast(&wb, 1);
        if (lm_builder_finish(&wb, &cols[nf]))
          rc = LM_ERR_NOMEM;
        lm_builder_free(&wb);
      }
    }
    ncols = nf + 1;
  }
  lm_batch *out = NULL;
  if (!rc)
    out = lm_batch_new(lm_schema_retain((lm_schema *)ws), rows, cols);
  if (!out) {
    for (int k = 0; k < ncols; k++)
      lm_array_release(cols[k]);
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  free(cols);
  rc = u->down ? lm_operator_push(u->down, out, err)
               : lm_engine_node_emit(u->q->db, n, out, err);
  lm_batch_release(out);
  return rc;
}

static int drop_late(void *ctx, lm_batch *b, lm_error *err) {
  (void)ctx, (void)b, (void)err;
  return 0;
}

int lm_union_tick(laminar_db *db, lm_error *err) {
  for (int i = 0; i < db->n_nodes; i++) {
    lm_query *q = db->nodes[i]->query;
    int rc = q && q->uni && !q->failed ? refresh_wm(q->uni, err) : 0;
    if (rc && (rc = lm_engine_isolate(db, q, rc, err))) /* failures.md */
      return rc;
  }
  return 0;
}

/* ------------------------------------------------------------- CREATE */

/* The operands of a UNION ALL tree, left to right, into ops (cap 256);
 * anything but UNION ALL between them is refused at its keyword. */
static int flatten(const lm_select *s, const lm_select **ops, int *n, int depth,
                   lm_error *err) {
  if (depth > 200 || *n >= 256)
    return lm_err(err, LM_ERR_LIMIT, "too many UNION ALL operands (256 max)");
  if (!s->setop) {
    ops[(*n)++] = s;
    return 0;
  }
  if (s->setop != LM_SETOP_UNION || !s->set_all) {
    const char *what = s->setop == LM_SETOP_UNION       ? "UNION"
                       : s->setop == LM_SETOP_INTERSECT ? "INTERSECT"
                                                        : "EXCEPT";
    char m[300];
    snprintf(m, sizeof m,
             "%s%s is not supported in continuous queries (CREATE STREAM / "
             "MATERIALIZED VIEW) yet, only UNION ALL; run it as an ad-hoc "
             "SELECT over views",
             what, s->set_all ? " ALL" : "");
    return lm_engine_pos_err(err, LM_ERR_BIND, s->line, s->column, m);
  }
  if (s->n_order_by || s->limit >= 0 || s->offset > 0 || s->limit_expr ||
      s->offset_expr)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, s->line, s->column,
        "ORDER BY, LIMIT and OFFSET are not supported in a continuous query "
        "(use them in a SELECT over a view)");
  int rc = flatten(s->set_left, ops, n, depth + 1, err);
  return rc ? rc : flatten(s->set_right, ops, n, depth + 1, err);
}

/* Plans operand s over its FROM node: *in, *plan (a new plan) and whether
 * its pipeline emits a changelog. */
static int plan_operand(laminar_db *db, const lm_select *s, lm_node **in,
                        lm_plan **plan, bool *changelog, lm_error *err) {
  *plan = NULL;
  if (s->values || s->n_ctes || lm_select_needs_join_plan(s) ||
      (lm_select_has_over(s) && !s->from_subquery) || s->late_data_to ||
      (!s->from && s->from_clause))
    return lm_engine_pos_err(
        err, LM_ERR_BIND, s->line, s->column,
        "a UNION ALL operand of a continuous query reads one source, "
        "stream, table or view (no join, subquery other than a Top-N, "
        "window function, VALUES, WITH or LATE DATA TO yet): make that part "
        "a stream and union the stream");
  if (!s->from)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, s->line, s->column,
        "a continuous query needs FROM <source, stream or view>");
  int rc = lm_engine_select_check(s, err);
  if (rc)
    return rc;
  if (s->from_subquery && (rc = lm_setop_check_continuous(s, err)))
    return rc;
  *in = lm_engine_find_input(db, s->from, s->from_line, s->from_column, err);
  if (!*in)
    return err->code;
  if ((rc = lm_plan_select(s, (*in)->table_schema, (*in)->name, plan, err)))
    return rc;
  if ((*in)->changelog &&
      (rc = lm_engine_plan_changelog_input(*plan, *in, s, err)))
    return rc;
  bool windowed = (*plan)->has_agg && (*plan)->window_kind != LM_WIN_NONE;
  const char *bad = lm_engine_emit_check(s, *plan, windowed);
  if (!bad && windowed && (*in)->kind == LM_NODE_SOURCE &&
      (*in)->wm_col != (*plan)->window_time_col)
    bad = "the window's time column must be the source's WATERMARK column";
  if (bad)
    return lm_engine_pos_err(err, LM_ERR_BIND, s->line, s->column, bad);
  if ((rc = lm_engine_emit_wm_check(s, windowed, in, 1, true, err)))
    return rc;
  *changelog = lm_engine_result_changelog(*plan, windowed);
  return 0;
}

/* Output types: PostgreSQL's UNION resolution over every operand's
 * columns (names of the first); *out a new schema. */
static int union_schema(lm_plan **plans, const lm_select **ops, int n,
                        lm_schema **out, lm_error *err) {
  *out = NULL;
  const lm_schema *s0 = plans[0]->out_schema;
  int nf = s0->n_fields;
  for (int i = 1; i < n; i++)
    if (plans[i]->out_schema->n_fields != nf)
      return lm_engine_pos_err(
          err, LM_ERR_BIND, ops[i]->line, ops[i]->column,
          "each UNION query must have the same number of columns (42601)");
  lm_schema *os = lm_schema_new(nf);
  if (!os)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int c = 0; c < nf; c++) {
    lm_type t = s0->fields[c].type;
    for (int i = 1; i < n; i++) {
      lm_type b = plans[i]->out_schema->fields[c].type, r;
      if (!lm_setop_resolve_types(t, b, &r)) {
        char m[300];
        snprintf(m, sizeof m, "UNION types %s and %s cannot be matched (42804)",
                 lm_pg_type_name(t), lm_pg_type_name(b));
        lm_schema_release(os);
        return lm_engine_pos_err(err, LM_ERR_BIND, ops[i]->line, ops[i]->column,
                                 m);
      }
      t = r;
    }
    if (t.id == LM_TYPE_NULL)
      t = lm_type_make(LM_TYPE_UTF8); /* NULL in every operand: text */
    lm_schema_set_field(os, c, s0->fields[c].name, t, true);
  }
  *out = os;
  return 0;
}

/* The cast expressions of every operand's columns to the union's types. */
static int build_casts(lm_union *u, const lm_schema *ts, lm_error *err) {
  int nf = ts->n_fields;
  size_t cells = (size_t)u->n * (size_t)nf;
  u->bx = calloc(cells * 2 + 1, sizeof *u->bx);
  u->argp = calloc(cells + 1, sizeof *u->argp);
  u->use = calloc(cells + 1, sizeof *u->use);
  if (!u->bx || !u->argp || !u->use)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < u->n; i++) {
    const lm_schema *is = u->plans[i]->out_schema;
    for (int c = 0; c < nf; c++) {
      size_t k = (size_t)i * (size_t)nf + (size_t)c;
      lm_bexpr *col = &u->bx[2 * k], *cx = &u->bx[2 * k + 1];
      col->kind = LM_BX_COLUMN;
      col->type = is->fields[c].type;
      col->col = c;
      u->argp[k] = col;
      u->use[k] = col;
      if (!lm_type_eq(col->type, ts->fields[c].type)) {
        cx->kind = LM_BX_CAST;
        cx->type = ts->fields[c].type;
        cx->tz = lm_tz_session(); /* TIMESTAMP -> TIMESTAMPTZ (lm_tz.h) */
        cx->args = &u->argp[k];
        cx->n_args = 1;
        u->use[k] = cx;
      }
    }
  }
  return 0;
}

static int node_out_batch(void *ctx, lm_batch *b, lm_error *err) {
  lm_query *q = ctx;
  return lm_engine_node_emit(q->db, q->output, b, err);
}
static int node_out_wm(void *ctx, int64_t wm, lm_error *err) {
  lm_query *q = ctx;
  return lm_engine_watermark(q->db, q->output, wm, err);
}

/* The query over FROM (... UNION ALL ...) [alias]: *plan over the union's
 * columns ts (cl: a changelog), *changelog whether its result updates. */
static int plan_outer(const lm_select *sel, lm_schema *ts, bool cl,
                      lm_plan **plan, bool *changelog, lm_error *err) {
  *plan = NULL;
  if (sel->late_data_to || lm_select_has_over(sel))
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "LATE DATA TO and window functions over a UNION ALL subquery are not "
        "supported yet: create the UNION ALL as a stream and query it");
  int rc = lm_engine_select_check(sel, err);
  if (rc)
    return rc;
  lm_select o = *sel; /* the same query, FROM the union's rows */
  const char *name = sel->from_alias ? sel->from_alias : "union";
  o.from = name;
  o.from_subquery = NULL;
  o.from_clause = NULL;
  if ((rc = lm_plan_select(&o, ts, name, plan, err)))
    return rc;
  if (cl) {
    lm_node fake;
    memset(&fake, 0, sizeof fake);
    fake.table_schema = ts;
    fake.name = (char *)name;
    if ((rc = lm_engine_plan_changelog_input(*plan, &fake, sel, err)))
      return rc;
  }
  bool windowed = (*plan)->has_agg && (*plan)->window_kind != LM_WIN_NONE;
  const char *bad = lm_engine_emit_check(sel, *plan, windowed);
  if (bad)
    return lm_engine_pos_err(err, LM_ERR_BIND, sel->line, sel->column, bad);
  *changelog = lm_engine_result_changelog(*plan, windowed);
  return 0;
}

int lm_union_create(laminar_db *db, const lm_stmt *st, lm_node_kind kind,
                    lm_error *err) {
  const lm_select *sel = st->select;
  /* FROM (... UNION ALL ...) t: the union feeds the outer query's pipeline */
  const lm_select *outer = sel->setop ? NULL : sel;
  const lm_select *top = outer ? sel->from_subquery : sel;
  const lm_select *ops[256];
  int n_ops = 0;
  int rc = flatten(top, ops, &n_ops, 0, err);
  if (rc)
    return rc;
  int taken = lm_engine_name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  if (st->n_options)
    return lm_engine_pos_err(err, LM_ERR_BIND, st->options[0].line,
                             st->options[0].column,
                             "WITH options of a query ('state.ttl') apply to "
                             "joins only");
  lm_union *u = calloc(1, sizeof *u);
  lm_node **ins = calloc((size_t)n_ops, sizeof *ins);
  if (!u || !ins) {
    free(u);
    free(ins);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  u->n = n_ops;
  u->plans = calloc((size_t)n_ops, sizeof *u->plans);
  u->changelog = calloc((size_t)n_ops, sizeof *u->changelog);
  u->wm = malloc(sizeof *u->wm * (size_t)n_ops);
  u->ctx = calloc((size_t)n_ops, sizeof *u->ctx);
  if (!u->plans || !u->changelog || !u->wm || !u->ctx)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool changelog = false;
  int64_t lateness = 0;
  for (int i = 0; !rc && i < n_ops; i++) {
    u->wm[i] = INT64_MIN;
    rc = plan_operand(db, ops[i], &ins[i], &u->plans[i], &u->changelog[i], err);
    if (!rc) {
      changelog = changelog || u->changelog[i];
      if (u->plans[i]->allowed_lateness_us > lateness)
        lateness = u->plans[i]->allowed_lateness_us;
    }
  }
  lm_schema *ts = NULL;
  if (!rc)
    rc = union_schema(u->plans, ops, n_ops, &ts, err);
  if (!rc) {
    u->ts = ts;
    u->cl = changelog;
    u->ws = changelog ? lm_engine_with_weight(ts) : lm_schema_retain(ts);
    if (!u->ws)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_plan *oplan = NULL;
  bool ocl = false;
  if (!rc && outer)
    rc = plan_outer(outer, ts, changelog, &oplan, &ocl, err);
  if (!rc && outer) /* the union's watermark is the minimum of its operands' */
    rc = lm_engine_emit_wm_check(
        outer, oplan->has_agg && oplan->window_kind != LM_WIN_NONE, ins, n_ops,
        true, err);
  if (rc) { /* no query owns plans[0] yet */
    lm_plan_free(oplan);
    for (int i = 0; u->plans && i < n_ops; i++)
      lm_plan_free(u->plans[i]);
    u->n = 0;
    lm_union_free(u);
    free(ins);
    return rc;
  }
  /* the event-time column: where every operand puts its input's */
  int tcol = -2;
  for (int i = 0; i < n_ops; i++) {
    const lm_node *in = ins[i];
    int itc = in->kind == LM_NODE_SOURCE ? in->wm_col : in->time_col1 - 1;
    int oc = lm_plan_out_time_col(u->plans[i], itc, changelog);
    tcol = tcol == -2 || tcol == oc ? oc : -1;
  }
  lm_node *n = NULL;
  lm_query *q = NULL;
  u->owns_all = outer != NULL;
  if (lm_engine_new_query_node(
          db, st, kind, outer ? oplan : u->plans[0], outer ? ocl : changelog,
          outer ? (tcol >= 0 ? tcol : -1) : -1, &n, &q, err)) {
    for (int i = outer ? 0 : 1; i < n_ops; i++)
      lm_plan_free(u->plans[i]);
    u->n = 0;
    lm_union_free(u);
    free(ins);
    return LM_ERR_NOMEM;
  }
  q->uni = u;
  u->q = q;
  u->down_wm = INT64_MIN;
  if (!outer) { /* the node's rows are the union's */
    n->time_col1 = tcol >= 0 ? tcol + 1 : 0;
    lm_schema_release(n->table_schema);
    lm_schema_release(n->schema);
    n->table_schema = lm_schema_retain(ts);
    n->schema = lm_schema_retain(u->ws);
  }
  q->input = ins[0];
  q->lateness = lateness;
  q->ins = calloc((size_t)n_ops, sizeof *q->ins);
  if (!q->ins || !n->schema) {
    lm_engine_free_node(n);
    free(ins);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (outer) {
    lm_output_cb ocb = {node_out_batch, node_out_wm, q};
    lm_output_cb olate = {drop_late, NULL, NULL};
    q->head = lm_pipeline_build_ex(q->plan, n->schema, ocl, ocb, olate,
                                   &q->agg_op, err);
    if (!q->head) {
      rc = err && err->code ? err->code : LM_ERR_NOMEM;
      lm_engine_free_node(n);
      free(ins);
      return rc;
    }
    u->down = q->head;
    if ((rc = lm_operator_tick(q->head, db->now_us, err))) {
      lm_engine_free_node(n);
      free(ins);
      return rc;
    }
  }
  rc = build_casts(u, ts, err);
  lm_output_cb late = {drop_late, NULL, NULL};
  for (int i = 0; !rc && i < n_ops; i++) {
    lm_node *in = ins[i];
    u->ctx[i].u = u;
    u->ctx[i].i = i;
    lm_output_cb cb = {in_batch, in_wm, &u->ctx[i]};
    lm_schema *ps = u->changelog[i]
                        ? lm_engine_with_weight(u->plans[i]->out_schema)
                        : lm_schema_retain(u->plans[i]->out_schema);
    lm_operator *h = NULL;
    if (ps)
      h = lm_pipeline_build_ex(u->plans[i], ps, u->changelog[i], cb, late,
                               &u->sink, err);
    u->sink = NULL;
    if (!h) {
      lm_schema_release(ps);
      rc = err && err->code ? err->code : LM_ERR_NOMEM;
      break;
    }
    /* the pipeline borrows ps: released with the query */
    lm_schema **os = realloc(q->owned_schemas,
                             sizeof(*os) * (size_t)(q->n_owned_schemas + 1));
    if (!os) {
      lm_pipeline_free(h);
      lm_schema_release(ps);
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    q->owned_schemas = os;
    q->owned_schemas[q->n_owned_schemas++] = ps;
    if (in->kind == LM_NODE_SOURCE && in->wm_col >= 0) {
      lm_operator *lf =
          lm_op_late_filter_new(in->wm_col, in->wm_delay, in->wm_skew,
                                u->plans[i]->allowed_lateness_us, late);
      if (!lf) {
        lm_pipeline_free(h);
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      lf->next = h;
      h = lf;
    }
    q->ins[q->n_ins].node = in;
    q->ins[q->n_ins++].head = h;
    rc = lm_operator_tick(h, db->now_us, err);
  }
  if (rc) {
    lm_engine_free_node(n);
    free(ins);
    return rc;
  }
  for (int i = 0; i < q->n_ins; i++) {
    lm_node *in = q->ins[i].node;
    lm_query **nq =
        realloc(in->queries, sizeof(*nq) * (size_t)(in->n_queries + 1));
    if (!nq) {
      for (int k = 0; k < i; k++) { /* undo: each once per occurrence */
        lm_node *kn = q->ins[k].node;
        for (int j = kn->n_queries - 1; j >= 0; j--)
          if (kn->queries[j] == q) {
            memmove(&kn->queries[j], &kn->queries[j + 1],
                    sizeof(*kn->queries) * (size_t)(kn->n_queries - j - 1));
            kn->n_queries--;
            break;
          }
      }
      lm_engine_free_node(n);
      free(ins);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    in->queries = nq;
    in->queries[in->n_queries++] = q;
  }
  free(ins);
  lm_node **nn = realloc(db->nodes, sizeof(*nn) * (size_t)(db->n_nodes + 1));
  if (!nn)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  db->nodes = nn;
  db->nodes[db->n_nodes++] = n;
  /* each operand's input so far (a bounded source is read again, an
   * updating input's rows seed it, its watermark applies) */
  for (int i = q->n_ins - 1; i >= 0 && !rc; i--)
    rc = lm_engine_catch_up(n, q->ins[i].node, q->ins[i].head,
                            &q->ins[i].needs_replay, err);
  return rc;
}
