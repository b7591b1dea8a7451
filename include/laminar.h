/*
 * laminar.h — the embedded C API of Laminar, a streaming SQL engine.
 *
 * A laminar_db holds a catalog (sources, streams, materialized views,
 * sinks) and runs every continuous query in the calling thread: nothing
 * runs in the background, so results are deterministic. Batches cross this
 * boundary through the Arrow C Data Interface
 * (https://arrow.apache.org/docs/format/CDataInterface.html).
 *
 * Conventions:
 *  - every function returns 0 on success or a nonzero LAMINAR_ERR_* code
 *    and, when `err` is non-NULL, fills it with a message; SQL errors carry
 *    the 1-based line and column of the offending token;
 *  - "borrowed" pointers stay owned by the caller; "moved" Arrow structs
 *    are taken over (their release callback is called by Laminar and the
 *    caller's struct is marked released); objects returned through out
 *    parameters are owned by the caller and freed with the matching
 *    *_free / *_close function.
 *
 * Script mode (DESIGN.md): laminar_execute runs statements in order and,
 * before returning, propagates every effect (pushed rows, watermarks, the
 * end of bounded sources that the statement started) through every stream,
 * view and sink.
 */
#ifndef LAMINAR_H
#define LAMINAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- Arrow C Data Interface ABI */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
#endif

/* ---------------------------------------------------------------- errors */

enum {
  LAMINAR_OK = 0,
  LAMINAR_ERR_GENERIC = 1,
  LAMINAR_ERR_NOMEM = 2,
  LAMINAR_ERR_IO = 3,
  LAMINAR_ERR_PARSE = 4,
  LAMINAR_ERR_BIND = 5,
  LAMINAR_ERR_EXEC = 6,
  LAMINAR_ERR_INVALID = 7,
  LAMINAR_ERR_NOTFOUND = 8,
  LAMINAR_ERR_EXISTS = 9,
  LAMINAR_ERR_LIMIT = 10,
};

/* Same layout as the engine's internal error struct. */
typedef struct laminar_error {
  int code;
  int line;   /* 1-based, 0 when not about a position */
  int column; /* 1-based, 0 when not about a position */
  char message[1024];
  /* PostgreSQL's SQLSTATE when known ("22012" division by zero, "22003"
   * numeric value out of range, "22P02" invalid text representation,
   * "42883" undefined function, "42703" undefined column, ...), "" when
   * not. */
  char sqlstate[6];
  /* PostgreSQL's DETAIL field when the error has one, without its label:
   * `Key (a)=(1) already exists.` for a unique violation, `Failing row
   * contains (1, null).` for a not-null violation, `UTC timezone offset is
   * out of range.` for SET TIME ZONE 168; "" when not. psql (and the
   * laminardb CLI, and the slt runner's matching) show it on its own line
   * after the message: "DETAIL:  Key (a)=(1) already exists.". The
   * message never repeats it. */
  char detail[512];
  /* PostgreSQL's HINT field when the error has one, without its label:
   * `Use DROP TABLE to remove a table.`; for a syntax error (message
   * `syntax error at or near "FORM"`) what the parser expected there:
   * `expected FROM, found 'FORM' (did you mean FROM?)`; "" when not. psql
   * (and the laminardb CLI and the slt runner's matching) show it after
   * the DETAIL: "HINT:  ...". */
  char hint[256];
} laminar_error;

/* ---------------------------------------------------------- the database */

typedef struct laminar_db laminar_db;

/* Opens an empty in-memory database. *out is owned by the caller; close
 * with laminar_close. Errors: LAMINAR_ERR_NOMEM. */
int laminar_open(laminar_db **out, laminar_error *err);

/* Stops every query, flushes and closes every sink, frees everything.
 * Returns the first error met while flushing sinks (the database is freed
 * regardless). db may be NULL. */
int laminar_close(laminar_db *db, laminar_error *err);

/* ------------------------------------------------------------ statements */

typedef struct laminar_result laminar_result;

/* Executes `sql`: one or more ';'-separated statements, in order, each
 * fully propagated before the next. If result is non-NULL, *result
 * receives the rows of the last statement that returns rows (SELECT, SHOW,
 * DESCRIBE) or NULL when none did; free with laminar_result_free.
 * Execution stops at the first failing statement; earlier ones keep their
 * effects. Errors: LAMINAR_ERR_PARSE / BIND (with line:column relative to
 * `sql`), EXEC, IO (a file source or sink failed, message names the file
 * and position), EXISTS, NOTFOUND. */
