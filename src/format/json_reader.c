/* format/json_reader.c — incremental NDJSON reader decoding into typed record
 * batches (see lm_json.h).
 *
 * Each line is handled in two passes. Pass 1 validates the whole object
 * (RFC 8259 grammar, escapes, UTF-8, depth) and records, per declared
 * column, where the last value for that key lies and what kind of JSON
 * value it is (so a duplicate key simply overwrites the slot). Pass 2
 * decodes the recorded values in schema order into the column builders.
 * Lines wholly inside a fed chunk are parsed in place; only a line cut by
 * a chunk boundary is copied into the carry buffer.
 */
#include "format/lm_json.h"

#include "format/format_internal.h"

#include "columnar/lm_conform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define JSON_DEFAULT_BATCH_ROWS 8192
#define JSON_DEFAULT_MAX_LINE ((int64_t)64 << 20)

enum { J_NULL, J_TRUE, J_FALSE, J_NUM, J_STR, J_OBJ, J_ARR };
/* value flags */
enum {
  JF_ESC = 1,      /* string: has escapes */
  JF_FRAC = 2,     /* number: has a fraction */
  JF_EXP = 4,      /* number: has an exponent */
  JF_FRACZERO = 8, /* number: every fraction digit is 0 */
};

typedef struct json_slot {
  const char *p, *end; /* the value's JSON text */
  uint32_t gen;        /* == r->gen when set for the current line */
  uint8_t kind, flags;
} json_slot;

struct lm_json_reader {
  lm_schema *schema;
  lm_json_options opt;
  char *source;
  lm_batch_builder bb;
  int ncols;
  int *htab; /* open addressing: column index or -1 */
  uint32_t hmask;
  size_t *name_len;
  bool *canon; /* column c is what key_lookup returns for its own name */
  int guess;   /* column expected for the next key (keys usually repeat
                  in the same order on every line) */
  json_slot *slots;
  uint32_t gen;
  char *carry;
  size_t carry_len, carry_cap;
  const char *ls; /* start of the line being parsed (for columns) */
  int64_t line;
  bool finished, failed;
  lm_error saved;
  int64_t rows, batch_n;
  lm_fmt_queue q;
  lm_buf scratch; /* decoded strings */
  lm_buf key;     /* decoded keys with escapes */
  lm_buf num;
  lm_builder texts; /* a string's array item texts (LIST columns) */
  int64_t line_off; /* input offset of the line being parsed (bad rows) */
  int64_t err_col;
  char err_text[640];
};

void lm_json_options_default(lm_json_options *o) {
  memset(o, 0, sizeof *o);
  o->batch_rows = JSON_DEFAULT_BATCH_ROWS;
  o->max_line_bytes = JSON_DEFAULT_MAX_LINE;
}

static int json_err(lm_json_reader *r, int code, const char *at,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int json_err(lm_json_reader *r, int code, const char *at,
                    const char *fmt, ...) {
  int64_t col = (at && r->ls) ? (int64_t)(at - r->ls) + 1 : 1;
  char text[640];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0)
    text[0] = '\0';
  lm_fmt_error(&r->saved, code, r->source ? r->source : "<input>", r->line, col,
               "%s", text);
  r->failed = true;
  r->err_col = col;
  memcpy(r->err_text, text, sizeof text);
  return -1;
}

static int report(lm_json_reader *r, lm_error *err) {
  if (err)
    *err = r->saved;
  return r->saved.code ? r->saved.code : LM_ERR_GENERIC;
}

static inline unsigned char lower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static uint32_t key_hash(const char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= lower((unsigned char)p[i]);
    h *= 16777619u;
  }
  return h;
}

static bool key_eq(const char *p, size_t n, const char *name, size_t nlen) {
  if (n != nlen)
    return false;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)p[i]) != lower((unsigned char)name[i]))
      return false;
  return true;
}

/* Column for a key: an exact match wins, else the first declared column
 * whose name matches case-insensitively; -1 if none. */
static int key_lookup(const lm_json_reader *r, const char *p, size_t n) {
  uint32_t i = key_hash(p, n) & r->hmask;
  int ci = -1;
  for (;;) {
    int c = r->htab[i];
    if (c < 0)
      return ci;
    const char *name = r->schema->fields[c].name;
    if (key_eq(p, n, name, r->name_len[c])) {
      if (memcmp(p, name, n) == 0)
        return c;
      if (ci < 0 || c < ci)
        ci = c;
    }
    i = (i + 1) & r->hmask;
  }
}

