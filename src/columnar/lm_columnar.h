/*
 * columnar/ — Laminar's in-memory data: types, schemas, Arrow-layout arrays,
 * builders and record batches.
 *
 * Layout follows the Arrow columnar format
 * (https://arrow.apache.org/docs/format/Columnar.html):
 *  - validity bitmap, LSB-first, 1 = valid; absent bitmap = all valid;
 *  - fixed-width values in one buffer (BOOLEAN is a bitmap);
 *  - UTF8: int32 offsets (length + 1 entries) + data bytes;
 *  - every buffer 64-byte aligned and padded to 64 bytes.
 * Arrays, schemas and batches are refcounted and immutable once built;
 * `_retain` adds a reference, `_release` drops one and frees at zero.
 * Buffers are refcounted separately so slices and foreign (C Data
 * Interface) memory share storage without copies.
 */
#ifndef LM_COLUMNAR_H
#define LM_COLUMNAR_H

#include "base/lm_base.h"

/* ------------------------------------------------------------------ types */

typedef enum lm_type_id {
  LM_TYPE_NULL = 0,
  LM_TYPE_BOOL,
  LM_TYPE_INT8,
  LM_TYPE_INT16,
  LM_TYPE_INT32,
  LM_TYPE_INT64,
  LM_TYPE_FLOAT32,
  LM_TYPE_FLOAT64,
  LM_TYPE_UTF8,
  LM_TYPE_TIMESTAMP, /* int64 since the Unix epoch, in `unit`; no zone */
  LM_TYPE_INTERVAL,  /* SQL INTERVAL: an int64 count of µs (Arrow
                        Duration(MICROSECOND)) */
  /* The rest of the Arrow types (Columnar.html "Data Types"). Layouts:
   * values buffer for fixed-width types; offsets (int32, or int64 for the
   * LARGE_ types) + data for the variable-size binary types; offsets +
   * children[0] for lists; children only for STRUCT; index values +
   * `dictionary` for DICTIONARY. */
  LM_TYPE_UINT8,
  LM_TYPE_UINT16,
  LM_TYPE_UINT32,
  LM_TYPE_UINT64,
  LM_TYPE_FLOAT16,      /* IEEE 754 binary16, stored as uint16 bits */
  LM_TYPE_DECIMAL128,   /* int128 little-endian; precision, scale */
  LM_TYPE_DATE32,       /* int32 days since 1970-01-01 */
  LM_TYPE_TIME32,       /* int32 since midnight, unit SECOND or MILLI */
  LM_TYPE_TIME64,       /* int64 since midnight, unit MICRO or NANO */
  LM_TYPE_DURATION,     /* int64 in `unit` (s, ms, ns; µs is INTERVAL) */
  LM_TYPE_INTERVAL_MDN, /* {int32 months, int32 days, int64 ns}, 16 bytes */
  LM_TYPE_LARGE_UTF8,   /* int64 offsets + UTF-8 data */
  LM_TYPE_BINARY,       /* int32 offsets + bytes */
  LM_TYPE_LARGE_BINARY, /* int64 offsets + bytes */
  LM_TYPE_FIXED_SIZE_BINARY, /* node->byte_width bytes per value */
  LM_TYPE_LIST,              /* int32 offsets into children[0] */
  LM_TYPE_LARGE_LIST,        /* int64 offsets into children[0] */
  LM_TYPE_STRUCT,            /* children[k] per node->children[k] */
  LM_TYPE_DICTIONARY,        /* integer indices into `dictionary` */
  LM_TYPE__COUNT
} lm_type_id;

typedef enum lm_time_unit {
  LM_UNIT_SECOND = 0,
  LM_UNIT_MILLI = 1,
  LM_UNIT_MICRO = 2,
  LM_UNIT_NANO = 3,
} lm_time_unit;

typedef struct lm_type_node lm_type_node;

/* A data type is a small value, copied freely: id plus parameters (unit
 * for TIMESTAMP/TIME32/TIME64/DURATION; precision/scale for DECIMAL128)
 * and, for FIXED_SIZE_BINARY, LIST, LARGE_LIST, STRUCT and DICTIONARY
 * only, `node`: an interned, immutable, process-lifetime description of
 * the parameters (see lm_type_node). Interning makes equal types share one
 * node, so lm_type_eq stays a field comparison and copies need no
 * reference counting. Flat types have node == NULL. */
typedef struct lm_type {
  lm_type_id id;
  uint8_t unit; /* lm_time_unit */
  uint8_t precision;
  int8_t scale;
  const lm_type_node *node;
} lm_type;

