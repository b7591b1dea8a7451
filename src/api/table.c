/* Tables: current rows, primary-key index and changelogs of their changes
 * (see engine.h, "tables", and docs/tables.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/table_internal.h"

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

lm_table *lm_table_new(lm_schema *schema, const int *pk, int n_pk) {
  lm_table *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->schema = lm_schema_retain(schema);
  t->wschema = lm_schema_new(schema->n_fields + 1);
  if (!t->wschema)
    goto fail;
  for (int i = 0; i < schema->n_fields; i++)
    lm_schema_set_field(t->wschema, i, schema->fields[i].name,
                        schema->fields[i].type, schema->fields[i].nullable);
  lm_schema_set_field(t->wschema, schema->n_fields, "__weight",
                      lm_type_make(LM_TYPE_INT64), false);
  t->n_pk = n_pk;
  if (n_pk > 0) {
    t->pk = malloc(sizeof(int) * (size_t)n_pk);
    t->pk_types = malloc(sizeof(lm_type) * (size_t)n_pk);
    if (!t->pk || !t->pk_types)
      goto fail;
    for (int i = 0; i < n_pk; i++) {
      t->pk[i] = pk[i];
      t->pk_types[i] = schema->fields[pk[i]].type;
    }
    if (!(t->index = lm_aggtable_new(n_pk, t->pk_types, 0, NULL)))
      goto fail;
  }
  return t;
fail:
  lm_table_free(t);
  return NULL;
}

void lm_table_free(lm_table *t) {
  if (!t)
    return;
  for (int i = 0; i < t->n_segs; i++)
    lm_batch_release(t->segs[i]);
  lm_batch_release(t->all);
  free(t->segs);
  free(t->seg_start);
  free(t->live);
  free(t->gid);
  free(t->slot_of);
  free(t->stamp);
  free(t->pk_cur);
  for (int i = 0; i < t->n_ix; i++)
    lm_tix_free(t->ix[i]);
  free(t->ix);
  free(t->pk_name);
  if (t->index)
    lm_aggtable_free(t->index);
  free(t->pk);
  free(t->pk_types);
  lm_schema_release(t->schema);
  lm_schema_release(t->wschema);
  free(t);
}

int64_t lm_table_rows(const lm_table *t) {
  return t ? t->n_live : 0;
}

/* Makes room for gids [0, lm_aggtable_groups(index)). */
static int grow_gids(lm_table *t) {
  int64_t need = lm_aggtable_groups(t->index);
  if (need <= t->cap_gid)
    return 0;
  int64_t c = t->cap_gid ? t->cap_gid : 64;
  while (c < need)
    c *= 2;
  int64_t *s = realloc(t->slot_of, sizeof(int64_t) * (size_t)c);
  if (!s)
    return -1;
  t->slot_of = s;
  uint32_t *st = realloc(t->stamp, sizeof(uint32_t) * (size_t)c);
  if (!st)
    return -1;
  t->stamp = st;
  int64_t *pc = realloc(t->pk_cur, sizeof(int64_t) * (size_t)c);
  if (!pc)
    return -1;
  t->pk_cur = pc;
  for (int64_t i = t->cap_gid; i < c; i++) {
    t->slot_of[i] = -1;
    t->stamp[i] = 0;
    t->pk_cur[i] = -1;
  }
  t->cap_gid = c;
  return 0;
}

static int grow_rows(lm_table *t, int64_t extra) {
  int64_t need = t->n_rows + extra;
  if (need > INT32_MAX)
    return -1;
  if (need <= t->cap_rows)
    return 0;
  int64_t c = t->cap_rows ? t->cap_rows : 256;
  while (c < need)
    c *= 2;
  uint8_t *l = realloc(t->live, (size_t)c);
  if (!l)
    return -1;
  t->live = l;
  uint32_t *g = realloc(t->gid, sizeof(uint32_t) * (size_t)c);
  if (!g)
    return -1;
  t->gid = g;
  for (int i = 0; i < t->n_ix; i++)
    if (lm_tix_grow_rows(t->ix[i], c))
      return -1;
  t->cap_rows = c;
  return 0;
}

/* Appends segment b (retained) as row ids [n_rows, n_rows + rows), live,
 * with gids g (NULL for a table without key). */
