/*
 * plan/json_agg_bind.h — json_agg, jsonb_agg, json_object_agg,
 * jsonb_object_agg (plan/json_agg_bind.c).
 */
#ifndef LM_JSON_AGG_BIND_H
#define LM_JSON_AGG_BIND_H

#include "plan/bind_internal.h"

/* Whether n (lower case) is one of the JSON aggregates. */
bool lm_bind_is_json_agg(const char *n);

/* Binds JSON aggregate call e (its name one of lm_bind_is_json_agg's) as
 * CAST('[' || string_agg(json:agg_item(x), ', ' ...) || ']' AS json),
 * string_agg bound by `agg` (the binder's aggregate binder) with e's ORDER
 * BY and FILTER; the object aggregates as '{ ' ... ' }'. Returns the bound
 * expression (json or jsonb; NULL over no rows), or NULL with c->err set:
 * 42883 for a wrong argument count, 0A000 for DISTINCT, the argument's
 * and string_agg's errors. */
lm_bexpr *lm_bind_json_agg(lm_bctx *c, const lm_expr *e,
                           lm_bexpr *(*agg)(lm_bctx *, const lm_expr *));

#endif