/* One child of a nested type: a list's item, a struct's field, a
 * dictionary's value type (name "values"). */
typedef struct lm_type_field {
  const char *name; /* NUL-terminated; interned with the node */
  lm_type type;
  bool nullable;
  const char *timezone; /* TIMESTAMP zone label or NULL */
} lm_type_field;

struct lm_type_node {
  int32_t byte_width; /* FIXED_SIZE_BINARY; 0 otherwise */
  int32_t n_children; /* LIST/LARGE_LIST 1, STRUCT n, DICTIONARY 1 */
  const lm_type_field *children;
  lm_type_id index; /* DICTIONARY: INT8..INT64 or UINT8..UINT64 */
  bool ordered;     /* DICTIONARY: isOrdered */
  int depth;        /* 1 + the deepest child's depth (flat children: 1) */
};

static inline lm_type lm_type_make(lm_type_id id) {
  lm_type t = {id, id == LM_TYPE_TIMESTAMP ? LM_UNIT_MICRO : 0, 0, 0, NULL};
  return t;
}
/* A type with a time unit (TIMESTAMP, TIME32, TIME64, DURATION). */
static inline lm_type lm_type_unit(lm_type_id id, lm_time_unit unit) {
  lm_type t = {id, (uint8_t)unit, 0, 0, NULL};
  return t;
}
/* TIMESTAMP WITH TIME ZONE (SQL TIMESTAMPTZ): a TIMESTAMP(µs) whose
 * `precision` field is 1. Values are UTC instants in µs, like TIMESTAMP;
 * the marker makes it a distinct SQL type (printed and cast in the session
 * time zone, exported as Arrow Timestamp(µs, "UTC"); columnar/lm_tz.h). */
static inline lm_type lm_type_timestamptz(void) {
  lm_type t = {LM_TYPE_TIMESTAMP, LM_UNIT_MICRO, 1, 0, NULL};
  return t;
}
static inline bool lm_type_is_tstz(lm_type t) {
  return t.id == LM_TYPE_TIMESTAMP && t.precision == 1;
}
/* PostgreSQL's blank-padded CHAR(n) (bpchar): a UTF8 whose `precision`
 * field is 1. Values are text padded with spaces to the column's n (an
 * assignment or cast pads); used as text (a comparison, a function, ||)
 * the trailing spaces are dropped, as PostgreSQL's cast to text
 * (docs/types.md). Exported as Arrow Utf8. */
static inline lm_type lm_type_bpchar(void) {
  lm_type t = {LM_TYPE_UTF8, 0, 1, 0, NULL};
  return t;
}
static inline bool lm_type_is_bpchar(lm_type t) {
  return t.id == LM_TYPE_UTF8 && t.precision == 1;
}
/* PostgreSQL's json / jsonb: a UTF8 whose `precision` field is 2 (json:
 * the JSON text as given, validated) or 3 (jsonb: PostgreSQL's normalized
 * text, exec/lm_jsonv.h). Exported as Arrow Utf8 (docs/types.md). */
static inline lm_type lm_type_json(bool jsonb) {
  lm_type t = {LM_TYPE_UTF8, 0, (uint8_t)(jsonb ? 3 : 2), 0, NULL};
  return t;
}
static inline bool lm_type_is_json(lm_type t) { /* json or jsonb */
  return t.id == LM_TYPE_UTF8 && (t.precision == 2 || t.precision == 3);
}
static inline bool lm_type_is_jsonb(lm_type t) {
  return t.id == LM_TYPE_UTF8 && t.precision == 3;
}
/* PostgreSQL's uuid: a UTF8 whose `precision` field is 4, each value the
 * canonical 36-character lowercase text (8-4-4-4-12 hex digits), so that
 * byte order is uuid order (exec/expr_fn5.c reads and checks it).
 * Exported as Arrow Utf8 (docs/types.md). */
static inline lm_type lm_type_uuid(void) {
  lm_type t = {LM_TYPE_UTF8, 0, 4, 0, NULL};
  return t;
}
static inline bool lm_type_is_uuid(lm_type t) {
  return t.id == LM_TYPE_UTF8 && t.precision == 4;
}
/* DECIMAL128(precision 1..38, scale); lm_type_valid checks the ranges. */
static inline lm_type lm_type_decimal128(int precision, int scale) {
  lm_type t = {LM_TYPE_DECIMAL128, 0, (uint8_t)precision, (int8_t)scale, NULL};
  return t;
}
static inline bool lm_type_eq(lm_type a, lm_type b) {
  return a.id == b.id && a.unit == b.unit && a.precision == b.precision &&
         a.scale == b.scale && a.node == b.node;
}