static int append_seg(lm_table *t, lm_batch *b, const uint32_t *g) {
  if (b->num_rows == 0)
    return 0;
  if (grow_rows(t, b->num_rows))
    return -1;
  if (t->n_segs == t->cap_segs) {
    int c = t->cap_segs ? t->cap_segs * 2 : 8;
    lm_batch **s = realloc(t->segs, sizeof *s * (size_t)c);
    if (!s)
      return -1;
    t->segs = s;
    int64_t *st = realloc(t->seg_start, sizeof *st * (size_t)c);
    if (!st)
      return -1;
    t->seg_start = st;
    t->cap_segs = c;
  }
  t->seg_start[t->n_segs] = t->n_rows;
  t->segs[t->n_segs++] = lm_batch_retain(b);
  for (int64_t i = 0; i < b->num_rows; i++) {
    int64_t id = t->n_rows + i;
    t->live[id] = 1;
    t->gid[id] = g ? g[i] : 0;
    if (g)
      t->slot_of[g[i]] = id;
  }
  t->n_rows += b->num_rows;
  t->n_live += b->num_rows;
  lm_batch_release(t->all);
  t->all = NULL;
  return 0;
}

/* Every row version as one batch (cached until the next append). */
static int all_rows(lm_table *t, lm_error *err) {
  if (t->all)
    return 0;
  if (t->n_segs == 1) {
    t->all = lm_batch_retain(t->segs[0]);
    return 0;
  }
  int rc = lm_batch_concat(t->schema, t->segs, t->n_segs, &t->all, err);
  if (rc)
    return rc;
  /* keep one segment: later concatenations start from it */
  for (int i = 0; i < t->n_segs; i++)
    lm_batch_release(t->segs[i]);
  t->segs[0] = lm_batch_retain(t->all);
  t->seg_start[0] = 0;
  t->n_segs = 1;
  return 0;
}

/* The segment holding row id `id` (0 <= id < n_rows). */
static int seg_of(const lm_table *t, int64_t id) {
  int lo = 0, hi = t->n_segs - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (t->seg_start[mid] <= id)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Gathers few rows from many segments, row by row (no concatenation of
 * the segments). */
static int gather_rows(const lm_table *t, const int64_t *row_ids, int64_t n,
                       lm_batch **out, lm_error *err) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, t->schema, n))
    return nomem(err);
  int nc = t->schema->n_fields;
  for (int64_t i = 0; i < n; i++) {
    int64_t id = row_ids[i];
    if (id < 0 || id >= t->n_rows) {
      for (int c = 0; c < nc; c++)
        lm_builder_append_null(&bb.cols[c]);
      continue;
    }
    int sg = seg_of(t, id);
    const lm_batch *b = t->segs[sg];
    int64_t r = id - t->seg_start[sg];
    for (int c = 0; c < nc; c++)
      lm_builder_append_from(&bb.cols[c], b->columns[c], r);
  }
  int rc = lm_batch_builder_finish(&bb, out, err);
  lm_batch_builder_free(&bb);
  return rc;
}

int lm_table_gather(const lm_table *ct, const int64_t *row_ids, int64_t n,
                    lm_batch **out, lm_error *err) {
  lm_table *t = (lm_table *)ct; /* the cache of all rows may be rebuilt */
  *out = NULL;
  if (n > INT32_MAX)
    return lm_err(err, LM_ERR_LIMIT, "too many rows to gather");
  /* few rows from many segments: row by row; otherwise one take over the
   * concatenated segments (built once, then cached until the next change) */
  if (!t->all && t->n_segs > 1 && n < t->n_rows / 16)
    return gather_rows(t, row_ids, n, out, err);
  int rc = t->n_rows ? all_rows(t, err) : 0;
  if (rc)
    return rc;
  int nc = t->schema->n_fields;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!cols || !idx) {
    free(cols);
    free(idx);
    return nomem(err);
  }
  for (int64_t i = 0; i < n; i++)
    idx[i] =
        row_ids[i] >= 0 && row_ids[i] < t->n_rows ? (int32_t)row_ids[i] : -1;
  for (int c = 0; c < nc && !rc; c++) {
    cols[c] = t->all ? lm_array_take_nullable(t->all->columns[c], idx, n)
                     : lm_array_new_null(t->schema->fields[c].type, n);
    if (!cols[c])
      rc = nomem(err);
  }
  free(idx);
  if (!rc && !(*out = lm_batch_new(lm_schema_retain(t->schema), n, cols)))
    rc = nomem(err);
  if (rc && !*out)
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
  free(cols);
  return rc;
}

