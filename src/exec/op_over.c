/* exec/op_over.c — streaming OVER aggregation (lm_window_fn.h).
 *
 * Float SUM/AVG over a sliding frame: the entering row is added and the
 * leaving one subtracted, with a Neumaier-compensated pair (fsum, fcomp) of
 * the frame's finite values and counts of its NaN, +Infinity and -Infinity
 * (a sum with a NaN, or both infinities, is NaN; with one infinity, that
 * infinity: PostgreSQL's answers for the frame). The compensation keeps a
 * large value leaving exact (1e20, 1, 1 -> 1, 1); the rounding the pair
 * itself could not hold is bounded in `lost`, and when that bound is no
 * longer negligible beside the sum (a cancellation), the frame's sum is
 * recomputed exactly from its rows (Shewchuk's partials), once. O(1) per
 * row otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_window_fn.h"
#include "exec/op_internal.h"

static bool fl(lm_type_id t) {
  return t == LM_TYPE_FLOAT32 || t == LM_TYPE_FLOAT64 || t == LM_TYPE_FLOAT16;
}

static bool intlike(lm_type_id t) {
  switch (t) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_NULL:
    return true;
  default:
    return false;
  }
}

int lm_over_call_type(const char *fn, lm_type t, lm_type *out) {
  if (!strcmp(fn, "count")) {
    *out = lm_type_make(LM_TYPE_INT64);
    return 0;
  }
  if (!fl(t.id) && !intlike(t.id) &&
      !(t.id == LM_TYPE_TIMESTAMP &&
        (!strcmp(fn, "min") || !strcmp(fn, "max"))))
    return -1;
  /* PostgreSQL's types: sum(smallint | integer) bigint, sum(bigint)
   * numeric, avg of integers numeric (DECIMAL(38,16), as the ad-hoc
   * window and GROUP BY forms), of floats double */
  bool narrow =
      t.id == LM_TYPE_INT8 || t.id == LM_TYPE_INT16 || t.id == LM_TYPE_INT32;
  if (!strcmp(fn, "sum"))
    *out = fl(t.id) ? lm_type_make(LM_TYPE_FLOAT64)
           : narrow ? lm_type_make(LM_TYPE_INT64)
                    : lm_type_decimal128(38, 0);
  else if (!strcmp(fn, "avg"))
    *out =
        fl(t.id) ? lm_type_make(LM_TYPE_FLOAT64) : lm_type_decimal128(38, 16);
  else if (!strcmp(fn, "min") || !strcmp(fn, "max"))
    *out = fl(t.id)                              ? lm_type_make(LM_TYPE_FLOAT64)
           : t.id == LM_TYPE_TIMESTAMP || narrow ? t
                                                 : lm_type_make(LM_TYPE_INT64);
  else
    return -1;
  return 0;
}

/* One value in a partition's frame. */
typedef struct ent {
  int64_t ts;
  lm_over_val v;
} ent;

/* A partition's state for one call: the frame's rows (a ring; only as
 * many as the frame needs) and running totals. */
typedef struct part {
  ent *ring;
  int64_t head, len, cap;
  /* the frame's sums, non-NULL values and rows; for UNBOUNDED MIN/MAX the
   * running extreme (bi / bf). For floats fr.fsum is the compensated sum of
   * the finite values, fcomp its compensation, lost a bound on the error
   * neither holds, n_nan / n_pinf / n_ninf the non-finite values. */
  lm_over_frame fr;
  double fcomp, lost;
  int64_t n_nan, n_pinf, n_ninf;
} part;

typedef struct call_state {
  lm_over_call c;
  lm_over_fn k;
  bool isf; /* the argument is a float */
  lm_aggtable *keys;
  part *parts;
  int64_t n_parts, cap_parts;
} call_state;

typedef struct over_op {
  lm_operator base;
  lm_bexpr *where;
  int time_col;
  call_state *calls;
  int n_calls;
  lm_schema *out_schema;
  lm_batch **pending; /* rows not yet passed by the watermark */
  int n_pending, cap_pending;
  int64_t wm;
  bool on_arrival; /* lm_op_over_on_arrival */
  lm_arena *arena;
} over_op;

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int release(over_op *o, int64_t wm, bool all_rows, lm_error *err);

