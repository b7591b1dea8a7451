/*
 * PostgreSQL text formatting and byte functions, a batch at a time (bound
 * in plan/func_bind2.c): translate, overlay, bit_length, format (%s %I %L
 * %%, argument positions n$, the - flag and widths n, *, *n$),
 * quote_ident, quote_literal, quote_nullable, similar_to_escape (the
 * regular expression of SQL's SIMILAR TO), encode / decode (hex, base64,
 * escape) and sha256. Each follows PostgreSQL 15's varlena.c / encode.c /
 * regexp.c, messages and SQLSTATEs included; characters are UTF-8.
 */
#include <nettle/sha2.h> /* sha256(): Nettle (nettle-dev) */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

static bool cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

/* Bytes of the UTF-8 character at s[i] (1 for a stray byte). */
static int32_t clen(const char *s, int32_t len, int32_t i) {
  int32_t j = i + 1;
  while (j < len && cont((unsigned char)s[j]))
    j++;
  return j - i;
}

static int64_t nchars(const char *s, int32_t len) {
  int64_t n = 0;
  for (int32_t i = 0; i < len; i++)
    n += !cont((unsigned char)s[i]);
  return n;
}

/* Byte offset of character `ch` (0-based, clamped to len). */
static int32_t coff(const char *s, int32_t len, int64_t ch) {
  int32_t i = 0;
  while (ch > 0 && i < len) {
    i += clen(s, len, i);
    ch--;
  }
  return i;
}

static const char *arg_str(lm_array *a, int64_t i, int32_t *len) {
  return lm_array_str(a, i, len);
}

static int put_result(lm_builder *b, lm_buf *o, lm_error *err) {
  if (o->len > ((size_t)1 << 30))
    return lm_err(err, LM_ERR_EXEC, "result too large");
  lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
  return 0;
}

/* ----------------------------------------------------------- translate */

static int translate(const lm_bexpr *e, lm_array *const *a, int64_t i,
                     lm_builder *b, lm_buf *o, lm_error *err) {
  (void)e;
  int32_t sl, fl, tl;
  const char *s = arg_str(a[0], i, &sl), *f = arg_str(a[1], i, &fl),
             *t = arg_str(a[2], i, &tl);
  lm_buf_reset(o);
  for (int32_t k = 0; k < sl;) {
    int32_t n = clen(s, sl, k);
    int64_t pos = -1, idx = 0;
    for (int32_t j = 0; j < fl; idx++) {
      int32_t m = clen(f, fl, j);
      if (m == n && !memcmp(f + j, s + k, (size_t)n)) {
        pos = idx;
        break;
      }
      j += m;
    }
    if (pos < 0) {
      lm_buf_append(o, s + k, (size_t)n);
    } else {
      int32_t to = coff(t, tl, pos);
      if (to < tl)
        lm_buf_append(o, t + to, (size_t)clen(t, tl, to));
    }
    k += n;
  }
  return put_result(b, o, err);
}

/* ------------------------------------------------------------- overlay */

static int overlay(const lm_bexpr *e, lm_array *const *a, int64_t i,
                   lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t sl, rl;
  const char *s = arg_str(a[0], i, &sl), *r = arg_str(a[1], i, &rl);
  int64_t sp = lm_array_get_i64(a[2], i);
  int64_t n = e->n_args > 3 ? lm_array_get_i64(a[3], i) : nchars(r, rl);
  int64_t end = sp + n;
  if (end > INT32_MAX || end < INT32_MIN || sp > INT32_MAX || sp < INT32_MIN ||
      n > INT32_MAX || n < INT32_MIN)
    return lm_fn_error(err, e, "22003", "integer out of range");
  if (sp < 1) /* substring(s, 1, sp - 1) with a negative length */
    return lm_fn_error(err, e, "22011",
                       "negative substring length not allowed");
  lm_buf_reset(o);
  lm_buf_append(o, s, (size_t)coff(s, sl, sp - 1));
  lm_buf_append(o, r, (size_t)rl);
  int32_t from = coff(s, sl, end < 1 ? 0 : end - 1);
  lm_buf_append(o, s + from, (size_t)(sl - from));
  return put_result(b, o, err);
}

/* -------------------------------------------------------------- quoting */

/* PostgreSQL's quote_literal_cstr: E'...' when s has a backslash. */
static void quote_literal(lm_buf *o, const char *s, int32_t n) {
  if (memchr(s, '\\', (size_t)n))
    lm_buf_putc(o, 'E');
  lm_buf_putc(o, '\'');
  for (int32_t k = 0; k < n; k++) {
    if (s[k] == '\'' || s[k] == '\\')
      lm_buf_putc(o, s[k]);
    lm_buf_putc(o, s[k]);
  }
  lm_buf_putc(o, '\'');
}