int lm_table_snapshot(const lm_table *ct, lm_batch **out, lm_error *err) {
  lm_table *t = (lm_table *)ct; /* the cache of all rows may be rebuilt */
  if (t->n_live == t->n_rows && t->n_rows > 0) {
    /* no dead version: the rows as they are stored, without a copy */
    int rc = all_rows(t, err);
    if (!rc)
      *out = lm_batch_retain(t->all);
    return rc;
  }
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(t->n_live + 1));
  if (!ids)
    return nomem(err);
  int64_t k = 0;
  for (int64_t i = 0; i < t->n_rows; i++)
    if (t->live[i])
      ids[k++] = i;
  int rc = lm_table_gather(t, ids, k, out, err);
  free(ids);
  return rc;
}

/* Removes dead row versions once they outnumber the live ones (keeps
 * memory proportional to the live rows). Renumbers row ids. */
static int compact(lm_table *t, lm_error *err) {
  int64_t dead = t->n_rows - t->n_live;
  if (dead < 4096 || dead < t->n_live)
    return 0;
  lm_batch *cur = NULL;
  int rc = lm_table_snapshot(t, &cur, err);
  if (rc)
    return rc;
  uint32_t *g = NULL;
  if (t->n_pk) {
    g = malloc(sizeof(uint32_t) * (size_t)(t->n_live + 1));
    if (!g) {
      lm_batch_release(cur);
      return nomem(err);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < t->n_rows; i++)
      if (t->live[i])
        g[k++] = t->gid[i];
  }
  /* each index's key of every live row, in row id order (= new ids) */
  uint32_t **ig = NULL;
  if (t->n_ix && !(ig = calloc((size_t)t->n_ix, sizeof *ig)))
    rc = nomem(err);
  for (int x = 0; x < t->n_ix && !rc; x++) {
    if (!(ig[x] = malloc(sizeof(uint32_t) * (size_t)(t->n_live + 1)))) {
      rc = nomem(err);
      break;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < t->n_rows; i++)
      if (t->live[i])
        ig[x][k++] = t->ix[x]->gid[i];
  }
  if (rc) {
    for (int x = 0; ig && x < t->n_ix; x++)
      free(ig[x]);
    free(ig);
    free(g);
    lm_batch_release(cur);
    return rc;
  }
  for (int i = 0; i < t->n_segs; i++)
    lm_batch_release(t->segs[i]);
  t->n_segs = 0;
  lm_batch_release(t->all);
  t->all = NULL;
  t->n_rows = t->n_live = 0;
  rc = append_seg(t, cur, g) ? nomem(err) : 0;
  for (int x = 0; x < t->n_ix; x++) {
    lm_tindex *ix = t->ix[x];
    for (int64_t i = 0; i < ix->cap_gid; i++)
      ix->head[i] = -1;
    for (int64_t i = 0; i < ix->cap_rows; i++) {
      ix->gid[i] = LM_TIX_NOKEY;
      ix->next[i] = ix->prev[i] = -1;
    }
    for (int64_t k = 0; !rc && k < t->n_rows; k++)
      lm_tix_link(ix, k, ig[x][k]);
    free(ig[x]);
  }
  free(ig);
  lm_batch_release(cur);
  free(g);
  return rc;
}

/* A batch of `wschema`: rows of b with __weight w. */
static lm_batch *weighted(const lm_table *t, lm_batch *b, int64_t w) {
  int nc = t->schema->n_fields;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_builder wb;
  if (!cols || lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), b->num_rows)) {
    free(cols);
    return NULL;
  }
  for (int64_t r = 0; r < b->num_rows; r++)
    lm_builder_append_i64_fast(&wb, w);
  int rc = lm_builder_finish(&wb, &cols[nc]);
  lm_builder_free(&wb);
  if (rc) {
    free(cols);
    return NULL;
  }
  for (int c = 0; c < nc; c++)
    cols[c] = lm_array_retain(b->columns[c]);
  lm_batch *o = lm_batch_new(lm_schema_retain(t->wschema), b->num_rows, cols);
  free(cols);
  return o;
}

