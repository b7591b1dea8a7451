/* The partitioned files sink: INTO FILES ('path' = dir, 'partition.by' =
 * 'a, b') writes each row into a Hive-style directory of its partition
 * values, dir/a=<value>/b=<value>/, as Flink's filesystem sink does with
 * PARTITIONED BY (a, b). Each partition directory holds part files written
 * under a hidden in-progress name and renamed to their final name when
 * they are rolled (size, rollover interval) or the sink is closed, so a
 * visible part file is complete and every row is in exactly one of them.
 * docs/sinks.md describes the options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "connectors/lm_connectors.h"

#define DEFAULT_FILE_SIZE (INT64_C(128) << 20)       /* Flink's 128 MB */
#define DEFAULT_ROLLOVER_US (INT64_C(30) * 60000000) /* Flink's 30 min */

typedef struct part_dir {
  char *rel; /* "a=1/b=x" (escaped values) */
  uint64_t hash;
  lm_file_sink *file; /* the open in-progress part file; NULL = none */
  char *tmp_path, *final_path;
  int64_t opened_us; /* processing time the part file was opened */
  int64_t files;     /* part files completed in this directory */
  bool committed;    /* _SUCCESS written */
  int32_t *idx;      /* rows of the batch being written */
  int64_t n_idx, cap_idx;
} part_dir;

struct lm_part_sink {
  char *dir;
  char *format;
  char *prefix;
  const char *ext;
  char *default_name;
  lm_schema *schema;      /* the input's */
  lm_schema *file_schema; /* the columns written to the part files */
  int *part_cols;         /* partition columns, in directory order */
  int n_part_cols;
  int *file_cols; /* input column of each file_schema column */
  int n_file_cols;
  int64_t max_bytes;
  int64_t rollover_us;
  int64_t now_us;
  bool success_file;
  part_dir **dirs;
  int n_dirs, cap_dirs;
  int *slots; /* open addressing: index into dirs + 1; 0 = empty */
  int n_slots;
  int64_t seq;     /* part files opened, for unique names */
  char run_id[40]; /* a random UUID per sink instance (Flink's part-<uuid>) */
  int64_t rows;
  lm_buf key;
};

/* Appends text to b with Hive's path escaping (Flink PartitionPathUtils:
 * control characters, DEL and the characters of `special` become %XX). */
static int escape_append(lm_buf *b, const char *s, size_t n) {
  static const char special[] = "\"#%'*/:=?\\{[]^";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f || memchr(special, c, sizeof special - 1)) {
      if (lm_buf_printf(b, "%%%02X", c))
        return LM_ERR_NOMEM;
    } else if (lm_buf_putc(b, (char)c)) {
      return LM_ERR_NOMEM;
    }
  }
  return 0;
}

/* The directory of row r ("a=1/b=x") into s->key. */
static int row_key(lm_part_sink *s, const lm_batch *b, int64_t r) {
  lm_buf_reset(&s->key);
  lm_buf v;
  lm_buf_init(&v);
  int rc = 0;
  for (int k = 0; k < s->n_part_cols && !rc; k++) {
    int c = s->part_cols[k];
    const lm_array *a = b->columns[c];
    if (k)
      rc = lm_buf_putc(&s->key, '/');
    if (!rc)
      rc = escape_append(&s->key, s->schema->fields[c].name,
                         strlen(s->schema->fields[c].name));
    if (!rc)
      rc = lm_buf_putc(&s->key, '=');
    lm_buf_reset(&v);
    if (!rc && lm_array_is_null(a, r))
      rc = escape_append(&s->key, s->default_name, strlen(s->default_name));
    else if (!rc && !(rc = lm_array_format_value(&v, a, r, NULL)))
      rc = v.len ? escape_append(&s->key, v.data, v.len)
                 : escape_append(&s->key, s->default_name,
                                 strlen(s->default_name));
  }
  lm_buf_free(&v);
  return rc ? LM_ERR_NOMEM : 0;
}

/* Whether row r has the same partition values as row p (p < r). */
static bool same_partition(const lm_part_sink *s, const lm_batch *b, int64_t p,
                           int64_t r) {
  for (int k = 0; k < s->n_part_cols; k++)
    if (!lm_array_row_equal(b->columns[s->part_cols[k]], p, r))
      return false;
  return true;
}

