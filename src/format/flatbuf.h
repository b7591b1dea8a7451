/*
 * format/flatbuf.h — a minimal FlatBuffers builder and a verifying reader,
 * enough for Arrow's Schema.fbs, Message.fbs and File.fbs (tables, vtables,
 * inline structs, vectors of scalars/structs/tables, strings and unions).
 * Wire format: https://flatbuffers.dev/internals/ (little-endian; a root
 * uoffset_t; a table starts with an soffset_t to its vtable; a vtable is
 * uint16 {vtable bytes, table bytes, field offsets...}; a reference field is
 * a uoffset_t relative to the field's own position; vectors and strings are
 * a uint32 count followed by the elements, strings NUL-terminated).
 *
 * The reader verifies on access: every table, vtable, field, vector,
 * string and union reference is bounds-checked against the buffer before
 * any byte of it is read, all loads are memcpy-based (no alignment
 * assumptions), and failures are LM_ERR_PARSE errors whose message names
 * the absolute byte offset ("SRC: byte N: flatbuffer: ..."). Callers
 * impose their own recursion limit (the buffer format has no cycles we
 * follow: every reference points forward, see lm_fb_table_at).
 */
#ifndef LM_FLATBUF_H
#define LM_FLATBUF_H

#include "base/lm_base.h"

/* ---------------------------------------------------------------- builder */

/* Builds a buffer back to front, as the reference implementation does:
 * children (strings, vectors, sub-tables) are created first and referenced
 * by lm_fb_ref, the distance from the end of the buffer. */
typedef uint32_t lm_fb_ref;

#define LM_FB_MAX_FIELDS 16

typedef struct lm_fb_builder {
  uint8_t *buf;    /* data lives in buf[cap - size, cap) */
  size_t cap;      /* allocated bytes */
  size_t size;     /* bytes written so far */
  size_t minalign; /* largest alignment requested */
  /* table under construction */
  bool in_table;
  size_t table_start;                   /* size at lm_fb_table_start */
  uint32_t field_pos[LM_FB_MAX_FIELDS]; /* end-relative field position */
  int n_slots;                          /* highest used slot + 1 */
  bool oom;                             /* sticky allocation failure */
} lm_fb_builder;

/* Initializes an empty builder (no allocation yet). */
void lm_fb_builder_init(lm_fb_builder *b);
/* Frees the builder's memory. */
void lm_fb_builder_free(lm_fb_builder *b);

/* Creates a string (uint32 length, bytes, NUL; 4-aligned). */
lm_fb_ref lm_fb_create_string(lm_fb_builder *b, const char *s, size_t len);
/* Creates a vector of `n` inline elements of `elem_size` bytes each
 * (scalars or structs, already little-endian), aligned to `align`. */
lm_fb_ref lm_fb_create_vector(lm_fb_builder *b, const void *elems, size_t n,
                              size_t elem_size, size_t align);
/* Creates a vector of references (tables or strings). */
lm_fb_ref lm_fb_create_ref_vector(lm_fb_builder *b, const lm_fb_ref *refs,
                                  size_t n);

/* Starts a table; then add fields by slot id (0-based, the schema's field
 * order; a union takes two slots: type then value), then end it. Tables do
 * not nest: create children before lm_fb_table_start. */
void lm_fb_table_start(lm_fb_builder *b);
/* Adds an inline scalar or struct of `size` bytes (little-endian) aligned
 * to `align` at slot `id` (< LM_FB_MAX_FIELDS). */
void lm_fb_add_inline(lm_fb_builder *b, int id, const void *v, size_t size,
                      size_t align);
void lm_fb_add_i64(lm_fb_builder *b, int id, int64_t v);
void lm_fb_add_i32(lm_fb_builder *b, int id, int32_t v);
void lm_fb_add_i16(lm_fb_builder *b, int id, int16_t v);
void lm_fb_add_u8(lm_fb_builder *b, int id, uint8_t v);
/* Adds a reference (string, vector or table) at slot `id`. */
void lm_fb_add_ref(lm_fb_builder *b, int id, lm_fb_ref r);
/* Ends the table (writes its vtable just before it); returns its ref. */
lm_fb_ref lm_fb_table_end(lm_fb_builder *b);

