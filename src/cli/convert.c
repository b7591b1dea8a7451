/*
 * laminardb convert [--from FMT] [--to FMT] [--compression zstd|lz4]
 *                   [--alignment 8|64] [--batch-rows N] IN OUT
 *
 * Converts a table between arrow-file, arrow-stream, csv and json (NDJSON).
 * Formats default from the extensions (.arrow/.feather -> arrow-file,
 * .arrows -> arrow-stream, .csv, .json/.ndjson/.jsonl -> json); IN/OUT may
 * be `-` (stdin/stdout, then --from/--to are needed) or a socket endpoint
 * (transport/lm_transport.h): tcp://HOST:PORT, tcp-listen://HOST:PORT
 * (waits for one connection), unix:///PATH, unix-listen:///PATH. Over
 * sockets and stdio the stream formats (arrow-stream, csv, json) work;
 * arrow-file needs a regular file (or stdio). A format not given and not
 * inferable from the endpoint's path is an error asking for --from/--to.
 * CSV and NDJSON input carry no schema: it is inferred from the first
 * --infer-rows rows (default 16384; docs/ipc.md, "Schema inference"), and
 * the input is streamed in bounded pieces (memory independent of its
 * size). Arrow -> Arrow keeps dictionary encoding and each batch's message
 * custom_metadata. --connect-timeout / --accept-timeout bound socket
 * set-up (transport/lm_transport.h). SIGPIPE is ignored (a closed reader
 * is a write error). Errors: a message on stderr, exit status 1. A file
 * OUT is written to a temporary file next to it and renamed over it only
 * on success (tmp_open), so a failure leaves OUT as it was; IN and OUT
 * naming the same file is an error.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columnar/lm_temporal.h"
#include "format/format_internal.h"
#include "format/lm_csv.h"
#include "format/lm_ipc.h"
#include "format/lm_json.h"
#include "transport/lm_transport.h"

int lm_cli_convert(int argc, char **argv);

typedef enum { F_NONE, F_ARROW_FILE, F_ARROW_STREAM, F_CSV, F_JSON } fmt;

static fmt fmt_parse(const char *s) {
  if (!strcmp(s, "arrow-file") || !strcmp(s, "arrow") || !strcmp(s, "feather"))
    return F_ARROW_FILE;
  if (!strcmp(s, "arrow-stream") || !strcmp(s, "arrows"))
    return F_ARROW_STREAM;
  if (!strcmp(s, "csv"))
    return F_CSV;
  if (!strcmp(s, "json") || !strcmp(s, "ndjson") || !strcmp(s, "jsonl"))
    return F_JSON;
  return F_NONE;
}

static fmt fmt_from_path(const char *p) {
  const char *dot = strrchr(p, '.');
  if (!dot || strchr(dot, '/'))
    return F_NONE;
  dot++;
  if (!strcmp(dot, "arrow") || !strcmp(dot, "feather"))
    return F_ARROW_FILE;
  if (!strcmp(dot, "arrows"))
    return F_ARROW_STREAM;
  return fmt_parse(dot);
}

/* The name of an input endpoint in messages. */
static const char *in_name(const lm_endpoint *ep) {
  return ep->kind == LM_EP_STDIO ? "<stdin>" : ep->name;
}

/* Reads all of IN (any endpoint) into a malloc'd, NUL-terminated buffer. */
static int read_all(const lm_endpoint *ep, const lm_stream_options *so,
                    char **out, size_t *n, lm_error *err) {
  if (ep->kind == LM_EP_FILE)
    return lm_read_file(ep->path, out, n, err);
  lm_stream *st = NULL;
  int rc = lm_stream_open_opts(ep, LM_STREAM_READ, so, &st, err);
  if (rc)
    return rc;
  lm_buf b;
  lm_buf_init(&b);
  rc = lm_stream_read_all(st, &b, 0, err);
  int rc2 = lm_stream_close(st, rc ? NULL : err);
  if (rc == 0)
    rc = rc2;
  if (rc == 0 && !b.data && lm_buf_reserve(&b, 1))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc) {
    lm_buf_free(&b);
    return rc;
  }
  *out = b.data;
  *n = b.len;
  return 0;
}

/* ------------------------------------------------------ schema inference */

enum {
  K_INT = 1, /* an integer that fits 64 bits */
  K_DOUBLE = 2,
  K_BOOL = 4,
  K_TS = 8,
  K_TEXT = 16,
  K_BIG = 32 /* an integer of at most 38 digits: DECIMAL(38, 0) */
};

/* Whether p[0, n) is an integer literal ([+-]digits) of 1..38 digits
 * after leading zeros: beyond BIGINT, it is kept exact as DECIMAL(38, 0)
 * (DuckDB's read_json reads such integers as HUGEINT up to 2^64 - 1 and
 * as DOUBLE above, losing digits; docs/ipc.md). */
static bool big_integer(const char *p, size_t n) {
  size_t i = n && (p[0] == '-' || p[0] == '+') ? 1 : 0;
  if (i == n)
    return false;
  while (i + 1 < n && p[i] == '0')
    i++;
  if (n - i > 38)
    return false;
  for (; i < n; i++)
    if (p[i] < '0' || p[i] > '9')
      return false;
  return true;
}

typedef struct col_guess {
  char *name;
  unsigned kinds; /* K_* seen */
} col_guess;

/* Kinds a CSV text value fits. */
static unsigned text_kinds(const char *p, size_t n, lm_buf *scratch) {
  unsigned k = K_TEXT;
  int64_t iv;
  double dv;
  bool bv;
  if (n && p[0] != ' ' && p[n - 1] != ' ' &&
      lm_fmt_parse_int(p, n, INT64_MIN, INT64_MAX, &iv) == LM_FMT_OK)
    k |= K_INT | K_BIG;
  else if (big_integer(p, n))
    k |= K_BIG;
  if (n && p[0] != ' ' && p[n - 1] != ' ' &&
      lm_fmt_parse_double(p, n, false, scratch, &dv) == LM_FMT_OK)
    k |= K_DOUBLE;
  /* only the words true / false infer BOOLEAN (t, yes, 1 stay what they are) */
  if ((lm_strncaseeq(p, n, "true") || lm_strncaseeq(p, n, "false")) &&
      lm_fmt_parse_bool(p, n, &bv) == LM_FMT_OK)
    k |= K_BOOL;
  /* a time of day is required: a bare date stays text so that it is
   * written back unchanged */
  if (n > 10 && lm_parse_timestamp(p, n, &iv) == 0)
    k |= K_TS;
  return k;
}

