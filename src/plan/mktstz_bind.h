/*
 * plan/mktstz_bind.h — make_timestamptz (plan/mktstz_bind.c).
 */
#ifndef LM_MKTSTZ_BIND_H
#define LM_MKTSTZ_BIND_H

#include "plan/bind_internal.h"

/* Binds make_timestamptz(y, m, d, h, mi, s [, zone]) call e (6 or 7
 * arguments) as CAST(make_timestamp(y, m, d, h, mi, s) AS timestamptz) or
 * timezone(zone, make_timestamp(...)) for a string constant zone; any
 * other zone (a column, an expression, NULL) is a 7-argument
 * LM_FN_MAKE_TIMESTAMP node that reads the zone per row (expr_datefn.c;
 * 42883 for a zone that is not text). Returns the TIMESTAMPTZ
 * expression, or NULL with c->err set (make_timestamp's and timezone's
 * errors: 22008 for a field out of range, 22023 for an unknown zone). */
lm_bexpr *lm_bind_make_tstz(lm_bctx *c, const lm_expr *e);

#endif
