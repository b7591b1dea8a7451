/*
 * api/view.c — views expanded when read (CREATE VIEW, docs/views.md).
 *
 * `CREATE VIEW name [(cols)] AS query` over tables, materialized views,
 * other views or no relation at all keeps the query, its column names and
 * its output types (bound at CREATE: the query runs once over empty
 * stand-ins of the relations it reads, so errors point into the CREATE
 * and no row is computed). A view over a source or a stream is a
 * materialized view when the incremental engine can maintain it, as
 * before; when it cannot, it is kept as a query too.
 *
 * Reading a view:
 *   - an ad-hoc statement (SELECT, INSERT ... SELECT, UPDATE / DELETE
 *     with subqueries, EXPLAIN [ANALYZE] SELECT) computes each view it
 *     names once, before the statement runs, into a temporary relation of
 *     that name (db->temps, found before the catalog; the statement's own
 *     WITH queries and derived tables shadow it, as its scope does in
 *     PostgreSQL), views read by views first;
 *   - a continuous query (CREATE STREAM / MATERIALIZED VIEW) gets each
 *     view it names inlined as a subquery in FROM; when the result cannot
 *     be maintained the error is 0A000 naming the view.
 * Names are resolved when the view is read; the catalog keeps them valid:
 * DROP of a relation a view reads fails with 2BP01 unless CASCADE (which
 * drops the view and what reads it), and CREATE OR REPLACE VIEW keeps the
 * columns (PostgreSQL's rule: same names and types, new ones at the end).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "exec/lm_strfn.h"

typedef struct lm_view {
  char *name;
  char *sql;             /* the CREATE statement (SHOW VIEWS) */
  lm_sql_script *script; /* its parse, which owns query */
  const lm_select *query;
  lm_schema *schema;  /* output columns: the view's names, bound types */
  bool renamed;       /* a column list renamed a column of the query */
  lm_schema *qschema; /* the query's own output at CREATE (names) */
  char **deps;        /* the relations its query names (catalog objects) */
  int n_deps;
} lm_view;

/* a continuous query (node `node`) built with view `view` inlined */
typedef struct view_use {
  char *node, *view;
} view_use;

typedef struct lm_views lm_views;
struct lm_views {
  lm_view **v;
  int n, cap;
  view_use *use;
  int n_use, cap_use;
};

/* ------------------------------------------------------------- helpers */

/* Views may read views this many levels deep (PostgreSQL's limit is its
 * stack, max_stack_depth: a chain of some thousands), and one statement
 * may read this many distinct views. */
