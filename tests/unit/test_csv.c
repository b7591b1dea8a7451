/* tests/unit/test_csv.c — CSV reader/writer: RFC 4180 rules, typed decoding,
 * errors with line:column, incremental feeding split at every byte, the
 * flights-200k data set, and writer round trips. */
#include "format/lm_csv.h"

#include "columnar/lm_temporal.h"
#include "lm_test.h"
#include "lm_test_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static const lm_reader_vt csv_vt = LM_READER_VT_CSV;

/* Reads data[0..len) fed in pieces ending at cuts[0..ncuts) (lm_test_read):
 * the batches and a status line into dump. */
static int run_csv(lm_schema *s, const lm_csv_options *o, const char *data,
                   size_t len, const size_t *cuts, int ncuts, lm_buf *dump,
                   lm_error *err_out) {
  lm_csv_reader *r = lm_csv_reader_new(s, o, "t.csv");
  int rc = lm_test_read(&csv_vt, r, data, len, cuts, ncuts, dump, err_out);
  lm_csv_reader_free(r);
  return rc;
}

static char *csv_dump(lm_schema *s, const lm_csv_options *o, const char *text,
                      lm_error *err) {
  lm_buf d;
  lm_buf_init(&d);
  run_csv(s, o, text, strlen(text), NULL, 0, &d, err);
  return d.data;
}

static lm_csv_options opts(bool header) {
  lm_csv_options o;
  lm_csv_options_default(&o);
  o.header = header;
  return o;
}

/* Expects `text` to fail with exactly `msg` (which includes the position). */
static void expect_error(lm_schema *s, bool header, const char *text,
                         const char *msg, int line, int col) {
  lm_csv_options o = opts(header);
  lm_error err;
  lm_buf d;
  lm_buf_init(&d);
  int rc = run_csv(s, &o, text, strlen(text), NULL, 0, &d, &err);
  CHECK(rc != 0);
  CHECK_EQ_STR(err.msg, msg);
  CHECK_EQ_I64(err.line, line);
  CHECK_EQ_I64(err.column, col);
  lm_buf_free(&d);
}

/* ---------------------------------------------------------------- tests */

static void test_basic_rfc4180(void) {
  col_spec cs[] = {{"a", LM_TYPE_UTF8, true},
                   {"b", LM_TYPE_INT64, true},
                   {"c", LM_TYPE_UTF8, true}};
  lm_schema *s = mk_schema(cs, 3);
  lm_csv_options o = opts(true);
  /* 2.1 CRLF line breaks; 2.2 last record without a line break; 2.3
   * header; 2.4 spaces are part of a text field; 2.5 quoted fields; 2.6
   * delimiter, CR and LF inside quotes; 2.7 "" escapes. */
  char *d = csv_dump(s, &o,
                     "a,b,c\r\n"
                     " x ,1,plain\r\n"
                     "\"q,1\",2,\"line1\r\nline2\"\r\n"
                     "\"say \"\"hi\"\"\",3,\"\"\r\n"
                     ",,\r\n"
                     "last,4,end",
                     NULL);
  CHECK_EQ_STR(d, "[batch 5]\n"
                  "s3: x |1|s5:plain\n"
                  "s3:q,1|2|s12:line1\r\nline2\n"
                  "s8:say \"hi\"|3|s0:\n"
                  "NULL|NULL|NULL\n"
                  "s4:last|4|s3:end\n"
                  "OK rows=5\n");
  free(d);
  /* LF-only line breaks and a trailing line break give the same rows */
  d = csv_dump(s, &o, "a,b,c\nx,1,y\n", NULL);
  CHECK_EQ_STR(d, "[batch 1]\ns1:x|1|s1:y\nOK rows=1\n");
  free(d);
  /* quoted empty is NULL for non-text columns, "" for text */
  d = csv_dump(s, &o, "a,b,c\n\"\",\"\",\"\"\n", NULL);
  CHECK_EQ_STR(d, "[batch 1]\ns0:|NULL|s0:\nOK rows=1\n");
  free(d);
  /* blank lines are skipped (several columns) */
  d = csv_dump(s, &o, "\na,b,c\n\nx,1,y\n\r\n\nz,2,w\n\n", NULL);
  CHECK_EQ_STR(d, "[batch 2]\ns1:x|1|s1:y\ns1:z|2|s1:w\nOK rows=2\n");
  free(d);
  /* empty input / header only: no rows, no batch */
  d = csv_dump(s, &o, "", NULL);
  CHECK_EQ_STR(d, "OK rows=0\n");
  free(d);
  d = csv_dump(s, &o, "a,b,c", NULL);
  CHECK_EQ_STR(d, "OK rows=0\n");
  free(d);
  /* a BOM at the start is skipped */
  d = csv_dump(s, &o,
               "\xEF\xBB\xBF"
               "a,b,c\nx,1,y\n",
               NULL);
  CHECK_EQ_STR(d, "[batch 1]\ns1:x|1|s1:y\nOK rows=1\n");
  free(d);
  /* quoted numbers; CR just before EOF */
  d = csv_dump(s, &o, "a,b,c\nx,\"7\",y\r", NULL);
  CHECK_EQ_STR(d, "[batch 1]\ns1:x|7|s1:y\nOK rows=1\n");
  free(d);
  /* other delimiter */
  lm_csv_options ot = opts(true);
  ot.delimiter = '\t';
  d = csv_dump(s, &ot, "a\tb\tc\nx,y\t5\t\"t\tq\"\n", NULL);
  CHECK_EQ_STR(d, "[batch 1]\ns3:x,y|5|s3:t\tq\nOK rows=1\n");
  free(d);
  lm_schema_release(s);
}

