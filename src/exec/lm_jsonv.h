/*
 * exec/lm_jsonv.h — JSON values of the SQL types json and jsonb
 * (PostgreSQL 15's; docs/types.md "JSON"): a parser into a small tree (in
 * an arena), PostgreSQL's jsonb text form and pretty form, and the jsonb
 * operations (containment, key lookup). The scalar functions and
 * operators over them are in expr_json2.c; the path operators over JSON
 * text (-> ->> json_extract_path) in expr_jsonfn.c.
 */
#ifndef LM_JSONV_H
#define LM_JSONV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lm_base.h"

typedef enum lm_jv_kind {
  LM_JV_NULL,
  LM_JV_FALSE,
  LM_JV_TRUE,
  LM_JV_NUM, /* s/len: the number's text (jsonb: normalized, numeric_out) */
  LM_JV_STR, /* s/len: the decoded string, UTF-8 */
  LM_JV_ARR, /* n elements in kids */
  LM_JV_OBJ, /* n members: kids[2k] the key (STR), kids[2k+1] the value */
} lm_jv_kind;

typedef struct lm_jv {
  lm_jv_kind kind;
  int32_t len;
  const char *s;
  int32_t n;
  struct lm_jv *kids;
  /* json (not jsonb): the value's text as given, in the parsed input */
  const char *src;
  int32_t srclen;
} lm_jv;

/* Parses the JSON text p[0..n) (RFC 8259, PostgreSQL's json lexer) into a
 * tree allocated in `ar` (*out). jsonb: PostgreSQL's jsonb form — an
 * object's keys sorted by length then bytes, a duplicated key keeps its
 * last value, numbers normalized as numeric (1e2 is 100, 1.50 stays 1.50),
 * \u0000 refused. Returns 0; 1 for invalid JSON with PostgreSQL's DETAIL
 * ("Token \"x\" is invalid.", "The input string ended unexpectedly.") in
 * detail (NUL-terminated, up to dsize); 2 for \u0000 in jsonb (22P05
 * "unsupported Unicode escape sequence"); -1 out of memory; 3 nesting
 * deeper than 6400 (54001); 4 in jsonb a number beyond numeric's range
 * (more than 16383 digits after the point or 131072 before it: 22003
 * "value overflows numeric format"). */
int lm_jv_parse(lm_arena *ar, const char *p, size_t n, bool jsonb, lm_jv **out,
                char *detail, size_t dsize);

/* Appends v as PostgreSQL's jsonb text: `{"a": 1, "b": [1, 2]}`. pretty:
 * jsonb_pretty's form (4-space indents, one member per line). Returns 0
 * or LM_ERR_NOMEM. */
int lm_jv_out(lm_buf *o, const lm_jv *v, bool pretty);

/* Appends s[0..n) as a JSON string literal with PostgreSQL's escape_json
 * rules (\" \\ \b \f \n \r \t, other control characters as \u00XX). */
int lm_jv_quote(lm_buf *o, const char *s, size_t n);

/* The value of member k (kl bytes) of object v (keys sorted as jsonb:
 * binary search), or NULL. */
const lm_jv *lm_jv_get(const lm_jv *v, const char *k, int32_t kl);

/* PostgreSQL's jsonb @>: whether a contains b (top level: an array
 * contains a scalar it has as an element). */
bool lm_jv_contains(const lm_jv *a, const lm_jv *b);

/* PostgreSQL's jsonb ?: whether key k is a member of object v, a string
 * element of array v, or the string v. */
bool lm_jv_exists(const lm_jv *v, const char *k, int32_t kl);

/* Whether two scalars / trees are equal as jsonb (numbers numerically). */
bool lm_jv_equal(const lm_jv *a, const lm_jv *b);

/* "object", "array", "string", "number", "boolean" or "null". */
const char *lm_jv_typeof(lm_jv_kind k);

/* Sorts and de-duplicates the n members of object v in place (jsonb). */
void lm_jv_sort_object(lm_jv *v);

/* Parses a PostgreSQL text[] literal ('{a,"b c",NULL}') into *n elements
 * (arena; a NULL element has s NULL). Returns 0, 1 when malformed, -1 on
 * OOM. */
int lm_jv_text_array(lm_arena *ar, const char *p, int32_t len,
                     const char ***elems, int32_t **lens, int32_t *n);

#endif
