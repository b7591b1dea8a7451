/*
 * format/format_internal.h — helpers shared by the CSV and JSON readers and
 * writers (not a public API): text -> typed value decoding with exact
 * integer range checks and correctly rounded doubles, UTF-8 validation,
 * error messages in the "SOURCE:LINE:COLUMN: text" form, and the writers'
 * value formatting.
 */
#ifndef LM_FORMAT_INTERNAL_H
#define LM_FORMAT_INTERNAL_H

#include "columnar/lm_columnar.h"

/* Result of decoding one text value. */
enum {
  LM_FMT_OK = 0,
  LM_FMT_SYNTAX = 1, /* not a value of the column type */
  LM_FMT_RANGE = 2,  /* a number, but out of range for the column type */
  LM_FMT_UTF8 = 3,   /* invalid UTF-8 in a string */
  LM_FMT_TOOBIG = 4, /* a string too long for a batch (2 GiB offsets) */
  LM_FMT_NOTYPE = 5, /* the column type cannot be read from text */
  /* more characters than a VARCHAR(n) / CHAR(n) takes */
  LM_FMT_TOOLONG = 6,
};

/* True when the type can be decoded from text by lm_fmt_append_text. */
bool lm_fmt_type_supported(lm_type t);

/* True when t is an array (LIST) whose item type lm_fmt_type_supported
 * reads (not an array of arrays): the CSV and NDJSON readers take it. */
bool lm_fmt_list_supported(lm_type t);

/* Decodes PostgreSQL's array text p[0..len) ("{1,2,NULL}", array_in's rules,
 * lm_array_text.h) and appends it as one non-NULL row to LIST builder b,
 * each item decoded as lm_fmt_append_text decodes a field. `texts` is a
 * caller-owned UTF8 builder used as scratch (emptied on entry), `col` the
 * column name for messages. Returns LM_FMT_OK, else an LM_FMT_* code with
 * msg (msg_size bytes) set to a message naming the column and the item
 * ("expected INT32 for item 2 of column 'arr', found 'x'", "malformed
 * array literal: "{1" in column 'arr' (Unexpected end of input.)") and
 * *state to its SQLSTATE (22P02, 22003 out of range, 0A000 for a
 * multi-dimensional literal); nothing is appended then. */
int lm_fmt_append_list_pg(lm_builder *b, const char *p, size_t len,
                          const char *col, lm_builder *texts, lm_buf *scratch,
                          char *msg, size_t msg_size, const char **state);

/* The message of item `item` (1-based) of column `col` whose text p[0..len)
 * did not decode as item_type with LM_FMT_* code rc, into msg. */
void lm_fmt_list_item_error(int rc, lm_type item_type, int64_t item,
                            const char *col, const char *p, size_t len,
                            char *msg, size_t msg_size);

/* Inclusive value range of an integer type (INT8..INT64). */
void lm_fmt_int_range(lm_type t, int64_t *min, int64_t *max);

/* Exact decimal integer: optional surrounding spaces/tabs, optional sign,
 * one or more ASCII digits. Returns LM_FMT_OK, LM_FMT_SYNTAX or LM_FMT_RANGE
 * (value outside [min, max], including anything beyond 64 bits). */
int lm_fmt_parse_int(const char *p, size_t len, int64_t min, int64_t max,
                     int64_t *out);

/* Decimal floating point (optional surrounding spaces/tabs; also "inf",
 * "infinity", "nan", case-insensitive; no hex). Correctly rounded: an exact
 * fast path for up to 15 digits without exponent, strtod/strtof on a
 * NUL-terminated copy (in `scratch` when long) otherwise. as_float32
 * rounds once, directly to float. A finite literal that overflows is
 * LM_FMT_RANGE. */
int lm_fmt_parse_double(const char *p, size_t len, bool as_float32,
                        lm_buf *scratch, double *out);

/* PostgreSQL's boolean text (lm_pg_bool: true/false/yes/no/on/off/1/0 and
 * unique prefixes, any case, surrounding spaces): LM_FMT_OK with *out, or
 * LM_FMT_SYNTAX. */
int lm_fmt_parse_bool(const char *p, size_t len, bool *out);

/* Returns len when p[0..len) is valid UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), else the offset of the first byte
 * of the first invalid sequence. */
size_t lm_fmt_utf8_check(const char *p, size_t len);

/* Whether the text (after trimming spaces/tabs) is empty. */
bool lm_fmt_is_blank(const char *p, size_t len);

/* Decodes the text p[0..len) as a value of b->type and appends it to b.
 * Does not handle NULL (callers decide what an empty field means). For
 * UTF8 the bytes are validated and copied as is. Returns LM_FMT_*;
 * nothing is appended unless LM_FMT_OK. */
int lm_fmt_append_text(lm_builder *b, const char *p, size_t len,
                       lm_buf *scratch);

/* As lm_fmt_append_text for a UTF8 column declared VARCHAR(n) / CHAR(n)
 * (m, the schema's lm_typmod; none: lm_fmt_append_text): the text is
 * validated, then assigned as PostgreSQL assigns it (lm_char_assign: spaces
 * past n cut, CHAR(n) padded with spaces; `scratch` holds a padded copy).
 * LM_FMT_TOOLONG when a character past n is not a space. */
int lm_fmt_append_chars(lm_builder *b, const char *p, size_t len, lm_typmod m,
                        lm_buf *scratch);

/* Writes a short, printable rendering of p[0..len) into dst (cap >= 64):
 * at most ~40 bytes, non-printable bytes as \xNN, "..." when cut. */
void lm_fmt_snippet(char *dst, size_t cap, const char *p, size_t len);

/* Fills *err (if non-NULL) with code, line and column and the message
 * "SOURCE:LINE:COLUMN: <text>". Returns code. */
int lm_fmt_error(lm_error *err, int code, const char *source, int64_t line,
                 int64_t column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Appends the decimal form of v. LM_ERR_NOMEM on failure. */
int lm_fmt_put_int(lm_buf *out, int64_t v);

/* A simple FIFO of completed batches, shared by the readers. */
typedef struct lm_fmt_queue {
  lm_batch **items;
  size_t head, len, cap;
} lm_fmt_queue;

int lm_fmt_queue_push(lm_fmt_queue *q, lm_batch *b); /* takes b */
lm_batch *lm_fmt_queue_pop(lm_fmt_queue *q);         /* NULL when empty */
void lm_fmt_queue_free(lm_fmt_queue *q);             /* releases the rest */

/* Finishes the rows built so far in bb (n rows) into a batch and pushes it
 * onto q. Handles zero-column schemas. Returns 0 or LM_ERR_NOMEM. */
int lm_fmt_flush_batch(lm_batch_builder *bb, int64_t n, lm_fmt_queue *q,
                       lm_error *err);

#endif
