/*
 * Join operators (issue 5 item 9): events/s per core (process CPU time) of
 * the interval join and the updating join at 1 K and 1 M keys, and state
 * bytes per buffered row against the raw row size, each beside a plain C
 * hash-join loop over the same rows in the same run.
 *
 * Interval join: two append-only streams of (k BIGINT, ts TIMESTAMP,
 * v BIGINT) rows, 24 raw bytes a row; N/2 events per side, interleaved in
 * batches of 4096 (a left batch, then a right batch); event i of a side
 * has ts = i µs plus up to 64 µs of disorder; keys uniform over K. The
 * bound is right.ts - left.ts in [-B, B] with B = K/2 µs, so a row meets
 * about one row of the other side (2B rows of the other side in the
 * window, 1/K of them with its key). Each side's watermark follows its
 * batches at max ts - 64 µs. The operator is lm_op_join_new(INTERVAL,
 * INNER), fed through lm_join_side; output batches are counted.
 * Reference: a plain C symmetric hash join over the same arrays: an
 * open-addressing table key -> per-side ring of (ts, v), probe the other
 * ring within the bound, append, evict by the other side's watermark.
 *
 * Updating join: two changelogs of (k, ts, v) rows with one live row per
 * key and side (the shape of two aggregates joined): each event picks a
 * side and a key; when the key has a row on that side the event is a
 * -old/+new pair (2 changes), else a +new. The operator is
 * lm_op_join_new(UPDATING, INNER) with __weight on both inputs and a
 * changelog output. Reference: a plain C hash table key -> (left row,
 * right row) applying the same changes and counting the pair changes.
 * Events are input changes (rows), the same count for both.
 *
 * State bytes: lm_join_state_bytes / lm_join_state_rows at the end of the
 * interval run, before the final watermark (slots, heaps, key table, all
 * allocated capacity included), against 24 raw bytes.
 *
 * Usage: bench_joins [events=4000000] [repetitions=3] [k=KEYS] [q=interval|
 *        updating]. Prints a markdown table (best repetition). Not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_join.h"

#define BATCH 4096
#define DISORDER 64

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static lm_schema *mk_schema(bool weighted) {
  lm_schema *s = lm_schema_new(weighted ? 4 : 3);
  lm_schema_set_field(s, 0, "k", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "ts", lm_type_make(LM_TYPE_TIMESTAMP), false);
  lm_schema_set_field(s, 2, "v", lm_type_make(LM_TYPE_INT64), false);
  if (weighted)
    lm_schema_set_field(s, 3, "__weight", lm_type_make(LM_TYPE_INT64), false);
  return s;
}

static lm_schema *mk_out(bool weighted) {
  lm_schema *s = lm_schema_new(weighted ? 7 : 6);
  static const char *nm[] = {"k", "ts", "v", "k2", "ts2", "v2"};
  for (int c = 0; c < 6; c++)
    lm_schema_set_field(
        s, c, nm[c],
        lm_type_make(c % 3 == 1 ? LM_TYPE_TIMESTAMP : LM_TYPE_INT64), true);
  if (weighted)
    lm_schema_set_field(s, 6, "__weight", lm_type_make(LM_TYPE_INT64), false);
  return s;
}

static lm_batch *mk_batch(lm_schema *s, const int64_t *k, const int64_t *ts,
                          const int64_t *v, const int64_t *w, int64_t n) {
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, n);
  for (int64_t i = 0; i < n; i++) {
    lm_builder_append_i64_fast(&bb.cols[0], k[i]);
    lm_builder_append_i64_fast(&bb.cols[1], ts[i]);
    lm_builder_append_i64_fast(&bb.cols[2], v[i]);
    if (w)
      lm_builder_append_i64_fast(&bb.cols[3], w[i]);
  }
  lm_batch *b = NULL;
  lm_error err;
  memset(&err, 0, sizeof err);
  lm_batch_builder_finish(&bb, &b, &err);
  lm_batch_builder_free(&bb);
  return b;
}

typedef struct counter {
  int64_t rows, wsum;
  int weight_col;
} counter;
static int count_batch(void *ctx, lm_batch *b, lm_error *err) {
  (void)err;
  counter *c = ctx;
  c->rows += b->num_rows;
  if (c->weight_col >= 0) {
    const int64_t *w = lm_array_i64(b->columns[c->weight_col]);
    for (int64_t i = 0; i < b->num_rows; i++)
      c->wsum += w[i];
  } else
    c->wsum += b->num_rows;
  return 0;
}
static int count_wm(void *ctx, int64_t wm, lm_error *err) {
  (void)ctx;
  (void)wm;
  (void)err;
  return 0;
}

/* ------------------------------------------------------------ interval */

