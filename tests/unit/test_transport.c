/*
 * tests/unit/test_transport.c — transport/: endpoint parsing (valid and
 * hostile strings), several MB through a socketpair, a loopback TCP pair
 * and a Unix socket pair in odd-sized chunks (bytes verified), buffered
 * files, partial and exact reads, connection refused, a closed peer
 * (an error, not SIGPIPE). Bounded in time by alarm(); no sleeps.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lm_test.h"
#include "transport/lm_transport.h"

static void test_parse_ok(void) {
  lm_endpoint ep;
  lm_error err;
  CHECK(lm_endpoint_parse("-", &ep, &err) == 0 && ep.kind == LM_EP_STDIO);
  CHECK(lm_endpoint_parse("data/x.csv", &ep, &err) == 0 &&
        ep.kind == LM_EP_FILE);
  CHECK_EQ_STR(ep.path, "data/x.csv");
  CHECK(lm_endpoint_parse("./odd:name", &ep, &err) == 0 &&
        ep.kind == LM_EP_FILE);
  CHECK(lm_endpoint_parse("file:///tmp/a.csv", &ep, &err) == 0 &&
        ep.kind == LM_EP_FILE);
  CHECK_EQ_STR(ep.path, "/tmp/a.csv");
  CHECK(lm_endpoint_parse("tcp://127.0.0.1:9000", &ep, &err) == 0);
  CHECK(ep.kind == LM_EP_TCP);
  CHECK_EQ_STR(ep.host, "127.0.0.1");
  CHECK_EQ_I64(ep.port, 9000);
  CHECK_EQ_STR(ep.name, "tcp://127.0.0.1:9000");
  CHECK(lm_endpoint_parse("tcp://localhost:1/", &ep, &err) == 0 &&
        ep.port == 1);
  CHECK(lm_endpoint_parse("tcp-listen://[::1]:65535", &ep, &err) == 0);
  CHECK(ep.kind == LM_EP_TCP_LISTEN);
  CHECK_EQ_STR(ep.host, "::1");
  CHECK_EQ_STR(ep.name, "tcp-listen://[::1]:65535");
  CHECK(lm_endpoint_parse("tcp-listen://127.0.0.1:0", &ep, &err) == 0 &&
        ep.port == 0);
  CHECK(lm_endpoint_parse("unix:///tmp/l.sock", &ep, &err) == 0);
  CHECK(ep.kind == LM_EP_UNIX && lm_endpoint_is_socket(&ep) &&
        !lm_endpoint_is_listen(&ep));
  CHECK_EQ_STR(ep.path, "/tmp/l.sock");
  CHECK(lm_endpoint_parse("unix-listen:///tmp/l.sock", &ep, &err) == 0);
  CHECK(ep.kind == LM_EP_UNIX_LISTEN && lm_endpoint_is_listen(&ep));
  CHECK_EQ_STR(ep.name, "unix-listen:///tmp/l.sock");
}

/* Each must fail with LM_ERR_INVALID and a message containing `want`. */
static void test_parse_bad(void) {
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"", "empty"},
      {"tcp://", "missing host"},
      {"tcp://:80", "missing host"},
      {"tcp://host", "missing port"},
      {"tcp://host:", "missing port"},
      {"tcp://host:0", "out of range 1..65535"},
      {"tcp://host:65536", "out of range"},
      {"tcp://host:99999999999999999999", "out of range"},
      {"tcp://host:-1", "bad port"},
      {"tcp://host:12a", "after the port"},
      {"tcp://host:80/path", "after the port"},
      {"tcp://host:80?x=1", "after the port"},
      {"tcp://::1:80", "brackets"},
      {"tcp://[::1:80", "missing ']'"},
      {"tcp://[127.0.0.1]:80", "only for IPv6"},
      {"tcp://ho st:80", "invalid character ' '"},
      {"tcp://h\x01st:80", "invalid character '?'"},
      {"tcp://h@st:80", "invalid character '@'"},
      {"tcp-listen://:9000", "missing host"},
      {"unix://", "missing path"},
      {"unix://tmp/x", "absolute path"},
      {"unix-listen://relative", "absolute path"},
      {"http://x:80", "unsupported scheme 'http'"},
      {"TCP2://x", "unsupported scheme"},
      {"file://", "missing path"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lm_endpoint ep;
    lm_error err;
    lm_err_clear(&err);
    int rc = lm_endpoint_parse(bad[i].text, &ep, &err);
    CHECK_EQ_I64(rc, LM_ERR_INVALID);
    if (!strstr(err.msg, bad[i].want)) {
      lm_test_failures++;
      fprintf(stderr, "parse '%s': message '%s' lacks '%s'\n", bad[i].text,
              err.msg, bad[i].want);
    }
  }
  lm_endpoint ep;
  lm_error err;
  CHECK(lm_endpoint_parse(NULL, &ep, &err) == LM_ERR_INVALID);
  /* over-long strings: a long host, a long Unix path, a huge text */
  char big[6000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  CHECK(lm_endpoint_parse(big, &ep, &err) == LM_ERR_INVALID);
  CHECK(strstr(err.msg, "longer than") != NULL);
  memcpy(big, "tcp://", 6);
  strcpy(big + 600, ":80");
  CHECK(lm_endpoint_parse(big, &ep, &err) == LM_ERR_INVALID);
  CHECK(strstr(err.msg, "too long") != NULL);
  memcpy(big, "unix:///", 8);
  memset(big + 8, 'p', 200);
  big[208] = '\0';
  CHECK(lm_endpoint_parse(big, &ep, &err) == LM_ERR_INVALID);
  CHECK(strstr(err.msg, "longer than 107") != NULL);
  /* a 107-byte Unix path is fine */
  big[8 + 106] = '\0';
  CHECK(lm_endpoint_parse(big, &ep, &err) == 0 && strlen(ep.path) == 107);
}

