/*
 * Row identities for retractable aggregates (internal to exec/): a 64-bit
 * hash of every column of an input row, so that a retraction (__weight -1)
 * can find the very occurrence its insertion made among equal values that
 * print differently (jsonb '1' / '1.0', float 0 / -0, '1 mon' / '30
 * days'): a group shows its first live row's value, min/max the latest
 * equal value (agg_table.c).
 */
#ifndef LM_AGG_ROWID_H
#define LM_AGG_ROWID_H

#include <stdint.h>

#include "columnar/lm_columnar.h"

/* Fills rid[0..b->num_rows) with a hash of each row's columns but column
 * `skip` (the __weight column; -1 for none): fixed-width values and
 * varbinary bytes exactly (floats by bit pattern), NULL as a marker; nested
 * columns (LIST, STRUCT) count only as NULL or not. Equal rows get equal
 * ids; different rows almost always different ones (a collision only
 * makes a retraction take another equal value's occurrence). Never fails;
 * rid is caller-owned. */
void lm_agg_row_ids(const lm_batch *b, int skip, uint64_t *rid);

#endif
