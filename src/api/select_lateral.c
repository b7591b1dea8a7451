/*
 * api/select_lateral.c — LATERAL subqueries in FROM of ad-hoc queries
 * (api/select_lateral.h, docs/subqueries.md "LATERAL subqueries").
 *
 * `FROM l, LATERAL (q) s` is PostgreSQL's nested loop: q runs for each row
 * of l with l's columns it reads bound to that row's values. Here:
 *
 *   1. q's outer references are found by binding `SELECT EXISTS (q) FROM
 *      l WHERE false` (nothing runs over l's rows): the binder registers
 *      every column of l that q reads as a parameter of the subplan, with
 *      the AST nodes that read it (plan/subquery_bind.c). Our hooks wrap
 *      the statement's subquery hooks (api/select_subq.c) to copy them.
 *   2. `SELECT DISTINCT refs FROM l` gives the distinct tuples.
 *   3. For each tuple, q is re-planned with its references resolved to
 *      slots holding the tuple (lm_plan_subq_run_enter, as a correlated
 *      subquery expression is run) and run; its rows are kept beside the
 *      tuple's values in hidden columns (api/srf_from.h, LM_SRF_HIDDEN).
 *   4. The caller joins l with that relation on hidden = ref (NULL-safe
 *      where a NULL ran), with the join's own type and ON.
 *
 * A tuple is run once however many rows of l share it, as PostgreSQL's
 * Memoize node does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/select_lateral.h"
#include "api/srf_from.h"
#include "base/lm_base.h"
#include "exec/lm_exec.h"
#include "exec/lm_srf.h"

#define MAX_PARAMS 64
/* key columns: a parameter's value, plus an exact form of it for types
 * whose equality is coarser than identity (exact_form) */
#define MAX_KEYS (2 * MAX_PARAMS)
#define HID 200 /* a hidden column's name */

#define perr lm_engine_pos_errf /* an error at line:col with a SQLSTATE */

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* What binding the probe learned about q (step 1). */
typedef struct probe {
  const lm_subq_hooks *eh; /* the statement's hooks, wrapped */
  const lm_select *q;      /* the LATERAL subquery */
  bool seen;
  lm_schema *schema; /* q's output schema (a reference) */
  int n_params;
  const lm_expr *pref[MAX_PARAMS]; /* an AST node reading each parameter */
  lm_type ptype[MAX_PARAMS];       /* each parameter's type */
  const lm_expr **refs;            /* every outer reference (malloc'd) */
  int *ref_param;                  /* its parameter */
  int n_refs;
} probe;

static lm_subplan *p_new(void *ctx) {
  probe *p = ctx;
  return p->eh->new_subplan(p->eh->ctx);
}

static int p_run(void *ctx, lm_subplan *sp, lm_batch **out, lm_error *err) {
  probe *p = ctx;
  return p->eh->run(p->eh->ctx, sp, out, err);
}

/* Records what binding q taught (refs, parameters) in p; errors as
 * p_prepare's. */
static int p_learn(probe *p, const lm_subplan *sp, lm_error *err) {
  if (sp->n_params > MAX_PARAMS)
    return perr(err, LM_ERR_BIND, sp->line, sp->column, "54000",
                "a LATERAL subquery reads more than %d columns of the FROM "
                "items before it",
                MAX_PARAMS);
  p->n_params = sp->n_params;
  p->refs = malloc(sizeof *p->refs * (size_t)(sp->n_refs + 1));
  p->ref_param = malloc(sizeof *p->ref_param * (size_t)(sp->n_refs + 1));
  if (!p->refs || !p->ref_param)
    return nomem(err);
  for (int k = 0; k < sp->n_params; k++) {
    p->pref[k] = NULL;
    p->ptype[k] = sp->params[k]->type;
  }
  for (int i = 0; i < sp->n_refs; i++) {
    int k = 0;
    while (k < sp->n_params && sp->params[k] != sp->ref_slots[i])
      k++;
    if (k == sp->n_params)
      continue;
    p->refs[p->n_refs] = sp->ref_exprs[i];
    p->ref_param[p->n_refs++] = k;
    if (!p->pref[k])
      p->pref[k] = sp->ref_exprs[i];
  }
  for (int k = 0; k < sp->n_params; k++) {
    const lm_expr *e = p->pref[k];
    if (!e)
      return lm_err(err, LM_ERR_BIND,
                    "a LATERAL subquery's outer reference was not found");
    if (e->kind != LM_EXPR_COLUMN)
      return perr(err, LM_ERR_BIND, e->line, e->column, "42803",
                  "aggregate functions are not allowed in FROM clause of "
                  "their own query level");
  }
  return 0;
}

static int p_prepare(void *ctx, lm_subplan *sp, lm_schema **schema,
                     lm_error *err) {
  probe *p = ctx;
  int rc = p->eh->prepare(p->eh->ctx, sp, schema, err);
  if (rc || sp->sel != p->q || p->seen)
    return rc;
  p->seen = true;
  p->schema = lm_schema_retain(*schema);
  if ((rc = p_learn(p, sp, err))) {
    /* the binder keeps *schema only on success */
    lm_schema_release(*schema);
    *schema = NULL;
  }
  return rc;
}

