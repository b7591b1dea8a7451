/* sql/parser.c — hand-written recursive-descent parser producing the AST of
 * lm_sql.h. The whole input is tokenized first (stopping at the first lexer
 * error, kept as an LM_TK_ERROR token that is reported only when the parser
 * reaches it), then statements are parsed one by one. Every node, string
 * and list lives in the script's arena. */
#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "sql/sql_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting levels an expression may have (parentheses, operators of a
 * chain, unary operators); the stack check (deeper) usually stops first.
 * AND / OR chains are balanced trees and count log2(n). */
#define LM_SQL_MAX_DEPTH 10000
#define LM_SQL_MAX_COLUMNS                                                     \
  4096 /* per CREATE SOURCE (duplicate check is                                \
          quadratic) */

typedef struct parser {
  const char *sql;
  size_t len;
  lm_arena *arena;
  lm_token *toks; /* malloc'd; last one is EOF or ERROR */
  size_t n_toks;
  size_t pos;
  lm_error err;    /* the first error */
  lm_error lexerr; /* error of the trailing LM_TK_ERROR token, if any */
  int rc;
  int depth;
  int subquery;  /* > 0 while parsing a FROM (SELECT ...) subquery */
  int tprec;     /* the last parse_type's TIMESTAMP(p)/TIME(p): p + 1, or 0 */
  int32_t tlen;  /* the last parse_type's VARCHAR(n) / CHAR(n): n, or 0 */
  bool tbpchar;  /* the last parse_type was CHAR[(n)] / CHARACTER / BPCHAR */
  bool tvarchar; /* ... was VARCHAR[(n)] / CHARACTER VARYING */
} parser;

/* --------------------------------------------------------------- tokens */

static const lm_token *cur(const parser *p) {
  return &p->toks[p->pos];
}

static const lm_token *peek(const parser *p, size_t k) {
  size_t i = p->pos + k;
  if (i >= p->n_toks)
    i = p->n_toks - 1;
  return &p->toks[i];
}

static void next(parser *p) {
  if (p->pos + 1 < p->n_toks)
    p->pos++;
}

static bool is_kind(const parser *p, lm_token_kind k) {
  return cur(p)->kind == k;
}
static bool is_kw(const parser *p, const char *kw) {
  return lm_token_is_kw(cur(p), kw);
}
static bool accept(parser *p, lm_token_kind k) {
  if (!is_kind(p, k))
    return false;
  next(p);
  return true;
}
static bool accept_kw(parser *p, const char *kw) {
  if (!is_kw(p, kw))
    return false;
  next(p);
  return true;
}

/* Words that cannot be a bare column reference, implicit alias or object
 * name: PostgreSQL 15's reserved and type/function-name keywords that
 * start or separate clauses here. Everything else, PostgreSQL's unreserved
 * and column-name keywords included (ts, value, hour, by, filter, over,
 * values, between, type, key, ...), stays usable as a name. */
static const char *const reserved_words[] = {
    "ALL",    "AND",    "AS",       "ASC",    "CASE",  "CAST",   "CREATE",
    "CROSS",  "DESC",   "DISTINCT", "ELSE",   "END",   "EXCEPT", "FALSE",
    "FROM",   "FULL",   "GROUP",    "HAVING", "IN",    "INNER",  "INTERSECT",
    "INTO",   "IS",     "JOIN",     "LEFT",   "LIKE",  "LIMIT",  "NOT",
    "NULL",   "OFFSET", "ON",       "OR",     "ORDER", "OUTER",  "RIGHT",
    "SELECT", "THEN",   "TRUE",     "UNION",  "USING", "WHEN",   "WHERE",
    "WITH",
};

static bool is_reserved(const lm_token *t) {
  if (t->kind != LM_TK_IDENT)
    return false;
  for (size_t i = 0; i < LM_ARRAY_LEN(reserved_words); i++)
    if (lm_token_is_kw(t, reserved_words[i]))
      return true;
  return false;
}

/* Whether a name token can be an alias without AS (PostgreSQL's
 * BareColLabel: not its keywords marked AS_LABEL, e.g. `SELECT 1 over` is a
 * syntax error there), nor EMIT, which starts Laminar's EMIT clause after a
 * select list or relation. YEAR ... SECOND stay bare labels here
 * (`tumble(...) day`), which PostgreSQL refuses (docs/sql.md). */
static bool is_bare_label(const lm_token *t) {
  static const char *const as_label[] = {
      "ARRAY",   "CHAR",     "CHARACTER", "EMIT",      "FETCH",
      "FILTER",  "FOR",      "GRANT",     "ISNULL",    "NOTNULL",
      "OVER",    "OVERLAPS", "PRECISION", "RETURNING", "TO",
      "VARYING", "WINDOW",   "WITHIN",    "WITHOUT",
  };
  if (t->kind == LM_TK_QIDENT)
    return true;
  if (t->kind != LM_TK_IDENT || is_reserved(t))
    return false;
  for (size_t i = 0; i < LM_ARRAY_LEN(as_label); i++)
    if (lm_token_is_kw(t, as_label[i]))
      return false;
  return true;
}

/* An identifier usable as a name: a non-reserved word or a quoted name. */
static bool is_name_token(const lm_token *t) {
  return t->kind == LM_TK_QIDENT || (t->kind == LM_TK_IDENT && !is_reserved(t));
}

/* --------------------------------------------------------------- errors */

static int oom(parser *p) {
  if (!p->rc)
    p->rc = lm_err(&p->err, LM_ERR_NOMEM, "out of memory");
  return p->rc;
}

static int fail_at(parser *p, const lm_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(parser *p, const lm_token *t, const char *fmt, ...) {
  if (p->rc)
    return p->rc;
  if (t->kind == LM_TK_ERROR) {
    p->err = p->lexerr;
    p->rc = p->lexerr.code ? p->lexerr.code : LM_ERR_PARSE;
    return p->rc;
  }
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->rc = lm_err_at(&p->err, LM_ERR_PARSE, t->line, t->column, "%s", msg);
  return p->rc;
}

/* Records PostgreSQL's SQLSTATE on the parser's error (after fail_at); returns
 * p->rc. */
static int fail_state(parser *p, const char *state) {
  lm_err_state(&p->err, state);
  return p->rc;
}

static unsigned char upc(unsigned char c) {
  return (c >= 'a' && c <= 'z') ? (unsigned char)(c - 32) : c;
}

/* Optimal-string-alignment distance (Levenshtein plus adjacent
 * transposition), case-insensitive; gives up (returns 99) on long words. */
static int edit_distance(const char *a, size_t na, const char *b) {
  size_t nb = strlen(b);
  if (na > 30 || nb > 30)
    return 99;
  int d[32][32];
  for (size_t i = 0; i <= na; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= nb; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    for (size_t j = 1; j <= nb; j++) {
      int cost = upc((unsigned char)a[i - 1]) != upc((unsigned char)b[j - 1]);
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v)
        v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v)
        v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 &&
          upc((unsigned char)a[i - 1]) == upc((unsigned char)b[j - 2]) &&
          upc((unsigned char)a[i - 2]) == upc((unsigned char)b[j - 1]) &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  }
  return d[na][nb];
}

/* Describes a token for "found ..." messages. */
static void describe(const lm_token *t, char *buf, size_t cap) {
  if (t->kind == LM_TK_EOF) {
    snprintf(buf, cap, "end of input");
    return;
  }
  int n = t->len > 40 ? 40 : (int)t->len;
  const char *more = t->len > 40 ? "..." : "";
  if (t->kind == LM_TK_STRING)
    snprintf(buf, cap, "string %.*s%s", n, t->start, more);
  else
    snprintf(buf, cap, "'%.*s%s'", n, t->start, more);
}

/* PostgreSQL's 42601 `syntax error at or near "<token>"` (`... at end of
 * input`) at the current token, with the HINT "expected <what>, found
 * <token>", plus "(did you mean K?)" when the token is a word within edit
 * distance 2 of one of the NULL-terminated keywords in cands. */
static int fail_expected(parser *p, const char *what,
                         const char *const *cands) {
  const lm_token *t = cur(p);
  char found[96];
  describe(t, found, sizeof found);
  const char *best = NULL;
  if (cands && t->kind == LM_TK_IDENT && t->len >= 2) {
    int best_d = 3;
    for (size_t i = 0; cands[i]; i++) {
      int d = edit_distance(t->start, t->len, cands[i]);
      if (d > 0 && d < best_d && (size_t)d * 2 < strlen(cands[i])) {
        best_d = d;
        best = cands[i];
      }
    }
  }
  /* PostgreSQL's message (at the token); what was expected in the HINT */
  if (p->rc || t->kind == LM_TK_ERROR) /* (a lexer error: its own) */
    return fail_at(p, t, "%s", "");
  if (t->kind == LM_TK_EOF)
    fail_at(p, t, "syntax error at end of input");
  else
    fail_at(p, t, "syntax error at or near \"%.*s%s\"",
            t->len > 200 ? 200 : (int)t->len, t->start,
            t->len > 200 ? "..." : "");
  if (best)
    lm_err_hint(&p->err, "expected %s, found %s (did you mean %s?)", what,
                found, best);
  else
    lm_err_hint(&p->err, "expected %s, found %s", what, found);
  lm_err_state(&p->err, "42601");
  return p->rc;
}

static int expect(parser *p, lm_token_kind k, const char *what) {
  if (accept(p, k))
    return 0;
  return fail_expected(p, what, NULL);
}

static int expect_kw(parser *p, const char *kw) {
  if (accept_kw(p, kw))
    return 0;
  const char *cands[] = {kw, NULL};
  return fail_expected(p, kw, cands);
}

/* Enters one nesting level (parenthesis, operator, unary); errors past the
 * limit. Callers restore p->depth themselves. */
static int deeper(parser *p, const lm_token *at) {
  if (++p->depth <= LM_SQL_MAX_DEPTH && !lm_stack_low())
    return 0;
  /* PostgreSQL's check_stack_depth error (its parser has no count) */
  fail_at(p, at, "stack depth limit exceeded");
  if (p->depth > LM_SQL_MAX_DEPTH)
    lm_err_detail(&p->err, "The expression is nested more than %d levels deep.",
                  LM_SQL_MAX_DEPTH);
  return fail_state(p, "54001");
}

/* ------------------------------------------------------------ utilities */

/* Grows an arena array so that one more element fits; returns the (maybe
 * moved) array or NULL on OOM. */
static void *vec_grow(parser *p, void *arr, int n, int *cap, size_t elem) {
  if (n < *cap)
    return arr;
  if (*cap > INT_MAX / 4) {
    fail_at(p, cur(p), "too many list elements");
    return NULL;
  }
  int nc = *cap ? *cap * 2 : 4;
  void *na = lm_arena_alloc(p->arena, elem * (size_t)nc);
  if (!na) {
    oom(p);
    return NULL;
  }
  if (n)
    memcpy(na, arr, elem * (size_t)n);
  *cap = nc;
  return na;
}

static char *dup_upper(parser *p, const char *s, size_t n) {
  char *r = lm_arena_strndup(p->arena, s, n);
  if (!r) {
    oom(p);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    r[i] = (char)upc((unsigned char)r[i]);
  return r;
}

static lm_expr *new_expr(parser *p, lm_expr_kind kind, int line, int col) {
  lm_expr *e = lm_arena_alloc(p->arena, sizeof *e);
  if (!e) {
    oom(p);
    return NULL;
  }
  e->kind = kind;
  e->line = line;
  e->column = col;
  return e;
}

static lm_expr **new_args(parser *p, int n) {
  lm_expr **a = lm_arena_alloc(p->arena, sizeof *a * (size_t)n);
  if (!a)
    oom(p);
  return a;
}

static lm_expr *new_binary(parser *p, lm_op op, lm_expr *l, lm_expr *r) {
  lm_expr *e = new_expr(p, LM_EXPR_BINARY, l->line, l->column);
  if (!e || !(e->args = new_args(p, 2)))
    return NULL;
  e->op = op;
  e->args[0] = l;
  e->args[1] = r;
  e->n_args = 2;
  return e;
}

/* Reads a name token (non-reserved word or "quoted"); what names the
 * expected thing for the error ("a source name"). */
static const char *parse_name(parser *p, const char *what, int *line,
                              int *col) {
  const lm_token *t = cur(p);
  if (!is_name_token(t)) {
    fail_expected(p, what, NULL);
    return NULL;
  }
  if (line)
    *line = t->line;
  if (col)
    *col = t->column;
  next(p);
  return t->text;
}

/* --------------------------------------------------------------- types */

/* See lm_sql.h. Case-insensitive; whitespace between words is collapsed and
 * a "(n)" length is accepted (and ignored) only for VARCHAR / CHARACTER
 * VARYING. *out is left untouched on -1. */
int lm_sql_type_from_name(const char *name, lm_type *out) {
  if (!name)
    return -1;
  /* Normalize: upper-case, collapse whitespace, drop a "(n)" length. */
  char buf[64];
  size_t n = 0;
  const char *s = name;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  bool space = false, paren = false;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (c == '(') {
      paren = true;
      break;
    }
    if (space && n > 0) {
      if (n + 1 >= sizeof buf)
        return -1;
      buf[n++] = ' ';
    }
    space = false;
    if (n + 1 >= sizeof buf)
      return -1;
    buf[n++] = (char)upc(c);
  }
  buf[n] = '\0';
  if (paren) {
    /* only "(digits)" with optional spaces, then the end */
    s++;
    while (*s == ' ')
      s++;
    if (*s < '0' || *s > '9')
      return -1;
    while (*s >= '0' && *s <= '9')
      s++;
    while (*s == ' ')
      s++;
    if (*s++ != ')')
      return -1;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
      s++;
    if (*s)
      return -1;
  }
  static const struct {
    const char *name;
    lm_type_id id;
    bool len_ok;
  } names[] = {
      {"BOOLEAN", LM_TYPE_BOOL, false},
      {"BOOL", LM_TYPE_BOOL, false},
      {"TINYINT", LM_TYPE_INT8, false},
      {"INT1", LM_TYPE_INT8, false},
      {"SMALLINT", LM_TYPE_INT16, false},
      {"INT2", LM_TYPE_INT16, false},
      {"INT", LM_TYPE_INT32, false},
      {"INTEGER", LM_TYPE_INT32, false},
      {"INT4", LM_TYPE_INT32, false},
      {"BIGINT", LM_TYPE_INT64, false},
      {"INT8", LM_TYPE_INT64, false},
      {"REAL", LM_TYPE_FLOAT32, false},
      {"FLOAT", LM_TYPE_FLOAT64, false}, /* PostgreSQL: double precision */
      {"FLOAT4", LM_TYPE_FLOAT32, false},
      {"DOUBLE", LM_TYPE_FLOAT64, false},
      {"DOUBLE PRECISION", LM_TYPE_FLOAT64, false},
      {"FLOAT8", LM_TYPE_FLOAT64, false},
      {"VARCHAR", LM_TYPE_UTF8, true},
      {"CHARACTER VARYING", LM_TYPE_UTF8, true},
      {"CHAR VARYING", LM_TYPE_UTF8, true},
      {"CHAR", LM_TYPE_UTF8, true}, /* blank-padded: parse_type */
      {"CHARACTER", LM_TYPE_UTF8, true},
      {"BPCHAR", LM_TYPE_UTF8, true},
      {"TEXT", LM_TYPE_UTF8, false},
      {"STRING", LM_TYPE_UTF8, false},
      {"TIMESTAMP", LM_TYPE_TIMESTAMP, false},
      {"TIMESTAMP WITHOUT TIME ZONE", LM_TYPE_TIMESTAMP, false},
      {"TIMESTAMPTZ", LM_TYPE_TIMESTAMP, false}, /* lm_type_timestamptz */
      {"TIMESTAMP WITH TIME ZONE", LM_TYPE_TIMESTAMP, false},
      {"DATE", LM_TYPE_DATE32, false},
      {"TIME", LM_TYPE_TIME64, false},
      {"TIME WITHOUT TIME ZONE", LM_TYPE_TIME64, false},
      {"BYTEA", LM_TYPE_BINARY, false},
      {"JSON", LM_TYPE_UTF8, false},         /* lm_type_json */
      {"JSONB", LM_TYPE_UTF8, false},        /* lm_type_json */
      {"UUID", LM_TYPE_UTF8, false},         /* lm_type_uuid */
      {"INTERVAL", LM_TYPE_INTERVAL, false}, /* µs; no fields / precision */
      /* bare DECIMAL / NUMERIC: precision 0 marks "unconstrained"; the
       * binder resolves it (docs/types.md); parse_type reads (p[,s]) */
      {"DECIMAL", LM_TYPE_DECIMAL128, false},
      {"NUMERIC", LM_TYPE_DECIMAL128, false},
  };
  for (size_t i = 0; i < LM_ARRAY_LEN(names); i++) {
    if (strcmp(buf, names[i].name) == 0) {
      if (paren && !names[i].len_ok)
        return -1;
      if (out) {
        *out = lm_type_make(names[i].id);
        if (names[i].id == LM_TYPE_TIME64)
          *out = lm_type_unit(LM_TYPE_TIME64, LM_UNIT_MICRO);
        if (!strcmp(names[i].name, "TIMESTAMPTZ") ||
            !strcmp(names[i].name, "TIMESTAMP WITH TIME ZONE"))
          *out = lm_type_timestamptz();
        if (!strcmp(names[i].name, "CHAR") ||
            !strcmp(names[i].name, "CHARACTER") ||
            !strcmp(names[i].name, "BPCHAR"))
          *out = lm_type_bpchar();
        if (!strcmp(names[i].name, "JSON") || !strcmp(names[i].name, "JSONB"))
          *out = lm_type_json(names[i].name[4] == 'B');
        if (!strcmp(names[i].name, "UUID"))
          *out = lm_type_uuid();
      }
      return 0;
    }
  }
  return -1;
}

static int parse_type_base(parser *p, lm_type *out);

/* type: base { [ [n] ] } | base ARRAY [ [n] ]: PostgreSQL's one-dimensional
 * array of base (int[], text[][] and int ARRAY[3] are all int[]: the
 * sizes and dimensions are not enforced, as in PostgreSQL) */
static int parse_type(parser *p, lm_type *out) {
  if (parse_type_base(p, out))
    return p->rc ? p->rc : LM_ERR_PARSE;
  bool arr = false;
  if (is_kw(p, "ARRAY")) {
    next(p);
    arr = true;
    if (is_kind(p, LM_TK_LBRACKET)) {
      next(p);
      if (is_kind(p, LM_TK_INTEGER))
        next(p);
      if (expect(p, LM_TK_RBRACKET, "']'"))
        return p->rc;
    }
  }
  while (is_kind(p, LM_TK_LBRACKET) && !is_kw(p, "ARRAY") &&
         (peek(p, 1)->kind == LM_TK_RBRACKET ||
          (peek(p, 1)->kind == LM_TK_INTEGER &&
           peek(p, 2)->kind == LM_TK_RBRACKET))) {
    next(p);
    if (is_kind(p, LM_TK_INTEGER))
      next(p);
    next(p);
    arr = true;
  }
  if (!arr)
    return 0;
  if (lm_type_is_nested(*out))
    return fail_at(p, cur(p), "arrays of this type are not supported");
  /* numeric[]: items DECIMAL(38, 0) marked by tlen -1, the binder picks
   * the scale (plan/array_bind.c) */
  bool bare_num = out->id == LM_TYPE_DECIMAL128 && out->precision == 0;
  lm_type_field item = {"item", bare_num ? lm_type_decimal128(38, 0) : *out,
                        true, NULL};
  if (lm_type_list(LM_TYPE_LIST, &item, out))
    return fail_at(p, cur(p), "out of memory");
  p->tprec = 0;
  p->tlen = bare_num ? -1 : 0;
  p->tbpchar = false;
  p->tvarchar = false;
  return 0;
}

/* type: word [PRECISION | VARYING | WITHOUT TIME ZONE] [(n)] */
static int parse_type_base(parser *p, lm_type *out) {
  const lm_token *t = cur(p);
  if (t->kind != LM_TK_IDENT)
    return fail_expected(p, "a type name", NULL);
  char name[96];
  snprintf(name, sizeof name, "%.*s", (int)(t->len > 40 ? 40 : t->len),
           t->text);
  next(p);
  p->tprec = 0;
  p->tlen = 0;
  p->tbpchar = false;
  p->tvarchar = lm_token_is_kw(t, "VARCHAR");
  if ((lm_token_is_kw(t, "TIMESTAMP") || lm_token_is_kw(t, "TIMESTAMPTZ") ||
       lm_token_is_kw(t, "TIME")) &&
      is_kind(p, LM_TK_LPAREN)) {
    /* TIMESTAMP(p) / TIME(p), as PostgreSQL: p fractional digits, 0-6
     * (above 6 PostgreSQL warns and uses 6); the type stays µs, a CAST
     * rounds (docs/types.md) */
    next(p);
    const lm_token *pt = cur(p);
    if (!is_kind(p, LM_TK_INTEGER))
      return fail_expected(p, "a precision", NULL);
    long prec = strtol(pt->text ? pt->text : pt->start, NULL, 10);
    next(p);
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
    if (prec < 0)
      return fail_at(p, pt, "%s(%ld) precision must not be negative", name,
                     prec);
    p->tprec = (int)(prec > 6 ? 6 : prec) + 1;
  }
  if (lm_token_is_kw(t, "DOUBLE") && accept_kw(p, "PRECISION")) {
    snprintf(name, sizeof name, "double precision");
  } else if ((lm_token_is_kw(t, "CHARACTER") || lm_token_is_kw(t, "CHAR")) &&
             accept_kw(p, "VARYING")) {
    snprintf(name, sizeof name, "varchar");
    p->tvarchar = true;
  } else if (lm_token_is_kw(t, "CHARACTER") || lm_token_is_kw(t, "CHAR") ||
             lm_token_is_kw(t, "BPCHAR")) {
    /* PostgreSQL's blank-padded character(n); CHAR alone is CHAR(1),
     * BPCHAR alone has no length (docs/types.md) */
    p->tbpchar = true;
    p->tlen = lm_token_is_kw(t, "BPCHAR") ? 0 : 1;
  } else if (lm_token_is_kw(t, "TIMESTAMP") && is_kw(p, "WITHOUT") &&
             lm_token_is_kw(peek(p, 1), "TIME") &&
             lm_token_is_kw(peek(p, 2), "ZONE")) {
    next(p);
    next(p);
    next(p);
  } else if (lm_token_is_kw(t, "TIME") && is_kw(p, "WITHOUT") &&
             lm_token_is_kw(peek(p, 1), "TIME") &&
             lm_token_is_kw(peek(p, 2), "ZONE")) {
    next(p);
    next(p);
    next(p);
  } else if (lm_token_is_kw(t, "TIMESTAMP") && is_kw(p, "WITH") &&
             lm_token_is_kw(peek(p, 1), "TIME") &&
             lm_token_is_kw(peek(p, 2), "ZONE")) {
    next(p);
    next(p);
    next(p);
    snprintf(name, sizeof name, "timestamptz");
  }
  if (lm_token_is_kw(t, "DECIMAL") || lm_token_is_kw(t, "NUMERIC") ||
      lm_token_is_kw(t, "DEC")) {
    /* DECIMAL[(p[, s])]: 1 <= p <= 38, 0 <= s <= p (Decimal128) */
    *out = lm_type_decimal128(0, 0);
    if (!is_kind(p, LM_TK_LPAREN))
      return 0;
    next(p);
    const lm_token *pt = cur(p);
    if (!is_kind(p, LM_TK_INTEGER))
      return fail_expected(p, "a precision", NULL);
    long prec = strtol(pt->text ? pt->text : pt->start, NULL, 10), sc = 0;
    next(p);
    if (is_kind(p, LM_TK_COMMA)) {
      next(p);
      if (!is_kind(p, LM_TK_INTEGER))
        return fail_expected(p, "a scale", NULL);
      sc = strtol(cur(p)->text ? cur(p)->text : cur(p)->start, NULL, 10);
      next(p);
    }
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
    if (prec < 1 || prec > 38)
      return fail_at(p, pt,
                     "NUMERIC precision %ld must be between 1 and 38 "
                     "(Decimal128)",
                     prec);
    if (sc < 0 || sc > prec)
      return fail_at(p, pt,
                     "NUMERIC scale %ld must be between 0 and "
                     "precision %ld",
                     sc, prec);
    *out = lm_type_decimal128((int)prec, (int)sc);
    return 0;
  }
  if (lm_sql_type_from_name(name, out) != 0) {
    /* PostgreSQL's undefined_object, with the name folded to lower case */
    fail_at(p, t, "type \"%s\" does not exist", name);
    return fail_state(p, "42704");
  }
  if (lm_token_is_kw(t, "FLOAT") && is_kind(p, LM_TK_LPAREN)) {
    /* FLOAT(p), as PostgreSQL: p binary digits, 1-24 REAL, 25-53 DOUBLE */
    next(p);
    const lm_token *pt = cur(p);
    if (!is_kind(p, LM_TK_INTEGER))
      return fail_expected(p, "a precision", NULL);
    long prec = strtol(pt->text ? pt->text : pt->start, NULL, 10);
    next(p);
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
    if (prec < 1)
      return fail_at(p, pt, "precision for type float must be at least 1 bit");
    if (prec > 53)
      return fail_at(p, pt,
                     "precision for type float must be less than 54 bits");
    *out = lm_type_make(prec <= 24 ? LM_TYPE_FLOAT32 : LM_TYPE_FLOAT64);
    return 0;
  }
  if (out->id == LM_TYPE_UTF8 && is_kind(p, LM_TK_LPAREN)) {
    /* VARCHAR(n) / CHAR(n): n characters, 1 .. 10485760 (PostgreSQL) */
    next(p);
    const lm_token *lt = cur(p);
    if (!is_kind(p, LM_TK_INTEGER))
      return fail_expected(p, "a length", NULL);
    const char *lx = lt->text ? lt->text : lt->start;
    long n = strlen(lx) > 9 ? 100000000L : strtol(lx, NULL, 10);
    next(p);
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
    const char *tn = p->tbpchar ? "char" : "varchar";
    if (n < 1) { /* at the type's name, as PostgreSQL */
      fail_at(p, t, "length for type %s must be at least 1", tn);
      return fail_state(p, "22023");
    }
    if (n > 10485760) {
      fail_at(p, t, "length for type %s cannot exceed 10485760", tn);
      return fail_state(p, "22023");
    }
    p->tlen = (int32_t)n;
  }
  return 0;
}

