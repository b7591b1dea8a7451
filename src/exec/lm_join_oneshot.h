/*
 * exec/ — the one-shot hash join of an ad-hoc SELECT (api/select.c): both
 * inputs complete and append-only, joined once, the output streamed to a
 * callback batch by batch (no operator, no state kept afterwards).
 */
#ifndef LM_JOIN_ONESHOT_H
#define LM_JOIN_ONESHOT_H

#include "exec/lm_join.h"

/* Whether lm_join_oneshot can run `spec` over the batches side[0],
 * side[1] (each of spec->side[s].schema, no __weight): algo UPDATING
 * without TTL, neither side a changelog, and key columns of one plain type
 * on both sides (integer-like, DATE/TIME/TIMESTAMP/INTERVAL µs, REAL,
 * DOUBLE, BOOLEAN, VARCHAR/BINARY except jsonb); other shapes keep the
 * updating join. */
bool lm_join_oneshot_ok(const lm_join_spec *spec, lm_batch *const side[2]);

/* Joins side[0] (left) and side[1] (right), both borrowed, as `spec` says
 * (INNER/LEFT/RIGHT/FULL/SEMI/ANTI, keys, residual, pruned columns; see
 * lm_join.h), and passes the joined rows to out.batch as batches of
 * spec->out_schema (which must have no __weight column: the output is
 * append-only) of at most 65,536 rows each, borrowed by the callback.
 * The smaller side (side 0 on a tie) is hashed (open addressing on the
 * keys' 64-bit hash, duplicates chained in input order); the other is
 * probed in slices of 65,536 rows. Order: the probe side's rows in input
 * order, each with its matches in the hashed side's input order, a
 * preserved probe row without a match NULL-padded in its place; the hashed
 * side's rows without a match (RIGHT/LEFT/FULL padding, or its SEMI/ANTI
 * rows) at the end, in input order. A NULL key matches nothing; a pair
 * matches when the keys are equal (REAL/DOUBLE: -0 = 0, NaN = NaN) and the
 * residual is TRUE. *rows receives the number of rows passed (may be
 * NULL). Errors: the residual's (prefixed "join condition: "), the
 * callback's, LM_ERR_NOMEM. */
int lm_join_oneshot(const lm_join_spec *spec, lm_batch *const side[2],
                    lm_output_cb out, int64_t *rows, lm_error *err);

#endif
