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

/* A SUBQUERY node over `in` (expr_subquery.c): runs e->sub's inner query
 * through its runner once per distinct tuple of the outer values it reads
 * (cached in e->sub for the statement). Errors: LM_ERR_EXEC "more than one
 * row returned by a subquery used as an expression" (SQLSTATE 21000), the
 * inner query's errors, LM_ERR_NOMEM. */
int lm_eval_subquery(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err);
/* Frees a subplan's cached results (end of the statement); the subplan can
 * run again afterwards. NULL is a no-op. */
void lm_subplan_reset(lm_subplan *sp);
/* An uncorrelated subplan's (n_params 0) rows, already computed (e.g. when
 * it was planned): cached as its InitPlan result (rows retained). A no-op
 * for a correlated or already cached one. Errors: LM_ERR_NOMEM. */
int lm_subplan_prime(lm_subplan *sp, lm_batch *rows, lm_error *err);
/* While dry (lm_subq_dry(+1) ... lm_subq_dry(-1); nests; per thread),
 * subquery expressions evaluate to NULL without running anything (a query
 * run at planning time for its output schema must not run the subqueries
 * it holds with parameters not yet set); lm_subq_dry_hits counts those
 * evaluations, so the caller can tell whether a result is exact. */
void lm_subq_dry(int delta);
int64_t lm_subq_dry_hits(void);

/* Gathers rows idx[0..n) of a (indices must be < a->length) into a new
 * array. NULL on OOM. */
lm_array *lm_array_take(const lm_array *a, const int32_t *idx, int64_t n);
/* Gathers rows of every column; NULL on OOM. */
lm_batch *lm_batch_take(const lm_batch *b, const int32_t *idx, int64_t n);
/* Rows where `pred` (BOOL) is true (NULL counts as false). Returns a new
 * reference (possibly to `b` itself when every row passes). */
lm_batch *lm_batch_filter(lm_batch *b, const lm_array *pred);
/* The rows of b where the BOOL expression `where` is true (NULL counts as
 * false; a NULL `where` keeps every row): *out gets a new reference (to b
 * itself when every row passes). b stays the caller's. Errors: evaluating
 * `where` (its error), LM_ERR_NOMEM. */
int lm_batch_where(const lm_bexpr *where, lm_batch *b, lm_batch **out,
                   lm_error *err);

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
/* lm_batch_sort for FETCH FIRST n ROWS WITH TIES: the rows after the
 * limit that tie with the last one kept (equal in every key) are kept
 * too. Same ownership and errors. */
int lm_batch_sort_ties(lm_batch *b, const lm_sort_key *keys, int n_keys,
                       int64_t offset, int64_t limit, lm_batch **out,
                       lm_error *err);

/* ------------------------------------------- group table + aggregates */

typedef struct lm_aggtable lm_aggtable;

/* A hash table from group key (n_keys values of key_types) to a group id
 * and aggregate states for `aggs` (borrowed; must outlive the table). */
lm_aggtable *lm_aggtable_new(int n_keys, const lm_type *key_types, int n_aggs,
                             const lm_agg_spec *aggs);
void lm_aggtable_free(lm_aggtable *t);
int64_t lm_aggtable_groups(const lm_aggtable *t);
/* The current value of aggregate `agg` (an append-only MIN or MAX of an
 * integer-like type: the table is not retractable) for group gid: true
 * with *out set when the group has folded a non-NULL value, false
 * otherwise (other aggregates, retractable tables, no value yet). */
bool lm_aggtable_extreme_i64(const lm_aggtable *t, int agg, uint32_t gid,
                             int64_t *out);
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
/* lm_aggtable_lookup without creating groups (a hash probe, as a join's
 * probe side): gids[j] is the group of row sel[j] (or j), or UINT32_MAX
 * when t has no group with that key. Keys encode as in lm_aggtable_lookup
 * (integers of any width as int64, floats as double with -0 = 0 and one
 * NaN, a CHAR(n) without its trailing spaces when the array or the table's
 * key type is CHAR; a NULL is its own value). A group's CHAR key is emitted
 * as its first value, padding included. Errors: LM_ERR_NOMEM. */
