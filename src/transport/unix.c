/*
 * transport/unix.c — Unix domain (SOCK_STREAM) client streams and
 * listener. The listener never replaces an existing file (not even a
 * stale socket: probing it would use up a live one-shot server's accept)
 * and unlinks its own socket file on close (only if it is still the one
 * it created).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport/transport_internal.h"

static int make_addr(const char *name, const char *path, struct sockaddr_un *sa,
                     lm_error *err) {
  size_t n = strlen(path);
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  if (n == 0 || n >= sizeof sa->sun_path)
    return lm_err(err, LM_ERR_INVALID,
                  "%s: Unix socket path must be 1..%zu bytes", name,
                  sizeof sa->sun_path - 1);
  memcpy(sa->sun_path, path, n);
  return 0;
}

int lm_unix_connect(const char *path, lm_stream **out, lm_error *err) {
  *out = NULL;
  char *name = lm_asprintf("unix://%s", path);
  if (!name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  struct sockaddr_un sa;
  int rc = make_addr(name, path, &sa, err);
  if (rc == 0) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int e =
        fd < 0 ? errno : lm_connect_fd(fd, (struct sockaddr *)&sa, sizeof sa);
    if (e) {
      if (fd >= 0)
        close(fd);
      rc = lm_err(err, LM_ERR_IO, "%s: connect: %s", name, strerror(e));
    } else {
      rc = lm_socket_stream(fd, name, out, err);
    }
  }
  free(name);
  return rc;
}

int lm_unix_listen(const char *path, lm_listener **out, lm_error *err) {
  *out = NULL;
  lm_listener *l = calloc(1, sizeof *l);
  if (l) {
    l->fd = -1;
    l->name = lm_asprintf("unix-listen://%s", path);
    l->unix_path = lm_strdup(path);
  }
  if (!l || !l->name || !l->unix_path) {
    lm_listener_close(l);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  struct sockaddr_un sa;
  int rc = make_addr(l->name, path, &sa, err);
  struct stat st;
  if (rc == 0 && lstat(path, &st) == 0) {
    /* Never replaced: probing a socket for liveness would use up a live
     * one-shot server's only accept, and unlinking a live socket hijacks
     * it. A stale socket of a killed server is removed by hand. */
    rc = lm_err(err, LM_ERR_IO,
                "%s: %s already exists (%s; remove it if no server uses it)",
                l->name, path,
                S_ISSOCK(st.st_mode) ? "a socket" : "not a socket");
  }
  if (rc == 0) {
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
      rc = lm_err(err, LM_ERR_IO, "%s: socket: %s", l->name, strerror(errno));
  }
  if (rc == 0 && bind(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0)
    rc = lm_err(err, LM_ERR_IO, "%s: bind: %s", l->name, strerror(errno));
  if (rc == 0) {
    if (lstat(path, &st) == 0) {
      l->dev = st.st_dev;
      l->ino = st.st_ino;
    }
    if (listen(l->fd, 8) != 0)
      rc = lm_err(err, LM_ERR_IO, "%s: listen: %s", l->name, strerror(errno));
  } else {
    free(l->unix_path); /* not ours: never unlink it */
    l->unix_path = NULL;
  }
  if (rc) {
    lm_listener_close(l);
    return rc;
  }
  *out = l;
  return 0;
}