static int over_push(lm_operator *op, lm_batch *b, lm_error *err) {
  over_op *o = (over_op *)op;
  lm_batch *in;
  int wrc = lm_batch_where(o->where, b, &in, err);
  if (wrc)
    return wrc;
  /* late rows: below a watermark already passed */
  const lm_array *tc = in->columns[o->time_col];
  int64_t n = in->num_rows, k = 0;
  int32_t *keep = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!keep) {
    lm_batch_release(in);
    return nomem(err);
  }
  for (int64_t i = 0; i < n; i++) {
    if (lm_array_is_null(tc, i)) {
      op->late_dropped++; /* no event time: never passed by a watermark */
      continue;
    }
    if (!o->on_arrival && o->wm != INT64_MIN &&
        lm_array_get_i64(tc, i) < o->wm) {
      op->late_dropped++;
      continue;
    }
    keep[k++] = (int32_t)i;
  }
  if (k < n) {
    lm_batch *t = lm_batch_take(in, keep, k);
    lm_batch_release(in);
    in = t;
  }
  free(keep);
  if (!in)
    return nomem(err);
  if (!in->num_rows) {
    lm_batch_release(in);
    return 0;
  }
  if (o->n_pending == o->cap_pending) {
    int nc = o->cap_pending ? o->cap_pending * 2 : 8;
    lm_batch **p = realloc(o->pending, sizeof *p * (size_t)nc);
    if (!p) {
      lm_batch_release(in);
      return nomem(err);
    }
    o->pending = p;
    o->cap_pending = nc;
  }
  o->pending[o->n_pending++] = in;
  /* ordered by processing time: every row is in order on arrival */
  return o->on_arrival ? release(o, 0, true, err) : 0;
}

static void part_reset(part *p) {
  memset(p, 0, sizeof *p);
}

/* The partition id of each row of e (grows the state array). */
static int part_ids(call_state *s, const lm_batch *e, uint32_t *gid,
                    lm_error *err) {
  int64_t need;
  int rc = lm_over_part_ids(&s->c, &s->keys, e, gid, &need, err);
  if (rc)
    return rc;
  if (need > s->cap_parts) {
    int64_t nc = s->cap_parts ? s->cap_parts : 16;
    while (nc < need)
      nc *= 2;
    part *np = realloc(s->parts, sizeof *np * (size_t)nc);
    if (!np)
      return nomem(err);
    for (int64_t i = s->cap_parts; i < nc; i++)
      part_reset(&np[i]);
    s->parts = np;
    s->cap_parts = nc;
  }
  if (need > s->n_parts)
    s->n_parts = need;
  return 0;
}

static ent *ring_at(const part *p, int64_t i) {
  return &p->ring[(p->head + i) % p->cap];
}

static int ring_push(part *p, ent v) {
  if (p->len == p->cap) {
    int64_t nc = p->cap ? p->cap * 2 : 4;
    ent *nr = malloc(sizeof *nr * (size_t)nc);
    if (!nr)
      return -1;
    for (int64_t i = 0; i < p->len; i++)
      nr[i] = *ring_at(p, i);
    free(p->ring);
    p->ring = nr;
    p->head = 0;
    p->cap = nc;
  }
  p->ring[(p->head + p->len) % p->cap] = v;
  p->len++;
  return 0;
}

/* Adds v (dir 1) or removes it (dir -1) from p's float sum: non-finite
 * values counted, finite ones summed with Neumaier's compensation; the
 * rounding of the compensation itself is added to p->lost. */
