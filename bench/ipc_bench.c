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
 *   framing_feed / framing_feed_buffer  96 batches on a framing table
 *                 channel decoded from 1 MiB receive buffers with
 *                 lm_framing_decoder_feed (a copy of every byte) and
 *                 feed_buffer (in place; LM_BENCH_FRAMING_ONLY=1: only this)
 *   sparse_<what>_<size>  sparse files of 1 MiB and 1 GiB (holes: no
 *                 disk, made in ms; LM_BENCH_SPARSE_MIB sets the large
 *                 size): `open` = lm_ipc_file_open alone, `first` = open +
 *                 the first batch's columns and their last value,
 *                 `expose` = open + all 8 batches decoded; constant in the
 *                 size (LM_BENCH_OPEN_ONLY=1 runs only this part).
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
 *   tcp_raw       the reference for tcp_loopback, in the same run: two
 *                 threads doing plain send()/recv() of the same byte
 *                 volume over loopback TCP, sent in pieces of one
 *                 batch's size and received into a buffer of that size
 *                 (no encoding, no decoding, nothing touched: the best
 *                 the kernel gives). `ratio_raw` = IPC GB/s / raw GB/s.
 *   unix_stream / unix_stream_buf / unix_raw  the same three over a Unix
 *                 domain socket (a socket file in /tmp).
 * Batches: INT64, DOUBLE and UTF8 (8..24 bytes) columns, ~1.3 MiB each.
 * LM_BENCH_TCP_ONLY=1 runs only the socket parts (=tcp, =unix: one of
 * them; =direct: TCP's direct path and raw reference alone);
 * LM_BENCH_DIRECT_ONLY=1 leaves out the buffered paths (profiling).
 * Usage: bench_ipc [repetitions (default 3)] [max open size MiB (512)].
 * Files live in a mkdtemp directory under $TMPDIR (or /tmp), removed at the
 * end. Prints a markdown table and one `result` line per part. Not a test.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "format/lm_framing.h"
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
  double raw_secs; /* the raw socket reference (0: none) */
} part;

static part parts[32];
static int n_parts;

static void add_part(const char *name, double bytes, double secs,
                     double mc_secs) {
  part p = {name, bytes, secs, mc_secs, 0};
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

/* CPU seconds of the calling thread (user + system). */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of the last tcp_once / raw_once (both threads, kernel
 * included), and of its reading and writing thread alone. */
static double g_tcp_cpu, g_rd_cpu, g_wr_cpu;

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
  const char *unix_path; /* NULL: TCP to 127.0.0.1:port */
  lm_schema *s;
  lm_batch **bs;
  int nb, n_batches;
  int64_t sent;
  int rc;
  lm_error err;
  double cpu; /* the thread's CPU seconds */
} tcp_writer;

static void *tcp_writer_main(void *arg) {
  tcp_writer *tw = arg;
  double c0 = thread_cpu();
  lm_stream *st = NULL;
  lm_ipc_writer *w = NULL;
  lm_buf out;
  lm_buf_init(&out);
  tw->sent = 0;
  int rc = tw->unix_path ? lm_unix_connect(tw->unix_path, &st, &tw->err)
                         : lm_tcp_connect("127.0.0.1", tw->port, &st, &tw->err);
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
  tw->cpu = thread_cpu() - c0;
  return NULL;
}

/* One transfer of n_batches batches over TCP loopback (unix_path NULL) or
 * the Unix socket unix_path; returns the seconds (wall, connect to the last
 * batch touched) or a negative value on error; *bytes = stream size. */
