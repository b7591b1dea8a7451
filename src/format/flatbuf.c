/*
 * format/flatbuf.c — see flatbuf.h.
 */
#include "format/flatbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- builder */

void lm_fb_builder_init(lm_fb_builder *b) {
  memset(b, 0, sizeof *b);
  b->minalign = 1;
}

void lm_fb_builder_free(lm_fb_builder *b) {
  free(b->buf);
  memset(b, 0, sizeof *b);
}

/* Makes room for `n` more bytes at the front. */
static bool fb_reserve(lm_fb_builder *b, size_t n) {
  if (b->oom)
    return false;
  if (b->cap - b->size >= n)
    return true;
  size_t ncap = b->cap ? b->cap * 2 : 256;
  while (ncap - b->size < n)
    ncap *= 2;
  uint8_t *nb = malloc(ncap);
  if (!nb) {
    b->oom = true;
    return false;
  }
  if (b->size)
    memcpy(nb + ncap - b->size, b->buf + b->cap - b->size, b->size);
  free(b->buf);
  b->buf = nb;
  b->cap = ncap;
  return true;
}

static void fb_push(lm_fb_builder *b, const void *p, size_t n) {
  if (n == 0 || !fb_reserve(b, n))
    return;
  b->size += n;
  if (p)
    memcpy(b->buf + b->cap - b->size, p, n);
  else
    memset(b->buf + b->cap - b->size, 0, n);
}

/* Pads so that after writing `extra` bytes the size is a multiple of
 * `align` (a power of two). */
static void fb_prep(lm_fb_builder *b, size_t align, size_t extra) {
  if (align > b->minalign)
    b->minalign = align;
  size_t pad = (~(b->size + extra) + 1) & (align - 1);
  fb_push(b, NULL, pad);
}

static void fb_push_u32(lm_fb_builder *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                  (uint8_t)(v >> 24)};
  fb_push(b, x, 4);
}

lm_fb_ref lm_fb_create_string(lm_fb_builder *b, const char *s, size_t len) {
  fb_prep(b, 4, len + 1);
  fb_push(b, NULL, 1);
  fb_push(b, s, len);
  fb_push_u32(b, (uint32_t)len);
  return (lm_fb_ref)b->size;
}

lm_fb_ref lm_fb_create_vector(lm_fb_builder *b, const void *elems, size_t n,
                              size_t elem_size, size_t align) {
  fb_prep(b, align > 4 ? align : 4, n * elem_size);
  /* the element block must itself start aligned: pad after the prefix */
  fb_prep(b, align, n * elem_size);
  fb_push(b, elems, n * elem_size);
  fb_prep(b, 4, 4);
  fb_push_u32(b, (uint32_t)n);
  return (lm_fb_ref)b->size;
}

lm_fb_ref lm_fb_create_ref_vector(lm_fb_builder *b, const lm_fb_ref *refs,
                                  size_t n) {
  fb_prep(b, 4, 4 * n);
  for (size_t i = n; i-- > 0;)
    fb_push_u32(b, (uint32_t)(b->size + 4 - refs[i]));
  fb_push_u32(b, (uint32_t)n);
  return (lm_fb_ref)b->size;
}

void lm_fb_table_start(lm_fb_builder *b) {
  b->in_table = true;
  b->table_start = b->size;
  b->n_slots = 0;
  memset(b->field_pos, 0, sizeof b->field_pos);
}

void lm_fb_add_inline(lm_fb_builder *b, int id, const void *v, size_t size,
                      size_t align) {
  if (id < 0 || id >= LM_FB_MAX_FIELDS)
    return;
  fb_prep(b, align, size);
  fb_push(b, v, size);
  b->field_pos[id] = (uint32_t)b->size;
  if (id + 1 > b->n_slots)
    b->n_slots = id + 1;
}

void lm_fb_add_i64(lm_fb_builder *b, int id, int64_t v) {
  uint8_t x[8];
  for (int i = 0; i < 8; i++)
    x[i] = (uint8_t)((uint64_t)v >> (8 * i));
  lm_fb_add_inline(b, id, x, 8, 8);
}
void lm_fb_add_i32(lm_fb_builder *b, int id, int32_t v) {
  uint8_t x[4];
  for (int i = 0; i < 4; i++)
    x[i] = (uint8_t)((uint32_t)v >> (8 * i));
  lm_fb_add_inline(b, id, x, 4, 4);
}
void lm_fb_add_i16(lm_fb_builder *b, int id, int16_t v) {
  uint8_t x[2] = {(uint8_t)v, (uint8_t)((uint16_t)v >> 8)};
  lm_fb_add_inline(b, id, x, 2, 2);
}
void lm_fb_add_u8(lm_fb_builder *b, int id, uint8_t v) {
  lm_fb_add_inline(b, id, &v, 1, 1);
}

void lm_fb_add_ref(lm_fb_builder *b, int id, lm_fb_ref r) {
  if (id < 0 || id >= LM_FB_MAX_FIELDS)
    return;
  fb_prep(b, 4, 4);
  fb_push_u32(b, (uint32_t)(b->size + 4 - r));
  b->field_pos[id] = (uint32_t)b->size;
  if (id + 1 > b->n_slots)
    b->n_slots = id + 1;
}