/* ---------------------------------------------------------- pumping */

#define TOTAL (5u * 1024 * 1024 + 12345)

static unsigned char pattern(size_t i) {
  return (unsigned char)((i * 2654435761u) >> 13);
}

typedef struct writer_arg {
  lm_stream *s;     /* write to this, or connect first: */
  const char *host; /* TCP */
  int port;
  const char *upath; /* Unix */
  int rc;
  char msg[1024];
} writer_arg;

static void *writer_main(void *p) {
  writer_arg *a = p;
  lm_error err;
  lm_err_clear(&err);
  a->rc = 0;
  if (!a->s && a->host)
    a->rc = lm_tcp_connect(a->host, a->port, &a->s, &err);
  else if (!a->s && a->upath)
    a->rc = lm_unix_connect(a->upath, &a->s, &err);
  uint64_t seed = 42;
  static unsigned char chunk[100003];
  size_t off = 0;
  while (a->rc == 0 && off < TOTAL) {
    size_t k = 1 + lm_test_rand(&seed) % sizeof chunk;
    if (k > TOTAL - off)
      k = TOTAL - off;
    for (size_t i = 0; i < k; i++)
      chunk[i] = pattern(off + i);
    a->rc = lm_stream_write(a->s, chunk, k, &err);
    off += k;
  }
  int rc2 = lm_stream_close(a->s, &err);
  a->s = NULL;
  if (a->rc == 0)
    a->rc = rc2;
  memcpy(a->msg, err.msg, sizeof a->msg);
  return NULL;
}

/* Reads everything from r in odd chunk sizes; checks the pattern. */
static void read_and_verify(lm_stream *r, const char *what) {
  uint64_t seed = 7;
  static unsigned char buf[77777];
  size_t off = 0, bad = 0;
  lm_error err;
  for (;;) {
    size_t want = 1 + lm_test_rand(&seed) % sizeof buf, got = 0;
    int rc = lm_stream_read(r, buf, want, &got, &err);
    CHECK_EQ_I64(rc, 0);
    if (rc) {
      fprintf(stderr, "%s: %s\n", what, err.msg);
      break;
    }
    CHECK(got <= want);
    if (got == 0)
      break;
    for (size_t i = 0; i < got; i++)
      bad += buf[i] != pattern(off + i);
    off += got;
  }
  if (off != TOTAL || bad)
    fprintf(stderr, "%s: got %zu of %u bytes, %zu wrong\n", what, off, TOTAL,
            bad);
  CHECK_EQ_I64(off, TOTAL);
  CHECK_EQ_I64(bad, 0);
}

