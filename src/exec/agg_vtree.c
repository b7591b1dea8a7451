/* The ordered multiset behind retractable aggregates (see agg_vtree.h). */
#include "exec/agg_vtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lm_vtree_init(lm_vtree *t, lm_vt_kind kind, lm_vt_kind pkind) {
  memset(t, 0, sizeof *t);
  t->kind = kind;
  t->pkind = pkind;
  t->root = -1;
  t->free_list = -1;
  t->rng = 0x9e3779b97f4a7c15ULL;
}

static void free_node_strings(lm_vtree *t, lm_vt_node *n) {
  if (t->kind == LM_VT_STR)
    free(n->k.s);
  if (t->pkind == LM_VT_STR)
    free(n->p.s);
  n->k.s = NULL;
  n->p.s = NULL;
}

static void free_subtree(lm_vtree *t, int32_t n) {
  while (n >= 0) {
    free_subtree(t, t->nodes[n].l);
    free_node_strings(t, &t->nodes[n]);
    n = t->nodes[n].r;
  }
}

void lm_vtree_free(lm_vtree *t) {
  if (t->nodes)
    free_subtree(t, t->root);
  free(t->nodes);
  lm_vtree_init(t, t->kind, t->pkind);
}

static int cmp_f64(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) ? (isnan(b) ? 0 : 1) : -1;
  return (a > b) - (a < b);
}

/* Compares the value v with node n's key value. */
static int cmp_val(const lm_vtree *t, const lm_vval *v, const lm_vt_node *n) {
  switch (t->kind) {
  case LM_VT_F64:
    return cmp_f64(v->f, n->k.f);
  case LM_VT_STR: {
    int32_t m = v->len < n->klen ? v->len : n->klen;
    int c = m ? memcmp(v->s, n->k.s, (size_t)m) : 0;
    if (c)
      return c < 0 ? -1 : 1;
    return (v->len > n->klen) - (v->len < n->klen);
  }
  default:
    return (v->i > n->k.i) - (v->i < n->k.i);
  }
}

/* Compares key (gid, v, k2) with node n's key. */
static int cmp_key(const lm_vtree *t, uint32_t gid, const lm_vval *v,
                   int64_t k2, const lm_vt_node *n) {
  if (gid != n->gid)
    return gid < n->gid ? -1 : 1;
  int c = cmp_val(t, v, n);
  if (c)
    return c;
  return (k2 > n->k2) - (k2 < n->k2);
}

static int32_t merge(lm_vtree *t, int32_t a, int32_t b) {
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  lm_vt_node *N = t->nodes;
  if (N[a].prio > N[b].prio) {
    N[a].r = merge(t, N[a].r, b);
    return a;
  }
  N[b].l = merge(t, a, N[b].l);
  return b;
}

/* Splits subtree n into keys < (gid, v, k2) and keys >= it. */
static void split(lm_vtree *t, int32_t n, uint32_t gid, const lm_vval *v,
                  int64_t k2, int32_t *lo, int32_t *hi) {
  if (n < 0) {
    *lo = *hi = -1;
    return;
  }
  lm_vt_node *N = t->nodes;
  if (cmp_key(t, gid, v, k2, &N[n]) > 0) { /* node < key */
    int32_t a, b;
    split(t, N[n].r, gid, v, k2, &a, &b);
    t->nodes[n].r = a;
    *lo = n;
    *hi = b;
  } else {
    int32_t a, b;
    split(t, N[n].l, gid, v, k2, &a, &b);
    t->nodes[n].l = b;
    *lo = a;
    *hi = n;
  }
}

static int32_t find(const lm_vtree *t, uint32_t gid, const lm_vval *v,
                    int64_t k2) {
  int32_t n = t->root;
  while (n >= 0) {
    int c = cmp_key(t, gid, v, k2, &t->nodes[n]);
    if (!c)
      return n;
    n = c < 0 ? t->nodes[n].l : t->nodes[n].r;
  }
  return -1;
}

