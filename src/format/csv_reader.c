/* format/csv_reader.c — incremental RFC 4180 CSV reader decoding into typed
 * record batches (see lm_csv.h for the dialect and error conventions).
 *
 * Structure: a record is parsed in two steps. csv_record() splits one
 * record into fields (pointers into the input, no copies) and counts the
 * line breaks inside quoted fields; csv_data() then decodes each field into
 * its column builder. A record wholly inside the fed chunk is parsed in
 * place. A record cut by the end of a chunk is copied into `carry`; later
 * chunks are run through csv_scan(), a tiny state machine that mirrors the
 * parser's structure, until the byte that ends the record (or the byte at
 * which the parser will report an error) arrives; only then is the carried
 * record parsed. Every byte of a straddling record is therefore scanned a
 * bounded number of times, however finely the input is split.
 */
#include "format/lm_csv.h"

#include "format/format_internal.h"

#include "columnar/lm_conform.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CSV_MAX_COLUMNS 65536
#define CSV_DEFAULT_BATCH_ROWS 8192
#define CSV_DEFAULT_MAX_ROW ((int64_t)64 << 20)

static const char BOM[3] = {'\xEF', '\xBB', '\xBF'};

typedef struct csv_field {
  const char *p; /* value bytes (inside the quotes when quoted) */
  size_t len;
  uint8_t kind; /* 0 unquoted, 1 quoted, 2 quoted with "" escapes */
} csv_field;

/* csv_scan states */
enum { SCAN_START, SCAN_UNQ, SCAN_Q, SCAN_QQ, SCAN_QCR };

struct lm_csv_reader {
  lm_schema *schema;
  lm_csv_options opt;
  char *source;
  lm_batch_builder bb;
  int ncols;
  int nfile;    /* fields per record; -1 until the header has been read */
  int *map;     /* file field -> schema column, or -1 (ignored) */
  int *missing; /* schema columns absent from the file (always NULL) */
  int nmissing;
  csv_field *fields;
  int fields_cap;
  uint8_t cls[256]; /* 1 for the bytes that end an unquoted run */
  /* the unfinished record */
  char *carry;
  size_t carry_len, carry_cap;
  uint8_t scan; /* csv_scan state after the carried bytes */
  int scan_bom; /* BOM bytes matched at the start of input, -1 = none */
  int64_t line; /* physical line where the next record starts */
  bool started; /* a first record has been completed */
  bool header_pending;
  bool finished;
  bool failed;
  lm_error saved; /* the error, replayed after failure */
  int64_t rows, batch_n;
  lm_fmt_queue q;
  lm_buf scratch;   /* "" unescaping */
  lm_buf num;       /* long numbers for strtod */
  lm_builder texts; /* an array field's item texts (UTF8; LIST columns) */
  /* bad rows (lm_bad_row.h): the input offset of the record being parsed
   * (cur_rec), and the place and text of the last csv_err */
  int64_t rec_off;
  const char *cur_rec;
  int64_t err_line, err_col, err_off;
  char err_text[640];
};

void lm_csv_options_default(lm_csv_options *o) {
  memset(o, 0, sizeof *o);
  o->delimiter = ',';
  o->header = true;
  o->batch_rows = CSV_DEFAULT_BATCH_ROWS;
  o->max_row_bytes = CSV_DEFAULT_MAX_ROW;
  o->crlf = false;
}

static const char *src_name(const lm_csv_reader *r) {
  return r->source ? r->source : "<input>";
}

/* Line and column of `at`, inside the record that starts at `row`. */
static void csv_pos(const lm_csv_reader *r, const char *row, const char *at,
                    int64_t *line, int64_t *col) {
  int64_t l = r->line;
  const char *ls = row;
  for (const char *t = row; t < at; t++)
    if (*t == '\n')
      l++, ls = t + 1;
  *line = l;
  *col = (int64_t)(at - ls) + 1;
}