/* -------------------------------------------------------------- format */

/* Appends s[0, n) padded with spaces to `width` characters (left-aligned
 * when minus). */
static void pad_append(lm_buf *o, const char *s, int32_t n, bool minus,
                       int64_t width) {
  int64_t pad = width - nchars(s, n);
  if (!minus)
    for (int64_t k = 0; k < pad; k++)
      lm_buf_putc(o, ' ');
  lm_buf_append(o, s, (size_t)n);
  if (minus)
    for (int64_t k = 0; k < pad; k++)
      lm_buf_putc(o, ' ');
}

/* Reads digits at f[*k] into *n; false when there is none. Error (set,
 * *bad) on overflow. */
static bool digits(const lm_bexpr *e, const char *f, int32_t fl, int32_t *k,
                   int64_t *n, int *bad, lm_error *err) {
  if (*k >= fl || f[*k] < '0' || f[*k] > '9')
    return false;
  int64_t v = 0;
  while (*k < fl && f[*k] >= '0' && f[*k] <= '9') {
    v = v * 10 + (f[*k] - '0');
    if (v > INT32_MAX) {
      *bad = lm_fn_error(err, e, "22003", "number is out of range");
      return false;
    }
    (*k)++;
  }
  *n = v;
  return true;
}

/* The text of argument j (1-based in e's arguments) at row i: a BOOLEAN
 * prints as t / f (its output function). NULL: *null. */
static const char *fmt_arg(lm_array *a, int64_t i, int32_t *len, bool *null) {
  *null = lm_farg_null(a, i);
  if (*null)
    return NULL;
  if (a->type.id == LM_TYPE_BOOL) {
    *len = 1;
    return lm_array_bool(a, i) ? "t" : "f";
  }
  return lm_array_str(a, i, len);
}

static int format(const lm_bexpr *e, lm_array *const *a, int64_t i,
                  lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t fl;
  const char *f = arg_str(a[0], i, &fl);
  int nargs = e->n_args; /* a[1 .. nargs - 1] are the values */
  int arg = 1, bad = 0;
  lm_buf_reset(o);
#define ADVANCE()                                                              \
  do {                                                                         \
    if (++k >= fl)                                                             \
      return lm_fn_error(err, e, "22023",                                      \
                         "unterminated format() type specifier");              \
  } while (0)
  for (int32_t k = 0; k < fl; k++) {
    if (f[k] != '%') {
      lm_buf_putc(o, f[k]);
      continue;
    }
    ADVANCE();
    if (f[k] == '%') {
      lm_buf_putc(o, '%');
      continue;
    }
    int64_t argpos = -1, widthpos = -1, width = 0, n = 0;
    bool minus = false, done = false;
    if (digits(e, f, fl, &k, &n, &bad, err)) {
      if (k >= fl)
        return lm_fn_error(err, e, "22023",
                           "unterminated format() type specifier");
      if (f[k] != '$') {
        width = n;
        done = true;
      } else {
        if (n == 0)
          return lm_fn_error(err, e, "22023",
                             "format specifies argument 0, but arguments are "
                             "numbered from 1");
        argpos = n;
        ADVANCE();
      }
    } else if (bad)
      return bad;
    else if (k >= fl)
      return lm_fn_error(err, e, "22023",
                         "unterminated format() type specifier");
    if (!done) {
      while (f[k] == '-') {
        minus = true;
        ADVANCE();
      }
      if (f[k] == '*') {
        ADVANCE();
        if (digits(e, f, fl, &k, &n, &bad, err)) {
          if (k >= fl)
            return lm_fn_error(err, e, "22023",
                               "unterminated format() type specifier");
          if (f[k] != '$')
            return lm_fn_error(err, e, "22023",
                               "width argument position must be ended by "
                               "\"$\"");
          if (n == 0)
            return lm_fn_error(err, e, "22023",
                               "format specifies argument 0, but arguments "
                               "are numbered from 1");
          widthpos = n;
          ADVANCE();
        } else if (bad)
          return bad;
        else
          widthpos = 0;
      } else if (digits(e, f, fl, &k, &n, &bad, err)) {
        width = n;
        if (k >= fl)
          return lm_fn_error(err, e, "22023",
                             "unterminated format() type specifier");
      } else if (bad)
        return bad;
    }
    char conv = f[k];
    if (conv != 's' && conv != 'I' && conv != 'L')
      return lm_fn_error(err, e, "22023",
                         "unrecognized format() type specifier \"%.*s\"",
                         (int)clen(f, fl, k), f + k);
    if (widthpos >= 0) {
      if (widthpos > 0)
        arg = (int)widthpos;
      if (arg >= nargs)
        return lm_fn_error(err, e, "22023", "too few arguments for format()");
      bool wn;
      int32_t wl;
      const char *ws = fmt_arg(a[arg], i, &wl, &wn);
      width = 0;
      if (!wn) {
        char t[32];
        int32_t m = wl < 31 ? wl : 31;
        memcpy(t, ws, (size_t)m);
        t[m] = '\0';
        char *end;
        long long v = strtoll(t, &end, 10);
        while (*end == ' ')
          end++;
        if (end == t || *end || v > INT32_MAX || v < INT32_MIN)
          return lm_fn_error(err, e, "22P02",
                             "invalid input syntax for type integer: \"%s\"",
                             t);
        width = v;
      }
      if (width < 0) {
        minus = true;
        width = -width;
      }
      arg++;
    }
    if (argpos > 0)
      arg = (int)argpos;
    if (arg >= nargs)
      return lm_fn_error(err, e, "22023", "too few arguments for format()");
    bool null;
    int32_t vl = 0;
    const char *v = fmt_arg(a[arg], i, &vl, &null);
    if (null) {
      if (conv == 'I')
        return lm_fn_error(err, e, "22004",
                           "null values cannot be formatted as an SQL "
                           "identifier");
      pad_append(o, conv == 'L' ? "NULL" : "", conv == 'L' ? 4 : 0, minus,
                 width);
    } else if (conv == 's') {
      pad_append(o, v, vl, minus, width);
    } else {
      lm_buf q;
      lm_buf_init(&q);
      if (conv == 'I')
        lm_quote_ident(&q, v, vl);
      else
        quote_literal(&q, v, vl);
      pad_append(o, q.data ? q.data : "", (int32_t)q.len, minus, width);
      lm_buf_free(&q);
    }
    arg++;
  }
#undef ADVANCE
  return put_result(b, o, err);
}