#define LM_VIEW_MAX_DEPTH 1000
#define LM_VIEW_MAX_USED 1024

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int pos_err(lm_error *err, int code, int line, int col,
                   const char *state, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int pos_err(lm_error *err, int code, int line, int col,
                   const char *state, const char *fmt, ...) {
  char m[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  lm_engine_pos_err(err, code, line, col, m);
  if (state)
    lm_err_state(err, state);
  return code;
}

/* 54001, as PostgreSQL's "stack depth limit exceeded". */
static int too_deep(lm_error *err, int line, int col) {
  return pos_err(err, LM_ERR_BIND, line, col, "54001",
                 "views nested more than %d deep, or more than %d views "
                 "read by one statement",
                 LM_VIEW_MAX_DEPTH, LM_VIEW_MAX_USED);
}

static lm_view *find_view(laminar_db *db, const char *name) {
  lm_views *vs = db->views;
  for (int i = 0; vs && i < vs->n; i++)
    if (!strcmp(vs->v[i]->name, name))
      return vs->v[i];
  return NULL;
}

bool lm_view_exists(laminar_db *db, const char *name) {
  return find_view(db, name) != NULL;
}

static void view_free(lm_view *v) {
  if (!v)
    return;
  free(v->name);
  free(v->sql);
  lm_sql_script_free(v->script);
  lm_schema_release(v->schema);
  lm_schema_release(v->qschema);
  for (int i = 0; i < v->n_deps; i++)
    free(v->deps[i]);
  free(v->deps);
  free(v);
}

void lm_view_free_all(laminar_db *db) {
  lm_views *vs = db->views;
  if (!vs)
    return;
  for (int i = 0; i < vs->n; i++)
    view_free(vs->v[i]);
  for (int i = 0; i < vs->n_use; i++) {
    free(vs->use[i].node);
    free(vs->use[i].view);
  }
  free(vs->v);
  free(vs->use);
  free(vs);
  db->views = NULL;
}

static lm_views *views_of(laminar_db *db) {
  if (!db->views)
    db->views = calloc(1, sizeof *db->views);
  return db->views;
}

static bool depends_on(const lm_view *v, const char *name) {
  for (int i = 0; i < v->n_deps; i++)
    if (!strcmp(v->deps[i], name))
      return true;
  return false;
}

/* Moves an error met while computing view `name` to line:col of the
 * statement reading it (its own position is in the view's text). */
static void reposition(lm_error *err, int line, int col) {
  if (!err || !err->code || !line)
    return;
  const char *m = err->msg;
  if (err->line > 0) { /* skip "L:C: " */
    const char *p = m;
    while (*p >= '0' && *p <= '9')
      p++;
    if (*p == ':') {
      p++;
      while (*p >= '0' && *p <= '9')
        p++;
      if (p[0] == ':' && p[1] == ' ')
        m = p + 2;
    }
  }
  char msg[sizeof err->msg], state[sizeof err->sqlstate],
      detail[sizeof err->detail];
  snprintf(msg, sizeof msg, "%s", m);
  memcpy(state, err->sqlstate, sizeof state);
  memcpy(detail, err->detail, sizeof detail);
  lm_err_at(err, err->code, line, col, "%s", msg);
  memcpy(err->sqlstate, state, sizeof state);
  memcpy(err->detail, detail, sizeof detail);
}

/* ------------------------------------------------- names a query reads */

typedef struct refs {
  const char **names;
  int *lines, *cols;
  int n, cap;
  bool oom;
  const char *scope[256]; /* WITH query names in scope (not relations) */
  int n_scope;
} refs;

static void refs_add(refs *r, const char *name, int line, int col) {
  if (!name || r->oom)
    return;
  for (int i = 0; i < r->n_scope; i++)
    if (!strcmp(r->scope[i], name))
      return;
  for (int i = 0; i < r->n; i++)
    if (!strcmp(r->names[i], name))
      return;
  if (r->n == r->cap) {
    int nc = r->cap ? r->cap * 2 : 8;
    const char **a = realloc(r->names, sizeof *a * (size_t)nc);
    if (a)
      r->names = a;
    int *l = realloc(r->lines, sizeof *l * (size_t)nc);
    if (l)
      r->lines = l;
    int *c = realloc(r->cols, sizeof *c * (size_t)nc);
    if (c)
      r->cols = c;
    if (!a || !l || !c) {
      r->oom = true;
      return;
    }
    r->cap = nc;
  }
  r->names[r->n] = name;
  r->lines[r->n] = line;
  r->cols[r->n++] = col;
}

static void refs_free(refs *r) {
  free(r->names);
  free(r->lines);
  free(r->cols);
  memset(r, 0, sizeof *r);
}

static void walk_select(refs *r, const lm_select *s, int depth);

static void walk_expr(refs *r, const lm_expr *e, int depth) {
  if (!e || depth > 2000)
    return;
  for (int i = 0; i < e->n_args; i++)
    walk_expr(r, e->args[i], depth + 1);
  walk_expr(r, e->filter, depth + 1);
  for (int i = 0; i < e->n_partition_by; i++)
    walk_expr(r, e->partition_by[i], depth + 1);
  for (int i = 0; i < e->n_over_order; i++)
    walk_expr(r, e->over_order[i].expr, depth + 1);
  if (e->frame) {
    walk_expr(r, e->frame->start.offset, depth + 1);
    walk_expr(r, e->frame->end.offset, depth + 1);
  }
  if (e->subquery)
    walk_select(r, e->subquery, depth + 1);
}

static void walk_from(refs *r, const lm_from *f, int depth) {
  if (!f || depth > 2000)
    return;
  switch (f->kind) {
  case LM_FROM_TABLE:
    refs_add(r, f->name, f->line, f->column);
    break;
  case LM_FROM_SUBQUERY:
    walk_select(r, f->subquery, depth + 1);
    break;
  case LM_FROM_FUNCTION: /* subqueries in its arguments */
    for (int i = 0; i < f->n_funcs; i++)
      walk_expr(r, f->funcs[i], depth + 1);
    break;
  case LM_FROM_JOIN:
    walk_from(r, f->left, depth + 1);
    walk_from(r, f->right, depth + 1);
    walk_expr(r, f->on, depth + 1);
    walk_expr(r, f->system_time, depth + 1);
    walk_expr(r, f->match, depth + 1);
    break;
  }
}

static void walk_select(refs *r, const lm_select *s, int depth) {
  if (!s || depth > 2000)
    return;
  int save = r->n_scope;
  for (int i = 0; i < s->n_ctes; i++) { /* each sees the ones before it */
    walk_select(r, s->ctes[i].query, depth + 1);
    if (r->n_scope < 256)
      r->scope[r->n_scope++] = s->ctes[i].name;
  }
  walk_select(r, s->set_left, depth + 1);
  walk_select(r, s->set_right, depth + 1);
  for (int i = 0; i < s->n_values; i++)
    for (int c = 0; c < s->n_value_cols; c++)
      walk_expr(r, s->values[i][c], depth + 1);
  for (int i = 0; i < s->n_items; i++)
    walk_expr(r, s->items[i].expr, depth + 1);
  if (s->from_clause)
    walk_from(r, s->from_clause, depth + 1);
  else if (s->from_subquery)
    walk_select(r, s->from_subquery, depth + 1);
  else if (s->from)
    refs_add(r, s->from, s->from_line, s->from_column);
  walk_expr(r, s->where, depth + 1);
  for (int i = 0; i < s->n_group_by; i++)
    walk_expr(r, s->group_by[i], depth + 1);
  walk_expr(r, s->having, depth + 1);
  for (int i = 0; i < s->n_order_by; i++)
    walk_expr(r, s->order_by[i].expr, depth + 1);
  for (int i = 0; i < s->n_windows; i++)
    walk_expr(r, s->windows[i].spec, depth + 1);
  r->n_scope = save;
}

/* The relations statement st reads (its target, for INSERT / UPDATE /
 * DELETE, is not among them). */
static void walk_stmt(refs *r, const lm_stmt *st, int depth) {
  if (!st || depth > 10)
    return;
  walk_select(r, st->select, 0);
  walk_expr(r, st->where, 0);
  for (int i = 0; i < st->n_set; i++)
    walk_expr(r, st->set_exprs[i], 0);
  for (int i = 0; i < st->n_rows; i++)
    for (int c = 0; c < st->n_values; c++)
      walk_expr(r, st->rows[i][c], 0);
  walk_stmt(r, st->explain, depth + 1);
}

static bool refs_views(laminar_db *db, const refs *r) {
  for (int i = 0; i < r->n; i++)
    if (find_view(db, r->names[i]))
      return true;
  return false;
}

/* ----------------------------------------------------- temp relations */

static bool temp_has(laminar_db *db, int from, const char *name) {
  for (int i = from; i < db->n_temps; i++)
    if (!strcmp(db->temps[i]->name, name))
      return true;
  return false;
}

/* An empty batch of schema s (a reference taken). */
static lm_batch *empty_of(lm_schema *s) {
  lm_array **cols = calloc((size_t)s->n_fields + 1, sizeof *cols);
  if (!cols) {
    lm_schema_release(s);
    return NULL;
  }
  for (int c = 0; c < s->n_fields; c++)
    if (!(cols[c] = lm_array_new_null(s->fields[c].type, 0))) {
      while (c--)
        lm_array_release(cols[c]);
      free(cols);
      lm_schema_release(s);
      return NULL;
    }
  lm_batch *b = lm_batch_new(s, 0, cols);
  free(cols);
  return b;
}

/* b's columns under the names of s (a new reference; b released). The
 * types are b's own. */
static int rename_as(lm_batch **b, const lm_schema *s, lm_error *err) {
  int nf = (*b)->schema->n_fields;
  const char **names = calloc((size_t)nf + 1, sizeof *names);
  lm_batch *o = NULL;
  if (names) {
    for (int c = 0; c < nf; c++)
      names[c] = s->fields[c].name;
    o = lm_batch_rename(*b, names, nf);
  }
  free(names);
  if (!o)
    return nomem(err);
  lm_batch_release(*b);
  *b = o;
  return 0;
}

/* A view's query returns more columns than at CREATE (a view it reads
 * was replaced with columns added, and it says `*`): b cut to the columns
 * named as q's, each found once by name (b replaced); 0 with b unchanged
 * when they cannot be told apart (the caller reports the count). */
static int pick_cols(lm_batch **b, const lm_schema *q, lm_error *err) {
  lm_batch *in = *b;
  const lm_schema *bs = in->schema;
  int *at = calloc((size_t)q->n_fields + 1, sizeof *at);
  if (!at)
    return nomem(err);
  for (int c = 0; c < q->n_fields; c++) {
    at[c] = -1;
    for (int k = 0; k < bs->n_fields; k++)
      if (!strcmp(bs->fields[k].name, q->fields[c].name)) {
        if (at[c] >= 0) { /* ambiguous */
          free(at);
          return 0;
        }
        at[c] = k;
      }
    if (at[c] < 0) {
      free(at);
      return 0;
    }
  }
  lm_schema *o = lm_schema_new(q->n_fields);
  lm_array **cols = calloc((size_t)q->n_fields + 1, sizeof *cols);
  int rc = !o || !cols ? nomem(err) : 0;
  for (int c = 0; !rc && c < q->n_fields; c++) {
    const lm_field *f = &bs->fields[at[c]];
    if (lm_schema_set_field(o, c, f->name, f->type, f->nullable) ||
        (f->timezone && lm_schema_set_timezone(o, c, f->timezone)))
      rc = nomem(err);
    else
      cols[c] = lm_array_retain(in->columns[at[c]]);
  }
  lm_batch *r = NULL;
  if (!rc) {
    r = lm_batch_new(o, in->num_rows, cols);
    o = NULL;
    if (!r)
      rc = nomem(err);
  } else {
    for (int c = 0; cols && c < q->n_fields; c++)
      lm_array_release(cols[c]);
  }
  lm_schema_release(o);
  free(cols);
  free(at);
  if (!rc) {
    lm_batch_release(in);
    *b = r;
  }
  return rc;
}

/* --------------------------------------------- computing a view's rows */

static int materialize(laminar_db *db, lm_view *v, int base, int line, int col,
                       int depth, lm_error *err);

/* Computes every view r names (not yet computed since temps[base]). */
static int materialize_refs(laminar_db *db, const refs *r, int base, int line,
                            int col, int depth, lm_error *err) {
  if (r->oom)
    return nomem(err);
  for (int i = 0; i < r->n; i++) {
    lm_view *v = find_view(db, r->names[i]);
    int rc = v ? materialize(db, v, base, line ? line : r->lines[i],
                             line ? col : r->cols[i], depth, err)
               : 0;
    if (rc)
      return rc;
  }
  return 0;
}

static int materialize(laminar_db *db, lm_view *v, int base, int line, int col,
                       int depth, lm_error *err) {
  if (temp_has(db, base, v->name))
    return 0;
  if (depth > LM_VIEW_MAX_DEPTH)
    return too_deep(err, line, col);
  refs r = {0};
  walk_select(&r, v->query, 0);
  int rc = materialize_refs(db, &r, base, line, col, depth + 1, err);
  refs_free(&r);
  if (rc)
    return rc;
  laminar_result *res = NULL;
  lm_batch *b = NULL;
  rc = lm_engine_select(db, v->query, &res, err);
  if (!rc)
    rc = lm_batch_concat(res->schema, res->batches, res->n_batches, &b, err);
  laminar_result_free(res);
  if (rc) {
    reposition(err, line, col);
    return rc;
  }
  if (b->schema->n_fields > v->schema->n_fields)
    rc = pick_cols(&b, v->qschema, err);
  if (rc) {
    lm_batch_release(b);
    return rc;
  }
  if (b->schema->n_fields != v->schema->n_fields) {
    lm_batch_release(b);
    return pos_err(err, LM_ERR_BIND, line, col, "42P16",
                   "view \"%s\" has %d columns, its query now returns %d "
                   "(a relation it reads changed)",
                   v->name, v->schema->n_fields, b->schema->n_fields);
  }
  rc = rename_as(&b, v->schema, err);
  if (!rc) {
    rc = lm_engine_temp_push(db, v->name, b, true, err);
    b = NULL;
  }
  lm_batch_release(b);
  return rc;
}

static int exec_inner(laminar_db *db, const lm_stmt *st, laminar_result **res,
                      lm_error *err) {
  bool was = db->view_busy;
  db->view_busy = true;
  int rc = lm_engine_exec(db, st, res, err);
  db->view_busy = was;
  return rc;
}

/* An ad-hoc statement reading views: each computed once, then st. */
static int adhoc(laminar_db *db, const lm_stmt *st, const refs *r,
                 laminar_result **res, lm_error *err) {
  int rc = lm_engine_drain(db, err); /* the rows the views read */
  if (rc)
    return rc;
  int base = db->n_temps;
  rc = materialize_refs(db, r, base, 0, 0, 0, err);
  if (!rc)
    rc = exec_inner(db, st, res, err);
  lm_engine_temps_pop(db, base);
  return rc;
}

int lm_view_explain_run(laminar_db *db, const char *name, lm_error *err) {
  lm_view *v = find_view(db, name);
  if (!v)
    return 0;
  laminar_result *res = NULL;
  lm_xt_next_role(LM_XT_VIEW, name, NULL);
  int rc = lm_engine_select(db, v->query, &res, err);
  laminar_result_free(res);
  return rc;
}

/* --------------------------------------- inlining (continuous queries) */

typedef struct inliner {
  laminar_db *db;
  lm_arena *a;
  const char *used[LM_VIEW_MAX_USED]; /* views inlined */
  int n_used;
  const char *stack[LM_VIEW_MAX_DEPTH]; /* views being inlined (cycles) */
  int depth;
  const char *ctes[256]; /* WITH names in scope: they shadow views */
  int n_ctes;
  int line, col; /* the first view named by the statement */
  bool oom, cycle, too_deep;
} inliner;

static lm_select *inl_select(inliner *x, const lm_select *s, int depth);

static bool cte_shadows(const inliner *x, const char *name) {
  for (int i = 0; i < x->n_ctes; i++)
    if (!strcmp(x->ctes[i], name))
      return true;
  return false;
}

static lm_from *inl_from(inliner *x, const lm_from *f, int depth) {
  lm_from *c = lm_arena_alloc(x->a, sizeof *c);
  if (!c) {
    x->oom = true;
    return (lm_from *)f;
  }
  *c = *f;
  if (depth > 1000)
    return c;
  if (f->kind == LM_FROM_JOIN) {
    c->left = inl_from(x, f->left, depth + 1);
    c->right = inl_from(x, f->right, depth + 1);
    return c;
  }
  if (f->kind == LM_FROM_SUBQUERY) {
    c->subquery = inl_select(x, f->subquery, depth + 1);
    return c;
  }
  lm_view *v = cte_shadows(x, f->name) ? NULL : find_view(x->db, f->name);
  if (!v)
    return c;
  if (!x->line) {
    x->line = f->line;
    x->col = f->column;
  }
  for (int i = 0; i < x->depth; i++)
    if (!strcmp(x->stack[i], v->name)) {
      x->cycle = true;
      return c;
    }
  bool seen = false;
  for (int i = 0; i < x->n_used; i++)
    seen = seen || !strcmp(x->used[i], v->name);
  if (x->depth >= LM_VIEW_MAX_DEPTH ||
      (!seen && x->n_used == LM_VIEW_MAX_USED)) {
    x->too_deep = true;
    return c;
  }
  if (!seen)
    x->used[x->n_used++] = v->name;
  x->stack[x->depth++] = v->name;
  int save = x->n_ctes;
  x->n_ctes = 0; /* the view's own scope */
  lm_select *q = inl_select(x, v->query, depth + 1);
  x->n_ctes = save;
  x->depth--;
  c->kind = LM_FROM_SUBQUERY;
  c->subquery = q;
  c->name = NULL;
  c->alias = f->alias ? f->alias : v->name;
  if (v->renamed && !f->n_col_aliases) {
    const char **names =
        lm_arena_alloc(x->a, sizeof *names * (size_t)v->schema->n_fields);
    if (!names) {
      x->oom = true;
      return c;
    }
    for (int i = 0; i < v->schema->n_fields; i++)
      names[i] = v->schema->fields[i].name;
    c->col_aliases = names;
    c->n_col_aliases = v->schema->n_fields;
  }
  return c;
}

static lm_select *inl_select(inliner *x, const lm_select *s, int depth) {
  lm_select *c = lm_arena_alloc(x->a, sizeof *c);
  if (!c) {
    x->oom = true;
    return (lm_select *)s;
  }
  *c = *s;
  if (depth > 1000)
    return c;
  int save = x->n_ctes;
  for (int i = 0; i < s->n_ctes && x->n_ctes < 256; i++)
    x->ctes[x->n_ctes++] = s->ctes[i].name;
  if (s->n_ctes) {
    lm_cte *ct = lm_arena_alloc(x->a, sizeof *ct * (size_t)s->n_ctes);
    if (!ct) {
      x->oom = true;
    } else {
      for (int i = 0; i < s->n_ctes; i++) {
        ct[i] = s->ctes[i];
        ct[i].query = inl_select(x, s->ctes[i].query, depth + 1);
      }
      c->ctes = ct;
    }
  }
  if (s->setop) {
    c->set_left = inl_select(x, s->set_left, depth + 1);
    c->set_right = inl_select(x, s->set_right, depth + 1);
  } else if (s->from_clause) {
    c->from_clause = inl_from(x, s->from_clause, depth + 1);
    const lm_from *f = c->from_clause;
    if (f->kind == LM_FROM_SUBQUERY && f->subquery) { /* as the parser */
      c->from_subquery = f->subquery;
      c->from = f->subquery->from;
      c->from_line = f->subquery->from_line;
      c->from_column = f->subquery->from_column;
      c->from_alias = f->alias;
    }
  }
  x->n_ctes = save;
  return c;
}

static int record_use(laminar_db *db, const char *node, const char *view) {
  lm_views *vs = views_of(db);
  if (!vs)
    return LM_ERR_NOMEM;
  if (vs->n_use == vs->cap_use) {
    int nc = vs->cap_use ? vs->cap_use * 2 : 8;
    view_use *u = realloc(vs->use, sizeof *u * (size_t)nc);
    if (!u)
      return LM_ERR_NOMEM;
    vs->use = u;
    vs->cap_use = nc;
  }
  view_use *u = &vs->use[vs->n_use];
  if (!(u->node = lm_strdup(node)) || !(u->view = lm_strdup(view))) {
    free(u->node);
    return LM_ERR_NOMEM;
  }
  vs->n_use++;
  return 0;
}

/* CREATE STREAM / MATERIALIZED VIEW (or EXPLAIN of one, `ex` its
 * EXPLAIN statement) reading views: inlined, then run. */
static int continuous(laminar_db *db, const lm_stmt *st, const lm_stmt *ex,
                      laminar_result **res, lm_error *err) {
  lm_arena a;
  lm_arena_init(&a, 4096);
  inliner x;
  memset(&x, 0, sizeof x);
  x.db = db;
  x.a = &a;
  lm_select *ns = inl_select(&x, st->select, 0);
  int rc;
  if (x.oom) {
    rc = nomem(err);
  } else if (x.too_deep) {
    rc = too_deep(err, x.line, x.col);
  } else if (x.cycle) {
    rc = pos_err(err, LM_ERR_BIND, x.line, x.col, "42P17",
                 "infinite recursion detected in rules for relation \"%s\"",
                 x.used[0]);
  } else {
    lm_stmt s2 = *st;
    s2.select = ns;
    bool existed = st->name && lm_engine_find(db, st->name);
    if (ex) {
      lm_stmt e2 = *ex;
      e2.explain = &s2;
      rc = exec_inner(db, &e2, res, err);
    } else {
      rc = exec_inner(db, &s2, res, err);
    }
    if (rc == LM_ERR_BIND && err && x.n_used &&
        (!err->sqlstate[0] || !strcmp(err->sqlstate, "0A000"))) {
      char why[sizeof err->msg];
      const char *m = err->msg;
      if (err->line > 0) { /* the reason without its position */
        const char *p = strstr(m, ": ");
        if (p)
          m = p + 2;
      }
      snprintf(why, sizeof why, "%s", m);
      pos_err(err, LM_ERR_BIND, x.line, x.col, "0A000",
              "view \"%s\" cannot be read by a continuous query (CREATE "
              "STREAM / MATERIALIZED VIEW): %s",
              x.used[0], why);
      lm_err_detail(err,
                    "A view is computed when it is read; a continuous query "
                    "inlines it, and this one cannot be maintained "
                    "incrementally. Query the view with SELECT, or write "
                    "the continuous query over the tables it reads.");
    }
    if (!rc && !ex && !existed) {
      lm_node *n = lm_engine_find(db, st->name);
      for (int i = 0; n && n->query && i < x.n_used && !rc; i++)
        if (record_use(db, st->name, x.used[i]))
          rc = nomem(err);
    }
  }
  lm_arena_free(&a);
  return rc;
}

/* ------------------------------------------------------- CREATE VIEW */

/* The output schema of sel run over empty stand-ins of the tables,
 * materialized views and views it names (sources and streams are read as
 * an ad-hoc SELECT reads them). *schema: a new reference. */
static int bind_schema(laminar_db *db, const lm_select *sel, const refs *r,
                       lm_schema **schema, lm_error *err) {
  int base = db->n_temps, rc = 0;
  for (int i = 0; !rc && i < r->n; i++) {
    lm_view *v = find_view(db, r->names[i]);
    lm_node *n = v ? NULL : lm_engine_find(db, r->names[i]);
    lm_schema *s = v ? v->schema
                   : n && (n->kind == LM_NODE_TABLE || n->kind == LM_NODE_MVIEW)
                       ? n->table_schema
                       : NULL;
    if (!s || temp_has(db, base, r->names[i]))
      continue;
    lm_batch *b = empty_of(lm_schema_retain(s));
    rc = b ? lm_engine_temp_push(db, r->names[i], b, false, err) : nomem(err);
  }
  laminar_result *res = NULL;
  if (!rc)
    rc = lm_engine_select(db, sel, &res, err);
  if (!rc)
    *schema = lm_schema_retain(res->schema);
  laminar_result_free(res);
  lm_engine_temps_pop(db, base);
  return rc;
}

/* Whether a view named `target` is reached from the relations r names
 * through views (a view that would read itself). *budget bounds the walk
 * over a graph with many shared paths; a cycle missed when it runs out is
 * still caught, as a depth error, when the view is read. */
static bool reaches(laminar_db *db, const char *target, const char *name,
                    int depth, long *budget) {
  if (!strcmp(name, target))
    return true;
  lm_view *v = find_view(db, name);
  if (!v || depth > LM_VIEW_MAX_DEPTH || --*budget < 0)
    return false; /* CREATE refused cycles, so a chain ends */
  for (int i = 0; i < v->n_deps; i++)
    if (reaches(db, target, v->deps[i], depth + 1, budget))
      return true;
  return false;
}

static const char *pg_type(lm_type t) {
  return lm_pg_type_name(t); /* PostgreSQL's spelling, as its errors */
}

static int create_view(laminar_db *db, const lm_stmt *st, laminar_result **res,
                       lm_error *err) {
  lm_view *old = find_view(db, st->name);
  lm_node *node = lm_engine_find(db, st->name);
  if (old && !st->or_replace) {
    if (st->if_not_exists)
      return 0;
    return pos_err(err, LM_ERR_EXISTS, st->line, st->column, "42P07",
                   "relation \"%s\" already exists", st->name);
  }
  refs r = {0};
  walk_select(&r, st->select, 0);
  if (r.oom) {
    refs_free(&r);
    return nomem(err);
  }
  /* over a source or a stream: a materialized view when it can be one */
  bool streaming = false;
  for (int i = 0; i < r.n; i++) {
    lm_node *n =
        find_view(db, r.names[i]) ? NULL : lm_engine_find(db, r.names[i]);
    streaming = streaming ||
                (n && (n->kind == LM_NODE_SOURCE || n->kind == LM_NODE_STREAM));
  }
  lm_error first;
  lm_err_clear(&first);
  if (streaming && !old) {
    int rc = refs_views(db, &r) ? continuous(db, st, NULL, res, &first)
                                : exec_inner(db, st, res, &first);
    if (!rc || rc == LM_ERR_EXISTS || rc == LM_ERR_NOMEM) {
      refs_free(&r);
      if (rc && err)
        *err = first;
      return rc;
    }
  }
  if (!old) {
    int taken = lm_engine_name_taken(db, st, err);
    if (taken) {
      refs_free(&r);
      return taken < 0 ? 0 : taken;
    }
  } else if (node) { /* cannot happen: one namespace */
    refs_free(&r);
    return pos_err(err, LM_ERR_EXISTS, st->line, st->column, "42P07",
                   "relation \"%s\" already exists", st->name);
  }
  lm_schema *bound = NULL;
  int rc = bind_schema(db, st->select, &r, &bound, err);
  if (rc && streaming && first.code) { /* the materialized view's reason */
    if (err)
      *err = first;
    rc = first.code;
  }
  int nf = bound ? bound->n_fields : 0;
  if (!rc && st->n_view_cols > nf)
    rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42601",
                 "CREATE VIEW specifies more column names than columns");
  lm_schema *s = rc ? NULL : lm_schema_new(nf);
  if (!rc && !s)
    rc = nomem(err);
  bool renamed = false;
  for (int c = 0; !rc && c < nf; c++) {
    const lm_field *f = &bound->fields[c];
    const char *nm = c < st->n_view_cols ? st->view_cols[c] : f->name;
    renamed = renamed || strcmp(nm, f->name);
    for (int k = 0; k < c && !rc; k++)
      if (!strcmp(s->fields[k].name, nm))
        rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42701",
                     "column \"%s\" specified more than once", nm);
    if (!rc && (lm_schema_set_field(s, c, nm, f->type, true) ||
                (f->timezone && lm_schema_set_timezone(s, c, f->timezone))))
      rc = nomem(err);
  }
  if (rc) {
    lm_schema_release(bound);
    bound = NULL;
  }
  if (!rc && old) { /* CREATE OR REPLACE: PostgreSQL's rules */
    const lm_schema *os = old->schema;
    long budget = 1000000;
    for (int i = 0; !rc && i < r.n; i++)
      if (reaches(db, st->name, r.names[i], 0, &budget))
        rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42P17",
                     "infinite recursion detected in rules for relation "
                     "\"%s\"",
                     st->name);
    if (!rc && nf < os->n_fields)
      rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42P16",
                   "cannot drop columns from view");
    for (int c = 0; !rc && c < os->n_fields; c++) {
      if (strcmp(os->fields[c].name, s->fields[c].name))
        rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42P16",
                     "cannot change name of view column \"%s\" to \"%s\"",
                     os->fields[c].name, s->fields[c].name);
      else if (!lm_type_eq(os->fields[c].type, s->fields[c].type)) {
        char a[64];
        snprintf(a, sizeof a, "%s", pg_type(os->fields[c].type));
        rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "42P16",
                     "cannot change data type of view column \"%s\" from %s "
                     "to %s",
                     os->fields[c].name, a, pg_type(s->fields[c].type));
      }
    }
    lm_views *vs = db->views;
    for (int i = 0; !rc && vs && i < vs->n_use; i++)
      if (!strcmp(vs->use[i].view, st->name) &&
          lm_engine_find(db, vs->use[i].node))
        rc = pos_err(err, LM_ERR_BIND, st->line, st->column, "0A000",
                     "cannot replace view \"%s\": \"%s\" was built from its "
                     "query (continuous queries inline the views they read); "
                     "drop it first",
                     st->name, vs->use[i].node);
  }
  /* the view keeps its own parse of the statement */
  lm_view *v = rc ? NULL : calloc(1, sizeof *v);
  if (!rc && !v)
    rc = nomem(err);
  if (!rc) {
    v->schema = s;
    s = NULL;
    v->qschema = bound;
    bound = NULL;
    v->renamed = renamed;
    const char *text = st->text ? st->text : "";
    lm_error pe;
    lm_err_clear(&pe);
    if (!(v->name = lm_strdup(st->name)) || !(v->sql = lm_strdup(text)))
      rc = nomem(err);
    else if (lm_sql_parse(text, strlen(text), &v->script, &pe) ||
             v->script->n_stmts != 1 || !v->script->stmts[0]->select)
      rc = pos_err(err, LM_ERR_GENERIC, st->line, st->column, NULL,
                   "CREATE VIEW: its text does not parse again (%s)", pe.msg);
    else
      v->query = v->script->stmts[0]->select;
  }
  if (!rc && r.n) {
    v->deps = calloc((size_t)r.n, sizeof *v->deps);
    if (!v->deps)
      rc = nomem(err);
    for (int i = 0; !rc && i < r.n; i++) {
      if (!find_view(db, r.names[i]) && !lm_engine_find(db, r.names[i]))
        continue; /* a WITH query of its own */
      if (!(v->deps[v->n_deps++] = lm_strdup(r.names[i])))
        rc = nomem(err);
    }
  }
  lm_views *vs = rc ? NULL : views_of(db);
  if (!rc && !vs)
    rc = nomem(err);
  if (!rc && !old && vs->n == vs->cap) {
    int nc = vs->cap ? vs->cap * 2 : 8;
    lm_view **nv = realloc(vs->v, sizeof *nv * (size_t)nc);
    if (!nv)
      rc = nomem(err);
    else {
      vs->v = nv;
      vs->cap = nc;
    }
  }
  if (!rc) {
    if (old) {
      for (int i = 0; i < vs->n; i++)
        if (vs->v[i] == old)
          vs->v[i] = v;
      view_free(old);
    } else {
      vs->v[vs->n++] = v;
    }
    v = NULL;
  }
  view_free(v);
  lm_schema_release(s);
  lm_schema_release(bound);
  refs_free(&r);
  return rc;
}