static void fsum_add(part *p, double v, int dir) {
  if (!isfinite(v)) {
    int64_t *n = isnan(v) ? &p->n_nan : v > 0 ? &p->n_pinf : &p->n_ninf;
    *n += dir;
    return;
  }
  if (dir < 0)
    v = -v;
  double s = p->fr.fsum, t = s + v;
  double e = fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s; /* exact */
  double c = p->fcomp, z = c + e, bv = z - c, av = z - bv;
  double r = (c - av) + (e - bv); /* what z could not hold */
  p->fr.fsum = t;
  p->fcomp = z;
  if (r != 0 || !isfinite(t))
    p->lost += fabs(r) + (isfinite(t) ? 0 : INFINITY);
}

static void frame_add(part *p, const call_state *s, const ent *e) {
  p->fr.rows++;
  if (e->v.null)
    return;
  p->fr.cnt++;
  if (s->isf)
    fsum_add(p, e->v.f, 1);
  else
    p->fr.isum += e->v.i;
}

static void frame_remove(part *p, const call_state *s, const ent *e) {
  p->fr.rows--;
  if (e->v.null)
    return;
  p->fr.cnt--;
  if (s->isf)
    fsum_add(p, e->v.f, -1);
  else
    p->fr.isum -= e->v.i;
  if (!p->fr.cnt) { /* an empty frame: exactly 0 again */
    p->fr.fsum = p->fcomp = p->lost = 0;
    p->n_nan = p->n_pinf = p->n_ninf = 0;
  }
}

/* Shewchuk's partials: a sum of doubles held exactly as non-overlapping
 * values of increasing magnitude (at most ~40 for doubles' range). */
#define LM_PARTIALS 64
/* Adds x to the partials q[0..n); returns their new count, -1 when the sum
 * leaves the double range. */
static int partials_add(double *q, int n, double x) {
  int j = 0;
  for (int i = 0; i < n; i++) {
    double y = q[i];
    if (fabs(x) < fabs(y)) {
      double t = x;
      x = y;
      y = t;
    }
    double hi = x + y, lo = y - (hi - x);
    if (!isfinite(hi))
      return -1;
    if (lo != 0)
      q[j++] = lo;
    x = hi;
  }
  if (j >= LM_PARTIALS) /* cannot happen for doubles; stay in bounds */
    j = LM_PARTIALS - 1;
  q[j++] = x;
  return j;
}

/* The correctly rounded value of the partials q[0..n) (CPython's
 * math.fsum: half-even across partials). */
static double partials_round(const double *q, int n) {
  if (n <= 0)
    return 0;
  double hi = q[--n], lo = 0;
  while (n > 0) {
    double x = hi, y = q[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0)
      break;
  }
  if (n > 0 && ((lo < 0 && q[n - 1] < 0) || (lo > 0 && q[n - 1] > 0))) {
    double y = lo * 2, x = hi + y;
    if (y == x - hi)
      hi = x;
  }
  return hi;
}

/* p's float sum for a result into *out: NaN with a NaN or both infinities
 * in the frame, else its infinity, else the compensated sum of its finite
 * values (recomputed from the frame's rows, which the ring holds, when the
 * error bound is not negligible beside it: more than 2^-50 of it).
 * LM_ERR_EXEC (22003) when finite values overflow, as PostgreSQL's. */
static int frame_fsum(part *p, const call_state *s, double *out,
                      lm_error *err) {
  if (p->n_nan || (p->n_pinf && p->n_ninf))
    *out = NAN;
  else if (p->n_pinf || p->n_ninf)
    *out = p->n_pinf ? INFINITY : -INFINITY;
  if (p->n_nan || p->n_pinf || p->n_ninf)
    return 0;
  double v = p->fr.fsum + p->fcomp;
  if (p->lost != 0 && s->c.preceding >= 0 &&
      (!isfinite(v) || !(p->lost * 0x1p50 <= fabs(v)))) {
    /* the frame's exact sum as partials, then as a pair (sum, rest) */
    double q[LM_PARTIALS];
    int nq = 0;
    for (int64_t i = 0; i < p->len && nq >= 0; i++) {
      const lm_over_val *x = &ring_at(p, i)->v;
      if (!x->null) /* finite: the counts are 0 */
        nq = partials_add(q, nq, x->f);
    }
    double hi = nq < 0 ? INFINITY : partials_round(q, nq);
    if (nq >= 0 && isfinite(hi))
      nq = partials_add(q, nq, -hi);
    p->fr.fsum = hi;
    p->fcomp = nq < 0 ? 0 : partials_round(q, nq);
    p->lost = 0; /* exact to the pair's precision */
    v = p->fr.fsum + p->fcomp;
  }
  if (!isfinite(v)) {
    int rc = lm_err(err, LM_ERR_EXEC,
                    "value out of range: overflow (%s() OVER)", s->c.fn);
    lm_err_state(err, "22003");
    return rc;
  }
  *out = v;
  return 0;
}

