/*
 * Binding of the SQL types json and jsonb (docs/types.md "JSON",
 * docs/functions.md "JSON"): their operators (-> ->> #> #>> ? ?| ?& @> <@
 * || -), functions (to_json, json_build_object, jsonb_set ...) and the
 * casts PostgreSQL refuses. Evaluated by exec/expr_json2.c (and -> / ->>
 * by exec/expr_jsonfn.c).
 */
#include <stdio.h>
#include <string.h>

#include "exec/lm_strfn.h"
#include "plan/array_bind.h"
#include "plan/bind_internal.h"

static bool is_json(const lm_bexpr *x) {
  return lm_type_is_json(x->type);
}

static lm_type text_t(void) {
  return lm_type_make(LM_TYPE_UTF8);
}

/* A path or key-list argument: text (a SQL array as its text form). */
static lm_bexpr *as_text(lm_bctx *c, lm_bexpr *x) {
  return lm_bind_cast(c, x, text_t());
}

static lm_bexpr *node(lm_bctx *c, const lm_expr *e, lm_func_id fn, lm_type t,
                      lm_bexpr *a, lm_bexpr *b) {
  if (!a || (!b && fn != LM_FN_JSON_TYPEOF))
    return NULL;
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, t, e, b ? 2 : 1);
  if (!r)
    return NULL;
  r->fn = fn;
  r->args[0] = a;
  if (b)
    r->args[1] = b;
  return r;
}

/* A decimal literal (1.50) as its exact DECIMAL: PostgreSQL's numeric,
 * printed with its digits by to_json. */
static lm_bexpr *value_arg(lm_bctx *c, lm_bexpr *x) {
  if (x->type.id == LM_TYPE_NULL)
    return lm_bind_cast(c, x, text_t());
  if (x->kind == LM_BX_LITERAL && x->lit_text) {
    lm_bexpr *d = lm_bind_lit_exact(c, x);
    if (d)
      return d;
  }
  return x;
}

static bool unknown_side(const lm_expr *e, int k, const lm_bexpr *x) {
  return e && e->kind == LM_EXPR_BINARY && e->n_args == 2 &&
         lm_bind_is_unknown(e->args[k], x);
}

bool lm_bind_json_op(lm_bctx *c, const lm_expr *e, lm_op op, lm_bexpr *a,
                     lm_bexpr *b, lm_bexpr **out) {
  *out = NULL;
  lm_type jb = lm_type_json(true);
  switch (op) {
  case LM_OP_JSON_PATH:
  case LM_OP_JSON_PATH_TEXT: {
    if (!is_json(a))
      a = lm_bind_cast(c, a, lm_type_json(false));
    lm_type rt = op == LM_OP_JSON_PATH ? a ? a->type : jb : text_t();
    *out = node(c, e,
                op == LM_OP_JSON_PATH ? LM_FN_JSON_PATH : LM_FN_JSON_PATH_TEXT,
                rt, a, as_text(c, b));
    return true;
  }
  case LM_OP_JSON_EXISTS:
  case LM_OP_JSON_EXISTS_ANY:
  case LM_OP_JSON_EXISTS_ALL:
    *out =
        node(c, e,
             op == LM_OP_JSON_EXISTS       ? LM_FN_JSONB_EXISTS
             : op == LM_OP_JSON_EXISTS_ANY ? LM_FN_JSONB_EXISTS_ANY
                                           : LM_FN_JSONB_EXISTS_ALL,
             lm_type_make(LM_TYPE_BOOL), lm_bind_cast(c, a, jb), as_text(c, b));
    return true;
  case LM_OP_CONTAINS:
  case LM_OP_CONTAINED:
    if (!is_json(a) && !is_json(b))
      return false;
    if (op == LM_OP_CONTAINED) {
      lm_bexpr *t = a;
      a = b;
      b = t;
    }
    *out = node(c, e, LM_FN_JSONB_CONTAINS, lm_type_make(LM_TYPE_BOOL),
                lm_bind_cast(c, a, jb), lm_bind_cast(c, b, jb));
    return true;
  case LM_OP_CONCAT:
    /* jsonb || jsonb (a quoted literal is read as jsonb, as PostgreSQL) */
    if (!((lm_type_is_jsonb(a->type) &&
           (lm_type_is_jsonb(b->type) || unknown_side(e, 1, b))) ||
          (lm_type_is_jsonb(b->type) && unknown_side(e, 0, a))))
      return false;
    *out = node(c, e, LM_FN_JSONB_CONCAT, jb, lm_bind_cast(c, a, jb),
                lm_bind_cast(c, b, jb));
    return true;
  case LM_OP_SUB:
    if (!lm_type_is_jsonb(a->type))
      return false;
    /* jsonb - text[]: every listed key, the array passed in its text form
     * (negated marks it) */
    bool keys = lm_bind_is_array_type(b->type) &&
                b->type.node->children[0].type.id == LM_TYPE_UTF8;
    if (lm_type_is_integer(b->type))
      b = lm_bind_cast(c, b, lm_type_make(LM_TYPE_INT64));
    else
      b = as_text(c, b);
    *out = node(c, e, LM_FN_JSONB_DELETE, jb, a, b);
    if (*out)
      (*out)->negated = keys;
    return true;
  case LM_OP_JSON_DELETE_PATH:
    /* jsonb #- text[] (a quoted literal: jsonb, the path its text) */
    if (!lm_type_is_jsonb(a->type) && !unknown_side(e, 0, a)) {
      lm_bind_op_undefined(c, e, op, a, b, false); /* 42883 */
      return true;
    }
    *out = node(c, e, LM_FN_JSONB_DELETE_PATH, jb, lm_bind_cast(c, a, jb),
                as_text(c, b));
    return true;
  default:
    return false;
  }
}

