/*
 * format/lm_json.h — NDJSON reader and writer (newline-delimited JSON,
 * https://github.com/ndjson/ndjson-spec; JSON text per RFC 8259,
 * https://www.rfc-editor.org/rfc/rfc8259).
 *
 * Input is one JSON object per line (ndjson spec 1.0 section 3.2: LF or
 * CRLF separates lines; a CR before LF is whitespace); empty and
 * whitespace-only lines are skipped (the spec lets parsers ignore them;
 * not configurable). The reader is incremental like the CSV reader:
 * lm_json_reader_feed takes chunks split anywhere, completed batches are
 * popped with lm_json_reader_next.
 *
 * Mapping an object to a row of the declared schema:
 *  - keys match column names (an exact match first, else
 *    case-insensitively); unknown keys are ignored (their values are still
 *    validated and skipped, however nested); with a duplicate key the last
 *    one wins; a missing key is NULL;
 *  - JSON null is NULL (an error for a NOT NULL column, as is a missing
 *    key);
 *  - BOOLEAN takes true/false; TINYINT..BIGINT take integer numbers (a
 *    fraction of only zeros, e.g. 3.0, is accepted; 1.5 or 1e3 is an error;
 *    out of range for the width is an error); REAL/DOUBLE take any number;
 *    VARCHAR takes a string, or an object/array whose raw JSON text is
 *    stored; TIMESTAMP takes a string parsed with lm_parse_timestamp; any
 *    other pairing (e.g. a string for a BIGINT column) is an error;
 *  - strings: all RFC 8259 escapes, \uXXXX with surrogate pairs decoded to
 *    UTF-8; a lone surrogate, a bad escape, a raw control character or
 *    invalid UTF-8 is an error;
 *  - nesting deeper than 64 (the top-level object is depth 1) is
 *    LM_ERR_LIMIT; so is a line longer than max_line_bytes.
 *
 * Errors: LM_ERR_PARSE with err->line / err->column (1-based line number;
 * 1-based byte column where the offending value starts, or for a lexical
 * error such as a bad escape the offending byte) and a message like
 * "SOURCE:LINE:COLUMN: expected BIGINT for column 'delay', found '\"abc\"'".
 * After an error the reader refuses further input and repeats the error.
 */
#ifndef LM_JSON_H
#define LM_JSON_H

#include "columnar/lm_columnar.h"
#include "format/lm_bad_row.h"

#define LM_JSON_MAX_DEPTH 64

typedef struct lm_json_options {
  int64_t batch_rows;     /* rows per emitted batch; default 8192 */
  int64_t max_line_bytes; /* longest accepted line; default 64 MiB */
  /* a line that does not decode (not a JSON object, a value not of its
   * column's type, NULL for NOT NULL...) goes to on_bad(bad_ctx, ...) and
   * is dropped instead of failing the input (lm_bad_row.h); NULL (the
   * default) = fail. A line over max_line_bytes still fails. */
  lm_bad_row_fn on_bad;
  void *bad_ctx;
} lm_json_options;

/* Fills *o with the defaults. Zero fields in an options struct also mean
 * "the default". */
void lm_json_options_default(lm_json_options *o);

typedef struct lm_json_reader lm_json_reader;

/* Creates a reader producing batches of `schema` (retained; the caller
 * keeps its own reference). opts may be NULL (defaults; copied).
 * source_name is used in error messages (copied; NULL = "<input>").
 * Returns NULL only on out-of-memory or a NULL schema; an unsupported
 * column type is reported by the first feed/finish. */
lm_json_reader *lm_json_reader_new(lm_schema *schema,
                                   const lm_json_options *opts,
                                   const char *source_name);

/* Feeds the next `len` bytes of NDJSON (ndjson spec section 3.2; each line
 * an RFC 8259 object). Chunks may split anywhere, even inside a UTF-8
 * sequence or an escape; data is not retained after return. Decodes every
 * complete line, queueing a batch every batch_rows rows. Returns 0 or an
 * LM_ERR_* code with *err filled (err may be NULL). */
int lm_json_reader_feed(lm_json_reader *r, const char *data, size_t len,
                        lm_error *err);

/* Queues the complete rows read so far as a batch (for lm_json_reader_next)
 * without ending the input; an incomplete trailing record stays buffered
 * for the next feed. Used when following a growing file. Errors: the
 * reader's earlier error, LM_ERR_NOMEM. */
int lm_json_reader_flush(lm_json_reader *r, lm_error *err);
/* End of input: decodes a last line without a trailing LF and queues the
 * last partial batch. Returns 0 or an error. */
int lm_json_reader_finish(lm_json_reader *r, lm_error *err);

/* Pops the oldest completed batch (caller owns one reference) or NULL. */
lm_batch *lm_json_reader_next(lm_json_reader *r);

/* Rows decoded so far (blank lines not counted). */
int64_t lm_json_reader_rows(const lm_json_reader *r);

/* Frees the reader, queued batches and its schema reference. NULL ok. */
void lm_json_reader_free(lm_json_reader *r);

/* ---------------------------------------------------------------- writer */

/* Appends one JSON object per row of b, each followed by LF (ndjson spec
 * section 3.1: no raw newlines inside a text), keys in schema order, e.g.
 *   {"symbol":"AAPL","minute":"2026-10-18T09:30:00","volume":150,"high":189.7}
 * NULL -> null; BOOLEAN -> true/false; integers -> numbers; REAL/DOUBLE ->
 * shortest round-trip numbers, NaN/Infinity -> null; TIMESTAMP -> string
 * "YYYY-MM-DDTHH:MM:SS[.ffffff]"; strings and keys escaped per RFC 8259
 * section 7 (\" \\ \b \f \n \r \t, other control characters as \u00XX;
 * bytes that are not valid UTF-8 become U+FFFD). Returns 0 or
 * LM_ERR_NOMEM. */
int lm_json_write_batch(lm_buf *out, const lm_batch *b);

/* Appends s[0..len) as a quoted JSON string (escaped as above). */
int lm_json_write_string(lm_buf *out, const char *s, size_t len);

#endif
