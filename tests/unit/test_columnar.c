/* Unit tests for columnar/: types, schemas, buffers, builders (NULLs at
 * various positions, narrowing, UTF8 incl. empty strings, BOOL bits, reuse
 * after finish, 0-row arrays), slices at non-multiple-of-8 offsets, batches,
 * batch builders and the text form of values. */
#include "columnar/lm_columnar.h"
#include "columnar/lm_temporal.h"
#include "lm_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool all_zero(const uint8_t *p, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (p[i])
      return false;
  return true;
}

/* Arrow layout invariants every finished array must satisfy. */
static void check_layout(const lm_array *a) {
  const lm_buffer *bufs[3] = {a->validity, a->values, a->data};
  for (int k = 0; k < 3; k++) {
    const lm_buffer *b = bufs[k];
    if (!b)
      continue;
    CHECK(((uintptr_t)b->data % 64) == 0);
    CHECK(b->capacity % 64 == 0);
    CHECK(b->capacity >= b->size);
    /* padding up to the next multiple of 64 is zeroed */
    size_t pad = (b->size + 63) / 64 * 64;
    if (pad == 0)
      pad = 64;
    CHECK(all_zero(b->data, b->size, LM_MIN(pad, b->capacity)));
  }
  if (a->type.id != LM_TYPE_NULL)
    CHECK(a->values != NULL);
  if (a->validity == NULL)
    CHECK_EQ_I64(a->null_count, 0);
  else
    CHECK_EQ_I64(a->null_count,
                 a->length - lm_bitmap_count_set(a->validity->data, a->offset,
                                                 a->length));
  if (a->type.id == LM_TYPE_UTF8) {
    CHECK(a->data != NULL);
    CHECK(a->values->size >= (size_t)(a->offset + a->length + 1) * 4);
    const int32_t *off = (const int32_t *)a->values->data;
    for (int64_t i = 0; i < a->offset + a->length; i++)
      CHECK(off[i] <= off[i + 1]);
    CHECK((size_t)off[a->offset + a->length] <= a->data->size);
  }
}

static void test_types(void) {
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_INT8)), 1);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_INT16)), 2);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_INT32)), 4);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_FLOAT32)), 4);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_INT64)), 8);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_TIMESTAMP)), 8);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_INTERVAL)), 8);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_BOOL)), 0);
  CHECK_EQ_I64(lm_type_width(lm_type_make(LM_TYPE_UTF8)), 0);
  CHECK(lm_type_is_integer(lm_type_make(LM_TYPE_INT16)));
  CHECK(!lm_type_is_integer(lm_type_make(LM_TYPE_FLOAT64)));
  CHECK(!lm_type_is_integer(lm_type_make(LM_TYPE_TIMESTAMP)));
  CHECK(lm_type_is_numeric(lm_type_make(LM_TYPE_FLOAT32)));
  CHECK(!lm_type_is_numeric(lm_type_make(LM_TYPE_UTF8)));
  CHECK_EQ_STR(lm_type_name(lm_type_make(LM_TYPE_INT64)), "BIGINT");
  CHECK_EQ_STR(lm_type_name(lm_type_make(LM_TYPE_UTF8)), "VARCHAR");
  CHECK_EQ_STR(lm_type_name(lm_type_make(LM_TYPE_TIMESTAMP)), "TIMESTAMP");
  CHECK_EQ_STR(lm_type_name(lm_type_make(LM_TYPE_BOOL)), "BOOLEAN");
  /* a valid DECIMAL spells (p,s) (static strings); CHAR(n) is bpchar */
  CHECK_EQ_STR(lm_type_name(lm_type_decimal128(10, 2)), "DECIMAL(10,2)");
  CHECK_EQ_STR(lm_type_name(lm_type_decimal128(38, 38)), "DECIMAL(38,38)");
  CHECK_EQ_STR(lm_type_name(lm_type_decimal128(0, 0)), "DECIMAL");
  CHECK(lm_type_name(lm_type_decimal128(10, 2)) ==
        lm_type_name(lm_type_decimal128(10, 2)));
  CHECK_EQ_STR(lm_type_name(lm_type_bpchar()), "CHAR");
  CHECK(lm_type_is_bpchar(lm_type_bpchar()));
  CHECK(!lm_type_is_bpchar(lm_type_make(LM_TYPE_UTF8)));
  CHECK(!lm_type_eq(lm_type_bpchar(), lm_type_make(LM_TYPE_UTF8)));
  CHECK(lm_type_make(LM_TYPE_TIMESTAMP).unit == LM_UNIT_MICRO);
  lm_type ns = lm_type_make(LM_TYPE_TIMESTAMP);
  ns.unit = LM_UNIT_NANO;
  CHECK(!lm_type_eq(ns, lm_type_make(LM_TYPE_TIMESTAMP)));
}

static void test_schema(void) {
  lm_schema *s = lm_schema_new(3);
  CHECK(s && s->refcnt == 1 && s->n_fields == 3);
  CHECK_EQ_I64(
      lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), false), 0);
  lm_schema_set_field(s, 1, "Name", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 2, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_schema_set_field(s, 2, "event_time", lm_type_make(LM_TYPE_TIMESTAMP),
                      true); /* replace */
  CHECK_EQ_I64(lm_schema_set_field(s, 3, "x", lm_type_make(LM_TYPE_INT8), 1),
               LM_ERR_INVALID);
  CHECK_EQ_I64(lm_schema_find(s, "NAME"), 1);
  CHECK_EQ_I64(lm_schema_find(s, "id"), 0);
  CHECK_EQ_I64(lm_schema_find(s, "EVENT_TIME"), 2);
  CHECK_EQ_I64(lm_schema_find(s, "ts"), -1);
  CHECK(!s->fields[0].nullable);
  /* declared modifiers (lm_typmod): none by default; DESCRIBE's spelling */
  CHECK(lm_schema_typmod(s, 1).char_len == 0 && s->mods == NULL);
  lm_typmod vc = {3, false, 0}, tp = {0, false, 4};
  CHECK_EQ_I64(lm_schema_set_typmod(s, 1, vc), 0);
  CHECK_EQ_I64(lm_schema_set_typmod(s, 2, tp), 0);
  CHECK_EQ_I64(lm_schema_set_typmod(s, 3, vc), LM_ERR_INVALID);
  CHECK(lm_schema_typmod(s, 1).char_len == 3);
  CHECK(lm_schema_typmod(s, 0).char_len == 0);
  CHECK(lm_schema_typmod(s, 7).char_len == 0);
  const char *want[3] = {"BIGINT", "VARCHAR(3)", "TIMESTAMP(3)"};
  for (int i = 0; i < 3; i++) {
    lm_buf b = {0};
    CHECK_EQ_I64(lm_schema_format_type(&b, s, i), 0);
    CHECK(b.data && b.len == strlen(want[i]) &&
          !memcmp(b.data, want[i], b.len));
    lm_buf_free(&b);
  }
  CHECK(lm_schema_retain(s) == s && s->refcnt == 2);
  lm_schema_release(s);
  lm_schema_release(s);
  lm_schema *empty = lm_schema_new(0);
  CHECK(empty && empty->n_fields == 0);
  CHECK_EQ_I64(lm_schema_find(empty, "x"), -1);
  lm_schema_release(empty);
  lm_schema_release(NULL);
}

