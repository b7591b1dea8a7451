/* The files source (CSV / NDJSON / Arrow IPC; once or watch) and the files
 * sink. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columnar/lm_conform.h"
#include "connectors/lm_connectors.h"
#include "format/format_internal.h"
#include "format/lm_csv.h"
#include "format/lm_ipc.h"
#include "format/lm_json.h"

#define LM_READ_CHUNK (1 << 20)

const char *lm_kv_get(const lm_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (!lm_strcasecmp(kv[i].key, key))
      return kv[i].value;
  return NULL;
}

typedef enum file_format { FMT_CSV, FMT_JSON, FMT_IPC } file_format;

typedef struct open_file {
  char *path;
  int fd;
  void *reader; /* lm_csv_reader*, lm_json_reader* or lm_ipc_stream_reader* */
  bool started; /* the first bytes were seen */
  bool done;
  /* FORMAT ARROW_IPC: a file starting with the IPC file magic is read
   * through its footer (lm_ipc_file_open: mmap, zero-copy), not as a
   * stream: a file need not hold a Schema message (apache-arrow's JS writer
   * puts the schema in the footer only) and may place a dictionary after
   * the record batches using it (Columnar.html "IPC File Format"). */
  bool ipc_file;
  lm_ipc_file_reader *ipcf;
  int64_t rows_out; /* data rows delivered so far */
} open_file;

typedef struct files_reader {
  lm_source_reader base;
  lm_schema *schema;
  char *pattern;
  file_format fmt;
  bool watch;
  lm_csv_options csv;
  open_file *files;
  int n_files, cur;
  char *chunk;
  const char *last_path; /* the batch returned last: its file */
  int64_t last_first;    /* and the 1-based row of its first row there */
  /* 'on-error' = 'dead-letter' (the default): bad rows go to `bad`, in
   * lm_dead_letter_schema(), until lm_source_reader.bad_rows takes them */
  bool divert;
  lm_batch_builder bad;
  int64_t n_bad;
} files_reader;

#define DL_RAW_MAX 4096 /* bytes of a bad row kept in the dead letter */

lm_schema *lm_dead_letter_schema(void) {
  static const char *const names[] = {"source",      "file",  "line", "col",
                                      "byte_offset", "error", "raw"};
  lm_schema *s = lm_schema_new(7);
  for (int i = 0; s && i < 7; i++)
    lm_schema_set_field(
        s, i, names[i],
        lm_type_make(i >= 2 && i <= 4 ? LM_TYPE_INT64 : LM_TYPE_UTF8), i >= 5);
  return s;
}

/* Appends p[0..n) to b as VARCHAR: invalid UTF-8 bytes become U+FFFD, and
 * at most DL_RAW_MAX bytes are kept ("..." marks a cut). */
static void append_clean(lm_builder *b, const char *p, size_t n) {
  bool cut = n > DL_RAW_MAX;
  if (cut)
    n = DL_RAW_MAX;
  lm_buf o;
  lm_buf_init(&o);
  size_t i = 0;
  while (i < n) {
    size_t ok = lm_fmt_utf8_check(p + i, n - i);
    if (ok == n - i) {
      lm_buf_append(&o, p + i, ok);
      break;
    }
    lm_buf_append(&o, p + i, ok);
    if (cut && n - i - ok < 4) /* a sequence split by the cut */
      break;
    lm_buf_append(&o, "\xEF\xBF\xBD", 3);
    i += ok + 1;
  }
  if (cut)
    lm_buf_append(&o, "...", 3);
  lm_builder_append_str(b, o.data ? o.data : "", (int32_t)o.len);
  lm_buf_free(&o);
}

