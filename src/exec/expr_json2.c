/*
 * The SQL types json and jsonb (PostgreSQL 15's; docs/types.md "JSON",
 * docs/functions.md "JSON"): casts to and from them, and the functions and
 * operators bound in plan/json_bind.c (LM_FN_JSON_PATH .. LM_FN_JSONB_DELETE
 * in lm_plan.h). Values are JSON text in a UTF8 array whose type carries
 * the json / jsonb flag (lm_type_json): json keeps the text as given
 * (validated), jsonb holds PostgreSQL's normalized text (lm_jv_out), so
 * that printing, hashing and equality work on the text. Each row is parsed
 * into a tree in a per-call arena (exec/json_value.c) where a function
 * needs the structure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/expr_array.h" /* lm_cast_items */
#include "exec/lm_exec.h"
#include "exec/lm_jsonv.h"
#include "exec/lm_strfn.h"

typedef struct jctx {
  lm_arena ar;
  char detail[256];
} jctx;

static int bad_json(lm_error *err, const lm_bexpr *e, int rc,
                    const char *detail) {
  if (rc < 0)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc == 2) {
    lm_fn_error(err, e, "22P05", "unsupported Unicode escape sequence");
  } else if (rc == 3) {
    lm_fn_error(err, e, "54001", "stack depth limit exceeded");
    return LM_ERR_EXEC;
  } else if (rc == 4) { /* lm_jsonv.h: beyond numeric's range */
    lm_fn_error(err, e, "22003", "value overflows numeric format");
    return LM_ERR_EXEC;
  } else {
    lm_fn_error(err, e, "22P02", "invalid input syntax for type json");
  }
  lm_err_detail(err, "%s", detail);
  return LM_ERR_EXEC;
}

/* Parses row i of a (json or jsonb text: jsonb as stored is normalized). */
static int parse_row(jctx *c, const lm_bexpr *e, const lm_array *a, int64_t i,
                     bool jsonb, lm_jv **v, lm_error *err) {
  int32_t l;
  const char *s = lm_array_str(a, i, &l);
  int rc =
      lm_jv_parse(&c->ar, s, (size_t)l, jsonb, v, c->detail, sizeof c->detail);
  return rc ? bad_json(err, e, rc, c->detail) : 0;
}

bool lm_json_cast_handles(lm_type from, lm_type to) {
  if (lm_type_eq(from, to))
    return false;
  return lm_type_is_json(to) ||
         (lm_type_is_json(from) && to.id != LM_TYPE_UTF8);
}