static double tcp_once(bool direct, const char *unix_path, lm_schema *s,
                       lm_batch **bs, int nb, int n_batches, uint8_t *chunk,
                       size_t chunk_n, double *bytes) {
  lm_error err;
  lm_listener *l;
  if (unix_path ? lm_unix_listen(unix_path, &l, &err)
                : lm_tcp_listen("127.0.0.1", 0, &l, &err)) {
    fprintf(stderr, "tcp: %s\n", err.msg);
    return -1;
  }
  tcp_writer tw;
  memset(&tw, 0, sizeof tw);
  tw.direct = direct;
  tw.port = lm_listener_port(l);
  tw.unix_path = unix_path;
  tw.s = s;
  tw.bs = bs;
  tw.nb = nb;
  tw.n_batches = n_batches;
  double t0 = now(), c0 = cpu_now(), r0 = thread_cpu();
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
  g_rd_cpu = thread_cpu() - r0;
  lm_stream_close(st, NULL); /* unblocks a writer stuck on a failed reader */
  pthread_join(th, NULL);
  g_tcp_cpu = cpu_now() - c0;
  g_wr_cpu = tw.cpu;
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

/* ---- (d2) the raw reference: plain send()/recv() of total bytes in
 * pieces of piece bytes, received into a buffer of piece bytes, over TCP
 * loopback (unix_path NULL) or a Unix socket. No library code. */
typedef struct raw_writer {
  struct sockaddr_storage addr;
  socklen_t addr_len;
  size_t total, piece;
  const uint8_t *src;
  int rc;
  double cpu;
} raw_writer;

static void raw_sockbuf(int fd) {
  const char *e = getenv("LM_BENCH_SOCKBUF");
  int v = e ? atoi(e) : 0;
  if (v > 0) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
  }
}

static void *raw_writer_main(void *arg) {
  raw_writer *rw = arg;
  double c0 = thread_cpu();
  rw->rc = -1;
  int fd = socket(rw->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return NULL;
  raw_sockbuf(fd);
  if (connect(fd, (struct sockaddr *)&rw->addr, rw->addr_len) != 0) {
    close(fd);
    return NULL;
  }
  size_t left = rw->total;
  while (left) {
    size_t n = LM_MIN(left, rw->piece), off = 0;
    while (off < n) {
      ssize_t k = send(fd, rw->src + off, n - off, MSG_NOSIGNAL);
      if (k <= 0) {
        close(fd);
        return NULL;
      }
      off += (size_t)k;
    }
    left -= n;
  }
  close(fd);
  rw->rc = 0;
  rw->cpu = thread_cpu() - c0;
  return NULL;
}

/* Seconds of one raw transfer (connect to the last byte received), or -1. */
static double raw_once(const char *unix_path, size_t total, size_t piece,
                       const uint8_t *src, uint8_t *dst) {
  raw_writer rw;
  memset(&rw, 0, sizeof rw);
  rw.total = total;
  rw.piece = piece;
  rw.src = src;
  int lfd;
  if (unix_path) {
    struct sockaddr_un *sa = (struct sockaddr_un *)&rw.addr;
    sa->sun_family = AF_UNIX;
    size_t pl = strlen(unix_path);
    if (pl >= sizeof sa->sun_path)
      return -1;
    memcpy(sa->sun_path, unix_path, pl + 1);
    rw.addr_len = sizeof *sa;
    unlink(unix_path);
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  } else {
    struct sockaddr_in *sa = (struct sockaddr_in *)&rw.addr;
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rw.addr_len = sizeof *sa;
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&rw.addr, rw.addr_len) != 0 ||
      listen(lfd, 1) != 0 ||
      getsockname(lfd, (struct sockaddr *)&rw.addr, &rw.addr_len) != 0) {
    perror("raw: listen");
    if (lfd >= 0)
      close(lfd);
    return -1;
  }
  double t0 = now(), r0 = thread_cpu();
  pthread_t th;
  if (pthread_create(&th, NULL, raw_writer_main, &rw)) {
    close(lfd);
    return -1;
  }
  int fd = accept(lfd, NULL, NULL);
  close(lfd);
  if (unix_path)
    unlink(unix_path);
  size_t got = 0;
  if (fd >= 0) {
    raw_sockbuf(fd);
    for (;;) {
      ssize_t k = recv(fd, dst, piece, 0);
      if (k <= 0)
        break;
      got += (size_t)k;
    }
  }
  double t = now() - t0;
  g_rd_cpu = thread_cpu() - r0;
  if (fd >= 0)
    close(fd);
  pthread_join(th, NULL);
  g_wr_cpu = rw.cpu;
  if (rw.rc || got != total) {
    fprintf(stderr, "raw: %zu of %zu bytes\n", got, total);
    return -1;
  }
  return t;
}

