/* sql/lexer.c — SQL tokenizer: words, "quoted" identifiers, 'strings',
 * numbers, operators; skips whitespace, -- line and nested block comments. */
#include "sql/sql_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* See sql_internal.h: starts a lexer at line 1, column 1. */
void lm_lexer_init(lm_lexer *lx, const char *sql, size_t len, lm_arena *arena) {
  lx->sql = sql;
  lx->len = len;
  lx->pos = 0;
  lx->line = 1;
  lx->column = 1;
  lx->arena = arena;
}

/* See sql_internal.h: kw must be upper-case ASCII. */
bool lm_token_is_kw(const lm_token *t, const char *kw) {
  if (t->kind != LM_TK_IDENT)
    return false;
  size_t n = strlen(kw);
  if (t->len != n)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->start[i];
    if (c >= 'a' && c <= 'z')
      c = (unsigned char)(c - 32);
    if (c != (unsigned char)kw[i])
      return false;
  }
  return true;
}

static int peekc(const lm_lexer *lx, size_t ahead) {
  size_t i = lx->pos + ahead;
  return i < lx->len ? (unsigned char)lx->sql[i] : -1;
}

/* Consumes one byte, keeping line/column current. */
static void advance(lm_lexer *lx) {
  if (lx->pos >= lx->len)
    return;
  if (lx->sql[lx->pos] == '\n') {
    lx->line++;
    lx->column = 1;
  } else {
    lx->column++;
  }
  lx->pos++;
}

static bool is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c >= 0x80;
}
static bool is_digit(int c) {
  return c >= '0' && c <= '9';
}
static bool is_ident_char(int c) {
  return is_ident_start(c) || is_digit(c) || c == '$';
}

static int fail(lm_lexer *lx, lm_token *tok, lm_error *err, const char *what) {
  tok->kind = LM_TK_ERROR;
  tok->len = lx->pos > tok->offset ? lx->pos - tok->offset : 0;
  return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column, "%s", what);
}

/* An unterminated quoted string or identifier, as PostgreSQL words it:
 * "unterminated quoted string at or near "'abc"" (the text from the opening
 * quote to the end of the input). */
static int fail_unterminated(lm_lexer *lx, lm_token *tok, lm_error *err,
                             const char *what) {
  tok->kind = LM_TK_ERROR;
  tok->len = lx->pos > tok->offset ? lx->pos - tok->offset : 0;
  size_t n = lx->len - tok->offset;
  return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                   "unterminated %s at or near \"%.*s\"", what,
                   (int)(n > 200 ? 200 : n), lx->sql + tok->offset);
}

/* Skips whitespace and comments. Returns 0, or LM_ERR_PARSE for an
 * unterminated block comment (positioned at its opening). */
static int skip_space(lm_lexer *lx, lm_token *tok, lm_error *err) {
  for (;;) {
    int c = peekc(lx, 0);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      advance(lx);
    } else if (c == '-' && peekc(lx, 1) == '-') {
      while (lx->pos < lx->len && lx->sql[lx->pos] != '\n')
        advance(lx);
    } else if (c == '/' && peekc(lx, 1) == '*') {
      tok->line = lx->line;
      tok->column = lx->column;
      tok->offset = lx->pos;
      advance(lx);
      advance(lx);
      int nest = 1;
      while (nest > 0) {
        if (lx->pos >= lx->len) {
          tok->kind = LM_TK_ERROR;
          tok->len = 2;
          return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                           "unterminated /* comment");
        }
        if (peekc(lx, 0) == '*' && peekc(lx, 1) == '/') {
          advance(lx);
          advance(lx);
          nest--;
        } else if (peekc(lx, 0) == '/' && peekc(lx, 1) == '*') {
          advance(lx);
          advance(lx);
          nest++;
        } else {
          advance(lx);
        }
      }
    } else {
      return 0;
    }
  }
}

/* Reads a quoted 'string' or "identifier" (quote q; doubled q escapes it).
 * The opening quote is at lx->pos. */