static lm_type pick_type(unsigned all) {
  /* `all` = the kinds every non-null value fits */
  if (all & K_INT)
    return lm_type_make(LM_TYPE_INT64);
  if (all & K_BIG)
    return lm_type_decimal128(38, 0);
  if (all & K_DOUBLE)
    return lm_type_make(LM_TYPE_FLOAT64);
  if (all & K_BOOL)
    return lm_type_make(LM_TYPE_BOOL);
  if (all & K_TS)
    return lm_type_make(LM_TYPE_TIMESTAMP);
  return lm_type_make(LM_TYPE_UTF8);
}

/* Splits CSV text (RFC 4180) into fields, calling fn for each; returns the
 * number of records, -1 on an unterminated quote. Fields are unescaped
 * into `field`. */
typedef void (*field_fn)(void *ctx, int64_t rec, int col, const char *p,
                         size_t n, bool quoted);
static int64_t csv_scan(const char *s, size_t len, int64_t max_rec,
                        lm_buf *field, field_fn fn, void *ctx) {
  size_t i = 0;
  int64_t rec = 0;
  if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
    i = 3;
  while (i < len && rec < max_rec) {
    if (s[i] == '\n' || (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')) {
      i += s[i] == '\r' ? 2 : 1; /* blank line */
      continue;
    }
    int col = 0;
    for (;;) {
      lm_buf_reset(field);
      bool quoted = false;
      if (i < len && s[i] == '"') {
        quoted = true;
        i++;
        for (;;) {
          if (i >= len)
            return -1;
          if (s[i] == '"') {
            if (i + 1 < len && s[i + 1] == '"') {
              lm_buf_putc(field, '"');
              i += 2;
              continue;
            }
            i++;
            break;
          }
          lm_buf_putc(field, s[i++]);
        }
        while (i < len && s[i] != ',' && s[i] != '\n' && s[i] != '\r')
          i++;
      } else {
        size_t st = i;
        while (i < len && s[i] != ',' && s[i] != '\n' && s[i] != '\r')
          i++;
        lm_buf_append(field, s + st, i - st);
      }
      fn(ctx, rec, col++, field->data ? field->data : "", field->len, quoted);
      if (i < len && s[i] == ',') {
        i++;
        continue;
      }
      if (i < len && s[i] == '\r')
        i++;
      if (i < len && s[i] == '\n')
        i++;
      break;
    }
    rec++;
  }
  return rec;
}

typedef struct csv_infer {
  col_guess *cols;
  int n_cols;
  unsigned *all;
  bool oom;
  lm_buf scratch;
} csv_infer;

static void infer_field(void *ctx, int64_t rec, int col, const char *p,
                        size_t n, bool quoted) {
  csv_infer *ci = ctx;
  if (rec == 0) {
    col_guess *nc = realloc(ci->cols, ((size_t)col + 1) * sizeof *nc);
    unsigned *na = realloc(ci->all, ((size_t)col + 1) * sizeof *na);
    if (nc)
      ci->cols = nc;
    if (na)
      ci->all = na;
    if (!nc || !na) {
      ci->oom = true;
      return;
    }
    size_t a = 0, b = n;
    if (!quoted) {
      while (a < b && p[a] == ' ')
        a++;
      while (b > a && p[b - 1] == ' ')
        b--;
    }
    ci->cols[col].name = lm_strndup(p + a, b - a);
    ci->cols[col].kinds = 0;
    ci->all[col] = ~0u;
    ci->n_cols = col + 1;
    return;
  }
  if (col >= ci->n_cols)
    return;
  if (n == 0 || (!quoted && lm_fmt_is_blank(p, n))) {
    if (quoted && n == 0) /* "" is an empty string: text only */
      ci->all[col] &= K_TEXT;
    return;
  }
  ci->all[col] &= text_kinds(p, n, &ci->scratch);
  ci->cols[col].kinds |= 1;
}

/* Rows the schema is inferred from by default (--infer-rows). */
#define INFER_ROWS_DEFAULT 16384

/* Names the columns as DuckDB's read_csv does: an empty header field is
 * `columnN` (N its 0-based position), and a name equal to an earlier one
 * (ignoring case, as SQL names are) gets `_K`, K counting the earlier
 * ones (`a,A,a` -> a, A_1, a_2). LM_ERR_NOMEM or 0. */
static int name_columns(col_guess *cols, int n) {
  char buf[32];
  for (int c = 0; c < n; c++)
    if (!cols[c].name || !cols[c].name[0]) {
      snprintf(buf, sizeof buf, "column%d", c);
      free(cols[c].name);
      if (!(cols[c].name = lm_strdup(buf)))
        return LM_ERR_NOMEM;
    }
  for (int c = 1; c < n; c++) {
    int k = 0;
    for (int j = 0; j < c; j++)
      k += strcasecmp(cols[j].name, cols[c].name) == 0;
    if (k == 0)
      continue;
    size_t len = strlen(cols[c].name) + 24;
    char *nm = malloc(len);
    if (!nm)
      return LM_ERR_NOMEM;
    for (bool clash = true; clash; k++) {
      snprintf(nm, len, "%s_%d", cols[c].name, k);
      clash = false;
      for (int j = 0; j < n && !clash; j++)
        clash = j != c && strcasecmp(cols[j].name, nm) == 0;
    }
    free(cols[c].name);
    cols[c].name = nm;
  }
  return 0;
}

/* Infers the CSV schema from the header and the first max_rows records of
 * s[0, len) (which holds them complete, or is the whole input). */
static int infer_csv(const char *s, size_t len, int64_t max_rows,
                     const char *src, lm_schema **out, lm_error *err) {
  csv_infer ci = {0};
  lm_buf field;
  lm_buf_init(&field);
  lm_buf_init(&ci.scratch);
  int64_t n = csv_scan(s, len, max_rows < INT64_MAX ? max_rows + 1 : max_rows,
                       &field, infer_field, &ci);
  lm_buf_free(&field);
  lm_buf_free(&ci.scratch);
  int rc = 0;
  if (n < 0)
    rc = lm_err(err, LM_ERR_PARSE, "%s: unterminated quoted field", src);
  else if (ci.oom)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  else if (ci.n_cols == 0)
    rc = lm_err(err, LM_ERR_PARSE, "%s: no header line", src);
  else if (name_columns(ci.cols, ci.n_cols))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc == 0) {
    *out = lm_schema_new(ci.n_cols);
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int c = 0; rc == 0 && c < ci.n_cols; c++) {
      unsigned all = ci.cols[c].kinds ? ci.all[c] : K_TEXT;
      if (lm_schema_set_field(*out, c, ci.cols[c].name ? ci.cols[c].name : "",
                              pick_type(all), true))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  }
  for (int c = 0; c < ci.n_cols; c++)
    free(ci.cols[c].name);
  free(ci.cols);
  free(ci.all);
  return rc;
}

