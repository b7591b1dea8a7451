/*
 * plan/ — binding and planning: turns a parsed SELECT (sql/lm_sql.h) over
 * an input schema into a query plan: bound, typed expressions and the
 * shape of the operator pipeline (filter -> [aggregate | window aggregate]
 * -> having -> project -> [sort, limit]).
 *
 * Everything a plan points to lives in the plan's arena and is freed by
 * lm_plan_free.
 */
#ifndef LM_PLAN_H
#define LM_PLAN_H

#include "columnar/lm_columnar.h"
#include "sql/lm_sql.h"

/* ------------------------------------------------- bound expressions */

typedef enum lm_bexpr_kind {
  LM_BX_COLUMN,  /* col = index into the input batch */
  LM_BX_LITERAL, /* lit (strings owned by the plan arena) */
  LM_BX_UNARY,   /* op (NOT, NEG) args[0] */
  LM_BX_BINARY,  /* op args[0] args[1] */
  LM_BX_CAST,    /* args[0] to type */
  LM_BX_IS_NULL, /* args[0] IS [NOT] NULL */
  LM_BX_CASE,    /* args: [when, then]* [else] (has_else) */
  LM_BX_FUNC,    /* fn(args) */
  LM_BX_LIKE,    /* args[0] [NOT] LIKE args[1] */
} lm_bexpr_kind;

typedef enum lm_func_id {
  LM_FN_TUMBLE,     /* (ts, size[, offset]) -> TIMESTAMP window start */
  LM_FN_TUMBLE_END, /* (ts, size[, offset]) -> TIMESTAMP window end */
  LM_FN_ABS,
  LM_FN_LOWER,
  LM_FN_UPPER,
  LM_FN_LENGTH,
  LM_FN_COALESCE,
  LM_FN_ROUND,
  LM_FN_FLOOR,
  LM_FN_CEIL,
  LM_FN_SUBSTR,     /* (s, start[, count]): 1-based, in characters */
  LM_FN_DATE_TRUNC, /* ('unit', ts) -> TIMESTAMP; unit in args[0] */
  LM_FN_DATE_PART,  /* ('field', ts) -> BIGINT, or DOUBLE for second/epoch */
  LM_FN_TRIM,       /* (s): spaces off both ends */
  LM_FN_LTRIM,
  LM_FN_RTRIM,
  LM_FN_REPLACE, /* (s, from, to): every occurrence */
  LM_FN_CONCAT,  /* (a, b, ...): NULLs skipped */
  /* Window functions (docs/windows.md). As scalars they give the earliest
   * window containing ts; in GROUP BY they make the query windowed. */
  LM_FN_HOP,          /* (ts, slide, size[, offset]) -> window start */
  LM_FN_HOP_END,      /* (ts, slide, size[, offset]) -> window end */
  LM_FN_CUMULATE,     /* (ts, step, max_size[, offset]) -> window start */
  LM_FN_CUMULATE_END, /* (ts, step, max_size[, offset]) -> window end */
  LM_FN_SESSION,      /* (ts, gap) -> session start; GROUP BY only */
  LM_FN_SESSION_END,  /* (ts, gap) -> last event + gap; GROUP BY only */
  /* Flink / Nexmark string functions (docs/functions in docs/nexmark.md) */
  LM_FN_DATE_FORMAT,    /* (ts, 'pattern') -> VARCHAR; Java date pattern */
  LM_FN_REGEXP_EXTRACT, /* (s, regex[, group]) -> VARCHAR; PCRE2 */
  LM_FN_SPLIT_INDEX,    /* (s, delim, index) -> VARCHAR; 0-based token */
  LM_FN_COUNT_CHAR,     /* (s, c) -> BIGINT: occurrences of c's 1st char */
} lm_func_id;

typedef struct lm_bexpr lm_bexpr;
struct lm_bexpr {
  lm_bexpr_kind kind;
  lm_type type; /* result type */
  int line, column;
  int col;       /* COLUMN */
  lm_value lit;  /* LITERAL */
  lm_op op;      /* UNARY / BINARY */
  lm_func_id fn; /* FUNC */
  bool negated;  /* IS NOT NULL, NOT LIKE */
  bool has_else; /* CASE */
  lm_bexpr **args;
  int n_args;
};

