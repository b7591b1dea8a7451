/*
 * format/toml.c — TOML 1.0.0 reader (see lm_toml.h) and ${VAR} expansion.
 *
 * One pass, recursive descent over the document text. Table semantics
 * (TOML 1.0.0, sections "Table", "Inline Table", "Array of Tables") are
 * tracked with flags on each table:
 *   F_EXPLICIT  defined by a [header] (cannot be defined again);
 *   F_IMPLICIT  created as a super-table of a header ([a.b] creates a);
 *               may later be defined once by its own header;
 *   F_DOTTED    created by a dotted key (a.b = 1 creates a); can be
 *               extended by further dotted keys in the same section and by
 *               sub-table headers, never defined by a header;
 *   F_INLINE    an inline table: sealed, nothing may be added;
 *   F_AOT       an array created by [[header]] (static arrays may not be
 *               appended to).
 */
#include "format/lm_toml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  F_EXPLICIT = 1u << 0,
  F_IMPLICIT = 1u << 1,
  F_DOTTED = 1u << 2,
  F_INLINE = 1u << 3,
  F_AOT = 1u << 4,
};

#define MAX_KEY_PARTS LM_TOML_MAX_DEPTH

typedef struct key_part {
  char *s;
  size_t len;
  const char *at; /* position in the text, for errors */
} key_part;

typedef struct key_path {
  key_part parts[MAX_KEY_PARTS];
  int n;
} key_path;

typedef struct parser {
  const char *start, *p, *end;
  lm_error *err;
  int rc; /* first error code */
  /* line/column cache for pos_of() */
  const char *pos_at, *pos_line_start;
  int pos_line;
  lm_toml_value *root;
  lm_toml_value *cur; /* table receiving key/values */
  lm_buf scratch;
} parser;

/* ------------------------------------------------------------ positions */

static bool is_cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

static void pos_of(parser *P, const char *at, int *line, int *col) {
  if (at < P->pos_at) {
    P->pos_at = P->start;
    P->pos_line_start = P->start;
    P->pos_line = 1;
  }
  for (const char *q = P->pos_at; q < at; q++) {
    if (*q == '\n') {
      P->pos_line++;
      P->pos_line_start = q + 1;
    }
  }
  P->pos_at = at;
  int c = 1;
  for (const char *q = P->pos_line_start; q < at; q++)
    if (!is_cont((unsigned char)*q))
      c++;
  *line = P->pos_line;
  *col = c;
}

static int fail_code(parser *P, int code, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_code(parser *P, int code, const char *at, const char *fmt,
                     ...) {
  if (P->rc)
    return P->rc;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int line, col;
  if (at > P->end)
    at = P->end;
  pos_of(P, at, &line, &col);
  P->rc = code;
  lm_err_at(P->err, code, line, col, "%s", msg);
  return code;
}
#define fail(P, at, ...) fail_code(P, LM_ERR_PARSE, at, __VA_ARGS__)

static int nomem(parser *P) {
  if (!P->rc) {
    P->rc = LM_ERR_NOMEM;
    lm_err(P->err, LM_ERR_NOMEM, "out of memory while parsing TOML");
  }
  return LM_ERR_NOMEM;
}

/* Printable form of a key for messages (quoted, escapes control chars). */
static const char *show_key(const char *s, size_t len, char *buf, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < len && o + 5 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f) {
      o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    } else {
      buf[o++] = (char)c;
    }
  }
  if (o + 5 >= cap && cap > 4) {
    memcpy(buf + cap - 4, "...", 4);
    return buf;
  }
  buf[o] = '\0';
  return buf;
}

static const char *show_path(const key_path *k, int upto, char *buf,
                             size_t cap) {
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i <= upto && i < k->n; i++) {
    char part[128];
    show_key(k->parts[i].s, k->parts[i].len, part, sizeof part);
    int n = snprintf(buf + o, cap - o, "%s%s", i ? "." : "", part);
    if (n < 0 || (size_t)n >= cap - o)
      break;
    o += (size_t)n;
  }
  return buf;
}

/* ---------------------------------------------------------------- values */

const char *lm_toml_kind_name(lm_toml_kind k) {
  switch (k) {
  case LM_TOML_TABLE:
    return "table";
  case LM_TOML_ARRAY:
    return "array";
  case LM_TOML_STRING:
    return "string";
  case LM_TOML_INT:
    return "integer";
  case LM_TOML_FLOAT:
    return "float";
  case LM_TOML_BOOL:
    return "boolean";
  case LM_TOML_DATETIME:
    return "datetime";
  }
  return "?";
}

static lm_toml_value *new_value(parser *P, lm_toml_kind kind, const char *at,
                                int depth) {
  lm_toml_value *v = calloc(1, sizeof *v);
  if (!v) {
    nomem(P);
    return NULL;
  }
  v->kind = kind;
  v->depth = depth;
  if (P && at)
    pos_of(P, at, &v->line, &v->column);
  return v;
}

void lm_toml_free(lm_toml_value *v) {
  if (!v)
    return;
  switch (v->kind) {
  case LM_TOML_TABLE:
    for (size_t i = 0; i < v->u.table.len; i++) {
      free(v->u.table.entries[i].key);
      lm_toml_free(v->u.table.entries[i].value);
    }
    free(v->u.table.entries);
    free(v->u.table.index);
    break;
  case LM_TOML_ARRAY:
    for (size_t i = 0; i < v->u.array.len; i++)
      lm_toml_free(v->u.array.items[i]);
    free(v->u.array.items);
    break;
  case LM_TOML_STRING:
  case LM_TOML_DATETIME:
    free(v->u.str.ptr);
    break;
  default:
    break;
  }
  free(v);
}

/* Tables keep entries in order plus, past a few entries, an open-addressing
 * index (slot = entry index + 1, 0 = empty) so that big tables stay O(1). */
#define INDEX_MIN_ENTRIES 8

static uint64_t key_hash(const char *s, size_t n) {
  return lm_hash_bytes(s, n, 0x746f6d6cULL);
}

