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
  LM_BX_COLUMN,   /* col = index into the input batch */
  LM_BX_LITERAL,  /* lit (strings owned by the plan arena) */
  LM_BX_UNARY,    /* op (NOT, NEG) args[0] */
  LM_BX_BINARY,   /* op args[0] args[1] */
  LM_BX_CAST,     /* args[0] to type */
  LM_BX_IS_NULL,  /* args[0] IS [NOT] NULL */
  LM_BX_CASE,     /* args: [when, then]* [else] (has_else) */
  LM_BX_FUNC,     /* fn(args) */
  LM_BX_LIKE,     /* args[0] [NOT] LIKE|ILIKE args[1] [ESCAPE args[2]] */
  LM_BX_PARAM,    /* *param: a value an enclosing query sets (a correlated
                     subquery's outer reference, or ANY's left operand) */
  LM_BX_SUBQUERY, /* sub: a subquery expression (lm_subplan) */
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
  /* PostgreSQL functions (docs/functions.md). Each range below is one
   * evaluator file; keep the ranges contiguous. */
  LM_FN_GREATEST, /* (a, ...) -> common type; NULLs ignored (expr_eval.c) */
  LM_FN_LEAST,
  LM_FN_NULLIF, /* (a, b) -> a, NULL when a = b */
  /* math (expr_mathfn.c): DOUBLE unless noted */
  LM_FN_TRUNC,   /* (x[, n]) BIGINT for BIGINT x */
  LM_FN_SQRT,    /* (x) */
  LM_FN_CBRT,    /* (x) */
  LM_FN_LN,      /* (x) */
  LM_FN_LOG10,   /* (x) = log(x) */
  LM_FN_LOG,     /* (b, x): logarithm of x to base b */
  LM_FN_EXP,     /* (x) */
  LM_FN_POWER,   /* (x, y) */
  LM_FN_SIGN,    /* (x) -1, 0, 1 */
  LM_FN_PI,      /* () */
  LM_FN_DEGREES, /* (x) */
  LM_FN_RADIANS, /* (x) */
  LM_FN_RANDOM,  /* () in [0, 1); SET seed / setseed() make it repeatable */
  LM_FN_SETSEED, /* (x in [-1, 1]) -> VARCHAR '' (PostgreSQL: void) */
  LM_FN_WIDTH_BUCKET, /* (x, lo, hi, n) -> BIGINT */
  /* text (expr_textfn.c); positions and lengths in characters */
  LM_FN_OCTET_LENGTH, /* (s) -> BIGINT bytes */
  LM_FN_STRPOS,       /* (s, sub) -> BIGINT, 0 = absent */
  LM_FN_BTRIM_CHARS,  /* (s, chars) */
  LM_FN_LTRIM_CHARS,
  LM_FN_RTRIM_CHARS,
  LM_FN_SPLIT_PART, /* (s, delim, n): n < 0 counts from the end */
  LM_FN_CONCAT_WS,  /* (sep, a, ...): NULL arguments skipped */
  LM_FN_LEFT,       /* (s, n): n < 0 = all but the last -n */
  LM_FN_RIGHT,      /* (s, n): n < 0 = all but the first -n */
  LM_FN_LPAD,       /* (s, n[, fill]) */
  LM_FN_RPAD,
  LM_FN_REPEAT,      /* (s, n) */
  LM_FN_REVERSE,     /* (s) */
  LM_FN_STARTS_WITH, /* (s, prefix) -> BOOLEAN */
  LM_FN_MD5,         /* (s) -> 32 hex digits */
  LM_FN_INITCAP,     /* (s) */
  LM_FN_ASCII,       /* (s) -> BIGINT code point of the first character */
  LM_FN_CHR,         /* (n) -> the character with code point n */
  /* regular expressions (expr_regexfn.c, PCRE2) */
  LM_FN_REGEX_OP,       /* s ~ re (icase: ~*, negated: !~ / !~*) -> BOOLEAN */
  LM_FN_REGEXP_REPLACE, /* (s, re, repl[, flags]) */
  LM_FN_REGEXP_MATCH,   /* (s, re[, flags]) -> VARCHAR: see docs */
  LM_FN_REGEXP_SUBSTR,  /* (s, re[, start, n, flags, subexpr]) -> VARCHAR:
                         * the n-th match; negated: substring(s FROM re),
                         * group 1 or the whole match */
  /* date and time (expr_datefn.c); times in µs since the epoch, UTC */
  LM_FN_TO_CHAR,        /* (ts, fmt) -> VARCHAR */
  LM_FN_TO_TIMESTAMP,   /* (seconds DOUBLE) or (text, fmt) -> TIMESTAMP */
  LM_FN_MAKE_TIMESTAMP, /* (y, mo, d, h, mi, sec DOUBLE) -> TIMESTAMP */
  LM_FN_TO_CHAR_NUM,    /* (BIGINT | DOUBLE, fmt) -> VARCHAR */
  LM_FN_TO_DATE,        /* (text, fmt) -> DATE */
  LM_FN_MAKE_DATE,      /* (y, mo, d) -> DATE */
  LM_FN_MAKE_TIME,      /* (h, mi, sec DOUBLE) -> TIME */
  LM_FN_MAKE_INTERVAL,  /* (y, mo, w, d, h, mi, sec DOUBLE) -> INTERVAL */
  LM_FN_JUSTIFY_DAYS,   /* (INTERVAL) -> INTERVAL; also _HOURS, _INTERVAL */
  LM_FN_JUSTIFY_HOURS,
  LM_FN_JUSTIFY_INTERVAL,
  LM_FN_INTERVAL_PART, /* ('field', INTERVAL) -> DOUBLE */
  LM_FN_IV_FIELD, /* (INTERVAL, k BIGINT literal) -> BIGINT: the stored months
                     (k 0), days (1) or µs (2); sum(interval): mdn_bind.c */
  LM_FN_IV_MAKE,  /* (months, days, µs DECIMAL(38,0)[, count BIGINT]) ->
                     INTERVAL: their sum [divided by count: avg] */
  LM_FN_CLOCK_TIMESTAMP, /* () -> TIMESTAMPTZ: the wall clock, per row */
  LM_FN_AGE,             /* (ts, ts) -> INTERVAL */
  /* JSON over text (expr_jsonfn.c) */
  LM_FN_JSON_GET,      /* (json, key or index...) -> VARCHAR json; negated:
                          the -> / ->> operator (text keys: objects only) */
  LM_FN_JSON_GET_TEXT, /* (json, key or index...) -> VARCHAR text */
  /* DECIMAL functions (expr_types.c): (x DECIMAL, digits BIGINT literal,
   * which BIGINT literal: 0 round, 1 trunc, 2 abs, 3 ceil, 4 floor, 5 sign)
   * -> DECIMAL at the result scale */
  LM_FN_DECIMAL_FN,
  /* integer functions and operators (expr_intfn.c): the integer ones keep
   * PostgreSQL's width, e->type INT16 / INT32 / INT64 */
  LM_FN_BIT_AND,      /* (a, b) a & b */
  LM_FN_BIT_OR,       /* (a, b) a | b */
  LM_FN_BIT_XOR,      /* (a, b) a # b */
  LM_FN_SHL,          /* (a, n) a << n (n masked to the width, as C on x86) */
  LM_FN_SHR,          /* (a, n) a >> n (arithmetic) */
  LM_FN_BIT_NOT,      /* (a) ~a */
  LM_FN_GCD,          /* (a, b) */
  LM_FN_LCM,          /* (a, b) */
  LM_FN_TO_HEX,       /* (a) -> VARCHAR, two's complement at a's width */
  LM_FN_DIV,          /* (a, b) integer quotient; BIGINT or DOUBLE */
  LM_FN_FACTORIAL,    /* (n BIGINT) -> DECIMAL(38, 0) */
  LM_FN_NUM_NULLS,    /* (any, ...) -> INT32 */
  LM_FN_NUM_NONNULLS, /* (any, ...) -> INT32 */
  LM_FN_MIN_SCALE,    /* (DECIMAL) -> INT32: digits after trailing zeros */
  /* trigonometric and hyperbolic functions (expr_trigfn.c), DOUBLE; the
   * ..D ones in degrees with PostgreSQL's exact values (sind(30) = 0.5) */
  LM_FN_SIN,
  LM_FN_COS,
  LM_FN_TAN,
  LM_FN_COT,
  LM_FN_ASIN,
  LM_FN_ACOS,
  LM_FN_ATAN,
  LM_FN_ATAN2, /* (y, x) */
  LM_FN_SIND,
  LM_FN_COSD,
  LM_FN_TAND,
  LM_FN_COTD,
  LM_FN_ASIND,
  LM_FN_ACOSD,
  LM_FN_ATAND,
  LM_FN_ATAN2D, /* (y, x) */
  LM_FN_SINH,
  LM_FN_COSH,
  LM_FN_TANH,
  LM_FN_ASINH,
  LM_FN_ACOSH,
  LM_FN_ATANH,
  /* text formatting and bytes (expr_fmtfn.c) */
  LM_FN_TRANSLATE,      /* (s, from, to) */
  LM_FN_OVERLAY,        /* (s, r, from[, for]) */
  LM_FN_BIT_LENGTH,     /* (s | bytea) -> BIGINT */
  LM_FN_FORMAT,         /* (fmt, any...) %s %I %L %% */
  LM_FN_QUOTE_IDENT,    /* (s) */
  LM_FN_QUOTE_LITERAL,  /* (s): NULL for NULL */
  LM_FN_QUOTE_NULLABLE, /* (s): 'NULL' for NULL */
  LM_FN_SIMILAR_ESCAPE, /* (pattern[, escape]) -> the SIMILAR TO regex */
  LM_FN_ENCODE,         /* (bytea, 'hex' | 'base64' | 'escape') -> text */
  LM_FN_DECODE,         /* (text, format) -> bytea */
  LM_FN_SHA256,         /* (bytea) -> bytea */
  /* json / jsonb (expr_json2.c; bound in json_bind.c) */
  LM_FN_JSON_PATH,         /* (json, path text[] as text) #> -> json */
  LM_FN_JSON_PATH_TEXT,    /* #>> -> text */
  LM_FN_JSONB_EXISTS,      /* (jsonb, text) ? -> BOOLEAN */
  LM_FN_JSONB_EXISTS_ANY,  /* (jsonb, text[] as text) ?| */
  LM_FN_JSONB_EXISTS_ALL,  /* ?& */
  LM_FN_JSONB_CONTAINS,    /* (jsonb, jsonb) @> (<@ swaps them) */
  LM_FN_JSON_TYPEOF,       /* (json | jsonb) -> text */
  LM_FN_JSON_ARRAY_LENGTH, /* (json | jsonb) -> INTEGER */
  LM_FN_TO_JSON,           /* (any) -> json | jsonb (e->type) */
  LM_FN_JSON_BUILD_OBJECT, /* (k, v, ...) -> json | jsonb */
  LM_FN_JSON_BUILD_ARRAY,  /* (v, ...) -> json | jsonb */
  LM_FN_JSONB_SET,         /* (jsonb, path, jsonb[, create BOOLEAN]) */
  LM_FN_JSONB_PRETTY,      /* (jsonb) -> text */
  LM_FN_JSON_STRIP_NULLS,  /* (json | jsonb) */
  LM_FN_JSON_AGG_ITEM,     /* json_agg's items (json_agg_bind.c) */
  LM_FN_JSONB_CONCAT,      /* jsonb || jsonb */
  LM_FN_JSONB_DELETE_PATH, /* jsonb #- path (text[] as text) */
  LM_FN_JSONB_DELETE,      /* jsonb - text | jsonb - integer */
  LM_FN_REGEXP_COUNT,      /* (s, re[, start BIGINT[, flags]]) -> INTEGER
                              (expr_regexfn.c) */
  LM_FN_REGEXP_INSTR,      /* PostgreSQL 15's (expr_regexfn.c) */
  LM_FN_DATE_BIN,          /* (stride INTERVAL, ts, origin ts) -> ts's type
                              (expr_datebin.c) */
  /* arrays (expr_array.c; SQL arrays are LIST<item> values, bound by
   * plan/array_bind.c; docs/functions.md "Arrays") */
  LM_FN_ARR_CTOR,        /* ARRAY[e, ...]: args cast to the item type */
  LM_FN_ARR_SUBSCRIPT,   /* a[i]: 1-based, NULL out of range */
  LM_FN_ARR_SLICE,       /* a[lo:hi]: tlen bit 1 / 2: lo / hi omitted */
  LM_FN_ARR_ANY,         /* x op ANY (a); negated: op ALL (a) */
  LM_FN_ARR_ANY_MATCH,   /* x [NOT] [I]LIKE / ~ ~* !~ !~* ANY|ALL (a): op
                          * LM_OP_EQ LIKE, LM_OP_NE NOT LIKE (icase: ILIKE),
                          * else the regex op; negated: ALL (expr_array.c) */
  LM_FN_ARR_CMP,         /* a op b (= <> < <= > >=), PostgreSQL's order */
  LM_FN_ARR_LENGTH,      /* (a, dim) -> INT32; also array_upper */
  LM_FN_ARR_LOWER,       /* (a, dim) -> INT32: 1, NULL when empty */
  LM_FN_ARR_CARDINALITY, /* (a) -> INT32 */
  LM_FN_ARR_NDIMS,       /* (a) -> INT32: 1, NULL when empty */
  LM_FN_ARR_DIMS,        /* (a) -> text "[1:n]" */
  LM_FN_ARR_POSITION,    /* (a, x[, start]) -> INT32 */
  LM_FN_ARR_POSITIONS,   /* (a, x) -> INT32[] */
  LM_FN_ARR_APPEND,      /* (a, x) */
  LM_FN_ARR_PREPEND,     /* (x, a) */
  LM_FN_ARR_CAT,         /* (a, b) */
  LM_FN_ARR_REMOVE,      /* (a, x) */
  LM_FN_ARR_REPLACE,     /* (a, x, y) */
  LM_FN_ARR_TO_STRING,   /* (a, sep[, null]) -> text */
  LM_FN_STRING_TO_ARRAY, /* (s, sep[, null]) -> text[] */
  LM_FN_ARR_CONTAINS,    /* a @> b */
  LM_FN_ARR_OVERLAP,     /* a && b */
  LM_FN_ARR_TRIM,        /* trim_array(a, n) */
  LM_FN_ARR_ITEM_TEXT,   /* (x) -> text: x as an array_out item (quoted
                            when needed; NULL as NULL): array_agg */
  LM_FN_ARR_DKEY,        /* (x, t, nulls_low) -> text: x's order key and
                            t (expr_dkey.c): array_agg(DISTINCT) */
  LM_FN_ARR_DKEY_OUT,    /* (s, sep) -> text: the t of each key, joined */
  LM_FN_ARR_SUB,         /* ARRAY(SELECT ...) (not bound yet) */
  /* exec/expr_fn5.c, bound in plan/fn5_bind.c */
  LM_FN_TO_NUMBER,       /* (s, fmt) -> DECIMAL(38, fmt's digits after .) */
  LM_FN_GEN_RANDOM_UUID, /* () -> uuid (version 4) */
  LM_FN_SHA2,            /* (bytea, bits INT64 224 | 384 | 512) -> bytea */
  LM_FN_BYTEA_BITS,      /* get_byte, set_byte, get_bit, set_bit,
                            bit_count(bytea): (b, [n, [v,]] op INT64) */
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
  bool icase;    /* ILIKE, ~* and !~* */
  lm_bexpr **args;
  int n_args;
  lm_value *param;        /* PARAM: the slot (owned by its lm_subplan) */
  struct lm_subplan *sub; /* SUBQUERY; negated: NOT IN */
  /* The time zone of zone-dependent nodes (casts to/from TIMESTAMPTZ, AT
   * TIME ZONE): the session zone when bound, or AT TIME ZONE's zone;
   * process-lifetime (columnar/lm_tz.h). */
  const struct lm_tz *tz;
  /* CAST to TIMESTAMP(p) / TIME(p): p + 1, the result rounded to p
   * fractional digits (half away from zero, as PostgreSQL); 0: none. CAST
   * to DECIMAL: -1 written NUMERIC (±Infinity allowed), -2 NUMERIC(p, s)
   * (Infinity is 22003, exec/expr_types.c) */
  int8_t tprec;
  /* CAST to VARCHAR(n) / CHAR(n): n characters, 0: no limit; tbpchar: CHAR
   * (blank-padded to n). An explicit cast truncates longer text; an
   * assignment (tassign: INSERT / UPDATE into a column declared so) is
   * PostgreSQL's 22001 "value too long for type character varying(n)"
   * unless the characters past n are all spaces. tassign on a CAST of a
   * DOUBLE to an integer: the value is numeric in PostgreSQL (1.5, i * 1.5
   * assigned to an INTEGER column), rounded half away from zero. */
  int32_t tlen;
  bool tbpchar;
  bool tassign;
  /* LITERAL of type FLOAT64 written as a decimal number (1.5, 1e-3): its
   * text (arena-owned, with the sign of a folded unary minus), so that it
   * becomes the exact DECIMAL it was written as where one is wanted
   * (bind_types.c); NULL otherwise */
  const char *lit_text;
  /* LITERAL written as an integer constant (its folded unary minus too)
   * that fits INTEGER: PostgreSQL's int4 constant, which arithmetic and
   * CASE / COALESCE count as INTEGER (plan/bind_num.c) */
  bool lit_int4;
  /* A DOUBLE node whose value PostgreSQL types numeric: + - * / % of a
   * decimal constant or DECIMAL with integers (12.4 * 23, pk * 12.4), or a
   * literal folded from one; CASE / COALESCE beside a REAL make it real as
   * PostgreSQL (plan/bind_num.c) */
  bool pg_numeric;
  /* LITERAL of type INTERVAL (µs) written as interval text: iv_split and
   * its days field as PostgreSQL reads it, so that a cast to a months
   * interval keeps {0, iv_days, rest} ('36 hours' stays 36:00:00,
   * exec/expr_mdn.c); false: {0, µs / day, rest} */
  bool iv_split;
  int32_t iv_days;
  /* BINARY OR: the root of an OR chain of `column = constant` terms (an
   * IN list too) answered by one sorted set of the constants
   * (exec/expr_inset.h); NULL: evaluate the ORs */
  const struct lm_inset *inset;
};