int lm_aggtable_find(lm_aggtable *t, lm_array *const *keys, const int32_t *sel,
                     int64_t n, uint32_t *gids, lm_error *err);
int lm_aggtable_accumulate(lm_aggtable *t, lm_array *const *agg_inputs,
                           const int32_t *sel, int64_t n, const uint32_t *gids,
                           lm_error *err);
/* Arrival order of first_value/last_value across a batch folded in pieces
 * (e.g. pane by pane): lm_agg_seq_reserve(n) reserves n process-wide
 * sequence numbers (one per batch row) and returns the first; while a
 * table's seq base is set (>= 0), batch row r folded into it gets sequence
 * number base + r. Set it back to -1 after the batch. */
int64_t lm_agg_seq_reserve(int64_t n);
void lm_aggtable_set_seq_base(lm_aggtable *t, int64_t base);
/* Checks, without changing anything, that folding the rows in would not
 * overflow an integer SUM (the only way accumulate fails short of OOM).
 * LM_ERR_EXEC "integer out of range: overflow in SUM" when it would. */
int lm_aggtable_check(lm_aggtable *t, lm_array *const *agg_inputs,
                      const int32_t *sel, int64_t n, const uint32_t *gids,
                      lm_error *err);
/* Changelog (Z-set) input. lm_aggtable_set_retractable, called before the
 * first row, makes every state able to take negative weights (MIN/MAX and
 * first/last_value then keep ordered multisets instead of one value).
 * Errors: LM_ERR_BIND when an aggregate cannot retract
 * (APPROX_COUNT_DISTINCT), LM_ERR_EXEC when rows were already added.
 * lm_aggtable_check_w / lm_aggtable_accumulate_w are lm_aggtable_check /
 * lm_aggtable_accumulate with weights[r] (BIGINT, by row position like the
 * inputs; NULL = every row +1; a retractable table is needed otherwise).
 * check_w refuses, changing nothing, a batch that would take a group's row
 * count below 0: LM_ERR_EXEC "more retractions than insertions ...".
 * accumulate_w reports a retraction of a value the group does not hold
 * the same way, after which the table's state is unreliable.
 * lm_aggtable_group_rows is a group's live row count (sum of weights): a
 * keyed group with 0 rows has no result row. */
int lm_aggtable_set_retractable(lm_aggtable *t, lm_error *err);
int lm_aggtable_check_w(lm_aggtable *t, lm_array *const *agg_inputs,
                        const int64_t *weights, const int32_t *sel, int64_t n,
                        const uint32_t *gids, lm_error *err);
int lm_aggtable_accumulate_w(lm_aggtable *t, lm_array *const *agg_inputs,
                             const int64_t *weights, const int32_t *sel,
                             int64_t n, const uint32_t *gids, lm_error *err);
int64_t lm_aggtable_group_rows(const lm_aggtable *t, uint32_t gid);
/* Which of equal values a retractable table shows (a materialized view
 * under UPDATE/DELETE). Keys whose equal values print differently (floats
 * 0/-0, INTERVAL '1 mon'/'30 days', CHAR padding, jsonb '1'/'1.0') show
 * the values of the group's earliest live row, and MIN/MAX of floats and
 * intervals the latest of equal extremes, as a query over the remaining
 * rows does. lm_aggtable_wants_row_ids: whether t uses row identities;
 * lm_aggtable_set_row_ids: rid[r] identifies batch row r (lm_agg_row_ids;
 * borrowed until set back to NULL after the batch), so a retraction removes
 * the occurrence its own row made (without: the latest equal one).
 * lm_aggtable_spell_w folds the rows' keys (the arrays given to lookup,
 * same weights/sel/gids as accumulate_w; call it with accumulate_w, after
 * the old result rows were read); a no-op unless t needs it. Errors:
 * LM_ERR_NOMEM. */
