/*
 * tests/toml_suite.c — runs the TOML 1.0.0 conformance suite (toml-test,
 * ../shared/testsuites/toml-test) against Laminar's TOML reader.
 *
 *   toml_suite [SUITE_DIR] [MIN_PASS_PERCENT] [-v]
 *
 * For every file listed in SUITE_DIR/files-toml-1.0.0:
 *  - valid/X.toml must parse, and the tree must equal valid/X.json, where
 *    every scalar is tagged {"type": T, "value": "text"} (T is string,
 *    integer, float, bool, datetime, datetime-local, date-local,
 *    time-local), tables are objects and arrays are arrays;
 *  - invalid/X.toml must be rejected.
 * Prints the pass rate; exits 0 when it is at least MIN_PASS_PERCENT
 * (default 100), 1 otherwise, 77 (ctest: skipped) when the suite is absent.
 * Contains a minimal JSON reader for the expected files.
 */
#include "format/lm_toml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- minimal JSON */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;

typedef struct jval jval;
struct jval {
  jkind kind;
  char *s; /* J_STR (may contain NUL: slen), J_NUM text */
  size_t slen;
  bool b;
  jval **items; /* J_ARR items, J_OBJ values */
  char **keys;  /* J_OBJ */
  size_t *klens;
  size_t n;
};

typedef struct {
  const char *p, *end;
  int depth;
} jparser;

static void jfree(jval *v) {
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++) {
    jfree(v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->klens);
  free(v->s);
  free(v);
}

static void jws(jparser *J) {
  while (J->p < J->end &&
         (*J->p == ' ' || *J->p == '\t' || *J->p == '\n' || *J->p == '\r'))
    J->p++;
}

static int hexd(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static bool jhex4(jparser *J, unsigned *out) {
  if (J->end - J->p < 4)
    return false;
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexd((unsigned char)J->p[i]);
    if (h < 0)
      return false;
    x = x * 16 + (unsigned)h;
  }
  J->p += 4;
  *out = x;
  return true;
}

