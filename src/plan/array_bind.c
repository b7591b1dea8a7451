/* plan/array_bind.c — PostgreSQL's one-dimensional arrays (LIST<item>
 * values): ARRAY[...], subscripts and slices, x op ANY / ALL (array), the
 * array operators (= < @> <@ && ||) and the array functions, bound as
 * LM_BX_FUNC nodes evaluated by exec/expr_array.c (docs/functions.md
 * "Arrays"). */
#include "plan/array_bind.h"
#include "plan/distinct_agg_bind.h"

#include <stdio.h>
#include <string.h>

#include "exec/lm_strfn.h" /* lm_pg_type_name */

static bool is_list(lm_type t) {
  return t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST;
}

static lm_type item_of(lm_type t) {
  return t.node->children[0].type;
}

bool lm_bind_list_of(lm_type item, lm_type *out) {
  if (item.id == LM_TYPE_LARGE_UTF8 || lm_type_is_nested(item))
    return false;
  lm_type_field f = {"item", item, true, NULL};
  return lm_type_list(LM_TYPE_LIST, &f, out) == 0;
}

bool lm_bind_is_array_type(lm_type t) {
  if (t.id != LM_TYPE_LIST)
    return false;
  lm_type it = item_of(t);
  return !lm_type_is_nested(it) && it.id != LM_TYPE_LARGE_UTF8 &&
         (it.id < LM_TYPE_UINT8 || lm_bind_sql_type(it));
}

int lm_bind_array_numeric(lm_bctx *c, const lm_expr *at, lm_bexpr *x,
                          lm_type *ct) {
  if (item_of(*ct).id != LM_TYPE_DECIMAL128)
    return 0;
  int scale = 0;
  if (is_list(x->type) && item_of(x->type).id == LM_TYPE_DECIMAL128)
    scale = item_of(x->type).scale;
  else if (x->kind == LM_BX_LITERAL && !x->lit.is_null &&
           x->type.id == LM_TYPE_UTF8) {
    /* the most digits after a '.' in an item */
    int run = -1;
    for (int32_t i = 0; i < x->lit.v.s.len; i++) {
      char ch = x->lit.v.s.p[i];
      if (ch == '.')
        run = 0;
      else if (ch >= '0' && ch <= '9' && run >= 0)
        run++;
      else
        run = -1;
      if (run > scale)
        scale = run;
    }
    if (scale > 18)
      scale = 18;
  }
  if (!lm_bind_list_of(lm_type_decimal128(38, scale), ct)) {
    lm_bind_fail(c, at, "out of memory", NULL, NULL);
    return LM_ERR_NOMEM;
  }
  return 0;
}

static lm_bexpr *list_type_fail(lm_bctx *c, const lm_expr *at) {
  lm_bind_fail(c, at, "arrays of this type are not supported", NULL, NULL);
  lm_err_state(c->err, "0A000");
  return NULL;
}

/* The common type of two item types for ARRAY[...] / comparisons: t when
 * they are equal, the numeric merge of numbers, text for CHAR with text;
 * false when they do not match. */
static bool merge_items(lm_type a, lm_type b, lm_type *out) {
  if (a.id == LM_TYPE_NULL) {
    *out = b;
    return true;
  }
  if (b.id == LM_TYPE_NULL || lm_type_eq(a, b)) {
    *out = a;
    return true;
  }
  if (lm_bind_types_merge(a, b, out))
    return true;
  if (lm_type_is_numeric(a) && lm_type_is_numeric(b)) {
    *out = lm_bind_num_merge(a, b, false);
    return true;
  }
  if (a.id == LM_TYPE_UTF8 && b.id == LM_TYPE_UTF8) {
    *out = lm_type_make(LM_TYPE_UTF8);
    return true;
  }
  if (a.id == LM_TYPE_TIMESTAMP && b.id == LM_TYPE_TIMESTAMP) {
    *out = lm_type_timestamptz();
    return true;
  }
  return false;
}

static lm_bexpr *node(lm_bctx *c, const lm_expr *e, lm_func_id fn, lm_type t,
                      int n) {
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, t, e, n);
  if (r)
    r->fn = fn;
  return r;
}

