/*
 * tests/slt_runner.c — SQL logic test runner for Laminar (docs/slt.md).
 *
 *   slt_runner [--engine NAME] [--verbose] [--quiet] FILE.slt...
 *
 * Each file runs against a fresh in-memory database (include/laminar.h),
 * record by record, top to bottom. A record is a directive line followed,
 * for some directives, by more lines up to a blank line:
 *
 *   # a comment (a line starting with '#')
 *
 *   statement ok                      SQL (any number of lines) must succeed
 *   CREATE SOURCE ...
 *
 *   statement error <substring>       SQL must fail; the error message must
 *   SELECT nope                       contain <substring> (if given)
 *
 *   query <types> [nosort|rowsort|valuesort] [label]
 *   SELECT a, b FROM v
 *   ----
 *   1 hello                           one row per line, values separated by
 *   2 NULL                            one space; NULL for SQL NULL, (empty)
 *                                     for the empty string
 *
 *     <types> has one letter per result column (the count must match):
 *     I integer, T text, R real (compared with relative tolerance 1e-9),
 *     B boolean, S timestamp. nosort (default) compares in order, rowsort
 *     sorts both sides' rows first, valuesort sorts individual values.
 *     `query error <substring>` is the same as statement error.
 *
 *   subscribe <name>                  start collecting what stream/view
 *                                     <name> emits from now on
 *   emitted <name> [rowsort|nosort]   the rows <name> emitted since the last
 *   ----                              `emitted <name>` (or since subscribe);
 *   2001-01-01T00:00:00 LAS 3         default rowsort; an empty expectation
 *                                     (or no ---- at all) = nothing emitted.
 *                                     Column types come from the result.
 *   watermark <source> <timestamp>    laminar_advance_watermark; timestamp
 *                                     as YYYY-MM-DD[ T]HH:MM:SS[.f][Z|+hh:mm]
 *                                     (UTC if no offset) or integer µs
 *   end <source>                      laminar_end_source
 *   advance_time <n><us|ms|s|m|h|d>   laminar_advance_time (processing time)
 *   push <source>                     CSV rows (first line: column names),
 *   ts,origin,delay                   up to a blank line, run as
 *   2001-01-01T00:01:00Z,LAS,3        INSERT INTO source (cols) VALUES ...:
 *                                     empty field -> NULL; a number stays a
 *                                     number; true/false -> TRUE/FALSE;
 *                                     YYYY-MM-DD[ T]HH:MM... -> TIMESTAMP
 *                                     '...'; anything else, and any "quoted"
 *                                     field, -> a string literal
 *   notice [<substring>]              the notices (laminar_notices) of the
 *                                     previous record's call contain
 *                                     <substring>; without one: there were
 *                                     none
 *   halt                              stop running this file
 *
 * Compatibility with SQLite's sqllogictest format: `skipif <engine>` /
 * `onlyif <engine>` lines before a record (this runner is engine
 * "postgresql" and "laminar"; --engine adds another name),
 * `hash-threshold N` (accepted), expected results written one value per
 * line, and `N values hashing to <md5>`.
 *
 * Corpus mode (docs/slt.md "Corpus mode"):
 *
 *   slt_runner --sqllogictest [--engine NAME] [--show N] [--failures TSV]
 *              [--record-timeout-ms MS] [--resume-after LINE] FILE.test...
 *
 * runs SQLite's sqllogictest corpus as SQLite's runner does: engine
 * "postgresql" only (or NAME), values printed as SQLite's driver prints them
 * (slt_format), rowsort / valuesort on those strings, results compared
 * value by value or by their MD5 digest, labels cross-checked
 * (check_corpus); per file the counts and the first N failures. A record
 * running over MS ms ends the process with status 3 after printing the
 * counts so far (MS of CPU time, not wall time); --resume-after continues
 * the file after that record
 * (tests/sqllogictest/run.sh drives both).
 *
 * Single-line directives (subscribe, watermark, end, halt, hash-threshold)
 * need no blank line after them. A failing record prints FILE:LINE, the SQL
 * and expected vs got; the run goes on. Exit status: 0 if every record
 * passed (skipped ones do not count), 1 if any failed, 2 on usage or I/O
 * errors, 3 when a record ran over --record-timeout-ms.
 */
#include "base/lm_md5.h"
#include "laminar.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* --quiet: only per-file summaries are printed */
static bool g_quiet;
/* set while the details of a failure beyond --show N are being dropped */
static bool g_mute;
#define say(...) ((void)(g_quiet || g_mute ? 0 : printf(__VA_ARGS__)))

/* ------------------------------------------------------------ utilities */

/* laminar_execute, with the error's DETAIL (laminar_error.detail) appended
 * to its message as psql shows it ("...\nDETAIL:  Key (a)=(1) already
 * exists."), so `statement error <substring>` can match either. */
static int exec_sql(laminar_db *db, const char *sql, laminar_result **res,
                    laminar_error *err) {
  int rc = laminar_execute(db, sql, res, err);
  if (rc && err->detail[0]) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, "\nDETAIL:  %s",
             err->detail);
  }
  if (rc && err->hint[0]) { /* (a syntax error's "expected X, found Y") */
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, "\nHINT:  %s",
             err->hint);
  }
  return rc;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "slt_runner: out of memory\n");
    exit(2);
  }
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fprintf(stderr, "slt_runner: out of memory\n");
    exit(2);
  }
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *d = xmalloc(n + 1);
  memcpy(d, s, n + 1);
  return d;
}

/* growable string */
typedef struct {
  char *s;
  size_t len, cap;
} str;

static void str_addn(str *b, const char *p, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->s = xrealloc(b->s, b->cap);
  }
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
}
static void str_add(str *b, const char *p) {
  str_addn(b, p, strlen(p));
}
static void str_addf(str *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void str_addf(str *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof tmp) {
    str_addn(b, tmp, (size_t)n);
    return;
  }
  char *big = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  str_addn(b, big, (size_t)n);
  free(big);
}
static const char *str_cstr(str *b) {
  return b->s ? b->s : "";
}

/* a list of strings */
typedef struct {
  char **v;
  size_t n, cap;
} strlist;

static void list_push(strlist *l, char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = xrealloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = s;
}
static void list_free(strlist *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}
static int cmp_strp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_blank(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return *s == '\0';
}

/* Splits a line on runs of spaces/tabs into at most max tokens; the last
 * token takes the rest of the line. Returns the token count. */
static int split_ws(const char *line, char **tok, int max, char *buf,
                    size_t cap) {
  snprintf(buf, cap, "%s", line);
  int n = 0;
  char *p = buf;
  while (*p && n < max) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p)
      break;
    tok[n++] = p;
    if (n == max)
      break;
    while (*p && *p != ' ' && *p != '\t')
      p++;
    if (*p)
      *p++ = '\0';
  }
  if (n > 0) { /* trim the trailing blanks of the last token */
    char *e = tok[n - 1] + strlen(tok[n - 1]);
    while (e > tok[n - 1] && (e[-1] == ' ' || e[-1] == '\t'))
      *--e = '\0';
  }
  return n;
}

/* ------------------------------------------------------- the file & run */

typedef struct sub_entry {
  char *name;
  laminar_subscription *sub;
} sub_entry;

