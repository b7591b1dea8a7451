/*
 * columnar/lm_temporal.h — calendar arithmetic, timestamp text and SQL
 * interval parsing. Timestamps are int64 µs since 1970-01-01T00:00:00 UTC
 * (proleptic Gregorian calendar); intervals are int64 µs.
 */
#ifndef LM_TEMPORAL_H
#define LM_TEMPORAL_H

#include <stddef.h>
#include <stdint.h>

#define LM_US_PER_SEC INT64_C(1000000)
#define LM_US_PER_MIN (INT64_C(60) * LM_US_PER_SEC)
#define LM_US_PER_HOUR (INT64_C(60) * LM_US_PER_MIN)
#define LM_US_PER_DAY (INT64_C(24) * LM_US_PER_HOUR)

/* Parses a timestamp from s[0, len) (no NUL needed). Accepts RFC 3339
 * ("2001-01-01T00:01:00Z", "...T00:01:00.123456+02:00", lowercase t/z,
 * offsets ±HH:MM, ±HHMM or ±HH, fractions of 1-9 digits after '.' or ',',
 * truncated to µs), "YYYY-MM-DD HH:MM:SS[.f]" (no zone = UTC; a zone is
 * also accepted), seconds may be omitted ("YYYY-MM-DDTHH:MM"), and a bare
 * date "YYYY-MM-DD" (midnight UTC). Years 0001-9999 (exactly 4 digits),
 * dates before 1970 included; no surrounding whitespace. Result: µs since
 * the Unix epoch (UTC) in *out_us. Returns 0 ok, -1 if the text does not
 * parse or a field is out of range (no error struct; callers report the
 * position). */
int lm_parse_timestamp(const char *s, size_t len, int64_t *out_us);

/* Writes "YYYY-MM-DD<sep>HH:MM:SS" plus ".ffffff" (always 6 digits) when
 * the sub-second part is nonzero, then a NUL. Returns the number of chars
 * written excluding the NUL. buf needs >= 32 bytes. sep is 'T' or ' '.
 * Correct for negative (pre-1970) values (floor division); years outside
 * 0000-9999 are written with as many digits as needed and a '-' sign. */
int lm_format_timestamp(int64_t us, char sep, char *buf);

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1-12,
 * d 1-31, not validated) — Howard Hinnant's days_from_civil. */
int64_t lm_days_from_civil(int64_t y, unsigned m, unsigned d);
/* Inverse of lm_days_from_civil: date of day z since 1970-01-01. */
void lm_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);
/* Days in month m (1-12) of year y; 0 for a bad month. */
unsigned lm_days_in_month(int64_t y, unsigned m);

/* Parses an interval as in SQL INTERVAL 'n' UNIT: num[0, num_len) is a
 * count, optionally signed and decimal ('1.5', '-2'); unit[0, unit_len) is
 * one of MICROSECOND(S), MILLISECOND(S), SECOND(S), MINUTE(S), HOUR(S),
 * DAY(S), WEEK(S) (case-insensitive; the PostgreSQL abbreviations us, usec,
 * ms, msec, s, sec, secs, m, min, mins, h, hr, hrs, d, w are accepted too).
 * When unit is NULL (or unit_len 0), num holds the whole string: one or more
 * "n unit" parts ('5 seconds', '1 hour 30 minutes', '1.5h'), optionally a
 * "[-]HH:MM[:SS[.f]]" part ('01:30:00', '1 day 02:00:00'), or a bare number
 * (seconds). Surrounding spaces are ignored. Fractions below 1 µs are
 * truncated. Output µs in *out_us. Returns 0 ok, -1 on bad text or int64
 * overflow. */
int lm_parse_interval(const char *num, size_t num_len, const char *unit,
                      size_t unit_len, int64_t *out_us);
/* Same, and *out_days = the whole days written in day or week units ('1
 * day 02:00:00' -> 1, '36 hours' -> 0, '1.5 days' -> 1, '2 weeks' -> 14):
 * out_us - out_days * LM_US_PER_DAY is the rest. PostgreSQL keeps the two
 * apart, and a TIMESTAMPTZ plus days keeps its local time across a DST
 * change (docs/timezones.md). */
int lm_parse_interval_days(const char *num, size_t num_len, const char *unit,
                           size_t unit_len, int64_t *out_us, int64_t *out_days);

#endif
