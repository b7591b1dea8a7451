/* base/stack.c — the stack-depth guard of the recursive walkers (parser,
 * binder, evaluator, printers): PostgreSQL's check_stack_depth. A walker
 * calls lm_stack_check at each level; it fails with PostgreSQL's 54001
 * "stack depth limit exceeded" while LM_STACK_RESERVE bytes of the
 * thread's stack are still free, so a deeply nested expression is an
 * error, never a crash. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/lm_base.h"

#include <pthread.h>
#include <stdint.h>

/* Free stack kept for the work done between two checks and for the error
 * path (a sanitizer's frames are several times larger). */
#if defined(__SANITIZE_ADDRESS__)
#define LM_STACK_RESERVE (2u << 20)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LM_STACK_RESERVE (2u << 20)
#endif
#endif
#ifndef LM_STACK_RESERVE
#define LM_STACK_RESERVE (512u << 10)
#endif

/* The lowest address this thread's frames may reach while passing the
 * check (the stack grows down); 0: not known yet; 1: unknown (no check). */
static _Thread_local uintptr_t stack_floor;

static uintptr_t find_floor(void) {
  pthread_attr_t a;
  void *lo = NULL;
  size_t size = 0;
  uintptr_t floor = 1;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    if (pthread_attr_getstack(&a, &lo, &size) == 0 && lo &&
        size > 2 * (size_t)LM_STACK_RESERVE)
      floor = (uintptr_t)lo + LM_STACK_RESERVE;
    else if (lo && size > 64u << 10) /* a small stack: keep a quarter */
      floor = (uintptr_t)lo + size / 4;
    pthread_attr_destroy(&a);
  }
  return floor;
}

bool lm_stack_low(void) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  if (!stack_floor)
    stack_floor = find_floor();
  return stack_floor > 1 && here < stack_floor;
}

int lm_stack_check(lm_error *err) {
  if (!lm_stack_low())
    return 0;
  lm_err(err, LM_ERR_LIMIT, "stack depth limit exceeded");
  return lm_err_state(err, "54001");
}