int laminar_execute(laminar_db *db, const char *sql, laminar_result **result,
                    laminar_error *err);

/* Notices of the last laminar_execute, laminar_push_arrow / _stream,
 * laminar_advance_watermark / _time, laminar_end_source or laminar_run:
 * warnings that did not stop a statement, one per line, each
 * "line:column: text" (e.g. a join whose state grows without bound,
 * docs/joins.md), or "text" alone when no statement caused it (an API
 * push); "" when there were none. A continuous query that fails while the
 * call runs gives "... <kind> <name> failed and stopped (...): <error>"
 * (docs/failures.md). Owned by db, valid until the next of those calls or
 * laminar_close. */
const char *laminar_notices(const laminar_db *db);

/* Failed-query isolation (docs/failures.md). A continuous query whose
 * operators fail on its input (e.g. more retractions than insertions,
 * an overflow, a division by zero) is marked failed: it receives no more
 * input, a notice says so, and every other query keeps running; queries
 * reading its output are marked failed too. The call that pushed the
 * input succeeds. laminar_query_state tells the state of stream or
 * materialized view `name`: *state (if non-NULL) LAMINAR_QUERY_RUNNING or
 * LAMINAR_QUERY_FAILED, *error (if non-NULL) the failure's message (owned
 * by db, valid until the object is dropped or db is closed) or NULL while
 * running. Errors: LAMINAR_ERR_NOTFOUND (no stream or view of that
 * name). laminar_query_failures: the number of queries marked failed
 * since laminar_open (a counter; DROP does not lower it). */
#define LAMINAR_QUERY_RUNNING 0
#define LAMINAR_QUERY_FAILED 1
int laminar_query_state(laminar_db *db, const char *name, int *state,
                        const char **error, laminar_error *err);
int64_t laminar_query_failures(const laminar_db *db);

/* Bad rows (docs/bad_rows.md): *count (non-NULL) is how many rows of
 * source `name`'s files did not decode and were skipped (sent to its
 * 'dead-letter' stream when it names one) since it was created; 0 for a
 * source that reads no files. Errors: LAMINAR_ERR_NOTFOUND (no source of
 * that name). */
int laminar_source_bad_rows(laminar_db *db, const char *name, int64_t *count,
                            laminar_error *err);

/* Rows affected by the last INSERT (rows inserted), UPDATE (rows updated)
 * or DELETE (rows deleted) run on db, as PostgreSQL's command tag counts
 * them; 0 before any. An upsert into a table with a PRIMARY KEY counts every
 * row of the INSERT. */
int64_t laminar_changes(const laminar_db *db);

/* Result accessors. Rows are held as Arrow record batches. */
int64_t laminar_result_num_rows(const laminar_result *r);
int laminar_result_num_columns(const laminar_result *r);
/* Column name (owned by r, valid until laminar_result_free). */
const char *laminar_result_column_name(const laminar_result *r, int col);
/* SQL type name of a column, e.g. "BIGINT" (static string). */
const char *laminar_result_column_type(const laminar_result *r, int col);
/* Text of one value as the CLI prints it (integers decimal, doubles
 * shortest round-trip, timestamps YYYY-MM-DDTHH:MM:SS[.ffffff]); NULL for a
 * SQL NULL. The string is owned by r and valid until the next call on r or
 * laminar_result_free. */
const char *laminar_result_value_text(laminar_result *r, int64_t row, int col);
/* Number of record batches, and export of batch i through the C Data
 * Interface: *out_array (a struct array, one child per column) and
 * *out_schema are filled for the caller, who must call their release
 * callbacks. The data is shared (zero-copy), refcounted. */
int laminar_result_num_batches(const laminar_result *r);
int laminar_result_export_batch(const laminar_result *r, int i,
                                struct ArrowArray *out_array,
                                struct ArrowSchema *out_schema,
                                laminar_error *err);
void laminar_result_free(laminar_result *r);

/* ------------------------------------------------------------------ push */

/* Pushes a batch of rows into a source: `array` is a struct array whose
 * children match the source's columns by name (case-insensitive; missing
 * nullable columns are NULL) and `schema` describes it. The array is moved
 * (Laminar calls its release when done with the buffers, possibly later:
 * data is not copied where types match); the schema is borrowed. The rows
 * propagate before the call returns. Errors: NOTFOUND (no such source),
 * BIND (a column type does not match), INVALID (malformed array). */
