/* exec/op_over_changelog.c — streaming OVER aggregation over a changelog
 * (updating) input (lm_window_fn.h, docs/window_functions.md).
 *
 * The append-only operator (op_over.c) emits each row once, when the
 * watermark passes it. Over a changelog a row can be retracted later, and
 * an insertion can land before rows already emitted, so this operator keeps
 * every live row of every partition in (time, arrival) order and, for each
 * change, recomputes the rows whose frame it touches:
 *   - ROWS n PRECEDING: the n rows after the changed position;
 *   - RANGE d PRECEDING: the rows whose time is in [t, t + d] (peers, rows
 *     of the same time, included: they share one frame);
 *   - UNBOUNDED PRECEDING: every row after it (and its peers for RANGE).
 * Each live row caches its current result per call; a recomputed row whose
 * result changed is emitted as a retraction (__weight -1) of the old output
 * row, then an insertion (+1) of the new one. The changed row itself is
 * emitted +1 (insertion) or -1 (retraction). Frames are recomputed by a
 * scan (at most n + 1 rows for ROWS n), so the result is exactly what a
 * recompute over the live rows gives, summed in the same order.
 *
 * A retraction removes, among the live rows equal to it in every column,
 * the one inserted last. Rows of the same time are ordered by their values
 * (columns in order, NULLs last), then by arrival: a changelog's arrival
 * order within a batch is an artifact of batching, the values are not.
 * Rows with a NULL time come after every other row (NULLS LAST), as peers.
 * Watermarks pass through; no row is late.
 *
 * State: every live row's slot (its value id, time, arrival number and one
 * cached result and argument per call) and its position in each call's
 * partition; the row values themselves are interned in a group table
 * (every distinct row ever seen is kept there).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/lm_window_fn.h"
#include "exec/op_internal.h"

/* One call's value for one row: its argument or its result. */
typedef lm_over_val cval;

typedef struct plist { /* one partition: live slots in (time, seq) order */
  int32_t *ids;
  int64_t n, cap;
} plist;

typedef struct ccall {
  lm_over_call c;
  lm_over_fn k;
  bool isf;
  lm_aggtable *keys; /* partition keys -> partition id */
  plist *parts;
  int64_t n_parts;
} ccall;

typedef struct slot {
  uint32_t vid;      /* the row's values (o->rows) */
  int32_t next_same; /* the next live slot of the same vid, -1 */
  int64_t seq;       /* arrival */
  int64_t ts;
  bool ts_null;
  bool live;
} slot;

typedef struct overc_op {
  lm_operator base;
  lm_bexpr *where;
  int time_col, weight_col, n_in;
  ccall *calls;
  int n_calls;
  lm_schema *in_schema;  /* the input's columns (no __weight) */
  lm_schema *out_schema; /* input columns, one per call, __weight */
  lm_aggtable *rows;     /* row values -> vid */
  int32_t *vid_top;      /* vid -> last live slot inserted, -1 */
  int64_t cap_vid;
  /* vid -> its sort key (the row's values, memcmp order), in kb */
  uint8_t *kb;
  int64_t kb_len, kb_cap;
  int64_t *k_off; /* n_keyed + 1 offsets */
  int64_t n_keyed, cap_koff;
  slot *slots;
  uint32_t *pid; /* slot * n_calls + c: partition of the slot in call c */
  cval *arg;     /* slot * n_calls + c: the argument */
  cval *res;     /* slot * n_calls + c: the current result */
  int64_t *mark; /* slot: the change that last touched it */
  int64_t n_slots, cap_slots, n_live;
  int32_t free_head; /* free slots, linked through next_same */
  int64_t seq, epoch;
  /* the output being built: value id, results, weight per row */
  uint32_t *o_vid;
  cval *o_res;
  int64_t *o_w;
  int64_t o_n, o_cap;
  int32_t *aff; /* scratch: the slots a change touches */
  int64_t n_aff, cap_aff;
  lm_arena *arena;
} overc_op;

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  int64_t nc = *cap ? *cap : 16;
  while (nc < need)
    nc *= 2;
  void *np = realloc(*p, elem * (size_t)nc);
  if (!np)
    return -1;
  *p = np;
  *cap = nc;
  return 0;
}

