/*
 * exec/expr_decmath.h — sqrt, ln, log, exp and power of DECIMAL values
 * (LM_FN_DECIMAL_FN with a function code of 10 and above, bound by
 * plan/decmath_bind.c; evaluated in expr_decmath.c).
 */
#ifndef LM_EXPR_DECMATH_H
#define LM_EXPR_DECMATH_H

#include "exec/lm_exec.h"

/* Evaluates e (args: x, y or a placeholder, the function code as a BIGINT
 * literal: 10 + lm_decm_fn) over in into *out (new reference, e->type:
 * DECIMAL(38, s)). Each row is computed at PostgreSQL's result scale for
 * its values and stored at s (rounded half away from zero when PostgreSQL's
 * scale is larger). Errors at e's position: 2201E / 2201F domain errors,
 * 22012 log(1, x), 22003 overflow (beyond 38 digits). */
int lm_decmath_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err);

#endif