/* ARRAY[e, ...]: the items cast to their common type (quoted literals
 * text when nothing else decides). */
static lm_bexpr *bind_ctor(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  if (e->n_args == 0) {
    lm_bind_fail(c, e, "cannot determine type of empty array", NULL, NULL);
    lm_err_state(c->err, "42P18");
    return NULL;
  }
  lm_type t = lm_type_make(LM_TYPE_NULL);
  bool unknown = false;
  for (int i = 0; i < e->n_args; i++) {
    if (lm_bind_is_unknown(e->args[i], args[i])) {
      unknown = true;
      continue;
    }
    if (is_list(args[i]->type)) {
      lm_bind_fail(c, e->args[i], "multidimensional arrays are not supported",
                   NULL, NULL);
      lm_err_state(c->err, "0A000");
      return NULL;
    }
    lm_type m; /* an integer constant counts as integer (PostgreSQL) */
    if (!merge_items(t, lm_bind_num_type(args[i]), &m)) {
      lm_bind_fail(c, e->args[i], "ARRAY types %s and %s cannot be matched",
                   lm_pg_type_name(t), lm_pg_type_name(args[i]->type));
      lm_err_state(c->err, "42804");
      return NULL;
    }
    t = m;
  }
  if (t.id == LM_TYPE_NULL)
    t = lm_type_make(unknown ? LM_TYPE_UTF8 : LM_TYPE_UTF8);
  if (lm_type_is_bpchar(t))
    t = lm_type_make(LM_TYPE_UTF8);
  lm_type lt;
  if (!lm_bind_list_of(t, &lt))
    return list_type_fail(c, e);
  lm_bexpr *r = node(c, e, LM_FN_ARR_CTOR, lt, e->n_args);
  if (!r)
    return NULL;
  for (int i = 0; i < e->n_args; i++)
    if (!(r->args[i] = lm_bind_cast(c, args[i], t)))
      return NULL;
  return r;
}

lm_bexpr *lm_bind_array_empty(lm_bctx *c, const lm_expr *e, lm_type t) {
  lm_bexpr *r = node(c, e, LM_FN_ARR_CTOR, t, 0);
  return r;
}

/* x cast to the array type lt: a quoted literal or NULL is read as one,
 * an array of another item type cast item by item. NULL (err set) when x
 * is not an array. */
static lm_bexpr *to_list(lm_bctx *c, const lm_expr *ast, lm_bexpr *x,
                         lm_type lt) {
  if (lm_type_eq(x->type, lt))
    return x;
  if (lm_bind_is_unknown(ast, x) || x->type.id == LM_TYPE_NULL ||
      is_list(x->type))
    return lm_bind_cast(c, x, lt);
  lm_bind_fail(c, ast, "argument must be an array, not type %s",
               lm_bind_pg_type_of(ast, x), NULL);
  lm_err_state(c->err, "42804");
  return NULL;
}

/* The array type two operands a and b (one an array) share: their item
 * types merged; an unknown literal or NULL takes the other's type. false
 * when they do not match (err not set). */
static bool pair_type(const lm_expr *aa, lm_bexpr *a, const lm_expr *ab,
                      lm_bexpr *b, lm_type *lt) {
  bool la = is_list(a->type), lb = is_list(b->type);
  if (la && lb) {
    lm_type m;
    return merge_items(item_of(a->type), item_of(b->type), &m) &&
           lm_bind_list_of(m, lt);
  }
  if (la && (lm_bind_is_unknown(ab, b) || b->type.id == LM_TYPE_NULL)) {
    *lt = a->type;
    return true;
  }
  if (lb && (lm_bind_is_unknown(aa, a) || a->type.id == LM_TYPE_NULL)) {
    *lt = b->type;
    return true;
  }
  return false;
}

