/*
 * exec/ — plumbing shared by the join operators (internal to exec/; see
 * lm_join.h and docs in op_join.c).
 *
 * jstore: a compact row store for one join side. A row is a fixed-size
 * slot in one growable array (no malloc per row): an operator header of
 * `hdr` bytes (chain links, counts, flags), a live byte, the NULL bits,
 * then each column at its natural width (VARCHAR/BINARY: offset and length
 * into one shared byte heap, compacted when half of it is dead; nested and
 * dictionary columns: a private one-row array). Slots are addressed by a
 * uint32 index (JNONE = none) and reused through a free list.
 *
 * jkeys: an open-addressing hash table from the equi-join key to an entry
 * holding, per side, the head and tail of a chain of that side's slots
 * (linked through the first 4 header bytes of a slot). The key values
 * themselves are not stored: they are compared against a chain's head row.
 * An entry is removed when both chains are empty.
 */
#ifndef LM_OP_JOIN_INTERNAL_H
#define LM_OP_JOIN_INTERNAL_H

#include "exec/lm_join.h"
#include "exec/op_internal.h"

#define JNONE UINT32_MAX

enum { JC_FIXED, JC_FLOAT32, JC_FLOAT64, JC_BOOL, JC_VAR, JC_NULLT, JC_OBJ };

typedef struct jcol {
  uint8_t kind;
  uint8_t large;  /* JC_VAR: int64 offsets (LARGE_UTF8/LARGE_BINARY) */
  uint8_t pruned; /* never read after the join: not stored (JC_NULLT) */
  uint32_t width; /* JC_FIXED: bytes */
  uint32_t off;   /* byte offset of the value in the slot */
  lm_type type;
} jcol;

typedef struct jstore {
  lm_schema *schema; /* retained */
  int ncols;
  jcol *cols;
  uint32_t hdr, flag_off, null_off, slot_size;
  uint8_t *data;
  uint32_t used, cap; /* slots handed out (high water) and allocated */
  uint32_t free_head;
  int64_t live;
  uint8_t *heap; /* JC_VAR bytes */
  int64_t heap_len, heap_cap, heap_dead;
  int n_obj;          /* JC_OBJ columns */
  bool defer_compact; /* js_del leaves the heap alone (js_maybe_compact) */
  bool data_mapped, heap_mapped; /* mmap'ed (grown by mremap), not malloc'ed */
} jstore;

static inline uint8_t *js_slot(const jstore *s, uint32_t i) {
  return s->data + (size_t)i * s->slot_size;
}
static inline uint32_t js_next(const jstore *s, uint32_t i) {
  uint32_t v;
  __builtin_memcpy(&v, js_slot(s, i), 4);
  return v;
}
static inline void js_set_next(jstore *s, uint32_t i, uint32_t v) {
  __builtin_memcpy(js_slot(s, i), &v, 4);
}
static inline bool js_isnull(const jstore *s, uint32_t i, int c) {
  return (js_slot(s, i)[s->null_off + (c >> 3)] >> (c & 7)) & 1;
}
/* An 8-byte integer-like column (time columns) of slot i. */
static inline int64_t js_i64(const jstore *s, uint32_t i, int c) {
  int64_t v;
  __builtin_memcpy(&v, js_slot(s, i) + s->cols[c].off, 8);
  return v;
}

/* hdr: operator header bytes (>= 4; the first 4 are the chain link).
 * pruned: NULL, or per column of schema whether it is never read after the
 * join (stored as nothing, gathered as NULL, ignored by js_row_eq).
 * Errors: LM_ERR_NOMEM. */
int js_init(jstore *s, lm_schema *schema, uint32_t hdr, const bool *pruned,
            lm_error *err);
void js_free(jstore *s);
/* Copies row r of b (b's first ncols columns) into a new slot, header
 * zeroed; JNONE on OOM or when the heap would pass 4 GiB. */
uint32_t js_add(jstore *s, const lm_batch *b, int64_t r);
void js_del(jstore *s, uint32_t i);
/* Rewrites the variable-length heap when at least half of it (and over
 * 64 KiB) is dead bytes; what js_del does unless defer_compact is set. */