/* ------------------------------------------------ subquery expressions */

struct lm_subplan;

/* Runs a subplan's inner query with the current values of its parameter
 * slots: *out is every result row as one batch (a new reference). Errors:
 * the query's own (LM_ERR_EXEC, LM_ERR_NOMEM ...). */
typedef int (*lm_subq_run_fn)(void *ctx, struct lm_subplan *sp, lm_batch **out,
                              lm_error *err);

/* A subquery expression as PostgreSQL's SubPlan: the inner query is run
 * once per distinct tuple of outer values it reads (its params; an
 * uncorrelated one runs once, an InitPlan), its results cached for the
 * statement by those values (exec/expr_subquery.c). Allocated by the
 * hooks' new_subplan (it outlives the plan that points to it: the caller
 * frees it with its cache at the end of the statement); the arrays and
 * slots it points to live in the enclosing plan's arena. */
typedef struct lm_subplan {
  lm_subq_kind kind;
  lm_op op;               /* ANY / ALL: the comparison */
  const lm_select *sel;   /* the inner query (borrowed from the AST) */
  int n_params;           /* outer values the inner query reads */
  lm_bexpr **param_exprs; /* over the outer input, one per slot */
  lm_value **params;      /* the slots the inner plan's PARAM nodes read */
  int cap_params;
  /* the outer column references of the inner query (AST nodes) and the
   * slot each reads: re-planning the inner query for a run resolves them
   * by node identity */
  const lm_expr **ref_exprs;
  lm_value **ref_slots;
  int n_refs, cap_refs;
  /* ANY / ALL: args[0] of the SUBQUERY node is the left operand x; its
   * value goes to *left_slot and cmp (x op column 0 of the inner result,
   * BOOLEAN, coerced as PostgreSQL does) is evaluated over the result */
  lm_value *left_slot;
  lm_bexpr *cmp;
  lm_subq_run_fn run;
  void *run_ctx;
  struct lm_subq_cache *cache; /* NULL until first run */
  int line, column;            /* of the subquery in the SQL text */
  struct lm_decor *decor;      /* non-NULL: decorrelated (below) */
} lm_subplan;