/* lm_bad_row_fn of the CSV / JSON readers: the row goes to r->bad. */
static int on_bad_row(void *ctx, const lm_bad_row *x) {
  files_reader *r = ctx;
  if (!r->bad.schema) {
    lm_schema *s = lm_dead_letter_schema();
    int rc = s ? lm_batch_builder_init(&r->bad, s, 16) : LM_ERR_NOMEM;
    lm_schema_release(s);
    if (rc)
      return LM_ERR_NOMEM;
  }
  r->n_bad++;
  lm_builder *c = r->bad.cols;
  const char *name = r->base.name ? r->base.name : "";
  lm_builder_append_str(&c[0], name, (int32_t)strlen(name));
  append_clean(&c[1], x->source, strlen(x->source));
  lm_builder_append_int(&c[2], x->line);
  lm_builder_append_int(&c[3], x->column);
  lm_builder_append_int(&c[4], x->byte_offset);
  append_clean(&c[5], x->message, strlen(x->message));
  append_clean(&c[6], x->raw, x->raw_len);
  return 0;
}

static int files_bad_rows(lm_source_reader *base, lm_batch **out,
                          int64_t *n_total, lm_error *err) {
  files_reader *r = (files_reader *)base;
  *out = NULL;
  *n_total = r->n_bad;
  if (!r->bad.schema || lm_batch_builder_rows(&r->bad) == 0)
    return 0;
  return lm_batch_builder_finish(&r->bad, out, err);
}

static void *reader_new(files_reader *r, const char *path) {
  switch (r->fmt) {
  case FMT_JSON: {
    lm_json_options o;
    lm_json_options_default(&o);
    if (r->divert) {
      o.on_bad = on_bad_row;
      o.bad_ctx = r;
    }
    return lm_json_reader_new(r->schema, &o, path);
  }
  case FMT_IPC:
    return lm_ipc_stream_reader_new(NULL, path);
  default:
    return lm_csv_reader_new(r->schema, &r->csv, path);
  }
}
static void reader_free(files_reader *r, void *x) {
  if (r->fmt == FMT_JSON)
    lm_json_reader_free(x);
  else if (r->fmt == FMT_IPC)
    lm_ipc_stream_reader_free(x);
  else
    lm_csv_reader_free(x);
}
static int reader_feed(files_reader *r, open_file *f, const char *p, size_t n,
                       lm_error *err) {
  if (r->fmt == FMT_IPC) {
    if (!f->started && n >= 8 && !memcmp(p, "ARROW1\0\0", 8))
      f->ipc_file = true;
    f->started = true;
    if (f->ipc_file) { /* read at the end through the footer: skip ahead */
      if (lseek(f->fd, 0, SEEK_END) < 0)
        return lm_err(err, LM_ERR_IO, "%s: %s", f->path, strerror(errno));
      return 0;
    }
    return lm_ipc_stream_reader_feed(f->reader, p, n, err);
  }
  f->started = true;
  return r->fmt == FMT_JSON ? lm_json_reader_feed(f->reader, p, n, err)
                            : lm_csv_reader_feed(f->reader, p, n, err);
}
/* Opens an IPC file through its footer; with `wait` (watch mode) a file
 * whose trailing magic is not there yet is left for a later poll. */
static int ipc_file_open(open_file *f, bool wait, lm_error *err) {
  if (f->ipcf)
    return 0;
  struct stat st;
  char tail[6];
  if (wait &&
      (fstat(f->fd, &st) || st.st_size < 8 + 6 ||
       pread(f->fd, tail, 6, st.st_size - 6) != 6 || memcmp(tail, "ARROW1", 6)))
    return 0;
  return lm_ipc_file_open(f->path, NULL, &f->ipcf, err);
}
static int reader_finish(files_reader *r, open_file *f, lm_error *err) {
  void *x = f->reader;
  if (r->fmt == FMT_IPC)
    return f->ipc_file ? ipc_file_open(f, false, err)
                       : lm_ipc_stream_reader_finish(x, err);
  return r->fmt == FMT_JSON ? lm_json_reader_finish(x, err)
                            : lm_csv_reader_finish(x, err);
}
static int reader_flush(files_reader *r, open_file *f, lm_error *err) {
  void *x = f->reader;
  if (r->fmt == FMT_IPC) /* stream batches are complete messages already */
    return f->ipc_file ? ipc_file_open(f, true, err) : 0;
  return r->fmt == FMT_JSON ? lm_json_reader_flush(x, err)
                            : lm_csv_reader_flush(x, err);
}

