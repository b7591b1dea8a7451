/*
 * exec/lm_window_fn.h — window functions (OVER) over one batch of rows:
 * the ad-hoc evaluation behind SELECT ... f(...) OVER (PARTITION BY ...
 * ORDER BY ... frame) (api/select_over.c; docs/window_functions.md).
 *
 * The rows are sorted once per call by (partition keys, order keys), each
 * partition walked once: ranking functions from peer groups, LAG/LEAD by
 * position, aggregates over a frame slid forward with removable
 * accumulators (SUM/COUNT/AVG/VAR: running sums; MIN/MAX: a monotonic
 * deque), so a call is O(n log n) whatever the frame size.
 */
#ifndef LM_WINDOW_FN_H
#define LM_WINDOW_FN_H

#include "exec/lm_exec.h"
#include "sql/lm_sql.h"

/* One window function call over n rows. Every array has n rows and is
 * borrowed. */
typedef struct lm_wf_call {
  const char *fn; /* lower-case: row_number, rank, sum, lag, ... */
  lm_array *const *args;
  int n_args;
  bool count_star; /* COUNT(*): args unused */
  lm_array *const *part;
  int n_part;
  lm_array *const *order;
  const bool *desc, *nulls_first; /* per order key */
  int n_order;
  /* the frame (has_frame false: PostgreSQL's default). Offsets: arrays
   * whose row 0 holds the constant (NULL when the bound has none). */
  bool has_frame;
  lm_frame_unit unit;
  lm_frame_bound_kind start, end;
  const lm_array *start_off, *end_off;
  /* RANGE over a TIMESTAMPTZ key: the whole days written in each INTERVAL
   * offset (lm_parse_interval_days), which move the bound in the session
   * zone's local time as PostgreSQL's timestamptz +/- interval; 0 when
   * the offset has none (its µs are then exact) */
  int64_t start_days, end_days;
  /* EXCLUDE (lm_frame_exclude): the rows taken out of each row's frame,
   * the current row (CURRENT ROW), its peer group (GROUP) or its peers
   * but not itself (TIES); 0, NO OTHERS: none */
  int exclude;
  int line, column; /* the call, for errors */
} lm_wf_call;

/* The type of c's result given its argument types (the args arrays), or
 * an error (LM_ERR_BIND "line:col: ...") for an unknown function or bad
 * arguments. */
int lm_window_fn_type(const lm_wf_call *c, lm_type *out, lm_error *err);

/* Evaluates c over n rows into *out (a new array of n rows, in the input's
 * row order, of lm_window_fn_type's type). Errors: LM_ERR_BIND for a bad
 * frame (negative or NULL offset, RANGE offset without exactly one ORDER
 * BY key of a numeric/time type), LM_ERR_EXEC for SUM overflow, NTILE or
 * NTH_VALUE argument <= 0, LM_ERR_NOMEM. */
int lm_window_fn_eval(const lm_wf_call *c, int64_t n, lm_array **out,
                      lm_error *err);

/* ------------------------------------------- streaming OVER aggregation
 *
 * Flink's OVER aggregation over an append-only stream ordered by its event
 * time: each input row is held until the watermark passes it (its time <
 * watermark), then emitted, in event-time order (arrival order among equal
 * times), with one more column per call: the aggregate over its frame
 * within its partition. ROWS BETWEEN n PRECEDING AND CURRENT ROW keeps the
 * last n rows of each partition; RANGE BETWEEN INTERVAL 'd' PRECEDING AND
 * CURRENT ROW the rows of the last d µs (peers, rows of the same time,
 * share one result); UNBOUNDED PRECEDING only running totals. A row that
 * arrives with a time below the watermark already passed is dropped and
 * counted in late_dropped. */