void js_maybe_compact(jstore *s);
/* Drops every row (objects released, allocations kept). The caller unlinks
 * the chains that pointed at them. */
void js_clear(jstore *s);
/* Column c of slot i equals row r of a (same type); NULL equals nothing. */
bool js_col_eq(const jstore *s, uint32_t i, int c, const lm_array *a,
               int64_t r);
/* Every column of slot i is identical to row r of b (NULL == NULL). */
bool js_row_eq(const jstore *s, uint32_t i, const lm_batch *b, int64_t r);
/* The key hash of slot i over columns keys[0..nk) (as jk_hash_rows). */
uint64_t js_key_hash(const jstore *s, uint32_t i, const int *keys, int nk);
/* Column c of slots sl[0..n) (JNONE = NULL) as a new array; NULL on OOM. */
lm_array *js_gather(const jstore *s, int c, const uint32_t *sl, int64_t n);
/* Bytes held: slots, heap, free slots included. */
int64_t js_bytes(const jstore *s);

/* Key hashes of rows 0..n of key columns cols[0..nk) (column at a time);
 * nul[r] = 1 when a key of row r is NULL. Errors: LM_ERR_NOMEM. */
void jk_hash_rows(lm_array *const *cols, int nk, int64_t n, uint64_t *h,
                  uint8_t *nul);

typedef struct jentry {
  uint64_t hash;
  uint32_t head[2], tail[2];
} jentry;

typedef struct jkeys {
  /* entry id + 1 in the low 32 bits (0 = empty), the hash's high 32 bits
   * above: a probe skips other keys without touching their entries */
  uint64_t *slots;
  uint64_t nslots;
  jentry *ents;
  uint32_t nents, cap, free_head;
  int64_t live;
} jkeys;

int jk_init(jkeys *k, lm_error *err);
/* Prefetches the home slot of hash h (a probe a few rows ahead). */
static inline void jk_prefetch(const jkeys *k, uint64_t h) {
  __builtin_prefetch(&k->slots[h & (k->nslots - 1)]);
}
void jk_free(jkeys *k);
/* The entry of key (cols[k] row r, hash h) or JNONE; st[s] / keys[s] say
 * where side s keeps the key columns of its chain heads. */
uint32_t jk_find(const jkeys *k, const jstore *st, const int *const *keys,
                 int nk, lm_array *const *cols, int64_t r, uint64_t h);
/* jk_find, adding an empty entry when absent; JNONE on OOM. */
uint32_t jk_find_add(jkeys *k, const jstore *st, const int *const *keys, int nk,
                     lm_array *const *cols, int64_t r, uint64_t h);
/* The entry whose side-s chain holds slot i (key hash h); JNONE if none. */
uint32_t jk_find_slot(const jkeys *k, const jstore *st, const int *const *keys,
                      int nk, int s, uint32_t i, uint64_t h);
/* Removes entry e when both of its chains are empty. */
void jk_maybe_remove(jkeys *k, uint32_t e);
int64_t jk_bytes(const jkeys *k);

/* ------------------------------------------------------------- base */

typedef struct jbase jbase;
typedef struct jops {
  int (*push)(jbase *j, int side, lm_batch *b, lm_error *err);
  /* called after wm[side] advanced */
  int (*watermark)(jbase *j, int side, lm_error *err);
  int (*tick)(jbase *j, int64_t now_us, lm_error *err);
  int64_t (*out_wm)(const jbase *j);
  int64_t (*extra_bytes)(const jbase *j);
  void (*free)(jbase *j);
  /* rows in the state when not st[0].live + st[1].live - dead; NULL =
   * that */
  int64_t (*state_rows)(const jbase *j);
} jops;

typedef struct jside_ctx {
  jbase *j;
  int side;
} jside_ctx;

/* Pending output: per row a left and right source (batch row or slot, -1 /
 * JNONE = NULL) and a weight. */
typedef struct jout {
  int64_t n, cap;
  uint32_t *ix[2];
  int64_t *w;
  const lm_batch *b[2]; /* side source is batch b[s] when set, else store */
} jout;

