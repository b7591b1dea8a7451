/*
 * The keyed aggregate of a GROUP BY with grouping sets (ROLLUP, CUBE,
 * GROUPING SETS; plan->n_gsets, docs/aggregates.md), maintained
 * incrementally like op_aggregate.c's, whose contract it keeps (it is what
 * lm_op_aggregate_new returns for such a plan; lm_op_aggregate_snapshot
 * reads it too).
 *
 * One pass over the input: each set has its own group table keyed by the
 * keys it groups by only (as PostgreSQL's hashed grouping sets), and every
 * input batch is looked up and folded into each table, its key and
 * aggregate-argument columns evaluated once. A set's rows are widened to
 * the plan's aggregate schema on the way out: the keys it leaves out NULL,
 * the __grouping_set key its id (LM_GSET_ID, read by GROUPING()). The
 * table of an empty set () has a row even over no input (PostgreSQL's).
 * After each batch it emits the changelog of the groups the batch changed,
 * set by set (old rows with __weight = -1, then the new rows with +1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg_rowid.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

/* Beyond this many (set, row) lookups per batch the groups of each set are
 * looked up again when folding instead of being kept from the check. */
#define KEEP_GIDS_MAX (INT64_C(1) << 20)

typedef struct gset {
  lm_aggtable *t; /* keyed by key[0..n_keys) of the plan's keys */
  lm_schema *sch; /* [those keys..., aggregates...] */
  int n_keys;
  int key[64];
  uint64_t mask;  /* plan->gset_mask[s] */
  int64_t id;     /* the __grouping_set value of its rows */
  int64_t before; /* groups before the batch (undo on failure) */
  uint8_t *mark;  /* per group: seen in this batch */
  int64_t mark_cap;
  uint8_t *live; /* per group: has a current result row (changelog) */
  int64_t live_cap;
} gset;

typedef struct gsagg_op {
  lm_operator base;
  const lm_plan *plan;
  int n_sets;
  gset *sets;
  lm_schema *out_schema; /* plan->out_schema + __weight; NULL: no changelog */
  bool changelog;
  uint32_t *gids;
  int64_t gid_cap;
  bool failed; /* an error left the state unreliable: refuse input */
  char fail_msg[256];
} gsagg_op;

static bool set_group_live(const gset *g, uint32_t gid) {
  return g->n_keys == 0 || lm_aggtable_group_rows(g->t, gid) > 0;
}

/* Rows of groups gids[0..n) of set g (NULL: every group) through HAVING
 * and the projection: *out has plan->out_schema. */
