/*
 * base/ — the bottom layer: errors, allocation, arenas, growable byte
 * buffers, hashing, small string helpers and the clock. Everything above
 * includes this header; it includes nothing of ours.
 *
 * Conventions used across Laminar:
 *  - functions return int status: 0 = ok, nonzero (LM_ERR_*) = failure;
 *  - a failing function fills the caller's optional `lm_error *` (may be NULL);
 *  - no abort()/exit() in the library; allocation failure is LM_ERR_NOMEM.
 */
#ifndef LM_BASE_H
#define LM_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- errors */

enum {
  LM_OK = 0,
  LM_ERR_GENERIC = 1,
  LM_ERR_NOMEM = 2,
  LM_ERR_IO = 3,
  LM_ERR_PARSE = 4,   /* SQL syntax, CSV/JSON/TOML text that does not parse */
  LM_ERR_BIND = 5,    /* unknown name, type mismatch, unsupported construct */
  LM_ERR_EXEC = 6,    /* runtime: overflow, division by zero, cast failure */
  LM_ERR_INVALID = 7, /* bad argument from the caller of an API */
  LM_ERR_NOTFOUND = 8,
  LM_ERR_EXISTS = 9,
  LM_ERR_LIMIT = 10, /* an input breaks a configured limit */
};

/* An error report. `line`/`column` are 1-based positions in the SQL text or
 * input file when known, 0 otherwise. `msg` is always NUL-terminated and
 * already contains the position prefix when one applies. */
typedef struct lm_error {
  int code;
  int line;
  int column;
  char msg[1024];
  /* PostgreSQL's SQLSTATE for the error when one was recorded (e.g. "22012"
   * division by zero, "22003" numeric value out of range, "22P02" invalid
   * text representation, "42883" undefined function, "42703" undefined
   * column), "" otherwise. Cleared by lm_err / lm_err_at. */
  char sqlstate[6];
  /* PostgreSQL's DETAIL text when there is one (`Key (a)=(1) already
   * exists.`), without the "DETAIL:  " label; "" otherwise. Cleared by
   * lm_err / lm_err_at, set by lm_err_detail. */
  char detail[512];
  /* PostgreSQL's HINT text when there is one (`Use DROP TABLE to remove a
   * table.`; a syntax error's "expected FROM, found 'FORM'"), without the
   * "HINT:  " label; "" otherwise. Cleared by lm_err / lm_err_at, set by
   * lm_err_hint. */
  char hint[256];
} lm_error;

/* Sets *err (if non-NULL) to code and a printf-formatted message; returns
 * code so callers can `return lm_err(err, LM_ERR_PARSE, "...")`. */
