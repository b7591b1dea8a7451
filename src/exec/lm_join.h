/*
 * exec/ — join operators (docs/joins.md): two inputs, one output.
 *
 * A join is an lm_operator whose `next` is the downstream pipeline; its own
 * vt->push is not used. Each input reaches it through the callback of
 * lm_join_side(j, side): an upstream pipeline (lm_pipeline_build's `out`)
 * or a node's batches and watermarks are passed to that callback. The join
 * owns no upstream operator; lm_pipeline_free(join) frees the join and its
 * downstream chain.
 *
 * Input batches of a side have the side's schema (spec->side[s].schema),
 * followed, when spec->side[s].changelog, by a BIGINT __weight column (any
 * non-zero multiplicity; +1 insert, -1 retract). Batches are borrowed.
 * Output batches have spec->out_schema: [left columns..., right columns...]
 * (SEMI/ANTI: left columns only), followed by a BIGINT __weight column when
 * spec->out_changelog.
 */
#ifndef LM_JOIN_H
#define LM_JOIN_H

#include "exec/lm_exec.h"

typedef enum lm_join_type {
  LM_JOIN_INNER,
  LM_JOIN_LEFT,  /* left rows without a match: right columns NULL */
  LM_JOIN_RIGHT, /* right rows without a match: left columns NULL */
  LM_JOIN_FULL,
  LM_JOIN_SEMI, /* left rows with at least one match, once each */
  LM_JOIN_ANTI, /* left rows with no match */
} lm_join_type;

typedef enum lm_join_algo {
  /* Regular join of two changelogs (or append-only streams): full state
   * per key on both sides, every change joined against the other side's
   * current state; outer rows NULL-padded while they have no match and
   * retracted when the first match arrives (and re-emitted when the last
   * match goes). State is unbounded unless ttl_us > 0, or unless both
   * sides have a time_col (TIMESTAMP or BIGINT µs) and one key pair is
   * exactly those two columns: a side's time column then promises that
   * none of its later changes (insertions or retractions) has a time
   * below its watermark, and a key whose time is below both watermarks is
   * evicted on both sides (no output: nothing can change for it any
   * more); a change below that horizon is dropped and counted in
   * late_dropped. */
  LM_JOIN_UPDATING,
  /* Time-bounded join of two append-only inputs with watermarks: a pair
   * matches when right.time - left.time lies in [lo_us, hi_us] (bounds
   * exclusive when lo_strict / hi_strict). State is evicted by the other
   * side's watermark; an outer row is NULL-padded exactly once, when it can
   * no longer match, and never when it matched. Rows older than their own
   * side's watermark are late: dropped and counted in late_dropped. A row
   * whose key or time is NULL matches nothing (as in PostgreSQL, where the
   * bound compares with NULL): it is not late and never stored; on an
   * outer-preserved side (left of LEFT/FULL/ANTI, right of RIGHT/FULL) it
   * is NULL-padded at once (ANTI: emitted as is), otherwise ignored and
   * not counted in late_dropped. The output is append-only. Window joins
   * (a.window_start = b.window_start) are interval joins with lo = hi = 0. */
  LM_JOIN_INTERVAL,
  /* Lookup join: the left (probe) side is a stream; the right side is a
   * table's changelog that only updates the lookup state. Each left row
   * meets the table's contents when it arrives; later table changes do not
   * revise earlier results. INNER and LEFT. Output append-only. */
  LM_JOIN_LOOKUP,
  /* Temporal join (FOR SYSTEM_TIME AS OF left.time): right is a versioned
   * table (changelog with a primary key = the join keys and an event-time
   * column); each left row waits until the right watermark reaches its time
   * and meets the version valid at it. INNER and LEFT. Append-only. */
  LM_JOIN_TEMPORAL,
  /* ASOF join: each left row meets the one right row with the same keys
   * whose time is nearest before (BACKWARD: right.time <= left.time, or <
   * when asof_strict), after (FORWARD) or either (NEAREST; ties to the
   * earlier), optionally within asof_tolerance_us; decided when the right
   * watermark makes the answer final. INNER and LEFT. Append-only. */
  LM_JOIN_ASOF,
} lm_join_algo;

typedef enum lm_asof_dir {
  LM_ASOF_BACKWARD,
  LM_ASOF_FORWARD,
  LM_ASOF_NEAREST,
} lm_asof_dir;

