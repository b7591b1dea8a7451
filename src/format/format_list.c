/* format/format_list.c — array (LIST) columns read from text by the CSV and
 * NDJSON readers: PostgreSQL's array text ("{1,2,NULL}", as COPY ... CSV
 * reads it) decoded item by item into a LIST builder (format_internal.h).
 */
#include "format/format_internal.h"

#include "columnar/lm_array_text.h"

#include <stdio.h>
#include <string.h>

bool lm_fmt_list_supported(lm_type t) {
  if (t.id != LM_TYPE_LIST || !t.node || t.node->n_children < 1)
    return false;
  lm_type it = t.node->children[0].type;
  return it.id != LM_TYPE_LIST && it.id != LM_TYPE_NULL &&
         lm_fmt_type_supported(it);
}

void lm_fmt_list_item_error(int rc, lm_type item_type, int64_t item,
                            const char *col, const char *p, size_t len,
                            char *msg, size_t msg_size) {
  char snip[128];
  lm_fmt_snippet(snip, sizeof snip, p, len);
  const char *tn = lm_type_name(item_type);
  switch (rc) {
  case LM_FMT_RANGE:
    snprintf(msg, msg_size,
             "value '%s' out of range for %s (item %lld of column '%s')", snip,
             tn, (long long)item, col);
    break;
  case LM_FMT_UTF8:
    snprintf(msg, msg_size, "invalid UTF-8 in item %lld of column '%s'",
             (long long)item, col);
    break;
  case LM_FMT_TOOBIG:
    snprintf(msg, msg_size, "value too large for column '%s'", col);
    break;
  default:
    snprintf(msg, msg_size,
             "expected %s for item %lld of column '%s', found '%s'", tn,
             (long long)item, col, snip);
    break;
  }
}

int lm_fmt_append_list_pg(lm_builder *b, const char *p, size_t len,
                          const char *col, lm_builder *texts, lm_buf *scratch,
                          char *msg, size_t msg_size, const char **state) {
  *state = "22P02";
  msg[0] = 0;
  if (texts->length)
    lm_builder_truncate(texts, 0);
  char pm[600];
  const char *pst = "22P02";
  int64_t k = lm_list_parse_pg(p, len, texts, pm, sizeof pm, &pst);
  if (texts->oom)
    return LM_FMT_TOOBIG;
  if (k < 0) {
    char *nl = strchr(pm, '\n');
    if (nl)
      *nl = 0;
    *state = pst;
    snprintf(msg, msg_size, "%s in column '%s'%s%s%s", pm, col, nl ? " (" : "",
             nl ? nl + 1 : "", nl ? ")" : "");
    return LM_FMT_SYNTAX;
  }
  lm_builder *items = lm_builder_list_items(b);
  if (!items)
    return LM_FMT_TOOBIG;
  int64_t mark = items->length;
  for (int64_t j = 0; j < texts->length; j++) {
    if (texts->validity && !lm_bit_get(texts->validity, j)) {
      lm_builder_append_null(items);
      continue;
    }
    int32_t s = ((const int32_t *)texts->values)[j];
    int32_t e = ((const int32_t *)texts->values)[j + 1];
    const char *t = (const char *)texts->data + s;
    size_t n = (size_t)(e - s);
    int rc = lm_fmt_append_text(items, t, n, scratch);
    if (rc != LM_FMT_OK) {
      lm_builder_truncate(items, mark);
      lm_fmt_list_item_error(rc, items->type, j + 1, col, t, n, msg, msg_size);
      if (rc == LM_FMT_RANGE)
        *state = "22003";
      return rc;
    }
  }
  lm_builder_list_end(b);
  return b->oom ? LM_FMT_TOOBIG : LM_FMT_OK;
}