/* Drops the oldest rows the frame no longer needs. */
static void evict(part *p, const call_state *s, int64_t ts) {
  if (s->c.preceding < 0)
    return;
  if (s->c.unit == LM_FRAME_ROWS) {
    while (p->len > s->c.preceding + 1) {
      frame_remove(p, s, ring_at(p, 0));
      p->head = (p->head + 1) % p->cap;
      p->len--;
    }
  } else {
    while (p->len && ring_at(p, 0)->ts < lm_sat_add(ts, -s->c.preceding)) {
      frame_remove(p, s, ring_at(p, 0));
      p->head = (p->head + 1) % p->cap;
      p->len--;
    }
  }
}

/* Appends the current aggregate of p to the result builder. */
static int emit_value(const call_state *s, part *p, lm_builder *b,
                      lm_error *err) {
  const lm_over_frame *use = &p->fr;
  lm_over_frame fr;
  if (s->isf && (s->k == LM_OVER_SUM || s->k == LM_OVER_AVG)) {
    fr = p->fr;
    int rc = fr.cnt ? frame_fsum(p, s, &fr.fsum, err) : 0;
    if (rc)
      return rc;
    use = &fr;
  } else if ((s->k == LM_OVER_MIN || s->k == LM_OVER_MAX) &&
             s->c.preceding >= 0) {
    fr = p->fr; /* a bounded frame: scan it */
    fr.any = false;
    fr.bi = 0;
    fr.bf = 0;
    for (int64_t i = 0; i < p->len; i++) {
      const lm_over_val *v = &ring_at(p, i)->v;
      if (v->null)
        continue;
      if (!fr.any || lm_over_better(s->k, s->isf, v, fr.bi, fr.bf)) {
        fr.bi = v->i;
        fr.bf = v->f;
      }
      fr.any = true;
    }
    use = &fr;
  }
  lm_over_val out;
  int rc = lm_over_result(use, s->k, s->isf, s->c.arg != NULL, s->c.out_type,
                          &out, err);
  if (!rc)
    lm_over_append(b, &out, s->c.out_type.id);
  return rc;
}

/* Sorts idx[0..n) by (ts[idx], idx): a stable merge sort (rows arrive
 * mostly in time order). */
static void sort_by_time(int32_t *idx, int32_t *tmp, int64_t n,
                         const int64_t *ts) {
  if (n < 2)
    return;
  int64_t m = n / 2;
  sort_by_time(idx, tmp, m, ts);
  sort_by_time(idx + m, tmp, n - m, ts);
  if (ts[idx[m - 1]] <= ts[idx[m]])
    return; /* already in order */
  int64_t i = 0, j = m, k = 0;
  while (i < m && j < n)
    tmp[k++] = ts[idx[j]] < ts[idx[i]] ? idx[j++] : idx[i++];
  while (i < m)
    tmp[k++] = idx[i++];
  while (j < n)
    tmp[k++] = idx[j++];
  memcpy(idx, tmp, sizeof(int32_t) * (size_t)n);
}