bool lm_bind_array_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                      lm_bexpr *b, lm_bexpr **out) {
  bool arr_op =
      op == LM_OP_CONTAINS || op == LM_OP_CONTAINED || op == LM_OP_OVERLAP;
  if (!arr_op && !is_list(a->type) && !is_list(b->type))
    return false;
  *out = NULL;
  const lm_expr *aa = NULL, *ab = NULL;
  if (e && e->kind == LM_EXPR_BINARY && e->n_args == 2)
    aa = e->args[0], ab = e->args[1];
  lm_type lt;
  if (op == LM_OP_CONCAT && is_list(a->type) != is_list(b->type) &&
      !lm_bind_is_unknown(is_list(a->type) ? ab : aa,
                          is_list(a->type) ? b : a)) {
    /* array || item, item || array */
    bool app = is_list(a->type);
    lm_bexpr *arr = app ? a : b, *it = app ? b : a;
    lm_type m;
    if (!merge_items(item_of(arr->type), it->type, &m) ||
        !lm_bind_list_of(m, &lt)) {
      lm_bind_op_undefined(c, e, op, a, b, false);
      return true;
    }
    lm_bexpr *r = node(c, e, app ? LM_FN_ARR_APPEND : LM_FN_ARR_PREPEND, lt, 2);
    if (!r || !(arr = lm_bind_cast(c, arr, lt)) ||
        !(it = lm_bind_cast(c, it, m)))
      return true;
    r->args[0] = app ? arr : it;
    r->args[1] = app ? it : arr;
    *out = r;
    return true;
  }
  bool cmp = op >= LM_OP_EQ && op <= LM_OP_GE;
  if ((!cmp && !arr_op && op != LM_OP_CONCAT) ||
      !pair_type(aa, a, ab, b, &lt)) {
    lm_bind_op_undefined(c, e, op, a, b, false);
    return true;
  }
  if (!(a = to_list(c, aa, a, lt)) || !(b = to_list(c, ab, b, lt)))
    return true;
  lm_func_id fn = cmp                   ? LM_FN_ARR_CMP
                  : op == LM_OP_CONCAT  ? LM_FN_ARR_CAT
                  : op == LM_OP_OVERLAP ? LM_FN_ARR_OVERLAP
                                        : LM_FN_ARR_CONTAINS;
  lm_bexpr *r =
      node(c, e, fn, cmp || arr_op ? lm_type_make(LM_TYPE_BOOL) : lt, 2);
  if (!r)
    return true;
  r->op = op;
  bool swap = op == LM_OP_CONTAINED; /* a <@ b = b @> a */
  r->args[0] = swap ? b : a;
  r->args[1] = swap ? a : b;
  *out = r;
  return true;
}

/* x op ANY|ALL (arr). */
static lm_bexpr *bind_any(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  lm_bexpr *x = args[0], *a = args[1];
  const lm_expr *ax = e->args[0], *aa = e->args[1];
  lm_type it;
  if (is_list(a->type)) {
    if (lm_bind_is_unknown(ax, x) || x->type.id == LM_TYPE_NULL)
      it = item_of(a->type);
    else if (!merge_items(item_of(a->type), x->type, &it)) {
      lm_err_at(c->err, LM_ERR_BIND, e->op_line, e->op_column,
                "operator does not exist: %s %s %s", lm_bind_pg_type_of(ax, x),
                lm_sql_op_text(e->op), lm_pg_type_name(item_of(a->type)));
      lm_err_state(c->err, "42883");
      return NULL;
    }
  } else if (lm_bind_is_unknown(aa, a) || a->type.id == LM_TYPE_NULL) {
    it = lm_bind_is_unknown(ax, x) || x->type.id == LM_TYPE_NULL
             ? lm_type_make(LM_TYPE_UTF8)
             : x->type;
  } else {
    lm_err_at(c->err, LM_ERR_BIND, e->op_line ? e->op_line : e->line,
              e->op_line ? e->op_column : e->column,
              "op ANY/ALL (array) requires array on right side");
    lm_err_state(c->err, "42809"); /* at the operator, as PostgreSQL */
    return NULL;
  }
  if (lm_type_is_bpchar(it))
    it = lm_type_make(LM_TYPE_UTF8);
  lm_type lt;
  if (!lm_bind_list_of(it, &lt))
    return list_type_fail(c, e);
  lm_bexpr *r = node(c, e, LM_FN_ARR_ANY, lm_type_make(LM_TYPE_BOOL), 2);
  if (!r || !(r->args[0] = lm_bind_cast(c, x, it)) ||
      !(r->args[1] = lm_bind_cast(c, a, lt)))
    return NULL;
  r->op = e->op;
  r->negated = !strcmp(e->name, "__all");
  return r;
}