static void test_socketpair(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  lm_stream *w = NULL, *r = NULL;
  lm_error err;
  CHECK(lm_fd_stream_new(sv[0], true, true, "sp-w", &w, &err) == 0);
  CHECK(lm_fd_stream_new(sv[1], true, true, "sp-r", &r, &err) == 0);
  writer_arg a = {.s = w};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, writer_main, &a) == 0);
  read_and_verify(r, "socketpair");
  pthread_join(t, NULL);
  CHECK_EQ_I64(a.rc, 0);
  CHECK(lm_stream_close(r, &err) == 0);
}

static void test_tcp_pair(void) {
  lm_listener *l = NULL;
  lm_error err;
  int rc = lm_tcp_listen("127.0.0.1", 0, &l, &err);
  CHECK_EQ_I64(rc, 0);
  if (rc) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK(lm_listener_port(l) > 0);
  CHECK(strstr(lm_listener_name(l), "tcp-listen://127.0.0.1:") != NULL);
  writer_arg a = {.host = "127.0.0.1", .port = lm_listener_port(l)};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, writer_main, &a) == 0);
  lm_stream *r = NULL;
  CHECK(lm_listener_accept(l, &r, &err) == 0);
  if (r)
    read_and_verify(r, "tcp");
  pthread_join(t, NULL);
  if (a.rc)
    fprintf(stderr, "tcp writer: %s\n", a.msg);
  CHECK_EQ_I64(a.rc, 0);
  CHECK(lm_stream_close(r, &err) == 0);
  lm_listener_close(l);
}

static char tmpdir[] = "/tmp/lm_transport_XXXXXX";

static void test_unix_pair(void) {
  char path[256];
  snprintf(path, sizeof path, "%s/s.sock", tmpdir);
  lm_listener *l = NULL;
  lm_error err;
  int rc = lm_unix_listen(path, &l, &err);
  CHECK_EQ_I64(rc, 0);
  if (rc) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK_EQ_I64(lm_listener_port(l), 0);
  /* a second listener on a live socket is refused and leaves it alone */
  lm_listener *l2 = NULL;
  CHECK_EQ_I64(lm_unix_listen(path, &l2, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "another process is listening on") != NULL);
  struct stat st;
  CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode));

  writer_arg a = {.upath = path};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, writer_main, &a) == 0);
  lm_stream *r = NULL;
  CHECK(lm_listener_accept(l, &r, &err) == 0);
  if (r)
    read_and_verify(r, "unix");
  pthread_join(t, NULL);
  if (a.rc)
    fprintf(stderr, "unix writer: %s\n", a.msg);
  CHECK_EQ_I64(a.rc, 0);
  CHECK(lm_stream_close(r, &err) == 0);
  lm_listener_close(l);
  CHECK(stat(path, &st) != 0); /* socket file removed */

  /* connecting to a path nobody listens on names the endpoint */
  lm_stream *c = NULL;
  CHECK_EQ_I64(lm_unix_connect(path, &c, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "unix://") && strstr(err.msg, path) &&
        strstr(err.msg, "connect"));
  CHECK(c == NULL);

  /* a regular file in the way is not replaced */
  char fpath[256];
  snprintf(fpath, sizeof fpath, "%s/plain", tmpdir);
  FILE *f = fopen(fpath, "w");
  CHECK(f != NULL);
  if (f)
    fclose(f);
  CHECK_EQ_I64(lm_unix_listen(fpath, &l2, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "already exists and is not a socket") != NULL);
  CHECK(stat(fpath, &st) == 0 && S_ISREG(st.st_mode));
  unlink(fpath);

  /* a stale socket (its listener gone without unlinking) is replaced */
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un {
    sa_family_t f;
    char p[108];
  } sa = {AF_UNIX, {0}};
  strcpy(sa.p, path);
  CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  CHECK(listen(fd, 1) == 0);
  /* ... but not while someone listens on it (a raw listener here) */
  CHECK_EQ_I64(lm_unix_listen(path, &l2, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "another process is listening on") != NULL);
  close(fd);
  CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode)); /* left behind */
  rc = lm_unix_listen(path, &l2, &err);
  CHECK_EQ_I64(rc, 0);
  if (rc)
    fprintf(stderr, "stale socket: %s\n", err.msg);
  if (l2) { /* and the new listener works */
    lm_stream *c2 = NULL, *a2 = NULL;
    CHECK(lm_unix_connect(path, &c2, &err) == 0);
    CHECK(lm_listener_accept(l2, &a2, &err) == 0);
    CHECK(lm_stream_write(c2, "x", 1, &err) == 0);
    char ch = 0;
    size_t got = 0;
    CHECK(lm_stream_read(a2, &ch, 1, &got, &err) == 0 && got == 1 && ch == 'x');
    lm_stream_close(c2, NULL);
    lm_stream_close(a2, NULL);
    lm_listener_close(l2);
  }
  CHECK(stat(path, &st) != 0);
}

