/* tests/unit/test_json.c — NDJSON reader/writer: typing rules, escapes and
 * surrogates, hostile input, errors with line:column, split feeding, and
 * writer output / round trips. */
#include "format/lm_json.h"

#include "columnar/lm_temporal.h"
#include "lm_test.h"
#include "lm_test_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lm_reader_vt json_vt = LM_READER_VT_JSON;

/* Reads data[0..len) fed in pieces ending at cuts[0..ncuts) (lm_test_read):
 * the batches and a status line into dump. */
static int run_json(lm_schema *s, const lm_json_options *o, const char *data,
                    size_t len, const size_t *cuts, int ncuts, lm_buf *dump,
                    lm_error *err_out) {
  lm_json_reader *r = lm_json_reader_new(s, o, "t.json");
  int rc = lm_test_read(&json_vt, r, data, len, cuts, ncuts, dump, err_out);
  lm_json_reader_free(r);
  return rc;
}

static char *jdump(lm_schema *s, const char *text, size_t len) {
  lm_buf d;
  lm_buf_init(&d);
  run_json(s, NULL, text, len, NULL, 0, &d, NULL);
  return d.data;
}
#define JDUMP(s, lit) jdump(s, lit, sizeof(lit) - 1)

static void expect_error(lm_schema *s, const char *text, int code,
                         const char *msg, int line, int col) {
  lm_error err;
  lm_buf d;
  lm_buf_init(&d);
  int rc = run_json(s, NULL, text, strlen(text), NULL, 0, &d, &err);
  CHECK_EQ_I64(rc, code);
  if (msg)
    CHECK_EQ_STR(err.msg, msg);
  CHECK_EQ_I64(err.line, line);
  CHECK_EQ_I64(err.column, col);
  lm_buf_free(&d);
}

static const col_spec MAIN[] = {
    {"symbol", LM_TYPE_UTF8, true},  {"minute", LM_TYPE_TIMESTAMP, true},
    {"volume", LM_TYPE_INT64, true}, {"high", LM_TYPE_FLOAT64, true},
    {"ok", LM_TYPE_BOOL, true},      {"small", LM_TYPE_INT8, true},
    {"f", LM_TYPE_FLOAT32, true},    {"raw", LM_TYPE_UTF8, true}};

static void test_basic(void) {
  lm_schema *s = mk_schema(MAIN, 8);
  char *d;
  static const char in[] =
      "{\"symbol\":\"AAPL\",\"minute\":\"2026-10-18T09:30:00\",\"volume\":150,"
      "\"high\":189.7}\n"
      "{\"volume\":1,\"unknown\":{\"a\":[1,2,{\"b\":null}],\"c\":\"x\"},"
      "\"volume\":2,\"symbol\":null, \"ok\" : true ,\"small\":-128}\n"
      "\n"
      "  \r\n"
      "{\"VOLUME\":3.00,\"High\":5,\"f\":0.1,\"OK\":false,\"small\":127}\r\n"
      "\t{ \"raw\" : {\"a\": [1, 2], \"b\": \"\\u00e9\"} , \"small\":-0.0}\n"
      "{\"raw\":[],\"symbol\":\"\"}\n"
      "{}";
  d = jdump(s, in, sizeof in - 1);
  int64_t ts;
  lm_parse_timestamp("2026-10-18T09:30:00", 19, &ts);
  char want[1024];
  snprintf(want, sizeof want,
           "[batch 6]\n"
           "s4:AAPL|ts%" PRId64 "|150|d0x1.7b66666666666p+7|NULL|NULL|NULL|"
           "NULL\n"
           "NULL|NULL|2|NULL|true|-128|NULL|NULL\n"
           "NULL|NULL|3|d0x1.4p+2|false|127|f0x1.99999ap-4|NULL\n"
           "NULL|NULL|NULL|NULL|NULL|0|NULL|s28:{\"a\": [1, 2], \"b\": "
           "\"\\u00e9\"}\n"
           "s0:|NULL|NULL|NULL|NULL|NULL|NULL|s2:[]\n"
           "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL\n"
           "OK rows=6\n",
           ts);
  CHECK_EQ_STR(d, want);
  free(d);
  lm_schema_release(s);
}