static int released;
static void count_release(lm_buffer *b) {
  released++;
  free(b->owner);
}

static void test_buffers(void) {
  lm_buffer *b = lm_buffer_new(100);
  CHECK(b && ((uintptr_t)b->data % 64) == 0);
  CHECK_EQ_I64(b->size, 100);
  CHECK_EQ_I64(b->capacity, 128);
  CHECK(all_zero(b->data, 0, 128));
  CHECK(lm_buffer_retain(b) == b);
  lm_buffer_release(b);
  lm_buffer_release(b);
  lm_buffer *z = lm_buffer_new(0);
  CHECK(z && z->size == 0 && z->capacity == 64);
  lm_buffer_release(z);

  char *mem = malloc(10);
  memcpy(mem, "foreign!!", 10);
  lm_buffer *w = lm_buffer_wrap(mem, 10, count_release, mem);
  CHECK(w && w->data == (uint8_t *)mem && w->size == 10);
  lm_buffer_retain(w);
  lm_buffer_release(w);
  CHECK_EQ_I64(released, 0);
  lm_buffer_release(w);
  CHECK_EQ_I64(released, 1);
  static const char stat[] = "static";
  lm_buffer *bw = lm_buffer_wrap(stat, 6, NULL, NULL); /* borrowed */
  lm_buffer_release(bw);
}

/* Builds an INT64 column with NULLs where null_at[i] and checks it. */
static void test_int64_nulls(void) {
  static const int patterns[][4] = {
      {0, -1, -1, -1},  /* first row */
      {7, -1, -1, -1},  /* last bit of first byte */
      {8, 9, -1, -1},   /* first bits of second byte */
      {99, -1, -1, -1}, /* last row */
      {3, 50, 64, 65},
  };
  for (size_t p = 0; p < LM_ARRAY_LEN(patterns); p++) {
    lm_builder b;
    CHECK_EQ_I64(lm_builder_init(&b, lm_type_make(LM_TYPE_INT64), 4), 0);
    bool isnull[100] = {false};
    for (int k = 0; k < 4; k++)
      if (patterns[p][k] >= 0)
        isnull[patterns[p][k]] = true;
    int nn = 0;
    for (int i = 0; i < 100; i++) {
      if (isnull[i]) {
        lm_builder_append_null(&b);
        nn++;
      } else if (i % 2) {
        lm_builder_append_i64_fast(&b, (int64_t)i * -1000000007LL);
      } else {
        lm_builder_append_int(&b, (int64_t)i * -1000000007LL);
      }
    }
    CHECK(b.validity != NULL);
    lm_array *a;
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    CHECK_EQ_I64(a->length, 100);
    CHECK_EQ_I64(a->null_count, nn);
    CHECK(a->validity != NULL);
    check_layout(a);
    for (int i = 0; i < 100; i++) {
      CHECK(lm_array_is_null(a, i) == isnull[i]);
      if (!isnull[i])
        CHECK_EQ_I64(lm_array_i64(a)[i], (int64_t)i * -1000000007LL);
      else
        CHECK_EQ_I64(lm_array_i64(a)[i], 0);
    }
    /* LSB-first: row 0 is bit 0 of byte 0 */
    CHECK_EQ_I64(a->validity->data[0] & 1, isnull[0] ? 0 : 1);
    CHECK_EQ_I64((a->validity->data[0] >> 7) & 1, isnull[7] ? 0 : 1);
    /* builder is reusable and empty, without validity */
    CHECK_EQ_I64(b.length, 0);
    CHECK_EQ_I64(b.null_count, 0);
    CHECK(b.validity == NULL);
    CHECK(b.type.id == LM_TYPE_INT64);
    lm_builder_append_int(&b, 5);
    lm_array *a2;
    CHECK_EQ_I64(lm_builder_finish(&b, &a2), 0);
    CHECK_EQ_I64(a2->length, 1);
    CHECK(a2->validity == NULL && a2->null_count == 0);
    CHECK_EQ_I64(lm_array_i64(a2)[0], 5);
    lm_array_release(a2);
    lm_array_release(a);
    lm_builder_free(&b);
  }
}

static void test_no_nulls_no_bitmap(void) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_FLOAT64), 0);
  for (int i = 0; i < 1000; i++)
    lm_builder_append_f64_fast(&b, i * 0.5);
  lm_builder_append_double(&b, -2.25);
  lm_array *a;
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK(a->validity == NULL && a->null_count == 0 && a->length == 1001);
  check_layout(a);
  CHECK(lm_array_f64(a)[999] == 499.5);
  CHECK(lm_array_f64(a)[1000] == -2.25);
  CHECK(lm_array_get_f64(a, 3) == 1.5);
  lm_array_release(a);
  lm_builder_free(&b);
}

static void test_all_null(void) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_INT32), 0);
  for (int i = 0; i < 13; i++)
    lm_builder_append_null(&b);
  lm_array *a;
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK_EQ_I64(a->null_count, 13);
  check_layout(a);
  for (int i = 0; i < 13; i++)
    CHECK(lm_array_is_null(a, i));
  lm_array *s = lm_array_slice(a, 5, 3);
  CHECK(s && s->null_count == 3 && lm_array_is_null(s, 0));
  lm_array_release(s);
  lm_array_release(a);
  lm_builder_free(&b);
}

static void test_narrowing(void) {
  struct {
    lm_type_id id;
  } cases[] = {{LM_TYPE_INT8},  {LM_TYPE_INT16},     {LM_TYPE_INT32},
               {LM_TYPE_INT64}, {LM_TYPE_TIMESTAMP}, {LM_TYPE_INTERVAL}};
  const int64_t vals[] = {0,         1,         -1,       127,   -128,
                          300,       32767,     -32768,   70000, INT32_MAX,
                          INT32_MIN, INT64_MAX, INT64_MIN};
  for (size_t c = 0; c < LM_ARRAY_LEN(cases); c++) {
    lm_type t = lm_type_make(cases[c].id);
    lm_builder b;
    lm_builder_init(&b, t, 1);
    for (size_t i = 0; i < LM_ARRAY_LEN(vals); i++)
      lm_builder_append_int(&b, vals[i]);
    lm_array *a;
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    check_layout(a);
    CHECK_EQ_I64(a->values->size,
                 LM_ARRAY_LEN(vals) * (size_t)lm_type_width(t));
    for (size_t i = 0; i < LM_ARRAY_LEN(vals); i++) {
      int64_t want;
      switch (cases[c].id) {
      case LM_TYPE_INT8:
        want = (int8_t)vals[i];
        CHECK_EQ_I64(lm_array_i8(a)[i], want);
        break;
      case LM_TYPE_INT16:
        want = (int16_t)vals[i];
        CHECK_EQ_I64(lm_array_i16(a)[i], want);
        break;
      case LM_TYPE_INT32:
        want = (int32_t)vals[i];
        CHECK_EQ_I64(lm_array_i32(a)[i], want);
        break;
      default:
        want = vals[i];
        CHECK_EQ_I64(lm_array_i64(a)[i], want);
        break;
      }
      CHECK_EQ_I64(lm_array_get_i64(a, (int64_t)i), want);
      lm_value v;
      lm_array_get_value(a, (int64_t)i, &v);
      CHECK(!v.is_null && v.v.i == want && v.type.id == cases[c].id);
    }
    lm_array_release(a);
    lm_builder_free(&b);
  }
}

