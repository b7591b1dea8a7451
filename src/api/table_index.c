/* Secondary indexes of tables: UNIQUE constraints (CREATE TABLE), CREATE
 * [UNIQUE] INDEX, DROP INDEX and REINDEX (docs/tables.md, "Unique
 * constraints and indexes"). The row store keeps them up to date
 * (src/api/table.c); this file holds the index structure, the checks'
 * building blocks and the catalog statements. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/table_internal.h"

int lm_tix_pg_text(lm_buf *out, const lm_array *a, int64_t r) {
  size_t at = out->len;
  int rc = lm_array_format_value(out, a, r, "null");
  if (rc || lm_array_is_null(a, r))
    return rc;
  if (a->type.id == LM_TYPE_TIMESTAMP && out->len > at + 10 &&
      out->data[at + 10] == 'T')
    out->data[at + 10] = ' '; /* PostgreSQL's timestamp text: a space */
  if (a->type.id == LM_TYPE_TIMESTAMP || a->type.id == LM_TYPE_TIME64) {
    /* and the fraction without its trailing zeros */
    size_t end = out->len, tail = 0;
    if (end - at > 3 && !memcmp(out->data + end - 3, " BC", 3))
      tail = 3;
    size_t e = end - tail;
    if (memchr(out->data + at, '.', e - at) &&
        !memchr(out->data + at, '+', e - at)) { /* (a TIMESTAMPTZ: done) */
      while (out->data[e - 1] == '0')
        e--;
      memmove(out->data + e, out->data + end - tail, tail);
      out->len = e + tail;
    }
  }
  return 0;
}

/* PostgreSQL's NAMEDATALEN - 1: the longest generated name */
#define PG_NAME_MAX 63

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------ structure */

lm_tindex *lm_tix_new(const char *name, const lm_schema *s, const int *cols,
                      const bool *desc, int n, bool unique,
                      bool nulls_not_distinct, bool constraint,
                      int64_t cap_rows) {
  lm_tindex *ix = calloc(1, sizeof *ix);
  if (!ix)
    return NULL;
  ix->name = lm_strdup(name);
  ix->unique = unique;
  ix->constraint = constraint;
  ix->nulls_not_distinct = nulls_not_distinct;
  ix->n_cols = n;
  ix->cols = malloc(sizeof(int) * (size_t)n);
  ix->desc = calloc((size_t)n, sizeof(bool));
  ix->types = malloc(sizeof(lm_type) * (size_t)n);
  if (!ix->name || !ix->cols || !ix->desc || !ix->types)
    goto fail;
  for (int k = 0; k < n; k++) {
    ix->cols[k] = cols[k];
    ix->desc[k] = desc ? desc[k] : false;
    ix->types[k] = s->fields[cols[k]].type;
  }
  if (!(ix->map = lm_aggtable_new(n, ix->types, 0, NULL)))
    goto fail;
  if (lm_tix_grow_rows(ix, cap_rows))
    goto fail;
  return ix;
fail:
  lm_tix_free(ix);
  return NULL;
}

void lm_tix_free(lm_tindex *ix) {
  if (!ix)
    return;
  if (ix->map)
    lm_aggtable_free(ix->map);
  free(ix->name);
  free(ix->cols);
  free(ix->desc);
  free(ix->types);
  free(ix->head);
  free(ix->mark);
  free(ix->hold);
  free(ix->gid);
  free(ix->next);
  free(ix->prev);
  free(ix);
}

int lm_tix_grow_rows(lm_tindex *ix, int64_t cap) {
  if (cap <= ix->cap_rows)
    return 0;
  uint32_t *g = realloc(ix->gid, sizeof(uint32_t) * (size_t)cap);
  if (!g)
    return -1;
  ix->gid = g;
  int32_t *nx = realloc(ix->next, sizeof(int32_t) * (size_t)cap);
  if (!nx)
    return -1;
  ix->next = nx;
  int32_t *pv = realloc(ix->prev, sizeof(int32_t) * (size_t)cap);
  if (!pv)
    return -1;
  ix->prev = pv;
  for (int64_t i = ix->cap_rows; i < cap; i++) {
    ix->gid[i] = LM_TIX_NOKEY;
    ix->next[i] = ix->prev[i] = -1;
  }
  ix->cap_rows = cap;
  return 0;
}