/* Parameterised types. Each interns its node (thread-safe) and returns 0
 * with *out set, LM_ERR_INVALID for bad parameters (width < 0, a non-
 * integer index type, a NULL child name, a child type that is not valid,
 * n < 0), LM_ERR_LIMIT when the process already interned
 * LM_TYPE_MAX_NODES nodes (hostile input inventing types), or
 * LM_ERR_NOMEM. Field names/zones are copied. */
#define LM_TYPE_MAX_NODES (1 << 20)
int lm_type_fixed_size_binary(int32_t byte_width, lm_type *out);
/* id LM_TYPE_LIST or LM_TYPE_LARGE_LIST; item->name is usually "item". */
int lm_type_list(lm_type_id id, const lm_type_field *item, lm_type *out);
int lm_type_struct(int n, const lm_type_field *fields, lm_type *out);
/* index: INT8..INT64 or UINT8..UINT64; value: any valid type. */
int lm_type_dictionary(lm_type_id index, lm_type value, bool ordered,
                       lm_type *out);
/* Whether t is well formed: a known id, a unit allowed for it, decimal
 * precision 1..38, and a node exactly when the id needs one. */
bool lm_type_valid(lm_type t);
/* Nesting depth: 1 for a flat type, 1 + the deepest child otherwise. */
int lm_type_depth(lm_type t);
/* DICTIONARY: its index and value types. */
static inline lm_type lm_type_dict_index(lm_type t) {
  return lm_type_make(t.node->index);
}
static inline lm_type lm_type_dict_value(lm_type t) {
  return t.node->children[0].type;
}

/* Byte width of one value for fixed-width types (FIXED_SIZE_BINARY: its
 * width); 0 for BOOL (bit-packed), NULL and the variable-size and nested
 * types, DICTIONARY included (see lm_type_dict_index). */
int lm_type_width(lm_type t);
bool lm_type_is_integer(lm_type t);  /* INT8..INT64 */
bool lm_type_is_unsigned(lm_type t); /* UINT8..UINT64 */
bool lm_type_is_numeric(lm_type t);  /* signed integers and FLOAT32/64 */
/* Variable-size binary-like: UTF8, LARGE_UTF8, BINARY, LARGE_BINARY. */
bool lm_type_is_varbinary(lm_type t);
/* LIST, LARGE_LIST, STRUCT, DICTIONARY. */
bool lm_type_is_nested(lm_type t);
/* SQL name: "BIGINT", "VARCHAR", "TIMESTAMP", "UBIGINT", "LIST", ...
 * (static string; parameters are not spelled, except a valid DECIMAL's:
 * "DECIMAL(10,2)"). */
const char *lm_type_name(lm_type t);
/* Appends the full spelling of t: "DECIMAL(10,2)", "LIST<BIGINT>",
 * "STRUCT<a BIGINT, b VARCHAR>", "DICTIONARY<INTEGER, VARCHAR>",
 * "FIXED_SIZE_BINARY(16)", "TIME64(ns)". LM_ERR_NOMEM. */
int lm_type_format(lm_buf *out, lm_type t);

/* ----------------------------------------------------------------- schema */

typedef struct lm_field {
  char *name; /* owned, NUL-terminated */
  lm_type type;
  bool nullable;
  /* TIMESTAMP only: the zone label carried by Arrow data ("UTC",
   * "+05:30", "America/New_York"), owned; NULL = none. Values are UTC
   * instants either way; the label is kept so tables round-trip. */
  char *timezone;
} lm_field;

/* A column's declared SQL type modifier (PostgreSQL's typmod), kept by a
 * table's / source's schema for assignments (INSERT, UPDATE) and DESCRIBE;
 * the column's lm_type is the plain type (docs/types.md). All zero: none. */
typedef struct lm_typmod {
  int32_t char_len; /* VARCHAR(n) / CHAR(n): n characters; 0 = no limit */
  bool bpchar;      /* CHAR(n) / CHARACTER(n) / BPCHAR: blank-padded */
  int8_t tprec;     /* TIMESTAMP(p) / TIMESTAMPTZ(p) / TIME(p): p + 1 */
} lm_typmod;

typedef struct lm_schema {
  int refcnt;
  int n_fields;
  lm_field *fields; /* owned array of n_fields */
  lm_typmod *mods;  /* owned array of n_fields, or NULL: no modifiers */
} lm_schema;