static void test_utf8(void) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), 0);
  enum { N = 5000 };
  char buf[64];
  for (int i = 0; i < N; i++) {
    if (i % 7 == 3) {
      lm_builder_append_null(&b);
    } else if (i % 5 == 0) {
      lm_builder_append_str(&b, "", 0); /* empty, not NULL */
    } else {
      int n = snprintf(buf, sizeof buf, "value-%d-%s", i,
                       i % 3 ? "x" : "a much longer string to force growth");
      lm_builder_append_str_fast(&b, buf, n);
    }
  }
  lm_array *a;
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  check_layout(a);
  CHECK_EQ_I64(a->length, N);
  CHECK_EQ_I64(a->values->size, (N + 1) * 4);
  CHECK_EQ_I64(((const int32_t *)a->values->data)[0], 0);
  int nulls = 0;
  for (int i = 0; i < N; i++) {
    int32_t len;
    const char *p = lm_array_str(a, i, &len);
    if (i % 7 == 3) {
      nulls++;
      CHECK(lm_array_is_null(a, i));
      CHECK_EQ_I64(len, 0);
    } else if (i % 5 == 0) {
      CHECK(!lm_array_is_null(a, i));
      CHECK_EQ_I64(len, 0);
    } else {
      int n = snprintf(buf, sizeof buf, "value-%d-%s", i,
                       i % 3 ? "x" : "a much longer string to force growth");
      CHECK(len == n && memcmp(p, buf, (size_t)n) == 0);
    }
  }
  CHECK_EQ_I64(a->null_count, nulls);
  CHECK_EQ_I64(a->data->size, ((const int32_t *)a->values->data)[N]);

  /* slice at an odd offset, then append_from into a new builder */
  lm_array *s = lm_array_slice(a, 13, 29);
  CHECK(s != NULL);
  check_layout(s);
  int sn = 0;
  for (int i = 13; i < 42; i++)
    sn += i % 7 == 3;
  CHECK_EQ_I64(s->null_count, sn);
  lm_builder b2;
  lm_builder_init(&b2, lm_type_make(LM_TYPE_UTF8), 0);
  for (int64_t i = 0; i < s->length; i++)
    lm_builder_append_from(&b2, s, i);
  lm_array *c;
  CHECK_EQ_I64(lm_builder_finish(&b2, &c), 0);
  check_layout(c);
  CHECK_EQ_I64(c->null_count, sn);
  for (int64_t i = 0; i < s->length; i++) {
    int32_t l1, l2;
    const char *p1 = lm_array_str(s, i, &l1);
    const char *p2 = lm_array_str(c, i, &l2);
    CHECK(l1 == l2 && memcmp(p1, p2, (size_t)l1) == 0);
    CHECK(lm_array_is_null(s, i) == lm_array_is_null(c, i));
    lm_value v;
    lm_array_get_value(s, i, &v);
    CHECK(v.is_null == lm_array_is_null(s, i));
    if (!v.is_null)
      CHECK(v.v.s.len == l1 && v.v.s.p == p1);
  }
  lm_array_release(c);
  lm_array_release(s);
  lm_array_release(a);
  lm_builder_free(&b2);
  lm_builder_free(&b);
}

static void test_bool(void) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_BOOL), 3);
  const int n = 77;
  for (int i = 0; i < n; i++) {
    if (i == 10 || i == 64)
      lm_builder_append_null(&b);
    else
      lm_builder_append_bool(&b, (i % 3) == 0);
  }
  lm_array *a;
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  check_layout(a);
  CHECK_EQ_I64(a->values->size, (n + 7) / 8);
  CHECK_EQ_I64(a->null_count, 2);
  /* bit-packed LSB-first: rows 0,3,6 true -> byte 0 = 0b01001001 */
  CHECK_EQ_I64(a->values->data[0], 0x49);
  for (int i = 0; i < n; i++) {
    if (i == 10 || i == 64) {
      CHECK(lm_array_is_null(a, i));
      CHECK(!lm_array_bool(a, i));
    } else {
      CHECK(lm_array_bool(a, i) == ((i % 3) == 0));
      CHECK_EQ_I64(lm_array_get_i64(a, i), (i % 3) == 0);
    }
  }
  lm_array *s = lm_array_slice(a, 11, 53); /* rows 11..63: no nulls */
  CHECK(s && s->null_count == 0 && s->validity == NULL);
  for (int i = 0; i < 53; i++)
    CHECK(lm_array_bool(s, i) == (((i + 11) % 3) == 0));
  lm_array *s2 = lm_array_slice(s, 50, 3); /* slice of slice */
  CHECK(s2 && s2->offset == 61 && lm_array_bool(s2, 2) == (63 % 3 == 0));
  lm_array_release(s2);
  lm_array_release(s);
  lm_array_release(a);
  lm_builder_free(&b);
}

static void test_zero_rows(void) {
  for (int t = LM_TYPE_NULL; t < LM_TYPE__COUNT; t++) {
    lm_builder b;
    if (t == LM_TYPE_LARGE_UTF8 || t == LM_TYPE_LARGE_BINARY ||
        t == LM_TYPE_FIXED_SIZE_BINARY || t == LM_TYPE_TIME64 ||
        t == LM_TYPE_DECIMAL128 || lm_type_is_nested(lm_type_make(t))) {
      /* TIME64 and DECIMAL128 need a unit / precision */
      /* no builders (or no node): kernels build these directly */
      CHECK_EQ_I64(lm_builder_init(&b, lm_type_make((lm_type_id)t), 0),
                   LM_ERR_INVALID);
      continue;
    }
    CHECK_EQ_I64(lm_builder_init(&b, lm_type_make((lm_type_id)t), 0), 0);
    lm_array *a = NULL;
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    CHECK(a != NULL);
    CHECK_EQ_I64(a->length, 0);
    CHECK_EQ_I64(a->null_count, 0);
    check_layout(a);
    if (t == LM_TYPE_UTF8) {
      CHECK(a->values->size == 4 && ((const int32_t *)a->values->data)[0] == 0);
      CHECK(a->data != NULL && a->data->size == 0);
    }
    lm_array *s = lm_array_slice(a, 0, 0);
    CHECK(s && s->length == 0);
    lm_array_release(s);
    lm_array_release(a);
    /* also after the builder had data */
    lm_builder_init(&b, lm_type_make((lm_type_id)t), 16);
    lm_builder_append_null(&b);
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    CHECK_EQ_I64(a->null_count, 1);
    lm_array_release(a);
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    CHECK_EQ_I64(a->length, 0);
    check_layout(a);
    if (t == LM_TYPE_UTF8)
      CHECK(a->values->size == 4 && ((const int32_t *)a->values->data)[0] == 0);
    lm_array_release(a);
    lm_builder_free(&b);
  }
}

