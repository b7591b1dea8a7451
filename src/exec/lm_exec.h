/*
 * exec/ — vectorized execution: expression evaluation over whole batches,
 * selection/take kernels, the group hash table with aggregate
 * accumulators, and push-based operators (filter, project, keyed
 * aggregate, tumbling-window aggregate, sort) chained into pipelines.
 *
 * Operators are push-based: push(batch) processes one batch and pushes
 * results to `next`; watermark(wm) advances event time (µs) and may emit
 * closed windows; finish() ends bounded input. Batches passed to push are
 * borrowed (the operator retains what it keeps).
 */
#ifndef LM_EXEC_H
#define LM_EXEC_H

#include "plan/lm_plan.h"

/* ------------------------------------------------------------ kernels */

/* Evaluates e over every row of `in`; *out is a new array of in->num_rows
 * rows (caller releases). Errors: LM_ERR_EXEC with a message naming the
 * expression position, e.g. "3:14: integer out of range (overflow in
 * arithmetic)", "3:14: division by zero", "cannot cast 'abc' to integer". */
int lm_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
            lm_error *err);

/* Gathers rows idx[0..n) of a (indices must be < a->length) into a new
 * array. NULL on OOM. */
lm_array *lm_array_take(const lm_array *a, const int32_t *idx, int64_t n);
/* Gathers rows of every column; NULL on OOM. */
lm_batch *lm_batch_take(const lm_batch *b, const int32_t *idx, int64_t n);
/* Rows where `pred` (BOOL) is true (NULL counts as false). Returns a new
 * reference (possibly to `b` itself when every row passes). */
lm_batch *lm_batch_filter(lm_batch *b, const lm_array *pred);

/* Evaluates `n` expressions over `in` into a batch with `schema`. */
int lm_project(lm_bexpr *const *exprs, int n, lm_schema *schema,
               const lm_batch *in, lm_batch **out, lm_error *err);

/* Concatenates batches of one schema into one batch (a new reference;
 * zero rows gives an empty batch). */
int lm_batch_concat(lm_schema *schema, lm_batch *const *batches, int n,
                    lm_batch **out, lm_error *err);

/* Sorts a batch by keys (columns of b referenced by COLUMN bexprs), stable,
 * then applies OFFSET/LIMIT (limit -1 = none). */
int lm_batch_sort(lm_batch *b, const lm_sort_key *keys, int n_keys,
                  int64_t offset, int64_t limit, lm_batch **out, lm_error *err);

/* ------------------------------------------- group table + aggregates */

typedef struct lm_aggtable lm_aggtable;

/* A hash table from group key (n_keys values of key_types) to a group id
 * and aggregate states for `aggs` (borrowed; must outlive the table). */
lm_aggtable *lm_aggtable_new(int n_keys, const lm_type *key_types, int n_aggs,
                             const lm_agg_spec *aggs);
void lm_aggtable_free(lm_aggtable *t);
int64_t lm_aggtable_groups(const lm_aggtable *t);
/* Adds rows to their groups: keys[k] / agg_inputs[a] are arrays of the
 * batch (agg_inputs[a] NULL for COUNT(*)); sel lists the row indices to
 * use (NULL = rows 0..n-1). If gids is non-NULL it receives each row's
 * group id. Errors: LM_ERR_EXEC on SUM overflow, LM_ERR_NOMEM. */
int lm_aggtable_update(lm_aggtable *t, lm_array *const *keys,
                       lm_array *const *agg_inputs, const int32_t *sel,
                       int64_t n, uint32_t *gids, lm_error *err);
/* The two halves of lm_aggtable_update: find (or create) each row's group
 * without touching aggregate states, then fold the rows into the states.
 * Used when old values must be read between the two (changelogs). */
int lm_aggtable_lookup(lm_aggtable *t, lm_array *const *keys,
                       const int32_t *sel, int64_t n, uint32_t *gids,
                       lm_error *err);
