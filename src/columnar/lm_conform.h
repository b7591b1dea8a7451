/*
 * Conforming Arrow data to a column's declared SQL type (ingest paths:
 * FORMAT ARROW_IPC file sources, laminar_push_arrow).
 *
 * SQL columns are declared with the SQL types (BOOLEAN, TINYINT..BIGINT,
 * REAL, DOUBLE, VARCHAR, TIMESTAMP, INTERVAL); Arrow data may carry any
 * lm_type. lm_conform_array converts what has an unambiguous meaning:
 *  - the same type: shared (no copy);
 *  - DICTIONARY: decoded, then conformed as its value type;
 *  - NULL (all-NULL column): NULLs of the declared type;
 *  - signed integers to any integer or float type, floats to floats;
 *    UINT8..UINT64 to any integer type or float; FLOAT16 to REAL/DOUBLE;
 *    DECIMAL128 to REAL/DOUBLE (nearest); integer values that do not fit
 *    the declared width are an error, never truncated;
 *  - TIMESTAMP(unit) to TIMESTAMP (unit converted, overflow is an error);
 *    DATE32 to TIMESTAMP (midnight);
 *  - DURATION(unit) and INTERVAL to INTERVAL (µs; ns floored);
 *  - LARGE_UTF8 to VARCHAR when the column's bytes fit int32 offsets;
 *  - any other Arrow-only type (unsigned, FLOAT16, DECIMAL, DATE, TIME,
 *    DURATION, INTERVAL_MDN, BYTEA, FIXED_SIZE_BINARY, LIST, STRUCT) and
 *    INTERVAL (Arrow Duration(µs): "-1 days -00:00:01") to
 *    VARCHAR as its text form (lm_array_format_value: "123.45",
 *    "2024-01-02", "\x0102", "[1, 2]", ...).
 * Anything else is LM_ERR_BIND with *err untouched, so the caller can word
 * the mismatch; value errors (out of range, too large) are LM_ERR_EXEC with
 * a message prefixed by `ctx` (e.g. "f.arrow: column 'x'").
 */
#ifndef LM_CONFORM_H
#define LM_CONFORM_H

#include "columnar/lm_columnar.h"

/* Whether lm_conform_array can convert type `from` to `to`. */
bool lm_conform_possible(lm_type from, lm_type to);
/* *out: a new reference of type `to`. Errors as described above. */
int lm_conform_array(lm_array *a, lm_type to, const char *ctx, lm_array **out,
                     lm_error *err);

/* PostgreSQL's assignment of text s[0, len) (UTF-8) to a column declared
 * VARCHAR(n) / CHAR(n) (m.char_len = n, 0: no limit; m.bpchar pads): the
 * first n characters are kept (*keep, in bytes) and characters past them
 * may only be spaces, which are cut; CHAR(n) adds *pad spaces up to n
 * characters. Returns 0, or -1 when a character past n is not a space
 * (PostgreSQL's 22001 "value too long for type character varying(n)"). */
int lm_char_assign(const char *s, int32_t len, lm_typmod m, int32_t *keep,
                   int32_t *pad);
/* The SQL name of m's type, "character varying(3)" / "character(3)", into
 * buf (n bytes); returns buf. */
const char *lm_char_type_name(lm_typmod m, char *buf, size_t n);
/* lm_char_assign applied to every row of a (a UTF8 array; other types are
 * returned as they are): *out a new reference (to a itself when no value
 * changes). Errors: LM_ERR_EXEC "<ctx>: row N: value too long for type
 * character varying(n)" (N = first_row + the row's index: first_row is the
 * 1-based number of a's row 0 in its input) with SQLSTATE 22001,
 * LM_ERR_NOMEM. */
int lm_conform_chars(lm_array *a, lm_typmod m, const char *ctx,
                     int64_t first_row, lm_array **out, lm_error *err);

#endif