static void test_slices_random(void) {
  uint64_t seed = 0x1234567;
  for (int round = 0; round < 200; round++) {
    int n = (int)(lm_test_rand(&seed) % 300);
    int null_pct = (int)(lm_test_rand(&seed) % 101);
    lm_builder b;
    lm_builder_init(&b, lm_type_make(LM_TYPE_INT16), 0);
    int16_t ref[300];
    bool refnull[300];
    for (int i = 0; i < n; i++) {
      refnull[i] = (int)(lm_test_rand(&seed) % 100) < null_pct;
      ref[i] = (int16_t)lm_test_rand(&seed);
      if (refnull[i])
        lm_builder_append_null(&b);
      else
        lm_builder_append_int(&b, ref[i]);
    }
    lm_array *a;
    CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
    check_layout(a);
    for (int k = 0; k < 5; k++) {
      int off = n ? (int)(lm_test_rand(&seed) % (uint64_t)(n + 1)) : 0;
      int len = (int)(lm_test_rand(&seed) % (uint64_t)(n - off + 1));
      lm_array *s = lm_array_slice(a, off, len);
      CHECK(s != NULL);
      if (!s)
        continue;
      int want = 0;
      for (int i = off; i < off + len; i++)
        want += refnull[i];
      CHECK_EQ_I64(s->null_count, want);
      check_layout(s);
      for (int i = 0; i < len; i++) {
        CHECK(lm_array_is_null(s, i) == refnull[off + i]);
        if (!refnull[off + i])
          CHECK_EQ_I64(lm_array_i16(s)[i], ref[off + i]);
      }
      lm_array_release(s);
    }
    CHECK(lm_array_slice(a, 0, n + 1) == NULL);
    CHECK(lm_array_slice(a, -1, 1) == NULL);
    CHECK(lm_array_slice(a, n, 1) == NULL);
    lm_array_release(a);
    lm_builder_free(&b);
  }
}

static void test_new_null(void) {
  lm_array *a = lm_array_new_null(lm_type_make(LM_TYPE_UTF8), 10);
  CHECK(a && a->length == 10 && a->null_count == 10);
  check_layout(a);
  for (int i = 0; i < 10; i++) {
    int32_t len;
    lm_array_str(a, i, &len);
    CHECK(lm_array_is_null(a, i) && len == 0);
  }
  lm_array_release(a);
  a = lm_array_new_null(lm_type_make(LM_TYPE_INT64), 3);
  CHECK(a && lm_array_is_null(a, 2));
  check_layout(a);
  lm_array_release(a);
  a = lm_array_new_null(lm_type_make(LM_TYPE_NULL), 0);
  CHECK(a && a->length == 0);
  lm_array_release(a);
}

static void test_append_value(void) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_FLOAT64), 0);
  lm_value v = {.type = lm_type_make(LM_TYPE_INT32), .v.i = 7};
  lm_builder_append_value(&b, &v);
  v.type = lm_type_make(LM_TYPE_BOOL);
  v.v.b = true;
  lm_builder_append_value(&b, &v);
  v.is_null = true;
  lm_builder_append_value(&b, &v);
  v = (lm_value){.type = lm_type_make(LM_TYPE_FLOAT32), .v.f = 2.5};
  lm_builder_append_value(&b, &v);
  lm_array *a;
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK(lm_array_f64(a)[0] == 7.0 && lm_array_f64(a)[1] == 1.0);
  CHECK(lm_array_is_null(a, 2) && lm_array_f64(a)[3] == 2.5);
  lm_array_release(a);
  lm_builder_free(&b);

  lm_builder_init(&b, lm_type_make(LM_TYPE_INT8), 0);
  v = (lm_value){.type = lm_type_make(LM_TYPE_FLOAT64), .v.f = -3.9};
  lm_builder_append_value(&b, &v);
  v = (lm_value){.type = lm_type_make(LM_TYPE_INT64), .v.i = 100};
  lm_builder_append_value(&b, &v);
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK_EQ_I64(lm_array_i8(a)[0], -3);
  CHECK_EQ_I64(lm_array_i8(a)[1], 100);
  lm_array_release(a);
  lm_builder_free(&b);

  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), 0);
  v = (lm_value){.type = lm_type_make(LM_TYPE_INT64), .v.i = -42};
  lm_builder_append_value(&b, &v);
  v = (lm_value){.type = lm_type_make(LM_TYPE_UTF8), .v.s = {"abc", 3}};
  lm_builder_append_value(&b, &v);
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  int32_t len;
  const char *p = lm_array_str(a, 0, &len);
  CHECK(len == 3 && memcmp(p, "-42", 3) == 0);
  p = lm_array_str(a, 1, &len);
  CHECK(len == 3 && memcmp(p, "abc", 3) == 0);
  lm_array_release(a);
  lm_builder_free(&b);
}

static lm_schema *make_schema(void) {
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "name", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 2, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  return s;
}

static void test_batches(void) {
  lm_schema *s = make_schema();
  lm_batch_builder bb;
  CHECK_EQ_I64(lm_batch_builder_init(&bb, s, 8), 0);
  CHECK_EQ_I64(s->refcnt, 2); /* init retains */
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 21; i++) {
      lm_builder_append_int(&bb.cols[0], i);
      if (i % 4 == 1)
        lm_builder_append_null(&bb.cols[1]);
      else
        lm_builder_append_str(&bb.cols[1], "row", 3);
      lm_builder_append_i64_fast(&bb.cols[2], (int64_t)i * 1000000);
    }
    CHECK_EQ_I64(lm_batch_builder_rows(&bb), 21);
    lm_batch *batch = NULL;
    lm_error err;
    CHECK_EQ_I64(lm_batch_builder_finish(&bb, &batch, &err), 0);
    CHECK(batch && batch->num_rows == 21 && batch->num_columns == 3);
    CHECK(batch->schema == s);
    CHECK_EQ_I64(batch->columns[1]->null_count, 5); /* 1,5,9,13,17 */
    CHECK_EQ_I64(lm_batch_builder_rows(&bb), 0);
    lm_batch *sl = lm_batch_slice(batch, 5, 9);
    CHECK(sl && sl->num_rows == 9);
    CHECK_EQ_I64(lm_array_i64(sl->columns[0])[0], 5);
    CHECK_EQ_I64(sl->columns[1]->null_count, 3); /* rows 5, 9, 13 */
    CHECK(lm_batch_slice(batch, 20, 2) == NULL);
    lm_batch_retain(sl);
    lm_batch_release(sl);
    lm_batch_release(sl);
    lm_batch_release(batch);
  }
  /* mismatched lengths are reported and discarded */
  lm_builder_append_int(&bb.cols[0], 1);
  lm_batch *batch = NULL;
  lm_error err;
  CHECK_EQ_I64(lm_batch_builder_finish(&bb, &batch, &err), LM_ERR_INVALID);
  CHECK(batch == NULL);
  CHECK(strstr(err.msg, "length") != NULL);
  CHECK_EQ_I64(lm_batch_builder_rows(&bb), 0);
  lm_batch_builder_free(&bb);
  CHECK_EQ_I64(s->refcnt, 1);

  /* lm_batch_new takes the references */
  lm_array *cols[3];
  lm_builder b;
  lm_type types[3] = {lm_type_make(LM_TYPE_INT64), lm_type_make(LM_TYPE_UTF8),
                      lm_type_make(LM_TYPE_TIMESTAMP)};
  for (int i = 0; i < 3; i++) {
    lm_builder_init(&b, types[i], 0);
    lm_builder_append_null(&b);
    lm_builder_finish(&b, &cols[i]);
    lm_builder_free(&b);
  }
  batch = lm_batch_new(s, 1, cols);
  CHECK(batch && batch->columns[2] == cols[2] && cols[2]->refcnt == 1);
  lm_batch_release(batch); /* frees schema and columns */

  lm_schema *e = lm_schema_new(0);
  batch = lm_batch_new(e, 0, NULL);
  CHECK(batch && batch->num_columns == 0);
  lm_batch_release(batch);
}