lm_fb_ref lm_fb_table_end(lm_fb_builder *b) {
  fb_prep(b, 4, 4);
  fb_push(b, NULL, 4); /* soffset, patched below */
  size_t obj = b->size;
  size_t tbl_len = obj - b->table_start;
  size_t vt_len = 4 + 2 * (size_t)b->n_slots;
  uint8_t vt[4 + 2 * LM_FB_MAX_FIELDS];
  vt[0] = (uint8_t)vt_len;
  vt[1] = (uint8_t)(vt_len >> 8);
  vt[2] = (uint8_t)tbl_len;
  vt[3] = (uint8_t)(tbl_len >> 8);
  for (int i = 0; i < b->n_slots; i++) {
    uint32_t off = b->field_pos[i] ? (uint32_t)(obj - b->field_pos[i]) : 0;
    vt[4 + 2 * i] = (uint8_t)off;
    vt[5 + 2 * i] = (uint8_t)(off >> 8);
  }
  fb_push(b, vt, vt_len); /* vt_len is even; size stays 2-aligned */
  if (b->oom)
    return 0;
  /* soffset = table position - vtable position = vt_off - obj (> 0) */
  int32_t so = (int32_t)(b->size - obj);
  uint8_t *at = b->buf + b->cap - obj;
  for (int i = 0; i < 4; i++)
    at[i] = (uint8_t)((uint32_t)so >> (8 * i));
  b->in_table = false;
  return (lm_fb_ref)obj;
}

int lm_fb_finish(lm_fb_builder *b, lm_fb_ref root, const uint8_t **data,
                 size_t *len) {
  size_t align = b->minalign < 8 ? 8 : b->minalign;
  fb_prep(b, align, 4);
  fb_push_u32(b, (uint32_t)(b->size + 4 - root));
  if (b->oom)
    return LM_ERR_NOMEM;
  *data = b->buf + b->cap - b->size;
  *len = b->size;
  return 0;
}

/* ----------------------------------------------------------------- reader */

int lm_fb_error(const lm_fb_reader *r, size_t at, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return lm_err(r->err, LM_ERR_PARSE, "%s: byte %zu: %s",
                r->source ? r->source : "<input>", r->base + at, text);
}

static int table_at(const lm_fb_reader *r, size_t pos, lm_fb_table *out) {
  if (pos > r->len || r->len - pos < 4)
    return lm_fb_error(r, pos,
                       "flatbuffer table at %zu is out of bounds "
                       "(buffer %zu bytes)",
                       pos, r->len);
  int32_t so = (int32_t)lm_fb_u32(r->p + pos);
  int64_t vt = (int64_t)pos - (int64_t)so;
  if (vt < 0 || (uint64_t)vt > r->len || r->len - (size_t)vt < 4)
    return lm_fb_error(r, pos,
                       "flatbuffer vtable of table at %zu is out of "
                       "bounds (vtable at %lld)",
                       pos, (long long)vt);
  uint16_t vt_len = lm_fb_u16(r->p + vt);
  uint16_t tbl_len = lm_fb_u16(r->p + vt + 2);
  if (vt_len < 4 || (vt_len & 1) || r->len - (size_t)vt < vt_len)
    return lm_fb_error(r, (size_t)vt, "bad flatbuffer vtable (%u bytes)",
                       vt_len);
  if (tbl_len < 4 || r->len - pos < tbl_len)
    return lm_fb_error(r, pos,
                       "flatbuffer table of %u bytes extends past "
                       "the buffer",
                       tbl_len);
  out->r = r;
  out->pos = (uint32_t)pos;
  out->vt = (uint32_t)vt;
  out->vt_len = vt_len;
  out->tbl_len = tbl_len;
  return 0;
}

int lm_fb_root(const lm_fb_reader *r, lm_fb_table *out) {
  if (r->len < 8 || r->len > UINT32_MAX)
    return lm_fb_error(r, 0, "flatbuffer of %zu bytes is too %s", r->len,
                       r->len < 8 ? "short" : "long");
  uint32_t root = lm_fb_u32(r->p);
  if (root < 4 || root > r->len - 4) /* named at the offset's own place */
    return lm_fb_error(r, 0, "bad flatbuffer root offset %u (buffer %zu bytes)",
                       root, r->len);
  return table_at(r, root, out);
}

int lm_fb_field(const lm_fb_table *t, int id, size_t size, uint32_t *at) {
  size_t slot = 4 + 2 * (size_t)id;
  *at = 0;
  if (slot + 2 > t->vt_len)
    return 0;
  uint16_t off = lm_fb_u16(t->r->p + t->vt + slot);
  if (off == 0)
    return 0;
  if (off < 4 || (size_t)off + size > t->tbl_len)
    return lm_fb_error(t->r, t->vt + slot,
                       "flatbuffer field %d (offset %u, %zu bytes) lies "
                       "outside its table of %u bytes",
                       id, off, size, t->tbl_len);
  *at = t->pos + off;
  return 0;
}

