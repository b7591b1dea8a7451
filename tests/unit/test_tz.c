/* tests/unit/test_tz.c — the TZif reader and zone conversions
 * (columnar/lm_tz.h). Oracles: `zdump -v` (libc-bin) for every transition
 * of a few zones between 1850 and 2100 (offset, isdst and abbreviation on
 * both sides of each transition; past 2037 the footer's POSIX rule is what
 * answers), and PostgreSQL 15's answers for the local-time rules and the
 * SET TIME ZONE names (the psql session is in the comments). */
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "laminar.h"
#include "lm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

/* "Sun Mar 10 06:59:59 2024" -> seconds since the epoch; -1 on failure. */
static int parse_zdump_time(const char *s, int64_t *out) {
  char wd[4], mon[4];
  int d, hh, mm, ss;
  long long y;
  if (sscanf(s, "%3s %3s %d %d:%d:%d %lld", wd, mon, &d, &hh, &mm, &ss, &y) !=
      7)
    return -1;
  const char *m = strstr(MONTHS, mon);
  if (!m)
    return -1;
  unsigned month = (unsigned)((m - MONTHS) / 3 + 1);
  *out = lm_days_from_civil(y, month, (unsigned)d) * 86400 + hh * 3600 +
         mm * 60 + ss;
  return 0;
}

/* Checks every line of `zdump -v -c 1850,2100 zone`; returns the number of
 * lines checked, -1 when zdump is missing. */
static int check_zdump(const char *zone) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "zdump -v -c 1850,2100 %s 2>/dev/null", zone);
  FILE *f = popen(cmd, "r");
  if (!f)
    return -1;
  const lm_tz *z;
  lm_error err;
  int rc = lm_tz_lookup(zone, &z, &err);
  CHECK(rc == 0);
  if (rc) {
    pclose(f);
    return 0;
  }
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    const char *ut = strstr(line, "  ");
    const char *eq = strstr(line, " UT = ");
    const char *go = strstr(line, "gmtoff=");
    const char *dst = strstr(line, "isdst=");
    if (!ut || !eq || !go || !dst)
      continue;
    int64_t t;
    if (parse_zdump_time(ut + 2, &t) != 0)
      continue;
    /* the abbreviation: the word before " isdst=" */
    const char *ae = dst - 1, *ab = ae;
    while (ab > line && ab[-1] != ' ')
      ab--;
    char abbr[32];
    snprintf(abbr, sizeof abbr, "%.*s", (int)(ae - ab), ab);
    long off = strtol(go + 7, NULL, 10);
    int isdst = atoi(dst + 6);
    bool d;
    const char *a;
    int32_t got = lm_tz_offset_at(z, t, &d, &a);
    if (got != off || d != (isdst != 0) || strcmp(a, abbr) != 0) {
      fprintf(stderr, "%s at %lld: got %d %d %s, zdump %ld %d %s\n", zone,
              (long long)t, got, d, a, off, isdst, abbr);
      CHECK(!"zdump mismatch");
    }
    n++;
  }
  int st = pclose(f);
  if (n == 0 && st != 0)
    return -1;
  return n;
}

static int64_t ts(const char *s) {
  int64_t v = 0;
  CHECK(lm_parse_timestamp(s, strlen(s), &v) == 0);
  return v;
}

static void check_fmt(const char *zone, const char *utc, const char *want) {
  const lm_tz *z;
  lm_error err;
  CHECK(lm_tz_lookup(zone, &z, &err) == 0);
  char buf[64];
  lm_tz_format(ts(utc), z, buf);
  CHECK_EQ_STR(buf, want);
}

/* local text read in zone -> the text PostgreSQL prints */
static void check_in(const char *zone, const char *in, const char *want) {
  const lm_tz *z;
  lm_error err;
  CHECK(lm_tz_lookup(zone, &z, &err) == 0);
  int64_t v = 0;
  CHECK(lm_tz_parse_timestamptz(in, strlen(in), z, &v) == 0);
  char buf[64];
  lm_tz_format(v, z, buf);
  CHECK_EQ_STR(buf, want);
}

