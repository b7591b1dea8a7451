/*
 * transport/unix.c — Unix domain (SOCK_STREAM) client streams and
 * listener. The listener replaces a stale socket file (one no process is
 * listening on, e.g. left by a killed server), never a live one or a file
 * that is not a socket, and unlinks its own socket file on close (only if
 * it is still the one it created).
 */
#include <errno.h>
#include <stdio.h>
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
  return lm_unix_connect_timeout(path, 0, out, err);
}

int lm_unix_connect_timeout(const char *path, int timeout_ms, lm_stream **out,
                            lm_error *err) {
  *out = NULL;
  int tmo = lm_timeout_ms(timeout_ms, LM_CONNECT_TIMEOUT_DEFAULT_MS);
  char *name = lm_asprintf("unix://%s", path);
  if (!name)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  struct sockaddr_un sa;
  int rc = make_addr(name, path, &sa, err);
  if (rc == 0) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int e = fd < 0 ? errno
                   : lm_connect_fd(fd, (struct sockaddr *)&sa, sizeof sa,
                                   lm_deadline_ms(tmo));
    if (e) {
      if (fd >= 0)
        close(fd);
      if (e == ETIMEDOUT && tmo > 0)
        rc = lm_err(err, LM_ERR_IO,
                    "%s: connect: not accepted within %d ms (connect "
                    "timeout; the server's backlog is full)",
                    name, tmo);
      else
        rc = lm_err(err, LM_ERR_IO, "%s: connect: %s", name, strerror(e));
    } else {
      rc = lm_socket_stream(fd, name, out, err);
    }
  }
  free(name);
  return rc;
}

/* Whether /proc/net/unix (Linux) shows a listening socket bound to path:
 * 1 yes, 0 no, -1 cannot tell. A socket bound by a relative name (shown
 * as given) counts when its last component matches. */
static int proc_listening(const char *path) {
  FILE *fp = fopen("/proc/net/unix", "r");
  if (!fp)
    return -1;
  char abs[4200];
  if (path[0] == '/' || !getcwd(abs, 4096))
    snprintf(abs, sizeof abs, "%s", path);
  else
    snprintf(abs + strlen(abs), sizeof abs - strlen(abs), "/%s", path);
  const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
  char line[4400];
  int found = 0;
  /* "Num RefCount Protocol Flags Type St Inode Path"; __SO_ACCEPTCON
   * (1 << 16) in Flags marks a listening socket */
  while (!found && fgets(line, sizeof line, fp)) {
    unsigned long flags;
    int off = 0;
    if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %n", &flags, &off) < 1 ||
        off == 0 || !(flags & (1UL << 16)))
      continue;
    char *p = line + off;
    p[strcspn(p, "\n")] = 0;
    if (p[0] == '/')
      found = !strcmp(p, abs);
    else if (p[0] && p[0] != '@') {
      const char *b = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
      found = !strcmp(b, base);
    }
  }
  fclose(fp);
  return found;
}

/* Removes a socket file at path that no process listens on: not listed as
 * listening in /proc/net/unix and refusing a connection (the probe only
 * reaches a server /proc did not show). 0 when removed, else an error. */
static int remove_stale(const char *name, const char *path,
                        const struct sockaddr_un *sa, lm_error *err) {
  int live = proc_listening(path);
  int e = 0;
  if (live != 1) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    e = fd < 0                                                 ? errno
        : connect(fd, (const struct sockaddr *)sa, sizeof *sa) ? errno
                                                               : 0;
    if (fd >= 0)
      close(fd);
    if (e == ECONNREFUSED) {
      if (unlink(path) == 0 || errno == ENOENT)
        return 0;
      return lm_err(err, LM_ERR_IO, "%s: cannot remove the stale socket %s: %s",
                    name, path, strerror(errno));
    }
  }
  return lm_err(
      err, LM_ERR_IO, "%s: %s is a socket another process is listening on%s",
      name, path,
      live == 1 || e == 0 || e == EAGAIN ? "" : " (or cannot be probed)");
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
    /* a stale socket (a killed server's) is replaced; a live one or any
     * other file never is (unlinking a live socket would hijack it) */
    if (S_ISSOCK(st.st_mode))
      rc = remove_stale(l->name, path, &sa, err);
    else
      rc = lm_err(err, LM_ERR_IO, "%s: %s already exists and is not a socket",
                  l->name, path);
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
