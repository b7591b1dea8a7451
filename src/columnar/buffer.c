/* columnar/buffer.c — refcounted memory buffers (own or foreign). */
#include "columnar/lm_columnar.h"

#include <stdlib.h>
#include <string.h>

lm_buffer *lm_buffer_new(size_t capacity) {
  lm_buffer *b = lm_aligned_alloc(sizeof *b); /* recycled per thread */
  if (!b)
    return NULL;
  size_t cap = (capacity + (LM_ALIGN - 1)) & ~(size_t)(LM_ALIGN - 1);
  if (cap == 0)
    cap = LM_ALIGN;
  b->data = lm_aligned_alloc(cap);
  if (!b->data) {
    free(b);
    return NULL;
  }
  memset(b->data, 0, cap);
  b->refcnt = 1;
  b->size = capacity;
  b->capacity = cap;
  b->release = NULL;
  b->owner = NULL;
  return b;
}

static void release_nothing(lm_buffer *b) {
  (void)b;
}

lm_buffer *lm_buffer_wrap(const void *data, size_t size,
                          void (*release)(lm_buffer *), void *owner) {
  lm_buffer *b = lm_aligned_alloc(sizeof *b);
  if (!b)
    return NULL;
  if (!release)
    release = release_nothing; /* borrowed memory */
  b->refcnt = 1;
  b->data = (uint8_t *)(uintptr_t)data;
  b->size = size;
  b->capacity = size;
  b->release = release;
  b->owner = owner;
  return b;
}

lm_buffer *lm_buffer_retain(lm_buffer *b) {
  if (b)
    __atomic_fetch_add(&b->refcnt, 1, __ATOMIC_RELAXED);
  return b;
}

void lm_buffer_release(lm_buffer *b) {
  if (!b || __atomic_sub_fetch(&b->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  if (b->release)
    b->release(b);
  else
    lm_aligned_free(b->data);
  lm_aligned_free(b);
}
