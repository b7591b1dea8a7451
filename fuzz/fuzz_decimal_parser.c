/* fuzz/fuzz_decimal_parser.c — libFuzzer target for the NUMERIC text
 * parser (columnar/lm_decimal.h lm_dec_parse, at a scale 0..38 chosen by
 * the first byte): any bytes must either parse or give LM_DEC_ESYNTAX /
 * LM_DEC_EOVERFLOW, never crash. NaN / Infinity / -Infinity print and read
 * back. Another value that parses fits 38 digits, prints
 * (lm_dec_format) and reads back to the same value at the same scale; its
 * own scale (frac_digits) is within 0..1000; rescaling up and back is
 * lossless. The TIME and BYTEA text readers declared beside it
 * (lm_parse_time_us, lm_parse_bytea) get the same bytes. Seeds:
 * fuzz/corpus/decimal/. */
#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 1024)
    return 0;
  int scale = data[0] % (LM_DEC_MAX_DIGITS + 1);
  const char *s = (const char *)data + 1;
  size_t n = size - 1;
  lm_i128 v = 0;
  int frac = -1;
  int rc = lm_dec_parse(s, n, scale, &v, &frac);
  if (rc != 0 && rc != LM_DEC_ESYNTAX && rc != LM_DEC_EOVERFLOW)
    __builtin_trap();
  if (rc == 0 && lm_dec_is_special(v)) { /* NaN / ±Infinity read back */
    char buf[64];
    int len = lm_dec_format(buf, v, scale);
    lm_i128 back = 0;
    int f2 = -1;
    if (len <= 0 || len >= 48 ||
        lm_dec_parse(buf, (size_t)len, scale, &back, &f2) != 0 || back != v)
      __builtin_trap();
  } else if (rc == 0) {
    if (!lm_dec_fits(v, LM_DEC_MAX_DIGITS) || frac < 0 || frac > 1000)
      __builtin_trap();
    char buf[64];
    int len = lm_dec_format(buf, v, scale);
    if (len <= 0 || len >= 48 || (size_t)len != strlen(buf))
      __builtin_trap();
    lm_i128 back = 0;
    int f2 = -1;
    if (lm_dec_parse(buf, (size_t)len, scale, &back, &f2) != 0 || back != v)
      __builtin_trap(); /* printed text reads back to the same value */
    if (scale < LM_DEC_MAX_DIGITS) {
      lm_i128 up, down;
      if (lm_dec_rescale(v, scale, scale + 1, &up) == 0 &&
          (lm_dec_rescale(up, scale + 1, scale, &down) != 0 || down != v))
        __builtin_trap();
    }
    (void)lm_dec_to_double(v, scale);
    (void)lm_dec_digits(v);
  }
  if (n <= INT32_MAX) {
    int64_t us;
    (void)lm_parse_time_us(s, (int32_t)n, &us);
    lm_buf b;
    lm_buf_init(&b);
    (void)lm_parse_bytea(s, (int32_t)n, &b);
    lm_buf_free(&b);
  }
  return 0;
}
