/*
 * JSON values of the SQL types json and jsonb (exec/lm_jsonv.h): parser,
 * jsonb text form, containment. The grammar and the DETAIL messages are
 * PostgreSQL 15's (src/common/jsonapi.c); the jsonb normal form is
 * PostgreSQL's (utils/adt/jsonb.c, jsonb_util.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/lm_jsonv.h"

#define JV_MAX_DEPTH 6400

typedef enum {
  T_END,
  T_LBRACE,
  T_RBRACE,
  T_LBRACKET,
  T_RBRACKET,
  T_COMMA,
  T_COLON,
  T_STRING,
  T_NUMBER,
  T_TRUE,
  T_FALSE,
  T_NULL,
  T_BAD,
} tok_kind;

typedef struct {
  lm_arena *ar;
  const char *p, *e;
  bool jsonb;
  tok_kind tk;
  const char *ts, *te; /* the current token's text */
  char *detail;
  size_t dsize;
  int rc;
  lm_buf sb; /* string decoding scratch */
} jparser;

static bool alnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static int fail(jparser *j, int rc, const char *fmt, const char *a, int alen) {
  if (!j->rc) {
    j->rc = rc;
    if (j->detail && j->dsize)
      snprintf(j->detail, j->dsize, fmt, alen, a);
  }
  return -1;
}

