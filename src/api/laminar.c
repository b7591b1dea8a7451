/* The public C API (include/laminar.h) over the engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/engine.h"
#include "columnar/lm_cdata.h"
#include "columnar/lm_conform.h"

_Static_assert(sizeof(laminar_error) == sizeof(lm_error),
               "laminar_error must mirror lm_error");

/* The caller's error struct, or a local one when they passed NULL: the
 * engine always has somewhere to write (and read back) the code. */
#define ERR(e)                                                                 \
  lm_error local_err_;                                                         \
  lm_error *err = (e) ? (lm_error *)(e) : &local_err_;                         \
  lm_err_clear(err)

int laminar_open(laminar_db **out, laminar_error *e) {
  ERR(e);
  *out = calloc(1, sizeof **out);
  if (!*out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return 0;
}

int laminar_close(laminar_db *db, laminar_error *e) {
  ERR(e);
  if (!db)
    return 0;
  int rc = lm_engine_close_sinks(db, err);
  lm_engine_free(db);
  free(db);
  return rc;
}

/* Shifts a parse/bind position from statement-relative to script-relative
 * is not needed: the parser reports positions in the whole text. */
int laminar_execute(laminar_db *db, const char *sql, laminar_result **result,
                    laminar_error *e) {
  ERR(e);
  if (result)
    *result = NULL;
  if (!db || !sql)
    return lm_err(err, LM_ERR_INVALID, "NULL argument");
  lm_buf_reset(&db->notices);
  lm_sql_script *script = NULL;
  int rc = lm_sql_parse(sql, strlen(sql), &script, err);
  if (rc) {
    lm_err_default_state(err); /* every error has a SQLSTATE */
    return rc;
  }
  /* the session zone of each statement (SET TIME ZONE changes db->tz) */
  const lm_tz *saved_tz = lm_tz_session_set(db->tz);
  for (int i = 0; i < script->n_stmts && !rc; i++) {
    laminar_result *r = NULL;
    lm_tz_session_set(db->tz);
    lm_dt_statement_begin(0); /* 'now': the statement's start (temporal.h) */
    lm_dt_statement_begin(lm_dt_now_us());
    rc = lm_engine_exec(db, script->stmts[i], &r, err);
    lm_dt_statement_begin(0);
    if (r) {
      if (result) {
        laminar_result_free(*result);
        *result = r;
      } else
        laminar_result_free(r);
    }
  }
  lm_sql_script_free(script);
  if (!rc)
    rc = lm_engine_flush_sinks(db, err);
  lm_tz_session_set(saved_tz);
  if (rc)
    lm_err_default_state(err); /* bind_pgerr.c: the SQLSTATE it lacks */
  return rc;
}

const char *laminar_notices(const laminar_db *db) {
  return db && db->notices.len ? db->notices.data : "";
}

int64_t laminar_changes(const laminar_db *db) {
  return db ? db->changes : 0;
}

int laminar_query_state(laminar_db *db, const char *name, int *state,
                        const char **error, laminar_error *e) {
  ERR(e);
  if (!db || !name)
    return lm_err(err, LM_ERR_INVALID,
                  "laminar_query_state: NULL database or name");
  lm_node *n = lm_engine_find_api(db, name);
  if (!n || !n->query)
    return lm_err(err, LM_ERR_NOTFOUND,
                  "no stream or materialized view named '%s'", name);
  bool failed = n->query->failed;
  if (state)
    *state = failed ? LAMINAR_QUERY_FAILED : LAMINAR_QUERY_RUNNING;
  if (error)
    *error = failed ? n->query->fail_msg : NULL;
  return 0;
}

int64_t laminar_query_failures(const laminar_db *db) {
  return db ? db->query_failures : 0;
}

int laminar_source_bad_rows(laminar_db *db, const char *name, int64_t *count,
                            laminar_error *e) {
  ERR(e);
  if (!db || !name || !count)
    return lm_err(err, LM_ERR_INVALID,
                  "laminar_source_bad_rows: NULL database, name or count");
  lm_node *n = lm_engine_find_api(db, name);
  if (!n || n->kind != LM_NODE_SOURCE)
    return lm_err(err, LM_ERR_NOTFOUND, "no source named '%s'", name);
  *count = n->bad_rows;
  return 0;
}

int64_t laminar_result_num_rows(const laminar_result *r) {
  return r ? r->rows : 0;
}
int laminar_result_num_columns(const laminar_result *r) {
  return r ? r->schema->n_fields : 0;
}
const char *laminar_result_column_name(const laminar_result *r, int col) {
  if (!r || col < 0 || col >= r->schema->n_fields)
    return NULL;
  return r->schema->fields[col].name;
}
const char *laminar_result_column_type(const laminar_result *r, int col) {
  if (!r || col < 0 || col >= r->schema->n_fields)
    return NULL;
  return lm_type_name(r->schema->fields[col].type);
}

const char *laminar_result_value_text(laminar_result *r, int64_t row, int col) {
  if (!r || row < 0 || row >= r->rows || col < 0 || col >= r->schema->n_fields)
    return NULL;
  int lo = 0, hi = r->n_batches - 1;
  while (lo < hi) { /* last batch whose start <= row */
    int mid = (lo + hi + 1) / 2;
    if (r->batch_start[mid] <= row)
      lo = mid;
    else
      hi = mid - 1;
  }
  const lm_array *a = r->batches[lo]->columns[col];
  int64_t i = row - r->batch_start[lo];
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i))
    return NULL;
  lm_buf_reset(&r->text);
  const lm_tz *saved_tz = lm_tz_session_set(r->tz); /* TIMESTAMPTZ text */
  int frc = lm_array_format_value(&r->text, a, i, "");
  lm_tz_session_set(saved_tz);
  if (frc != 0)
    return NULL;
  return r->text.data ? r->text.data : "";
}