typedef struct runner {
  const char *path;
  char **lines;
  size_t nlines;
  size_t i; /* next line */
  laminar_db *db;
  sub_entry *subs;
  size_t nsubs;
  const char *engine;
  bool verbose;
  int passed, failed, skipped;
  bool halted;
  /* --sqllogictest (corpus mode, docs/slt.md) */
  bool corpus;
  int show;                    /* failures shown in full per file; -1: all */
  strlist labels, hashes;      /* label -> "N values hashing to ..." */
  FILE *tsv;                   /* --failures FILE: one line per failure */
  long long record_timeout_ms; /* --record-timeout-ms: 0 = none */
  size_t resume_after;         /* --resume-after LINE: 0 = none */
  const char *cur_sql;         /* SQL of the record being run, for tsv */
  size_t pend_line;            /* a failure not yet written to tsv (0: none) */
  char pend_what[256], pend_err[512], pend_sql[256];
} runner;

static bool read_lines(runner *R) {
  FILE *f = fopen(R->path, "rb");
  if (!f) {
    fprintf(stderr, "slt_runner: %s: %s\n", R->path, strerror(errno));
    return false;
  }
  str all = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    str_addn(&all, chunk, n);
  fclose(f);
  size_t cap = 0;
  char *p = all.s ? all.s : "";
  char *end = p + all.len;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *e = nl ? nl : end;
    size_t len = (size_t)(e - p);
    if (len > 0 && p[len - 1] == '\r')
      len--;
    char *line = xmalloc(len + 1);
    memcpy(line, p, len);
    line[len] = '\0';
    if (R->nlines == cap) {
      cap = cap ? cap * 2 : 256;
      R->lines = xrealloc(R->lines, cap * sizeof *R->lines);
    }
    R->lines[R->nlines++] = line;
    p = nl ? nl + 1 : end;
  }
  free(all.s);
  return true;
}

/* Collects lines from R->i up to a blank line (consumed) or `stop` (a line
 * equal to stop, consumed; *hit set). */
static void take_block(runner *R, const char *stop, strlist *out, bool *hit) {
  if (hit)
    *hit = false;
  while (R->i < R->nlines) {
    const char *l = R->lines[R->i];
    if (is_blank(l)) {
      R->i++;
      return;
    }
    R->i++;
    if (stop && strcmp(l, stop) == 0) {
      if (hit)
        *hit = true;
      return;
    }
    list_push(out, xstrdup(l));
  }
}

static char *join_lines(const strlist *l) {
  str b = {0};
  for (size_t i = 0; i < l->n; i++) {
    if (i)
      str_add(&b, "\n");
    str_add(&b, l->v[i]);
  }
  return b.s ? b.s : xstrdup("");
}

/* Writes the pending failure to the --failures file: FILE, LINE, reason,
 * error message (may be empty) and the first line of the SQL, tab
 * separated (tabs and newlines inside fields become spaces). */
static void flush_failure(runner *R) {
  if (!R->pend_line || !R->tsv) {
    R->pend_line = 0;
    return;
  }
  for (char *p = R->pend_err; *p; p++)
    if (*p == '\t' || *p == '\n')
      *p = ' ';
  fprintf(R->tsv, "%s\t%zu\t%s\t%s\t%s\n", R->path, R->pend_line, R->pend_what,
          R->pend_err, R->pend_sql);
  fflush(R->tsv);
  R->pend_line = 0;
}

static void fail_header(runner *R, size_t line, const char *what) {
  flush_failure(R);
  R->failed++;
  R->pend_line = line;
  snprintf(R->pend_what, sizeof R->pend_what, "%s", what);
  R->pend_err[0] = '\0';
  /* the first line of the record's SQL */
  snprintf(R->pend_sql, sizeof R->pend_sql, "%s", R->cur_sql ? R->cur_sql : "");
  R->pend_sql[strcspn(R->pend_sql, "\n")] = '\0';
  for (char *p = R->pend_sql; *p; p++)
    if (*p == '\t')
      *p = ' ';
  g_mute = R->show >= 0 && R->failed > R->show;
  say("FAIL %s:%zu: %s\n", R->path, line, what);
}

/* The engine's error message for the failure just reported. */
static void fail_error(runner *R, const char *msg) {
  snprintf(R->pend_err, sizeof R->pend_err, "%.500s", msg ? msg : "");
  say("  error: %s\n", msg ? msg : "");
}

static void print_sql(const char *sql) {
  say("  sql:\n");
  const char *p = sql;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    say("    %.*s\n", (int)n, p);
    if (!e)
      break;
    p = e + 1;
  }
}

static void print_rows(const char *title, char **rows, size_t n) {
  say("  %s (%zu row%s):\n", title, n, n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++)
    say("    %s\n", rows[i]);
}

/* ------------------------------------------------------ result handling */

/* Type letter of a result column from its SQL type name. */
static char type_letter(const char *t) {
  if (!t)
    return 'T';
  char up[64];
  size_t i = 0;
  for (; t[i] && i < sizeof up - 1; i++)
    up[i] = (char)toupper((unsigned char)t[i]);
  up[i] = '\0';
  if (strstr(up, "INT"))
    return 'I';
  if (strstr(up, "DOUBLE") || strstr(up, "REAL") || strstr(up, "FLOAT") ||
      strstr(up, "DECIMAL") || strstr(up, "NUMERIC"))
    return 'R';
  if (strstr(up, "BOOL"))
    return 'B';
  if (strstr(up, "TIMESTAMP") || strstr(up, "DATE") || strstr(up, "TIME"))
    return 'S';
  return 'T';
}

/* A result's rows as text values (row-major, nrows * ncols). */
typedef struct {
  int ncols;
  size_t nrows;
  char **vals; /* owned strings */
  char *types; /* one letter per column */
} table;

static void table_free(table *t) {
  for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
    free(t->vals[i]);
  free(t->vals);
  free(t->types);
  memset(t, 0, sizeof *t);
}

/* sqllogictest's text of one value, as SQLite's reference driver
 * (slt_sqlite.c) prints it. v is the engine's text of the value, NULL for
 * SQL NULL. NULL -> "NULL"; otherwise by the column's type letter:
 *   I  the value as a 64-bit integer, "%lld": an integer as is, a real
 *      truncated toward zero (clamped to the int64 range, NaN -> 0), text
 *      read as its leading number (0 if none), true/false -> 1/0;
 *   R  the value as a double, "%.3f" (negative zero prints as 0.000, as
 *      SQLite's printf does; true/false -> 1.000/0.000);
 *   T  the text, "(empty)" for the empty string, every byte outside
 *      ' '..'~' replaced by '@'.
 * Returns a malloc'd string (the caller frees it). */
static char *slt_format(const char *v, char letter) {
  if (!v)
    return xstrdup("NULL");
  char buf[64];
  if (letter == 'I' || letter == 'R') {
    bool is_bool = strcmp(v, "true") == 0 || strcmp(v, "false") == 0;
    double d = is_bool ? (v[0] == 't' ? 1.0 : 0.0) : strtod(v, NULL);
    if (letter == 'I') {
      char *end;
      errno = 0;
      long long ll = strtoll(v, &end, 10);
      if (is_bool)
        ll = v[0] == 't';
      else if (end == v || *end != '\0' || errno != 0) /* not an integer */
        ll = isnan(d)                      ? 0
             : d >= 9223372036854775807.0  ? LLONG_MAX
             : d <= -9223372036854775808.0 ? LLONG_MIN
                                           : (long long)d;
      snprintf(buf, sizeof buf, "%lld", ll);
    } else {
      if (d == 0)
        d = 0; /* -0.0 -> 0.0 */
      snprintf(buf, sizeof buf, "%.3f", d);
    }
    return xstrdup(buf);
  }
  if (!v[0])
    return xstrdup("(empty)");
  char *c = xstrdup(v);
  for (char *p = c; *p; p++)
    if ((unsigned char)*p < ' ' || (unsigned char)*p > '~')
      *p = '@';
  return c;
}