static void test_escapes(void) {
  col_spec cs[] = {{"s", LM_TYPE_UTF8, true}};
  lm_schema *s = mk_schema(cs, 1);
  char *d =
      JDUMP(s, "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t|\\u00e9\\u20AC"
               "\\ud83d\\ude00\\u0000|\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"
               "\"}\n"
               "{\"\\u0073\":\"key escaped\"}\n");
  static const char want[] =
      "[batch 2]\n"
      "s33:a\"b\\c/d\b\f\n\r\t|\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\0|"
      "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\n"
      "s11:key escaped\n"
      "OK rows=2\n";
  CHECK(d && memcmp(d, want, sizeof want) == 0);
  if (d && memcmp(d, want, sizeof want) != 0)
    fprintf(stderr, "got: %s\n", d);
  free(d);

  struct {
    const char *in;
    int col;
  } bad[] = {
      {"{\"s\":\"\\ud800\"}", 7},          /* lone high surrogate */
      {"{\"s\":\"\\udc00\"}", 7},          /* lone low surrogate */
      {"{\"s\":\"\\ud800\\u0041\"}", 7},   /* high + non-low */
      {"{\"s\":\"\\ud800\\\"}", 7},        /* high + other escape */
      {"{\"s\":\"x\\x\"}", 8},             /* unknown escape */
      {"{\"s\":\"\\u12g4\"}", 7},          /* bad hex */
      {"{\"s\":\"\\u12\"}", 7},            /* short */
      {"{\"s\":\"a\tb\"}", 8},             /* raw control character */
      {"{\"s\":\"\xC3(\"}", 7},            /* truncated sequence */
      {"{\"s\":\"\xC0\xAF\"}", 7},         /* overlong */
      {"{\"s\":\"\xE0\x80\xAF\"}", 7},     /* overlong */
      {"{\"s\":\"\xED\xA0\x80\"}", 7},     /* UTF-8 encoded surrogate */
      {"{\"s\":\"\xF4\x90\x80\x80\"}", 7}, /* > U+10FFFF */
      {"{\"s\":\"\xFF\"}", 7},
      {"{\"s\":\"abc", 6}, /* unterminated */
      {"{\"\xC3\":1}", 3}, /* invalid UTF-8 in a key */
  };
  for (size_t i = 0; i < LM_ARRAY_LEN(bad); i++) {
    lm_error err;
    lm_buf dd;
    lm_buf_init(&dd);
    int rc =
        run_json(s, NULL, bad[i].in, strlen(bad[i].in), NULL, 0, &dd, &err);
    CHECK_EQ_I64(rc, LM_ERR_PARSE);
    CHECK_EQ_I64(err.line, 1);
    CHECK_EQ_I64(err.column, bad[i].col);
    if (err.column != bad[i].col)
      fprintf(stderr, "  case %zu: %s\n", i, err.msg);
    lm_buf_free(&dd);
  }
  lm_schema_release(s);
}