/* NDJSON: top-level keys of each object and the kind of their values. */
typedef struct json_infer {
  char **names;
  unsigned *all;
  bool *seen;
  int n, cap;
} json_infer;

static size_t skip_ws(const char *s, size_t i, size_t len) {
  while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
    i++;
  return i;
}

/* Scans a JSON string starting at s[i] == '"'; appends its (simply
 * unescaped) bytes to out; returns the index after it, or 0 on error. */
static size_t scan_string(const char *s, size_t i, size_t len, lm_buf *out) {
  i++;
  while (i < len && s[i] != '"') {
    if (s[i] == '\\' && i + 1 < len) {
      char e = s[i + 1];
      char c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      if (out)
        lm_buf_putc(out, c);
      i += 2;
      continue;
    }
    if (s[i] == '\n')
      return 0;
    if (out)
      lm_buf_putc(out, s[i]);
    i++;
  }
  return i < len ? i + 1 : 0;
}

/* Skips a JSON value at s[i]; returns the index after it, 0 on error. */
static size_t skip_value(const char *s, size_t i, size_t len, int depth) {
  if (i >= len || depth > LM_JSON_MAX_DEPTH)
    return 0;
  if (s[i] == '"')
    return scan_string(s, i, len, NULL);
  if (s[i] == '{' || s[i] == '[') {
    char close = s[i] == '{' ? '}' : ']';
    i = skip_ws(s, i + 1, len);
    while (i < len && s[i] != close) {
      if (s[i] == ',' || s[i] == ':') {
        i = skip_ws(s, i + 1, len);
        continue;
      }
      i = skip_value(s, i, len, depth + 1);
      if (!i)
        return 0;
      i = skip_ws(s, i, len);
    }
    return i < len ? i + 1 : 0;
  }
  size_t start = i;
  while (i < len && !strchr(",}] \t\r\n", s[i]))
    i++;
  /* no progress (a line break or a stray delimiter where a value belongs,
   * e.g. an array left open at the end of an NDJSON line): an error, not a
   * loop that never ends */
  return i > start ? i : 0;
}

/* Infers the NDJSON schema from the first max_lines lines of s[0, len)
 * (which holds them complete, or is the whole input). */
