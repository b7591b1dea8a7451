/*
 * api/explain_int.h — what api/explain.c (the plan printer) and
 * api/explain_adhoc.c (the trace of an ad-hoc query, docs/explain.md) share,
 * and explain_json.c's entry point. Private to those three files: the
 * paths that run queries (select.c, setop.c, select_recursive.c,
 * srf_stream.c, ...) describe what they run through api/engine.h's lm_xt_*
 * functions.
 */
#ifndef LM_EXPLAIN_INT_H
#define LM_EXPLAIN_INT_H

#include "api/engine.h"

/* Counters of one operator, copied (an ad-hoc query's operators are freed
 * before the plan is printed). */
typedef struct opstat {
  const char *name; /* vt->name */
  int64_t rows_in, rows_out, batches_in, batches_out, time_ns, late;
  int64_t state_rows, state_bytes; /* -1 = unknown */
} opstat;

#define LM_XT_MAX_OPS 64
#define LM_XT_MAX_PSET 16 /* srf_stream.c's MAX_STAGES */

/* One query an ad-hoc statement ran under EXPLAIN (lm_engine_select's
 * frame): what ran it (role, name, key), the queries it ran in turn
 * (kids, in the order they ran), and its description (lines, rendered at
 * depth 0 when it ended; NULL until then or when it failed). */
struct lm_xt {
  lm_xt_role role;
  char *name;      /* CTE / derived table / view name (owned) */
  const void *key; /* SUBPLAN: its lm_subplan; JOIN_INPUT: input index */
  struct lm_xt *parent;
  struct lm_xt **kids;
  int n_kids, cap_kids;
  char **lines; /* owned */
  int n_lines;
  /* the input of the next select_run over given rows (a window
   * function's WindowAgg, a subquery's scan), depth 0 (owned) */
  char **in_lines;
  int n_in_lines;
  opstat ops[LM_XT_MAX_OPS]; /* the pipeline select_run ran */
  int n_ops;
  opstat joins[LM_XT_MAX_OPS]; /* ad-hoc join steps */
  bool has_join[LM_XT_MAX_OPS];
  /* ProjectSet stages run ahead of the pipeline (api/srf_stream.c),
   * bottom-up: their calls' text (owned), alias, flags and counters */
  struct {
    char *calls; /* "generate_series(1, b)[, ...]" */
    char *fn;    /* the first call's function name */
    char *alias; /* NULL: none */
    int n_calls; /* > 1: ROWS FROM (f(...), g(...)) or select-list calls */
    bool outer, ordinality, has_stat;
    opstat st;
  } pset[LM_XT_MAX_PSET];
  int n_pset;
  int64_t rows;  /* result rows (summed over loops) */
  int64_t t0_ns; /* when it started */
  int64_t ns;    /* wall time, its kids included (summed over loops) */
  int loops;     /* SUBPLAN_RUN: runs merged into this frame */
  bool hidden;   /* not shown (a VALUES row): dropped when it ends */
};

/* The plan printer's output: lines of text, one per plan line. */
typedef struct ex {
  laminar_db *db;
  char **lines;
  int n, cap;
  bool oom;
  bool analyze, timing, verbose;
  bool adhoc; /* no streaming properties (bounded rows) */
  /* continuous query being explained (NULL: EXPLAIN of an ad-hoc SELECT) */
  lm_query *q;
  lm_xt *an;            /* ad-hoc: the frame whose query is printed */
  const lm_plan *top;   /* the explained query's plan */
  int jn, in;           /* next join / input index (build_join's order) */
  lm_operator *over;    /* the OVER operator of the pipeline printed */
  const lm_xt_run *run; /* ad-hoc: the run of the query printed */
} ex;

/* api/explain.c: a node line at depth d (0 = the root) or a detail line
 * of the node at depth d, printf-style; OOM sets x->oom. */
void lm_ex_node(ex *x, int d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lm_ex_detail(ex *x, int d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* " (actual rows=N[ loops=L][ time=T ms])" of a frame for ANALYZE (buf),
 * "" otherwise. */
const char *lm_ex_actual_rows(const ex *x, char *buf, size_t cap, int64_t rows,
                              int loops, int64_t ns);
/* Copies lines[0..n) (rendered at depth 0) as the subtree at depth d: the
 * root gets the arrow "->  " at column p = 6(d-1)+2 (d > 0), the rest move
 * right by p + 4. */
void lm_ex_embed(ex *x, int d, char *const *lines, int n);
/* The same with the root's arrow at column p. */
void lm_ex_embed_at(ex *x, int p, char *const *lines, int n);
/* The index of the top node's first input line (n when it has none):
 * where more SubPlan / CTE sections of the top node go, after its details
 * and sections. */
int lm_ex_top_details_end(char *const *lines, int n);

/* api/explain_adhoc.c: the trace of the statement being explained, or
 * NULL (not explaining in this thread). */
typedef struct lm_xt_ctx {
  laminar_db *db;
  bool dry; /* EXPLAIN without ANALYZE: relations read as empty */
  bool analyze, timing, verbose;
  lm_xt *root; /* the explained SELECT's frame's parent */
  lm_xt *cur;  /* the innermost open frame */
  lm_xt_role pending;
  const char *pending_name;
  const void *pending_key;
} lm_xt_ctx;
lm_xt_ctx *lm_xt_ctx_get(void);
/* Installs c as this thread's trace (NULL: none); returns the previous. */
lm_xt_ctx *lm_xt_ctx_set(lm_xt_ctx *c);
/* Frees frame f and its kids. */
void lm_xt_free(lm_xt *f);
/* The counters of operator op, copied (api/explain.c). */
opstat lm_ex_snap(const lm_operator *op);
/* Moves x's lines into f's description (replacing it); x is emptied. */
void lm_xt_take_lines(lm_xt *f, ex *x);
/* The frame that computed temporary relation `name` (a CTE, a derived
 * table, a filtered relation or a view): the last kid of that name of the
 * current frame or of one enclosing it; NULL if none. */
const lm_xt *lm_xt_producer(const char *name);
/* The last kid of f with role r (and key, when key is not NULL). */
const lm_xt *lm_xt_kid(const lm_xt *f, lm_xt_role r, const void *key,
                       bool any_key);
/* Appends the SubPlan / InitPlan sections of f's subquery kids to x as
 * details of a node at depth d (each plan below its label). */
void lm_xt_subplans(ex *x, const lm_xt *f, int d);

/* api/explain_json.c: the text plan lines[0..n) as PostgreSQL's JSON form
 * (*out: one malloc'd string; NULL when n is 0). 0, or -1 on OOM. */
int lm_explain_json(char *const *lines, int n, char **out);

#endif
