/* tests/unit/test_toml.c — the TOML reader and ${VAR} expansion. The full
 * conformance suite runs separately (tests/toml_suite.c). */
#include "format/lm_toml.h"
#include "lm_test.h"

#include <math.h>
#include <stdlib.h>

static lm_toml_value *parse(const char *text, lm_error *err) {
  lm_toml_value *root = NULL;
  memset(err, 0, sizeof *err);
  int rc = lm_toml_parse(text, strlen(text), &root, err);
  if (rc)
    CHECK(root == NULL);
  return root;
}

/* Expects a parse error whose message starts with `prefix`. */
static void check_error(const char *text, const char *prefix) {
  lm_error err;
  lm_toml_value *root = parse(text, &err);
  CHECK(root == NULL);
  if (strncmp(err.msg, prefix, strlen(prefix)) != 0) {
    fprintf(stderr, "for %s\n  got error '%s'\n  want prefix '%s'\n", text,
            err.msg, prefix);
    lm_test_failures++;
  }
  lm_toml_free(root);
}

static void test_config(void) {
  const char *doc = "# laminardb.toml\n"
                    "sql = '''\n"
                    "CREATE SOURCE ticks FROM GENERATOR ('rows.per.second' = "
                    "'10');\n"
                    "SELECT 1;\n"
                    "'''\n"
                    "\n"
                    "[server]\n"
                    "mode = \"single\"\n"
                    "bind = \"0.0.0.0:8080\"   # trailing comment\n"
                    "console_token = \"${LAMINAR_CONSOLE_TOKEN}\"\n"
                    "\n"
                    "[checkpoint]\n"
                    "url = \"file:///var/lib/laminardb/checkpoints\"\n"
                    "interval = \"10s\"\n"
                    "enabled = true\n"
                    "max_inflight = 1_000\n";
  lm_error err;
  lm_toml_value *root = parse(doc, &err);
  CHECK(root != NULL);
  if (!root) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK_EQ_STR(lm_toml_get_string(root, "sql", NULL, NULL),
               "CREATE SOURCE ticks FROM GENERATOR ('rows.per.second' = "
               "'10');\nSELECT 1;\n");
  CHECK_EQ_STR(lm_toml_get_string(root, "server.bind", NULL, NULL),
               "0.0.0.0:8080");
  CHECK_EQ_STR(lm_toml_get_string(root, " server . mode ", NULL, NULL),
               "single");
  CHECK_EQ_STR(lm_toml_get_string(root, "server.\"console_token\"", NULL, NULL),
               "${LAMINAR_CONSOLE_TOKEN}");
  CHECK_EQ_I64(lm_toml_get_int(root, "checkpoint.max_inflight", 0, NULL), 1000);
  CHECK(lm_toml_get_bool(root, "checkpoint.enabled", false, NULL));
  bool ok = true;
  CHECK_EQ_I64(lm_toml_get_int(root, "server.bind", 7, &ok), 7);
  CHECK(!ok);
  CHECK(lm_toml_get(root, "server.nope") == NULL);
  CHECK(lm_toml_get(root, "server.bind.x") == NULL);
  CHECK(lm_toml_get(root, "") == NULL);
  CHECK(lm_toml_get(root, "server.") == NULL);
  const lm_toml_value *server = lm_toml_get(root, "server");
  CHECK(server && server->kind == LM_TOML_TABLE && server->u.table.len == 3);
  CHECK(server && server->line == 7 && server->column == 1);
  const lm_toml_value *bind = lm_toml_get(root, "server.bind");
  CHECK(bind && bind->line == 9 && bind->column == 8);
  lm_toml_free(root);
}

