/* base/error.c — lm_error reporting helpers. */
#include "base/lm_base.h"

#include <stdio.h>
#include <string.h>

static void set_msg(lm_error *err, const char *fmt, va_list ap) {
  int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  if (n < 0)
    err->msg[0] = '\0';
}

int lm_err(lm_error *err, int code, const char *fmt, ...) {
  if (!err)
    return code;
  err->code = code;
  err->line = 0;
  err->column = 0;
  err->sqlstate[0] = '\0';
  err->detail[0] = '\0';
  err->hint[0] = '\0';
  va_list ap;
  va_start(ap, fmt);
  set_msg(err, fmt, ap);
  va_end(ap);
  return code;
}

int lm_err_at(lm_error *err, int code, int line, int column, const char *fmt,
              ...) {
  if (!err)
    return code;
  err->code = code;
  err->line = line;
  err->column = column;
  err->sqlstate[0] = '\0';
  err->detail[0] = '\0';
  err->hint[0] = '\0';
  int n = snprintf(err->msg, sizeof err->msg, "%d:%d: ", line, column);
  if (n < 0)
    n = 0;
  if ((size_t)n >= sizeof err->msg)
    return code;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
  va_end(ap);
  if (m < 0)
    err->msg[n] = '\0';
  return code;
}

void lm_err_prefix(lm_error *err, const char *fmt, ...) {
  if (!err)
    return;
  char prefix[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  size_t cap = sizeof err->msg;
  size_t plen = strlen(prefix);
  size_t olen = strnlen(err->msg, cap - 1);
  size_t head = plen + 2; /* "prefix: " */
  if (head >= cap)
    head = cap - 1;
  size_t keep = LM_MIN(olen, cap - 1 - head);
  memmove(err->msg + head, err->msg, keep);
  err->msg[head + keep] = '\0';
  size_t pcopy = LM_MIN(plen, head);
  memcpy(err->msg, prefix, pcopy);
  if (pcopy < head)
    err->msg[pcopy] = ':';
  if (pcopy + 1 < head)
    err->msg[pcopy + 1] = ' ';
}

void lm_err_clear(lm_error *err) {
  if (!err)
    return;
  err->code = LM_OK;
  err->line = 0;
  err->column = 0;
  err->msg[0] = '\0';
  err->sqlstate[0] = '\0';
  err->detail[0] = '\0';
  err->hint[0] = '\0';
}

int lm_err_state(lm_error *err, const char *state) {
  if (!err)
    return 0;
  snprintf(err->sqlstate, sizeof err->sqlstate, "%s", state ? state : "");
  return err->code;
}

int lm_err_detail(lm_error *err, const char *fmt, ...) {
  if (!err)
    return 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->detail, sizeof err->detail, fmt, ap);
  va_end(ap);
  if (n < 0)
    err->detail[0] = '\0';
  return err->code;
}

int lm_err_hint(lm_error *err, const char *fmt, ...) {
  if (!err)
    return 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->hint, sizeof err->hint, fmt, ap);
  va_end(ap);
  if (n < 0)
    err->hint[0] = '\0';
  return err->code;
}
