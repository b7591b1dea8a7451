/*
 * api/setop.c — ad-hoc set operations (UNION / INTERSECT / EXCEPT [ALL]),
 * WITH (non-recursive CTEs), VALUES, and derived tables in FROM.
 *
 * A query that needs any of these is run here before select.c sees it:
 * each CTE is evaluated once and its rows registered as a temporary
 * relation (db->temps, found by lm_engine_find before the catalog) for
 * the rest of the statement; each subquery in FROM is evaluated into a
 * temporary relation as well (column aliases `AS t(a, b)` rename its
 * columns), and the outer SELECT then reads plain relations. Set
 * operations combine their operands' rows after unifying the column
 * types with PostgreSQL's UNION rules (docs/setops.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/engine.h"
#include "api/select_lateral.h"
#include "api/srf_from.h"
#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* ------------------------------------------------------ temp relations */

static void temp_free(lm_node *n) {
  if (!n)
    return;
  for (int i = 0; i < n->n_store; i++)
    lm_batch_release(n->store[i]);
  free(n->store);
  lm_schema_release(n->schema);
  lm_schema_release(n->table_schema);
  free(n->name);
  free(n);
}

int lm_engine_temp_push(laminar_db *db, const char *name, lm_batch *b,
                        bool view_rows, lm_error *err) {
  lm_node *n = calloc(1, sizeof *n);
  lm_node **nt = realloc(db->temps, sizeof *nt * (size_t)(db->n_temps + 1));
  if (nt)
    db->temps = nt;
  if (!n || !nt || !(n->name = lm_strdup(name)) ||
      !(n->store = malloc(sizeof *n->store))) {
    if (n)
      free(n->name);
    free(n);
    lm_batch_release(b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  n->view_rows = view_rows;
  n->kind = LM_NODE_MVIEW;
  n->schema = lm_schema_retain(b->schema);
  n->table_schema = lm_schema_retain(b->schema);
  n->wm = INT64_MIN;
  n->wm_col = -1;
  n->max_ts = INT64_MIN;
  n->store[0] = b;
  n->n_store = n->cap_store = 1;
  db->temps[db->n_temps++] = n;
  return 0;
}

void lm_engine_temps_pop(laminar_db *db, int to) {
  while (db->n_temps > to)
    temp_free(db->temps[--db->n_temps]);
  if (!db->n_temps) {
    free(db->temps);
    db->temps = NULL;
  }
}

/* ------------------------------------------------------------- helpers */

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* An error at line:col with SQLSTATE state (lm_engine_pos_errf). */
#define pos_err(err, line, col, state, ...)                                    \
  lm_engine_pos_errf(err, LM_ERR_BIND, line, col, state, __VA_ARGS__)

/* Runs `sel` into one batch (*out, a new reference); *numeric (when not
 * NULL) gets the result's numeric_cols (engine.h). */
static int run_one_num(laminar_db *db, const lm_select *sel, lm_batch **out,
                       uint64_t *numeric, lm_error *err) {
  laminar_result *r = NULL;
  int rc = lm_engine_select(db, sel, &r, err);
  if (!rc)
    rc = lm_batch_concat(r->schema, r->batches, r->n_batches, out, err);
  if (!rc && numeric)
    *numeric = r->numeric_cols;
  laminar_result_free(r);
  return rc;
}

static int run_one(laminar_db *db, const lm_select *sel, lm_batch **out,
                   lm_error *err) {
  return run_one_num(db, sel, out, NULL, err);
}

/* b with its first n columns renamed (a new reference; b released). */
static int rename_cols(lm_batch **b, const char *const *names, int n,
                       const char *what, const char *rel, int line, int col,
                       lm_error *err) {
  lm_batch *in = *b;
  int nf = in->schema->n_fields;
  if (n > nf)
    return pos_err(err, line, col, "42P10",
                   "%s \"%s\" has %d columns available but %d columns "
                   "specified",
                   what, rel, nf, n);
  lm_batch *o = lm_batch_rename(in, names, n);
  if (!o)
    return nomem(err);
  lm_batch_release(in);
  *b = o;
  return 0;
}

/* ----------------------------------------------------- type resolution */

static bool lit_unknown(const lm_expr *e) {
  return e && e->kind == LM_EXPR_LITERAL &&
         (e->lit == LM_LIT_STRING || e->lit == LM_LIT_NULL);
}

/* Whether output column c of query s has PostgreSQL's type "unknown" (a
 * string literal or NULL in every row feeding it), which takes the type
 * of the other operands. */
static bool col_unknown(const lm_select *s, int c) {
  if (s->setop)
    return false; /* resolved inside */
  if (s->values) {
    for (int r = 0; r < s->n_values; r++)
      if (c >= s->n_value_cols || !lit_unknown(s->values[r][c]))
        return false;
    return true;
  }
  if (c >= s->n_items)
    return false;
  for (int i = 0; i <= c; i++)
    if (s->items[i].expr->kind == LM_EXPR_STAR)
      return false;
  return lit_unknown(s->items[c].expr);
}

/* Whether output column c of s is an integer literal that fits INTEGER:
 * PostgreSQL types it integer (Laminar's literal is BIGINT). */
static bool col_int4(const lm_select *s, int c) {
  const lm_expr *e = NULL;
  if (s->setop)
    return false;
  if (s->values) {
    if (s->n_values != 1 || c >= s->n_value_cols)
      return false;
    e = s->values[0][c];
  } else {
    if (c >= s->n_items)
      return false;
    for (int i = 0; i <= c; i++)
      if (s->items[i].expr->kind == LM_EXPR_STAR)
        return false;
    e = s->items[c].expr;
  }
  return e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT &&
         e->ival >= INT32_MIN && e->ival <= INT32_MAX;
}

static int num_rank(lm_type_id id) {
  switch (id) {
  case LM_TYPE_INT8:
  case LM_TYPE_UINT8:
    return 1;
  case LM_TYPE_INT16:
  case LM_TYPE_UINT16:
    return 2;
  case LM_TYPE_INT32:
  case LM_TYPE_UINT32:
    return 3;
  case LM_TYPE_INT64:
    return 4;
  case LM_TYPE_UINT64:
  case LM_TYPE_DECIMAL128:
    return 5;
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
    return 6;
  case LM_TYPE_FLOAT64:
    return 7;
  default:
    return 0;
  }
}

static bool is_text(lm_type_id id) {
  return id == LM_TYPE_UTF8 || id == LM_TYPE_LARGE_UTF8;
}

/* PostgreSQL's UNION / CASE / VALUES type resolution of two inputs (a, b;
 * ua / ub: of type unknown) into *out; false when they cannot be
 * matched. */
static bool resolve2(lm_type a, bool ua, lm_type b, bool ub, lm_type *out) {
  ua = ua || a.id == LM_TYPE_NULL;
  ub = ub || b.id == LM_TYPE_NULL;
  if (ua && ub) {
    /* NULL with NULL stays NULL until a typed input comes (text at the
     * end, as PostgreSQL), a string literal makes it text */
    *out = a.id == LM_TYPE_NULL && b.id == LM_TYPE_NULL
               ? a
               : lm_type_make(LM_TYPE_UTF8);
    return true;
  }
  if (ua || ub) {
    *out = ua ? b : a;
    return true;
  }
  if (lm_type_eq(a, b)) {
    *out = a;
    return true;
  }
  if ((a.id == LM_TYPE_INTERVAL || a.id == LM_TYPE_INTERVAL_MDN) &&
      (b.id == LM_TYPE_INTERVAL || b.id == LM_TYPE_INTERVAL_MDN)) {
    *out = lm_type_make(LM_TYPE_INTERVAL_MDN); /* months: lm_interval.h */
    return true;
  }
  int ra = num_rank(a.id), rb = num_rank(b.id);
  if (ra && rb) {
    if (a.id == LM_TYPE_DECIMAL128 && b.id == LM_TYPE_DECIMAL128) {
      if (!a.precision || !b.precision) {
        *out = a.precision ? b : a;
        return true;
      }
      int sc = a.scale > b.scale ? a.scale : b.scale;
      int ia = a.precision - a.scale, ib = b.precision - b.scale;
      int pr = (ia > ib ? ia : ib) + sc;
      *out = lm_type_decimal128(pr > 38 ? 38 : pr, sc);
      return true;
    }
    if (ra == rb) { /* e.g. UINT64 with DECIMAL: the decimal */
      *out = a.id == LM_TYPE_DECIMAL128 ? a : b;
      return true;
    }
    *out = ra > rb ? a : b;
    if (out->id == LM_TYPE_UINT64)
      *out = lm_type_decimal128(20, 0);
    lm_type o = ra > rb ? b : a; /* an integer beside a DECIMAL(p,s): room
                                  * for its digits before the point */
    if (out->id == LM_TYPE_DECIMAL128 && out->precision &&
        lm_type_is_integer(o)) {
      int id = o.id == LM_TYPE_INT8 || o.id == LM_TYPE_UINT8     ? 3
               : o.id == LM_TYPE_INT16 || o.id == LM_TYPE_UINT16 ? 5
               : o.id == LM_TYPE_INT32 || o.id == LM_TYPE_UINT32 ? 10
                                                                 : 20;
      int ip = out->precision - out->scale;
      int pr = (ip > id ? ip : id) + out->scale;
      *out = lm_type_decimal128(pr > 38 ? 38 : pr, out->scale);
    }
    return true;
  }
  if (is_text(a.id) && is_text(b.id)) {
    /* CHAR(n) with VARCHAR / TEXT: the first input's type, as PostgreSQL
     * (each converts implicitly to the other) */
    *out = lm_type_is_bpchar(a) ? lm_type_bpchar() : lm_type_make(LM_TYPE_UTF8);
    return true;
  }
  if ((a.id == LM_TYPE_DATE32 || a.id == LM_TYPE_TIMESTAMP) &&
      (b.id == LM_TYPE_DATE32 || b.id == LM_TYPE_TIMESTAMP)) {
    /* with TIMESTAMPTZ: TIMESTAMPTZ, the other read in the session zone
     * (PostgreSQL's preferred datetime type) */
    if (lm_type_is_tstz(a) || lm_type_is_tstz(b))
      *out = lm_type_timestamptz();
    else
      *out = a.id == LM_TYPE_TIMESTAMP ? a : b;
    return true;
  }
  if (a.id == b.id && a.id != LM_TYPE_DECIMAL128) {
    *out = a; /* same type, other parameters */
    return true;
  }
  return false;
}

bool lm_setop_resolve_types(lm_type a, lm_type b, lm_type *out) {
  return resolve2(a, false, b, false, out);
}

/* An unnamed part of a combined result: its rows and where its type
 * information came from. */
typedef struct part {
  lm_batch *b;
  const lm_select *q; /* for unknown-typed literals; NULL = typed */
  int line, column;   /* of the operand (errors) */
} part;

/* Where column c of part p was written: its select-list item (PostgreSQL
 * places a UNION's column errors there), else the operand. */
static void col_pos(const part *p, int c, int *line, int *column) {
  *line = p->line;
  *column = p->column;
  if (p->q && !p->q->setop && c < p->q->n_items && p->q->items[c].expr &&
      p->q->items[c].expr->line > 0) {
    *line = p->q->items[c].expr->line;
    *column = p->q->items[c].expr->column;
  }
}

/* Casts every part to one schema (names of part 0, types unified over
 * all parts) and concatenates them into *out (a new reference). *n_left
 * receives the row count of part 0. `what` names the operation in
 * errors ("UNION", "VALUES"). */
static int unify(part *ps, int n, const char *what, lm_batch **out,
                 int64_t *n_left, lm_error *err) {
  int nf = ps[0].b->schema->n_fields;
  for (int i = 1; i < n; i++)
    if (ps[i].b->schema->n_fields != nf) {
      int el, ec; /* at the right side's select list, as PostgreSQL */
      col_pos(&ps[i], 0, &el, &ec);
      return pos_err(err, el, ec, "42601",
                     !strcmp(what, "VALUES")
                         ? "VALUES lists must all be the same length"
                         : "each %s query must have the same number of "
                           "columns",
                     what);
    }
  lm_type *ty = calloc((size_t)nf + 1, sizeof *ty);
  bool *unk = calloc((size_t)nf + 1, sizeof *unk);
  lm_schema *os = lm_schema_new(nf);
  lm_bexpr *bx = calloc((size_t)nf * 2 + 1, sizeof *bx);
  lm_bexpr **px = calloc((size_t)nf + 1, sizeof *px);
  lm_batch **cast = calloc((size_t)n + 1, sizeof *cast);
  int rc = 0;
  if (!ty || !unk || !os || !bx || !px || !cast)
    rc = nomem(err);
  for (int c = 0; !rc && c < nf; c++) {
    ty[c] = ps[0].b->schema->fields[c].type;
    unk[c] = ps[0].q && col_unknown(ps[0].q, c);
    if (ty[c].id == LM_TYPE_INT64 && ps[0].q && col_int4(ps[0].q, c))
      ty[c] = lm_type_make(LM_TYPE_INT32);
    for (int i = 1; !rc && i < n; i++) {
      lm_type t = ps[i].b->schema->fields[c].type;
      bool u = ps[i].q && col_unknown(ps[i].q, c);
      if (t.id == LM_TYPE_INT64 && ps[i].q && col_int4(ps[i].q, c))
        t = lm_type_make(LM_TYPE_INT32);
      lm_type r;
      if (!resolve2(ty[c], unk[c], t, u, &r)) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%s", lm_pg_type_name(ty[c]));
        snprintf(b, sizeof b, "%s", lm_pg_type_name(t));
        int el, ec;
        col_pos(&ps[i], c, &el, &ec);
        rc = pos_err(err, el, ec, "42804",
                     "%s types %s and %s cannot be matched", what, a, b);
        break;
      }
      bool was_null = ty[c].id == LM_TYPE_NULL;
      ty[c] = r;
      unk[c] = unk[c] && (u || t.id == LM_TYPE_NULL) && !was_null
                   ? true
                   : (unk[c] && u);
    }
    if (ty[c].id == LM_TYPE_NULL || (unk[c] && ty[c].id == LM_TYPE_NULL))
      ty[c] = lm_type_make(LM_TYPE_UTF8); /* all NULL: text */
    if (!rc)
      lm_schema_set_field(os, c, ps[0].b->schema->fields[c].name, ty[c], true);
  }
  for (int i = 0; !rc && i < n; i++) {
    const lm_schema *is = ps[i].b->schema;
    for (int c = 0; c < nf; c++) {
      lm_bexpr *col = &bx[2 * c], *cx = &bx[2 * c + 1];
      memset(col, 0, sizeof *col);
      col->kind = LM_BX_COLUMN;
      col->type = is->fields[c].type;
      col->col = c;
      col_pos(&ps[i], c, &col->line, &col->column);
      px[c] = col;
      if (!lm_type_eq(col->type, ty[c])) {
        memset(cx, 0, sizeof *cx);
        cx->kind = LM_BX_CAST;
        cx->type = ty[c];
        cx->tz = lm_tz_session(); /* TIMESTAMP -> TIMESTAMPTZ (lm_tz.h) */
        cx->args = &px[c];
        cx->n_args = 1;
        cx->line = col->line;
        cx->column = col->column;
      }
    }
    lm_bexpr **use = calloc((size_t)nf + 1, sizeof *use);
    if (!use) {
      rc = nomem(err);
      break;
    }
    for (int c = 0; c < nf; c++)
      use[c] =
          lm_type_eq(is->fields[c].type, ty[c]) ? &bx[2 * c] : &bx[2 * c + 1];
    rc = lm_project(use, nf, os, ps[i].b, &cast[i], err);
    free(use);
  }
  if (!rc)
    rc = lm_batch_concat(os, cast, n, out, err);
  if (!rc && n == 1 && (*out)->schema != os) {
    lm_batch_release(*out);
    *out = lm_batch_retain(cast[0]);
  }
  if (!rc && n_left)
    *n_left = cast[0]->num_rows;
  for (int i = 0; cast && i < n; i++)
    lm_batch_release(cast[i]);
  free(cast);
  free(px);
  free(bx);
  lm_schema_release(os);
  free(unk);
  free(ty);
  return rc;
}

int lm_setop_unify(lm_batch *const *bs, const lm_select *const *qs, int n,
                   const char *what, lm_batch **out, lm_error *err) {
  part *ps = calloc((size_t)n + 1, sizeof *ps);
  if (!ps)
    return nomem(err);
  for (int i = 0; i < n; i++) {
    ps[i].b = bs[i];
    ps[i].q = qs[i];
    ps[i].line = qs[i] ? qs[i]->line : 0;
    ps[i].column = qs[i] ? qs[i]->column : 0;
  }
  int rc = unify(ps, n, what, out, NULL, err);
  free(ps);
  return rc;
}

/* -------------------------------------------------------- combinations */

/* Group ids (dense, in first-occurrence order) of every row of b over
 * all its columns, NULLs equal; *n_groups their number. */
static int group_rows(const lm_batch *b, uint32_t **gids, int64_t *n_groups,
                      lm_error *err) {
  int nf = b->schema->n_fields;
  lm_type *types = calloc((size_t)nf + 1, sizeof *types);
  *gids = malloc(sizeof(uint32_t) * (size_t)(b->num_rows + 1));
  if (!types || !*gids) {
    free(types);
    return nomem(err);
  }
  for (int c = 0; c < nf; c++)
    types[c] = b->columns[c]->type;
  lm_aggtable *t = lm_aggtable_new(nf, types, 0, NULL);
  int rc = t ? lm_aggtable_lookup(t, b->columns, NULL, b->num_rows, *gids, err)
             : nomem(err);
  *n_groups = t ? lm_aggtable_groups(t) : 0;
  lm_aggtable_free(t);
  free(types);
  return rc;
}

/* The rows of `all` (left rows [0, nl), right rows after) kept by the set
 * operation k (all_: the ALL variant) into *out. */
static int combine(lm_batch *all, int64_t nl, lm_setop_kind k, bool all_,
                   lm_batch **out, lm_error *err) {
  if (k == LM_SETOP_UNION && all_) {
    *out = lm_batch_retain(all);
    return 0;
  }
  uint32_t *g = NULL;
  int64_t ng = 0;
  int rc = group_rows(all, &g, &ng, err);
  int64_t *cl = calloc((size_t)ng + 1, sizeof *cl);
  int64_t *cr = calloc((size_t)ng + 1, sizeof *cr);
  int64_t *done = calloc((size_t)ng + 1, sizeof *done);
  int32_t *keep = malloc(sizeof *keep * (size_t)(all->num_rows + 1));
  if (!rc && (!cl || !cr || !done || !keep))
    rc = nomem(err);
  int64_t nk = 0;
  if (!rc) {
    int64_t n = all->num_rows;
    for (int64_t i = 0; i < n; i++) {
      if (i < nl)
        cl[g[i]]++;
      else
        cr[g[i]]++;
    }
    int64_t scan = k == LM_SETOP_UNION ? n : nl;
    for (int64_t i = 0; i < scan; i++) {
      uint32_t x = g[i];
      int64_t want;
      if (k == LM_SETOP_UNION)
        want = 1;
      else if (k == LM_SETOP_INTERSECT)
        want = all_ ? (cl[x] < cr[x] ? cl[x] : cr[x]) : (cr[x] > 0);
      else
        want = all_ ? (cl[x] > cr[x] ? cl[x] - cr[x] : 0) : (cr[x] == 0);
      if (done[x] < want) {
        done[x]++;
        keep[nk++] = (int32_t)i;
      }
    }
    *out = lm_batch_take(all, keep, nk);
    if (!*out)
      rc = nomem(err);
  }
  free(g);
  free(cl);
  free(cr);
  free(done);
  free(keep);
  return rc;
}

static const char *setop_name(lm_setop_kind k) {
  return k == LM_SETOP_UNION       ? "UNION"
         : k == LM_SETOP_INTERSECT ? "INTERSECT"
                                   : "EXCEPT";
}

/* ORDER BY (output names or ordinals) / OFFSET / LIMIT of a set operation
 * or VALUES over b (replaced). */
static int order_limit(const lm_select *sel, lm_batch **b, lm_error *err) {
  if (!sel->n_order_by && sel->limit < 0 && sel->offset <= 0)
    return 0;
  const lm_schema *s = (*b)->schema;
  int n = sel->n_order_by;
  lm_sort_key *keys = calloc((size_t)n + 1, sizeof *keys);
  lm_bexpr *bx = calloc((size_t)n + 1, sizeof *bx);
  if (!keys || !bx) {
    free(keys);
    free(bx);
    return nomem(err);
  }
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    const lm_order_item *o = &sel->order_by[i];
    const lm_expr *e = o->expr;
    int col = -1;
    if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT) {
      if (e->ival < 1 || e->ival > s->n_fields)
        rc = pos_err(err, e->line, e->column, "42P10",
                     "ORDER BY position %lld is not in select list",
                     (long long)e->ival);
      col = (int)e->ival - 1;
    } else if (e->kind == LM_EXPR_COLUMN && !e->table) {
      int n_hits = 0; /* an output name: exactly (docs/sql.md "Names") */
      col = lm_schema_find_ref(s, e->name, true, &n_hits);
      if (n_hits > 1)
        rc = pos_err(err, e->line, e->column, "42702",
                     "ORDER BY \"%s\" is ambiguous", e->name);
      if (!rc && col < 0)
        rc = pos_err(err, e->line, e->column, "42703",
                     "column \"%s\" does not exist", e->name);
    } else if (e->kind == LM_EXPR_COLUMN) { /* t.x: no FROM in scope */
      rc = pos_err(err, e->line, e->column, "42P01",
                   "missing FROM-clause entry for table \"%s\"", e->table);
    } else {
      rc = pos_err(err, e->line, e->column, "0A000",
                   "invalid UNION/INTERSECT/EXCEPT ORDER BY clause: only "
                   "result column names or positions can be used, not "
                   "expressions or functions");
    }
    if (rc)
      break;
    bx[i].kind = LM_BX_COLUMN;
    bx[i].col = col;
    bx[i].type = s->fields[col].type;
    keys[i].expr = &bx[i];
    keys[i].desc = o->desc;
    keys[i].nulls_first = o->nulls == 0 ? o->desc : o->nulls == 1;
  }
  lm_batch *sorted = NULL;
  if (!rc)
    rc = (sel->limit_with_ties ? lm_batch_sort_ties : lm_batch_sort)(
        *b, keys, n, sel->offset, sel->limit, &sorted, err);
  if (!rc) {
    lm_batch_release(*b);
    *b = sorted;
  }
  free(keys);
  free(bx);
  return rc;
}

