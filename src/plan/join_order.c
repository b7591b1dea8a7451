/*
 * plan/join_order.c — the order of an inner join's relations for ad-hoc
 * queries (api/setop.c rewrites `FROM a, b, c WHERE ...` into it): start
 * with the smallest relation, then join, step by step, the smallest one
 * connected by an equality to those already joined, so that every step is
 * a hash join on a key instead of a cross product; a relation connected to
 * nothing joined so far comes last (smallest first). Streaming joins keep
 * the user's order (their state layout depends on it).
 */
#include <stdlib.h>
#include <string.h>

#include "plan/lm_plan.h"

void lm_join_order_greedy(int n, const int64_t *rows, const int *edge_a,
                          const int *edge_b, int n_edges, int *order) {
  if (n <= 0)
    return;
  bool used[LM_JOIN_ORDER_MAX];
  memset(used, 0, sizeof used);
  if (n > LM_JOIN_ORDER_MAX) { /* never reordered */
    for (int i = 0; i < n; i++)
      order[i] = i;
    return;
  }
  for (int k = 0; k < n; k++) {
    int best = -1;
    bool best_conn = false;
    for (int i = 0; i < n; i++) {
      if (used[i])
        continue;
      bool conn = false;
      for (int e = 0; e < n_edges && !conn; e++) {
        int o = edge_a[e] == i ? edge_b[e] : edge_b[e] == i ? edge_a[e] : -1;
        if (o >= 0 && o != i && used[o])
          conn = true;
        /* the first relation: prefer one that has an equality at all */
        if (k == 0 && o >= 0 && o != i)
          conn = true;
      }
      if (best < 0 || (conn && !best_conn) ||
          (conn == best_conn && rows[i] < rows[best])) {
        best = i;
        best_conn = conn;
      }
    }
    used[best] = true;
    order[k] = best;
  }
}
