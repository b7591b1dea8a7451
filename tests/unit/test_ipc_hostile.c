/*
 * tests/unit/test_ipc_hostile.c — corrupt and truncated Arrow IPC input
 * written by another implementation (issue 3, "What I will check").
 *
 * The fixtures in tests/interop/fixtures/ were written by apache-arrow 21
 * (js_*: tests/interop/types.mjs and write_fixtures.mjs; every type, nested
 * dictionaries, zero-row batches, all-NULL columns, sliced arrays, a
 * dictionary delta and replacement) and by `laminardb convert` (lm_*: ZSTD
 * and LZ4 bodies, 64-byte alignment); tests/interop/fixtures/README.md
 * says how to regenerate them. For each one:
 *  - the whole input reads without error (file reader over memory, stream
 *    reader fed in one piece), every value formatted;
 *  - truncated at every 7th byte: the file reader fails (the footer is
 *    gone), the stream reader reads a prefix or fails;
 *  - a byte changed at every 7th position (xor 0xff / 0x80 / 0x01 in turn;
 *    the stream fed in two pieces split at the change): reads or fails.
 * Every failure must be a clear error naming a byte offset inside the
 * input ("SOURCE: byte N: ..."), never a crash: the inputs are copied into
 * exact-size heap blocks, so under ASan (build-asan) any read past them or
 * into freed memory aborts the test. Every value of whatever decodes is
 * formatted as text (every buffer touched).
 *
 * Time: about 2 s of CPU (RelWithDebInfo), more under ASan;
 * LM_HOSTILE_SECONDS (default 15, wall clock) bounds it: when the budget
 * runs out the remaining mutations are skipped and the count done is
 * printed (a loaded machine covers less, never fails for time). Steps go
 * round-robin over the files, truncation and change alternating, so any
 * budget samples every file and both kinds. LM_HOSTILE_STRIDE (default 7) sets
 * the step.
 */
#include "format/lm_ipc.h"
#include "lm_test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIXTURES "tests/interop/fixtures"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
  if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = (size_t)(n > 0 ? n : 0);
  return p;
}

/* Formats every value of b (touches every buffer a value reads). */
static void touch(lm_buf *o, const lm_batch *b) {
  for (int c = 0; c < b->num_columns; c++) {
    CHECK_EQ_I64(b->columns[c]->length, b->num_rows);
    for (int64_t i = 0; i < b->num_rows; i++) {
      lm_array_format_value(o, b->columns[c], i, "NULL");
      lm_buf_putc(o, '|');
    }
  }
  o->len = 0;
}

/* An error must name "byte N" with N inside the input (its length
 * included: "input ends at byte LEN"). */
static bool offset_ok(const lm_error *e, size_t len) {
  const char *p = strstr(e->msg, ": byte ");
  if (!p)
    return false;
  char *end;
  unsigned long long n = strtoull(p + 7, &end, 10);
  return end != p + 7 && n <= len;
}

typedef struct stats {
  long runs, ok, errs, bad_errs;
} stats;

static void note_err(stats *st, int rc, const lm_error *e, size_t len,
                     const char *what, const char *name, size_t at) {
  st->errs++;
  if (rc == LM_ERR_NOMEM)
    return;
  if (!offset_ok(e, len)) {
    st->bad_errs++;
    if (st->bad_errs < 10)
      fprintf(stderr,
              "%s %s at %zu: error without a byte offset inside %zu "
              "bytes: %s\n",
              name, what, at, len, e->msg);
  }
}

/* Reads p[0, n) as an IPC file; 0 or the error code (*e filled). */
static int read_file(const uint8_t *src, size_t n, lm_buf *o, int64_t *rows,
                     lm_error *e) {
  uint8_t *p = malloc(n ? n : 1); /* exact size: ASan sees overreads */
  if (!p)
    return LM_ERR_NOMEM;
  memcpy(p, src, n);
  lm_ipc_file_reader *r = NULL;
  int rc = lm_ipc_file_open_memory(p, n, NULL, NULL, "f.arrow", &r, e);
  *rows = 0;
  if (rc == 0) {
    lm_ipc_file_reader_keep_dictionaries(r, (n & 1) != 0);
    lm_batch *b;
    while ((rc = lm_ipc_file_next(r, &b, e)) == 0 && b) {
      *rows += b->num_rows;
      touch(o, b);
      lm_batch_release(b);
    }
    lm_ipc_file_reader_free(r);
  }
  free(p);
  return rc;
}

