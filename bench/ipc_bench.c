/*
 * Arrow IPC throughput (GB/s, wall time, best of N), each part beside a
 * plain memcpy of the same bytes measured in the same run (the ratio is
 * IPC GB/s / memcpy GB/s):
 *   stream_write  lm_ipc_writer (stream format) into an in-memory lm_buf;
 *   stream_read   lm_ipc_stream_reader fed that buffer, every batch popped;
 *   file_write    lm_ipc_writer (file format) drained to a file per batch;
 *   file_read     lm_ipc_file_open (mmap, zero-copy) and every value of
 *                 every column touched (summed);
 *   open_<size>   lm_ipc_file_open of a file of 1 MiB / 64 MiB / 512 MiB and
 *                 every batch decoded (columns exposed, values not touched),
 *                 beside a memcpy of the whole file; open_footer_<size> is
 *                 the open alone (mmap + footer verification).
 *   tcp_loopback  a writer thread encodes a stream of the same ~1.4 MB
 *                 batches (lm_ipc_writer, sent per batch) over a loopback
 *                 TCP connection (src/transport, port picked by the
 *                 kernel); this thread reads 1 MiB chunks, feeds the stream
 *                 reader and touches every value of every batch. Bounded:
 *                 alarm(120) ends a hung run. tcp_loopback is the direct
 *                 path: lm_ipc_writer_new_sink + lm_stream_writev_sink
 *                 (header and the batch's own buffers in one writev, no
 *                 encode copy) and lm_ipc_stream_reader_reserve/commit
 *                 (recv straight into the reader's pending buffer);
 *                 tcp_loopback_buf is the buffered path (writer into an
 *                 lm_buf sent per batch, 1 MiB reads fed with a copy).
 *                 LM_BENCH_SOCKBUF=N sets SO_SNDBUF/SO_RCVBUF to N bytes.
 * Batches: INT64, DOUBLE and UTF8 (8..24 bytes) columns, ~1.3 MiB each.
 * Usage: bench_ipc [repetitions (default 3)] [max open size MiB (512)].
 * Files live in a mkdtemp directory under $TMPDIR (or /tmp), removed at the
 * end. Prints a markdown table and one `result` line per part. Not a test.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "format/lm_ipc.h"
#include "transport/lm_transport.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lm_schema *bench_schema(void) {
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "x", lm_type_make(LM_TYPE_FLOAT64), true);
  lm_schema_set_field(s, 2, "s", lm_type_make(LM_TYPE_UTF8), true);
  return s;
}

static lm_batch *bench_batch(lm_schema *s, int64_t rows, int64_t seed) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, rows))
    return NULL;
  char t[32];
  for (int64_t i = 0; i < rows; i++) {
    int64_t k = seed + i;
    lm_builder_append_i64_fast(&bb.cols[0], k);
    lm_builder_append_f64_fast(&bb.cols[1], (double)k * 0.5);
    int len = snprintf(t, sizeof t, "value-%lld", (long long)(k * 7919));
    lm_builder_append_str_fast(&bb.cols[2], t, len);
  }
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  return b;
}

typedef struct part {
  const char *name;
  double bytes;
  double secs;
  double memcpy_secs;
} part;

static part parts[16];
static int n_parts;

static void add_part(const char *name, double bytes, double secs,
                     double mc_secs) {
  part p = {name, bytes, secs, mc_secs};
  parts[n_parts++] = p;
}

/* Best-of-reps memcpy time of n bytes from src. */
static double memcpy_time(const void *src, size_t n, int reps) {
  char *dst = malloc(n ? n : 1);
  memset(dst, 1, n); /* fault the pages in first */
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    memcpy(dst, src, n);
    double t = now() - t0;
    __asm__ volatile("" : : "r"(dst) : "memory");
    if (t < best)
      best = t;
  }
  free(dst);
  return best;
}

static volatile double sink;

/* Touches every value of every column. */
static void touch(const lm_batch *b) {
  const int64_t *id = lm_array_i64(b->columns[0]);
  const double *x = lm_array_f64(b->columns[1]);
  const lm_array *s = b->columns[2];
  int64_t acc = 0;
  double d = 0;
  for (int64_t i = 0; i < b->num_rows; i++) {
    int32_t len;
    const char *p = lm_array_str(s, i, &len);
    acc += id[i] + len + (len ? p[len - 1] : 0);
    d += x[i];
  }
  sink += (double)acc + d;
}

