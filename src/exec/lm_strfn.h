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
 * Returns 0, or -1 with a message ("invalid regular expression at offset
 * N: ...") in msg (NUL-terminated, truncated to msg_size). */
int lm_regex_compile(const char *re, size_t len, struct pcre2_real_code_8 **out,
                     char *msg, size_t msg_size);

/* Frees a pattern from lm_regex_compile; NULL is a no-op. */
void lm_regex_free(struct pcre2_real_code_8 *code);

#endif