/* The changelog: old rows (ids) with -1, then `added` with +1. */
static int make_change(lm_table *t, const int64_t *old_ids, int64_t n_old,
                       lm_batch *added, lm_batch **change, lm_error *err) {
  *change = NULL;
  lm_batch *parts[2] = {NULL, NULL};
  int np = 0, rc = 0;
  if (n_old) {
    lm_batch *old = NULL;
    if ((rc = lm_table_gather(t, old_ids, n_old, &old, err)))
      return rc;
    parts[np] = weighted(t, old, -1);
    lm_batch_release(old);
    if (!parts[np++])
      rc = nomem(err);
  }
  if (!rc && added && added->num_rows) {
    if (!(parts[np++] = weighted(t, added, 1)))
      rc = nomem(err);
  }
  if (!rc && np == 1)
    *change = lm_batch_retain(parts[0]);
  else if (!rc && np == 2)
    rc = lm_batch_concat(t->wschema, parts, 2, change, err);
  for (int i = 0; i < np; i++)
    lm_batch_release(parts[i]);
  return rc;
}

/* PostgreSQL's 23502 error for the first row of b (in order) holding a
 * NULL in a NOT NULL (or key) column, the first such column of that row:
 * the message, and the DETAIL `Failing row contains (1, null).` (every
 * value of the row in PostgreSQL's text form). */
static int check_not_null(const lm_table *t, const char *name, lm_batch *b,
                          int64_t *bad_row, lm_error *err) {
  int nf = t->schema->n_fields;
  bool any = false;
  for (int c = 0; c < nf && !any; c++) {
    bool key = false;
    for (int k = 0; k < t->n_pk; k++)
      key |= t->pk[k] == c;
    any = (!t->schema->fields[c].nullable || key) && b->columns[c]->null_count;
  }
  if (!any)
    return 0;
  for (int64_t r = 0; r < b->num_rows; r++) {
    for (int c = 0; c < nf; c++) {
      bool key = false;
      for (int k = 0; k < t->n_pk; k++)
        key |= t->pk[k] == c;
      if ((t->schema->fields[c].nullable && !key) ||
          !lm_array_is_null(b->columns[c], r))
        continue;
      if (bad_row)
        *bad_row = r;
      lm_err(err, LM_ERR_EXEC,
             "null value in column \"%s\" of relation \"%s\" violates "
             "not-null constraint",
             t->schema->fields[c].name, name);
      lm_buf row;
      lm_buf_init(&row);
      int rc = 0;
      for (int k = 0; k < nf && !rc; k++) {
        rc = lm_buf_puts(&row, k ? ", " : "");
        if (!rc)
          rc = lm_tix_pg_text(&row, b->columns[k], r);
      }
      if (!rc)
        lm_err_detail(err, "Failing row contains (%.*s).", (int)row.len,
                      row.data ? row.data : "");
      lm_buf_free(&row);
      return lm_err_state(err, "23502");
    }
  }
  return 0;
}

/* The secondary index keys of b's rows: (*ig)[x][r] for index x (NULL
 * when the table has none); g0[x] = the index's groups before, for
 * undo_keys. */
static int index_keys(lm_table *t, lm_batch *b, uint32_t ***ig, int64_t **g0,
                      lm_error *err) {
  *ig = NULL;
  *g0 = NULL;
  if (!t->n_ix)
    return 0;
  *ig = calloc((size_t)t->n_ix, sizeof **ig);
  *g0 = calloc((size_t)t->n_ix, sizeof **g0);
  if (!*ig || !*g0)
    return nomem(err);
  for (int x = 0; x < t->n_ix; x++)
    (*g0)[x] = lm_aggtable_groups(t->ix[x]->map);
  for (int x = 0; x < t->n_ix; x++) {
    if (!((*ig)[x] = malloc(sizeof(uint32_t) * (size_t)(b->num_rows + 1))))
      return nomem(err);
    int rc = lm_tix_keys(t->ix[x], b, (*ig)[x], err);
    if (rc)
      return rc;
  }
  return 0;
}

