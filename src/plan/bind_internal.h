/*
 * plan/ internals shared by the binder's files: the binding context and
 * the helpers every binding step uses. Not part of any public API.
 */
#ifndef LM_BIND_INTERNAL_H
#define LM_BIND_INTERNAL_H

#include "plan/lm_plan.h"

/* The names visible over a join's output (join_bind.c): each entry maps
 * [rel.]name to a column of the input batch, or to an expression over it
 * (a FULL JOIN's USING column is COALESCE(left, right)). */
typedef struct lm_scope_col {
  const char *rel;     /* qualifier (alias or object name); NULL = merged */
  const char *name;    /* column name */
  int col;             /* column index in the input */
  lm_bexpr *expr;      /* non-NULL: the value (instead of col) */
  bool qualified_only; /* only rel.name finds it (a side of a USING col) */
  bool star;           /* expanded by SELECT * */
} lm_scope_col;

typedef struct lm_scope {
  lm_scope_col *cols;
  int n;
} lm_scope;

typedef struct lm_bctx {
  lm_arena *arena;
  const lm_schema *in;
  const char *from;
  lm_plan *plan; /* non-NULL when aggregates are allowed */
  bool post;     /* binding over the aggregate output */
  lm_error *err;
  int depth;
  bool window_ok;        /* binding GROUP BY keys: session() is allowed */
  const lm_scope *scope; /* names over a join's output; NULL = c->in's */
  /* set while a query that does not aggregate binds its select list /
   * ORDER BY: an aggregate of an inner query that belongs to this one
   * sets *want_agg (the query is then planned again as an aggregate
   * query: subquery_bind.c); NULL elsewhere (WHERE: an error) */
  bool *want_agg;
  /* 1..3 while binding one of sum(interval)'s field sums (mdn_bind.c):
   * the argument becomes its months / days / µs; 0 elsewhere */
  int mdn_part;
} lm_bctx;

static inline bool is_int(lm_type t) {
  return lm_type_is_integer(t);
}
static inline bool is_float(lm_type t) {
  return t.id == LM_TYPE_FLOAT32 || t.id == LM_TYPE_FLOAT64;
}
static inline bool is_num(lm_type t) {
  return lm_type_is_numeric(t);
}
static inline bool is_null(lm_type t) {
  return t.id == LM_TYPE_NULL;
}

/* Grouping sets (gsets_bind.c, docs/aggregates.md). lm_bind_grouping_sets:
 * with sel->group_elems, after the GROUP BY keys are bound (p->keys[k] is
 * group_by[k]'s), merges equal keys, expands the sets (at most
 * LM_GSET_MAX: 54001; CUBE of at most 12: 54011) and fills p->n_gsets /
 * gset_mask / gset_key with the __grouping_set key added, or leaves a
 * plain GROUP BY when there is one set; 0A000 with a window key. Nothing
 * without group_elems. 0 or an error code (c->err set).
 * lm_bind_grouping: GROUPING(e, ...) over the aggregate output (c->plan):
 * INT32, bit n-1-i set when argument i is not grouped by in the row's set;
 * 42803 "arguments to GROUPING must be grouping expressions of the
 * associated query level" at an argument that is no key; NULL with
 * c->err set.
 * lm_bind_grouping_misplaced: 42803 "grouping operations are not allowed
 * in <clause>" at the first GROUPING() call in e; 0 when there is none.
 * lm_bind_gset_nullable: whether key k is left out by some set (its
 * aggregate-output column is then nullable). */
int lm_bind_grouping_sets(lm_bctx *c, lm_plan *p, const lm_select *sel);
lm_bexpr *lm_bind_grouping(lm_bctx *c, const lm_expr *e);
int lm_bind_grouping_misplaced(const lm_expr *e, const char *clause,
                               lm_error *err);
bool lm_bind_gset_nullable(const lm_plan *p, int k);

/* Binds an expression over c->in (binder.c). NULL with c->err set. */
lm_bexpr *lm_bind_expr(lm_bctx *c, const lm_expr *e);
/* A new bound node of `kind` and `type` with n_args argument slots, at the
 * position of `at` (may be NULL), in c->arena. NULL on OOM (err set). */