static int csv_err(lm_csv_reader *r, int code, const char *row, const char *at,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int csv_err(lm_csv_reader *r, int code, const char *row, const char *at,
                   const char *fmt, ...) {
  int64_t line = r->line, col = 1;
  if (row && at)
    csv_pos(r, row, at, &line, &col);
  char text[640];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0)
    text[0] = '\0';
  lm_fmt_error(&r->saved, code, src_name(r), line, col, "%s", text);
  r->failed = true;
  r->err_line = line;
  r->err_col = col;
  r->err_off = r->rec_off + (at && r->cur_rec ? (int64_t)(at - r->cur_rec) : 0);
  memcpy(r->err_text, text, sizeof text);
  return -1;
}

/* Hands the record [row, term) that just failed to decode (r->saved) to
 * opt.on_bad: 0 when it was dropped (its values taken back out of the
 * builders, the reader going on), -1 when the input fails. */
static int csv_divert(lm_csv_reader *r, const char *row, const char *term) {
  int code = r->saved.code;
  if (!r->opt.on_bad || (code != LM_ERR_PARSE && code != LM_ERR_LIMIT))
    return -1;
  lm_bad_row b = {
      src_name(r), r->err_line, r->err_col,
      r->err_off,  code,        r->saved.sqlstate,
      r->err_text, row,         term > row ? (size_t)(term - row) : 0};
  if (r->opt.on_bad(r->opt.bad_ctx, &b))
    return -1;
  for (int c = 0; c < r->ncols; c++)
    lm_builder_truncate(&r->bb.cols[c], r->batch_n);
  r->failed = false;
  lm_err_clear(&r->saved);
  return 0;
}

static int report(lm_csv_reader *r, lm_error *err) {
  if (err)
    *err = r->saved;
  return r->saved.code ? r->saved.code : LM_ERR_GENERIC;
}

lm_csv_reader *lm_csv_reader_new(lm_schema *schema, const lm_csv_options *opts,
                                 const char *source_name) {
  if (!schema)
    return NULL;
  lm_csv_reader *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  if (opts)
    r->opt = *opts;
  else
    lm_csv_options_default(&r->opt);
  if (!r->opt.delimiter)
    r->opt.delimiter = ',';
  if (r->opt.batch_rows <= 0)
    r->opt.batch_rows = CSV_DEFAULT_BATCH_ROWS;
  if (r->opt.max_row_bytes <= 0)
    r->opt.max_row_bytes = CSV_DEFAULT_MAX_ROW;
  r->schema = lm_schema_retain(schema);
  r->ncols = schema->n_fields;
  r->line = 1;
  r->nfile = -1;
  lm_buf_init(&r->scratch);
  lm_buf_init(&r->num);
  if (lm_builder_init(&r->texts, lm_type_make(LM_TYPE_UTF8), 0))
    goto oom;
  if (source_name) {
    r->source = lm_strdup(source_name);
    if (!r->source)
      goto oom;
  }
  int64_t hint = LM_MIN(r->opt.batch_rows, (int64_t)CSV_DEFAULT_BATCH_ROWS);
  if (lm_batch_builder_init(&r->bb, schema, hint))
    goto oom;
  char d = r->opt.delimiter;
  r->cls[(uint8_t)d] = 1;
  r->cls['\n'] = 1;
  r->cls['"'] = 1;
  r->header_pending = r->opt.header;
  if (!r->opt.header) {
    r->nfile = r->ncols;
    r->fields_cap = LM_MAX(r->ncols, 1);
    r->map = malloc((size_t)r->fields_cap * sizeof *r->map);
    if (!r->map)
      goto oom;
    for (int i = 0; i < r->ncols; i++)
      r->map[i] = i;
  } else {
    r->fields_cap = LM_MAX(r->ncols, 16);
  }
  r->fields = malloc((size_t)r->fields_cap * sizeof *r->fields);
  if (!r->fields)
    goto oom;

  /* configuration problems surface on the first feed/finish */
  if (d == '"' || d == '\n' || d == '\r') {
    csv_err(r, LM_ERR_INVALID, NULL, NULL,
            "CSV delimiter cannot be a quote or a line break");
  }
  for (int i = 0; i < r->ncols && !r->failed; i++) {
    if (!lm_fmt_type_supported(schema->fields[i].type) &&
        !lm_fmt_list_supported(schema->fields[i].type))
      csv_err(r, LM_ERR_BIND, NULL, NULL,
              "column '%s' has type %s, which CSV cannot read",
              schema->fields[i].name, lm_type_name(schema->fields[i].type));
  }
  return r;
oom:
  lm_csv_reader_free(r);
  return NULL;
}

