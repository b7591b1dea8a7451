/*
 * sql/ — the SQL front end: lexer, recursive-descent parser and AST.
 *
 * The AST is arena-allocated: every node, string and list of one parse
 * lives in the lm_sql_script's arena and is freed with it. Every node
 * carries the 1-based line:column of its first token so that binder and
 * planner errors can point at it.
 *
 * Grammar (the LaminarDB seed's dialect; keywords case-insensitive,
 * identifiers case-insensitive unless "double-quoted", strings 'single'
 * with '' escapes, comments -- and /-star ... star-/, nestable):
 *   CREATE SOURCE [IF NOT EXISTS] name ( coldef, ... [, WATERMARK FOR col
 *       [AS expr]] ) [FROM FILES|GENERATOR|ident ( 'k' = 'v', ... )]
 *       [FORMAT CSV|JSON|ident]
 *   CREATE STREAM [IF NOT EXISTS] name [WITH (opts)] AS select [EMIT ...]
 *   CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [WITH (opts)] AS select
 *       [EMIT ...]   (opts: 'state.ttl' = 'interval', for joins)
 *   CREATE SINK [IF NOT EXISTS] name FROM name [INTO FILES|ident (opts)]
 *       [FORMAT JSON|CSV|ident]
 *   CREATE TABLE [IF NOT EXISTS] name ( col type [CONSTRAINT c] [NOT NULL]
 *       [PRIMARY KEY] [UNIQUE [NULLS [NOT] DISTINCT]], ...
 *       [, [CONSTRAINT c] PRIMARY KEY (col, ...)]
 *       [, [CONSTRAINT c] UNIQUE [NULLS [NOT] DISTINCT] (col, ...)] )
 *       [FROM FILES (opts)] [FORMAT ...]
 *   CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table [USING btree|hash]
 *       (col [ASC|DESC] [NULLS FIRST|LAST], ...)
 *   CREATE [OR REPLACE] [TEMP|TEMPORARY] VIEW name [(col, ...)] AS select:
 *       a view (plain_view; docs/views.md)
 *   DROP INDEX [IF EXISTS] name [CASCADE | RESTRICT]; DROP VIEW (object
 *       MVIEW, plain_view); every DROP takes a list: DROP TABLE a, b
 *   SHOW VIEWS (object MVIEW, plain_view)
 *   REINDEX INDEX|TABLE name
 *   SET [SESSION|LOCAL] TIME ZONE value | SET timezone {TO|=} value |
 *       RESET timezone | SHOW TIME ZONE | SHOW timezone (docs/timezones.md)
 *   INSERT INTO name [(col, ...)] VALUES (expr, ...), ... | select
 *   DELETE FROM name [WHERE expr]
 *   UPDATE name SET col = expr, ... [WHERE expr]
 *   DROP SOURCE|STREAM|MATERIALIZED VIEW|SINK|TABLE [IF EXISTS] name
 *       [CASCADE | RESTRICT]
 *   SHOW SOURCES|STREAMS|MATERIALIZED VIEWS|SINKS|TABLES
 *   DESCRIBE|DESC name
 *   EXPLAIN [ANALYZE] [VERBOSE] | (option [value], ...)] select |
 *       CREATE STREAM|MATERIALIZED VIEW ... | name
 *       (option: ANALYZE|VERBOSE|COSTS|BUFFERS|TIMING|SUMMARY|SETTINGS|WAL
 *       [bool] | FORMAT TEXT|JSON)
 *   select: SELECT [DISTINCT] item, ... FROM from [WHERE expr]
 *       [GROUP BY [ALL|DISTINCT] group, ...] [HAVING expr] [ORDER BY expr
 *       [ASC|DESC] [NULLS FIRST|LAST], ...] [LIMIT n|ALL] [OFFSET n [ROWS]]
 *       [FETCH FIRST|NEXT [n] ROW|ROWS ONLY|WITH TIES] (counts: constant
 *       expressions, folded when parsing: sql/limit_fold.c)
 *   group: expr | () | (expr, ...) | ROLLUP (gitem, ...) | CUBE (gitem, ...)
 *       | GROUPING SETS (group, ...)   (gitem: expr | (expr, ...))
 *   from: rel { join rel [FOR SYSTEM_TIME AS OF expr [AS alias]]
 *       [MATCH_CONDITION(expr)] [ON expr | USING (col, ...)] }
 *   rel: name [[AS] alias] | (select) [[AS] alias] |
 *       [LATERAL] func(args) [WITH ORDINALITY] [[AS] alias [(col, ...)]] |
 *       [LATERAL] ROWS FROM (func(args), ...) [WITH ORDINALITY] [...]
 *   join: [INNER] JOIN | LEFT|RIGHT|FULL [OUTER] JOIN | CROSS JOIN | ',' |
 *       LEFT|RIGHT SEMI|ANTI JOIN | [LEFT] ASOF JOIN
 *   EMIT ON WINDOW CLOSE | EMIT CHANGES | EMIT ON UPDATE | EMIT FINAL |
 *       EMIT PERIODICALLY INTERVAL 'n' UNIT | EMIT AFTER WATERMARK
 *       [ALLOW LATENESS INTERVAL 'n' UNIT] [LATE DATA TO name]
 *   expr: OR / AND / NOT / comparison (= <> != < <= > >=, IS [NOT] NULL |
 *       TRUE | FALSE | UNKNOWN, [NOT] BETWEEN [SYMMETRIC] a AND b,
 *       [NOT] IN (list), [NOT] LIKE|ILIKE p [ESCAPE e], [NOT] SIMILAR TO p
 *       [ESCAPE e]) / || ~ ~* !~ !~* -> ->> & | # << >> (one level,
 *       PostgreSQL's "other operators"; prefix ~ takes an additive
 *       operand) / + - / * / % / ^ / unary - / primary
 *   primary: literal | column | table.column | func(args) | COUNT(*) |
 *       agg(DISTINCT x) | agg(...) FILTER (WHERE expr) |
 *       func(...) OVER ([PARTITION BY expr, ...] [ORDER BY expr [ASC|DESC]
 *       [NULLS FIRST|LAST], ...]) |
 *       CAST(expr AS type) | expr::type |
 *       CASE [x] WHEN .. THEN .. [ELSE ..] END | (expr) |
 *       substring(s FROM a [FOR n]) | position(a IN s) |
 *       trim([BOTH|LEADING|TRAILING] [chars] FROM s) |
 *       TIMESTAMP 'text' | INTERVAL 'n' UNIT | INTERVAL 'n unit' |
 *       TRUE | FALSE | NULL | (select) | EXISTS (select)
 *   subquery comparisons (comparison level): x [NOT] IN (select),
 *       x op ANY|SOME|ALL (select)
 */
