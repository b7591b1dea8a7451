/*
 * columnar/lm_decimal_math.h — PostgreSQL 15's numeric sqrt, ln, log,
 * exp and power over DECIMAL128 values (decimal_math.c).
 */
#ifndef LM_DECIMAL_MATH_H
#define LM_DECIMAL_MATH_H

#include "columnar/lm_decimal.h"

typedef enum lm_decm_fn {
  LM_DECM_SQRT,  /* sqrt(a) */
  LM_DECM_LN,    /* ln(a) */
  LM_DECM_LOG10, /* log(a) = log(10, a) */
  LM_DECM_LOG,   /* log(base a, value b) */
  LM_DECM_EXP,   /* exp(a) */
  LM_DECM_POWER, /* power(a, b) */
} lm_decm_fn;

/* Error codes of lm_dec_math (messages: lm_dec_math_error). */
#define LM_DECM_SQRT_NEG 1     /* 2201F */
#define LM_DECM_LOG_ZERO 2     /* 2201E */
#define LM_DECM_LOG_NEG 3      /* 2201E */
#define LM_DECM_DIV_ZERO 4     /* 22012: log(1, x) */
#define LM_DECM_POW_ZERO_NEG 5 /* 2201F */
#define LM_DECM_POW_COMPLEX 6  /* 2201F */
#define LM_DECM_OVERFLOW 7     /* 22003 value overflows numeric format */
#define LM_DECM_TOOBIG 8       /* 22003 numeric field overflow (38 digits) */

/* fn of a@sa (and b@sb for log and power; ignored otherwise). On success
 * (0) *out is the unscaled result at scale *rscale, PostgreSQL's result
 * scale for these values (0..1000: callers storing into a column of
 * another scale rescale it). Returns an LM_DECM_* code otherwise (*rscale
 * is set whenever the scale was decided). Digits: binary128, exact to
 * about 32 significant digits. */
int lm_dec_math(lm_decm_fn fn, lm_i128 a, int sa, lm_i128 b, int sb,
                lm_i128 *out, int *rscale);
/* The message and SQLSTATE (static strings) of an LM_DECM_* code. */
const char *lm_dec_math_error(int code, const char **sqlstate);

#endif