/* Structural equality of two bound expressions (used to match SELECT items
 * to GROUP BY keys). */
bool lm_bexpr_equal(const lm_bexpr *a, const lm_bexpr *b);

/* ----------------------------------------------------------- aggregates */

typedef enum lm_agg_kind {
  LM_AGG_COUNT_STAR,
  LM_AGG_COUNT,
  LM_AGG_SUM,
  LM_AGG_AVG,
  LM_AGG_MIN,
  LM_AGG_MAX,
  LM_AGG_FIRST,           /* first_value(x): earliest live non-NULL row */
  LM_AGG_LAST,            /* last_value(x): latest live non-NULL row */
  LM_AGG_VAR_SAMP,        /* VARIANCE, VAR_SAMP: DOUBLE, NULL for n < 2 */
  LM_AGG_VAR_POP,         /* VAR_POP: DOUBLE, NULL for n = 0 */
  LM_AGG_STDDEV_SAMP,     /* STDDEV, STDDEV_SAMP */
  LM_AGG_STDDEV_POP,      /* STDDEV_POP */
  LM_AGG_APPROX_DISTINCT, /* APPROX_COUNT_DISTINCT: HyperLogLog, BIGINT */
} lm_agg_kind;

/* One aggregate call. `agg(x) FILTER (WHERE c)` is bound as
 * agg(CASE WHEN c THEN x END) (COUNT(*) FILTER as COUNT(CASE WHEN c THEN
 * TRUE END)): every aggregate skips NULL inputs, so the rewrite is exact. */
typedef struct lm_agg_spec {
  lm_agg_kind kind;
  lm_bexpr *arg; /* over the (filtered) input; NULL for COUNT(*) */
  lm_type in_type, out_type;
  bool distinct; /* agg(DISTINCT x): each value once per group */
} lm_agg_spec;

/* ------------------------------------------------------------ the plan */

typedef enum lm_window_kind {
  LM_WIN_NONE = 0,
  LM_WIN_TUMBLE,
  LM_WIN_HOP,
  LM_WIN_CUMULATE,
  LM_WIN_SESSION,
} lm_window_kind;

typedef struct lm_sort_key {
  lm_bexpr *expr; /* over the projected output */
  bool desc;
  bool nulls_first;
} lm_sort_key;

typedef struct lm_plan {
  lm_arena arena;
  lm_schema *input_schema; /* one reference */

  lm_bexpr *where; /* over input; NULL = none */

  /* Aggregation (n_keys + n_aggs > 0 or has_agg): the aggregate operator
   * produces the intermediate schema [keys..., aggs...]; having and
   * projections are bound over it. Without aggregation, projections are
   * bound over the input. */
  bool has_agg;
  int n_keys;
  lm_bexpr **keys; /* over input */
  char **key_names;
  int n_aggs;
  lm_agg_spec *aggs;
  lm_schema *agg_schema; /* intermediate; NULL without aggregation */

  /* Event-time window (docs/windows.md): window_key >= 0 names the key
   * that is the window start (tumble/hop/cumulate/session(time_col, ...))
   * and window_end_key the key that is its end (added to the keys, named
   * __window_end, when GROUP BY does not list it). Both are filled in by
   * the window operators, not evaluated per row. All times in µs. */
  int window_key;
  int window_end_key;
  int window_kind;             /* lm_window_kind */
  int window_time_col;         /* index of the time column in the input */
  int64_t window_size_us;      /* TUMBLE/HOP size, CUMULATE max size, gap */
  int64_t window_slide_us;     /* HOP slide, CUMULATE step, TUMBLE size */
  int64_t window_offset_us;    /* alignment offset (0 for SESSION) */
  int64_t allowed_lateness_us; /* ALLOW LATENESS; 0 = none */
  int64_t emit_interval_us;    /* EMIT PERIODICALLY */

  /* Changelog input (set by the planner in api/, not by lm_plan_select):
   * when changelog_input, input batches carry a BIGINT weight (+1 insert,
   * -1 retract, any non-zero multiplicity) in column weight_col, after the
   * input schema's columns; aggregates consume retractions and a
   * projection passes the weight on. */
  bool changelog_input;
  int weight_col;

  lm_bexpr *having; /* over agg_schema; NULL = none */

  int n_out;
  lm_bexpr **out; /* projections */
  lm_schema *out_schema;

  /* Ad-hoc queries only. */
  int n_sort;
  lm_sort_key *sort;
  int64_t limit; /* -1 none */
  int64_t offset;
  bool distinct;

  lm_emit_kind emit;

  /* Top-N (docs/changelog.md): a SELECT over FROM (SELECT ..., ROW_NUMBER()
   * OVER (PARTITION BY ... ORDER BY ...) AS rn FROM input [WHERE ...])
   * filtered by rn <= N. topn (owned, NULL = not Top-N) is the subquery's
   * plan over the input: its where filters the input, its out/out_schema
   * are the subquery's columns except rn. This plan's input_schema is then
   * [those columns..., rn BIGINT] (rn at column topn_rn_col), its out is
   * bound over that and its where is NULL (the rn filter is topn_limit).
   * topn_part / topn_order (in topn's arena) are bound over the input. */
  struct lm_plan *topn;
  lm_bexpr **topn_part;
  int n_topn_part;
  lm_sort_key *topn_order;
  int n_topn_order;
  int64_t topn_limit;     /* N >= 1 */
  int topn_rn_col;        /* = topn->out_schema->n_fields */
  bool topn_rank_visible; /* the outer SELECT reads rn: rank changes of the
                             rows are emitted, not only membership */
} lm_plan;

