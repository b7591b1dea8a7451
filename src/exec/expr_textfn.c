/*
 * PostgreSQL text functions, a batch at a time (bound in plan/func_bind.c):
 * octet_length, strpos, btrim/ltrim/rtrim(s, chars), split_part,
 * concat_ws, left, right, lpad, rpad, repeat, reverse, starts_with, md5,
 * initcap, ascii, chr. Positions and lengths count UTF-8 characters; case
 * mapping is ASCII-only (PostgreSQL in the C locale). NULL rules:
 * concat_ws skips NULL arguments after the separator; every other
 * function is NULL when an argument is.
 */
#include <stdlib.h>
#include <string.h>

#include "base/lm_md5.h"
#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

/* results larger than this are an error (PostgreSQL: 1 GB per value) */
#define MAX_TEXT ((int64_t)1 << 30)

static bool cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

/* Bytes of the UTF-8 character starting at s[i] (1 for invalid bytes). */
static int32_t char_len(const char *s, int32_t len, int32_t i) {
  int32_t j = i + 1;
  while (j < len && cont((unsigned char)s[j]))
    j++;
  return j - i;
}

static int64_t n_chars(const char *s, int32_t len) {
  int64_t c = 0;
  for (int32_t k = 0; k < len; k++)
    c += !cont((unsigned char)s[k]);
  return c;
}

/* Byte offset of character number `ch` (0-based; clamped to len). */
static int32_t char_off(const char *s, int32_t len, int64_t ch) {
  int32_t i = 0;
  while (ch > 0 && i < len) {
    i += char_len(s, len, i);
    ch--;
  }
  return i;
}

static uint32_t decode(const char *s, int32_t len, int32_t i) {
  unsigned char c = (unsigned char)s[i];
  int32_t n = char_len(s, len, i);
  if (c < 0x80 || n == 1)
    return c;
  uint32_t v = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (int32_t k = 1; k < n; k++)
    v = (v << 6) | ((unsigned char)s[i + k] & 0x3F);
  return v;
}

/* Whether the character at s[i] (n bytes) is one of the characters of
 * set (sl bytes). */
static bool in_set(const char *s, int32_t i, int32_t n, const char *set,
                   int32_t sl) {
  for (int32_t k = 0; k < sl; k += char_len(set, sl, k))
    if (char_len(set, sl, k) == n && !memcmp(set + k, s + i, (size_t)n))
      return true;
  return false;
}