static int set_result(const gsagg_op *o, const gset *g, const uint32_t *gids,
                      int64_t n, lm_batch **out, lm_error *err) {
  const lm_plan *p = o->plan;
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, g->sch, gids ? n : lm_aggtable_groups(g->t)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_batch *sb = NULL;
  int rc = lm_aggtable_emit(g->t, gids, n, &bb, err);
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &sb, err);
  lm_batch_builder_free(&bb);
  if (rc)
    return rc;
  /* (not sb's: a set without keys or aggregates has no column) */
  int64_t rows = gids ? n : lm_aggtable_groups(g->t);
  int nf = p->agg_schema->n_fields, nk = p->gset_key;
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  if (!cols) {
    lm_batch_release(sb);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int pos = 0;
  for (int k = 0; k < nk; k++)
    cols[k] = g->mask & (UINT64_C(1) << k)
                  ? lm_array_retain(sb->columns[pos++])
                  : lm_array_new_null(p->agg_schema->fields[k].type, rows);
  cols[nk] = lm_const_ts_array(lm_type_make(LM_TYPE_INT64), rows, g->id);
  for (int a = 0; a < p->n_aggs; a++)
    cols[nk + 1 + a] = lm_array_retain(sb->columns[g->n_keys + a]);
  lm_batch_release(sb);
  for (int c = 0; c < nf; c++)
    if (!cols[c]) {
      for (int d = 0; d < nf; d++)
        lm_array_release(cols[d]);
      free(cols);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  lm_batch *agg = lm_batch_new(lm_schema_retain(p->agg_schema), rows, cols);
  free(cols);
  if (!agg)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  rc = lm_post_aggregate(p, agg, out, err);
  lm_batch_release(agg);
  return rc;
}

static int emit_groups(gsagg_op *o, const gset *g, const uint32_t *gids,
                       int64_t n, int64_t weight, lm_error *err) {
  if (n == 0)
    return 0;
  lm_batch *proj = NULL, *out = NULL;
  int rc = set_result(o, g, gids, n, &proj, err);
  if (!rc)
    rc = lm_with_weight(proj, o->out_schema, weight, &out, err);
  lm_batch_release(proj);
  if (!rc)
    rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

/* Folds the n rows (groups gids, checked) into set g's states and emits
 * the changelog of the groups they change. keys: the plan's evaluated key
 * columns; rid: the rows' identities (NULL: none). */
static int set_apply(gsagg_op *o, gset *g, lm_array **keys, lm_array **aggs,
                     const int64_t *w, const uint64_t *rid, int64_t n,
                     const uint32_t *gids, lm_error *err) {
  uint32_t *touched = NULL;
  int64_t n_touched = 0, n_old = 0;
  int rc = 0;
  if (o->changelog) {
    int64_t groups = lm_aggtable_groups(g->t);
    if ((rc =
             lm_grow_zeroed((void **)&g->mark, &g->mark_cap, groups, 1, err)) ||
        (rc = lm_grow_zeroed((void **)&g->live, &g->live_cap, groups, 1, err)))
      return rc;
    touched = malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (!touched)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    /* groups with a current row first (their old rows are retracted) */
    for (int pass = 0; pass < 2; pass++) {
      for (int64_t j = 0; j < n; j++) {
        uint32_t x = gids[j];
        if (!g->mark[x] && (pass || g->live[x])) {
          g->mark[x] = 1;
          touched[n_touched++] = x;
        }
      }
      if (!pass)
        n_old = n_touched;
    }
    for (int64_t j = 0; j < n_touched; j++)
      g->mark[touched[j]] = 0;
    rc = emit_groups(o, g, touched, n_old, -1, err);
  }
  if (!rc) {
    lm_array *sk[65] = {NULL}; /* this set's keys */
    for (int i = 0; i < g->n_keys; i++)
      sk[i] = keys[g->key[i]];
    lm_aggtable_set_row_ids(g->t, rid);
    rc = lm_aggtable_accumulate_w(g->t, aggs, w, NULL, n, gids, err);
    if (!rc)
      rc = lm_aggtable_spell_w(g->t, sk, w, NULL, n, gids, err);
    lm_aggtable_set_row_ids(g->t, NULL);
    if (rc) {
      o->failed = true;
      size_t l = err ? strnlen(err->msg, sizeof o->fail_msg - 1) : 0;
      memcpy(o->fail_msg, err ? err->msg : "", l);
      o->fail_msg[l] = 0;
    }
  }
  if (!rc && o->changelog) {
    int64_t k = 0;
    for (int64_t j = 0; j < n_touched; j++) {
      uint32_t x = touched[j];
      g->live[x] = set_group_live(g, x);
      if (g->live[x])
        touched[k++] = x;
    }
    rc = emit_groups(o, g, touched, k, 1, err);
  }
  free(touched);
  return rc;
}

/* The groups of rows 0..n of keys (the plan's evaluated key columns) in
 * set g: gids[0..n). */
static int set_lookup(gset *g, lm_array **keys, int64_t n, uint32_t *gids,
                      lm_error *err) {
  lm_array *sk[65] = {NULL};
  for (int i = 0; i < g->n_keys; i++)
    sk[i] = keys[g->key[i]];
  return lm_aggtable_lookup(g->t, sk, NULL, n, gids, err);
}

static int gsagg_push(lm_operator *op, lm_batch *b, lm_error *err) {
  gsagg_op *o = (gsagg_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  lm_array *keys[64] = {0}, *aggs[64] = {0};
  const int64_t *w = NULL;
  int orc = lm_agg_push_open(p, b, o->failed ? o->fail_msg : NULL, &w, err);
  if (orc)
    return orc;
  if (n == 0)
    return 0;
  int S = o->n_sets;
  bool keep = (int64_t)S * n <= KEEP_GIDS_MAX;
  int rc = lm_eval_inputs(p, b, keys, aggs, err);
  if (!rc)
    rc = lm_scratch_grow((void **)&o->gids, &o->gid_cap, keep ? S * n : n,
                         sizeof(uint32_t), err);
  /* every set's groups found and checked before any is folded: a batch
   * that fails leaves no trace */
  int s = 0;
  for (; !rc && s < S; s++) {
    gset *g = &o->sets[s];
    uint32_t *gi = o->gids + (keep ? s * n : 0);
    g->before = lm_aggtable_groups(g->t);
    rc = set_lookup(g, keys, n, gi, err);
    if (!rc)
      rc = lm_aggtable_check_w(g->t, aggs, w, NULL, n, gi, err);
  } /* on failure s is one past the set that failed */
  if (rc) {
    for (int u = 0; u < s; u++)
      lm_aggtable_truncate(o->sets[u].t, o->sets[u].before);
    goto done;
  }
  uint64_t *rid = NULL; /* row identities (lm_aggtable_set_row_ids) */
  for (s = 0; !rc && w && !rid && s < S; s++)
    if (lm_aggtable_wants_row_ids(o->sets[s].t)) {
      if (!(rid = malloc(sizeof(uint64_t) * (size_t)(n + 1))))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      else
        lm_agg_row_ids(b, p->weight_col, rid);
    }
  for (s = 0; !rc && s < S; s++) {
    gset *g = &o->sets[s];
    uint32_t *gi = o->gids + (keep ? s * n : 0);
    if (!keep) /* found again: no group is created */
      rc = set_lookup(g, keys, n, gi, err);
    if (!rc)
      rc = set_apply(o, g, keys, aggs, w, rid, n, gi, err);
  }
  free(rid);
done:
  lm_release_inputs(p, keys, aggs);
  return rc;
}

int lm_gsets_aggregate_snapshot(lm_operator *op, lm_batch **out,
                                lm_error *err) {
  gsagg_op *o = (gsagg_op *)op;
  if (o->failed)
    return lm_err(err, LM_ERR_EXEC,
                  "the query stopped after an earlier error: %s", o->fail_msg);
  lm_batch **parts = calloc((size_t)o->n_sets + 1, sizeof *parts);
  if (!parts)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = 0;
  for (int s = 0; !rc && s < o->n_sets; s++) {
    gset *g = &o->sets[s];
    int64_t groups = lm_aggtable_groups(g->t);
    uint32_t *live = malloc(sizeof(uint32_t) * (size_t)(groups + 1));
    if (!live) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    int64_t k = 0;
    for (int64_t x = 0; x < groups; x++)
      if (set_group_live(g, (uint32_t)x))
        live[k++] = (uint32_t)x;
    rc = set_result(o, g, live, k, &parts[s], err);
    free(live);
  }
  if (!rc)
    rc = lm_batch_concat(o->plan->out_schema, parts, o->n_sets, out, err);
  for (int s = 0; s < o->n_sets; s++)
    lm_batch_release(parts[s]);
  free(parts);
  return rc;
}

static void gsagg_free(lm_operator *op) {
  gsagg_op *o = (gsagg_op *)op;
  for (int s = 0; o->sets && s < o->n_sets; s++) {
    lm_aggtable_free(o->sets[s].t);
    lm_schema_release(o->sets[s].sch);
    free(o->sets[s].mark);
    free(o->sets[s].live);
  }
  free(o->sets);
  lm_schema_release(o->out_schema);
  free(o->gids);
  free(o);
}

/* EXPLAIN ANALYZE: groups held over every set (bytes not tracked: -1) */
static void gsagg_state(const lm_operator *op, int64_t *rows, int64_t *bytes) {
  const gsagg_op *o = (const gsagg_op *)op;
  int64_t n = 0;
  for (int s = 0; s < o->n_sets; s++)
    n += lm_aggtable_groups(o->sets[s].t);
  *rows = n;
  *bytes = -1;
}

static const lm_operator_vt gsagg_vt = {
    "aggregate", gsagg_push, lm_operator_forward_watermark, gsagg_free};

bool lm_op_is_gsets_aggregate(const lm_operator *op) {
  return op && op->vt == &gsagg_vt;
}

/* One set's table: keys of mask (in key order) and every aggregate. */
static int set_init(const lm_plan *p, int s, gset *g) {
  int nk = p->gset_key;
  g->mask = p->gset_mask[s];
  g->id = LM_GSET_ID(s, g->mask, nk);
  lm_type types[64];
  for (int k = 0; k < nk; k++)
    if (g->mask & (UINT64_C(1) << k)) {
      types[g->n_keys] = p->keys[k]->type;
      g->key[g->n_keys++] = k;
    }
  g->t = lm_aggtable_new(g->n_keys, types, p->n_aggs, p->aggs);
  g->sch = lm_schema_new(g->n_keys + p->n_aggs);
  if (!g->t || !g->sch ||
      (p->changelog_input && lm_aggtable_set_retractable(g->t, NULL)))
    return -1;
  for (int i = 0; i < g->n_keys + p->n_aggs; i++) {
    const lm_field *f =
        &p->agg_schema
             ->fields[i < g->n_keys ? g->key[i] : nk + 1 + i - g->n_keys];
    if (lm_schema_set_field(g->sch, i, f->name, f->type, f->nullable))
      return -1;
  }
  if (g->n_keys == 0) { /* (): its one group exists from the start */
    lm_array *none[1] = {NULL};
    uint32_t x;
    lm_error e;
    lm_err_clear(&e);
    if (lm_aggtable_lookup(g->t, none, NULL, 1, &x, &e))
      return -1;
  }
  return 0;
}

lm_operator *lm_op_gsets_aggregate_new(const lm_plan *plan,
                                       lm_schema *out_schema, bool changelog) {
  gsagg_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &gsagg_vt;
  o->base.state = gsagg_state;
  o->plan = plan;
  o->changelog = changelog && out_schema;
  o->out_schema = out_schema ? lm_schema_retain(out_schema) : NULL;
  o->n_sets = plan->n_gsets;
  o->sets = calloc((size_t)o->n_sets + 1, sizeof *o->sets);
  if (!o->sets || plan->gset_key > 63 || plan->n_aggs > 64) {
    gsagg_free(&o->base);
    return NULL;
  }
  for (int s = 0; s < o->n_sets; s++)
    if (set_init(plan, s, &o->sets[s])) {
      gsagg_free(&o->base);
      return NULL;
    }
  return &o->base;
}