static int infer_json(const char *s, size_t len, int64_t max_lines,
                      const char *src, lm_schema **out, lm_error *err) {
  json_infer ji = {0};
  lm_buf key, scratch;
  lm_buf_init(&key);
  lm_buf_init(&scratch);
  int rc = 0;
  int64_t line = 0, n_obj = 0;
  size_t i = 0;
  while (i < len && rc == 0 && line < max_lines) {
    line++;
    i = skip_ws(s, i, len);
    if (i < len && s[i] == '\n') {
      i++;
      continue;
    }
    if (i >= len)
      break;
    if (s[i] != '{') {
      rc = lm_err(err, LM_ERR_PARSE, "%s:%lld: expected a JSON object", src,
                  (long long)line);
      break;
    }
    n_obj++;
    i = skip_ws(s, i + 1, len);
    while (i < len && s[i] != '}' && rc == 0) {
      if (s[i] == ',') {
        i = skip_ws(s, i + 1, len);
        continue;
      }
      lm_buf_reset(&key);
      size_t j = s[i] == '"' ? scan_string(s, i, len, &key) : 0;
      if (j)
        j = skip_ws(s, j, len);
      if (!j || j >= len || s[j] != ':') {
        rc = lm_err(err, LM_ERR_PARSE, "%s:%lld: bad JSON object", src,
                    (long long)line);
        break;
      }
      j = skip_ws(s, j + 1, len);
      size_t v0 = j;
      j = skip_value(s, j, len, 1);
      if (!j) {
        rc = lm_err(err, LM_ERR_PARSE, "%s:%lld: bad JSON value", src,
                    (long long)line);
        break;
      }
      const char *kname = key.data ? key.data : "";
      int c;
      for (c = 0; c < ji.n; c++)
        if (!strcmp(ji.names[c], kname))
          break;
      if (c == ji.n) {
        if (ji.n == ji.cap) {
          int nc = ji.cap ? 2 * ji.cap : 16;
          char **nn = realloc(ji.names, (size_t)nc * sizeof *nn);
          if (nn)
            ji.names = nn;
          unsigned *na = realloc(ji.all, (size_t)nc * sizeof *na);
          if (na)
            ji.all = na;
          bool *ns = realloc(ji.seen, (size_t)nc * sizeof *ns);
          if (ns)
            ji.seen = ns;
          if (!nn || !na || !ns) {
            rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
            break;
          }
          ji.cap = nc;
        }
        ji.names[c] = lm_strdup(kname);
        ji.all[c] = ~0u;
        ji.seen[c] = false;
        ji.n++;
      }
      char v = s[v0];
      size_t vn = j - v0;
      unsigned k;
      if (v == 'n' && vn == 4)
        k = ~0u; /* null */
      else if (v == 't' || v == 'f')
        k = K_BOOL;
      else if (v == '"') {
        int64_t us;
        k = K_TEXT;
        if (vn > 12 && lm_parse_timestamp(s + v0 + 1, vn - 2, &us) == 0)
          k |= K_TS;
      } else if (v == '{' || v == '[')
        k = K_TEXT;
      else {
        k = K_DOUBLE;
        int64_t iv;
        if (lm_fmt_parse_int(s + v0, vn, INT64_MIN, INT64_MAX, &iv) ==
            LM_FMT_OK)
          k |= K_INT | K_BIG;
        else if (big_integer(s + v0, vn))
          k |= K_BIG;
      }
      if (k != ~0u)
        ji.seen[c] = true;
      ji.all[c] &= k;
      if (ji.all[c] == 0) {
        rc = lm_err(err, LM_ERR_PARSE,
                    "%s:%lld: key '%s' mixes values of different kinds; "
                    "cannot infer its type",
                    src, (long long)line, kname);
        break;
      }
      i = skip_ws(s, j, len);
    }
    while (i < len && s[i] != '\n')
      i++;
    if (i < len)
      i++;
  }
  if (rc == 0 && n_obj == 0) /* no schema: as CSV's "no header line" */
    rc = lm_err(err, LM_ERR_PARSE, "%s: no JSON object (empty input)", src);
  if (rc == 0) {
    *out = lm_schema_new(ji.n);
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int c = 0; rc == 0 && c < ji.n; c++)
      if (lm_schema_set_field(*out, c, ji.names[c],
                              pick_type(ji.seen[c] ? ji.all[c] : K_TEXT), true))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < ji.n; c++)
    free(ji.names[c]);
  free(ji.names);
  free(ji.all);
  free(ji.seen);
  lm_buf_free(&key);
  lm_buf_free(&scratch);
  return rc;
}

/* ----------------------------------------------------------------- sinks */

typedef struct sink {
  fmt f;
  lm_stream *st;
  const char *path;
  lm_buf buf;
  lm_ipc_writer *w;
  lm_ipc_write_options o;
  lm_stream_options so; /* timeouts, for the input endpoint too */
  bool started;
  int64_t batch_rows; /* > 0: at most this many rows per output batch */
} sink;

static int sink_flush(sink *s, lm_error *err) {
  int rc =
      s->buf.len ? lm_stream_write(s->st, s->buf.data, s->buf.len, err) : 0;
  lm_buf_reset(&s->buf);
  return rc;
}

static int sink_start(sink *s, lm_schema *schema, lm_error *err) {
  s->started = true;
  if (s->f == F_CSV)
    return lm_csv_write_header(&s->buf, schema, NULL)
               ? lm_err(err, LM_ERR_NOMEM, "out of memory")
               : 0;
  /* Arrow: each message goes straight to the stream, an uncompressed
   * batch's buffers gathered into one writev (no encode copy) */
  if (s->f == F_ARROW_FILE || s->f == F_ARROW_STREAM)
    return lm_ipc_writer_new_sink(schema, s->f == F_ARROW_FILE, &s->o,
                                  lm_stream_writev_sink, s->st, &s->w, err);
  return 0;
}

/* Writes b; when read from Arrow (kept Arrow -> Arrow), kv[0, n_kv) is
 * its message custom_metadata and db[0, n_db) the dictionary batches read
 * before it (their maps go on the dictionary batches written for the same
 * ids). */