static void test_values(void) {
  const char *doc =
      "a.b.\"c.d\" = 1\n"
      "a.b.e = 'lit\\eral'\n"
      "hex = 0xDEAD_beef\noct = 0o755\nbin = 0b1010\nneg = "
      "-9223372036854775808\n"
      "f1 = 6.02e23\nf2 = -0.5\nf3 = 1e-3\nf4 = -inf\nf5 = nan\nf6 = "
      "3_141.5_9\n"
      "s1 = \"tab\\tq\\\"u\\u00e9\\U0001F600\"\n"
      "s2 = \"\"\"\n  line one \\\n    continued\"\"\"\n"
      "s3 = '''\nraw \\n ''quoted'''''\n"
      "odt = 1979-05-27T07:32:00.999999-07:00\n"
      "ldt = 1979-05-27 07:32:00\n"
      "ld = 1979-05-27\n"
      "lt = 07:32:00.5\n"
      "arr = [ 1, 'two', [3.0], { x = 4 }, ]\n"
      "inl = { name.first = \"Tom\", name.last = \"P\" }\n"
      "[[fruit]]\nname = \"apple\"\n[fruit.physical]\ncolor = \"red\"\n"
      "[[fruit]]\nname = \"banana\"\n";
  lm_error err;
  lm_toml_value *root = parse(doc, &err);
  CHECK(root != NULL);
  if (!root) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK_EQ_I64(lm_toml_get_int(root, "a.b.\"c.d\"", 0, NULL), 1);
  CHECK_EQ_STR(lm_toml_get_string(root, "a.b.e", NULL, NULL), "lit\\eral");
  CHECK_EQ_I64(lm_toml_get_int(root, "hex", 0, NULL), 0xDEADBEEF);
  CHECK_EQ_I64(lm_toml_get_int(root, "oct", 0, NULL), 0755);
  CHECK_EQ_I64(lm_toml_get_int(root, "bin", 0, NULL), 10);
  CHECK(lm_toml_get_int(root, "neg", 0, NULL) == INT64_MIN);
  const lm_toml_value *v = lm_toml_get(root, "f1");
  CHECK(v && v->kind == LM_TOML_FLOAT && v->u.f == 6.02e23);
  v = lm_toml_get(root, "f2");
  CHECK(v && v->u.f == -0.5);
  v = lm_toml_get(root, "f3");
  CHECK(v && v->u.f == 1e-3);
  v = lm_toml_get(root, "f4");
  CHECK(v && isinf(v->u.f) && v->u.f < 0);
  v = lm_toml_get(root, "f5");
  CHECK(v && isnan(v->u.f));
  v = lm_toml_get(root, "f6");
  CHECK(v && v->u.f == 3141.59);
  CHECK_EQ_STR(lm_toml_get_string(root, "s1", NULL, NULL),
               "tab\tq\"u\xc3\xa9\xf0\x9f\x98\x80");
  CHECK_EQ_STR(lm_toml_get_string(root, "s2", NULL, NULL),
               "  line one continued");
  CHECK_EQ_STR(lm_toml_get_string(root, "s3", NULL, NULL),
               "raw \\n ''quoted''");
  v = lm_toml_get(root, "odt");
  CHECK(v && v->kind == LM_TOML_DATETIME && v->dt.kind == LM_TOML_DT_OFFSET);
  if (v) {
    CHECK_EQ_I64(v->dt.year, 1979);
    CHECK_EQ_I64(v->dt.nanosecond, 999999000);
    CHECK_EQ_I64(v->dt.offset_minutes, -420);
    CHECK_EQ_STR(v->u.str.ptr, "1979-05-27T07:32:00.999999-07:00");
  }
  v = lm_toml_get(root, "ldt");
  CHECK(v && v->dt.kind == LM_TOML_DT_LOCAL);
  if (v)
    CHECK_EQ_STR(v->u.str.ptr, "1979-05-27T07:32:00");
  v = lm_toml_get(root, "ld");
  CHECK(v && v->dt.kind == LM_TOML_DT_DATE && v->dt.day == 27);
  v = lm_toml_get(root, "lt");
  CHECK(v && v->dt.kind == LM_TOML_DT_TIME && v->dt.nanosecond == 500000000);
  v = lm_toml_get(root, "arr");
  CHECK(v && v->kind == LM_TOML_ARRAY && v->u.array.len == 4);
  if (v && v->u.array.len == 4) {
    CHECK(v->u.array.items[1]->kind == LM_TOML_STRING);
    CHECK(v->u.array.items[2]->kind == LM_TOML_ARRAY);
    CHECK_EQ_I64(lm_toml_get_int(v->u.array.items[3], "x", 0, NULL), 4);
  }
  CHECK_EQ_STR(lm_toml_get_string(root, "inl.name.last", NULL, NULL), "P");
  v = lm_toml_get(root, "fruit");
  CHECK(v && v->kind == LM_TOML_ARRAY && v->u.array.len == 2);
  if (v && v->u.array.len == 2) {
    CHECK_EQ_STR(
        lm_toml_get_string(v->u.array.items[0], "physical.color", NULL, NULL),
        "red");
    CHECK_EQ_STR(lm_toml_get_string(v->u.array.items[1], "name", NULL, NULL),
                 "banana");
  }
  lm_toml_free(root);
}

