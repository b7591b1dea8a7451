/* The partitioned FILES sink (connectors/files_partitioned.c) through SQL:
 * Hive-style directories, escaping, NULL partitions, rolling by size and by
 * processing time (the virtual clock), renames into place, _SUCCESS,
 * option errors. Expected files and contents are written out by hand. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "laminar.h"
#include "lm_test.h"

static char DIR_[256];

static char *path_of(const char *rel) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", DIR_, rel);
  return p[k];
}

static bool exists(const char *rel) {
  struct stat st;
  return stat(path_of(rel), &st) == 0;
}

/* The file's whole text ("" when missing). */
static const char *slurp(const char *rel) {
  static char buf[4096];
  buf[0] = 0;
  FILE *f = fopen(path_of(rel), "r");
  if (!f)
    return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* Entries of a directory, sorted, joined by ' ' ("" when missing). */
static const char *listing(const char *rel) {
  static char out[2048];
  char names[32][256];
  int n = 0;
  out[0] = 0;
  DIR *d = opendir(path_of(rel));
  if (!d)
    return out;
  for (struct dirent *e; (e = readdir(d)) && n < 32;)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      snprintf(names[n++], sizeof names[0], "%s", e->d_name);
  closedir(d);
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char t[256];
      memcpy(t, names[j], sizeof t);
      memcpy(names[j], names[j - 1], sizeof t);
      memcpy(names[j - 1], t, sizeof t);
    }
  for (int i = 0; i < n; i++) {
    if (i)
      strcat(out, " ");
    strcat(out, names[i]);
  }
  return out;
}

static int exec(laminar_db *db, const char *sql, laminar_error *e) {
  int rc = laminar_execute(db, sql, NULL, e);
  if (rc)
    fprintf(stderr, "%s\n  -> %s\n", sql, e->message);
  return rc;
}

