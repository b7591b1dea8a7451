/* Unit tests for connectors/lm_connectors.h: the generator (row values,
 * max.rows and batch sizes, eof, option errors), the files reader over
 * temporary files (CSV and JSON, a directory read in name order, a glob,
 * 'once' and 'watch' modes, a missing path, option errors) and the file
 * sink (exact JSON and CSV text, parent directories, row counts). */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"
#include "connectors/lm_connectors.h"
#include "lm_test.h"

static char DIR_[256]; /* the test's temporary directory */

static void write_file(const char *rel, const char *text, const char *mode) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", DIR_, rel);
  FILE *f = fopen(p, mode);
  if (!f) {
    fprintf(stderr, "cannot write %s\n", p);
    lm_test_failures++;
    return;
  }
  fputs(text, f);
  fclose(f);
}

static char *path_of(const char *rel) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", DIR_, rel);
  return p[k];
}

static char *read_all(const char *path) {
  char *data = NULL;
  size_t len = 0;
  if (lm_read_file(path, &data, &len, NULL) != 0)
    return NULL;
  return data;
}

/* Appends the rows of b as "c1|c2|...;" */
static void render_into(const lm_batch *b, lm_buf *o) {
  for (int64_t r = 0; r < b->num_rows; r++) {
    for (int c = 0; c < b->num_columns; c++) {
      if (c)
        lm_buf_putc(o, '|');
      lm_array_format_value(o, b->columns[c], r, "NULL");
    }
    lm_buf_putc(o, ';');
  }
}

/* Polls r until eof (or `max_polls`), rendering every batch; batch sizes
 * go to sizes ("n,n,..."). Returns the status of the last poll. */
typedef struct drained {
  char text[65536];
  char sizes[512];
  int batches;
  bool eof;
  int rc;
  lm_error err;
} drained;

static void drain(lm_source_reader *r, int max_polls, drained *d) {
  memset(d, 0, sizeof *d);
  lm_buf o, s;
  lm_buf_init(&o);
  lm_buf_init(&s);
  for (int i = 0; i < max_polls; i++) {
    lm_batch *b = NULL;
    bool eof = false;
    d->rc = r->poll(r, &b, &eof, &d->err);
    if (d->rc)
      break;
    if (b) {
      render_into(b, &o);
      lm_buf_printf(&s, "%s%lld", d->batches ? "," : "",
                    (long long)b->num_rows);
      d->batches++;
      lm_batch_release(b);
    }
    if (eof) {
      d->eof = true;
      break;
    }
  }
  snprintf(d->text, sizeof d->text, "%s", o.data ? o.data : "");
  snprintf(d->sizes, sizeof d->sizes, "%s", s.data ? s.data : "");
  lm_buf_free(&o);
  lm_buf_free(&s);
}

/* --------------------------------------------------------- generator */

