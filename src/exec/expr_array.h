/*
 * exec/expr_array.c — PostgreSQL's one-dimensional arrays in the
 * vectorized evaluator. A SQL array column is an LM_TYPE_LIST array: int32
 * offsets into one child array of the items (never a value per row); the
 * functions build their results as offsets plus a gather of the items
 * (plan/array_bind.c binds them; docs/functions.md "Arrays").
 */
#ifndef LM_EXPR_ARRAY_H
#define LM_EXPR_ARRAY_H

#include "exec/lm_exec.h"

/* Evaluates an LM_FN_ARR_* function node e over `in` into *out (a new
 * array of e->type, in->num_rows rows; caller releases). Errors
 * (LM_ERR_EXEC at e's position): 22004 array_position's NULL start,
 * 2202E trim_array's count, 54000 an array beyond 2^31 - 1 items;
 * LM_ERR_NOMEM. */
int lm_arrayfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err);

/* Whether the cast from `from` to `to` is an array cast: text to an array
 * (PostgreSQL's array_in), an array to text (array_out) or an array to
 * another array type (item by item). */
bool lm_array_cast_handles(lm_type from, lm_type to);
/* The cast of a (a->length rows) to `to` into *out (a new array; caller
 * releases). Errors at e's position: 22P02 "malformed array literal:
 * ..." (with PostgreSQL's DETAIL), 0A000 for a multi-dimensional literal,
 * the item cast's errors (22P02 "invalid input syntax for type integer"),
 * LM_ERR_NOMEM. */
int lm_array_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err);

/* expr_dkey.c: LM_FN_ARR_DKEY / LM_FN_ARR_DKEY_OUT of node e over its
 * evaluated arguments a (n rows each) into *out (a new text array of n
 * rows). LM_ERR_NOMEM. */
int lm_dkey_eval(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                 lm_error *err);
/* Whether LM_FN_ARR_DKEY orders items of type t as PostgreSQL does
 * (numbers, text, booleans, dates, times, intervals, bytea). */
bool lm_dkey_type_ok(lm_type t);

/* PostgreSQL's name of array type t: its item's name and "[]"
 * ("integer[]", "text[]"); a static string. */
const char *lm_array_type_name(lm_type t);

/* expr_eval.c's cast of every row of a to `to` (CAST's semantics and
 * errors, at e's position) into *out (a new array). */
int lm_cast_items(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err);

#endif
