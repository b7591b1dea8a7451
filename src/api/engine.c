/* The catalog and the synchronous dataflow runtime (see engine.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "api/srf_from.h"
#include "exec/lm_join.h"
#include "exec/lm_window_fn.h"

static const char *kind_name(lm_node_kind k) {
  return k == LM_NODE_SOURCE   ? "source"
         : k == LM_NODE_STREAM ? "stream"
         : k == LM_NODE_TABLE  ? "table"
                               : "materialized view";
}

/* Names match exactly: the SQL lexer folds unquoted names to lower case
 * and keeps a "quoted" name's case, so CREATE TABLE "Q" and q are two
 * tables, as in PostgreSQL. */
lm_node *lm_engine_find(laminar_db *db, const char *name) {
  for (int i = db->n_temps - 1; i >= 0; i--) /* WITH queries (setop.c) */
    if (!strcmp(db->temps[i]->name, name))
      return db->temps[i];
  for (int i = 0; i < db->n_nodes; i++)
    if (!strcmp(db->nodes[i]->name, name))
      return db->nodes[i];
  return NULL;
}

lm_node *lm_engine_find_api(laminar_db *db, const char *name) {
  lm_node *n = lm_engine_find(db, name);
  if (n || strlen(name) > 255)
    return n;
  char low[256];
  size_t k = 0;
  for (; name[k]; k++)
    low[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
  low[k] = '\0';
  return strcmp(low, name) ? lm_engine_find(db, low) : NULL;
}

static lm_sink *find_sink(laminar_db *db, const char *name) {
  for (int i = 0; i < db->n_sinks; i++)
    if (!strcmp(db->sinks[i]->name, name))
      return db->sinks[i];
  return NULL;
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap)
    return 0;
  int c = *cap ? *cap * 2 : 4;
  while (c < need)
    c *= 2;
  void *n = realloc(*p, (size_t)c * elem);
  if (!n)
    return -1;
  *p = n;
  *cap = c;
  return 0;
}

#define APPEND(arr, n, item)                                                   \
  do {                                                                         \
    void *_n = realloc((arr), sizeof(*(arr)) * (size_t)((n) + 1));             \
    if (!_n)                                                                   \
      return lm_err(err, LM_ERR_NOMEM, "out of memory");                       \
    (arr) = _n;                                                                \
    (arr)[(n)++] = (item);                                                     \
  } while (0)

#define REMOVE(arr, n, item)                                                   \
  do {                                                                         \
    for (int _i = 0; _i < (n); _i++)                                           \
      if ((arr)[_i] == (item)) {                                               \
        memmove(&(arr)[_i], &(arr)[_i + 1],                                    \
                sizeof(*(arr)) * (size_t)((n)-_i - 1));                        \
        (n)--;                                                                 \
        break;                                                                 \
      }                                                                        \
  } while (0)

/* Names the object an error happened in, once: the innermost object wins
 * ("division by zero (in stream s)"). */
static void context(lm_error *err, const char *what, const char *name) {
  if (!err || strstr(err->msg, " (in "))
    return;
  size_t l = strlen(err->msg);
  snprintf(err->msg + l, sizeof err->msg - l, " (in %s %s)", what, name);
}

/* ------------------------------------------------------------ dataflow */

/* Where n's batches enter the query n->queries[i]: its head, or for a
 * query over several inputs, the head of n's k-th occurrence among its
 * inputs, k = the earlier entries of that query in n->queries[0..i) (a
 * node read twice, as in a self-join, is listed twice). */
static lm_operator *query_head(const lm_node *n, int i) {
  lm_query *q = n->queries[i];
  if (!q->n_ins)
    return q->head;
  int k = 0;
  for (int j = 0; j < i; j++)
    if (n->queries[j] == q)
      k++;
  for (int j = 0; j < q->n_ins; j++)
    if (q->ins[j].node == n && k-- == 0)
      return q->ins[j].head;
  return NULL;
}

static int node_emit(laminar_db *db, lm_node *n, lm_batch *b, lm_error *err) {
  if (b->num_rows == 0)
    return 0;
  int rc;
  if (n->kind == LM_NODE_MVIEW && !(n->query && n->query->agg_op)) {
    int cap = n->cap_store;
    if (grow((void **)&n->store, &cap, n->n_store + 1, sizeof(lm_batch *)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    n->cap_store = cap;
    n->store[n->n_store++] = lm_batch_retain(b);
    if (n->changelog && n->n_store >= 256) {
      /* keep a changelog view's store small: its net rows */
      lm_batch *c = NULL;
      if ((rc = lm_changelog_consolidate(n->schema, n->store, n->n_store, true,
                                         NULL, &c, err)))
        return rc;
      for (int i = 0; i < n->n_store; i++)
        lm_batch_release(n->store[i]);
      n->store[0] = c;
      n->n_store = 1;
    }
  }
  for (int i = 0; i < n->n_subs; i++) {
    laminar_subscription *s = n->subs[i];
    if (grow((void **)&s->q, &s->cap, s->n + 1, sizeof(lm_batch *)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    s->q[s->n++] = lm_batch_retain(b);
  }
  for (int i = 0; i < n->n_sinks; i++) {
    lm_sink *s = n->sinks[i];
    if (s->file && (rc = lm_file_sink_write(s->file, b, err))) {
      context(err, "sink", s->name);
      return rc;
    }
  }
  for (int i = 0; i < n->n_queries; i++) {
    lm_query *q = n->queries[i];
    if (q->failed) /* isolated: it receives no more input */
      continue;
    lm_operator *h = query_head(n, i);
    if ((rc = lm_operator_push(h, b, err))) {
      if (q->output)
        context(err, kind_name(q->output->kind), q->output->name);
      if ((rc = lm_engine_isolate(db, q, rc, err)))
        return rc;
    }
  }
  return 0;
}

int lm_engine_watermark(laminar_db *db, lm_node *n, int64_t wm, lm_error *err) {
  if (n->wm != INT64_MIN && wm <= n->wm)
    return 0;
  n->wm = wm;
  for (int i = 0; i < n->n_queries; i++) {
    lm_query *q = n->queries[i];
    if (q->failed || (q->proctime && wm != INT64_MAX))
      continue; /* proctime: its windows close by the clock (tick) */
    lm_operator *h = query_head(n, i);
    int rc = lm_operator_watermark(h, wm, err);
    if (rc) {
      if (q->output)
        context(err, kind_name(q->output->kind), q->output->name);
      if ((rc = lm_engine_isolate(db, q, rc, err)))
        return rc;
    }
  }
  return 0;
}

/* Marks q failed with msg (once) and, depth first, every query reading its
 * output; a notice per query. */
static void fail_query(laminar_db *db, lm_query *q, const char *msg,
                       int depth) {
  if (q->failed || !q->output)
    return;
  q->failed = true;
  snprintf(q->fail_msg, sizeof q->fail_msg, "%s", msg);
  db->query_failures++;
  lm_node *o = q->output;
  if (db->stmt_line > 0)
    lm_buf_printf(&db->notices, "%d:%d: ", db->stmt_line, db->stmt_col);
  lm_buf_printf(&db->notices,
                "%s %s failed and stopped (other queries go on; DROP it and "
                "create it again): %s\n",
                kind_name(o->kind), o->name, msg);
  if (depth > 10000)
    return;
  char m[sizeof q->fail_msg];
  snprintf(m, sizeof m, "its input %s %s failed: %.900s", kind_name(o->kind),
           o->name, msg);
  for (int i = 0; i < o->n_queries; i++)
    fail_query(db, o->queries[i], m, depth + 1);
}

int lm_engine_isolate(laminar_db *db, lm_query *q, int rc, lm_error *err) {
  if (!rc || rc == LM_ERR_NOMEM || rc == LM_ERR_IO || !q || !q->output || !db)
    return rc;
  fail_query(db, q, err ? err->msg : "error", 0);
  if (err)
    lm_err_clear(err);
  return 0;
}

static int out_batch(void *ctx, lm_batch *b, lm_error *err) {
  lm_query *q = ctx;
  return node_emit(q->db, q->output, b, err);
}
static int out_wm(void *ctx, int64_t wm, lm_error *err) {
  lm_query *q = ctx;
  return lm_engine_watermark(q->db, q->output, wm, err);
}
static bool same_columns(const lm_schema *a, const lm_schema *b) {
  if (a->n_fields != b->n_fields)
    return false;
  for (int i = 0; i < a->n_fields; i++)
    if (!lm_type_eq(a->fields[i].type, b->fields[i].type) ||
        lm_strcasecmp(a->fields[i].name, b->fields[i].name))
      return false;
  return true;
}

/* Late rows of a query (input schema) to its LATE DATA TO stream. */
static int late_batch(void *ctx, lm_batch *b, lm_error *err) {
  lm_query *q = ctx;
  return q->late_to ? node_emit(q->db, q->late_to, b, err) : 0;
}

/* The late rows of one input of an interval join (ctx: its lm_join_late):
 * padded with NULL columns of the other input to the late stream's
 * schema. */
static int join_late_batch(void *ctx, lm_batch *b, lm_error *err) {
  const struct lm_join_late *jl = ctx;
  lm_query *q = jl->q;
  if (!q->late_to || !b->num_rows)
    return 0;
  const lm_schema *ls = q->late_to->table_schema;
  int n0 = q->ins[0].node->table_schema->n_fields;
  int off = jl->input ? n0 : 0;
  int nb = q->ins[jl->input].node->table_schema->n_fields;
  lm_array **cols = calloc((size_t)ls->n_fields + 1, sizeof *cols);
  int rc = cols ? 0 : LM_ERR_NOMEM;
  for (int c = 0; c < ls->n_fields && !rc; c++) {
    if (c >= off && c < off + nb && c - off < b->num_columns) {
      cols[c] = lm_array_retain(b->columns[c - off]);
      continue;
    }
    lm_builder nb_;
    if (lm_builder_init(&nb_, ls->fields[c].type, b->num_rows)) {
      rc = LM_ERR_NOMEM;
      break;
    }
    for (int64_t r = 0; r < b->num_rows; r++)
      lm_builder_append_null(&nb_);
    if (lm_builder_finish(&nb_, &cols[c]))
      rc = LM_ERR_NOMEM;
    lm_builder_free(&nb_);
  }
  lm_batch *out = NULL;
  if (!rc)
    out = lm_batch_new(lm_schema_retain((lm_schema *)ls), b->num_rows, cols);
  else if (cols)
    for (int c = 0; c < ls->n_fields; c++)
      lm_array_release(cols[c]);
  free(cols);
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  rc = node_emit(q->db, q->late_to, out, err);
  lm_batch_release(out);
  return rc;
}

int lm_engine_tick(laminar_db *db, int64_t now_us, lm_error *err) {
  if (now_us > db->now_us)
    db->now_us = now_us;
  /* 'idle.timeout.ms' per partition: an idle partition no longer holds
   * its source's watermark back */
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *s = db->nodes[i];
    if (s->kind != LM_NODE_SOURCE || s->idle_timeout <= 0 || s->ended ||
        s->parts.n < 2 || s->wm_col < 0)
      continue;
    int64_t wm =
        lm_parts_watermark(&s->parts, s->reader, db->now_us, s->idle_timeout);
    int rc = wm != INT64_MIN ? lm_engine_watermark(db, s, wm, err) : 0;
    if (rc)
      return rc;
  }
  /* 'idle.timeout.ms': a source without rows for that long catches its
   * watermark up with its largest event time (the delay is waived). Not
   * with an unconfirmed far-future candidate ('watermark.max.skew.ms'):
   * quiet time does not confirm it, or one bad timestamp followed by a
   * pause would make every later row late (turbolytics/sql-flow#358). */
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *s = db->nodes[i];
    if (s->kind != LM_NODE_SOURCE || s->idle_timeout <= 0 || s->ended ||
        s->max_ts == INT64_MIN || db->now_us - s->last_row_at < s->idle_timeout)
      continue;
    int rc = lm_engine_watermark(db, s, s->max_ts, err);
    if (rc)
      return rc;
  }
  /* partitioned file sinks roll part files by processing time */
  for (int i = 0; i < db->n_sinks; i++) {
    lm_sink *k = db->sinks[i];
    int rc = k->file ? lm_file_sink_tick(k->file, db->now_us, err) : 0;
    if (rc) {
      context(err, "sink", k->name);
      return rc;
    }
  }
  /* a UNION ALL's idle inputs stop holding its watermark back */
  int urc = lm_union_tick(db, err);
  if (urc)
    return urc;
  for (int i = 0; i < db->n_nodes; i++) {
    lm_query *q = db->nodes[i]->query;
    if (!q || (!q->head && !q->n_ins) || q->failed)
      continue;
    int rc = 0;
    if (q->proctime && q->head && db->now_us > q->proctime_wm &&
        !q->input->ended) {
      /* processing-time windows: the clock is the watermark */
      q->proctime_wm = db->now_us;
      rc = lm_operator_watermark(q->head, db->now_us, err);
    }
    for (int j = 0; j < q->n_ins && !rc; j++)
      rc = lm_operator_tick(q->ins[j].head, db->now_us, err);
    for (int j = 0; j < q->n_joins && !rc; j++) /* join state TTL, then
                                                   what follows */
      rc = lm_operator_tick(q->joins[j], db->now_us, err);
    if (!rc && q->head)
      rc = lm_operator_tick(q->head, db->now_us, err);
    if (rc) {
      context(err, kind_name(q->output->kind), q->output->name);
      if ((rc = lm_engine_isolate(db, q, rc, err)))
        return rc;
    }
  }
  return 0;
}

/* Event-time bookkeeping of one reader of a source: the watermark is the
 * largest event time seen minus the delay. */
typedef struct wm_track {
  int col; /* -1 = no watermark */
  int64_t delay, max_ts, wm, late;
  int64_t skew, cand; /* far-future guard (lm_wm_observe) */
} wm_track;

/* Drops the late rows of b (a row is late when its event time is below the
 * watermark in force when it arrives: the largest event time before it
 * minus the delay) and advances t. *out is a new reference, or NULL when
 * every row was late. Rows without an event time pass (the window
 * operators drop them). */
static int track_batch(wm_track *t, lm_batch *b, bool keep_late, lm_batch **out,
                       lm_error *err) {
  *out = NULL;
  if (t->col < 0) {
    *out = lm_batch_retain(b);
    return 0;
  }
  /* late against the watermark as it advances row by row */
  return lm_wm_filter(b, t->col, &t->wm, t->delay, t->skew, &t->max_ts,
                      &t->cand, &t->wm, keep_late, &t->late, out, err);
}

/* b with src's PROCTIME() column set to the clock's now_us (appended when
 * b lacks it, replaced when a push supplied it): a new reference, NULL on
 * no memory. */
lm_batch *lm_engine_with_proctime(const lm_node *src, lm_batch *b,
                                  int64_t now_us) {
  int pc = src->proctime_col1 - 1;
  lm_array **cols = calloc((size_t)pc + 1, sizeof *cols);
  lm_builder tb;
  if (!cols ||
      lm_builder_init(&tb, lm_type_make(LM_TYPE_TIMESTAMP), b->num_rows)) {
    free(cols);
    return NULL;
  }
  for (int64_t r = 0; r < b->num_rows; r++)
    lm_builder_append_i64_fast(&tb, now_us);
  int rc = lm_builder_finish(&tb, &cols[pc]);
  lm_builder_free(&tb);
  if (rc) {
    free(cols);
    return NULL;
  }
  for (int c = 0; c < pc; c++)
    cols[c] = lm_array_retain(b->columns[c]);
  lm_batch *out =
      lm_batch_new(lm_schema_retain(src->schema), b->num_rows, cols);
  free(cols);
  return out;
}

static int push_rows(laminar_db *db, lm_node *src, lm_batch *b, lm_error *err);

int lm_engine_push(laminar_db *db, lm_node *src, lm_batch *b, lm_error *err) {
  if (!src->proctime_col1)
    return push_rows(db, src, b, err);
  /* stamped on arrival */
  lm_batch *p = lm_engine_with_proctime(src, b, db->now_us);
  if (!p)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = push_rows(db, src, p, err);
  lm_batch_release(p);
  return rc;
}

static int push_rows(laminar_db *db, lm_node *src, lm_batch *b, lm_error *err) {
  src->rows_in += b->num_rows;
  wm_track t = {src->wm_col,       src->wm_delay, src->max_ts, src->wm,
                src->late_dropped, src->wm_skew,  src->wm_cand};
  src->last_row_at = db->now_us;
  /* Late rows are dropped here unless a query reading the source allows
   * lateness or sends them somewhere: each query's late filter
   * (lm_op_late_filter_new) then decides for itself. */
  bool keep_late = false;
  for (int i = 0; i < src->n_queries; i++)
    if (src->queries[i]->lateness > 0 || src->queries[i]->late_to ||
        src->queries[i]->proctime)
      keep_late = true;
  lm_batch *f = NULL;
  int rc = track_batch(&t, b, keep_late, &f, err);
  src->max_ts = t.max_ts;
  src->wm_cand = t.cand;
  src->late_dropped = t.late;
  if (!rc && f)
    rc = node_emit(db, src, f, err);
  lm_batch_release(f);
  if (!rc && t.wm != INT64_MIN && !src->ended)
    rc = lm_engine_watermark(db, src, t.wm, err);
  return rc;
}

/* A batch from partition r->partition of a source read through a reader
 * with several partitions (FILES over several files): rows are late
 * against the source's watermark, which is the minimum over the
 * partitions (lm_parts_watermark), not the largest event time seen. */
static int push_partition(laminar_db *db, lm_node *src, lm_batch *b0,
                          lm_error *err) {
  lm_batch *b = src->proctime_col1
                    ? lm_engine_with_proctime(src, b0, db->now_us)
                    : lm_batch_retain(b0);
  if (!b)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_source_reader *r = src->reader;
  src->rows_in += b->num_rows;
  src->last_row_at = db->now_us;
  /* the source was one partition so far: partition 0 starts from it */
  if (src->parts.n == 0 && lm_parts_seed(&src->parts, src->max_ts, src->wm_cand,
                                         src->wm, db->now_us)) {
    lm_batch_release(b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  /* each query's late filter follows the source's watermarks only */
  for (int i = 0; i < src->n_queries; i++) {
    lm_query *q = src->queries[i];
    lm_op_late_filter_follow_rows(q->head, false);
    for (int k = 0; k < q->n_ins; k++)
      if (q->ins[k].node == src)
        lm_op_late_filter_follow_rows(q->ins[k].head, false);
  }
  bool keep_late = false;
  for (int i = 0; i < src->n_queries; i++)
    if (src->queries[i]->lateness > 0 || src->queries[i]->late_to ||
        src->queries[i]->proctime)
      keep_late = true;
  lm_batch *f = NULL;
  int rc = lm_parts_push(&src->parts, r->partition, r->n_partitions,
                         src->wm_col, src->wm_delay, src->wm_skew, src->wm,
                         db->now_us, keep_late, b, &f, &src->late_dropped, err);
  lm_batch_release(b);
  src->max_ts = lm_parts_max_ts(&src->parts);
  if (!rc && f)
    rc = node_emit(db, src, f, err);
  lm_batch_release(f);
  if (!rc && src->wm_col >= 0 && !src->ended) {
    int64_t wm =
        lm_parts_watermark(&src->parts, r, db->now_us, src->idle_timeout);
    if (wm != INT64_MIN)
      rc = lm_engine_watermark(db, src, wm, err);
  }
  return rc;
}

static int end_source(laminar_db *db, lm_node *src, lm_error *err) {
  src->ended = true; /* the final watermark, +infinity: every window closes */
  return lm_engine_watermark(db, src, INT64_MAX, err);
}

/* ---------------------------------------------------------- connectors */

int lm_engine_open_reader(lm_node *s, lm_source_reader **out, lm_error *err) {
  lm_schema *rs = s->read_schema ? s->read_schema : s->schema;
  if (!lm_strcasecmp(s->connector, "FILES")) {
    int rc = lm_files_reader_new(rs, s->opts, s->n_opts, s->format, out, err);
    if (!rc)
      (*out)->name = s->name; /* for its dead letters */
    return rc;
  }
  if (!lm_strcasecmp(s->connector, "GENERATOR"))
    return lm_generator_reader_new(s->opts, s->n_opts, out, err);
  if (!lm_strcasecmp(s->connector, "NEXMARK"))
    return lm_nexmark_reader_new(rs, s->opts, s->n_opts, out, err);
  return lm_err(err, LM_ERR_BIND, "connector %s is not supported",
                s->connector);
}

static int replay_into(lm_node *src, lm_query *q, lm_operator *head,
                       lm_error *err);

int lm_engine_drain(laminar_db *db, lm_error *err) {
  /* queries waiting to read their bounded source again, in creation order */
  for (int i = 0; i < db->n_nodes; i++) {
    lm_query *q = db->nodes[i]->query;
    if (q && q->needs_replay) {
      q->needs_replay = false;
      int rc = q->failed ? 0 : replay_into(q->input, q, q->head, err);
      if (rc && (rc = lm_engine_isolate(db, q, rc, err)))
        return rc;
    }
    for (int k = 0; q && k < q->n_ins; k++)
      if (q->ins[k].needs_replay) {
        q->ins[k].needs_replay = false;
        int rc =
            q->failed ? 0 : replay_into(q->ins[k].node, q, q->ins[k].head, err);
        if (rc && (rc = lm_engine_isolate(db, q, rc, err)))
          return rc;
      }
  }
  bool progress = true;
  while (progress && !db->interrupted) {
    progress = false;
    for (int i = 0; i < db->n_nodes; i++) {
      lm_node *s = db->nodes[i];
      if (s->kind != LM_NODE_SOURCE || !s->connector || s->ended)
        continue;
      if (!s->started) {
        int rc = lm_engine_open_reader(s, &s->reader, err);
        if (rc) {
          context(err, "source", s->name);
          return rc;
        }
        s->started = true;
      }
      for (;;) {
        lm_batch *b = NULL;
        bool eof = false;
        /* generate only the columns the consumers read (NEXMARK) */
        int rc = lm_source_pushdown(s, s->reader, err);
        if (!rc)
          rc = s->reader->poll(s->reader, &b, &eof, err);
        if (!rc) /* rows that did not decode (api/dead_letter.c) */
          rc = lm_dead_letter_take(db, s, err);
        if (rc) {
          lm_batch_release(b);
          context(err, "source", s->name);
          if (err && db->stmt_line > 0 && rc != LM_ERR_NOMEM) {
            /* the statement that read the source, not the file's place */
            lm_err_prefix(err, "%d:%d: reading source %s", db->stmt_line,
                          db->stmt_col, s->name);
            err->line = db->stmt_line;
            err->column = db->stmt_col;
          }
          return rc;
        }
        if (b) {
          progress = true;
          rc = s->reader->n_partitions > 1 ? push_partition(db, s, b, err)
                                           : lm_engine_push(db, s, b, err);
          lm_batch_release(b);
        }
        /* rows a pushed-down filter skipped moved event time too */
        bool moved = false;
        if (!rc && !eof)
          rc = lm_source_filter_watermark(db, s, &moved, err);
        if (rc)
          return rc;
        if (b || moved) {
          progress = true;
          if (db->interrupted)
            break;
          continue;
        }
        if (eof) {
          s->reader->free(s->reader);
          s->reader = NULL;
          if ((rc = end_source(db, s, err)))
            return rc;
        }
        break;
      }
    }
  }
  lm_dead_letter_notices(db);
  return 0;
}

bool lm_engine_has_unbounded(laminar_db *db) {
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *s = db->nodes[i];
    if (s->kind == LM_NODE_SOURCE && s->reader && s->reader->unbounded &&
        !s->ended)
      return true;
  }
  return false;
}

int64_t lm_engine_wait_us(laminar_db *db) {
  int64_t w = 100000;
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *s = db->nodes[i];
    if (s->kind == LM_NODE_SOURCE && s->reader && s->reader->wait_us) {
      int64_t x = s->reader->wait_us(s->reader);
      if (x < w)
        w = x;
    }
  }
  return w;
}

int lm_engine_flush_sinks(laminar_db *db, lm_error *err) {
  for (int i = 0; i < db->n_sinks; i++)
    if (db->sinks[i]->file) {
      int rc = lm_file_sink_flush(db->sinks[i]->file, err);
      if (rc)
        return rc;
    }
  return 0;
}

/* ------------------------------------------------------------- results */

laminar_result *lm_result_new(lm_schema *schema, lm_batch **batches, int n) {
  laminar_result *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  r->tz = lm_tz_session(); /* TIMESTAMPTZ prints in it (lm_tz.h) */
  r->schema = schema;
  r->batches = batches;
  r->n_batches = n;
  r->batch_start = calloc((size_t)n + 1, sizeof(int64_t));
  lm_buf_init(&r->text);
  if (!r->batch_start) {
    free(r);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    r->batch_start[i] = r->rows;
    r->rows += batches[i]->num_rows;
  }
  r->batch_start[n] = r->rows;
  return r;
}

/* A result of text columns built from rows of C strings. */
static laminar_result *text_result(const char *const *names, int n_cols,
                                   const char *const *cells, int n_rows) {
  lm_schema *s = lm_schema_new(n_cols);
  if (!s)
    return NULL;
  for (int c = 0; c < n_cols; c++)
    lm_schema_set_field(s, c, names[c], lm_type_make(LM_TYPE_UTF8), true);
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, n_rows)) {
    lm_schema_release(s);
    return NULL;
  }
  for (int r = 0; r < n_rows; r++)
    for (int c = 0; c < n_cols; c++) {
      const char *v = cells[r * n_cols + c];
      if (v)
        lm_builder_append_str(&bb.cols[c], v, (int32_t)strlen(v));
      else
        lm_builder_append_null(&bb.cols[c]);
    }
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  if (!b) {
    lm_schema_release(s);
    return NULL;
  }
  lm_batch **arr = malloc(sizeof *arr);
  if (!arr) {
    lm_batch_release(b);
    lm_schema_release(s);
    return NULL;
  }
  arr[0] = b;
  return lm_result_new(s, arr, 1);
}