int laminar_result_num_batches(const laminar_result *r) {
  return r ? r->n_batches : 0;
}

int laminar_result_export_batch(const laminar_result *r, int i,
                                struct ArrowArray *out_array,
                                struct ArrowSchema *out_schema,
                                laminar_error *e) {
  ERR(e);
  if (!r || i < 0 || i >= r->n_batches)
    return lm_err(err, LM_ERR_INVALID, "batch index out of range");
  return lm_cdata_export_batch(r->batches[i], out_array, out_schema, err);
}

void laminar_result_free(laminar_result *r) {
  if (!r)
    return;
  for (int i = 0; i < r->n_batches; i++)
    lm_batch_release(r->batches[i]);
  free(r->batches);
  free(r->batch_start);
  lm_schema_release(r->schema);
  lm_buf_free(&r->text);
  free(r);
}

/* Reorders/casts an imported batch to the source's columns by name. */
static int conform(lm_node *src, lm_batch *in, lm_batch **out, lm_error *err) {
  lm_schema *s = src->schema;
  bool chars = false; /* a VARCHAR(n) / CHAR(n) column: lengths checked */
  for (int c = 0; c < s->n_fields; c++) {
    lm_typmod m = lm_schema_typmod(s, c);
    chars = chars || m.char_len || m.bpchar;
  }
  if (in->schema == s && !chars) { /* imported as the source's columns */
    *out = lm_batch_retain(in);
    return 0;
  }
  lm_array **cols = calloc((size_t)s->n_fields + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = 0;
  for (int c = 0; c < s->n_fields && !rc; c++) {
    int k = lm_schema_find(in->schema, s->fields[c].name);
    if (k < 0) {
      if (!s->fields[c].nullable)
        rc = lm_err(err, LM_ERR_BIND,
                    "pushed batch lacks NOT NULL column '%s' of source '%s'",
                    s->fields[c].name, src->name);
      else if (!(cols[c] = lm_array_new_null(s->fields[c].type, in->num_rows)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      continue;
    }
    lm_array *a = in->columns[k];
    /* Dictionaries decode, Arrow-only types convert (lm_conform.h); the
     * same type passes as is (no error context to format per push) */
    char ctx[512] = "";
    if (!lm_type_eq(a->type, s->fields[c].type))
      snprintf(ctx, sizeof ctx, "column '%s' of source '%s'", s->fields[c].name,
               src->name);
    rc = lm_conform_array(a, s->fields[c].type, ctx, &cols[c], err);
    if (rc == LM_ERR_BIND) {
      rc = lm_err(err, LM_ERR_BIND,
                  "column '%s' of source '%s' is %s, the pushed batch has %s",
                  s->fields[c].name, src->name, lm_type_name(s->fields[c].type),
                  lm_type_name(a->type));
      continue;
    }
    if (rc)
      continue;
    if (!s->fields[c].nullable && cols[c]->null_count > 0) {
      rc = lm_err(err, LM_ERR_BIND, "NULL in NOT NULL column '%s' of '%s'",
                  s->fields[c].name, src->name);
      continue;
    }
    lm_typmod m = lm_schema_typmod(s, c);
    if (m.char_len || m.bpchar) { /* as an INSERT: 22001, CHAR(n) pads */
      lm_array *t = NULL;
      snprintf(ctx, sizeof ctx, "column '%s' of source '%s'", s->fields[c].name,
               src->name);
      if (!(rc = lm_conform_chars(cols[c], m, ctx, 1, &t, err))) {
        lm_array_release(cols[c]);
        cols[c] = t;
      }
    }
  }
  if (rc) {
    for (int c = 0; c < s->n_fields; c++)
      lm_array_release(cols[c]);
    free(cols);
    return rc;
  }
  *out = lm_batch_new(lm_schema_retain(s), in->num_rows, cols);
  free(cols);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int push_arrow(laminar_db *db, const char *source,
                      struct ArrowArray *array,
                      const struct ArrowSchema *schema, laminar_error *e) {
  ERR(e);
  lm_node *n = db && source ? lm_engine_find_api(db, source) : NULL;
  if (!n || n->kind != LM_NODE_SOURCE) {
    if (array && array->release)
      array->release(array);
    return lm_err(err, LM_ERR_NOTFOUND, "no source named '%s'",
                  source ? source : "(null)");
  }
  if (n->ended) { /* after the +infinity watermark every row is late */
    if (array && array->release)
      array->release(array);
    return lm_err(err, LM_ERR_INVALID,
                  "source '%s' has ended (laminar_end_source): no more rows "
                  "can be pushed",
                  source);
  }
  lm_batch *in = NULL, *b = NULL;
  int rc = lm_cdata_import_batch_like(array, schema, n->schema, &in, err);
  if (rc)
    return rc;
  rc = conform(n, in, &b, err);
  lm_batch_release(in);
  if (rc)
    return rc;
  rc = lm_engine_drain(db, err);
  if (!rc)
    rc = lm_engine_push(db, n, b, err);
  lm_batch_release(b);
  if (!rc)
    rc = lm_engine_flush_sinks(db, err);
  return rc;
}

/* An API call that moves data (push, watermark, end, time, run): its
 * notices replace the last call's (query failures, docs/failures.md), and
 * they carry no statement position. */
static void api_call(laminar_db *db) {
  if (!db)
    return;
  lm_buf_reset(&db->notices);
  db->stmt_line = db->stmt_col = 0;
}

int laminar_push_arrow(laminar_db *db, const char *source,
                       struct ArrowArray *array,
                       const struct ArrowSchema *schema, laminar_error *e) {
  api_call(db);
  const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL); /* sinks' text */
  int rc = push_arrow(db, source, array, schema, e);
  lm_tz_session_set(z);
  return rc;
}

int laminar_push_stream(laminar_db *db, const char *source,
                        struct ArrowArrayStream *stream, laminar_error *e) {
  ERR(e);
  if (!stream || !stream->release)
    return lm_err(err, LM_ERR_INVALID, "NULL or released stream");
  api_call(db); /* the notices of every batch */
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = 0, src = stream->get_schema(stream, &schema);
  if (src) {
    const char *m = stream->get_last_error(stream);
    rc = lm_err(err, LM_ERR_IO, "stream get_schema failed (%d): %s", src,
                m ? m : "no message");
  }
  while (!rc) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int nrc = stream->get_next(stream, &a);
    if (nrc) {
      const char *m = stream->get_last_error(stream);
      rc = lm_err(err, LM_ERR_IO, "stream get_next failed (%d): %s", nrc,
                  m ? m : "no message");
      break;
    }
    if (!a.release)
      break; /* end of stream */
    const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL);
    rc = push_arrow(db, source, &a, &schema, (laminar_error *)err);
    lm_tz_session_set(z);
  }
  if (schema.release)
    schema.release(&schema);
  stream->release(stream);
  return rc;
}

static int advance_watermark(laminar_db *db, const char *source, int64_t ts_us,
                             laminar_error *e) {
  ERR(e);
  lm_node *n = db && source ? lm_engine_find_api(db, source) : NULL;
  if (!n || n->kind != LM_NODE_SOURCE)
    return lm_err(err, LM_ERR_NOTFOUND, "no source named '%s'",
                  source ? source : "(null)");
  int rc = lm_engine_watermark(db, n, ts_us, err);
  if (!rc)
    rc = lm_engine_flush_sinks(db, err);
  return rc;
}

int laminar_advance_watermark(laminar_db *db, const char *source, int64_t ts_us,
                              laminar_error *e) {
  api_call(db);
  const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL); /* sinks' text */
  int rc = advance_watermark(db, source, ts_us, e);
  lm_tz_session_set(z);
  return rc;
}