/* Creates an empty schema with room for n fields (names NULL, to be set via
 * lm_schema_set_field). NULL on OOM. Refcount 1. */
lm_schema *lm_schema_new(int n_fields);
/* Copies name. Returns LM_ERR_NOMEM on failure. */
int lm_schema_set_field(lm_schema *s, int i, const char *name, lm_type type,
                        bool nullable);
/* Sets (copies) or clears (tz NULL) field i's time zone label.
 * LM_ERR_NOMEM / LM_ERR_INVALID. */
int lm_schema_set_timezone(lm_schema *s, int i, const char *tz);
/* Sets field i's type modifier (copied). LM_ERR_NOMEM / LM_ERR_INVALID
 * (i out of range). */
int lm_schema_set_typmod(lm_schema *s, int i, lm_typmod mod);
/* Field i's type modifier: all zero when none was set (or i is out of
 * range). */
lm_typmod lm_schema_typmod(const lm_schema *s, int i);
/* Appends field i's SQL type as DESCRIBE shows it: lm_type_name plus the
 * modifier ("VARCHAR(3)", "CHAR(2)", "TIMESTAMP(3)",
 * "DECIMAL(10,2)"). LM_ERR_NOMEM. */
int lm_schema_format_type(lm_buf *out, const lm_schema *s, int i);
lm_schema *lm_schema_retain(lm_schema *s);
void lm_schema_release(lm_schema *s);
/* Lookup by name: the first field named exactly `name`, else the first
 * whose name equals it ignoring ASCII case; returns index or -1. */
int lm_schema_find(const lm_schema *s, const char *name);
/* Lookup of a column reference (docs/sql.md "Names"): the first field named
 * exactly `name`; else, unless `quoted`, the first named so ignoring ASCII
 * case. Returns the index or -1; *n_hits (may be NULL) gets the number of
 * fields matching at that level (more than 1: the reference is ambiguous). */
int lm_schema_find_ref(const lm_schema *s, const char *name, bool quoted,
                       int *n_hits);

/* ---------------------------------------------------------------- buffers */

typedef struct lm_buffer lm_buffer;
struct lm_buffer {
  int refcnt;
  uint8_t *data;
  size_t size; /* bytes in use */
  size_t capacity;
  /* For foreign memory (C Data Interface import): called at refcount 0
   * instead of freeing data. NULL for our own 64-byte aligned memory. */
  void (*release)(lm_buffer *b);
  void *owner;
};

/* New owned buffer of `capacity` bytes (64-aligned, zero-filled, padded to
 * 64). size = capacity as requested; ->capacity is the padded size. NULL on
 * OOM. Refcount 1. */
lm_buffer *lm_buffer_new(size_t capacity);
/* Wraps foreign memory (no copy); `release(b)` runs when the last reference
 * goes and frees/returns the foreign memory (b->owner helps it); the
 * lm_buffer struct itself is freed by lm_buffer_release afterwards.
 * release == NULL means borrowed memory that outlives the buffer. NULL on
 * OOM. Refcount 1. */
lm_buffer *lm_buffer_wrap(const void *data, size_t size,
                          void (*release)(lm_buffer *), void *owner);
lm_buffer *lm_buffer_retain(lm_buffer *b);
void lm_buffer_release(lm_buffer *b);

/* ---------------------------------------------------------------- arrays */

typedef struct lm_array lm_array;
struct lm_array {
  int refcnt;
  lm_type type;
  int64_t length;      /* rows */
  int64_t null_count;  /* exact; 0 when validity == NULL */
  int64_t offset;      /* logical start, in rows, into the buffers (slices) */
  lm_buffer *validity; /* bitmap or NULL (all valid) */
  /* fixed-width values / bool bits / int32 (int64 for LARGE_*) offsets /
   * dictionary indices; NULL for NULL and STRUCT */
  lm_buffer *values;
  lm_buffer *data; /* bytes of the varbinary types; NULL otherwise */
  /* LIST/LARGE_LIST: 1 (the items; offsets index its rows); STRUCT: one
   * per field, row i of the struct being row offset + i of each child
   * (children are not sliced with their parent, as in Arrow); else 0.
   * Each child is one owned reference. */
  int n_children;
  lm_array **children;  /* owned array of n_children */
  lm_array *dictionary; /* DICTIONARY: the values (one reference) */
};

lm_array *lm_array_retain(lm_array *a);
void lm_array_release(lm_array *a);
/* Zero-copy slice [off, off+len) sharing buffers (refcount 1, a keeps its
 * reference); null_count is recomputed and validity dropped when the slice
 * has no NULLs. NULL on OOM or if the range is outside [0, a->length]. */
