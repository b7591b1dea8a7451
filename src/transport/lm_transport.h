/*
 * transport/lm_transport.h — byte streams over files, stdin/stdout, pipes,
 * TCP and Unix domain sockets, and the endpoint strings that name them.
 *
 * Layer: beside format/, below exec/ (DESIGN.md); includes only base/.
 * The transport moves bytes; framing and formats live above it.
 *
 * Endpoint strings (lm_endpoint_parse):
 *   -                         stdin (read) / stdout (write)
 *   PATH, file:///PATH        a file (anything without a URL scheme)
 *   tcp://HOST:PORT           TCP client (HOST a name, IPv4, or [IPv6])
 *   tcp-listen://HOST:PORT    TCP server: binds exactly HOST:PORT, accepts
 *                             one connection, then stops listening
 *   unix:///PATH              Unix domain socket client (absolute PATH)
 *   unix-listen:///PATH       Unix domain socket server: one connection;
 *                             the socket file is removed on close; a
 *                             stale one (nobody listening) is replaced
 *
 * Timeouts (lm_stream_options): a connect gives up after 30 s by default,
 * an accept waits for its peer without limit unless given one.
 *
 * A stream is read (up to n bytes at a time, 0 bytes = end of input) or
 * written (always all n bytes) and closed. Every failing call returns an
 * LM_ERR_* code and fills the optional lm_error with a message naming the
 * endpoint, e.g. "tcp://127.0.0.1:9000: connect: Connection refused".
 * Interrupted system calls (EINTR) are retried, short writes continued,
 * a non-blocking descriptor is waited for with poll().
 *
 * Signals: the library never changes signal dispositions. Socket writes
 * use send(MSG_NOSIGNAL), so a closed peer is an LM_ERR_IO error, not a
 * SIGPIPE. Writes to pipes (a plain fd, stdout) can still raise SIGPIPE;
 * a program that wants an error instead ignores SIGPIPE itself (laminardb
 * does).
 *
 * Threads: a stream or listener is used by one thread at a time.
 */
#ifndef LM_TRANSPORT_H
#define LM_TRANSPORT_H

#include "base/lm_base.h"

/* ------------------------------------------------------------ endpoints */

typedef enum lm_endpoint_kind {
  LM_EP_NONE = 0,
  LM_EP_STDIO,       /* "-" */
  LM_EP_FILE,        /* a path */
  LM_EP_TCP,         /* tcp://host:port */
  LM_EP_TCP_LISTEN,  /* tcp-listen://host:port */
  LM_EP_UNIX,        /* unix:///path */
  LM_EP_UNIX_LISTEN, /* unix-listen:///path */
} lm_endpoint_kind;

/* Longest accepted endpoint string and file path, in bytes (without NUL). */
#define LM_EP_MAX_TEXT 4095
/* Longest Unix socket path (sizeof(sockaddr_un.sun_path) - 1 on Linux). */
#define LM_EP_MAX_UNIX_PATH 107

/* A parsed endpoint; a plain value (no heap memory, nothing to free). */
typedef struct lm_endpoint {
  lm_endpoint_kind kind;
  char host[256];  /* TCP: host name or address, IPv6 without brackets */
  int port;        /* TCP: 1..65535; 0 only for tcp-listen (any port) */
  char path[4096]; /* FILE and UNIX kinds: the path, NUL-terminated */
  char name[4200]; /* canonical text for messages, e.g. "tcp://[::1]:80" */
} lm_endpoint;

/* Parses an endpoint string (grammar in the header comment) into *ep.
 * Strings without a "scheme://" prefix are file paths; "-" is stdio.
 * Errors (LM_ERR_INVALID, *ep unspecified): empty or over-long text,
 * an unknown scheme, a missing/invalid host or port (not 1..65535, or 0
 * for a client), an IPv6 address without brackets, characters outside
 * [A-Za-z0-9.-_:%] in a host, anything after the port, a relative or
 * over-long Unix socket path. The message quotes the text. */
int lm_endpoint_parse(const char *text, lm_endpoint *ep, lm_error *err);

/* True for the socket kinds (TCP, Unix, client or listen). */
bool lm_endpoint_is_socket(const lm_endpoint *ep);
/* True for the listening kinds (tcp-listen, unix-listen). */
bool lm_endpoint_is_listen(const lm_endpoint *ep);

/* -------------------------------------------------------------- streams */

typedef struct lm_stream lm_stream;

enum { LM_STREAM_READ = 1, LM_STREAM_WRITE = 2 };

/* Default connect timeout (tcp://, unix://), ms. */
#define LM_CONNECT_TIMEOUT_DEFAULT_MS 30000
/* Default accept timeout (tcp-listen://, unix-listen://): none (-1). */
#define LM_ACCEPT_TIMEOUT_DEFAULT_MS (-1)