/* x [NOT] [I]LIKE / ~ / ~* / !~ / !~* ANY|ALL (arr): x as text, arr as
 * text[] (a quoted literal is read as one); LM_FN_ARR_ANY_MATCH's op
 * (lm_plan.h). */
static lm_bexpr *bind_any_match(lm_bctx *c, const lm_expr *e, lm_bexpr **args) {
  lm_bexpr *x = args[0], *a = args[1];
  lm_type txt = lm_type_make(LM_TYPE_UTF8), lt;
  if (!lm_bind_list_of(txt, &lt))
    return list_type_fail(c, e);
  if (!is_list(a->type) && !lm_bind_is_unknown(e->args[1], a) &&
      a->type.id != LM_TYPE_NULL) {
    lm_err_at(c->err, LM_ERR_BIND, e->op_line ? e->op_line : e->line,
              e->op_line ? e->op_column : e->column,
              "op ANY/ALL (array) requires array on right side");
    lm_err_state(c->err, "42809");
    return NULL;
  }
  if (!lm_type_is_bpchar(x->type))
    x = lm_bind_cast(c, x, txt);
  lm_bexpr *r = node(c, e, LM_FN_ARR_ANY_MATCH, lm_type_make(LM_TYPE_BOOL), 2);
  if (!r || !(r->args[0] = x) || !(r->args[1] = lm_bind_cast(c, a, lt)))
    return NULL;
  r->op = e->op != LM_OP_NONE ? e->op : e->negated ? LM_OP_NE : LM_OP_EQ;
  r->icase = e->icase;
  r->negated = !strcmp(e->name, "__all_match");
  if (r->op >= LM_OP_REGEX && r->op <= LM_OP_NOT_REGEX_I) {
    r->icase = false;
    if (!lm_type_is_bpchar(x->type))
      return r;
    if (!(r->args[0] = lm_bind_cast(c, x, txt)))
      return NULL;
  }
  return r;
}

static const struct {
  const char *name;
  lm_func_id fn;
  int min, max;
} fns[] = {
    {"array_length", LM_FN_ARR_LENGTH, 2, 2},
    {"array_upper", LM_FN_ARR_LENGTH, 2, 2},
    {"array_lower", LM_FN_ARR_LOWER, 2, 2},
    {"cardinality", LM_FN_ARR_CARDINALITY, 1, 1},
    {"array_ndims", LM_FN_ARR_NDIMS, 1, 1},
    {"array_dims", LM_FN_ARR_DIMS, 1, 1},
    {"array_position", LM_FN_ARR_POSITION, 2, 3},
    {"array_positions", LM_FN_ARR_POSITIONS, 2, 2},
    {"array_append", LM_FN_ARR_APPEND, 2, 2},
    {"array_prepend", LM_FN_ARR_PREPEND, 2, 2},
    {"array_cat", LM_FN_ARR_CAT, 2, 2},
    {"array_remove", LM_FN_ARR_REMOVE, 2, 2},
    {"array_replace", LM_FN_ARR_REPLACE, 3, 3},
    {"array_to_string", LM_FN_ARR_TO_STRING, 2, 3},
    {"string_to_array", LM_FN_STRING_TO_ARRAY, 2, 3},
    {"trim_array", LM_FN_ARR_TRIM, 2, 2},
    {"__array", LM_FN_ARR_CTOR, 0, -1},
    {"__subscript", LM_FN_ARR_SUBSCRIPT, 2, 2},
    {"__slice", LM_FN_ARR_SLICE, 3, 3},
    {"__any", LM_FN_ARR_ANY, 2, 2},
    {"__all", LM_FN_ARR_ANY, 2, 2},
    {"__any_match", LM_FN_ARR_ANY_MATCH, 2, 2},
    {"__all_match", LM_FN_ARR_ANY_MATCH, 2, 2},
    {"__array_item", LM_FN_ARR_ITEM_TEXT, 1, 1},
    {"__array_dkey", LM_FN_ARR_DKEY, 3, 3},
    {"regexp_match", LM_FN_REGEXP_MATCH, 0, -1},
    {"regexp_split_to_array", LM_FN_REGEXP_MATCH, 0, -1},
};