void lm_csv_reader_free(lm_csv_reader *r) {
  if (!r)
    return;
  if (r->bb.schema)
    lm_batch_builder_free(&r->bb);
  lm_schema_release(r->schema);
  free(r->source);
  free(r->map);
  free(r->missing);
  free(r->fields);
  free(r->carry);
  lm_fmt_queue_free(&r->q);
  lm_buf_free(&r->scratch);
  lm_buf_free(&r->num);
  lm_builder_free(&r->texts);
  free(r);
}

int64_t lm_csv_reader_rows(const lm_csv_reader *r) {
  return r->rows;
}

lm_batch *lm_csv_reader_next(lm_csv_reader *r) {
  return lm_fmt_queue_pop(&r->q);
}

/* ------------------------------------------------------------ decoding */

/* Collapses "" in a quoted field into r->scratch. */
static const char *unescape(lm_csv_reader *r, const csv_field *f, size_t *len) {
  r->scratch.len = 0;
  if (lm_buf_reserve(&r->scratch, f->len + 1))
    return NULL;
  char *o = r->scratch.data;
  size_t n = 0;
  for (size_t i = 0; i < f->len; i++) {
    o[n++] = f->p[i];
    if (f->p[i] == '"')
      i++; /* the parser guarantees the pair */
  }
  *len = n;
  return o;
}

/* Value bytes of a field, with "" collapsed (into r->scratch) if needed. */
static inline const char *field_text(lm_csv_reader *r, const csv_field *f,
                                     size_t *len) {
  if (f->kind != 2) {
    *len = f->len;
    return f->p;
  }
  return unescape(r, f, len);
}

static const char *field_start(const csv_field *f) {
  return f->kind ? f->p - 1 : f->p;
}

static int csv_convert(lm_csv_reader *r, int col, const csv_field *f,
                       const char *row) {
  lm_builder *b = &r->bb.cols[col];
  const lm_field *fd = &r->schema->fields[col];
  size_t n;
  const char *v = field_text(r, f, &n);
  if (!v)
    return csv_err(r, LM_ERR_NOMEM, row, field_start(f), "out of memory");
  bool is_null = n == 0;
  if (b->type.id == LM_TYPE_UTF8) {
    if (n == 0 && f->kind && !lm_schema_typmod(r->schema, col).bpchar) {
      lm_builder_append_str_fast(b, "", 0);
      return 0;
    }
    if (n == 0 && f->kind) /* "" into CHAR(n): n spaces */
      is_null = false;
  } else if (n && (v[0] == ' ' || v[0] == '\t')) {
    is_null = lm_fmt_is_blank(v, n);
  }
  if (is_null) {
    if (!fd->nullable)
      return csv_err(r, LM_ERR_PARSE, row, field_start(f),
                     "NULL value for NOT NULL column '%s'", fd->name);
    lm_builder_append_null(b);
    return 0;
  }
  if (b->type.id == LM_TYPE_LIST) { /* PostgreSQL's array text */
    char msg[700];
    const char *state = "22P02";
    int rc = lm_fmt_append_list_pg(b, v, n, fd->name, &r->texts, &r->num, msg,
                                   sizeof msg, &state);
    if (rc == LM_FMT_OK)
      return 0;
    /* an array PostgreSQL reads but Laminar cannot hold ('[2:3]={5,6}',
     * '{{1,2},{3,4}}': 0A000) fails the load, never a skipped bad row */
    int code = rc == LM_FMT_TOOBIG       ? LM_ERR_LIMIT
               : !strcmp(state, "0A000") ? LM_ERR_BIND
                                         : LM_ERR_PARSE;
    int e = csv_err(r, code, row, field_start(f), "%s", msg);
    lm_err_state(&r->saved, state);
    return e;
  }
  lm_typmod m = lm_schema_typmod(r->schema, col);
  int rc = m.char_len || m.bpchar ? lm_fmt_append_chars(b, v, n, m, &r->num)
                                  : lm_fmt_append_text(b, v, n, &r->num);
  if (rc == LM_FMT_OK)
    return 0;
  char snip[128];
  lm_fmt_snippet(snip, sizeof snip, v, n);
  const char *tn = lm_type_name(b->type);
  switch (rc) {
  case LM_FMT_TOOLONG: {
    char cn[64];
    int e = csv_err(r, LM_ERR_PARSE, row, field_start(f),
                    "value too long for type %s in column '%s': '%s'",
                    lm_char_type_name(m, cn, sizeof cn), fd->name, snip);
    lm_err_state(&r->saved, "22001");
    return e;
  }
  case LM_FMT_RANGE:
    return csv_err(r, LM_ERR_PARSE, row, field_start(f),
                   "value '%s' out of range for %s column '%s'", snip, tn,
                   fd->name);
  case LM_FMT_UTF8:
    return csv_err(r, LM_ERR_PARSE, row, field_start(f),
                   "invalid UTF-8 in column '%s'", fd->name);
  case LM_FMT_TOOBIG:
    return csv_err(r, LM_ERR_LIMIT, row, field_start(f),
                   "value too large for column '%s'", fd->name);
  default:
    return csv_err(r, LM_ERR_PARSE, row, field_start(f),
                   "expected %s for column '%s', found '%s'", tn, fd->name,
                   snip);
  }
}