/* ---------------------------------------------------- similar_to_escape */

/* PostgreSQL's similar_escape_internal: the SIMILAR TO pattern p (escape
 * character esc, esc_len 0 for none) as a POSIX regular expression
 * ^(?:...)$, appended to o. 0 or an error. */
static int similar_regex(const lm_bexpr *e, const char *p, int32_t pl,
                         const char *esc, int32_t esc_len, lm_buf *o,
                         lm_error *err) {
  bool afterescape = false, incharclass = false;
  int nquotes = 0;
  lm_buf_puts(o, "^(?:");
  for (int32_t k = 0; k < pl;) {
    int32_t n = clen(p, pl, k);
    char pc = p[k];
    bool is_esc = esc_len > 0 && n == esc_len && !memcmp(p + k, esc, (size_t)n);
    if (afterescape) {
      if (pc == '"' && !incharclass) {
        if (nquotes == 0)
          lm_buf_puts(o, "){1,1}?(");
        else if (nquotes == 1)
          lm_buf_puts(o, "){1,1}(?:");
        else
          return lm_fn_error(err, e, "2200C",
                             "SQL regular expression may not contain more "
                             "than two escape-double-quote separators");
        nquotes++;
      } else {
        lm_buf_putc(o, '\\');
        lm_buf_append(o, p + k, (size_t)n);
      }
      afterescape = false;
    } else if (is_esc) {
      afterescape = true;
    } else if (incharclass) {
      if (pc == '\\')
        lm_buf_putc(o, '\\');
      lm_buf_append(o, p + k, (size_t)n);
      if (pc == ']')
        incharclass = false;
    } else if (pc == '[') {
      lm_buf_putc(o, '[');
      incharclass = true;
    } else if (pc == '%') {
      lm_buf_puts(o, ".*");
    } else if (pc == '_') {
      lm_buf_putc(o, '.');
    } else if (pc == '(') {
      lm_buf_puts(o, "(?:");
    } else if (pc == '\\' || pc == '.' || pc == '^' || pc == '$') {
      lm_buf_putc(o, '\\');
      lm_buf_putc(o, pc);
    } else {
      lm_buf_append(o, p + k, (size_t)n);
    }
    k += n;
  }
  lm_buf_puts(o, ")$");
  return 0;
}