bool lm_bind_is_array_fn(const char *name) {
  if (!name)
    return false;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(name, fns[i].name))
      return true;
  return false;
}

/* args[k] as an array: its type, or an error naming the function. */
static bool need_list(lm_bctx *c, const lm_expr *e, int k, lm_bexpr **args) {
  if (is_list(args[k]->type))
    return true;
  if (args[k]->type.id == LM_TYPE_NULL) {
    lm_bind_fail(c, e,
                 "could not determine polymorphic type because input "
                 "has type unknown",
                 NULL, NULL);
    lm_err_state(c->err, "42804");
    return false;
  }
  char sig[200];
  snprintf(sig, sizeof sig, "%s(%s%s", e->name,
           lm_bind_pg_type_of(e->args[0], args[0]),
           e->n_args > 1 ? ", ...)" : ")");
  lm_bind_fail(c, e, "function %s does not exist", sig, NULL);
  lm_err_state(c->err, "42883");
  return false;
}

/* jsonb subscripting (PostgreSQL 14+): j[k1][k2] is j #> {k1,k2}: each
 * subscript, as text, names a member or (read as an integer) indexes an
 * array; NULL when absent. No slices, no other subscript types (42804). */
static lm_bexpr *jsonb_subscript(lm_bctx *c, const lm_expr *e, int fn,
                                 lm_bexpr **args) {
  if (fn == LM_FN_ARR_SLICE) {
    lm_bind_fail(c, e, "jsonb subscript does not support slices", NULL, NULL);
    lm_err_state(c->err, "42804");
    return NULL;
  }
  lm_bexpr *r = args[0];
  for (int i = 1; i < e->n_args && r; i++) {
    lm_type t = args[i]->type;
    if (!lm_type_is_integer(t) && t.id != LM_TYPE_UTF8 &&
        t.id != LM_TYPE_NULL && !lm_bind_is_unknown(e->args[i], args[i])) {
      lm_bind_fail(c, e->args[i], "subscript type %s is not supported",
                   lm_bind_pg_type_of(e->args[i], args[i]), NULL);
      lm_err_state(c->err, "42804");
      lm_err_hint(c->err, "jsonb subscript must be coercible to either "
                          "integer or text.");
      return NULL;
    }
    lm_bexpr *k = lm_bind_cast(c, args[i], lm_type_make(LM_TYPE_UTF8));
    r = k ? lm_bind_other_op(c, e, LM_OP_JSON_GET, r, k) : NULL;
    if (r)
      r->negated = false; /* #>'s path step: a key, or an array index */
  }
  return r;
}