/* A correlated subquery whose correlation is `inner = outer` equalities
 * in its WHERE, decorrelated as PostgreSQL / DuckDB plan it
 * (plan/decorrelate.c, docs/subqueries.md): `sel` is the inner query
 * without those equalities, returning the inner side of each (column
 * key_off + k pairs with parameter k; column 0 is the value when key_off
 * is 1), grouped by them when the query aggregates. It runs once; its
 * rows, hashed by the key columns, answer every outer row (a hash semi /
 * anti join, or grouped aggregate + left join). A key without rows gets
 * `empty`'s one row (an aggregate over no rows: COUNT 0), or no row when
 * `empty` is NULL. Lives in the enclosing plan's arena; the hashed rows
 * live in the subplan's cache. */
typedef struct lm_decor {
  const lm_select *sel;
  const lm_select *empty;
  int key_off;
  int64_t limit; /* rows a key keeps, in sel's order (-1 = all) */
  /* key column k of sel pairs with parameter key_param[k] */
  int n_keys, key_param[32];
  /* EXISTS (... AND inner op outer): sel returns max(inner) (op > / >=)
   * or min(inner) (< / <=) per key, and an outer row gets whether that
   * value op parameter range_param is TRUE (FALSE for a key without
   * rows); -1 = none */
  int range_param;
  lm_op range_op;
  int state;    /* 0 not run yet; 1 hashed; -1 per-key SubPlan */
  bool running; /* while sel is planned and run */
  int ref_hits; /* outer references met while running: then -1 */
} lm_decor;

