/*
 * connectors/ — where rows come from and go to: the files source (CSV or
 * NDJSON, read once or watched), the deterministic generator source, the
 * Nexmark source (person / auction / bid tables) and the files sink.
 *
 * A source reader is pulled: poll() returns the next batch it has, or
 * none; *eof becomes true once a bounded reader has no more input.
 */
#ifndef LM_CONNECTORS_H
#define LM_CONNECTORS_H

#include "columnar/lm_columnar.h"

typedef struct lm_source_reader lm_source_reader;
struct lm_source_reader {
  /* Returns 0 with *out = next batch (caller owns a reference) or NULL
   * when nothing is available now; sets *eof when input is exhausted
   * (never for unbounded readers). Errors: LM_ERR_IO (file name, errno
   * text), LM_ERR_PARSE (file:line:column: what was expected). */
  int (*poll)(lm_source_reader *r, lm_batch **out, bool *eof, lm_error *err);
  void (*free)(lm_source_reader *r);
  bool unbounded;
  /* For paced sources: µs until more rows are due (0 = now). */
  int64_t (*wait_us)(lm_source_reader *r);
  /* Partitions (DESIGN.md "Time semantics": a source's watermark is the
   * minimum over its partitions). A FILES source over several files has
   * one partition per file, numbered in name order: n_partitions is the
   * number known so far (watch mode discovers more), `partition` the
   * partition of the batch poll returned last, and partition_done(r, p)
   * says whether partition p is exhausted (no more rows can come from it,
   * so it no longer holds the watermark back). Readers of one partition
   * leave n_partitions 0 and partition_done NULL (zero-initialized). */
  int n_partitions;
  int partition;
  bool (*partition_done)(lm_source_reader *r, int p);
  /* Where the batch poll returned last came from, for error messages (NULL
   * when the reader cannot tell): the file's path (owned by the reader,
   * valid until the next poll) and *first_row, the 1-based data row of
   * that file holding the batch's first row (headers and blank lines not
   * counted). */
  const char *(*batch_origin)(lm_source_reader *r, int64_t *first_row);
  /* Bad rows (docs/bad_rows.md; FILES CSV/JSON with 'on-error' =
   * 'dead-letter', else NULL): the rows that did not decode since the last
   * call, as a batch of lm_dead_letter_schema() (*out: the caller owns a
   * reference; NULL when none), and *n_total, how many so far. Returns 0 or
   * LM_ERR_NOMEM. */
  int (*bad_rows)(lm_source_reader *r, lm_batch **out, int64_t *n_total,
                  lm_error *err);
  /* the source's name, for the dead letters' `source` column: set by the
   * opener (borrowed; NULL = "") */
  const char *name;
};

/* The schema of a dead-letter stream, a new reference (NULL when out of
 * memory): (source VARCHAR NOT NULL, file VARCHAR NOT NULL, line BIGINT
 * NOT NULL, col BIGINT NOT NULL, byte_offset BIGINT NOT NULL, error
 * VARCHAR, raw VARCHAR). line and col are 1-based, the place of the value
 * at fault; byte_offset is 0-based from the file's start; raw is the
 * record as read (invalid UTF-8 as U+FFFD, cut after 4096 bytes with
 * "..."). */
lm_schema *lm_dead_letter_schema(void);

/* Options as written in SQL (`'key' = 'value'`). */
typedef struct lm_kv {
  const char *key;
  const char *value;
} lm_kv;

const char *lm_kv_get(const lm_kv *kv, int n, const char *key);

/* FROM FILES ('path' = file | directory | glob, 'mode' = 'once' | 'watch',
 * 'csv.delimiter' = ',', 'csv.header' = 'true', 'on-error' = 'dead-letter'
 * (default: bad CSV/JSON rows are dropped and kept for bad_rows) | 'fail'
 * (the first bad row fails the poll)) FORMAT CSV | JSON |
 * ARROW_IPC. ARROW_IPC reads the IPC stream format and the file format
 * (its embedded stream); columns map to the declared ones by name, with
 * integer/float widening and timestamp unit conversion.
 * Files of a directory or glob are read in name order. Errors: LM_ERR_BIND
 * for bad options, LM_ERR_IO when nothing matches the path in 'once'
 * mode. */
