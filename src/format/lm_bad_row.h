/*
 * format/lm_bad_row.h — a row a text reader (CSV, NDJSON) could not decode,
 * handed to the caller instead of failing the input (docs/bad_rows.md).
 *
 * A reader given an lm_bad_row_fn calls it once per record whose values do
 * not decode (a value that is not of its column's type, out of range, too
 * long, invalid UTF-8, NULL for a NOT NULL column, the wrong number of
 * fields; for NDJSON also a line that is not a JSON object), drops the
 * record (none of its values reach a batch) and reads on. Errors that leave
 * the reader unable to find the next record (an unterminated or misplaced
 * quote in CSV, a record over the length limit, out of memory) still fail
 * the input as before.
 */
#ifndef LM_BAD_ROW_H
#define LM_BAD_ROW_H

#include <stddef.h>
#include <stdint.h>

typedef struct lm_bad_row {
  const char *source;   /* the input's name (e.g. file path); borrowed */
  int64_t line;         /* 1-based physical line of the offending value */
  int64_t column;       /* 1-based byte column of it on that line */
  int64_t byte_offset;  /* 0-based offset of it from the input's start */
  int code;             /* LM_ERR_PARSE or LM_ERR_LIMIT */
  const char *sqlstate; /* e.g. "22P02", or "" */
  const char *message;  /* what is wrong, without the place; borrowed */
  const char *raw;      /* the record's bytes as read (maybe not UTF-8) */
  size_t raw_len;
} lm_bad_row;

/* Called by a reader for a bad row; every pointer is valid only during the
 * call. Returns 0 to drop the row and read on, or an LM_ERR_* code (with
 * nothing else) to fail the input with the row's error. */
typedef int (*lm_bad_row_fn)(void *ctx, const lm_bad_row *b);

#endif
