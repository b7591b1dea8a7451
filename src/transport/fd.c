/*
 * transport/fd.c — the generic file-descriptor transport: read/write/close
 * on any descriptor (pipe, file, socket), retrying EINTR, continuing short
 * writes, waiting on non-blocking descriptors with poll(), and using
 * send(MSG_NOSIGNAL) on sockets so a closed peer is an error, not SIGPIPE.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/transport_internal.h"

/* Waits until fd is ready for `events`; 0 or errno. */
static int wait_fd(int fd, short events) {
  struct pollfd p = {.fd = fd, .events = events};
  for (;;) {
    int r = poll(&p, 1, -1);
    if (r >= 0)
      return 0;
    if (errno != EINTR)
      return errno;
  }
}

static int fd_read(lm_stream *s, void *p, size_t n, size_t *got,
                   lm_error *err) {
  *got = 0;
  for (;;) {
    ssize_t k = s->is_socket ? recv(s->fd, p, n, 0) : read(s->fd, p, n);
    if (k >= 0) {
      *got = (size_t)k;
      return 0;
    }
    int e = errno;
    if (e == EINTR)
      continue;
    if ((e == EAGAIN || e == EWOULDBLOCK) && (e = wait_fd(s->fd, POLLIN)) == 0)
      continue;
    return lm_err(err, LM_ERR_IO, "%s: read: %s", s->name, strerror(e));
  }
}

static int fd_write(lm_stream *s, const void *p, size_t n, lm_error *err) {
  const char *c = p;
  while (n > 0) {
    ssize_t k =
        s->is_socket ? send(s->fd, c, n, MSG_NOSIGNAL) : write(s->fd, c, n);
    if (k > 0) {
      c += k;
      n -= (size_t)k;
      continue;
    }
    int e = k == 0 ? EIO : errno;
    if (e == EINTR)
      continue;
    if ((e == EAGAIN || e == EWOULDBLOCK) && (e = wait_fd(s->fd, POLLOUT)) == 0)
      continue;
    return lm_err(err, LM_ERR_IO, "%s: write: %s", s->name, strerror(e));
  }
  return 0;
}

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* Gathered write: writev()/sendmsg() over at most IOV_MAX pieces at a
 * time; a short write resumes inside the piece it stopped in (the
 * caller's iovec array is not modified). */
static int fd_writev(lm_stream *s, const struct iovec *iov, int n,
                     lm_error *err) {
  struct iovec cur[64];
  int i = 0;     /* next piece of iov */
  size_t in = 0; /* bytes of iov[i] already written */
  while (i < n) {
    int k = 0;
    for (int j = i; j < n && k < (int)(sizeof cur / sizeof *cur) && k < IOV_MAX;
         j++) {
      size_t skip = j == i ? in : 0;
      if (iov[j].iov_len == skip)
        continue;
      cur[k].iov_base = (char *)iov[j].iov_base + skip;
      cur[k].iov_len = iov[j].iov_len - skip;
      k++;
    }
    if (k == 0)
      return 0;
    ssize_t w;
    if (s->is_socket) {
      struct msghdr m;
      memset(&m, 0, sizeof m);
      m.msg_iov = cur;
      m.msg_iovlen = (size_t)k;
      w = sendmsg(s->fd, &m, MSG_NOSIGNAL);
    } else {
      w = writev(s->fd, cur, k);
    }
    if (w > 0) {
      size_t left = (size_t)w;
      while (i < n && left >= iov[i].iov_len - in) {
        left -= iov[i].iov_len - in;
        i++;
        in = 0;
      }
      in += left;
      continue;
    }
    int e = w == 0 ? EIO : errno;
    if (e == EINTR)
      continue;
    if ((e == EAGAIN || e == EWOULDBLOCK) && (e = wait_fd(s->fd, POLLOUT)) == 0)
      continue;
    return lm_err(err, LM_ERR_IO, "%s: write: %s", s->name, strerror(e));
  }
  return 0;
}

static int fd_close(lm_stream *s, lm_error *err) {
  if (!s->own_fd || s->fd < 0)
    return 0;
  /* close() is not retried on EINTR: on Linux the descriptor is gone */
  int r = close(s->fd);
  s->fd = -1;
  if (r != 0 && errno != EINTR)
    return lm_err(err, LM_ERR_IO, "%s: close: %s", s->name, strerror(errno));
  return 0;
}

const lm_stream_ops lm_fd_stream_ops = {fd_read, fd_write, fd_close, fd_writev};

int lm_fd_stream_new(int fd, bool own, bool is_socket, const char *name,
                     lm_stream **out, lm_error *err) {
  *out = NULL;
  if (fd < 0)
    return lm_err(err, LM_ERR_INVALID, "invalid file descriptor %d", fd);
  *out = lm_stream_alloc(fd, own, is_socket, 0, name);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_socket_stream(int fd, const char *name, lm_stream **out, lm_error *err) {
  *out = lm_stream_alloc(fd, true, true, 0, name);
  if (*out)
    return 0;
  close(fd);
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_connect_fd(int fd, const struct sockaddr *addr, unsigned addrlen) {
  if (connect(fd, addr, (socklen_t)addrlen) == 0)
    return 0;
  if (errno != EINTR && errno != EINPROGRESS)
    return errno;
  /* interrupted: the connection proceeds asynchronously; wait for it */
  int e = wait_fd(fd, POLLOUT);
  if (e)
    return e;
  int soerr = 0;
  socklen_t sl = sizeof soerr;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
    return errno;
  return soerr;
}