typedef struct idata {
  int64_t n, keys, bound, shift; /* bound [shift - bound, shift + bound] */
  int nb;                        /* batches per side */
  int64_t *k[2], *ts[2], *v[2];
  lm_batch **b[2];
  int64_t *wm[2]; /* watermark after batch i */
} idata;

static void idata_make(idata *d, int64_t n, int64_t keys, int64_t bound) {
  memset(d, 0, sizeof *d);
  d->n = n / 2;
  d->keys = keys;
  d->bound = bound;
  d->nb = (int)((d->n + BATCH - 1) / BATCH);
  lm_schema *s = mk_schema(false);
  for (int side = 0; side < 2; side++) {
    d->k[side] = malloc((size_t)d->n * 8);
    d->ts[side] = malloc((size_t)d->n * 8);
    d->v[side] = malloc((size_t)d->n * 8);
    d->b[side] = calloc((size_t)d->nb, sizeof(lm_batch *));
    d->wm[side] = calloc((size_t)d->nb, 8);
    for (int64_t i = 0; i < d->n; i++) {
      d->k[side][i] = (int64_t)(rnd() % (uint64_t)keys);
      d->ts[side][i] = i + (int64_t)(rnd() % DISORDER);
      d->v[side][i] = (int64_t)(rnd() % 1000);
    }
    for (int bi = 0; bi < d->nb; bi++) {
      int64_t off = (int64_t)bi * BATCH,
              len = d->n - off < BATCH ? d->n - off : BATCH;
      d->b[side][bi] = mk_batch(s, d->k[side] + off, d->ts[side] + off,
                                d->v[side] + off, NULL, len);
      d->wm[side][bi] = off + len - DISORDER;
    }
  }
  lm_schema_release(s);
}

static void idata_free(idata *d) {
  for (int side = 0; side < 2; side++) {
    for (int bi = 0; bi < d->nb; bi++)
      lm_batch_release(d->b[side][bi]);
    free(d->b[side]);
    free(d->k[side]);
    free(d->ts[side]);
    free(d->v[side]);
    free(d->wm[side]);
  }
}

typedef struct result {
  double cpu_s, eps;
  int64_t out, state_rows, state_bytes;
} result;

static result run_interval_op(const idata *d) {
  lm_schema *ls = mk_schema(false), *rs = mk_schema(false), *os = mk_out(false);
  int keys[1] = {0};
  lm_join_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.type = LM_JOIN_INNER;
  sp.algo = LM_JOIN_INTERVAL;
  for (int s = 0; s < 2; s++) {
    sp.side[s].schema = s ? rs : ls;
    sp.side[s].n_keys = 1;
    sp.side[s].keys = keys;
    sp.side[s].time_col = 1;
  }
  sp.lo_us = d->shift - d->bound;
  sp.hi_us = d->shift + d->bound;
  sp.asof_tolerance_us = -1;
  sp.out_schema = os;
  lm_error err;
  memset(&err, 0, sizeof err);
  result r;
  memset(&r, 0, sizeof r);
  int64_t c0 = lm_cpu_time_us();
  lm_operator *j = lm_op_join_new(&sp, &err);
  if (!j) {
    fprintf(stderr, "join: %s\n", err.msg);
    exit(1);
  }
  counter cnt = {0, 0, -1};
  lm_output_cb out = {count_batch, count_wm, &cnt};
  j->next = lm_op_output_new(out);
  lm_output_cb side[2] = {lm_join_side(j, 0), lm_join_side(j, 1)};
  for (int bi = 0; bi < d->nb; bi++)
    for (int s = 0; s < 2; s++) {
      if (side[s].batch(side[s].ctx, d->b[s][bi], &err) ||
          side[s].watermark(side[s].ctx, d->wm[s][bi], &err)) {
        fprintf(stderr, "join: %s\n", err.msg);
        exit(1);
      }
    }
  r.state_rows = lm_join_state_rows(j);
  r.state_bytes = lm_join_state_bytes(j);
  side[0].watermark(side[0].ctx, INT64_MAX, &err);
  side[1].watermark(side[1].ctx, INT64_MAX, &err);
  r.cpu_s = (double)(lm_cpu_time_us() - c0) / 1e6;
  r.out = cnt.rows;
  r.eps = (double)(2 * d->n) / r.cpu_s;
  lm_pipeline_free(j);
  lm_schema_release(ls);
  lm_schema_release(rs);
  lm_schema_release(os);
  return r;
}

