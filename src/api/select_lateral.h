/*
 * api/select_lateral.h — LATERAL subqueries in FROM of ad-hoc queries
 * (api/select_lateral.c, docs/subqueries.md "LATERAL subqueries").
 */
#ifndef LM_SELECT_LATERAL_H
#define LM_SELECT_LATERAL_H

#include "api/engine.h"

/* Evaluates FROM item f (kind LM_FROM_SUBQUERY, LATERAL written), the
 * right side of a join of type `join` whose left side `left` (already
 * rewritten: tables and temporaries only) holds the FROM items before it,
 * into the temporary relation `name` (db->temps; popped by the caller
 * with the statement's other temporaries), named as PostgreSQL names a
 * derived table's columns (`AS s(a, b)` renames the first ones).
 *
 * When the subquery reads columns of `left` (its outer references, found
 * by binding it as a subquery expression over `left`), it is run once per
 * distinct tuple of those values (the values of `SELECT DISTINCT refs FROM
 * left`), with its references bound to them as a correlated subquery's
 * parameters are (plan/subquery_bind.c); the relation holds each run's
 * rows beside the values in hidden columns, and *on receives (in arena a)
 * the condition joining them back to left's rows (NULL-safe where a NULL
 * value ran): AND it into the join's ON. The join of left with the
 * relation is then PostgreSQL's lateral nested loop; LEFT JOIN pads the
 * rows whose run returned nothing. A subquery that reads nothing of
 * `left` runs once and *on is NULL (a plain derived table). Tuples are
 * distinct by exact value: values equal but not identical (float -0 / 0,
 * INTERVAL '1 mon' / '30 days', CHAR with trailing blanks) run apart.
 *
 * where: the statement's WHERE when the join's rows reach it unchanged
 * (no outer join's nullable side above the join), else NULL: its
 * conjuncts reading only columns of `left` restrict the tuples run (as
 * PostgreSQL filters before the nested loop: no error for a row the
 * WHERE removes).
 *
 * Errors: the subquery's own (binding: 42P01 / 42703 for names neither it
 * nor `left` has; running); 42P10 "invalid reference to FROM-clause entry"
 * with PostgreSQL's DETAIL when `join` is RIGHT or FULL and the subquery
 * reads `left`; 42P10 for more column aliases than columns; 42803 for an
 * aggregate of left's columns inside; LM_ERR_NOMEM. */
int lm_lateral_eval(laminar_db *db, lm_arena *a, const lm_from *f,
                    const lm_from *left, lm_sql_join join, lm_expr *where,
                    const char *name, lm_expr **on, lm_error *err);

/* For function item f (LM_FROM_FUNCTION) right of a join whose left side
 * is `left` (rewritten), with the statement's WHERE `where` as for
 * lm_lateral_eval: *out = f, or a copy (in arena a) whose arguments that
 * read columns are CASE WHEN <where's conjuncts reading only left's
 * columns> THEN arg END, so the function sees NULL (no rows, no error)
 * for the rows the WHERE removes, as PostgreSQL filters first. Returns 0
 * or LM_ERR_NOMEM. */
int lm_lateral_guard_func(laminar_db *db, lm_arena *a, const lm_from *f,
                          const lm_from *left, lm_expr *where,
                          const lm_from **out);

/* lm_lateral_guard_func for every function item of sel's left-deep FROM
 * chain `base, f(..) [LEFT] JOIN g(..) ...` (api/srf_stream.c's), left
 * being base (a TABLE item: a table or a materialized derived table),
 * with where = sel's WHERE AND the chain's INNER JOIN ... ON conditions:
 * *out = sel, or a copy in arena a. Returns 0 or LM_ERR_NOMEM. */
int lm_lateral_guard_chain(laminar_db *db, lm_arena *a, const lm_select *sel,
                           const lm_from *base, const lm_select **out);

/* After FROM item f (a subquery without LATERAL, right of a join whose
 * left side is `left`, rewritten) failed with *err 42P01 / 42703: when f
 * binds as a LATERAL subquery over `left`, *err becomes PostgreSQL's
 * "invalid reference to FROM-clause entry for table" (42P01) / "column
 * ... does not exist" (42703) at the first reference, with its HINT
 * ("... cannot be referenced from this part of the query."). Returns
 * err->code. */
int lm_lateral_hint(laminar_db *db, const lm_from *f, const lm_from *left,
                    lm_error *err);

#endif
