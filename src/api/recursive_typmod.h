/*
 * PostgreSQL's type-modifier rule of a recursive WITH query (analyzeCTE):
 * a column whose non-recursive term has a typmod (numeric(p,s),
 * varchar(n), char(n)) keeps it only when the recursive term's item keeps
 * it too; otherwise 42804 "... has type numeric(10,2) in non-recursive
 * term but type numeric overall".
 */
#ifndef LM_RECURSIVE_TYPMOD_H
#define LM_RECURSIVE_TYPMOD_H

#include <stdbool.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"
#include "sql/lm_sql.h"

/* Checks recursive WITH query c (c->query a UNION [ALL] of its two terms)
 * whose working table has schema ws (the CTE's column names and the
 * non-recursive term's types). fixed (ws->n_fields entries, caller-owned)
 * is set true for each column whose non-recursive term item is a cast to a
 * type with a modifier (x::numeric(10,2), x::varchar(3), x::char(2)): the
 * column keeps that exact type (its DECIMAL is not widened to 38 digits).
 * Items the AST cannot decide (a column of another relation, a scalar
 * subquery, a non-recursive term that is itself a set operation) are
 * taken to keep the modifier. Returns 0, or LM_ERR_BIND with SQLSTATE
 * 42804, the message and HINT PostgreSQL gives and the position of the
 * non-recursive term's item. */
int lm_recursive_typmod_check(const lm_cte *c, const lm_schema *ws, bool *fixed,
                              lm_error *err);

/* Whether column i of recursive WITH query c is a DECIMAL with a fixed
 * typmod: its non-recursive term's item i is a cast to numeric(p,s) (the
 * query is rejected by lm_recursive_typmod_check unless the recursive term
 * keeps it). False for a non-recursive term that is a set operation,
 * VALUES, or has a `*` item, and for i beyond its items. */
bool lm_recursive_typmod_fixed_dec(const lm_cte *c, int i);

#endif