lm_bexpr *lm_bind_node(lm_bctx *c, lm_bexpr_kind kind, lm_type type,
                       const lm_expr *at, int n_args);
/* A BIGINT literal v at `at`'s position, in c->arena (bind_types.c). NULL on
 * OOM (err set). */
lm_bexpr *lm_bind_int64_lit(lm_bctx *c, const lm_expr *at, int64_t v);
/* A NULL literal of type t at `at`'s position, in c->arena (bind_types.c).
 * NULL on OOM (err set). */
lm_bexpr *lm_bind_null_lit(lm_bctx *c, const lm_expr *at, lm_type t);
/* Sets LM_ERR_BIND at `at`'s line:column with fmt (up to two %s: a, b);
 * returns the error code. */
int lm_bind_fail(lm_bctx *c, const lm_expr *at, const char *fmt, const char *a,
                 const char *b);
/* SQL INTERVAL values with months, LM_TYPE_INTERVAL_MDN (mdn_bind.c).
 * lm_bind_mdn_literal: e an INTERVAL literal whose text names months:
 * *out its INTERVAL_MDN literal, 0; 1 not such a literal; -1 error set
 * (22008). lm_bind_mdn_text: x a text literal with months: an
 * INTERVAL_MDN literal, else NULL (no error). lm_bind_mdn_arith: the
 * operator rules when an operand is INTERVAL_MDN (timestamp ± interval,
 * interval ± interval, interval * / number): 0 typed (*rt), 1 not ours,
 * -1 error. lm_bind_mdn_pair: a comparison of INTERVAL_MDN with INTERVAL
 * / text literal / NULL casts the other side: 0, 1 not ours, -1. */
int lm_bind_mdn_literal(lm_bctx *c, const lm_expr *e, lm_bexpr **out);
lm_bexpr *lm_bind_mdn_text(lm_bctx *c, lm_bexpr *x);
int lm_bind_mdn_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                      lm_bexpr **pb, lm_type *rt);
int lm_bind_mdn_pair(lm_bctx *c, lm_bexpr **pa, lm_bexpr **pb);
/* sum / avg (agg "sum" or "avg", not DISTINCT) of an INTERVAL_MDN
 * argument, as PostgreSQL's interval_pl / interval_div: three sums of the
 * stored months, days and µs (agg called with c->mdn_part 1..3; avg adds
 * count) combined by LM_FN_IV_MAKE. NULL with c->err set.
 * lm_bind_mdn_part: the argument x of such a field sum as its field
 * (c->mdn_part - 1), a BIGINT. */
lm_bexpr *lm_bind_mdn_agg(lm_bctx *c, const lm_expr *e,
                          lm_bexpr *(*agg)(lm_bctx *, const lm_expr *));
lm_bexpr *lm_bind_mdn_part(lm_bctx *c, const lm_expr *at, lm_bexpr *x);
/* b the µs literal of interval literal e: sets b->iv_split / iv_days
 * from e's text (PostgreSQL's days field), when it parses. */
void lm_bind_mdn_days(const lm_expr *e, lm_bexpr *b);
/* x cast to t (x itself when it already has type t; NULL literals are
 * retyped in place). NULL on OOM or when x is NULL. */
lm_bexpr *lm_bind_cast(lm_bctx *c, lm_bexpr *x, lm_type t);
/* a op b with PostgreSQL's operand coercions; NULL with err set. */
lm_bexpr *lm_bind_binary(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                         lm_bexpr *b);
bool lm_bind_is_agg_name(const char *n);
/* a ~ b, ~*, !~, !~* (BOOLEAN) and a -> b, a ->> b (VARCHAR JSON / text)
 * as LM_BX_FUNC nodes (func_bind.c); NULL with err set (a literal
 * pattern that does not compile: SQLSTATE 2201B). */
