/*
 * PostgreSQL 15's jsonb comparison as an order key (lm_jsonb_ord.h): a
 * reader of the JSON text that writes, per value, a type tag and a body
 * whose memcmp order is compareJsonbContainers' order.
 *
 * Tags inside containers follow JsonbValue's type order (jbvNull <
 * jbvString < jbvNumeric < jbvBool < jbvArray < jbvObject). A container's
 * count comes right after its tag (PostgreSQL compares counts first), then
 * its items, each self-delimiting, so memcmp compares them one by one.
 * Numbers: a sign class, then for a nonzero value its decimal exponent and
 * digits (no leading or trailing zeros), complemented when negative.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_jsonb_ord.h"

enum {
  T_NULL = 0x01,
  T_STR = 0x02,
  T_NUM = 0x03,
  T_BOOL = 0x04,
  T_ARR = 0x10,
  T_OBJ = 0x11,
};

/* The key being written: first in the caller's (stack) buffer, then on
 * the heap when it grows past it. */
typedef struct obuf {
  uint8_t *data;
  size_t len, cap;
  bool heap;
} obuf;

typedef struct rd {
  const char *p, *e;
  obuf *o;
  int rc; /* 0, LM_ERR_NOMEM or LM_ERR_PARSE */
} rd;

static void ws(rd *r) {
  while (r->p < r->e &&
         (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    r->p++;
}

static void put(rd *r, const void *v, size_t n) {
  obuf *o = r->o;
  if (r->rc)
    return;
  if (o->cap - o->len < n) {
    size_t cap = o->cap * 2 > o->len + n ? o->cap * 2 : o->len + n + 64;
    uint8_t *d = o->heap ? realloc(o->data, cap) : malloc(cap);
    if (!d) {
      r->rc = LM_ERR_NOMEM;
      return;
    }
    if (!o->heap && o->len)
      memcpy(d, o->data, o->len);
    o->data = d;
    o->cap = cap;
    o->heap = true;
  }
  memcpy(o->data + o->len, v, n);
  o->len += n;
}

static void putb(rd *r, uint8_t c) {
  put(r, &c, 1);
}

static void put_be32(rd *r, uint32_t v) {
  uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
                  (uint8_t)v};
  put(r, b, 4);
}

static void patch_be32(rd *r, size_t at, uint32_t v) {
  if (r->rc)
    return;
  uint8_t *b = r->o->data + at;
  b[0] = (uint8_t)(v >> 24);
  b[1] = (uint8_t)(v >> 16);
  b[2] = (uint8_t)(v >> 8);
  b[3] = (uint8_t)v;
}

static int hex4(rd *r, uint32_t *v) {
  if (r->e - r->p < 4)
    return -1;
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) {
    int h = lm_hex_digit(r->p[i]);
    if (h < 0)
      return -1;
    x = x << 4 | (uint32_t)h;
  }
  r->p += 4;
  *v = x;
  return 0;
}

static void put_strbyte(rd *r, uint8_t c) {
  putb(r, c);
  if (!c) /* a 0 byte stays above the terminator */
    putb(r, 0xFF);
}

static void put_utf8(rd *r, uint32_t v) {
  uint8_t b[4];
  int n;
  if (v < 0x80) {
    b[0] = (uint8_t)v;
    n = 1;
  } else if (v < 0x800) {
    b[0] = (uint8_t)(0xC0 | v >> 6);
    b[1] = (uint8_t)(0x80 | (v & 0x3F));
    n = 2;
  } else if (v < 0x10000) {
    b[0] = (uint8_t)(0xE0 | v >> 12);
    b[1] = (uint8_t)(0x80 | (v >> 6 & 0x3F));
    b[2] = (uint8_t)(0x80 | (v & 0x3F));
    n = 3;
  } else {
    b[0] = (uint8_t)(0xF0 | v >> 18);
    b[1] = (uint8_t)(0x80 | (v >> 12 & 0x3F));
    b[2] = (uint8_t)(0x80 | (v >> 6 & 0x3F));
    b[3] = (uint8_t)(0x80 | (v & 0x3F));
    n = 4;
  }
  for (int i = 0; i < n; i++)
    put_strbyte(r, b[i]);
}

/* A string at r->p (the opening quote): its decoded bytes (a 0 byte as
 * 00 FF), then 00 00, so a prefix sorts first (varstr_cmp under C). */