struct jbase {
  lm_operator op;
  lm_join_spec spec;
  int *keys[2];
  int nk;
  int ncols[2];
  lm_schema *pair_schema; /* left fields then right fields */
  lm_schema *out_schema;  /* retained */
  jstore st[2];
  jkeys kt;
  int64_t wm[2], wm_sent;
  jside_ctx sctx[2];
  const jops *ops;
  bool failed;  /* an error left the state unreliable */
  int64_t dead; /* stored rows already evicted (freed lazily) */
  jout out;
  /* per column of [left..., right...]: whether the residual reads it
   * (NULL = every column); the others enter it as a placeholder never
   * read: a slice of rnull, an all-NULL array of type NULL (a bitmap
   * only), grown on demand */
  uint8_t *rcol;
  lm_array *rnull;
  /* per side and column: for a pruned column (never read after the join)
   * an all-NULL array of its type, sliced for the output rows */
  lm_array **pnull[2];
  /* scratch */
  uint64_t *hash;
  uint8_t *nul;
  uint32_t *ent;
  int64_t scratch_cap;
};

/* Fills the common fields (spec copy, stores with hdr[s] header bytes, key
 * table). Errors: LM_ERR_NOMEM, LM_ERR_BIND for key types that cannot be
 * joined on. */
int jb_init(jbase *j, const lm_join_spec *spec, const uint32_t hdr[2],
            const jops *ops, lm_error *err);
/* Frees an operator made by an algorithm (ops->free, the common fields,
 * the allocation itself); safe after a failed jb_init. */
void jb_destroy(jbase *j);
/* Hashes the key columns of b (side s) into j->hash / j->nul. */
int jb_hash_batch(jbase *j, int s, const lm_batch *b, lm_error *err);
/* Adds one output row. */
int jo_add(jbase *j, uint32_t l, uint32_t r, int64_t w, lm_error *err);
/* Emits the pending output rows as one batch (and clears them). */
int jo_flush(jbase *j, lm_error *err);
/* Sets where the left/right columns of the next rows come from (flushes
 * pending rows first when it changes): a batch, or NULL = the store. */
int jo_sources(jbase *j, const lm_batch *l, const lm_batch *r, lm_error *err);
/* Evaluates the residual over pairs (l[i] of side-0 source, r[i] of side-1
 * source; sources as jo_sources) into pass[i] (1 = match). Without a
 * residual every pass[i] = 1. */
int jb_residual(jbase *j, const lm_batch *lb, const lm_batch *rb,
                const uint32_t *l, const uint32_t *r, int64_t n, uint8_t *pass,
                lm_error *err);
/* The batch's __weight column (BIGINT, last) or NULL when not a changelog. */
const int64_t *jb_weights(const jbase *j, int s, const lm_batch *b);
int jb_grow_scratch(jbase *j, int64_t n, lm_error *err);

/* Saturating a - b. */
static inline int64_t jsat_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* Candidate pairs of one probe: cl[i] / cr[i] the left / right row (a
 * source index as jo_sources), crow[i] an operator-defined row id (only
 * with `with_row`), pass[i] the residual's verdict. Capacity in pairs. */
typedef struct jcand {
  uint32_t *cl, *cr, *crow;
  uint8_t *pass;
  int64_t cap;
} jcand;
/* Grows c to hold at least n pairs (doubling from 1024). LM_ERR_NOMEM. */
int jcand_grow(jcand *c, int64_t n, bool with_row, lm_error *err);
void jcand_free(jcand *c);

lm_operator *lm_join_updating_new(const lm_join_spec *spec, lm_error *err);
lm_operator *lm_join_interval_new(const lm_join_spec *spec, lm_error *err);
lm_operator *lm_join_lookup_new(const lm_join_spec *spec, lm_error *err);
/* The updating join's state machine for LM_JOIN_LOOKUP (left rows not
 * kept, right changes only update the table). */
lm_operator *lm_join_lookup_state_new(const lm_join_spec *spec, lm_error *err);
lm_operator *lm_join_asof_new(const lm_join_spec *spec, lm_error *err);

#endif
