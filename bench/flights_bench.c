/*
 * The flights pipeline, measured in parts (rows/s per core, CPU time):
 *   reference   a plain C loop over the same bytes (line count + a naive
 *               integer parse of the last field), the machine's yardstick;
 *   csv_ingest  the CSV reader decoding into typed batches;
 *   window_agg  the tumbling-window aggregate + the keyed aggregate view fed
 *               pre-decoded batches (watermarks included);
 *   end_to_end  SQL script through the engine: file source, CSV, both
 *               queries, JSON sink, final SELECT.
 * Usage: bench_flights [CSV] [repetitions]. Prints one markdown table and a
 * machine-readable `result` line per part. Not a test: timings vary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "format/lm_csv.h"

static lm_schema *flights_schema(void) {
  lm_schema *s = lm_schema_new(5);
  lm_schema_set_field(s, 0, "ts", lm_type_make(LM_TYPE_TIMESTAMP), false);
  lm_schema_set_field(s, 1, "origin", lm_type_make(LM_TYPE_UTF8), false);
  lm_schema_set_field(s, 2, "destination", lm_type_make(LM_TYPE_UTF8), false);
  lm_schema_set_field(s, 3, "delay", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 4, "distance", lm_type_make(LM_TYPE_INT64), true);
  return s;
}

static const char *PIPELINE =
    "CREATE SOURCE flights (ts TIMESTAMP NOT NULL, origin VARCHAR NOT NULL,"
    " destination VARCHAR NOT NULL, delay BIGINT, distance BIGINT,"
    " WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE)%s;"
    "CREATE STREAM hourly_delays AS SELECT origin,"
    " tumble(ts, INTERVAL '1' HOUR) AS hour, COUNT(*) AS flights,"
    " AVG(delay) AS avg_delay, MAX(delay) AS max_delay FROM flights"
    " GROUP BY origin, tumble(ts, INTERVAL '1' HOUR) EMIT ON WINDOW CLOSE;"
    "CREATE SINK hourly_out FROM hourly_delays INTO FILES ('path' = '%s')"
    " FORMAT JSON;"
    "CREATE MATERIALIZED VIEW delay_by_origin AS SELECT origin,"
    " COUNT(*) AS flights, SUM(delay) AS total_delay FROM flights GROUP BY "
    "origin;";

typedef struct part {
  const char *name;
  int64_t rows;
  int64_t cpu_us;
} part;

static void report(part *p) {
  double rps = p->cpu_us ? (double)p->rows * 1e6 / (double)p->cpu_us : 0;
  printf("| %-11s | %10lld | %9.1f | %8.2f |\n", p->name, (long long)p->rows,
         (double)p->cpu_us / 1000.0, rps / 1e6);
}

int main(int argc, char **argv) {
  const char *path =
      argc > 1 ? argv[1] : "examples/flights/data/flights-200k.csv";
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (reps < 1)
    reps = 1;
  lm_error err;
  lm_err_clear(&err);
  char *data;
  size_t len;
  if (lm_read_file(path, &data, &len, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  lm_schema *schema = flights_schema();
  part ref = {"reference", 0, 0}, csv = {"csv_ingest", 0, 0},
       agg = {"window_agg", 0, 0}, e2e = {"end_to_end", 0, 0};

  /* reference: a plain C loop over the same bytes */
  volatile int64_t sink = 0;
  for (int r = 0; r < reps; r++) {
    int64_t t0 = lm_cpu_time_us(), lines = 0, acc = 0, v = 0;
    for (size_t i = 0; i < len; i++) {
      char c = data[i];
      if (c == '\n') {
        lines++;
        acc += v;
        v = 0;
      } else if (c >= '0' && c <= '9')
        v = v * 10 + (c - '0');
      else if (c == ',')
        v = 0;
    }
    sink += acc;
    ref.cpu_us += lm_cpu_time_us() - t0;
    ref.rows += lines - 1;
  }

  /* csv_ingest: bytes -> typed batches, kept for the next part */
  lm_batch **batches = NULL;
  int n_batches = 0;
  for (int r = 0; r < reps; r++) {
    lm_csv_options o;
    lm_csv_options_default(&o);
    int64_t t0 = lm_cpu_time_us();
    lm_csv_reader *rd = lm_csv_reader_new(schema, &o, path);
    if (lm_csv_reader_feed(rd, data, len, &err) ||
        lm_csv_reader_finish(rd, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    lm_batch *b;
    while ((b = lm_csv_reader_next(rd))) {
      csv.rows += b->num_rows;
      if (r == 0) {
        batches = realloc(batches, sizeof *batches * (size_t)(n_batches + 1));
        batches[n_batches++] = b;
      } else
        lm_batch_release(b);
    }
    lm_csv_reader_free(rd);
    csv.cpu_us += lm_cpu_time_us() - t0;
  }

  /* window_agg: both continuous queries over pre-decoded batches */
  char sql[4096];
  snprintf(sql, sizeof sql, PIPELINE, "", "/dev/null");
  for (int r = 0; r < reps; r++) {
    laminar_db *db;
    laminar_open(&db, NULL);
    if (laminar_execute(db, sql, NULL, (laminar_error *)&err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    lm_node *src = lm_engine_find(db, "flights");
    int64_t t0 = lm_cpu_time_us();
    for (int i = 0; i < n_batches; i++) {
      if (lm_engine_push(db, src, batches[i], &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
      }
      agg.rows += batches[i]->num_rows;
    }
    laminar_end_source(db, "flights", NULL);
    agg.cpu_us += lm_cpu_time_us() - t0;
    laminar_close(db, NULL);
  }

  /* end_to_end: the whole pipeline from the file */
  char from[1024];
  snprintf(from, sizeof from,
           " FROM FILES ('path' = '%s', 'mode' = 'once') FORMAT CSV", path);
  snprintf(sql, sizeof sql, PIPELINE, from, "/dev/null");
  strcat(sql,
         "SELECT origin, flights, total_delay FROM delay_by_origin ORDER BY "
         "flights DESC, origin LIMIT 10;");
  for (int r = 0; r < reps; r++) {
    laminar_db *db;
    laminar_open(&db, NULL);
    laminar_result *res = NULL;
    int64_t t0 = lm_cpu_time_us();
    if (laminar_execute(db, sql, &res, (laminar_error *)&err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    laminar_close(db, NULL);
    e2e.cpu_us += lm_cpu_time_us() - t0;
    e2e.rows += csv.rows / reps;
    laminar_result_free(res);
  }

  printf("flights pipeline, %s, %d repetitions, %.1f MB\n\n", path, reps,
         (double)len / 1e6);
  printf("| part        |       rows |    cpu ms | M rows/s per core |\n");
  printf("|-------------|-----------:|----------:|---------:|\n");
  report(&ref);
  report(&csv);
  report(&agg);
  report(&e2e);
  double ref_rps = (double)ref.rows / (double)ref.cpu_us;
  printf("\nratio vs the plain C loop: csv_ingest %.2f, end_to_end %.2f\n",
         ((double)csv.rows / (double)csv.cpu_us) / ref_rps,
         ((double)e2e.rows / (double)e2e.cpu_us) / ref_rps);
  part *ps[] = {&ref, &csv, &agg, &e2e};
  for (int i = 0; i < 4; i++)
    printf("result part=%s rows=%lld rows_per_core_s=%.0f\n", ps[i]->name,
           (long long)ps[i]->rows,
           ps[i]->cpu_us ? (double)ps[i]->rows * 1e6 / (double)ps[i]->cpu_us
                         : 0);
  if (sink == 42) /* keeps the reference loop's result alive */
    printf("\n");
  for (int i = 0; i < n_batches; i++)
    lm_batch_release(batches[i]);
  free(batches);
  lm_schema_release(schema);
  free(data);
  return 0;
}