static void str(rd *r) {
  r->p++;
  while (r->p < r->e && *r->p != '"') {
    char c = *r->p++;
    if (c != '\\') {
      put_strbyte(r, (uint8_t)c);
      continue;
    }
    if (r->p >= r->e) {
      r->rc = r->rc ? r->rc : LM_ERR_PARSE;
      return;
    }
    c = *r->p++;
    switch (c) {
    case 'b':
      put_strbyte(r, '\b');
      break;
    case 'f':
      put_strbyte(r, '\f');
      break;
    case 'n':
      put_strbyte(r, '\n');
      break;
    case 'r':
      put_strbyte(r, '\r');
      break;
    case 't':
      put_strbyte(r, '\t');
      break;
    case 'u': {
      uint32_t v, lo;
      if (hex4(r, &v)) {
        r->rc = r->rc ? r->rc : LM_ERR_PARSE;
        return;
      }
      if (v >= 0xD800 && v < 0xDC00 && r->e - r->p >= 6 && r->p[0] == '\\' &&
          r->p[1] == 'u') {
        r->p += 2;
        if (hex4(r, &lo)) {
          r->rc = r->rc ? r->rc : LM_ERR_PARSE;
          return;
        }
        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
      }
      put_utf8(r, v);
      break;
    }
    default: /* \" \\ \/ */
      put_strbyte(r, (uint8_t)c);
    }
  }
  if (r->p >= r->e) {
    r->rc = r->rc ? r->rc : LM_ERR_PARSE;
    return;
  }
  r->p++;
  putb(r, 0);
  putb(r, 0);
}

/* A number at r->p: 00 negative, 01 zero, 02 positive; a nonzero value
 * 0.d1d2..dk x 10^x as x (4 bytes, biased; complemented when negative),
 * then its digits d+1 (negative: 10-d) and 00 (negative: FF). */
static void num(rd *r) {
  bool neg = false;
  if (r->p < r->e && *r->p == '-') {
    neg = true;
    r->p++;
  }
  const char *ip = r->p;
  while (r->p < r->e && *r->p >= '0' && *r->p <= '9')
    r->p++;
  const char *ie = r->p, *fp = r->p, *fe = r->p;
  if (r->p < r->e && *r->p == '.') {
    fp = ++r->p;
    while (r->p < r->e && *r->p >= '0' && *r->p <= '9')
      r->p++;
    fe = r->p;
  }
  int64_t x = 0;
  if (r->p < r->e && (*r->p == 'e' || *r->p == 'E')) {
    r->p++;
    bool xneg = false;
    if (r->p < r->e && (*r->p == '+' || *r->p == '-'))
      xneg = *r->p++ == '-';
    while (r->p < r->e && *r->p >= '0' && *r->p <= '9') {
      if (x < 100000000)
        x = x * 10 + (*r->p - '0');
      r->p++;
    }
    if (xneg)
      x = -x;
  }
  if (ie == ip && fe == fp) {
    r->rc = r->rc ? r->rc : LM_ERR_PARSE;
    return;
  }
  /* the digits of int part then fraction, as one run: point after ie-ip */
  int64_t pt = (int64_t)(ie - ip) + x;
  /* leading zeros (across the point) */
  int64_t nd = (int64_t)(ie - ip) + (int64_t)(fe - fp);
#define DIG(i)                                                                 \
  ((i) < (int64_t)(ie - ip) ? ip[(i)] : fp[(i) - (int64_t)(ie - ip)])
  int64_t lo = 0, hi = nd;
  while (lo < hi && DIG(lo) == '0') {
    lo++;
    pt--;
  }
  while (hi > lo && DIG(hi - 1) == '0')
    hi--;
  putb(r, T_NUM);
  if (lo == hi) {
    putb(r, 1);
    return;
  }
  if (pt > INT32_MAX / 2)
    pt = INT32_MAX / 2;
  if (pt < -(INT32_MAX / 2))
    pt = -(INT32_MAX / 2);
  uint32_t bx = (uint32_t)(pt + 0x80000000LL);
  putb(r, neg ? 0 : 2);
  put_be32(r, neg ? ~bx : bx);
  for (int64_t i = lo; i < hi; i++) {
    int d = DIG(i) - '0';
    putb(r, (uint8_t)(neg ? 10 - d : d + 1));
  }
  putb(r, neg ? 0xFF : 0);
#undef DIG
}

static void value(rd *r, int depth);

