/*
 * Flink scalar functions the Nexmark queries use, evaluated a batch at a
 * time (bound in plan/binder.c, dispatched from expr_eval.c):
 *
 *   date_format(ts, 'pattern')       Java SimpleDateFormat subset -> VARCHAR
 *   regexp_extract(s, re [, group])  PCRE2, first match -> VARCHAR
 *   split_index(s, delim, index)     0-based token -> VARCHAR
 *   count_char(s, c)                 occurrences of c's first char -> BIGINT
 *
 * NULL rules are Flink's (docs/nexmark.md, "Functions the queries need").
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

static bool nul(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

static int fn_err(lm_error *err, const lm_bexpr *e, const char *msg) {
  if (e && e->line)
    return lm_err_at(err, LM_ERR_EXEC, e->line, e->column, "%s", msg);
  return lm_err(err, LM_ERR_EXEC, "%s", msg);
}

/* ---------------------------------------------------------- date_format */

bool lm_date_format_valid(const char *p, char *bad) {
  for (; *p; p++) {
    if (*p == '\'') { /* quoted literal text; '' is a quote */
      p++;
      while (*p && *p != '\'')
        p++;
      if (!*p)
        return *bad = '\'', false;
      continue;
    }
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
      if (!strchr("yMdHmsS", *p))
        return *bad = *p, false;
      if (*p == 'M' && p[1] == 'M' && p[2] == 'M') /* month names */
        return *bad = *p, false;
    }
  }
  return true;
}

static void put_num(lm_buf *o, int64_t v, int width) {
  /* snprintf's "%0*lld" (sign, zeros to `width` characters in all, the
   * digits) without the format parsing: q17 formats every row's date */
  char dg[24];
  int k = 0;
  uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do
    dg[k++] = (char)('0' + a % 10);
  while ((a /= 10) != 0);
  if (v < 0)
    lm_buf_putc(o, '-');
  for (int pad = width - k - (v < 0); pad > 0; pad--)
    lm_buf_putc(o, '0');
  while (k)
    lm_buf_putc(o, dg[--k]);
}

/* Formats one UTC instant (µs) with a pattern lm_date_format_valid
 * accepted. */
static void date_format_one(lm_buf *o, int64_t us, const char *p) {
  int64_t days = lm_floor_div(us, LM_US_PER_DAY);
  int64_t tod = lm_floor_mod(us, LM_US_PER_DAY); /* days * µs/day may not fit */
  int64_t y;
  unsigned m, d;
  lm_civil_from_days(days, &y, &m, &d);
  while (*p) {
    if (*p == '\'') {
      p++;
      if (*p == '\'') { /* '' is one quote */
        lm_buf_putc(o, '\'');
        p++;
        continue;
      }
      while (*p && *p != '\'')
        lm_buf_putc(o, *p++);
      if (*p)
        p++;
      continue;
    }
    char c = *p;
    if (!strchr("yMdHmsS", c)) {
      lm_buf_putc(o, *p++);
      continue;
    }
    int w = 0;
    while (p[w] == c)
      w++;
    p += w;
    switch (c) {
    case 'y': /* yy: the last two digits; else the year, zero-padded */
      put_num(o, w == 2 ? (y % 100 + 100) % 100 : y, w);
      break;
    case 'M':
      put_num(o, m, w);
      break;
    case 'd':
      put_num(o, d, w);
      break;
    case 'H':
      put_num(o, tod / LM_US_PER_HOUR, w);
      break;
    case 'm':
      put_num(o, tod / LM_US_PER_MIN % 60, w);
      break;
    case 's':
      put_num(o, tod / LM_US_PER_SEC % 60, w);
      break;
    default: /* S: milliseconds */
      put_num(o, tod / 1000 % 1000, w);
      break;
    }
  }
}

/* ------------------------------------------------------- regexp_extract */