#ifndef LM_SQL_H
#define LM_SQL_H

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"

/* ---------------------------------------------------------- expressions */

typedef enum lm_expr_kind {
  LM_EXPR_LITERAL, /* lit */
  LM_EXPR_COLUMN,  /* column: [table.]name */
  LM_EXPR_STAR,    /* '*' in a select list or COUNT(*) argument */
  LM_EXPR_UNARY,   /* op + args[0] */
  LM_EXPR_BINARY,  /* op + args[0], args[1] */
  LM_EXPR_FUNC,    /* name(args...), aggregates included; distinct flag */
  LM_EXPR_CAST,    /* args[0] CAST to cast_type */
  LM_EXPR_IS_NULL, /* args[0] IS [NOT] NULL (negated) */
  LM_EXPR_BETWEEN, /* args[0] [NOT] BETWEEN args[1] AND args[2] */
  LM_EXPR_IN,      /* args[0] [NOT] IN (args[1..]) */
  LM_EXPR_LIKE,    /* args[0] [NOT] LIKE args[1] */
  LM_EXPR_CASE,    /* see below */
  /* A subquery used as an expression (subquery; subq says which form):
   * (SELECT ...) scalar, EXISTS (SELECT ...), x [NOT] IN (SELECT ...) and
   * x op ANY|SOME|ALL (SELECT ...); args[0] is x for the last two. */
  LM_EXPR_SUBQUERY,
} lm_expr_kind;

typedef enum lm_subq_kind {
  LM_SUBQ_SCALAR, /* (SELECT one column): its value, NULL for no row */
  LM_SUBQ_EXISTS, /* EXISTS (SELECT ...) */
  LM_SUBQ_ANY,    /* x op ANY|SOME (SELECT ...); x [NOT] IN is op = (=),
                     NOT IN has negated set */
  LM_SUBQ_ALL,    /* x op ALL (SELECT ...) */
} lm_subq_kind;

typedef enum lm_op {
  LM_OP_NONE = 0,
  LM_OP_ADD,
  LM_OP_SUB,
  LM_OP_MUL,
  LM_OP_DIV,
  LM_OP_MOD,
  LM_OP_EQ,
  LM_OP_NE,
  LM_OP_LT,
  LM_OP_LE,
  LM_OP_GT,
  LM_OP_GE,
  LM_OP_AND,
  LM_OP_OR,
  LM_OP_NOT, /* unary */
  LM_OP_NEG, /* unary minus */
  LM_OP_CONCAT,
  LM_OP_REGEX,         /* ~ */
  LM_OP_REGEX_I,       /* ~* */
  LM_OP_NOT_REGEX,     /* !~ */
  LM_OP_NOT_REGEX_I,   /* !~* */
  LM_OP_JSON_GET,      /* -> */
  LM_OP_JSON_GET_TEXT, /* ->> */
  /* PostgreSQL's integer bit operators (bound as functions, func_bind.c) */
  LM_OP_BIT_AND, /* & */
  LM_OP_BIT_OR,  /* | */
  LM_OP_BIT_XOR, /* # */
  LM_OP_SHL,     /* << */
  LM_OP_SHR,     /* >> */
  LM_OP_BIT_NOT, /* unary ~ */
  /* arrays (plan/array_bind.c) */
  LM_OP_CONTAINS,  /* @> */
  LM_OP_CONTAINED, /* <@ */
  LM_OP_OVERLAP,   /* && */
  /* jsonb (plan/json_bind.c) */
  LM_OP_JSON_PATH,        /* #> */
  LM_OP_JSON_PATH_TEXT,   /* #>> */
  LM_OP_JSON_EXISTS,      /* ? */
  LM_OP_JSON_EXISTS_ANY,  /* ?| */
  LM_OP_JSON_EXISTS_ALL,  /* ?& */
  LM_OP_JSON_DELETE_PATH, /* #- */
} lm_op;

