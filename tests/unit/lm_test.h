/*
 * tests/unit/lm_test.h — minimal unit-test helpers shared by the C unit
 * tests: CHECK(cond) records a failure (file:line and the condition) and
 * continues; CHECK_EQ_I64 / CHECK_EQ_STR print both sides. A test's main()
 * ends with `return lm_test_done("name");`, which prints a summary and returns
 * nonzero if anything failed.
 */
#ifndef LM_TEST_H
#define LM_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int lm_test_failures;
static int lm_test_checks;

#define CHECK(cond)                                                            \
  do {                                                                         \
    lm_test_checks++;                                                          \
    if (!(cond)) {                                                             \
      lm_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_EQ_I64(a, b)                                                     \
  do {                                                                         \
    int64_t lm_t_a = (int64_t)(a), lm_t_b = (int64_t)(b);                      \
    lm_test_checks++;                                                          \
    if (lm_t_a != lm_t_b) {                                                    \
      lm_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n",  \
              __FILE__, __LINE__, #a, #b, lm_t_a, lm_t_b);                     \
    }                                                                          \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                     \
  do {                                                                         \
    const char *lm_t_a = (a), *lm_t_b = (b);                                   \
    lm_test_checks++;                                                          \
    if (!lm_t_a || !lm_t_b || strcmp(lm_t_a, lm_t_b) != 0) {                   \
      lm_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,  \
              __LINE__, #a, #b, lm_t_a ? lm_t_a : "(null)",                    \
              lm_t_b ? lm_t_b : "(null)");                                     \
    }                                                                          \
  } while (0)

static inline int lm_test_done(const char *name) {
  if (lm_test_failures) {
    fprintf(stderr, "%s: %d of %d checks FAILED\n", name, lm_test_failures,
            lm_test_checks);
    return 1;
  }
  printf("%s: all %d checks passed\n", name, lm_test_checks);
  return 0;
}

/* Deterministic xorshift64 (shifts 13, 7, 17) of *s: advances the state
 * and returns it. The randomized traces' generator (a nonzero seed). */
static inline uint64_t lm_test_xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Deterministic xorshift64* for randomized round-trip tests. */
static inline uint64_t lm_test_rand(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

#endif