static int result_of(lm_batch *b, laminar_result **res, lm_error *err) {
  lm_batch **arr = malloc(sizeof *arr);
  if (!arr) {
    lm_batch_release(b);
    return nomem(err);
  }
  arr[0] = b;
  *res = lm_result_new(lm_schema_retain(b->schema), arr, 1);
  return *res ? 0 : nomem(err);
}

/* Whether s (the left operand of a UNION [ALL] `top`) is a plain link of
 * the same chain: the same operator, no ORDER BY / LIMIT / OFFSET / WITH
 * of its own. `a UNION b UNION c` parses left-deep; such a chain runs as
 * one n-ary union (a ∪ b ∪ c, then DISTINCT for UNION), not one level of
 * recursion per operand (thousands of operands would overflow the stack;
 * PostgreSQL runs them). */
static bool union_link(const lm_select *s, const lm_select *top) {
  return s->setop == LM_SETOP_UNION && top->setop == LM_SETOP_UNION &&
         s->set_all == top->set_all && !s->n_order_by && s->limit < 0 &&
         !s->offset && !s->limit_expr && !s->offset_expr && !s->n_ctes &&
         s->emit == LM_EMIT_DEFAULT;
}

/* left <op> right; a chain of the same UNION [ALL] as one n-ary union.
 * *numeric: the result columns PostgreSQL types numeric (every operand's
 * column numeric or an integer, one of them numeric), whose assignment to
 * an integer column rounds half away from zero (INSERT ... SELECT). */
