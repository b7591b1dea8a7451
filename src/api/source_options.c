/* The options a CREATE SOURCE / CREATE TABLE ... FROM FILES or GENERATOR
 * accepts: any other key is refused at its place with a "did you mean"
 * hint, as Flink refuses unsupported options, rather than silently ignored
 * (a misspelt 'mdoe' would otherwise read in the default mode). NEXMARK
 * checks its own options (connectors/nexmark.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "api/engine.h"

static const char *const files_keys[] = {"path",
                                         "mode",
                                         "format",
                                         "csv.delimiter",
                                         "csv.header",
                                         "on-error",
                                         "dead-letter",
                                         "watermark.max.skew.ms",
                                         "idle.timeout.ms",
                                         NULL};
static const char *const table_keys[] = {
    "path", "mode", "format", "csv.delimiter", "csv.header", "on-error", NULL};
static const char *const gen_keys[] = {
    "rows.per.second",       "max.rows",        "batch.max.size",
    "watermark.max.skew.ms", "idle.timeout.ms", NULL};

/* Edit distance (insert, delete, substitute, swap of neighbours) between
 * a and b, case-insensitively; capped at 9 for long strings. */
static int distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 60 || m > 60)
    return 9;
  int d[62][62];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int ca = tolower((unsigned char)a[i - 1]);
      int cb = tolower((unsigned char)b[j - 1]);
      int v = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < v)
        v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v)
        v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

int lm_source_options_check(const lm_stmt *st, bool table, lm_error *err) {
  if (!st->connector)
    return 0;
  const char *const *keys;
  if (!lm_strcasecmp(st->connector, "FILES"))
    keys = table ? table_keys : files_keys;
  else if (!lm_strcasecmp(st->connector, "GENERATOR"))
    keys = gen_keys;
  else
    return 0;
  for (int i = 0; i < st->n_options; i++) {
    const lm_option *o = &st->options[i];
    bool known = false;
    for (int k = 0; keys[k] && !known; k++)
      known = !lm_strcasecmp(o->key, keys[k]);
    if (known)
      continue;
    const char *best = NULL;
    int bd = 3;
    for (int k = 0; keys[k]; k++) {
      int dk = distance(o->key, keys[k]);
      if (dk < bd && dk * 3 <= (int)strlen(keys[k]))
        bd = dk, best = keys[k];
    }
    if (strstr(o->key, "ignore-parse-errors") && !table)
      best = "on-error"; /* Flink's name for skipping bad rows */
    lm_buf m;
    lm_buf_init(&m);
    lm_buf_printf(&m, "unknown %s option '%s'", st->connector, o->key);
    if (best)
      lm_buf_printf(&m, " (did you mean '%s'?)", best);
    lm_buf_printf(&m, "; %s %s take:", st->connector,
                  table ? "tables" : "sources");
    for (int k = 0; keys[k]; k++)
      lm_buf_printf(&m, "%s '%s'", k ? "," : "", keys[k]);
    int rc = lm_engine_pos_err(err, LM_ERR_BIND, o->line, o->column,
                               m.data ? m.data : "unknown option");
    lm_buf_free(&m);
    return rc;
  }
  return 0;
}
