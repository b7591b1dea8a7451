/*
 * columnar/array_text.c — PostgreSQL's text form of one-dimensional arrays
 * (SQL arrays are LM_TYPE_LIST arrays; docs/types.md "Arrays").
 */
#ifndef LM_ARRAY_TEXT_H
#define LM_ARRAY_TEXT_H

#include "columnar/lm_columnar.h"

/* Appends row i (0 <= i < a->length, not NULL) of LIST / LARGE_LIST array
 * a as PostgreSQL's array_out: "{1,2,NULL}", "{}", "{"a b",c}" (an item is
 * double-quoted when it is empty, is NULL spelled in any case, or holds
 * '"', '\', '{', '}', ',' or white space; '"' and '\' escaped with '\');
 * items in PostgreSQL's text (booleans t / f, timestamps with a space).
 * LM_ERR_NOMEM. */
int lm_list_format_pg(lm_buf *out, const lm_array *a, int64_t i);

/* Appends item text p[0..n) as array_out writes an item: double-quoted
 * (with '"' and '\' escaped) when it needs quotes. LM_ERR_NOMEM. */
int lm_list_put_item(lm_buf *out, const char *p, size_t n);

/* Appends the item text of row k of a (no quoting) as an array item:
 * PostgreSQL's output function of the item type. LM_ERR_NOMEM. */
int lm_list_item_text(lm_buf *out, const lm_array *a, int64_t k);

/* Parses a one-dimensional array literal s[0..len) as PostgreSQL's
 * array_in ("{1, 2,NULL}", "{"a b",c}", "{}"): each item is appended to
 * `items` (a UTF8 builder) as its text, unquoted and unescaped, an
 * unquoted NULL as a NULL row. Returns the number of items, or -1 with
 * msg (msg_size bytes) set to PostgreSQL's message ("malformed array
 * literal: "..."", then a
 * newline and PostgreSQL's DETAIL when it has one) and *state to its SQLSTATE
 * (22P02; 0A000 for a multi-dimensional literal or dimension decoration).
 * Allocation failures show as items->oom. */
int64_t lm_list_parse_pg(const char *s, size_t len, lm_builder *items,
                         char *msg, size_t msg_size, const char **state);

#endif