typedef struct lm_over_call {
  const char *fn;  /* sum, avg, count, min, max (lower case) */
  lm_bexpr *arg;   /* over the input; NULL for COUNT(*) */
  lm_bexpr **part; /* PARTITION BY keys over the input */
  int n_part;
  lm_frame_unit unit; /* LM_FRAME_ROWS or LM_FRAME_RANGE */
  int64_t preceding;  /* rows (ROWS) or µs (RANGE); -1 = UNBOUNDED */
  lm_type out_type;
} lm_over_call;

/* The result type of fn over an argument of type t, PostgreSQL's (COUNT:
 * INT64; SUM: INT64 for SMALLINT / INTEGER, numeric DECIMAL(38,0) for
 * BIGINT, FLOAT64 for floats; AVG: numeric DECIMAL(38,16) for integers,
 * FLOAT64 for floats; MIN/MAX: t), or -1 when the streaming operator does
 * not support it. */
int lm_over_call_type(const char *fn, lm_type t, lm_type *out);

/* A new OVER operator: `where` (may be NULL; borrowed, as calls' exprs:
 * they must outlive the operator) filters input rows first; time_col is
 * the input's event-time column (TIMESTAMP); out_schema (a reference
 * taken) is the input's columns then one per call. NULL on no memory. */
lm_operator *lm_op_over_new(lm_bexpr *where, int time_col,
                            const lm_over_call *calls, int n_calls,
                            lm_schema *out_schema);
/* Hands `arena` (an lm_arena the calls' expressions live in, heap-
 * allocated) to the operator, which frees it with itself. */
void lm_op_over_own_arena(lm_operator *op, lm_arena *arena);

/* The OVER operator over a changelog (updating) input (op_over_changelog.c):
 * input batches are the input's columns then a BIGINT __weight at
 * weight_col (+n inserts n copies, -n retracts n live copies); each change
 * is applied at once (no watermark wait) and emitted as a changelog: the
 * changed row (+1 / -1) and, for every other live row of the partition
 * whose frame result changed, its old output row (-1) then its new one
 * (+1). Same calls and frames as lm_op_over_new; equal times are ordered
 * by the rows' values (columns in order, NULLs last), then arrival; NULL
 * times come last. A retraction removes the matching live row inserted
 * last. out_schema (a reference taken) is the input's columns
 * (without __weight) then one per call; output batches add __weight
 * (BIGINT) after them. `where` and the calls' expressions are borrowed.
 * Errors from push: LM_ERR_EXEC for a retraction of a row that is not live
 * or a NULL weight, SUM overflow; LM_ERR_NOMEM. NULL on no memory. */
lm_operator *lm_op_over_changelog_new(lm_bexpr *where, int time_col,
                                      int weight_col, const lm_over_call *calls,
                                      int n_calls, lm_schema *out_schema);
/* As lm_op_over_own_arena, for an lm_op_over_changelog_new operator. */
void lm_op_over_changelog_own_arena(lm_operator *op, lm_arena *arena);

/* Makes an lm_op_over_new operator emit each row on arrival instead of
 * when the watermark passes it: for an ORDER BY column whose values only
 * grow as rows arrive (a source's PROCTIME() column, stamped on arrival).
 * Rows are not dropped as late; a row's RANGE peers are the rows of the
 * same time that arrived before it or in its batch. Watermarks pass
 * through. Other operators are left alone. */
void lm_op_over_on_arrival(lm_operator *op);

/* Call k (0-based) of an OVER operator (lm_op_over_new or
 * lm_op_over_changelog_new; borrowed, lives as long as op) and its time
 * column (an index into the input) in *time_col and, for lm_op_over_new,
 * whether it emits on arrival (false otherwise); NULL when op is not an
 * OVER operator or k is out of range. For EXPLAIN. */
const lm_over_call *lm_op_over_call(const lm_operator *op, int k, int *time_col,
                                    bool *on_arrival);
/* As lm_op_over_call for an lm_op_over_changelog_new operator only. */
const lm_over_call *lm_op_over_changelog_call(const lm_operator *op, int k,
                                              int *time_col);

#endif