/* Step 1: binds `SELECT EXISTS (q) FROM left WHERE false`, filling p. */
static int run_probe(laminar_db *db, const lm_from *f, const lm_from *left,
                     probe *p, lm_error *err) {
  lm_expr ex, no;
  memset(&ex, 0, sizeof ex);
  memset(&no, 0, sizeof no);
  ex.kind = LM_EXPR_SUBQUERY;
  ex.subq = LM_SUBQ_EXISTS;
  ex.subquery = f->subquery;
  ex.line = f->subquery->line ? f->subquery->line : f->line;
  ex.column = f->subquery->line ? f->subquery->column : f->column;
  no.kind = LM_EXPR_LITERAL;
  no.lit = LM_LIT_BOOL;
  no.bval = false;
  no.line = f->line;
  no.column = f->column;
  lm_select_item it = {&ex, NULL};
  lm_select s;
  memset(&s, 0, sizeof s);
  s.line = f->line;
  s.column = f->column;
  s.items = &it;
  s.n_items = 1;
  s.where = &no;
  s.limit = -1;
  s.adhoc_rewritten = true;
  lm_sql_select_set_from(&s, left);
  /* the probe's subplans live in an environment of their own */
  lm_subq_env *env = lm_engine_subq_enter(db);
  if (!env)
    return nomem(err);
  p->eh = lm_plan_set_subq_hooks(NULL);
  lm_subq_hooks wh;
  memset(&wh, 0, sizeof wh);
  wh.ctx = p;
  wh.new_subplan = p_new;
  wh.prepare = p_prepare;
  wh.run = p_run;
  lm_plan_set_subq_hooks(&wh);
  laminar_result *res = NULL;
  int rc = lm_engine_select_plain(db, &s, &res, err);
  lm_plan_set_subq_hooks(p->eh);
  lm_engine_subq_leave(env);
  if (res)
    laminar_result_free(res);
  if (!rc && !p->seen)
    rc = lm_err(err, LM_ERR_BIND, "could not plan the LATERAL subquery");
  return rc;
}

/* The qualifier (alias or name) of the one TABLE item of left with a
 * column `col`, or NULL (none, several). */
static const char *owner_of(laminar_db *db, const lm_from *f, const char *col,
                            int *hits, int depth) {
  if (!f || depth > 1000)
    return NULL;
  if (f->kind == LM_FROM_JOIN) {
    const char *a = owner_of(db, f->left, col, hits, depth + 1);
    const char *b = owner_of(db, f->right, col, hits, depth + 1);
    return a ? a : b;
  }
  if (f->kind != LM_FROM_TABLE)
    return NULL;
  lm_error scratch;
  lm_err_clear(&scratch);
  lm_node *n = lm_engine_find_input(db, f->name, 0, 0, &scratch);
  if (!n || !n->table_schema || lm_schema_find(n->table_schema, col) < 0)
    return NULL;
  ++*hits;
  return f->alias ? f->alias : f->name;
}

/* An AST node at at's position (NULL on OOM or when an operand is NULL). */
static lm_expr *node(lm_arena *a, lm_expr_kind kind, lm_op op, lm_expr *l,
                     lm_expr *r, const lm_expr *at) {
  return lm_sql_op_node(a, kind, op, l, r, at->line, at->column);
}

/* Whether an item of q's own FROM f is named or aliased n. */
static bool own_item(const lm_from *f, const char *n, int depth) {
  if (!f || depth > 1000)
    return false;
  if (f->kind == LM_FROM_JOIN)
    return own_item(f->left, n, depth + 1) || own_item(f->right, n, depth + 1);
  return (f->alias && !strcmp(f->alias, n)) ||
         (!f->alias && f->name && !strcmp(f->name, n));
}

/* The TABLE item of left named or aliased n, or NULL. */
static const lm_from *left_item(const lm_from *f, const char *n, int depth) {
  if (!f || depth > 1000)
    return NULL;
  if (f->kind == LM_FROM_JOIN) {
    const lm_from *x = left_item(f->left, n, depth + 1);
    return x ? x : left_item(f->right, n, depth + 1);
  }
  const char *q = f->alias ? f->alias : f->name;
  return f->kind == LM_FROM_TABLE && q && !strcmp(q, n) ? f : NULL;
}

/* `SELECT t.*` in q, t an item before the LATERAL item (left): t's
 * columns, as PostgreSQL expands it (the binder's star covers q's own
 * FROM only). *fx = *f, its subquery a copy (arena a) when one expanded. */