static int run_setop(laminar_db *db, const lm_select *sel, lm_batch **out,
                     uint64_t *numeric, lm_error *err) {
  int n = 2;
  const lm_select *l = sel->set_left;
  for (; union_link(l, sel); l = l->set_left)
    n++;
  part *ps = calloc((size_t)n, sizeof *ps);
  const lm_select **q = calloc((size_t)n, sizeof *q);
  if (!ps || !q) {
    free(ps);
    free(q);
    return nomem(err);
  }
  q[0] = l; /* the leftmost operand, then the right sides bottom-up */
  int k = n - 1;
  for (const lm_select *t = sel; k >= 1; t = t->set_left)
    q[k--] = t->set_right;
  int rc = 0;
  uint64_t num_any = 0, num_all = ~(uint64_t)0;
  for (int i = 0; i < n && !rc; i++) {
    ps[i].q = q[i];
    ps[i].line = q[i]->line;
    ps[i].column = q[i]->column;
    lm_xt_next_role(LM_XT_OPERAND, NULL, NULL);
    uint64_t nu = 0;
    rc = run_one_num(db, q[i], &ps[i].b, &nu, err);
    if (rc)
      break;
    uint64_t ok = nu;
    for (int c = 0; c < ps[i].b->schema->n_fields && c < 64; c++)
      if (lm_type_is_integer(ps[i].b->schema->fields[c].type))
        ok |= (uint64_t)1 << c;
    num_any |= nu;
    num_all &= ok;
  }
  *numeric = num_any & num_all;
  lm_batch *all = NULL;
  int64_t nl = 0;
  if (!rc)
    rc = unify(ps, n, setop_name(sel->setop), &all, &nl, err);
  for (int i = 0; i < n; i++)
    lm_batch_release(ps[i].b);
  free(ps);
  free(q);
  if (!rc)
    rc = combine(all, nl, sel->setop, sel->set_all, out, err);
  lm_batch_release(all);
  return rc;
}