static const char *fmt_f64(lm_buf *out, double d) {
  lm_buf_reset(out);
  lm_value v = {.type = lm_type_make(LM_TYPE_FLOAT64), .v.f = d};
  CHECK_EQ_I64(lm_value_format(out, &v, "NULL"), 0);
  return out->data;
}

static void test_format(void) {
  lm_buf out;
  lm_buf_init(&out);
  CHECK_EQ_STR(fmt_f64(&out, 189.7), "189.7");
  CHECK_EQ_STR(fmt_f64(&out, 0.1 + 0.2), "0.30000000000000004");
  CHECK_EQ_STR(fmt_f64(&out, 1e300), "1e+300");
  CHECK_EQ_STR(fmt_f64(&out, 0.1), "0.1");
  CHECK_EQ_STR(fmt_f64(&out, 100), "100");
  CHECK_EQ_STR(fmt_f64(&out, -2.5), "-2.5");
  CHECK_EQ_STR(fmt_f64(&out, 1.0 / 3), "0.3333333333333333");
  /* the smallest subnormal: shortest round-trip text is "5e-324" (as
   * JavaScript, Python and DuckDB print it) */
  CHECK_EQ_STR(fmt_f64(&out, 5e-324), "5e-324");
  CHECK_EQ_STR(fmt_f64(&out, 2.2250738585072e-308), "2.2250738585072e-308");
  CHECK_EQ_STR(fmt_f64(&out, NAN), "NaN");
  CHECK_EQ_STR(fmt_f64(&out, INFINITY), "Infinity");
  CHECK_EQ_STR(fmt_f64(&out, -INFINITY), "-Infinity");
  CHECK_EQ_STR(fmt_f64(&out, -0.0), "-0");
  /* round trip over random doubles */
  uint64_t seed = 99;
  for (int i = 0; i < 20000; i++) {
    uint64_t bits = lm_test_rand(&seed);
    double d;
    memcpy(&d, &bits, 8);
    if (!isfinite(d))
      continue;
    const char *s = fmt_f64(&out, d);
    CHECK(strtod(s, NULL) == d);
  }

  lm_value v = {.type = lm_type_make(LM_TYPE_FLOAT32), .v.f = 0.1f};
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "0.1");

  v = (lm_value){.type = lm_type_make(LM_TYPE_INT64), .v.i = INT64_MIN};
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "-9223372036854775808");
  v.v.i = 0;
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "0");

  v = (lm_value){.type = lm_type_make(LM_TYPE_BOOL), .v.b = true};
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "true");
  v.v.b = false;
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "false");

  v = (lm_value){.type = lm_type_make(LM_TYPE_TIMESTAMP),
                 .v.i = 978307260000000}; /* 2001-01-01T00:01:00Z */
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "2001-01-01T00:01:00");
  v.v.i = -1;
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "1969-12-31T23:59:59.999999");
  v.type.unit = LM_UNIT_MILLI;
  v.v.i = 1500;
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "1970-01-01T00:00:01.500000");

  struct {
    int64_t us;
    const char *want;
  } iv[] = {{0, "00:00:00"},
            {5 * LM_US_PER_SEC, "00:00:05"},
            {90 * LM_US_PER_MIN, "01:30:00"},
            {LM_US_PER_DAY, "1 day"},
            {2 * LM_US_PER_DAY + LM_US_PER_HOUR, "2 days 01:00:00"},
            {-LM_US_PER_HOUR, "-01:00:00"},
            {-LM_US_PER_DAY - LM_US_PER_HOUR, "-1 days -01:00:00"},
            {1500, "00:00:00.0015"}}; /* PostgreSQL: no trailing zeros */
  for (size_t i = 0; i < LM_ARRAY_LEN(iv); i++) {
    v = (lm_value){.type = lm_type_make(LM_TYPE_INTERVAL), .v.i = iv[i].us};
    lm_buf_reset(&out);
    lm_value_format(&out, &v, NULL);
    CHECK_EQ_STR(out.data, iv[i].want);
  }

  v = (lm_value){.type = lm_type_make(LM_TYPE_UTF8), .v.s = {"a\0b", 3}};
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK(out.len == 3 && memcmp(out.data, "a\0b", 3) == 0);

  v.is_null = true;
  lm_buf_reset(&out);
  lm_value_format(&out, &v, "\\N");
  CHECK_EQ_STR(out.data, "\\N");
  lm_buf_reset(&out);
  lm_value_format(&out, &v, NULL);
  CHECK_EQ_STR(out.data, "");

  /* from arrays, including a slice */
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_INT32), 0);
  for (int i = 0; i < 20; i++) {
    if (i == 11)
      lm_builder_append_null(&b);
    else
      lm_builder_append_int(&b, i * 10);
  }
  lm_array *a;
  lm_builder_finish(&b, &a);
  lm_array *s = lm_array_slice(a, 9, 5);
  lm_buf_reset(&out);
  for (int64_t i = 0; i < s->length; i++) {
    if (i)
      lm_buf_putc(&out, ',');
    lm_array_format_value(&out, s, i, "NULL");
  }
  CHECK_EQ_STR(out.data, "90,100,NULL,120,130");
  lm_array_release(s);
  lm_array_release(a);
  lm_builder_free(&b);
  lm_buf_free(&out);
}

/* ------------------------------------------- the other Arrow types */

#include "exec/lm_exec.h"

/* Text of row i (NULL -> "null"). */
static const char *txt(const lm_array *a, int64_t i) {
  static char out[512];
  lm_buf b;
  lm_buf_init(&b);
  lm_array_format_value(&b, a, i, "null");
  snprintf(out, sizeof out, "%.*s", (int)b.len, b.data ? b.data : "");
  lm_buf_free(&b);
  return out;
}

static lm_array *build_ints(lm_type t, const int64_t *v, int n) {
  lm_builder b;
  lm_builder_init(&b, t, n);
  for (int i = 0; i < n; i++) {
    if (v[i] == INT64_MIN)
      lm_builder_append_null(&b);
    else
      lm_builder_append_int(&b, v[i]);
  }
  lm_array *a = NULL;
  lm_builder_finish(&b, &a);
  lm_builder_free(&b);
  return a;
}

static lm_array *build_strs(lm_type t, const char *const *v, int n) {
  lm_builder b;
  lm_builder_init(&b, t, n);
  for (int i = 0; i < n; i++) {
    if (!v[i])
      lm_builder_append_null(&b);
    else
      lm_builder_append_str(&b, v[i], (int32_t)strlen(v[i]));
  }
  lm_array *a = NULL;
  lm_builder_finish(&b, &a);
  lm_builder_free(&b);
  return a;
}

