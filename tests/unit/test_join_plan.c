/* Unit tests for plan/join_bind.c (lm_plan_join_select) and the notice of
 * laminar_notices: the split of ON into keys, an interval (bounds exact,
 * strict or inclusive, in either operand order, BETWEEN and differences),
 * and a residual; the choice of algorithm; computed and cast keys; USING;
 * RIGHT SEMI as a swapped SEMI; the unbounded-state notice. Relations are
 * hand-made: l and r (k BIGINT, i INT, s VARCHAR, ts TIMESTAMP) with ts as
 * event time, c (a changelog of k BIGINT, v BIGINT), tb (a TABLE). */
#include <stdlib.h>

#include "base/lm_base.h"
#include "laminar.h"
#include "lm_test.h"
#include "plan/lm_plan.h"
#include "sql/lm_sql.h"

#define MS 1000LL
#define SEC 1000000LL

static lm_schema *S4, *S2;

static int resolve(void *ctx, const char *name, int line, int col,
                   lm_rel_info *out, lm_error *err) {
  (void)ctx;
  memset(out, 0, sizeof *out);
  out->time_col = -1;
  if (!strcmp(name, "l") || !strcmp(name, "r")) {
    out->schema = S4;
    out->time_col = 3;
  } else if (!strcmp(name, "n")) { /* no event time */
    out->schema = S4;
  } else if (!strcmp(name, "c")) {
    out->schema = S2;
    out->changelog = true;
  } else if (!strcmp(name, "tb")) {
    out->schema = S2;
    out->changelog = true;
    out->is_table = true;
  } else {
    return lm_err_at(err, LM_ERR_NOTFOUND, line, col, "no relation '%s'", name);
  }
  return 0;
}

/* Plans `sql`; returns the status, *out the plan (caller frees). */
static int plan(const char *sql, bool batch, lm_plan **out, lm_error *err) {
  lm_sql_script *sc = NULL;
  *out = NULL;
  memset(err, 0, sizeof *err);
  int rc = lm_sql_parse(sql, strlen(sql), &sc, err);
  if (rc)
    return rc;
  rc = lm_plan_join_select(sc->stmts[0]->select, resolve, NULL, batch, 0, out,
                           err);
  lm_sql_script_free(sc);
  return rc;
}

static const lm_join_step *step0(const char *sql, lm_plan **p, int line) {
  lm_error e;
  int rc = plan(sql, false, p, &e);
  if (rc) {
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, line, sql, e.msg);
    CHECK(rc == 0);
    return NULL;
  }
  CHECK((*p)->join && (*p)->join->n_steps >= 1);
  return &(*p)->join->steps[0];
}

static void expect_interval(const char *on, int64_t lo, bool ls, int64_t hi,
                            bool hs, bool residual, int line) {
  char sql[600];
  snprintf(sql, sizeof sql, "SELECT l.k FROM l JOIN r ON %s", on);
  lm_plan *p = NULL;
  const lm_join_step *st = step0(sql, &p, line);
  if (st) {
    bool ok = st->algo == LM_PJOIN_INTERVAL && st->lo_us == lo &&
              st->hi_us == hi && st->lo_strict == ls && st->hi_strict == hs &&
              (st->residual != NULL) == residual;
    if (!ok)
      fprintf(stderr,
              "%s:%d: %s: algo %d [%lld%s, %lld%s] residual %d, want [%lld, "
              "%lld]\n",
              __FILE__, line, on, (int)st->algo, (long long)st->lo_us,
              st->lo_strict ? " strict" : "", (long long)st->hi_us,
              st->hi_strict ? " strict" : "", st->residual != NULL,
              (long long)lo, (long long)hi);
    CHECK(ok);
  }
  lm_plan_free(p);
}