typedef enum lm_lit_kind {
  LM_LIT_NULL,
  LM_LIT_BOOL,
  LM_LIT_INT,       /* fits int64: ival */
  LM_LIT_DECIMAL,   /* text like 1.5 or 1e3: dval (and text) */
  LM_LIT_STRING,    /* text */
  LM_LIT_TIMESTAMP, /* TIMESTAMP '...': ival = µs since epoch (parsed) */
  LM_LIT_INTERVAL,  /* INTERVAL '...' UNIT: ival = µs (INT64_MIN: the text
                       has months, plan/mdn_bind.c binds it) */
} lm_lit_kind;

/* A window frame: ROWS | RANGE | GROUPS BETWEEN start AND end (or just
 * start, end CURRENT ROW), as PostgreSQL (docs/window_functions.md). */
typedef enum lm_frame_unit {
  LM_FRAME_ROWS = 1,
  LM_FRAME_RANGE,
  LM_FRAME_GROUPS,
} lm_frame_unit;

typedef enum lm_frame_bound_kind {
  LM_BOUND_UNBOUNDED_PRECEDING,
  LM_BOUND_PRECEDING, /* offset PRECEDING */
  LM_BOUND_CURRENT_ROW,
  LM_BOUND_FOLLOWING, /* offset FOLLOWING */
  LM_BOUND_UNBOUNDED_FOLLOWING,
} lm_frame_bound_kind;

typedef struct lm_frame_bound {
  lm_frame_bound_kind kind;
  struct lm_expr *offset; /* PRECEDING / FOLLOWING: a constant expression */
  int line, column;
} lm_frame_bound;

/* A frame's EXCLUDE clause (PostgreSQL's frame_exclusion). */
typedef enum lm_frame_exclude {
  LM_EXCLUDE_NO_OTHERS = 0, /* the default */
  LM_EXCLUDE_CURRENT_ROW,
  LM_EXCLUDE_GROUP, /* the current row and its peers */
  LM_EXCLUDE_TIES,  /* its peers, not the current row */
} lm_frame_exclude;

typedef struct lm_window_frame {
  lm_frame_unit unit;
  lm_frame_bound start, end;
  int exclude; /* lm_frame_exclude */
  int line, column;
  int xline, xcolumn; /* the EXCLUDE keyword (exclude != 0) */
} lm_window_frame;

typedef struct lm_expr lm_expr;
struct lm_expr {
  lm_expr_kind kind;
  int line, column;
  lm_op op;
  /* BINARY / UNARY: the operator token's line:column (PostgreSQL points an
   * operator's error there); 0 when unknown */
  int op_line, op_column;
  /* FUNC date_part written EXTRACT(field FROM x): its column is "extract" */
  bool extract_syntax;
  /* LITERAL */
  lm_lit_kind lit;
  int64_t ival;
  double dval;
  bool bval;
  const char *text; /* string literal contents / decimal text */
  /* COLUMN: table may be NULL. FUNC: name (lower-cased). */
  const char *table;
  const char *name;
  /* COLUMN: name was written "quoted", so it matches a column of exactly
   * that name; unquoted (folded to lower case) it matches exactly, else a
   * unique column of that name in any case (docs/sql.md "Names") */
  bool quoted;
  /* operands / function arguments; CASE layout: if has_operand, args[0] is
   * the operand; then WHEN/THEN pairs; then ELSE if has_else. */
  lm_expr **args;
  int n_args;
  bool distinct;   /* FUNC: agg(DISTINCT x) */
  lm_expr *filter; /* FUNC: agg(...) FILTER (WHERE filter); NULL = none */
  /* FUNC: agg(x, ... ORDER BY k [ASC|DESC] [NULLS ...], ...); 0 = none */
  struct lm_order_item *agg_order;
  int n_agg_order;
  bool within_group; /* FUNC: f(args) WITHIN GROUP (ORDER BY agg_order) */
  bool negated;      /* IS NOT NULL, NOT BETWEEN, NOT IN, NOT LIKE */
  bool has_operand;  /* CASE x WHEN ... */
  bool has_else;
  bool icase;     /* ILIKE (LIKE: args[2], when present, is ESCAPE) */
  bool symmetric; /* BETWEEN SYMMETRIC */
  /* IS_NULL: which test, PostgreSQL's BooleanTest: 0 IS [NOT] NULL, 1 IS
   * [NOT] TRUE, 2 IS [NOT] FALSE, 3 IS [NOT] UNKNOWN (never NULL).
   * LIKE: 1 for [NOT] SIMILAR TO (args[2] ESCAPE, when present). */
  int8_t booltest;
  lm_type cast_type; /* CAST target */
  /* CAST to TIMESTAMP(p) / TIME(p) / TIMESTAMPTZ(p): p + 1 (fractional
   * seconds rounded to p digits, as PostgreSQL); 0: no precision given */
  int8_t cast_tprec;
  /* CAST to VARCHAR(n) / CHAR(n): n (the text truncated to n characters;
   * CHAR pads to n), 0: none; cast_bpchar: CHAR / CHARACTER / BPCHAR */
  int32_t cast_tlen;
  bool cast_bpchar;
  bool cast_varchar; /* VARCHAR / CHARACTER VARYING (not TEXT) */
  /* FUNC followed by OVER (PARTITION BY ... ORDER BY ...): a window function
   * call such as ROW_NUMBER() OVER (...). over is false for plain calls;
   * partition_by / over_order may be empty. */
  bool over;
  lm_expr **partition_by;
  int n_partition_by;
  struct lm_order_item *over_order;
  int n_over_order;
  /* OVER w / OVER (w ...): a window of the WINDOW clause (NULL = none),
   * over_name_line/column its place (1-based) */
  const char *over_name;
  int over_name_line, over_name_column;
  lm_window_frame *frame; /* NULL = the default frame */
  /* SUBQUERY: the query and its form; op is ANY/ALL's comparison */
  struct lm_select *subquery;
  lm_subq_kind subq;
};

