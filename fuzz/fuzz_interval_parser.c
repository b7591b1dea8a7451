/* fuzz/fuzz_interval_parser.c — libFuzzer target for PostgreSQL's interval
 * text with months and days (columnar/lm_interval.h lm_iv_parse: unit
 * words, clock parts, '@ ... ago', ISO 8601 "P1Y2M3DT4H5M6S"; an SQL
 * qualifier chosen by the first byte). Any bytes must either parse or give
 * -1 / -2, never crash; an interval that parses must print
 * (lm_iv_format, PostgreSQL's output) and read back to the same {months,
 * days, µs}. The arithmetic over it (add, mul, justify, timestamp +
 * interval) must not overflow silently (UBSan). Seeds:
 * fuzz/corpus/interval/. */
#include "columnar/lm_interval.h"

#include <stdint.h>
#include <string.h>

static const char *const units[] = {
    NULL,     "year",    "month",      "day",         "hour",
    "minute", "second",  "week",       "millisecond", "microsecond",
    "decade", "century", "millennium", "mons",        "bogus"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 1024)
    return 0;
  const char *unit = units[data[0] % (sizeof units / sizeof units[0])];
  const char *s = (const char *)data + 1;
  size_t n = size - 1;
  lm_iv v;
  int rc = lm_iv_parse(s, n, unit, unit ? strlen(unit) : 0, &v);
  if (rc != 0 && rc != -1 && rc != -2)
    __builtin_trap();
  (void)lm_iv_text_has_months(s, n, unit, unit ? strlen(unit) : 0);
  if (rc != 0)
    return 0;
  char buf[128];
  int len = lm_iv_format(&v, buf);
  if (len <= 0 || len >= 96 || (size_t)len != strlen(buf))
    __builtin_trap(); /* fits the documented 96 bytes */
  lm_iv back;
  if (lm_iv_parse(buf, (size_t)len, NULL, 0, &back) != 0 ||
      back.months != v.months || back.days != v.days || back.us != v.us)
    __builtin_trap(); /* printed text reads back to the same interval */

  lm_iv r;
  (void)lm_iv_add(&v, &v, 1, &r);
  (void)lm_iv_add(&v, &v, -1, &r);
  (void)lm_iv_mul(&v, 2.5, false, &r);
  (void)lm_iv_mul(&v, -0.3, true, &r);
  (void)lm_iv_mul(&v, 0.0, true, &r);
  (void)lm_iv_justify(&v, true, true, &r);
  (void)lm_iv_justify(&v, true, false, &r);
  (void)lm_iv_justify(&v, false, true, &r);
  unsigned char slot[16];
  (void)lm_iv_store(slot, &v);
  int64_t ts;
  (void)lm_ts_plus_iv(1709643845123456LL, &v, 1, NULL, &ts);
  (void)lm_ts_plus_iv(-1709643845123456LL, &v, -1, NULL, &ts);
  return 0;
}
