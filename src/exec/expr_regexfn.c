/*
 * PostgreSQL regular expression functions over PCRE2, a batch at a time
 * (bound in plan/func_bind.c):
 *
 *   s ~ re, s ~* re, s !~ re, s !~* re, regexp_like(s, re [, flags])
 *   regexp_replace(s, re, repl [, flags])  first match, or every one with g
 *   regexp_match(s, re [, flags])          text[] as its text form (below)
 *   regexp_substr(s, re[, start, n, flags, subexpr])  the n-th match
 *   regexp_instr, regexp_count             PostgreSQL 15's
 *   substring(s FROM re)                   group 1 or the whole match
 *
 * PostgreSQL's ARE syntax is rewritten for PCRE2 where the two differ
 * (exec/regex_are.c: \m \M \y \Y \Z, embedded options ...); to match its
 * defaults the patterns are compiled with DOTALL ('.' matches a newline)
 * and DOLLAR_ENDONLY. Flags: i (case-insensitive), c
 * (case-sensitive), g (regexp_replace only); anything else is PostgreSQL's
 * "invalid regular expression option". regexp_match returns PostgreSQL's
 * text[] in its text form ('{a,NULL,"b c"}'), since Laminar has no arrays:
 * `regexp_match(s, re)::text` in PostgreSQL gives the same string.
 * In the replacement, \1..\9 are groups, \& the whole match, \\ a
 * backslash. Patterns compile once per batch while they repeat.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/lm_regex_are.h"
#include "exec/lm_strfn.h"

typedef struct rx {
  pcre2_code *code;
  pcre2_match_data *md;
  char *pat; /* the pattern `code` was compiled from (malloc'd) */
  int32_t len;
  uint32_t opts;
  uint32_t ngroups;
  bool dfa;          /* the backtracking matcher hit its limits on this pattern:
                      * the boolean operators use pcre2_dfa_match */
  pcre2_code *dcode; /* the pattern for pcre2_dfa_match (compiled on first
                      * use, without JIT) */
  lm_buf tpat;       /* pat rewritten for PCRE2 (lm_regex_are) */
  uint32_t copts;    /* the options it compiles with */
} rx;

static void rx_free(rx *r) {
  pcre2_match_data_free(r->md);
  pcre2_code_free(r->dcode);
  pcre2_code_free(r->code);
  free(r->pat);
  lm_buf_free(&r->tpat);
  memset(r, 0, sizeof *r);
}

/* Compiles pat (pl bytes) with options unless r already holds it. */
static int rx_get(rx *r, const lm_bexpr *e, const char *pat, int32_t pl,
                  uint32_t opts, lm_error *err) {
  if (r->code && r->len == pl && r->opts == opts &&
      !memcmp(r->pat, pat, (size_t)pl))
    return 0;
  rx_free(r);
  int ec;
  PCRE2_SIZE off;
  char msg[300];
  uint32_t copts = opts;
  int tr = lm_regex_are(pat, (size_t)pl, &copts, &r->tpat, msg, sizeof msg);
  if (tr) {
    rx_free(r);
    return tr == -2 ? lm_err(err, LM_ERR_NOMEM, "out of memory")
                    : lm_fn_error(err, e, "2201B", "%s", msg);
  }
  r->copts = copts;
  r->code =
      pcre2_compile((PCRE2_SPTR)(r->tpat.data ? r->tpat.data : ""), r->tpat.len,
                    /* no PCRE2_MATCH_INVALID_UTF: with the JIT of
                     * PCRE2 10.42 it makes \S \W \D miss every
                     * non-ASCII character; VARCHAR is valid UTF-8,
                     * and PCRE2 checks it (an error if not) */
                    PCRE2_UTF | copts, &ec, &off, NULL);
  if (!r->code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(ec, buf, sizeof buf);
    return lm_fn_error(err, e, "2201B",
                       "invalid regular expression: %s (at offset %zu)",
                       (const char *)buf, (size_t)off);
  }
  (void)pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE);
  r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
  r->pat = malloc((size_t)pl + 1);
  if (!r->md || !r->pat) {
    rx_free(r);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  memcpy(r->pat, pat, (size_t)pl);
  r->len = pl;
  r->opts = opts;
  pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &r->ngroups);
  return 0;
}

