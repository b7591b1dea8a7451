/*
 * api/srf_from.h — set-returning functions (generate_series) in ad-hoc
 * queries (api/srf_from.c, docs/functions.md): function calls in FROM
 * (lateral or not, WITH ORDINALITY, ROWS FROM) and in the select list
 * (PostgreSQL's ProjectSet, rewritten as a lateral function in FROM).
 * Used by api/setop.c, which materializes FROM items before the plain
 * SELECT runs.
 */
#ifndef LM_SRF_FROM_H
#define LM_SRF_FROM_H

#include "api/engine.h"

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
 * FROM: the shorter ones padded with NULLs). *out = sel when there is no
 * such call, else a copy in arena a. Errors (LM_ERR_BIND, SQLSTATE
 * 0A000): a set-returning call in WHERE, GROUP BY, HAVING, ORDER BY, JOIN
 * conditions, or nested in another's arguments; with aggregates, GROUP BY
 * or window functions; LM_ERR_NOMEM. */
int lm_srf_rewrite_select(lm_arena *a, const lm_select *sel,
                          const lm_select **out, lm_error *err);

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

/* Refuses a function call in FROM of a continuous query: LM_ERR_BIND,
 * SQLSTATE 0A000, at the call (0 when there is none). */
int lm_srf_check_continuous(const lm_select *sel, lm_error *err);

#endif