static bool is_blank_record(const lm_csv_reader *r, int nf) {
  return nf == 1 && r->fields[0].kind == 0 && r->fields[0].len == 0;
}

static int csv_header(lm_csv_reader *r, const char *row, int nf) {
  if (is_blank_record(r, nf))
    return 0; /* blank lines before the header */
  int *map = malloc((size_t)nf * sizeof *map);
  bool *seen = calloc((size_t)LM_MAX(r->ncols, 1), sizeof *seen);
  int *missing = malloc((size_t)LM_MAX(r->ncols, 1) * sizeof *missing);
  if (!map || !seen || !missing) {
    free(map);
    free(seen);
    free(missing);
    return csv_err(r, LM_ERR_NOMEM, row, row, "out of memory");
  }
  for (int i = 0; i < nf; i++) {
    size_t n;
    const char *name = field_text(r, &r->fields[i], &n);
    map[i] = -1;
    if (r->opt.header_by_position) {
      if (i < r->ncols)
        seen[map[i] = i] = true;
      continue;
    }
    if (!name)
      continue;
    if (r->fields[i].kind == 0) { /* quoted names keep their spaces */
      while (n && (*name == ' ' || *name == '\t'))
        name++, n--;
      while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        n--;
    }
    int ci = -1; /* an exact match wins, else the first case-insensitive */
    for (int c = 0; c < r->ncols; c++) {
      const char *fname = r->schema->fields[c].name;
      if (seen[c] || !fname || !lm_strncaseeq(name, n, fname))
        continue;
      if (memcmp(name, fname, n) == 0) {
        ci = c;
        break;
      }
      if (ci < 0)
        ci = c;
    }
    if (ci >= 0) {
      map[i] = ci;
      seen[ci] = true;
    }
  }
  int nm = 0;
  for (int c = 0; c < r->ncols; c++) {
    if (seen[c])
      continue;
    missing[nm++] = c;
    /* A declared column the header lacks is an error, not a column of
     * NULLs: a misspelt name would otherwise lose data silently. */
    char names[256];
    size_t w = 0;
    names[0] = 0;
    for (int i = 0; i < nf && w + 4 < sizeof names; i++) {
      size_t n = 0; /* set by field_text */
      const char *name = field_text(r, &r->fields[i], &n);
      int k = snprintf(names + w, sizeof names - w, "%s%.*s", i ? ", " : "",
                       (int)(n > 64 ? 64 : n), name ? name : "");
      if (k < 0)
        break;
      w += (size_t)k;
    }
    if (w >= sizeof names)
      memcpy(names + sizeof names - 4, "...", 4);
    free(map);
    free(seen);
    free(missing);
    return csv_err(r, LM_ERR_PARSE, row, row,
                   "%scolumn '%s' is missing from the header (%s)",
                   r->schema->fields[c].nullable ? "" : "NOT NULL ",
                   r->schema->fields[c].name, names);
  }
  free(seen);
  free(r->map);
  r->map = map;
  r->missing = missing;
  r->nmissing = nm;
  r->nfile = nf;
  r->header_pending = false;
  return 0;
}

