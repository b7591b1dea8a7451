/*
 * columnar/lm_temporal.h — calendar arithmetic, timestamp text and SQL
 * interval parsing. Timestamps are int64 µs since 1970-01-01T00:00:00 UTC
 * (proleptic Gregorian calendar); intervals are int64 µs.
 */
#ifndef LM_TEMPORAL_H
#define LM_TEMPORAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LM_US_PER_SEC INT64_C(1000000)
#define LM_US_PER_MIN (INT64_C(60) * LM_US_PER_SEC)
#define LM_US_PER_HOUR (INT64_C(60) * LM_US_PER_MIN)
#define LM_US_PER_DAY (INT64_C(24) * LM_US_PER_HOUR)

/* Outcomes of the date/time text readers below, as PostgreSQL's
 * DateTimeParseError reports them (lm_dt_message writes the message). */
enum {
  LM_DT_BAD_FORMAT = -1,      /* 22007 invalid input syntax for type T: "x" */
  LM_DT_FIELD_OVERFLOW = -2,  /* 22008 date/time field value out of range */
  LM_DT_TZDISP_OVERFLOW = -3, /* 22009 time zone displacement out of range */
  LM_DT_BAD_ZONE = -4,        /* 22023 time zone "z" not recognized */
  LM_DT_OUT_OF_RANGE = -5,    /* 22008 timestamp (date) out of range: "x" */
};

enum { LM_DT_ZONE_NONE = 0, LM_DT_ZONE_OFFSET, LM_DT_ZONE_NAME };

/* PostgreSQL's special date/time words (lm_dt_text.special). */
enum {
  LM_DT_SPECIAL_NONE = 0,
  LM_DT_SPECIAL_EPOCH,        /* 'epoch': 1970-01-01 00:00:00 (UTC) */
  LM_DT_SPECIAL_INFINITY,     /* 'infinity' */
  LM_DT_SPECIAL_NEG_INFINITY, /* '-infinity' */
  LM_DT_SPECIAL_NOW,          /* 'now': the statement's wall clock */
  LM_DT_SPECIAL_TODAY,        /* 'today' [time]: midnight (or the time) */
  LM_DT_SPECIAL_TOMORROW,     /* 'tomorrow' [time] */
  LM_DT_SPECIAL_YESTERDAY,    /* 'yesterday' [time] */
  LM_DT_SPECIAL_ALLBALLS,     /* 'allballs': TIME 00:00:00 */
};

/* PostgreSQL's infinite TIMESTAMP / TIMESTAMPTZ (INT64 max / min µs) and
 * DATE (INT32 max / min days): they print as "infinity" / "-infinity",
 * compare above / below every finite value, and stay themselves through
 * ± interval, date_trunc, AT TIME ZONE and casts between the three types. */
#define LM_TS_INFINITY INT64_MAX
#define LM_TS_NEG_INFINITY INT64_MIN
#define LM_DATE_INFINITY INT64_C(2147483647)
#define LM_DATE_NEG_INFINITY (-INT64_C(2147483647) - 1)
static inline bool lm_ts_finite(int64_t us) {
  return us != LM_TS_INFINITY && us != LM_TS_NEG_INFINITY;
}
static inline bool lm_date_finite(int64_t days) {
  return days != LM_DATE_INFINITY && days != LM_DATE_NEG_INFINITY;
}

/* The wall clock (CLOCK_REALTIME) as µs since the Unix epoch, fixed for
 * the statement running on this thread when lm_dt_statement_begin was
 * called (PostgreSQL's 'now' is the transaction's start), else read at
 * each call. lm_dt_statement_begin(0) ends the statement's clock. */
int64_t lm_dt_now_us(void);
void lm_dt_statement_begin(int64_t now_us);
/* The wall clock (CLOCK_REALTIME) in µs since the Unix epoch, read at
 * every call whatever the statement clock (clock_timestamp()). */
int64_t lm_dt_clock_us(void);

/* The fields of a date/time text, as lm_dt_parse reads them. */
typedef struct lm_dt_text {
  bool has_date, has_time;
  int64_t days;          /* the date: days since 1970-01-01 (BC applied) */
  int64_t time_us;       /* the time of day, µs, 0 .. 24:00:00 plus at most a
                            second (23:59:60.5 is 86400.5 s: the caller rolls it
                            over, as PostgreSQL does) */
  int zone;              /* LM_DT_ZONE_* */
  int32_t offset_s;      /* LM_DT_ZONE_OFFSET: seconds EAST of Greenwich */
  const char *zone_name; /* LM_DT_ZONE_NAME: the name's span in the input */
  size_t zone_len;
  bool zone_punct; /* the name holds '/', '+', '-', digits...: an unknown
                      one is LM_DT_BAD_ZONE, an all-letters one BAD_FORMAT */
  int special;     /* LM_DT_SPECIAL_*: then has_date is false (has_time may
                      be set after today / tomorrow / yesterday) */
  char norm[160];  /* the text rewritten in ISO form (month names, ISO
                      basic, M/D/Y: zone_name may point here) */
} lm_dt_text;

