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

#endif
