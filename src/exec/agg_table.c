/*
 * The group hash table and aggregate accumulators.
 *
 * A group key is encoded into bytes (per key: a NULL flag byte, then 8
 * bytes for integer-like and floating values, 1 for BOOLEAN, a 4-byte
 * length and the bytes for VARCHAR), hashed and looked up in an
 * open-addressing table of group ids. Aggregate states are stored as
 * columns indexed by group id (struct of arrays), updated in a tight loop
 * per aggregate after the batch's group ids are known.
 *
 * Changelogs (Z-sets): every row carries a weight (+1 insert, -1 retract;
 * any non-zero integer is a multiplicity), and every state below can take
 * a negative weight exactly, and can be merged with another group's state
 * with the same NULL rules:
 *   COUNT, COUNT(*)     cnt += w
 *   SUM/AVG of integers exact sums (int64 with overflow checks, __int128)
 *   SUM of DECIMAL      exact __int128 sums of the unscaled values; SUM of
 *                       BIGINT and DECIMAL and AVG of integers are numeric
 *                       (DECIMAL128 results made at emit: SUM_NUMERIC)
 *   MIN/MAX of DECIMAL  the values as 16 ordered bytes (dec_encode)
 *   SUM/AVG of floats   a long double sum of the finite values plus counts
 *                       of NaN, +Inf and -Inf (so retracting a NaN or an
 *                       infinity restores the finite sum), reset to an
 *                       exact 0 when no value remains
 *   VAR/STDDEV          shifted sums: k (the group's first finite value),
 *                       sum(x-k), sum((x-k)^2) in long double, and a count
 *                       of non-finite values; merged by re-shifting (Chan)
 *   VAR/STDDEV of       numeric (integers, DECIMAL): exact 128-bit sums of
 *     integers, DECIMAL the (unscaled) values and of their squares (22003
 *                       beyond 128 bits), PostgreSQL's numeric result made
 *                       at emit (agg_stat.c)
 *   MIN/MAX             append-only: the extreme; retractable: an ordered
 *                       multiset (gid, value) -> count (agg_vtree.h)
 *   DISTINCT            always the multiset (gid, value) -> references;
 *                       a value is folded in when its count leaves 0 and
 *                       out when it returns to 0
 *   first/last_value    arrival order (a process-wide sequence number per
 *                       row; NULLs skipped, as in Flink). Append-only: the
 *                       value and its sequence number; retractable: trees
 *                       (gid, seq) -> value and (gid, value, seq); a
 *                       retraction removes the most recent live occurrence
 *                       of the value
 *   APPROX_COUNT_DISTINCT HyperLogLog, 2^12 one-byte registers per group
 *                       (~1.6% standard error; linear counting for small
 *                       cardinalities), merged by register max; it cannot
 *                       retract (the planner refuses it over a changelog)
 *   BOOL_AND/BOOL_OR    the count of TRUE inputs beside cnt (non-NULL
 *                       inputs): AND = all true, OR = one true
 *   STRING_AGG          append-only: per group a buffer of sep,value pairs
 *                       in arrival order and the length of its first sep
 *                       (skipped in the result; PostgreSQL 16's state, so
 *                       two buffers merge by appending); retractable: the
 *                       first/last_value trees (arrival order); DISTINCT:
 *                       the multiset, read in value order (PostgreSQL
 *                       sorts a DISTINCT aggregate's input)
 *   corr, covar_*,      PostgreSQL's float8 state (N, Sx, Sxx, Sy, Syy,
 *     regr_*            Sxy: Youngs-Cramer, agg_stat.c) over the rows whose
 *                       Y (this aggregate's input) and X (the next one's,
 *                       LM_AGG_PAIR) are both non-NULL, in row order;
 *                       merged by its combine function; it cannot retract
 *                       (regr_count, the count alone, can)
 *   BIT_AND/OR/XOR      append-only: the value; retractable: per bit the
 *                       count of inputs with it set
 *   percentile_cont,    the sorted multiset (gid, x) -> count (as
 *     _disc, mode()     retractable MIN/MAX), walked at emit
 * Float SUM/AVG over append-only input also run PostgreSQL's own double
 * state beside the long double sum (float8pl; float8_accum's N, Sx, Sxx),
 * only to raise its "value out of range: overflow" (22003) where it does:
 * when finite inputs make that state infinite, in the same row order.
 * Per group, `rows` is the sum of the weights of its rows: a group whose
 * rows fall to 0 has no result row (lm_aggtable_group_rows), and a batch
 * that would take it below 0 is refused before anything changes.
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"
#include "columnar/lm_jsonb_ord.h"
#include "exec/agg_stat.h"
#include "exec/agg_vtree.h"
#include "exec/key_ord.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

#define HLL_BITS 12
#define HLL_M (1 << HLL_BITS)

typedef struct fsum { /* a float sum that survives retractions */
  long double s;      /* sum of the finite values */
  long double c;      /* its Neumaier compensation: 1e300 + 1 - 1e300 = 1 */
  int64_t nan, pinf, ninf;
} fsum;

/* PostgreSQL's float8 SUM / AVG state (float8pl; float8_accum's Sx and
 * Sxx, N being the group's count): where it overflows. */
typedef struct fshadow {
  double sx, sxx;
} fshadow;

typedef struct sbuf { /* STRING_AGG (append-only): sep,value pairs */
  char *p;
  int64_t len, cap;
  int32_t first; /* the length of the first sep (not in the result) */
} sbuf;

typedef struct var_state { /* shifted sums for VAR/STDDEV */
  long double k, s, ss;    /* shift, sum(x-k), sum((x-k)^2) */
  int64_t nonfinite;       /* NaN and infinities */
} var_state;

typedef struct bitcnt { /* BIT_AND/OR/XOR (retractable) */
  int64_t c[64];        /* inputs with bit k set (sum of weights) */
} bitcnt;

typedef struct agg_state {
  int64_t *cnt;  /* rows counted / non-NULL inputs (sum of weights) */
  int64_t *i;    /* SUM int; MIN/MAX/first/last int-like (append-only) */
  double *f;     /* MIN/MAX/first/last float (append-only) */
  __int128 *w;   /* AVG of integers: exact sum */
  fsum *fs;      /* SUM/AVG of floats; SUM/VAR of DECIMAL: its NaN and
                  * ±Infinity counts (nan, pinf, ninf; lm_decimal.h) */
  fshadow *fd;   /* SUM/AVG of floats, append-only: PostgreSQL's state */
  int64_t *nt;   /* BOOL_AND/BOOL_OR: TRUE inputs (sum of weights) */
  sbuf *sb;      /* STRING_AGG (append-only, not DISTINCT) */
  var_state *vr; /* VAR/STDDEV of floats */
  lm_s256 *w2;   /* VAR/STDDEV of numeric: exact sum of squares (w: sum) */
  lm_regr *rg;   /* corr, covar_*, regr_* */
  bitcnt *bc;    /* BIT_AND/OR/XOR, retractable: per-bit counts */
  char **s;      /* MIN/MAX/first/last VARCHAR (append-only): owned copies */
  int32_t *sl;
  int64_t *sq;   /* first/last (append-only): sequence number of the value */
  uint8_t **hll; /* APPROX_COUNT_DISTINCT: HLL_M registers, or NULL */
  bool tree;     /* vt holds the state (retractable, DISTINCT) */
  lm_vtree vt;   /* (gid, value) -> count; first/last: (gid, seq) -> value */
  lm_vtree vt2;  /* first/last: (gid, value, seq) */
  lm_vtree vt3;  /* MIN/MAX ties: (gid, value + row id, seq) */
  /* append-only integer DISTINCT: the (gid, value) pairs seen, in an
   * open-addressing set (dgid = gid + 1, 0 = empty). While dset_only (from
   * the start until a merge needs the tree) the set is the state and vt is
   * empty; after that vt is built from it and the set is a cache of the
   * pairs already in vt (cleared when groups are dropped). One hash probe
   * per row instead of a tree walk. */
  uint32_t *dgid;
  int64_t *dval;
  int64_t dcap, dused;
  bool dset_only;
} agg_state;

struct lm_aggtable {
  int n_keys;
  lm_type *key_types;
  int n_aggs;
  const lm_agg_spec *aggs;
  agg_state *st;
  bool retract;    /* rows may carry negative weights */
  int64_t *rows;   /* per group: sum of the weights of its rows */
  uint32_t *slots; /* group id + 1; 0 = empty */
  uint64_t n_slots;
  uint64_t *hashes; /* per group */
  int64_t n_groups, cap;
  lm_buf keys;      /* encoded keys, back to back */
  int64_t *key_off; /* n_groups + 1 offsets into keys */
  lm_buf scratch;
  /* CHAR(n) keys are encoded without their trailing spaces (PostgreSQL's
   * bpchar equality: 'a ' = 'a   '); a group shows its first value, so
   * the spaces cut are kept apart: pad[g * n_keys + k] for group g (NULL
   * when no key is CHAR or a float), spad[k] for the key in scratch. A
   * float key is encoded with -0 as 0: its pad is 1 when the first value
   * was -0 (PostgreSQL shows the group's first value) */
  int32_t *pad, *spad;
  /* INTERVAL_MDN keys are encoded as their span (interval_cmp: '1 mon'
   * groups with '30 days'); a group shows its first value, kept apart as
   * CHAR's padding: mdn[(g * n_keys + k) * 16] (its 16 stored bytes; NULL
   * when no key is INTERVAL_MDN), smdn[k * 16] for the key in scratch */
  uint8_t *mdn, *smdn;
  /* jsonb keys are encoded as lm_jsonb_canon's key ('1.0' groups with
   * '1'); a group shows its first value: when that differs from the key,
   * jof[g * n_keys + k] is 1 + its offset in jorig (a 4-byte length, the
   * text), else 0 (jof NULL when no key is jsonb); sjof[k] likewise into
   * sjorig for the key in scratch, jcanon the key being made */
  int64_t *jof, *sjof;
  lm_buf jorig, sjorig, jcanon;
  /* A retractable table whose keys include a type whose equal values print
   * differently (spell_k[k]: floats, INTERVAL_MDN, CHAR, jsonb) keeps every
   * live row's values of those keys (its "spelling", spell_encode), so
   * that a group shows its earliest live row's values, as an ad-hoc GROUP
   * BY over the remaining rows does (PostgreSQL: the first row in scan
   * order). sv: (gid, seq) -> spelling, in arrival order; sv2: (gid,
   * spelling + row id, seq), to find the occurrence a retraction removes:
   * the latest one of the same row (row ids: lm_aggtable_set_row_ids). */
  bool spell;
  bool *spell_k;
  lm_vtree sv, sv2;
  int64_t sv_seq;
  lm_buf spbuf;
  const uint64_t *rid; /* per batch row identity, or NULL (all 0) */
  uint32_t *gid_buf;
  int64_t gid_cap;
  __int128 *check; /* lm_aggtable_check scratch, per group */
  int64_t check_cap;
  int64_t *wj; /* per selected row weights (scratch) */
  int64_t wj_cap;
  /* first/last_value arrival order: when seq_base >= 0 the value of batch
   * row r gets sequence number seq_base + r (lm_aggtable_set_seq_base), so
   * the order is the rows' order even when an operator folds them in
   * another order (panes); cur_row is the row being folded. */
  int64_t seq_base, cur_row;
};

/* Arrival order for first_value/last_value, comparable across tables (so
 * that merging two tables' groups keeps the order). */
static _Atomic int64_t lm_agg_seq;

int64_t lm_agg_seq_reserve(int64_t n) {
  return atomic_fetch_add(&lm_agg_seq, n);
}

void lm_aggtable_set_seq_base(lm_aggtable *t, int64_t base) {
  t->seq_base = base;
}

/* The sequence number of copy c of the row being folded. */
static int64_t next_seq(lm_aggtable *t, int64_t c) {
  if (t->seq_base >= 0 && c == 0)
    return t->seq_base + t->cur_row;
  return atomic_fetch_add(&lm_agg_seq, 1);
}

static bool is_float(lm_type t) {
  return t.id == LM_TYPE_FLOAT64 || t.id == LM_TYPE_FLOAT32;
}

/* SUM of integers over a changelog (retractable table): the state is an
 * exact 128-bit sum (s->w), so a running sum may leave BIGINT inside a
 * batch as long as each group's result after the batch fits; that result
 * is what is range-checked (lm_aggtable_check_w, and again at emit). */
#define SUM_WIDE(t, sp)                                                        \
  ((sp)->kind == LM_AGG_SUM && !is_float((sp)->in_type) &&                     \
   ((t)->retract || SUM_NUMERIC(sp)))
/* SUM of BIGINT or DECIMAL and AVG of integers are PostgreSQL's numeric:
 * the state is the exact 128-bit sum s->w (of unscaled values for DECIMAL)
 * and the result DECIMAL128 (SUM: the input's scale; AVG: the quotient at
 * PostgreSQL's division scale, stored at the result's scale). A BIGINT sum
 * cannot leave 128 bits (|v| < 2^63 over < 2^63 rows) nor 38 digits; a
 * DECIMAL sum is checked per row (22003). */
#define SUM_NUMERIC(sp) ((sp)->out_type.id == LM_TYPE_DECIMAL128)
#define WIDE_LIMIT ((__int128)1 << 120) /* far from 128-bit overflow */
/* VAR/STDDEV of integers and DECIMAL: PostgreSQL's numeric, from the exact
 * sums s->w and s->w2 (agg_stat.c) */
#define VAR_NUMERIC(sp) ((sp)->out_type.id == LM_TYPE_DECIMAL128)
/* SUM / VAR / STDDEV of DECIMAL: NaN and ±Infinity inputs are counted
 * apart (s->fs[g].nan / pinf / ninf), as PostgreSQL's NumericAggState */
#define DEC_SPECIALS(sp) ((sp)->in_type.id == LM_TYPE_DECIMAL128)

/* Counts a DECIMAL special value v (lm_dec_is_special) with weight w. */
static void dec_special_add(fsum *f, __int128 v, int64_t w) {
  if (v == LM_DEC_NAN)
    f->nan += w;
  else if (v > 0)
    f->pinf += w;
  else
    f->ninf += w;
}

/* The special result of a DECIMAL SUM / AVG with counts f, or 0 when
 * there is none: NaN over a NaN or over both infinities, else ±Infinity
 * (PostgreSQL's numeric_sum). */
static __int128 dec_special_sum(const fsum *f) {
  if (f->nan > 0 || (f->pinf > 0 && f->ninf > 0))
    return LM_DEC_NAN;
  return f->pinf > 0 ? LM_DEC_PINF : f->ninf > 0 ? LM_DEC_NINF : 0;
}

static bool is_minmax(lm_agg_kind k) {
  return k == LM_AGG_MIN || k == LM_AGG_MAX;
}
static bool is_firstlast(lm_agg_kind k) {
  return k == LM_AGG_FIRST || k == LM_AGG_LAST;
}
static bool is_bool(lm_agg_kind k) {
  return k == LM_AGG_BOOL_AND || k == LM_AGG_BOOL_OR;
}
/* percentile_cont / percentile_disc / mode() WITHIN GROUP (ORDER BY x) */
static bool is_ordset(lm_agg_kind k) {
  return k == LM_AGG_PCT_CONT || k == LM_AGG_PCT_DISC || k == LM_AGG_MODE;
}
/* agg(DISTINCT x) that differs from agg(x). */
static bool is_distinct(const lm_agg_spec *sp) {
  return sp->distinct && !is_minmax(sp->kind) && !is_firstlast(sp->kind) &&
         sp->kind != LM_AGG_COUNT_STAR && sp->kind != LM_AGG_APPROX_DISTINCT &&
         !is_bool(sp->kind) && sp->kind != LM_AGG_REGR &&
         sp->kind != LM_AGG_PAIR && sp->kind != LM_AGG_BIT_AND &&
         sp->kind != LM_AGG_BIT_OR && !is_ordset(sp->kind);
}
/* Kept in arrival order by sequence number when retractable (the
 * first/last_value trees). */
static bool is_seq(const lm_agg_spec *sp) {
  return is_firstlast(sp->kind) ||
         (sp->kind == LM_AGG_STRING_AGG && !sp->distinct && !sp->by_value);
}
/* STRING_AGG(x ORDER BY x): the sorted multiset (gid, x) -> count. */
static bool is_by_value(const lm_agg_spec *sp) {
  return sp->kind == LM_AGG_STRING_AGG && !sp->distinct && sp->by_value;
}

/* An array or INTERVAL_MDN input: kept as its key_ord.h bytes. */
static bool is_ord(lm_type t) {
  return t.id == LM_TYPE_LIST || t.id == LM_TYPE_INTERVAL_MDN;
}
static lm_vt_kind vt_kind(lm_type t) {
  return t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_DECIMAL128 || is_ord(t)
             ? LM_VT_STR
         : is_float(t) ? LM_VT_F64
                       : LM_VT_INT;
}
/* How aggregate sp's input values are kept (STRING_AGG: bytes, for BYTEA
 * too). */
static lm_vt_kind sp_kind(const lm_agg_spec *sp) {
  return sp->kind == LM_AGG_STRING_AGG ? LM_VT_STR : vt_kind(sp->in_type);
}

/* A numeric (DECIMAL128) result beyond 38 digits: 22003. */
static int numeric_overflow(lm_error *err) {
  lm_err(err, LM_ERR_EXEC, "numeric field overflow");
  return lm_err_state(err, "22003");
}

/* A SUM leaving its type: BIGINT (22003) or INTERVAL (22008), with
 * PostgreSQL's SQLSTATE. Returns the error code. */
static int sum_overflow(const lm_agg_spec *sp, lm_error *err) {
  if (sp->in_type.id == LM_TYPE_INTERVAL) {
    lm_err(err, LM_ERR_EXEC, "interval out of range");
    return lm_err_state(err, "22008");
  }
  lm_err(err, LM_ERR_EXEC, "integer out of range: overflow in SUM");
  return lm_err_state(err, "22003");
}

static int overflow_err(lm_error *err) {
  lm_err(err, LM_ERR_EXEC, "value out of range: overflow");
  return lm_err_state(err, "22003");
}

/* One step of PostgreSQL's float8 SUM (float8pl; avg false) or AVG
 * (float8_accum) state f, n values before v: -1 when finite inputs make
 * it infinite (PostgreSQL's 22003), else 0. */
static int fshadow_add(fshadow *f, int64_t n, double v, bool avg) {
  if (!avg) {
    if (n == 0) {
      f->sx = v;
      return 0;
    }
    double r = f->sx + v;
    if (isinf(r) && !isinf(f->sx) && !isinf(v))
      return -1;
    f->sx = r;
    return 0;
  }
  double sx0 = f->sx, sx = sx0 + v, nn = (double)n + 1;
  if (n > 0) {
    double tmp = v * nn - sx, sxx = f->sxx + tmp * tmp / (nn * (double)n);
    if (isinf(sx) || isinf(sxx)) {
      if (!isinf(sx0) && !isinf(v))
        return -1;
      sxx = NAN;
    }
    f->sxx = sxx;
  } else if (!isfinite(v)) {
    f->sxx = NAN;
  }
  f->sx = sx;
  return 0;
}

/* PostgreSQL's combine of two such states (float8pl; float8_combine) of
 * n and m values into d. -1 on its overflow. */
static int fshadow_merge(fshadow *d, int64_t n, const fshadow *s, int64_t m,
                         bool avg) {
  if (m == 0)
    return 0;
  if (n == 0) {
    *d = *s;
    return 0;
  }
  double sx = d->sx + s->sx;
  if (isinf(sx) && !isinf(d->sx) && !isinf(s->sx))
    return -1;
  if (avg) {
    double tmp = d->sx / (double)n - s->sx / (double)m;
    double sxx = d->sxx + s->sxx +
                 (double)n * (double)m * tmp * tmp / ((double)n + (double)m);
    if (isinf(sxx) && !isinf(d->sxx) && !isinf(s->sxx))
      return -1;
    d->sxx = sxx;
  }
  d->sx = sx;
  return 0;
}

