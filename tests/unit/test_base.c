/* Unit tests for base/: errors, aligned allocation, arena, lm_buf, hashing,
 * strings, clock, checked arithmetic and floor division. */
#include "base/lm_base.h"
#include "lm_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void test_errors(void) {
  lm_error e;
  lm_err_clear(&e);
  CHECK_EQ_I64(e.code, LM_OK);
  CHECK_EQ_STR(e.msg, "");
  CHECK_EQ_I64(lm_err(&e, LM_ERR_PARSE, "bad %s %d", "token", 7), LM_ERR_PARSE);
  CHECK_EQ_I64(e.code, LM_ERR_PARSE);
  CHECK_EQ_STR(e.msg, "bad token 7");
  CHECK_EQ_I64(e.line, 0);
  CHECK_EQ_I64(lm_err(NULL, LM_ERR_IO, "ignored"), LM_ERR_IO);

  lm_err_at(&e, LM_ERR_BIND, 3, 14, "unknown column %s", "x");
  CHECK_EQ_I64(e.line, 3);
  CHECK_EQ_I64(e.column, 14);
  CHECK_EQ_STR(e.msg, "3:14: unknown column x");
  lm_err_prefix(&e, "in view %s", "v1");
  CHECK_EQ_STR(e.msg, "in view v1: 3:14: unknown column x");
  CHECK_EQ_I64(e.code, LM_ERR_BIND);
  CHECK_EQ_I64(e.line, 3);
  lm_err_prefix(NULL, "nothing");

  /* overlong messages are truncated, stay NUL-terminated */
  char big[3000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  lm_err(&e, LM_ERR_GENERIC, "%s", big);
  CHECK_EQ_I64(strlen(e.msg), sizeof e.msg - 1);
  lm_err_prefix(&e, "p");
  CHECK_EQ_I64(strlen(e.msg), sizeof e.msg - 1);
  CHECK(strncmp(e.msg, "p: aaa", 6) == 0);
  lm_err_prefix(&e, "%s", big); /* prefix longer than the whole message */
  CHECK_EQ_I64(strlen(e.msg), sizeof e.msg - 1);
}

static void test_alloc(void) {
  for (size_t sz = 0; sz < 300; sz += 7) {
    uint8_t *p = lm_aligned_alloc(sz);
    CHECK(p != NULL);
    CHECK(((uintptr_t)p % 64) == 0);
    memset(p, 0xab, (sz + 63) / 64 * 64); /* padding is usable */
    p = lm_aligned_realloc(p, sz, sz * 3 + 100);
    CHECK(((uintptr_t)p % 64) == 0);
    for (size_t i = 0; i < sz; i++)
      if (p[i] != 0xab) {
        CHECK(!"realloc lost data");
        break;
      }
    lm_aligned_free(p);
  }
  lm_aligned_free(NULL);
  char *s = lm_strdup("hello");
  CHECK_EQ_STR(s, "hello");
  free(s);
  s = lm_strndup("hello world", 5);
  CHECK_EQ_STR(s, "hello");
  free(s);
  s = lm_strndup("hi", 10);
  CHECK_EQ_STR(s, "hi");
  free(s);
  s = lm_asprintf("%d-%s-%.2f", 42, "x", 1.5);
  CHECK_EQ_STR(s, "42-x-1.50");
  free(s);
}

static void test_arena(void) {
  lm_arena a;
  lm_arena_init(&a, 256);
  for (int round = 0; round < 3; round++) {
    uint8_t *prev = NULL;
    for (int i = 1; i < 200; i++) {
      uint8_t *p = lm_arena_alloc(&a, (size_t)i);
      CHECK(p != NULL);
      CHECK(((uintptr_t)p % 16) == 0);
      for (int k = 0; k < i; k++)
        if (p[k] != 0) {
          CHECK(!"arena memory not zeroed");
          break;
        }
      memset(p, 0x5a, (size_t)i);
      CHECK(p != prev);
      prev = p;
    }
    /* large allocation bigger than a block */
    uint8_t *big = lm_arena_alloc(&a, 10000);
    CHECK(big != NULL);
    memset(big, 1, 10000);
    char *s = lm_arena_strndup(&a, "abcdef", 3);
    CHECK_EQ_STR(s, "abc");
    s = lm_arena_strndup(&a, "", 0);
    CHECK_EQ_STR(s, "");
    lm_arena_reset(&a);
  }
  lm_arena_free(&a);
  lm_arena_free(&a); /* idempotent */
  lm_arena_init(&a, 0);
  CHECK(lm_arena_alloc(&a, 0) != NULL);
  lm_arena_free(&a);
}

