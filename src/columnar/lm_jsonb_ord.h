/*
 * columnar/lm_jsonb_ord.h — PostgreSQL 15's jsonb comparison (jsonb_cmp,
 * compareJsonbContainers) over the jsonb text a VARCHAR-backed jsonb
 * column holds (docs/types.md "JSON and JSONB"), as an order key: a byte
 * string whose memcmp order is jsonb's btree order and whose equality is
 * jsonb equality ('1' = '1.0', '{"k":1}' = '{"k":1.00}').
 *
 * The order (PostgreSQL's): an object above an array above a scalar at the
 * top level, arrays and objects by their element / pair count first, a raw
 * scalar as a one-element array that sorts below a real one ('[]' < 'null'
 * < '[1]'); inside containers null < string < number < boolean < array <
 * object; strings by their bytes (the C collation), then the shorter;
 * numbers by value; objects pair by pair in stored key order (length, then
 * bytes).
 */
#ifndef LM_JSONB_ORD_H
#define LM_JSONB_ORD_H

#include <stddef.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"

/* Appends the order key of the JSON text s[0, n) (a jsonb value's text;
 * any valid JSON is read, whitespace ignored) to o. Returns 0,
 * LM_ERR_NOMEM, or LM_ERR_PARSE when s is not JSON (o then holds a partial
 * key; callers fall back to the text). */
int lm_jsonb_ord(lm_buf *o, const char *s, size_t n);

/* jsonb_cmp of the JSON texts a[0, an) and b[0, bn): < 0, 0 or > 0. Text
 * that does not read as JSON (or out of memory) compares by its bytes. */
int lm_jsonb_cmp(const char *a, size_t an, const char *b, size_t bn);

/* The equality key of the jsonb text s[0, n) (PostgreSQL's normalized
 * text, as a jsonb column holds it): the text with each number's trailing
 * fraction zeros cut ("1.50" is "1.5", "1.00" is "1"), so two jsonb texts
 * are equal as jsonb exactly when their keys are equal bytes. Returns 0
 * when s is its own key (nothing appended; a text without '.' never needs
 * a copy), 1 when the key was appended to o, -1 out of memory. */
int lm_jsonb_canon(lm_buf *o, const char *s, size_t n);

/* s[0, n)'s equality key (lm_jsonb_canon) and its length (*kn): s itself
 * or tmp's bytes (tmp: the caller's buffer, reset here, the caller frees
 * it; out of memory: s). */
const char *lm_jsonb_key(const char *s, size_t n, lm_buf *tmp, size_t *kn);

/* Whether the jsonb texts a and b are equal as jsonb (their keys). */
bool lm_jsonb_eq(const char *a, size_t an, const char *b, size_t bn);

/* The equality keys of a jsonb array x (lm_jsonb_canon per row; NULLs
 * kept) as a new VARCHAR array in *out (refcount 1, the caller releases),
 * for the operators that compare jsonb values by their bytes (hash joins,
 * IN sets, DISTINCT aggregates, memo keys). *out is NULL when x is not
 * jsonb or every value is its own key (use x). Returns 0 or LM_ERR_NOMEM. */
int lm_jsonb_key_array(const lm_array *x, lm_array **out);

#endif
