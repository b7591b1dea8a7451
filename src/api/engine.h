/*
 * api/ internals: the catalog (sources, streams, materialized views,
 * sinks) and the synchronous dataflow runtime behind laminar.h.
 *
 * Everything runs in the caller's thread. A batch entering a source is
 * checked against the source's watermark (late rows dropped and counted),
 * pushed depth-first through every query reading the source, and every
 * query's output is pushed to its own consumers (queries, sinks,
 * subscriptions, the view's store) before the call returns; then the new
 * watermark follows the same path.
 */
#ifndef LM_ENGINE_H
#define LM_ENGINE_H

#include <signal.h>

#include "columnar/lm_tz.h"
#include "connectors/lm_connectors.h"
#include "exec/lm_exec.h"
#include "laminar.h"
#include "sql/lm_sql.h"

typedef enum lm_node_kind {
  LM_NODE_SOURCE,
  LM_NODE_STREAM,
  LM_NODE_MVIEW,
  /* CREATE TABLE (docs/tables.md): a node holding its current rows
   * (lm_node.table, src/api/table.c), changed by INSERT (an upsert when it
   * has a PRIMARY KEY), UPDATE and DELETE. It is an updating input: every
   * change is emitted as a changelog (schema = table_schema + __weight,
   * changelog = true: -1 for the old row, +1 for the new one), so queries
   * over it consume retractions like over any updating view. It has no
   * watermark (wm stays INT64_MIN). Its primary key columns are
   * pk_cols[0..n_pk) (indexes into table_schema, in key order; n_pk = 0:
   * a multiset without key). Lookup joins read it through lm_table_lookup /
   * lm_table_gather below. */
  LM_NODE_TABLE,
} lm_node_kind;

typedef struct lm_table lm_table;

/* Event time per partition of a source (api/source_parts.c): arrays of n
 * partitions (capacity cap) with each one's largest event time, far-future
 * candidate (lm_wm_observe), watermark (µs; INT64_MIN = no row yet) and
 * the processing time of its last row. */
typedef struct lm_parts {
  int n, cap;
  int64_t *max_ts, *cand, *wm, *last_row_at;
} lm_parts;

typedef struct lm_node lm_node;
typedef struct lm_query lm_query;
typedef struct lm_sink lm_sink;

struct lm_query {
  laminar_db *db;
  lm_node *input;
  lm_node *output;
  lm_plan *plan;
  lm_operator *head;
  lm_operator *agg_op; /* non-windowed aggregate: the view's state */
  /* Created after its bounded source was read: reads the source again from
   * the beginning at the next statement that needs data, once every
   * consumer declared in between (sinks, views over it) is attached. */
  bool needs_replay;
  /* a window over its source's PROCTIME() column: the source's watermarks
   * do not reach head (but +infinity at its end); each clock tick sends
   * the clock's time instead (proctime_wm: the last one sent) */
  bool proctime;
  int64_t proctime_wm;
  /* windows: ALLOW LATENESS (µs) and LATE DATA TO (a stream node that
   * receives the late rows; NULL = they are dropped) */
  int64_t lateness;
  lm_node *late_to;
  /* A query over several inputs (joins, docs/joins.md), n_ins > 0: input
   * is ins[0].node and head is NULL; ins[i].head is where node ins[i]'s
   * batches and watermarks enter (a late filter, a subquery's pipeline, a
   * key projection, ending at a join side); joins[0..n_joins) are the
   * join operators, the top plan's steps first (the last of them feeds the
   * plan's pipeline), then those of joins nested in subqueries; each owns
   * what follows it (lm_pipeline_free). A query over one subquery and no
   * join has none: its pipeline ends ins[0]'s chain. A node read twice (a
   * self-join) appears twice, in the binder's resolve order, both here and
   * in its queries array. owned_schemas are released with q. */
  struct lm_qinput *ins;
  int n_ins;
  lm_operator **joins;
  int n_joins;
  lm_schema **owned_schemas;
  int n_owned_schemas;
  /* LATE DATA TO over an interval join: the late rows of input i (0, 1)
   * reach late_to padded to [input 0's columns..., input 1's columns...]
   * (the other input's columns NULL) */
  struct lm_join_late {
    lm_query *q;
    int input;
  } join_late[2];
  /* UNION ALL of streams (api/union_stream.c): the state joining the
   * pipelines of ins[0..n_ins) (one per operand); NULL otherwise */
  struct lm_union *uni;
  /* Failed-query isolation (docs/failures.md): set when one of this
   * query's operators returned an error while processing input (a batch,
   * a watermark, a processing-time tick, a replay), or when a stream or
   * view it reads failed. A failed query receives no more input; its
   * output node reports fail_msg (SELECT, SHOW, EXPLAIN ANALYZE,
   * laminar_query_state); the other queries go on. */
  bool failed;
  char fail_msg[1024];
};

typedef struct lm_qinput {
  lm_node *node;
  lm_operator *head;
  bool needs_replay; /* a bounded source read again (see needs_replay) */
  /* a join input that is a subquery over the node (no join of its own):
   * its plan and whether its output is a changelog (api/shared_input.c) */
  const lm_plan *sub;
  bool sub_changelog;
} lm_qinput;

struct lm_node {
  lm_node_kind kind;
  char *name;
  char *sql;               /* the CREATE statement */
  lm_schema *schema;       /* of the batches it emits (incl. __weight) */
  lm_schema *table_schema; /* of SELECT * over it (no __weight) */
  bool changelog;          /* emitted batches carry __weight */
  int64_t wm;              /* current watermark, µs; INT64_MIN = none */

  /* consumers */
  lm_query **queries;
  int n_queries;
  lm_sink **sinks;
  int n_sinks;
  laminar_subscription **subs;
  int n_subs;
  /* a stream created by LATE DATA TO: fed by the query(s) naming it */
  bool late_target;

