/* base/hash.c — fast 64-bit byte hashing (wyhash-style multiply-mix). */
#include "base/lm_base.h"

#include <string.h>

static const uint64_t K0 = 0xa0761d6478bd642fULL;
static const uint64_t K1 = 0xe7037ed1a0b428dbULL;
static const uint64_t K2 = 0x8ebc6af09c88c6e3ULL;

static inline uint64_t mix(uint64_t a, uint64_t b) {
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}
static inline uint64_t rd8(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline uint64_t rd4(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

uint64_t lm_hash_bytes(const void *data, size_t n, uint64_t seed) {
  const uint8_t *p = data;
  uint64_t a, b;
  seed ^= mix(seed ^ K0, K1);
  if (n <= 16) {
    if (n >= 4) {
      a = (rd4(p) << 32) | rd4(p + ((n >> 3) << 2));
      b = (rd4(p + n - 4) << 32) | rd4(p + n - 4 - ((n >> 3) << 2));
    } else if (n > 0) {
      a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t i = n;
    if (i > 48) {
      uint64_t s1 = seed, s2 = seed;
      do {
        seed = mix(rd8(p) ^ K1, rd8(p + 8) ^ seed);
        s1 = mix(rd8(p + 16) ^ K2, rd8(p + 24) ^ s1);
        s2 = mix(rd8(p + 32) ^ K0, rd8(p + 40) ^ s2);
        p += 48;
        i -= 48;
      } while (i > 48);
      seed ^= s1 ^ s2;
    }
    while (i > 16) {
      seed = mix(rd8(p) ^ K1, rd8(p + 8) ^ seed);
      i -= 16;
      p += 16;
    }
    a = rd8(p + i - 16);
    b = rd8(p + i - 8);
  }
  a ^= K1;
  b ^= seed;
  __uint128_t r = (__uint128_t)a * b;
  a = (uint64_t)r;
  b = (uint64_t)(r >> 64);
  return mix(a ^ K0 ^ (uint64_t)n, b ^ K1);
}
