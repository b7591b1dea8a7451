/*
 * plan/join_bind.c — binding of FROM clauses with joins (docs/joins.md):
 * the relations of a left-deep join chain, their names (qualified,
 * unqualified, USING-merged), the split of each ON condition into equi-join
 * keys, an event-time interval and a residual, and the choice of join
 * algorithm. The SELECT over the join's output is then bound by
 * lm_plan_select_scope with the join's scope.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/bind_internal.h"

/* ------------------------------------------------------------ helpers */

static bool has_over(const lm_expr *e) {
  if (!e)
    return false;
  if (e->over)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_over(e->args[i]))
      return true;
  return false;
}

/* A subquery computing ROW_NUMBER() OVER (...): a Top-N. */
static bool is_topn_subquery(const lm_select *q) {
  for (int i = 0; i < q->n_items; i++)
    if (has_over(q->items[i].expr))
      return true;
  return false;
}

bool lm_select_needs_join_plan(const lm_select *sel) {
  const lm_from *f = sel->from_clause;
  if (!f || f->kind == LM_FROM_TABLE)
    return false;
  if (f->kind == LM_FROM_JOIN || f->kind == LM_FROM_FUNCTION)
    return true;
  /* a Top-N over one relation is planned alone; over a join (Nexmark q9)
   * by lm_plan_join_select */
  if (is_topn_subquery(f->subquery))
    return lm_select_needs_join_plan(f->subquery);
  return true;
}

bool lm_plan_time_is_window_end(const lm_plan *p) {
  if (!p->has_agg || p->topn || p->window_key < 0 || p->window_end_key < 0 ||
      (p->window_kind != LM_WIN_TUMBLE && p->window_kind != LM_WIN_HOP))
    return false;
  bool end = false;
  for (int o = 0; o < p->n_out; o++) {
    if (p->out[o]->kind != LM_BX_COLUMN)
      continue;
    if (p->out[o]->col == p->window_key)
      return false;
    if (p->out[o]->col == p->window_end_key)
      end = true;
  }
  return end;
}

int lm_plan_out_time_col(const lm_plan *p, int in_time_col,
                         bool out_changelog) {
  if (out_changelog || p->topn || in_time_col < 0)
    return -1;
  if (p->has_agg) {
    if (p->window_kind == LM_WIN_NONE || p->window_key < 0)
      return -1;
    for (int o = 0; o < p->n_out; o++)
      if (p->out[o]->kind == LM_BX_COLUMN && p->out[o]->col == p->window_key)
        return o;
    /* without the start, a TUMBLE / HOP window's end (its watermark is the
     * start's plus the size: lm_plan_time_is_window_end) */
    if (lm_plan_time_is_window_end(p))
      for (int o = 0; o < p->n_out; o++)
        if (p->out[o]->kind == LM_BX_COLUMN &&
            p->out[o]->col == p->window_end_key)
          return o;
    return -1;
  }
  for (int o = 0; o < p->n_out; o++)
    if (p->out[o]->kind == LM_BX_COLUMN && p->out[o]->col == in_time_col)
      return o;
  return -1;
}

/* The event-time column of a keyed aggregate's changelog output: a plain
 * GROUP BY (no window, emitted at each change) over an append-only input
 * with an event-time column, one of whose keys is that column as is and is
 * selected as is (Nexmark q5's MaxBids: `GROUP BY starttime, endtime` over
 * the window aggregate CountBids). The input brings no row below its
 * watermark, so a group whose key is below it never changes again: every
 * later change of the output carries a time at or after the watermark the
 * aggregate forwards. That makes the column a time column of the changelog
 * for the joins reading it (an updating join keyed on it evicts both
 * sides' rows of closed times, docs/joins.md "Eviction by time"). -1
 * otherwise. */
static int changelog_time_col(const lm_plan *p, int in_time_col, bool in_cl) {
  if (in_cl || in_time_col < 0 || !p->has_agg || p->topn ||
      p->window_kind != LM_WIN_NONE || p->changelog_input ||
      (p->emit != LM_EMIT_DEFAULT && p->emit != LM_EMIT_CHANGES &&
       p->emit != LM_EMIT_ON_UPDATE))
    return -1;
  for (int k = 0; k < p->n_keys; k++) {
    if (p->keys[k]->kind != LM_BX_COLUMN || p->keys[k]->col != in_time_col)
      continue;
    for (int o = 0; o < p->n_out; o++)
      if (p->out[o]->kind == LM_BX_COLUMN && p->out[o]->col == k)
        return o;
  }
  return -1;
}

/* Whether a plan over an input (changelog or not) emits a changelog: the
 * engine's rule (an updating aggregate, a changelog input, Top-N). */
static bool plan_emits_changelog(const lm_plan *p, bool in_changelog) {
  if (in_changelog || p->topn)
    return true;
  if (!p->has_agg)
    return false;
  if (p->window_kind == LM_WIN_NONE)
    return true;
  bool close = p->emit == LM_EMIT_ON_WINDOW_CLOSE || p->emit == LM_EMIT_FINAL ||
               p->emit == LM_EMIT_AFTER_WATERMARK;
  return !close || (p->allowed_lateness_us > 0 && p->emit != LM_EMIT_FINAL);
}

/* Bitmask of the sides a bound expression reads: 1 = columns < split,
 * 2 = columns >= split. */
static int sides_of(const lm_bexpr *x, int split) {
  if (!x)
    return 0;
  int m = 0;
  if (x->kind == LM_BX_COLUMN)
    m |= x->col < split ? 1 : 2;
  for (int i = 0; i < x->n_args; i++)
    m |= sides_of(x->args[i], split);
  if (x->kind == LM_BX_SUBQUERY && x->sub->n_params)
    m |= 3; /* reads outer values: kept in the residual, never a key */
  return m;
}

/* Adds `lo` to columns < split and `hi` to the others (in place). */
static void remap(lm_bexpr *x, int split, int lo, int hi) {
  if (!x)
    return;
  if (x->kind == LM_BX_COLUMN)
    x->col += x->col < split ? lo : hi;
  for (int i = 0; i < x->n_args; i++)
    remap(x->args[i], split, lo, hi);
}

/* A deep copy (so that remapping one use leaves the others alone). */
static lm_bexpr *copy_bx(lm_arena *a, const lm_bexpr *x) {
  lm_bexpr *c = lm_arena_alloc(a, sizeof *c);
  if (!c)
    return NULL;
  *c = *x;
  if (x->n_args) {
    c->args = lm_arena_alloc(a, sizeof(lm_bexpr *) * (size_t)x->n_args);
    if (!c->args)
      return NULL;
    for (int i = 0; i < x->n_args; i++)
      if (!(c->args[i] = copy_bx(a, x->args[i])))
        return NULL;
  }
  return c;
}

/* x as col + k (k a constant interval in µs, from + / - INTERVAL
 * literals). */
static bool linear(const lm_bexpr *x, int *col, int64_t *k) {
  if (x->kind == LM_BX_COLUMN) {
    *col = x->col;
    *k = 0;
    return true;
  }
  if (x->kind == LM_BX_CAST && x->n_args == 1 &&
      x->args[0]->type.id == x->type.id)
    return linear(x->args[0], col, k);
  if (x->kind == LM_BX_BINARY && (x->op == LM_OP_ADD || x->op == LM_OP_SUB)) {
    const lm_bexpr *a = x->args[0], *b = x->args[1];
    if (b->kind == LM_BX_LITERAL && b->type.id == LM_TYPE_INTERVAL &&
        !b->lit.is_null && linear(a, col, k)) {
      int64_t v = b->lit.v.i;
      if (x->op == LM_OP_SUB ? __builtin_sub_overflow(*k, v, k)
                             : __builtin_add_overflow(*k, v, k))
        return false;
      return true;
    }
    if (x->op == LM_OP_ADD && a->kind == LM_BX_LITERAL &&
        a->type.id == LM_TYPE_INTERVAL && !a->lit.is_null && linear(b, col, k))
      return !__builtin_add_overflow(*k, a->lit.v.i, k);
  }
  return false;
}

static lm_op flip(lm_op op) {
  switch (op) {
  case LM_OP_LT:
    return LM_OP_GT;
  case LM_OP_LE:
    return LM_OP_GE;
  case LM_OP_GT:
    return LM_OP_LT;
  case LM_OP_GE:
    return LM_OP_LE;
  default:
    return op;
  }
}