int lm_fb_get_i64(const lm_fb_table *t, int id, int64_t def, int64_t *out) {
  uint32_t at;
  int rc = lm_fb_field(t, id, 8, &at);
  if (rc)
    return rc;
  *out = at ? lm_fb_i64(t->r->p + at) : def;
  return 0;
}
int lm_fb_get_i32(const lm_fb_table *t, int id, int32_t def, int32_t *out) {
  uint32_t at;
  int rc = lm_fb_field(t, id, 4, &at);
  if (rc)
    return rc;
  *out = at ? (int32_t)lm_fb_u32(t->r->p + at) : def;
  return 0;
}
int lm_fb_get_i16(const lm_fb_table *t, int id, int16_t def, int16_t *out) {
  uint32_t at;
  int rc = lm_fb_field(t, id, 2, &at);
  if (rc)
    return rc;
  *out = at ? (int16_t)lm_fb_u16(t->r->p + at) : def;
  return 0;
}
int lm_fb_get_u8(const lm_fb_table *t, int id, uint8_t def, uint8_t *out) {
  uint32_t at;
  int rc = lm_fb_field(t, id, 1, &at);
  if (rc)
    return rc;
  *out = at ? t->r->p[at] : def;
  return 0;
}

/* Follows the uoffset stored at `at` (in bounds, 4 bytes); the target must
 * lie strictly after `at` and inside the buffer with room for 4 bytes. */
static int follow(const lm_fb_reader *r, uint32_t at, size_t *target) {
  uint32_t off = lm_fb_u32(r->p + at);
  uint64_t t = (uint64_t)at + off;
  if (off == 0 || t + 4 > r->len)
    return lm_fb_error(r, at,
                       "flatbuffer reference %u at %u points outside "
                       "the buffer of %zu bytes",
                       off, at, r->len);
  *target = (size_t)t;
  return 0;
}

int lm_fb_get_table(const lm_fb_table *t, int id, lm_fb_table *out,
                    bool *present) {
  uint32_t at;
  size_t target = 0; /* set by follow */
  *present = false;
  int rc = lm_fb_field(t, id, 4, &at);
  if (rc || !at)
    return rc;
  if ((rc = follow(t->r, at, &target)) != 0)
    return rc;
  *present = true;
  return table_at(t->r, target, out);
}

static int vector_at(const lm_fb_reader *r, uint32_t at, uint32_t elem_size,
                     lm_fb_vec *out) {
  size_t target = 0; /* set by follow (gcc -O3 cannot see it) */
  int rc = follow(r, at, &target);
  if (rc)
    return rc;
  uint32_t n = lm_fb_u32(r->p + target);
  uint64_t bytes = (uint64_t)n * elem_size;
  if (bytes > r->len - target - 4)
    return lm_fb_error(r, target,
                       "flatbuffer vector of %u elements of %u bytes extends "
                       "past the buffer of %zu bytes",
                       n, elem_size, r->len);
  out->r = r;
  out->pos = (uint32_t)(target + 4);
  out->n = n;
  out->elem_size = elem_size;
  return 0;
}

int lm_fb_get_string(const lm_fb_table *t, int id, const char **s,
                     uint32_t *n) {
  uint32_t at;
  lm_fb_vec v;
  *s = NULL;
  *n = 0;
  int rc = lm_fb_field(t, id, 4, &at);
  if (rc || !at)
    return rc;
  if ((rc = vector_at(t->r, at, 1, &v)) != 0)
    return rc;
  *s = (const char *)t->r->p + v.pos;
  *n = v.n;
  return 0;
}

int lm_fb_get_vector(const lm_fb_table *t, int id, uint32_t elem_size,
                     lm_fb_vec *out) {
  uint32_t at;
  out->r = t->r;
  out->pos = 0;
  out->n = 0;
  out->elem_size = elem_size;
  int rc = lm_fb_field(t, id, 4, &at);
  if (rc || !at)
    return rc;
  return vector_at(t->r, at, elem_size, out);
}

int lm_fb_vec_table(const lm_fb_vec *v, uint32_t i, lm_fb_table *out) {
  size_t target = 0; /* set by follow */
  if (i >= v->n || v->elem_size != 4)
    return lm_fb_error(v->r, v->pos,
                       "flatbuffer vector index %u out of "
                       "range",
                       i);
  int rc = follow(v->r, v->pos + 4 * i, &target);
  if (rc)
    return rc;
  return table_at(v->r, target, out);
}

int lm_fb_vec_string(const lm_fb_vec *v, uint32_t i, const char **s,
                     uint32_t *n) {
  lm_fb_vec sv;
  if (i >= v->n || v->elem_size != 4)
    return lm_fb_error(v->r, v->pos,
                       "flatbuffer vector index %u out of "
                       "range",
                       i);
  int rc = vector_at(v->r, v->pos + 4 * i, 1, &sv);
  if (rc)
    return rc;
  *s = (const char *)v->r->p + sv.pos;
  *n = sv.n;
  return 0;
}