typedef struct lm_join_side_spec {
  lm_schema *schema; /* without __weight (borrowed; outlives the join) */
  bool changelog;    /* batches carry a trailing BIGINT __weight */
  int n_keys;        /* equi-join key columns (same count on both sides) */
  const int *keys;   /* column indexes into schema */
  int time_col;      /* event-time column (µs), -1 = none */
  /* NULL, or per column of schema whether nothing after the join reads it
   * (borrowed): such columns are not kept in the join's state, and rows of
   * the state give NULL for them (keys and time_col are always kept). */
  const bool *pruned;
} lm_join_side_spec;

typedef struct lm_join_spec {
  lm_join_type type;
  lm_join_algo algo;
  lm_join_side_spec side[2]; /* 0 = left, 1 = right */
  /* Key columns of both sides have pairwise equal types (the binder casts
   * before the join). A NULL key never matches. */
  /* Non-equi condition over [left columns..., right columns...] (the
   * output's columns without __weight); NULL = none. Borrowed. A pair
   * matches when the keys are equal and residual is TRUE. */
  const lm_bexpr *residual;
  /* LM_JOIN_INTERVAL: right.time - left.time in [lo_us, hi_us]. */
  int64_t lo_us, hi_us;
  bool lo_strict, hi_strict;
  /* LM_JOIN_ASOF */
  lm_asof_dir asof_dir;
  bool asof_strict;
  int64_t asof_tolerance_us; /* < 0 = none */
  /* LM_JOIN_UPDATING: processing-time TTL of a row's state (µs, 0 = keep
   * forever), driven by lm_operator_tick. */
  int64_t ttl_us;
  lm_schema *out_schema; /* borrowed (retained by the join) */
  bool out_changelog;
} lm_join_spec;

/* A join operator for `spec` (copied; schemas and residual borrowed, they
 * must outlive the operator). The output time column and watermark: for
 * INTERVAL, the left time column, watermark min(wm_left, wm_right - hi_us)
 * (and rows are emitted before the watermark that would make them late);
 * otherwise min(wm_left, wm_right). NULL with err set on an unsupported
 * combination (e.g. LOOKUP with FULL) or OOM.
 *
 * Details of the implementation (exec/op_join*.c, op_*_join.c; additive
 * to the contract above):
 *  - Watermarks are µs; a row is late when its time < its side's
 *    watermark; INT64_MAX is the final watermark (everything is decided,
 *    outer rows padded, state freed). LOOKUP forwards the left watermark
 *    (a table has no event time); ASOF/TEMPORAL forward min(wm_left,
 *    wm_right, the earliest undecided left time).
 *  - Key types: integer-like, floating (-0 = 0, NaN = NaN), BOOLEAN,
 *    VARCHAR/BINARY; LM_ERR_BIND for others. Any column type can be
 *    carried (nested types cost one small array per stored row).
 *  - ASOF, TEMPORAL: rows with a NULL time are late (INTERVAL: see
 *    above, they are not); INTERVAL, ASOF, TEMPORAL: inputs must
 *    be append-only (a __weight other than 1 is LM_ERR_EXEC), except the
 *    right input of ASOF (retractions remove a held row) and TEMPORAL
 *    (versions). ASOF/TEMPORAL decide a left row when the right watermark
 *    passes it (BACKWARD: wm_right > left.time, >= when asof_strict);
 *    FORWARD/NEAREST without tolerance may wait for the right watermark to
 *    pass the candidate. Equal right times: BACKWARD takes the last
 *    arrived, FORWARD the first. ASOF: the residual filters the
 *    candidates before the nearest is chosen (DuckDB's semantics);
 *    TEMPORAL: it is applied to the version found (FALSE = no match).
 *    TEMPORAL: a -row followed in the same batch by a +row of the same
 *    key (compared by value) is an upsert; a lone -row is a delete that
 *    ends the version at max(wm_right, largest right time seen).
 *  - UPDATING with ttl_us > 0: rows idle for ttl_us of processing time are
 *    dropped (at a tick); their pairs are not retracted (as Flink's state
 *    TTL), but the other side's rows that matched them lose the match and
 *    flip when it was their last (outer rows NULL-padded again, ANTI rows
 *    re-emitted, SEMI rows retracted); retractions of dropped rows are
 *    then ignored instead of being errors.
 *  - An append-only output (out_changelog false) writes a pair of
 *    multiplicity k as k rows: more than INT32_MAX rows in one batch, or a
 *    count past INT64_MAX, is LM_ERR_EXEC (not an allocation failure).
 *  - A refused over-retraction changes nothing for the failing row; the
 *    rows of the batch before it stay applied and their output is
 *    emitted. After an out-of-memory error the join refuses further input
 *    (LM_ERR_EXEC "state is unreliable"). */