  /* sources */
  int wm_col;       /* -1 = no watermark */
  int64_t wm_delay; /* µs */
  int64_t max_ts;   /* INT64_MIN until the first row */
  char *connector;  /* "FILES", "GENERATOR" or NULL (pushed) */
  char *format;
  lm_kv *opts;
  int n_opts;
  lm_source_reader *reader;
  bool started, ended;
  int64_t rows_in, late_dropped;
  /* rows of its files that did not decode (docs/bad_rows.md): in all, and
   * since the last notice, with the first of those ("file:L:C: error") */
  int64_t bad_rows, bad_pending;
  char bad_first[400];
  /* 'watermark.max.skew.ms' (µs; 0 = off) and the unconfirmed far-future
   * event time (INT64_MIN = none); 'idle.timeout.ms' (µs; 0 = off) and the
   * processing time of the last row */
  int64_t wm_skew, wm_cand, idle_timeout, last_row_at;
  /* a reader with several partitions (FILES over several files): their
   * event times; the source's watermark is the minimum over them */
  lm_parts parts;
  /* `col AS PROCTIME()` (docs/windows.md): 1 + the column (the schema's
   * last), filled with the processing-time clock as rows arrive; 0 = none.
   * read_schema: the schema without it, what readers produce and pushes
   * may omit it (NULL when none) */
  int proctime_col1;
  lm_schema *read_schema;

  /* tables (LM_NODE_TABLE): current rows and primary key */
  lm_table *table;
  int *pk_cols; /* n_pk indexes into table_schema, key order */
  int n_pk;

  /* 1 + the event-time column of the rows it emits (0 = none): a source's
   * WATERMARK column, a projected copy of its input's, the window start of
   * an append-only windowed aggregate, the left time column of an interval
   * join; join planning reads it (lm_rel_info.time_col) */
  int time_col1;

  /* streams and views */
  lm_query *query;
  lm_batch **store; /* a view's rows when it is not an aggregate */
  int n_store, cap_store;
  /* a temporary relation holding a view's rows, computed for the running
   * statement (api/view.c; EXPLAIN calls it a view) */
  bool view_rows;
  /* a temporary relation holding a recursive WITH query's working table
   * (api/select_recursive.c; EXPLAIN: WorkTable Scan) */
  bool worktable;
};

struct lm_sink {
  char *name;
  char *sql;
  lm_node *from;
  char *connector, *format;
  lm_file_sink *file;
};

struct laminar_subscription {
  laminar_db *db;
  lm_node *node;
  lm_batch **q;
  int n, cap;
};

struct laminar_db {
  /* notices of the last laminar_execute (laminar_notices), one per line */
  lm_buf notices;
  lm_node **nodes;
  int n_nodes;
  lm_sink **sinks;
  int n_sinks;
  volatile sig_atomic_t interrupted;
  /* processing time, µs: a virtual clock moved by laminar_advance_time
   * (and by laminar_run with unbounded sources, at the wall clock's pace) */
  int64_t now_us;
  /* rows affected by the last INSERT, UPDATE or DELETE (laminar_changes) */
  int64_t changes;
  /* temporary relations of the running ad-hoc SELECT (api/setop.c: WITH
   * queries and derived tables), found by lm_engine_find before the
   * catalog, the latest first; empty between statements */
  lm_node **temps;
  int n_temps;
  /* queries marked failed since the database was opened (docs/failures.md;
   * laminar_query_failures), and the position of the running statement
   * (0 = an API call), which prefixes the failure notices */
  int64_t query_failures;
  int stmt_line, stmt_col;
  /* the session time zone (SET TIME ZONE; NULL = UTC, the default): set as
   * the thread's lm_tz_session() while a statement runs (docs/timezones.md) */
  const struct lm_tz *tz;
  /* views expanded when read (api/view.c, docs/views.md): NULL until the
   * first; view_busy while view.c runs a statement it has rewritten */
  struct lm_views *views;
  bool view_busy;
};

struct laminar_result {
  lm_schema *schema;
  lm_batch **batches;
  int n_batches;
  int64_t rows;
  lm_buf text;
  int64_t *batch_start; /* first row of each batch */
  /* the zone TIMESTAMPTZ values are printed in (laminar_result_value_text):
   * the session zone when the result was made; NULL = UTC */
  const struct lm_tz *tz;
  /* bit c (c < 64): column c is a DOUBLE that PostgreSQL computes as
   * numeric (lm_bexpr_numeric_origin: 2.5, i * 1.5), so that INSERT ...
   * SELECT rounds it half away from zero into an integer column; set by a
   * plain SELECT's run only (0: none known) */
  uint64_t numeric_cols;
};

/* Creates a result from batches (references taken over). */
laminar_result *lm_result_new(lm_schema *schema, lm_batch **batches, int n);

/* A result of VARCHAR columns names[0..n_cols) from n_rows rows of C
 * strings cells[row * n_cols + col] (NULL = SQL NULL); NULL on OOM. */
laminar_result *lm_engine_text_result(const char *const *names, int n_cols,
                                      const char *const *cells, int n_rows);

/* SET / RESET / SHOW of a session setting (api/settings.c): timezone
 * only (docs/timezones.md). SHOW fills *res with one row, one VARCHAR
 * column named as PostgreSQL names it ("TimeZone"). Errors: 22023 for a
 * bad zone, 42704 for an unknown setting, at the statement's position. */
int lm_engine_setting(laminar_db *db, const lm_stmt *st, laminar_result **res,
                      lm_error *err);

/* Runs one parsed statement. */
int lm_engine_exec(laminar_db *db, const lm_stmt *st, laminar_result **res,
                   lm_error *err);
/* Starts connector sources and pulls from them until every bounded one is
 * exhausted and no unbounded one has rows ready now. */
int lm_engine_drain(laminar_db *db, lm_error *err);
bool lm_engine_has_unbounded(laminar_db *db);
int64_t lm_engine_wait_us(laminar_db *db);
int lm_engine_flush_sinks(laminar_db *db, lm_error *err);
/* Flushes and closes every sink file; returns the first error. */
int lm_engine_close_sinks(laminar_db *db, lm_error *err);
/* The node named `name`, matched exactly (SQL names arrive folded: an
 * unquoted name in lower case, a "quoted" one as written); NULL if none. */