static void test_header_mapping(void) {
  col_spec cs[] = {{"Delay", LM_TYPE_INT64, true},
                   {"origin", LM_TYPE_UTF8, true},
                   {"absent", LM_TYPE_FLOAT64, true}};
  lm_schema *s = mk_schema(cs, 3);
  lm_csv_options o = opts(true);
  /* a declared column missing from the header is an error (a misspelt
   * name must not turn into a column of NULLs), naming the header */
  expect_error(s, true, " ORIGIN ,extra,\"delay\"\nLAS,zzz,5\n",
               "t.csv:1:1: column 'absent' is missing from the header "
               "( ORIGIN , extra, delay)",
               1, 1);
  /* reordered, different case, padded, unknown column ignored */
  lm_schema *s2 = mk_schema(cs, 2);
  char *d =
      csv_dump(s2, &o, " ORIGIN ,extra,\"delay\"\nLAS,zzz,5\nSFO,,-7\n", NULL);
  CHECK_EQ_STR(d, "[batch 2]\n5|s3:LAS\n-7|s3:SFO\nOK rows=2\n");
  free(d);
  lm_schema_release(s2);
  /* header=false: positional */
  lm_csv_options p = opts(false);
  d = csv_dump(s, &p, "1,a,2.5\n2,b,\n", NULL);
  CHECK_EQ_STR(d, "[batch 2]\n1|s1:a|d0x1.4p+1\n2|s1:b|NULL\nOK rows=2\n");
  free(d);
  lm_schema_release(s);

  /* a NOT NULL column missing from the header is an error at the header */
  col_spec nn[] = {{"a", LM_TYPE_INT64, true}, {"b", LM_TYPE_INT64, false}};
  s = mk_schema(nn, 2);
  expect_error(s, true, "a,c\n1,2\n",
               "t.csv:1:1: NOT NULL column 'b' is missing from the header "
               "(a, c)",
               1, 1);
  expect_error(s, true, "a,b\n1,2\n3,\n",
               "t.csv:3:3: NULL value for NOT NULL column 'b'", 3, 3);
  lm_schema_release(s);

  /* exact-case matches win; quoted names keep their spaces */
  col_spec cc[] = {{"a", LM_TYPE_INT64, true},
                   {"A", LM_TYPE_INT64, true},
                   {" b ", LM_TYPE_INT64, true}};
  s = mk_schema(cc, 3);
  d = csv_dump(s, &o, "A,\" b \",a\n1,2,3\n", NULL);
  CHECK_EQ_STR(d, "[batch 1]\n3|1|2\nOK rows=1\n");
  free(d);
  /* " b " != "b", and "A" is taken by the exact match: 'a' is missing */
  expect_error(s, true, "A, b ,x\n1,2,3\n",
               "t.csv:1:1: column 'a' is missing from the header (A,  b , x)",
               1, 1);
  lm_buf hb;
  lm_buf_init(&hb);
  lm_csv_write_header(&hb, s, NULL);
  CHECK_EQ_STR(hb.data, "a,A,\" b \"\n");
  lm_buf_free(&hb);
  lm_schema_release(s);

  /* a single column: a blank line is one empty field, i.e. NULL */
  col_spec one[] = {{"v", LM_TYPE_INT32, true}};
  s = mk_schema(one, 1);
  d = csv_dump(s, &o, "v\n1\n\n3\n", NULL);
  CHECK_EQ_STR(d, "[batch 3]\n1\nNULL\n3\nOK rows=3\n");
  free(d);
  lm_schema_release(s);
}