/* Reads PostgreSQL's date/time text s[0, len) (spaces around ignored).
 * First the forms PostgreSQL reads with DateStyle ISO, MDY, which are
 * rewritten into the ISO form below: a month name or its abbreviation
 * (`Jan 5 2024`, `5 January 2024`, `2024-Jan-05`, `January 5, 2024`,
 * `05-Jan-24`: the other numbers are the day, then the year; a year of 1-2
 * digits is 1970-2069 unless BC) and day names before it (ignored);
 * `M/D/Y`, `M-D-Y`, `M.D.Y` and `Y/M/D`, `Y.M.D` (a year of 3+ digits
 * first); ISO 8601 basic `YYYYMMDD` and `YYMMDD`, and a time `HHMMSS[.f]`
 * or `HHMM` after a `T` or a space; the whole-text words epoch, infinity,
 * -infinity, now, allballs, and today / tomorrow / yesterday optionally
 * followed by a time (out->special). Then the ISO form: an optional date
 * `Y-M-D` (year of 3 or more digits, month and
 * day of 1-2 digits), then, after one or more spaces or a `T`, an optional
 * time `H:M[:S[.f]]` (1-2 digits each; 24:00:00 and a leap second :60 are
 * fields in range; a fraction ('.' or ISO 8601's ',', which PostgreSQL
 * refuses) is rounded to µs as PostgreSQL rounds it:
 * rint(strtod(".f") * 10^6)), then in any order, separated by spaces or
 * not: an era `BC` / `AD`, `AM` / `PM` after a time of hours 1-12, and one
 * zone: `Z`, an ISO offset (`+5`, `+05`,
 * `+0530`, `+05:30`, `-08:00:15`; east positive; hours 0-15), or a name
 * (letters, or letters then `/ + - _ . :` and digits: `EST`,
 * `America/New_York`, `EST5EDT`, `UTC+3`) left for the caller to resolve.
 * Returns 0 and fills *out, or LM_DT_BAD_FORMAT, LM_DT_FIELD_OVERFLOW
 * (month 13, day 30 of February, hour 25, minute 60, second 61, year 0,
 * 24:00:01), LM_DT_TZDISP_OVERFLOW (`+16`). Years are 1..999999999
 * (AD or BC); the type's own range is the caller's. */
int lm_dt_parse(const char *s, size_t len, lm_dt_text *out);

/* PostgreSQL's message and SQLSTATE for the outcome rc (< 0) of reading
 * the text s[0, len) as `type_name` ("timestamp", "timestamp with time
 * zone", "date", "time"): written to buf (cap bytes, NUL-terminated; the
 * text is cut at 60 bytes); *sqlstate gets a static 5-char code. */
void lm_dt_message(int rc, const char *type_name, const char *s, size_t len,
                   char *buf, size_t cap, const char **sqlstate);

/* Days since 1970-01-01 of PostgreSQL's first and (one past the) last day
 * of a timestamp: 4714-11-24 BC and 294277-01-01 — but Laminar's int64 µs
 * since 1970 end in 294247, so a timestamp ends (with a day of margin for
 * zone offsets) at 294247-01-08; of a date: 4714-11-24 BC and
 * 5874898-01-01. */
#define LM_DT_MIN_DAYS INT64_C(-2440588)
#define LM_TS_END_DAYS INT64_C(106751989)
#define LM_DATE_END_DAYS INT64_C(2145042906)

/* Parses a timestamp from s[0, len) (no NUL needed) with lm_dt_parse: a
 * date, optionally a time (RFC 3339 "2001-01-01T00:01:00Z" and
 * "YYYY-MM-DD HH:MM:SS[.f]", unpadded fields, BC, 24:00:00 and :60 rolling
 * over), and optionally a zone: an offset, Z, UTC or GMT are applied (the
 * result is the UTC instant); another zone name is LM_DT_BAD_FORMAT. No
 * zone = UTC. Result: µs since the Unix epoch in *out_us. Returns 0 ok,
 * else an LM_DT_* code (< 0): LM_DT_BAD_FORMAT when the text does not
 * parse, LM_DT_FIELD_OVERFLOW / LM_DT_TZDISP_OVERFLOW for a field out of
 * range, LM_DT_OUT_OF_RANGE outside PostgreSQL's timestamp range. */
int lm_parse_timestamp(const char *s, size_t len, int64_t *out_us);

/* DATE text as PostgreSQL's date_in reads it: lm_dt_parse with a date; a
 * time or zone is ignored. *out_days: days since 1970-01-01. Returns 0 or
 * an LM_DT_* code (LM_DT_OUT_OF_RANGE outside 4714-11-24 BC ..
 * 5874897-12-31). */
int lm_parse_date(const char *s, size_t len, int64_t *out_days);

/* Writes "YYYY-MM-DD<sep>HH:MM:SS" plus ".ffffff" (always 6 digits) when
 * the sub-second part is nonzero, then " BC" for years before 1 AD (year
 * 0 is 1 BC, as PostgreSQL prints it), then a NUL. Returns the number of
 * chars written excluding the NUL. buf needs >= 40 bytes. sep is 'T' or
 * ' '. Correct for negative (pre-1970) values (floor division); years
 * above 9999 have as many digits as needed. */
int lm_format_timestamp(int64_t us, char sep, char *buf);

/* Writes the date `days` (since 1970-01-01) as "YYYY-MM-DD[ BC]", NUL-
 * terminated; buf >= 24 bytes; returns the length. */
int lm_format_date(int64_t days, char *buf);

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
 * rounded as PostgreSQL rounds them (a clock part's seconds: rint; a
 * number with a unit: the µs truncated, then the rest rint-ed). Output µs in
 * *out_us. Returns 0 ok, -1 on bad text or int64 overflow. */
/* Whether interval text s[0, len) names years, months, decades,
 * centuries or millennia ("1 year 2 mons", "3 months"): Laminar's INTERVAL
 * (a count of µs) cannot hold them, and the readers refuse such text; the
 * callers say why (SQLSTATE 0A000, docs/functions.md). */
bool lm_interval_has_months(const char *s, size_t len);
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