static void test_type_errors(void) {
  lm_schema *s = mk_schema(MAIN, 8);
  expect_error(s, "{\"volume\":\"abc\"}", LM_ERR_PARSE,
               "t.json:1:11: expected BIGINT for column 'volume', found "
               "'\"abc\"'",
               1, 11);
  expect_error(s, "{\"volume\":1}\n\n  {\"symbol\":\"x\",\"volume\":1.5}\n",
               LM_ERR_PARSE,
               "t.json:3:26: expected BIGINT for column 'volume', found '1.5'",
               3, 26);
  expect_error(s, "{\"volume\":1e3}", LM_ERR_PARSE, NULL, 1, 11);
  expect_error(s, "{\"volume\":true}", LM_ERR_PARSE, NULL, 1, 11);
  expect_error(s, "{\"volume\":[1]}", LM_ERR_PARSE, NULL, 1, 11);
  expect_error(s, "{\"volume\":99999999999999999999}", LM_ERR_PARSE,
               "t.json:1:11: value '99999999999999999999' out of range for "
               "BIGINT column 'volume'",
               1, 11);
  expect_error(s, "{\"volume\":-9223372036854775809}", LM_ERR_PARSE, NULL, 1,
               11);
  expect_error(s, "{\"small\":128}", LM_ERR_PARSE,
               "t.json:1:10: value '128' out of range for TINYINT column "
               "'small'",
               1, 10);
  expect_error(s, "{\"high\":1e400}", LM_ERR_PARSE,
               "t.json:1:9: value '1e400' out of range for DOUBLE column "
               "'high'",
               1, 9);
  expect_error(s, "{\"f\":1e39}", LM_ERR_PARSE, NULL, 1, 6);
  expect_error(s, "{\"high\":\"1\"}", LM_ERR_PARSE, NULL, 1, 9);
  expect_error(s, "{\"raw\":5}", LM_ERR_PARSE,
               "t.json:1:8: expected VARCHAR for column 'raw', found '5'", 1,
               8);
  expect_error(s, "{\"raw\":false}", LM_ERR_PARSE, NULL, 1, 8);
  expect_error(s, "{\"ok\":1}", LM_ERR_PARSE,
               "t.json:1:7: expected BOOLEAN for column 'ok', found '1'", 1, 7);
  expect_error(s, "{\"ok\":\"true\"}", LM_ERR_PARSE, NULL, 1, 7);
  expect_error(s, "{\"minute\":\"nope\"}", LM_ERR_PARSE,
               "t.json:1:11: expected TIMESTAMP for column 'minute', found "
               "'\"nope\"'",
               1, 11);
  expect_error(s, "{\"minute\":1700000000}", LM_ERR_PARSE, NULL, 1, 11);
  expect_error(s, "{\"minute\":{}}", LM_ERR_PARSE, NULL, 1, 11);
  /* a wrong type under an unknown key is not an error; a bad value is */
  char *d = JDUMP(s, "{\"other\":\"abc\",\"zz\":[true,{\"q\":-1.5e-3}]}\n");
  CHECK_EQ_STR(d, "[batch 1]\nNULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL\n"
                  "OK rows=1\n");
  free(d);
  expect_error(s, "{\"other\":[1,2,tru]}", LM_ERR_PARSE, NULL, 1, 15);
  lm_schema_release(s);

  col_spec nn[] = {{"a", LM_TYPE_INT64, false}, {"b", LM_TYPE_UTF8, true}};
  s = mk_schema(nn, 2);
  expect_error(s, "{\"a\":1}\n  {\"b\":\"x\"}\n", LM_ERR_PARSE,
               "t.json:2:3: missing value for NOT NULL column 'a'", 2, 3);
  expect_error(s, "{\"b\":\"x\",\"a\":null}", LM_ERR_PARSE,
               "t.json:1:14: NULL value for NOT NULL column 'a'", 1, 14);
  lm_schema_release(s);
}