/* Frees index_keys' arrays; with undo, first drops the groups its
 * lookups created (nothing links them yet). */
static void free_keys(lm_table *t, uint32_t **ig, int64_t *g0, bool undo) {
  for (int x = 0; ig && x < t->n_ix; x++) {
    if (undo && g0)
      lm_aggtable_truncate(t->ix[x]->map, g0[x]);
    free(ig[x]);
  }
  free(ig);
  free(g0);
}

static bool has_unique(const lm_table *t) {
  for (int x = 0; x < t->n_ix; x++)
    if (t->ix[x]->unique)
      return true;
  return false;
}

/* INSERT's unique checks, row by row in input order as PostgreSQL inserts
 * them: row r first replaces the row of its primary key (pkg[r]: the live
 * row, or an earlier row of the statement; an upsert), which releases that
 * row's keys, then must not repeat a unique key that another current row
 * holds. Changes no row. Errors: 23505 (lm_tix_dup_error). */
static int check_insert(lm_table *t, lm_batch *b, uint32_t **ig,
                        const uint32_t *pkg, lm_error *err) {
  if (!has_unique(t))
    return 0;
  uint32_t ep = 0;
  if (t->n_pk) {
    if (++t->epoch == 0)
      memset(t->stamp, 0, sizeof(uint32_t) * (size_t)t->cap_gid), t->epoch = 1;
    ep = t->epoch;
  }
  for (int x = 0; x < t->n_ix; x++)
    if (t->ix[x]->unique)
      lm_tix_begin(t->ix[x]);
  for (int64_t r = 0; r < b->num_rows; r++) {
    int64_t rep = -1;
    if (t->n_pk) {
      uint32_t g = pkg[r];
      rep = t->stamp[g] == ep ? t->pk_cur[g] : t->slot_of[g];
      t->stamp[g] = ep;
      t->pk_cur[g] = -2 - r;
    }
    for (int x = 0; x < t->n_ix; x++) {
      lm_tindex *ix = t->ix[x];
      if (!ix->unique)
        continue;
      if (rep != -1) {
        uint32_t og = rep >= 0 ? ix->gid[rep] : ig[x][-2 - rep];
        if (og != LM_TIX_NOKEY)
          lm_tix_hold(ix, og, -1);
      }
      uint32_t ng = ig[x][r];
      if (ng == LM_TIX_NOKEY)
        continue;
      if (lm_tix_holder(ix, ng) != -1) {
        t->err_row = r;
        return lm_tix_dup_error(ix, t->schema, b, r, false, err);
      }
      lm_tix_hold(ix, ng, -2 - r);
    }
  }
  return 0;
}

/* Links new rows [base, base + n) into every index: row base + i has the
 * keys of input row rows[i] (NULL rows: row i). */
static void link_rows(lm_table *t, int64_t base, int64_t n, uint32_t **ig,
                      const int32_t *rows) {
  for (int x = 0; x < t->n_ix; x++)
    for (int64_t i = 0; i < n; i++)
      lm_tix_link(t->ix[x], base + i, ig[x][rows ? rows[i] : i]);
}

int64_t lm_table_err_row(const lm_table *t) {
  return t ? t->err_row : -1;
}

