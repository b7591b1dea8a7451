/*
 * exec/expr_tz.h — TIMESTAMPTZ casts for the vectorized evaluator
 * (expr_eval.c's cast calls in here; docs/timezones.md).
 */
#ifndef LM_EXPR_TZ_H
#define LM_EXPR_TZ_H

#include "exec/lm_exec.h"

/* Whether a cast from `from` to `to` is a TIMESTAMPTZ one handled here:
 * TIMESTAMPTZ from VARCHAR, TIMESTAMP (µs) or DATE; TIMESTAMPTZ to
 * VARCHAR, TIMESTAMP, DATE or TIME. */
bool lm_tz_cast_handles(lm_type from, lm_type to);
/* Casts every row of a (a->length rows) to `to` into *out (a new
 * reference) in the zone e->tz (UTC when NULL): text is read and written
 * as PostgreSQL does, a TIMESTAMP / DATE is a local time in the zone.
 * Errors: 22007 for text that is not a timestamp (at e's position),
 * LM_ERR_NOMEM. */
int lm_tz_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
               lm_error *err);

#endif
