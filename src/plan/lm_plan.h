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
} lm_agg_kind;

typedef struct lm_agg_spec {
  lm_agg_kind kind;
  lm_bexpr *arg; /* over the (filtered) input; NULL for COUNT(*) */
  lm_type in_type, out_type;
  bool distinct; /* agg(DISTINCT x): each value once per group */
} lm_agg_spec;

/* ------------------------------------------------------------ the plan */

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

  /* Event-time window: window_key >= 0 names the key that is
   * tumble(time_col, size[, offset]). */
  int window_key;
  int window_time_col; /* index of the time column in the input */
  int64_t window_size_us, window_offset_us;

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

#endif
