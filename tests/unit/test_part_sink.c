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
  static char p[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", DIR_, rel);
  return p[k];
}

static const char *resolve(const char *rel);

static bool exists(const char *rel) {
  struct stat st;
  return stat(path_of(resolve(rel)), &st) == 0;
}

/* Whether t[0..36) is a UUID text (8-4-4-4-12 lowercase hex). */
static bool is_uuid(const char *t) {
  for (int i = 0; i < 36; i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? t[i] != '-'
             : !((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
      return false;
  }
  return true;
}

/* name with each UUID replaced by "U" ("part-<uuid>-0.csv" ->
 * "part-U-0.csv"): part file names hold the sink's random run id. The
 * last run id seen is kept in last_uuid. */
static char last_uuid[40];
static const char *norm(const char *name) {
  static char out[256];
  size_t o = 0;
  for (size_t i = 0; name[i] && o < sizeof out - 2;) {
    if (strlen(name + i) >= 36 && is_uuid(name + i)) {
      memcpy(last_uuid, name + i, 36);
      last_uuid[36] = 0;
      out[o++] = 'U';
      i += 36;
    } else {
      out[o++] = name[i++];
    }
  }
  out[o] = 0;
  return out;
}

/* rel ("dir/part-U-0.csv") with U resolved against dir's entries. */
static const char *resolve(const char *rel) {
  static char r[512];
  snprintf(r, sizeof r, "%s", rel);
  char *slash = strrchr(r, '/');
  if (!slash || !strstr(slash, "-U-"))
    return r;
  *slash = 0;
  DIR *d = opendir(path_of(r));
  *slash = '/';
  if (!d)
    return r;
  for (struct dirent *e; (e = readdir(d));)
    if (!strcmp(norm(e->d_name), slash + 1)) {
      snprintf(slash + 1, sizeof r - (size_t)(slash + 1 - r), "%s", e->d_name);
      break;
    }
  closedir(d);
  return r;
}

/* The file's whole text ("" when missing); a U in the name stands for the
 * run id. */
static const char *slurp(const char *rel) {
  static char buf[4096];
  buf[0] = 0;
  FILE *f = fopen(path_of(resolve(rel)), "r");
  if (!f)
    return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* Entries of a directory, sorted, joined by ' ' ("" when missing), each
 * UUID shown as U. */
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
      snprintf(names[n++], sizeof names[0], "%s", norm(e->d_name));
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
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"), ".part-U-0.csv.inprogress");
  CHECK_EQ_STR(listing("t/k=b%3A%2F/d=2025-01-02"), ".part-U-1.csv.inprogress");
  CHECK_EQ_STR(listing("t/k=__DEFAULT_PARTITION__/d=2025-01-03"),
               ".part-U-2.csv.inprogress");
  /* 9.999999 s of processing time: not rolled yet; 10 s: rolled */
  CHECK_EQ_I64(laminar_advance_time(db, 9999999, &e), 0);
  CHECK(!exists("t/k=a/d=2025-01-02/part-U-0.csv"));
  CHECK_EQ_I64(laminar_advance_time(db, 1, &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"), "part-U-0.csv");
  /* the partition columns are in the path only */
  CHECK_EQ_STR(slurp("t/k=a/d=2025-01-02/part-U-0.csv"), "v\n1\n3\n");
  CHECK_EQ_STR(slurp("t/k=b%3A%2F/d=2025-01-02/part-U-1.csv"), "v\n2\n");
  /* later rows of 'a' go to a new part file (3), renamed at close */
  CHECK_EQ_I64(
      exec(db, "INSERT INTO ev VALUES ('a', DATE '2025-01-02', 5)", &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"),
               ".part-U-3.csv.inprogress part-U-0.csv");
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("t/k=a/d=2025-01-02"),
               "_SUCCESS part-U-0.csv part-U-3.csv");
  CHECK_EQ_STR(slurp("t/k=a/d=2025-01-02/part-U-3.csv"), "v\n5\n");
  CHECK_EQ_STR(listing("t/k=__DEFAULT_PARTITION__/d=2025-01-03"),
               "_SUCCESS part-U-2.csv");
  CHECK_EQ_STR(slurp("t/k=__DEFAULT_PARTITION__/d=2025-01-03/part-U-2.csv"),
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
  CHECK_EQ_STR(listing("z/k=7"), ".p-U-1.csv.inprogress p-U-0.csv");
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("z/k=7"), "p-U-0.csv p-U-1.csv");
  CHECK_EQ_STR(slurp("z/k=7/p-U-0.csv"), "v\nxxxxx\n");
  CHECK_EQ_STR(slurp("z/k=7/p-U-1.csv"), "v\ny\nz\n");

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
  CHECK_EQ_STR(slurp("j/k=1/part-U-0.json"), "{\"k\":1,\"v\":\"a\"}\n");
  CHECK_EQ_STR(slurp("j/k=2/part-U-1.json"), "{\"k\":2,\"v\":\"b\"}\n");

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
      /* B3_02: a prefix holding '/' would write outside the directory */
      {"'partition.by' = 'k', 'prefix' = '../../evil'", "'prefix'"},
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

/* B3_01: a second run, and DROP SINK + CREATE SINK in one process, add
 * part files under a new run id next to the earlier ones; nothing is
 * overwritten. B3_02: the default partition name is escaped. */
static void test_runs_never_overwrite(void) {
  laminar_db *db;
  laminar_error e;
  char sql[1024], u1[40], f[600];
  snprintf(sql, sizeof sql,
           "CREATE SINK s FROM ev INTO FILES ('path' = '%s/r', "
           "'partition.by' = 'k', 'partition.default-name' = 'a/b') "
           "FORMAT CSV",
           DIR_);
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k BIGINT, v VARCHAR)", &e), 0);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (1, 'a'), (NULL, 'n')", &e), 0);
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("r"), "k=1 k=a%2Fb");
  CHECK_EQ_STR(listing("r/k=1"), "part-U-0.csv");
  memcpy(u1, last_uuid, sizeof u1);
  CHECK_EQ_STR(slurp("r/k=a%2Fb/part-U-1.csv"), "v\nn\n");
  /* run 2 into the same directory, then the sink re-created */
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  CHECK_EQ_I64(exec(db, "CREATE SOURCE ev (k BIGINT, v VARCHAR)", &e), 0);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (1, 'b')", &e), 0);
  CHECK_EQ_I64(exec(db, "DROP SINK s", &e), 0);
  CHECK_EQ_I64(exec(db, sql, &e), 0);
  CHECK_EQ_I64(exec(db, "INSERT INTO ev VALUES (1, 'c')", &e), 0);
  CHECK_EQ_I64(laminar_close(db, &e), 0);
  CHECK_EQ_STR(listing("r/k=1"), "part-U-0.csv part-U-0.csv part-U-0.csv");
  snprintf(f, sizeof f, "r/k=1/part-%s-0.csv", u1);
  CHECK_EQ_STR(slurp(f), "v\na\n"); /* run 1's file kept as it was */
  /* the three files hold a, b and c once each */
  DIR *d = opendir(path_of("r/k=1"));
  int seen[3] = {0, 0, 0};
  for (struct dirent *x; d && (x = readdir(d));) {
    if (x->d_name[0] == '.')
      continue;
    snprintf(f, sizeof f, "r/k=1/%s", x->d_name);
    const char *t = slurp(f);
    for (int i = 0; i < 3; i++) {
      char want[8] = {'v', '\n', (char)('a' + i), '\n', 0};
      seen[i] += !strcmp(t, want);
    }
  }
  if (d)
    closedir(d);
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
}

int main(void) {
  snprintf(DIR_, sizeof DIR_, "/tmp/lm_part_sink_XXXXXX");
  if (!mkdtemp(DIR_))
    return 1;
  test_partitions_and_time_rolling();
  test_size_rolling_and_options();
  test_runs_never_overwrite();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
  if (!lm_test_failures && system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", DIR_);
  return lm_test_done("test_part_sink");
}