/* Feeds p[0, n) to a stream reader, split at `split`; finishes. */
static int read_stream(const uint8_t *src, size_t n, size_t split, lm_buf *o,
                       int64_t *rows, lm_error *e) {
  uint8_t *p = malloc(n ? n : 1);
  if (!p)
    return LM_ERR_NOMEM;
  memcpy(p, src, n);
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "s.arrows");
  if (!r) {
    free(p);
    return LM_ERR_NOMEM;
  }
  lm_ipc_stream_reader_keep_dictionaries(r, (n & 1) != 0);
  if (split > n)
    split = n;
  int rc = lm_ipc_stream_reader_feed(r, p, split, e);
  if (rc == 0)
    rc = lm_ipc_stream_reader_feed(r, p + split, n - split, e);
  free(p); /* fed bytes are not retained by the caller's memory */
  if (rc == 0)
    rc = lm_ipc_stream_reader_finish(r, e);
  *rows = 0;
  lm_batch *b;
  while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
    *rows += b->num_rows;
    touch(o, b);
    lm_batch_release(b);
  }
  lm_ipc_stream_reader_free(r);
  return rc;
}

static bool is_file_format(const uint8_t *p, size_t n) {
  return n >= 6 && memcmp(p, "ARROW1", 6) == 0;
}

/* apache-arrow 21's compressed files (js_edge_lz4.arrow, LZ4 frames;
 * js_edge_zstd.arrows, ZSTD): its writer puts each buffer's compressed
 * length in the 8-byte prefix where the format wants the uncompressed one
 * (apache/arrow-js#470), so the reader takes the size from the frames.
 * They read whole (main), with every row: 4 + 2 + 2 rows of edge.mjs
 * (3 batches); and that path still honours max_buffer_bytes: with a limit
 * of 64 bytes the 160-byte LargeUtf8 data buffer is refused with
 * LM_ERR_LIMIT naming its descriptor's byte. */
static void test_js_compressed_prefix(void) {
  size_t n = 0;
  uint8_t *p = slurp(FIXTURES "/js_edge_lz4.arrow", &n);
  CHECK(p != NULL);
  if (!p)
    return;
  lm_buf o;
  lm_buf_init(&o);
  lm_error e;
  lm_err_clear(&e);
  int64_t rows = 0;
  CHECK_EQ_I64(read_file(p, n, &o, &rows, &e), 0);
  CHECK_EQ_I64(rows, 8);
  lm_ipc_limits lim;
  lm_ipc_limits_default(&lim);
  lim.max_buffer_bytes = 64;
  lm_ipc_file_reader *r = NULL;
  int rc = lm_ipc_file_open_memory(p, n, NULL, &lim, "f.arrow", &r, &e);
  lm_batch *b = NULL;
  if (rc == 0) {
    while ((rc = lm_ipc_file_next(r, &b, &e)) == 0 && b)
      lm_batch_release(b);
    lm_ipc_file_reader_free(r);
  }
  CHECK_EQ_I64(rc, LM_ERR_LIMIT);
  CHECK(offset_ok(&e, n));
  CHECK(strstr(e.msg, "buffer size limit") != NULL);
  free(p);
  p = slurp(FIXTURES "/js_edge_zstd.arrows", &n);
  CHECK(p != NULL);
  if (p) {
    CHECK_EQ_I64(read_stream(p, n, n / 3, &o, &rows, &e), 0);
    CHECK_EQ_I64(rows, 8);
    free(p);
  }
  lm_buf_free(&o);
}

