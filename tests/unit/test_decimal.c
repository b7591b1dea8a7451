/* Unit tests for columnar/lm_decimal.h: parsing with half-away-from-zero
 * rounding, rescaling, the 38-digit limit, division at PostgreSQL's scale
 * (select_div_scale, checked against PostgreSQL 15's answers written in the
 * comments), text forms, TIME and BYTEA text input. */
#include "base/lm_base.h"
#include "columnar/lm_decimal.h"
#include "lm_test.h"

#include <math.h>
#include <string.h>

/* s parsed at `scale`, then printed: the text, or "ESYNTAX"/"EOVERFLOW" */
static const char *PS(const char *s, int scale) {
  static char buf[64];
  lm_i128 v;
  int rc = lm_dec_parse(s, strlen(s), scale, &v, NULL);
  if (rc == LM_DEC_ESYNTAX)
    return "ESYNTAX";
  if (rc == LM_DEC_EOVERFLOW)
    return "EOVERFLOW";
  lm_dec_format(buf, v, scale);
  return buf;
}

/* a / b as PostgreSQL's numeric division prints it */
static const char *DIV(const char *a, int sa, const char *b, int sb) {
  static char buf[64];
  lm_i128 x, y, q;
  lm_dec_parse(a, strlen(a), sa, &x, NULL);
  lm_dec_parse(b, strlen(b), sb, &y, NULL);
  int rs = lm_dec_div_scale(x, sa, y, sb);
  if (lm_dec_div(x, sa, y, sb, rs, &q))
    return "EOVERFLOW";
  lm_dec_format(buf, q, rs);
  return buf;
}

static void test_parse(void) {
  CHECK_EQ_STR(PS("1.10", 2), "1.10");
  CHECK_EQ_STR(PS("12.345", 2), "12.35");   /* half away from zero */
  CHECK_EQ_STR(PS("-12.345", 2), "-12.35"); /* PostgreSQL: -12.35 */
  CHECK_EQ_STR(PS("-0.005", 2), "-0.01");
  CHECK_EQ_STR(PS("0.004", 2), "0.00");
  CHECK_EQ_STR(PS(" 7 ", 1), "7.0");
  CHECK_EQ_STR(PS("+1e3", 0), "1000");
  CHECK_EQ_STR(PS("1.5e-3", 4), "0.0015");
  CHECK_EQ_STR(PS(".5", 1), "0.5");
  CHECK_EQ_STR(PS("5.", 0), "5");
  CHECK_EQ_STR(PS("", 0), "ESYNTAX");
  CHECK_EQ_STR(PS("abc", 0), "ESYNTAX");
  CHECK_EQ_STR(PS("1.2.3", 0), "ESYNTAX");
  CHECK_EQ_STR(PS("1e", 0), "ESYNTAX");
  CHECK_EQ_STR(PS("-", 0), "ESYNTAX");
  /* 38 digits fit, 39 do not */
  CHECK_EQ_STR(PS("99999999999999999999999999999999999999", 0),
               "99999999999999999999999999999999999999");
  CHECK_EQ_STR(PS("999999999999999999999999999999999999999", 0), "EOVERFLOW");
  CHECK_EQ_STR(PS("1", 38), "EOVERFLOW"); /* 10^38 units */
  CHECK_EQ_STR(PS("0.1", 38), "0.10000000000000000000000000000000000000");
  CHECK_EQ_STR(PS("1e100", 0), "EOVERFLOW");
  CHECK_EQ_STR(PS("1e-100", 5), "0.00000");
  CHECK_EQ_STR(PS("0000000000000000000000000000000000000000001.5", 1), "1.5");
  int fd = -1;
  lm_i128 v;
  CHECK(lm_dec_parse("12.340", 6, 3, &v, &fd) == 0);
  CHECK_EQ_I64(fd, 3);
  CHECK(lm_dec_parse("1.5e2", 5, 0, &v, &fd) == 0);
  CHECK_EQ_I64(fd, 0);
}