static void test_structure(void) {
  col_spec cs[] = {{"a", LM_TYPE_INT64, true}, {"n", LM_TYPE_UTF8, true}};
  lm_schema *s = mk_schema(cs, 2);
  struct {
    const char *in;
    int col;
  } bad[] = {
      {"[1]", 1},
      {"1", 1},
      {"\"x\"", 1},
      {"{\"a\":1} x", 9},
      {"{\"a\":1}{}", 8},
      {"{\"a\":1", 7},
      {"{\"a\" 1}", 6},
      {"{a:1}", 2},
      {"{\"a\":01}", 6},
      {"{\"a\":-}", 6},
      {"{\"a\":1.}", 6},
      {"{\"a\":1e}", 6},
      {"{\"a\":.5}", 6},
      {"{\"a\":+1}", 6},
      {"{\"a\":tru}", 6},
      {"{\"a\":nul}", 6},
      {"{\"a\":1,}", 8},
      {"{\"n\":[1,]}", 9},
      {"{\"n\":[1 2]}", 9},
      {"{\"n\":{\"k\"}}", 10},
      {"{\"n\":{\"k\":}}", 11},
      {"{\"a\":NaN}", 6},
      {"{\"a\":Infinity}", 6},
      {"{\"a\":1}\x01", 8},
      {"{\"n\":[}", 7},
      {"{,}", 2},
  };
  for (size_t i = 0; i < LM_ARRAY_LEN(bad); i++) {
    lm_error err;
    lm_buf dd;
    lm_buf_init(&dd);
    int rc =
        run_json(s, NULL, bad[i].in, strlen(bad[i].in), NULL, 0, &dd, &err);
    CHECK_EQ_I64(rc, LM_ERR_PARSE);
    CHECK_EQ_I64(err.column, bad[i].col);
    if (rc != LM_ERR_PARSE || err.column != bad[i].col)
      fprintf(stderr, "  case %zu (%s): rc %d %s\n", i, bad[i].in, rc, err.msg);
    lm_buf_free(&dd);
  }
  /* depth: the top-level object is level 1; 64 levels are fine, 65 not */
  lm_buf in;
  lm_buf_init(&in);
  lm_buf_puts(&in, "{\"n\":");
  for (int i = 0; i < 63; i++) {
    if (i % 2) {
      lm_buf_putc(&in, '[');
    } else {
      lm_buf_puts(&in, "{\"k\":");
    }
  }
  lm_buf_puts(&in, "1");
  for (int i = 62; i >= 0; i--)
    lm_buf_putc(&in, i % 2 ? ']' : '}');
  lm_buf_puts(&in, "}\n");
  lm_buf d;
  lm_buf_init(&d);
  CHECK(run_json(s, NULL, in.data, in.len, NULL, 0, &d, NULL) == 0);
  lm_buf_free(&d);
  lm_buf_reset(&in);
  lm_buf_puts(&in, "{\"zz\":");
  for (int i = 0; i < 64; i++)
    lm_buf_putc(&in, '[');
  for (int i = 0; i < 64; i++)
    lm_buf_putc(&in, ']');
  lm_buf_puts(&in, "}\n");
  expect_error(s, in.data, LM_ERR_LIMIT,
               "t.json:1:70: JSON nested deeper than 64 levels", 1, 70);
  /* very deep input fails fast, without recursion */
  lm_buf_reset(&in);
  lm_buf_puts(&in, "{\"zz\":");
  for (int i = 0; i < 1000000; i++)
    lm_buf_putc(&in, '[');
  expect_error(s, in.data, LM_ERR_LIMIT, NULL, 1, 70);
  /* huge numbers */
  lm_buf_reset(&in);
  lm_buf_puts(&in, "{\"a\":");
  for (int i = 0; i < 1000; i++)
    lm_buf_putc(&in, '9');
  lm_buf_puts(&in, "}");
  expect_error(s, in.data, LM_ERR_PARSE, NULL, 1, 6);
  lm_buf_free(&in);

  col_spec dd[] = {{"d", LM_TYPE_FLOAT64, true}};
  lm_schema *s2 = mk_schema(dd, 1);
  lm_buf_init(&in);
  lm_buf_puts(&in, "{\"d\":0.");
  for (int i = 0; i < 2000; i++)
    lm_buf_putc(&in, '0');
  lm_buf_puts(&in, "15e2001}\n{\"d\":");
  lm_buf big;
  lm_buf_init(&big);
  for (int i = 0; i < 300; i++)
    lm_buf_putc(&big, '1');
  lm_buf_append(&in, big.data, big.len);
  lm_buf_puts(&in, "}\n{\"d\":-0}\n{\"d\":1E-400}\n");
  char *out = jdump(s2, in.data, in.len);
  char want[256];
  snprintf(want, sizeof want,
           "[batch 4]\nd0x1.8p+0\nd%a\nd-0x0p+0\nd0x0p+0\nOK rows=4\n",
           strtod(big.data, NULL));
  CHECK_EQ_STR(out, want);
  free(out);
  lm_buf_free(&big);
  lm_buf_free(&in);
  lm_schema_release(s2);

  /* after an error the reader refuses further input */
  lm_json_reader *r = lm_json_reader_new(s, NULL, "x.json");
  lm_error err;
  CHECK(lm_json_reader_feed(r, "{\"a\":\"s\"}\n", 10, &err) == LM_ERR_PARSE);
  CHECK(lm_json_reader_feed(r, "{\"a\":1}\n", 8, &err) == LM_ERR_PARSE);
  CHECK_EQ_STR(err.msg,
               "x.json:1:6: expected BIGINT for column 'a', found '\"s\"'");
  CHECK(lm_json_reader_finish(r, &err) == LM_ERR_PARSE);
  lm_json_reader_free(r);
  /* a line longer than the limit */
  lm_json_options o;
  lm_json_options_default(&o);
  o.max_line_bytes = 10;
  r = lm_json_reader_new(s, &o, "x.json");
  CHECK(lm_json_reader_feed(r, "{\"a\":1}\n{\"n\":\"", 14, &err) == 0);
  CHECK(lm_json_reader_feed(r, "0123456789\"}\n", 13, &err) == LM_ERR_LIMIT);
  CHECK_EQ_I64(err.line, 2);
  lm_json_reader_free(r);
  lm_schema_release(s);
}