/* (time, row values, seq) order; NULL times last. */
static int slot_cmp(const overc_op *o, int32_t a, int32_t b) {
  const slot *x = &o->slots[a], *y = &o->slots[b];
  if (x->ts_null != y->ts_null)
    return x->ts_null ? 1 : -1;
  if (!x->ts_null && x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->vid != y->vid) {
    int64_t xo = o->k_off[x->vid], xl = o->k_off[x->vid + 1] - xo;
    int64_t yo = o->k_off[y->vid], yl = o->k_off[y->vid + 1] - yo;
    int c = memcmp(o->kb + xo, o->kb + yo, (size_t)(xl < yl ? xl : yl));
    if (c || xl != yl)
      return c ? c : xl < yl ? -1 : 1;
  }
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int kb_put(overc_op *o, const void *p, int64_t n) {
  if (grow((void **)&o->kb, &o->kb_cap, o->kb_len + n, 1))
    return -1;
  memcpy(o->kb + o->kb_len, p, (size_t)n);
  o->kb_len += n;
  return 0;
}

static int kb_u64(overc_op *o, uint64_t v) { /* big-endian */
  uint8_t b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (uint8_t)(v >> (56 - 8 * i));
  return kb_put(o, b, 8);
}

/* Appends the sort key of row r of `in` (its columns in order, NULLs last;
 * integers and times signed, floats by value, strings by bytes) for the
 * next vid. */
static int add_sort_key(overc_op *o, const lm_batch *in, int64_t r) {
  if (grow((void **)&o->k_off, &o->cap_koff, o->n_keyed + 2, sizeof(int64_t)))
    return -1;
  if (!o->n_keyed)
    o->k_off[0] = 0;
  int rc = 0;
  const uint64_t sb = UINT64_C(1) << 63;
  for (int c = 0; !rc && c < o->n_in; c++) {
    const lm_array *a = in->columns[c];
    lm_value v;
    lm_array_get_value(a, r, &v);
    uint8_t tag = v.is_null ? 2 : 1;
    if ((rc = kb_put(o, &tag, 1)) || v.is_null)
      continue;
    switch (a->type.id) {
    case LM_TYPE_BOOL:
      rc = kb_u64(o, v.v.b);
      break;
    case LM_TYPE_FLOAT16:
    case LM_TYPE_FLOAT32:
    case LM_TYPE_FLOAT64: {
      uint64_t bits;
      double f = v.v.f == 0 ? 0.0 : v.v.f;
      memcpy(&bits, &f, sizeof bits);
      rc = kb_u64(o, bits & sb ? ~bits : bits ^ sb);
      break;
    }
    case LM_TYPE_UTF8:
    case LM_TYPE_LARGE_UTF8:
    case LM_TYPE_BINARY:
    case LM_TYPE_LARGE_BINARY:
    case LM_TYPE_FIXED_SIZE_BINARY: {
      static const uint8_t esc[2] = {0, 0xff}, end[2] = {0, 0};
      for (int32_t i = 0; !rc && i < v.v.s.len; i++)
        rc = v.v.s.p[i] ? kb_put(o, v.v.s.p + i, 1) : kb_put(o, esc, 2);
      if (!rc)
        rc = kb_put(o, end, 2);
      break;
    }
    case LM_TYPE_DECIMAL128:
      rc = kb_u64(o, (uint64_t)v.v.d128.hi ^ sb);
      if (!rc)
        rc = kb_u64(o, v.v.d128.lo);
      break;
    case LM_TYPE_INTERVAL_MDN:
      rc = kb_u64(o, (uint64_t)(int64_t)v.v.mdn.months ^ sb);
      if (!rc)
        rc = kb_u64(o, (uint64_t)(int64_t)v.v.mdn.days ^ sb);
      if (!rc)
        rc = kb_u64(o, (uint64_t)v.v.mdn.ns ^ sb);
      break;
    case LM_TYPE_LIST:
    case LM_TYPE_LARGE_LIST:
    case LM_TYPE_STRUCT:
    case LM_TYPE_DICTIONARY:
      break; /* not ordered: equal times and values rank by arrival */
    default:
      rc = kb_u64(o, (uint64_t)v.v.i ^ sb);
    }
  }
  if (rc)
    return -1;
  o->k_off[++o->n_keyed] = o->kb_len;
  return 0;
}

/* The index of the first element of L not before slot s (s's position when
 * it is in L). */
static int64_t lower_bound(const overc_op *o, const plist *L, int32_t s) {
  int64_t lo = 0, hi = L->n;
  while (lo < hi) {
    int64_t m = lo + (hi - lo) / 2;
    if (slot_cmp(o, L->ids[m], s) < 0)
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}

/* Whether slot q's time is within [t, t + d] of slot s's (d < 0: any
 * later time), i.e. whether s lies in q's RANGE frame; peers included. */
static bool range_reaches(const overc_op *o, int32_t s, int32_t q, int64_t d) {
  const slot *x = &o->slots[s], *y = &o->slots[q];
  if (x->ts_null || y->ts_null)
    return y->ts_null && (x->ts_null || d < 0);
  return y->ts >= x->ts && (d < 0 || y->ts <= lm_sat_add(x->ts, d));
}

static int add_aff(overc_op *o, int32_t s) {
  if (o->mark[s] == o->epoch)
    return 0;
  o->mark[s] = o->epoch;
  if (grow((void **)&o->aff, &o->cap_aff, o->n_aff + 1, sizeof *o->aff))
    return -1;
  o->aff[o->n_aff++] = s;
  return 0;
}

/* Adds the slots of L whose frame in call cc includes position pos (the
 * changed slot s, at pos in L or just removed from there; `after` is the
 * first index after s). */
static int collect(overc_op *o, const ccall *cc, const plist *L, int32_t s,
                   int64_t pos, int64_t after) {
  int64_t k = cc->c.preceding;
  if (cc->c.unit == LM_FRAME_ROWS) {
    int64_t end = k < 0 ? L->n : after + k < L->n ? after + k : L->n;
    for (int64_t i = after; i < end; i++)
      if (add_aff(o, L->ids[i]))
        return -1;
    return 0;
  }
  for (int64_t i = pos - 1; i >= 0 && range_reaches(o, s, L->ids[i], 0); i--)
    if (add_aff(o, L->ids[i])) /* earlier peers */
      return -1;
  for (int64_t i = after; i < L->n && range_reaches(o, s, L->ids[i], k); i++)
    if (add_aff(o, L->ids[i]))
      return -1;
  return 0;
}

/* The result of call cc for slot s (in L at pos). */
static int compute(const overc_op *o, int c, const plist *L, int64_t pos,
                   cval *out, lm_error *err) {
  const ccall *cc = &o->calls[c];
  const slot *me = &o->slots[L->ids[pos]];
  int64_t lo = 0, hi = pos, k = cc->c.preceding;
  if (cc->c.unit == LM_FRAME_ROWS) {
    if (k >= 0 && pos - k > 0)
      lo = pos - k;
  } else {
    while (hi + 1 < L->n) {
      const slot *y = &o->slots[L->ids[hi + 1]];
      if (y->ts_null != me->ts_null || (!me->ts_null && y->ts != me->ts))
        break;
      hi++;
    }
    if (k >= 0) {
      lo = pos;
      if (me->ts_null) {
        while (lo > 0 && o->slots[L->ids[lo - 1]].ts_null)
          lo--;
      } else {
        int64_t from = lm_sat_add(me->ts, -k);
        while (lo > 0 && o->slots[L->ids[lo - 1]].ts >= from)
          lo--;
      }
    }
  }
  lm_over_frame fr = {0};
  fr.rows = hi - lo + 1;
  bool mm = cc->k == LM_OVER_MIN || cc->k == LM_OVER_MAX;
  for (int64_t i = lo; i <= hi; i++) {
    const cval *v = &o->arg[(int64_t)L->ids[i] * o->n_calls + c];
    if (v->null)
      continue;
    if (mm) {
      if (!fr.cnt || lm_over_better(cc->k, cc->isf, v, fr.bi, fr.bf)) {
        fr.bi = v->i;
        fr.bf = v->f;
      }
    } else if (cc->isf) {
      fr.fsum += v->f;
    } else {
      fr.isum += v->i;
    }
    fr.cnt++;
  }
  fr.any = fr.cnt > 0;
  return lm_over_result(&fr, cc->k, cc->isf, cc->c.arg != NULL, cc->c.out_type,
                        out, err);
}

/* Whether two results of type t are the same value. */
static bool cval_eq(const cval *a, const cval *b, lm_type_id t) {
  if (a->null || b->null)
    return a->null == b->null;
  if (t == LM_TYPE_FLOAT64) /* bitwise: NaN equals itself, -0.0 != 0.0 */
    return !memcmp(&a->f, &b->f, sizeof a->f);
  if (t == LM_TYPE_DECIMAL128) /* numeric: the unscaled value */
    return a->d[0] == b->d[0] && a->d[1] == b->d[1];
  return a->i == b->i;
}

/* Appends an output row: slot s's values with results r, weight w. */
static int out_row(overc_op *o, int32_t s, const cval *r, int64_t w) {
  if (grow((void **)&o->o_vid, &o->o_cap, o->o_n + 1, sizeof *o->o_vid))
    return -1;
  int64_t cap = o->o_cap;
  cval *nr = realloc(o->o_res, sizeof *nr * (size_t)(cap * o->n_calls + 1));
  int64_t *nw = nr ? realloc(o->o_w, sizeof *nw * (size_t)cap) : NULL;
  if (nr)
    o->o_res = nr;
  if (nw)
    o->o_w = nw;
  if (!nr || !nw)
    return -1;
  o->o_vid[o->o_n] = o->slots[s].vid;
  memcpy(&o->o_res[o->o_n * o->n_calls], r, sizeof *r * (size_t)o->n_calls);
  o->o_w[o->o_n] = w;
  o->o_n++;
  return 0;
}

/* Recomputes every call of the affected slots; emits -old/+new for the
 * ones that changed (all retractions first). */
static int refresh(overc_op *o, lm_error *err) {
  int nc = o->n_calls;
  cval *nv = malloc(sizeof *nv * (size_t)(nc * o->n_aff + 1));
  bool *changed = malloc(sizeof *changed * (size_t)(o->n_aff + 1));
  if (!nv || !changed) {
    free(nv);
    free(changed);
    return nomem(err);
  }
  int rc = 0;
  for (int64_t a = 0; !rc && a < o->n_aff; a++) {
    int32_t s = o->aff[a];
    changed[a] = false;
    for (int c = 0; !rc && c < nc; c++) {
      const plist *L = &o->calls[c].parts[o->pid[(int64_t)s * nc + c]];
      rc = compute(o, c, L, lower_bound(o, L, s), &nv[a * nc + c], err);
      if (!rc && !cval_eq(&nv[a * nc + c], &o->res[(int64_t)s * nc + c],
                          o->calls[c].c.out_type.id))
        changed[a] = true;
    }
  }
  for (int64_t a = 0; !rc && a < o->n_aff; a++)
    if (changed[a] &&
        out_row(o, o->aff[a], &o->res[(int64_t)o->aff[a] * nc], -1))
      rc = nomem(err);
  for (int64_t a = 0; !rc && a < o->n_aff; a++)
    if (changed[a]) {
      memcpy(&o->res[(int64_t)o->aff[a] * nc], &nv[a * nc],
             sizeof *nv * (size_t)nc);
      if (out_row(o, o->aff[a], &nv[a * nc], +1))
        rc = nomem(err);
    }
  free(nv);
  free(changed);
  return rc;
}

static int new_slot(overc_op *o, int32_t *out) {
  if (o->free_head >= 0) {
    *out = o->free_head;
    o->free_head = o->slots[*out].next_same;
    return 0;
  }
  int64_t need = o->n_slots + 1;
  if (need > INT32_MAX)
    return -1;
  if (need > o->cap_slots) {
    int64_t nc = o->cap_slots ? o->cap_slots * 2 : 64;
    int n = o->n_calls;
    slot *ns = realloc(o->slots, sizeof *ns * (size_t)nc);
    if (ns)
      o->slots = ns;
    uint32_t *np = realloc(o->pid, sizeof *np * (size_t)(nc * n + 1));
    if (np)
      o->pid = np;
    cval *na = realloc(o->arg, sizeof *na * (size_t)(nc * n + 1));
    if (na)
      o->arg = na;
    cval *nr = realloc(o->res, sizeof *nr * (size_t)(nc * n + 1));
    if (nr)
      o->res = nr;
    int64_t *nm = realloc(o->mark, sizeof *nm * (size_t)nc);
    if (nm)
      o->mark = nm;
    if (!ns || !np || !na || !nr || !nm)
      return -1;
    for (int64_t i = o->cap_slots; i < nc; i++)
      o->mark[i] = 0;
    o->cap_slots = nc;
  }
  *out = (int32_t)o->n_slots++;
  return 0;
}

static int plist_insert(plist *L, int64_t pos, int32_t s) {
  if (grow((void **)&L->ids, &L->cap, L->n + 1, sizeof *L->ids))
    return -1;
  memmove(L->ids + pos + 1, L->ids + pos,
          sizeof *L->ids * (size_t)(L->n - pos));
  L->ids[pos] = s;
  L->n++;
  return 0;
}

/* Inserts row r of the batch: vid, partition ids pids[c], arguments
 * args[c], time. */
static int insert_row(overc_op *o, uint32_t vid, const uint32_t *pids,
                      const cval *args, int64_t ts, bool ts_null,
                      lm_error *err) {
  int32_t s;
  if (new_slot(o, &s))
    return nomem(err);
  int nc = o->n_calls;
  slot *sl = &o->slots[s];
  sl->vid = vid;
  sl->seq = o->seq++;
  sl->ts = ts_null ? 0 : ts;
  sl->ts_null = ts_null;
  sl->live = true;
  sl->next_same = o->vid_top[vid];
  o->vid_top[vid] = s;
  o->n_live++;
  o->epoch++;
  o->n_aff = 0;
  o->mark[s] = o->epoch; /* not among the affected: emitted below */
  for (int c = 0; c < nc; c++) {
    o->pid[(int64_t)s * nc + c] = pids[c];
    o->arg[(int64_t)s * nc + c] = args[c];
  }
  int rc = 0;
  for (int c = 0; !rc && c < nc; c++) {
    plist *L = &o->calls[c].parts[pids[c]];
    int64_t pos = lower_bound(o, L, s);
    if (plist_insert(L, pos, s) || collect(o, &o->calls[c], L, s, pos, pos + 1))
      rc = nomem(err);
  }
  for (int c = 0; !rc && c < nc; c++) {
    const plist *L = &o->calls[c].parts[pids[c]];
    rc = compute(o, c, L, lower_bound(o, L, s), &o->res[(int64_t)s * nc + c],
                 err);
  }
  if (!rc && out_row(o, s, &o->res[(int64_t)s * nc], +1))
    rc = nomem(err);
  return rc ? rc : refresh(o, err);
}

/* Retracts the last live row inserted with value vid. 1 when there is
 * none. */
static int retract_row(overc_op *o, uint32_t vid, lm_error *err) {
  int32_t s = o->vid_top[vid];
  if (s < 0)
    return 1;
  int nc = o->n_calls;
  slot *sl = &o->slots[s];
  o->vid_top[vid] = sl->next_same;
  o->epoch++;
  o->n_aff = 0;
  o->mark[s] = o->epoch;
  int rc = 0;
  if (out_row(o, s, &o->res[(int64_t)s * nc], -1))
    return nomem(err);
  for (int c = 0; !rc && c < nc; c++) {
    plist *L = &o->calls[c].parts[o->pid[(int64_t)s * nc + c]];
    int64_t pos = lower_bound(o, L, s);
    if (collect(o, &o->calls[c], L, s, pos, pos + 1))
      rc = nomem(err);
    memmove(L->ids + pos, L->ids + pos + 1,
            sizeof *L->ids * (size_t)(L->n - pos - 1));
    L->n--;
  }
  sl->live = false;
  sl->next_same = o->free_head;
  o->free_head = s;
  o->n_live--;
  return rc ? rc : refresh(o, err);
}

/* The partition id of each row of e for call c (grows its partitions). */
static int part_ids(ccall *s, const lm_batch *e, uint32_t *gid, lm_error *err) {
  int64_t need;
  int rc = lm_over_part_ids(&s->c, &s->keys, e, gid, &need, err);
  if (rc)
    return rc;
  if (need > s->n_parts) {
    plist *np = realloc(s->parts, sizeof *np * (size_t)need);
    if (!np)
      return nomem(err);
    memset(np + s->n_parts, 0, sizeof *np * (size_t)(need - s->n_parts));
    s->parts = np;
    s->n_parts = need;
  }
  return 0;
}

/* Builds and emits the output rows gathered so far. */
static int flush(overc_op *o, lm_error *err) {
  if (!o->o_n)
    return 0;
  int64_t n = o->o_n;
  int nin = o->n_in, nc = o->n_calls;
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, o->in_schema, n))
    return nomem(err);
  int rc = lm_aggtable_emit(o->rows, o->o_vid, n, &bb, err);
  lm_batch *keys = NULL;
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &keys, err);
  lm_batch_builder_free(&bb);
  lm_array **cols = calloc((size_t)(nin + nc + 1), sizeof *cols);
  if (!rc && !cols)
    rc = nomem(err);
  for (int c = 0; !rc && c < nin; c++)
    cols[c] = lm_array_retain(keys->columns[c]);
  for (int c = 0; !rc && c <= nc; c++) {
    lm_builder b;
    lm_type t = c < nc ? o->calls[c].c.out_type : lm_type_make(LM_TYPE_INT64);
    if (lm_builder_init(&b, t, n)) {
      rc = nomem(err);
      break;
    }
    for (int64_t r = 0; r < n; r++) {
      if (c == nc) {
        lm_builder_append_int(&b, o->o_w[r]);
        continue;
      }
      lm_over_append(&b, &o->o_res[r * nc + c], t.id);
    }
    if (lm_builder_finish(&b, &cols[nin + c]))
      rc = nomem(err);
    lm_builder_free(&b);
  }
  lm_batch_release(keys);
  lm_batch *out = NULL;
  if (!rc) {
    out = lm_batch_new(lm_schema_retain(o->out_schema), n, cols);
    if (!out)
      rc = nomem(err);
    else
      memset(cols, 0, sizeof *cols * (size_t)(nin + nc + 1));
  }
  if (cols)
    for (int c = 0; c < nin + nc + 1; c++)
      lm_array_release(cols[c]);
  free(cols);
  o->o_n = 0;
  if (!rc)
    rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