/* ------------------------------------------------------------- SELECT */

typedef struct lm_select_item {
  lm_expr *expr;
  const char *alias; /* NULL when absent */
} lm_select_item;

typedef struct lm_order_item {
  lm_expr *expr;
  bool desc;
  int nulls; /* 0 = default (NULLS LAST for ASC, FIRST for DESC, as PG),
                1 = NULLS FIRST, 2 = NULLS LAST */
} lm_order_item;

typedef struct lm_window_def {
  const char *name;
  lm_expr *spec;
  int line, column;
} lm_window_def;

typedef enum lm_emit_kind {
  LM_EMIT_DEFAULT = 0, /* no EMIT clause */
  LM_EMIT_ON_WINDOW_CLOSE,
  LM_EMIT_CHANGES,
  LM_EMIT_ON_UPDATE,
  LM_EMIT_FINAL,
  LM_EMIT_PERIODICALLY, /* emit_interval_us */
  LM_EMIT_AFTER_WATERMARK,
} lm_emit_kind;

/* FROM clause trees (docs/joins.md). A FROM is one relation or a chain
 * of joins: each JOIN node's left is the chain so far and its right a
 * TABLE, a SUBQUERY or a parenthesized JOIN (a bushy tree). */
typedef enum lm_from_kind {
  LM_FROM_TABLE,    /* name [[AS] alias] */
  LM_FROM_SUBQUERY, /* (SELECT ...) [[AS] alias] */
  LM_FROM_JOIN,     /* left <join> right [ON cond | USING (cols)] */
  /* [LATERAL] f(args) [WITH ORDINALITY] [[AS] alias [(cols)]] or ROWS FROM
   * (f(args), ...) ...: a set-returning function (funcs; name is the first
   * function's name, the relation's name without an alias). Function
   * calls in FROM are always lateral, as in PostgreSQL (api/srf_from.c,
   * docs/functions.md) */
  LM_FROM_FUNCTION,
} lm_from_kind;

typedef enum lm_sql_join {
  LM_SQL_JOIN_INNER, /* [INNER] JOIN */
  LM_SQL_JOIN_LEFT,  /* LEFT [OUTER] JOIN */
  LM_SQL_JOIN_RIGHT, /* RIGHT [OUTER] JOIN */
  LM_SQL_JOIN_FULL,  /* FULL [OUTER] JOIN */
  LM_SQL_JOIN_CROSS, /* CROSS JOIN (no ON / USING) */
  LM_SQL_JOIN_LEFT_SEMI,
  LM_SQL_JOIN_LEFT_ANTI,
  LM_SQL_JOIN_RIGHT_SEMI,
  LM_SQL_JOIN_RIGHT_ANTI,
} lm_sql_join;

