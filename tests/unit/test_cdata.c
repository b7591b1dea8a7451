/* Unit tests for columnar/cdata.c (Arrow C Data Interface): export→import
 * round trips of every supported type with NULLs, slices at odd offsets,
 * 0-row and 0-column batches; zero-copy checks (buffer pointers shared);
 * release callbacks counted (exactly once, only after the last reference);
 * children moved out of an exported array; import of hand-built foreign
 * arrays (malloc'd buffers, offsets on parent and child, struct-level
 * NULLs, null_count -1, unaligned buffers, unit conversions); malformed
 * input rejected with "column 'x': ..." and the array still released. */
#include "columnar/lm_cdata.h"
#include "lm_test.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------ helpers */

static bool value_eq(const lm_value *a, const lm_value *b) {
  if (a->is_null != b->is_null)
    return false;
  if (a->is_null)
    return true;
  if (!lm_type_eq(a->type, b->type))
    return false;
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    return a->v.b == b->v.b;
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    return memcmp(&a->v.f, &b->v.f, sizeof a->v.f) == 0;
  case LM_TYPE_UTF8:
    return a->v.s.len == b->v.s.len &&
           (a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
  default:
    return a->v.i == b->v.i;
  }
}

/* Checks lm's array invariants on an imported array. */
static void check_array(const lm_array *a) {
  CHECK(a->refcnt >= 1);
  CHECK(a->offset >= 0);
  if (!a->validity)
    CHECK_EQ_I64(a->null_count, a->type.id == LM_TYPE_NULL ? a->length : 0);
  else
    CHECK_EQ_I64(a->null_count,
                 a->length - lm_bitmap_count_set(a->validity->data, a->offset,
                                                 a->length));
  if (a->type.id != LM_TYPE_NULL)
    CHECK(a->values != NULL);
  if (a->type.id == LM_TYPE_UTF8) {
    CHECK(a->data != NULL);
    const int32_t *off = (const int32_t *)a->values->data + a->offset;
    for (int64_t i = 0; i < a->length; i++)
      CHECK(off[i] <= off[i + 1]);
    CHECK(a->values->size >= (size_t)(a->offset + a->length + 1) * 4);
    if (a->length > 0)
      CHECK((size_t)off[a->length] <= a->data->size);
  }
}

/* Same schema (names, types, nullability) and values. */
static void check_batches_equal(const lm_batch *x, const lm_batch *y) {
  CHECK_EQ_I64(x->num_rows, y->num_rows);
  CHECK_EQ_I64(x->num_columns, y->num_columns);
  if (x->num_rows != y->num_rows || x->num_columns != y->num_columns)
    return;
  for (int c = 0; c < x->num_columns; c++) {
    const lm_field *fx = &x->schema->fields[c], *fy = &y->schema->fields[c];
    CHECK_EQ_STR(fx->name, fy->name);
    CHECK(lm_type_eq(fx->type, fy->type));
    CHECK(fx->nullable == fy->nullable);
    CHECK(lm_type_eq(x->columns[c]->type, y->columns[c]->type));
    check_array(y->columns[c]);
    CHECK_EQ_I64(x->columns[c]->null_count, y->columns[c]->null_count);
    int bad = 0;
    for (int64_t i = 0; i < x->num_rows; i++) {
      lm_value a, b;
      lm_array_get_value(x->columns[c], i, &a);
      lm_array_get_value(y->columns[c], i, &b);
      if (!value_eq(&a, &b) && bad++ < 3)
        fprintf(stderr, "column %s row %lld differs\n", fx->name, (long long)i);
    }
    CHECK_EQ_I64(bad, 0);
  }
}

/* A batch with a column of every type; NULLs in the nullable columns. */
static lm_batch *make_batch(int64_t rows, uint64_t seed) {
  static const struct {
    const char *name;
    lm_type_id id;
    bool nullable;
  } cols[] = {
      {"b", LM_TYPE_BOOL, true},       {"i8", LM_TYPE_INT8, true},
      {"i16", LM_TYPE_INT16, true},    {"i32", LM_TYPE_INT32, true},
      {"id", LM_TYPE_INT64, false},    {"f32", LM_TYPE_FLOAT32, true},
      {"f64", LM_TYPE_FLOAT64, true},  {"s", LM_TYPE_UTF8, true},
      {"ts", LM_TYPE_TIMESTAMP, true}, {"iv", LM_TYPE_INTERVAL, true},
      {"nul", LM_TYPE_NULL, true},     {"name", LM_TYPE_UTF8, false},
  };
  int n = (int)LM_ARRAY_LEN(cols);
  lm_schema *s = lm_schema_new(n);
  for (int i = 0; i < n; i++)
    lm_schema_set_field(s, i, cols[i].name, lm_type_make(cols[i].id),
                        cols[i].nullable);
  lm_batch_builder bb;
  CHECK_EQ_I64(lm_batch_builder_init(&bb, s, 8), LM_OK);
  uint64_t st = seed | 1;
  char text[40];
  for (int64_t r = 0; r < rows; r++) {
    for (int i = 0; i < n; i++) {
      lm_builder *b = &bb.cols[i];
      uint64_t x = lm_test_rand(&st);
      if (cols[i].nullable && x % 5 == 0) {
        lm_builder_append_null(b);
        continue;
      }
      int64_t v = (int64_t)(x >> 8) - (INT64_C(1) << 54);
      switch (cols[i].id) {
      case LM_TYPE_BOOL:
        lm_builder_append_bool(b, (x >> 20) & 1);
        break;
      case LM_TYPE_INT8:
        lm_builder_append_int(b, (int8_t)v);
        break;
      case LM_TYPE_INT16:
        lm_builder_append_int(b, (int16_t)v);
        break;
      case LM_TYPE_INT32:
        lm_builder_append_int(b, (int32_t)v);
        break;
      case LM_TYPE_FLOAT32:
      case LM_TYPE_FLOAT64:
        lm_builder_append_double(b, r == 3 ? NAN : (double)v / 7.0);
        break;
      case LM_TYPE_UTF8: {
        int len = (int)((x >> 12) % 12); /* includes empty strings */
        for (int k = 0; k < len; k++)
          text[k] = (char)('a' + (x >> (k + 20)) % 26);
        lm_builder_append_str(b, text, len);
        break;
      }
      case LM_TYPE_NULL:
        lm_builder_append_null(b);
        break;
      default:
        lm_builder_append_int(b, v);
        break;
      }
    }
  }
  lm_batch *out = NULL;
  CHECK_EQ_I64(lm_batch_builder_finish(&bb, &out, NULL), LM_OK);
  lm_batch_builder_free(&bb);
  lm_schema_release(s);
  return out;
}

/* Counting shim around an exported array's release callback. */
static int shim_calls;
static void (*shim_orig)(struct ArrowArray *);
static void shim_release(struct ArrowArray *a) {
  shim_calls++;
  shim_orig(a);
  CHECK(a->release == NULL);
}

