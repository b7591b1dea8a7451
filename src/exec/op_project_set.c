/*
 * exec/op_project_set.c — PostgreSQL's ProjectSet (a lateral function
 * scan) as a pipeline operator (exec/lm_srf.h): each input row followed
 * by the rows of its set-returning calls, cut into batches of
 * LM_SRF_BATCH_ROWS rows (and about LM_SRF_BATCH_BYTES bytes of repeated
 * variable-size input values) as they are made, so a call of 10^9 rows
 * runs in constant memory. The input's columns are repeated with
 * lm_array_take (one take per output batch), except the ones nothing
 * downstream reads (lm_op_project_set_unused): those are all-NULL, so a
 * large value (a 1 MB jsonb document) is not copied into each of its
 * elements' rows. The calls' columns are built by the cursors of
 * exec/srf.c.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/lm_srf.h"

#define MAX_CALLS 64

typedef struct pset_op {
  lm_operator base;
  lm_pset_call calls[MAX_CALLS];
  int n_calls;
  bool ord, outer;
  int weight_col;
  lm_schema *out_schema;
  lm_srf_rx rx[MAX_CALLS];
  lm_arena *arena; /* owned (lm_op_project_set_own); NULL = none */
  /* per input column (n_unused of them, malloc'd): nothing downstream
   * reads it, the output holds NULLs there; NULL = every column read */
  bool *unused;
  int n_unused;
} pset_op;

/* One call's cursor for the current row. */
typedef struct cursor {
  lm_srf_series series;
  lm_srf_split split;
  bool scalar_left; /* a scalar call's value not yet made */
  bool done;
} cursor;

/* The output batch being made: row indexes into the input, the calls'
 * (and ordinality's) builders. */
typedef struct outbuf {
  int32_t *idx;
  int64_t n;
  int64_t bytes; /* variable-size input bytes the rows repeat */
  lm_builder b[MAX_CALLS + 1];
} outbuf;

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int at_call(const lm_pset_call *c, int rc, lm_error *err) {
  if (rc && !err->line && c->line) {
    err->line = c->line;
    err->column = c->column;
  }
  return rc;
}

static void pset_free(lm_operator *op) {
  pset_op *p = (pset_op *)op;
  for (int j = 0; j < p->n_calls; j++)
    lm_srf_rx_free(&p->rx[j]);
  lm_schema_release(p->out_schema);
  free(p->unused);
  if (p->arena) {
    lm_arena_free(p->arena);
    free(p->arena);
  }
  free(p);
}

void lm_op_project_set_own(lm_operator *op, lm_arena *a) {
  ((pset_op *)op)->arena = a;
}

int lm_op_project_set_unused(lm_operator *op, const bool *used, int n) {
  pset_op *p = (pset_op *)op;
  int n_in = p->out_schema->n_fields - p->n_calls - (p->ord ? 1 : 0);
  if (n > n_in)
    n = n_in;
  bool *u = n > 0 ? calloc((size_t)n, sizeof *u) : NULL;
  if (n > 0 && !u)
    return LM_ERR_NOMEM;
  for (int c = 0; c < n; c++)
    u[c] = !used[c];
  free(p->unused);
  p->unused = u;
  p->n_unused = n;
  return 0;
}

static bool is_unused(const pset_op *p, int c) {
  return c < p->n_unused && p->unused[c];
}

/* The bytes row r of a repeats per output row: a variable-size value's
 * bytes, a list's items (8 bytes each); 0 for fixed-width types. */
static int64_t row_bytes(const lm_array *a, int64_t r) {
  if (!a->values || !a->values->data)
    return 0;
  int64_t i = a->offset + r;
  switch (a->type.id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LIST: {
    const int32_t *o = (const int32_t *)a->values->data;
    int64_t d = (int64_t)o[i + 1] - o[i];
    return a->type.id == LM_TYPE_LIST ? 8 * d : d;
  }
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_LARGE_LIST: {
    const int64_t *o = (const int64_t *)a->values->data;
    int64_t d = o[i + 1] - o[i];
    return a->type.id == LM_TYPE_LARGE_LIST ? 8 * d : d;
  }
  default:
    return 0;
  }
}