laminar_result *lm_engine_text_result(const char *const *names, int n_cols,
                                      const char *const *cells, int n_rows) {
  return text_result(names, n_cols, cells, n_rows);
}

/* ------------------------------------------------------------- queries */

static void query_free(lm_query *q) {
  if (!q)
    return;
  for (int i = 0; i < q->n_ins; i++)
    lm_pipeline_free(q->ins[i].head);
  free(q->ins);
  for (int i = 0; i < q->n_joins; i++) /* each frees what follows it */
    lm_pipeline_free(q->joins[i]);
  free(q->joins);
  for (int i = 0; i < q->n_owned_schemas; i++)
    lm_schema_release(q->owned_schemas[i]);
  free(q->owned_schemas);
  lm_pipeline_free(q->head);
  lm_plan_free(q->plan);
  lm_union_free(q->uni); /* after the pipelines that use its plans */
  free(q);
}

static void node_free(lm_node *n) {
  if (!n)
    return;
  for (int i = 0; i < n->n_subs; i++)
    n->subs[i]->node = NULL;
  if (n->reader)
    n->reader->free(n->reader);
  query_free(n->query);
  lm_parts_free(&n->parts);
  lm_table_free(n->table);
  free(n->pk_cols);
  for (int i = 0; i < n->n_store; i++)
    lm_batch_release(n->store[i]);
  free(n->store);
  for (int i = 0; i < n->n_opts; i++) {
    free((char *)n->opts[i].key);
    free((char *)n->opts[i].value);
  }
  free(n->opts);
  free(n->queries);
  free(n->sinks);
  free(n->subs);
  lm_schema_release(n->schema);
  lm_schema_release(n->table_schema);
  lm_schema_release(n->read_schema);
  free(n->name);
  free(n->sql);
  free(n->connector);
  free(n->format);
  free(n);
}

lm_schema *lm_engine_with_weight(lm_schema *s) {
  lm_schema *w = lm_schema_new(s->n_fields + 1);
  if (!w)
    return NULL;
  for (int i = 0; i < s->n_fields; i++)
    lm_schema_set_field(w, i, s->fields[i].name, s->fields[i].type,
                        s->fields[i].nullable);
  lm_schema_set_field(w, s->n_fields, "__weight", lm_type_make(LM_TYPE_INT64),
                      false);
  return w;
}

int lm_engine_pos_err(lm_error *err, int code, int line, int col,
                      const char *msg) {
  if (line)
    return lm_err_at(err, code, line, col, "%s", msg);
  return lm_err(err, code, "%s", msg);
}