/* Timeouts: an accept with nobody connecting, a Unix connect to a listener
 * whose backlog is full (the kernel makes it wait), each with a clear
 * error; a timeout long enough changes nothing. */
static void test_timeouts(void) {
  lm_error err;
  lm_listener *l = NULL;
  CHECK(lm_tcp_listen("127.0.0.1", 0, &l, &err) == 0);
  if (!l)
    return;
  lm_stream *s = NULL;
  CHECK_EQ_I64(lm_listener_accept_timeout(l, 100, &s, &err), LM_ERR_IO);
  CHECK(s == NULL);
  CHECK(strstr(err.msg, "tcp-listen://127.0.0.1:") != NULL &&
        strstr(err.msg, "no peer connected within 100 ms (accept timeout)"));
  /* a connection that is waiting is accepted within the timeout */
  lm_stream *c = NULL;
  CHECK(lm_tcp_connect_timeout("127.0.0.1", lm_listener_port(l), 2000, &c,
                               &err) == 0);
  CHECK(lm_listener_accept_timeout(l, 2000, &s, &err) == 0);
  lm_stream_close(c, NULL);
  lm_stream_close(s, NULL);
  lm_listener_close(l);

  /* through lm_stream_open_opts: accept on a Unix endpoint */
  char text[300];
  snprintf(text, sizeof text, "unix-listen://%s/t.sock", tmpdir);
  lm_endpoint ep;
  CHECK(lm_endpoint_parse(text, &ep, &err) == 0);
  lm_stream_options o = {.accept_timeout_ms = 50};
  CHECK_EQ_I64(lm_stream_open_opts(&ep, LM_STREAM_READ, &o, &s, &err),
               LM_ERR_IO);
  CHECK(strstr(err.msg, "accept timeout") != NULL);
  struct stat st;
  CHECK(stat(ep.path, &st) != 0); /* its socket file removed */

  /* a Unix listener with a full backlog: connects wait, then time out */
  char path[256];
  snprintf(path, sizeof path, "%s/full.sock", tmpdir);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un {
    sa_family_t f;
    char p[108];
  } sa = {AF_UNIX, {0}};
  strcpy(sa.p, path);
  CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  CHECK(listen(fd, 0) == 0);
  int fill[8], nfill = 0;
  for (; nfill < 8; nfill++) { /* fill the backlog (never accepted) */
    fill[nfill] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (connect(fill[nfill], (struct sockaddr *)&sa, sizeof sa) != 0) {
      close(fill[nfill]);
      break;
    }
  }
  CHECK(nfill >= 1);
  CHECK_EQ_I64(lm_unix_connect_timeout(path, 100, &c, &err), LM_ERR_IO);
  CHECK(c == NULL);
  CHECK(strstr(err.msg, "unix://") &&
        strstr(err.msg, "not accepted within 100 ms (connect timeout"));
  /* once a slot is free (one accepted), the connect succeeds */
  int a = accept(fd, NULL, NULL);
  CHECK(a >= 0);
  CHECK(lm_unix_connect_timeout(path, 2000, &c, &err) == 0);
  /* the timeout does not linger on the socket: a large write works */
  lm_stream_close(c, NULL);
  if (a >= 0)
    close(a);
  for (int i = 0; i < nfill; i++)
    close(fill[i]);
  close(fd);
  unlink(path);
}

