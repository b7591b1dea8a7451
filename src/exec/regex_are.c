/* exec/regex_are.c — PostgreSQL's ARE syntax for PCRE2 (lm_regex_are.h).
 * PostgreSQL 15's regex documentation (9.7.3) is the reference: its escapes
 * (Tables 9.20-9.23), embedded options (9.7.3.4) and newline-sensitive
 * matching (9.7.3.5). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "exec/lm_regex_are.h"
#include "exec/lm_strfn.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool hexd(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

static int fail(char *msg, size_t msg_size, const char *what) {
  snprintf(msg, msg_size, "invalid regular expression: %s", what);
  return -1;
}

bool lm_regex_option(char c, uint32_t *opts, bool *lit) {
  uint32_t o = *opts;
  switch (c) {
  case 'c':
    o &= ~(uint32_t)PCRE2_CASELESS;
    break;
  case 'i':
    o |= PCRE2_CASELESS;
    break;
  case 'n':
  case 'm': /* historical synonym of n */
    o = (o & ~(uint32_t)(PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY)) |
        PCRE2_MULTILINE;
    break;
  case 's':
    o = (o & ~(uint32_t)PCRE2_MULTILINE) | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY;
    break;
  case 'p':
    o = (o & ~(uint32_t)(PCRE2_DOTALL | PCRE2_MULTILINE)) |
        PCRE2_DOLLAR_ENDONLY;
    break;
  case 'w':
    o = (o & ~(uint32_t)PCRE2_DOLLAR_ENDONLY) | PCRE2_DOTALL | PCRE2_MULTILINE;
    break;
  case 'x':
    o |= PCRE2_EXTENDED;
    break;
  case 't':
    o &= ~(uint32_t)PCRE2_EXTENDED;
    break;
  case 'q':
    *lit = true;
    break;
  case 'e': /* ERE: read as an ARE (a superset for what ERE accepts) */
    break;
  default: /* b (BRE) is not supported */
    return false;
  }
  *opts = o;
  return true;
}

/* The escape at p[k] == '\\' (n bytes in all) appended to out for PCRE2;
 * *k moves past it. in_class: inside [...]. -1 with msg on a bad one. */