static void test_types(void) {
  col_spec cs[] = {
      {"i8", LM_TYPE_INT8, true},     {"i16", LM_TYPE_INT16, true},
      {"i32", LM_TYPE_INT32, true},   {"i64", LM_TYPE_INT64, true},
      {"f32", LM_TYPE_FLOAT32, true}, {"f64", LM_TYPE_FLOAT64, true},
      {"b", LM_TYPE_BOOL, true},      {"ts", LM_TYPE_TIMESTAMP, true}};
  lm_schema *s = mk_schema(cs, 8);
  lm_csv_options o = opts(false);
  char *d = csv_dump(
      s, &o,
      "-128,-32768,-2147483648,-9223372036854775808,0.1,0.1,true,"
      "1970-01-01T00:00:00Z\n"
      "127,32767,2147483647,9223372036854775807,-1e-3,1e308,F,"
      "2001-01-01 00:01:00.5\n"
      " 42 ,+7,007,  -0  , 3 ,  2.5 ,  T ,1969-12-31T23:59:59.999999Z\n"
      "0,0,0,0,inf,-Infinity,1,2024-02-29T12:00:00+01:00\n"
      ",   ,,,NaN,4.9e-324,0,\n",
      NULL);
  CHECK_EQ_STR(d,
               "[batch 5]\n"
               "-128|-32768|-2147483648|-9223372036854775808|f0x1.99999ap-4|"
               "d0x1.999999999999ap-4|true|ts0\n"
               "127|32767|2147483647|9223372036854775807|f-0x1.0624dep-10|"
               "d0x1.1ccf385ebc8ap+1023|false|ts978307260500000\n"
               "42|7|7|0|f0x1.8p+1|d0x1.4p+1|true|ts-1\n"
               "0|0|0|0|finf|d-inf|true|ts1709204400000000\n"
               "NULL|NULL|NULL|NULL|fnan|d0x0.0000000000001p-1022|false|NULL\n"
               "OK rows=5\n");
  free(d);
  lm_schema_release(s);

  /* doubles are correctly rounded (vs. strtod) on tricky inputs */
  col_spec fd[] = {{"x", LM_TYPE_FLOAT64, true}};
  s = mk_schema(fd, 1);
  const char *vals[] = {
      "0.1",
      "0.30000000000000004",
      "2.2250738585072014e-308",
      "2.2250738585072011e-308",
      "9007199254740993",
      "123456789012345678901234567890",
      "1.7976931348623157e308",
      "0.000001",
      "999999999999999.9",
      "89255.0e-22",
      "-0",
      "-0.0",
      "1.00000000000000011102230246251565404236316680908203125",
      "7.038531e-26",
      "3.14159265358979323846264338327950288"};
  for (size_t i = 0; i < LM_ARRAY_LEN(vals); i++) {
    lm_csv_reader *r = lm_csv_reader_new(s, &o, "t.csv");
    CHECK(lm_csv_reader_feed(r, vals[i], strlen(vals[i]), NULL) == 0);
    CHECK(lm_csv_reader_finish(r, NULL) == 0);
    lm_batch *b = lm_csv_reader_next(r);
    CHECK(b && b->num_rows == 1);
    if (b) {
      double want = strtod(vals[i], NULL), got = lm_array_f64(b->columns[0])[0];
      CHECK(memcmp(&want, &got, sizeof want) == 0);
      if (memcmp(&want, &got, sizeof want) != 0)
        fprintf(stderr, "  %s: got %a want %a\n", vals[i], got, want);
      lm_batch_release(b);
    }
    lm_csv_reader_free(r);
  }
  lm_schema_release(s);

  /* range and syntax errors */
  col_spec e[] = {{"t", LM_TYPE_INT8, true},
                  {"big", LM_TYPE_INT64, true},
                  {"d", LM_TYPE_FLOAT64, true}};
  s = mk_schema(e, 3);
  expect_error(s, false, "128,1,1\n",
               "t.csv:1:1: value '128' out of range for TINYINT column 't'", 1,
               1);
  expect_error(s, false, "-129,1,1\n",
               "t.csv:1:1: value '-129' out of range for TINYINT column 't'", 1,
               1);
  expect_error(s, false, "1,9223372036854775808,1\n",
               "t.csv:1:3: value '9223372036854775808' out of range for "
               "BIGINT column 'big'",
               1, 3);
  expect_error(s, false, "1,-99999999999999999999999999,1\n",
               "t.csv:1:3: value '-99999999999999999999999999' out of range "
               "for BIGINT column 'big'",
               1, 3);
  expect_error(s, false, "1,12a,1\n",
               "t.csv:1:3: expected BIGINT for column 'big', found '12a'", 1,
               3);
  expect_error(s, false, "1,1.5,1\n",
               "t.csv:1:3: expected BIGINT for column 'big', found '1.5'", 1,
               3);
  expect_error(s, false, "1,1,1e400\n",
               "t.csv:1:5: value '1e400' out of range for DOUBLE column 'd'", 1,
               5);
  expect_error(s, false, "1,1,0x10\n",
               "t.csv:1:5: expected DOUBLE for column 'd', found '0x10'", 1, 5);
  expect_error(s, false, "1,1,1e\n",
               "t.csv:1:5: expected DOUBLE for column 'd', found '1e'", 1, 5);
  lm_schema_release(s);

  col_spec bt[] = {{"b", LM_TYPE_BOOL, true}, {"ts", LM_TYPE_TIMESTAMP, true}};
  s = mk_schema(bt, 2);
  expect_error(s, false, "maybe,2001-01-01\n",
               "t.csv:1:1: expected BOOLEAN for column 'b', found 'maybe'", 1,
               1);
  /* a day that does not exist is a field out of range (PostgreSQL 15:
   * 22008 date/time field value out of range), not a syntax error */
  expect_error(s, false, "true,2001-02-30\n",
               "t.csv:1:6: value '2001-02-30' out of range for TIMESTAMP "
               "column 'ts'",
               1, 6);
  expect_error(s, false, "true,2001-02-x\n",
               "t.csv:1:6: expected TIMESTAMP for column 'ts', found "
               "'2001-02-x'",
               1, 6);
  lm_schema_release(s);
}

