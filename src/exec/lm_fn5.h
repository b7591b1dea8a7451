/*
 * exec/expr_fn5.c: to_number, the uuid type's casts and gen_random_uuid,
 * sha224 / sha384 / sha512 and the bytea bit and byte functions, as
 * PostgreSQL 15 (bound in plan/fn5_bind.c; docs/functions.md).
 */
#ifndef LM_FN5_H
#define LM_FN5_H

#include "exec/lm_exec.h"

/* Evaluates LM_FN_TO_NUMBER .. LM_FN_BYTEA_BITS over `in`: *out a new
 * array of e->type, in->num_rows rows. Errors (LM_ERR_EXEC, PostgreSQL's
 * message and SQLSTATE at e's position): to_number's 22P02 / 22003, the
 * byte functions' 2202E "index n out of valid range, 0..m" and 22023 "new
 * bit must be 0 or 1"; LM_ERR_NOMEM. */
int lm_fn5_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                lm_error *err);

/* Whether a cast from `from` to `to` is a uuid one: text to uuid (the text
 * read as PostgreSQL's uuid_in and stored canonical) or uuid to anything
 * but text (PostgreSQL: 42846 "cannot cast type uuid to integer"). */
bool lm_uuid_cast_handles(lm_type from, lm_type to);
/* The cast of a (a new array in *out, a->length rows): 22P02 "invalid
 * input syntax for type uuid: "..."" for text that is no uuid. */
int lm_uuid_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                 lm_error *err);
/* PostgreSQL's uuid_in: s[0, n) ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
 * upper case, braces around it, no hyphens or one after any group of four
 * digits) into out[0..36), the canonical lowercase text. Returns whether s
 * is a uuid. */
bool lm_uuid_parse(const char *s, size_t n, char out[36]);

/* The template facts to_number's result type needs: *post, the digits
 * after the decimal point of fmt[0, n). 0, or -1 with *msg PostgreSQL's
 * message (42601: "multiple decimal points", ...; 0A000 for "EEEE" and
 * "RN", *state says which). */
int lm_to_number_template(const char *fmt, size_t n, int *post,
                          const char **msg, const char **state);

#endif
