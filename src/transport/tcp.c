/*
 * transport/tcp.c — TCP client streams and a TCP listener (plain POSIX
 * sockets, IPv4 and IPv6 through getaddrinfo). The listener binds exactly
 * the address it is given.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/transport_internal.h"

/* "scheme://host:port", IPv6 hosts in brackets; malloc'd or NULL. */
static char *tcp_name(const char *scheme, const char *host, int port) {
  bool v6 = strchr(host, ':') != NULL;
  return lm_asprintf("%s://%s%s%s:%d", scheme, v6 ? "[" : "", host,
                     v6 ? "]" : "", port);
}

static int resolve(const char *name, const char *host, int port, bool passive,
                   struct addrinfo **res, lm_error *err) {
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  int g = getaddrinfo(host, ps, &hints, res);
  if (g != 0)
    return lm_err(err, LM_ERR_IO, "%s: cannot resolve host '%s': %s", name,
                  host, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
  return 0;
}

int lm_tcp_connect(const char *host, int port, lm_stream **out, lm_error *err) {
  return lm_tcp_connect_timeout(host, port, 0, out, err);
}

int lm_tcp_connect_timeout(const char *host, int port, int timeout_ms,
                           lm_stream **out, lm_error *err) {
  *out = NULL;
  int tmo = lm_timeout_ms(timeout_ms, LM_CONNECT_TIMEOUT_DEFAULT_MS);
  int64_t deadline = lm_deadline_ms(tmo);
  char *name = tcp_name("tcp", host, port);
  if (!name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (port < 1 || port > 65535) {
    int rc =
        lm_err(err, LM_ERR_INVALID, "%s: port out of range 1..65535", name);
    free(name);
    return rc;
  }
  struct addrinfo *res = NULL;
  int rc = resolve(name, host, port, false, &res, err);
  int e = ECONNREFUSED;
  for (struct addrinfo *a = res; rc == 0 && a; a = a->ai_next) {
    int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    if ((e = lm_connect_fd(fd, a->ai_addr, a->ai_addrlen, deadline)) == 0) {
      rc = lm_socket_stream(fd, name, out, err);
      break;
    }
    close(fd);
    if (e == ETIMEDOUT && deadline > 0)
      break; /* the time is up for every other address too */
  }
  if (rc == 0 && !*out && e == ETIMEDOUT && deadline > 0)
    rc = lm_err(err, LM_ERR_IO,
                "%s: connect: no answer within %d ms (connect timeout)", name,
                tmo);
  else if (rc == 0 && !*out)
    rc = lm_err(err, LM_ERR_IO, "%s: connect: %s", name, strerror(e));
  if (res)
    freeaddrinfo(res);
  free(name);
  return rc;
}

int lm_tcp_listen(const char *host, int port, lm_listener **out,
                  lm_error *err) {
  *out = NULL;
  char *name = tcp_name("tcp-listen", host, port);
  if (!name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (port < 0 || port > 65535) {
    int rc =
        lm_err(err, LM_ERR_INVALID, "%s: port out of range 0..65535", name);
    free(name);
    return rc;
  }
  struct addrinfo *res = NULL;
  int rc = resolve(name, host, port, true, &res, err);
  int fd = -1, e = EADDRNOTAVAIL;
  const char *what = "bind";
  for (struct addrinfo *a = res; rc == 0 && a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      what = "socket";
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0) {
      if (listen(fd, 8) == 0)
        break;
      what = "listen";
    } else {
      what = "bind";
    }
    e = errno;
    close(fd);
    fd = -1;
  }
  if (res)
    freeaddrinfo(res);
  if (rc == 0 && fd < 0)
    rc = lm_err(err, LM_ERR_IO, "%s: %s: %s", name, what, strerror(e));
  if (rc) {
    free(name);
    return rc;
  }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  int bound = port;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
    bound = ss.ss_family == AF_INET6
                ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                : ntohs(((struct sockaddr_in *)&ss)->sin_port);
  lm_listener *l = calloc(1, sizeof *l);
  char *bname = tcp_name("tcp-listen", host, bound);
  if (!l || !bname) {
    free(l);
    free(bname);
    free(name);
    close(fd);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  free(name);
  l->fd = fd;
  l->port = bound;
  l->name = bname;
  *out = l;
  return 0;
}