/* A decimal literal (1.5, -2.5): DOUBLE alone (docs/types.md), but
 * PostgreSQL's numeric. */
static bool dec_lit(const lm_expr *e) {
  if (e && e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1)
    e = e->args[0];
  return e && e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_DECIMAL;
}

/* Whether every row of VALUES column c is a number literal, NULL or a
 * cast to NUMERIC, one of them a decimal literal: PostgreSQL's column is
 * then numeric, so its decimal literals are made exact DECIMALs. */
static bool values_numeric(const lm_select *sel, int c) {
  bool any = false;
  for (int r = 0; r < sel->n_values; r++) {
    const lm_expr *e = sel->values[r][c];
    if (dec_lit(e)) {
      any = true;
      continue;
    }
    if (e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1)
      e = e->args[0];
    bool ok =
        (e->kind == LM_EXPR_LITERAL &&
         (e->lit == LM_LIT_INT || e->lit == LM_LIT_NULL)) ||
        (e->kind == LM_EXPR_CAST && e->cast_type.id == LM_TYPE_DECIMAL128);
    if (!ok)
      return false;
  }
  return any;
}

/* A numeric VALUES column c (values_numeric) whose literals need more
 * than Decimal128's 38 digits at the column's common scale (the most
 * digits before the point plus the most after it, PostgreSQL's numeric
 * holds them all): 22003 naming the limit at the literal with the most
 * digits, never a silent double or a bare "numeric field overflow". */
static int values_fit(const lm_select *sel, int c, lm_error *err) {
  int before = 0, after = 0;
  const lm_expr *wide = NULL, *deep = NULL;
  for (int r = 0; r < sel->n_values; r++) {
    const lm_expr *e = sel->values[r][c];
    if (e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1)
      e = e->args[0];
    int b = 0, a = 0;
    if (dec_lit(e)) {
      b = lm_bind_lit_digits(e->text, &a);
    } else if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT) {
      for (uint64_t v = e->ival < 0 ? 0 - (uint64_t)e->ival : (uint64_t)e->ival;
           v; v /= 10)
        b++;
    }
    if (!wide || b > before)
      before = b, wide = e;
    if (!deep || a > after)
      after = a, deep = e;
  }
  if (before + after <= 38 || !wide || !deep)
    return 0;
  const lm_expr *at = before >= after ? wide : deep;
  return lm_engine_pos_errf(
      err, LM_ERR_INVALID, at->line, at->column, "22003",
      "VALUES column %d needs %d digits (%d before and %d after the point, "
      "over its rows): Laminar's NUMERIC (Decimal128) holds at most 38",
      c + 1, before + after, before, after);
}

/* VALUES rows: each row evaluated as a SELECT without FROM. */
static int run_values(laminar_db *db, const lm_select *sel, lm_batch **out,
                      lm_error *err) {
  int nc = sel->n_value_cols, nr = sel->n_values;
  part *ps = calloc((size_t)nr, sizeof *ps);
  lm_select_item *items = calloc((size_t)nc, sizeof *items);
  char(*names)[24] = calloc((size_t)nc, sizeof *names);
  lm_select *one = calloc((size_t)nr, sizeof *one);
  /* per column: its decimal literals cast to NUMERIC (values_numeric) */
  bool *num = calloc((size_t)nc + 1, sizeof *num);
  lm_expr *casts = calloc((size_t)nc + 1, sizeof *casts);
  lm_expr **cast_args = calloc((size_t)nc + 1, sizeof *cast_args);
  int rc = (!ps || !items || !names || !one || !num || !casts || !cast_args)
               ? nomem(err)
               : 0;
  for (int c = 0; !rc && c < nc; c++) {
    snprintf(names[c], sizeof names[c], "column%d", c + 1);
    num[c] = values_numeric(sel, c);
    if (num[c])
      rc = values_fit(sel, c, err);
  }
  for (int r = 0; !rc && r < nr; r++) {
    for (int c = 0; c < nc; c++) {
      items[c].expr = sel->values[r][c];
      items[c].alias = names[c];
      if (num[c] && dec_lit(items[c].expr)) { /* CAST(lit AS NUMERIC) */
        lm_expr *x = &casts[c];
        memset(x, 0, sizeof *x);
        x->kind = LM_EXPR_CAST;
        x->line = items[c].expr->line;
        x->column = items[c].expr->column;
        x->cast_type = lm_type_make(LM_TYPE_DECIMAL128); /* unconstrained */
        cast_args[c] = items[c].expr;
        x->args = &cast_args[c];
        x->n_args = 1;
        items[c].expr = x;
      }
    }
    lm_select *s = &one[r];
    s->line = sel->values[r][0]->line;
    s->column = sel->values[r][0]->column;
    s->items = items;
    s->n_items = nc;
    s->limit = -1;
    ps[r].line = s->line;
    ps[r].column = s->column;
    lm_xt_next_role(LM_XT_VALUES_ROW, NULL, NULL);
    rc = run_one(db, s, &ps[r].b, err);
    /* unknown-typed literals: judged on the row's own expressions */
    one[r].values = &sel->values[r];
    one[r].n_values = 1;
    one[r].n_value_cols = nc;
    one[r].items = NULL;
    one[r].n_items = 0;
    ps[r].q = &one[r];
  }
  if (!rc)
    rc = unify(ps, nr, "VALUES", out, NULL, err);
  for (int r = 0; ps && r < nr; r++)
    lm_batch_release(ps[r].b);
  free(ps);
  free(items);
  free(names);
  free(one);
  free(num);
  free(casts);
  free(cast_args);
  return rc;
}

/* ------------------------------------------------------------- FROM */

static bool has_over(const lm_expr *e, int depth) {
  if (!e)
    return false;
  if (lm_stack_low()) /* as deep as that: the planner's 54001, not a */
    return true;      /* silently different plan */
  if (e->over)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_over(e->args[i], depth + 1))
      return true;
  return false;
}

/* A subquery in FROM that select.c / join_bind.c plan themselves: a plain
 * SELECT computing ROW_NUMBER() OVER (...) (Top-N). */
static bool keep_subquery(const lm_select *q) {
  if (q->setop || q->values || q->n_ctes)
    return false;
  for (int i = 0; i < q->n_items; i++)
    if (has_over(q->items[i].expr, 0))
      return true;
  return false;
}

static bool from_needs(const lm_from *f, int depth) {
  if (!f || depth > 1000)
    return false;
  if (f->kind == LM_FROM_JOIN)
    return from_needs(f->left, depth + 1) || from_needs(f->right, depth + 1);
  if (f->n_col_aliases || f->kind == LM_FROM_FUNCTION)
    return true;
  return f->kind == LM_FROM_SUBQUERY && !keep_subquery(f->subquery);
}

/* A FROM that is a chain of two or more relations joined by INNER /
 * CROSS joins (comma joins included) that may be joined in any order, and
 * a select list without '*' (whose column order follows FROM's). */