lm_json_reader *lm_json_reader_new(lm_schema *schema,
                                   const lm_json_options *opts,
                                   const char *source_name) {
  if (!schema)
    return NULL;
  lm_json_reader *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  lm_json_options_default(&r->opt);
  if (opts) {
    if (opts->batch_rows > 0)
      r->opt.batch_rows = opts->batch_rows;
    if (opts->max_line_bytes > 0)
      r->opt.max_line_bytes = opts->max_line_bytes;
    r->opt.on_bad = opts->on_bad;
    r->opt.bad_ctx = opts->bad_ctx;
  }
  r->schema = lm_schema_retain(schema);
  r->ncols = schema->n_fields;
  r->line = 1;
  lm_buf_init(&r->scratch);
  lm_buf_init(&r->key);
  lm_buf_init(&r->num);
  if (lm_builder_init(&r->texts, lm_type_make(LM_TYPE_UTF8), 0))
    goto oom;
  if (source_name && !(r->source = lm_strdup(source_name)))
    goto oom;
  int64_t hint = LM_MIN(r->opt.batch_rows, (int64_t)JSON_DEFAULT_BATCH_ROWS);
  if (lm_batch_builder_init(&r->bb, schema, hint))
    goto oom;
  size_t n = (size_t)LM_MAX(r->ncols, 1);
  uint32_t tsize = 8;
  while (tsize < 2 * n)
    tsize *= 2;
  r->hmask = tsize - 1;
  r->htab = malloc(tsize * sizeof *r->htab);
  r->name_len = calloc(n, sizeof *r->name_len);
  r->slots = calloc(n, sizeof *r->slots);
  r->canon = calloc(n, sizeof *r->canon);
  if (!r->htab || !r->name_len || !r->slots || !r->canon)
    goto oom;
  for (uint32_t i = 0; i < tsize; i++)
    r->htab[i] = -1;
  for (int c = 0; c < r->ncols; c++) {
    const char *name = schema->fields[c].name ? schema->fields[c].name : "";
    r->name_len[c] = strlen(name);
    uint32_t i = key_hash(name, r->name_len[c]) & r->hmask;
    while (r->htab[i] >= 0)
      i = (i + 1) & r->hmask;
    r->htab[i] = c;
  }
  for (int c = 0; c < r->ncols; c++)
    r->canon[c] = schema->fields[c].name &&
                  key_lookup(r, schema->fields[c].name, r->name_len[c]) == c;
  for (int c = 0; c < r->ncols && !r->failed; c++) {
    if (!lm_fmt_type_supported(schema->fields[c].type) &&
        !lm_fmt_list_supported(schema->fields[c].type))
      json_err(r, LM_ERR_BIND, NULL,
               "column '%s' has type %s, which JSON cannot read",
               schema->fields[c].name, lm_type_name(schema->fields[c].type));
  }
  return r;
oom:
  lm_json_reader_free(r);
  return NULL;
}

void lm_json_reader_free(lm_json_reader *r) {
  if (!r)
    return;
  if (r->bb.schema)
    lm_batch_builder_free(&r->bb);
  lm_schema_release(r->schema);
  free(r->source);
  free(r->htab);
  free(r->name_len);
  free(r->slots);
  free(r->canon);
  free(r->carry);
  lm_fmt_queue_free(&r->q);
  lm_buf_free(&r->scratch);
  lm_buf_free(&r->key);
  lm_buf_free(&r->num);
  lm_builder_free(&r->texts);
  free(r);
}

int64_t lm_json_reader_rows(const lm_json_reader *r) {
  return r->rows;
}

lm_batch *lm_json_reader_next(lm_json_reader *r) {
  return lm_fmt_queue_pop(&r->q);
}

/* ------------------------------------------------------------- lexing */

static inline const char *skip_ws(const char *s, const char *le) {
  while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
    s++;
  return s;
}

/* Reads the 4 hex digits after "\u" at p (p points at the backslash). */
static int read_u4(const char *p, const char *le) {
  if (le - p < 6 || p[0] != '\\' || p[1] != 'u')
    return -1;
  int v = 0;
  for (int i = 2; i < 6; i++) {
    int h = lm_hex_digit(p[i]);
    if (h < 0)
      return -1;
    v = v * 16 + h;
  }
  return v;
}

/* Validates the string starting at *ps (the opening quote); on success *ps
 * is past the closing quote and *flags has JF_ESC if it has escapes. */