static int end_source(laminar_db *db, const char *source, laminar_error *e) {
  ERR(e);
  lm_node *n = db && source ? lm_engine_find_api(db, source) : NULL;
  if (!n || n->kind != LM_NODE_SOURCE)
    return lm_err(err, LM_ERR_NOTFOUND, "no source named '%s'",
                  source ? source : "(null)");
  n->ended = true;
  int rc = lm_engine_watermark(db, n, INT64_MAX, err);
  if (!rc)
    rc = lm_engine_flush_sinks(db, err);
  return rc;
}

int laminar_end_source(laminar_db *db, const char *source, laminar_error *e) {
  api_call(db);
  const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL); /* sinks' text */
  int rc = end_source(db, source, e);
  lm_tz_session_set(z);
  return rc;
}

static int advance_time(laminar_db *db, int64_t delta_us, laminar_error *e) {
  ERR(e);
  if (!db || delta_us < 0)
    return lm_err(err, LM_ERR_INVALID, "time can only move forward");
  int rc = lm_engine_drain(db, err);
  if (!rc)
    rc = lm_engine_tick(
        db,
        delta_us > INT64_MAX - db->now_us ? INT64_MAX : db->now_us + delta_us,
        err);
  if (!rc)
    rc = lm_engine_flush_sinks(db, err);
  return rc;
}