static const char *expected_format(lm_type t) {
  switch (t.id) {
  case LM_TYPE_NULL:
    return "n";
  case LM_TYPE_BOOL:
    return "b";
  case LM_TYPE_INT8:
    return "c";
  case LM_TYPE_INT16:
    return "s";
  case LM_TYPE_INT32:
    return "i";
  case LM_TYPE_INT64:
    return "l";
  case LM_TYPE_FLOAT32:
    return "f";
  case LM_TYPE_FLOAT64:
    return "g";
  case LM_TYPE_UTF8:
    return "u";
  case LM_TYPE_TIMESTAMP:
    return "tsu:";
  case LM_TYPE_INTERVAL:
    return "tDu";
  default:
    return "?";
  }
}

/* Exports b, checks the exported structs, imports them back and compares;
 * also checks that the data was shared both ways and that the exported
 * array is released exactly once, when the imported batch goes. */
static void roundtrip(lm_batch *b) {
  struct ArrowArray arr;
  struct ArrowSchema sch;
  lm_error err = {0};
  CHECK_EQ_I64(lm_cdata_export_batch(b, &arr, &sch, &err), LM_OK);
  CHECK(arr.release && sch.release);
  CHECK_EQ_STR(sch.format, "+s");
  CHECK_EQ_I64(sch.n_children, b->num_columns);
  CHECK_EQ_I64(arr.n_children, b->num_columns);
  CHECK_EQ_I64(arr.length, b->num_rows);
  CHECK_EQ_I64(arr.n_buffers, 1);
  CHECK_EQ_I64(arr.null_count, 0);
  for (int c = 0; c < b->num_columns; c++) {
    const lm_array *a = b->columns[c];
    const lm_field *f = &b->schema->fields[c];
    const struct ArrowSchema *cs = sch.children[c];
    const struct ArrowArray *ca = arr.children[c];
    CHECK_EQ_STR(cs->format, expected_format(a->type));
    CHECK_EQ_STR(cs->name, f->name);
    CHECK_EQ_I64(cs->flags, f->nullable ? ARROW_FLAG_NULLABLE : 0);
    CHECK(cs->release != NULL);
    CHECK(ca->release != NULL);
    CHECK_EQ_I64(ca->length, a->length);
    CHECK_EQ_I64(ca->n_children, 0);
    if (a->type.id == LM_TYPE_NULL) {
      CHECK_EQ_I64(ca->n_buffers, 0);
      CHECK_EQ_I64(ca->null_count, a->length);
      continue;
    }
    CHECK_EQ_I64(ca->offset, a->offset);
    CHECK_EQ_I64(ca->null_count, a->null_count);
    CHECK_EQ_I64(ca->n_buffers, a->type.id == LM_TYPE_UTF8 ? 3 : 2);
    CHECK(ca->buffers[0] == (a->null_count ? a->validity->data : NULL));
    CHECK(ca->buffers[1] == a->values->data); /* zero-copy */
    if (a->type.id == LM_TYPE_UTF8)
      CHECK(ca->buffers[2] == a->data->data);
  }
  shim_calls = 0;
  shim_orig = arr.release;
  arr.release = shim_release;
  lm_batch *in = NULL;
  int rc = lm_cdata_import_batch(&arr, &sch, &in, &err);
  CHECK_EQ_I64(rc, LM_OK);
  if (rc)
    fprintf(stderr, "import: %s\n", err.msg);
  CHECK(arr.release == NULL); /* moved */
  sch.release(&sch);
  CHECK(sch.release == NULL);
  if (!in)
    return;
  check_batches_equal(b, in);
  /* zero-copy on the way back in: the imported buffers are ours */
  for (int c = 0; c < b->num_columns; c++) {
    const lm_array *a = b->columns[c], *x = in->columns[c];
    if (a->type.id == LM_TYPE_NULL || a->length == 0)
      continue;
    int w = lm_type_width(a->type);
    int64_t shift = a->offset - x->offset;
    CHECK(shift % 8 == 0);
    if (a->type.id == LM_TYPE_BOOL)
      CHECK(x->values->data == a->values->data + shift / 8);
    else if (a->type.id == LM_TYPE_UTF8)
      CHECK(x->values->data == a->values->data + shift * 4 &&
            x->data->data == a->data->data);
    else
      CHECK(x->values->data == a->values->data + shift * w);
  }
  /* with rows to share, the import keeps the export alive; with none,
   * nothing was wrapped and it is released at once */
  bool shared = false;
  for (int c = 0; c < b->num_columns; c++)
    shared |= b->num_rows > 0 && b->columns[c]->type.id != LM_TYPE_NULL;
  CHECK_EQ_I64(shim_calls, shared ? 0 : 1);
  lm_batch_release(in);
  CHECK_EQ_I64(shim_calls, 1);
}

/* ------------------------------------------------------------- export */

static void test_roundtrip_all_types(void) {
  int64_t sizes[] = {1, 7, 8, 9, 64, 100, 1000};
  for (size_t k = 0; k < LM_ARRAY_LEN(sizes); k++) {
    lm_batch *b = make_batch(sizes[k], 42 + k);
    if (!b)
      continue;
    roundtrip(b);
    lm_batch_release(b);
  }
}

static void test_roundtrip_slices(void) {
  lm_batch *b = make_batch(200, 7);
  if (!b)
    return;
  int64_t cuts[][2] = {{3, 17},  {1, 199}, {13, 0},  {0, 9},
                       {63, 77}, {199, 1}, {200, 0}, {5, 5}};
  for (size_t k = 0; k < LM_ARRAY_LEN(cuts); k++) {
    lm_batch *s = lm_batch_slice(b, cuts[k][0], cuts[k][1]);
    CHECK(s != NULL);
    if (!s)
      continue;
    roundtrip(s);
    lm_batch_release(s);
  }
  /* slice of a slice, then the source released before the import */
  lm_batch *s1 = lm_batch_slice(b, 11, 150);
  lm_batch *s2 = lm_batch_slice(s1, 7, 101);
  lm_batch_release(s1);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  CHECK_EQ_I64(lm_cdata_export_batch(s2, &arr, &sch, NULL), LM_OK);
  CHECK_EQ_I64(arr.children[3]->offset, 18);
  lm_batch *in = NULL;
  CHECK_EQ_I64(lm_cdata_import_batch(&arr, &sch, &in, NULL), LM_OK);
  sch.release(&sch);
  lm_batch *expect = lm_batch_slice(b, 18, 101);
  lm_batch_release(b);
  lm_batch_release(s2);
  if (in && expect)
    check_batches_equal(expect, in);
  lm_batch_release(expect);
  lm_batch_release(in);
}

/* Sum of the text of every value, for comparing before/after a release. */
static uint64_t batch_digest(const lm_batch *b) {
  lm_buf out;
  lm_buf_init(&out);
  uint64_t h = 0;
  for (int c = 0; c < b->num_columns; c++)
    for (int64_t i = 0; i < b->num_rows; i++) {
      lm_buf_reset(&out);
      lm_array_format_value(&out, b->columns[c], i, "NULL");
      h = lm_hash_combine(h, lm_hash_bytes(out.data, out.len, 1));
    }
  lm_buf_free(&out);
  return h;
}

