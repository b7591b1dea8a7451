/*
 * plan/distinct_agg_bind.c — the DISTINCT forms of array_agg, json_agg and
 * jsonb_agg on string_agg(DISTINCT ...) with typed ordering.
 */
#ifndef LM_DISTINCT_AGG_BIND_H
#define LM_DISTINCT_AGG_BIND_H

#include "plan/bind_internal.h"

/* agg(DISTINCT x [ORDER BY x [DESC] [NULLS ...]]) call e, x = e->args[0]
 * bound over the aggregate's input, item = the expression of x's item
 * text (array_out item or JSON text; never NULL): binds, through `agg`
 * (the binder's aggregate()), string_agg(DISTINCT key(x, item) ...) and
 * returns the text expression of the distinct items, in x's order (NULL
 * last unless ORDER BY says otherwise), joined by sep (a static string);
 * NULL when there are no rows. Errors (c->err): 0A000 for an item type
 * with no order here (json, arrays ...), 42P10 for an ORDER BY other than
 * x, as PostgreSQL's. */
lm_bexpr *lm_bind_distinct_items(lm_bctx *c, const lm_expr *e,
                                 const lm_bexpr *x, lm_expr *item,
                                 const char *sep,
                                 lm_bexpr *(*agg)(lm_bctx *, const lm_expr *));

#endif