static int sink_write_one(sink *s, lm_batch *b, const lm_ipc_kv *kv, int n_kv,
                          const lm_ipc_dict_batch *db, int n_db,
                          lm_error *err) {
  int rc = 0;
  if (!s->started && (rc = sink_start(s, b->schema, err)) != 0)
    return rc;
  if (s->f == F_CSV)
    rc = lm_csv_write_batch(&s->buf, b, NULL);
  else if (s->f == F_JSON)
    rc = lm_json_write_batch(&s->buf, b);
  else {
    for (int i = 0; i < n_db; i++)
      if ((rc = lm_ipc_writer_set_dictionary_metadata(
               s->w, db[i].id, db[i].metadata, db[i].n_metadata, err)) != 0)
        return rc;
    return lm_ipc_writer_write_metadata(s->w, b, kv, n_kv, err)
               ? err->code
               : sink_flush(s, err);
  }
  if (rc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return s->buf.len > (1u << 20) ? sink_flush(s, err) : 0;
}

/* Writes b (with its message metadata kv and dictionary batch metadata
 * db, when Arrow -> Arrow); with --batch-rows N a longer batch goes out as
 * zero-copy slices of N rows (the last one shorter), kv and db with the
 * first. */
static int sink_write_md(sink *s, lm_batch *b, const lm_ipc_kv *kv, int n_kv,
                         const lm_ipc_dict_batch *db, int n_db, lm_error *err) {
  if (s->batch_rows <= 0 || b->num_rows <= s->batch_rows)
    return sink_write_one(s, b, kv, n_kv, db, n_db, err);
  for (int64_t at = 0; at < b->num_rows; at += s->batch_rows) {
    lm_batch *piece =
        lm_batch_slice(b, at, LM_MIN(s->batch_rows, b->num_rows - at));
    if (!piece)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int rc = at == 0 ? sink_write_one(s, piece, kv, n_kv, db, n_db, err)
                     : sink_write_one(s, piece, NULL, 0, NULL, 0, err);
    lm_batch_release(piece);
    if (rc)
      return rc;
  }
  return 0;
}

static int sink_write(sink *s, lm_batch *b, lm_error *err) {
  return sink_write_md(s, b, NULL, 0, NULL, 0, err);
}

/* Arrow -> Arrow: the writer keeps the reader's dictionary ids (ids[0, n),
 * borrowed until the writer is made). */
static void sink_dictionary_ids(sink *s, const int64_t *ids, int n) {
  s->o.dictionary_ids = ids;
  s->o.n_dictionary_ids = n;
}

static int sink_finish(sink *s, lm_schema *schema, lm_error *err) {
  int rc = 0;
  if (!s->started && schema && (rc = sink_start(s, schema, err)) != 0)
    return rc;
  if (s->w && (rc = lm_ipc_writer_finish(s->w, err)) != 0)
    return rc;
  return sink_flush(s, err);
}

/* --------------------------------------------------------------- sources */

static void ignore_field(void *ctx, int64_t rec, int col, const char *p,
                         size_t n, bool quoted) {
  (void)ctx, (void)rec, (void)col, (void)p, (void)n, (void)quoted;
}

/* Whether pre[0, len) holds the header and `rows` complete CSV records
 * (or `rows` complete NDJSON lines), so that inference can stop reading. */
static bool window_complete(fmt from, const char *pre, size_t len, int64_t rows,
                            lm_buf *field) {
  int64_t nl = 0;
  for (const char *p = pre; (p = memchr(p, '\n', len - (size_t)(p - pre))); p++)
    if (++nl > rows + 1)
      break;
  if (nl <= rows + (from == F_CSV ? 1 : 0))
    return false;
  if (from == F_JSON)
    return true;
  /* quoted fields may hold line breaks: the records must be complete, so
   * one more record must have started after them */
  return csv_scan(pre, len, rows + 2, field, ignore_field, NULL) == rows + 2;
}

/* CSV / NDJSON input, streamed: the schema is inferred from the first
 * infer_rows rows (INT64_MAX: the whole input, held in memory), read into
 * a window that is then fed to the reader; the rest of the input follows
 * in READ_CHUNK pieces, each batch going to the sink as soon as it is
 * decoded, so memory does not grow with the input. A later value that
 * does not fit the inferred type is the reader's error (SRC:LINE:COLUMN:
 * expected T for column 'c', found 'v') with a hint. */
#define READ_CHUNK ((size_t)4 << 20)
static int convert_text(fmt from, const lm_endpoint *in, sink *out,
                        int64_t infer_rows, lm_error *err) {
  const char *src = in_name(in);
  lm_stream *st = NULL;
  int rc = lm_stream_open_opts(in, LM_STREAM_READ, &out->so, &st, err);
  if (rc)
    return rc;
  lm_buf pre, field;
  lm_buf_init(&pre);
  lm_buf_init(&field);
  bool eof = false;
  size_t checked = 0; /* window_complete was false up to this length */
  while (rc == 0 && !eof) {
    if (lm_buf_reserve(&pre, READ_CHUNK)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    size_t k = 0;
    rc = lm_stream_read(st, pre.data + pre.len, READ_CHUNK, &k, err);
    if (rc)
      break;
    pre.len += k;
    eof = k == 0;
    if (!eof && infer_rows < INT64_MAX && pre.len - checked >= (64u << 10)) {
      if (window_complete(from, pre.data, pre.len, infer_rows, &field))
        break;
      checked = pre.len;
    }
  }
  lm_buf_free(&field);
  if (rc == 0 && lm_buf_reserve(&pre, 1))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_schema *schema = NULL;
  if (rc == 0)
    rc = from == F_CSV
             ? infer_csv(pre.data, pre.len, infer_rows, src, &schema, err)
             : infer_json(pre.data, pre.len, infer_rows, src, &schema, err);
  lm_csv_reader *cr = NULL;
  lm_json_reader *jr = NULL;
  if (rc == 0) {
    if (from == F_CSV) {
      /* the schema's names come from the header, some renamed
       * (name_columns): map the header by position */
      lm_csv_options co;
      lm_csv_options_default(&co);
      co.header_by_position = true;
      cr = lm_csv_reader_new(schema, &co, src);
    } else {
      jr = lm_json_reader_new(schema, NULL, src);
    }
    if (!cr && !jr)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  /* the window, then the rest of the input, through the reader */
  char *chunk = rc == 0 && !eof ? malloc(READ_CHUNK) : NULL;
  if (rc == 0 && !eof && !chunk)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  const char *p = pre.data;
  size_t n = pre.len;
  bool window = true;
  while (rc == 0) {
    for (size_t pos = 0; rc == 0 && (pos < n || n == 0);) {
      size_t k = LM_MIN(READ_CHUNK, n - pos);
      if (k)
        rc = cr ? lm_csv_reader_feed(cr, p + pos, k, err)
                : lm_json_reader_feed(jr, p + pos, k, err);
      pos += k;
      if (rc == 0 && eof && pos == n)
        rc =
            cr ? lm_csv_reader_finish(cr, err) : lm_json_reader_finish(jr, err);
      lm_batch *b;
      while ((b = cr ? lm_csv_reader_next(cr) : lm_json_reader_next(jr))) {
        if (rc == 0)
          rc = sink_write(out, b, err);
        lm_batch_release(b);
      }
      if (n == 0)
        break;
    }
    if (window) { /* the window is no longer needed */
      lm_buf_free(&pre);
      window = false;
    }
    if (rc || eof)
      break;
    size_t k = 0;
    if ((rc = lm_stream_read(st, chunk, READ_CHUNK, &k, err)) != 0)
      break;
    p = chunk;
    n = k;
    eof = k == 0;
  }
  if (rc == LM_ERR_PARSE && infer_rows < INT64_MAX &&
      strstr(err->msg, "expected ") && strstr(err->msg, " for column '")) {
    char hint[160];
    snprintf(hint, sizeof hint,
             " (the column's type was inferred from the first %lld rows; "
             "--infer-rows 0 infers it from all of them)",
             (long long)infer_rows);
    size_t l = strlen(err->msg);
    if (l + strlen(hint) < sizeof err->msg)
      memcpy(err->msg + l, hint, strlen(hint) + 1);
  }
  if (rc == 0)
    rc = sink_finish(out, schema, err);
  free(chunk);
  lm_buf_free(&pre);
  lm_csv_reader_free(cr);
  lm_json_reader_free(jr);
  lm_schema_release(schema);
  int rc2 = lm_stream_close(st, rc ? NULL : err);
  return rc ? rc : rc2;
}

/* Writes every batch of an opened IPC file to the sink, finishes it, and
 * frees the reader. */
static int copy_file_batches(lm_ipc_file_reader *r, sink *out, lm_error *err) {
  int rc;
  lm_batch *b;
  lm_ipc_file_reader_keep_dictionaries(r, true); /* Arrow -> Arrow keeps them */
  const int64_t *ids;
  int n_ids = lm_ipc_file_dictionary_ids(r, &ids);
  sink_dictionary_ids(out, ids, n_ids);
  /* every dictionary batch of a file comes before its record batches */
  const lm_ipc_dict_batch *db;
  int n_db = lm_ipc_file_dictionary_batches(r, &db);
  while ((rc = lm_ipc_file_next(r, &b, err)) == 0 && b) {
    const lm_ipc_kv *kv;
    int n_kv = lm_ipc_file_batch_metadata(r, &kv);
    rc = sink_write_md(out, b, kv, n_kv, db, n_db, err);
    n_db = 0;
    lm_batch_release(b);
    if (rc)
      break;
  }
  if (rc == 0)
    rc = sink_finish(out, lm_ipc_file_schema(r), err);
  lm_ipc_file_reader_free(r);
  return rc;
}

static int convert_arrow_file(const lm_endpoint *in, sink *out, lm_error *err) {
  lm_ipc_file_reader *r = NULL;
  int rc;
  if (in->kind == LM_EP_FILE) {
    rc = lm_ipc_file_open(in->path, NULL, &r, err);
  } else {
    char *text;
    size_t len;
    if ((rc = read_all(in, &out->so, &text, &len, err)) != 0)
      return rc;
    lm_buffer *owner = lm_buffer_wrap(text, len, NULL, NULL);
    rc = owner ? lm_ipc_file_open_memory(text, len, owner, NULL, "<stdin>", &r,
                                         err)
               : lm_err(err, LM_ERR_NOMEM, "out of memory");
    /* the owner borrows `text`, which we keep until the end (leaked at
     * exit is avoided below) */
    if (owner)
      lm_buffer_release(owner);
    if (rc) {
      free(text);
      return rc;
    }
    rc = copy_file_batches(r, out, err);
    free(text);
    return rc;
  }
  return rc ? rc : copy_file_batches(r, out, err);
}

static int convert_arrow_stream(const lm_endpoint *in, sink *out,
                                lm_error *err) {
  lm_stream *st = NULL;
  int rc = lm_stream_open_opts(in, LM_STREAM_READ, &out->so, &st, err);
  if (rc)
    return rc;
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, in_name(in));
  if (!r)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  else /* Arrow -> Arrow keeps dictionary-encoded columns encoded */
    lm_ipc_stream_reader_keep_dictionaries(r, true);
  bool eof = false;
  while (rc == 0 && !eof) {
    /* read straight into the reader's pending buffer (no chunk copy) */
    size_t k = 0, room = 0;
    void *p = NULL;
    if ((rc = lm_ipc_stream_reader_reserve(r, (size_t)4 << 20, &p, &room,
                                           err)) != 0 ||
        (rc = lm_stream_read(st, p, room, &k, err)) != 0)
      break;
    if (k == 0) {
      eof = true;
      rc = lm_ipc_stream_reader_finish(r, err);
    } else {
      rc = lm_ipc_stream_reader_commit(r, k, err);
      /* stop at the end-of-stream marker: bytes after it are not read
       * (an endless input such as /dev/zero would never end the loop) */
      if (rc == 0 && lm_ipc_stream_reader_done(r)) {
        eof = true;
        rc = lm_ipc_stream_reader_finish(r, err);
      }
    }
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(r))) {
      const lm_ipc_kv *kv;
      int n_kv = lm_ipc_stream_reader_batch_metadata(r, &kv);
      const lm_ipc_dict_batch *db;
      int n_db = lm_ipc_stream_reader_dictionary_batches(r, &db);
      const int64_t *ids;
      int n_ids = lm_ipc_stream_reader_dictionary_ids(r, &ids);
      sink_dictionary_ids(out, ids, n_ids);
      if (rc == 0)
        rc = sink_write_md(out, b, kv, n_kv, db, n_db, err);
      lm_batch_release(b);
    }
  }
  if (rc == 0 && r) {
    const int64_t *ids;
    int n_ids = lm_ipc_stream_reader_dictionary_ids(r, &ids);
    sink_dictionary_ids(out, ids, n_ids);
  }
  if (rc == 0)
    rc = sink_finish(out, lm_ipc_stream_reader_schema(r), err);
  lm_ipc_stream_reader_free(r);
  int rc2 = lm_stream_close(st, rc ? NULL : err);
  return rc ? rc : rc2;
}