static int lex_quoted(lm_lexer *lx, lm_token *tok, lm_error *err, char q) {
  advance(lx); /* opening quote */
  size_t body = lx->pos;
  size_t n = 0; /* decoded length */
  for (;;) {
    if (lx->pos >= lx->len)
      return fail_unterminated(
          lx, tok, err, q == '\'' ? "quoted string" : "quoted identifier");
    char c = lx->sql[lx->pos];
    if (c == '\0')
      return fail(lx, tok, err,
                  q == '\'' ? "NUL byte in string literal"
                            : "NUL byte in quoted identifier");
    if (c == q) {
      if (peekc(lx, 1) == (unsigned char)q) {
        advance(lx);
        advance(lx);
        n++;
        continue;
      }
      break;
    }
    advance(lx);
    n++;
  }
  size_t end = lx->pos;
  advance(lx); /* closing quote */
  char *out = lm_arena_alloc(lx->arena, n + 1);
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  size_t j = 0;
  for (size_t i = body; i < end; i++) {
    out[j++] = lx->sql[i];
    if (lx->sql[i] == q)
      i++; /* skip the second quote of a pair */
  }
  out[j] = '\0';
  tok->text = out;
  tok->text_len = j;
  if (q == '"') {
    if (j == 0)
      return fail(lx, tok, err, "zero-length quoted identifier");
    tok->kind = LM_TK_QIDENT;
  } else {
    tok->kind = LM_TK_STRING;
  }
  tok->len = lx->pos - tok->offset;
  return 0;
}