static int overc_push(lm_operator *op, lm_batch *b, lm_error *err) {
  overc_op *o = (overc_op *)op;
  if (o->weight_col >= b->num_columns ||
      b->columns[o->weight_col]->type.id != LM_TYPE_INT64)
    return lm_err(err, LM_ERR_EXEC,
                  "internal error: changelog input without __weight");
  lm_batch *in;
  int wrc = lm_batch_where(o->where, b, &in, err);
  if (wrc)
    return wrc;
  int64_t n = in->num_rows;
  int nc = o->n_calls, rc = 0;
  if (!n) {
    lm_batch_release(in);
    return 0;
  }
  /* A row of weight w is |w| insertions or retractions, one slot each: the
   * rows a batch expands to, with the live ones, are bounded as a view's
   * consolidation bounds them (lm_changelog_consolidate): INT32_MAX. */
  const lm_array *wc = in->columns[o->weight_col];
  int64_t total = o->n_live;
  for (int64_t r = 0; r < n; r++) {
    int64_t w = lm_array_is_null(wc, r) ? 0 : lm_array_get_i64(wc, r);
    if (w < -INT32_MAX || w > INT32_MAX ||
        (total += w < 0 ? -w : w) > INT32_MAX) {
      lm_batch_release(in);
      return lm_err(err, LM_ERR_LIMIT,
                    "changelog too large for a window function over an "
                    "updating input (__weight %lld; at most %d rows)",
                    (long long)w, INT32_MAX);
    }
  }
  uint32_t *vid = malloc(sizeof *vid * (size_t)n);
  uint32_t *pids = malloc(sizeof *pids * (size_t)(n * nc + 1));
  uint32_t *tmp = malloc(sizeof *tmp * (size_t)n);
  cval *args = calloc((size_t)(n * nc + 1), sizeof *args);
  if (!vid || !pids || !tmp || !args)
    rc = nomem(err);
  if (!rc && !o->rows) {
    lm_type kt[256];
    if (o->n_in > 256)
      rc = lm_err(err, LM_ERR_BIND,
                  "a window function over an updating input takes at most "
                  "256 columns");
    for (int k = 0; !rc && k < o->n_in; k++)
      kt[k] = in->columns[k]->type;
    if (!rc && !(o->rows = lm_aggtable_new(o->n_in, kt, 0, NULL)))
      rc = nomem(err);
  }
  if (!rc)
    rc = lm_aggtable_lookup(o->rows, in->columns, NULL, n, vid, err);
  for (int64_t r = 0; !rc && r < n; r++) /* new values: their sort keys */
    if (vid[r] == o->n_keyed && add_sort_key(o, in, r))
      rc = nomem(err);
  if (!rc) {
    int64_t ng = lm_aggtable_groups(o->rows), old = o->cap_vid;
    if (grow((void **)&o->vid_top, &o->cap_vid, ng, sizeof *o->vid_top))
      rc = nomem(err);
    for (int64_t g = old; !rc && g < o->cap_vid; g++)
      o->vid_top[g] = -1;
  }
  for (int c = 0; !rc && c < nc; c++) {
    ccall *cc = &o->calls[c];
    if ((rc = part_ids(cc, in, tmp, err)))
      break;
    lm_array *a = NULL;
    if (cc->c.arg && (rc = lm_eval(cc->c.arg, in, &a, err)))
      break;
    for (int64_t r = 0; r < n; r++) {
      pids[r * nc + c] = tmp[r];
      lm_over_arg(a, r, cc->isf, &args[r * nc + c]);
    }
    lm_array_release(a);
  }
  const lm_array *tc = in->columns[o->time_col];
  for (int64_t r = 0; !rc && r < n; r++) {
    if (lm_array_is_null(wc, r)) {
      rc = lm_err(err, LM_ERR_EXEC, "a changelog row has a NULL __weight");
      break;
    }
    int64_t w = lm_array_get_i64(wc, r);
    bool tn = lm_array_is_null(tc, r);
    int64_t ts = tn ? 0 : lm_array_get_i64(tc, r);
    for (int64_t k = 0; !rc && k < w; k++)
      rc = insert_row(o, vid[r], &pids[r * nc], &args[r * nc], ts, tn, err);
    for (int64_t k = 0; !rc && k < -w; k++) {
      int f = retract_row(o, vid[r], err);
      if (f > 0)
        rc = lm_err(err, LM_ERR_EXEC,
                    "a window function over an updating input received a "
                    "retraction (__weight -1) of a row that is not live");
      else
        rc = f;
    }
  }
  free(vid);
  free(pids);
  free(tmp);
  free(args);
  lm_batch_release(in);
  if (rc) {
    o->o_n = 0;
    return rc;
  }
  return flush(o, err);
}