static bool is_cmp(lm_op op) {
  return op == LM_OP_LT || op == LM_OP_LE || op == LM_OP_GT || op == LM_OP_GE ||
         op == LM_OP_EQ;
}

/* An interval constant (a literal, possibly negated). */
static bool const_iv(const lm_bexpr *x, int64_t *k) {
  if (x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_INTERVAL &&
      !x->lit.is_null) {
    *k = x->lit.v.i;
    return true;
  }
  if (x->kind == LM_BX_UNARY && x->op == LM_OP_NEG && const_iv(x->args[0], k))
    return *k != INT64_MIN && (*k = -*k, true);
  return false;
}

/* A comparison between lt + a (left time column) and rt + b (right time
 * column), as `right.time - left.time <op> c`. Also (A - B) op K and
 * K op (A - B), with A, B linear and K an interval constant. */
static bool time_cmp(const lm_bexpr *x, int lt, int rt, lm_op *op, int64_t *c) {
  if (x->kind != LM_BX_BINARY || !is_cmp(x->op) || lt < 0 || rt < 0)
    return false;
  int ca, cb;
  int64_t ka, kb, kk;
  const lm_bexpr *d0 = x->args[0], *d1 = x->args[1];
  bool rev = false;
  if (!(d0->kind == LM_BX_BINARY && d0->op == LM_OP_SUB &&
        d0->type.id == LM_TYPE_INTERVAL && const_iv(d1, &kk))) {
    const lm_bexpr *t = d0;
    d0 = d1, d1 = t;
    rev = true;
  }
  if (d0->kind == LM_BX_BINARY && d0->op == LM_OP_SUB &&
      d0->type.id == LM_TYPE_INTERVAL && const_iv(d1, &kk) &&
      linear(d0->args[0], &ca, &ka) && linear(d0->args[1], &cb, &kb)) {
    /* A - B op K  <=>  A op B + K;  K op A - B  <=>  B + K op A */
    if (__builtin_add_overflow(kb, kk, &kb))
      return false;
    if (rev) {
      int tc = ca;
      int64_t tk = ka;
      ca = cb, ka = kb, cb = tc, kb = tk;
    }
  } else if (!linear(x->args[0], &ca, &ka) || !linear(x->args[1], &cb, &kb)) {
    return false;
  }
  /* (ca + ka) op (cb + kb) */
  if (ca == rt && cb == lt) /* r - l op kb - ka */
    return !__builtin_sub_overflow(kb, ka, c) && (*op = x->op, true);
  if (ca == lt && cb == rt) /* l + ka op r + kb: r - l flip(op) ka - kb */
    return !__builtin_sub_overflow(ka, kb, c) && (*op = flip(x->op), true);
  return false;
}

/* --------------------------------------------------------- the binder */

typedef struct jb {
  lm_arena *a;
  lm_error *err;
  lm_rel_resolver resolve;
  void *ctx;
  bool batch;
  int64_t ttl;
  lm_join_plan *jp;
  int cap_inputs;
} jb;

static int nomem(jb *b) {
  return lm_err(b->err, LM_ERR_NOMEM, "out of memory");
}

static int bfail(jb *b, int line, int col, const char *msg) {
  if (line)
    return lm_err_at(b->err, LM_ERR_BIND, line, col, "%s", msg);
  return lm_err(b->err, LM_ERR_BIND, "%s", msg);
}

static int plan_join(const lm_select *sel, lm_rel_resolver resolve, void *ctx,
                     bool batch, int64_t ttl_us, lm_plan **out, lm_error *err,
                     lm_arena *sa, lm_scope_col **nested);

/* Whether FROM node f is one input of the chain it is in: not a join, or
 * a parenthesized join with an alias (which hides its relations' names). */
static bool is_input(const lm_from *f) {
  return f->kind != LM_FROM_JOIN || (f->parenthesized && f->alias);
}

/* Adds input `rel` (a TABLE, a SUBQUERY or a parenthesized JOIN) to the
 * plan. */
static int add_input(jb *b, const lm_from *rel) {
  lm_join_plan *jp = b->jp;
  if (jp->n_inputs == b->cap_inputs) {
    int nc = b->cap_inputs ? b->cap_inputs * 2 : 4;
    lm_join_input *ni = lm_arena_alloc(b->a, sizeof *ni * (size_t)nc);
    if (!ni)
      return nomem(b);
    if (jp->n_inputs)
      memcpy(ni, jp->inputs, sizeof *ni * (size_t)jp->n_inputs);
    jp->inputs = ni;
    b->cap_inputs = nc;
  }
  lm_join_input *in = &jp->inputs[jp->n_inputs];
  memset(in, 0, sizeof *in);
  in->line = rel->line;
  in->column = rel->column;
  int rc;
  if (rel->kind == LM_FROM_TABLE) {
    in->name = rel->name;
    in->qual = rel->alias ? rel->alias : rel->name;
    if ((rc = b->resolve(b->ctx, rel->name, rel->line, rel->column, &in->info,
                         b->err)))
      return rc;
    jp->n_inputs++;
    return 0;
  }
  if (rel->kind == LM_FROM_JOIN) {
    /* a parenthesized join: `SELECT <every column of its scope> FROM
     * (the join)`, its columns keeping their names and qualifiers (all
     * qualified by the alias when there is one: PostgreSQL's rule) */
    lm_select *sq = lm_arena_alloc(b->a, sizeof *sq);
    lm_from *fc = lm_arena_alloc(b->a, sizeof *fc);
    lm_expr *star = lm_arena_alloc(b->a, sizeof *star);
    lm_select_item *it = lm_arena_alloc(b->a, sizeof *it);
    if (!sq || !fc || !star || !it)
      return nomem(b);
    *fc = *rel;
    fc->parenthesized = false;
    fc->alias = NULL;
    memset(star, 0, sizeof *star);
    star->kind = LM_EXPR_STAR;
    star->line = rel->line;
    star->column = rel->column;
    it->expr = star;
    it->alias = NULL;
    memset(sq, 0, sizeof *sq);
    sq->line = rel->line;
    sq->column = rel->column;
    sq->items = it;
    sq->n_items = 1;
    sq->from_clause = fc;
    sq->from_line = rel->line;
    sq->from_column = rel->column;
    sq->limit = -1;
    sq->scope_out = true;
    lm_plan *sp = NULL;
    lm_scope_col *ns = NULL;
    if ((rc = plan_join(sq, b->resolve, b->ctx, b->batch, b->ttl, &sp, b->err,
                        b->a, &ns)))
      return rc;
    jp->n_inputs++; /* owned from here on (freed with the plan) */
    in->sub = sp;
    in->subquery = sq;
    in->qual = rel->alias;
    if (rel->alias)
      for (int i = 0; i < sp->out_schema->n_fields; i++) {
        /* the sides of USING columns are then unreachable */
        ns[i].rel = ns[i].qualified_only ? "\x01" : rel->alias;
      }
    in->nested = ns;
    bool cl = !b->batch && sp->join_changelog;
    in->info.schema = sp->out_schema;
    in->info.changelog = cl;
    in->info.time_col =
        b->batch ? -1 : lm_plan_out_time_col(sp, sp->join_time_col, cl);
    in->info.is_table = false;
    return 0;
  }
  if (rel->kind == LM_FROM_FUNCTION) { /* ad-hoc only (api/srf_from.c) */
    bfail(b, rel->line, rel->column,
          "a function call in FROM is not supported in continuous queries "
          "yet; run it in an ad-hoc SELECT");
    return lm_err_state(b->err, "0A000");
  }
  /* a subquery: planned over its own FROM */
  const lm_select *sq = rel->subquery;
  in->qual = rel->alias;
  in->subquery = sq;
  lm_plan *sp = NULL;
  bool in_cl = false;
  int in_time = -1;
  if (lm_select_needs_join_plan(sq)) {
    if ((rc = lm_plan_join_select(sq, b->resolve, b->ctx, b->batch, b->ttl, &sp,
                                  b->err)))
      return rc;
    in_cl = sp->join_changelog;
    in_time = sp->join_time_col;
  } else {
    lm_rel_info ri;
    if ((rc = b->resolve(b->ctx, sq->from, sq->from_line, sq->from_column, &ri,
                         b->err)))
      return rc;
    if ((rc = lm_plan_select(sq, ri.schema, sq->from, &sp, b->err)))
      return rc;
    in_cl = ri.changelog && !b->batch;
    in_time = ri.time_col;
    if (in_cl) {
      sp->changelog_input = true;
      sp->weight_col = ri.schema->n_fields;
    }
  }
  jp->n_inputs++; /* owned from here on (freed with the plan) */
  in->sub = sp;
  if (sq->n_order_by || sq->limit >= 0 || sq->offset > 0 || sq->distinct ||
      sq->limit_expr || sq->offset_expr)
    return bfail(b, sq->line, sq->column,
                 "ORDER BY, LIMIT, OFFSET and DISTINCT are not supported in a "
                 "subquery in FROM");
  if (sp->has_agg && sp->window_kind != LM_WIN_NONE && in_cl)
    return bfail(b, sq->line, sq->column,
                 "a windowed aggregate over an updating (changelog) input "
                 "cannot take back rows it has emitted");
  in->info.schema = sp->out_schema;
  in->info.changelog = !b->batch && plan_emits_changelog(sp, in_cl);
  in->info.time_col =
      b->batch ? -1 : lm_plan_out_time_col(sp, in_time, in->info.changelog);
  if (!b->batch && in->info.changelog)
    in->info.time_col = changelog_time_col(sp, in_time, in_cl);
  in->info.is_table = false;
  return 0;
}