static void test_errors(void) {
  check_error("a = 1\na = 2\n", "2:1: duplicate key 'a'");
  check_error("[t]\nx = 1\n[t]\n", "3:1: table [t] is defined twice");
  check_error("a = {b = 1}\na.c = 2\n", "2:1: cannot add keys to 'a'");
  check_error("x = \n", "1:5: expected a value");
  check_error("x = 01\n", "1:5: leading zeros are not allowed");
  check_error("x = 9223372036854775808\n", "1:5: integer out of range");
  check_error("x = \"abc\n", "1:9: newline in a single-line string");
  check_error("x = \"\\q\"\n", "1:6: invalid escape sequence '\\q'");
  check_error("x = 1 2\n", "1:7: expected a newline after a value");
  check_error("x = 2023-02-29\n", "1:5: invalid date 2023-02-29");
  check_error("x = 1__0\n", "1:5: invalid underscore");
  check_error("[a]\nb.c = 1\n[a.b]\n", "3:1: table [a.b] is defined twice");
  check_error("k = 'é\xff'\n", "1:7: invalid UTF-8");
  check_error("x = [1, 2\n", "2:1: unterminated array");
  /* deep nesting is a limit error, not a crash */
  char deep[1200];
  size_t n = 0;
  memcpy(deep, "x = ", 4);
  n = 4;
  for (int i = 0; i < 500; i++)
    deep[n++] = '[';
  deep[n] = '\0';
  lm_error err;
  lm_toml_value *root = parse(deep, &err);
  CHECK(root == NULL && err.code == LM_ERR_LIMIT);
}

static void test_big_table(void) {
  /* many keys: exercises the hash index and duplicate detection */
  lm_buf b;
  lm_buf_init(&b);
  for (int i = 0; i < 5000; i++)
    lm_buf_printf(&b, "k%d = %d\n", i, i);
  lm_error err;
  lm_toml_value *root = parse(b.data, &err);
  CHECK(root != NULL);
  CHECK_EQ_I64(lm_toml_get_int(root, "k4321", -1, NULL), 4321);
  CHECK_EQ_I64(lm_toml_get_int(root, "k0", -1, NULL), 0);
  lm_toml_free(root);
  lm_buf_printf(&b, "k1234 = 0\n");
  check_error(b.data, "5001:1: duplicate key 'k1234'");
  lm_buf_free(&b);
}

static void test_parse_file(void) {
  char path[] = "/tmp/lm_test_tomlXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  FILE *f = fdopen(fd, "w");
  fputs("ok = true\nbad = [\n", f);
  fclose(f);
  lm_toml_value *root = NULL;
  lm_error err;
  CHECK(lm_toml_parse_file(path, &root, &err) == LM_ERR_PARSE);
  CHECK(root == NULL);
  CHECK(strstr(err.msg, path) == err.msg);
  CHECK(strstr(err.msg, "3:1: unterminated array") != NULL);
  remove(path);
  CHECK(lm_toml_parse_file(path, &root, &err) != 0);
}

static const char *expand(const char *in, lm_error *err) {
  static lm_buf out;
  lm_buf_free(&out);
  lm_buf_init(&out);
  memset(err, 0, sizeof *err);
  if (lm_env_expand(in, strlen(in), &out, err))
    return NULL;
  return out.data ? out.data : "";
}

static void test_env_expand(void) {
  setenv("LM_TEST_VAR", "value", 1);
  setenv("LM_EMPTY", "", 1);
  unsetenv("LM_TEST_UNSET");
  lm_error err;
  CHECK_EQ_STR(expand("a ${LM_TEST_VAR} b", &err), "a value b");
  CHECK_EQ_STR(expand("${LM_TEST_VAR}${LM_EMPTY}${LM_TEST_VAR}", &err),
               "valuevalue");
  CHECK_EQ_STR(expand("$${LM_TEST_VAR} $x $$ $", &err),
               "${LM_TEST_VAR} $x $$ $");
  CHECK_EQ_STR(expand("", &err), "");
  CHECK(expand("line1\n  ${LM_TEST_UNSET}", &err) == NULL);
  CHECK_EQ_STR(err.msg, "2:3: environment variable 'LM_TEST_UNSET' is not set");
  CHECK(expand("${LM_TEST_VAR", &err) == NULL);
  CHECK(strstr(err.msg, "unterminated") != NULL);
  CHECK(expand("${1X}", &err) == NULL);
  CHECK(expand("${}", &err) == NULL);
  CHECK(expand("${A-B}", &err) == NULL);
  expand("", &err);
}

int main(void) {
  test_config();
  test_values();
  test_errors();
  test_big_table();
  test_parse_file();
  test_env_expand();
  return lm_test_done("test_toml");
}