bool lm_aggtable_wants_row_ids(const lm_aggtable *t);
void lm_aggtable_set_row_ids(lm_aggtable *t, const uint64_t *rid);
int lm_aggtable_spell_w(lm_aggtable *t, lm_array *const *keys,
                        const int64_t *weights, const int32_t *sel, int64_t n,
                        const uint32_t *gids, lm_error *err);
/* Drops the groups created after the first n_groups (undoes the lookups
 * of a batch that failed). */
void lm_aggtable_truncate(lm_aggtable *t, int64_t n_groups);
/* Makes room for `groups` groups (rows of state) and key_bytes bytes of
 * encoded keys (lm_aggtable_key_bytes: what t's groups use), so that adding
 * that many grows nothing. LM_ERR_NOMEM (t unchanged but usable). */
int lm_aggtable_reserve(lm_aggtable *t, int64_t groups, int64_t key_bytes);
int64_t lm_aggtable_key_bytes(const lm_aggtable *t);
/* Appends groups `gids` (NULL = all groups in creation order, n ignored)
 * as rows [keys..., aggregate results...] to bb, whose schema must be the
 * plan's agg_schema. */
int lm_aggtable_emit(const lm_aggtable *t, const uint32_t *gids, int64_t n,
                     lm_batch_builder *bb, lm_error *err);

/* Merging partial states (window panes, session merges).
 *
 * lm_aggtable_intern: for each group src_gids[j] of src (NULL = groups
 * 0..n-1), dst_gids[j] receives the id of the group with the same key in
 * dst (same key types), created with empty states when `create`, else -1
 * when absent. Errors: LM_ERR_NOMEM.
 * lm_aggtable_merge_groups: folds the states of src's groups sg[j] into
 * dst's groups dg[j] (tables of the same aggregate specs; dst may be src,
 * with distinct ids), with the accumulators' NULL rules: COUNT adds, SUM
 * and AVG add sums and counts, MIN/MAX compare, DISTINCT unions the values
 * seen. src is unchanged. Errors: LM_ERR_EXEC on integer SUM overflow or an
 * aggregate without a merge, LM_ERR_NOMEM.
 * lm_aggtable_merge_group: the same for one group. */
int lm_aggtable_intern(lm_aggtable *dst, const lm_aggtable *src,
                       const uint32_t *src_gids, int64_t n, bool create,
                       int64_t *dst_gids, lm_error *err);
int lm_aggtable_merge_groups(lm_aggtable *dst, const uint32_t *dg,
                             const lm_aggtable *src, const uint32_t *sg,
                             int64_t n, lm_error *err);
/* Sliding HOP windows (op_window_aggregate.c): lm_aggtable_invertible
 * tells whether every aggregate of append-only table t has an exact
 * inverse of its merge (COUNT(*), COUNT(x), SUM and AVG of integers; no
 * DISTINCT, no float, MIN/MAX or other kinds). lm_aggtable_unmerge_groups
 * subtracts src's states of groups sg[j] from dst's groups dg[j] (and
 * their row counts), undoing an earlier lm_aggtable_merge_groups of them:
 * 0 on success, 1 when it cannot (a table that is not invertible, or an
 * int64 SUM leaving its range; dst may then be partly changed and must be
 * rebuilt). No allocation, no error message. */
bool lm_aggtable_invertible(const lm_aggtable *t);
int lm_aggtable_unmerge_groups(lm_aggtable *dst, const uint32_t *dg,
                               const lm_aggtable *src, const uint32_t *sg,
                               int64_t n);
