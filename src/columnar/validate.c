/* columnar/validate.c — full structural validation of arrays built over
 * untrusted memory (C Data Interface import, IPC decode); see
 * lm_array_validate in lm_columnar.h. */
#include "columnar/lm_columnar.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Length of the longest valid UTF-8 prefix of p[0, n). */
static size_t utf8_prefix(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (n - i < len)
      return i;
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80)
        return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += len;
  }
  return n;
}

static int vfail(lm_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int vfail(lm_error *err, const char *path, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path && *path)
    return lm_err(err, LM_ERR_INVALID, "%s: %s", path, msg);
  return lm_err(err, LM_ERR_INVALID, "%s", msg);
}

static size_t buf_size(const lm_buffer *b) {
  return b && b->data ? b->size : 0;
}

static int offset_width(lm_type_id id) {
  switch (id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LIST:
    return 4;
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_LARGE_LIST:
    return 8;
  default:
    return 0;
  }
}

static int validate_rec(const lm_array *a, int depth, int max_depth,
                        const char *path, lm_error *err);

static int validate_child(const lm_array *c, lm_type want, int depth,
                          int max_depth, const char *path, const char *what,
                          lm_error *err) {
  char sub[256];
  snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", what);
  if (!c)
    return vfail(err, sub, "missing child array");
  if (!lm_type_eq(c->type, want))
    return vfail(err, sub, "child of type %s where the type says %s",
                 lm_type_name(c->type), lm_type_name(want));
  return validate_rec(c, depth + 1, max_depth, sub, err);
}