/* Converts a result into a table. With slt_types (one letter I/T/R per
 * column, as many as the result has columns) every value is formatted by
 * slt_format; otherwise values keep the engine's text, with "NULL" for SQL
 * NULL and "(empty)" for the empty string, and the column letters come
 * from the result's types. r may be NULL (no rows, no columns). */
static void table_from_result(laminar_result *r, const char *slt_types,
                              table *t) {
  memset(t, 0, sizeof *t);
  if (!r) {
    t->types = xstrdup("");
    return;
  }
  t->ncols = laminar_result_num_columns(r);
  int64_t nrows = laminar_result_num_rows(r);
  t->nrows = nrows > 0 ? (size_t)nrows : 0;
  if (slt_types && (int)strlen(slt_types) != t->ncols)
    slt_types = NULL;
  t->types = xmalloc((size_t)t->ncols + 1);
  for (int c = 0; c < t->ncols; c++)
    t->types[c] = slt_types ? slt_types[c]
                            : type_letter(laminar_result_column_type(r, c));
  t->types[t->ncols] = '\0';
  t->vals = xmalloc(t->nrows * (size_t)t->ncols * sizeof *t->vals);
  for (size_t row = 0; row < t->nrows; row++)
    for (int c = 0; c < t->ncols; c++) {
      const char *v = laminar_result_value_text(r, (int64_t)row, c);
      char **dst = &t->vals[row * (size_t)t->ncols + (size_t)c];
      if (slt_types)
        *dst = slt_format(v, slt_types[c]);
      else
        *dst = xstrdup(!v ? "NULL" : v[0] ? v : "(empty)");
    }
}

static bool parse_number(const char *s, double *out) {
  if (!*s)
    return false;
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (*end != '\0')
    return false;
  *out = d;
  return true;
}

/* A native-mode table value ("NULL" / "(empty)" stand for SQL NULL and the
 * empty string) in sqllogictest's format (slt_format). Malloc'd. */
static char *table_value_slt(const char *v, char letter) {
  if (strcmp(v, "NULL") == 0)
    return slt_format(NULL, letter);
  if (strcmp(v, "(empty)") == 0)
    return slt_format("", letter);
  /* native letters B and S are text to sqllogictest */
  return slt_format(v, letter == 'I' || letter == 'R' ? letter : 'T');
}

/* Native-mode display of a value: I columns given as reals print as
 * integers; everything else as the engine printed it. Malloc'd. */
static char *native_canonical(const char *v, char letter) {
  double d;
  if (letter == 'I' && strpbrk(v, ".eE") && parse_number(v, &d) &&
      fabs(d) < 9.2e18)
    return slt_format(v, 'I');
  return xstrdup(v);
}

/* Does the actual value match the expected text for a column letter? */
static bool value_matches(const char *got, const char *want, char letter) {
  if (strcmp(got, want) == 0)
    return true;
  if (letter != 'R' && letter != 'I')
    return false;
  double g, w;
  if (!parse_number(got, &g) || !parse_number(want, &w))
    return false;
  if (letter == 'I')
    return g == w;
  if (isnan(g) && isnan(w))
    return true;
  if (g == w)
    return true;
  double scale = fmax(fabs(g), fabs(w));
  if (fabs(g - w) <= 1e-9 * scale)
    return true;
  /* sqllogictest prints reals with 3 decimals */
  const char *dot = strchr(want, '.');
  if (dot && strlen(dot + 1) == 3 && !strpbrk(want, "eE")) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", g);
    if (strcmp(buf, want) == 0)
      return true;
  }
  return false;
}

typedef enum { SORT_NONE, SORT_ROWS, SORT_VALUES } sortmode;

static char *row_text(const table *t, size_t row) {
  str b = {0};
  for (int c = 0; c < t->ncols; c++) {
    if (c)
      str_add(&b, " ");
    str_add(&b, t->vals[row * (size_t)t->ncols + (size_t)c]);
  }
  return b.s ? b.s : xstrdup("");
}

/* Row comparison for sorting rows value by value. */
static int g_sort_ncols;
static int cmp_rows(const void *a, const void *b) {
  char *const *ra = *(char **const *)a, *const *rb = *(char **const *)b;
  for (int c = 0; c < g_sort_ncols; c++) {
    int r = strcmp(ra[c], rb[c]);
    if (r)
      return r;
  }
  return 0;
}

/* Sorts nrows * ncols values (row-major) in place, as sqllogictest does:
 * SORT_ROWS orders whole rows, comparing them value by value with strcmp;
 * SORT_VALUES orders all values individually with strcmp; SORT_NONE
 * leaves them. */
static void sort_values(char **vals, size_t nrows, int ncols, sortmode m) {
  size_t n = nrows * (size_t)ncols;
  if (m == SORT_VALUES) {
    if (n > 1)
      qsort(vals, n, sizeof *vals, cmp_strp);
    return;
  }
  if (m != SORT_ROWS || ncols == 0 || nrows < 2)
    return;
  char ***rows = xmalloc(nrows * sizeof *rows);
  for (size_t r = 0; r < nrows; r++)
    rows[r] = vals + r * (size_t)ncols;
  g_sort_ncols = ncols;
  qsort(rows, nrows, sizeof *rows, cmp_rows);
  char **copy = xmalloc(n * sizeof *copy);
  for (size_t r = 0; r < nrows; r++)
    memcpy(copy + r * (size_t)ncols, rows[r], (size_t)ncols * sizeof *copy);
  memcpy(vals, copy, n * sizeof *copy);
  free(copy);
  free(rows);
}

/* sqllogictest's digest of n values: "<n> values hashing to <md5>", the MD5
 * (RFC 1321, base/lm_md5.h) of every value followed by "\n", in order. */
static void hash_values(char *const *vals, size_t n, char out[96]) {
  lm_md5 m;
  lm_md5_init(&m);
  for (size_t k = 0; k < n; k++) {
    lm_md5_update(&m, vals[k], strlen(vals[k]));
    lm_md5_update(&m, "\n", 1);
  }
  uint8_t d[16];
  lm_md5_final(&m, d);
  int len = snprintf(out, 96, "%zu values hashing to ", n);
  for (int i = 0; i < 16 && len > 0 && len + 2 < 96; i++, len += 2)
    snprintf(out + len, 3, "%02x", d[i]);
}

