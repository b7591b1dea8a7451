/*
 * plan/whole_row_bind.h — a whole-row reference to a function in FROM
 * (PostgreSQL: `SELECT e FROM jsonb_array_elements(j) e` is the value of
 * e's one column, named value). The relation that runs the call
 * (api/srf_stream.c, api/srf_from.c) adds a hidden name for that column,
 * LM_WHOLE_ROW_PREFIX followed by the alias; the binder falls back to it
 * when a bare name is no column (lm_bind_whole_row).
 */
#ifndef LM_WHOLE_ROW_BIND_H
#define LM_WHOLE_ROW_BIND_H

#include "plan/bind_internal.h"

#define LM_WHOLE_ROW_PREFIX "\x01row:"

/* Whether function item f (one call, no WITH ORDINALITY, an alias) needs
 * the hidden whole-row name: its one column, named col0, is not named as
 * the alias (when it is, the column itself answers). */
bool lm_whole_row_needed(const char *alias, int n_funcs, bool ordinality,
                         const char *col0);

/* The hidden name for alias into buf (of size n); buf. */
const char *lm_whole_row_name(const char *alias, char *buf, size_t n);

/* Bare column name e (no table) as a whole-row reference to a function
 * relation of c's input (its scope, or c->in's fields): the column node, or
 * NULL when there is none (c->err untouched) or on OOM (c->err set). */
lm_bexpr *lm_bind_whole_row(lm_bctx *c, const lm_expr *e);

/* Bare name e (no table) that names no column but a relation of c's input
 * (scope entries or c->from): that row as PostgreSQL's row_to_json prints
 * it, {"a":1,"b":"x"} (each column as to_json, NULL as null, hidden columns
 * left out), an AST CAST(... AS json) in c->arena to bind in c. NULL when
 * e is no such name (c->err untouched) or on OOM (c->err set). For
 * to_json(t), to_jsonb(t), row_to_json(t), json_agg(t), jsonb_agg(t). */
lm_expr *lm_whole_row_json(lm_bctx *c, const lm_expr *e);

#endif