static int escape(const char *p, size_t n, size_t *k, bool in_class,
                  lm_buf *out, char *msg, size_t msg_size) {
  size_t i = *k + 1;
  if (i >= n)
    return fail(msg, msg_size, "invalid escape \\ sequence");
  char c = p[i];
  *k = i + 1;
  switch (c) {
  case 'm': /* start of a word */
    return in_class ? fail(msg, msg_size, "invalid escape \\ sequence")
                    : lm_buf_puts(out, "\\b(?=\\w)");
  case 'M': /* end of a word */
    return in_class ? fail(msg, msg_size, "invalid escape \\ sequence")
                    : lm_buf_puts(out, "\\b(?<=\\w)");
  case 'y':
    return in_class ? fail(msg, msg_size, "invalid escape \\ sequence")
                    : lm_buf_puts(out, "\\b");
  case 'Y':
    return in_class ? fail(msg, msg_size, "invalid escape \\ sequence")
                    : lm_buf_puts(out, "\\B");
  case 'Z':
    return in_class ? fail(msg, msg_size, "invalid escape \\ sequence")
                    : lm_buf_puts(out, "\\z");
  case 'b': /* backspace */
    return lm_buf_puts(out, "\\x08");
  case 'B': /* a backslash */
    return lm_buf_puts(out, "\\\\");
  case 'v':
    return lm_buf_puts(out, "\\x0B");
  case 'x': {
    size_t j = i + 1;
    while (j < n && hexd(p[j]))
      j++;
    if (j == i + 1 || j - i - 1 > 8)
      return fail(msg, msg_size, "invalid escape \\ sequence");
    *k = j;
    return lm_buf_printf(out, "\\x{%.*s}", (int)(j - i - 1), p + i + 1);
  }
  case 'u':
  case 'U': {
    size_t want = c == 'u' ? 4 : 8, j = i + 1;
    while (j < n && j - i - 1 < want && hexd(p[j]))
      j++;
    if (j - i - 1 != want)
      return fail(msg, msg_size, "invalid escape \\ sequence");
    *k = j;
    return lm_buf_printf(out, "\\x{%.*s}", (int)want, p + i + 1);
  }
  case 'A':
    if (in_class)
      return fail(msg, msg_size, "invalid escape \\ sequence");
    /* fall through */
  case 'a':
  case 'c':
  case 'd':
  case 'D':
  case 'e':
  case 'f':
  case 'n':
  case 'r':
  case 's':
  case 'S':
  case 't':
  case 'w':
  case 'W': {
    int rc = lm_buf_putc(out, '\\');
    rc = rc ? rc : lm_buf_putc(out, c);
    if (!rc && c == 'c') { /* \cX: X is the next character */
      if (*k >= n)
        return fail(msg, msg_size, "invalid escape \\ sequence");
      rc = lm_buf_putc(out, p[(*k)++]);
    }
    return rc;
  }
  default:
    if (c >= '0' && c <= '9') /* back reference / octal: as PCRE2 */
      return lm_buf_putc(out, '\\') ? -2 : lm_buf_putc(out, c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      return fail(msg, msg_size, "invalid escape \\ sequence");
    /* any other character stands for itself */
    if (lm_buf_putc(out, '\\'))
      return -2;
    size_t j = i + 1; /* a whole UTF-8 character */
    while (j < n && ((unsigned char)p[j] & 0xC0) == 0x80)
      j++;
    *k = j;
    return lm_buf_append(out, p + i, j - i);
  }
}

/* The bracket expression at p[*k] == '['; *k moves past it. nl_excluded:
 * a negated one also leaves out the newline (n / p modes). */
static int bracket(const char *p, size_t n, size_t *k, bool nl_excluded,
                   lm_buf *out, char *msg, size_t msg_size) {
  size_t i = *k;
  if (n - i >= 7 &&
      (!memcmp(p + i, "[[:<:]]", 7) || !memcmp(p + i, "[[:>:]]", 7))) {
    *k = i + 7;
    return lm_buf_puts(out, p[i + 3] == '<' ? "\\b(?=\\w)" : "\\b(?<=\\w)");
  }
  int rc = lm_buf_putc(out, '[');
  i++;
  bool neg = i < n && p[i] == '^';
  if (neg && (rc = lm_buf_putc(out, '^')))
    return rc;
  if (neg)
    i++;
  if (i < n && p[i] == ']') { /* a leading ] is a member */
    if ((rc = lm_buf_puts(out, "\\]")))
      return rc;
    i++;
  }
  while (i < n && p[i] != ']') {
    if (p[i] == '[' && i + 1 < n &&
        (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
      char d = p[i + 1];
      size_t j = i + 2;
      while (j + 1 < n && !(p[j] == d && p[j + 1] == ']'))
        j++;
      if (j + 1 >= n)
        return fail(msg, msg_size, "brackets [] not balanced");
      if (d == ':')
        rc = lm_buf_append(out, p + i, j + 2 - i);
      else if (j - i - 2 == 1) /* [.c.] / [=c=]: the character */
        rc = lm_buf_printf(out, "\\x{%x}", (unsigned char)p[i + 2]);
      else
        return fail(msg, msg_size, "invalid collating element");
      if (rc)
        return rc;
      i = j + 2;
      continue;
    }
    if (p[i] == '\\') {
      if ((rc = escape(p, n, &i, true, out, msg, msg_size)))
        return rc;
      continue;
    }
    if (p[i] == '[' && (rc = lm_buf_putc(out, '\\'))) /* literal in PG */
      return rc;
    if ((rc = lm_buf_putc(out, p[i++])))
      return rc;
  }
  if (i >= n)
    return fail(msg, msg_size, "brackets [] not balanced");
  if (neg && nl_excluded && (rc = lm_buf_puts(out, "\\n")))
    return rc;
  *k = i + 1;
  return lm_buf_putc(out, ']');
}

int lm_regex_are(const char *p, size_t n, uint32_t *opts, lm_buf *out,
                 char *msg, size_t msg_size) {
  size_t k = 0;
  bool lit = (*opts & PCRE2_LITERAL) != 0;
  if (!lit && n >= 4 && !memcmp(p, "***=", 4)) {
    lit = true;
    k = 4;
  } else if (!lit && n >= 4 && !memcmp(p, "***:", 4)) {
    k = 4;
  }
  /* (?options) at the start */
  if (!lit && n - k >= 3 && p[k] == '(' && p[k + 1] == '?' &&
      ((p[k + 2] >= 'a' && p[k + 2] <= 'z') ||
       (p[k + 2] >= 'A' && p[k + 2] <= 'Z'))) {
    size_t j = k + 2;
    for (; j < n && p[j] != ')'; j++)
      if (!lm_regex_option(p[j], opts, &lit))
        return fail(msg, msg_size, "invalid embedded option");
    if (j >= n)
      return fail(msg, msg_size, "invalid embedded option");
    k = j + 1;
  }
  if (lit) {
    *opts = (*opts & (PCRE2_CASELESS | PCRE2_UTF)) | PCRE2_LITERAL;
    return lm_buf_append(out, p + k, n - k) ? -2 : 0;
  }
  *opts &= ~(uint32_t)PCRE2_LITERAL;
  bool nl_excluded = !(*opts & PCRE2_DOTALL);
  int rc = 0;
  while (k < n && !rc) {
    char c = p[k];
    if (c == '\\') {
      rc = escape(p, n, &k, false, out, msg, msg_size);
    } else if (c == '[') {
      rc = bracket(p, n, &k, nl_excluded, out, msg, msg_size);
    } else if (c == '(' && k + 1 < n && p[k + 1] == '?') {
      /* PostgreSQL's (?: (?= (?! (?<= (?<! (?#...): other PCRE2 groups
       * and options here are its "quantifier operand invalid" */
      const char *q = p + k + 2;
      size_t left = n - k - 2;
      bool ok = left >= 1 &&
                (q[0] == ':' || q[0] == '=' || q[0] == '!' || q[0] == '#');
      ok = ok || (left >= 2 && q[0] == '<' && (q[1] == '=' || q[1] == '!'));
      if (!ok)
        return fail(msg, msg_size, "quantifier operand invalid");
      rc = lm_buf_append(out, p + k, 2);
      k += 2;
    } else {
      rc = lm_buf_putc(out, c);
      k++;
    }
  }
  return rc > 0 ? -2 : rc;
}

int lm_regex_check_pg(const char *re, size_t len, const char *flags,
                      size_t flen, char *msg, size_t msg_size) {
  uint32_t opts = PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY;
  bool lit = false;
  for (size_t k = 0; k < flen; k++)
    (void)lm_regex_option(flags[k], &opts, &lit); /* others: checked when run */
  if (lit)
    return 0;
  lm_buf t;
  lm_buf_init(&t);
  int rc = lm_regex_are(re, len, &opts, &t, msg, msg_size);
  if (rc == -2)
    snprintf(msg, msg_size, "out of memory");
  if (!rc && !(opts & (PCRE2_LITERAL | PCRE2_EXTENDED))) {
    pcre2_code *code = NULL;
    rc = lm_regex_compile(t.data ? t.data : "", t.len, &code, msg, msg_size);
    lm_regex_free(code);
  }
  lm_buf_free(&t);
  return rc ? -1 : 0;
}
