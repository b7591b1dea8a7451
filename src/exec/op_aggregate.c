/*
 * Keyed aggregate without a window, maintained incrementally. After each
 * input batch it emits a changelog of the groups the batch changed: the
 * previous result row with __weight = -1 (if the group had one) and the
 * new row with __weight = +1. The state doubles as the materialized view's
 * store: lm_op_aggregate_snapshot reads every group's current row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg_rowid.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

typedef struct agg_op {
  lm_operator base;
  const lm_plan *plan;
  lm_aggtable *t;
  lm_schema *out_schema; /* plan->out_schema + __weight */
  bool changelog;
  uint32_t *gids;
  int64_t gid_cap;
  uint8_t *mark; /* per group: seen in this batch */
  int64_t mark_cap;
  uint8_t *live; /* per group: has a current result row (changelog) */
  int64_t live_cap;
  bool failed; /* an error left the state unreliable: refuse input */
  char fail_msg[256];
} agg_op;

int lm_post_aggregate(const lm_plan *p, lm_batch *agg_batch, lm_batch **out,
                      lm_error *err) {
  lm_batch *b;
  int rc = lm_batch_where(p->having, agg_batch, &b, err);
  if (rc)
    return rc;
  rc = lm_project(p->out, p->out_schema->n_fields, p->out_schema, b, out, err);
  lm_batch_release(b);
  return rc;
}

int lm_eval_inputs(const lm_plan *p, lm_batch *b, lm_array **keys,
                   lm_array **aggs, lm_error *err) {
  int rc = 0;
  for (int k = 0; k < p->n_keys && !rc; k++)
    rc = lm_eval(p->keys[k], b, &keys[k], err);
  for (int a = 0; a < p->n_aggs && !rc; a++)
    if (p->aggs[a].arg)
      rc = lm_eval(p->aggs[a].arg, b, &aggs[a], err);
  return rc;
}

void lm_release_inputs(const lm_plan *p, lm_array **keys, lm_array **aggs) {
  for (int k = 0; k < p->n_keys; k++)
    lm_array_release(keys[k]);
  for (int a = 0; a < p->n_aggs; a++)
    lm_array_release(aggs[a]);
}

lm_aggtable *lm_plan_new_aggtable(const lm_plan *p) {
  lm_type kt[64] = {{0}};
  lm_type *types =
      p->n_keys <= 64 ? kt : malloc(sizeof(lm_type) * (size_t)p->n_keys);
  if (!types)
    return NULL;
  for (int k = 0; k < p->n_keys; k++)
    types[k] = p->keys[k]->type;
  lm_aggtable *t = lm_aggtable_new(p->n_keys, types, p->n_aggs, p->aggs);
  if (types != kt)
    free(types);
  /* a changelog input needs states that take retractions (the planner
   * has refused the aggregates that cannot) */
  if (t && p->changelog_input && lm_aggtable_set_retractable(t, NULL)) {
    lm_aggtable_free(t);
    return NULL;
  }
  return t;
}

/* Emits rows for groups gids[0..n) through HAVING and the projection, with
 * a __weight column of `weight`. */
int lm_aggtable_result(const lm_plan *p, const lm_aggtable *t,
                       const uint32_t *gids, int64_t n, lm_batch **out,
                       lm_error *err) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, p->agg_schema,
                            gids ? n : lm_aggtable_groups(t)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_batch *agg = NULL;
  int rc = lm_aggtable_emit(t, gids, n, &bb, err);
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &agg, err);
  lm_batch_builder_free(&bb);
  if (!rc)
    rc = lm_post_aggregate(p, agg, out, err);
  lm_batch_release(agg);
  return rc;
}

int lm_scratch_grow(void **p, int64_t *cap, int64_t n, size_t elem,
                    lm_error *err) {
  if (n <= *cap)
    return 0;
  void *g = realloc(*p, elem * (size_t)(n + 1));
  if (!g)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  *p = g;
  *cap = n;
  return 0;
}

/* Emits rows for groups gids[0..n) through HAVING and the projection, with
 * a __weight column of `weight`. */