/* The items of an array (close ']') or the pairs of an object (close '}'),
 * r->p just after the opening bracket: the count (patched), then (a real
 * top-level array) 01, then the items (an object's: key, value). */
static void items(rd *r, int depth, char close, bool real) {
  size_t at = r->o->len;
  put_be32(r, 0);
  if (real)
    putb(r, 0x01);
  uint32_t n = 0;
  ws(r);
  if (r->p < r->e && *r->p == close) {
    r->p++;
    return;
  }
  for (;;) {
    if (close == '}') {
      ws(r);
      if (r->rc || r->p >= r->e || *r->p != '"') {
        r->rc = r->rc ? r->rc : LM_ERR_PARSE;
        return;
      }
      str(r);
      ws(r);
      if (r->p >= r->e || *r->p != ':') {
        r->rc = r->rc ? r->rc : LM_ERR_PARSE;
        return;
      }
      r->p++;
    }
    value(r, depth + 1);
    n++;
    ws(r);
    if (r->rc || r->p >= r->e) {
      r->rc = r->rc ? r->rc : LM_ERR_PARSE;
      return;
    }
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    if (*r->p == close) {
      r->p++;
      break;
    }
    r->rc = LM_ERR_PARSE;
    return;
  }
  patch_be32(r, at, n);
}

static bool lit(rd *r, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(r->e - r->p) < n || memcmp(r->p, w, n))
    return false;
  r->p += n;
  return true;
}

/* A value inside a container (or the scalar of a top-level raw scalar). */
static void value(rd *r, int depth) {
  ws(r);
  if (r->rc || r->p >= r->e || depth > 10000) {
    r->rc = r->rc ? r->rc : LM_ERR_PARSE;
    return;
  }
  switch (*r->p) {
  case '{':
    r->p++;
    putb(r, T_OBJ);
    items(r, depth, '}', false);
    return;
  case '[':
    r->p++;
    putb(r, T_ARR);
    items(r, depth, ']', false);
    return;
  case '"':
    putb(r, T_STR);
    str(r);
    return;
  case 'n':
    if (lit(r, "null")) {
      putb(r, T_NULL);
      return;
    }
    break;
  case 't':
    if (lit(r, "true")) {
      putb(r, T_BOOL);
      putb(r, 1);
      return;
    }
    break;
  case 'f':
    if (lit(r, "false")) {
      putb(r, T_BOOL);
      putb(r, 0);
      return;
    }
    break;
  default:
    num(r);
    return;
  }
  r->rc = LM_ERR_PARSE;
}

/* Writes the order key of s[0, n) to o (r.rc: 0, or the error). */
static int ord_key(obuf *o, const char *s, size_t n) {
  rd r = {s, s + n, o, 0};
  ws(&r);
  if (r.p < r.e && *r.p == '{') { /* an object: above every array */
    r.p++;
    putb(&r, 0x02);
    items(&r, 0, '}', false);
  } else if (r.p < r.e && *r.p == '[') { /* count, then 01: a real array */
    r.p++;
    putb(&r, 0x01);
    items(&r, 0, ']', true);
  } else { /* a raw scalar: a one-element array below a real one */
    putb(&r, 0x01);
    put_be32(&r, 1);
    putb(&r, 0x00);
    value(&r, 0);
  }
  ws(&r);
  if (!r.rc && r.p != r.e)
    r.rc = LM_ERR_PARSE;
  return r.rc;
}

int lm_jsonb_ord(lm_buf *o, const char *s, size_t n) {
  uint8_t st[256];
  obuf b = {st, 0, sizeof st, false};
  int rc = ord_key(&b, s, n);
  if (lm_buf_append(o, b.data, b.len) && !rc)
    rc = LM_ERR_NOMEM;
  if (b.heap)
    free(b.data);
  return rc;
}

int lm_jsonb_cmp(const char *a, size_t an, const char *b, size_t bn) {
  uint8_t sa[256], sb[256];
  obuf x = {sa, 0, sizeof sa, false}, y = {sb, 0, sizeof sb, false};
  const char *p = a, *q = b;
  size_t pl = an, ql = bn;
  if (!ord_key(&x, a, an) && !ord_key(&y, b, bn)) {
    p = (const char *)x.data;
    pl = x.len;
    q = (const char *)y.data;
    ql = y.len;
  }
  size_t m = pl < ql ? pl : ql;
  int c = m ? memcmp(p, q, m) : 0;
  if (!c)
    c = pl < ql ? -1 : pl > ql;
  else
    c = c < 0 ? -1 : 1;
  if (x.heap)
    free(x.data);
  if (y.heap)
    free(y.data);
  return c;
}

