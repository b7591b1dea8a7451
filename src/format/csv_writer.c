/* format/csv_writer.c — RFC 4180 CSV output of record batches (lm_csv.h). */
#include "format/lm_csv.h"

#include "format/format_internal.h"

#include <string.h>

static bool needs_quote(const char *p, size_t n, char d) {
  if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    return true; /* BOM */
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == d || c == '"' || c == '\n' || c == '\r')
      return true;
  }
  return false;
}

static int put_quoted(lm_buf *out, const char *p, size_t n) {
  if (lm_buf_reserve(out, n + 2) || lm_buf_putc(out, '"'))
    return LM_ERR_NOMEM;
  const char *e = p + n;
  while (p < e) {
    const char *q = memchr(p, '"', (size_t)(e - p));
    size_t run = q ? (size_t)(q - p) + 1 : (size_t)(e - p);
    if (lm_buf_append(out, p, run))
      return LM_ERR_NOMEM;
    if (q && lm_buf_putc(out, '"')) /* "" */
      return LM_ERR_NOMEM;
    p += run;
  }
  return lm_buf_putc(out, '"');
}

/* Appends p[0..n) as one field; quoted when needed (always when empty and
 * quote_empty, so that "" stays distinct from NULL). */
static int put_text(lm_buf *out, const char *p, size_t n, char d,
                    bool quote_empty) {
  if (n == 0 ? quote_empty : needs_quote(p, n, d))
    return put_quoted(out, p, n);
  return lm_buf_append(out, p, n);
}

static void resolve(const lm_csv_options *o, char *d, const char **eol,
                    size_t *eol_len) {
  bool crlf = o && o->crlf;
  *d = (o && o->delimiter) ? o->delimiter : ',';
  *eol = crlf ? "\r\n" : "\n";
  *eol_len = crlf ? 2 : 1;
}

int lm_csv_write_header(lm_buf *out, const lm_schema *s,
                        const lm_csv_options *o) {
  char d;
  const char *eol;
  size_t eol_len;
  resolve(o, &d, &eol, &eol_len);
  for (int i = 0; i < s->n_fields; i++) {
    if (i && lm_buf_putc(out, d))
      return LM_ERR_NOMEM;
    const char *name = s->fields[i].name ? s->fields[i].name : "";
    size_t n = strlen(name);
    /* the reader trims spaces around unquoted header names */
    bool pad = n && (name[0] == ' ' || name[0] == '\t' || name[n - 1] == ' ' ||
                     name[n - 1] == '\t');
    if (pad ? put_quoted(out, name, n) : put_text(out, name, n, d, true))
      return LM_ERR_NOMEM;
  }
  return lm_buf_append(out, eol, eol_len);
}

int lm_csv_write_batch(lm_buf *out, const lm_batch *b,
                       const lm_csv_options *o) {
  char d;
  const char *eol;
  size_t eol_len;
  resolve(o, &d, &eol, &eol_len);
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = LM_OK;
  for (int64_t i = 0; i < b->num_rows && rc == LM_OK; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      const lm_array *a = b->columns[c];
      if (c && (rc = lm_buf_putc(out, d)))
        break;
      if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i))
        continue;
      int64_t row = i;
      while (a->type.id == LM_TYPE_DICTIONARY) { /* its decoded value */
        row = lm_array_dict_index(a, row);
        a = a->dictionary;
      }
      if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, row))
        continue;
      if (a->type.id == LM_TYPE_UTF8 || a->type.id == LM_TYPE_LARGE_UTF8) {
        int64_t n;
        const uint8_t *p = lm_array_bytes(a, row, &n);
        if ((rc = put_text(out, (const char *)p, (size_t)n, d, true)))
          break;
        continue;
      }
      size_t start = out->len;
      if ((rc = lm_array_format_value(out, a, row, "")))
        break;
      if (needs_quote(out->data + start, out->len - start, d)) {
        /* e.g. a delimiter that occurs in number text: requote */
        tmp.len = 0;
        if ((rc = lm_buf_append(&tmp, out->data + start, out->len - start)))
          break;
        out->len = start;
        if ((rc = put_text(out, tmp.data, tmp.len, d, true)))
          break;
      }
    }
    if (rc == LM_OK)
      rc = lm_buf_append(out, eol, eol_len);
  }
  lm_buf_free(&tmp);
  return rc ? LM_ERR_NOMEM : LM_OK;
}