static int table_reindex(lm_toml_value *t, size_t cap) {
  uint32_t *idx = calloc(cap, sizeof *idx);
  if (!idx)
    return LM_ERR_NOMEM;
  for (size_t i = 0; i < t->u.table.len; i++) {
    lm_toml_entry *e = &t->u.table.entries[i];
    size_t h = (size_t)key_hash(e->key, e->key_len) & (cap - 1);
    while (idx[h])
      h = (h + 1) & (cap - 1);
    idx[h] = (uint32_t)(i + 1);
  }
  free(t->u.table.index);
  t->u.table.index = idx;
  t->u.table.index_cap = cap;
  return 0;
}

const lm_toml_value *lm_toml_table_get(const lm_toml_value *t, const char *key,
                                       size_t key_len) {
  if (!t || t->kind != LM_TOML_TABLE)
    return NULL;
  if (t->u.table.index) {
    size_t cap = t->u.table.index_cap;
    size_t h = (size_t)key_hash(key, key_len) & (cap - 1);
    for (uint32_t slot; (slot = t->u.table.index[h]) != 0;
         h = (h + 1) & (cap - 1)) {
      const lm_toml_entry *e = &t->u.table.entries[slot - 1];
      if (e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
        return e->value;
    }
    return NULL;
  }
  for (size_t i = 0; i < t->u.table.len; i++) {
    const lm_toml_entry *e = &t->u.table.entries[i];
    if (e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
      return e->value;
  }
  return NULL;
}

static lm_toml_value *table_find(lm_toml_value *t, const key_part *k) {
  return (lm_toml_value *)lm_toml_table_get(t, k->s, k->len);
}

/* Adds key -> v (the key must be absent). Takes ownership of v, also on
 * failure. */
static int table_add(parser *P, lm_toml_value *t, const key_part *k,
                     lm_toml_value *v) {
  if (t->u.table.len == t->u.table.cap) {
    size_t cap = t->u.table.cap ? t->u.table.cap * 2 : 4;
    lm_toml_entry *e = realloc(t->u.table.entries, cap * sizeof *e);
    if (!e) {
      lm_toml_free(v);
      return nomem(P);
    }
    t->u.table.entries = e;
    t->u.table.cap = cap;
  }
  char *key = malloc(k->len + 1);
  if (!key) {
    lm_toml_free(v);
    return nomem(P);
  }
  memcpy(key, k->s, k->len);
  key[k->len] = '\0';
  lm_toml_entry *e = &t->u.table.entries[t->u.table.len++];
  e->key = key;
  e->key_len = k->len;
  e->value = v;
  size_t n = t->u.table.len;
  if (n >= INDEX_MIN_ENTRIES) {
    if (!t->u.table.index || n * 2 > t->u.table.index_cap) {
      size_t cap = 32;
      while (cap < n * 4)
        cap *= 2;
      if (table_reindex(t, cap))
        return nomem(P);
    } else {
      size_t cap = t->u.table.index_cap;
      size_t h = (size_t)key_hash(key, k->len) & (cap - 1);
      while (t->u.table.index[h])
        h = (h + 1) & (cap - 1);
      t->u.table.index[h] = (uint32_t)n;
    }
  }
  return 0;
}

/* Appends v to array a; takes ownership of v, also on failure. */
static int array_push(parser *P, lm_toml_value *a, lm_toml_value *v) {
  if (a->u.array.len == a->u.array.cap) {
    size_t cap = a->u.array.cap ? a->u.array.cap * 2 : 4;
    lm_toml_value **items = realloc(a->u.array.items, cap * sizeof *items);
    if (!items) {
      lm_toml_free(v);
      return nomem(P);
    }
    a->u.array.items = items;
    a->u.array.cap = cap;
  }
  a->u.array.items[a->u.array.len++] = v;
  return 0;
}

/* ----------------------------------------------------- UTF-8 validation */

/* Length of the valid UTF-8 sequence at s (1..4) or 0 if invalid
 * (overlong forms, surrogates and values past U+10FFFF are invalid). */
static int utf8_len(const unsigned char *s, const unsigned char *end) {
  unsigned c = s[0];
  if (c < 0x80)
    return 1;
  size_t avail = (size_t)(end - s);
  if (c >= 0xC2 && c <= 0xDF)
    return avail >= 2 && is_cont(s[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (avail < 3 || !is_cont(s[1]) || !is_cont(s[2]))
      return 0;
    if (c == 0xE0 && s[1] < 0xA0)
      return 0; /* overlong */
    if (c == 0xED && s[1] >= 0xA0)
      return 0; /* surrogate */
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (avail < 4 || !is_cont(s[1]) || !is_cont(s[2]) || !is_cont(s[3]))
      return 0;
    if (c == 0xF0 && s[1] < 0x90)
      return 0; /* overlong */
    if (c == 0xF4 && s[1] >= 0x90)
      return 0; /* > U+10FFFF */
    return 4;
  }
  return 0;
}

static int validate_utf8(parser *P) {
  const unsigned char *s = (const unsigned char *)P->start;
  const unsigned char *end = (const unsigned char *)P->end;
  while (s < end) {
    if (*s < 0x80) {
      s++;
      continue;
    }
    int n = utf8_len(s, end);
    if (!n)
      return fail(P, (const char *)s, "invalid UTF-8 byte 0x%02x", *s);
    s += n;
  }
  return 0;
}

static int utf8_put(lm_buf *b, uint32_t cp) {
  char tmp[4];
  size_t n;
  if (cp < 0x80) {
    tmp[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    tmp[0] = (char)(0xC0 | (cp >> 6));
    tmp[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    tmp[0] = (char)(0xE0 | (cp >> 12));
    tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    tmp[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    tmp[0] = (char)(0xF0 | (cp >> 18));
    tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    tmp[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return lm_buf_append(b, tmp, n);
}

/* ------------------------------------------------------------- scanning */

static bool at_end(const parser *P) {
  return P->p >= P->end;
}
static int peek(const parser *P) {
  return P->p < P->end ? (unsigned char)*P->p : -1;
}
static int peek_at(const parser *P, size_t off) {
  return (size_t)(P->end - P->p) > off ? (unsigned char)P->p[off] : -1;
}

static void skip_ws(parser *P) {
  while (P->p < P->end && (*P->p == ' ' || *P->p == '\t'))
    P->p++;
}

/* Is the character allowed in a comment (TOML 1.0.0 "Comment": any
 * Unicode except control characters other than tab)? */
static bool comment_char_ok(unsigned char c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* At '#': skips the comment up to (not including) the newline. */
static int skip_comment(parser *P) {
  P->p++;
  while (P->p < P->end && *P->p != '\n') {
    unsigned char c = (unsigned char)*P->p;
    if (c == '\r' && peek_at(P, 1) == '\n')
      break;
    if (!comment_char_ok(c))
      return fail(P, P->p, "control character 0x%02x in comment", c);
    P->p++;
  }
  return 0;
}

/* Consumes one newline (LF or CRLF) if present; returns true if it did. A
 * CR not followed by LF is an error (fills P->rc). */
static bool eat_newline(parser *P) {
  if (peek(P) == '\n') {
    P->p++;
    return true;
  }
  if (peek(P) == '\r') {
    if (peek_at(P, 1) == '\n') {
      P->p += 2;
      return true;
    }
    fail(P, P->p, "carriage return not followed by a newline");
  }
  return false;
}

/* Skips whitespace, comments and newlines (inside arrays). */
static int skip_ws_nl(parser *P) {
  for (;;) {
    skip_ws(P);
    if (peek(P) == '#') {
      if (skip_comment(P))
        return P->rc;
      continue;
    }
    if (eat_newline(P))
      continue;
    return P->rc;
  }
}

/* After a key/value or header: whitespace, optional comment, then a
 * newline or the end of input. */
static int expect_eol(parser *P, const char *what) {
  skip_ws(P);
  if (peek(P) == '#' && skip_comment(P))
    return P->rc;
  if (at_end(P))
    return 0;
  if (eat_newline(P))
    return 0;
  if (P->rc)
    return P->rc;
  return fail(P, P->p, "expected a newline after %s", what);
}

static bool is_bare_key_char(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* --------------------------------------------------------------- strings */

/* Characters allowed as-is in strings (TOML 1.0.0 "String"): anything but
 * control characters other than tab; newlines handled by the caller. */
static bool string_char_ok(unsigned char c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Parses an escape sequence at P->p (just after the backslash) into out. */
static int parse_escape(parser *P, lm_buf *out) {
  const char *at = P->p - 1;
  int c = peek(P);
  char ch;
  switch (c) {
  case 'b':
    ch = '\b';
    break;
  case 't':
    ch = '\t';
    break;
  case 'n':
    ch = '\n';
    break;
  case 'f':
    ch = '\f';
    break;
  case 'r':
    ch = '\r';
    break;
  case '"':
    ch = '"';
    break;
  case '\\':
    ch = '\\';
    break;
  case 'u':
  case 'U': {
    int n = c == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (int i = 1; i <= n; i++) {
      int h = lm_hex_digit(peek_at(P, (size_t)i));
      if (h < 0)
        return fail(P, at, "\\%c escape needs %d hexadecimal digits", c, n);
      cp = cp * 16 + (uint32_t)h;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return fail(P, at, "\\%c%0*X is not a Unicode scalar value", c, n,
                  (unsigned)cp);
    P->p += n + 1;
    return utf8_put(out, cp) ? nomem(P) : 0;
  }
  default:
    if (c < 0)
      return fail(P, at, "unterminated string");
    if (c >= 0x20 && c < 0x7f)
      return fail(P, at, "invalid escape sequence '\\%c'", c);
    return fail(P, at, "invalid escape sequence");
  }
  P->p++;
  return lm_buf_putc(out, ch) ? nomem(P) : 0;
}

/* Parses a string of any of the four kinds at P->p (at the opening quote)
 * into P->scratch. `allow_multi` is false for keys. */
static int parse_string(parser *P, bool allow_multi) {
  const char *open = P->p;
  char q = *P->p;
  bool literal = q == '\'';
  bool multi = allow_multi && peek_at(P, 1) == q && peek_at(P, 2) == q;
  lm_buf *out = &P->scratch;
  lm_buf_reset(out);
  if (lm_buf_reserve(out, 16))
    return nomem(P);
  out->data[0] = '\0';
  if (!multi) {
    P->p++;
    for (;;) {
      if (at_end(P))
        return fail(P, open, "unterminated string");
      unsigned char c = (unsigned char)*P->p;
      if (c == (unsigned char)q) {
        P->p++;
        return 0;
      }
      if (c == '\n' || c == '\r')
        return fail(P, P->p, "newline in a single-line string");
      if (!literal && c == '\\') {
        P->p++;
        if (parse_escape(P, out))
          return P->rc;
        continue;
      }
      if (!string_char_ok(c))
        return fail(P, P->p, "control character 0x%02x in string", c);
      const char *s = P->p;
      while (P->p < P->end && *P->p != q && (literal || *P->p != '\\') &&
             string_char_ok((unsigned char)*P->p))
        P->p++;
      if (lm_buf_append(out, s, (size_t)(P->p - s)))
        return nomem(P);
    }
  }
  /* multi-line: a newline right after the opening delimiter is trimmed */
  P->p += 3;
  if (eat_newline(P)) {
  } else if (P->rc) {
    return P->rc;
  }
  for (;;) {
    if (at_end(P))
      return fail(P, open, "unterminated multi-line string");
    unsigned char c = (unsigned char)*P->p;
    if (c == (unsigned char)q) {
      size_t n = 0;
      while (P->p + n < P->end && P->p[n] == q)
        n++;
      if (n >= 3) {
        if (n > 5)
          return fail(P, P->p, "too many quotes at the end of a string");
        if (lm_buf_append(out, P->p, n - 3))
          return nomem(P);
        P->p += n;
        return 0;
      }
      if (lm_buf_append(out, P->p, n))
        return nomem(P);
      P->p += n;
      continue;
    }
    if (c == '\n' || c == '\r') {
      const char *nl = P->p;
      if (!eat_newline(P))
        return P->rc;
      if (lm_buf_append(out, nl, (size_t)(P->p - nl)))
        return nomem(P);
      continue;
    }
    if (!literal && c == '\\') {
      /* line-ending backslash: '\' ws* newline, then all whitespace and
       * newlines up to the next non-whitespace character are trimmed */
      const char *b = P->p + 1;
      while (b < P->end && (*b == ' ' || *b == '\t'))
        b++;
      if (b < P->end &&
          (*b == '\n' || (*b == '\r' && b + 1 < P->end && b[1] == '\n'))) {
        P->p = b;
        for (;;) {
          skip_ws(P);
          if (!eat_newline(P))
            break;
        }
        if (P->rc)
          return P->rc;
        continue;
      }
      P->p++;
      if (parse_escape(P, out))
        return P->rc;
      continue;
    }
    if (!string_char_ok(c))
      return fail(P, P->p, "control character 0x%02x in string", c);
    const char *s = P->p;
    while (P->p < P->end && *P->p != q && (literal || *P->p != '\\') &&
           *P->p != '\n' && *P->p != '\r' &&
           string_char_ok((unsigned char)*P->p))
      P->p++;
    if (lm_buf_append(out, s, (size_t)(P->p - s)))
      return nomem(P);
  }
}

/* ------------------------------------------------------------------ keys */

static void key_path_free(key_path *k) {
  for (int i = 0; i < k->n; i++)
    free(k->parts[i].s);
  k->n = 0;
}

/* Parses a (possibly dotted) key, leaving P->p after its last part and any
 * whitespace after it. */
static int parse_key(parser *P, key_path *k) {
  k->n = 0;
  for (;;) {
    skip_ws(P);
    if (k->n == MAX_KEY_PARTS)
      return fail_code(P, LM_ERR_LIMIT, P->p, "key has more than %d parts",
                       MAX_KEY_PARTS);
    key_part *part = &k->parts[k->n];
    part->at = P->p;
    int c = peek(P);
    if (c == '"' || c == '\'') {
      if (peek_at(P, 1) == c && peek_at(P, 2) == c)
        return fail(P, P->p, "multi-line strings cannot be keys");
      if (parse_string(P, false))
        return P->rc;
      part->len = P->scratch.len;
      part->s = malloc(part->len + 1);
      if (!part->s)
        return nomem(P);
      memcpy(part->s, P->scratch.data, part->len);
      part->s[part->len] = '\0';
    } else if (is_bare_key_char(c)) {
      const char *s = P->p;
      while (is_bare_key_char(peek(P)))
        P->p++;
      part->s = lm_strndup(s, (size_t)(P->p - s));
      if (!part->s)
        return nomem(P);
      part->len = (size_t)(P->p - s);
    } else if (c < 0 || c == '\n' || c == '\r') {
      return fail(P, P->p, "expected a key");
    } else if (c == '=' || c == '.' || c == ']') {
      return fail(P, P->p, "expected a key before '%c'", c);
    } else if (c >= 0x20 && c < 0x7f) {
      return fail(P, P->p, "invalid character '%c' in a key", c);
    } else {
      return fail(P, P->p, "invalid character in a key");
    }
    k->n++;
    skip_ws(P);
    if (peek(P) != '.')
      return 0;
    P->p++;
  }
}

/* ------------------------------------------------------ numbers & dates */

static bool is_digit(int c) {
  return c >= '0' && c <= '9';
}

/* Reads exactly n digits at s into *v. */
static bool digits_n(const char *s, const char *end, int n, int *v) {
  if (end - s < n)
    return false;
  int x = 0;
  for (int i = 0; i < n; i++) {
    if (!is_digit((unsigned char)s[i]))
      return false;
    x = x * 10 + (s[i] - '0');
  }
  *v = x;
  return true;
}

static int days_in_month(int y, int m) {
  static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 29;
  return d[m - 1];
}

/* Parses time "HH:MM:SS[.frac]" at s; returns chars used or 0. */
static size_t scan_time(const char *s, const char *end, lm_toml_datetime *dt) {
  int h, m, sec;
  if (!digits_n(s, end, 2, &h) || end - s < 8 || s[2] != ':' ||
      !digits_n(s + 3, end, 2, &m) || s[5] != ':' ||
      !digits_n(s + 6, end, 2, &sec))
    return 0;
  if (h > 23 || m > 59 || sec > 60)
    return 0;
  dt->hour = h;
  dt->minute = m;
  dt->second = sec;
  dt->nanosecond = 0;
  size_t n = 8;
  if (s + n < end && s[n] == '.') {
    n++;
    int nd = 0;
    while (s + n < end && is_digit((unsigned char)s[n])) {
      if (nd < 9)
        dt->nanosecond = dt->nanosecond * 10 + (s[n] - '0');
      nd++;
      n++;
    }
    if (nd == 0)
      return 0;
    for (int i = nd; i < 9; i++)
      dt->nanosecond *= 10;
  }
  return n;
}

/* Parses a date/time token [s, end) (TOML 1.0.0 "Offset Date-Time" ...
 * "Local Time"). Returns 0 or fails. */
static int parse_datetime(parser *P, const char *s, const char *end,
                          lm_toml_value *v) {
  lm_toml_datetime dt;
  memset(&dt, 0, sizeof dt);
  const char *q = s;
  if (end - s >= 3 && s[2] == ':') {
    size_t n = scan_time(q, end, &dt);
    if (!n || q + n != end)
      return fail(P, s, "invalid local time");
    dt.kind = LM_TOML_DT_TIME;
  } else {
    int y, m, d;
    if (!digits_n(q, end, 4, &y) || end - q < 10 || q[4] != '-' ||
        !digits_n(q + 5, end, 2, &m) || q[7] != '-' ||
        !digits_n(q + 8, end, 2, &d))
      return fail(P, s, "invalid date (expected YYYY-MM-DD)");
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
      return fail(P, s, "invalid date %04d-%02d-%02d", y, m, d);
    dt.year = y;
    dt.month = m;
    dt.day = d;
    q += 10;
    if (q == end) {
      dt.kind = LM_TOML_DT_DATE;
    } else {
      if (*q != 'T' && *q != 't' && *q != ' ')
        return fail(P, q, "invalid date-time");
      q++;
      size_t n = scan_time(q, end, &dt);
      if (!n)
        return fail(P, q, "invalid time");
      q += n;
      if (q == end) {
        dt.kind = LM_TOML_DT_LOCAL;
      } else if ((*q == 'Z' || *q == 'z') && q + 1 == end) {
        dt.kind = LM_TOML_DT_OFFSET;
      } else if ((*q == '+' || *q == '-') && end - q == 6) {
        int oh, om;
        if (!digits_n(q + 1, end, 2, &oh) || q[3] != ':' ||
            !digits_n(q + 4, end, 2, &om) || oh > 23 || om > 59)
          return fail(P, q, "invalid time offset");
        dt.kind = LM_TOML_DT_OFFSET;
        dt.offset_minutes = (oh * 60 + om) * (*q == '-' ? -1 : 1);
      } else {
        return fail(P, q, "invalid time offset");
      }
    }
  }
  size_t len = (size_t)(end - s);
  char *text = malloc(len + 1);
  if (!text)
    return nomem(P);
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (i == 10 && (c == ' ' || c == 't'))
      c = 'T';
    if (c == 'z')
      c = 'Z';
    text[i] = c;
  }
  text[len] = '\0';
  v->kind = LM_TOML_DATETIME;
  v->u.str.ptr = text;
  v->u.str.len = len;
  v->dt = dt;
  return 0;
}

/* Copies digits of [s, end) into buf without underscores, checking that
 * each underscore sits between two digits of `base`. Returns false on a
 * misplaced underscore or a non-digit. */
static bool strip_underscores(const char *s, const char *end, int base,
                              char *buf, size_t cap, size_t *n) {
  size_t o = 0;
  bool prev_digit = false;
  for (const char *q = s; q < end; q++) {
    int c = (unsigned char)*q;
    if (c == '_') {
      if (!prev_digit || q + 1 >= end || lm_hex_digit(q[1]) < 0 ||
          lm_hex_digit(q[1]) >= base)
        return false;
      prev_digit = false;
      continue;
    }
    int h = lm_hex_digit(c);
    if (h < 0 || h >= base)
      return false;
    if (o + 1 >= cap)
      return false;
    buf[o++] = (char)c;
    prev_digit = true;
  }
  buf[o] = '\0';
  *n = o;
  return o > 0;
}

/* Parses an integer or float token [s, end) (TOML 1.0.0 "Integer",
 * "Float"). */
static int parse_number(parser *P, const char *s, const char *end,
                        lm_toml_value *v) {
  const char *q = s;
  bool neg = false, sign = false;
  if (*q == '+' || *q == '-') {
    neg = *q == '-';
    sign = true;
    q++;
  }
  size_t rest = (size_t)(end - q);
  if ((rest == 3 && memcmp(q, "inf", 3) == 0) ||
      (rest == 3 && memcmp(q, "nan", 3) == 0)) {
    v->kind = LM_TOML_FLOAT;
    v->u.f = q[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
    return 0;
  }
  if (q == end)
    return fail(P, s, "expected a number");
  char buf[512];
  size_t n;
  /* prefixed integers */
  if (rest > 1 && q[0] == '0' && (q[1] == 'x' || q[1] == 'o' || q[1] == 'b')) {
    int base = q[1] == 'x' ? 16 : q[1] == 'o' ? 8 : 2;
    if (sign)
      return fail(P, s, "a sign is not allowed on 0%c integers", q[1]);
    if (!strip_underscores(q + 2, end, base, buf, sizeof buf, &n))
      return fail(P, s, "invalid base-%d integer", base);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t d = (uint64_t)lm_hex_digit((unsigned char)buf[i]);
      if (x > (UINT64_MAX - d) / (uint64_t)base)
        return fail(P, s, "integer out of range");
      x = x * (uint64_t)base + d;
    }
    if (x > (uint64_t)INT64_MAX)
      return fail(P, s, "integer out of range");
    v->kind = LM_TOML_INT;
    v->u.i = (int64_t)x;
    return 0;
  }
  /* split decimal integer part / fraction / exponent */
  const char *ip_end = q;
  while (ip_end < end && (is_digit((unsigned char)*ip_end) || *ip_end == '_'))
    ip_end++;
  if (ip_end == q || !is_digit((unsigned char)*q))
    return fail(P, s, "invalid number");
  if (*q == '0' && ip_end - q > 1)
    return fail(P, s, "leading zeros are not allowed");
  if (!strip_underscores(q, ip_end, 10, buf, sizeof buf, &n))
    return fail(P, s, "invalid underscore in a number");
  if (ip_end == end) {
    uint64_t x = 0;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t i = 0; i < n; i++) {
      uint64_t d = (uint64_t)(buf[i] - '0');
      if (x > (limit - d) / 10)
        return fail(P, s, "integer out of range");
      x = x * 10 + d;
    }
    v->kind = LM_TOML_INT;
    v->u.i = neg ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
  }
  /* float: int-part [ '.' digits ] [ e [sign] digits ] */
  char fbuf[1100];
  size_t o = 0;
  if (neg)
    fbuf[o++] = '-';
  memcpy(fbuf + o, buf, n);
  o += n;
  const char *f = ip_end;
  bool any = false;
  if (f < end && *f == '.') {
    const char *fs = ++f;
    while (f < end && (is_digit((unsigned char)*f) || *f == '_'))
      f++;
    if (!strip_underscores(fs, f, 10, buf, sizeof buf, &n))
      return fail(P, s, "invalid float: expected digits after '.'");
    fbuf[o++] = '.';
    memcpy(fbuf + o, buf, n);
    o += n;
    any = true;
  }
  if (f < end && (*f == 'e' || *f == 'E')) {
    f++;
    fbuf[o++] = 'e';
    if (f < end && (*f == '+' || *f == '-'))
      fbuf[o++] = *f++;
    const char *es = f;
    while (f < end && (is_digit((unsigned char)*f) || *f == '_'))
      f++;
    if (!strip_underscores(es, f, 10, buf, sizeof buf, &n))
      return fail(P, s, "invalid float exponent");
    memcpy(fbuf + o, buf, n);
    o += n;
    any = true;
  }
  if (!any || f != end)
    return fail(P, s, "invalid number");
  fbuf[o] = '\0';
  v->kind = LM_TOML_FLOAT;
  v->u.f = strtod(fbuf, NULL);
  return 0;
}

/* Token characters of numbers, booleans and dates. */
static bool is_token_char(int c) {
  return is_bare_key_char(c) || c == '+' || c == '.' || c == ':';
}

/* ---------------------------------------------------------------- values */

static int parse_value(parser *P, int depth, lm_toml_value **out);
static int parse_keyval(parser *P, lm_toml_value *table, bool inline_table);

static int parse_array(parser *P, int depth, lm_toml_value *arr) {
  P->p++; /* [ */
  for (;;) {
    if (skip_ws_nl(P))
      return P->rc;
    if (peek(P) == ']') {
      P->p++;
      return 0;
    }
    if (at_end(P))
      return fail(P, P->p, "unterminated array");
    lm_toml_value *item;
    if (parse_value(P, depth + 1, &item))
      return P->rc;
    if (array_push(P, arr, item))
      return P->rc;
    if (skip_ws_nl(P))
      return P->rc;
    int c = peek(P);
    if (c == ',') {
      P->p++;
      continue;
    }
    if (c == ']') {
      P->p++;
      return 0;
    }
    if (c < 0)
      return fail(P, P->p, "unterminated array");
    return fail(P, P->p, "expected ',' or ']' in array");
  }
}

static int parse_inline_table(parser *P, lm_toml_value *t) {
  P->p++; /* { */
  skip_ws(P);
  if (peek(P) == '}') {
    P->p++;
    t->flags |= F_INLINE;
    return 0;
  }
  for (;;) {
    skip_ws(P);
    int c = peek(P);
    if (c == '\n' || c == '\r')
      return fail(P, P->p, "newline in an inline table");
    if (c == '}')
      return fail(P, P->p, "trailing comma in an inline table");
    if (c < 0)
      return fail(P, P->p, "unterminated inline table");
    if (parse_keyval(P, t, true))
      return P->rc;
    skip_ws(P);
    c = peek(P);
    if (c == ',') {
      P->p++;
      continue;
    }
    if (c == '}') {
      P->p++;
      t->flags |= F_INLINE;
      return 0;
    }
    if (c == '\n' || c == '\r')
      return fail(P, P->p, "newline in an inline table");
    if (c < 0)
      return fail(P, P->p, "unterminated inline table");
    return fail(P, P->p, "expected ',' or '}' in inline table");
  }
}

static int parse_value(parser *P, int depth, lm_toml_value **out) {
  *out = NULL;
  const char *at = P->p;
  if (depth > LM_TOML_MAX_DEPTH)
    return fail_code(P, LM_ERR_LIMIT, at, "nesting deeper than %d",
                     LM_TOML_MAX_DEPTH);
  int c = peek(P);
  lm_toml_value *v = new_value(P, LM_TOML_STRING, at, depth);
  if (!v)
    return P->rc;
  int rc = 0;
  if (c == '"' || c == '\'') {
    rc = parse_string(P, true);
    if (!rc) {
      v->u.str.ptr = malloc(P->scratch.len + 1);
      if (!v->u.str.ptr) {
        rc = nomem(P);
      } else {
        memcpy(v->u.str.ptr, P->scratch.data, P->scratch.len);
        v->u.str.ptr[P->scratch.len] = '\0';
        v->u.str.len = P->scratch.len;
      }
    }
  } else if (c == '[') {
    v->kind = LM_TOML_ARRAY;
    rc = parse_array(P, depth, v);
  } else if (c == '{') {
    v->kind = LM_TOML_TABLE;
    rc = parse_inline_table(P, v);
  } else if (c >= 0 && is_token_char(c)) {
    const char *s = P->p;
    while (is_token_char(peek(P)))
      P->p++;
    /* "1979-05-27 07:32:00": a space may separate date and time */
    if (P->p - s == 10 && s[4] == '-' && peek(P) == ' ' &&
        is_digit(peek_at(P, 1)) && is_digit(peek_at(P, 2)) &&
        peek_at(P, 3) == ':') {
      P->p++;
      while (is_token_char(peek(P)))
        P->p++;
    }
    size_t n = (size_t)(P->p - s);
    if (n == 4 && memcmp(s, "true", 4) == 0) {
      v->kind = LM_TOML_BOOL;
      v->u.b = true;
    } else if (n == 5 && memcmp(s, "false", 5) == 0) {
      v->kind = LM_TOML_BOOL;
      v->u.b = false;
    } else if ((n >= 5 && is_digit((unsigned char)s[0]) && s[4] == '-' &&
                is_digit((unsigned char)s[1])) ||
               (n >= 3 && is_digit((unsigned char)s[0]) && s[2] == ':')) {
      rc = parse_datetime(P, s, P->p, v);
    } else if (is_digit((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' ||
               (n == 3 &&
                (memcmp(s, "inf", 3) == 0 || memcmp(s, "nan", 3) == 0))) {
      rc = parse_number(P, s, P->p, v);
    } else {
      rc = fail(P, s, "expected a value, found '%.*s'", (int)LM_MIN(n, 40), s);
    }
  } else if (c < 0 || c == '\n' || c == '\r' || c == '#') {
    rc = fail(P, at, "expected a value");
  } else {
    rc = fail(P, at, "expected a value");
  }
  if (rc) {
    lm_toml_free(v);
    return P->rc ? P->rc : rc;
  }
  *out = v;
  return 0;
}

static const char *describe(const lm_toml_value *v) {
  if (v->kind == LM_TOML_TABLE) {
    if (v->flags & F_INLINE)
      return "an inline table";
    if (v->flags & F_DOTTED)
      return "a table defined by dotted keys";
    return "a table";
  }
  if (v->kind == LM_TOML_ARRAY)
    return v->flags & F_AOT ? "an array of tables" : "an array";
  switch (v->kind) {
  case LM_TOML_STRING:
    return "a string";
  case LM_TOML_INT:
    return "an integer";
  case LM_TOML_FLOAT:
    return "a float";
  case LM_TOML_BOOL:
    return "a boolean";
  default:
    return "a date-time";
  }
}

/* key = value, into `table` (the current section or an inline table). */
static int parse_keyval(parser *P, lm_toml_value *table, bool inline_table) {
  key_path k;
  if (parse_key(P, &k)) {
    key_path_free(&k);
    return P->rc;
  }
  char path[256];
  int rc = 0;
  if (peek(P) != '=') {
    rc = fail(P, P->p, "expected '=' after key '%s'",
              show_path(&k, k.n - 1, path, sizeof path));
    goto done;
  }
  P->p++;
  skip_ws(P);
  /* walk / create the dotted super-tables (TOML 1.0.0 "Keys", "Table") */
  lm_toml_value *t = table;
  for (int i = 0; i < k.n - 1; i++) {
    lm_toml_value *e = table_find(t, &k.parts[i]);
    if (!e) {
      lm_toml_value *nt =
          new_value(P, LM_TOML_TABLE, k.parts[i].at, t->depth + 1);
      if (!nt) {
        rc = P->rc;
        goto done;
      }
      if (nt->depth > LM_TOML_MAX_DEPTH) {
        lm_toml_free(nt);
        rc = fail_code(P, LM_ERR_LIMIT, k.parts[i].at, "nesting deeper than %d",
                       LM_TOML_MAX_DEPTH);
        goto done;
      }
      nt->flags = F_DOTTED;
      if (table_add(P, t, &k.parts[i], nt)) {
        rc = P->rc;
        goto done;
      }
      t = nt;
    } else if (e->kind == LM_TOML_TABLE && (e->flags & F_DOTTED) &&
               !(e->flags & F_INLINE)) {
      t = e;
    } else {
      rc = fail(P, k.parts[i].at,
                "cannot add keys to '%s' with dotted keys: it is %s%s",
                show_path(&k, i, path, sizeof path), describe(e),
                e->kind == LM_TOML_TABLE ? " defined elsewhere" : "");
      goto done;
    }
  }
  key_part *last = &k.parts[k.n - 1];
  if (table_find(t, last)) {
    rc = fail(P, last->at, "duplicate key '%s'",
              show_path(&k, k.n - 1, path, sizeof path));
    goto done;
  }
  lm_toml_value *v;
  if (parse_value(P, t->depth + 1, &v)) {
    rc = P->rc;
    goto done;
  }
  if (table_add(P, t, last, v))
    rc = P->rc;
  (void)inline_table;
done:
  key_path_free(&k);
  return rc;
}

/* [a.b.c] or [[a.b.c]] */
static int parse_header(parser *P) {
  const char *open = P->p;
  bool aot = peek_at(P, 1) == '[';
  P->p += aot ? 2 : 1;
  key_path k;
  char path[256];
  int rc = 0;
  if (parse_key(P, &k)) {
    key_path_free(&k);
    return P->rc;
  }
  if (peek(P) != ']' || (aot && peek_at(P, 1) != ']')) {
    rc = fail(P, P->p, "expected '%s' to close the table header",
              aot ? "]]" : "]");
    goto done;
  }
  P->p += aot ? 2 : 1;
  lm_toml_value *t = P->root;
  for (int i = 0; i < k.n - 1; i++) {
    lm_toml_value *e = table_find(t, &k.parts[i]);
    if (!e) {
      lm_toml_value *nt = new_value(P, LM_TOML_TABLE, open, t->depth + 1);
      if (!nt) {
        rc = P->rc;
        goto done;
      }
      nt->flags = F_IMPLICIT;
      if (table_add(P, t, &k.parts[i], nt)) {
        rc = P->rc;
        goto done;
      }
      t = nt;
    } else if (e->kind == LM_TOML_TABLE && !(e->flags & F_INLINE)) {
      t = e;
    } else if (e->kind == LM_TOML_ARRAY && (e->flags & F_AOT) &&
               e->u.array.len > 0) {
      t = e->u.array.items[e->u.array.len - 1];
    } else {
      rc = fail(P, k.parts[i].at, "cannot define a table under '%s': it is %s",
                show_path(&k, i, path, sizeof path), describe(e));
      goto done;
    }
  }
  if (t->depth + 1 > LM_TOML_MAX_DEPTH) {
    rc = fail_code(P, LM_ERR_LIMIT, open, "nesting deeper than %d",
                   LM_TOML_MAX_DEPTH);
    goto done;
  }
  key_part *last = &k.parts[k.n - 1];
  lm_toml_value *e = table_find(t, last);
  if (aot) {
    lm_toml_value *arr = e;
    if (!arr) {
      arr = new_value(P, LM_TOML_ARRAY, open, t->depth + 1);
      if (!arr) {
        rc = P->rc;
        goto done;
      }
      arr->flags = F_AOT;
      if (table_add(P, t, last, arr)) {
        rc = P->rc;
        goto done;
      }
    } else if (arr->kind != LM_TOML_ARRAY || !(arr->flags & F_AOT)) {
      rc = fail(P, last->at, "cannot append to '%s': it is %s",
                show_path(&k, k.n - 1, path, sizeof path), describe(arr));
      goto done;
    }
    lm_toml_value *nt = new_value(P, LM_TOML_TABLE, open, arr->depth + 1);
    if (!nt) {
      rc = P->rc;
      goto done;
    }
    nt->flags = F_EXPLICIT;
    if (array_push(P, arr, nt)) {
      rc = P->rc;
      goto done;
    }
    P->cur = nt;
  } else {
    if (!e) {
      lm_toml_value *nt = new_value(P, LM_TOML_TABLE, open, t->depth + 1);
      if (!nt) {
        rc = P->rc;
        goto done;
      }
      nt->flags = F_EXPLICIT;
      if (table_add(P, t, last, nt)) {
        rc = P->rc;
        goto done;
      }
      P->cur = nt;
    } else if (e->kind == LM_TOML_TABLE && (e->flags & F_IMPLICIT) &&
               !(e->flags & (F_EXPLICIT | F_DOTTED | F_INLINE))) {
      e->flags |= F_EXPLICIT;
      pos_of(P, open, &e->line, &e->column);
      P->cur = e;
    } else if (e->kind == LM_TOML_TABLE) {
      rc = fail(P, open, "table [%s] is defined twice%s",
                show_path(&k, k.n - 1, path, sizeof path),
                (e->flags & (F_DOTTED | F_INLINE)) ? " (first by a key)" : "");
      goto done;
    } else {
      rc = fail(P, open, "cannot define table [%s]: it is %s",
                show_path(&k, k.n - 1, path, sizeof path), describe(e));
      goto done;
    }
  }
  rc = expect_eol(P, "a table header");
done:
  key_path_free(&k);
  return rc;
}

static int parse_document(parser *P) {
  if (validate_utf8(P))
    return P->rc;
  if (P->end - P->p >= 3 && memcmp(P->p, "\xEF\xBB\xBF", 3) == 0)
    P->p += 3;
  while (!P->rc) {
    skip_ws(P);
    if (at_end(P))
      break;
    int c = peek(P);
    if (c == '#') {
      if (skip_comment(P))
        break;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (!eat_newline(P))
        break;
      continue;
    }
    if (c == '[') {
      if (parse_header(P))
        break;
      continue;
    }
    if (parse_keyval(P, P->cur, false))
      break;
    if (expect_eol(P, "a value"))
      break;
  }
  return P->rc;
}

int lm_toml_parse(const char *text, size_t len, lm_toml_value **out,
                  lm_error *err) {
  *out = NULL;
  parser P;
  memset(&P, 0, sizeof P);
  P.start = P.p = text ? text : "";
  P.end = P.start + (text ? len : 0);
  P.err = err;
  P.pos_at = P.pos_line_start = P.start;
  P.pos_line = 1;
  lm_buf_init(&P.scratch);
  P.root = new_value(&P, LM_TOML_TABLE, P.start, 0);
  if (!P.root)
    return P.rc;
  P.root->flags = F_EXPLICIT;
  P.cur = P.root;
  int rc = parse_document(&P);
  lm_buf_free(&P.scratch);
  if (rc) {
    lm_toml_free(P.root);
    return rc;
  }
  *out = P.root;
  return 0;
}

int lm_toml_parse_file(const char *path, lm_toml_value **out, lm_error *err) {
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  int rc = lm_read_file(path, &text, &len, err);
  if (rc)
    return rc;
  rc = lm_toml_parse(text, len, out, err);
  free(text);
  if (rc && err)
    lm_err_prefix(err, "%s", path);
  return rc;
}

/* --------------------------------------------------------------- lookup */

const lm_toml_value *lm_toml_get(const lm_toml_value *root, const char *path) {
  if (!root || !path)
    return NULL;
  const lm_toml_value *v = root;
  const char *p = path;
  char keybuf[256];
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    size_t n = 0;
    if (*p == '"' || *p == '\'') {
      /* quoted part: no escapes except \" and \\ in basic quotes */
      char q = *p++;
      while (*p && *p != q) {
        char c = *p++;
        if (q == '"' && c == '\\' && (*p == '"' || *p == '\\'))
          c = *p++;
        if (n + 1 >= sizeof keybuf)
          return NULL;
        keybuf[n++] = c;
      }
      if (*p != q)
        return NULL;
      p++;
    } else {
      while (is_bare_key_char((unsigned char)*p)) {
        if (n + 1 >= sizeof keybuf)
          return NULL;
        keybuf[n++] = *p++;
      }
      if (n == 0)
        return NULL;
    }
    v = lm_toml_table_get(v, keybuf, n);
    if (!v)
      return NULL;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0')
      return v;
    if (*p != '.')
      return NULL;
    p++;
  }
}

const char *lm_toml_get_string(const lm_toml_value *root, const char *path,
                               const char *dflt, bool *ok) {
  const lm_toml_value *v = lm_toml_get(root, path);
  if (!v)
    return dflt;
  if (v->kind != LM_TOML_STRING) {
    if (ok)
      *ok = false;
    return dflt;
  }
  return v->u.str.ptr;
}

int64_t lm_toml_get_int(const lm_toml_value *root, const char *path,
                        int64_t dflt, bool *ok) {
  const lm_toml_value *v = lm_toml_get(root, path);
  if (!v)
    return dflt;
  if (v->kind != LM_TOML_INT) {
    if (ok)
      *ok = false;
    return dflt;
  }
  return v->u.i;
}

bool lm_toml_get_bool(const lm_toml_value *root, const char *path, bool dflt,
                      bool *ok) {
  const lm_toml_value *v = lm_toml_get(root, path);
  if (!v)
    return dflt;
  if (v->kind != LM_TOML_BOOL) {
    if (ok)
      *ok = false;
    return dflt;
  }
  return v->u.b;
}

/* ------------------------------------------------------ ${VAR} expansion */

int lm_env_expand(const char *in, size_t len, lm_buf *out, lm_error *err) {
  size_t i = 0;
  int line = 1;
  size_t line_start = 0;
  while (i < len) {
    char c = in[i];
    if (c == '\n') {
      line++;
      line_start = i + 1;
    }
    if (c == '$' && i + 2 < len && in[i + 1] == '$' && in[i + 2] == '{') {
      if (lm_buf_append(out, "${", 2))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      i += 3;
      continue;
    }
    if (c == '$' && i + 1 < len && in[i + 1] == '{') {
      int col = (int)(i - line_start) + 1;
      size_t s = i + 2, e = s;
      while (e < len && in[e] != '}' && in[e] != '\n')
        e++;
      if (e >= len || in[e] != '}')
        return lm_err_at(err, LM_ERR_INVALID, line, col,
                         "unterminated '${' (expected '}')");
      size_t n = e - s;
      bool valid = n > 0 && !(in[s] >= '0' && in[s] <= '9');
      for (size_t k = s; k < e && valid; k++) {
        char ch = in[k];
        valid = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                (ch >= '0' && ch <= '9') || ch == '_';
      }
      if (!valid)
        return lm_err_at(err, LM_ERR_INVALID, line, col,
                         "invalid environment variable name '${%.*s}'",
                         (int)LM_MIN(n, 64), in + s);
      char name[256];
      if (n >= sizeof name)
        return lm_err_at(err, LM_ERR_INVALID, line, col,
                         "environment variable name too long");
      memcpy(name, in + s, n);
      name[n] = '\0';
      const char *val = getenv(name);
      if (!val)
        return lm_err_at(err, LM_ERR_INVALID, line, col,
                         "environment variable '%s' is not set", name);
      if (lm_buf_puts(out, val))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      i = e + 1;
      continue;
    }
    if (lm_buf_putc(out, c))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    i++;
  }
  if (lm_buf_reserve(out, 1))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  out->data[out->len] = '\0';
  return 0;
}