static int similar_escape(const lm_bexpr *e, lm_array *const *a, int64_t i,
                          lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t pl, el = 1;
  const char *p = arg_str(a[0], i, &pl), *esc = "\\";
  if (e->n_args > 1) {
    esc = arg_str(a[1], i, &el);
    if (el > 0 && clen(esc, el, 0) != el)
      return lm_fn_error(err, e, "22025", "invalid escape string");
  }
  lm_buf_reset(o);
  int rc = similar_regex(e, p, pl, esc, el, o, err);
  return rc ? rc : put_result(b, o, err);
}

/* ------------------------------------------------------ encode / decode */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0 hex, 1 base64, 2 escape; -1 unknown. */
static int codec(const char *f, int32_t n) {
  static const char *const names[] = {"hex", "base64", "escape"};
  for (int k = 0; k < 3; k++)
    if ((size_t)n == strlen(names[k]) && !strncasecmp(f, names[k], (size_t)n))
      return k;
  return -1;
}

static int bad_codec(const lm_bexpr *e, const char *f, int32_t n,
                     lm_error *err) {
  return lm_fn_error(err, e, "22023", "unrecognized encoding: \"%.*s\"",
                     (int)(n > 100 ? 100 : n), f);
}

static int encode(const lm_bexpr *e, lm_array *const *a, int64_t i,
                  lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t sl, fl;
  const unsigned char *s = (const unsigned char *)arg_str(a[0], i, &sl);
  const char *f = arg_str(a[1], i, &fl);
  int c = codec(f, fl);
  if (c < 0)
    return bad_codec(e, f, fl, err);
  lm_buf_reset(o);
  if (c == 0) {
    for (int32_t k = 0; k < sl; k++) {
      lm_buf_putc(o, "0123456789abcdef"[s[k] >> 4]);
      lm_buf_putc(o, "0123456789abcdef"[s[k] & 15]);
    }
  } else if (c == 1) { /* pg_base64_encode: a newline after 76 characters */
    size_t lend = 76;
    int pos = 2;
    uint32_t buf = 0;
    for (int32_t k = 0; k < sl; k++) {
      buf |= (uint32_t)s[k] << (pos << 3);
      if (--pos < 0) {
        lm_buf_putc(o, b64[(buf >> 18) & 0x3f]);
        lm_buf_putc(o, b64[(buf >> 12) & 0x3f]);
        lm_buf_putc(o, b64[(buf >> 6) & 0x3f]);
        lm_buf_putc(o, b64[buf & 0x3f]);
        pos = 2;
        buf = 0;
      }
      if (o->len >= lend) {
        lm_buf_putc(o, '\n');
        lend = o->len + 76;
      }
    }
    if (pos != 2) {
      lm_buf_putc(o, b64[(buf >> 18) & 0x3f]);
      lm_buf_putc(o, b64[(buf >> 12) & 0x3f]);
      lm_buf_putc(o, pos == 0 ? b64[(buf >> 6) & 0x3f] : '=');
      lm_buf_putc(o, '=');
    }
  } else {
    for (int32_t k = 0; k < sl; k++) {
      if (s[k] == 0 || s[k] >= 0x80) {
        lm_buf_putc(o, '\\');
        lm_buf_putc(o, (char)('0' + ((s[k] >> 6) & 3)));
        lm_buf_putc(o, (char)('0' + ((s[k] >> 3) & 7)));
        lm_buf_putc(o, (char)('0' + (s[k] & 7)));
      } else if (s[k] == '\\') {
        lm_buf_puts(o, "\\\\");
      } else {
        lm_buf_putc(o, (char)s[k]);
      }
    }
  }
  return put_result(b, o, err);
}