int lm_engine_pos_errf(lm_error *err, int code, int line, int col,
                       const char *state, const char *fmt, ...) {
  char m[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  int rc = lm_engine_pos_err(err, code, line, col, m);
  if (state)
    lm_err_state(err, state);
  return rc;
}

/* CREATE of a name in use: returns -1 when IF NOT EXISTS makes it a
 * no-op, LM_ERR_EXISTS (err set) otherwise, 0 when the name is free. */
static int name_taken(laminar_db *db, const lm_stmt *st, lm_error *err) {
  if (!lm_engine_find(db, st->name) && !find_sink(db, st->name) &&
      !lm_index_exists(db, st->name) && !lm_view_exists(db, st->name))
    return 0;
  if (st->if_not_exists)
    return -1;
  char m[300]; /* one namespace of relations, as PostgreSQL's */
  snprintf(m, sizeof m, "relation \"%.200s\" already exists", st->name);
  lm_engine_pos_err(err, LM_ERR_EXISTS, st->line, st->column, m);
  return lm_err_state(err, "42P07");
}

/* The FROM object of a query or sink, or NULL with err set. */
lm_node *lm_engine_find_input(laminar_db *db, const char *name, int line,
                              int column, lm_error *err) {
  lm_node *n = lm_engine_find(db, name);
  if (!n) {
    char m[300]; /* PostgreSQL's words and SQLSTATE */
    snprintf(m, sizeof m, "relation \"%.200s\" does not exist", name);
    lm_engine_pos_err(err, LM_ERR_NOTFOUND, line, column, m);
    lm_err_state(err, "42P01");
  } else if (n->query && n->query->failed) {
    /* docs/failures.md: its rows are no longer a result */
    char m[sizeof n->query->fail_msg + 200];
    snprintf(m, sizeof m,
             "%s '%s': the query stopped after an earlier error: %s",
             kind_name(n->kind), n->name, n->query->fail_msg);
    lm_engine_pos_err(err, LM_ERR_EXEC, line, column, m);
    return NULL;
  }
  return n;
}

/* A query created after its bounded file/generator source has been read
 * reads the source again from the beginning, on its own (DESIGN.md, script
 * mode), with its own watermark, ending with +infinity. */
static int replay_into(lm_node *src, lm_query *q, lm_operator *head,
                       lm_error *err) {
  lm_source_reader *r = NULL;
  int rc = lm_engine_open_reader(src, &r, err);
  if (rc)
    return rc;
  wm_track t = {src->wm_col, src->wm_delay, INT64_MIN, INT64_MIN,
                0,           src->wm_skew,  INT64_MIN};
  lm_parts parts = {0}; /* several partitions: as push_partition */
  for (;;) {
    lm_batch *b = NULL, *f = NULL;
    bool eof = false;
    if ((rc = r->poll(r, &b, &eof, err)))
      break;
    if (!b) {
      if (eof || r->unbounded)
        break;
      continue;
    }
    bool keep_late = q->lateness > 0 || q->late_to || q->proctime;
    if (r->n_partitions > 1) {
      lm_op_late_filter_follow_rows(head, false);
      rc = lm_parts_push(&parts, r->partition, r->n_partitions, t.col, t.delay,
                         t.skew, t.wm, 0, keep_late, b, &f, &t.late, err);
      int64_t w =
          rc || t.col < 0 ? INT64_MIN : lm_parts_watermark(&parts, r, 0, 0);
      if (w > t.wm)
        t.wm = w;
    } else {
      rc = track_batch(&t, b, keep_late, &f, err);
    }
    lm_batch_release(b);
    if (!rc && f && src->proctime_col1) {
      /* the rows arrive now, for this query */
      lm_batch *p = lm_engine_with_proctime(src, f, q->db->now_us);
      lm_batch_release(f);
      if (!(f = p))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    if (!rc && f) {
      rc = lm_operator_push(head, f, err);
    }
    lm_batch_release(f);
    if (!rc && t.wm != INT64_MIN && !q->proctime)
      rc = lm_operator_watermark(head, t.wm, err);
    if (rc)
      break;
  }
  r->free(r);
  lm_parts_free(&parts);
  if (!rc)
    rc = lm_operator_watermark(head, INT64_MAX, err);
  if (rc)
    context(err, kind_name(q->output->kind), q->output->name);
  return rc;
}

/* A query created over an updating stream or view that already has rows
 * starts from those rows (each as an insertion, __weight +1): later
 * retractions of them must find them. An updating input without state
 * (a changelog source, a stream that is not an aggregate) has nothing to
 * give: the query sees the changes made after it was created. */
static int seed_from_state(lm_node *in, lm_operator *head, lm_error *err) {
  lm_batch *cur = NULL;
  int rc = 0;
  if (in->query && in->query->agg_op)
    rc = lm_op_aggregate_snapshot(in->query->agg_op, &cur, err);
  else if (in->kind == LM_NODE_TABLE && in->table)
    rc = lm_table_snapshot(in->table, &cur, err);
  else if (in->kind == LM_NODE_MVIEW && in->n_store)
    rc = lm_changelog_consolidate(in->schema, in->store, in->n_store, false,
                                  in->table_schema, &cur, err);
  if (rc || !cur || cur->num_rows == 0) {
    lm_batch_release(cur);
    return rc;
  }
  /* the current rows, each with __weight +1 */
  int nc = cur->num_columns;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_builder wb;
  if (!cols ||
      lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), cur->num_rows)) {
    free(cols);
    lm_batch_release(cur);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t r = 0; r < cur->num_rows; r++)
    lm_builder_append_i64_fast(&wb, 1);
  for (int c = 0; c < nc; c++)
    cols[c] = lm_array_retain(cur->columns[c]);
  rc = lm_builder_finish(&wb, &cols[nc]);
  lm_builder_free(&wb);
  int64_t rows = cur->num_rows;
  lm_batch_release(cur);
  lm_batch *b = NULL;
  if (rc || !(b = lm_batch_new(lm_schema_retain(in->schema), rows, cols))) {
    for (int c = 0; c <= nc; c++)
      lm_array_release(cols[c]);
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  free(cols);
  rc = lm_operator_push(head, b, err);
  lm_batch_release(b);
  return rc;
}

/* A query over an updating (changelog) input: its batches carry __weight
 * after the table's columns. Aggregates then consume retractions, filters
 * and projections pass the weight on; plans that cannot take a retraction
 * are refused here, at CREATE time. */
static int plan_changelog_input(lm_plan *plan, const lm_node *in,
                                const lm_select *sel, lm_error *err) {
  char m[400];
  plan->changelog_input = true;
  plan->weight_col = in->table_schema->n_fields;
  /* TUMBLE/HOP/CUMULATE take retractions (pane states are retractable);
   * SESSION recomputes a key's sessions from its live times
   * (op_session_changelog.c), so a retraction can split one */
  for (int a = 0; a < plan->n_aggs; a++)
    if (plan->aggs[a].kind == LM_AGG_APPROX_DISTINCT) {
      snprintf(m, sizeof m,
               "APPROX_COUNT_DISTINCT cannot consume retractions, and '%s' "
               "is an updating (changelog) input; use COUNT(DISTINCT ...)",
               in->name);
      return lm_engine_pos_err(err, LM_ERR_BIND, sel->from_line,
                               sel->from_column, m);
    }
  for (int a = 0; a < plan->n_aggs; a++)
    if (plan->aggs[a].kind == LM_AGG_REGR && plan->aggs[a].regr_fn >= 0) {
      /* PostgreSQL's float8 state cannot retract (agg_table.c) */
      snprintf(m, sizeof m,
               "corr, covar_* and regr_* (but regr_count) cannot consume "
               "retractions, and '%s' is an updating (changelog) input",
               in->name);
      lm_engine_pos_err(err, LM_ERR_BIND, sel->from_line, sel->from_column, m);
      return lm_err_state(err, "0A000");
    }
  return 0;
}

/* --------------------------------------------------------------- joins */

_Static_assert((int)LM_PJOIN_INNER == (int)LM_JOIN_INNER &&
                   (int)LM_PJOIN_ANTI == (int)LM_JOIN_ANTI &&
                   (int)LM_PJOIN_UPDATING == (int)LM_JOIN_UPDATING &&
                   (int)LM_PJOIN_ASOF == (int)LM_JOIN_ASOF,
               "lm_pjoin_* must mirror lm_join_*");

/* The relations a join plan names, in the order the binder resolved them
 * (FROM order; a subquery's own FROM in its place). */

int lm_engine_join_resolve(void *ctx, const char *name, int line, int col,
                           lm_rel_info *out, lm_error *err) {
  lm_join_ctx *c = ctx;
  lm_node *n = lm_engine_find_input(c->db, name, line, col, err);
  if (!n)
    return err->code;
  if (grow((void **)&c->nodes, &c->cap, c->n + 1, sizeof *c->nodes))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  c->nodes[c->n++] = n;
  out->schema = n->table_schema;
  out->changelog = n->changelog;
  out->time_col = n->kind == LM_NODE_SOURCE ? n->wm_col : n->time_col1 - 1;
  out->is_table = n->kind == LM_NODE_TABLE;
  return 0;
}

/* Points an operator's error (no position of its own) at the JOIN
 * keyword of step js: "line:col: message". */
void lm_engine_join_err_at(lm_error *err, const lm_join_step *js) {
  if (!err || err->line)
    return;
  lm_err_prefix(err, "%d:%d", js->line, js->column);
  err->line = js->line;
  err->column = js->column;
}

/* The exec spec of a planned join step; `out_schema` includes __weight
 * when the step's output is a changelog. */
void lm_engine_join_spec(const lm_join_step *st, lm_schema *out_schema,
                         lm_join_spec *sp) {
  memset(sp, 0, sizeof *sp);
  sp->type = (lm_join_type)st->type;
  sp->algo = (lm_join_algo)st->algo;
  for (int s = 0; s < 2; s++) {
    sp->side[s].schema = st->side_schema[s];
    sp->side[s].changelog = st->side_changelog[s];
    sp->side[s].n_keys = st->n_keys;
    sp->side[s].keys = st->keys[s];
    sp->side[s].time_col = st->time_col[s];
    sp->side[s].pruned = st->pruned[s];
  }
  sp->residual = st->residual;
  sp->lo_us = st->lo_us;
  sp->hi_us = st->hi_us;
  sp->lo_strict = st->lo_strict;
  sp->hi_strict = st->hi_strict;
  sp->asof_dir = (lm_asof_dir)st->asof_dir;
  sp->asof_strict = st->asof_strict;
  sp->asof_tolerance_us = st->asof_tolerance_us;
  sp->ttl_us = st->ttl_us;
  sp->out_schema = out_schema;
  sp->out_changelog = st->out_changelog;
}

static int own_schema(lm_query *q, lm_schema *s, lm_error *err) {
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  void *n = realloc(q->owned_schemas,
                    sizeof(lm_schema *) * (size_t)(q->n_owned_schemas + 1));
  if (!n) {
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  q->owned_schemas = n;
  q->owned_schemas[q->n_owned_schemas++] = s;
  return 0;
}

/* Replaces the output operator ending pipeline `head` by `next`. */
static void splice(lm_operator *head, lm_operator *next) {
  lm_operator *p = head;
  while (p->next && p->next->next)
    p = p->next;
  if (p->next) {
    p->next->vt->free(p->next);
    p->next = next;
  } else { /* a pipeline of one operator: never built that way */
    p->next = next;
  }
}

/* [key projection of step side `side`] -> output(target); NULL with err
 * set. The chain is owned by the caller. */
static lm_operator *side_chain(lm_query *q, const lm_join_step *st, int side,
                               lm_output_cb target, lm_error *err) {
  lm_operator *out = lm_op_output_new(target);
  if (!out) {
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (!st || !st->n_proj[side])
    return out;
  lm_operator *pj = NULL;
  if (st->side_changelog[side]) {
    lm_schema *ws = lm_engine_with_weight(st->side_schema[side]);
    if (own_schema(q, ws, err)) {
      out->vt->free(out);
      return NULL;
    }
    pj = lm_op_project_weighted_new(st->proj[side], st->n_proj[side], ws,
                                    st->proj_base[side]);
  } else {
    pj = lm_op_project_new(st->proj[side], st->n_proj[side],
                           st->side_schema[side]);
  }
  if (!pj) {
    out->vt->free(out);
    lm_err(err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  pj->next = out;
  return pj;
}

/* The notice for a join whose state only grows. */
static void unbounded_notice(laminar_db *db, const lm_stmt *st,
                             const lm_join_step *js) {
  lm_buf_printf(
      &db->notices,
      "%d:%d: the join in '%s' is an updating join of two "
      "append-only inputs without a time bound: it keeps every row of both "
      "inputs, so its state grows without bound. Bound it with a condition "
      "between the two sides' event-time columns in ON (e.g. AND b.ts "
      "BETWEEN a.ts - INTERVAL '1' HOUR AND a.ts + INTERVAL '1' HOUR, an "
      "interval join) or with WITH ('state.ttl' = '1 hour') on the "
      "CREATE\n",
      js->line, js->column, st->name);
}

/* The notices of every join step of a plan, nested subqueries' too. */
static void unbounded_notices(laminar_db *db, const lm_stmt *st,
                              const lm_plan *plan) {
  const lm_join_plan *jp = plan->join;
  for (int i = 0; jp && i < jp->n_inputs; i++)
    if (jp->inputs[i].sub)
      unbounded_notices(db, st, jp->inputs[i].sub);
  for (int s = 0; jp && s < jp->n_steps; s++)
    if (jp->steps[s].unbounded)
      unbounded_notice(db, st, &jp->steps[s]);
}

/* 'state.ttl' of CREATE ... WITH (...) in µs (0 = none). */
static int join_ttl(const lm_stmt *st, int64_t *ttl, lm_error *err) {
  *ttl = 0;
  for (int i = 0; i < st->n_options; i++) {
    const lm_option *o = &st->options[i];
    if (lm_strcasecmp(o->key, "state.ttl"))
      return lm_engine_pos_err(err, LM_ERR_BIND, o->line, o->column,
                               "unknown query option (known: 'state.ttl')");
    lm_sql_script *sc = NULL;
    char buf[300];
    snprintf(buf, sizeof buf, "SELECT INTERVAL '%s'", o->value);
    if (lm_sql_parse(buf, strlen(buf), &sc, NULL) || sc->n_stmts != 1 ||
        !sc->stmts[0]->select->n_items ||
        sc->stmts[0]->select->items[0].expr->kind != LM_EXPR_LITERAL ||
        sc->stmts[0]->select->items[0].expr->ival <= 0) {
      lm_sql_script_free(sc);
      return lm_engine_pos_err(
          err, LM_ERR_BIND, o->line, o->column,
          "'state.ttl' must be a positive interval such as '1 "
          "hour' or '30 seconds'");
    }
    *ttl = sc->stmts[0]->select->items[0].expr->ival;
    lm_sql_script_free(sc);
  }
  return 0;
}

/* Builds the operators of join plan `plan` for query q, nested subquery
 * plans recursively: its joins (appended to q->joins), then each input's
 * chain (appended to q->ins; the nodes are nodes[*ni...], in the order the
 * binder resolved them). The plan's output goes into `out`, which is taken
 * over (attached, or freed on error). */
static int build_join(lm_query *q, const lm_plan *plan, lm_operator *out,
                      lm_node *const *nodes, int n_nodes, int *ni,
                      lm_error *err) {
  const lm_join_plan *jp = plan->join;
  int rc = 0;
  int first = q->n_joins;
  void *nj = realloc(q->joins, sizeof(lm_operator *) *
                                   (size_t)(q->n_joins + jp->n_steps + 1));
  if (!nj) {
    lm_pipeline_free(out);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  q->joins = nj;
  /* the join operators; an unsupported algorithm fails here, cleanly */
  for (int s = 0; s < jp->n_steps; s++) {
    const lm_join_step *js = &jp->steps[s];
    lm_schema *os = js->out_changelog ? lm_engine_with_weight(js->out_schema)
                                      : lm_schema_retain(js->out_schema);
    lm_operator *j = NULL;
    if (!(rc = own_schema(q, os, err))) {
      lm_join_spec sp;
      lm_engine_join_spec(js, os, &sp);
      if (!(j = lm_op_join_new(&sp, err))) {
        rc = err && err->code ? err->code : LM_ERR_NOMEM;
        if (err && err->code && !err->line)
          lm_engine_join_err_at(err, js);
      }
    }
    if (rc) {
      lm_pipeline_free(out);
      return rc;
    }
    q->joins[q->n_joins++] = j;
  }
  if (jp->n_steps) { /* the last join feeds what follows */
    q->joins[first + jp->n_steps - 1]->next = out;
    out = NULL;
  }
  /* between joins: step s's output feeds side 0 (1 when swapped) of s+1 */
  for (int s = 0; s + 1 < jp->n_steps; s++) {
    const lm_join_step *nx = &jp->steps[s + 1];
    int side = nx->swapped ? 1 : 0;
    lm_operator *ch = side_chain(
        q, nx, side, lm_join_side(q->joins[first + s + 1], side), err);
    if (!ch)
      return err->code;
    q->joins[first + s]->next = ch;
  }
  /* each input: [late filter] -> [subquery] -> [key projection] -> side */
  lm_output_cb no_late = {NULL, NULL, NULL};
  lm_output_cb none = {out_batch, out_wm, q}; /* replaced by splice() */
  for (int i = 0; i < jp->n_inputs; i++) {
    const lm_join_input *ji = &jp->inputs[i];
    lm_operator *head;
    if (!jp->n_steps) {
      head = out; /* one subquery feeding what follows */
      out = NULL;
    } else {
      int s = i ? i - 1 : 0;
      const lm_join_step *js = &jp->steps[s];
      int side = i ? (js->swapped ? 0 : 1) : (js->swapped ? 1 : 0);
      head =
          side_chain(q, js, side, lm_join_side(q->joins[first + s], side), err);
    }
    if (!head)
      return err->code ? err->code : LM_ERR_NOMEM;
    if (ji->sub && !ji->sub->join && *ni < n_nodes) {
      /* the same window aggregate as an earlier input's: shared */
      bool shared = false;
      if ((rc = lm_engine_share_input(q, ji, head, nodes[*ni], &shared, err))) {
        lm_pipeline_free(head);
        return rc;
      }
      if (shared) {
        (*ni)++;
        continue;
      }
    }
    if (ji->sub) {
      lm_schema *ss = ji->info.changelog
                          ? lm_engine_with_weight(ji->sub->out_schema)
                          : lm_schema_retain(ji->sub->out_schema);
      lm_operator *agg = NULL, *sh = NULL;
      if (!(rc = own_schema(q, ss, err)))
        sh = lm_pipeline_build_ex(ji->sub, ss, ji->info.changelog, none,
                                  no_late, &agg, err);
      if (!sh) {
        lm_pipeline_free(head);
        return err && err->code ? err->code : LM_ERR_NOMEM;
      }
      splice(sh, head);
      head = sh;
      if (jp->n_steps) { /* a dynamic filter fed by this input's aggregate */
        int s = i ? i - 1 : 0;
        const lm_join_step *js = &jp->steps[s];
        int side = i ? (js->swapped ? 0 : 1) : (js->swapped ? 1 : 0);
        if (js->dyn && js->dyn_side == 1 - side &&
            (rc = lm_join_dynfilter_connect(q->joins[first + s], js, ji->sub,
                                            sh, err))) {
          lm_pipeline_free(head);
          return rc;
        }
      }
      if (ji->sub->join) { /* its own inputs and joins */
        if ((rc = build_join(q, ji->sub, head, nodes, n_nodes, ni, err)))
          return rc;
        continue;
      }
    }
    if (*ni >= n_nodes) {
      lm_pipeline_free(head);
      return lm_err(err, LM_ERR_GENERIC, "join planning: an input is missing");
    }
    lm_node *in = nodes[(*ni)++];
    if (in->kind == LM_NODE_SOURCE && in->wm_col >= 0) {
      /* LATE DATA TO (an interval join of two sources): its late rows */
      lm_output_cb lcb = no_late;
      if (q->late_to && plan == q->plan && i < 2) {
        q->join_late[i] = (struct lm_join_late){q, i};
        lcb = (lm_output_cb){join_late_batch, NULL, &q->join_late[i]};
      }
      lm_operator *lf =
          lm_op_late_filter_new(in->wm_col, in->wm_delay, in->wm_skew, 0, lcb);
      if (!lf) {
        lm_pipeline_free(head);
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      }
      lf->next = head;
      head = lf;
    }
    void *nn = realloc(q->ins, sizeof *q->ins * (size_t)(q->n_ins + 1));
    if (!nn) {
      lm_pipeline_free(head);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    q->ins = nn;
    memset(&q->ins[q->n_ins], 0, sizeof *q->ins);
    q->ins[q->n_ins].node = in;
    q->ins[q->n_ins].sub = ji->sub; /* no join of its own here */
    q->ins[q->n_ins].sub_changelog = ji->info.changelog;
    q->ins[q->n_ins++].head = head;
  }
  lm_pipeline_free(out); /* unused only on a malformed plan */
  return 0;
}

/* A new stream or view node `kind` named by st, with its query over `plan`
 * (taken over: freed with the node, or here on failure). The node emits
 * plan->out_schema (+ __weight when `changelog`); in_time_col is the input
 * column carrying event time (-1 = none), mapped through the plan to the
 * node's time column. The caller sets q->input and builds the pipeline.
 * LM_ERR_NOMEM (err set). */
/* A stream or view cannot have two columns of one name (PostgreSQL's
 * CREATE VIEW: `column "x" specified more than once`), e.g. SELECT * over
 * a join of two relations with an `id`: LM_ERR_BIND at the SELECT. */
static int unique_columns(const lm_plan *plan, const lm_select *sel,
                          lm_error *err) {
  const lm_schema *s = plan->out_schema;
  for (int i = 0; i < s->n_fields; i++)
    for (int j = 0; j < i; j++)
      if (!strcmp(s->fields[i].name, s->fields[j].name)) {
        char m[300];
        snprintf(m, sizeof m,
                 "column \"%.100s\" specified more than once (name the "
                 "columns of a join with AS, or list them instead of *)",
                 s->fields[i].name);
        lm_engine_pos_err(err, LM_ERR_BIND, sel->line, sel->column, m);
        return lm_err_state(err, "42701"); /* duplicate_column */
      }
  return 0;
}

/* The first call in e of an order-sensitive aggregate (string_agg,
 * first_value, last_value, array_agg; not DISTINCT) with ORDER BY inside, or
 * NULL. */
static const lm_expr *ordered_agg(const lm_expr *e) {
  if (!e)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && e->n_agg_order && !e->distinct && e->name &&
      (!strcmp(e->name, "string_agg") || !strcmp(e->name, "first_value") ||
       !strcmp(e->name, "last_value") || !strcmp(e->name, "array_agg") ||
       !strncmp(e->name, "json", 4))) { /* json[b]_[object_]agg */
    /* string_agg(col, sep ORDER BY col): a sorted multiset, any order */
    const lm_expr *k = e->agg_order[0].expr, *x = e->args[0];
    bool self = !strcmp(e->name, "string_agg") && e->n_agg_order == 1 &&
                k->kind == LM_EXPR_COLUMN && x->kind == LM_EXPR_COLUMN &&
                !lm_strcasecmp(k->name, x->name) &&
                (!k->table) == (!x->table) &&
                (!k->table || !lm_strcasecmp(k->table, x->table));
    if (!self)
      return e;
  }
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *f = ordered_agg(e->args[i]);
    if (f)
      return f;
  }
  return NULL;
}

/* What every continuous query refuses of its SELECT: ORDER BY, LIMIT,
 * OFFSET and DISTINCT (LM_ERR_BIND at the SELECT), and ORDER BY inside an
 * order-sensitive aggregate (0A000 at the call). */
static int continuous_select_check(const lm_select *sel, lm_error *err) {
  const lm_expr *oa = ordered_agg(sel->having);
  for (int i = 0; i < sel->n_items && !oa; i++)
    oa = ordered_agg(sel->items[i].expr);
  if (oa) {
    lm_engine_pos_err(err, LM_ERR_BIND, oa->line, oa->column,
                      "ORDER BY inside an aggregate is not supported in a "
                      "continuous query (its rows arrive in time order)");
    return lm_err_state(err, "0A000");
  }
  if (sel->n_order_by || sel->limit >= 0 || sel->offset > 0 ||
      sel->limit_expr || sel->offset_expr)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "ORDER BY, LIMIT and OFFSET are not supported in a "
        "continuous query (use them in a SELECT over a view)");
  if (sel->distinct)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "SELECT DISTINCT is not supported in a continuous query "
        "yet (use GROUP BY)");
  return 0;
}

/* What EMIT and ALLOW LATENESS need of the plan (windowed: a windowed
 * GROUP BY): NULL when the query has it, else the message to report. */
static const char *emit_check(const lm_select *sel, const lm_plan *plan,
                              bool windowed) {
  if ((sel->emit == LM_EMIT_ON_WINDOW_CLOSE || sel->emit == LM_EMIT_FINAL ||
       sel->emit == LM_EMIT_AFTER_WATERMARK) &&
      !windowed)
    return "EMIT ON WINDOW CLOSE needs a windowed GROUP BY, e.g. GROUP BY "
           "tumble(ts, INTERVAL '1' MINUTE)";
  if (sel->emit == LM_EMIT_PERIODICALLY && !plan->has_agg)
    return "EMIT PERIODICALLY needs an aggregate (GROUP BY)";
  if (sel->allowed_lateness_us > 0 && !windowed)
    return "ALLOW LATENESS needs a windowed GROUP BY (tumble, hop, cumulate "
           "or session)";
  return NULL;
}

/* The node whose missing watermark keeps n's from ever advancing: a table
 * or a LATE DATA TO stream (no watermark reaches them), or what a query
 * over them reads (a UNION ALL: any operand, as its watermark is their
 * minimum; a join: only when every input is blocked, since some joins
 * follow one side). NULL when a watermark can reach n: a source has its
 * WATERMARK, or +infinity at the end of its input. */
static const lm_node *wm_blocker(const lm_node *n, int depth) {
  if (!n || depth > 200)
    return NULL;
  if (n->kind == LM_NODE_TABLE)
    return n;
  if (n->kind == LM_NODE_SOURCE)
    return NULL;
  const lm_query *q = n->query;
  if (!q)
    return n->late_target ? n : NULL;
  if (q->n_ins) {
    const lm_node *first = NULL;
    for (int i = 0; i < q->n_ins; i++) {
      const lm_node *b = wm_blocker(q->ins[i].node, depth + 1);
      if (q->uni && b)
        return b;
      if (!q->uni && !b)
        return NULL;
      if (!first)
        first = b;
    }
    return q->uni ? NULL : first;
  }
  return wm_blocker(q->input, depth + 1);
}

int lm_engine_emit_wm_check(const lm_select *sel, bool windowed,
                            lm_node *const *ins, int n, bool any_blocks,
                            lm_error *err) {
  const char *what = sel->emit == LM_EMIT_ON_WINDOW_CLOSE   ? "ON WINDOW CLOSE"
                     : sel->emit == LM_EMIT_AFTER_WATERMARK ? "AFTER WATERMARK"
                     : sel->emit == LM_EMIT_FINAL           ? "FINAL"
                                                            : NULL;
  if (!what || !windowed || n <= 0)
    return 0;
  const lm_node *b = NULL, *via = NULL;
  int n_blocked = 0;
  for (int i = 0; i < n; i++) {
    const lm_node *x = wm_blocker(ins[i], 0);
    if (x && !b)
      b = x, via = ins[i];
    n_blocked += x != NULL;
  }
  if (any_blocks ? n_blocked == 0 : n_blocked < n)
    return 0;
  char through[200] = "";
  if (via != b)
    snprintf(through, sizeof through, ", read through %s '%.80s'",
             kind_name(via->kind), via->name);
  char m[700];
  snprintf(m, sizeof m,
           "EMIT %s can never emit here: no watermark reaches this query "
           "(%s '%.80s' has none%s), so no window ever closes. HINT: use the "
           "default EMIT (an updating result), EMIT CHANGES or EMIT "
           "PERIODICALLY, or window a source with a WATERMARK",
           what, b->kind == LM_NODE_TABLE ? "table" : "LATE DATA TO stream",
           b->name, through);
  int line = sel->emit_line ? sel->emit_line : sel->line;
  int col = sel->emit_line ? sel->emit_column : sel->column;
  lm_engine_pos_err(err, LM_ERR_BIND, line, col, m);
  return lm_err_state(err, "0A000");
}

/* Whether the query's result is updating (a changelog): an aggregate
 * decides (a windowed one over a changelog emitting final rows is
 * append-only); otherwise the input does (and Top-N retracts). */
static bool result_changelog(const lm_plan *plan, bool windowed) {
  return plan->has_agg
             ? !windowed || lm_window_changelog(plan, lm_plan_window_emit(plan))
             : plan->changelog_input || plan->topn || plan->n_tfilter;
}

/* LATE DATA TO sel->late_data_to: *out = the stream of late rows of
 * columns `cols` (a reference taken over), the existing one (it must be a
 * late-row stream of the same columns, else LM_ERR_BIND at the clause) or
 * a new one added to db. LM_ERR_NOMEM. */
static int late_stream(laminar_db *db, const lm_select *sel, lm_schema *cols,
                       lm_node **out, lm_error *err) {
  *out = NULL;
  lm_node *lt = lm_engine_find(db, sel->late_data_to);
  if (lt) {
    bool ok = lt->late_target && same_columns(lt->schema, cols);
    lm_schema_release(cols);
    if (!ok)
      return lm_engine_pos_err(
          err, LM_ERR_BIND, sel->late_line, sel->late_column,
          "LATE DATA TO names an existing object that is not a "
          "late-row stream of the same columns");
    *out = lt;
    return 0;
  }
  lt = calloc(1, sizeof *lt);
  void *nn =
      lt ? realloc(db->nodes, sizeof(*db->nodes) * (size_t)(db->n_nodes + 1))
         : NULL;
  if (!nn) {
    free(lt);
    lm_schema_release(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  db->nodes = nn;
  lt->kind = LM_NODE_STREAM;
  lt->name = lm_strdup(sel->late_data_to);
  lt->sql = lm_strdup("");
  lt->wm = INT64_MIN;
  lt->wm_col = -1;
  lt->late_target = true;
  lt->schema = lm_schema_retain(cols);
  lt->table_schema = cols;
  db->nodes[db->n_nodes++] = lt;
  *out = lt;
  return 0;
}

/* Brings the pipeline head h of new query node n up to its input `in`:
 * a bounded source already read is read again later (*replay set, nothing
 * else done); an updating input's current rows seed it; the input's
 * watermark so far applies. Errors of the operators (err names n). */
static int catch_up(const lm_node *n, lm_node *in, lm_operator *h, bool *replay,
                    lm_error *err) {
  int rc;
  if (in->kind == LM_NODE_SOURCE && in->connector && in->started &&
      (in->ended || (in->reader && !in->reader->unbounded))) {
    *replay = true;
    return 0;
  }
  if (in->changelog && (rc = seed_from_state(in, h, err))) {
    context(err, kind_name(n->kind), n->name);
    return rc;
  }
  if (in->wm != INT64_MIN && (rc = lm_operator_watermark(h, in->wm, err)))
    return rc;
  return 0;
}

static int new_query_node(laminar_db *db, const lm_stmt *st, lm_node_kind kind,
                          lm_plan *plan, bool changelog, int in_time_col,
                          lm_node **out_n, lm_query **out_q, lm_error *err) {
  lm_node *n = calloc(1, sizeof *n);
  lm_query *q = calloc(1, sizeof *q);
  if (!n || !q) {
    free(n);
    free(q);
    lm_plan_free(plan);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->kind = kind;
  n->name = lm_strdup(st->name);
  n->sql = lm_strdup(st->text ? st->text : "");
  n->wm = INT64_MIN;
  n->wm_col = -1;
  n->changelog = changelog;
  n->time_col1 = 1 + lm_plan_out_time_col(plan, in_time_col, changelog);
  n->table_schema = lm_schema_retain(plan->out_schema);
  n->schema = changelog ? lm_engine_with_weight(plan->out_schema)
                        : lm_schema_retain(plan->out_schema);
  q->db = db;
  q->output = n;
  q->plan = plan;
  q->lateness = plan->allowed_lateness_us;
  n->query = q;
  *out_n = n;
  *out_q = q;
  return 0;
}

/* LATE DATA TO name over a join: accepted for an interval join of two
 * sources with a WATERMARK (the join's own inputs, no subquery); the late
 * rows of either go to the stream `name` of columns [input 0's...,
 * input 1's...] (a name of input 1 already used by input 0 is qualified
 * as qual_name), created here unless it exists with those columns. */
static int join_late_stream(laminar_db *db, const lm_select *sel,
                            const lm_plan *plan, lm_node *const *nodes,
                            int n_nodes, lm_node **out, lm_error *err) {
  const lm_join_plan *jp = plan->join;
  *out = NULL;
  if (!jp || jp->n_steps != 1 || jp->steps[0].algo != LM_PJOIN_INTERVAL ||
      n_nodes != 2 || jp->inputs[0].sub || jp->inputs[1].sub ||
      nodes[0]->kind != LM_NODE_SOURCE || nodes[1]->kind != LM_NODE_SOURCE ||
      nodes[0]->wm_col < 0 || nodes[1]->wm_col < 0)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->late_line, sel->late_column,
        "LATE DATA TO over a join needs an interval join (a time bound in "
        "ON) of two sources with a WATERMARK");
  const lm_schema *a = nodes[0]->table_schema, *b = nodes[1]->table_schema;
  lm_schema *ls = lm_schema_new(a->n_fields + b->n_fields);
  if (!ls)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int c = 0; c < a->n_fields; c++)
    lm_schema_set_field(ls, c, a->fields[c].name, a->fields[c].type, true);
  for (int c = 0; c < b->n_fields; c++) {
    char nm[300];
    bool clash = lm_schema_find(a, b->fields[c].name) >= 0;
    snprintf(nm, sizeof nm, "%s%s%s", clash ? jp->inputs[1].qual : "",
             clash ? "_" : "", b->fields[c].name);
    lm_schema_set_field(ls, a->n_fields + c, nm, b->fields[c].type, true);
  }
  return late_stream(db, sel, ls, out, err);
}

static int create_join_query(laminar_db *db, const lm_stmt *st,
                             lm_node_kind kind, lm_error *err) {
  const lm_select *sel = st->select;
  int taken = name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  int rc = continuous_select_check(sel, err);
  if (rc)
    return rc;
  int64_t ttl = 0;
  rc = join_ttl(st, &ttl, err);
  if (rc)
    return rc;
  lm_join_ctx jc = {db, NULL, 0, 0};
  lm_plan *plan = NULL;
  rc = lm_plan_join_select(sel, lm_engine_join_resolve, &jc, false, ttl, &plan,
                           err);
  if (rc) {
    free(jc.nodes);
    return rc;
  }
  const char *bad = NULL;
  int bl = sel->line, bc = sel->column;
  bool windowed = plan->has_agg && plan->window_kind != LM_WIN_NONE;
  if (!bad && plan->changelog_input && windowed)
    bad = "the join's result is updating (a changelog: outer updating join "
          "or updating input): a windowed aggregate over it cannot take back "
          "rows it has emitted; use an interval join (a time bound in ON) "
          "over append-only inputs, or aggregate without a window";
  else if (!bad && windowed && plan->window_time_col != plan->join_time_col)
    bad = plan->join_time_col < 0
              ? "a window over a join needs an event-time column: only an "
                "interval, temporal, ASOF or lookup join of append-only "
                "inputs keeps one (the left input's)"
              : "the window's time column must be the join's event-time "
                "column (the left input's time column)";
  else if (!bad && plan->changelog_input)
    for (int a = 0; a < plan->n_aggs; a++)
      if (plan->aggs[a].kind == LM_AGG_APPROX_DISTINCT)
        bad = "APPROX_COUNT_DISTINCT cannot consume retractions, and the "
              "join's result is updating; use COUNT(DISTINCT ...)";
  if (!bad)
    bad = emit_check(sel, plan, windowed);
  if (bad) {
    free(jc.nodes);
    lm_plan_free(plan);
    return lm_engine_pos_err(err, LM_ERR_BIND, bl, bc, bad);
  }
  if ((rc = lm_engine_emit_wm_check(sel, windowed, jc.nodes, jc.n, false,
                                    err))) {
    free(jc.nodes);
    lm_plan_free(plan);
    return rc;
  }
  if ((rc = unique_columns(plan, sel, err))) {
    free(jc.nodes);
    lm_plan_free(plan);
    return rc;
  }
  bool changelog = result_changelog(plan, windowed);
  lm_node *n = NULL;
  lm_query *q = NULL;
  if (new_query_node(db, st, kind, plan, changelog, plan->join_time_col, &n, &q,
                     err)) {
    free(jc.nodes);
    return LM_ERR_NOMEM;
  }
  q->input = jc.nodes[0];
  if (sel->late_data_to && (rc = join_late_stream(db, sel, plan, jc.nodes, jc.n,
                                                  &q->late_to, err))) {
    free(jc.nodes);
    node_free(n);
    return rc;
  }
  lm_output_cb cb = {out_batch, out_wm, q};
  lm_output_cb late = {late_batch, NULL, q};
  lm_operator *main = NULL;
  if (n->schema && n->name && n->sql)
    main = lm_pipeline_build_ex(plan, n->schema, changelog, cb, late,
                                &q->agg_op, err);
  if (!main) {
    free(jc.nodes);
    node_free(n);
    return err && err->code ? err->code : LM_ERR_NOMEM;
  }
  int ni = 0;
  rc = build_join(q, plan, main, jc.nodes, jc.n, &ni, err);
  free(jc.nodes);
  if (!rc && ni != jc.n)
    rc = lm_err(err, LM_ERR_GENERIC, "join planning: %d inputs, %d resolved",
                ni, jc.n);
  if (rc) {
    node_free(n);
    return rc;
  }
  for (int i = 0; i < q->n_ins && !rc; i++)
    rc = lm_operator_tick(q->ins[i].head, db->now_us, err);
  for (int s = 0; s < q->n_joins && !rc; s++)
    rc = lm_operator_tick(q->joins[s], db->now_us, err);
  if (rc) {
    node_free(n);
    return rc;
  }
  for (int i = 0; i < q->n_ins; i++)
    APPEND(q->ins[i].node->queries, q->ins[i].node->n_queries, q);
  APPEND(db->nodes, db->n_nodes, n);
  unbounded_notices(db, st, plan);
  /* each input's rows so far: a bounded source is read again, an updating
   * input's current rows seed the join, and its watermark applies. Last
   * input first: a lookup join's table (a right input, state only) holds
   * its rows before the left rows that meet it arrive */
  for (int i = q->n_ins - 1; i >= 0 && !rc; i--)
    rc = catch_up(n, q->ins[i].node, q->ins[i].head, &q->ins[i].needs_replay,
                  err);
  return rc;
}

/* A temporal filter's rules (docs/changelog.md, "Temporal filters"), then
 * its conjuncts conj[0..n) bound into plan (lm_tfilter_bind): a
 * SELECT without aggregates or Top-N over an append-only input that
 * watermarks reach (a source without WATERMARK gets them from outside,
 * laminar_watermark), EMIT CHANGES (a materialized view: also none).
 * Errors: LM_ERR_BIND, SQLSTATE 0A000, at the first conjunct; binding's. */
static int tfilter_check(const lm_stmt *st, lm_node_kind kind,
                         const lm_node *in, lm_plan *plan,
                         const lm_expr *const *conj, int n, lm_error *err) {
  const lm_select *sel = st->select;
  const char *bad = NULL;
  if (plan->has_agg || plan->topn)
    bad = "a temporal filter (now() in WHERE) takes no aggregate or Top-N: "
          "aggregate its result in a second query, e.g. CREATE MATERIALIZED "
          "VIEW ... AS SELECT ... FROM <the filtered stream> GROUP BY ...";
  else if (in->changelog)
    bad = "a temporal filter (now() in WHERE) reads an append-only input; "
          "this one is updating";
  else if (wm_blocker(in, 0))
    bad = "a temporal filter (now() in WHERE) needs an input that "
          "watermarks reach: now() is the input's watermark floored to the "
          "second";
  else if (kind == LM_NODE_MVIEW
               ? sel->emit != LM_EMIT_DEFAULT && sel->emit != LM_EMIT_CHANGES
               : sel->emit != LM_EMIT_CHANGES)
    bad = "a temporal filter (now() in WHERE) retracts rows as now() moves: "
          "its result is a changelog, so the query needs EMIT CHANGES (or "
          "to be a materialized view)";
  if (bad) {
    lm_engine_pos_err(err, LM_ERR_BIND, conj[0]->line, conj[0]->column, bad);
    return lm_err_state(err, "0A000");
  }
  return lm_tfilter_bind(plan, conj, n, err);
}

/* srf: set-returning functions' ProjectSet stages ahead of the plan
 * (api/srf_stream.c; NULL or *srf NULL = none), attached and set to NULL
 * here on success. */
static int create_query_node_in(laminar_db *db, const lm_stmt *st,
                                lm_node_kind kind, lm_srf_cq **srf,
                                lm_error *err);

static int create_query_node(laminar_db *db, const lm_stmt *st,
                             lm_node_kind kind, lm_error *err) {
  const lm_select *sel = st->select, *body = sel;
  lm_srf_cq *cq = NULL;
  if (sel->n_ctes || lm_union_applies(sel))
    return create_query_node_in(db, st, kind, NULL, err);
  int rc = lm_srf_cq_prepare(sel, &cq, &body, err); /* srf_stream.c */
  if (rc || !cq)
    return rc ? rc : create_query_node_in(db, st, kind, NULL, err);
  lm_stmt s2 = *st;
  s2.select = (lm_select *)body;
  rc = create_query_node_in(db, &s2, kind, &cq, err);
  lm_srf_cq_free(cq);
  return rc;
}

static int create_query_node_in(laminar_db *db, const lm_stmt *st,
                                lm_node_kind kind, lm_srf_cq **srf,
                                lm_error *err) {
  const lm_select *sel = st->select;
  if (sel->n_ctes) /* WITH: inlined as subqueries (setop.c) */
    return lm_setop_create_with(db, st, err);
  if (lm_union_applies(sel)) /* UNION ALL of streams: union_stream.c */
    return lm_union_create(db, st, kind, err);
  int crc = lm_setop_check_continuous(sel, err); /* setop.c */
  if (crc)
    return crc;
  if (lm_select_needs_join_plan(sel))
    return create_join_query(db, st, kind, err);
  if (st->n_options)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->options[0].line, st->options[0].column,
        "WITH options of a query ('state.ttl') apply to joins "
        "only");
  if (!sel->from && sel->from_clause)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->from_line, sel->from_column,
        "a ROW_NUMBER (Top-N) subquery whose FROM is a join is "
        "not supported yet: make the join a view and rank over "
        "it");
  if (!sel->from)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "a continuous query needs FROM <source, stream or view>");
  int taken = name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  lm_node *in = lm_engine_find_input(db, sel->from, sel->from_line,
                                     sel->from_column, err);
  if (!in)
    return err->code;
  if ((crc = continuous_select_check(sel, err)))
    return crc;
  /* window functions (OVER): an OVER operator ahead of the plan, which
   * then reads its columns (select_over.c) */
  lm_operator *over = NULL;
  lm_schema *over_schema = NULL;
  lm_select *over_sel = NULL;
  if (lm_select_has_over(sel) && !sel->from_subquery) {
    if (sel->emit || sel->late_data_to || sel->allowed_lateness_us)
      return lm_engine_pos_err(
          err, LM_ERR_BIND, sel->line, sel->column,
          "a window function (OVER) over a stream takes no EMIT, ALLOW "
          "LATENESS or LATE DATA TO");
    /* over an updating input: op_over_changelog.c */
    int orc = lm_over_stream_plan(
        sel, in->table_schema, in->changelog ? in->table_schema->n_fields : -1,
        &over_sel, &over_schema, &over, err);
    if (orc)
      return orc;
  }
  int over_cols = over_schema ? over_schema->n_fields : 0;
  /* WHERE ts > now() - INTERVAL ...: a temporal filter, taken out of the
   * WHERE bound below (plan/tfilter_bind.c) */
  const lm_expr *tf_conj[8];
  lm_expr *tf_nodes = NULL;
  int n_tf = 0;
  lm_select tf_sel;
  if (!over) {
    const lm_expr *rest;
    if ((crc = lm_tfilter_split(sel->where, &rest, &tf_nodes, tf_conj, 8, &n_tf,
                                err)))
      return crc;
    if (n_tf) {
      tf_sel = *sel;
      tf_sel.where = (lm_expr *)rest; /* not written through */
      sel = &tf_sel;
    }
  }
  lm_plan *plan = NULL;
  int rc = srf && *srf
               ? lm_srf_cq_plan(*srf, in->table_schema,
                                in->changelog ? in->table_schema->n_fields : -1,
                                &plan, err)
               : lm_plan_select(over ? over_sel : sel,
                                over ? over_schema : in->table_schema, in->name,
                                &plan, err);
  lm_schema_release(over_schema);
  if (rc && over)
    over->vt->free(over);
  if (!rc && n_tf &&
      (rc = tfilter_check(st, kind, in, plan, tf_conj, n_tf, err)))
    lm_plan_free(plan);
  free(tf_nodes);
  if (rc)
    return rc;
  if (in->changelog && (rc = plan_changelog_input(plan, in, sel, err))) {
    if (over)
      over->vt->free(over);
    lm_plan_free(plan);
    return rc;
  }
  if (in->changelog && over) /* __weight follows the OVER's columns */
    plan->weight_col = over_cols;
  if (in->changelog && srf && *srf) /* ... or the functions' columns */
    plan->weight_col = lm_srf_cq_cols(*srf);
  bool windowed = plan->has_agg && plan->window_kind != LM_WIN_NONE;
  /* a window over the source's PROCTIME() column closes by the clock */
  bool proc = windowed && in->kind == LM_NODE_SOURCE && in->proctime_col1 &&
              plan->window_time_col == in->proctime_col1 - 1;
  /* OVER (ORDER BY the source's PROCTIME() column): rows are in order on
   * arrival, each is emitted then (op_over.c) */
  int over_tc = -1;
  bool over_oa = false;
  if (over && in->kind == LM_NODE_SOURCE && in->proctime_col1 &&
      lm_op_over_call(over, 0, &over_tc, &over_oa) &&
      over_tc == in->proctime_col1 - 1) {
    lm_op_over_on_arrival(over);
    proc = true;
  }
  const char *bad = emit_check(sel, plan, windowed);
  if (!bad && windowed && in->kind == LM_NODE_SOURCE && !proc &&
      in->wm_col != plan->window_time_col)
    bad = in->proctime_col1
              ? "the window's time column must be the source's WATERMARK "
                "column or its PROCTIME() column"
              : "the window's time column must be the source's WATERMARK "
                "column";
  else if (!bad && proc && (sel->late_data_to || sel->allowed_lateness_us))
    bad = "a processing-time window takes no ALLOW LATENESS or LATE DATA "
          "TO: no row is late";
  else if (!bad && sel->late_data_to && !windowed &&
           !(in->kind == LM_NODE_SOURCE && in->wm_col >= 0))
    bad = "LATE DATA TO needs a windowed query or a source with a WATERMARK";
  if (bad) {
    if (over)
      over->vt->free(over);
    lm_plan_free(plan);
    return lm_engine_pos_err(err, LM_ERR_BIND, sel->line, sel->column, bad);
  }
  if ((rc = lm_engine_emit_wm_check(sel, windowed, &in, 1, true, err))) {
    if (over)
      over->vt->free(over);
    lm_plan_free(plan);
    return rc;
  }
  /* LATE DATA TO name: a stream of the input's rows, created here */
  lm_node *late_to = NULL;
  if (sel->late_data_to &&
      (rc = late_stream(db, sel, lm_schema_retain(in->table_schema), &late_to,
                        err))) {
    lm_plan_free(plan);
    return rc;
  }
  /* an updating result: an aggregate that updates its rows, or anything
   * (filters, projections) over an updating input */
  bool changelog = result_changelog(plan, windowed);
  /* rn = 1 ordered by the time attribute DESC: Flink's keep-last dedup */
  lm_plan_topn_time_attr(plan, in->kind == LM_NODE_SOURCE ? in->wm_col
                                                          : in->time_col1 - 1);
  if (in->kind == LM_NODE_SOURCE && in->proctime_col1)
    lm_plan_topn_time_attr(plan, in->proctime_col1 - 1);
  lm_node *n = NULL;
  lm_query *q = NULL;
  if (new_query_node(db, st, kind, plan, changelog,
                     proc                         ? in->proctime_col1 - 1
                     : in->kind == LM_NODE_SOURCE ? in->wm_col
                                                  : in->time_col1 - 1,
                     &n, &q, err))
    return LM_ERR_NOMEM;
  q->input = in;
  q->proctime = proc;
  q->proctime_wm = INT64_MIN;
  q->late_to = late_to;
  lm_output_cb cb = {out_batch, out_wm, q};
  lm_output_cb late = {late_batch, NULL, q};
  if (!n->schema ||
      !(q->head = lm_pipeline_build_ex(plan, n->schema, changelog, cb, late,
                                       &q->agg_op, err))) {
    if (over)
      over->vt->free(over);
    node_free(n);
    return err && err->code ? err->code : LM_ERR_NOMEM;
  }
  if (over) { /* the OVER operator feeds the plan's pipeline */
    over->next = q->head;
    q->head = over;
  }
  if (srf && *srf) { /* ProjectSet stages feed it (srf_stream.c) */
    lm_srf_cq_attach(*srf, &q->head);
    *srf = NULL;
  }
  if (in->kind == LM_NODE_SOURCE && in->wm_col >= 0 && !proc) {
    /* per-query late rows (ALLOW LATENESS, LATE DATA TO) */
    lm_operator *lf = lm_op_late_filter_new(in->wm_col, in->wm_delay,
                                            in->wm_skew, q->lateness, late);
    if (!lf) {
      node_free(n);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    lf->next = q->head;
    q->head = lf;
  }
  /* EMIT PERIODICALLY counts its intervals from the clock's now */
  if ((rc = lm_operator_tick(q->head, db->now_us, err))) {
    node_free(n);
    return rc;
  }
  APPEND(in->queries, in->n_queries, q);
  APPEND(db->nodes, db->n_nodes, n);
  return catch_up(n, in, q->head, &q->needs_replay, err);
}

/* FROM NEXMARK: replaces *s (the declared columns, possibly none) with the
 * source's schema, checked against the table the options name. */
static int nexmark_schema(const lm_stmt *st, lm_schema **s, lm_error *err) {
  lm_kv kv[64];
  int n = st->n_options < 64 ? st->n_options : 64;
  for (int i = 0; i < n; i++) {
    kv[i].key = st->options[i].key;
    kv[i].value = st->options[i].value;
  }
  lm_schema *full = NULL;
  int rc = lm_nexmark_source_schema(kv, n, *s, &full, err);
  lm_schema_release(*s);
  *s = full;
  if (rc && err && err->line == 0 && st->line) {
    lm_err_prefix(err, "%d:%d: source %s", st->line, st->column, st->name);
    err->line = st->line;
    err->column = st->column;
  }
  return rc;
}

/* Records column definition c's declared modifier (VARCHAR(n), CHAR(n),
 * TIMESTAMP(p): lm_typmod) on field i of s; none: nothing. (On OOM the
 * modifier is not kept: the column takes any length / precision.) */
static void set_typmod(lm_schema *s, int i, const lm_column_def *c) {
  lm_typmod m = {c->char_len, c->bpchar, c->tprec};
  if (c->type.id != LM_TYPE_UTF8)
    m.char_len = 0, m.bpchar = false;
  if (c->type.id != LM_TYPE_TIMESTAMP && c->type.id != LM_TYPE_TIME64)
    m.tprec = 0;
  if (m.char_len || m.bpchar || m.tprec)
    (void)lm_schema_set_typmod(s, i, m);
}

static int create_source(laminar_db *db, const lm_stmt *st, lm_error *err) {
  int taken = name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  bool gen = st->connector && !lm_strcasecmp(st->connector, "GENERATOR");
  bool nex = st->connector && !lm_strcasecmp(st->connector, "NEXMARK");
  if (st->connector && !gen && !nex && lm_strcasecmp(st->connector, "FILES"))
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->line, st->column,
        "unsupported connector (FILES, GENERATOR and NEXMARK are "
        "available)");
  int orc = lm_source_options_check(st, false, err); /* source_options.c */
  if (orc)
    return orc;
  lm_schema *s;
  /* `p AS PROCTIME()`: at most one, appended after the other columns */
  const lm_column_def *proc = NULL;
  for (int i = 0; i < st->n_columns; i++)
    if (st->columns[i].proctime) {
      if (proc)
        return lm_engine_pos_err(err, LM_ERR_BIND, st->columns[i].line,
                                 st->columns[i].column,
                                 "a source has at most one PROCTIME() column");
      proc = &st->columns[i];
    }
  int n_cols = st->n_columns - (proc != NULL);
  if (gen) {
    s = lm_generator_schema();
  } else {
    if (n_cols == 0 && !nex)
      return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column,
                               "a source needs a column list");
    s = lm_schema_new(n_cols);
    for (int i = 0, k = 0; s && i < st->n_columns; i++) {
      for (int j = 0; j < i; j++)
        if (!strcmp(st->columns[i].name, st->columns[j].name)) {
          lm_schema_release(s);
          char m[300];
          snprintf(m, sizeof m, "column '%s' is declared twice",
                   st->columns[i].name);
          return lm_engine_pos_err(err, LM_ERR_BIND, st->columns[i].line,
                                   st->columns[i].column, m);
        }
      if (!st->columns[i].proctime) {
        lm_schema_set_field(s, k, st->columns[i].name, st->columns[i].type,
                            !st->columns[i].not_null);
        set_typmod(s, k++, &st->columns[i]);
      }
    }
  }
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (nex) {
    int rc = nexmark_schema(st, &s, err);
    if (rc)
      return rc;
  }
  lm_schema *read_schema = NULL;
  if (proc) { /* the readers' schema, then the full one */
    char m[300];
    const char *clash = NULL;
    if (lm_schema_find(s, proc->name) >= 0)
      clash = "is also a column of the source";
    else if (lm_schema_find(s, "__weight") >= 0)
      clash = "cannot be a column of a changelog source (__weight)";
    if (clash) {
      snprintf(m, sizeof m, "PROCTIME() column '%s' %s", proc->name, clash);
      lm_schema_release(s);
      return lm_engine_pos_err(err, LM_ERR_BIND, proc->line, proc->column, m);
    }
    read_schema = s;
    s = lm_schema_new(read_schema->n_fields + 1);
    for (int i = 0; s && i < read_schema->n_fields; i++) {
      lm_schema_set_field(s, i, read_schema->fields[i].name,
                          read_schema->fields[i].type,
                          read_schema->fields[i].nullable);
      lm_typmod m = lm_schema_typmod(read_schema, i); /* VARCHAR(n)... */
      if (m.char_len || m.bpchar || m.tprec)
        (void)lm_schema_set_typmod(s, i, m);
    }
    /* nullable only so that an INSERT or push may leave it out: every row
     * gets the clock's time */
    if (s)
      lm_schema_set_field(s, read_schema->n_fields, proc->name,
                          lm_type_make(LM_TYPE_TIMESTAMP), true);
    if (!s) {
      lm_schema_release(read_schema);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    if (st->watermark_column &&
        !lm_strcasecmp(st->watermark_column, proc->name)) {
      lm_schema_release(s);
      lm_schema_release(read_schema);
      return lm_engine_pos_err(
          err, LM_ERR_BIND, st->wm_line, st->wm_column,
          "a PROCTIME() column takes no WATERMARK: processing-time windows "
          "close by the clock");
    }
  }
  int wm_col = -1;
  int64_t delay = 0;
  if (nex && !st->watermark_column &&
      (wm_col = lm_schema_find(s, "dateTime")) >= 0)
    delay = INT64_C(4000000); /* Flink's dateTime - INTERVAL '4' SECOND */
  if (st->watermark_column) {
    wm_col = lm_schema_find(s, st->watermark_column);
    char m[300];
    if (wm_col < 0) {
      int ci = -1; /* an unquoted name folds to lower case: dateTime */
      for (int i = 0; i < s->n_fields && ci < 0; i++)
        if (!lm_strcasecmp(s->fields[i].name, st->watermark_column))
          ci = i;
      if (ci >= 0)
        snprintf(m, sizeof m,
                 "WATERMARK column '%s' is not a column of '%s' (an unquoted "
                 "name folds to lower case: write \"%s\")",
                 st->watermark_column, st->name, s->fields[ci].name);
      else
        snprintf(m, sizeof m, "WATERMARK column '%s' is not a column of '%s'",
                 st->watermark_column, st->name);
      lm_schema_release(s);
      lm_schema_release(read_schema);
      return lm_engine_pos_err(err, LM_ERR_BIND, st->wm_line, st->wm_column, m);
    }
    if (s->fields[wm_col].type.id != LM_TYPE_TIMESTAMP) {
      snprintf(m, sizeof m, "WATERMARK column '%s' must be TIMESTAMP, not %s",
               st->watermark_column, lm_type_name(s->fields[wm_col].type));
      lm_schema_release(s);
      lm_schema_release(read_schema);
      return lm_engine_pos_err(err, LM_ERR_BIND, st->wm_line, st->wm_column, m);
    }
    const lm_expr *e = st->watermark_expr;
    if (e) {
      /* col - INTERVAL 'n' UNIT, or col alone */
      bool ok = false;
      if (e->kind == LM_EXPR_COLUMN &&
          !lm_strcasecmp(e->name, st->watermark_column))
        ok = true;
      else if (e->kind == LM_EXPR_BINARY && e->op == LM_OP_SUB &&
               e->args[0]->kind == LM_EXPR_COLUMN &&
               !lm_strcasecmp(e->args[0]->name, st->watermark_column) &&
               e->args[1]->kind == LM_EXPR_LITERAL &&
               e->args[1]->lit == LM_LIT_INTERVAL && e->args[1]->ival >= 0) {
        delay = e->args[1]->ival;
        ok = true;
      }
      if (!ok) {
        lm_schema_release(s);
        lm_schema_release(read_schema);
        return lm_engine_pos_err(
            err, LM_ERR_BIND, e->line, e->column,
            "WATERMARK expression must be <column> - INTERVAL "
            "'<n>' <unit>");
      }
    }
  }
  lm_node *n = calloc(1, sizeof *n);
  if (!n) {
    lm_schema_release(s);
    lm_schema_release(read_schema);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->kind = LM_NODE_SOURCE;
  n->name = lm_strdup(st->name);
  n->sql = lm_strdup(st->text ? st->text : "");
  n->schema = s;
  n->read_schema = read_schema;
  n->proctime_col1 = proc ? s->n_fields : 0;
  int wcol = lm_schema_find(s, "__weight");
  if (wcol >= 0) {
    /* a changelog source: rows carry their weight (+1 insert, -1 retract)
     * in a last BIGINT column __weight */
    if (wcol != s->n_fields - 1 || s->fields[wcol].type.id != LM_TYPE_INT64) {
      node_free(n);
      return lm_engine_pos_err(
          err, LM_ERR_BIND, st->line, st->column,
          "__weight must be the last column, BIGINT (it makes "
          "the source a changelog: +1 inserts, -1 retracts)");
    }
    s->fields[wcol].nullable = false;
    n->changelog = true;
    n->table_schema = lm_schema_new(wcol);
    for (int i = 0; n->table_schema && i < wcol; i++)
      lm_schema_set_field(n->table_schema, i, s->fields[i].name,
                          s->fields[i].type, s->fields[i].nullable);
    if (!n->table_schema) {
      node_free(n);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  } else {
    n->table_schema = lm_schema_retain(s);
  }
  n->wm = INT64_MIN;
  n->max_ts = INT64_MIN;
  n->wm_col = wm_col;
  n->wm_delay = delay;
  n->wm_cand = INT64_MIN;
  for (int i = 0; i < st->n_options; i++) {
    const char *k = st->options[i].key, *v = st->options[i].value;
    bool skew = !lm_strcasecmp(k, "watermark.max.skew.ms");
    if (!skew && lm_strcasecmp(k, "idle.timeout.ms"))
      continue;
    char *end = NULL;
    long long ms = v ? strtoll(v, &end, 10) : -1;
    if (!v || end == v || *end || ms <= 0 || ms > INT64_MAX / 1000) {
      char m[300];
      snprintf(m, sizeof m, "'%s' must be a positive number of milliseconds",
               k);
      node_free(n); /* owns s */
      return lm_engine_pos_err(err, LM_ERR_BIND, st->options[i].line,
                               st->options[i].column, m);
    }
    if (skew)
      n->wm_skew = (int64_t)ms * 1000;
    else
      n->idle_timeout = (int64_t)ms * 1000;
  }
  n->connector = st->connector ? lm_strdup(st->connector) : NULL;
  n->format = st->format ? lm_strdup(st->format) : NULL;
  if (st->n_options) {
    n->opts = calloc((size_t)st->n_options, sizeof(lm_kv));
    if (!n->opts) {
      node_free(n);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < st->n_options; i++) {
      n->opts[i].key = lm_strdup(st->options[i].key);
      n->opts[i].value = lm_strdup(st->options[i].value);
    }
    n->n_opts = st->n_options;
  }
  /* Check connector options now, so a bad path fails at CREATE time. */
  if (n->connector) {
    lm_source_reader *r = NULL;
    int rc = lm_engine_open_reader(n, &r, err);
    if (rc) {
      if (err && err->line == 0 && st->line) {
        lm_err_prefix(err, "%d:%d: source %s", st->line, st->column, st->name);
        err->line = st->line;
        err->column = st->column;
      }
      node_free(n);
      return rc;
    }
    r->free(r);
  }
  lm_node *dl = NULL; /* 'dead-letter' = 'name' (api/dead_letter.c) */
  int dlrc = lm_dead_letter_prepare(db, st, &dl, err);
  if (dlrc) {
    node_free(n);
    return dlrc;
  }
  if (dl)
    APPEND(db->nodes, db->n_nodes, dl);
  APPEND(db->nodes, db->n_nodes, n);
  return 0;
}

/* Gives an option error of CREATE SINK its place: the line:column of the
 * option the message names ('key'), else of the statement. Keeps the
 * SQLSTATE and DETAIL; errors that already have a place are left alone. */
static void sink_option_place(const lm_stmt *st, lm_error *err) {
  if (!err || err->line || err->code == LM_ERR_NOMEM)
    return;
  int line = st->line, col = st->column, best = 0;
  for (int i = 0; i < st->n_options; i++) {
    char q[200];
    snprintf(q, sizeof q, "'%s'", st->options[i].key);
    const char *at = strstr(err->msg, q);
    int score = !at ? 0 : at == err->msg ? 2 : 1; /* "'key': ..." first */
    if (score > best && st->options[i].line) {
      best = score;
      line = st->options[i].line;
      col = st->options[i].column;
    }
  }
  lm_error e = *err;
  lm_err_at(err, e.code, line, col, "%s", e.msg);
  memcpy(err->sqlstate, e.sqlstate, sizeof err->sqlstate);
  memcpy(err->detail, e.detail, sizeof err->detail);
}

static int create_sink(laminar_db *db, const lm_stmt *st, lm_error *err) {
  int taken = name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  lm_node *from =
      lm_engine_find_input(db, st->sink_from, st->line, st->column, err);
  if (!from)
    return err->code;
  lm_sink *s = calloc(1, sizeof *s);
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  s->name = lm_strdup(st->name);
  s->sql = lm_strdup(st->text ? st->text : "");
  s->from = from;
  s->connector = st->connector ? lm_strdup(st->connector) : NULL;
  s->format = st->format ? lm_strdup(st->format) : NULL;
  if (st->connector) {
    if (lm_strcasecmp(st->connector, "FILES")) {
      free(s->name);
      free(s->sql);
      free(s->connector);
      free(s->format);
      free(s);
      return lm_engine_pos_err(
          err, LM_ERR_BIND, st->line, st->column,
          "unsupported sink connector (FILES is available)");
    }
    lm_kv kv[32];
    int n = st->n_options > 32 ? 32 : st->n_options;
    for (int i = 0; i < n; i++) {
      kv[i].key = st->options[i].key;
      kv[i].value = st->options[i].value;
    }
    int rc = lm_file_sink_open(kv, n, st->format, from->schema, &s->file, err);
    if (rc)
      sink_option_place(st, err);
    if (!rc && (rc = lm_file_sink_tick(s->file, db->now_us, err))) {
      lm_error e2; /* the processing time its rollover interval starts at */
      lm_err_clear(&e2);
      lm_file_sink_close(s->file, &e2);
    }
    if (rc) {
      free(s->name);
      free(s->sql);
      free(s->connector);
      free(s->format);
      free(s);
      return rc;
    }
  }
  APPEND(from->sinks, from->n_sinks, s);
  APPEND(db->sinks, db->n_sinks, s);
  return 0;
}

static void sink_free(lm_sink *s, lm_error *err) {
  if (!s)
    return;
  if (s->file)
    lm_file_sink_close(s->file, err);
  free(s->name);
  free(s->sql);
  free(s->connector);
  free(s->format);
  free(s);
}

static int drop_sink(laminar_db *db, lm_sink *s, lm_error *err) {
  REMOVE(s->from->sinks, s->from->n_sinks, s);
  REMOVE(db->sinks, db->n_sinks, s);
  lm_error e2;
  lm_err_clear(&e2);
  sink_free(s, &e2);
  if (e2.code)
    return lm_err(err, e2.code, "%s", e2.msg);
  return 0;
}

/* The query whose late rows go to n (LATE DATA TO n), or NULL. */
static lm_query *late_sender(laminar_db *db, const lm_node *n) {
  for (int i = 0; n->late_target && i < db->n_nodes; i++) {
    lm_query *q = db->nodes[i]->query;
    if (q && q->late_to == n)
      return q;
  }
  return NULL;
}

/* Drops node n. Without cascade, anything depending on it (a query reading
 * it, a sink) is an error at the statement's line:column; with cascade
 * those are dropped first, depth first (`depth` bounds the recursion). A
 * query sending its late rows to n (LATE DATA TO n) is an error with or
 * without cascade: it is n's producer, not a dependent. */
static int drop_node(laminar_db *db, lm_node *n, bool cascade, int depth,
                     const lm_stmt *st, lm_error *err) {
  char m[400];
  if (depth > 10000)
    return lm_err(err, LM_ERR_LIMIT, "DROP CASCADE: dependency chain too deep");
  /* views that read n (api/view.c): refused, or dropped by CASCADE */
  int vrc =
      lm_view_drop_check(db, n->name, kind_name(n->kind), cascade, st, err);
  if (vrc)
    return vrc;
  lm_query *ls;
  if (!cascade && (n->n_queries || n->n_sinks)) {
    const char *dep =
        n->n_queries ? n->queries[0]->output->name : n->sinks[0]->name;
    snprintf(m, sizeof m,
             "cannot drop %s '%s': '%s' depends on it (use DROP ... CASCADE)",
             kind_name(n->kind), n->name, dep);
    return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
  }
  /* A query writing its late rows to n is upstream of n, not a dependent:
   * CASCADE (PostgreSQL: drop what depends on the object) does not drop
   * it, and n cannot go while it feeds n (docs/windows.md). */
  if ((ls = late_sender(db, n))) {
    snprintf(m, sizeof m,
             "cannot drop stream '%s': '%s' sends its late rows there "
             "(LATE DATA TO); drop '%s' first",
             n->name, ls->output->name, ls->output->name);
    return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
  }
  int rc;
  while (n->n_queries)
    if ((rc = drop_node(db, n->queries[0]->output, true, depth + 1, st, err)))
      return rc;
  while (n->n_sinks)
    if ((rc = drop_sink(db, n->sinks[0], err)))
      return rc;
  if (n->query && n->query->n_ins) /* every input, once per occurrence */
    for (int i = 0; i < n->query->n_ins; i++)
      REMOVE(n->query->ins[i].node->queries, n->query->ins[i].node->n_queries,
             n->query);
  else if (n->query)
    REMOVE(n->query->input->queries, n->query->input->n_queries, n->query);
  for (int i = 0; i < n->n_subs; i++)
    n->subs[i]->node = NULL;
  REMOVE(db->nodes, db->n_nodes, n);
  lm_view_forget_node(db, n->name);
  node_free(n);
  return 0;
}

static int drop(laminar_db *db, const lm_stmt *st, lm_error *err) {
  char m[400];
  if (st->object == LM_OBJ_INDEX)
    return lm_index_drop(db, st, err); /* api/table_index.c */
  if (st->object == LM_OBJ_SINK) {
    lm_sink *s = find_sink(db, st->name);
    if (!s) {
      if (st->if_exists)
        return 0;
      snprintf(m, sizeof m, "no sink named '%s'", st->name);
      return lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
    }
    return drop_sink(db, s, err);
  }
  lm_node_kind want = st->object == LM_OBJ_SOURCE   ? LM_NODE_SOURCE
                      : st->object == LM_OBJ_STREAM ? LM_NODE_STREAM
                      : st->object == LM_OBJ_TABLE  ? LM_NODE_TABLE
                                                    : LM_NODE_MVIEW;
  lm_node *n = lm_engine_find(db, st->name);
  if (!n || n->kind != want) {
    if (st->if_exists)
      return 0;
    if (n) { /* PostgreSQL's wrong_object_type, with its HINT */
      snprintf(m, sizeof m, "\"%.200s\" is not a %s", st->name,
               want == LM_NODE_MVIEW && st->plain_view ? "view"
                                                       : kind_name(want));
      lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
      lm_err_hint(err, "Use DROP %s to remove a %s.",
                  n->kind == LM_NODE_SOURCE   ? "SOURCE"
                  : n->kind == LM_NODE_STREAM ? "STREAM"
                  : n->kind == LM_NODE_TABLE  ? "TABLE"
                                              : "MATERIALIZED VIEW",
                  kind_name(n->kind));
      return lm_err_state(err, "42809");
    } else { /* PostgreSQL: table "x" does not exist (42P01) */
      snprintf(m, sizeof m, "%s \"%.200s\" does not exist",
               want == LM_NODE_MVIEW && st->plain_view ? "view"
                                                       : kind_name(want),
               st->name);
      lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
      return lm_err_state(err, "42P01");
    }
    return lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
  }
  return drop_node(db, n, st->cascade, 0, st, err);
}

/* DROP kind a, b, ...: every name is checked first (a missing one, or one
 * of another kind, fails the statement before anything is dropped, unless
 * IF EXISTS), then each is dropped in order. */
static int drop_list(laminar_db *db, const lm_stmt *st, lm_error *err) {
  if (!st->n_drop_more)
    return drop(db, st, err);
  lm_stmt one = *st;
  one.drop_more = NULL;
  one.n_drop_more = 0;
  lm_node_kind want = st->object == LM_OBJ_SOURCE   ? LM_NODE_SOURCE
                      : st->object == LM_OBJ_STREAM ? LM_NODE_STREAM
                      : st->object == LM_OBJ_TABLE  ? LM_NODE_TABLE
                                                    : LM_NODE_MVIEW;
  for (int i = 0; i <= st->n_drop_more && !st->if_exists; i++) {
    one.name = i ? st->drop_more[i - 1] : st->name;
    lm_node *n = lm_engine_find(db, one.name);
    bool found = st->object == LM_OBJ_INDEX  ? lm_index_exists(db, one.name)
                 : st->object == LM_OBJ_SINK ? find_sink(db, one.name) != NULL
                                             : n && n->kind == want;
    if (!found)
      return drop(db, &one, err); /* its error; drops nothing */
  }
  for (int i = 0; i <= st->n_drop_more; i++) {
    one.name = i ? st->drop_more[i - 1] : st->name;
    int rc = drop(db, &one, err);
    if (rc)
      return rc;
  }
  return 0;
}

/* -------------------------------------------------------------- INSERT */

/* Applies rows (the table's columns) to a table and emits the change. */
static int table_insert(laminar_db *db, lm_node *n, lm_batch *b,
                        lm_error *err) {
  lm_batch *change = NULL;
  int rc = lm_table_insert(n->table, n->name, b, &change, err);
  if (!rc && change)
    rc = node_emit(db, n, change, err);
  lm_batch_release(change);
  if (!rc)
    db->changes = b->num_rows;
  return rc;
}

/* Whether column c of s was declared with a modifier (VARCHAR(n), CHAR(n),
 * TIMESTAMP(p): lm_typmod), which an assignment applies with a cast. */
static bool has_typmod(const lm_schema *s, int c) {
  lm_typmod m = lm_schema_typmod(s, c);
  return m.char_len || m.bpchar || m.tprec;
}

/* Makes `cast` (a CAST to column c's type) PostgreSQL's assignment to a
 * column declared with a modifier: VARCHAR(n) / CHAR(n) 22001 past n
 * characters, CHAR padded, TIMESTAMP(p) / TIME(p) rounded (expr_eval.c). */
static void assign_typmod(lm_bexpr *cast, const lm_schema *s, int c) {
  lm_typmod m = lm_schema_typmod(s, c);
  if (s->fields[c].type.id == LM_TYPE_TIMESTAMP ||
      s->fields[c].type.id == LM_TYPE_TIME64)
    cast->tprec = m.tprec;
  if (s->fields[c].type.id == LM_TYPE_DECIMAL128)
    cast->tprec = -2; /* NUMERIC(p,s): Infinity is 22003 (expr_types.c) */
  if (s->fields[c].type.id == LM_TYPE_UTF8) {
    cast->tlen = m.char_len;
    cast->tbpchar = m.bpchar;
    cast->tassign = true;
  }
}

/* An assignment of x to an integer column: marks `cast` to round half away
 * from zero when x is numeric in PostgreSQL (lm_bexpr_numeric_origin). */
static void assign_int_rounding(lm_bexpr *cast, const lm_bexpr *x) {
  if (lm_type_is_integer(cast->type) && lm_bexpr_numeric_origin(x))
    cast->tassign = true;
}

/* INSERT INTO n [(cols)] SELECT ...: the query's rows, each column cast to
 * its target column's type, missing columns NULL. */
static int insert_select(laminar_db *db, const lm_stmt *st, lm_node *n,
                         lm_schema *s, const int *map, lm_batch **out,
                         lm_error *err) {
  char m[400];
  laminar_result *r = NULL;
  int rc = lm_engine_select(db, st->select, &r, err);
  if (rc)
    return rc;
  int nv = r->schema->n_fields;
  uint64_t numeric_cols = r->numeric_cols; /* (assign_int_rounding) */
  int want = st->insert_columns ? st->n_insert_columns : s->n_fields;
  int pmap[256]; /* map, with a left-out PROCTIME() column (the last) */
  if (!st->insert_columns && n->kind == LM_NODE_SOURCE &&
      n->proctime_col1 == want && nv == want - 1 && want <= 256) {
    memcpy(pmap, map, sizeof *map * (size_t)want);
    pmap[--want] = -1;
    map = pmap;
  }
  if (nv != want) {
    snprintf(m, sizeof m,
             "INSERT has %d target columns but the SELECT gives %d", want, nv);
    laminar_result_free(r);
    return lm_engine_pos_err(err, LM_ERR_BIND, st->select->line,
                             st->select->column, m);
  }
  lm_batch *in = NULL;
  rc = lm_batch_concat(r->schema, r->batches, r->n_batches, &in, err);
  laminar_result_free(r);
  if (rc)
    return rc;
  int nc = s->n_fields;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  if (!cols) {
    lm_batch_release(in);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < nc && !rc; c++) {
    if (map[c] < 0) {
      if (!(cols[c] = lm_array_new_null(s->fields[c].type, in->num_rows)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      continue;
    }
    lm_bexpr col = {0}, cast = {0};
    lm_bexpr *arg = &col;
    col.kind = LM_BX_COLUMN;
    col.col = map[c];
    col.type = in->columns[map[c]]->type;
    col.line = st->select->line;
    col.column = st->select->column;
    cast = col;
    cast.kind = LM_BX_CAST;
    cast.type = s->fields[c].type;
    cast.tz = lm_tz_session(); /* an assignment cast is CAST's (lm_tz.h) */
    cast.args = &arg;
    cast.n_args = 1;
    assign_typmod(&cast, s, c);
    if (lm_type_is_integer(cast.type) && map[c] < 64 &&
        (numeric_cols >> map[c] & 1)) /* numeric in PostgreSQL: half away */
      cast.tassign = true;
    bool same = lm_type_eq(col.type, cast.type) && !has_typmod(s, c);
    rc = lm_eval(same ? &col : &cast, in, &cols[c], err);
  }
  /* (a table checks its own: lm_table_insert, with PostgreSQL's DETAIL) */
  for (int c = 0; c < nc && !rc && n->kind != LM_NODE_TABLE; c++)
    if (!s->fields[c].nullable && cols[c]->null_count) {
      snprintf(m, sizeof m, "NULL value in NOT NULL column '%s'",
               s->fields[c].name);
      rc = lm_engine_pos_err(err, LM_ERR_EXEC, st->line, st->column, m);
    }
  int64_t rows = in->num_rows;
  lm_batch_release(in);
  if (!rc && !(*out = lm_batch_new(lm_schema_retain(s), rows, cols)))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc && !*out)
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
  free(cols);
  return rc;
}

static int insert(laminar_db *db, const lm_stmt *st, lm_error *err) {
  lm_node *n = lm_engine_find(db, st->name);
  char m[400];
  if (!n) { /* PostgreSQL's words, at the name */
    snprintf(m, sizeof m, "relation \"%.200s\" does not exist", st->name);
    lm_engine_pos_err(err, LM_ERR_NOTFOUND,
                      st->name_line ? st->name_line : st->line,
                      st->name_line ? st->name_column : st->column, m);
    return lm_err_state(err, "42P01");
  }
  if (n->kind != LM_NODE_SOURCE && n->kind != LM_NODE_TABLE) {
    snprintf(m, sizeof m, "no source or table named '%s'", st->name);
    return lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
  }
  bool table = n->kind == LM_NODE_TABLE;
  lm_schema *s = table ? n->table_schema : n->schema;
  int nc = s->n_fields;
  int map[256];
  int n_vals = st->n_values;
  if (nc > 256)
    return lm_err(err, LM_ERR_LIMIT, "too many columns");
  for (int c = 0; c < nc; c++)
    map[c] = -1;
  if (st->insert_columns) {
    for (int j = 0; j < st->n_insert_columns; j++) {
      int c = lm_schema_find_ref(
          s, st->insert_columns[j],
          st->insert_col_quoted && st->insert_col_quoted[j], NULL);
      if (c < 0) { /* PostgreSQL's message, at the column's name */
        snprintf(m, sizeof m, "column \"%s\" of relation \"%s\" does not exist",
                 st->insert_columns[j], n->name);
        lm_engine_pos_err(
            err, LM_ERR_BIND,
            st->insert_col_lines ? st->insert_col_lines[j] : st->line,
            st->insert_col_lines ? st->insert_col_cols[j] : st->column, m);
        return lm_err_state(err, "42703");
      }
      if (map[c] >= 0) { /* PostgreSQL's 42701, at the second one */
        snprintf(m, sizeof m, "column \"%s\" specified more than once",
                 st->insert_columns[j]);
        lm_engine_pos_err(
            err, LM_ERR_BIND,
            st->insert_col_lines ? st->insert_col_lines[j] : st->line,
            st->insert_col_lines ? st->insert_col_cols[j] : st->column, m);
        return lm_err_state(err, "42701");
      }
      map[c] = j;
    }
    if (!st->select && n_vals != st->n_insert_columns)
      return lm_engine_pos_err(
          err, LM_ERR_BIND, st->line, st->column,
          "INSERT has a different number of values than columns");
  } else {
    for (int c = 0; c < nc; c++)
      map[c] = c;
    /* a source's PROCTIME() column (its last) may be left out: the clock
     * fills it (docs/windows.md) */
    if (!st->select && !table && n->proctime_col1 == nc && n_vals == nc - 1)
      map[nc - 1] = -1;
    else if (!st->select && table && n_vals < nc)
      /* PostgreSQL: the trailing columns left out are NULL */
      for (int c = n_vals; c < nc; c++)
        map[c] = -1;
    else if (!st->select && table && n_vals > nc) {
      lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column,
                        "INSERT has more expressions than target columns");
      return lm_err_state(err, "42601");
    } else if (!st->select && n_vals != nc) {
      snprintf(m, sizeof m,
               "INSERT has %d values per row but '%s' has %d "
               "columns",
               n_vals, n->name, nc);
      return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
    }
  }
  if (st->select) {
    lm_batch *b = NULL;
    int rc = insert_select(db, st, n, s, map, &b, err);
    if (!rc)
      rc = table ? table_insert(db, n, b, err) : lm_engine_push(db, n, b, err);
    if (rc && table && err && err->line == 0 && st->line) { /* its place */
      err->line = st->line;
      err->column = st->column;
      lm_err_prefix(err, "%d:%d", st->line, st->column);
    }
    if (!rc && !table)
      db->changes = b->num_rows;
    lm_batch_release(b);
    return rc;
  }
  lm_batch_builder bb;
  int null_line = 0, null_col = 0; /* the first NULL for a NOT NULL column */
  if (lm_batch_builder_init(&bb, s, st->n_rows))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_arena arena;
  lm_arena_init(&arena, 4096);
  lm_schema *empty = lm_schema_new(0);
  lm_batch *one = empty ? lm_batch_new(lm_schema_retain(empty), 1, NULL) : NULL;
  int rc = one ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int r = 0; r < st->n_rows && !rc; r++) {
    for (int c = 0; c < nc && !rc; c++) {
      if (map[c] < 0) {
        if (!s->fields[c].nullable && table && !null_line) {
          null_line = st->line; /* the table reports it, with its DETAIL */
          null_col = st->column;
        } else if (!s->fields[c].nullable && !table) {
          snprintf(m, sizeof m, "column '%s' is NOT NULL and has no value",
                   s->fields[c].name);
          rc = lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
          break;
        }
        lm_builder_append_null(&bb.cols[c]);
        continue;
      }
      const lm_expr *e = st->rows[r][map[c]];
      lm_bexpr *b = NULL;
      if ((rc = lm_bind_scalar(e, NULL, &arena, &b, err)))
        break;
      lm_bexpr *cast = b;
      if (!lm_type_eq(b->type, s->fields[c].type) || has_typmod(s, c)) {
        cast = lm_arena_alloc(&arena, sizeof *cast);
        lm_bexpr **args = lm_arena_alloc(&arena, sizeof(lm_bexpr *));
        if (!cast || !args) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          break;
        }
        cast->kind = LM_BX_CAST;
        cast->type = s->fields[c].type;
        cast->tz = lm_tz_session(); /* as CAST: TIMESTAMPTZ (lm_tz.h) */
        cast->line = e->line;
        cast->column = e->column;
        cast->args = args;
        cast->args[0] = b;
        cast->n_args = 1;
        assign_typmod(cast, s, c);
        assign_int_rounding(cast, b);
      }
      lm_array *a = NULL;
      if ((rc = lm_eval(cast, one, &a, err)))
        break;
      if (lm_array_is_null(a, 0) || a->type.id == LM_TYPE_NULL) {
        if (!s->fields[c].nullable && table && !null_line) {
          null_line = e->line; /* the table reports it, with its DETAIL */
          null_col = e->column;
        } else if (!s->fields[c].nullable && !table) {
          lm_array_release(a);
          snprintf(m, sizeof m, "NULL value in NOT NULL column '%s'",
                   s->fields[c].name);
          rc = lm_engine_pos_err(err, LM_ERR_BIND, e->line, e->column, m);
          break;
        }
        lm_builder_append_null(&bb.cols[c]);
      } else {
        lm_builder_append_from(&bb.cols[c], a, 0);
      }
      lm_array_release(a);
    }
  }
  lm_batch_release(one);
  lm_schema_release(empty);
  lm_arena_free(&arena);
  lm_batch *b = NULL;
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &b, err);
  lm_batch_builder_free(&bb);
  if (!rc) {
    rc = table ? table_insert(db, n, b, err) : lm_engine_push(db, n, b, err);
    /* a constraint violation (not-null, unique) names its place: the NULL
     * value's, else the statement's */
    bool nn = rc && err && null_line && !strcmp(err->sqlstate, "23502");
    if (rc && table && err && err->line == 0 && (nn || st->line)) {
      err->line = nn ? null_line : st->line;
      err->column = nn ? null_col : st->column;
      lm_err_prefix(err, "%d:%d", err->line, err->column);
    }
  }
  if (!rc && !table)
    db->changes = b->num_rows;
  if (rc && table && err && strstr(err->msg, "violates not-null constraint"))
    lm_err_state(err, "23502");
  lm_batch_release(b);
  return rc;
}