typedef struct lm_from lm_from;
struct lm_from {
  lm_from_kind kind;
  int line, column;  /* first token of the relation / the JOIN keyword */
  const char *name;  /* TABLE: the object's name */
  const char *alias; /* TABLE, SUBQUERY: NULL when absent */
  struct lm_select *subquery; /* SUBQUERY */
  /* JOIN */
  lm_from *left, *right;
  lm_sql_join join;
  bool asof;               /* [LEFT] ASOF JOIN */
  lm_expr *on;             /* ON cond; NULL = none */
  const char **using_cols; /* USING (c, ...); NULL = none */
  bool *using_quoted;      /* using_quoted[i]: using_cols[i] was "quoted" */
  int n_using;
  bool natural; /* NATURAL [INNER|LEFT|RIGHT|FULL] JOIN: USING the columns
                   both sides name (none: a cross join) */
  /* JOIN r FOR SYSTEM_TIME AS OF expr (a temporal join); NULL = none */
  lm_expr *system_time;
  /* ASOF JOIN r MATCH_CONDITION(expr); NULL = none (the condition is then
   * part of ON, the older form). NEAREST(a, b) is a FUNC named nearest. */
  lm_expr *match;
  /* TABLE, SUBQUERY: [AS] alias (c1, c2, ...) column aliases, renaming the
   * relation's first n_col_aliases columns; NULL = none */
  const char **col_aliases;
  int n_col_aliases;
  /* JOIN: written in parentheses, `(a JOIN b ON ...) [[AS] alias]` (alias
   * then names all its columns) */
  bool parenthesized;
  /* FUNCTION: the calls (LM_EXPR_FUNC; n_funcs > 1 only for ROWS FROM),
   * WITH ORDINALITY, whether LATERAL was written (FUNCTION, SUBQUERY;
   * informational) */
  lm_expr **funcs;
  int n_funcs;
  bool ordinality;
  bool lateral;
};

/* Set operations between queries (sql/parser.c, api/setop.c). */
typedef enum lm_setop_kind {
  LM_SETOP_NONE = 0,
  LM_SETOP_UNION,
  LM_SETOP_INTERSECT,
  LM_SETOP_EXCEPT,
} lm_setop_kind;

/* One WITH item: name [(cols)] AS (query). */
typedef struct lm_cte {
  const char *name;
  const char **cols; /* column aliases; NULL = the query's names */
  int n_cols;
  struct lm_select *query;
  int line, column; /* of the name */
  /* SEARCH {DEPTH | BREADTH} FIRST BY search_cols SET search_seq
   * (api/select_recursive.c; n_search_cols 0 = none); line:column of
   * SEARCH */
  const char **search_cols;
  int n_search_cols;
  bool search_breadth;
  const char *search_seq;
  int search_line, search_column;
  /* CYCLE cycle_cols SET cycle_mark [TO cycle_to DEFAULT cycle_default]
   * USING cycle_path (n_cycle_cols 0 = none; cycle_to NULL = TRUE /
   * FALSE); line:column of CYCLE */
  const char **cycle_cols;
  int n_cycle_cols;
  const char *cycle_mark, *cycle_path;
  struct lm_expr *cycle_to, *cycle_default;
  int cycle_line, cycle_column;
} lm_cte;

/* One element of a GROUP BY with grouping sets (lm_select.group_elems),
 * as PostgreSQL's: the query's grouping sets are the cross product of its
 * top-level elements' sets. */
typedef enum lm_gs_kind {
  LM_GS_EXPR,   /* an expression: the set {group_by[index]} */
  LM_GS_EMPTY,  /* (): the empty set */
  LM_GS_LIST,   /* (e1, e2, ...): one set of items (LM_GS_EXPR) */
  LM_GS_ROLLUP, /* ROLLUP (item, ...): items EXPR or LIST */
  LM_GS_CUBE,   /* CUBE (item, ...): items EXPR or LIST */
  LM_GS_SETS,   /* GROUPING SETS (item, ...): the union of the items' sets */
} lm_gs_kind;

typedef struct lm_group_elem {
  lm_gs_kind kind;
  int index; /* EXPR: into lm_select.group_by */
  struct lm_group_elem *items;
  int n_items;
  int line, column; /* first token */
} lm_group_elem;

