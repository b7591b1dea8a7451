/*
 * Binding subquery expressions: (SELECT ...), EXISTS, IN / ANY / ALL
 * (SELECT ...), correlated to any depth.
 *
 * While a subquery is planned (through the caller's hooks, which know the
 * catalog), the query that contains it stays on a per-thread stack of
 * frames. A column the inner query cannot resolve among its own FROM
 * items is looked up in the enclosing queries, innermost first, as
 * PostgreSQL does; found at an outer level, it becomes an LM_BX_PARAM node
 * reading a slot of the subplan, and the outer expression that fills the
 * slot (bound in the outer query) is added to the subplan's parameters.
 * A reference two levels out is passed through the middle query as a
 * parameter of its own.
 */
#include <limits.h>
#include <string.h>

#include "plan/bind_internal.h"

#define LM_SUBQ_MAX_NESTING 64

typedef struct subq_frame {
  lm_bctx *c;     /* the enclosing query's binding context; NULL while the
                     subquery is re-planned for a run (references then
                     resolve through sp's ref_exprs) */
  lm_subplan *sp; /* the subquery being planned inside it */
} subq_frame;

static _Thread_local subq_frame frames[LM_SUBQ_MAX_NESTING];
static _Thread_local int n_frames;
static _Thread_local const lm_subq_hooks *hooks;

const lm_subq_hooks *lm_plan_set_subq_hooks(const lm_subq_hooks *h) {
  const lm_subq_hooks *prev = hooks;
  hooks = h;
  return prev;
}

void lm_plan_subq_run_enter(lm_subplan *sp) {
  if (n_frames < LM_SUBQ_MAX_NESTING)
    frames[n_frames] = (subq_frame){NULL, sp};
  n_frames++;
}

void lm_plan_subq_run_leave(void) {
  n_frames--;
}

static int fail_state(lm_bctx *c, const lm_expr *e, const char *msg,
                      const char *state) {
  lm_bind_fail(c, e, "%s", msg, NULL);
  lm_err_state(c->err, state);
  return c->err->code;
}

/* Records that AST node e reads slot (for re-planning); 0 or -1 (OOM). */
static int add_ref(lm_bctx *outer, lm_subplan *sp, const lm_expr *e,
                   lm_value *slot) {
  for (int i = 0; i < sp->n_refs; i++)
    if (sp->ref_exprs[i] == e)
      return 0;
  if (sp->n_refs == sp->cap_refs) {
    int cap = sp->cap_refs ? sp->cap_refs * 2 : 4;
    const lm_expr **re =
        lm_arena_alloc(outer->arena, sizeof(lm_expr *) * (size_t)cap);
    lm_value **rs =
        lm_arena_alloc(outer->arena, sizeof(lm_value *) * (size_t)cap);
    if (!re || !rs)
      return -1;
    if (sp->n_refs) {
      memcpy(re, sp->ref_exprs, sizeof(lm_expr *) * (size_t)sp->n_refs);
      memcpy(rs, sp->ref_slots, sizeof(lm_value *) * (size_t)sp->n_refs);
    }
    sp->ref_exprs = re;
    sp->ref_slots = rs;
    sp->cap_refs = cap;
  }
  sp->ref_exprs[sp->n_refs] = e;
  sp->ref_slots[sp->n_refs++] = slot;
  return 0;
}

/* Adds x (bound over the outer query of frame f) as a parameter of f's
 * subplan, or finds an equal one; returns its slot or NULL on OOM. */