/* Collects the inputs of a left-deep tree in FROM order. */
static int collect_inputs(jb *b, const lm_from *f, int depth) {
  if (depth > 1000)
    return bfail(b, f->line, f->column, "too many joins");
  if (is_input(f))
    return add_input(b, f);
  int rc = collect_inputs(b, f->left, depth + 1);
  if (!rc) /* a parenthesized join on the right is one input */
    rc = add_input(b, f->right);
  return rc;
}

/* The join nodes of a left-deep tree, innermost (first) first. */
static void collect_joins(const lm_from *f, const lm_from **out, int *n) {
  if (is_input(f))
    return;
  collect_joins(f->left, out, n);
  out[(*n)++] = f;
}

/* A growing scope. */
typedef struct scope_b {
  lm_scope_col *cols;
  int n, cap;
} scope_b;

static int scope_add(jb *b, scope_b *s, lm_scope_col c) {
  if (s->n == s->cap) {
    int nc = s->cap ? s->cap * 2 : 16;
    lm_scope_col *x = lm_arena_alloc(b->a, sizeof *x * (size_t)nc);
    if (!x)
      return nomem(b);
    if (s->n)
      memcpy(x, s->cols, sizeof *x * (size_t)s->n);
    s->cols = x;
    s->cap = nc;
  }
  s->cols[s->n++] = c;
  return 0;
}

/* An AND of the expressions (NULL when n = 0). */
static lm_bexpr *and_all(lm_bctx *c, lm_bexpr **xs, int n) {
  lm_bexpr *acc = NULL;
  for (int i = 0; i < n; i++) {
    if (!acc) {
      acc = xs[i];
      continue;
    }
    lm_bexpr *x =
        lm_bind_node(c, LM_BX_BINARY, lm_type_make(LM_TYPE_BOOL), NULL, 2);
    if (!x)
      return NULL;
    x->op = LM_OP_AND;
    x->line = xs[i]->line;
    x->column = xs[i]->column;
    x->args[0] = acc;
    x->args[1] = xs[i];
    acc = x;
  }
  return acc;
}

/* The AND-ed conjuncts of x appended to out[*n..cap); false when there
 * are more than fit. */
static bool flatten_and(lm_bexpr *x, lm_bexpr **out, int *n, int cap) {
  if (x->kind == LM_BX_BINARY && x->op == LM_OP_AND)
    return flatten_and(x->args[0], out, n, cap) &&
           flatten_and(x->args[1], out, n, cap);
  if (*n >= cap)
    return false;
  out[(*n)++] = x;
  return true;
}

static lm_schema *concat_schema(const lm_schema *l, const lm_schema *r,
                                bool l_null, bool r_null) {
  int nl = l->n_fields, nr = r ? r->n_fields : 0;
  lm_schema *s = lm_schema_new(nl + nr);
  if (!s)
    return NULL;
  for (int i = 0; i < nl; i++)
    lm_schema_set_field(s, i, l->fields[i].name, l->fields[i].type,
                        l->fields[i].nullable || l_null);
  for (int i = 0; i < nr; i++)
    lm_schema_set_field(s, nl + i, r->fields[i].name, r->fields[i].type,
                        r->fields[i].nullable || r_null);
  return s;
}

/* Side s's schema extended by computed key columns (names __key<k>). */
static lm_schema *extend_schema(const lm_schema *base, lm_bexpr **extra,
                                int n) {
  lm_schema *s = lm_schema_new(base->n_fields + n);
  if (!s)
    return NULL;
  for (int i = 0; i < base->n_fields; i++)
    lm_schema_set_field(s, i, base->fields[i].name, base->fields[i].type,
                        base->fields[i].nullable);
  for (int k = 0; k < n; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "__key%d", k);
    lm_schema_set_field(s, base->n_fields + k, nm, extra[k]->type, true);
  }
  return s;
}

static const char *algo_name(lm_pjoin_algo a) {
  switch (a) {
  case LM_PJOIN_UPDATING:
    return "an updating";
  case LM_PJOIN_INTERVAL:
    return "an interval";
  case LM_PJOIN_LOOKUP:
    return "a lookup";
  case LM_PJOIN_TEMPORAL:
    return "a temporal (FOR SYSTEM_TIME AS OF)";
  default:
    return "an ASOF";
  }
}

#define MAX_CONJ 256

/* Plans join node j, whose left is the chain so far (schema *cur, scope
 * *sc, changelog / time column) and whose right is input `ri`. On return
 * *cur / *sc / the flags describe the step's output. */
