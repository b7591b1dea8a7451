/*
 * exec/srf_json.c — the JSON set-returning functions (exec/lm_srf.h,
 * docs/functions.md "JSON"): json_object_keys, json_each,
 * json_each_text, json_array_elements, json_array_elements_text and their
 * jsonb_ twins, as split cursors (lm_srf_split) over one JSON value parsed
 * into the call's arena (lm_srf_rx.jar, reset per value).
 *
 * PostgreSQL 15's semantics: json keeps the text of each value as given
 * (and an object's duplicate keys, in order); jsonb has its keys sorted
 * and de-duplicated and prints values in its normalized form; the _text
 * variants give a string's decoded text, SQL NULL for a JSON null, and the
 * other values' text. json_each / json_each_text are two columns: the
 * parser expands them into ROWS FROM of their key and value halves
 * (sql/srf_expand.c); a NULL argument makes no rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_jsonv.h"
#include "exec/lm_srf.h"

static const struct {
  const char *name;
  int op;
} names[] = {
    {"object_keys", LM_SRFJ_KEYS},
    {"each", LM_SRFJ_EACH},
    {"each_text", LM_SRFJ_EACHT},
    {"each:key", LM_SRFJ_EACH_KEY},
    {"each:value", LM_SRFJ_EACH_VAL},
    {"each_text:key", LM_SRFJ_EACHT_KEY},
    {"each_text:value", LM_SRFJ_EACHT_VAL},
    {"array_elements", LM_SRFJ_ELEMS},
    {"array_elements_text", LM_SRFJ_ELEMS_TEXT},
};

lm_srf_kind lm_srf_json_kind(const char *name) {
  if (!name || strncmp(name, "json", 4))
    return LM_SRF_SCALAR;
  const char *p = name + 4;
  int b = 0;
  if (*p == 'b') {
    b = LM_SRF_JSONB;
    p++;
  }
  if (*p++ != '_')
    return LM_SRF_SCALAR;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(p, names[i].name))
      return (lm_srf_kind)(LM_SRF_JSON | b | names[i].op);
  return LM_SRF_SCALAR;
}

const char *lm_srf_json_name(lm_srf_kind k, char *buf, size_t size) {
  int op = lm_srf_json_op(k);
  const char *base = "?";
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].op == op)
      base = names[i].name;
  snprintf(buf, size, "%s_%.*s", (k & LM_SRF_JSONB) ? "jsonb" : "json",
           (int)strcspn(base, ":"), base);
  return buf;
}

lm_type lm_srf_json_out(lm_srf_kind k) {
  bool b = (k & LM_SRF_JSONB) != 0;
  switch (lm_srf_json_op(k)) {
  case LM_SRFJ_EACH_VAL:
  case LM_SRFJ_ELEMS:
    return lm_type_json(b);
  default:
    return lm_type_make(LM_TYPE_UTF8);
  }
}

static int ex_err(lm_error *err, const char *fmt, const char *a) {
  lm_err(err, LM_ERR_EXEC, fmt, a);
  return lm_err_state(err, "22023");
}

/* PostgreSQL's error for value kind jk given to function kind k, or 0. */
static int kind_err(lm_srf_kind k, lm_jv_kind jk, lm_error *err) {
  char nm[40];
  lm_srf_json_name(k, nm, sizeof nm);
  bool b = (k & LM_SRF_JSONB) != 0;
  bool arr = jk == LM_JV_ARR, obj = jk == LM_JV_OBJ;
  switch (lm_srf_json_op(k)) {
  case LM_SRFJ_KEYS:
    if (obj)
      return 0;
    return ex_err(
        err, arr ? "cannot call %s on an array" : "cannot call %s on a scalar",
        nm);
  case LM_SRFJ_EACH_KEY:
  case LM_SRFJ_EACH_VAL:
  case LM_SRFJ_EACHT_KEY:
  case LM_SRFJ_EACHT_VAL:
    if (obj)
      return 0;
    if (b)
      return ex_err(err, "cannot call %s on a non-object", nm);
    return ex_err(err,
                  arr ? "cannot deconstruct an array as an object%s"
                      : "cannot deconstruct a scalar%s",
                  "");
  default: /* elements */
    if (arr)
      return 0;
    if (b)
      return ex_err(err,
                    obj ? "cannot extract elements from an object%s"
                        : "cannot extract elements from a scalar%s",
                    "");
    return ex_err(err,
                  obj ? "cannot call %s on a non-array"
                      : "cannot call %s on a scalar",
                  nm);
  }
}