static int expand_stars(laminar_db *db, lm_arena *a, const lm_from *f,
                        const lm_from *left, lm_from *fx, lm_error *err) {
  *fx = *f;
  const lm_select *q = f->subquery;
  if (!q || q->setop || q->values)
    return 0;
  int n = 0;
  bool any = false;
  const lm_schema *sch[256] = {0};
  for (int i = 0; i < q->n_items; i++) {
    const lm_expr *e = q->items[i].expr;
    const lm_from *t = NULL;
    lm_node *nd = NULL;
    lm_error scratch;
    lm_err_clear(&scratch);
    if (i < 256 && e->kind == LM_EXPR_STAR && e->table &&
        !own_item(q->from_clause, e->table, 0) &&
        !(q->from_alias && !strcmp(q->from_alias, e->table)) &&
        !(!q->from_alias && q->from && !strcmp(q->from, e->table)) &&
        (t = left_item(left, e->table, 0)) &&
        (nd = lm_engine_find_input(db, t->name, 0, 0, &scratch)) &&
        nd->table_schema) {
      sch[i] = nd->table_schema;
      any = true;
      for (int c = 0; c < sch[i]->n_fields; c++)
        n += sch[i]->fields[c].name[0] != LM_SRF_HIDDEN;
    } else {
      n++;
    }
  }
  if (!any)
    return 0;
  lm_select *nq = lm_arena_alloc(a, sizeof *nq);
  lm_select_item *items = lm_arena_alloc(a, sizeof *items * (size_t)(n + 1));
  if (!nq || !items)
    return nomem(err);
  int k = 0;
  for (int i = 0; i < q->n_items; i++) {
    const lm_expr *e = q->items[i].expr;
    if (i >= 256 || !sch[i]) {
      items[k++] = q->items[i];
      continue;
    }
    for (int c = 0; c < sch[i]->n_fields; c++) {
      const char *cn = sch[i]->fields[c].name;
      if (cn[0] == LM_SRF_HIDDEN)
        continue;
      lm_expr *col = node(a, LM_EXPR_COLUMN, LM_OP_NONE, NULL, NULL, e);
      if (!col)
        return nomem(err);
      col->table = e->table;
      col->name = cn;
      col->quoted = true; /* exactly that column */
      items[k].expr = col;
      items[k++].alias = cn;
    }
  }
  *nq = *q;
  nq->items = items;
  nq->n_items = k;
  fx->subquery = nq;
  return 0;
}

/* The output schema: q's columns renamed by f's column aliases, then the
 * hidden columns of keys' types. */
static int out_schema(laminar_db *db, const lm_from *f, const lm_schema *qs,
                      const lm_batch *keys, int n_params, const probe *p,
                      const int *kparam, const int *kform, char hid[][HID],
                      lm_schema **out, lm_error *err) {
  const char *rel = f->alias ? f->alias : "subquery";
  if (f->n_col_aliases > qs->n_fields)
    return perr(err, LM_ERR_BIND, f->line, f->column, "42P10",
                "table \"%s\" has %d columns available but %d columns "
                "specified",
                rel, qs->n_fields, f->n_col_aliases);
  lm_schema *s = lm_schema_new(qs->n_fields + n_params);
  if (!s)
    return nomem(err);
  int rc = 0;
  for (int i = 0; !rc && i < qs->n_fields; i++) {
    const lm_field *fl = &qs->fields[i];
    rc = lm_schema_set_field(
        s, i, i < f->n_col_aliases ? f->col_aliases[i] : fl->name, fl->type,
        fl->nullable);
    if (!rc && fl->timezone)
      rc = lm_schema_set_timezone(s, i, fl->timezone);
    lm_typmod m = lm_schema_typmod(qs, i);
    if (!rc && (m.char_len || m.bpchar || m.tprec))
      rc = lm_schema_set_typmod(s, i, m);
  }
  for (int k = 0; !rc && k < n_params; k++) {
    /* hidden, unique; EXPLAIN shows it as s.(<what it holds>) */
    const lm_expr *r = p->pref[kparam[k]];
    snprintf(hid[k], HID, "%clat_p%d_%d\x02%s%s%s%s%s%s", LM_SRF_HIDDEN,
             db->n_temps, k + 1, kform[k] == 2 ? "octet_length(" : "",
             r->table ? r->table : "", r->table ? "." : "",
             r->name ? r->name : "?", kform[k] == 1 ? "::text" : "",
             kform[k] == 2 ? ")" : "");
    rc = lm_schema_set_field(s, qs->n_fields + k, hid[k],
                             keys->columns[k]->type, true);
  }
  if (rc) {
    lm_schema_release(s);
    return nomem(err);
  }
  *out = s;
  return 0;
}

typedef struct blist {
  lm_batch **b;
  int n, cap;
} blist;

static int blist_add(blist *l, lm_batch *b, lm_error *err) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    lm_batch **nb = realloc(l->b, sizeof *nb * (size_t)cap);
    if (!nb) {
      lm_batch_release(b);
      return nomem(err);
    }
    l->b = nb;
    l->cap = cap;
  }
  l->b[l->n++] = b;
  return 0;
}

/* Adds q's result batch rb (for key row r) to out, with the hidden
 * columns; rb stays the caller's. */
