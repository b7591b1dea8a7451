/*
 * test_conform.c — Arrow-only types into declared SQL columns
 * (src/columnar/lm_conform.h): every type x every SQL type either converts
 * or is refused cleanly (all-NULL and valued arrays, run under ASan too);
 * values of the conversions; laminar_push_arrow of a dictionary column into
 * a VARCHAR source.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_cdata.h"
#include "columnar/lm_conform.h"
#include "laminar.h"
#include "lm_test.h"

static lm_array *fixed(lm_type t, int64_t n, const void *vals, size_t w) {
  lm_buffer *v = lm_buffer_new((size_t)n * w);
  memcpy(v->data, vals, (size_t)n * w);
  return lm_array_new(t, n, 0, 0, NULL, v, NULL, 0, NULL, NULL);
}

static lm_array *strings(lm_type t, const char *const *s, int n) {
  bool large = t.id == LM_TYPE_LARGE_UTF8 || t.id == LM_TYPE_LARGE_BINARY;
  lm_buffer *off = lm_buffer_new((size_t)(n + 1) * (large ? 8 : 4));
  size_t total = 0;
  for (int i = 0; i < n; i++)
    total += strlen(s[i]);
  lm_buffer *data = lm_buffer_new(total ? total : 1);
  size_t pos = 0;
  for (int i = 0; i <= n; i++) {
    if (large)
      ((int64_t *)off->data)[i] = (int64_t)pos;
    else
      ((int32_t *)off->data)[i] = (int32_t)pos;
    if (i < n) {
      memcpy(data->data + pos, s[i], strlen(s[i]));
      pos += strlen(s[i]);
    }
  }
  return lm_array_new(t, n, 0, 0, NULL, off, data, 0, NULL, NULL);
}

static char *text(const lm_array *a) {
  lm_buf o;
  lm_buf_init(&o);
  for (int64_t i = 0; i < a->length; i++) {
    lm_array_format_value(&o, a, i, "NULL");
    lm_buf_putc(&o, '|');
  }
  lm_buf_putc(&o, 0);
  return o.data;
}

/* conforms a to t and checks the text form (or the error code) */
static void expect(lm_array *a, lm_type t, int rc_want, const char *want) {
  lm_error err;
  memset(&err, 0, sizeof err);
  lm_array *out = NULL;
  int rc = lm_conform_array(a, t, "c", &out, &err);
  CHECK_EQ_I64(rc, rc_want);
  if (rc == 0 && out) {
    CHECK(lm_type_eq(out->type, t));
    char *s = text(out);
    if (want)
      CHECK_EQ_STR(s, want);
    free(s);
  } else if (want) {
    CHECK(strstr(err.msg, want) != NULL);
  }
  lm_array_release(out);
}