int lm_regex_compile(const char *re, size_t len, pcre2_code **out, char *msg,
                     size_t msg_size) {
  int ec;
  PCRE2_SIZE off;
  pcre2_code *c =
      /* no PCRE2_MATCH_INVALID_UTF: its JIT (PCRE2 10.42) makes \S \W \D
       * miss non-ASCII characters; the subject is checked instead */
      pcre2_compile((PCRE2_SPTR)re, len, PCRE2_UTF, &ec, &off, NULL);
  if (!c) {
    /* PostgreSQL's (Spencer's) wording where the error is the same */
    const char *pg =
        ec == PCRE2_ERROR_MISSING_CLOSING_PARENTHESIS ||
                ec == PCRE2_ERROR_UNMATCHED_CLOSING_PARENTHESIS
            ? "parentheses () not balanced"
        : ec == PCRE2_ERROR_MISSING_SQUARE_BRACKET ? "brackets [] not balanced"
        : ec == PCRE2_ERROR_QUANTIFIER_INVALID ? "quantifier operand invalid"
        : ec == PCRE2_ERROR_END_BACKSLASH      ? "invalid escape \\ sequence"
        : ec == PCRE2_ERROR_QUANTIFIER_OUT_OF_ORDER
            ? "invalid repetition count(s)"
            : NULL;
    if (pg) {
      snprintf(msg, msg_size, "invalid regular expression: %s", pg);
      return -1;
    }
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(ec, buf, sizeof buf);
    snprintf(msg, msg_size, "invalid regular expression at offset %zu: %s",
             (size_t)off, (const char *)buf);
    return -1;
  }
  (void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* optional speed-up */
  *out = c;
  return 0;
}

void lm_regex_free(pcre2_code *code) {
  pcre2_code_free(code);
}

static int regexp_extract(const lm_bexpr *e, lm_array **a, int64_t n,
                          lm_builder *b, lm_error *err) {
  pcre2_code *code = NULL;
  pcre2_match_data *md = NULL;
  const char *cur = NULL; /* the pattern `code` was compiled from */
  int32_t cur_len = -1;
  int rc = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    if (nul(a[0], i) || nul(a[1], i) || (a[2] && nul(a[2], i))) {
      lm_builder_append_null(b);
      continue;
    }
    int32_t sl, pl;
    const char *s = lm_array_str(a[0], i, &sl);
    const char *pat = lm_array_str(a[1], i, &pl);
    if (!code || pl != cur_len || memcmp(pat, cur, (size_t)pl)) {
      char msg[400];
      pcre2_code_free(code);
      pcre2_match_data_free(md);
      code = NULL;
      md = NULL;
      if (lm_regex_compile(pat, (size_t)pl, &code, msg, sizeof msg)) {
        rc = fn_err(err, e, msg);
        break;
      }
      if (!(md = pcre2_match_data_create_from_pattern(code, NULL))) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      cur = pat;
      cur_len = pl;
    }
    int64_t g = a[2] ? lm_array_i64(a[2])[i] : 0;
    uint32_t ngroups = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &ngroups);
    if (g < 0 || g > (int64_t)ngroups) { /* Flink: NULL, not an error */
      lm_builder_append_null(b);
      continue;
    }
    int m = pcre2_match(code, (PCRE2_SPTR)s, (size_t)sl, 0, 0, md, NULL);
    if (m == PCRE2_ERROR_NOMATCH) {
      lm_builder_append_null(b);
      continue;
    }
    if (m < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(m, buf, sizeof buf);
      char msg[320];
      snprintf(msg, sizeof msg, "regexp_extract: %s", (const char *)buf);
      rc = fn_err(err, e, msg);
      break;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    if (g >= m || ov[2 * g] == PCRE2_UNSET) { /* group did not take part */
      lm_builder_append_null(b);
      continue;
    }
    lm_builder_append_str(b, s + ov[2 * g],
                          (int32_t)(ov[2 * g + 1] - ov[2 * g]));
  }
  pcre2_match_data_free(md);
  pcre2_code_free(code);
  return rc;
}

/* ---------------------------------------------------------- split_index */

static bool java_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Token `idx` of s split by every occurrence of d (empty tokens kept;
 * an empty d splits at each whitespace character). false if there is no
 * such token. */