typedef struct lm_select {
  int line, column;
  bool distinct;
  /* SELECT DISTINCT ON (e, ...): the expressions (distinct is set too) */
  lm_expr **distinct_on;
  int n_distinct_on;
  lm_select_item *items;
  int n_items;
  const char *from; /* source/stream/view name */
  /* FROM (SELECT ...) [AS] alias: the inner query (one level; its own
   * from_subquery is NULL). from, from_line and from_column are then the
   * inner query's FROM, from_alias the subquery's alias (NULL = none). */
  struct lm_select *from_subquery;
  const char *from_alias;
  int from_line, from_column;
  /* The whole FROM clause (NULL = no FROM). For one table or one
   * subquery the fields above describe it as well; for a join (kind
   * LM_FROM_JOIN) from and from_subquery are NULL. */
  lm_from *from_clause;
  lm_expr *where;
  lm_expr **group_by;
  int n_group_by;
  /* GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS, () or a
   * parenthesized list; docs/aggregates.md): the top-level elements, whose
   * expressions are group_by's entries (every expression written, in
   * order); NULL when GROUP BY is plain expressions. group_distinct:
   * GROUP BY DISTINCT (duplicate grouping sets removed). */
  struct lm_group_elem *group_elems;
  int n_group_elems;
  bool group_distinct;
  lm_expr *having;
  lm_order_item *order_by;
  int n_order_by;
  /* WINDOW name AS (spec), ...: each spec is a FUNC-less lm_expr holding
   * partition_by / over_order / frame / over_name (NULL = none) */
  struct lm_window_def *windows;
  int n_windows;
  int64_t limit; /* -1 = none */
  int64_t offset;
  /* LIMIT / OFFSET / FETCH counts holding a subquery (`LIMIT (SELECT
   * ...)`): computed into limit / offset each time the query runs
   * (api/select_limit.c); NULL = the count was a constant */
  struct lm_expr *limit_expr, *offset_expr;
  /* FETCH FIRST n ROWS WITH TIES: the rows tied with the last of the
   * `limit` rows in ORDER BY also come out (order_by is not empty) */
  bool limit_with_ties;
  lm_emit_kind emit;
  int64_t emit_interval_us;
  int emit_line, emit_column; /* the EMIT keyword (0 when no EMIT) */
  /* ALLOW LATENESS INTERVAL 'n' UNIT (µs; 0 = none) and LATE DATA TO name
   * (NULL = none), in either order after EMIT (docs/windows.md). */
  int64_t allowed_lateness_us;
  const char *late_data_to;
  int late_line, late_column;
  /* A set operation `set_left <setop> [ALL] set_right` (setop !=
   * LM_SETOP_NONE; line:column is the operator keyword): items, FROM,
   * WHERE, GROUP BY and HAVING are then unused, and order_by / limit /
   * offset apply to the whole result (ORDER BY names an output column or
   * ordinal, as in PostgreSQL). */
  lm_setop_kind setop;
  bool set_all;
  struct lm_select *set_left, *set_right;
  /* VALUES (e, ...), ...: values[r][c], n_values rows of n_value_cols
   * expressions (n_values > 0; items etc. unused; the columns are named
   * column1, column2, ...); order_by / limit / offset apply. */
  lm_expr ***values;
  int n_values, n_value_cols;
  /* WITH [RECURSIVE] name [(cols)] AS (query), ...: visible in this query
   * and in the CTEs after them; NULL = none. */
  lm_cte *ctes;
  int n_ctes;
  bool with_recursive;
  int with_line, with_column; /* of WITH */
  /* Set on the rewritten copy api/setop.c runs (WITH queries, derived
   * tables and join order resolved): run it as it is. */
  bool adhoc_rewritten;
  /* Set by the binder on the subquery it makes of a parenthesized join
   * (plan/join_bind.c; never by the parser): the select list (a '*') is
   * every column of FROM's scope, the sides of USING columns included. */
  bool scope_out;
} lm_select;

/* ----------------------------------------------------------- statements */

typedef struct lm_option {
  const char *key; /* 'k' or dotted identifier, as written */
  const char *value;
  int line, column;
} lm_option;

typedef struct lm_column_def {
  const char *name;
  lm_type type;
  bool not_null;
  bool primary_key; /* CREATE TABLE: `col type PRIMARY KEY` */
  /* CREATE SOURCE: `col AS PROCTIME()`, the processing-time attribute
   * (type TIMESTAMP; filled in by the engine, docs/windows.md) */
  bool proctime;
  int line, column;
  /* the declared modifier (lm_typmod): VARCHAR(n) / CHAR(n) n, CHAR's
   * blank padding, TIMESTAMP(p) / TIME(p) p + 1 */
  int32_t char_len;
  bool bpchar;
  int8_t tprec;
} lm_column_def;

/* CREATE TABLE: a UNIQUE constraint (docs/tables.md): column `UNIQUE`,
 * table `UNIQUE (a, b)` or `CONSTRAINT name UNIQUE (...)`. */
typedef struct lm_unique_def {
  const char *name;  /* CONSTRAINT name; NULL = generated (t_a_b_key) */
  const char **cols; /* column names as written, n_cols >= 1 */
  int n_cols;
  bool nulls_not_distinct; /* UNIQUE NULLS NOT DISTINCT (PostgreSQL 15) */
  int line, column;        /* of UNIQUE (or CONSTRAINT) */
} lm_unique_def;

/* CREATE INDEX: one key column `name [ASC | DESC] [NULLS FIRST | LAST]`. */
typedef struct lm_index_col {
  const char *name;
  bool desc;
  int line, column;
} lm_index_col;