static void test_errors(void) {
  col_spec cs[] = {{"name", LM_TYPE_UTF8, true},
                   {"delay", LM_TYPE_INT64, true}};
  lm_schema *s = mk_schema(cs, 2);
  expect_error(s, true, "name,delay\nx,1\ny,abc\n",
               "t.csv:3:3: expected BIGINT for column 'delay', found 'abc'", 3,
               3);
  /* line breaks inside quoted fields count as lines */
  expect_error(s, true, "name,delay\n\"a\nb\nc\",1\nz,bad\n",
               "t.csv:5:3: expected BIGINT for column 'delay', found 'bad'", 5,
               3);
  /* a field that starts on a later physical line of its record */
  expect_error(s, true, "name,delay\n\"x\r\ny\",bad\n",
               "t.csv:3:4: expected BIGINT for column 'delay', found 'bad'", 3,
               4);
  expect_error(s, true, "name,delay\n1\n",
               "t.csv:2:2: too few fields: expected 2, found 1", 2, 2);
  expect_error(s, true, "name,delay\n1,2,3\n",
               "t.csv:2:5: too many fields: expected 2", 2, 5);
  expect_error(s, false, "a,1\nb,2,\n",
               "t.csv:2:5: too many fields: expected 2", 2, 5);
  expect_error(s, true, "name,delay\nx\"y,1\n",
               "t.csv:2:2: unexpected quote in unquoted field", 2, 2);
  expect_error(s, true, "name,delay\n\"x\"y,1\n",
               "t.csv:2:4: unexpected character after closing quote", 2, 4);
  expect_error(s, true, "name,delay\n\"x\"\rz,1\n",
               "t.csv:2:4: unexpected character after closing quote", 2, 4);
  /* unterminated quote at EOF */
  expect_error(s, true, "name,delay\nok,1\n\"abc,1\n",
               "t.csv:3:1: unterminated quoted field", 3, 1);
  expect_error(s, true, "name,delay\nok,\"",
               "t.csv:2:4: unterminated quoted field", 2, 4);
  /* invalid UTF-8 in a text column */
  expect_error(s, true, "name,delay\nok,1\nab\xC3(,1\n",
               "t.csv:3:1: invalid UTF-8 in column 'name'", 3, 1);
  expect_error(s, true, "name,delay\n\xED\xA0\x80,1\n",
               "t.csv:2:1: invalid UTF-8 in column 'name'", 2, 1);
  /* message snippets escape control bytes and are cut */
  expect_error(s, false,
               "x,\x01"
               "0123456789012345678901234567890123456789xyz\n",
               "t.csv:1:3: expected BIGINT for column 'delay', found "
               "'\\x01012345678901234567890123456789012345678...'",
               1, 3);

  /* after an error the reader refuses further input */
  lm_csv_options o = opts(true);
  lm_csv_reader *r = lm_csv_reader_new(s, &o, "src.csv");
  lm_error err;
  CHECK(lm_csv_reader_feed(r, "name,delay\nx,zz\n", 16, &err) == LM_ERR_PARSE);
  CHECK_EQ_STR(err.msg,
               "src.csv:2:3: expected BIGINT for column 'delay', found 'zz'");
  lm_err_clear(&err);
  CHECK(lm_csv_reader_feed(r, "y,1\n", 4, &err) == LM_ERR_PARSE);
  CHECK_EQ_STR(err.msg,
               "src.csv:2:3: expected BIGINT for column 'delay', found 'zz'");
  CHECK(lm_csv_reader_finish(r, &err) == LM_ERR_PARSE);
  CHECK(lm_csv_reader_next(r) == NULL);
  lm_csv_reader_free(r);

  /* limits: a record longer than max_row_bytes */
  o.max_row_bytes = 16;
  r = lm_csv_reader_new(s, &o, "lim.csv");
  CHECK(lm_csv_reader_feed(r, "name,delay\n\"0123456789", 22, &err) == 0);
  CHECK(lm_csv_reader_feed(r, "0123456789\",1\n", 14, &err) == LM_ERR_LIMIT);
  CHECK_EQ_I64(err.line, 2);
  lm_csv_reader_free(r);
  /* bad delimiter and unsupported types are reported on first use */
  o = opts(true);
  o.delimiter = '"';
  r = lm_csv_reader_new(s, &o, NULL);
  CHECK(lm_csv_reader_feed(r, "a", 1, &err) == LM_ERR_INVALID);
  lm_csv_reader_free(r);
  lm_schema_release(s);

  col_spec du[] = {{"du", LM_TYPE_DURATION, true}};
  s = mk_schema(du, 1);
  r = lm_csv_reader_new(s, NULL, NULL);
  CHECK(lm_csv_reader_finish(r, &err) == LM_ERR_BIND);
  lm_csv_reader_free(r);
  lm_schema_release(s);
  /* INTERVAL (µs) reads PostgreSQL's interval text; months do not fit */
  col_spec iv[] = {{"iv", LM_TYPE_INTERVAL, true}};
  s = mk_schema(iv, 1);
  o = opts(false);
  char *d = csv_dump(s, &o, "1 day 02:00:00\n-00:00:01.5\n\n", NULL);
  CHECK_EQ_STR(d, "[batch 3]\n93600000000\n-1500000\nNULL\nOK rows=3\n");
  free(d);
  expect_error(s, false, "1 mon\n",
               "t.csv:1:1: value '1 mon' out of range for INTERVAL column 'iv'",
               1, 1);
  lm_schema_release(s);
}