static bool jstring(jparser *J, char **out, size_t *outlen) {
  if (J->p >= J->end || *J->p != '"')
    return false;
  J->p++;
  lm_buf b;
  lm_buf_init(&b);
  if (lm_buf_reserve(&b, 16))
    return false;
  b.data[0] = '\0';
  while (J->p < J->end && *J->p != '"') {
    char c = *J->p++;
    if (c != '\\') {
      lm_buf_putc(&b, c);
      continue;
    }
    if (J->p >= J->end)
      break;
    char e = *J->p++;
    switch (e) {
    case 'b':
      lm_buf_putc(&b, '\b');
      break;
    case 'f':
      lm_buf_putc(&b, '\f');
      break;
    case 'n':
      lm_buf_putc(&b, '\n');
      break;
    case 'r':
      lm_buf_putc(&b, '\r');
      break;
    case 't':
      lm_buf_putc(&b, '\t');
      break;
    case 'u': {
      unsigned cp;
      if (!jhex4(J, &cp))
        goto bad;
      if (cp >= 0xD800 && cp <= 0xDBFF && J->end - J->p >= 6 &&
          J->p[0] == '\\' && J->p[1] == 'u') {
        J->p += 2;
        unsigned lo;
        if (!jhex4(J, &lo))
          goto bad;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      char t[4];
      size_t n;
      if (cp < 0x80) {
        t[0] = (char)cp;
        n = 1;
      } else if (cp < 0x800) {
        t[0] = (char)(0xC0 | (cp >> 6));
        t[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
      } else if (cp < 0x10000) {
        t[0] = (char)(0xE0 | (cp >> 12));
        t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
      } else {
        t[0] = (char)(0xF0 | (cp >> 18));
        t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
      }
      lm_buf_append(&b, t, n);
      break;
    }
    default:
      lm_buf_putc(&b, e);
    }
  }
  if (J->p >= J->end)
    goto bad;
  J->p++;
  *out = b.data;
  *outlen = b.len;
  return true;
bad:
  lm_buf_free(&b);
  return false;
}

static jval *jparse(jparser *J);

static bool jpush(jval *v, jval *item, char *key, size_t klen) {
  jval **items = realloc(v->items, (v->n + 1) * sizeof *items);
  if (!items)
    return false;
  v->items = items;
  if (v->kind == J_OBJ) {
    char **keys = realloc(v->keys, (v->n + 1) * sizeof *keys);
    if (!keys)
      return false;
    v->keys = keys;
    size_t *kl = realloc(v->klens, (v->n + 1) * sizeof *kl);
    if (!kl)
      return false;
    v->klens = kl;
    v->keys[v->n] = key;
    v->klens[v->n] = klen;
  }
  v->items[v->n++] = item;
  return true;
}

static jval *jparse(jparser *J) {
  jws(J);
  if (J->p >= J->end || ++J->depth > 200)
    return NULL;
  jval *v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  char c = *J->p;
  if (c == '{' || c == '[') {
    v->kind = c == '{' ? J_OBJ : J_ARR;
    char close = c == '{' ? '}' : ']';
    J->p++;
    jws(J);
    if (J->p < J->end && *J->p == close) {
      J->p++;
      goto ok;
    }
    for (;;) {
      char *key = NULL;
      size_t klen = 0;
      if (v->kind == J_OBJ) {
        jws(J);
        if (!jstring(J, &key, &klen))
          goto bad;
        jws(J);
        if (J->p >= J->end || *J->p != ':') {
          free(key);
          goto bad;
        }
        J->p++;
      }
      jval *item = jparse(J);
      if (!item || !jpush(v, item, key, klen)) {
        free(key);
        jfree(item);
        goto bad;
      }
      jws(J);
      if (J->p < J->end && *J->p == ',') {
        J->p++;
        continue;
      }
      if (J->p < J->end && *J->p == close) {
        J->p++;
        goto ok;
      }
      goto bad;
    }
  } else if (c == '"') {
    v->kind = J_STR;
    if (!jstring(J, &v->s, &v->slen))
      goto bad;
  } else if (J->end - J->p >= 4 && memcmp(J->p, "true", 4) == 0) {
    v->kind = J_BOOL;
    v->b = true;
    J->p += 4;
  } else if (J->end - J->p >= 5 && memcmp(J->p, "false", 5) == 0) {
    v->kind = J_BOOL;
    J->p += 5;
  } else if (J->end - J->p >= 4 && memcmp(J->p, "null", 4) == 0) {
    v->kind = J_NULL;
    J->p += 4;
  } else {
    const char *s = J->p;
    while (J->p < J->end && strchr("+-0123456789.eE", *J->p))
      J->p++;
    if (J->p == s)
      goto bad;
    v->kind = J_NUM;
    v->s = lm_strndup(s, (size_t)(J->p - s));
  }
ok:
  J->depth--;
  return v;
bad:
  jfree(v);
  return NULL;
}

static const jval *jget(const jval *o, const char *key) {
  if (o->kind != J_OBJ)
    return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (o->klens[i] == strlen(key) && memcmp(o->keys[i], key, o->klens[i]) == 0)
      return o->items[i];
  return NULL;
}

/* -------------------------------------------------------- comparison */

static char why[2048];

/* Normalises a date/time text: 'T' separator, upper-case Z, no trailing
 * zeros in the fraction. */
static void norm_dt(const char *in, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; in[i] && o + 1 < cap; i++) {
    char c = in[i];
    if (i == 10 && (c == ' ' || c == 't'))
      c = 'T';
    if (c == 'z')
      c = 'Z';
    out[o++] = c;
    if (c == '.') {
      size_t fs = o;
      size_t j = i + 1;
      while (in[j] >= '0' && in[j] <= '9' && o + 1 < cap)
        out[o++] = in[j++];
      while (o > fs && out[o - 1] == '0')
        o--;
      if (o == fs)
        o--; /* drop the dot */
      i = j - 1;
    }
  }
  out[o] = '\0';
}

static const char *dt_type(lm_toml_dt_kind k) {
  switch (k) {
  case LM_TOML_DT_OFFSET:
    return "datetime";
  case LM_TOML_DT_LOCAL:
    return "datetime-local";
  case LM_TOML_DT_DATE:
    return "date-local";
  default:
    return "time-local";
  }
}

static bool is_tagged(const jval *j) {
  if (j->kind != J_OBJ || j->n != 2)
    return false;
  const jval *t = jget(j, "type"), *v = jget(j, "value");
  return t && v && t->kind == J_STR && v->kind == J_STR;
}

static bool same(const lm_toml_value *v, const jval *j, const char *path) {
  if (is_tagged(j)) {
    const char *type = jget(j, "type")->s;
    const jval *val = jget(j, "value");
    const char *text = val->s;
    if (strcmp(type, "string") == 0) {
      if (v->kind != LM_TOML_STRING)
        goto kind;
      if (v->u.str.len != val->slen ||
          memcmp(v->u.str.ptr, text, val->slen) != 0) {
        snprintf(why, sizeof why, "%s: string \"%.100s\" != \"%.100s\"", path,
                 v->u.str.ptr, text);
        return false;
      }
      return true;
    }
    if (strcmp(type, "integer") == 0) {
      if (v->kind != LM_TOML_INT)
        goto kind;
      errno = 0;
      long long x = strtoll(text, NULL, 10);
      if (errno || x != v->u.i) {
        snprintf(why, sizeof why, "%s: integer %lld != %s", path,
                 (long long)v->u.i, text);
        return false;
      }
      return true;
    }
    if (strcmp(type, "float") == 0) {
      if (v->kind != LM_TOML_FLOAT)
        goto kind;
      double want;
      if (strstr(text, "nan"))
        want = NAN;
      else if (strcmp(text, "inf") == 0 || strcmp(text, "+inf") == 0)
        want = INFINITY;
      else if (strcmp(text, "-inf") == 0)
        want = -INFINITY;
      else
        want = strtod(text, NULL);
      bool eq = (isnan(want) && isnan(v->u.f)) || want == v->u.f;
      if (!eq) {
        snprintf(why, sizeof why, "%s: float %.17g != %s", path, v->u.f, text);
        return false;
      }
      return true;
    }
    if (strcmp(type, "bool") == 0) {
      if (v->kind != LM_TOML_BOOL)
        goto kind;
      if (v->u.b != (strcmp(text, "true") == 0)) {
        snprintf(why, sizeof why, "%s: bool mismatch", path);
        return false;
      }
      return true;
    }
    if (strstr(type, "date") || strstr(type, "time")) {
      if (v->kind != LM_TOML_DATETIME)
        goto kind;
      if (strcmp(dt_type(v->dt.kind), type) != 0) {
        snprintf(why, sizeof why, "%s: %s != %s", path, dt_type(v->dt.kind),
                 type);
        return false;
      }
      char a[128], b[128];
      norm_dt(v->u.str.ptr, a, sizeof a);
      norm_dt(text, b, sizeof b);
      if (strcmp(a, b) != 0) {
        snprintf(why, sizeof why, "%s: datetime %s != %s", path, a, b);
        return false;
      }
      return true;
    }
    snprintf(why, sizeof why, "%s: unknown type %s", path, type);
    return false;
  kind:
    snprintf(why, sizeof why, "%s: got %s, want %s", path,
             lm_toml_kind_name(v->kind), type);
    return false;
  }
  if (j->kind == J_ARR) {
    if (v->kind != LM_TOML_ARRAY) {
      snprintf(why, sizeof why, "%s: got %s, want array", path,
               lm_toml_kind_name(v->kind));
      return false;
    }
    if (v->u.array.len != j->n) {
      snprintf(why, sizeof why, "%s: array length %zu != %zu", path,
               v->u.array.len, j->n);
      return false;
    }
    for (size_t i = 0; i < j->n; i++) {
      char sub[1024];
      snprintf(sub, sizeof sub, "%.900s[%zu]", path, i);
      if (!same(v->u.array.items[i], j->items[i], sub))
        return false;
    }
    return true;
  }
  if (j->kind == J_OBJ) {
    if (v->kind != LM_TOML_TABLE) {
      snprintf(why, sizeof why, "%s: got %s, want table", path,
               lm_toml_kind_name(v->kind));
      return false;
    }
    if (v->u.table.len != j->n) {
      snprintf(why, sizeof why, "%s: table has %zu keys, want %zu", path,
               v->u.table.len, j->n);
      return false;
    }
    for (size_t i = 0; i < j->n; i++) {
      char sub[1024];
      snprintf(sub, sizeof sub, "%.700s.%.200s", path, j->keys[i]);
      const lm_toml_value *e = lm_toml_table_get(v, j->keys[i], j->klens[i]);
      if (!e) {
        snprintf(why, sizeof why, "%.1500s: missing", sub);
        return false;
      }
      if (!same(e, j->items[i], sub))
        return false;
    }
    return true;
  }
  snprintf(why, sizeof why, "%s: unexpected JSON", path);
  return false;
}

/* ---------------------------------------------------------------- main */

static char *slurp(const char *path, size_t *len) {
  char *text = NULL;
  lm_error err;
  if (lm_read_file(path, &text, len, &err))
    return NULL;
  return text;
}

int main(int argc, char **argv) {
  const char *dir = "../shared/testsuites/toml-test";
  double min_rate = 100.0;
  bool verbose = false;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0)
      verbose = true;
    else if (pos++ == 0)
      dir = argv[i];
    else
      min_rate = atof(argv[i]);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/files-toml-1.0.0", dir);
  FILE *list = fopen(path, "r");
  if (!list) {
    printf("toml_suite: %s not found; skipping\n", path);
    return 77;
  }
  int valid_n = 0, valid_ok = 0, invalid_n = 0, invalid_ok = 0;
  int shown = 0;
  char line[2048];
  while (fgets(line, sizeof line, list)) {
    line[strcspn(line, "\r\n")] = '\0';
    size_t n = strlen(line);
    if (n < 5 || strcmp(line + n - 5, ".toml") != 0)
      continue;
    bool valid = strncmp(line, "valid/", 6) == 0;
    snprintf(path, sizeof path, "%s/%s", dir, line);
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
      fprintf(stderr, "toml_suite: cannot read %s\n", path);
      continue;
    }
    lm_toml_value *root = NULL;
    lm_error err;
    memset(&err, 0, sizeof err);
    int rc = lm_toml_parse(text, len, &root, &err);
    bool ok;
    char msg[2200] = "";
    if (valid) {
      valid_n++;
      if (rc) {
        ok = false;
        snprintf(msg, sizeof msg, "rejected: %s", err.msg);
      } else {
        char jpath[4096];
        snprintf(jpath, sizeof jpath, "%.*s.json", (int)strlen(path) - 5, path);
        size_t jlen;
        char *jtext = slurp(jpath, &jlen);
        jparser J = {jtext, jtext ? jtext + jlen : NULL, 0};
        jval *want = jtext ? jparse(&J) : NULL;
        if (!want) {
          ok = false;
          snprintf(msg, sizeof msg, "cannot read expected JSON %.1000s", jpath);
        } else {
          why[0] = '\0';
          ok = same(root, want, "$");
          if (!ok)
            snprintf(msg, sizeof msg, "wrong value: %s", why);
        }
        jfree(want);
        free(jtext);
      }
      valid_ok += ok;
    } else {
      invalid_n++;
      ok = rc != 0;
      if (!ok)
        snprintf(msg, sizeof msg, "accepted an invalid document");
      invalid_ok += ok;
    }
    if (!ok && (verbose || shown < 40)) {
      printf("FAIL %s: %s\n", line, msg);
      shown++;
    } else if (verbose && !valid) {
      printf("ok   %s: %s\n", line, err.msg);
    }
    lm_toml_free(root);
    free(text);
  }
  fclose(list);
  int total = valid_n + invalid_n, passed = valid_ok + invalid_ok;
  double rate = total ? 100.0 * passed / total : 0.0;
  printf("toml-test 1.0.0: valid %d/%d, invalid %d/%d, pass rate %.1f%% "
         "(threshold %.1f%%)\n",
         valid_ok, valid_n, invalid_ok, invalid_n, rate, min_rate);
  if (total == 0)
    return 1;
  return rate + 1e-9 >= min_rate ? 0 : 1;
}