lm_array *lm_array_slice(lm_array *a, int64_t off, int64_t len);
/* An array of `length` NULLs of type t (refcount 1): a zeroed validity
 * bitmap, zeroed values (UTF8: length+1 zero offsets and an empty data
 * buffer); type NULL has only the validity bitmap. NULL on OOM. */
lm_array *lm_array_new_null(lm_type t, int64_t length);
/* For nested types the layout is complete: LIST offsets all 0 over an
 * empty child; STRUCT children all-NULL arrays of `length`; DICTIONARY
 * zero indices over an empty dictionary. */

/* A new array (refcount 1) of type t over the given buffers and children,
 * whose references are taken (also on failure); children is copied.
 * null_count must be exact. No validation (see lm_array_validate). NULL
 * on OOM. */
lm_array *lm_array_new(lm_type t, int64_t length, int64_t null_count,
                       int64_t offset, lm_buffer *validity, lm_buffer *values,
                       lm_buffer *data, int n_children, lm_array **children,
                       lm_array *dictionary);

/* Checks that a (possibly from untrusted input) is internally consistent
 * before anything reads it: a valid type; length, offset >= 0; every
 * buffer at least as large as offset + length needs (validity bits,
 * values of lm_type_width or bits, offsets); null_count equal to the
 * bitmap's; offsets monotonic and within the data (or the child's
 * length); UTF-8 valid for UTF8/LARGE_UTF8; LIST child and STRUCT
 * children long enough and of the node's types (recursively, nesting at
 * most max_depth levels); DICTIONARY indices (non-NULL rows) within the
 * dictionary. Returns 0 or LM_ERR_INVALID with a message naming the path
 * ("item", "field 'x'", "dictionary") and the row or byte at fault. */
int lm_array_validate(const lm_array *a, int max_depth, lm_error *err);

/* DICTIONARY: a new plain array of the value type (refcount 1) with row i
 * = dictionary row index[i] (NULL where the index is NULL). Indices must be
 * validated. Other types: a new reference to a. NULL on OOM. */
lm_array *lm_array_dictionary_decode(const lm_array *a);
/* Gathers rows idx[0..n) of a into a new array (refcount 1) of a's type;
 * idx[i] < 0 gives a NULL row. Every type: LIST rebuilds offsets and
 * gathers the items; STRUCT gathers each child; DICTIONARY gathers the
 * indices and shares the dictionary. Indices must be < a->length. NULL on
 * OOM (or LIST items beyond 2^31 - 1). */
lm_array *lm_array_take_nullable(const lm_array *a, const int32_t *idx,
                                 int64_t n);
/* Concatenates n >= 1 arrays of one type (lm_type_eq) into a new array
 * (refcount 1; n == 1 returns a new reference). DICTIONARY arrays with
 * different dictionaries get one dictionary (the distinct dictionaries
 * concatenated) and rebased indices. Errors: LM_ERR_INVALID (types
 * differ), LM_ERR_LIMIT (offsets or the index type overflow),
 * LM_ERR_NOMEM; NULL is returned with *err filled. */
lm_array *lm_array_concat(lm_array *const *arrs, int n, lm_error *err);
/* a with every DICTIONARY (at any depth) replaced by plain values of the
 * value type: a new reference (a itself when it holds none). NULL on OOM.
 */
lm_array *lm_array_undictionary(const lm_array *a);
/* IEEE binary16 bits <-> double (round to nearest even). */
double lm_half_to_double(uint16_t h);
uint16_t lm_double_to_half(double d);
/* DICTIONARY: the index of row i (0 <= i < length), widened. */
int64_t lm_array_dict_index(const lm_array *a, int64_t i);
/* LIST/LARGE_LIST: row i's items are children[0] rows [*start, *end). */
void lm_array_list_range(const lm_array *a, int64_t i, int64_t *start,
                         int64_t *end);
/* Varbinary (UTF8, LARGE_UTF8, BINARY, LARGE_BINARY) value i; for
 * FIXED_SIZE_BINARY its bytes. *len in bytes. */
const uint8_t *lm_array_bytes(const lm_array *a, int64_t i, int64_t *len);
/* True when rows i and j of one array (0 <= i, j < length) hold the same
 * value: both NULL, or the same bytes (floats by bit pattern, so NaN equals
 * NaN and 0.0 differs from -0.0; DECIMAL128 by scaled integer, the scale
 * being the array's), items compared recursively for LIST/LARGE_LIST and
 * STRUCT, DICTIONARY by decoded value. Never fails. */
