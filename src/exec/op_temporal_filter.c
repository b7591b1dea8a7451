/*
 * The retracting temporal filter (docs/changelog.md, "Temporal filters";
 * the seed's TemporalFilterOperator): WHERE conjuncts `e op now() + k`,
 * where now() is the input's watermark floored to the second. A row is
 * visible while now() is in [enter, exit): it is emitted with __weight +1
 * when it becomes visible (at its push, or at the watermark that lets it
 * in) and with -1 when it leaves. The operator projects the rows itself
 * and holds the projected rows that still have an entry or exit ahead, in
 * the retained batches they were projected into, with a min-heap of those
 * times.
 */
#include <stdlib.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_tz.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

enum { TF_ENTER = 0, TF_EXIT = 1 };

/* A projected batch with rows still to enter or leave. */
typedef struct tf_slot {
  lm_batch *b;   /* NULL = free */
  int64_t *exit; /* per row: now() at which it leaves (INT64_MAX never) */
  int64_t live;  /* rows with an event ahead */
  int64_t bytes; /* b's size, for the state counter */
} tf_slot;

typedef struct tf_op {
  lm_operator base;
  const lm_plan *plan; /* borrowed: tfilter, out, out_schema */
  lm_schema *wschema;  /* out_schema + __weight BIGINT (one reference) */
  int64_t now;         /* floor(watermark, 1 s) in µs; INT64_MIN: none */
  lm_wheap heap;       /* (time, slot << 32 | row, TF_ENTER / TF_EXIT) */
  tf_slot *slots;
  int64_t n_slots, cap_slots;
  int64_t *free_ix; /* free slots: free_ix[0..n_free), cap_slots entries */
  int64_t n_free;
  int64_t *dead; /* slots emptied during an advance (cap_slots entries) */
  int64_t held_rows, held_bytes;
} tf_op;