static void test_buf(void) {
  lm_buf b;
  lm_buf_init(&b);
  CHECK_EQ_I64(b.len, 0);
  CHECK_EQ_I64(lm_buf_append(&b, "", 0), 0);
  CHECK_EQ_STR(b.data, "");
  lm_buf_putc(&b, 'x');
  lm_buf_puts(&b, "yz");
  CHECK_EQ_STR(b.data, "xyz");
  lm_buf_printf(&b, "[%d]", 12345);
  CHECK_EQ_STR(b.data, "xyz[12345]");
  /* printf that needs to grow */
  char big[500];
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  lm_buf_printf(&b, "%s!", big);
  CHECK_EQ_I64(b.len, 10 + 499 + 1);
  CHECK(b.data[b.len] == '\0' && b.data[b.len - 1] == '!');
  lm_buf_reset(&b);
  CHECK_EQ_I64(b.len, 0);
  CHECK_EQ_STR(b.data, "");
  for (int i = 0; i < 10000; i++)
    lm_buf_putc(&b, (char)('a' + i % 26));
  CHECK_EQ_I64(b.len, 10000);
  CHECK(b.data[9999] == 'a' + 9999 % 26 && b.data[10000] == '\0');
  lm_buf_free(&b);
  CHECK(b.data == NULL);

  /* lm_read_file */
  char path[] = "/tmp/lm_test_base_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  const char *content = "line1\nline2\n";
  CHECK(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
  close(fd);
  char *data = NULL;
  size_t len = 0;
  lm_error e;
  CHECK_EQ_I64(lm_read_file(path, &data, &len, &e), 0);
  CHECK_EQ_I64(len, strlen(content));
  CHECK_EQ_STR(data, content);
  free(data);
  unlink(path);
  CHECK_EQ_I64(lm_read_file(path, &data, &len, &e), LM_ERR_IO);
  CHECK(data == NULL);
  CHECK(strstr(e.msg, path) != NULL);
}

static void test_hash(void) {
  const char *s = "the quick brown fox jumps over the lazy dog, repeatedly";
  size_t n = strlen(s);
  /* deterministic, seed-dependent, length-dependent, alignment-independent */
  for (size_t len = 0; len <= n; len++) {
    uint64_t h = lm_hash_bytes(s, len, 1);
    CHECK(h == lm_hash_bytes(s, len, 1));
    char copy[128];
    memcpy(copy + 3, s, len);
    CHECK(h == lm_hash_bytes(copy + 3, len, 1));
    CHECK(h != lm_hash_bytes(s, len, 2));
    if (len)
      CHECK(h != lm_hash_bytes(s, len - 1, 1));
  }
  /* no collisions among small distinct keys; bit flips change the hash */
  enum { N = 4096 };
  static uint64_t hs[N];
  for (int i = 0; i < N; i++) {
    char key[16];
    int kl = snprintf(key, sizeof key, "k%d", i);
    hs[i] = lm_hash_bytes(key, (size_t)kl, 0);
  }
  int coll = 0;
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      coll += hs[i] == hs[j];
  CHECK_EQ_I64(coll, 0);
  /* low bits spread roughly uniformly over 64 buckets */
  int buckets[64] = {0};
  for (int i = 0; i < N; i++)
    buckets[hs[i] & 63]++;
  for (int i = 0; i < 64; i++)
    CHECK(buckets[i] > 20 && buckets[i] < 120);
  CHECK(lm_hash_u64(1) != lm_hash_u64(2));
  CHECK(lm_hash_combine(1, 2) != lm_hash_combine(2, 1));
}

static void test_strings(void) {
  CHECK(lm_strcasecmp("Hello", "hELLO") == 0);
  CHECK(lm_strcasecmp("abc", "abd") < 0);
  CHECK(lm_strcasecmp("abd", "ABC") > 0);
  CHECK(lm_strcasecmp("ab", "abc") < 0);
  CHECK(lm_strcasecmp("", "") == 0);
  CHECK(lm_strncaseeq("SELECTx", 6, "select"));
  CHECK(!lm_strncaseeq("SELECT", 6, "selects"));
  CHECK(!lm_strncaseeq("SELEC", 5, "select"));
  CHECK(lm_strncaseeq("", 0, ""));
  CHECK(!lm_strncaseeq("a", 1, ""));
}

static void test_clock_and_math(void) {
  int64_t a = lm_now_us(), b = lm_now_us();
  CHECK(a > 0 && b >= a);
  int64_t n1 = lm_now_ns(), n2 = lm_now_ns();
  CHECK(n2 >= n1);
  volatile uint64_t spin = 0;
  int64_t c0 = lm_cpu_time_us();
  for (int i = 0; i < 2000000; i++)
    spin += (uint64_t)i;
  CHECK(lm_cpu_time_us() >= c0 && spin > 0);

  int64_t r;
  CHECK(!lm_add_overflow_i64(1, 2, &r) && r == 3);
  CHECK(lm_add_overflow_i64(INT64_MAX, 1, &r));
  CHECK(lm_sub_overflow_i64(INT64_MIN, 1, &r));
  CHECK(lm_mul_overflow_i64(INT64_MAX / 2, 3, &r));
  CHECK_EQ_I64(lm_floor_div(7, 2), 3);
  CHECK_EQ_I64(lm_floor_div(-7, 2), -4);
  CHECK_EQ_I64(lm_floor_div(-8, 2), -4);
  CHECK_EQ_I64(lm_floor_div(0, 5), 0);
  CHECK_EQ_I64(lm_floor_mod(-7, 2), 1);
  CHECK_EQ_I64(lm_floor_mod(-1, 1000), 999);
  CHECK_EQ_I64(lm_floor_mod(-1000, 1000), 0);
}

/* Thread body of test_alloc_recycle: blocks made and dropped in a thread
 * that then exits (its recycled blocks are freed with it). */
static void *alloc_thread(void *arg) {
  (void)arg;
  void *p[40];
  for (int i = 0; i < 40; i++)
    p[i] = lm_aligned_alloc((size_t)(i % 5 + 1) * 64);
  for (int i = 0; i < 40; i++)
    lm_aligned_free(p[i]);
  return NULL;
}

/* Small aligned blocks are recycled per thread (alloc.c): whatever the
 * path, every block is 64-byte aligned, has its requested size usable, and
 * lm_aligned_calloc zeroes a recycled block; blocks from malloc or calloc
 * may be given to lm_aligned_free. */
static void test_alloc_recycle(void) {
  enum { N = 200 };
  uint8_t *p[N];
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      size_t sz = (size_t)(i * 37 % 5000) + 1;
      p[i] = round == 1 ? lm_aligned_calloc(sz) : lm_aligned_alloc(sz);
      CHECK(p[i] != NULL && (uintptr_t)p[i] % 64 == 0);
      if (round == 1)
        for (size_t k = 0; k < sz; k++)
          if (p[i][k]) {
            CHECK(!"lm_aligned_calloc: not zeroed");
            break;
          }
      memset(p[i], 0x5c, (sz + 63) / 64 * 64);
    }
    for (int i = 0; i < N; i++)
      lm_aligned_free(p[i]);
  }
  /* realloc across classes keeps the data */
  uint8_t *q = lm_aligned_alloc(64);
  memset(q, 7, 64);
  q = lm_aligned_realloc(q, 64, 1000);
  CHECK(q[63] == 7 && (uintptr_t)q % 64 == 0);
  lm_aligned_free(q);
  /* foreign blocks */
  lm_aligned_free(malloc(100));
  lm_aligned_free(calloc(3, 50));
  lm_aligned_free(lm_calloc(4, 30));
  CHECK(lm_calloc(SIZE_MAX / 2, 4) == NULL); /* n * size overflows */
  pthread_t t;
  CHECK(pthread_create(&t, NULL, alloc_thread, NULL) == 0);
  pthread_join(t, NULL);
}

int main(void) {
  test_errors();
  test_alloc();
  test_alloc_recycle();
  test_arena();
  test_buf();
  test_hash();
  test_strings();
  test_clock_and_math();
  return lm_test_done("test_base");
}