/* The imported batch outlives the original: the data must stay valid. */
static void test_outlives_original(void) {
  lm_batch *b = make_batch(300, 99);
  lm_batch *s = lm_batch_slice(b, 33, 250);
  lm_batch_release(b);
  uint64_t want = batch_digest(s);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  CHECK_EQ_I64(lm_cdata_export_batch(s, &arr, &sch, NULL), LM_OK);
  lm_batch_release(s);
  lm_batch *in = NULL;
  CHECK_EQ_I64(lm_cdata_import_batch(&arr, &sch, &in, NULL), LM_OK);
  sch.release(&sch);
  if (in) {
    CHECK(batch_digest(in) == want);
    lm_batch_release(in);
  }
}

static void test_zero_rows_and_columns(void) {
  lm_batch *b = make_batch(0, 1);
  if (b) {
    roundtrip(b);
    lm_batch_release(b);
  }
  lm_schema *s = lm_schema_new(0);
  lm_batch *e = lm_batch_new(s, 5, NULL);
  CHECK(e != NULL);
  if (e) {
    roundtrip(e);
    lm_batch_release(e);
  }
  /* all-NULL columns of every type, including a NULL-type column */
  lm_type_id ids[] = {LM_TYPE_NULL, LM_TYPE_BOOL,    LM_TYPE_INT32,
                      LM_TYPE_UTF8, LM_TYPE_FLOAT64, LM_TYPE_TIMESTAMP};
  int n = (int)LM_ARRAY_LEN(ids);
  lm_schema *ns = lm_schema_new(n);
  lm_array *cols[6];
  for (int i = 0; i < n; i++) {
    char name[8];
    snprintf(name, sizeof name, "c%d", i);
    lm_schema_set_field(ns, i, name, lm_type_make(ids[i]), true);
    cols[i] = lm_array_new_null(lm_type_make(ids[i]), 13);
  }
  lm_batch *nb = lm_batch_new(ns, 13, cols);
  if (nb) {
    roundtrip(nb);
    lm_batch *sl = lm_batch_slice(nb, 3, 9);
    roundtrip(sl);
    lm_batch_release(sl);
    lm_batch_release(nb);
  }
}

static void test_export_schema_and_moves(void) {
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "a", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "when", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_type ns = lm_type_make(LM_TYPE_TIMESTAMP);
  ns.unit = LM_UNIT_NANO;
  lm_schema_set_field(s, 2, "t_ns", ns, true);
  struct ArrowSchema out;
  CHECK_EQ_I64(lm_cdata_export_schema(s, &out, NULL), LM_OK);
  lm_schema_release(s); /* the export is self-contained */
  CHECK_EQ_STR(out.format, "+s");
  CHECK_EQ_I64(out.n_children, 3);
  CHECK_EQ_STR(out.children[0]->format, "l");
  CHECK_EQ_STR(out.children[0]->name, "a");
  CHECK_EQ_I64(out.children[0]->flags, 0);
  CHECK_EQ_STR(out.children[1]->format, "tsu:");
  CHECK_EQ_STR(out.children[1]->name, "when");
  CHECK_EQ_I64(out.children[1]->flags, ARROW_FLAG_NULLABLE);
  CHECK_EQ_STR(out.children[2]->format, "tsn:");
  /* move a child schema out, release the parent, then the child */
  struct ArrowSchema moved = *out.children[1];
  out.children[1]->release = NULL;
  out.release(&out);
  CHECK(out.release == NULL);
  CHECK_EQ_STR(moved.name, "when");
  moved.release(&moved);
  CHECK(moved.release == NULL);

  /* an unsupported type has no format: error, nothing to release */
  lm_schema *bad = lm_schema_new(1);
  lm_type t = {LM_TYPE__COUNT, 0, 0, 0, NULL};
  lm_schema_set_field(bad, 0, "weird", t, true);
  lm_error err = {0};
  CHECK_EQ_I64(lm_cdata_export_schema(bad, &out, &err), LM_ERR_INVALID);
  CHECK(out.release == NULL);
  CHECK(strstr(err.msg, "column 'weird'") != NULL);
  lm_schema_release(bad);

  /* move a column out of an exported array and outlive everything */
  lm_batch *b = make_batch(50, 3);
  struct ArrowArray arr;
  struct ArrowSchema sch;
  CHECK_EQ_I64(lm_cdata_export_batch(b, &arr, &sch, NULL), LM_OK);
  int64_t expect = lm_array_i64(b->columns[4])[17];
  struct ArrowArray col = *arr.children[4];
  arr.children[4]->release = NULL;
  arr.release(&arr);
  sch.release(&sch);
  lm_batch_release(b);
  CHECK(arr.release == NULL);
  CHECK_EQ_I64(((const int64_t *)col.buffers[1])[col.offset + 17], expect);
  col.release(&col);
  CHECK(col.release == NULL);
}

/* -------------------------------------------------- foreign producers */

/* A hand-built producer: malloc'd buffers, freed (and counted) by the
 * parent's release. */
#define FMAX 12
typedef struct fcol {
  struct ArrowArray arr;
  const void *bufs[3];
  void *mem[3];
} fcol;
typedef struct farray {
  struct ArrowArray *ptrs[FMAX];
  fcol cols[FMAX];
  const void *pbufs[1];
  void *pmem;
  int n;
} farray;

static int g_released;
static int g_child_released;

static void fcol_release(struct ArrowArray *a) {
  g_child_released++;
  a->release = NULL;
}

static void farray_release(struct ArrowArray *a) {
  farray *f = a->private_data;
  for (int i = 0; i < f->n; i++) {
    if (f->cols[i].arr.release)
      f->cols[i].arr.release(&f->cols[i].arr);
    for (int k = 0; k < 3; k++)
      free(f->cols[i].mem[k]);
  }
  free(f->pmem);
  free(f);
  a->release = NULL;
  g_released++;
}

static farray *fa_init(struct ArrowArray *out, int64_t len, int64_t off) {
  farray *f = calloc(1, sizeof *f);
  memset(out, 0, sizeof *out);
  out->length = len;
  out->offset = off;
  out->n_buffers = 1;
  out->buffers = f->pbufs;
  out->children = f->ptrs;
  out->release = farray_release;
  out->private_data = f;
  return f;
}

/* Adds a child of the given shape; buffers are set with fa_buf. */
static fcol *fa_add(farray *f, struct ArrowArray *parent, int64_t len,
                    int64_t off, int64_t nulls, int nbuf) {
  fcol *c = &f->cols[f->n];
  f->ptrs[f->n] = &c->arr;
  f->n++;
  parent->n_children = f->n;
  c->arr.length = len;
  c->arr.offset = off;
  c->arr.null_count = nulls;
  c->arr.n_buffers = nbuf;
  c->arr.buffers = c->bufs;
  c->arr.release = fcol_release;
  return c;
}

