/*
 * tests/unit/lm_test_sql.h — helpers for the unit tests that drive the
 * engine through SQL (laminar.h) and compare its rows with a model's:
 * running a statement, a query's rows as text lines, sorted text lines,
 * a time of day as text, and the live rows of a randomized trace.
 * Header-only (every test_*.c is its own executable); include after
 * lm_test.h.
 */
#ifndef LM_TEST_SQL_H
#define LM_TEST_SQL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laminar.h"

/* Runs sql on db (*r receives the result when r is not NULL; free it with
 * laminar_result_free). Returns laminar_execute's code; on an error the
 * statement and the message are printed to stderr. */
static inline int lm_test_exec(laminar_db *db, const char *sql,
                               laminar_result **r) {
  laminar_error e;
  memset(&e, 0, sizeof e);
  int rc = laminar_execute(db, sql, r, &e);
  if (rc)
    fprintf(stderr, "%s: %s\n", sql, e.message);
  return rc;
}

static inline int lm_test_cmp_line(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the '\n'-terminated lines of text (NUL-terminated, at most 65536
 * lines) in place, bytewise. */
static inline void lm_test_sort_lines(char *text) {
  size_t len = strlen(text);
  char *copy = malloc(len + 1);
  char **lp = malloc(sizeof(char *) * 65536);
  if (!copy || !lp) {
    free(copy);
    free(lp);
    return;
  }
  memcpy(copy, text, len + 1);
  int n = 0;
  for (char *p = copy; *p && n < 65536;) {
    lp[n++] = p;
    char *nl = strchr(p, '\n');
    if (!nl)
      break;
    *nl = 0;
    p = nl + 1;
  }
  qsort(lp, (size_t)n, sizeof *lp, lm_test_cmp_line);
  size_t at = 0;
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, len + 1 - at, "%s\n", lp[i]);
  free(lp);
  free(copy);
}

/* The rows of query sql on db as text lines (the first ncols columns,
 * separated by '|', NULL as "NULL", each row ending in '\n') into out
 * (cap bytes, NUL-terminated; truncated when full); sorted bytewise when
 * `sort`. out is "" when the query fails (the error is printed). */
static inline void lm_test_query_lines(laminar_db *db, const char *sql,
                                       int ncols, bool sort, char *out,
                                       size_t cap) {
  laminar_result *r = NULL;
  size_t len = 0;
  out[0] = 0;
  if (lm_test_exec(db, sql, &r))
    return;
  for (int64_t i = 0; i < laminar_result_num_rows(r); i++)
    for (int c = 0; c < ncols && len < cap; c++) {
      const char *t = laminar_result_value_text(r, i, c);
      len += (size_t)snprintf(out + len, cap - len, "%s%c", t ? t : "NULL",
                              c == ncols - 1 ? '\n' : '|');
    }
  laminar_result_free(r);
  if (sort)
    lm_test_sort_lines(out);
}

/* "1970-01-01<sep>HH:MM:SS" for s seconds after the epoch (0 <= s <
 * 86400 * 100), into buf (n bytes). */
static inline void lm_test_ts_text(char *buf, size_t n, int64_t s, char sep) {
  snprintf(buf, n, "1970-01-01%c%02d:%02d:%02d", sep, (int)(s / 3600),
           (int)(s / 60 % 60), (int)(s % 60));
}

/* A row of a randomized changelog trace: key k, time t (seconds), value
 * v, and whether it is still live (inserted and not retracted). */
typedef struct lm_test_row {
  int k;
  int64_t t, v;
  bool live;
} lm_test_row;

/* The number of live rows among rows[0..n). */
static inline int lm_test_live(const lm_test_row *rows, int n) {
  int live = 0;
  for (int i = 0; i < n; i++)
    live += rows[i].live;
  return live;
}

/* The index of the pick-th (0-based) live row of rows[0..n); pick must be
 * below lm_test_live(rows, n). */
static inline int lm_test_nth_live(const lm_test_row *rows, int n, int pick) {
  int i = 0;
  for (; i < n; i++)
    if (rows[i].live && pick-- == 0)
      break;
  return i;
}

#endif