static void test_partitions_and_time_rolling(void) {
  laminar_db *db;
  laminar_error e;
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  char sql[1024];
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k VARCHAR, d DATE, v BIGINT)", &e),
               0);
  snprintf(sql, sizeof sql,
           "CREATE SINK s FROM ev INTO FILES ('path' = '%s/t', "
           "'partition.by' = 'k, d', "
           "'sink.rolling-policy.rollover-interval' = '10 s', "
           "'sink.partition-commit.policy.kind' = 'success-file') "
           "FORMAT CSV",
           DIR_);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  /* rows of three partitions: 'a' twice, 'b:/' (escaped), NULL and ''
   * (both the default name) */
  CHECK_EQ_I64(exec(db,
                    "INSERT INTO ev VALUES ('a', DATE '2025-01-02', 1), "
                    "('b:/', DATE '2025-01-02', 2), "
                    "('a', DATE '2025-01-02', 3), "
                    "(NULL, DATE '2025-01-03', 4), "
                    "('', DATE '2025-01-03', 6)",
                    &e),
               0);
  /* the part files exist only under their in-progress names; sequence
   * numbers follow first appearance: a -> 0, b:/ -> 1, NULL -> 2 */
  CHECK_EQ_STR(listing("t"), "k=__DEFAULT_PARTITION__ k=a k=b%3A%2F");
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"), ".part-0.csv.inprogress");
  CHECK_EQ_STR(listing("t/k=b%3A%2F/d=2025-01-02"), ".part-1.csv.inprogress");
  CHECK_EQ_STR(listing("t/k=__DEFAULT_PARTITION__/d=2025-01-03"),
               ".part-2.csv.inprogress");
  /* 9.999999 s of processing time: not rolled yet; 10 s: rolled */
  CHECK_EQ_I64(laminar_advance_time(db, 9999999, &e), 0);
  CHECK(!exists("t/k=a/d=2025-01-02/part-0.csv"));
  CHECK_EQ_I64(laminar_advance_time(db, 1, &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"), "part-0.csv");
  /* the partition columns are in the path only */
  CHECK_EQ_STR(slurp("t/k=a/d=2025-01-02/part-0.csv"), "v\n1\n3\n");
  CHECK_EQ_STR(slurp("t/k=b%3A%2F/d=2025-01-02/part-1.csv"), "v\n2\n");
  /* later rows of 'a' go to a new part file (3), renamed at close */
  CHECK_EQ_I64(
      exec(db, "INSERT INTO ev VALUES ('a', DATE '2025-01-02', 5)", &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"),
               ".part-3.csv.inprogress part-0.csv");
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"), "_SUCCESS part-0.csv part-3.csv");
  CHECK_EQ_STR(slurp("t/k=a/d=2025-01-02/part-3.csv"), "v\n5\n");
  CHECK_EQ_STR(listing("t/k=__DEFAULT_PARTITION__/d=2025-01-03"),
               "_SUCCESS part-2.csv");
  CHECK_EQ_STR(slurp("t/k=__DEFAULT_PARTITION__/d=2025-01-03/part-2.csv"),
               "v\n4\n6\n");
}

static void test_size_rolling_and_options(void) {
  laminar_db *db;
  laminar_error e;
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  char sql[1024];
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k BIGINT, v VARCHAR)", &e), 0);
  /* 8 bytes: the header "v\n" (2) plus one write of "xxxxx\n" (6) reaches
   * it, so the next write opens a new part file */
  snprintf(sql, sizeof sql,
           "CREATE SINK s FROM ev INTO FILES ('path' = '%s/z/', "
           "'partition.by' = 'k', 'max_file_size' = '8', 'prefix' = 'p', "
           "'partition.columns-in-file' = 'false') FORMAT CSV",
           DIR_);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (7, 'xxxxx')", &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (7, 'y')", &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (7, 'z')", &e), 0);
  /* p-0 is rolled (renamed) when the second write finds it full */
  CHECK_EQ_STR(listing("z/k=7"), ".p-1.csv.inprogress p-0.csv");
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("z/k=7"), "p-0.csv p-1.csv");
  CHECK_EQ_STR(slurp("z/k=7/p-0.csv"), "v\nxxxxx\n");
  CHECK_EQ_STR(slurp("z/k=7/p-1.csv"), "v\ny\nz\n");

  /* columns kept in the files; JSON */
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k BIGINT, v VARCHAR)", &e), 0);
  snprintf(sql, sizeof sql,
           "CREATE SINK s FROM ev INTO FILES ('path' = '%s/j', "
           "'partition.by' = 'k', 'partition.columns-in-file' = 'true', "
           "'format' = 'json')",
           DIR_);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (1, 'a'), (2, 'b')", &e), 0);
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(slurp("j/k=1/part-0.json"), "{\"k\":1,\"v\":\"a\"}\n");
  CHECK_EQ_STR(slurp("j/k=2/part-1.json"), "{\"k\":2,\"v\":\"b\"}\n");

  /* errors name the option */
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k BIGINT, v VARCHAR)", &e), 0);
  static const char *const bad[][2] = {
      {"'partition.by' = 'nope'", "'nope' is not a column"},
      {"'partition.by' = 'k, k'", "listed twice"},
      {"'partition.by' = ''", "at least one column"},
      {"'partition.by' = 'k', 'max_file_size' = '-3'", "file-size"},
      {"'partition.by' = 'k', 'max_file_size' = '3 parsecs'", "file-size"},
      {"'partition.by' = 'k', 'sink.rolling-policy.rollover-interval' = "
       "'soon'",
       "rollover-interval"},
      {"'partition.by' = 'k', 'sink.partition-commit.policy.kind' = "
       "'metastore'",
       "success-file"},
      {"'partition.by' = 'k, v'", "every column"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(sql, sizeof sql,
             "CREATE SINK s FROM ev INTO FILES ('path' = '%s/bad', %s) "
             "FORMAT CSV",
             DIR_, bad[i][0]);
    CHECK(laminar_execute(db, sql, NULL, &e) != 0);
    if (!strstr(e.message, bad[i][1]))
      fprintf(stderr, "case %zu: message '%s' lacks '%s'\n", i, e.message,
              bad[i][1]);
    CHECK(strstr(e.message, bad[i][1]) != NULL);
  }
  CHECK_EQ_I64(laminar_close(db, &e), 0);
}

int main(void) {
  snprintf(DIR_, sizeof DIR_, "/tmp/lm_part_sink_XXXXXX");
  if (!mkdtemp(DIR_))
    return 1;
  test_partitions_and_time_rolling();
  test_size_rolling_and_options();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
  if (!lm_test_failures && system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", DIR_);
  return lm_test_done("test_part_sink");
}