int lm_table_insert(lm_table *t, const char *name, lm_batch *b,
                    lm_batch **change, lm_error *err) {
  *change = NULL;
  t->err_row = -1;
  int64_t n = b->num_rows;
  if (n == 0)
    return 0;
  int rc = check_not_null(t, name, b, &t->err_row, err);
  if (rc)
    return rc;
  uint32_t **ig = NULL;
  int64_t *ig0 = NULL;
  if (grow_rows(t, n))
    return nomem(err);
  if ((rc = index_keys(t, b, &ig, &ig0, err))) {
    free_keys(t, ig, ig0, true);
    return rc;
  }
  if (!t->n_pk) {
    int64_t base = t->n_rows;
    if (!(rc = check_insert(t, b, ig, NULL, err)) && append_seg(t, b, NULL))
      rc = nomem(err); /* cannot fail: rows grown above */
    if (!rc)
      link_rows(t, base, n, ig, NULL);
    free_keys(t, ig, ig0, rc != 0);
    return rc ? rc : make_change(t, NULL, 0, b, change, err);
  }
  lm_array *keys[64];
  for (int k = 0; k < t->n_pk && k < 64; k++)
    keys[k] = b->columns[t->pk[k]];
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)n);
  int32_t *win = malloc(sizeof(int32_t) * (size_t)n);
  uint32_t *wg = malloc(sizeof(uint32_t) * (size_t)n);
  int64_t *old = malloc(sizeof(int64_t) * (size_t)n);
  int64_t g0 = lm_aggtable_groups(t->index);
  bool applied = false;
  if (!g || !win || !wg || !old)
    rc = nomem(err);
  if (!rc)
    rc = lm_aggtable_lookup(t->index, keys, NULL, n, g, err);
  if (!rc && grow_gids(t)) {
    lm_aggtable_truncate(t->index, g0);
    rc = nomem(err);
  }
  if (!rc)
    rc = check_insert(t, b, ig, g, err);
  lm_batch *added = NULL;
  int64_t nw = 0, n_old = 0;
  if (!rc) {
    /* the last row of each key wins (a sequence of upserts) */
    if (++t->epoch == 0)
      memset(t->stamp, 0, sizeof(uint32_t) * (size_t)t->cap_gid), t->epoch = 1;
    for (int64_t r = n - 1; r >= 0; r--)
      if (t->stamp[g[r]] != t->epoch) {
        t->stamp[g[r]] = t->epoch;
        win[nw++] = (int32_t)r;
      }
    /* back to input order */
    for (int64_t i = 0; i < nw / 2; i++) {
      int32_t x = win[i];
      win[i] = win[nw - 1 - i];
      win[nw - 1 - i] = x;
    }
    for (int64_t i = 0; i < nw; i++) {
      wg[i] = g[win[i]];
      if (t->slot_of[wg[i]] >= 0)
        old[n_old++] = t->slot_of[wg[i]];
    }
    added = nw == n ? lm_batch_retain(b) : lm_batch_take(b, win, nw);
    if (!added)
      rc = nomem(err);
  }
  /* the changelog first (it reads the old rows), then the state */
  if (!rc)
    rc = make_change(t, old, n_old, added, change, err);
  if (!rc) {
    applied = true;
    for (int64_t i = 0; i < n_old; i++) {
      t->live[old[i]] = 0;
      for (int x = 0; x < t->n_ix; x++)
        lm_tix_unlink(t->ix[x], old[i]);
    }
    t->n_live -= n_old;
    int64_t base = t->n_rows;
    if (append_seg(t, added, wg)) /* cannot fail: rows grown above */
      rc = nomem(err);
    else
      link_rows(t, base, nw, ig, win);
  }
  free_keys(t, ig, ig0, !applied);
  if (!rc)
    rc = compact(t, err);
  if (rc && lm_aggtable_groups(t->index) > g0 && !*change)
    lm_aggtable_truncate(t->index, g0);
  lm_batch_release(added);
  free(g);
  free(win);
  free(wg);
  free(old);
  return rc;
}

/* Live row ids where pred is true (NULL pred = every live row). */
static int matching(lm_table *t, const lm_bexpr *pred, int64_t **ids,
                    int64_t *n, lm_error *err) {
  *ids = malloc(sizeof(int64_t) * (size_t)(t->n_live + 1));
  *n = 0;
  if (!*ids)
    return nomem(err);
  int rc = 0;
  int64_t base = 0;
  for (int s = 0; s < t->n_segs && !rc; s++) {
    lm_batch *seg = t->segs[s];
    lm_array *p = NULL;
    if (pred && (rc = lm_eval(pred, seg, &p, err)))
      break;
    for (int64_t r = 0; r < seg->num_rows; r++)
      if (t->live[base + r] &&
          (!p || (p->type.id == LM_TYPE_BOOL && !lm_array_is_null(p, r) &&
                  lm_array_bool(p, r))))
        (*ids)[(*n)++] = base + r;
    lm_array_release(p);
    base += seg->num_rows;
  }
  if (rc) {
    free(*ids);
    *ids = NULL;
  }
  return rc;
}

