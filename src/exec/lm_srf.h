/*
 * exec/lm_srf.h — set-returning functions: generate_series as a cursor
 * that appends its values to a column builder a chunk at a time, so a
 * caller can cut the rows into batches of any size and stop early (a
 * LIMIT) without computing the rest (docs/functions.md).
 *
 * Semantics are PostgreSQL 15's generate_series(start, stop[, step]):
 * the values start, start + step, ... while they do not pass stop (<= stop
 * for a positive step, >= stop for a negative one); a NULL argument gives
 * no rows; a zero step is SQLSTATE 22023 "step size cannot equal zero";
 * the series ends (no error) where the next value would overflow the
 * type, as PostgreSQL's integer versions do.
 */
#ifndef LM_SRF_H
#define LM_SRF_H

#include "columnar/lm_columnar.h"
#include "columnar/lm_decimal.h"
#include "exec/lm_exec.h"

struct lm_tz;

/* One generate_series call's state. Fill it with lm_srf_series_init. */
typedef struct lm_srf_series {
  lm_type type; /* INT32, INT64, DECIMAL128, TIMESTAMP (tz or not) */
  bool done;
  int64_t cur, stop, step; /* integers; timestamps (µs); step > 0 or < 0 */
  /* DECIMAL128: values at scale wscale (>= the output type's scale) */
  lm_i128 dcur, dstop, dstep;
  int wscale;
  /* TIMESTAMPTZ: whole days of the step, added to the local date in zone
   * tz (keeping the wall-clock time across a DST change, as PostgreSQL),
   * then step µs; 0 = none */
  int64_t step_days;
  const struct lm_tz *tz;
  /* a step with months (an INTERVAL_MDN value): each value is the last
   * plus {iv_months, iv_days, step µs} by lm_ts_plus_iv (lm_interval.h),
   * in the session zone for TIMESTAMPTZ */
  bool iv;
  int32_t iv_months, iv_days;
} lm_srf_series;

/* Starts a series of output type `type` (INT32, INT64, DECIMAL128(p, s),
 * TIMESTAMP or TIMESTAMPTZ). start / stop / step are of that type except:
 * a timestamp series' step is an INTERVAL (µs), and a decimal series'
 * start, stop and step are DECIMAL128 values of any scale (their own
 * value.type.scale). step NULL (a pointer): 1, for integers and decimals
 * only. step_days / tz: see lm_srf_series (0 / NULL: none). A NULL value
 * makes an empty series. Errors: LM_ERR_EXEC with SQLSTATE 22023 "step
 * size cannot equal zero"; LM_ERR_BIND for an unsupported type. */
int lm_srf_series_init(lm_srf_series *s, lm_type type, const lm_value *start,
                       const lm_value *stop, const lm_value *step,
                       int64_t step_days, const struct lm_tz *tz,
                       lm_error *err);

/* Appends up to max (>= 0) next values of s to b (a builder of s->type)
 * and returns how many it appended; fewer than max only when the series
 * ended (s->done is then set). OOM shows as b->oom. */
int64_t lm_srf_series_fill(lm_srf_series *s, lm_builder *b, int64_t max);

/* Whether `name` (lower case) is a set-returning function Laminar runs:
 * generate_series, string_to_table, regexp_split_to_table,
 * regexp_matches, unnest, the JSON ones. */
bool lm_srf_is_name(const char *name);

/* The set-returning functions (and LM_SRF_SCALAR: a plain call in FROM,
 * one row). */
typedef enum lm_srf_kind {
  LM_SRF_SCALAR,
  LM_SRF_SERIES,          /* generate_series */
  LM_SRF_STRING_TO_TABLE, /* string_to_table(text, delim [, null_str]) */
  LM_SRF_REGEXP_SPLIT,    /* regexp_split_to_table(text, re [, flags]) */
  LM_SRF_UNNEST,          /* unnest(array): its items (a split cursor) */
  /* regexp_matches(text, re [, flags]): each match (every one with 'g')
   * as a text[] of its capture groups (the whole match without groups) */
  LM_SRF_REGEXP_MATCHES,
  /* the JSON functions (exec/srf_json.c): LM_SRF_JSON | LM_SRFJ_op, with
   * LM_SRF_JSONB for the jsonb_ ones */
  LM_SRF_JSON = 0x100,
  LM_SRF_JSON_MAX = 0x1ff,
} lm_srf_kind;