/* ----------------------------------------------------------------- DROP */

static int drop_view(laminar_db *db, lm_view *v, bool cascade,
                     const lm_stmt *st, int depth, lm_error *err);

/* Views and continuous queries reading `name` (kind word `what`): an
 * error without cascade, dropped with it. */
static int dependents(laminar_db *db, const char *name, const char *what,
                      bool cascade, const lm_stmt *st, int depth,
                      lm_error *err) {
  lm_views *vs = db->views;
  if (!vs)
    return 0;
  if (depth > 1000)
    return lm_err(err, LM_ERR_LIMIT, "DROP CASCADE: dependency chain too deep");
  if (!cascade) {
    char detail[sizeof err->detail];
    size_t k = 0;
    int n = 0;
    detail[0] = '\0';
    for (int i = 0; i < vs->n; i++)
      if (strcmp(vs->v[i]->name, name) && depends_on(vs->v[i], name) &&
          k < sizeof detail - 1) {
        int w = snprintf(detail + k, sizeof detail - k,
                         "%sview %s depends on %s %s", n++ ? "\n" : "",
                         vs->v[i]->name, what, name);
        k = w > 0 ? LM_MIN(k + (size_t)w, sizeof detail - 1) : k;
      }
    for (int i = 0; i < vs->n_use; i++) {
      lm_node *nd = strcmp(vs->use[i].view, name)
                        ? NULL
                        : lm_engine_find(db, vs->use[i].node);
      if (nd && k < sizeof detail - 1) {
        int w = snprintf(detail + k, sizeof detail - k,
                         "%s%s %s depends on %s %s", n++ ? "\n" : "",
                         nd->kind == LM_NODE_STREAM ? "stream"
                                                    : "materialized view",
                         nd->name, what, name);
        k = w > 0 ? LM_MIN(k + (size_t)w, sizeof detail - 1) : k;
      }
    }
    if (!n)
      return 0;
    pos_err(err, LM_ERR_BIND, st->line, st->column, "2BP01",
            "cannot drop %s %s because other objects depend on it", what, name);
    /* no HINT field: psql's layout, after the DETAIL */
    lm_err_detail(err,
                  "%s\nHINT:  Use DROP ... CASCADE to drop the dependent "
                  "objects too.",
                  detail);
    return LM_ERR_BIND;
  }
  for (int i = 0; i < vs->n;) {
    lm_view *v = vs->v[i];
    if (strcmp(v->name, name) && depends_on(v, name)) {
      int rc = drop_view(db, v, true, st, depth + 1, err);
      if (rc)
        return rc;
      i = 0; /* the list changed */
      continue;
    }
    i++;
  }
  for (int i = 0; i < vs->n_use;) {
    lm_node *nd = strcmp(vs->use[i].view, name)
                      ? NULL
                      : lm_engine_find(db, vs->use[i].node);
    if (!nd) {
      i++;
      continue;
    }
    lm_stmt d;
    memset(&d, 0, sizeof d);
    d.kind = LM_STMT_DROP;
    d.line = st->line;
    d.column = st->column;
    d.object = nd->kind == LM_NODE_STREAM ? LM_OBJ_STREAM : LM_OBJ_MVIEW;
    d.name = nd->name;
    d.cascade = true;
    int rc = exec_inner(db, &d, NULL, err);
    if (rc)
      return rc;
    i = 0;
  }
  return 0;
}