/* Copies n bytes into a new malloc'd buffer owned by buffer k of c. */
static void *fa_buf(fcol *c, int k, const void *p, size_t n) {
  void *m = malloc(n ? n : 1);
  if (n)
    memcpy(m, p, n);
  c->mem[k] = m;
  c->bufs[k] = m;
  return m;
}

typedef struct fschema {
  struct ArrowSchema top;
  struct ArrowSchema kids[FMAX];
  struct ArrowSchema *ptrs[FMAX];
} fschema;

static void fs_release_child(struct ArrowSchema *s) {
  s->release = NULL;
}
static void fs_release(struct ArrowSchema *s) {
  fschema *f = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++)
    if (f->kids[i].release)
      f->kids[i].release(&f->kids[i]);
  s->release = NULL;
}
static void fs_init(fschema *f) {
  memset(f, 0, sizeof *f);
  f->top.format = "+s";
  f->top.name = "";
  f->top.children = f->ptrs;
  f->top.release = fs_release;
  f->top.private_data = f;
}
static void fs_add(fschema *f, const char *format, const char *name,
                   bool nullable) {
  struct ArrowSchema *c = &f->kids[f->top.n_children];
  f->ptrs[f->top.n_children++] = c;
  c->format = format;
  c->name = name;
  c->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  c->release = fs_release_child;
}

/* bits b0..b7 of the first bytes, LSB first */
static const uint8_t bits_a[] = {0xB7, 0xEE, 0x5F, 0xFF}; /* some zeros */

static bool bit(const uint8_t *b, int64_t i) {
  return (b[i >> 3] >> (i & 7)) & 1;
}

static void test_foreign_import(void) {
  /* parent: length 10, offset 2; so child element = child.off + 2 + row */
  const int64_t len = 10, poff = 2;
  struct ArrowArray arr;
  farray *f = fa_init(&arr, len, poff);
  fschema fs;
  fs_init(&fs);

  /* int32, child offset 3, null_count -1 (unknown) */
  int32_t i32[20];
  for (int i = 0; i < 20; i++)
    i32[i] = i * 100 - 7;
  fcol *c = fa_add(f, &arr, 15, 3, -1, 2);
  fa_buf(c, 0, bits_a, sizeof bits_a);
  const int32_t *i32p = fa_buf(c, 1, i32, sizeof i32);
  fs_add(&fs, "i", "n32", true);

  /* utf8, child offset 1, no validity */
  const char *words[] = {"", "a",   "bc", "def", "", "ghij", "k", "lm",
                         "", "nop", "q",  "rs",  "", "t",    "uv"};
  int32_t offs[16];
  char data[64];
  int32_t pos = 0;
  for (int i = 0; i < 15; i++) {
    offs[i] = pos;
    memcpy(data + pos, words[i], strlen(words[i]));
    pos += (int32_t)strlen(words[i]);
  }
  offs[15] = pos;
  c = fa_add(f, &arr, 14, 1, 0, 3);
  c->bufs[0] = NULL;
  fa_buf(c, 1, offs, sizeof offs);
  const char *datap = fa_buf(c, 2, data, (size_t)pos);
  fs_add(&fs, "u", "str", true);

  /* bool, child offset 5, null_count 0 with a bitmap present (ignored) */
  uint8_t bools[3] = {0x5A, 0xC3, 0x99};
  uint8_t zeros[3] = {0, 0, 0};
  c = fa_add(f, &arr, 17, 5, 0, 2);
  fa_buf(c, 0, zeros, 3);
  fa_buf(c, 1, bools, 3);
  fs_add(&fs, "b", "flag", false);

  /* float64, no offset */
  double f64[12];
  for (int i = 0; i < 12; i++)
    f64[i] = i / 4.0;
  c = fa_add(f, &arr, 12, 0, 0, 2);
  fa_buf(c, 1, f64, sizeof f64);
  fs_add(&fs, "g", "x", true);

  /* timestamps: µs with a zone (zero-copy), ns/ms/s converted */
  int64_t tsv[12];
  for (int i = 0; i < 12; i++)
    tsv[i] = (i - 6) * INT64_C(1234567891);
  const char *tsf[] = {"tsu:UTC", "tsn:", "tsm:Europe/Paris", "tss:"};
  const char *tsn[] = {"t_us", "t_ns", "t_ms", "t_s"};
  const int64_t *tsp = NULL;
  for (int k = 0; k < 4; k++) {
    c = fa_add(f, &arr, 12, 0, 0, 2);
    const int64_t *p = fa_buf(c, 1, tsv, sizeof tsv);
    if (k == 0)
      tsp = p;
    fs_add(&fs, tsf[k], tsn[k], true);
  }
  /* duration µs -> INTERVAL; null type */
  c = fa_add(f, &arr, 12, 0, 0, 2);
  fa_buf(c, 1, tsv, sizeof tsv);
  fs_add(&fs, "tDu", "dur", true);
  c = fa_add(f, &arr, 12, 0, 12, 0);
  fs_add(&fs, "n", "nothing", true);

  g_released = g_child_released = 0;
  lm_batch *b = NULL;
  lm_error err = {0};
  int rc = lm_cdata_import_batch(&arr, &fs.top, &b, &err);
  CHECK_EQ_I64(rc, LM_OK);
  if (rc)
    fprintf(stderr, "import: %s\n", err.msg);
  CHECK(arr.release == NULL);
  fs.top.release(&fs.top);
  CHECK_EQ_I64(g_released, 0); /* buffers still in use */
  if (!b)
    return;
  CHECK_EQ_I64(b->num_rows, len);
  CHECK_EQ_I64(b->num_columns, 10);
  for (int k = 0; k < b->num_columns; k++)
    check_array(b->columns[k]);

  /* int32: element 3 + 2 + i */
  const lm_array *a = b->columns[0];
  CHECK_EQ_STR(b->schema->fields[0].name, "n32");
  CHECK(b->schema->fields[0].type.id == LM_TYPE_INT32);
  CHECK(b->schema->fields[0].nullable);
  int64_t nulls = 0;
  for (int64_t i = 0; i < len; i++) {
    bool valid = bit(bits_a, 5 + i);
    nulls += !valid;
    CHECK(lm_array_is_null(a, i) == !valid);
    if (valid)
      CHECK_EQ_I64(lm_array_i32(a)[i], i32[5 + i]);
  }
  CHECK(nulls > 0);
  CHECK_EQ_I64(a->null_count, nulls);
  /* zero-copy: the values are the producer's memory */
  CHECK((const uint8_t *)lm_array_i32(a) == (const uint8_t *)(i32p + 5));

  a = b->columns[1];
  CHECK_EQ_I64(a->null_count, 0);
  for (int64_t i = 0; i < len; i++) {
    int32_t l;
    const char *p = lm_array_str(a, i, &l);
    CHECK_EQ_I64(l, (int64_t)strlen(words[3 + i]));
    CHECK(memcmp(p, words[3 + i], (size_t)l) == 0);
  }
  CHECK(a->data->data == (const uint8_t *)datap);

  a = b->columns[2];
  CHECK(!b->schema->fields[2].nullable);
  CHECK_EQ_I64(a->null_count, 0);
  CHECK(a->validity == NULL);
  for (int64_t i = 0; i < len; i++)
    CHECK(lm_array_bool(a, i) == bit(bools, 7 + i));

  a = b->columns[3];
  for (int64_t i = 0; i < len; i++)
    CHECK(lm_array_f64(a)[i] == f64[2 + i]);

  for (int k = 0; k < 4; k++) {
    a = b->columns[4 + k];
    CHECK(lm_type_eq(a->type, lm_type_make(LM_TYPE_TIMESTAMP)));
    for (int64_t i = 0; i < len; i++) {
      int64_t v = tsv[2 + i], want = v;
      if (k == 1)
        want = lm_floor_div(v, 1000);
      else if (k == 2)
        want = v * 1000;
      else if (k == 3)
        want = v * 1000000;
      CHECK_EQ_I64(lm_array_i64(a)[i], want);
    }
  }
  CHECK(lm_array_i64(b->columns[4]) == tsp + 2); /* tsu: zero-copy */
  a = b->columns[8];
  CHECK(a->type.id == LM_TYPE_INTERVAL);
  CHECK_EQ_I64(lm_array_i64(a)[4], tsv[6]);
  a = b->columns[9];
  CHECK(a->type.id == LM_TYPE_NULL);
  CHECK_EQ_I64(a->null_count, len);

  /* keep one column alive past the batch: release only when it goes */
  lm_array *keep = lm_array_retain(b->columns[0]);
  lm_batch_release(b);
  CHECK_EQ_I64(g_released, 0);
  CHECK_EQ_I64(lm_array_i32(keep)[1], i32[6]);
  lm_array_release(keep);
  CHECK_EQ_I64(g_released, 1);
  CHECK(g_child_released >= 1);
}