/* Compares a result with expected lines; on mismatch prints details. */
static bool compare(runner *R, const table *got, const char *types,
                    sortmode sort, const strlist *want, size_t line,
                    const char *sql, const char *what) {
  size_t nvals = got->nrows * (size_t)got->ncols;
  /* --- hash form: "N values hashing to <md5>" */
  unsigned long long hn;
  char hash[64];
  if (want->n == 1 &&
      sscanf(want->v[0], "%llu values hashing to %40s", &hn, hash) == 2) {
    char **vals = xmalloc((nvals ? nvals : 1) * sizeof *vals);
    for (size_t k = 0; k < nvals; k++)
      vals[k] = table_value_slt(got->vals[k], types[k % (size_t)got->ncols]);
    sort_values(vals, got->nrows, got->ncols, sort);
    char digest[96];
    hash_values(vals, nvals, digest);
    for (size_t k = 0; k < nvals; k++)
      free(vals[k]);
    free(vals);
    if (strcmp(digest, want->v[0]) == 0)
      return true;
    fail_header(R, line, what);
    print_sql(sql);
    say("  expected: %s\n  got:      %s\n", want->v[0], digest);
    return false;
  }

  /* --- canonical actual values (I columns as integers) */
  char **vals = xmalloc((nvals ? nvals : 1) * sizeof *vals);
  for (size_t k = 0; k < nvals; k++)
    vals[k] = native_canonical(got->vals[k], types[k % (size_t)got->ncols]);

  bool value_mode = got->ncols > 1 && want->n != got->nrows && want->n == nvals;
  bool ok = true;
  strlist gl = {0}; /* actual rows as text, for display */
  if (value_mode) {
    /* sqllogictest: one value per line */
    char **wv = xmalloc((want->n ? want->n : 1) * sizeof *wv);
    for (size_t k = 0; k < want->n; k++)
      wv[k] = want->v[k];
    sort_values(vals, got->nrows, got->ncols, sort);
    sort_values(wv, got->nrows, got->ncols, sort);
    for (size_t k = 0; k < nvals && ok; k++)
      ok = value_matches(vals[k], wv[k], types[k % (size_t)got->ncols]);
    free(wv);
  } else {
    if (sort == SORT_VALUES)
      sort_values(vals, got->nrows, got->ncols, sort);
    table sorted = *got;
    sorted.vals = vals;
    if (sort == SORT_VALUES) {
      /* one value per line */
      for (size_t k = 0; k < nvals; k++)
        list_push(&gl, xstrdup(vals[k]));
    } else {
      for (size_t r = 0; r < got->nrows; r++)
        list_push(&gl, row_text(&sorted, r));
    }
    strlist wl = {0};
    for (size_t k = 0; k < want->n; k++)
      list_push(&wl, xstrdup(want->v[k]));
    if (sort != SORT_NONE) {
      /* rows compared as whole lines here (values may contain spaces) */
      sort_values(gl.v, gl.n, 1, SORT_VALUES);
      sort_values(wl.v, wl.n, 1, SORT_VALUES);
    }
    ok = gl.n == wl.n;
    for (size_t r = 0; r < gl.n && ok; r++) {
      if (strcmp(gl.v[r], wl.v[r]) == 0)
        continue;
      /* tolerant per-value comparison (R, and I given as 1.0 etc.) */
      char *gt[256], *wt[256];
      char gb[4096], wb[4096];
      int ng = 0, nw = 0;
      snprintf(gb, sizeof gb, "%s", gl.v[r]);
      snprintf(wb, sizeof wb, "%s", wl.v[r]);
      for (char *s = strtok(gb, " "); s && ng < 256; s = strtok(NULL, " "))
        gt[ng++] = s;
      for (char *s = strtok(wb, " "); s && nw < 256; s = strtok(NULL, " "))
        wt[nw++] = s;
      /* with text values containing spaces, tokens do not map to columns:
       * then numbers match with the tolerance of R if any column is R */
      bool by_column = ng == got->ncols;
      char any_r = strchr(types, 'R') ? 'R' : 'I';
      ok = ng == nw && sort != SORT_VALUES;
      for (int c = 0; c < ng && ok; c++)
        ok = value_matches(gt[c], wt[c], by_column ? types[c] : any_r);
    }
    if (!ok) {
      fail_header(R, line, what);
      if (sql)
        print_sql(sql);
      print_rows("expected", wl.v, wl.n);
      print_rows("got", gl.v, gl.n);
    }
    list_free(&wl);
  }
  if (value_mode && !ok) {
    fail_header(R, line, what);
    if (sql)
      print_sql(sql);
    print_rows("expected (one value per line)", want->v, want->n);
    for (size_t r = 0; r < got->nrows; r++)
      list_push(&gl, row_text(got, r));
    print_rows("got", gl.v, gl.n);
  }
  list_free(&gl);
  for (size_t k = 0; k < nvals; k++)
    free(vals[k]);
  free(vals);
  return ok;
}

/* --------------------------------------------------------- directives */

/* --record-timeout-ms: a watchdog timer of the process's CPU time (user +
 * system, ITIMER_PROF: the same on a busy machine as on an idle one) armed
 * around every statement and query. The engine cannot be interrupted inside
 * a statement, so when a record uses more than the limit the signal handler
 * prints the file's summary so far with "(stopped: the record at line L ran
 * over T ms)", adds the record to the --failures file, and ends the process
 * with status 3; --resume-after L then runs the rest of the file (run.sh
 * does). Only async-signal-safe calls in the handler. */
static runner *g_watch;
static size_t g_watch_line;

static size_t put_dec(char *b, size_t n, long long v) {
  char d[24];
  int k = 0;
  unsigned long long u =
      v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do
    d[k++] = (char)('0' + u % 10);
  while ((u /= 10) && k < 24);
  if (v < 0)
    b[n++] = '-';
  while (k)
    b[n++] = d[--k];
  return n;
}
/* Appends s up to its end or first newline (tabs as spaces), within 900. */
static size_t put_str(char *b, size_t n, const char *s) {
  for (; s && *s && *s != '\n' && n < 900; s++)
    b[n++] = *s == '\t' ? ' ' : *s;
  return n;
}

static void on_record_timeout(int sig) {
  (void)sig;
  runner *R = g_watch;
  char b[1024];
  size_t n = 0;
  if (R->tsv) { /* the tsv FILE is flushed after every line */
    n = put_str(b, n, R->path);
    b[n++] = '\t';
    n = put_dec(b, n, (long long)g_watch_line);
    b[n++] = '\t';
    n = put_str(b, n, "record timed out");
    b[n++] = '\t';
    n = put_str(b, n, "ran over ");
    n = put_dec(b, n, R->record_timeout_ms);
    n = put_str(b, n, " ms of CPU time");
    b[n++] = '\t';
    n = put_str(b, n, R->cur_sql);
    b[n++] = '\n';
    ssize_t w = write(fileno(R->tsv), b, n);
    (void)w;
    n = 0;
  }
  n = put_str(b, n, R->path);
  n = put_str(b, n, ": ");
  n = put_dec(b, n, R->passed + R->failed + 1 + R->skipped);
  n = put_str(b, n, " records, ");
  n = put_dec(b, n, R->passed);
  n = put_str(b, n, " passed, ");
  n = put_dec(b, n, R->failed + 1);
  n = put_str(b, n, " failed, ");
  n = put_dec(b, n, R->skipped);
  n = put_str(b, n, " skipped (stopped: the record at line ");
  n = put_dec(b, n, (long long)g_watch_line);
  n = put_str(b, n, " ran over ");
  n = put_dec(b, n, R->record_timeout_ms);
  n = put_str(b, n, " ms of CPU time)");
  b[n++] = '\n';
  ssize_t w = write(STDOUT_FILENO, b, n);
  (void)w;
  _exit(3);
}

/* Arms (on) or disarms the watchdog around the record at `line`; nothing
 * without --record-timeout-ms. */
static void watch_record(runner *R, size_t line, bool on) {
  if (R->record_timeout_ms <= 0)
    return;
  if (on) {
    fflush(stdout);
    g_watch = R;
    g_watch_line = line;
    signal(SIGPROF, on_record_timeout);
  }
  struct itimerval it;
  memset(&it, 0, sizeof it);
  if (on) {
    it.it_value.tv_sec = R->record_timeout_ms / 1000;
    it.it_value.tv_usec = (R->record_timeout_ms % 1000) * 1000;
  }
  setitimer(ITIMER_PROF, &it, NULL);
}