bool lm_array_row_equal(const lm_array *a, int64_t i, int64_t j);
/* Order of row x of a against row y of b, both non-NULL and of the same
 * type id: -1, 0 or 1, in PostgreSQL's order: numbers by value (UINT64
 * unsigned; floats with NaN above every number and -0 equal to 0; DECIMAL128
 * exactly, at the larger of the two scales), UTF8/BINARY (and LARGE_, and
 * FIXED_SIZE_BINARY) bytewise then shorter first (a CHAR(n) value, when
 * either array is CHAR, without its trailing spaces: PostgreSQL's bpchar),
 * BOOL false < true, INTERVAL_MDN by its span (a month 30 days, a day 24
 * hours), DICTIONARY by decoded value, other types by lm_array_get_i64. The
 * one cell comparator of sort, Top-N and window functions. Never fails. */
int lm_array_cmp(const lm_array *a, int64_t x, const lm_array *b, int64_t y);

static inline bool lm_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void lm_bit_set(uint8_t *bits, int64_t i) {
  bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline void lm_bit_clear(uint8_t *bits, int64_t i) {
  bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Number of set bits in bits[off, off+len) (bit positions, LSB-first). */
int64_t lm_bitmap_count_set(const uint8_t *bits, int64_t off, int64_t len);

static inline bool lm_array_is_null(const lm_array *a, int64_t i) {
  return a->validity && !lm_bit_get(a->validity->data, a->offset + i);
}
/* Typed value pointers, already adjusted for a->offset. */
static inline const int64_t *lm_array_i64(const lm_array *a) {
  return (const int64_t *)a->values->data + a->offset;
}
static inline const int32_t *lm_array_i32(const lm_array *a) {
  return (const int32_t *)a->values->data + a->offset;
}
static inline const int16_t *lm_array_i16(const lm_array *a) {
  return (const int16_t *)a->values->data + a->offset;
}
static inline const int8_t *lm_array_i8(const lm_array *a) {
  return (const int8_t *)a->values->data + a->offset;
}
static inline const double *lm_array_f64(const lm_array *a) {
  return (const double *)a->values->data + a->offset;
}
static inline const float *lm_array_f32(const lm_array *a) {
  return (const float *)a->values->data + a->offset;
}
static inline bool lm_array_bool(const lm_array *a, int64_t i) {
  return lm_bit_get(a->values->data, a->offset + i);
}
/* UTF8 value i: pointer to bytes (not NUL-terminated) and length. */
static inline const char *lm_array_str(const lm_array *a, int64_t i,
                                       int32_t *len) {
  const int32_t *off = (const int32_t *)a->values->data + a->offset;
  *len = off[i + 1] - off[i];
  return (const char *)a->data->data + off[i];
}
/* Any integer-like (INT8..INT64, TIMESTAMP, INTERVAL) or BOOL value widened
 * to int64. */
int64_t lm_array_get_i64(const lm_array *a, int64_t i);
/* Any numeric value as double. */
double lm_array_get_f64(const lm_array *a, int64_t i);

/* --------------------------------------------------------------- scalars */

/* One SQL value: literals, group keys, results of ad-hoc queries. For UTF8,
 * `s.p` points into storage owned by whoever produced the value. */
typedef struct lm_value {
  lm_type type;
  bool is_null;
  union {
    bool b;
    /* all integer types (UINT64 as its bit pattern), TIMESTAMP, INTERVAL
     * (µs), DATE32, TIME32/64, DURATION (in the type's unit) */
    int64_t i;
    double f; /* FLOAT16/FLOAT32/FLOAT64 */
    struct {
      const char *p;
      int32_t len;
    } s; /* UTF8, LARGE_UTF8, BINARY, LARGE_BINARY, FIXED_SIZE_BINARY */
    struct {
      uint64_t lo;
      int64_t hi;
    } d128; /* DECIMAL128 (two's complement) */
    struct {
      int32_t months, days;
      int64_t ns;
    } mdn; /* INTERVAL_MDN */
    struct {
      const lm_array *a;
      int64_t i;
    } ref; /* LIST, LARGE_LIST, STRUCT: row i of a (borrowed) */
  } v;
} lm_value;

/* Reads row i of a into *out (strings point into the array's buffer).
 * DICTIONARY rows are read as the dictionary's value (out->type is the
 * value type). */
void lm_array_get_value(const lm_array *a, int64_t i, lm_value *out);

/* --------------------------------------------------------------- builders */

/* Appends values of one type, then finish() produces an immutable array.
 * Appends never fail except on OOM, which sets b->oom; finish reports it. */
typedef struct lm_builder {
  lm_type type;
  int64_t length;
  int64_t null_count;
  int64_t capacity;  /* rows the validity/values buffers can hold */
  uint8_t *validity; /* allocated lazily on first NULL */
  uint8_t *values;
  uint8_t *data; /* utf8 bytes */
  int64_t data_len, data_cap;
  /* after finish: the capacity (rows, bytes) the next growth takes at
   * least, so a reused builder allocates once, on its first append */
  int64_t keep_rows, keep_data;
  bool oom;
  /* LIST (a SQL array of a flat item type): values holds the int32
   * offsets into the items, appended to `child` (malloc'd on the first
   * append; NULL before) */
  struct lm_builder *child;
} lm_builder;

int lm_builder_init(lm_builder *b, lm_type type, int64_t capacity_hint);
void lm_builder_free(lm_builder *b);
/* Slow path: make room for `extra` more rows. */
int lm_builder_grow(lm_builder *b, int64_t extra);
int lm_builder_grow_data(lm_builder *b, int64_t extra_bytes);
/* Makes sure a validity bitmap exists (all previous rows valid). */
int lm_builder_ensure_validity(lm_builder *b);

void lm_builder_append_null(lm_builder *b);
void lm_builder_append_bool(lm_builder *b, bool v);
/* Integer-like types (INT8..INT64, TIMESTAMP, INTERVAL): v is narrowed to
 * the builder's width (callers range-check first). */
void lm_builder_append_int(lm_builder *b, int64_t v);
void lm_builder_append_double(lm_builder *b, double v); /* FLOAT32/64 */
void lm_builder_append_str(lm_builder *b, const char *p, int32_t len);
/* Appends an lm_value, converting between compatible numeric types. */
void lm_builder_append_value(lm_builder *b, const lm_value *v);
/* Takes back the rows from len on (len <= length; a larger len does
 * nothing): the builder is as it was after its first len appends. For a
 * reader dropping a record it has partly appended. */
void lm_builder_truncate(lm_builder *b, int64_t len);

/* Appends row i of array a (same type). */
void lm_builder_append_from(lm_builder *b, const lm_array *a, int64_t i);
/* A LIST builder's next row, item by item: lm_builder_list_items gives
 * the builder of the items (NULL on OOM, b->oom set) to append this row's
 * items to, then lm_builder_list_end closes the row (non-NULL). */
lm_builder *lm_builder_list_items(lm_builder *b);
void lm_builder_list_end(lm_builder *b);

/* Fast inline path for 8-byte values (INT64, TIMESTAMP, FLOAT64). */
static inline void lm_builder_append_i64_fast(lm_builder *b, int64_t v) {
  if (b->length == b->capacity && lm_builder_grow(b, 1) != 0)
    return;
  ((int64_t *)b->values)[b->length] = v;
  if (b->validity)
    lm_bit_set(b->validity, b->length);
  b->length++;
}

/* Fast inline path for FLOAT64 builders. */
static inline void lm_builder_append_f64_fast(lm_builder *b, double v) {
  if (b->length == b->capacity && lm_builder_grow(b, 1) != 0)
    return;
  ((double *)b->values)[b->length] = v;
  if (b->validity)
    lm_bit_set(b->validity, b->length);
  b->length++;
}
/* Fast inline path for UTF8 builders: copies len bytes from p. */
static inline void lm_builder_append_str_fast(lm_builder *b, const char *p,
                                              int32_t len) {
  if (b->length == b->capacity && lm_builder_grow(b, 1) != 0)
    return;
  if (b->data_cap - b->data_len < len && lm_builder_grow_data(b, len) != 0)
    return;
  if (len > 0)
    __builtin_memcpy(b->data + b->data_len, p, (size_t)len);
  b->data_len += len;
  ((int32_t *)b->values)[b->length + 1] = (int32_t)b->data_len;
  if (b->validity)
    lm_bit_set(b->validity, b->length);
  b->length++;
}

/* Moves the built values into a new array (*out, refcount 1) and resets
 * the builder to empty (same type) for reuse. LM_ERR_NOMEM on failure. */
int lm_builder_finish(lm_builder *b, lm_array **out);

/* ---------------------------------------------------------------- batches */

/* A record batch: a schema and one array per field, all of num_rows rows. */
typedef struct lm_batch {
  int refcnt;
  lm_schema *schema; /* one reference owned */
  int64_t num_rows;
  int num_columns;
  lm_array **columns; /* each: one reference owned; the pointer array is
                       * part of the batch's allocation (never freed or
                       * replaced on its own) */
} lm_batch;

/* Takes ownership of the schema reference and of each column reference
 * (columns array itself is copied). NULL on OOM (references still taken). */
lm_batch *lm_batch_new(lm_schema *schema, int64_t num_rows, lm_array **columns);
lm_batch *lm_batch_retain(lm_batch *b);
void lm_batch_release(lm_batch *b);
/* Zero-copy slice of all columns. */
lm_batch *lm_batch_slice(lm_batch *b, int64_t off, int64_t len);
/* A new batch with b's columns (shared, no copy) whose first n columns
 * (0 <= n <= b's column count) are named names[0..n); the rest keep their
 * names; types, nullability and time zones are kept. b is not released.
 * NULL on OOM. */
lm_batch *lm_batch_rename(const lm_batch *b, const char *const *names, int n);

/* A set of builders, one per schema field, for producing batches row-wise
 * or column-wise (readers, operators). */
typedef struct lm_batch_builder {
  lm_schema *schema; /* one reference owned */
  lm_builder *cols;
} lm_batch_builder;

/* Retains `schema` (the caller keeps its own reference). LM_ERR_NOMEM on
 * failure (bb is then left freed). */
int lm_batch_builder_init(lm_batch_builder *bb, lm_schema *schema,
                          int64_t capacity_hint);
static inline int64_t lm_batch_builder_rows(const lm_batch_builder *bb) {
  return bb->schema->n_fields ? bb->cols[0].length : 0;
}
/* Finishes every column into a new batch (refcount 1) and resets the
 * builders. Returns LM_ERR_NOMEM if any append ran out of memory and
 * LM_ERR_INVALID if the columns have different lengths; on error *out is
 * NULL and the rows appended so far are discarded (builders reset). */
int lm_batch_builder_finish(lm_batch_builder *bb, lm_batch **out,
                            lm_error *err);
void lm_batch_builder_free(lm_batch_builder *bb);

/* ------------------------------------------------------------- text form */

/* Appends the text form of v to out: integers in decimal; FLOAT64 in the
 * shortest round-trip form (first of %.15g/%.16g/%.17g that parses back
 * exactly; FLOAT32 likewise with %.6g..%.9g), "NaN", "Infinity",
 * "-Infinity"; BOOLEAN true/false; TIMESTAMP as lm_format_timestamp with 'T'
 * (converted to µs from the type's unit); INTERVAL as "[N day(s)]
 * [-]HH:MM:SS[.ffffff]" (PostgreSQL style, e.g. "1 day 02:00:00",
 * "00:00:05"); UTF8 raw bytes; a NULL value as `null_text` (NULL pointer =
 * nothing). Returns LM_ERR_NOMEM if out cannot grow. */
int lm_value_format(lm_buf *out, const lm_value *v, const char *null_text);
/* Same for row i (0 <= i < a->length) of an array. The Arrow types:
 * unsigned integers in decimal; FLOAT16 as the shortest decimal that reads
 * back as the same half; DECIMAL128 exactly ("123.45", "-0.05"); DATE32
 * "YYYY-MM-DD"; TIME32/TIME64 "HH:MM:SS[.ffffff]" (9 digits when a TIME64
 * ns value is not a whole µs); DURATION like INTERVAL in its unit;
 * INTERVAL_MDN PostgreSQL style ("1 year 2 mons 3 days 04:05:06.5");
 * LARGE_UTF8 raw; BINARY, LARGE_BINARY, FIXED_SIZE_BINARY as bytea hex
 * ("\x0102"); DICTIONARY as its decoded value; LIST as PostgreSQL's
 * array text ("{1,2,NULL}", lm_array_text.h); STRUCT as its JSON text
 * (lm_array_format_json: {"a": 1, "b": "x"}). */
int lm_array_format_value(lm_buf *out, const lm_array *a, int64_t i,
                          const char *null_text);
/* Appends row i of a as a JSON value: null; true/false; integers and
 * decimals as numbers (exact); finite floats as numbers, NaN / Infinity /
 * -Infinity as those strings (PostgreSQL's to_json); LIST as an array, STRUCT
 * as an object (field names in order); DICTIONARY as its decoded value; every
 * other type as a JSON string of its lm_array_format_value text. LM_ERR_NOMEM.
 */
int lm_array_format_json(lm_buf *out, const lm_array *a, int64_t i);

#endif