/* ------------------------------------------------------ DELETE, UPDATE */

static int delete_update(laminar_db *db, const lm_stmt *st, lm_error *err) {
  char m[400];
  lm_node *n = lm_engine_find(db, st->name);
  if (!n || n->kind != LM_NODE_TABLE) {
    if (n)
      snprintf(m, sizeof m,
               "'%s' is a %s: only tables (CREATE TABLE) can be %s", n->name,
               kind_name(n->kind),
               st->kind == LM_STMT_DELETE ? "deleted from" : "updated");
    else { /* PostgreSQL's words, at the name */
      snprintf(m, sizeof m, "relation \"%.200s\" does not exist", st->name);
      lm_engine_pos_err(err, LM_ERR_NOTFOUND,
                        st->name_line ? st->name_line : st->line,
                        st->name_line ? st->name_column : st->column, m);
      return lm_err_state(err, "42P01");
    }
    return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
  }
  lm_schema *s = n->table_schema;
  int nc = s->n_fields;
  lm_arena arena;
  lm_arena_init(&arena, 4096);
  lm_bexpr *pred = NULL;
  int rc = 0;
  /* subqueries in WHERE / SET are planned and run within (select_subq.c) */
  lm_subq_env *subq = lm_engine_subq_enter(db);
  if (st->where && !(rc = lm_bind_scalar(st->where, s, &arena, &pred, err)) &&
      pred->type.id != LM_TYPE_BOOL && pred->type.id != LM_TYPE_NULL)
    rc = lm_err_at(err, LM_ERR_BIND, st->where->line, st->where->column,
                   "argument of WHERE must be type boolean, not type %s",
                   lm_type_name(pred->type));
  lm_bexpr **exprs = NULL;
  if (!rc && st->kind == LM_STMT_UPDATE) {
    exprs = lm_arena_alloc(&arena, sizeof *exprs * (size_t)(nc + 1));
    if (!exprs)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int c = 0; !rc && c < nc; c++) {
      lm_bexpr *col = lm_arena_alloc(&arena, sizeof *col);
      if (!col) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      memset(col, 0, sizeof *col);
      col->kind = LM_BX_COLUMN;
      col->col = c;
      col->type = s->fields[c].type;
      exprs[c] = col;
    }
    for (int i = 0; !rc && i < st->n_set; i++) {
      int c = lm_schema_find_ref(s, st->set_columns[i],
                                 st->set_quoted && st->set_quoted[i], NULL);
      if (c < 0) {
        lm_err_at(err, LM_ERR_BIND, st->set_lines[i], st->set_cols[i],
                  "column \"%s\" of relation \"%s\" does not exist",
                  st->set_columns[i], n->name);
        rc = lm_err_state(err, "42703");
        break;
      }
      for (int j = 0; j < i; j++)
        if (lm_schema_find_ref(s, st->set_columns[j],
                               st->set_quoted && st->set_quoted[j], NULL) == c)
          rc = lm_err_at(err, LM_ERR_BIND, st->set_lines[i], st->set_cols[i],
                         "multiple assignments to same column \"%s\"",
                         st->set_columns[i]);
      lm_bexpr *b = NULL;
      if (rc || (rc = lm_bind_scalar(st->set_exprs[i], s, &arena, &b, err)))
        break;
      if (!lm_type_eq(b->type, s->fields[c].type) || has_typmod(s, c)) {
        lm_bexpr *cast = lm_arena_alloc(&arena, sizeof *cast);
        lm_bexpr **args = lm_arena_alloc(&arena, sizeof(lm_bexpr *));
        if (!cast || !args) {
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
          break;
        }
        memset(cast, 0, sizeof *cast);
        cast->kind = LM_BX_CAST;
        cast->type = s->fields[c].type;
        cast->tz = lm_tz_session(); /* as CAST: TIMESTAMPTZ (lm_tz.h) */
        cast->line = st->set_exprs[i]->line;
        cast->column = st->set_exprs[i]->column;
        cast->args = args;
        args[0] = b;
        cast->n_args = 1;
        assign_typmod(cast, s, c);
        assign_int_rounding(cast, b);
        b = cast;
      }
      exprs[c] = b;
    }
  }
  lm_batch *change = NULL;
  int64_t count = 0;
  if (!rc)
    rc = st->kind == LM_STMT_DELETE
             ? lm_table_delete(n->table, pred, &change, &count, err)
             : lm_table_update(n->table, n->name, pred, exprs, &change, &count,
                               err);
  lm_engine_subq_leave(subq);
  if (rc && err && err->line == 0 && st->line) {
    lm_err_prefix(err, "%d:%d", st->line, st->column);
    err->line = st->line;
    err->column = st->column;
  }
  if (!rc && change)
    rc = node_emit(db, n, change, err);
  lm_batch_release(change);
  lm_arena_free(&arena);
  if (!rc)
    db->changes = count;
  return rc;
}