static void split_run(const lm_test_split_ctx *c, const char *text, size_t len,
                      const size_t *cuts, int ncuts, lm_buf *dump) {
  run_csv(c->s, c->options, text, len, cuts, ncuts, dump, NULL);
}

/* Every single split point, byte-at-a-time feeding and a few random
 * multi-cuts must give the same batches (and the same error) as one feed. */
static void check_splits(lm_schema *s, const lm_csv_options *o,
                         const char *text, size_t len) {
  lm_test_split_ctx c = {s, o};
  lm_test_check_splits(split_run, &c, text, len, 200);
}

static void test_splits(void) {
  col_spec cs[] = {{"name", LM_TYPE_UTF8, true},
                   {"qty", LM_TYPE_INT32, true},
                   {"note", LM_TYPE_UTF8, true},
                   {"ts", LM_TYPE_TIMESTAMP, true}};
  lm_schema *s = mk_schema(cs, 4);
  static const char tricky[] =
      "\xEF\xBB\xBF"
      "Name, Qty ,note,ts,ignored\r\n"
      "apple,1,\"multi\nline, with \"\"quotes\"\"\",2024-01-02T03:04:05Z,x\r\n"
      "\r\n"
      "\"pe\"\"ar\",  -2 ,,2024-01-02 03:04:05.5,\n"
      "caf\xC3\xA9 \xF0\x9F\x98\x80,,\"\",,\"\"\n"
      "\"\",3,\"\r\n\",1970-01-01,\"a\"\"\"\n"
      "\n"
      "\"\"\"\",4,\"\"\"\"\"\",,\r\n"
      "last,5,x,\"2024-02-29T00:00:00Z\",\"\r\"";
  lm_csv_options o = opts(true);
  char *d = csv_dump(s, &o, tricky, NULL);
  CHECK_EQ_STR(
      d, "[batch 6]\n"
         "s5:apple|1|s25:multi\nline, with \"quotes\"|ts1704164645000000\n"
         "s5:pe\"ar|-2|NULL|ts1704164645500000\n"
         "s10:caf\xC3\xA9 \xF0\x9F\x98\x80|NULL|s0:|NULL\n"
         "s0:|3|s2:\r\n|ts0\n"
         "s1:\"|4|s2:\"\"|NULL\n"
         "s4:last|5|s1:x|ts1709164800000000\n"
         "OK rows=6\n");
  free(d);
  check_splits(s, &o, tricky, sizeof tricky - 1);
  o.batch_rows = 2; /* batch boundaries in the middle */
  check_splits(s, &o, tricky, sizeof tricky - 1);
  /* inputs that end in an error also split identically */
  static const char bad1[] = "name,qty\nx,1\n\"y\nz\",2\n\"open,3\n";
  check_splits(s, &o, bad1, sizeof bad1 - 1);
  static const char bad2[] = "name,qty\nx,1\nab\"c\nd,2\n";
  check_splits(s, &o, bad2, sizeof bad2 - 1);
  static const char bad3[] = "\xEF\xBB\"x\",1\n";
  check_splits(s, &o, bad3, sizeof bad3 - 1);
  static const char bad4[] = "name,qty\n\"x\"\r,1\n";
  check_splits(s, &o, bad4, sizeof bad4 - 1);
  static const char bad5[] = "name,qty\nx,1,2,3\ny,2\n";
  check_splits(s, &o, bad5, sizeof bad5 - 1);
  lm_csv_options p = opts(false);
  static const char pos[] = "\xEF\xBB\xBF\"a\",1,,,\n\"b\",,,,\r\n,2,\"\",,9";
  check_splits(s, &p, pos, sizeof pos - 1);
  lm_schema_release(s);
}