/* Makes room for gids [0, groups of the map). */
static int grow_gids(lm_tindex *ix) {
  int64_t need = lm_aggtable_groups(ix->map);
  if (need <= ix->cap_gid)
    return 0;
  int64_t c = ix->cap_gid ? ix->cap_gid : 64;
  while (c < need)
    c *= 2;
  int32_t *h = realloc(ix->head, sizeof(int32_t) * (size_t)c);
  if (!h)
    return -1;
  ix->head = h;
  uint32_t *m = realloc(ix->mark, sizeof(uint32_t) * (size_t)c);
  if (!m)
    return -1;
  ix->mark = m;
  int64_t *hd = realloc(ix->hold, sizeof(int64_t) * (size_t)c);
  if (!hd)
    return -1;
  ix->hold = hd;
  for (int64_t i = ix->cap_gid; i < c; i++) {
    ix->head[i] = -1;
    ix->mark[i] = 0;
    ix->hold[i] = -1;
  }
  ix->cap_gid = c;
  return 0;
}

int lm_tix_keys(lm_tindex *ix, lm_batch *b, uint32_t *g, lm_error *err) {
  int64_t n = b->num_rows;
  if (n == 0)
    return 0;
  lm_array *keys[64];
  for (int k = 0; k < ix->n_cols && k < 64; k++)
    keys[k] = b->columns[ix->cols[k]];
  int rc = lm_aggtable_lookup(ix->map, keys, NULL, n, g, err);
  if (rc)
    return rc;
  if (grow_gids(ix))
    return nomem(err);
  if (ix->nulls_not_distinct)
    return 0;
  for (int k = 0; k < ix->n_cols; k++) {
    if (!keys[k]->null_count && keys[k]->type.id != LM_TYPE_NULL)
      continue;
    for (int64_t r = 0; r < n; r++)
      if (lm_array_is_null(keys[k], r) || keys[k]->type.id == LM_TYPE_NULL)
        g[r] = LM_TIX_NOKEY;
  }
  return 0;
}

void lm_tix_link(lm_tindex *ix, int64_t id, uint32_t g) {
  ix->gid[id] = g;
  ix->prev[id] = ix->next[id] = -1;
  if (g == LM_TIX_NOKEY)
    return;
  int32_t h = ix->head[g];
  ix->next[id] = h;
  if (h >= 0)
    ix->prev[h] = (int32_t)id;
  ix->head[g] = (int32_t)id;
}

void lm_tix_unlink(lm_tindex *ix, int64_t id) {
  uint32_t g = ix->gid[id];
  if (g == LM_TIX_NOKEY)
    return;
  int32_t p = ix->prev[id], nx = ix->next[id];
  if (p >= 0)
    ix->next[p] = nx;
  else if (ix->head[g] == id)
    ix->head[g] = nx;
  if (nx >= 0)
    ix->prev[nx] = p;
  ix->gid[id] = LM_TIX_NOKEY;
  ix->prev[id] = ix->next[id] = -1;
}

void lm_tix_begin(lm_tindex *ix) {
  if (++ix->epoch == 0) {
    memset(ix->mark, 0, sizeof(uint32_t) * (size_t)ix->cap_gid);
    ix->epoch = 1;
  }
}

int64_t lm_tix_holder(const lm_tindex *ix, uint32_t g) {
  return ix->mark[g] == ix->epoch ? ix->hold[g] : ix->head[g];
}

void lm_tix_hold(lm_tindex *ix, uint32_t g, int64_t holder) {
  ix->mark[g] = ix->epoch;
  ix->hold[g] = holder;
}

int lm_tix_dup_error(const lm_tindex *ix, const lm_schema *s, lm_batch *b,
                     int64_t r, bool building, lm_error *err) {
  lm_buf cols, vals;
  lm_buf_init(&cols);
  lm_buf_init(&vals);
  int rc = 0;
  for (int k = 0; k < ix->n_cols && !rc; k++) {
    const lm_array *a = b->columns[ix->cols[k]];
    rc = lm_buf_puts(&cols, k ? ", " : "") ||
         lm_buf_puts(&cols, s->fields[ix->cols[k]].name) ||
         lm_buf_puts(&vals, k ? ", " : "");
    if (!rc)
      rc = lm_tix_pg_text(&vals, a, r);
  }
  if (rc) {
    lm_buf_free(&cols);
    lm_buf_free(&vals);
    return nomem(err);
  }
  /* the message, and PostgreSQL's DETAIL in its own field */
  if (building)
    lm_err(err, LM_ERR_EXEC, "could not create unique index \"%s\"", ix->name);
  else
    lm_err(err, LM_ERR_EXEC,
           "duplicate key value violates unique constraint \"%s\"", ix->name);
  lm_err_detail(err, "Key (%.*s)=(%.*s) %s", (int)cols.len,
                cols.data ? cols.data : "", (int)vals.len,
                vals.data ? vals.data : "",
                building ? "is duplicated." : "already exists.");
  lm_buf_free(&cols);
  lm_buf_free(&vals);
  return lm_err_state(err, "23505");
}