static int hexv(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* A string token at j->p (the opening quote), decoded into j->sb. */
static int lex_string(jparser *j) {
  const char *p = j->p + 1, *e = j->e;
  lm_buf_reset(&j->sb);
  uint32_t hi = 0; /* a pending high surrogate */
  for (;;) {
    if (p >= e) {
      j->te = e;
      return fail(j, 1, "The input string ended unexpectedly.%.*s", "", 0);
    }
    unsigned char c = (unsigned char)*p;
    if (c == '"')
      break;
    if (c < 0x20) {
      char m[80];
      snprintf(m, sizeof m, "Character with value 0x%02x must be escaped.", c);
      return fail(j, 1, "%.*s", m, (int)strlen(m));
    }
    if (c != '\\') {
      if (hi)
        return fail(j, 1,
                    "Unicode low surrogate must follow a high surrogate.%.*s",
                    "", 0);
      lm_buf_putc(&j->sb, (char)c);
      p++;
      continue;
    }
    if (++p >= e) {
      return fail(j, 1, "The input string ended unexpectedly.%.*s", "", 0);
    }
    char x = *p;
    if (x == 'u') {
      int v = 0;
      for (int k = 1; k <= 4; k++) {
        int h = p + k < e ? hexv(p[k]) : -1;
        if (h < 0)
          return fail(
              j, 1, "\"\\u\" must be followed by four hexadecimal digits.%.*s",
              "", 0);
        v = v * 16 + h;
      }
      p += 5;
      if (v >= 0xD800 && v <= 0xDBFF) {
        if (hi)
          return fail(
              j, 1,
              "Unicode high surrogate must not follow a high surrogate.%.*s",
              "", 0);
        hi = (uint32_t)v;
        continue;
      }
      if (v >= 0xDC00 && v <= 0xDFFF) {
        if (!hi)
          return fail(j, 1,
                      "Unicode low surrogate must follow a high surrogate.%.*s",
                      "", 0);
        lm_buf_put_utf8(&j->sb, 0x10000 + ((hi - 0xD800) << 10) +
                                    ((uint32_t)v - 0xDC00));
        hi = 0;
        continue;
      }
      if (hi)
        return fail(j, 1,
                    "Unicode low surrogate must follow a high surrogate.%.*s",
                    "", 0);
      if (v == 0 && j->jsonb)
        return fail(j, 2, "\\u0000 cannot be converted to text.%.*s", "", 0);
      if (v == 0) { /* json keeps the text; its value is never decoded */
        lm_buf_append(&j->sb, "\\u0000", 6);
        continue;
      }
      lm_buf_put_utf8(&j->sb, (uint32_t)v);
      continue;
    }
    if (hi)
      return fail(j, 1,
                  "Unicode low surrogate must follow a high surrogate.%.*s", "",
                  0);
    char d;
    switch (x) {
    case '"':
    case '\\':
    case '/':
      d = x;
      break;
    case 'b':
      d = '\b';
      break;
    case 'f':
      d = '\f';
      break;
    case 'n':
      d = '\n';
      break;
    case 'r':
      d = '\r';
      break;
    case 't':
      d = '\t';
      break;
    default: {
      int l = 1; /* the whole (multibyte) character */
      while (p + l < e && ((unsigned char)p[l] & 0xC0) == 0x80)
        l++;
      return fail(j, 1, "Escape sequence \"\\%.*s\" is invalid.", p, l);
    }
    }
    lm_buf_putc(&j->sb, d);
    p++;
  }
  if (hi)
    return fail(j, 1, "Unicode low surrogate must follow a high surrogate.%.*s",
                "", 0);
  j->te = p + 1;
  return 0;
}

/* The next token into j->tk / ts / te; strings decoded into j->sb. */
static int lex(jparser *j) {
  const char *p = j->p, *e = j->e;
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  j->p = j->ts = p;
  if (p >= e) {
    j->tk = T_END;
    j->te = p;
    return 0;
  }
  switch (*p) {
  case '{':
    j->tk = T_LBRACE;
    break;
  case '}':
    j->tk = T_RBRACE;
    break;
  case '[':
    j->tk = T_LBRACKET;
    break;
  case ']':
    j->tk = T_RBRACKET;
    break;
  case ',':
    j->tk = T_COMMA;
    break;
  case ':':
    j->tk = T_COLON;
    break;
  case '"':
    j->tk = T_STRING;
    if (lex_string(j))
      return -1;
    j->p = j->te;
    return 0;
  default: {
    const char *q = p;
    if (*q == '-' || (*q >= '0' && *q <= '9')) {
      /* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
      bool ok = true;
      if (*q == '-')
        q++;
      if (q < e && *q == '0')
        q++;
      else if (q < e && *q >= '1' && *q <= '9')
        while (q < e && *q >= '0' && *q <= '9')
          q++;
      else
        ok = false;
      if (ok && q < e && *q == '.') {
        const char *f = ++q;
        while (q < e && *q >= '0' && *q <= '9')
          q++;
        ok = q > f;
      }
      if (ok && q < e && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < e && (*q == '+' || *q == '-'))
          q++;
        const char *f = q;
        while (q < e && *q >= '0' && *q <= '9')
          q++;
        ok = q > f;
      }
      if (ok && !(q < e && alnum((unsigned char)*q))) {
        j->tk = T_NUMBER;
        j->te = j->p = q;
        return 0;
      }
      q = p; /* an invalid token: the alphanumeric run */
      if (*q == '-')
        q++;
    }
    while (q < e && (alnum((unsigned char)*q) || *q == '.' || *q == '+' ||
                     (*q == '-' && q > p)))
      q++;
    if (q == p)
      q = p + 1;
    while (q < e && ((unsigned char)*q & 0xC0) == 0x80)
      q++;
    j->te = j->p = q;
    size_t l = (size_t)(q - p);
    if (l == 4 && !memcmp(p, "true", 4))
      j->tk = T_TRUE;
    else if (l == 5 && !memcmp(p, "false", 5))
      j->tk = T_FALSE;
    else if (l == 4 && !memcmp(p, "null", 4))
      j->tk = T_NULL;
    else
      return fail(j, 1, "Token \"%.*s\" is invalid.", p, (int)l);
    return 0;
  }
  }
  j->te = j->p = p + 1;
  return 0;
}

static int expected(jparser *j, const char *what) {
  if (j->tk == T_END)
    return fail(j, 1, "The input string ended unexpectedly.%.*s", "", 0);
  char m[200];
  snprintf(m, sizeof m, "Expected %s, but found \"", what);
  size_t ml = strlen(m);
  int tl = (int)(j->te - j->ts);
  char full[400];
  snprintf(full, sizeof full, "%s%.*s\".", m, tl, j->ts);
  (void)ml;
  return fail(j, 1, "%.*s", full, (int)strlen(full));
}

/* numeric's limits (PostgreSQL's NUMERIC_DSCALE_MAX and the decimal
 * digits of NUMERIC_WEIGHT_MAX + 1 base-10000 digits) */
#define JV_MAX_DSCALE 16383
#define JV_MAX_INT_DIGITS 131072

/* numeric_in then numeric_out of a valid JSON number [p, e); NULL with
 * *range set when numeric cannot hold it (PostgreSQL: 22003 "value
 * overflows numeric format"), NULL alone on OOM. */
static char *norm_number(lm_arena *ar, const char *p, const char *e,
                         int32_t *len, bool *range) {
  *range = false;
  bool neg = *p == '-';
  if (neg)
    p++;
  size_t cap = (size_t)(e - p) + 8;
  char *dig = malloc(cap);
  if (!dig)
    return NULL;
  size_t nd = 0;
  long s0 = 0, x = 0;
  while (p < e && *p >= '0' && *p <= '9')
    dig[nd++] = *p++;
  if (p < e && *p == '.') {
    p++;
    while (p < e && *p >= '0' && *p <= '9') {
      dig[nd++] = *p++;
      s0++;
    }
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    bool xn = *p == '-';
    if (*p == '+' || *p == '-')
      p++;
    while (p < e && *p >= '0' && *p <= '9') {
      if (x < 100000000)
        x = x * 10 + (*p - '0');
      p++;
    }
    if (xn)
      x = -x;
  }
  long scale = s0 - x > 0 ? s0 - x : 0;
  long zeros = x - s0 + scale; /* >= 0 */
  size_t fz = 0;               /* the first nonzero digit */
  while (fz < nd && dig[fz] == '0')
    fz++;
  if (fz == nd) /* zero: the exponent only sets its scale */
    zeros = 0;
  long int_digits = (long)nd + zeros - scale - (long)fz;
  if (scale > JV_MAX_DSCALE || (fz < nd && int_digits > JV_MAX_INT_DIGITS)) {
    free(dig);
    *range = true;
    return NULL;
  }
  char *out = lm_arena_alloc(ar, nd + (size_t)zeros + (size_t)scale + 4);
  if (!out) {
    free(dig);
    return NULL;
  }
  /* the digits D followed by `zeros` zeros, the point `scale` from the end */
  size_t total = nd + (size_t)zeros;
  size_t ip = total > (size_t)scale ? total - (size_t)scale : 0; /* int digs */
  size_t k = 0, o = 0;
  bool nonzero = false;
  for (size_t i = 0; i < nd; i++)
    nonzero |= dig[i] != '0';
  if (neg && nonzero)
    out[o++] = '-';
  /* integer part without leading zeros */
  size_t first = 0;
  while (first + 1 < ip && (first < nd ? dig[first] : '0') == '0')
    first++;
  if (ip == 0)
    out[o++] = '0';
  for (k = first; k < ip; k++)
    out[o++] = k < nd ? dig[k] : '0';
  if (scale > 0) {
    out[o++] = '.';
    /* leading fraction zeros when total < scale */
    for (long z = (long)total; z < scale; z++)
      out[o++] = '0';
    for (k = ip; k < total; k++)
      out[o++] = k < nd ? dig[k] : '0';
  }
  out[o] = '\0';
  free(dig);
  *len = (int32_t)o;
  return out;
}

static int parse_value(jparser *j, lm_jv *v, int depth);

/* The end of value v (its last token is the current one): its source
 * text, then the next token. */
static int done(jparser *j, lm_jv *v, const char *start) {
  v->src = start;
  v->srclen = (int32_t)(j->te - start);
  return lex(j);
}

static int cmp_keys(const void *pa, const void *pb) {
  const lm_jv *a = pa, *b = pb; /* pairs: key then value */
  if (a->len != b->len)
    return a->len < b->len ? -1 : 1;
  int c = memcmp(a->s, b->s, (size_t)a->len);
  if (c)
    return c;
  /* equal keys: keep the original order (the value's n holds it) */
  return a[1].n < b[1].n ? -1 : a[1].n > b[1].n;
}

void lm_jv_sort_object(lm_jv *v) {
  if (v->kind != LM_JV_OBJ || v->n < 1)
    return;
  /* stash the original positions in the keys' n (unused for strings) */
  lm_jv *kid = v->kids;
  int32_t *order = malloc(sizeof(int32_t) * (size_t)v->n);
  for (int32_t i = 0; i < v->n; i++) {
    if (order)
      order[i] = kid[2 * i + 1].n;
    kid[2 * i + 1].n = i; /* temporarily */
  }
  /* sort pairs as units: qsort over 2-element chunks */
  qsort(kid, (size_t)v->n, 2 * sizeof(lm_jv), cmp_keys);
  int32_t m = 0;
  for (int32_t i = 0; i < v->n; i++) {
    if (m > 0 && kid[2 * (m - 1)].len == kid[2 * i].len &&
        !memcmp(kid[2 * (m - 1)].s, kid[2 * i].s, (size_t)kid[2 * i].len)) {
      kid[2 * (m - 1)] = kid[2 * i]; /* a later duplicate wins */
      kid[2 * (m - 1) + 1] = kid[2 * i + 1];
      continue;
    }
    kid[2 * m] = kid[2 * i];
    kid[2 * m + 1] = kid[2 * i + 1];
    m++;
  }
  for (int32_t i = 0; i < m; i++) {
    int32_t orig = kid[2 * i + 1].n;
    kid[2 * i + 1].n = order ? order[orig] : 0;
  }
  free(order);
  v->n = m;
}

typedef struct kv_list {
  lm_jv *items;
  int32_t n, cap;
} kv_list;

static int push(jparser *j, kv_list *l, const lm_jv *v) {
  if (l->n == l->cap) {
    int32_t nc = l->cap ? l->cap * 2 : 8;
    lm_jv *ni = lm_arena_alloc(j->ar, sizeof(lm_jv) * (size_t)nc);
    if (!ni) {
      j->rc = -1;
      return -1;
    }
    if (l->n)
      memcpy(ni, l->items, sizeof(lm_jv) * (size_t)l->n);
    l->items = ni;
    l->cap = nc;
  }
  l->items[l->n++] = *v;
  return 0;
}

static int parse_value(jparser *j, lm_jv *v, int depth) {
  memset(v, 0, sizeof *v);
  const char *start = j->ts;
  if (depth > JV_MAX_DEPTH)
    return fail(j, 3, "%.*s", "", 0);
  switch (j->tk) {
  case T_STRING:
    v->kind = LM_JV_STR;
    v->len = (int32_t)j->sb.len;
    v->s = lm_arena_strndup(j->ar, j->sb.data ? j->sb.data : "", j->sb.len);
    if (!v->s) {
      j->rc = -1;
      return -1;
    }
    return done(j, v, start);
  case T_NUMBER:
    v->kind = LM_JV_NUM;
    bool range = false;
    if (j->jsonb) {
      v->s = norm_number(j->ar, j->ts, j->te, &v->len, &range);
    } else {
      v->len = (int32_t)(j->te - j->ts);
      v->s = lm_arena_strndup(j->ar, j->ts, (size_t)v->len);
    }
    if (range) { /* PostgreSQL's numeric_in runs once the next token is
                    read: a bad token there is the error */
      v->kind = LM_JV_NULL;
      if (done(j, v, start))
        return -1;
      j->rc = 4;
      return -1;
    }
    if (!v->s) {
      j->rc = -1;
      return -1;
    }
    return done(j, v, start);
  case T_TRUE:
  case T_FALSE:
  case T_NULL:
    v->kind = j->tk == T_TRUE    ? LM_JV_TRUE
              : j->tk == T_FALSE ? LM_JV_FALSE
                                 : LM_JV_NULL;
    return done(j, v, start);
  case T_LBRACKET: {
    kv_list l = {0};
    v->kind = LM_JV_ARR;
    if (lex(j))
      return -1;
    if (j->tk == T_RBRACKET)
      return done(j, v, start);
    for (;;) {
      lm_jv el;
      if (j->tk == T_END || j->tk == T_RBRACE || j->tk == T_RBRACKET ||
          j->tk == T_COMMA || j->tk == T_COLON)
        return expected(j, l.n ? "JSON value" : "array element or \"]\"");
      if (parse_value(j, &el, depth + 1) || push(j, &l, &el))
        return -1;
      if (j->tk == T_COMMA) {
        if (lex(j))
          return -1;
        continue;
      }
      if (j->tk == T_RBRACKET)
        break;
      return expected(j, "\",\" or \"]\"");
    }
    v->n = l.n;
    v->kids = l.items;
    return done(j, v, start);
  }
  case T_LBRACE: {
    kv_list l = {0};
    v->kind = LM_JV_OBJ;
    if (lex(j))
      return -1;
    if (j->tk == T_RBRACE)
      return done(j, v, start);
    for (;;) {
      if (j->tk != T_STRING)
        return expected(j, l.n ? "string" : "string or \"}\"");
      lm_jv key = {LM_JV_STR, (int32_t)j->sb.len, NULL, 0, NULL, NULL, 0};
      key.s = lm_arena_strndup(j->ar, j->sb.data ? j->sb.data : "", j->sb.len);
      if (!key.s) {
        j->rc = -1;
        return -1;
      }
      if (lex(j))
        return -1;
      if (j->tk != T_COLON)
        return expected(j, "\":\"");
      if (lex(j))
        return -1;
      lm_jv val;
      if (j->tk == T_END || j->tk == T_RBRACE || j->tk == T_RBRACKET ||
          j->tk == T_COMMA || j->tk == T_COLON)
        return expected(j, "JSON value");
      if (parse_value(j, &val, depth + 1))
        return -1;
      if (push(j, &l, &key) || push(j, &l, &val))
        return -1;
      if (j->tk == T_COMMA) {
        if (lex(j))
          return -1;
        continue;
      }
      if (j->tk == T_RBRACE)
        break;
      return expected(j, "\",\" or \"}\"");
    }
    v->n = l.n / 2;
    v->kids = l.items;
    if (j->jsonb)
      lm_jv_sort_object(v);
    return done(j, v, start);
  }
  default:
    return expected(j, "JSON value");
  }
}

int lm_jv_parse(lm_arena *ar, const char *p, size_t n, bool jsonb, lm_jv **out,
                char *detail, size_t dsize) {
  jparser j = {0};
  j.ar = ar;
  j.p = p;
  j.e = p + n;
  j.jsonb = jsonb;
  j.detail = detail;
  j.dsize = dsize;
  if (detail && dsize)
    detail[0] = '\0';
  lm_buf_init(&j.sb);
  lm_jv *v = lm_arena_alloc(ar, sizeof *v);
  if (!v) {
    lm_buf_free(&j.sb);
    return -1;
  }
  if (!lex(&j) && !parse_value(&j, v, 0) && j.tk != T_END)
    expected(&j, "end of input");
  lm_buf_free(&j.sb);
  if (j.rc)
    return j.rc;
  *out = v;
  return 0;
}

int lm_jv_quote(lm_buf *o, const char *s, size_t n) {
  int rc = lm_buf_putc(o, '"');
  for (size_t i = 0; i < n && !rc; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"':
      rc = lm_buf_puts(o, "\\\"");
      break;
    case '\\':
      rc = lm_buf_puts(o, "\\\\");
      break;
    case '\b':
      rc = lm_buf_puts(o, "\\b");
      break;
    case '\f':
      rc = lm_buf_puts(o, "\\f");
      break;
    case '\n':
      rc = lm_buf_puts(o, "\\n");
      break;
    case '\r':
      rc = lm_buf_puts(o, "\\r");
      break;
    case '\t':
      rc = lm_buf_puts(o, "\\t");
      break;
    default:
      if (c < 0x20)
        rc = lm_buf_printf(o, "\\u%04x", c);
      else
        rc = lm_buf_putc(o, (char)c);
    }
  }
  return rc ? rc : lm_buf_putc(o, '"');
}