/* Appends sep (NULL: none) and v to a STRING_AGG buffer; -1 on OOM. */
static int sbuf_add(sbuf *b, const char *sep, int32_t sep_len, const lm_vval *v,
                    bool first) {
  int32_t sl = sep ? sep_len : 0;
  int64_t need = b->len + sl + v->len;
  if (need > b->cap) {
    int64_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < need)
      cap *= 2;
    char *n = realloc(b->p, (size_t)cap);
    if (!n)
      return -1;
    b->p = n;
    b->cap = cap;
  }
  if (first) {
    b->len = 0;
    b->first = sl;
  }
  if (sl)
    memcpy(b->p + b->len, sep, (size_t)sl);
  if (v->len)
    memcpy(b->p + b->len + sl, v->s, (size_t)v->len);
  b->len += sl + v->len;
  return 0;
}

/* DECIMAL128 values as MIN/MAX/first/last/DISTINCT keep them (LM_VT_STR):
 * 16 bytes, big-endian with the sign bit flipped, so that memcmp orders
 * them as numbers. */
static void dec_encode(char *o, lm_i128 v) {
  unsigned __int128 u = (unsigned __int128)v ^ ((unsigned __int128)1 << 127);
  for (int i = 15; i >= 0; i--, u >>= 8)
    o[i] = (char)(uint8_t)u;
}
static lm_i128 dec_decode(const char *p) {
  unsigned __int128 u = 0;
  for (int i = 0; i < 16; i++)
    u = (u << 8) | (uint8_t)p[i];
  return (lm_i128)(u ^ ((unsigned __int128)1 << 127));
}

/* Row r of x as a value of kind k; db (16 bytes) holds the encoded value
 * of a DECIMAL128 row, which v.s then points at. */
static lm_vval get_val(const lm_array *x, int64_t r, lm_vt_kind k, char *db) {
  lm_vval v = {0, 0, NULL, 0};
  if (x->type.id == LM_TYPE_DECIMAL128) {
    dec_encode(db, lm_dec_get(x, r));
    v.s = db;
    v.len = 16;
  } else if (k == LM_VT_STR)
    v.s = lm_array_str(x, r, &v.len);
  else if (k == LM_VT_F64)
    v.f = lm_array_get_f64(x, r);
  else
    v.i = lm_array_get_i64(x, r);
  return v;
}

/* get_val for a DISTINCT aggregate: a CHAR(n) value without its trailing
 * spaces (count(DISTINCT c) counts 'a ' and 'a   ' once, as bpchar). */
static lm_vval get_dval(const lm_array *x, int64_t r, lm_vt_kind k, char *db) {
  lm_vval v = get_val(x, r, k, db);
  if (k == LM_VT_STR && lm_type_is_bpchar(x->type))
    while (v.len > 0 && v.s[v.len - 1] == ' ')
      v.len--;
  return v;
}

/* MIN / MAX kept in the retractable trees (a materialized view under
 * UPDATE / DELETE) of a type whose equal values may print differently
 * (INTERVAL_MDN: '1 mon' and '30 days'; floats: 0 and -0): PostgreSQL
 * keeps the later of equal values in scan order, so each distinct value
 * (-0 apart from 0: tiebreak 1) carries the seq of its latest insertion
 * and the result is the extreme value inserted last (mm_latest). */
static bool mm_ties(const lm_agg_spec *sp, const agg_state *s) {
  return s->tree && is_minmax(sp->kind) &&
         (sp->in_type.id == LM_TYPE_INTERVAL_MDN || is_float(sp->in_type));
}

static int64_t mm_k2(const lm_agg_spec *sp, const lm_vval *v) {
  return is_float(sp->in_type) && !isnan(v->f) && signbit(v->f) ? 1 : 0;
}

/* The key of an occurrence in vt2: the value itself, a float as its bits
 * (-0 apart from 0, every NaN one) */
static lm_vval mm_v2(const lm_agg_spec *sp, const lm_vval *v) {
  lm_vval r = *v;
  if (is_float(sp->in_type)) {
    double f = isnan(v->f) ? NAN : v->f;
    memcpy(&r.i, &f, sizeof r.i);
  }
  return r;
}

/* Sets the payload of value node (g, v) to the seq of its latest
 * remaining occurrence in vt2. */
static void mm_mark(agg_state *s, const lm_agg_spec *sp, uint32_t g,
                    const lm_vval *v) {
  lm_vval v2 = mm_v2(sp, v);
  int32_t nd = lm_vtree_find(&s->vt, g, v, mm_k2(sp, v));
  int32_t o = nd >= 0 ? lm_vtree_last_with(&s->vt2, g, &v2) : -1;
  if (o >= 0)
    s->vt.nodes[nd].p.i = s->vt2.nodes[o].k2;
}

/* The key of an occurrence in vt3: mm_v2's bytes, then the row's id
 * (lm_aggtable_set_row_ids; 0 without), in buf (at least 8 + len bytes). */
static lm_vval mm_v3(const lm_agg_spec *sp, const lm_vval *v2, uint64_t id,
                     char *buf) {
  size_t l = is_float(sp->in_type) ? 8 : (size_t)v2->len;
  if (is_float(sp->in_type))
    memcpy(buf, &v2->i, 8);
  else if (l)
    memcpy(buf, v2->s, l);
  memcpy(buf + l, &id, 8);
  return (lm_vval){0, 0, buf, (int32_t)(l + 8)};
}

/* The row id of the row being folded (0 when the batch has none). */
static uint64_t cur_rid(const lm_aggtable *t) {
  return t->rid ? t->rid[t->cur_row] : 0;
}

/* The vt3 node of group g whose key starts with the len bytes at p and
 * whose seq is `seq`, or -1 (a walk over that value's occurrences: only
 * when a retraction's row id matched none). */
static int32_t v3_by_seq(const lm_vtree *t3, uint32_t g, const char *p,
                         int32_t len, int64_t seq) {
  lm_vval pre = {0, 0, p, len};
  for (int32_t nd = lm_vtree_lower(t3, g, &pre); nd >= 0;
       nd = lm_vtree_next(t3, nd)) {
    lm_vval k = lm_vtree_key(t3, nd);
    if (k.len < len || memcmp(k.s, p, (size_t)len) != 0)
      return -1;
    if (k.len == len + 8 && t3->nodes[nd].k2 == seq)
      return nd;
  }
  return -1;
}

/* Adds w occurrences of v (w < 0: removes -w) to group g of a mm_ties
 * state: vt counts each value, vt2 holds each occurrence (gid, value,
 * seq) and vt3 the same with the row's id (gid, value + id, seq); a
 * removal takes the latest occurrence of the same value from the same row
 * (from any row when none matches). 0, -1 out of memory, -2 a removal of a
 * value not there. */
static int mm_add(lm_aggtable *t, agg_state *s, const lm_agg_spec *sp,
                  uint32_t g, const lm_vval *v, int64_t w) {
  int64_t k2 = mm_k2(sp, v);
  lm_vval v2 = mm_v2(sp, v);
  int32_t l2 = is_float(sp->in_type) ? 8 : v2.len;
  char stack[96], *buf = stack; /* v3, then a copy of a vt3 key */
  if (2 * ((size_t)l2 + 8) > sizeof stack &&
      !(buf = malloc(2 * ((size_t)l2 + 8))))
    return -1;
  lm_vval v3 = mm_v3(sp, &v2, cur_rid(t), buf);
  int rc = 0;
  for (int64_t c = 0; c < (w < 0 ? -w : w) && !rc; c++) {
    if (w > 0) {
      lm_vval seq = {next_seq(t, c), 0, NULL, 0};
      rc = lm_vtree_add(&s->vt2, g, &v2, seq.i, 1, NULL, NULL);
      if (!rc && (rc = lm_vtree_add(&s->vt3, g, &v3, seq.i, 1, NULL, NULL)))
        lm_vtree_add(&s->vt2, g, &v2, seq.i, -1, NULL, NULL);
      if (!rc && (rc = lm_vtree_add(&s->vt, g, v, k2, 1, &seq, NULL))) {
        lm_vtree_add(&s->vt2, g, &v2, seq.i, -1, NULL, NULL);
        lm_vtree_add(&s->vt3, g, &v3, seq.i, -1, NULL, NULL);
      }
    } else {
      int32_t n3 = lm_vtree_last_with(&s->vt3, g, &v3);
      int64_t seq;
      if (n3 >= 0) {
        seq = s->vt3.nodes[n3].k2;
      } else { /* no occurrence of this row: the value's latest */
        int32_t nd = lm_vtree_last_with(&s->vt2, g, &v2);
        if (nd < 0) {
          rc = -2;
          break;
        }
        seq = s->vt2.nodes[nd].k2;
        n3 = v3_by_seq(&s->vt3, g, buf, l2, seq);
      }
      rc = lm_vtree_add(&s->vt, g, v, k2, -1, NULL, NULL);
      if (!rc)
        rc = lm_vtree_add(&s->vt2, g, &v2, seq, -1, NULL, NULL);
      if (!rc && n3 >= 0) {
        lm_vval k3 = lm_vtree_key(&s->vt3, n3);
        if (k3.len == v3.len) { /* a copy: the node's bytes are freed */
          memcpy(buf + v3.len, k3.s, (size_t)k3.len);
          k3.s = buf + v3.len;
          rc = lm_vtree_add(&s->vt3, g, &k3, seq, -1, NULL, NULL);
        }
      }
    }
  }
  if (buf != stack)
    free(buf);
  if (rc)
    return rc;
  mm_mark(s, sp, g, v);
  return 0;
}

/* Which aggregates keep their state in the trees. */
static void choose_layout(lm_aggtable *t) {
  for (int a = 0; a < t->n_aggs; a++) {
    const lm_agg_spec *sp = &t->aggs[a];
    agg_state *s = &t->st[a];
    s->tree = is_distinct(sp) || is_by_value(sp) || is_ordset(sp->kind) ||
              (t->retract && (is_minmax(sp->kind) || is_seq(sp)));
    lm_vt_kind vk = sp_kind(sp);
    s->dset_only = is_distinct(sp) && !t->retract && vk == LM_VT_INT;
    if (is_seq(sp)) {
      lm_vtree_init(&s->vt, LM_VT_INT, vk);
      lm_vtree_init(&s->vt2, vk, LM_VT_NONE);
    } else if (mm_ties(sp, s)) { /* payload: the latest occurrence's seq */
      lm_vtree_init(&s->vt, vk, LM_VT_INT);
      lm_vtree_init(&s->vt2, is_float(sp->in_type) ? LM_VT_INT : vk,
                    LM_VT_NONE);
    } else {
      lm_vtree_init(&s->vt, vk, LM_VT_NONE);
      lm_vtree_init(&s->vt2, LM_VT_INT, LM_VT_NONE);
    }
    lm_vtree_init(&s->vt3, LM_VT_STR, LM_VT_NONE);
  }
  t->spell = false;
  for (int k = 0; t->spell_k && k < t->n_keys; k++) {
    lm_type kt = t->key_types[k];
    t->spell_k[k] =
        t->retract && (is_float(kt) || kt.id == LM_TYPE_INTERVAL_MDN ||
                       lm_type_is_bpchar(kt) || lm_type_is_jsonb(kt));
    t->spell = t->spell || t->spell_k[k];
  }
  lm_vtree_init(&t->sv, LM_VT_INT, LM_VT_STR);
  lm_vtree_init(&t->sv2, LM_VT_STR, LM_VT_NONE);
}

lm_aggtable *lm_aggtable_new(int n_keys, const lm_type *key_types, int n_aggs,
                             const lm_agg_spec *aggs) {
  lm_aggtable *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->n_keys = n_keys;
  t->n_aggs = n_aggs;
  t->aggs = aggs;
  t->seq_base = -1;
  t->key_types = calloc((size_t)n_keys + 1, sizeof(lm_type));
  t->spell_k = calloc((size_t)n_keys + 1, sizeof(bool));
  t->st = calloc((size_t)n_aggs + 1, sizeof(agg_state));
  t->n_slots = 64;
  t->slots = calloc(t->n_slots, sizeof(uint32_t));
  t->key_off = calloc(1, sizeof(int64_t));
  if (!t->key_types || !t->spell_k || !t->st || !t->slots || !t->key_off) {
    lm_aggtable_free(t);
    return NULL;
  }
  if (n_keys)
    memcpy(t->key_types, key_types, sizeof(lm_type) * (size_t)n_keys);
  for (int k = 0; k < n_keys; k++)
    if ((lm_type_is_bpchar(key_types[k]) || is_float(key_types[k])) &&
        !t->spad && !(t->spad = calloc((size_t)n_keys, sizeof(int32_t)))) {
      lm_aggtable_free(t);
      return NULL;
    }
  for (int k = 0; k < n_keys; k++)
    if (lm_type_is_jsonb(key_types[k]) && !t->sjof &&
        !(t->sjof = calloc((size_t)n_keys, sizeof(int64_t)))) {
      lm_aggtable_free(t);
      return NULL;
    }
  lm_buf_init(&t->jorig);
  lm_buf_init(&t->sjorig);
  lm_buf_init(&t->jcanon);
  lm_buf_init(&t->spbuf);
  for (int k = 0; k < n_keys; k++)
    if (key_types[k].id == LM_TYPE_INTERVAL_MDN && !t->smdn &&
        !(t->smdn = calloc((size_t)n_keys, 16))) {
      lm_aggtable_free(t);
      return NULL;
    }
  lm_buf_init(&t->keys);
  lm_buf_init(&t->scratch);
  choose_layout(t);
  return t;
}

int lm_aggtable_set_retractable(lm_aggtable *t, lm_error *err) {
  if (t->n_groups || t->cap)
    return lm_err(err, LM_ERR_EXEC,
                  "internal error: a group table becomes retractable only "
                  "before its first row");
  for (int a = 0; a < t->n_aggs; a++)
    if (t->aggs[a].kind == LM_AGG_APPROX_DISTINCT)
      return lm_err(err, LM_ERR_BIND,
                    "APPROX_COUNT_DISTINCT cannot consume retractions (its "
                    "input is an updating stream or view)");
  for (int a = 0; a < t->n_aggs; a++)
    if (t->aggs[a].kind == LM_AGG_REGR && t->aggs[a].regr_fn >= 0) {
      lm_err(err, LM_ERR_BIND,
             "corr, covar_* and regr_* (but regr_count) cannot consume "
             "retractions (their input is an updating stream or view)");
      return lm_err_state(err, "0A000");
    }
  t->retract = true;
  choose_layout(t);
  return 0;
}

static void free_group_values(lm_aggtable *t, int64_t from) {
  for (int a = 0; t->st && a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    for (int64_t g = from; g < t->n_groups; g++) {
      if (s->s) {
        free(s->s[g]);
        s->s[g] = NULL;
      }
      if (s->hll) {
        free(s->hll[g]);
        s->hll[g] = NULL;
      }
      if (s->sb) {
        free(s->sb[g].p);
        memset(&s->sb[g], 0, sizeof s->sb[g]);
      }
    }
  }
}

void lm_aggtable_free(lm_aggtable *t) {
  if (!t)
    return;
  free_group_values(t, 0);
  for (int a = 0; t->st && a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    free(s->cnt);
    free(s->i);
    free(s->f);
    free(s->w);
    free(s->fs);
    free(s->fd);
    free(s->nt);
    free(s->sb);
    free(s->vr);
    free(s->w2);
    free(s->rg);
    free(s->bc);
    free(s->s);
    free(s->sl);
    free(s->sq);
    free(s->hll);
    lm_vtree_free(&s->vt);
    lm_vtree_free(&s->vt2);
    lm_vtree_free(&s->vt3);
    free(s->dgid);
    free(s->dval);
  }
  free(t->st);
  free(t->rows);
  free(t->key_types);
  free(t->slots);
  free(t->hashes);
  free(t->key_off);
  free(t->pad);
  free(t->spad);
  free(t->mdn);
  free(t->smdn);
  free(t->jof);
  free(t->sjof);
  lm_buf_free(&t->jorig);
  lm_buf_free(&t->sjorig);
  lm_buf_free(&t->jcanon);
  lm_buf_free(&t->spbuf);
  lm_vtree_free(&t->sv);
  lm_vtree_free(&t->sv2);
  free(t->spell_k);
  free(t->gid_buf);
  free(t->check);
  free(t->wj);
  lm_buf_free(&t->keys);
  lm_buf_free(&t->scratch);
  free(t);
}

int64_t lm_aggtable_groups(const lm_aggtable *t) {
  return t->n_groups;
}

int64_t lm_aggtable_group_rows(const lm_aggtable *t, uint32_t gid) {
  return (int64_t)gid < t->n_groups ? t->rows[gid] : 0;
}

bool lm_aggtable_extreme_i64(const lm_aggtable *t, int agg, uint32_t gid,
                             int64_t *out) {
  if (agg < 0 || agg >= t->n_aggs || (int64_t)gid >= t->n_groups)
    return false;
  const lm_agg_spec *sp = &t->aggs[agg];
  const agg_state *s = &t->st[agg];
  if ((sp->kind != LM_AGG_MIN && sp->kind != LM_AGG_MAX) || s->tree ||
      vt_kind(sp->in_type) != LM_VT_INT || !s->cnt || s->cnt[gid] <= 0)
    return false;
  *out = s->i[gid];
  return true;
}

static int grow_arr(void **p, size_t elem, int64_t old, int64_t cap) {
  void *n = realloc(*p, elem * (size_t)cap);
  if (!n)
    return -1;
  memset((char *)n + elem * (size_t)old, 0, elem * (size_t)(cap - old));
  *p = n;
  return 0;
}

#define GROW(field, type)                                                      \
  if (grow_arr((void **)&(field), sizeof(type), t->cap, cap))                  \
  return -1

static int grow_groups(lm_aggtable *t) {
  int64_t cap = t->cap ? t->cap * 2 : 64;
  if (grow_arr((void **)&t->hashes, sizeof(uint64_t), t->cap, cap) ||
      grow_arr((void **)&t->key_off, sizeof(int64_t), t->cap + 1, cap + 1) ||
      grow_arr((void **)&t->rows, sizeof(int64_t), t->cap, cap) ||
      (t->spad && grow_arr((void **)&t->pad,
                           sizeof(int32_t) * (size_t)t->n_keys, t->cap, cap)) ||
      (t->smdn &&
       grow_arr((void **)&t->mdn, 16 * (size_t)t->n_keys, t->cap, cap)) ||
      (t->sjof && grow_arr((void **)&t->jof,
                           sizeof(int64_t) * (size_t)t->n_keys, t->cap, cap)))
    return -1;
  for (int a = 0; a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    const lm_agg_spec *sp = &t->aggs[a];
    GROW(s->cnt, int64_t);
    switch (sp->kind) {
    case LM_AGG_COUNT_STAR:
    case LM_AGG_COUNT:
      break;
    case LM_AGG_SUM:
    case LM_AGG_AVG:
      if (is_float(sp->in_type)) {
        GROW(s->fs, fsum);
        if (!t->retract)
          GROW(s->fd, fshadow);
      } else if (sp->kind == LM_AGG_SUM && !SUM_WIDE(t, sp)) {
        GROW(s->i, int64_t);
      } else {
        GROW(s->w, __int128);
        if (DEC_SPECIALS(sp))
          GROW(s->fs, fsum);
      }
      break;
    case LM_AGG_MIN:
    case LM_AGG_MAX:
    case LM_AGG_FIRST:
    case LM_AGG_LAST:
      if (s->tree)
        break;
      if (is_firstlast(sp->kind))
        GROW(s->sq, int64_t);
      if (vt_kind(sp->in_type) == LM_VT_STR) {
        GROW(s->s, char *);
        GROW(s->sl, int32_t);
      } else if (is_float(sp->in_type)) {
        GROW(s->f, double);
      } else {
        GROW(s->i, int64_t);
      }
      break;
    case LM_AGG_VAR_SAMP:
    case LM_AGG_VAR_POP:
    case LM_AGG_STDDEV_SAMP:
    case LM_AGG_STDDEV_POP:
      if (VAR_NUMERIC(sp)) {
        GROW(s->w, __int128);
        GROW(s->w2, lm_s256);
        if (DEC_SPECIALS(sp))
          GROW(s->fs, fsum);
      } else {
        GROW(s->vr, var_state);
      }
      break;
    case LM_AGG_APPROX_DISTINCT:
      GROW(s->hll, uint8_t *);
      break;
    case LM_AGG_BOOL_AND:
    case LM_AGG_BOOL_OR:
      GROW(s->nt, int64_t);
      break;
    case LM_AGG_STRING_AGG:
      if (!s->tree)
        GROW(s->sb, sbuf);
      break;
    case LM_AGG_REGR:
      GROW(s->rg, lm_regr);
      break;
    case LM_AGG_PAIR:
    case LM_AGG_PCT_CONT:
    case LM_AGG_PCT_DISC:
    case LM_AGG_MODE:
      break;
    case LM_AGG_BIT_AND:
    case LM_AGG_BIT_OR:
    case LM_AGG_BIT_XOR:
      if (t->retract) {
        GROW(s->bc, bitcnt);
      } else {
        GROW(s->i, int64_t);
      }
      break;
    }
  }
  t->cap = cap;
  return 0;
}