int lm_tix_build(lm_table *t, lm_tindex *ix, lm_error *err) {
  if (t->n_live == 0)
    return 0;
  lm_batch *cur = NULL;
  int rc = lm_table_snapshot(t, &cur, err);
  if (rc)
    return rc;
  int64_t n = cur->num_rows;
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!g || !ids)
    rc = nomem(err);
  int64_t k = 0;
  for (int64_t i = 0; !rc && i < t->n_rows; i++)
    if (t->live[i])
      ids[k++] = i;
  if (!rc)
    rc = lm_tix_keys(ix, cur, g, err);
  if (!rc && ix->unique) {
    lm_tix_begin(ix);
    for (int64_t r = 0; r < n && !rc; r++) {
      if (g[r] == LM_TIX_NOKEY)
        continue;
      if (lm_tix_holder(ix, g[r]) != -1)
        rc = lm_tix_dup_error(ix, t->schema, cur, r, true, err);
      else
        lm_tix_hold(ix, g[r], r);
    }
  }
  for (int64_t r = 0; !rc && r < n; r++)
    lm_tix_link(ix, ids[r], g[r]);
  free(g);
  free(ids);
  lm_batch_release(cur);
  return rc;
}

/* -------------------------------------------------------------- catalog */

/* The index named `name` (exactly: SQL folds unquoted names to lower case,
 * a "quoted" one keeps its case, as PostgreSQL) of any table, and its
 * table node; NULL when none. */
static lm_tindex *find_index(laminar_db *db, const char *name, lm_node **tab,
                             int *pos) {
  for (int i = 0; i < db->n_nodes; i++) {
    lm_node *n = db->nodes[i];
    if (n->kind != LM_NODE_TABLE || !n->table)
      continue;
    for (int j = 0; j < n->table->n_ix; j++)
      if (!strcmp(n->table->ix[j]->name, name)) {
        if (tab)
          *tab = n;
        if (pos)
          *pos = j;
        return n->table->ix[j];
      }
  }
  return NULL;
}

bool lm_index_exists(laminar_db *db, const char *name) {
  return find_index(db, name, NULL, NULL) != NULL;
}

/* A relation name in use: a source, stream, view, table or index, the
 * table being created (`creating`, may be NULL) or one of its indexes
 * chosen so far (t, may be NULL). */
static bool rel_taken(laminar_db *db, const char *name, const char *creating,
                      const lm_table *t) {
  if (lm_engine_find(db, name) || lm_index_exists(db, name))
    return true;
  if (creating && !strcmp(creating, name))
    return true;
  for (int j = 0; t && j < t->n_ix; j++)
    if (!strcmp(t->ix[j]->name, name))
      return true;
  return false;
}

/* PostgreSQL's makeObjectName: name1_name2_label cut to 63 bytes (the
 * longer of name1 / name2 loses characters first, never inside a UTF-8
 * sequence), lower-cased as PostgreSQL folds unquoted names. */
static void object_name(const char *name1, const char *name2, const char *label,
                        char out[PG_NAME_MAX + 1]) {
  size_t n1 = strlen(name1), n2 = name2 ? strlen(name2) : 0;
  size_t overhead = (name2 ? 1 : 0) + strlen(label) + 1;
  size_t avail = PG_NAME_MAX - overhead;
  while (n1 + n2 > avail) {
    if (n1 > n2)
      n1--;
    else
      n2--;
  }
  while (n1 > 0 && ((unsigned char)name1[n1] & 0xC0) == 0x80)
    n1--;
  while (name2 && n2 > 0 && ((unsigned char)name2[n2] & 0xC0) == 0x80)
    n2--;
  if (name2)
    snprintf(out, PG_NAME_MAX + 1, "%.*s_%.*s_%s", (int)n1, name1, (int)n2,
             name2, label);
  else
    snprintf(out, PG_NAME_MAX + 1, "%.*s_%s", (int)n1, name1, label);
  for (char *c = out; *c; c++)
    *c = (char)tolower((unsigned char)*c);
}