int lm_srf_json_init(lm_srf_split *s, lm_srf_kind kind, const lm_value *v,
                     lm_srf_rx *rx, lm_error *err) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  if (v->is_null) {
    s->done = true;
    return 0;
  }
  if (!rx->jar) {
    if (!(rx->jar = malloc(sizeof *rx->jar)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_arena_init(rx->jar, 4096);
  } else {
    lm_arena_reset(rx->jar);
  }
  bool b = (kind & LM_SRF_JSONB) != 0;
  lm_jv *jv = NULL;
  char detail[128];
  int rc = lm_jv_parse(rx->jar, v->v.s.p ? v->v.s.p : "", (size_t)v->v.s.len, b,
                       &jv, detail, sizeof detail);
  if (rc == -1)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc) { /* the value was validated as json / jsonb: not expected */
    lm_err(err, LM_ERR_EXEC, "invalid input syntax for type json");
    return lm_err_state(err, "22P02");
  }
  if ((rc = kind_err(kind, jv->kind, err)))
    return rc;
  s->jv = jv;
  s->jpos = 0;
  s->done = jv->n == 0;
  return 0;
}

/* Appends JSON value x as json (its text as given) or jsonb; text: as the
 * _text functions (a string decoded, null as SQL NULL). */
static void put_value(lm_builder *bd, const lm_jv *x, bool jsonb, bool text,
                      lm_buf *o) {
  if (text && x->kind == LM_JV_NULL) {
    lm_builder_append_null(bd);
    return;
  }
  if (text && x->kind == LM_JV_STR) {
    lm_builder_append_str(bd, x->s ? x->s : "", x->len);
    return;
  }
  if (!jsonb) {
    lm_builder_append_str(bd, x->src ? x->src : "", x->srclen);
    return;
  }
  lm_buf_reset(o);
  if (lm_jv_out(o, x, false)) {
    bd->oom = true;
    return;
  }
  lm_builder_append_str(bd, o->data ? o->data : "", (int32_t)o->len);
}

int64_t lm_srf_json_fill(lm_srf_split *s, lm_builder *b, int64_t max) {
  int64_t n = 0;
  int op = lm_srf_json_op(s->kind);
  bool jsonb = (s->kind & LM_SRF_JSONB) != 0;
  lm_buf o;
  lm_buf_init(&o);
  for (; !s->done && n < max; n++) {
    const lm_jv *v = s->jv;
    int32_t i = s->jpos++;
    switch (op) {
    case LM_SRFJ_KEYS:
    case LM_SRFJ_EACH_KEY:
    case LM_SRFJ_EACHT_KEY:
      lm_builder_append_str(b, v->kids[2 * i].s ? v->kids[2 * i].s : "",
                            v->kids[2 * i].len);
      break;
    case LM_SRFJ_EACH_VAL:
    case LM_SRFJ_EACHT_VAL:
      put_value(b, &v->kids[2 * i + 1], jsonb, op == LM_SRFJ_EACHT_VAL, &o);
      break;
    default:
      put_value(b, &v->kids[i], jsonb, op == LM_SRFJ_ELEMS_TEXT, &o);
      break;
    }
    s->done = s->jpos >= v->n;
  }
  lm_buf_free(&o);
  return n;
}
