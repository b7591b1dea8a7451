/*
 * Subquery expressions in ad-hoc SELECT: the hooks through which the
 * binder plans a subquery and the evaluator runs it (lm_subq_hooks,
 * plan/lm_plan.h), and the statement-scoped environment that owns the
 * subplans (and their caches) created while planning one statement.
 *
 * A subquery is planned (and, when uncorrelated, run once: its InitPlan
 * rows are cached) with lm_engine_select while the enclosing query is
 * bound, which registers its outer references as parameters. A correlated
 * subquery is run again, re-planned with its outer references resolved to
 * the parameter slots, for each distinct tuple of parameter values.
 */
#include <stdlib.h>

#include "api/engine.h"
#include "exec/lm_exec.h"

struct lm_subq_env {
  laminar_db *db;
  lm_subplan **sps; /* owned, with their caches */
  int n, cap;
  lm_subq_hooks hooks;
  const lm_subq_hooks *prev;
};

static lm_subplan *env_new_subplan(void *ctx) {
  lm_subq_env *env = ctx;
  if (env->n == env->cap) {
    int cap = env->cap ? env->cap * 2 : 8;
    lm_subplan **n = realloc(env->sps, sizeof *n * (size_t)cap);
    if (!n)
      return NULL;
    env->sps = n;
    env->cap = cap;
  }
  lm_subplan *sp = calloc(1, sizeof *sp);
  if (sp)
    env->sps[env->n++] = sp;
  return sp;
}

/* The result of sel as one batch (*out, a new reference). */
static int select_batch(laminar_db *db, const lm_select *sel, lm_batch **out,
                        lm_schema **schema, lm_error *err) {
  laminar_result *r = NULL;
  int rc = lm_engine_select(db, sel, &r, err);
  if (!rc)
    rc = lm_batch_concat(r->schema, r->batches, r->n_batches, out, err);
  if (!rc && schema)
    *schema = lm_schema_retain(r->schema);
  if (r)
    laminar_result_free(r);
  return rc;
}

static int env_prepare(void *ctx, lm_subplan *sp, lm_schema **schema,
                       lm_error *err) {
  lm_subq_env *env = ctx;
  lm_batch *rows = NULL;
  int64_t hits = lm_subq_dry_hits();
  lm_subq_dry(+1); /* the subqueries it holds are not run now */
  lm_xt_next_role(LM_XT_SUBPLAN_PREPARE, NULL, sp); /* EXPLAIN's trace */
  int rc = select_batch(env->db, sp->sel, &rows, schema, err);
  lm_subq_dry(-1);
  /* uncorrelated and exact: these are its rows (its InitPlan) */
  if (!rc && sp->n_params == 0 && lm_subq_dry_hits() == hits)
    rc = lm_subplan_prime(sp, rows, err);
  lm_batch_release(rows);
  if (rc && *schema) {
    lm_schema_release(*schema);
    *schema = NULL;
  }
  return rc;
}

static int env_run(void *ctx, lm_subplan *sp, lm_batch **out, lm_error *err) {
  lm_subq_env *env = ctx;
  lm_plan_subq_run_enter(sp);
  lm_xt_next_role(LM_XT_SUBPLAN_RUN, NULL, sp); /* EXPLAIN's trace */
  int rc = select_batch(env->db, sp->sel, out, NULL, err);
  lm_plan_subq_run_leave();
  return rc;
}

lm_subq_env *lm_engine_subq_enter(laminar_db *db) {
  lm_subq_env *env = calloc(1, sizeof *env);
  if (!env)
    return NULL;
  env->db = db;
  env->hooks.ctx = env;
  env->hooks.new_subplan = env_new_subplan;
  env->hooks.prepare = env_prepare;
  env->hooks.run = env_run;
  env->prev = lm_plan_set_subq_hooks(&env->hooks);
  return env;
}

void lm_engine_subq_leave(lm_subq_env *env) {
  if (!env)
    return;
  lm_plan_set_subq_hooks(env->prev);
  for (int i = 0; i < env->n; i++) {
    lm_subplan_reset(env->sps[i]);
    free(env->sps[i]);
  }
  free(env->sps);
  free(env);
}