static int rehash(lm_aggtable *t) {
  uint64_t n = t->n_slots * 2;
  uint32_t *s = calloc(n, sizeof(uint32_t));
  if (!s)
    return -1;
  for (int64_t g = 0; g < t->n_groups; g++) {
    uint64_t h = t->hashes[g] & (n - 1);
    while (s[h])
      h = (h + 1) & (n - 1);
    s[h] = (uint32_t)(g + 1);
  }
  free(t->slots);
  t->slots = s;
  t->n_slots = n;
  return 0;
}

/* Whether key k's values are CHAR(n) (either the table's key type or the
 * batch's array says so): encoded without trailing spaces. */
static inline bool key_bpchar(const lm_aggtable *t, const lm_array *a, int k) {
  return lm_type_is_bpchar(a->type) || lm_type_is_bpchar(t->key_types[k]);
}

/* A SQL array (LIST) key: bytes its encoding takes at most (lm_array_list
 * row r of a, not NULL). */
static size_t list_need(const lm_array *a, int64_t r) {
  int64_t s, e;
  lm_array_list_range(a, r, &s, &e);
  const lm_array *c = a->children[0];
  size_t need = 4 + (size_t)(e - s) * 17;
  if (c->type.id == LM_TYPE_UTF8 || c->type.id == LM_TYPE_BINARY)
    for (int64_t k = s; k < e; k++)
      if (!lm_array_is_null(c, k)) {
        int32_t len;
        lm_array_str(c, k, &len);
        need += (size_t)len + 4;
      }
  return need;
}

/* Writes the array key row r of a at p: a 4-byte length, then per item a
 * NULL flag byte and the value as a flat key encodes it (equal arrays,
 * items compared as GROUP BY compares values, give equal bytes). Returns
 * the end. */
static char *list_encode(char *p, const lm_array *a, int64_t r) {
  int64_t s, e;
  lm_array_list_range(a, r, &s, &e);
  const lm_array *c = a->children[0];
  char *start = p;
  p += 4;
  for (int64_t k = s; k < e; k++) {
    if (c->type.id == LM_TYPE_NULL || lm_array_is_null(c, k)) {
      *p++ = 0;
      continue;
    }
    *p++ = 1;
    switch (c->type.id) {
    case LM_TYPE_DECIMAL128:
    case LM_TYPE_INTERVAL_MDN: /* its 16 bytes as stored */
      memcpy(p, c->values->data + (size_t)(c->offset + k) * 16, 16);
      p += 16;
      break;
    case LM_TYPE_UTF8:
    case LM_TYPE_BINARY: {
      int32_t len;
      const char *v = lm_array_str(c, k, &len);
      memcpy(p, &len, 4);
      memcpy(p + 4, v, (size_t)len);
      p += 4 + len;
      break;
    }
    case LM_TYPE_FLOAT32:
    case LM_TYPE_FLOAT64: {
      double d = lm_array_get_f64(c, k);
      if (d == 0)
        d = 0;
      if (isnan(d))
        d = NAN;
      memcpy(p, &d, 8);
      p += 8;
      break;
    }
    case LM_TYPE_BOOL:
      *p++ = lm_array_bool(c, k) ? 1 : 0;
      break;
    default: {
      int64_t v = lm_array_get_i64(c, k);
      memcpy(p, &v, 8);
      p += 8;
    }
    }
  }
  int32_t len = (int32_t)(p - start - 4);
  memcpy(start, &len, 4);
  return p;
}

/* Encodes row r's key into t->scratch: per key a NULL flag byte, then the
 * value (8 bytes for integer-like and floating, 1 for BOOLEAN, a 4-byte
 * length plus the bytes for VARCHAR; CHAR(n) without its trailing spaces,
 * their number in t->spad). Returns -1 on OOM. */
static int encode_key(lm_aggtable *t, lm_array *const *keys, int64_t r) {
  size_t need = (size_t)t->n_keys * 17; /* DECIMAL128: 16 bytes */
  for (int k = 0; k < t->n_keys; k++)
    if ((keys[k]->type.id == LM_TYPE_UTF8 ||
         keys[k]->type.id == LM_TYPE_BINARY) &&
        !lm_array_is_null(keys[k], r)) {
      int32_t len;
      lm_array_str(keys[k], r, &len);
      need += (size_t)len + 4;
    } else if (keys[k]->type.id == LM_TYPE_LIST &&
               !lm_array_is_null(keys[k], r)) {
      need += list_need(keys[k], r); /* a SQL array */
    }
  lm_buf *b = &t->scratch;
  b->len = 0;
  if (b->cap < need + 1 && lm_buf_reserve(b, need + 1))
    return -1;
  char *p = b->data;
  t->sjorig.len = 0;
  for (int k = 0; k < t->n_keys; k++) {
    const lm_array *a = keys[k];
    if (t->spad)
      t->spad[k] = 0;
    if (t->sjof)
      t->sjof[k] = 0;
    if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, r)) {
      *p++ = 0;
      continue;
    }
    *p++ = 1;
    switch (a->type.id) {
    case LM_TYPE_INTERVAL_MDN: { /* the span: '1 mon' groups with '30 days' */
      const uint8_t *slot = a->values->data + (size_t)(a->offset + r) * 16;
      __int128 sp = lm_iv_span_slot(slot);
      memcpy(p, &sp, 16);
      p += 16;
      if (t->smdn && k < t->n_keys) /* the value itself, for the output */
        memcpy(t->smdn + (size_t)k * 16, slot, 16);
      break;
    }
    case LM_TYPE_DECIMAL128: /* the 16 value bytes (one scale per key) */
      memcpy(p, a->values->data + (size_t)(a->offset + r) * 16, 16);
      p += 16;
      break;
    case LM_TYPE_LIST: /* a SQL array: its items */
      p = list_encode(p, a, r);
      break;
    case LM_TYPE_UTF8:
    case LM_TYPE_BINARY: {
      int32_t len;
      const char *s = lm_array_str(a, r, &len);
      if (a->type.id == LM_TYPE_UTF8 && key_bpchar(t, a, k)) {
        int32_t full = len;
        while (len > 0 && s[len - 1] == ' ')
          len--;
        if (t->spad)
          t->spad[k] = full - len;
      } else if (t->sjof && lm_type_is_jsonb(t->key_types[k])) {
        /* jsonb: the equality key (never longer), the value kept apart */
        t->jcanon.len = 0;
        int c = lm_jsonb_canon(&t->jcanon, s, (size_t)len);
        if (c < 0)
          return -1;
        if (c == 1) {
          t->sjof[k] = (int64_t)t->sjorig.len + 1;
          if (lm_buf_append(&t->sjorig, &len, 4) ||
              lm_buf_append(&t->sjorig, s, (size_t)len))
            return -1;
          s = t->jcanon.data;
          len = (int32_t)t->jcanon.len;
        }
      }
      memcpy(p, &len, 4);
      memcpy(p + 4, s, (size_t)len);
      p += 4 + len;
      break;
    }
    case LM_TYPE_FLOAT32:
    case LM_TYPE_FLOAT64: {
      double d = lm_array_get_f64(a, r);
      if (d == 0) { /* -0.0 groups with 0.0; the first value shows */
        if (t->spad && signbit(d))
          t->spad[k] = 1;
        d = 0;
      }
      if (isnan(d))
        d = NAN;
      memcpy(p, &d, 8);
      p += 8;
      break;
    }
    case LM_TYPE_BOOL:
      *p++ = lm_array_bool(a, r) ? 1 : 0;
      break;
    case LM_TYPE_INT64:
    case LM_TYPE_TIMESTAMP:
    case LM_TYPE_INTERVAL:
      memcpy(p, lm_array_i64(a) + r, 8);
      p += 8;
      break;
    default: {
      int64_t v = lm_array_get_i64(a, r);
      memcpy(p, &v, 8);
      p += 8;
    }
    }
  }
  b->len = (size_t)(p - b->data);
  return 0;
}

#define KEY_SEED 0x51ed270b27bULL

static inline uint64_t rd64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The hash of an encoded key (every group's t->hashes[g]): 8-byte words
 * multiplied in, then a murmur3 finalizer, so the low bits (the probe
 * position) depend on every byte. Inlined: keys are short. */
static inline uint64_t key_hash(const char *p, size_t n) {
  uint64_t h = KEY_SEED ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
  for (; n >= 8; p += 8, n -= 8) {
    h = (h ^ rd64(p)) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  if (n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
      w |= (uint64_t)(uint8_t)p[i] << (8 * i);
    h = (h ^ w) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

static inline bool key_eq(const char *a, const char *b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8)
    if (rd64(a) != rd64(b))
      return false;
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

/* The group of encoded key kp[0..kl) with hash h (key_hash), created if
 * absent; kp must not point into t->keys. */
static int64_t find_or_add_key(lm_aggtable *t, const char *kp, size_t kl,
                               uint64_t h) {
  uint64_t mask = t->n_slots - 1, i = h & mask;
  for (;;) {
    uint32_t s = t->slots[i];
    if (!s)
      break;
    int64_t g = (int64_t)s - 1;
    if (t->hashes[g] == h &&
        (size_t)(t->key_off[g + 1] - t->key_off[g]) == kl &&
        key_eq(t->keys.data + t->key_off[g], kp, kl))
      return g;
    i = (i + 1) & mask;
  }
  if (t->n_groups >= UINT32_MAX - 1)
    return -1;
  if (t->n_groups == t->cap && grow_groups(t))
    return -1;
  int64_t g = t->n_groups++;
  if (lm_buf_append(&t->keys, kp, kl))
    return -1;
  if (t->pad)
    memcpy(t->pad + g * t->n_keys, t->spad,
           sizeof(int32_t) * (size_t)t->n_keys);
  if (t->mdn)
    memcpy(t->mdn + (size_t)g * (size_t)t->n_keys * 16, t->smdn,
           16 * (size_t)t->n_keys);
  if (t->jof) /* jsonb keys: the first value, when not its key */
    for (int k = 0; k < t->n_keys; k++) {
      int64_t o = t->sjof[k], *d = &t->jof[g * t->n_keys + k];
      *d = 0;
      if (o > 0) {
        int32_t l;
        memcpy(&l, t->sjorig.data + o - 1, 4);
        *d = (int64_t)t->jorig.len + 1;
        if (lm_buf_append(&t->jorig, t->sjorig.data + o - 1, 4 + (size_t)l))
          return -1;
      }
    }
  t->key_off[g + 1] = (int64_t)t->keys.len;
  t->hashes[g] = h;
  t->slots[i] = (uint32_t)(g + 1);
  if ((uint64_t)t->n_groups * 2 > t->n_slots && rehash(t))
    return -1;
  return g;
}

int64_t lm_aggtable_key_bytes(const lm_aggtable *t) {
  return (int64_t)t->keys.len;
}

int lm_aggtable_reserve(lm_aggtable *t, int64_t groups, int64_t key_bytes) {
  while (t->cap < groups)
    if (grow_groups(t))
      return LM_ERR_NOMEM;
  while ((uint64_t)groups * 2 > t->n_slots)
    if (rehash(t))
      return LM_ERR_NOMEM;
  if (key_bytes > 0 && lm_buf_reserve(&t->keys, (size_t)key_bytes))
    return LM_ERR_NOMEM;
  return 0;
}

static int64_t find_or_add(lm_aggtable *t) {
  const char *kp = t->scratch.data ? t->scratch.data : "";
  size_t kl = t->scratch.len;
  return find_or_add_key(t, kp, kl, key_hash(kp, kl));
}

/* key_hash of the encoding of row r of fixed keys v[0..nk) (see
 * fixed_keys): nk 9-byte elements (flag 1, the value), computed from the
 * values word by word instead of from the bytes. */
static inline uint64_t fixed_hash(const int64_t *const *v, int nk, int64_t r) {
  uint64_t h = KEY_SEED ^ ((uint64_t)(9 * nk) * 0x9E3779B97F4A7C15ULL);
  uint64_t prev = 0;
  for (int j = 0; j < nk; j++) {
    uint64_t x = (uint64_t)v[j][r];
    /* bytes [8j, 8j+8): the top j bytes of element j-1's value, element
     * j's flag, then the first 7-j bytes of its value */
    uint64_t w = (j ? prev >> (64 - 8 * j) : 0) | (1ULL << (8 * j)) |
                 (j < 7 ? x << (8 * j + 8) : 0);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    prev = x;
  }
  if (nk == 8) { /* 72 bytes: a ninth full word, the last value */
    h = (h ^ prev) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  } else if (nk) { /* the last nk bytes: the top of the last value */
    h = (h ^ (prev >> (64 - 8 * nk))) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

/* find_or_add_key for row r of fixed keys: compares the stored elements
 * with the values, and encodes the key only to insert it. */
static int64_t find_or_add_fixed(lm_aggtable *t, const int64_t *const *v,
                                 int nk, int64_t r) {
  uint64_t h = fixed_hash(v, nk, r);
  int64_t kl = 9 * nk;
  uint64_t mask = t->n_slots - 1, i = h & mask;
  for (uint32_t s; (s = t->slots[i]) != 0; i = (i + 1) & mask) {
    int64_t g = (int64_t)s - 1;
    if (t->hashes[g] != h || t->key_off[g + 1] - t->key_off[g] != kl)
      continue;
    const char *p = t->keys.data + t->key_off[g];
    int k = 0;
    for (; k < nk; k++, p += 9)
      if (p[0] != 1 || rd64(p + 1) != (uint64_t)v[k][r])
        break;
    if (k == nk)
      return g;
  }
  char kb[72], *p = kb;
  for (int k = 0; k < nk; k++, p += 9) {
    p[0] = 1;
    memcpy(p + 1, v[k] + r, 8);
  }
  return find_or_add_key(t, kb, (size_t)kl, h);
}

/* Keys every one of which is an 8-byte integer-like column (BIGINT,
 * TIMESTAMP, INTERVAL: window columns, integer ids): a row without NULLs
 * is encoded straight from the values, same bytes as encode_key. *nulls:
 * whether some key has NULLs (rows holding one take encode_key). */
static bool fixed_keys(const lm_aggtable *t, lm_array *const *keys,
                       bool *nulls) {
  if (t->n_keys > 8)
    return false;
  *nulls = false;
  for (int k = 0; k < t->n_keys; k++) {
    const lm_array *a = keys[k];
    lm_type_id id = a->type.id;
    if (id != LM_TYPE_INT64 && id != LM_TYPE_TIMESTAMP &&
        id != LM_TYPE_INTERVAL)
      return false;
    *nulls = *nulls || (a->validity && a->null_count != 0);
  }
  return true;
}

static inline bool isnull(const lm_array *a, int64_t r) {
  return a->validity && lm_array_is_null(a, r);
}

static bool row_has_null(lm_array *const *keys, int nk, int64_t r) {
  for (int k = 0; k < nk; k++)
    if (isnull(keys[k], r))
      return true;
  return false;
}

/* Short string keys (one or two VARCHAR / BINARY keys, not CHAR(n)): a
 * value as one word, equal exactly when the encoded keys are: NULL as a
 * length byte of 0xff, else at most 7 bytes with their length in the top
 * byte. false when the value is longer. */
static inline bool pack_short(const lm_array *a, int64_t r, uint64_t *w) {
  if (a->validity && lm_array_is_null(a, r)) {
    *w = 0xffULL << 56;
    return true;
  }
  const int32_t *off = (const int32_t *)a->values->data + a->offset;
  int32_t len = off[r + 1] - off[r];
  if ((uint32_t)len > 7)
    return false;
  const uint8_t *d = (const uint8_t *)a->data->data + off[r];
  uint64_t v = (uint64_t)len << 56;
  for (int32_t b = 0; b < len; b++)
    v |= (uint64_t)d[b] << (8 * b);
  *w = v;
  return true;
}

/* lm_aggtable_lookup of a large batch over one or two short string keys
 * (group by a code, a name): a batch-local table from the packed values
 * to the group in front of the group table, so a repeated key costs one
 * probe of two words instead of encoding, hashing and comparing its
 * bytes; new keys and longer values take the general path. 1 when the
 * keys do not qualify (nothing done), 0 done, -1 on OOM. */
static int lookup_short(lm_aggtable *t, lm_array *const *keys,
                        const int32_t *sel, int64_t n, uint32_t *gids) {
  int nk = t->n_keys;
  if (n < 256 || nk < 1 || nk > 2)
    return 1;
  for (int k = 0; k < nk; k++) {
    lm_type_id id = keys[k]->type.id;
    if ((id != LM_TYPE_UTF8 && id != LM_TYPE_BINARY) ||
        key_bpchar(t, keys[k], k) || lm_type_is_jsonb(t->key_types[k]))
      return 1;
  }
  enum { MAX_CAP = 1 << 16 };
  int64_t cap = 1024, used = 0;
  uint64_t *m0 = malloc(sizeof(uint64_t) * (size_t)cap);
  uint64_t *m1 = malloc(sizeof(uint64_t) * (size_t)cap);
  uint32_t *mg = calloc((size_t)cap, sizeof(uint32_t)); /* gid + 1 */
  int rc = 0;
  if (!m0 || !m1 || !mg) {
    rc = -1;
    goto out;
  }
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    uint64_t w0, w1 = 0;
    if (!pack_short(keys[0], r, &w0) ||
        (nk > 1 && !pack_short(keys[1], r, &w1))) {
      int64_t g = encode_key(t, keys, r) ? -1 : find_or_add(t);
      if (g < 0) {
        rc = -1;
        goto out;
      }
      gids[j] = (uint32_t)g;
      continue;
    }
    uint64_t h = lm_hash_u64(w0 ^ lm_hash_u64(w1));
    int64_t i = (int64_t)(h & (uint64_t)(cap - 1));
    while (mg[i] && (m0[i] != w0 || m1[i] != w1))
      i = (i + 1) & (cap - 1);
    if (mg[i]) {
      gids[j] = mg[i] - 1;
      continue;
    }
    int64_t g = encode_key(t, keys, r) ? -1 : find_or_add(t);
    if (g < 0) {
      rc = -1;
      goto out;
    }
    gids[j] = (uint32_t)g;
    if ((used + 1) * 2 > cap) {
      if (cap >= MAX_CAP)
        continue; /* full: this key takes the general path */
      int64_t nc = cap * 2;
      uint64_t *n0 = malloc(sizeof(uint64_t) * (size_t)nc);
      uint64_t *n1 = malloc(sizeof(uint64_t) * (size_t)nc);
      uint32_t *ng = calloc((size_t)nc, sizeof(uint32_t));
      if (!n0 || !n1 || !ng) {
        free(n0);
        free(n1);
        free(ng);
        rc = -1;
        goto out;
      }
      for (int64_t q = 0; q < cap; q++) {
        if (!mg[q])
          continue;
        uint64_t hq = lm_hash_u64(m0[q] ^ lm_hash_u64(m1[q]));
        int64_t p = (int64_t)(hq & (uint64_t)(nc - 1));
        while (ng[p])
          p = (p + 1) & (nc - 1);
        n0[p] = m0[q];
        n1[p] = m1[q];
        ng[p] = mg[q];
      }
      free(m0);
      free(m1);
      free(mg);
      m0 = n0;
      m1 = n1;
      mg = ng;
      cap = nc;
      i = (int64_t)(h & (uint64_t)(cap - 1));
      while (mg[i])
        i = (i + 1) & (cap - 1);
    }
    m0[i] = w0;
    m1[i] = w1;
    mg[i] = (uint32_t)g + 1;
    used++;
  }
out:
  free(m0);
  free(m1);
  free(mg);
  return rc;
}

int lm_aggtable_lookup(lm_aggtable *t, lm_array *const *keys,
                       const int32_t *sel, int64_t n, uint32_t *gids,
                       lm_error *err) {
  bool nulls;
  if (t->n_keys == 0 && n > 0) { /* a global aggregate: one lookup */
    const int64_t *none[1] = {NULL};
    int64_t g = find_or_add_fixed(t, none, 0, 0);
    if (g < 0)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
    for (int64_t j = 0; j < n; j++)
      gids[j] = (uint32_t)g;
    return 0;
  }
  int src = lookup_short(t, keys, sel, n, gids);
  if (src <= 0)
    return src ? lm_err(err, LM_ERR_NOMEM, "out of memory (group table)") : 0;
  if (fixed_keys(t, keys, &nulls)) {
    const int64_t *v[8];
    int nk = t->n_keys;
    for (int k = 0; k < nk; k++)
      v[k] = lm_array_i64(keys[k]);
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j, g;
      if (nulls && row_has_null(keys, nk, r))
        g = encode_key(t, keys, r) ? -1 : find_or_add(t);
      else
        g = find_or_add_fixed(t, v, nk, r);
      if (g < 0)
        return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
      gids[j] = (uint32_t)g;
    }
    return 0;
  }
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    int64_t g = encode_key(t, keys, r) ? -1 : find_or_add(t);
    if (g < 0)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
    gids[j] = (uint32_t)g;
  }
  return 0;
}

/* The group of encoded key kp[0..kl) with hash h, or -1 when absent. */
static int64_t find_key(const lm_aggtable *t, const char *kp, size_t kl,
                        uint64_t h) {
  uint64_t mask = t->n_slots - 1, i = h & mask;
  for (uint32_t s; (s = t->slots[i]) != 0; i = (i + 1) & mask) {
    int64_t g = (int64_t)s - 1;
    if (t->hashes[g] == h &&
        (size_t)(t->key_off[g + 1] - t->key_off[g]) == kl &&
        key_eq(t->keys.data + t->key_off[g], kp, kl))
      return g;
  }
  return -1;
}

int lm_aggtable_find(lm_aggtable *t, lm_array *const *keys, const int32_t *sel,
                     int64_t n, uint32_t *gids, lm_error *err) {
  bool nulls;
  if (fixed_keys(t, keys, &nulls)) {
    const int64_t *v[8];
    int nk = t->n_keys;
    char kb[72];
    for (int k = 0; k < nk; k++)
      v[k] = lm_array_i64(keys[k]);
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && row_has_null(keys, nk, r)) {
        if (encode_key(t, keys, r))
          return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
        const char *kp = t->scratch.data ? t->scratch.data : "";
        size_t kl = t->scratch.len;
        int64_t g = find_key(t, kp, kl, key_hash(kp, kl));
        gids[j] = g < 0 ? UINT32_MAX : (uint32_t)g;
        continue;
      }
      char *p = kb;
      for (int k = 0; k < nk; k++, p += 9) {
        p[0] = 1;
        memcpy(p + 1, v[k] + r, 8);
      }
      int64_t g = find_key(t, kb, (size_t)(9 * nk), fixed_hash(v, nk, r));
      gids[j] = g < 0 ? UINT32_MAX : (uint32_t)g;
    }
    return 0;
  }
  for (int64_t j = 0; j < n; j++) {
    if (encode_key(t, keys, sel ? sel[j] : j))
      return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
    const char *kp = t->scratch.data ? t->scratch.data : "";
    size_t kl = t->scratch.len;
    int64_t g = find_key(t, kp, kl, key_hash(kp, kl));
    gids[j] = g < 0 ? UINT32_MAX : (uint32_t)g;
  }
  return 0;
}

static int grow_check(lm_aggtable *t, lm_error *err) {
  if (t->n_groups > t->check_cap) {
    __int128 *c = realloc(t->check, sizeof(__int128) * (size_t)t->n_groups);
    if (!c)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    t->check = c;
    t->check_cap = t->n_groups;
  }
  return 0;
}

/* Float SUM / AVG (append-only): whether the batch would overflow
 * PostgreSQL's double state of a group (22003), before anything changes.
 * Quick when no value and no state is near the double range; otherwise
 * PostgreSQL's steps run on copies of the touched groups' states. */
static int check_float(lm_aggtable *t, int a, const lm_array *x,
                       const int32_t *sel, int64_t n, const uint32_t *gids,
                       lm_error *err) {
  const agg_state *s = &t->st[a];
  bool avg = t->aggs[a].kind == LM_AGG_AVG;
  const double *v = lm_array_f64(x);
  bool nulls = x->null_count > 0;
  double m = 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if (!(nulls && isnull(x, r)) && isfinite(v[r]) && fabs(v[r]) > m)
      m = fabs(v[r]);
  }
  bool safe = true;
  for (int64_t j = 0; j < n && safe; j++) {
    const fshadow *f = &s->fd[gids[j]];
    double reach = m * ((double)s->cnt[gids[j]] + (double)n) + fabs(f->sx);
    safe = !isfinite(f->sx) || (avg ? reach < 1e100 && !(fabs(f->sxx) >= 1e300)
                                    : m * (double)n + fabs(f->sx) < 1e300);
  }
  if (safe)
    return 0;
  fshadow *cp = malloc(sizeof *cp * (size_t)(t->n_groups + 1));
  int64_t *cn = malloc(sizeof *cn * (size_t)(t->n_groups + 1));
  int rc = 0;
  if (!cp || !cn) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else {
    for (int64_t j = 0; j < n; j++) {
      cp[gids[j]] = s->fd[gids[j]];
      cn[gids[j]] = s->cnt[gids[j]];
    }
    for (int64_t j = 0; j < n && !rc; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      if (fshadow_add(&cp[gids[j]], cn[gids[j]]++, v[r], avg))
        rc = overflow_err(err);
    }
  }
  free(cp);
  free(cn);
  return rc;
}