/* ---------------------------------------------------------- CREATE TABLE */

static int create_table(laminar_db *db, const lm_stmt *st, lm_error *err) {
  char m[400];
  int taken = name_taken(db, st, err);
  if (taken)
    return taken < 0 ? 0 : taken;
  if (st->n_columns == 0)
    return lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column,
                             "a table needs a column list");
  if (st->watermark_column)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->wm_line, st->wm_column,
        "a table has no WATERMARK (declare a SOURCE for an "
        "event-time stream)");
  if (st->connector && lm_strcasecmp(st->connector, "FILES"))
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->line, st->column,
        "a table can be filled FROM FILES only (or by INSERT)");
  lm_schema *s = lm_schema_new(st->n_columns);
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < st->n_columns; i++) {
    const lm_column_def *c = &st->columns[i];
    for (int j = 0; j < i; j++)
      if (!strcmp(c->name, st->columns[j].name)) {
        lm_schema_release(s);
        snprintf(m, sizeof m, "column '%s' is declared twice", c->name);
        return lm_engine_pos_err(err, LM_ERR_BIND, c->line, c->column, m);
      }
    if (c->proctime) {
      lm_schema_release(s);
      return lm_engine_pos_err(err, LM_ERR_BIND, c->line, c->column,
                               "a table has no PROCTIME() column (a source "
                               "can: CREATE SOURCE)");
    }
    if (!lm_strcasecmp(c->name, "__weight")) {
      lm_schema_release(s);
      return lm_engine_pos_err(
          err, LM_ERR_BIND, c->line, c->column,
          "__weight is reserved: a table's changes carry it");
    }
    /* INTERVAL: PostgreSQL's {months, days, µs} (docs/types.md) */
    lm_type ct = c->type.id == LM_TYPE_INTERVAL
                     ? lm_type_make(LM_TYPE_INTERVAL_MDN)
                     : c->type;
    lm_schema_set_field(s, i, c->name, ct, !c->not_null);
    set_typmod(s, i, c);
  }
  int pk[64];
  int n_pk = st->n_primary_key;
  if (n_pk > 64) {
    lm_schema_release(s);
    return lm_engine_pos_err(err, LM_ERR_LIMIT, st->pk_line, st->pk_column,
                             "a primary key has at most 64 columns");
  }
  for (int k = 0; k < n_pk; k++) {
    pk[k] = lm_schema_find_ref(s, st->primary_key[k],
                               st->pk_quoted && st->pk_quoted[k], NULL);
    if (pk[k] < 0) {
      snprintf(m, sizeof m, "column \"%s\" named in key does not exist",
               st->primary_key[k]);
      lm_schema_release(s);
      return lm_engine_pos_err(err, LM_ERR_BIND, st->pk_line, st->pk_column, m);
    }
    for (int j = 0; j < k; j++)
      if (pk[j] == pk[k]) {
        snprintf(m, sizeof m, "column \"%s\" appears twice in primary key",
                 st->primary_key[k]);
        lm_schema_release(s);
        return lm_engine_pos_err(err, LM_ERR_BIND, st->pk_line, st->pk_column,
                                 m);
      }
    s->fields[pk[k]].nullable = false; /* as PostgreSQL: key columns NOT NULL */
  }
  lm_node *n = calloc(1, sizeof *n);
  if (!n) {
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->kind = LM_NODE_TABLE;
  n->name = lm_strdup(st->name);
  n->sql = lm_strdup(st->text ? st->text : "");
  n->table_schema = s;
  n->schema = lm_engine_with_weight(s);
  n->changelog = true;
  n->wm = INT64_MIN;
  n->max_ts = INT64_MIN;
  n->wm_cand = INT64_MIN;
  n->wm_col = -1;
  n->n_pk = n_pk;
  n->pk_cols = malloc(sizeof(int) * (size_t)(n_pk + 1));
  n->table = lm_table_new(s, pk, n_pk);
  if (!n->name || !n->sql || !n->schema || !n->pk_cols || !n->table) {
    node_free(n);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < n_pk; k++)
    n->pk_cols[k] = pk[k];
  /* UNIQUE constraints (api/table_index.c) */
  int crc = lm_table_add_constraints(db, n, st, err);
  if (crc) {
    node_free(n);
    return crc;
  }
  /* an option FILES tables do not take (api/source_options.c) */
  if ((crc = lm_source_options_check(st, true, err))) {
    node_free(n);
    return crc;
  }
  /* FROM FILES: read once, now, as one INSERT per batch */
  if (st->connector) {
    lm_kv kv[64];
    int no = st->n_options < 64 ? st->n_options : 64;
    for (int i = 0; i < no; i++) {
      kv[i].key = st->options[i].key;
      kv[i].value = st->options[i].value;
    }
    const char *mode = lm_kv_get(kv, no, "mode");
    lm_source_reader *r = NULL;
    int rc = mode && lm_strcasecmp(mode, "once")
                 ? lm_err(err, LM_ERR_BIND,
                          "a table reads its files once ('mode' = 'once')")
                 : lm_files_reader_new(s, kv, no, st->format, &r, err);
    while (!rc) {
      lm_batch *b = NULL;
      bool eof = false;
      if ((rc = r->poll(r, &b, &eof, err)))
        break;
      if (b) {
        lm_batch *ch = NULL;
        rc = lm_table_insert(n->table, n->name, b, &ch, err);
        int64_t first, bad = rc ? lm_table_err_row(n->table) : -1;
        const char *path =
            bad >= 0 && r->batch_origin ? r->batch_origin(r, &first) : NULL;
        if (path) /* the file and its data row, as other load errors */
          lm_err_prefix(err, "%s: row %lld", path, (long long)(first + bad));
        lm_batch_release(ch);
        lm_batch_release(b);
        continue;
      }
      if (eof || r->unbounded)
        break;
    }
    if (!rc) /* rows that did not decode: a notice (api/dead_letter.c) */
      rc = lm_dead_letter_table(db, st, r, err);
    if (r)
      r->free(r);
    if (rc) {
      if (err && err->line == 0 && st->line) {
        lm_err_prefix(err, "%d:%d: table %s", st->line, st->column, st->name);
        err->line = st->line;
        err->column = st->column;
      }
      node_free(n);
      return rc;
    }
  }
  APPEND(db->nodes, db->n_nodes, n);
  return 0;
}

