/*
 * Ad-hoc aggregate queries over the 3 M flights rows in a TABLE (issue 6
 * item 7), the Laminar half of bench/flights_adhoc.sh (which runs the same
 * queries in DuckDB, one thread, and prints the comparison).
 *
 * Usage: bench_flights_adhoc CSV [repetitions] [query-name]
 *   CSV: date,delay,distance,origin,destination with a header (made from
 *   ../shared/data/flights-3m.parquet by bench/flights_adhoc.sh).
 * Loads the CSV into `CREATE TABLE flights ... FROM FILES`, then runs each
 * query of bench/flights_adhoc.sql (one per line, "name|SQL") `repetitions`
 * times (default 5) and prints, per query, one machine-readable line
 *   result NAME ROWS BEST_MS MEDIAN_MS BEST_CPU_MS MEDIAN_CPU_MS
 * (wall-clock ms of one run, single thread, the best and the median of the
 * repetitions; then the same for the process's CPU time, user + sys from
 * getrusage(RUSAGE_SELF), which a loaded machine inflates far less than
 * the wall time) after a `load ROWS MS CPU_MS` line. Not a test: timings
 * vary.
 * Exit 0, or 1 with the error on stderr.
 *
 * Another query file (LM_FLIGHTS_ADHOC_SQL, e.g. bench/subquery_adhoc.sql)
 * may bring its own tables: its `@lm SQL` lines are run in order instead
 * of the flights load, with each `$DATA` replaced by the first argument
 * (then a directory); `load` reports the rows of the last table loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "laminar.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The process's CPU time so far (user + sys, every thread), ms. */
static double cpu_ms(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs sql (its rows discarded); *rows receives the result's row count.
 * Returns 0, or 1 after printing the error. */
static int run(laminar_db *db, const char *sql, int64_t *rows) {
  laminar_error err;
  laminar_result *r = NULL;
  if (laminar_execute(db, sql, &r, &err)) {
    fprintf(stderr, "bench_flights_adhoc: %s\n  in: %s\n", err.message, sql);
    return 1;
  }
  *rows = r ? laminar_result_num_rows(r) : 0;
  laminar_result_free(r);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_flights_adhoc CSV [repetitions] [query]\n");
    return 1;
  }
  const char *csv = argv[1];
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  const char *only = argc > 3 ? argv[3] : NULL;
  if (reps < 1)
    reps = 1;
  /* the queries file sits beside this program's source */
  const char *qpath = getenv("LM_FLIGHTS_ADHOC_SQL");
  if (!qpath)
    qpath = "bench/flights_adhoc.sql";
  FILE *qf = fopen(qpath, "r");
  if (!qf) {
    fprintf(stderr,
            "bench_flights_adhoc: cannot open %s (run from the repository "
            "root or set LM_FLIGHTS_ADHOC_SQL)\n",
            qpath);
    return 1;
  }
  laminar_db *db = NULL;
  laminar_error err;
  if (laminar_open(&db, &err)) {
    fprintf(stderr, "bench_flights_adhoc: %s\n", err.message);
    fclose(qf);
    return 1;
  }
  char line[4096];
  char *load = malloc(strlen(csv) * 8 + sizeof line + 512);
  if (!load) {
    fclose(qf);
    laminar_close(db, NULL);
    return 1;
  }
  sprintf(load,
          "CREATE TABLE flights (date TIMESTAMP, delay BIGINT, distance "
          "BIGINT, origin VARCHAR, destination VARCHAR) FROM FILES ('path' = "
          "'%s') FORMAT CSV",
          csv);
  int64_t rows = 0;
  double t0 = now_ms(), c0 = cpu_ms();
  int rc = 0, n_setup = 0;
  char last[256] = "flights";
  while (!rc && fgets(line, sizeof line, qf)) { /* the file's own tables */
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "@lm ", 4))
      continue;
    char *o = load;
    for (const char *p = line + 4; *p;)
      if (!strncmp(p, "$DATA", 5)) {
        o += sprintf(o, "%s", csv);
        p += 5;
      } else {
        *o++ = *p++;
      }
    *o = '\0';
    if (sscanf(load, "CREATE TABLE %255s", last) != 1)
      strcpy(last, "?");
    rc = run(db, load, &rows);
    n_setup++;
  }
  rewind(qf);
  if (!rc && !n_setup)
    rc = run(db, load, &rows);
  double t1 = now_ms(), c1 = cpu_ms();
  free(load);
  char count[300];
  snprintf(count, sizeof count, "SELECT COUNT(*) FROM %s", last);
  if (!rc)
    rc = run(db, count, &rows);
  if (!rc) {
    laminar_result *r = NULL;
    laminar_execute(db, count, &r, &err);
    printf("load %s %.1f %.1f\n", r ? laminar_result_value_text(r, 0, 0) : "?",
           t1 - t0, c1 - c0);
    laminar_result_free(r);
  }
  double *ms = calloc((size_t)reps * 2, sizeof(double));
  double *cpu = ms ? ms + reps : NULL;
  while (!rc && ms && fgets(line, sizeof line, qf)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *bar = strchr(line, '|');
    if (line[0] == '#' || line[0] == '@' || !bar)
      continue;
    *bar = '\0';
    const char *name = line, *sql = bar + 1;
    if (only && strcmp(only, name))
      continue;
    for (int i = 0; i < reps && !rc; i++) {
      double a = now_ms(), c = cpu_ms();
      rc = run(db, sql, &rows);
      ms[i] = now_ms() - a;
      cpu[i] = cpu_ms() - c;
    }
    if (rc)
      break;
    qsort(ms, (size_t)reps, sizeof(double), cmp_double);
    qsort(cpu, (size_t)reps, sizeof(double), cmp_double);
    printf("result %s %lld %.2f %.2f %.2f %.2f\n", name, (long long)rows, ms[0],
           ms[reps / 2], cpu[0], cpu[reps / 2]);
    fflush(stdout);
  }
  free(ms);
  fclose(qf);
  laminar_close(db, NULL);
  return rc;
}