/* LIST<item> over items with n rows of offsets; valid[i] false = NULL. */
static lm_array *build_list(lm_array *items, const int32_t *offs, int n,
                            const bool *valid) {
  lm_type_field f = {"item", items->type, true, NULL};
  lm_type t;
  CHECK_EQ_I64(lm_type_list(LM_TYPE_LIST, &f, &t), 0);
  lm_buffer *o = lm_buffer_new((size_t)(n + 1) * 4);
  memcpy(o->data, offs, (size_t)(n + 1) * 4);
  lm_buffer *vb = NULL;
  int64_t nulls = 0;
  if (valid) {
    vb = lm_buffer_new((size_t)(n + 7) / 8);
    for (int i = 0; i < n; i++) {
      if (valid[i])
        lm_bit_set(vb->data, i);
      else
        nulls++;
    }
  }
  return lm_array_new(t, n, nulls, 0, vb, o, NULL, 1, &items, NULL);
}

static void test_flat_arrow_types(void) {
  /* unsigned, date, time, duration: builders and text */
  int64_t u[] = {0, 255, INT64_MIN, 7};
  lm_array *a = build_ints(lm_type_make(LM_TYPE_UINT8), u, 4);
  CHECK_EQ_STR(txt(a, 1), "255");
  CHECK_EQ_STR(txt(a, 2), "null");
  lm_array_release(a);
  int64_t u64[] = {-1, 1};
  a = build_ints(lm_type_make(LM_TYPE_UINT64), u64, 2);
  CHECK_EQ_STR(txt(a, 0), "18446744073709551615");
  lm_array_release(a);
  int64_t days[] = {0, -1, 11016};
  a = build_ints(lm_type_make(LM_TYPE_DATE32), days, 3);
  CHECK_EQ_STR(txt(a, 0), "1970-01-01");
  CHECK_EQ_STR(txt(a, 1), "1969-12-31");
  CHECK_EQ_STR(txt(a, 2), "2000-02-29");
  lm_array_release(a);
  int64_t t64[] = {45296789012345, 3600000000000, 1000};
  a = build_ints(lm_type_unit(LM_TYPE_TIME64, LM_UNIT_NANO), t64, 3);
  CHECK_EQ_STR(txt(a, 0), "12:34:56.789012345");
  CHECK_EQ_STR(txt(a, 1), "01:00:00");
  CHECK_EQ_STR(txt(a, 2), "00:00:00.000001");
  lm_array_release(a);
  int64_t dur[] = {90061, -1, 0};
  a = build_ints(lm_type_unit(LM_TYPE_DURATION, LM_UNIT_SECOND), dur, 3);
  CHECK_EQ_STR(txt(a, 0), "1 day 01:01:01");
  CHECK_EQ_STR(txt(a, 1), "-00:00:01");
  CHECK_EQ_STR(txt(a, 2), "00:00:00");
  lm_array_release(a);
  /* Float16 */
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_FLOAT16), 4);
  lm_builder_append_double(&b, 0.1);
  lm_builder_append_double(&b, -65504);
  lm_builder_append_double(&b, 1.0 / 0.0);
  lm_builder_finish(&b, &a);
  lm_builder_free(&b);
  CHECK_EQ_STR(txt(a, 0), "0.1");
  CHECK_EQ_STR(txt(a, 1), "-65504");
  CHECK_EQ_STR(txt(a, 2), "Infinity");
  CHECK(fabs(lm_array_get_f64(a, 0) - 0.0999755859375) < 1e-12);
  lm_array_release(a);
  /* Decimal128: exact text, negative, tiny, negative scale */
  lm_buffer *dv = lm_buffer_new(4 * 16);
  int64_t w[8] = {12345, 0, -5, -1, 1, 0, 7, 0};
  memcpy(dv->data, w, sizeof w);
  a = lm_array_new(lm_type_decimal128(10, 2), 4, 0, 0, NULL, dv, NULL, 0, NULL,
                   NULL);
  CHECK_EQ_STR(txt(a, 0), "123.45");
  CHECK_EQ_STR(txt(a, 1), "-0.05");
  CHECK_EQ_STR(txt(a, 2), "0.01");
  CHECK_EQ_I64(lm_array_validate(a, 8, NULL), 0);
  lm_array *neg = lm_array_new(lm_type_decimal128(5, -3), 4, 0, 0, NULL,
                               lm_buffer_retain(dv), NULL, 0, NULL, NULL);
  CHECK_EQ_STR(txt(neg, 0), "12345000");
  lm_array_release(neg);
  lm_array_release(a);
  /* INTERVAL_MDN */
  lm_buffer *mv = lm_buffer_new(2 * 16);
  int32_t m0[2] = {14, 3};
  int64_t ns0 = INT64_C(3723000000001);
  memcpy(mv->data, m0, 8);
  memcpy(mv->data + 8, &ns0, 8);
  a = lm_array_new(lm_type_make(LM_TYPE_INTERVAL_MDN), 2, 0, 0, NULL, mv, NULL,
                   0, NULL, NULL);
  CHECK_EQ_STR(txt(a, 0), "1 year 2 mons 3 days 01:02:03.000000001");
  CHECK_EQ_STR(txt(a, 1), "00:00:00");
  lm_array_release(a);
  /* binary and fixed-size binary as bytea hex */
  const char *bins[] = {"\x01\x02", "", NULL, "\xff"};
  a = build_strs(lm_type_make(LM_TYPE_BINARY), bins, 4);
  CHECK_EQ_STR(txt(a, 0), "\\x0102");
  CHECK_EQ_STR(txt(a, 1), "\\x");
  CHECK_EQ_STR(txt(a, 3), "\\xff");
  int32_t pick[] = {3, -1, 0};
  lm_array *t = lm_array_take_nullable(a, pick, 3);
  CHECK(t && t->null_count == 1);
  CHECK_EQ_STR(txt(t, 0), "\\xff");
  CHECK_EQ_STR(txt(t, 2), "\\x0102");
  lm_array_release(t);
  lm_array_release(a);
  lm_type fsb;
  CHECK_EQ_I64(lm_type_fixed_size_binary(3, &fsb), 0);
  lm_type fsb2;
  lm_type_fixed_size_binary(3, &fsb2);
  CHECK(lm_type_eq(fsb, fsb2)); /* interned */
  CHECK_EQ_I64(lm_type_width(fsb), 3);
  lm_buffer *fv = lm_buffer_new(9);
  memcpy(fv->data, "abcdefghi", 9);
  a = lm_array_new(fsb, 3, 0, 0, NULL, fv, NULL, 0, NULL, NULL);
  lm_array *sl = lm_array_slice(a, 1, 2);
  CHECK_EQ_STR(txt(sl, 0), "\\x646566");
  lm_array *parts[2] = {a, sl};
  lm_array *cat = lm_array_concat(parts, 2, NULL);
  CHECK(cat && cat->length == 5);
  CHECK_EQ_STR(txt(cat, 4), "\\x676869");
  lm_array_release(cat);
  lm_array_release(sl);
  /* too short a values buffer is caught */
  a->length = 4;
  lm_error err = {0};
  CHECK_EQ_I64(lm_array_validate(a, 8, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "values buffer of 9 bytes is too short") != NULL);
  a->length = 3;
  lm_array_release(a);
}