/* ---------------------------------------------------------- expressions */

static lm_expr *parse_expr(parser *p);
static lm_expr *parse_unary(parser *p);

static bool is_interval_unit(const lm_token *t) {
  static const char *const units[] = {
      "MICROSECOND", "MICROSECONDS", "MILLISECOND", "MILLISECONDS", "SECOND",
      "SECONDS",     "MINUTE",       "MINUTES",     "HOUR",         "HOURS",
      "DAY",         "DAYS",         "WEEK",        "WEEKS",        "MONTH",
      "MONTHS",      "YEAR",         "YEARS",
  };
  for (size_t i = 0; i < LM_ARRAY_LEN(units); i++)
    if (lm_token_is_kw(t, units[i]))
      return true;
  return false;
}

/* INTERVAL 'n' UNIT | INTERVAL 'n unit ...' | INTERVAL n UNIT; the current
 * token is INTERVAL. For the UNIT form, text = 'n' and name = UNIT
 * (upper-cased); for the whole-string form name = NULL. */
static lm_expr *parse_interval(parser *p) {
  const lm_token *kw = cur(p);
  next(p);
  const lm_token *v = cur(p);
  bool numeric = v->kind == LM_TK_INTEGER || v->kind == LM_TK_NUMBER;
  if (v->kind != LM_TK_STRING && !numeric) {
    fail_expected(p, "an interval string like '10' MINUTE", NULL);
    return NULL;
  }
  next(p);
  lm_expr *e = new_expr(p, LM_EXPR_LITERAL, kw->line, kw->column);
  if (!e)
    return NULL;
  e->lit = LM_LIT_INTERVAL;
  e->text = v->text;
  const lm_token *u = cur(p);
  int rc;
  if (is_interval_unit(u)) {
    next(p);
    if (!(e->name = dup_upper(p, u->start, u->len)))
      return NULL;
    rc = lm_parse_interval(v->text, v->text_len, u->start, u->len, &e->ival);
  } else {
    if (numeric) {
      fail_expected(p, "an interval unit (SECOND, MINUTE, HOUR, ...)", NULL);
      return NULL;
    }
    rc = lm_parse_interval(v->text, v->text_len, NULL, 0, &e->ival);
  }
  if (rc != 0) { /* PostgreSQL's other forms (columnar/lm_interval.h) */
    lm_iv iv;
    int prc = lm_iv_parse(v->text, v->text_len, e->name,
                          e->name ? strlen(e->name) : 0, &iv);
    if (prc == 0 && iv.months != 0) {
      /* the binder makes it an INTERVAL_MDN literal; no µs count (the
       * readers of ival, a watermark delay or a RANGE offset, refuse it) */
      e->ival = INT64_MIN;
      return e;
    }
    if (prc == 0 &&
        !__builtin_mul_overflow((int64_t)iv.days, LM_US_PER_DAY, &e->ival) &&
        !__builtin_add_overflow(e->ival, iv.us, &e->ival))
      return e;
    if (prc == -2) {
      fail_at(p, v, "interval field value out of range: \"%.*s\"",
              (int)(v->text_len > 200 ? 200 : v->text_len), v->text);
      fail_state(p, "22015");
      return NULL;
    }
  }
  if (rc != 0) {
    /* PostgreSQL's invalid_datetime_format, naming the literal's text */
    fail_at(p, v, "invalid input syntax for type interval: \"%.*s\"",
            (int)(v->text_len > 200 ? 200 : v->text_len), v->text);
    fail_state(p, "22007");
    return NULL;
  }
  return e;
}

/* Numeric literal token → INT (fits int64) or DECIMAL. */
static lm_expr *number_literal(parser *p, const lm_token *t) {
  lm_expr *e = new_expr(p, LM_EXPR_LITERAL, t->line, t->column);
  if (!e)
    return NULL;
  e->text = t->text;
  if (t->kind == LM_TK_INTEGER) {
    uint64_t v = 0;
    bool over = false;
    for (size_t i = 0; i < t->text_len; i++) {
      unsigned d = (unsigned)(t->text[i] - '0');
      if (v > (UINT64_MAX - d) / 10) {
        over = true;
        break;
      }
      v = v * 10 + d;
    }
    if (!over && v <= (uint64_t)INT64_MAX) {
      e->lit = LM_LIT_INT;
      e->ival = (int64_t)v;
      e->dval = (double)v;
      return e;
    }
  }
  e->lit = LM_LIT_DECIMAL;
  e->dval = strtod(t->text, NULL);
  return e;
}

/* Is text (digits only) exactly 9223372036854775808 = -(INT64_MIN)? */
static bool is_int64_min_magnitude(const char *s) {
  while (*s == '0' && s[1])
    s++;
  return strcmp(s, "9223372036854775808") == 0;
}

/* Folds unary minus into a numeric literal operand when that is exact. */
static lm_expr *negate(parser *p, const lm_token *minus, lm_expr *e) {
  if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT &&
      e->ival != INT64_MIN) {
    e->ival = -e->ival;
    e->dval = (double)e->ival;
    e->text = NULL;
    e->line = minus->line;
    e->column = minus->column;
    return e;
  }
  if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_DECIMAL && e->text) {
    if (is_int64_min_magnitude(e->text)) {
      e->lit = LM_LIT_INT;
      e->ival = INT64_MIN;
      e->dval = (double)INT64_MIN;
      e->text = NULL;
    } else {
      size_t n = strlen(e->text);
      char *t;
      if (e->text[0] == '-') {
        t = lm_arena_strndup(p->arena, e->text + 1, n - 1);
      } else {
        t = lm_arena_alloc(p->arena, n + 2);
        if (t) {
          t[0] = '-';
          memcpy(t + 1, e->text, n + 1);
        }
      }
      if (!t) {
        oom(p);
        return NULL;
      }
      e->text = t;
      e->dval = -e->dval;
    }
    e->line = minus->line;
    e->column = minus->column;
    return e;
  }
  lm_expr *u = new_expr(p, LM_EXPR_UNARY, minus->line, minus->column);
  if (!u || !(u->args = new_args(p, 1)))
    return NULL;
  u->op = LM_OP_NEG;
  u->args[0] = e;
  u->n_args = 1;
  return u;
}

/* Parses "expr, expr, ... )" (the '(' already consumed) into *args. */
static int parse_expr_list(parser *p, lm_expr ***args, int *n_args,
                           const char *what) {
  lm_expr **a = NULL;
  int n = 0, cap = 0;
  for (;;) {
    lm_expr *e = parse_expr(p);
    if (!e)
      return p->rc;
    if (!(a = vec_grow(p, a, n, &cap, sizeof *a)))
      return p->rc;
    a[n++] = e;
    if (accept(p, LM_TK_COMMA))
      continue;
    if (accept(p, LM_TK_RPAREN))
      break;
    return fail_expected(p, what, NULL);
  }
  *args = a;
  *n_args = n;
  return 0;
}

/* expr [ASC|DESC] [NULLS FIRST|LAST], ... (ORDER BY already consumed) into
 * *items / *n (arena). Returns 0 or p->rc. */
static int parse_order_list(parser *p, lm_order_item **items, int *n) {
  int ocap = 0;
  do {
    lm_order_item o = {0};
    if (!(o.expr = parse_expr(p)))
      return p->rc;
    if (accept_kw(p, "DESC"))
      o.desc = true;
    else
      accept_kw(p, "ASC");
    if (accept_kw(p, "NULLS")) {
      if (accept_kw(p, "FIRST")) {
        o.nulls = 1;
      } else if (accept_kw(p, "LAST")) {
        o.nulls = 2;
      } else {
        static const char *const c[] = {"FIRST", "LAST", NULL};
        return fail_expected(p, "FIRST or LAST", c);
      }
    }
    if (!(*items = vec_grow(p, *items, *n, &ocap, sizeof o)))
      return p->rc;
    (*items)[(*n)++] = o;
  } while (accept(p, LM_TK_COMMA));
  return 0;
}

/* OVER ( [PARTITION BY expr, ...] [ORDER BY order-list] ) after a call;
 * current token is OVER. Fills e->over, partition_by, over_order. */
/* One frame bound: UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW,
 * expr PRECEDING|FOLLOWING. */
static int parse_frame_bound(parser *p, lm_frame_bound *b) {
  const lm_token *t = cur(p);
  b->line = t->line;
  b->column = t->column;
  if (is_kw(p, "UNBOUNDED")) {
    next(p);
    if (accept_kw(p, "PRECEDING")) {
      b->kind = LM_BOUND_UNBOUNDED_PRECEDING;
      return 0;
    }
    if (accept_kw(p, "FOLLOWING")) {
      b->kind = LM_BOUND_UNBOUNDED_FOLLOWING;
      return 0;
    }
    static const char *const c[] = {"PRECEDING", "FOLLOWING", NULL};
    return fail_expected(p, "PRECEDING or FOLLOWING", c);
  }
  if (is_kw(p, "CURRENT")) {
    next(p);
    if (expect_kw(p, "ROW"))
      return p->rc;
    b->kind = LM_BOUND_CURRENT_ROW;
    return 0;
  }
  if (!(b->offset = parse_expr(p)))
    return p->rc;
  if (accept_kw(p, "PRECEDING")) {
    b->kind = LM_BOUND_PRECEDING;
    return 0;
  }
  if (accept_kw(p, "FOLLOWING")) {
    b->kind = LM_BOUND_FOLLOWING;
    return 0;
  }
  static const char *const c[] = {"PRECEDING", "FOLLOWING", NULL};
  return fail_expected(p, "PRECEDING or FOLLOWING", c);
}

/* [ROWS|RANGE|GROUPS] {BETWEEN bound AND bound | bound} [EXCLUDE ...]; the
 * current token is ROWS, RANGE or GROUPS. */
static int parse_frame(parser *p, lm_expr *e) {
  const lm_token *t = cur(p);
  lm_window_frame *f = lm_arena_alloc(p->arena, sizeof *f);
  if (!f)
    return oom(p);
  f->line = t->line;
  f->column = t->column;
  f->unit = is_kw(p, "ROWS")    ? LM_FRAME_ROWS
            : is_kw(p, "RANGE") ? LM_FRAME_RANGE
                                : LM_FRAME_GROUPS;
  next(p);
  /* PostgreSQL's checks (gram.y), 42P20 windowing_error at the bound */
  const lm_token *bt = NULL, *et = NULL;
  const char *bad = NULL;
  if (accept_kw(p, "BETWEEN")) {
    bt = cur(p);
    if (parse_frame_bound(p, &f->start) || expect_kw(p, "AND"))
      return p->rc;
    et = cur(p);
    if (parse_frame_bound(p, &f->end))
      return p->rc;
    lm_frame_bound_kind s = f->start.kind, en = f->end.kind;
    if (s == LM_BOUND_UNBOUNDED_FOLLOWING)
      bad = "frame start cannot be UNBOUNDED FOLLOWING", et = bt;
    else if (en == LM_BOUND_UNBOUNDED_PRECEDING)
      bad = "frame end cannot be UNBOUNDED PRECEDING";
    else if (s == LM_BOUND_CURRENT_ROW && en == LM_BOUND_PRECEDING)
      bad = "frame starting from current row cannot have preceding rows";
    else if (s == LM_BOUND_FOLLOWING &&
             (en == LM_BOUND_PRECEDING || en == LM_BOUND_CURRENT_ROW))
      bad = "frame starting from following row cannot have preceding rows";
  } else {
    et = cur(p);
    if (parse_frame_bound(p, &f->start))
      return p->rc;
    f->end.kind = LM_BOUND_CURRENT_ROW;
    f->end.line = f->start.line;
    f->end.column = f->start.column;
    if (f->start.kind == LM_BOUND_UNBOUNDED_FOLLOWING)
      bad = "frame start cannot be UNBOUNDED FOLLOWING";
    else if (f->start.kind == LM_BOUND_FOLLOWING)
      bad = "frame starting from following row cannot end with current row";
  }
  if (bad) {
    fail_at(p, et, "%s", bad);
    return fail_state(p, "42P20");
  }
  if (is_kw(p, "EXCLUDE")) {
    const lm_token *x = cur(p);
    next(p);
    f->xline = x->line;
    f->xcolumn = x->column;
    if (accept_kw(p, "NO")) {
      if (expect_kw(p, "OTHERS"))
        return p->rc;
    } else if (accept_kw(p, "CURRENT")) {
      if (expect_kw(p, "ROW"))
        return p->rc;
      f->exclude = LM_EXCLUDE_CURRENT_ROW;
    } else if (accept_kw(p, "GROUP")) {
      f->exclude = LM_EXCLUDE_GROUP;
    } else if (accept_kw(p, "TIES")) {
      f->exclude = LM_EXCLUDE_TIES;
    } else {
      static const char *const c[] = {"CURRENT ROW", "GROUP", "TIES",
                                      "NO OTHERS", NULL};
      return fail_expected(p, "CURRENT ROW, GROUP, TIES or NO OTHERS", c);
    }
  }
  e->frame = f;
  return 0;
}

/* The inside of a window specification, up to and including ')':
 * [name] [PARTITION BY ...] [ORDER BY ...] [frame]. */
static int parse_window_spec(parser *p, lm_expr *e) {
  e->over = true;
  if (is_name_token(cur(p)) && !is_kw(p, "PARTITION") && !is_kw(p, "ORDER") &&
      !is_kw(p, "ROWS") && !is_kw(p, "RANGE") && !is_kw(p, "GROUPS")) {
    e->over_name = cur(p)->text;
    next(p);
  }
  if (accept_kw(p, "PARTITION")) {
    if (expect_kw(p, "BY"))
      return p->rc;
    int cap = 0;
    do {
      lm_expr *x = parse_expr(p);
      if (!x)
        return p->rc;
      if (!(e->partition_by = vec_grow(p, e->partition_by, e->n_partition_by,
                                       &cap, sizeof *e->partition_by)))
        return p->rc;
      e->partition_by[e->n_partition_by++] = x;
    } while (accept(p, LM_TK_COMMA));
  }
  if (accept_kw(p, "ORDER")) {
    if (expect_kw(p, "BY") ||
        parse_order_list(p, &e->over_order, &e->n_over_order))
      return p->rc;
  }
  if ((is_kw(p, "ROWS") || is_kw(p, "RANGE") || is_kw(p, "GROUPS")) &&
      parse_frame(p, e))
    return p->rc;
  if (!accept(p, LM_TK_RPAREN)) {
    static const char *const c[] = {"PARTITION", "ORDER",  "ROWS",
                                    "RANGE",     "GROUPS", NULL};
    if (e->frame)
      return fail_expected(p, "')'", NULL);
    if (e->n_over_order)
      return fail_expected(p, "',' or ')'", NULL);
    return fail_expected(
        p, "PARTITION BY, ORDER BY, ROWS, RANGE, GROUPS or ')'", c);
  }
  return 0;
}

/* OVER name | OVER (window spec). */
static int parse_over(parser *p, lm_expr *e) {
  next(p); /* OVER */
  if (is_name_token(cur(p))) {
    e->over = true;
    e->over_name = cur(p)->text;
    e->over_name_line = cur(p)->line;
    e->over_name_column = cur(p)->column;
    next(p);
    return 0;
  }
  e->over_name_line = cur(p)->line; /* OVER (w ...): PostgreSQL's place */
  e->over_name_column = cur(p)->column;
  if (expect(p, LM_TK_LPAREN, "'(' or a window name after OVER"))
    return p->rc;
  return parse_window_spec(p, e);
}