/* Struct-level NULLs, a re-export of imported data, unaligned buffers and
 * strings without a data buffer. */
static void test_foreign_special(void) {
  struct ArrowArray arr;
  farray *f = fa_init(&arr, 9, 1);
  uint8_t pbits[2] = {0xEF, 0x03}; /* parent row 3 (bit 4) is NULL */
  f->pmem = malloc(2);
  memcpy(f->pmem, pbits, 2);
  f->pbufs[0] = f->pmem;
  arr.null_count = -1;
  fschema fs;
  fs_init(&fs);

  int64_t i64[10];
  for (int i = 0; i < 10; i++)
    i64[i] = 1000 + i;
  fcol *c = fa_add(f, &arr, 10, 0, 0, 2);
  const int64_t *i64p = fa_buf(c, 1, i64, sizeof i64);
  fs_add(&fs, "l", "v", true);

  /* unaligned int64 values: copied */
  c = fa_add(f, &arr, 10, 0, 0, 2);
  uint8_t *raw = malloc(sizeof i64 + 1);
  memcpy(raw + 1, i64, sizeof i64);
  c->mem[1] = raw;
  c->bufs[1] = raw + 1;
  fs_add(&fs, "l", "unaligned", true);

  /* all-empty strings, NULL data buffer */
  int32_t offs[11] = {0};
  c = fa_add(f, &arr, 10, 0, 0, 3);
  fa_buf(c, 1, offs, sizeof offs);
  c->bufs[2] = NULL;
  fs_add(&fs, "u", "empty", true);

  g_released = 0;
  lm_batch *b = NULL;
  lm_error err = {0};
  int rc = lm_cdata_import_batch(&arr, &fs.top, &b, &err);
  CHECK_EQ_I64(rc, LM_OK);
  if (rc)
    fprintf(stderr, "import: %s\n", err.msg);
  fs.top.release(&fs.top);
  if (!b)
    return;
  for (int k = 0; k < 3; k++) {
    const lm_array *a = b->columns[k];
    check_array(a);
    CHECK_EQ_I64(a->null_count, 1);
    for (int64_t i = 0; i < 9; i++) {
      CHECK(lm_array_is_null(a, i) == (i == 3));
      if (i != 3 && k < 2)
        CHECK_EQ_I64(lm_array_i64(a)[i], 1001 + i);
      if (i != 3 && k == 2) {
        int32_t l;
        lm_array_str(a, i, &l);
        CHECK_EQ_I64(l, 0);
      }
    }
  }
  /* values of column 0 are still shared; the bitmap is new */
  CHECK(lm_array_i64(b->columns[0]) == i64p + 1);

  /* re-export the imported batch and import that again */
  struct ArrowArray a2;
  struct ArrowSchema s2;
  CHECK_EQ_I64(lm_cdata_export_batch(b, &a2, &s2, NULL), LM_OK);
  lm_batch *b2 = NULL;
  CHECK_EQ_I64(lm_cdata_import_batch(&a2, &s2, &b2, NULL), LM_OK);
  s2.release(&s2);
  if (b2)
    check_batches_equal(b, b2);
  lm_batch_release(b);
  CHECK_EQ_I64(g_released, 0);
  lm_batch_release(b2);
  CHECK_EQ_I64(g_released, 1);

  /* a 0-row foreign array with NULL buffers */
  f = fa_init(&arr, 0, 0);
  fs_init(&fs);
  fa_add(f, &arr, 0, 0, 0, 2);
  fs_add(&fs, "i", "a", true);
  fa_add(f, &arr, 0, 0, 0, 3);
  fs_add(&fs, "u", "b", true);
  g_released = 0;
  CHECK_EQ_I64(lm_cdata_import_batch(&arr, &fs.top, &b, NULL), LM_OK);
  CHECK_EQ_I64(g_released, 1); /* nothing was wrapped */
  if (b) {
    CHECK_EQ_I64(b->num_rows, 0);
    check_array(b->columns[0]);
    check_array(b->columns[1]);
    lm_batch_release(b);
  }
}

/* ------------------------------------------------------- malformed input */

enum {
  BAD_NBUF,
  BAD_NULL_VALUES,
  BAD_OFFSETS,
  BAD_NEG_OFFSET,
  BAD_SHORT_CHILD,
  BAD_FORMAT,
  BAD_NULL_VALIDITY,
  BAD_NULL_COUNT,
  BAD_NEG_LENGTH,
  BAD_NOT_NULLABLE,
  BAD_DICTIONARY,
  BAD_NULL_DATA,
  BAD_TS_OVERFLOW,
  BAD_CHILD_RELEASED,
  BAD_NESTED_FORMAT,
  BAD_HUGE_OFFSET,
  BAD__COUNT
};

/* A two-column foreign array: a valid int64 column "ok" then a column
 * "bad" with defect `kind`. */