int laminar_advance_time(laminar_db *db, int64_t delta_us, laminar_error *e) {
  api_call(db);
  const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL); /* sinks' text */
  int rc = advance_time(db, delta_us, e);
  lm_tz_session_set(z);
  return rc;
}

static int run(laminar_db *db, laminar_error *e) {
  ERR(e);
  int rc;
  int64_t last = lm_now_us();
  for (;;) {
    if ((rc = lm_engine_drain(db, err)))
      return rc;
    if (db->interrupted || !lm_engine_has_unbounded(db))
      break;
    /* unbounded: processing time follows the wall clock */
    int64_t now = lm_now_us();
    if ((rc = lm_engine_tick(db, db->now_us + (now - last), err)))
      return rc;
    last = now;
    if ((rc = lm_engine_flush_sinks(db, err)))
      return rc;
    int64_t w = lm_engine_wait_us(db);
    if (w < 1000)
      w = 1000;
    if (w > 100000)
      w = 100000;
    struct timespec ts = {0, (long)w * 1000};
    nanosleep(&ts, NULL);
  }
  return lm_engine_flush_sinks(db, err);
}

int laminar_run(laminar_db *db, laminar_error *e) {
  api_call(db);
  const lm_tz *z = lm_tz_session_set(db ? db->tz : NULL); /* sinks' text */
  int rc = run(db, e);
  lm_tz_session_set(z);
  return rc;
}

void laminar_set_operator_timing(bool on) {
  lm_op_timing_set(on);
}

void laminar_interrupt(laminar_db *db) {
  if (db)
    db->interrupted = 1;
}