static int validate_rec(const lm_array *a, int depth, int max_depth,
                        const char *path, lm_error *err) {
  lm_type t = a->type;
  if (depth > max_depth)
    return vfail(err, path, "nested deeper than the limit of %d", max_depth);
  if (!lm_type_valid(t))
    return vfail(err, path, "invalid type (id %d)", (int)t.id);
  if (a->length < 0 || a->offset < 0 ||
      a->offset > (INT64_MAX / 32) - a->length)
    return vfail(err, path, "bad length %lld or offset %lld",
                 (long long)a->length, (long long)a->offset);
  int64_t end = a->offset + a->length;
  int want_children = t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST ? 1
                      : t.id == LM_TYPE_STRUCT ? t.node->n_children
                                               : 0;
  if (a->n_children != want_children || (want_children && !a->children))
    return vfail(err, path, "%d children where %s has %d", a->n_children,
                 lm_type_name(t), want_children);
  if ((t.id == LM_TYPE_DICTIONARY) != (a->dictionary != NULL))
    return vfail(err, path, "%s dictionary",
                 a->dictionary ? "unexpected" : "missing");
  if (t.id == LM_TYPE_NULL)
    return 0;
  /* validity */
  if (a->null_count < 0 || a->null_count > a->length)
    return vfail(err, path, "null_count %lld outside [0, %lld]",
                 (long long)a->null_count, (long long)a->length);
  if (a->validity) {
    if (buf_size(a->validity) < (size_t)((end + 7) / 8))
      return vfail(err, path,
                   "validity bitmap of %zu bytes is too short for %lld rows "
                   "at offset %lld",
                   buf_size(a->validity), (long long)a->length,
                   (long long)a->offset);
    int64_t nulls = a->length - lm_bitmap_count_set(a->validity->data,
                                                    a->offset, a->length);
    if (nulls != a->null_count)
      return vfail(err, path,
                   "null_count %lld does not match the validity bitmap (%lld "
                   "NULLs)",
                   (long long)a->null_count, (long long)nulls);
  } else if (a->null_count != 0) {
    return vfail(err, path, "null_count %lld without a validity bitmap",
                 (long long)a->null_count);
  }
  int ow = offset_width(t.id);
  if (t.id == LM_TYPE_BOOL) {
    if (buf_size(a->values) < (size_t)((end + 7) / 8))
      return vfail(err, path, "values bitmap of %zu bytes is too short",
                   buf_size(a->values));
    return 0;
  }
  if (ow) {
    size_t need = (size_t)(end + 1) * (size_t)ow;
    if (buf_size(a->values) < need)
      return vfail(err, path,
                   "offsets buffer of %zu bytes is too short for %lld rows at "
                   "offset %lld (need %zu)",
                   buf_size(a->values), (long long)a->length,
                   (long long)a->offset, need);
    bool list = t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST;
    int64_t limit = list ? (a->children[0] ? a->children[0]->length : 0)
                         : (int64_t)buf_size(a->data);
    const uint8_t *ob = a->values->data;
    int64_t prev = 0;
    for (int64_t i = 0; i <= a->length; i++) {
      int64_t o;
      if (ow == 4) {
        int32_t v;
        memcpy(&v, ob + (size_t)(a->offset + i) * 4, 4);
        o = v;
      } else {
        memcpy(&o, ob + (size_t)(a->offset + i) * 8, 8);
      }
      if (i == 0 ? o < 0 : o < prev)
        return vfail(err, path, "offset %lld at row %lld is %s", (long long)o,
                     (long long)i,
                     i == 0 ? "negative" : "below the previous one");
      if (o > limit)
        return vfail(err, path,
                     "offset %lld at row %lld is past the %s (%lld %s)",
                     (long long)o, (long long)i, list ? "items" : "data",
                     (long long)limit, list ? "rows" : "bytes");
      if (i > 0 && (t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_LARGE_UTF8) &&
          o > prev) {
        size_t ok = utf8_prefix(a->data->data + prev, (size_t)(o - prev));
        if (ok != (size_t)(o - prev))
          return vfail(err, path, "invalid UTF-8 in row %lld at data byte %lld",
                       (long long)(i - 1), (long long)(prev + (int64_t)ok));
      }
      prev = o;
    }
    if (list)
      return validate_child(a->children[0], t.node->children[0].type, depth,
                            max_depth, path, "item", err);
    return 0;
  }
  if (t.id == LM_TYPE_STRUCT) {
    for (int c = 0; c < t.node->n_children; c++) {
      const lm_array *ch = a->children[c];
      char what[160];
      snprintf(what, sizeof what, "%s", t.node->children[c].name);
      if (ch && ch->length < end)
        return vfail(
            err, path, "struct field '%s' has %lld rows, the struct needs %lld",
            t.node->children[c].name, (long long)ch->length, (long long)end);
      int rc = validate_child(ch, t.node->children[c].type, depth, max_depth,
                              path, what, err);
      if (rc)
        return rc;
    }
    return 0;
  }
  if (t.id == LM_TYPE_DICTIONARY) {
    lm_type it = lm_type_dict_index(t);
    int w = lm_type_width(it);
    if (buf_size(a->values) < (size_t)end * (size_t)w)
      return vfail(err, path, "indices buffer of %zu bytes is too short",
                   buf_size(a->values));
    int rc = validate_child(a->dictionary, lm_type_dict_value(t), depth,
                            max_depth, path, "dictionary", err);
    if (rc)
      return rc;
    int64_t dn = a->dictionary->length;
    const uint8_t *p = a->values->data;
    for (int64_t i = 0; i < a->length; i++) {
      if (lm_array_is_null(a, i))
        continue;
      size_t at = (size_t)(a->offset + i) * (size_t)w;
      int64_t k = 0;
      uint64_t u = 0;
      memcpy(&u, p + at, (size_t)w); /* little-endian */
      bool sgn = lm_type_is_integer(it);
      if (sgn && w < 8 && (u >> (8 * w - 1)) & 1)
        k = -1; /* negative */
      else
        k = (int64_t)u;
      if (k < 0 || k >= dn)
        return vfail(err, path,
                     "dictionary index %lld at row %lld (index byte %zu) is "
                     "outside the dictionary of %lld entries",
                     k < 0 && w < 8 ? -1LL : (long long)k, (long long)i, at,
                     (long long)dn);
    }
    return 0;
  }
  int w = lm_type_width(t);
  if (w > 0 && buf_size(a->values) < (size_t)end * (size_t)w)
    return vfail(err, path,
                 "values buffer of %zu bytes is too short for %lld rows at "
                 "offset %lld (need %lld)",
                 buf_size(a->values), (long long)a->length,
                 (long long)a->offset, (long long)(end * w));
  return 0;
}

int lm_array_validate(const lm_array *a, int max_depth, lm_error *err) {
  if (!a)
    return lm_err(err, LM_ERR_INVALID, "no array");
  return validate_rec(a, 1, max_depth > 0 ? max_depth : 64, "", err);
}
