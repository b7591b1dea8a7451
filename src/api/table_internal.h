/*
 * api/ tables, inside: the row store of src/api/table.c and the secondary
 * indexes of src/api/table_index.c (UNIQUE constraints, CREATE INDEX).
 * Only these two files include this header; everything else goes through
 * the lm_table_* / lm_index_* calls of engine.h (docs/tables.md).
 */
#ifndef LM_TABLE_INTERNAL_H
#define LM_TABLE_INTERNAL_H

#include "api/engine.h"

/* A row whose index key holds a NULL (NULLS DISTINCT, the default): it is
 * in no chain and conflicts with nothing. */
#define LM_TIX_NOKEY UINT32_MAX

/* A secondary index: a hash index (lm_aggtable, key -> gid) with, per key,
 * the chain of live row ids holding it (head / next / prev, so unlinking a
 * row is O(1)). A unique index holds at most one live row per key between
 * statements; its checks run statement by statement on scratch arrays
 * (mark / hold) and change nothing until the statement is known to
 * succeed. */
typedef struct lm_tindex {
  char *name;      /* constraint or index name (t_x_key, ...) */
  bool unique;     /* UNIQUE constraint or CREATE UNIQUE INDEX */
  bool constraint; /* from CREATE TABLE: DROP INDEX refuses it */
  bool nulls_not_distinct;
  int n_cols;
  int *cols;  /* key column indexes into the table schema, key order */
  bool *desc; /* CREATE INDEX ... DESC (recorded; hashing ignores it) */
  lm_type *types;
  lm_aggtable *map; /* key -> gid */
  int64_t cap_gid;
  int32_t *head;  /* gid -> first live row id holding the key, -1 = none */
  uint32_t *mark; /* gid -> epoch of the statement that set hold[gid] */
  int64_t *hold;  /* gid -> holder during a check: row id, -2 - r, or -1 */
  uint32_t epoch;
  int64_t cap_rows;
  uint32_t *gid;        /* row id -> gid (LM_TIX_NOKEY: not indexed) */
  int32_t *next, *prev; /* row id -> chain neighbours, -1 = none */
} lm_tindex;

struct lm_table {
  lm_schema *schema;  /* table columns, no __weight */
  lm_schema *wschema; /* schema + __weight */
  int n_pk;
  int *pk;
  lm_type *pk_types;
  char *pk_name;      /* CONSTRAINT name PRIMARY KEY; NULL = "<table>_pkey" */
  lm_aggtable *index; /* key -> gid (no aggregates); NULL without a key */
  int64_t *slot_of;   /* gid -> live row id, -1 = none */
  uint32_t *stamp;    /* gid -> statement epoch (duplicate detection) */
  int64_t *pk_cur;    /* gid -> row holding the key during a unique check */
  int64_t cap_gid;
  uint32_t epoch;
  /* row versions: segments in id order; row id = position in their
   * concatenation */
  lm_batch **segs;
  int64_t *seg_start; /* first row id of each segment */
  int n_segs, cap_segs;
  uint8_t *live;  /* per row id */
  uint32_t *gid;  /* per row id (keyed tables) */
  int64_t n_rows; /* row ids in use */
  int64_t cap_rows;
  int64_t n_live;
  lm_batch *all; /* concatenation of segs, built on demand; NULL = stale */
  /* UNIQUE constraints and indexes, in creation order */
  lm_tindex **ix;
  int n_ix;
  /* the input row (0-based, in the batch given) that failed the last
   * lm_table_insert (NOT NULL or unique), -1 for none */
  int64_t err_row;
};

/* A new index over columns cols[0..n) of schema s (desc may be NULL),
 * empty, with room for cap_rows row ids. NULL on OOM. */
lm_tindex *lm_tix_new(const char *name, const lm_schema *s, const int *cols,
                      const bool *desc, int n, bool unique,
                      bool nulls_not_distinct, bool constraint,
                      int64_t cap_rows);
void lm_tix_free(lm_tindex *ix);
/* Grows the per-row arrays to cap row ids (new rows unlinked). -1 on OOM
 * (the index unchanged). */
int lm_tix_grow_rows(lm_tindex *ix, int64_t cap);
/* The key gid of each row of b (the table schema): g[r] for r < b's rows,
 * LM_TIX_NOKEY for a key with a NULL (NULLS DISTINCT). Creates groups for
 * new keys (undo with lm_aggtable_truncate(ix->map, groups before)); the
 * per-gid arrays grow to cover them. Errors: LM_ERR_NOMEM. */
int lm_tix_keys(lm_tindex *ix, lm_batch *b, uint32_t *g, lm_error *err);
/* Puts row id `id` into the chain of key g (NOKEY: records it only). */
void lm_tix_link(lm_tindex *ix, int64_t id, uint32_t g);
/* Takes row id `id` out of its key's chain (no-op when not linked). */
void lm_tix_unlink(lm_tindex *ix, int64_t id);
/* Starts a statement's check: a new epoch for mark / hold. */
void lm_tix_begin(lm_tindex *ix);
/* The holder of key g in the current check: a live row id, -2 - r for row r
 * of the statement's new rows, or -1 (none). */
int64_t lm_tix_holder(const lm_tindex *ix, uint32_t g);
void lm_tix_hold(lm_tindex *ix, uint32_t g, int64_t holder);
/* Appends value r of a as PostgreSQL's text shows it in a DETAIL (`null`,
 * timestamps with a space and no trailing fraction zeros). Returns 0 or
 * LM_ERR_NOMEM. */
int lm_tix_pg_text(lm_buf *out, const lm_array *a, int64_t r);
/* LM_ERR_EXEC with SQLSTATE 23505, PostgreSQL's message: `duplicate key
 * value violates unique constraint "name"` and, in err->detail,
 * `Key (a, b)=(1, x) already exists.` (the key of row r of b);
 * `is duplicated` instead of `already exists` when building (CREATE
 * UNIQUE INDEX over rows that repeat a key: `could not create unique index
 * "name"`). Returns the error code. */
int lm_tix_dup_error(const lm_tindex *ix, const lm_schema *s, lm_batch *b,
                     int64_t r, bool building, lm_error *err);
/* Links every live row of t into ix (empty), checking uniqueness when ix
 * is unique (then, on a repeated key: lm_tix_dup_error building). Errors:
 * 23505, LM_ERR_NOMEM; on error ix is left empty. */
int lm_tix_build(lm_table *t, lm_tindex *ix, lm_error *err);

#endif