static int indent(lm_buf *o, int level) {
  int rc = lm_buf_putc(o, '\n');
  for (int i = 0; i < level && !rc; i++)
    rc = lm_buf_puts(o, "    ");
  return rc;
}

static int out_value(lm_buf *o, const lm_jv *v, bool pretty, int level) {
  switch (v->kind) {
  case LM_JV_NULL:
    return lm_buf_puts(o, "null");
  case LM_JV_TRUE:
    return lm_buf_puts(o, "true");
  case LM_JV_FALSE:
    return lm_buf_puts(o, "false");
  case LM_JV_NUM:
    return lm_buf_append(o, v->s, (size_t)v->len);
  case LM_JV_STR:
    return lm_jv_quote(o, v->s, (size_t)v->len);
  case LM_JV_ARR:
  case LM_JV_OBJ: {
    bool obj = v->kind == LM_JV_OBJ;
    int rc = lm_buf_putc(o, obj ? '{' : '[');
    for (int32_t i = 0; i < v->n && !rc; i++) {
      if (i > 0)
        rc = lm_buf_puts(o, pretty ? "," : ", ");
      if (pretty && !rc)
        rc = indent(o, level + 1);
      if (obj && !rc) {
        rc = lm_jv_quote(o, v->kids[2 * i].s, (size_t)v->kids[2 * i].len);
        if (!rc)
          rc = lm_buf_puts(o, ": ");
        if (!rc)
          rc = out_value(o, &v->kids[2 * i + 1], pretty, level + 1);
      } else if (!rc) {
        rc = out_value(o, &v->kids[i], pretty, level + 1);
      }
    }
    if (pretty && !rc)
      rc = indent(o, level);
    return rc ? rc : lm_buf_putc(o, obj ? '}' : ']');
  }
  }
  return 0;
}