/* The reference: key -> per-side growable ring of (ts, v). */
typedef struct ring {
  int64_t *ts, *v;
  uint32_t head, len, cap;
} ring;
typedef struct rslot {
  int64_t key;
  bool used;
  ring r[2];
} rslot;

static void ring_push(ring *g, int64_t ts, int64_t v) {
  if (g->len == g->cap) {
    uint32_t nc = g->cap ? g->cap * 2 : 4;
    int64_t *a = malloc(nc * 8), *b = malloc(nc * 8);
    for (uint32_t i = 0; i < g->len; i++) {
      a[i] = g->ts[(g->head + i) % g->cap];
      b[i] = g->v[(g->head + i) % g->cap];
    }
    free(g->ts);
    free(g->v);
    g->ts = a;
    g->v = b;
    g->head = 0;
    g->cap = nc;
  }
  uint32_t p = (g->head + g->len) % g->cap;
  g->ts[p] = ts;
  g->v[p] = v;
  g->len++;
}

static result run_interval_ref(const idata *d) {
  result r;
  memset(&r, 0, sizeof r);
  int64_t c0 = lm_cpu_time_us();
  uint64_t cap = 1;
  while (cap < (uint64_t)d->keys * 2)
    cap *= 2;
  rslot *t = calloc(cap, sizeof *t);
  int64_t wm[2] = {INT64_MIN, INT64_MIN}, out = 0, vs = 0, B = d->bound,
          S = d->shift;
  for (int bi = 0; bi < d->nb; bi++)
    for (int s = 0; s < 2; s++) {
      int64_t off = (int64_t)bi * BATCH,
              len = d->n - off < BATCH ? d->n - off : BATCH;
      for (int64_t i = off; i < off + len; i++) {
        int64_t k = d->k[s][i], ts = d->ts[s][i];
        uint64_t h = lm_hash_u64((uint64_t)k) & (cap - 1);
        while (t[h].used && t[h].key != k)
          h = (h + 1) & (cap - 1);
        t[h].used = true;
        t[h].key = k;
        ring *o = &t[h].r[1 - s];
        for (uint32_t q = 0; q < o->len; q++) {
          uint32_t p = (o->head + q) % o->cap;
          int64_t dlt = (s == 0 ? o->ts[p] - ts : ts - o->ts[p]) - S;
          if (dlt >= -B && dlt <= B) {
            out++;
            vs += o->v[p];
          }
        }
        ring *g = &t[h].r[s];
        /* evict by the other side's watermark, then append */
        while (g->len && (s == 0 ? wm[1] > g->ts[g->head] + S + B
                                 : wm[0] > g->ts[g->head] - (S - B))) {
          g->head = (g->head + 1) % g->cap;
          g->len--;
        }
        ring_push(g, ts, d->v[s][i]);
      }
      wm[s] = d->wm[s][bi];
    }
  r.cpu_s = (double)(lm_cpu_time_us() - c0) / 1e6;
  r.out = out + (vs & 0); /* vs keeps the loop honest */
  r.eps = (double)(2 * d->n) / r.cpu_s;
  for (uint64_t h = 0; h < cap; h++)
    for (int s = 0; s < 2; s++) {
      free(t[h].r[s].ts);
      free(t[h].r[s].v);
    }
  free(t);
  return r;
}

/* ------------------------------------------------------------ updating */

typedef struct udata {
  int64_t n, keys;
  int nb;
  lm_batch **b;
  int *side;
  int64_t *rows; /* changes: k, ts, v, w per change */
  int64_t nch;
  int64_t *bstart; /* change index of batch bi */
} udata;