static int bind_step(jb *b, const lm_from *j, lm_join_step *st, lm_schema **cur,
                     scope_b *sc, bool *cur_cl, int *cur_time,
                     const lm_join_input *ri, lm_expr *const *pushed,
                     int n_pushed) {
  int rc;
  const lm_schema *ls = *cur, *rs = ri->info.schema;
  int nl = ls->n_fields, nr = rs->n_fields;
  st->line = j->line;
  st->column = j->column;
  bool swap =
      j->join == LM_SQL_JOIN_RIGHT_SEMI || j->join == LM_SQL_JOIN_RIGHT_ANTI;
  switch (j->join) {
  case LM_SQL_JOIN_LEFT:
    st->type = LM_PJOIN_LEFT;
    break;
  case LM_SQL_JOIN_RIGHT:
    st->type = LM_PJOIN_RIGHT;
    break;
  case LM_SQL_JOIN_FULL:
    st->type = LM_PJOIN_FULL;
    break;
  case LM_SQL_JOIN_LEFT_SEMI:
  case LM_SQL_JOIN_RIGHT_SEMI:
    st->type = LM_PJOIN_SEMI;
    break;
  case LM_SQL_JOIN_LEFT_ANTI:
  case LM_SQL_JOIN_RIGHT_ANTI:
    st->type = LM_PJOIN_ANTI;
    break;
  default:
    st->type = LM_PJOIN_INNER;
    break;
  }
  /* the combined scope: left entries, then the right input's */
  lm_schema *both = concat_schema(ls, rs, false, false);
  if (!both)
    return nomem(b);
  scope_b cs = {0};
  int first_right = sc->n;
  for (int i = 0; i < sc->n; i++)
    if ((rc = scope_add(b, &cs, sc->cols[i])))
      goto out;
  for (int i = 0; i < nr; i++) {
    lm_scope_col x = {ri->qual, rs->fields[i].name, nl + i, NULL, false, true};
    if (ri->nested) {
      x = ri->nested[i];
      x.col = nl + i;
    } else if (ri->qual && !ri->qual[0])
      x.rel = NULL;
    if ((rc = scope_add(b, &cs, x)))
      goto out;
  }
  lm_scope scope = {cs.cols, cs.n};
  lm_bctx c = {b->a, both,  NULL,   NULL, false, b->err,
               0,    false, &scope, NULL, 0};

  lm_bexpr *conj[MAX_CONJ];
  int nconj = 0;
  /* USING (cols): equalities, and one merged column each */
  lm_scope_col merged[64];
  int n_merged = 0;
  /* NATURAL JOIN: USING the names both sides show, in the left's order */
  const char **ucols = j->using_cols;
  int n_ucols = j->n_using;
  const char *natural[64];
  if (j->natural) {
    n_ucols = 0;
    for (int i = 0; i < first_right && n_ucols < 64; i++) {
      const lm_scope_col *x = &cs.cols[i];
      bool dup = x->qualified_only;
      for (int k = 0; k < n_ucols && !dup; k++)
        dup = !strcmp(natural[k], x->name);
      for (int r = first_right; r < cs.n && !dup; r++) {
        if (!cs.cols[r].qualified_only && !strcmp(cs.cols[r].name, x->name)) {
          natural[n_ucols++] = x->name;
          break;
        }
      }
    }
    ucols = natural;
  }
  for (int u = 0; u < n_ucols; u++) {
    const char *nm = ucols[u];
    int hit[2] = {-1, -1};
    /* exact, else (on a side without it) in any case: docs/sql.md "Names" */
    bool exact[2] = {false, false};
    if (j->natural || (j->using_quoted && j->using_quoted[u])) /* "quoted" */
      exact[0] = exact[1] = true;
    for (int i = 0; i < cs.n; i++)
      if (!cs.cols[i].qualified_only && cs.cols[i].name &&
          !strcmp(cs.cols[i].name, nm))
        exact[i >= first_right] = true;
    for (int i = 0; i < cs.n; i++) {
      const lm_scope_col *x = &cs.cols[i];
      int side = i >= first_right;
      if (x->qualified_only || !lm_ident_eq(x->name, nm, exact[side] ? 0 : 1))
        continue;
      if (hit[side] >= 0) {
        char m[300];
        snprintf(m, sizeof m,
                 "common column name \"%s\" appears more than once in %s "
                 "table",
                 nm, side ? "right" : "left");
        rc = bfail(b, j->line, j->column, m);
        goto out;
      }
      hit[side] = i;
    }
    if (hit[0] < 0 || hit[1] < 0) {
      char m[300];
      snprintf(m, sizeof m,
               "column \"%s\" specified in USING clause does not exist in %s "
               "table",
               nm, hit[0] < 0 ? "left" : "right");
      rc = bfail(b, j->line, j->column, m);
      goto out;
    }
    if (n_merged == 64 || nconj == MAX_CONJ) {
      rc = bfail(b, j->line, j->column, "too many USING columns");
      goto out;
    }
    lm_scope_col *lc = &cs.cols[hit[0]], *rcx = &cs.cols[hit[1]];
    lm_expr at = {0};
    at.line = j->line;
    at.column = j->column;
    lm_bexpr *l = lc->expr;
    lm_bexpr *r =
        lm_bind_node(&c, LM_BX_COLUMN, both->fields[rcx->col].type, &at, 0);
    if (!l && (l = lm_bind_node(&c, LM_BX_COLUMN, both->fields[lc->col].type,
                                &at, 0)))
      l->col = lc->col;
    if (!l || !r) {
      rc = nomem(b);
      goto out;
    }
    r->col = rcx->col;
    lm_bexpr *eq = lm_bind_binary(&c, &at, LM_OP_EQ, l, r);
    if (!eq) {
      rc = b->err->code;
      goto out;
    }
    conj[nconj++] = eq;
    lm_scope_col m = {NULL, lc->name, lc->col, lc->expr, false, true};
    if (st->type == LM_PJOIN_RIGHT) {
      m.col = rcx->col;
      m.expr = NULL;
    } else if (st->type == LM_PJOIN_FULL) {
      lm_bexpr *co = lm_bind_node(&c, LM_BX_FUNC, eq->args[0]->type, &at, 2);
      if (!co) {
        rc = nomem(b);
        goto out;
      }
      co->fn = LM_FN_COALESCE;
      co->args[0] = copy_bx(b->a, eq->args[0]);
      co->args[1] = copy_bx(b->a, eq->args[1]);
      if (!co->args[0] || !co->args[1]) {
        rc = nomem(b);
        goto out;
      }
      m.expr = co;
    }
    merged[n_merged++] = m;
    lc->qualified_only = rcx->qualified_only = true;
    lc->star = rcx->star = false;
  }
  if (j->on) {
    lm_bexpr *on = lm_bind_expr(&c, j->on);
    if (!on) {
      rc = b->err->code;
      goto out;
    }
    if (on->type.id != LM_TYPE_BOOL && on->type.id != LM_TYPE_NULL) {
      rc = lm_err_at(b->err, LM_ERR_BIND, j->on->line, j->on->column,
                     "argument of JOIN/ON must be type boolean, not type %s",
                     lm_type_name(on->type));
      goto out;
    }
    /* ON NULL: the unknown-typed NULL is a boolean NULL (no row matches) */
    if (on->type.id == LM_TYPE_NULL &&
        !(on = lm_bind_cast(&c, on, lm_type_make(LM_TYPE_BOOL)))) {
      rc = b->err->code ? b->err->code : nomem(b);
      goto out;
    }
    if (!flatten_and(on, conj, &nconj, MAX_CONJ)) {
      rc = bfail(b, j->on->line, j->on->column,
                 "too many AND-ed conditions in ON (at most 256)");
      goto out;
    }
  }

  /* WHERE conjuncts pushed down into this (inner) join */
  for (int i = 0; i < n_pushed; i++) {
    lm_bexpr *x = lm_bind_expr(&c, pushed[i]);
    if (!x) {
      rc = b->err->code;
      goto out;
    }
    if (!flatten_and(x, conj, &nconj, MAX_CONJ)) {
      rc = bfail(b, pushed[i]->line, pushed[i]->column,
                 "too many AND-ed conditions in ON and WHERE (at most 256)");
      goto out;
    }
  }

  /* time columns of the two sides */
  int lt = *cur_time, rt = ri->info.time_col >= 0 ? nl + ri->info.time_col : -1;
  bool asof = j->asof;
  int asof_cols[2] = {-1, -1};
  st->asof_tolerance_us = -1;
  if (asof) {
    /* MATCH_CONDITION(l op r [AND tolerance]) / NEAREST(l, r) / ON l op r */
    lm_bexpr *mc[16];
    int nmc = 0;
    const lm_expr *m = j->match;
    if (m && m->kind == LM_EXPR_FUNC && !lm_strcasecmp(m->name, "nearest")) {
      if (m->n_args != 2) {
        rc = bfail(b, m->line, m->column, "NEAREST takes two time columns");
        goto out;
      }
      lm_bexpr *x = lm_bind_expr(&c, m->args[0]);
      lm_bexpr *y = x ? lm_bind_expr(&c, m->args[1]) : NULL;
      if (!y) {
        rc = b->err->code;
        goto out;
      }
      if (x->kind != LM_BX_COLUMN || y->kind != LM_BX_COLUMN ||
          sides_of(x, nl) == sides_of(y, nl)) {
        rc = bfail(b, m->line, m->column,
                   "NEAREST takes a time column of each side");
        goto out;
      }
      asof_cols[0] = x->col < nl ? x->col : y->col;
      asof_cols[1] = x->col < nl ? y->col : x->col;
      st->asof_dir = 2;
    } else if (m) {
      lm_bexpr *mx = lm_bind_expr(&c, m);
      if (!mx) {
        rc = b->err->code;
        goto out;
      }
      if (!flatten_and(mx, mc, &nmc, 16)) {
        rc = bfail(b, m->line, m->column,
                   "too many conditions in MATCH_CONDITION");
        goto out;
      }
    } else {
      /* the older form: the comparison is a conjunct of ON */
      for (int i = 0; i < nconj; i++) {
        lm_bexpr *x = conj[i];
        if (x->kind == LM_BX_BINARY && x->op != LM_OP_EQ && is_cmp(x->op) &&
            x->args[0]->kind == LM_BX_COLUMN &&
            x->args[1]->kind == LM_BX_COLUMN &&
            sides_of(x->args[0], nl) != sides_of(x->args[1], nl)) {
          mc[nmc++] = x;
          conj[i] = conj[--nconj];
          break;
        }
      }
    }
    /* the comparison of the two time columns first, its tolerances after
     * it (in whichever order they were written) */
    for (int i = 0; i < nmc; i++) {
      lm_bexpr *x = mc[i];
      if (x->kind == LM_BX_BINARY && is_cmp(x->op) && x->op != LM_OP_EQ &&
          x->args[0]->kind == LM_BX_COLUMN &&
          x->args[1]->kind == LM_BX_COLUMN &&
          sides_of(x->args[0], nl) != sides_of(x->args[1], nl)) {
        mc[i] = mc[0];
        mc[0] = x;
        break;
      }
    }
    for (int i = 0; i < nmc; i++) {
      lm_bexpr *x = mc[i];
      if (x->kind == LM_BX_BINARY && is_cmp(x->op) && x->op != LM_OP_EQ &&
          x->args[0]->kind == LM_BX_COLUMN &&
          x->args[1]->kind == LM_BX_COLUMN &&
          sides_of(x->args[0], nl) != sides_of(x->args[1], nl) &&
          asof_cols[0] < 0) {
        lm_op op = x->args[0]->col < nl ? x->op : flip(x->op);
        asof_cols[0] = x->args[0]->col < nl ? x->args[0]->col : x->args[1]->col;
        asof_cols[1] = x->args[0]->col < nl ? x->args[1]->col : x->args[0]->col;
        /* l >= r: backward; l <= r: forward */
        st->asof_dir = op == LM_OP_GE || op == LM_OP_GT ? 0 : 1;
        st->asof_strict = op == LM_OP_GT || op == LM_OP_LT;
        continue;
      }
      lm_op op;
      int64_t k;
      if (asof_cols[0] >= 0 && st->asof_dir != 2 &&
          time_cmp(x, asof_cols[0], asof_cols[1], &op, &k)) {
        /* r - l op k, with d = the distance (l - r backward, r - l
         * forward) >= 0: a bound d <= tol (d < tol is d <= tol - 1 µs,
         * times being whole µs), a vacuous one, or d > 0 (strict) */
        bool back = st->asof_dir == 0;
        if (back) { /* d = -(r - l): negate the comparison */
          op = flip(op);
          k = k == INT64_MIN ? INT64_MAX : -k;
        }
        int64_t tol = -2; /* -2: not a tolerance */
        if (op == LM_OP_LE && k >= 0)
          tol = k;
        else if (op == LM_OP_LT && k > 0)
          tol = k - 1;
        else if (op == LM_OP_LT || op == LM_OP_LE) {
          rc = bfail(b, x->line, x->column,
                     "the ASOF match condition and its tolerance leave no "
                     "interval: no row could ever match");
          goto out;
        } else if ((op == LM_OP_GE && k <= 0) || (op == LM_OP_GT && k < 0))
          tol = -1; /* always true */
        else if (op == LM_OP_GT && k == 0) {
          st->asof_strict = true; /* d > 0 */
          tol = -1;
        }
        if (tol >= 0 &&
            (st->asof_tolerance_us < 0 || tol < st->asof_tolerance_us))
          st->asof_tolerance_us = tol;
        if (tol >= -1)
          continue;
      }
      rc = bfail(b, x->line, x->column,
                 "an ASOF match condition is left.time >= right.time (or <=, "
                 ">, <) with an optional tolerance such as AND left.time - "
                 "right.time <= INTERVAL '5' SECOND, or NEAREST(left.time, "
                 "right.time)");
      goto out;
    }
    for (int k = 0; k < 2 && asof_cols[0] >= 0; k++) {
      lm_type_id id = both->fields[asof_cols[k]].type.id;
      if (id != LM_TYPE_TIMESTAMP && id != LM_TYPE_INT64) {
        char m[200];
        snprintf(m, sizeof m,
                 "an ASOF match condition compares TIMESTAMP (or BIGINT) "
                 "columns, not %s",
                 lm_type_name(both->fields[asof_cols[k]].type));
        rc = bfail(b, j->match ? j->match->line : j->line,
                   j->match ? j->match->column : j->column, m);
        goto out;
      }
    }
    if (asof_cols[0] < 0) {
      rc = bfail(b, j->line, j->column,
                 "an ASOF JOIN needs a match condition between a time column "
                 "of each side: MATCH_CONDITION(left.ts >= right.ts) or ON "
                 "... AND left.ts >= right.ts");
      goto out;
    }
  }
  int temporal_col = -1;
  if (j->system_time) {
    lm_bexpr *x = lm_bind_expr(&c, j->system_time);
    if (!x) {
      rc = b->err->code;
      goto out;
    }
    if (x->kind != LM_BX_COLUMN || x->col >= nl ||
        x->type.id != LM_TYPE_TIMESTAMP) {
      rc = bfail(b, j->system_time->line, j->system_time->column,
                 "FOR SYSTEM_TIME AS OF needs a TIMESTAMP column of the left "
                 "side (the probing stream's event time)");
      goto out;
    }
    temporal_col = x->col;
  }

  /* split the conjuncts: keys, time bounds, residual */
  lm_bexpr *kx[2][MAX_CONJ];
  int nk = 0;
  lm_bexpr *resid[MAX_CONJ], *bounds[MAX_CONJ];
  int nres = 0, nb = 0;
  bool have_lo = false, have_hi = false;
  int64_t lo = 0, hi = 0;
  bool lo_strict = false, hi_strict = false;
  for (int i = 0; i < nconj; i++) {
    lm_bexpr *x = conj[i];
    lm_op op;
    int64_t k;
    /* time bounds make interval joins, of append-only inputs only (a
     * changelog's time column, changelog_time_col, serves eviction) */
    bool is_bound = !b->batch && !(*cur_cl || ri->info.changelog) &&
                    time_cmp(x, lt, rt, &op, &k);
    if (x->kind == LM_BX_BINARY && x->op == LM_OP_EQ) {
      int sa = sides_of(x->args[0], nl), sb = sides_of(x->args[1], nl);
      if ((sa == 1 && sb == 2) || (sa == 2 && sb == 1)) {
        if (is_bound && k != 0) {
          /* r.ts = l.ts + k: an interval [k, k], not a key */
        } else {
          kx[0][nk] = sa == 1 ? x->args[0] : x->args[1];
          kx[1][nk] = sa == 1 ? x->args[1] : x->args[0];
          nk++;
          if (!is_bound)
            continue;
        }
      }
    }
    if (is_bound) {
      if (op == LM_OP_GE || op == LM_OP_GT || op == LM_OP_EQ) {
        bool s = op == LM_OP_GT;
        if (!have_lo || k > lo || (k == lo && s))
          lo = k, lo_strict = s;
        have_lo = true;
      }
      if (op == LM_OP_LE || op == LM_OP_LT || op == LM_OP_EQ) {
        bool s = op == LM_OP_LT;
        if (!have_hi || k < hi || (k == hi && s))
          hi = k, hi_strict = s;
        have_hi = true;
      }
      /* an equality already a key needs no residual */
      if (!(x->op == LM_OP_EQ && nk &&
            (kx[0][nk - 1] == x->args[0] || kx[1][nk - 1] == x->args[0])))
        bounds[nb++] = x;
      continue;
    }
    resid[nres++] = x;
  }

  /* the algorithm */
  bool rcl = ri->info.changelog && !b->batch;
  bool lcl = *cur_cl && !b->batch;
  if (asof)
    st->algo = LM_PJOIN_ASOF;
  else if (j->system_time && (!b->batch || rt >= 0))
    /* ad-hoc too: the rows of the right relation are its versions */
    st->algo = LM_PJOIN_TEMPORAL;
  else if (b->batch)
    st->algo = LM_PJOIN_UPDATING;
  else if (ri->info.is_table && !lcl)
    /* an append-only stream meets the table's rows at arrival; an updating
     * left side (a table, an updating view) needs both sides' changes
     * joined, as PostgreSQL's view over the two would show */
    st->algo = LM_PJOIN_LOOKUP;
  else if (!lcl && !rcl && lt >= 0 && rt >= 0 && have_lo && have_hi)
    st->algo = LM_PJOIN_INTERVAL;
  else
    st->algo = LM_PJOIN_UPDATING;
  if (st->algo == LM_PJOIN_INTERVAL) {
    if (lo > hi || (lo == hi && (lo_strict || hi_strict))) {
      rc = bfail(b, j->line, j->column,
                 "the join's time bounds leave no interval: no pair of rows "
                 "can match");
      goto out;
    }
    st->lo_us = lo, st->hi_us = hi;
    st->lo_strict = lo_strict, st->hi_strict = hi_strict;
  } else {
    for (int i = 0; i < nb; i++)
      resid[nres++] = bounds[i];
  }
  if ((st->algo == LM_PJOIN_ASOF || st->algo == LM_PJOIN_TEMPORAL ||
       st->algo == LM_PJOIN_LOOKUP) &&
      st->type != LM_PJOIN_INNER && st->type != LM_PJOIN_LEFT) {
    char m[300];
    snprintf(m, sizeof m,
             "%s join supports only INNER and LEFT joins (the right side is "
             "looked up, never driven)",
             algo_name(st->algo));
    rc = bfail(b, j->line, j->column, m);
    goto out;
  }
  if (swap && st->algo != LM_PJOIN_UPDATING && st->algo != LM_PJOIN_INTERVAL) {
    rc = bfail(b, j->line, j->column,
               "RIGHT SEMI / RIGHT ANTI are only supported by interval and "
               "updating joins");
    goto out;
  }

  /* keys: one type per pair; computed keys go to a projection */
  lm_bexpr *extra[2][MAX_CONJ];
  int nextra[2] = {0, 0};
  st->n_keys = nk;
  st->keys[0] = lm_arena_alloc(b->a, sizeof(int) * (size_t)(nk + 1));
  st->keys[1] = lm_arena_alloc(b->a, sizeof(int) * (size_t)(nk + 1));
  if (!st->keys[0] || !st->keys[1]) {
    rc = nomem(b);
    goto out;
  }
  for (int k = 0; k < nk; k++) {
    lm_expr at = {0};
    at.line = kx[0][k]->line;
    at.column = kx[0][k]->column;
    lm_bexpr *eq = lm_bind_binary(&c, &at, LM_OP_EQ, kx[0][k], kx[1][k]);
    if (!eq) {
      rc = b->err->code;
      goto out;
    }
    /* keys of two DECIMAL types (scales, or an integer against a DECIMAL)
     * compare exactly but hash apart: both become their common DECIMAL,
     * as PostgreSQL joins numeric keys by value (docs/joins.md) */
    lm_type kt;
    if (eq->kind == LM_BX_BINARY && eq->n_args == 2 &&
        !lm_type_eq(eq->args[0]->type, eq->args[1]->type) &&
        lm_bind_types_merge(eq->args[0]->type, eq->args[1]->type, &kt))
      for (int s = 0; s < 2; s++)
        if (!lm_type_eq(eq->args[s]->type, kt) &&
            !(eq->args[s] = lm_bind_cast(&c, eq->args[s], kt))) {
          rc = b->err->code ? b->err->code : nomem(b);
          goto out;
        }
    for (int s = 0; s < 2; s++) {
      lm_bexpr *x = eq->args[s];
      if (x->kind == LM_BX_COLUMN) {
        st->keys[s][k] = s ? x->col - nl : x->col;
        continue;
      }
      lm_bexpr *cp = copy_bx(b->a, x);
      if (!cp) {
        rc = nomem(b);
        goto out;
      }
      if (s)
        remap(cp, nl, 0, -nl);
      st->keys[s][k] = (s ? nr : nl) + nextra[s];
      extra[s][nextra[s]++] = cp;
    }
  }
  /* projections and side schemas */
  const lm_schema *base[2] = {ls, rs};
  for (int s = 0; s < 2; s++) {
    int nb_ = base[s]->n_fields;
    if (nextra[s] == 0) {
      st->side_schema[s] = lm_schema_retain((lm_schema *)base[s]);
      continue;
    }
    st->n_proj[s] = nb_ + nextra[s];
    st->proj_base[s] = nb_;
    st->proj[s] =
        lm_arena_alloc(b->a, sizeof(lm_bexpr *) * (size_t)st->n_proj[s]);
    if (!st->proj[s]) {
      rc = nomem(b);
      goto out;
    }
    for (int i = 0; i < nb_; i++) {
      lm_bexpr *x =
          lm_bind_node(&c, LM_BX_COLUMN, base[s]->fields[i].type, NULL, 0);
      if (!x) {
        rc = nomem(b);
        goto out;
      }
      x->col = i;
      st->proj[s][i] = x;
    }
    for (int k = 0; k < nextra[s]; k++)
      st->proj[s][nb_ + k] = extra[s][k];
    if (!(st->side_schema[s] = extend_schema(base[s], extra[s], nextra[s]))) {
      rc = nomem(b);
      goto out;
    }
  }
  int nl2 = st->side_schema[0]->n_fields;
  int shift = nl2 - nl; /* right columns move by the left's extra keys */
  st->residual = and_all(&c, resid, nres);
  if (nres && !st->residual) {
    rc = nomem(b);
    goto out;
  }
  remap(st->residual, nl, 0, shift);
  st->side_changelog[0] = lcl;
  st->side_changelog[1] = rcl;
  st->time_col[0] = lt;
  st->time_col[1] = rt >= 0 ? rt - nl : -1;
  if (st->algo == LM_PJOIN_ASOF) {
    st->time_col[0] = asof_cols[0];
    st->time_col[1] = asof_cols[1] - nl;
  } else if (st->algo == LM_PJOIN_TEMPORAL) {
    st->time_col[0] = temporal_col;
  }
  st->ttl_us = b->ttl;
  st->unbounded =
      st->algo == LM_PJOIN_UPDATING && !lcl && !rcl && b->ttl <= 0 && !b->batch;
  /* lookup, temporal and ASOF joins decide each left row once: their
   * output is append-only when the left input is (the right one may be a
   * table's or a versioned input's changelog) */
  if (st->algo == LM_PJOIN_UPDATING)
    st->out_changelog =
        lcl || rcl || (st->type != LM_PJOIN_INNER && st->type != LM_PJOIN_SEMI);
  else
    st->out_changelog = lcl || (rcl && st->algo == LM_PJOIN_INTERVAL);
  int out_time = st->algo == LM_PJOIN_UPDATING ? -1 : *cur_time;
  if (st->out_changelog)
    out_time = -1;

  int ti;
  st->swapped = swap;
  if (swap) { /* RIGHT SEMI / ANTI: the right input drives */
    ti = st->proj_base[0];
    st->proj_base[0] = st->proj_base[1], st->proj_base[1] = ti;
    lm_bexpr **tp = st->proj[0];
    st->proj[0] = st->proj[1], st->proj[1] = tp;
    ti = st->n_proj[0];
    st->n_proj[0] = st->n_proj[1], st->n_proj[1] = ti;
    lm_schema *ts = st->side_schema[0];
    st->side_schema[0] = st->side_schema[1], st->side_schema[1] = ts;
    bool tb = st->side_changelog[0];
    st->side_changelog[0] = st->side_changelog[1], st->side_changelog[1] = tb;
    int *tk = st->keys[0];
    st->keys[0] = st->keys[1], st->keys[1] = tk;
    ti = st->time_col[0];
    st->time_col[0] = st->time_col[1], st->time_col[1] = ti;
    int64_t tl = st->lo_us;
    st->lo_us = -st->hi_us, st->hi_us = -tl;
    tb = st->lo_strict;
    st->lo_strict = st->hi_strict, st->hi_strict = tb;
    int nr2 = st->side_schema[0]->n_fields;
    /* [left nl2, right nr2] -> [right, left] */
    remap(st->residual, nl2, nr2, -nl2);
    out_time = st->out_changelog || st->algo == LM_PJOIN_UPDATING
                   ? -1
                   : st->time_col[0];
  }

  /* the output schema and scope */
  bool semi = st->type == LM_PJOIN_SEMI || st->type == LM_PJOIN_ANTI;
  if (semi)
    st->out_schema = lm_schema_retain(st->side_schema[0]);
  else
    st->out_schema =
        concat_schema(st->side_schema[0], st->side_schema[1],
                      st->type == LM_PJOIN_RIGHT || st->type == LM_PJOIN_FULL,
                      st->type == LM_PJOIN_LEFT || st->type == LM_PJOIN_FULL);
  if (!st->out_schema) {
    rc = nomem(b);
    goto out;
  }
  scope_b ns = {0};
  if (!semi) {
    for (int i = 0; i < n_merged; i++) {
      lm_scope_col m = merged[i];
      if (m.col >= nl)
        m.col += shift;
      remap(m.expr, nl, 0, shift);
      if ((rc = scope_add(b, &ns, m)))
        goto out;
    }
    for (int i = 0; i < cs.n; i++) {
      lm_scope_col x = cs.cols[i];
      if (i >= first_right)
        x.col += shift;
      else
        remap(x.expr, nl, 0, shift);
      if ((rc = scope_add(b, &ns, x)))
        goto out;
    }
  } else {
    int from = swap ? first_right : 0, to = swap ? cs.n : first_right;
    for (int i = from; i < to; i++) {
      lm_scope_col x = cs.cols[i];
      x.qualified_only = false;
      x.star = true;
      if (swap)
        x.col -= nl;
      if ((rc = scope_add(b, &ns, x)))
        goto out;
    }
  }
  *sc = ns;
  lm_schema_release(*cur);
  *cur = lm_schema_retain(st->out_schema);
  /* batch (ad-hoc): each step's changelog is netted before the next step
   * and the query above it (src/api/select.c), so no __weight flows on */
  *cur_cl = st->out_changelog && !b->batch;
  *cur_time = out_time;
  rc = 0;
out:
  lm_schema_release(both);
  return rc;
}