static void test_nested_arrow_types(void) {
  /* LIST<INT32>: [[1, 2], NULL, [], [3, NULL]] */
  int64_t iv[] = {1, 2, 3, INT64_MIN};
  lm_array *items = build_ints(lm_type_make(LM_TYPE_INT32), iv, 4);
  int32_t offs[] = {0, 2, 2, 2, 4};
  bool valid[] = {true, false, true, true};
  lm_array *l = build_list(items, offs, 4, valid);
  CHECK(l != NULL);
  CHECK_EQ_I64(lm_array_validate(l, 8, NULL), 0);
  CHECK_EQ_STR(txt(l, 0), "{1,2}");
  CHECK_EQ_STR(txt(l, 1), "null");
  CHECK_EQ_STR(txt(l, 2), "{}");
  CHECK_EQ_STR(txt(l, 3), "{3,NULL}");
  lm_buf tn;
  lm_buf_init(&tn);
  lm_type_format(&tn, l->type);
  CHECK(tn.len == 13 && !memcmp(tn.data, "LIST<INTEGER>", 13));
  lm_buf_free(&tn);
  /* slice, take (rebuilt offsets), concat */
  lm_array *s = lm_array_slice(l, 1, 3);
  CHECK_EQ_STR(txt(s, 2), "{3,NULL}");
  int32_t idx[] = {3, 0, -1, 0};
  lm_array *t = lm_array_take_nullable(l, idx, 4);
  CHECK(t && t->children[0]->length == 6);
  CHECK_EQ_STR(txt(t, 0), "{3,NULL}");
  CHECK_EQ_STR(txt(t, 1), "{1,2}");
  CHECK_EQ_STR(txt(t, 2), "null");
  CHECK_EQ_I64(lm_array_validate(t, 8, NULL), 0);
  lm_array *parts[2] = {s, t};
  lm_array *cat = lm_array_concat(parts, 2, NULL);
  CHECK(cat && cat->length == 7);
  CHECK_EQ_STR(txt(cat, 2), "{3,NULL}");
  CHECK_EQ_STR(txt(cat, 4), "{1,2}");
  CHECK_EQ_I64(lm_array_validate(cat, 8, NULL), 0);
  lm_array_release(cat);
  lm_array_release(t);

  /* STRUCT<a INT64, l LIST<INTEGER>>, sliced: children keep their rows */
  int64_t av[] = {10, INT64_MIN, 30, 40};
  lm_array *ac = build_ints(lm_type_make(LM_TYPE_INT64), av, 4);
  lm_type_field sf[2] = {{"a", ac->type, true, NULL},
                         {"l", l->type, true, NULL}};
  lm_type st;
  CHECK_EQ_I64(lm_type_struct(2, sf, &st), 0);
  lm_array *kids[2] = {ac, lm_array_retain(l)};
  lm_buffer *sv = lm_buffer_new(1);
  sv->data[0] = 0x0D; /* row 1 NULL */
  lm_array *sa = lm_array_new(st, 4, 1, 0, sv, NULL, NULL, 2, kids, NULL);
  CHECK_EQ_I64(lm_array_validate(sa, 8, NULL), 0);
  CHECK_EQ_STR(txt(sa, 0), "{\"a\": 10, \"l\": [1, 2]}");
  CHECK_EQ_STR(txt(sa, 1), "null");
  lm_array *ss = lm_array_slice(sa, 2, 2);
  CHECK_EQ_STR(txt(ss, 1), "{\"a\": 40, \"l\": [3, null]}");
  int32_t sidx[] = {1, 0};
  lm_array *stake = lm_array_take_nullable(ss, sidx, 2);
  CHECK_EQ_STR(txt(stake, 0), "{\"a\": 40, \"l\": [3, null]}");
  CHECK_EQ_STR(txt(stake, 1), "{\"a\": 30, \"l\": []}");
  lm_array_release(stake);
  /* row equality, nested: take repeats rows of the slice (children keep
   * their rows): {0: row 3, 1: row 2, 2: row 3, 3: NULL, 4: NULL} */
  int32_t eidx[] = {1, 0, 1, -1, -1};
  lm_array *se = lm_array_take_nullable(ss, eidx, 5);
  CHECK(lm_array_row_equal(se, 0, 2) && lm_array_row_equal(se, 3, 4));
  CHECK(!lm_array_row_equal(se, 0, 1) && !lm_array_row_equal(se, 0, 3));
  lm_array_release(se);
  /* LIST: [1, 2] twice, [] and NULL differ, [3, NULL] equals itself */
  int32_t lidx[] = {0, 3, 0, -1, 2, 1};
  lm_array *le = lm_array_take_nullable(l, lidx, 6);
  CHECK(lm_array_row_equal(le, 0, 2) && lm_array_row_equal(le, 3, 5));
  CHECK(!lm_array_row_equal(le, 0, 1) && !lm_array_row_equal(le, 4, 5));
  CHECK(!lm_array_row_equal(le, 4, 0) && lm_array_row_equal(le, 1, 1));
  lm_array_release(le);
  /* NULL arrays of nested types are complete */
  lm_array *nn = lm_array_new_null(st, 3);
  CHECK(nn && nn->n_children == 2 && nn->children[1]->n_children == 1);
  CHECK_EQ_I64(lm_array_validate(nn, 8, NULL), 0);
  CHECK_EQ_STR(txt(nn, 2), "null");
  lm_array_release(nn);
  /* a struct child shorter than the struct; too deep */
  lm_error err = {0};
  sa->length = 5;
  CHECK_EQ_I64(lm_array_validate(sa, 8, &err), LM_ERR_INVALID);
  sa->length = 4;
  CHECK_EQ_I64(lm_array_validate(sa, 2, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "deeper than the limit of 2") != NULL);
  lm_array_release(ss);
  lm_array_release(sa);

  /* bad list offsets: past the items, decreasing */
  ((int32_t *)(void *)l->values->data)[4] = 5;
  CHECK_EQ_I64(lm_array_validate(l, 8, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "past the items") != NULL);
  ((int32_t *)(void *)l->values->data)[4] = 1;
  CHECK_EQ_I64(lm_array_validate(l, 8, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "below the previous one") != NULL);
  ((int32_t *)(void *)l->values->data)[4] = 4;
  lm_array_release(s);
  lm_array_release(l);
}