/* A 4 MB quoted field fed in 7-byte chunks: the carried record is scanned
 * incrementally (a rescan per chunk would take minutes). */
static void test_big_field(void) {
  col_spec cs[] = {{"a", LM_TYPE_UTF8, true}, {"b", LM_TYPE_INT64, true}};
  lm_schema *s = mk_schema(cs, 2);
  size_t n = 4 << 20;
  lm_buf in;
  lm_buf_init(&in);
  lm_buf_puts(&in, "a,b\n\"");
  for (size_t i = 0; i < n; i++)
    lm_buf_putc(&in, i % 1000 == 999 ? '\n' : i % 100 == 50 ? ',' : 'x');
  lm_buf_puts(&in, "\",42\nz,1\n");
  lm_csv_reader *r = lm_csv_reader_new(s, NULL, "big.csv");
  lm_error err;
  int rc = 0;
  for (size_t off = 0; off < in.len && rc == 0; off += 7)
    rc = lm_csv_reader_feed(r, in.data + off, LM_MIN((size_t)7, in.len - off),
                            &err);
  if (rc == 0)
    rc = lm_csv_reader_finish(r, &err);
  CHECK(rc == 0);
  lm_batch *b = lm_csv_reader_next(r);
  CHECK(b && b->num_rows == 2);
  if (b) {
    int32_t len;
    lm_array_str(b->columns[0], 0, &len);
    CHECK_EQ_I64(len, (int64_t)n);
    CHECK_EQ_I64(lm_array_i64(b->columns[1])[0], 42);
    CHECK_EQ_I64(lm_array_i64(b->columns[1])[1], 1);
  }
  lm_batch_release(b);
  lm_csv_reader_free(r);
  /* the line count includes the line breaks inside the big field */
  r = lm_csv_reader_new(s, NULL, "big.csv");
  lm_csv_reader_feed(r, in.data, in.len, &err);
  rc = lm_csv_reader_feed(r, "bad,x\n", 6, &err);
  CHECK(rc == LM_ERR_PARSE);
  CHECK_EQ_I64(err.line, 3 + (int64_t)(n / 1000) + 1);
  lm_csv_reader_free(r);
  lm_buf_free(&in);
  lm_schema_release(s);
}

