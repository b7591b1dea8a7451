/* base/alloc.c — 64-byte aligned allocation and string duplication. */
#include "base/lm_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline size_t round64(size_t n) {
  return (n + (LM_ALIGN - 1)) & ~(size_t)(LM_ALIGN - 1);
}

void *lm_aligned_alloc(size_t size) {
  size_t r = round64(size ? size : 1);
  if (r < size)
    return NULL; /* overflow */
  return aligned_alloc(LM_ALIGN, r);
}

void *lm_aligned_realloc(void *p, size_t old_size, size_t new_size) {
  if (!p)
    return lm_aligned_alloc(new_size);
  size_t ro = round64(old_size ? old_size : 1);
  size_t rn = round64(new_size ? new_size : 1);
  if (rn < new_size)
    return NULL;
  if (ro == rn)
    return p;
  void *q = aligned_alloc(LM_ALIGN, rn);
  if (!q)
    return NULL;
  memcpy(q, p, LM_MIN(old_size, new_size));
  free(p);
  return q;
}

void lm_aligned_free(void *p) {
  free(p);
}

char *lm_strdup(const char *s) {
  if (!s)
    return NULL;
  return lm_strndup(s, strlen(s));
}

char *lm_strndup(const char *s, size_t n) {
  if (!s)
    return NULL;
  size_t len = strnlen(s, n);
  char *r = malloc(len + 1);
  if (!r)
    return NULL;
  memcpy(r, s, len);
  r[len] = '\0';
  return r;
}

char *lm_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return NULL;
  char *r = malloc((size_t)n + 1);
  if (!r)
    return NULL;
  va_start(ap, fmt);
  vsnprintf(r, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return r;
}