static void build_bad(int kind, struct ArrowArray *arr, fschema *fs) {
  farray *f = fa_init(arr, 6, 0);
  fs_init(fs);
  int64_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  fcol *c = fa_add(f, arr, 6, 0, 0, 2);
  fa_buf(c, 1, v, sizeof v);
  fs_add(fs, "l", "ok", true);

  int32_t i32[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int32_t offs[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  uint8_t valid = 0xF5;
  const char *format = "i";
  bool nullable = true;
  c = fa_add(f, arr, 6, 0, 0, 2);
  fa_buf(c, 1, i32, sizeof i32);
  switch (kind) {
  case BAD_NBUF:
    c->arr.n_buffers = 3;
    break;
  case BAD_NULL_VALUES:
    c->bufs[1] = NULL;
    break;
  case BAD_OFFSETS:
  case BAD_NEG_OFFSET:
  case BAD_NULL_DATA:
    format = "u";
    c->arr.n_buffers = 3;
    if (kind == BAD_OFFSETS)
      offs[4] = 2;
    if (kind == BAD_NEG_OFFSET)
      offs[0] = -1;
    free(c->mem[1]);
    fa_buf(c, 1, offs, sizeof offs);
    if (kind != BAD_NULL_DATA)
      fa_buf(c, 2, "abcdefgh", 8);
    break;
  case BAD_SHORT_CHILD:
    c->arr.length = 5;
    break;
  case BAD_FORMAT:
    format = "+m";
    break;
  case BAD_NULL_VALIDITY:
    c->arr.null_count = 2;
    break;
  case BAD_NULL_COUNT:
    c->arr.null_count = 7;
    fa_buf(c, 0, &valid, 1);
    break;
  case BAD_NEG_LENGTH:
    c->arr.length = -1;
    break;
  case BAD_NOT_NULLABLE:
    c->arr.null_count = -1;
    fa_buf(c, 0, &valid, 1);
    nullable = false;
    break;
  case BAD_DICTIONARY:
    break;
  case BAD_TS_OVERFLOW:
    format = "tss:";
    {
      int64_t big[6] = {0, 1, INT64_MAX / 1000, 3, 4, 5};
      free(c->mem[1]);
      fa_buf(c, 1, big, sizeof big);
    }
    break;
  case BAD_CHILD_RELEASED:
    c->arr.release = NULL;
    break;
  case BAD_NESTED_FORMAT:
    format = "+l";
    break;
  case BAD_HUGE_OFFSET:
    c->arr.offset = INT64_MAX - 3;
    break;
  }
  fs_add(fs, format, "bad", nullable);
  if (kind == BAD_DICTIONARY)
    fs->kids[1].dictionary = &fs->kids[0];
}

static void test_malformed(void) {
  static const char *expect[BAD__COUNT] = {
      [BAD_NBUF] = "buffers",
      [BAD_NULL_VALUES] = "values buffer is NULL",
      [BAD_OFFSETS] = "monotonic",
      [BAD_NEG_OFFSET] = "negative first offset",
      [BAD_SHORT_CHILD] = "shorter",
      [BAD_FORMAT] = "unsupported format '+m'",
      [BAD_NULL_VALIDITY] = "validity buffer is NULL",
      [BAD_NULL_COUNT] = "null_count",
      [BAD_NEG_LENGTH] = "negative",
      [BAD_NOT_NULLABLE] = "non-nullable",
      [BAD_DICTIONARY] = "dictionary",
      [BAD_NULL_DATA] = "data buffer is NULL",
      [BAD_TS_OVERFLOW] = "out of range",
      [BAD_CHILD_RELEASED] = "released",
      [BAD_NESTED_FORMAT] = "format '+l' with 0 children",
      [BAD_HUGE_OFFSET] = "offset",
  };
  for (int kind = 0; kind < BAD__COUNT; kind++) {
    struct ArrowArray arr;
    fschema fs;
    build_bad(kind, &arr, &fs);
    g_released = 0;
    lm_batch *b = (lm_batch *)&arr; /* must be reset to NULL */
    lm_error err = {0};
    int rc = lm_cdata_import_batch(&arr, &fs.top, &b, &err);
    CHECK_EQ_I64(rc, LM_ERR_INVALID);
    CHECK(b == NULL);
    CHECK(arr.release == NULL);
    CHECK_EQ_I64(g_released, 1);
    if (!strstr(err.msg, "column 'bad': ") || !strstr(err.msg, expect[kind])) {
      fprintf(stderr, "kind %d: unexpected message: %s\n", kind, err.msg);
      CHECK(0);
    }
    fs.top.release(&fs.top);
  }
}

/* Problems with the top-level struct. */
static void test_malformed_parent(void) {
  for (int kind = 0; kind < 7; kind++) {
    struct ArrowArray arr;
    fschema fs;
    build_bad(BAD__COUNT, &arr, &fs); /* both columns fine */
    const char *expect = "";
    switch (kind) {
    case 0:
      fs.top.n_children = 1;
      expect = "children";
      break;
    case 1:
      fs.top.format = "+l";
      expect = "struct";
      break;
    case 2:
      arr.n_buffers = 0;
      expect = "buffer";
      break;
    case 3:
      arr.null_count = 1; /* without a bitmap */
      expect = "validity";
      break;
    case 4:
      arr.length = -2;
      expect = "length";
      break;
    case 5:
      arr.offset = 1; /* children are 6 long, parent 6 + 1 */
      expect = "shorter";
      break;
    case 6:
      fs.top.release = NULL;
      expect = "released";
      break;
    }
    g_released = 0;
    lm_batch *b = NULL;
    lm_error err = {0};
    CHECK_EQ_I64(lm_cdata_import_batch(&arr, &fs.top, &b, &err),
                 LM_ERR_INVALID);
    CHECK(b == NULL && arr.release == NULL);
    CHECK_EQ_I64(g_released, 1);
    if (!strstr(err.msg, expect)) {
      fprintf(stderr, "parent kind %d: unexpected message: %s\n", kind,
              err.msg);
      CHECK(0);
    }
    fs.top.release = fs_release;
    fs.top.release(&fs.top);
  }
  /* an already released array: an error, and nothing is called */
  struct ArrowArray gone;
  memset(&gone, 0, sizeof gone);
  fschema fs;
  fs_init(&fs);
  lm_batch *b = NULL;
  g_released = 0;
  CHECK_EQ_I64(lm_cdata_import_batch(&gone, &fs.top, &b, NULL), LM_ERR_INVALID);
  CHECK_EQ_I64(g_released, 0);
  fs.top.release(&fs.top);
}

/* ----------------------------------------------- the other Arrow types */

static void row_text(lm_buf *b, const lm_array *a, int64_t i) {
  lm_array_format_value(b, a, i, "<null>");
  lm_buf_putc(b, '|');
}

/* A batch of 7 rows with one column of each of the other Arrow types. */
static lm_batch *make_arrow_types_batch(void) {
  enum { N = 7, NC = 10 };
  lm_array *cols[NC];
  lm_schema *s = lm_schema_new(NC);
  /* UINT16 */
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_UINT16), N);
  for (int i = 0; i < N; i++)
    i == 3 ? lm_builder_append_null(&b) : lm_builder_append_int(&b, 65535 - i);
  lm_builder_finish(&b, &cols[0]);
  lm_builder_free(&b);
  /* DECIMAL128(20, 3) */
  lm_buffer *dv = lm_buffer_new(N * 16);
  for (int i = 0; i < N; i++) {
    int64_t lo = (i - 3) * INT64_C(123456789), hi = lo < 0 ? -1 : 0;
    memcpy(dv->data + i * 16, &lo, 8);
    memcpy(dv->data + i * 16 + 8, &hi, 8);
  }
  cols[1] = lm_array_new(lm_type_decimal128(20, 3), N, 0, 0, NULL, dv, NULL, 0,
                         NULL, NULL);
  /* DATE32, TIME64(ns), DURATION(ms) */
  lm_type tt[3] = {lm_type_make(LM_TYPE_DATE32),
                   lm_type_unit(LM_TYPE_TIME64, LM_UNIT_NANO),
                   lm_type_unit(LM_TYPE_DURATION, LM_UNIT_MILLI)};
  for (int k = 0; k < 3; k++) {
    lm_builder_init(&b, tt[k], N);
    for (int i = 0; i < N; i++)
      i == 5 ? lm_builder_append_null(&b)
             : lm_builder_append_int(&b, (i + 1) * INT64_C(1000003) * (k + 1));
    lm_builder_finish(&b, &cols[2 + k]);
    lm_builder_free(&b);
  }
  /* FIXED_SIZE_BINARY(2) */
  lm_type fsb;
  lm_type_fixed_size_binary(2, &fsb);
  lm_buffer *fv = lm_buffer_new(N * 2);
  for (int i = 0; i < 2 * N; i++)
    fv->data[i] = (uint8_t)(i * 37);
  cols[5] = lm_array_new(fsb, N, 0, 0, NULL, fv, NULL, 0, NULL, NULL);
  /* LARGE_UTF8 */
  lm_buffer *lo = lm_buffer_new((N + 1) * 8), *ld = lm_buffer_new(N * 3);
  for (int i = 0; i <= N; i++) {
    int64_t o = i * 3;
    memcpy(lo->data + i * 8, &o, 8);
  }
  memcpy(ld->data, "abcdefghijklmnopqrstu", N * 3);
  cols[6] = lm_array_new(lm_type_make(LM_TYPE_LARGE_UTF8), N, 0, 0, NULL, lo,
                         ld, 0, NULL, NULL);
  /* LIST<UINT16> over column 0 (items 0..6), rows of 0..2 items */
  lm_type_field it = {"item", cols[0]->type, true, NULL};
  lm_type lt;
  lm_type_list(LM_TYPE_LIST, &it, &lt);
  lm_buffer *loffs = lm_buffer_new((N + 1) * 4);
  int32_t lo32[N + 1] = {0, 1, 3, 3, 4, 6, 6, 7};
  memcpy(loffs->data, lo32, sizeof lo32);
  lm_array *items = lm_array_retain(cols[0]);
  lm_buffer *lv = lm_buffer_new(1);
  lv->data[0] = 0x77; /* row 3 NULL */
  cols[7] = lm_array_new(lt, N, 1, 0, lv, loffs, NULL, 1, &items, NULL);
  /* STRUCT<d DECIMAL, s LARGE_VARCHAR> */
  lm_type_field sf[2] = {{"d", cols[1]->type, true, NULL},
                         {"s", cols[6]->type, false, NULL}};
  lm_type stt;
  lm_type_struct(2, sf, &stt);
  lm_array *sk[2] = {lm_array_retain(cols[1]), lm_array_retain(cols[6])};
  cols[8] = lm_array_new(stt, N, 0, 0, NULL, NULL, NULL, 2, sk, NULL);
  /* DICTIONARY<INT8, DATE32> */
  lm_type dt;
  lm_type_dictionary(LM_TYPE_INT8, cols[2]->type, false, &dt);
  lm_buffer *ix = lm_buffer_new(N);
  for (int i = 0; i < N; i++)
    ix->data[i] = (uint8_t)((i * 3) % N);
  cols[9] = lm_array_new(dt, N, 0, 0, NULL, ix, NULL, 0, NULL,
                         lm_array_retain(cols[2]));
  const char *names[NC] = {"u16", "dec",   "date", "t64", "dur",
                           "fsb", "lutf8", "list", "st",  "dict"};
  for (int c = 0; c < NC; c++)
    lm_schema_set_field(s, c, names[c], cols[c]->type, true);
  return lm_batch_new(s, N, cols);
}

