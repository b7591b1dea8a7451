/*
 * sql/sql_internal.h — the SQL lexer's token types (private to sql/).
 *
 * The lexer turns SQL text into tokens one at a time. Keywords are not
 * separate token kinds: an unquoted word is LM_TK_IDENT and the parser
 * compares its text case-insensitively, so that most keywords stay usable as
 * column names. Decoded text (identifiers lower-cased, quotes and escapes
 * removed) is allocated in the caller's arena.
 */
#ifndef LM_SQL_INTERNAL_H
#define LM_SQL_INTERNAL_H

#include "sql/lm_sql.h"

typedef enum lm_token_kind {
  LM_TK_EOF = 0,
  LM_TK_ERROR,   /* the lexer failed here; the error is in the lexer */
  LM_TK_IDENT,   /* unquoted word; text = lower-cased */
  LM_TK_QIDENT,  /* "quoted identifier"; text = contents, "" unescaped */
  LM_TK_STRING,  /* 'string'; text = contents, '' unescaped; also E'..'
                  * (backslash escapes decoded) and U&'..' (\XXXX) */
  LM_TK_INTEGER, /* digits only; text = as written */
  LM_TK_NUMBER,  /* digits with '.' and/or exponent; text = as written */
  LM_TK_LPAREN,
  LM_TK_RPAREN,
  LM_TK_COMMA,
  LM_TK_SEMI,
  LM_TK_DOT,
  LM_TK_STAR,
  LM_TK_PLUS,
  LM_TK_MINUS,
  LM_TK_SLASH,
  LM_TK_PERCENT,
  LM_TK_EQ,           /* = or == */
  LM_TK_NE,           /* <> or != */
  LM_TK_LT,           /* < */
  LM_TK_LE,           /* <= */
  LM_TK_GT,           /* > */
  LM_TK_GE,           /* >= */
  LM_TK_CONCAT,       /* || */
  LM_TK_COLON2,       /* :: */
  LM_TK_ARROW,        /* => (named arguments; not used by the grammar yet) */
  LM_TK_TILDE,        /* ~ (regular expression match) */
  LM_TK_TILDE_STAR,   /* ~* */
  LM_TK_NTILDE,       /* !~ */
  LM_TK_NTILDE_STAR,  /* !~* */
  LM_TK_JSON_ARROW,   /* -> */
  LM_TK_JSON_ARROW2,  /* ->> */
  LM_TK_CARET,        /* ^ (exponentiation) */
  LM_TK_AMP,          /* & (bitwise and) */
  LM_TK_BAR,          /* | (bitwise or) */
  LM_TK_HASH,         /* # (bitwise xor) */
  LM_TK_SHL,          /* << */
  LM_TK_SHR,          /* >> */
  LM_TK_LBRACKET,     /* [ (array subscripts, ARRAY[...]) */
  LM_TK_RBRACKET,     /* ] */
  LM_TK_COLON,        /* : (array slices a[1:2]) */
  LM_TK_CONTAINS,     /* @> (array contains) */
  LM_TK_CONTAINED,    /* <@ (array is contained by) */
  LM_TK_OVERLAP,      /* && (arrays overlap) */
  LM_TK_HASH_ARROW,   /* #> (jsonb path) */
  LM_TK_HASH_ARROW2,  /* #>> */
  LM_TK_QUESTION,     /* ? (jsonb key exists) */
  LM_TK_QUESTION_BAR, /* ?| */
  LM_TK_QUESTION_AMP, /* ?& */
  LM_TK_HASH_MINUS,   /* #- (jsonb delete path) */
} lm_token_kind;

typedef struct lm_token {
  lm_token_kind kind;
  int line, column;  /* 1-based position of the first byte */
  size_t offset;     /* byte offset of the first byte in the SQL text */
  size_t len;        /* bytes of source text the token spans */
  const char *start; /* = sql + offset */
  const char *text;  /* decoded text (see lm_token_kind), arena-owned;
                        NULL for punctuation and EOF */
  size_t text_len;   /* strlen(text) unless text holds a NUL byte */
} lm_token;

typedef struct lm_lexer {
  const char *sql;
  size_t len;
  size_t pos;
  int line, column;
  lm_arena *arena;
} lm_lexer;

/* Sets up a lexer over sql[0..len) (not necessarily NUL-terminated); decoded
 * token text is allocated in `arena`, which must outlive the tokens. */
void lm_lexer_init(lm_lexer *lx, const char *sql, size_t len, lm_arena *arena);

/* Reads the next token into *tok, skipping whitespace and comments. At the
 * end of the text returns 0 with tok->kind = LM_TK_EOF (repeatedly). On bad
 * input (unterminated string, quoted identifier or comment, malformed
 * number, unexpected character) returns LM_ERR_PARSE with err set to
 * "line:column: reason" at the offending token's first byte and
 * tok->kind = LM_TK_ERROR; LM_ERR_NOMEM when the arena is exhausted. */
int lm_lexer_next(lm_lexer *lx, lm_token *tok, lm_error *err);

/* Case-insensitive match of an unquoted word token against an upper-case
 * keyword. Quoted identifiers never match keywords. */
bool lm_token_is_kw(const lm_token *t, const char *kw);

/* The value of a LIMIT / OFFSET / FETCH FIRST count expression e (what:
 * "LIMIT" or "OFFSET", for messages), folded as PostgreSQL evaluates it
 * (limit_fold.c): *is_null for NULL, else *out (possibly negative: the
 * caller checks the sign). Returns 0, or an error with err set at the
 * offending node: 42P10 for a column, 22003 / 22012 / 22P02 for bad
 * arithmetic or text, 0A000 for expressions it cannot fold (functions,
 * subqueries). */
int lm_sql_fold_count(const lm_expr *e, const char *what, bool *is_null,
                      int64_t *out, lm_error *err);
/* Whether count expression e is computed when the query runs instead
 * (`LIMIT (SELECT ...)`, api/select_limit.c): it holds a subquery and no
 * column outside one (a column stays lm_sql_fold_count's 42P10). */
bool lm_sql_count_deferred(const lm_expr *e);

/* sql/row_expr.c: row constructors (`ROW(a, b)`, `(a, b)`: a FUNC named
 * "row") in comparisons. lm_sql_is_row: whether e is one.
 * lm_sql_row_expand: *e (a comparison, BETWEEN, IS [NOT] NULL, IN list
 * or IN / ANY / ALL subquery the parser just built) rewritten into scalar
 * comparisons with
 * PostgreSQL's row semantics when an operand is a row; unchanged
 * otherwise. lm_sql_row_distinct: l IS [NOT] DISTINCT FROM r for rows
 * (*out). Nodes in arena a; errors (42601 unequal row sizes or subquery
 * width, 42883 a row against a non-row, 0A000, LM_ERR_NOMEM) in *err with
 * a position. */
bool lm_sql_is_row(const lm_expr *e);
int lm_sql_row_expand(lm_arena *a, lm_expr **e, lm_error *err);
int lm_sql_row_distinct(lm_arena *a, lm_expr *l, lm_expr *r, bool not,
                        lm_expr **out, lm_error *err);

/* json_each / json_each_text (jsonb_ too) in FROM item f (a FUNCTION)
 * split into their key and value halves, columns named key and value
 * (sql/srf_expand.c); f's arrays are replaced by copies in arena a.
 * Returns 0, LM_ERR_NOMEM. */
int lm_sql_srf_expand(lm_arena *a, lm_from *f);

#endif