/* The input (index into b->jp->inputs) a column reference names: >= 0,
 * -1 when it is unknown or ambiguous. */
static int rel_of(const jb *b, const lm_expr *e) {
  const lm_join_plan *jp = b->jp;
  int hit = -1;
  for (int i = 0; i < jp->n_inputs; i++) {
    const lm_join_input *in = &jp->inputs[i];
    if (e->table && !(in->qual && !strcmp(in->qual, e->table)))
      continue;
    if (lm_schema_find_ref(in->info.schema, e->name, e->quoted, NULL) < 0)
      continue;
    if (hit >= 0)
      return -1;
    hit = i;
  }
  return hit;
}

/* The largest input index e reads into *maxrel; false when e cannot move
 * (an unresolvable name, an aggregate, a window function, '*', or a
 * subquery: the outer columns it reads are not seen here, and a join
 * step's ON binds it without the inputs of other steps). */
static bool rels_of(const jb *b, const lm_expr *e, int *maxrel, int depth) {
  if (!e)
    return true;
  if (lm_stack_low() || e->kind == LM_EXPR_STAR ||
      e->kind == LM_EXPR_SUBQUERY || e->over ||
      (e->kind == LM_EXPR_FUNC && lm_bind_is_agg_name(e->name)))
    return false;
  if (e->kind == LM_EXPR_COLUMN) {
    int r = rel_of(b, e);
    if (r < 0)
      return false;
    if (r > *maxrel)
      *maxrel = r;
    return true;
  }
  for (int i = 0; i < e->n_args; i++)
    if (!rels_of(b, e->args[i], maxrel, depth + 1))
      return false;
  return rels_of(b, e->filter, maxrel, depth + 1);
}