lm_node *lm_engine_find(laminar_db *db, const char *name);
/* The same for a name given through the C API (push, subscribe...): the
 * exact name, else its lower-case form (the name as if written unquoted in
 * SQL). */
lm_node *lm_engine_find_api(laminar_db *db, const char *name);
/* b (a batch of a source's readers, without its PROCTIME() column, or of
 * its full schema) with src's PROCTIME() column set to now_us (µs) in
 * every row: a new reference; NULL on no memory. src->proctime_col1 > 0. */
lm_batch *lm_engine_with_proctime(const lm_node *src, lm_batch *b,
                                  int64_t now_us);
/* Pushes a batch (already in the source's schema) into a source. */
int lm_engine_push(laminar_db *db, lm_node *src, lm_batch *b, lm_error *err);
int lm_engine_watermark(laminar_db *db, lm_node *n, int64_t wm, lm_error *err);
void lm_engine_free(laminar_db *db);
/* Moves the processing-time clock to now_us (never backwards) and ticks
 * every query (EMIT PERIODICALLY). */
int lm_engine_tick(laminar_db *db, int64_t now_us, lm_error *err);
/* Failed-query isolation (docs/failures.md): query q returned rc (its
 * message in *err) while processing input. Unless the error is the
 * engine's own (LM_ERR_NOMEM, or LM_ERR_IO from a sink), q is marked
 * failed with that message, so is every query reading its output (and
 * theirs), a notice per query goes to db->notices, *err is cleared and 0
 * is returned: the caller goes on with the other queries. Otherwise rc is
 * returned unchanged. */
int lm_engine_isolate(laminar_db *db, lm_query *q, int rc, lm_error *err);
/* EMIT ON WINDOW CLOSE / AFTER WATERMARK / FINAL of a windowed query
 * (`windowed`) whose inputs ins[0..n) never get a watermark (a table, a
 * LATE DATA TO stream, or what reads only those; any_blocks: one blocked
 * input suffices, as for a UNION ALL, else all must be, as for a join)
 * would never emit: LM_ERR_BIND with SQLSTATE 0A000 at the EMIT keyword's
 * line:column, with a hint (docs/windows.md). 0 otherwise. */
int lm_engine_emit_wm_check(const lm_select *sel, bool windowed,
                            lm_node *const *ins, int n, bool any_blocks,
                            lm_error *err);

/* Registers `b` (a reference taken over, released on error too) as a
 * temporary relation `name` that lm_engine_find sees until
 * lm_engine_temps_pop; view_rows marks the rows of a non-materialized view
 * (api/view.c). LM_ERR_NOMEM. Implemented in api/setop.c (WITH queries). */
int lm_engine_temp_push(laminar_db *db, const char *name, lm_batch *b,
                        bool view_rows, lm_error *err);
/* Drops the temporary relations above index `to` of db->temps. */
void lm_engine_temps_pop(laminar_db *db, int to);
/* api/setop.c, for select_recursive.c: casts the parts' rows bs[0..n)
 * (qs[i]: the query that made bs[i], for PostgreSQL's unknown-typed and
 * integer literals; NULL = typed) to one schema (names of bs[0], types by
 * PostgreSQL's UNION rules) and concatenates them into *out (a new
 * reference); errors as UNION's (42804, 42601) naming `what`. */
int lm_setop_unify(lm_batch *const *bs, const lm_select *const *qs, int n,
                   const char *what, lm_batch **out, lm_error *err);
/* api/select_recursive.c: runs an ad-hoc query whose WITH is RECURSIVE
 * (docs/setops.md): its WITH queries in dependency order, a recursive one
 * (non-recursive term UNION [ALL] recursive term) iterated over its
 * working table until no new row comes; then the body. Errors: 42P19 /
 * 0A000 / 42804 as PostgreSQL's (ill-formed recursion, mutual recursion,
 * types), 57014 when interrupted, 53200 when the rows of one recursive
 * query exceed LM_RECURSIVE_MAX_BYTES; the body's errors. *res: one
 * result the caller frees. */
int lm_recursive_with(laminar_db *db, const lm_select *sel,
                      laminar_result **res, lm_error *err);
/* select_recursive.c: PostgreSQL's 42601 "WITH query is not recursive"
 * at WITH query c's name (SEARCH / CYCLE on a query not reading itself);
 * returns the error code. */
int lm_sc_not_recursive(const lm_cte *c, lm_error *err);
/* ------------------------------ shared by engine.c and select.c
 *
 * lm_engine_select: runs an ad-hoc SELECT (api/select.c) over the current
 * rows of views, tables and bounded sources; *res gets one batch (caller
 * frees with laminar_result_free). Errors: LM_ERR_NOTFOUND / LM_ERR_BIND
 * with the SQL line:column, LM_ERR_NOMEM, and any evaluation error.
 * lm_engine_find_input: the node named `name`, or NULL with
 * LM_ERR_NOTFOUND at line:column in *err. lm_engine_open_reader: a new
 * reader of connector source s (caller frees it). lm_engine_with_weight:
 * a new schema, s plus a non-null INT64 "__weight" (NULL on no memory).
 * lm_engine_pos_err: sets *err (at line:col when line > 0), returns code.
 * lm_engine_pos_errf: the same with a printf message (at most 599 bytes,
 * truncated) and, when state is not NULL, that SQLSTATE on *err.
 * lm_engine_join_resolve: the lm_plan_join_select resolver; ctx is an
 * lm_join_ctx whose nodes[] collects the inputs in the binder's order
 * (caller frees nodes). lm_engine_join_spec: the exec spec of a planned
 * step (out_schema includes __weight when the step emits a changelog).
 * lm_engine_join_err_at: prefixes an operator error with the JOIN's
 * line:column. */
typedef struct lm_join_ctx {
  laminar_db *db;
  lm_node **nodes;
  int n, cap;
} lm_join_ctx;
typedef struct lm_join_step lm_join_step;
typedef struct lm_join_spec lm_join_spec;
typedef struct lm_rel_info lm_rel_info;
int lm_engine_select(laminar_db *db, const lm_select *sel, laminar_result **res,
                     lm_error *err);