static bool reorderable(const lm_select *sel) {
  const lm_from *f = sel->from_clause;
  if (!f || f->kind != LM_FROM_JOIN)
    return false;
  for (int i = 0; i < sel->n_items; i++)
    if (sel->items[i].expr->kind == LM_EXPR_STAR)
      return false;
  int n = 1;
  for (; f->kind == LM_FROM_JOIN; f = f->left, n++) {
    if ((f->join != LM_SQL_JOIN_INNER && f->join != LM_SQL_JOIN_CROSS) ||
        f->asof || f->system_time || f->match || f->n_using || f->natural ||
        f->right->kind == LM_FROM_JOIN || n >= LM_JOIN_ORDER_MAX)
      return false;
  }
  return true;
}

bool lm_setop_applies(const lm_select *sel) {
  if (sel->adhoc_rewritten)
    return false;
  return sel->setop || sel->values || sel->n_ctes ||
         from_needs(sel->from_clause, 0) || reorderable(sel) ||
         lm_srf_select_applies(sel); /* srf_from.c */
}

typedef struct rewrite {
  laminar_db *db;
  lm_arena *a;
  int n_made;
  int64_t srf_cap; /* lm_srf_limit_cap of the query (-1 = none) */
  /* the statement's WHERE while the item rewritten reaches it unchanged
   * (no outer join's nullable side above it), else NULL: lateral items
   * skip the rows it removes (select_lateral.h) */
  lm_expr *where;
} rewrite;

/* The WHERE `where` for side (0 left, 1 right) of join f. */
static lm_expr *where_for(lm_expr *where, const lm_from *f, int side) {
  bool keep = !f->asof &&
              (f->join == LM_SQL_JOIN_INNER || f->join == LM_SQL_JOIN_CROSS ||
               f->join == (side ? LM_SQL_JOIN_RIGHT : LM_SQL_JOIN_LEFT));
  return keep ? where : NULL;
}

/* FROM item f, a function call (srf_from.c), as a temporary relation;
 * left: the items before it when it is a join's right side. */
static int rewrite_func(rewrite *w, const lm_from *f, const lm_from *left,
                        lm_from *c, lm_expr **on, lm_error *err) {
  char name[64];
  /* "(function N.M fn)": EXPLAIN shows a Function Scan on fn (explain.c) */
  snprintf(name, sizeof name, "(function %d.%d %.30s)", w->db->n_temps,
           ++w->n_made, f->name ? f->name : "?");
  char *nm = lm_arena_strndup(w->a, name, strlen(name));
  if (!nm)
    return nomem(err);
  const lm_from *gf = f; /* no rows for those the WHERE removes */
  if (left && lm_lateral_guard_func(w->db, w->a, f, left, w->where, &gf))
    return nomem(err);
  int rc = lm_srf_from_eval(w->db, w->a, gf, left, left ? -1 : w->srf_cap, name,
                            on, err);
  if (rc)
    return rc;
  c->kind = LM_FROM_TABLE;
  c->name = nm;
  c->alias = f->alias ? f->alias : f->name;
  c->col_aliases = NULL;
  c->n_col_aliases = 0;
  c->funcs = NULL;
  c->n_funcs = 0;
  return 0;
}

/* The LATERAL subquery on the right of join f (select_lateral.c) as a
 * temporary relation; left: the items before it, rewritten. */
static int rewrite_lateral(rewrite *w, const lm_from *f, const lm_from *left,
                           lm_from *c, lm_expr **on, lm_error *err) {
  char name[64];
  snprintf(name, sizeof name, "(lateral subquery %d.%d)", w->db->n_temps,
           ++w->n_made);
  char *nm = lm_arena_strndup(w->a, name, strlen(name));
  if (!nm)
    return nomem(err);
  int rc = lm_lateral_eval(w->db, w->a, f->right, left, f->join, w->where, name,
                           on, err);
  if (rc)
    return rc;
  c->kind = LM_FROM_TABLE;
  c->name = nm;
  c->alias = f->right->alias;
  c->subquery = NULL;
  c->col_aliases = NULL;
  c->n_col_aliases = 0;
  return 0;
}

/* A copy of FROM tree f with every derived table replaced by a temporary
 * relation holding its rows. */
static int rewrite_from(rewrite *w, const lm_from *f, lm_from **out,
                        lm_error *err, int depth) {
  lm_from *c = lm_arena_alloc(w->a, sizeof *c);
  if (!c)
    return nomem(err);
  *c = *f;
  *out = c;
  if (depth > 1000)
    return pos_err(err, f->line, f->column, NULL, "too many joins");
  if (f->kind == LM_FROM_JOIN &&
      (f->right->kind == LM_FROM_FUNCTION ||
       (f->right->kind == LM_FROM_SUBQUERY && f->right->lateral))) {
    /* a function after other items: lateral (srf_from.c); a LATERAL
     * subquery (select_lateral.c) */
    lm_expr *where = w->where;
    w->where = where_for(where, f, 0);
    int rc = rewrite_from(w, f->left, &c->left, err, depth + 1);
    w->where = where;
    lm_from *r = rc ? NULL : lm_arena_alloc(w->a, sizeof *r);
    lm_expr *on = NULL;
    if (!rc && !r)
      rc = nomem(err);
    if (!rc) {
      *r = *f->right;
      c->right = r;
      /* an INNER JOIN's ON filters the left rows first, as the WHERE:
       * its conjuncts over the left items only run before the call */
      if (f->join == LM_SQL_JOIN_INNER && f->on)
        w->where = where ? lm_sql_op_node(w->a, LM_EXPR_BINARY, LM_OP_AND,
                                          where, f->on, f->line, f->column)
                         : f->on;
      rc = f->right->kind == LM_FROM_FUNCTION
               ? rewrite_func(w, f->right, c->left, r, &on, err)
               : rewrite_lateral(w, f, c->left, r, &on, err);
      w->where = where;
    }
    if (rc || !on)
      return rc;
    if (f->join != LM_SQL_JOIN_INNER && f->join != LM_SQL_JOIN_CROSS &&
        f->join != LM_SQL_JOIN_LEFT) {
      const lm_expr *ref = on->op == LM_OP_AND ? on->args[1] : on;
      const char *tb = ref->args[1]->table;
      pos_err(err, ref->args[1]->line, ref->args[1]->column, "42P10",
              "invalid reference to FROM-clause entry%s%s%s",
              tb ? " for table \"" : "", tb ? tb : "", tb ? "\"" : "");
      return lm_err_detail(err, "The combining JOIN type must be INNER or "
                                "LEFT for a LATERAL reference.");
    }
    if (f->on) {
      lm_expr *and = lm_arena_alloc(w->a, sizeof *and);
      lm_expr **aa = lm_arena_alloc(w->a, sizeof *aa * 2);
      if (!and || !aa)
        return nomem(err);
      and->kind = LM_EXPR_BINARY;
      and->op = LM_OP_AND;
      and->line = on->line;
      and->column = on->column;
      aa[0] = on;
      aa[1] = f->on;
      and->args = aa;
      and->n_args = 2;
      on = and;
    }
    c->on = on;
    if (c->join == LM_SQL_JOIN_CROSS)
      c->join = LM_SQL_JOIN_INNER;
    return 0;
  }
  if (f->kind == LM_FROM_JOIN) {
    lm_expr *where = w->where;
    w->where = where_for(where, f, 0);
    int rc = rewrite_from(w, f->left, &c->left, err, depth + 1);
    bool left_ok = !rc;
    w->where = where_for(where, f, 1);
    rc = rc ? rc : rewrite_from(w, f->right, &c->right, err, depth + 1);
    w->where = where;
    if (rc && left_ok && f->right->kind == LM_FROM_SUBQUERY)
      rc = lm_lateral_hint(w->db, f->right, c->left, err); /* without LATERAL */
    return rc;
  }
  if (f->kind == LM_FROM_FUNCTION) {
    lm_expr *on = NULL;
    return rewrite_func(w, f, NULL, c, &on, err);
  }
  if (!f->n_col_aliases &&
      (f->kind == LM_FROM_TABLE || keep_subquery(f->subquery)))
    return 0;
  lm_batch *b = NULL;
  int rc;
  char name[64];
  snprintf(name, sizeof name, "(derived table %d.%d)", w->db->n_temps,
           ++w->n_made);
  lm_xt_next_role(LM_XT_DERIVED, name, NULL); /* EXPLAIN's trace */
  if (f->kind == LM_FROM_SUBQUERY) {
    rc = run_one(w->db, f->subquery, &b, err);
  } else { /* name AS t(a, b): SELECT * FROM name */
    lm_expr star;
    memset(&star, 0, sizeof star);
    star.kind = LM_EXPR_STAR;
    star.line = f->line;
    star.column = f->column;
    lm_select_item it = {&star, NULL};
    lm_from tf = *f;
    tf.alias = NULL;
    tf.col_aliases = NULL;
    tf.n_col_aliases = 0;
    lm_select ss;
    memset(&ss, 0, sizeof ss);
    ss.line = f->line;
    ss.column = f->column;
    ss.items = &it;
    ss.n_items = 1;
    ss.from = f->name;
    ss.from_line = f->line;
    ss.from_column = f->column;
    ss.from_clause = &tf;
    ss.limit = -1;
    rc = run_one(w->db, &ss, &b, err);
  }
  const char *rel = f->alias ? f->alias : f->name ? f->name : "subquery";
  if (!rc && f->n_col_aliases)
    rc = rename_cols(&b, f->col_aliases, f->n_col_aliases, "table", rel,
                     f->line, f->column, err);
  char *nm = lm_arena_strndup(w->a, name, strlen(name));
  if (!rc && !nm)
    rc = nomem(err);
  if (!rc) {
    rc = lm_engine_temp_push(w->db, name, b, false, err);
    b = NULL;
  }
  lm_batch_release(b);
  if (rc)
    return rc;
  c->kind = LM_FROM_TABLE;
  c->name = nm;
  c->alias = f->alias ? f->alias : f->kind == LM_FROM_TABLE ? f->name : NULL;
  c->subquery = NULL;
  c->col_aliases = NULL;
  c->n_col_aliases = 0;
  return 0;
}