static bool split_token(const char *s, int32_t sl, const char *d, int32_t dl,
                        int64_t idx, int32_t *ts, int32_t *te) {
  int32_t start = 0;
  int64_t k = 0;
  for (int32_t i = 0; i <= sl;) {
    bool at_end = i == sl;
    int32_t sep = 0;
    if (!at_end) {
      if (dl == 0)
        sep = java_space((unsigned char)s[i]) ? 1 : 0;
      else if (i + dl <= sl && !memcmp(s + i, d, (size_t)dl))
        sep = dl;
    }
    if (at_end || sep) {
      if (k == idx) {
        *ts = start;
        *te = i;
        return true;
      }
      if (at_end)
        return false;
      k++;
      i += sep;
      start = i;
    } else
      i++;
  }
  return false;
}

/* --------------------------------------------------------------- driver */

int lm_strfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  int64_t n = in->num_rows;
  lm_array *a[4] = {0};
  int na = e->n_args > 4 ? 4 : e->n_args, rc = 0;
  for (int i = 0; i < na && !rc; i++)
    rc = lm_eval(e->args[i], in, &a[i], err);
  lm_builder b;
  memset(&b, 0, sizeof b);
  if (!rc && lm_builder_init(&b, e->type, n))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf t, pat;
  lm_buf_init(&t);
  lm_buf_init(&pat);
  if (!rc) {
    switch (e->fn) {
    case LM_FN_DATE_FORMAT: { /* NULL ts or pattern -> NULL */
      for (int64_t i = 0; i < n; i++) {
        if (nul(a[0], i) || nul(a[1], i)) {
          lm_builder_append_null(&b);
          continue;
        }
        int32_t pl;
        const char *p = lm_array_str(a[1], i, &pl);
        lm_buf_reset(&pat); /* NUL-terminated copy of the pattern */
        lm_buf_append(&pat, p, (size_t)pl);
        lm_buf_putc(&pat, 0);
        lm_buf_reset(&t);
        date_format_one(&t, lm_array_i64(a[0])[i], pat.data);
        lm_builder_append_str(&b, t.data ? t.data : "", (int32_t)t.len);
      }
      break;
    }
    case LM_FN_REGEXP_EXTRACT:
      rc = regexp_extract(e, a, n, &b, err);
      break;
    case LM_FN_SPLIT_INDEX: /* any NULL, index < 0 or out of range -> NULL */
      for (int64_t i = 0; i < n; i++) {
        if (nul(a[0], i) || nul(a[1], i) || nul(a[2], i)) {
          lm_builder_append_null(&b);
          continue;
        }
        int32_t sl, dl, ts, te;
        const char *s = lm_array_str(a[0], i, &sl);
        const char *d = lm_array_str(a[1], i, &dl);
        int64_t idx = lm_array_i64(a[2])[i];
        /* Flink (commons-lang): "" splits into no tokens at all */
        if (idx < 0 || sl == 0 || !split_token(s, sl, d, dl, idx, &ts, &te))
          lm_builder_append_null(&b);
        else
          lm_builder_append_str(&b, s + ts, te - ts);
      }
      break;
    case LM_FN_COUNT_CHAR: /* NULL s -> 0 (the Nexmark UDF); NULL c -> NULL */
      for (int64_t i = 0; i < n; i++) {
        if (nul(a[1], i)) {
          lm_builder_append_null(&b);
          continue;
        }
        int32_t sl = 0, cl;
        const char *c = lm_array_str(a[1], i, &cl);
        const char *s = nul(a[0], i) ? "" : lm_array_str(a[0], i, &sl);
        int32_t w = 1; /* the first character's UTF-8 length */
        while (w < cl && ((unsigned char)c[w] & 0xC0) == 0x80)
          w++;
        int64_t cnt = 0;
        if (cl > 0)
          for (int32_t k = 0; k + w <= sl; k++)
            if (s[k] == c[0] && !memcmp(s + k, c, (size_t)w))
              cnt++;
        lm_builder_append_int(&b, cnt);
      }
      break;
    default:
      rc = fn_err(err, e, "function not implemented");
      break;
    }
  }
  lm_buf_free(&t);
  lm_buf_free(&pat);
  for (int i = 0; i < na; i++)
    if (a[i])
      lm_array_release(a[i]);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  rc = lm_builder_finish(&b, out);
  lm_builder_free(&b);
  return rc ? lm_err(err, LM_ERR_NOMEM, "out of memory") : 0;
}
