/* fuzz/fuzz_tzif_reader.c — libFuzzer target for the TZif decoder and the
 * POSIX TZ string parser (columnar/lm_tz.h): any bytes must either decode
 * (and then every conversion over the zone must be clean) or fail with an
 * error message naming a byte, never crash. */
#include "columnar/lm_tz.h"

#include <string.h>

static void exercise(const lm_tz *z) {
  static const int64_t probes[] = {INT64_C(-9000000000000000000),
                                   INT64_C(-2208988800000000),
                                   0,
                                   INT64_C(1710054000000000),
                                   INT64_C(4102444800000000),
                                   INT64_C(253402300799000000)};
  char buf[64];
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    int64_t t = probes[i];
    (void)lm_tz_to_local(z, t);
    (void)lm_tz_from_local(z, t, NULL);
    if (t > INT64_C(-200000000000000000) && t < INT64_C(200000000000000000))
      (void)lm_tz_format(t, z, buf);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lm_tz *z = NULL;
  lm_error err;
  err.msg[0] = '\0';
  if (lm_tzif_parse(data, size, "fuzz", &z, &err) == 0) {
    exercise(z);
    lm_tz_free(z);
  } else if (!strstr(err.msg, "byte") && !strstr(err.msg, "memory")) {
    __builtin_trap(); /* an error must name the byte */
  }
  z = NULL;
  if (size < 256 &&
      lm_tz_parse_posix((const char *)data, size, "fuzz", &z, &err) == 0) {
    exercise(z);
    lm_tz_free(z);
  }
  return 0;
}