static void convert_usage(FILE *f) {
  fprintf(f,
          "usage: laminardb convert [--from FMT] [--to FMT] "
          "[--compression zstd|lz4] [--alignment 8|64]\n"
          "       [--infer-rows N] [--batch-rows N] [--connect-timeout MS] "
          "[--accept-timeout MS] IN OUT\n"
          "  FMT: arrow-file, arrow-stream, csv, json (NDJSON); inferred "
          "from .arrow/.feather, .arrows, .csv, .json/.ndjson/.jsonl\n"
          "  IN/OUT: a path, '-' (stdin/stdout), tcp://HOST:PORT, "
          "tcp-listen://HOST:PORT,\n"
          "  unix:///PATH or unix-listen:///PATH (a listener waits for one "
          "connection);\n"
          "  over sockets and stdio use arrow-stream, csv or json and give "
          "--from/--to\n"
          "  --alignment 8|64: Arrow body buffer alignment (default 8)\n"
          "  --infer-rows N: CSV/NDJSON column types from the first N rows "
          "(default %d; 0 = all,\n"
          "    reading the whole input into memory first)\n"
          "  --batch-rows N: at most N rows per output batch (longer input "
          "batches are\n"
          "    written as slices of them; default: as read)\n"
          "  --connect-timeout MS (default %d), --accept-timeout MS "
          "(default: none); 0 or -1 = none\n",
          INFER_ROWS_DEFAULT, LM_CONNECT_TIMEOUT_DEFAULT_MS);
}