lm_bexpr *lm_bind_other_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                           lm_bexpr *b);
/* json / jsonb (json_bind.c). lm_bind_json_op: a op b when it is a json
 * operator (#> #>> ? ?| ?&, @> <@ || - over jsonb): true with *out the
 * node (NULL with c->err set), false when not ours. lm_bind_json_func: the
 * json functions (to_json, json_build_object, jsonb_set, json_typeof ...)
 * the same way. lm_bind_json_cast_check: -1 with 42846 "cannot cast type
 * integer to json" set for a cast PostgreSQL refuses, else 0. */
bool lm_bind_json_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                     lm_bexpr *b, lm_bexpr **out);
bool lm_bind_json_func(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                       lm_bexpr **out);
int lm_bind_json_cast_check(lm_bctx *c, const lm_expr *e, const lm_bexpr *a,
                            lm_type to);
/* Constant folding as PostgreSQL's planner does it (func_bind.c): x when
 * it reads a column or a volatile function (random()); otherwise the value
 * it evaluates to, as a literal in c->arena. NULL with err set when that
 * evaluation fails (e.g. "division by zero" for 1/0, even in a CASE branch
 * not taken: PostgreSQL raises it when planning too) or on OOM. */
lm_bexpr *lm_bind_fold(lm_bctx *c, lm_bexpr *x);
/* Turns constant folding off (+1) or back on (-1) for what is bound in
 * between, as PostgreSQL does not simplify what a constant already
 * decided: the COALESCE arguments after a non-NULL constant, the AND / OR
 * operand after a constant FALSE / TRUE, a CASE branch behind a constant
 * condition. Nests; per thread. */
void lm_bind_no_fold(int delta);
/* Frees p->join (its inputs' subquery plans, its steps' schemas) and
 * p->join_arena; sets both to NULL (join_bind.c). */
void lm_plan_free_join(lm_plan *p);
/* lm_plan_select with the names of `scope` (NULL = input's own names):
 * columns resolve through it and SELECT * / rel.* expand its entries. */
int lm_plan_select_scope(const lm_select *sel, lm_schema *input,
                         const char *from_name, const lm_scope *scope,
                         lm_plan **out, lm_error *err);
/* lm_plan_topn for a ROW_NUMBER subquery `in` whose FROM is a join
 * (topn_bind.c): `input` is the join's output named by `scope`, in_where
 * what is left of in's WHERE once its conjuncts moved into the joins
 * (NULL = nothing). Same errors as lm_plan_topn. */
int lm_plan_topn_scope(const lm_select *sel, const lm_select *in,
                       const lm_expr *in_where, lm_schema *input,
                       const lm_scope *scope, lm_plan **out, lm_error *err);
/* A scalar function call (func_bind.c): resolves the name, checks and
 * casts the arguments. NULL with err set ("function f() does not exist"). */
lm_bexpr *lm_bind_func(lm_bctx *c, const lm_expr *e);
/* PostgreSQL's boolean tests, SIMILAR TO and integer bit operators
 * (pgsyntax_bind.c). lm_bind_booltest: e an IS_NULL node with booltest
 * 1..3 (x IS [NOT] TRUE | FALSE | UNKNOWN): never NULL; 42804 "argument of
 * IS TRUE must be type boolean, not type integer" otherwise.
 * lm_bind_similar: e a LIKE node with booltest 1 (s [NOT] SIMILAR TO p
 * [ESCAPE c]) as s ~ similar_to_escape(p, c). lm_bind_bitop: a op b (b
 * NULL for ~ a) over integers, at PostgreSQL's width (smallint, integer,
 * bigint; an integer literal is integer); 42883 "operator does not
 * exist: ..." for other operands. All: NULL with c->err set. */
lm_bexpr *lm_bind_booltest(lm_bctx *c, const lm_expr *e);
lm_bexpr *lm_bind_similar(lm_bctx *c, const lm_expr *e);
lm_bexpr *lm_bind_bitop(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                        lm_bexpr *b);
/* PostgreSQL's width in bits of integer operand x (ast: its AST, may be
 * NULL): 16, 32 or 64; an integer literal that fits is 32; 0 for NULL.
 * lm_bind_width_type: the INT16 / INT32 / INT64 type of a width. */