/* PostgreSQL's ChooseRelationName over ChooseIndexNameAddition: table_
 * col1_col2_label, then label1, label2, ... until the name is free. */
static void choose_name(laminar_db *db, const char *table, const char *creating,
                        const lm_table *t, const lm_schema *s, const int *cols,
                        int n, const char *label, char out[PG_NAME_MAX + 1]) {
  char add[PG_NAME_MAX + 2] = "";
  size_t len = 0;
  for (int k = 0; k < n && len < PG_NAME_MAX + 1; k++) {
    if (len > 0)
      add[len++] = '_';
    const char *c = s->fields[cols[k]].name;
    size_t cl = strlen(c);
    if (cl > PG_NAME_MAX + 1 - len)
      cl = PG_NAME_MAX + 1 - len;
    memcpy(add + len, c, cl);
    len += cl;
    add[len] = 0;
  }
  char mod[32];
  snprintf(mod, sizeof mod, "%s", label);
  for (int pass = 1;; pass++) {
    object_name(table, add, mod, out);
    if (!rel_taken(db, out, creating, t))
      return;
    snprintf(mod, sizeof mod, "%s%d", label, pass);
  }
}

static int rel_exists_error(const char *name, int line, int column,
                            lm_error *err) {
  char m[400];
  snprintf(m, sizeof m, "relation \"%s\" already exists", name);
  lm_engine_pos_err(err, LM_ERR_EXISTS, line, column, m);
  return lm_err_state(err, "42P07");
}

/* Column indexes of names[0..n) in s; what = "unique constraint" or NULL
 * (CREATE INDEX: repeats allowed). */
static int resolve_cols(const lm_schema *s, const char *const *names, int n,
                        const char *what, int line, int column, int *cols,
                        lm_error *err) {
  char m[400];
  if (n > 32)
    return lm_engine_pos_err(err, LM_ERR_LIMIT, line, column,
                             "cannot use more than 32 columns in an index");
  for (int k = 0; k < n; k++) {
    cols[k] = lm_schema_find(s, names[k]);
    if (cols[k] < 0) {
      snprintf(m, sizeof m,
               what ? "column \"%s\" named in key does not exist"
                    : "column \"%s\" does not exist",
               names[k]);
      lm_engine_pos_err(err, LM_ERR_BIND, line, column, m);
      return lm_err_state(err, "42703");
    }
    for (int j = 0; what && j < k; j++)
      if (cols[j] == cols[k]) {
        snprintf(m, sizeof m, "column \"%s\" appears twice in %s", names[k],
                 what);
        lm_engine_pos_err(err, LM_ERR_BIND, line, column, m);
        return lm_err_state(err, "42701");
      }
  }
  return 0;
}

static int add_index(lm_table *t, lm_tindex *ix) {
  lm_tindex **v = realloc(t->ix, sizeof *v * (size_t)(t->n_ix + 1));
  if (!v)
    return -1;
  t->ix = v;
  t->ix[t->n_ix++] = ix;
  return 0;
}