static int buf_init(pset_op *p, outbuf *o, lm_error *err) {
  o->n = 0;
  o->bytes = 0;
  int nb = p->n_calls + (p->ord ? 1 : 0);
  for (int j = 0; j < nb; j++) {
    lm_type t = j < p->n_calls ? p->calls[j].out : lm_type_make(LM_TYPE_INT64);
    if (lm_builder_init(&o->b[j], t, LM_SRF_BATCH_ROWS)) {
      while (j--)
        lm_builder_free(&o->b[j]);
      return nomem(err);
    }
  }
  return 0;
}

static void buf_free(pset_op *p, outbuf *o) {
  int nb = p->n_calls + (p->ord ? 1 : 0);
  for (int j = 0; j < nb; j++)
    lm_builder_free(&o->b[j]);
}

/* Emits the rows made so far (input rows `in`, taken by o->idx). */
static int flush(pset_op *p, const lm_batch *in, outbuf *o, lm_error *err) {
  if (!o->n)
    return 0;
  int n_in = p->out_schema->n_fields - p->n_calls - (p->ord ? 1 : 0);
  int nb = p->n_calls + (p->ord ? 1 : 0);
  int nc = n_in + nb + (p->weight_col >= 0 ? 1 : 0);
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  int rc = !cols ? nomem(err) : 0;
  for (int c = 0; !rc && c < n_in; c++) {
    /* a column nothing reads: NULLs of its type, not n copies */
    cols[c] = is_unused(p, c)
                  ? lm_array_new_null(p->out_schema->fields[c].type, o->n)
                  : lm_array_take(in->columns[c], o->idx, o->n);
    if (!cols[c])
      rc = nomem(err);
  }
  for (int j = 0; !rc && j < nb; j++) {
    if (o->b[j].oom || lm_builder_finish(&o->b[j], &cols[n_in + j]))
      rc = nomem(err);
  }
  if (!rc && p->weight_col >= 0 &&
      !(cols[n_in + nb] =
            lm_array_take(in->columns[p->weight_col], o->idx, o->n)))
    rc = nomem(err);
  lm_schema *os = NULL;
  if (!rc && p->weight_col >= 0) {
    os = lm_schema_new(nc);
    if (!os)
      rc = nomem(err);
    for (int c = 0; !rc && c < nc - 1; c++)
      lm_schema_set_field(os, c, p->out_schema->fields[c].name,
                          p->out_schema->fields[c].type,
                          p->out_schema->fields[c].nullable);
    if (!rc)
      lm_schema_set_field(os, nc - 1, "__weight", lm_type_make(LM_TYPE_INT64),
                          false);
  } else if (!rc) {
    os = lm_schema_retain(p->out_schema);
  }
  lm_batch *b = NULL;
  if (!rc) {
    b = lm_batch_new(os, o->n, cols);
    os = NULL;
    if (!b)
      rc = nomem(err);
  }
  if (!b && cols)
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
  lm_schema_release(os);
  free(cols);
  o->n = 0; /* the builders are reset by lm_builder_finish */
  o->bytes = 0;
  if (!rc)
    rc = lm_operator_emit(&p->base, b, err);
  lm_batch_release(b);
  return rc;
}

