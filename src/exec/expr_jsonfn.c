/*
 * JSON functions over JSON text (VARCHAR), a batch at a time (bound in
 * plan/func_bind.c):
 *
 *   j -> key | j -> index, json_extract_path(j, k...), jsonb_get,
 *   jsonb_get_path      the member / element as JSON text (the original
 *                       text of the value, as PostgreSQL's json type)
 *   j ->> key | index, json_extract_path_text, jsonb_get_text,
 *   jsonb_get_path_text  the same as text: strings unescaped, JSON null
 *                        is SQL NULL
 *
 * A missing key or index, or a step into a scalar, is NULL (jsonb scalar
 * -> 0 or -1 is the scalar itself, as PostgreSQL). A negative
 * index counts from the end. The whole document is validated first
 * (RFC 8259); invalid JSON is PostgreSQL's "invalid input syntax for type
 * json" (22P02). Path steps are text; an array step must be an integer
 * ("1", or an integer argument of -> / ->>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

#define MAX_DEPTH 1000

static const char *ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* End of the JSON value at p (after leading whitespace), or NULL. */
static const char *skip_value(const char *p, const char *e, int depth) {
  p = ws(p, e);
  if (p >= e || depth > MAX_DEPTH)
    return NULL;
  if (*p == '"') {
    for (p++; p < e; p++) {
      unsigned char c = (unsigned char)*p;
      if (c == '"')
        return p + 1;
      if (c < 0x20)
        return NULL;
      if (c == '\\') {
        if (++p >= e)
          return NULL;
        if (*p == 'u') {
          for (int k = 0; k < 4; k++)
            if (++p >= e || !strchr("0123456789abcdefABCDEF", *p))
              return NULL;
        } else if (!strchr("\"\\/bfnrt", *p))
          return NULL;
      }
    }
    return NULL;
  }
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    bool obj = *p == '{';
    p = ws(p + 1, e);
    if (p < e && *p == close)
      return p + 1;
    for (;;) {
      if (obj) {
        p = ws(p, e);
        if (p >= e || *p != '"' || !(p = skip_value(p, e, depth + 1)))
          return NULL;
        p = ws(p, e);
        if (p >= e || *p != ':')
          return NULL;
        p++;
      }
      if (!(p = skip_value(p, e, depth + 1)))
        return NULL;
      p = ws(p, e);
      if (p < e && *p == ',') {
        p++;
        continue;
      }
      if (p < e && *p == close)
        return p + 1;
      return NULL;
    }
  }
  if (e - p >= 4 && (!memcmp(p, "true", 4) || !memcmp(p, "null", 4)))
    return p + 4;
  if (e - p >= 5 && !memcmp(p, "false", 5))
    return p + 5;
  /* number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  const char *s = p;
  if (p < e && *p == '-')
    p++;
  if (p < e && *p == '0')
    p++;
  else if (p < e && *p >= '1' && *p <= '9')
    while (p < e && *p >= '0' && *p <= '9')
      p++;
  else
    return NULL;
  if (p < e && *p == '.') {
    const char *f = ++p;
    while (p < e && *p >= '0' && *p <= '9')
      p++;
    if (p == f)
      return NULL;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-'))
      p++;
    const char *f = p;
    while (p < e && *p >= '0' && *p <= '9')
      p++;
    if (p == f)
      return NULL;
  }
  return p > s ? p : NULL;
}

static unsigned hexv(char c) {
  return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 32) - 'a' + 10);
}

/* Unescapes a validated JSON string token [p, e) (with its quotes). */
static void unescape(lm_buf *o, const char *p, const char *e) {
  for (p++, e--; p < e; p++) {
    if (*p != '\\') {
      lm_buf_putc(o, *p);
      continue;
    }
    char c = *++p;
    switch (c) {
    case 'b':
      lm_buf_putc(o, '\b');
      break;
    case 'f':
      lm_buf_putc(o, '\f');
      break;
    case 'n':
      lm_buf_putc(o, '\n');
      break;
    case 'r':
      lm_buf_putc(o, '\r');
      break;
    case 't':
      lm_buf_putc(o, '\t');
      break;
    case 'u': {
      uint32_t v =
          hexv(p[1]) << 12 | hexv(p[2]) << 8 | hexv(p[3]) << 4 | hexv(p[4]);
      p += 4;
      if (v >= 0xD800 && v < 0xDC00 && e - p >= 7 && p[1] == '\\' &&
          p[2] == 'u') {
        uint32_t lo =
            hexv(p[3]) << 12 | hexv(p[4]) << 8 | hexv(p[5]) << 4 | hexv(p[6]);
        if (lo >= 0xDC00 && lo < 0xE000) {
          v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      lm_buf_put_utf8(o, v);
      break;
    }
    default:
      lm_buf_putc(o, c);
    }
  }
}

/* Steps from the value at *p (validated) into member `key` (kl bytes) of an
 * object, or element `key` of an array when the key is an integer. false
 * when absent. */
static bool step(const char **p, const char **e, const char *key, int32_t kl,
                 lm_buf *tmp) {
  const char *v = ws(*p, *e);
  if (*v == '{') {
    /* a duplicated key: the LAST member wins, as PostgreSQL's json (and
     * jsonb, which keeps only the last) */
    const char *hit = NULL, *hit_end = NULL;
    v = ws(v + 1, *e);
    while (*v == '"') {
      const char *ke = skip_value(v, *e, 0);
      lm_buf_reset(tmp);
      unescape(tmp, v, ke);
      v = ws(ke, *e) + 1; /* ':' */
      const char *ve = skip_value(v, *e, 0);
      if ((int32_t)tmp->len == kl &&
          !memcmp(tmp->data ? tmp->data : "", key, (size_t)kl)) {
        hit = ws(v, *e);
        hit_end = ve;
      }
      v = ws(ve, *e);
      if (*v == ',')
        v = ws(v + 1, *e);
    }
    if (!hit)
      return false;
    *p = hit;
    *e = hit_end;
    return true;
  }
  if (*v != '[')
    return false;
  /* an integer index */
  char num[24];
  if (kl <= 0 || kl > 20)
    return false;
  memcpy(num, key, (size_t)kl);
  num[kl] = '\0';
  char *endp;
  long long idx = strtoll(num, &endp, 10);
  if (*endp || endp == num)
    return false;
  if (idx < 0) { /* count the elements */
    long long cnt = 0;
    const char *q = ws(v + 1, *e);
    while (*q != ']') {
      q = ws(skip_value(q, *e, 0), *e);
      cnt++;
      if (*q == ',')
        q++;
    }
    idx += cnt;
    if (idx < 0)
      return false;
  }
  v = ws(v + 1, *e);
  for (long long k = 0; *v != ']'; k++) {
    const char *ve = skip_value(v, *e, 0);
    if (k == idx) {
      *p = v;
      *e = ve;
      return true;
    }
    v = ws(ve, *e);
    if (*v == ',')
      v = ws(v + 1, *e);
  }
  return false;
}

/* One row of a JSON operator (ctx: a scratch lm_buf for the path keys). */
static int jsonfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  lm_buf *tmp = ctx;
  bool text = e->fn == LM_FN_JSON_GET_TEXT;
  int32_t jl;
  const char *j = lm_array_str(a[0], i, &jl);
  const char *p = j, *end = j + jl;
  const char *ve = skip_value(p, end, 0);
  if (!ve || ws(ve, end) != end) {
    int q = jl > 60 ? 60 : (int)jl; /* never cutting a character */
    while (q > 0 && q < jl && ((unsigned char)j[q] & 0xC0) == 0x80)
      q--;
    return lm_fn_error(err, e, "22P02",
                       "invalid input syntax for type json: \"%.*s\"", q, j);
  }
  p = ws(p, end);
  end = ve;
  bool found = true;
  for (int k = 1; k < e->n_args && found; k++) {
    char num[24];
    const char *key;
    int32_t kl;
    if (a[k]->type.id == LM_TYPE_UTF8) {
      key = lm_array_str(a[k], i, &kl);
    } else {
      kl = snprintf(num, sizeof num, "%lld",
                    (long long)lm_array_get_i64(a[k], i));
      key = num;
      if (*ws(p, end) == '{') /* an integer never names a member */
        found = false;
      int64_t ix = lm_array_get_i64(a[k], i);
      char c0 = *ws(p, end);
      if (e->negated && lm_type_is_jsonb(e->args[0]->type) && c0 != '{' &&
          c0 != '[' && (ix == 0 || ix == -1))
        continue; /* jsonb scalar -> 0: the scalar, as PostgreSQL */
    }
    if (e->negated && a[k]->type.id == LM_TYPE_UTF8 && *ws(p, end) != '{')
      found = false; /* j -> 'text' on an array: NULL, as PostgreSQL */
    found = found && step(&p, &end, key, kl, tmp);
  }
  if (!found || (text && end - p == 4 && !memcmp(p, "null", 4))) {
    lm_builder_append_null(b);
    return 0;
  }
  lm_buf_reset(o);
  if (text && *p == '"')
    unescape(o, p, end);
  else
    lm_buf_append(o, p, (size_t)(end - p));
  lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
  return 0;
}

int lm_jsonfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = lm_fn_rows(e, in, e->n_args, jsonfn_row, &tmp, out, err);
  lm_buf_free(&tmp);
  return rc;
}
