/*
 * format/lm_csv.h — CSV reader and writer (RFC 4180,
 * https://www.rfc-editor.org/rfc/rfc4180).
 *
 * The reader decodes text straight into record batches typed by a declared
 * schema. It is incremental: bytes arrive through lm_csv_reader_feed in
 * chunks that may split anywhere (inside a quoted field, between CR and LF,
 * inside a UTF-8 sequence); completed batches are popped with
 * lm_csv_reader_next. Rows that lie wholly inside one chunk are parsed in
 * place (no copy, no per-field allocation); only a row that straddles a
 * chunk boundary is copied into an internal carry buffer.
 *
 * Dialect read (RFC 4180 section 2, with the usual relaxations):
 *  - records end with LF or CRLF; the last record may lack a line break;
 *  - fields are separated by `delimiter`; a field may be enclosed in double
 *    quotes, and then may contain the delimiter, CR, LF, and "" for one ";
 *  - a quote inside an unquoted field, or anything but a delimiter or line
 *    break after a closing quote, is an error; an unterminated quoted field
 *    at end of input is an error;
 *  - a UTF-8 byte order mark at the very start is skipped;
 *  - blank lines are skipped, except when a row has exactly one field
 *    (then a blank line is one empty field, i.e. NULL);
 *  - with `header`, the first record names the columns (see below).
 *
 * Values (per declared column type):
 *  - an empty unquoted field is NULL; a quoted empty field "" is the empty
 *    string for VARCHAR and NULL for other types; a field of only spaces is
 *    NULL for non-VARCHAR types;
 *  - integers (TINYINT..BIGINT): optional sign and decimal digits, spaces
 *    around tolerated; out-of-range for the width is an error (no wrap);
 *  - REAL/DOUBLE: decimal or exponent form, inf/infinity/nan; correctly
 *    rounded; a finite literal that overflows is an error;
 *  - BOOLEAN: true/false/t/f/1/0, case-insensitive;
 *  - VARCHAR: the bytes as is (after "" unescaping); must be valid UTF-8;
 *  - TIMESTAMP: lm_parse_timestamp (RFC 3339 or 'YYYY-MM-DD HH:MM:SS[.f]'),
 *    converted to the column's unit.
 *
 * Errors are LM_ERR_PARSE (LM_ERR_LIMIT for limits, LM_ERR_NOMEM for
 * memory) with err->line / err->column set and a message of the form
 * "SOURCE:LINE:COLUMN: expected BIGINT for column 'delay', found 'abc'",
 * where LINE is the 1-based physical line (the header is line 1; line
 * breaks inside quoted fields count) and COLUMN the 1-based byte column
 * where the offending field starts. After an error the reader refuses all
 * further input and returns the same error again.
 */
#ifndef LM_CSV_H
#define LM_CSV_H

#include "columnar/lm_columnar.h"
#include "format/lm_bad_row.h"

typedef struct lm_csv_options {
  char delimiter;     /* field separator; default ','. Not '"', CR or LF. */
  bool header;        /* first record is a header; default true */
  int64_t batch_rows; /* rows per emitted batch; default 8192 */
  /* Longest accepted record in bytes (a limit for untrusted input; larger
   * is LM_ERR_LIMIT). Default 64 MiB. */
  int64_t max_row_bytes;
  bool crlf; /* writer: end records with CRLF instead of LF; default false */
  /* reader, with header: the header's fields map to the declared columns
   * by position, not by name (its names are ignored; a header with fewer
   * fields than columns is an error as usual). For a schema whose names
   * were derived from the header (e.g. empty or repeated names renamed,
   * as `laminardb convert` does). Default false. */
  bool header_by_position;
  /* reader: a data record that does not decode (wrong field count, a value
   * not of its column's type, NULL for NOT NULL...) goes to on_bad(bad_ctx,
   * ...) and is dropped instead of failing the input (lm_bad_row.h); NULL
   * (the default) = fail. Quote errors and limits of the record still fail. */
  lm_bad_row_fn on_bad;
  void *bad_ctx;
} lm_csv_options;

/* Fills *o with the defaults above. A zero delimiter / batch_rows /
 * max_row_bytes in an options struct also means "the default". */