/* ---- (a2) framing decode: feed (copies every byte into the decoder's
 * pending buffer) vs feed_buffer (frames decoded in place in the caller's
 * receive buffers; only frames straddling two buffers copied). The input
 * arrives in 1 MiB receive buffers, as from a socket; every batch popped.
 * Returns the best time of reps, or -1. */
static double framing_decode(const lm_buf *in, bool in_place, int reps) {
  const size_t chunk = (size_t)1 << 20;
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    /* the receive buffers, filled beforehand (the socket's part) */
    size_t nb = (in->len + chunk - 1) / chunk;
    lm_buffer **rb = calloc(nb, sizeof *rb);
    for (size_t i = 0; i < nb; i++) {
      size_t n = LM_MIN(chunk, in->len - i * chunk);
      rb[i] = lm_buffer_new(n);
      memcpy(rb[i]->data, in->data + i * chunk, n);
      rb[i]->size = n;
    }
    lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "bench");
    lm_error err;
    double t0 = now();
    int rc = 0;
    for (size_t i = 0; i < nb && !rc; i++) {
      rc = in_place
               ? lm_framing_decoder_feed_buffer(d, rb[i], 0, rb[i]->size, &err)
               : lm_framing_decoder_feed(d, rb[i]->data, rb[i]->size, &err);
      lm_framing_event ev;
      while (lm_framing_decoder_next(d, &ev))
        lm_framing_event_clear(&ev);
    }
    if (!rc)
      rc = lm_framing_decoder_finish(d, &err);
    double t = now() - t0;
    lm_framing_decoder_free(d);
    for (size_t i = 0; i < nb; i++)
      lm_buffer_release(rb[i]);
    free(rb);
    if (rc) {
      fprintf(stderr, "framing: %s\n", err.msg);
      return -1;
    }
    if (t < best)
      best = t;
  }
  return best;
}

/* ---- (c2) sparse files: open time independent of the size ----------
 * A file of `mib` MiB: 8 record batches of two fixed-width NOT NULL
 * columns (INT64, DOUBLE) whose values are all zero, written through the
 * writer's sink with every body buffer skipped by lseek (a hole), so even
 * a 1 GiB file is made in milliseconds and takes no disk space. Reading
 * it maps the holes as zero pages. */
typedef struct sparse_sink {
  int fd;
  const uint8_t *zero;
  size_t zero_n;
} sparse_sink;

static int sparse_write(void *ctx, const struct iovec *iov, int n,
                        lm_error *err) {
  sparse_sink *ss = ctx;
  for (int i = 0; i < n; i++) {
    const uint8_t *b = iov[i].iov_base;
    size_t len = iov[i].iov_len;
    if (b >= ss->zero && b < ss->zero + ss->zero_n) {
      if (lseek(ss->fd, (off_t)len, SEEK_CUR) < 0)
        return lm_err(err, LM_ERR_IO, "lseek failed");
      continue;
    }
    while (len) {
      ssize_t w = write(ss->fd, b, len);
      if (w <= 0)
        return lm_err(err, LM_ERR_IO, "write failed");
      b += w;
      len -= (size_t)w;
    }
  }
  return 0;
}

static void no_release(lm_buffer *b) {
  (void)b;
} /* munmap'd by the caller */

