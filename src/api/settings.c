/* api/settings.c — session settings: SET / RESET / SHOW timezone
 * (docs/timezones.md). PostgreSQL's spellings: SET TIME ZONE 'x', SET
 * timezone TO 'x', SET timezone = 'x', SET TIME ZONE LOCAL | DEFAULT,
 * RESET timezone, SHOW TIME ZONE, SHOW timezone. */
#include "api/engine.h"

#include <stdio.h>
#include <strings.h>

static bool is_tz_name(const char *n) {
  return n && (!strcasecmp(n, "timezone") || !strcasecmp(n, "time zone"));
}

int lm_engine_setting(laminar_db *db, const lm_stmt *st, laminar_result **res,
                      lm_error *err) {
  if (!is_tz_name(st->name)) {
    char m[300];
    snprintf(m, sizeof m, "unrecognized configuration parameter \"%.200s\"",
             st->name ? st->name : "");
    lm_engine_pos_err(err, LM_ERR_NOTFOUND, st->line, st->column, m);
    return lm_err_state(err, "42704");
  }
  if (st->kind == LM_STMT_SHOW_VAR) {
    const char *names[1] = {"TimeZone"};
    const char *cells[1] = {lm_tz_name(db->tz ? db->tz : lm_tz_utc())};
    *res = lm_engine_text_result(names, 1, cells, 1);
    return *res ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (!st->set_value) { /* DEFAULT, LOCAL, RESET: the default, UTC */
    db->tz = NULL;
    lm_tz_session_set(NULL);
    return 0;
  }
  const lm_tz *z;
  lm_error e2;
  int rc = lm_tz_lookup(st->set_value, &z, &e2);
  if (rc) {
    lm_engine_pos_err(err, rc, st->line, st->column, e2.msg);
    if (e2.detail[0]) /* "UTC timezone offset is out of range." */
      lm_err_detail(err, "%s", e2.detail);
    return lm_err_state(err, e2.sqlstate[0] ? e2.sqlstate : "22023");
  }
  db->tz = z;
  lm_tz_session_set(z);
  return 0;
}