int lm_bind_int_width(const lm_expr *ast, const lm_bexpr *x);
lm_type lm_bind_width_type(int w);
/* The functions of func_bind2.c (integer, trigonometric, text formatting
 * and bytes: div, gcd, sin, format, encode...): false when `e` names none
 * of them; true otherwise, with *out the bound node or NULL with c->err
 * set. args: e's arguments, bound. */
bool lm_bind_func2(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                   lm_bexpr **out);
/* to_number, gen_random_uuid, sha224 / sha384 / sha512, get_byte,
 * set_byte, get_bit, set_bit, bit_count(bytea) and the function-style
 * casts int4(x), text(x), date(x), ... (fn5_bind.c): false when e names
 * none of them; else true with *out the bound call or NULL with the error
 * set. */
bool lm_bind_fn5(lm_bctx *c, const lm_expr *e, lm_bexpr **args, lm_bexpr **out);
/* The date/time functions of datefn_bind.c (now() and the other
 * statement-time functions, to_char, to_date, make_date, make_time,
 * make_interval, justify_*, EXTRACT over an INTERVAL). false when `e` is
 * none of them (nothing done); true otherwise, with *out the bound node or
 * NULL with c->err set. args: e's arguments, bound. */
bool lm_bind_datefn(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                    lm_bexpr **out);

/* The SQL types DECIMAL, DATE, TIME and BYTEA (bind_types.c,
 * docs/types.md). Whether t is one of them (DECIMAL128 with precision
 * 1..38, DATE32, TIME64 µs, BINARY). */
bool lm_bind_sql_type(lm_type t);
/* The type of CAST(x AS NUMERIC) without (p, s): x's own DECIMAL type,
 * DECIMAL(19|10|5, 0) for integers, the literal's digits for a number or
 * string constant. 0 with *out set, or an error (LM_ERR_BIND) for other
 * operands. */
int lm_bind_numeric_type(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                         lm_type *out);
/* The scale of CAST(x AS NUMERIC) of a DOUBLE / REAL that is not a
 * constant (docs/types.md): DECIMAL(38, 16). */
#define LM_FLOAT_NUMERIC_SCALE 16
/* lm_bind_numeric_type for CAST(x AS NUMERIC) itself: also a DOUBLE / REAL
 * expression, as DECIMAL(38, LM_FLOAT_NUMERIC_SCALE) (PostgreSQL's 15
 * significant digits, at a fixed scale; an absolute value of 10^22 or more
 * is 22003 numeric field overflow when evaluated). Same returns. */
int lm_bind_cast_numeric_type(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                              lm_type *out);
/* Comparison operands involving DECIMAL / DATE (coerce_pair): 1 = not
 * ours (the caller goes on), 0 = coerced, < 0 = error (err set). */
int lm_bind_types_pair(lm_bctx *c, const lm_expr *at, lm_bexpr **pa,
                       lm_bexpr **pb);
/* Arithmetic with DECIMAL / DATE / TIME operands: 1 = not ours, 0 =
 * operands cast and *rt set (result scale rules in docs/types.md), < 0 =
 * error. */
int lm_bind_types_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                        lm_bexpr **pb, lm_type *rt);
/* The common type of t and a when one is DECIMAL or DATE (CASE, COALESCE,
 * GREATEST...): DECIMAL with the larger integer part and scale (integers
 * as DECIMAL(19, 0)), DOUBLE with a float, TIMESTAMP for DATE with
 * TIMESTAMP, VARCHAR for CHAR(n) with VARCHAR. false (out untouched) when
 * neither rule applies. */
bool lm_bind_types_merge(lm_type t, lm_type a, lm_type *out);
/* TIMESTAMPTZ in date_trunc / date_part / EXTRACT (func_bind.c calls it
 * before casting args[1] to TIMESTAMP): when args[1] is a TIMESTAMPTZ,
 * *tz is the zone its fields are read in (the 3rd argument of date_trunc,
 * a constant zone name, else the session zone; UTC for 'epoch'), else
 * NULL. The parts timezone, timezone_hour and timezone_minute are bound
 * here completely: returns 1 with *done set. 0 to go on, -1 on error. */
