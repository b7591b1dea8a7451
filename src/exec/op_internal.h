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
/* The opening checks of an aggregate operator's push of b: refused when
 * the operator `failed` (its earlier error message; NULL: it runs), or
 * over 64 keys or aggregates (LM_ERR_BIND); over a changelog input *w is
 * b's __weight values (LM_ERR_EXEC when the column is missing), else
 * NULL. */
int lm_agg_push_open(const lm_plan *p, const lm_batch *b, const char *failed,
                     const int64_t **w, lm_error *err);
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
/* The aggregate of a plan with grouping sets (op_gsets_aggregate.c):
 * lm_op_aggregate_new / lm_op_aggregate_snapshot's contracts, which call
 * these for plan->n_gsets. */
lm_operator *lm_op_gsets_aggregate_new(const lm_plan *plan,
                                       lm_schema *out_schema, bool changelog);
int lm_gsets_aggregate_snapshot(lm_operator *op, lm_batch **out, lm_error *err);
bool lm_op_is_gsets_aggregate(const lm_operator *op);
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

/* --- session windows (op_session_common.c) --- */

/* One input batch of a session operator, evaluated and split. */
typedef struct lm_session_in {
  /* the plan's keys (window columns: constant placeholders) and aggregate
   * arguments over the batch's rows (owned; NULL for COUNT(*)) */
  lm_array *keys[64], *aggs[64];
  const int64_t *wts; /* the batch's __weight values (weighted), else NULL */
  const lm_array *tc; /* the batch's time column (TIMESTAMP, borrowed) */
  const int64_t *ts;  /* its values (µs) */
  int32_t *sel;       /* the rows on time: sel[0..m) (owned) */
  uint32_t *kids;     /* kids[j]: row sel[j]'s key id in kd (owned) */
  int64_t m;
} lm_session_in;
/* Opens a session operator's push of b (num_rows n): evaluates the plan's
 * keys and aggregate arguments (window key columns replaced by
 * placeholders), splits the rows by time against `horizon` (µs; late =
 * NULL time or below it; with `weighted`, rows of __weight 0 are neither),
 * sends the late ones to `late` (counted in op->late_dropped) and looks up
 * the key id of each row on time in kd (new keys get the next ids). m = 0
 * when no row is on time. Release *in with lm_session_in_free, also on
 * error. Errors: LM_ERR_BIND (over 64 keys or aggregates), LM_ERR_EXEC
 * (weighted without a __weight column), LM_ERR_NOMEM, evaluation errors,
 * the late callback's. */
int lm_session_in_open(lm_operator *op, const lm_plan *p, lm_batch *b,
                       lm_aggtable *kd, int64_t horizon, bool weighted,
                       lm_output_cb late, lm_session_in *in, lm_error *err);
void lm_session_in_free(const lm_plan *p, lm_session_in *in);
/* Grows *arr (*cap entries of `elem` bytes) to 2 * need entries when need >
 * *cap, the new entries zeroed; *arr and *cap are unchanged on error.
 * LM_ERR_NOMEM. */
int lm_grow_zeroed(void **arr, int64_t *cap, int64_t need, size_t elem,
                   lm_error *err);

/* --- streaming OVER (op_over_common.c) --- */

struct lm_over_call;
/* The aggregate function of an OVER call. */
typedef enum lm_over_fn {
  LM_OVER_COUNT,
  LM_OVER_SUM,
  LM_OVER_AVG,
  LM_OVER_MIN,
  LM_OVER_MAX
} lm_over_fn;
/* c's function (c->fn: count, sum, avg, min, else max); *isf: whether its
 * argument is a float (FLOAT16/32/64; false for COUNT(*)). */
lm_over_fn lm_over_fn_of(const struct lm_over_call *c, bool *isf);
/* avg of integers as numeric: the quotient sum / cnt (cnt > 0) at scale
 * `scale` as PostgreSQL's numeric division gives it (lm_dec_quotient,
 * the GROUP BY aggregate's arithmetic); 0 or -1 beyond 38 digits. */
int lm_over_avg_numeric(__int128 sum, int64_t cnt, int scale, __int128 *out);
/* Appends the unscaled value v to a DECIMAL128 builder (lm_dec_append). */
void lm_over_append_dec(lm_builder *b, __int128 v);
/* One value of a call: an argument of a row, or a result. i holds
 * integers and times (µs), f floats (one of the two, by the call's
 * argument type), d a numeric (DECIMAL128) result's unscaled value as its
 * low and high 64 bits (lm_over_dec / lm_over_set_dec); 0 when null. */
typedef struct lm_over_val {
  union {
    int64_t i;
    double f;
    uint64_t d[2];
  };
  bool null;
} lm_over_val;
/* The unscaled DECIMAL128 value of a numeric result v. */
static inline __int128 lm_over_dec(const lm_over_val *v) {
  return (__int128)(((unsigned __int128)v->d[1] << 64) | v->d[0]);
}
static inline void lm_over_set_dec(lm_over_val *v, __int128 x) {
  v->d[0] = (uint64_t)(unsigned __int128)x;
  v->d[1] = (uint64_t)((unsigned __int128)x >> 64);
}
/* Row r of argument a (NULL for COUNT(*): a non-null 0) as a float (isf)
 * or an integer, into *v. Inline: per row. */
