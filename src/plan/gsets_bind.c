/* plan/gsets_bind.c — GROUP BY grouping sets (ROLLUP, CUBE, GROUPING SETS,
 * the empty set ()) and the GROUPING() function, as PostgreSQL 15
 * (docs/aggregates.md).
 *
 * The sets are expanded here into bit masks over the distinct grouping
 * expressions (the plan's keys); a hidden last key, __grouping_set, tells
 * the groups of different sets apart (two sets may leave the same keys
 * NULL, and a set may be listed twice) and encodes which keys its set
 * leaves out, which is what GROUPING() reads. The aggregate operator
 * (exec/op_aggregate.c) folds each input row once per set, the keys a set
 * leaves out NULL: one pass over the input, as PostgreSQL's and DuckDB's
 * grouping-set aggregates. */
#include "plan/bind_internal.h"
#include "plan/lm_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL's limits: CUBE elements (parse_clause.c) and GROUPING()
 * arguments (parse_agg.c). */
#define CUBE_MAX 12
#define GROUPING_MAX_ARGS 31

typedef struct mlist {
  uint64_t *m;
  int n, cap;
} mlist;

static int ml_add(lm_bctx *c, mlist *l, uint64_t m) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    uint64_t *g = realloc(l->m, sizeof *g * (size_t)nc);
    if (!g)
      return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    l->m = g;
    l->cap = nc;
  }
  l->m[l->n++] = m;
  return 0;
}

static int too_many_sets(lm_bctx *c) {
  lm_err(c->err, LM_ERR_BIND, "too many grouping sets present (maximum %d)",
         LM_GSET_MAX);
  return lm_err_state(c->err, "54001"); /* statement_too_complex */
}

/* The key mask of an EXPR or LIST element. */
static uint64_t elem_mask(const lm_group_elem *g, const int *canon) {
  if (g->kind == LM_GS_EXPR)
    return UINT64_C(1) << canon[g->index];
  uint64_t m = 0;
  for (int i = 0; i < g->n_items; i++)
    m |= elem_mask(&g->items[i], canon);
  return m;
}

/* Appends the sets of element g to *out (PostgreSQL's order: ROLLUP from
 * the whole list down to (), CUBE from all elements down to none). */
static int expand(lm_bctx *c, const lm_group_elem *g, const int *canon,
                  mlist *out, int depth) {
  int rc = 0;
  if (depth > 64)
    return lm_err(c->err, LM_ERR_BIND, "grouping sets nested too deeply");
  switch (g->kind) {
  case LM_GS_EXPR:
  case LM_GS_LIST:
    return ml_add(c, out, elem_mask(g, canon));
  case LM_GS_EMPTY:
    return ml_add(c, out, 0);
  case LM_GS_ROLLUP:
    for (int k = g->n_items; k >= 0 && !rc; k--) {
      uint64_t m = 0;
      for (int i = 0; i < k; i++)
        m |= elem_mask(&g->items[i], canon);
      rc = ml_add(c, out, m);
    }
    return rc;
  case LM_GS_CUBE: {
    if (g->n_items > CUBE_MAX) {
      lm_err_at(c->err, LM_ERR_BIND, g->line, g->column,
                "CUBE is limited to %d elements", CUBE_MAX);
      return lm_err_state(c->err, "54011"); /* program_limit_exceeded */
    }
    uint32_t all = (UINT32_C(1) << g->n_items) - 1;
    for (uint32_t b = all + 1; b-- > 0 && !rc;) {
      uint64_t m = 0;
      for (int i = 0; i < g->n_items; i++)
        if (b & (UINT32_C(1) << (g->n_items - 1 - i)))
          m |= elem_mask(&g->items[i], canon);
      rc = ml_add(c, out, m);
    }
    return rc;
  }
  case LM_GS_SETS:
    for (int i = 0; i < g->n_items && !rc; i++) {
      rc = expand(c, &g->items[i], canon, out, depth + 1);
      if (!rc && out->n > LM_GSET_MAX)
        rc = too_many_sets(c);
    }
    return rc;
  }
  return 0;
}