static void test_rescale(void) {
  lm_i128 r;
  CHECK(lm_dec_rescale(12345, 3, 1, &r) == 0); /* 12.345 -> 12.3 */
  CHECK_EQ_I64((int64_t)r, 123);
  CHECK(lm_dec_rescale(-125, 2, 1, &r) == 0); /* -1.25 -> -1.3 */
  CHECK_EQ_I64((int64_t)r, -13);
  CHECK(lm_dec_rescale(15, 1, 3, &r) == 0);
  CHECK_EQ_I64((int64_t)r, 1500);
  CHECK(lm_dec_rescale(lm_dec_pow10(37), 0, 1, &r) == LM_DEC_EOVERFLOW);
  CHECK(lm_dec_rescale(0, 0, 38, &r) == 0 && r == 0);
  CHECK(lm_dec_fits(99999, 5));
  CHECK(!lm_dec_fits(100000, 5));
  CHECK(!lm_dec_fits(-100000, 5));
  CHECK_EQ_I64(lm_dec_digits(0), 1);
  CHECK_EQ_I64(lm_dec_digits(-1000), 4);
  lm_i128 d;
  CHECK(lm_dec_from_double(1.005, 2, &d) == 0); /* PostgreSQL: 1.01 */
  CHECK_EQ_I64((int64_t)d, 101);
  /* NaN / ±Infinity are the special values now (PostgreSQL 14+) */
  CHECK(lm_dec_from_double(0.0 / 0.0, 2, &d) == 0 && d == LM_DEC_NAN);
  CHECK(lm_dec_from_double(-1.0 / 0.0, 2, &d) == 0 && d == LM_DEC_NINF);
}

/* NaN, Infinity, -Infinity (lm_decimal.h): text in and out, order, scale
 * independence, doubles. */
static void test_special(void) {
  lm_i128 v;
  int fd = -1;
  CHECK(lm_dec_parse(" NaN ", 5, 2, &v, &fd) == 0 && v == LM_DEC_NAN);
  CHECK_EQ_I64(fd, 0);
  CHECK(lm_dec_parse("-INFINITY", 9, 0, &v, NULL) == 0 && v == LM_DEC_NINF);
  CHECK(lm_dec_parse("+inf", 4, 3, &v, NULL) == 0 && v == LM_DEC_PINF);
  CHECK(lm_dec_parse("+nan", 4, 0, &v, NULL) == LM_DEC_ESYNTAX);
  CHECK(lm_dec_parse("infx", 4, 0, &v, NULL) == LM_DEC_ESYNTAX);
  CHECK(lm_dec_parse("in", 2, 0, &v, NULL) == LM_DEC_ESYNTAX);
  CHECK(LM_DEC_NINF < -lm_dec_pow10(38) && LM_DEC_PINF > lm_dec_pow10(38));
  CHECK(LM_DEC_PINF < LM_DEC_NAN);
  CHECK(lm_dec_is_special(LM_DEC_NAN) && lm_dec_is_special(LM_DEC_NINF));
  CHECK(!lm_dec_is_special(lm_dec_pow10(38) - 1));
  CHECK(!lm_dec_is_special(1 - lm_dec_pow10(38)));
  CHECK(!lm_dec_fits(LM_DEC_NAN, 38) && !lm_dec_fits(LM_DEC_PINF, 38));
  lm_i128 r;
  CHECK(lm_dec_rescale(LM_DEC_PINF, 0, 10, &r) == 0 && r == LM_DEC_PINF);
  CHECK(lm_dec_rescale(LM_DEC_NAN, 10, 0, &r) == 0 && r == LM_DEC_NAN);
  char buf[64];
  CHECK(lm_dec_format(buf, LM_DEC_NAN, 2) == 3 && !strcmp(buf, "NaN"));
  CHECK(lm_dec_format(buf, LM_DEC_NINF, 0) == 9 && !strcmp(buf, "-Infinity"));
  CHECK(isnan(lm_dec_to_double(LM_DEC_NAN, 4)));
  CHECK(lm_dec_to_double(LM_DEC_PINF, 4) > 1e308);
}