lm_operator *lm_op_join_new(const lm_join_spec *spec, lm_error *err);

/* A dynamic filter ("runtime filter", as DuckDB's and Trino's dynamic
 * filters or DBSP's q7): the other side (1 - side) is a TUMBLE or HOP
 * window aggregate with one row per window whose key column is a running
 * MAX (or MIN) of an append-only input, and whose time column is the
 * window's end (or start). A row of `side` whose key `key` (an index into
 * spec.side[side].keys; an INT64 column) is below (MIN: above) the
 * running value of every window it could join by the time bound can never
 * match: the window's final value is at least (MIN: at most) its running
 * value. Such rows are dropped before the probe and never stored. */
typedef struct lm_join_dynfilter {
  int side;                 /* the side whose rows are filtered */
  int key;                  /* index into spec.side[side].keys */
  bool max;                 /* MAX (else MIN) */
  bool time_is_end;         /* the other side's time is the window end */
  int64_t size, slide, off; /* the windows: start = off (mod slide), µs */
  /* the running value of aggregate `agg` (MAX when max) of the window
   * [ws, we): true with *out set, false when unknown (the row is kept);
   * lm_window_aggregate_bound */
  bool (*bound)(const void *ctx, int agg, bool max, int64_t ws, int64_t we,
                int64_t *out);
  const void *ctx; /* borrowed: outlives the join */
  int agg;
} lm_join_dynfilter;

/* Installs `df` (copied) on an INNER or SEMI interval join before its
 * first row. LM_ERR_BIND when the join is of another kind or the key is
 * not an INT64 column. Rows it dropped: lm_join_dynfilter_dropped. */
int lm_join_set_dynfilter(lm_operator *join, const lm_join_dynfilter *df,
                          lm_error *err);
int64_t lm_join_dynfilter_dropped(const lm_operator *join);
/* The dynamic filter's verdict on rows of its filtered side at time t (µs),
 * from the window aggregate's running values now: a row at a time in
 * [*t_lo, *t_hi] (t among them) whose key lies outside [*k_lo, *k_hi] can
 * never match, now or later (the running values only tighten); the others
 * may. Every range is [INT64_MIN, INT64_MAX] when `join` has no dynamic
 * filter (or is not an interval join). The generator's late
 * materialization (api/source_pushdown.c) reads it. */
void lm_join_dynfilter_verdict(lm_operator *join, int64_t t, int64_t *t_lo,
                               int64_t *t_hi, int64_t *k_lo, int64_t *k_hi);
/* Connects join step `st` (st->dyn, plan/dynfilter.c) to the window
 * aggregate of the pipeline `agg_head` built for the input plan `sub` on
 * the step's side 1 - st->dyn_side: lm_join_set_dynfilter with its
 * windows and lm_window_aggregate_bound. Does nothing (0) when st->dyn is
 * false or the pipeline has no window aggregate; errors of
 * lm_join_set_dynfilter. */
int lm_join_dynfilter_connect(lm_operator *join, const lm_join_step *st,
                              const lm_plan *sub, lm_operator *agg_head,
                              lm_error *err);

/* The input callback of side 0 (left) or 1 (right): batch pushes rows,
 * watermark advances that side's watermark (µs). Errors from push:
 * LM_ERR_EXEC "more retractions than insertions ..." for a retraction of a
 * row the side does not hold, expression errors of the residual,
 * LM_ERR_NOMEM. */
lm_output_cb lm_join_side(lm_operator *join, int side);

/* Declares side `side` (0 = left, 1 = right) of an UPDATING join (without
 * TTL) complete, for one-shot (ad-hoc) joins: every later row of the other
 * side is joined against the stored rows of `side` and emitted (pairs,
 * NULL padding of either side, flips as usual) but not kept, so the
 * caller must push no more rows to `side` afterwards (they would miss
 * the unkept rows). Call it before pushing any row of the other side.
 * Returns false (nothing changed) for another algorithm, a TTL, or a bad
 * side; the caller then keeps both sides as before. */
bool lm_join_side_done(lm_operator *join, int side);

/* Rows buffered in the join's state (both sides), and the bytes the state
 * holds (allocated capacity included). For INTERVAL the row count takes a
 * pass over the stored rows (expired rows of an inner side are freed
 * lazily and not counted): meant for metrics and tests, not per batch. */
int64_t lm_join_state_rows(const lm_operator *join);
int64_t lm_join_state_bytes(const lm_operator *join);

#endif
