/* GROUP BY a table's primary key: the table's other columns are
 * functionally dependent on it, so PostgreSQL (9.1+) lets the select list,
 * HAVING and ORDER BY use them ungrouped (`SELECT pk, name FROM t GROUP BY
 * pk`). Laminar's binder knows no catalog; when it refuses such a query
 * (42803 "must appear in the GROUP BY clause"), lm_engine_select asks
 * lm_group_fd_extend for a copy whose GROUP BY also lists those columns
 * (grouping by columns determined by the key changes no group) and runs
 * that. As PostgreSQL: only base tables (not views, subqueries or CTEs)
 * named directly in FROM, only plain GROUP BY (no grouping sets), the key's
 * every column written as a column reference of that relation. */
#include "api/group_fd.h"

#include <stdlib.h>
#include <string.h>

#define FD_MAX_RELS 32

typedef struct fd_rel {
  const char *alias; /* the name the query qualifies its columns with */
  const lm_node *node;
} fd_rel;

static void collect_rels(laminar_db *db, const lm_from *f, fd_rel *rels,
                         int *n) {
  if (!f || *n >= FD_MAX_RELS)
    return;
  if (f->kind == LM_FROM_JOIN) {
    if (f->parenthesized && f->alias)
      return; /* the alias renames every column: not the table's */
    collect_rels(db, f->left, rels, n);
    collect_rels(db, f->right, rels, n);
    return;
  }
  if (f->kind != LM_FROM_TABLE || !f->name || f->n_col_aliases)
    return;
  lm_error scratch;
  lm_err_clear(&scratch);
  lm_node *nd = lm_engine_find_input(db, f->name, f->line, f->column, &scratch);
  if (!nd || nd->kind != LM_NODE_TABLE || nd->n_pk <= 0 || !nd->table_schema)
    return;
  rels[*n].alias = f->alias ? f->alias : f->name;
  rels[*n].node = nd;
  (*n)++;
}

/* whether column `name` of relation r is written as a GROUP BY entry */
static bool grouped(const lm_select *sel, const fd_rel *rels, int n_rels, int r,
                    const char *name) {
  for (int k = 0; k < sel->n_group_by; k++) {
    const lm_expr *g = sel->group_by[k];
    if (!g || g->kind != LM_EXPR_COLUMN || !g->name)
      continue;
    if (!lm_ident_eq(name, g->name, 0) && !lm_ident_eq(name, g->name, 1))
      continue;
    if (g->table) {
      if (lm_ident_eq(rels[r].alias, g->table, 0) ||
          lm_ident_eq(rels[r].alias, g->table, 1))
        return true;
      continue;
    }
    /* unqualified: this relation's only when no other one has the name */
    bool other = false;
    for (int o = 0; o < n_rels && !other; o++) {
      if (o == r)
        continue;
      const lm_schema *s = rels[o].node->table_schema;
      for (int j = 0; j < s->n_fields && !other; j++)
        other = lm_ident_eq(s->fields[j].name, g->name, 1);
    }
    if (!other)
      return true;
  }
  return false;
}

lm_select *lm_group_fd_extend(laminar_db *db, const lm_select *sel,
                              lm_arena *arena) {
  if (!sel || sel->n_group_by <= 0 || sel->group_elems || sel->setop ||
      sel->n_ctes || !sel->from_clause)
    return NULL;
  fd_rel rels[FD_MAX_RELS];
  int n_rels = 0;
  collect_rels(db, sel->from_clause, rels, &n_rels);
  int n_extra = 0;
  bool dep[FD_MAX_RELS] = {false};
  for (int r = 0; r < n_rels; r++) {
    const lm_node *nd = rels[r].node;
    bool all = true;
    for (int k = 0; k < nd->n_pk && all; k++)
      all = grouped(sel, rels, n_rels, r,
                    nd->table_schema->fields[nd->pk_cols[k]].name);
    if (!all)
      continue;
    dep[r] = true;
    n_extra += nd->table_schema->n_fields;
  }
  if (!n_extra)
    return NULL;
  lm_select *out = lm_arena_alloc(arena, sizeof *out);
  lm_expr **gb = lm_arena_alloc(arena, sizeof(lm_expr *) *
                                           (size_t)(sel->n_group_by + n_extra));
  if (!out || !gb)
    return NULL;
  *out = *sel;
  memcpy(gb, sel->group_by, sizeof(lm_expr *) * (size_t)sel->n_group_by);
  int n = sel->n_group_by;
  for (int r = 0; r < n_rels; r++) {
    if (!dep[r])
      continue;
    const lm_schema *s = rels[r].node->table_schema;
    for (int j = 0; j < s->n_fields; j++) {
      const char *nm = s->fields[j].name;
      if (!nm || nm[0] == '\x01' || grouped(sel, rels, n_rels, r, nm))
        continue;
      lm_expr *c =
          lm_sql_node(arena, LM_EXPR_COLUMN, sel->line, sel->column, 0);
      if (!c)
        return NULL;
      c->table = rels[r].alias;
      c->name = nm;
      c->quoted = true; /* the column's own spelling */
      gb[n++] = c;
    }
  }
  if (n == sel->n_group_by)
    return NULL;
  out->group_by = gb;
  out->n_group_by = n;
  return out;
}