int lm_aggtable_check_w(lm_aggtable *t, lm_array *const *in,
                        const int64_t *weights, const int32_t *sel, int64_t n,
                        const uint32_t *gids, lm_error *err) {
  if (weights) {
    if (!t->retract)
      return lm_err(err, LM_ERR_EXEC,
                    "internal error: weighted rows into an append-only "
                    "aggregate state");
    if (grow_check(t, err))
      return err ? err->code : LM_ERR_NOMEM;
    for (int64_t j = 0; j < n; j++)
      t->check[gids[j]] = t->rows[gids[j]];
    for (int64_t j = 0; j < n; j++) {
      __int128 *c = &t->check[gids[j]];
      *c += weights[sel ? sel[j] : j];
      if (*c < 0)
        return lm_err(err, LM_ERR_EXEC,
                      "more retractions than insertions for a group (a "
                      "__weight -1 row whose group has no live row left)");
      if (*c > INT64_MAX)
        return lm_err(err, LM_ERR_EXEC, "integer out of range: row count");
    }
  }
  for (int a = 0; a < t->n_aggs; a++) {
    const lm_agg_spec *sp = &t->aggs[a];
    const lm_array *x = in[a];
    if (t->st[a].fd && x && x->type.id == LM_TYPE_FLOAT64 && !sp->distinct) {
      int rc = check_float(t, a, x, sel, n, gids, err);
      if (rc)
        return rc;
      continue;
    }
    if (sp->kind != LM_AGG_SUM || sp->distinct || is_float(sp->in_type) || !x ||
        x->type.id == LM_TYPE_NULL)
      continue;
    if (SUM_NUMERIC(sp)) {
      /* a BIGINT sum cannot overflow; a DECIMAL group's sum after the
       * batch must fit 38 digits (refused before anything changes) */
      if (x->type.id != LM_TYPE_DECIMAL128)
        continue;
      if (grow_check(t, err))
        return err ? err->code : LM_ERR_NOMEM;
      const agg_state *s = &t->st[a];
      for (int64_t j = 0; j < n; j++)
        t->check[gids[j]] = s->w[gids[j]];
      for (int64_t j = 0; j < n; j++) {
        int64_t r = sel ? sel[j] : j;
        if (x->null_count && isnull(x, r))
          continue;
        __int128 v = lm_dec_get(x, r), prod;
        if (lm_dec_is_special(v))
          continue; /* counted apart (DEC_SPECIALS) */
        if (__builtin_mul_overflow(v, (__int128)(weights ? weights[r] : 1),
                                   &prod) ||
            __builtin_add_overflow(t->check[gids[j]], prod, &t->check[gids[j]]))
          return numeric_overflow(err);
      }
      for (int64_t j = 0; j < n; j++)
        if (!lm_dec_fits(t->check[gids[j]], 38))
          return numeric_overflow(err);
      continue;
    }
    const agg_state *s = &t->st[a];
    const int64_t *v = lm_array_i64(x);
    if (SUM_WIDE(t, sp)) {
      /* each touched group's result after the batch must fit BIGINT */
      if (grow_check(t, err))
        return err ? err->code : LM_ERR_NOMEM;
      for (int64_t j = 0; j < n; j++)
        t->check[gids[j]] = s->w[gids[j]];
      for (int64_t j = 0; j < n; j++) {
        int64_t r = sel ? sel[j] : j;
        if (x->null_count && isnull(x, r))
          continue;
        __int128 *c = &t->check[gids[j]];
        *c += weights ? (__int128)v[r] * weights[r] : v[r];
        if (*c > WIDE_LIMIT || *c < -WIDE_LIMIT)
          return sum_overflow(sp, err);
      }
      for (int64_t j = 0; j < n; j++) {
        __int128 c = t->check[gids[j]];
        if (c > INT64_MAX || c < INT64_MIN)
          return lm_err(err, LM_ERR_EXEC,
                        "integer out of range: overflow in SUM (the sum of "
                        "a group after this batch does not fit BIGINT)");
      }
      continue;
    }
    if (!weights) {
      /* fast path: no running sum can leave int64 when every touched
       * state is within INT64_MAX - n * max|v| of zero */
      uint64_t m = 0;
      if (!sel && !x->null_count) { /* a loop the compiler vectorizes */
        for (int64_t j = 0; j < n; j++) {
          uint64_t av = v[j] < 0 ? 0 - (uint64_t)v[j] : (uint64_t)v[j];
          m = av > m ? av : m;
        }
      } else {
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          uint64_t av = v[r] < 0 ? 0 - (uint64_t)v[r] : (uint64_t)v[r];
          if (!(x->null_count && isnull(x, r)) && av > m)
            m = av;
        }
      }
      unsigned __int128 bound = (unsigned __int128)m * (uint64_t)n;
      bool ok = bound < (unsigned __int128)INT64_MAX;
      if (ok) {
        int64_t lim = INT64_MAX - (int64_t)bound;
        uint32_t d = 0; /* every row in one group: one state to check */
        for (int64_t j = 0; j < n; j++)
          d |= gids[j] ^ gids[0];
        for (int64_t j = 0; j < (d ? n : n > 0) && ok; j++) {
          int64_t c = s->i[gids[j]];
          ok = c <= lim && c >= -lim;
        }
      }
      if (ok)
        continue;
    }
    /* per group: the state plus this batch's rows, in 128 bits */
    if (grow_check(t, err))
      return err ? err->code : LM_ERR_NOMEM;
    for (int64_t j = 0; j < n; j++)
      t->check[gids[j]] = s->i[gids[j]];
    bool bad = false;
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (x->null_count && isnull(x, r))
        continue;
      __int128 *c = &t->check[gids[j]];
      *c += weights ? (__int128)v[r] * weights[r] : v[r];
      /* a running sum beyond int64 is an overflow in SQL even if later
       * rows would bring it back: the same rows in one batch or in
       * several must give the same answer */
      if (*c > INT64_MAX || *c < INT64_MIN)
        bad = true;
    }
    if (bad)
      return sum_overflow(sp, err);
  }
  return 0;
}

int lm_aggtable_check(lm_aggtable *t, lm_array *const *in, const int32_t *sel,
                      int64_t n, const uint32_t *gids, lm_error *err) {
  return lm_aggtable_check_w(t, in, NULL, sel, n, gids, err);
}

/* Inserts (g, v) into s's DISTINCT set, known to be absent, with room. */
static void dset_put(uint32_t *dg, int64_t *dv, int64_t cap, uint32_t g1,
                     int64_t v) {
  uint64_t h = lm_hash_combine(lm_hash_u64((uint64_t)v), g1 - 1);
  int64_t p = (int64_t)(h & (uint64_t)(cap - 1));
  while (dg[p])
    p = (p + 1) & (cap - 1);
  dg[p] = g1;
  dv[p] = v;
}

/* Keeps the pairs of groups below n_groups (a rebuild in place: the
 * survivors are re-placed so probing stays correct). */
static void dset_prune(agg_state *s, int64_t n_groups) {
  int64_t keep = 0;
  for (int64_t q = 0; q < s->dcap; q++)
    if (s->dgid[q] && (int64_t)s->dgid[q] - 1 < n_groups) {
      s->dgid[keep] = s->dgid[q];
      s->dval[keep] = s->dval[q];
      keep++;
    }
  /* move the survivors out of the way, then re-place them */
  int64_t *tmpv = malloc(sizeof *tmpv * (size_t)(keep + 1));
  uint32_t *tmpg = malloc(sizeof *tmpg * (size_t)(keep + 1));
  if (!tmpv || !tmpg) { /* no memory: fall back to a scan that re-places */
    free(tmpv);
    free(tmpg);
    for (int64_t q = keep; q < s->dcap; q++)
      s->dgid[q] = 0;
    for (int64_t q = 0; q < keep; q++) {
      uint32_t g1 = s->dgid[q];
      int64_t v = s->dval[q];
      s->dgid[q] = 0;
      dset_put(s->dgid, s->dval, s->dcap, g1, v);
    }
    s->dused = keep;
    return;
  }
  memcpy(tmpv, s->dval, sizeof *tmpv * (size_t)keep);
  memcpy(tmpg, s->dgid, sizeof *tmpg * (size_t)keep);
  memset(s->dgid, 0, sizeof *s->dgid * (size_t)s->dcap);
  for (int64_t q = 0; q < keep; q++)
    dset_put(s->dgid, s->dval, s->dcap, tmpg[q], tmpv[q]);
  s->dused = keep;
  free(tmpv);
  free(tmpg);
}

void lm_aggtable_truncate(lm_aggtable *t, int64_t n_groups) {
  if (n_groups >= t->n_groups)
    return;
  free_group_values(t, n_groups);
  for (int a = 0; a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    for (int64_t g = n_groups; g < t->n_groups; g++) {
      if (s->cnt)
        s->cnt[g] = 0;
      if (s->i)
        s->i[g] = 0;
      if (s->f)
        s->f[g] = 0;
      if (s->w)
        s->w[g] = 0;
      if (s->fs)
        memset(&s->fs[g], 0, sizeof s->fs[g]);
      if (s->fd)
        memset(&s->fd[g], 0, sizeof s->fd[g]);
      if (s->nt)
        s->nt[g] = 0;
      if (s->vr)
        memset(&s->vr[g], 0, sizeof s->vr[g]);
      if (s->w2)
        memset(&s->w2[g], 0, sizeof s->w2[g]);
      if (s->rg)
        memset(&s->rg[g], 0, sizeof s->rg[g]);
      if (s->bc)
        memset(&s->bc[g], 0, sizeof s->bc[g]);
      if (s->sq)
        s->sq[g] = 0;
      if (s->tree) {
        lm_vtree_drop_group(&s->vt, (uint32_t)g);
        lm_vtree_drop_group(&s->vt2, (uint32_t)g);
        lm_vtree_drop_group(&s->vt3, (uint32_t)g);
      }
    }
    if (s->dused && (!s->dset_only || !n_groups)) { /* a cache, or empty */
      memset(s->dgid, 0, sizeof *s->dgid * (size_t)s->dcap);
      s->dused = 0;
    } else if (s->dused) { /* the state: drop the dropped groups' pairs */
      dset_prune(s, n_groups);
    }
  }
  for (int64_t g = n_groups; g < t->n_groups; g++) {
    t->rows[g] = 0;
    if (t->spell) {
      lm_vtree_drop_group(&t->sv, (uint32_t)g);
      lm_vtree_drop_group(&t->sv2, (uint32_t)g);
    }
  }
  t->n_groups = n_groups;
  t->keys.len = (size_t)t->key_off[n_groups];
  if (!n_groups)
    t->jorig.len = 0;
  memset(t->slots, 0, sizeof(uint32_t) * t->n_slots);
  for (int64_t g = 0; g < n_groups; g++) {
    uint64_t h = t->hashes[g] & (t->n_slots - 1);
    while (t->slots[h])
      h = (h + 1) & (t->n_slots - 1);
    t->slots[h] = (uint32_t)(g + 1);
  }
}

int lm_aggtable_update(lm_aggtable *t, lm_array *const *keys,
                       lm_array *const *in, const int32_t *sel, int64_t n,
                       uint32_t *gids, lm_error *err) {
  if (!gids) {
    if (n > t->gid_cap) {
      uint32_t *g = realloc(t->gid_buf, sizeof(uint32_t) * (size_t)(n + 1));
      if (!g)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      t->gid_buf = g;
      t->gid_cap = n;
    }
    gids = t->gid_buf;
  }
  int64_t before = t->n_groups;
  int rc = lm_aggtable_lookup(t, keys, sel, n, gids, err);
  if (!rc)
    rc = lm_aggtable_check(t, in, sel, n, gids, err);
  if (rc) {
    lm_aggtable_truncate(t, before); /* a failed batch leaves no trace */
    return rc;
  }
  return lm_aggtable_accumulate(t, in, sel, n, gids, err);
}

/* ------------------------------------------------- one value at a time */

static int over_retraction(lm_error *err) {
  return lm_err(err, LM_ERR_EXEC,
                "more retractions than insertions: a __weight -1 row "
                "retracts a value its group does not hold");
}

/* f->s + f->c += x, compensated (Neumaier). */
static void fsum_acc(fsum *f, long double x) {
  long double t = f->s + x;
  f->c += fabsl(f->s) >= fabsl(x) ? (f->s - t) + x : (x - t) + f->s;
  f->s = t;
}

static void fsum_add(fsum *f, double v, int64_t w) {
  if (isnan(v))
    f->nan += w;
  else if (isinf(v))
    *(v > 0 ? &f->pinf : &f->ninf) += w;
  else
    fsum_acc(f, (long double)v * (long double)w);
}

static double fsum_value(const fsum *f) {
  if (f->nan > 0 || (f->pinf > 0 && f->ninf > 0))
    return NAN;
  if (f->pinf > 0)
    return INFINITY;
  if (f->ninf > 0)
    return -INFINITY;
  return (double)(f->s + f->c);
}

/* Replaces an owned string copy. */
static int set_str(char **dst, int32_t *dl, const lm_vval *v) {
  char *copy = malloc((size_t)v->len + 1);
  if (!copy)
    return -1;
  if (v->len)
    memcpy(copy, v->s, (size_t)v->len);
  copy[v->len] = 0;
  free(*dst);
  *dst = copy;
  *dl = v->len;
  return 0;
}

static int cmp_vval(lm_vt_kind k, const lm_vval *a, const lm_vval *b) {
  if (k == LM_VT_STR) {
    int32_t m = a->len < b->len ? a->len : b->len;
    int c = m ? memcmp(a->s, b->s, (size_t)m) : 0;
    if (c)
      return c < 0 ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
  }
  if (k == LM_VT_F64) { /* NaN is the largest value (PostgreSQL) */
    if (isnan(a->f) || isnan(b->f))
      return isnan(a->f) ? (isnan(b->f) ? 0 : 1) : -1;
    return (a->f > b->f) - (a->f < b->f);
  }
  return (a->i > b->i) - (a->i < b->i);
}

/* Of the tree nodes of group g equal to node ext (an INTERVAL_MDN by its
 * span, without its 16 stored bytes), the one inserted last (mm_ties). */