static void test_generator(void) {
  lm_schema *gs = lm_generator_schema();
  CHECK_EQ_I64(gs->n_fields, 3);
  CHECK_EQ_STR(gs->fields[0].name, "seq");
  CHECK_EQ_STR(gs->fields[1].name, "ts_ms");
  CHECK_EQ_STR(gs->fields[2].name, "value");
  CHECK_EQ_I64(gs->fields[0].type.id, LM_TYPE_INT64);
  CHECK_EQ_I64(gs->fields[1].type.id, LM_TYPE_INT64);
  CHECK_EQ_I64(gs->fields[2].type.id, LM_TYPE_UTF8);
  lm_schema_release(gs);

  lm_kv o1[] = {
      {"rows.per.second", "3"}, {"max.rows", "7"}, {"batch.max.size", "3"}};
  lm_source_reader *r = NULL;
  lm_error err;
  CHECK_EQ_I64(lm_generator_reader_new(o1, 3, &r, &err), 0);
  if (r) {
    CHECK(!r->unbounded);
    drained d;
    drain(r, 100, &d);
    CHECK_EQ_I64(d.rc, 0);
    CHECK(d.eof);
    CHECK_EQ_STR(d.sizes, "3,3,1");
    /* ts_ms = i * 1000 / 3, truncated */
    CHECK_EQ_STR(d.text, "0|0|v0;1|333|v1;2|666|v2;3|1000|v3;4|1333|v4;"
                         "5|1666|v5;6|2000|v6;");
    CHECK_EQ_I64(r->wait_us(r), 0);
    /* eof stays eof */
    lm_batch *b = (lm_batch *)1;
    bool eof = false;
    CHECK_EQ_I64(r->poll(r, &b, &eof, &err), 0);
    CHECK(b == NULL);
    CHECK(eof);
    r->free(r);
  }

  /* defaults: 1000 rows/s, batches of 1024 */
  lm_kv o2[] = {{"max.rows", "2500"}};
  CHECK_EQ_I64(lm_generator_reader_new(o2, 1, &r, &err), 0);
  if (r) {
    drained d;
    drain(r, 100, &d);
    CHECK(d.eof);
    CHECK_EQ_STR(d.sizes, "1024,1024,452");
    CHECK(strstr(d.text, "1999|1999|v1999;") != NULL);
    CHECK(strstr(d.text, ";2499|2499|v2499;") != NULL);
    r->free(r);
  }
  /* max.rows = 0: nothing, then eof */
  lm_kv o3[] = {{"max.rows", "0"}};
  CHECK_EQ_I64(lm_generator_reader_new(o3, 1, &r, &err), 0);
  if (r) {
    drained d;
    drain(r, 5, &d);
    CHECK(d.eof);
    CHECK_EQ_I64(d.batches, 0);
    r->free(r);
  }
  /* option keys are case-insensitive */
  lm_kv o4[] = {{"ROWS.PER.SECOND", "1000000"}, {"Max.Rows", "3"}};
  CHECK_EQ_I64(lm_generator_reader_new(o4, 2, &r, &err), 0);
  if (r) {
    drained d;
    drain(r, 5, &d);
    CHECK_EQ_STR(d.text, "0|0|v0;1|0|v1;2|0|v2;");
    r->free(r);
  }
  /* unbounded: paced, never eof; the first row is due at once */
  lm_kv o5[] = {{"rows.per.second", "10"}};
  CHECK_EQ_I64(lm_generator_reader_new(o5, 1, &r, &err), 0);
  if (r) {
    CHECK(r->unbounded);
    lm_batch *b = NULL;
    bool eof = true;
    CHECK_EQ_I64(r->poll(r, &b, &eof, &err), 0);
    CHECK(!eof);
    CHECK(b != NULL && b->num_rows >= 1);
    if (b) {
      CHECK_EQ_I64(lm_array_i64(b->columns[0])[0], 0);
      lm_batch_release(b);
    }
    /* the next row is due 100 ms after the start */
    int64_t w = r->wait_us(r);
    CHECK(w > 0 && w <= 100000);
    b = NULL;
    CHECK_EQ_I64(r->poll(r, &b, &eof, &err), 0);
    CHECK(!eof);
    CHECK(b == NULL);
    r->free(r);
  }

  /* bad options */
  struct {
    const char *k, *v, *msg;
  } bad[] = {
      {"rows.per.second", "0",
       "GENERATOR option 'rows.per.second' must be an integer >= 1, not '0'"},
      {"rows.per.second", "fast",
       "GENERATOR option 'rows.per.second' must be an integer >= 1, not "
       "'fast'"},
      {"rows.per.second", "",
       "GENERATOR option 'rows.per.second' must be an integer >= 1, not ''"},
      {"max.rows", "-1",
       "GENERATOR option 'max.rows' must be an integer >= 0, not '-1'"},
      {"max.rows", "10x",
       "GENERATOR option 'max.rows' must be an integer >= 0, not '10x'"},
      {"batch.max.size", "0",
       "GENERATOR option 'batch.max.size' must be an integer >= 1, not '0'"},
  };
  for (size_t i = 0; i < LM_ARRAY_LEN(bad); i++) {
    lm_kv o = {bad[i].k, bad[i].v};
    r = (lm_source_reader *)1;
    memset(&err, 0, sizeof err);
    CHECK_EQ_I64(lm_generator_reader_new(&o, 1, &r, &err), LM_ERR_BIND);
    CHECK(r == NULL);
    CHECK_EQ_STR(err.msg, bad[i].msg);
  }
}