static int overc_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  return lm_operator_forward_watermark(op, wm, err);
}

static void overc_free(lm_operator *op) {
  overc_op *o = (overc_op *)op;
  for (int c = 0; c < o->n_calls; c++) {
    ccall *s = &o->calls[c];
    for (int64_t i = 0; i < s->n_parts; i++)
      free(s->parts[i].ids);
    free(s->parts);
    lm_aggtable_free(s->keys);
  }
  free(o->calls);
  lm_aggtable_free(o->rows);
  free(o->vid_top);
  free(o->kb);
  free(o->k_off);
  free(o->slots);
  free(o->pid);
  free(o->arg);
  free(o->res);
  free(o->mark);
  free(o->o_vid);
  free(o->o_res);
  free(o->o_w);
  free(o->aff);
  lm_schema_release(o->in_schema);
  lm_schema_release(o->out_schema);
  if (o->arena) {
    lm_arena_free(o->arena);
    free(o->arena);
  }
  free(o);
}

static void overc_state(const lm_operator *op, int64_t *rows, int64_t *bytes) {
  const overc_op *o = (const overc_op *)op;
  *rows = o->n_live;
  *bytes = o->cap_slots * (int64_t)(sizeof(slot) + sizeof(int64_t) +
                                    (size_t)o->n_calls *
                                        (sizeof(uint32_t) + 2 * sizeof(cval) +
                                         sizeof(int32_t))) +
           (o->rows ? lm_aggtable_key_bytes(o->rows) : 0);
}

