/*
 * exec/op_lookup_join.c — LM_JOIN_LOOKUP (lm_join.h): the left input is a
 * stream, the right input the changelog of a table (upserts arrive as
 * -old/+new). The table's current rows are kept per key (the updating
 * join's state, op_join_updating.c); each left row meets them once, when
 * it arrives, and later table changes revise nothing. INNER and LEFT;
 * the output is append-only when the left input is. The output watermark
 * is the left one (a table has no event time).
 */
#include "exec/op_join_internal.h"

lm_operator *lm_join_lookup_new(const lm_join_spec *spec, lm_error *err) {
  if (spec->type != LM_JOIN_INNER && spec->type != LM_JOIN_LEFT) {
    lm_err(err, LM_ERR_BIND,
           "lookup join: only INNER and LEFT joins are supported (a table "
           "row cannot wait for stream rows)");
    return NULL;
  }
  if (spec->ttl_us > 0) {
    lm_err(err, LM_ERR_BIND, "lookup join: 'state.ttl' does not apply");
    return NULL;
  }
  return lm_join_lookup_state_new(spec, err);
}