static int32_t erase(lm_vtree *t, int32_t n, uint32_t gid, const lm_vval *v,
                     int64_t k2) {
  if (n < 0)
    return n;
  lm_vt_node *N = t->nodes;
  int c = cmp_key(t, gid, v, k2, &N[n]);
  if (c < 0) {
    N[n].l = erase(t, N[n].l, gid, v, k2);
    return n;
  }
  if (c > 0) {
    N[n].r = erase(t, N[n].r, gid, v, k2);
    return n;
  }
  int32_t m = merge(t, N[n].l, N[n].r);
  free_node_strings(t, &t->nodes[n]);
  t->nodes[n].l = t->free_list;
  t->free_list = n;
  t->size--;
  return m;
}

static int copy_val(lm_vt_kind kind, const lm_vval *v, int64_t *i, double *f,
                    char **s, int32_t *len) {
  switch (kind) {
  case LM_VT_STR: {
    char *c = malloc((size_t)v->len + 1);
    if (!c)
      return -1;
    if (v->len)
      memcpy(c, v->s, (size_t)v->len);
    c[v->len] = 0;
    *s = c;
    *len = v->len;
    return 0;
  }
  case LM_VT_F64:
    *f = v->f;
    return 0;
  case LM_VT_INT:
    *i = v->i;
    return 0;
  default:
    return 0;
  }
}

static int32_t new_node(lm_vtree *t) {
  if (t->free_list >= 0) {
    int32_t n = t->free_list;
    t->free_list = t->nodes[n].l;
    return n;
  }
  if (t->used == t->cap) {
    if (t->cap >= INT32_MAX / 2)
      return -1;
    int32_t cap = t->cap ? t->cap * 2 : 16;
    lm_vt_node *nn = realloc(t->nodes, sizeof *nn * (size_t)cap);
    if (!nn)
      return -1;
    t->nodes = nn;
    t->cap = cap;
  }
  return t->used++;
}

int lm_vtree_add(lm_vtree *t, uint32_t gid, const lm_vval *v, int64_t k2,
                 int64_t delta, const lm_vval *p, int64_t *old_cnt) {
  int32_t n = find(t, gid, v, k2);
  int64_t old = n >= 0 ? t->nodes[n].cnt : 0;
  if (old_cnt)
    *old_cnt = old;
  int64_t now;
  if (__builtin_add_overflow(old, delta, &now) || now < 0)
    return -2;
  if (delta == 0)
    return 0;
  if (n >= 0) {
    if (now > 0)
      t->nodes[n].cnt = now;
    else
      t->root = erase(t, t->root, gid, v, k2);
    return 0;
  }
  int32_t x = new_node(t);
  if (x < 0)
    return -1;
  lm_vt_node *N = &t->nodes[x];
  memset(N, 0, sizeof *N);
  N->gid = gid;
  N->k2 = k2;
  N->cnt = now;
  N->l = N->r = -1;
  t->rng ^= t->rng << 13;
  t->rng ^= t->rng >> 7;
  t->rng ^= t->rng << 17;
  N->prio = (uint32_t)(t->rng >> 32);
  int64_t ki = 0, pi = 0;
  double kf = 0, pf = 0;
  char *ks = NULL, *ps = NULL;
  int32_t kl = 0, pl = 0;
  if (copy_val(t->kind, v, &ki, &kf, &ks, &kl) ||
      (p && copy_val(t->pkind, p, &pi, &pf, &ps, &pl))) {
    free(ks);
    N->l = t->free_list;
    t->free_list = x;
    return -1;
  }
  if (t->kind == LM_VT_STR)
    N->k.s = ks;
  else if (t->kind == LM_VT_F64)
    N->k.f = kf;
  else
    N->k.i = ki;
  N->klen = kl;
  if (t->pkind == LM_VT_STR)
    N->p.s = ps;
  else if (t->pkind == LM_VT_F64)
    N->p.f = pf;
  else
    N->p.i = pi;
  N->plen = pl;
  int32_t lo, hi;
  split(t, t->root, gid, v, k2, &lo, &hi);
  t->root = merge(t, merge(t, lo, x), hi);
  t->size++;
  return 0;
}

int32_t lm_vtree_first(const lm_vtree *t, uint32_t gid) {
  int32_t n = t->root, best = -1;
  while (n >= 0) {
    if (t->nodes[n].gid >= gid) {
      best = n;
      n = t->nodes[n].l;
    } else {
      n = t->nodes[n].r;
    }
  }
  return best >= 0 && t->nodes[best].gid == gid ? best : -1;
}

