/* fuzz/fuzz_datefmt_parser.c — libFuzzer target for the to_char /
 * to_timestamp / to_date template parsers (exec/expr_datefn.c: the
 * date/time templates, the interval templates and NUM_processor's numeric
 * templates; to_number's (exec/expr_fn5.c) and the uuid reader; they are
 * static there, so this target reaches them through
 * SQL with the public API, include/laminar.h). The input is a template,
 * optionally followed by a byte 0x01 and the text to_timestamp / to_date
 * read with it; a NUL ends it (SQL text). Every statement must either
 * answer or fail with a SQLSTATE, never crash. Seeds: fuzz/corpus/datefmt/.
 */
#include "laminar.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static laminar_db *db;

/* Appends s[0..n) as a standard-conforming SQL string literal. */
static size_t put_lit(char *o, const char *s, size_t n) {
  size_t k = 0;
  o[k++] = '\'';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'')
      o[k++] = '\'';
    o[k++] = s[i];
  }
  o[k++] = '\'';
  o[k] = '\0';
  return k;
}

static void run(const char *head, const char *a, const char *mid, const char *b,
                const char *tail) {
  size_t n =
      strlen(head) + strlen(a) + strlen(mid) + strlen(b) + strlen(tail) + 1;
  char *sql = malloc(n);
  if (!sql)
    return;
  snprintf(sql, n, "%s%s%s%s%s", head, a, mid, b, tail);
  laminar_result *r = NULL;
  laminar_error err;
  int rc = laminar_execute(db, sql, &r, &err);
  if (rc == 0) {
    if (!r || laminar_result_num_rows(r) != 1)
      __builtin_trap(); /* one row, one value */
    (void)laminar_result_value_text(r, 0, 0);
  } else if (strlen(err.sqlstate) != 5) {
    __builtin_trap(); /* every error has a SQLSTATE */
  }
  laminar_result_free(r);
  free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256)
    return 0; /* templates are short; keep every statement cheap */
  if (!db) {
    laminar_error err;
    if (laminar_open(&db, &err))
      __builtin_trap();
  }
  size_t end = 0;
  while (end < size && data[end])
    end++;
  const char *s = (const char *)data;
  const char *sep = memchr(s, 1, end);
  size_t fl = sep ? (size_t)(sep - s) : end;
  char fmt[520], txt[520];
  put_lit(fmt, s, fl);
  if (sep)
    put_lit(txt, sep + 1, end - fl - 1);
  else
    put_lit(txt, "2024-03-05 13:04:05", 19);

  run("SELECT to_char(TIMESTAMP '2024-03-05 13:04:05.123456', ", fmt, "", "",
      ")");
  run("SELECT to_char(TIMESTAMPTZ '0044-02-28 23:59:59.5+02 BC', ", fmt, "", "",
      ")");
  run("SELECT to_char(DATE '2021-01-03', ", fmt, "", "", ")");
  run("SELECT to_char(INTERVAL '-3 days 04:05:06.789', ", fmt, "", "", ")");
  run("SELECT to_char(12345.678::numeric(12,3), ", fmt, "", "", ")");
  run("SELECT to_char(-0.000512::float8, ", fmt, "", "", ")");
  run("SELECT to_char((-9223372036854775807 - 1)::bigint, ", fmt, "", "", ")");
  run("SELECT to_char(123456789012345678901234567890.12345678::numeric, ", fmt,
      "", "", ")");
  run("SELECT to_timestamp(", txt, ", ", fmt, ")");
  run("SELECT to_date(", txt, ", ", fmt, ")");
  run("SELECT to_number(", txt, ", ", fmt, ")"); /* exec/expr_fn5.c */
  run("SELECT to_number('-1,234.5', ", fmt, "", "", ")");
  run("SELECT CAST(", txt, " AS uuid)", "", ""); /* uuid_in */
  return 0;
}