static int32_t mm_latest(lm_vt_kind k, const lm_vtree *vt, uint32_t g,
                         int32_t ext) {
  lm_vval e = lm_vtree_key(vt, ext), lo = e;
  if (k == LM_VT_STR && lo.len >= 16)
    lo.len -= 16;
  int32_t best = ext;
  for (int32_t nd = lm_vtree_lower(vt, g, &lo); nd >= 0;
       nd = lm_vtree_next(vt, nd)) {
    lm_vval kv = lm_vtree_key(vt, nd);
    if (k == LM_VT_STR && kv.len >= 16)
      kv.len -= 16;
    if (cmp_vval(k, &kv, &lo))
      break;
    if (vt->nodes[nd].p.i > vt->nodes[best].p.i)
      best = nd;
  }
  return best;
}

/* MIN / MAX as PostgreSQL's float8larger, interval_larger ... (`a > b ? a :
 * b`, the state first): of two equal values the later one is kept, which
 * shows where equal values print differently (-0 and 0, '1 mon' and '30
 * days'). Returns whether v replaces the state cur (k: their kind). An
 * INTERVAL_MDN value is its span followed by its 16 stored bytes
 * (ord_input): only the span is compared. */
static bool minmax_takes(const lm_agg_spec *sp, lm_vt_kind k, const lm_vval *v,
                         const lm_vval *cur) {
  int c;
  bool tie = k == LM_VT_F64;
  if (sp->in_type.id == LM_TYPE_INTERVAL_MDN && k == LM_VT_STR &&
      v->len >= 16 && cur->len >= 16) {
    lm_vval x = *v, y = *cur;
    x.len -= 16;
    y.len -= 16;
    c = cmp_vval(k, &x, &y);
    tie = true;
  } else {
    c = cmp_vval(k, v, cur);
  }
  if (c == 0)
    return tie;
  return sp->kind == LM_AGG_MAX ? c > 0 : c < 0;
}

/* The append-only stored value of MIN/MAX/first/last. */
static lm_vval stored_val(const agg_state *s, lm_vt_kind k, int64_t g) {
  lm_vval v = {0, 0, NULL, 0};
  if (k == LM_VT_STR) {
    v.s = s->s[g] ? s->s[g] : "";
    v.len = s->sl[g];
  } else if (k == LM_VT_F64) {
    v.f = s->f[g];
  } else {
    v.i = s->i[g];
  }
  return v;
}

static int store_val(agg_state *s, lm_vt_kind k, int64_t g, const lm_vval *v) {
  if (k == LM_VT_STR)
    return set_str(&s->s[g], &s->sl[g], v);
  if (k == LM_VT_F64)
    s->f[g] = v->f;
  else
    s->i[g] = v->i;
  return 0;
}

static uint64_t hll_hash(lm_vt_kind k, const lm_vval *v) {
  if (k == LM_VT_STR)
    return lm_hash_bytes(v->len ? v->s : "", (size_t)v->len, 0x1f3d5b79ULL);
  int64_t bits;
  if (k == LM_VT_F64) {
    double d = v->f == 0 ? 0 : isnan(v->f) ? NAN : v->f;
    memcpy(&bits, &d, 8);
  } else {
    bits = v->i;
  }
  return lm_hash_bytes(&bits, 8, 0x1f3d5b79ULL);
}

/* Folds one non-NULL value v with weight w into aggregate a of group g
 * (every kind but COUNT(*); DISTINCT is handled by the caller). */
static int fold_val(lm_aggtable *t, int a, uint32_t g, const lm_vval *v,
                    int64_t w, lm_error *err) {
  const lm_agg_spec *sp = &t->aggs[a];
  agg_state *s = &t->st[a];
  lm_vt_kind k = sp_kind(sp);
  switch (sp->kind) {
  case LM_AGG_COUNT_STAR:
  case LM_AGG_COUNT:
    break;
  case LM_AGG_BOOL_AND:
  case LM_AGG_BOOL_OR:
    if (v->i)
      s->nt[g] += w;
    break;
  case LM_AGG_REGR:
  case LM_AGG_PAIR:
    return 0; /* accumulate_regr */
  case LM_AGG_PCT_CONT:
  case LM_AGG_PCT_DISC:
  case LM_AGG_MODE: {
    int rc = lm_vtree_add(&s->vt, g, v, 0, w, NULL, NULL);
    if (rc)
      return rc == -2 ? over_retraction(err)
                      : lm_err(err, LM_ERR_NOMEM, "out of memory");
    break;
  }
  case LM_AGG_BIT_AND:
  case LM_AGG_BIT_OR:
  case LM_AGG_BIT_XOR:
    if (s->bc) {
      for (int k = 0; k < 64; k++)
        if ((uint64_t)v->i >> k & 1)
          s->bc[g].c[k] += w;
    } else if (w < 0) {
      return over_retraction(err);
    } else if (s->cnt[g] == 0) {
      s->i[g] = v->i;
    } else {
      s->i[g] = sp->kind == LM_AGG_BIT_AND  ? s->i[g] & v->i
                : sp->kind == LM_AGG_BIT_OR ? s->i[g] | v->i
                                            : s->i[g] ^ v->i;
    }
    break;
  case LM_AGG_SUM:
  case LM_AGG_AVG:
    if (is_float(sp->in_type)) {
      if (s->fd &&
          fshadow_add(&s->fd[g], s->cnt[g], v->f, sp->kind == LM_AGG_AVG))
        return overflow_err(err);
      fsum_add(&s->fs[g], v->f, w);
      if (s->cnt[g] + w == 0)
        memset(&s->fs[g], 0, sizeof s->fs[g]);
    } else if (sp->in_type.id == LM_TYPE_DECIMAL128) {
      /* sum(DISTINCT numeric): the encoded value (get_val) */
      __int128 d;
      if (lm_dec_is_special(dec_decode(v->s)))
        dec_special_add(&s->fs[g], dec_decode(v->s), w);
      else if (__builtin_mul_overflow(dec_decode(v->s), (__int128)w, &d) ||
               __builtin_add_overflow(s->w[g], d, &s->w[g]))
        return numeric_overflow(err);
    } else if (sp->kind == LM_AGG_AVG || SUM_WIDE(t, sp)) {
      s->w[g] += (__int128)v->i * w;
    } else {
      int64_t prod, sum;
      if (__builtin_mul_overflow(v->i, w, &prod) ||
          lm_add_overflow_i64(s->i[g], prod, &sum))
        return sum_overflow(sp, err);
      s->i[g] = sum;
    }
    break;
  case LM_AGG_MIN:
  case LM_AGG_MAX:
    if (s->tree) {
      int rc = mm_ties(sp, s) ? mm_add(t, s, sp, g, v, w)
                              : lm_vtree_add(&s->vt, g, v, 0, w, NULL, NULL);
      if (rc)
        return rc == -2 ? over_retraction(err)
                        : lm_err(err, LM_ERR_NOMEM, "out of memory");
    } else {
      if (w < 0)
        return over_retraction(err);
      bool take = s->cnt[g] == 0;
      if (!take) {
        lm_vval cur = stored_val(s, k, g);
        take = minmax_takes(sp, k, v, &cur);
      }
      if (take && store_val(s, k, g, v))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    break;
  case LM_AGG_STRING_AGG:
    if (sp->distinct)
      break; /* the multiset is the state (distinct_add) */
    if (sp->by_value) {
      int rc = lm_vtree_add(&s->vt, g, v, 0, w, NULL, NULL);
      if (rc)
        return rc == -2 ? over_retraction(err)
                        : lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    if (!s->tree) {
      if (w < 0)
        return over_retraction(err);
      for (int64_t c = 0; c < w; c++)
        if (sbuf_add(&s->sb[g], sp->sep, sp->sep_len, v, s->cnt[g] + c == 0))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    __attribute__((fallthrough)); /* retractable: arrival-order trees */
  case LM_AGG_FIRST:
  case LM_AGG_LAST:
    if (s->tree) {
      for (int64_t c = 0; c < (w < 0 ? -w : w); c++) {
        int rc;
        if (w > 0) {
          int64_t seq = next_seq(t, c);
          lm_vval sv = {seq, 0, NULL, 0};
          rc = lm_vtree_add(&s->vt, g, &sv, 0, 1, v, NULL);
          if (!rc && (rc = lm_vtree_add(&s->vt2, g, v, seq, 1, NULL, NULL)))
            lm_vtree_add(&s->vt, g, &sv, 0, -1, NULL, NULL);
        } else {
          int32_t nd = lm_vtree_last_with(&s->vt2, g, v);
          if (nd < 0)
            return over_retraction(err);
          int64_t seq = s->vt2.nodes[nd].k2;
          lm_vval sv = {seq, 0, NULL, 0};
          rc = lm_vtree_add(&s->vt2, g, v, seq, -1, NULL, NULL);
          if (!rc)
            rc = lm_vtree_add(&s->vt, g, &sv, 0, -1, NULL, NULL);
        }
        if (rc)
          return rc == -2 ? over_retraction(err)
                          : lm_err(err, LM_ERR_NOMEM, "out of memory");
      }
    } else {
      if (w < 0)
        return over_retraction(err);
      int64_t seq = next_seq(t, 0);
      if (s->cnt[g] == 0 || sp->kind == LM_AGG_LAST) {
        if (store_val(s, k, g, v))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        s->sq[g] = seq;
      }
    }
    break;
  case LM_AGG_VAR_SAMP:
  case LM_AGG_VAR_POP:
  case LM_AGG_STDDEV_SAMP:
  case LM_AGG_STDDEV_POP: {
    if (VAR_NUMERIC(sp)) { /* exact sums of x and x^2, weighted */
      __int128 x = sp->in_type.id == LM_TYPE_DECIMAL128 ? dec_decode(v->s)
                                                        : (__int128)v->i;
      __int128 xw;
      if (s->fs && lm_dec_is_special(x)) {
        dec_special_add(&s->fs[g], x, w);
        break;
      }
      if (__builtin_mul_overflow(x, (__int128)w, &xw) ||
          __builtin_add_overflow(s->w[g], xw, &s->w[g]) ||
          lm_s256_add_sq(&s->w2[g], x, w)) /* 256 bits: x^2 passes 128 */
        return numeric_overflow(err);
      break;
    }
    var_state *vs = &s->vr[g];
    double x = v->f;
    if (!isfinite(x)) {
      vs->nonfinite += w;
      break;
    }
    int64_t finite = s->cnt[g] - vs->nonfinite;
    if (finite == 0) {
      vs->k = x; /* the shift: values near the mean keep the sums small */
      vs->s = vs->ss = 0;
    }
    long double d = (long double)x - vs->k;
    vs->s += d * (long double)w;
    vs->ss += d * d * (long double)w;
    if (finite + w == 0)
      vs->k = vs->s = vs->ss = 0;
    break;
  }
  case LM_AGG_APPROX_DISTINCT: {
    if (w < 0)
      return lm_err(err, LM_ERR_EXEC,
                    "APPROX_COUNT_DISTINCT cannot take a retraction");
    if (!s->hll[g] && !(s->hll[g] = calloc(HLL_M, 1)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    uint64_t h = hll_hash(k, v);
    uint32_t idx = (uint32_t)(h >> (64 - HLL_BITS));
    uint64_t rest = h << HLL_BITS;
    uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1)
                        : (uint8_t)(64 - HLL_BITS + 1);
    if (rank > s->hll[g][idx])
      s->hll[g][idx] = rank;
    break;
  }
  }
  s->cnt[g] += w;
  return 0;
}

/* Folds rows sel[0..n) (NULL = 0..n-1) of x, with weights wj[0..n) (by
 * position in sel; NULL = all 1), into aggregate a's states of groups
 * gids[0..n). */
/* SUM of DECIMAL: the unscaled values into the 128-bit sums s->w (with
 * weights wj, NULL = 1); a sum leaving 128 bits is 22003 (beyond 38
 * digits too, checked when the result is made). */
static int numeric_sum(agg_state *s, const lm_array *x, const int32_t *sel,
                       int64_t n, const uint32_t *gids, const int64_t *wj,
                       lm_error *err) {
  bool nulls = x->null_count > 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if (nulls && isnull(x, r))
      continue;
    int64_t w = wj ? wj[j] : 1;
    __int128 v = lm_dec_get(x, r), prod;
    uint32_t g = gids[j];
    if (lm_dec_is_special(v)) {
      dec_special_add(&s->fs[g], v, w);
      s->cnt[g] += w;
      continue;
    }
    if (__builtin_mul_overflow(v, (__int128)w, &prod) ||
        __builtin_add_overflow(s->w[g], prod, &s->w[g]))
      return numeric_overflow(err);
    s->cnt[g] += w;
  }
  return 0;
}

/* one: every gids[j] is gids[0] and there are no weights (a window
 * aggregate grouped by the window only, Nexmark q7) */
static int accumulate_one(lm_aggtable *t, int a, const lm_array *x,
                          const int32_t *sel, int64_t n, const uint32_t *gids,
                          const int64_t *wj, bool one, lm_error *err) {
  const lm_agg_spec *sp = &t->aggs[a];
  agg_state *s = &t->st[a];
  if (sp->kind == LM_AGG_COUNT_STAR && one) {
    s->cnt[gids[0]] += n;
    return 0;
  }
  if (sp->kind == LM_AGG_COUNT_STAR) {
    for (int64_t j = 0; j < n; j++)
      s->cnt[gids[j]] += wj ? wj[j] : 1;
    return 0;
  }
  if (!x || x->type.id == LM_TYPE_NULL)
    return 0;
  bool nulls = x->null_count > 0;
  /* the common cases in tight loops */
  if (sp->kind == LM_AGG_COUNT && one && !nulls) {
    s->cnt[gids[0]] += n;
    return 0;
  }
  if (sp->kind == LM_AGG_COUNT) {
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (!nulls || !isnull(x, r))
        s->cnt[gids[j]] += wj ? wj[j] : 1;
    }
    return 0;
  }
  if (sp->kind == LM_AGG_SUM && !is_float(sp->in_type) && !wj &&
      !SUM_WIDE(t, sp)) {
    const int64_t *v = lm_array_i64(x);
    if (one) { /* one group: the running sum in a register */
      uint32_t g = gids[0];
      int64_t sum = s->i[g], c = 0;
      for (int64_t j = 0; j < n; j++) {
        int64_t r = sel ? sel[j] : j;
        if (nulls && isnull(x, r))
          continue;
        if (lm_add_overflow_i64(sum, v[r], &sum))
          return sum_overflow(sp, err);
        c++;
      }
      s->i[g] = sum;
      s->cnt[g] += c;
      return 0;
    }
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      uint32_t g = gids[j];
      int64_t sum;
      if (lm_add_overflow_i64(s->i[g], v[r], &sum))
        return sum_overflow(sp, err);
      s->i[g] = sum;
      s->cnt[g]++;
    }
    return 0;
  }
  if (is_bool(sp->kind) && x->type.id == LM_TYPE_BOOL) {
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      int64_t w = wj ? wj[j] : 1;
      if (lm_array_bool(x, r))
        s->nt[gids[j]] += w;
      s->cnt[gids[j]] += w;
    }
    return 0;
  }
  if ((sp->kind == LM_AGG_SUM || sp->kind == LM_AGG_AVG) &&
      x->type.id == LM_TYPE_FLOAT64) {
    const double *v = lm_array_f64(x);
    bool avg = sp->kind == LM_AGG_AVG;
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      uint32_t g = gids[j];
      int64_t w = wj ? wj[j] : 1;
      if (s->fd && fshadow_add(&s->fd[g], s->cnt[g], v[r], avg))
        return overflow_err(err);
      fsum_add(&s->fs[g], v[r], w);
      if ((s->cnt[g] += w) == 0)
        memset(&s->fs[g], 0, sizeof s->fs[g]); /* no rounding residue */
    }
    return 0;
  }
  if (sp->kind == LM_AGG_SUM && x->type.id == LM_TYPE_DECIMAL128)
    return numeric_sum(s, x, sel, n, gids, wj, err);
  if ((sp->kind == LM_AGG_AVG || SUM_WIDE(t, sp)) &&
      x->type.id == LM_TYPE_INT64) {
    const int64_t *v = lm_array_i64(x);
    if (one) { /* one group (no weights): the sum in registers */
      uint32_t g = gids[0];
      __int128 sum = 0;
      int64_t c = 0;
      for (int64_t j = 0; j < n; j++) {
        int64_t r = sel ? sel[j] : j;
        if (nulls && isnull(x, r))
          continue;
        sum += v[r];
        c++;
      }
      s->w[g] += sum;
      s->cnt[g] += c;
      return 0;
    }
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      int64_t w = wj ? wj[j] : 1;
      s->w[gids[j]] += (__int128)v[r] * w;
      s->cnt[gids[j]] += w;
    }
    return 0;
  }
  lm_vt_kind k = sp_kind(sp);
  if ((sp->kind == LM_AGG_MIN || sp->kind == LM_AGG_MAX) && !s->tree && !wj &&
      k == LM_VT_INT &&
      (x->type.id == LM_TYPE_INT64 || x->type.id == LM_TYPE_TIMESTAMP)) {
    /* append-only integer MIN / MAX (Nexmark q7's MAX(price)): fold_val's
     * rule without a value record per row */
    const int64_t *v = lm_array_i64(x);
    bool mx = sp->kind == LM_AGG_MAX;
    if (one && !nulls) { /* one group: a reduction, then one fold */
      uint32_t g = gids[0];
      int64_t best = v[sel ? sel[0] : 0];
      for (int64_t j = 1; j < n; j++) {
        int64_t y = v[sel ? sel[j] : j];
        best = mx ? (y > best ? y : best) : (y < best ? y : best);
      }
      if (s->cnt[g] == 0 || (mx ? best > s->i[g] : best < s->i[g]))
        s->i[g] = best;
      s->cnt[g] += n;
      return 0;
    }
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (nulls && isnull(x, r))
        continue;
      uint32_t g = gids[j];
      if (s->cnt[g] == 0 || (mx ? v[r] > s->i[g] : v[r] < s->i[g]))
        s->i[g] = v[r];
      s->cnt[g]++;
    }
    return 0;
  }
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if (nulls && isnull(x, r))
      continue;
    char db[16];
    lm_vval v = get_val(x, r, k, db);
    t->cur_row = r;
    int rc = fold_val(t, a, gids[j], &v, wj ? wj[j] : 1, err);
    if (rc)
      return rc;
  }
  return 0;
}

/* DISTINCT: each (group, value) pair has a reference count in the tree;
 * the value is folded in when its count leaves 0 and out when it returns
 * to 0. */
static int distinct_add(lm_aggtable *t, int a, uint32_t g, const lm_vval *v,
                        int64_t w, lm_error *err) {
  int64_t old;
  int rc = lm_vtree_add(&t->st[a].vt, g, v, 0, w, NULL, &old);
  if (rc)
    return rc == -2 ? over_retraction(err)
                    : lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t now = old + w;
  if (old == 0 && now > 0)
    return fold_val(t, a, g, v, 1, err);
  if (old > 0 && now == 0)
    return fold_val(t, a, g, v, -1, err);
  return 0;
}

/* A DISTINCT value's hash and equality as the tree orders it (-0 = 0,
 * NaN = NaN). */
static uint64_t dval_hash(uint32_t g, const lm_vval *v, lm_vt_kind k) {
  uint64_t h;
  if (k == LM_VT_STR)
    h = lm_hash_bytes(v->s, (size_t)v->len, 0);
  else if (k == LM_VT_F64) {
    double f = v->f == 0 ? 0.0 : v->f;
    uint64_t bits = 0;
    if (isnan(f))
      bits = 0x7ff8000000000000ULL;
    else
      memcpy(&bits, &f, sizeof bits);
    h = lm_hash_u64(bits);
  } else
    h = lm_hash_u64((uint64_t)v->i);
  return lm_hash_combine(h, g);
}

static bool dval_eq(const lm_vval *x, const lm_vval *y, lm_vt_kind k) {
  if (k == LM_VT_STR)
    return x->len == y->len && !memcmp(x->s, y->s, (size_t)x->len);
  if (k == LM_VT_F64)
    return x->f == y->f || (isnan(x->f) && isnan(y->f));
  return x->i == y->i;
}