static int add_rows(const lm_batch *rb, const lm_batch *keys, int64_t r,
                    lm_schema *sc, int n_params, int32_t **idx, int64_t *cap,
                    blist *out, lm_error *err) {
  int nq = sc->n_fields - n_params;
  if (rb->num_columns != nq)
    return lm_err(err, LM_ERR_EXEC,
                  "a LATERAL subquery returned a different number of "
                  "columns for another row");
  for (int c = 0; c < nq; c++)
    if (!lm_type_eq(rb->columns[c]->type, sc->fields[c].type))
      return lm_err(err, LM_ERR_EXEC,
                    "a LATERAL subquery returned another type for another "
                    "row");
  int64_t n = rb->num_rows;
  if (n > *cap) {
    int32_t *ni = realloc(*idx, sizeof *ni * (size_t)n);
    if (!ni)
      return nomem(err);
    *idx = ni;
    *cap = n;
  }
  for (int64_t i = 0; i < n; i++)
    (*idx)[i] = (int32_t)r;
  lm_array *cols[nq + MAX_KEYS];
  for (int c = 0; c < nq; c++)
    cols[c] = lm_array_retain(rb->columns[c]);
  int rc = 0;
  for (int k = 0; k < n_params; k++) {
    cols[nq + k] = lm_array_take_nullable(keys->columns[k], *idx, n);
    if (!cols[nq + k])
      rc = -1;
  }
  if (rc) {
    for (int c = 0; c < nq + n_params; c++)
      lm_array_release(cols[c]);
    return nomem(err);
  }
  lm_batch *b = lm_batch_new(lm_schema_retain(sc), n, cols);
  return b ? blist_add(out, b, err) : nomem(err);
}

/* Pushes the batches as the temporary relation `name`. */
static int push_rel(laminar_db *db, const char *name, lm_schema *sc, blist *l,
                    lm_error *err) {
  int rc = 0;
  if (!l->n) { /* no rows: one empty batch */
    lm_batch_builder bb;
    lm_batch *e = NULL;
    if ((rc = lm_batch_builder_init(&bb, sc, 0)))
      return rc;
    rc = lm_batch_builder_finish(&bb, &e, err);
    lm_batch_builder_free(&bb);
    if (!rc)
      rc = blist_add(l, e, err);
    if (rc)
      return rc;
  }
  rc = lm_engine_temp_push(db, name, l->b[0], false, err);
  l->b[0] = NULL;
  lm_node *n = rc ? NULL : db->temps[db->n_temps - 1];
  if (n && l->n > 1) {
    lm_batch **st = realloc(n->store, sizeof *st * (size_t)l->n);
    if (!st)
      return nomem(err);
    n->store = st;
    for (int i = 1; i < l->n; i++) {
      st[n->n_store++] = l->b[i];
      l->b[i] = NULL;
    }
    n->cap_store = n->n_store;
  }
  return rc;
}

/* A literal of type t's family for NULL-safe keys (integers 0, text '',
 * json/jsonb 'null'), or NULL for other types. */
static lm_expr *sentinel(lm_arena *a, lm_type t, const lm_expr *at) {
  lm_expr *e = NULL;
  switch (t.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
    if ((e = node(a, LM_EXPR_LITERAL, LM_OP_NONE, NULL, NULL, at)))
      e->lit = LM_LIT_INT;
    return e;
  case LM_TYPE_UTF8: /* '' is no json value: json/jsonb take 'null' */
    if ((e = node(a, LM_EXPR_LITERAL, LM_OP_NONE, NULL, NULL, at))) {
      e->lit = LM_LIT_STRING;
      e->text = lm_type_is_json(t) ? "null" : "";
    }
    return e;
  default:
    return NULL;
  }
}

/* coalesce(x, d) as an AST node. */
static lm_expr *coalesce2(lm_arena *a, lm_expr *x, lm_expr *d,
                          const lm_expr *at) {
  lm_expr *e = node(a, LM_EXPR_FUNC, LM_OP_NONE, NULL, NULL, at);
  lm_expr **args = lm_arena_alloc(a, sizeof *args * 2);
  if (!e || !args || !x || !d)
    return NULL;
  args[0] = x;
  args[1] = d;
  e->name = "coalesce";
  e->args = args;
  e->n_args = 2;
  return e;
}

/* How a parameter of type t is keyed exactly: 0 by its value (equality is
 * identity), 1 also by its text form (float -0 / 0, intervals '1 mon' /
 * '30 days', '1 day' / '24 hours', arrays and rows of them: equal, yet
 * they print and compute differently), 2 also by octet_length (CHAR
 * values equal up to trailing blanks). */