static int find_dir(lm_part_sink *s, const char *rel, size_t n,
                    part_dir **out) {
  uint64_t h = lm_hash_bytes(rel, n, 0x51ed);
  if (s->n_slots) {
    for (int i = (int)(h & (uint64_t)(s->n_slots - 1));;
         i = (i + 1) & (s->n_slots - 1)) {
      int d = s->slots[i];
      if (!d)
        break;
      part_dir *pd = s->dirs[d - 1];
      if (pd->hash == h && strlen(pd->rel) == n && !memcmp(pd->rel, rel, n)) {
        *out = pd;
        return 0;
      }
    }
  }
  /* a new directory */
  if (s->n_dirs == s->cap_dirs) {
    int cap = s->cap_dirs ? s->cap_dirs * 2 : 16;
    part_dir **nd = realloc(s->dirs, sizeof *nd * (size_t)cap);
    if (!nd)
      return LM_ERR_NOMEM;
    s->dirs = nd;
    s->cap_dirs = cap;
  }
  part_dir *pd = calloc(1, sizeof *pd);
  if (!pd || !(pd->rel = malloc(n + 1))) {
    free(pd);
    return LM_ERR_NOMEM;
  }
  memcpy(pd->rel, rel, n);
  pd->rel[n] = 0;
  pd->hash = h;
  s->dirs[s->n_dirs++] = pd;
  if (s->n_dirs * 2 > s->n_slots) { /* rehash at half full */
    int ns = s->n_slots ? s->n_slots * 2 : 64;
    while (ns < s->n_dirs * 2)
      ns *= 2;
    int *sl = calloc((size_t)ns, sizeof *sl);
    if (!sl)
      return LM_ERR_NOMEM; /* pd stays listed; the next lookup adds it */
    free(s->slots);
    s->slots = sl;
    s->n_slots = ns;
    for (int d = 0; d < s->n_dirs; d++) {
      int i = (int)(s->dirs[d]->hash & (uint64_t)(ns - 1));
      while (sl[i])
        i = (i + 1) & (ns - 1);
      sl[i] = d + 1;
    }
  } else {
    int i = (int)(h & (uint64_t)(s->n_slots - 1));
    while (s->slots[i])
      i = (i + 1) & (s->n_slots - 1);
    s->slots[i] = s->n_dirs;
  }
  *out = pd;
  return 0;
}

static int mkdirs(const char *path) {
  char *p = lm_strdup(path);
  if (!p)
    return -1;
  for (char *c = p + 1;; c++) {
    if (*c != '/' && *c)
      continue;
    char save = *c;
    *c = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return -1;
    }
    if (!save)
      break;
    *c = save;
  }
  free(p);
  return 0;
}

static int open_part(lm_part_sink *s, part_dir *d, lm_error *err) {
  lm_buf dir, t, f;
  lm_buf_init(&dir);
  lm_buf_init(&t);
  lm_buf_init(&f);
  int rc = lm_buf_printf(&dir, "%s/%s", s->dir, d->rel);
  /* a name unique across runs: the sink instance's random id, then the
   * sequence number of the part file within it */
  if (!rc)
    rc = lm_buf_printf(&t, "%s/.%s-%s-%lld%s.inprogress", dir.data, s->prefix,
                       s->run_id, (long long)s->seq, s->ext);
  if (!rc)
    rc = lm_buf_printf(&f, "%s/%s-%s-%lld%s", dir.data, s->prefix, s->run_id,
                       (long long)s->seq, s->ext);
  if (rc) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else if (mkdirs(dir.data)) {
    rc = lm_err(err, LM_ERR_IO, "%s: cannot create partition directory: %s",
                dir.data, strerror(errno));
  } else {
    bool ipc_file = !strcmp(s->ext, ".arrow");
    rc = lm_file_sink_open_path(t.data, s->format, ipc_file, s->file_schema,
                                &d->file, err);
  }
  lm_buf_free(&dir);
  if (rc) {
    lm_buf_free(&t);
    lm_buf_free(&f);
    return rc;
  }
  s->seq++;
  d->tmp_path = t.data; /* taken over */
  d->final_path = f.data;
  d->opened_us = s->now_us;
  return 0;
}

/* Renames the finished part file tmp to final without ever replacing an
 * existing file: link() fails with EEXIST where rename() would overwrite.
 * On a file system without hard links, rename() after a check. LM_ERR_IO
 * naming the path when final exists or the rename fails. */