int lm_table_add_constraints(laminar_db *db, lm_node *n, const lm_stmt *st,
                             lm_error *err) {
  lm_table *t = n->table;
  const lm_schema *s = n->table_schema;
  int nu = st->n_uniques;
  if (st->pk_name && !(t->pk_name = lm_strdup(st->pk_name)))
    return nomem(err);
  if (nu == 0)
    return 0;
  int(*cols)[32] = calloc((size_t)nu, sizeof *cols);
  bool *keep = calloc((size_t)nu, sizeof *keep);
  const char **names = calloc((size_t)nu, sizeof *names);
  int rc = cols && keep && names ? 0 : nomem(err);
  for (int i = 0; i < nu && !rc; i++) {
    const lm_unique_def *u = &st->uniques[i];
    rc = resolve_cols(s, u->cols, u->n_cols, "unique constraint", u->line,
                      u->column, cols[i], err);
    names[i] = u->name;
    keep[i] = true;
  }
  /* PostgreSQL drops a UNIQUE that repeats the primary key or an earlier
   * UNIQUE (same columns in the same order, same NULLS rule), passing its
   * name on to the kept one when that one has none */
  for (int i = 0; i < nu && !rc; i++) {
    const lm_unique_def *u = &st->uniques[i];
    bool same_pk = !u->nulls_not_distinct && u->n_cols == n->n_pk;
    for (int k = 0; same_pk && k < u->n_cols; k++)
      same_pk = cols[i][k] == n->pk_cols[k];
    if (same_pk) {
      keep[i] = false;
      if (!t->pk_name && names[i] && !(t->pk_name = lm_strdup(names[i])))
        rc = nomem(err);
      continue;
    }
    for (int j = 0; j < i; j++) {
      const lm_unique_def *v = &st->uniques[j];
      if (!keep[j] || v->n_cols != u->n_cols ||
          v->nulls_not_distinct != u->nulls_not_distinct ||
          memcmp(cols[i], cols[j], sizeof(int) * (size_t)u->n_cols))
        continue;
      keep[i] = false;
      if (!names[j])
        names[j] = names[i];
      break;
    }
  }
  for (int i = 0; i < nu && !rc; i++) {
    if (!keep[i])
      continue;
    const lm_unique_def *u = &st->uniques[i];
    char nm[PG_NAME_MAX + 1];
    if (names[i]) {
      if (rel_taken(db, names[i], st->name, t)) {
        rc = rel_exists_error(names[i], u->line, u->column, err);
        break;
      }
      snprintf(nm, sizeof nm, "%s", names[i]);
    } else {
      choose_name(db, st->name, st->name, t, s, cols[i], u->n_cols, "key", nm);
    }
    lm_tindex *ix = lm_tix_new(nm, s, cols[i], NULL, u->n_cols, true,
                               u->nulls_not_distinct, true, t->cap_rows);
    if (!ix || add_index(t, ix)) {
      lm_tix_free(ix);
      rc = nomem(err);
    }
  }
  free(cols);
  free(keep);
  free(names);
  return rc;
}

/* The table node named `name`, or NULL with PostgreSQL's error set. */
static lm_node *find_table(laminar_db *db, const char *name, int line,
                           int column, lm_error *err) {
  char m[400];
  lm_node *n = lm_engine_find(db, name);
  if (n && n->kind == LM_NODE_TABLE)
    return n;
  if (n) {
    snprintf(m, sizeof m, "\"%s\" is not a table", name);
    lm_engine_pos_err(err, LM_ERR_BIND, line, column, m);
    lm_err_state(err, "42809");
  } else {
    snprintf(m, sizeof m, "relation \"%s\" does not exist", name);
    lm_engine_pos_err(err, LM_ERR_NOTFOUND, line, column, m);
    lm_err_state(err, "42P01");
  }
  return NULL;
}

int lm_index_create(laminar_db *db, const lm_stmt *st, lm_error *err) {
  lm_node *n = find_table(db, st->index_table, st->line, st->column, err);
  if (!n)
    return err ? err->code : LM_ERR_NOTFOUND;
  lm_table *t = n->table;
  int cols[32];
  bool desc[32];
  const char *names[32];
  int nc = st->n_index_cols;
  for (int k = 0; k < nc && k < 32; k++) {
    names[k] = st->index_cols[k].name;
    desc[k] = st->index_cols[k].desc;
  }
  int rc = resolve_cols(n->table_schema, names, nc, NULL,
                        nc ? st->index_cols[0].line : st->line,
                        nc ? st->index_cols[0].column : st->column, cols, err);
  if (rc)
    return rc;
  char nm[PG_NAME_MAX + 1];
  if (st->name) {
    if (rel_taken(db, st->name, NULL, NULL)) {
      if (st->if_not_exists) {
        lm_buf_printf(&db->notices,
                      "%d:%d: relation \"%s\" already exists, skipping\n",
                      st->line, st->column, st->name);
        return 0;
      }
      return rel_exists_error(st->name, st->line, st->column, err);
    }
    snprintf(nm, sizeof nm, "%s", st->name);
  } else {
    choose_name(db, n->name, NULL, NULL, n->table_schema, cols, nc, "idx", nm);
  }
  lm_tindex *ix = lm_tix_new(nm, n->table_schema, cols, desc, nc, st->unique,
                             st->index_nulls_not_distinct, false, t->cap_rows);
  if (!ix)
    return nomem(err);
  rc = lm_tix_build(t, ix, err);
  if (rc && err && err->line == 0 && st->line) { /* the statement's place */
    err->line = st->line;
    err->column = st->column;
    lm_err_prefix(err, "%d:%d", st->line, st->column);
  }
  if (!rc && add_index(t, ix))
    rc = nomem(err);
  if (rc)
    lm_tix_free(ix);
  return rc;
}