/* Parses PostgreSQL regex flags; *global for 'g' (allowed only when
 * `allow_g`). */
static int parse_flags(const lm_bexpr *e, const char *f, int32_t fl,
                       bool allow_g, uint32_t *opts, bool *global,
                       lm_error *err) {
  for (int32_t k = 0; k < fl; k++) {
    char c = f[k];
    if (c == 'i')
      *opts |= PCRE2_CASELESS;
    else if (c == 'c')
      *opts &= ~(uint32_t)PCRE2_CASELESS;
    /* newline sensitivity (PostgreSQL 9.7.3.5, Table 9.24): n = p + w.
     * PCRE2 has no option for PostgreSQL's "[^...] does not match a
     * newline" of n and p: only '.' changes there */
    else if (c == 'n' || c == 'm') /* m: n's historical synonym */
      *opts = (*opts & ~(uint32_t)(PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY)) |
              PCRE2_MULTILINE;
    else if (c == 'e') /* ERE: read as an ARE, which extends it */
      continue;
    else if (c == 'b')
      return lm_fn_error(err, e, "0A000",
                         "basic regular expressions (option \"b\") are "
                         "not supported");
    else if (c == 's')
      *opts = (*opts & ~(uint32_t)PCRE2_MULTILINE) | PCRE2_DOTALL |
              PCRE2_DOLLAR_ENDONLY;
    else if (c == 'p')
      *opts = (*opts & ~(uint32_t)(PCRE2_DOTALL | PCRE2_MULTILINE)) |
              PCRE2_DOLLAR_ENDONLY;
    else if (c == 'w')
      *opts = (*opts & ~(uint32_t)PCRE2_DOLLAR_ENDONLY) | PCRE2_DOTALL |
              PCRE2_MULTILINE;
    else if (c == 'x') /* expanded: white space and # comments ignored */
      *opts |= PCRE2_EXTENDED;
    else if (c == 't') /* tight (the default) */
      *opts &= ~(uint32_t)PCRE2_EXTENDED;
    else if (c == 'q') /* the pattern is a literal string */
      *opts |= PCRE2_LITERAL;
    else if (c == 'g' && allow_g)
      *global = true;
    else if (c == 'g')
      return lm_fn_error(
          err, e, "22023", "%s() does not support the \"global\" option",
          e->fn == LM_FN_REGEXP_MATCH
              ? (e->negated ? "regexp_split_to_array" : "regexp_match")
          : e->fn == LM_FN_REGEXP_COUNT  ? "regexp_count"
          : e->fn == LM_FN_REGEXP_INSTR  ? "regexp_instr"
          : e->fn == LM_FN_REGEXP_SUBSTR ? "regexp_substr"
                                         : "regexp_like");
    else
      return lm_fn_error(err, e, "22023",
                         "invalid regular expression option: \"%.*s\"",
                         c & 0x80 ? 1 : 1, f + k);
  }
  if (*opts & PCRE2_LITERAL) /* PCRE2 takes few options with it */
    *opts &= PCRE2_LITERAL | PCRE2_CASELESS;
  return 0;
}

/* Whether the function needs only the whole match (ovector pair 0), not
 * the groups: then the DFA matcher can stand in for the backtracking one. */
static bool rx_whole_match_only(const rx *r, const lm_bexpr *e) {
  return e->fn == LM_FN_REGEX_OP || e->fn == LM_FN_REGEXP_SUBSTR ||
         r->ngroups == 0;
}

/* pcre2_dfa_match at `start`: the longest match at the leftmost position
 * in ovector pair 0 (PostgreSQL's engine is a DFA/NFA hybrid with no
 * exponential backtracking: '(a+)+$' against 'aaa...a!' is simply false).
 * Same returns as pcre2_match (>= 0 match, NOMATCH, < 0 error). The
 * workspace grows from 1k to 1M ints while PCRE2 reports it too small. */
