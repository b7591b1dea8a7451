/* base/buf.c — growable byte buffers and whole-file reads. */
#include "base/lm_base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lm_buf_init(lm_buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

int lm_buf_reserve(lm_buf *b, size_t extra) {
  if (extra > SIZE_MAX - b->len - 1)
    return LM_ERR_NOMEM;
  size_t need = b->len + extra + 1; /* + NUL */
  if (need <= b->cap)
    return LM_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p)
    return LM_ERR_NOMEM;
  b->data = p;
  b->cap = cap;
  return LM_OK;
}

int lm_buf_append(lm_buf *b, const void *p, size_t n) {
  if (b->cap - b->len < n + 1 || !b->data) {
    int rc = lm_buf_reserve(b, n);
    if (rc)
      return rc;
  }
  if (n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return LM_OK;
}

int lm_buf_put_utf8(lm_buf *b, uint32_t v) {
  char u[4];
  size_t n;
  if (v < 0x80) {
    u[0] = (char)v;
    n = 1;
  } else if (v < 0x800) {
    u[0] = (char)(0xC0 | (v >> 6));
    u[1] = (char)(0x80 | (v & 0x3F));
    n = 2;
  } else if (v < 0x10000) {
    u[0] = (char)(0xE0 | (v >> 12));
    u[1] = (char)(0x80 | ((v >> 6) & 0x3F));
    u[2] = (char)(0x80 | (v & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (v >> 18));
    u[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    u[3] = (char)(0x80 | (v & 0x3F));
    n = 4;
  }
  return lm_buf_append(b, u, n);
}

int lm_buf_putc(lm_buf *b, char c) {
  if (b->cap - b->len < 2 || !b->data) {
    int rc = lm_buf_reserve(b, 1);
    if (rc)
      return rc;
  }
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
  return LM_OK;
}

int lm_buf_puts(lm_buf *b, const char *s) {
  return lm_buf_append(b, s, strlen(s));
}

int lm_buf_printf(lm_buf *b, const char *fmt, ...) {
  va_list ap;
  size_t avail = b->data ? b->cap - b->len : 0;
  va_start(ap, fmt);
  int n = vsnprintf(b->data ? b->data + b->len : NULL, avail, fmt, ap);
  va_end(ap);
  if (n < 0) {
    if (b->data)
      b->data[b->len] = '\0';
    return LM_ERR_GENERIC;
  }
  if ((size_t)n >= avail) {
    int rc = lm_buf_reserve(b, (size_t)n);
    if (rc) {
      if (b->data)
        b->data[b->len] = '\0';
      return rc;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
  return LM_OK;
}

void lm_buf_reset(lm_buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

void lm_buf_free(lm_buf *b) {
  free(b->data);
  lm_buf_init(b);
}

int lm_read_file(const char *path, char **out, size_t *out_len, lm_error *err) {
  *out = NULL;
  if (out_len)
    *out_len = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return lm_err(err, LM_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  lm_buf b;
  lm_buf_init(&b);
  for (;;) {
    if (lm_buf_reserve(&b, 65536)) {
      fclose(f);
      lm_buf_free(&b);
      return lm_err(err, LM_ERR_NOMEM, "out of memory reading %s", path);
    }
    size_t room = b.cap - b.len - 1;
    size_t n = fread(b.data + b.len, 1, room, f);
    b.len += n;
    if (n < room) {
      if (ferror(f)) {
        int e = errno;
        fclose(f);
        lm_buf_free(&b);
        return lm_err(err, LM_ERR_IO, "cannot read %s: %s", path, strerror(e));
      }
      break;
    }
  }
  fclose(f);
  b.data[b.len] = '\0';
  *out = b.data;
  if (out_len)
    *out_len = b.len;
  return LM_OK;
}