int lm_index_drop(laminar_db *db, const lm_stmt *st, lm_error *err) {
  char m[600];
  lm_node *tab = NULL;
  int pos = 0;
  lm_tindex *ix = find_index(db, st->name, &tab, &pos);
  if (!ix) {
    if (st->if_exists) {
      lm_buf_printf(&db->notices,
                    "%d:%d: index \"%s\" does not exist, skipping\n", st->line,
                    st->column, st->name);
      return 0;
    }
    lm_node *n = lm_engine_find(db, st->name);
    if (n) {
      snprintf(m, sizeof m, "\"%s\" is not an index", st->name);
      lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
      return lm_err_state(err, "42809");
    }
    snprintf(m, sizeof m, "index \"%s\" does not exist", st->name);
    lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
    return lm_err_state(err, "42704");
  }
  if (ix->constraint) {
    snprintf(m, sizeof m,
             "cannot drop index %s because constraint %s on table %s "
             "requires it",
             ix->name, ix->name, tab->name);
    lm_engine_pos_err(err, LM_ERR_BIND, st->line, st->column, m);
    return lm_err_state(err, "2BP01");
  }
  lm_table *t = tab->table;
  for (int j = pos; j + 1 < t->n_ix; j++)
    t->ix[j] = t->ix[j + 1];
  t->n_ix--;
  lm_tix_free(ix);
  return 0;
}

/* Rebuilds index j of t from the live rows (a fresh hash index: keys no
 * live row holds any more are gone). */
static int rebuild(lm_table *t, int j, lm_error *err) {
  lm_tindex *old = t->ix[j];
  lm_tindex *ix = lm_tix_new(old->name, t->schema, old->cols, old->desc,
                             old->n_cols, old->unique, old->nulls_not_distinct,
                             old->constraint, t->cap_rows);
  if (!ix)
    return nomem(err);
  int rc = lm_tix_build(t, ix, err);
  if (rc) {
    lm_tix_free(ix);
    return rc;
  }
  t->ix[j] = ix;
  lm_tix_free(old);
  return 0;
}

int lm_index_reindex(laminar_db *db, const lm_stmt *st, lm_error *err) {
  char m[400];
  if (st->object == LM_OBJ_INDEX) {
    lm_node *tab = NULL;
    int pos = 0;
    if (!find_index(db, st->name, &tab, &pos)) {
      snprintf(m, sizeof m, "relation \"%s\" does not exist", st->name);
      lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
      return lm_err_state(err, "42P01");
    }
    return rebuild(tab->table, pos, err);
  }
  lm_node *n = find_table(db, st->name, st->line, st->column, err);
  if (!n)
    return err ? err->code : LM_ERR_NOTFOUND;
  int rc = 0;
  for (int j = 0; j < n->table->n_ix && !rc; j++)
    rc = rebuild(n->table, j, err);
  return rc;
}

/* ------------------------------------------------ equality lookups */

/* The constant of `e` as a 1-row array of exactly type `t`, or NULL when
 * e is not a literal that converts without loss (an integer literal, maybe
 * negated, that fits an integer column; a string literal for a text
 * column): the index is then not used. */
static lm_array *key_const(const lm_expr *e, lm_type t) {
  bool neg = false;
  if (e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1) {
    neg = true;
    e = e->args[0];
  }
  if (e->kind != LM_EXPR_LITERAL)
    return NULL;
  lm_builder b;
  if (e->lit == LM_LIT_INT) {
    int64_t lo, hi;
    switch (t.id) {
    case LM_TYPE_INT8:
      lo = INT8_MIN, hi = INT8_MAX;
      break;
    case LM_TYPE_INT16:
      lo = INT16_MIN, hi = INT16_MAX;
      break;
    case LM_TYPE_INT32:
      lo = INT32_MIN, hi = INT32_MAX;
      break;
    case LM_TYPE_INT64:
      lo = INT64_MIN, hi = INT64_MAX;
      break;
    default:
      return NULL;
    }
    if (neg && e->ival == INT64_MIN)
      return NULL;
    int64_t v = neg ? -e->ival : e->ival;
    if (v < lo || v > hi || lm_builder_init(&b, t, 1))
      return NULL;
    lm_builder_append_int(&b, v);
  } else if (e->lit == LM_LIT_STRING && !neg && t.id == LM_TYPE_UTF8) {
    if (lm_builder_init(&b, t, 1))
      return NULL;
    lm_builder_append_str(&b, e->text, (int32_t)strlen(e->text));
  } else {
    return NULL;
  }
  lm_array *a = NULL;
  if (lm_builder_finish(&b, &a))
    a = NULL;
  lm_builder_free(&b);
  return a;
}

