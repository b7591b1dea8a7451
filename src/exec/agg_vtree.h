/*
 * An ordered multiset of (group id, value, tiebreak) keys with a signed
 * multiplicity and an optional payload value: the retractable state of the
 * aggregates that cannot be kept as running sums (internal to exec/).
 *
 *   MIN/MAX             key (gid, x, 0),   count = occurrences of x
 *   COUNT/SUM DISTINCT  key (gid, x, 0),   count = references to x
 *   first/last_value    key (gid, seq, 0)  payload x  (arrival order), and
 *                       key (gid, x, seq)  (to find an occurrence of x)
 *
 * It is a treap whose nodes live in one growable pool (indices, not
 * pointers), so a tree of n keys costs one allocation per doubling plus a
 * copy of each VARCHAR key or payload. Every operation is O(log n)
 * expected. Keys of one group are contiguous in key order, so a group's
 * extreme, and a walk over a group (used to merge two groups' states), need
 * no per-group structure.
 */
#ifndef LM_AGG_VTREE_H
#define LM_AGG_VTREE_H

#include <stdbool.h>
#include <stdint.h>

/* How a key or payload value is stored and compared. */
typedef enum lm_vt_kind {
  LM_VT_NONE, /* no payload */
  LM_VT_INT,  /* int64: integers, BOOLEAN, TIMESTAMP, INTERVAL, seq */
  LM_VT_F64,  /* double: NaN above every number (PostgreSQL); -0 == 0 */
  LM_VT_STR,  /* bytes compared with memcmp, shorter first on a tie */
} lm_vt_kind;

/* A value in or out of the tree. For LM_VT_STR, s/len point at bytes that
 * the tree copies on insertion (the caller keeps its own). */
typedef struct lm_vval {
  int64_t i;
  double f;
  const char *s;
  int32_t len;
} lm_vval;

typedef struct lm_vt_node {
  uint32_t gid, prio;
  int32_t l, r; /* child indices; -1 = none; l chains the free list */
  int64_t cnt;  /* multiplicity, > 0 while the node is in the tree */
  int64_t k2;   /* tiebreak key (seq for the value -> occurrence index) */
  union {
    int64_t i;
    double f;
    char *s;
  } k, p;             /* key value, payload value */
  int32_t klen, plen; /* VARCHAR lengths */
} lm_vt_node;

typedef struct lm_vtree {
  lm_vt_kind kind, pkind; /* of the key value and of the payload */
  lm_vt_node *nodes;
  int32_t cap, used, free_list, root;
  int64_t size; /* nodes in the tree */
  uint64_t rng;
} lm_vtree;

/* Initialises an empty tree whose key values are `kind` and payloads
 * `pkind` (LM_VT_NONE for none). Never fails (storage is allocated on the
 * first insertion). */
void lm_vtree_init(lm_vtree *t, lm_vt_kind kind, lm_vt_kind pkind);
/* Frees every node and owned string; the tree is then empty. */
void lm_vtree_free(lm_vtree *t);

/* Adds `delta` (may be negative) to the multiplicity of key (gid, v, k2),
 * inserting it with payload *p (NULL = none) when it is absent, removing it
 * when the multiplicity reaches 0. *old_cnt (if non-NULL) receives the
 * multiplicity before. Returns 0; -1 on out of memory (tree unchanged); -2
 * when the multiplicity would become negative (tree unchanged): a
 * retraction of something never inserted. */
int lm_vtree_add(lm_vtree *t, uint32_t gid, const lm_vval *v, int64_t k2,
                 int64_t delta, const lm_vval *p, int64_t *old_cnt);

/* The node with the smallest / largest key of group gid, or -1 when the
 * group has none. The index is valid until the next change to the tree. */
int32_t lm_vtree_first(const lm_vtree *t, uint32_t gid);
int32_t lm_vtree_last(const lm_vtree *t, uint32_t gid);
/* The node with the largest key (gid, v, *), or -1. */
int32_t lm_vtree_last_with(const lm_vtree *t, uint32_t gid, const lm_vval *v);
/* The node of key (gid, v, k2), or -1. */
int32_t lm_vtree_find(const lm_vtree *t, uint32_t gid, const lm_vval *v,
                      int64_t k2);
/* The first node of group gid whose key value is >= v (any tiebreak), or
 * -1 when there is none. */
int32_t lm_vtree_lower(const lm_vtree *t, uint32_t gid, const lm_vval *v);
/* The node following node `n` in key order within its group, or -1. */
int32_t lm_vtree_next(const lm_vtree *t, int32_t n);

/* A node's key value / payload as an lm_vval (strings borrowed). */
lm_vval lm_vtree_key(const lm_vtree *t, int32_t n);
lm_vval lm_vtree_payload(const lm_vtree *t, int32_t n);

/* Removes every key of group gid (used when a group's state is reset or
 * merged away). */
void lm_vtree_drop_group(lm_vtree *t, uint32_t gid);

#endif