static int drop_view(laminar_db *db, lm_view *v, bool cascade,
                     const lm_stmt *st, int depth, lm_error *err) {
  int rc = dependents(db, v->name, "view", cascade, st, depth, err);
  if (rc)
    return rc;
  lm_views *vs = db->views;
  for (int i = 0; i < vs->n; i++)
    if (vs->v[i] == v) { /* creation order kept (SHOW VIEWS) */
      memmove(&vs->v[i], &vs->v[i + 1],
              sizeof *vs->v * (size_t)(vs->n - i - 1));
      vs->n--;
      break;
    }
  view_free(v);
  return 0;
}

int lm_view_drop_check(laminar_db *db, const char *name, const char *what,
                       bool cascade, const lm_stmt *st, lm_error *err) {
  return dependents(db, name, what, cascade, st, 0, err);
}

void lm_view_forget_node(laminar_db *db, const char *name) {
  lm_views *vs = db->views;
  for (int i = 0; vs && i < vs->n_use;) {
    if (!strcmp(vs->use[i].node, name)) {
      free(vs->use[i].node);
      free(vs->use[i].view);
      vs->use[i] = vs->use[--vs->n_use];
      continue;
    }
    i++;
  }
}

static bool in_list(const lm_stmt *st, const char *name) {
  for (int i = 0; i <= st->n_drop_more; i++)
    if (!strcmp(i ? st->drop_more[i - 1] : st->name, name))
      return true;
  return false;
}

