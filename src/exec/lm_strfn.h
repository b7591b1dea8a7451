/*
 * Flink scalar functions of the Nexmark queries (expr_strfn.c): date_format,
 * regexp_extract, split_index, count_char. The binder uses the two checks
 * below to refuse bad literal arguments at CREATE time.
 */
#ifndef LM_STRFN_H
#define LM_STRFN_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/lm_exec.h"

struct pcre2_real_code_8;

/* Evaluates e (fn LM_FN_DATE_FORMAT, LM_FN_REGEXP_EXTRACT, LM_FN_SPLIT_INDEX
 * or LM_FN_COUNT_CHAR, arguments typed by the binder) over every row of
 * `in`: *out is a new array of in->num_rows rows (caller releases).
 * Errors: LM_ERR_NOMEM; LM_ERR_EXEC for an invalid regular expression read
 * from a column (literal ones are checked when binding). */
int lm_strfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err);

/* Whether `pattern` (NUL-terminated) is a date_format pattern we support:
 * letters y M (not MMM) d H m s S, other characters copied, 'quoted' text.
 * On false *bad is the offending letter (or '\'' for an open quote). */
bool lm_date_format_valid(const char *pattern, char *bad);

/* Compiles a PCRE2 regular expression (UTF-8, len bytes; invalid UTF-8 in
 * subjects never matches) into *out, owned by the caller (lm_regex_free).
 * Returns 0, or -1 with a message in msg (NUL-terminated, truncated to
 * msg_size): PostgreSQL's "invalid regular expression: parentheses () not
 * balanced" (brackets, quantifier operand, escape, repetition count) where
 * the error is one of those, else "invalid regular expression at offset N:
 * <PCRE2's message>". */
int lm_regex_compile(const char *re, size_t len, struct pcre2_real_code_8 **out,
                     char *msg, size_t msg_size);

/* Frees a pattern from lm_regex_compile; NULL is a no-op. */
void lm_regex_free(struct pcre2_real_code_8 *code);

/* ------------------------------------------- PostgreSQL scalar functions
 * Each evaluates e (an LM_BX_FUNC whose fn is in that file's range of
 * lm_func_id, arguments typed by plan/func_bind.c) over every row of `in`:
 * *out is a new array of in->num_rows rows (caller releases). Errors:
 * LM_ERR_NOMEM; LM_ERR_EXEC at e's line:column with PostgreSQL's message
 * and SQLSTATE (lm_error.sqlstate), e.g. "cannot take logarithm of zero"
 * (2201E). */
int lm_mathfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err); /* expr_mathfn.c: TRUNC .. WIDTH_BUCKET */
int lm_textfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err); /* expr_textfn.c: OCTET_LENGTH .. CHR */
int lm_regexfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err); /* expr_regexfn.c: REGEX_OP .. SUBSTR */
int lm_datefn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err); /* expr_datefn.c: TO_CHAR .. AGE */
int lm_jsonfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err); /* expr_jsonfn.c: JSON_GET[_TEXT] */
int lm_json2_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err); /* expr_json2.c: JSON_PATH .. JSONB_DELETE */
int lm_datebin_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err); /* expr_datebin.c: DATE_BIN */
/* Casts to json / jsonb (validating / normalizing text: 22P02 "invalid
 * input syntax for type json" with PostgreSQL's DETAIL) and from jsonb to
 * numbers and BOOLEAN (22023 "cannot cast jsonb string to type integer");
 * lm_json_cast_handles says which pairs are these (expr_json2.c). */
bool lm_json_cast_handles(lm_type from, lm_type to);
int lm_json_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                 lm_error *err);
int lm_intfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err); /* expr_intfn.c: BIT_AND .. MIN_SCALE */
int lm_trigfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err); /* expr_trigfn.c: SIN .. ATANH */
int lm_fmtfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err); /* expr_fmtfn.c: TRANSLATE .. SHA256 */

/* PostgreSQL's name of a SQL type ("bigint", "double precision", "text",
 * "timestamp without time zone", ...; "unknown" for NULL). Static string. */
const char *lm_pg_type_name(lm_type t);

/* Evaluates every argument of e over `in` into a new calloc'd array of
 * e->n_args arrays (*out; free with lm_fargs_free). */
int lm_fargs_eval(const lm_bexpr *e, const lm_batch *in, lm_array ***out,
                  lm_error *err);
void lm_fargs_free(lm_array **a, int n);
/* Whether argument array a is NULL at row i (a NULL-typed array always). */
static inline bool lm_farg_null(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}
/* Whether any of a[0..k) is NULL at row i (lm_farg_null). */
static inline bool lm_fargs_null(lm_array *const *a, int k, int64_t i) {
  bool nul = false;
  for (int j = 0; j < k; j++)
    nul |= lm_farg_null(a[j], i);
  return nul;
}
/* The frame of a function evaluator: lm_fn_begin evaluates e's arguments
 * into *args (lm_fargs_eval) and inits *b (e->type, in->num_rows rows); on
 * error nothing is left to free. lm_fn_end releases args and, when rc is 0,
 * finishes b into *out (LM_ERR_NOMEM if b ran out of memory), else frees b
 * and returns rc. */
int lm_fn_begin(const lm_bexpr *e, const lm_batch *in, lm_array ***args,
                lm_builder *b, lm_error *err);
int lm_fn_end(const lm_bexpr *e, lm_array **args, lm_builder *b, int rc,
              lm_array **out, lm_error *err);
/* One row of a row-at-a-time function evaluator: row i of e's arguments
 * a[0..e->n_args), appending exactly one value to b (o: a scratch buffer
 * the row may reset and use; ctx: the evaluator's). Returns 0, or an
 * error with err set (the evaluation stops). */
typedef int (*lm_fn_row_fn)(const lm_bexpr *e, lm_array *const *a, int64_t i,
                            lm_builder *b, lm_buf *o, void *ctx, lm_error *err);
/* A row-at-a-time function evaluator: e's arguments over `in`, then per
 * row NULL when one of the first `strict` arguments is NULL, else row().
 * *out: a new array of e->type, in->num_rows rows. Errors: those of the
 * arguments and of row(), LM_ERR_NOMEM. */
int lm_fn_rows(const lm_bexpr *e, const lm_batch *in, int strict,
               lm_fn_row_fn row, void *ctx, lm_array **out, lm_error *err);
/* Sets LM_ERR_EXEC at e's line:column with a printf message and SQLSTATE
 * `state`; returns LM_ERR_EXEC. */
int lm_fn_error(lm_error *err, const lm_bexpr *e, const char *state,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