static void run_statement(runner *R, size_t line, bool expect_error,
                          const char *substring) {
  strlist sql = {0};
  take_block(R, NULL, &sql, NULL);
  char *text = join_lines(&sql);
  R->cur_sql = text;
  laminar_error err;
  memset(&err, 0, sizeof err);
  watch_record(R, line, true);
  int rc = exec_sql(R->db, text, NULL, &err);
  watch_record(R, line, false);
  if (!expect_error && rc != 0) {
    fail_header(R, line, "statement failed");
    print_sql(text);
    fail_error(R, err.message);
  } else if (expect_error && rc == 0) {
    fail_header(R, line, "statement succeeded, expected an error");
    print_sql(text);
    if (substring && *substring)
      say("  expected error: %s\n", substring);
  } else if (expect_error && substring && *substring &&
             !strstr(err.message, substring)) {
    fail_header(R, line, "statement failed with another error");
    print_sql(text);
    say("  expected error containing: %s\n", substring);
    fail_error(R, err.message);
  } else {
    R->passed++;
  }
  R->cur_sql = NULL;
  free(text);
  list_free(&sql);
}

static sortmode parse_sort(const char *s, sortmode dflt, bool *ok) {
  *ok = true;
  if (!s)
    return dflt;
  if (strcmp(s, "nosort") == 0)
    return SORT_NONE;
  if (strcmp(s, "rowsort") == 0)
    return SORT_ROWS;
  if (strcmp(s, "valuesort") == 0)
    return SORT_VALUES;
  *ok = false;
  return dflt;
}

/* Prints up to 40 values on one line, after a title. */
static void print_values(const char *title, char *const *v, size_t n) {
  str b = {0};
  for (size_t k = 0; k < n && k < 40; k++) {
    if (k)
      str_add(&b, " ");
    str_add(&b, v[k]);
  }
  if (n > 40)
    str_add(&b, " ...");
  say("  %s (%zu value%s): %s\n", title, n, n == 1 ? "" : "s", str_cstr(&b));
  free(b.s);
}

/* Corpus mode: checks a query's formatted and sorted values the way
 * SQLite's sqllogictest does. An expected block that is one line
 * "N values hashing to <md5>" is compared with the digest of the values
 * (the corpus was written with hash-threshold 8, but select1 and select4
 * do not say so: the block's form decides, as in DuckDB's and CockroachDB's
 * ports); any other block holds one value per line, compared exactly and
 * in count. A labeled query's digest must equal that of every earlier query
 * with the same label in the file. Without a ---- block only the label is
 * checked. */
static bool check_corpus(runner *R, const table *t, const char *label,
                         bool has_results, const strlist *want, size_t line,
                         const char *sql) {
  size_t n = t->nrows * (size_t)t->ncols;
  unsigned long long hn;
  char hh[64];
  bool over = has_results && want->n == 1 &&
              sscanf(want->v[0], "%llu values hashing to %40s", &hn, hh) == 2;
  char digest[96] = "";
  if (label || over)
    hash_values(t->vals, n, digest);
  if (label) {
    size_t k = 0;
    while (k < R->labels.n && strcmp(R->labels.v[k], label) != 0)
      k++;
    if (k == R->labels.n) {
      list_push(&R->labels, xstrdup(label));
      list_push(&R->hashes, xstrdup(digest));
    } else if (strcmp(R->hashes.v[k], digest) != 0) {
      fail_header(R, line,
                  "labeled result does not agree with previous values");
      print_sql(sql);
      say("  label %s: earlier %s, now %s\n", label, R->hashes.v[k], digest);
      return false;
    }
  }
  if (!has_results)
    return true;
  if (over) {
    if (want->n == 1 && strcmp(want->v[0], digest) == 0)
      return true;
    fail_header(R, line, "wrong result hash");
    print_sql(sql);
    print_values("expected", want->v, want->n);
    say("  got:      %s\n", digest);
    return false;
  }
  bool ok = want->n == n;
  for (size_t k = 0; k < n && ok; k++)
    ok = strcmp(want->v[k], t->vals[k]) == 0;
  if (ok)
    return true;
  fail_header(R, line, "wrong result");
  print_sql(sql);
  print_values("expected", want->v, want->n);
  print_values("got", t->vals, n);
  return false;
}

/* ------------------------------------------------- query execution */

typedef enum {
  QX_OK,    /* *t holds the result */
  QX_ERROR, /* the engine's error message is in msg */
  QX_NCOLS, /* *ncols columns, not as many as the type string has */
} qx_status;

/* Runs a query (under the --record-timeout-ms watchdog) and converts its
 * result with table_from_result (slt_types: corpus formatting, NULL:
 * native). */
static qx_status exec_query(runner *R, size_t line, const char *sql,
                            const char *types, const char *slt_types, table *t,
                            int *ncols, char *msg, size_t cap) {
  *ncols = 0;
  laminar_error err;
  memset(&err, 0, sizeof err);
  laminar_result *res = NULL;
  watch_record(R, line, true);
  int rc = exec_sql(R->db, sql, &res, &err);
  watch_record(R, line, false);
  if (rc != 0) {
    snprintf(msg, cap, "%.900s", err.message);
    return QX_ERROR;
  }
  *ncols = res ? laminar_result_num_columns(res) : 0;
  if ((int)strlen(types) != *ncols) {
    laminar_result_free(res);
    return QX_NCOLS;
  }
  table_from_result(res, slt_types, t);
  laminar_result_free(res);
  return QX_OK;
}

static void run_query(runner *R, size_t line, char **tok, int ntok) {
  if (ntok >= 2 && strcmp(tok[1], "error") == 0) {
    run_statement(R, line, true, ntok >= 3 ? tok[2] : NULL);
    return;
  }
  strlist sql = {0}, want = {0};
  bool has_results;
  take_block(R, "----", &sql, &has_results);
  if (has_results)
    take_block(R, NULL, &want, NULL);
  char *text = join_lines(&sql);
  R->cur_sql = text;
  const char *types = ntok >= 2 ? tok[1] : "";
  bool sort_ok;
  /* tok[2] holds the rest of the line: "<sort> [label]" */
  char sortword[32] = "", label[128] = "";
  if (ntok >= 3)
    sscanf(tok[2], "%31s %127s", sortword, label);
  sortmode sort = parse_sort(ntok >= 3 ? sortword : NULL, SORT_NONE, &sort_ok);
  if (!sort_ok) {
    fail_header(R, line, "unknown sort mode (nosort, rowsort, valuesort)");
    goto out;
  }
  if (R->corpus && (!*types || types[strspn(types, "TIR")] != '\0')) {
    fail_header(R, line, "unknown type character (sqllogictest: T, I, R)");
    goto out;
  }
  table t;
  int ncols;
  char msg[1024];
  qx_status st = exec_query(R, line, text, types, R->corpus ? types : NULL, &t,
                            &ncols, msg, sizeof msg);
  if (st == QX_ERROR) {
    fail_header(R, line, "query failed");
    print_sql(text);
    fail_error(R, msg);
    goto out;
  }
  if (st == QX_NCOLS) {
    fail_header(R, line, "column count differs from the type string");
    print_sql(text);
    say("  type string '%s' has %zu letters, the result has %d column%s\n",
        types, strlen(types), ncols, ncols == 1 ? "" : "s");
    goto out;
  }
  if (R->corpus) {
    sort_values(t.vals, t.nrows, t.ncols, sort);
    if (check_corpus(R, &t, label[0] ? label : NULL, has_results, &want, line,
                     text))
      R->passed++;
  } else if (compare(R, &t, types, sort, &want, line, text,
                     "query returned other rows")) {
    R->passed++;
  }
  table_free(&t);
out:
  R->cur_sql = NULL;
  free(text);
  list_free(&sql);
  list_free(&want);
}