static const lm_operator_vt overc_vt = {"over_aggregate_changelog", overc_push,
                                        overc_watermark, overc_free};

lm_operator *lm_op_over_changelog_new(lm_bexpr *where, int time_col,
                                      int weight_col, const lm_over_call *calls,
                                      int n_calls, lm_schema *out_schema) {
  overc_op *o = calloc(1, sizeof *o);
  int nin = out_schema->n_fields - n_calls;
  lm_schema *ins = nin > 0 ? lm_schema_new(nin) : NULL;
  lm_schema *outs = lm_schema_new(out_schema->n_fields + 1);
  if (o)
    o->calls = calloc((size_t)n_calls + 1, sizeof *o->calls);
  if (!o || !o->calls || !ins || !outs || time_col < 0 || time_col >= nin) {
    if (o)
      free(o->calls);
    free(o);
    lm_schema_release(ins);
    lm_schema_release(outs);
    lm_schema_release(out_schema);
    return NULL;
  }
  for (int c = 0; c < out_schema->n_fields; c++) {
    const lm_field *f = &out_schema->fields[c];
    if (c < nin)
      lm_schema_set_field(ins, c, f->name, f->type, f->nullable);
    lm_schema_set_field(outs, c, f->name, f->type, f->nullable);
  }
  lm_schema_set_field(outs, out_schema->n_fields, "__weight",
                      lm_type_make(LM_TYPE_INT64), false);
  lm_schema_release(out_schema);
  o->base.vt = &overc_vt;
  o->base.state = overc_state;
  o->where = where;
  o->time_col = time_col;
  o->weight_col = weight_col;
  o->n_in = nin;
  o->in_schema = ins;
  o->out_schema = outs;
  o->free_head = -1;
  o->n_calls = n_calls;
  for (int c = 0; c < n_calls; c++) {
    ccall *s = &o->calls[c];
    s->c = calls[c];
    s->k = lm_over_fn_of(&calls[c], &s->isf);
  }
  return &o->base;
}

void lm_op_over_changelog_own_arena(lm_operator *op, lm_arena *arena) {
  ((overc_op *)op)->arena = arena;
}

const lm_over_call *lm_op_over_changelog_call(const lm_operator *op, int k,
                                              int *time_col) {
  if (!op || strcmp(op->vt->name, overc_vt.name))
    return NULL;
  const overc_op *o = (const overc_op *)op;
  *time_col = o->time_col;
  return k >= 0 && k < o->n_calls ? &o->calls[k].c : NULL;
}