static void test_matrix(void) {
  static const lm_type_id sql[] = {
      LM_TYPE_BOOL,      LM_TYPE_INT8,    LM_TYPE_INT16,   LM_TYPE_INT32,
      LM_TYPE_INT64,     LM_TYPE_FLOAT32, LM_TYPE_FLOAT64, LM_TYPE_UTF8,
      LM_TYPE_TIMESTAMP, LM_TYPE_INTERVAL};
  lm_type types[LM_TYPE__COUNT + 4];
  int nt = 0;
  for (int id = 0; id < LM_TYPE__COUNT; id++) {
    lm_type t = lm_type_make((lm_type_id)id);
    if (id == LM_TYPE_DECIMAL128)
      t = lm_type_decimal128(10, 2);
    else if (id == LM_TYPE_TIME32)
      t = lm_type_unit(LM_TYPE_TIME32, LM_UNIT_MILLI);
    else if (id == LM_TYPE_TIME64 || id == LM_TYPE_DURATION)
      t = lm_type_unit((lm_type_id)id, LM_UNIT_NANO);
    else if (id == LM_TYPE_FIXED_SIZE_BINARY)
      CHECK(lm_type_fixed_size_binary(3, &t) == 0);
    else if (id == LM_TYPE_LIST || id == LM_TYPE_LARGE_LIST) {
      lm_type_field it = {"item", lm_type_make(LM_TYPE_INT32), true, NULL};
      CHECK(lm_type_list((lm_type_id)id, &it, &t) == 0);
    } else if (id == LM_TYPE_STRUCT) {
      lm_type_field f[2] = {{"a", lm_type_make(LM_TYPE_INT64), true, NULL},
                            {"b", lm_type_make(LM_TYPE_UTF8), true, NULL}};
      CHECK(lm_type_struct(2, f, &t) == 0);
    } else if (id == LM_TYPE_DICTIONARY)
      CHECK(lm_type_dictionary(LM_TYPE_INT8, lm_type_make(LM_TYPE_UTF8), false,
                               &t) == 0);
    types[nt++] = t;
  }
  lm_type dvt;
  CHECK(lm_type_dictionary(LM_TYPE_UINT32, lm_type_decimal128(5, 1), false,
                           &dvt) == 0);
  types[nt++] = dvt;
  for (int i = 0; i < nt; i++) {
    CHECK(lm_type_valid(types[i]));
    lm_array *a = lm_array_new_null(types[i], 3);
    CHECK(a != NULL);
    for (size_t k = 0; a && k < LM_ARRAY_LEN(sql); k++) {
      lm_type to = lm_type_make(sql[k]);
      lm_error err;
      memset(&err, 0, sizeof err);
      lm_array *out = NULL;
      int rc = lm_conform_array(a, to, "c", &out, &err);
      if (lm_conform_possible(types[i], to)) {
        CHECK_EQ_I64(rc, 0);
        CHECK(out && out->length == 3 && out->null_count == 3 &&
              lm_type_eq(out->type, to));
      } else {
        CHECK_EQ_I64(rc, LM_ERR_BIND);
        CHECK(out == NULL && err.code == 0);
      }
      lm_array_release(out);
    }
    lm_array_release(a);
  }
}

static void test_values(void) {
  lm_type big = lm_type_make(LM_TYPE_INT64), i8 = lm_type_make(LM_TYPE_INT8),
          f64 = lm_type_make(LM_TYPE_FLOAT64), s = lm_type_make(LM_TYPE_UTF8),
          ts = lm_type_make(LM_TYPE_TIMESTAMP),
          iv = lm_type_make(LM_TYPE_INTERVAL);
  uint64_t u64[3] = {0, 9223372036854775807ull, 9223372036854775808ull};
  lm_array *a = fixed(lm_type_make(LM_TYPE_UINT64), 3, u64, 8);
  expect(a, big, LM_ERR_EXEC,
         "c: value 9223372036854775808 is out of range for BIGINT");
  expect(a, f64, 0, "0|9.223372036854776e+18|9.223372036854776e+18|");
  expect(a, s, 0, "0|9223372036854775807|9223372036854775808|");
  lm_array_release(a);
  uint8_t u8[3] = {0, 127, 128};
  a = fixed(lm_type_make(LM_TYPE_UINT8), 3, u8, 1);
  expect(a, i8, LM_ERR_EXEC, "value 128 is out of range for TINYINT");
  expect(a, big, 0, "0|127|128|");
  lm_array_release(a);
  int64_t i64[2] = {300, -5};
  a = fixed(big, 2, i64, 8);
  expect(a, i8, LM_ERR_EXEC, "value 300 is out of range for TINYINT");
  lm_array_release(a);
  int32_t days[2] = {0, -1};
  a = fixed(lm_type_make(LM_TYPE_DATE32), 2, days, 4);
  expect(a, ts, 0, "1970-01-01T00:00:00|1969-12-31T00:00:00|");
  expect(a, s, 0, "1970-01-01|1969-12-31|");
  lm_array_release(a);
  int64_t ns[2] = {1500, -1};
  a = fixed(lm_type_unit(LM_TYPE_DURATION, LM_UNIT_NANO), 2, ns, 8);
  expect(a, iv, 0, NULL);
  lm_array_release(a);
  int64_t dsec[1] = {INT64_MAX / 10};
  a = fixed(lm_type_unit(LM_TYPE_DURATION, LM_UNIT_SECOND), 1, dsec, 8);
  expect(a, iv, LM_ERR_EXEC, "duration out of range");
  lm_array_release(a);
  int64_t dec[4] = {12345, 0, -5, -1}; /* 123.45, -0.05 (two's complement) */
  a = fixed(lm_type_decimal128(10, 2), 2, dec, 16);
  expect(a, f64, 0, "123.45|-0.05|");
  expect(a, s, 0, "123.45|-0.05|");
  expect(a, big, LM_ERR_BIND, NULL);
  lm_array_release(a);
  const char *w[3] = {"", "héllo", "x"};
  a = strings(lm_type_make(LM_TYPE_LARGE_UTF8), w, 3);
  expect(a, s, 0, "|héllo|x|");
  expect(a, big, LM_ERR_BIND, NULL);
  lm_array_release(a);
  a = strings(lm_type_make(LM_TYPE_BINARY), w, 2);
  expect(a, s, 0, "\\x|\\x68c3a96c6c6f|");
  lm_array_release(a);
  /* a dictionary of strings decodes, indices repeat and may be NULL */
  lm_array *dict = strings(s, w, 3);
  lm_type dt;
  CHECK(lm_type_dictionary(LM_TYPE_INT8, s, false, &dt) == 0);
  int8_t idx[4] = {2, 1, 0, 2};
  lm_buffer *iv_buf = lm_buffer_new(4), *val = lm_buffer_new(1);
  memcpy(iv_buf->data, idx, 4);
  val->data[0] = 0x0b; /* rows 0, 1, 3 valid */
  a = lm_array_new(dt, 4, 1, 0, val, iv_buf, NULL, 0, NULL, dict);
  CHECK(lm_array_validate(a, 8, NULL) == 0);
  expect(a, s, 0, "x|héllo|NULL|x|");
  expect(a, big, LM_ERR_BIND, NULL);
  lm_array_release(a);
}