/* ------------------------------------------------------ files reader */

static lm_schema *schema_f(void) {
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 1, "name", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 2, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  return s;
}

static lm_source_reader *open_files(lm_schema *s, const char *path,
                                    const char *mode, const char *format,
                                    lm_error *err) {
  lm_kv o[2] = {{"path", path}, {"mode", mode}};
  lm_source_reader *r = NULL;
  memset(err, 0, sizeof *err);
  int rc = lm_files_reader_new(s, o, mode ? 2 : 1, format, &r, err);
  if (rc)
    return NULL;
  return r;
}

static void test_files_once(void) {
  lm_schema *s = schema_f();
  lm_error err;
  drained d;

  /* CSV: header mapped by name (any order, extra columns ignored) */
  write_file("one.csv",
             "name,extra,ID,ts\n"
             "x,1,1,2024-01-01 00:00:00\n"
             "\"y,z\",2,2,\n"
             ",3,3,1969-12-31T23:59:59.5Z\n",
             "w");
  lm_source_reader *r = open_files(s, path_of("one.csv"), "once", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    CHECK(!r->unbounded);
    drain(r, 50, &d);
    CHECK_EQ_I64(d.rc, 0);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "1|x|2024-01-01T00:00:00;2|y,z|NULL;"
                         "3|NULL|1969-12-31T23:59:59.500000;");
    r->free(r);
  }
  /* the format defaults to CSV; mode defaults to once */
  r = open_files(s, path_of("one.csv"), NULL, NULL, &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK(d.eof);
    CHECK(strncmp(d.text, "1|x|", 4) == 0);
    r->free(r);
  }

  /* JSON */
  write_file("one.ndjson",
             "{\"id\": 1, \"name\": \"x\", \"ts\": \"2024-01-01T00:00:00Z\"}\n"
             "\n"
             "{\"id\": 2, \"other\": [1, 2]}\n"
             "{\"ts\": null, \"name\": \"\\u00e9\", \"id\": 3}",
             "w");
  r = open_files(s, path_of("one.ndjson"), "once", "JSON", &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK_EQ_I64(d.rc, 0);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text,
                 "1|x|2024-01-01T00:00:00;2|NULL|NULL;3|\xc3\xa9|NULL;");
    r->free(r);
  }

  /* a directory: every regular file, in name order (subdirectories are
   * skipped) */
  mkdir(path_of("dir"), 0777);
  mkdir(path_of("dir/sub.csv"), 0777);
  write_file("dir/b.csv", "id,name,ts\n2,b,\n", "w");
  write_file("dir/c.csv", "id,name,ts\n3,c,\n4,c,\n", "w");
  write_file("dir/a.csv", "id,name,ts\n1,a,\n", "w");
  write_file("dir/a.txt", "id,name,ts\n9,txt,\n", "w");
  r = open_files(s, path_of("dir"), "once", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK_EQ_I64(d.rc, 0);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "1|a|NULL;9|txt|NULL;2|b|NULL;3|c|NULL;4|c|NULL;");
    CHECK_EQ_I64(d.batches, 4);
    r->free(r);
  }
  /* a glob */
  r = open_files(s, path_of("dir/[bc].csv"), "once", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "2|b|NULL;3|c|NULL;4|c|NULL;");
    r->free(r);
  }
  r = open_files(s, path_of("dir/*.csv"), "once", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "1|a|NULL;2|b|NULL;3|c|NULL;4|c|NULL;");
    r->free(r);
  }

  /* a file larger than the 1 MiB read chunk: rows straddle chunks */
  {
    char *big = path_of("big.csv");
    FILE *f = fopen(big, "w");
    fputs("id,name,ts\n", f);
    enum { NBIG = 150000 };
    for (int i = 0; i < NBIG; i++)
      fprintf(f, "%d,\"name, number %d\",\n", i, i);
    fclose(f);
    r = open_files(s, big, "once", "CSV", &err);
    CHECK(r != NULL);
    int64_t rows = 0, sum = 0, bad = 0;
    bool eof = false;
    int rc = 0;
    for (int i = 0; r && i < 1000 && !eof; i++) {
      lm_batch *b = NULL;
      rc = r->poll(r, &b, &eof, &err);
      if (rc)
        break;
      if (!b)
        continue;
      for (int64_t j = 0; j < b->num_rows; j++) {
        int64_t id = lm_array_i64(b->columns[0])[j];
        char want[64];
        int n = snprintf(want, sizeof want, "name, number %lld", (long long)id);
        int32_t len;
        const char *p = lm_array_str(b->columns[1], j, &len);
        if (id != rows + j || len != n || memcmp(p, want, (size_t)n))
          bad++;
        sum += id;
      }
      rows += b->num_rows;
      lm_batch_release(b);
    }
    CHECK_EQ_I64(rc, 0);
    CHECK(eof);
    CHECK_EQ_I64(rows, NBIG);
    CHECK_EQ_I64(sum, (int64_t)NBIG * (NBIG - 1) / 2);
    CHECK_EQ_I64(bad, 0);
    if (r)
      r->free(r);
  }

  /* options: csv.delimiter and csv.header */
  write_file("semi.csv", "5;e;2000-01-01\n6;\"f;g\";\n", "w");
  lm_kv o[4] = {{"path", path_of("semi.csv")},
                {"csv.delimiter", ";"},
                {"csv.header", "false"},
                {"mode", "once"}};
  r = NULL;
  CHECK_EQ_I64(lm_files_reader_new(s, o, 4, "CSV", &r, &err), 0);
  if (r) {
    drain(r, 50, &d);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "5|e|2000-01-01T00:00:00;6|f;g|NULL;");
    r->free(r);
  }

  /* a bad row, 'on-error' = 'fail': a parse error naming file:line:column */
  write_file("bad.csv", "id,name,ts\n1,a,\nxx,b,\n", "w");
  {
    lm_kv o[3] = {
        {"path", path_of("bad.csv")}, {"mode", "once"}, {"on-error", "fail"}};
    r = NULL;
    CHECK_EQ_I64(lm_files_reader_new(s, o, 3, "CSV", &r, &err), 0);
  }
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK_EQ_I64(d.rc, LM_ERR_PARSE);
    char want[600];
    snprintf(want, sizeof want,
             "%s:3:1: expected BIGINT for column 'id', found 'xx'",
             path_of("bad.csv"));
    CHECK_EQ_STR(d.err.msg, want);
    r->free(r);
  }

  /* the same row by default ('on-error' = 'dead-letter'): the good rows
   * arrive, the bad one is a dead letter with its place (line 3, column 1,
   * byte offset 16 = len("id,name,ts\n1,a,\n") = 11 + 5) */
  r = open_files(s, path_of("bad.csv"), "once", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    drain(r, 50, &d);
    CHECK_EQ_I64(d.rc, 0);
    CHECK(d.eof);
    CHECK_EQ_STR(d.text, "1|a|NULL;");
    CHECK(r->bad_rows != NULL);
    lm_batch *b = NULL;
    int64_t total = 0;
    CHECK_EQ_I64(r->bad_rows(r, &b, &total, &err), 0);
    CHECK_EQ_I64(total, 1);
    CHECK(b != NULL);
    if (b) {
      lm_buf o;
      lm_buf_init(&o);
      render_into(b, &o);
      char want[800];
      snprintf(want, sizeof want,
               "|%s|3|1|16|expected BIGINT for column 'id', found 'xx'|xx,b,;",
               path_of("bad.csv"));
      CHECK_EQ_STR(o.data ? o.data : "", want);
      lm_buf_free(&o);
      lm_batch_release(b);
    }
    CHECK_EQ_I64(r->bad_rows(r, &b, &total, &err), 0);
    CHECK(b == NULL);
    r->free(r);
  }
  {
    lm_kv o[2] = {{"path", path_of("bad.csv")}, {"on-error", "skip"}};
    r = NULL;
    CHECK_EQ_I64(lm_files_reader_new(s, o, 2, "CSV", &r, &err), LM_ERR_BIND);
    CHECK(strstr(err.msg, "'on-error'") != NULL);
  }

  /* missing path, empty glob: errors in 'once' mode */
  r = open_files(s, path_of("nope.csv"), "once", "CSV", &err);
  CHECK(r == NULL);
  CHECK_EQ_I64(err.code, LM_ERR_IO);
  CHECK(strstr(err.msg, path_of("nope.csv")) != NULL);
  CHECK(strstr(err.msg, "No such file or directory") ||
        strstr(err.msg, "no such file or directory"));
  r = open_files(s, path_of("dir/*.json"), "once", "JSON", &err);
  CHECK(r == NULL);
  CHECK_EQ_I64(err.code, LM_ERR_IO);
  r = open_files(s, path_of("nodir/x.csv"), NULL, "CSV", &err);
  CHECK(r == NULL);
  CHECK_EQ_I64(err.code, LM_ERR_IO);

  /* bad options */
  r = open_files(s, path_of("one.csv"), "sometimes", "CSV", &err);
  CHECK(r == NULL);
  CHECK_EQ_I64(err.code, LM_ERR_BIND);
  CHECK_EQ_STR(
      err.msg,
      "FILES option 'mode' must be 'once' or 'watch', not 'sometimes'");
  r = open_files(s, path_of("one.csv"), "once", "XML", &err);
  CHECK(r == NULL);
  CHECK_EQ_I64(err.code, LM_ERR_BIND);
  CHECK_EQ_STR(
      err.msg,
      "FILES source format XML is not supported (CSV, JSON or ARROW_IPC)");
  lm_kv np[1] = {{"mode", "once"}};
  memset(&err, 0, sizeof err);
  CHECK_EQ_I64(lm_files_reader_new(s, np, 1, "CSV", &r, &err), LM_ERR_BIND);
  CHECK_EQ_STR(err.msg, "FILES source needs a 'path' option");
  lm_kv dl[2] = {{"path", path_of("one.csv")}, {"csv.delimiter", ";;"}};
  CHECK_EQ_I64(lm_files_reader_new(s, dl, 2, "CSV", &r, &err), LM_ERR_BIND);
  CHECK_EQ_STR(err.msg, "'csv.delimiter' must be one character");
  lm_schema_release(s);
}