static int64_t clamp128(__int128 v) {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* now() of watermark wm (µs): floored to the second, toward -infinity. */
static int64_t now_of(int64_t wm) {
  int64_t q = wm / 1000000, r = wm % 1000000;
  if (r < 0)
    q--;
  return clamp128((__int128)q * 1000000);
}

/* Releases slot s's batch; the slot goes on the free list. */
static void slot_free(tf_op *o, int64_t s) {
  tf_slot *sl = &o->slots[s];
  o->held_bytes -= sl->bytes;
  lm_batch_release(sl->b);
  free(sl->exit);
  *sl = (tf_slot){0};
  o->free_ix[o->n_free++] = s;
}

/* A free slot's index (the tables grown when none is free), -1 on OOM. */
static int64_t slot_new(tf_op *o) {
  if (o->n_free)
    return o->free_ix[--o->n_free];
  if (o->n_slots == o->cap_slots) {
    int64_t cap = o->cap_slots ? 2 * o->cap_slots : 16;
    tf_slot *ns = realloc(o->slots, sizeof *ns * (size_t)cap);
    if (ns)
      o->slots = ns;
    int64_t *nf = realloc(o->free_ix, sizeof *nf * (size_t)cap);
    if (nf)
      o->free_ix = nf;
    int64_t *nd = realloc(o->dead, sizeof *nd * (size_t)cap);
    if (nd)
      o->dead = nd;
    if (!ns || !nf || !nd)
      return -1;
    o->cap_slots = cap;
  }
  o->slots[o->n_slots] = (tf_slot){0};
  return o->n_slots++;
}

/* The bytes of b's buffers (shared buffers counted in full). */
static int64_t batch_bytes(const lm_batch *b) {
  int64_t n = 0;
  for (int c = 0; c < b->num_columns; c++) {
    const lm_array *a = b->columns[c];
    n += (a->validity ? (int64_t)a->validity->size : 0) +
         (a->values ? (int64_t)a->values->size : 0) +
         (a->data ? (int64_t)a->data->size : 0);
  }
  return n;
}

/* Emits rows sel[0..n) of projected batch p with weight w. */
static int emit_rows(tf_op *o, lm_batch *p, const int32_t *sel, int64_t n,
                     int64_t w, lm_error *err) {
  if (!n)
    return 0;
  lm_batch *t =
      n == p->num_rows ? lm_batch_retain(p) : lm_batch_take(p, sel, n);
  if (!t)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_batch *out = NULL;
  int rc = lm_with_weight(t, o->wschema, w, &out, err);
  lm_batch_release(t);
  if (!rc)
    rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

static int tf_push(lm_operator *op, lm_batch *b, lm_error *err) {
  tf_op *o = (tf_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows;
  if (!n)
    return 0;
  int nc = p->n_tfilter;
  lm_array *vals[8] = {0};
  int64_t *enter = malloc(sizeof *enter * (size_t)n);
  int64_t *exit = malloc(sizeof *exit * (size_t)n);
  int32_t *sel = malloc(sizeof *sel * (size_t)n);
  int32_t *vis = malloc(sizeof *vis * (size_t)n);
  lm_batch *t = NULL, *pb = NULL;
  int rc = 0;
  if (!enter || !exit || !sel || !vis) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int c = 0; c < nc && !rc; c++)
    rc = lm_eval(p->tfilter[c].e, b, &vals[c], err);
  if (rc)
    goto done;
  /* each row's [enter, exit) in now() values; kept: visible now or later */
  const int64_t *xs[8];
  bool nulls = false;
  for (int c = 0; c < nc; c++) {
    /* TIMESTAMP: int64 µs (no values buffer: all NULL) */
    xs[c] = vals[c]->values ? lm_array_i64(vals[c]) : NULL;
    nulls |= vals[c]->null_count > 0 || !xs[c];
  }
  int64_t m = 0, nv = 0, tracked = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t en = INT64_MIN, ex = INT64_MAX;
    bool null = false;
    for (int c = 0; c < nc; c++) {
      if (nulls && (!xs[c] || lm_array_is_null(vals[c], i))) {
        null = true;
        break;
      }
      const lm_tfilter_cond *tc = &p->tfilter[c];
      __int128 d = (__int128)xs[c][i] - tc->k_us;
      if (tc->k_months || tc->k_days) { /* months: lm_interval.h */
        lm_iv k = {tc->k_months, tc->k_days, tc->k_us};
        const lm_tz *z = lm_type_is_tstz(tc->e->type) ? lm_tz_session() : NULL;
        bool strict = tc->op == LM_OP_GE || tc->op == LM_OP_LT;
        int64_t at =
            xs[c][i] == INT64_MAX && strict ? INT64_MAX : xs[c][i] + strict;
        /* the first now with now + k >= e (GT, LE) or > e (GE, LT) */
        d = (__int128)lm_ts_iv_reach(at, &k, z) - strict;
      }
      int64_t x;
      switch (p->tfilter[c].op) {
      case LM_OP_GT: /* e > now + k: now < e - k */
        x = clamp128(d);
        ex = x < ex ? x : ex;
        break;
      case LM_OP_GE: /* now <= e - k */
        x = clamp128(d + 1);
        ex = x < ex ? x : ex;
        break;
      case LM_OP_LT: /* now > e - k */
        x = clamp128(d + 1);
        en = x > en ? x : en;
        break;
      default: /* LE: now >= e - k */
        x = clamp128(d);
        en = x > en ? x : en;
      }
    }
    if (null || en >= ex || ex <= o->now)
      continue; /* never visible, or no longer */
    bool now_in = en <= o->now;
    if (now_in)
      vis[nv++] = (int32_t)m;
    if (!now_in || ex != INT64_MAX)
      tracked++;
    enter[m] = en;
    exit[m] = ex;
    sel[m++] = (int32_t)i;
  }
  if (!m)
    goto done;
  t = m == n ? lm_batch_retain(b) : lm_batch_take(b, sel, m);
  if (!t) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if ((rc = lm_project(p->out, p->out_schema->n_fields, p->out_schema, t, &pb,
                       err)))
    goto done;
  if (tracked) {
    int64_t s = slot_new(o);
    int64_t *sx = s >= 0 ? malloc(sizeof *sx * (size_t)m) : NULL;
    if (!sx) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    tf_slot *sl = &o->slots[s];
    sl->b = lm_batch_retain(pb);
    sl->exit = sx;
    sl->bytes = batch_bytes(pb);
    o->held_bytes += sl->bytes;
    for (int64_t r = 0; r < m; r++) {
      sx[r] = exit[r];
      bool now_in = enter[r] <= o->now;
      if (now_in && exit[r] == INT64_MAX)
        continue;
      int64_t id = (int64_t)((uint64_t)s << 32 | (uint32_t)r);
      if (lm_wheap_push(&o->heap, now_in ? exit[r] : enter[r], id,
                        now_in ? TF_EXIT : TF_ENTER)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      sl->live++;
      o->held_rows++;
    }
    if (!sl->live)
      slot_free(o, s);
    if (rc)
      goto done;
  }
  rc = emit_rows(o, pb, vis, nv, 1, err);
done:
  for (int c = 0; c < nc; c++)
    lm_array_release(vals[c]);
  lm_batch_release(t);
  lm_batch_release(pb);
  free(enter);
  free(exit);
  free(sel);
  free(vis);
  return rc;
}

/* Appends row r of slot batch sb with weight w to bb (wschema). */
static void append_row(lm_batch_builder *bb, const lm_batch *sb, int64_t r,
                       int64_t w) {
  int nc = sb->num_columns;
  for (int c = 0; c < nc; c++)
    lm_builder_append_from(&bb->cols[c], sb->columns[c], r);
  lm_builder_append_int(&bb->cols[nc], w);
}

/* Moves now() to `now` (a larger value): the rows whose time came leave
 * or enter, in one batch, retractions first. */
static int advance(tf_op *o, int64_t now, lm_error *err) {
  o->now = now;
  int64_t *ins = NULL, n_ins = 0, cap_ins = 0, n_dead = 0;
  lm_batch_builder bb;
  bool any = false;
  int rc = 0;
  if (!o->heap.n || o->heap.a[0].key > now)
    return 0;
  if (lm_batch_builder_init(&bb, o->wschema, 64))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  while (o->heap.n && o->heap.a[0].key <= now) {
    lm_wheap_ent e = o->heap.a[0];
    lm_wheap_pop(&o->heap);
    int64_t s = (int64_t)((uint64_t)e.id >> 32);
    int64_t r = (int64_t)(uint32_t)e.id;
    tf_slot *sl = &o->slots[s];
    int64_t ex = sl->exit[r];
    bool done = e.ix == TF_EXIT || ex <= now || ex == INT64_MAX;
    if (done) { /* its last event: the slot may empty */
      o->held_rows--;
      if (!--sl->live)
        o->dead[n_dead++] = s;
    }
    if (e.ix == TF_EXIT) {
      append_row(&bb, sl->b, r, -1);
      any = true;
      continue;
    }
    if (done) { /* in and out at once, or in for good */
      if (ex <= now)
        continue;
    } else if (lm_wheap_push(&o->heap, ex, e.id, TF_EXIT)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    if (n_ins == cap_ins) {
      int64_t cap = cap_ins ? 2 * cap_ins : 64;
      int64_t *ni = realloc(ins, sizeof *ni * (size_t)cap);
      if (!ni) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      ins = ni;
      cap_ins = cap;
    }
    ins[n_ins++] = e.id;
  }
  for (int64_t i = 0; i < n_ins && !rc; i++) { /* insertions after */
    int64_t s = (int64_t)((uint64_t)ins[i] >> 32);
    append_row(&bb, o->slots[s].b, (int64_t)(uint32_t)ins[i], 1);
    any = true;
  }
  lm_batch *out = NULL;
  if (!rc && any)
    rc = lm_batch_builder_finish(&bb, &out, err);
  lm_batch_builder_free(&bb);
  free(ins);
  for (int64_t i = 0; i < n_dead; i++)
    slot_free(o, o->dead[i]);
  if (!rc && out)
    rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

static int tf_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  tf_op *o = (tf_op *)op;
  /* the final watermark (the end of a bounded input) is not a time:
   * now() stays at the last one, and the result as it was then */
  if (wm != INT64_MAX && wm != INT64_MIN) {
    int64_t now = now_of(wm);
    int rc = now > o->now ? advance(o, now, err) : 0;
    if (rc)
      return rc;
  }
  return lm_operator_forward_watermark(op, wm, err);
}

static void tf_state(const lm_operator *op, int64_t *rows, int64_t *bytes) {
  const tf_op *o = (const tf_op *)op;
  *rows = o->held_rows;
  *bytes = o->held_bytes + o->heap.cap * (int64_t)sizeof(lm_wheap_ent) +
           o->cap_slots * (int64_t)sizeof(tf_slot);
}

static void tf_free(lm_operator *op) {
  tf_op *o = (tf_op *)op;
  for (int64_t s = 0; s < o->n_slots; s++)
    if (o->slots[s].b)
      slot_free(o, s);
  free(o->slots);
  free(o->free_ix);
  free(o->dead);
  free(o->heap.a);
  lm_schema_release(o->wschema);
  free(o);
}

static const lm_operator_vt tf_vt = {"temporal_filter", tf_push, tf_watermark,
                                     tf_free};

lm_operator *lm_op_temporal_filter_new(const lm_plan *plan,
                                       lm_schema *wschema) {
  if (!plan->n_tfilter || plan->n_tfilter > 8 ||
      wschema->n_fields != plan->out_schema->n_fields + 1)
    return NULL;
  tf_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &tf_vt;
  o->base.state = tf_state;
  o->plan = plan;
  o->wschema = lm_schema_retain(wschema);
  o->now = INT64_MIN;
  return &o->base;
}