static void test_flights(void) {
  char *data = NULL;
  size_t len = 0;
  lm_error err;
  if (lm_read_file("../shared/data/flights-200k.csv", &data, &len, &err)) {
    fprintf(stderr, "flights-200k.csv: %s\n", err.msg);
    CHECK(!"cannot read ../shared/data/flights-200k.csv");
    return;
  }
  col_spec cs[] = {{"ts", LM_TYPE_TIMESTAMP, false},
                   {"origin", LM_TYPE_UTF8, true},
                   {"destination", LM_TYPE_UTF8, true},
                   {"delay", LM_TYPE_INT64, true},
                   {"distance", LM_TYPE_INT64, true}};
  lm_schema *s = mk_schema(cs, 5);
  for (int pass = 0; pass < 2; pass++) {
    lm_csv_reader *r = lm_csv_reader_new(s, NULL, "flights-200k.csv");
    size_t chunk = pass == 0 ? len : 65536 + 17; /* one feed / chunked */
    int rc = 0;
    for (size_t off = 0; off < len && rc == 0; off += chunk)
      rc = lm_csv_reader_feed(r, data + off, LM_MIN(chunk, len - off), &err);
    if (rc == 0)
      rc = lm_csv_reader_finish(r, &err);
    CHECK(rc == 0);
    if (rc)
      fprintf(stderr, "flights: %s\n", err.msg);
    CHECK_EQ_I64(lm_csv_reader_rows(r), 200000);
    int64_t total = 0, nb = 0;
    lm_batch *b, *first = NULL, *last = NULL;
    while ((b = lm_csv_reader_next(r)) != NULL) {
      total += b->num_rows;
      nb++;
      CHECK(b->num_rows <= 8192);
      if (!first)
        first = b;
      else {
        lm_batch_release(last);
        last = b;
      }
    }
    CHECK_EQ_I64(total, 200000);
    CHECK_EQ_I64(nb, (200000 + 8191) / 8192);
    if (first && last) {
      /* 2001-01-01T00:01:00Z,LAS,PHL,33,2176 */
      int64_t ts0;
      lm_parse_timestamp("2001-01-01T00:01:00Z", 20, &ts0);
      CHECK_EQ_I64(lm_array_i64(first->columns[0])[0], ts0);
      int32_t n;
      const char *p = lm_array_str(first->columns[1], 0, &n);
      CHECK(n == 3 && memcmp(p, "LAS", 3) == 0);
      p = lm_array_str(first->columns[2], 0, &n);
      CHECK(n == 3 && memcmp(p, "PHL", 3) == 0);
      CHECK_EQ_I64(lm_array_i64(first->columns[3])[0], 33);
      CHECK_EQ_I64(lm_array_i64(first->columns[4])[0], 2176);
      /* last: 2001-01-13T08:11:00Z,ATL,ORD,6,606 */
      int64_t k = last->num_rows - 1, tsl;
      lm_parse_timestamp("2001-01-13T08:11:00Z", 20, &tsl);
      CHECK_EQ_I64(lm_array_i64(last->columns[0])[k], tsl);
      p = lm_array_str(last->columns[1], k, &n);
      CHECK(n == 3 && memcmp(p, "ATL", 3) == 0);
      p = lm_array_str(last->columns[2], k, &n);
      CHECK(n == 3 && memcmp(p, "ORD", 3) == 0);
      CHECK_EQ_I64(lm_array_i64(last->columns[3])[k], 6);
      CHECK_EQ_I64(lm_array_i64(last->columns[4])[k], 606);
    }
    lm_batch_release(first);
    lm_batch_release(last);
    lm_csv_reader_free(r);
  }
  lm_schema_release(s);
  free(data);
}

/* Builds a batch with every type, NULLs and awkward strings. */
static lm_batch *sample_batch(lm_schema *s) {
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, 0);
  static const char *strs[] = {"plain",
                               "",
                               "a,b",
                               "say \"hi\"",
                               "two\nlines",
                               "cr\rlf\r\n",
                               " padded ",
                               "\xEF\xBB\xBF"
                               "bom",
                               "caf\xC3\xA9",
                               "\"",
                               NULL};
  uint64_t seed = 7;
  for (int i = 0; i < 40; i++) {
    lm_builder *c = bb.cols;
    bool nul = i % 5 == 4;
    if (nul)
      lm_builder_append_null(&c[0]);
    else
      lm_builder_append_bool(&c[0], i & 1);
    if (nul)
      lm_builder_append_null(&c[1]);
    else
      lm_builder_append_int(&c[1], (int64_t)(i * 37 % 256) - 128);
    lm_builder_append_int(&c[2],
                          i == 0 ? INT32_MIN : (int32_t)lm_test_rand(&seed));
    lm_builder_append_int(&c[3], i == 1   ? INT64_MIN
                                 : i == 2 ? INT64_MAX
                                          : (int64_t)lm_test_rand(&seed));
    uint64_t bits = lm_test_rand(&seed);
    double dv;
    memcpy(&dv, &bits, sizeof dv);
    if (isnan(dv) || i == 3)
      dv = 0.1 * i;
    if (i == 5)
      dv = -0.0;
    if (i == 6)
      dv = INFINITY;
    if (i == 7)
      dv = 5e-324;
    if (nul)
      lm_builder_append_null(&c[4]);
    else
      lm_builder_append_double(&c[4], dv);
    float fv = (float)(i * 1.1);
    if (i == 8)
      fv = 3.4028235e38f;
    lm_builder_append_double(&c[5], fv);
    const char *str = strs[i % LM_ARRAY_LEN(strs)];
    if (str)
      lm_builder_append_str(&c[6], str, (int32_t)strlen(str));
    else
      lm_builder_append_null(&c[6]);
    if (nul)
      lm_builder_append_null(&c[7]);
    else
      lm_builder_append_int(
          &c[7], (int64_t)(lm_test_rand(&seed) % 310000000000000000ULL) -
                     60000000000000000LL);
  }
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  return b;
}

