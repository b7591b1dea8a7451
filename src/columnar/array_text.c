/* columnar/array_text.c — PostgreSQL's array text form (lm_array_text.h). */
#include "columnar/lm_array_text.h"
#include "columnar/lm_temporal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool pg_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

int lm_list_item_text(lm_buf *out, const lm_array *a, int64_t k) {
  if (a->type.id == LM_TYPE_DICTIONARY)
    return lm_list_item_text(out, a->dictionary, lm_array_dict_index(a, k));
  if (a->type.id == LM_TYPE_BOOL) /* boolout: t / f */
    return lm_buf_puts(out, lm_array_bool(a, k) ? "t" : "f");
  if (a->type.id == LM_TYPE_TIMESTAMP && !lm_type_is_tstz(a->type)) {
    /* timestamp_out: a space, the fraction without trailing zeros */
    char ts[48];
    int n = lm_format_timestamp(lm_array_get_i64(a, k), ' ', ts);
    bool bc = n > 3 && !memcmp(ts + n - 3, " BC", 3);
    int end = bc ? n - 3 : n;
    if (memchr(ts, '.', (size_t)end)) {
      while (ts[end - 1] == '0')
        end--;
      if (ts[end - 1] == '.')
        end--;
    }
    int rc = lm_buf_append(out, ts, (size_t)end);
    return rc ? rc : bc ? lm_buf_append(out, " BC", 3) : 0;
  }
  return lm_array_format_value(out, a, k, "");
}

int lm_list_put_item(lm_buf *out, const char *p, size_t n) {
  bool quote = n == 0 || (n == 4 && !strncasecmp(p, "null", 4));
  for (size_t j = 0; j < n && !quote; j++)
    quote = p[j] == '"' || p[j] == '\\' || p[j] == '{' || p[j] == '}' ||
            p[j] == ',' || pg_space(p[j]);
  if (!quote)
    return lm_buf_append(out, p, n);
  int rc = lm_buf_putc(out, '"');
  for (size_t j = 0; j < n && !rc; j++) {
    if ((p[j] == '"' || p[j] == '\\') && (rc = lm_buf_putc(out, '\\')))
      break;
    rc = lm_buf_putc(out, p[j]);
  }
  return rc ? rc : lm_buf_putc(out, '"');
}

int lm_list_format_pg(lm_buf *out, const lm_array *a, int64_t i) {
  int64_t s, e;
  lm_array_list_range(a, i, &s, &e);
  const lm_array *c = a->children[0];
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = lm_buf_putc(out, '{');
  for (int64_t k = s; k < e && !rc; k++) {
    if (k > s && (rc = lm_buf_putc(out, ',')))
      break;
    if (c->type.id == LM_TYPE_NULL || lm_array_is_null(c, k)) {
      rc = lm_buf_append(out, "NULL", 4);
      continue;
    }
    lm_buf_reset(&tmp);
    if ((rc = lm_list_item_text(&tmp, c, k)))
      break;
    rc = lm_list_put_item(out, tmp.data ? tmp.data : "", tmp.len);
  }
  lm_buf_free(&tmp);
  return rc ? rc : lm_buf_putc(out, '}');
}

static int64_t bad(const char *s, size_t len, char *msg, size_t msg_size,
                   const char **state, const char *st, const char *detail) {
  snprintf(msg, msg_size, "malformed array literal: \"%.*s\"%s%s",
           (int)(len > 200 ? 200 : len), s, detail ? "\n" : "",
           detail ? detail : "");
  *state = st;
  return -1;
}