int laminar_push_arrow(laminar_db *db, const char *source,
                       struct ArrowArray *array,
                       const struct ArrowSchema *schema, laminar_error *err);

/* Pushes every batch of an ArrowArrayStream into a source, as
 * laminar_push_arrow does for one (each batch propagates before the next
 * is read). The stream is moved: Laminar calls its release when done,
 * also on error. Errors: those of laminar_push_arrow, and LAMINAR_ERR_IO
 * with the stream's get_last_error text when the producer fails. */
int laminar_push_stream(laminar_db *db, const char *source,
                        struct ArrowArrayStream *stream, laminar_error *err);

/* Advances a source's watermark to `ts_us` (µs since the epoch); a
 * watermark never moves backwards (a smaller value is ignored). */
int laminar_advance_watermark(laminar_db *db, const char *source, int64_t ts_us,
                              laminar_error *err);

/* Declares the end of a source's input: its watermark becomes +infinity,
 * so every window downstream closes and is emitted. */
int laminar_end_source(laminar_db *db, const char *source, laminar_error *err);

/* Advances the processing-time clock by delta_us µs (>= 0). Processing
 * time drives EMIT PERIODICALLY: each query emitting periodically emits
 * what changed since its previous tick when the clock crosses a multiple
 * of its interval. The clock starts at 0 and is virtual: only this call
 * moves it, except laminar_run with unbounded sources, which moves it at
 * the wall clock's pace. Errors: LAMINAR_ERR_INVALID for a negative delta;
 * a query's runtime error. */
int laminar_advance_time(laminar_db *db, int64_t delta_us, laminar_error *err);

/* Operator timing for EXPLAIN ANALYZE (`time=` per operator, docs/
 * explain.md), process-wide, on by default: two monotonic clock reads per
 * batch, watermark and operator. Off, pushes skip them (for the lowest
 * push -> subscriber latency with small batches, bench/bench_latency.c)
 * and EXPLAIN ANALYZE prints no times. Call between statements: not while
 * another thread runs a pipeline. */
void laminar_set_operator_timing(bool on);

/* Runs every source until each bounded source is exhausted (files read
 * once, generators with max.rows), then flushes sinks. With unbounded
 * sources it runs until laminar_interrupt is called (e.g. from a signal
 * handler). */
int laminar_run(laminar_db *db, laminar_error *err);
/* Async-signal-safe: asks laminar_run to stop at the next batch boundary. */
void laminar_interrupt(laminar_db *db);

/* ---------------------------------------------------------- subscriptions */

typedef struct laminar_subscription laminar_subscription;

/* Subscribes to a stream or materialized view: from now on every batch it
 * emits is queued for this subscription. *out is owned by the caller; free
 * with laminar_unsubscribe (before laminar_close). Errors: NOTFOUND. */
int laminar_subscribe(laminar_db *db, const char *name,
                      laminar_subscription **out, laminar_error *err);

/* Takes the oldest queued batch, if any: returns 0 and sets *has_batch.
 * When true, *out_array / *out_schema are filled (caller releases them). */
int laminar_subscription_poll(laminar_subscription *sub,
                              struct ArrowArray *out_array,
                              struct ArrowSchema *out_schema, bool *has_batch,
                              laminar_error *err);

/* Takes every queued batch as one result (NULL in *out when nothing is
 * queued). Convenient for tests and tools. */
int laminar_subscription_drain(laminar_subscription *sub, laminar_result **out,
                               laminar_error *err);

void laminar_unsubscribe(laminar_subscription *sub);

/* ------------------------------------------- C Stream Interface exports */

/* Exports a result's batches as an ArrowArrayStream
 * (https://arrow.apache.org/docs/format/CStreamInterface.html): the stream
 * holds its own references to the batches, so `r` may be freed right after;
 * get_next yields each batch as a struct array, then a released array (end
 * of stream). The caller owns *out and calls out->release. */
int laminar_result_stream(const laminar_result *r, struct ArrowArrayStream *out,
                          laminar_error *err);

/* Takes every batch queued on the subscription now as an ArrowArrayStream
 * (same contract as laminar_result_stream); the queue is emptied. A stream
 * with no batches has the subscribed object's schema and ends at once. */
int laminar_subscription_stream(laminar_subscription *sub,
                                struct ArrowArrayStream *out,
                                laminar_error *err);

#ifdef __cplusplus
}
#endif
#endif