/* name( [*] | [DISTINCT|ALL] expr, ... ); current token is '('. */
static lm_expr *parse_call(parser *p, const lm_token *name) {
  lm_expr *e = new_expr(p, LM_EXPR_FUNC, name->line, name->column);
  if (!e)
    return NULL;
  e->name = name->text;
  next(p); /* ( */
  if (is_kind(p, LM_TK_RPAREN) && name->kind == LM_TK_IDENT &&
      (lm_token_is_kw(name, "COALESCE") || lm_token_is_kw(name, "GREATEST") ||
       lm_token_is_kw(name, "LEAST") || lm_token_is_kw(name, "NULLIF"))) {
    /* PostgreSQL's grammar: these take an expression list */
    fail_expected(p, "an expression", NULL);
    return NULL;
  }
  if (accept(p, LM_TK_RPAREN)) {
    /* no arguments */
  } else if (is_kind(p, LM_TK_STAR) && peek(p, 1)->kind == LM_TK_RPAREN) {
    const lm_token *st = cur(p);
    lm_expr *s = new_expr(p, LM_EXPR_STAR, st->line, st->column);
    if (!s || !(e->args = new_args(p, 1)))
      return NULL;
    e->args[0] = s;
    e->n_args = 1;
    next(p);
    next(p);
  } else {
    if (accept_kw(p, "DISTINCT"))
      e->distinct = true;
    else
      accept_kw(p, "ALL");
    /* args [ORDER BY order-list] ')' (an aggregate's input order) */
    int acap = 0;
    for (;;) {
      lm_expr *a = parse_expr(p);
      if (!a || !(e->args = vec_grow(p, e->args, e->n_args, &acap, sizeof a)))
        return NULL;
      e->args[e->n_args++] = a;
      if (accept(p, LM_TK_COMMA))
        continue;
      if (is_kw(p, "ORDER")) {
        next(p);
        if (expect_kw(p, "BY") ||
            parse_order_list(p, &e->agg_order, &e->n_agg_order))
          return NULL;
      }
      if (expect(p, LM_TK_RPAREN, "',' or ')'"))
        return NULL;
      break;
    }
  }
  if (is_kw(p, "WITHIN") && lm_token_is_kw(peek(p, 1), "GROUP")) {
    /* an ordered-set aggregate: f(args) WITHIN GROUP (ORDER BY ...) */
    if (e->n_agg_order || e->distinct) {
      fail_at(p, cur(p), "cannot use DISTINCT or ORDER BY with WITHIN GROUP");
      return NULL;
    }
    next(p); /* WITHIN */
    next(p); /* GROUP */
    if (expect(p, LM_TK_LPAREN, "'('") || expect_kw(p, "ORDER") ||
        expect_kw(p, "BY") ||
        parse_order_list(p, &e->agg_order, &e->n_agg_order) ||
        expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    e->within_group = true;
  }
  if (is_kw(p, "FILTER") && peek(p, 1)->kind == LM_TK_LPAREN) {
    next(p); /* FILTER */
    next(p); /* ( */
    if (expect_kw(p, "WHERE") || !(e->filter = parse_expr(p)) ||
        expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
  }
  if (is_kw(p, "OVER") && parse_over(p, e))
    return NULL;
  return e;
}

/* CASE [operand] WHEN a THEN b ... [ELSE c] END; current token is CASE. */
static lm_expr *parse_case(parser *p) {
  const lm_token *kw = cur(p);
  next(p);
  lm_expr *e = new_expr(p, LM_EXPR_CASE, kw->line, kw->column);
  if (!e)
    return NULL;
  lm_expr **a = NULL;
  int n = 0, cap = 0;
  if (!is_kw(p, "WHEN")) {
    lm_expr *op = parse_expr(p);
    if (!op || !(a = vec_grow(p, a, n, &cap, sizeof *a)))
      return NULL;
    a[n++] = op;
    e->has_operand = true;
  }
  if (!is_kw(p, "WHEN")) {
    const char *c[] = {"WHEN", NULL};
    fail_expected(p, "WHEN", c);
    return NULL;
  }
  while (accept_kw(p, "WHEN")) {
    lm_expr *w = parse_expr(p);
    if (!w || expect_kw(p, "THEN"))
      return NULL;
    lm_expr *t = parse_expr(p);
    if (!t)
      return NULL;
    if (!(a = vec_grow(p, a, n, &cap, sizeof *a)))
      return NULL;
    a[n++] = w;
    if (!(a = vec_grow(p, a, n, &cap, sizeof *a)))
      return NULL;
    a[n++] = t;
  }
  if (accept_kw(p, "ELSE")) {
    lm_expr *el = parse_expr(p);
    if (!el || !(a = vec_grow(p, a, n, &cap, sizeof *a)))
      return NULL;
    a[n++] = el;
    e->has_else = true;
  }
  if (!is_kw(p, "END")) {
    const char *c[] = {"WHEN", "ELSE", "END", NULL};
    fail_expected(p, e->has_else ? "END" : "WHEN, ELSE or END", c);
    return NULL;
  }
  next(p);
  e->args = a;
  e->n_args = n;
  return e;
}

static lm_expr *parse_concat(parser *p);

/* A FUNC node `name` at t with the n arguments in a. */
static lm_expr *special_func(parser *p, const lm_token *t, const char *name,
                             lm_expr **a, int n) {
  lm_expr *e = new_expr(p, LM_EXPR_FUNC, t->line, t->column);
  if (!e || !(e->args = new_args(p, n)))
    return NULL;
  e->name = name;
  memcpy(e->args, a, sizeof *a * (size_t)n);
  e->n_args = n;
  return e;
}

/* SQL-standard call syntax (current token: the name, next '('):
 *   substring(s FROM a [FOR b]) | substring(s FOR b) -> substring(s, a[, b])
 *   position(a IN b)                                -> position(b, a)
 *   trim([BOTH|LEADING|TRAILING] [chars] FROM s)    -> btrim/ltrim/rtrim(s
 *   [, chars])
 *   overlay(s PLACING r FROM n [FOR m])             -> overlay(s, r, n[, m])
 * *handled is false (and nothing consumed) when the call has the ordinary
 * form name(a, b, ...). */
static lm_expr *parse_special_call(parser *p, const lm_token *t,
                                   bool *handled) {
  *handled = false;
  bool sub = lm_token_is_kw(t, "SUBSTRING");
  bool pos = lm_token_is_kw(t, "POSITION");
  bool trim = lm_token_is_kw(t, "TRIM");
  bool ovl = lm_token_is_kw(t, "OVERLAY");
  if (!sub && !pos && !trim && !ovl)
    return NULL;
  size_t save = p->pos;
  next(p); /* name */
  next(p); /* ( */
  lm_expr *a[3] = {NULL, NULL, NULL};
  if (trim) {
    const char *fn = "btrim";
    bool kw = true;
    if (accept_kw(p, "LEADING"))
      fn = "ltrim";
    else if (accept_kw(p, "TRAILING"))
      fn = "rtrim";
    else if (!accept_kw(p, "BOTH"))
      kw = false;
    *handled = true;
    lm_expr *chars = NULL;
    if (!is_kw(p, "FROM") && !(chars = parse_expr(p)))
      return NULL;
    if (accept_kw(p, "FROM")) {
      if (!(a[0] = parse_expr(p)))
        return NULL;
      a[1] = chars;
    } else if (!kw && is_kind(p, LM_TK_COMMA)) {
      p->pos = save; /* trim(s, chars): the ordinary form */
      *handled = false;
      return NULL;
    } else {
      if (!chars) {
        fail_expected(p, "FROM", NULL);
        return NULL;
      }
      a[0] = chars;
    }
    if (expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    return special_func(p, t, fn, a, a[1] ? 2 : 1);
  }
  if (pos) {
    lm_expr *x = parse_concat(p);
    if (!x)
      return NULL;
    if (!is_kw(p, "IN")) {
      p->pos = save;
      return NULL;
    }
    *handled = true;
    next(p);
    if (!(a[0] = parse_concat(p)) || expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    a[1] = x;
    /* PostgreSQL's position(b, a): strpos, named "position" */
    return special_func(p, t, "position", a, 2);
  }
  if (ovl) { /* overlay(s PLACING r FROM n [FOR m]) -> overlay(s, r, n[, m]) */
    lm_expr *b[4] = {parse_expr(p), NULL, NULL, NULL};
    if (!b[0])
      return NULL;
    if (!is_kw(p, "PLACING")) {
      p->pos = save;
      return NULL;
    }
    *handled = true;
    next(p);
    if (!(b[1] = parse_expr(p)) || expect_kw(p, "FROM") ||
        !(b[2] = parse_expr(p)))
      return NULL;
    if (accept_kw(p, "FOR") && !(b[3] = parse_expr(p)))
      return NULL;
    if (expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    return special_func(p, t, "overlay", b, b[3] ? 4 : 3);
  }
  lm_expr *s = parse_expr(p);
  if (!s)
    return NULL;
  if (is_kw(p, "SIMILAR")) { /* substring(s SIMILAR p ESCAPE e) */
    *handled = true;
    next(p);
    a[0] = s;
    if (!(a[1] = parse_expr(p)) || expect_kw(p, "ESCAPE") ||
        !(a[2] = parse_expr(p)) || expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    return special_func(p, t, "substring", a, 3);
  }
  if (!is_kw(p, "FROM") && !is_kw(p, "FOR")) {
    p->pos = save;
    return NULL;
  }
  *handled = true;
  a[0] = s;
  int n = 1;
  if (accept_kw(p, "FROM")) {
    if (!(a[1] = parse_expr(p)))
      return NULL;
    n = 2;
  }
  if (accept_kw(p, "FOR")) {
    lm_expr *cnt = parse_expr(p);
    if (!cnt)
      return NULL;
    if (n == 1) { /* substring(s FOR n) = substring(s, 1, n) */
      lm_expr *one = new_expr(p, LM_EXPR_LITERAL, cnt->line, cnt->column);
      if (!one)
        return NULL;
      one->lit = LM_LIT_INT;
      one->ival = 1;
      a[1] = one;
    }
    a[2] = cnt;
    n = 3;
  }
  if (expect(p, LM_TK_RPAREN, "')'"))
    return NULL;
  return special_func(p, t, "substring", a, n);
}

static lm_select *parse_select(parser *p);

/* Whether the token after the current one starts a subquery: '(' SELECT
 * or '(' WITH (the current token is the '('). */
static bool subquery_next(parser *p, size_t k) {
  const lm_token *t = peek(p, k + 1);
  return peek(p, k)->kind == LM_TK_LPAREN &&
         (lm_token_is_kw(t, "SELECT") || lm_token_is_kw(t, "WITH"));
}

/* ( query ) used as an expression of form `kind` (current token: the '(');
 * the node is placed at `at` (the '(' or EXISTS). */
static lm_expr *parse_subquery_expr(parser *p, lm_subq_kind kind,
                                    const lm_token *at) {
  const lm_token *t = cur(p);
  if (deeper(p, t))
    return NULL;
  int saved = p->depth;
  next(p); /* ( */
  p->subquery++;
  lm_select *q = parse_select(p);
  p->subquery--;
  p->depth = saved - 1;
  if (!q || expect(p, LM_TK_RPAREN, "')' after the subquery"))
    return NULL;
  lm_expr *e = new_expr(p, LM_EXPR_SUBQUERY, at->line, at->column);
  if (!e)
    return NULL;
  e->subquery = q;
  e->subq = kind;
  return e;
}

/* ARRAY [ e, ... ] (current token: ARRAY): the call "__array"(e, ...),
 * bound by plan/array_bind.c. A nested ARRAY[[...]] (a multi-dimensional
 * array) is refused: 0A000. */
static lm_expr *parse_array_ctor(parser *p) {
  const lm_token *t = cur(p);
  next(p); /* ARRAY */
  next(p); /* [ */
  int cap = 8, n = 0;
  lm_expr **a = new_args(p, cap);
  if (!a)
    return NULL;
  while (!is_kind(p, LM_TK_RBRACKET)) {
    if (n && expect(p, LM_TK_COMMA, "',' or ']'"))
      return NULL;
    if (is_kind(p, LM_TK_LBRACKET) ||
        (is_kw(p, "ARRAY") && peek(p, 1)->kind == LM_TK_LBRACKET)) {
      fail_at(p, cur(p), "multidimensional arrays are not supported");
      fail_state(p, "0A000");
      return NULL;
    }
    lm_expr *x = parse_expr(p);
    if (!x)
      return NULL;
    if (n == cap) {
      lm_expr **b = new_args(p, cap * 2);
      if (!b)
        return NULL;
      memcpy(b, a, sizeof *a * (size_t)n);
      a = b;
      cap *= 2;
    }
    a[n++] = x;
  }
  next(p); /* ] */
  lm_expr *f = new_expr(p, LM_EXPR_FUNC, t->line, t->column);
  if (!f)
    return NULL;
  f->name = "__array";
  f->args = a;
  f->n_args = n;
  return f;
}

static lm_expr *parse_primary(parser *p) {
  const lm_token *t = cur(p);
  if (subquery_next(p, 0))
    return parse_subquery_expr(p, LM_SUBQ_SCALAR, t);
  switch (t->kind) {
  case LM_TK_INTEGER:
  case LM_TK_NUMBER:
    next(p);
    return number_literal(p, t);
  case LM_TK_STRING: {
    next(p);
    lm_expr *e = new_expr(p, LM_EXPR_LITERAL, t->line, t->column);
    if (!e)
      return NULL;
    e->lit = LM_LIT_STRING;
    e->text = t->text;
    return e;
  }
  case LM_TK_LPAREN: {
    next(p);
    lm_expr *e = parse_expr(p);
    if (e && accept(p, LM_TK_COMMA)) { /* (a, b, ...): a row (row_expr.c) */
      lm_expr **rest;
      int n;
      lm_expr *r = new_expr(p, LM_EXPR_FUNC, t->line, t->column);
      if (!r || parse_expr_list(p, &rest, &n, "',' or ')'") ||
          !(r->args = new_args(p, n + 1)))
        return NULL;
      r->name = "row";
      r->args[0] = e;
      memcpy(r->args + 1, rest, sizeof *rest * (size_t)n);
      r->n_args = n + 1;
      return r;
    }
    if (!e || expect(p, LM_TK_RPAREN, "')'"))
      return NULL;
    return e;
  }
  case LM_TK_IDENT:
  case LM_TK_QIDENT:
    break;
  default:
    fail_expected(p, "an expression", NULL);
    return NULL;
  }

  if (t->kind == LM_TK_IDENT) {
    const lm_token *t1 = peek(p, 1);
    if (lm_token_is_kw(t, "NULL") || lm_token_is_kw(t, "TRUE") ||
        lm_token_is_kw(t, "FALSE")) {
      next(p);
      lm_expr *e = new_expr(p, LM_EXPR_LITERAL, t->line, t->column);
      if (!e)
        return NULL;
      if (lm_token_is_kw(t, "NULL")) {
        e->lit = LM_LIT_NULL;
      } else {
        e->lit = LM_LIT_BOOL;
        e->bval = lm_token_is_kw(t, "TRUE");
      }
      return e;
    }
    if (lm_token_is_kw(t, "CASE"))
      return parse_case(p);
    if (lm_token_is_kw(t, "ARRAY") && t1->kind == LM_TK_LBRACKET)
      return parse_array_ctor(p); /* ARRAY[e, ...]: "__array" */
    if (lm_token_is_kw(t, "ARRAY") && subquery_next(p, 1)) {
      next(p); /* ARRAY(SELECT ...): "__array_sub" over the subquery */
      lm_expr *sq = parse_subquery_expr(p, LM_SUBQ_SCALAR, t1);
      lm_expr *f = sq ? new_expr(p, LM_EXPR_FUNC, t->line, t->column) : NULL;
      if (!f || !(f->args = new_args(p, 1)))
        return NULL;
      f->name = "__array_sub";
      f->args[0] = sq;
      f->n_args = 1;
      return f;
    }
    if (lm_token_is_kw(t, "EXISTS") && t1->kind == LM_TK_LPAREN) {
      next(p);
      if (!subquery_next(p, 0)) {
        fail_at(p, t1, "expected SELECT after EXISTS (");
        return NULL;
      }
      return parse_subquery_expr(p, LM_SUBQ_EXISTS, t);
    }
    if (lm_token_is_kw(t, "CAST") && t1->kind == LM_TK_LPAREN) {
      next(p);
      next(p);
      lm_expr *x = parse_expr(p);
      if (!x || expect_kw(p, "AS"))
        return NULL;
      lm_expr *e = new_expr(p, LM_EXPR_CAST, t->line, t->column);
      if (!e || !(e->args = new_args(p, 1)))
        return NULL;
      if (parse_type(p, &e->cast_type))
        return NULL;
      e->cast_tprec = (int8_t)p->tprec;
      e->cast_tlen = p->tlen;
      e->cast_bpchar = p->tbpchar;
      e->cast_varchar = p->tvarchar;
      if (expect(p, LM_TK_RPAREN, "')'"))
        return NULL;
      e->args[0] = x;
      e->n_args = 1;
      return e;
    }
    if (lm_token_is_kw(t, "INTERVAL") &&
        (t1->kind == LM_TK_STRING ||
         ((t1->kind == LM_TK_INTEGER || t1->kind == LM_TK_NUMBER) &&
          is_interval_unit(peek(p, 2)))))
      return parse_interval(p);
    if ((lm_token_is_kw(t, "DATE") || lm_token_is_kw(t, "TIME") ||
         lm_token_is_kw(t, "BYTEA") || lm_token_is_kw(t, "NUMERIC") ||
         lm_token_is_kw(t, "DECIMAL") || lm_token_is_kw(t, "TIMESTAMPTZ")) &&
        t1->kind == LM_TK_STRING) {
      /* DATE '2024-01-02' (a typed literal) = CAST('2024-01-02' AS DATE) */
      lm_expr *e = new_expr(p, LM_EXPR_CAST, t->line, t->column);
      if (!e || !(e->args = new_args(p, 1)))
        return NULL;
      if (parse_type(p, &e->cast_type))
        return NULL;
      lm_expr *x = new_expr(p, LM_EXPR_LITERAL, t1->line, t1->column);
      if (!x)
        return NULL;
      next(p);
      x->lit = LM_LIT_STRING;
      x->text = t1->text;
      e->args[0] = x;
      e->n_args = 1;
      return e;
    }
    if (lm_token_is_kw(t, "TIMESTAMP") && t1->kind == LM_TK_STRING) {
      next(p);
      next(p);
      lm_expr *e = new_expr(p, LM_EXPR_LITERAL, t->line, t->column);
      if (!e)
        return NULL;
      e->lit = LM_LIT_TIMESTAMP;
      e->text = t1->text;
      /* PostgreSQL's timestamp_in: a zone in the text is ignored */
      int prc = lm_tz_parse_timestamp(t1->text, t1->text_len, lm_tz_session(),
                                      &e->ival);
      if (prc != 0) { /* PostgreSQL's message and SQLSTATE */
        char m[200];
        const char *state;
        lm_dt_message(prc, "timestamp", t1->text, t1->text_len, m, sizeof m,
                      &state);
        fail_at(p, t1, "%s", m);
        lm_err_state(&p->err, state);
        return NULL;
      }
      return e;
    }
    if (lm_token_is_kw(t, "EXTRACT") && t1->kind == LM_TK_LPAREN) {
      /* EXTRACT(field FROM x) → date_part('field', x) */
      next(p);
      next(p);
      const lm_token *f = cur(p);
      if (f->kind != LM_TK_IDENT && f->kind != LM_TK_STRING) {
        fail_expected(p, "a date part like HOUR", NULL);
        return NULL;
      }
      next(p);
      if (expect_kw(p, "FROM"))
        return NULL;
      lm_expr *x = parse_expr(p);
      if (!x || expect(p, LM_TK_RPAREN, "')'"))
        return NULL;
      lm_expr *lit = new_expr(p, LM_EXPR_LITERAL, f->line, f->column);
      lm_expr *e = new_expr(p, LM_EXPR_FUNC, t->line, t->column);
      if (!lit || !e || !(e->args = new_args(p, 2)))
        return NULL;
      lit->lit = LM_LIT_STRING;
      lit->text = f->text;
      e->name = "date_part";
      e->extract_syntax = true;
      e->args[0] = lit;
      e->args[1] = x;
      e->n_args = 2;
      return e;
    }
    if (t1->kind == LM_TK_LPAREN) {
      bool handled;
      lm_expr *sp = parse_special_call(p, t, &handled);
      if (handled || sp)
        return sp;
      if (p->err.code)
        return NULL;
    }
    /* LEFT(...) and RIGHT(...) are functions despite being reserved. */
    bool callable = t1->kind == LM_TK_LPAREN &&
                    (lm_token_is_kw(t, "LEFT") || lm_token_is_kw(t, "RIGHT"));
    if (is_reserved(t) && !callable) {
      fail_expected(p, "an expression", NULL);
      return NULL;
    }
  }

  next(p);
  if (is_kind(p, LM_TK_LPAREN))
    return parse_call(p, t);
  if (t->kind == LM_TK_IDENT && !is_kind(p, LM_TK_DOT) &&
      (lm_token_is_kw(t, "CURRENT_TIMESTAMP") ||
       lm_token_is_kw(t, "CURRENT_DATE") || lm_token_is_kw(t, "CURRENT_TIME") ||
       lm_token_is_kw(t, "LOCALTIMESTAMP") || lm_token_is_kw(t, "LOCALTIME"))) {
    /* SQL's niladic date/time functions (PostgreSQL reserves them): a call
     * with no arguments, bound in plan/datefn_bind.c */
    lm_expr *e = new_expr(p, LM_EXPR_FUNC, t->line, t->column);
    if (e)
      e->name = t->text;
    return e;
  }
  if (is_kind(p, LM_TK_DOT)) {
    next(p);
    const lm_token *c = cur(p);
    if (c->kind == LM_TK_STAR) {
      next(p);
      lm_expr *e = new_expr(p, LM_EXPR_STAR, t->line, t->column);
      if (!e)
        return NULL;
      e->table = t->text;
      return e;
    }
    if (c->kind != LM_TK_IDENT && c->kind != LM_TK_QIDENT) {
      fail_expected(p, "a column name", NULL);
      return NULL;
    }
    next(p);
    lm_expr *e = new_expr(p, LM_EXPR_COLUMN, t->line, t->column);
    if (!e)
      return NULL;
    e->table = t->text;
    e->name = c->text;
    e->quoted = c->kind == LM_TK_QIDENT;
    return e;
  }
  lm_expr *e = new_expr(p, LM_EXPR_COLUMN, t->line, t->column);
  if (!e)
    return NULL;
  e->name = t->text;
  e->quoted = t->kind == LM_TK_QIDENT;
  return e;
}

/* primary { :: type | [ e ] | [ [e] : [e] ] } (subscripts and slices:
 * the calls "__subscript"(a, i) and "__slice"(a, lo, hi), an omitted
 * bound a STAR node; plan/array_bind.c) */
static lm_expr *parse_postfix(parser *p) {
  int saved = p->depth;
  lm_expr *e = parse_primary(p);
  while (e && (is_kind(p, LM_TK_COLON2) || is_kind(p, LM_TK_LBRACKET))) {
    const lm_token *op = cur(p);
    next(p);
    if (deeper(p, op)) {
      e = NULL;
      break;
    }
    if (op->kind == LM_TK_LBRACKET) {
      lm_expr *f = new_expr(p, LM_EXPR_FUNC, e->line, e->column);
      if (!f || !(f->args = new_args(p, 3))) {
        e = NULL;
        break;
      }
      f->args[0] = e;
      f->n_args = 2;
      f->name = "__subscript";
      lm_expr *lo = NULL, *hi = NULL;
      if (!is_kind(p, LM_TK_COLON) && !(lo = parse_expr(p))) {
        e = NULL;
        break;
      }
      if (is_kind(p, LM_TK_COLON)) {
        next(p);
        f->name = "__slice";
        f->n_args = 3;
        if (!is_kind(p, LM_TK_RBRACKET) && !(hi = parse_expr(p))) {
          e = NULL;
          break;
        }
      }
      if (expect(p, LM_TK_RBRACKET, "']'")) {
        e = NULL;
        break;
      }
      for (int k = 1; k < f->n_args; k++) {
        lm_expr *b = k == 1 ? lo : hi;
        if (!b && !(b = new_expr(p, LM_EXPR_STAR, op->line, op->column))) {
          e = NULL;
          break;
        }
        f->args[k] = b;
      }
      if (!e)
        break;
      e = f;
      continue;
    }
    lm_expr *c = new_expr(p, LM_EXPR_CAST, e->line, e->column);
    if (!c || !(c->args = new_args(p, 1)) || parse_type(p, &c->cast_type)) {
      e = NULL;
      break;
    }
    c->cast_tprec = (int8_t)p->tprec;
    c->cast_tlen = p->tlen;
    c->cast_bpchar = p->tbpchar;
    c->cast_varchar = p->tvarchar;
    c->args[0] = e;
    c->n_args = 1;
    c->op_line = op->line; /* the '::' (PostgreSQL's place for 42846) */
    c->op_column = op->column;
    e = c;
  }
  p->depth = saved;
  return e;
}

static lm_expr *parse_add(parser *p);

/* ~ x, PostgreSQL's prefix bit-not: a prefix operator of the "any other
 * operator" level, so its operand is everything up to the next operator
 * of that level or a looser one (~ 1 + 2 is ~ (1 + 2), ~ 1 | 2 is (~ 1) |
 * 2). At the ~ token. */
static lm_expr *parse_bit_not(parser *p) {
  const lm_token *t = cur(p);
  next(p);
  int saved = p->depth;
  if (deeper(p, t))
    return NULL;
  lm_expr *x = parse_add(p);
  p->depth = saved;
  lm_expr *e = x ? new_expr(p, LM_EXPR_UNARY, t->line, t->column) : NULL;
  if (!e || !(e->args = new_args(p, 1)))
    return NULL;
  e->op = LM_OP_BIT_NOT;
  e->args[0] = x;
  e->n_args = 1;
  return e;
}

/* [-|+] unary | ~ add | postfix */
static lm_expr *parse_unary(parser *p) {
  const lm_token *t = cur(p);
  if (t->kind == LM_TK_TILDE)
    return parse_bit_not(p);
  if (t->kind != LM_TK_MINUS && t->kind != LM_TK_PLUS)
    return parse_postfix(p);
  next(p);
  int saved = p->depth;
  if (deeper(p, t))
    return NULL;
  lm_expr *e = parse_unary(p);
  p->depth = saved;
  if (!e)
    return NULL;
  if (t->kind == LM_TK_PLUS)
    return e;
  return negate(p, t, e);
}

static lm_op mul_op(lm_token_kind k) {
  switch (k) {
  case LM_TK_STAR:
    return LM_OP_MUL;
  case LM_TK_SLASH:
    return LM_OP_DIV;
  case LM_TK_PERCENT:
    return LM_OP_MOD;
  default:
    return LM_OP_NONE;
  }
}
static lm_op add_op(lm_token_kind k) {
  switch (k) {
  case LM_TK_PLUS:
    return LM_OP_ADD;
  case LM_TK_MINUS:
    return LM_OP_SUB;
  default:
    return LM_OP_NONE;
  }
}
/* PostgreSQL's "any other operator" level: || ~ ~* !~ !~* -> ->> & | # <<
 * >> */
static lm_op concat_op(lm_token_kind k) {
  switch (k) {
  case LM_TK_CONCAT:
    return LM_OP_CONCAT;
  case LM_TK_TILDE:
    return LM_OP_REGEX;
  case LM_TK_TILDE_STAR:
    return LM_OP_REGEX_I;
  case LM_TK_NTILDE:
    return LM_OP_NOT_REGEX;
  case LM_TK_NTILDE_STAR:
    return LM_OP_NOT_REGEX_I;
  case LM_TK_JSON_ARROW:
    return LM_OP_JSON_GET;
  case LM_TK_JSON_ARROW2:
    return LM_OP_JSON_GET_TEXT;
  case LM_TK_AMP: /* PostgreSQL's integer bit operators: same level */
    return LM_OP_BIT_AND;
  case LM_TK_BAR:
    return LM_OP_BIT_OR;
  case LM_TK_HASH:
    return LM_OP_BIT_XOR;
  case LM_TK_SHL:
    return LM_OP_SHL;
  case LM_TK_SHR:
    return LM_OP_SHR;
  case LM_TK_CONTAINS: /* array operators: same level */
    return LM_OP_CONTAINS;
  case LM_TK_CONTAINED:
    return LM_OP_CONTAINED;
  case LM_TK_OVERLAP:
    return LM_OP_OVERLAP;
  case LM_TK_HASH_ARROW: /* jsonb: same level */
    return LM_OP_JSON_PATH;
  case LM_TK_HASH_ARROW2:
    return LM_OP_JSON_PATH_TEXT;
  case LM_TK_QUESTION:
    return LM_OP_JSON_EXISTS;
  case LM_TK_QUESTION_BAR:
    return LM_OP_JSON_EXISTS_ANY;
  case LM_TK_QUESTION_AMP:
    return LM_OP_JSON_EXISTS_ALL;
  case LM_TK_HASH_MINUS:
    return LM_OP_JSON_DELETE_PATH;
  default:
    return LM_OP_NONE;
  }
}
static lm_op cmp_op(lm_token_kind k) {
  switch (k) {
  case LM_TK_EQ:
    return LM_OP_EQ;
  case LM_TK_NE:
    return LM_OP_NE;
  case LM_TK_LT:
    return LM_OP_LT;
  case LM_TK_LE:
    return LM_OP_LE;
  case LM_TK_GT:
    return LM_OP_GT;
  case LM_TK_GE:
    return LM_OP_GE;
  default:
    return LM_OP_NONE;
  }
}

/* One left-associative binary level: operand { op operand }. Each operator
 * counts as a nesting level so that the tree height stays bounded. */
/* Whether ANY|SOME|ALL ( follows (current token: the keyword). */
static bool any_all_next(parser *p) {
  return (is_kw(p, "ANY") || is_kw(p, "SOME") || is_kw(p, "ALL")) &&
         peek(p, 1)->kind == LM_TK_LPAREN;
}

/* l [NOT] [I]LIKE / ~ / ~* / !~ / !~* ANY|SOME|ALL (array) at operator token
 * t (current token: the keyword): the call "__any_match" / "__all_match"
 * (array_bind.c) with op (LM_OP_NONE: LIKE, e->negated: NOT LIKE, icase:
 * ILIKE). A subquery there is 0A000. NULL on an error. */
static lm_expr *any_match(parser *p, lm_expr *l, const lm_token *t, lm_op op,
                          bool icase, bool negated) {
  bool all = is_kw(p, "ALL");
  if (subquery_next(p, 1)) {
    fail_at(p, t, "%s ANY / ALL (SELECT ...) is not supported: use an array",
            op == LM_OP_NONE ? "LIKE" : "a regular expression operator with");
    fail_state(p, "0A000");
    return NULL;
  }
  next(p);
  next(p);
  lm_expr *arr = parse_expr(p);
  lm_expr *f = arr ? new_expr(p, LM_EXPR_FUNC, l->line, l->column) : NULL;
  if (!f || !(f->args = new_args(p, 2)) || expect(p, LM_TK_RPAREN, "')'"))
    return NULL;
  f->name = all ? "__all_match" : "__any_match";
  f->op = op;
  f->icase = icase;
  f->negated = negated;
  f->op_line = t->line, f->op_column = t->column;
  f->args[0] = l;
  f->args[1] = arr;
  f->n_args = 2;
  return f;
}

static lm_expr *parse_binary_level(parser *p, lm_expr *(*operand)(parser *),
                                   lm_op (*op_of)(lm_token_kind)) {
  int saved = p->depth;
  lm_expr *l = operand(p);
  while (l) {
    lm_op op = op_of(cur(p)->kind);
    if (op == LM_OP_NONE)
      break;
    const lm_token *t = cur(p);
    next(p);
    if (deeper(p, t)) {
      l = NULL;
      break;
    }
    if (op >= LM_OP_REGEX && op <= LM_OP_NOT_REGEX_I && any_all_next(p)) {
      l = any_match(p, l, t, op, false, false); /* s ~ ANY (array) */
      continue;
    }
    lm_expr *r = operand(p);
    l = r ? new_binary(p, op, l, r) : NULL;
    if (l)
      l->op_line = t->line, l->op_column = t->column;
  }
  p->depth = saved;
  return l;
}

/* The call name(a, b) at token tok, for operators bound as functions
 * (AT TIME ZONE, ^); name is a static string. NULL when out of memory
 * (the parser's error is set by new_expr / new_args). */
static lm_expr *call2(parser *p, const lm_token *tok, const char *name,
                      lm_expr *a, lm_expr *b) {
  lm_expr *f = new_expr(p, LM_EXPR_FUNC, tok->line, tok->column);
  if (!f || !(f->args = new_args(p, 2)))
    return NULL;
  f->name = name;
  f->args[0] = a;
  f->args[1] = b;
  f->n_args = 2;
  return f;
}

/* x AT TIME ZONE zone (PostgreSQL: binds tighter than the binary
 * operators, looser than unary minus) = timezone(zone, x) */
static lm_expr *parse_at(parser *p) {
  int saved = p->depth;
  lm_expr *e = parse_unary(p);
  while (e && is_kw(p, "AT") && lm_token_is_kw(peek(p, 1), "TIME") &&
         lm_token_is_kw(peek(p, 2), "ZONE")) {
    const lm_token *at = cur(p);
    next(p);
    next(p);
    next(p);
    if (deeper(p, at)) {
      e = NULL;
      break;
    }
    lm_expr *z = parse_unary(p);
    if (!(e = z ? call2(p, at, "timezone", z, e) : NULL))
      break;
  }
  p->depth = saved;
  return e;
}

/* x ^ y, PostgreSQL's exponentiation: left-associative, between AT TIME
 * ZONE / unary minus and * / % (-2 ^ 2 is 4, 2 ^ 3 ^ 2 is 64); bound as
 * power(x, y). */
static lm_expr *parse_pow(parser *p) {
  int saved = p->depth;
  lm_expr *e = parse_at(p);
  while (e && is_kind(p, LM_TK_CARET)) {
    const lm_token *op = cur(p);
    next(p);
    if (deeper(p, op)) {
      e = NULL;
      break;
    }
    lm_expr *r = parse_at(p);
    if (!(e = r ? call2(p, op, "power", e, r) : NULL))
      break;
  }
  p->depth = saved;
  return e;
}

static lm_expr *parse_mul(parser *p) {
  return parse_binary_level(p, parse_pow, mul_op);
}
static lm_expr *parse_add(parser *p) {
  return parse_binary_level(p, parse_mul, add_op);
}
static lm_expr *parse_concat(parser *p) {
  return parse_binary_level(p, parse_add, concat_op);
}

/* a IS [NOT] DISTINCT FROM b, PostgreSQL's NULL-safe comparison, as
 * CASE WHEN a IS NULL THEN b IS [NOT] NULL WHEN b IS NULL THEN TRUE (NOT:
 * FALSE) ELSE a <> b (NOT: a = b) END: never NULL; a and b are evaluated
 * up to twice (both nodes are shared). NULL on OOM. */
static lm_expr *distinct_from(parser *p, lm_expr *a, lm_expr *b, bool not ) {
  lm_expr *an = new_expr(p, LM_EXPR_IS_NULL, a->line, a->column);
  lm_expr *bn = new_expr(p, LM_EXPR_IS_NULL, b->line, b->column);
  lm_expr *bn2 = new_expr(p, LM_EXPR_IS_NULL, b->line, b->column);
  lm_expr *lit = new_expr(p, LM_EXPR_LITERAL, a->line, a->column);
  lm_expr *cmp = new_binary(p, not ? LM_OP_EQ : LM_OP_NE, a, b);
  lm_expr *c = new_expr(p, LM_EXPR_CASE, a->line, a->column);
  if (!an || !bn || !bn2 || !lit || !cmp || !c ||
      !(an->args = new_args(p, 1)) || !(bn->args = new_args(p, 1)) ||
      !(bn2->args = new_args(p, 1)) || !(c->args = new_args(p, 5)))
    return NULL;
  an->args[0] = a;
  an->n_args = 1;
  bn->args[0] = b;
  bn->n_args = 1;
  bn->negated = !not ;
  bn2->args[0] = b;
  bn2->n_args = 1;
  lit->lit = LM_LIT_BOOL;
  lit->bval = !not ;
  c->args[0] = an;
  c->args[1] = bn;
  c->args[2] = bn2;
  c->args[3] = lit;
  c->args[4] = cmp;
  c->n_args = 5;
  c->has_else = true;
  return c;
}

/* comparison / IS [NOT] NULL | TRUE | FALSE | UNKNOWN / IS [NOT] DISTINCT
 * FROM / [NOT] BETWEEN / [NOT] IN / [NOT] LIKE / [NOT] SIMILAR TO */
static lm_expr *parse_cmp(parser *p) {
  int saved = p->depth;
  lm_expr *l = parse_concat(p);
  while (l) {
    const lm_token *t = cur(p);
    lm_op op = cmp_op(t->kind);
    if (op != LM_OP_NONE) {
      next(p);
      if (deeper(p, t)) {
        l = NULL;
        break;
      }
      const lm_token *q = cur(p);
      bool any = lm_token_is_kw(q, "ANY") || lm_token_is_kw(q, "SOME");
      if ((any || lm_token_is_kw(q, "ALL")) && subquery_next(p, 1)) {
        /* x op ANY|SOME|ALL (SELECT ...) */
        next(p);
        lm_expr *sq =
            parse_subquery_expr(p, any ? LM_SUBQ_ANY : LM_SUBQ_ALL, t);
        if (!sq || !(sq->args = new_args(p, 1))) {
          l = NULL;
          break;
        }
        sq->line = l->line;
        sq->column = l->column;
        sq->op = op;
        sq->args[0] = l;
        sq->n_args = 1;
        l = sq;
        if ((p->rc = lm_sql_row_expand(p->arena, &l, &p->err)))
          l = NULL; /* (a, b) = ANY (SELECT ...) (row_expr.c) */
        continue;
      }
      if ((any || lm_token_is_kw(q, "ALL")) &&
          peek(p, 1)->kind == LM_TK_LPAREN) {
        /* x op ANY|SOME|ALL (array): "__any" / "__all" (array_bind.c) */
        next(p);
        next(p);
        lm_expr *arr = parse_expr(p);
        lm_expr *f = arr ? new_expr(p, LM_EXPR_FUNC, l->line, l->column) : NULL;
        if (!f || !(f->args = new_args(p, 2)) ||
            expect(p, LM_TK_RPAREN, "')'")) {
          l = NULL;
          break;
        }
        f->name = any ? "__any" : "__all";
        f->op = op;
        f->op_line = t->line, f->op_column = t->column;
        f->args[0] = l;
        f->args[1] = arr;
        f->n_args = 2;
        l = f;
        continue;
      }
      lm_expr *r = parse_concat(p);
      l = r ? new_binary(p, op, l, r) : NULL;
      if (l)
        l->op_line = t->line, l->op_column = t->column;
      if (l && (p->rc = lm_sql_row_expand(p->arena, &l, &p->err)))
        l = NULL; /* rows compared (row_expr.c) */
      continue;
    }
    bool negated = false;
    if (lm_token_is_kw(t, "IS")) {
      next(p);
      negated = accept_kw(p, "NOT");
      if (is_kw(p, "DISTINCT") && lm_token_is_kw(peek(p, 1), "FROM")) {
        next(p);
        next(p);
        if (deeper(p, t)) {
          l = NULL;
          break;
        }
        lm_expr *r = parse_concat(p);
        if (r && (lm_sql_is_row(l) || lm_sql_is_row(r))) { /* row_expr.c */
          if ((p->rc =
                   lm_sql_row_distinct(p->arena, l, r, negated, &l, &p->err)))
            l = NULL;
          continue;
        }
        l = r ? distinct_from(p, l, r, negated) : NULL;
        continue;
      }
      /* IS [NOT] TRUE | FALSE | UNKNOWN: PostgreSQL's BooleanTest */
      int8_t bt = is_kw(p, "TRUE")      ? 1
                  : is_kw(p, "FALSE")   ? 2
                  : is_kw(p, "UNKNOWN") ? 3
                                        : 0;
      if (!bt && !is_kw(p, "NULL")) {
        const char *c[] = {"NULL",  "DISTINCT", "TRUE",
                           "FALSE", "UNKNOWN",  NULL};
        fail_expected(p,
                      negated ? "NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM"
                              : "NULL, NOT NULL, TRUE, FALSE, UNKNOWN or [NOT] "
                                "DISTINCT FROM",
                      c);
        l = NULL;
        break;
      }
      next(p);
      if (deeper(p, t)) {
        l = NULL;
        break;
      }
      lm_expr *e = new_expr(p, LM_EXPR_IS_NULL, l->line, l->column);
      if (!e || !(e->args = new_args(p, 1))) {
        l = NULL;
        break;
      }
      e->args[0] = l;
      e->n_args = 1;
      e->negated = negated;
      e->booltest = bt;
      if ((p->rc = lm_sql_row_expand(p->arena, &e, &p->err))) { /* a row */
        l = NULL;
        break;
      }
      l = e;
      continue;
    }
    const lm_token *k = t;
    if (lm_token_is_kw(t, "NOT")) {
      const lm_token *t1 = peek(p, 1);
      if (!lm_token_is_kw(t1, "BETWEEN") && !lm_token_is_kw(t1, "IN") &&
          !lm_token_is_kw(t1, "LIKE") && !lm_token_is_kw(t1, "ILIKE") &&
          !lm_token_is_kw(t1, "SIMILAR"))
        break;
      negated = true;
      k = t1;
    }
    lm_expr_kind kind;
    bool similar = false;
    if (lm_token_is_kw(k, "BETWEEN"))
      kind = LM_EXPR_BETWEEN;
    else if (lm_token_is_kw(k, "IN"))
      kind = LM_EXPR_IN;
    else if (lm_token_is_kw(k, "LIKE") || lm_token_is_kw(k, "ILIKE"))
      kind = LM_EXPR_LIKE;
    else if (lm_token_is_kw(k, "SIMILAR") &&
             lm_token_is_kw(peek(p, negated ? 2 : 1), "TO"))
      kind = LM_EXPR_LIKE, similar = true; /* [NOT] SIMILAR TO p */
    else
      break;
    if (negated)
      next(p);
    next(p);
    if (similar && expect_kw(p, "TO")) {
      l = NULL;
      break;
    }
    if (deeper(p, k)) {
      l = NULL;
      break;
    }
    lm_expr *e = new_expr(p, kind, l->line, l->column);
    if (!e) {
      l = NULL;
      break;
    }
    e->negated = negated;
    e->icase = lm_token_is_kw(k, "ILIKE");
    e->booltest = similar;
    e->op_line = t->line; /* [NOT] IN: PostgreSQL's place for its errors */
    e->op_column = t->column;
    if (kind == LM_EXPR_BETWEEN) {
      if (accept_kw(p, "SYMMETRIC"))
        e->symmetric = true;
      else
        accept_kw(p, "ASYMMETRIC");
      lm_expr *lo = parse_concat(p);
      if (!lo || expect_kw(p, "AND")) {
        l = NULL;
        break;
      }
      lm_expr *hi = parse_concat(p);
      if (!hi || !(e->args = new_args(p, 3))) {
        l = NULL;
        break;
      }
      e->args[0] = l;
      e->args[1] = lo;
      e->args[2] = hi;
      e->n_args = 3;
      if ((p->rc = lm_sql_row_expand(p->arena, &e, &p->err))) {
        l = NULL; /* (a, b) BETWEEN (1, 2) AND (3, 4) (row_expr.c) */
        break;
      }
    } else if (kind == LM_EXPR_LIKE) {
      if (!similar && any_all_next(p)) { /* x [NOT] LIKE ANY (array) */
        l = any_match(p, l, k, LM_OP_NONE, e->icase, negated);
        continue;
      }
      lm_expr *pat = parse_concat(p);
      lm_expr *esc = NULL;
      if (pat && accept_kw(p, "ESCAPE") && !(esc = parse_concat(p)))
        pat = NULL;
      if (!pat || !(e->args = new_args(p, 3))) {
        l = NULL;
        break;
      }
      e->args[0] = l;
      e->args[1] = pat;
      e->args[2] = esc;
      e->n_args = esc ? 3 : 2;
    } else {
      lm_expr **list;
      int n;
      if (subquery_next(p, 0)) { /* x [NOT] IN (SELECT ...) */
        /* at [NOT] IN, as PostgreSQL places the sublink */
        lm_expr *sq = parse_subquery_expr(p, LM_SUBQ_ANY, t);
        if (!sq || !(sq->args = new_args(p, 1))) {
          l = NULL;
          break;
        }
        sq->op = LM_OP_EQ;
        sq->negated = negated;
        sq->args[0] = l;
        sq->n_args = 1;
        l = sq;
        if ((p->rc = lm_sql_row_expand(p->arena, &l, &p->err)))
          l = NULL; /* (a, b) IN (SELECT ...) (row_expr.c) */
        continue;
      }
      if (expect(p, LM_TK_LPAREN, "'('") ||
          parse_expr_list(p, &list, &n, "',' or ')'")) {
        l = NULL;
        break;
      }
      if (!(e->args = new_args(p, n + 1))) {
        l = NULL;
        break;
      }
      e->args[0] = l;
      memcpy(e->args + 1, list, sizeof *list * (size_t)n);
      e->n_args = n + 1;
      if ((p->rc = lm_sql_row_expand(p->arena, &e, &p->err))) {
        l = NULL; /* (a, b) IN ((1, 2), ...) (row_expr.c) */
        break;
      }
    }
    l = e;
  }
  p->depth = saved;
  return l;
}

static lm_expr *parse_not(parser *p) {
  const lm_token *t = cur(p);
  if (!lm_token_is_kw(t, "NOT"))
    return parse_cmp(p);
  next(p);
  int saved = p->depth;
  if (deeper(p, t))
    return NULL;
  lm_expr *x = parse_not(p);
  p->depth = saved;
  if (!x)
    return NULL;
  lm_expr *e = new_expr(p, LM_EXPR_UNARY, t->line, t->column);
  if (!e || !(e->args = new_args(p, 1)))
    return NULL;
  e->op = LM_OP_NOT;
  e->args[0] = x;
  e->n_args = 1;
  return e;
}

static lm_op and_op_kw(parser *p) {
  return is_kw(p, "AND") ? LM_OP_AND : LM_OP_NONE;
}
static lm_op or_op_kw(parser *p) {
  return is_kw(p, "OR") ? LM_OP_OR : LM_OP_NONE;
}

/* The chain v[0] op v[1] op ... v[n-1] as a balanced tree of binary nodes
 * (depth log2(n), left to right order kept); NULL on OOM. */
static lm_expr *balanced(parser *p, lm_op op, lm_expr **v, int n) {
  if (n == 1)
    return v[0];
  lm_expr *l = balanced(p, op, v, n / 2);
  lm_expr *r = l ? balanced(p, op, v + n / 2, n - n / 2) : NULL;
  return r ? new_binary(p, op, l, r) : NULL;
}

/* Keyword-operator level (AND / OR): operand { op operand }. AND and OR
 * are associative (three-valued, and the left-to-right short circuit is
 * kept), so a chain becomes a balanced tree: an ORM's 20,000 ORs nest 15
 * levels, not 20,000 (PostgreSQL flattens them into one n-ary node). */
static lm_expr *parse_kw_level(parser *p, lm_expr *(*operand)(parser *),
                               lm_op (*op_of)(parser *)) {
  int saved = p->depth;
  lm_expr *l = operand(p);
  lm_op op = l ? op_of(p) : LM_OP_NONE;
  if (op == LM_OP_NONE)
    return l;
  if (deeper(p, cur(p)))
    return NULL;
  lm_expr **v = NULL;
  int n = 0, cap = 0;
  if ((v = vec_grow(p, v, n, &cap, sizeof *v)))
    v[n++] = l;
  while (v && op_of(p) == op) {
    next(p);
    lm_expr *r = operand(p);
    if (!r || !(v = vec_grow(p, v, n, &cap, sizeof *v)))
      v = NULL;
    else
      v[n++] = r;
  }
  p->depth = saved;
  return v ? balanced(p, op, v, n) : NULL;
}

static lm_expr *parse_and(parser *p) {
  return parse_kw_level(p, parse_not, and_op_kw);
}
static lm_expr *parse_or(parser *p) {
  return parse_kw_level(p, parse_and, or_op_kw);
}

static lm_expr *parse_expr(parser *p) {
  int saved = p->depth;
  if (deeper(p, cur(p)))
    return NULL;
  lm_expr *e = parse_or(p);
  p->depth = saved;
  return e;
}

/* --------------------------------------------------------------- SELECT */

static const char *const select_clause_kws[] = {
    "FROM",  "WHERE",  "GROUP", "HAVING", "ORDER",
    "LIMIT", "OFFSET", "FETCH", "EMIT",   NULL,
};
/* Suggestions for a misspelt word at the end of a SELECT. */
static const char *const select_tail_kws[] = {
    "FROM",   "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT",
    "OFFSET", "EMIT",  "ASC",   "DESC",   "NULLS", NULL,
};

/* Tokens that may follow a select item or FROM name (so a preceding bare
 * word can be an implicit alias). */
static bool ends_item(const lm_token *t) {
  if (t->kind == LM_TK_COMMA || t->kind == LM_TK_SEMI || t->kind == LM_TK_EOF ||
      t->kind == LM_TK_RPAREN)
    return true;
  for (size_t i = 0; select_clause_kws[i]; i++)
    if (lm_token_is_kw(t, select_clause_kws[i]))
      return true;
  return lm_token_is_kw(t, "UNION") || lm_token_is_kw(t, "INTERSECT") ||
         lm_token_is_kw(t, "EXCEPT");
}

/* [AS] alias, or NULL when there is none (check p->rc). */
static const char *parse_alias(parser *p) {
  if (accept_kw(p, "AS")) {
    const lm_token *t = cur(p);
    if (t->kind != LM_TK_IDENT && t->kind != LM_TK_QIDENT) {
      fail_expected(p, "an alias", NULL);
      return NULL;
    }
    next(p);
    return t->text;
  }
  /* PostgreSQL takes any bare label after an expression as its alias:
   * `SELECT id FORM t` fails at t */
  const lm_token *t = cur(p);
  if (is_bare_label(t)) {
    next(p);
    return t->text;
  }
  return NULL;
}

/* One LIMIT / OFFSET count (an expression; FETCH FIRST's: a primary, as
 * PostgreSQL's c_expr), folded as PostgreSQL evaluates it (limit_fold.c).
 * what: "LIMIT" or "OFFSET". *out: the count, -1 for NULL (no limit; the
 * caller makes a NULL OFFSET 0); a negative count is 2201W "LIMIT must
 * not be negative" (2201X for OFFSET). */
static int parse_count(parser *p, const char *what, bool fetch, int64_t *out,
                       lm_expr **deferred) {
  const lm_token *t = cur(p);
  lm_expr *e = fetch ? parse_unary(p) : parse_expr(p);
  if (!e)
    return p->rc ? p->rc : oom(p);
  *deferred = NULL;
  if (lm_sql_count_deferred(e)) { /* LIMIT (SELECT ...): when run */
    *deferred = e;
    *out = -1;
    return 0;
  }
  bool nul = false;
  int64_t v = 0;
  if (!p->rc && lm_sql_fold_count(e, what, &nul, &v, &p->err)) {
    p->rc = p->err.code ? p->err.code : LM_ERR_PARSE;
    return p->rc;
  }
  if (!nul && v < 0) {
    fail_at(p, t, "%s must not be negative", what);
    return fail_state(p, strcmp(what, "OFFSET") == 0 ? "2201X" : "2201W");
  }
  *out = nul ? -1 : v;
  return 0;
}

/* [LIMIT n | ALL] [OFFSET n [ROW | ROWS]] | FETCH FIRST | NEXT [n] ROW | ROWS
 * ONLY | WITH TIES, in either order, each once, into s (PostgreSQL's
 * select_limit; LIMIT NULL is no limit, OFFSET NULL 0, FETCH without a
 * count 1). *have_limit / *have_offset: which were given. */
static int parse_limit_clauses(parser *p, lm_select *s, bool *have_limit,
                               bool *have_offset) {
  for (;;) {
    const lm_token *t = cur(p);
    bool fetch = is_kw(p, "FETCH");
    if (is_kw(p, "LIMIT") || fetch) {
      if (*have_limit) { /* PostgreSQL's grammar has no second one */
        fail_at(p, t, "syntax error at or near \"%.*s\"", (int)t->len,
                t->start);
        return fail_state(p, "42601");
      }
      next(p);
      *have_limit = true;
      if (!fetch) {
        if (accept_kw(p, "ALL"))
          s->limit = -1;
        else if (parse_count(p, "LIMIT", false, &s->limit, &s->limit_expr))
          return p->rc;
        continue;
      }
      if (!accept_kw(p, "FIRST") && !accept_kw(p, "NEXT")) {
        const char *c[] = {"FIRST", "NEXT", NULL};
        return fail_expected(p, "FIRST or NEXT", c);
      }
      const lm_token *n = cur(p);
      s->limit = 1;
      if (!is_kw(p, "ROW") && !is_kw(p, "ROWS") &&
          parse_count(p, "LIMIT", true, &s->limit, &s->limit_expr))
        return p->rc;
      if (!accept_kw(p, "ROWS") && !accept_kw(p, "ROW")) {
        const char *c[] = {"ROW", "ROWS", NULL};
        return fail_expected(p, "ROW or ROWS", c);
      }
      if (is_kw(p, "WITH") && lm_token_is_kw(peek(p, 1), "TIES")) {
        const lm_token *w = cur(p);
        next(p);
        next(p);
        if (!s->n_order_by) {
          fail_at(p, w,
                  "WITH TIES cannot be specified without ORDER BY "
                  "clause");
          return fail_state(p, "42601");
        }
        if (s->limit < 0 && !s->limit_expr) {
          fail_at(p, n,
                  "row count cannot be null in FETCH FIRST ... WITH "
                  "TIES clause");
          return fail_state(p, "2201W");
        }
        s->limit_with_ties = true;
      } else if (!accept_kw(p, "ONLY")) {
        const char *c[] = {"ONLY", "WITH", NULL};
        return fail_expected(p, "ONLY or WITH TIES", c);
      }
    } else if (is_kw(p, "OFFSET")) {
      if (*have_offset) {
        fail_at(p, t, "syntax error at or near \"%.*s\"", (int)t->len,
                t->start);
        return fail_state(p, "42601");
      }
      next(p);
      *have_offset = true;
      if (parse_count(p, "OFFSET", false, &s->offset, &s->offset_expr))
        return p->rc;
      if (s->offset < 0)
        s->offset = 0; /* OFFSET NULL */
      if (!accept_kw(p, "ROWS"))
        accept_kw(p, "ROW");
    } else {
      return 0;
    }
  }
}

static int parse_emit(parser *p, lm_select *s) {
  static const char *const cands[] = {
      "ON", "CHANGES", "FINAL", "AFTER", "PERIODICALLY", "EVERY", NULL};
  if (accept_kw(p, "ON")) {
    if (accept_kw(p, "WINDOW")) {
      if (expect_kw(p, "CLOSE"))
        return p->rc;
      s->emit = LM_EMIT_ON_WINDOW_CLOSE;
    } else if (accept_kw(p, "UPDATE")) {
      s->emit = LM_EMIT_ON_UPDATE;
    } else if (accept_kw(p, "WATERMARK")) {
      s->emit = LM_EMIT_AFTER_WATERMARK;
    } else {
      static const char *const c2[] = {"WINDOW", "UPDATE", "WATERMARK", NULL};
      return fail_expected(p, "WINDOW CLOSE, UPDATE or WATERMARK", c2);
    }
  } else if (accept_kw(p, "CHANGES")) {
    s->emit = LM_EMIT_CHANGES;
  } else if (accept_kw(p, "FINAL")) {
    s->emit = LM_EMIT_FINAL;
  } else if (accept_kw(p, "AFTER")) {
    if (expect_kw(p, "WATERMARK"))
      return p->rc;
    s->emit = LM_EMIT_AFTER_WATERMARK;
  } else if (is_kw(p, "PERIODICALLY") || is_kw(p, "EVERY")) {
    next(p);
    if (!is_kw(p, "INTERVAL")) {
      const char *c[] = {"INTERVAL", NULL};
      return fail_expected(p, "INTERVAL", c);
    }
    const lm_token *t = peek(p, 1);
    lm_expr *iv = parse_interval(p);
    if (!iv)
      return p->rc;
    if (iv->ival <= 0)
      return fail_at(p, t, "EMIT PERIODICALLY needs a positive interval");
    s->emit = LM_EMIT_PERIODICALLY;
    s->emit_interval_us = iv->ival;
  } else {
    return fail_expected(p,
                         "ON WINDOW CLOSE, CHANGES, ON UPDATE, FINAL, AFTER "
                         "WATERMARK or PERIODICALLY",
                         cands);
  }
  return 0;
}

/* ------------------------------------------------------------ FROM */

static lm_select *parse_select(parser *p);
static bool starts_query(const parser *p, size_t k);

/* Words that start or continue a join after a relation (so a bare word
 * before them can be an implicit alias). */
static bool join_word(const lm_token *t) {
  static const char *const w[] = {
      "JOIN", "INNER", "LEFT", "RIGHT",           "FULL", "CROSS", "ASOF",
      "ON",   "USING", "FOR",  "MATCH_CONDITION", "SEMI", "ANTI",  "NATURAL",
      NULL};
  for (size_t i = 0; w[i]; i++)
    if (lm_token_is_kw(t, w[i]))
      return true;
  return false;
}

/* [AS] alias after a relation in FROM, or NULL (check p->rc). */
static const char *parse_rel_alias(parser *p) {
  if (is_kw(p, "AS"))
    return parse_alias(p);
  const lm_token *t = cur(p);
  if (is_name_token(t) && !join_word(t) && !lm_token_is_kw(t, "EMIT") &&
      (ends_item(peek(p, 1)) || join_word(peek(p, 1)))) {
    next(p);
    return t->text;
  }
  return NULL;
}

static lm_from *new_from(parser *p, lm_from_kind kind, const lm_token *t) {
  lm_from *f = lm_arena_alloc(p->arena, sizeof *f);
  if (!f) {
    oom(p);
    return NULL;
  }
  f->kind = kind;
  f->line = t->line;
  f->column = t->column;
  return f;
}

static lm_from *parse_from(parser *p);

/* At '(' in FROM: whether it opens a parenthesized join rather than a
 * query. `((SELECT ...) x JOIN ...)` starts like `((SELECT ...))`: after
 * the inner parenthesis closes, a query goes on with ')' or a set
 * operation / ORDER BY / LIMIT, a join with an alias or a join word. */
static bool paren_join_ahead(const parser *p) {
  if (!starts_query(p, 1)) /* a relation's name, or '(' of a nested join */
    return is_name_token(peek(p, 1)) || peek(p, 1)->kind == LM_TK_LPAREN;
  if (peek(p, 1)->kind != LM_TK_LPAREN)
    return false;
  size_t j = 1;
  int depth = 0;
  for (; p->pos + j < p->n_toks; j++) {
    lm_token_kind k = peek(p, j)->kind;
    if (k == LM_TK_EOF)
      return false;
    if (k == LM_TK_LPAREN)
      depth++;
    else if (k == LM_TK_RPAREN && --depth == 0)
      break;
  }
  const lm_token *t = peek(p, j + 1);
  static const char *const q[] = {"UNION", "INTERSECT", "EXCEPT", "ORDER",
                                  "LIMIT", "OFFSET",    "FETCH",  NULL};
  if (t->kind == LM_TK_RPAREN || t->kind == LM_TK_EOF)
    return false;
  for (size_t i = 0; q[i]; i++)
    if (lm_token_is_kw(t, q[i]))
      return false;
  return true;
}

/* A function call in FROM, at its name (t): f(args) or ROWS FROM (f(args),
 * ...), then [WITH ORDINALITY] (the alias is parsed by the caller). */
static lm_from *parse_from_func(parser *p, const lm_token *t) {
  lm_from *f = new_from(p, LM_FROM_FUNCTION, t);
  if (!f)
    return NULL;
  bool rows_from = is_kw(p, "ROWS");
  if (rows_from) {
    next(p); /* ROWS */
    next(p); /* FROM */
    next(p); /* ( */
  }
  int cap = 0;
  do {
    const lm_token *ft = cur(p);
    lm_expr *e = parse_expr(p);
    if (!e)
      return NULL;
    if (e->kind != LM_EXPR_FUNC || e->over || e->filter || e->distinct ||
        e->n_agg_order) {
      fail_at(p, ft, "expected a function call in FROM");
      return NULL;
    }
    if (!(f->funcs = vec_grow(p, f->funcs, f->n_funcs, &cap, sizeof e)))
      return NULL;
    f->funcs[f->n_funcs++] = e;
  } while (rows_from && accept(p, LM_TK_COMMA));
  if (rows_from && expect(p, LM_TK_RPAREN, "')' after ROWS FROM's functions"))
    return NULL;
  f->name = f->funcs[0]->name;
  if (is_kw(p, "WITH") && lm_token_is_kw(peek(p, 1), "ORDINALITY")) {
    next(p);
    next(p);
    f->ordinality = true;
  }
  return f;
}

/* One relation: name [[AS] alias], (SELECT ...) [[AS] alias], or a
 * parenthesized join (a JOIN b ON ...) [[AS] alias]. */
static lm_from *parse_from_rel(parser *p) {
  const lm_token *t = cur(p);
  lm_from *f;
  if (t->kind == LM_TK_LPAREN && paren_join_ahead(p)) {
    if (deeper(p, t))
      return NULL;
    int saved = p->depth;
    next(p); /* ( */
    f = parse_from(p);
    p->depth = saved - 1;
    if (!f)
      return NULL;
    if (f->kind != LM_FROM_JOIN) {
      fail_at(p, t, "expected SELECT or a join after '(' in FROM");
      return NULL;
    }
    if (expect(p, LM_TK_RPAREN, "')' after the parenthesized join"))
      return NULL;
    f->parenthesized = true;
    f->alias = parse_rel_alias(p);
    if (p->rc)
      return NULL;
    return f;
  }
  bool lateral = false; /* LATERAL (SELECT ...) | LATERAL f(...) */
  if (is_kw(p, "LATERAL") &&
      (peek(p, 1)->kind == LM_TK_LPAREN || is_name_token(peek(p, 1)))) {
    next(p);
    t = cur(p);
    lateral = true;
  }
  if (t->kind != LM_TK_LPAREN &&
      ((is_name_token(t) && peek(p, 1)->kind == LM_TK_LPAREN) ||
       (is_kw(p, "ROWS") && lm_token_is_kw(peek(p, 1), "FROM") &&
        peek(p, 2)->kind == LM_TK_LPAREN))) {
    if (!(f = parse_from_func(p, t)))
      return NULL;
    f->lateral = lateral;
  } else if (lateral && t->kind != LM_TK_LPAREN) {
    fail_at(p, t, "expected a function call or a subquery after LATERAL");
    return NULL;
  } else if (t->kind == LM_TK_LPAREN) {
    if (!starts_query(p, 1)) {
      fail_at(p, t, "expected SELECT after '(' in FROM");
      return NULL;
    }
    if (deeper(p, t))
      return NULL;
    int saved = p->depth;
    next(p); /* ( */
    p->subquery++;
    lm_select *in = parse_select(p);
    p->subquery--;
    p->depth = saved - 1;
    if (!in || expect(p, LM_TK_RPAREN, "')' after the subquery"))
      return NULL;
    if (!(f = new_from(p, LM_FROM_SUBQUERY, t)))
      return NULL;
    f->subquery = in;
    f->lateral = lateral;
  } else {
    if (!(f = new_from(p, LM_FROM_TABLE, t)))
      return NULL;
    if (!(f->name = parse_name(p, "a source, stream, view or table name", NULL,
                               NULL)))
      return NULL;
  }
  f->alias = parse_rel_alias(p);
  if (p->rc)
    return NULL;
  if (!f->alias &&
      (f->kind == LM_FROM_SUBQUERY || f->kind == LM_FROM_FUNCTION) &&
      is_name_token(cur(p)) && !join_word(cur(p)) &&
      peek(p, 1)->kind == LM_TK_LPAREN) {
    f->alias = cur(p)->text; /* (subquery) t(a, b) */
    next(p);
  }
  if (f->alias && is_kind(p, LM_TK_LPAREN)) { /* AS t(a, b): columns */
    next(p);
    int cap = 0;
    do {
      const char *c = parse_name(p, "a column alias", NULL, NULL);
      if (!c || !(f->col_aliases = vec_grow(p, f->col_aliases, f->n_col_aliases,
                                            &cap, sizeof *f->col_aliases)))
        return NULL;
      f->col_aliases[f->n_col_aliases++] = c;
    } while (accept(p, LM_TK_COMMA));
    if (expect(p, LM_TK_RPAREN, "')' after the column aliases"))
      return NULL;
  }
  if (f->kind == LM_FROM_FUNCTION && lm_sql_srf_expand(p->arena, f)) {
    oom(p); /* json_each's two columns: srf_expand.c */
    return NULL;
  }
  return f;
}

/* The join keywords at the current token: fills *j / *asof and returns
 * true (tokens consumed up to and including JOIN), or false when the
 * current token does not start a join. */
static bool parse_join_kw(parser *p, lm_sql_join *j, bool *asof, int *rc) {
  *asof = false;
  *rc = 0;
  if (accept(p, LM_TK_COMMA)) {
    *j = LM_SQL_JOIN_CROSS;
    return true;
  }
  if (accept_kw(p, "JOIN")) {
    *j = LM_SQL_JOIN_INNER;
    return true;
  }
  bool left = is_kw(p, "LEFT"), right = is_kw(p, "RIGHT");
  if (is_kw(p, "INNER"))
    *j = LM_SQL_JOIN_INNER;
  else if (is_kw(p, "CROSS"))
    *j = LM_SQL_JOIN_CROSS;
  else if (is_kw(p, "FULL"))
    *j = LM_SQL_JOIN_FULL;
  else if (left)
    *j = LM_SQL_JOIN_LEFT;
  else if (right)
    *j = LM_SQL_JOIN_RIGHT;
  else if (is_kw(p, "ASOF") && lm_token_is_kw(peek(p, 1), "JOIN"))
    *j = LM_SQL_JOIN_INNER;
  else
    return false;
  bool asof_first = is_kw(p, "ASOF");
  next(p);
  if (asof_first) {
    *asof = true;
  } else if (left || right) {
    if (accept_kw(p, "SEMI"))
      *j = left ? LM_SQL_JOIN_LEFT_SEMI : LM_SQL_JOIN_RIGHT_SEMI;
    else if (accept_kw(p, "ANTI"))
      *j = left ? LM_SQL_JOIN_LEFT_ANTI : LM_SQL_JOIN_RIGHT_ANTI;
    else if (left && accept_kw(p, "ASOF"))
      *asof = true;
    else
      accept_kw(p, "OUTER");
  } else if (*j == LM_SQL_JOIN_FULL) {
    accept_kw(p, "OUTER");
  }
  if (!is_kw(p, "JOIN")) {
    static const char *const c[] = {"JOIN", "OUTER", NULL};
    *rc = fail_expected(p, "JOIN", c);
    return true;
  }
  next(p);
  return true;
}

/* FROM rel { join rel [FOR SYSTEM_TIME AS OF e] [MATCH_CONDITION(e)]
 * [ON e | USING (c, ...)] }: a left-deep tree. */
/* PostgreSQL's checkNameSpaceConflicts: the relation names of one FROM
 * clause (a table's alias, else its name; a subquery's alias; a
 * parenthesized join's alias hides the names inside it) must differ:
 * 42712 `table name "a" specified more than once`, at the second one. */
static int from_names(parser *p, const lm_from *f, const lm_from **seen, int *n,
                      int cap) {
  if (!f || p->rc)
    return p->rc;
  if (f->kind == LM_FROM_JOIN && !(f->parenthesized && f->alias)) {
    if (from_names(p, f->left, seen, n, cap))
      return p->rc;
    return from_names(p, f->right, seen, n, cap);
  }
  const char *nm = f->alias ? f->alias
                   : f->kind == LM_FROM_TABLE || f->kind == LM_FROM_FUNCTION
                       ? f->name
                       : NULL;
  if (!nm)
    return 0;
  for (int i = 0; i < *n; i++) {
    const lm_from *g = seen[i];
    const char *gn = g->alias ? g->alias : g->name;
    if (gn && !strcmp(gn, nm)) {
      p->rc = lm_err_at(&p->err, LM_ERR_PARSE, f->line, f->column,
                        "table name \"%s\" specified more than once", nm);
      lm_err_state(&p->err, "42712");
      return p->rc;
    }
  }
  if (*n < cap)
    seen[(*n)++] = f;
  return 0;
}

static lm_from *parse_from_joins(parser *p, bool one_item);

static lm_from *parse_from(parser *p) {
  lm_from *f = parse_from_joins(p, false);
  const lm_from *seen[64];
  int n = 0;
  if (f && from_names(p, f, seen, &n, 64))
    return NULL;
  return f;
}

/* A FROM list: items separated by commas, each a relation followed by its
 * explicit joins. A comma binds looser than JOIN, as in PostgreSQL:
 * "a, b JOIN c ON ..." is a CROSS JOIN (b JOIN c), so the ON condition
 * cannot name a. one_item: parse one item (stop at a comma). */
static lm_from *parse_from_joins(parser *p, bool one_item) {
  lm_from *l = parse_from_rel(p);
  if (!l)
    return NULL;
  for (;;) {
    const lm_token *kw = cur(p);
    if (one_item && kw->kind == LM_TK_COMMA)
      break;
    lm_sql_join jt;
    bool asof;
    int jrc;
    bool natural = accept_kw(p, "NATURAL");
    if (!parse_join_kw(p, &jt, &asof, &jrc)) {
      if (!natural)
        break;
      fail_at(p, kw, "NATURAL takes [INNER | LEFT | RIGHT | FULL] JOIN");
      return NULL;
    }
    if (jrc)
      return NULL;
    if (natural &&
        (asof || (jt != LM_SQL_JOIN_INNER && jt != LM_SQL_JOIN_LEFT &&
                  jt != LM_SQL_JOIN_RIGHT && jt != LM_SQL_JOIN_FULL))) {
      fail_at(p, kw, "NATURAL takes [INNER | LEFT | RIGHT | FULL] JOIN");
      return NULL;
    }
    lm_from *j = new_from(p, LM_FROM_JOIN, kw);
    if (!j)
      return NULL;
    j->join = jt;
    j->asof = asof;
    j->natural = natural;
    j->left = l;
    if (kw->kind == LM_TK_COMMA) {
      if (!(j->right = parse_from_joins(p, true)))
        return NULL;
      l = j;
      continue;
    }
    if (!(j->right = parse_from_rel(p)))
      return NULL;
    if (is_kw(p, "FOR")) { /* FOR SYSTEM_TIME AS OF expr [[AS] alias] */
      next(p);
      if (expect_kw(p, "SYSTEM_TIME") || expect_kw(p, "AS") ||
          expect_kw(p, "OF"))
        return NULL;
      if (!(j->system_time = parse_add(p)))
        return NULL;
      if (is_kw(p, "AS") || (is_name_token(cur(p)) && !join_word(cur(p)))) {
        const char *a = parse_rel_alias(p);
        if (p->rc)
          return NULL;
        if (a)
          j->right->alias = a;
      }
    }
    if (is_kw(p, "MATCH_CONDITION")) {
      if (!asof) {
        fail_at(p, cur(p), "MATCH_CONDITION belongs to an ASOF JOIN");
        return NULL;
      }
      next(p);
      if (expect(p, LM_TK_LPAREN, "'(' after MATCH_CONDITION") ||
          !(j->match = parse_expr(p)) ||
          expect(p, LM_TK_RPAREN, "')' after the match condition"))
        return NULL;
    }
    if (natural && (is_kw(p, "ON") || is_kw(p, "USING"))) {
      fail_at(p, cur(p), "a NATURAL JOIN takes no ON or USING clause");
      return NULL;
    }
    if (accept_kw(p, "ON")) {
      if (jt == LM_SQL_JOIN_CROSS) {
        fail_at(p, kw, "a CROSS JOIN takes no ON condition");
        return NULL;
      }
      if (!(j->on = parse_expr(p)))
        return NULL;
    } else if (is_kw(p, "USING")) {
      if (jt == LM_SQL_JOIN_CROSS) {
        fail_at(p, kw, "a CROSS JOIN takes no USING clause");
        return NULL;
      }
      next(p);
      if (expect(p, LM_TK_LPAREN, "'(' after USING"))
        return NULL;
      int cap = 0, capq = 0;
      do {
        bool q = cur(p)->kind == LM_TK_QIDENT;
        const char *c = parse_name(p, "a column name", NULL, NULL);
        if (!c)
          return NULL;
        if (!(j->using_cols = vec_grow(p, j->using_cols, j->n_using, &cap,
                                       sizeof *j->using_cols)) ||
            !(j->using_quoted = vec_grow(p, j->using_quoted, j->n_using, &capq,
                                         sizeof *j->using_quoted)))
          return NULL;
        j->using_quoted[j->n_using] = q;
        j->using_cols[j->n_using++] = c;
      } while (accept(p, LM_TK_COMMA));
      if (expect(p, LM_TK_RPAREN, "')' after the USING columns"))
        return NULL;
    } else if (jt != LM_SQL_JOIN_CROSS && !(asof && j->match) && !natural) {
      static const char *const c[] = {"ON", "USING", NULL};
      fail_expected(p, "ON or USING after the joined relation", c);
      return NULL;
    }
    l = j;
  }
  return l;
}

/* ------------------------------------------- GROUP BY grouping sets */

/* Whether the current token is a '(' opening () or a list of expressions
 * (a comma at its top level), not a subquery or a parenthesized
 * expression. */
static bool group_paren_list(const parser *p) {
  if (!is_kind(p, LM_TK_LPAREN))
    return false;
  const lm_token *t1 = peek(p, 1);
  if (t1->kind == LM_TK_RPAREN)
    return true;
  if (lm_token_is_kw(t1, "SELECT") || lm_token_is_kw(t1, "WITH") ||
      lm_token_is_kw(t1, "VALUES"))
    return false;
  int depth = 0;
  for (size_t k = 0;; k++) {
    const lm_token *t = peek(p, k);
    if (t->kind == LM_TK_EOF || t->kind == LM_TK_ERROR)
      return false;
    if (t->kind == LM_TK_LPAREN)
      depth++;
    else if (t->kind == LM_TK_RPAREN && --depth == 0)
      return false;
    else if (t->kind == LM_TK_COMMA && depth == 1)
      return true;
  }
}

/* One GROUP BY expression: appended to s->group_by, *out an LM_GS_EXPR
 * naming it. */
static int group_expr(parser *p, lm_select *s, int *gcap, lm_group_elem *out) {
  memset(out, 0, sizeof *out);
  out->kind = LM_GS_EXPR;
  out->line = cur(p)->line;
  out->column = cur(p)->column;
  lm_expr *e = parse_expr(p);
  if (!e)
    return p->rc ? p->rc : oom(p);
  if (!(s->group_by =
            vec_grow(p, s->group_by, s->n_group_by, gcap, sizeof *s->group_by)))
    return p->rc;
  out->index = s->n_group_by;
  s->group_by[s->n_group_by++] = e;
  return 0;
}

/* A GROUP BY element (docs/aggregates.md): expr, (), (expr, ...), ROLLUP
 * (...), CUBE (...) or GROUPING SETS (...); inside ROLLUP / CUBE
 * (in_cube) only an expression or a list. Fills *out (items in the
 * arena); 0 or p->rc. */
static int group_elem(parser *p, lm_select *s, int *gcap, bool in_cube,
                      lm_group_elem *out) {
  const lm_token *t = cur(p);
  bool rollup = is_kw(p, "ROLLUP"), cube = is_kw(p, "CUBE");
  bool sets = is_kw(p, "GROUPING") && lm_token_is_kw(peek(p, 1), "SETS");
  bool list = group_paren_list(p);
  if (in_cube || !((rollup || cube) && peek(p, 1)->kind == LM_TK_LPAREN))
    rollup = cube = false;
  if (in_cube)
    sets = false;
  if (!rollup && !cube && !sets && !list)
    return group_expr(p, s, gcap, out);
  if (deeper(p, t))
    return p->rc;
  memset(out, 0, sizeof *out);
  out->line = t->line;
  out->column = t->column;
  out->kind = rollup ? LM_GS_ROLLUP
              : cube ? LM_GS_CUBE
              : sets ? LM_GS_SETS
                     : LM_GS_LIST;
  next(p); /* ROLLUP, CUBE, GROUPING or '(' */
  if (sets)
    next(p); /* SETS */
  if (!list && expect(p, LM_TK_LPAREN, "'('"))
    return p->rc;
  if (list && is_kind(p, LM_TK_RPAREN)) {
    if (in_cube) /* PostgreSQL: a syntax error too */
      return fail_expected(p, "an expression", NULL);
    next(p);
    out->kind = LM_GS_EMPTY;
    p->depth--;
    return 0;
  }
  int cap = 0;
  do {
    lm_group_elem it;
    int rc =
        list ? group_expr(p, s, gcap, &it) : group_elem(p, s, gcap, !sets, &it);
    if (rc)
      return rc;
    if (!(out->items =
              vec_grow(p, out->items, out->n_items, &cap, sizeof *out->items)))
      return p->rc;
    out->items[out->n_items++] = it;
  } while (accept(p, LM_TK_COMMA));
  if (expect(p, LM_TK_RPAREN, "')'"))
    return p->rc;
  p->depth--;
  return 0;
}

/* SELECT ...; current token is SELECT. */
void lm_sql_select_set_from(lm_select *s, const lm_from *f) {
  s->from_clause = (lm_from *)f;
  s->from_line = f->line;
  s->from_column = f->column;
  if (f->kind == LM_FROM_TABLE) {
    s->from = f->name;
    s->from_alias = f->alias;
  } else if (f->kind == LM_FROM_SUBQUERY) {
    s->from_subquery = f->subquery;
    s->from = f->subquery->from;
    s->from_line = f->subquery->from_line;
    s->from_column = f->subquery->from_column;
    s->from_alias = f->alias;
  }
}

static lm_select *parse_select_core(parser *p) {
  const lm_token *kw = cur(p);
  lm_select *s = lm_arena_alloc(p->arena, sizeof *s);
  if (!s) {
    oom(p);
    return NULL;
  }
  s->line = kw->line;
  s->column = kw->column;
  s->limit = -1;
  next(p);
  if (accept_kw(p, "DISTINCT")) {
    s->distinct = true;
    if (is_kw(p, "ON") && peek(p, 1)->kind == LM_TK_LPAREN) {
      next(p); /* ON */
      next(p); /* ( */
      if (parse_expr_list(p, &s->distinct_on, &s->n_distinct_on, "',' or ')'"))
        return NULL;
    }
  } else {
    accept_kw(p, "ALL");
  }

  int cap = 0;
  /* an empty select list, as PostgreSQL allows: `SELECT FROM t` makes
   * rows without columns */
  bool none = is_kind(p, LM_TK_EOF) || is_kind(p, LM_TK_SEMI) ||
              is_kind(p, LM_TK_RPAREN) || is_kw(p, "FROM") ||
              is_kw(p, "WHERE") || is_kw(p, "GROUP") || is_kw(p, "HAVING") ||
              is_kw(p, "ORDER") || is_kw(p, "LIMIT") || is_kw(p, "OFFSET") ||
              is_kw(p, "UNION") || is_kw(p, "INTERSECT") || is_kw(p, "EXCEPT");
  if (none && s->distinct) { /* PostgreSQL: DISTINCT needs a target list */
    fail_expected(p, "a select list after DISTINCT", NULL);
    return NULL;
  }
  for (; !none;) {
    lm_select_item it = {0};
    const lm_token *t = cur(p);
    if (t->kind == LM_TK_STAR) {
      next(p);
      if (!(it.expr = new_expr(p, LM_EXPR_STAR, t->line, t->column)))
        return NULL;
    } else {
      if (!(it.expr = parse_expr(p)))
        return NULL;
      it.alias = parse_alias(p);
      if (p->rc)
        return NULL;
    }
    if (!(s->items = vec_grow(p, s->items, s->n_items, &cap, sizeof it)))
      return NULL;
    s->items[s->n_items++] = it;
    if (!accept(p, LM_TK_COMMA))
      break;
  }

  if (accept_kw(p, "FROM")) {
    lm_from *f = parse_from(p);
    if (!f)
      return NULL;
    lm_sql_select_set_from(s, f);
  } else if (!ends_item(cur(p)) && !is_kw(p, "UNION") &&
             !is_kw(p, "INTERSECT") && !is_kw(p, "EXCEPT")) {
    fail_expected(p, "FROM", select_clause_kws);
    return NULL;
  }

  if (accept_kw(p, "WHERE")) {
    if (!(s->where = parse_expr(p)))
      return NULL;
  }
  if (is_kw(p, "GROUP")) {
    next(p);
    if (expect_kw(p, "BY"))
      return NULL;
    if (accept_kw(p, "DISTINCT"))
      s->group_distinct = true;
    else
      accept_kw(p, "ALL");
    int gcap = 0, ecap = 0;
    bool sets = false; /* any element but an expression */
    do {
      lm_group_elem ge;
      if (group_elem(p, s, &gcap, false, &ge))
        return NULL;
      sets = sets || ge.kind != LM_GS_EXPR;
      if (!(s->group_elems = vec_grow(p, s->group_elems, s->n_group_elems,
                                      &ecap, sizeof *s->group_elems)))
        return NULL;
      s->group_elems[s->n_group_elems++] = ge;
    } while (accept(p, LM_TK_COMMA));
    if (!sets) { /* plain expressions: group_by says it all */
      s->group_elems = NULL;
      s->n_group_elems = 0;
    }
  }
  if (accept_kw(p, "HAVING")) {
    if (!(s->having = parse_expr(p)))
      return NULL;
  }
  if (is_kw(p, "WINDOW") && is_name_token(peek(p, 1))) {
    next(p); /* WINDOW name AS (spec), ... */
    int wcap = 0;
    do {
      lm_window_def d = {0};
      if (!(d.name = parse_name(p, "a window name", &d.line, &d.column)) ||
          expect_kw(p, "AS") || expect(p, LM_TK_LPAREN, "'('"))
        return NULL;
      if (!(d.spec = new_expr(p, LM_EXPR_FUNC, d.line, d.column)) ||
          parse_window_spec(p, d.spec))
        return NULL;
      if (!(s->windows =
                vec_grow(p, s->windows, s->n_windows, &wcap, sizeof d)))
        return NULL;
      s->windows[s->n_windows++] = d;
    } while (accept(p, LM_TK_COMMA));
  }
  if (is_kw(p, "ORDER")) {
    next(p);
    if (expect_kw(p, "BY"))
      return NULL;
    if (parse_order_list(p, &s->order_by, &s->n_order_by))
      return NULL;
  }
  bool have_limit = false, have_offset = false;
  if (parse_limit_clauses(p, s, &have_limit, &have_offset))
    return NULL;
  /* EMIT ..., ALLOW LATENESS INTERVAL ..., LATE DATA TO name: each at
   * most once, in any order */
  for (bool more = true; more;) {
    more = false;
    if (!s->emit && is_kw(p, "EMIT")) {
      s->emit_line = peek(p, 0)->line; /* errors about the EMIT point here */
      s->emit_column = peek(p, 0)->column;
      next(p);
      if (parse_emit(p, s))
        return NULL;
      more = true;
    } else if (!s->allowed_lateness_us && is_kw(p, "ALLOW")) {
      next(p);
      if (expect_kw(p, "LATENESS"))
        return NULL;
      if (!is_kw(p, "INTERVAL")) {
        const char *c[] = {"INTERVAL", NULL};
        fail_expected(p, "INTERVAL", c);
        return NULL;
      }
      const lm_token *t = peek(p, 1);
      lm_expr *iv = parse_interval(p);
      if (!iv)
        return NULL;
      if (iv->ival <= 0) {
        fail_at(p, t, "ALLOW LATENESS needs a positive interval");
        return NULL;
      }
      s->allowed_lateness_us = iv->ival;
      more = true;
    } else if (!s->late_data_to && is_kw(p, "LATE")) {
      next(p);
      if (expect_kw(p, "DATA") || expect_kw(p, "TO"))
        return NULL;
      if (!(s->late_data_to = parse_name(p, "a stream name for late rows",
                                         &s->late_line, &s->late_column)))
        return NULL;
      more = true;
    }
  }

  const lm_token *t = cur(p);
  if (p->subquery && t->kind == LM_TK_RPAREN)
    return s; /* the end of a FROM (SELECT ...) subquery */
  if (lm_token_is_kw(t, "UNION") || lm_token_is_kw(t, "INTERSECT") ||
      lm_token_is_kw(t, "EXCEPT"))
    return s; /* an operand of a set operation (parse_select) */
  if (t->kind != LM_TK_SEMI && t->kind != LM_TK_EOF) {
    /* Say what could still come, most specific first. */
    char what[160] = "";
    const char *const all[] = {"WHERE", "GROUP BY", "HAVING", "ORDER BY",
                               "LIMIT", "OFFSET",   "EMIT"};
    bool can[7] = {
        !s->where && !s->group_by && !s->having && !s->order_by &&
            !have_limit && !have_offset && !s->emit,
        !s->group_by && !s->having && !s->order_by && !have_limit &&
            !have_offset && !s->emit,
        !s->having && !s->order_by && !have_limit && !have_offset && !s->emit,
        !s->order_by && !have_limit && !have_offset && !s->emit,
        !have_limit && !s->emit,
        !have_offset && !s->emit,
        !s->emit,
    };
    for (int i = 0; i < 7; i++) {
      if (!can[i])
        continue;
      strcat(what, all[i]);
      strcat(what, ", ");
    }
    strcat(what, "';' or end of input");
    fail_expected(p, what, select_tail_kws);
    return NULL;
  }
  return s;
}

/* ------------------------------------------------ set operations, WITH */

static bool query_kw(const lm_token *t) {
  return lm_token_is_kw(t, "SELECT") || lm_token_is_kw(t, "VALUES") ||
         lm_token_is_kw(t, "WITH");
}

/* Whether the token k ahead starts a query: SELECT, VALUES, WITH, or
 * parentheses around one. */
static bool starts_query(const parser *p, size_t k) {
  size_t j = k;
  while (peek(p, j)->kind == LM_TK_LPAREN && j < k + 64)
    j++;
  return query_kw(peek(p, j));
}

static lm_select *new_select(parser *p, const lm_token *t) {
  lm_select *s = lm_arena_alloc(p->arena, sizeof *s);
  if (!s) {
    oom(p);
    return NULL;
  }
  s->line = t->line;
  s->column = t->column;
  s->limit = -1;
  return s;
}

/* VALUES (e, ...), ...; the current token is VALUES. */
static lm_select *parse_values(parser *p) {
  lm_select *s = new_select(p, cur(p));
  if (!s)
    return NULL;
  next(p);
  int cap = 0;
  do {
    if (expect(p, LM_TK_LPAREN, "'(' before a VALUES row"))
      return NULL;
    lm_expr **row;
    int n;
    if (parse_expr_list(p, &row, &n, "',' or ')'"))
      return NULL;
    if (s->n_values && n != s->n_value_cols) { /* at its first value */
      p->rc = lm_err_at(&p->err, LM_ERR_PARSE, row[0]->line, row[0]->column,
                        "VALUES lists must all be the same length");
      fail_state(p, "42601");
      return NULL;
    }
    s->n_value_cols = n;
    if (!(s->values =
              vec_grow(p, s->values, s->n_values, &cap, sizeof *s->values)))
      return NULL;
    s->values[s->n_values++] = row;
  } while (accept(p, LM_TK_COMMA));
  return s;
}

static bool has_tail(const lm_select *s) {
  return s->n_order_by || s->limit >= 0 || s->offset > 0 || s->limit_expr ||
         s->offset_expr;
}

/* [ORDER BY ...] [LIMIT n|ALL] [OFFSET n [ROWS]] of a whole query (a set
 * operation, VALUES or a parenthesized query) into s. */
static int parse_query_tail(parser *p, lm_select *s) {
  if (!is_kw(p, "ORDER") && !is_kw(p, "LIMIT") && !is_kw(p, "OFFSET") &&
      !is_kw(p, "FETCH"))
    return 0;
  if (has_tail(s))
    return fail_at(p, cur(p),
                   "multiple ORDER BY / LIMIT / OFFSET clauses "
                   "not allowed");
  if (is_kw(p, "ORDER")) {
    next(p);
    if (expect_kw(p, "BY") || parse_order_list(p, &s->order_by, &s->n_order_by))
      return p->rc;
  }
  bool have_limit = false, have_offset = false;
  return parse_limit_clauses(p, s, &have_limit, &have_offset);
}

/* SELECT ... | VALUES ... | ( query ); *bare: a SELECT without
 * parentheses (its ORDER BY / LIMIT may belong to an enclosing set
 * operation). */
static lm_select *parse_set_operand(parser *p, bool *bare) {
  const lm_token *t = cur(p);
  *bare = false;
  if (t->kind == LM_TK_LPAREN && starts_query(p, 0)) {
    if (deeper(p, t))
      return NULL;
    int saved = p->depth;
    next(p);
    p->subquery++;
    lm_select *q = parse_select(p);
    p->subquery--;
    p->depth = saved - 1;
    if (!q || expect(p, LM_TK_RPAREN, "')' after the query"))
      return NULL;
    return q;
  }
  if (is_kw(p, "VALUES"))
    return parse_values(p);
  if (is_kw(p, "SELECT")) {
    *bare = true;
    return parse_select_core(p);
  }
  static const char *const c[] = {"SELECT", "VALUES", NULL};
  fail_expected(p, "SELECT, VALUES or '('", c);
  return NULL;
}

/* Operands joined by INTERSECT (tighter) or, when `lvl` is 1, by UNION and
 * EXCEPT over INTERSECT terms: a left-deep tree. *last / *bare describe the
 * last operand parsed. */
static lm_select *parse_set_level(parser *p, int lvl, lm_select **last,
                                  bool *bare) {
  lm_select *l = lvl ? parse_set_level(p, 0, last, bare)
                     : (*last = parse_set_operand(p, bare));
  while (l) {
    lm_setop_kind k;
    if (lvl == 0 && is_kw(p, "INTERSECT"))
      k = LM_SETOP_INTERSECT;
    else if (lvl == 1 && is_kw(p, "UNION"))
      k = LM_SETOP_UNION;
    else if (lvl == 1 && is_kw(p, "EXCEPT"))
      k = LM_SETOP_EXCEPT;
    else
      break;
    const lm_token *op = cur(p);
    if (*bare && has_tail(*last)) {
      fail_at(p, op,
              "ORDER BY, LIMIT or OFFSET before %s: put the operand in "
              "parentheses",
              k == LM_SETOP_UNION    ? "UNION"
              : k == LM_SETOP_EXCEPT ? "EXCEPT"
                                     : "INTERSECT");
      return NULL;
    }
    next(p);
    bool all = accept_kw(p, "ALL");
    if (!all)
      accept_kw(p, "DISTINCT");
    lm_select *r = lvl ? parse_set_level(p, 0, last, bare)
                       : (*last = parse_set_operand(p, bare));
    lm_select *n = r ? new_select(p, op) : NULL;
    if (!n)
      return NULL;
    n->setop = k;
    n->set_all = all;
    n->set_left = l;
    n->set_right = r;
    l = n;
  }
  return l;
}

/* name [, ...] into *names / *n (at least one). */
static int parse_sc_names(parser *p, const char ***names, int *n) {
  int ncap = 0;
  do {
    const char *nm = parse_name(p, "a column name", NULL, NULL);
    if (!nm || !(*names = vec_grow(p, *names, *n, &ncap, sizeof **names)))
      return p->rc ? p->rc : 1;
    (*names)[(*n)++] = nm;
  } while (accept(p, LM_TK_COMMA));
  return 0;
}

/* After a WITH query: [SEARCH {DEPTH | BREADTH} FIRST BY cols SET name]
 * [CYCLE cols SET name [TO value DEFAULT value] USING name] (PostgreSQL
 * 14+; api/select_recursive.c). */
static int parse_search_cycle(parser *p, lm_cte *c) {
  if (is_kw(p, "SEARCH")) {
    c->search_line = cur(p)->line;
    c->search_column = cur(p)->column;
    next(p);
    if (accept_kw(p, "BREADTH"))
      c->search_breadth = true;
    else if (expect_kw(p, "DEPTH"))
      return p->rc;
    if (expect_kw(p, "FIRST") || expect_kw(p, "BY") ||
        parse_sc_names(p, &c->search_cols, &c->n_search_cols) ||
        expect_kw(p, "SET") ||
        !(c->search_seq = parse_name(p, "a column name", NULL, NULL)))
      return p->rc ? p->rc : 1;
  }
  if (is_kw(p, "CYCLE")) {
    c->cycle_line = cur(p)->line;
    c->cycle_column = cur(p)->column;
    next(p);
    if (parse_sc_names(p, &c->cycle_cols, &c->n_cycle_cols) ||
        expect_kw(p, "SET") ||
        !(c->cycle_mark = parse_name(p, "a column name", NULL, NULL)))
      return p->rc ? p->rc : 1;
    if (accept_kw(p, "TO")) {
      if (!(c->cycle_to = parse_unary(p)) || expect_kw(p, "DEFAULT") ||
          !(c->cycle_default = parse_unary(p)))
        return p->rc ? p->rc : 1;
    }
    if (expect_kw(p, "USING") ||
        !(c->cycle_path = parse_name(p, "a column name", NULL, NULL)))
      return p->rc ? p->rc : 1;
  }
  return 0;
}

/* A query: [WITH [RECURSIVE] name [(cols)] AS ( query ), ...] operands
 * joined by UNION / INTERSECT / EXCEPT [ALL | DISTINCT] [ORDER BY ...]
 * [LIMIT n] [OFFSET n]. INTERSECT binds tighter than UNION and EXCEPT
 * (PostgreSQL's precedence); the ORDER BY / LIMIT written after the last
 * SELECT of a set operation apply to the whole of it. */
static lm_select *parse_select(parser *p) {
  const lm_token *w = cur(p);
  lm_cte *ctes = NULL;
  int n_ctes = 0, cap = 0;
  bool rec = false;
  if (accept_kw(p, "WITH")) {
    rec = accept_kw(p, "RECURSIVE");
    do {
      lm_cte c;
      memset(&c, 0, sizeof c);
      if (!(c.name = parse_name(p, "a WITH query name", &c.line, &c.column)))
        return NULL;
      if (accept(p, LM_TK_LPAREN)) {
        int ccap = 0;
        do {
          const char *n = parse_name(p, "a column name", NULL, NULL);
          if (!n ||
              !(c.cols = vec_grow(p, c.cols, c.n_cols, &ccap, sizeof *c.cols)))
            return NULL;
          c.cols[c.n_cols++] = n;
        } while (accept(p, LM_TK_COMMA));
        if (expect(p, LM_TK_RPAREN, "')' after the column names"))
          return NULL;
      }
      if (expect_kw(p, "AS"))
        return NULL;
      if (is_kw(p, "NOT") && lm_token_is_kw(peek(p, 1), "MATERIALIZED")) {
        next(p);
        next(p);
      } else {
        accept_kw(p, "MATERIALIZED");
      }
      const lm_token *open = cur(p);
      if (expect(p, LM_TK_LPAREN, "'(' before the WITH query"))
        return NULL;
      if (deeper(p, open))
        return NULL;
      int saved = p->depth;
      p->subquery++;
      c.query = starts_query(p, 0) ? parse_select(p) : NULL;
      p->subquery--;
      p->depth = saved - 1;
      if (!c.query) {
        if (!p->rc) {
          static const char *const kc[] = {"SELECT", "VALUES", NULL};
          fail_expected(p, "SELECT, VALUES or WITH", kc);
        }
        return NULL;
      }
      if (expect(p, LM_TK_RPAREN, "')' after the WITH query"))
        return NULL;
      if (parse_search_cycle(p, &c))
        return NULL;
      if (!(ctes = vec_grow(p, ctes, n_ctes, &cap, sizeof *ctes)))
        return NULL;
      ctes[n_ctes++] = c;
    } while (accept(p, LM_TK_COMMA));
  }
  lm_select *last = NULL;
  bool bare = false;
  lm_select *q = parse_set_level(p, 1, &last, &bare);
  if (!q)
    return NULL;
  if (q->setop && bare && has_tail(last)) {
    /* SELECT ... UNION SELECT ... ORDER BY ... LIMIT ...: the whole's */
    q->order_by = last->order_by;
    q->n_order_by = last->n_order_by;
    q->limit = last->limit;
    q->limit_with_ties = last->limit_with_ties;
    q->offset = last->offset;
    q->limit_expr = last->limit_expr;
    q->offset_expr = last->offset_expr;
    last->order_by = NULL;
    last->n_order_by = 0;
    last->limit = -1;
    last->limit_with_ties = false;
    last->offset = 0;
    last->limit_expr = last->offset_expr = NULL;
  } else if (!bare && parse_query_tail(p, q)) {
    return NULL;
  }
  if (n_ctes) {
    if (q->n_ctes) { /* WITH a AS (..) (WITH b AS (..) SELECT ..) */
      lm_cte *all =
          lm_arena_alloc(p->arena, sizeof *all * (size_t)(n_ctes + q->n_ctes));
      if (!all) {
        oom(p);
        return NULL;
      }
      memcpy(all, ctes, sizeof *all * (size_t)n_ctes);
      memcpy(all + n_ctes, q->ctes, sizeof *all * (size_t)q->n_ctes);
      ctes = all;
      n_ctes += q->n_ctes;
    }
    q->ctes = ctes;
    q->n_ctes = n_ctes;
    q->with_recursive = rec || q->with_recursive;
    q->with_line = w->line;
    q->with_column = w->column;
  }
  return q;
}

/* ----------------------------------------------------------- statements */

static lm_stmt *new_stmt(parser *p, lm_stmt_kind kind, const lm_token *t) {
  lm_stmt *s = lm_arena_alloc(p->arena, sizeof *s);
  if (!s) {
    oom(p);
    return NULL;
  }
  s->kind = kind;
  s->line = t->line;
  s->column = t->column;
  return s;
}

/* IF NOT EXISTS (current token IF) */
static int parse_if_not_exists(parser *p, bool *out) {
  if (!is_kw(p, "IF"))
    return 0;
  next(p);
  if (expect_kw(p, "NOT") || expect_kw(p, "EXISTS"))
    return p->rc;
  *out = true;
  return 0;
}

/* ( key = value, ... ) after a connector name. Keys: 'string' or dotted
 * bare words (kept as written); values: strings, numbers (text as written,
 * with an optional sign) or bare words. */
static int parse_options(parser *p, lm_stmt *s) {
  if (expect(p, LM_TK_LPAREN, "'('"))
    return p->rc;
  if (accept(p, LM_TK_RPAREN))
    return 0;
  int cap = s->n_options;
  for (;;) {
    lm_option o = {0};
    const lm_token *k = cur(p);
    o.line = k->line;
    o.column = k->column;
    if (k->kind == LM_TK_STRING) {
      o.key = k->text;
      next(p);
    } else if (k->kind == LM_TK_IDENT || k->kind == LM_TK_QIDENT) {
      size_t start = k->offset, end = k->offset + k->len;
      next(p);
      while (is_kind(p, LM_TK_DOT)) {
        next(p);
        const lm_token *w = cur(p);
        if (w->kind != LM_TK_IDENT && w->kind != LM_TK_INTEGER)
          return fail_expected(p, "an option name part after '.'", NULL);
        end = w->offset + w->len;
        next(p);
      }
      if (k->kind == LM_TK_QIDENT && end == k->offset + k->len) {
        o.key = k->text;
      } else if (!(o.key =
                       lm_arena_strndup(p->arena, p->sql + start, end - start)))
        return oom(p);
    } else {
      return fail_expected(p, "an option name like 'path'", NULL);
    }
    if (expect(p, LM_TK_EQ, "'='"))
      return p->rc;
    const lm_token *v = cur(p);
    bool neg = false;
    if (v->kind == LM_TK_MINUS || v->kind == LM_TK_PLUS) {
      neg = v->kind == LM_TK_MINUS;
      next(p);
      v = cur(p);
      if (v->kind != LM_TK_INTEGER && v->kind != LM_TK_NUMBER)
        return fail_expected(p, "a number", NULL);
    }
    if (v->kind == LM_TK_STRING || v->kind == LM_TK_IDENT ||
        v->kind == LM_TK_INTEGER || v->kind == LM_TK_NUMBER) {
      if (v->kind == LM_TK_IDENT) {
        if (!(o.value = lm_arena_strndup(p->arena, v->start, v->len)))
          return oom(p);
      } else if (neg) {
        char *t = lm_arena_alloc(p->arena, v->text_len + 2);
        if (!t)
          return oom(p);
        t[0] = '-';
        memcpy(t + 1, v->text, v->text_len + 1);
        o.value = t;
      } else {
        o.value = v->text;
      }
      next(p);
    } else {
      return fail_expected(p, "an option value like 'text'", NULL);
    }
    if (!(s->options = vec_grow(p, s->options, s->n_options, &cap, sizeof o)))
      return p->rc;
    s->options[s->n_options++] = o;
    if (accept(p, LM_TK_COMMA))
      continue;
    if (accept(p, LM_TK_RPAREN))
      break;
    return fail_expected(p, "',' or ')'", NULL);
  }
  return 0;
}

/* FROM|INTO <connector> [( options )]; the keyword is already consumed. */
static int parse_connector(parser *p, lm_stmt *s) {
  const lm_token *t = cur(p);
  if (t->kind != LM_TK_IDENT && t->kind != LM_TK_QIDENT)
    return fail_expected(p, "a connector name (FILES, GENERATOR, ...)", NULL);
  if (!(s->connector = dup_upper(p, t->text, strlen(t->text))))
    return p->rc;
  next(p);
  if (is_kind(p, LM_TK_LPAREN))
    return parse_options(p, s);
  return 0;
}

static int parse_format(parser *p, lm_stmt *s) {
  const lm_token *t = cur(p);
  if (t->kind != LM_TK_IDENT && t->kind != LM_TK_QIDENT &&
      t->kind != LM_TK_STRING)
    return fail_expected(p, "a format name (CSV, JSON, ...)", NULL);
  if (!(s->format = dup_upper(p, t->text, strlen(t->text))))
    return p->rc;
  next(p);
  return 0;
}

/* ( name, ... ) of a table constraint into *out / *n (the '(' current). */
static int parse_name_list(parser *p, const char *what, const char ***out,
                           int *n, bool **quoted) {
  if (expect(p, LM_TK_LPAREN, "'('"))
    return p->rc;
  int cap = 0, capq = 0;
  for (;;) {
    bool q = cur(p)->kind == LM_TK_QIDENT;
    const char *k = parse_name(p, what, NULL, NULL);
    if (!k)
      return p->rc;
    if (!(*out = vec_grow(p, *out, *n, &cap, sizeof **out)))
      return p->rc;
    if (quoted) {
      if (!(*quoted = vec_grow(p, *quoted, *n, &capq, sizeof **quoted)))
        return p->rc;
      (*quoted)[*n] = q;
    }
    (*out)[(*n)++] = k;
    if (accept(p, LM_TK_COMMA))
      continue;
    if (accept(p, LM_TK_RPAREN))
      return 0;
    return fail_expected(p, "',' or ')'", NULL);
  }
}

/* UNIQUE [NULLS [NOT] DISTINCT] (UNIQUE current) of a table (cols given:
 * a table constraint, parsed here) or of column `col`; `name` from
 * CONSTRAINT name (NULL = generated), `at` its first token. */
static int parse_unique(parser *p, lm_stmt *s, const lm_token *at,
                        const char *name, const char *col, int *ucap) {
  if (s->kind != LM_STMT_CREATE_TABLE)
    return fail_at(p, at,
                   "UNIQUE constraints are for tables (CREATE TABLE), not "
                   "sources");
  next(p); /* UNIQUE */
  lm_unique_def u = {0};
  u.name = name;
  u.line = at->line;
  u.column = at->column;
  if (accept_kw(p, "NULLS")) {
    u.nulls_not_distinct = accept_kw(p, "NOT");
    if (expect_kw(p, "DISTINCT"))
      return p->rc;
  }
  if (col) {
    if (!(u.cols = lm_arena_alloc(p->arena, sizeof *u.cols)))
      return oom(p);
    u.cols[0] = col;
    u.n_cols = 1;
  } else if (parse_name_list(p, "a column name", &u.cols, &u.n_cols, NULL)) {
    return p->rc;
  }
  if (!(s->uniques = vec_grow(p, s->uniques, s->n_uniques, ucap, sizeof u)))
    return p->rc;
  s->uniques[s->n_uniques++] = u;
  return 0;
}

/* CONSTRAINT name (current CONSTRAINT): the name, or NULL with p->rc. */
static const char *parse_constraint_name(parser *p) {
  next(p);
  return parse_name(p, "a constraint name", NULL, NULL);
}

/* ( coldef | WATERMARK FOR col [AS expr] | table constraint, ... ) */
static int parse_columns(parser *p, lm_stmt *s) {
  next(p); /* ( */
  int cap = 0, ucap = 0;
  for (;;) {
    const lm_token *t = cur(p);
    const char *cname = NULL;
    if (lm_token_is_kw(t, "CONSTRAINT")) {
      /* CONSTRAINT name PRIMARY KEY (...) | UNIQUE (...) */
      if (!(cname = parse_constraint_name(p)))
        return p->rc;
      if (!is_kw(p, "PRIMARY") && !is_kw(p, "UNIQUE")) {
        static const char *const c[] = {"PRIMARY", "UNIQUE", NULL};
        return fail_expected(p, "PRIMARY KEY or UNIQUE", c);
      }
    }
    if (is_kw(p, "UNIQUE")) {
      /* table constraint UNIQUE (a, b) */
      if (parse_unique(p, s, t, cname, NULL, &ucap))
        return p->rc;
    } else if (is_kw(p, "PRIMARY") && lm_token_is_kw(peek(p, 1), "KEY") &&
               (cname || peek(p, 2)->kind == LM_TK_LPAREN)) {
      /* table constraint PRIMARY KEY (a, b) */
      if (s->n_primary_key) { /* PostgreSQL's invalid_table_definition */
        fail_at(p, cur(p),
                "multiple primary keys for table \"%s\" are not allowed",
                s->name);
        return fail_state(p, "42P16");
      }
      s->pk_line = t->line;
      s->pk_column = t->column;
      s->pk_name = cname;
      next(p);
      next(p);
      if (parse_name_list(p, "a key column name", &s->primary_key,
                          &s->n_primary_key, &s->pk_quoted))
        return p->rc;
    } else if (lm_token_is_kw(t, "WATERMARK") &&
               lm_token_is_kw(peek(p, 1), "FOR")) {
      if (s->watermark_column)
        return fail_at(p, t, "only one WATERMARK per source");
      next(p);
      next(p);
      if (!(s->watermark_column = parse_name(p, "the event-time column name",
                                             &s->wm_line, &s->wm_column)))
        return p->rc;
      if (accept_kw(p, "AS")) {
        if (!(s->watermark_expr = parse_expr(p)))
          return p->rc;
      }
    } else {
      lm_column_def c = {0};
      if (!is_name_token(t))
        return fail_expected(p, "a column definition", NULL);
      if (s->n_columns >= LM_SQL_MAX_COLUMNS)
        return fail_at(p, t, "too many columns (limit %d)", LM_SQL_MAX_COLUMNS);
      c.name = t->text;
      c.line = t->line;
      c.column = t->column;
      next(p);
      for (int i = 0; i < s->n_columns; i++)
        if (strcmp(s->columns[i].name, c.name) == 0)
          return fail_at(p, t, "column \"%s\" specified more than once",
                         c.name) /* PostgreSQL: 42701 duplicate_column */
                     ? fail_state(p, "42701")
                     : 0;
      const lm_token *tt = cur(p);
      if (lm_token_is_kw(tt, "AS")) {
        /* name AS PROCTIME(): the processing-time attribute (Flink's
         * computed column), a TIMESTAMP filled in by the engine */
        next(p);
        const lm_token *f = cur(p);
        if (!lm_token_is_kw(f, "PROCTIME") ||
            peek(p, 1)->kind != LM_TK_LPAREN ||
            peek(p, 2)->kind != LM_TK_RPAREN)
          return fail_at(p, f,
                         "a computed column of a source must be "
                         "PROCTIME()");
        next(p);
        next(p);
        next(p);
        c.proctime = true;
        c.type = lm_type_make(LM_TYPE_TIMESTAMP);
        if (!(s->columns =
                  vec_grow(p, s->columns, s->n_columns, &cap, sizeof c)))
          return p->rc;
        s->columns[s->n_columns++] = c;
        if (accept(p, LM_TK_COMMA))
          continue;
        if (accept(p, LM_TK_RPAREN))
          break;
        return fail_expected(p, "',' or ')'", NULL);
      }
      if (parse_type(p, &c.type))
        return p->rc;
      c.char_len = p->tlen;
      c.bpchar = p->tbpchar;
      c.tprec = (int8_t)p->tprec;
      if ((c.type.id == LM_TYPE_DECIMAL128 && c.type.precision == 0) ||
          (c.type.id == LM_TYPE_LIST && c.char_len < 0)) /* numeric[] */
        return fail_at(p, tt,
                       "a NUMERIC / DECIMAL column needs (precision, scale), "
                       "e.g. NUMERIC(18, 2): values are Decimal128");
      for (;;) {
        const lm_token *ct = cur(p);
        const char *ccname = NULL;
        if (is_kw(p, "CONSTRAINT")) {
          /* CONSTRAINT name NOT NULL | NULL | PRIMARY KEY | UNIQUE */
          if (!(ccname = parse_constraint_name(p)))
            return p->rc;
          if (!is_kw(p, "NOT") && !is_kw(p, "NULL") && !is_kw(p, "PRIMARY") &&
              !is_kw(p, "UNIQUE")) {
            static const char *const k[] = {"NOT", "NULL", "PRIMARY", "UNIQUE",
                                            NULL};
            return fail_expected(p, "NOT NULL, NULL, PRIMARY KEY or UNIQUE", k);
          }
        }
        if (is_kw(p, "NOT")) {
          next(p);
          if (expect_kw(p, "NULL"))
            return p->rc;
          c.not_null = true;
        } else if (accept_kw(p, "NULL")) {
          c.not_null = false;
        } else if (is_kw(p, "UNIQUE")) {
          if (parse_unique(p, s, ct, ccname, c.name, &ucap))
            return p->rc;
        } else if (is_kw(p, "PRIMARY")) {
          const lm_token *pk = cur(p);
          next(p);
          if (expect_kw(p, "KEY"))
            return p->rc;
          if (s->n_primary_key) {
            fail_at(p, pk,
                    "multiple primary keys for table \"%s\" are not allowed",
                    s->name);
            return fail_state(p, "42P16");
          }
          c.primary_key = c.not_null = true;
          s->pk_line = pk->line;
          s->pk_column = pk->column;
          s->pk_name = ccname;
          if (!(s->primary_key =
                    lm_arena_alloc(p->arena, sizeof *s->primary_key)) ||
              !(s->pk_quoted = lm_arena_alloc(p->arena, sizeof *s->pk_quoted)))
            return oom(p);
          s->primary_key[0] = c.name;
          s->pk_quoted[0] = true; /* the column's own name, exactly */
          s->n_primary_key = 1;
        } else {
          break;
        }
      }
      if (!(s->columns = vec_grow(p, s->columns, s->n_columns, &cap, sizeof c)))
        return p->rc;
      s->columns[s->n_columns++] = c;
    }
    if (accept(p, LM_TK_COMMA))
      continue;
    if (accept(p, LM_TK_RPAREN))
      break;
    static const char *const c[] = {"NOT", "NULL", "PRIMARY", "UNIQUE", NULL};
    return fail_expected(p, "',' or ')'", c);
  }
  return 0;
}

static int parse_create_source(parser *p, lm_stmt *s) {
  if (parse_if_not_exists(p, &s->if_not_exists))
    return p->rc;
  if (!(s->name = parse_name(p, "a source name", NULL, NULL)))
    return p->rc;
  bool cols = false;
  for (;;) {
    if (!cols && is_kind(p, LM_TK_LPAREN)) {
      cols = true;
      if (parse_columns(p, s))
        return p->rc;
    } else if (!s->connector && is_kw(p, "FROM")) {
      next(p);
      if (parse_connector(p, s))
        return p->rc;
    } else if (!s->format && is_kw(p, "FORMAT")) {
      next(p);
      if (parse_format(p, s))
        return p->rc;
    } else {
      break;
    }
  }
  return 0;
}

static int parse_create_query(parser *p, lm_stmt *s) {
  if (parse_if_not_exists(p, &s->if_not_exists))
    return p->rc;
  const char *what =
      s->kind == LM_STMT_CREATE_STREAM ? "a stream name" : "a view name";
  if (!(s->name = parse_name(p, what, NULL, NULL)))
    return p->rc;
  /* CREATE VIEW name (col, ...) AS: the view's column names */
  if (s->plain_view && accept(p, LM_TK_LPAREN)) {
    int cap = 0;
    do {
      const char *c = parse_name(p, "a column name", NULL, NULL);
      if (!c || !(s->view_cols = vec_grow(p, s->view_cols, s->n_view_cols, &cap,
                                          sizeof *s->view_cols)))
        return p->rc;
      s->view_cols[s->n_view_cols++] = c;
    } while (accept(p, LM_TK_COMMA));
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
  }
  /* WITH ('state.ttl' = '1 hour', ...): query options (docs/joins.md) */
  if (accept_kw(p, "WITH") && parse_options(p, s))
    return p->rc;
  if (expect_kw(p, "AS"))
    return p->rc;
  if (!starts_query(p, 0)) {
    static const char *const c[] = {"SELECT", NULL};
    return fail_expected(p, "SELECT", c);
  }
  if (!(s->select = parse_select(p)))
    return p->rc;
  return 0;
}

/* [IF NOT EXISTS] [name] ON table [USING method] (col [ASC|DESC] [NULLS
 * FIRST|LAST], ...) [NULLS [NOT] DISTINCT] after CREATE [UNIQUE] INDEX */
static int parse_create_index(parser *p, lm_stmt *s) {
  if (parse_if_not_exists(p, &s->if_not_exists))
    return p->rc;
  if (!is_kw(p, "ON") || lm_token_is_kw(peek(p, 1), "ON")) {
    if (!(s->name = parse_name(p, "an index name", NULL, NULL)))
      return p->rc;
  } else if (s->if_not_exists) {
    return fail_expected(p, "an index name", NULL);
  }
  if (expect_kw(p, "ON"))
    return p->rc;
  if (!(s->index_table = parse_name(p, "a table name", NULL, NULL)))
    return p->rc;
  if (accept_kw(p, "USING")) {
    const lm_token *m = cur(p);
    if (!lm_token_is_kw(m, "BTREE") && !lm_token_is_kw(m, "HASH")) {
      static const char *const c[] = {"BTREE", "HASH", NULL};
      return fail_expected(p, "an index method (BTREE or HASH)", c);
    }
    next(p);
  }
  if (expect(p, LM_TK_LPAREN, "'('"))
    return p->rc;
  int cap = 0;
  for (;;) {
    lm_index_col c = {0};
    if (!(c.name = parse_name(p, "a column name", &c.line, &c.column)))
      return p->rc;
    if (accept_kw(p, "DESC"))
      c.desc = true;
    else
      accept_kw(p, "ASC");
    if (accept_kw(p, "NULLS") && !accept_kw(p, "FIRST") && expect_kw(p, "LAST"))
      return p->rc;
    if (!(s->index_cols =
              vec_grow(p, s->index_cols, s->n_index_cols, &cap, sizeof c)))
      return p->rc;
    s->index_cols[s->n_index_cols++] = c;
    if (accept(p, LM_TK_COMMA))
      continue;
    if (accept(p, LM_TK_RPAREN))
      break;
    static const char *const k[] = {"ASC", "DESC", "NULLS", NULL};
    return fail_expected(p, "',' or ')'", k);
  }
  /* [NULLS [NOT] DISTINCT], PostgreSQL 15 */
  if (accept_kw(p, "NULLS")) {
    s->index_nulls_not_distinct = accept_kw(p, "NOT");
    if (expect_kw(p, "DISTINCT"))
      return p->rc;
  }
  return 0;
}

static int parse_create_sink(parser *p, lm_stmt *s) {
  if (parse_if_not_exists(p, &s->if_not_exists))
    return p->rc;
  if (!(s->name = parse_name(p, "a sink name", NULL, NULL)))
    return p->rc;
  if (expect_kw(p, "FROM"))
    return p->rc;
  if (!(s->sink_from = parse_name(p, "a stream or view name", NULL, NULL)))
    return p->rc;
  for (;;) {
    if (!s->connector && is_kw(p, "INTO")) {
      next(p);
      if (parse_connector(p, s))
        return p->rc;
    } else if (!s->format && is_kw(p, "FORMAT")) {
      next(p);
      if (parse_format(p, s))
        return p->rc;
    } else {
      break;
    }
  }
  return 0;
}

static int parse_insert(parser *p, lm_stmt *s) {
  if (expect_kw(p, "INTO"))
    return p->rc;
  if (!(s->name =
            parse_name(p, "a source name", &s->name_line, &s->name_column)))
    return p->rc;
  if (accept(p, LM_TK_LPAREN)) {
    int cap = 0, cap2 = 0, cap3 = 0, cap4 = 0;
    for (;;) {
      int line = 0, col = 0;
      bool q = cur(p)->kind == LM_TK_QIDENT;
      const char *c = parse_name(p, "a column name", &line, &col);
      if (!c)
        return p->rc;
      if (!(s->insert_col_quoted =
                vec_grow(p, s->insert_col_quoted, s->n_insert_columns, &cap4,
                         sizeof *s->insert_col_quoted)))
        return p->rc;
      s->insert_col_quoted[s->n_insert_columns] = q;
      if (!(s->insert_columns =
                vec_grow(p, s->insert_columns, s->n_insert_columns, &cap,
                         sizeof *s->insert_columns)) ||
          !(s->insert_col_lines =
                vec_grow(p, s->insert_col_lines, s->n_insert_columns, &cap2,
                         sizeof *s->insert_col_lines)) ||
          !(s->insert_col_cols =
                vec_grow(p, s->insert_col_cols, s->n_insert_columns, &cap3,
                         sizeof *s->insert_col_cols)))
        return p->rc;
      s->insert_col_lines[s->n_insert_columns] = line;
      s->insert_col_cols[s->n_insert_columns] = col;
      s->insert_columns[s->n_insert_columns++] = c;
      if (accept(p, LM_TK_COMMA))
        continue;
      if (accept(p, LM_TK_RPAREN))
        break;
      return fail_expected(p, "',' or ')'", NULL);
    }
  }
  if (is_kw(p, "SELECT") || is_kw(p, "WITH") ||
      (is_kind(p, LM_TK_LPAREN) && starts_query(p, 0))) {
    s->select = parse_select(p);
    return s->select ? 0 : p->rc;
  }
  if (!is_kw(p, "VALUES")) {
    static const char *const c[] = {"VALUES", "SELECT", NULL};
    return fail_expected(p, "VALUES or SELECT", c);
  }
  next(p);
  int cap = 0;
  s->n_values = -1;
  do {
    if (expect(p, LM_TK_LPAREN, "'('"))
      return p->rc;
    lm_expr **row;
    int n;
    if (parse_expr_list(p, &row, &n, "',' or ')'"))
      return p->rc;
    if (s->n_values >= 0 && n != s->n_values) { /* PostgreSQL's wording */
      p->rc = lm_err_at(&p->err, LM_ERR_PARSE, row[0]->line, row[0]->column,
                        "VALUES lists must all be the same length");
      return fail_state(p, "42601");
    }
    s->n_values = n;
    if (!(s->rows = vec_grow(p, s->rows, s->n_rows, &cap, sizeof *s->rows)))
      return p->rc;
    s->rows[s->n_rows++] = row;
  } while (accept(p, LM_TK_COMMA));
  int nt = s->n_insert_columns, nv = s->n_values;
  if (s->insert_columns && nv > nt) { /* at the first extra value */
    p->rc = lm_err_at(&p->err, LM_ERR_PARSE, s->rows[0][nt]->line,
                      s->rows[0][nt]->column,
                      "INSERT has more expressions than target columns");
    return fail_state(p, "42601");
  }
  if (s->insert_columns && nv < nt) { /* at the first column without one */
    p->rc = lm_err_at(&p->err, LM_ERR_PARSE, s->insert_col_lines[nv],
                      s->insert_col_cols[nv],
                      "INSERT has more target columns than expressions");
    return fail_state(p, "42601");
  }
  return 0;
}

/* SOURCE[S] | STREAM[S] | MATERIALIZED VIEW[S] | SINK[S] | TABLE[S] |
 * VIEW[S]; singular (DROP) also INDEX. Returns 0, -1 for VIEW[S] (*out
 * LM_OBJ_MVIEW, a plain view), or the parse error. */
static int parse_object_kind(parser *p, bool plural, lm_object_kind *out) {
  if (accept_kw(p, plural ? "TABLES" : "TABLE")) {
    *out = LM_OBJ_TABLE;
    return 0;
  }
  if (!plural && accept_kw(p, "INDEX")) {
    *out = LM_OBJ_INDEX;
    return 0;
  }
  if (accept_kw(p, plural ? "VIEWS" : "VIEW")) {
    *out = LM_OBJ_MVIEW; /* the caller marks plain_view */
    return -1;
  }
  if (plural && accept_kw(p, "QUERIES")) {
    *out = LM_OBJ_QUERY;
    return 0;
  }
  static const char *const sing[] = {"SOURCE", "STREAM", "MATERIALIZED", "SINK",
                                     NULL};
  static const char *const plur[] = {"SOURCES", "STREAMS", "MATERIALIZED",
                                     "SINKS", NULL};
  const char *const *kws = plural ? plur : sing;
  if (accept_kw(p, kws[0])) {
    *out = LM_OBJ_SOURCE;
  } else if (accept_kw(p, kws[1])) {
    *out = LM_OBJ_STREAM;
  } else if (accept_kw(p, "MATERIALIZED")) {
    if (expect_kw(p, plural ? "VIEWS" : "VIEW"))
      return p->rc;
    *out = LM_OBJ_MVIEW;
  } else if (accept_kw(p, kws[3])) {
    *out = LM_OBJ_SINK;
  } else {
    return fail_expected(p,
                         plural ? "SOURCES, STREAMS, MATERIALIZED VIEWS, "
                                  "SINKS, TABLES or QUERIES"
                                : "SOURCE, STREAM, MATERIALIZED VIEW, SINK "
                                  "or TABLE",
                         kws);
  }
  return 0;
}

/* SET TIME ZONE INTERVAL 'text' [unit [TO unit]] (the current token is
 * INTERVAL): PostgreSQL's offset east of UTC, stored as a number of hours
 * (the form lm_tz_lookup reads; SET TIME ZONE -8 is the same zone).
 * Months or days are PostgreSQL's 22023 with its DETAIL. */
static int set_tz_interval(parser *p, lm_stmt *s) {
  next(p);
  const lm_token *v = cur(p), *u = NULL;
  next(p);
  if (is_interval_unit(cur(p))) {
    u = cur(p);
    next(p);
    if (accept_kw(p, "TO")) {
      if (!is_interval_unit(cur(p)))
        return fail_expected(p, "an interval unit (SECOND, MINUTE, HOUR, ...)",
                             NULL);
      next(p);
      u = NULL; /* 'H:MM' HOUR TO MINUTE: the text's own fields */
    }
  }
  lm_iv iv;
  int rc = lm_iv_parse(v->text, v->text_len, u ? u->start : NULL,
                       u ? u->len : 0, &iv);
  int vl = (int)(v->text_len > 200 ? 200 : v->text_len);
  if (rc) {
    fail_at(p, v,
            rc == -2 ? "interval field value out of range: \"%.*s\""
                     : "invalid input syntax for type interval: \"%.*s\"",
            vl, v->text);
    return fail_state(p, rc == -2 ? "22015" : "22007");
  }
  if (iv.months || iv.days) { /* PostgreSQL's check_timezone */
    char ivt[128];
    lm_iv_format(&iv, ivt);
    fail_at(p, v, "invalid value for parameter \"TimeZone\": \"INTERVAL '%s'\"",
            ivt);
    lm_err_detail(&p->err, "Cannot specify %s in time zone interval.",
                  iv.months ? "months" : "days");
    return fail_state(p, "22023");
  }
  /* hours whose product by 3600, truncated, gives back the seconds */
  int64_t sec = iv.us / LM_US_PER_SEC;
  double h = (double)sec / 3600.0;
  for (int i = 0; i < 8 && (int64_t)(h * 3600.0) != sec; i++)
    h = nextafter(h, sec < 0 ? -1e300 : 1e300);
  char buf[40];
  int n = snprintf(buf, sizeof buf, "%.17g", h);
  char *t = lm_arena_alloc(p->arena, (size_t)n + 1);
  if (!t)
    return oom(p);
  memcpy(t, buf, (size_t)n + 1);
  s->set_value = t;
  return 0;
}

/* SET [SESSION | LOCAL] TIME ZONE value | SET [SESSION | LOCAL] name {TO |
 * =} value | RESET name | RESET TIME ZONE (SET / RESET consumed); value: a
 * string, [+-]number, DEFAULT, LOCAL or a word. */
static int parse_set(parser *p, lm_stmt *s, bool reset) {
  if (!reset && !accept_kw(p, "SESSION"))
    accept_kw(p, "LOCAL");
  if (is_kw(p, "TIME") && lm_token_is_kw(peek(p, 1), "ZONE")) {
    next(p);
    next(p);
    s->name = "timezone";
    if (reset)
      return 0;
  } else {
    if (!(s->name = parse_name(p, "a setting name", NULL, NULL)))
      return p->rc;
    if (reset)
      return 0;
    if (!accept_kw(p, "TO") && !accept(p, LM_TK_EQ)) {
      static const char *const c[] = {"TO", NULL};
      return fail_expected(p, "TO or '='", c);
    }
  }
  const lm_token *v = cur(p);
  if (is_kw(p, "DEFAULT") || is_kw(p, "LOCAL")) {
    next(p);
    return 0;
  }
  if (is_kw(p, "INTERVAL") && peek(p, 1)->kind == LM_TK_STRING &&
      !strcmp(s->name, "timezone"))
    return set_tz_interval(p, s);
  if (v->kind == LM_TK_STRING) {
    s->set_value = v->text;
    next(p);
    return 0;
  }
  const char *sign = "";
  if (v->kind == LM_TK_MINUS || v->kind == LM_TK_PLUS) {
    sign = v->kind == LM_TK_MINUS ? "-" : "+";
    next(p);
    v = cur(p);
  }
  if (v->kind == LM_TK_INTEGER || v->kind == LM_TK_NUMBER ||
      (!*sign && v->kind == LM_TK_IDENT)) {
    size_t n = strlen(sign) + v->len;
    char *t = lm_arena_alloc(p->arena, n + 1);
    if (!t)
      return oom(p);
    snprintf(t, n + 1, "%s%.*s", sign, (int)v->len,
             v->kind == LM_TK_IDENT && v->text ? v->text : v->start);
    s->set_value = t;
    next(p);
    return 0;
  }
  return fail_expected(p, "a value (a string, a number, DEFAULT or LOCAL)",
                       NULL);
}

static const char *const stmt_kws[] = {
    "CREATE", "INSERT", "DROP",    "SHOW",    "DESCRIBE", "SELECT",
    "DELETE", "UPDATE", "EXPLAIN", "REINDEX", NULL};

static lm_stmt *parse_statement(parser *p);

/* One EXPLAIN option's boolean value ([TRUE|FALSE|ON|OFF|1|0], default
 * TRUE) into *on. */
static int explain_bool(parser *p, const lm_token *o, bool *on) {
  const lm_token *v = cur(p);
  *on = true;
  if (accept_kw(p, "FALSE") || accept_kw(p, "OFF"))
    *on = false;
  else if (accept_kw(p, "TRUE") || accept_kw(p, "ON"))
    *on = true;
  else if (v->kind == LM_TK_INTEGER && v->len == 1 &&
           (v->start[0] == '0' || v->start[0] == '1')) {
    *on = v->start[0] == '1';
    next(p);
  } else if (v->kind != LM_TK_COMMA && v->kind != LM_TK_RPAREN) {
    fail_at(p, v, "EXPLAIN option \"%.*s\" requires a Boolean value",
            (int)o->len, o->start);
    return fail_state(p, "22023");
  }
  return 0;
}

/* EXPLAIN [ANALYZE] [VERBOSE] | EXPLAIN (option [value], ...) as
 * PostgreSQL writes them, then a statement or the name of a stream or
 * view (EXPLAIN consumed; docs/explain.md). COSTS, BUFFERS, SETTINGS and
 * WAL are accepted and change nothing; an unknown option is PostgreSQL's
 * 42601 "unrecognized EXPLAIN option". */
static int parse_explain(parser *p, lm_stmt *s) {
  if (is_kind(p, LM_TK_LPAREN) && !starts_query(p, 0)) {
    next(p);
    bool timing_set = false, timing_on = true;
    do {
      static const char *const opts[] = {
          "ANALYZE", "VERBOSE",  "COSTS", "BUFFERS", "TIMING",
          "SUMMARY", "SETTINGS", "WAL",   "FORMAT",  NULL};
      const lm_token *o = cur(p);
      int k = -1;
      for (int i = 0; opts[i] && k < 0; i++)
        if (lm_token_is_kw(o, opts[i]) ||
            (i == 0 && lm_token_is_kw(o, "ANALYSE")))
          k = i;
      if (k < 0 && (o->kind == LM_TK_IDENT || is_name_token(o))) {
        char low[64];
        int ln = o->len < sizeof low - 1 ? (int)o->len : (int)sizeof low - 1;
        for (int i = 0; i < ln; i++)
          low[i] =
              (char)(o->start[i] >= 'A' && o->start[i] <= 'Z' ? o->start[i] + 32
                                                              : o->start[i]);
        fail_at(p, o, "unrecognized EXPLAIN option \"%.*s\"", ln, low);
        return fail_state(p, "42601");
      }
      if (k < 0)
        return fail_expected(p, "an EXPLAIN option", opts);
      next(p);
      if (k == 8) { /* FORMAT TEXT | JSON */
        const lm_token *v = cur(p);
        if (lm_token_is_kw(v, "TEXT") || lm_token_is_kw(v, "JSON")) {
          s->explain_json = lm_token_is_kw(v, "JSON");
          next(p);
          continue;
        }
        if (lm_token_is_kw(v, "XML") || lm_token_is_kw(v, "YAML")) {
          fail_at(p, v,
                  "EXPLAIN (FORMAT %.*s) is not supported: use FORMAT TEXT "
                  "or FORMAT JSON",
                  (int)v->len, v->start);
          return fail_state(p, "0A000");
        }
        fail_at(p, v,
                "unrecognized value for EXPLAIN option \"format\": "
                "\"%.*s\"",
                (int)v->len, v->start);
        return fail_state(p, "22023");
      }
      bool on = true;
      if (explain_bool(p, o, &on))
        return p->rc;
      if (k == 0)
        s->analyze = on;
      else if (k == 1)
        s->explain_verbose = on;
      else if (k == 4) {
        timing_set = true;
        timing_on = on;
        s->no_timing = !on;
      } else if (k == 5)
        s->explain_no_summary = !on;
    } while (accept(p, LM_TK_COMMA));
    if (expect(p, LM_TK_RPAREN, "')'"))
      return p->rc;
    if (timing_set && timing_on && !s->analyze) {
      fail_at(p, cur(p), "EXPLAIN option TIMING requires ANALYZE");
      return fail_state(p, "22023");
    }
  } else {
    if (accept_kw(p, "ANALYZE") || accept_kw(p, "ANALYSE"))
      s->analyze = true;
    if (accept_kw(p, "VERBOSE"))
      s->explain_verbose = true;
  }
  const lm_token *t = cur(p);
  if (lm_token_is_kw(t, "EXPLAIN"))
    return fail_at(p, t, "EXPLAIN cannot explain an EXPLAIN");
  if (is_name_token(t) &&
      (peek(p, 1)->kind == LM_TK_SEMI || peek(p, 1)->kind == LM_TK_EOF)) {
    s->name = parse_name(p, "a stream or view name", NULL, NULL);
    return s->name ? 0 : p->rc;
  }
  s->explain = parse_statement(p);
  return s->explain ? 0 : p->rc;
}

/* DELETE FROM name [WHERE expr] (DELETE consumed) */
static int parse_delete(parser *p, lm_stmt *s) {
  if (expect_kw(p, "FROM"))
    return p->rc;
  if (!(s->name =
            parse_name(p, "a table name", &s->name_line, &s->name_column)))
    return p->rc;
  if (accept_kw(p, "WHERE") && !(s->where = parse_expr(p)))
    return p->rc;
  return 0;
}

/* UPDATE name SET col = expr, ... [WHERE expr] (UPDATE consumed) */
static int parse_update(parser *p, lm_stmt *s) {
  if (!(s->name =
            parse_name(p, "a table name", &s->name_line, &s->name_column)))
    return p->rc;
  if (expect_kw(p, "SET"))
    return p->rc;
  int cap = 0, cap2 = 0, cap3 = 0, cap4 = 0, cap5 = 0;
  do {
    int line = 0, col = 0;
    bool q = cur(p)->kind == LM_TK_QIDENT;
    const char *c = parse_name(p, "a column name", &line, &col);
    if (!c)
      return p->rc;
    if (!(s->set_quoted = vec_grow(p, s->set_quoted, s->n_set, &cap5,
                                   sizeof *s->set_quoted)))
      return p->rc;
    s->set_quoted[s->n_set] = q;
    if (expect(p, LM_TK_EQ, "'='"))
      return p->rc;
    lm_expr *e = parse_expr(p);
    if (!e)
      return p->rc;
    if (!(s->set_columns = vec_grow(p, s->set_columns, s->n_set, &cap,
                                    sizeof *s->set_columns)) ||
        !(s->set_exprs = vec_grow(p, s->set_exprs, s->n_set, &cap2,
                                  sizeof *s->set_exprs)) ||
        !(s->set_lines = vec_grow(p, s->set_lines, s->n_set, &cap3,
                                  sizeof *s->set_lines)) ||
        !(s->set_cols =
              vec_grow(p, s->set_cols, s->n_set, &cap4, sizeof *s->set_cols)))
      return p->rc;
    s->set_columns[s->n_set] = c;
    s->set_exprs[s->n_set] = e;
    s->set_lines[s->n_set] = line;
    s->set_cols[s->n_set++] = col;
  } while (accept(p, LM_TK_COMMA));
  if (accept_kw(p, "WHERE") && !(s->where = parse_expr(p)))
    return p->rc;
  return 0;
}

static lm_stmt *parse_statement(parser *p) {
  const lm_token *t = cur(p);
  lm_stmt *s = NULL;
  if (lm_token_is_kw(t, "CREATE")) {
    next(p);
    static const char *const c[] = {"SOURCE", "STREAM", "MATERIALIZED", "SINK",
                                    "TABLE",  "INDEX",  "VIEW",         NULL};
    if (is_kw(p, "TABLE")) {
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_TABLE, t)) ||
          parse_create_source(p, s))
        return NULL;
    } else if (is_kw(p, "SOURCE")) {
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_SOURCE, t)) ||
          parse_create_source(p, s))
        return NULL;
    } else if (is_kw(p, "STREAM")) {
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_STREAM, t)) ||
          parse_create_query(p, s))
        return NULL;
    } else if (is_kw(p, "MATERIALIZED")) {
      next(p);
      if (expect_kw(p, "VIEW"))
        return NULL;
      if (!(s = new_stmt(p, LM_STMT_CREATE_MVIEW, t)) ||
          parse_create_query(p, s))
        return NULL;
    } else if (is_kw(p, "SINK")) {
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_SINK, t)) || parse_create_sink(p, s))
        return NULL;
    } else if (is_kw(p, "INDEX") ||
               (is_kw(p, "UNIQUE") && lm_token_is_kw(peek(p, 1), "INDEX"))) {
      bool unique = accept_kw(p, "UNIQUE");
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_INDEX, t)))
        return NULL;
      s->unique = unique;
      if (parse_create_index(p, s))
        return NULL;
    } else if (is_kw(p, "VIEW") || is_kw(p, "OR") ||
               ((is_kw(p, "TEMP") || is_kw(p, "TEMPORARY")) &&
                lm_token_is_kw(peek(p, 1), "VIEW"))) {
      /* CREATE [OR REPLACE] [TEMP] VIEW: a view (api/view.c decides
       * whether it is materialized; docs/views.md) */
      bool repl = false;
      if (accept_kw(p, "OR")) {
        if (expect_kw(p, "REPLACE"))
          return NULL;
        repl = true;
        if (is_kw(p, "TEMP") || is_kw(p, "TEMPORARY"))
          next(p);
        if (!is_kw(p, "VIEW")) {
          static const char *const v[] = {"VIEW", NULL};
          fail_expected(p, "VIEW", v);
          return NULL;
        }
      }
      if (!is_kw(p, "VIEW"))
        next(p);
      next(p);
      if (!(s = new_stmt(p, LM_STMT_CREATE_MVIEW, t)))
        return NULL;
      s->plain_view = true;
      s->or_replace = repl;
      if (parse_create_query(p, s))
        return NULL;
    } else {
      fail_expected(p,
                    "SOURCE, STREAM, [MATERIALIZED] VIEW, SINK, TABLE or "
                    "INDEX",
                    c);
      return NULL;
    }
  } else if (lm_token_is_kw(t, "DELETE")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_DELETE, t)) || parse_delete(p, s))
      return NULL;
  } else if (lm_token_is_kw(t, "UPDATE")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_UPDATE, t)) || parse_update(p, s))
      return NULL;
  } else if (lm_token_is_kw(t, "INSERT")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_INSERT, t)) || parse_insert(p, s))
      return NULL;
  } else if (lm_token_is_kw(t, "DROP")) {
    next(p);
    int k;
    if (!(s = new_stmt(p, LM_STMT_DROP, t)) ||
        (k = parse_object_kind(p, false, &s->object)) > 0)
      return NULL;
    s->plain_view = k < 0; /* DROP VIEW */
    if (is_kw(p, "IF")) {
      next(p);
      if (expect_kw(p, "EXISTS"))
        return NULL;
      s->if_exists = true;
    }
    if (!(s->name = parse_name(p, "a name", NULL, NULL)))
      return NULL;
    for (int cap = 0; accept(p, LM_TK_COMMA);) {
      const char *more = parse_name(p, "a name", NULL, NULL);
      if (!more || !(s->drop_more = vec_grow(p, s->drop_more, s->n_drop_more,
                                             &cap, sizeof *s->drop_more)))
        return NULL;
      s->drop_more[s->n_drop_more++] = more;
    }
    if (is_kw(p, "CASCADE")) {
      next(p);
      s->cascade = true;
    } else if (is_kw(p, "RESTRICT")) {
      next(p);
    }
  } else if (lm_token_is_kw(t, "REINDEX")) {
    /* REINDEX [(options)] INDEX | TABLE [CONCURRENTLY] name */
    next(p);
    if (!(s = new_stmt(p, LM_STMT_REINDEX, t)))
      return NULL;
    if (accept_kw(p, "INDEX")) {
      s->object = LM_OBJ_INDEX;
    } else if (accept_kw(p, "TABLE")) {
      s->object = LM_OBJ_TABLE;
    } else {
      static const char *const c[] = {"INDEX", "TABLE", NULL};
      fail_expected(p, "INDEX or TABLE", c);
      return NULL;
    }
    accept_kw(p, "CONCURRENTLY");
    if (!(s->name = parse_name(p, "a name", NULL, NULL)))
      return NULL;
  } else if (lm_token_is_kw(t, "SET") || lm_token_is_kw(t, "RESET")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_SET, t)) ||
        parse_set(p, s, lm_token_is_kw(t, "RESET")))
      return NULL;
  } else if (lm_token_is_kw(t, "SHOW") &&
             ((lm_token_is_kw(peek(p, 1), "TIME") &&
               lm_token_is_kw(peek(p, 2), "ZONE")) ||
              lm_token_is_kw(peek(p, 1), "TIMEZONE"))) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_SHOW_VAR, t)))
      return NULL;
    if (accept_kw(p, "TIME"))
      next(p); /* ZONE */
    else
      next(p); /* TIMEZONE */
    s->name = "timezone";
  } else if (lm_token_is_kw(t, "SHOW")) {
    next(p);
    int k;
    if (!(s = new_stmt(p, LM_STMT_SHOW, t)) ||
        (k = parse_object_kind(p, true, &s->object)) > 0)
      return NULL;
    s->plain_view = k < 0; /* SHOW VIEWS */
  } else if (lm_token_is_kw(t, "EXPLAIN")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_EXPLAIN, t)) || parse_explain(p, s))
      return NULL;
  } else if (lm_token_is_kw(t, "DESCRIBE") || lm_token_is_kw(t, "DESC")) {
    next(p);
    if (!(s = new_stmt(p, LM_STMT_DESCRIBE, t)) ||
        !(s->name = parse_name(p, "a name", NULL, NULL)))
      return NULL;
  } else if (lm_token_is_kw(t, "SELECT") || lm_token_is_kw(t, "WITH") ||
             lm_token_is_kw(t, "VALUES") ||
             (t->kind == LM_TK_LPAREN && starts_query(p, 0))) {
    if (!(s = new_stmt(p, LM_STMT_SELECT, t)) || !(s->select = parse_select(p)))
      return NULL;
  } else {
    fail_expected(p,
                  "a statement (CREATE, INSERT, DELETE, UPDATE, DROP, SHOW, "
                  "DESCRIBE, SELECT)",
                  stmt_kws);
    return NULL;
  }

  /* The statement must end here. */
  const lm_token *e = cur(p);
  if (e->kind != LM_TK_SEMI && e->kind != LM_TK_EOF) {
    switch (s->kind) {
    case LM_STMT_CREATE_SOURCE:
    case LM_STMT_CREATE_TABLE: {
      static const char *const c[] = {"FROM", "FORMAT", NULL};
      fail_expected(p, "FROM, FORMAT, ';' or end of input", c);
      break;
    }
    case LM_STMT_CREATE_SINK: {
      static const char *const c[] = {"INTO", "FORMAT", NULL};
      fail_expected(p, "INTO, FORMAT, ';' or end of input", c);
      break;
    }
    default:
      fail_expected(p, "';' or end of input", NULL);
    }
    return NULL;
  }
  /* Own text: first token .. last consumed token. */
  const lm_token *last = &p->toks[p->pos - 1];
  size_t a = t->offset, b = last->offset + last->len;
  char *text = lm_arena_strndup(p->arena, p->sql + a, b - a);
  if (!text) {
    oom(p);
    return NULL;
  }
  s->text = text;
  return s;
}