static void test_refused(void) {
  lm_listener *l = NULL;
  lm_error err;
  CHECK(lm_tcp_listen("127.0.0.1", 0, &l, &err) == 0);
  if (!l)
    return;
  int port = lm_listener_port(l);
  lm_listener_close(l); /* nobody listens there now */
  lm_stream *s = NULL;
  CHECK_EQ_I64(lm_tcp_connect("127.0.0.1", port, &s, &err), LM_ERR_IO);
  CHECK(s == NULL);
  char want[64];
  snprintf(want, sizeof want, "tcp://127.0.0.1:%d: connect: ", port);
  CHECK(strstr(err.msg, want) != NULL);
  CHECK(strstr(err.msg, "refused") != NULL);
  /* through an endpoint string too */
  lm_endpoint ep;
  char text[64];
  snprintf(text, sizeof text, "tcp://127.0.0.1:%d", port);
  CHECK(lm_endpoint_parse(text, &ep, &err) == 0);
  CHECK_EQ_I64(lm_stream_open(&ep, LM_STREAM_WRITE, &s, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "refused") != NULL);
  /* a host that does not resolve */
  CHECK_EQ_I64(lm_tcp_connect("no-such-host.invalid", 80, &s, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, "tcp://no-such-host.invalid:80") != NULL);
  /* binding an address in use */
  lm_listener *a = NULL, *b = NULL;
  CHECK(lm_tcp_listen("127.0.0.1", 0, &a, &err) == 0);
  if (a) {
    CHECK_EQ_I64(lm_tcp_listen("127.0.0.1", lm_listener_port(a), &b, &err),
                 LM_ERR_IO);
    CHECK(strstr(err.msg, "bind") != NULL);
    lm_listener_close(a);
  }
}

static void test_partial_reads(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  lm_stream *w = NULL, *r = NULL;
  lm_error err;
  CHECK(lm_fd_stream_new(sv[0], true, true, NULL, &w, &err) == 0);
  CHECK(lm_fd_stream_new(sv[1], true, true, "peer", &r, &err) == 0);
  CHECK(strcmp(lm_stream_name(w), "fd ") > 0);
  char buf[100];
  size_t got = 99;
  CHECK(lm_stream_read(r, buf, 0, &got, &err) == 0 && got == 0);
  CHECK(lm_stream_write(w, "abc", 3, &err) == 0);
  CHECK(lm_stream_read(r, buf, sizeof buf, &got, &err) == 0);
  CHECK_EQ_I64(got, 3); /* up to n: returns what is there */
  CHECK(memcmp(buf, "abc", 3) == 0);
  CHECK(lm_stream_write(w, "1234567", 7, &err) == 0);
  CHECK(lm_stream_read_exact(r, buf, 4, &got, &err) == 0 && got == 4);
  CHECK(memcmp(buf, "1234", 4) == 0);
  CHECK(lm_stream_close(w, &err) == 0);
  CHECK_EQ_I64(lm_stream_read_exact(r, buf, 10, &got, &err), LM_ERR_IO);
  CHECK_EQ_I64(got, 3);
  CHECK(memcmp(buf, "567", 3) == 0);
  CHECK(strstr(err.msg, "peer: unexpected end of input after 3 of 10") != NULL);
  CHECK(lm_stream_read(r, buf, sizeof buf, &got, &err) == 0 && got == 0);
  CHECK(lm_stream_close(r, &err) == 0);
  CHECK(lm_stream_close(NULL, &err) == 0);
  CHECK_EQ_I64(lm_fd_stream_new(-1, false, false, NULL, &r, &err),
               LM_ERR_INVALID);
}