int lm_jv_out(lm_buf *o, const lm_jv *v, bool pretty) {
  return out_value(o, v, pretty, 0);
}

const lm_jv *lm_jv_get(const lm_jv *v, const char *k, int32_t kl) {
  if (v->kind != LM_JV_OBJ)
    return NULL;
  int32_t lo = 0, hi = v->n - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const lm_jv *key = &v->kids[2 * mid];
    int c = key->len != kl ? (key->len < kl ? -1 : 1)
                           : memcmp(key->s, k, (size_t)kl);
    if (!c)
      return &v->kids[2 * mid + 1];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

static bool scalar(const lm_jv *v) {
  return v->kind != LM_JV_ARR && v->kind != LM_JV_OBJ;
}

bool lm_jv_equal(const lm_jv *a, const lm_jv *b) {
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case LM_JV_NUM: {
    if (a->len == b->len && !memcmp(a->s, b->s, (size_t)a->len))
      return true;
    char *ea, *eb;
    long double x = strtold(a->s, &ea), y = strtold(b->s, &eb);
    return x == y;
  }
  case LM_JV_STR:
    return a->len == b->len && !memcmp(a->s, b->s, (size_t)a->len);
  case LM_JV_ARR:
    if (a->n != b->n)
      return false;
    for (int32_t i = 0; i < a->n; i++)
      if (!lm_jv_equal(&a->kids[i], &b->kids[i]))
        return false;
    return true;
  case LM_JV_OBJ:
    if (a->n != b->n)
      return false;
    for (int32_t i = 0; i < a->n; i++)
      if (!lm_jv_equal(&a->kids[2 * i], &b->kids[2 * i]) ||
          !lm_jv_equal(&a->kids[2 * i + 1], &b->kids[2 * i + 1]))
        return false;
    return true;
  default:
    return true;
  }
}

