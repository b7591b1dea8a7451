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
 *   halt                              stop running this file
 *
 * Compatibility with SQLite's sqllogictest corpus: `skipif <engine>` /
 * `onlyif <engine>` lines before a record (this runner is engine
 * "postgresql" and "laminar"; --engine adds another name),
 * `hash-threshold N` (ignored), expected results written one value per
 * line, and `N values hashing to <md5>` (values formatted as sqllogictest
 * does: R as %.3f, I truncated to an integer, non-printable bytes as '@').
 *
 * Single-line directives (subscribe, watermark, end, halt, hash-threshold)
 * need no blank line after them. A failing record prints FILE:LINE, the SQL
 * and expected vs got; the run goes on. Exit status: 0 if every record
 * passed (skipped ones do not count), 1 if any failed, 2 on usage or I/O
 * errors.
 */
#include "laminar.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --quiet: only per-file summaries are printed */
static bool g_quiet;
#define say(...) ((void)(g_quiet ? 0 : printf(__VA_ARGS__)))

/* ------------------------------------------------------------ utilities */

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

/* ------------------------------------------------------------------ md5 */

typedef struct {
  uint32_t a, b, c, d;
  uint64_t len;
  unsigned char buf[64];
  size_t fill;
} md5_ctx;

#define MD5_ROTL(x, c) (((x) << (c)) | ((x) >> (32 - (c))))