static void split_and_ast(lm_expr *e, lm_expr **out, int *n, int cap) {
  if (e->kind == LM_EXPR_BINARY && e->op == LM_OP_AND) {
    split_and_ast(e->args[0], out, n, cap);
    split_and_ast(e->args[1], out, n, cap);
  } else if (*n < cap) {
    out[(*n)++] = e;
  } else {
    out[cap - 1] = NULL; /* too many: nothing moves */
  }
}

/* Splits WHERE: a conjunct reading input m >= 1 (and earlier ones only)
 * moves into the ON of step m - 1 when that step is an INNER or CROSS join
 * (not ASOF or temporal) and no later step is RIGHT or FULL (which would
 * NULL-pad rows the WHERE sees). *rest is the remaining WHERE (NULL when
 * nothing is left); (*pushed)[i] goes to step (*step)[i]. */
static int push_down(jb *b, const lm_from *const *joins, int nj, lm_expr *where,
                     lm_expr **rest, lm_expr ***pushed, int **step,
                     int *n_pushed) {
  lm_expr *cj[MAX_CONJ];
  int n = 0;
  split_and_ast(where, cj, &n, MAX_CONJ);
  if (n == MAX_CONJ && !cj[MAX_CONJ - 1])
    return 0; /* leave it whole */
  bool ok_step[MAX_CONJ + 1];
  bool later_outer = false;
  for (int s = nj - 1; s >= 0; s--) {
    const lm_from *j = joins[s];
    bool inner = j->join == LM_SQL_JOIN_INNER || j->join == LM_SQL_JOIN_CROSS;
    ok_step[s < MAX_CONJ ? s : MAX_CONJ] =
        inner && !j->asof && !j->system_time && !later_outer;
    if (j->join == LM_SQL_JOIN_RIGHT || j->join == LM_SQL_JOIN_FULL ||
        j->join == LM_SQL_JOIN_RIGHT_SEMI || j->join == LM_SQL_JOIN_RIGHT_ANTI)
      later_outer = true;
  }
  *pushed = lm_arena_alloc(b->a, sizeof(lm_expr *) * (size_t)n);
  *step = lm_arena_alloc(b->a, sizeof(int) * (size_t)n);
  if (!*pushed || !*step)
    return nomem(b);
  lm_expr *acc = NULL;
  for (int i = 0; i < n; i++) {
    int m = 0;
    if (rels_of(b, cj[i], &m, 0) && m >= 1 && m - 1 < MAX_CONJ &&
        ok_step[m - 1]) {
      (*pushed)[*n_pushed] = cj[i];
      (*step)[(*n_pushed)++] = m - 1;
      continue;
    }
    if (!acc) {
      acc = cj[i];
      continue;
    }
    lm_expr *x = lm_arena_alloc(b->a, sizeof *x);
    lm_expr **args = lm_arena_alloc(b->a, sizeof(lm_expr *) * 2);
    if (!x || !args)
      return nomem(b);
    memset(x, 0, sizeof *x);
    x->kind = LM_EXPR_BINARY;
    x->op = LM_OP_AND;
    x->line = cj[i]->line;
    x->column = cj[i]->column;
    x->args = args;
    x->n_args = 2;
    args[0] = acc;
    args[1] = cj[i];
    acc = x;
  }
  *rest = acc;
  return 0;
}