/* The decorrelated form of sp (an lm_decor in arena a), or NULL when sp
 * is not correlated by equalities only (it then runs per key, as a
 * SubPlan) or on OOM. Reads sp->sel, sp->ref_exprs and sp->params. */
lm_decor *lm_decorrelate(lm_arena *a, const lm_subplan *sp);

/* How the binder plans subqueries: set for the statements that can run
 * them (ad-hoc SELECT, api/select_subq.c) around planning, NULL otherwise
 * (a subquery then fails to bind: "subqueries are not supported in
 * continuous queries yet"). new_subplan returns a zeroed subplan owned by
 * the caller (NULL on OOM). prepare plans sp->sel (its outer references
 * resolve through the query being bound, registering sp's parameters)
 * and returns its output schema in *schema (a new reference); it may fill
 * sp's cache (an uncorrelated query's rows). 0 or an error code, err set. */
typedef struct lm_subq_hooks {
  void *ctx;
  lm_subplan *(*new_subplan)(void *ctx);
  int (*prepare)(void *ctx, lm_subplan *sp, lm_schema **schema, lm_error *err);
  lm_subq_run_fn run;
} lm_subq_hooks;

/* Sets this thread's hooks (NULL = none) and returns the previous ones
 * (restore them when done: the calls nest). */
