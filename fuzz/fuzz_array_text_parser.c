/* fuzz/fuzz_array_text_parser.c — libFuzzer target for PostgreSQL's
 * one-dimensional array literal text as Laminar reads it
 * (columnar/lm_array_text.h lm_list_parse_pg, and the text[] reader of the
 * json functions, exec/lm_jsonv.h lm_jv_text_array). Any bytes must either
 * parse or fail with a message and a 5-character SQLSTATE, never crash. A
 * literal that parses must print back (lm_list_put_item, "NULL" for a NULL
 * item, as array_out) to a literal that parses to the same items.
 * Seeds: fuzz/corpus/array_text/. */
#include "columnar/lm_array_text.h"
#include "exec/lm_jsonv.h"

#include <stdint.h>
#include <string.h>

/* Parses s[0..n) into a new UTF8 array *out; the item count or -1. */
static int64_t parse(const char *s, size_t n, lm_array **out) {
  lm_builder b;
  *out = NULL;
  if (lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), 8))
    return -2;
  char msg[600];
  const char *state = NULL;
  msg[0] = '\0';
  int64_t k = lm_list_parse_pg(s, n, &b, msg, sizeof msg, &state);
  if (k < 0) {
    if (!state || strlen(state) != 5 || msg[0] == '\0')
      __builtin_trap(); /* every failure has a SQLSTATE and a message */
    lm_builder_free(&b);
    return -1;
  }
  if (b.length != k)
    __builtin_trap(); /* the count is the number of items appended */
  if (lm_builder_finish(&b, out))
    k = -2;
  lm_builder_free(&b);
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  if (size > 4096)
    return 0;
  lm_array *a = NULL;
  int64_t k = parse(s, size, &a);
  if (k >= 0) {
    lm_buf txt;
    lm_buf_init(&txt);
    lm_buf_putc(&txt, '{');
    for (int64_t i = 0; i < k; i++) {
      if (i)
        lm_buf_putc(&txt, ',');
      if (lm_array_is_null(a, i)) {
        lm_buf_puts(&txt, "NULL");
        continue;
      }
      int32_t len;
      const char *p = lm_array_str(a, i, &len);
      lm_list_put_item(&txt, p, (size_t)len);
    }
    lm_buf_putc(&txt, '}');
    lm_array *b = NULL;
    if (parse(txt.data, txt.len, &b) != k)
      __builtin_trap(); /* the printed literal reads back */
    for (int64_t i = 0; i < k; i++) {
      if (lm_array_is_null(a, i) != lm_array_is_null(b, i))
        __builtin_trap();
      if (lm_array_is_null(a, i))
        continue;
      int32_t la, lb;
      const char *pa = lm_array_str(a, i, &la);
      const char *pb = lm_array_str(b, i, &lb);
      if (la != lb || (la && memcmp(pa, pb, (size_t)la)))
        __builtin_trap(); /* ... to the same items */
    }
    lm_array_release(b);
    lm_buf_free(&txt);
    lm_array_release(a);
  }

  /* the json functions' own text[] reader (jsonb_extract_path etc.) */
  lm_arena ar;
  lm_arena_init(&ar, 4096);
  const char **elems = NULL;
  int32_t *lens = NULL, n = 0;
  if (lm_jv_text_array(&ar, s, (int32_t)size, &elems, &lens, &n) == 0) {
    for (int32_t i = 0; i < n; i++)
      if (elems[i] && (lens[i] < 0 || (size_t)lens[i] > size))
        __builtin_trap();
  }
  lm_arena_free(&ar);
  return 0;
}
