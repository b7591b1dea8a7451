/* Unit tests for base/lm_md5.h (Nettle's MD5) against RFC 1321's test suite
 * (appendix A.5), plus incremental updates across block boundaries, and for the
 * SQLSTATE recorded on errors (lm_err_state). */
#include "base/lm_base.h"
#include "base/lm_md5.h"
#include "lm_test.h"

#include <string.h>

static void test_rfc1321(void) {
  static const char *const v[][2] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
       "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"1234567890123456789012345678901234567890123456789012345678901234567890"
       "1234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  char hex[33];
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    lm_md5_hex(v[i][0], strlen(v[i][0]), hex);
    CHECK_EQ_STR(hex, v[i][1]);
  }
  /* the 80-digit message fed in pieces of 1, 7 and 63 bytes */
  const char *m = v[6][0];
  size_t steps[] = {1, 7, 63};
  for (size_t s = 0; s < 3; s++) {
    lm_md5 st;
    uint8_t d[16];
    lm_md5_init(&st);
    for (size_t k = 0; k < 80; k += steps[s])
      lm_md5_update(&st, m + k, 80 - k < steps[s] ? 80 - k : steps[s]);
    lm_md5_final(&st, d);
    char h2[33];
    for (int i = 0; i < 16; i++)
      snprintf(h2 + 2 * i, 3, "%02x", d[i]);
    CHECK_EQ_STR(h2, v[6][1]);
  }
}

static void test_sqlstate(void) {
  lm_error e;
  lm_err_clear(&e);
  CHECK_EQ_STR(e.sqlstate, "");
  lm_err_at(&e, LM_ERR_EXEC, 1, 8, "division by zero");
  CHECK_EQ_STR(e.sqlstate, "");
  CHECK_EQ_I64(lm_err_state(&e, "22012"), LM_ERR_EXEC);
  CHECK_EQ_STR(e.sqlstate, "22012");
  lm_err(&e, LM_ERR_BIND, "other"); /* a new error clears it */
  CHECK_EQ_STR(e.sqlstate, "");
  CHECK_EQ_I64(lm_err_state(NULL, "22012"), 0);
}

int main(void) {
  test_rfc1321();
  test_sqlstate();
  return lm_test_done("test_md5");
}