const lm_subq_hooks *lm_plan_set_subq_hooks(const lm_subq_hooks *h);

/* Around re-planning sp->sel for a run: its outer references resolve to
 * sp's slots (by AST node) while entered. Calls nest. */
void lm_plan_subq_run_enter(lm_subplan *sp);
void lm_plan_subq_run_leave(void);

/* Structural equality of two bound expressions (used to match SELECT items
 * to GROUP BY keys). */
bool lm_bexpr_equal(const lm_bexpr *a, const lm_bexpr *b);
/* Sets used[c] = 1 for every input column c < n that x reads. Returns false
 * when x holds a subquery (it may read outer values: the caller then keeps
 * every column); used may be partly set then. */
bool lm_bexpr_mark_cols(const lm_bexpr *x, uint8_t *used, int n);
/* Whether x is a DOUBLE that PostgreSQL computes as numeric: decimal
 * constants (1.5) and integer / DECIMAL values combined by + - * / % and
 * unary minus (x NULL: false). Cast to an integer type (CAST, INSERT,
 * UPDATE) such a value rounds half away from zero, as numeric to int; a
 * float8 rounds half to even (rint). Never fails. */
bool lm_bexpr_numeric_origin(const lm_bexpr *x);

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
  LM_AGG_BOOL_AND,        /* BOOL_AND, EVERY: BOOLEAN, NULL for no input */
  LM_AGG_BOOL_OR,         /* BOOL_OR: BOOLEAN, NULL for no input */
  LM_AGG_STRING_AGG,      /* STRING_AGG(x, sep): VARCHAR (or BYTEA) */
  /* corr, covar_*, regr_* (Y, X): arg is Y, the next spec (LM_AGG_PAIR)
   * holds X; regr_fn says which (lm_regr_fn of exec/agg_stat.h, or -1 for
   * regr_count); DOUBLE (regr_count BIGINT); PostgreSQL's float8 state */
  LM_AGG_REGR,
  LM_AGG_PAIR,    /* the X argument of the LM_AGG_REGR before it (no result) */
  LM_AGG_BIT_AND, /* BIT_AND, BIT_OR, BIT_XOR of integers: the input type */
  LM_AGG_BIT_OR,
  LM_AGG_BIT_XOR,
  /* ordered-set aggregates f(frac) WITHIN GROUP (ORDER BY x [DESC]): arg
   * is x, frac / frac_null the constant fraction, order_desc the order;
   * kept as the sorted multiset of x. percentile_cont: DOUBLE; _disc and
   * mode(): x's type */
  LM_AGG_PCT_CONT,
  LM_AGG_PCT_DISC,
  LM_AGG_MODE,
} lm_agg_kind;

/* One aggregate call. `agg(x) FILTER (WHERE c)` is bound as
 * agg(CASE WHEN c THEN x END) (COUNT(*) FILTER as COUNT(CASE WHEN c THEN
 * TRUE END)): every aggregate skips NULL inputs, so the rewrite is exact. */