/* Polls up to n times; returns the first batch (rendered) or "" */
static char *poll_some(lm_source_reader *r, int n, bool *eof_out, int *rc_out) {
  static char out[4096];
  out[0] = 0;
  *eof_out = false;
  *rc_out = 0;
  for (int i = 0; i < n; i++) {
    lm_batch *b = NULL;
    bool eof = false;
    lm_error err;
    int rc = r->poll(r, &b, &eof, &err);
    if (rc) {
      *rc_out = rc;
      snprintf(out, sizeof out, "ERR %s", err.msg);
      return out;
    }
    *eof_out = eof;
    if (b) {
      lm_buf o;
      lm_buf_init(&o);
      render_into(b, &o);
      snprintf(out, sizeof out, "%s", o.data ? o.data : "");
      lm_buf_free(&o);
      lm_batch_release(b);
      return out;
    }
  }
  return out;
}

static void test_files_watch(void) {
  lm_schema *s = schema_f();
  lm_error err;
  bool eof;
  int rc;

  write_file("w.csv", "id,name,ts\n1,a,\n", "w");
  lm_source_reader *r = open_files(s, path_of("w.csv"), "watch", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    CHECK(r->unbounded);
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "1|a|NULL;");
    CHECK(!eof);
    /* nothing new: no batch, never eof */
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK(!eof);
    CHECK_EQ_I64(rc, 0);
    /* appended rows are picked up */
    write_file("w.csv", "2,b,\n3,c,\n", "a");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "2|b|NULL;3|c|NULL;");
    CHECK(!eof);
    /* a partial last line waits for its end */
    write_file("w.csv", "4,d", "a");
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    write_file("w.csv", "d,2024-05-06\n", "a");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "4|dd|2024-05-06T00:00:00;");
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK(!eof);
    /* a CRLF split between two appends is one line end */
    write_file("w.csv", "5,e,\r", "a");
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK_EQ_I64(rc, 0);
    write_file("w.csv", "\n6,f,\r\n", "a");
    /* row 5 may come alone or together with row 6, but once */
    char both[256];
    snprintf(both, sizeof both, "%s", poll_some(r, 5, &eof, &rc));
    if (strcmp(both, "5|e|NULL;") == 0)
      snprintf(both + strlen(both), sizeof both - strlen(both), "%s",
               poll_some(r, 5, &eof, &rc));
    CHECK_EQ_STR(both, "5|e|NULL;6|f|NULL;");
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK_EQ_I64(rc, 0);
    r->free(r);
  }

  /* a watched directory that starts empty; files that appear are read */
  mkdir(path_of("wdir"), 0777);
  r = open_files(s, path_of("wdir"), "watch", "JSON", &err);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK(!eof);
    CHECK_EQ_I64(rc, 0);
    write_file("wdir/1.ndjson", "{\"id\": 10}\n", "w");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "10|NULL|NULL;");
    write_file("wdir/2.ndjson", "{\"id\": 20}\n{\"id\": 21}\n", "w");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "20|NULL|NULL;21|NULL|NULL;");
    write_file("wdir/2.ndjson", "{\"id\": 22}\n", "a");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "22|NULL|NULL;");
    CHECK(!eof);
    /* a partial JSON line waits for the rest */
    write_file("wdir/2.ndjson", "{\"id\": 2", "a");
    CHECK_EQ_STR(poll_some(r, 3, &eof, &rc), "");
    CHECK_EQ_I64(rc, 0);
    write_file("wdir/2.ndjson", "3, \"name\": \"n\"}\n", "a");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "23|n|NULL;");
    r->free(r);
  }
  /* watching a path that does not exist yet is not an error */
  r = open_files(s, path_of("later.csv"), "watch", "CSV", &err);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_STR(poll_some(r, 2, &eof, &rc), "");
    CHECK_EQ_I64(rc, 0);
    write_file("later.csv", "id,name,ts\n7,l,\n", "w");
    CHECK_EQ_STR(poll_some(r, 5, &eof, &rc), "7|l|NULL;");
    r->free(r);
  }
  lm_schema_release(s);
}

