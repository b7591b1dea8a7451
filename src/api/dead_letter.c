/* Bad rows of FILES sources (docs/bad_rows.md): the dead-letter stream a
 * source names with 'dead-letter' = 'name', the per-source counter and the
 * notice that sums up a statement's bad rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "connectors/lm_connectors.h"

/* Whether s is the dead-letter schema (names case-insensitively, types). */
static bool dl_schema_ok(const lm_schema *s) {
  lm_schema *d = lm_dead_letter_schema();
  bool ok = d && s && s->n_fields == d->n_fields;
  for (int i = 0; ok && i < d->n_fields; i++)
    ok = !lm_strcasecmp(s->fields[i].name, d->fields[i].name) &&
         lm_type_eq(s->fields[i].type, d->fields[i].type);
  lm_schema_release(d);
  return ok;
}

static const lm_option *dl_option(const lm_stmt *st) {
  for (int i = 0; i < st->n_options; i++)
    if (!lm_strcasecmp(st->options[i].key, "dead-letter"))
      return &st->options[i];
  return NULL;
}

int lm_dead_letter_prepare(laminar_db *db, const lm_stmt *st, lm_node **out,
                           lm_error *err) {
  *out = NULL;
  const lm_option *o = dl_option(st);
  if (!o)
    return 0;
  char m[600];
  if (!st->connector || lm_strcasecmp(st->connector, "FILES")) {
    snprintf(m, sizeof m, "'dead-letter' is an option of FILES sources");
    return lm_engine_pos_err(err, LM_ERR_BIND, o->line, o->column, m);
  }
  if (!o->value || !o->value[0] || !lm_strcasecmp(o->value, st->name)) {
    snprintf(m, sizeof m,
             "'dead-letter' must name another source (the stream of the bad "
             "rows)");
    return lm_engine_pos_err(err, LM_ERR_BIND, o->line, o->column, m);
  }
  lm_node *t = lm_engine_find(db, o->value);
  if (t) {
    if (t->kind != LM_NODE_SOURCE || t->connector || t->changelog ||
        !dl_schema_ok(t->table_schema) || t->proctime_col1) {
      snprintf(m, sizeof m,
               "'dead-letter' names '%.200s', which is not a source of the "
               "columns (source VARCHAR, file VARCHAR, line BIGINT, col "
               "BIGINT, byte_offset BIGINT, error VARCHAR, raw VARCHAR) fed "
               "by INSERT; leave the name free and it is created",
               o->value);
      return lm_engine_pos_err(err, LM_ERR_BIND, o->line, o->column, m);
    }
    return 0;
  }
  lm_node *n = calloc(1, sizeof *n);
  lm_schema *s = lm_dead_letter_schema();
  if (!n || !s) {
    free(n);
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->kind = LM_NODE_SOURCE;
  n->name = lm_strdup(o->value);
  n->sql = lm_asprintf(
      "CREATE SOURCE %s (source VARCHAR NOT NULL, file VARCHAR NOT NULL, line "
      "BIGINT NOT NULL, col BIGINT NOT NULL, byte_offset BIGINT NOT NULL, "
      "error VARCHAR, raw VARCHAR) -- the dead letters of %s",
      o->value, st->name);
  n->schema = s;
  n->table_schema = lm_schema_retain(s);
  n->wm = INT64_MIN;
  n->max_ts = INT64_MIN;
  n->wm_col = -1;
  n->wm_cand = INT64_MIN;
  if (!n->name || !n->sql) {
    lm_engine_free_node(n);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  *out = n;
  return 0;
}

/* "file:line:col: error" of dead letter 0 of b into out. */
static void first_place(const lm_batch *b, char *out, size_t n) {
  lm_value f, l, c, e;
  lm_array_get_value(b->columns[1], 0, &f);
  lm_array_get_value(b->columns[2], 0, &l);
  lm_array_get_value(b->columns[3], 0, &c);
  lm_array_get_value(b->columns[5], 0, &e);
  snprintf(out, n, "%.*s:%lld:%lld: %.*s", f.is_null ? 0 : (int)f.v.s.len,
           f.is_null ? "" : f.v.s.p, (long long)l.v.i, (long long)c.v.i,
           e.is_null ? 0 : (int)LM_MIN(e.v.s.len, 300),
           e.is_null ? "" : e.v.s.p);
}

int lm_dead_letter_table(laminar_db *db, const lm_stmt *st, lm_source_reader *r,
                         lm_error *err) {
  if (!r || !r->bad_rows)
    return 0;
  lm_batch *b = NULL;
  int64_t total = 0;
  int rc = r->bad_rows(r, &b, &total, err);
  if (rc || !b)
    return rc;
  char first[400];
  first_place(b, first, sizeof first);
  if (st->line > 0)
    lm_buf_printf(&db->notices, "%d:%d: ", st->line, st->column);
  lm_buf_printf(&db->notices, "table %s: %lld bad %s skipped (first: %s)\n",
                st->name, (long long)total, total == 1 ? "row" : "rows", first);
  lm_batch_release(b);
  return 0;
}

int lm_dead_letter_take(laminar_db *db, lm_node *s, lm_error *err) {
  lm_source_reader *r = s->reader;
  if (!r || !r->bad_rows)
    return 0;
  lm_batch *b = NULL;
  int64_t total = 0;
  int rc = r->bad_rows(r, &b, &total, err);
  if (rc || !b)
    return rc;
  if (s->bad_pending == 0 && b->num_rows > 0)
    first_place(b, s->bad_first, sizeof s->bad_first);
  s->bad_rows += b->num_rows;
  s->bad_pending += b->num_rows;
  const char *dl = lm_kv_get(s->opts, s->n_opts, "dead-letter");
  lm_node *t = dl ? lm_engine_find(db, dl) : NULL;
  if (t && t->kind == LM_NODE_SOURCE && !t->connector && !t->changelog &&
      !t->proctime_col1 && dl_schema_ok(t->schema))
    rc = lm_engine_push(db, t, b, err);
  lm_batch_release(b);
  return rc;
}

void lm_dead_letter_notices(laminar_db *db) {
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *s = db->nodes[i];
    if (s->kind != LM_NODE_SOURCE || !s->bad_pending)
      continue;
    const char *dl = lm_kv_get(s->opts, s->n_opts, "dead-letter");
    lm_node *t = dl ? lm_engine_find(db, dl) : NULL;
    if (db->stmt_line > 0)
      lm_buf_printf(&db->notices, "%d:%d: ", db->stmt_line, db->stmt_col);
    lm_buf_printf(
        &db->notices, "source %s: %lld bad %s skipped%s%s%s (first: %s)\n",
        s->name, (long long)s->bad_pending,
        s->bad_pending == 1 ? "row" : "rows",
        t ? ", sent to dead-letter stream " : "", t ? t->name : "",
        t ? "" : " ('dead-letter' = 'name' keeps them)", s->bad_first);
    s->bad_pending = 0;
  }
}