/* The JSON functions' ops (the low bits of an LM_SRF_JSON kind).
 * json_each / json_each_text (EACH, EACHT) are expanded by the parser into
 * ROWS FROM of their key and value halves (sql/srf_expand.c, named
 * "json_each:key", "json_each:value"); unexpanded (the select list) they
 * are refused. */
#define LM_SRF_JSONB 0x10
enum {
  LM_SRFJ_KEYS = 1,   /* json_object_keys */
  LM_SRFJ_EACH,       /* json_each (unexpanded) */
  LM_SRFJ_EACHT,      /* json_each_text (unexpanded) */
  LM_SRFJ_EACH_KEY,   /* json_each's key column */
  LM_SRFJ_EACH_VAL,   /* json_each's value column */
  LM_SRFJ_EACHT_KEY,  /* json_each_text's key column */
  LM_SRFJ_EACHT_VAL,  /* json_each_text's value column */
  LM_SRFJ_ELEMS,      /* json_array_elements */
  LM_SRFJ_ELEMS_TEXT, /* json_array_elements_text */
};
static inline bool lm_srf_is_json(int k) {
  return k >= LM_SRF_JSON && k <= LM_SRF_JSON_MAX;
}
static inline int lm_srf_json_op(int k) {
  return k & 0xf;
}

/* The kind of function `name` (lower case; NULL: scalar). */
lm_srf_kind lm_srf_kind_of(const char *name);

/* A compiled regexp_split_to_table pattern, reused while the pattern and
 * flags repeat (zero-initialize; free with lm_srf_rx_free). */
typedef struct lm_srf_rx {
  void *code, *md; /* pcre2 code and match data */
  char *key;       /* pattern bytes then flags (malloc'd) */
  int32_t klen, plen;
  lm_arena *jar; /* the JSON functions' parsed value (malloc'd) */
} lm_srf_rx;
void lm_srf_rx_free(lm_srf_rx *rx);

/* One string_to_table / regexp_split_to_table call's state: the pieces of
 * a string (borrowed: the argument arrays must outlive the cursor). */
typedef struct lm_srf_split {
  lm_srf_kind kind;
  bool done;
  const char *s;
  int32_t len, pos; /* bytes; pos: where the next piece starts */
  /* string_to_table: delim (NULL pointer = each character), null_str */
  const char *delim, *nul;
  int32_t dlen, nlen;
  bool has_nul;
  /* regexp: the compiled pattern; end of the previous match; search;
   * regexp_matches: every match ('g') */
  lm_srf_rx *rx;
  int32_t prev_end, search;
  bool global;
  /* unnest: the LIST row's items, rows [ipos, iend) of items (borrowed) */
  const lm_array *items;
  int64_t ipos, iend;
  /* the JSON functions: the parsed value (in rx->jar), the next item */
  const struct lm_jv *jv;
  int32_t jpos;
} lm_srf_split;

/* Starts a split of str (UTF8) by delim (string_to_table: NULL = each
 * character; third: null_str or NULL) or by the regular expression delim
 * with flags third (regexp_split_to_table; rx: the pattern cache), or the
 * matches of the regular expression delim in str (regexp_matches: flag
 * 'g' for every match, else the first; each a LIST of UTF8 row). A NULL
 * str (or a NULL pattern / flags) makes no rows, as PostgreSQL's strict
 * functions. Values are borrowed. Errors: LM_ERR_EXEC 2201B (invalid
 * regular expression), 22023 (invalid option; "global" for the split);
 * LM_ERR_NOMEM. */
int lm_srf_split_init(lm_srf_split *s, lm_srf_kind kind, const lm_value *str,
                      const lm_value *delim, const lm_value *third,
                      lm_srf_rx *rx, lm_error *err);

/* Appends up to max next pieces (UTF8) of s to b and returns how many;
 * fewer than max only when the split ended (s->done set). */
int64_t lm_srf_split_fill(lm_srf_split *s, lm_builder *b, int64_t max);