static int csv_data(lm_csv_reader *r, const char *row, int nf,
                    const char *term) {
  if (nf != r->nfile) {
    if (is_blank_record(r, nf))
      return 0;        /* blank line */
    if (nf > r->nfile) /* only when diverting bad rows: see csv_record */
      csv_err(r, LM_ERR_PARSE, row, field_start(&r->fields[r->nfile]),
              "too many fields: expected %d, found %d", r->nfile, nf);
    else
      csv_err(r, LM_ERR_PARSE, row, term,
              "too few fields: expected %d, found %d", r->nfile, nf);
    return csv_divert(r, row, term);
  }
  const int *map = r->map;
  for (int i = 0; i < nf; i++) {
    int c = map[i];
    if (c >= 0 && csv_convert(r, c, &r->fields[i], row))
      return csv_divert(r, row, term);
  }
  for (int i = 0; i < r->nmissing; i++)
    lm_builder_append_null(&r->bb.cols[r->missing[i]]);
  r->rows++;
  if (++r->batch_n >= r->opt.batch_rows) {
    int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
    r->batch_n = 0;
    if (rc) {
      r->failed = true;
      return -1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------- parsing */

/* First byte in [q, end) that is the delimiter, LF or a quote; end if none.
 * Fields are short, so one 16-byte block usually decides. */
static inline const char *scan_unquoted(const char *q, const char *end, char d,
                                        const uint8_t *cls) {
#if defined(__SSE2__)
  const __m128i vd = _mm_set1_epi8(d), vn = _mm_set1_epi8('\n'),
                vq = _mm_set1_epi8('"');
  while (end - q >= 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i m =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vd), _mm_cmpeq_epi8(x, vn)),
                     _mm_cmpeq_epi8(x, vq));
    unsigned mask = (unsigned)_mm_movemask_epi8(m);
    if (mask)
      return q + __builtin_ctz(mask);
    q += 16;
  }
#endif
  while (q < end && !cls[(uint8_t)*q])
    q++;
  return q;
}

/* Splits the record starting at p into r->fields and decodes it. Returns 1
 * with *next after the record's line break (or at `end` when eof), 0 when
 * the record is not complete before `end` (and !eof; nothing changed), -1
 * on error (r->saved set). */
