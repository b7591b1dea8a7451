/*
 * api/srf_from.h — set-returning functions (generate_series,
 * string_to_table, regexp_split_to_table; api/srf_from.c, srf_stream.c,
 * docs/functions.md): function calls in FROM (lateral or not, WITH
 * ORDINALITY, ROWS FROM) and in the select list (PostgreSQL's ProjectSet,
 * rewritten as a lateral function in FROM). A FROM of one relation
 * followed by calls runs as ProjectSet operators, ad hoc (api/setop.c)
 * and in continuous queries (api/engine.c); other ad-hoc shapes
 * materialize the calls' rows as temporary relations first.
 */
#ifndef LM_SRF_FROM_H
#define LM_SRF_FROM_H

#include "api/engine.h"
#include "exec/lm_srf.h"

/* Column names starting with this byte are hidden: not expanded by '*'
 * (plan/join_bind.c) — the argument values a lateral function's rows are
 * joined on. */
#define LM_SRF_HIDDEN '\x01'

/* Whether sel itself (not its subqueries) calls a set-returning function
 * in its select list, WHERE, GROUP BY, HAVING or ORDER BY, or has a
 * function call in its FROM clause. */
bool lm_srf_select_applies(const lm_select *sel);

/* The SELECT list's set-returning calls rewritten as PostgreSQL's
 * ProjectSet computes them: `SELECT a, generate_series(1, a) FROM t` as
 * `SELECT a, s.c1 AS generate_series FROM t CROSS JOIN LATERAL ROWS FROM
 * (generate_series(1, a)) s` (several calls run in lockstep, as ROWS
 * FROM: the shorter ones padded with NULLs). With aggregates or GROUP BY
 * the query is first split: its SRF-free parts (aggregates, keys) as a
 * derived table, the calls over its rows (ORDER BY, DISTINCT, LIMIT
 * outside). *out = sel when there is no such call, else a copy in arena
 * a. Errors (LM_ERR_BIND, SQLSTATE 0A000): a set-returning call in WHERE,
 * GROUP BY, HAVING, ORDER BY, JOIN conditions, nested in another's
 * arguments, in an aggregate's arguments ("aggregate function calls
 * cannot contain set-returning function calls"); with window functions;
 * `*` or DISTINCT ON beside aggregates; LM_ERR_NOMEM. */
int lm_srf_rewrite_select(lm_arena *a, const lm_select *sel,
                          const lm_select **out, lm_error *err);

/* The function items of a `base, f(x) [INNER | LEFT] JOIN g(y) ...` FROM
 * (the select list's calls once rewritten) get CASE WHEN <the conjuncts
 * of the WHERE and of the inner joins' ON that read no function's
 * columns> THEN x END for each argument x that reads columns: no rows, no
 * error, for the rows the filter removes, as PostgreSQL filters first
 * (api/srf_guard.c). *out: sel or a copy in arena a. Returns 0 or
 * LM_ERR_NOMEM. */
int lm_srf_guard(lm_arena *a, const lm_select *sel, const lm_select **out);

/* A copy of call (in arena a) whose arguments that read columns are each
 * CASE WHEN cond THEN x END; call itself when none reads a column or it
 * is a window call. The one guard rule of lm_srf_guard and the ad-hoc
 * lm_lateral_guard_func. NULL on OOM. */
lm_expr *lm_srf_guard_call(lm_arena *a, lm_expr *call, lm_expr *cond);

/* Evaluates FROM item f (kind LM_FROM_FUNCTION) into the temporary
 * relation `name` (db->temps; popped by the caller with the statement's
 * other temporaries), with its output columns named as PostgreSQL names
 * them (the alias, `AS t(a, b)`, else the function's name; ordinality).
 * left: the (rewritten) FROM items before f when f is the right side of
 * a join, else NULL; when f's arguments read columns (a lateral call),
 * they are computed once per distinct tuple of values over `left`, the
 * relation also holds those values in hidden columns and *on receives
 * the condition (in arena a) joining them to left's rows (AND it into the
 * join's ON); else *on is NULL. cap: at most this many rows are made (-1
 * = all): a LIMIT directly over the function. Errors: LM_ERR_BIND 42883
 * (no such function / argument types), 42P10 (too many column aliases),
 * LM_ERR_EXEC 22023 (step size cannot equal zero), LM_ERR_LIMIT 54000
 * (more rows than Laminar materializes), the arguments' own errors,
 * LM_ERR_NOMEM. */
int lm_srf_from_eval(laminar_db *db, lm_arena *a, const lm_from *f,
                     const lm_from *left, int64_t cap, const char *name,
                     lm_expr **on, lm_error *err);

/* The row cap of lm_srf_from_eval for sel: offset + limit when sel's FROM
 * is one function call and nothing between it and the LIMIT needs all
 * rows (no WHERE, GROUP BY, aggregate, DISTINCT, ORDER BY, window
 * function or set-returning select item); -1 otherwise. */
int64_t lm_srf_limit_cap(const lm_select *sel);

/* How one function call's arguments are converted and what it returns
 * (lm_srf_plan_call). */