/* laminar_push_arrow: a dictionary column into a VARCHAR source decodes,
 * UINT32 widens into BIGINT, a missing nullable column is NULL. */
static void test_push_dictionary(void) {
  laminar_db *db = NULL;
  laminar_error err;
  CHECK(laminar_open(&db, &err) == 0);
  CHECK(laminar_execute(db,
                        "CREATE SOURCE s (name VARCHAR, n BIGINT);\n"
                        "CREATE MATERIALIZED VIEW v AS SELECT name, COUNT(*) "
                        "AS c, SUM(n) AS t FROM s GROUP BY name;",
                        NULL, &err) == 0);
  for (int round = 0; round < 2; round++) {
    const char *w[2] = {"apple", "pear"};
    lm_type dt;
    CHECK(lm_type_dictionary(LM_TYPE_UINT16, lm_type_make(LM_TYPE_UTF8), false,
                             &dt) == 0);
    uint16_t idx[3] = {1, 0, 1};
    lm_buffer *ib = lm_buffer_new(6);
    memcpy(ib->data, idx, 6);
    lm_array *d = lm_array_new(dt, 3, 0, 0, NULL, ib, NULL, 0, NULL,
                               strings(lm_type_make(LM_TYPE_UTF8), w, 2));
    uint32_t nv[3] = {1, 2, 3};
    lm_array *n = fixed(lm_type_make(LM_TYPE_UINT32), 3, nv, 4);
    lm_schema *sc = lm_schema_new(2);
    lm_schema_set_field(sc, 0, "name", dt, true);
    lm_schema_set_field(sc, 1, round ? "name2" : "n",
                        lm_type_make(LM_TYPE_UINT32), true);
    lm_array *cols[2] = {d, n};
    lm_batch *b = lm_batch_new(sc, 3, cols);
    struct ArrowArray aa;
    struct ArrowSchema as;
    lm_error e;
    memset(&e, 0, sizeof e);
    CHECK(lm_cdata_export_batch(b, &aa, &as, &e) == 0);
    lm_batch_release(b);
    CHECK(laminar_push_arrow(db, "s", &aa, &as, &err) == 0);
    as.release(&as);
  }
  laminar_result *r = NULL;
  CHECK(laminar_execute(db, "SELECT name, c, t FROM v ORDER BY name", &r,
                        &err) == 0);
  CHECK(r && laminar_result_num_rows(r) == 2);
  if (r && laminar_result_num_rows(r) == 2) {
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 0), "apple");
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 1), "2");
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 2), "2");
    CHECK_EQ_STR(laminar_result_value_text(r, 1, 0), "pear");
    CHECK_EQ_STR(laminar_result_value_text(r, 1, 1), "4");
    CHECK_EQ_STR(laminar_result_value_text(r, 1, 2), "4");
  }
  laminar_result_free(r);
  CHECK(laminar_close(db, &err) == 0);
}