/* ---------------------------------------------------------- SHOW, DESC */

static int show(laminar_db *db, const lm_stmt *st, laminar_result **res,
                lm_error *err) {
  const char *cells[4 * 1024];
  int rows = 0, cols;
  const char *names[4];
  if (st->object == LM_OBJ_SINK) {
    cols = 4;
    names[0] = "sink_name", names[1] = "input", names[2] = "connector",
    names[3] = "format";
    for (int i = 0; i < db->n_sinks && rows < 1024; i++, rows++) {
      lm_sink *s = db->sinks[i];
      cells[rows * 4] = s->name;
      cells[rows * 4 + 1] = s->from->name;
      cells[rows * 4 + 2] = s->connector;
      cells[rows * 4 + 3] = s->format;
    }
  } else if (st->object == LM_OBJ_SOURCE) {
    cols = 4;
    names[0] = "source_name", names[1] = "connector", names[2] = "format",
    names[3] = "watermark_column";
    for (int i = 0; i < db->n_nodes && rows < 1024; i++) {
      lm_node *n = db->nodes[i];
      if (n->kind != LM_NODE_SOURCE)
        continue;
      cells[rows * 4] = n->name;
      cells[rows * 4 + 1] = n->connector;
      cells[rows * 4 + 2] = n->format;
      cells[rows * 4 + 3] =
          n->wm_col >= 0 ? n->schema->fields[n->wm_col].name : NULL;
      rows++;
    }
  } else if (st->object == LM_OBJ_QUERY) {
    /* the seed's (query_id, sql, active), plus the error of a failed query
     * (docs/failures.md); a query is named after its stream or view */
    cols = 4;
    names[0] = "query_id", names[1] = "sql", names[2] = "active",
    names[3] = "error";
    for (int i = 0; i < db->n_nodes && rows < 1024; i++) {
      lm_node *n = db->nodes[i];
      if (!n->query)
        continue;
      cells[rows * 4] = n->name;
      cells[rows * 4 + 1] = n->sql;
      cells[rows * 4 + 2] = n->query->failed ? "false" : "true";
      cells[rows * 4 + 3] = n->query->failed ? n->query->fail_msg : NULL;
      rows++;
    }
  } else {
    lm_node_kind k = st->object == LM_OBJ_STREAM  ? LM_NODE_STREAM
                     : st->object == LM_OBJ_TABLE ? LM_NODE_TABLE
                                                  : LM_NODE_MVIEW;
    /* views: the seed's (view_name, sql, state), state running or failed */
    cols = k == LM_NODE_MVIEW ? 3 : 2;
    names[0] = k == LM_NODE_STREAM  ? "stream_name"
               : k == LM_NODE_TABLE ? "table_name"
                                    : "view_name";
    names[1] = "sql";
    names[2] = "state";
    for (int i = 0; i < db->n_nodes && rows < 1024; i++) {
      lm_node *n = db->nodes[i];
      if (n->kind != k)
        continue;
      cells[rows * cols] = n->name;
      cells[rows * cols + 1] = n->sql;
      if (cols == 3)
        cells[rows * cols + 2] =
            n->query && n->query->failed ? "failed" : "running";
      rows++;
    }
  }
  *res = text_result(names, cols, cells, rows);
  return *res ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int describe(laminar_db *db, const lm_stmt *st, laminar_result **res,
                    lm_error *err) {
  lm_node *n = lm_engine_find(db, st->name);
  lm_schema *s = n ? n->table_schema : NULL;
  if (!n) {
    lm_sink *k = find_sink(db, st->name);
    if (k)
      s = k->from->schema;
  }
  if (!s) {
    char m[300];
    snprintf(m, sizeof m, "no source, stream, view or sink named '%s'",
             st->name);
    return lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
  }
  const char *names[3] = {"column_name", "data_type", "nullable"};
  int rows = s->n_fields > 1024 ? 1024 : s->n_fields;
  const char **cells = calloc((size_t)rows * 3 + 1, sizeof(char *));
  if (!cells)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  /* the declared types, with their modifiers: VARCHAR(3), DECIMAL(10,2) */
  char(*types)[48] = calloc((size_t)rows + 1, sizeof *types);
  if (!types) {
    free(cells);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < rows; i++) {
    lm_buf tb = {0};
    cells[i * 3] = s->fields[i].name;
    if (s->fields[i].type.id == LM_TYPE_INTERVAL_MDN) {
      cells[i * 3 + 1] = "INTERVAL"; /* a table's (docs/types.md) */
    } else if (lm_schema_format_type(&tb, s, i) == 0 &&
               tb.len < sizeof types[i]) {
      memcpy(types[i], tb.data, tb.len);
      cells[i * 3 + 1] = types[i];
    } else {
      cells[i * 3 + 1] = lm_type_name(s->fields[i].type);
    }
    lm_buf_free(&tb);
    cells[i * 3 + 2] = s->fields[i].nullable ? "true" : "false";
  }
  *res = text_result(names, 3, cells, rows);
  free(cells);
  free(types);
  return *res ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------ dispatch */

int lm_engine_exec(laminar_db *db, const lm_stmt *st, laminar_result **res,
                   lm_error *err) {
  int rc;
  db->stmt_line = st->line; /* failure notices name the statement */
  db->stmt_col = st->column;
  /* now() and the like are refused in continuous queries (datefn_bind.c) */
  lm_bind_continuous(st->kind == LM_STMT_CREATE_STREAM ||
                     st->kind == LM_STMT_CREATE_MVIEW ||
                     st->kind == LM_STMT_CREATE_SINK);
  if (!db->view_busy) { /* views expanded when read: api/view.c */
    bool handled = false;
    rc = lm_view_exec(db, st, res, err, &handled);
    if (handled)
      return rc;
  }
  switch (st->kind) {
  case LM_STMT_CREATE_SOURCE:
    return create_source(db, st, err);
  case LM_STMT_CREATE_STREAM:
    return create_query_node(db, st, LM_NODE_STREAM, err);
  case LM_STMT_CREATE_MVIEW:
    return create_query_node(db, st, LM_NODE_MVIEW, err);
  case LM_STMT_CREATE_SINK:
    return create_sink(db, st, err);
  case LM_STMT_INSERT:
    if ((rc = lm_engine_drain(db, err)))
      return rc;
    return insert(db, st, err);
  case LM_STMT_CREATE_TABLE:
    return create_table(db, st, err);
  case LM_STMT_DELETE:
  case LM_STMT_UPDATE:
    if ((rc = lm_engine_drain(db, err)))
      return rc;
    return delete_update(db, st, err);
  case LM_STMT_DROP:
    return drop_list(db, st, err);
  case LM_STMT_SHOW:
    return show(db, st, res, err);
  case LM_STMT_SET:
  case LM_STMT_SHOW_VAR:
    return lm_engine_setting(db, st, res, err); /* api/settings.c */
  case LM_STMT_DESCRIBE:
    return describe(db, st, res, err);
  case LM_STMT_EXPLAIN:
    return lm_explain(db, st, res, err);
  case LM_STMT_CREATE_INDEX: /* api/table_index.c */
    if ((rc = lm_engine_drain(db, err)))
      return rc;
    return lm_index_create(db, st, err);
  case LM_STMT_REINDEX:
    return lm_index_reindex(db, st, err);
  case LM_STMT_SELECT:
    if ((rc = lm_engine_drain(db, err)))
      return rc;
    return lm_engine_select(db, st->select, res, err);
  }
  return lm_err(err, LM_ERR_GENERIC, "unknown statement");
}

void lm_engine_free(laminar_db *db) {
  lm_view_free_all(db);
  /* dependents first: queries reference their inputs */
  for (int i = db->n_nodes - 1; i >= 0; i--)
    node_free(db->nodes[i]);
  free(db->nodes);
  free(db->sinks);
  lm_buf_free(&db->notices);
  db->nodes = NULL;
  db->sinks = NULL;
  db->n_nodes = db->n_sinks = 0;
}

int lm_engine_close_sinks(laminar_db *db, lm_error *err) {
  int first = 0;
  for (int i = 0; i < db->n_sinks; i++) {
    lm_error e;
    lm_err_clear(&e);
    sink_free(db->sinks[i], &e);
    if (e.code && !first) {
      first = e.code;
      if (err)
        *err = e;
    }
  }
  db->n_sinks = 0;
  for (int i = 0; i < db->n_nodes; i++)
    db->nodes[i]->n_sinks = 0;
  return first;
}

/* ------------------------------------ shared with api/union_stream.c */

int lm_engine_node_emit(laminar_db *db, lm_node *n, lm_batch *b,
                        lm_error *err) {
  return node_emit(db, n, b, err);
}
int lm_engine_catch_up(lm_node *n, lm_node *in, lm_operator *h, bool *replay,
                       lm_error *err) {
  return catch_up(n, in, h, replay, err);
}
int lm_engine_plan_changelog_input(lm_plan *plan, const lm_node *in,
                                   const lm_select *sel, lm_error *err) {
  return plan_changelog_input(plan, in, sel, err);
}
int lm_engine_new_query_node(laminar_db *db, const lm_stmt *st,
                             lm_node_kind kind, lm_plan *plan, bool changelog,
                             int in_time_col, lm_node **out_n, lm_query **out_q,
                             lm_error *err) {
  return new_query_node(db, st, kind, plan, changelog, in_time_col, out_n,
                        out_q, err);
}
int lm_engine_select_check(const lm_select *sel, lm_error *err) {
  return continuous_select_check(sel, err);
}
const char *lm_engine_emit_check(const lm_select *sel, const lm_plan *plan,
                                 bool windowed) {
  return emit_check(sel, plan, windowed);
}
bool lm_engine_result_changelog(const lm_plan *plan, bool windowed) {
  return result_changelog(plan, windowed);
}
int lm_engine_name_taken(laminar_db *db, const lm_stmt *st, lm_error *err) {
  return name_taken(db, st, err);
}
void lm_engine_free_node(lm_node *n) {
  node_free(n);
}