static lm_value *add_param(lm_bctx *outer, lm_subplan *sp, lm_bexpr *x) {
  for (int i = 0; i < sp->n_params; i++)
    if (lm_bexpr_equal(sp->param_exprs[i], x))
      return sp->params[i];
  if (sp->n_params == sp->cap_params) {
    int cap = sp->cap_params ? sp->cap_params * 2 : 4;
    lm_bexpr **pe =
        lm_arena_alloc(outer->arena, sizeof(lm_bexpr *) * (size_t)cap);
    lm_value **pv =
        lm_arena_alloc(outer->arena, sizeof(lm_value *) * (size_t)cap);
    if (!pe || !pv)
      return NULL;
    if (sp->n_params) {
      memcpy(pe, sp->param_exprs, sizeof(lm_bexpr *) * (size_t)sp->n_params);
      memcpy(pv, sp->params, sizeof(lm_value *) * (size_t)sp->n_params);
    }
    sp->param_exprs = pe;
    sp->params = pv;
    sp->cap_params = cap;
  }
  lm_value *slot = lm_arena_alloc(outer->arena, sizeof *slot);
  if (!slot)
    return NULL;
  memset(slot, 0, sizeof *slot);
  slot->type = x->type;
  slot->is_null = true;
  sp->param_exprs[sp->n_params] = x;
  sp->params[sp->n_params++] = slot;
  return slot;
}

static lm_bexpr *param_of(lm_bctx *c, subq_frame f, const lm_expr *e,
                          lm_bexpr *x);

lm_bexpr *lm_bind_outer_ref(lm_bctx *c, const lm_expr *e, bool *failed) {
  if (n_frames == 0)
    return NULL;
  if (n_frames > LM_SUBQ_MAX_NESTING)
    return NULL;
  subq_frame f = frames[n_frames - 1];
  if (!f.c) { /* re-planned for a run: the slot found when first bound */
    if (f.sp->decor && f.sp->decor->running)
      f.sp->decor->ref_hits++; /* still correlated: not decorrelated */
    for (int i = 0; i < f.sp->n_refs; i++)
      if (f.sp->ref_exprs[i] == e) {
        lm_value *slot = f.sp->ref_slots[i];
        lm_bexpr *p = lm_bind_node(c, LM_BX_PARAM, slot->type, e, 0);
        if (p)
          p->param = slot;
        else
          *failed = true;
        return p;
      }
    return NULL;
  }
  /* resolved at the outer level, which sees only its own outer levels */
  n_frames--;
  lm_error scratch;
  lm_err_clear(&scratch);
  lm_bctx oc = *f.c;
  oc.err = &scratch;
  lm_bexpr *x = lm_bind_expr(&oc, e);
  n_frames++;
  if (!x) {
    /* an ambiguity out there is the answer; "does not exist" is not */
    if (strstr(scratch.msg, "ambiguous")) {
      *c->err = scratch;
      *failed = true;
    }
    return NULL;
  }
  lm_bexpr *p = param_of(c, f, e, x);
  if (!p)
    *failed = true;
  return p;
}

/* Whether binding context x has a column that e (a column reference)
 * names: 1 yes, 0 no, -1 no but it has e's relation (PostgreSQL looks no
 * further out then). */
static int ctx_has(const lm_bctx *x, const lm_expr *e) {
  int r = 0;
  if (x->scope) {
    for (int i = 0; i < x->scope->n; i++) {
      const lm_scope_col *sc = &x->scope->cols[i];
      bool rel = e->table && sc->rel && !strcmp(sc->rel, e->table);
      if (rel)
        r = -1;
      if (lm_ident_eq(sc->name, e->name, e->quoted ? 0 : 1) &&
          (e->table ? rel : !sc->qualified_only))
        return 1;
    }
    return r;
  }
  const lm_schema *in = x->post && x->plan ? x->plan->input_schema : x->in;
  bool rel = e->table && x->from && !strcmp(e->table, x->from);
  if (!in || lm_schema_find_ref(in, e->name, e->quoted, NULL) < 0)
    return rel ? -1 : 0;
  return !e->table || rel;
}

/* The innermost level of the columns e names (not looking into
 * subqueries), into *lvl (INT_MAX: none yet); false when one resolves
 * nowhere. */