static inline void lm_over_arg(const lm_array *a, int64_t r, bool isf,
                               lm_over_val *v) {
  v->d[0] = v->d[1] = 0;
  v->null = a && lm_array_is_null(a, r);
  if (a && !v->null) {
    if (isf)
      v->f = lm_array_get_f64(a, r);
    else
      v->i = lm_array_get_i64(a, r);
  }
}
/* Whether v is a better MIN (k = LM_OVER_MIN) or MAX (any other k) than
 * the current best bi / bf (compared as floats when isf). Inline: per
 * row. */
static inline bool lm_over_better(lm_over_fn k, bool isf, const lm_over_val *v,
                                  int64_t bi, double bf) {
  bool mn = k == LM_OVER_MIN;
  return isf ? (mn ? v->f < bf : v->f > bf) : (mn ? v->i < bi : v->i > bi);
}
/* A frame's totals: the sums of its non-null values, their count, its
 * rows (COUNT(*)), and for MIN/MAX the best value (any: there is one). */
typedef struct lm_over_frame {
  __int128 isum;
  double fsum;
  int64_t cnt, rows;
  bool any;
  int64_t bi;
  double bf;
} lm_over_frame;
/* The result of function k over frame fr (isf: float argument; has_arg:
 * false for COUNT(*)) into *out: COUNT never null, SUM/AVG/MIN/MAX null
 * over no value. An integer SUM / AVG whose result type `ot` is numeric
 * (DECIMAL128: sum(bigint) at scale 0, avg of integers at ot.scale, as
 * PostgreSQL) is exact in out->d. LM_ERR_EXEC when an integer SUM leaves
 * BIGINT, 22003 when a numeric leaves 38 digits. Inline: per row. */
static inline int lm_over_result(const lm_over_frame *fr, lm_over_fn k,
                                 bool isf, bool has_arg, lm_type ot,
                                 lm_over_val *out, lm_error *err) {
  out->d[0] = out->d[1] = 0;
  out->null = false;
  bool num = ot.id == LM_TYPE_DECIMAL128;
  switch (k) {
  case LM_OVER_COUNT:
    out->i = has_arg ? fr->cnt : fr->rows;
    break;
  case LM_OVER_SUM:
    out->null = !fr->cnt;
    if (isf)
      out->f = fr->fsum;
    else if (num) /* |sum| < 2^63 * 2^63: 38 digits */
      lm_over_set_dec(out, fr->isum);
    else if (fr->isum > INT64_MAX || fr->isum < INT64_MIN)
      return lm_err(err, LM_ERR_EXEC, "bigint out of range (sum() OVER)");
    else
      out->i = (int64_t)fr->isum;
    break;
  case LM_OVER_AVG:
    out->null = !fr->cnt;
    if (!fr->cnt) {
    } else if (isf) {
      out->f = fr->fsum / (double)fr->cnt;
    } else if (num) {
      __int128 q;
      if (lm_over_avg_numeric(fr->isum, fr->cnt, ot.scale, &q)) {
        lm_err(err, LM_ERR_EXEC, "numeric field overflow");
        return lm_err_state(err, "22003");
      }
      lm_over_set_dec(out, q);
    } else {
      out->f = (double)((long double)fr->isum / (long double)fr->cnt);
    }
    break;
  default:
    out->null = !fr->any;
    if (isf)
      out->f = fr->bf;
    else
      out->i = fr->bi;
  }
  return 0;
}
/* Appends v to b: NULL, v->f when the call's result type `out` is
 * FLOAT64, the numeric v->d when DECIMAL128, else v->i. Inline: per
 * row. */
static inline void lm_over_append(lm_builder *b, const lm_over_val *v,
                                  lm_type_id out) {
  if (v->null)
    lm_builder_append_null(b);
  else if (out == LM_TYPE_FLOAT64)
    lm_builder_append_double(b, v->f);
  else if (out == LM_TYPE_DECIMAL128)
    lm_over_append_dec(b, lm_over_dec(v));
  else
    lm_builder_append_int(b, v->i);
}

/* The partition id (0-based, dense) of each of e's num_rows rows for the
 * OVER call c, written to gid[num_rows]; *keys (created on first use, owned
 * by the caller) maps PARTITION BY values to ids; *n_ids receives 1 + the
 * largest id of this batch (1 when c has no PARTITION BY). Shared by the
 * OVER operators over append-only and changelog inputs (op_over.c,
 * op_over_changelog.c). Errors: evaluating a key, no memory. */
int lm_over_part_ids(const struct lm_over_call *c, lm_aggtable **keys,
                     const lm_batch *e, uint32_t *gid, int64_t *n_ids,
                     lm_error *err);

#endif