static int exact_form(lm_type t, int depth) {
  switch (t.id) {
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN:
    return 1;
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
    /* jsonb: '1.0' = '1' (jsonb_cmp), yet they print differently */
    return lm_type_is_bpchar(t) ? 2 : lm_type_is_jsonb(t) ? 1 : 0;
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST:
  case LM_TYPE_STRUCT:
  case LM_TYPE_DICTIONARY:
    for (int i = 0; t.node && depth < 50 && i < t.node->n_children; i++)
      if (exact_form(t.node->children[i].type, depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* x's exact form (exact_form's 1: x::text, 2: octet_length(x)) as an AST
 * node at x's position, NULL on OOM. */
static lm_expr *exact_expr(lm_arena *a, int form, lm_expr *x) {
  lm_expr *e = node(a, LM_EXPR_FUNC, LM_OP_NONE, NULL, NULL, x);
  lm_expr **args = lm_arena_alloc(a, sizeof *args);
  if (!e || !args || !x)
    return NULL;
  args[0] = x;
  e->args = args;
  e->n_args = 1;
  if (form == 2) {
    e->name = "octet_length";
  } else {
    e->kind = LM_EXPR_CAST;
    e->cast_type = lm_type_make(LM_TYPE_UTF8);
  }
  return e;
}

/* Step 4: hidden_k = key_k (NULL-safe when keys column k has a NULL), the
 * key being parameter kparam[k]'s reference, in the form kform[k]. */
static int make_on(laminar_db *db, lm_arena *a, const lm_from *f,
                   const lm_from *left, const probe *p, const lm_batch *keys,
                   const int *kparam, const int *kform, int n_keys,
                   char hid[][HID], lm_expr **on, lm_error *err) {
  lm_expr *cond = NULL;
  for (int k = 0; k < n_keys; k++) {
    const lm_expr *ref = p->pref[kparam[k]];
    lm_expr *arg = lm_arena_alloc(a, sizeof *arg);
    lm_expr *col = node(a, LM_EXPR_COLUMN, LM_OP_NONE, NULL, NULL, ref);
    char *hn = lm_arena_strndup(a, hid[k], strlen(hid[k]));
    if (!arg || !col || !hn)
      return nomem(err);
    *arg = *ref;
    if (!arg->table) { /* `k` may name a column of the subquery too */
      int hits = 0;
      const char *q = owner_of(db, left, ref->name, &hits, 0);
      if (hits == 1)
        arg->table = q;
    }
    if (!arg->table || arg->table == ref->table)
      arg = (lm_expr *)ref; /* an outer query's column: found by identity */
    if (kform[k] && !(arg = exact_expr(a, kform[k], arg)))
      return nomem(err);
    col->table = f->alias;
    col->name = hn;
    lm_expr *eq = node(a, LM_EXPR_BINARY, LM_OP_EQ, col, arg, ref);
    lm_expr *dflt = keys->columns[k]->null_count > 0
                        ? sentinel(a, keys->columns[k]->type, ref)
                        : NULL;
    if (eq && dflt) {
      /* coalesce(h, D) = coalesce(ref, D) AND (h IS NULL) = (ref IS NULL):
       * NULL-safe and still two equi-join keys (hashed) */
      eq = node(a, LM_EXPR_BINARY, LM_OP_AND,
                node(a, LM_EXPR_BINARY, LM_OP_EQ, coalesce2(a, col, dflt, ref),
                     coalesce2(a, arg, dflt, ref), ref),
                node(a, LM_EXPR_BINARY, LM_OP_EQ,
                     node(a, LM_EXPR_IS_NULL, LM_OP_NONE, col, NULL, ref),
                     node(a, LM_EXPR_IS_NULL, LM_OP_NONE, arg, NULL, ref), ref),
                ref);
    } else if (eq && keys->columns[k]->null_count > 0) {
      lm_expr *both =
          node(a, LM_EXPR_BINARY, LM_OP_AND,
               node(a, LM_EXPR_IS_NULL, LM_OP_NONE, col, NULL, ref),
               node(a, LM_EXPR_IS_NULL, LM_OP_NONE, arg, NULL, ref), ref);
      eq = node(a, LM_EXPR_BINARY, LM_OP_OR, eq, both, ref);
    }
    cond = cond ? node(a, LM_EXPR_BINARY, LM_OP_AND, cond, eq, ref) : eq;
    if (!cond)
      return nomem(err);
  }
  *on = cond;
  return 0;
}

/* ------------------------------------------------ the outer WHERE
 *
 * PostgreSQL filters the rows of the items before a LATERAL item (WHERE)
 * before the nested loop runs the item for them. The WHERE's conjuncts
 * that read only columns of those items (`left`) are therefore applied
 * before the subquery / function runs: for the rows they remove, the
 * joined rows are removed by the WHERE in any case (the caller passes the
 * WHERE only when the join's rows reach it unchanged: no outer join's
 * nullable side above it). */

typedef struct fitctx {
  laminar_db *db;
  const lm_from *left;
  const char *self;         /* the LATERAL item's alias (NULL: none) */
  const lm_schema *own;     /* its columns (NULL: see names) */
  const char *const *names; /* other names of its columns */
  int n_names;
} fitctx;

/* Whether a TABLE item of f is named or aliased q. */
static bool names_rel(const lm_from *f, const char *q, int depth) {
  if (!f || depth > 1000)
    return false;
  if (f->kind == LM_FROM_JOIN)
    return names_rel(f->left, q, depth + 1) ||
           names_rel(f->right, q, depth + 1);
  const char *n = f->alias ? f->alias : f->name;
  return f->kind == LM_FROM_TABLE && n && !strcmp(n, q);
}

/* Whether unqualified `name` may name a column of the LATERAL item. */
static bool own_name(const fitctx *c, const char *name) {
  for (int i = 0; i < c->n_names; i++)
    if (c->names[i] && !lm_strcasecmp(c->names[i], name))
      return true;
  for (int i = 0; c->own && i < c->own->n_fields; i++)
    if (c->own->fields[i].name && !lm_strcasecmp(c->own->fields[i].name, name))
      return true;
  return false;
}

static bool volatile_fn(const char *n) {
  static const char *const v[] = {
      "random",    "random_normal", "nextval",         "setval",
      "currval",   "setseed",       "gen_random_uuid", "clock_timestamp",
      "timeofday", "pg_sleep",      "uuid_generate_v4"};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!strcmp(n, v[i]))
      return true;
  return false;
}

/* Whether e reads only columns of c->left (no subquery, aggregate, window,
 * set-returning or volatile call). */
static bool fits(const fitctx *c, const lm_expr *e, int depth) {
  if (!e)
    return true;
  if (depth > 200 || e->kind == LM_EXPR_SUBQUERY || e->kind == LM_EXPR_STAR)
    return false;
  if (e->kind == LM_EXPR_FUNC &&
      (e->over || e->filter || e->n_agg_order || e->within_group ||
       e->distinct ||
       (e->name && (volatile_fn(e->name) || lm_srf_is_name(e->name)))))
    return false;
  if (e->kind == LM_EXPR_COLUMN) {
    if (!e->name)
      return false;
    if (e->table)
      return names_rel(c->left, e->table, 0) &&
             !(c->self && !strcmp(c->self, e->table));
    int hits = 0;
    if (own_name(c, e->name) || !owner_of(c->db, c->left, e->name, &hits, 0))
      return false;
    return hits == 1;
  }
  for (int i = 0; i < e->n_args; i++)
    if (!fits(c, e->args[i], depth + 1))
      return false;
  return true;
}

/* The AND of w's conjuncts that fit (NULL: none), in arena a. */
static lm_expr *fitting(lm_arena *a, const fitctx *c, lm_expr *w, int depth) {
  if (!w || depth > 200)
    return NULL;
  if (w->kind == LM_EXPR_BINARY && w->op == LM_OP_AND && w->n_args == 2) {
    lm_expr *l = fitting(a, c, w->args[0], depth + 1),
            *r = fitting(a, c, w->args[1], depth + 1);
    if (!l || !r)
      return l ? l : r;
    if (l == w->args[0] && r == w->args[1])
      return w;
    return node(a, LM_EXPR_BINARY, LM_OP_AND, l, r, w);
  }
  return fits(c, w, 0) ? w : NULL;
}

int lm_lateral_guard_func(laminar_db *db, lm_arena *a, const lm_from *f,
                          const lm_from *left, lm_expr *where,
                          const lm_from **out) {
  *out = f;
  if (!where || !left || f->kind != LM_FROM_FUNCTION)
    return 0;
  const char *names[MAX_PARAMS + 8];
  int nn = 0;
  names[nn++] = "ordinality";
  names[nn++] = "key";
  names[nn++] = "value";
  if (f->alias)
    names[nn++] = f->alias;
  for (int i = 0; i < f->n_col_aliases && nn < MAX_PARAMS; i++)
    names[nn++] = f->col_aliases[i];
  for (int i = 0; i < f->n_funcs && nn < MAX_PARAMS + 8; i++)
    names[nn++] = f->funcs[i]->name;
  if (f->n_col_aliases >= MAX_PARAMS || f->n_funcs > MAX_PARAMS)
    return 0; /* too many names to tell: no guard */
  fitctx c = {db, left, f->alias ? f->alias : f->name, NULL, names, nn};
  lm_expr *cond = fitting(a, &c, where, 0);
  if (!cond)
    return 0;
  lm_from *nf = lm_arena_alloc(a, sizeof *nf);
  lm_expr **calls =
      lm_arena_alloc(a, sizeof *calls * (size_t)(f->n_funcs ? f->n_funcs : 1));
  if (!nf || !calls)
    return LM_ERR_NOMEM;
  *nf = *f;
  for (int j = 0; j < f->n_funcs; j++)
    if (!(calls[j] = lm_srf_guard_call(a, f->funcs[j], cond)))
      return LM_ERR_NOMEM;
  nf->funcs = calls;
  *out = nf;
  return 0;
}

static int guard_chain(laminar_db *db, lm_arena *a, const lm_from *f,
                       const lm_from *base, lm_expr *where, const lm_from **out,
                       int depth) {
  *out = f;
  if (!f || f->kind != LM_FROM_JOIN || depth > 1000 || f->asof ||
      (f->join != LM_SQL_JOIN_INNER && f->join != LM_SQL_JOIN_CROSS &&
       f->join != LM_SQL_JOIN_LEFT))
    return 0;
  const lm_from *l = f->left, *r = f->right;
  int rc = guard_chain(db, a, f->left, base, where, &l, depth + 1);
  if (!rc && r->kind == LM_FROM_FUNCTION)
    rc = lm_lateral_guard_func(db, a, r, base, where, &r);
  if (rc || (l == f->left && r == f->right))
    return rc;
  lm_from *c = lm_arena_alloc(a, sizeof *c);
  if (!c)
    return LM_ERR_NOMEM;
  *c = *f;
  c->left = (lm_from *)l;
  c->right = (lm_from *)r;
  *out = c;
  return 0;
}

int lm_lateral_guard_chain(laminar_db *db, lm_arena *a, const lm_select *sel,
                           const lm_from *base, const lm_select **out) {
  *out = sel;
  if (!base || base->kind != LM_FROM_TABLE)
    return 0;
  /* the inner joins' ON filter the base's rows as the WHERE does */
  lm_expr *where = sel->where;
  for (const lm_from *f = sel->from_clause; f && f->kind == LM_FROM_JOIN;
       f = f->left)
    if (f->join == LM_SQL_JOIN_INNER && f->on && !f->asof) {
      where = where ? lm_sql_op_node(a, LM_EXPR_BINARY, LM_OP_AND, where, f->on,
                                     f->line, f->column)
                    : f->on;
      if (!where)
        return LM_ERR_NOMEM;
    }
  if (!where)
    return 0;
  const lm_from *nf = NULL;
  int rc = guard_chain(db, a, sel->from_clause, base, where, &nf, 0);
  if (rc || nf == sel->from_clause)
    return rc;
  lm_select *ns = lm_arena_alloc(a, sizeof *ns);
  if (!ns)
    return LM_ERR_NOMEM;
  *ns = *sel;
  ns->from_clause = (lm_from *)nf;
  *out = ns;
  return 0;
}

/* q run once (uncorrelated): its rows as the relation. */
static int run_plain(laminar_db *db, const lm_from *f, const char *name,
                     lm_error *err) {
  laminar_result *res = NULL;
  lm_xt_next_role(LM_XT_DERIVED, name, NULL); /* EXPLAIN's trace */
  int rc = lm_engine_select(db, f->subquery, &res, err);
  lm_schema *sc = NULL;
  blist l = {0};
  if (!rc)
    rc = out_schema(db, f, res->schema, NULL, 0, NULL, NULL, NULL, NULL, &sc,
                    err);
  for (int i = 0; !rc && i < res->n_batches; i++) {
    const lm_batch *b = res->batches[i];
    lm_array **cols = malloc(sizeof *cols * (size_t)(b->num_columns + 1));
    if (!cols) {
      rc = nomem(err);
      break;
    }
    for (int c = 0; c < b->num_columns; c++)
      cols[c] = lm_array_retain(b->columns[c]);
    lm_batch *nb = lm_batch_new(lm_schema_retain(sc), b->num_rows, cols);
    free(cols);
    rc = nb ? blist_add(&l, nb, err) : nomem(err);
  }
  if (!rc)
    rc = push_rel(db, name, sc, &l, err);
  for (int i = 0; i < l.n; i++)
    lm_batch_release(l.b[i]);
  free(l.b);
  lm_schema_release(sc);
  if (res)
    laminar_result_free(res);
  return rc;
}

int lm_lateral_eval(laminar_db *db, lm_arena *a, const lm_from *f,
                    const lm_from *left, lm_sql_join join, lm_expr *where,
                    const char *name, lm_expr **on, lm_error *err) {
  *on = NULL;
  lm_from fx; /* f with `t.*` of an item before it expanded */
  int rc = expand_stars(db, a, f, left, &fx, err);
  if (rc)
    return rc;
  f = &fx;
  probe p;
  memset(&p, 0, sizeof p);
  p.q = f->subquery;
  rc = run_probe(db, f, left, &p, err);
  if (!rc && p.n_params == 0) {
    rc = run_plain(db, f, name, err);
    goto done;
  }
  if (!rc && join != LM_SQL_JOIN_INNER && join != LM_SQL_JOIN_CROSS &&
      join != LM_SQL_JOIN_LEFT) {
    const lm_expr *ref = p.pref[0];
    int hits = 0;
    const char *tb =
        ref->table ? ref->table : owner_of(db, left, ref->name, &hits, 0);
    perr(err, LM_ERR_BIND, ref->line, ref->column, "42P10",
         "invalid reference to FROM-clause entry%s%s%s",
         tb ? " for table \"" : "", tb ? tb : "", tb ? "\"" : "");
    rc = lm_err_detail(err, "The combining JOIN type must be INNER or LEFT "
                            "for a LATERAL reference.");
    goto done;
  }
  if (rc)
    goto done;
  /* step 2: the distinct tuples of the references' values over left (and
   * their exact forms), over the rows the outer WHERE keeps */
  lm_select_item items[MAX_KEYS];
  int kparam[MAX_KEYS], kform[MAX_KEYS], n_keys = p.n_params;
  for (int k = 0; k < p.n_params; k++) {
    items[k].expr = (lm_expr *)p.pref[k];
    items[k].alias = NULL;
    kparam[k] = k;
    kform[k] = 0;
  }
  for (int k = 0; k < p.n_params; k++) {
    int form = exact_form(p.ptype[k], 0);
    if (!form)
      continue;
    kparam[n_keys] = k;
    kform[n_keys] = form;
    items[n_keys].alias = NULL;
    if (!(items[n_keys++].expr = exact_expr(a, form, (lm_expr *)p.pref[k]))) {
      rc = nomem(err);
      goto done;
    }
  }
  fitctx fc = {db,
               left,
               f->alias,
               p.schema,
               (const char *const *)f->col_aliases,
               f->n_col_aliases};
  lm_select s;
  memset(&s, 0, sizeof s);
  s.line = f->line;
  s.column = f->column;
  s.items = items;
  s.n_items = n_keys;
  s.where = fitting(a, &fc, where, 0);
  s.distinct = true;
  s.limit = -1;
  s.adhoc_rewritten = true;
  lm_sql_select_set_from(&s, left);
  laminar_result *kr = NULL;
  lm_batch *keys = NULL;
  rc = lm_engine_select(db, &s, &kr, err);
  if (!rc)
    rc = lm_batch_concat(kr->schema, kr->batches, kr->n_batches, &keys, err);
  if (kr)
    laminar_result_free(kr);
  if (rc)
    goto done;
  char hid[MAX_KEYS][HID];
  lm_schema *sc = NULL;
  rc = out_schema(db, f, p.schema, keys, n_keys, &p, kparam, kform, hid, &sc,
                  err);
  /* step 3: q per tuple, its references reading the slots */
  lm_value slots[MAX_PARAMS];
  lm_value *slotp[MAX_PARAMS];
  lm_value **ref_slots = malloc(sizeof *ref_slots * (size_t)(p.n_refs + 1));
  if (!rc && !ref_slots)
    rc = nomem(err);
  for (int i = 0; !rc && i < p.n_refs; i++)
    ref_slots[i] = &slots[p.ref_param[i]];
  lm_subplan sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = LM_SUBQ_EXISTS;
  sp.sel = f->subquery;
  sp.n_params = p.n_params;
  sp.params = slotp;
  sp.ref_exprs = p.refs;
  sp.ref_slots = ref_slots;
  sp.n_refs = p.n_refs;
  sp.line = f->line;
  sp.column = f->column;
  for (int k = 0; k < p.n_params; k++)
    slotp[k] = &slots[k];
  blist l = {0};
  int32_t *idx = NULL;
  int64_t cap = 0;
  if (!rc && lm_xt_on()) { /* EXPLAIN: the subquery's plan, once */
    for (int k = 0; k < p.n_params; k++) {
      memset(&slots[k], 0, sizeof slots[k]);
      slots[k].type = keys->columns[k]->type;
      slots[k].is_null = true;
    }
    laminar_result *res = NULL;
    lm_error scratch; /* its errors are not the statement's */
    lm_err_clear(&scratch);
    lm_xt_next_role(LM_XT_DERIVED, name, NULL);
    lm_plan_subq_run_enter(&sp);
    lm_engine_select(db, f->subquery, &res, &scratch);
    lm_plan_subq_run_leave();
    if (res)
      laminar_result_free(res);
  }
  for (int64_t r = 0; !rc && keys && r < keys->num_rows; r++) {
    for (int k = 0; k < p.n_params; k++) {
      lm_array_get_value(keys->columns[k], r, &slots[k]);
      slots[k].type = keys->columns[k]->type;
    }
    laminar_result *res = NULL;
    lm_plan_subq_run_enter(&sp);
    rc = lm_engine_select(db, f->subquery, &res, err);
    lm_plan_subq_run_leave();
    for (int i = 0; !rc && i < res->n_batches; i++)
      if (res->batches[i]->num_rows)
        rc =
            add_rows(res->batches[i], keys, r, sc, n_keys, &idx, &cap, &l, err);
    if (res)
      laminar_result_free(res);
  }
  free(idx);
  free(ref_slots);
  if (!rc)
    rc = push_rel(db, name, sc, &l, err);
  for (int i = 0; i < l.n; i++)
    lm_batch_release(l.b[i]);
  free(l.b);
  lm_schema_release(sc);
  if (!rc)
    rc = make_on(db, a, f, left, &p, keys, kparam, kform, n_keys, hid, on, err);
  lm_batch_release(keys);
done:
  lm_schema_release(p.schema);
  free(p.refs);
  free(p.ref_param);
  return rc;
}

int lm_lateral_hint(laminar_db *db, const lm_from *f, const lm_from *left,
                    lm_error *err) {
  if (f->kind != LM_FROM_SUBQUERY || !left ||
      (strcmp(err->sqlstate, "42P01") && strcmp(err->sqlstate, "42703")))
    return err->code;
  probe p;
  memset(&p, 0, sizeof p);
  p.q = f->subquery;
  lm_error scratch;
  lm_err_clear(&scratch);
  int base = db->n_temps;
  int rc = run_probe(db, f, left, &p, &scratch);
  lm_engine_temps_pop(db, base);
  if (!rc && p.n_params > 0) {
    const lm_expr *ref = p.pref[0];
    int hits = 0;
    const char *tb = owner_of(db, left, ref->name, &hits, 0);
    if (ref->table) {
      perr(err, LM_ERR_BIND, ref->line, ref->column, "42P01",
           "invalid reference to FROM-clause entry for table \"%s\"",
           ref->table);
      lm_err_hint(err,
                  "There is an entry for table \"%s\", but it cannot be "
                  "referenced from this part of the query.",
                  ref->table);
    } else {
      perr(err, LM_ERR_BIND, ref->line, ref->column, "42703",
           "column \"%s\" does not exist", ref->name);
      if (tb)
        lm_err_hint(err,
                    "There is a column named \"%s\" in table \"%s\", but it "
                    "cannot be referenced from this part of the query.",
                    ref->name, tb);
    }
  }
  lm_schema_release(p.schema);
  free(p.refs);
  free(p.ref_param);
  return err->code;
}
