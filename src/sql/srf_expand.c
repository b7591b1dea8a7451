/*
 * sql/srf_expand.c — json_each and json_each_text (and their jsonb_
 * twins) in FROM return two columns, key and value: the parser expands
 * each such call into the pair of one-column calls "json_each:key" and
 * "json_each:value" run in lockstep as ROWS FROM (exec/srf_json.c), and
 * names the columns key and value as PostgreSQL does (the user's column
 * aliases first). json_array_elements[_text] without column aliases names
 * its column value (its OUT parameter), as PostgreSQL, so that `FROM
 * jsonb_array_elements(j) e` has e.value; `SELECT e` there is a whole-row
 * reference (plan/whole_row_bind.h). unnest(a, b [, ...]) becomes ROWS
 * FROM (unnest(a), unnest(b) ...), as in PostgreSQL.
 */
#include <string.h>

#include "sql/sql_internal.h"

static bool is_each(const char *n) {
  return n && (!strcmp(n, "json_each") || !strcmp(n, "jsonb_each") ||
               !strcmp(n, "json_each_text") || !strcmp(n, "jsonb_each_text"));
}

/* unnest(a, b [, ...]) in FROM is ROWS FROM (unnest(a), unnest(b) ...),
 * as PostgreSQL expands it: the arrays zipped, the shorter ones padded
 * with NULLs, each column named unnest. */
static int expand_unnest(lm_arena *a, lm_from *f) {
  int nf = 0;
  for (int j = 0; j < f->n_funcs; j++) {
    const lm_expr *e = f->funcs[j];
    bool multi =
        e->name && !strcmp(e->name, "unnest") && !e->over && e->n_args > 1;
    nf += multi ? e->n_args : 1;
  }
  if (nf == f->n_funcs)
    return 0;
  lm_expr **fs = lm_arena_alloc(a, (size_t)nf * sizeof *fs);
  if (!fs)
    return LM_ERR_NOMEM;
  int k = 0;
  for (int j = 0; j < f->n_funcs; j++) {
    lm_expr *e = f->funcs[j];
    if (!e->name || strcmp(e->name, "unnest") || e->over || e->n_args < 2) {
      fs[k++] = e;
      continue;
    }
    for (int i = 0; i < e->n_args; i++) {
      lm_expr *u = lm_arena_alloc(a, sizeof *u);
      lm_expr **ua = lm_arena_alloc(a, sizeof *ua);
      if (!u || !ua)
        return LM_ERR_NOMEM;
      *u = *e;
      ua[0] = e->args[i];
      u->args = ua;
      u->n_args = 1;
      fs[k++] = u;
    }
  }
  f->funcs = fs;
  f->n_funcs = nf;
  return 0;
}

int lm_sql_srf_expand(lm_arena *a, lm_from *f) {
  if (f->kind != LM_FROM_FUNCTION)
    return 0;
  if (expand_unnest(a, f))
    return LM_ERR_NOMEM;
  if (f->n_funcs == 1 && !f->n_col_aliases && !f->funcs[0]->over &&
      f->funcs[0]->name &&
      (!strcmp(f->funcs[0]->name, "json_array_elements") ||
       !strcmp(f->funcs[0]->name, "jsonb_array_elements") ||
       !strcmp(f->funcs[0]->name, "json_array_elements_text") ||
       !strcmp(f->funcs[0]->name, "jsonb_array_elements_text"))) {
    /* PostgreSQL names the column after the OUT parameter, value */
    const char **al = lm_arena_alloc(a, sizeof *al);
    if (!al)
      return LM_ERR_NOMEM;
    al[0] = "value";
    f->col_aliases = al;
    f->n_col_aliases = 1;
    return 0;
  }
  int extra = 0;
  for (int j = 0; j < f->n_funcs; j++)
    if (is_each(f->funcs[j]->name) && !f->funcs[j]->over)
      extra++;
  if (!extra)
    return 0;
  int nf = f->n_funcs + extra;
  int na = f->n_col_aliases > nf ? f->n_col_aliases : nf;
  lm_expr **fs = lm_arena_alloc(a, (size_t)nf * sizeof *fs);
  const char **al = lm_arena_alloc(a, (size_t)na * sizeof *al);
  if (!fs || !al)
    return LM_ERR_NOMEM;
  int k = 0;
  for (int j = 0; j < f->n_funcs; j++) {
    lm_expr *e = f->funcs[j];
    if (!is_each(e->name) || e->over) {
      al[k] = e->name;
      fs[k++] = e;
      continue;
    }
    size_t n = strlen(e->name);
    char *kn = lm_arena_alloc(a, n + 5), *vn = lm_arena_alloc(a, n + 7);
    lm_expr *ke = lm_arena_alloc(a, sizeof *ke),
            *ve = lm_arena_alloc(a, sizeof *ve);
    if (!kn || !vn || !ke || !ve)
      return LM_ERR_NOMEM;
    memcpy(kn, e->name, n);
    memcpy(kn + n, ":key", 5);
    memcpy(vn, e->name, n);
    memcpy(vn + n, ":value", 7);
    *ke = *e;
    *ve = *e;
    ke->name = kn;
    ve->name = vn;
    al[k] = "key";
    fs[k++] = ke;
    al[k] = "value";
    fs[k++] = ve;
  }
  for (int i = 0; i < na; i++)
    if (i < f->n_col_aliases)
      al[i] = f->col_aliases[i];
  f->funcs = fs;
  f->n_funcs = nf;
  f->col_aliases = al;
  f->n_col_aliases = na;
  return 0;
}
