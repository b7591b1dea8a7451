/* fuzz/fuzz_datetime_parser.c — libFuzzer target for PostgreSQL's date/time
 * text as Laminar reads it (columnar/lm_temporal.h lm_dt_parse and the
 * readers built on it, columnar/lm_tz.h lm_tz_parse_timestamptz): any bytes
 * must either parse or give an LM_DT_* code whose message lm_dt_message can
 * write, never crash. A TIMESTAMP or DATE that parses must print and read
 * back to the same value (lm_format_timestamp / lm_format_date). */
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#include <string.h>

static void check_message(int rc, const char *type, const uint8_t *data,
                          size_t size) {
  char msg[256];
  const char *state = NULL;
  lm_dt_message(rc, type, (const char *)data, size, msg, sizeof msg, &state);
  if (!state || strlen(state) != 5 || msg[0] == '\0')
    __builtin_trap(); /* every failure has a SQLSTATE and a message */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  if (size > 512)
    return 0; /* date/time text is short; keep the zone-file lookups cheap */
  lm_dt_text f;
  (void)lm_dt_parse(s, size, &f);

  int64_t us = 0;
  int rc = lm_parse_timestamp(s, size, &us);
  if (rc == 0) {
    char buf[64];
    int n = lm_format_timestamp(us, ' ', buf);
    int64_t back = 0;
    if (lm_parse_timestamp(buf, (size_t)n, &back) != 0 || back != us)
      __builtin_trap(); /* printed text must read back to the same instant */
  } else {
    check_message(rc, "timestamp", data, size);
  }

  /* TIMESTAMP literals: a zone checked, then ignored (lm_tz.h) */
  rc = lm_tz_parse_timestamp(s, size, lm_tz_utc(), &us);
  if (rc != 0)
    check_message(rc, "timestamp", data, size);

  int64_t days = 0;
  rc = lm_parse_date(s, size, &days);
  if (rc == 0) {
    char buf[32];
    int n = lm_format_date(days, buf);
    int64_t back = 0;
    if (lm_parse_date(buf, (size_t)n, &back) != 0 || back != days)
      __builtin_trap();
  } else {
    check_message(rc, "date", data, size);
  }

  rc = lm_tz_parse_timestamptz(s, size, lm_tz_utc(), &us);
  if (rc != 0)
    check_message(rc, "timestamp with time zone", data, size);

  int64_t iv = 0, ivd = 0;
  (void)lm_parse_interval_days(s, size, NULL, 0, &iv, &ivd);
  return 0;
}