/* Append-only DISTINCT (no weights, no retractions): the positions j of the
 * batch's first row of each (group, value) pair, in order, into *out
 * (malloc'd, *n_out of them); later rows of a pair change nothing, as no
 * reference counts are needed without retractions, so only these reach
 * the tree (one tree insertion per pair instead of per row). A growing
 * open-addressing set of positions. Returns false on OOM (nothing out). */
static bool distinct_firsts(const lm_array *x, lm_vt_kind k, const int32_t *sel,
                            int64_t n, const uint32_t *gids, int32_t **out,
                            int64_t *n_out) {
  int64_t cap = 1024, used = 0, nf = 0;
  int32_t *slot = malloc(sizeof(int32_t) * (size_t)cap);
  uint64_t *hs = malloc(sizeof(uint64_t) * (size_t)cap);
  int32_t *f = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!slot || !hs || !f)
    goto oom;
  memset(slot, 0xff, sizeof(int32_t) * (size_t)cap);
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if (isnull(x, r))
      continue;
    char db[16], db2[16];
    lm_vval v = get_dval(x, r, k, db);
    uint64_t h = dval_hash(gids[j], &v, k);
    int64_t i = (int64_t)(h & (uint64_t)(cap - 1));
    bool dup = false;
    for (; slot[i] >= 0; i = (i + 1) & (cap - 1)) {
      int32_t o = slot[i];
      if (hs[i] != h || gids[o] != gids[j])
        continue;
      lm_vval w = get_dval(x, sel ? sel[o] : o, k, db2);
      if (dval_eq(&v, &w, k)) {
        dup = true;
        break;
      }
    }
    if (dup)
      continue;
    slot[i] = (int32_t)j;
    hs[i] = h;
    f[nf++] = (int32_t)j;
    if (++used * 2 > cap) { /* grow: reinsert by the stored hashes */
      int64_t nc = cap * 2;
      int32_t *ns = malloc(sizeof(int32_t) * (size_t)nc);
      uint64_t *nh = malloc(sizeof(uint64_t) * (size_t)nc);
      if (!ns || !nh) {
        free(ns);
        free(nh);
        goto oom;
      }
      memset(ns, 0xff, sizeof(int32_t) * (size_t)nc);
      for (int64_t q = 0; q < cap; q++) {
        if (slot[q] < 0)
          continue;
        int64_t p = (int64_t)(hs[q] & (uint64_t)(nc - 1));
        while (ns[p] >= 0)
          p = (p + 1) & (nc - 1);
        ns[p] = slot[q];
        nh[p] = hs[q];
      }
      free(slot);
      free(hs);
      slot = ns;
      hs = nh;
      cap = nc;
    }
  }
  free(slot);
  free(hs);
  *out = f;
  *n_out = nf;
  return true;
oom:
  free(slot);
  free(hs);
  free(f);
  return false;
}

/* The batch's short DISTINCT values as one 64-bit word each, equal exactly
 * when the values are equal as the tree orders them: a DOUBLE's bits with
 * -0 made 0 and every NaN one NaN; a VARCHAR / BINARY value (a key_ord
 * encoding included) of at most 7 bytes packed with its length in the top
 * byte. Writes key[j] for the selected rows j (NULLs too: their key is
 * unused) and returns true; false when some value does not fit (a longer
 * string, CHAR(n), DECIMAL and the other kinds), then key is unused. */
static bool short_keys(const lm_array *x, lm_vt_kind k, const int32_t *sel,
                       int64_t n, uint64_t *key) {
  if (k == LM_VT_F64) {
    const double *fv = x->type.id == LM_TYPE_FLOAT64 ? lm_array_f64(x) : NULL;
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      double f = fv ? fv[r] : lm_array_get_f64(x, r);
      uint64_t bits = 0; /* -0 = 0 */
      if (isnan(f))
        bits = 0x7ff8000000000000ULL;
      else if (f != 0)
        memcpy(&bits, &f, sizeof bits);
      key[j] = bits;
    }
    return true;
  }
  if (k != LM_VT_STR ||
      (x->type.id != LM_TYPE_UTF8 && x->type.id != LM_TYPE_BINARY) ||
      lm_type_is_bpchar(x->type))
    return false;
  const int32_t *off = (const int32_t *)x->values->data + x->offset;
  const uint8_t *d = (const uint8_t *)x->data->data;
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    int32_t len = off[r + 1] - off[r];
    if ((uint32_t)len > 7)
      return false;
    uint64_t w = (uint64_t)len << 56;
    for (int32_t b = 0; b < len; b++)
      w |= (uint64_t)d[off[r] + b] << (8 * b);
    key[j] = w;
  }
  return true;
}

/* distinct_firsts over short_keys: no value is looked at twice and no
 * string compared. 1 when the values are not short (nothing out), 0 done,
 * -1 on OOM. */
static int distinct_firsts_short(const lm_array *x, lm_vt_kind k,
                                 const int32_t *sel, int64_t n,
                                 const uint32_t *gids, int32_t **out,
                                 int64_t *n_out) {
  uint64_t *key = malloc(sizeof(uint64_t) * (size_t)(n + 1));
  if (!key)
    return -1;
  if (!short_keys(x, k, sel, n, key)) {
    free(key);
    return 1;
  }
  int64_t cap = 1024, used = 0, nf = 0;
  uint64_t *sk = malloc(sizeof(uint64_t) * (size_t)cap);
  uint32_t *sg = calloc((size_t)cap, sizeof(uint32_t)); /* gid + 1; 0 free */
  int32_t *f = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!sk || !sg || !f)
    goto oom;
  for (int64_t j = 0; j < n; j++) {
    if (x->validity && lm_array_is_null(x, sel ? sel[j] : j))
      continue;
    uint64_t v = key[j];
    uint32_t g1 = gids[j] + 1;
    uint64_t h = lm_hash_u64(v + (uint64_t)g1 * 0x9e3779b97f4a7c15ULL);
    int64_t i = (int64_t)(h & (uint64_t)(cap - 1));
    while (sg[i] && (sg[i] != g1 || sk[i] != v))
      i = (i + 1) & (cap - 1);
    if (sg[i])
      continue; /* seen */
    sg[i] = g1;
    sk[i] = v;
    f[nf++] = (int32_t)j;
    if (++used * 2 > cap) { /* grow: re-place every pair */
      int64_t nc = cap * 2;
      uint64_t *nk = malloc(sizeof(uint64_t) * (size_t)nc);
      uint32_t *ng = calloc((size_t)nc, sizeof(uint32_t));
      if (!nk || !ng) {
        free(nk);
        free(ng);
        goto oom;
      }
      for (int64_t q = 0; q < cap; q++) {
        if (!sg[q])
          continue;
        uint64_t hq =
            lm_hash_u64(sk[q] + (uint64_t)sg[q] * 0x9e3779b97f4a7c15ULL);
        int64_t p = (int64_t)(hq & (uint64_t)(nc - 1));
        while (ng[p])
          p = (p + 1) & (nc - 1);
        ng[p] = sg[q];
        nk[p] = sk[q];
      }
      free(sk);
      free(sg);
      sk = nk;
      sg = ng;
      cap = nc;
    }
  }
  free(key);
  free(sk);
  free(sg);
  *out = f;
  *n_out = nf;
  return 0;
oom:
  free(key);
  free(sk);
  free(sg);
  free(f);
  return -1;
}

static int dset_tree(agg_state *s);

/* Whether (g, v) is in the append-only DISTINCT cache of s; adds it when
 * not. -1 on out of memory (the cache is then left as it was). */
static int dcache_seen(agg_state *s, uint32_t g, int64_t v) {
  if ((s->dused + 1) * 2 > s->dcap) {
    int64_t nc = s->dcap ? s->dcap * 2 : 1024;
    uint32_t *ng = calloc((size_t)nc, sizeof *ng);
    int64_t *nv = malloc(sizeof *nv * (size_t)nc);
    if (!ng || !nv) {
      free(ng);
      free(nv);
      return -1;
    }
    for (int64_t q = 0; q < s->dcap; q++)
      if (s->dgid[q])
        dset_put(ng, nv, nc, s->dgid[q], s->dval[q]);
    free(s->dgid);
    free(s->dval);
    s->dgid = ng;
    s->dval = nv;
    s->dcap = nc;
  }
  uint64_t h = lm_hash_combine(lm_hash_u64((uint64_t)v), g);
  int64_t p = (int64_t)(h & (uint64_t)(s->dcap - 1));
  for (; s->dgid[p]; p = (p + 1) & (s->dcap - 1))
    if (s->dgid[p] == g + 1 && s->dval[p] == v)
      return 1;
  s->dgid[p] = g + 1;
  s->dval[p] = v;
  s->dused++;
  return 0;
}

static int accumulate_distinct2(lm_aggtable *t, int a, const lm_array *x,
                                const int32_t *sel, int64_t n,
                                const uint32_t *gids, const int64_t *wj,
                                lm_error *err);

/* count(DISTINCT jb) counts jsonb-equal values once ('1' and '1.0'): over
 * their equality keys (lm_jsonb_key_array). */
static int accumulate_distinct(lm_aggtable *t, int a, const lm_array *x,
                               const int32_t *sel, int64_t n,
                               const uint32_t *gids, const int64_t *wj,
                               lm_error *err) {
  lm_array *kx = NULL;
  if (x && t->aggs[a].kind == LM_AGG_COUNT && lm_type_is_jsonb(x->type) &&
      lm_jsonb_key_array(x, &kx))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = accumulate_distinct2(t, a, kx ? kx : x, sel, n, gids, wj, err);
  if (kx)
    lm_array_release(kx);
  return rc;
}

static int accumulate_distinct2(lm_aggtable *t, int a, const lm_array *x,
                                const int32_t *sel, int64_t n,
                                const uint32_t *gids, const int64_t *wj,
                                lm_error *err) {
  if (!x || x->type.id == LM_TYPE_NULL)
    return 0;
  lm_vt_kind k = sp_kind(&t->aggs[a]);
  if (!wj && !t->retract && k == LM_VT_INT) {
    /* append-only integers: the cache decides which pairs are new */
    agg_state *s = &t->st[a];
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (isnull(x, r))
        continue;
      char db[16];
      lm_vval v = get_dval(x, r, k, db);
      int seen = dcache_seen(s, gids[j], v.i);
      if (seen < 0)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      int rc = seen           ? 0
               : s->dset_only ? fold_val(t, a, gids[j], &v, 1, err)
                              : distinct_add(t, a, gids[j], &v, 1, err);
      if (rc && !s->dset_only) { /* the pair may not be in the tree: forget
                                    the cache */
        memset(s->dgid, 0, sizeof *s->dgid * (size_t)s->dcap);
        s->dused = 0;
        return rc;
      }
    }
    return 0;
  }
  if (dset_tree(&t->st[a])) /* weights: the tree keeps the references */
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int32_t *firsts = NULL;
  int64_t nf = 0;
  int short_rc = 1;
  if (!wj && !t->retract && n >= 64 && n < INT32_MAX &&
      ((short_rc = distinct_firsts_short(x, k, sel, n, gids, &firsts, &nf)) ==
           0 ||
       (short_rc > 0 && distinct_firsts(x, k, sel, n, gids, &firsts, &nf)))) {
    int rc = 0;
    for (int64_t q = 0; q < nf && !rc; q++) {
      int64_t j = firsts[q], r = sel ? sel[j] : j;
      char db[16];
      lm_vval v = get_dval(x, r, k, db);
      rc = distinct_add(t, a, gids[j], &v, 1, err);
    }
    free(firsts);
    return rc;
  }
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if (isnull(x, r))
      continue;
    char db[16];
    lm_vval v = get_dval(x, r, k, db);
    int rc = distinct_add(t, a, gids[j], &v, wj ? wj[j] : 1, err);
    if (rc)
      return rc;
  }
  return 0;
}

/* corr, covar_*, regr_*: the rows whose y and x are both non-NULL (in row
 * order) into PostgreSQL's float8 state of their groups (weights: only
 * regr_count, which keeps the count alone, takes them). */
static int accumulate_regr(lm_aggtable *t, int a, const lm_array *y,
                           const lm_array *x, const int32_t *sel, int64_t n,
                           const uint32_t *gids, const int64_t *wj,
                           lm_error *err) {
  agg_state *s = &t->st[a];
  bool cnt_only = t->aggs[a].regr_fn < 0;
  if (!y || !x || y->type.id == LM_TYPE_NULL || x->type.id == LM_TYPE_NULL)
    return 0;
  const double *yv = lm_array_f64(y), *xv = lm_array_f64(x);
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    if ((y->null_count && isnull(y, r)) || (x->null_count && isnull(x, r)))
      continue;
    int64_t w = wj ? wj[j] : 1;
    if (!cnt_only) {
      if (w != 1)
        return over_retraction(err);
      if (lm_regr_accum(&s->rg[gids[j]], yv[r], xv[r]))
        return overflow_err(err);
    }
    s->cnt[gids[j]] += w;
  }
  return 0;
}

/* An array (LIST) or INTERVAL_MDN input x as a BINARY array of its rows'
 * key_ord.h encodings (NULLs kept): what count(DISTINCT), min and max
 * compare (PostgreSQL's array_cmp / interval_cmp order). value: an
 * INTERVAL_MDN's 16 stored bytes follow its span (not for DISTINCT, where
 * '1 mon' and '30 days' are one value), so that min / max give the value
 * itself back. -1 on OOM. */
static int ord_input(const lm_array *x, bool value, lm_array **out) {
  lm_builder b;
  if (lm_builder_init(&b, lm_type_make(LM_TYPE_BINARY), x->length))
    return -1;
  lm_buf e;
  lm_buf_init(&e);
  int rc = 0;
  for (int64_t r = 0; r < x->length && !rc; r++) {
    if (lm_array_is_null(x, r)) {
      lm_builder_append_null(&b);
      continue;
    }
    e.len = 0;
    rc = lm_ord_encode(&e, x, r);
    if (!rc && value && x->type.id == LM_TYPE_INTERVAL_MDN)
      rc =
          lm_buf_append(&e, x->values->data + (size_t)(x->offset + r) * 16, 16);
    if (!rc)
      lm_builder_append_str(&b, e.data ? e.data : "", (int32_t)e.len);
  }
  lm_buf_free(&e);
  if (rc || lm_builder_finish(&b, out)) {
    lm_builder_free(&b);
    return -1;
  }
  lm_builder_free(&b);
  return 0;
}

int lm_aggtable_accumulate_w(lm_aggtable *t, lm_array *const *in,
                             const int64_t *weights, const int32_t *sel,
                             int64_t n, const uint32_t *gids, lm_error *err) {
  const int64_t *wj = NULL;
  if (weights) {
    if (!t->retract)
      return lm_err(err, LM_ERR_EXEC,
                    "internal error: weighted rows into an append-only "
                    "aggregate state");
    if (lm_scratch_grow((void **)&t->wj, &t->wj_cap, n, sizeof(int64_t), err))
      return err ? err->code : LM_ERR_NOMEM;
    for (int64_t j = 0; j < n; j++)
      t->wj[j] = weights[sel ? sel[j] : j];
    wj = t->wj;
  }
  /* every row in one group (checked when the first and last are) */
  bool one = !wj && n > 0 && gids[0] == gids[n - 1];
  if (one) {
    uint32_t d = 0;
    for (int64_t j = 1; j < n; j++)
      d |= gids[j] ^ gids[0];
    one = d == 0;
  }
  if (one)
    t->rows[gids[0]] += n;
  else
    for (int64_t j = 0; j < n; j++)
      t->rows[gids[j]] += wj ? wj[j] : 1;
  for (int a = 0; a < t->n_aggs; a++) {
    if (t->aggs[a].kind == LM_AGG_PAIR)
      continue;
    lm_array *x = in[a], *ox = NULL;
    if (x && is_ord(x->type) && t->aggs[a].kind != LM_AGG_COUNT_STAR &&
        t->aggs[a].kind != LM_AGG_REGR) {
      if (ord_input(x, !is_distinct(&t->aggs[a]), &ox))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      x = ox;
    }
    int rc =
        t->aggs[a].kind == LM_AGG_REGR
            ? accumulate_regr(t, a, in[a], in[a + 1], sel, n, gids, wj, err)
        : is_distinct(&t->aggs[a])
            ? accumulate_distinct(t, a, x, sel, n, gids, wj, err)
            : accumulate_one(t, a, x, sel, n, gids, wj, one, err);
    lm_array_release(ox);
    if (rc)
      return rc;
  }
  return 0;
}

int lm_aggtable_accumulate(lm_aggtable *t, lm_array *const *in,
                           const int32_t *sel, int64_t n, const uint32_t *gids,
                           lm_error *err) {
  return lm_aggtable_accumulate_w(t, in, NULL, sel, n, gids, err);
}

/* ------------------------------------------- which value a group shows */

void lm_aggtable_set_row_ids(lm_aggtable *t, const uint64_t *rid) {
  t->rid = rid;
}

bool lm_aggtable_wants_row_ids(const lm_aggtable *t) {
  if (t->spell)
    return true;
  for (int a = 0; a < t->n_aggs; a++)
    if (mm_ties(&t->aggs[a], &t->st[a]))
      return true;
  return false;
}

/* Row r's values of the spell_k keys into t->spbuf: per key a flag byte
 * (0: NULL) then a float's 8 bytes, an INTERVAL_MDN's 16, a CHAR's count
 * of trailing spaces (4 bytes) or a jsonb's length (4 bytes) and text.
 * -1 on OOM. */
static int spell_encode(lm_aggtable *t, lm_array *const *keys, int64_t r) {
  lm_buf *b = &t->spbuf;
  b->len = 0;
  for (int k = 0; k < t->n_keys; k++) {
    if (!t->spell_k[k])
      continue;
    const lm_array *a = keys[k];
    lm_type kt = t->key_types[k];
    uint8_t flag = !(a->type.id == LM_TYPE_NULL || lm_array_is_null(a, r));
    if (lm_buf_append(b, &flag, 1))
      return -1;
    if (!flag)
      continue;
    int rc;
    if (is_float(kt)) {
      double d = lm_array_get_f64(a, r);
      rc = lm_buf_append(b, &d, 8);
    } else if (kt.id == LM_TYPE_INTERVAL_MDN) {
      rc = lm_buf_append(b, a->values->data + (size_t)(a->offset + r) * 16, 16);
    } else {
      int32_t len;
      const char *v = lm_array_str(a, r, &len);
      if (lm_type_is_jsonb(kt)) {
        rc = lm_buf_append(b, &len, 4) || lm_buf_append(b, v, (size_t)len);
      } else { /* CHAR: the spaces encode_key cuts */
        int32_t pad = 0;
        while (pad < len && v[len - 1 - pad] == ' ')
          pad++;
        rc = lm_buf_append(b, &pad, 4);
      }
    }
    if (rc)
      return -1;
  }
  return 0;
}

/* The sv2 node of group g for spelling p[0..len) and any row id, or -1. */
static int32_t spell_any(const lm_aggtable *t, uint32_t g, const char *p,
                         int32_t len) {
  lm_vval pre = {0, 0, p, len};
  for (int32_t nd = lm_vtree_lower(&t->sv2, g, &pre); nd >= 0;
       nd = lm_vtree_next(&t->sv2, nd)) {
    lm_vval k = lm_vtree_key(&t->sv2, nd);
    if (k.len < len || memcmp(k.s, p, (size_t)len) != 0)
      return -1;
    if (k.len == len + 8)
      return nd;
  }
  return -1;
}

/* Whether row r's values of the spell_k keys each have one spelling among
 * the values equal to them (a float other than 0, NULL, a jsonb document
 * without numbers or escapes, a zero interval): its group shows the stored
 * key whatever rows come and go, so the row is not tracked. Every row of a
 * group answers alike (its values are equal). */
static bool single_spelling(const lm_aggtable *t, lm_array *const *keys,
                            int64_t r) {
  for (int k = 0; k < t->n_keys; k++) {
    if (!t->spell_k[k])
      continue;
    const lm_array *a = keys[k];
    if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, r))
      continue;
    lm_type kt = t->key_types[k];
    if (is_float(kt)) {
      if (lm_array_get_f64(a, r) == 0)
        return false;
    } else if (kt.id == LM_TYPE_INTERVAL_MDN) {
      static const uint8_t zero[16];
      if (memcmp(a->values->data + (size_t)(a->offset + r) * 16, zero, 16))
        return false;
    } else if (lm_type_is_jsonb(kt)) {
      int32_t len;
      const char *v = lm_array_str(a, r, &len);
      for (int32_t i = 0; i < len; i++)
        if ((v[i] >= '0' && v[i] <= '9') || v[i] == '\\')
          return false;
    } else {
      return false; /* CHAR: trailing spaces */
    }
  }
  return true;
}

