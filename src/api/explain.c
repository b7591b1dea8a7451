/*
 * EXPLAIN and EXPLAIN ANALYZE (docs/explain.md): the plan of an ad-hoc
 * SELECT, of a CREATE STREAM / MATERIALIZED VIEW, or of an existing stream
 * or view, as one text column (QUERY PLAN), one line per row, in
 * PostgreSQL's indented tree form: the operator producing the result
 * first, each input below it after "->  ". Every node of a continuous
 * query says whether its output is append-only or updating (a changelog)
 * and its event-time (watermark) column. ANALYZE adds each operator's
 * counters (lm_operator: rows and batches in and out, own time, late rows,
 * state).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/explain_int.h"
#include "api/srf_from.h"
#include "exec/lm_join.h"
#include "exec/lm_strfn.h"
#include "exec/lm_window_fn.h"

static opstat snap(const lm_operator *op) {
  opstat s;
  memset(&s, 0, sizeof s);
  s.name = op->vt->name;
  s.rows_in = op->rows_in;
  s.rows_out = op->rows_out;
  s.batches_in = op->batches_in;
  s.batches_out = op->batches_out;
  s.time_ns = op->time_ns;
  s.late = op->late_dropped;
  s.state_rows = s.state_bytes = -1;
  if (!strcmp(op->vt->name, "join")) {
    s.state_rows = lm_join_state_rows(op);
    s.state_bytes = lm_join_state_bytes(op);
  } else if (op->state) {
    op->state(op, &s.state_rows, &s.state_bytes);
  }
  return s;
}

opstat lm_ex_snap(const lm_operator *op) {
  return snap(op);
}

/* ------------------------------------------------------------- output */