/* Maps an IPC batch onto the declared columns by name (exact, then
 * case-insensitive), converted to the declared type by lm_conform_array
 * (integers and floats widen, unsigned fits-or-errors, timestamps change
 * unit, Date -> TIMESTAMP, LargeUtf8 and dictionaries -> VARCHAR, other
 * Arrow-only types -> VARCHAR as text); anything else is an error.
 * VARCHAR(n) / CHAR(n) columns are assigned as an INSERT assigns (22001
 * naming the file's row: first_row is in's first). */
static int conform_ipc(files_reader *r, const char *path, int64_t first_row,
                       lm_batch *in, lm_batch **out, lm_error *err) {
  lm_schema *s = r->schema, *fs = in->schema;
  int nc = s->n_fields;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = 0;
  for (int c = 0; c < nc && !rc; c++) {
    const lm_field *f = &s->fields[c];
    int k = -1;
    for (int i = 0; i < fs->n_fields && k < 0; i++)
      if (!strcmp(fs->fields[i].name, f->name))
        k = i;
    if (k < 0)
      k = lm_schema_find(fs, f->name);
    if (k < 0) {
      rc = lm_err(err, LM_ERR_PARSE, "%s: column '%s' is not in the file", path,
                  f->name);
      break;
    }
    lm_array *a = in->columns[k];
    lm_type ft = a->type, dt = f->type;
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: column '%s'", path, f->name);
    rc = lm_conform_array(a, dt, ctx, &cols[c], err);
    if (rc == LM_ERR_BIND) /* no conversion: word the mismatch */
      rc = lm_err(err, LM_ERR_PARSE,
                  "%s: column '%s' is %s in the file, declared %s", path,
                  f->name, lm_type_name(ft), lm_type_name(dt));
    else if (rc)
      break;
    if (!rc && !f->nullable && cols[c]->null_count > 0)
      rc = lm_err(err, LM_ERR_PARSE, "%s: NULL value for NOT NULL column '%s'",
                  path, f->name);
    lm_typmod m = lm_schema_typmod(s, c);
    if (!rc && (m.char_len || m.bpchar)) { /* VARCHAR(n) / CHAR(n) */
      lm_array *t = NULL;
      if (!(rc = lm_conform_chars(cols[c], m, ctx, first_row, &t, err))) {
        lm_array_release(cols[c]);
        cols[c] = t;
      }
    }
  }
  if (rc) {
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
    free(cols);
    return rc;
  }
  *out = lm_batch_new(lm_schema_retain(s), in->num_rows, cols);
  free(cols);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* The next decoded batch of f in the source's schema, or NULL. */
static int reader_next(files_reader *r, open_file *f, lm_batch **out,
                       lm_error *err) {
  *out = NULL;
  if (r->fmt == FMT_CSV) {
    *out = lm_csv_reader_next(f->reader);
    return 0;
  }
  if (r->fmt == FMT_JSON) {
    *out = lm_json_reader_next(f->reader);
    return 0;
  }
  lm_batch *b = NULL;
  if (f->ipcf) {
    int rc = lm_ipc_file_next(f->ipcf, &b, err);
    if (rc)
      return rc;
  } else {
    b = lm_ipc_stream_reader_next(f->reader);
  }
  if (!b)
    return 0;
  int rc = conform_ipc(r, f->path, f->rows_out + 1, b, out, err);
  lm_batch_release(b);
  return rc;
}

/* Adds files matching the pattern that are not known yet (name order). */
static int discover(files_reader *r, lm_error *err) {
  struct stat st;
  glob_t g;
  memset(&g, 0, sizeof g);
  char *pat = NULL;
  if (stat(r->pattern, &st) == 0 && S_ISDIR(st.st_mode))
    pat = lm_asprintf("%s/*", r->pattern);
  else
    pat = lm_strdup(r->pattern);
  if (!pat)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int grc = glob(pat, GLOB_NOSORT | GLOB_NOCHECK, NULL, &g);
  free(pat);
  if (grc != 0 && grc != GLOB_NOMATCH) {
    globfree(&g);
    return lm_err(err, LM_ERR_IO, "%s: cannot list files", r->pattern);
  }
  /* sort names */
  for (size_t i = 1; i < g.gl_pathc; i++)
    for (size_t j = i; j > 0 && strcmp(g.gl_pathv[j - 1], g.gl_pathv[j]) > 0;
         j--) {
      char *t = g.gl_pathv[j];
      g.gl_pathv[j] = g.gl_pathv[j - 1];
      g.gl_pathv[j - 1] = t;
    }
  int rc = 0;
  for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
    const char *p = g.gl_pathv[i];
    if (stat(p, &st) != 0) {
      if (!r->watch)
        rc = lm_err(err, LM_ERR_IO, "%s: %s", p, strerror(errno));
      continue;
    }
    if (!S_ISREG(st.st_mode))
      continue;
    bool known = false;
    for (int k = 0; k < r->n_files; k++)
      if (!strcmp(r->files[k].path, p))
        known = true;
    if (known)
      continue;
    open_file *nf = realloc(r->files, sizeof *nf * (size_t)(r->n_files + 1));
    if (!nf) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    r->files = nf;
    open_file *f = &r->files[r->n_files];
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = lm_strdup(p);
    if (!f->path) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    r->n_files++;
  }
  globfree(&g);
  return rc;
}