typedef enum lm_stmt_kind {
  LM_STMT_CREATE_SOURCE,
  LM_STMT_CREATE_STREAM,
  LM_STMT_CREATE_MVIEW,
  LM_STMT_CREATE_SINK,
  LM_STMT_INSERT,
  LM_STMT_DROP,
  LM_STMT_SHOW,
  LM_STMT_DESCRIBE,
  LM_STMT_SELECT,
  LM_STMT_CREATE_TABLE, /* name, columns, primary_key, connector/format */
  LM_STMT_DELETE,       /* DELETE FROM name [WHERE where] */
  LM_STMT_UPDATE,       /* UPDATE name SET set_columns = set_exprs [WHERE] */
  LM_STMT_EXPLAIN,      /* EXPLAIN [ANALYZE] stmt | name (docs/explain.md) */
  /* CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table (cols): name (NULL
   * = generated), index_table, index_cols, unique (docs/tables.md) */
  LM_STMT_CREATE_INDEX,
  /* REINDEX INDEX name | REINDEX TABLE name: object LM_OBJ_INDEX or
   * LM_OBJ_TABLE, name */
  LM_STMT_REINDEX,
  /* SET [SESSION|LOCAL] TIME ZONE v | SET name {TO|=} v | RESET name:
   * name is the setting ("timezone"), set_value its text (NULL = DEFAULT,
   * LOCAL or RESET); docs/timezones.md */
  LM_STMT_SET,
  /* SHOW TIME ZONE | SHOW name: name is the setting ("timezone") */
  LM_STMT_SHOW_VAR,
} lm_stmt_kind;

/* Object kinds for DROP and SHOW. */
typedef enum lm_object_kind {
  LM_OBJ_SOURCE,
  LM_OBJ_STREAM,
  LM_OBJ_MVIEW,
  LM_OBJ_SINK,
  LM_OBJ_TABLE,
  LM_OBJ_INDEX, /* DROP INDEX, REINDEX INDEX */
  LM_OBJ_QUERY, /* SHOW QUERIES: the continuous queries (docs/failures.md) */
} lm_object_kind;

typedef struct lm_stmt {
  lm_stmt_kind kind;
  int line, column;
  const char *text; /* the statement's own SQL text (NUL-terminated copy) */
  const char *name; /* object created/dropped/described/inserted into */
  int name_line, name_column; /* of `name` in INSERT / DELETE / UPDATE */
  bool if_not_exists, if_exists;
  bool cascade; /* DROP ... CASCADE (RESTRICT, the default, is accepted) */
  /* DROP kind [IF EXISTS] name, more[0], more[1], ...: the names after the
   * first (NULL = none), dropped in order after checking that every one
   * exists (unless IF EXISTS) */
  const char **drop_more;
  int n_drop_more;
  lm_object_kind object; /* DROP / SHOW */

  /* CREATE SOURCE */
  lm_column_def *columns;
  int n_columns;
  const char *watermark_column; /* NULL when none */
  lm_expr *watermark_expr;      /* AS expr; NULL = zero delay */
  int wm_line, wm_column;

  /* CREATE SOURCE: FROM <connector>; CREATE SINK: INTO <connector> */
  const char *connector; /* upper-cased: "FILES", "GENERATOR", ... or NULL */
  lm_option *options;
  int n_options;
  const char *format; /* upper-cased: "CSV", "JSON", ... or NULL */

  /* CREATE STREAM / MATERIALIZED VIEW, SELECT */
  lm_select *select;

  /* CREATE SINK: FROM name */
  const char *sink_from;

  /* INSERT */
  const char **insert_columns; /* NULL = all, in order */
  int n_insert_columns;
  int *insert_col_lines, *insert_col_cols; /* position of each column name */
  bool *insert_col_quoted; /* each column name was "quoted" (exact match) */
  lm_expr ***rows;         /* rows[i][j] */
  int n_rows;
  int n_values; /* values per row (all rows equal; checked by the parser) */
  /* INSERT INTO name [(cols)] SELECT ...: `select` is set, rows NULL */

  /* CREATE TABLE: PRIMARY KEY columns (names as written, in key order; from
   * `col type PRIMARY KEY` or a table constraint `PRIMARY KEY (a, b)`) */
  const char **primary_key;
  bool *pk_quoted; /* pk_quoted[k]: primary_key[k] was "quoted" */
  int n_primary_key;
  int pk_line, pk_column;
  const char *pk_name; /* CONSTRAINT name PRIMARY KEY; NULL = table_pkey */
  /* CREATE TABLE: UNIQUE constraints in the order written */
  lm_unique_def *uniques;
  int n_uniques;

  /* CREATE INDEX (name = the index name, NULL = generated) */
  const char *index_table;
  lm_index_col *index_cols;
  int n_index_cols;
  /* CREATE [UNIQUE] INDEX ... (cols) NULLS NOT DISTINCT (PostgreSQL 15):
   * NULLs conflict like values in a unique index */
  bool index_nulls_not_distinct;
  bool unique;

  /* DELETE / UPDATE: WHERE (NULL = every row); UPDATE's SET col = expr */
  lm_expr *where;
  const char **set_columns;
  lm_expr **set_exprs;
  int *set_lines, *set_cols; /* position of each SET column name */
  bool *set_quoted;          /* each SET column name was "quoted" */
  int n_set;

  /* EXPLAIN [ANALYZE] stmt, EXPLAIN [ANALYZE] name (a stream or view:
   * explain = NULL, name set), EXPLAIN (ANALYZE [on|off], TIMING [on|off])
   * ...: the statement explained (a SELECT, CREATE STREAM or CREATE
   * MATERIALIZED VIEW; the binder refuses others) */
  struct lm_stmt *explain;
  /* SET: the value's text (a string, a signed number or a word as written;
   * NULL for DEFAULT / LOCAL / RESET) */
  const char *set_value;
  bool analyze;
  bool no_timing; /* TIMING OFF: ANALYZE prints no times */
  /* EXPLAIN (VERBOSE): every node's output columns; (SUMMARY OFF): no
   * Execution Time; (FORMAT JSON): explain_json (docs/explain.md) */
  bool explain_verbose;
  bool explain_no_summary;
  bool explain_json;
  /* CREATE [OR REPLACE] [TEMP] VIEW name [(cols)] AS select (kind
   * LM_STMT_CREATE_MVIEW), DROP VIEW, SHOW VIEWS (object LM_OBJ_MVIEW):
   * written with VIEW, not MATERIALIZED VIEW (api/view.c, docs/views.md);
   * view_cols: the column names given (NULL = the query's) */
  bool plain_view;
  bool or_replace;
  const char **view_cols;
  int n_view_cols;
} lm_stmt;