/* -------------------------------------------------------------- sink */

static lm_batch *sink_rows(lm_schema **schema_out) {
  lm_schema *s = lm_schema_new(5);
  lm_schema_set_field(s, 0, "k", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 1, "n", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 2, "x", lm_type_make(LM_TYPE_FLOAT64), true);
  lm_schema_set_field(s, 3, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_schema_set_field(s, 4, "b", lm_type_make(LM_TYPE_BOOL), true);
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, 4);
  /* ("a\"b,c", 1, 1.5, 2026-10-18T09:30:00, true) */
  lm_builder_append_str(&bb.cols[0], "a\"b,c", 5);
  lm_builder_append_int(&bb.cols[1], 1);
  lm_builder_append_double(&bb.cols[2], 1.5);
  lm_builder_append_int(&bb.cols[3], 1792315800000000LL);
  lm_builder_append_bool(&bb.cols[4], true);
  /* (NULL, -9223372036854775808, 0.1, 1969-12-31T23:59:59.5, NULL) */
  lm_builder_append_null(&bb.cols[0]);
  lm_builder_append_int(&bb.cols[1], INT64_MIN);
  lm_builder_append_double(&bb.cols[2], 0.1);
  lm_builder_append_int(&bb.cols[3], -500000);
  lm_builder_append_null(&bb.cols[4]);
  /* ("", NULL, NULL, NULL, false) */
  lm_builder_append_str(&bb.cols[0], "", 0);
  lm_builder_append_null(&bb.cols[1]);
  lm_builder_append_null(&bb.cols[2]);
  lm_builder_append_null(&bb.cols[3]);
  lm_builder_append_bool(&bb.cols[4], false);
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  *schema_out = s;
  return b;
}

