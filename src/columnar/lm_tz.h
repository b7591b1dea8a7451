/*
 * columnar/lm_tz.h — time zones: a reader of the tz database's TZif files
 * (RFC 8536, versions 1-4, with the footer's POSIX TZ string for instants
 * after the last transition), POSIX TZ strings, fixed offsets, a process-
 * wide cache of loaded zones, and the conversions TIMESTAMPTZ needs (UTC
 * instant <-> local wall-clock time, PostgreSQL's rule for local times that
 * do not exist or exist twice, PostgreSQL's text forms). docs/timezones.md.
 *
 * Units: an instant is int64 µs since 1970-01-01T00:00:00 UTC; a "local"
 * time is int64 µs since 1970-01-01T00:00:00 of the zone's wall clock (the
 * same encoding as a TIMESTAMP without time zone); offsets are int32
 * seconds EAST of Greenwich (+3600 for Europe/Berlin in winter).
 */
#ifndef LM_TZ_H
#define LM_TZ_H

#include "base/lm_base.h"
#include "columnar/lm_temporal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A zone: immutable after creation. Zones returned by lm_tz_lookup and
 * lm_tz_utc live until the process ends (cached; never freed), so a
 * pointer may be stored anywhere (bound expressions, results). */
typedef struct lm_tz lm_tz;

/* Decodes a TZif file held in data[0, len) (untrusted bytes: every count
 * and index is checked against len and the header). name (NUL-terminated,
 * copied) labels the zone. On success *out is a new zone owned by the
 * caller (free with lm_tz_free). Errors: LM_ERR_PARSE with the byte offset
 * of the problem ("TZif: byte 44: transition times not ascending"),
 * LM_ERR_NOMEM. Leap-second records (the right/ zones) are refused
 * (LM_ERR_PARSE). */
int lm_tzif_parse(const uint8_t *data, size_t len, const char *name,
                  lm_tz **out, lm_error *err);

/* Parses a POSIX TZ string s[0, len) ("EST5EDT,M3.2.0,M11.1.0",
 * "<+0530>-5:30", "UTC+3": note that POSIX offsets count hours WEST of
 * Greenwich, so "UTC+3" is three hours behind UTC). As PostgreSQL, the
 * zone names may be empty or short ("+05:30" is UTC-05:30) and a zone with
 * a DST name but no rule uses the US rule M3.2.0,M11.1.0. *out owned by
 * the caller. Errors: LM_ERR_PARSE (the byte offset), LM_ERR_NOMEM. */
int lm_tz_parse_posix(const char *s, size_t len, const char *name, lm_tz **out,
                      lm_error *err);

/* Frees a zone from lm_tzif_parse / lm_tz_parse_posix (never a cached
 * one). NULL is ignored. */
void lm_tz_free(lm_tz *z);

/* The zone named `name` (NUL-terminated), as PostgreSQL's SET TIME ZONE
 * resolves it: a number of hours ("5.5", "-3": an ISO offset, east
 * positive), else a tz database file under $TZDIR or /usr/share/zoneinfo
 * matched case-insensitively ("europe/berlin" is Europe/Berlin), else a
 * POSIX TZ string. The zone's name (lm_tz_name) is PostgreSQL's SHOW
 * TimeZone text ("Europe/Berlin", "<+05:30>-05:30", "UTC+3"). Loaded zones
 * are cached for the process (thread-safe). Errors: LM_ERR_INVALID
 * `invalid value for parameter "TimeZone": "x"` (SQLSTATE 22023) when
 * nothing matches; LM_ERR_LIMIT after 4096 distinct names; LM_ERR_NOMEM. */
int lm_tz_lookup(const char *name, const lm_tz **out, lm_error *err);

/* The zone of an AT TIME ZONE / timezone() / date_trunc() zone argument:
 * as lm_tz_lookup but, as PostgreSQL, a number is a POSIX TZ string
 * ('-3' is three hours EAST, '+05:30' is UTC-05:30). Same errors. */
int lm_tz_lookup_at(const char *name, const lm_tz **out, lm_error *err);

/* The UTC zone (name "UTC"); never NULL. */
const lm_tz *lm_tz_utc(void);
/* The zone's name (see lm_tz_lookup). */
const char *lm_tz_name(const lm_tz *z);

/* Offset (seconds east) in effect at the instant utc_s (seconds since the
 * epoch); *is_dst and *abbrev (a static-lifetime string owned by the zone,
 * "CET", "+0530"...) when non-NULL. */