/* Settings of lm_stream_open_opts; a zeroed struct means the defaults. */
typedef struct lm_stream_options {
  /* ms a connect may take (TCP handshake; a Unix listener's full backlog)
   * before it fails: 0 = LM_CONNECT_TIMEOUT_DEFAULT_MS, < 0 = no limit */
  int connect_timeout_ms;
  /* ms a listening endpoint waits for its peer: 0 =
   * LM_ACCEPT_TIMEOUT_DEFAULT_MS (no limit), < 0 = no limit */
  int accept_timeout_ms;
} lm_stream_options;

/* Opens the endpoint for reading (LM_STREAM_READ) or writing
 * (LM_STREAM_WRITE): stdio picks stdin or stdout; a file is opened
 * (writing creates/truncates it, mode 0666 & ~umask) with a 64 KiB
 * buffer; tcp/unix connect; tcp-listen/unix-listen bind, listen, block
 * until one peer connects, and stop listening. On success *out is a new
 * stream owned by the caller (free with lm_stream_close). Errors:
 * LM_ERR_IO (open/connect/bind/accept failed, message names the endpoint
 * and the system error), LM_ERR_INVALID (bad mode), LM_ERR_NOMEM. */
int lm_stream_open(const lm_endpoint *ep, int mode, lm_stream **out,
                   lm_error *err);
/* lm_stream_open with timeouts (o may be NULL: the defaults). A timeout is
 * LM_ERR_IO "tcp://h:p: connect: no answer within 30000 ms (connect
 * timeout)" / "tcp-listen://h:p: accept: no peer connected within N ms
 * (accept timeout)". */
int lm_stream_open_opts(const lm_endpoint *ep, int mode,
                        const lm_stream_options *o, lm_stream **out,
                        lm_error *err);

/* Reads up to n bytes into buf; *got is the count (0 < *got <= n), or 0
 * at end of input (or when n is 0). Blocks until at least one byte or
 * end of input. Returns 0, or LM_ERR_IO ("NAME: read: <reason>", e.g. a
 * connection reset) with *got = 0. */
int lm_stream_read(lm_stream *s, void *buf, size_t n, size_t *got,
                   lm_error *err);

/* Reads exactly n bytes (looping over short reads). An end of input
 * before n bytes is LM_ERR_IO "NAME: unexpected end of input after K of
 * N bytes"; *got (may be NULL) tells how many arrived either way. */
int lm_stream_read_exact(lm_stream *s, void *buf, size_t n, size_t *got,
                         lm_error *err);

/* Appends everything up to end of input to *out (an initialized lm_buf,
 * kept NUL-terminated). More than max bytes (0 = no limit) is
 * LM_ERR_LIMIT; read errors are LM_ERR_IO; allocation LM_ERR_NOMEM. */
int lm_stream_read_all(lm_stream *s, lm_buf *out, size_t max, lm_error *err);

/* Writes all n bytes of buf (buffered streams may keep them until the
 * buffer fills, lm_stream_flush or lm_stream_close). Returns 0 or
 * LM_ERR_IO ("NAME: write: Broken pipe", "... Connection reset by
 * peer"); after an error the stream's state is unspecified except that
 * it can be closed. */
int lm_stream_write(lm_stream *s, const void *buf, size_t n, lm_error *err);

struct iovec;
/* Writes all bytes of iov[0, n) in order, as lm_stream_write of each
 * piece would. An unbuffered stream (sockets, pipes, lm_fd_stream_new)
 * uses writev()/sendmsg(MSG_NOSIGNAL), up to IOV_MAX pieces per call,
 * continuing short writes; a buffered one writes the pieces in turn. */
int lm_stream_writev(lm_stream *s, const struct iovec *iov, int n,
                     lm_error *err);

/* lm_stream_writev with the stream as a void pointer: the shape of
 * lm_ipc_sink_fn (format/lm_ipc.h, lm_ipc_writer_new_sink). */
int lm_stream_writev_sink(void *stream, const struct iovec *iov, int n,
                          lm_error *err);

/* Writes out any buffered bytes. 0 or LM_ERR_IO. */
int lm_stream_flush(lm_stream *s, lm_error *err);

/* Flushes, closes the descriptor (unless it was borrowed) and frees s.
 * NULL is a no-op. Returns the first error of flush or close (LM_ERR_IO;
 * the stream is freed regardless). */
int lm_stream_close(lm_stream *s, lm_error *err);

/* The name used in messages ("<stdin>", a path, "tcp://h:p"); borrowed,
 * valid until close. */
const char *lm_stream_name(const lm_stream *s);