lm_bexpr *lm_bind_array_fn(lm_bctx *c, const lm_expr *e) {
  int k = -1;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(e->name, fns[i].name))
      k = (int)i;
  if (e->n_args < fns[k].min || (fns[k].max >= 0 && e->n_args > fns[k].max)) {
    lm_bind_fail(c, e,
                 "function %s() does not exist (wrong number of "
                 "arguments)",
                 e->name, NULL);
    lm_err_state(c->err, "42883");
    return NULL;
  }
  lm_func_id fn = fns[k].fn;
  if (fn == LM_FN_REGEXP_MATCH) {
    /* text[]: expr_regexfn.c's text form of the match, read back */
    lm_bexpr *m = lm_bind_func(c, e);
    lm_type tt;
    /* regexp_split_to_array: the pieces (expr_regexfn.c split_row) */
    if (m && m->kind == LM_BX_FUNC && m->fn == LM_FN_REGEXP_MATCH &&
        !strcmp(e->name, "regexp_split_to_array"))
      m->negated = true;
    if (!m || m->type.id != LM_TYPE_UTF8 ||
        !lm_bind_list_of(lm_type_make(LM_TYPE_UTF8), &tt))
      return m;
    return lm_bind_cast(c, m, tt);
  }
  lm_bexpr **args =
      lm_arena_alloc(c->arena, sizeof *args * (size_t)(e->n_args + 1));
  if (!args) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  int omitted = 0;
  for (int i = 0; i < e->n_args; i++) {
    if (e->args[i]->kind == LM_EXPR_STAR && fn == LM_FN_ARR_SLICE) {
      omitted |= i; /* 1: lo, 2: hi */
      args[i] = lm_bind_int64_lit(c, e, 0);
    } else
      args[i] = lm_bind_expr(c, e->args[i]);
    if (!args[i])
      return NULL;
  }
  lm_type i32 = lm_type_make(LM_TYPE_INT32), i64 = lm_type_make(LM_TYPE_INT64),
          txt = lm_type_make(LM_TYPE_UTF8), t;
  lm_bexpr *r = NULL;
  switch (fn) {
  case LM_FN_ARR_CTOR:
    return bind_ctor(c, e, args);
  case LM_FN_ARR_ANY:
    return bind_any(c, e, args);
  case LM_FN_ARR_ANY_MATCH:
    return bind_any_match(c, e, args);
  case LM_FN_ARR_ITEM_TEXT:
    if (!(r = node(c, e, fn, txt, 1)))
      return NULL;
    r->args[0] = args[0];
    return r;
  case LM_FN_ARR_DKEY: /* distinct_agg_bind.c's (x, item text, flag) */
    if (!(r = node(c, e, fn, txt, 3)))
      return NULL;
    for (int i = 0; i < 3; i++)
      r->args[i] = args[i];
    return r;
  case LM_FN_ARR_SUBSCRIPT:
  case LM_FN_ARR_SLICE:
    if (lm_type_is_jsonb(args[0]->type)) /* j['k'][0] */
      return jsonb_subscript(c, e, fn, args);
    if (!is_list(args[0]->type)) {
      lm_bind_fail(c, e->args[0],
                   "cannot subscript type %s because it does not support "
                   "subscripting",
                   lm_bind_pg_type_of(e->args[0], args[0]), NULL);
      lm_err_state(c->err, "42804");
      return NULL;
    }
    t = fn == LM_FN_ARR_SLICE ? args[0]->type : item_of(args[0]->type);
    if (!(r = node(c, e, fn, t, e->n_args)))
      return NULL;
    r->args[0] = args[0];
    for (int i = 1; i < e->n_args; i++) {
      lm_type_id st = args[i]->type.id;
      if (!lm_type_is_integer(args[i]->type) && st != LM_TYPE_NULL &&
          st != LM_TYPE_FLOAT32 && st != LM_TYPE_FLOAT64 &&
          st != LM_TYPE_DECIMAL128 &&
          !lm_bind_is_unknown(e->args[i], args[i])) {
        lm_bind_fail(c, e->args[i], "array subscript must have type integer",
                     NULL, NULL);
        lm_err_state(c->err, "42804");
        return NULL;
      }
      /* PostgreSQL coerces a subscript to integer: numeric rounds (1.6 is
       * 2, 2.5 is 3), a value beyond it is 22003 "integer out of range" */
      lm_bexpr *exact =
          args[i]->lit_text ? lm_bind_lit_exact(c, args[i]) : NULL;
      if (exact)
        args[i] = exact;
      if (!(r->args[i] = lm_bind_cast(
                c, lm_bind_cast(c, args[i], lm_type_make(LM_TYPE_INT32)), i64)))
        return NULL;
    }
    r->tlen = omitted;
    return r;
  case LM_FN_STRING_TO_ARRAY:
    if (!lm_bind_list_of(txt, &t) || !(r = node(c, e, fn, t, e->n_args)))
      return NULL;
    for (int i = 0; i < e->n_args; i++)
      if (!(r->args[i] = lm_bind_cast(c, args[i], txt)))
        return NULL;
    return r;
  case LM_FN_ARR_PREPEND: {
    if (args[1]->type.id == LM_TYPE_NULL && /* array_prepend(x, NULL) */
        lm_bind_list_of(lm_bind_num_type(args[0]), &t))
      args[1] = lm_bind_cast(c, args[1], t);
    if (!need_list(c, e, 1, args))
      return NULL;
    lm_type m;
    if (!merge_items(item_of(args[1]->type), args[0]->type, &m) ||
        !lm_bind_list_of(m, &t)) {
      lm_bind_fail(c, e, "function array_prepend(%s, %s) does not exist",
                   lm_bind_pg_type_of(e->args[0], args[0]),
                   lm_pg_type_name(args[1]->type));
      lm_err_state(c->err, "42883");
      return NULL;
    }
    if (!(r = node(c, e, fn, t, 2)) ||
        !(r->args[0] = lm_bind_cast(c, args[0], m)) ||
        !(r->args[1] = lm_bind_cast(c, args[1], t)))
      return NULL;
    return r;
  }
  case LM_FN_ARR_CAT: {
    lm_type lt;
    if (!pair_type(e->args[0], args[0], e->args[1], args[1], &lt)) {
      if (!is_list(args[0]->type) && !is_list(args[1]->type))
        return need_list(c, e, 0, args) ? NULL : NULL;
      lm_bind_fail(c, e, "function array_cat(%s, %s) does not exist",
                   lm_bind_pg_type_of(e->args[0], args[0]),
                   lm_bind_pg_type_of(e->args[1], args[1]));
      lm_err_state(c->err, "42883");
      return NULL;
    }
    if (!(r = node(c, e, fn, lt, 2)) ||
        !(r->args[0] = to_list(c, e->args[0], args[0], lt)) ||
        !(r->args[1] = to_list(c, e->args[1], args[1], lt)))
      return NULL;
    return r;
  }
  default:
    break;
  }
  /* the rest take an array first; array_append(NULL, x) is {x} */
  if (fn == LM_FN_ARR_APPEND && args[0]->type.id == LM_TYPE_NULL &&
      lm_bind_list_of(lm_bind_num_type(args[1]), &t))
    args[0] = lm_bind_cast(c, args[0], t);
  if (!need_list(c, e, 0, args))
    return NULL;
  lm_type lt = args[0]->type, it = item_of(lt);
  switch (fn) {
  case LM_FN_ARR_LENGTH:
  case LM_FN_ARR_LOWER:
  case LM_FN_ARR_CARDINALITY:
  case LM_FN_ARR_NDIMS:
    t = i32;
    break;
  case LM_FN_ARR_DIMS:
  case LM_FN_ARR_TO_STRING:
    t = txt;
    break;
  case LM_FN_ARR_POSITION:
    t = i32;
    break;
  case LM_FN_ARR_POSITIONS:
    if (!lm_bind_list_of(i32, &t))
      return NULL;
    break;
  default:
    t = lt;
  }
  if (!(r = node(c, e, fn, t, e->n_args)))
    return NULL;
  r->args[0] = args[0];
  for (int i = 1; i < e->n_args; i++) {
    lm_type want = i64;
    if (fn == LM_FN_ARR_TO_STRING)
      want = txt;
    else if ((fn == LM_FN_ARR_POSITION && i == 1) ||
             fn == LM_FN_ARR_POSITIONS || fn == LM_FN_ARR_APPEND ||
             fn == LM_FN_ARR_REMOVE || fn == LM_FN_ARR_REPLACE) {
      want = it;
      if (!lm_bind_is_unknown(e->args[i], args[i]) &&
          args[i]->type.id != LM_TYPE_NULL) {
        lm_type m;
        if (!merge_items(it, args[i]->type, &m) ||
            !lm_type_eq(m, it)) { /* widen the array to the item */
          if (!merge_items(it, args[i]->type, &m) || !lm_bind_list_of(m, &lt)) {
            lm_bind_fail(c, e, "function %s(%s, ...) does not exist", e->name,
                         lm_pg_type_name(args[0]->type));
            lm_err_state(c->err, "42883");
            return NULL;
          }
          it = m;
          if (!(r->args[0] = lm_bind_cast(c, r->args[0], lt)))
            return NULL;
          if (r->type.id == LM_TYPE_LIST && fn != LM_FN_ARR_POSITIONS)
            r->type = lt;
          for (int j = 1; j < i; j++)
            if (j != 2 || fn != LM_FN_ARR_POSITION)
              if (!(r->args[j] = lm_bind_cast(c, r->args[j], it)))
                return NULL;
        }
        want = it;
      }
    }
    if (!(r->args[i] = lm_bind_cast(c, args[i], want)))
      return NULL;
  }
  return r;
}

