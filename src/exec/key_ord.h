/*
 * An order-preserving byte encoding of SQL array (LIST) and INTERVAL_MDN
 * values, for the aggregates that keep values as bytes compared with
 * memcmp (count(DISTINCT arr), min/max(arr): agg_table.c). Arrays order
 * as PostgreSQL's array_cmp: item by item, a NULL item above every value,
 * then the shorter array first; INTERVAL_MDN values by their span
 * (interval_cmp: '1 mon' = '30 days').
 */
#ifndef LM_KEY_ORD_H
#define LM_KEY_ORD_H

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"

/* Appends row r of a (a LIST or INTERVAL_MDN array; the row not NULL) to
 * o. Equal values (as GROUP BY compares them) give equal bytes, and memcmp
 * of two encodings orders them as PostgreSQL does. Returns 0, or
 * LM_ERR_NOMEM (o then holds a partial encoding). */
int lm_ord_encode(lm_buf *o, const lm_array *a, int64_t r);

/* Appends the value encoded at p[0, len) (lm_ord_encode of a value of
 * type t) to b as one row. An INTERVAL_MDN comes back as its span in days
 * and microseconds (its months are not kept). */
void lm_ord_decode(lm_builder *b, lm_type t, const char *p, int32_t len);

#endif
