/* tests/unit/test_datetime_text.c — PostgreSQL's date/time text
 * (columnar/lm_temporal.h: lm_dt_parse, lm_parse_timestamp, lm_parse_date,
 * lm_format_timestamp, lm_format_date, lm_dt_message; lm_tz.h:
 * lm_tz_parse_timestamptz). Expected values are PostgreSQL 15's answers
 * to the same text (psql, `SELECT 'x'::timestamp::text` and friends, the
 * session zone UTC; the SQL-level checks are tests/slt/pg_datetime.slt),
 * plus random bytes that must never crash a reader. */
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "lm_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* `text`::timestamp::text in PostgreSQL (NULL: an error with code rc) */
static void ts(const char *text, const char *want, int rc) {
  int64_t us = 0;
  int got = lm_parse_timestamp(text, strlen(text), &us);
  CHECK_EQ_I64(got, want ? 0 : rc);
  if (!want || got)
    return;
  char buf[64];
  lm_format_timestamp(us, ' ', buf);
  CHECK_EQ_STR(buf, want);
}

static void date(const char *text, const char *want, int rc) {
  int64_t d = 0;
  int got = lm_parse_date(text, strlen(text), &d);
  CHECK_EQ_I64(got, want ? 0 : rc);
  if (!want || got)
    return;
  char buf[32];
  lm_format_date(d, buf);
  CHECK_EQ_STR(buf, want);
}

/* `text`::timestamptz::text with TimeZone = UTC (lm_tz_format) */
static void tstz(const char *text, const char *want, int rc) {
  int64_t us = 0;
  int got = lm_tz_parse_timestamptz(text, strlen(text), lm_tz_utc(), &us);
  CHECK_EQ_I64(got, want ? 0 : rc);
  if (!want || got)
    return;
  char buf[64];
  lm_tz_format(us, lm_tz_utc(), buf);
  CHECK_EQ_STR(buf, want);
}