/* Whether something outside the DROP list reads `name`. */
static bool outside_readers(laminar_db *db, const char *name,
                            const lm_stmt *st) {
  lm_views *vs = db->views;
  for (int i = 0; vs && i < vs->n; i++)
    if (strcmp(vs->v[i]->name, name) && depends_on(vs->v[i], name) &&
        !in_list(st, vs->v[i]->name))
      return true;
  for (int i = 0; vs && i < vs->n_use; i++)
    if (!strcmp(vs->use[i].view, name) && lm_engine_find(db, vs->use[i].node) &&
        !in_list(st, vs->use[i].node))
      return true;
  lm_node *n = lm_engine_find(db, name);
  return n && (n->n_queries || n->n_sinks); /* engine.c's own check */
}

/* DROP VIEW / MATERIALIZED VIEW a, b, ... naming at least one view: what
 * reads one of them may be in the list too (dropped with it, as
 * PostgreSQL's DROP of several objects). */
static int drop_views(laminar_db *db, const lm_stmt *st, lm_error *err) {
  int n = 1 + st->n_drop_more;
  for (int i = 0; i < n; i++) { /* every name first */
    const char *nm = i ? st->drop_more[i - 1] : st->name;
    lm_node *nd = lm_engine_find(db, nm);
    if (find_view(db, nm) && !st->plain_view) { /* PostgreSQL's, its HINT */
      pos_err(err, LM_ERR_BIND, st->line, st->column, "42809",
              "\"%s\" is not a materialized view", nm);
      return lm_err_hint(err, "Use DROP VIEW to remove a view.");
    }
    if (!find_view(db, nm) && !(nd && nd->kind == LM_NODE_MVIEW) &&
        !st->if_exists)
      return pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, "42P01",
                     "view \"%s\" does not exist", nm);
  }
  bool inner = st->cascade;
  if (!inner && n > 1) { /* readers only inside the list: drop together */
    inner = true;
    for (int i = 0; i < n && inner; i++)
      inner = !outside_readers(db, i ? st->drop_more[i - 1] : st->name, st);
  }
  for (int i = 0; i < n; i++) {
    const char *nm = i ? st->drop_more[i - 1] : st->name;
    lm_view *v = find_view(db, nm);
    int rc = 0;
    if (v) {
      rc = drop_view(db, v, inner, st, 0, err);
    } else {
      lm_node *nd = lm_engine_find(db, nm);
      if (nd && nd->kind == LM_NODE_MVIEW) {
        lm_stmt one = *st;
        one.name = nm;
        one.drop_more = NULL;
        one.n_drop_more = 0;
        one.cascade = inner;
        rc = exec_inner(db, &one, NULL, err);
      }
    }
    if (rc)
      return rc;
  }
  return 0;
}