typedef struct lm_agg_spec {
  lm_agg_kind kind;
  lm_bexpr *arg; /* over the (filtered) input; NULL for COUNT(*) */
  lm_type in_type, out_type;
  bool distinct; /* agg(DISTINCT x): each value once per group */
  /* STRING_AGG: the delimiter (a constant; owned by the plan arena; NULL
   * = a NULL delimiter: the values are concatenated), sep_len bytes, and
   * whether the call has ORDER BY (the rows reach it in that order: the
   * plan's agg_order) or, with DISTINCT, ORDER BY x DESC (order_desc). */
  const char *sep;
  int32_t sep_len;
  bool ordered, order_desc;
  /* STRING_AGG(x, sep ORDER BY x [DESC]) without DISTINCT: kept as the
   * sorted multiset of x (order_desc: read backwards), not by agg_order */
  bool by_value;
  int regr_fn;    /* LM_AGG_REGR: which function (above) */
  double frac;    /* LM_AGG_PCT_*: the fraction (checked at emit) */
  bool frac_null; /* LM_AGG_PCT_*: a NULL fraction (the result is NULL) */
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

/* --------------------------------------------------------------- joins */

/* Join kinds and algorithms of a planned join: the same values, in the
 * same order, as exec/lm_join.h's lm_join_type / lm_join_algo /
 * lm_asof_dir (the engine maps them one to one). */
typedef enum lm_pjoin_type {
  LM_PJOIN_INNER,
  LM_PJOIN_LEFT,
  LM_PJOIN_RIGHT,
  LM_PJOIN_FULL,
  LM_PJOIN_SEMI,
  LM_PJOIN_ANTI,
} lm_pjoin_type;

typedef enum lm_pjoin_algo {
  LM_PJOIN_UPDATING,
  LM_PJOIN_INTERVAL,
  LM_PJOIN_LOOKUP,
  LM_PJOIN_TEMPORAL,
  LM_PJOIN_ASOF,
} lm_pjoin_algo;

/* What the caller knows of one relation named in FROM (a source, stream,
 * view or table). */
typedef struct lm_rel_info {
  lm_schema *schema; /* its columns, without __weight (borrowed) */
  bool changelog;    /* its batches carry a trailing __weight */
  int time_col;      /* event-time column with a watermark; -1 = none */
  bool is_table;     /* a TABLE (lookup join target) */
} lm_rel_info;

/* Resolves a relation name (at line:col) to its description; returns 0 or
 * an error code with err set (e.g. LM_ERR_NOTFOUND "no source ..."). */
typedef int (*lm_rel_resolver)(void *ctx, const char *name, int line, int col,
                               lm_rel_info *out, lm_error *err);

/* One input of a join plan, in FROM order: a named object or a subquery. */
typedef struct lm_join_input {
  const char *name;    /* the object's name (TABLE) or NULL (subquery) */
  const char *qual;    /* the name qualifying its columns (alias or name) */
  int line, column;    /* of the relation in FROM */
  lm_rel_info info;    /* of the object, or of the subquery's output */
  struct lm_plan *sub; /* SUBQUERY: its plan over its own FROM (owned) */
  const lm_select *subquery; /* SUBQUERY: the parsed subquery (borrowed) */
  /* A parenthesized join `(b JOIN c ON ...)`, planned as a subquery that
   * outputs every column of its scope: per output column, its qualifier,
   * name and visibility in the enclosing query (NULL otherwise; in the
   * join's arena) */
  const struct lm_scope_col *nested;
} lm_join_input;

/* One binary join of a left-deep chain: side 0 is the previous step's
 * output (or input 0), side 1 is input step+1 (swapped for RIGHT SEMI /
 * RIGHT ANTI: side 0 is then that input and side 1 the chain). */
typedef struct lm_join_step {
  lm_pjoin_type type;
  lm_pjoin_algo algo;
  int line, column; /* the JOIN keyword */
  /* side s's batches are first projected by proj[s] (n_proj[s]
   * expressions over the side's schema, giving proj_schema[s]: its columns
   * then computed key columns) when n_proj[s] > 0; the weight follows */
  lm_bexpr **proj[2];
  int n_proj[2];
  int proj_base[2]; /* columns of side s before the projection */
  bool swapped;     /* RIGHT SEMI / RIGHT ANTI: side 0 is the new input */
  lm_schema *side_schema[2]; /* schema entering the join (owned) */
  bool side_changelog[2];
  int n_keys;
  int *keys[2];         /* key column indexes into side_schema[s] */
  int time_col[2];      /* into side_schema[s]; -1 = none */
  lm_bexpr *residual;   /* over [side 0 cols..., side 1 cols...]; NULL */
  int64_t lo_us, hi_us; /* INTERVAL: right.time - left.time bounds */
  bool lo_strict, hi_strict;
  int asof_dir; /* ASOF: 0 backward, 1 forward, 2 nearest */
  bool asof_strict;
  int64_t asof_tolerance_us; /* < 0 = none */
  int64_t ttl_us;            /* UPDATING: 'state.ttl' (µs, 0 = none) */
  lm_schema *out_schema;     /* without __weight (owned) */
  bool out_changelog;
  int out_time_col; /* event-time column of the output; -1 = none */
  bool unbounded;   /* UPDATING of append-only inputs without TTL */
  /* NULL, or per column of side_schema[s] whether nothing after the join
   * reads it (lm_join_side_spec.pruned: not kept in the join's state) */
  bool *pruned[2];
  /* Dynamic filter (plan/dynfilter.c, lm_join_dynfilter): when dyn, the
   * input on side 1 - dyn_side is a TUMBLE/HOP aggregate over an
   * append-only input with one row per window, whose column for key
   * dyn_key is its aggregate dyn_agg (MAX when dyn_max, else MIN) and
   * whose time column is the window end (dyn_time_end) or start; rows of
   * side dyn_side below (MIN: above) the running value are dropped. */
  bool dyn, dyn_max, dyn_time_end;
  int dyn_side, dyn_key, dyn_agg;
} lm_join_step;

typedef struct lm_join_plan {
  int n_inputs;
  lm_join_input *inputs;
  int n_steps; /* n_inputs - 1 (0: one subquery feeding the query) */
  lm_join_step *steps;
} lm_join_plan;

/* Grouping sets: at most LM_GSET_MAX sets and LM_GSET_MAX_KEYS distinct
 * grouping expressions; the id of set s whose keys are `mask` (the
 * __grouping_set key): bit LM_GSET_SHIFT + k is set when the set does not
 * group by key k. */
#define LM_GSET_MAX 4096
#define LM_GSET_MAX_KEYS 50
#define LM_GSET_SHIFT 12
#define LM_GSET_ID(s, mask, n_keys)                                            \
  ((int64_t)(s) +                                                              \
   (int64_t)((~(uint64_t)(mask) & ((UINT64_C(1) << (n_keys)) - 1))             \
             << LM_GSET_SHIFT))

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
  /* Grouping sets (GROUP BY ROLLUP / CUBE / GROUPING SETS, docs/
   * aggregates.md): n_gsets >= 2 sets (0 = a plain GROUP BY); set s groups
   * by the keys of bit mask gset_mask[s] (bit k: key k < gset_key), the
   * other keys are NULL in its rows. The last key (gset_key = n_keys - 1,
   * __grouping_set) is each group's set id, LM_GSET_ID(s, mask): GROUPING()
   * reads it. The aggregate operator folds each input row into one group
   * per set (in the arena). */
  int n_gsets;
  uint64_t *gset_mask;
  int gset_key;

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
  int64_t limit;        /* -1 none */
  bool limit_with_ties; /* FETCH FIRST ... WITH TIES (lm_batch_sort_ties) */
  int64_t offset;
  bool distinct;
  /* DISTINCT ON (e, ...): the output columns (n_distinct_on of them,
   * hidden ones included) whose values keep only the first row, in the
   * order of `sort` (which starts with them: PostgreSQL's rule, 42P10) */
  int *distinct_on;
  int n_distinct_on;
  /* agg(... ORDER BY k, ...) (ad-hoc only): the input rows are sorted by
   * these keys (bound over the input, in the arena) before aggregation;
   * every ordered call of the query has the same ORDER BY */
  lm_sort_key *agg_order;
  int n_agg_order;

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
  bool topn_ties_last;    /* deduplication keeping the last row (set by
                             lm_plan_topn_time_attr): of rows with equal
                             ORDER BY values the later arrival ranks first */

  /* A SELECT over joins (or over a subquery that is not Top-N): join
   * (owned, in this plan's arena) describes the inputs and the join steps;
   * input_schema is the last step's out_schema (or the subquery's output)
   * and everything above is bound over it. NULL otherwise. */
  lm_join_plan *join;
  lm_arena *join_arena; /* owns *join (malloc'd) */
  int join_time_col;    /* event-time column of input_schema; -1 = none */
  bool join_changelog;  /* input batches carry __weight */

  /* Temporal filter (docs/changelog.md, "Temporal filters"): the WHERE
   * conjuncts comparing a row's timestamp with now() (the input's
   * watermark floored to the second), taken out of `where` by
   * lm_tfilter_split and bound by lm_tfilter_bind (in the arena). The
   * result is updating: a row is inserted when it enters, retracted when
   * it leaves. n_tfilter = 0: none. */
  struct lm_tfilter_cond *tfilter;
  int n_tfilter;
} lm_plan;

