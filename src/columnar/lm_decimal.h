/*
 * columnar/lm_decimal.h — exact DECIMAL128 arithmetic for SQL NUMERIC(p,s).
 *
 * A decimal value is an int128 "unscaled" integer v with a scale s: the
 * number is v * 10^-s. Precision p (1..38) bounds |v| < 10^p. Rounding is
 * half away from zero everywhere (PostgreSQL's numeric rounding). Results
 * whose unscaled value reaches 10^38 are overflows (PostgreSQL's numeric is
 * arbitrary precision; ours stops at 38 digits: SQLSTATE 22003 "numeric
 * field overflow").
 */
#ifndef LM_DECIMAL_H
#define LM_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columnar/lm_columnar.h"

typedef __int128 lm_i128;

#define LM_DEC_MAX_DIGITS 38
#define LM_DEC_ESYNTAX (-1)   /* text is not a number */
#define LM_DEC_EOVERFLOW (-2) /* does not fit the precision / 38 digits */

/* PostgreSQL's special numeric values NaN, Infinity and -Infinity, as
 * reserved unscaled values outside ±(10^38 - 1) (a finite value never
 * reaches them): NaN = 2^127 - 1, Infinity = 2^127 - 2, -Infinity =
 * -(2^127 - 2). Any scale. Signed int128 order is PostgreSQL's numeric
 * order (-Infinity < every number < Infinity < NaN, NaN = NaN), so
 * comparisons, sorts, hashes, GROUP BY and min / max need nothing more;
 * arithmetic, casts and aggregates test lm_dec_is_special first.
 * lm_dec_fits is false for them (callers decide: PostgreSQL 15 stores NaN
 * in NUMERIC(p,s), not Infinity). Arrow IPC / Parquet writers refuse them
 * (external readers would read 1.7e38). */
#define LM_DEC_NAN ((lm_i128)(((unsigned __int128)1 << 127) - 1))
#define LM_DEC_PINF (LM_DEC_NAN - 1)
#define LM_DEC_NINF (-LM_DEC_PINF)

/* Whether v is NaN, Infinity or -Infinity. */
static inline bool lm_dec_is_special(lm_i128 v) {
  return v >= LM_DEC_PINF || v <= LM_DEC_NINF;
}

/* 10^k for 0 <= k <= 38. */
lm_i128 lm_dec_pow10(int k);
/* Whether |v| < 10^precision (precision 1..38). */
bool lm_dec_fits(lm_i128 v, int precision);
/* Number of decimal digits of |v| (0 has 1). */
int lm_dec_digits(lm_i128 v);

/* Parses s[0, n) ("[+-]digits[.digits][e[+-]digits]", surrounding spaces
 * allowed; PostgreSQL's 'NaN', '[+-]Infinity', '[+-]inf' in any case give
 * the special values, frac_digits 0) rounded to `scale` digits after the
 * point into *out. Returns 0,
 * LM_DEC_ESYNTAX or LM_DEC_EOVERFLOW (more than 38 digits at that scale).
 * If frac_digits is not NULL it receives the number of digits written after
 * the point (the value's own scale, PostgreSQL's dscale). */
int lm_dec_parse(const char *s, size_t n, int scale, lm_i128 *out,
                 int *frac_digits);
/* v at scale `from` to scale `to` (rounded when to < from). 0 or
 * LM_DEC_EOVERFLOW (beyond 38 digits). A special value stays itself. */
int lm_dec_rescale(lm_i128 v, int from, int to, lm_i128 *out);
/* A double (15 significant digits, as PostgreSQL's float8 -> numeric) at
 * `scale`; NaN and ±Infinity give the special values. 0 or
 * LM_DEC_EOVERFLOW. lm_dec_to_double maps the special values back. */
int lm_dec_from_double(double d, int scale, lm_i128 *out);
double lm_dec_to_double(lm_i128 v, int scale);
/* round(a / b * 10^(rscale - sa + sb)), i.e. the quotient of a@sa and b@sb
 * at scale rscale. b != 0 (callers check). 0 or LM_DEC_EOVERFLOW. */
int lm_dec_div(lm_i128 a, int sa, lm_i128 b, int sb, int rscale, lm_i128 *out);
/* PostgreSQL's select_div_scale: the display scale of a@sa / b@sb. */
int lm_dec_div_scale(lm_i128 a, int sa, lm_i128 b, int sb);
/* The quotient a@sa / b@sb as PostgreSQL's numeric division computes it
 * (at select_div_scale's scale, rounded half away from zero), given at
 * scale rs: exact when that scale is at most rs, else rounded to rs (a
 * column has one scale). b != 0. 0 or LM_DEC_EOVERFLOW (38 digits). */
int lm_dec_quotient(lm_i128 a, int sa, lm_i128 b, int sb, int rs, lm_i128 *out);
/* Text form into buf (at least 48 bytes): "123.45", "-0.05", "NaN",
 * "Infinity", "-Infinity". Returns the length (a NUL is written after it). */
int lm_dec_format(char *buf, lm_i128 v, int scale);

/* SQL text input of TIME and BYTEA (PostgreSQL's forms). TIME:
 * "HH:MM[:SS[.f]]" (24:00:00 allowed; fraction rounded to µs) into µs
 * since midnight (lm_dt_parse's forms; 24:00:00 allowed); 0 or an
 * LM_DT_* code (lm_temporal.h). BYTEA: "\x" hex (spaces between bytes) or the
 * escape format (\\ and \ooo), bytes appended to buf; 0, -1 bad input,
 * -2 out of memory, -3 a bad hex digit, -4 an odd number of hex digits. */
int lm_parse_time_us(const char *s, int32_t n, int64_t *out);
int lm_parse_bytea(const char *s, int32_t n, lm_buf *buf);

/* For writers to external Arrow readers (IPC, the C data interface),
 * which would read a special value as a 38-digit number: the first
 * special value (lm_dec_is_special) among the valid rows of a (a
 * DECIMAL128 array, or a LIST / STRUCT holding one) into *out, and true;
 * false when there is none. */
bool lm_dec_find_special(const lm_array *a, lm_i128 *out);

/* Row i of a DECIMAL128 array (valid rows only). */
lm_i128 lm_dec_get(const lm_array *a, int64_t i);
/* Appends an unscaled value to a DECIMAL128 builder. */
void lm_dec_append(lm_builder *b, lm_i128 v);

#endif