static void check_name(const char *in, const char *show) {
  const lm_tz *z = NULL;
  lm_error err;
  int rc = lm_tz_lookup(in, &z, &err);
  if (!show) {
    CHECK(rc != 0);
    if (rc)
      CHECK_EQ_STR(err.sqlstate, "22023");
    return;
  }
  CHECK(rc == 0);
  if (!rc)
    CHECK_EQ_STR(lm_tz_name(z), show);
}

int main(void) {
  /* zdump oracle */
  const char *zones[] = {"America/New_York",  "Europe/Berlin",
                         "Asia/Kolkata",      "Australia/Lord_Howe",
                         "America/Sao_Paulo", "Europe/Dublin",
                         "Pacific/Apia",      "Africa/Casablanca"};
  int total = 0;
  for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++) {
    int n = check_zdump(zones[i]);
    if (n < 0) {
      printf("test_tz: zdump not available, skipping the zdump oracle\n");
      break;
    }
    CHECK(n > 0);
    total += n;
  }
  printf("test_tz: %d zdump lines compared\n", total);

  /* PostgreSQL 15 (psql):
   *   SET TIME ZONE 'x'; SHOW timezone;
   *   SELECT '2024-07-01 12:00:00+00'::timestamptz;
   * 'Z' -> ERROR 22023; '+05:30' -> +05:30 / 2024-07-01 06:30:00-05:30;
   * 'UTC+3' -> UTC+3 / 09:00:00-03; 'europe/berlin' -> Europe/Berlin /
   * 14:00:00+02; 'PST' -> ERROR; 5.5 -> <+05:30>-05:30 / 17:30:00+05:30;
   * '-3' -> <-03>+03; 'utc' -> UTC; 'utc+3' -> UTC+3; 'CET-1CEST' ->
   * 14:00:00+02; 'America/new_york' -> America/New_York; 'XYZ' -> ERROR. */
  check_name("Z", NULL);
  check_name("PST", NULL);
  check_name("XYZ", NULL);
  check_name("  UTC", NULL);
  check_name("+05:30", "+05:30");
  check_name("UTC+3", "UTC+3");
  check_name("utc+3", "UTC+3");
  check_name("europe/berlin", "Europe/Berlin");
  check_name("America/new_york", "America/New_York");
  check_name("5.5", "<+05:30>-05:30");
  check_name("-3", "<-03>+03");
  check_name("+5", "<+05>-05");
  check_name("utc", "UTC");
  check_fmt("+05:30", "2024-07-01 12:00:00", "2024-07-01 06:30:00-05:30");
  check_fmt("UTC+3", "2024-07-01 12:00:00", "2024-07-01 09:00:00-03");
  check_fmt("europe/berlin", "2024-07-01 12:00:00", "2024-07-01 14:00:00+02");
  check_fmt("5.5", "2024-07-01 12:00:00", "2024-07-01 17:30:00+05:30");
  check_fmt("CET-1CEST", "2024-07-01 12:00:00", "2024-07-01 14:00:00+02");
  check_fmt("CET-1CEST", "2024-01-01 12:00:00", "2024-01-01 13:00:00+01");
  check_fmt("UTC+3UTC", "2024-07-01 12:00:00", "2024-07-01 10:00:00-02");
  check_fmt("Australia/Lord_Howe", "2024-07-01 12:00:00",
            "2024-07-01 22:30:00+10:30");
  check_fmt("Australia/Lord_Howe", "2024-01-01 12:00:00",
            "2024-01-01 23:00:00+11");

  /* PostgreSQL 15: SET timezone='America/New_York'; SELECT
   * '1800-01-01 00:00'::timestamptz -> 1800-01-01 00:00:00-04:56:02,
   * '2024-03-10 02:30:00' -> 2024-03-10 03:30:00-04 (gap),
   * '2024-11-03 01:30:00' -> 2024-11-03 01:30:00-05 (overlap),
   * '2024-01-01 12:00:00.5' -> 2024-01-01 12:00:00.5-05,
   * '2100-07-01 12:00' -> 2100-07-01 12:00:00-04;
   * SET timezone='Australia/Lord_Howe'; '2024-04-07 01:45' ->
   * 2024-04-07 01:45:00+10:30, '2024-10-06 02:15' -> 02:45:00+11. */
  check_in("America/New_York", "1800-01-01 00:00",
           "1800-01-01 00:00:00-04:56:02");
  check_in("America/New_York", "2024-03-10 02:30:00", "2024-03-10 03:30:00-04");
  check_in("America/New_York", "2024-11-03 01:30:00", "2024-11-03 01:30:00-05");
  check_in("America/New_York", "2024-01-01 12:00:00.5",
           "2024-01-01 12:00:00.5-05");
  check_in("America/New_York", "2100-07-01 12:00", "2100-07-01 12:00:00-04");
  check_in("Australia/Lord_Howe", "2024-04-07 01:45",
           "2024-04-07 01:45:00+10:30");
  check_in("Australia/Lord_Howe", "2024-10-06 02:15", "2024-10-06 02:45:00+11");
  check_in("UTC", "2024-01-01 12:00:00+05:30", "2024-01-01 06:30:00+00");
  check_in("UTC", "2024-01-01 12:00 Europe/Berlin", "2024-01-01 11:00:00+00");
  check_in("UTC", " 2024-01-01T12:00:00Z ", "2024-01-01 12:00:00+00");

  /* TZif decoder: malformed input is an error naming a byte, never a
   * crash */
  lm_tz *z = NULL;
  lm_error err;
  CHECK(lm_tzif_parse((const uint8_t *)"TZif", 4, "x", &z, &err) != 0);
  CHECK(strstr(err.msg, "byte") != NULL);
  FILE *f = fopen("/usr/share/zoneinfo/Europe/Berlin", "rb");
  if (f) {
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(lm_tzif_parse(buf, n, "Europe/Berlin", &z, &err) == 0);
    lm_tz_free(z);
    for (size_t cut = 0; cut < n; cut += 7) { /* every truncation */
      z = NULL;
      if (lm_tzif_parse(buf, cut, "x", &z, &err) == 0)
        lm_tz_free(z);
    }
    buf[44 + 4] ^= 0x7f; /* corrupt a count */
    z = NULL;
    if (lm_tzif_parse(buf, n, "x", &z, &err) == 0)
      lm_tz_free(z);
  }
  /* the API: a TIMESTAMPTZ result prints in the session zone of its
   * statement and exports as Arrow Timestamp(µs, "UTC") */
  laminar_db *db = NULL;
  laminar_error le;
  CHECK(laminar_open(&db, &le) == 0);
  laminar_result *res = NULL;
  CHECK(laminar_execute(db,
                        "SET TIME ZONE 'Asia/Kolkata'; SELECT TIMESTAMPTZ "
                        "'2024-01-01 00:00:00+00' AS t",
                        &res, &le) == 0);
  if (res) {
    CHECK_EQ_STR(laminar_result_column_type(res, 0), "TIMESTAMPTZ");
    CHECK_EQ_STR(laminar_result_value_text(res, 0, 0),
                 "2024-01-01 05:30:00+05:30");
    struct ArrowArray arr;
    struct ArrowSchema sch;
    if (laminar_result_export_batch(res, 0, &arr, &sch, &le) == 0) {
      CHECK(sch.n_children == 1);
      if (sch.n_children == 1)
        CHECK_EQ_STR(sch.children[0]->format, "tsu:UTC");
      arr.release(&arr);
      sch.release(&sch);
    } else {
      CHECK(!"export failed");
    }
    laminar_result_free(res);
  }
  res = NULL;
  CHECK(laminar_execute(db, "SHOW TIME ZONE", &res, &le) == 0);
  if (res)
    CHECK_EQ_STR(laminar_result_value_text(res, 0, 0), "Asia/Kolkata");
  laminar_result_free(res);
  CHECK(laminar_execute(db, "SET TIME ZONE 'Nowhere/Land'", NULL, &le) != 0);
  CHECK_EQ_STR(le.sqlstate, "22023");
  laminar_close(db, &le);

  CHECK(lm_tz_parse_posix("EST5EDT,M3.2.0,M11.1.0", 22, "x", &z, &err) == 0);
  lm_tz_free(z);
  CHECK(lm_tz_parse_posix("EST5EDT,M13.2.0,M11.1.0", 23, "x", &z, &err) != 0);
  return lm_test_done("test_tz");
}
