/*
 * Ad-hoc SELECT (DESIGN.md, "Ad-hoc queries"): a query over the current
 * rows of views, tables and bounded sources, run once to completion
 * through the same operators as continuous queries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "api/group_fd.h"
#include "api/srf_from.h"
#include "exec/lm_join.h"
#include "exec/lm_join_oneshot.h"

/* -------------------------------------------------------------- SELECT */

static int collect(void *ctx, lm_batch *b, lm_error *err) {
  laminar_result *r = ctx; /* used as a plain batch list here */
  void *n =
      realloc(r->batches, sizeof(lm_batch *) * (size_t)(r->n_batches + 1));
  if (!n)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  r->batches = n;
  r->batches[r->n_batches++] = lm_batch_retain(b);
  return 0;
}

/* Reads a replayable source from the beginning (ad-hoc SELECT over a
 * bounded file or generator source). */
static int replay_source(lm_node *s, int64_t now_us, laminar_result *into,
                         lm_error *err) {
  if (!s->connector)
    return lm_err(err, LM_ERR_BIND,
                  "source '%s' has no stored rows: query a materialized view "
                  "over it, or subscribe to a stream",
                  s->name);
  lm_source_reader *r = NULL;
  int rc = lm_engine_open_reader(s, &r, err);
  if (rc)
    return rc;
  if (r->unbounded) {
    r->free(r);
    return lm_err(err, LM_ERR_BIND,
                  "source '%s' is unbounded: query a materialized view over "
                  "it instead",
                  s->name);
  }
  for (;;) {
    lm_batch *b = NULL;
    bool eof = false;
    if ((rc = r->poll(r, &b, &eof, err)))
      break;
    if (b && s->proctime_col1) { /* PROCTIME(): read now */
      lm_batch *p = lm_engine_with_proctime(s, b, now_us);
      lm_batch_release(b);
      if (!(b = p)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
    }
    if (b) {
      rc = collect(into, b, err);
      lm_batch_release(b);
      if (rc)
        break;
      continue;
    }
    if (eof)
      break;
  }
  r->free(r);
  return rc;
}

/* The rows of one ad-hoc join input: SELECT * FROM name, or the
 * subquery, as one batch (*out, a new reference). */
static int adhoc_input_rows(laminar_db *db, const lm_join_input *ji,
                            lm_batch **out, lm_error *err) {
  laminar_result *r = NULL;
  int rc;
  if (ji->subquery) {
    rc = lm_engine_select(db, ji->subquery, &r, err);
  } else {
    lm_expr star;
    lm_select_item it;
    lm_select ss;
    lm_sql_select_star(&ss, &it, &star, ji->name, ji->line, ji->column);
    rc = lm_engine_select(db, &ss, &r, err);
  }
  if (!rc)
    rc = lm_batch_concat(r->schema, r->batches, r->n_batches, out, err);
  laminar_result_free(r);
  return rc;
}

/* A side's rows through the step's key projection (a new reference). */
static int adhoc_side(const lm_join_step *js, int side, lm_batch *b,
                      lm_batch **out, lm_error *err) {
  if (!js->n_proj[side]) {
    *out = lm_batch_retain(b);
    return 0;
  }
  return lm_project(js->proj[side], js->n_proj[side], js->side_schema[side], b,
                    out, err);
}

/* Rows of an ad-hoc join's probe side pushed at a time: the joined rows
 * of one push stay small enough for the caches. */
#define ADHOC_PROBE_ROWS ((int64_t)65536)

/* The last join step of an ad-hoc SELECT left to select_run, which runs
 * it (lm_join_oneshot) with its output pushed straight into the query's
 * pipeline: the joined rows are never held all at once. The spec's
 * schemas and residual belong to the join plan (select_run's plan). */
typedef struct adhoc_tail {
  lm_join_spec sp;
  lm_batch *sides[2]; /* one reference each */
} adhoc_tail;
/* set by adhoc_join_rows for the select_run that follows (NULL = none) */
static _Thread_local adhoc_tail *join_tail;

static void adhoc_tail_free(adhoc_tail *t) {
  if (!t)
    return;
  lm_batch_release(t->sides[0]);
  lm_batch_release(t->sides[1]);
  free(t);
}

/* Step js as a one-shot hash join (exec/join_oneshot.c) into *sp, when it
 * qualifies (not under EXPLAIN, which reads the join operator's
 * counters): its output is then append-only, padded rows net. */
static bool adhoc_oneshot(const lm_join_step *js, lm_batch *const sides[2],
                          lm_join_spec *sp) {
  if (lm_xt_on())
    return false;
  lm_engine_join_spec(js, js->out_schema, sp);
  sp->out_changelog = false;
  return lm_join_oneshot_ok(sp, sides);
}

/* Ad-hoc SELECT over joins: the FROM clause's joined rows (every input
 * taken as its current rows; outer joins' retractions netted) into *input
 * (one batch, or the last join's output batches as they came; or none,
 * the last step being left in join_tail for select_run to stream), and
 * the plan over them into *plan. */
static int adhoc_join_rows(laminar_db *db, const lm_select *sel, lm_plan **plan,
                           laminar_result *input, lm_error *err) {
  lm_join_ctx jc = {db, NULL, 0, 0};
  int rc =
      lm_plan_join_select(sel, lm_engine_join_resolve, &jc, true, 0, plan, err);
  free(jc.nodes);
  if (rc)
    return rc;
  const lm_join_plan *jp = (*plan)->join;
  lm_batch *chain = NULL;
  lm_xt_next_role(LM_XT_JOIN_INPUT, NULL, (const void *)(intptr_t)0);
  rc = adhoc_input_rows(db, &jp->inputs[0], &chain, err);
  for (int s = 0; !rc && s < jp->n_steps; s++) {
    const lm_join_step *js = &jp->steps[s];
    lm_batch *right = NULL, *sides[2] = {NULL, NULL};
    lm_xt_next_role(LM_XT_JOIN_INPUT, NULL, (const void *)(intptr_t)(s + 1));
    rc = adhoc_input_rows(db, &jp->inputs[s + 1], &right, err);
    int lside = js->swapped ? 1 : 0;
    if (!rc)
      rc = adhoc_side(js, lside, chain, &sides[lside], err);
    if (!rc)
      rc = adhoc_side(js, 1 - lside, right, &sides[1 - lside], err);
    lm_batch_release(right);
    lm_join_spec osp;
    if (!rc && adhoc_oneshot(js, sides, &osp)) {
      lm_batch_release(chain);
      chain = NULL;
      bool last = s == jp->n_steps - 1;
      if (last && !(*plan)->n_agg_order) { /* select_run streams it */
        adhoc_tail *t = calloc(1, sizeof *t);
        if (!t)
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        else {
          t->sp = osp;
          t->sides[0] = sides[0];
          t->sides[1] = sides[1];
          sides[0] = sides[1] = NULL;
          adhoc_tail_free(join_tail);
          join_tail = t;
        }
      } else {
        laminar_result got = {0};
        lm_output_cb cb = {collect, NULL, &got};
        rc = lm_join_oneshot(&osp, sides, cb, NULL, err);
        if (!rc && last && got.n_batches > 0)
          for (int i = 0; i < got.n_batches && !rc; i++)
            rc = collect(input, got.batches[i], err);
        else if (!rc)
          rc = lm_batch_concat(js->out_schema, got.batches, got.n_batches,
                               &chain, err);
        for (int i = 0; i < got.n_batches; i++)
          lm_batch_release(got.batches[i]);
        free(got.batches);
      }
      lm_batch_release(sides[0]);
      lm_batch_release(sides[1]);
      continue;
    }
    lm_schema *os = js->out_changelog ? lm_engine_with_weight(js->out_schema)
                                      : lm_schema_retain(js->out_schema);
    laminar_result got = {0};
    lm_operator *j = NULL;
    if (!rc && !os)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    if (!rc) {
      lm_join_spec sp;
      lm_engine_join_spec(js, os, &sp);
      if (!(j = lm_op_join_new(&sp, err))) {
        rc = err->code ? err->code : LM_ERR_NOMEM;
        if (err->code && !err->line)
          lm_engine_join_err_at(err, js);
      }
    }
    if (!rc) {
      lm_output_cb cb = {collect, NULL, &got};
      if (!(j->next = lm_op_output_new(cb)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    /* one-shot: the smaller side is pushed (stored) first and declared
     * complete; the larger one is then only probed, slice by slice, and
     * not kept (an UPDATING join; others keep left then right) */
    int first = 0;
    bool oneshot = false;
    if (!rc) {
      int small = sides[1]->num_rows < sides[0]->num_rows ? 1 : 0;
      if ((oneshot = lm_join_side_done(j, small)))
        first = small;
    }
    for (int q = 0; q < 2 && !rc; q++) {
      int k = q ? 1 - first : first;
      lm_output_cb sc = lm_join_side(j, k);
      int64_t n = sides[k]->num_rows,
              step = q && oneshot ? ADHOC_PROBE_ROWS : n;
      if (n <= step) {
        rc = sc.batch(sc.ctx, sides[k], err);
        continue;
      }
      for (int64_t off = 0; off < n && !rc; off += step) {
        lm_batch *sl =
            lm_batch_slice(sides[k], off, n - off < step ? n - off : step);
        rc = sl ? sc.batch(sc.ctx, sl, err)
                : lm_err(err, LM_ERR_NOMEM, "out of memory");
        lm_batch_release(sl);
      }
    }
    for (int k = 0; k < 2 && !rc; k++) {
      lm_output_cb sc = lm_join_side(j, k);
      rc = sc.watermark(sc.ctx, INT64_MAX, err);
    }
    if (j)
      lm_xt_note_join(s, j);
    lm_pipeline_free(j);
    lm_batch_release(sides[0]);
    lm_batch_release(sides[1]);
    lm_batch_release(chain);
    chain = NULL;
    if (!rc && js->out_changelog)
      rc = lm_changelog_consolidate(os, got.batches, got.n_batches, false,
                                    js->out_schema, &chain, err);
    else if (!rc && s == jp->n_steps - 1 && got.n_batches > 0) {
      /* the last step's batches go to the pipeline as they are (no
       * concatenation) */
      for (int i = 0; i < got.n_batches && !rc; i++)
        rc = collect(input, got.batches[i], err);
    } else if (!rc)
      rc = lm_batch_concat(os, got.batches, got.n_batches, &chain, err);
    for (int i = 0; i < got.n_batches; i++)
      lm_batch_release(got.batches[i]);
    free(got.batches);
    lm_schema_release(os);
  }
  if (!rc && chain)
    rc = collect(input, chain, err);
  lm_batch_release(chain);
  return rc;
}

static int select_run(const lm_select *sel, lm_schema *in_schema,
                      const char *in_name, lm_plan *jplan,
                      laminar_result *input, int rc, int how,
                      laminar_result **res, lm_error *err);
static int select_plain(laminar_db *db, const lm_select *sel,
                        const lm_select_pre *pre, laminar_result **res,
                        lm_error *err);
/* set-returning functions' ProjectSet stages ahead of select_run's
 * pipeline (api/srf_stream.c); NULL head = none */
static _Thread_local lm_operator *pre_head, *pre_tail;

static int select_dispatch(laminar_db *db, const lm_select *sel,
                           laminar_result **res, lm_error *err) {
  if (lm_setop_applies(sel)) /* UNION, WITH, VALUES, derived tables */
    return lm_setop_select(db, sel, res, err);
  if (lm_select_has_over(sel)) /* window functions: select_over.c */
    return lm_engine_select_over(db, sel, res, err);
  return lm_engine_select_plain(db, sel, res, err);
}

int lm_engine_select(laminar_db *db, const lm_select *sel, laminar_result **res,
                     lm_error *err) {
  /* subquery expressions are planned and run within (select_subq.c) */
  lm_subq_env *env = lm_engine_subq_enter(db);
  lm_xt *xt = lm_xt_open(); /* EXPLAIN's trace (api/explain_adhoc.c) */
  int rc = 0;
  if (sel->limit_expr || sel->offset_expr)      /* LIMIT (SELECT ...) */
    rc = lm_engine_limit_resolve(db, sel, err); /* select_limit.c */
  if (rc)
    ;
  else if (sel->n_distinct_on && lm_select_has_over(sel))
    rc = lm_engine_pos_err(err, LM_ERR_BIND, sel->line, sel->column,
                           "SELECT DISTINCT ON with window functions is not "
                           "supported");
  else
    rc = select_dispatch(db, sel, res, err);
  if (rc && !strcmp(err->sqlstate, "42803") && sel->n_group_by > 0) {
    /* a column of a table grouped by its primary key (api/group_fd.c) */
    lm_arena a;
    lm_arena_init(&a, 4096);
    lm_select *fd = lm_group_fd_extend(db, sel, &a);
    if (fd) {
      lm_error first = *err;
      lm_err_clear(err);
      /* still 42803: another column, the one to name; else the first */
      if ((rc = select_dispatch(db, fd, res, err)) &&
          strcmp(err->sqlstate, "42803"))
        *err = first;
    }
    lm_arena_free(&a);
  }
  lm_xt_close(xt, rc ? NULL : *res, rc);
  lm_engine_subq_leave(env);
  return rc;
}

int lm_engine_select_plain(laminar_db *db, const lm_select *sel,
                           laminar_result **res, lm_error *err) {
  return select_plain(db, sel, NULL, res, err);
}

int lm_engine_select_pre(laminar_db *db, const lm_select *sel,
                         const lm_select_pre *pre, laminar_result **res,
                         lm_error *err) {
  return select_plain(db, sel, pre, res, err);
}

static int select_plain(laminar_db *db, const lm_select *sel,
                        const lm_select_pre *pre, laminar_result **res,
                        lm_error *err) {
  char m[400];
  lm_node *in = NULL;
  lm_plan *jplan = NULL; /* FROM with joins: planned with its rows */
  bool joined = lm_select_needs_join_plan(sel);
  bool ixd = false; /* WHERE col = constant through an index */
  if (!joined && sel->from &&
      !(in = lm_engine_find_input(db, sel->from, sel->from_line,
                                  sel->from_column, err)))
    return err->code;
  laminar_result input = {0};
  int rc = 0;
  lm_schema *in_schema =
      in ? lm_schema_retain(in->table_schema) : lm_schema_new(0);
  if (!in_schema)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_operator *ph = NULL, *pt = NULL;
  if (pre && (rc = pre->build(pre->ctx, in_schema, &jplan, &ph, &pt, err))) {
    lm_schema_release(in_schema);
    return rc;
  }
  if (joined) {
    rc = adhoc_join_rows(db, sel, &jplan, &input, err);
  } else if (!in && pre && lm_xt_dry()) {
    /* EXPLAIN without ANALYZE of functions over no relation: no row, so
     * that a long series is not made */
  } else if (!in) {
    /* SELECT without FROM: one row with no columns */
    lm_batch *one = lm_batch_new(lm_schema_retain(in_schema), 1, NULL);
    rc = one ? collect(&input, one, err)
             : lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_batch_release(one);
  } else if (in->kind == LM_NODE_MVIEW && in->view_rows && lm_xt_on() &&
             (rc = lm_view_explain_run(db, in->name, err))) {
    /* EXPLAIN: the view's query, run again for its description */
  } else if (lm_xt_dry() && in->kind != LM_NODE_STREAM &&
             (in->kind != LM_NODE_SOURCE || in->connector)) {
    /* EXPLAIN without ANALYZE: every relation reads as empty */
  } else if (in->kind == LM_NODE_MVIEW) {
    if (in->query && in->query->agg_op) {
      lm_batch *snap = NULL;
      rc = lm_op_aggregate_snapshot(in->query->agg_op, &snap, err);
      if (!rc) {
        rc = collect(&input, snap, err);
        lm_batch_release(snap);
      }
    } else if (in->changelog) {
      /* a windowed updating view: apply the changelog */
      lm_batch *cur = NULL;
      rc = lm_changelog_consolidate(in->schema, in->store, in->n_store, false,
                                    in->table_schema, &cur, err);
      if (!rc)
        rc = collect(&input, cur, err);
      lm_batch_release(cur);
    } else {
      for (int i = 0; i < in->n_store && !rc; i++)
        rc = collect(&input, in->store[i], err);
    }
  } else if (in->kind == LM_NODE_TABLE) {
    lm_batch *cur = NULL;
    if (!pre)
      rc = lm_table_index_select(in->table, sel, &cur, &ixd, err);
    if (!rc && !ixd)
      rc = lm_table_snapshot(in->table, &cur, err);
    if (!rc)
      rc = collect(&input, cur, err);
    lm_batch_release(cur);
  } else if (in->kind == LM_NODE_SOURCE) {
    rc = replay_source(in, db->now_us, &input, err);
    if (!rc && in->changelog) { /* a changelog source: its net rows */
      lm_batch *cur = NULL;
      rc = lm_changelog_consolidate(in->schema, input.batches, input.n_batches,
                                    false, in->table_schema, &cur, err);
      for (int i = 0; i < input.n_batches; i++)
        lm_batch_release(input.batches[i]);
      input.n_batches = 0;
      if (!rc)
        rc = collect(&input, cur, err);
      lm_batch_release(cur);
    }
  } else {
    snprintf(m, sizeof m,
             "'%s' is a stream: its rows are not stored; create a "
             "MATERIALIZED VIEW over it (or subscribe through the C API)",
             in->name);
    rc = lm_engine_pos_err(err, LM_ERR_BIND, sel->from_line, sel->from_column,
                           m);
  }
  pre_head = ph; /* select_run pushes through them, then frees them */
  pre_tail = pt;
  return select_run(sel, in_schema, in ? in->name : NULL, jplan, &input, rc,
                    ixd ? 2 : 0, res, err);
}

int lm_engine_select_rows(const lm_select *sel, lm_batch *rows,
                          const char *name, laminar_result **res,
                          lm_error *err) {
  laminar_result input = {0};
  int rc = collect(&input, rows, err);
  return select_run(sel, lm_schema_retain(rows->schema), name, NULL, &input, rc,
                    1, res, err);
}

/* Marks in used[] (n columns) the input columns x reads. */
static void mark_used(const lm_bexpr *x, bool *used, int n) {
  if (!x)
    return;
  if (x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n)
    used[x->col] = true;
  for (int i = 0; i < x->n_args; i++)
    mark_used(x->args[i], used, n);
  if (x->kind == LM_BX_SUBQUERY) /* the outer values a subquery reads */
    for (int i = 0; i < x->sub->n_params; i++)
      mark_used(x->sub->param_exprs[i], used, n);
}

/* A filtered aggregate without windows reads only the columns of its WHERE,
 * GROUP BY keys and aggregate arguments: b with every other column replaced
 * by a NULL-typed placeholder of b's length (a new reference), so the filter
 * does not copy them (bench/flights_adhoc: strings nobody reads). NULL when
 * the plan does not qualify or every column is read; the caller then
 * pushes b itself. */
static lm_batch *slim_input(const lm_plan *p, lm_batch *b) {
  int n = b->num_columns;
  if (!p->has_agg || p->window_kind != LM_WIN_NONE || p->topn || !p->where ||
      p->changelog_input || n > 256)
    return NULL;
  bool used[257] = {false};
  mark_used(p->where, used, n);
  for (int k = 0; k < p->n_keys; k++)
    mark_used(p->keys[k], used, n);
  for (int a = 0; a < p->n_aggs; a++)
    mark_used(p->aggs[a].arg, used, n);
  int unused = 0;
  for (int c = 0; c < n; c++)
    unused += !used[c] && b->columns[c]->type.id != LM_TYPE_NULL;
  if (!unused)
    return NULL;
  lm_array **cols = calloc((size_t)n + 1, sizeof *cols);
  if (!cols)
    return NULL;
  for (int c = 0; c < n; c++) {
    cols[c] = used[c]
                  ? lm_array_retain(b->columns[c])
                  : lm_array_new_null(lm_type_make(LM_TYPE_NULL), b->num_rows);
    if (!cols[c]) {
      while (c--)
        lm_array_release(cols[c]);
      free(cols);
      return NULL;
    }
  }
  lm_batch *r = lm_batch_new(lm_schema_retain(b->schema), b->num_rows, cols);
  free(cols);
  return r;
}

/* The streamed join's output (adhoc_tail) into the query's first
 * operator. */
typedef struct join_fwd {
  lm_operator *to;
  const lm_plan *plan;
  int64_t batches;
} join_fwd;

static int join_forward(void *ctx, lm_batch *b, lm_error *err) {
  join_fwd *f = ctx;
  lm_batch *slim = slim_input(f->plan, b);
  int rc = lm_operator_push(f->to, slim ? slim : b, err);
  lm_batch_release(slim);
  f->batches++;
  return rc;
}

/* agg(... ORDER BY k, ...) (plan->agg_order): the input rows as one batch
 * sorted by the keys (stable: ties keep their order), replacing
 * input's batches. */
static int sort_agg_input(const lm_plan *p, laminar_result *input,
                          lm_error *err) {
  if (!input->n_batches)
    return 0;
  lm_schema *sch = input->batches[0]->schema;
  int nc = sch->n_fields, nk = p->n_agg_order;
  lm_batch *all = NULL, *ext = NULL, *sorted = NULL;
  lm_schema *es = lm_schema_new(nc + nk);
  lm_array **cols = calloc((size_t)(nc + nk) + 1, sizeof *cols);
  lm_bexpr *refs = calloc((size_t)nk + 1, sizeof *refs);
  lm_sort_key *keys = calloc((size_t)nk + 1, sizeof *keys);
  int rc =
      !es || !cols || !refs || !keys
          ? lm_err(err, LM_ERR_NOMEM, "out of memory")
          : lm_batch_concat(sch, input->batches, input->n_batches, &all, err);
  for (int c = 0; !rc && c < nc; c++) {
    lm_schema_set_field(es, c, sch->fields[c].name, sch->fields[c].type,
                        sch->fields[c].nullable);
    cols[c] = lm_array_retain(all->columns[c]);
  }
  for (int k = 0; !rc && k < nk; k++) {
    rc = lm_eval(p->agg_order[k].expr, all, &cols[nc + k], err);
    if (rc)
      break;
    lm_schema_set_field(es, nc + k, "__agg_order", cols[nc + k]->type, true);
    refs[k].kind = LM_BX_COLUMN;
    refs[k].type = cols[nc + k]->type;
    refs[k].col = nc + k;
    keys[k] = p->agg_order[k];
    keys[k].expr = &refs[k];
  }
  if (!rc) {
    ext = lm_batch_new(lm_schema_retain(es), all->num_rows, cols);
    free(cols); /* the batch owns the arrays */
    cols = NULL;
    rc = ext ? lm_batch_sort(ext, keys, nk, 0, -1, &sorted, err)
             : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (!rc) {
    lm_array **oc = calloc((size_t)nc + 1, sizeof *oc);
    lm_batch *r = NULL;
    if (oc) {
      for (int c = 0; c < nc; c++)
        oc[c] = lm_array_retain(sorted->columns[c]);
      r = lm_batch_new(lm_schema_retain(sch), sorted->num_rows, oc);
      free(oc);
    }
    if (!r) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    } else {
      for (int i = 0; i < input->n_batches; i++)
        lm_batch_release(input->batches[i]);
      input->batches[0] = r;
      input->n_batches = 1;
    }
  }
  if (cols)
    for (int c = 0; c < nc + nk; c++)
      lm_array_release(cols[c]);
  free(cols);
  free(refs);
  free(keys);
  lm_batch_release(all);
  lm_batch_release(ext);
  lm_batch_release(sorted);
  lm_schema_release(es);
  return rc;
}

/* DISTINCT ON: the first row of each run of equal plan->distinct_on values
 * of the sorted rows *all (NULLs equal), then OFFSET / LIMIT; replaces
 * *all. */
static int distinct_on_rows(const lm_plan *p, lm_batch **all, lm_error *err) {
  lm_batch *b = *all;
  int nd = p->n_distinct_on;
  lm_type types[64];
  lm_array *keys[64];
  if (nd > 64)
    return lm_err(err, LM_ERR_BIND, "too many DISTINCT ON expressions");
  for (int i = 0; i < nd; i++) {
    keys[i] = b->columns[p->distinct_on[i]];
    types[i] = keys[i]->type;
  }
  lm_aggtable *t = lm_aggtable_new(nd, types, 0, NULL);
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)(b->num_rows + 1));
  int32_t *firsts = malloc(sizeof(int32_t) * (size_t)(b->num_rows + 1));
  int rc = !t || !g || !firsts
               ? lm_err(err, LM_ERR_NOMEM, "out of memory")
               : lm_aggtable_lookup(t, keys, NULL, b->num_rows, g, err);
  lm_batch *d = NULL, *cut = NULL;
  if (!rc) {
    int64_t k = 0, seen = 0;
    for (int64_t i = 0; i < b->num_rows; i++)
      if (g[i] == seen) {
        firsts[k++] = (int32_t)i;
        seen++;
      }
    d = lm_batch_take(b, firsts, k);
    rc = d ? lm_batch_sort(d, NULL, 0, p->offset, p->limit, &cut, err)
           : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_batch_release(d);
  lm_aggtable_free(t);
  free(g);
  free(firsts);
  if (!rc) {
    lm_batch_release(*all);
    *all = cut;
  }
  return rc;
}

/* Runs input's batches through the operators head..tail into a new list
 * that replaces input's (set-returning functions before an ordered
 * aggregate, which sorts all rows). */
static int run_pre(lm_operator *head, lm_operator *tail, laminar_result *input,
                   lm_error *err) {
  laminar_result got = {0};
  lm_output_cb cb = {collect, NULL, &got};
  lm_operator *o = lm_op_output_new(cb);
  int rc = o ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (o)
    tail->next = o;
  for (int i = 0; !rc && i < input->n_batches; i++)
    rc = lm_operator_push(head, input->batches[i], err);
  for (int i = 0; i < input->n_batches; i++)
    lm_batch_release(input->batches[i]);
  free(input->batches);
  *input = got;
  if (o)
    o->vt->free(o);
  tail->next = NULL;
  return rc;
}

/* Frees the operators head..tail (not what tail->next leads to). */
static void free_pre(lm_operator *head, lm_operator *tail) {
  for (lm_operator *o = head; o;) {
    lm_operator *nx = o == tail ? NULL : o->next;
    o->vt->free(o);
    o = nx;
  }
}

/* The plan of sel over its input rows (input: borrowed batch list, its
 * batches released here; in_schema: a reference, released here), run to
 * *res. rc: an error already met (then only cleans up). how (for EXPLAIN):
 * 1 = rows given by the caller, 2 = read through a table index. */
static int select_run(const lm_select *sel, lm_schema *in_schema,
                      const char *in_name, lm_plan *jplan,
                      laminar_result *input, int rc, int how,
                      laminar_result **res, lm_error *err) {
  lm_plan *plan = jplan;
  lm_operator *ph = pre_head, *pt = pre_tail;
  pre_head = pre_tail = NULL;
  adhoc_tail *jt = join_tail; /* the last join step, streamed below */
  join_tail = NULL;
  lm_xt_run xr; /* EXPLAIN's description of this run */
  memset(&xr, 0, sizeof xr);
  xr.sel = sel;
  /* with ProjectSet stages (ph), jplan is the plan over their output */
  xr.in_name = (how & 1) || (jplan && !ph) ? NULL : in_name;
  xr.given_rows = how & 1;
  xr.index = (how & 2) != 0;
  for (int i = 0; i < input->n_batches; i++)
    xr.rows_read += input->batches[i]->num_rows;
  if (!rc && !plan)
    rc = lm_plan_select(sel, in_schema, in_name, &plan, err);
  lm_schema_release(in_schema);
  if (!rc && sel->emit != LM_EMIT_DEFAULT)
    rc = lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "EMIT is only allowed in CREATE STREAM / MATERIALIZED VIEW");
  laminar_result out = {0};
  lm_operator *ops[5] = {0}, *agg = NULL;
  lm_schema *topn_ws = NULL; /* Top-N: its changelog, netted below */
  int n_ops = 0;
  if (!rc) {
    if (plan->where)
      ops[n_ops++] = lm_op_filter_new(plan->where);
    lm_output_cb no_late = {NULL, NULL, NULL};
    if (plan->topn) {
      if (plan->topn->where)
        ops[n_ops++] = lm_op_filter_new(plan->topn->where);
      ops[n_ops++] = lm_op_topn_new(plan);
      topn_ws = lm_engine_with_weight(plan->out_schema);
      ops[n_ops++] = topn_ws ? lm_op_project_weighted_new(
                                   plan->out, plan->out_schema->n_fields,
                                   topn_ws, plan->topn_rn_col + 1)
                             : NULL;
    } else if (plan->has_agg && plan->window_kind == LM_WIN_SESSION)
      ops[n_ops++] =
          lm_op_session_window_new(plan, LM_WEMIT_CLOSE, NULL, no_late);
    else if (plan->has_agg && plan->window_kind != LM_WIN_NONE)
      ops[n_ops++] =
          lm_op_window_aggregate_new(plan, LM_WEMIT_CLOSE, NULL, no_late);
    else if (plan->has_agg)
      ops[n_ops++] = agg = lm_op_aggregate_new(plan, NULL, false);
    else
      ops[n_ops++] = lm_op_project_new(plan->out, plan->out_schema->n_fields,
                                       plan->out_schema);
    lm_output_cb cb = {collect, NULL, &out};
    ops[n_ops++] = lm_op_output_new(cb);
    for (int i = 0; i < n_ops; i++)
      if (!ops[i])
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int i = 0; !rc && i + 1 < n_ops; i++)
      ops[i]->next = ops[i + 1];
  }
  if (!rc && ph && plan->n_agg_order) /* sorted below: all rows first */
    rc = run_pre(ph, pt, input, err);
  if (!rc && ph && !plan->n_agg_order)
    pt->next = ops[0];
  if (!rc && plan->n_agg_order)
    rc = sort_agg_input(plan, input, err);
  for (int i = 0; !rc && i < input->n_batches; i++) {
    lm_batch *slim =
        ph && pt->next ? NULL : slim_input(plan, input->batches[i]);
    rc = lm_operator_push(ph && pt->next ? ph : ops[0],
                          slim ? slim : input->batches[i], err);
    lm_batch_release(slim);
  }
  if (!rc && jt) {
    join_fwd f = {ph && pt->next ? ph : ops[0], plan, 0};
    lm_output_cb cb = {join_forward, NULL, &f};
    int64_t rows = 0;
    rc = lm_join_oneshot(&jt->sp, jt->sides, cb, &rows, err);
    xr.rows_read += rows;
    if (!rc && !f.batches) { /* no row: an empty batch, as collected */
      lm_batch *e = NULL;
      rc = lm_batch_concat(jt->sp.out_schema, NULL, 0, &e, err);
      if (!rc)
        rc = lm_operator_push(f.to, e, err);
      lm_batch_release(e);
    }
  }
  adhoc_tail_free(jt);
  if (ph)
    lm_xt_note_pre(ph, pt); /* EXPLAIN: the ProjectSet stages' counters */
  free_pre(ph, pt);
  if (!rc && plan->has_agg && plan->window_kind != LM_WIN_NONE)
    rc = lm_operator_watermark(ops[0], INT64_MAX, err); /* every window */
  if (!rc && agg) {
    lm_batch *snap = NULL;
    rc = lm_op_aggregate_snapshot(agg, &snap, err);
    if (!rc) {
      rc = collect(&out, snap, err);
      lm_batch_release(snap);
    }
  }
  for (int i = 0; i < input->n_batches; i++)
    lm_batch_release(input->batches[i]);
  free(input->batches);
  lm_xt_note_ops(ops, n_ops);
  for (int i = 0; i < n_ops; i++)
    if (ops[i])
      ops[i]->vt->free(ops[i]);
  lm_batch *all = NULL;
  if (!rc && topn_ws)
    rc = lm_changelog_consolidate(topn_ws, out.batches, out.n_batches, false,
                                  plan->out_schema, &all, err);
  else if (!rc)
    rc = lm_batch_concat(plan->out_schema, out.batches, out.n_batches, &all,
                         err);
  lm_schema_release(topn_ws);
  for (int i = 0; i < out.n_batches; i++)
    lm_batch_release(out.batches[i]);
  free(out.batches);
  if (!rc)
    xr.rows_pipe = xr.rows_distinct = all->num_rows;
  if (!rc && plan->distinct) {
    /* DISTINCT: group by every visible column, first occurrence order */
    int nv = plan->n_out;
    lm_type types[256];
    if (nv > 256)
      nv = 256;
    for (int c = 0; c < nv; c++)
      types[c] = all->columns[c]->type;
    lm_aggtable *t = lm_aggtable_new(nv, types, 0, NULL);
    uint32_t *g = malloc(sizeof(uint32_t) * (size_t)(all->num_rows + 1));
    int32_t *firsts = malloc(sizeof(int32_t) * (size_t)(all->num_rows + 1));
    if (!t || !g || !firsts)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    else
      rc = lm_aggtable_lookup(t, all->columns, NULL, all->num_rows, g, err);
    if (!rc) {
      int64_t k = 0, seen = 0;
      for (int64_t i = 0; i < all->num_rows; i++)
        if (g[i] == seen) {
          firsts[k++] = (int32_t)i;
          seen++;
        }
      lm_batch *d = lm_batch_take(all, firsts, k);
      lm_batch_release(all);
      all = d;
      if (!all)
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    lm_aggtable_free(t);
    free(g);
    free(firsts);
  }
  lm_batch *sorted = NULL;
  bool don = plan && plan->n_distinct_on;
  if (!rc)
    xr.rows_distinct = all->num_rows;
  if (!rc)
    rc = (plan->limit_with_ties && !don ? lm_batch_sort_ties : lm_batch_sort)(
        all, plan->sort, plan->n_sort, don ? 0 : plan->offset,
        don ? -1 : plan->limit, &sorted, err);
  if (!rc)
    xr.rows_sorted = sorted->num_rows;
  if (!rc && don)
    rc = distinct_on_rows(plan, &sorted, err);
  if (!rc && lm_xt_on()) { /* EXPLAIN: what ran */
    xr.plan = plan;
    xr.rows_out = sorted->num_rows;
    lm_xt_run_done(NULL, &xr);
  }
  lm_batch_release(all);
  if (!rc) {
    /* drop hidden sort columns */
    int nv = plan->n_out;
    lm_schema *vs = lm_schema_new(nv);
    lm_array **cols = calloc((size_t)nv + 1, sizeof *cols);
    if (!vs || !cols) {
      lm_schema_release(vs);
      free(cols);
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    } else {
      for (int c = 0; c < nv; c++) {
        const lm_field *f = &plan->out_schema->fields[c];
        lm_schema_set_field(vs, c, f->name, f->type, f->nullable);
        cols[c] = lm_array_retain(sorted->columns[c]);
      }
      lm_batch *vb = lm_batch_new(lm_schema_retain(vs), sorted->num_rows, cols);
      free(cols);
      lm_batch **arr = malloc(sizeof *arr);
      if (!vb || !arr) {
        lm_batch_release(vb);
        free(arr);
        lm_schema_release(vs);
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      } else {
        arr[0] = vb;
        *res = lm_result_new(vs, arr, 1);
        if (!*res)
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        for (int c = 0; !rc && c < nv && c < 64; c++) /* INSERT ... SELECT */
          if (lm_bexpr_numeric_origin(plan->out[c]))
            (*res)->numeric_cols |= (uint64_t)1 << c;
      }
    }
  }
  lm_batch_release(sorted);
  lm_plan_free(plan);
  return rc;
}