static sub_entry *find_sub(runner *R, const char *name) {
  for (size_t k = 0; k < R->nsubs; k++)
    if (strcmp(R->subs[k].name, name) == 0)
      return &R->subs[k];
  return NULL;
}

static void run_subscribe(runner *R, size_t line, const char *name) {
  if (find_sub(R, name)) {
    fail_header(R, line, "already subscribed");
    return;
  }
  laminar_error err;
  memset(&err, 0, sizeof err);
  laminar_subscription *sub = NULL;
  if (laminar_subscribe(R->db, name, &sub, &err) != 0) {
    fail_header(R, line, "subscribe failed");
    fail_error(R, err.message);
    return;
  }
  R->subs = xrealloc(R->subs, (R->nsubs + 1) * sizeof *R->subs);
  R->subs[R->nsubs].name = xstrdup(name);
  R->subs[R->nsubs].sub = sub;
  R->nsubs++;
  R->passed++;
}

static void run_emitted(runner *R, size_t line, char **tok, int ntok) {
  strlist extra = {0}, want = {0};
  /* the header may be followed by ---- and rows, or by nothing */
  if (R->i < R->nlines && strcmp(R->lines[R->i], "----") == 0) {
    R->i++;
    take_block(R, NULL, &want, NULL);
  } else if (R->i < R->nlines && !is_blank(R->lines[R->i])) {
    take_block(R, NULL, &extra, NULL);
    fail_header(R, line, "expected ---- after 'emitted <name>'");
    list_free(&extra);
    return;
  }
  bool sort_ok;
  char sortword[32] = "";
  if (ntok >= 3)
    snprintf(sortword, sizeof sortword, "%s", tok[2]);
  sortword[strcspn(sortword, " \t")] = '\0';
  sortmode sort = parse_sort(ntok >= 3 ? sortword : NULL, SORT_ROWS, &sort_ok);
  if (ntok < 2 || !sort_ok) {
    fail_header(R, line, "usage: emitted <name> [rowsort|nosort]");
    list_free(&want);
    return;
  }
  sub_entry *s = find_sub(R, tok[1]);
  if (!s) {
    fail_header(R, line, "no 'subscribe' for this name before 'emitted'");
    list_free(&want);
    return;
  }
  laminar_error err;
  memset(&err, 0, sizeof err);
  laminar_result *res = NULL;
  if (laminar_subscription_drain(s->sub, &res, &err) != 0) {
    fail_header(R, line, "reading the subscription failed");
    fail_error(R, err.message);
    list_free(&want);
    return;
  }
  table t;
  table_from_result(res, NULL, &t);
  laminar_result_free(res);
  char what[256];
  snprintf(what, sizeof what, "%.200s emitted other rows", tok[1]);
  if (compare(R, &t, t.types, sort, &want, line, NULL, what))
    R->passed++;
  table_free(&t);
  list_free(&want);
}

/* days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant) */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Parses a timestamp (see the header comment) into µs since the epoch. */
/* <integer><unit>, unit us|ms|s|m|h|d: a duration in µs. */
static bool parse_duration_us(const char *s, int64_t *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s || v < 0)
    return false;
  static const struct {
    const char *u;
    int64_t mul;
  } units[] = {{"us", 1},       {"ms", 1000},        {"s", 1000000},
               {"m", 60000000}, {"h", 3600000000LL}, {"d", 86400000000LL}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(end, units[i].u) == 0) {
      if (v > INT64_MAX / units[i].mul)
        return false;
      *out = (int64_t)v * units[i].mul;
      return true;
    }
  return false;
}

static bool parse_ts_us(const char *s, int64_t *out) {
  while (*s == ' ' || *s == '\'' || *s == '"')
    s++;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", s);
  size_t n = strlen(buf);
  while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\'' || buf[n - 1] == '"'))
    buf[--n] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end == '\0' && n > 0 && errno == 0 && !strchr(buf, '-')) {
    *out = v;
    return true;
  }
  if (*end == '\0' && n > 0 && errno == 0 && buf[0] == '-' &&
      !strchr(buf + 1, '-')) {
    *out = v;
    return true;
  }
  int y, mo, d, h = 0, mi = 0, sec = 0, used = 0;
  if (sscanf(buf, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3)
    return false;
  const char *p = buf + used;
  int64_t frac = 0;
  int64_t offset_s = 0;
  if (*p == 'T' || *p == 't' || *p == ' ') {
    p++;
    int u2 = 0;
    if (sscanf(p, "%2d:%2d%n", &h, &mi, &u2) != 2)
      return false;
    p += u2;
    if (*p == ':') {
      int u3 = 0;
      if (sscanf(p, ":%2d%n", &sec, &u3) != 1)
        return false;
      p += u3;
      if (*p == '.') {
        p++;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
          if (digits < 6)
            frac = frac * 10 + (*p - '0');
          digits++;
          p++;
        }
        for (; digits < 6; digits++)
          frac *= 10;
      }
    }
    if (*p == 'Z' || *p == 'z') {
      p++;
    } else if (*p == '+' || *p == '-') {
      int oh = 0, om = 0, u4 = 0;
      if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &u4) != 2)
        return false;
      offset_s = (int64_t)(oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
      p += 1 + u4;
    }
  }
  if (*p != '\0')
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
    return false;
  int64_t days = days_from_civil(y, mo, d);
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  *out = secs * 1000000 + frac;
  return true;
}

/* --- push: CSV lines -> INSERT statement */

/* Splits one CSV line (RFC 4180 quoting, no embedded newlines) into fields;
 * quoted[k] tells whether field k was quoted. Returns false on bad quoting. */
static bool csv_split(const char *line, strlist *fields, bool *quoted,
                      size_t max) {
  const char *p = line;
  for (;;) {
    str f = {0};
    bool q = false;
    if (*p == '"') {
      q = true;
      p++;
      for (;;) {
        if (*p == '\0')
          return false;
        if (*p == '"') {
          if (p[1] == '"') {
            str_addn(&f, "\"", 1);
            p += 2;
            continue;
          }
          p++;
          break;
        }
        str_addn(&f, p, 1);
        p++;
      }
      if (*p != ',' && *p != '\0') {
        free(f.s);
        return false;
      }
    } else {
      const char *s = p;
      while (*p && *p != ',')
        p++;
      str_addn(&f, s, (size_t)(p - s));
    }
    if (fields->n < max)
      quoted[fields->n] = q;
    list_push(fields, f.s ? f.s : xstrdup(""));
    if (*p == ',') {
      p++;
      continue;
    }
    return true;
  }
}

static bool looks_numeric(const char *s) {
  const char *p = s;
  if (*p == '+' || *p == '-')
    p++;
  bool digits = false;
  while (isdigit((unsigned char)*p)) {
    p++;
    digits = true;
  }
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) {
      p++;
      digits = true;
    }
  }
  if (!digits)
    return false;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!isdigit((unsigned char)*p))
      return false;
    while (isdigit((unsigned char)*p))
      p++;
  }
  return *p == '\0';
}