/* One temporal-filter conjunct, normalised to `e op now() + k_us`: e is a
 * TIMESTAMP / TIMESTAMPTZ expression over the plan's input (µs), op one of
 * LM_OP_LT, LE, GT, GE. */
typedef struct lm_tfilter_cond {
  lm_bexpr *e;
  lm_op op;
  int64_t k_us;
  /* k's months and days (an INTERVAL with months, lm_interval.h): now() +
   * k is then computed as PostgreSQL's timestamp + interval */
  int32_t k_months, k_days;
} lm_tfilter_cond;

/* The temporal-filter conjuncts of a continuous query's WHERE (plan/
 * tfilter_bind.c). A conjunct is one when it compares, with < <= > >=, an
 * expression that does not call now() with now(), current_timestamp or
 * localtimestamp, optionally plus or minus a constant INTERVAL (either
 * side). lm_tfilter_split sets *rest to where without them (NULL when
 * nothing is left; new AND nodes are malloc'd in *nodes, which the caller
 * frees after binding; the other nodes are where's) and conj[0..*n) (up to
 * `max`) to the conjuncts. Errors: LM_ERR_BIND (SQLSTATE 0A000, at the
 * conjunct) for a comparison with now() of another shape, or more than
 * `max`; LM_ERR_NOMEM. A now() elsewhere stays in *rest, where binding
 * refuses it. */
int lm_tfilter_split(const lm_expr *where, const lm_expr **rest,
                     lm_expr **nodes, const lm_expr **conj, int max, int *n,
                     lm_error *err);
/* Binds conjuncts conj[0..n) (from lm_tfilter_split) over p->input_schema
 * into p->tfilter (in p's arena). Errors: LM_ERR_BIND with line:column (the
 * row side must be a TIMESTAMP or TIMESTAMPTZ, the now() side's interval a
 * constant: SQLSTATE 42804 / 0A000), the binder's errors, LM_ERR_NOMEM. */
int lm_tfilter_bind(lm_plan *p, const lm_expr *const *conj, int n,
                    lm_error *err);

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
/* The name PostgreSQL gives a select-list item without an alias (its
 * FigureColname): a column's or function's name, a cast's operand's name
 * or else its type's internal name (1::bigint: "int8"), "case" for a CASE
 * without a named ELSE value, "exists", else "?column?". Static or AST-
 * owned string. */
