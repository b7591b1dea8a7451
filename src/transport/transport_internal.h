/*
 * transport/transport_internal.h — the stream object shared by the
 * transport implementations (fd.c, file.c, stdio.c, tcp.c, unix.c) and
 * the generic layer (stream.c). Not a public header.
 */
#ifndef LM_TRANSPORT_INTERNAL_H
#define LM_TRANSPORT_INTERNAL_H

#include "transport/lm_transport.h"

struct iovec;

/* Unbuffered primitives of one transport. read: up to n bytes, *got = 0 at
 * end of input. write: all n bytes. close: release the resource (the
 * generic layer frees the struct). Each names s->name in errors. */
typedef struct lm_stream_ops {
  int (*read)(lm_stream *s, void *p, size_t n, size_t *got, lm_error *err);
  int (*write)(lm_stream *s, const void *p, size_t n, lm_error *err);
  int (*close)(lm_stream *s, lm_error *err);
  /* all bytes of iov[0, n) (NULL: write each piece) */
  int (*writev)(lm_stream *s, const struct iovec *iov, int n, lm_error *err);
} lm_stream_ops;

struct lm_stream {
  const lm_stream_ops *ops;
  char *name; /* malloc'd */
  int fd;
  bool own_fd;
  bool is_socket;
  /* optional buffering (bufcap > 0): rbuf[rpos, rlen) unread input,
   * wbuf[0, wlen) pending output */
  size_t bufcap;
  char *rbuf;
  size_t rpos, rlen;
  char *wbuf;
  size_t wlen;
};

/* The descriptor-based primitives (fd.c), used by every transport. */
extern const lm_stream_ops lm_fd_stream_ops;

/* Allocates a stream over fd with the fd ops; bufcap > 0 adds buffers.
 * NULL on out-of-memory (fd untouched). */
lm_stream *lm_stream_alloc(int fd, bool own, bool is_socket, size_t bufcap,
                           const char *name);

/* A stream over an accepted or connected socket (closed by the stream);
 * on failure closes fd and fills err. */
int lm_socket_stream(int fd, const char *name, lm_stream **out, lm_error *err);

struct sockaddr;
/* connect() that survives EINTR (waits for the pending connection with
 * poll and reads SO_ERROR); 0 or an errno value, ETIMEDOUT when the
 * monotonic deadline (lm_deadline_ms; 0 = none) passes first. */
int lm_connect_fd(int fd, const struct sockaddr *addr, unsigned addrlen,
                  int64_t deadline_ms);

/* The CLOCK_MONOTONIC time in ms timeout_ms from now; 0 (no deadline) for
 * timeout_ms <= 0. */
int64_t lm_deadline_ms(int timeout_ms);

/* Waits until fd is ready for `events` (poll), or the deadline (0 = none)
 * passes: 0, ETIMEDOUT or an errno value. */
int lm_wait_fd(int fd, short events, int64_t deadline_ms);

/* A timeout setting as given to the API (0 = `def`, < 0 = none) to
 * milliseconds (<= 0 = none). */
static inline int lm_timeout_ms(int given, int def) {
  return given == 0 ? def : given;
}

struct lm_listener {
  int fd;
  int port;                    /* TCP: bound port */
  char *name;                  /* for messages */
  char *unix_path;             /* unix-listen: path to unlink on close */
  unsigned long long dev, ino; /* of the socket file we created */
};

#endif