int lm_aggtable_merge_group(lm_aggtable *dst, uint32_t dst_gid,
                            const lm_aggtable *src, uint32_t src_gid,
                            lm_error *err);

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
  /* optional processing-time tick (µs); NULL = forward to next */
  int (*tick)(lm_operator *op, int64_t now_us, lm_error *err);
  /* EXPLAIN ANALYZE counters (docs/explain.md), kept per batch, never per
   * row: batches received (lm_operator_push) and emitted, and the
   * operator's own time in ns (push + watermark, the time of the
   * operators it pushes to excluded). */
  int64_t batches_in, batches_out, time_ns;
  /* optional: rows and bytes the operator holds in state (NULL =
   * stateless or unknown) */
  void (*state)(const lm_operator *op, int64_t *rows, int64_t *bytes);
};

/* Pushes b (borrowed) into op, counting rows_in / batches_in and op's own
 * time (time_ns, self time: what downstream operators take is theirs).
 * Returns op's push result. lm_operator_watermark does the same for a
 * watermark (µs). Use these instead of op->vt->push / vt->watermark. */
int lm_operator_push(lm_operator *op, lm_batch *b, lm_error *err);
int lm_operator_watermark(lm_operator *op, int64_t wm_us, lm_error *err);
/* The same self-time accounting around other entry points (the join's
 * side callbacks): start before the work, stop after it (adds the self
 * time to op->time_ns). */
typedef struct lm_op_timer {
  int64_t t0, saved;
} lm_op_timer;
void lm_op_timer_start(lm_op_timer *t);
void lm_op_timer_stop(lm_op_timer *t, lm_operator *op);
/* Operator timing (time_ns) on or off, process-wide (on by default): off,
 * the two clock reads per batch, watermark and operator are skipped and
 * time_ns stays as it is (laminar_set_operator_timing). */
void lm_op_timing_set(bool on);
bool lm_op_timing(void);

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
/* A projection over a changelog input: evaluates the n expressions and
 * appends the input's BIGINT column weight_col (the __weight) unchanged;
 * `schema` (retained) has the n projected fields then __weight. NULL on
 * OOM or when schema does not have n + 1 fields. */
lm_operator *lm_op_project_weighted_new(lm_bexpr *const *exprs, int n,
                                        lm_schema *schema, int weight_col);
/* Keyed aggregate without window (incremental). Emits, after each batch, a
 * changelog of the groups it changed: the old row with __weight -1 (when
 * the group existed) and the new row with __weight +1; `out_schema` is
 * plan->out_schema plus a trailing BIGINT __weight. When `changelog` is
 * false it emits nothing (the state is only read through snapshots). */
lm_operator *lm_op_aggregate_new(const lm_plan *plan, lm_schema *out_schema,
                                 bool changelog);
/* Final rows (keys, aggs -> HAVING -> projection) of every group, for a
 * materialized view read or the end of an ad-hoc query. LM_ERR_EXEC "the
 * query stopped after an earlier error: ..." once a batch failed midway
 * (its state is then unreliable); LM_ERR_NOMEM. */
int lm_op_aggregate_snapshot(lm_operator *op, lm_batch **out, lm_error *err);
/* How a windowed aggregate emits (docs/windows.md). */
typedef enum lm_window_emit {
  LM_WEMIT_UPDATES, /* changelog after every batch: -old, +new per group */
  LM_WEMIT_CLOSE,   /* one row per group when the window closes (watermark
                       >= end); with allowed lateness, later changes as
                       -old/+new until watermark >= end + lateness */
  LM_WEMIT_FINAL,   /* one row per group at watermark >= end + lateness */
} lm_window_emit;

/* Whether a windowed plan emitted with `mode` produces a changelog (rows
 * with __weight): updates, or close with allowed lateness. */
bool lm_window_changelog(const lm_plan *plan, lm_window_emit mode);

