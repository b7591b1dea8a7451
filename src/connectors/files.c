/* The files source (CSV / NDJSON; once or watch) and the files sink. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connectors/lm_connectors.h"
#include "format/lm_csv.h"
#include "format/lm_json.h"

#define LM_READ_CHUNK (1 << 20)

const char *lm_kv_get(const lm_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (!lm_strcasecmp(kv[i].key, key))
      return kv[i].value;
  return NULL;
}

typedef struct open_file {
  char *path;
  int fd;
  void *reader; /* lm_csv_reader* or lm_json_reader* */
  bool done;
} open_file;

typedef struct files_reader {
  lm_source_reader base;
  lm_schema *schema;
  char *pattern;
  bool json, watch;
  lm_csv_options csv;
  open_file *files;
  int n_files, cur;
  char *chunk;
} files_reader;

static void *reader_new(files_reader *r, const char *path) {
  if (r->json) {
    lm_json_options o;
    lm_json_options_default(&o);
    return lm_json_reader_new(r->schema, &o, path);
  }
  return lm_csv_reader_new(r->schema, &r->csv, path);
}
static void reader_free(files_reader *r, void *x) {
  if (r->json)
    lm_json_reader_free(x);
  else
    lm_csv_reader_free(x);
}
static int reader_feed(files_reader *r, void *x, const char *p, size_t n,
                       lm_error *err) {
  return r->json ? lm_json_reader_feed(x, p, n, err)
                 : lm_csv_reader_feed(x, p, n, err);
}
static int reader_finish(files_reader *r, void *x, lm_error *err) {
  return r->json ? lm_json_reader_finish(x, err) : lm_csv_reader_finish(x, err);
}
static int reader_flush(files_reader *r, void *x, lm_error *err) {
  return r->json ? lm_json_reader_flush(x, err) : lm_csv_reader_flush(x, err);
}
static lm_batch *reader_next(files_reader *r, void *x) {
  return r->json ? lm_json_reader_next(x) : lm_csv_reader_next(x);
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

static int files_poll(lm_source_reader *base, lm_batch **out, bool *eof,
                      lm_error *err) {
  files_reader *r = (files_reader *)base;
  *out = NULL;
  *eof = false;
  if (r->watch) {
    int rc = discover(r, err);
    if (rc)
      return rc;
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
    lm_batch *b = reader_next(r, f->reader);
    if (b) {
      *out = b;
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
      int rc = reader_feed(r, f->reader, r->chunk, (size_t)n, err);
      if (rc)
        return rc;
      continue;
    }
    /* end of the file's current contents */
    if (r->watch && r->cur == r->n_files - 1) {
      /* deliver the complete rows read so far, then wait for more */
      int rc = reader_flush(r, f->reader, err);
      if (rc)
        return rc;
      *out = reader_next(r, f->reader);
      return 0;
    }
    int rc = reader_finish(r, f->reader, err);
    if (rc)
      return rc;
    f->done = true;
    close(f->fd);
    f->fd = -1;
  }
  *eof = !r->watch;
  return 0;
}

static void files_free(lm_source_reader *base) {
  files_reader *r = (files_reader *)base;
  for (int i = 0; i < r->n_files; i++) {
    if (r->files[i].reader)
      reader_free(r, r->files[i].reader);
    if (r->files[i].fd >= 0)
      close(r->files[i].fd);
    free(r->files[i].path);
  }
  free(r->files);
  free(r->chunk);
  free(r->pattern);
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
  bool json = !lm_strcasecmp(fmt, "JSON") || !lm_strcasecmp(fmt, "NDJSON");
  if (!json && lm_strcasecmp(fmt, "CSV"))
    return lm_err(err, LM_ERR_BIND,
                  "FILES source format %s is not supported (CSV or JSON)", fmt);
  files_reader *r = calloc(1, sizeof *r);
  if (!r)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  r->base.poll = files_poll;
  r->base.free = files_free;
  r->watch = mode && !lm_strcasecmp(mode, "watch");
  r->base.unbounded = r->watch;
  r->json = json;
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
  *out = &r->base;
  return 0;
}

/* ------------------------------------------------------------------ sink */

struct lm_file_sink {
  char *path;
  FILE *f;
  bool json;
  bool header_done;
  lm_csv_options csv;
  lm_buf buf;
  int64_t rows;
  int error;
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

int lm_file_sink_open(const lm_kv *opts, int n_opts, const char *format,
                      lm_schema *schema, lm_file_sink **out, lm_error *err) {
  *out = NULL;
  const char *path = lm_kv_get(opts, n_opts, "path");
  if (!path)
    return lm_err(err, LM_ERR_BIND, "FILES sink needs a 'path' option");
  const char *fmt = format ? format : "JSON";
  bool json = !lm_strcasecmp(fmt, "JSON") || !lm_strcasecmp(fmt, "NDJSON");
  if (!json && lm_strcasecmp(fmt, "CSV"))
    return lm_err(err, LM_ERR_BIND,
                  "FILES sink format %s is not supported (JSON or CSV)", fmt);
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
  if (!json) {
    lm_csv_write_header(&s->buf, schema, &s->csv);
    s->header_done = true;
  }
  *out = s;
  return 0;
}

int lm_file_sink_flush(lm_file_sink *s, lm_error *err) {
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
  int rc = s->json ? lm_json_write_batch(&s->buf, b)
                   : lm_csv_write_batch(&s->buf, b, &s->csv);
  if (rc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  s->rows += b->num_rows;
  if (s->buf.len >= (1 << 20))
    return lm_file_sink_flush(s, err);
  return 0;
}

int lm_file_sink_close(lm_file_sink *s, lm_error *err) {
  if (!s)
    return 0;
  int rc = lm_file_sink_flush(s, err);
  if (fclose(s->f) != 0 && !rc)
    rc = lm_err(err, LM_ERR_IO, "%s: close failed: %s", s->path,
                strerror(errno));
  lm_buf_free(&s->buf);
  free(s->path);
  free(s);
  return rc;
}

int64_t lm_file_sink_rows(const lm_file_sink *s) {
  return s->rows;
}
const char *lm_file_sink_path(const lm_file_sink *s) {
  return s->path;
}