static int write_sparse(const char *path, int mib) {
  enum { NBATCH = 8 };
  int64_t rows = ((int64_t)mib << 20) / NBATCH / 16;
  size_t zn = (size_t)rows * 8;
  void *zero = mmap(NULL, zn, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (zero == MAP_FAILED)
    return -1;
  lm_schema *s = lm_schema_new(2);
  lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "x", lm_type_make(LM_TYPE_FLOAT64), false);
  lm_array *cols[2];
  for (int c = 0; c < 2; c++)
    cols[c] = lm_array_new(s->fields[c].type, rows, 0, 0, NULL,
                           lm_buffer_wrap(zero, zn, no_release, NULL), NULL, 0,
                           NULL, NULL);
  lm_batch *b = lm_batch_new(lm_schema_retain(s), rows, cols);
  sparse_sink ss = {open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), zero, zn};
  lm_ipc_writer *w = NULL;
  lm_error err;
  int rc = ss.fd < 0 ? -1 : 0;
  if (!rc)
    rc = lm_ipc_writer_new_sink(s, true, NULL, sparse_write, &ss, &w, &err);
  for (int i = 0; i < NBATCH && !rc; i++)
    rc = lm_ipc_writer_write(w, b, &err);
  if (!rc)
    rc = lm_ipc_writer_finish(w, &err);
  lm_ipc_writer_free(w);
  if (ss.fd >= 0)
    close(ss.fd);
  lm_batch_release(b);
  lm_schema_release(s);
  munmap(zero, zn);
  return rc;
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

  /* LM_BENCH_FRAMING_ONLY=1: only part (a2) */
  if (getenv("LM_BENCH_FRAMING_ONLY"))
    goto framing_part;
  /* LM_BENCH_OPEN_ONLY=1: only the sparse-file open part (c2) */
  if (getenv("LM_BENCH_OPEN_ONLY"))
    goto open_part;
  /* LM_BENCH_TCP_ONLY=1: only part (d), TCP and Unix socket; =tcp or
   * =unix: only that one; =direct: only TCP's direct path (profiling) */
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

