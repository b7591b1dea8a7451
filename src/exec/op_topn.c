/* exec/op_topn.c — streaming Top-N and deduplication: ROW_NUMBER() OVER
 * (PARTITION BY p ORDER BY o) filtered by rn <= N (plan: lm_plan.topn,
 * semantics: docs/changelog.md, "Top-N").
 *
 * State: per partition (partition key -> dense id through an lm_aggtable
 * without aggregates), the retained rows sorted by (ORDER BY keys, arrival
 * sequence): ties, exact duplicates included, rank in arrival order, the
 * earlier row first (as Flink's Top-N). Except plan->topn_ties_last
 * (deduplication keeping the last row: rn = 1 ordered by the input's time
 * attribute DESC over an append-only input, lm_plan_topn_time_attr): a row
 * equal to the kept one replaces it, as Flink's keep-last deduplication
 * does (replace when currentRowtime >= prevRowtime). Over an append-only input
 * only the top N rows of a partition are kept (a row that falls out can never
 * come back); over a changelog input every live row is kept, so that when a top
 * row is retracted the next-best one takes its place.
 *
 * A row is a reference into a retained "staged" batch, [subquery
 * columns..., ORDER BY values...] evaluated once per input batch.
 *
 * Output, per input batch: for each partition it touched, the top N before
 * the batch is compared with the top N after it. Without rn in the outer
 * SELECT, rows that left are retracted (-1) and rows that entered inserted
 * (+1); with rn, every row whose rank changed is retracted with its old rn
 * and inserted with its new one. All retractions of a batch come first.
 * Batches have the schema [subquery columns..., rn BIGINT, __weight BIGINT].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"

typedef struct tn_row {
  lm_batch *b; /* staged batch (one reference per row) */
  int32_t i;   /* row in b */
  uint64_t seq;
  uint32_t old_mark, new_mark; /* epoch stamps of the before/after top */
  int64_t old_rank, new_rank;
} tn_row;

typedef struct tn_part {
  tn_row **rows; /* sorted by (order keys, seq) */
  int64_t n, cap;
  uint32_t touched; /* epoch of the last batch that touched it */
  tn_row **before;  /* the top rows before this batch (malloc'd) */
  int64_t n_before;
} tn_part;

typedef struct tn_change {
  tn_row *row;
  int64_t rank;
} tn_change;

typedef struct topn_op {
  lm_operator base;
  const lm_plan *plan;
  int n_cols;              /* subquery columns */
  int n_order;             /* ORDER BY keys (staged after the columns) */
  lm_bexpr **stage_exprs;  /* [columns..., order keys...] */
  lm_schema *stage_schema; /* their schema */
  lm_schema *out_schema;   /* [columns..., rn, __weight] */
  lm_aggtable *pmap;       /* partition key -> id; NULL = one partition */
  tn_part *parts;
  int64_t n_parts, cap_parts;
  uint64_t seq;
  uint32_t epoch;
  bool retain_all; /* changelog input */
  tn_row **dead;   /* rows removed in this batch, freed at its end */
  int64_t n_dead, cap_dead;
  tn_change *rets, *ins; /* this batch's output */
  int64_t n_rets, cap_rets, n_ins, cap_ins;
  char stopped[1024]; /* non-empty after an error that broke the state */
} topn_op;

static int grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  int64_t nc = *cap ? *cap * 2 : 16;
  while (nc < need)
    nc *= 2;
  void *n = realloc(*p, (size_t)nc * elem);
  if (!n)
    return -1;
  *p = n;
  *cap = nc;
  return 0;
}

/* Compares cell x of a with cell y of b (same type), NULLs equal to each
 * other; *null_side is -1/1 when only x/y is NULL (0 otherwise). */
