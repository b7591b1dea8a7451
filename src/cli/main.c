/*
 * laminardb — the command-line entry point.
 *
 *   laminardb run FILE [--output table|csv|json]
 *       FILE is a .sql script or a laminardb.toml holding sql = '''...'''
 *       (${VAR} expanded from the environment). Statements run in order;
 *       SELECT/SHOW/DESCRIBE results print to stdout. Exits 0 once bounded
 *       sources are exhausted and sinks flushed; with unbounded sources it
 *       runs until SIGINT/SIGTERM. Any error: message on stderr, exit 1.
 *   laminardb bench nexmark --query qN --events N [--threads 1] ...
 *       Nexmark query benchmark (bench.c; bench/README.md)
 *   laminardb version | --help
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "columnar/lm_temporal.h"
#include "format/lm_csv.h"
#include "format/lm_json.h"
#include "format/lm_toml.h"

int lm_cli_convert(int argc, char **argv); /* convert.c */
int lm_cli_bench(int argc, char **argv);   /* bench.c */

#define LAMINAR_VERSION "0.1.0"

static laminar_db *g_db;

static void on_signal(int sig) {
  (void)sig;
  if (g_db)
    laminar_interrupt(g_db);
}

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON } out_fmt;

/* One table cell: control characters (newlines in SHOW's SQL text...)
 * become spaces so rows stay on one line. Returns a static buffer. */
static const char *cell(laminar_result *r, int64_t row, int col) {
  static lm_buf b;
  const char *v = laminar_result_value_text(r, row, col);
  if (!v)
    return NULL;
  lm_buf_reset(&b);
  for (const char *p = v; *p; p++)
    lm_buf_putc(&b, (unsigned char)*p < 0x20 ? ' ' : *p);
  return b.data ? b.data : "";
}

static void print_table(laminar_result *r, FILE *f) {
  int nc = laminar_result_num_columns(r);
  int64_t nr = laminar_result_num_rows(r);
  size_t *w = calloc((size_t)nc + 1, sizeof(size_t));
  bool *right = calloc((size_t)nc + 1, sizeof(bool));
  if (!w || !right) {
    free(w);
    free(right);
    return;
  }
  for (int c = 0; c < nc; c++) {
    w[c] = strlen(laminar_result_column_name(r, c));
    lm_type t = r->schema->fields[c].type;
    right[c] = lm_type_is_numeric(t);
  }
  for (int64_t i = 0; i < nr; i++)
    for (int c = 0; c < nc; c++) {
      const char *v = cell(r, i, c);
      size_t l = v ? strlen(v) : 4;
      if (l > w[c])
        w[c] = l;
    }
  for (int c = 0; c < nc; c++)
    fprintf(f, "%s %-*s ", c ? "|" : "", (int)w[c],
            laminar_result_column_name(r, c));
  fputc('\n', f);
  for (int c = 0; c < nc; c++) {
    if (c)
      fputc('+', f);
    for (size_t k = 0; k < w[c] + 2; k++)
      fputc('-', f);
  }
  fputc('\n', f);
  for (int64_t i = 0; i < nr; i++) {
    for (int c = 0; c < nc; c++) {
      const char *v = cell(r, i, c);
      if (!v)
        v = "NULL";
      if (right[c])
        fprintf(f, "%s %*s ", c ? "|" : "", (int)w[c], v);
      else
        fprintf(f, "%s %-*s ", c ? "|" : "", (int)w[c], v);
    }
    fputc('\n', f);
  }
  fprintf(f, "(%lld row%s)\n", (long long)nr, nr == 1 ? "" : "s");
  free(w);
  free(right);
}