/* json_typeof(x) and the other one-argument functions: x as json (jsonb
 * for the jsonb_ names) unless it is json or jsonb already. */
static lm_bexpr *one(lm_bctx *c, const lm_expr *e, lm_bexpr *x, bool jsonb,
                     lm_func_id fn, lm_type rt) {
  if (!is_json(x) || (jsonb && !lm_type_is_jsonb(x->type)))
    x = lm_bind_cast(c, x, lm_type_json(jsonb));
  if (!x)
    return NULL;
  lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, rt, e, 1);
  if (!r)
    return NULL;
  r->fn = fn;
  r->args[0] = x;
  return r;
}

bool lm_bind_json_func(lm_bctx *c, const lm_expr *e, lm_bexpr **args,
                       lm_bexpr **out) {
  const char *n = e->name;
  int na = e->n_args;
  if (strncmp(n, "json", 4) && strncmp(n, "to_json", 7))
    return false;
  bool b = !strncmp(n, "jsonb", 5) || !strcmp(n, "to_jsonb");
  const char *base = !strncmp(n, "to_", 3) ? n : n + (b ? 5 : 4);
  lm_type jt = lm_type_json(b);
  *out = NULL;
  if (!strcmp(base, "_typeof") && na == 1) {
    *out = one(c, e, args[0], b, LM_FN_JSON_TYPEOF, text_t());
  } else if (!strcmp(base, "_array_length") && na == 1) {
    *out = one(c, e, args[0], b, LM_FN_JSON_ARRAY_LENGTH,
               lm_type_make(LM_TYPE_INT32));
  } else if (!strcmp(base, "_pretty") && na == 1 && b) {
    *out = one(c, e, args[0], true, LM_FN_JSONB_PRETTY, text_t());
  } else if (!strcmp(base, "_strip_nulls") && na == 1) {
    *out = one(c, e, args[0], b, LM_FN_JSON_STRIP_NULLS, jt);
  } else if (!strncmp(n, "json:agg_item", 13) && (na == 1 || na == 2)) {
    /* json_agg's items (json_agg_bind.c): text, the key as text;
     * json:agg_item_nl: "\n " before a non-NULL value */
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, text_t(), e, na);
    if (!r)
      return true;
    r->fn = LM_FN_JSON_AGG_ITEM;
    r->negated = n[13] == '_'; /* _auto (api/over_json.c): for an array */
    if (!strcmp(n + 13, "_auto"))
      r->negated = args[0]->type.id == LM_TYPE_LIST;
    if (na == 2 && !(args[0] = as_text(c, args[0])))
      return true;
    for (int k = 0; k < na; k++)
      if (!(r->args[k] = value_arg(c, args[k])))
        return true;
    *out = r;
  } else if ((!strcmp(n, "to_json") || !strcmp(n, "to_jsonb")) && na == 1) {
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, jt, e, 1);
    if (!r)
      return true;
    r->fn = LM_FN_TO_JSON;
    r->args[0] = value_arg(c, args[0]);
    *out = r;
  } else if (!strcmp(base, "_build_object") || !strcmp(base, "_build_array")) {
    bool obj = base[7] == 'o';
    if (obj && na % 2) {
      lm_bind_fail(c, e, "argument list must have even number of elements",
                   NULL, NULL);
      lm_err_state(c->err, "22023");
      return true;
    }
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, jt, e, na);
    if (!r)
      return true;
    r->fn = obj ? LM_FN_JSON_BUILD_OBJECT : LM_FN_JSON_BUILD_ARRAY;
    for (int k = 0; k < na; k++) {
      r->args[k] = value_arg(c, args[k]);
      if (!r->args[k])
        return true;
    }
    *out = r;
  } else if ((!strcmp(n, "jsonb_set") || !strcmp(n, "jsonb_insert")) &&
             (na == 3 || na == 4)) {
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC, jt, e, na);
    if (!r)
      return true;
    r->fn = LM_FN_JSONB_SET;
    r->icase = n[6] == 'i'; /* jsonb_insert (expr_json2.c) */
    r->args[0] = lm_bind_cast(c, args[0], jt);
    r->args[1] = as_text(c, args[1]);
    r->args[2] = lm_bind_cast(c, args[2], jt);
    if (na == 4)
      r->args[3] = lm_bind_cast(c, args[3], lm_type_make(LM_TYPE_BOOL));
    for (int k = 0; k < na; k++)
      if (!r->args[k])
        return true;
    *out = r;
  } else if ((!strcmp(base, "_extract_path") ||
              !strcmp(base, "_extract_path_text")) &&
             na >= 1 &&
             (is_json(args[0]) || (e->args[0]->kind == LM_EXPR_LITERAL &&
                                   args[0]->type.id == LM_TYPE_UTF8))) {
    /* over json / jsonb: json_extract_path returns json (jsonb) */
    bool text = base[strlen(base) - 1] == 't';
    lm_bexpr *x = args[0]; /* a quoted literal is json (jsonb) */
    if (!is_json(x) || (b && !lm_type_is_jsonb(x->type)))
      x = lm_bind_cast(c, x, jt);
    lm_bexpr *r = lm_bind_node(c, LM_BX_FUNC,
                               text ? text_t()
                               : x  ? x->type
                                    : jt,
                               e, na);
    if (!r || !x)
      return true;
    r->fn = text ? LM_FN_JSON_GET_TEXT : LM_FN_JSON_GET;
    r->args[0] = x;
    for (int k = 1; k < na; k++)
      if (!(r->args[k] = as_text(c, args[k])))
        return true;
    *out = r;
  } else {
    return false;
  }
  return true;
}