/* The windowed aggregates. `plan` (borrowed, outlives the operator) has
 * window_kind TUMBLE/HOP/CUMULATE (lm_op_window_aggregate_new: state per
 * pane of gcd(slide, size) µs, windows assembled by merging pane states)
 * or SESSION (lm_op_session_window_new: per key, [first, last + gap),
 * merged when a row bridges two). `wschema` is plan->out_schema +
 * __weight when lm_window_changelog(plan, mode), else NULL (borrowed,
 * retained). Rows whose windows have all expired (watermark >= end +
 * allowed lateness; for sessions, a row older than watermark - lateness)
 * and rows with a NULL time are late: counted in late_dropped and passed
 * to `late` (batches of the input schema; late.batch NULL = dropped). The
 * watermark forwarded downstream is the smallest start of a window that
 * can still emit, so rows a window emits are never late downstream. NULL
 * on OOM. */
/* A tee (exec/op_tee.c): batches (borrowed) and watermarks go to the
 * operator's next, then to the pipeline `second` (taken over: freed with
 * the tee; on NULL return the caller still owns it). NULL on OOM. */
lm_operator *lm_op_tee_new(lm_operator *second);
/* The TUMBLE/HOP/CUMULATE window aggregate operator of a pipeline that
 * starts at `head` (borrowed), or NULL when there is none. */
lm_operator *lm_window_aggregate_find(lm_operator *head);
/* A dynamic-filter bound (docs/joins.md): the running value of aggregate
 * `agg` (an integer-like MAX when `max`, else MIN, of a window aggregate
 * without GROUP BY keys besides the window over an append-only input)
 * over the rows folded so far into the panes with start in [ws, we) µs.
 * Every such row belongs to the window [ws, we), so for MAX the value is
 * a lower bound of that window's final MAX (for MIN an upper bound).
 * false when no pane holds a value (or `op` is not such an operator). */
bool lm_window_aggregate_bound(const void *op, int agg, bool max, int64_t ws,
                               int64_t we, int64_t *out);
lm_operator *lm_op_window_aggregate_new(const lm_plan *plan,
                                        lm_window_emit mode, lm_schema *wschema,
                                        lm_output_cb late);
lm_operator *lm_op_session_window_new(const lm_plan *plan, lm_window_emit mode,
                                      lm_schema *wschema, lm_output_cb late);
/* Drops rows of a watermarked source that are late for one query: event
 * time (column time_col, µs) below the watermark in force when the row
 * arrives (largest event time before it minus delay_us, or the last
 * watermark received) minus lateness_us. Late rows are counted in
 * late_dropped and passed to `late` (late.batch NULL = dropped). */
lm_operator *lm_op_late_filter_new(int time_col, int64_t delay_us,
                                   int64_t skew_us, int64_t lateness_us,
                                   lm_output_cb late);
/* A source with several partitions moves its watermark by the minimum over
 * them, not row by row: lm_op_late_filter_follow_rows(op, false) makes a
 * late filter follow only the watermarks it is sent (its rows no longer
 * move it). No-op when op is not a late filter. */
void lm_op_late_filter_follow_rows(lm_operator *op, bool follow);
/* A source's watermark after event time x (µs): *max_ts is the largest
 * event time seen, *wm = *max_ts - delay_us. With skew_us > 0, a time more
 * than skew_us ahead of *max_ts does not move them by itself: it is kept
 * in *cand, and taken only when a second time within skew_us of it comes
 * (a single far-future event cannot freeze the source). */
void lm_wm_observe(int64_t x, int64_t delay_us, int64_t skew_us,
                   int64_t *max_ts, int64_t *cand, int64_t *wm);
/* EMIT PERIODICALLY: buffers a changelog (batches of `schema`, whose last
 * column is __weight) and, at each processing-time tick (every
 * interval_us µs of the clock passed to lm_operator_tick) and at the final
 * watermark, emits it consolidated: each distinct row once per unit of
 * its net weight, retractions first. NULL on OOM. */
lm_operator *lm_op_periodic_new(lm_schema *schema, int64_t interval_us);
/* Consolidates a changelog: batches[0..n) of `schema` (last column
 * __weight) into *out, rows with a net weight of 0 dropped, the others
 * repeated |weight| times with __weight -1 or +1, retractions first (when
 * keep_weight) or only the rows with positive net weight and without the
 * __weight column (when !keep_weight; *out then has `table_schema`). */