static int publish(const char *tmp, const char *final, lm_error *err) {
  if (link(tmp, final) == 0)
    return unlink(tmp) == 0 ? 0
                            : lm_err(err, LM_ERR_IO, "%s: cannot remove: %s",
                                     tmp, strerror(errno));
  if (errno == EEXIST)
    return lm_err(err, LM_ERR_IO,
                  "%s: part file already exists; not overwritten (the "
                  "finished rows stay in %s)",
                  final, tmp);
  struct stat st;
  if (stat(final, &st) == 0)
    return lm_err(err, LM_ERR_IO,
                  "%s: part file already exists; not overwritten (the "
                  "finished rows stay in %s)",
                  final, tmp);
  if (rename(tmp, final) != 0)
    return lm_err(err, LM_ERR_IO,
                  "%s: cannot rename the finished part file: %s", tmp,
                  strerror(errno));
  return 0;
}

/* A random version-4 UUID text (36 characters + NUL) into out; from
 * getrandom(), else the clock, the pid and a counter. */
static void make_run_id(char out[40]) {
  static unsigned counter;
  unsigned char r[16];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t a = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t b =
        ((uint64_t)getpid() << 32) ^ ++counter ^ (uint64_t)(uintptr_t)r;
    for (int i = 0; i < 8; i++) {
      r[i] = (unsigned char)(a >> (8 * i));
      r[8 + i] = (unsigned char)(b >> (8 * i));
    }
  }
  r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
  r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
  snprintf(
      out, 40,
      "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11],
      r[12], r[13], r[14], r[15]);
}

/* Closes d's part file and renames it to its final name. */
static int roll(lm_part_sink *s, part_dir *d, lm_error *err) {
  if (!d->file)
    return 0;
  int rc = lm_file_sink_close(d->file, err);
  d->file = NULL;
  if (!rc)
    rc = publish(d->tmp_path, d->final_path, err);
  if (!rc)
    d->files++;
  free(d->tmp_path);
  free(d->final_path);
  d->tmp_path = d->final_path = NULL;
  (void)s;
  return rc;
}

/* "128MB", "64 kb", "1000": bytes (1024-based units, as Flink's
 * MemorySize); -1 when not a size. */
static int64_t parse_size(const char *v) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (end == v || n <= 0 || errno)
    return -1;
  while (*end == ' ')
    end++;
  int shift = 0;
  if (!*end || !lm_strcasecmp(end, "b") || !lm_strcasecmp(end, "bytes"))
    shift = 0;
  else if (!lm_strcasecmp(end, "k") || !lm_strcasecmp(end, "kb"))
    shift = 10;
  else if (!lm_strcasecmp(end, "m") || !lm_strcasecmp(end, "mb"))
    shift = 20;
  else if (!lm_strcasecmp(end, "g") || !lm_strcasecmp(end, "gb"))
    shift = 30;
  else
    return -1;
  if (n > (INT64_MAX >> shift))
    return -1;
  return (int64_t)n << shift;
}

/* "1 min", "30s", "500 ms", "2 h", "60000" (ms): µs; -1 when not a
 * duration. */
static int64_t parse_duration(const char *v) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (end == v || n <= 0 || errno)
    return -1;
  while (*end == ' ')
    end++;
  int64_t unit;
  if (!*end || !lm_strcasecmp(end, "ms") || !lm_strcasecmp(end, "milli") ||
      !lm_strcasecmp(end, "millis") || !lm_strcasecmp(end, "milliseconds"))
    unit = 1000;
  else if (!lm_strcasecmp(end, "s") || !lm_strcasecmp(end, "sec") ||
           !lm_strcasecmp(end, "second") || !lm_strcasecmp(end, "seconds"))
    unit = 1000000;
  else if (!lm_strcasecmp(end, "min") || !lm_strcasecmp(end, "minute") ||
           !lm_strcasecmp(end, "minutes") || !lm_strcasecmp(end, "m"))
    unit = 60000000;
  else if (!lm_strcasecmp(end, "h") || !lm_strcasecmp(end, "hour") ||
           !lm_strcasecmp(end, "hours"))
    unit = INT64_C(3600000000);
  else
    return -1;
  if (n > INT64_MAX / unit)
    return -1;
  return (int64_t)n * unit;
}