int lm_bind_tz_part(lm_bctx *c, const lm_expr *e, lm_bexpr **args, bool trunc,
                    const struct lm_tz **tz, lm_bexpr **done);
/* timezone(zone, x) = x AT TIME ZONE zone (zone a constant): TIMESTAMPTZ
 * -> the TIMESTAMP of its wall clock in zone; TIMESTAMP (or DATE) -> the
 * TIMESTAMPTZ of that wall-clock time in zone. NULL with c->err set (22023
 * `time zone "x" not recognized`). */
lm_bexpr *lm_bind_timezone(lm_bctx *c, const lm_expr *e, lm_bexpr **args);
/* When one of args[0..n) is a DECIMAL, its DOUBLE literals (1.5) become
 * the exact DECIMAL they were written as (PostgreSQL: numeric). */
void lm_bind_types_lits(lm_bctx *c, lm_bexpr **args, int n);
/* The number of digits a numeric literal's text has after the point (its
 * PostgreSQL scale: "1.50" 2, "1e-3" 3, "15e1" 0; 0 for NULL). A DOUBLE
 * literal node keeps it in `col` so that it becomes that exact DECIMAL. */
int lm_bind_lit_scale(const char *text);
/* A DOUBLE literal x that keeps its text (x->lit_text) as the exact
 * DECIMAL literal of that text (its own precision and scale; arena-owned);
 * NULL when x is not one or the text does not fit DECIMAL(38) (no error
 * set but on out of memory). */
lm_bexpr *lm_bind_lit_exact(lm_bctx *c, lm_bexpr *x);
/* The digits a numeric literal's text needs before the point (leading
 * zeros not counted; the exponent of 1e5 not read), *scale (may be NULL)
 * those after it. */
int lm_bind_lit_digits(const char *text, int *scale);
/* Sets c->err to 22003 `numeric literal "..." needs N digits (b before and
 * s after the point): Laminar's NUMERIC (Decimal128) holds at most 38` at
 * line:column for a literal that DECIMAL(38) cannot hold exactly; returns
 * the error code. */
int lm_bind_lit_too_long(lm_bctx *c, int line, int column, const char *text);
/* round/trunc/abs/ceil/floor/sign of a DECIMAL and length/octet_length/
 * md5 of a BYTEA (args bound): *handled false when e is none of them. */
/* sqrt, ln, log, log10, exp, power / pow over PostgreSQL numeric arguments
 * (a DECIMAL or a decimal constant, the others integers): true with *out
 * the bound node (NULL with c->err set on failure); false when e is not
 * one of them (decmath_bind.c). */
bool lm_bind_decmath(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                     lm_bexpr **out);
lm_bexpr *lm_bind_types_func(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                             bool *handled);
/* Aggregates of DECIMAL(p, s) run over CAST(x * 10^s AS BIGINT) (exact
 * while the sum stays within BIGINT: "bigint out of range" otherwise):
 * lm_bind_dec_unscale rewrites *arg so; lm_bind_dec_rescale turns the
 * BIGINT result r back into DECIMAL type t. s <= 18. */
int lm_bind_dec_unscale(lm_bctx *c, const lm_expr *at, lm_bexpr **arg);
lm_bexpr *lm_bind_dec_rescale(lm_bctx *c, const lm_expr *at, lm_bexpr *r,
                              lm_type t);

/* PostgreSQL's numeric typing of integers and floats (bind_num.c,
 * docs/types.md). lm_bind_num_type: x's type for that typing, an integer
 * literal that fits INTEGER counting as INTEGER (PostgreSQL's int4
 * constant). lm_bind_num_merge: the type of a op b for two numbers or
 * NULLs (arith true: + - * / %; PostgreSQL's int2 / int4 / int8 widths,
 * real op real is real, real with an integer or double is double) or,
 * arith false, their common type in CASE / COALESCE / GREATEST / UNION
 * (the same, but real with an integer is real). */