static bool col_levels(const lm_bctx *c, const lm_expr *e, int *lvl,
                       int depth) {
  if (!e || depth > 200)
    return depth <= 200;
  if (e->kind == LM_EXPR_SUBQUERY)
    return true;
  if (e->kind == LM_EXPR_COLUMN) {
    int h = ctx_has(c, e);
    if (h) {
      *lvl = 0;
      return h > 0;
    }
    for (int k = 1; k <= n_frames && k <= LM_SUBQ_MAX_NESTING; k++) {
      const lm_bctx *x = frames[n_frames - k].c;
      if (!x || (h = ctx_has(x, e)) < 0)
        return false;
      if (h) {
        if (k < *lvl)
          *lvl = k;
        return true;
      }
    }
    return false;
  }
  for (int i = 0; i < e->n_args; i++)
    if (!col_levels(c, e->args[i], lvl, depth + 1))
      return false;
  return col_levels(c, e->filter, lvl, depth + 1);
}

int lm_bind_agg_level(const lm_bctx *c, const lm_expr *e) {
  if (n_frames == 0 || n_frames > LM_SUBQ_MAX_NESTING)
    return 0;
  int lvl = INT_MAX;
  if (col_levels(c, e, &lvl, 0))
    return lvl == INT_MAX ? 0 : lvl;
  /* a level re-planned for a run (no names): e was lifted past it when
   * first bound iff it is one of its subplan's outer references */
  for (int k = 1; k <= n_frames; k++) {
    subq_frame f = frames[n_frames - k];
    if (f.c)
      continue;
    for (int i = 0; i < f.sp->n_refs; i++)
      if (f.sp->ref_exprs[i] == e)
        return k;
    return 0;
  }
  return 0;
}

/* The PARAM node reading x (bound over frame f's enclosing query) for AST
 * node e; NULL on OOM (err set). */
static lm_bexpr *param_of(lm_bctx *c, subq_frame f, const lm_expr *e,
                          lm_bexpr *x) {
  lm_value *slot = add_param(f.c, f.sp, x);
  if (slot && add_ref(f.c, f.sp, e, slot))
    slot = NULL;
  lm_bexpr *p = slot ? lm_bind_node(c, LM_BX_PARAM, x->type, e, 0) : NULL;
  if (!p) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  p->param = slot;
  return p;
}

lm_bexpr *lm_bind_outer_agg(lm_bctx *c, const lm_expr *e) {
  subq_frame f = frames[n_frames - 1];
  if (!f.c) {
    bool bad = false;
    lm_bexpr *p = lm_bind_outer_ref(c, e, &bad);
    if (!p && !bad)
      lm_bind_fail(c, e, "could not bind the aggregate of an outer query", NULL,
                   NULL);
    return p;
  }
  /* bound by the enclosing query (an aggregate of its own there, or of a
   * query further out), its errors ours */
  n_frames--;
  lm_bctx oc = *f.c;
  oc.err = c->err;
  lm_bexpr *x = lm_bind_expr(&oc, e);
  n_frames++;
  if (!x && !oc.plan && !oc.want_agg && !strcmp(c->err->sqlstate, "42803")) {
    /* no aggregates there: a WHERE (PostgreSQL's words) */
    lm_bind_fail(c, e, "aggregate functions are not allowed in WHERE", NULL,
                 NULL);
    lm_err_state(c->err, "42803");
  }
  return x ? param_of(c, f, e, x) : NULL;
}

bool lm_expr_has_subquery(const lm_expr *e) {
  if (!e)
    return false;
  if (e->kind == LM_EXPR_SUBQUERY)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (lm_expr_has_subquery(e->args[i]))
      return true;
  return lm_expr_has_subquery(e->filter);
}

static lm_bexpr *bind_form(lm_bctx *c, const lm_expr *e, lm_subplan *sp,
                           lm_bexpr *left, const lm_schema *s);