static int csv_record(lm_csv_reader *r, const char *p, const char *end,
                      bool eof, const char **next) {
  const char *rec = p; /* including a BOM, for the length limit */
  r->cur_rec = rec;
  if (!r->started && end - p >= 3 && memcmp(p, BOM, 3) == 0)
    p += 3;
  const char *row = p;
  const char d = r->opt.delimiter;
  const uint8_t *cls = r->cls;
  /* diverting bad rows, a record with too many fields is read to its end
   * (csv_data refuses it) */
  const int maxf = r->nfile >= 0 && !r->opt.on_bad ? r->nfile : CSV_MAX_COLUMNS;
  int nf = 0;
  int64_t nl = 0;
  const char *s = p, *term = p;
  for (;;) {
    if (nf == maxf) {
      if (r->nfile >= 0)
        return csv_err(r, LM_ERR_PARSE, row, s, "too many fields: expected %d",
                       r->nfile);
      return csv_err(r, LM_ERR_LIMIT, row, s, "more than %d columns",
                     CSV_MAX_COLUMNS);
    }
    if (nf == r->fields_cap) {
      int cap = LM_MIN(r->fields_cap * 2, CSV_MAX_COLUMNS);
      csv_field *nfp = realloc(r->fields, (size_t)cap * sizeof *nfp);
      if (!nfp)
        return csv_err(r, LM_ERR_NOMEM, row, s, "out of memory");
      r->fields = nfp;
      r->fields_cap = cap;
    }
    csv_field *f = &r->fields[nf];
    if (s < end && *s == '"') {
      const char *q = s + 1, *e;
      bool esc = false;
      for (;;) {
        e = memchr(q, '"', (size_t)(end - q));
        if (!e) {
          if (!eof)
            return 0;
          return csv_err(r, LM_ERR_PARSE, row, s, "unterminated quoted field");
        }
        if (e + 1 < end) {
          if (e[1] != '"')
            break;
          esc = true;
          q = e + 2;
          continue;
        }
        if (!eof)
          return 0; /* a quote at the end: maybe the first of "" */
        break;
      }
      f->p = s + 1;
      f->len = (size_t)(e - s - 1);
      f->kind = esc ? 2 : 1;
      nf++;
      for (const char *t = s + 1;
           (t = memchr(t, '\n', (size_t)(e - t))) != NULL; t++)
        nl++;
      s = term = e + 1;
      if (s == end)
        break; /* eof here, or the loop above returned */
      char c = *s;
      if (c == d) {
        s++;
        continue;
      }
      if (c == '\n') {
        s++;
        break;
      }
      if (c == '\r') {
        if (s + 1 == end) {
          if (!eof)
            return 0;
          s++;
          break;
        }
        if (s[1] == '\n') {
          s += 2;
          break;
        }
      }
      return csv_err(r, LM_ERR_PARSE, row, s,
                     "unexpected character after closing quote");
    } else {
      const char *q = scan_unquoted(s, end, d, cls);
      f->p = s;
      f->kind = 0;
      if (q == end) {
        if (!eof)
          return 0;
        size_t n = (size_t)(q - s);
        if (n && q[-1] == '\r')
          n--;
        f->len = n;
        nf++;
        term = s + n;
        s = q;
        break;
      }
      if (*q == '"')
        return csv_err(r, LM_ERR_PARSE, row, q,
                       "unexpected quote in unquoted field");
      f->len = (size_t)(q - s);
      nf++;
      if (*q == d) {
        s = q + 1;
        continue;
      }
      if (f->len && q[-1] == '\r')
        f->len--; /* CRLF */
      term = s + f->len;
      s = q + 1;
      break;
    }
  }
  if (s - rec > r->opt.max_row_bytes)
    return csv_err(r, LM_ERR_LIMIT, NULL, NULL, "record longer than %lld bytes",
                   (long long)r->opt.max_row_bytes);
  *next = s;
  r->started = true;
  int rc =
      r->header_pending ? csv_header(r, row, nf) : csv_data(r, row, nf, term);
  if (rc)
    return -1;
  r->line += nl + 1;
  r->rec_off += (int64_t)(s - rec);
  return 1;
}

/* Scans p[0..n) continuing the carried record; true with *at = index of the
 * byte that completes the record or at which the parser stops with an
 * error. Mirrors csv_record's structure. */
static bool csv_scan(lm_csv_reader *r, const char *p, size_t n, size_t *at) {
  uint8_t st = r->scan;
  const char d = r->opt.delimiter;
  size_t i = 0;
  for (; i < n; i++) {
    char c = p[i];
    if (r->scan_bom >= 0 && r->scan_bom < 3 && !r->started) {
      if (c == BOM[r->scan_bom]) {
        r->scan_bom++;
        continue;
      }
      if (r->scan_bom > 0)
        st = SCAN_UNQ; /* those bytes were data */
      r->scan_bom = -1;
    }
    switch (st) {
    case SCAN_START:
    case SCAN_UNQ:
      if (c == '\n')
        goto hit;
      if (c == d)
        st = SCAN_START;
      else if (c == '"') {
        if (st != SCAN_START)
          goto hit;
        st = SCAN_Q;
      } else
        st = SCAN_UNQ;
      break;
    case SCAN_Q: {
      const char *e = memchr(p + i, '"', n - i);
      if (!e) {
        i = n;
        goto out;
      }
      i = (size_t)(e - p);
      st = SCAN_QQ;
      break;
    }
    case SCAN_QQ:
      if (c == '"')
        st = SCAN_Q;
      else if (c == d)
        st = SCAN_START;
      else if (c == '\n')
        goto hit;
      else if (c == '\r')
        st = SCAN_QCR;
      else
        goto hit;
      break;
    default: /* SCAN_QCR */
      goto hit;
    }
  }
out:
  r->scan = st;
  return false;
hit:
  r->scan = SCAN_START;
  *at = i;
  return true;
}