lm_type lm_bind_num_type(const lm_bexpr *x);
lm_type lm_bind_num_merge(lm_type a, lm_type b, bool arith);
/* An output column of a SELECT list (x as bound there): an integer
 * literal that fits INTEGER becomes an INTEGER literal (PostgreSQL: `SELECT
 * 1` is int4), in place; anything else is returned unchanged. */
lm_bexpr *lm_bind_out_int4(lm_bexpr *x);
/* pg_typeof(x) for the bound argument x: a VARCHAR literal of PostgreSQL's
 * name of x's type ('integer', 'real', 'numeric' for a decimal constant,
 * 'unknown' for a string constant) at e. NULL on out of memory. */
lm_bexpr *lm_bind_pg_typeof(lm_bctx *c, const lm_expr *e, const lm_bexpr *x);
/* The common type t of the values args[0..n) (CASE: skipping the
 * conditions, args[2i] for i < n_pairs) made REAL when it is DOUBLE only
 * because of numeric values (lm_bind_num_is_numeric) beside a REAL:
 * COALESCE(real_col, 0.5), COALESCE(real_col, pk * 0.5) are real in
 * PostgreSQL (numeric converts to real implicitly). */
lm_type lm_bind_num_real(lm_type t, lm_bexpr *const *args, int n, int n_pairs);
/* lm_bind_num_is_numeric: whether the DOUBLE x is a PostgreSQL numeric
 * value (a decimal constant, x->pg_numeric, - / ABS / ROUND / TRUNC /
 * FLOOR / CEIL of one) or x is a DECIMAL. lm_bind_num_numeric_op: whether a
 * op b (+ - * / %, operands as bound, before their casts) is numeric in
 * PostgreSQL: each operand numeric or an integer, one numeric. */
bool lm_bind_num_is_numeric(const lm_bexpr *x);
bool lm_bind_num_numeric_op(const lm_bexpr *a, const lm_bexpr *b);

/* Subquery expressions (subquery_bind.c). lm_bind_subquery binds an
 * LM_EXPR_SUBQUERY (planning the inner query through the thread's
 * lm_subq_hooks); NULL with err set. lm_bind_outer_ref resolves a column
 * the current query does not have in the queries enclosing it (innermost
 * first): an LM_BX_PARAM node, or NULL when no enclosing query has it
 * (*failed set, with err, for an ambiguity out there or OOM).
 * lm_expr_has_subquery: whether e contains a subquery expression (not looking
 * inside subqueries). */
lm_bexpr *lm_bind_subquery(lm_bctx *c, const lm_expr *e);
lm_bexpr *lm_bind_outer_ref(lm_bctx *c, const lm_expr *e, bool *failed);
bool lm_expr_has_subquery(const lm_expr *e);
/* Aggregates of enclosing queries (SQL standard, PostgreSQL's agglevelsup;
 * subquery_bind.c). lm_bind_agg_level: the query aggregate call e (bound
 * in c) belongs to: 0 c's own, k the k-th enclosing one: the innermost
 * level of the columns its arguments name (0 without columns, or when a
 * name resolves nowhere: the error is then c's). lm_bind_outer_agg: e (of
 * level > 0) computed by the enclosing query, as its aggregate (added to
 * its aggregate list) read here through a parameter: the LM_BX_PARAM
 * node, NULL with c->err set (an enclosing query that does not aggregate
 * sets its want_agg and fails: it is planned again). */
int lm_bind_agg_level(const lm_bctx *c, const lm_expr *e);
lm_bexpr *lm_bind_outer_agg(lm_bctx *c, const lm_expr *e);

/* PostgreSQL's "unknown" (bind_pgerr.c). lm_bind_is_unknown: whether x,
 * bound from ast, is a quoted string literal (not cast). lm_bind_pg_type_of:
 * PostgreSQL's name of x's type (an integer literal is integer, a quoted
 * literal unknown). lm_bind_unknown_arith: for a op b (e a BINARY node)
 * with one quoted-literal operand, casts it to the type PostgreSQL
 * resolves (the other operand's; interval after timestamp +; float8 after
 * interval * /); 0 (also when nothing applies), -1 with c->err set (a
 * literal that does not convert: 22P02 / 22007 at the literal; 42725 for
 * date + unknown). lm_bind_op_undefined: sets 42883 "operator does not
 * exist: integer + text" (42725 "operator is not unique" when unique) at
 * e's operator token; returns NULL. lm_bind_default_state: records the
 * SQLSTATE the bind message msg describes when err has none. */
