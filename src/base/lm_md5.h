/*
 * base/ — MD5 message digest (RFC 1321) for the SQL md5() function and for
 * test runners that hash result sets: thin wrappers over Nettle's
 * (Debian's nettle-dev, found by pkg-config; not our own copy). Not for
 * security.
 */
#ifndef LM_MD5_H
#define LM_MD5_H

#include <nettle/md5.h>
#include <stddef.h>
#include <stdint.h>

/* Incremental MD5 state; initialise with lm_md5_init. Holds no heap memory. */
typedef struct md5_ctx lm_md5;

static inline void lm_md5_init(lm_md5 *m) {
  md5_init(m);
}
/* Hashes `len` bytes at `p` (p may be NULL when len is 0). */
static inline void lm_md5_update(lm_md5 *m, const void *p, size_t len) {
  if (len)
    md5_update(m, len, (const uint8_t *)p);
}
/* Finishes: writes the 16-byte digest to out; m must be re-initialised
 * before reuse. */
static inline void lm_md5_final(lm_md5 *m, uint8_t out[16]) {
  md5_digest(m, 16, out);
}
/* One-shot: the digest of `len` bytes as 32 lower-case hex digits plus a
 * NUL in hex[33]. */
static inline void lm_md5_hex(const void *p, size_t len, char hex[33]) {
  static const char digits[] = "0123456789abcdef";
  lm_md5 m;
  uint8_t d[16];
  lm_md5_init(&m);
  lm_md5_update(&m, p, len);
  lm_md5_final(&m, d);
  for (int i = 0; i < 16; i++) {
    hex[2 * i] = digits[d[i] >> 4];
    hex[2 * i + 1] = digits[d[i] & 15];
  }
  hex[32] = '\0';
}

#endif