static void udata_make(udata *d, int64_t n, int64_t keys) {
  memset(d, 0, sizeof *d);
  d->n = n;
  d->keys = keys;
  int64_t *cur[2];
  cur[0] = malloc((size_t)keys * 8);
  cur[1] = malloc((size_t)keys * 8);
  for (int64_t k = 0; k < keys; k++)
    cur[0][k] = cur[1][k] = -1;
  d->rows = malloc((size_t)n * 2 * 4 * 8);
  int cap = 16;
  d->b = calloc((size_t)cap, sizeof *d->b);
  d->side = calloc((size_t)cap, sizeof *d->side);
  d->bstart = calloc((size_t)cap + 1, 8);
  lm_schema *s = mk_schema(true);
  int64_t ev = 0;
  while (ev < n) {
    int side = (int)(rnd() % 2);
    int64_t st = d->nch;
    for (int64_t i = 0; i < BATCH / 2 && ev < n; i++, ev++) {
      int64_t k = (int64_t)(rnd() % (uint64_t)keys);
      int64_t v = (int64_t)(rnd() % 1000);
      int64_t *r = d->rows + 4 * d->nch;
      if (cur[side][k] >= 0) {
        r[0] = k, r[1] = 0, r[2] = cur[side][k], r[3] = -1;
        d->nch++;
        r += 4;
      }
      r[0] = k, r[1] = 0, r[2] = v, r[3] = 1;
      d->nch++;
      cur[side][k] = v;
    }
    int64_t len = d->nch - st;
    int64_t *k = malloc((size_t)len * 8), *ts = malloc((size_t)len * 8),
            *v = malloc((size_t)len * 8), *w = malloc((size_t)len * 8);
    for (int64_t i = 0; i < len; i++) {
      k[i] = d->rows[4 * (st + i)];
      ts[i] = 0;
      v[i] = d->rows[4 * (st + i) + 2];
      w[i] = d->rows[4 * (st + i) + 3];
    }
    if (d->nb == cap) {
      cap *= 2;
      d->b = realloc(d->b, (size_t)cap * sizeof *d->b);
      d->side = realloc(d->side, (size_t)cap * sizeof *d->side);
      d->bstart = realloc(d->bstart, ((size_t)cap + 1) * 8);
    }
    d->side[d->nb] = side;
    d->bstart[d->nb] = st;
    d->b[d->nb++] = mk_batch(s, k, ts, v, w, len);
    d->bstart[d->nb] = d->nch;
    free(k);
    free(ts);
    free(v);
    free(w);
  }
  lm_schema_release(s);
  free(cur[0]);
  free(cur[1]);
}

static void udata_free(udata *d) {
  for (int i = 0; i < d->nb; i++)
    lm_batch_release(d->b[i]);
  free(d->b);
  free(d->side);
  free(d->rows);
  free(d->bstart);
}

static result run_updating_op(const udata *d) {
  lm_schema *ls = mk_schema(false), *rs = mk_schema(false), *os = mk_out(true);
  int keys[1] = {0};
  lm_join_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.type = LM_JOIN_INNER;
  sp.algo = LM_JOIN_UPDATING;
  for (int s = 0; s < 2; s++) {
    sp.side[s].schema = s ? rs : ls;
    sp.side[s].changelog = true;
    sp.side[s].n_keys = 1;
    sp.side[s].keys = keys;
    sp.side[s].time_col = -1;
  }
  sp.asof_tolerance_us = -1;
  sp.out_schema = os;
  sp.out_changelog = true;
  lm_error err;
  memset(&err, 0, sizeof err);
  result r;
  memset(&r, 0, sizeof r);
  int64_t c0 = lm_cpu_time_us();
  lm_operator *j = lm_op_join_new(&sp, &err);
  if (!j) {
    fprintf(stderr, "join: %s\n", err.msg);
    exit(1);
  }
  counter cnt = {0, 0, 6};
  lm_output_cb out = {count_batch, count_wm, &cnt};
  j->next = lm_op_output_new(out);
  lm_output_cb side[2] = {lm_join_side(j, 0), lm_join_side(j, 1)};
  for (int bi = 0; bi < d->nb; bi++) {
    int s = d->side[bi];
    if (side[s].batch(side[s].ctx, d->b[bi], &err)) {
      fprintf(stderr, "join: %s\n", err.msg);
      exit(1);
    }
  }
  r.cpu_s = (double)(lm_cpu_time_us() - c0) / 1e6;
  r.out = cnt.rows;
  r.state_rows = lm_join_state_rows(j);
  r.state_bytes = lm_join_state_bytes(j);
  r.eps = (double)d->nch / r.cpu_s;
  lm_pipeline_free(j);
  lm_schema_release(ls);
  lm_schema_release(rs);
  lm_schema_release(os);
  return r;
}

typedef struct uslot {
  int64_t key;
  bool used, has[2];
  int64_t v[2];
} uslot;

static result run_updating_ref(const udata *d) {
  result r;
  memset(&r, 0, sizeof r);
  int64_t c0 = lm_cpu_time_us();
  uint64_t cap = 1;
  while (cap < (uint64_t)d->keys * 2)
    cap *= 2;
  uslot *t = calloc(cap, sizeof *t);
  int64_t out = 0;
  for (int bi = 0; bi < d->nb; bi++) {
    int s = d->side[bi];
    for (int64_t c = d->bstart[bi]; c < d->bstart[bi + 1]; c++) {
      const int64_t *row = d->rows + 4 * c;
      int64_t k = row[0];
      uint64_t h = lm_hash_u64((uint64_t)k) & (cap - 1);
      while (t[h].used && t[h].key != k)
        h = (h + 1) & (cap - 1);
      t[h].used = true;
      t[h].key = k;
      if (t[h].has[1 - s])
        out++; /* one pair change */
      if (row[3] > 0) {
        t[h].has[s] = true;
        t[h].v[s] = row[2];
      } else
        t[h].has[s] = false;
    }
  }
  r.cpu_s = (double)(lm_cpu_time_us() - c0) / 1e6;
  r.out = out;
  r.eps = (double)d->nch / r.cpu_s;
  free(t);
  return r;
}