int32_t lm_tz_offset_at(const lm_tz *z, int64_t utc_s, bool *is_dst,
                        const char **abbrev);
/* Local wall-clock µs of the instant utc_us in z. */
int64_t lm_tz_to_local(const lm_tz *z, int64_t utc_us);
/* The instant of the local wall-clock time local_us in z, by PostgreSQL's
 * rule (DetermineTimeZoneOffset): a time inside a spring-forward gap is
 * read with the offset before the change (02:30 in New York on 2024-03-10
 * is 07:30 UTC, shown 03:30-04), an ambiguous time in a fall-back overlap
 * with the offset after it (01:30 on 2024-11-03 is 01:30-05). *offset_s
 * (when non-NULL) gets the offset used. */
int64_t lm_tz_from_local(const lm_tz *z, int64_t local_us, int32_t *offset_s);

/* Writes a TIMESTAMPTZ value as PostgreSQL prints it in zone z (ISO
 * DateStyle): "2024-01-01 12:00:00+01", "...12:00:00.5+05:30",
 * "1800-01-01 00:00:00-04:56:02". buf needs >= 48 bytes; NUL-terminated;
 * returns the length. */
int lm_tz_format(int64_t utc_us, const lm_tz *z, char *buf);
/* Appends an offset as PostgreSQL prints it: "+01", "+05:30", "-04:56:02";
 * buf >= 16 bytes; returns the length. */
int lm_tz_format_offset(int32_t off_s, char *buf);

/* Parses TIMESTAMPTZ text s[0, len) as PostgreSQL's timestamptz_in (ISO
 * forms, lm_dt_parse in lm_temporal.h: unpadded fields, 'T', BC, 24:00:00,
 * :60, fractions rounded to µs), then the zone: Z, an ISO offset (+05,
 * +0530, +05:30, -08:00:15), one of PostgreSQL's default abbreviations
 * (EST, PST, CEST, IST, MSK...: a fixed offset, or the zone's offset for
 * the dynamic ones), a tz database name matched case-insensitively
 * (Europe/Berlin, EST5EDT, Japan) or a POSIX TZ string (UTC+3: three hours
 * WEST). Without a zone the time is local to `session` (by
 * lm_tz_from_local's rule). Result: the UTC instant in *out_us. Returns 0
 * or an LM_DT_* code (< 0; lm_dt_message writes PostgreSQL's message):
 * LM_DT_BAD_FORMAT (22007; also an unknown all-letters zone),
 * LM_DT_FIELD_OVERFLOW (22008), LM_DT_TZDISP_OVERFLOW (22009, `+16`),
 * LM_DT_BAD_ZONE (22023, an unknown name with punctuation),
 * LM_DT_OUT_OF_RANGE (22008, outside 4714-11-24 BC .. 294276 AD). */
int lm_tz_parse_timestamptz(const char *s, size_t len, const lm_tz *session,
                            int64_t *out_us);

/* The value of a special word f->special (lm_dt_parse: epoch, infinity,
 * -infinity, now, today / tomorrow / yesterday [time]) as a timestamp:
 * *out_us is a UTC instant, or (local) a wall-clock time in z ('now' is
 * lm_dt_now_us(); 'today' is midnight of its date in z, or the time that
 * follows). Infinity is LM_TS_INFINITY whatever z. Returns 0 or
 * LM_DT_BAD_FORMAT (allballs, which only TIME reads). */
int lm_tz_special(const lm_dt_text *f, const lm_tz *z, bool local,
                  int64_t *out_us);

/* TIMESTAMP (without time zone) text as PostgreSQL's timestamp_in reads
 * it: lm_dt_parse's forms and special words ('now' and 'today' in zone
 * `session`); a zone in the text is checked (as lm_tz_parse_timestamptz
 * resolves it) and then IGNORED: '2024-01-01 10:00:00+05' is 10:00.
 * Result: the wall-clock µs in *out_us. Returns 0 or an LM_DT_* code, as
 * lm_tz_parse_timestamptz. */
int lm_tz_parse_timestamp(const char *s, size_t len, const lm_tz *session,
                          int64_t *out_us);

/* The session zone of the calling thread: the engine sets it around each
 * statement (laminar_execute) from its SET TIME ZONE state; the binder
 * reads it when it types zone-dependent expressions. Default (never set):
 * UTC. */
const lm_tz *lm_tz_session(void);
/* Sets it (NULL = UTC); returns the previous one. */
const lm_tz *lm_tz_session_set(const lm_tz *z);

#endif