/* Appends code point cp as UTF-8 to out (room for 4 bytes). */
static size_t put_utf8(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_valid(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
  if (!len || len > n)
    return 0;
  for (size_t k = 1; k < len; k++)
    if ((s[k] & 0xC0) != 0x80)
      return 0;
  if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) ||
      (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
    return 0;
  return len;
}

/* An escape-string error at the literal (PostgreSQL's message and
 * SQLSTATE). */
static int fail_state(lm_lexer *lx, lm_token *tok, lm_error *err,
                      const char *state, const char *what) {
  fail(lx, tok, err, what);
  return lm_err_state(err, state);
}

/* Reads `n` hex digits at body[*i + 1...] into *cp; false if fewer. */
static bool read_hex(const char *b, size_t end, size_t *i, int n,
                     uint32_t *cp) {
  uint32_t v = 0;
  for (int k = 1; k <= n; k++) {
    if (*i + (size_t)k >= end ||
        lm_hex_digit((unsigned char)b[*i + (size_t)k]) < 0)
      return false;
    v = v * 16 + (uint32_t)lm_hex_digit((unsigned char)b[*i + (size_t)k]);
  }
  *i += (size_t)n;
  *cp = v;
  return true;
}

/* Decodes a code point of a Unicode escape (\uXXXX, \UXXXXXXXX, U&'\XXXX')
 * into out at *j, joining a UTF-16 surrogate pair (*hi holds a pending
 * high surrogate). 0, or -1 with the error set. */
static int put_unicode(lm_lexer *lx, lm_token *tok, lm_error *err, char *out,
                       size_t *j, uint32_t cp, uint32_t *hi) {
  if (*hi) {
    if (cp < 0xDC00 || cp > 0xDFFF)
      return fail_state(lx, tok, err, "42601",
                        "invalid Unicode surrogate pair");
    cp = 0x10000 + ((*hi - 0xD800) << 10) + (cp - 0xDC00);
    *hi = 0;
  } else if (cp >= 0xD800 && cp <= 0xDBFF) {
    *hi = cp;
    return 0;
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return fail_state(lx, tok, err, "42601", "invalid Unicode surrogate pair");
  }
  if (cp == 0 || cp > 0x10FFFF)
    return fail_state(lx, tok, err, "42601", "invalid Unicode escape value");
  *j += put_utf8(out + *j, cp);
  return 0;
}

/* Reads PostgreSQL's escape string E'...' (`unicode` false) or Unicode
 * string U&'...' (`unicode` true); lx->pos is at the quote, tok->start at
 * the E / U. E'': \b \f \n \r \t, \ooo (1-3 octal digits), \xh[h],
 * \uXXXX, \UXXXXXXXX, and \ before any other character is that character
 * (\' \\); '' is a quote. U&'': \XXXX, \+XXXXXX, \\ (no UESCAPE).
 * The result must be valid UTF-8 without NUL bytes (22021), as PostgreSQL
 * checks. */
static int lex_escaped(lm_lexer *lx, lm_token *tok, lm_error *err,
                       bool unicode) {
  advance(lx); /* opening quote */
  size_t body = lx->pos;
  for (;;) {
    if (lx->pos >= lx->len)
      return fail_unterminated(lx, tok, err, "quoted string");
    char c = lx->sql[lx->pos];
    if (c == '\\' && !unicode && lx->pos + 1 < lx->len) {
      advance(lx);
      advance(lx);
      continue;
    }
    if (c == '\'') {
      if (peekc(lx, 1) == '\'') {
        advance(lx);
        advance(lx);
        continue;
      }
      break;
    }
    advance(lx);
  }
  size_t end = lx->pos;
  advance(lx); /* closing quote */
  tok->len = lx->pos - tok->offset;
  /* every escape decodes to at most as many bytes as it is written with */
  char *out = lm_arena_alloc(lx->arena, end - body + 1);
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  const char *b = lx->sql;
  size_t j = 0;
  uint32_t hi = 0;
  for (size_t i = body; i < end; i++) {
    unsigned char ch = (unsigned char)b[i];
    if (hi && ch != '\\')
      return fail_state(lx, tok, err, "42601",
                        "invalid Unicode surrogate pair");
    if (ch == '\'') {
      out[j++] = '\'';
      i++; /* the second quote of a pair */
      continue;
    }
    if (ch != '\\') {
      out[j++] = (char)ch;
      continue;
    }
    unsigned char e = (unsigned char)b[i + 1];
    uint32_t cp;
    if (unicode) {
      if (e == '\\') {
        if (hi)
          return fail_state(lx, tok, err, "42601",
                            "invalid Unicode surrogate pair");
        out[j++] = '\\';
        i++;
      } else if (e == '+' ? (i++, read_hex(b, end, &i, 6, &cp))
                          : read_hex(b, end, &i, 4, &cp)) {
        if (put_unicode(lx, tok, err, out, &j, cp, &hi))
          return err->code;
      } else {
        return fail_state(lx, tok, err, "42601", "invalid Unicode escape");
      }
      continue;
    }
    i++;
    if (hi && e != 'u' && e != 'U')
      return fail_state(lx, tok, err, "42601",
                        "invalid Unicode surrogate pair");
    switch (e) {
    case 'b':
      out[j++] = '\b';
      break;
    case 'f':
      out[j++] = '\f';
      break;
    case 'n':
      out[j++] = '\n';
      break;
    case 'r':
      out[j++] = '\r';
      break;
    case 't':
      out[j++] = '\t';
      break;
    case 'x':
      if (i + 1 < end && lm_hex_digit((unsigned char)b[i + 1]) >= 0) {
        int v = lm_hex_digit((unsigned char)b[++i]);
        if (i + 1 < end && lm_hex_digit((unsigned char)b[i + 1]) >= 0)
          v = v * 16 + lm_hex_digit((unsigned char)b[++i]);
        out[j++] = (char)v;
      } else {
        out[j++] = 'x'; /* \x without a digit is 'x', as PostgreSQL */
      }
      break;
    case 'u':
    case 'U':
      if (!read_hex(b, end, &i, e == 'u' ? 4 : 8, &cp))
        return fail_state(lx, tok, err, "22025", "invalid Unicode escape");
      if (put_unicode(lx, tok, err, out, &j, cp, &hi))
        return err->code;
      break;
    default:
      if (e >= '0' && e <= '7') {
        int v = e - '0';
        for (int k = 0;
             k < 2 && i + 1 < end && b[i + 1] >= '0' && b[i + 1] <= '7'; k++)
          v = v * 8 + (b[++i] - '0');
        out[j++] = (char)(v & 0xFF);
      } else {
        out[j++] = (char)e;
      }
    }
  }
  if (hi)
    return fail_state(lx, tok, err, "42601", "invalid Unicode surrogate pair");
  out[j] = '\0';
  for (size_t k = 0; k < j;) {
    size_t n = out[k] ? utf8_valid((const unsigned char *)out + k, j - k) : 0;
    if (!n) {
      char m[80];
      snprintf(m, sizeof m,
               "invalid byte sequence for encoding \"UTF8\": 0x%02x",
               (unsigned char)out[k]);
      return fail_state(lx, tok, err, "22021", m);
    }
    k += n;
  }
  tok->text = out;
  tok->text_len = j;
  tok->kind = LM_TK_STRING;
  return 0;
}

static int lex_number(lm_lexer *lx, lm_token *tok, lm_error *err) {
  bool is_int = true;
  while (is_digit(peekc(lx, 0)))
    advance(lx);
  if (peekc(lx, 0) == '.') {
    is_int = false;
    advance(lx);
    while (is_digit(peekc(lx, 0)))
      advance(lx);
  }
  int c = peekc(lx, 0);
  if (c == 'e' || c == 'E') {
    int c1 = peekc(lx, 1);
    size_t skip = (c1 == '+' || c1 == '-') ? 2 : 1;
    if (!is_digit(peekc(lx, skip))) {
      advance(lx);
      tok->len = lx->pos - tok->offset;
      tok->kind = LM_TK_ERROR;
      return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                       "bad number '%.*s': exponent has no digits",
                       (int)tok->len, tok->start);
    }
    is_int = false;
    for (size_t i = 0; i < skip; i++)
      advance(lx);
    while (is_digit(peekc(lx, 0)))
      advance(lx);
  }
  if (is_ident_char(peekc(lx, 0)) || peekc(lx, 0) == '.') {
    while (is_ident_char(peekc(lx, 0)) || peekc(lx, 0) == '.')
      advance(lx);
    tok->len = lx->pos - tok->offset;
    tok->kind = LM_TK_ERROR;
    int shown = tok->len > 64 ? 64 : (int)tok->len;
    return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                     "bad number '%.*s'", shown, tok->start);
  }
  tok->len = lx->pos - tok->offset;
  char *t = lm_arena_strndup(lx->arena, tok->start, tok->len);
  if (!t)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  tok->text = t;
  tok->text_len = tok->len;
  tok->kind = is_int ? LM_TK_INTEGER : LM_TK_NUMBER;
  return 0;
}