static int print_result(laminar_result *r, out_fmt fmt) {
  if (fmt == OUT_TABLE) {
    print_table(r, stdout);
    return 0;
  }
  lm_buf b;
  lm_buf_init(&b);
  lm_csv_options o;
  lm_csv_options_default(&o);
  if (fmt == OUT_CSV)
    lm_csv_write_header(&b, r->schema, &o);
  for (int i = 0; i < r->n_batches; i++) {
    if (fmt == OUT_CSV)
      lm_csv_write_batch(&b, r->batches[i], &o);
    else
      lm_json_write_batch(&b, r->batches[i]);
  }
  if (b.len)
    fwrite(b.data, 1, b.len, stdout);
  lm_buf_free(&b);
  return 0;
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* Loads the SQL text of FILE (.sql, or .toml with a `sql` key). */
static int load_sql(const char *path, char **out, size_t *out_len,
                    lm_error *err) {
  char *text = NULL;
  size_t len = 0;
  int rc = lm_read_file(path, &text, &len, err);
  if (rc)
    return rc;
  if (!ends_with(path, ".toml")) {
    *out = text;
    *out_len = len;
    return 0;
  }
  lm_toml_value *root = NULL;
  rc = lm_toml_parse(text, len, &root, err);
  free(text);
  if (rc) {
    lm_err_prefix(err, "%s", path);
    return rc;
  }
  const char *sql = lm_toml_get_string(root, "sql", NULL, NULL);
  if (!sql) {
    lm_toml_free(root);
    return lm_err(err, LM_ERR_BIND, "%s: no 'sql' string in the file", path);
  }
  lm_buf b;
  lm_buf_init(&b);
  rc = lm_env_expand(sql, strlen(sql), &b, err);
  lm_toml_free(root);
  if (rc) {
    lm_buf_free(&b);
    lm_err_prefix(err, "%s: sql", path);
    return rc;
  }
  *out_len = b.len;
  *out = b.data ? b.data : lm_strdup("");
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static void report(const char *file, const lm_error *e, bool sql_pos) {
  if (sql_pos && e->line > 0)
    fprintf(stderr, "laminardb: error: %s:%s\n", file, e->msg);
  else
    fprintf(stderr, "laminardb: error: %s\n", e->msg);
  if (e->detail[0]) /* as psql shows it */
    fprintf(stderr, "DETAIL:  %s\n", e->detail);
  if (e->hint[0])
    fprintf(stderr, "HINT:  %s\n", e->hint);
}

static int cmd_run(const char *file, out_fmt fmt) {
  lm_error err;
  lm_err_clear(&err);
  char *sql = NULL;
  size_t sql_len = 0;
  if (load_sql(file, &sql, &sql_len, &err)) {
    report(file, &err, false);
    return 1;
  }
  lm_sql_script *script = NULL;
  if (lm_sql_parse(sql, sql_len, &script, &err)) {
    report(file, &err, true);
    free(sql);
    return 1;
  }
  laminar_db *db = NULL;
  if (laminar_open(&db, (laminar_error *)&err)) {
    report(file, &err, false);
    lm_sql_script_free(script);
    free(sql);
    return 1;
  }
  g_db = db;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  int rc = 0;
  bool sql_err = false;
  for (int i = 0; i < script->n_stmts && !rc && !db->interrupted; i++) {
    laminar_result *r = NULL;
    lm_stmt_kind k = script->stmts[i]->kind;
    lm_dt_statement_begin(lm_dt_clock_us()); /* now(): the statement's */
    rc = lm_engine_exec(db, script->stmts[i], &r, &err);
    lm_dt_statement_begin(0);
    if (db->notices.len) { /* e.g. a join whose state grows without bound */
      for (const char *l = db->notices.data; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        fprintf(stderr, "laminardb: notice: %s:%.*s\n", file, n, l);
        l += n + (e ? 1 : 0);
      }
      lm_buf_reset(&db->notices);
    }
    if (rc) {
      /* SQL-level errors carry a line:column in this script; data errors
       * (a CSV row, a missing file) carry their own file:line:column. */
      bool ddl = k != LM_STMT_SELECT && k != LM_STMT_INSERT;
      sql_err = err.line > 0 &&
                (ddl || (err.code != LM_ERR_PARSE && err.code != LM_ERR_IO));
    }
    if (r) {
      print_result(r, fmt);
      laminar_result_free(r);
      fflush(stdout);
    }
  }
  if (!rc) {
    rc = laminar_run(db, (laminar_error *)&err);
    /* queries that failed while the sources ran (docs/failures.md) */
    for (const char *l = laminar_notices(db); *l;) {
      const char *e = strchr(l, '\n');
      int n = e ? (int)(e - l) : (int)strlen(l);
      fprintf(stderr, "laminardb: notice: %s: %.*s\n", file, n, l);
      l += n + (e ? 1 : 0);
    }
  }
  if (rc)
    report(file, &err, sql_err);
  /* summaries of where sinks wrote */
  for (int i = 0; !rc && i < db->n_sinks; i++) {
    lm_sink *s = db->sinks[i];
    if (s->file) {
      long long n = (long long)lm_file_sink_rows(s->file);
      fprintf(stderr, "sink %s: %lld %s written to %s\n", s->name, n,
              n == 1 ? "row" : "rows", lm_file_sink_path(s->file));
    }
  }
  for (int i = 0; !rc && i < db->n_nodes; i++) {
    lm_node *n = db->nodes[i];
    if (n->kind == LM_NODE_SOURCE && n->late_dropped)
      fprintf(stderr, "source %s: %lld late rows dropped\n", n->name,
              (long long)n->late_dropped);
    if (n->kind == LM_NODE_SOURCE && n->bad_rows) /* docs/bad_rows.md */
      fprintf(stderr, "source %s: %lld bad rows skipped\n", n->name,
              (long long)n->bad_rows);
    int64_t late = 0;
    for (lm_operator *op = n->query ? n->query->head : NULL; op; op = op->next)
      late += op->late_dropped;
    if (late)
      fprintf(stderr,
              "%s %s: %lld rows dropped (window already closed, or no event "
              "time)\n",
              n->kind == LM_NODE_STREAM ? "stream" : "materialized view",
              n->name, (long long)late);
  }
  lm_error cerr;
  lm_err_clear(&cerr);
  int crc = laminar_close(db, (laminar_error *)&cerr);
  g_db = NULL;
  if (crc && !rc) {
    report(file, &cerr, false);
    rc = crc;
  }
  lm_sql_script_free(script);
  free(sql);
  return rc ? 1 : 0;
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: laminardb run FILE [--output table|csv|json]\n"
      "       laminardb convert [--from FMT] [--to FMT] [--compression "
      "zstd|lz4] "
      "IN OUT\n"
      "       laminardb bench nexmark --query qN --events N [--threads 1] "
      "[--rate R] [--from-memory] [--no-filter-pushdown]\n"
      "       laminardb version\n"
      "\n"
      "  run FILE   run a .sql script or a laminardb.toml (sql = '''...''')\n"
      "             statements in order; SELECT results go to stdout\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 1;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "convert"))
    return lm_cli_convert(argc - 1, argv + 1);
  if (!strcmp(argv[1], "bench"))
    return lm_cli_bench(argc - 1, argv + 1);
  if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
    printf("laminardb %s\n", LAMINAR_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "run")) {
    const char *file = NULL;
    out_fmt fmt = OUT_TABLE;
    for (int i = 2; i < argc; i++) {
      if (!strcmp(argv[i], "--output") || !strcmp(argv[i], "-o")) {
        if (++i >= argc) {
          fprintf(stderr, "laminardb: --output needs table, csv or json\n");
          return 1;
        }
        if (!strcmp(argv[i], "table"))
          fmt = OUT_TABLE;
        else if (!strcmp(argv[i], "csv"))
          fmt = OUT_CSV;
        else if (!strcmp(argv[i], "json"))
          fmt = OUT_JSON;
        else {
          fprintf(stderr, "laminardb: unknown output format '%s'\n", argv[i]);
          return 1;
        }
      } else if (!file)
        file = argv[i];
      else {
        fprintf(stderr, "laminardb: unexpected argument '%s'\n", argv[i]);
        return 1;
      }
    }
    if (!file) {
      usage(stderr);
      return 1;
    }
    return cmd_run(file, fmt);
  }
  fprintf(stderr, "laminardb: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 1;
}