/* jsonb scalar to a number / boolean: PostgreSQL's jsonb casts */
static int cast_from_jsonb(jctx *c, const lm_bexpr *e, lm_array *a, lm_type to,
                           lm_array **out, lm_error *err) {
  int64_t n = a->length;
  lm_builder b;
  if (lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool want_bool = to.id == LM_TYPE_BOOL;
  bool want_int = lm_type_is_integer(to);
  int rc = 0;
  lm_buf t;
  lm_buf_init(&t);
  for (int64_t i = 0; i < n && !rc; i++) {
    if (lm_farg_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    lm_jv *v;
    lm_arena_reset(&c->ar);
    if ((rc = parse_row(c, e, a, i, true, &v, err)))
      break;
    bool ok = want_bool ? (v->kind == LM_JV_TRUE || v->kind == LM_JV_FALSE)
                        : v->kind == LM_JV_NUM;
    if (!ok) {
      const char *k = v->kind == LM_JV_NUM   ? "numeric"
                      : v->kind == LM_JV_ARR ? "array"
                                             : lm_jv_typeof(v->kind);
      rc = lm_fn_error(err, e, "22023", "cannot cast jsonb %s to type %s", k,
                       lm_pg_type_name(to));
      break;
    }
    if (want_bool) {
      lm_builder_append_str(&b, v->kind == LM_JV_TRUE ? "true" : "false",
                            v->kind == LM_JV_TRUE ? 4 : 5);
      continue;
    }
    const char *s = v->s;
    int32_t l = v->len;
    const char *dot = memchr(s, '.', (size_t)l);
    if (want_int && dot) { /* numeric to integer: half away from zero */
      lm_buf_reset(&t);
      int32_t il = (int32_t)(dot - s);
      lm_buf_append(&t, s, (size_t)il);
      if (dot[1] >= '5') {
        int32_t k = il - 1;
        while (k >= 0 && t.data[k] == '9')
          t.data[k--] = '0';
        if (k < 0 || t.data[k] == '-') {
          lm_buf_putc(&t, '0');
          memmove(t.data + k + 2, t.data + k + 1, (size_t)(il - k - 1));
          t.data[k + 1] = '1';
        } else {
          t.data[k]++;
        }
      }
      if (t.len == 2 && !memcmp(t.data, "-0", 2))
        lm_buf_reset(&t), lm_buf_putc(&t, '0');
      lm_builder_append_str(&b, t.data, (int32_t)t.len);
    } else {
      lm_builder_append_str(&b, s, l);
    }
  }
  lm_buf_free(&t);
  lm_array *txt = NULL;
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  if (lm_builder_finish(&b, &txt)) {
    lm_builder_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder_free(&b);
  rc = lm_cast_items(e, txt, to, out, err);
  lm_array_release(txt);
  return rc;
}

int lm_json_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                 lm_error *err) {
  jctx c;
  lm_arena_init(&c.ar, 4096);
  int rc = 0;
  if (!lm_type_is_json(to)) {
    if (lm_type_is_jsonb(a->type))
      rc = cast_from_jsonb(&c, e, a, to, out, err);
    else
      rc = lm_fn_error(err, e, "42846", "cannot cast type json to %s",
                       lm_pg_type_name(to));
    lm_arena_free(&c.ar);
    return rc;
  }
  if (a->type.id != LM_TYPE_UTF8) {
    lm_arena_free(&c.ar);
    return lm_fn_error(err, e, "42846", "cannot cast type %s to %s",
                       lm_pg_type_name(a->type), lm_pg_type_name(to));
  }
  bool jsonb = lm_type_is_jsonb(to);
  bool from_jsonb = lm_type_is_jsonb(a->type);
  int64_t n = a->length;
  lm_builder b;
  if (lm_builder_init(&b, to, n)) {
    lm_arena_free(&c.ar);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_buf o;
  lm_buf_init(&o);
  for (int64_t i = 0; i < n && !rc; i++) {
    if (lm_farg_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t l;
    const char *s = lm_array_str(a, i, &l);
    if (from_jsonb) { /* jsonb text is valid json */
      lm_builder_append_str(&b, s, l);
      continue;
    }
    lm_jv *v;
    lm_arena_reset(&c.ar);
    if ((rc = parse_row(&c, e, a, i, jsonb, &v, err)))
      break;
    if (!jsonb) {
      lm_builder_append_str(&b, s, l);
      continue;
    }
    lm_buf_reset(&o);
    if (lm_jv_out(&o, v, false)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    lm_builder_append_str(&b, o.data ? o.data : "", (int32_t)o.len);
  }
  lm_buf_free(&o);
  lm_arena_free(&c.ar);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  if (lm_builder_finish(&b, out)) {
    lm_builder_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder_free(&b);
  return 0;
}

/* ------------------------------------------------ functions, row by row */

typedef struct fctx {
  jctx j;
  lm_array **txt; /* per argument: its text form (to_json / build_*) */
  lm_buf tmp;
} fctx;

static int put_json_text(lm_buf *o, lm_type t, const char *s, int32_t l);

/* An array's text form s[0..l) ('{1,NULL,"a b"}', items of type it) as
 * PostgreSQL's to_json of the array: [1,null,"a b"]. */
static int put_json_array(lm_buf *o, lm_type it, const char *s, int32_t l) {
  lm_arena ar;
  lm_arena_init(&ar, 1024);
  const char **el;
  int32_t *ls, n;
  int rc = lm_jv_text_array(&ar, s, l, &el, &ls, &n);
  if (rc) { /* not expected: the array's own text form */
    lm_arena_free(&ar);
    return rc < 0 ? -1 : lm_jv_quote(o, s, (size_t)l);
  }
  rc = lm_buf_putc(o, '[');
  for (int32_t k = 0; k < n && !rc; k++) {
    if (k)
      rc = lm_buf_putc(o, ',');
    if (!rc)
      rc = !el[k] ? lm_buf_puts(o, "null") : put_json_text(o, it, el[k], ls[k]);
  }
  if (!rc)
    rc = lm_buf_putc(o, ']');
  lm_arena_free(&ar);
  return rc;
}

/* Appends a value of type t (not text, json or boolean) given as its text
 * form s[0..l) as JSON, PostgreSQL's to_json. */
static int put_json_text(lm_buf *o, lm_type t, const char *s, int32_t l) {
  if (t.id == LM_TYPE_BOOL)
    return lm_buf_puts(o, l > 0 && s[0] == 't' ? "true" : "false");
  if (lm_type_is_json(t))
    return lm_buf_append(o, s, (size_t)l);
  if (t.id == LM_TYPE_UTF8)
    return lm_jv_quote(o, s, (size_t)l);
  if (t.id == LM_TYPE_LIST && t.node)
    return put_json_array(o, t.node->children[0].type, s, l);
  if (lm_type_is_integer(t))
    return lm_buf_append(o, s, (size_t)l);
  if (t.id == LM_TYPE_FLOAT32 || t.id == LM_TYPE_FLOAT64 ||
      t.id == LM_TYPE_DECIMAL128) {
    /* NaN, [-]Infinity (float or numeric): a string, as PostgreSQL */
    bool word = l > 0 && (s[l - 1] == 'N' || s[l - 1] == 'y'); /* NaN, Inf */
    return word ? lm_jv_quote(o, s, (size_t)l) : lm_buf_append(o, s, (size_t)l);
  }
  if (t.id == LM_TYPE_TIMESTAMP) { /* ISO 8601: a T, a zone as +hh:mm */
    lm_buf iso;
    lm_buf_init(&iso);
    lm_buf_append(&iso, s, (size_t)l);
    char *sp = iso.data ? memchr(iso.data, ' ', iso.len) : NULL;
    if (sp)
      *sp = 'T';
    if (lm_type_is_tstz(t) && iso.len >= 3 &&
        (iso.data[iso.len - 3] == '+' || iso.data[iso.len - 3] == '-'))
      lm_buf_puts(&iso, ":00");
    int rc = lm_jv_quote(o, iso.data ? iso.data : "", iso.len);
    lm_buf_free(&iso);
    return rc;
  }
  return lm_jv_quote(o, s, (size_t)l);
}

/* Appends value i of argument array a (txt: its text form, for the types
 * that need one) as JSON, PostgreSQL's to_json. */
static int put_json_value(lm_buf *o, const lm_array *a, const lm_array *txt,
                          int64_t i) {
  if (lm_farg_null(a, i))
    return lm_buf_puts(o, "null");
  lm_type t = a->type;
  int32_t l;
  if (t.id == LM_TYPE_UTF8) {
    const char *s = lm_array_str(a, i, &l);
    if (lm_type_is_json(t))
      return lm_buf_append(o, s, (size_t)l);
    if (lm_type_is_bpchar(t))
      while (l > 0 && s[l - 1] == ' ')
        l--;
    return lm_jv_quote(o, s, (size_t)l);
  }
  if (t.id == LM_TYPE_BOOL)
    return lm_buf_puts(o, lm_array_get_i64(a, i) ? "true" : "false");
  const char *s = lm_array_str(txt, i, &l);
  return put_json_text(o, t, s, l);
}

/* Normalizes the json text in o into jsonb text (in place). */
static int to_jsonb_text(fctx *f, const lm_bexpr *e, lm_buf *o, lm_error *err) {
  lm_jv *v;
  lm_arena_reset(&f->j.ar);
  int rc = lm_jv_parse(&f->j.ar, o->data ? o->data : "", o->len, true, &v,
                       f->j.detail, sizeof f->j.detail);
  if (rc)
    return bad_json(err, e, rc, f->j.detail);
  lm_buf_reset(o);
  return lm_jv_out(o, v, false) ? lm_err(err, LM_ERR_NOMEM, "out of memory")
                                : 0;
}

/* A path (text[] literal text) into its steps; 22P02 when malformed. */
static int path_of(fctx *f, const lm_bexpr *e, const lm_array *a, int64_t i,
                   const char ***el, int32_t **ls, int32_t *n, lm_error *err) {
  int32_t l;
  const char *s = lm_array_str(a, i, &l);
  int rc = lm_jv_text_array(&f->j.ar, s, l, el, ls, n);
  if (rc < 0)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc)
    return lm_fn_error(err, e, "22P02", "malformed array literal: \"%.*s\"",
                       l > 60 ? 60 : (int)l, s);
  return 0;
}

static bool parse_index(const char *s, int32_t l, long long *out) {
  char num[24];
  if (!s || l <= 0 || l > 20)
    return false;
  memcpy(num, s, (size_t)l);
  num[l] = '\0';
  char *end;
  *out = strtoll(num, &end, 10);
  return *end == '\0';
}

/* One step of a path (#>, #>>): an object's member or an array's element
 * (an integer step, negative from the end). */
static const lm_jv *step_into(const lm_jv *v, const char *k, int32_t kl,
                              bool jsonb) {
  if (!k)
    return NULL;
  if (v->kind == LM_JV_OBJ) {
    if (jsonb)
      return lm_jv_get(v, k, kl);
    const lm_jv *hit = NULL; /* json: the last of equal keys */
    for (int32_t m = 0; m < v->n; m++)
      if (v->kids[2 * m].len == kl && !memcmp(v->kids[2 * m].s, k, (size_t)kl))
        hit = &v->kids[2 * m + 1];
    return hit;
  }
  long long idx;
  if (v->kind != LM_JV_ARR || !parse_index(k, kl, &idx))
    return NULL;
  if (idx < 0)
    idx += v->n;
  return idx >= 0 && idx < v->n ? &v->kids[idx] : NULL;
}

/* Appends v as json text (text: a string unescaped): a json value as
 * given, a jsonb one in jsonb's form. */
static int put_jv(lm_buf *o, const lm_jv *v, bool text, bool jsonb) {
  if (text && v->kind == LM_JV_STR)
    return lm_buf_append(o, v->s, (size_t)v->len);
  if (!jsonb && v->src)
    return lm_buf_append(o, v->src, (size_t)v->srclen);
  return lm_jv_out(o, v, false);
}

/* What set_path does at the path's end (PostgreSQL's setPath op_type):
 * jsonb_set replaces (and with create_missing adds a missing last key or
 * index), jsonb_insert puts nv before / after the element (an existing
 * object key is 22023), #- deletes. */
enum {
  JP_REPLACE = 1,
  JP_CREATE = 2, /* replace, or add what is missing */
  JP_DELETE = 4,
  JP_BEFORE = 8,
  JP_AFTER = 16,
};

/* PostgreSQL's setPath: step k of path el (n steps) into v, in place (new
 * arrays in the arena), doing op at the last step. A NULL step is 22004, a
 * step into an array that is not an integer 22P02; a missing step, or a
 * scalar on the way, changes nothing. An array index below the array
 * (negative beyond its length) adds nv first, one beyond it last. */
static int set_path(fctx *f, const lm_bexpr *e, lm_jv *v, const char **el,
                    const int32_t *ls, int32_t n, int32_t k, const lm_jv *nv,
                    int op, lm_error *err) {
  if (k >= n)
    return 0;
  bool last = k == n - 1;
  bool insert = op & (JP_BEFORE | JP_AFTER), add = insert || (op & JP_CREATE);
  if (!el[k])
    return lm_fn_error(err, e, "22004", "path element at position %d is null",
                       (int)k + 1);
  if (v->kind == LM_JV_OBJ) {
    lm_jv *hit = (lm_jv *)lm_jv_get(v, el[k], ls[k]);
    if (hit && !last)
      return set_path(f, e, hit, el, ls, n, k + 1, nv, op, err);
    if (hit && insert) {
      lm_fn_error(err, e, "22023", "cannot replace existing key");
      lm_err_hint(err, "Try using the function jsonb_set to replace key "
                       "value.");
      return LM_ERR_EXEC;
    }
    if (hit && (op & JP_DELETE)) { /* the pair out */
      int32_t at = (int32_t)(hit - v->kids) / 2;
      memmove(v->kids + 2 * at, v->kids + 2 * at + 2,
              sizeof(lm_jv) * 2 * (size_t)(v->n - at - 1));
      v->n--;
      return 0;
    }
    if (hit) {
      *hit = *nv;
      return 0;
    }
    if (!last || !add)
      return 0;
    lm_jv *kids =
        lm_arena_alloc(&f->j.ar, sizeof(lm_jv) * 2 * (size_t)(v->n + 1));
    if (!kids)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    if (v->n)
      memcpy(kids, v->kids, sizeof(lm_jv) * 2 * (size_t)v->n);
    kids[2 * v->n] = (lm_jv){LM_JV_STR, ls[k], el[k], 0, NULL, NULL, 0};
    kids[2 * v->n + 1] = *nv;
    v->kids = kids;
    v->n++;
    lm_jv_sort_object(v);
    return 0;
  }
  if (v->kind != LM_JV_ARR)
    return 0;
  long long idx;
  if (!parse_index(el[k], ls[k], &idx))
    return lm_fn_error(err, e, "22P02",
                       "path element at position %d is not an integer: "
                       "\"%.*s\"",
                       (int)k + 1, (int)ls[k], el[k]);
  bool below = idx < 0 && idx + v->n < 0;
  if (idx < 0 && !below)
    idx += v->n;
  bool in = !below && idx < v->n;
  if (in && !last)
    return set_path(f, e, &v->kids[idx], el, ls, n, k + 1, nv, op, err);
  if (in && (op & (JP_REPLACE | JP_CREATE))) {
    v->kids[idx] = *nv;
    return 0;
  }
  if (in && (op & JP_DELETE)) {
    memmove(v->kids + idx, v->kids + idx + 1,
            sizeof(lm_jv) * (size_t)(v->n - idx - 1));
    v->n--;
    return 0;
  }
  if (!last || (!in && !add))
    return 0;
  long long at =
      !in ? (below || v->n == 0 ? 0 : v->n) : idx + ((op & JP_AFTER) ? 1 : 0);
  lm_jv *kids = lm_arena_alloc(&f->j.ar, sizeof(lm_jv) * (size_t)(v->n + 1));
  if (!kids)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (at)
    memcpy(kids, v->kids, sizeof(lm_jv) * (size_t)at);
  kids[at] = *nv;
  if (v->n > at)
    memcpy(kids + at + 1, v->kids + at, sizeof(lm_jv) * (size_t)(v->n - at));
  v->kids = kids;
  v->n++;
  return 0;
}

static void strip_nulls(lm_jv *v) {
  if (v->kind == LM_JV_OBJ) {
    int32_t m = 0;
    for (int32_t i = 0; i < v->n; i++) {
      if (v->kids[2 * i + 1].kind == LM_JV_NULL)
        continue;
      strip_nulls(&v->kids[2 * i + 1]);
      v->kids[2 * m] = v->kids[2 * i];
      v->kids[2 * m + 1] = v->kids[2 * i + 1];
      m++;
    }
    v->n = m;
  } else if (v->kind == LM_JV_ARR) {
    for (int32_t i = 0; i < v->n; i++)
      strip_nulls(&v->kids[i]);
  }
}

static int json_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                    lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  fctx *f = ctx;
  lm_arena_reset(&f->j.ar);
  lm_buf_reset(o);
  int rc = 0;
  lm_jv *v = NULL;
  bool jsonb0 = e->n_args > 0 && lm_type_is_jsonb(a[0]->type);
  switch (e->fn) {
  case LM_FN_JSON_PATH:
  case LM_FN_JSON_PATH_TEXT: {
    const char **el;
    int32_t *ls, n;
    if ((rc = parse_row(&f->j, e, a[0], i, jsonb0, &v, err)) ||
        (rc = path_of(f, e, a[1], i, &el, &ls, &n, err)))
      return rc;
    const lm_jv *cur = v;
    for (int32_t k = 0; k < n && cur; k++)
      cur = step_into(cur, el[k], ls[k], jsonb0);
    bool text = e->fn == LM_FN_JSON_PATH_TEXT;
    if (!cur || (text && cur->kind == LM_JV_NULL && n > 0)) {
      lm_builder_append_null(b);
      return 0;
    }
    if (!jsonb0 && !text && cur == v) { /* the json as given */
      int32_t l;
      const char *s = lm_array_str(a[0], i, &l);
      lm_builder_append_str(b, s, l);
      return 0;
    }
    rc = put_jv(o, cur, text, jsonb0);
    break;
  }
  case LM_FN_JSONB_EXISTS:
  case LM_FN_JSONB_EXISTS_ANY:
  case LM_FN_JSONB_EXISTS_ALL: {
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)))
      return rc;
    int32_t l;
    const char *s = lm_array_str(a[1], i, &l);
    bool r;
    if (e->fn == LM_FN_JSONB_EXISTS) {
      r = lm_jv_exists(v, s, l);
    } else {
      const char **el;
      int32_t *ls, n;
      if ((rc = path_of(f, e, a[1], i, &el, &ls, &n, err)))
        return rc;
      bool any = e->fn == LM_FN_JSONB_EXISTS_ANY;
      r = !any;
      for (int32_t k = 0; k < n; k++) {
        if (!el[k])
          continue; /* PostgreSQL skips NULL elements */
        bool x = lm_jv_exists(v, el[k], ls[k]);
        if (any && x) {
          r = true;
          break;
        }
        if (!any && !x) {
          r = false;
          break;
        }
      }
    }
    lm_builder_append_bool(b, r);
    return 0;
  }
  case LM_FN_JSONB_CONTAINS: {
    lm_jv *w;
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)) ||
        (rc = parse_row(&f->j, e, a[1], i, true, &w, err)))
      return rc;
    lm_builder_append_bool(b, lm_jv_contains(v, w));
    return 0;
  }
  case LM_FN_JSON_TYPEOF:
    if ((rc = parse_row(&f->j, e, a[0], i, jsonb0, &v, err)))
      return rc;
    rc = lm_buf_puts(o, lm_jv_typeof(v->kind));
    break;
  case LM_FN_JSON_ARRAY_LENGTH:
    if ((rc = parse_row(&f->j, e, a[0], i, jsonb0, &v, err)))
      return rc;
    if (v->kind != LM_JV_ARR)
      return lm_fn_error(err, e, "22023", "cannot get array length of a %s",
                         v->kind == LM_JV_OBJ ? "non-array" : "scalar");
    lm_builder_append_int(b, v->n);
    return 0;
  case LM_FN_TO_JSON:
    if ((rc = put_json_value(o, a[0], f->txt[0], i)))
      break;
    if (lm_type_is_jsonb(e->type))
      rc = to_jsonb_text(f, e, o, err);
    break;
  case LM_FN_JSON_BUILD_OBJECT:
  case LM_FN_JSON_BUILD_ARRAY: {
    bool obj = e->fn == LM_FN_JSON_BUILD_OBJECT;
    lm_buf_putc(o, obj ? '{' : '[');
    for (int k = 0; k < e->n_args && !rc; k++) {
      if (k > 0)
        lm_buf_puts(o, obj && k % 2 ? " : " : ", ");
      if (obj && k % 2 == 0) {
        if (lm_farg_null(a[k], i)) {
          rc =
              lm_fn_error(err, e, "22004", "argument %d cannot be null", k + 1);
          break;
        }
        const lm_array *src = a[k]->type.id == LM_TYPE_UTF8 ? a[k] : f->txt[k];
        int32_t l;
        const char *s = lm_array_str(src, i, &l);
        rc = lm_jv_quote(o, s, (size_t)l);
      } else {
        rc = put_json_value(o, a[k], f->txt[k], i);
      }
    }
    if (rc)
      break;
    lm_buf_putc(o, obj ? '}' : ']');
    if (lm_type_is_jsonb(e->type))
      rc = to_jsonb_text(f, e, o, err);
    break;
  }
  case LM_FN_JSON_AGG_ITEM: /* json_agg's x, json_object_agg's "k" : v */
    if (e->n_args == 2) {
      if (lm_farg_null(a[0], i))
        return lm_fn_error(err, e, "22023", "field name must not be null%s",
                           "");
      int32_t l;
      const char *s = lm_array_str(a[0], i, &l);
      rc = lm_jv_quote(o, s, (size_t)l);
      if (!rc)
        rc = lm_buf_puts(o, " : ");
    }
    if (!rc && e->negated && !lm_farg_null(a[e->n_args - 1], i))
      rc = lm_buf_puts(o, "\n "); /* json_agg: before an array */
    if (!rc)
      rc = put_json_value(o, a[e->n_args - 1], f->txt[e->n_args - 1], i);
    break;
  case LM_FN_JSONB_SET: {
    lm_jv *nv;
    const char **el;
    int32_t *ls, n;
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)) ||
        (rc = path_of(f, e, a[1], i, &el, &ls, &n, err)) ||
        (rc = parse_row(&f->j, e, a[2], i, true, &nv, err)))
      return rc;
    bool flag = e->n_args == 4 && lm_array_get_i64(a[3], i) != 0;
    bool create = e->n_args < 4 || flag;
    if (v->kind != LM_JV_ARR && v->kind != LM_JV_OBJ)
      return lm_fn_error(err, e, "22023", "cannot set path in scalar");
    int op = e->icase ? (flag ? JP_AFTER : JP_BEFORE) /* jsonb_insert */
             : create ? JP_CREATE
                      : JP_REPLACE;
    if ((rc = set_path(f, e, v, el, ls, n, 0, nv, op, err)))
      return rc;
    rc = lm_jv_out(o, v, false);
    break;
  }
  case LM_FN_JSONB_PRETTY:
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)))
      return rc;
    rc = lm_jv_out(o, v, true);
    break;
  case LM_FN_JSON_STRIP_NULLS:
    if ((rc = parse_row(&f->j, e, a[0], i, jsonb0, &v, err)))
      return rc;
    strip_nulls(v);
    if (!jsonb0) { /* json: PostgreSQL prints it compactly */
      lm_buf t;
      lm_buf_init(&t);
      rc = lm_jv_out(&t, v, false);
      /* json_strip_nulls keeps json's text: no spaces */
      bool instr = false;
      for (size_t k = 0; k < t.len && !rc; k++) {
        char ch = t.data[k];
        if (ch == '"' && (k == 0 || t.data[k - 1] != '\\' ||
                          (k >= 2 && t.data[k - 2] == '\\')))
          instr = !instr;
        if (!instr && ch == ' ')
          continue;
        rc = lm_buf_putc(o, ch);
      }
      lm_buf_free(&t);
      break;
    }
    rc = lm_jv_out(o, v, false);
    break;
  case LM_FN_JSONB_CONCAT: {
    lm_jv *w;
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)) ||
        (rc = parse_row(&f->j, e, a[1], i, true, &w, err)))
      return rc;
    lm_jv r = {0};
    if (v->kind == LM_JV_OBJ && w->kind == LM_JV_OBJ) {
      r.kind = LM_JV_OBJ;
      r.n = v->n + w->n;
      r.kids = lm_arena_alloc(&f->j.ar, sizeof(lm_jv) * 2 * (size_t)(r.n + 1));
      if (!r.kids)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      for (int32_t k = 0; k < v->n; k++) {
        r.kids[2 * k] = v->kids[2 * k];
        r.kids[2 * k + 1] = v->kids[2 * k + 1];
      }
      for (int32_t k = 0; k < w->n; k++) {
        r.kids[2 * (v->n + k)] = w->kids[2 * k];
        r.kids[2 * (v->n + k) + 1] = w->kids[2 * k + 1];
      }
      lm_jv_sort_object(&r); /* the right one's keys win */
    } else {
      /* otherwise both as arrays (a scalar or object is one element) */
      int32_t nv = v->kind == LM_JV_ARR ? v->n : 1;
      int32_t nw = w->kind == LM_JV_ARR ? w->n : 1;
      r.kind = LM_JV_ARR;
      r.n = nv + nw;
      r.kids = lm_arena_alloc(&f->j.ar, sizeof(lm_jv) * (size_t)(r.n + 1));
      if (!r.kids)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      if (v->kind == LM_JV_ARR)
        memcpy(r.kids, v->kids, sizeof(lm_jv) * (size_t)nv);
      else
        r.kids[0] = *v;
      if (w->kind == LM_JV_ARR)
        memcpy(r.kids + nv, w->kids, sizeof(lm_jv) * (size_t)nw);
      else
        r.kids[nv] = *w;
    }
    rc = lm_jv_out(o, &r, false);
    break;
  }
  case LM_FN_JSONB_DELETE_PATH: { /* jsonb #- path */
    const char **el;
    int32_t *ls, n;
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)))
      return rc;
    if (v->kind != LM_JV_ARR && v->kind != LM_JV_OBJ)
      return lm_fn_error(err, e, "22023", "cannot delete path in scalar");
    if (v->n && (rc = path_of(f, e, a[1], i, &el, &ls, &n, err)))
      return rc;
    if (v->n && (rc = set_path(f, e, v, el, ls, n, 0, NULL, JP_DELETE, err)))
      return rc;
    rc = lm_jv_out(o, v, false);
    break;
  }
  case LM_FN_JSONB_DELETE: {
    if ((rc = parse_row(&f->j, e, a[0], i, true, &v, err)))
      return rc;
    bool by_index = a[1]->type.id != LM_TYPE_UTF8;
    if (by_index) {
      if (v->kind == LM_JV_OBJ)
        return lm_fn_error(err, e, "22023",
                           "cannot delete from object using integer index");
      if (v->kind != LM_JV_ARR)
        return lm_fn_error(err, e, "22023", "cannot delete from scalar");
      long long idx = lm_array_get_i64(a[1], i);
      if (idx < 0)
        idx += v->n;
      if (idx >= 0 && idx < v->n) {
        memmove(v->kids + idx, v->kids + idx + 1,
                sizeof(lm_jv) * (size_t)(v->n - idx - 1));
        v->n--;
      }
    } else {
      /* one key, or with e->negated every non-NULL item of a text[] */
      int32_t l, n_keys = 1, *ls = &l;
      const char *s = lm_array_str(a[1], i, &l), **el = &s;
      if (e->negated && (rc = path_of(f, e, a[1], i, &el, &ls, &n_keys, err)))
        return rc;
      if (v->kind != LM_JV_ARR && v->kind != LM_JV_OBJ)
        return lm_fn_error(err, e, "22023", "cannot delete from scalar");
      int32_t m = 0;
      bool obj = v->kind == LM_JV_OBJ;
      for (int32_t k = 0; k < v->n; k++) {
        const lm_jv *key = obj ? &v->kids[2 * k] : &v->kids[k];
        bool hit = false;
        for (int32_t q = 0; q < n_keys && !hit; q++)
          hit = el[q] && key->kind == LM_JV_STR && key->len == ls[q] &&
                !memcmp(key->s, el[q], (size_t)ls[q]);
        if (hit)
          continue;
        if (obj) {
          v->kids[2 * m] = v->kids[2 * k];
          v->kids[2 * m + 1] = v->kids[2 * k + 1];
        } else {
          v->kids[m] = v->kids[k];
        }
        m++;
      }
      v->n = m;
    }
    rc = lm_jv_out(o, v, false);
    break;
  }
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
  if (rc)
    return rc < 0 || rc == LM_ERR_NOMEM
               ? lm_err(err, LM_ERR_NOMEM, "out of memory")
               : rc;
  lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
  return 0;
}