/* Records that batch b (just read from f) is the one poll returns. */
static void note_origin(files_reader *r, open_file *f, const lm_batch *b) {
  r->last_path = f->path;
  r->last_first = f->rows_out + 1;
  f->rows_out += b->num_rows;
}

static const char *files_batch_origin(lm_source_reader *base,
                                      int64_t *first_row) {
  files_reader *r = (files_reader *)base;
  *first_row = r->last_first;
  return r->last_path;
}

static int files_poll(lm_source_reader *base, lm_batch **out, bool *eof,
                      lm_error *err) {
  files_reader *r = (files_reader *)base;
  *out = NULL;
  *eof = false;
  if (r->watch) {
    int rc = discover(r, err);
    if (rc)
      return rc;
    r->base.n_partitions = r->n_files;
  }
  while (r->cur < r->n_files) {
    open_file *f = &r->files[r->cur];
    if (!f->reader) {
      f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
      if (f->fd < 0)
        return lm_err(err, LM_ERR_IO, "%s: %s", f->path, strerror(errno));
      f->reader = reader_new(r, f->path);
      if (!f->reader)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    lm_batch *b = NULL;
    int nrc = reader_next(r, f, &b, err);
    if (nrc)
      return nrc;
    if (b) {
      *out = b;
      note_origin(r, f, b);
      r->base.partition = r->cur; /* one partition per file */
      r->base.n_partitions = r->n_files;
      return 0;
    }
    if (f->done) {
      r->cur++;
      continue;
    }
    ssize_t n = read(f->fd, r->chunk, LM_READ_CHUNK);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return lm_err(err, LM_ERR_IO, "%s: %s", f->path, strerror(errno));
    }
    if (n > 0) {
      int rc = reader_feed(r, f, r->chunk, (size_t)n, err);
      if (rc)
        return rc;
      continue;
    }
    /* end of the file's current contents */
    if (r->watch && r->cur == r->n_files - 1) {
      /* deliver the complete rows read so far, then wait for more */
      int rc = reader_flush(r, f, err);
      if (!rc)
        rc = reader_next(r, f, out, err);
      if (!rc && *out)
        note_origin(r, f, *out);
      return rc;
    }
    int rc = reader_finish(r, f, err);
    if (rc)
      return rc;
    f->done = true;
    close(f->fd);
    f->fd = -1;
  }
  *eof = !r->watch;
  return 0;
}