/* Marks rows ids[0..n) dead (and their keys free). */
static void retire(lm_table *t, const int64_t *ids, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    t->live[ids[i]] = 0;
    for (int x = 0; x < t->n_ix; x++)
      lm_tix_unlink(t->ix[x], ids[i]);
    if (t->n_pk && t->slot_of[t->gid[ids[i]]] == ids[i])
      t->slot_of[t->gid[ids[i]]] = -1;
  }
  t->n_live -= n;
}

int lm_table_delete(lm_table *t, const lm_bexpr *pred, lm_batch **change,
                    int64_t *deleted, lm_error *err) {
  *change = NULL;
  *deleted = 0;
  int64_t *ids = NULL, n = 0;
  int rc = matching(t, pred, &ids, &n, err);
  if (!rc && n)
    rc = make_change(t, ids, n, NULL, change, err);
  if (!rc) {
    retire(t, ids, n);
    *deleted = n;
    rc = compact(t, err);
  }
  free(ids);
  return rc;
}

/* UPDATE's unique checks, row by row in row id order as PostgreSQL
 * updates them (a non-deferrable constraint is checked at each row): row
 * ids[i] releases its old keys, then its new keys (nb row i) must not be
 * held by another current row: a row not updated yet still holds its old
 * key, so `SET x = x + 1` over 1, 2 fails as in PostgreSQL. Changes no row.
 * Errors: 23505 (lm_tix_dup_error). */
static int check_update(lm_table *t, const int64_t *ids, lm_batch *nb,
                        uint32_t **ig, lm_error *err) {
  if (!has_unique(t))
    return 0;
  for (int x = 0; x < t->n_ix; x++)
    if (t->ix[x]->unique)
      lm_tix_begin(t->ix[x]);
  for (int64_t i = 0; i < nb->num_rows; i++)
    for (int x = 0; x < t->n_ix; x++) {
      lm_tindex *ix = t->ix[x];
      if (!ix->unique)
        continue;
      uint32_t og = ix->gid[ids[i]];
      if (og != LM_TIX_NOKEY)
        lm_tix_hold(ix, og, -1);
      uint32_t ng = ig[x][i];
      if (ng == LM_TIX_NOKEY)
        continue;
      if (lm_tix_holder(ix, ng) != -1)
        return lm_tix_dup_error(ix, t->schema, nb, i, false, err);
      lm_tix_hold(ix, ng, -2 - i);
    }
  return 0;
}

/* PostgreSQL's DETAIL of a primary-key violation by row r of the new rows
 * b: "Key (a, b)=(1, x) already exists." (left empty when out of memory). */
static void pk_detail(const lm_table *t, lm_batch *b, int64_t r,
                      lm_error *err) {
  lm_buf cols, vals;
  lm_buf_init(&cols);
  lm_buf_init(&vals);
  int rc = 0;
  for (int k = 0; k < t->n_pk && !rc; k++)
    rc = lm_buf_puts(&cols, k ? ", " : "") ||
         lm_buf_puts(&cols, t->schema->fields[t->pk[k]].name) ||
         lm_buf_puts(&vals, k ? ", " : "") ||
         lm_tix_pg_text(&vals, b->columns[t->pk[k]], r);
  if (!rc)
    lm_err_detail(err, "Key (%.*s)=(%.*s) already exists.", (int)cols.len,
                  cols.data ? cols.data : "", (int)vals.len,
                  vals.data ? vals.data : "");
  lm_buf_free(&cols);
  lm_buf_free(&vals);
}