static bool is_alnum_ascii(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

/* Appends pad characters from fill (fl bytes, cycled) until `count`
 * characters were written. */
static void put_fill(lm_buf *o, const char *fill, int32_t fl, int64_t count) {
  int64_t nf = n_chars(fill, fl);
  if (nf <= 0 || count <= 0)
    return;
  /* whole copies of fill by doubling memcpy, then the first chars of one */
  int64_t full = count / nf, rest = count % nf;
  size_t total = (size_t)full * (size_t)fl;
  if (lm_buf_reserve(o, total + (size_t)fl))
    return;
  size_t start = o->len, done = 0;
  if (full > 0) {
    memcpy(o->data + start, fill, (size_t)fl);
    done = (size_t)fl;
    while (done < total) {
      size_t n = done < total - done ? done : total - done;
      memcpy(o->data + start + done, o->data + start, n);
      done += n;
    }
  }
  o->len = start + total;
  lm_buf_append(o, fill, (size_t)char_off(fill, fl, rest));
}

/* One row of a text function whose arguments are all non-NULL except for
 * concat_ws's values. Output text in *o, or an integer / boolean result in
 * *iv. 0 or an error. */
static int text_row(const lm_bexpr *e, lm_array *const *a, int64_t i, lm_buf *o,
                    int64_t *iv, lm_error *err) {
  int32_t len = 0, l2 = 0;
  const char *s = e->args[0]->type.id == LM_TYPE_UTF8 ||
                          e->args[0]->type.id == LM_TYPE_BINARY
                      ? lm_array_str(a[0], i, &len)
                      : NULL;
  const char *t = e->n_args > 1 && e->args[1]->type.id == LM_TYPE_UTF8
                      ? lm_array_str(a[1], i, &l2)
                      : NULL;
  switch (e->fn) {
  case LM_FN_OCTET_LENGTH:
    *iv = len;
    return 0;
  case LM_FN_STRPOS: {
    if (l2 == 0) {
      *iv = 1;
      return 0;
    }
    const char *p = l2 <= len ? memmem(s, (size_t)len, t, (size_t)l2) : NULL;
    *iv = p ? n_chars(s, (int32_t)(p - s)) + 1 : 0;
    return 0;
  }
  case LM_FN_BTRIM_CHARS:
  case LM_FN_LTRIM_CHARS:
  case LM_FN_RTRIM_CHARS: {
    int32_t b = 0, z = len;
    if (e->fn != LM_FN_RTRIM_CHARS)
      while (b < z && in_set(s, b, char_len(s, len, b), t, l2))
        b += char_len(s, len, b);
    if (e->fn != LM_FN_LTRIM_CHARS)
      while (z > b) {
        int32_t k = z - 1;
        while (k > b && cont((unsigned char)s[k]))
          k--;
        if (!in_set(s, k, z - k, t, l2))
          break;
        z = k;
      }
    lm_buf_append(o, s + b, (size_t)(z - b));
    return 0;
  }
  case LM_FN_SPLIT_PART: {
    int64_t f = lm_array_get_i64(a[2], i);
    if (f == 0)
      return lm_fn_error(err, e, "22023", "field position must not be zero");
    if (l2 == 0) { /* the whole string is the only field */
      if (f == 1 || f == -1)
        lm_buf_append(o, s, (size_t)len);
      return 0;
    }
    /* field starts: count fields first */
    int64_t n_fields = 1;
    for (int32_t k = 0; k + l2 <= len;) {
      if (!memcmp(s + k, t, (size_t)l2)) {
        n_fields++;
        k += l2;
      } else
        k++;
    }
    if (f < 0)
      f = n_fields + f + 1;
    if (f < 1 || f > n_fields)
      return 0;
    int64_t cur = 1;
    int32_t start = 0, k = 0;
    while (k + l2 <= len) {
      if (!memcmp(s + k, t, (size_t)l2)) {
        if (cur == f)
          break;
        cur++;
        k += l2;
        start = k;
      } else
        k++;
    }
    int32_t end = cur == f && k + l2 <= len ? k : len;
    lm_buf_append(o, s + start, (size_t)(end - start));
    return 0;
  }
  case LM_FN_CONCAT_WS: {
    bool first = true;
    for (int k = 1; k < e->n_args; k++) {
      if (lm_farg_null(a[k], i))
        continue;
      int32_t vl;
      const char *v = lm_array_str(a[k], i, &vl);
      if (!first)
        lm_buf_append(o, s, (size_t)len);
      lm_buf_append(o, v, (size_t)vl);
      first = false;
    }
    return 0;
  }
  case LM_FN_LEFT:
  case LM_FN_RIGHT: {
    int64_t k = lm_array_get_i64(a[1], i), c = n_chars(s, len);
    int64_t take = k >= 0 ? (k < c ? k : c) : (c + k > 0 ? c + k : 0);
    int32_t off = e->fn == LM_FN_LEFT ? 0 : char_off(s, len, c - take);
    int32_t end = e->fn == LM_FN_LEFT ? char_off(s, len, take) : len;
    lm_buf_append(o, s + off, (size_t)(end - off));
    return 0;
  }
  case LM_FN_LPAD:
  case LM_FN_RPAD: {
    int64_t want = lm_array_get_i64(a[1], i), c = n_chars(s, len);
    int32_t fl = 1;
    const char *fill = " ";
    if (e->n_args > 2)
      fill = lm_array_str(a[2], i, &fl);
    if (want <= 0)
      return 0;
    /* as PostgreSQL: want characters of up to 4 bytes each must fit 1 GB */
    if (want > MAX_TEXT / 4)
      return lm_fn_error(err, e, "54000", "requested length too large");
    if (c >= want || fl == 0) {
      lm_buf_append(o, s, (size_t)char_off(s, len, want));
      return 0;
    }
    if (e->fn == LM_FN_RPAD)
      lm_buf_append(o, s, (size_t)len);
    put_fill(o, fill, fl, want - c);
    if (e->fn == LM_FN_LPAD)
      lm_buf_append(o, s, (size_t)len);
    return 0;
  }
  case LM_FN_REPEAT: {
    int64_t k = lm_array_get_i64(a[1], i);
    if (k <= 0 || len == 0)
      return 0;
    if (k > MAX_TEXT / len)
      return lm_fn_error(err, e, "54000", "requested length too large");
    for (int64_t r = 0; r < k; r++)
      lm_buf_append(o, s, (size_t)len);
    return 0;
  }
  case LM_FN_REVERSE:
    for (int32_t z = len; z > 0;) {
      int32_t k = z - 1;
      while (k > 0 && cont((unsigned char)s[k]))
        k--;
      lm_buf_append(o, s + k, (size_t)(z - k));
      z = k;
    }
    return 0;
  case LM_FN_STARTS_WITH:
    *iv = l2 <= len && !memcmp(s, t, (size_t)l2);
    return 0;
  case LM_FN_MD5: {
    char hex[33];
    lm_md5_hex(s, (size_t)len, hex);
    lm_buf_append(o, hex, 32);
    return 0;
  }
  case LM_FN_INITCAP: {
    bool word = false;
    for (int32_t k = 0; k < len; k++) {
      unsigned char c = (unsigned char)s[k];
      if (c >= 'A' && c <= 'Z' && word)
        c = (unsigned char)(c - 'A' + 'a');
      else if (c >= 'a' && c <= 'z' && !word)
        c = (unsigned char)(c - 'a' + 'A');
      if (!cont(c))
        word = is_alnum_ascii(c);
      lm_buf_putc(o, (char)c);
    }
    return 0;
  }
  case LM_FN_ASCII:
    *iv = len ? (int64_t)decode(s, len, 0) : 0;
    return 0;
  case LM_FN_CHR: {
    int64_t v = lm_array_get_i64(a[0], i);
    if (v == 0)
      return lm_fn_error(err, e, "54000", "null character not permitted");
    if (v < 0)
      return lm_fn_error(err, e, "22023", "character number must be positive");
    if (v > 0x10FFFF)
      return lm_fn_error(err, e, "54000",
                         "requested character too large for encoding: %lld",
                         (long long)v);
    if (v >= 0xD800 && v <= 0xDFFF)
      return lm_fn_error(err, e, "54000",
                         "requested character not valid for encoding: %lld",
                         (long long)v);
    lm_buf_put_utf8(o, (uint32_t)v);
    return 0;
  }
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
}

static int textfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  lm_buf_reset(o);
  int64_t iv = 0;
  int rc = text_row(e, a, i, o, &iv, err);
  if (rc)
    return rc;
  if (e->type.id == LM_TYPE_INT64)
    lm_builder_append_int(b, iv);
  else if (e->type.id == LM_TYPE_BOOL)
    lm_builder_append_bool(b, iv != 0);
  else if ((int64_t)o->len > MAX_TEXT)
    return lm_fn_error(err, e, "54000", "requested length too large");
  else
    lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
  return 0;
}

int lm_textfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  /* concat_ws skips NULL strings: only its separator makes the row NULL */
  int strict = e->fn == LM_FN_CONCAT_WS ? 1 : e->n_args;
  return lm_fn_rows(e, in, strict, textfn_row, NULL, out, err);
}