/* Marks in used[] (n columns) the columns x reads. */
static void mark_cols(const lm_bexpr *x, bool *used, int n) {
  if (!x)
    return;
  if (x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n)
    used[x->col] = true;
  for (int i = 0; i < x->n_args; i++)
    mark_cols(x->args[i], used, n);
  if (x->kind == LM_BX_SUBQUERY) /* the outer values a subquery reads */
    for (int i = 0; i < x->sub->n_params; i++)
      mark_cols(x->sub->param_exprs[i], used, n);
}

/* A single join step whose output feeds the query p directly: the columns
 * of each side that neither the step (keys, time, residual) nor p (WHERE,
 * GROUP BY keys, aggregate arguments, window time, the projection of a
 * query without aggregates) reads are marked pruned, so the join does not
 * keep them in its state (q3, q4, q7 keep a few of each side's columns).
 * Only for the plain shape (no Top-N, no computed keys, no RIGHT SEMI /
 * ANTI swap, output = left columns then right columns); else nothing. */
static void prune_state_cols(lm_plan *p, lm_arena *a) {
  lm_join_plan *jp = p->join;
  if (!jp || jp->n_steps != 1 || p->topn)
    return;
  lm_join_step *st = &jp->steps[0];
  if (st->swapped || st->n_proj[0] || st->n_proj[1] ||
      st->type == LM_PJOIN_SEMI || st->type == LM_PJOIN_ANTI)
    return;
  int nl = st->side_schema[0]->n_fields, nr = st->side_schema[1]->n_fields;
  int n = nl + nr;
  if (st->out_schema->n_fields != n || p->input_schema->n_fields != n)
    return;
  bool *used = lm_arena_alloc(a, (size_t)n + 1);
  if (!used)
    return; /* no pruning: still correct */
  memset(used, 0, (size_t)n + 1);
  mark_cols(p->where, used, n);
  for (int k = 0; k < p->n_keys; k++)
    mark_cols(p->keys[k], used, n);
  for (int k = 0; k < p->n_aggs; k++)
    mark_cols(p->aggs[k].arg, used, n);
  if (!p->has_agg)
    for (int o = 0; o < p->n_out; o++)
      mark_cols(p->out[o], used, n);
  if (p->window_time_col >= 0 && p->window_time_col < n)
    used[p->window_time_col] = true;
  if (p->join_time_col >= 0 && p->join_time_col < n)
    used[p->join_time_col] = true;
  mark_cols(st->residual, used, n);
  for (int k = 0; k < st->n_keys; k++) {
    used[st->keys[0][k]] = true;
    used[nl + st->keys[1][k]] = true;
  }
  if (st->time_col[0] >= 0)
    used[st->time_col[0]] = true;
  if (st->time_col[1] >= 0)
    used[nl + st->time_col[1]] = true;
  for (int s = 0; s < 2; s++) {
    int base = s ? nl : 0, ns = s ? nr : nl, np = 0;
    for (int c = 0; c < ns; c++)
      np += !used[base + c];
    if (!np)
      continue;
    bool *pr = lm_arena_alloc(a, (size_t)ns + 1);
    if (!pr)
      return;
    for (int c = 0; c < ns; c++)
      pr[c] = !used[base + c];
    st->pruned[s] = pr;
  }
}