/* ------------------------------------------------------------ top level */

static int tokenize(parser *p) {
  lm_lexer lx;
  lm_lexer_init(&lx, p->sql, p->len, p->arena);
  size_t cap = 0;
  for (;;) {
    if (p->n_toks == cap) {
      size_t nc = cap ? cap * 2 : 64;
      lm_token *nt = realloc(p->toks, nc * sizeof *nt);
      if (!nt)
        return oom(p);
      p->toks = nt;
      cap = nc;
    }
    lm_token *t = &p->toks[p->n_toks];
    int rc = lm_lexer_next(&lx, t, &p->lexerr);
    if (rc == LM_ERR_NOMEM)
      return oom(p);
    p->n_toks++;
    if (rc || t->kind == LM_TK_EOF) {
      t->kind = rc ? LM_TK_ERROR : LM_TK_EOF;
      break;
    }
  }
  return 0;
}

/* See lm_sql.h. The returned script owns every node and string (one arena);
 * the caller frees it with lm_sql_script_free. Errors: LM_ERR_PARSE
 * (positioned), LM_ERR_NOMEM, LM_ERR_INVALID for NULL out or NULL sql with
 * len > 0. */
/* SQL text must be UTF-8 without NUL bytes (a NUL would silently end the
 * text for every C-string consumer). Reports the first bad byte's
 * line:column. */