/* ----------------------------------------------------------- join order */

typedef struct jrel {
  lm_from *f;          /* the TABLE item (rewritten copy) */
  const char *qual;    /* alias or name */
  const lm_schema *sc; /* its columns */
  int64_t rows;        /* row count (estimate) */
} jrel;

/* The relation a column reference reads, -1 when unknown or ambiguous. */
static int col_rel(const jrel *r, int n, const lm_expr *e) {
  int hit = -1;
  for (int i = 0; i < n; i++) {
    if (e->table && strcmp(e->table, r[i].qual))
      continue;
    if (lm_schema_find_ref(r[i].sc, e->name, e->quoted, NULL) < 0)
      continue;
    if (hit >= 0)
      return -1;
    hit = i;
  }
  return hit;
}

/* The relations e reads into *m; false when e cannot move (an unknown or
 * ambiguous name, '*', a window function or an expression kind this pass
 * does not know, such as a subquery). */
static bool expr_mask(const jrel *r, int n, const lm_expr *e, uint64_t *m,
                      int depth) {
  if (!e)
    return true;
  if (lm_stack_low()) /* not moved (no depth limit otherwise) */
    return false;
  switch (e->kind) {
  case LM_EXPR_LITERAL:
    return true;
  case LM_EXPR_COLUMN: {
    int i = col_rel(r, n, e);
    if (i < 0)
      return false;
    *m |= (uint64_t)1 << i;
    return true;
  }
  case LM_EXPR_UNARY:
  case LM_EXPR_BINARY:
  case LM_EXPR_FUNC:
  case LM_EXPR_CAST:
  case LM_EXPR_IS_NULL:
  case LM_EXPR_BETWEEN:
  case LM_EXPR_IN:
  case LM_EXPR_LIKE:
  case LM_EXPR_CASE:
    if (e->over)
      return false;
    for (int i = 0; i < e->n_args; i++)
      if (!expr_mask(r, n, e->args[i], m, depth + 1))
        return false;
    return expr_mask(r, n, e->filter, m, depth + 1);
  default:
    return false;
  }
}

/* Whether e (which reads no column) gives the same value for every row:
 * no volatile function (random(), clock_timestamp(), ...). Such a WHERE
 * conjunct filters the first relation before the join, so that a false or
 * NULL one (`WHERE NULL >= 1`) does not build the cross product first. */
static bool const_conj(const lm_expr *e, int depth) {
  if (!e)
    return true;
  if (depth > 64 || lm_stack_low())
    return false;
  if (e->kind == LM_EXPR_FUNC && e->name &&
      (!strcasecmp(e->name, "random") || !strcasecmp(e->name, "setseed") ||
       !strcasecmp(e->name, "clock_timestamp") ||
       !strcasecmp(e->name, "timeofday") || !strcasecmp(e->name, "nextval") ||
       !strcasecmp(e->name, "gen_random_uuid")))
    return false;
  for (int i = 0; i < e->n_args; i++)
    if (!const_conj(e->args[i], depth + 1))
      return false;
  return const_conj(e->filter, depth + 1);
}

static void split_and(lm_expr *e, lm_expr ***v, int *n, int *cap, bool *oom,
                      int depth) {
  if (!e || *oom)
    return;
  if (e->kind == LM_EXPR_BINARY && e->op == LM_OP_AND && depth < 1000) {
    split_and(e->args[0], v, n, cap, oom, depth + 1);
    split_and(e->args[1], v, n, cap, oom, depth + 1);
    return;
  }
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 16;
    lm_expr **x = realloc(*v, sizeof *x * (size_t)nc);
    if (!x) {
      *oom = true;
      return;
    }
    *v = x;
    *cap = nc;
  }
  (*v)[(*n)++] = e;
}

static lm_expr *and_of(lm_arena *a, lm_expr **xs, int n) {
  lm_expr *acc = NULL;
  for (int i = 0; i < n; i++) {
    if (!acc) {
      acc = xs[i];
      continue;
    }
    lm_expr *x = lm_arena_alloc(a, sizeof *x);
    lm_expr **args = lm_arena_alloc(a, sizeof *args * 2);
    if (!x || !args)
      return NULL;
    x->kind = LM_EXPR_BINARY;
    x->op = LM_OP_AND;
    x->line = xs[i]->line;
    x->column = xs[i]->column;
    x->args = args;
    x->n_args = 2;
    args[0] = acc;
    args[1] = xs[i];
    acc = x;
  }
  return acc;
}

/* Inner join order (plan/join_order.c) for the ad-hoc query body: every
 * condition of WHERE and of the ONs is split at AND; one reading a single
 * relation filters that relation's rows before the join (a temporary
 * relation); the relations are chained in the greedy order and the rest
 * of the conditions go to WHERE, from where join_bind.c moves each into
 * the first join that has its relations (equalities become hash keys). */