int laminar_subscribe(laminar_db *db, const char *name,
                      laminar_subscription **out, laminar_error *e) {
  ERR(e);
  *out = NULL;
  lm_node *n = db && name ? lm_engine_find_api(db, name) : NULL;
  if (!n)
    return lm_err(err, LM_ERR_NOTFOUND, "no source, stream or view named '%s'",
                  name ? name : "(null)");
  laminar_subscription *s = calloc(1, sizeof *s);
  void *subs = realloc(n->subs, sizeof(*n->subs) * (size_t)(n->n_subs + 1));
  if (!s || !subs) {
    free(s);
    if (subs)
      n->subs = subs;
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->subs = subs;
  n->subs[n->n_subs++] = s;
  s->db = db;
  s->node = n;
  *out = s;
  return 0;
}

int laminar_subscription_poll(laminar_subscription *sub,
                              struct ArrowArray *out_array,
                              struct ArrowSchema *out_schema, bool *has_batch,
                              laminar_error *e) {
  ERR(e);
  *has_batch = false;
  if (!sub || sub->n == 0)
    return 0;
  lm_batch *b = sub->q[0];
  memmove(sub->q, sub->q + 1, sizeof(lm_batch *) * (size_t)(sub->n - 1));
  sub->n--;
  int rc = lm_cdata_export_batch(b, out_array, out_schema, err);
  lm_batch_release(b);
  if (!rc)
    *has_batch = true;
  return rc;
}

int laminar_subscription_drain(laminar_subscription *sub, laminar_result **out,
                               laminar_error *e) {
  ERR(e);
  *out = NULL;
  if (!sub || sub->n == 0)
    return 0;
  lm_schema *s = lm_schema_retain(sub->q[0]->schema);
  lm_batch **arr = malloc(sizeof(lm_batch *) * (size_t)sub->n);
  if (!arr) {
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  memcpy(arr, sub->q, sizeof(lm_batch *) * (size_t)sub->n);
  const lm_tz *saved_tz = lm_tz_session_set(sub->db ? sub->db->tz : NULL);
  *out = lm_result_new(s, arr, sub->n);
  lm_tz_session_set(saved_tz);
  if (!*out) {
    lm_schema_release(s);
    free(arr);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  sub->n = 0;
  return 0;
}

void laminar_unsubscribe(laminar_subscription *sub) {
  if (!sub)
    return;
  lm_node *n = sub->node;
  if (n) {
    for (int i = 0; i < n->n_subs; i++)
      if (n->subs[i] == sub) {
        memmove(&n->subs[i], &n->subs[i + 1],
                sizeof(*n->subs) * (size_t)(n->n_subs - i - 1));
        n->n_subs--;
        break;
      }
  }
  for (int i = 0; i < sub->n; i++)
    lm_batch_release(sub->q[i]);
  free(sub->q);
  free(sub);
}

/* ------------------------------------------ ArrowArrayStream export */

typedef struct batch_stream {
  lm_schema *schema;
  lm_batch **batches;
  int n, next;
  char last_error[sizeof(((lm_error *)0)->msg)];
} batch_stream;

static int bs_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  batch_stream *b = st->private_data;
  lm_error e;
  lm_err_clear(&e);
  if (lm_cdata_export_schema(b->schema, out, &e)) {
    snprintf(b->last_error, sizeof b->last_error, "%s", e.msg);
    return 12; /* ENOMEM */
  }
  return 0;
}

static int bs_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  batch_stream *b = st->private_data;
  if (b->next >= b->n) {
    memset(out, 0, sizeof *out); /* release == NULL: end of stream */
    return 0;
  }
  struct ArrowSchema sch;
  lm_error e;
  lm_err_clear(&e);
  if (lm_cdata_export_batch(b->batches[b->next], out, &sch, &e)) {
    snprintf(b->last_error, sizeof b->last_error, "%s", e.msg);
    return 12;
  }
  sch.release(&sch);
  b->next++;
  return 0;
}

static const char *bs_last_error(struct ArrowArrayStream *st) {
  batch_stream *b = st->private_data;
  return b->last_error[0] ? b->last_error : NULL;
}

static void bs_release(struct ArrowArrayStream *st) {
  batch_stream *b = st->private_data;
  for (int i = 0; i < b->n; i++)
    lm_batch_release(b->batches[i]);
  free(b->batches);
  lm_schema_release(b->schema);
  free(b);
  st->release = NULL;
}

/* Takes over one reference of each batch and of the schema. */
static int make_stream(lm_schema *schema, lm_batch **batches, int n,
                       struct ArrowArrayStream *out, lm_error *err) {
  batch_stream *b = calloc(1, sizeof *b);
  if (!b) {
    for (int i = 0; i < n; i++)
      lm_batch_release(batches[i]);
    free(batches);
    lm_schema_release(schema);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  b->schema = schema;
  b->batches = batches;
  b->n = n;
  out->get_schema = bs_get_schema;
  out->get_next = bs_get_next;
  out->get_last_error = bs_last_error;
  out->release = bs_release;
  out->private_data = b;
  return 0;
}

int laminar_result_stream(const laminar_result *r, struct ArrowArrayStream *out,
                          laminar_error *e) {
  ERR(e);
  if (!r || !out)
    return lm_err(err, LM_ERR_INVALID, "NULL argument");
  lm_batch **copy = malloc(sizeof(lm_batch *) * (size_t)(r->n_batches + 1));
  if (!copy)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < r->n_batches; i++)
    copy[i] = lm_batch_retain(r->batches[i]);
  return make_stream(lm_schema_retain(r->schema), copy, r->n_batches, out, err);
}

int laminar_subscription_stream(laminar_subscription *sub,
                                struct ArrowArrayStream *out,
                                laminar_error *e) {
  ERR(e);
  if (!sub || !out)
    return lm_err(err, LM_ERR_INVALID, "NULL argument");
  if (!sub->node && sub->n == 0)
    return lm_err(err, LM_ERR_NOTFOUND, "the subscribed object was dropped");
  lm_schema *s = sub->n ? sub->q[0]->schema : sub->node->schema;
  lm_batch **taken = sub->q;
  int n = sub->n;
  sub->q = NULL;
  sub->n = sub->cap = 0;
  return make_stream(lm_schema_retain(s), taken, n, out, err);
}