static void test_div(void) {
  /* SELECT 1.00::numeric / 3 -> 0.33333333333333333333 */
  CHECK_EQ_STR(DIV("1.00", 2, "3", 0), "0.33333333333333333333");
  /* 10 / 3.0 -> 3.3333333333333333 */
  CHECK_EQ_STR(DIV("10", 0, "3.0", 1), "3.3333333333333333");
  /* 100000.00 / 7 -> 14285.714285714286 */
  CHECK_EQ_STR(DIV("100000.00", 2, "7", 0), "14285.714285714286");
  /* 0.001 / 7 -> 0.00014285714285714286 */
  CHECK_EQ_STR(DIV("0.001", 3, "7", 0), "0.00014285714285714286");
  /* 7.00 / 2 -> 3.5000000000000000 */
  CHECK_EQ_STR(DIV("7.00", 2, "2", 0), "3.5000000000000000");
  /* -7 / 4 -> -1.7500000000000000 */
  CHECK_EQ_STR(DIV("-7", 0, "4", 0), "-1.7500000000000000");
  /* 2 / 3 -> 0.66666666666666666667 (rounded half away) */
  CHECK_EQ_STR(DIV("2", 0, "3", 0), "0.66666666666666666667");
  /* 0 / 5 -> 0.00000000000000000000 */
  CHECK_EQ_STR(DIV("0", 0, "5", 0), "0.00000000000000000000");
  /* 1 / 0.0003 -> 3333.3333333333333333 */
  CHECK_EQ_STR(DIV("1", 0, "0.0003", 4), "3333.3333333333333333");
  /* a quotient of 38 digits at scale 0 still fits; 39 does not */
  lm_i128 q, big = lm_dec_pow10(37) * 9;
  CHECK(lm_dec_div(big, 0, 1, 0, 0, &q) == 0 && q == big);
  CHECK(lm_dec_div(big, 0, 1, 0, 1, &q) == LM_DEC_EOVERFLOW);
  /* a divisor near 10^38 (the long division's slow path) */
  lm_i128 dv = lm_dec_pow10(38) - 1;
  CHECK(lm_dec_div(dv, 0, dv, 0, 5, &q) == 0);
  CHECK_EQ_I64((int64_t)q, 100000);
}

static void test_text_inputs(void) {
  int64_t us;
  CHECK(lm_parse_time_us("10:30", 5, &us) == 0);
  CHECK_EQ_I64(us, INT64_C(37800000000));
  CHECK(lm_parse_time_us(" 23:59:59.5 ", 12, &us) == 0);
  CHECK_EQ_I64(us, INT64_C(86399500000));
  CHECK(lm_parse_time_us("24:00:00", 8, &us) == 0);
  CHECK(lm_parse_time_us("24:00:01", 8, &us) != 0);
  CHECK(lm_parse_time_us("10:60", 5, &us) != 0);
  CHECK(lm_parse_time_us("10", 2, &us) != 0);
  CHECK(lm_parse_time_us("", 0, &us) != 0);
  lm_buf b;
  lm_buf_init(&b);
  CHECK(lm_parse_bytea("\\x01 02ff", 9, &b) == 0);
  CHECK(b.len == 3 && (unsigned char)b.data[2] == 0xff);
  lm_buf_reset(&b);
  CHECK(lm_parse_bytea("a\\\\b\\101", 8, &b) == 0);
  CHECK(b.len == 4 && !memcmp(b.data, "a\\bA", 4));
  lm_buf_reset(&b);
  CHECK(lm_parse_bytea("\\xZZ", 4, &b) == -3);
  CHECK(lm_parse_bytea("\\x123", 5, &b) == -4);
  CHECK(lm_parse_bytea("a\\b", 3, &b) == -1);
  CHECK(lm_parse_bytea("\\", 1, &b) == -1);
  lm_buf_free(&b);
}

int main(void) {
  test_parse();
  test_rescale();
  test_special();
  test_div();
  test_text_inputs();
  return lm_test_done("test_decimal");
}