static bool looks_timestamp(const char *s) {
  int y, m, d, h, mi;
  char sep;
  return sscanf(s, "%4d-%2d-%2d%c%2d:%2d", &y, &m, &d, &sep, &h, &mi) == 6 &&
         (sep == 'T' || sep == ' ' || sep == 't');
}

static void sql_quote(str *b, const char *s) {
  str_add(b, "'");
  for (const char *p = s; *p; p++) {
    if (*p == '\'')
      str_add(b, "'");
    str_addn(b, p, 1);
  }
  str_add(b, "'");
}

static void run_push(runner *R, size_t line, const char *source) {
  strlist rows = {0};
  take_block(R, NULL, &rows, NULL);
  if (rows.n < 1) {
    fail_header(R, line, "push needs a CSV header line");
    return;
  }
  enum { MAXF = 1024 };
  static bool quoted[MAXF];
  strlist header = {0};
  str sql = {0};
  bool ok = csv_split(rows.v[0], &header, quoted, MAXF);
  if (!ok || header.n == 0 || header.n > MAXF) {
    fail_header(R, line + 1, "bad CSV header");
    goto out;
  }
  if (rows.n == 1) { /* nothing to insert */
    R->passed++;
    goto out;
  }
  str_addf(&sql, "INSERT INTO %s (", source);
  for (size_t k = 0; k < header.n; k++) {
    if (k)
      str_add(&sql, ", ");
    str_add(&sql, header.v[k]);
  }
  str_add(&sql, ") VALUES");
  for (size_t r = 1; r < rows.n; r++) {
    strlist f = {0};
    if (!csv_split(rows.v[r], &f, quoted, MAXF) || f.n != header.n) {
      char msg[128];
      snprintf(msg, sizeof msg, "bad CSV row (%zu fields, the header has %zu)",
               f.n, header.n);
      fail_header(R, line + r + 1, msg);
      list_free(&f);
      goto out;
    }
    str_add(&sql, r > 1 ? ",\n  (" : "\n  (");
    for (size_t k = 0; k < f.n; k++) {
      const char *v = f.v[k];
      if (k)
        str_add(&sql, ", ");
      if (quoted[k])
        sql_quote(&sql, v);
      else if (*v == '\0' || strcmp(v, "NULL") == 0)
        str_add(&sql, "NULL");
      else if (looks_numeric(v))
        str_add(&sql, v);
      else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
        str_add(&sql, strcmp(v, "true") == 0 ? "TRUE" : "FALSE");
      else if (looks_timestamp(v)) {
        str_add(&sql, "TIMESTAMP ");
        sql_quote(&sql, v);
      } else
        sql_quote(&sql, v);
    }
    str_add(&sql, ")");
    list_free(&f);
  }
  {
    laminar_error err;
    memset(&err, 0, sizeof err);
    if (exec_sql(R->db, str_cstr(&sql), NULL, &err) != 0) {
      fail_header(R, line, "push failed");
      print_sql(str_cstr(&sql));
      fail_error(R, err.message);
    } else {
      R->passed++;
    }
  }
out:
  free(sql.s);
  list_free(&header);
  list_free(&rows);
}

/* Skips the rest of a record (for skipif/onlyif). */
static void skip_record(runner *R, const char *directive) {
  bool multi =
      strcmp(directive, "statement") == 0 || strcmp(directive, "query") == 0 ||
      strcmp(directive, "push") == 0 || strcmp(directive, "emitted") == 0;
  if (!multi)
    return;
  strlist junk = {0};
  take_block(R, NULL, &junk, NULL);
  /* a query's results follow its ---- inside the same block */
  list_free(&junk);
}

/* Is this runner the engine named in skipif/onlyif? In corpus mode only
 * --engine NAME (default postgresql); otherwise postgresql, laminar and
 * --engine NAME. */
static bool engine_is(runner *R, const char *name) {
  if (R->corpus)
    return strcmp(name, R->engine ? R->engine : "postgresql") == 0;
  return strcmp(name, "postgresql") == 0 || strcmp(name, "laminar") == 0 ||
         (R->engine && strcmp(name, R->engine) == 0);
}

static void run_file(runner *R) {
  while (R->i < R->nlines && !R->halted) {
    const char *l = R->lines[R->i];
    if (is_blank(l) || l[0] == '#') {
      R->i++;
      continue;
    }
    size_t line = R->i + 1;
    bool skip = false;
    char *tok[4];
    char buf[8192];
    int ntok;
    /* conditions */
    for (;;) {
      ntok = split_ws(R->lines[R->i], tok, 3, buf, sizeof buf);
      if (ntok >= 2 && strcmp(tok[0], "skipif") == 0) {
        if (engine_is(R, tok[1]))
          skip = true;
      } else if (ntok >= 2 && strcmp(tok[0], "onlyif") == 0) {
        if (!engine_is(R, tok[1]))
          skip = true;
      } else {
        break;
      }
      R->i++;
      if (R->i >= R->nlines)
        return;
    }
    line = R->i + 1;
    R->i++;
    if (ntok == 0)
      continue;
    const char *d = tok[0];
    flush_failure(R); /* the previous record's, before a watchdog exit */
    bool is_record = strcmp(d, "statement") == 0 || strcmp(d, "query") == 0;
    if (line <= R->resume_after && is_record) {
      /* --resume-after: an earlier run counted these records; statements
       * are run again (uncounted, silent) for their effects, queries and
       * the record that ran over the limit are not */
      if (skip || strcmp(d, "query") == 0 || line == R->resume_after) {
        skip_record(R, d);
        continue;
      }
      int p = R->passed, f = R->failed;
      FILE *tsv = R->tsv;
      R->tsv = NULL;
      bool was_quiet = g_quiet;
      g_quiet = true;
      run_statement(R, line, ntok >= 2 && strcmp(tok[1], "error") == 0, NULL);
      flush_failure(R);
      g_quiet = was_quiet;
      R->tsv = tsv;
      R->passed = p, R->failed = f;
      continue;
    }
    if (skip) {
      /* in corpus mode only statements and queries are records */
      if (!R->corpus || strcmp(d, "statement") == 0 || strcmp(d, "query") == 0)
        R->skipped++;
      skip_record(R, d);
      continue;
    }
    if (R->verbose)
      say("%s:%zu: %s\n", R->path, line, R->lines[line - 1]);
    if (strcmp(d, "statement") == 0) {
      if (ntok >= 2 && strcmp(tok[1], "ok") == 0) {
        run_statement(R, line, false, NULL);
      } else if (ntok >= 2 && strcmp(tok[1], "error") == 0) {
        /* sqllogictest checks no message: the rest of the line is ignored */
        run_statement(R, line, true, ntok >= 3 && !R->corpus ? tok[2] : NULL);
      } else {
        fail_header(R, line, "expected 'statement ok' or 'statement error'");
        skip_record(R, d);
      }
    } else if (strcmp(d, "query") == 0) {
      run_query(R, line, tok, ntok);
    } else if (strcmp(d, "subscribe") == 0 && ntok == 2) {
      run_subscribe(R, line, tok[1]);
    } else if (strcmp(d, "emitted") == 0) {
      run_emitted(R, line, tok, ntok);
    } else if (strcmp(d, "watermark") == 0 && ntok == 3) {
      int64_t us;
      laminar_error err;
      memset(&err, 0, sizeof err);
      if (!parse_ts_us(tok[2], &us)) {
        fail_header(R, line, "cannot parse the watermark timestamp");
      } else if (laminar_advance_watermark(R->db, tok[1], us, &err) != 0) {
        fail_header(R, line, "watermark failed");
        fail_error(R, err.message);
      } else {
        R->passed++;
      }
    } else if (strcmp(d, "advance_time") == 0 && ntok == 2) {
      int64_t us;
      laminar_error err;
      memset(&err, 0, sizeof err);
      if (!parse_duration_us(tok[1], &us)) {
        fail_header(R, line, "cannot parse the duration (e.g. 10s, 500ms)");
      } else if (laminar_advance_time(R->db, us, &err) != 0) {
        fail_header(R, line, "advance_time failed");
        fail_error(R, err.message);
      } else {
        R->passed++;
      }
    } else if (strcmp(d, "end") == 0 && ntok == 2) {
      laminar_error err;
      memset(&err, 0, sizeof err);
      if (laminar_end_source(R->db, tok[1], &err) != 0) {
        fail_header(R, line, "end failed");
        fail_error(R, err.message);
      } else {
        R->passed++;
      }
    } else if (strcmp(d, "notice") == 0) {
      /* the notices of the previous record's call (laminar_notices) must
       * contain the rest of the line; `notice` alone: there were none */
      const char *want = R->lines[line - 1];
      want += strspn(want, " \t") + strlen("notice");
      want += strspn(want, " \t");
      const char *got = laminar_notices(R->db);
      size_t wl = strlen(want);
      while (wl && (want[wl - 1] == ' ' || want[wl - 1] == '\t'))
        wl--;
      char w[1024];
      snprintf(w, sizeof w, "%.*s", (int)wl, want);
      if (wl ? strstr(got, w) != NULL : *got == 0) {
        R->passed++;
      } else {
        fail_header(R, line, wl ? "no such notice" : "unexpected notices");
        say("  notices: %s\n", *got ? got : "(none)");
      }
    } else if (strcmp(d, "push") == 0 && ntok == 2) {
      run_push(R, line, tok[1]);
    } else if (strcmp(d, "halt") == 0) {
      R->halted = true;
    } else if (strcmp(d, "hash-threshold") == 0) {
      /* accepted: results are compared in the form the file gives them
       * (check_corpus); a malformed one is an error in corpus mode */
      char *end = NULL;
      if (ntok == 2)
        strtoull(tok[1], &end, 10);
      if (R->corpus && (ntok != 2 || end == tok[1] || *end != '\0'))
        fail_header(R, line, "usage: hash-threshold N");
    } else {
      fail_header(R, line, "unknown directive or wrong arguments");
      say("  line: %s\n", R->lines[line - 1]);
      skip_record(R, d);
    }
  }
}