static int reorder(rewrite *w, lm_select *body, lm_error *err) {
  jrel r[LM_JOIN_ORDER_MAX];
  int n = 0;
  lm_from *f = body->from_clause;
  lm_expr **cj = NULL;
  int ncj = 0, cap = 0;
  bool oom = false;
  int first_line = f->line, first_col = f->column;
  for (; f->kind == LM_FROM_JOIN; f = f->left) {
    r[n++].f = f->right;
    split_and(f->on, &cj, &ncj, &cap, &oom, 0);
  }
  r[n++].f = f;
  split_and(body->where, &cj, &ncj, &cap, &oom, 0);
  if (oom) {
    free(cj);
    return nomem(err);
  }
  for (int i = 0; i < n / 2; i++) { /* FROM order */
    jrel t = r[i];
    r[i] = r[n - 1 - i];
    r[n - 1 - i] = t;
  }
  for (int i = 0; i < n; i++) {
    if (r[i].f->kind != LM_FROM_TABLE) {
      free(cj);
      return 0; /* a kept (Top-N) subquery: FROM order */
    }
    lm_node *nd = lm_engine_find(w->db, r[i].f->name);
    if (!nd) { /* the binder reports it */
      free(cj);
      return 0;
    }
    r[i].qual = r[i].f->alias ? r[i].f->alias : r[i].f->name;
    r[i].sc = nd->table_schema;
    r[i].rows = nd->table                        ? lm_table_rows(nd->table)
                : nd->n_store == 1 && !nd->query ? nd->store[0]->num_rows
                                                 : INT64_MAX / 4;
  }
  uint64_t *mask = calloc((size_t)ncj + 1, sizeof *mask);
  bool *movable = calloc((size_t)ncj + 1, sizeof *movable);
  int *ea = calloc((size_t)ncj + 1, sizeof *ea);
  int *eb = calloc((size_t)ncj + 1, sizeof *eb);
  lm_expr **rest = calloc((size_t)ncj + 1, sizeof *rest);
  lm_expr **mine = calloc((size_t)ncj + 1, sizeof *mine);
  int rc = (!mask || !movable || !ea || !eb || !rest || !mine) ? nomem(err) : 0;
  int ne = 0, nrest = 0;
  for (int k = 0; !rc && k < ncj; k++) {
    movable[k] = expr_mask(r, n, cj[k], &mask[k], 0);
    const lm_expr *e = cj[k];
    uint64_t ma = 0, mb = 0;
    if (movable[k] && e->kind == LM_EXPR_BINARY && e->op == LM_OP_EQ &&
        expr_mask(r, n, e->args[0], &ma, 0) &&
        expr_mask(r, n, e->args[1], &mb, 0) && ma && mb && ma != mb &&
        !(ma & (ma - 1)) && !(mb & (mb - 1))) {
      ea[ne] = __builtin_ctzll(ma);
      eb[ne++] = __builtin_ctzll(mb);
    }
    /* a condition reading no column filters the first relation */
    if (movable[k] && !mask[k] && const_conj(cj[k], 0))
      mask[k] = 1;
    bool single = movable[k] && mask[k] && !(mask[k] & (mask[k] - 1));
    if (!single)
      rest[nrest++] = cj[k];
  }
  /* single-relation conditions: filtered rows of that relation */
  for (int i = 0; !rc && i < n; i++) {
    int nm = 0;
    for (int k = 0; k < ncj; k++)
      if (movable[k] && mask[k] == (uint64_t)1 << i)
        mine[nm++] = cj[k];
    if (!nm)
      continue;
    lm_expr star;
    memset(&star, 0, sizeof star);
    star.kind = LM_EXPR_STAR;
    star.line = r[i].f->line;
    star.column = r[i].f->column;
    lm_select_item it = {&star, NULL};
    lm_from tf = *r[i].f;
    tf.alias = r[i].qual;
    lm_select ss;
    memset(&ss, 0, sizeof ss);
    ss.line = r[i].f->line;
    ss.column = r[i].f->column;
    ss.items = &it;
    ss.n_items = 1;
    ss.from = tf.name;
    ss.from_alias = tf.alias;
    ss.from_line = tf.line;
    ss.from_column = tf.column;
    ss.from_clause = &tf;
    ss.where = and_of(w->a, mine, nm);
    ss.limit = -1;
    ss.adhoc_rewritten = true;
    lm_batch *b = NULL;
    char name[64];
    snprintf(name, sizeof name, "(filtered %s %d.%d)", r[i].qual,
             w->db->n_temps, ++w->n_made);
    if (!ss.where)
      rc = nomem(err);
    lm_xt_next_role(LM_XT_FILTERED, name, NULL); /* EXPLAIN's trace */
    if (!rc)
      rc = run_one(w->db, &ss, &b, err);
    char *nm2 = rc ? NULL : lm_arena_strndup(w->a, name, strlen(name));
    if (!rc && !nm2)
      rc = nomem(err);
    if (!rc) {
      r[i].rows = b->num_rows;
      rc = lm_engine_temp_push(w->db, name, b, false, err);
      b = NULL;
    }
    lm_batch_release(b);
    if (!rc) {
      lm_from *c = lm_arena_alloc(w->a, sizeof *c);
      if (!c) {
        rc = nomem(err);
        break;
      }
      *c = *r[i].f;
      c->name = nm2;
      c->alias = r[i].qual;
      r[i].f = c;
    }
  }
  int order[LM_JOIN_ORDER_MAX];
  int64_t rows[LM_JOIN_ORDER_MAX];
  for (int i = 0; i < n; i++)
    rows[i] = r[i].rows;
  if (!rc)
    lm_join_order_greedy(n, rows, ea, eb, ne, order);
  lm_from *chain = rc ? NULL : r[order[0]].f;
  for (int k = 1; !rc && k < n; k++) {
    lm_from *j = lm_arena_alloc(w->a, sizeof *j);
    if (!j) {
      rc = nomem(err);
      break;
    }
    j->kind = LM_FROM_JOIN;
    j->line = first_line;
    j->column = first_col;
    j->join = LM_SQL_JOIN_CROSS;
    j->left = chain;
    j->right = r[order[k]].f;
    chain = j;
  }
  if (!rc) {
    body->from_clause = chain;
    body->where = nrest ? and_of(w->a, rest, nrest) : NULL;
    if (nrest && !body->where)
      rc = nomem(err);
  }
  free(mask);
  free(movable);
  free(ea);
  free(eb);
  free(rest);
  free(mine);
  free(cj);
  return rc;
}

/* ---------------------------------------------------------------- entry */

int lm_setop_select(laminar_db *db, const lm_select *sel, laminar_result **res,
                    lm_error *err) {
  int base = db->n_temps, rc = 0;
  *res = NULL;
  if (sel->n_ctes) {
    if (sel->with_recursive) /* select_recursive.c */
      return lm_recursive_with(db, sel, res, err);
    for (int i = 0; i < sel->n_ctes && !rc; i++) {
      const lm_cte *c = &sel->ctes[i];
      for (int j = 0; j < i && !rc; j++)
        if (!strcmp(sel->ctes[j].name, c->name))
          rc = pos_err(err, c->line, c->column, "42712",
                       "WITH query name \"%s\" specified more than once",
                       c->name);
      if (!rc && (c->n_search_cols || c->n_cycle_cols))
        rc = lm_sc_not_recursive(c, err);
      lm_batch *b = NULL;
      lm_xt_next_role(LM_XT_CTE, c->name, NULL); /* EXPLAIN's trace */
      if (!rc)
        rc = run_one(db, c->query, &b, err);
      if (!rc && c->n_cols)
        rc = rename_cols(&b, c->cols, c->n_cols, "WITH query", c->name, c->line,
                         c->column, err);
      if (!rc) {
        rc = lm_engine_temp_push(db, c->name, b, false, err);
        b = NULL;
      }
      lm_batch_release(b);
    }
    lm_select body = *sel; /* may hold derived tables: not rewritten */
    body.ctes = NULL;
    body.n_ctes = 0;
    lm_xt_next_role(LM_XT_BODY, NULL, NULL);
    if (!rc)
      rc = lm_engine_select(db, &body, res, err);
    if (!rc)
      lm_xt_with_done(sel);
    lm_engine_temps_pop(db, base);
    return rc;
  }
  if (sel->setop || sel->values) {
    lm_batch *b = NULL;
    uint64_t numeric = 0;
    rc = sel->setop ? run_setop(db, sel, &b, &numeric, err)
                    : run_values(db, sel, &b, err);
    int64_t n_in = rc ? 0 : b->num_rows;
    if (!rc)
      rc = order_limit(sel, &b, err);
    if (!rc && lm_xt_on()) { /* EXPLAIN's trace */
      int n = sel->n_values;
      if (sel->setop) {
        n = 2;
        for (const lm_select *l = sel->set_left; union_link(l, sel);
             l = l->set_left)
          n++;
      }
      lm_xt_setop_done(sel, n, n_in, b->num_rows);
    }
    if (!rc && sel->emit != LM_EMIT_DEFAULT)
      rc = pos_err(err, sel->line, sel->column, NULL,
                   "EMIT is only allowed in CREATE STREAM / MATERIALIZED VIEW");
    if (!rc) {
      rc = result_of(b, res, err);
      if (!rc)
        (*res)->numeric_cols = numeric; /* (INSERT ... SELECT) */
      return rc;
    }
    lm_batch_release(b);
    return rc;
  }
  /* derived tables in FROM: materialized, then a plain SELECT */
  lm_arena a;
  lm_arena_init(&a, 1024);
  /* set-returning calls in the select list: a lateral call in FROM */
  rc = lm_srf_rewrite_select(&a, sel, &sel, err);
  rewrite w = {db, &a, 0, rc ? -1 : lm_srf_limit_cap(sel), NULL};
  lm_from *nf = NULL;
  const lm_from *srf_base = NULL;
  if (!rc && w.srf_cap < 0 && lm_srf_stream_applies(sel, &srf_base)) {
    /* base + function calls: ProjectSet stages, a batch at a time
     * (srf_stream.c); the base materialized when it is a subquery */
    if (srf_base)
      rc = rewrite_from(&w, srf_base, &nf, err, 0);
    if (!rc && (!nf || nf->kind == LM_FROM_TABLE)) {
      const lm_select *gs = sel; /* no rows for those WHERE removes */
      if (lm_lateral_guard_chain(db, &a, sel, nf, &gs))
        rc = nomem(err);
      if (!rc)
        rc = lm_srf_stream_select(db, &a, gs, nf, res, err);
      lm_engine_temps_pop(db, base);
      lm_arena_free(&a);
      return rc;
    }
    nf = NULL; /* a kept (Top-N) subquery: the path below */
  }
  w.where = sel->where;
  if (!rc)
    rc = rewrite_from(&w, sel->from_clause, &nf, err, 0);
  if (!rc) {
    lm_select body = *sel;
    body.adhoc_rewritten = true;
    body.from_clause = nf;
    body.from_subquery = NULL;
    if (reorderable(&body))
      rc = reorder(&w, &body, err);
    nf = body.from_clause;
    if (nf->kind == LM_FROM_TABLE) {
      body.from = nf->name;
      body.from_line = nf->line;
      body.from_column = nf->column;
      body.from_alias = nf->alias;
    } else if (nf->kind == LM_FROM_SUBQUERY) { /* kept (Top-N) */
      body.from_subquery = nf->subquery;
    }
    lm_xt_next_role(LM_XT_BODY, NULL, NULL);
    if (!rc)
      rc = lm_engine_select(db, &body, res, err);
    if (!rc)
      lm_xt_body_done();
  }
  lm_engine_temps_pop(db, base);
  lm_arena_free(&a);
  return rc;
}

