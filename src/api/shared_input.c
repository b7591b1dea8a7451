/*
 * api/shared_input.c — a window aggregate computed once for two inputs of
 * one query (lm_engine_share_input, engine.h; the rule is
 * lm_plan_same_window_agg in plan/shared_subplan.c).
 *
 * The earlier input's chain is [late filter] -> [WHERE] -> window
 * aggregate -> (its consumer); a tee after the window aggregate also
 * sends its batches and watermarks through a projection selecting the
 * later input's columns into the later input's consumer. The later input
 * keeps its entry in q->ins (node dispatch, replay and EXPLAIN count one
 * entry per read of a node) with a head that discards what it receives.
 */
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"

int lm_engine_share_input(lm_query *q, const lm_join_input *ji,
                          lm_operator *head, lm_node *in, bool *shared,
                          lm_error *err) {
  *shared = false;
  lm_plan *c = ji->sub;
  if (!c || c->join || q->late_to || ji->info.changelog || c->n_out > 1024)
    return 0;
  int map[1024];
  lm_operator *w = NULL;
  for (int k = 0; k < q->n_ins && !w; k++) {
    const lm_qinput *e = &q->ins[k];
    if (e->node != in || !e->sub || e->sub_changelog != ji->info.changelog ||
        !lm_plan_same_window_agg(e->sub, c, map))
      continue;
    w = lm_window_aggregate_find(e->head);
  }
  if (!w || !w->next)
    return 0;
  /* the later input's columns out of the earlier's output */
  lm_bexpr **cols = lm_arena_alloc(&c->arena, sizeof *cols * (size_t)c->n_out);
  for (int o = 0; cols && o < c->n_out; o++) {
    lm_bexpr *x = lm_arena_alloc(&c->arena, sizeof *x);
    if (!x) {
      cols = NULL;
      break;
    }
    memset(x, 0, sizeof *x);
    x->kind = LM_BX_COLUMN;
    x->type = c->out_schema->fields[o].type;
    x->col = map[o];
    cols[o] = x;
  }
  lm_operator *pj =
      cols ? lm_op_project_new(cols, c->n_out, c->out_schema) : NULL;
  lm_operator *tee = pj ? lm_op_tee_new(pj) : NULL;
  lm_output_cb none = {NULL, NULL, NULL};
  lm_operator *sink = tee ? lm_op_output_new(none) : NULL;
  void *nn =
      sink ? realloc(q->ins, sizeof *q->ins * (size_t)(q->n_ins + 1)) : NULL;
  if (!nn) {
    if (sink)
      sink->vt->free(sink);
    if (tee) {
      pj->next = NULL;
      tee->vt->free(tee); /* frees pj */
    } else if (pj)
      pj->vt->free(pj);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  q->ins = nn;
  pj->next = head;
  tee->next = w->next;
  w->next = tee;
  memset(&q->ins[q->n_ins], 0, sizeof *q->ins);
  q->ins[q->n_ins].node = in;
  q->ins[q->n_ins++].head = sink;
  *shared = true;
  return 0;
}