/* Computes every call over the rows e (sorted by time) into cols. */
static int compute(over_op *o, const lm_batch *e, const int64_t *ts,
                   lm_array **cols, lm_error *err) {
  int64_t n = e->num_rows;
  uint32_t *gid = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  if (!gid)
    return nomem(err);
  int rc = 0;
  for (int c = 0; !rc && c < o->n_calls; c++) {
    call_state *s = &o->calls[c];
    lm_array *arg = NULL;
    if (s->c.arg && (rc = lm_eval(s->c.arg, e, &arg, err)))
      break;
    if ((rc = part_ids(s, e, gid, err))) {
      lm_array_release(arg);
      break;
    }
    lm_builder b;
    if (lm_builder_init(&b, s->c.out_type, n)) {
      lm_array_release(arg);
      rc = nomem(err);
      break;
    }
    bool peers = s->c.unit == LM_FRAME_RANGE;
    for (int64_t i = 0; !rc && i < n;) {
      /* a run of rows: one row (ROWS) or every row of one time (RANGE) */
      int64_t j = i + 1;
      if (peers)
        while (j < n && ts[j] == ts[i])
          j++;
      for (int64_t r = i; !rc && r < j; r++) {
        part *p = &s->parts[gid[r]];
        ent v = {.ts = ts[r]};
        lm_over_arg(arg, r, s->isf, &v.v); /* COUNT(*): every row counts */
        if (s->c.preceding >= 0 && ring_push(p, v)) {
          rc = nomem(err);
          break;
        }
        frame_add(p, s, &v);
        if (s->c.preceding < 0 && !v.v.null && arg &&
            (!p->fr.any ||
             lm_over_better(s->k, s->isf, &v.v, p->fr.bi, p->fr.bf))) {
          p->fr.bi = v.v.i;
          p->fr.bf = v.v.f;
          p->fr.any = true;
        }
        evict(p, s, ts[r]);
      }
      for (int64_t r = i; !rc && r < j; r++)
        rc = emit_value(s, &s->parts[gid[r]], &b, err);
      i = j;
    }
    lm_array_release(arg);
    if (!rc && lm_builder_finish(&b, &cols[c]))
      rc = nomem(err);
    lm_builder_free(&b);
  }
  free(gid);
  return rc;
}

/* Computes and emits the pending rows of time < wm (every pending row when
 * all), in time order; keeps the others pending. */
static int release(over_op *o, int64_t wm, bool all_rows, lm_error *err) {
  lm_operator *op = &o->base;
  int rc = 0;
  if (o->n_pending) {
    lm_batch *all = NULL;
    lm_schema *is = o->pending[0]->schema;
    rc = lm_batch_concat(is, o->pending, o->n_pending, &all, err);
    if (rc)
      return rc;
    for (int i = 0; i < o->n_pending; i++)
      lm_batch_release(o->pending[i]);
    o->n_pending = 0;
    int64_t n = all->num_rows, ne = 0, nk = 0;
    int32_t *emit = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *keep = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int64_t *tsv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *ets = malloc(sizeof(int64_t) * (size_t)(n + 1));
    lm_array **cols =
        calloc((size_t)(all->schema->n_fields + o->n_calls + 1), sizeof *cols);
    if (!emit || !keep || !tsv || !ets || !cols)
      rc = nomem(err);
    const lm_array *tc = all->columns[o->time_col];
    for (int64_t i = 0; !rc && i < n; i++) {
      tsv[i] = lm_array_get_i64(tc, i);
      if (all_rows || tsv[i] < wm)
        emit[ne++] = (int32_t)i;
      else
        keep[nk++] = (int32_t)i;
    }
    if (!rc && nk) {
      lm_batch *k = lm_batch_take(all, keep, nk);
      if (!k)
        rc = nomem(err);
      else
        o->pending[o->n_pending++] = k;
    }
    lm_batch *e = NULL, *out = NULL;
    if (!rc && ne) {
      sort_by_time(emit, keep, ne, tsv); /* keep: free scratch by now */
      for (int64_t i = 0; i < ne; i++)
        ets[i] = tsv[emit[i]];
      if (!(e = lm_batch_take(all, emit, ne)))
        rc = nomem(err);
      int nf = all->schema->n_fields;
      if (!rc)
        rc = compute(o, e, ets, cols + nf, err);
      if (!rc) {
        for (int c = 0; c < nf; c++)
          cols[c] = lm_array_retain(e->columns[c]);
        out = lm_batch_new(lm_schema_retain(o->out_schema), ne, cols);
        if (!out)
          rc = nomem(err);
        else
          memset(cols, 0, sizeof *cols * (size_t)(nf + o->n_calls));
      }
      if (!rc)
        rc = lm_operator_emit(op, out, err);
    }
    if (cols)
      for (int c = 0; c < all->schema->n_fields + o->n_calls; c++)
        lm_array_release(cols[c]);
    lm_batch_release(out);
    lm_batch_release(e);
    lm_batch_release(all);
    free(emit);
    free(keep);
    free(tsv);
    free(ets);
    free(cols);
  }
  return rc;
}