int lm_jsonb_canon(lm_buf *o, const char *s, size_t n) {
  if (!n || !memchr(s, '.', n))
    return 0;
  size_t start = o->len;
  const char *p = s, *e = s + n, *copied = s;
  bool changed = false;
  while (p < e) {
    char c = *p;
    if (c == '"') { /* skip a string */
      p++;
      while (p < e && *p != '"')
        p += *p == '\\' ? 2 : 1;
      p++;
      continue;
    }
    if (c == '.') { /* a fraction: cut its trailing zeros */
      const char *f = p + 1, *fe = f;
      while (fe < e && *fe >= '0' && *fe <= '9')
        fe++;
      if (fe < e && (*fe == 'e' || *fe == 'E')) {
        p = fe;
        continue;
      }
      const char *z = fe;
      while (z > f && z[-1] == '0')
        z--;
      if (z != fe) {
        if (lm_buf_append(o, copied, (size_t)((z == f ? p : z) - copied)))
          return -1;
        copied = fe;
        changed = true;
        /* "-0.0" becomes "-0": that is 0 */
        size_t l = o->len - start;
        if (z == f && l >= 2 && o->data[o->len - 1] == '0' &&
            o->data[o->len - 2] == '-' &&
            (l == 2 ||
             !(o->data[o->len - 3] >= '0' && o->data[o->len - 3] <= '9'))) {
          o->data[o->len - 2] = '0';
          o->len--;
        }
      }
      p = fe;
      continue;
    }
    p++;
  }
  if (!changed)
    return 0;
  if (lm_buf_append(o, copied, (size_t)(e - copied)))
    return -1;
  return 1;
}

int lm_jsonb_key_array(const lm_array *x, lm_array **out) {
  *out = NULL;
  if (!lm_type_is_jsonb(x->type))
    return 0;
  lm_buf c;
  lm_buf_init(&c);
  int64_t first = -1;
  for (int64_t r = 0; r < x->length && first < 0; r++) {
    if (lm_array_is_null(x, r))
      continue;
    int32_t len;
    const char *s = lm_array_str(x, r, &len);
    int k = lm_jsonb_canon(&c, s, (size_t)len);
    if (k < 0) {
      lm_buf_free(&c);
      return LM_ERR_NOMEM;
    }
    if (k)
      first = r;
  }
  if (first < 0) { /* every value is its own key */
    lm_buf_free(&c);
    return 0;
  }
  lm_builder b;
  if (lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), x->length)) {
    lm_buf_free(&c);
    return LM_ERR_NOMEM;
  }
  for (int64_t r = 0; r < x->length; r++) {
    if (lm_array_is_null(x, r)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t len;
    const char *s = lm_array_str(x, r, &len);
    c.len = 0;
    int k = r < first ? 0 : lm_jsonb_canon(&c, s, (size_t)len);
    if (k < 0)
      b.oom = true;
    else if (k)
      lm_builder_append_str(&b, c.data, (int32_t)c.len);
    else
      lm_builder_append_str(&b, s, len);
  }
  lm_buf_free(&c);
  int rc = b.oom ? LM_ERR_NOMEM : lm_builder_finish(&b, out);
  if (rc) {
    lm_builder_free(&b);
    *out = NULL;
  }
  return rc;
}

const char *lm_jsonb_key(const char *s, size_t n, lm_buf *tmp, size_t *kn) {
  tmp->len = 0;
  *kn = n;
  if (lm_jsonb_canon(tmp, s, n) != 1)
    return s; /* its own key (or out of memory: the text) */
  *kn = tmp->len;
  return tmp->data;
}

bool lm_jsonb_eq(const char *a, size_t an, const char *b, size_t bn) {
  if (an == bn && (!an || !memcmp(a, b, an)))
    return true;
  if (!memchr(a, '.', an) && !memchr(b, '.', bn))
    return false;
  lm_buf ta, tb;
  lm_buf_init(&ta);
  lm_buf_init(&tb);
  size_t kn, ln;
  const char *k = lm_jsonb_key(a, an, &ta, &kn),
             *l = lm_jsonb_key(b, bn, &tb, &ln);
  bool eq = kn == ln && (!kn || !memcmp(k, l, kn));
  lm_buf_free(&ta);
  lm_buf_free(&tb);
  return eq;
}