framing_part:
  /* (a2) 96 batches on one framing table channel (an 8-byte name: frames
   * stay 8-aligned), decoded from 1 MiB receive buffers */
  {
    lm_buf fr;
    lm_buf_init(&fr);
    lm_framing_encoder *fe = lm_framing_encoder_new(&fr, 0, NULL, NULL);
    int fch;
    if (lm_framing_encoder_add_table(fe, "trades_8", s, &fch, &err) ||
        lm_framing_encoder_begin(fe, &err))
      return 1;
    for (int i = 0; i < 96; i++)
      lm_framing_encoder_write_batch(fe, fch, bs[i % NB], &err);
    lm_framing_encoder_finish(fe, &err);
    lm_framing_encoder_free(fe);
    double tf = framing_decode(&fr, false, reps);
    double tb = framing_decode(&fr, true, reps);
    if (tf < 0 || tb < 0)
      return 1;
    double fmc = memcpy_time(fr.data, fr.len, reps);
    add_part("framing_feed", (double)fr.len, tf, fmc);
    add_part("framing_feed_buffer", (double)fr.len, tb, fmc);
    lm_buf_free(&fr);
  }
  if (getenv("LM_BENCH_FRAMING_ONLY"))
    goto report;

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
open_part:
  /* (c2) sparse 1 MiB and 1 GiB files (LM_BENCH_SPARSE_MIB overrides the
   * large size): open alone; open + the first batch's columns exposed and
   * their last value read; open + every batch exposed. Fixed-width NOT
   * NULL columns have nothing to verify per value, so all three should
   * take the same time at both sizes. */
  {
    const char *e = getenv("LM_BENCH_SPARSE_MIB");
    int big = e && atoi(e) > 0 ? atoi(e) : 1024;
    const int ssz[2] = {1, big};
    static char snames[6][40];
    for (int k = 0; k < 2; k++) {
      snprintf(path, sizeof path, "%s/sparse%d.arrow", dir, ssz[k]);
      double tw = now();
      if (write_sparse(path, ssz[k])) {
        fprintf(stderr, "cannot write %s\n", path);
        unlink(path);
        rmdir(dir);
        return 1;
      }
      tw = now() - tw;
      struct stat st;
      stat(path, &st);
      printf("sparse file %d MiB: %lld bytes, %lld KiB on disk, written in "
             "%.1f ms\n",
             ssz[k], (long long)st.st_size, (long long)st.st_blocks / 2,
             tw * 1e3);
      double bo = 1e30, bf = 1e30, ba = 1e30;
      for (int r = 0; r < 5 * reps; r++) {
        lm_ipc_file_reader *fr;
        double t0 = now();
        if (lm_ipc_file_open(path, NULL, &fr, &err)) {
          fprintf(stderr, "%s\n", err.msg);
          unlink(path);
          rmdir(dir);
          return 1;
        }
        double t1 = now();
        lm_batch *b = NULL;
        if (lm_ipc_file_read_batch(fr, 0, &b, &err)) {
          fprintf(stderr, "%s\n", err.msg);
          unlink(path);
          rmdir(dir);
          return 1;
        }
        sink += (double)lm_array_i64(b->columns[0])[b->num_rows - 1] +
                lm_array_f64(b->columns[1])[b->num_rows - 1];
        double t2 = now();
        lm_batch_release(b);
        lm_ipc_file_reader_free(fr);
        double t3 = now();
        if (lm_ipc_file_open(path, NULL, &fr, &err)) {
          unlink(path);
          rmdir(dir);
          return 1;
        }
        int nb = 0;
        while (lm_ipc_file_next(fr, &b, &err) == 0 && b) {
          nb++;
          lm_batch_release(b);
        }
        lm_ipc_file_reader_free(fr);
        double t4 = now();
        if (nb != 8)
          fprintf(stderr, "sparse: %d batches\n", nb);
        bo = LM_MIN(bo, t1 - t0);
        bf = LM_MIN(bf, t2 - t0);
        ba = LM_MIN(ba, t4 - t3);
      }
      /* reference: a memcpy of the whole file's bytes, estimated from
       * 64 MiB of them (zero pages) */
      size_t refn = LM_MIN((size_t)st.st_size, (size_t)64 << 20);
      void *zr =
          mmap(NULL, refn, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      mc = memcpy_time(zr, refn, reps) * ((double)st.st_size / (double)refn);
      munmap(zr, refn);
      snprintf(snames[3 * k], sizeof snames[0], "sparse_open_%dMiB", ssz[k]);
      snprintf(snames[3 * k + 1], sizeof snames[0], "sparse_first_%dMiB",
               ssz[k]);
      snprintf(snames[3 * k + 2], sizeof snames[0], "sparse_expose_%dMiB",
               ssz[k]);
      add_part(snames[3 * k], (double)st.st_size, bo, mc);
      add_part(snames[3 * k + 1], (double)st.st_size, bf, mc);
      add_part(snames[3 * k + 2], (double)st.st_size, ba, mc);
      unlink(path);
    }
  }
  if (getenv("LM_BENCH_OPEN_ONLY"))
    goto report;
tcp_part:
  rmdir(dir);

  /* (d) TCP loopback and Unix socket: 384 batches (~530 MB) per transfer;
   * each beside the raw send/recv reference of the same bytes (d2) */
  for (int net = 0; net < 2; net++) {
    const int n_tcp = 384;
    const char *only = getenv("LM_BENCH_TCP_ONLY");
    /* LM_BENCH_TCP_ONLY=tcp|direct: TCP alone; =unix: the Unix socket alone */
    bool direct_only =
        (only && !strcmp(only, "direct")) || getenv("LM_BENCH_DIRECT_ONLY");
    if (only && !strcmp(only, "unix") && net == 0)
      continue;
    if (only && (!strcmp(only, "tcp") || !strcmp(only, "direct")) && net == 1)
      continue;
    char upath[108];
    snprintf(upath, sizeof upath, "/tmp/bench_ipc.%d.sock", (int)getpid());
    const char *up = net ? upath : NULL;
    size_t chunk_n = (size_t)1 << 20;
    uint8_t *chunk = malloc(chunk_n);
    double best_t = 1e30, best_b = 1e30, best_raw = 1e30, tbytes = 0;
    uint8_t *rsrc = NULL, *rdst = NULL;
    size_t piece = 0;
    alarm(240);
    for (int r = 0; r < reps; r++) {
      /* interleaved, so all three see the same machine load */
      double t = tcp_once(true, up, s, bs, NB, n_tcp, chunk, chunk_n, &tbytes);
      double ct = g_tcp_cpu, crd = g_rd_cpu, cwr = g_wr_cpu;
      /* LM_BENCH_DIRECT_ONLY / TCP_ONLY=direct: no buffered path */
      double tb = direct_only ? t
                              : tcp_once(false, up, s, bs, NB, n_tcp, chunk,
                                         chunk_n, &tbytes);
      double cb = g_tcp_cpu, brd = g_rd_cpu, bwr = g_wr_cpu;
      if (t < 0 || tb < 0)
        return 1;
      if (!rsrc) {
        /* one batch's share of the stream, sent from and received into
         * buffers already faulted in */
        piece = (size_t)(tbytes / n_tcp);
        rsrc = malloc(piece);
        rdst = malloc(piece);
        memset(rsrc, 7, piece);
        memset(rdst, 0, piece);
      }
      double c0 = cpu_now();
      double tr = raw_once(up, (size_t)tbytes, piece, rsrc, rdst);
      double rc = cpu_now() - c0;
      if (tr < 0)
        return 1;
      /* CPU ms: all threads (read thread + write thread) */
      printf("%s cpu ms: direct %.0f (%.0f + %.0f), buffered %.0f (%.0f + "
             "%.0f), raw %.0f (%.0f + %.0f); wall ms %.0f %.0f %.0f\n",
             net ? "unix" : "tcp", ct * 1e3, crd * 1e3, cwr * 1e3, cb * 1e3,
             brd * 1e3, bwr * 1e3, rc * 1e3, g_rd_cpu * 1e3, g_wr_cpu * 1e3,
             t * 1e3, tb * 1e3, tr * 1e3);
      best_t = LM_MIN(best_t, t);
      best_b = LM_MIN(best_b, tb);
      best_raw = LM_MIN(best_raw, tr);
    }
    alarm(0);
    free(chunk);
    free(rsrc);
    free(rdst);
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
    add_part(net ? "unix_stream" : "tcp_loopback", tbytes, best_t, mc);
    parts[n_parts - 1].raw_secs = best_raw;
    add_part(net ? "unix_stream_buf" : "tcp_loopback_buf", tbytes, best_b, mc);
    parts[n_parts - 1].raw_secs = best_raw;
    add_part(net ? "unix_raw" : "tcp_raw", tbytes, best_raw, mc);
    parts[n_parts - 1].raw_secs = best_raw;
  }

report:
  rmdir(dir);
  printf("| part | bytes | ms | GB/s | memcpy GB/s | ratio | raw GB/s | "
         "IPC/raw |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n_parts; i++) {
    part *p = &parts[i];
    double gbs = p->bytes / p->secs / 1e9,
           mgbs = p->bytes / p->memcpy_secs / 1e9;
    printf("| %s | %.0f | %.3f | %.2f | %.2f | %.2f |", p->name, p->bytes,
           p->secs * 1e3, gbs, mgbs, gbs / mgbs);
    if (p->raw_secs > 0)
      printf(" %.2f | %.2f |\n", p->bytes / p->raw_secs / 1e9,
             p->raw_secs / p->secs);
    else
      printf("  |  |\n");
  }
  for (int i = 0; i < n_parts; i++) {
    part *p = &parts[i];
    double gbs = p->bytes / p->secs / 1e9,
           mgbs = p->bytes / p->memcpy_secs / 1e9;
    printf("result %s bytes=%.0f ms=%.4f gbps=%.3f memcpy_gbps=%.3f "
           "ratio=%.3f",
           p->name, p->bytes, p->secs * 1e3, gbs, mgbs, gbs / mgbs);
    if (p->raw_secs > 0)
      printf(" raw_gbps=%.3f ratio_raw=%.3f", p->bytes / p->raw_secs / 1e9,
             p->raw_secs / p->secs);
    printf("\n");
  }
  for (int i = 0; i < NB; i++)
    lm_batch_release(bs[i]);
  lm_schema_release(s);
  return 0;
}
