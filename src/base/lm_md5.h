/*
 * base/ — MD5 message digest (RFC 1321). Used by the SQL md5() function
 * and by test runners that hash result sets. Not for security.
 */
#ifndef LM_MD5_H
#define LM_MD5_H

#include <stddef.h>
#include <stdint.h>

/* Incremental MD5 state; initialise with lm_md5_init. Holds no heap memory. */
typedef struct lm_md5 {
  uint32_t h[4];
  uint64_t n_bytes; /* bytes hashed so far */
  uint8_t block[64];
} lm_md5;

void lm_md5_init(lm_md5 *m);
/* Hashes `len` bytes at `p` (p may be NULL when len is 0). */
void lm_md5_update(lm_md5 *m, const void *p, size_t len);
/* Finishes: writes the 16-byte digest to out; m must be re-initialised
 * before reuse. */
void lm_md5_final(lm_md5 *m, uint8_t out[16]);
/* One-shot: the digest of `len` bytes as 32 lower-case hex digits plus a
 * NUL in hex[33]. */
void lm_md5_hex(const void *p, size_t len, char hex[33]);

#endif