/* The underlying file descriptor (borrowed; for poll() or fstat()). */
int lm_stream_fd(const lm_stream *s);

/* ------------------------------------------------- transport constructors */

/* fd.c: wraps an open descriptor. own: close it on lm_stream_close.
 * is_socket: use send(MSG_NOSIGNAL)/recv. name is copied (NULL = "fd N").
 * Unbuffered. Errors: LM_ERR_INVALID (fd < 0), LM_ERR_NOMEM (then the fd
 * is not closed, even when owned). */
int lm_fd_stream_new(int fd, bool own, bool is_socket, const char *name,
                     lm_stream **out, lm_error *err);

/* file.c: opens path for reading or writing (mode as lm_stream_open) with
 * a 64 KiB buffer. LM_ERR_IO "PATH: cannot open: <reason>". */
int lm_file_stream_open(const char *path, int mode, lm_stream **out,
                        lm_error *err);

/* stdio.c: stdin (LM_STREAM_READ, named "<stdin>") or stdout
 * (LM_STREAM_WRITE, "<stdout>"), buffered, descriptors 0/1 borrowed (not
 * closed). Do not mix with <stdio.h> I/O on the same descriptor. */
int lm_stdio_stream_open(int mode, lm_stream **out, lm_error *err);

/* tcp.c: connects to host:port (every address getaddrinfo returns, in
 * order). LM_ERR_IO "tcp://HOST:PORT: connect: Connection refused" or
 * "...: cannot resolve host: <reason>". */
int lm_tcp_connect(const char *host, int port, lm_stream **out, lm_error *err);
/* As lm_tcp_connect, giving up after timeout_ms (0 = the default 30 s,
 * < 0 = no limit; shared by every address tried): LM_ERR_IO "...: connect:
 * no answer within N ms (connect timeout)". */
int lm_tcp_connect_timeout(const char *host, int port, int timeout_ms,
                           lm_stream **out, lm_error *err);

/* unix.c: connects to the Unix domain socket at path (absolute or
 * relative, at most LM_EP_MAX_UNIX_PATH bytes). LM_ERR_IO
 * "unix://PATH: connect: <reason>", LM_ERR_INVALID for a long path. */
int lm_unix_connect(const char *path, lm_stream **out, lm_error *err);
/* As lm_unix_connect with a timeout as lm_tcp_connect_timeout (it bounds
 * the wait for room in a busy listener's backlog). */
int lm_unix_connect_timeout(const char *path, int timeout_ms, lm_stream **out,
                            lm_error *err);

/* ------------------------------------------------------------ listeners */

typedef struct lm_listener lm_listener;

/* tcp.c: binds host:port exactly (SO_REUSEADDR; port 0 = the kernel
 * picks one, see lm_listener_port) and listens. *out owned by the caller
 * (lm_listener_close). LM_ERR_IO "tcp-listen://HOST:PORT: bind: Address
 * already in use" etc. */
int lm_tcp_listen(const char *host, int port, lm_listener **out, lm_error *err);

/* unix.c: binds path and listens. An existing socket file nobody listens
 * on (a stale one, left by a killed server) is removed first: one that
 * /proc/net/unix does not list as listening and that refuses a connection
 * (the probe can only reach a server /proc did not show, e.g. one bound by
 * a relative name elsewhere). A live socket is LM_ERR_IO "...: PATH is a
 * socket another process is listening on"; any other existing file
 * LM_ERR_IO "...: PATH already exists and is not a socket" (never
 * removed). The socket file is unlinked by lm_listener_close. Errors as
 * above. */
int lm_unix_listen(const char *path, lm_listener **out, lm_error *err);

/* Binds a tcp-listen or unix-listen endpoint (LM_ERR_INVALID for other
 * kinds). */
int lm_listener_open(const lm_endpoint *ep, lm_listener **out, lm_error *err);

/* Blocks until a peer connects; *out is the connection (a new stream
 * owned by the caller, unbuffered). LM_ERR_IO on failure. */
int lm_listener_accept(lm_listener *l, lm_stream **out, lm_error *err);
/* As lm_listener_accept, waiting at most timeout_ms (0 = the default, no
 * limit; < 0 = no limit): LM_ERR_IO "NAME: accept: no peer connected
 * within N ms (accept timeout)". */
int lm_listener_accept_timeout(lm_listener *l, int timeout_ms, lm_stream **out,
                               lm_error *err);

/* The bound TCP port (useful after binding port 0); 0 for Unix. */
int lm_listener_port(const lm_listener *l);

/* The listener's name for messages (borrowed). */
const char *lm_listener_name(const lm_listener *l);

/* Stops listening, removes a Unix socket file it created, frees l.
 * Accepted streams stay open. NULL is a no-op. */
void lm_listener_close(lm_listener *l);

#endif
