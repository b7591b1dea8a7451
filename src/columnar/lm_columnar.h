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
  LM_TYPE_INTERVAL,  /* SQL-side only for now: an int64 count of µs */
  LM_TYPE__COUNT
} lm_type_id;

typedef enum lm_time_unit {
  LM_UNIT_SECOND = 0,
  LM_UNIT_MILLI = 1,
  LM_UNIT_MICRO = 2,
  LM_UNIT_NANO = 3,
} lm_time_unit;

/* A data type is a small value: id plus parameters (unit for timestamps;
 * precision/scale reserved for DECIMAL). Compare with lm_type_eq. */
typedef struct lm_type {
  lm_type_id id;
  uint8_t unit; /* lm_time_unit, for TIMESTAMP */
  uint8_t precision, scale;
} lm_type;

static inline lm_type lm_type_make(lm_type_id id) {
  lm_type t = {id, id == LM_TYPE_TIMESTAMP ? LM_UNIT_MICRO : 0, 0, 0};
  return t;
}
static inline bool lm_type_eq(lm_type a, lm_type b) {
  return a.id == b.id && a.unit == b.unit && a.precision == b.precision &&
         a.scale == b.scale;
}
/* Byte width of one value for fixed-width types; 0 for BOOL (bit-packed),
 * UTF8 and NULL. */
int lm_type_width(lm_type t);
bool lm_type_is_integer(lm_type t);
bool lm_type_is_numeric(lm_type t); /* integers and floats */
/* SQL name: "BIGINT", "VARCHAR", "TIMESTAMP", ... (static string). */
const char *lm_type_name(lm_type t);

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

typedef struct lm_schema {
  int refcnt;
  int n_fields;
  lm_field *fields; /* owned array of n_fields */
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
lm_schema *lm_schema_retain(lm_schema *s);
void lm_schema_release(lm_schema *s);
/* Case-insensitive lookup; returns index or -1. */
int lm_schema_find(const lm_schema *s, const char *name);

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

typedef struct lm_array {
  int refcnt;
  lm_type type;
  int64_t length;      /* rows */
  int64_t null_count;  /* exact; 0 when validity == NULL */
  int64_t offset;      /* logical start, in rows, into the buffers (slices) */
  lm_buffer *validity; /* bitmap or NULL (all valid) */
  lm_buffer *values;   /* fixed-width values / bool bits / utf8 int32 offsets */
  lm_buffer *data;     /* utf8 bytes; NULL otherwise */
} lm_array;

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
    int64_t i; /* all integer types, TIMESTAMP (µs), INTERVAL (µs) */
    double f;  /* FLOAT32/FLOAT64 */
    struct {
      const char *p;
      int32_t len;
    } s;
  } v;
} lm_value;

/* Reads row i of a into *out (strings point into the array's buffer). */
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
  bool oom;
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
/* Appends row i of array a (same type). */
void lm_builder_append_from(lm_builder *b, const lm_array *a, int64_t i);

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
  lm_array **columns; /* each: one reference owned */
} lm_batch;

/* Takes ownership of the schema reference and of each column reference
 * (columns array itself is copied). NULL on OOM (references still taken). */
lm_batch *lm_batch_new(lm_schema *schema, int64_t num_rows, lm_array **columns);
lm_batch *lm_batch_retain(lm_batch *b);
void lm_batch_release(lm_batch *b);
/* Zero-copy slice of all columns. */
lm_batch *lm_batch_slice(lm_batch *b, int64_t off, int64_t len);

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
/* Same for row i (0 <= i < a->length) of an array. */
int lm_array_format_value(lm_buf *out, const lm_array *a, int64_t i,
                          const char *null_text);

#endif