static void test_arrow_types_roundtrip(void) {
  lm_batch *full = make_arrow_types_batch();
  for (int pass = 0; pass < 2; pass++) {
    lm_batch *b = pass ? lm_batch_slice(full, 2, 4) : lm_batch_retain(full);
    struct ArrowArray arr;
    struct ArrowSchema sch;
    lm_error err = {0};
    int rc = lm_cdata_export_batch(b, &arr, &sch, &err);
    CHECK_EQ_I64(rc, 0);
    if (rc) {
      fprintf(stderr, "export: %s\n", err.msg);
      lm_batch_release(b);
      continue;
    }
    CHECK_EQ_STR(sch.children[0]->format, "S");
    CHECK_EQ_STR(sch.children[1]->format, "d:20,3");
    CHECK_EQ_STR(sch.children[2]->format, "tdD");
    CHECK_EQ_STR(sch.children[3]->format, "ttn");
    CHECK_EQ_STR(sch.children[4]->format, "tDm");
    CHECK_EQ_STR(sch.children[5]->format, "w:2");
    CHECK_EQ_STR(sch.children[6]->format, "U");
    CHECK_EQ_STR(sch.children[7]->format, "+l");
    CHECK_EQ_STR(sch.children[7]->children[0]->format, "S");
    CHECK_EQ_STR(sch.children[8]->format, "+s");
    CHECK_EQ_STR(sch.children[8]->children[1]->name, "s");
    CHECK_EQ_STR(sch.children[9]->format, "c");
    CHECK(sch.children[9]->dictionary &&
          !strcmp(sch.children[9]->dictionary->format, "tdD"));
    lm_batch *in = NULL;
    rc = lm_cdata_import_batch(&arr, &sch, &in, &err);
    CHECK_EQ_I64(rc, 0);
    if (rc)
      fprintf(stderr, "import: %s\n", err.msg);
    sch.release(&sch);
    if (in) {
      CHECK_EQ_I64(in->num_rows, b->num_rows);
      for (int c = 0; c < b->num_columns; c++) {
        CHECK(lm_type_eq(in->columns[c]->type, b->columns[c]->type));
        lm_buf x, y;
        lm_buf_init(&x);
        lm_buf_init(&y);
        for (int64_t i = 0; i < b->num_rows; i++) {
          row_text(&x, b->columns[c], i);
          row_text(&y, in->columns[c], i);
        }
        CHECK(x.len == y.len && !memcmp(x.data, y.data, x.len));
        if (x.len != y.len || memcmp(x.data, y.data, x.len))
          fprintf(stderr, "col %d: %.*s vs %.*s\n", c, (int)x.len, x.data,
                  (int)y.len, y.data);
        lm_buf_free(&x);
        lm_buf_free(&y);
      }
      /* zero-copy: the decimal values are the exported memory */
      CHECK(in->columns[1]->values->data == b->columns[1]->values->data);
      lm_batch_release(in);
    }
    lm_batch_release(b);
  }
  lm_batch_release(full);
}

