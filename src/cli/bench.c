/*
 * laminardb bench nexmark --query qN --events N [--threads T] [--rate R]
 *                         [--sql-dir DIR] [--batch-size B] [--from-memory]
 *                         [--no-filter-pushdown]
 *
 * Runs Nexmark query qN (DIR/qN.sql over the sources of DIR/ddl.sql, DIR =
 * bench/nexmark by default, else <dir of the binary>/../bench/nexmark; the
 * files are read at run time, ${EVENTS} and ${RATE} substituted) on the
 * deterministic NEXMARK source with events.num = N and first-event.rate = R
 * (default 100000, Nexmark V2's rate: 10 M events span 100 s of event
 * time), and discards the output: the stream nexmark_qN has one
 * subscription whose queue is emptied (rows counted, batches released)
 * after every push, so nothing accumulates.
 *
 * The harness drives the sources itself, in the caller's thread, as
 * lm_engine_drain would: it opens a NEXMARK reader for every source the
 * query reads (tables no query reads are not generated), pushes each batch
 * with lm_engine_push, and advances the source's watermark itself
 * (max dateTime seen - the source's delay, then +inf at the end) with
 * lm_engine_watermark. That separates the watermark step, so the delay
 * from a window's closing watermark to its emitted row is measured: every
 * row that reaches the subscription during a watermark call gets that
 * call's duration (an upper bound: the row was emitted within it).
 *
 * Only the columns the query reads are generated (projection pushdown,
 * lm_source_pushdown; a line "<source> generates <columns>" says which),
 * and a query's simple WHERE conjuncts skip the bids failing them in the
 * generator (predicate pushdown; a line "<source> skips the rows failing
 * ..." says which; --no-filter-pushdown turns it off).
 * --from-memory is DuckDB's footing: every event, every column, is
 * generated into memory first (not timed, kept until the end), then the
 * query is timed over those batches; the result line then ends with
 * from_memory=1 and peak RSS includes the stored events.
 *
 * Prints events/s (wall), events/s per core (process CPU time), output
 * rows, peak RSS (getrusage ru_maxrss), p50/p99 window-close delay when
 * rows were emitted on watermarks, and ends with
 *   result query=qN events=N events_per_s=X events_per_core_s=Y
 *   peak_rss_bytes=Z
 * Single-threaded: --threads other than 1 is refused. Exit 0, or 1 with a
 * message on stderr.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/engine.h"

int lm_cli_bench(int argc, char **argv);

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The whole file as a NUL-terminated string (caller frees), or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  lm_buf b;
  lm_buf_init(&b);
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    lm_buf_append(&b, chunk, n);
  fclose(f);
  lm_buf_putc(&b, 0);
  return b.data;
}

/* text with every ${EVENTS} / ${RATE} / ${OUTPUT_DIR} replaced (caller
 * frees). */
static char *substitute(const char *text, const char *events, const char *rate,
                        const char *outdir) {
  lm_buf b;
  lm_buf_init(&b);
  for (const char *p = text; *p;) {
    if (!strncmp(p, "${OUTPUT_DIR}", 13)) {
      lm_buf_append(&b, outdir, strlen(outdir));
      p += 13;
    } else if (!strncmp(p, "${EVENTS}", 9)) {
      lm_buf_append(&b, events, strlen(events));
      p += 9;
    } else if (!strncmp(p, "${RATE}", 7)) {
      lm_buf_append(&b, rate, strlen(rate));
      p += 7;
    } else {
      lm_buf_putc(&b, *p++);
    }
  }
  lm_buf_putc(&b, 0);
  return b.data;
}

/* Removes dir and everything under it, counting the regular files and
 * their bytes (best effort: errors are ignored). */
static int64_t rm_bytes, rm_files;
static int rm_one(const char *p, const struct stat *sb, int flag,
                  struct FTW *ftw) {
  (void)ftw;
  if (flag == FTW_F) {
    rm_bytes += sb->st_size;
    rm_files++;
  }
  remove(p);
  return 0;
}
static void rm_tree(const char *dir, int64_t *bytes, int64_t *files) {
  rm_bytes = rm_files = 0;
  nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  *bytes = rm_bytes;
  *files = rm_files;
}

/* The query directory: dir if given, else bench/nexmark, else
 * <binary's dir>/../bench/nexmark. Writes it to out (size n). */