int32_t lm_vtree_last(const lm_vtree *t, uint32_t gid) {
  int32_t n = t->root, best = -1;
  while (n >= 0) {
    if (t->nodes[n].gid <= gid) {
      best = n;
      n = t->nodes[n].r;
    } else {
      n = t->nodes[n].l;
    }
  }
  return best >= 0 && t->nodes[best].gid == gid ? best : -1;
}

int32_t lm_vtree_last_with(const lm_vtree *t, uint32_t gid, const lm_vval *v) {
  int32_t n = t->root, best = -1;
  while (n >= 0) {
    const lm_vt_node *N = &t->nodes[n];
    int c = gid != N->gid ? (gid < N->gid ? -1 : 1) : cmp_val(t, v, N);
    if (c >= 0) { /* node's (gid, value) <= (gid, v) */
      if (c == 0)
        best = n;
      n = N->r;
    } else {
      n = N->l;
    }
  }
  return best;
}

int32_t lm_vtree_find(const lm_vtree *t, uint32_t gid, const lm_vval *v,
                      int64_t k2) {
  return find(t, gid, v, k2);
}

int32_t lm_vtree_lower(const lm_vtree *t, uint32_t gid, const lm_vval *v) {
  int32_t n = t->root, best = -1;
  while (n >= 0) {
    const lm_vt_node *N = &t->nodes[n];
    int c = gid != N->gid ? (gid < N->gid ? -1 : 1) : cmp_val(t, v, N);
    if (c <= 0) { /* (gid, v) <= node's (gid, value): a candidate */
      best = n;
      n = N->l;
    } else {
      n = N->r;
    }
  }
  return best >= 0 && t->nodes[best].gid == gid ? best : -1;
}

int32_t lm_vtree_next(const lm_vtree *t, int32_t x) {
  const lm_vt_node *X = &t->nodes[x];
  lm_vval v = lm_vtree_key(t, x);
  int32_t n = t->root, best = -1;
  while (n >= 0) {
    if (cmp_key(t, X->gid, &v, X->k2, &t->nodes[n]) < 0) { /* node > x */
      best = n;
      n = t->nodes[n].l;
    } else {
      n = t->nodes[n].r;
    }
  }
  return best >= 0 && t->nodes[best].gid == X->gid ? best : -1;
}

static lm_vval as_val(lm_vt_kind kind, int64_t i, double f, const char *s,
                      int32_t len) {
  lm_vval v = {0, 0, NULL, 0};
  if (kind == LM_VT_STR) {
    v.s = s;
    v.len = len;
  } else if (kind == LM_VT_F64) {
    v.f = f;
  } else {
    v.i = i;
  }
  return v;
}

lm_vval lm_vtree_key(const lm_vtree *t, int32_t n) {
  const lm_vt_node *N = &t->nodes[n];
  return t->kind == LM_VT_STR   ? as_val(t->kind, 0, 0, N->k.s, N->klen)
         : t->kind == LM_VT_F64 ? as_val(t->kind, 0, N->k.f, NULL, 0)
                                : as_val(t->kind, N->k.i, 0, NULL, 0);
}

lm_vval lm_vtree_payload(const lm_vtree *t, int32_t n) {
  const lm_vt_node *N = &t->nodes[n];
  return t->pkind == LM_VT_STR   ? as_val(t->pkind, 0, 0, N->p.s, N->plen)
         : t->pkind == LM_VT_F64 ? as_val(t->pkind, 0, N->p.f, NULL, 0)
                                 : as_val(t->pkind, N->p.i, 0, NULL, 0);
}

void lm_vtree_drop_group(lm_vtree *t, uint32_t gid) {
  for (int32_t n = lm_vtree_first(t, gid); n >= 0; n = lm_vtree_first(t, gid)) {
    lm_vval v = lm_vtree_key(t, n);
    int64_t k2 = t->nodes[n].k2;
    /* the key's bytes are freed by erase: compare against a copy-free
     * view is fine because erase frees only after the last comparison */
    t->root = erase(t, t->root, gid, &v, k2);
  }
}