int main(void) {
  const char *env = getenv("LM_HOSTILE_SECONDS");
  double budget = env && atof(env) > 0 ? atof(env) : 15.0;
  env = getenv("LM_HOSTILE_STRIDE");
  size_t stride = env && atoi(env) > 0 ? (size_t)atoi(env) : 7;
  double t0 = now_s();
  test_js_compressed_prefix();
  DIR *dir = opendir(FIXTURES);
  CHECK(dir != NULL);
  if (!dir)
    return lm_test_done("ipc_hostile");
  char *names[256];
  int nn = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL && nn < 256) {
    size_t l = strlen(de->d_name);
    if ((l > 6 && !strcmp(de->d_name + l - 6, ".arrow")) ||
        (l > 7 && !strcmp(de->d_name + l - 7, ".arrows")))
      names[nn++] = strdup(de->d_name);
  }
  closedir(dir);
  /* sorted, so a time-limited run covers the same files first */
  for (int i = 1; i < nn; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  CHECK(nn >= 10);
  stats st = {0};
  lm_buf o;
  lm_buf_init(&o);
  bool out_of_time = false;
  long skipped = 0;
  uint8_t *data[256];
  size_t len[256];
  size_t maxlen = 0;
  for (int fi = 0; fi < nn; fi++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, names[fi]);
    data[fi] = slurp(path, &len[fi]);
    CHECK(data[fi] != NULL);
    if (!data[fi])
      len[fi] = 0;
    maxlen = LM_MAX(maxlen, len[fi]);
  }
  uint8_t *mut = malloc(maxlen ? maxlen : 1);
  /* every fixture whole */
  for (int fi = 0; fi < nn; fi++) {
    if (!data[fi])
      continue;
    lm_error e;
    int64_t rows = 0;
    lm_err_clear(&e);
    bool file = is_file_format(data[fi], len[fi]);
    int rc = file ? read_file(data[fi], len[fi], &o, &rows, &e)
                  : read_stream(data[fi], len[fi], len[fi] / 2, &o, &rows, &e);
    if (rc)
      fprintf(stderr, "%s: %s\n", names[fi], e.msg);
    CHECK_EQ_I64(rc, 0);
    st.runs++;
  }
  /* step k: in every fixture, truncation at k * stride and a changed byte
   * at k * stride + 3 (so a time-limited run samples every file and both
   * kinds, the leading bytes - magic, schema, first messages - first) */
  for (size_t k = 0; k * stride < maxlen; k++) {
    for (int fi = 0; fi < nn; fi++) {
      for (int kind = 0; kind < 2; kind++) {
        size_t at = k * stride + (kind ? 3 : 0), n = len[fi];
        if (!data[fi] || at >= n)
          continue;
        if (now_s() - t0 > budget) {
          out_of_time = true;
          skipped++;
          continue;
        }
        bool file = is_file_format(data[fi], n);
        lm_error e;
        int64_t rows = 0;
        int rc;
        lm_err_clear(&e);
        if (kind == 0) {
          rc = file ? read_file(data[fi], at, &o, &rows, &e)
                    : read_stream(data[fi], at, at / 2, &o, &rows, &e);
          if (file && rc == 0) {
            fprintf(stderr, "%s truncated to %zu bytes read without error\n",
                    names[fi], at);
            CHECK(rc != 0);
          }
        } else {
          static const uint8_t x[3] = {0xff, 0x80, 0x01};
          memcpy(mut, data[fi], n);
          mut[at] ^= x[k % 3];
          rc = file ? read_file(mut, n, &o, &rows, &e)
                    : read_stream(mut, n, at, &o, &rows, &e);
        }
        st.runs++;
        if (rc)
          note_err(&st, rc, &e, n, kind == 0 ? "truncated" : "changed",
                   names[fi], at);
        else
          st.ok++;
      }
    }
  }
  free(mut);
  for (int fi = 0; fi < nn; fi++)
    free(data[fi]);
  CHECK_EQ_I64(st.bad_errs, 0);
  printf("ipc_hostile: %d fixtures, %ld reads (%ld read, %ld errors, %ld "
         "without a good offset), %.1f s%s",
         nn, st.runs, st.ok, st.errs, st.bad_errs, now_s() - t0,
         out_of_time ? "" : "\n");
  if (out_of_time)
    printf(" (time budget of %.0f s reached: %ld mutations skipped)\n", budget,
           skipped);
  for (int i = 0; i < nn; i++)
    free(names[i]);
  lm_buf_free(&o);
  return lm_test_done("ipc_hostile");
}