int lm_bind_json_cast_check(lm_bctx *c, const lm_expr *e, const lm_bexpr *a,
                            lm_type to) {
  lm_type from = a->type;
  if (lm_type_eq(from, to) || from.id == LM_TYPE_NULL)
    return 0;
  char msg[160];
  const char *state = "42846";
  if (lm_type_is_jsonb(from) && a->kind == LM_BX_LITERAL && !a->lit.is_null &&
      to.id != LM_TYPE_UTF8) {
    /* a jsonb constant: its kind decides (NUMERIC's scale is read from
     * the number's text when binding) */
    const char *s = a->lit.v.s.p;
    int32_t l = a->lit.v.s.len, i = 0;
    while (i < l && s[i] == ' ')
      i++;
    char k = i < l ? s[i] : 'n';
    const char *kind = k == '{'               ? "object"
                       : k == '['             ? "array"
                       : k == '"'             ? "string"
                       : k == 'n'             ? "null"
                       : k == 't' || k == 'f' ? "boolean"
                                              : "numeric";
    bool want_bool = to.id == LM_TYPE_BOOL;
    if (strcmp(kind, want_bool ? "boolean" : "numeric")) {
      snprintf(msg, sizeof msg, "cannot cast jsonb %s to type %s", kind,
               to.id == LM_TYPE_DECIMAL128 ? "numeric" : lm_pg_type_name(to));
      state = "22023";
      goto fail;
    }
  }
  if (lm_type_is_json(to) && from.id != LM_TYPE_UTF8) {
    snprintf(msg, sizeof msg, "cannot cast type %s to %s",
             lm_bind_pg_type_of(e->n_args ? e->args[0] : NULL, a),
             lm_pg_type_name(to));
  } else if (lm_type_is_json(from) && to.id != LM_TYPE_UTF8 &&
             !(lm_type_is_jsonb(from) &&
               (to.id == LM_TYPE_BOOL || lm_type_is_integer(to) ||
                to.id == LM_TYPE_FLOAT32 || to.id == LM_TYPE_FLOAT64 ||
                to.id == LM_TYPE_DECIMAL128))) {
    snprintf(msg, sizeof msg, "cannot cast type %s to %s",
             lm_pg_type_name(from), lm_pg_type_name(to));
  } else {
    return 0;
  }
fail:
  if (e->op_line > 0 && !strcmp(state, "42846")) /* at the '::' */
    lm_err_at(c->err, LM_ERR_BIND, e->op_line, e->op_column, "%s", msg);
  else
    lm_bind_fail(c, e, "%s", msg, NULL);
  lm_err_state(c->err, state);
  return -1;
}