int lm_changelog_consolidate(lm_schema *schema, lm_batch *const *batches, int n,
                             bool keep_weight, lm_schema *table_schema,
                             lm_batch **out, lm_error *err);
/* Top-N / deduplication (exec/op_topn.c, docs/changelog.md): `plan`
 * (borrowed, outlives the operator) has plan->topn. Takes batches of the
 * subquery's input (with its BIGINT __weight at plan->weight_col when
 * plan->changelog_input; any non-zero multiplicity), already filtered by
 * the subquery's WHERE, and keeps per partition the top plan->topn_limit
 * rows by the OVER clause's ORDER BY, ties in arrival order. After each
 * batch it emits a changelog of batches [subquery columns..., rn BIGINT,
 * __weight BIGINT]: membership changes of the top N, or, with
 * plan->topn_rank_visible, every rank change as -old rn / +new rn;
 * retractions first. Errors (push): LM_ERR_EXEC "more retractions than
 * insertions for a Top-N partition ..." for a retraction of a row it does
 * not hold (the operator then refuses further input), expression errors,
 * LM_ERR_NOMEM. NULL on OOM. */
lm_operator *lm_op_topn_new(const lm_plan *plan);
/* The retracting temporal filter (exec/op_temporal_filter.c, docs/
 * changelog.md): `plan` (borrowed, outlives the operator) has n_tfilter
 * (1..8) conditions `e op now() + k`; now() is the last watermark (µs)
 * floored to the second (INT64_MIN before the first; the final
 * watermark INT64_MAX leaves it). Takes batches of the plan's input
 * (append-only, already filtered by its WHERE) and emits the projected
 * rows (plan->out) with a BIGINT __weight, as `wschema` (out_schema +
 * __weight): +1 when a row's conditions hold, at its push or at the
 * watermark that makes them hold, -1 at the watermark after which they
 * no longer do (one batch per watermark, retractions first). It holds
 * the projected rows with a change ahead (op->state). Errors (push,
 * watermark): evaluation errors, LM_ERR_NOMEM. NULL on OOM or a plan
 * without conditions. */
lm_operator *lm_op_temporal_filter_new(const lm_plan *plan, lm_schema *wschema);
/* Processing time: passes now_us (µs, the engine's clock: virtual in
 * script mode) down the pipeline; operators with periodic work do it. */
int lm_operator_tick(lm_operator *op, int64_t now_us, lm_error *err);

/* Builds the streaming pipeline for a plan: filter -> aggregate/window ->
 * project, ending in `out`. For a non-windowed aggregate *agg_op receives
 * the aggregate operator (for snapshots). Returns the head, or NULL with
 * err set. */
lm_operator *lm_pipeline_build(const lm_plan *plan, lm_schema *out_schema,
                               bool changelog, lm_output_cb out,
                               lm_operator **agg_op, lm_error *err);
/* The same, with the windowed operators' late rows passed to `late`
 * (late.batch NULL = dropped). For a windowed plan the emit mode is
 * lm_plan_window_emit(plan), except that without `changelog` an updating
 * mode becomes LM_WEMIT_CLOSE (the caller takes final rows only); EMIT
 * PERIODICALLY (with `changelog`) adds lm_op_periodic_new. */
lm_operator *lm_pipeline_build_ex(const lm_plan *plan, lm_schema *out_schema,
                                  bool changelog, lm_output_cb out,
                                  lm_output_cb late, lm_operator **agg_op,
                                  lm_error *err);
/* The window emit mode of a plan's EMIT clause: ON WINDOW CLOSE / AFTER
 * WATERMARK -> CLOSE, FINAL -> FINAL, anything else (none, CHANGES, ON
 * UPDATE, PERIODICALLY) -> UPDATES. */
lm_window_emit lm_plan_window_emit(const lm_plan *plan);
void lm_pipeline_free(lm_operator *head);

#endif