/* The rows of input row r (argument arrays args[j][k]). */
static int expand_row(pset_op *p, const lm_batch *in, lm_array *args[][3],
                      int64_t r, outbuf *o, lm_error *err) {
  cursor cur[MAX_CALLS];
  int rc = 0;
  for (int j = 0; j < p->n_calls; j++) {
    const lm_pset_call *c = &p->calls[j];
    cursor *k = &cur[j];
    k->done = false;
    k->scalar_left = c->kind == LM_SRF_SCALAR;
    if (c->kind == LM_SRF_SCALAR)
      continue;
    lm_value v[3];
    for (int a = 0; a < c->n_args; a++)
      lm_array_get_value(args[j][a], r, &v[a]);
    if (c->kind == LM_SRF_SERIES)
      rc = lm_srf_series_init(&k->series, c->out, &v[0], &v[1],
                              c->n_args == 3 ? &v[2] : NULL, c->step_days,
                              c->tz, err);
    else
      rc = lm_srf_split_init(&k->split, c->kind, &v[0], &v[1],
                             c->n_args == 3 ? &v[2] : NULL, &p->rx[j], err);
    if (rc)
      return at_call(c, rc, err);
  }
  /* the bytes each of r's rows repeats: the batch is cut at about
   * LM_SRF_BATCH_BYTES of them (at least one row) */
  int64_t rb = 0;
  int n_in = p->out_schema->n_fields - p->n_calls - (p->ord ? 1 : 0);
  for (int c = 0; c < n_in; c++)
    if (!is_unused(p, c))
      rb += row_bytes(in->columns[c], r);
  int64_t ord = 0;
  for (;;) {
    int64_t room = LM_SRF_BATCH_ROWS - o->n;
    if (rb > 0 && o->bytes + rb * room > LM_SRF_BATCH_BYTES) {
      room = (LM_SRF_BATCH_BYTES - o->bytes) / rb;
      if (room <= 0 && !o->n)
        room = 1;
    }
    if (room <= 0) {
      if ((rc = flush(p, in, o, err)))
        return rc;
      continue;
    }
    int64_t got[MAX_CALLS], most = 0;
    for (int j = 0; j < p->n_calls; j++) {
      const lm_pset_call *c = &p->calls[j];
      lm_builder *b = &o->b[j];
      if (c->kind == LM_SRF_SERIES) {
        got[j] = lm_srf_series_fill(&cur[j].series, b, room);
      } else if (c->kind != LM_SRF_SCALAR) {
        got[j] = lm_srf_split_fill(&cur[j].split, b, room);
      } else if (cur[j].scalar_left) {
        lm_builder_append_from(b, args[j][0], r);
        cur[j].scalar_left = false;
        got[j] = 1;
      } else {
        got[j] = 0;
      }
      most = got[j] > most ? got[j] : most;
    }
    if (!most) {
      if (ord || !p->outer)
        return 0;
      /* LEFT JOIN LATERAL ... ON TRUE: one row of NULLs */
      for (int j = 0; j < p->n_calls + (p->ord ? 1 : 0); j++)
        lm_builder_append_null(&o->b[j]);
      o->idx[o->n++] = (int32_t)r;
      o->bytes += rb;
      return 0;
    }
    for (int j = 0; j < p->n_calls; j++)
      for (int64_t k = got[j]; k < most; k++)
        lm_builder_append_null(&o->b[j]);
    if (p->ord)
      for (int64_t k = 0; k < most; k++)
        lm_builder_append_int(&o->b[p->n_calls], ++ord);
    else
      ord += most;
    for (int64_t k = 0; k < most; k++)
      o->idx[o->n++] = (int32_t)r;
    o->bytes += rb * most;
  }
}

static int pset_push(lm_operator *op, lm_batch *b, lm_error *err) {
  pset_op *p = (pset_op *)op;
  lm_array *args[MAX_CALLS][3];
  memset(args, 0, sizeof args);
  int rc = 0;
  for (int j = 0; j < p->n_calls && !rc; j++)
    for (int a = 0; a < p->calls[j].n_args && !rc; a++)
      rc = at_call(&p->calls[j],
                   lm_eval(p->calls[j].args[a], b, &args[j][a], err), err);
  outbuf o;
  memset(&o, 0, sizeof o);
  bool ok = false;
  if (!rc) {
    o.idx = malloc(sizeof *o.idx * LM_SRF_BATCH_ROWS);
    rc = o.idx ? buf_init(p, &o, err) : nomem(err);
    ok = !rc;
  }
  for (int64_t r = 0; !rc && r < b->num_rows; r++)
    rc = expand_row(p, b, args, r, &o, err);
  if (!rc)
    rc = flush(p, b, &o, err);
  if (ok)
    buf_free(p, &o);
  free(o.idx);
  for (int j = 0; j < p->n_calls; j++)
    for (int a = 0; a < 3; a++)
      lm_array_release(args[j][a]);
  return rc;
}

static const lm_operator_vt pset_vt = {
    "project_set", pset_push, lm_operator_forward_watermark, pset_free};

lm_operator *lm_op_project_set_new(const lm_pset_call *calls, int n_calls,
                                   bool ord, bool outer, int weight_col,
                                   lm_schema *out_schema) {
  if (n_calls < 1 || n_calls > MAX_CALLS) {
    lm_schema_release(out_schema);
    return NULL;
  }
  pset_op *p = calloc(1, sizeof *p);
  if (!p) {
    lm_schema_release(out_schema);
    return NULL;
  }
  p->base.vt = &pset_vt;
  memcpy(p->calls, calls, sizeof *calls * (size_t)n_calls);
  p->n_calls = n_calls;
  p->ord = ord;
  p->outer = outer;
  p->weight_col = weight_col;
  p->out_schema = out_schema;
  return &p->base;
}
