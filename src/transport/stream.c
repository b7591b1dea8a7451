/*
 * transport/stream.c — the generic byte-stream layer: buffering, exact
 * reads, read-all, flush and close over any transport's primitives.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "transport/transport_internal.h"

lm_stream *lm_stream_alloc(int fd, bool own, bool is_socket, size_t bufcap,
                           const char *name) {
  lm_stream *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->ops = &lm_fd_stream_ops;
  s->fd = fd;
  s->own_fd = own;
  s->is_socket = is_socket;
  s->name = name ? lm_strdup(name) : lm_asprintf("fd %d", fd);
  if (bufcap) {
    s->bufcap = bufcap;
    s->rbuf = malloc(bufcap);
    s->wbuf = malloc(bufcap);
  }
  if (!s->name || (bufcap && (!s->rbuf || !s->wbuf))) {
    free(s->name);
    free(s->rbuf);
    free(s->wbuf);
    free(s);
    return NULL;
  }
  return s;
}

int lm_stream_read(lm_stream *s, void *buf, size_t n, size_t *got,
                   lm_error *err) {
  *got = 0;
  if (n == 0)
    return 0;
  if (!s->bufcap)
    return s->ops->read(s, buf, n, got, err);
  if (s->rpos == s->rlen) {
    /* large reads bypass the buffer */
    if (n >= s->bufcap)
      return s->ops->read(s, buf, n, got, err);
    s->rpos = s->rlen = 0;
    size_t k = 0;
    int rc = s->ops->read(s, s->rbuf, s->bufcap, &k, err);
    if (rc || k == 0)
      return rc;
    s->rlen = k;
  }
  size_t k = LM_MIN(n, s->rlen - s->rpos);
  memcpy(buf, s->rbuf + s->rpos, k);
  s->rpos += k;
  *got = k;
  return 0;
}

int lm_stream_read_exact(lm_stream *s, void *buf, size_t n, size_t *got,
                         lm_error *err) {
  size_t have = 0;
  int rc = 0;
  while (have < n) {
    size_t k = 0;
    if ((rc = lm_stream_read(s, (char *)buf + have, n - have, &k, err)) != 0)
      break;
    if (k == 0) {
      rc = lm_err(err, LM_ERR_IO,
                  "%s: unexpected end of input after %zu of %zu bytes", s->name,
                  have, n);
      break;
    }
    have += k;
  }
  if (got)
    *got = have;
  return rc;
}

int lm_stream_read_all(lm_stream *s, lm_buf *out, size_t max, lm_error *err) {
  size_t total = 0;
  for (;;) {
    if (lm_buf_reserve(out, 1 << 16))
      return lm_err(err, LM_ERR_NOMEM, "%s: out of memory", s->name);
    size_t room = out->cap - out->len - 1; /* keep the NUL */
    size_t k = 0;
    int rc = lm_stream_read(s, out->data + out->len, room, &k, err);
    if (rc)
      return rc;
    if (k == 0)
      break;
    out->len += k;
    out->data[out->len] = '\0';
    total += k;
    if (max && total > max)
      return lm_err(err, LM_ERR_LIMIT, "%s: input larger than %zu bytes",
                    s->name, max);
  }
  if (out->data)
    out->data[out->len] = '\0';
  return 0;
}

int lm_stream_flush(lm_stream *s, lm_error *err) {
  if (!s->bufcap || s->wlen == 0)
    return 0;
  size_t k = s->wlen;
  s->wlen = 0;
  return s->ops->write(s, s->wbuf, k, err);
}

int lm_stream_write(lm_stream *s, const void *buf, size_t n, lm_error *err) {
  if (n == 0)
    return 0;
  if (!s->bufcap)
    return s->ops->write(s, buf, n, err);
  if (s->wlen + n <= s->bufcap) {
    memcpy(s->wbuf + s->wlen, buf, n);
    s->wlen += n;
    return 0;
  }
  int rc = lm_stream_flush(s, err);
  if (rc)
    return rc;
  if (n >= s->bufcap)
    return s->ops->write(s, buf, n, err);
  memcpy(s->wbuf, buf, n);
  s->wlen = n;
  return 0;
}

int lm_stream_writev(lm_stream *s, const struct iovec *iov, int n,
                     lm_error *err) {
  if (s->bufcap || !s->ops->writev) {
    for (int i = 0; i < n; i++) {
      int rc = lm_stream_write(s, iov[i].iov_base, iov[i].iov_len, err);
      if (rc)
        return rc;
    }
    return 0;
  }
  return s->ops->writev(s, iov, n, err);
}

int lm_stream_writev_sink(void *stream, const struct iovec *iov, int n,
                          lm_error *err) {
  return lm_stream_writev(stream, iov, n, err);
}

int lm_stream_close(lm_stream *s, lm_error *err) {
  if (!s)
    return 0;
  int rc = lm_stream_flush(s, err);
  int rc2 = s->ops->close(s, rc ? NULL : err);
  free(s->name);
  free(s->rbuf);
  free(s->wbuf);
  free(s);
  return rc ? rc : rc2;
}

const char *lm_stream_name(const lm_stream *s) {
  return s->name;
}

int lm_stream_fd(const lm_stream *s) {
  return s->fd;
}

int lm_stream_open(const lm_endpoint *ep, int mode, lm_stream **out,
                   lm_error *err) {
  return lm_stream_open_opts(ep, mode, NULL, out, err);
}

int lm_stream_open_opts(const lm_endpoint *ep, int mode,
                        const lm_stream_options *o, lm_stream **out,
                        lm_error *err) {
  *out = NULL;
  int ct = o ? o->connect_timeout_ms : 0, at = o ? o->accept_timeout_ms : 0;
  if (mode != LM_STREAM_READ && mode != LM_STREAM_WRITE)
    return lm_err(err, LM_ERR_INVALID, "%s: bad stream mode %d", ep->name,
                  mode);
  switch (ep->kind) {
  case LM_EP_STDIO:
    return lm_stdio_stream_open(mode, out, err);
  case LM_EP_FILE:
    return lm_file_stream_open(ep->path, mode, out, err);
  case LM_EP_TCP:
    return lm_tcp_connect_timeout(ep->host, ep->port, ct, out, err);
  case LM_EP_UNIX:
    return lm_unix_connect_timeout(ep->path, ct, out, err);
  case LM_EP_TCP_LISTEN:
  case LM_EP_UNIX_LISTEN: {
    lm_listener *l = NULL;
    int rc = lm_listener_open(ep, &l, err);
    if (rc == 0)
      rc = lm_listener_accept_timeout(l, at, out, err);
    lm_listener_close(l);
    return rc;
  }
  default:
    return lm_err(err, LM_ERR_INVALID, "%s: not an endpoint", ep->name);
  }
}
