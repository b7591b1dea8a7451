/*
 * plan/array_bind.c — binding PostgreSQL's one-dimensional arrays (SQL
 * arrays are LIST<item> values; exec/expr_array.c evaluates them).
 */
#ifndef LM_ARRAY_BIND_H
#define LM_ARRAY_BIND_H

#include "plan/bind_internal.h"

/* The SQL array type of `item` (LIST<item>, item nullable) in *out; false
 * for item types arrays do not hold (nested types, LARGE_UTF8). */
bool lm_bind_list_of(lm_type item, lm_type *out);

/* Whether t is a SQL array type: LIST of a type lm_bind_list_of takes,
 * from a table column or an Arrow file. */
bool lm_bind_is_array_type(lm_type t);

/* CAST(x AS numeric[]) (at; the parser marks a bare numeric[] with
 * cast_tlen -1, its items DECIMAL(38, 0)):
 * *ct becomes the array of DECIMAL(38, s), s x's own item scale (an array
 * of DECIMAL), 0 for integers, or the most digits after the point among
 * the items of a quoted literal x (at most 18). 0, or LM_ERR_NOMEM. */
int lm_bind_array_numeric(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                          lm_type *ct);

/* Whether a function call named `name` is one of the array functions
 * (array_length, array_to_string, string_to_array, ...) or the parser's
 * array forms ("__array" for ARRAY[...], "__subscript", "__slice",
 * "__any" / "__all" for x op ANY / ALL (array)). */
bool lm_bind_is_array_fn(const char *name);

/* Binds such a call e (arguments bound here): an LM_BX_FUNC node of an
 * LM_FN_ARR_* function. NULL with c->err set: 42883 for argument types no
 * array function takes, 42804 (subscripting a non-array, ARRAY items of
 * types that do not match), 42P18 (ARRAY[] without a cast), 0A000 (a
 * multi-dimensional array). */
lm_bexpr *lm_bind_array_fn(lm_bctx *c, const lm_expr *e);

/* CAST(ARRAY[] AS t) for an array type t: the empty array. NULL on OOM. */
lm_bexpr *lm_bind_array_empty(lm_bctx *c, const lm_expr *e, lm_type t);

/* a op b when op is an array operator (@>, <@, &&) or a or b is an
 * array: true with *out the bound node (array comparison, ||: array_cat,
 * array_append / array_prepend) or NULL with c->err set (42883 operator
 * does not exist); false (nothing done) otherwise. */
bool lm_bind_array_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                      lm_bexpr *b, lm_bexpr **out);

/* array_agg(x [ORDER BY ...]) [FILTER (...)] (e, in an aggregating
 * query c): bound as CAST('{' || string_agg(item text of x, ',' ORDER BY
 * ...) || '}' AS x's type[]) through `agg` (the binder's aggregate
 * binding), so it orders, groups and retracts as string_agg; the item
 * text is array_out's (quoted, NULL kept), read back exactly (floats in
 * their shortest round-trip digits). NULL with c->err set: 42883 (not one
 * argument), 0A000 (DISTINCT, an array argument). */
lm_bexpr *lm_bind_array_agg(lm_bctx *c, const lm_expr *e,
                            lm_bexpr *(*agg)(lm_bctx *, const lm_expr *));

/* ARRAY(SELECT ...): e is the parser's "__array_sub"(scalar subquery);
 * bound as COALESCE((SELECT array_agg(...) ...), '{}') in c->arena
 * (plan/array_sub_bind.c). NULL with c->err set: 42601 (more than one
 * column), the inner query's own errors. */
lm_bexpr *lm_bind_array_sub(lm_bctx *c, const lm_expr *e);

#endif