int lm_err(lm_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like lm_err but records line:column and prefixes "line:column: " to msg. */
int lm_err_at(lm_error *err, int code, int line, int column, const char *fmt,
              ...) __attribute__((format(printf, 5, 6)));
/* Prefixes "prefix: " to an existing message (keeps code and position). */
void lm_err_prefix(lm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lm_err_clear(lm_error *err);
/* Records the 5-character SQLSTATE `state` on an error already set (after
 * lm_err / lm_err_at); returns err->code (0 when err is NULL). */
int lm_err_state(lm_error *err, const char *state);
/* Records a printf-formatted DETAIL on an error already set; returns
 * err->code (0 when err is NULL). */
int lm_err_detail(lm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records a printf-formatted HINT on an error already set; returns
 * err->code (0 when err is NULL). */
int lm_err_hint(lm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ allocation */

/* Arrow buffers are 64-byte aligned and padded to a multiple of 64 bytes. */
#define LM_ALIGN 64
/* Allocates `size` bytes (rounded up to 64) aligned to 64 bytes; NULL on
 * failure. Free with lm_aligned_free. Memory is NOT zeroed. */
void *lm_aligned_alloc(size_t size);
void *lm_aligned_realloc(void *p, size_t old_size, size_t new_size);
void lm_aligned_free(void *p);
/* calloc(n, size) through malloc + memset: zeroed, NULL on failure or when
 * n * size overflows; free with free(). glibc 2.36's calloc never takes
 * blocks from malloc's per-thread cache, so a hot path that callocs and
 * frees small structs pays the slow path twice (~300 instructions a pair
 * instead of ~60); use this one on per-batch paths. */
void *lm_calloc(size_t n, size_t size);
/* lm_aligned_alloc(size), zeroed. For the small structs made and dropped
 * per batch (arrays, buffers, batches, C Data bookkeeping): blocks of up to
 * 4 KB freed with lm_aligned_free are recycled per thread (alloc.c), which
 * malloc's own per-thread cache (7 blocks a size) cannot do for bursts.
 * free() works on these blocks too (the block is just not recycled). */
void *lm_aligned_calloc(size_t size);
/* strdup/strndup that return NULL on failure. Caller frees with free(). */
char *lm_strdup(const char *s);
char *lm_strndup(const char *s, size_t n);
/* printf into a fresh malloc'd string; NULL on failure. */
char *lm_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------- arena */

/* Bump allocator for short-lived scratch (per statement, per batch).
 * lm_arena_reset frees everything at once; nothing is freed individually. */
typedef struct lm_arena_block lm_arena_block;
typedef struct lm_arena {
  lm_arena_block *head;
  size_t block_size;
} lm_arena;

void lm_arena_init(lm_arena *a, size_t block_size);
/* Returns 16-byte aligned, zeroed memory owned by the arena; NULL on OOM. */
void *lm_arena_alloc(lm_arena *a, size_t size);
char *lm_arena_strndup(lm_arena *a, const char *s, size_t n);
void lm_arena_reset(lm_arena *a);
void lm_arena_free(lm_arena *a);

/* ------------------------------------------------------ growable buffers */

/* A growable byte buffer (malloc'd). data is NUL-terminated after every
 * append so it can be used as a C string. */
typedef struct lm_buf {
  char *data;
  size_t len;
  size_t cap;
} lm_buf;

void lm_buf_init(lm_buf *b);
int lm_buf_reserve(lm_buf *b, size_t extra); /* LM_ERR_NOMEM on failure */
int lm_buf_append(lm_buf *b, const void *p, size_t n);
int lm_buf_putc(lm_buf *b, char c);
int lm_buf_puts(lm_buf *b, const char *s);
/* Appends code point v (< 0x110000) as 1-4 bytes of UTF-8; LM_ERR_NOMEM. */
int lm_buf_put_utf8(lm_buf *b, uint32_t v);
int lm_buf_printf(lm_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lm_buf_reset(lm_buf *b); /* len = 0, keeps capacity */
void lm_buf_free(lm_buf *b);

/* Reads a whole file into a malloc'd, NUL-terminated buffer. */
int lm_read_file(const char *path, char **out, size_t *out_len, lm_error *err);

/* --------------------------------------------------------------- hashing */

uint64_t lm_hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t lm_hash_u64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
static inline uint64_t lm_hash_combine(uint64_t h, uint64_t v) {
  return lm_hash_u64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* --------------------------------------------------------------- strings */

/* ASCII case-insensitive compare of NUL-terminated / length-bounded text. */
int lm_strcasecmp(const char *a, const char *b);
bool lm_strncaseeq(const char *a, size_t alen, const char *b);
/* PostgreSQL's boolean input (boolin, bool.c parse_bool_with_len): p[0..len)
 * with surrounding spaces, any case, a unique prefix of true / false / yes
 * / no, on / off (2+ letters), 1 / 0. Returns 1, 0, or -1 when invalid.
 * Shared by casts and the CSV / JSON readers. */
int lm_pg_bool(const char *p, size_t len);

/* Whether a declared name `decl` matches the name `ref` of a reference at
 * one matching pass (docs/sql.md "Names"): pass 0 byte-exact, pass 1 ASCII
 * case-insensitive. A quoted reference only gets pass 0; an unquoted one
 * (already folded to lower case) gets pass 1 only when no name passes 0.
 * Either pointer may be NULL (no match). */
bool lm_ident_eq(const char *decl, const char *ref, int pass);

/* The value 0..15 of one ASCII hexadecimal digit c ('0'-'9', 'a'-'f',
 * 'A'-'F'), or -1 for any other character (including a negative char). */
static inline int lm_hex_digit(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* ----------------------------------------------------------------- clock */

/* Monotonic clock in µs and nanoseconds; process CPU time in µs. */
int64_t lm_now_us(void);
int64_t lm_now_ns(void);
int64_t lm_cpu_time_us(void);

/* ------------------------------------------------------------ stack depth */

/* Whether the calling thread's stack is nearly used up (less than a
 * reserve of 512 KB, 2 MB under ASan, left; base/stack.c). */
bool lm_stack_low(void);
/* PostgreSQL's check_stack_depth, for recursive walkers: 0 while enough
 * stack is left, else LM_ERR_LIMIT with SQLSTATE 54001 "stack depth limit
 * exceeded" in *err (may be NULL). */
int lm_stack_check(lm_error *err);

/* ------------------------------------------------------ checked arithmetic */

static inline bool lm_add_overflow_i64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline bool lm_sub_overflow_i64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_sub_overflow(a, b, r);
}
static inline bool lm_mul_overflow_i64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
/* Floor division and modulo (toward -inf), b > 0. Used for window
 * assignment so that timestamps before 1970 land in the right bucket. */
static inline int64_t lm_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}
static inline int64_t lm_floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b; /* no a - q * b: that product overflows near INT64_MIN */
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

/* Window alignment near the ends of the int64 range, in 128-bit
 * arithmetic: x floored to a multiple of unit (> 0) after removing the
 * offset, i.e. floor((x - off) / unit) * unit + off; and a bound clamped
 * into int64 (a window starting before INT64_MIN µs starts at INT64_MIN,
 * as an end after INT64_MAX is INT64_MAX). */
static inline __int128 lm_floor_align128(__int128 x, int64_t unit,
                                         int64_t off) {
  __int128 y = x - off, q = y / unit;
  if (y % unit != 0 && y < 0)
    q--;
  return q * unit + off;
}
static inline int64_t lm_clamp_i64(__int128 v) {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

#define LM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LM_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