int lm_aggtable_accumulate(lm_aggtable *t, lm_array *const *agg_inputs,
                           const int32_t *sel, int64_t n, const uint32_t *gids,
                           lm_error *err);
/* Checks, without changing anything, that folding the rows in would not
 * overflow an integer SUM (the only way accumulate fails short of OOM).
 * LM_ERR_EXEC "integer out of range: overflow in SUM" when it would. */
int lm_aggtable_check(lm_aggtable *t, lm_array *const *agg_inputs,
                      const int32_t *sel, int64_t n, const uint32_t *gids,
                      lm_error *err);
/* Drops the groups created after the first n_groups (undoes the lookups
 * of a batch that failed). */
void lm_aggtable_truncate(lm_aggtable *t, int64_t n_groups);
/* Appends groups `gids` (NULL = all groups in creation order, n ignored)
 * as rows [keys..., aggregate results...] to bb, whose schema must be the
 * plan's agg_schema. */
int lm_aggtable_emit(const lm_aggtable *t, const uint32_t *gids, int64_t n,
                     lm_batch_builder *bb, lm_error *err);

/* ----------------------------------------------------------- operators */

typedef struct lm_operator lm_operator;
typedef struct lm_operator_vt {
  const char *name;
  int (*push)(lm_operator *op, lm_batch *b, lm_error *err);
  int (*watermark)(lm_operator *op, int64_t wm_us, lm_error *err);
  void (*free)(lm_operator *op);
} lm_operator_vt;

struct lm_operator {
  const lm_operator_vt *vt;
  lm_operator *next;
  int64_t rows_in, rows_out, late_dropped;
};

/* Default watermark handler: forwards to next. */
int lm_operator_forward_watermark(lm_operator *op, int64_t wm, lm_error *err);
int lm_operator_emit(lm_operator *op, lm_batch *b, lm_error *err);

/* The end of a pipeline: calls fn for every batch and watermark. */
typedef struct lm_output_cb {
  int (*batch)(void *ctx, lm_batch *b, lm_error *err);
  int (*watermark)(void *ctx, int64_t wm_us, lm_error *err);
  void *ctx;
} lm_output_cb;

lm_operator *lm_op_output_new(lm_output_cb cb);
lm_operator *lm_op_filter_new(const lm_bexpr *pred);
lm_operator *lm_op_project_new(lm_bexpr *const *exprs, int n,
                               lm_schema *schema);
/* Keyed aggregate without window (incremental). Emits, after each batch, a
 * changelog of the groups it changed: the old row with __weight -1 (when
 * the group existed) and the new row with __weight +1; `out_schema` is
 * plan->out_schema plus a trailing BIGINT __weight. When `changelog` is
 * false it emits nothing (the state is only read through snapshots). */
lm_operator *lm_op_aggregate_new(const lm_plan *plan, lm_schema *out_schema,
                                 bool changelog);
/* Final rows (keys, aggs -> HAVING -> projection) of every group, for a
 * materialized view read or the end of an ad-hoc query. */
int lm_op_aggregate_snapshot(lm_operator *op, lm_batch **out, lm_error *err);
/* Tumbling-window aggregate, EMIT ON WINDOW CLOSE: a window [start, end)
 * is emitted once, when the watermark reaches end; rows for windows that
 * are already closed are dropped and counted in late_dropped. */
lm_operator *lm_op_window_aggregate_new(const lm_plan *plan);

/* Builds the streaming pipeline for a plan: filter -> aggregate/window ->
 * project, ending in `out`. For a non-windowed aggregate *agg_op receives
 * the aggregate operator (for snapshots). Returns the head, or NULL with
 * err set. */
lm_operator *lm_pipeline_build(const lm_plan *plan, lm_schema *out_schema,
                               bool changelog, lm_output_cb out,
                               lm_operator **agg_op, lm_error *err);
void lm_pipeline_free(lm_operator *head);

#endif