static int write_file(const char *path, lm_schema *s, lm_batch **bs, int nb,
                      int64_t target) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return -1;
  lm_buf out;
  lm_buf_init(&out);
  lm_ipc_writer *w;
  lm_error err;
  int rc = lm_ipc_writer_new(s, true, NULL, &out, &w, &err);
  int64_t written = 0;
  for (int i = 0; rc == 0 && (i == 0 || written + (int64_t)out.len < target);
       i++) {
    rc = lm_ipc_writer_write(w, bs[i % nb], &err);
    if (rc == 0 && write(fd, out.data, out.len) != (ssize_t)out.len)
      rc = -1;
    written += (int64_t)out.len;
    lm_buf_reset(&out);
  }
  if (rc == 0)
    rc = lm_ipc_writer_finish(w, &err);
  if (rc == 0 && write(fd, out.data, out.len) != (ssize_t)out.len)
    rc = -1;
  lm_ipc_writer_free(w);
  lm_buf_free(&out);
  close(fd);
  return rc;
}

static void *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)sz + 1);
  *n = fread(p, 1, (size_t)sz, f);
  fclose(f);
  return p;
}

/* ------------------------------------------------------- TCP loopback */

/* Process CPU time (user + system, all threads), seconds. */
static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* CPU seconds of the last tcp_once (both threads, kernel included). */
static double g_tcp_cpu;