/* Whether column reference e names column c of the table read as `name`
 * or `alias`. */
static bool is_col(const lm_expr *e, const lm_schema *s, int c,
                   const char *name, const char *alias) {
  if (e->kind != LM_EXPR_COLUMN || !e->name ||
      lm_schema_find_ref(s, e->name, e->quoted, NULL) != c)
    return false;
  return !e->table ||
         (alias ? !strcmp(e->table, alias) : name && !strcmp(e->table, name));
}

/* The constant compared with column c by an `=` conjunct of w (NULL when
 * none), as an array of c's type. */
static lm_array *eq_const(const lm_expr *w, const lm_schema *s, int c,
                          const char *name, const char *alias) {
  if (!w)
    return NULL;
  if (w->kind == LM_EXPR_BINARY && w->op == LM_OP_AND) {
    lm_array *a = eq_const(w->args[0], s, c, name, alias);
    return a ? a : eq_const(w->args[1], s, c, name, alias);
  }
  if (w->kind != LM_EXPR_BINARY || w->op != LM_OP_EQ)
    return NULL;
  for (int side = 0; side < 2; side++)
    if (is_col(w->args[side], s, c, name, alias))
      return key_const(w->args[1 - side], s->fields[c].type);
  return NULL;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int lm_table_index_select(const lm_table *ct, const lm_select *sel,
                          lm_batch **out, bool *used, lm_error *err) {
  lm_table *t = (lm_table *)ct;
  *out = NULL;
  *used = false;
  if (!sel->where || !t->n_ix || sel->setop || sel->n_values)
    return 0;
  const char *alias =
      sel->from_clause && sel->from_clause->kind == LM_FROM_TABLE
          ? sel->from_clause->alias
          : NULL;
  lm_array *keys[32] = {NULL};
  lm_tindex *ix = NULL;
  for (int x = 0; x < t->n_ix && !ix; x++) {
    lm_tindex *c = t->ix[x];
    int k = 0;
    for (; k < c->n_cols && k < 32; k++)
      if (!(keys[k] =
                eq_const(sel->where, t->schema, c->cols[k], sel->from, alias)))
        break;
    if (k == c->n_cols)
      ix = c;
    else
      for (int j = 0; j < k; j++) {
        lm_array_release(keys[j]);
        keys[j] = NULL;
      }
  }
  if (!ix)
    return 0;
  /* the probe key interned in a scratch table, then found (not created)
   * in the index */
  lm_aggtable *probe = lm_aggtable_new(ix->n_cols, ix->types, 0, NULL);
  uint32_t pg = 0;
  int64_t dg = -1;
  int rc = probe ? 0 : nomem(err);
  if (!rc)
    rc = lm_aggtable_lookup(probe, keys, NULL, 1, &pg, err);
  if (!rc)
    rc = lm_aggtable_intern(ix->map, probe, &pg, 1, false, &dg, err);
  int64_t n = 0, cap = 16;
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)cap);
  if (!rc && !ids)
    rc = nomem(err);
  for (int32_t id = !rc && dg >= 0 && dg < ix->cap_gid ? ix->head[dg] : -1;
       id >= 0 && !rc; id = ix->next[id]) {
    if (n == cap) {
      int64_t *v = realloc(ids, sizeof(int64_t) * (size_t)(cap *= 2));
      if (!v) {
        rc = nomem(err);
        break;
      }
      ids = v;
    }
    ids[n++] = id;
  }
  /* the rows in the order a scan gives them (row version order) */
  if (!rc) {
    qsort(ids, (size_t)n, sizeof *ids, cmp_i64);
    rc = lm_table_gather(t, ids, n, out, err);
  }
  if (!rc)
    *used = true;
  if (probe)
    lm_aggtable_free(probe);
  free(ids);
  for (int k = 0; k < ix->n_cols; k++)
    lm_array_release(keys[k]);
  return rc;
}