static void split_run(const lm_test_split_ctx *c, const char *text, size_t len,
                      const size_t *cuts, int ncuts, lm_buf *dump) {
  run_json(c->s, c->options, text, len, cuts, ncuts, dump, NULL);
}

/* Every single split point and byte-at-a-time feeding must give the same
 * batches (and the same error) as one feed. */
static void check_splits(lm_schema *s, const lm_json_options *o,
                         const char *text, size_t len) {
  lm_test_split_ctx c = {s, o};
  lm_test_check_splits(split_run, &c, text, len, 0);
}

static void test_splits(void) {
  lm_schema *s = mk_schema(MAIN, 8);
  static const char in[] =
      "{\"symbol\":\"caf\xC3\xA9 \\ud83d\\ude00\",\"volume\":1}\r\n"
      "\n"
      "{\"raw\":{\"x\":[1,{\"y\":\"\\\"}\"}]},\"high\":-1.25e-3,\"ok\":true}\n"
      "   \n"
      "{\"minute\":\"2001-01-01 00:00:00.25\",\"f\":3}\n"
      "{\"small\":-7,\"volume\":-0}";
  lm_json_options o;
  lm_json_options_default(&o);
  check_splits(s, &o, in, sizeof in - 1);
  o.batch_rows = 1;
  check_splits(s, &o, in, sizeof in - 1);
  static const char bad[] =
      "{\"volume\":1}\n{\"volume\":2}\n{\"volume\":\"x\"}\n";
  check_splits(s, &o, bad, sizeof bad - 1);
  lm_schema_release(s);
}