static bool find_dir(const char *dir, const char *argv0, char *out, size_t n) {
  if (dir) {
    snprintf(out, n, "%s", dir);
    return true;
  }
  char probe[4200];
  snprintf(out, n, "bench/nexmark");
  snprintf(probe, sizeof probe, "%s/ddl.sql", out);
  if (!access(probe, R_OK))
    return true;
  char exe[3800];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0)
    len = (ssize_t)snprintf(exe, sizeof exe, "%s", argv0);
  exe[len] = 0;
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = 0;
  else
    snprintf(exe, sizeof exe, ".");
  /* build dirs sit in the repository: <repo>/<build>/laminardb */
  snprintf(out, n, "%s/../bench/nexmark", exe);
  snprintf(probe, sizeof probe, "%s/ddl.sql", out);
  return !access(probe, R_OK);
}

typedef struct delay_sample {
  int64_t ns, rows;
} delay_sample;

typedef struct bench_state {
  laminar_subscription *sub;
  int64_t out_rows;
  delay_sample *d;
  int64_t n_d, cap_d;
} bench_state;

/* Empties the subscription queue; its rows, when they came from a
 * watermark call of delay_ns (>= 0), become one delay sample. */
static int take_output(bench_state *st, int64_t delay_ns) {
  laminar_subscription *s = st->sub;
  int64_t rows = 0;
  for (int i = 0; i < s->n; i++) {
    rows += s->q[i]->num_rows;
    lm_batch_release(s->q[i]);
  }
  s->n = 0;
  st->out_rows += rows;
  if (delay_ns >= 0 && rows > 0) {
    if (st->n_d == st->cap_d) {
      int64_t cap = st->cap_d ? st->cap_d * 2 : 1024;
      delay_sample *d = realloc(st->d, sizeof *d * (size_t)cap);
      if (!d)
        return LM_ERR_NOMEM;
      st->d = d;
      st->cap_d = cap;
    }
    st->d[st->n_d++] = (delay_sample){delay_ns, rows};
  }
  return 0;
}

static int by_ns(const void *a, const void *b) {
  int64_t x = ((const delay_sample *)a)->ns, y = ((const delay_sample *)b)->ns;
  return (x > y) - (x < y);
}

/* The row-weighted quantile q (0..1) of the delay samples, in ns. */
static int64_t quantile(const bench_state *st, int64_t total, double q) {
  int64_t want = (int64_t)(q * (double)total);
  int64_t seen = 0;
  for (int64_t i = 0; i < st->n_d; i++) {
    seen += st->d[i].rows;
    if (seen > want)
      return st->d[i].ns;
  }
  return st->n_d ? st->d[st->n_d - 1].ns : 0;
}

/* One NEXMARK source the query reads. With --from-memory its batches are
 * generated first into mem[0..n_mem) (every column) and handed out from
 * there (next: the next one). */
typedef struct bench_src {
  lm_node *node;
  lm_source_reader *reader;
  int wm_col;
  int64_t wm_delay;
  bool done;
  lm_batch **mem;
  int64_t n_mem, cap_mem, next;
} bench_src;

/* Reads every batch of s's (bounded) reader into s->mem. */
static int preload(bench_src *s, lm_error *err) {
  for (;;) {
    lm_batch *b = NULL;
    bool eof = false;
    int rc = s->reader->poll(s->reader, &b, &eof, err);
    if (rc)
      return rc;
    if (b) {
      if (s->n_mem == s->cap_mem) {
        int64_t cap = s->cap_mem ? s->cap_mem * 2 : 256;
        lm_batch **m = realloc(s->mem, sizeof *m * (size_t)cap);
        if (!m) {
          lm_batch_release(b);
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        }
        s->mem = m;
        s->cap_mem = cap;
      }
      s->mem[s->n_mem++] = b;
    } else if (eof) {
      return 0;
    }
  }
}

/* The next batch of s: from memory (--from-memory) or its reader. */
static int next_batch(bench_src *s, bool from_memory, lm_batch **b, bool *eof,
                      lm_error *err) {
  if (!from_memory)
    return s->reader->poll(s->reader, b, eof, err);
  *b = NULL;
  *eof = s->next == s->n_mem;
  if (!*eof)
    *b = lm_batch_retain(s->mem[s->next++]); /* mem keeps its own */
  return 0;
}