static int cell_cmp(const lm_array *a, int64_t x, const lm_array *b, int64_t y,
                    int *null_side) {
  bool xn = a->type.id == LM_TYPE_NULL || lm_array_is_null(a, x);
  bool yn = b->type.id == LM_TYPE_NULL || lm_array_is_null(b, y);
  *null_side = 0;
  if (xn || yn) {
    if (xn && yn)
      return 0;
    *null_side = xn ? -1 : 1;
    return xn ? 1 : -1;
  }
  return lm_array_cmp(a, x, b, y);
}

/* Order of two staged rows by the ORDER BY keys only. */
static int order_cmp(const topn_op *t, const lm_batch *a, int64_t x,
                     const lm_batch *b, int64_t y) {
  for (int k = 0; k < t->n_order; k++) {
    const lm_sort_key *key = &t->plan->topn_order[k];
    int ns;
    int c = cell_cmp(a->columns[t->n_cols + k], x, b->columns[t->n_cols + k], y,
                     &ns);
    if (ns) /* null vs value: independent of ASC/DESC */
      return key->nulls_first ? -c : c;
    if (c)
      return key->desc ? -c : c;
  }
  return 0;
}

/* Whether two staged rows are the same row (every staged cell equal). */
static bool same_row(const topn_op *t, const lm_batch *a, int64_t x,
                     const lm_batch *b, int64_t y) {
  for (int c = 0; c < t->n_cols + t->n_order; c++) {
    int ns;
    if (cell_cmp(a->columns[c], x, b->columns[c], y, &ns))
      return false;
  }
  return true;
}

/* First position in p whose row orders after (b, x) by order keys (upper
 * bound: a new row goes after its ties, which arrived before it). */