static void test_writer(void) {
  col_spec cs[] = {{"symbol", LM_TYPE_UTF8, true},
                   {"minute", LM_TYPE_TIMESTAMP, true},
                   {"volume", LM_TYPE_INT64, true},
                   {"high", LM_TYPE_FLOAT64, true}};
  lm_schema *s = mk_schema(cs, 4);
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, 0);
  int64_t ts;
  lm_parse_timestamp("2026-10-18T09:30:00", 19, &ts);
  lm_builder_append_str(&bb.cols[0], "AAPL", 4);
  lm_builder_append_int(&bb.cols[1], ts);
  lm_builder_append_int(&bb.cols[2], 150);
  lm_builder_append_double(&bb.cols[3], 189.7);
  lm_builder_append_str(&bb.cols[0], "q\"\\\x01\n\t\x7f\xC3\xA9\xFF", 10);
  lm_builder_append_int(&bb.cols[1], ts + 1);
  lm_builder_append_null(&bb.cols[2]);
  lm_builder_append_double(&bb.cols[3], NAN);
  lm_builder_append_null(&bb.cols[0]);
  lm_builder_append_null(&bb.cols[1]);
  lm_builder_append_int(&bb.cols[2], INT64_MIN);
  lm_builder_append_double(&bb.cols[3], -INFINITY);
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  lm_buf out;
  lm_buf_init(&out);
  CHECK(lm_json_write_batch(&out, b) == 0);
  CHECK_EQ_STR(out.data,
               "{\"symbol\":\"AAPL\",\"minute\":\"2026-10-18T09:30:00\","
               "\"volume\":150,\"high\":189.7}\n"
               "{\"symbol\":\"q\\\"\\\\\\u0001\\n\\t\x7f\xC3\xA9\xEF\xBF\xBD\","
               "\"minute\":\"2026-10-18T09:30:00.000001\",\"volume\":null,"
               "\"high\":\"NaN\"}\n" /* as PostgreSQL's to_json (B3_17) */
               "{\"symbol\":null,\"minute\":null,\"volume\":"
               "-9223372036854775808,\"high\":\"-Infinity\"}\n");
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);

  /* keys are escaped too */
  col_spec odd[] = {{"a\"b\n", LM_TYPE_BOOL, true}};
  s = mk_schema(odd, 1);
  lm_batch_builder_init(&bb, s, 0);
  lm_builder_append_bool(&bb.cols[0], true);
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  lm_buf_init(&out);
  lm_json_write_batch(&out, b);
  CHECK_EQ_STR(out.data, "{\"a\\\"b\\n\":true}\n");
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);

  /* round trip: every type, random values, NULLs */
  s = mk_schema(MAIN, 8);
  lm_batch_builder_init(&bb, s, 0);
  uint64_t seed = 99;
  static const char *strs[] = {"",
                               "plain",
                               "q\"uote",
                               "back\\slash",
                               "ctl\x01\x1f",
                               "\xF0\x9F\x98\x80 emoji",
                               "\xE2\x80\xA8 sep"};
  for (int i = 0; i < 300; i++) {
    lm_builder *c = bb.cols;
    bool nul = i % 7 == 3;
    const char *str = strs[i % LM_ARRAY_LEN(strs)];
    if (nul)
      lm_builder_append_null(&c[0]);
    else
      lm_builder_append_str(&c[0], str, (int32_t)strlen(str));
    if (nul)
      lm_builder_append_null(&c[1]);
    else
      lm_builder_append_int(
          &c[1], (int64_t)(lm_test_rand(&seed) % 310000000000000000ULL) -
                     60000000000000000LL);
    lm_builder_append_int(&c[2], (int64_t)lm_test_rand(&seed));
    uint64_t bits = lm_test_rand(&seed);
    double dv;
    memcpy(&dv, &bits, sizeof dv);
    if (!isfinite(dv))
      dv = 1.5;
    if (nul)
      lm_builder_append_null(&c[3]);
    else
      lm_builder_append_double(&c[3], dv);
    lm_builder_append_bool(&c[4], lm_test_rand(&seed) & 1);
    lm_builder_append_int(&c[5], (int64_t)(lm_test_rand(&seed) % 256) - 128);
    uint32_t fb = (uint32_t)lm_test_rand(&seed);
    float fv;
    memcpy(&fv, &fb, sizeof fv);
    if (!isfinite(fv))
      fv = 0.25f;
    lm_builder_append_double(&c[6], fv);
    if (nul)
      lm_builder_append_null(&c[7]);
    else
      lm_builder_append_str(&c[7], str, (int32_t)strlen(str));
  }
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  lm_buf_init(&out);
  CHECK(lm_json_write_batch(&out, b) == 0);
  lm_buf want, got;
  lm_buf_init(&want);
  lm_buf_init(&got);
  dump_batch(&want, b);
  lm_buf_printf(&want, "OK rows=300\n");
  run_json(s, NULL, out.data, out.len, NULL, 0, &got, NULL);
  CHECK_EQ_STR(got.data, want.data);
  lm_buf_free(&want);
  lm_buf_free(&got);
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);
}

int main(void) {
  test_basic();
  test_escapes();
  test_type_errors();
  test_structure();
  test_splits();
  test_writer();
  return lm_test_done("test_json");
}