int lm_table_update(lm_table *t, const char *name, const lm_bexpr *pred,
                    lm_bexpr *const *exprs, lm_batch **change, int64_t *updated,
                    lm_error *err) {
  *change = NULL;
  *updated = 0;
  int64_t *ids = NULL, n = 0;
  int rc = matching(t, pred, &ids, &n, err);
  if (rc || n == 0) {
    free(ids);
    return rc;
  }
  lm_batch *old = NULL, *nb = NULL;
  uint32_t *g = NULL;
  int64_t g0 = t->index ? lm_aggtable_groups(t->index) : 0;
  bool looked_up = false;
  rc = lm_table_gather(t, ids, n, &old, err);
  if (!rc)
    rc = lm_project(exprs, t->schema->n_fields, t->schema, old, &nb, err);
  if (!rc)
    rc = check_not_null(t, name, nb, NULL, err);
  if (!rc && grow_rows(t, n))
    rc = nomem(err);
  if (!rc && t->n_pk) {
    /* the new keys must be unique among themselves and the rows kept */
    lm_array *keys[64];
    for (int k = 0; k < t->n_pk && k < 64; k++)
      keys[k] = nb->columns[t->pk[k]];
    if (!(g = malloc(sizeof(uint32_t) * (size_t)n)))
      rc = nomem(err);
    if (!rc && !(rc = lm_aggtable_lookup(t->index, keys, NULL, n, g, err)))
      looked_up = true;
    if (!rc && grow_gids(t))
      rc = nomem(err);
    if (!rc) {
      for (int64_t i = 0; i < n; i++)
        t->live[ids[i]] = 0; /* tentatively */
      if (++t->epoch == 0)
        memset(t->stamp, 0, sizeof(uint32_t) * (size_t)t->cap_gid),
            t->epoch = 1;
      for (int64_t i = 0; i < n && !rc; i++) {
        int64_t s = t->slot_of[g[i]];
        if (t->stamp[g[i]] == t->epoch || (s >= 0 && t->live[s])) {
          if (t->pk_name)
            lm_err(err, LM_ERR_EXEC,
                   "duplicate key value violates unique constraint \"%s\"",
                   t->pk_name);
          else
            lm_err(err, LM_ERR_EXEC,
                   "duplicate key value violates unique constraint "
                   "\"%s_pkey\"",
                   name);
          pk_detail(t, nb, i, err);
          rc = lm_err_state(err, "23505");
        }
        t->stamp[g[i]] = t->epoch;
      }
      for (int64_t i = 0; i < n; i++)
        t->live[ids[i]] = 1;
    }
  }
  uint32_t **ig = NULL;
  int64_t *ig0 = NULL;
  bool applied = false;
  if (!rc)
    rc = index_keys(t, nb, &ig, &ig0, err);
  if (!rc)
    rc = check_update(t, ids, nb, ig, err);
  if (!rc)
    rc = make_change(t, ids, n, nb, change, err);
  if (!rc) {
    applied = true;
    retire(t, ids, n);
    int64_t base = t->n_rows;
    if (append_seg(t, nb, g)) {
      rc = nomem(err);
    } else {
      link_rows(t, base, n, ig, NULL);
      *updated = n;
    }
  }
  free_keys(t, ig, ig0, !applied);
  if (rc && looked_up && !*change)
    lm_aggtable_truncate(t->index, g0);
  if (!rc)
    rc = compact(t, err);
  lm_batch_release(old);
  lm_batch_release(nb);
  free(g);
  free(ids);
  return rc;
}

int lm_table_lookup(const lm_table *t, lm_array *const *keys, int64_t n,
                    int64_t *row_ids, lm_error *err) {
  if (!t->n_pk)
    return lm_err(err, LM_ERR_BIND, "the table has no primary key");
  for (int64_t i = 0; i < n; i++)
    row_ids[i] = -1;
  if (n == 0 || t->n_live == 0)
    return 0;
  /* probe keys interned in a scratch table, then found (not created) in
   * the index */
  lm_aggtable *probe = lm_aggtable_new(t->n_pk, t->pk_types, 0, NULL);
  uint32_t *pg = malloc(sizeof(uint32_t) * (size_t)n);
  int64_t *dg = NULL;
  int rc = probe && pg ? 0 : nomem(err);
  if (!rc)
    rc = lm_aggtable_lookup(probe, keys, NULL, n, pg, err);
  int64_t np = rc ? 0 : lm_aggtable_groups(probe);
  if (!rc && !(dg = malloc(sizeof(int64_t) * (size_t)(np + 1))))
    rc = nomem(err);
  if (!rc)
    rc = lm_aggtable_intern(t->index, probe, NULL, np, false, dg, err);
  for (int64_t i = 0; !rc && i < n; i++) {
    bool null_key = false;
    for (int k = 0; k < t->n_pk; k++)
      null_key |= lm_array_is_null(keys[k], i);
    int64_t d = dg[pg[i]];
    if (!null_key && d >= 0 && d < t->cap_gid)
      row_ids[i] = t->slot_of[d];
  }
  if (probe)
    lm_aggtable_free(probe);
  free(pg);
  free(dg);
  return rc;
}