static int emit_groups(agg_op *o, const uint32_t *gids, int64_t n,
                       int64_t weight, lm_error *err) {
  if (n == 0)
    return 0;
  lm_batch *proj = NULL;
  int rc = lm_aggtable_result(o->plan, o->t, gids, n, &proj, err);
  if (rc)
    return rc;
  /* append __weight */
  int nc = proj->num_columns;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_builder wb;
  if (!cols ||
      lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), proj->num_rows)) {
    free(cols);
    lm_batch_release(proj);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < proj->num_rows; i++)
    lm_builder_append_i64_fast(&wb, weight);
  for (int c = 0; c < nc; c++)
    cols[c] = lm_array_retain(proj->columns[c]);
  rc = lm_builder_finish(&wb, &cols[nc]);
  lm_builder_free(&wb);
  int64_t rows = proj->num_rows;
  lm_batch_release(proj);
  if (rc) {
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_batch *out = lm_batch_new(lm_schema_retain(o->out_schema), rows, cols);
  free(cols);
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

/* A keyed group has a result row while it has live rows; the global
 * aggregate (no GROUP BY) always has one. */
int lm_agg_push_open(const lm_plan *p, const lm_batch *b, const char *failed,
                     const int64_t **w, lm_error *err) {
  *w = NULL;
  if (failed)
    return lm_err(err, LM_ERR_EXEC,
                  "the query stopped after an earlier error: %s", failed);
  if (p->n_keys > 64 || p->n_aggs > 64)
    return lm_err(err, LM_ERR_BIND, "too many GROUP BY keys or aggregates");
  if (p->changelog_input) {
    if (p->weight_col < 0 || p->weight_col >= b->num_columns ||
        b->columns[p->weight_col]->type.id != LM_TYPE_INT64)
      return lm_err(err, LM_ERR_EXEC,
                    "internal error: changelog input without a __weight "
                    "column");
    *w = lm_array_i64(b->columns[p->weight_col]);
  }
  return 0;
}

static bool group_live(const agg_op *o, uint32_t g) {
  return o->plan->n_keys == 0 || lm_aggtable_group_rows(o->t, g) > 0;
}

static int agg_push(lm_operator *op, lm_batch *b, lm_error *err) {
  agg_op *o = (agg_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  lm_array *keys[64] = {0}, *aggs[64] = {0};
  const int64_t *w = NULL;
  int orc = lm_agg_push_open(p, b, o->failed ? o->fail_msg : NULL, &w, err);
  if (orc)
    return orc;
  int rc = lm_eval_inputs(p, b, keys, aggs, err);
  if (rc)
    goto done;
  if ((rc = lm_scratch_grow((void **)&o->gids, &o->gid_cap, n, sizeof(uint32_t),
                            err)))
    goto done;
  int64_t before = lm_aggtable_groups(o->t);
  rc = lm_aggtable_lookup(o->t, keys, NULL, n, o->gids, err);
  if (!rc)
    rc = lm_aggtable_check_w(o->t, aggs, w, NULL, n, o->gids, err);
  if (rc) {
    lm_aggtable_truncate(o->t, before); /* a failed batch leaves no trace */
    goto done;
  }
  uint32_t *touched = NULL;
  int64_t n_touched = 0, n_old = 0;
  if (o->changelog) {
    int64_t groups = lm_aggtable_groups(o->t);
    if ((rc =
             lm_grow_zeroed((void **)&o->mark, &o->mark_cap, groups, 1, err)) ||
        (rc = lm_grow_zeroed((void **)&o->live, &o->live_cap, groups, 1, err)))
      goto done;
    touched = malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (!touched) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    /* groups with a current row first (in first-touch order): their old
     * rows are retracted; then the others */
    for (int64_t j = 0; j < n; j++) {
      uint32_t g = o->gids[j];
      if (o->live[g] && !o->mark[g]) {
        o->mark[g] = 1;
        touched[n_touched++] = g;
      }
    }
    n_old = n_touched;
    for (int64_t j = 0; j < n; j++) {
      uint32_t g = o->gids[j];
      if (!o->mark[g]) {
        o->mark[g] = 1;
        touched[n_touched++] = g;
      }
    }
    for (int64_t j = 0; j < n_touched; j++)
      o->mark[touched[j]] = 0;
    rc = emit_groups(o, touched, n_old, -1, err);
  }
  uint64_t *rid = NULL; /* row identities (lm_aggtable_set_row_ids) */
  if (!rc && w && lm_aggtable_wants_row_ids(o->t)) {
    if (!(rid = malloc(sizeof(uint64_t) * (size_t)(n + 1))))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    else
      lm_agg_row_ids(b, p->weight_col, rid);
    lm_aggtable_set_row_ids(o->t, rid);
  }
  if (!rc) {
    rc = lm_aggtable_accumulate_w(o->t, aggs, w, NULL, n, o->gids, err);
    if (!rc)
      rc = lm_aggtable_spell_w(o->t, keys, w, NULL, n, o->gids, err);
    if (rc) {
      o->failed = true;
      size_t l = err ? strnlen(err->msg, sizeof o->fail_msg - 1) : 0;
      memcpy(o->fail_msg, err ? err->msg : "", l);
      o->fail_msg[l] = 0;
    }
  }
  if (!rc && o->changelog) {
    /* the new rows: groups that still (or now) have live rows */
    int64_t k = 0;
    for (int64_t j = 0; j < n_touched; j++) {
      uint32_t g = touched[j];
      o->live[g] = group_live(o, g);
      if (o->live[g])
        touched[k++] = g;
    }
    rc = emit_groups(o, touched, k, 1, err);
  }
  lm_aggtable_set_row_ids(o->t, NULL);
  free(rid);
  free(touched);
done:
  lm_release_inputs(p, keys, aggs);
  return rc;
}

int lm_op_aggregate_snapshot(lm_operator *op, lm_batch **out, lm_error *err) {
  if (lm_op_is_gsets_aggregate(op)) /* op_gsets_aggregate.c */
    return lm_gsets_aggregate_snapshot(op, out, err);
  agg_op *o = (agg_op *)op;
  const lm_plan *p = o->plan;
  /* After a failed batch the state is partly applied: reading it would show
   * rows that are neither the old nor a new result (MaterializeInc/
   * materialize#15496), so the view reports the error instead. */
  if (o->failed)
    return lm_err(err, LM_ERR_EXEC,
                  "the query stopped after an earlier error: %s", o->fail_msg);
  int64_t groups = lm_aggtable_groups(o->t);
  /* A global aggregate (no GROUP BY) has one row even over no input. */
  if (groups == 0 && p->n_keys == 0) {
    lm_array *none[1] = {NULL};
    uint32_t g;
    int rc = lm_aggtable_lookup(o->t, none, NULL, 1, &g, err);
    if (rc)
      return rc;
    groups = 1;
  }
  /* groups whose rows were all retracted have no row */
  uint32_t *live = malloc(sizeof(uint32_t) * (size_t)(groups + 1));
  if (!live)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t k = 0;
  for (int64_t g = 0; g < groups; g++)
    if (group_live(o, (uint32_t)g))
      live[k++] = (uint32_t)g;
  int rc = lm_aggtable_result(p, o->t, live, k, out, err);
  free(live);
  return rc;
}

static void agg_free(lm_operator *op) {
  agg_op *o = (agg_op *)op;
  lm_aggtable_free(o->t);
  lm_schema_release(o->out_schema);
  free(o->gids);
  free(o->mark);
  free(o->live);
  free(o);
}

/* EXPLAIN ANALYZE: groups held (bytes not tracked: -1) */
static void agg_state(const lm_operator *op, int64_t *rows, int64_t *bytes) {
  *rows = lm_aggtable_groups(((const agg_op *)op)->t);
  *bytes = -1;
}

static const lm_operator_vt agg_vt = {"aggregate", agg_push,
                                      lm_operator_forward_watermark, agg_free};

lm_operator *lm_op_aggregate_new(const lm_plan *plan, lm_schema *out_schema,
                                 bool changelog) {
  if (plan->n_gsets) /* grouping sets: op_gsets_aggregate.c */
    return lm_op_gsets_aggregate_new(plan, out_schema, changelog);
  agg_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &agg_vt;
  o->base.state = agg_state;
  o->plan = plan;
  o->changelog = changelog && out_schema;
  o->out_schema = out_schema ? lm_schema_retain(out_schema) : NULL;
  o->t = lm_plan_new_aggtable(plan);
  if (!o->t) {
    agg_free(&o->base);
    return NULL;
  }
  return &o->base;
}