static const char *opt2(const lm_kv *o, int n, const char *a, const char *b) {
  const char *v = lm_kv_get(o, n, a);
  return v ? v : lm_kv_get(o, n, b);
}

void lm_part_sink_free(lm_part_sink *s) {
  if (!s)
    return;
  for (int i = 0; i < s->n_dirs; i++) {
    part_dir *d = s->dirs[i];
    if (d->file) {
      lm_error e;
      lm_err_clear(&e);
      lm_file_sink_close(d->file, &e);
    }
    free(d->tmp_path);
    free(d->final_path);
    free(d->idx);
    free(d->rel);
    free(d);
  }
  free(s->dirs);
  free(s->slots);
  free(s->dir);
  free(s->format);
  free(s->prefix);
  free(s->default_name);
  free(s->part_cols);
  free(s->file_cols);
  lm_schema_release(s->schema);
  lm_schema_release(s->file_schema);
  lm_buf_free(&s->key);
  free(s);
}

int lm_part_sink_open(const lm_kv *opts, int n_opts, const char *format,
                      lm_schema *schema, int64_t now_us, lm_part_sink **out,
                      lm_error *err) {
  *out = NULL;
  const char *path = lm_kv_get(opts, n_opts, "path");
  const char *by = lm_kv_get(opts, n_opts, "partition.by");
  if (!path || !*path)
    return lm_err(err, LM_ERR_BIND, "FILES sink needs a 'path' option");
  const char *ext;
  if (!lm_strcasecmp(format, "JSON") || !lm_strcasecmp(format, "NDJSON"))
    ext = ".json";
  else if (!lm_strcasecmp(format, "CSV"))
    ext = ".csv";
  else if (!lm_strcasecmp(format, "ARROW_IPC") ||
           !lm_strcasecmp(format, "ARROW"))
    ext = ".arrow";
  else
    return lm_err(err, LM_ERR_BIND,
                  "FILES sink format %s is not supported (JSON, CSV or "
                  "ARROW_IPC)",
                  format);
  const char *pre = lm_kv_get(opts, n_opts, "prefix");
  if (pre && strchr(pre, '/'))
    return lm_err(err, LM_ERR_BIND,
                  "FILES sink option 'prefix' = '%s' must not contain '/': it "
                  "names the part files inside each partition directory",
                  pre);
  const char *dn = lm_kv_get(opts, n_opts, "partition.default-name");
  if (dn && !*dn)
    return lm_err(err, LM_ERR_BIND,
                  "'partition.default-name' must not be empty: it names the "
                  "directory of NULL and empty values");
  lm_part_sink *s = calloc(1, sizeof *s);
  if (!s)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf_init(&s->key);
  s->ext = ext;
  s->now_us = now_us;
  s->schema = lm_schema_retain(schema);
  s->dir = lm_strdup(path);
  s->format = lm_strdup(format);
  make_run_id(s->run_id);
  s->prefix = lm_strdup(pre && *pre ? pre : "part");
  s->default_name = lm_strdup(dn ? dn : "__DEFAULT_PARTITION__");
  s->part_cols = calloc((size_t)schema->n_fields + 1, sizeof(int));
  s->file_cols = calloc((size_t)schema->n_fields + 1, sizeof(int));
  int rc = 0;
  if (!s->dir || !s->format || !s->prefix || !s->default_name ||
      !s->part_cols || !s->file_cols)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  /* trailing slashes of the directory */
  for (size_t l = s->dir ? strlen(s->dir) : 0;
       !rc && l > 1 && s->dir[l - 1] == '/';)
    s->dir[--l] = 0;
  /* 'partition.by' = 'a, b': input columns, each once */
  for (const char *p = by; !rc && p && *p;) {
    while (*p == ' ' || *p == ',')
      p++;
    const char *e = p;
    while (*e && *e != ',')
      e++;
    const char *t = e;
    while (t > p && t[-1] == ' ')
      t--;
    if (t == p)
      break;
    char name[256];
    size_t n =
        (size_t)(t - p) < sizeof name - 1 ? (size_t)(t - p) : sizeof name - 1;
    memcpy(name, p, n);
    name[n] = 0;
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
      memmove(name, name + 1, n - 2);
      name[n - 2] = 0;
    }
    int c = lm_schema_find(schema, name);
    if (c < 0) {
      rc = lm_err(err, LM_ERR_BIND,
                  "'partition.by': '%s' is not a column of the sink's input",
                  name);
      break;
    }
    for (int k = 0; k < s->n_part_cols; k++)
      if (s->part_cols[k] == c)
        rc = lm_err(err, LM_ERR_BIND, "'partition.by': '%s' is listed twice",
                    name);
    if (!rc && s->n_part_cols >= schema->n_fields)
      rc = lm_err(err, LM_ERR_BIND, "'partition.by': too many columns");
    if (!rc)
      s->part_cols[s->n_part_cols++] = c;
    p = e;
  }
  if (!rc && s->n_part_cols == 0)
    rc = lm_err(err, LM_ERR_BIND,
                "'partition.by' must name at least one column of the sink's "
                "input");
  /* the partition columns are in the path, not in the files (Flink's
   * filesystem sink), unless 'partition.columns-in-file' = 'true' */
  const char *inf = lm_kv_get(opts, n_opts, "partition.columns-in-file");
  bool keep = false;
  if (!rc && inf) {
    if (!lm_strcasecmp(inf, "true"))
      keep = true;
    else if (lm_strcasecmp(inf, "false"))
      rc = lm_err(err, LM_ERR_BIND,
                  "'partition.columns-in-file' must be 'true' or 'false', not "
                  "'%s'",
                  inf);
  }
  for (int c = 0; !rc && c < schema->n_fields; c++) {
    bool is_part = false;
    for (int k = 0; k < s->n_part_cols; k++)
      is_part |= s->part_cols[k] == c;
    if (keep || !is_part)
      s->file_cols[s->n_file_cols++] = c;
  }
  if (!rc && s->n_file_cols == 0)
    rc = lm_err(err, LM_ERR_BIND,
                "every column of the sink's input is a partition column: the "
                "part files would have none (set "
                "'partition.columns-in-file' = 'true')");
  if (!rc) {
    s->file_schema = lm_schema_new(s->n_file_cols);
    for (int i = 0; s->file_schema && i < s->n_file_cols; i++) {
      const lm_field *f = &schema->fields[s->file_cols[i]];
      lm_schema_set_field(s->file_schema, i, f->name, f->type, f->nullable);
    }
    if (!s->file_schema)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  s->max_bytes = DEFAULT_FILE_SIZE;
  s->rollover_us = DEFAULT_ROLLOVER_US;
  const char *v =
      opt2(opts, n_opts, "sink.rolling-policy.file-size", "max_file_size");
  if (!rc && v && (s->max_bytes = parse_size(v)) < 0)
    rc = lm_err(err, LM_ERR_BIND,
                "'sink.rolling-policy.file-size' must be a positive size "
                "('128MB', '64kb', '1000'), not '%s'",
                v);
  v = lm_kv_get(opts, n_opts, "sink.rolling-policy.rollover-interval");
  if (!rc && v && (s->rollover_us = parse_duration(v)) < 0)
    rc = lm_err(err, LM_ERR_BIND,
                "'sink.rolling-policy.rollover-interval' must be a positive "
                "duration ('1 min', '30 s', '500 ms'), not '%s'",
                v);
  v = lm_kv_get(opts, n_opts, "sink.partition-commit.policy.kind");
  if (!rc && v) {
    if (!lm_strcasecmp(v, "success-file"))
      s->success_file = true;
    else
      rc = lm_err(err, LM_ERR_BIND,
                  "'sink.partition-commit.policy.kind' must be "
                  "'success-file', not '%s'",
                  v);
  }
  if (!rc && mkdirs(s->dir))
    rc = lm_err(err, LM_ERR_IO, "%s: cannot create the sink directory: %s",
                s->dir, strerror(errno));
  if (rc) {
    lm_part_sink_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static int add_row(part_dir *d, int64_t r) {
  if (d->n_idx == d->cap_idx) {
    int64_t cap = d->cap_idx ? d->cap_idx * 2 : 256;
    int32_t *n = realloc(d->idx, sizeof *n * (size_t)cap);
    if (!n)
      return LM_ERR_NOMEM;
    d->idx = n;
    d->cap_idx = cap;
  }
  d->idx[d->n_idx++] = (int32_t)r;
  return 0;
}

/* Writes rows idx of b (the file columns) into d's part file, rolling it
 * first when it has reached the size limit. */
static int write_rows(lm_part_sink *s, part_dir *d, const lm_batch *b,
                      lm_error *err) {
  int rc = 0;
  if (d->file && lm_file_sink_bytes(d->file) >= s->max_bytes &&
      (rc = roll(s, d, err)))
    return rc;
  if (!d->file && (rc = open_part(s, d, err)))
    return rc;
  lm_array **cols = calloc((size_t)s->n_file_cols + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool all = d->n_idx == b->num_rows;
  for (int i = 0; i < s->n_file_cols && !rc; i++) {
    lm_array *a = b->columns[s->file_cols[i]];
    cols[i] =
        all ? lm_array_retain(a) : lm_array_take_nullable(a, d->idx, d->n_idx);
    if (!cols[i])
      rc = LM_ERR_NOMEM;
  }
  lm_batch *out = NULL;
  if (!rc)
    out = lm_batch_new(lm_schema_retain(s->file_schema), d->n_idx, cols);
  else
    for (int i = 0; i < s->n_file_cols; i++)
      lm_array_release(cols[i]);
  free(cols);
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  rc = lm_file_sink_write(d->file, out, err);
  lm_batch_release(out);
  if (!rc)
    s->rows += d->n_idx;
  return rc;
}

int lm_part_sink_write(lm_part_sink *s, const lm_batch *b, lm_error *err) {
  if (b->num_rows == 0)
    return 0;
  if (b->num_rows > INT32_MAX)
    return lm_err(err, LM_ERR_LIMIT, "batch too large for the sink");
  part_dir *cur = NULL;
  part_dir **touched = NULL;
  int n_touched = 0, rc = 0;
  touched = malloc(sizeof *touched * 64);
  int cap_t = 64;
  if (!touched)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t r = 0; r < b->num_rows && !rc; r++) {
    if (!cur || !same_partition(s, b, r - 1, r)) {
      if ((rc = row_key(s, b, r)) ||
          (rc = find_dir(s, s->key.data ? s->key.data : "", s->key.len, &cur)))
        break;
      if (cur->n_idx == 0) {
        if (n_touched == cap_t) {
          part_dir **nt = realloc(touched, sizeof *nt * (size_t)cap_t * 2);
          if (!nt) {
            rc = LM_ERR_NOMEM;
            break;
          }
          touched = nt;
          cap_t *= 2;
        }
        touched[n_touched++] = cur;
      }
    }
    rc = add_row(cur, r);
  }
  if (rc)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n_touched; i++) {
    if (!rc)
      rc = write_rows(s, touched[i], b, err);
    touched[i]->n_idx = 0;
  }
  free(touched);
  return rc;
}

int lm_part_sink_tick(lm_part_sink *s, int64_t now_us, lm_error *err) {
  if (now_us > s->now_us)
    s->now_us = now_us;
  for (int i = 0; i < s->n_dirs; i++) {
    part_dir *d = s->dirs[i];
    if (d->file && s->now_us - d->opened_us >= s->rollover_us) {
      int rc = roll(s, d, err);
      if (rc)
        return rc;
    }
  }
  return 0;
}

int lm_part_sink_flush(lm_part_sink *s, lm_error *err) {
  for (int i = 0; i < s->n_dirs; i++)
    if (s->dirs[i]->file) {
      int rc = lm_file_sink_flush(s->dirs[i]->file, err);
      if (rc)
        return rc;
    }
  return 0;
}

int lm_part_sink_close(lm_part_sink *s, lm_error *err) {
  if (!s)
    return 0;
  int rc = 0;
  for (int i = 0; i < s->n_dirs; i++) {
    part_dir *d = s->dirs[i];
    int r = roll(s, d, err);
    if (!rc)
      rc = r;
    if (!rc && s->success_file && d->files && !d->committed) {
      lm_buf p;
      lm_buf_init(&p);
      FILE *f = NULL;
      if (lm_buf_printf(&p, "%s/%s/_SUCCESS", s->dir, d->rel))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      else if (!(f = fopen(p.data, "w")) || fclose(f) != 0)
        rc = lm_err(err, LM_ERR_IO, "%s: cannot create: %s", p.data,
                    strerror(errno));
      d->committed = !rc;
      lm_buf_free(&p);
    }
  }
  lm_part_sink_free(s);
  return rc;
}

int64_t lm_part_sink_rows(const lm_part_sink *s) {
  return s->rows;
}
const char *lm_part_sink_path(const lm_part_sink *s) {
  return s->dir;
}