static void best(result *b, result r) {
  if (b->cpu_s == 0 || r.cpu_s < b->cpu_s)
    *b = r;
}

int main(int argc, char **argv) {
  int64_t n = 4000000, only_k = 0;
  int reps = 3;
  const char *q = NULL;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "k=", 2))
      only_k = atoll(argv[i] + 2);
    else if (!strncmp(argv[i], "q=", 2))
      q = argv[i] + 2;
    else if (pos++ == 0)
      n = atoll(argv[i]);
    else
      reps = atoi(argv[i]);
  }
  static const int64_t KS[] = {1000, 1000000};
  printf("| case | keys | events | Laminar events/s/core | CPU s | out rows | "
         "plain C events/s | CPU s | out rows | state B/row (raw 24) |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int ki = 0; ki < 2; ki++) {
    int64_t K = KS[ki];
    if (only_k && only_k != K)
      continue;
    if (!q || !strcmp(q, "interval")) {
      idata d;
      idata_make(&d, n, K, K / 2);
      result a = {0}, b = {0};
      for (int r = 0; r < reps; r++) {
        best(&a, run_interval_op(&d));
        best(&b, run_interval_ref(&d));
      }
      printf("| interval inner ±%lld µs | %lld | %lld | %.2f M | %.3f | %lld "
             "| %.2f M | %.3f | %lld | %.1f (%lld rows) |\n",
             (long long)d.bound, (long long)K, (long long)(2 * d.n),
             a.eps / 1e6, a.cpu_s, (long long)a.out, b.eps / 1e6, b.cpu_s,
             (long long)b.out,
             a.state_rows ? (double)a.state_bytes / (double)a.state_rows : 0,
             (long long)a.state_rows);
      if (a.out != b.out)
        printf("MISMATCH: interval output %lld vs reference %lld\n",
               (long long)a.out, (long long)b.out);
      idata_free(&d);
    }
    if ((!q || !strcmp(q, "state")) && K == 1000) {
      /* many buffered rows per key: bound [n/8 - 500, n/8 + 500] µs,
       * so left rows wait n/8 µs (~n/8 rows in state), one match a row */
      idata d;
      idata_make(&d, n, K, K / 2);
      d.shift = n / 8;
      result a = run_interval_op(&d), b = run_interval_ref(&d);
      printf("| interval inner [%lld, %lld] µs | %lld | %lld | %.2f M | %.3f "
             "| %lld | %.2f M | %.3f | %lld | %.1f (%lld rows) |\n",
             (long long)(d.shift - d.bound), (long long)(d.shift + d.bound),
             (long long)K, (long long)(2 * d.n), a.eps / 1e6, a.cpu_s,
             (long long)a.out, b.eps / 1e6, b.cpu_s, (long long)b.out,
             a.state_rows ? (double)a.state_bytes / (double)a.state_rows : 0,
             (long long)a.state_rows);
      if (a.out != b.out)
        printf("MISMATCH: interval output %lld vs reference %lld\n",
               (long long)a.out, (long long)b.out);
      idata_free(&d);
    }
    if (!q || !strcmp(q, "updating")) {
      udata d;
      udata_make(&d, n, K);
      result a = {0}, b = {0};
      for (int r = 0; r < reps; r++) {
        best(&a, run_updating_op(&d));
        best(&b, run_updating_ref(&d));
      }
      printf("| updating inner | %lld | %lld | %.2f M | %.3f | %lld | %.2f M "
             "| %.3f | %lld | %.1f (%lld rows) |\n",
             (long long)K, (long long)d.nch, a.eps / 1e6, a.cpu_s,
             (long long)a.out, b.eps / 1e6, b.cpu_s, (long long)b.out,
             a.state_rows ? (double)a.state_bytes / (double)a.state_rows : 0,
             (long long)a.state_rows);
      if (a.out != b.out)
        printf("MISMATCH: updating output %lld vs reference %lld\n",
               (long long)a.out, (long long)b.out);
      udata_free(&d);
    }
  }
  return 0;
}
