/* GROUP BY a primary key: its table's other columns usable ungrouped, as
 * PostgreSQL's functional dependency rule (api/group_fd.c). */
#ifndef LM_API_GROUP_FD_H
#define LM_API_GROUP_FD_H

#include "api/engine.h"
#include "sql/lm_sql.h"

/* A shallow copy of sel whose GROUP BY also lists every other column of
 * each base table (LM_NODE_TABLE with a primary key) named in sel's FROM
 * whose key columns are all GROUP BY entries (column references), or NULL
 * when none applies (grouping sets, set operations, WITH, no such table) or
 * on OOM. The copy and its new nodes are owned by arena; the rest is
 * shared with sel. No error is set. */
lm_select *lm_group_fd_extend(laminar_db *db, const lm_select *sel,
                              lm_arena *arena);

#endif