static int advance_wm(laminar_db *db, bench_state *st, bench_src *s, int64_t wm,
                      lm_error *err) {
  if (s->node->wm != INT64_MIN && wm <= s->node->wm)
    return 0;
  int64_t t0 = now_ns();
  int rc = lm_engine_watermark(db, s->node, wm, err);
  int64_t t1 = now_ns();
  if (!rc)
    rc = take_output(st, t1 - t0);
  return rc;
}

static int usage_bench(void) {
  fprintf(stderr,
          "usage: laminardb bench nexmark --query qN --events N [--threads 1] "
          "[--rate EVENTS_PER_S] [--batch-size ROWS] [--sql-dir DIR] "
          "[--from-memory] [--no-filter-pushdown]\n");
  return 1;
}

int lm_cli_bench(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "nexmark"))
    return usage_bench();
  const char *query = NULL, *dir = NULL, *rate = "100000", *batch = NULL;
  long long events = 0, threads = 1;
  bool from_memory = false, no_filter = false;
  bool need[LM_PUSHDOWN_MAX_COLS];
  for (int i = 2; i < argc; i += 2) {
    const char *a = argv[i];
    if (!strcmp(a, "--from-memory")) {
      from_memory = true;
      i--;
      continue;
    }
    if (!strcmp(a, "--no-filter-pushdown")) {
      no_filter = true;
      i--;
      continue;
    }
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      return usage_bench();
    if (!strcmp(a, "--query"))
      query = v;
    else if (!strcmp(a, "--events"))
      events = atoll(v);
    else if (!strcmp(a, "--threads"))
      threads = atoll(v);
    else if (!strcmp(a, "--rate"))
      rate = v;
    else if (!strcmp(a, "--batch-size"))
      batch = v;
    else if (!strcmp(a, "--sql-dir"))
      dir = v;
    else
      return usage_bench();
  }
  if (!query || events <= 0)
    return usage_bench();
  if (threads != 1) {
    fprintf(stderr,
            "laminardb bench: --threads %lld: Laminar runs a query in one "
            "thread today; only --threads 1 is supported\n",
            threads);
    return 1;
  }
  char qdir[4096], path[4200];
  if (!find_dir(dir, argv[0], qdir, sizeof qdir)) {
    fprintf(stderr,
            "laminardb bench: no bench/nexmark/ddl.sql here or next to the "
            "binary; give --sql-dir DIR\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/ddl.sql", qdir);
  char *ddl = slurp(path);
  snprintf(path, sizeof path, "%s/%s.sql", qdir, query);
  char *qsql = slurp(path);
  if (!ddl || !qsql) {
    fprintf(stderr, "laminardb bench: cannot read %s\n", path);
    free(ddl);
    free(qsql);
    return 1;
  }
  char ev[32];
  snprintf(ev, sizeof ev, "%lld", events);
  lm_buf all;
  lm_buf_init(&all);
  lm_buf_append(&all, ddl, strlen(ddl));
  lm_buf_append(&all, qsql, strlen(qsql));
  lm_buf_putc(&all, 0);
  free(ddl);
  free(qsql);
  /* ${OUTPUT_DIR} (q10's file sink): a new directory under /tmp, removed
   * at the end */
  char outdir[64] = "";
  if (strstr(all.data, "${OUTPUT_DIR}")) {
    snprintf(outdir, sizeof outdir, "/tmp/laminardb-bench-XXXXXX");
    if (!mkdtemp(outdir)) {
      fprintf(stderr, "laminardb bench: cannot create %s\n", outdir);
      lm_buf_free(&all);
      return 1;
    }
  }
  char *sql = substitute(all.data, ev, rate, outdir);
  lm_buf_free(&all);

  int rc = 0;
  laminar_error lerr;
  lm_error err;
  lm_err_clear(&err);
  laminar_db *db = NULL;
  bench_state st = {0};
  bench_src src[8];
  memset(src, 0, sizeof src);
  int n_src = 0;
  char stream[64];
  snprintf(stream, sizeof stream, "nexmark_%s", query);
  if (laminar_open(&db, &lerr) || laminar_execute(db, sql, NULL, &lerr) ||
      laminar_subscribe(db, stream, &st.sub, &lerr)) {
    fprintf(stderr, "laminardb bench: %s: %s\n", query, lerr.message);
    free(sql);
    laminar_close(db, NULL);
    return 1;
  }
  free(sql);
  /* the NEXMARK sources the query reads, driven here */
  for (int i = 0; i < db->n_nodes && n_src < 8; i++) {
    lm_node *n = db->nodes[i];
    if (n->kind != LM_NODE_SOURCE || n->n_queries == 0 || !n->connector ||
        lm_strcasecmp(n->connector, "NEXMARK"))
      continue;
    bench_src *s = &src[n_src];
    lm_kv opts[32];
    int no = 0;
    for (int k = 0; k < n->n_opts && no < 31; k++)
      if (!batch || lm_strcasecmp(n->opts[k].key, "batch.size"))
        opts[no++] = n->opts[k];
    if (batch)
      opts[no++] = (lm_kv){"batch.size", batch};
    if ((rc = lm_nexmark_reader_new(n->read_schema ? n->read_schema : n->schema,
                                    opts, no, &s->reader, &err)) ||
        /* only the columns the query reads (unless --from-memory: all,
         * as DuckDB's tables hold them) */
        (!from_memory && (rc = lm_source_pushdown(n, s->reader, &err)))) {
      fprintf(stderr, "laminardb bench: source %s: %s\n", n->name, err.msg);
      break;
    }
    if (!from_memory && lm_source_needed_cols(n, need, LM_PUSHDOWN_MAX_COLS)) {
      printf("  %s generates", n->name);
      for (int c = 0; c < n->schema->n_fields; c++)
        if (need[c])
          printf(" %s", n->schema->fields[c].name);
      printf("\n");
    }
    bool lazy[LM_PUSHDOWN_MAX_COLS];
    int lkey, ltime;
    lm_operator *ljoin;
    if (!from_memory && lm_source_lazy_cols(n, lazy, LM_PUSHDOWN_MAX_COLS,
                                            &lkey, &ltime, &ljoin)) {
      printf("  %s makes", n->name);
      for (int c = 0; c < n->schema->n_fields; c++)
        if (lazy[c])
          printf(" %s", n->schema->fields[c].name);
      printf(" only for the rows the join's dynamic filter on %s keeps (late "
             "materialization)\n",
             n->schema->fields[lkey].name);
    }
    lm_gen_pred preds[LM_GEN_MAX_PREDS];
    int np =
        from_memory ? 0 : lm_source_filter_preds(n, preds, LM_GEN_MAX_PREDS);
    bool applied = false;
    if (np && no_filter &&
        (rc = lm_nexmark_reader_filter(s->reader, NULL, 0, &applied, &err)))
      break;
    if (np && !no_filter) {
      static const char *const OPS[] = {"=", "<>", "<", "<=", ">", ">="};
      printf("  %s skips the rows failing", n->name);
      for (int k = 0; k < np; k++) {
        printf("%s %s", k ? " AND" : "", n->schema->fields[preds[k].col].name);
        if (preds[k].mod)
          printf(" %% %lld", (long long)preds[k].mod);
        printf(" %s %lld", OPS[preds[k].op], (long long)preds[k].value);
      }
      printf(" (predicate pushdown)\n");
    }
    s->node = n;
    s->wm_col = n->wm_col;
    s->wm_delay = n->wm_delay;
    s->done = false;
    n->started = true; /* the engine must not open its own reader */
    n->wm_col = -1;    /* watermarks are advanced below */
    n_src++;
  }
  if (!rc && n_src == 0) {
    fprintf(stderr, "laminardb bench: %s reads no NEXMARK source\n", query);
    rc = 1;
  }
  /* --from-memory: every event generated first, not timed */
  int64_t mem_ns = 0;
  if (!rc && from_memory) {
    int64_t t0 = now_ns();
    for (int i = 0; !rc && i < n_src; i++)
      if ((rc = preload(&src[i], &err)))
        fprintf(stderr, "laminardb bench: %s: %s\n", query, err.msg);
    mem_ns = now_ns() - t0;
  }
  int64_t w0 = now_ns(), c0 = lm_cpu_time_us();
  for (int live = n_src; !rc && live > 0;) {
    for (int i = 0; !rc && i < n_src; i++) {
      bench_src *s = &src[i];
      if (s->done)
        continue;
      lm_batch *b = NULL;
      bool eof = false;
      if ((rc = next_batch(s, from_memory, &b, &eof, &err)))
        break;
      if (b) {
        int64_t wm = INT64_MIN;
        if (s->wm_col >= 0 && b->num_rows > 0) {
          const lm_array *t = b->columns[s->wm_col];
          const int64_t *v = (const int64_t *)t->values->data + t->offset;
          int64_t mx = v[0];
          for (int64_t r = 1; r < b->num_rows; r++)
            mx = v[r] > mx ? v[r] : mx;
          wm = mx - s->wm_delay;
        }
        /* bids a pushed-down filter skipped moved event time too */
        int64_t th = lm_nexmark_reader_time_through(s->reader);
        if (s->wm_col >= 0 && th != INT64_MIN && th - s->wm_delay > wm)
          wm = th - s->wm_delay;
        rc = lm_engine_push(db, s->node, b, &err);
        lm_batch_release(b);
        if (!rc)
          rc = take_output(&st, -1);
        /* PROCTIME() (q12): processing time is the wall clock since the
         * start; its windows close as it passes their end */
        if (!rc && s->node->proctime_col1 &&
            !(rc = lm_engine_tick(db, (now_ns() - w0) / 1000, &err)))
          rc = take_output(&st, -1);
        if (!rc && wm != INT64_MIN)
          rc = advance_wm(db, &st, s, wm, &err);
      } else if (eof) {
        s->done = true;
        s->node->ended = true;
        live--;
        rc = advance_wm(db, &st, s, INT64_MAX, &err);
      }
    }
  }
  int64_t wall_ns = now_ns() - w0, cpu_us = lm_cpu_time_us() - c0;
  if (rc && rc != 1)
    fprintf(stderr, "laminardb bench: %s: %s\n", query, err.msg);
  for (int i = 0; i < n_src; i++) {
    for (int64_t k = 0; k < src[i].n_mem; k++)
      lm_batch_release(src[i].mem[k]);
    free(src[i].mem);
    src[i].reader->free(src[i].reader);
  }
  laminar_unsubscribe(st.sub);
  laminar_close(db, NULL); /* closes the sinks: part files renamed */
  if (outdir[0]) {
    int64_t bytes = 0, files = 0;
    rm_tree(outdir, &bytes, &files);
    printf("  files written     %lld (%.1f MiB), removed\n", (long long)files,
           (double)bytes / 1048576.0);
  }
  if (rc) {
    free(st.d);
    return 1;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long long rss = (long long)ru.ru_maxrss * 1024;
  double eps = (double)events * 1e9 / (double)(wall_ns ? wall_ns : 1);
  double epc = (double)events * 1e6 / (double)(cpu_us ? cpu_us : 1);
  printf("nexmark %s: %lld events (first-event.rate %s), %lld output rows\n",
         query, events, rate, (long long)st.out_rows);
  if (from_memory)
    printf("  from memory: events generated first in %.3f s (not timed)\n",
           (double)mem_ns / 1e9);
  printf("  wall %.3f s, CPU %.3f s\n", (double)wall_ns / 1e9,
         (double)cpu_us / 1e6);
  printf("  events/s          %.0f\n", eps);
  printf("  events/s per core %.0f\n", epc);
  printf("  peak memory       %.1f MiB (ru_maxrss)\n", (double)rss / 1048576.0);
  int64_t wrows = 0;
  for (int64_t i = 0; i < st.n_d; i++)
    wrows += st.d[i].rows;
  if (wrows > 0) {
    qsort(st.d, (size_t)st.n_d, sizeof *st.d, by_ns);
    printf("  window close -> emitted row: p50 %.1f us, p99 %.1f us "
           "(%lld rows on %lld watermarks)\n",
           (double)quantile(&st, wrows, 0.50) / 1e3,
           (double)quantile(&st, wrows, 0.99) / 1e3, (long long)wrows,
           (long long)st.n_d);
  } else {
    printf("  window close -> emitted row: n/a (no rows emitted on "
           "watermarks)\n");
  }
  printf("result query=%s events=%lld events_per_s=%.0f "
         "events_per_core_s=%.0f peak_rss_bytes=%lld%s\n",
         query, events, eps, epc, rss, from_memory ? " from_memory=1" : "");
  free(st.d);
  return 0;
}