/* The format an endpoint's name implies: files and Unix sockets by the
 * path's extension; stdio and TCP carry none. */
static fmt fmt_from_endpoint(const lm_endpoint *ep) {
  if (ep->kind == LM_EP_FILE || ep->kind == LM_EP_UNIX ||
      ep->kind == LM_EP_UNIX_LISTEN)
    return fmt_from_path(ep->path);
  return F_NONE;
}

/* Fills in formats not given and checks they suit the endpoints. */
static int check_formats(const lm_endpoint *in, const lm_endpoint *out,
                         fmt *from, fmt *to, int comp, lm_error *err) {
  if (*from == F_NONE)
    *from = fmt_from_endpoint(in);
  if (*to == F_NONE)
    *to = fmt_from_endpoint(out);
  if (*from == F_NONE || *to == F_NONE) {
    bool f = *from == F_NONE;
    const lm_endpoint *ep = f ? in : out;
    return lm_err(
        err, LM_ERR_INVALID,
        "cannot tell the format of '%s'%s; use %s FMT "
        "(arrow-stream, csv, json%s)",
        f ? in->name : out->name,
        ep->kind == LM_EP_FILE ? " from its extension" : " from the endpoint",
        f ? "--from" : "--to", lm_endpoint_is_socket(ep) ? "" : ", arrow-file");
  }
  if (*from == F_ARROW_FILE && lm_endpoint_is_socket(in))
    return lm_err(err, LM_ERR_INVALID,
                  "%s: arrow-file needs a regular file; use --from "
                  "arrow-stream over a socket",
                  in->name);
  if (*to == F_ARROW_FILE && lm_endpoint_is_socket(out))
    return lm_err(err, LM_ERR_INVALID,
                  "%s: arrow-file needs a regular file; use --to "
                  "arrow-stream over a socket",
                  out->name);
  if (comp && *to != F_ARROW_FILE && *to != F_ARROW_STREAM)
    return lm_err(err, LM_ERR_INVALID, "--compression needs an Arrow output");
  return 0;
}

/* IN and OUT naming one file (same device and inode) is refused: OUT is
 * replaced, so the input would be lost. */
static int check_same_file(const lm_endpoint *in, const lm_endpoint *out,
                           lm_error *err) {
  struct stat a, b;
  if (in->kind != LM_EP_FILE || out->kind != LM_EP_FILE || stat(in->path, &a) ||
      stat(out->path, &b))
    return 0;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    return lm_err(err, LM_ERR_INVALID,
                  "'%s' and '%s' are the same file; write the output to "
                  "another file",
                  in->name, out->name);
  return 0;
}

/* A file OUT that is a regular file or does not exist yet is written to a
 * temporary file in the directory of OUT (of its target, when OUT is a
 * symbolic link) and renamed over it only when the conversion succeeded,
 * so a failed conversion leaves an existing OUT as it was and no partial
 * output. Sets *tmp to that file's endpoint (kind LM_EP_NONE: OUT is not
 * such a file, e.g. stdout, a socket, a device or a FIFO, and is written
 * directly) and target[0, PATH_MAX) to the path to rename it to. The
 * temporary file gets OUT's mode, or 0666 & ~umask for a new OUT. */