/* The JSON set-returning functions (exec/srf_json.c). lm_srf_json_kind:
 * the kind of `name` (json_object_keys, jsonb_each:key ...; lower case),
 * LM_SRF_SCALAR when it is none of them. lm_srf_json_name: the SQL name
 * of kind k ("jsonb_each_text") in buf. lm_srf_json_out: the output
 * column's type (text, json or jsonb). lm_srf_json_init: starts a cursor
 * over JSON value v (UTF8 text of type json, or jsonb for the jsonb_
 * kinds; NULL: no rows), parsed into rx->jar (allocated on first use,
 * freed by lm_srf_rx_free). Errors: LM_ERR_EXEC 22023 with PostgreSQL's
 * message for the wrong kind of value ("cannot call json_object_keys on a
 * scalar", "cannot deconstruct an array as an object", "cannot extract
 * elements from an object" ...), LM_ERR_NOMEM. lm_srf_json_fill: as
 * lm_srf_split_fill. */
lm_srf_kind lm_srf_json_kind(const char *name);
const char *lm_srf_json_name(lm_srf_kind k, char *buf, size_t size);
lm_type lm_srf_json_out(lm_srf_kind k);
int lm_srf_json_init(lm_srf_split *s, lm_srf_kind kind, const lm_value *v,
                     lm_srf_rx *rx, lm_error *err);
int64_t lm_srf_json_fill(lm_srf_split *s, lm_builder *b, int64_t max);

/* ------------------------------------------- ProjectSet operator */

/* One function of a ProjectSet stage: kind, arguments bound over the
 * stage's input (already of the types the function takes: the series'
 * output type, INTERVAL for a timestamp step, UTF8 for text splits),
 * output type. A scalar call has one argument, its value. */
typedef struct lm_pset_call {
  lm_srf_kind kind;
  const lm_bexpr *args[3];
  int n_args;
  lm_type out;
  int64_t step_days; /* generate_series over TIMESTAMPTZ: lm_srf_series */
  const struct lm_tz *tz;
  int line, column; /* the call, for errors */
} lm_pset_call;

/* PostgreSQL's ProjectSet / a lateral function scan as an operator
 * (exec/op_project_set.c): each input row is followed by the rows of its
 * calls (run in lockstep, the shorter ones NULL-padded, as ROWS FROM), in
 * batches of at most LM_SRF_BATCH_ROWS rows: out_schema's columns are the
 * input's then one per call, then ordinality (BIGINT from 1) when `ord`.
 * An input row whose calls make no rows gives one row of NULLs when
 * `outer` (LEFT JOIN LATERAL ... ON TRUE), else nothing. weight_col >= 0:
 * the input batches carry a BIGINT __weight in that column (after the
 * input's columns); each output row repeats its input row's weight after
 * out_schema's columns, so a retraction retracts every row the insertion
 * made. Watermarks pass through. calls are copied; their bexprs and
 * out_schema (a reference taken over) must outlive the operator. NULL on
 * OOM. Errors of push: the arguments' (22023 zero step, 2201B ...). */
lm_operator *lm_op_project_set_new(const lm_pset_call *calls, int n_calls,
                                   bool ord, bool outer, int weight_col,
                                   lm_schema *out_schema);

/* The rows of a set-returning call Laminar cuts its output into (the
 * batch size of the ad-hoc executor's inputs). */
#define LM_SRF_BATCH_ROWS 4096
/* ... and the bytes of variable-size input values (strings, jsonb, lists
 * at 8 bytes an item) a ProjectSet batch repeats: fewer rows per batch
 * when each repeats a large value (at least one). */
#define LM_SRF_BATCH_BYTES ((int64_t)8 << 20)

/* Tells op (from lm_op_project_set_new) which of its input columns
 * anything downstream reads: used[c] for input column c < n (columns from
 * n on are read). A column not read is all NULLs in the output (of its
 * type, whatever the field's nullability), so a large value is not copied
 * into each of the rows its calls make. The caller must know every reader
 * of op's output (its calls' own arguments are evaluated before).
 * Returns 0 or LM_ERR_NOMEM. */
int lm_op_project_set_unused(lm_operator *op, const bool *used, int n);

/* Gives op (from lm_op_project_set_new) arena a (malloc'd, initialized):
 * freed with the operator (lm_arena_free, then free). */
void lm_op_project_set_own(lm_operator *op, lm_arena *a);

#endif