/* A file is exhausted once read to its end (in watch mode: once a later
 * file is being read, as only the last file is watched for more rows). */
static bool files_partition_done(lm_source_reader *base, int p) {
  files_reader *r = (files_reader *)base;
  return p >= 0 && p < r->n_files && (r->files[p].done || p < r->cur);
}

static void files_free(lm_source_reader *base) {
  files_reader *r = (files_reader *)base;
  for (int i = 0; i < r->n_files; i++) {
    if (r->files[i].reader)
      reader_free(r, r->files[i].reader);
    lm_ipc_file_reader_free(r->files[i].ipcf);
    if (r->files[i].fd >= 0)
      close(r->files[i].fd);
    free(r->files[i].path);
  }
  free(r->files);
  free(r->chunk);
  free(r->pattern);
  if (r->bad.schema)
    lm_batch_builder_free(&r->bad);
  lm_schema_release(r->schema);
  free(r);
}

int lm_files_reader_new(lm_schema *schema, const lm_kv *opts, int n_opts,
                        const char *format, lm_source_reader **out,
                        lm_error *err) {
  *out = NULL;
  const char *path = lm_kv_get(opts, n_opts, "path");
  const char *mode = lm_kv_get(opts, n_opts, "mode");
  const char *fmt = format ? format : lm_kv_get(opts, n_opts, "format");
  if (!path)
    return lm_err(err, LM_ERR_BIND, "FILES source needs a 'path' option");
  if (mode && lm_strcasecmp(mode, "once") && lm_strcasecmp(mode, "watch"))
    return lm_err(err, LM_ERR_BIND,
                  "FILES option 'mode' must be 'once' or 'watch', not '%s'",
                  mode);
  if (!fmt)
    fmt = "CSV";
  file_format ff;
  if (!lm_strcasecmp(fmt, "JSON") || !lm_strcasecmp(fmt, "NDJSON"))
    ff = FMT_JSON;
  else if (!lm_strcasecmp(fmt, "CSV"))
    ff = FMT_CSV;
  else if (!lm_strcasecmp(fmt, "ARROW_IPC") || !lm_strcasecmp(fmt, "ARROW"))
    ff = FMT_IPC;
  else
    return lm_err(err, LM_ERR_BIND,
                  "FILES source format %s is not supported (CSV, JSON or "
                  "ARROW_IPC)",
                  fmt);
  files_reader *r = calloc(1, sizeof *r);
  if (!r)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  r->base.poll = files_poll;
  r->base.free = files_free;
  r->base.partition_done = files_partition_done;
  r->base.batch_origin = files_batch_origin;
  r->watch = mode && !lm_strcasecmp(mode, "watch");
  r->base.unbounded = r->watch;
  r->fmt = ff;
  r->schema = lm_schema_retain(schema);
  r->pattern = lm_strdup(path);
  r->chunk = malloc(LM_READ_CHUNK);
  lm_csv_options_default(&r->csv);
  const char *delim = lm_kv_get(opts, n_opts, "csv.delimiter");
  if (delim) {
    if (strlen(delim) != 1) {
      files_free(&r->base);
      return lm_err(err, LM_ERR_BIND, "'csv.delimiter' must be one character");
    }
    r->csv.delimiter = delim[0];
  }
  const char *hdr = lm_kv_get(opts, n_opts, "csv.header");
  if (hdr)
    r->csv.header = !lm_strcasecmp(hdr, "true");
  const char *oe = lm_kv_get(opts, n_opts, "on-error");
  if (oe && lm_strcasecmp(oe, "dead-letter") && lm_strcasecmp(oe, "fail")) {
    files_free(&r->base);
    return lm_err(err, LM_ERR_BIND,
                  "FILES option 'on-error' must be 'dead-letter' or 'fail', "
                  "not '%s'",
                  oe);
  }
  r->divert = ff != FMT_IPC && (!oe || lm_strcasecmp(oe, "fail"));
  if (r->divert) {
    r->csv.on_bad = on_bad_row;
    r->csv.bad_ctx = r;
    r->base.bad_rows = files_bad_rows;
  }
  if (!r->pattern || !r->chunk) {
    files_free(&r->base);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int rc = discover(r, err);
  if (!rc && r->n_files == 0 && !r->watch)
    rc = lm_err(err, LM_ERR_IO, "%s: no such file or directory", path);
  if (rc) {
    files_free(&r->base);
    return rc;
  }
  r->base.n_partitions = r->n_files;
  *out = &r->base;
  return 0;
}

/* ------------------------------------------------------------------ sink */

struct lm_file_sink {
  char *path;
  FILE *f;
  bool json;
  lm_ipc_writer *ipc; /* FORMAT ARROW_IPC */
  bool header_done;
  lm_csv_options csv;
  lm_buf buf;
  int64_t rows;
  int64_t bytes; /* produced so far (written or buffered) */
  int error;
  lm_part_sink *part; /* 'partition.by': everything else unused */
};

static int mkdir_parents(const char *path) {
  char *p = lm_strdup(path);
  if (!p)
    return -1;
  for (char *s = p + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return -1;
    }
    *s = '/';
  }
  free(p);
  return 0;
}