/* ----------------------------------------------------------- dispatch */

static const char *object_word(lm_object_kind k) {
  switch (k) {
  case LM_OBJ_SOURCE:
    return "a source";
  case LM_OBJ_STREAM:
    return "a stream";
  case LM_OBJ_SINK:
    return "a sink";
  case LM_OBJ_TABLE:
    return "a table";
  case LM_OBJ_INDEX:
    return "an index";
  default:
    return "a materialized view";
  }
}

static int show_views(laminar_db *db, laminar_result **res, lm_error *err) {
  lm_views *vs = db->views;
  int n = vs ? vs->n : 0;
  const char **cells = calloc((size_t)n * 2 + 1, sizeof *cells);
  if (!cells)
    return nomem(err);
  for (int i = 0; i < n; i++) {
    cells[2 * i] = vs->v[i]->name;
    cells[2 * i + 1] = vs->v[i]->sql;
  }
  const char *names[2] = {"view_name", "sql"};
  *res = lm_engine_text_result(names, 2, cells, n);
  free(cells);
  return *res ? 0 : nomem(err);
}

static int describe_view(const lm_view *v, laminar_result **res,
                         lm_error *err) {
  const lm_schema *s = v->schema;
  const char **cells = calloc((size_t)s->n_fields * 3 + 1, sizeof *cells);
  if (!cells)
    return nomem(err);
  for (int i = 0; i < s->n_fields; i++) {
    cells[i * 3] = s->fields[i].name;
    cells[i * 3 + 1] = lm_type_name(s->fields[i].type);
    cells[i * 3 + 2] = "true";
  }
  const char *names[3] = {"column_name", "data_type", "nullable"};
  *res = lm_engine_text_result(names, 3, cells, s->n_fields);
  free(cells);
  return *res ? 0 : nomem(err);
}

