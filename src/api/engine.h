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

#include "connectors/lm_connectors.h"
#include "exec/lm_exec.h"
#include "laminar.h"
#include "sql/lm_sql.h"

typedef enum lm_node_kind {
  LM_NODE_SOURCE,
  LM_NODE_STREAM,
  LM_NODE_MVIEW,
} lm_node_kind;

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
  /* windows: ALLOW LATENESS (µs) and LATE DATA TO (a stream node that
   * receives the late rows; NULL = they are dropped) */
  int64_t lateness;
  lm_node *late_to;
};

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
  /* 'watermark.max.skew.ms' (µs; 0 = off) and the unconfirmed far-future
   * event time (INT64_MIN = none); 'idle.timeout.ms' (µs; 0 = off) and the
   * processing time of the last row */
  int64_t wm_skew, wm_cand, idle_timeout, last_row_at;

  /* streams and views */
  lm_query *query;
  lm_batch **store; /* a view's rows when it is not an aggregate */
  int n_store, cap_store;
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
  lm_node **nodes;
  int n_nodes;
  lm_sink **sinks;
  int n_sinks;
  volatile sig_atomic_t interrupted;
  /* processing time, µs: a virtual clock moved by laminar_advance_time
   * (and by laminar_run with unbounded sources, at the wall clock's pace) */
  int64_t now_us;
};

struct laminar_result {
  lm_schema *schema;
  lm_batch **batches;
  int n_batches;
  int64_t rows;
  lm_buf text;
  int64_t *batch_start; /* first row of each batch */
};

/* Creates a result from batches (references taken over). */
laminar_result *lm_result_new(lm_schema *schema, lm_batch **batches, int n);

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
lm_node *lm_engine_find(laminar_db *db, const char *name);
/* Pushes a batch (already in the source's schema) into a source. */
int lm_engine_push(laminar_db *db, lm_node *src, lm_batch *b, lm_error *err);
int lm_engine_watermark(laminar_db *db, lm_node *n, int64_t wm, lm_error *err);
void lm_engine_free(laminar_db *db);
/* Moves the processing-time clock to now_us (never backwards) and ticks
 * every query (EMIT PERIODICALLY). */
int lm_engine_tick(laminar_db *db, int64_t now_us, lm_error *err);

#endif
