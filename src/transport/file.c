/*
 * transport/file.c — buffered file streams (64 KiB buffer). IPC files
 * are read zero-copy with mmap by format/ (lm_ipc_file_open); this is the
 * sequential path for everything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "transport/transport_internal.h"

#define FILE_BUF (64 * 1024)

int lm_file_stream_open(const char *path, int mode, lm_stream **out,
                        lm_error *err) {
  *out = NULL;
  if (mode != LM_STREAM_READ && mode != LM_STREAM_WRITE)
    return lm_err(err, LM_ERR_INVALID, "%s: bad stream mode %d", path, mode);
  int flags = mode == LM_STREAM_READ ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
  int fd;
  do
    fd = open(path, flags | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return lm_err(err, LM_ERR_IO, "%s: cannot %s: %s", path,
                  mode == LM_STREAM_READ ? "open" : "create", strerror(errno));
  *out = lm_stream_alloc(fd, true, false, FILE_BUF, path);
  if (!*out) {
    close(fd);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}