static void usage(void) {
  fprintf(
      stderr,
      "usage: slt_runner [--engine NAME] [--verbose] [--quiet] FILE.slt...\n"
      "       slt_runner --sqllogictest [--engine NAME] [--show N] "
      "[--failures OUT.tsv]\n"
      "                  [--baseline FILE] [--write-baseline FILE] "
      "FILE.test...\n");
}

int main(int argc, char **argv) {
  /* line-buffered, so that what ran before a crash is visible */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *engine = NULL, *failures = NULL;
  long long timeout_ms = 0, resume_after = 0;
  bool verbose = false, corpus = false;
  int show = 3;
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; a++) {
    const char *o = argv[a];
    bool has_arg = a + 1 < argc;
    if (strcmp(o, "--engine") == 0 && has_arg)
      engine = argv[++a];
    else if (strcmp(o, "--verbose") == 0 || strcmp(o, "-v") == 0)
      verbose = true;
    else if (strcmp(o, "--quiet") == 0 || strcmp(o, "-q") == 0)
      g_quiet = true;
    else if (strcmp(o, "--sqllogictest") == 0)
      corpus = true;
    else if (strcmp(o, "--show") == 0 && has_arg)
      show = atoi(argv[++a]);
    else if (strcmp(o, "--failures") == 0 && has_arg)
      failures = argv[++a];
    else if (strcmp(o, "--record-timeout-ms") == 0 && has_arg)
      timeout_ms = atoll(argv[++a]);
    else if (strcmp(o, "--resume-after") == 0 && has_arg)
      resume_after = atoll(argv[++a]);
    else {
      usage();
      return 2;
    }
  }
  if (a == argc) {
    usage();
    return 2;
  }
  FILE *tsv = NULL;
  if (failures && !(tsv = fopen(failures, "a"))) {
    fprintf(stderr, "slt_runner: %s: %s\n", failures, strerror(errno));
    return 2;
  }
  int total_failed = 0, status = 0, nfiles = argc - a;
  long t_records = 0, t_passed = 0, t_failed = 0, t_skipped = 0;
  for (; a < argc; a++) {
    runner R;
    memset(&R, 0, sizeof R);
    R.path = argv[a];
    R.engine = engine;
    R.verbose = verbose;
    R.corpus = corpus;
    /* native mode shows every failure in full (unless --quiet) */
    R.show = !corpus || verbose ? -1 : show;
    R.tsv = tsv;
    R.record_timeout_ms = timeout_ms;
    R.resume_after = resume_after > 0 ? (size_t)resume_after : 0;
    g_mute = false;
    if (!read_lines(&R)) {
      status = 2;
      continue;
    }
    laminar_error err;
    memset(&err, 0, sizeof err);
    if (laminar_open(&R.db, &err) != 0) {
      fprintf(stderr, "slt_runner: laminar_open: %s\n", err.message);
      return 2;
    }
    run_file(&R);
    for (size_t k = 0; k < R.nsubs; k++) {
      laminar_unsubscribe(R.subs[k].sub);
      free(R.subs[k].name);
    }
    free(R.subs);
    memset(&err, 0, sizeof err);
    if (laminar_close(R.db, &err) != 0) {
      fail_header(&R, 0, "laminar_close failed");
      fail_error(&R, err.message);
    }
    flush_failure(&R);
    g_mute = false;
    for (size_t k = 0; k < R.nlines; k++)
      free(R.lines[k]);
    free(R.lines);
    list_free(&R.labels);
    list_free(&R.hashes);
    if (corpus) {
      int run = R.passed + R.failed;
      printf("%s: %d records, %d passed, %d failed, %d skipped (%.1f%% of "
             "the records run passed)%s\n",
             R.path, run + R.skipped, R.passed, R.failed, R.skipped,
             run ? 100.0 * R.passed / run : 100.0, R.halted ? " (halted)" : "");
      t_records += run + R.skipped;
      t_passed += R.passed;
      t_failed += R.failed;
      t_skipped += R.skipped;
    } else {
      printf("%s: %d passed, %d failed, %d skipped%s\n", R.path, R.passed,
             R.failed, R.skipped, R.halted ? " (halted)" : "");
    }
    total_failed += R.failed;
  }
  if (corpus && nfiles > 1)
    printf("total: %ld records, %ld passed, %ld failed, %ld skipped (%.1f%% "
           "of the records run passed)\n",
           t_records, t_passed, t_failed, t_skipped,
           t_passed + t_failed
               ? 100.0 * (double)t_passed / (double)(t_passed + t_failed)
               : 100.0);
  if (tsv)
    fclose(tsv);
  if (status)
    return status;
  return total_failed ? 1 : 0;
}
