/* err_probe — prints what laminar_execute reports for each statement, for
 * tests/cases/errors_pg.sh (the comparison with PostgreSQL 15's errors).
 *
 *   err_probe SETUP.sql STATEMENTS.txt
 *
 * STATEMENTS.txt holds statements separated by lines that are exactly
 * ";;". Each statement runs in a fresh in-memory database after SETUP.sql
 * (one laminar_execute); a statement holding the byte 0x1E runs the text
 * before it first (which must succeed), then the text after it. One output line
 * per statement, fields separated by the byte 0x1F: rc, line, column, sqlstate,
 * message, detail (rc is laminar_execute's return code, 0 on success; line and
 * column are 1-based, 0 when the error has no position; newlines in the message
 * are printed as "\n"). Exit status 0, or 2 when a file cannot be read or the
 * setup fails. */
#include "laminar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (!b)
      break;
    size_t got = fread(b + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
    if (n + 1 == cap) {
      char *nb = realloc(b, cap * 2);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (b)
    b[n] = 0;
  return b;
}

static void put_text(const char *s) {
  for (; *s; s++) {
    if (*s == '\n')
      fputs("\\n", stdout);
    else
      putchar(*s);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: err_probe SETUP.sql STATEMENTS.txt\n");
    return 2;
  }
  char *setup = slurp(argv[1]), *all = slurp(argv[2]);
  if (!setup || !all) {
    fprintf(stderr, "err_probe: cannot read the input files\n");
    free(setup);
    free(all);
    return 2;
  }
  int status = 0;
  char *p = all;
  while (p && *p) {
    char *end = strstr(p, "\n;;\n");
    if (end)
      *end = 0;
    laminar_db *db = NULL;
    laminar_error err;
    memset(&err, 0, sizeof err);
    if (laminar_open(&db, &err) || laminar_execute(db, setup, NULL, &err)) {
      fprintf(stderr, "err_probe: setup failed: %s\n", err.message);
      laminar_close(db, NULL);
      status = 2;
      break;
    }
    char *stmt = strchr(p, '\x1e');
    if (stmt) {
      *stmt++ = 0;
      if (laminar_execute(db, p, NULL, &err)) {
        fprintf(stderr, "err_probe: pre failed: %s\n", err.message);
        laminar_close(db, NULL);
        status = 2;
        break;
      }
    } else {
      stmt = p;
    }
    memset(&err, 0, sizeof err);
    laminar_result *res = NULL;
    int rc = laminar_execute(db, stmt, &res, &err);
    laminar_result_free(res);
    printf("%d\x1f%d\x1f%d\x1f%s\x1f", rc, rc ? err.line : 0,
           rc ? err.column : 0, rc ? err.sqlstate : "");
    put_text(rc ? err.message : "");
    putchar('\x1f');
    put_text(rc ? err.detail : "");
    putchar('\n');
    laminar_close(db, NULL);
    p = end ? end + 4 : NULL;
  }
  free(setup);
  free(all);
  return status;
}