static int carry_append(lm_csv_reader *r, const char *p, size_t n) {
  if ((int64_t)(r->carry_len + n) > r->opt.max_row_bytes)
    return csv_err(r, LM_ERR_LIMIT, NULL, NULL, "record longer than %lld bytes",
                   (long long)r->opt.max_row_bytes);
  if (r->carry_len + n > r->carry_cap) {
    size_t cap = r->carry_cap ? r->carry_cap * 2 : 4096;
    while (cap < r->carry_len + n)
      cap *= 2;
    char *c = realloc(r->carry, cap);
    if (!c)
      return csv_err(r, LM_ERR_NOMEM, NULL, NULL, "out of memory");
    r->carry = c;
    r->carry_cap = cap;
  }
  memcpy(r->carry + r->carry_len, p, n);
  r->carry_len += n;
  return 0;
}

static int internal_error(lm_csv_reader *r) {
  return csv_err(r, LM_ERR_GENERIC, NULL, NULL,
                 "internal error: CSV scanner and parser disagree");
}

int lm_csv_reader_feed(lm_csv_reader *r, const char *data, size_t len,
                       lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished)
    return lm_err(err, LM_ERR_INVALID, "CSV reader: feed after finish");
  if (!len)
    return 0;
  const char *p = data, *end = data + len;
  if (r->carry_len) {
    size_t at = 0;
    bool found = csv_scan(r, p, len, &at);
    size_t take = found ? at + 1 : len;
    if (carry_append(r, p, take))
      return report(r, err);
    if (!found)
      return 0;
    const char *next = NULL;
    int rc = csv_record(r, r->carry, r->carry + r->carry_len, false, &next);
    if (rc < 0)
      return report(r, err);
    if (rc == 0 || next != r->carry + r->carry_len) {
      internal_error(r);
      return report(r, err);
    }
    r->carry_len = 0;
    p += take;
  }
  while (p < end) {
    const char *next = NULL;
    int rc = csv_record(r, p, end, false, &next);
    if (rc < 0)
      return report(r, err);
    if (rc == 0) {
      r->scan = SCAN_START;
      r->scan_bom = r->started ? -1 : 0;
      if (carry_append(r, p, (size_t)(end - p)))
        return report(r, err);
      size_t at;
      if (csv_scan(r, r->carry, r->carry_len, &at)) {
        internal_error(r);
        return report(r, err);
      }
      break;
    }
    p = next;
  }
  return 0;
}

/* Queues the rows completed so far as a batch without ending the input:
 * a partial trailing record stays buffered. For followed ('watch') files. */
int lm_csv_reader_flush(lm_csv_reader *r, lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished || r->batch_n == 0)
    return 0;
  int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
  r->batch_n = 0;
  if (rc) {
    r->failed = true;
    return report(r, err);
  }
  return 0;
}

int lm_csv_reader_finish(lm_csv_reader *r, lm_error *err) {
  if (r->failed)
    return report(r, err);
  if (r->finished)
    return 0;
  r->finished = true;
  if (r->carry_len) {
    const char *next = NULL;
    int rc = csv_record(r, r->carry, r->carry + r->carry_len, true, &next);
    if (rc < 0)
      return report(r, err);
    if (rc == 0 || next != r->carry + r->carry_len) {
      internal_error(r);
      return report(r, err);
    }
    r->carry_len = 0;
  }
  if (r->batch_n > 0) {
    int rc = lm_fmt_flush_batch(&r->bb, r->batch_n, &r->q, &r->saved);
    r->batch_n = 0;
    if (rc) {
      r->failed = true;
      return report(r, err);
    }
  }
  return 0;
}