int lm_files_reader_new(lm_schema *schema, const lm_kv *opts, int n_opts,
                        const char *format, lm_source_reader **out,
                        lm_error *err);

/* FROM GENERATOR ('rows.per.second' = n (default 1000), 'max.rows' = n,
 * 'batch.max.size' = n (default 1024)): row i is (seq = i,
 * ts_ms = i * 1000 / rps, value = 'v<i>'). With max.rows the reader is
 * bounded and produces rows as fast as asked; without, it paces itself
 * at rows.per.second on the wall clock and never ends. */
int lm_generator_reader_new(const lm_kv *opts, int n_opts,
                            lm_source_reader **out, lm_error *err);
/* The generator's fixed schema (seq BIGINT, ts_ms BIGINT, value VARCHAR),
 * a new reference. */
lm_schema *lm_generator_schema(void);

/* FROM NEXMARK ('table' = 'person' | 'auction' | 'bid', 'events.num' = n,
 * 'first-event.rate' = events/s, ...; docs/nexmark.md lists every option):
 * one table of the Nexmark event stream, generated deterministically (each
 * event's values depend only on the options and its event id).
 *
 * The full schema of table 0 = person, 1 = auction, 2 = bid, with the Flink
 * nexmark column names and order, all NOT NULL, dateTime/expires TIMESTAMP
 * (µs, whole ms). A new reference, or NULL for another table number or on
 * OOM. */
lm_schema *lm_nexmark_table_schema(int table);
/* The schema of a NEXMARK source: the table's full schema when `declared`
 * is NULL or has no fields; otherwise the declared columns, in declared
 * order, each of which must name a column of the table (case-insensitive)
 * with the same type (the table's spelling and NOT NULL are kept). *out is a
 * new reference. Errors: LM_ERR_BIND (missing/unknown 'table', unknown
 * column, wrong type; the message names them), LM_ERR_NOMEM. */
int lm_nexmark_source_schema(const lm_kv *opts, int n_opts,
                             const lm_schema *declared, lm_schema **out,
                             lm_error *err);
/* A reader of the table named by opts, producing batches of `schema` (as
 * returned by lm_nexmark_source_schema; retained, the caller keeps its
 * reference) or, with schema NULL, of the table's full schema. Batches hold
 * up to 'batch.size' rows (default 4096). Bounded when 'events.num' > 0
 * (event ids ['first.event', 'first.event' + events.num)); then poll sets
 * *eof after the last row. Unbounded otherwise, producing as fast as polled
 * unless 'rate.limited' = 'true' (then first-event.rate events/s on the wall
 * clock). Batches hold fewer rows when batch.size rows of the longest
 * strings would exceed 2 MiB; their buffers are views of a slab from a
 * pool the reader owns, reused once every reference to the batch is
 * released (on any thread; batches may outlive the reader). The reader
 * holds ~1.7 MB of tables from the seed, filled at the first poll for the
 * columns generated then (lm_nexmark_reader_project; a failed slab layout
 * then fails that poll with LM_ERR_NOMEM). Errors:
 * LM_ERR_BIND for unknown options or bad values (named in the message),
 * LM_ERR_NOMEM. */
int lm_nexmark_reader_new(lm_schema *schema, const lm_kv *opts, int n_opts,
                          lm_source_reader **out, lm_error *err);
/* Projection pushdown (docs/nexmark.md "Projection pushdown"): from the
 * next poll on, NEXMARK reader r (made by lm_nexmark_reader_new) generates
 * only the columns i of its schema with need[i] (n entries; NULL = every
 * column; columns at or past n are generated); the others keep their
 * place in the batches as placeholders (BIGINT/TIMESTAMP 0, VARCHAR '').
 * The random draws of a column not generated are skipped without changing
 * any other column's values: a generated column is identical whatever
 * else is generated. Call it between polls, as often as the set of
 * consumers changes (the same set again costs nothing). Errors:
 * LM_ERR_NOMEM (the reader then fails its next poll with LM_ERR_NOMEM). */