void lm_csv_options_default(lm_csv_options *o);

typedef struct lm_csv_reader lm_csv_reader;

/* Creates a reader producing batches of `schema` (retained: the reader
 * takes its own reference; the caller keeps its own). opts may be NULL
 * (defaults; copied). source_name names the input in error messages
 * (e.g. the file path; copied; NULL = "<input>").
 *
 * With header=true, header names are matched to the declared columns by
 * name (exact match first, else case-insensitively; spaces around an
 * unquoted name are trimmed, a quoted name is taken as is);
 * header columns that are not declared are ignored; declared columns missing
 * from the header are NULL in every row (an error at the header if the column
 * is NOT NULL). With header=false, fields map to the declared columns by
 * position.
 *
 * Returns NULL only on out-of-memory or a NULL schema. Unsupported column
 * types or invalid options are reported by the first feed/finish. Free with
 * lm_csv_reader_free. */
lm_csv_reader *lm_csv_reader_new(lm_schema *schema, const lm_csv_options *opts,
                                 const char *source_name);

/* Feeds the next `len` bytes of input (may be 0), RFC 4180 section 2 as
 * relaxed above. The reader parses every complete record, keeps an
 * unfinished tail internally (data is not retained after return) and queues
 * each batch of `batch_rows` rows.
 * Returns 0, or an LM_ERR_* code with *err filled (err may be NULL). A row
 * with too many or too few fields (relative to the header when
 * header=true, to the schema otherwise), a value that does not decode as
 * its column type, or NULL in a NOT NULL column is an error. */
int lm_csv_reader_feed(lm_csv_reader *r, const char *data, size_t len,
                       lm_error *err);

/* Queues the complete rows read so far as a batch (for lm_csv_reader_next)
 * without ending the input; an incomplete trailing record stays buffered
 * for the next feed. Used when following a growing file. Errors: the
 * reader's earlier error, LM_ERR_NOMEM. */
int lm_csv_reader_flush(lm_csv_reader *r, lm_error *err);
/* Signals end of input: parses the last record (no trailing line break
 * needed) and queues the last partial batch (if it has rows). Returns 0 or
 * an error (e.g. an unterminated quoted field). Further feeds are
 * LM_ERR_INVALID. */
int lm_csv_reader_finish(lm_csv_reader *r, lm_error *err);

/* Pops the oldest completed batch (the caller owns one reference and
 * releases it with lm_batch_release), or NULL when none is ready. Batches
 * completed before an error can still be popped. */
lm_batch *lm_csv_reader_next(lm_csv_reader *r);

/* Data rows decoded so far (not counting the header and skipped lines). */
int64_t lm_csv_reader_rows(const lm_csv_reader *r);

/* Frees the reader, its queued batches and its schema reference. NULL ok. */
void lm_csv_reader_free(lm_csv_reader *r);

/* ---------------------------------------------------------------- writer */

/* Appends the header record (RFC 4180 section 2 rule 3: the schema's field
 * names, quoted when needed, and also when they have leading/trailing
 * spaces, which the reader would trim otherwise) to out. o may be NULL
 * (defaults). Returns 0 or LM_ERR_NOMEM. */
int lm_csv_write_header(lm_buf *out, const lm_schema *s,
                        const lm_csv_options *o);

/* Appends one record per row of b to out (RFC 4180 section 2 rules 5-7): a
 * field containing the delimiter, a quote, CR or LF is quoted with ""
 * doubling (also a text starting with a UTF-8 BOM); NULL is an empty
 * unquoted field; the empty string is ""; numbers use
 * lm_array_format_value (integers in decimal, doubles shortest round-trip,
 * NaN/Infinity/-Infinity); TIMESTAMP as YYYY-MM-DDTHH:MM:SS[.ffffff];
 * BOOLEAN as true/false. Records end with LF (CRLF when o->crlf). With a
 * single column, a NULL row is an empty line, which the reader reads back as
 * NULL. o may be NULL. Returns 0 or LM_ERR_NOMEM. */
int lm_csv_write_batch(lm_buf *out, const lm_batch *b, const lm_csv_options *o);

#endif
