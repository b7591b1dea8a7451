/* Helpers shared by the aggregate operators (internal to exec/). */
#ifndef LM_OP_INTERNAL_H
#define LM_OP_INTERNAL_H

#include "exec/lm_exec.h"

/* HAVING then the projection, over an aggregate-schema batch. */
int lm_post_aggregate(const lm_plan *p, lm_batch *agg_batch, lm_batch **out,
                      lm_error *err);
/* Evaluates the plan's GROUP BY keys and aggregate arguments over b into
 * keys[0..n_keys) and aggs[0..n_aggs) (NULL for COUNT(*)); release with
 * lm_release_inputs even on error. */
int lm_eval_inputs(const lm_plan *p, lm_batch *b, lm_array **keys,
                   lm_array **aggs, lm_error *err);
void lm_release_inputs(const lm_plan *p, lm_array **keys, lm_array **aggs);
/* Final rows of groups gids[0..n) of t (gids NULL = every group, in
 * creation order): keys and aggregate results, then HAVING and the
 * projection. *out is a new batch of plan->out_schema. */
int lm_aggtable_result(const lm_plan *p, const lm_aggtable *t,
                       const uint32_t *gids, int64_t n, lm_batch **out,
                       lm_error *err);
/* Grows a scratch array to hold at least n elements of `elem` bytes. */
int lm_scratch_grow(void **p, int64_t *cap, int64_t n, size_t elem,
                    lm_error *err);
/* A group table for the plan's keys and aggregates. */
lm_aggtable *lm_plan_new_aggtable(const lm_plan *p);

/* --- windows (op_window_common.c) --- */

/* A new array of n copies of v (µs) of `type` (TIMESTAMP), NULL on OOM. */
lm_array *lm_const_ts_array(lm_type type, int64_t n, int64_t v);
/* Replaces the window start and end key columns of keys[] (n rows, owned
 * references; the old ones are released) with constant placeholders: the
 * window operators fill the real bounds at emission. LM_ERR_NOMEM. */
int lm_window_placeholder_keys(const lm_plan *p, lm_array **keys, int64_t n,
                               lm_error *err);
/* Final rows of groups gids[0..n) of t (a table of the plan's keys and
 * aggregates; gids NULL = all groups): the window start/end key columns
 * are replaced by ws[i]/we[i] (per emitted group; NULL = ws0/we0 for every
 * row), then HAVING and the projection. When weight != 0 a BIGINT
 * __weight column of `weight` is appended and the batch has `wschema`
 * (plan->out_schema + __weight). *out is a new batch (n may be 0). */
int lm_window_rows(const lm_plan *p, const lm_aggtable *t, const uint32_t *gids,
                   int64_t n, const int64_t *ws, const int64_t *we, int64_t ws0,
                   int64_t we0, lm_schema *wschema, int64_t weight,
                   lm_batch **out, lm_error *err);
/* The session window over a changelog input (op_session_changelog.c);
 * lm_op_session_window_new's contract, for plan->changelog_input. */
lm_operator *lm_op_session_changelog_new(const lm_plan *plan,
                                         lm_window_emit mode,
                                         lm_schema *wschema, lm_output_cb late);
/* Appends a BIGINT column of `weight` to b; *out has `schema`. */
int lm_with_weight(lm_batch *b, lm_schema *schema, int64_t weight,
                   lm_batch **out, lm_error *err);
/* Overflow-safe: a + b clamped to [INT64_MIN, INT64_MAX]. */
int64_t lm_sat_add(int64_t a, int64_t b);

/* Window state against the watermark wm (µs; INT64_MIN = none yet):
 * closed when end <= wm, expired (can no longer change) when end +
 * lateness <= wm (always at wm = INT64_MAX). */
bool lm_window_closed(int64_t wm, int64_t end);
bool lm_window_expired(int64_t wm, int64_t end, int64_t lateness);
/* The smallest time (µs) that is not late at watermark wm: wm - lateness
 * (INT64_MIN before the first watermark, INT64_MAX after the last). */
int64_t lm_window_horizon(int64_t wm, int64_t lateness);
/* Splits rows [0, n) of a batch by their time column tc (TIMESTAMP): rows
 * with a NULL time or a time below `horizon` go to late[0..*n_late), the
 * others to sel[0..*m) — except those whose weight wts[i] is 0 (wts NULL =
 * no weights). sel and late hold n entries each. */
void lm_window_split_late(const lm_array *tc, int64_t n, int64_t horizon,
                          const int64_t *wts, int32_t *sel, int64_t *m,
                          int32_t *late, int64_t *n_late);
/* Late rows rows[0..n) of b: counted in op->late_dropped, then passed to
 * late.batch when set (as a new batch; b stays the caller's). Errors: the
 * callback's, LM_ERR_NOMEM. */
int lm_window_send_late(lm_operator *op, lm_output_cb late, lm_batch *b,
                        const int32_t *rows, int64_t n, lm_error *err);
/* Emits b through op when it has rows; always releases b (consumed). */
int lm_window_emit_batch(lm_operator *op, lm_batch *b, lm_error *err);

/* One result row of a window operator: group g of its state table, the
 * window [ws, we) in µs. */
typedef struct lm_window_row {
  uint32_t g;
  int64_t ws, we;
} lm_window_row;
/* Emits the rows r[0..n) of table t through op: lm_window_rows with
 * per-row bounds (weight and wschema as there; groups with no live rows
 * left out over a changelog), then lm_window_emit_batch. n = 0 emits
 * nothing. Errors: LM_ERR_NOMEM, those of HAVING/the projection and of
 * the downstream operators. */
int lm_window_emit_rows(lm_operator *op, const lm_plan *p, const lm_aggtable *t,
                        const lm_window_row *r, int64_t n, lm_schema *wschema,
                        int64_t weight, lm_error *err);

/* Rebuilds *t (a table of the plan's shape) with only the groups g[0..n):
 * on success g[i] is the group's id in the new table, which replaces *t
 * (the old one is freed); on error *t and g are unchanged. LM_ERR_NOMEM. */
int lm_window_compact(const lm_plan *p, lm_aggtable **t, uint32_t *g, int64_t n,
                      lm_error *err);

/* A min-heap of (key, id, ix) entries by key, for the session operators'
 * schedules (what an entry means is the caller's; stale entries are
 * skipped by the caller when popped). */
typedef struct lm_wheap_ent {
  int64_t key, id;
  int32_t ix;
} lm_wheap_ent;
typedef struct lm_wheap {
  lm_wheap_ent *a; /* a[0] is the smallest key while n > 0 */
  int64_t n, cap;
} lm_wheap;
/* Returns -1 on OOM (the heap unchanged), else 0. */
int lm_wheap_push(lm_wheap *h, int64_t key, int64_t id, int32_t ix);
/* Removes a[0]; h->n must be > 0. */
void lm_wheap_pop(lm_wheap *h);

/* The partition id (0-based, dense) of each of e's num_rows rows for the
 * OVER call c, written to gid[num_rows]; *keys (created on first use, owned
 * by the caller) maps PARTITION BY values to ids; *n_ids receives 1 + the
 * largest id of this batch (1 when c has no PARTITION BY). Shared by the
 * OVER operators over append-only and changelog inputs (op_over.c,
 * op_over_changelog.c). Errors: evaluating a key, no memory. */
struct lm_over_call;
int lm_over_part_ids(const struct lm_over_call *c, lm_aggtable **keys,
                     const lm_batch *e, uint32_t *gid, int64_t *n_ids,
                     lm_error *err);

#endif