typedef struct lm_srf_call_plan {
  bool srf;         /* a set-returning call; else a scalar call: one row */
  lm_srf_kind kind; /* which one (srf) */
  int first, n;     /* its arguments: columns [first, first + n) */
  lm_type out;      /* the output column's type */
  lm_type cast[3];  /* per argument: the type to cast to (NULL id: none) */
  int64_t step_days;
} lm_srf_call_plan;

/* Types set-returning call `call` (AST) whose arguments have the types of
 * sc's fields [first, first + call->n_args), as PostgreSQL resolves
 * generate_series / string_to_table / regexp_split_to_table (literals of
 * unknown type follow the others). Errors: LM_ERR_BIND 42883 "function
 * f(types) does not exist" at the call. */
int lm_srf_plan_call(const lm_expr *call, const lm_schema *sc, int first,
                     lm_srf_call_plan *cp, lm_error *err);

/* Refuses a function call in FROM or a set-returning call in the select
 * list of sel, a subquery or WITH query of a continuous query (the outer
 * query's are taken out by lm_srf_cq_prepare first): LM_ERR_BIND,
 * SQLSTATE 0A000, at the call (0 when there is none). */
int lm_srf_check_continuous(const lm_select *sel, lm_error *err);

/* ------------------------------- ProjectSet stages (api/srf_stream.c) */

/* A hook of lm_engine_select_pre (api/select.c): given the base
 * relation's schema, builds the plan over the rows the operators
 * head..tail (chained through next; tail->next is set by the caller) make
 * from the base rows. The caller owns *plan and the operators. */
typedef struct lm_select_pre {
  int (*build)(void *ctx, lm_schema *in, lm_plan **plan, lm_operator **head,
               lm_operator **tail, lm_error *err);
  void *ctx;
} lm_select_pre;

/* An ad-hoc SELECT whose FROM is one relation (or none: one row without
 * columns), its rows pushed through pre's operators into the plan's
 * pipeline a batch at a time (api/select.c). Errors as lm_engine_select. */
int lm_engine_select_pre(laminar_db *db, const lm_select *sel,
                         const lm_select_pre *pre, laminar_result **res,
                         lm_error *err);

/* Whether sel (after lm_srf_rewrite_select) runs through ProjectSet
 * stages: its FROM is one relation (TABLE or SUBQUERY item, *base; NULL
 * when FROM starts with a function) followed by function calls joined by
 * `,` / CROSS JOIN / [INNER] JOIN ... ON / LEFT JOIN ... ON TRUE, and it
 * has no subquery expressions or window functions. */
bool lm_srf_stream_applies(const lm_select *sel, const lm_from **base);

/* Runs such a sel ad hoc; base: the first FROM item as a TABLE item (a
 * subquery already materialized by the caller), NULL when none. The
 * stages' rows are made and consumed a batch at a time (constant memory
 * below the pipeline's own state). Errors: as lm_engine_select; 42883
 * for a function's argument types, 22023 for a zero step. */
int lm_srf_stream_select(laminar_db *db, lm_arena *a, const lm_select *sel,
                         const lm_from *base, laminar_result **res,
                         lm_error *err);

/* EXPLAIN of a continuous query (api/explain.c): the function items of
 * sel's ProjectSet stages in the order they run (select-list calls
 * rewritten as items in arena a), at most max into items[] and their LEFT
 * JOIN LATERAL ... ON TRUE flags into outer[]; returns their number, 0
 * when sel runs no such stages (errors included). */
int lm_srf_stage_items(const lm_select *sel, lm_arena *a, const lm_from **items,
                       bool *outer, int max);

/* Continuous queries (api/engine.c): lm_srf_cq_prepare: when sel calls a
 * set-returning function (select list or FROM), *out is a new state and
 * *body the query over the base relation alone (FROM base; the joins'
 * conditions in WHERE); otherwise *out = NULL, *body = sel. Calls may also
 * be written before the base, joined by `,` / CROSS JOIN / [INNER] JOIN
 * ... ON (`FROM generate_series(1, 3) g, s`): they run after it as the
 * others do (a constant call is a constant relation crossed with the
 * base's rows), their arguments cannot read the base's columns, and `*`
 * lists the FROM items in their written order. Errors: 0A000
 * for shapes other than base + functions (see lm_srf_stream_applies) or a
 * base that is not a named relation, the select-list errors of
 * lm_srf_rewrite_select. lm_srf_cq_plan: the stages over the base's rows
 * `in` (weight_col >= 0: an updating input's __weight column) and the
 * plan of *body over their output (*plan, the caller's). lm_srf_cq_cols:
 * the columns of that output (an updating input's __weight follows
 * them). lm_srf_cq_attach: puts the stages ahead of *head and frees cq
 * (the operators own what they need). lm_srf_cq_free: frees cq (NULL is a
 * no-op). */
typedef struct lm_srf_cq lm_srf_cq;
int lm_srf_cq_prepare(const lm_select *sel, lm_srf_cq **out,
                      const lm_select **body, lm_error *err);
int lm_srf_cq_plan(lm_srf_cq *cq, lm_schema *in, int weight_col, lm_plan **plan,
                   lm_error *err);
int lm_srf_cq_cols(const lm_srf_cq *cq);
void lm_srf_cq_attach(lm_srf_cq *cq, lm_operator **head);
void lm_srf_cq_free(lm_srf_cq *cq);

#endif
