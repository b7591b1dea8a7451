/*
 * base/ — SHA-256 message digest (FIPS 180-4). Used by the SQL sha256()
 * function.
 */
#ifndef LM_SHA256_H
#define LM_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The 32-byte SHA-256 digest of `len` bytes at `p` (p may be NULL when len
 * is 0) into out. No heap memory; cannot fail. */
void lm_sha256(const void *p, size_t len, uint8_t out[32]);

#endif