/* See sql_internal.h: one token per call; errors are positioned at the
 * offending token's first byte. */
int lm_lexer_next(lm_lexer *lx, lm_token *tok, lm_error *err) {
  memset(tok, 0, sizeof *tok);
  int rc = skip_space(lx, tok, err);
  if (rc)
    return rc;
  tok->line = lx->line;
  tok->column = lx->column;
  tok->offset = lx->pos;
  tok->start = lx->sql + lx->pos;
  int c = peekc(lx, 0);
  if (c < 0) {
    tok->kind = LM_TK_EOF;
    return 0;
  }
  if ((c == 'e' || c == 'E') && peekc(lx, 1) == '\'') {
    advance(lx);
    return lex_escaped(lx, tok, err, false);
  }
  if ((c == 'u' || c == 'U') && peekc(lx, 1) == '&' && peekc(lx, 2) == '\'') {
    advance(lx);
    advance(lx);
    return lex_escaped(lx, tok, err, true);
  }
  if (is_ident_start(c)) {
    while (is_ident_char(peekc(lx, 0)))
      advance(lx);
    tok->len = lx->pos - tok->offset;
    char *t = lm_arena_alloc(lx->arena, tok->len + 1);
    if (!t)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < tok->len; i++) {
      char ch = tok->start[i];
      t[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
    }
    tok->text = t;
    tok->text_len = tok->len;
    tok->kind = LM_TK_IDENT;
    return 0;
  }
  if (is_digit(c) || (c == '.' && is_digit(peekc(lx, 1))))
    return lex_number(lx, tok, err);
  if (c == '\'')
    return lex_quoted(lx, tok, err, '\'');
  if (c == '"')
    return lex_quoted(lx, tok, err, '"');

  int c1 = peekc(lx, 1);
  lm_token_kind k;
  size_t n = 1;
  switch (c) {
  case '(':
    k = LM_TK_LPAREN;
    break;
  case ')':
    k = LM_TK_RPAREN;
    break;
  case ',':
    k = LM_TK_COMMA;
    break;
  case ';':
    k = LM_TK_SEMI;
    break;
  case '.':
    k = LM_TK_DOT;
    break;
  case '*':
    k = LM_TK_STAR;
    break;
  case '+':
    k = LM_TK_PLUS;
    break;
  case '-':
    k = LM_TK_MINUS;
    if (c1 == '>') { /* -> and ->> (JSON) */
      k = LM_TK_JSON_ARROW;
      n = 2;
      if (peekc(lx, 2) == '>') {
        k = LM_TK_JSON_ARROW2;
        n = 3;
      }
    }
    break;
  case '~':
    k = LM_TK_TILDE;
    if (c1 == '*') {
      k = LM_TK_TILDE_STAR;
      n = 2;
    }
    break;
  case '/':
    k = LM_TK_SLASH;
    break;
  case '%':
    k = LM_TK_PERCENT;
    break;
  case '^':
    k = LM_TK_CARET;
    break;
  case '=':
    if (c1 == '>') {
      k = LM_TK_ARROW;
      n = 2;
    } else {
      k = LM_TK_EQ;
      if (c1 == '=')
        n = 2;
    }
    break;
  case '<':
    if (c1 == '=') {
      k = LM_TK_LE;
      n = 2;
    } else if (c1 == '<') {
      k = LM_TK_SHL;
      n = 2;
    } else if (c1 == '>') {
      k = LM_TK_NE;
      n = 2;
    } else if (c1 == '@') {
      k = LM_TK_CONTAINED;
      n = 2;
    } else {
      k = LM_TK_LT;
    }
    break;
  case '>':
    if (c1 == '=') {
      k = LM_TK_GE;
      n = 2;
    } else if (c1 == '>') {
      k = LM_TK_SHR;
      n = 2;
    } else {
      k = LM_TK_GT;
    }
    break;
  case '!':
    if (c1 == '~') { /* !~ and !~* */
      k = LM_TK_NTILDE;
      n = 2;
      if (peekc(lx, 2) == '*') {
        k = LM_TK_NTILDE_STAR;
        n = 3;
      }
      break;
    }
    if (c1 != '=')
      goto bad;
    k = LM_TK_NE;
    n = 2;
    break;
  case '|':
    k = c1 == '|' ? LM_TK_CONCAT : LM_TK_BAR;
    n = c1 == '|' ? 2 : 1;
    break;
  case '&':
    k = c1 == '&' ? LM_TK_OVERLAP : LM_TK_AMP;
    n = c1 == '&' ? 2 : 1;
    break;
  case '@':
    if (c1 != '>')
      goto bad;
    k = LM_TK_CONTAINS;
    n = 2;
    break;
  case '[':
    k = LM_TK_LBRACKET;
    break;
  case ']':
    k = LM_TK_RBRACKET;
    break;
  case '#':
    k = LM_TK_HASH;
    if (c1 == '>') { /* #> and #>> (jsonb paths) */
      k = LM_TK_HASH_ARROW;
      n = 2;
      if (peekc(lx, 2) == '>') {
        k = LM_TK_HASH_ARROW2;
        n = 3;
      }
    } else if (c1 == '-' && peekc(lx, 2) != '-') { /* #- (not # --) */
      k = LM_TK_HASH_MINUS;
      n = 2;
    }
    break;
  case '?': /* ? ?| ?& (jsonb keys) */
    k = c1 == '|'   ? LM_TK_QUESTION_BAR
        : c1 == '&' ? LM_TK_QUESTION_AMP
                    : LM_TK_QUESTION;
    n = c1 == '|' || c1 == '&' ? 2 : 1;
    break;
  case ':':
    k = c1 == ':' ? LM_TK_COLON2 : LM_TK_COLON;
    n = c1 == ':' ? 2 : 1;
    break;
  default:
    goto bad;
  }
  for (size_t i = 0; i < n; i++)
    advance(lx);
  tok->kind = k;
  tok->len = n;
  return 0;

bad:
  advance(lx);
  tok->kind = LM_TK_ERROR;
  tok->len = 1;
  if (c >= 0x21 && c < 0x7f)
    return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                     "unexpected character '%c'", c);
  return lm_err_at(err, LM_ERR_PARSE, tok->line, tok->column,
                   "unexpected byte 0x%02x", (unsigned)c);
}