/* The first GROUPING() call in e (not inside a subquery), or NULL. */
static const lm_expr *find_grouping(const lm_expr *e) {
  if (!e)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && e->name && !strcmp(e->name, "grouping") &&
      !e->over)
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *f = find_grouping(e->args[i]);
    if (f)
      return f;
  }
  return find_grouping(e->filter);
}

int lm_bind_grouping_misplaced(const lm_expr *e, const char *clause,
                               lm_error *err) {
  const lm_expr *g = find_grouping(e);
  if (!g)
    return 0;
  lm_err_at(err, LM_ERR_BIND, g->line, g->column,
            "grouping operations are not allowed in %s", clause);
  return lm_err_state(err, "42803"); /* grouping_error */
}

int lm_bind_grouping_sets(lm_bctx *c, lm_plan *p, const lm_select *sel) {
  if (!sel->group_elems)
    return 0;
  const lm_group_elem *g0 = &sel->group_elems[0];
  if (p->window_kind != LM_WIN_NONE) {
    lm_err_at(c->err, LM_ERR_BIND, g0->line, g0->column,
              "GROUPING SETS, ROLLUP and CUBE are not supported with a "
              "window (tumble, hop, cumulate, session) in GROUP BY");
    return lm_err_state(c->err, "0A000");
  }
  int n = sel->n_group_by;
  if (n != p->n_keys)
    return lm_err(c->err, LM_ERR_BIND, "internal error: grouping keys");
  /* one key per distinct expression: canon[i] is group_by[i]'s */
  int *canon = lm_arena_alloc(c->arena, sizeof(int) * (size_t)(n + 1));
  if (!canon)
    return lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  int nk = 0;
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < nk && !lm_bexpr_equal(p->keys[k], p->keys[i]))
      k++;
    if (k == nk) {
      if (nk == LM_GSET_MAX_KEYS) {
        const lm_expr *e = sel->group_by[i];
        lm_err_at(c->err, LM_ERR_BIND, e->line, e->column,
                  "grouping sets over more than %d distinct expressions are "
                  "not supported",
                  LM_GSET_MAX_KEYS);
        return lm_err_state(c->err, "0A000");
      }
      p->keys[nk] = p->keys[i];
      p->key_names[nk] = p->key_names[i];
      nk++;
    }
    canon[i] = k;
  }
  /* the cross product of the top-level elements' sets */
  mlist acc = {0}, el = {0}, nx = {0};
  int rc = ml_add(c, &acc, 0);
  for (int e = 0; !rc && e < sel->n_group_elems; e++) {
    el.n = 0;
    rc = expand(c, &sel->group_elems[e], canon, &el, 0);
    if (rc)
      break;
    if ((int64_t)acc.n * el.n > LM_GSET_MAX) {
      rc = too_many_sets(c);
      break;
    }
    nx.n = 0;
    for (int i = 0; i < acc.n && !rc; i++)
      for (int j = 0; j < el.n && !rc; j++)
        rc = ml_add(c, &nx, acc.m[i] | el.m[j]);
    mlist t = acc;
    acc = nx;
    nx = t;
  }
  if (!rc && sel->group_distinct) { /* GROUP BY DISTINCT: each set once */
    int k = 0;
    for (int i = 0; i < acc.n; i++) {
      int j = 0;
      while (j < k && acc.m[j] != acc.m[i])
        j++;
      if (j == k)
        acc.m[k++] = acc.m[i];
    }
    acc.n = k;
  }
  if (!rc && acc.n > 1) {
    p->gset_mask = lm_arena_alloc(c->arena, sizeof(uint64_t) * (size_t)acc.n);
    lm_bexpr *id =
        lm_bind_node(c, LM_BX_LITERAL, lm_type_make(LM_TYPE_INT64), NULL, 0);
    const char *nm = "__grouping_set";
    char *kn = lm_arena_strndup(c->arena, nm, strlen(nm));
    if (!p->gset_mask || !id || !kn) {
      rc = lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    } else {
      memcpy(p->gset_mask, acc.m, sizeof(uint64_t) * (size_t)acc.n);
      id->lit.type = id->type; /* a placeholder: the operator fills it */
      p->n_gsets = acc.n;
      p->gset_key = nk;
      p->keys[nk] = id;
      p->key_names[nk] = kn;
      nk++;
    }
  }
  /* one set: a plain GROUP BY of its (the distinct) expressions */
  if (!rc)
    p->n_keys = nk;
  free(acc.m);
  free(el.m);
  free(nx.m);
  return rc;
}