int64_t lm_list_parse_pg(const char *s, size_t len, lm_builder *items,
                         char *msg, size_t msg_size, const char **state) {
  size_t i = 0;
  while (i < len && pg_space(s[i]))
    i++;
  /* [lb:ub]= or [ub]= dimension decoration, read as PostgreSQL's array_in
   * (ReadArrayDimensions): one dimension with lower bound 1 is the plain
   * array; another lower bound or more dimensions is 0A000 below */
  int ndim = 0;
  long lb = 1, want = -1;
  while (i < len && s[i] == '[') {
    i++;
    long v[2] = {0, 0};
    int nv = 0;
    for (;;) {
      size_t q = i;
      while (q < len &&
             (isdigit((unsigned char)s[q]) || s[q] == '-' || s[q] == '+'))
        q++;
      if (q == i)
        return bad(s, len, msg, msg_size, state, "22P02",
                   nv ? "Missing array dimension value."
                      : "\"[\" must introduce explicitly-specified array "
                        "dimensions.");
      v[nv++] = strtol(s + i, NULL, 10);
      i = q;
      if (nv == 1 && i < len && s[i] == ':') {
        i++;
        continue;
      }
      break;
    }
    if (i >= len || s[i] != ']')
      return bad(s, len, msg, msg_size, state, "22P02",
                 "Missing \"]\" after array dimensions.");
    i++;
    long lo = nv == 2 ? v[0] : 1, ub = nv == 2 ? v[1] : v[0];
    if (ub < lo) {
      snprintf(msg, msg_size, "upper bound cannot be less than lower bound");
      *state = "2202E";
      return -1;
    }
    if (ndim++ == 0) {
      lb = lo;
      want = ub - lo + 1;
    }
    while (i < len && pg_space(s[i]))
      i++;
  }
  if (ndim) {
    if (i >= len || s[i] != '=')
      return bad(s, len, msg, msg_size, state, "22P02",
                 "Missing \"=\" after array dimensions.");
    i++;
    while (i < len && pg_space(s[i]))
      i++;
    if (i >= len || s[i] != '{')
      return bad(s, len, msg, msg_size, state, "22P02",
                 "Array contents must start with \"{\".");
    if (ndim > 1) {
      snprintf(msg, msg_size,
               "multidimensional arrays are not supported: \"%.*s\"",
               (int)(len > 200 ? 200 : len), s);
      *state = "0A000";
      return -1;
    }
  }
  if (i >= len || s[i] != '{')
    return bad(s, len, msg, msg_size, state, "22P02",
               "Array value must start with \"{\" or dimension information.");
  i++;
  lm_buf item;
  lm_buf_init(&item);
  int64_t n = 0;
  while (i < len && pg_space(s[i]))
    i++;
  if (i < len && s[i] == '}') { /* {} */
    i++;
    goto tail;
  }
  for (;;) {
    while (i < len && pg_space(s[i]))
      i++;
    if (i >= len) {
      lm_buf_free(&item);
      return bad(s, len, msg, msg_size, state, "22P02",
                 "Unexpected end of input.");
    }
    if (s[i] == '{') {
      lm_buf_free(&item);
      snprintf(msg, msg_size,
               "multidimensional arrays are not supported: \"%.*s\"",
               (int)(len > 200 ? 200 : len), s);
      *state = "0A000";
      return -1;
    }
    lm_buf_reset(&item);
    bool quoted = false, any = false;
    size_t keep = 0; /* item length up to the last non-space or escaped */
    if (s[i] == '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= len) {
          lm_buf_free(&item);
          return bad(s, len, msg, msg_size, state, "22P02",
                     "Unexpected end of input.");
        }
        char ch = s[i++];
        if (ch == '"')
          break;
        if (ch == '\\') {
          if (i >= len) {
            lm_buf_free(&item);
            return bad(s, len, msg, msg_size, state, "22P02",
                       "Unexpected end of input.");
          }
          ch = s[i++];
        }
        lm_buf_putc(&item, ch);
      }
      keep = item.len;
      while (i < len && pg_space(s[i]))
        i++;
    } else {
      while (i < len && s[i] != ',' && s[i] != '}') {
        char ch = s[i++];
        if (ch == '"' || ch == '{') {
          lm_buf_free(&item);
          return bad(s, len, msg, msg_size, state, "22P02",
                     ch == '"' ? "Unexpected \"\"\" character."
                               : "Unexpected \"{\" character.");
        }
        if (ch == '\\') {
          if (i >= len) {
            lm_buf_free(&item);
            return bad(s, len, msg, msg_size, state, "22P02",
                       "Unexpected end of input.");
          }
          lm_buf_putc(&item, s[i++]);
          keep = item.len;
          any = true;
          continue;
        }
        lm_buf_putc(&item, ch);
        if (!pg_space(ch))
          keep = item.len;
      }
      item.len = keep;
      if (keep == 0 && !any) {
        lm_buf_free(&item);
        return bad(s, len, msg, msg_size, state, "22P02",
                   i < len ? "Unexpected \",\" character."
                           : "Unexpected end of input.");
      }
    }
    if (i >= len) {
      lm_buf_free(&item);
      return bad(s, len, msg, msg_size, state, "22P02",
                 "Unexpected end of input.");
    }
    if (!quoted && !any && keep == 4 && !strncasecmp(item.data, "null", 4))
      lm_builder_append_null(items);
    else
      lm_builder_append_str(items, item.data ? item.data : "",
                            (int32_t)item.len);
    n++;
    if (s[i] == ',') {
      i++;
      continue;
    }
    if (s[i] == '}') {
      i++;
      break;
    }
    lm_buf_free(&item);
    return bad(s, len, msg, msg_size, state, "22P02",
               "Unexpected array element.");
  }
tail:
  lm_buf_free(&item);
  while (i < len && pg_space(s[i]))
    i++;
  if (i < len)
    return bad(s, len, msg, msg_size, state, "22P02",
               "Junk after closing right brace.");
  if (want >= 0 && n != want)
    return bad(s, len, msg, msg_size, state, "22P02",
               "Specified array dimensions do not match array contents.");
  if (want >= 0 && lb != 1) { /* PostgreSQL keeps it: '[2:3]={5,6}' */
    snprintf(msg, msg_size,
             "array lower bound %ld is not supported (Laminar arrays start "
             "at 1): \"%.*s\"",
             lb, (int)(len > 200 ? 200 : len), s);
    *state = "0A000";
    return -1;
  }
  return n;
}