/* Computes sel's LIMIT / OFFSET counts that hold a subquery (limit_expr /
 * offset_expr) into sel->limit / sel->offset (api/select_limit.c; sel is
 * updated in place, each run). Errors: the count query's own, 42804 (not
 * a number), 22003, 2201W / 2201X (negative). */
int lm_engine_limit_resolve(laminar_db *db, const lm_select *sel,
                            lm_error *err);
/* Subquery expressions (select_subq.c): lm_engine_subq_enter makes the
 * binder able to plan subqueries (expression subqueries of the SELECT
 * planned until the matching leave) and owns the subplans it creates;
 * lm_engine_subq_leave frees them and restores the previous state. enter
 * returns NULL on OOM (subqueries are then refused); leave(NULL) is a
 * no-op. Calls nest (lm_engine_select brackets every statement). */
typedef struct lm_subq_env lm_subq_env;
lm_subq_env *lm_engine_subq_enter(laminar_db *db);
void lm_engine_subq_leave(lm_subq_env *env);
/* lm_engine_select_rows: runs sel (its FROM ignored) over `rows` (one
 * borrowed batch; `name`, when not NULL, qualifies its columns as name.col)
 * into *res, as lm_engine_select. lm_engine_select_over (select_over.c):
 * an ad-hoc SELECT with window functions (OVER); lm_select_has_over tells
 * whether sel has any in its items, ORDER BY or FROM subquery. Errors as
 * lm_engine_select. */
int lm_engine_select_rows(const lm_select *sel, lm_batch *rows,
                          const char *name, laminar_result **res,
                          lm_error *err);
int lm_engine_select_plain(laminar_db *db, const lm_select *sel,
                           laminar_result **res, lm_error *err);
int lm_engine_select_over(laminar_db *db, const lm_select *sel,
                          laminar_result **res, lm_error *err);
bool lm_select_has_over(const lm_select *sel);
/* lm_over_stream_plan: a continuous query with window functions (OVER
 * aggregates over an append-only stream, exec/op_over.c). When sel has
 * none, returns 0 with *op NULL. Otherwise *op is a new OVER operator over
 * `in` rows (it applies sel's WHERE), *ext its output schema (in's columns
 * then __w0, __w1, ...; a new reference) and *outer sel rewritten over
 * *ext (window calls replaced by __wK; no WHERE), which lives as long as
 * *op. weight_col >= 0: `in` is an updating (changelog) input whose
 * batches carry __weight in that column; *op is then the changelog OVER
 * operator (exec/op_over_changelog.c), whose batches add __weight after
 * *ext's columns. Errors: LM_ERR_BIND at the call's line:column for what
 * the stream operator does not support, LM_ERR_NOMEM. */
int lm_over_stream_plan(const lm_select *sel, lm_schema *in, int weight_col,
                        lm_select **outer, lm_schema **ext, lm_operator **op,
                        lm_error *err);
/* api/setop.c. lm_setop_applies: whether sel needs lm_setop_select (a set
 * operation, VALUES, WITH, or a derived table / column aliases in FROM).
 * lm_setop_select: runs such an ad-hoc query into *res (one batch; caller
 * frees), materializing each WITH query once and each derived table as a
 * temporary relation for the statement; errors as lm_engine_select, with
 * PostgreSQL's SQLSTATE (42804 "UNION types integer and text cannot be
 * matched", 42601 column count, 42P10 ORDER BY position, 0A000 WITH
 * RECURSIVE). lm_setop_check_continuous: LM_ERR_BIND at line:column when a
 * continuous query uses what only ad-hoc queries support (set operations,
 * VALUES, WITH, column aliases in FROM), else 0. */
bool lm_setop_applies(const lm_select *sel);
int lm_setop_select(laminar_db *db, const lm_select *sel, laminar_result **res,
                    lm_error *err);
int lm_setop_check_continuous(const lm_select *sel, lm_error *err);
/* lm_setop_create_with: runs CREATE STREAM / MATERIALIZED VIEW st whose
 * query starts with WITH (non-recursive) as if each WITH query were
 * written as a subquery where FROM names it; errors as lm_engine_exec. */
int lm_setop_create_with(laminar_db *db, const lm_stmt *st, lm_error *err);
lm_node *lm_engine_find_input(laminar_db *db, const char *name, int line,
                              int column, lm_error *err);
int lm_engine_open_reader(lm_node *s, lm_source_reader **out, lm_error *err);

/* api/source_pushdown.c (docs/nexmark.md "Projection pushdown").
 * lm_source_needed_cols: marks in need[0..n) the columns of source src
 * (indexes into src->schema; n >= its fields, else every column) that its
 * consumers read: each query's bound plan (WHERE, keys, aggregate
 * arguments, window time, projection; a join input's kept columns), the
 * watermark and PROCTIME columns; every column when a sink or subscription
 * reads src or a plan shape is not understood. Returns whether that is
 * fewer than all. lm_source_pushdown: applies it to src's NEXMARK reader r
 * (lm_nexmark_reader_project; nothing for other connectors); call before
 * each poll, consumers may have changed. Errors: LM_ERR_NOMEM. */
#define LM_PUSHDOWN_MAX_COLS 64
bool lm_source_needed_cols(const lm_node *src, bool *need, int n);
int lm_source_pushdown(lm_node *src, lm_source_reader *r, lm_error *err);
/* Late materialization (docs/nexmark.md): marks in lazy[0..n) the columns
 * of src that only one consumer reads, a join input whose rows the step's
 * dynamic filter drops (lm_join_dynfilter_verdict): the rows it drops need
 * not hold them. Sets *key_col / *time_col (src's columns the filter
 * reads) and *join (the join operator, borrowed). Returns whether any;
 * false (nothing marked) when a sink or subscription reads src or a plan
 * shape is not understood. lm_source_pushdown applies it. */