/* VARCHAR(n) / CHAR(n) (docs/types.md "Length (n)"): lm_char_assign
 * counts characters and cuts only spaces; laminar_push_arrow assigns as an
 * INSERT (CHAR padded) and fails a value too long with 22001, its row and
 * column named. Expected values by hand. */
static void test_push_charlen(void) {
  lm_typmod v3 = {3, false, 0}, c2 = {2, true, 0};
  int32_t keep = -1, pad = -1;
  CHECK(lm_char_assign("ab", 2, v3, &keep, &pad) == 0 && keep == 2 && pad == 0);
  CHECK(lm_char_assign("abc  ", 5, v3, &keep, &pad) == 0 && keep == 3);
  CHECK(lm_char_assign("\xc3\xa9\xe2\x82\xac\xc3\xa9 ", 8, v3, &keep, &pad) ==
            0 &&
        keep == 7);
  CHECK(lm_char_assign("abcd", 4, v3, &keep, &pad) == -1);
  CHECK(lm_char_assign("ab c", 4, v3, &keep, &pad) == -1);
  CHECK(lm_char_assign("x", 1, c2, &keep, &pad) == 0 && keep == 1 && pad == 1);
  CHECK(lm_char_assign("", 0, c2, &keep, &pad) == 0 && pad == 2);
  laminar_db *db = NULL;
  laminar_error err;
  CHECK(laminar_open(&db, &err) == 0);
  CHECK(laminar_execute(db,
                        "CREATE SOURCE s (code VARCHAR(3), c CHAR(2));\n"
                        "CREATE MATERIALIZED VIEW v AS SELECT code, c, "
                        "octet_length(c) AS oc FROM s;",
                        NULL, &err) == 0);
  for (int round = 0; round < 2; round++) {
    const char *codes[2][2] = {{"ab", "abc  "}, {"xy", "wxyz"}};
    const char *cs[2] = {"x", ""};
    lm_schema *sc = lm_schema_new(2);
    lm_schema_set_field(sc, 0, "code", lm_type_make(LM_TYPE_UTF8), true);
    lm_schema_set_field(sc, 1, "c", lm_type_make(LM_TYPE_UTF8), true);
    lm_array *cols[2] = {strings(lm_type_make(LM_TYPE_UTF8), codes[round], 2),
                         strings(lm_type_make(LM_TYPE_UTF8), cs, 2)};
    lm_batch *b = lm_batch_new(sc, 2, cols);
    struct ArrowArray aa;
    struct ArrowSchema as;
    lm_error e;
    memset(&e, 0, sizeof e);
    CHECK(lm_cdata_export_batch(b, &aa, &as, &e) == 0);
    lm_batch_release(b);
    int rc = laminar_push_arrow(db, "s", &aa, &as, &err);
    if (round == 0) {
      CHECK(rc == 0);
    } else {
      CHECK(rc != 0 &&
            strstr(err.message, "column 'code' of source 's': "
                                "row 2: value too long for type "
                                "character varying(3)") &&
            !strcmp(err.sqlstate, "22001"));
      if (aa.release)
        aa.release(&aa);
    }
    as.release(&as);
  }
  laminar_result *r = NULL;
  CHECK(laminar_execute(db, "SELECT code, c, oc FROM v ORDER BY code", &r,
                        &err) == 0);
  CHECK(r && laminar_result_num_rows(r) == 2);
  if (r && laminar_result_num_rows(r) == 2) {
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 0), "ab");
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 1), "x ");
    CHECK_EQ_STR(laminar_result_value_text(r, 0, 2), "2");
    CHECK_EQ_STR(laminar_result_value_text(r, 1, 0), "abc");
    CHECK_EQ_STR(laminar_result_value_text(r, 1, 1), "  ");
  }
  laminar_result_free(r);
  CHECK(laminar_close(db, &err) == 0);
}

int main(void) {
  test_matrix();
  test_values();
  test_push_dictionary();
  test_push_charlen();
  return lm_test_done("test_conform");
}
