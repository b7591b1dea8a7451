/*
 * format/lm_toml.h — a TOML 1.0.0 reader (https://toml.io/en/v1.0.0) for
 * laminardb.toml, plus ${VAR} expansion for configuration text.
 *
 * The reader parses a whole document into a tree of lm_toml_value nodes and
 * reports the first error as "line:column: reason" (LM_ERR_PARSE). What it
 * accepts, by section of the TOML 1.0.0 specification:
 *  - Spec / Comment / Whitespace / Newline: UTF-8 only (validated; a BOM at
 *    the very start is skipped), LF or CRLF, '#' comments without control
 *    characters;
 *  - Keys: bare, basic-quoted and literal-quoted keys, dotted keys with
 *    whitespace around the dots; defining a key twice is an error;
 *  - String: basic (escapes \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX),
 *    multi-line basic (leading newline trimmed, line-ending backslash),
 *    literal and multi-line literal;
 *  - Integer: decimal with sign, 0x / 0o / 0b, underscores between digits,
 *    range-checked to int64;
 *  - Float: fraction and/or exponent, underscores, inf / nan with sign;
 *  - Boolean;
 *  - Offset Date-Time, Local Date-Time, Local Date, Local Time: validated
 *    (calendar, leap years, ranges) and kept as LM_TOML_DATETIME with its
 *    fields and a normalised text form;
 *  - Array (mixed types, newlines, comments, trailing comma);
 *  - Table ([a.b] headers, implicit super-tables, no redefinition, no
 *    extension through dotted keys of header-defined tables);
 *  - Inline Table (single line, sealed once closed);
 *  - Array of Tables ([[a.b]], no appending to static arrays).
 * Limits: nesting deeper than LM_TOML_MAX_DEPTH is an LM_ERR_LIMIT error.
 */
#ifndef LM_TOML_H
#define LM_TOML_H

#include "base/lm_base.h"

#define LM_TOML_MAX_DEPTH 128

typedef enum lm_toml_kind {
  LM_TOML_TABLE = 0,
  LM_TOML_ARRAY,
  LM_TOML_STRING,
  LM_TOML_INT,
  LM_TOML_FLOAT,
  LM_TOML_BOOL,
  LM_TOML_DATETIME,
} lm_toml_kind;

/* Which of the four TOML date/time forms a DATETIME value is. */
typedef enum lm_toml_dt_kind {
  LM_TOML_DT_OFFSET = 0, /* 1979-05-27T07:32:00Z, ...-07:00 */
  LM_TOML_DT_LOCAL,      /* 1979-05-27T07:32:00 */
  LM_TOML_DT_DATE,       /* 1979-05-27 */
  LM_TOML_DT_TIME,       /* 07:32:00 */
} lm_toml_dt_kind;

typedef struct lm_toml_datetime {
  lm_toml_dt_kind kind;
  int year, month, day;     /* 0 for LM_TOML_DT_TIME */
  int hour, minute, second; /* 0 for LM_TOML_DT_DATE; second may be 60 */
  int nanosecond;           /* fraction, truncated to 9 digits */
  int offset_minutes;       /* LM_TOML_DT_OFFSET only; Z = 0 */
} lm_toml_datetime;

typedef struct lm_toml_value lm_toml_value;

/* One key of a table. `key` is NUL-terminated but may also contain NUL
 * bytes (from \u0000 in a quoted key): `key_len` is authoritative. */
typedef struct lm_toml_entry {
  char *key;
  size_t key_len;
  lm_toml_value *value;
} lm_toml_entry;

/* A node of the tree. Everything reachable from a root is owned by it and
 * freed by lm_toml_free(root). */
struct lm_toml_value {
  lm_toml_kind kind;
  int line, column; /* where the value (or table header) starts, 1-based */
  int depth;        /* nesting: the root table is 0 */
  unsigned flags;   /* parser bookkeeping (implicit/dotted/inline...) */
  union {
    /* STRING: UTF-8, NUL-terminated, may contain NUL (use len). DATETIME:
     * also carries its text, normalised (separator 'T', 'Z' upper-case,
     * otherwise as written) in `str`. */
    struct {
      char *ptr;
      size_t len;
    } str;
    int64_t i; /* INT */
    double f;  /* FLOAT */
    bool b;    /* BOOL */
    struct {   /* TABLE: entries in definition order */
      lm_toml_entry *entries;
      size_t len, cap;
      uint32_t *index; /* hash index (private) */
      size_t index_cap;
    } table;
    struct { /* ARRAY */
      lm_toml_value **items;
      size_t len, cap;
    } array;
  } u;
  lm_toml_datetime dt; /* DATETIME */
};

/* Parses a TOML document of `len` bytes (need not be NUL-terminated).
 * On success *out is the root table, owned by the caller (lm_toml_free).
 * Errors: LM_ERR_PARSE with err->line/column and a message
 * "line:column: reason" (e.g. "3:7: duplicate key 'bind'"), LM_ERR_LIMIT
 * (nesting), LM_ERR_NOMEM. *out is NULL on failure. */
int lm_toml_parse(const char *text, size_t len, lm_toml_value **out,
                  lm_error *err);

/* Reads and parses a file; error messages are prefixed with the path
 * ("laminardb.toml:3:7: ..."). Errors as lm_toml_parse, plus LM_ERR_IO. */
int lm_toml_parse_file(const char *path, lm_toml_value **out, lm_error *err);

/* Frees a tree returned by lm_toml_parse (NULL is fine). */
void lm_toml_free(lm_toml_value *v);

/* Looks up a value by a dotted key path written in TOML key syntax:
 * "server.bind", "sources.\"my.source\".path" (bare or quoted parts,
 * whitespace around dots allowed). Descends through tables only. Returns a
 * pointer borrowed from `root`, or NULL when absent or the path is
 * malformed. */
const lm_toml_value *lm_toml_get(const lm_toml_value *root, const char *path);

/* One key of a table (exact bytes); NULL when absent or t is not a table. */
const lm_toml_value *lm_toml_table_get(const lm_toml_value *t, const char *key,
                                       size_t key_len);

/* Typed getters over lm_toml_get: return `dflt` when the path is absent and
 * set *ok = false (if ok is non-NULL) when it exists with another kind.
 * The string is borrowed from root. */
const char *lm_toml_get_string(const lm_toml_value *root, const char *path,
                               const char *dflt, bool *ok);
int64_t lm_toml_get_int(const lm_toml_value *root, const char *path,
                        int64_t dflt, bool *ok);
bool lm_toml_get_bool(const lm_toml_value *root, const char *path, bool dflt,
                      bool *ok);

/* Lower-case name of a kind ("table", "string", ...; static string). */
const char *lm_toml_kind_name(lm_toml_kind k);

/* Expands ${NAME} references in `in` (len bytes) from the process
 * environment into `out` (appended; out must be initialised). NAME is
 * [A-Za-z_][A-Za-z0-9_]*. "$${" is a literal "${"; a '$' not followed by
 * '{' is kept as is. Errors (LM_ERR_INVALID, message "line:column: ..."):
 * an unset variable (the message names it), an unterminated "${" or a
 * malformed name. LM_ERR_NOMEM when out cannot grow. */
int lm_env_expand(const char *in, size_t len, lm_buf *out, lm_error *err);

#endif