int lm_file_sink_open_path(const char *path, const char *format,
                           bool ipc_file_format, lm_schema *schema,
                           lm_file_sink **out, lm_error *err) {
  *out = NULL;
  const char *fmt = format ? format : "JSON";
  bool json = !lm_strcasecmp(fmt, "JSON") || !lm_strcasecmp(fmt, "NDJSON");
  bool ipc = !lm_strcasecmp(fmt, "ARROW_IPC") || !lm_strcasecmp(fmt, "ARROW");
  if (!json && !ipc && lm_strcasecmp(fmt, "CSV"))
    return lm_err(err, LM_ERR_BIND,
                  "FILES sink format %s is not supported (JSON, CSV or "
                  "ARROW_IPC)",
                  fmt);
  lm_file_sink *s = calloc(1, sizeof *s);
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  s->json = json;
  s->path = lm_strdup(path);
  lm_csv_options_default(&s->csv);
  lm_buf_init(&s->buf);
  if (!s->path) {
    free(s);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  mkdir_parents(path);
  s->f = fopen(path, "w");
  if (!s->f) {
    int e = errno;
    free(s->path);
    free(s);
    return lm_err(err, LM_ERR_IO, "%s: cannot create sink file: %s", path,
                  strerror(e));
  }
  if (ipc) {
    int rc =
        lm_ipc_writer_new(schema, ipc_file_format, NULL, &s->buf, &s->ipc, err);
    if (rc) {
      fclose(s->f);
      free(s->path);
      free(s);
      return rc;
    }
  } else if (!json) {
    lm_csv_write_header(&s->buf, schema, &s->csv);
    s->header_done = true;
  }
  s->bytes = (int64_t)s->buf.len;
  *out = s;
  return 0;
}

/* The options of INTO FILES (docs/sinks.md); any other key is refused, as
 * Flink refuses them, rather than silently ignored. */
static const char *const sink_keys[] = {
    "path",
    "format",
    "partition.by",
    "partition.columns-in-file",
    "partition.default-name",
    "prefix",
    "sink.rolling-policy.file-size",
    "max_file_size",
    "sink.rolling-policy.rollover-interval",
    "sink.partition-commit.policy.kind",
};

int lm_file_sink_open(const lm_kv *opts, int n_opts, const char *format,
                      lm_schema *schema, lm_file_sink **out, lm_error *err) {
  *out = NULL;
  const char *path = lm_kv_get(opts, n_opts, "path");
  if (!path)
    return lm_err(err, LM_ERR_BIND, "FILES sink needs a 'path' option");
  for (int i = 0; i < n_opts; i++) {
    bool known = false;
    for (size_t k = 0; k < LM_ARRAY_LEN(sink_keys) && !known; k++)
      known = !strcmp(opts[i].key, sink_keys[k]);
    if (!known)
      return lm_err(err, LM_ERR_BIND,
                    "'%s': unknown FILES sink option (known: 'path', "
                    "'format', 'partition.by', 'partition.columns-in-file', "
                    "'partition.default-name', 'prefix', "
                    "'sink.rolling-policy.file-size', "
                    "'sink.rolling-policy.rollover-interval', "
                    "'sink.partition-commit.policy.kind')",
                    opts[i].key);
  }
  const char *fmt = format ? format : lm_kv_get(opts, n_opts, "format");
  if (!fmt)
    fmt = "JSON";
  if (lm_kv_get(opts, n_opts, "partition.by")) {
    /* a directory of Hive-style partitions (files_partitioned.c) */
    lm_file_sink *s = calloc(1, sizeof *s);
    if (!s)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int rc = lm_part_sink_open(opts, n_opts, fmt, schema, 0, &s->part, err);
    if (rc) {
      free(s);
      return rc;
    }
    *out = s;
    return 0;
  }
  /* the IPC file format (with a footer) for .arrow/.feather paths, the
   * stream format otherwise */
  size_t l = strlen(path);
  bool file_fmt = (l >= 6 && !strcmp(path + l - 6, ".arrow")) ||
                  (l >= 8 && !strcmp(path + l - 8, ".feather"));
  return lm_file_sink_open_path(path, fmt, file_fmt, schema, out, err);
}

int lm_file_sink_tick(lm_file_sink *s, int64_t now_us, lm_error *err) {
  return s->part ? lm_part_sink_tick(s->part, now_us, err) : 0;
}

int64_t lm_file_sink_bytes(const lm_file_sink *s) {
  return s->bytes;
}

int lm_file_sink_flush(lm_file_sink *s, lm_error *err) {
  if (s->part)
    return lm_part_sink_flush(s->part, err);
  if (s->buf.len && fwrite(s->buf.data, 1, s->buf.len, s->f) != s->buf.len) {
    s->error = LM_ERR_IO;
    return lm_err(err, LM_ERR_IO, "%s: write failed: %s", s->path,
                  strerror(errno));
  }
  lm_buf_reset(&s->buf);
  if (fflush(s->f) != 0)
    return lm_err(err, LM_ERR_IO, "%s: write failed: %s", s->path,
                  strerror(errno));
  return 0;
}

int lm_file_sink_write(lm_file_sink *s, const lm_batch *b, lm_error *err) {
  int rc;
  if (s->part)
    return lm_part_sink_write(s->part, b, err);
  size_t before = s->buf.len;
  if (s->ipc) {
    if ((rc = lm_ipc_writer_write(s->ipc, b, err)))
      return rc;
  } else if (s->json ? lm_json_write_batch(&s->buf, b)
                     : lm_csv_write_batch(&s->buf, b, &s->csv))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  s->rows += b->num_rows;
  s->bytes += (int64_t)(s->buf.len - before);
  if (s->buf.len >= (1 << 20))
    return lm_file_sink_flush(s, err);
  return 0;
}

int lm_file_sink_close(lm_file_sink *s, lm_error *err) {
  if (!s)
    return 0;
  if (s->part) {
    int prc = lm_part_sink_close(s->part, err);
    free(s);
    return prc;
  }
  int rc = 0;
  if (s->ipc) {
    rc = lm_ipc_writer_finish(s->ipc, err); /* end marker (and footer) */
    lm_ipc_writer_free(s->ipc);
  }
  if (!rc)
    rc = lm_file_sink_flush(s, err);
  if (fclose(s->f) != 0 && !rc)
    rc = lm_err(err, LM_ERR_IO, "%s: close failed: %s", s->path,
                strerror(errno));
  lm_buf_free(&s->buf);
  free(s->path);
  free(s);
  return rc;
}

int64_t lm_file_sink_rows(const lm_file_sink *s) {
  return s->part ? lm_part_sink_rows(s->part) : s->rows;
}
const char *lm_file_sink_path(const lm_file_sink *s) {
  return s->part ? lm_part_sink_path(s->part) : s->path;
}