static bool deep_contains(const lm_jv *a, const lm_jv *b) {
  if (scalar(a) || scalar(b))
    return scalar(a) && scalar(b) && lm_jv_equal(a, b);
  if (a->kind != b->kind)
    return false;
  if (a->kind == LM_JV_OBJ) {
    for (int32_t i = 0; i < b->n; i++) {
      const lm_jv *k = &b->kids[2 * i], *bv = &b->kids[2 * i + 1];
      const lm_jv *av = lm_jv_get(a, k->s, k->len);
      if (!av || !deep_contains(av, bv))
        return false;
    }
    return true;
  }
  for (int32_t i = 0; i < b->n; i++) {
    bool found = false;
    for (int32_t k = 0; k < a->n && !found; k++)
      found = deep_contains(&a->kids[k], &b->kids[i]);
    if (!found)
      return false;
  }
  return true;
}

bool lm_jv_contains(const lm_jv *a, const lm_jv *b) {
  if (a->kind == LM_JV_ARR && scalar(b)) { /* a raw scalar: [b] */
    for (int32_t k = 0; k < a->n; k++)
      if (scalar(&a->kids[k]) && lm_jv_equal(&a->kids[k], b))
        return true;
    return false;
  }
  return deep_contains(a, b);
}

bool lm_jv_exists(const lm_jv *v, const char *k, int32_t kl) {
  if (v->kind == LM_JV_OBJ)
    return lm_jv_get(v, k, kl) != NULL;
  if (v->kind == LM_JV_ARR) {
    for (int32_t i = 0; i < v->n; i++)
      if (v->kids[i].kind == LM_JV_STR && v->kids[i].len == kl &&
          !memcmp(v->kids[i].s, k, (size_t)kl))
        return true;
    return false;
  }
  return v->kind == LM_JV_STR && v->len == kl && !memcmp(v->s, k, (size_t)kl);
}