int lm_view_exec(laminar_db *db, const lm_stmt *st, laminar_result **res,
                 lm_error *err, bool *handled) {
  *handled = true;
  if (st->kind == LM_STMT_CREATE_MVIEW && st->plain_view)
    return create_view(db, st, res, err);
  if (st->kind == LM_STMT_SHOW && st->plain_view)
    return show_views(db, res, err);
  if (!db->views || !db->views->n) {
    *handled = false;
    return 0;
  }
  const lm_view *tv = st->name ? find_view(db, st->name) : NULL;
  switch (st->kind) {
  case LM_STMT_DROP: {
    bool any = false;
    for (int i = 0; i <= st->n_drop_more && !any; i++)
      any = find_view(db, i ? st->drop_more[i - 1] : st->name) != NULL;
    if (!any)
      break;
    if (st->object == LM_OBJ_MVIEW)
      return drop_views(db, st, err);
    for (int i = 0; i <= st->n_drop_more; i++) {
      const char *nm = i ? st->drop_more[i - 1] : st->name;
      if (find_view(db, nm)) { /* PostgreSQL's message and HINT */
        pos_err(err, LM_ERR_BIND, st->line, st->column, "42809",
                "\"%s\" is not %s", nm, object_word(st->object));
        return lm_err_hint(err, "Use DROP VIEW to remove a view.");
      }
    }
    break;
  }
  case LM_STMT_DESCRIBE:
    if (tv)
      return describe_view(tv, res, err);
    break;
  case LM_STMT_CREATE_SINK:
    if (st->sink_from && find_view(db, st->sink_from))
      return pos_err(err, LM_ERR_BIND, st->line, st->column, "0A000",
                     "a sink reads a stream or a materialized view; \"%s\" is "
                     "a view, computed when it is read: create a MATERIALIZED "
                     "VIEW or a STREAM over it",
                     st->sink_from);
    break;
  case LM_STMT_INSERT:
  case LM_STMT_UPDATE:
  case LM_STMT_DELETE:
    if (tv) {
      pos_err(err, LM_ERR_BIND, st->line, st->column, "55000",
              "cannot %s view \"%s\"",
              st->kind == LM_STMT_INSERT   ? "insert into"
              : st->kind == LM_STMT_UPDATE ? "update"
                                           : "delete from",
              st->name);
      lm_err_detail(err, "Views are read-only in Laminar: write to the "
                         "tables they read.");
      return LM_ERR_BIND;
    }
    break;
  case LM_STMT_EXPLAIN:
    if (!st->explain && tv)
      return pos_err(err, LM_ERR_BIND, st->line, st->column, "0A000",
                     "\"%s\" is a view, computed when it is read: EXPLAIN "
                     "SELECT * FROM %s shows how",
                     st->name, st->name);
    break;
  default:
    break;
  }
  refs r = {0};
  bool cq = st->kind == LM_STMT_CREATE_STREAM ||
            st->kind == LM_STMT_CREATE_MVIEW ||
            (st->kind == LM_STMT_EXPLAIN && st->explain &&
             (st->explain->kind == LM_STMT_CREATE_STREAM ||
              st->explain->kind == LM_STMT_CREATE_MVIEW));
  bool reads = st->kind == LM_STMT_SELECT || st->kind == LM_STMT_INSERT ||
               st->kind == LM_STMT_UPDATE || st->kind == LM_STMT_DELETE ||
               st->kind == LM_STMT_EXPLAIN || cq;
  if (reads)
    walk_stmt(&r, st, 0);
  int rc = 0;
  if (r.oom)
    rc = nomem(err);
  else if (!reads || !refs_views(db, &r))
    *handled = false;
  else if (cq && st->kind == LM_STMT_EXPLAIN)
    rc = continuous(db, st->explain, st, res, err);
  else if (cq)
    rc = continuous(db, st, NULL, res, err);
  else
    rc = adhoc(db, st, &r, res, err);
  refs_free(&r);
  return rc;
}
