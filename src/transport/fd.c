/*
 * transport/fd.c — the generic file-descriptor transport: read/write/close
 * on any descriptor (pipe, file, socket), retrying EINTR, continuing short
 * writes, waiting on non-blocking descriptors with poll(), and using
 * send(MSG_NOSIGNAL) on sockets so a closed peer is an error, not SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
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

/* ms left until deadline_ms (CLOCK_MONOTONIC), at least 0 */
static int64_t ms_left(int64_t deadline_ms) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t left =
      deadline_ms - ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
  return left > 0 ? left : 0;
}

/* AF_UNIX: a connect to a listener whose backlog is full blocks in the
 * kernel (a non-blocking one fails with EAGAIN without anything in
 * progress to poll), bounded by SO_SNDTIMEO; restored afterwards. */
static int connect_unix(int fd, const struct sockaddr *addr, socklen_t len,
                        int64_t deadline_ms) {
  for (;;) {
    int64_t left = deadline_ms > 0 ? ms_left(deadline_ms) : 0;
    if (deadline_ms > 0 && left == 0)
      return ETIMEDOUT;
    struct timeval tv = {(time_t)(left / 1000),
                         (suseconds_t)(left % 1000) * 1000};
    if (deadline_ms > 0)
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int e = connect(fd, addr, len) == 0 ? 0 : errno;
    if (deadline_ms > 0) {
      struct timeval zero = {0, 0};
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &zero, sizeof zero);
    }
    if (e == EINTR)
      continue;
    return e == EAGAIN && deadline_ms > 0 ? ETIMEDOUT : e;
  }
}

int lm_connect_fd(int fd, const struct sockaddr *addr, unsigned addrlen,
                  int64_t deadline_ms) {
  if (addr->sa_family == AF_UNIX)
    return connect_unix(fd, addr, (socklen_t)addrlen, deadline_ms);
  /* TCP: non-blocking while connecting when there is a deadline, so a peer
   * that never answers (a dropped SYN) cannot block past it */
  int fl = deadline_ms > 0 ? fcntl(fd, F_GETFL) : -1;
  if (fl >= 0 && !(fl & O_NONBLOCK))
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  int e = 0;
  if (connect(fd, addr, (socklen_t)addrlen) != 0) {
    e = errno;
    if (e == EINTR || e == EINPROGRESS) {
      /* the connection proceeds asynchronously; wait for it */
      e = lm_wait_fd(fd, POLLOUT, deadline_ms);
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      if (e == 0)
        e = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) ? errno : soerr;
    }
  }
  if (fl >= 0 && !(fl & O_NONBLOCK))
    fcntl(fd, F_SETFL, fl);
  return e;
}

int64_t lm_deadline_ms(int timeout_ms) {
  if (timeout_ms <= 0)
    return 0;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
}

int lm_wait_fd(int fd, short events, int64_t deadline_ms) {
  if (deadline_ms <= 0)
    return wait_fd(fd, events);
  struct pollfd p = {.fd = fd, .events = events};
  for (;;) {
    int64_t left = ms_left(deadline_ms);
    if (left <= 0)
      return ETIMEDOUT;
    int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
    if (r > 0)
      return 0;
    if (r < 0 && errno != EINTR)
      return errno;
  }
}