const char *lm_expr_default_name(const lm_expr *e);
/* Whether what is bound next on this thread is a continuous query (CREATE
 * STREAM / MATERIALIZED VIEW / SINK: lm_engine_exec sets it for each
 * statement): now(), current_timestamp and the other statement-time
 * functions are refused there (SQLSTATE 0A000), constants of the statement
 * elsewhere (plan/datefn_bind.c). */
void lm_bind_continuous(bool on);

/* Binds a SELECT whose FROM is a join tree or a subquery that is not a
 * Top-N (sel->from_clause: docs/joins.md) into a plan with plan->join set.
 * Every named relation is described by `resolve`. Equalities between an
 * expression of one side and one of the other become keys (computed in a
 * projection before the join when not plain columns, cast to one type);
 * bounds between the two sides' event-time columns become the interval;
 * the rest is the residual. `batch` plans an ad-hoc query over stored
 * rows: every input is taken as append-only rows and joins that are not
 * ASOF are planned as LM_PJOIN_UPDATING with the whole ON as predicate.
 * `ttl_us` is the 'state.ttl' option (0 = none). Errors: LM_ERR_BIND at
 * the offending line:column (ambiguous or unknown names, a join kind an
 * algorithm cannot do, e.g. "FULL is not supported by an ASOF join"),
 * the resolver's errors, LM_ERR_NOMEM. */
int lm_plan_join_select(const lm_select *sel, lm_rel_resolver resolve,
                        void *ctx, bool batch, int64_t ttl_us, lm_plan **out,
                        lm_error *err);

/* Marks the join steps of a (streaming) join plan that can take a dynamic
 * filter (lm_join_step.dyn): INNER / SEMI interval joins one of whose
 * inputs is a TUMBLE or HOP aggregate over an append-only input grouped
 * by the window only, joined on its integer MIN or MAX and on its
 * window end or start as the time. Changes nothing else. */
void lm_plan_dynfilter(lm_plan *p);

/* Whether plans a and c (subqueries of one query) compute the same
 * TUMBLE / HOP / CUMULATE aggregate over inputs of the same shape (WHERE,
 * keys, aggregates, window, HAVING, EMIT, and the output's time column
 * alike), each output column of c being one of a's: then map[o] (c->n_out
 * entries, caller-allocated) is the column of a that c's column o is, and
 * c can be computed as a projection of a's output (plan/shared_subplan.c).
 * Whether they read the same input is the caller's to check. */
bool lm_plan_same_window_agg(const lm_plan *a, const lm_plan *c, int *map);

/* The event-time column of a plan's output, given its input's (-1 =
 * none): a projected copy of the input's time column, or the window start
 * of an append-only windowed aggregate (its end when only the end of a
 * TUMBLE / HOP window is selected); -1 when out_changelog. */
int lm_plan_out_time_col(const lm_plan *p, int in_time_col, bool out_changelog);

/* Whether a TUMBLE / HOP windowed aggregate selects its window's end but not
 * its start: its output's event time is then the end, and the window
 * operator's output watermark (a bound on the start of windows still to
 * come) is shifted by the window size (µs). */
bool lm_plan_time_is_window_end(const lm_plan *p);

/* plan/join_order.c: the order in which to join the n relations of an
 * inner join (ad-hoc queries; n <= LM_JOIN_ORDER_MAX, else the FROM order):
 * rows[i] are their row counts (estimates; shapes: n), (edge_a[k],
 * edge_b[k]) the pairs of relations an equality connects (n_edges).
 * Greedy: the smallest relation with an equality first, then each step
 * the smallest relation connected to those already joined (the smallest
 * of the rest when none is). order (n ints, caller's) receives each
 * relation's index once. No allocation, no errors. */
#define LM_JOIN_ORDER_MAX 64
void lm_join_order_greedy(int n, const int64_t *rows, const int *edge_a,
                          const int *edge_b, int n_edges, int *order);

/* Whether sel must be planned by lm_plan_join_select: its FROM is a join,
 * or a subquery that is not a ROW_NUMBER Top-N. */
bool lm_select_needs_join_plan(const lm_select *sel);

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

/* Flink's deduplication rule for a continuous query's Top-N plan p over an
 * append-only input whose event-time (or processing-time) column is
 * time_col (-1 = none): when p is rn = 1 (N = 1) ordered by exactly that
 * column DESC (keep the last row), sets p->topn_ties_last, so that of rows
 * with equal time the later arrival is kept (Flink's keep-last
 * deduplication replaces on currentRowtime >= prevRowtime). Otherwise (ASC,
 * other keys, N > 1, a changelog input, ad-hoc queries) ties keep arrival
 * order, the earlier row first. No allocation, no errors. */
void lm_plan_topn_time_attr(lm_plan *p, int time_col);

/* Refuses a window function call (func(...) OVER (...)) anywhere in a
 * SELECT without a Top-N subquery: LM_ERR_BIND at the call's line:column
 * ("window functions other than ROW_NUMBER ..." or, for ROW_NUMBER, where
 * it is supported). Returns 0 when there is none. */
int lm_plan_check_no_over(const lm_select *sel, lm_error *err);

/* Gives an error that has none PostgreSQL's SQLSTATE for what it says
 * (bind_pgerr.c): a bind error by its message (42883 operator / function
 * does not exist, 42703 column, 42804 datatype mismatch, 0A000 not
 * supported, else 42000), a parse error 42601, a runtime one 22000, ...;
 * every error the API returns carries one (the wire protocol sends it).
 * No-op for err NULL, no error, or a SQLSTATE already set. */
void lm_err_default_state(lm_error *err);

#endif