/* Writing to a socket whose peer is gone is an error, not SIGPIPE (this
 * test does not ignore SIGPIPE: a signal would kill it). */
static void test_closed_peer(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  close(sv[1]);
  lm_stream *w = NULL;
  lm_error err;
  CHECK(lm_fd_stream_new(sv[0], true, true, "gone", &w, &err) == 0);
  static char block[65536];
  int rc = 0;
  for (int i = 0; i < 100 && rc == 0; i++)
    rc = lm_stream_write(w, block, sizeof block, &err);
  CHECK_EQ_I64(rc, LM_ERR_IO);
  CHECK(strstr(err.msg, "gone: write: ") != NULL);
  lm_stream_close(w, NULL);
}

static void test_file(void) {
  char path[256];
  snprintf(path, sizeof path, "%s/f.bin", tmpdir);
  lm_endpoint ep;
  lm_error err;
  CHECK(lm_endpoint_parse(path, &ep, &err) == 0);
  lm_stream *w = NULL, *r = NULL;
  CHECK(lm_stream_open(&ep, LM_STREAM_WRITE, &w, &err) == 0);
  if (!w)
    return;
  uint64_t seed = 3;
  static unsigned char chunk[200001];
  size_t off = 0;
  while (off < TOTAL) {
    size_t k = 1 + lm_test_rand(&seed) % (seed & 1 ? 13 : sizeof chunk);
    if (k > TOTAL - off)
      k = TOTAL - off;
    for (size_t i = 0; i < k; i++)
      chunk[i] = pattern(off + i);
    CHECK(lm_stream_write(w, chunk, k, &err) == 0);
    off += k;
  }
  CHECK(lm_stream_close(w, &err) == 0);
  CHECK(lm_stream_open(&ep, LM_STREAM_READ, &r, &err) == 0);
  if (r)
    read_and_verify(r, "file");
  lm_stream_close(r, NULL);
  /* read_all with and without a limit */
  lm_buf b;
  lm_buf_init(&b);
  CHECK(lm_file_stream_open(path, LM_STREAM_READ, &r, &err) == 0);
  CHECK(lm_stream_read_all(r, &b, 0, &err) == 0);
  CHECK_EQ_I64(b.len, TOTAL);
  CHECK(b.len == TOTAL && b.data[TOTAL] == '\0' &&
        (unsigned char)b.data[TOTAL - 1] == pattern(TOTAL - 1));
  lm_stream_close(r, NULL);
  lm_buf_reset(&b);
  CHECK(lm_file_stream_open(path, LM_STREAM_READ, &r, &err) == 0);
  CHECK_EQ_I64(lm_stream_read_all(r, &b, 1000, &err), LM_ERR_LIMIT);
  lm_stream_close(r, NULL);
  lm_buf_free(&b);
  unlink(path);
  /* errors name the path */
  CHECK_EQ_I64(lm_file_stream_open(path, LM_STREAM_READ, &r, &err), LM_ERR_IO);
  CHECK(strstr(err.msg, path) && strstr(err.msg, "cannot open"));
  CHECK_EQ_I64(lm_stream_open(&ep, 3, &r, &err), LM_ERR_INVALID);
}

int main(void) {
  alarm(120); /* a hang fails the test instead of blocking ctest */
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_parse_ok();
  test_parse_bad();
  test_partial_reads();
  test_closed_peer();
  test_socketpair();
  test_tcp_pair();
  test_unix_pair();
  test_refused();
  test_timeouts();
  test_file();
  rmdir(tmpdir);
  return lm_test_done("test_transport");
}