int lm_aggtable_spell_w(lm_aggtable *t, lm_array *const *keys,
                        const int64_t *weights, const int32_t *sel, int64_t n,
                        const uint32_t *gids, lm_error *err) {
  if (!t->spell)
    return 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j, w = weights ? weights[r] : 1;
    if (single_spelling(t, keys, r))
      continue;
    uint32_t g = gids[j];
    uint64_t id = t->rid ? t->rid[r] : 0;
    if (spell_encode(t, keys, r) || lm_buf_append(&t->spbuf, &id, 8))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int32_t sl = (int32_t)t->spbuf.len - 8;
    lm_vval sp = {0, 0, t->spbuf.data, sl};
    lm_vval key2 = {0, 0, t->spbuf.data, sl + 8};
    for (int64_t c = 0; c < (w < 0 ? -w : w); c++) {
      if (w > 0) {
        lm_vval seq = {t->sv_seq++, 0, NULL, 0};
        if (lm_vtree_add(&t->sv, g, &seq, 0, 1, &sp, NULL))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        if (lm_vtree_add(&t->sv2, g, &key2, seq.i, 1, NULL, NULL)) {
          lm_vtree_add(&t->sv, g, &seq, 0, -1, NULL, NULL);
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        }
        continue;
      }
      /* the latest occurrence of this row; of another row with the same
       * values when none (a retraction of a row never seen: nothing) */
      int32_t nd = lm_vtree_last_with(&t->sv2, g, &key2);
      if (nd < 0 && (nd = spell_any(t, g, sp.s, sl)) < 0)
        break;
      lm_vval seq = {t->sv2.nodes[nd].k2, 0, NULL, 0};
      lm_vval k = lm_vtree_key(&t->sv2, nd);
      if (k.len != key2.len)
        break;
      /* (spbuf is rewritten by nothing below: k's bytes are copied in) */
      char stack[256],
          *kb = (size_t)k.len <= sizeof stack ? stack : malloc((size_t)k.len);
      if (!kb)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      memcpy(kb, k.s, (size_t)k.len);
      k.s = kb;
      lm_vtree_add(&t->sv2, g, &k, seq.i, -1, NULL, NULL);
      lm_vtree_add(&t->sv, g, &seq, 0, -1, NULL, NULL);
      if (kb != stack)
        free(kb);
    }
  }
  return 0;
}

/* ---------------------------------------------------------- results */

static const char *decode_key(lm_builder *b, lm_type t, const char *p,
                              int32_t pad, const uint8_t *mdn) {
  if (*p++ == 0) {
    lm_builder_append_null(b);
    return p;
  }
  switch (t.id) {
  case LM_TYPE_INTERVAL_MDN: { /* the group's first value (mdn) */
    lm_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    if (mdn) {
      memcpy(&v.v.mdn.months, mdn, 4);
      memcpy(&v.v.mdn.days, mdn + 4, 4);
      memcpy(&v.v.mdn.ns, mdn + 8, 8);
    } else { /* no copy: the span as days and µs */
      __int128 sp;
      memcpy(&sp, p, 16);
      v.v.mdn.days = (int32_t)(sp / 86400000000LL);
      v.v.mdn.ns = (int64_t)(sp % 86400000000LL) * 1000;
    }
    lm_builder_append_value(b, &v);
    return p + 16;
  }
  case LM_TYPE_LIST: { /* a SQL array: list_encode's items */
    int32_t len;
    memcpy(&len, p, 4);
    const char *q = p + 4, *end = q + len;
    lm_builder *items = lm_builder_list_items(b);
    if (!items)
      return end;
    lm_type it = t.node->children[0].type;
    while (q < end)
      q = decode_key(items, it, q, 0,
                     it.id == LM_TYPE_INTERVAL_MDN ? (const uint8_t *)q + 1
                                                   : NULL);
    lm_builder_list_end(b);
    return end;
  }
  case LM_TYPE_DECIMAL128: {
    lm_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    memcpy(&v.v.d128.lo, p, 8);
    memcpy(&v.v.d128.hi, p + 8, 8);
    lm_builder_append_value(b, &v);
    return p + 16;
  }
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY: {
    int32_t len;
    memcpy(&len, p, 4);
    char *full = pad > 0 ? malloc((size_t)len + (size_t)pad) : NULL;
    if (full) { /* CHAR(n): the group's first value, padding included */
      memcpy(full, p + 4, (size_t)len);
      memset(full + len, ' ', (size_t)pad);
      lm_builder_append_str(b, full, len + pad);
      free(full);
    } else {
      lm_builder_append_str(b, p + 4, len);
    }
    return p + 4 + len;
  }
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double d;
    memcpy(&d, p, 8);
    if (pad && d == 0) /* the group's first value was -0 */
      d = -0.0;
    lm_builder_append_double(b, d);
    return p + 8;
  }
  case LM_TYPE_BOOL:
    lm_builder_append_bool(b, *p != 0);
    return p + 1;
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    lm_builder_append_int(b, v);
    return p + 8;
  }
  }
}

static void append_val(lm_builder *b, lm_type t, const lm_vval *v) {
  if (t.id == LM_TYPE_INTERVAL_MDN && v->len == 32) { /* span, value */
    lm_value iv;
    memset(&iv, 0, sizeof iv);
    iv.type = t;
    memcpy(&iv.v.mdn.months, v->s + 16, 4);
    memcpy(&iv.v.mdn.days, v->s + 20, 4);
    memcpy(&iv.v.mdn.ns, v->s + 24, 8);
    lm_builder_append_value(b, &iv);
  } else if (is_ord(t)) /* min/max(arr): ord_input's bytes */
    lm_ord_decode(b, t, v->s ? v->s : "", v->len);
  else if (t.id == LM_TYPE_DECIMAL128)
    lm_dec_append(b, v->len == 16 ? dec_decode(v->s) : 0);
  else if (t.id == LM_TYPE_UTF8)
    lm_builder_append_str(b, v->s ? v->s : "", v->len);
  else if (is_float(t))
    lm_builder_append_double(b, v->f);
  else if (t.id == LM_TYPE_BOOL)
    lm_builder_append_bool(b, v->i != 0);
  else
    lm_builder_append_int(b, v->i);
}

static double hll_estimate(const uint8_t *reg) {
  if (!reg)
    return 0;
  double sum = 0;
  int zeros = 0;
  for (int i = 0; i < HLL_M; i++) {
    sum += ldexp(1.0, -reg[i]);
    zeros += reg[i] == 0;
  }
  double m = HLL_M, e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
  if (e <= 2.5 * m && zeros)
    e = m * log(m / zeros); /* linear counting: exact-ish when small */
  return e;
}

/* VAR/STDDEV result: NULL (returns false) over no values, and for the
 * sample forms over one value (PostgreSQL). */
static bool var_value(const lm_agg_spec *sp, const agg_state *s, int64_t g,
                      double *out) {
  int64_t n = s->cnt[g];
  bool samp = sp->kind == LM_AGG_VAR_SAMP || sp->kind == LM_AGG_STDDEV_SAMP;
  if (n <= 0 || (samp && n == 1))
    return false;
  const var_state *vs = &s->vr[g];
  if (vs->nonfinite > 0) {
    *out = NAN;
    return true;
  }
  long double ln = (long double)n;
  long double m2 = vs->ss - vs->s * vs->s / ln;
  if (m2 < 0)
    m2 = 0;
  long double var = m2 / (samp ? ln - 1 : ln);
  bool sd = sp->kind == LM_AGG_STDDEV_SAMP || sp->kind == LM_AGG_STDDEV_POP;
  *out = (double)(sd ? sqrtl(var) : var);
  return true;
}

/* STRING_AGG kept in a tree: the values of group g joined by sp->sep, in
 * arrival order (payloads of (gid, seq)) or, DISTINCT, in value order
 * (descending with order_desc), appended to b. 0; -1 OOM; -2 too long. */
static int string_agg_tree(const lm_agg_spec *sp, const agg_state *s,
                           uint32_t g, lm_builder *b) {
  const lm_vtree *vt = &s->vt;
  int64_t nv = 0;
  for (int32_t nd = lm_vtree_first(vt, g); nd >= 0; nd = lm_vtree_next(vt, nd))
    nv++;
  int32_t *ord = malloc(sizeof *ord * (size_t)(nv + 1));
  if (!ord)
    return -1;
  int64_t k = 0, len = 0;
  int32_t sl = sp->sep ? sp->sep_len : 0;
  for (int32_t nd = lm_vtree_first(vt, g); nd >= 0; nd = lm_vtree_next(vt, nd))
    ord[k++] = nd;
  bool bykey = sp->distinct || sp->by_value;
  if (bykey && sp->order_desc)
    for (int64_t i = 0; i < nv / 2; i++) {
      int32_t x = ord[i];
      ord[i] = ord[nv - 1 - i];
      ord[nv - 1 - i] = x;
    }
  for (int64_t i = 0; i < nv; i++) {
    lm_vval v = bykey ? lm_vtree_key(vt, ord[i]) : lm_vtree_payload(vt, ord[i]);
    int64_t reps = sp->distinct ? 1 : vt->nodes[ord[i]].cnt;
    len += reps * (v.len + sl);
  }
  if (len > INT32_MAX) {
    free(ord);
    return -2;
  }
  char *buf = malloc((size_t)len + 1);
  if (!buf) {
    free(ord);
    return -1;
  }
  int64_t o = 0;
  for (int64_t i = 0; i < nv; i++) {
    lm_vval v = bykey ? lm_vtree_key(vt, ord[i]) : lm_vtree_payload(vt, ord[i]);
    int64_t reps = sp->distinct ? 1 : vt->nodes[ord[i]].cnt;
    for (int64_t r = 0; r < reps; r++) {
      if ((i || r) && sl) {
        memcpy(buf + o, sp->sep, (size_t)sl);
        o += sl;
      }
      if (v.len)
        memcpy(buf + o, v.s, (size_t)v.len);
      o += v.len;
    }
  }
  lm_builder_append_str(b, buf, (int32_t)o);
  free(buf);
  free(ord);
  return 0;
}

/* percentile_cont / percentile_disc / mode() of group g (c values > 0)
 * from its sorted multiset, as PostgreSQL's final functions over its
 * sorted input (descending when order_desc): appended to b. 0; -1 OOM. */
static int ordset_value(const lm_agg_spec *sp, const agg_state *s, uint32_t g,
                        int64_t c, lm_builder *b) {
  const lm_vtree *vt = &s->vt;
  int64_t nv = 0;
  for (int32_t nd = lm_vtree_first(vt, g); nd >= 0; nd = lm_vtree_next(vt, nd))
    nv++;
  int32_t *ord = malloc(sizeof *ord * (size_t)(nv + 1));
  if (!ord)
    return -1;
  int64_t k = 0;
  for (int32_t nd = lm_vtree_first(vt, g); nd >= 0; nd = lm_vtree_next(vt, nd))
    ord[sp->order_desc ? nv - 1 - k++ : k++] = nd;
  int32_t pick = ord[0];
  if (sp->kind == LM_AGG_MODE) { /* the first most frequent in the order */
    int64_t best = 0;
    for (int64_t i = 0; i < nv; i++)
      if (vt->nodes[ord[i]].cnt > best) {
        best = vt->nodes[ord[i]].cnt;
        pick = ord[i];
      }
  } else {
    /* the node holding 0-based row r */
    double f = sp->frac;
    int64_t r0, r1;
    if (sp->kind == LM_AGG_PCT_DISC) {
      double rn = ceil(f * (double)c);
      r0 = r1 = rn > 1 ? (int64_t)rn - 1 : 0;
    } else {
      r0 = (int64_t)floor(f * (double)(c - 1));
      r1 = (int64_t)ceil(f * (double)(c - 1));
    }
    int32_t n0 = ord[0], n1 = ord[0];
    int64_t before = 0;
    for (int64_t i = 0; i < nv; i++) {
      int64_t cnt = vt->nodes[ord[i]].cnt;
      if (r0 >= before && r0 < before + cnt)
        n0 = ord[i];
      if (r1 >= before && r1 < before + cnt)
        n1 = ord[i];
      before += cnt;
    }
    pick = n0;
    if (sp->kind == LM_AGG_PCT_CONT) {
      double lo = lm_vtree_key(vt, n0).f, hi = lm_vtree_key(vt, n1).f;
      if (r1 != r0) /* float8_lerp */
        lo = lo + (f * (double)(c - 1) - (double)r0) * (hi - lo);
      lm_builder_append_double(b, lo);
      free(ord);
      return 0;
    }
  }
  lm_vval v = lm_vtree_key(vt, pick);
  append_val(b, sp->in_type, &v);
  free(ord);
  return 0;
}

int lm_aggtable_emit(const lm_aggtable *t, const uint32_t *gids, int64_t n,
                     lm_batch_builder *bb, lm_error *err) {
  if (!gids)
    n = t->n_groups;
  for (int64_t j = 0; j < n; j++) {
    int64_t g = gids ? gids[j] : j;
    const char *p = t->keys.data + t->key_off[g];
    /* a changelog's group: its earliest live row's values (spell_encode) */
    const char *spl = NULL;
    if (t->spell) {
      int32_t nd = lm_vtree_first(&t->sv, (uint32_t)g);
      if (nd >= 0)
        spl = lm_vtree_payload(&t->sv, nd).s;
    }
    for (int k = 0; k < t->n_keys; k++) {
      if (spl && t->spell_k[k]) {
        lm_type kt = t->key_types[k];
        lm_builder *kb = &bb->cols[k];
        if (!*spl++ || *p == 0) {
          p = decode_key(kb, kt, p, 0, NULL); /* NULL */
        } else if (is_float(kt)) {
          double d;
          memcpy(&d, spl, 8);
          lm_builder_append_double(kb, d);
          spl += 8;
          p += 9;
        } else if (kt.id == LM_TYPE_INTERVAL_MDN) {
          p = decode_key(kb, kt, p, 0, (const uint8_t *)spl);
          spl += 16;
        } else if (lm_type_is_jsonb(kt)) {
          int32_t l, kl;
          memcpy(&l, spl, 4);
          lm_builder_append_str(kb, spl + 4, l);
          spl += 4 + l;
          memcpy(&kl, p + 1, 4);
          p += 5 + kl;
        } else { /* CHAR: its trailing spaces */
          int32_t pad;
          memcpy(&pad, spl, 4);
          spl += 4;
          p = decode_key(kb, kt, p, pad, NULL);
        }
        continue;
      }
      int64_t jo = t->jof ? t->jof[g * t->n_keys + k] : 0;
      if (jo > 0) { /* a jsonb key: the group's first value */
        int32_t l, kl;
        memcpy(&l, t->jorig.data + jo - 1, 4);
        lm_builder_append_str(&bb->cols[k], t->jorig.data + jo + 3, l);
        memcpy(&kl, p + 1, 4);
        p += 5 + kl;
        continue;
      }
      p = decode_key(&bb->cols[k], t->key_types[k], p,
                     t->pad ? t->pad[g * t->n_keys + k] : 0,
                     t->mdn ? t->mdn + ((size_t)g * (size_t)t->n_keys + k) * 16
                            : NULL);
    }
    for (int a = 0; a < t->n_aggs; a++) {
      const lm_agg_spec *sp = &t->aggs[a];
      const agg_state *s = &t->st[a];
      lm_builder *b = &bb->cols[t->n_keys + a];
      int64_t c = s->cnt[g];
      lm_vt_kind vk = sp_kind(sp);
      if ((sp->kind == LM_AGG_SUM || sp->kind == LM_AGG_AVG) && c > 0 &&
          is_float(sp->in_type) && !s->fs[g].nan && !s->fs[g].pinf &&
          !s->fs[g].ninf &&
          fabsl(s->fs[g].s + s->fs[g].c) > (long double)DBL_MAX)
        return overflow_err(err); /* finite values overflow a double */
      switch (sp->kind) {
      case LM_AGG_COUNT_STAR:
      case LM_AGG_COUNT:
        lm_builder_append_int(b, c);
        break;
      case LM_AGG_BOOL_AND:
      case LM_AGG_BOOL_OR:
        if (c <= 0)
          lm_builder_append_null(b);
        else
          lm_builder_append_bool(b, sp->kind == LM_AGG_BOOL_AND ? s->nt[g] == c
                                                                : s->nt[g] > 0);
        break;
      case LM_AGG_STRING_AGG: {
        if (c <= 0) {
          lm_builder_append_null(b);
          break;
        }
        if (!s->tree) {
          const sbuf *sb = &s->sb[g];
          lm_builder_append_str(b, sb->p ? sb->p + sb->first : "",
                                (int32_t)(sb->len - sb->first));
          break;
        }
        int rc = string_agg_tree(sp, s, (uint32_t)g, b);
        if (rc)
          return lm_err(err, rc == -2 ? LM_ERR_EXEC : LM_ERR_NOMEM,
                        rc == -2 ? "string_agg result exceeds 2 GB"
                                 : "out of memory");
        break;
      }
      case LM_AGG_SUM:
        if (c <= 0)
          lm_builder_append_null(b);
        else if (is_float(sp->in_type))
          lm_builder_append_double(b, fsum_value(&s->fs[g]));
        else if (SUM_NUMERIC(sp)) {
          __int128 sv = s->fs ? dec_special_sum(&s->fs[g]) : 0;
          if (sv) {
            lm_dec_append(b, sv);
            break;
          }
          if (!lm_dec_fits(s->w[g], 38))
            return numeric_overflow(err);
          lm_dec_append(b, s->w[g]);
        } else if (SUM_WIDE(t, sp)) {
          if (s->w[g] > INT64_MAX || s->w[g] < INT64_MIN)
            return sum_overflow(sp, err);
          lm_builder_append_int(b, (int64_t)s->w[g]);
        } else
          lm_builder_append_int(b, s->i[g]);
        break;
      case LM_AGG_AVG:
        if (c <= 0)
          lm_builder_append_null(b);
        else if (is_float(sp->in_type))
          lm_builder_append_double(
              b, (double)(s->fs[g].nan || s->fs[g].pinf || s->fs[g].ninf
                              ? (long double)fsum_value(&s->fs[g])
                              : (s->fs[g].s + s->fs[g].c) / (long double)c));
        else if (sp->out_type.id == LM_TYPE_INTERVAL) {
          /* interval_div: the µs quotient rounded half to even (rint) */
          __int128 q = s->w[g] / c, rm = s->w[g] % c;
          __int128 twice = (rm < 0 ? -rm : rm) * 2;
          if (twice > c || (twice == c && (q & 1)))
            q += s->w[g] < 0 ? -1 : 1;
          if (s->w[g] > INT64_MAX || s->w[g] < INT64_MIN)
            return sum_overflow(sp, err); /* the sum leaves INTERVAL */
          lm_builder_append_int(b, (int64_t)q);
        } else if (sp->out_type.id == LM_TYPE_DECIMAL128) {
          lm_i128 q;
          if (lm_dec_quotient(s->w[g], 0, c, 0, sp->out_type.scale, &q))
            return numeric_overflow(err);
          lm_dec_append(b, q);
        } else
          lm_builder_append_double(
              b, (double)((long double)s->w[g] / (long double)c));
        break;
      case LM_AGG_MIN:
      case LM_AGG_MAX:
      case LM_AGG_FIRST:
      case LM_AGG_LAST: {
        if (c <= 0) {
          lm_builder_append_null(b);
          break;
        }
        lm_vval v;
        if (s->tree) {
          bool lo = sp->kind == LM_AGG_MIN || sp->kind == LM_AGG_FIRST;
          int32_t nd = lo ? lm_vtree_first(&s->vt, (uint32_t)g)
                          : lm_vtree_last(&s->vt, (uint32_t)g);
          if (nd < 0) {
            lm_builder_append_null(b);
            break;
          }
          if (mm_ties(sp, s))
            nd = mm_latest(vk, &s->vt, (uint32_t)g, nd);
          v = is_firstlast(sp->kind) ? lm_vtree_payload(&s->vt, nd)
                                     : lm_vtree_key(&s->vt, nd);
        } else {
          v = stored_val(s, vk, g);
        }
        append_val(b, sp->in_type, &v);
        break;
      }
      case LM_AGG_VAR_SAMP:
      case LM_AGG_VAR_POP:
      case LM_AGG_STDDEV_SAMP:
      case LM_AGG_STDDEV_POP: {
        if (VAR_NUMERIC(sp)) {
          lm_i128 q;
          bool samp =
              sp->kind == LM_AGG_VAR_SAMP || sp->kind == LM_AGG_STDDEV_SAMP;
          bool sd =
              sp->kind == LM_AGG_STDDEV_SAMP || sp->kind == LM_AGG_STDDEV_POP;
          int sc = sp->in_type.id == LM_TYPE_DECIMAL128 ? sp->in_type.scale : 0;
          if (s->fs && (s->fs[g].nan || s->fs[g].pinf || s->fs[g].ninf)) {
            /* PostgreSQL: NULL below the rows wanted, else NaN */
            if (c <= (samp ? 1 : 0))
              lm_builder_append_null(b);
            else
              lm_dec_append(b, LM_DEC_NAN);
            break;
          }
          int rc = lm_numvar_result256(c, s->w[g], s->w2[g], sc, samp, sd,
                                       sp->out_type.scale, &q);
          if (rc == LM_NUMVAR_OVERFLOW) { /* PostgreSQL's numeric answers */
            numeric_overflow(err);
            return lm_err_detail(
                err,
                "The %s at the result's scale %d needs more than the 38 "
                "digits Laminar's NUMERIC (Decimal128) holds.",
                sd ? "standard deviation" : "variance", sp->out_type.scale);
          }
          if (rc)
            lm_builder_append_null(b);
          else
            lm_dec_append(b, q);
          break;
        }
        double d;
        if (var_value(sp, s, g, &d))
          lm_builder_append_double(b, d);
        else
          lm_builder_append_null(b);
        break;
      }
      case LM_AGG_APPROX_DISTINCT:
        lm_builder_append_int(
            b, c <= 0 ? 0 : (int64_t)llround(hll_estimate(s->hll[g])));
        break;
      case LM_AGG_REGR: {
        double d;
        if (sp->regr_fn < 0)
          lm_builder_append_int(b, c);
        else if (c > 0 && lm_regr_final((lm_regr_fn)sp->regr_fn, &s->rg[g], &d))
          lm_builder_append_double(b, d);
        else
          lm_builder_append_null(b);
        break;
      }
      case LM_AGG_PAIR:
        lm_builder_append_null(b);
        break;
      case LM_AGG_PCT_CONT:
      case LM_AGG_PCT_DISC:
      case LM_AGG_MODE:
        if (sp->kind != LM_AGG_MODE && sp->frac_null) {
          lm_builder_append_null(b);
          break;
        }
        if (sp->kind != LM_AGG_MODE && !(sp->frac >= 0 && sp->frac <= 1)) {
          lm_err(err, LM_ERR_EXEC, "percentile value %g is not between 0 and 1",
                 sp->frac);
          return lm_err_state(err, "22003");
        }
        if (c <= 0)
          lm_builder_append_null(b);
        else if (ordset_value(sp, s, (uint32_t)g, c, b))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      case LM_AGG_BIT_AND:
      case LM_AGG_BIT_OR:
      case LM_AGG_BIT_XOR: {
        if (c <= 0) {
          lm_builder_append_null(b);
          break;
        }
        uint64_t r = 0;
        if (!s->bc)
          r = (uint64_t)s->i[g];
        else
          for (int k = 0; k < 64; k++) {
            int64_t m = s->bc[g].c[k];
            bool on = sp->kind == LM_AGG_BIT_AND  ? m == c
                      : sp->kind == LM_AGG_BIT_OR ? m > 0
                                                  : (m & 1) != 0;
            r |= (uint64_t)on << k;
          }
        lm_builder_append_int(b, (int64_t)r);
        break;
      }
      }
    }
  }
  for (int c = 0; c < bb->schema->n_fields; c++)
    if (bb->cols[c].oom)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return 0;
}