/* Writes the root uoffset and pads the total size to a multiple of 8.
 * On success *data and *len describe the finished buffer (owned by b, valid
 * until lm_fb_builder_free). Returns 0 or LM_ERR_NOMEM. */
int lm_fb_finish(lm_fb_builder *b, lm_fb_ref root, const uint8_t **data,
                 size_t *len);

/* ----------------------------------------------------------------- reader */

/* A buffer under verification. `base` is the absolute position of p[0] in
 * the input (for error messages); `source` names the input. */
typedef struct lm_fb_reader {
  const uint8_t *p;
  size_t len;
  size_t base;
  const char *source;
  lm_error *err;
} lm_fb_reader;

/* A verified table: pos is its offset in the buffer; its vtable has been
 * checked to lie inside the buffer, vt_len and tbl_len are the vtable and
 * table sizes (the table's inline bytes [pos, pos + tbl_len) are in
 * bounds). */
typedef struct lm_fb_table {
  const lm_fb_reader *r;
  uint32_t pos;
  uint32_t vt;
  uint16_t vt_len;
  uint16_t tbl_len;
} lm_fb_table;

/* A verified vector: n elements of elem_size bytes starting at pos. */
typedef struct lm_fb_vec {
  const lm_fb_reader *r;
  uint32_t pos; /* first element */
  uint32_t n;
  uint32_t elem_size;
} lm_fb_vec;

/* Reports a flatbuffer error at buffer offset `at`:
 * "SOURCE: byte BASE+AT: <text>". Returns LM_ERR_PARSE. */
int lm_fb_error(const lm_fb_reader *r, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Little-endian loads (memcpy-based, any alignment). The caller guarantees
 * that the bytes are in bounds. */
static inline uint16_t lm_fb_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t lm_fb_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static inline int64_t lm_fb_i64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return (int64_t)v;
}

/* Verifies the root table (uoffset at byte 0). Errors: LM_ERR_PARSE. */
int lm_fb_root(const lm_fb_reader *r, lm_fb_table *out);

/* Absolute offset (in the buffer) of field `id`'s inline bytes, or 0 when
 * the field is absent. Fails (LM_ERR_PARSE) when a present field of `size`
 * bytes would extend past the table. */
int lm_fb_field(const lm_fb_table *t, int id, size_t size, uint32_t *at);

/* Scalars with defaults for absent fields. Errors: LM_ERR_PARSE. */
int lm_fb_get_i64(const lm_fb_table *t, int id, int64_t def, int64_t *out);
int lm_fb_get_i32(const lm_fb_table *t, int id, int32_t def, int32_t *out);
int lm_fb_get_i16(const lm_fb_table *t, int id, int16_t def, int16_t *out);
int lm_fb_get_u8(const lm_fb_table *t, int id, uint8_t def, uint8_t *out);

/* Sub-table at slot id: *present false when absent. */
int lm_fb_get_table(const lm_fb_table *t, int id, lm_fb_table *out,
                    bool *present);
/* String at slot id: *s points into the buffer (not NUL-terminated as far
 * as the caller is concerned), *n bytes; *s NULL when absent. */
int lm_fb_get_string(const lm_fb_table *t, int id, const char **s, uint32_t *n);
/* Vector at slot id with elements of elem_size bytes (4 for references);
 * an absent vector is returned as empty. */
int lm_fb_get_vector(const lm_fb_table *t, int id, uint32_t elem_size,
                     lm_fb_vec *out);
/* Table element i (< v->n) of a vector of tables. */
int lm_fb_vec_table(const lm_fb_vec *v, uint32_t i, lm_fb_table *out);
/* String element i of a vector of strings. */
int lm_fb_vec_string(const lm_fb_vec *v, uint32_t i, const char **s,
                     uint32_t *n);
/* Pointer to inline element i (< v->n) of a vector of scalars/structs. */
static inline const uint8_t *lm_fb_vec_elem(const lm_fb_vec *v, uint32_t i) {
  return v->r->p + v->pos + (size_t)i * v->elem_size;
}

#endif