static void add_line(ex *x, int indent, bool arrow, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void add_line(ex *x, int indent, bool arrow, const char *fmt,
                     va_list ap) {
  lm_buf b;
  lm_buf_init(&b);
  for (int i = 0; i < indent; i++)
    lm_buf_append(&b, " ", 1);
  if (arrow)
    lm_buf_append(&b, "->  ", 4);
  char tmp[4096];
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  lm_buf_puts(&b, tmp);
  if (x->n == x->cap) {
    int nc = x->cap ? x->cap * 2 : 32;
    char **nl = realloc(x->lines, sizeof(char *) * (size_t)nc);
    if (!nl) {
      x->oom = true;
      lm_buf_free(&b);
      return;
    }
    x->lines = nl;
    x->cap = nc;
  }
  char *s = lm_strdup(b.data ? b.data : "");
  lm_buf_free(&b);
  if (!s) {
    x->oom = true;
    return;
  }
  x->lines[x->n++] = s;
}

/* A node line at depth d (0 = the root): PostgreSQL's layout. */
static void node(ex *x, int d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void node(ex *x, int d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(x, d ? 6 * (d - 1) + 2 : 0, d > 0, fmt, ap);
  va_end(ap);
}

/* A detail line of the node at depth d. */
static void detail(ex *x, int d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void detail(ex *x, int d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(x, d ? 6 * d + 2 : 2, false, fmt, ap);
  va_end(ap);
}

void lm_ex_node(ex *x, int d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(x, d ? 6 * (d - 1) + 2 : 0, d > 0, fmt, ap);
  va_end(ap);
}

void lm_ex_detail(ex *x, int d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(x, d ? 6 * d + 2 : 2, false, fmt, ap);
  va_end(ap);
}

const char *lm_ex_actual_rows(const ex *x, char *buf, size_t cap, int64_t rows,
                              int loops, int64_t ns) {
  buf[0] = 0;
  if (!x->analyze)
    return buf;
  int n = snprintf(buf, cap, " (actual rows=%" PRId64, rows);
  if (loops > 1 && n > 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, " loops=%d", loops);
  if (x->timing && ns >= 0 && n > 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, " time=%.3f ms", (double)ns / 1e6);
  if (n > 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, ")");
  return buf;
}

static void add_text(ex *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_text(ex *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(x, 0, false, fmt, ap);
  va_end(ap);
}

void lm_ex_embed_at(ex *x, int p, char *const *lines, int n) {
  for (int i = 0; i < n; i++) {
    if (i == 0 && lines[i][0] != ' ')
      add_text(x, "%*s->  %s", p, "", lines[i]);
    else
      add_text(x, "%*s%s", p + 4, "", lines[i]);
  }
}

void lm_ex_embed(ex *x, int d, char *const *lines, int n) {
  if (d == 0) {
    for (int i = 0; i < n; i++)
      add_text(x, "%s", lines[i]);
    return;
  }
  lm_ex_embed_at(x, 6 * (d - 1) + 2, lines, n);
}

int lm_ex_top_details_end(char *const *lines, int n) {
  int i = 1; /* up to its first input ("  ->  "), its sections included */
  while (i < n && strncmp(lines[i], "  ->  ", 6))
    i++;
  return i;
}

/* Streaming properties of a node's output: "(append-only, watermark ts)". */
static const char *props(ex *x, char *buf, size_t cap, bool changelog,
                         const char *wm_col) {
  if (x->adhoc) {
    buf[0] = 0;
    return buf;
  }
  snprintf(buf, cap, "  (%s, watermark: %s)",
           changelog ? "updating" : "append-only", wm_col ? wm_col : "none");
  return buf;
}

/* " (actual rows=... in=... batches=... time=... ms)" for ANALYZE. */
static const char *actual(ex *x, char *buf, size_t cap, const opstat *s) {
  buf[0] = 0;
  if (!x->analyze || !s)
    return buf;
  int n = snprintf(buf, cap, " (actual rows=%" PRId64 " in=%" PRId64,
                   s->rows_out, s->rows_in);
  if (n > 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, " batches=%" PRId64, s->batches_in);
  if (x->timing && n > 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, " time=%.3f ms",
                  (double)s->time_ns / 1e6);
  if (n > 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, ")");
  return buf;
}

static void stat_details(ex *x, int d, const opstat *s, bool late_kind) {
  if (!x->analyze || !s)
    return;
  if (late_kind || s->late)
    detail(x, d, "Late Rows Dropped: %" PRId64, s->late);
  const char *unit = strcmp(s->name, "aggregate") ? "rows" : "groups";
  if (s->state_rows >= 0 && s->state_bytes >= 0 && x->timing)
    detail(x, d, "State Size: %" PRId64 " %s, %" PRId64 " bytes", s->state_rows,
           unit, s->state_bytes);
  else if (s->state_rows >= 0)
    detail(x, d, "State Size: %" PRId64 " %s", s->state_rows, unit);
}

/* An interval of µs as SQL: INTERVAL 'n' UNIT with the largest exact unit. */
static const char *interval_text(char *buf, size_t cap, int64_t us) {
  static const struct {
    int64_t us;
    const char *unit;
  } units[] = {{86400000000LL, "DAY"},  {3600000000LL, "HOUR"},
               {60000000LL, "MINUTE"},  {1000000LL, "SECOND"},
               {1000LL, "MILLISECOND"}, {1LL, "MICROSECOND"}};
  if (us == 0) {
    snprintf(buf, cap, "INTERVAL '0' SECOND");
    return buf;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (us % units[i].us == 0) {
      snprintf(buf, cap, "INTERVAL '%" PRId64 "' %s", us / units[i].us,
               units[i].unit);
      break;
    }
  return buf;
}

/* ------------------------------------------------ bound expressions */

static const char *fn_name(lm_func_id f) {
  switch (f) {
  case LM_FN_TUMBLE:
    return "tumble";
  case LM_FN_TUMBLE_END:
    return "tumble_end";
  case LM_FN_HOP:
    return "hop";
  case LM_FN_HOP_END:
    return "hop_end";
  case LM_FN_CUMULATE:
    return "cumulate";
  case LM_FN_CUMULATE_END:
    return "cumulate_end";
  case LM_FN_SESSION:
    return "session";
  case LM_FN_SESSION_END:
    return "session_end";
  case LM_FN_ABS:
    return "abs";
  case LM_FN_LOWER:
    return "lower";
  case LM_FN_UPPER:
    return "upper";
  case LM_FN_LENGTH:
    return "length";
  case LM_FN_COALESCE:
    return "coalesce";
  case LM_FN_ROUND:
    return "round";
  case LM_FN_FLOOR:
    return "floor";
  case LM_FN_CEIL:
    return "ceil";
  case LM_FN_SUBSTR:
    return "substr";
  case LM_FN_DATE_TRUNC:
    return "date_trunc";
  case LM_FN_DATE_PART:
    return "date_part";
  case LM_FN_CONCAT:
    return "concat";
  case LM_FN_GREATEST:
    return "greatest";
  case LM_FN_LEAST:
    return "least";
  case LM_FN_NULLIF:
    return "nullif";
  default:
    return "function";
  }
}

/* Column name n as EXPLAIN shows it: quoted as PostgreSQL's
 * quote_identifier ("Id", v, "select"); a LATERAL item's hidden key column
 * ("<rel>.\x01lat_pN_K\x02<what>", api/select_lateral.c) as <rel>.(<what>),
 * never the internal name; "\x03text": text as is (already quoted). */
static void put_name(lm_buf *b, const char *n) {
  const char *h = strchr(n, LM_SRF_HIDDEN), *d = h ? strchr(h, '\x02') : NULL;
  if (n[0] == '\x03') /* already quoted SQL text (a qualified key name) */
    lm_buf_puts(b, n + 1);
  else if (!d)
    lm_quote_ident(b, n, (int32_t)strlen(n)); /* as PostgreSQL: "Id", v */
  else
    lm_buf_printf(b, "%.*s(%s)", (int)(h - n), n, d + 1);
}

/* A bound expression as SQL-like text; columns named by names[0..n). */
static void bx_print(lm_buf *b, const lm_bexpr *e, const char *const *names,
                     int n_names, int depth) {
  if (!e || depth > 64) {
    lm_buf_printf(b, "...");
    return;
  }
  switch (e->kind) {
  case LM_BX_COLUMN:
    if (e->col >= 0 && e->col < n_names)
      put_name(b, names[e->col]);
    else
      lm_buf_printf(b, "$%d", e->col);
    return;
  case LM_BX_LITERAL:
    if (!e->lit.is_null && e->lit.type.id == LM_TYPE_UTF8) {
      lm_buf_printf(b, "'%.*s'", (int)e->lit.v.s.len, e->lit.v.s.p);
      return;
    }
    lm_value_format(b, &e->lit, "NULL");
    return;
  case LM_BX_UNARY:
    lm_buf_printf(b, "%s%s", lm_sql_op_text(e->op),
                  e->op == LM_OP_NOT ? " " : "");
    bx_print(b, e->args[0], names, n_names, depth + 1);
    return;
  case LM_BX_BINARY:
    lm_buf_printf(b, "(");
    bx_print(b, e->args[0], names, n_names, depth + 1);
    lm_buf_printf(b, " %s ", lm_sql_op_text(e->op));
    bx_print(b, e->args[1], names, n_names, depth + 1);
    lm_buf_printf(b, ")");
    return;
  case LM_BX_CAST:
    lm_buf_printf(b, "CAST(");
    bx_print(b, e->args[0], names, n_names, depth + 1);
    lm_buf_printf(b, " AS %s)", lm_type_name(e->type));
    return;
  case LM_BX_IS_NULL:
    bx_print(b, e->args[0], names, n_names, depth + 1);
    lm_buf_printf(b, e->negated ? " IS NOT NULL" : " IS NULL");
    return;
  case LM_BX_LIKE:
    bx_print(b, e->args[0], names, n_names, depth + 1);
    lm_buf_printf(b, " %s%s ", e->negated ? "NOT " : "",
                  e->icase ? "ILIKE" : "LIKE");
    bx_print(b, e->args[1], names, n_names, depth + 1);
    return;
  case LM_BX_CASE:
    lm_buf_printf(b, "CASE ... END");
    return;
  case LM_BX_SUBQUERY: /* its plan is the query's SubPlan / InitPlan */
    lm_buf_printf(b, "(subquery)");
    return;
  default:
    lm_buf_printf(b, "(...)");
    return;
  case LM_BX_FUNC:
    lm_buf_printf(b, "%s(", fn_name(e->fn));
    /* (NULLIF's third argument: its first in its own type) */
    for (int i = 0; i < (e->fn == LM_FN_NULLIF ? 2 : e->n_args); i++) {
      if (i)
        lm_buf_printf(b, ", ");
      bx_print(b, e->args[i], names, n_names, depth + 1);
    }
    lm_buf_printf(b, ")");
    return;
  }
}

/* Field names of a schema (pointers into it), at most cap. */
static int schema_names(const lm_schema *s, const char **names, int cap) {
  int n = 0;
  for (int i = 0; s && i < s->n_fields && n < cap; i++)
    names[n++] = s->fields[i].name;
  return n;
}

static void bx_text(lm_buf *b, const lm_bexpr *e, const lm_schema *s) {
  const char *names[1024];
  int n = schema_names(s, names, 1024);
  bx_print(b, e, names, n, 0);
}

static const char *agg_name(lm_agg_kind k) {
  switch (k) {
  case LM_AGG_COUNT_STAR:
  case LM_AGG_COUNT:
    return "count";
  case LM_AGG_SUM:
    return "sum";
  case LM_AGG_AVG:
    return "avg";
  case LM_AGG_MIN:
    return "min";
  case LM_AGG_MAX:
    return "max";
  case LM_AGG_FIRST:
    return "first_value";
  case LM_AGG_LAST:
    return "last_value";
  case LM_AGG_VAR_SAMP:
    return "var_samp";
  case LM_AGG_VAR_POP:
    return "var_pop";
  case LM_AGG_STDDEV_SAMP:
    return "stddev_samp";
  case LM_AGG_STDDEV_POP:
    return "stddev_pop";
  case LM_AGG_APPROX_DISTINCT:
    return "approx_count_distinct";
  case LM_AGG_BOOL_AND:
    return "bool_and";
  case LM_AGG_BOOL_OR:
    return "bool_or";
  case LM_AGG_STRING_AGG:
    return "string_agg";
  case LM_AGG_REGR:
    return "regr";
  case LM_AGG_PAIR:
    return "pair";
  case LM_AGG_BIT_AND:
    return "bit_and";
  case LM_AGG_BIT_OR:
    return "bit_or";
  case LM_AGG_BIT_XOR:
    return "bit_xor";
  case LM_AGG_PCT_CONT:
    return "percentile_cont";
  case LM_AGG_PCT_DISC:
    return "percentile_disc";
  case LM_AGG_MODE:
    return "mode";
  }
  return "aggregate";
}

/* ------------------------------------------------------- the pipeline */

typedef enum stage_kind {
  ST_LATE,
  ST_FILTER,
  ST_TOPN_FILTER,
  ST_TOPN,
  ST_TOPN_PROJECT,
  ST_WINDOW,
  ST_SESSION,
  ST_AGG,
  ST_PROJECT,
  ST_PERIODIC,
  ST_OVER,    /* exec/op_over.c */
  ST_OVER_CL, /* exec/op_over_changelog.c */
  ST_TFILTER, /* exec/op_temporal_filter.c */
  ST_PSET,    /* exec/op_project_set.c */
} stage_kind;

static const char *stage_op(stage_kind k) {
  static const char *const names[] = {
      "late_filter",     "filter",
      "filter",          "topn",
      "project",         "window_aggregate",
      "session_window",  "aggregate",
      "project",         "emit_periodically",
      "over_aggregate",  "over_aggregate_changelog",
      "temporal_filter", "project_set"};
  return names[k];
}

/* One pipeline: its stages bottom-up (the order lm_pipeline_build_ex and
 * select.c build them) and their operators when they exist. */
typedef struct xpipe {
  stage_kind st[12];
  const opstat *ops[12];
  opstat copies[12];
  int n;
} xpipe;

static void plan_stages(xpipe *p, const lm_plan *plan, bool late_filter,
                        bool streaming, bool changelog) {
  p->n = 0;
  if (late_filter)
    p->st[p->n++] = ST_LATE;
  if (plan->where)
    p->st[p->n++] = ST_FILTER;
  if (plan->topn) {
    if (plan->topn->where)
      p->st[p->n++] = ST_TOPN_FILTER;
    p->st[p->n++] = ST_TOPN;
    p->st[p->n++] = ST_TOPN_PROJECT;
  } else if (plan->has_agg && plan->window_kind == LM_WIN_SESSION) {
    p->st[p->n++] = ST_SESSION;
  } else if (plan->has_agg && plan->window_kind != LM_WIN_NONE) {
    p->st[p->n++] = ST_WINDOW;
  } else if (plan->has_agg) {
    p->st[p->n++] = ST_AGG;
  } else if (plan->n_tfilter) {
    p->st[p->n++] = ST_TFILTER;
  } else {
    p->st[p->n++] = ST_PROJECT;
  }
  if (streaming && changelog && plan->emit == LM_EMIT_PERIODICALLY)
    p->st[p->n++] = ST_PERIODIC;
  for (int i = 0; i < p->n; i++)
    p->ops[i] = NULL;
}

/* Attaches the operators of a live chain (head .. output) to the stages,
 * in order, when their kinds match; returns the operator after the last
 * stage (the output, or what follows). */
static lm_operator *attach_chain(xpipe *p, lm_operator *op) {
  for (int i = 0; i < p->n && op; i++) {
    if (strcmp(op->vt->name, stage_op(p->st[i])))
      continue; /* a stage this build does not have: no counters */
    p->copies[i] = snap(op);
    p->ops[i] = &p->copies[i];
    op = op->next;
  }
  return op;
}

static void attach_stats(xpipe *p, const opstat *ops, int n) {
  int k = 0;
  for (int i = 0; i < p->n && k < n; i++) {
    if (strcmp(ops[k].name, stage_op(p->st[i])))
      continue;
    p->ops[i] = &ops[k++];
  }
}

static const char *window_kind_name(int k) {
  return k == LM_WIN_TUMBLE     ? "TUMBLE"
         : k == LM_WIN_HOP      ? "HOP"
         : k == LM_WIN_CUMULATE ? "CUMULATE"
                                : "SESSION";
}

static const char *emit_name(lm_emit_kind e) {
  switch (e) {
  case LM_EMIT_DEFAULT:
    return "default (updates)";
  case LM_EMIT_ON_WINDOW_CLOSE:
    return "ON WINDOW CLOSE";
  case LM_EMIT_CHANGES:
    return "CHANGES";
  case LM_EMIT_ON_UPDATE:
    return "ON UPDATE";
  case LM_EMIT_FINAL:
    return "FINAL";
  case LM_EMIT_PERIODICALLY:
    return "PERIODICALLY";
  case LM_EMIT_AFTER_WATERMARK:
    return "AFTER WATERMARK";
  }
  return "?";
}

static void print_expr_list(lm_buf *b, lm_expr *const *es, int n) {
  for (int i = 0; i < n; i++) {
    if (i)
      lm_buf_printf(b, ", ");
    lm_sql_expr_to_string(es[i], b);
  }
}

static void out_list(lm_buf *b, const lm_schema *s) {
  for (int i = 0; s && i < s->n_fields; i++) {
    lm_buf_printf(b, "%s", i ? ", " : "");
    put_name(b, s->fields[i].name);
  }
}

/* Name n as PostgreSQL's quote_identifier writes it ("Id", v, "select"),
 * in buf (cap bytes, truncated when longer); returns buf. */
static const char *qid(char *buf, size_t cap, const char *n) {
  lm_buf b;
  lm_buf_init(&b);
  if (lm_quote_ident(&b, n, (int32_t)strlen(n)) || !b.data)
    snprintf(buf, cap, "%s", n);
  else
    snprintf(buf, cap, "%s", b.data);
  lm_buf_free(&b);
  return buf;
}

/* The details of stage k of plan (sel: its SELECT, may be NULL). */
/* The OVER operator x->over's calls, order and filter (the input's
 * columns are the first of plan's input). */
static void over_details(ex *x, int d, stage_kind k, const lm_plan *plan,
                         const lm_select *sel) {
  lm_buf b;
  lm_buf_init(&b);
  int tc = -1;
  bool oa = false;
  const lm_schema *is = plan->input_schema;
  for (int c = 0;; c++) {
    const lm_over_call *oc = lm_op_over_call(x->over, c, &tc, &oa);
    if (!oc)
      break;
    lm_buf_printf(&b, "%s(", oc->fn);
    if (oc->arg)
      bx_text(&b, oc->arg, is);
    else
      lm_buf_printf(&b, "*");
    lm_buf_printf(&b, ") OVER (");
    for (int i = 0; i < oc->n_part; i++) {
      lm_buf_printf(&b, i ? ", " : "PARTITION BY ");
      bx_text(&b, oc->part[i], is);
    }
    lm_buf_printf(&b, "%sORDER BY %s %s BETWEEN ", oc->n_part ? " " : "",
                  is && tc >= 0 && tc < is->n_fields ? is->fields[tc].name
                                                     : "?",
                  oc->unit == LM_FRAME_ROWS ? "ROWS" : "RANGE");
    char iv[64];
    if (oc->preceding < 0)
      lm_buf_printf(&b, "UNBOUNDED");
    else if (oc->unit == LM_FRAME_ROWS)
      lm_buf_printf(&b, "%lld", (long long)oc->preceding);
    else
      lm_buf_printf(&b, "%s", interval_text(iv, sizeof iv, oc->preceding));
    lm_buf_printf(&b, " PRECEDING AND CURRENT ROW)");
    detail(x, d, "Call: %s", b.data ? b.data : "");
    lm_buf_reset(&b);
  }
  if (sel && sel->where) {
    lm_sql_expr_to_string(sel->where, &b);
    detail(x, d, "Filter: %s", b.data ? b.data : "");
  }
  detail(x, d, "Emit: %s",
         k == ST_OVER_CL ? "each change at once (updating input)"
         : oa            ? "each row on arrival (processing time)"
                         : "each row when the watermark passes it");
  lm_buf_free(&b);
}

/* VERBOSE: the node's output columns (the first n of s; n < 0: all). */
static void verbose_out(ex *x, int d, const lm_schema *s, int n) {
  if (!x->verbose || !s)
    return;
  lm_buf b;
  lm_buf_init(&b);
  int nf = n >= 0 && n < s->n_fields ? n : s->n_fields;
  for (int i = 0; i < nf; i++) {
    lm_buf_printf(&b, "%s", i ? ", " : "");
    put_name(&b, s->fields[i].name);
  }
  detail(x, d, "Output: %s", b.data ? b.data : "");
  lm_buf_free(&b);
}

/* Grouping sets (plan->n_gsets): one line per set, in the order the sets
 * were expanded (PostgreSQL's for ROLLUP, CUBE and GROUPING SETS), as
 * PostgreSQL's MixedAggregate prints them: `Hash Key: a, b` (every set is
 * hashed, in one pass), `Group Key: ()` for the empty set. */
static void gset_keys(ex *x, int d, const lm_plan *plan) {
  lm_buf b;
  lm_buf_init(&b);
  for (int s = 0; s < plan->n_gsets; s++) {
    lm_buf_reset(&b);
    int shown = 0;
    for (int k = 0; k < plan->gset_key && k < 64; k++)
      if (plan->gset_mask[s] & (UINT64_C(1) << k)) {
        if (shown++)
          lm_buf_printf(&b, ", ");
        bx_text(&b, plan->keys[k], plan->input_schema);
      }
    if (shown)
      detail(x, d, "Hash Key: %s", b.data);
    else
      detail(x, d, "Group Key: ()");
  }
  lm_buf_free(&b);
}

static void stage_details(ex *x, int d, stage_kind k, const lm_plan *plan,
                          const lm_select *sel) {
  lm_buf b;
  lm_buf_init(&b);
  char t1[64], t2[64], t3[64];
  switch (k) {
  case ST_LATE:
  case ST_PERIODIC:
  case ST_PSET:
    break;
  case ST_OVER:
  case ST_OVER_CL:
    over_details(x, d, k, plan, sel);
    break;
  case ST_FILTER:
  case ST_TOPN_FILTER: {
    const lm_bexpr *w = k == ST_FILTER ? plan->where : plan->topn->where;
    const lm_select *s = k == ST_FILTER ? sel : sel ? sel->from_subquery : NULL;
    if (s && s->where && !(x->run && plan->join) && !plan->n_tfilter)
      lm_sql_expr_to_string(s->where, &b); /* (a temporal filter's
                                              conjuncts are not here) */
    else
      bx_text(&b, w,
              k == ST_FILTER && !plan->topn ? plan->input_schema
                                            : plan->topn->input_schema);
    detail(x, d, "Filter: %s", b.data ? b.data : "");
    verbose_out(x, d,
                k == ST_FILTER && !plan->topn ? plan->input_schema
                                              : plan->topn->input_schema,
                -1);
    break;
  }
  case ST_TOPN: {
    const lm_select *in = sel ? sel->from_subquery : NULL;
    const lm_expr *rn = NULL;
    for (int i = 0; in && i < in->n_items && !rn; i++)
      if (in->items[i].expr->over)
        rn = in->items[i].expr;
    if (rn && rn->n_partition_by) {
      print_expr_list(&b, rn->partition_by, rn->n_partition_by);
      detail(x, d, "Partition By: %s", b.data);
      lm_buf_reset(&b);
    }
    if (rn && rn->n_over_order) {
      for (int i = 0; i < rn->n_over_order; i++) {
        if (i)
          lm_buf_printf(&b, ", ");
        lm_sql_expr_to_string(rn->over_order[i].expr, &b);
        if (rn->over_order[i].desc)
          lm_buf_printf(&b, " DESC");
      }
      detail(x, d, "Order By: %s", b.data);
      lm_buf_reset(&b);
    }
    detail(x, d, "Limit: rn <= %" PRId64 "%s", plan->topn_limit,
           plan->topn_rank_visible ? " (rank changes emitted)" : "");
    break;
  }
  case ST_WINDOW:
  case ST_SESSION:
  case ST_AGG: {
    if (k != ST_AGG) {
      const char *tc =
          plan->window_time_col >= 0 &&
                  plan->window_time_col < plan->input_schema->n_fields
              ? plan->input_schema->fields[plan->window_time_col].name
              : "?";
      if (plan->window_kind == LM_WIN_TUMBLE)
        detail(x, d, "Window: TUMBLE(%s, %s)", tc,
               interval_text(t1, sizeof t1, plan->window_size_us));
      else if (plan->window_kind == LM_WIN_SESSION)
        detail(x, d, "Window: SESSION(%s, gap %s)", tc,
               interval_text(t1, sizeof t1, plan->window_size_us));
      else
        detail(x, d, "Window: %s(%s, %s %s, size %s)",
               window_kind_name(plan->window_kind), tc,
               plan->window_kind == LM_WIN_HOP ? "slide" : "step",
               interval_text(t1, sizeof t1, plan->window_slide_us),
               interval_text(t2, sizeof t2, plan->window_size_us));
      if (plan->window_offset_us)
        detail(x, d, "Window Offset: %s",
               interval_text(t3, sizeof t3, plan->window_offset_us));
    }
    if (plan->n_gsets) {
      gset_keys(x, d, plan);
    } else if (sel && sel->n_group_by && !sel->from_subquery) {
      print_expr_list(&b, sel->group_by, sel->n_group_by);
      detail(x, d, "Group Key: %s", b.data);
      lm_buf_reset(&b);
    } else if (plan->n_keys) {
      int shown = 0;
      for (int i = 0; i < plan->n_keys; i++)
        if (strncmp(plan->key_names[i], "__", 2))
          lm_buf_printf(&b, "%s%s", shown++ ? ", " : "", plan->key_names[i]);
      if (shown)
        detail(x, d, "Group Key: %s", b.data);
      lm_buf_reset(&b);
    }
    for (int a = 0; a < plan->n_aggs; a++) {
      const lm_agg_spec *ag = &plan->aggs[a];
      lm_buf_printf(&b, "%s%s(%s", a ? ", " : "", agg_name(ag->kind),
                    ag->distinct ? "DISTINCT " : "");
      if (ag->kind == LM_AGG_COUNT_STAR)
        lm_buf_printf(&b, "*");
      else
        bx_text(&b, ag->arg, plan->input_schema);
      lm_buf_printf(&b, ")");
    }
    if (plan->n_aggs)
      detail(x, d, "Aggregates: %s", b.data);
    lm_buf_reset(&b);
    if (sel && sel->having) {
      lm_sql_expr_to_string(sel->having, &b);
      detail(x, d, "Having: %s", b.data);
      lm_buf_reset(&b);
    } else if (plan->having) {
      bx_text(&b, plan->having, plan->agg_schema);
      detail(x, d, "Having: %s", b.data);
      lm_buf_reset(&b);
    }
    out_list(&b, plan->out_schema);
    detail(x, d, "Output: %s", b.data ? b.data : "");
    if (!x->adhoc && k != ST_AGG) {
      detail(x, d, "Emit: %s%s%s", emit_name(plan->emit),
             plan->emit == LM_EMIT_PERIODICALLY ? " " : "",
             plan->emit == LM_EMIT_PERIODICALLY
                 ? interval_text(t1, sizeof t1, plan->emit_interval_us)
                 : "");
      detail(x, d, "Allowed Lateness: %s",
             interval_text(t2, sizeof t2, plan->allowed_lateness_us));
      if (sel && sel->late_data_to)
        detail(x, d, "Late Data To: %s", sel->late_data_to);
    } else if (!x->adhoc) {
      detail(x, d, "Emit: %s", emit_name(plan->emit));
    }
    break;
  }
  case ST_PROJECT:
  case ST_TOPN_PROJECT:
    out_list(&b, plan->out_schema);
    detail(x, d, "Output: %s", b.data ? b.data : "");
    break;
  case ST_TFILTER:
    for (int i = 0; i < plan->n_tfilter; i++) {
      const lm_tfilter_cond *c = &plan->tfilter[i];
      lm_op op = c->op;
      if (i)
        lm_buf_printf(&b, " AND ");
      bx_text(&b, c->e, plan->input_schema);
      lm_buf_printf(&b, " %s now()",
                    op == LM_OP_LT   ? "<"
                    : op == LM_OP_LE ? "<="
                    : op == LM_OP_GT ? ">"
                                     : ">=");
      if (c->k_us)
        lm_buf_printf(
            &b, " %s %s", c->k_us < 0 ? "-" : "+",
            interval_text(t1, sizeof t1, c->k_us < 0 ? -c->k_us : c->k_us));
    }
    detail(x, d, "Condition: %s", b.data ? b.data : "");
    detail(x, d, "now(): the watermark, floored to the second");
    lm_buf_reset(&b);
    out_list(&b, plan->out_schema);
    detail(x, d, "Output: %s", b.data ? b.data : "");
    break;
  }
  lm_buf_free(&b);
}

static const char *stage_title(stage_kind k, const lm_plan *plan) {
  switch (k) {
  case ST_LATE:
    return "Late Row Filter";
  case ST_FILTER:
  case ST_TOPN_FILTER:
    return "Filter";
  case ST_TOPN:
    return "Top-N";
  case ST_TOPN_PROJECT:
  case ST_PROJECT:
    return "Project";
  case ST_WINDOW:
    return plan->window_kind == LM_WIN_TUMBLE ? "Window Aggregate (tumbling)"
           : plan->window_kind == LM_WIN_HOP  ? "Window Aggregate (hopping)"
                                              : "Window Aggregate (cumulating)";
  case ST_SESSION:
    return "Session Window Aggregate";
  case ST_AGG: /* PostgreSQL's MixedAggregate / HashAggregate of grouping
                  sets: ours computes every set in one hashed pass */
    return plan->n_gsets ? "Aggregate (grouping sets)" : "Aggregate";
  case ST_PERIODIC:
    return "Emit Periodically";
  case ST_OVER:
  case ST_OVER_CL:
    return "Over Aggregate";
  case ST_TFILTER:
    return "Temporal Filter";
  case ST_PSET:
    return "ProjectSet";
  }
  return "?";
}

/* Streaming properties of a pipeline's stages, bottom-up from the input's
 * (changelog, time column index into plan's input schema). */
typedef struct sprops {
  bool changelog[12];
  const char *wm[12];
} sprops;

static void stage_props(sprops *sp, const xpipe *p, const lm_plan *plan,
                        bool in_changelog, int in_time, bool streaming,
                        bool changelog_out) {
  bool cl = in_changelog;
  const lm_schema *is =
      plan->topn ? plan->topn->input_schema : plan->input_schema;
  const char *wm = in_time >= 0 && is && in_time < is->n_fields
                       ? is->fields[in_time].name
                       : NULL;
  for (int i = 0; i < p->n; i++) {
    switch (p->st[i]) {
    case ST_TOPN:
    case ST_TOPN_PROJECT:
    case ST_AGG:
      cl = true;
      wm = NULL;
      break;
    case ST_WINDOW:
    case ST_SESSION:
    case ST_TFILTER:
    case ST_PROJECT: {
      if (p->st[i] == ST_TFILTER) {
        cl = true; /* rows retracted as now() moves */
      } else if (p->st[i] != ST_PROJECT) {
        lm_window_emit mode =
            streaming ? lm_plan_window_emit(plan) : LM_WEMIT_CLOSE;
        if (!changelog_out && mode == LM_WEMIT_UPDATES)
          mode = LM_WEMIT_CLOSE;
        cl = lm_window_changelog(plan, mode);
      }
      int tc = lm_plan_out_time_col(plan, in_time, cl);
      wm = tc >= 0 && tc < plan->out_schema->n_fields
               ? plan->out_schema->fields[tc].name
               : NULL;
      break;
    }
    default:
      break;
    }
    sp->changelog[i] = cl;
    sp->wm[i] = wm;
  }
}

/* The details of a ProjectSet stage: the calls' text (calls), its alias,
 * WITH ORDINALITY, LEFT JOIN LATERAL ... ON TRUE (outer). */
static void pset_lines(ex *x, int d, const char *calls, const char *alias,
                       bool ordinality, bool outer) {
  detail(x, d, "Function Call: %s", calls);
  if (alias)
    detail(x, d, "Alias: %s", alias);
  if (ordinality)
    detail(x, d, "With Ordinality: true");
  if (outer)
    detail(x, d,
           "Join: LEFT JOIN LATERAL ... ON TRUE (an input row without "
           "results kept, NULL-padded)");
}

/* A continuous query's ProjectSet stage j (0 = the bottom one): its
 * function item, from the query's syntax sel (api/srf_stream.c). */
static void pset_details(ex *x, int d, int j, const lm_select *sel) {
  if (!sel)
    return;
  lm_arena a;
  lm_arena_init(&a, 4096);
  const lm_from *items[16];
  bool outer[16];
  int n = lm_srf_stage_items(sel, &a, items, outer, 16);
  if (j < n) {
    lm_buf b;
    lm_buf_init(&b);
    for (int i = 0; i < items[j]->n_funcs; i++) {
      if (i)
        lm_buf_printf(&b, ", ");
      lm_sql_expr_to_string(items[j]->funcs[i], &b);
    }
    const char *al = items[j]->alias;
    pset_lines(x, d, b.data ? b.data : "",
               al && al[0] != LM_SRF_HIDDEN ? al : NULL, items[j]->ordinality,
               outer[j]);
    lm_buf_free(&b);
  }
  lm_arena_free(&a);
}

/* Prints the stages top-down from depth d; returns the depth of the
 * pipeline's input. */
static int print_pipe(ex *x, int d, const xpipe *p, const sprops *sp,
                      const lm_plan *plan, const lm_select *sel) {
  char pb[160], ab[160];
  for (int i = p->n - 1; i >= 0; i--) {
    stage_kind k = p->st[i];
    if (k == ST_PERIODIC) {
      char iv[64];
      node(x, d, "Emit Periodically: every %s%s%s",
           interval_text(iv, sizeof iv, plan->emit_interval_us),
           props(x, ab, sizeof ab, sp->changelog[i], sp->wm[i]),
           actual(x, pb, sizeof pb, p->ops[i]));
    } else {
      char t[160];
      node(x, d, "%s%s%s", stage_title(k, plan),
           props(x, t, sizeof t, sp->changelog[i], sp->wm[i]),
           actual(x, ab, sizeof ab, p->ops[i]));
    }
    if (k == ST_PSET) {
      int j = 0; /* which ProjectSet stage, from the bottom */
      for (int b = 0; b < i; b++)
        j += p->st[b] == ST_PSET;
      pset_details(x, d, j, sel);
    }
    stage_details(x, d, k, plan, sel);
    stat_details(x, d, p->ops[i],
                 k == ST_LATE || k == ST_WINDOW || k == ST_SESSION ||
                     k == ST_OVER);
    d++;
  }
  return d;
}

/* ------------------------------------------------------------ inputs */

static const char *node_kind_title(lm_node_kind k) {
  return k == LM_NODE_SOURCE   ? "Source"
         : k == LM_NODE_STREAM ? "Stream"
         : k == LM_NODE_TABLE  ? "Table"
                               : "Materialized View";
}

static const char *node_wm(const lm_node *n) {
  if (n->kind == LM_NODE_SOURCE)
    return n->wm_col >= 0 ? n->table_schema->fields[n->wm_col].name : NULL;
  int tc = n->time_col1 - 1;
  return tc >= 0 && tc < n->table_schema->n_fields
             ? n->table_schema->fields[tc].name
             : NULL;
}

static bool print_temp(ex *x, int d, const lm_node *n, const char *alias);

/* A named input object (a leaf of the tree). */
static void print_object(ex *x, int d, const lm_node *n, const char *name) {
  char pb[160], ab[160], qn[300];
  if (!n) {
    node(x, d, "Scan %s", name ? qid(qn, sizeof qn, name) : "?");
    return;
  }
  const char *al = x->run ? x->run->sel->from_alias : NULL;
  if (!al && name && strcmp(name, n->name))
    al = name; /* a join input's alias (a function's temporary relation) */
  if (x->adhoc && print_temp(x, d, n, al))
    return;
  if (x->adhoc && n->view_rows) { /* api/view.c */
    node(x, d, "Scan view %s  (its query, run for this statement)",
         qid(qn, sizeof qn, n->name));
    return;
  }
  if (x->adhoc) {
    const char *how = n->kind == LM_NODE_SOURCE  ? "its connector read again"
                      : n->kind == LM_NODE_TABLE ? "current rows"
                                                 : "stored rows";
    if (x->run)
      lm_ex_actual_rows(x, ab, sizeof ab, x->run->rows_read, 1, -1);
    else
      ab[0] = 0;
    node(x, d, "Scan %s %s  (%s)%s",
         n->kind == LM_NODE_SOURCE   ? "source"
         : n->kind == LM_NODE_TABLE  ? "table"
         : n->kind == LM_NODE_STREAM ? "stream"
                                     : "materialized view",
         qid(qn, sizeof qn, n->name), how, ab);
    verbose_out(x, d, n->table_schema, -1);
    if (x->run && x->run->index)
      detail(x, d,
             "Index Lookup: the WHERE equality, through the table's "
             "index");
    return;
  }
  ab[0] = 0;
  if (x->analyze && n->kind == LM_NODE_SOURCE)
    snprintf(ab, sizeof ab, " (actual rows=%" PRId64 ")", n->rows_in);
  node(x, d, "%s %s%s%s", node_kind_title(n->kind), qid(qn, sizeof qn, n->name),
       props(x, pb, sizeof pb, n->changelog, node_wm(n)), ab);
  if (n->kind == LM_NODE_SOURCE) {
    detail(x, d, "Connector: %s%s%s",
           n->connector ? n->connector : "none (rows from INSERT)",
           n->format ? ", format " : "", n->format ? n->format : "");
    if (n->wm_col >= 0 && n->wm_delay)
      detail(x, d, "Watermark: %s - %s", node_wm(n),
             interval_text(pb, sizeof pb, n->wm_delay));
    else if (n->wm_col >= 0)
      detail(x, d, "Watermark: %s", node_wm(n));
    if (x->analyze)
      detail(x, d, "Late Rows Dropped: %" PRId64, n->late_dropped);
    if (x->analyze && n->bad_rows) /* docs/bad_rows.md */
      detail(x, d, "Bad Rows Skipped: %" PRId64, n->bad_rows);
  } else if (n->kind == LM_NODE_TABLE && n->n_pk) {
    lm_buf b;
    lm_buf_init(&b);
    for (int i = 0; i < n->n_pk; i++) {
      lm_buf_printf(&b, "%s", i ? ", " : "");
      put_name(&b, n->table_schema->fields[n->pk_cols[i]].name);
    }
    detail(x, d, "Primary Key: %s", b.data);
    lm_buf_free(&b);
  }
}

/* ------------------------------------------------------------- joins */

static const char *join_algo_name(lm_pjoin_algo a) {
  switch (a) {
  case LM_PJOIN_UPDATING:
    return "UPDATING";
  case LM_PJOIN_INTERVAL:
    return "INTERVAL";
  case LM_PJOIN_LOOKUP:
    return "LOOKUP";
  case LM_PJOIN_TEMPORAL:
    return "TEMPORAL";
  case LM_PJOIN_ASOF:
    return "ASOF";
  }
  return "?";
}

static const char *join_type_name(lm_pjoin_type t, bool swapped) {
  switch (t) {
  case LM_PJOIN_INNER:
    return "Inner";
  case LM_PJOIN_LEFT:
    return "Left";
  case LM_PJOIN_RIGHT:
    return "Right";
  case LM_PJOIN_FULL:
    return "Full";
  case LM_PJOIN_SEMI:
    return swapped ? "Right Semi" : "Semi";
  case LM_PJOIN_ANTI:
    return swapped ? "Right Anti" : "Anti";
  }
  return "?";
}

/* The join step operator and input chain indexes of a join plan, in
 * build_join's order (engine.c): its steps' joins first, then each input
 * (an input that is a subquery over joins recurses instead of taking an
 * input index). */
typedef struct jmap {
  const lm_plan *plan;
  int first;
  int ins[64];
} jmap;

static void print_plan_input(ex *x, int d, const lm_plan *plan,
                             const lm_select *sel, jmap *maps, int n_maps);

static jmap *find_map(jmap *maps, int n, const lm_plan *plan) {
  for (int i = 0; i < n; i++)
    if (maps[i].plan == plan)
      return &maps[i];
  return NULL;
}

static void assign_maps(ex *x, const lm_plan *plan, jmap *maps, int *n_maps,
                        int cap) {
  const lm_join_plan *jp = plan->join;
  if (!jp || *n_maps >= cap)
    return;
  jmap *m = &maps[(*n_maps)++];
  m->plan = plan;
  m->first = x->jn;
  x->jn += jp->n_steps;
  for (int i = 0; i < jp->n_inputs && i < 64; i++) {
    const lm_join_input *ji = &jp->inputs[i];
    if (ji->sub && ji->sub->join) {
      m->ins[i] = -1;
      assign_maps(x, ji->sub, maps, n_maps, cap);
    } else {
      m->ins[i] = x->in++;
    }
  }
}

/* One input of a join plan (a named object or a subquery), with the
 * operators in front of the join side: [late filter] [subquery pipeline]
 * [key projection]. */
/* Where input i of plan's join feeds its own stages (the subquery's, or
 * the key projection when it is not a subquery): the operator after the
 * late filter, or for an input that is a subquery over joins, after its
 * last join, or for a subquery over one subquery (no join), after that
 * inner subquery's stages. NULL when unknown (ad-hoc, EXPLAIN CREATE). */
static lm_operator *stages_start(ex *x, const lm_plan *plan, int i, jmap *maps,
                                 int n_maps, int depth) {
  const lm_join_plan *jp = plan->join;
  jmap *m = find_map(maps, n_maps, plan);
  if (!x->q || !m || i >= jp->n_inputs || i >= 64 || depth > 32)
    return NULL;
  const lm_join_input *ji = &jp->inputs[i];
  if (m->ins[i] >= 0) {
    if (m->ins[i] >= x->q->n_ins)
      return NULL;
    lm_operator *h = x->q->ins[m->ins[i]].head;
    return h && !strcmp(h->vt->name, "late_filter") ? h->next : h;
  }
  const lm_plan *sub = ji->sub;
  jmap *sm = find_map(maps, n_maps, sub);
  if (!sm)
    return NULL;
  if (sub->join->n_steps) {
    int j = sm->first + sub->join->n_steps - 1;
    return j < x->q->n_joins ? x->q->joins[j]->next : NULL;
  }
  /* one subquery feeding sub: after its stages come sub's */
  lm_operator *op = stages_start(x, sub, 0, maps, n_maps, depth + 1);
  const lm_join_input *in0 = &sub->join->inputs[0];
  if (op && in0->sub) {
    xpipe ip;
    plan_stages(&ip, in0->sub, false, true, in0->info.changelog);
    op = attach_chain(&ip, op);
  }
  return op;
}

/* One input of a join plan (a named object or a subquery), with the
 * operators in front of the join side: [late filter] [subquery pipeline]
 * [key projection]. */
static void print_join_input(ex *x, int d, const lm_join_plan *jp, int i,
                             const lm_join_step *js, int side, jmap *m,
                             jmap *maps, int n_maps, const lm_plan *owner) {
  const lm_join_input *ji = &jp->inputs[i];
  lm_operator *op = stages_start(x, owner, i, maps, n_maps, 0);
  lm_operator *lfop =
      x->q && m && i < 64 && m->ins[i] >= 0 && m->ins[i] < x->q->n_ins
          ? x->q->ins[m->ins[i]].head
          : NULL;
  lm_node *obj = ji->name ? lm_engine_find(x->db, ji->name)
                 : (ji->subquery && ji->subquery->from && !ji->sub->join)
                     ? lm_engine_find(x->db, ji->subquery->from)
                     : NULL;
  bool lf = !x->adhoc && !(ji->sub && ji->sub->join) && obj &&
            obj->kind == LM_NODE_SOURCE && obj->wm_col >= 0;
  /* the chain's operators: late filter, subquery stages, key projection */
  opstat lfs, kps;
  const opstat *lfp = NULL, *kpp = NULL;
  if (lfop && lf && !strcmp(lfop->vt->name, "late_filter")) {
    lfs = snap(lfop);
    lfp = &lfs;
  }
  xpipe sp;
  sp.n = 0;
  if (ji->sub) {
    bool cl = ji->info.changelog;
    plan_stages(&sp, ji->sub, false, !x->adhoc, cl);
    if (op)
      op = attach_chain(&sp, op);
  }
  bool kproj = js && js->n_proj[side] > 0;
  if (kproj && op && !strcmp(op->vt->name, "project")) {
    kps = snap(op);
    kpp = &kps;
  }
  char pb[160], ab[160];
  if (kproj) {
    const lm_schema *ss = js->side_schema[side];
    const char *wm =
        js->time_col[side] >= 0 ? ss->fields[js->time_col[side]].name : NULL;
    node(x, d, "Project (join keys)%s%s",
         props(x, pb, sizeof pb, js->side_changelog[side], wm),
         actual(x, ab, sizeof ab, kpp));
    lm_buf b;
    lm_buf_init(&b);
    for (int k = js->proj_base[side]; k < js->n_proj[side]; k++) {
      lm_buf_printf(&b, "%s%s = ", k > js->proj_base[side] ? ", " : "",
                    ss->fields[k].name);
      bx_text(&b, js->proj[side][k], ji->info.schema);
    }
    if (b.data && b.len)
      detail(x, d, "Keys: %s", b.data);
    lm_buf_free(&b);
    d++;
  }
  if (x->adhoc && x->an) { /* the query that read the input's rows */
    const lm_xt *k =
        lm_xt_kid(x->an, LM_XT_JOIN_INPUT, (const void *)(intptr_t)i, false);
    if (!k || !k->n_lines) {
      node(x, d, "Scan %s", ji->qual ? ji->qual : "?");
    } else if (ji->subquery) {
      node(x, d, "Subquery Scan%s%s", ji->qual ? " on " : "",
           ji->qual ? ji->qual : "");
      lm_ex_embed(x, d + 1, k->lines, k->n_lines);
    } else {
      lm_ex_embed(x, d, k->lines, 1);
      if (ji->qual && ji->name && strcmp(ji->qual, ji->name) &&
          (strncmp(ji->name, "(", 1) || !strncmp(ji->name, "(function ", 10)))
        detail(x, d, "Alias: %s", ji->qual); /* a function's too */
      lm_ex_embed(x, d, k->lines + 1, k->n_lines - 1);
    }
    return;
  }
  if (ji->sub) {
    sprops pr;
    int tc =
        ji->sub->join ? ji->sub->join_time_col
        : obj ? (obj->kind == LM_NODE_SOURCE ? obj->wm_col : obj->time_col1 - 1)
              : -1;
    bool incl = ji->sub->join ? ji->sub->join_changelog
                              : (obj ? obj->changelog : false);
    stage_props(&pr, &sp, ji->sub, incl, tc, !x->adhoc, ji->info.changelog);
    node(x, d, "Subquery %s%s", ji->qual ? ji->qual : "",
         props(x, pb, sizeof pb, ji->info.changelog,
               ji->info.time_col >= 0 &&
                       ji->info.time_col < ji->info.schema->n_fields
                   ? ji->info.schema->fields[ji->info.time_col].name
                   : NULL));
    if (lfop && !ji->sub->join && !strcmp(lfop->vt->name, "output"))
      detail(x, d,
             "Shared: computed once, by the identical aggregate of an "
             "earlier input (api/shared_input.c)");
    d = print_pipe(x, d + 1, &sp, &pr, ji->sub, ji->subquery);
    if (ji->sub->join) {
      print_plan_input(x, d, ji->sub, ji->subquery, maps, n_maps);
      return;
    }
  }
  if (lf) {
    node(x, d, "Late Row Filter%s%s",
         props(x, pb, sizeof pb, false, node_wm(obj)),
         actual(x, ab, sizeof ab, lfp));
    stat_details(x, d, lfp, true);
    d++;
  }
  print_object(x, d, obj, ji->name);
  if (ji->qual && ji->name && strcmp(ji->qual, ji->name))
    detail(x, d, "Alias: %s", ji->qual);
}

/* The key projection between join step s-1 and step s (side `side` of
 * js); op is its operator or NULL. Returns the depth below it. */
static int print_keyproj(ex *x, int d, const lm_join_step *js, int side,
                         const lm_schema *pre, lm_operator *op) {
  if (!js->n_proj[side])
    return d;
  opstat ks;
  const opstat *kp = NULL;
  if (op && !strcmp(op->vt->name, "project")) {
    ks = snap(op);
    kp = &ks;
  }
  char pb[160], ab[160];
  const lm_schema *ss = js->side_schema[side];
  const char *wm =
      js->time_col[side] >= 0 ? ss->fields[js->time_col[side]].name : NULL;
  node(x, d, "Project (join keys)%s%s",
       props(x, pb, sizeof pb, js->side_changelog[side], wm),
       actual(x, ab, sizeof ab, kp));
  lm_buf b;
  lm_buf_init(&b);
  for (int k = js->proj_base[side]; k < js->n_proj[side]; k++) {
    lm_buf_printf(&b, "%s%s = ", k > js->proj_base[side] ? ", " : "",
                  ss->fields[k].name);
    bx_text(&b, js->proj[side][k], pre);
  }
  if (b.data && b.len)
    detail(x, d, "Keys: %s", b.data);
  lm_buf_free(&b);
  return d + 1;
}

static const char *const unbounded_text =
    "State: unbounded — add a time bound (a.ts BETWEEN b.ts - INTERVAL ... "
    "AND ...) or WITH ('state.ttl' = ...)";

/* The alias of the join input column c of side `side` of step s comes
 * from (keys print as t1.a = t2.a, unambiguous in a self-join); NULL for
 * a computed key column or an input without a name. */
static const char *col_qual(const lm_join_plan *jp, int s, int side, int c,
                            int depth) {
  const lm_join_step *js = &jp->steps[s];
  int chain = js->swapped ? 1 : 0;
  if (depth > 64 || (js->n_proj[side] && c >= js->proj_base[side]))
    return NULL;
  if (side != chain)
    return jp->inputs[s + 1].qual;
  if (s == 0)
    return jp->inputs[0].qual;
  const lm_join_step *pv = &jp->steps[s - 1];
  if (pv->type == LM_PJOIN_SEMI || pv->type == LM_PJOIN_ANTI)
    return col_qual(jp, s - 1, 0, c, depth + 1);
  int w0 = pv->side_schema[0]->n_fields;
  return c < w0 ? col_qual(jp, s - 1, 0, c, depth + 1)
                : col_qual(jp, s - 1, 1, c - w0, depth + 1);
}

/* The alias of column c of join step s's output. */
static const char *out_qual(const lm_join_plan *jp, int s, int c) {
  const lm_join_step *js = &jp->steps[s];
  if (js->type == LM_PJOIN_SEMI || js->type == LM_PJOIN_ANTI)
    return col_qual(jp, s, 0, c, 0);
  int w0 = js->side_schema[0]->n_fields;
  return c < w0 ? col_qual(jp, s, 0, c, 0) : col_qual(jp, s, 1, c - w0, 0);
}

/* Join step s of plan's join (and, below it, what feeds it) at depth d. */
static void print_join_step(ex *x, int d, const lm_plan *plan, int s,
                            jmap *maps, int n_maps) {
  const lm_join_plan *jp = plan->join;
  const lm_join_step *js = &jp->steps[s];
  jmap *m = find_map(maps, n_maps, plan);
  opstat jst;
  const opstat *jsp = NULL;
  if (x->q && m && m->first + s < x->q->n_joins) {
    jst = snap(x->q->joins[m->first + s]);
    jsp = &jst;
  } else if (x->an && plan == x->top && s < LM_XT_MAX_OPS &&
             x->an->has_join[s]) {
    jsp = &x->an->joins[s];
  }
  char pb[160], ab[160], t1[64], t2[64];
  /* the output keeps the left time column (lm_join.h) unless updating */
  const char *owm = !js->out_changelog && js->algo != LM_PJOIN_UPDATING &&
                            !js->swapped && js->time_col[0] >= 0 &&
                            js->time_col[0] < js->out_schema->n_fields
                        ? js->out_schema->fields[js->time_col[0]].name
                        : NULL;
  int chain_side = js->swapped ? 1 : 0;
  const char *qual[2];
  qual[chain_side] = s == 0 ? jp->inputs[0].qual : NULL;
  qual[1 - chain_side] = jp->inputs[s + 1].qual;
  node(x, d, "%s Join (%s)%s%s", join_type_name(js->type, js->swapped),
       x->adhoc ? "batch" : join_algo_name(js->algo),
       props(x, pb, sizeof pb, js->out_changelog, owm),
       actual(x, ab, sizeof ab, jsp));
  lm_buf b;
  lm_buf_init(&b);
  const lm_schema *l = js->side_schema[0], *r = js->side_schema[1];
  const lm_schema *pre[2];
  pre[chain_side] =
      s == 0 ? jp->inputs[0].info.schema : jp->steps[s - 1].out_schema;
  pre[1 - chain_side] = jp->inputs[s + 1].info.schema;
  for (int k = 0; k < js->n_keys; k++)
    for (int side = 0; side < 2; side++) {
      int c = js->keys[side][k];
      lm_buf_printf(&b, "%s", side ? " = " : k ? ", " : "");
      if (js->n_proj[side] && c >= js->proj_base[side] &&
          c < js->n_proj[side]) {
        /* a computed key, over the side's columns named with their
         * relation's alias */
        const lm_schema *ps = pre[side];
        int nn = ps && ps->n_fields < 1024 ? ps->n_fields : 0;
        char(*qn)[200] = nn ? calloc((size_t)nn, sizeof *qn) : NULL;
        char q1[96], q2[96];
        const char *names[1024];
        for (int i = 0; qn && i < nn; i++) {
          const char *q = side == chain_side && s > 0 ? out_qual(jp, s - 1, i)
                          : side == chain_side        ? jp->inputs[0].qual
                                                      : jp->inputs[s + 1].qual;
          if (strchr(ps->fields[i].name, LM_SRF_HIDDEN)) /* put_name's */
            snprintf(qn[i], sizeof qn[i], "%s%s%s", q ? q : "", q ? "." : "",
                     ps->fields[i].name);
          else /* quoted text, put_name prints it as is */
            snprintf(qn[i], sizeof qn[i], "\x03%s%s%s",
                     q ? qid(q1, sizeof q1, q) : "", q ? "." : "",
                     qid(q2, sizeof q2, ps->fields[i].name));
          names[i] = qn[i];
        }
        if (qn)
          bx_print(&b, js->proj[side][c], names, nn, 0);
        else
          bx_text(&b, js->proj[side][c], pre[side]);
        free(qn);
        continue;
      }
      const char *q = col_qual(jp, s, side, c, 0);
      char q1[300];
      lm_buf_printf(&b, "%s%s", q ? qid(q1, sizeof q1, q) : "", q ? "." : "");
      put_name(&b, js->side_schema[side]->fields[c].name);
    }
  verbose_out(x, d, js->out_schema, -1);
  if (js->n_keys)
    detail(x, d, "Join Key: %s", b.data);
  lm_buf_reset(&b);
  if (!x->adhoc && js->algo == LM_PJOIN_INTERVAL && js->time_col[0] >= 0 &&
      js->time_col[1] >= 0)
    detail(x, d, "Time Bound: %s%s%s - %s%s%s in %s%s, %s%s",
           qual[1] ? qual[1] : "", qual[1] ? "." : "",
           r->fields[js->time_col[1]].name, qual[0] ? qual[0] : "",
           qual[0] ? "." : "", l->fields[js->time_col[0]].name,
           js->lo_strict ? "(" : "[", interval_text(t1, sizeof t1, js->lo_us),
           interval_text(t2, sizeof t2, js->hi_us), js->hi_strict ? ")" : "]");
  if (!x->adhoc && js->dyn) { /* plan/dynfilter.c */
    int fs = js->dyn_side, c = js->keys[1 - fs][js->dyn_key];
    detail(x, d, "Dynamic Filter: %s%s%s %s running %s of %s%s%s per window",
           qual[fs] ? qual[fs] : "", qual[fs] ? "." : "",
           js->side_schema[fs]->fields[js->keys[fs][js->dyn_key]].name,
           js->dyn_max ? ">=" : "<=", js->dyn_max ? "MAX" : "MIN",
           qual[1 - fs] ? qual[1 - fs] : "", qual[1 - fs] ? "." : "",
           js->side_schema[1 - fs]->fields[c].name);
    if (x->analyze && x->q && m && m->first + s < x->q->n_joins)
      detail(x, d, "Rows Filtered: %" PRId64,
             lm_join_dynfilter_dropped(x->q->joins[m->first + s]));
  }
  if (js->algo == LM_PJOIN_ASOF) {
    detail(x, d, "Match: %s%s",
           js->asof_dir == 0   ? "BACKWARD"
           : js->asof_dir == 1 ? "FORWARD"
                               : "NEAREST",
           js->asof_strict ? " (strict)" : "");
    if (js->asof_tolerance_us >= 0)
      detail(x, d, "Tolerance: %s",
             interval_text(t1, sizeof t1, js->asof_tolerance_us));
  }
  if (js->residual) {
    const char *names[1024];
    int n = schema_names(l, names, 1024);
    n += schema_names(r, names + n, 1024 - n);
    bx_print(&b, js->residual, names, n, 0);
    detail(x, d, "Residual: %s", b.data);
    lm_buf_reset(&b);
  }
  lm_buf_free(&b);
  if (!x->adhoc && js->ttl_us > 0)
    detail(x, d, "State TTL: %s", interval_text(t1, sizeof t1, js->ttl_us));
  if (!x->adhoc && js->unbounded)
    detail(x, d, "%s", unbounded_text);
  /* an updating join keyed on both sides' time columns evicts closed times
   * (exec/op_join_updating.c, docs/joins.md "Eviction by time") */
  bool evicts = false;
  if (!x->adhoc && js->algo == LM_PJOIN_UPDATING && js->time_col[0] >= 0 &&
      js->time_col[1] >= 0)
    for (int k = 0; k < js->n_keys && !evicts; k++)
      evicts = js->keys[0][k] == js->time_col[0] &&
               js->keys[1][k] == js->time_col[1];
  if (evicts)
    detail(x, d, "State: evicted when both watermarks pass %s%s%s",
           qual[0] ? qual[0] : "", qual[0] ? "." : "",
           l->fields[js->time_col[0]].name);
  stat_details(x, d, jsp,
               !x->adhoc && (js->algo == LM_PJOIN_INTERVAL ||
                             js->algo == LM_PJOIN_ASOF ||
                             js->algo == LM_PJOIN_TEMPORAL));
  for (int side = 0; side < 2; side++) {
    if (side != chain_side) {
      print_join_input(x, d + 1, jp, s + 1, js, side, m, maps, n_maps, plan);
    } else if (s == 0) {
      print_join_input(x, d + 1, jp, 0, js, side, m, maps, n_maps, plan);
    } else {
      lm_operator *op = NULL;
      if (x->q && m && m->first + s - 1 < x->q->n_joins)
        op = x->q->joins[m->first + s - 1]->next;
      int dd =
          print_keyproj(x, d + 1, js, side, jp->steps[s - 1].out_schema, op);
      print_join_step(x, dd, plan, s - 1, maps, n_maps);
    }
  }
}

static void print_plan_input(ex *x, int d, const lm_plan *plan,
                             const lm_select *sel, jmap *maps, int n_maps) {
  (void)sel;
  const lm_join_plan *jp = plan->join;
  if (jp->n_steps)
    print_join_step(x, d, plan, jp->n_steps - 1, maps, n_maps);
  else
    print_join_input(x, d, jp, 0, NULL, 0, find_map(maps, n_maps, plan), maps,
                     n_maps, plan);
}

/* ------------------------------------------------------ a whole query */

/* An ad-hoc query's ProjectSet stages (api/srf_stream.c: set-returning
 * functions in FROM after one relation, or in the select list), top-down
 * from depth d. Returns the depth of their input, or -1 when one call over
 * no relation is the whole input: PostgreSQL's `Function Scan on f a`. */
static int print_pset(ex *x, int d, bool no_rel) {
  const lm_xt *f = x->an;
  char ab[160];
  for (int i = f->n_pset - 1; i >= 0; i--) {
    const opstat *st = f->pset[i].has_stat ? &f->pset[i].st : NULL;
    const char *al = f->pset[i].alias;
    bool scan = no_rel && f->n_pset == 1 && f->pset[i].n_calls == 1 &&
                !f->pset[i].ordinality;
    if (scan) {
      bool show = al && strcmp(al, f->pset[i].fn);
      node(x, d, "Function Scan on %s%s%s%s", f->pset[i].fn, show ? " " : "",
           show ? al : "", actual(x, ab, sizeof ab, st));
    } else {
      node(x, d, "ProjectSet%s", actual(x, ab, sizeof ab, st));
    }
    pset_lines(x, d, f->pset[i].calls, scan ? NULL : al, f->pset[i].ordinality,
               f->pset[i].outer);
    if (scan)
      return -1;
    d++;
  }
  return d;
}

/* The pipeline of `plan` and its input, from depth d. head: the live chain
 * of a continuous query without joins (NULL otherwise). */
static void print_union(ex *x, int d, const lm_select *top);

static void print_query(ex *x, int d, const lm_plan *plan, const lm_select *sel,
                        const lm_node *in, lm_operator *head,
                        bool changelog_out) {
  xpipe p;
  /* a window over the source's PROCTIME() column: no late filter, the
   * clock closes its windows (docs/windows.md) */
  bool proc = !plan->join && in && in->kind == LM_NODE_SOURCE &&
              in->proctime_col1 && plan->has_agg &&
              plan->window_kind != LM_WIN_NONE &&
              plan->window_time_col == in->proctime_col1 - 1;
  /* a window function (OVER): its operator heads the chain, after the
   * late filter (api/engine.c); ordered by PROCTIME(), it emits on arrival */
  x->over = NULL;
  for (lm_operator *op = head; op && !x->over; op = op->next) {
    int tc;
    bool oa;
    if (lm_op_over_call(op, 0, &tc, &oa)) {
      x->over = op;
      proc = proc || oa;
    }
    if (strcmp(op->vt->name, "late_filter"))
      break;
  }
  bool lf = !x->adhoc && !plan->join && in && in->kind == LM_NODE_SOURCE &&
            in->wm_col >= 0 && !proc;
  plan_stages(&p, plan, lf, !x->adhoc, changelog_out);
  if (x->over && p.n < 12) { /* after the late filter */
    int at = lf ? 1 : 0;
    memmove(&p.st[at + 1], &p.st[at], sizeof p.st[0] * (size_t)(p.n - at));
    p.st[at] =
        strcmp(x->over->vt->name, "over_aggregate") ? ST_OVER_CL : ST_OVER;
    p.ops[p.n++] = NULL;
  }
  /* set-returning functions: ProjectSet operators head the chain after
   * the late filter (api/srf_stream.c) */
  for (lm_operator *op = head; op && p.n < 12; op = op->next) {
    if (!strcmp(op->vt->name, "late_filter"))
      continue;
    if (strcmp(op->vt->name, "project_set"))
      break;
    int at = lf ? 1 : 0;
    memmove(&p.st[at + 1], &p.st[at], sizeof p.st[0] * (size_t)(p.n - at));
    p.st[at] = ST_PSET;
    p.ops[p.n++] = NULL;
  }
  jmap maps[32];
  int n_maps = 0;
  x->jn = x->in = 0;
  if (plan->join)
    assign_maps(x, plan, maps, &n_maps, 32);
  if (head) {
    attach_chain(&p, head);
  } else if (x->q && plan->join && plan->join->n_steps) {
    jmap *m = find_map(maps, n_maps, plan);
    int j = m ? m->first + plan->join->n_steps - 1 : -1;
    if (j >= 0 && j < x->q->n_joins)
      attach_chain(&p, x->q->joins[j]->next);
  } else if (x->q && plan->join) { /* one subquery feeding the query */
    lm_operator *op = stages_start(x, plan, 0, maps, n_maps, 0);
    const lm_join_input *in0 = &plan->join->inputs[0];
    if (op && in0->sub) {
      xpipe ip;
      plan_stages(&ip, in0->sub, false, true, in0->info.changelog);
      op = attach_chain(&ip, op);
    }
    if (op)
      attach_chain(&p, op);
  } else if (x->an) {
    attach_stats(&p, x->an->ops, x->an->n_ops);
  }
  /* an ad-hoc SELECT * without aggregates: its projection passes the rows
   * on as they are, and is not shown (PostgreSQL shows none either) */
  if (x->run && sel && sel->n_items == 1 &&
      sel->items[0].expr->kind == LM_EXPR_STAR && !plan->has_agg &&
      !plan->topn && p.n && p.st[p.n - 1] == ST_PROJECT)
    p.n--;
  sprops sp;
  int in_time =
      plan->join ? plan->join_time_col
      : proc     ? in->proctime_col1 - 1
      : in       ? (in->kind == LM_NODE_SOURCE ? in->wm_col : in->time_col1 - 1)
                 : -1;
  bool in_cl = plan->join ? plan->join_changelog : in && in->changelog;
  stage_props(&sp, &p, plan, in_cl, in_time, !x->adhoc, changelog_out);
  d = print_pipe(x, d, &p, &sp, plan, sel);
  if (x->run && x->an && x->an->n_pset && !plan->join &&
      (d = print_pset(x, d, !in)) < 0)
    return; /* a Function Scan: no input of its own */
  if (plan->join)
    print_plan_input(x, d, plan, sel, maps, n_maps);
  else if (x->run && x->run->given_rows && x->an && x->an->n_in_lines)
    lm_ex_embed(x, d, x->an->in_lines, x->an->n_in_lines);
  else if (x->run && x->run->given_rows)
    node(x, d, "Rows  (computed by the statement)");
  else if (in) {
    print_object(x, d, in, sel ? sel->from : NULL);
  } else if (sel && sel->n_values)
    node(x, d, "Values Scan  (%d rows)", sel->n_values);
  else if (x->q && x->q->uni && x->q->head && plan == x->q->plan)
    print_union(x, d, sel ? sel->from_subquery : NULL); /* FROM (UNION ALL) */
  else
    node(x, d, "Result  (one row, no FROM)");
}

/* A UNION ALL of streams (api/union_stream.c): each operand's pipeline
 * under a Union All node at depth d; top is the UNION ALL's syntax. */
static void print_union(ex *x, int d, const lm_select *top) {
  lm_query *q = x->q;
  const lm_select *ops[256];
  int n_ops = lm_union_operands(top, ops, 256);
  node(x, d, "Union All  (%d inputs, watermark: the minimum of theirs)",
       q->n_ins);
  for (int i = 0; i < q->n_ins; i++) {
    const lm_plan *up = NULL;
    bool ucl = false;
    lm_union_operand(q->uni, i, &up, &ucl);
    print_query(x, d + 1, up, i < n_ops ? ops[i] : NULL, q->ins[i].node,
                q->ins[i].head, ucl);
  }
}

/* An existing stream or view (or the one EXPLAIN CREATE just built). */
static void explain_node(ex *x, const lm_node *n, const char *title_name) {
  lm_query *q = n->query;
  char pb[160], ab[160];
  ab[0] = 0;
  lm_operator *out = NULL;
  for (lm_operator *op = q ? q->head : NULL; op; op = op->next)
    out = op;
  if (q && !q->head && q->n_joins) {
    for (lm_operator *op = q->joins[0]; op; op = op->next)
      out = op; /* the top plan's last join ends in the output */
    const lm_join_plan *jp = q->plan->join;
    if (jp && jp->n_steps)
      for (lm_operator *op = q->joins[jp->n_steps - 1]; op; op = op->next)
        out = op;
  }
  if (x->analyze && out && !strcmp(out->vt->name, "output"))
    snprintf(ab, sizeof ab, " (actual rows=%" PRId64 ")", out->rows_in);
  node(x, 0, "%s %s%s%s", node_kind_title(n->kind), title_name,
       props(x, pb, sizeof pb, n->changelog, node_wm(n)), ab);
  if (!q) {
    detail(x, 0, "(no query: rows come from INSERT or LATE DATA TO)");
    return;
  }
  if (q->failed) /* docs/failures.md: it receives no more input */
    detail(x, 0, "Failed: %s", q->fail_msg);
  x->q = q;
  x->top = q->plan;
  const lm_select *sel = NULL;
  lm_sql_script *sc = NULL;
  if (n->sql && n->sql[0] && !lm_sql_parse(n->sql, strlen(n->sql), &sc, NULL) &&
      sc->n_stmts == 1)
    sel = sc->stmts[0]->select;
  if (q->uni) {  /* UNION ALL of streams: each operand's pipeline */
    if (q->head) /* FROM (... UNION ALL ...): the outer query on top */
      print_query(x, 1, q->plan, sel, NULL, q->head, n->changelog);
    else
      print_union(x, 1, sel);
    lm_sql_script_free(sc);
    return;
  }
  /* a join plan borrows names and subqueries from the CREATE's syntax
   * tree, freed after CREATE: plan the same text again for them (the same
   * catalog gives the same steps, in the order the operators were built) */
  lm_plan *again = NULL;
  const lm_join_plan *ljp = q->plan->join;
  if (ljp && sel) {
    lm_join_ctx jc = {x->db, NULL, 0, 0};
    lm_error perr;
    lm_err_clear(&perr);
    int64_t ttl = ljp->n_steps ? ljp->steps[0].ttl_us : 0;
    if (lm_plan_join_select(sel, lm_engine_join_resolve, &jc, false, ttl,
                            &again, &perr))
      again = NULL;
    free(jc.nodes);
  }
  if (ljp && !again) {
    detail(x, 0, "(plan not available: its inputs changed)");
  } else {
    x->top = again ? again : q->plan;
    print_query(x, 1, x->top, sel, q->n_ins ? NULL : q->input,
                q->n_ins ? NULL : q->head, n->changelog);
  }
  lm_plan_free(again);
  lm_sql_script_free(sc);
}

/* ------------------------------------------------------ ad-hoc SELECT */

static void ex_free(ex *x);

/* Whether n is one of the statement's temporary relations (a CTE, a
 * derived table, a filtered relation, a view's rows: api/setop.c). */
static bool is_temp(const laminar_db *db, const lm_node *n) {
  for (int i = 0; i < db->n_temps; i++)
    if (db->temps[i] == n)
      return true;
  return false;
}

/* A temporary relation read by an ad-hoc query under EXPLAIN: its scan
 * and, below it, the query that computed it (the trace's producer).
 * Returns false when n is not one. */
static bool print_temp(ex *x, int d, const lm_node *n, const char *alias) {
  if (!x->an || !is_temp(x->db, n))
    return false;
  const lm_xt *k = lm_xt_producer(n->name);
  if (!strncmp(n->name, "(filtered ", 10)) { /* its filtered rows */
    if (k && k->n_lines) {
      lm_ex_embed(x, d, k->lines, k->n_lines);
      return true;
    }
    node(x, d, "Scan %s", n->name);
    return true;
  }
  char ab[160];
  lm_ex_actual_rows(x, ab, sizeof ab, x->run ? x->run->rows_read : 0, 1, -1);
  if (!strncmp(n->name, "(function ", 10)) { /* setop.c's rewrite_func */
    const char *fn = strchr(n->name + 10, ' ');
    int fl = fn ? (int)strcspn(fn + 1, ")") : 0;
    bool al = alias && fn &&
              ((int)strlen(alias) != fl || strncmp(alias, fn + 1, (size_t)fl));
    node(x, d, "Function Scan on %.*s%s%s%s", fl, fn ? fn + 1 : "",
         al ? " " : "", al ? alias : "", ab);
    verbose_out(x, d, n->table_schema, -1);
    return true;
  }
  if (!strncmp(n->name, "(derived table", 14))
    node(x, d, "Subquery Scan%s%s%s", alias ? " on " : "", alias ? alias : "",
         ab);
  else if (!strncmp(n->name, "(lateral subquery", 17)) /* select_lateral.c */
    node(x, d,
         "Nested Loop (LATERAL)%s%s  (the subquery below runs once per "
         "distinct tuple of the outer values it reads)%s",
         alias ? " on " : "", alias ? alias : "", ab);
  else if (n->view_rows)
    node(x, d, "Subquery Scan on %s  (view %s, computed for this statement)%s",
         alias ? alias : n->name, n->name, ab);
  else if (n->worktable) { /* a recursive WITH query's (select_recursive.c) */
    bool al = alias && strcmp(alias, n->name);
    char q1[300], q2[300];
    node(x, d, "WorkTable Scan on %s%s%s%s", qid(q1, sizeof q1, n->name),
         al ? " " : "", al ? qid(q2, sizeof q2, alias) : "", ab);
    verbose_out(x, d, n->table_schema, -1);
    return true;
  } else {
    bool al = alias && strcmp(alias, n->name);
    char q1[300], q2[300];
    node(x, d, "CTE Scan on %s%s%s%s", qid(q1, sizeof q1, n->name),
         al ? " " : "", al ? qid(q2, sizeof q2, alias) : "", ab);
    verbose_out(x, d, n->table_schema, -1);
    return true; /* the CTE's plan is shown once, under the top node */
  }
  verbose_out(x, d, n->table_schema, -1);
  if (k && k->n_lines)
    lm_ex_embed(x, d + 1, k->lines, k->n_lines);
  return true;
}

void lm_xt_run_done(laminar_db *db, const lm_xt_run *r) {
  lm_xt_ctx *c = lm_xt_ctx_get();
  if (!c || !c->cur)
    return;
  ex x;
  memset(&x, 0, sizeof x);
  x.db = db ? db : c->db;
  x.analyze = c->analyze;
  x.timing = c->timing;
  x.verbose = c->verbose;
  x.adhoc = true;
  x.an = c->cur;
  x.run = r;
  x.top = r->plan;
  const lm_plan *plan = r->plan;
  const lm_select *sel = r->sel;
  bool don = plan->n_distinct_on > 0;
  int d = 0;
  char ab[160];
  lm_buf b;
  lm_buf_init(&b);
  if (plan->limit >= 0 || plan->offset > 0) {
    if (plan->limit >= 0)
      lm_buf_printf(&b, "%" PRId64, plan->limit);
    else
      lm_buf_printf(&b, "ALL");
    if (plan->offset > 0)
      lm_buf_printf(&b, " offset %" PRId64, plan->offset);
    node(&x, d, "Limit: %s%s", b.data,
         lm_ex_actual_rows(&x, ab, sizeof ab,
                           don ? r->rows_out : r->rows_sorted, 1, -1));
    verbose_out(&x, d++, plan->out_schema, plan->n_out);
    lm_buf_reset(&b);
  }
  if (don) {
    print_expr_list(&b, sel->distinct_on, sel->n_distinct_on);
    node(&x, d, "Unique%s",
         lm_ex_actual_rows(&x, ab, sizeof ab, r->rows_out, 1, -1));
    detail(&x, d, "Distinct On: %s", b.data ? b.data : "");
    verbose_out(&x, d++, plan->out_schema, plan->n_out);
    lm_buf_reset(&b);
  }
  if (plan->n_sort) {
    for (int i = 0; i < sel->n_order_by; i++) {
      if (i)
        lm_buf_printf(&b, ", ");
      lm_sql_expr_to_string(sel->order_by[i].expr, &b);
      if (sel->order_by[i].desc)
        lm_buf_printf(&b, " DESC");
    }
    node(&x, d, "Sort%s",
         lm_ex_actual_rows(&x, ab, sizeof ab, r->rows_distinct, 1, -1));
    if (b.data && b.len)
      detail(&x, d, "Sort Key: %s", b.data);
    verbose_out(&x, d++, plan->out_schema, plan->n_out);
    lm_buf_reset(&b);
  }
  lm_buf_free(&b);
  if (plan->distinct) {
    node(&x, d, "Distinct%s",
         lm_ex_actual_rows(&x, ab, sizeof ab, r->rows_distinct, 1, -1));
    detail(&x, d, "Distinct: every output column, first occurrence kept");
    verbose_out(&x, d++, plan->out_schema, plan->n_out);
  }
  /* an ad-hoc aggregate's rows are read from its state at the end, not
   * pushed on: they are the rows out of the pipeline */
  for (int i = 0; i < c->cur->n_ops; i++)
    if (!strcmp(c->cur->ops[i].name, "aggregate"))
      c->cur->ops[i].rows_out = r->rows_pipe;
  const lm_node *in = NULL;
  if (r->in_name && !plan->join)
    in = lm_engine_find(x.db, r->in_name);
  int top = x.n;
  print_query(&x, d, plan, sel, in, NULL, false);
  /* subquery expressions, under the pipeline's top node (after its details,
   * before its input) as PostgreSQL shows them under the node using them */
  ex sx;
  memset(&sx, 0, sizeof sx);
  sx.analyze = x.analyze;
  sx.timing = x.timing;
  lm_xt_subplans(&sx, c->cur, d);
  if (sx.n && !x.oom && !sx.oom) {
    char arrow[128];
    int p = d ? 6 * d + 2 : 2;
    snprintf(arrow, sizeof arrow, "%*s->  ", p, "");
    int at = top + 1;
    while (at < x.n && strncmp(x.lines[at], arrow, strlen(arrow)))
      at++;
    char **nl = realloc(x.lines, sizeof *nl * (size_t)(x.n + sx.n));
    if (!nl) {
      x.oom = true;
    } else {
      x.lines = nl;
      memmove(&nl[at + sx.n], &nl[at], sizeof *nl * (size_t)(x.n - at));
      memcpy(&nl[at], sx.lines, sizeof *nl * (size_t)sx.n);
      x.n += sx.n;
      x.cap = x.n;
      sx.n = 0;
    }
  }
  ex_free(&sx);
  lm_xt_take_lines(c->cur, &x);
  ex_free(&x);
}

/* EXPLAIN [ANALYZE] of an ad-hoc SELECT: the query runs under the trace
 * (over no rows without ANALYZE), which describes it. */
static int explain_adhoc(ex *x, const lm_stmt *st, lm_error *err) {
  int rc = 0;
  if (x->analyze && (rc = lm_engine_drain(x->db, err)))
    return rc;
  lm_xt *root = calloc(1, sizeof *root);
  if (!root)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_xt_ctx c;
  memset(&c, 0, sizeof c);
  c.db = x->db;
  c.dry = !x->analyze;
  c.analyze = x->analyze;
  c.timing = x->timing;
  c.verbose = x->verbose;
  c.root = c.cur = root;
  lm_xt_ctx *prev = lm_xt_ctx_set(&c);
  laminar_result *r = NULL;
  int64_t t0 = lm_now_ns();
  rc = lm_engine_select(x->db, st->explain->select, &r, err);
  int64_t dt = lm_now_ns() - t0;
  lm_xt_ctx_set(prev);
  int64_t rows = r ? r->rows : 0;
  laminar_result_free(r);
  if (!rc) {
    const lm_xt *top = root->n_kids ? root->kids[0] : NULL;
    if (top && top->n_lines)
      lm_ex_embed(x, 0, top->lines, top->n_lines);
    else
      node(x, 0, "Query");
    if (x->analyze)
      node(x, 0, "Result Rows: %" PRId64, rows);
    if (x->analyze && x->timing && !st->explain_no_summary)
      node(x, 0, "Execution Time: %.3f ms", (double)dt / 1e6);
  }
  lm_xt_free(root);
  return rc;
}

/* ------------------------------------------------------------- result */

static int make_result(ex *x, laminar_result **res, lm_error *err) {
  if (x->oom)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_schema *s = lm_schema_new(1);
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_schema_set_field(s, 0, "QUERY PLAN", lm_type_make(LM_TYPE_UTF8), false);
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, x->n)) {
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < x->n; i++)
    lm_builder_append_str(&bb.cols[0], x->lines[i],
                          (int32_t)strlen(x->lines[i]));
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  lm_batch **arr = b ? malloc(sizeof *arr) : NULL;
  if (!arr) {
    lm_batch_release(b);
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  arr[0] = b;
  *res = lm_result_new(s, arr, 1);
  if (!*res) {
    lm_batch_release(b);
    free(arr);
    lm_schema_release(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}

static void ex_free(ex *x) {
  for (int i = 0; i < x->n; i++)
    free(x->lines[i]);
  free(x->lines);
}

/* EXPLAIN CREATE STREAM|MATERIALIZED VIEW: the query is built for real
 * under a private name (so every check CREATE makes applies), explained,
 * and dropped. */
static int explain_create(ex *x, const lm_stmt *st, lm_error *err) {
  if (st->explain->kind != LM_STMT_CREATE_STREAM &&
      st->explain->kind != LM_STMT_CREATE_MVIEW)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->explain->line, st->explain->column,
        "EXPLAIN explains a SELECT, a CREATE STREAM or MATERIALIZED VIEW, or "
        "the name of a stream or view");
  if (x->analyze)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, st->line, st->column,
        "EXPLAIN ANALYZE of a CREATE is not supported: create the stream or "
        "view, then EXPLAIN ANALYZE its name");
  char name[64];
  for (int k = 1;; k++) { /* a name no object has */
    snprintf(name, sizeof name, "__explain_%d", k);
    if (!lm_engine_find(x->db, name))
      break;
  }
  lm_stmt c = *st->explain;
  lm_select sel = *c.select;
  c.name = name;
  c.if_not_exists = false;
  c.select = &sel;
  if (sel.late_data_to && !lm_engine_find(x->db, sel.late_data_to))
    sel.late_data_to = NULL; /* do not create the late-row stream */
  size_t notices = x->db->notices.len;
  laminar_result *r = NULL;
  int rc = lm_engine_exec(x->db, &c, &r, err);
  laminar_result_free(r);
  x->db->notices.len = notices; /* the plan shows what the notice says */
  if (notices < x->db->notices.cap && x->db->notices.data)
    x->db->notices.data[notices] = 0;
  if (rc)
    return rc;
  lm_node *n = lm_engine_find(x->db, name);
  if (n)
    explain_node(x, n, st->explain->name);
  lm_stmt drop;
  memset(&drop, 0, sizeof drop);
  drop.kind = LM_STMT_DROP;
  drop.name = name;
  drop.object =
      st->explain->kind == LM_STMT_CREATE_STREAM ? LM_OBJ_STREAM : LM_OBJ_MVIEW;
  lm_error derr;
  lm_err_clear(&derr);
  lm_engine_exec(x->db, &drop, NULL, &derr);
  return 0;
}

int lm_explain(laminar_db *db, const lm_stmt *st, laminar_result **res,
               lm_error *err) {
  ex x;
  memset(&x, 0, sizeof x);
  x.db = db;
  x.analyze = st->analyze;
  x.timing = !st->no_timing && lm_op_timing(); /* no times when off */
  x.verbose = st->explain_verbose;
  int rc = 0;
  if (!st->explain) { /* EXPLAIN [ANALYZE] name */
    lm_node *n = lm_engine_find(db, st->name);
    if (!n || (n->kind != LM_NODE_STREAM && n->kind != LM_NODE_MVIEW)) {
      char m[300];
      snprintf(m, sizeof m, "no stream or materialized view named '%s'",
               st->name);
      return lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
    }
    if (x.analyze && (rc = lm_engine_drain(db, err)))
      return rc;
    explain_node(&x, n, n->name);
  } else if (st->explain->kind == LM_STMT_SELECT) {
    x.adhoc = true;
    rc = explain_adhoc(&x, st, err);
  } else {
    rc = explain_create(&x, st, err);
  }
  if (!rc && st->explain_json && !x.oom) { /* explain_json.c */
    char *j = NULL;
    char **one = malloc(sizeof *one);
    if (!one || lm_explain_json(x.lines, x.n, &j)) {
      free(one);
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    } else {
      for (int i = 0; i < x.n; i++)
        free(x.lines[i]);
      free(x.lines);
      one[0] = j;
      x.lines = one;
      x.n = x.cap = 1;
    }
  }
  if (!rc)
    rc = make_result(&x, res, err);
  ex_free(&x);
  return rc;
}