/* Malformed nested/dictionary input: each error names the column. */
static void test_arrow_types_malformed(void) {
  for (int kind = 0; kind < 4; kind++) {
    lm_batch *b = make_arrow_types_batch();
    struct ArrowArray arr;
    struct ArrowSchema sch;
    CHECK_EQ_I64(lm_cdata_export_batch(b, &arr, &sch, NULL), 0);
    const char *want = NULL;
    int32_t bad_off[2] = {0, 100};
    int8_t bad_ix = 9;
    switch (kind) {
    case 0: /* a list offset past the items */
      arr.children[7]->buffers[1] = bad_off;
      arr.children[7]->length = 1;
      arr.children[7]->offset = 0;
      arr.children[7]->null_count = 0;
      want = "column 'list': offset 100 at row 1 is past the items";
      arr.length = 1;
      break;
    case 1: /* a dictionary index out of range */
      arr.children[9]->buffers[1] = &bad_ix;
      arr.children[9]->length = 1;
      arr.length = 1;
      want = "column 'dict': dictionary index 9 at row 0";
      break;
    case 2: /* a struct child shorter than the struct */
      arr.children[8]->children[1]->length = 3;
      want = "column 'st'";
      break;
    case 3: /* a dictionary array without its dictionary */
      arr.children[9]->dictionary = NULL;
      want = "missing its dictionary";
      break;
    }
    lm_batch *in = NULL;
    lm_error err = {0};
    int rc = lm_cdata_import_batch(&arr, &sch, &in, &err);
    CHECK_EQ_I64(rc, LM_ERR_INVALID);
    CHECK(in == NULL);
    if (!strstr(err.msg, want))
      fprintf(stderr, "kind %d: unexpected message: %s\n", kind, err.msg);
    CHECK(strstr(err.msg, want) != NULL);
    sch.release(&sch);
    lm_batch_release(b);
  }
}

/* ------------------------------------------- import shaped like a schema */

/* A batch (id BIGINT NOT NULL, name VARCHAR) of 3 rows, name[1] NULL,
 * exported through the C Data Interface. */
static void export_two(struct ArrowArray *a, struct ArrowSchema *s) {
  lm_schema *sch = lm_schema_new(2);
  lm_schema_set_field(sch, 0, "id", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(sch, 1, "name", lm_type_make(LM_TYPE_UTF8), true);
  lm_batch_builder bb;
  CHECK(lm_batch_builder_init(&bb, sch, 3) == 0);
  for (int i = 0; i < 3; i++) {
    lm_builder_append_int(&bb.cols[0], 10 + i);
    if (i == 1)
      lm_builder_append_null(&bb.cols[1]);
    else
      lm_builder_append_str(&bb.cols[1], "ab", 1 + i / 2);
  }
  lm_batch *b = NULL;
  lm_error err;
  lm_err_clear(&err);
  CHECK(lm_batch_builder_finish(&bb, &b, &err) == 0);
  CHECK(lm_cdata_export_batch(b, a, s, &err) == 0);
  lm_batch_release(b);
  lm_batch_builder_free(&bb);
  lm_schema_release(sch);
}

/* lm_cdata_import_batch_like: the batch takes `like` as its schema only
 * when the columns match it one for one (names ASCII case-insensitive,
 * types, no NULL under NOT NULL); values and validation are the same. */
static void test_import_like(void) {
  lm_type i64 = lm_type_make(LM_TYPE_INT64), str = lm_type_make(LM_TYPE_UTF8),
          f64 = lm_type_make(LM_TYPE_FLOAT64);
  struct {
    const char *n0, *n1;
    lm_type t1;
    bool null1, same;
  } cases[] = {
      {"ID", "Name", str, true, true},   /* case differs: same */
      {"id", "name", str, false, false}, /* NOT NULL, a NULL is there */
      {"id", "name", f64, true, false},  /* type differs */
      {"id", "nom", str, true, false},   /* name differs */
      {"name", "id", str, true, false},  /* order differs */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    lm_schema *like = lm_schema_new(2);
    lm_schema_set_field(like, 0, cases[k].n0, i64, false);
    lm_schema_set_field(like, 1, cases[k].n1, cases[k].t1, cases[k].null1);
    if (!strcmp(cases[k].n0, "name")) { /* order differs: name first */
      lm_schema_set_field(like, 0, "name", str, true);
      lm_schema_set_field(like, 1, "id", i64, false);
    }
    struct ArrowArray a;
    struct ArrowSchema s;
    export_two(&a, &s);
    lm_batch *b = NULL;
    lm_error err;
    lm_err_clear(&err);
    CHECK(lm_cdata_import_batch_like(&a, &s, like, &b, &err) == 0);
    CHECK(a.release == NULL); /* moved */
    if (!b) {
      s.release(&s);
      lm_schema_release(like);
      continue;
    }
    CHECK((b->schema == like) == cases[k].same);
    CHECK_EQ_I64(b->num_rows, 3);
    CHECK_EQ_I64(lm_array_i64(b->columns[0])[2], 12);
    CHECK(lm_array_is_null(b->columns[1], 1));
    int32_t len = 0;
    const char *p = lm_array_str(b->columns[1], 2, &len);
    CHECK(len == 2 && !memcmp(p, "ab", 2));
    if (!cases[k].same) { /* the C schema's labels */
      CHECK_EQ_STR(b->schema->fields[0].name, "id");
      CHECK_EQ_STR(b->schema->fields[1].name, "name");
      CHECK(b->schema->fields[1].nullable);
    }
    lm_batch_release(b);
    s.release(&s);
    CHECK_EQ_I64(like->refcnt, 1); /* the batch's reference is gone */
    lm_schema_release(like);
  }

  /* a malformed array is still rejected, and released */
  lm_schema *like = lm_schema_new(2);
  lm_schema_set_field(like, 0, "id", i64, false);
  lm_schema_set_field(like, 1, "name", str, true);
  struct ArrowArray a;
  struct ArrowSchema s;
  export_two(&a, &s);
  a.children[0]->length = 1; /* shorter than the parent's 3 rows */
  lm_batch *b = NULL;
  lm_error err;
  lm_err_clear(&err);
  CHECK(lm_cdata_import_batch_like(&a, &s, like, &b, &err) == LM_ERR_INVALID);
  CHECK(b == NULL && a.release == NULL);
  CHECK(strstr(err.msg, "column 'id'") != NULL);
  s.release(&s);
  CHECK_EQ_I64(like->refcnt, 1);
  lm_schema_release(like);
}

int main(void) {
  test_roundtrip_all_types();
  test_roundtrip_slices();
  test_zero_rows_and_columns();
  test_outlives_original();
  test_export_schema_and_moves();
  test_foreign_import();
  test_foreign_special();
  test_malformed();
  test_malformed_parent();
  test_arrow_types_roundtrip();
  test_arrow_types_malformed();
  test_import_like();
  return lm_test_done("test_cdata");
}