static int rx_dfa(rx *r, const char *s, int32_t sl, int32_t start,
                  uint32_t mopts) {
  if (!r->dcode) {
    int ec;
    PCRE2_SIZE off;
    r->dcode =
        pcre2_compile((PCRE2_SPTR)(r->tpat.data ? r->tpat.data : ""),
                      r->tpat.len, PCRE2_UTF | r->copts, &ec, &off, NULL);
    if (!r->dcode)
      return PCRE2_ERROR_DFA_UITEM;
  }
  int stack_ws[1024];
  int *ws = stack_ws;
  size_t wn = LM_ARRAY_LEN(stack_ws);
  int m;
  for (;;) {
    m = pcre2_dfa_match(r->dcode, (PCRE2_SPTR)s, (size_t)sl, (size_t)start,
                        mopts, r->md, NULL, ws, wn);
    if (m != PCRE2_ERROR_DFA_WSSIZE || wn >= (size_t)1 << 20)
      break;
    int *bigger = malloc(sizeof(int) * wn * 8);
    if (!bigger)
      break;
    if (ws != stack_ws)
      free(ws);
    ws = bigger;
    wn *= 8;
  }
  if (ws != stack_ws)
    free(ws);
  return m;
}

/* Runs a match at byte offset `start`; returns >0 on a match, 0 for none,
 * <0 for a PCRE2 error (reported in err). When the backtracking matcher
 * hits its match / depth / heap limit (nested quantifiers: '(a+)+$') and
 * the function needs no groups, the DFA matcher answers instead (and, for
 * the boolean operators, directly for the pattern's later rows). */
static int rx_match(rx *r, const lm_bexpr *e, const char *s, int32_t sl,
                    int32_t start, uint32_t mopts, lm_error *err) {
  int m;
  if (r->dfa && e->fn == LM_FN_REGEX_OP) { /* a yes / no: the same answer */
    m = rx_dfa(r, s, sl, start, mopts);
  } else {
    m = pcre2_match(r->code, (PCRE2_SPTR)s, (size_t)sl, (size_t)start, mopts,
                    r->md, NULL);
    if ((m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT ||
         m == PCRE2_ERROR_HEAPLIMIT || m == PCRE2_ERROR_JIT_STACKLIMIT) &&
        rx_whole_match_only(r, e)) {
      int d = rx_dfa(r, s, sl, start, mopts);
      /* back references and some other items have no DFA form: keep the
       * backtracking matcher's error then */
      if (d >= 0 || d == PCRE2_ERROR_NOMATCH) {
        r->dfa = true;
        m = d;
      }
    } else if (m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT ||
               m == PCRE2_ERROR_HEAPLIMIT || m == PCRE2_ERROR_JIT_STACKLIMIT) {
      /* the groups are needed: the DFA matcher still says whether there is
       * a match (none: PostgreSQL's answer, no groups to fill); when there
       * is one, the backtracking matcher retries anchored at its start */
      int d = rx_dfa(r, s, sl, start, mopts);
      if (d == PCRE2_ERROR_NOMATCH) {
        m = d;
      } else if (d >= 0) {
        size_t at = pcre2_get_ovector_pointer(r->md)[0];
        int a = pcre2_match(r->code, (PCRE2_SPTR)s, (size_t)sl, at,
                            mopts | PCRE2_ANCHORED, r->md, NULL);
        if (a >= 0)
          m = a;
      }
    }
  }
  if (m == PCRE2_ERROR_NOMATCH)
    return 0;
  if (m < 0) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(m, buf, sizeof buf);
    lm_fn_error(err, e, "2201B", "regular expression failed: %s",
                (const char *)buf);
    return -1;
  }
  return 1;
}

/* PostgreSQL's text[] element quoting: quoted when empty, "NULL" (any
 * case), or holding a space, quote, backslash, comma or brace. */