static void test_dictionary_arrays(void) {
  const char *words[] = {"apple", "banana", ""};
  lm_array *dict = build_strs(lm_type_make(LM_TYPE_UTF8), words, 3);
  lm_type dt;
  CHECK_EQ_I64(lm_type_dictionary(LM_TYPE_UINT8, dict->type, false, &dt), 0);
  CHECK_EQ_I64(lm_type_dictionary(LM_TYPE_UTF8, dict->type, false, &dt),
               LM_ERR_INVALID);
  lm_type_dictionary(LM_TYPE_UINT8, dict->type, false, &dt);
  lm_buffer *ix = lm_buffer_new(5);
  uint8_t iv[5] = {1, 0, 9, 2, 1};
  memcpy(ix->data, iv, 5);
  lm_buffer *vb = lm_buffer_new(1);
  vb->data[0] = 0x1B; /* row 2 NULL (its index 9 is not checked) */
  lm_array *a =
      lm_array_new(dt, 5, 1, 0, vb, ix, NULL, 0, NULL, lm_array_retain(dict));
  CHECK_EQ_I64(lm_array_validate(a, 8, NULL), 0);
  CHECK_EQ_STR(txt(a, 0), "banana");
  CHECK_EQ_STR(txt(a, 2), "null");
  lm_value v;
  lm_array_get_value(a, 3, &v);
  CHECK(v.type.id == LM_TYPE_UTF8 && !v.is_null && v.v.s.len == 0);
  /* take shares the dictionary */
  int32_t idx[] = {4, 2};
  lm_array *t = lm_array_take_nullable(a, idx, 2);
  CHECK(t && t->dictionary == dict && t->null_count == 1);
  CHECK_EQ_STR(txt(t, 0), "banana");
  /* decode */
  lm_array *d = lm_array_dictionary_decode(a);
  CHECK(d && d->type.id == LM_TYPE_UTF8 && d->null_count == 1);
  CHECK_EQ_STR(txt(d, 4), "banana");
  lm_array_release(d);
  /* concat with another dictionary: unified, indices rebased */
  const char *w2[] = {"cherry"};
  lm_array *dict2 = build_strs(lm_type_make(LM_TYPE_UTF8), w2, 1);
  lm_buffer *ix2 = lm_buffer_new(2);
  ix2->data[0] = 0;
  ix2->data[1] = 0;
  lm_array *b = lm_array_new(dt, 2, 0, 0, NULL, ix2, NULL, 0, NULL, dict2);
  lm_array *parts[3] = {a, t, b};
  lm_array *cat = lm_array_concat(parts, 3, NULL);
  CHECK(cat && cat->length == 9 && cat->dictionary->length == 4);
  CHECK_EQ_I64(lm_array_validate(cat, 8, NULL), 0);
  CHECK_EQ_STR(txt(cat, 5), "banana");
  CHECK_EQ_STR(txt(cat, 8), "cherry");
  lm_array_release(cat);
  /* an index out of range is caught */
  vb->data[0] = 0x1F;
  a->null_count = 0;
  lm_error err = {0};
  CHECK_EQ_I64(lm_array_validate(a, 8, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "dictionary index 9 at row 2") != NULL);
  lm_array_release(b);
  lm_array_release(t);
  lm_array_release(a);
  lm_array_release(dict);

  /* the kernels: filter and concat over a batch of nested columns */
  int64_t iv2[] = {1, 2, 3};
  lm_array *items = build_ints(lm_type_make(LM_TYPE_INT16), iv2, 3);
  int32_t offs[] = {0, 1, 3, 3};
  lm_array *l = build_list(items, offs, 3, NULL);
  lm_schema *sch = lm_schema_new(1);
  lm_schema_set_field(sch, 0, "l", l->type, true);
  lm_batch *bt = lm_batch_new(lm_schema_retain(sch), 3, &l);
  lm_builder pb;
  lm_builder_init(&pb, lm_type_make(LM_TYPE_BOOL), 3);
  lm_builder_append_bool(&pb, false);
  lm_builder_append_bool(&pb, true);
  lm_builder_append_bool(&pb, true);
  lm_array *pred;
  lm_builder_finish(&pb, &pred);
  lm_builder_free(&pb);
  lm_batch *f = lm_batch_filter(bt, pred);
  CHECK(f && f->num_rows == 2);
  CHECK_EQ_STR(txt(f->columns[0], 0), "{2,3}");
  lm_batch *two[2] = {bt, f};
  lm_batch *c = NULL;
  CHECK_EQ_I64(lm_batch_concat(sch, two, 2, &c, NULL), 0);
  CHECK(c && c->num_rows == 5);
  CHECK_EQ_STR(txt(c->columns[0], 3), "{2,3}");
  CHECK_EQ_STR(txt(c->columns[0], 4), "{}");
  lm_batch_release(c);
  lm_batch_release(f);
  lm_array_release(pred);
  lm_batch_release(bt);
  lm_schema_release(sch);
}

/* lm_array_row_equal over flat types, sliced at an odd offset. */
static void test_row_equal(void) {
  int64_t iv[] = {9, 5, INT64_MIN, 5, 7, INT64_MIN};
  lm_array *a = build_ints(lm_type_make(LM_TYPE_INT64), iv, 6);
  lm_array *s = lm_array_slice(a, 1, 5); /* 5, NULL, 5, 7, NULL */
  CHECK(lm_array_row_equal(s, 0, 2) && lm_array_row_equal(s, 1, 4));
  CHECK(!lm_array_row_equal(s, 0, 1) && !lm_array_row_equal(s, 0, 3));
  lm_array_release(s);
  lm_array_release(a);
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), 0);
  lm_builder_append_str(&b, "x", 1);
  lm_builder_append_str(&b, "ab", 2);
  lm_builder_append_str(&b, "", 0);
  lm_builder_append_null(&b);
  lm_builder_append_str(&b, "ab", 2);
  lm_builder_append_str(&b, "", 0);
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  s = lm_array_slice(a, 1, 5); /* "ab", "", NULL, "ab", "" */
  CHECK(lm_array_row_equal(s, 0, 3) && lm_array_row_equal(s, 1, 4));
  CHECK(!lm_array_row_equal(s, 1, 2) && !lm_array_row_equal(s, 0, 1));
  lm_array_release(s);
  lm_array_release(a);
  /* doubles by bit pattern: NaN = NaN, 0.0 <> -0.0 */
  lm_builder_init(&b, lm_type_make(LM_TYPE_FLOAT64), 0);
  double dv[] = {NAN, NAN, 0.0, -0.0, 1.5, 1.5};
  for (int i = 0; i < 6; i++)
    lm_builder_append_double(&b, dv[i]);
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK(lm_array_row_equal(a, 0, 1) && lm_array_row_equal(a, 4, 5));
  CHECK(!lm_array_row_equal(a, 2, 3) && !lm_array_row_equal(a, 1, 4));
  lm_array_release(a);
  /* BOOL bits */
  lm_builder_init(&b, lm_type_make(LM_TYPE_BOOL), 0);
  lm_builder_append_bool(&b, true);
  lm_builder_append_bool(&b, false);
  lm_builder_append_bool(&b, true);
  CHECK_EQ_I64(lm_builder_finish(&b, &a), 0);
  CHECK(lm_array_row_equal(a, 0, 2) && !lm_array_row_equal(a, 0, 1));
  lm_array_release(a);
}

int main(void) {
  test_types();
  test_schema();
  test_buffers();
  test_int64_nulls();
  test_no_nulls_no_bitmap();
  test_all_null();
  test_narrowing();
  test_utf8();
  test_bool();
  test_zero_rows();
  test_slices_random();
  test_new_null();
  test_append_value();
  test_batches();
  test_format();
  test_flat_arrow_types();
  test_nested_arrow_types();
  test_dictionary_arrays();
  test_row_equal();
  return lm_test_done("test_columnar");
}