const char *lm_jv_typeof(lm_jv_kind k) {
  switch (k) {
  case LM_JV_OBJ:
    return "object";
  case LM_JV_ARR:
    return "array";
  case LM_JV_STR:
    return "string";
  case LM_JV_NUM:
    return "number";
  case LM_JV_TRUE:
  case LM_JV_FALSE:
    return "boolean";
  default:
    return "null";
  }
}

int lm_jv_text_array(lm_arena *ar, const char *p, int32_t len,
                     const char ***elems, int32_t **lens, int32_t *n) {
  const char *e = p + len;
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n'))
    p++;
  while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
    e--;
  if (e - p < 2 || *p != '{' || e[-1] != '}')
    return 1;
  p++;
  e--;
  int32_t cap = 1;
  for (const char *q = p; q < e; q++)
    cap += *q == ',';
  const char **el = lm_arena_alloc(ar, sizeof(char *) * (size_t)cap);
  int32_t *ls = lm_arena_alloc(ar, sizeof(int32_t) * (size_t)cap);
  char *buf = lm_arena_alloc(ar, (size_t)(e - p) + 1);
  if (!el || !ls || !buf)
    return -1;
  int32_t m = 0;
  size_t bo = 0;
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n'))
    p++;
  if (p == e) {
    *elems = el;
    *lens = ls;
    *n = 0;
    return 0;
  }
  for (;;) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n'))
      p++;
    char *start = buf + bo;
    bool quoted = false;
    if (p < e && *p == '"') {
      quoted = true;
      p++;
      while (p < e && *p != '"') {
        if (*p == '\\' && p + 1 < e)
          p++;
        buf[bo++] = *p++;
      }
      if (p >= e)
        return 1;
      p++;
      while (p < e && (*p == ' ' || *p == '\t' || *p == '\n'))
        p++;
    } else {
      while (p < e && *p != ',') {
        if (*p == '{' || *p == '}' || *p == '"')
          return 1;
        if (*p == '\\' && p + 1 < e)
          p++;
        buf[bo++] = *p++;
      }
      while (buf + bo > start && (buf[bo - 1] == ' ' || buf[bo - 1] == '\t'))
        bo--;
      if (buf + bo == start)
        return 1;
    }
    int32_t l = (int32_t)(buf + bo - start);
    if (!quoted && l == 4 && !strncasecmp(start, "null", 4))
      el[m] = NULL;
    else
      el[m] = start;
    ls[m++] = l;
    if (p >= e)
      break;
    if (*p != ',')
      return 1;
    p++;
  }
  *elems = el;
  *lens = ls;
  *n = m;
  return 0;
}