static void put_array_elem(lm_buf *o, const char *v, size_t n) {
  bool q = n == 0 || (n == 4 && !strncasecmp(v, "null", 4));
  for (size_t k = 0; k < n && !q; k++)
    q = strchr(" \t\n\r\v\f\"\\,{}", v[k]) != NULL;
  if (!q) {
    lm_buf_append(o, v, n);
    return;
  }
  lm_buf_putc(o, '"');
  for (size_t k = 0; k < n; k++) {
    if (v[k] == '"' || v[k] == '\\')
      lm_buf_putc(o, '\\');
    lm_buf_putc(o, v[k]);
  }
  lm_buf_putc(o, '"');
}

/* Appends the replacement for the current match (ovector ov). */
static void put_replacement(lm_buf *o, const char *s, const PCRE2_SIZE *ov,
                            uint32_t ngroups, const char *rep, int32_t rl) {
  for (int32_t k = 0; k < rl; k++) {
    if (rep[k] != '\\' || k + 1 >= rl) {
      lm_buf_putc(o, rep[k]);
      continue;
    }
    char c = rep[++k];
    if (c >= '1' && c <= '9') {
      uint32_t g = (uint32_t)(c - '0');
      if (g <= ngroups && ov[2 * g] != PCRE2_UNSET)
        lm_buf_append(o, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    } else if (c == '&') {
      lm_buf_append(o, s + ov[0], ov[1] - ov[0]);
    } else if (c == '\\') {
      lm_buf_putc(o, '\\');
    } else {
      lm_buf_putc(o, '\\');
      lm_buf_putc(o, c);
    }
  }
}

/* The characters (1-based position) before byte `at` of s. */
static int64_t char_pos(const char *s, int32_t at) {
  int64_t n = 1;
  for (int32_t k = 0; k < at; k++)
    n += ((unsigned char)s[k] & 0xC0) != 0x80;
  return n;
}

/* The n-th match of regexp_instr(s, re[, start[, n[, endoption[, flags[,
 * subexpr]]]]]) and regexp_substr(s, re[, start[, n[, flags[, subexpr]]]])
 * (PostgreSQL 15), from character `start` (args[2]), of the whole match or
 * capture group subexpr (args[sub_arg]): its bytes [*lo, *hi). Checks the
 * arguments as PostgreSQL (22023 for start < 1, n < 1, subexpr < 0).
 * Returns 1 when found, 0 when not (or the group did not take part), <0
 * on an error (in err). */
static int nth_match(const lm_bexpr *e, lm_array *const *a, int64_t i, rx *r,
                     const char *s, int32_t sl, int sub_arg, int32_t *lo,
                     int32_t *hi, lm_error *err) {
  int64_t st = e->n_args > 2 ? lm_array_get_i64(a[2], i) : 1;
  int64_t nth = e->n_args > 3 ? lm_array_get_i64(a[3], i) : 1;
  int64_t sub = e->n_args > sub_arg ? lm_array_get_i64(a[sub_arg], i) : 0;
  if (st < 1) {
    lm_fn_error(err, e, "22023", "invalid value for parameter \"start\": %lld",
                (long long)st);
    return -1;
  }
  if (nth < 1) {
    lm_fn_error(err, e, "22023", "invalid value for parameter \"n\": %lld",
                (long long)nth);
    return -1;
  }
  if (sub < 0) {
    lm_fn_error(err, e, "22023",
                "invalid value for parameter \"subexpr\": %lld",
                (long long)sub);
    return -1;
  }
  int32_t at = 0; /* the byte of character st */
  for (int64_t ch = 1; ch < st && at < sl; ch++) {
    at++;
    while (at < sl && ((unsigned char)s[at] & 0xC0) == 0x80)
      at++;
  }
  int64_t cnt = 0;
  while (at <= sl && st <= (int64_t)sl + 1) {
    int mm = rx_match(r, e, s, sl, at, 0, err);
    if (mm <= 0)
      return mm;
    PCRE2_SIZE *cv = pcre2_get_ovector_pointer(r->md);
    if (++cnt == nth) {
      if ((uint64_t)sub > r->ngroups || cv[2 * sub] == PCRE2_UNSET)
        return 0;
      *lo = (int32_t)cv[2 * sub];
      *hi = (int32_t)cv[2 * sub + 1];
      return 1;
    }
    at = (int32_t)cv[1];
    if (cv[1] == cv[0]) { /* empty match: one character on */
      if (at >= sl)
        break;
      at++;
      while (at < sl && ((unsigned char)s[at] & 0xC0) == 0x80)
        at++;
    }
  }
  return 0;
}

/* regexp_instr: where the n-th match begins (endoption 0) or the
 * character after it ends (1); 0 when there is none. regexp_substr: its
 * text, NULL when there is none. */
static int instr_row(const lm_bexpr *e, lm_array *const *a, int64_t i, rx *r,
                     const char *s, int32_t sl, lm_builder *b, lm_error *err) {
  bool instr = e->fn == LM_FN_REGEXP_INSTR;
  int64_t endo = instr && e->n_args > 4 ? lm_array_get_i64(a[4], i) : 0;
  if (endo != 0 && endo != 1)
    return lm_fn_error(err, e, "22023",
                       "invalid value for parameter \"endoption\": %lld",
                       (long long)endo);
  int32_t lo = 0, hi = 0;
  int m = nth_match(e, a, i, r, s, sl, instr ? 6 : 5, &lo, &hi, err);
  if (m < 0)
    return LM_ERR_EXEC;
  if (instr)
    lm_builder_append_int(b, m ? char_pos(s, endo ? hi : lo) : 0);
  else if (m)
    lm_builder_append_str(b, s + lo, hi - lo);
  else
    lm_builder_append_null(b);
  return 0;
}

/* similar_to_escape's ^(?:P1){1,1}?(P2){1,1}(?:P3)$ (pat, pl bytes) into
 * o with P1's quantifiers made lazy: PostgreSQL's engine matches P1 as
 * short as possible ({1,1}? makes it so), PCRE2 needs each quantifier
 * marked. Other patterns are copied as they are. */
static void lazy_prefix(const char *pat, int32_t pl, lm_buf *o) {
  static const char mark[] = "){1,1}?(";
  int32_t k = 0;
  if (pl >= 4 && !memcmp(pat, "^(?:", 4) &&
      memmem(pat, (size_t)pl, mark, sizeof mark - 1)) {
    lm_buf_append(o, pat, 4);
    k = 4;
    int depth = 0;
    while (k < pl) {
      char c = pat[k];
      if (c == ')' && depth == 0)
        break; /* the end of P1: the mark */
      lm_buf_putc(o, c);
      k++;
      if (c == '\\' && k < pl) {
        lm_buf_putc(o, pat[k++]);
        continue;
      }
      if (c == '[') { /* a bracket expression, up to its ] */
        if (k < pl && pat[k] == '^')
          lm_buf_putc(o, pat[k++]);
        if (k < pl && pat[k] == ']')
          lm_buf_putc(o, pat[k++]);
        while (k < pl && pat[k] != ']') {
          if (pat[k] == '[' && k + 1 < pl && pat[k + 1] == ':') {
            const char *end = memmem(pat + k, (size_t)(pl - k), ":]", 2);
            int32_t to = end ? (int32_t)(end - pat) + 2 : pl;
            lm_buf_append(o, pat + k, (size_t)(to - k));
            k = to;
            continue;
          }
          if (pat[k] == '\\' && k + 1 < pl)
            lm_buf_putc(o, pat[k++]);
          lm_buf_putc(o, pat[k++]);
        }
        if (k < pl)
          lm_buf_putc(o, pat[k++]);
        continue;
      }
      if (c == '(') {
        depth++;
        if (k < pl && pat[k] == '?') /* (?: (?= ...: not a quantifier */
          lm_buf_putc(o, pat[k++]);
        continue;
      }
      if (c == ')') {
        depth--;
        continue;
      }
      if (c == '{') { /* a bound {m,n}: up to its } */
        while (k < pl && pat[k] != '}')
          lm_buf_putc(o, pat[k++]);
        if (k < pl)
          lm_buf_putc(o, pat[k++]);
        c = '*';
      }
      if ((c == '*' || c == '+' || c == '?') && !(k < pl && pat[k] == '?'))
        lm_buf_putc(o, '?');
    }
  }
  lm_buf_append(o, pat + k, (size_t)(pl - k));
}

/* regexp_split_to_array (LM_FN_REGEXP_MATCH with negated set): the
 * pieces of s between the matches in text[]'s text form, as PostgreSQL's
 * split: a match that is empty at the start or end of s or right after
 * the previous match separates nothing. */
static int split_row(const lm_bexpr *e, rx *r, const char *s, int32_t sl,
                     lm_builder *b, lm_buf *o, lm_error *err) {
  lm_buf_reset(o);
  lm_buf_putc(o, '{');
  int32_t pos = 0, search = 0, prev_end = 0;
  bool first = true;
  for (;;) {
    int32_t ms = -1, me = -1;
    while (search <= sl) {
      int m = rx_match(r, e, s, sl, search, 0, err);
      if (m < 0)
        return LM_ERR_EXEC;
      if (!m)
        break;
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
      int32_t so = (int32_t)ov[0], eo = (int32_t)ov[1];
      bool keep = so < sl && eo > prev_end;
      prev_end = eo;
      search = eo;
      if (so == eo) { /* empty match: one character on */
        search++;
        while (search < sl && ((unsigned char)s[search] & 0xC0) == 0x80)
          search++;
      }
      if (keep) {
        ms = so;
        me = eo;
        break;
      }
    }
    if (!first)
      lm_buf_putc(o, ',');
    first = false;
    if (ms < 0) { /* the rest of the string */
      put_array_elem(o, s + pos, (size_t)(sl - pos));
      break;
    }
    put_array_elem(o, s + pos, (size_t)(ms - pos));
    pos = me;
  }
  lm_buf_putc(o, '}');
  if (o->len > INT32_MAX)
    return lm_fn_error(err, e, "54000", "string result too long");
  lm_builder_append_str(b, o->data, (int32_t)o->len);
  return 0;
}

/* One row of a regular-expression function (ctx: the rx cache). */
static int regexfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                       lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  rx *r = ctx;
  int rc = 0;
  int flags_arg = e->fn == LM_FN_REGEXP_INSTR    ? 5
                  : e->fn == LM_FN_REGEXP_SUBSTR ? 4
                  : e->fn == LM_FN_REGEXP_REPLACE || e->fn == LM_FN_REGEXP_COUNT
                      ? 3
                      : 2;
  int32_t sl, pl;
  const char *s = lm_array_str(a[0], i, &sl);
  const char *pat = lm_array_str(a[1], i, &pl);
  /* PostgreSQL's default: '.' matches a newline, '$' only at the end */
  uint32_t opts =
      (e->icase ? PCRE2_CASELESS : 0) | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY;
  bool global = false;
  if (e->n_args > flags_arg) {
    int32_t fl;
    const char *f = lm_array_str(a[flags_arg], i, &fl);
    if ((rc = parse_flags(e, f, fl, e->fn == LM_FN_REGEXP_REPLACE, &opts,
                          &global, err)))
      return rc;
  }
  if (e->fn == LM_FN_REGEXP_SUBSTR && e->negated) { /* substring */
    lm_buf_reset(o);
    lazy_prefix(pat, pl, o);
    if (o->len > INT32_MAX)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    pat = o->data ? o->data : "";
    pl = (int32_t)o->len;
  }
  if ((rc = rx_get(r, e, pat, pl, opts, err)))
    return rc;
  if (e->fn == LM_FN_REGEXP_INSTR ||
      (e->fn == LM_FN_REGEXP_SUBSTR && !e->negated))
    return instr_row(e, a, i, r, s, sl, b, err); /* PostgreSQL 15's */
  if (e->fn == LM_FN_REGEXP_COUNT) { /* PostgreSQL 15's regexp_count */
    int64_t st = e->n_args > 2 ? lm_array_get_i64(a[2], i) : 1;
    if (st < 1)
      return lm_fn_error(err, e, "22023",
                         "invalid value for parameter \"start\": %lld",
                         (long long)st);
    int32_t at = 0; /* the byte of character st */
    for (int64_t ch = 1; ch < st && at < sl; ch++) {
      at++;
      while (at < sl && ((unsigned char)s[at] & 0xC0) == 0x80)
        at++;
    }
    int64_t cnt = 0;
    while (at <= sl && st <= (int64_t)sl + 1) {
      int mm = rx_match(r, e, s, sl, at, 0, err);
      if (mm < 0)
        return LM_ERR_EXEC;
      if (!mm)
        break;
      PCRE2_SIZE *cv = pcre2_get_ovector_pointer(r->md);
      cnt++;
      at = (int32_t)cv[1];
      if (cv[1] == cv[0]) { /* empty match: one character on */
        if (at >= sl)
          break;
        at++;
        while (at < sl && ((unsigned char)s[at] & 0xC0) == 0x80)
          at++;
      }
    }
    lm_builder_append_int(b, cnt);
    return 0;
  }
  if (e->fn == LM_FN_REGEXP_MATCH && e->negated)
    return split_row(e, r, s, sl, b, o, err);
  int m = rx_match(r, e, s, sl, 0, 0, err);
  if (m < 0)
    return LM_ERR_EXEC;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
  switch (e->fn) {
  case LM_FN_REGEX_OP:
    lm_builder_append_bool(b, (m > 0) != e->negated);
    break;
  case LM_FN_REGEXP_SUBSTR: /* substring(s FROM re): group 1 or all */
    if (m && (r->ngroups == 0 || ov[2] != PCRE2_UNSET)) {
      int g = r->ngroups ? 1 : 0;
      lm_builder_append_str(b, s + ov[2 * g],
                            (int32_t)(ov[2 * g + 1] - ov[2 * g]));
    } else {
      lm_builder_append_null(b);
    }
    break;
  case LM_FN_REGEXP_MATCH:
    if (!m) {
      lm_builder_append_null(b);
      break;
    }
    lm_buf_reset(o);
    lm_buf_putc(o, '{');
    if (r->ngroups == 0)
      put_array_elem(o, s + ov[0], ov[1] - ov[0]);
    for (uint32_t g = 1; g <= r->ngroups; g++) {
      if (g > 1)
        lm_buf_putc(o, ',');
      if (ov[2 * g] == PCRE2_UNSET)
        lm_buf_append(o, "NULL", 4);
      else
        put_array_elem(o, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    }
    lm_buf_putc(o, '}');
    lm_builder_append_str(b, o->data, (int32_t)o->len);
    break;
  default: { /* regexp_replace */
    int32_t rl;
    const char *rep = lm_array_str(a[2], i, &rl);
    lm_buf_reset(o);
    int32_t done = 0; /* bytes of s copied */
    while (m > 0) {
      lm_buf_append(o, s + done, ov[0] - (size_t)done);
      put_replacement(o, s, ov, r->ngroups, rep, rl);
      done = (int32_t)ov[1];
      if (!global)
        break;
      int32_t next = (int32_t)ov[1];
      if (ov[1] == ov[0]) { /* empty match: copy one character on */
        if (next >= sl)
          break;
        int32_t c = next + 1;
        while (c < sl && ((unsigned char)s[c] & 0xC0) == 0x80)
          c++;
        lm_buf_append(o, s + next, (size_t)(c - next));
        done = c;
        next = c;
      }
      m = rx_match(r, e, s, sl, next, 0, err);
      if (m < 0)
        rc = LM_ERR_EXEC;
    }
    if (rc)
      break;
    lm_buf_append(o, s + done, (size_t)(sl - done));
    if (o->len > INT32_MAX) {
      rc = lm_fn_error(err, e, "54000", "string result too long");
      break;
    }
    lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
  }
  }
  return rc;
}

int lm_regexfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err) {
  rx r;
  memset(&r, 0, sizeof r);
  int rc = lm_fn_rows(e, in, e->n_args, regexfn_row, &r, out, err);
  rx_free(&r);
  return rc;
}