static int check_text(const char *sql, size_t len, lm_error *err) {
  int line = 1, col = 1;
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)sql[i];
    size_t n = 1;
    if (c == 0)
      return lm_err_at(err, LM_ERR_PARSE, line, col, "NUL byte in SQL text");
    if (c >= 0x80) {
      uint32_t cp = 0;
      if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
      } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
      } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
      } else {
        n = 0;
      }
      bool ok = n > 0 && i + n <= len;
      for (size_t k = 1; ok && k < n; k++) {
        unsigned char d = (unsigned char)sql[i + k];
        if ((d & 0xC0) != 0x80)
          ok = false;
        cp = (cp << 6) | (d & 0x3F);
      }
      if (ok && ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
                 (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
        ok = false;
      if (!ok)
        return lm_err_at(err, LM_ERR_PARSE, line, col,
                         "invalid UTF-8 in SQL text (byte 0x%02X)", c);
    }
    if (c == '\n') {
      line++;
      col = 1;
    } else
      col++;
    i += n;
  }
  return 0;
}

int lm_sql_parse(const char *sql, size_t len, lm_sql_script **out,
                 lm_error *err) {
  if (out)
    *out = NULL;
  if (!out || (!sql && len))
    return lm_err(err, LM_ERR_INVALID, "lm_sql_parse: bad arguments");
  if (!sql)
    sql = "";
  int vrc = check_text(sql, len, err);
  if (vrc) { /* PostgreSQL: character_not_in_repertoire */
    lm_err_state(err, "22021");
    return vrc;
  }
  lm_sql_script *sc = calloc(1, sizeof *sc);
  if (!sc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_arena_init(&sc->arena, 0);
  parser p = {0};
  p.sql = sql;
  p.len = len;
  p.arena = &sc->arena;

  int cap = 0;
  if (tokenize(&p) == 0) {
    for (;;) {
      while (accept(&p, LM_TK_SEMI)) {
      }
      if (is_kind(&p, LM_TK_EOF))
        break;
      lm_stmt *s = parse_statement(&p);
      if (!s)
        break;
      lm_stmt **v = vec_grow(&p, sc->stmts, sc->n_stmts, &cap, sizeof *v);
      if (!v)
        break;
      sc->stmts = v;
      sc->stmts[sc->n_stmts++] = s;
    }
  }
  free(p.toks);
  if (p.rc) {
    /* PostgreSQL's syntax_error for every parse error that has no more
     * specific SQLSTATE (an unknown type 42704, a bad literal 22007, ...) */
    if (p.rc == LM_ERR_PARSE && !p.err.sqlstate[0])
      lm_err_state(&p.err, "42601");
    if (err)
      *err = p.err;
    lm_sql_script_free(sc);
    return p.rc;
  }
  *out = sc;
  return 0;
}

/* Frees a script from lm_sql_parse and everything it points to; NULL ok. */
void lm_sql_script_free(lm_sql_script *s) {
  if (!s)
    return;
  lm_arena_free(&s->arena);
  free(s);
}
