/* base/arena.c — bump allocator for short-lived scratch memory. */
#include "base/lm_base.h"

#include <stdlib.h>
#include <string.h>

#define LM_ARENA_DEFAULT_BLOCK (64 * 1024)

struct lm_arena_block {
  lm_arena_block *next;
  size_t size; /* usable bytes in mem[] */
  size_t used;
  _Alignas(16) unsigned char mem[];
};

void lm_arena_init(lm_arena *a, size_t block_size) {
  a->head = NULL;
  a->block_size = block_size ? block_size : LM_ARENA_DEFAULT_BLOCK;
}

static lm_arena_block *new_block(size_t size) {
  if (size > SIZE_MAX - sizeof(lm_arena_block))
    return NULL;
  lm_arena_block *b = malloc(sizeof(lm_arena_block) + size);
  if (!b)
    return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  return b;
}

void *lm_arena_alloc(lm_arena *a, size_t size) {
  if (size == 0)
    size = 1;
  if (size > SIZE_MAX - 15)
    return NULL;
  size = (size + 15) & ~(size_t)15;
  if (!a->block_size)
    a->block_size = LM_ARENA_DEFAULT_BLOCK;
  lm_arena_block *h = a->head;
  if (!h || h->size - h->used < size) {
    if (size > a->block_size / 4) {
      /* Large request: its own block, linked behind the current head so the
       * head's free space stays usable. */
      lm_arena_block *b = new_block(size);
      if (!b)
        return NULL;
      b->used = size;
      if (h) {
        b->next = h->next;
        h->next = b;
      } else {
        a->head = b;
      }
      memset(b->mem, 0, size);
      return b->mem;
    }
    lm_arena_block *b = new_block(a->block_size);
    if (!b)
      return NULL;
    b->next = h;
    a->head = h = b;
  }
  void *p = h->mem + h->used;
  h->used += size;
  memset(p, 0, size);
  return p;
}

char *lm_arena_strndup(lm_arena *a, const char *s, size_t n) {
  char *r = lm_arena_alloc(a, n + 1);
  if (!r)
    return NULL;
  if (n)
    memcpy(r, s, n);
  r[n] = '\0';
  return r;
}

void lm_arena_reset(lm_arena *a) {
  /* Keep one standard-size block for reuse; free the rest. */
  lm_arena_block *keep = NULL;
  lm_arena_block *b = a->head;
  while (b) {
    lm_arena_block *next = b->next;
    if (!keep && b->size == a->block_size) {
      keep = b;
      keep->used = 0;
      keep->next = NULL;
    } else {
      free(b);
    }
    b = next;
  }
  a->head = keep;
}

void lm_arena_free(lm_arena *a) {
  lm_arena_block *b = a->head;
  while (b) {
    lm_arena_block *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}