lm_bexpr *lm_bind_grouping(lm_bctx *c, const lm_expr *e) {
  lm_plan *p = c->plan;
  if (e->n_args > GROUPING_MAX_ARGS) {
    lm_bind_fail(c, e, "GROUPING must have fewer than 32 arguments", NULL,
                 NULL);
    lm_err_state(c->err, "54023"); /* too_many_arguments */
    return NULL;
  }
  if (e->n_args == 0 || e->distinct || e->n_agg_order || e->filter) {
    lm_bind_fail(c, e, "syntax error in GROUPING(expression, ...)", NULL, NULL);
    lm_err_state(c->err, "42601");
    return NULL;
  }
  int nk = p->n_gsets ? p->gset_key : p->n_keys;
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = p->input_schema;
  in.window_ok = true;
  int key[GROUPING_MAX_ARGS];
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *a = e->args[i];
    const lm_expr *inner = find_grouping(a);
    if (inner) {
      lm_bind_fail(c, inner, "aggregate function calls cannot be nested", NULL,
                   NULL);
      lm_err_state(c->err, "42803");
      return NULL;
    }
    lm_bexpr *x = lm_bind_expr(&in, a);
    if (!x)
      return NULL;
    key[i] = -1;
    for (int k = 0; k < nk && key[i] < 0; k++)
      if (lm_bexpr_equal(p->keys[k], x))
        key[i] = k;
    if (key[i] < 0) {
      lm_bind_fail(c, a,
                   "arguments to GROUPING must be grouping expressions of the "
                   "associated query level",
                   NULL, NULL);
      lm_err_state(c->err, "42803"); /* grouping_error */
      return NULL;
    }
  }
  lm_type i32 = lm_type_make(LM_TYPE_INT32);
  if (!p->n_gsets) /* one grouping set: every key is grouped by */
    return lm_bind_cast(c, lm_bind_int64_lit(c, e, 0), i32);
  /* the set's missing-key bits: __grouping_set / 2^LM_GSET_SHIFT; argument
   * i contributes ((bits / 2^key) % 2) * 2^(n - 1 - i) */
  lm_bexpr *id =
      lm_bind_node(c, LM_BX_COLUMN, lm_type_make(LM_TYPE_INT64), e, 0);
  if (!id)
    return NULL;
  id->col = p->gset_key;
  lm_bexpr *bits =
      lm_bind_binary(c, e, LM_OP_DIV, id,
                     lm_bind_int64_lit(c, e, INT64_C(1) << LM_GSET_SHIFT));
  lm_bexpr *sum = NULL;
  for (int i = 0; bits && i < e->n_args; i++) {
    lm_bexpr *b = lm_bind_binary(c, e, LM_OP_DIV, bits,
                                 lm_bind_int64_lit(c, e, INT64_C(1) << key[i]));
    if (b)
      b = lm_bind_binary(c, e, LM_OP_MOD, b, lm_bind_int64_lit(c, e, 2));
    if (b && i < e->n_args - 1)
      b = lm_bind_binary(
          c, e, LM_OP_MUL, b,
          lm_bind_int64_lit(c, e, INT64_C(1) << (e->n_args - 1 - i)));
    if (!b)
      return NULL;
    sum = sum ? lm_bind_binary(c, e, LM_OP_ADD, sum, b) : b;
  }
  return sum ? lm_bind_cast(c, sum, i32) : NULL;
}

bool lm_bind_gset_nullable(const lm_plan *p, int k) {
  if (!p->n_gsets || k >= p->gset_key)
    return false;
  for (int s = 0; s < p->n_gsets; s++)
    if (!(p->gset_mask[s] & (UINT64_C(1) << k)))
      return true;
  return false;
}