typedef struct lm_sql_script {
  lm_arena arena;
  lm_stmt **stmts;
  int n_stmts;
} lm_sql_script;

/* Parses SQL text (len bytes, need not be NUL-terminated) holding zero or
 * more ';'-separated statements. On success returns 0 and *out (free with
 * lm_sql_script_free). On a syntax error returns LM_ERR_PARSE with err set
 * to "line:column: <reason>" (e.g. "3:8: expected FROM, found 'FORM'"),
 * line/column pointing at the offending token, and *out = NULL. Limits:
 * expression nesting depth 256 (deeper is an error, never a stack
 * overflow). */
int lm_sql_parse(const char *sql, size_t len, lm_sql_script **out,
                 lm_error *err);
void lm_sql_script_free(lm_sql_script *s);

/* Parses a SQL type name (BOOLEAN, TINYINT, SMALLINT, INT/INTEGER, BIGINT,
 * REAL/FLOAT, DOUBLE [PRECISION], VARCHAR[(n)]/TEXT/STRING, TIMESTAMP).
 * Returns 0 or -1 for an unknown type. */
int lm_sql_type_from_name(const char *name, lm_type *out);

/* AST nodes for rewrites outside the parser (sql/expr_build.c), owned by
 * arena a, at SQL position line:column. lm_sql_node: a zeroed node of kind
 * with n_args NULL argument slots. lm_sql_op_node: kind with op over its
 * operands (LM_EXPR_BINARY takes l and r, LM_EXPR_IS_NULL l, other kinds
 * none); NULL when an operand it takes is NULL, so OOM in an operand
 * propagates. lm_sql_string_lit: the string literal s (not copied). Each
 * returns NULL on OOM (no error is set). */
lm_expr *lm_sql_node(lm_arena *a, lm_expr_kind kind, int line, int column,
                     int n_args);
lm_expr *lm_sql_op_node(lm_arena *a, lm_expr_kind kind, lm_op op, lm_expr *l,
                        lm_expr *r, int line, int column);
lm_expr *lm_sql_string_lit(lm_arena *a, const char *s, int line, int column);

/* `SELECT * FROM name` (no WHERE, no LIMIT) at SQL position line:column,
 * built in the caller's storage: *ss's one item *it is *star. ss borrows
 * name, it and star; nothing is allocated, nothing fails. */
void lm_sql_select_star(lm_select *ss, lm_select_item *it, lm_expr *star,
                        const char *name, int line, int column);

/* Writes an expression back as SQL text (for column naming, EXPLAIN and
 * error messages), appending to out. */
int lm_sql_expr_to_string(const lm_expr *e, lm_buf *out);
/* The SQL text of an operator ("+", "<>", "AND", "~*", "->>", ...; NEG
 * prints "-", NOT "NOT"); "?" for an operator with no text. A static
 * string. */
const char *lm_sql_op_text(lm_op op);

/* Points s's FROM fields (from_clause, from, from_alias, from_subquery,
 * from_line/from_column) at FROM tree f as the parser sets them for
 * `SELECT ... FROM f`; s borrows f. */
void lm_sql_select_set_from(lm_select *s, const lm_from *f);

/* PostgreSQL's quote_identifier (quote_ident(), EXPLAIN, ruleutils): s[0, n)
 * (UTF-8 bytes) appended to o as is when it is all lower-case ASCII letters,
 * digits and '_' (not starting with a digit) and no PostgreSQL 15 keyword
 * other than an unreserved one; else in double quotes with each '"'
 * doubled. Returns 0, or LM_ERR_NOMEM (o then holds a prefix). */
int lm_quote_ident(lm_buf *o, const char *s, int32_t n);

#endif