lm_bexpr *lm_bind_subquery(lm_bctx *c, const lm_expr *e) {
  if (!hooks || !hooks->prepare) {
    fail_state(c, e,
               "subqueries are not supported in continuous queries yet; "
               "query the view ad hoc, or use a join",
               "0A000");
    return NULL;
  }
  if (n_frames >= LM_SUBQ_MAX_NESTING) {
    fail_state(c, e, "subqueries nested too deeply", "54001");
    return NULL;
  }
  bool cmp = e->subq == LM_SUBQ_ANY || e->subq == LM_SUBQ_ALL;
  lm_bexpr *left = NULL;
  if (cmp && (e->n_args < 1 || !(left = lm_bind_expr(c, e->args[0]))))
    return NULL;
  const lm_subq_hooks *h = hooks;
  lm_subplan *sp = h->new_subplan(h->ctx);
  if (!sp) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  sp->sel = e->subquery;
  sp->run = h->run;
  sp->run_ctx = h->ctx;
  sp->kind = e->subq;
  sp->op = e->op;
  sp->line = e->line;
  sp->column = e->column;
  frames[n_frames++] = (subq_frame){c, sp};
  lm_schema *s = NULL;
  int rc = h->prepare(h->ctx, sp, &s, c->err);
  n_frames--;
  if (rc) {
    if (!c->err->code)
      lm_bind_fail(c, e, "could not plan the subquery", NULL, NULL);
    return NULL;
  }
  lm_bexpr *r = bind_form(c, e, sp, left, s);
  lm_schema_release(s);
  if (r && sp->n_params > 0)
    sp->decor = lm_decorrelate(c->arena, sp); /* NULL: per key */
  return r;
}

/* The SUBQUERY node over a planned subquery of output schema s. */
static lm_bexpr *bind_form(lm_bctx *c, const lm_expr *e, lm_subplan *sp,
                           lm_bexpr *left, const lm_schema *s) {
  bool cmp = e->subq == LM_SUBQ_ANY || e->subq == LM_SUBQ_ALL;
  lm_type t = lm_type_make(LM_TYPE_BOOL);
  if (e->subq == LM_SUBQ_SCALAR) {
    if (s->n_fields != 1) {
      fail_state(c, e, "subquery must return only one column", "42601");
      return NULL;
    }
    t = s->fields[0].type;
  } else if (cmp) {
    if (s->n_fields != 1) {
      fail_state(c, e,
                 s->n_fields > 1 ? "subquery has too many columns"
                                 : "subquery has too few columns",
                 "42601");
      return NULL;
    }
    /* 'x' IN (SELECT int ...): the unknown literal is read as the
     * column's type now, as PostgreSQL does when parsing (22P02 even over
     * no rows) */
    lm_type ct = s->fields[0].type;
    if (lm_bind_is_unknown(e->args[0], left) && ct.id != LM_TYPE_UTF8 &&
        ct.id != LM_TYPE_NULL && ct.id != LM_TYPE_INTERVAL &&
        ct.id != LM_TYPE_INTERVAL_MDN && ct.id != LM_TYPE_LIST) {
      lm_bexpr *f = lm_bind_fold(c, lm_bind_cast(c, left, ct));
      if (!f)
        return NULL;
      left = f;
    }
    /* x op column 0 of the result, with the comparison's coercions */
    sp->left_slot = lm_arena_alloc(c->arena, sizeof *sp->left_slot);
    lm_bexpr *pl = lm_bind_node(c, LM_BX_PARAM, left->type, e->args[0], 0);
    lm_bexpr *col = lm_bind_node(c, LM_BX_COLUMN, s->fields[0].type, e, 0);
    if (!sp->left_slot || !pl || !col) {
      lm_err(c->err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
    memset(sp->left_slot, 0, sizeof *sp->left_slot);
    pl->param = sp->left_slot;
    if (left->kind == LM_BX_LITERAL)
      pl = left; /* 'text' IN (SELECT int ...): the literal is coerced */
    col->col = 0;
    lm_op op = e->op;
    if (op < LM_OP_EQ || op > LM_OP_GE) {
      lm_bind_fail(c, e, "ANY / ALL needs a comparison operator", NULL, NULL);
      return NULL;
    }
    if (!(sp->cmp = lm_bind_binary(c, e, op, pl, col)))
      return NULL;
  }
  lm_bexpr *r = lm_bind_node(c, LM_BX_SUBQUERY, t, e, left ? 1 : 0);
  if (!r)
    return NULL;
  if (left)
    r->args[0] = left;
  r->sub = sp;
  r->negated = e->negated;
  return r;
}