int main(void) {
  /* years BC: 0001-01-01 BC is the astronomical year 0 */
  ts("0044-03-15 BC", "0044-03-15 00:00:00 BC", 0);
  ts("0044-03-15 12:30:00.5 BC", "0044-03-15 12:30:00.500000 BC", 0);
  ts("0001-01-01 00:00:00", "0001-01-01 00:00:00", 0);
  ts("4714-11-24 00:00:00 BC", "4714-11-24 00:00:00 BC", 0);
  ts("4714-11-23 BC", NULL, LM_DT_OUT_OF_RANGE);
  ts("0000-01-01", NULL, LM_DT_FIELD_OVERFLOW);
  ts("10000-01-01", "10000-01-01 00:00:00", 0);
  date("0044-03-15 BC", "0044-03-15 BC", 0);
  date("4713-01-01 BC", "4713-01-01 BC", 0);
  date("4714-01-01 BC", NULL, LM_DT_OUT_OF_RANGE);
  date("2024-01-01 12:00:00.5+05", "2024-01-01", 0); /* time, zone ignored */
  tstz("0001-01-01 00:00:00 BC+02", "0002-12-31 22:00:00+00 BC", 0);
  tstz("0001-01-01 00:00:00+02 BC", "0002-12-31 22:00:00+00 BC", 0);
  /* fractions rounded to µs as PostgreSQL: rint(strtod(".f") * 1e6) */
  ts("2024-01-01 00:00:00.9999995", "2024-01-01 00:00:01", 0);
  ts("2024-01-01 00:00:00.0000005", "2024-01-01 00:00:00", 0);
  ts("2024-01-01 00:00:00.0000015", "2024-01-01 00:00:00.000002", 0);
  ts("2024-01-01 00:00:00.0000025", "2024-01-01 00:00:00.000002", 0);
  ts("2024-12-31 23:59:59.9999999", "2025-01-01 00:00:00", 0);
  ts("2024-01-01 12:00:00.", "2024-01-01 12:00:00", 0);
  /* 24:00:00, a leap second, unpadded fields, 'T', spaces */
  ts("2024-01-01 24:00:00", "2024-01-02 00:00:00", 0);
  ts("2024-12-31 23:59:60", "2025-01-01 00:00:00", 0);
  ts("2024-1-1 1:2:3", "2024-01-01 01:02:03", 0);
  ts("2024-01-01T10:00", "2024-01-01 10:00:00", 0);
  ts("  2024-01-01  12:00  ", "2024-01-01 12:00:00", 0);
  /* fields out of range (22008) and text that does not read (22007) */
  ts("2024-02-30 00:00", NULL, LM_DT_FIELD_OVERFLOW);
  ts("2024-13-01", NULL, LM_DT_FIELD_OVERFLOW);
  ts("2024-01-01 24:00:00.5", NULL, LM_DT_FIELD_OVERFLOW);
  ts("2024-01-01 23:60:00", NULL, LM_DT_FIELD_OVERFLOW);
  ts("2024-01-01 23:59:61", NULL, LM_DT_FIELD_OVERFLOW);
  ts("24-01-01", NULL, LM_DT_FIELD_OVERFLOW);
  ts("abc", NULL, LM_DT_BAD_FORMAT);
  ts("12:00", NULL, LM_DT_BAD_FORMAT);
  ts("", NULL, LM_DT_BAD_FORMAT);
  ts("2024-01-01 12:00 now", NULL, LM_DT_BAD_FORMAT);
  ts("2024-01-01 12:00 BC BC", NULL, LM_DT_BAD_FORMAT);
  ts("99999999999-01-01", NULL, LM_DT_FIELD_OVERFLOW);
  date("2023-02-29", NULL, LM_DT_FIELD_OVERFLOW);
  /* TIMESTAMPTZ zones: offsets (east positive), abbreviations, names */
  tstz("2024-01-01 12:00+05", "2024-01-01 07:00:00+00", 0);
  tstz("2024-01-01 12:00+0530", "2024-01-01 06:30:00+00", 0);
  tstz("2024-01-01 12:00+1000", "2024-01-01 02:00:00+00", 0);
  tstz("2024-01-01 12:00 +5", "2024-01-01 07:00:00+00", 0);
  tstz("2024-01-01 12:00+05:30:15", "2024-01-01 06:29:45+00", 0);
  tstz("2024-01-01 12:00 +15", "2023-12-31 21:00:00+00", 0);
  tstz("2024-01-01 12:00 +16", NULL, LM_DT_TZDISP_OVERFLOW);
  tstz("2024-01-01T12:00:00z", "2024-01-01 12:00:00+00", 0);
  tstz("2024-01-01 12:00 zulu", "2024-01-01 12:00:00+00", 0);
  tstz("2024-01-01 12:00 PST", "2024-01-01 20:00:00+00", 0);
  tstz("2024-07-01 12:00 CEST", "2024-07-01 10:00:00+00", 0);
  tstz("2024-01-01 12:00 EDT", "2024-01-01 16:00:00+00", 0);
  tstz("2024-01-01 12:00 MSK", "2024-01-01 09:00:00+00", 0);
  tstz("2024-07-01 12:00:00 EST5EDT", "2024-07-01 16:00:00+00", 0);
  tstz("2024-01-01 12:00 UTC+3", "2024-01-01 15:00:00+00", 0);
  tstz("2024-01-01 12:00 GMT-2", "2024-01-01 10:00:00+00", 0);
  tstz("2024-01-01 12:00 Japan", "2024-01-01 03:00:00+00", 0);
  tstz("2024-03-10 02:30 America/New_York", "2024-03-10 07:30:00+00", 0);
  tstz("2024-01-01 24:00:00+00", "2024-01-02 00:00:00+00", 0);
  tstz("2024-01-01 12:00 Foo/Bar", NULL, LM_DT_BAD_ZONE);
  tstz("2024-01-01 12:00 foo", NULL, LM_DT_BAD_FORMAT);
  tstz("2024-02-30 00:00:00+00", NULL, LM_DT_FIELD_OVERFLOW);

  /* PostgreSQL's messages */
  char m[200];
  const char *st;
  const char *t = "2024-01-01 12:00 Foo/Bar";
  lm_dt_message(LM_DT_BAD_ZONE, "timestamp with time zone", t, strlen(t), m,
                sizeof m, &st);
  CHECK_EQ_STR(m, "time zone \"foo/bar\" not recognized");
  CHECK_EQ_STR(st, "22023");
  lm_dt_message(LM_DT_FIELD_OVERFLOW, "date", "2024-02-30", 10, m, sizeof m,
                &st);
  CHECK_EQ_STR(m, "date/time field value out of range: \"2024-02-30\"");
  CHECK_EQ_STR(st, "22008");
  lm_dt_message(LM_DT_OUT_OF_RANGE, "date", "4714-01-01 BC", 13, m, sizeof m,
                &st);
  CHECK_EQ_STR(m, "date out of range: \"4714-01-01 BC\"");
  lm_dt_message(LM_DT_BAD_FORMAT, "timestamp", "abc", 3, m, sizeof m, &st);
  CHECK_EQ_STR(m, "invalid input syntax for type timestamp: \"abc\"");
  CHECK_EQ_STR(st, "22007");

  /* random bytes over the readers' alphabet never crash them; what parses
   * prints (lm_format_timestamp stays within its 40 bytes) */
  uint64_t x = 88172645463325252ULL;
  static const char alpha[] = "0123456789-:.+ TtBCADZzESTPUG/_bc";
  for (int it = 0; it < 200000; it++) {
    char s[48];
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t n = (size_t)(x % 40);
    for (size_t k = 0; k < n; k++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      s[k] = alpha[x % (sizeof alpha - 1)];
    }
    int64_t us, d;
    char out[64];
    if (lm_parse_timestamp(s, n, &us) == 0)
      CHECK(lm_format_timestamp(us, ' ', out) < 40);
    if (lm_parse_date(s, n, &d) == 0)
      CHECK(lm_format_date(d, out) < 24);
    (void)lm_tz_parse_timestamptz(s, n, lm_tz_utc(), &us);
  }
  return lm_test_done("test_datetime_text");
}