static void md5_block(md5_ctx *m, const unsigned char *p) {
  static const uint32_t K[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
      0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
      0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
      0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
      0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
      0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
      0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
      0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
      0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
      0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
      0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
  static const int R[64] = {7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,
                            12, 17, 22, 5,  9,  14, 20, 5,  9,  14, 20, 5,  9,
                            14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16,
                            23, 4,  11, 16, 23, 4,  11, 16, 23, 6,  10, 15, 21,
                            6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21};
  uint32_t w[16];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[i * 4] | (uint32_t)p[i * 4 + 1] << 8 |
           (uint32_t)p[i * 4 + 2] << 16 | (uint32_t)p[i * 4 + 3] << 24;
  uint32_t a = m->a, b = m->b, c = m->c, d = m->d;
  for (int i = 0; i < 64; i++) {
    uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    uint32_t t = d;
    d = c;
    c = b;
    b = b + MD5_ROTL(a + f + K[i] + w[g], R[i]);
    a = t;
  }
  m->a += a;
  m->b += b;
  m->c += c;
  m->d += d;
}

static void md5_init(md5_ctx *m) {
  m->a = 0x67452301;
  m->b = 0xefcdab89;
  m->c = 0x98badcfe;
  m->d = 0x10325476;
  m->len = 0;
  m->fill = 0;
}

static void md5_update(md5_ctx *m, const void *data, size_t n) {
  const unsigned char *p = data;
  m->len += n;
  while (n > 0) {
    size_t k = 64 - m->fill;
    if (k > n)
      k = n;
    memcpy(m->buf + m->fill, p, k);
    m->fill += k;
    p += k;
    n -= k;
    if (m->fill == 64) {
      md5_block(m, m->buf);
      m->fill = 0;
    }
  }
}

static void md5_hex(md5_ctx *m, char out[33]) {
  uint64_t bits = m->len * 8;
  unsigned char pad = 0x80;
  md5_update(m, &pad, 1);
  unsigned char zero = 0;
  while (m->fill != 56)
    md5_update(m, &zero, 1);
  unsigned char lenb[8];
  for (int i = 0; i < 8; i++)
    lenb[i] = (unsigned char)(bits >> (8 * i));
  md5_update(m, lenb, 8);
  uint32_t v[4] = {m->a, m->b, m->c, m->d};
  for (int i = 0; i < 16; i++)
    snprintf(out + 2 * i, 3, "%02x", (v[i / 4] >> (8 * (i % 4))) & 0xff);
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

static void fail_header(runner *R, size_t line, const char *what) {
  R->failed++;
  say("FAIL %s:%zu: %s\n", R->path, line, what);
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

static void table_from_result(laminar_result *r, table *t) {
  memset(t, 0, sizeof *t);
  if (!r) {
    t->types = xstrdup("");
    return;
  }
  t->ncols = laminar_result_num_columns(r);
  int64_t nrows = laminar_result_num_rows(r);
  t->nrows = nrows > 0 ? (size_t)nrows : 0;
  t->types = xmalloc((size_t)t->ncols + 1);
  for (int c = 0; c < t->ncols; c++)
    t->types[c] = type_letter(laminar_result_column_type(r, c));
  t->types[t->ncols] = '\0';
  t->vals = xmalloc(t->nrows * (size_t)t->ncols * sizeof *t->vals);
  for (size_t row = 0; row < t->nrows; row++)
    for (int c = 0; c < t->ncols; c++) {
      const char *v = laminar_result_value_text(r, (int64_t)row, c);
      t->vals[row * (size_t)t->ncols + (size_t)c] = xstrdup(!v     ? "NULL"
                                                            : v[0] ? v
                                                                   : "(empty)");
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

/* sqllogictest formatting of one value by its column letter. */
static char *slt_canonical(const char *v, char letter, bool hash_mode) {
  if (strcmp(v, "NULL") == 0 || strcmp(v, "(empty)") == 0)
    return xstrdup(v);
  char buf[64];
  double d;
  if (letter == 'I' && strpbrk(v, ".eE") && parse_number(v, &d) &&
      fabs(d) < 9.2e18) {
    snprintf(buf, sizeof buf, "%lld", (long long)d);
    return xstrdup(buf);
  }
  if (hash_mode && letter == 'R' && parse_number(v, &d)) {
    snprintf(buf, sizeof buf, "%.3f", d);
    return xstrdup(buf);
  }
  char *c = xstrdup(v);
  if (hash_mode)
    for (char *p = c; *p; p++)
      if ((unsigned char)*p < ' ' || (unsigned char)*p > '~')
        *p = '@';
  return c;
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

/* Sorts a flat row-major value array in place by rows. */
static void sort_rows_flat(char **vals, size_t nrows, int ncols) {
  if (ncols == 0 || nrows < 2)
    return;
  char ***rows = xmalloc(nrows * sizeof *rows);
  for (size_t r = 0; r < nrows; r++)
    rows[r] = vals + r * (size_t)ncols;
  g_sort_ncols = ncols;
  qsort(rows, nrows, sizeof *rows, cmp_rows);
  char **copy = xmalloc(nrows * (size_t)ncols * sizeof *copy);
  for (size_t r = 0; r < nrows; r++)
    memcpy(copy + r * (size_t)ncols, rows[r], (size_t)ncols * sizeof *copy);
  memcpy(vals, copy, nrows * (size_t)ncols * sizeof *copy);
  free(copy);
  free(rows);
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
      vals[k] =
          slt_canonical(got->vals[k], types[k % (size_t)got->ncols], true);
    if (sort == SORT_ROWS)
      sort_rows_flat(vals, got->nrows, got->ncols);
    if (sort == SORT_VALUES && nvals > 1)
      qsort(vals, nvals, sizeof *vals, cmp_strp);
    md5_ctx m;
    md5_init(&m);
    for (size_t k = 0; k < nvals; k++) {
      md5_update(&m, vals[k], strlen(vals[k]));
      md5_update(&m, "\n", 1);
    }
    char hex[33];
    md5_hex(&m, hex);
    for (size_t k = 0; k < nvals; k++)
      free(vals[k]);
    free(vals);
    if (hn == nvals && strcmp(hex, hash) == 0)
      return true;
    fail_header(R, line, what);
    print_sql(sql);
    say("  expected: %s\n  got:      %zu values hashing to %s\n", want->v[0],
        nvals, hex);
    return false;
  }

  /* --- canonical actual values (I columns as integers) */
  char **vals = xmalloc((nvals ? nvals : 1) * sizeof *vals);
  for (size_t k = 0; k < nvals; k++)
    vals[k] = slt_canonical(got->vals[k], types[k % (size_t)got->ncols], false);

  bool value_mode = got->ncols > 1 && want->n != got->nrows && want->n == nvals;
  bool ok = true;
  strlist gl = {0}; /* actual rows as text, for display */
  if (value_mode) {
    /* sqllogictest: one value per line */
    char **wv = xmalloc((want->n ? want->n : 1) * sizeof *wv);
    for (size_t k = 0; k < want->n; k++)
      wv[k] = want->v[k];
    if (sort == SORT_ROWS) {
      sort_rows_flat(vals, got->nrows, got->ncols);
      sort_rows_flat(wv, got->nrows, got->ncols);
    } else if (sort == SORT_VALUES) {
      if (nvals > 1) {
        qsort(vals, nvals, sizeof *vals, cmp_strp);
        qsort(wv, nvals, sizeof *wv, cmp_strp);
      }
    }
    for (size_t k = 0; k < nvals && ok; k++)
      ok = value_matches(vals[k], wv[k], types[k % (size_t)got->ncols]);
    free(wv);
  } else {
    if (sort == SORT_VALUES && nvals > 1)
      qsort(vals, nvals, sizeof *vals, cmp_strp);
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
      if (gl.n > 1)
        qsort(gl.v, gl.n, sizeof *gl.v, cmp_strp);
      if (wl.n > 1)
        qsort(wl.v, wl.n, sizeof *wl.v, cmp_strp);
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

static void run_statement(runner *R, size_t line, bool expect_error,
                          const char *substring) {
  strlist sql = {0};
  take_block(R, NULL, &sql, NULL);
  char *text = join_lines(&sql);
  laminar_error err;
  memset(&err, 0, sizeof err);
  int rc = laminar_execute(R->db, text, NULL, &err);
  if (!expect_error && rc != 0) {
    fail_header(R, line, "statement failed");
    print_sql(text);
    say("  error: %s\n", err.message);
  } else if (expect_error && rc == 0) {
    fail_header(R, line, "statement succeeded, expected an error");
    print_sql(text);
    if (substring && *substring)
      say("  expected error: %s\n", substring);
  } else if (expect_error && substring && *substring &&
             !strstr(err.message, substring)) {
    fail_header(R, line, "statement failed with another error");
    print_sql(text);
    say("  expected error containing: %s\n  got: %s\n", substring, err.message);
  } else {
    R->passed++;
  }
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
  const char *types = ntok >= 2 ? tok[1] : "";
  bool sort_ok;
  char sortword[32] = "";
  if (ntok >= 3)
    snprintf(sortword, sizeof sortword, "%s", tok[2]);
  /* tok[2] may hold "rowsort label" when split with a max: take 1st word */
  sortword[strcspn(sortword, " \t")] = '\0';
  sortmode sort = parse_sort(ntok >= 3 ? sortword : NULL, SORT_NONE, &sort_ok);
  if (!sort_ok) {
    fail_header(R, line, "unknown sort mode (nosort, rowsort, valuesort)");
    goto out;
  }
  laminar_error err;
  memset(&err, 0, sizeof err);
  laminar_result *res = NULL;
  int rc = laminar_execute(R->db, text, &res, &err);
  if (rc != 0) {
    fail_header(R, line, "query failed");
    print_sql(text);
    say("  error: %s\n", err.message);
    goto out;
  }
  table t;
  table_from_result(res, &t);
  laminar_result_free(res);
  if ((int)strlen(types) != t.ncols) {
    fail_header(R, line, "column count differs from the type string");
    print_sql(text);
    say("  type string '%s' has %zu letters, the result has %d column%s\n",
        types, strlen(types), t.ncols, t.ncols == 1 ? "" : "s");
  } else if (compare(R, &t, types, sort, &want, line, text,
                     "query returned other rows")) {
    R->passed++;
  }
  table_free(&t);
out:
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
    say("  error: %s\n", err.message);
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
    say("  error: %s\n", err.message);
    list_free(&want);
    return;
  }
  table t;
  table_from_result(res, &t);
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
    if (laminar_execute(R->db, str_cstr(&sql), NULL, &err) != 0) {
      fail_header(R, line, "push failed");
      print_sql(str_cstr(&sql));
      say("  error: %s\n", err.message);
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

static bool engine_is(runner *R, const char *name) {
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
    if (skip) {
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
        run_statement(R, line, true, ntok >= 3 ? tok[2] : NULL);
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
        say("  error: %s\n", err.message);
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
        say("  error: %s\n", err.message);
      } else {
        R->passed++;
      }
    } else if (strcmp(d, "end") == 0 && ntok == 2) {
      laminar_error err;
      memset(&err, 0, sizeof err);
      if (laminar_end_source(R->db, tok[1], &err) != 0) {
        fail_header(R, line, "end failed");
        say("  error: %s\n", err.message);
      } else {
        R->passed++;
      }
    } else if (strcmp(d, "push") == 0 && ntok == 2) {
      run_push(R, line, tok[1]);
    } else if (strcmp(d, "halt") == 0) {
      R->halted = true;
    } else if (strcmp(d, "hash-threshold") == 0) {
      /* results are compared in whatever form the file gives */
    } else {
      fail_header(R, line, "unknown directive or wrong arguments");
      say("  line: %s\n", R->lines[line - 1]);
      skip_record(R, d);
    }
  }
}

int main(int argc, char **argv) {
  /* line-buffered, so that what ran before a crash is visible */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *engine = NULL;
  bool verbose = false;
  int files = 0, total_failed = 0, status = 0;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--engine") == 0 && a + 1 < argc) {
      engine = argv[++a];
      continue;
    }
    if (strcmp(argv[a], "--verbose") == 0 || strcmp(argv[a], "-v") == 0) {
      verbose = true;
      continue;
    }
    if (strcmp(argv[a], "--quiet") == 0 || strcmp(argv[a], "-q") == 0) {
      g_quiet = true;
      continue;
    }
    if (argv[a][0] == '-') {
      fprintf(stderr, "usage: slt_runner [--engine NAME] [--verbose] [--quiet] "
                      "FILE.slt...\n");
      return 2;
    }
    runner R;
    memset(&R, 0, sizeof R);
    R.path = argv[a];
    R.engine = engine;
    R.verbose = verbose;
    files++;
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
      say("FAIL %s: laminar_close: %s\n", R.path, err.message);
      R.failed++;
    }
    for (size_t k = 0; k < R.nlines; k++)
      free(R.lines[k]);
    free(R.lines);
    printf("%s: %d passed, %d failed, %d skipped%s\n", R.path, R.passed,
           R.failed, R.skipped, R.halted ? " (halted)" : "");
    total_failed += R.failed;
  }
  if (files == 0) {
    fprintf(stderr, "usage: slt_runner [--engine NAME] [--verbose] FILE...\n");
    return 2;
  }
  if (status)
    return status;
  return total_failed ? 1 : 0;
}