static int hexval(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

static int decode(const lm_bexpr *e, lm_array *const *a, int64_t i,
                  lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t sl, fl;
  const char *s = arg_str(a[0], i, &sl);
  const char *f = arg_str(a[1], i, &fl);
  int c = codec(f, fl);
  if (c < 0)
    return bad_codec(e, f, fl, err);
  lm_buf_reset(o);
  if (c == 0) {
    for (int32_t k = 0; k < sl;) {
      if (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r') {
        k++;
        continue;
      }
      int hi = hexval(s[k]);
      if (hi < 0)
        return lm_fn_error(err, e, "22023",
                           "invalid hexadecimal digit: \"%.*s\"",
                           (int)clen(s, sl, k), s + k);
      if (++k >= sl)
        return lm_fn_error(err, e, "22023",
                           "invalid hexadecimal data: odd number of digits");
      int lo = hexval(s[k]);
      if (lo < 0)
        return lm_fn_error(err, e, "22023",
                           "invalid hexadecimal digit: \"%.*s\"",
                           (int)clen(s, sl, k), s + k);
      k++;
      lm_buf_putc(o, (char)(hi << 4 | lo));
    }
  } else if (c == 1) { /* pg_base64_decode */
    uint32_t buf = 0;
    int pos = 0, end = 0;
    for (int32_t k = 0; k < sl; k++) {
      char ch = s[k];
      int v;
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
        continue;
      if (ch == '=') {
        if (!end) {
          if (pos == 2)
            end = 1;
          else if (pos == 3)
            end = 2;
          else
            return lm_fn_error(err, e, "22023",
                               "unexpected \"=\" while decoding base64 "
                               "sequence");
        }
        v = 0;
      } else {
        const char *q = ch > 0 ? strchr(b64, ch) : NULL;
        if (!q || !ch)
          return lm_fn_error(err, e, "22023",
                             "invalid symbol \"%.*s\" found while decoding "
                             "base64 sequence",
                             (int)clen(s, sl, k), s + k);
        v = (int)(q - b64);
      }
      buf = (buf << 6) + (uint32_t)v;
      if (++pos == 4) {
        lm_buf_putc(o, (char)((buf >> 16) & 255));
        if (end == 0 || end > 1)
          lm_buf_putc(o, (char)((buf >> 8) & 255));
        if (end == 0 || end > 2)
          lm_buf_putc(o, (char)(buf & 255));
        buf = 0;
        pos = 0;
      }
    }
    if (pos != 0)
      return lm_fn_error(err, e, "22023", "invalid base64 end sequence");
  } else { /* esc_decode */
    for (int32_t k = 0; k < sl;) {
      if (s[k] != '\\') {
        lm_buf_putc(o, s[k++]);
      } else if (k + 3 < sl && s[k + 1] >= '0' && s[k + 1] <= '3' &&
                 s[k + 2] >= '0' && s[k + 2] <= '7' && s[k + 3] >= '0' &&
                 s[k + 3] <= '7') {
        lm_buf_putc(o, (char)(((s[k + 1] - '0') << 6) |
                              ((s[k + 2] - '0') << 3) | (s[k + 3] - '0')));
        k += 4;
      } else if (k + 1 < sl && s[k + 1] == '\\') {
        lm_buf_putc(o, '\\');
        k += 2;
      } else {
        return lm_fn_error(err, e, "22P02",
                           "invalid input syntax for type bytea");
      }
    }
  }
  return put_result(b, o, err);
}

/* ---------------------------------------------------------------- rows */

static int fmtfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                     lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  int32_t n;
  switch (e->fn) {
  case LM_FN_TRANSLATE:
    return translate(e, a, i, b, o, err);
  case LM_FN_OVERLAY:
    return overlay(e, a, i, b, o, err);
  case LM_FN_BIT_LENGTH:
    arg_str(a[0], i, &n);
    lm_builder_append_int(b, (int64_t)n * 8);
    return 0;
  case LM_FN_FORMAT:
    return format(e, a, i, b, o, err);
  case LM_FN_QUOTE_IDENT:
  case LM_FN_QUOTE_LITERAL:
  case LM_FN_QUOTE_NULLABLE: {
    lm_buf_reset(o);
    if (lm_farg_null(a[0], i)) {
      lm_buf_puts(o, "NULL"); /* quote_nullable (the others are strict) */
      return put_result(b, o, err);
    }
    const char *s = arg_str(a[0], i, &n);
    if (e->fn == LM_FN_QUOTE_IDENT)
      lm_quote_ident(o, s, n);
    else
      quote_literal(o, s, n);
    return put_result(b, o, err);
  }
  case LM_FN_SIMILAR_ESCAPE:
    return similar_escape(e, a, i, b, o, err);
  case LM_FN_ENCODE:
    return encode(e, a, i, b, o, err);
  case LM_FN_DECODE:
    return decode(e, a, i, b, o, err);
  case LM_FN_SHA256: {
    const char *s = arg_str(a[0], i, &n);
    uint8_t d[SHA256_DIGEST_SIZE];
    struct sha256_ctx h; /* Nettle's (nettle-dev) */
    sha256_init(&h);
    if (n > 0)
      sha256_update(&h, (size_t)n, (const uint8_t *)s);
    sha256_digest(&h, sizeof d, d);
    lm_builder_append_str(b, (const char *)d, 32);
    return 0;
  }
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
}

int lm_fmtfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  int strict = e->fn == LM_FN_FORMAT           ? 1
               : e->fn == LM_FN_QUOTE_NULLABLE ? 0
                                               : e->n_args;
  return lm_fn_rows(e, in, strict, fmtfn_row, NULL, out, err);
}