static void test_writer(void) {
  col_spec cs[] = {
      {"b", LM_TYPE_BOOL, true},      {"i8", LM_TYPE_INT8, true},
      {"i32", LM_TYPE_INT32, true},   {"i64", LM_TYPE_INT64, true},
      {"f64", LM_TYPE_FLOAT64, true}, {"f32", LM_TYPE_FLOAT32, true},
      {"s", LM_TYPE_UTF8, true},      {"ts", LM_TYPE_TIMESTAMP, true}};
  lm_schema *s = mk_schema(cs, 8);
  lm_batch *b = sample_batch(s);
  CHECK(b != NULL);
  for (int variant = 0; variant < 3; variant++) {
    lm_csv_options o = opts(true);
    if (variant == 1)
      o.crlf = true;
    if (variant == 2)
      o.delimiter = '.'; /* collides with number text */
    lm_buf out;
    lm_buf_init(&out);
    CHECK(lm_csv_write_header(&out, s, &o) == 0);
    CHECK(lm_csv_write_batch(&out, b, &o) == 0);
    lm_buf want, got;
    lm_buf_init(&want);
    lm_buf_init(&got);
    dump_batch(&want, b);
    lm_buf_printf(&want, "OK rows=40\n");
    run_csv(s, &o, out.data, out.len, NULL, 0, &got, NULL);
    CHECK_EQ_STR(got.data, want.data);
    lm_buf_free(&want);
    lm_buf_free(&got);
    lm_buf_free(&out);
  }
  /* exact text */
  lm_buf out;
  lm_buf_init(&out);
  CHECK(lm_csv_write_header(&out, s, NULL) == 0);
  CHECK_EQ_STR(out.data, "b,i8,i32,i64,f64,f32,s,ts\n");
  lm_batch *one = lm_batch_slice(b, 3, 2);
  out.len = 0;
  CHECK(lm_csv_write_batch(&out, one, NULL) == 0);
  lm_batch_release(one);
  CHECK(strstr(out.data, ",\"say \"\"hi\"\"\",") != NULL);
  CHECK(strstr(out.data, ",0.30000000000000004,") != NULL);
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);

  /* a single text column: NULL is an empty line, "" is quoted */
  col_spec one_col[] = {{"v", LM_TYPE_UTF8, true}};
  s = mk_schema(one_col, 1);
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, 0);
  lm_builder_append_str(&bb.cols[0], "x", 1);
  lm_builder_append_null(&bb.cols[0]);
  lm_builder_append_str(&bb.cols[0], "", 0);
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  lm_buf_init(&out);
  lm_csv_write_header(&out, s, NULL);
  lm_csv_write_batch(&out, b, NULL);
  CHECK_EQ_STR(out.data, "v\nx\n\n\"\"\n");
  lm_buf want, got;
  lm_buf_init(&want);
  lm_buf_init(&got);
  dump_batch(&want, b);
  lm_buf_printf(&want, "OK rows=3\n");
  lm_csv_options o = opts(true);
  run_csv(s, &o, out.data, out.len, NULL, 0, &got, NULL);
  CHECK_EQ_STR(got.data, want.data);
  lm_buf_free(&want);
  lm_buf_free(&got);
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);
}

int main(void) {
  test_basic_rfc4180();
  test_header_mapping();
  test_types();
  test_errors();
  test_splits();
  test_big_field();
  test_flights();
  test_writer();
  return lm_test_done("test_csv");
}