static int64_t upper_pos(const topn_op *t, const tn_part *p, const lm_batch *b,
                         int64_t x) {
  int64_t lo = 0, hi = p->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (order_cmp(t, p->rows[mid]->b, p->rows[mid]->i, b, x) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int64_t lower_pos(const topn_op *t, const tn_part *p, const lm_batch *b,
                         int64_t x) {
  int64_t lo = 0, hi = p->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (order_cmp(t, p->rows[mid]->b, p->rows[mid]->i, b, x) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int bury(topn_op *t, tn_row *r) {
  if (grow((void **)&t->dead, &t->cap_dead, t->n_dead + 1, sizeof *t->dead))
    return -1;
  t->dead[t->n_dead++] = r;
  return 0;
}

/* Removes p->rows[pos] (kept alive until the end of the batch). */
static int remove_at(topn_op *t, tn_part *p, int64_t pos) {
  if (bury(t, p->rows[pos]))
    return -1;
  memmove(&p->rows[pos], &p->rows[pos + 1],
          sizeof *p->rows * (size_t)(p->n - pos - 1));
  p->n--;
  return 0;
}

/* Inserts one copy of staged row x (at its rank: after its ties, or before
 * them when plan->topn_ties_last). */
static int insert_row(topn_op *t, tn_part *p, lm_batch *b, int64_t x) {
  int64_t lim = t->plan->topn_limit;
  /* ties_last (keep-last dedup): a row goes before its ties, so it replaces
   * an equal one; otherwise after them (they arrived earlier) */
  bool last = t->plan->topn_ties_last;
  /* append-only: a row after the N-th never enters */
  if (!t->retain_all && p->n >= lim) {
    int c = order_cmp(t, p->rows[lim - 1]->b, p->rows[lim - 1]->i, b, x);
    if (last ? c < 0 : c <= 0)
      return 0;
  }
  int64_t pos = last ? lower_pos(t, p, b, x) : upper_pos(t, p, b, x);
  tn_row *r = calloc(1, sizeof *r);
  if (!r || grow((void **)&p->rows, &p->cap, p->n + 1, sizeof *p->rows)) {
    free(r);
    return -1;
  }
  r->b = lm_batch_retain(b);
  r->i = (int32_t)x;
  r->seq = t->seq++;
  memmove(&p->rows[pos + 1], &p->rows[pos],
          sizeof *p->rows * (size_t)(p->n - pos));
  p->rows[pos] = r;
  p->n++;
  while (!t->retain_all && p->n > lim)
    if (remove_at(t, p, p->n - 1))
      return -1;
  return 0;
}

/* Retracts one copy of staged row x: the most recent live copy. Returns 1
 * when the partition does not hold it. */
static int retract_row(topn_op *t, tn_part *p, const lm_batch *b, int64_t x) {
  int64_t best = -1;
  for (int64_t k = lower_pos(t, p, b, x);
       k < p->n && !order_cmp(t, p->rows[k]->b, p->rows[k]->i, b, x); k++)
    if (same_row(t, p->rows[k]->b, p->rows[k]->i, b, x) &&
        (best < 0 || p->rows[k]->seq > p->rows[best]->seq))
      best = k;
  if (best < 0)
    return 1;
  return remove_at(t, p, best) ? -1 : 0;
}

static int add_change(tn_change **v, int64_t *n, int64_t *cap, tn_row *r,
                      int64_t rank) {
  if (grow((void **)v, cap, *n + 1, sizeof **v))
    return -1;
  (*v)[*n].row = r;
  (*v)[*n].rank = rank;
  (*n)++;
  return 0;
}

/* Compares a partition's top before and after the batch (see the file
 * comment) and records the changes. */
static int diff_part(topn_op *t, tn_part *p) {
  uint32_t e = t->epoch;
  bool ranked = t->plan->topn_rank_visible;
  int64_t na = p->n < t->plan->topn_limit ? p->n : t->plan->topn_limit;
  for (int64_t j = 0; j < na; j++) {
    p->rows[j]->new_mark = e;
    p->rows[j]->new_rank = j + 1;
  }
  for (int64_t i = 0; i < p->n_before; i++) {
    p->before[i]->old_mark = e;
    p->before[i]->old_rank = i + 1;
  }
  for (int64_t i = 0; i < p->n_before; i++) {
    tn_row *r = p->before[i];
    bool kept = r->new_mark == e && (!ranked || r->new_rank == i + 1);
    if (!kept && add_change(&t->rets, &t->n_rets, &t->cap_rets, r, i + 1))
      return -1;
  }
  for (int64_t j = 0; j < na; j++) {
    tn_row *r = p->rows[j];
    bool kept = r->old_mark == e && (!ranked || r->old_rank == j + 1);
    if (!kept && add_change(&t->ins, &t->n_ins, &t->cap_ins, r, j + 1))
      return -1;
  }
  return 0;
}

/* Builds the output batch: retractions, then insertions. */
static int emit_changes(topn_op *t, lm_error *err) {
  int64_t rows = t->n_rets + t->n_ins;
  if (!rows)
    return 0;
  int nc = t->n_cols;
  lm_builder *bl = calloc((size_t)nc + 2, sizeof *bl);
  lm_array **cols = calloc((size_t)nc + 2, sizeof *cols);
  int rc = 0, inited = 0;
  if (!bl || !cols)
    rc = LM_ERR_NOMEM;
  for (; !rc && inited < nc + 2; inited++)
    if (lm_builder_init(&bl[inited], t->out_schema->fields[inited].type, rows))
      rc = LM_ERR_NOMEM;
  for (int64_t k = 0; !rc && k < rows; k++) {
    bool ret = k < t->n_rets;
    const tn_change *c = ret ? &t->rets[k] : &t->ins[k - t->n_rets];
    for (int col = 0; col < nc; col++)
      lm_builder_append_from(&bl[col], c->row->b->columns[col], c->row->i);
    lm_builder_append_int(&bl[nc], c->rank);
    lm_builder_append_int(&bl[nc + 1], ret ? -1 : 1);
  }
  for (int col = 0; !rc && col < nc + 2; col++)
    if (lm_builder_finish(&bl[col], &cols[col]))
      rc = LM_ERR_NOMEM;
  for (int i = 0; i < inited; i++)
    lm_builder_free(&bl[i]);
  free(bl);
  lm_batch *out = NULL;
  if (!rc) {
    out = lm_batch_new(lm_schema_retain(t->out_schema), rows, cols);
    if (!out)
      rc = LM_ERR_NOMEM;
  } else if (cols) {
    for (int col = 0; col < nc + 2; col++)
      lm_array_release(cols[col]);
  }
  free(cols);
  if (rc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  rc = lm_operator_emit(&t->base, out, err);
  lm_batch_release(out);
  return rc;
}

static void free_row(tn_row *r) {
  lm_batch_release(r->b);
  free(r);
}

/* Ends a batch: the before-snapshots and the removed rows go. */
static void end_batch(topn_op *t, const int64_t *touched, int64_t n_touched) {
  for (int64_t k = 0; k < n_touched; k++) {
    tn_part *p = &t->parts[touched[k]];
    free(p->before);
    p->before = NULL;
    p->n_before = 0;
  }
  for (int64_t k = 0; k < t->n_dead; k++)
    free_row(t->dead[k]);
  t->n_dead = 0;
  t->n_rets = t->n_ins = 0;
}

static int topn_push(lm_operator *op, lm_batch *b, lm_error *err) {
  topn_op *t = (topn_op *)op;
  const lm_plan *pl = t->plan;
  if (t->stopped[0])
    return lm_err(err, LM_ERR_EXEC,
                  "the query stopped after an earlier "
                  "error: %s",
                  t->stopped);
  int64_t nr = b->num_rows;
  if (nr == 0)
    return 0;
  if (pl->changelog_input && pl->weight_col >= b->num_columns)
    return lm_err(err, LM_ERR_EXEC,
                  "internal error: changelog input without __weight");
  lm_batch *st = NULL;
  int rc = lm_project(t->stage_exprs, t->n_cols + t->n_order, t->stage_schema,
                      b, &st, err);
  if (rc)
    return rc;
  int np = pl->n_topn_part;
  lm_array **pa = calloc((size_t)np + 1, sizeof *pa);
  uint32_t *gid = calloc((size_t)nr, sizeof *gid);
  int64_t *touched = malloc(sizeof *touched * (size_t)nr);
  if (!pa || !gid || !touched)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int k = 0; !rc && k < np; k++)
    rc = lm_eval(pl->topn_part[k], b, &pa[k], err);
  if (!rc && t->pmap)
    rc = lm_aggtable_lookup(t->pmap, pa, NULL, nr, gid, err);
  const lm_array *w = pl->changelog_input ? b->columns[pl->weight_col] : NULL;
  t->epoch++;
  int64_t n_touched = 0;
  for (int64_t r = 0; !rc && r < nr; r++) {
    int64_t g = gid[r];
    if (g >= t->n_parts) {
      if (grow((void **)&t->parts, &t->cap_parts, g + 1, sizeof *t->parts)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      memset(&t->parts[t->n_parts], 0,
             sizeof *t->parts * (size_t)(g + 1 - t->n_parts));
      t->n_parts = g + 1;
    }
    tn_part *p = &t->parts[g];
    if (p->touched != t->epoch) { /* its top before this batch */
      p->touched = t->epoch;
      touched[n_touched++] = g;
      int64_t nb = p->n < pl->topn_limit ? p->n : pl->topn_limit;
      p->before = malloc(sizeof *p->before * (size_t)(nb + 1));
      if (!p->before) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      if (nb)
        memcpy(p->before, p->rows, sizeof *p->before * (size_t)nb);
      p->n_before = nb;
    }
    int64_t wt = 1;
    if (w) {
      if (lm_array_is_null(w, r)) {
        rc = lm_err(err, LM_ERR_EXEC, "a changelog row has a NULL __weight");
        break;
      }
      wt = lm_array_get_i64(w, r);
    }
    for (int64_t c = 0; !rc && c < wt; c++)
      if (insert_row(t, p, st, r))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int64_t c = 0; !rc && c < -wt; c++) {
      int f = retract_row(t, p, st, r);
      if (f < 0)
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      else if (f > 0)
        rc = lm_err(err, LM_ERR_EXEC,
                    "more retractions than insertions for a Top-N "
                    "partition (a __weight -1 row that is not among its "
                    "live rows)");
    }
  }
  if (rc && err && err->code == LM_ERR_EXEC && !t->stopped[0])
    snprintf(t->stopped, sizeof t->stopped, "%s", err->msg);
  for (int64_t k = 0; !rc && k < n_touched; k++)
    if (diff_part(t, &t->parts[touched[k]]))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (!rc)
    rc = emit_changes(t, err);
  if (touched)
    end_batch(t, touched, n_touched);
  for (int k = 0; pa && k < np; k++)
    lm_array_release(pa[k]);
  free(pa);
  free(gid);
  free(touched);
  lm_batch_release(st);
  return rc;
}

static void topn_free(lm_operator *op) {
  topn_op *t = (topn_op *)op;
  for (int64_t g = 0; g < t->n_parts; g++) {
    for (int64_t k = 0; k < t->parts[g].n; k++)
      free_row(t->parts[g].rows[k]);
    free(t->parts[g].rows);
    free(t->parts[g].before);
  }
  for (int64_t k = 0; k < t->n_dead; k++)
    free_row(t->dead[k]);
  free(t->parts);
  free(t->dead);
  free(t->rets);
  free(t->ins);
  free(t->stage_exprs);
  lm_schema_release(t->stage_schema);
  lm_schema_release(t->out_schema);
  lm_aggtable_free(t->pmap);
  free(t);
}

static const lm_operator_vt topn_vt = {
    "topn", topn_push, lm_operator_forward_watermark, topn_free};

lm_operator *lm_op_topn_new(const lm_plan *plan) {
  const lm_plan *ip = plan->topn;
  if (!ip || plan->topn_limit < 1)
    return NULL;
  topn_op *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->base.vt = &topn_vt;
  t->plan = plan;
  t->n_cols = ip->out_schema->n_fields;
  t->n_order = plan->n_topn_order;
  t->retain_all = plan->changelog_input;
  int ns = t->n_cols + t->n_order;
  t->stage_exprs = calloc((size_t)ns + 1, sizeof *t->stage_exprs);
  t->stage_schema = lm_schema_new(ns);
  t->out_schema = lm_schema_new(t->n_cols + 2);
  lm_type types[256];
  int np = plan->n_topn_part;
  if (np > 0 && np <= 256) {
    for (int k = 0; k < np; k++)
      types[k] = plan->topn_part[k]->type;
    t->pmap = lm_aggtable_new(np, types, 0, NULL);
  }
  if (!t->stage_exprs || !t->stage_schema || !t->out_schema ||
      (np > 0 && !t->pmap)) {
    topn_free(&t->base);
    return NULL;
  }
  for (int c = 0; c < t->n_cols; c++) {
    const lm_field *f = &ip->out_schema->fields[c];
    t->stage_exprs[c] = ip->out[c];
    lm_schema_set_field(t->stage_schema, c, f->name, f->type, true);
    lm_schema_set_field(t->out_schema, c, f->name, f->type, f->nullable);
  }
  for (int k = 0; k < t->n_order; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "__order%d", k);
    t->stage_exprs[t->n_cols + k] = plan->topn_order[k].expr;
    lm_schema_set_field(t->stage_schema, t->n_cols + k, nm,
                        plan->topn_order[k].expr->type, true);
  }
  const lm_field *rn = &plan->input_schema->fields[plan->topn_rn_col];
  lm_schema_set_field(t->out_schema, t->n_cols, rn->name,
                      lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(t->out_schema, t->n_cols + 1, "__weight",
                      lm_type_make(LM_TYPE_INT64), false);
  return &t->base;
}