/* ---------------------------------------------- continuous queries */

static int check_cq(const lm_select *s, int depth, lm_error *err);

static int check_from_cq(const lm_from *f, int depth, lm_error *err) {
  if (!f || depth > 1000)
    return 0;
  if (f->kind == LM_FROM_JOIN) {
    int rc = check_from_cq(f->left, depth + 1, err);
    return rc ? rc : check_from_cq(f->right, depth + 1, err);
  }
  if (f->kind == LM_FROM_SUBQUERY && f->lateral) /* select_lateral.c */
    return pos_err(err, f->line, f->column, "0A000",
                   "LATERAL subqueries are not supported in continuous "
                   "queries yet (they are in ad-hoc SELECT); a "
                   "set-returning function may be LATERAL");
  if (f->kind == LM_FROM_SUBQUERY && !f->subquery->from_clause &&
      !f->subquery->setop && !f->subquery->values && !f->subquery->n_ctes)
    return pos_err(err, f->line, f->column, "0A000",
                   "a subquery without FROM is not supported in FROM of a "
                   "continuous query yet (it is in ad-hoc SELECT)");
  int rc =
      f->kind == LM_FROM_SUBQUERY ? check_cq(f->subquery, depth + 1, err) : 0;
  if (!rc && f->n_col_aliases)
    rc = pos_err(err, f->line, f->column, "0A000",
                 "column aliases on a FROM item (AS t(a, b)) are not "
                 "supported in continuous queries yet; alias the columns "
                 "in the subquery's SELECT list");
  return rc;
}

static int check_cq(const lm_select *s, int depth, lm_error *err) {
  int src = lm_srf_check_continuous(s, err); /* srf_from.c */
  if (src)
    return src;
  if (s->setop == LM_SETOP_UNION && s->set_all)
    return pos_err(err, s->line, s->column, "0A000",
                   "UNION ALL is supported at the top of a continuous query "
                   "or as the subquery of its FROM, not here yet: create "
                   "the UNION ALL as a stream (CREATE STREAM u AS SELECT "
                   "... UNION ALL SELECT ...) and query that stream");
  if (s->setop)
    return pos_err(err, s->line, s->column, "0A000",
                   "%s%s is not supported in continuous queries (CREATE "
                   "STREAM / MATERIALIZED VIEW) yet; run it as an ad-hoc "
                   "SELECT over views",
                   setop_name(s->setop), s->set_all ? " ALL" : "");
  if (s->values)
    return pos_err(err, s->line, s->column, "0A000",
                   "VALUES is not supported in continuous queries yet");
  if (s->n_ctes)
    return pos_err(err, s->with_line, s->with_column, "0A000",
                   "WITH inside a subquery is not supported in continuous "
                   "queries yet; move it to the start of the query");
  return check_from_cq(s->from_clause, depth, err);
}

int lm_setop_check_continuous(const lm_select *sel, lm_error *err) {
  return check_cq(sel, 0, err);
}

/* WITH in a continuous query: each reference to a WITH query in FROM
 * becomes that query as a subquery (inlined; its rows are not shared). */
typedef struct inliner {
  lm_arena *a;
  const lm_cte *ctes;
  lm_select **done; /* inlined query of each WITH query */
  int n_visible;
  bool oom;
} inliner;

static lm_select *inl_select(inliner *x, const lm_select *s, int depth);

static lm_from *inl_from(inliner *x, const lm_from *f, int depth) {
  if (!f)
    return NULL;
  lm_from *c = lm_arena_alloc(x->a, sizeof *c);
  if (!c || depth > 1000) {
    x->oom = !c;
    return c ? (*c = *f, c) : NULL;
  }
  *c = *f;
  if (f->kind == LM_FROM_JOIN) {
    c->left = inl_from(x, f->left, depth + 1);
    c->right = inl_from(x, f->right, depth + 1);
  } else if (f->kind == LM_FROM_SUBQUERY) {
    c->subquery = inl_select(x, f->subquery, depth + 1);
  } else {
    for (int i = x->n_visible - 1; i >= 0; i--)
      if (!strcmp(x->ctes[i].name, f->name)) {
        c->kind = LM_FROM_SUBQUERY;
        c->subquery = x->done[i];
        c->alias = f->alias ? f->alias : x->ctes[i].name;
        if (x->ctes[i].n_cols && !f->n_col_aliases) {
          c->col_aliases = x->ctes[i].cols;
          c->n_col_aliases = x->ctes[i].n_cols;
        }
        break;
      }
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
  if (s->n_ctes || depth > 1000)
    return c; /* a WITH of its own: refused by check_cq */
  if (s->setop) {
    c->set_left = inl_select(x, s->set_left, depth + 1);
    c->set_right = inl_select(x, s->set_right, depth + 1);
    return c;
  }
  c->from_clause = inl_from(x, s->from_clause, depth + 1);
  const lm_from *f = c->from_clause;
  if (f && f->kind == LM_FROM_SUBQUERY && f->subquery) { /* as the parser */
    c->from_subquery = f->subquery;
    c->from = f->subquery->from;
    c->from_line = f->subquery->from_line;
    c->from_column = f->subquery->from_column;
    c->from_alias = f->alias;
  }
  return c;
}

int lm_setop_create_with(laminar_db *db, const lm_stmt *st, lm_error *err) {
  const lm_select *sel = st->select;
  if (sel->with_recursive)
    return pos_err(err, sel->with_line, sel->with_column, "0A000",
                   "WITH RECURSIVE is not supported in continuous queries "
                   "(CREATE STREAM / MATERIALIZED VIEW); run it as an "
                   "ad-hoc SELECT over views");
  lm_arena a;
  lm_arena_init(&a, 4096);
  lm_select **done = lm_arena_alloc(&a, sizeof *done * (size_t)sel->n_ctes);
  inliner x = {&a, sel->ctes, done, 0, !done};
  for (int i = 0; !x.oom && i < sel->n_ctes; i++) {
    x.n_visible = i;
    done[i] = inl_select(&x, sel->ctes[i].query, 0);
  }
  x.n_visible = sel->n_ctes;
  lm_select body = *sel;
  body.ctes = NULL;
  body.n_ctes = 0;
  lm_select *nb = x.oom ? NULL : inl_select(&x, &body, 0);
  int rc;
  if (x.oom || !nb) {
    rc = nomem(err);
  } else {
    lm_stmt st2 = *st;
    st2.select = nb;
    rc = lm_engine_exec(db, &st2, NULL, err);
  }
  lm_arena_free(&a);
  return rc;
}
