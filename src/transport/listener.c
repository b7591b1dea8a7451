/*
 * transport/listener.c — what TCP and Unix listeners share: opening from
 * an endpoint, accepting one connection, closing.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/transport_internal.h"

int lm_listener_open(const lm_endpoint *ep, lm_listener **out, lm_error *err) {
  *out = NULL;
  if (ep->kind == LM_EP_TCP_LISTEN)
    return lm_tcp_listen(ep->host, ep->port, out, err);
  if (ep->kind == LM_EP_UNIX_LISTEN)
    return lm_unix_listen(ep->path, out, err);
  return lm_err(err, LM_ERR_INVALID, "%s: not a listening endpoint", ep->name);
}

int lm_listener_accept(lm_listener *l, lm_stream **out, lm_error *err) {
  return lm_listener_accept_timeout(l, 0, out, err);
}

int lm_listener_accept_timeout(lm_listener *l, int timeout_ms, lm_stream **out,
                               lm_error *err) {
  *out = NULL;
  int tmo = lm_timeout_ms(timeout_ms, LM_ACCEPT_TIMEOUT_DEFAULT_MS);
  int64_t deadline = lm_deadline_ms(tmo);
  for (;;) {
    if (deadline > 0) {
      int e = lm_wait_fd(l->fd, POLLIN, deadline);
      if (e == ETIMEDOUT)
        return lm_err(err, LM_ERR_IO,
                      "%s: accept: no peer connected within %d ms (accept "
                      "timeout)",
                      l->name, tmo);
      if (e)
        return lm_err(err, LM_ERR_IO, "%s: accept: %s", l->name, strerror(e));
    }
    int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0)
      return lm_socket_stream(fd, l->name, out, err);
    /* a peer that gave up before we accepted it is not our failure */
    if (errno == EINTR || errno == ECONNABORTED)
      continue;
    return lm_err(err, LM_ERR_IO, "%s: accept: %s", l->name, strerror(errno));
  }
}

int lm_listener_port(const lm_listener *l) {
  return l->port;
}

const char *lm_listener_name(const lm_listener *l) {
  return l->name;
}

void lm_listener_close(lm_listener *l) {
  if (!l)
    return;
  if (l->fd >= 0)
    close(l->fd);
  struct stat st;
  if (l->unix_path && lstat(l->unix_path, &st) == 0 &&
      (unsigned long long)st.st_dev == l->dev &&
      (unsigned long long)st.st_ino == l->ino)
    unlink(l->unix_path);
  free(l->unix_path);
  free(l->name);
  free(l);
}
