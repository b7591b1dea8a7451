/* base/alloc.c — 64-byte aligned allocation and string duplication. */
#include "base/lm_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline size_t round64(size_t n) {
  return (n + (LM_ALIGN - 1)) & ~(size_t)(LM_ALIGN - 1);
}

/* Per-thread cache of small aligned blocks. glibc's aligned_alloc costs
 * ~600 instructions (it carves the aligned chunk out of a bigger one and
 * frees the rest), which dominated pushing one-row batches (bench/
 * bench_latency.c). Freed blocks of up to CACHE_MAX bytes are kept in one
 * LIFO list per multiple of 64 bytes, by their usable size (a block in
 * class k has at least (k + 1) * 64 usable bytes and serves requests of
 * (k + 1) * 64 bytes), at most CACHE_DEPTH per class and about CACHE_BYTES
 * per thread; a thread's blocks are freed when it exits. Off under sanitizers,
 * so that use-after-free stays visible. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LM_ALLOC_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
    __has_feature(thread_sanitizer)
#define LM_ALLOC_CACHE 0
#endif
#endif
#ifndef LM_ALLOC_CACHE
#define LM_ALLOC_CACHE 1
#endif

#if LM_ALLOC_CACHE
#include <malloc.h>
#include <pthread.h>

enum {
  CACHE_MAX = 4096,
  CACHE_CLASSES = CACHE_MAX / LM_ALIGN,
  CACHE_DEPTH = 32,
  CACHE_BYTES = 256 * 1024
};

typedef struct block_cache {
  bool registered; /* the thread-exit destructor knows this cache */
  size_t bytes;    /* usable bytes held */
  int n[CACHE_CLASSES];
  void *blk[CACHE_CLASSES][CACHE_DEPTH];
} block_cache;

static _Thread_local block_cache tl_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_key_ok;

/* Thread exit: frees the blocks the exiting thread kept. */
static void cache_flush(void *arg) {
  block_cache *c = arg;
  for (int k = 0; k < CACHE_CLASSES; k++) {
    while (c->n[k] > 0)
      free(c->blk[k][--c->n[k]]);
  }
  c->bytes = 0;
  c->registered = false; /* blocks freed later register again */
}

static void cache_key_make(void) {
  cache_key_ok = pthread_key_create(&cache_key, cache_flush) == 0;
}

/* Keeps p (from aligned_alloc) for reuse; false when it is not kept. */
static bool cache_put(void *p) {
  if ((uintptr_t)p & (LM_ALIGN - 1))
    return false;
  size_t u = malloc_usable_size(p);
  if (u < LM_ALIGN)
    return false;
  if (u > CACHE_MAX)
    u = CACHE_MAX;
  int k = (int)(u / LM_ALIGN) - 1;
  block_cache *c = &tl_cache;
  if (c->n[k] == CACHE_DEPTH || c->bytes + u > CACHE_BYTES)
    return false;
  if (!c->registered) {
    pthread_once(&cache_once, cache_key_make);
    if (!cache_key_ok || pthread_setspecific(cache_key, c) != 0)
      return false;
    c->registered = true;
  }
  c->blk[k][c->n[k]++] = p;
  c->bytes += (size_t)(k + 1) * LM_ALIGN;
  return true;
}
#endif

void *lm_aligned_alloc(size_t size) {
  size_t r = round64(size ? size : 1);
  if (r < size)
    return NULL; /* overflow */
#if LM_ALLOC_CACHE
  if (r <= CACHE_MAX) {
    block_cache *c = &tl_cache;
    int k = (int)(r / LM_ALIGN) - 1;
    if (c->n[k] > 0) {
      c->bytes -= r;
      return c->blk[k][--c->n[k]];
    }
  }
#endif
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
  void *q = lm_aligned_alloc(rn);
  if (!q)
    return NULL;
  memcpy(q, p, LM_MIN(old_size, new_size));
  lm_aligned_free(p);
  return q;
}

void lm_aligned_free(void *p) {
  if (!p)
    return;
#if LM_ALLOC_CACHE
  if (cache_put(p))
    return;
#endif
  free(p);
}

void *lm_aligned_calloc(size_t size) {
  void *p = lm_aligned_alloc(size);
  if (p)
    memset(p, 0, size);
  return p;
}

void *lm_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    return NULL;
  size_t bytes = n * size;
  void *p = malloc(bytes ? bytes : 1);
  if (p)
    memset(p, 0, bytes);
  return p;
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