int lm_json2_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  fctx f;
  memset(&f, 0, sizeof f);
  lm_arena_init(&f.j.ar, 4096);
  lm_buf_init(&f.tmp);
  int rc = 0;
  bool values = e->fn == LM_FN_TO_JSON || e->fn == LM_FN_JSON_BUILD_OBJECT ||
                e->fn == LM_FN_JSON_BUILD_ARRAY || e->fn == LM_FN_JSON_AGG_ITEM;
  /* to_json / json_build_*: the text form of arguments that are neither
   * text, json nor boolean (numbers, times), computed a batch at a time */
  if (values && e->n_args > 0) {
    f.txt = calloc((size_t)e->n_args, sizeof *f.txt);
    if (!f.txt)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < e->n_args && !rc; k++) {
      lm_type t = e->args[k]->type;
      if (t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_BOOL || t.id == LM_TYPE_NULL)
        continue;
      lm_array *x = NULL;
      if (!(rc = lm_eval(e->args[k], in, &x, err))) {
        rc = lm_cast_items(e, x, lm_type_make(LM_TYPE_UTF8), &f.txt[k], err);
        lm_array_release(x);
      }
    }
  }
  /* strict in every argument but the values of to_json / json_build_* */
  int strict = e->fn == LM_FN_JSON_BUILD_OBJECT ||
                       e->fn == LM_FN_JSON_BUILD_ARRAY ||
                       e->fn == LM_FN_JSON_AGG_ITEM
                   ? 0
                   : e->n_args;
  if (!rc)
    rc = lm_fn_rows(e, in, strict, json_row, &f, out, err);
  if (f.txt) {
    for (int k = 0; k < e->n_args; k++)
      lm_array_release(f.txt[k]);
    free(f.txt);
  }
  lm_buf_free(&f.tmp);
  lm_arena_free(&f.j.ar);
  return rc;
}