bool lm_source_lazy_cols(const lm_node *src, bool *lazy, int n, int *key_col,
                         int *time_col, lm_operator **join);
/* The predicates (at most max, into p) a NEXMARK reader of src may apply
 * for its consumers (docs/nexmark.md "Predicate pushdown"): when one query
 * and nothing else reads src, the conjuncts of its WHERE of the forms
 * `col op literal` and `col % k op literal` over INT64 / TIMESTAMP columns
 * (op: = <> < <= > >=), and src's watermark, if any, is on dateTime. The
 * query still evaluates its whole WHERE. Returns their count (0: none). */
int lm_source_filter_preds(const lm_node *src, lm_gen_pred *p, int max);
/* After a poll of src's reader: when a pushed-down filter made it skip
 * rows later than src's largest event time, src's watermark moves as if
 * they had arrived (largest time - delay; *moved set). Nothing for other
 * readers. Errors: those of lm_engine_watermark (a query's own). */
int lm_source_filter_watermark(laminar_db *db, lm_node *src, bool *moved,
                               lm_error *err);
lm_schema *lm_engine_with_weight(lm_schema *s);
int lm_engine_pos_err(lm_error *err, int code, int line, int col,
                      const char *msg);
int lm_engine_pos_errf(lm_error *err, int code, int line, int col,
                       const char *state, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Bad rows of FILES sources (api/dead_letter.c, docs/bad_rows.md).
 * lm_dead_letter_prepare: checks CREATE SOURCE st's 'dead-letter' option
 * (LM_ERR_BIND at the option) and, when it names no relation yet, makes
 * *out, the dead-letter source to append to db->nodes (caller owns;
 * *out NULL otherwise). lm_dead_letter_take: moves the bad rows s's reader
 * holds into s's counters and into its dead-letter source, when it still
 * exists (errors: lm_engine_push's). lm_dead_letter_notices: one notice per
 * source with bad rows since the last call. */
int lm_dead_letter_prepare(laminar_db *db, const lm_stmt *st, lm_node **out,
                           lm_error *err);
int lm_dead_letter_take(laminar_db *db, lm_node *s, lm_error *err);
/* After CREATE TABLE st read its files through r: a notice when rows were
 * skipped (r keeps its rows; errors: LM_ERR_NOMEM). */
int lm_dead_letter_table(laminar_db *db, const lm_stmt *st, lm_source_reader *r,
                         lm_error *err);
void lm_dead_letter_notices(laminar_db *db);
/* Refuses an option key that CREATE SOURCE (table false) or CREATE TABLE
 * (true) st's FILES or GENERATOR connector does not take: LM_ERR_BIND at
 * the option, with a "did you mean" for a close key (api/source_options.c).
 * 0 for other connectors (NEXMARK checks its own). */
int lm_source_options_check(const lm_stmt *st, bool table, lm_error *err);
int lm_engine_join_resolve(void *ctx, const char *name, int line, int col,
                           lm_rel_info *out, lm_error *err);
void lm_engine_join_spec(const lm_join_step *st, lm_schema *out_schema,
                         lm_join_spec *sp);
void lm_engine_join_err_at(lm_error *err, const lm_join_step *js);
/* Shared subplans (api/shared_input.c): when join input `ji` (a subquery
 * over node `in`, no join of its own, its output appended to `head`)
 * computes the same window aggregate as an input of q already built over
 * the same node (lm_plan_same_window_agg), the earlier input's aggregate
 * output also feeds `head` through a tee and a column selection, and q
 * gets an input entry for `in` whose head discards what it receives:
 * *shared = true and `head` is taken over. Otherwise *shared = false and
 * nothing changes. LM_ERR_NOMEM (head then still the caller's). */
int lm_engine_share_input(lm_query *q, const lm_join_input *ji,
                          lm_operator *head, lm_node *in, bool *shared,
                          lm_error *err);

/* ------------------------------------------------- views (api/view.c)
 *
 * A view (CREATE VIEW, docs/views.md) that is not materialized is kept as
 * its query and expanded when a statement reads it.
 * lm_view_exec: called first by lm_engine_exec; when st concerns views
 * (CREATE VIEW, DROP / SHOW / DESCRIBE of one, a statement reading one,
 * writing to one) it runs st (*handled = true; result and errors as
 * lm_engine_exec, PostgreSQL's SQLSTATEs), else *handled = false and
 * nothing happens. lm_view_exists: whether `name` is such a view.
 * lm_view_drop_check: before node `name` (kind word `what`: "table",
 * "materialized view", ...) is dropped: without cascade, LM_ERR_BIND
 * 2BP01 at st's position when a view reads it; with cascade those views
 * are dropped (and what reads them). lm_view_forget_node: node `name` is
 * gone (its record of the views it was built from is dropped).
 * lm_view_free_all: frees every view (database close). */
int lm_view_exec(laminar_db *db, const lm_stmt *st, laminar_result **res,
                 lm_error *err, bool *handled);
bool lm_view_exists(laminar_db *db, const char *name);
int lm_view_drop_check(laminar_db *db, const char *name, const char *what,
                       bool cascade, const lm_stmt *st, lm_error *err);
void lm_view_forget_node(laminar_db *db, const char *name);
void lm_view_free_all(laminar_db *db);
/* EXPLAIN of an ad-hoc query reading view `name` (api/explain_adhoc.c):
 * runs the view's query again in the trace (its description; its rows are
 * dropped). 0 when name is no view; the query's errors. */
int lm_view_explain_run(laminar_db *db, const char *name, lm_error *err);

/* ---------------------------------------------- EXPLAIN (api/explain.c)
 *
 * lm_explain: runs an LM_STMT_EXPLAIN statement (docs/explain.md); *res
 * gets one VARCHAR column "QUERY PLAN", one row per line. Errors:
 * LM_ERR_NOTFOUND (EXPLAIN name of no stream or view), LM_ERR_BIND (an
 * explained statement of another kind, ANALYZE of a CREATE), and the
 * explained statement's own errors (planning; for ANALYZE, running it);
 * LM_ERR_NOMEM.
 */
int lm_explain(laminar_db *db, const lm_stmt *st, laminar_result **res,
               lm_error *err);

/* ------------------- EXPLAIN of an ad-hoc query (api/explain_adhoc.c)
 *
 * While lm_explain explains an ad-hoc SELECT, the query runs (EXPLAIN:
 * over no rows, every table, materialized view, view and source read as
 * empty; EXPLAIN ANALYZE: for real) and describes itself: lm_engine_select
 * opens a frame per query it runs (lm_xt_open ... lm_xt_close), the
 * queries run within it become its kids, and the path that ran it writes
 * its description (select.c's pipeline through lm_xt_run_done, setop.c's
 * WITH / set operations / VALUES / derived tables, select_over.c's window
 * functions, select_subq.c's subqueries). A caller about to run a query
 * for a purpose (a CTE, a join input, a subquery ...) names it with
 * lm_xt_role first. Outside EXPLAIN every call does nothing (one
 * thread-local test). Frames are owned by the trace (lm_explain frees
 * them); errors only leave a frame without description (OOM included). */
typedef enum lm_xt_role {
  LM_XT_QUERY,           /* no particular role */
  LM_XT_BODY,            /* the query under WITH / derived tables (setop.c) */
  LM_XT_CTE,             /* a WITH query (name) */
  LM_XT_DERIVED,         /* a subquery in FROM (name: its temporary relation) */
  LM_XT_FILTERED,        /* a relation's rows filtered before a join (name) */
  LM_XT_OPERAND,         /* an operand of a set operation */
  LM_XT_VALUES_ROW,      /* one VALUES row: not shown */
  LM_XT_JOIN_INPUT,      /* input (int)key of an ad-hoc join */
  LM_XT_SUBPLAN_PREPARE, /* a subquery expression planned (key: subplan) */
  LM_XT_SUBPLAN_RUN,     /* ... run (per key tuple, or decorrelated) */
  LM_XT_OVER_INNER,      /* the rows under window functions */
  LM_XT_FROM_SUB,        /* a FROM subquery read as rows (select_over.c) */
  LM_XT_VIEW,            /* a view's query (name) */
} lm_xt_role;
typedef struct lm_xt lm_xt;

/* select_run's run of one plain query, for its description */
typedef struct lm_xt_run {
  const lm_select *sel;
  const lm_plan *plan;   /* its plan (a join plan for joins) */
  const char *in_name;   /* the relation read; NULL: joins, rows, no FROM */
  bool given_rows;       /* lm_engine_select_rows */
  bool index;            /* WHERE col = constant through a table index */
  int64_t rows_read;     /* input rows */
  int64_t rows_pipe;     /* rows out of the operators */
  int64_t rows_distinct; /* after DISTINCT */
  int64_t rows_sorted;   /* after ORDER BY / LIMIT / OFFSET */
  int64_t rows_out;      /* after DISTINCT ON */
} lm_xt_run;

/* Whether relations are to be read as empty (EXPLAIN without ANALYZE). */
bool lm_xt_dry(void);
/* Whether a trace is being recorded in this thread. */
bool lm_xt_on(void);
/* The role of the next query lm_xt_open opens (name copied then). */
void lm_xt_next_role(lm_xt_role r, const char *name, const void *key);
/* A frame for a query starting now, the current frame's kid (NULL when
 * not tracing); lm_xt_close ends it with its result (NULL on error). */
lm_xt *lm_xt_open(void);
void lm_xt_close(lm_xt *f, const laminar_result *res, int rc);
/* Counters of select_run's operators ops[0..n) / of join step `step`,
 * copied into the current frame before they are freed. */
void lm_xt_note_ops(lm_operator *const *ops, int n);
void lm_xt_note_join(int step, const lm_operator *join);
/* srf_stream.c: stage i (0 = the bottom one) of the ProjectSet stages
 * about to run ahead of the current frame's pipeline is function item f
 * (its calls' text, alias and ordinality are copied; outer: LEFT JOIN
 * LATERAL ... ON TRUE); select.c: the counters of those stages' operators
 * head .. tail, copied before they are freed. */
void lm_xt_pset_stage(int i, const lm_from *f, bool outer);
void lm_xt_note_pre(const lm_operator *head, const lm_operator *tail);
/* select_run's description of the current frame (api/explain.c). */
void lm_xt_run_done(laminar_db *db, const lm_xt_run *r);
/* setop.c: a set operation of n operands or VALUES of n rows (sel), rows
 * before / after its ORDER BY, LIMIT; WITH (the CTE kids and the body);
 * derived tables (the body). */
void lm_xt_setop_done(const lm_select *sel, int n, int64_t rows,
                      int64_t rows_out);
void lm_xt_with_done(const lm_select *sel);
void lm_xt_body_done(void);
/* select_recursive.c: ends recursive WITH query frame f (lm_xt_open; NULL:
 * nothing) — when it succeeded (rc 0), described as a `Recursive Union`
 * (distinct: UNION, not UNION ALL; iters: the recursive term's runs) over
 * its OPERAND kids — and closes it with `rows` result rows. */
void lm_xt_recursive_close(lm_xt *f, int rc, bool distinct, int iters,
                           int64_t rows);
/* select_over.c: the rows the next lm_engine_select_rows reads are the
 * last kid's with the window calls noted by lm_xt_window_call computed
 * over them (rows: rows out), or the last kid's read as FROM subquery
 * alias. lm_xt_window_call: one call f(args) OVER (PARTITION BY part
 * ORDER BY order frame) (frame NULL: the default). */
void lm_xt_window_call(const lm_expr *call, lm_expr *const *part, int n_part,
                       const lm_order_item *order, int n_order,
                       const lm_window_frame *frame);
void lm_xt_window_input(int64_t rows);
void lm_xt_subquery_input(const char *alias, int64_t rows);

/* ------------------------------------ partitions (api/source_parts.c)
 *
 * lm_parts_push: drops the late rows of batch b, which came from partition
 * `part` (n_known partitions exist so far): a row is late when its event
 * time (column col, µs) is below src_wm, the source's watermark when the
 * batch arrived (kept when keep_late; counted in *late either way). The
 * partition's watermark then follows its kept rows (largest event time
 * minus delay, far-future guard skew, lm_wm_observe). *out is a new
 * reference or NULL when every row was late. Errors: LM_ERR_NOMEM.
 * lm_parts_watermark: the minimum over the partitions that are neither
 * exhausted (r->partition_done) nor idle (no row for idle_us µs of
 * processing time; 0 = never idle); INT64_MIN while one of them has no row
 * yet (it holds the source back); the largest partition watermark when
 * every partition is exhausted or idle.
 * lm_parts_max_ts: the largest event time over the partitions.
 * lm_parts_seed: before the first partitioned push of a source that had
 * one partition so far (watch mode found a second file), makes partition 0
 * start from the source's event-time state; -1 on OOM. */
int lm_parts_seed(lm_parts *p, int64_t max_ts, int64_t cand, int64_t wm,
                  int64_t now_us);
int lm_parts_push(lm_parts *p, int part, int n_known, int col, int64_t delay,
                  int64_t skew, int64_t src_wm, int64_t now_us, bool keep_late,
                  lm_batch *b, lm_batch **out, int64_t *late, lm_error *err);
/* The late-row filter of lm_parts_push and lm_engine_push: keeps the rows
 * of b whose event time (column col) is NULL or not below *late_wm as it
 * stands when the row is read (late_wm may be wm itself, which advances
 * row by row), or every row when keep_late; counts the late ones in *late;
 * feeds each kept row's time to lm_wm_observe(delay, skew, max_ts, cand,
 * wm). *out is a new reference or NULL when every row was dropped. */
int lm_wm_filter(lm_batch *b, int col, const int64_t *late_wm, int64_t delay,
                 int64_t skew, int64_t *max_ts, int64_t *cand, int64_t *wm,
                 bool keep_late, int64_t *late, lm_batch **out, lm_error *err);
int64_t lm_parts_watermark(lm_parts *p, lm_source_reader *r, int64_t now_us,
                           int64_t idle_us);
int64_t lm_parts_max_ts(const lm_parts *p);
void lm_parts_free(lm_parts *p);

/* ------------------------------------------------ tables (api/table.c)
 *
 * A table's rows live in segments (batches of the table schema, no
 * __weight) with a live flag per row version; a row id (int64) names one
 * row version and stays valid until the row is replaced or deleted (ids are
 * renumbered only by compaction, which runs inside the mutating calls
 * below, never inside lookup/gather). With a primary key, a hash index maps
 * each key to its live row id.
 *
 * The mutating calls compute the change and apply it atomically: on any
 * error nothing changed. *change (may be NULL when nothing changed) is the
 * changelog to emit: batches of `wschema` (schema + BIGINT __weight), the
 * old rows with -1 first, then the new rows with +1. */

/* A new empty table of `schema` (no __weight; retained) keyed by pk[0..n_pk)
 * (column indexes; n_pk 0 = no key). NULL on OOM. */
lm_table *lm_table_new(lm_schema *schema, const int *pk, int n_pk);
void lm_table_free(lm_table *t);
/* Live rows (row versions currently in the table). */
int64_t lm_table_rows(const lm_table *t);
/* INSERT: rows of `b` (the table schema) are added; with a primary key each
 * row replaces the live row of its key (upsert), and several rows of one
 * key in b act as a sequence of upserts (the last wins). Errors:
 * LM_ERR_EXEC `null value in column "k" of relation "name" violates
 * not-null constraint` (SQLSTATE 23502) for a NULL key, LM_ERR_NOMEM. */
int lm_table_insert(lm_table *t, const char *name, lm_batch *b,
                    lm_batch **change, lm_error *err);
/* The row of b (0-based) that failed the last lm_table_insert on t (a NULL
 * in a NOT NULL column, a repeated unique key), -1 when none did. */
int64_t lm_table_err_row(const lm_table *t);
/* DELETE: removes the live rows where `pred` (bound over the table schema,
 * BOOLEAN; NULL = every row) is true; *deleted = their count. Errors: the
 * predicate's evaluation errors, LM_ERR_NOMEM. */
int lm_table_delete(lm_table *t, const lm_bexpr *pred, lm_batch **change,
                    int64_t *deleted, lm_error *err);
/* UPDATE: each live row where pred is true (NULL = every row) is replaced by
 * exprs[0..n_fields) evaluated over it (one per column, of the column's
 * type); *updated = their count. Errors: evaluation errors; LM_ERR_EXEC
 * `null value in column "c" of relation "name" violates not-null
 * constraint` (23502); `duplicate key value violates unique constraint
 * "name_pkey"` (23505) when two rows would have one key; LM_ERR_NOMEM. */
int lm_table_update(lm_table *t, const char *name, const lm_bexpr *pred,
                    lm_bexpr *const *exprs, lm_batch **change, int64_t *updated,
                    lm_error *err);
/* The live rows as one batch of the table schema (*out a new reference;
 * zero rows gives an empty batch). Order: by row version, oldest first. */
int lm_table_snapshot(const lm_table *t, lm_batch **out, lm_error *err);
/* Point lookups by primary key (lookup joins): keys[0..n_pk) are n-row
 * arrays of exactly the key columns' types (cast before calling); row_ids[i]
 * receives the live row id of probe row i, or -1 (no such key, or a NULL in
 * a probe key). Does not change the table. Errors: LM_ERR_BIND when the
 * table has no primary key, LM_ERR_NOMEM. */
int lm_table_lookup(const lm_table *t, lm_array *const *keys, int64_t n,
                    int64_t *row_ids, lm_error *err);
/* Gathers rows row_ids[0..n) (from lm_table_lookup, or -1 = a row of
 * NULLs, for outer joins) into *out, a new batch of the table schema. */
int lm_table_gather(const lm_table *t, const int64_t *row_ids, int64_t n,
                    lm_batch **out, lm_error *err);

/* Unique constraints and indexes (api/table_index.c, docs/tables.md).
 * Every index of a table is a hash index maintained by the calls above; a
 * unique one makes INSERT / UPDATE fail with SQLSTATE 23505 `duplicate key
 * value violates unique constraint "name"` (err->detail: "Key (a)=(1)
 * already exists.") when a row would repeat another current row's non-NULL
 * key (checked row by row, as PostgreSQL; the statement then changes
 * nothing). Index names share the namespace of tables, views and sources.
 *
 * lm_table_add_constraints: the PRIMARY KEY's constraint name and the
 * UNIQUE constraints of CREATE TABLE st onto n's new (empty) table, named
 * as PostgreSQL names them (t_a_b_key; a UNIQUE on the primary key's
 * columns or repeating an earlier one is dropped). Errors: 42703 unknown
 * column, 42701 column twice, 42P07 name taken, LM_ERR_NOMEM.
 * lm_index_create: CREATE [UNIQUE] INDEX st over the table's current rows.
 * Errors: 42P01 no such relation, 42809 not a table, 42703, 42P07 (with IF
 * NOT EXISTS a notice instead), 23505 `could not create unique index`,
 * LM_ERR_NOMEM.
 * lm_index_drop: DROP INDEX st. Errors: 42704 no such index (IF EXISTS: a
 * notice), 42809 not an index, 2BP01 the index of a UNIQUE constraint.
 * lm_index_reindex: REINDEX INDEX | TABLE st: rebuilds the index(es) from
 * the live rows. Errors: 42P01, 42809, LM_ERR_NOMEM.
 * lm_index_exists: whether an index is named `name` (case-insensitive). */
int lm_table_add_constraints(laminar_db *db, lm_node *n, const lm_stmt *st,
                             lm_error *err);
int lm_index_create(laminar_db *db, const lm_stmt *st, lm_error *err);
int lm_index_drop(laminar_db *db, const lm_stmt *st, lm_error *err);
int lm_index_reindex(laminar_db *db, const lm_stmt *st, lm_error *err);
bool lm_index_exists(laminar_db *db, const char *name);
/* Ad-hoc SELECT over table t (sel's single FROM): when WHERE has `col =
 * constant` conjuncts (an integer literal for an integer column, a string
 * literal for a text column) covering every column of an index, *out gets
 * the live rows holding that key through the index (a new batch of the
 * table schema, in row version order, as a scan would give them) and
 * *used = true; the caller still applies WHERE. Otherwise *used = false
 * and *out NULL. Errors: LM_ERR_NOMEM. */
int lm_table_index_select(const lm_table *t, const lm_select *sel,
                          lm_batch **out, bool *used, lm_error *err);

/* ------------------------------ UNION ALL of streams (union_stream.c)
 *
 * lm_union_applies: whether sel is a set operation that a continuous query
 * runs as a UNION ALL of streams (any UNION / INTERSECT / EXCEPT at the
 * top: the others are refused by lm_union_create with their position).
 * lm_union_create: CREATE STREAM / MATERIALIZED VIEW st over such a query:
 * each operand (a single-input SELECT: filter, projection, aggregate,
 * window, Top-N) runs as its own pipeline into one output whose columns
 * are the first operand's names with PostgreSQL's UNION types; its
 * watermark is the minimum over the operands' (an operand reading a source
 * that has been idle for its 'idle.timeout.ms' does not hold it back); it
 * is a changelog when any operand is one (append-only operands' rows get
 * __weight +1). Errors: LM_ERR_BIND / LM_ERR_NOTFOUND at the SQL
 * line:column (42601 column count, 42804 types), LM_ERR_NOMEM.
 * lm_union_tick: re-evaluates every union's watermark after the clock
 * moved (idle inputs); errors of the operators downstream.
 * lm_union_free: frees a query's union state (NULL is a no-op). */
struct lm_union;
bool lm_union_applies(const lm_select *sel);
int lm_union_create(laminar_db *db, const lm_stmt *st, lm_node_kind kind,
                    lm_error *err);
int lm_union_tick(laminar_db *db, lm_error *err);
void lm_union_free(struct lm_union *u);
/* For EXPLAIN: operand i's plan (borrowed) and whether its pipeline emits a
 * changelog; lm_union_operands: sel's UNION ALL operands, left to right,
 * into ops (at most cap; returns how many, 0 when sel is NULL). */
void lm_union_operand(const struct lm_union *u, int i, const lm_plan **plan,
                      bool *changelog);
int lm_union_operands(const lm_select *sel, const lm_select **ops, int cap);
/* engine.c helpers union_stream.c builds on (same contracts as the
 * static functions they wrap): node_emit, catch_up, plan_changelog_input,
 * new_query_node, continuous_select_check, emit_check, result_changelog,
 * name_taken (1 and *err set: taken; -1: IF NOT EXISTS, skip; 0: free),
 * node_free. */
int lm_engine_node_emit(laminar_db *db, lm_node *n, lm_batch *b, lm_error *err);
int lm_engine_catch_up(lm_node *n, lm_node *in, lm_operator *h, bool *replay,
                       lm_error *err);
int lm_engine_plan_changelog_input(lm_plan *plan, const lm_node *in,
                                   const lm_select *sel, lm_error *err);
int lm_engine_new_query_node(laminar_db *db, const lm_stmt *st,
                             lm_node_kind kind, lm_plan *plan, bool changelog,
                             int in_time_col, lm_node **out_n, lm_query **out_q,
                             lm_error *err);
int lm_engine_select_check(const lm_select *sel, lm_error *err);
const char *lm_engine_emit_check(const lm_select *sel, const lm_plan *plan,
                                 bool windowed);
bool lm_engine_result_changelog(const lm_plan *plan, bool windowed);
int lm_engine_name_taken(laminar_db *db, const lm_stmt *st, lm_error *err);
void lm_engine_free_node(lm_node *n);
/* setop.c: PostgreSQL's UNION type resolution of two typed columns into
 * *out (false: they cannot be matched). */
bool lm_setop_resolve_types(lm_type a, lm_type b, lm_type *out);

#endif