/* The select list of a scope_out subquery (a parenthesized join): one
 * column per entry of the scope, named uniquely (rel.name) so that the
 * list binds against a scope of those names (*bind); *nested receives the
 * entries (allocated in sa) with col = the output column. */
static int scope_out_items(jb *b, const scope_b *sc, const lm_select *sel,
                           lm_select *s2, lm_scope *bind, lm_arena *sa,
                           lm_scope_col **nested) {
  int n = sc->n;
  lm_select_item *items = lm_arena_alloc(b->a, sizeof *items * (size_t)n);
  lm_scope_col *tmp = lm_arena_alloc(b->a, sizeof *tmp * (size_t)n);
  lm_scope_col *ns = lm_arena_alloc(sa, sizeof *ns * (size_t)n);
  if (n && (!items || !tmp || !ns))
    return nomem(b);
  for (int i = 0; i < n; i++) {
    const lm_scope_col *x = &sc->cols[i];
    char nm[600];
    snprintf(nm, sizeof nm, "%s%s%s", x->rel ? x->rel : "", x->rel ? "." : "",
             x->name);
    for (int k = 0; k < i; k++)
      if (!lm_strcasecmp(tmp[k].name, nm)) {
        snprintf(nm + strlen(nm) - (strlen(nm) > 560 ? 40 : 0), 40, "#%d", i);
        break;
      }
    lm_expr *e = lm_arena_alloc(b->a, sizeof *e);
    char *gen = lm_arena_strndup(b->a, nm, strlen(nm));
    const char *name = lm_arena_strndup(sa, x->name, strlen(x->name));
    const char *rel =
        x->rel ? lm_arena_strndup(sa, x->rel, strlen(x->rel)) : NULL;
    if (!e || !gen || !name || (x->rel && !rel))
      return nomem(b);
    memset(e, 0, sizeof *e);
    e->kind = LM_EXPR_COLUMN;
    e->name = gen;
    e->line = sel->line;
    e->column = sel->column;
    items[i].expr = e;
    items[i].alias = gen;
    tmp[i] = *x;
    tmp[i].rel = NULL;
    tmp[i].name = gen;
    tmp[i].qualified_only = false;
    ns[i] = *x;
    ns[i].rel = rel;
    ns[i].name = name;
    ns[i].col = i;
    ns[i].expr = NULL;
  }
  s2->items = items;
  s2->n_items = n;
  bind->cols = tmp;
  bind->n = n;
  *nested = ns;
  return 0;
}

int lm_plan_join_select(const lm_select *sel, lm_rel_resolver resolve,
                        void *ctx, bool batch, int64_t ttl_us, lm_plan **out,
                        lm_error *err) {
  lm_arena sa; /* a scope_out query's scope (not returned) */
  lm_arena_init(&sa, 1024);
  lm_scope_col *ns = NULL;
  int rc = plan_join(sel, resolve, ctx, batch, ttl_us, out, err, &sa, &ns);
  lm_arena_free(&sa);
  return rc;
}

static int plan_join(const lm_select *sel, lm_rel_resolver resolve, void *ctx,
                     bool batch, int64_t ttl_us, lm_plan **out, lm_error *err,
                     lm_arena *sa, lm_scope_col **nested) {
  lm_error local;
  if (!err)
    err = &local;
  *out = NULL;
  lm_err_clear(err);
  const lm_from *f = sel->from_clause;
  if (!f)
    return lm_err(err, LM_ERR_BIND, "a join query needs FROM");
  /* Top-N over a join: the join is the ROW_NUMBER subquery's FROM */
  const lm_select *tn = NULL;
  if (f->kind == LM_FROM_SUBQUERY && is_topn_subquery(f->subquery) &&
      f->subquery->from_clause) {
    tn = f->subquery;
    f = tn->from_clause;
  }
  lm_arena *a = malloc(sizeof *a);
  if (!a)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_arena_init(a, 16384);
  lm_join_plan *jp = lm_arena_alloc(a, sizeof *jp);
  if (!jp) {
    lm_arena_free(a);
    free(a);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  memset(jp, 0, sizeof *jp);
  jb b = {a, err, resolve, ctx, batch, ttl_us, jp, 0};
  lm_schema *cur = NULL;
  lm_plan *p = NULL;
  int rc = collect_inputs(&b, f, 0);
  const lm_from **joins = NULL;
  int nj = 0;
  if (!rc) {
    joins = lm_arena_alloc(a, sizeof *joins * (size_t)jp->n_inputs);
    jp->steps = lm_arena_alloc(a, sizeof *jp->steps * (size_t)jp->n_inputs);
    if (!joins || !jp->steps)
      rc = nomem(&b);
    else
      memset(jp->steps, 0, sizeof *jp->steps * (size_t)jp->n_inputs);
  }
  scope_b sc = {0};
  bool cur_cl = false;
  int cur_time = -1;
  if (!rc) {
    collect_joins(f, joins, &nj);
    const lm_join_input *i0 = &jp->inputs[0];
    cur = lm_schema_retain(i0->info.schema);
    cur_cl = i0->info.changelog && !batch;
    cur_time = batch ? -1 : i0->info.time_col;
    for (int i = 0; i < cur->n_fields && !rc; i++) {
      lm_scope_col x = {i0->qual, cur->fields[i].name, i, NULL, false, true};
      if (i0->nested) {
        x = i0->nested[i];
        x.col = i;
      }
      rc = scope_add(&b, &sc, x);
    }
  }
  /* WHERE conjuncts over joined relations move into the inner join where
   * they can first be evaluated (keys and bounds of `FROM a, b WHERE ...`) */
  lm_expr *where = tn ? tn->where : sel->where;
  lm_expr **pushed = NULL;
  int *push_step = NULL, n_pushed = 0;
  if (!rc && where && nj > 0)
    rc =
        push_down(&b, joins, nj, where, &where, &pushed, &push_step, &n_pushed);
  for (int s = 0; !rc && s < nj; s++) {
    lm_expr *mine[MAX_CONJ];
    int nm = 0;
    for (int i = 0; i < n_pushed && nm < MAX_CONJ; i++)
      if (push_step[i] == s)
        mine[nm++] = pushed[i];
    jp->n_steps = s + 1; /* owned schemas freed with the plan */
    rc = bind_step(&b, joins[s], &jp->steps[s], &cur, &sc, &cur_cl, &cur_time,
                   &jp->inputs[s + 1], mine, nm);
  }
  if (!rc) {
    lm_scope scope = {sc.cols, sc.n};
    lm_select s2 = *sel;
    s2.from_subquery = NULL;
    s2.where = where;
    if (sel->scope_out && !tn)
      rc = scope_out_items(&b, &sc, sel, &s2, &scope, sa, nested);
    if (!rc)
      rc = tn ? lm_plan_topn_scope(sel, tn, where, cur, &scope, &p, err)
              : lm_plan_select_scope(&s2, cur, NULL, &scope, &p, err);
  }
  if (rc) {
    lm_plan tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.join = jp;
    tmp.join_arena = a;
    lm_arena_init(&tmp.arena, 64);
    lm_plan_free_join(&tmp);
    lm_arena_free(&tmp.arena);
    lm_schema_release(cur);
    return rc;
  }
  lm_schema_release(cur);
  p->join = jp;
  p->join_arena = a;
  /* a changelog's time column (changelog_time_col) is only for the joins
   * reading it; the plan's output has none, as before */
  p->join_time_col = cur_cl ? -1 : cur_time;
  if (!batch) {
    prune_state_cols(p, a);
    lm_plan_dynfilter(p); /* plan/dynfilter.c */
  }
  p->join_changelog = cur_cl;
  if (cur_cl) {
    p->changelog_input = true;
    p->weight_col =
        p->topn ? p->topn->input_schema->n_fields : p->input_schema->n_fields;
  }
  *out = p;
  return 0;
}

void lm_plan_free_join(lm_plan *p) {
  lm_join_plan *jp = p->join;
  if (jp) {
    for (int i = 0; i < jp->n_inputs; i++)
      lm_plan_free(jp->inputs[i].sub);
    for (int s = 0; s < jp->n_steps; s++) {
      lm_schema_release(jp->steps[s].side_schema[0]);
      lm_schema_release(jp->steps[s].side_schema[1]);
      lm_schema_release(jp->steps[s].out_schema);
    }
  }
  if (p->join_arena) {
    lm_arena_free(p->join_arena);
    free(p->join_arena);
  }
  p->join = NULL;
  p->join_arena = NULL;
}