bool lm_bind_is_unknown(const lm_expr *ast, const lm_bexpr *x);
const char *lm_bind_pg_type_of(const lm_expr *ast, const lm_bexpr *x);
int lm_bind_unknown_arith(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr **pa,
                          lm_bexpr **pb);
lm_bexpr *lm_bind_op_undefined(lm_bctx *c, const lm_expr *e, lm_op op,
                               const lm_bexpr *a, const lm_bexpr *b,
                               bool unique);
void lm_bind_default_state(lm_error *err, const char *msg);
/* x [NOT] [I]LIKE p (e the LIKE node, a and p bound): -1 with c->err set
 * to PostgreSQL's 42883 "operator does not exist: integer ~~ unknown" at
 * the operator when either side is not a string (text, varchar, char(n),
 * bytea, NULL; json is not), else 0 (bind_pgerr.c). */
int lm_bind_like_types(lm_bctx *c, const lm_expr *e, const lm_bexpr *a,
                       const lm_bexpr *p);
/* A quoted-literal member x (bound from ast) of a COALESCE / CASE whose
 * other members have the common type *t (LM_TYPE_NULL: none): *t becomes
 * text when there is none, a DECIMAL widened to the literal's digits; the
 * caller then casts x to *t. -1 with c->err set (22P02 not a number). */
int lm_bind_unknown_member(lm_bctx *c, const lm_expr *ast, lm_bexpr *x,
                           lm_type *t);
/* An aggregate call e (in a subquery) whose bound argument arg reads only
 * enclosing queries' values belongs to the outer query (SQL standard,
 * PostgreSQL), which Laminar does not do: 0A000 at e, returns
 * LM_ERR_BIND; 0 when arg reads its own input (or no outer value). */
int lm_bind_agg_outer_only(lm_bctx *c, const lm_expr *e, const lm_bexpr *arg);

/* binder.c: appends aggregate slot *s (copied) to c->plan's aggs (arena
 * memory); returns its index, or -1 with LM_ERR_NOMEM in c->err. */
int lm_bind_agg_append(lm_bctx *c, const lm_agg_spec *s);

/* stat_bind.c: corr, covar_*, regr_* (Y, X); fn is
 * lm_regr_fn_named(name) (exec/agg_stat.h). lm_bind_regr binds call e over
 * input `in` (flt: its bound FILTER condition or NULL) into two aggregate slots
 * of c->plan; returns the reference to the result (DOUBLE; regr_count BIGINT),
 * NULL on error (42883 for arguments that are not numeric). */
lm_bexpr *lm_bind_regr(lm_bctx *c, lm_bctx *in, const lm_expr *e, lm_bexpr *flt,
                       int fn);
/* stat_bind.c: percentile_cont, percentile_disc and mode() WITHIN GROUP
 * (ORDER BY x): whether name is one; binding call e (over `in`, flt: its
 * bound FILTER or NULL) into one aggregate slot of c->plan. Errors as
 * PostgreSQL's: 42809 without WITHIN GROUP (or with it on another
 * aggregate), 42883 for argument types it has no signature for; 0A000
 * for a fraction that is not a constant. */
bool lm_bind_is_ordset(const char *name);
lm_bexpr *lm_bind_ordset(lm_bctx *c, lm_bctx *in, const lm_expr *e,
                         lm_bexpr *flt);
/* binder.c: PostgreSQL's 42883 "function f(types) does not exist" for an
 * aggregate call (NULL returned); whether an expression calls an
 * aggregate. */
lm_bexpr *lm_bind_agg_undefined(lm_bctx *c, lm_bctx *in, const lm_expr *e);
bool lm_bind_expr_has_agg(const lm_expr *e);

#endif