static void expect_error(const char *sql, const char *msg, int line) {
  lm_plan *p = NULL;
  lm_error e;
  int rc = plan(sql, false, &p, &e);
  if (rc == 0 || !strstr(e.msg, msg)) {
    fprintf(stderr, "%s:%d: %s: got rc %d \"%s\", want \"%s\"\n", __FILE__,
            line, sql, rc, e.msg, msg);
    CHECK(0);
  }
  lm_plan_free(p);
}

int main(void) {
  S4 = lm_schema_new(4);
  lm_schema_set_field(S4, 0, "k", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(S4, 1, "i", lm_type_make(LM_TYPE_INT32), true);
  lm_schema_set_field(S4, 2, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(S4, 3, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  S2 = lm_schema_new(2);
  lm_schema_set_field(S2, 0, "k", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(S2, 1, "v", lm_type_make(LM_TYPE_INT64), true);

  /* bounds: r.ts - l.ts in [lo, hi] */
  expect_interval("l.k = r.k AND r.ts BETWEEN l.ts - INTERVAL '10' SECOND "
                  "AND l.ts + INTERVAL '5' SECOND",
                  -10 * SEC, false, 5 * SEC, false, false, __LINE__);
  expect_interval("l.k = r.k AND r.ts > l.ts AND r.ts <= l.ts + INTERVAL "
                  "'100' MILLISECOND",
                  0, true, 100 * MS, false, false, __LINE__);
  /* the same, operands the other way round */
  expect_interval("l.k = r.k AND l.ts < r.ts AND l.ts + INTERVAL '100' "
                  "MILLISECOND >= r.ts",
                  0, true, 100 * MS, false, false, __LINE__);
  /* l.ts >= r.ts - 1 s  <=>  r.ts - l.ts <= 1 s; l.ts - 2 s < r.ts */
  expect_interval("l.k = r.k AND l.ts >= r.ts - INTERVAL '1' SECOND AND "
                  "l.ts - INTERVAL '2' SECOND < r.ts",
                  -2 * SEC, true, 1 * SEC, false, false, __LINE__);
  /* differences compared with constants */
  expect_interval("l.k = r.k AND r.ts - l.ts BETWEEN INTERVAL '-50' "
                  "MILLISECOND AND INTERVAL '20' MILLISECOND",
                  -50 * MS, false, 20 * MS, false, false, __LINE__);
  expect_interval("l.k = r.k AND INTERVAL '3' SECOND > l.ts - r.ts AND "
                  "l.ts - r.ts >= INTERVAL '0' SECOND",
                  -3 * SEC, true, 0, false, false, __LINE__);
  /* the tightest of several bounds; a strict one wins a tie */
  expect_interval("l.k = r.k AND r.ts >= l.ts AND r.ts > l.ts AND r.ts <= "
                  "l.ts + INTERVAL '9' SECOND AND r.ts <= l.ts + INTERVAL "
                  "'4' SECOND AND l.s <> r.s",
                  0, true, 4 * SEC, false, true, __LINE__);
  /* a window join: equal event times are a key and the interval [0, 0] */
  {
    lm_plan *p = NULL;
    const lm_join_step *st = step0(
        "SELECT l.k FROM l JOIN r ON l.k = r.k AND l.ts = r.ts", &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_INTERVAL && st->lo_us == 0 &&
          st->hi_us == 0 && st->n_keys == 2 && !st->residual);
    lm_plan_free(p);
  }
  /* keys: a cast to one type, a computed key in a projection */
  {
    lm_plan *p = NULL;
    const lm_join_step *st =
        step0("SELECT * FROM l JOIN r ON l.i = r.k AND upper(l.s) = r.s", &p,
              __LINE__);
    CHECK(st && st->algo == LM_PJOIN_UPDATING && st->n_keys == 2 &&
          !st->residual && st->unbounded);
    if (st) {
      /* l.i cast to BIGINT and upper(l.s): two computed left keys */
      CHECK(st->n_proj[0] == 6 && st->proj_base[0] == 4 &&
            st->keys[0][0] == 4 && st->keys[0][1] == 5);
      CHECK(st->side_schema[0]->fields[4].type.id == LM_TYPE_INT64);
      CHECK(st->n_proj[1] == 0 && st->keys[1][0] == 0 && st->keys[1][1] == 2);
      CHECK(st->out_schema->n_fields == 10);
      /* SELECT * shows the eight visible columns, not the computed keys */
      CHECK(p->n_out == 8);
    }
    lm_plan_free(p);
  }
  /* the residual is bound over [left (with computed keys), right] */
  {
    lm_plan *p = NULL;
    const lm_join_step *st =
        step0("SELECT r.s FROM l LEFT JOIN r ON l.i = r.k AND r.s = 'x'", &p,
              __LINE__);
    CHECK(st && st->residual && st->residual->kind == LM_BX_BINARY &&
          st->residual->args[0]->kind == LM_BX_COLUMN &&
          st->residual->args[0]->col == 5 + 2);
    CHECK(st && st->type == LM_PJOIN_LEFT && st->out_changelog);
    lm_plan_free(p);
  }
  /* algorithms */
  {
    lm_plan *p = NULL;
    const lm_join_step *st;
    st = step0("SELECT * FROM l JOIN c ON l.k = c.k", &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_UPDATING && st->out_changelog &&
          st->side_changelog[1] && !st->unbounded);
    lm_plan_free(p);
    st = step0("SELECT * FROM l LEFT JOIN tb ON l.k = tb.k", &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_LOOKUP && !st->out_changelog &&
          st->time_col[0] == 3);
    lm_plan_free(p);
    st = step0("SELECT * FROM l JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = "
               "r.k",
               &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_TEMPORAL && st->time_col[0] == 3 &&
          st->time_col[1] == 3 && !st->out_changelog);
    lm_plan_free(p);
    st = step0("SELECT * FROM l ASOF JOIN r MATCH_CONDITION(l.ts > r.ts AND "
               "l.ts - r.ts <= INTERVAL '5' SECOND) ON l.k = r.k",
               &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_ASOF && st->asof_dir == 0 &&
          st->asof_strict && st->asof_tolerance_us == 5 * SEC);
    lm_plan_free(p);
    st = step0("SELECT * FROM l ASOF JOIN r MATCH_CONDITION(r.ts >= l.ts) "
               "ON l.k = r.k",
               &p, __LINE__);
    CHECK(st && st->asof_dir == 1 && !st->asof_strict &&
          st->asof_tolerance_us < 0);
    lm_plan_free(p);
    /* a bound between columns without event time is only a residual */
    st = step0("SELECT * FROM l JOIN n ON l.k = n.k AND n.ts BETWEEN l.ts "
               "AND l.ts + INTERVAL '1' SECOND",
               &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_UPDATING && st->residual);
    lm_plan_free(p);
    /* RIGHT SEMI: side 0 is the right input; the bound is mirrored */
    st = step0("SELECT r.s FROM l RIGHT SEMI JOIN r ON l.k = r.k AND r.ts "
               "BETWEEN l.ts AND l.ts + INTERVAL '2' SECOND",
               &p, __LINE__);
    CHECK(st && st->swapped && st->type == LM_PJOIN_SEMI &&
          st->algo == LM_PJOIN_INTERVAL && st->lo_us == -2 * SEC &&
          st->hi_us == 0 && st->out_schema->n_fields == 4);
    lm_plan_free(p);
    /* batch: every ON conjunct is a predicate of an updating join */
    lm_error e;
    CHECK(plan("SELECT * FROM l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts "
               "AND l.ts + INTERVAL '2' SECOND",
               true, &p, &e) == 0);
    CHECK(p && p->join->steps[0].algo == LM_PJOIN_UPDATING &&
          p->join->steps[0].residual && !p->join->steps[0].unbounded);
    lm_plan_free(p);
  }
  /* WHERE conjuncts over both sides of an inner join move into its ON
   * (FROM l, r WHERE ...: keys and bound), the rest stays in WHERE */
  {
    lm_plan *p = NULL;
    const lm_join_step *st =
        step0("SELECT l.k FROM l, r WHERE l.k = r.k AND l.s = 'x' AND r.ts "
              "BETWEEN l.ts AND l.ts + INTERVAL '1' SECOND",
              &p, __LINE__);
    CHECK(st && st->algo == LM_PJOIN_INTERVAL && st->n_keys == 1 &&
          st->lo_us == 0 && st->hi_us == SEC && !st->residual && p->where);
    lm_plan_free(p);
    /* not into a join that a later RIGHT JOIN NULL-pads */
    st = step0("SELECT l.k FROM l JOIN r ON true RIGHT JOIN n ON n.k = r.k "
               "WHERE l.k = r.k",
               &p, __LINE__);
    CHECK(st && st->n_keys == 0 && p->where);
    lm_plan_free(p);
    /* nor into a LEFT join (the WHERE filters its NULL-padded rows) */
    st = step0("SELECT l.k FROM l LEFT JOIN r ON true WHERE l.k = r.k", &p,
               __LINE__);
    CHECK(st && st->n_keys == 0 && p->where);
    lm_plan_free(p);
    /* three inputs: each conjunct to the first join that sees its inputs */
    st = step0("SELECT l.k FROM l, r, n WHERE n.i = r.i AND l.k = r.k", &p,
               __LINE__);
    CHECK(st && st->n_keys == 1 && !p->where && p->join->steps[1].n_keys == 1);
    lm_plan_free(p);
  }
  /* USING: one merged column, first in SELECT * */
  {
    lm_plan *p = NULL;
    const lm_join_step *st =
        step0("SELECT * FROM l JOIN c USING (k)", &p, __LINE__);
    CHECK(st && p->n_out == 5 && !strcmp(p->out_schema->fields[0].name, "k") &&
          !strcmp(p->out_schema->fields[4].name, "v"));
    lm_plan_free(p);
  }
  expect_error("SELECT k FROM l JOIN r ON l.k = r.k",
               "column reference \"k\" is ambiguous", __LINE__);
  expect_error("SELECT q.k FROM l JOIN r ON l.k = r.k",
               "missing FROM-clause entry for table \"q\"", __LINE__);
  expect_error("SELECT * FROM l JOIN r ON l.k = r.k AND r.ts > l.ts AND r.ts "
               "<= l.ts - INTERVAL '1' SECOND",
               "leave no interval", __LINE__);
  expect_error("SELECT * FROM l FULL JOIN tb ON l.k = tb.k",
               "supports only INNER and LEFT", __LINE__);
  expect_error("SELECT * FROM l JOIN nope ON true", "no relation 'nope'",
               __LINE__);

  /* the notice of an unbounded join, through the embedded API */
  laminar_db *db = NULL;
  laminar_error le;
  CHECK(laminar_open(&db, &le) == 0);
  CHECK(laminar_execute(db,
                        "CREATE SOURCE a (k BIGINT); CREATE SOURCE b (k "
                        "BIGINT); CREATE MATERIALIZED VIEW j AS SELECT a.k "
                        "FROM a\n  JOIN b ON a.k = b.k",
                        NULL, &le) == 0);
  CHECK(strstr(laminar_notices(db), "2:3: the join in 'j' is an updating "
                                    "join of two append-only inputs") &&
        strstr(laminar_notices(db), "'state.ttl'"));
  CHECK(laminar_execute(db,
                        "CREATE MATERIALIZED VIEW j2 WITH ('state.ttl' = '1 "
                        "minute') AS SELECT a.k FROM a JOIN b ON a.k = b.k",
                        NULL, &le) == 0);
  CHECK_EQ_STR(laminar_notices(db), "");
  laminar_close(db, NULL);

  lm_schema_release(S4);
  lm_schema_release(S2);
  return lm_test_done("test_join_plan");
}