int lm_nexmark_reader_project(lm_source_reader *r, const bool *need, int n,
                              lm_error *err);

/* A predicate pushed down into a generator (docs/nexmark.md "Predicate
 * pushdown"): a row passes when (value of column col) op value, or with
 * mod > 0, (value % mod) op value (C's / SQL's truncating remainder). col is
 * an index into the reader's schema; value is in the column's unit (µs for
 * TIMESTAMP). */
typedef enum lm_gen_cmp {
  LM_GEN_EQ,
  LM_GEN_NE,
  LM_GEN_LT,
  LM_GEN_LE,
  LM_GEN_GT,
  LM_GEN_GE
} lm_gen_cmp;
typedef struct lm_gen_pred {
  int col;
  lm_gen_cmp op;
  int64_t mod; /* 0: none; else > 0 */
  int64_t value;
} lm_gen_pred;
#define LM_GEN_MAX_PREDS 8

/* Predicate pushdown (docs/nexmark.md "Predicate pushdown"): from the next
 * poll on, NEXMARK reader r makes only the rows passing every one of the n
 * predicates p (n = 0: every row, as before). Lazy: a bid's fields the
 * predicates read (auction, bidder, price, dateTime) are made first, and a
 * bid that fails is skipped without making its other fields; a row that
 * passes is identical to the unfiltered reader's. Applied only to table bid
 * with n <= LM_GEN_MAX_PREDS predicates on those columns, each emitted by
 * the reader; else the filter is cleared and *applied is false (the caller
 * filters). Event time moves past the skipped rows:
 * lm_nexmark_reader_time_through. Call it between polls (the same
 * predicates again cost nothing). Returns 0 (no errors today; err is for
 * later ones). */
int lm_nexmark_reader_filter(lm_source_reader *r, const lm_gen_pred *p, int n,
                             bool *applied, lm_error *err);
/* Late materialization (docs/nexmark.md "Late materialization"): a
 * consumer's verdict on the rows at event times [t_lo, t_hi] (µs): those
 * whose key lies outside [k_lo, k_hi] are never read for the lazy columns
 * (lm_nexmark_reader_lazy). lm_gen_verdict_fn fills *v for time t (t in
 * [t_lo, t_hi]); the verdict must stay true from then on for every row at
 * those times (a bound that can only tighten). */
typedef struct lm_gen_verdict {
  int64_t t_lo, t_hi;
  int64_t k_lo, k_hi;
} lm_gen_verdict;
typedef void (*lm_gen_verdict_fn)(void *ctx, int64_t t, lm_gen_verdict *v);
/* From the next poll on, NEXMARK reader r makes the columns i of its
 * schema with lazy[i] (n entries) only for the rows that fn's verdict
 * (asked again at every poll, and whenever a row's time leaves the last
 * verdict's range) keeps: column key_col in [k_lo, k_hi] at the row's time
 * time_col; the other rows hold '' in those columns. Every other value, and
 * a kept row's every value, is the full reader's. Only bid's string
 * columns (channel, url, extra) are made lazily; other lazy columns are made
 * for every row. Applied (*applied true) only to table bid, with a lazy
 * string column, key_col the column auction, bidder or price and time_col
 * dateTime, all emitted; else (and with fn NULL) cleared. ctx is borrowed
 * until the next call. Returns 0. */
int lm_nexmark_reader_lazy(lm_source_reader *r, const bool *lazy, int n,
                           int key_col, int time_col, lm_gen_verdict_fn fn,
                           void *ctx, bool *applied);
/* The event time (µs) of the last bid that the polls of r so far went past,
 * made or skipped by a pushed-down filter; INT64_MIN when r has no filter or
 * has gone past no bid yet. With a filter, a source's watermark follows
 * this, as if the skipped rows had arrived (api/engine.c). */
int64_t lm_nexmark_reader_time_through(lm_source_reader *r);