lm_bexpr *lm_bind_array_agg(lm_bctx *c, const lm_expr *e,
                            lm_bexpr *(*agg)(lm_bctx *, const lm_expr *)) {
  if (e->n_args != 1 || e->args[0]->kind == LM_EXPR_STAR) {
    lm_bind_fail(c, e,
                 "function array_agg() does not exist (it takes one "
                 "argument)",
                 NULL, NULL);
    lm_err_state(c->err, "42883");
    return NULL;
  }
  /* the item type: x bound over the aggregate's input */
  lm_bctx in = *c;
  in.post = false;
  in.plan = NULL;
  in.in = c->plan->input_schema;
  lm_bexpr *x = lm_bind_expr(&in, e->args[0]);
  if (!x)
    return NULL;
  lm_type t = x->type;
  if (t.id == LM_TYPE_NULL || lm_bind_is_unknown(e->args[0], x) ||
      lm_type_is_bpchar(t))
    t = lm_type_make(LM_TYPE_UTF8);
  lm_type lt;
  if (is_list(t)) {
    /* PostgreSQL: a 2-D array (ARRAY(SELECT ARRAY[1,2]) too) */
    lm_bind_fail(c, e->args[0],
                 "multidimensional arrays are not supported: array_agg of "
                 "an array (or ARRAY(SELECT an array)) would make one",
                 NULL, NULL);
    lm_err_state(c->err, "0A000");
    return NULL;
  }
  if (!lm_bind_list_of(t, &lt))
    return list_type_fail(c, e);
  /* string_agg(__array_item(x), ',' ...), its text read as the array */
  lm_expr *item = lm_arena_alloc(c->arena, sizeof *item);
  lm_expr *sep = lm_arena_alloc(c->arena, sizeof *sep);
  lm_expr *sa = lm_arena_alloc(c->arena, sizeof *sa);
  lm_expr **ia = lm_arena_alloc(c->arena, sizeof *ia);
  lm_expr **sargs = lm_arena_alloc(c->arena, 2 * sizeof *sargs);
  if (!item || !sep || !sa || !ia || !sargs) {
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(item, 0, sizeof *item);
  item->kind = LM_EXPR_FUNC;
  item->line = e->args[0]->line;
  item->column = e->args[0]->column;
  item->name = "__array_item";
  ia[0] = e->args[0];
  item->args = ia;
  item->n_args = 1;
  memset(sep, 0, sizeof *sep);
  sep->kind = LM_EXPR_LITERAL;
  sep->lit = LM_LIT_STRING;
  sep->text = ",";
  sep->line = e->line;
  sep->column = e->column;
  *sa = *e;
  sa->name = "string_agg";
  sargs[0] = item;
  sargs[1] = sep;
  sa->args = sargs;
  sa->n_args = 2;
  /* DISTINCT: the items in x's order (distinct_agg_bind.c) */
  lm_bexpr *s = e->distinct ? lm_bind_distinct_items(c, e, x, item, ",", agg)
                            : agg(c, sa);
  if (!s)
    return NULL;
  lm_type txt = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *lb = lm_bind_node(c, LM_BX_LITERAL, txt, e, 0),
           *rb = lm_bind_node(c, LM_BX_LITERAL, txt, e, 0);
  if (!lb || !rb)
    return NULL;
  lb->lit.type = rb->lit.type = txt;
  lb->lit.v.s.p = "{";
  rb->lit.v.s.p = "}";
  lb->lit.v.s.len = rb->lit.v.s.len = 1;
  lm_bexpr *cat = lm_bind_node(c, LM_BX_BINARY, txt, e, 2);
  lm_bexpr *cat2 = lm_bind_node(c, LM_BX_BINARY, txt, e, 2);
  lm_bexpr *r = lm_bind_node(c, LM_BX_CAST, lt, e, 1);
  if (!cat || !cat2 || !r)
    return NULL;
  cat->op = cat2->op = LM_OP_CONCAT;
  cat->args[0] = lb;
  cat->args[1] = s;
  cat2->args[0] = cat;
  cat2->args[1] = rb;
  r->args[0] = cat2;
  return r;
}