static int json_string(lm_json_reader *r, const char **ps, const char *le,
                       uint8_t *flags) {
  const char *open = *ps;
  const char *q = open + 1;
  uint8_t fl = 0;
  for (;;) {
    while (q < le) {
      unsigned char c = (unsigned char)*q;
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
        break;
      q++;
    }
    if (q >= le)
      return json_err(r, LM_ERR_PARSE, open, "unterminated string");
    unsigned char c = (unsigned char)*q;
    if (c == '"')
      break;
    if (c == '\\') {
      fl |= JF_ESC;
      if (q + 1 >= le)
        return json_err(r, LM_ERR_PARSE, open, "unterminated string");
      switch (q[1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        q += 2;
        continue;
      case 'u': {
        int u = read_u4(q, le);
        if (u < 0)
          return json_err(r, LM_ERR_PARSE, q,
                          "invalid \\u escape (4 hex digits expected)");
        if (u >= 0xDC00 && u <= 0xDFFF)
          return json_err(r, LM_ERR_PARSE, q,
                          "invalid \\u escape: lone low surrogate");
        if (u >= 0xD800 && u <= 0xDBFF) {
          int lo = read_u4(q + 6, le);
          if (lo < 0xDC00 || lo > 0xDFFF)
            return json_err(r, LM_ERR_PARSE, q,
                            "invalid \\u escape: high surrogate without a "
                            "low surrogate");
          q += 12;
        } else {
          q += 6;
        }
        continue;
      }
      default:
        return json_err(r, LM_ERR_PARSE, q, "invalid escape in string");
      }
    }
    if (c < 0x20)
      return json_err(r, LM_ERR_PARSE, q,
                      "control character in string (must be escaped)");
    /* c >= 0x80: one UTF-8 sequence */
    size_t seq = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if ((size_t)(le - q) < seq || lm_fmt_utf8_check(q, seq) != seq)
      return json_err(r, LM_ERR_PARSE, q, "invalid UTF-8 in string");
    q += seq;
  }
  *ps = q + 1;
  *flags = fl;
  return 0;
}

static void put_utf8(char *o, size_t *n, uint32_t cp) {
  if (cp < 0x80) {
    o[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    o[(*n)++] = (char)(0xC0 | (cp >> 6));
    o[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    o[(*n)++] = (char)(0xE0 | (cp >> 12));
    o[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    o[(*n)++] = (char)(0xF0 | (cp >> 18));
    o[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[(*n)++] = (char)(0x80 | (cp & 0x3F));
  }
}

/* Decodes the (validated) string body p[0..len) into buf. Escapes never
 * grow the text (\uXXXX = 6 bytes -> at most 3; a pair 12 -> 4). */
static const char *decode_string(lm_buf *buf, const char *p, size_t len,
                                 size_t *out_len) {
  buf->len = 0;
  if (lm_buf_reserve(buf, len + 1))
    return NULL;
  char *o = buf->data;
  size_t n = 0;
  const char *e = p + len;
  while (p < e) {
    const char *bs = memchr(p, '\\', (size_t)(e - p));
    size_t run = bs ? (size_t)(bs - p) : (size_t)(e - p);
    memcpy(o + n, p, run);
    n += run;
    if (!bs)
      break;
    p = bs;
    char c = p[1];
    p += 2;
    switch (c) {
    case 'b':
      o[n++] = '\b';
      break;
    case 'f':
      o[n++] = '\f';
      break;
    case 'n':
      o[n++] = '\n';
      break;
    case 'r':
      o[n++] = '\r';
      break;
    case 't':
      o[n++] = '\t';
      break;
    case 'u': {
      uint32_t u = (uint32_t)read_u4(p - 2, e);
      p += 4;
      if (u >= 0xD800 && u <= 0xDBFF) {
        uint32_t lo = (uint32_t)read_u4(p, e);
        p += 6;
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
      }
      put_utf8(o, &n, u);
      break;
    }
    default: /* " \ / */
      o[n++] = c;
      break;
    }
  }
  *out_len = n;
  return o;
}

/* Validates a number at *ps (RFC 8259 section 6). */
static int json_number(lm_json_reader *r, const char **ps, const char *le,
                       uint8_t *flags) {
  const char *s = *ps, *start = s;
  uint8_t fl = 0;
  if (s < le && *s == '-')
    s++;
  if (s >= le || *s < '0' || *s > '9')
    return json_err(r, LM_ERR_PARSE, start, "invalid number");
  if (*s == '0') {
    s++;
    if (s < le && *s >= '0' && *s <= '9')
      return json_err(r, LM_ERR_PARSE, start, "invalid number (leading zero)");
  } else {
    while (s < le && *s >= '0' && *s <= '9')
      s++;
  }
  if (s < le && *s == '.') {
    s++;
    fl |= JF_FRAC | JF_FRACZERO;
    if (s >= le || *s < '0' || *s > '9')
      return json_err(r, LM_ERR_PARSE, start,
                      "invalid number (digits expected after '.')");
    while (s < le && *s >= '0' && *s <= '9') {
      if (*s != '0')
        fl &= (uint8_t)~JF_FRACZERO;
      s++;
    }
  }
  if (s < le && (*s == 'e' || *s == 'E')) {
    s++;
    fl |= JF_EXP;
    if (s < le && (*s == '+' || *s == '-'))
      s++;
    if (s >= le || *s < '0' || *s > '9')
      return json_err(r, LM_ERR_PARSE, start,
                      "invalid number (digits expected in exponent)");
    while (s < le && *s >= '0' && *s <= '9')
      s++;
  }
  *ps = s;
  *flags = fl;
  return 0;
}

static int json_literal(lm_json_reader *r, const char **ps, const char *le,
                        uint8_t *kind) {
  const char *s = *ps;
  size_t n = (size_t)(le - s);
  if (n >= 4 && memcmp(s, "true", 4) == 0) {
    *kind = J_TRUE;
    *ps = s + 4;
  } else if (n >= 5 && memcmp(s, "false", 5) == 0) {
    *kind = J_FALSE;
    *ps = s + 5;
  } else if (n >= 4 && memcmp(s, "null", 4) == 0) {
    *kind = J_NULL;
    *ps = s + 4;
  } else {
    char snip[96];
    lm_fmt_snippet(snip, sizeof snip, s, LM_MIN(n, (size_t)12));
    return json_err(r, LM_ERR_PARSE, s, "expected a JSON value, found '%s'",
                    snip);
  }
  return 0;
}

static int json_scalar(lm_json_reader *r, const char **ps, const char *le,
                       uint8_t *kind, uint8_t *flags) {
  const char *s = *ps;
  if (s >= le)
    return json_err(r, LM_ERR_PARSE, s,
                    "expected a JSON value, found end "
                    "of line");
  *flags = 0;
  char c = *s;
  if (c == '"') {
    *kind = J_STR;
    return json_string(r, ps, le, flags);
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    *kind = J_NUM;
    return json_number(r, ps, le, flags);
  }
  return json_literal(r, ps, le, kind);
}

/* Validates one value at *ps whose parent container is at `depth`. */
static int json_value(lm_json_reader *r, const char **ps, const char *le,
                      int depth, uint8_t *kind, uint8_t *flags) {
  const char *s = *ps;
  if (s >= le || (*s != '{' && *s != '['))
    return json_scalar(r, ps, le, kind, flags);
  *kind = *s == '{' ? J_OBJ : J_ARR;
  *flags = 0;
  char stack[LM_JSON_MAX_DEPTH];
  int sp = 0;
  uint8_t k, f;
open:
  if (depth + sp + 1 > LM_JSON_MAX_DEPTH)
    return json_err(r, LM_ERR_LIMIT, s, "JSON nested deeper than %d levels",
                    LM_JSON_MAX_DEPTH);
  stack[sp++] = *s++;
  s = skip_ws(s, le);
  if (s < le && *s == (stack[sp - 1] == '{' ? '}' : ']')) {
    s++;
    sp--;
    goto after;
  }
  if (stack[sp - 1] == '{')
    goto key;
value:
  if (s < le && (*s == '{' || *s == '['))
    goto open;
  if (json_scalar(r, &s, le, &k, &f))
    return -1;
after:
  if (sp == 0) {
    *ps = s;
    return 0;
  }
  s = skip_ws(s, le);
  if (s < le && *s == ',') {
    s = skip_ws(s + 1, le);
    if (stack[sp - 1] == '{')
      goto key;
    goto value;
  }
  if (s < le && *s == (stack[sp - 1] == '{' ? '}' : ']')) {
    s++;
    sp--;
    goto after;
  }
  return json_err(r, LM_ERR_PARSE, s,
                  stack[sp - 1] == '{' ? "expected ',' or '}' in object"
                                       : "expected ',' or ']' in array");
key:
  if (s >= le || *s != '"')
    return json_err(r, LM_ERR_PARSE, s, "expected a string key");
  if (json_string(r, &s, le, &f))
    return -1;
  s = skip_ws(s, le);
  if (s >= le || *s != ':')
    return json_err(r, LM_ERR_PARSE, s, "expected ':' after key");
  s = skip_ws(s + 1, le);
  goto value;
}

/* ----------------------------------------------------------- decoding */

/* Errors of value v of column c; item > 0: of that item (1-based) of an
 * array column's JSON array. */
static int type_error(lm_json_reader *r, int c, const json_slot *v,
                      int64_t item) {
  char snip[128];
  lm_fmt_snippet(snip, sizeof snip, v->p, (size_t)(v->end - v->p));
  const lm_field *fd = &r->schema->fields[c];
  if (item > 0) {
    char msg[400];
    lm_fmt_list_item_error(LM_FMT_SYNTAX, fd->type.node->children[0].type, item,
                           fd->name, v->p, (size_t)(v->end - v->p), msg,
                           sizeof msg);
    return json_err(r, LM_ERR_PARSE, v->p, "%s", msg);
  }
  return json_err(r, LM_ERR_PARSE, v->p,
                  "expected %s for column '%s', found '%s'",
                  lm_type_name(fd->type), fd->name, snip);
}

static int range_error(lm_json_reader *r, int c, const json_slot *v,
                       int64_t item) {
  char snip[128];
  lm_fmt_snippet(snip, sizeof snip, v->p, (size_t)(v->end - v->p));
  const lm_field *fd = &r->schema->fields[c];
  if (item > 0) {
    char msg[400];
    lm_fmt_list_item_error(LM_FMT_RANGE, fd->type.node->children[0].type, item,
                           fd->name, v->p, (size_t)(v->end - v->p), msg,
                           sizeof msg);
    return json_err(r, LM_ERR_PARSE, v->p, "%s", msg);
  }
  return json_err(r, LM_ERR_PARSE, v->p,
                  "value '%s' out of range for %s column '%s'", snip,
                  lm_type_name(fd->type), fd->name);
}

static int json_convert_to(lm_json_reader *r, int c, lm_builder *b,
                           const json_slot *v, int64_t item);

/* Array column c: a JSON array (each item a scalar of the item type, null
 * a NULL item) or a string holding PostgreSQL's array text. */
static int json_list(lm_json_reader *r, int c, const json_slot *v) {
  lm_builder *b = &r->bb.cols[c];
  const lm_field *fd = &r->schema->fields[c];
  if (v->kind == J_STR) {
    const char *t = v->p + 1;
    size_t n = (size_t)(v->end - v->p) - 2;
    if (v->flags & JF_ESC) {
      t = decode_string(&r->scratch, t, n, &n);
      if (!t)
        return json_err(r, LM_ERR_NOMEM, v->p, "out of memory");
    }
    char msg[700];
    const char *state = "22P02";
    int rc = lm_fmt_append_list_pg(b, t, n, fd->name, &r->texts, &r->num, msg,
                                   sizeof msg, &state);
    if (rc == LM_FMT_OK)
      return 0;
    /* 0A000 (an array PostgreSQL reads but Laminar cannot hold) fails
     * the load, never a skipped bad row */
    int code = rc == LM_FMT_TOOBIG       ? LM_ERR_LIMIT
               : !strcmp(state, "0A000") ? LM_ERR_BIND
                                         : LM_ERR_PARSE;
    int e = json_err(r, code, v->p, "%s", msg);
    lm_err_state(&r->saved, state);
    return e;
  }
  if (v->kind != J_ARR)
    return type_error(r, c, v, 0);
  lm_builder *items = lm_builder_list_items(b);
  if (!items)
    return json_err(r, LM_ERR_NOMEM, v->p, "out of memory");
  int64_t mark = items->length, k = 0;
  const char *s = skip_ws(v->p + 1, v->end);
  while (s < v->end && *s != ']') {
    json_slot it = {s, s, 0, 0, 0};
    k++;
    if (*s == '[' || *s == '{') { /* validated already: find its end */
      if (json_value(r, &it.end, v->end, 1, &it.kind, &it.flags))
        return -1;
      lm_builder_truncate(items, mark);
      if (it.kind == J_ARR) {
        int e = json_err(r, LM_ERR_PARSE, s,
                         "item %lld of column '%s' is an array: "
                         "multi-dimensional arrays are not supported",
                         (long long)k, fd->name);
        lm_err_state(&r->saved, "0A000");
        return e;
      }
      return type_error(r, c, &it, k);
    }
    if (json_scalar(r, &it.end, v->end, &it.kind, &it.flags))
      return -1;
    if (json_convert_to(r, c, items, &it, k)) {
      lm_builder_truncate(items, mark);
      return -1;
    }
    s = skip_ws(it.end, v->end);
    if (s < v->end && *s == ',')
      s = skip_ws(s + 1, v->end);
  }
  lm_builder_list_end(b);
  return b->oom ? json_err(r, LM_ERR_NOMEM, v->p, "out of memory") : 0;
}

static int json_convert(lm_json_reader *r, int c, const json_slot *v) {
  return json_convert_to(r, c, &r->bb.cols[c], v, 0);
}

/* Decodes v into b: column c's builder (item 0), or the items builder of
 * array column c for its item `item` (1-based; NULL allowed, no typmod). */
static int json_convert_to(lm_json_reader *r, int c, lm_builder *b,
                           const json_slot *v, int64_t item) {
  const lm_field *fd = &r->schema->fields[c];
  if (v->kind == J_NULL && item > 0) {
    lm_builder_append_null(b);
    return 0;
  }
  if (v->kind == J_NULL) {
    if (!fd->nullable)
      return json_err(r, LM_ERR_PARSE, v->p,
                      "NULL value for NOT NULL column '%s'", fd->name);
    lm_builder_append_null(b);
    return 0;
  }
  size_t len = (size_t)(v->end - v->p);
  switch (b->type.id) {
  case LM_TYPE_LIST:
    return json_list(r, c, v);
  case LM_TYPE_BOOL:
    if (v->kind != J_TRUE && v->kind != J_FALSE)
      return type_error(r, c, v, item);
    lm_builder_append_bool(b, v->kind == J_TRUE);
    return 0;
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64: {
    if (v->kind != J_NUM || (v->flags & JF_EXP) ||
        ((v->flags & JF_FRAC) && !(v->flags & JF_FRACZERO)))
      return type_error(r, c, v, item);
    size_t n = len;
    if (v->flags & JF_FRAC) {
      const char *dot = memchr(v->p, '.', len);
      n = (size_t)(dot - v->p);
    }
    int64_t lo, hi, x;
    lm_fmt_int_range(b->type, &lo, &hi);
    int rc = lm_fmt_parse_int(v->p, n, lo, hi, &x);
    if (rc == LM_FMT_RANGE)
      return range_error(r, c, v, item);
    if (rc)
      return type_error(r, c, v, item);
    lm_builder_append_int(b, x);
    return 0;
  }
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    if (v->kind == J_STR && !(v->flags & JF_ESC)) {
      /* "NaN", "Infinity", "-Infinity" (what the JSON writer and
       * PostgreSQL's to_json give; case-insensitive, "inf" and a '+'
       * also taken, as PostgreSQL's float8in) */
      const char *t = v->p + 1;
      size_t n = len - 2;
      bool neg = n > 0 && t[0] == '-';
      if (n > 0 && (t[0] == '-' || t[0] == '+'))
        t++, n--;
      double d;
      if (t == v->p + 1 && n == 3 && !strncasecmp(t, "nan", 3))
        d = NAN;
      else if ((n == 8 && !strncasecmp(t, "infinity", 8)) ||
               (n == 3 && !strncasecmp(t, "inf", 3)))
        d = neg ? -INFINITY : INFINITY;
      else
        return type_error(r, c, v, item);
      lm_builder_append_double(b, d);
      return 0;
    }
    if (v->kind != J_NUM)
      return type_error(r, c, v, item);
    double d;
    int rc = lm_fmt_parse_double(v->p, len, b->type.id == LM_TYPE_FLOAT32,
                                 &r->num, &d);
    if (rc == LM_FMT_RANGE)
      return range_error(r, c, v, item);
    if (rc)
      return type_error(r, c, v, item);
    lm_builder_append_double(b, d);
    return 0;
  }
  case LM_TYPE_UTF8:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_DECIMAL128: /* a number or a string (docs/types.md) */
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME64:
  case LM_TYPE_INTERVAL: /* PostgreSQL's interval text, a string */
  case LM_TYPE_INTERVAL_MDN:
  case LM_TYPE_BINARY: {
    const char *t = v->p;
    size_t n = len;
    if (lm_type_is_json(b->type)) { /* json / jsonb: any value, as JSON */
      int rc = lm_fmt_append_text(b, t, n, &r->num);
      return rc == LM_FMT_OK ? 0 : type_error(r, c, v, item);
    }
    if (v->kind == J_STR) {
      t = v->p + 1;
      n = len - 2;
      if (v->flags & JF_ESC) {
        t = decode_string(&r->scratch, t, n, &n);
        if (!t)
          return json_err(r, LM_ERR_NOMEM, v->p, "out of memory");
      }
    } else if (b->type.id == LM_TYPE_DECIMAL128
                   ? v->kind != J_NUM
                   : (b->type.id != LM_TYPE_UTF8 ||
                      (v->kind != J_OBJ && v->kind != J_ARR))) {
      return type_error(r, c, v, item);
    }
    lm_typmod m = item > 0 ? (lm_typmod){0} : lm_schema_typmod(r->schema, c);
    int rc = lm_fmt_append_chars(b, t, n, m, &r->num);
    if (rc == LM_FMT_TOOLONG) {
      char cn[64], snip[128];
      lm_fmt_snippet(snip, sizeof snip, t, n);
      int e = json_err(r, LM_ERR_PARSE, v->p,
                       "value too long for type %s in column '%s': '%s'",
                       lm_char_type_name(m, cn, sizeof cn), fd->name, snip);
      lm_err_state(&r->saved, "22001");
      return e;
    }
    if (rc == LM_FMT_TOOBIG)
      return json_err(r, LM_ERR_LIMIT, v->p, "value too large for column '%s'",
                      fd->name);
    if (rc == LM_FMT_RANGE)
      return range_error(r, c, v, item);
    if (rc)
      return type_error(r, c, v, item);
    return 0;
  }
  default: /* a NULL-typed column only takes null */
    return type_error(r, c, v, item);
  }
}

/* ------------------------------------------------------------- lines */

static int json_line_parse(lm_json_reader *r, const char *ls, const char *le);

/* Decodes the line [ls, le) into the builders; a line that does not decode
 * goes to opt.on_bad when set (its values taken back out of the builders).
 * Returns 0, or -1 when the input fails (r->saved). */
static int json_line(lm_json_reader *r, const char *ls, const char *le) {
  if (!json_line_parse(r, ls, le))
    return 0;
  int code = r->saved.code;
  if (!r->opt.on_bad || (code != LM_ERR_PARSE && code != LM_ERR_LIMIT))
    return -1;
  lm_bad_row b = {r->source ? r->source : "<input>",
                  r->line,
                  r->err_col,
                  r->line_off + r->err_col - 1,
                  code,
                  r->saved.sqlstate,
                  r->err_text,
                  ls,
                  (size_t)(le - ls)};
  if (r->opt.on_bad(r->opt.bad_ctx, &b))
    return -1;
  for (int c = 0; c < r->ncols; c++)
    lm_builder_truncate(&r->bb.cols[c], r->batch_n);
  r->failed = false;
  lm_err_clear(&r->saved);
  return 0;
}

static int json_line_parse(lm_json_reader *r, const char *ls, const char *le) {
  r->ls = ls;
  const char *s = skip_ws(ls, le);
  if (s == le)
    return 0; /* blank line */
  if (*s != '{')
    return json_err(r, LM_ERR_PARSE, s, "expected a JSON object");
  const char *obj = s;
  r->guess = 0;
  if (++r->gen == 0) {
    for (int c = 0; c < r->ncols; c++)
      r->slots[c].gen = 0;
    r->gen = 1;
  }
  s = skip_ws(s + 1, le);
  if (s < le && *s == '}') {
    s++;
  } else {
    for (;;) {
      if (s >= le || *s != '"')
        return json_err(r, LM_ERR_PARSE, s, "expected a string key");
      const char *k = s;
      uint8_t kf, kind, vf;
      if (json_string(r, &s, le, &kf))
        return -1;
      const char *kp = k + 1;
      size_t kn = (size_t)(s - k - 2);
      if (kf & JF_ESC) {
        kp = decode_string(&r->key, kp, kn, &kn);
        if (!kp)
          return json_err(r, LM_ERR_NOMEM, k, "out of memory");
      }
      int col, g = r->guess;
      if (g < r->ncols && r->canon[g] && r->name_len[g] == kn &&
          memcmp(kp, r->schema->fields[g].name, kn) == 0)
        col = g;
      else
        col = key_lookup(r, kp, kn);
      if (col >= 0)
        r->guess = col + 1;
      s = skip_ws(s, le);
      if (s >= le || *s != ':')
        return json_err(r, LM_ERR_PARSE, s, "expected ':' after key");
      s = skip_ws(s + 1, le);
      const char *vs = s;
      if (json_value(r, &s, le, 1, &kind, &vf))
        return -1;
      if (col >= 0) {
        json_slot *sl = &r->slots[col];
        sl->p = vs;
        sl->end = s;
        sl->kind = kind;
        sl->flags = vf;
        sl->gen = r->gen;
      }
      s = skip_ws(s, le);
      if (s < le && *s == ',') {
        s = skip_ws(s + 1, le);
        continue;
      }
      if (s < le && *s == '}') {
        s++;
        break;
      }
      return json_err(r, LM_ERR_PARSE, s, "expected ',' or '}' in object");
    }
  }
  s = skip_ws(s, le);
  if (s != le)
    return json_err(r, LM_ERR_PARSE, s,
                    "unexpected text after the JSON object");
  for (int c = 0; c < r->ncols; c++) {
    const json_slot *sl = &r->slots[c];
    if (sl->gen != r->gen) {
      const lm_field *fd = &r->schema->fields[c];
      if (!fd->nullable)
        return json_err(r, LM_ERR_PARSE, obj,
                        "missing value for NOT NULL column '%s'", fd->name);
      lm_builder_append_null(&r->bb.cols[c]);
      continue;
    }
    if (json_convert(r, c, sl))
      return -1;
  }
  r->rows++;
  if (++r->batch_n >= r->opt.batch_rows) {
    int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
    r->batch_n = 0;
    if (rc) {
      r->failed = true;
      return -1;
    }
  }
  return 0;
}

static int line_too_long(lm_json_reader *r) {
  r->ls = NULL;
  return json_err(r, LM_ERR_LIMIT, NULL, "line longer than %lld bytes",
                  (long long)r->opt.max_line_bytes);
}

static int carry_append(lm_json_reader *r, const char *p, size_t n) {
  if ((int64_t)(r->carry_len + n) > r->opt.max_line_bytes)
    return line_too_long(r);
  if (r->carry_len + n > r->carry_cap) {
    size_t cap = r->carry_cap ? r->carry_cap * 2 : 4096;
    while (cap < r->carry_len + n)
      cap *= 2;
    char *c = realloc(r->carry, cap);
    if (!c) {
      r->ls = NULL;
      return json_err(r, LM_ERR_NOMEM, NULL, "out of memory");
    }
    r->carry = c;
    r->carry_cap = cap;
  }
  memcpy(r->carry + r->carry_len, p, n);
  r->carry_len += n;
  return 0;
}

int lm_json_reader_feed(lm_json_reader *r, const char *data, size_t len,
                        lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished)
    return lm_err(err, LM_ERR_INVALID, "JSON reader: feed after finish");
  const char *p = data, *end = data + len;
  if (len && r->carry_len) {
    const char *nl = memchr(p, '\n', len);
    size_t take = nl ? (size_t)(nl - p) : len;
    if (carry_append(r, p, take))
      return report(r, err);
    if (!nl)
      return 0;
    if (json_line(r, r->carry, r->carry + r->carry_len))
      return report(r, err);
    r->line_off += (int64_t)r->carry_len + 1;
    r->carry_len = 0;
    r->line++;
    p = nl + 1;
  }
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) {
      if (carry_append(r, p, (size_t)(end - p)))
        return report(r, err);
      break;
    }
    if (nl - p > r->opt.max_line_bytes) {
      line_too_long(r);
      return report(r, err);
    }
    if (json_line(r, p, nl))
      return report(r, err);
    r->line_off += (int64_t)(nl - p) + 1;
    r->line++;
    p = nl + 1;
  }
  return 0;
}

/* Queues the rows completed so far as a batch without ending the input:
 * a partial trailing record stays buffered. For followed ('watch') files. */
int lm_json_reader_flush(lm_json_reader *r, lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished || r->batch_n == 0)
    return 0;
  int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
  r->batch_n = 0;
  if (rc) {
    r->failed = true;
    return report(r, err);
  }
  return 0;
}

int lm_json_reader_finish(lm_json_reader *r, lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished)
    return 0;
  r->finished = true;
  if (r->carry_len) {
    if (json_line(r, r->carry, r->carry + r->carry_len))
      return report(r, err);
    r->carry_len = 0;
  }
  if (r->batch_n > 0) {
    int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
    r->batch_n = 0;
    if (rc) {
      r->failed = true;
      return report(r, err);
    }
  }
  return 0;
}