static int over_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  over_op *o = (over_op *)op;
  if (wm <= o->wm)
    return lm_operator_forward_watermark(op, wm, err);
  o->wm = wm;
  int rc = release(o, wm, false, err);
  return rc ? rc : lm_operator_forward_watermark(op, wm, err);
}

static void over_free(lm_operator *op) {
  over_op *o = (over_op *)op;
  for (int i = 0; i < o->n_pending; i++)
    lm_batch_release(o->pending[i]);
  free(o->pending);
  for (int c = 0; c < o->n_calls; c++) {
    call_state *s = &o->calls[c];
    for (int64_t i = 0; i < s->n_parts; i++)
      free(s->parts[i].ring);
    free(s->parts);
    lm_aggtable_free(s->keys);
  }
  free(o->calls);
  lm_schema_release(o->out_schema);
  if (o->arena) {
    lm_arena_free(o->arena);
    free(o->arena);
  }
  free(o);
}

static void over_state(const lm_operator *op, int64_t *rows, int64_t *bytes) {
  const over_op *o = (const over_op *)op;
  int64_t r = 0, by = 0;
  for (int i = 0; i < o->n_pending; i++)
    r += o->pending[i]->num_rows;
  for (int c = 0; c < o->n_calls; c++)
    for (int64_t i = 0; i < o->calls[c].n_parts; i++) {
      r += o->calls[c].parts[i].len;
      by += (int64_t)sizeof(part) +
            o->calls[c].parts[i].cap * (int64_t)sizeof(ent);
    }
  *rows = r;
  *bytes = by;
}

static const lm_operator_vt over_vt = {"over_aggregate", over_push,
                                       over_watermark, over_free};

lm_operator *lm_op_over_new(lm_bexpr *where, int time_col,
                            const lm_over_call *calls, int n_calls,
                            lm_schema *out_schema) {
  over_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &over_vt;
  o->base.state = over_state;
  o->where = where;
  o->time_col = time_col;
  o->wm = INT64_MIN;
  o->out_schema = out_schema;
  o->calls = calloc((size_t)n_calls + 1, sizeof *o->calls);
  if (!o->calls) {
    lm_schema_release(out_schema);
    free(o);
    return NULL;
  }
  o->n_calls = n_calls;
  for (int c = 0; c < n_calls; c++) {
    call_state *s = &o->calls[c];
    s->c = calls[c];
    s->k = lm_over_fn_of(&calls[c], &s->isf);
  }
  return &o->base;
}

void lm_op_over_own_arena(lm_operator *op, lm_arena *arena) {
  ((over_op *)op)->arena = arena;
}

void lm_op_over_on_arrival(lm_operator *op) {
  if (!strcmp(op->vt->name, over_vt.name))
    ((over_op *)op)->on_arrival = true;
}

const lm_over_call *lm_op_over_call(const lm_operator *op, int k, int *time_col,
                                    bool *on_arrival) {
  *on_arrival = false;
  if (!op || strcmp(op->vt->name, over_vt.name))
    return lm_op_over_changelog_call(op, k, time_col);
  const over_op *o = (const over_op *)op;
  *time_col = o->time_col;
  *on_arrival = o->on_arrival;
  return k >= 0 && k < o->n_calls ? &o->calls[k].c : NULL;
}