/* Binds `sel` against `input` (the FROM object's schema). On success *out
 * is a new plan (free with lm_plan_free). Errors are LM_ERR_BIND with the
 * line:column of the offending expression, e.g. "2:12: column 'dealy' does
 * not exist in 'flights'" or "column 'x' must appear in the GROUP BY clause
 * or be used in an aggregate function". `from_name` is used in messages. */
int lm_plan_select(const lm_select *sel, lm_schema *input,
                   const char *from_name, lm_plan **out, lm_error *err);

/* Binds a standalone scalar expression over `input` (NULL = no columns),
 * allocating in `arena`. Used for INSERT values and watermark expressions.
 */
int lm_bind_scalar(const lm_expr *e, const lm_schema *input, lm_arena *arena,
                   lm_bexpr **out, lm_error *err);

void lm_plan_free(lm_plan *p);

/* Binds a SELECT whose FROM is a subquery (sel->from_subquery != NULL;
 * `input` and `from_name` are the subquery's FROM object) as a Top-N plan
 * (see lm_plan.topn). Accepted: the subquery is SELECT items, exactly one
 * ROW_NUMBER() OVER ([PARTITION BY e, ...] ORDER BY e [ASC|DESC] [NULLS
 * FIRST|LAST], ...) [AS rn] FROM input [WHERE cond] (no aggregate, ORDER
 * BY, LIMIT, DISTINCT or EMIT), and the outer WHERE is exactly rn <= N,
 * rn < N, rn = 1 or rn BETWEEN 1 AND N (N an integer literal; N >= rn
 * mirrored too); the outer SELECT projects without aggregates. On success
 * *out is a new plan (lm_plan_free). Errors: LM_ERR_BIND with the
 * line:column of the offending construct, e.g. "window functions other
 * than ROW_NUMBER in a streaming query are not supported yet", "a
 * ROW_NUMBER subquery must be filtered by rn <= N ..."; LM_ERR_NOMEM. */
int lm_plan_topn(const lm_select *sel, lm_schema *input, const char *from_name,
                 lm_plan **out, lm_error *err);

/* Refuses a window function call (func(...) OVER (...)) anywhere in a
 * SELECT without a Top-N subquery: LM_ERR_BIND at the call's line:column
 * ("window functions other than ROW_NUMBER ..." or, for ROW_NUMBER, where
 * it is supported). Returns 0 when there is none. */
int lm_plan_check_no_over(const lm_select *sel, lm_error *err);

#endif
