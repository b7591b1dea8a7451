/* Unit tests for columnar/: types, schemas, buffers, builders (NULLs at
 * various positions, narrowing, UTF8 incl. empty strings, BOOL bits, reuse
 * after finish, 0-row arrays), slices at non-multiple-of-8 offsets, batches,
 * batch builders and the text form of values. */
#include "columnar/lm_columnar.h"
#include "columnar/lm_temporal.h"
#include "lm_test.h"

#include <math.h>
#include <stdlib.h>

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
            {1500, "00:00:00.001500"}};
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
  return lm_test_done("test_columnar");
}