static void test_file_sink(void) {
  lm_schema *s;
  lm_batch *b = sink_rows(&s);
  lm_error err;

  /* JSON, into directories that do not exist yet */
  const char *jp = path_of("out/deep/er/rows.ndjson");
  lm_kv o[1] = {{"path", jp}};
  lm_file_sink *k = NULL;
  CHECK_EQ_I64(lm_file_sink_open(o, 1, "JSON", s, &k, &err), 0);
  if (k) {
    CHECK_EQ_STR(lm_file_sink_path(k), jp);
    CHECK_EQ_I64(lm_file_sink_rows(k), 0);
    CHECK_EQ_I64(lm_file_sink_write(k, b, &err), 0);
    CHECK_EQ_I64(lm_file_sink_flush(k, &err), 0);
    char *t = read_all(jp);
    CHECK(t != NULL && strncmp(t, "{\"k\":\"a\\\"b,c\"", 13) == 0);
    free(t);
    lm_batch *one = lm_batch_slice(b, 0, 1);
    CHECK_EQ_I64(lm_file_sink_write(k, one, &err), 0);
    lm_batch_release(one);
    lm_batch *none = lm_batch_slice(b, 0, 0);
    CHECK_EQ_I64(lm_file_sink_write(k, none, &err), 0);
    lm_batch_release(none);
    CHECK_EQ_I64(lm_file_sink_rows(k), 4);
    CHECK_EQ_I64(lm_file_sink_close(k, &err), 0);
    t = read_all(jp);
    CHECK_EQ_STR(t,
                 "{\"k\":\"a\\\"b,c\",\"n\":1,\"x\":1.5,\"ts\":\"2026-10-18T09:"
                 "30:00\",\"b\":true}\n"
                 "{\"k\":null,\"n\":-9223372036854775808,\"x\":0.1,\"ts\":"
                 "\"1969-12-31T23:59:59.500000\",\"b\":null}\n"
                 "{\"k\":\"\",\"n\":null,\"x\":null,\"ts\":null,\"b\":false}\n"
                 "{\"k\":\"a\\\"b,c\",\"n\":1,\"x\":1.5,\"ts\":\"2026-10-18T09:"
                 "30:00\",\"b\":true}\n");
    free(t);
  }

  /* CSV: header, quoting, NULL empty, "" for the empty string; opening
   * truncates an existing file; the default format is JSON */
  const char *cp = path_of("out/rows.csv");
  write_file("out/rows.csv", "old contents\n", "w");
  lm_kv oc[1] = {{"path", cp}};
  k = NULL;
  CHECK_EQ_I64(lm_file_sink_open(oc, 1, "CSV", s, &k, &err), 0);
  if (k) {
    char *t = read_all(cp);
    CHECK(t && strstr(t, "old") == NULL);
    free(t);
    CHECK_EQ_I64(lm_file_sink_write(k, b, &err), 0);
    CHECK_EQ_I64(lm_file_sink_rows(k), 3);
    CHECK_EQ_I64(lm_file_sink_close(k, &err), 0);
    t = read_all(cp);
    CHECK_EQ_STR(t, "k,n,x,ts,b\n"
                    "\"a\"\"b,c\",1,1.5,2026-10-18T09:30:00,true\n"
                    ",-9223372036854775808,0.1,1969-12-31T23:59:59.500000,\n"
                    "\"\",,,,false\n");
    free(t);
  }
  /* a sink with no rows: CSV has just the header, JSON is empty */
  const char *ep = path_of("out/empty.csv");
  lm_kv oe[1] = {{"path", ep}};
  CHECK_EQ_I64(lm_file_sink_open(oe, 1, "csv", s, &k, &err), 0);
  if (k) {
    CHECK_EQ_I64(lm_file_sink_close(k, &err), 0);
    char *t = read_all(ep);
    CHECK_EQ_STR(t, "k,n,x,ts,b\n");
    free(t);
  }
  const char *ej = path_of("out/empty.ndjson");
  lm_kv oj[1] = {{"path", ej}};
  CHECK_EQ_I64(lm_file_sink_open(oj, 1, NULL, s, &k, &err), 0);
  if (k) {
    CHECK_EQ_I64(lm_file_sink_close(k, &err), 0);
    char *t = read_all(ej);
    CHECK_EQ_STR(t, "");
    free(t);
  }

  /* errors */
  k = (lm_file_sink *)1;
  lm_kv none[1] = {{"mode", "x"}};
  memset(&err, 0, sizeof err);
  CHECK_EQ_I64(lm_file_sink_open(none, 1, "JSON", s, &k, &err), LM_ERR_BIND);
  CHECK(k == NULL);
  CHECK_EQ_STR(err.msg, "FILES sink needs a 'path' option");
  /* an unknown option is refused (B3_20 item 2), not ignored */
  lm_kv bogus[2] = {{"path", "x.json"}, {"bogus", "1"}};
  CHECK_EQ_I64(lm_file_sink_open(bogus, 2, "JSON", s, &k, &err), LM_ERR_BIND);
  CHECK(k == NULL);
  CHECK(strncmp(err.msg, "'bogus': unknown FILES sink option", 34) == 0);
  CHECK_EQ_I64(lm_file_sink_open(o, 1, "XML", s, &k, &err), LM_ERR_BIND);
  CHECK_EQ_STR(
      err.msg,
      "FILES sink format XML is not supported (JSON, CSV or ARROW_IPC)");
  lm_kv od[1] = {{"path", path_of("out")}}; /* a directory */
  CHECK_EQ_I64(lm_file_sink_open(od, 1, "JSON", s, &k, &err), LM_ERR_IO);
  CHECK(k == NULL);
  CHECK(strstr(err.msg, "cannot create sink file") != NULL);
  write_file("plainfile", "x", "w");
  lm_kv of[1] = {{"path", path_of("plainfile/sub/x.ndjson")}};
  CHECK_EQ_I64(lm_file_sink_open(of, 1, "JSON", s, &k, &err), LM_ERR_IO);
  CHECK_EQ_I64(lm_file_sink_close(NULL, &err), 0);

  lm_batch_release(b);
  lm_schema_release(s);
}

/* rm -r of the temporary directory */
static void rm_rf(const char *p) {
  struct stat st;
  if (lstat(p, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
        continue;
      char c[1024];
      snprintf(c, sizeof c, "%s/%s", p, e->d_name);
      rm_rf(c);
    }
    if (d)
      closedir(d);
    rmdir(p);
  } else {
    unlink(p);
  }
}

int main(void) {
  snprintf(DIR_, sizeof DIR_, "/tmp/lm_test_connectors_XXXXXX");
  if (!mkdtemp(DIR_)) {
    perror("mkdtemp");
    return 1;
  }
  test_generator();
  test_files_once();
  test_files_watch();
  test_file_sink();
  rm_rf(DIR_);
  return lm_test_done("test_connectors");
}