/* INTO FILES ('path' = ...) FORMAT JSON | CSV | ARROW_IPC (or 'format' =
 * ...; JSON by default): appends rows to one file, creating missing
 * parent directories. The file is created (truncated) when the sink is
 * opened. ARROW_IPC writes the IPC file format (footer at close) to
 * .arrow/.feather paths, else the stream format.
 * With 'partition.by' = 'a, b' the path is a directory of Hive-style
 * partitions, path/a=<value>/b=<value>/part-<n>.<ext> (lm_part_sink below,
 * docs/sinks.md); its first rollover interval starts at the first
 * lm_file_sink_tick (processing time 0 until then). Errors: LM_ERR_BIND (a bad
 * option, named), LM_ERR_IO (path and errno text), LM_ERR_NOMEM. */
typedef struct lm_file_sink lm_file_sink;
int lm_file_sink_open(const lm_kv *opts, int n_opts, const char *format,
                      lm_schema *schema, lm_file_sink **out, lm_error *err);
/* One file at `path` in format JSON, CSV or ARROW_IPC (the IPC file format
 * when ipc_file_format, else the stream format), rows of `schema`
 * (retained by the writer as needed). Errors as above. */
int lm_file_sink_open_path(const char *path, const char *format,
                           bool ipc_file_format, lm_schema *schema,
                           lm_file_sink **out, lm_error *err);
/* Appends b's rows (b in the sink's schema; b is not taken over). Errors:
 * LM_ERR_IO, LM_ERR_NOMEM. */
int lm_file_sink_write(lm_file_sink *s, const lm_batch *b, lm_error *err);
/* The processing-time clock moved to now_us (µs): a partitioned sink rolls
 * the part files open for its rollover interval or longer. */
int lm_file_sink_tick(lm_file_sink *s, int64_t now_us, lm_error *err);
/* Writes buffered rows to the file (fflush). */
int lm_file_sink_flush(lm_file_sink *s, lm_error *err);
/* Flushes and closes; returns the first error met. Frees s. */
int lm_file_sink_close(lm_file_sink *s, lm_error *err);
int64_t lm_file_sink_rows(const lm_file_sink *s);
/* Bytes produced so far (written or buffered) by a one-file sink. */
int64_t lm_file_sink_bytes(const lm_file_sink *s);
const char *lm_file_sink_path(const lm_file_sink *s);

/* The partitioned files sink (files_partitioned.c), behind lm_file_sink
 * when 'partition.by' is given. Options: 'path' (the base directory,
 * created), 'partition.by' (input columns, in directory order),
 * 'partition.columns-in-file' ('false': the partition columns are only in
 * the path, as Flink writes them), 'partition.default-name' (the directory
 * value of NULL or '', '__DEFAULT_PARTITION__'),
 * 'sink.rolling-policy.file-size' or 'max_file_size' (bytes; '128MB'
 * default), 'sink.rolling-policy.rollover-interval' ('30 min' default,
 * processing time), 'sink.partition-commit.policy.kind' = 'success-file'
 * (an empty _SUCCESS in each partition directory at close), 'prefix'
 * ('part'). A part file is written as path/<partition>/.<prefix>-<n><ext>
 * .inprogress and renamed to <prefix>-<n><ext> (n: sink-wide sequence,
 * ext .csv/.json/.arrow) when rolled or closed. Partition values are
 * their text (lm_array_format_value) with Hive's %XX path escaping.
 * Errors as lm_file_sink_open; write: LM_ERR_IO, LM_ERR_NOMEM. */
typedef struct lm_part_sink lm_part_sink;
int lm_part_sink_open(const lm_kv *opts, int n_opts, const char *format,
                      lm_schema *schema, int64_t now_us, lm_part_sink **out,
                      lm_error *err);
int lm_part_sink_write(lm_part_sink *s, const lm_batch *b, lm_error *err);
int lm_part_sink_tick(lm_part_sink *s, int64_t now_us, lm_error *err);
int lm_part_sink_flush(lm_part_sink *s, lm_error *err);
/* Rolls every open part file (rename), writes the _SUCCESS files, frees
 * s; returns the first error. */
int lm_part_sink_close(lm_part_sink *s, lm_error *err);
/* Frees without renaming (in-progress files stay hidden). */
void lm_part_sink_free(lm_part_sink *s);
int64_t lm_part_sink_rows(const lm_part_sink *s);
const char *lm_part_sink_path(const lm_part_sink *s);

#endif