/* ------------------------------------------------------------------------
 * Merging partial states (window panes, merging sessions). Owned by the
 * windows work (op_window_aggregate.c, op_session_window.c); kept apart
 * from the accumulators above. A new aggregate kind must add its merge
 * here: an unknown kind is an error, never a silent wrong answer.
 * ---------------------------------------------------------------------- */

int lm_aggtable_intern(lm_aggtable *dst, const lm_aggtable *src,
                       const uint32_t *src_gids, int64_t n, bool create,
                       int64_t *dst_gids, lm_error *err) {
  for (int64_t j = 0; j < n; j++) {
    int64_t g = src_gids ? src_gids[j] : j;
    const char *kp = src->keys.data ? src->keys.data + src->key_off[g] : "";
    size_t kl = (size_t)(src->key_off[g + 1] - src->key_off[g]);
    if (!create) {
      uint64_t h = src->hashes[g], mask = dst->n_slots - 1, i = h & mask;
      dst_gids[j] = -1;
      for (uint32_t s; (s = dst->slots[i]) != 0; i = (i + 1) & mask) {
        int64_t d = (int64_t)s - 1;
        if (dst->hashes[d] == h &&
            (size_t)(dst->key_off[d + 1] - dst->key_off[d]) == kl &&
            memcmp(dst->keys.data + dst->key_off[d], kp, kl) == 0) {
          dst_gids[j] = d;
          break;
        }
      }
      continue;
    }
    int64_t d;
    if (dst->spad) /* CHAR(n) keys: the first value's padding */
      for (int k = 0; k < dst->n_keys; k++)
        dst->spad[k] =
            src->pad && k < src->n_keys ? src->pad[g * src->n_keys + k] : 0;
    if (dst->smdn) /* INTERVAL_MDN keys: the first value */
      for (int k = 0; k < dst->n_keys; k++)
        if (src->mdn && k < src->n_keys)
          memcpy(dst->smdn + (size_t)k * 16,
                 src->mdn + ((size_t)g * (size_t)src->n_keys + k) * 16, 16);
    if (dst->sjof) { /* jsonb keys: the first value */
      dst->sjorig.len = 0;
      for (int k = 0; k < dst->n_keys; k++) {
        int64_t o = 0;
        if (src->jof && k < src->n_keys)
          o = src->jof[g * src->n_keys + k];
        dst->sjof[k] = 0;
        if (o > 0) {
          int32_t l;
          memcpy(&l, src->jorig.data + o - 1, 4);
          dst->sjof[k] = (int64_t)dst->sjorig.len + 1;
          if (lm_buf_append(&dst->sjorig, src->jorig.data + o - 1,
                            4 + (size_t)l))
            return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
        }
      }
    }
    if (src != dst) /* the hash is the same: no copy, no rehash */
      d = find_or_add_key(dst, kp, kl, src->hashes[g]);
    else {
      dst->scratch.len = 0;
      if (lm_buf_append(&dst->scratch, kp, kl))
        return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
      d = find_or_add(dst);
    }
    if (d < 0)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
    dst_gids[j] = d;
  }
  return 0;
}

/* Builds the tree of a DISTINCT state kept in its set only (one reference
 * per pair); the set becomes a cache of it. -1 on out of memory (the
 * state is then unchanged). */
static int dset_tree(agg_state *s) {
  if (!s->dset_only)
    return 0;
  for (int64_t q = 0; q < s->dcap; q++) {
    if (!s->dgid[q])
      continue;
    lm_vval v = {.i = s->dval[q]};
    if (lm_vtree_add(&s->vt, s->dgid[q] - 1, &v, 0, 1, NULL, NULL)) {
      lm_vtree_free(&s->vt);
      lm_vtree_init(&s->vt, LM_VT_INT, LM_VT_NONE);
      return -1;
    }
  }
  s->dset_only = false;
  return 0;
}

/* Folds the tree state (DISTINCT references, retractable MIN/MAX values,
 * retractable first/last occurrences) of src's group y into dst's group x.
 * dst may be src (x != y): nodes are addressed by index, which stays valid
 * while the pool grows. */
static int merge_tree(lm_aggtable *dst, int a, uint32_t x,
                      const lm_aggtable *src, uint32_t y, lm_error *err) {
  /* a DISTINCT state kept in its set only: the tree is built now */
  if (dset_tree(&dst->st[a]) || dset_tree((agg_state *)&src->st[a]))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  const lm_agg_spec *sp = &dst->aggs[a];
  const lm_vtree *sv = &src->st[a].vt;
  agg_state *d = &dst->st[a];
  for (int32_t nd = lm_vtree_first(sv, y); nd >= 0;
       nd = lm_vtree_next(sv, nd)) {
    lm_vval key = lm_vtree_key(sv, nd);
    int64_t c = sv->nodes[nd].cnt;
    int rc;
    if (is_distinct(sp)) {
      if ((rc = distinct_add(dst, a, x, &key, c, err)))
        return rc;
      continue;
    }
    if (is_seq(sp)) {
      lm_vval pv = lm_vtree_payload(sv, nd);
      rc = lm_vtree_add(&d->vt, x, &key, 0, c, &pv, NULL);
      if (!rc)
        rc = lm_vtree_add(&d->vt2, x, &pv, key.i, c, NULL, NULL);
    } else if (mm_ties(sp, d)) { /* vt2 is merged below */
      lm_vval pv = lm_vtree_payload(sv, nd);
      rc = lm_vtree_add(&d->vt, x, &key, sv->nodes[nd].k2, c, &pv, NULL);
    } else {
      rc = lm_vtree_add(&d->vt, x, &key, 0, c, NULL, NULL);
    }
    if (rc)
      return rc == -2 ? over_retraction(err)
                      : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (mm_ties(sp, d)) { /* the occurrences, then each value's latest */
    const lm_vtree *s2 = &src->st[a].vt2;
    for (int32_t nd = lm_vtree_first(s2, y); nd >= 0;
         nd = lm_vtree_next(s2, nd)) {
      lm_vval key = lm_vtree_key(s2, nd);
      if (lm_vtree_add(&d->vt2, x, &key, s2->nodes[nd].k2, s2->nodes[nd].cnt,
                       NULL, NULL))
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int32_t nd = lm_vtree_first(sv, y); nd >= 0;
         nd = lm_vtree_next(sv, nd)) {
      lm_vval key = lm_vtree_key(sv, nd);
      mm_mark(d, sp, x, &key);
    }
  }
  if (!is_distinct(sp))
    d->cnt[x] += src->st[a].cnt[y];
  return 0;
}

/* Chan et al.'s parallel combination, in shifted form: src's sums are
 * re-shifted to dst's shift k before they are added. */
static void merge_var(var_state *d, int64_t dn, const var_state *s,
                      int64_t sn) {
  int64_t df = dn - d->nonfinite, sf = sn - s->nonfinite;
  d->nonfinite += s->nonfinite;
  if (sf <= 0)
    return;
  if (df <= 0) {
    d->k = s->k;
    d->s = s->s;
    d->ss = s->ss;
    return;
  }
  long double delta = s->k - d->k; /* x - d.k = (x - s.k) + delta */
  d->ss += s->ss + 2 * delta * s->s + (long double)sf * delta * delta;
  d->s += s->s + (long double)sf * delta;
}

int lm_aggtable_merge_groups(lm_aggtable *dst, const uint32_t *dg,
                             const lm_aggtable *src, const uint32_t *sg,
                             int64_t n, lm_error *err) {
  if (dst->n_aggs != src->n_aggs || dst->retract != src->retract)
    return lm_err(err, LM_ERR_EXEC, "merging group tables of different shape");
  for (int64_t j = 0; j < n; j++)
    if (!(dst == src && dg[j] == sg[j]))
      dst->rows[dg[j]] += src->rows[sg[j]];
  for (int a = 0; a < dst->n_aggs; a++) {
    const lm_agg_spec *sp = &dst->aggs[a];
    agg_state *d = &dst->st[a];
    const agg_state *s = &src->st[a];
    bool fl = is_float(sp->in_type);
    lm_vt_kind vk = sp_kind(sp);
    for (int64_t j = 0; j < n; j++) {
      uint32_t x = dg[j], y = sg[j];
      if (dst == src && x == y)
        continue;
      if (d->tree) {
        int rc = merge_tree(dst, a, x, src, y, err);
        if (rc)
          return rc;
        continue;
      }
      int64_t c = s->cnt[y];
      switch (sp->kind) {
      case LM_AGG_COUNT_STAR:
      case LM_AGG_COUNT:
        break;
      case LM_AGG_BOOL_AND:
      case LM_AGG_BOOL_OR:
        d->nt[x] += s->nt[y];
        break;
      case LM_AGG_STRING_AGG: {
        if (c <= 0)
          break;
        const sbuf *sb = &s->sb[y];
        lm_vval all = {0, 0, sb->p ? sb->p : "", (int32_t)sb->len};
        bool first = d->cnt[x] <= 0;
        if (sb->len > INT32_MAX || sbuf_add(&d->sb[x], NULL, 0, &all, first))
          return lm_err(err, LM_ERR_NOMEM, "out of memory");
        if (first)
          d->sb[x].first = sb->first;
        break;
      }
      case LM_AGG_SUM:
      case LM_AGG_AVG:
        if (fl) {
          if (d->fd && s->fd &&
              fshadow_merge(&d->fd[x], d->cnt[x], &s->fd[y], c,
                            sp->kind == LM_AGG_AVG))
            return overflow_err(err);
          fsum *f = &d->fs[x];
          fsum_acc(f, s->fs[y].s);
          fsum_acc(f, s->fs[y].c);
          f->nan += s->fs[y].nan;
          f->pinf += s->fs[y].pinf;
          f->ninf += s->fs[y].ninf;
        } else if (sp->kind == LM_AGG_AVG || SUM_WIDE(dst, sp)) {
          if (__builtin_add_overflow(d->w[x], s->w[y], &d->w[x]))
            return numeric_overflow(err); /* same shape: both wide */
          if (d->fs && s->fs) {           /* DECIMAL NaN / ±Infinity counts */
            d->fs[x].nan += s->fs[y].nan;
            d->fs[x].pinf += s->fs[y].pinf;
            d->fs[x].ninf += s->fs[y].ninf;
          }
        } else {
          int64_t sum;
          if (lm_add_overflow_i64(d->i[x], s->i[y], &sum))
            return sum_overflow(sp, err);
          d->i[x] = sum;
        }
        break;
      case LM_AGG_MIN:
      case LM_AGG_MAX:
      case LM_AGG_FIRST:
      case LM_AGG_LAST: {
        if (c <= 0)
          break;
        bool take = d->cnt[x] <= 0;
        if (!take && is_minmax(sp->kind)) {
          lm_vval sv = stored_val(s, vk, y), dv = stored_val(d, vk, x);
          take = minmax_takes(sp, vk, &sv, &dv); /* s: the later rows */
        } else if (!take) {                      /* arrival order */
          take = sp->kind == LM_AGG_FIRST ? s->sq[y] < d->sq[x]
                                          : s->sq[y] > d->sq[x];
        }
        if (take) {
          lm_vval sv = stored_val(s, vk, y);
          if (store_val(d, vk, x, &sv))
            return lm_err(err, LM_ERR_NOMEM, "out of memory");
          if (is_firstlast(sp->kind))
            d->sq[x] = s->sq[y];
        }
        break;
      }
      case LM_AGG_VAR_SAMP:
      case LM_AGG_VAR_POP:
      case LM_AGG_STDDEV_SAMP:
      case LM_AGG_STDDEV_POP:
        if (VAR_NUMERIC(sp)) {
          if (__builtin_add_overflow(d->w[x], s->w[y], &d->w[x]) ||
              lm_s256_add(&d->w2[x], s->w2[y]))
            return numeric_overflow(err);
          if (d->fs && s->fs) { /* DECIMAL NaN / ±Infinity counts */
            d->fs[x].nan += s->fs[y].nan;
            d->fs[x].pinf += s->fs[y].pinf;
            d->fs[x].ninf += s->fs[y].ninf;
          }
          break;
        }
        merge_var(&d->vr[x], d->cnt[x], &s->vr[y], c);
        break;
      case LM_AGG_APPROX_DISTINCT:
        if (s->hll[y]) {
          if (!d->hll[x] && !(d->hll[x] = calloc(HLL_M, 1)))
            return lm_err(err, LM_ERR_NOMEM, "out of memory");
          for (int r = 0; r < HLL_M; r++)
            if (s->hll[y][r] > d->hll[x][r])
              d->hll[x][r] = s->hll[y][r];
        }
        break;
      case LM_AGG_REGR:
        if (sp->regr_fn >= 0 && lm_regr_combine(&d->rg[x], &s->rg[y]))
          return overflow_err(err);
        break;
      case LM_AGG_PAIR:
        break;
      case LM_AGG_BIT_AND:
      case LM_AGG_BIT_OR:
      case LM_AGG_BIT_XOR:
        if (c <= 0)
          break;
        if (d->bc) {
          for (int k = 0; k < 64; k++)
            d->bc[x].c[k] += s->bc[y].c[k];
        } else if (d->cnt[x] <= 0) {
          d->i[x] = s->i[y];
        } else {
          d->i[x] = sp->kind == LM_AGG_BIT_AND  ? d->i[x] & s->i[y]
                    : sp->kind == LM_AGG_BIT_OR ? d->i[x] | s->i[y]
                                                : d->i[x] ^ s->i[y];
        }
        break;
      default:
        return lm_err(err, LM_ERR_EXEC,
                      "this aggregate cannot merge partial states (HOP, "
                      "CUMULATE and SESSION windows need that)");
      }
      d->cnt[x] += c;
    }
  }
  return 0;
}

bool lm_aggtable_invertible(const lm_aggtable *t) {
  if (t->retract)
    return false;
  for (int a = 0; a < t->n_aggs; a++) {
    const lm_agg_spec *sp = &t->aggs[a];
    if (t->st[a].tree)
      return false;
    switch (sp->kind) {
    case LM_AGG_COUNT_STAR:
    case LM_AGG_COUNT:
    case LM_AGG_BOOL_AND:
    case LM_AGG_BOOL_OR:
      break;
    case LM_AGG_SUM:
    case LM_AGG_AVG:
      if (is_float(sp->in_type)) /* a float sum is not exactly invertible */
        return false;
      break;
    default:
      return false;
    }
  }
  return true;
}

int lm_aggtable_unmerge_groups(lm_aggtable *dst, const uint32_t *dg,
                               const lm_aggtable *src, const uint32_t *sg,
                               int64_t n) {
  if (dst == src || dst->n_aggs != src->n_aggs ||
      !lm_aggtable_invertible(dst) || !lm_aggtable_invertible(src))
    return 1;
  for (int64_t j = 0; j < n; j++)
    dst->rows[dg[j]] -= src->rows[sg[j]];
  for (int a = 0; a < dst->n_aggs; a++) {
    const lm_agg_spec *sp = &dst->aggs[a];
    agg_state *d = &dst->st[a];
    const agg_state *s = &src->st[a];
    for (int64_t j = 0; j < n; j++) {
      uint32_t x = dg[j], y = sg[j];
      if (is_bool(sp->kind)) {
        d->nt[x] -= s->nt[y];
      } else if (sp->kind == LM_AGG_AVG || SUM_WIDE(dst, sp)) {
        if (__builtin_sub_overflow(d->w[x], s->w[y], &d->w[x]))
          return 1;
      } else if (sp->kind == LM_AGG_SUM) {
        int64_t dif;
        if (__builtin_sub_overflow(d->i[x], s->i[y], &dif))
          return 1; /* dst is partly changed: the caller rebuilds it */
        d->i[x] = dif;
      }
      d->cnt[x] -= s->cnt[y];
    }
  }
  return 0;
}

int lm_aggtable_merge_group(lm_aggtable *dst, uint32_t dst_gid,
                            const lm_aggtable *src, uint32_t src_gid,
                            lm_error *err) {
  return lm_aggtable_merge_groups(dst, &dst_gid, src, &src_gid, 1, err);
}