/* LM_BENCH_SOCKBUF: explicit socket buffer sizes (0 = kernel autotuning). */
static void sockbuf(lm_stream *st) {
  const char *e = getenv("LM_BENCH_SOCKBUF");
  int v = e ? atoi(e) : 0;
  if (v > 0) {
    setsockopt(lm_stream_fd(st), SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
    setsockopt(lm_stream_fd(st), SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
  }
}

typedef struct tcp_writer {
  bool direct;
  int port;
  lm_schema *s;
  lm_batch **bs;
  int nb, n_batches;
  int64_t sent;
  int rc;
  lm_error err;
} tcp_writer;

static void *tcp_writer_main(void *arg) {
  tcp_writer *tw = arg;
  lm_stream *st = NULL;
  lm_ipc_writer *w = NULL;
  lm_buf out;
  lm_buf_init(&out);
  tw->sent = 0;
  int rc = lm_tcp_connect("127.0.0.1", tw->port, &st, &tw->err);
  if (rc == 0)
    sockbuf(st);
  if (rc == 0 && tw->direct) {
    rc = lm_ipc_writer_new_sink(tw->s, false, NULL, lm_stream_writev_sink, st,
                                &w, &tw->err);
    for (int i = 0; rc == 0 && i <= tw->n_batches; i++)
      rc = i < tw->n_batches
               ? lm_ipc_writer_write(w, tw->bs[i % tw->nb], &tw->err)
               : lm_ipc_writer_finish(w, &tw->err);
    tw->sent = -1; /* not counted: the reader checks rows */
  } else if (rc == 0) {
    rc = lm_ipc_writer_new(tw->s, false, NULL, &out, &w, &tw->err);
  }
  for (int i = 0; rc == 0 && !tw->direct && i <= tw->n_batches; i++) {
    rc = i < tw->n_batches
             ? lm_ipc_writer_write(w, tw->bs[i % tw->nb], &tw->err)
             : lm_ipc_writer_finish(w, &tw->err);
    if (rc == 0)
      rc = lm_stream_write(st, out.data, out.len, &tw->err);
    tw->sent += (int64_t)out.len;
    lm_buf_reset(&out);
  }
  lm_ipc_writer_free(w);
  lm_buf_free(&out);
  int crc = lm_stream_close(st, rc ? NULL : &tw->err);
  tw->rc = rc ? rc : crc;
  return NULL;
}

/* One transfer of n_batches batches; returns the seconds (wall, connect to
 * the last batch touched) or a negative value on error; *bytes = stream
 * size. */
static double tcp_once(bool direct, lm_schema *s, lm_batch **bs, int nb,
                       int n_batches, uint8_t *chunk, size_t chunk_n,
                       double *bytes) {
  lm_error err;
  lm_listener *l;
  if (lm_tcp_listen("127.0.0.1", 0, &l, &err)) {
    fprintf(stderr, "tcp: %s\n", err.msg);
    return -1;
  }
  tcp_writer tw = {direct, lm_listener_port(l), s, bs, nb, n_batches, 0, 0,
                   {0}};
  double t0 = now(), c0 = cpu_now();
  pthread_t th;
  if (pthread_create(&th, NULL, tcp_writer_main, &tw)) {
    lm_listener_close(l);
    return -1;
  }
  lm_stream *st = NULL;
  int rc = lm_listener_accept(l, &st, &err);
  lm_listener_close(l);
  int64_t got_rows = 0, got = 0;
  if (rc == 0) {
    sockbuf(st);
    lm_ipc_stream_reader *rd = lm_ipc_stream_reader_new(NULL, "tcp");
    size_t n;
    for (;;) {
      if (direct) {
        void *p;
        size_t room;
        if ((rc = lm_ipc_stream_reader_reserve(rd, (size_t)64 << 20, &p, &room,
                                               &err)) != 0 ||
            (rc = lm_stream_read(st, p, room, &n, &err)) != 0 || n == 0 ||
            (rc = lm_ipc_stream_reader_commit(rd, n, &err)) != 0)
          break;
      } else {
        if ((rc = lm_stream_read(st, chunk, chunk_n, &n, &err)) != 0 || n == 0)
          break;
        if ((rc = lm_ipc_stream_reader_feed(rd, chunk, n, &err)) != 0)
          break;
      }
      got += (int64_t)n;
      lm_batch *b;
      while ((b = lm_ipc_stream_reader_next(rd)) != NULL) {
        touch(b);
        got_rows += b->num_rows;
        lm_batch_release(b);
      }
    }
    if (rc == 0)
      rc = lm_ipc_stream_reader_finish(rd, &err);
    lm_ipc_stream_reader_free(rd);
  }
  double t = now() - t0;
  lm_stream_close(st, NULL); /* unblocks a writer stuck on a failed reader */
  pthread_join(th, NULL);
  g_tcp_cpu = cpu_now() - c0;
  if (rc || tw.rc) {
    fprintf(stderr, "tcp: %s\n", rc ? err.msg : tw.err.msg);
    return -1;
  }
  int64_t want_rows = 0;
  for (int i = 0; i < n_batches; i++)
    want_rows += bs[i % nb]->num_rows;
  if ((tw.sent >= 0 && got != tw.sent) || got_rows != want_rows) {
    fprintf(stderr, "tcp: %lld of %lld bytes, %lld of %lld rows read\n",
            (long long)got, (long long)tw.sent, (long long)got_rows,
            (long long)want_rows);
    return -1;
  }
  *bytes = (double)got;
  return t;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  int max_mib = argc > 2 ? atoi(argv[2]) : 512;
  if (reps < 1)
    reps = 1;
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char dir[512];
  snprintf(dir, sizeof dir, "%s/bench_ipc.XXXXXX", tmp);
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  lm_schema *s = bench_schema();
  enum { NB = 8, ROWS = 40000 };
  lm_batch *bs[NB];
  for (int i = 0; i < NB; i++)
    bs[i] = bench_batch(s, ROWS, (int64_t)i * ROWS);
  lm_error err;

  /* LM_BENCH_TCP_ONLY=1 (or =direct): only part (d), for profiling */
  if (getenv("LM_BENCH_TCP_ONLY"))
    goto tcp_part;

  /* (a) in-memory stream: 96 batches (~128 MB) written, then read */
  const int n_stream = 96;
  lm_buf out;
  lm_buf_init(&out);
  double best_w = 1e30, best_r = 1e30;
  for (int r = 0; r < reps; r++) {
    lm_buf_reset(&out);
    double t0 = now();
    lm_ipc_writer *w;
    lm_ipc_writer_new(s, false, NULL, &out, &w, &err);
    for (int i = 0; i < n_stream; i++)
      lm_ipc_writer_write(w, bs[i % NB], &err);
    lm_ipc_writer_finish(w, &err);
    lm_ipc_writer_free(w);
    double t = now() - t0;
    if (t < best_w)
      best_w = t;
  }
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    lm_ipc_stream_reader *rd = lm_ipc_stream_reader_new(NULL, "bench");
    if (lm_ipc_stream_reader_feed(rd, out.data, out.len, &err) ||
        lm_ipc_stream_reader_finish(rd, &err)) {
      fprintf(stderr, "stream read: %s\n", err.msg);
      return 1;
    }
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(rd)) != NULL)
      lm_batch_release(b);
    lm_ipc_stream_reader_free(rd);
    double t = now() - t0;
    if (t < best_r)
      best_r = t;
  }
  double mc = memcpy_time(out.data, out.len, reps);
  add_part("stream_write", (double)out.len, best_w, mc);
  add_part("stream_read", (double)out.len, best_r, mc);
  lm_buf_free(&out);

  /* (b) a file of ~128 MB written, then mmap'd and every column touched */
  char path[600];
  snprintf(path, sizeof path, "%s/b.arrow", dir);
  best_w = 1e30;
  best_r = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (write_file(path, s, bs, NB, INT64_C(128) << 20)) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    double t = now() - t0;
    if (t < best_w)
      best_w = t;
  }
  size_t fsize;
  void *fbytes = slurp(path, &fsize);
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    lm_ipc_file_reader *fr;
    if (lm_ipc_file_open(path, NULL, &fr, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    lm_batch *b;
    while (lm_ipc_file_next(fr, &b, &err) == 0 && b) {
      touch(b);
      lm_batch_release(b);
    }
    lm_ipc_file_reader_free(fr);
    double t = now() - t0;
    if (t < best_r)
      best_r = t;
  }
  mc = memcpy_time(fbytes, fsize, reps);
  free(fbytes);
  add_part("file_write", (double)fsize, best_w, mc);
  add_part("file_read_touch", (double)fsize, best_r, mc);
  unlink(path);

  /* (c) open + expose columns vs. file size */
  static const int sizes[] = {1, 64, 512};
  static char names[6][32];
  for (int k = 0; k < 3 && sizes[k] <= max_mib; k++) {
    snprintf(path, sizeof path, "%s/o%d.arrow", dir, sizes[k]);
    if (write_file(path, s, bs, NB, (int64_t)sizes[k] << 20)) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    double best_o = 1e30, best_x = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      lm_ipc_file_reader *fr;
      if (lm_ipc_file_open(path, NULL, &fr, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
      }
      double t1 = now();
      lm_batch *b;
      while (lm_ipc_file_next(fr, &b, &err) == 0 && b)
        lm_batch_release(b);
      lm_ipc_file_reader_free(fr);
      double t2 = now();
      if (t1 - t0 < best_o)
        best_o = t1 - t0;
      if (t2 - t0 < best_x)
        best_x = t2 - t0;
    }
    fbytes = slurp(path, &fsize);
    mc = memcpy_time(fbytes, fsize, reps);
    free(fbytes);
    snprintf(names[2 * k], sizeof names[0], "open_footer_%dMiB", sizes[k]);
    snprintf(names[2 * k + 1], sizeof names[0], "open_expose_%dMiB", sizes[k]);
    add_part(names[2 * k], (double)fsize, best_o, mc);
    add_part(names[2 * k + 1], (double)fsize, best_x, mc);
    unlink(path);
  }
tcp_part:
  rmdir(dir);

  /* (d) TCP loopback: 384 batches (~530 MB) per transfer */
  {
    const int n_tcp = 384;
    size_t chunk_n = (size_t)1 << 20;
    uint8_t *chunk = malloc(chunk_n);
    double best_t = 1e30, best_b = 1e30, tbytes = 0;
    alarm(240);
    for (int r = 0; r < reps; r++) {
      /* interleaved, so both see the same machine load */
      double t = tcp_once(true, s, bs, NB, n_tcp, chunk, chunk_n, &tbytes);
      double ct = g_tcp_cpu;
      /* LM_BENCH_TCP_ONLY=direct: the direct path alone (profiling) */
      const char *only = getenv("LM_BENCH_TCP_ONLY");
      double tb =
          only && !strcmp(only, "direct")
              ? t
              : tcp_once(false, s, bs, NB, n_tcp, chunk, chunk_n, &tbytes);
      if (t < 0 || tb < 0)
        return 1;
      printf("tcp cpu: direct %.0f ms (%.2f GB per CPU-s), buffered %.0f ms "
             "(%.2f GB per CPU-s)\n",
             ct * 1e3, tbytes / ct / 1e9, g_tcp_cpu * 1e3,
             tbytes / g_tcp_cpu / 1e9);
      if (t < best_t)
        best_t = t;
      if (tb < best_b)
        best_b = tb;
    }
    alarm(0);
    free(chunk);
    /* memcpy reference: 64 MiB of the same batches, scaled to tbytes */
    lm_buf ref;
    lm_buf_init(&ref);
    lm_ipc_writer *w;
    lm_ipc_writer_new(s, false, NULL, &ref, &w, &err);
    for (int i = 0; ref.len < ((size_t)64 << 20); i++)
      lm_ipc_writer_write(w, bs[i % NB], &err);
    lm_ipc_writer_free(w);
    mc = memcpy_time(ref.data, ref.len, reps) * (tbytes / (double)ref.len);
    lm_buf_free(&ref);
    add_part("tcp_loopback", tbytes, best_t, mc);
    add_part("tcp_loopback_buf", tbytes, best_b, mc);
  }

  printf("| part | bytes | ms | GB/s | memcpy GB/s | ratio |\n");
  printf("|---|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n_parts; i++) {
    part *p = &parts[i];
    double gbs = p->bytes / p->secs / 1e9,
           mgbs = p->bytes / p->memcpy_secs / 1e9;
    printf("| %s | %.0f | %.3f | %.2f | %.2f | %.2f |\n", p->name, p->bytes,
           p->secs * 1e3, gbs, mgbs, gbs / mgbs);
  }
  for (int i = 0; i < n_parts; i++) {
    part *p = &parts[i];
    double gbs = p->bytes / p->secs / 1e9,
           mgbs = p->bytes / p->memcpy_secs / 1e9;
    printf("result %s bytes=%.0f ms=%.4f gbps=%.3f memcpy_gbps=%.3f "
           "ratio=%.3f\n",
           p->name, p->bytes, p->secs * 1e3, gbs, mgbs, gbs / mgbs);
  }
  for (int i = 0; i < NB; i++)
    lm_batch_release(bs[i]);
  lm_schema_release(s);
  return 0;
}
