/*
 * transport/stdio.c — stdin and stdout as buffered streams over
 * descriptors 0 and 1 (borrowed: closing the stream leaves them open).
 */
#include <unistd.h>

#include "transport/transport_internal.h"

#define STDIO_BUF (64 * 1024)

int lm_stdio_stream_open(int mode, lm_stream **out, lm_error *err) {
  *out = NULL;
  if (mode != LM_STREAM_READ && mode != LM_STREAM_WRITE)
    return lm_err(err, LM_ERR_INVALID, "stdio: bad stream mode %d", mode);
  bool rd = mode == LM_STREAM_READ;
  *out = lm_stream_alloc(rd ? STDIN_FILENO : STDOUT_FILENO, false, false,
                         STDIO_BUF, rd ? "<stdin>" : "<stdout>");
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}