static int tmp_open(const lm_endpoint *out, lm_endpoint *tmp, char *target,
                    lm_error *err) {
  memset(tmp, 0, sizeof *tmp);
  if (out->kind != LM_EP_FILE)
    return 0;
  struct stat st;
  bool exists = stat(out->path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return 0;
  if (exists && access(out->path, W_OK))
    return lm_err(err, LM_ERR_IO, "%s: cannot create: %s", out->name,
                  strerror(errno));
  if (exists && !realpath(out->path, target))
    return lm_err(err, LM_ERR_IO, "%s: %s", out->name, strerror(errno));
  if (!exists)
    snprintf(target, PATH_MAX, "%s", out->path); /* path < 4096 bytes */
  int n = snprintf(tmp->path, sizeof tmp->path, "%s.XXXXXX", target);
  if (n < 0 || (size_t)n >= sizeof tmp->path)
    return lm_err(err, LM_ERR_INVALID, "%s: path too long", out->name);
  int fd = mkstemp(tmp->path);
  if (fd < 0)
    return lm_err(err, LM_ERR_IO, "%s: cannot create a temporary file %s: %s",
                  out->name, tmp->path, strerror(errno));
  mode_t mode = st.st_mode & 07777;
  if (!exists) {
    mode_t um = umask(0);
    umask(um);
    mode = 0666 & ~um;
  }
  if (fchmod(fd, mode)) {
    int e = errno;
    close(fd);
    unlink(tmp->path);
    return lm_err(err, LM_ERR_IO, "%s: chmod: %s", tmp->path, strerror(e));
  }
  close(fd);
  tmp->kind = LM_EP_FILE;
  snprintf(tmp->name, sizeof tmp->name, "%s", tmp->path);
  return 0;
}

int lm_cli_convert(int argc, char **argv) {
  fmt from = F_NONE, to = F_NONE;
  const char *in = NULL, *outp = NULL;
  int comp = LM_IPC_COMPRESS_NONE;
  int align = 8;
  int64_t infer_rows = INFER_ROWS_DEFAULT, batch_rows = 0;
  lm_stream_options so = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "--infer-rows") || !strcmp(a, "--connect-timeout") ||
         !strcmp(a, "--accept-timeout")) &&
        i + 1 < argc) {
      const char *v = argv[++i];
      char *end;
      long long x = strtoll(v, &end, 10);
      bool rows = a[2] == 'i';
      if (!*v || *end || x < (rows ? 0 : -1) ||
          x > (rows ? INT64_MAX : INT32_MAX)) {
        fprintf(stderr, "laminardb convert: %s needs %s, not '%s'\n", a,
                rows ? "a row count >= 0" : "milliseconds (or -1 for none)", v);
        return 1;
      }
      if (rows)
        infer_rows = x == 0 || x > (INT64_C(1) << 40) ? INT64_MAX : (int64_t)x;
      else if (a[2] == 'c')
        so.connect_timeout_ms = x == 0 ? -1 : (int)x;
      else
        so.accept_timeout_ms = x == 0 ? -1 : (int)x;
      continue;
    }
    if (!strcmp(a, "--batch-rows")) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      char *end;
      long long x = strtoll(v, &end, 10);
      if (!*v || *end || x < 1) {
        fprintf(stderr,
                "laminardb convert: --batch-rows needs a row count >= 1, not "
                "'%s'\n",
                v);
        return 1;
      }
      batch_rows = (int64_t)x;
      continue;
    }
    if (!strcmp(a, "--alignment") && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "8") && strcmp(v, "64")) {
        fprintf(stderr, "laminardb convert: --alignment is 8 or 64, not '%s'\n",
                v);
        return 1;
      }
      align = atoi(v);
      continue;
    }
    if ((!strcmp(a, "--from") || !strcmp(a, "--to") ||
         !strcmp(a, "--compression")) &&
        i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(a, "--compression")) {
        comp = !strcmp(v, "zstd")   ? LM_IPC_COMPRESS_ZSTD
               : !strcmp(v, "lz4")  ? LM_IPC_COMPRESS_LZ4
               : !strcmp(v, "none") ? LM_IPC_COMPRESS_NONE
                                    : -1;
        if (comp < 0) {
          fprintf(stderr, "laminardb convert: unknown compression '%s'\n", v);
          return 1;
        }
        continue;
      }
      fmt f = fmt_parse(v);
      if (f == F_NONE) {
        fprintf(stderr, "laminardb convert: unknown format '%s'\n", v);
        return 1;
      }
      if (a[2] == 'f')
        from = f;
      else
        to = f;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      convert_usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "laminardb convert: unknown option '%s'\n", a);
      convert_usage(stderr);
      return 1;
    } else if (!in) {
      in = a;
    } else if (!outp) {
      outp = a;
    } else {
      fprintf(stderr, "laminardb convert: unexpected argument '%s'\n", a);
      return 1;
    }
  }
  if (!in || !outp) {
    convert_usage(stderr);
    return 1;
  }
  lm_endpoint *ein = calloc(1, sizeof *ein), *eout = calloc(1, sizeof *eout);
  lm_error err;
  lm_err_clear(&err);
  int rc = 0;
  if (!ein || !eout)
    rc = lm_err(&err, LM_ERR_NOMEM, "out of memory");
  if (rc == 0)
    rc = lm_endpoint_parse(in, ein, &err);
  if (rc == 0)
    rc = lm_endpoint_parse(outp, eout, &err);
  if (rc == 0)
    rc = check_formats(ein, eout, &from, &to, comp, &err);
  if (rc == 0)
    rc = check_same_file(ein, eout, &err);
  lm_endpoint *etmp = NULL;
  static char target[PATH_MAX];
  if (rc == 0 && !(etmp = malloc(sizeof *etmp)))
    rc = lm_err(&err, LM_ERR_NOMEM, "out of memory");
  if (rc == 0)
    rc = tmp_open(eout, etmp, target, &err);
  if (rc) {
    fprintf(stderr, "laminardb convert: %s\n", err.msg);
    free(ein);
    free(eout);
    free(etmp);
    return 1;
  }
  /* a closed pipe or socket reader is a write error, not a silent death */
  signal(SIGPIPE, SIG_IGN);
  sink s = {0};
  s.f = to;
  s.path = eout->kind == LM_EP_STDIO ? "<stdout>" : eout->name;
  s.o.alignment = align;
  s.o.compression = comp;
  s.batch_rows = batch_rows;
  s.so = so;
  lm_buf_init(&s.buf);
  bool use_tmp = etmp->kind == LM_EP_FILE;
  rc = lm_stream_open_opts(use_tmp ? etmp : eout, LM_STREAM_WRITE, &so, &s.st,
                           &err);
  if (rc == 0) {
    if (from == F_ARROW_FILE)
      rc = convert_arrow_file(ein, &s, &err);
    else if (from == F_ARROW_STREAM)
      rc = convert_arrow_stream(ein, &s, &err);
    else
      rc = convert_text(from, ein, &s, infer_rows, &err);
  }
  int rc2 = lm_stream_close(s.st, rc ? NULL : &err);
  if (rc == 0)
    rc = rc2;
  /* OUT is replaced only now, on success; a failure removes the
   * temporary file and leaves OUT as it was */
  if (use_tmp && rc == 0 && rename(etmp->path, target))
    rc = lm_err(&err, LM_ERR_IO, "%s: cannot rename %s to it: %s", eout->name,
                etmp->path, strerror(errno));
  if (use_tmp && rc)
    unlink(etmp->path);
  free(etmp);
  lm_ipc_writer_free(s.w);
  lm_buf_free(&s.buf);
  free(ein);
  free(eout);
  if (rc) {
    fprintf(stderr, "laminardb convert: %s\n", err.msg);
    return 1;
  }
  return 0;
}
