/* fuzz/fuzz_jsonv_parser.c — libFuzzer target for the json / jsonb value
 * text (exec/lm_jsonv.h lm_jv_parse, lm_jv_out): any bytes must either
 * parse or give one of lm_jv_parse's codes (an invalid-JSON failure with
 * its DETAIL), never crash. json and jsonb read the same texts (jsonb
 * refuses \u0000 and numbers beyond numeric's range besides). Once normalized
 * to jsonb, the text is stable: printing, re-reading and printing again gives
 * the same text, from the compact form, the pretty form and the json (as given)
 * form alike, and the re-read tree is equal to (and contains) the first. Seeds:
 * fuzz/corpus/jsonv/. */
#include "exec/lm_jsonv.h"

#include <stdint.h>
#include <string.h>

/* Parses p[0..n) as jsonb and prints it compact into *o; the parse code. */
static int reprint(lm_arena *ar, const char *p, size_t n, lm_buf *o,
                   lm_jv **tree) {
  char detail[256];
  lm_jv *v = NULL;
  int rc = lm_jv_parse(ar, p, n, true, &v, detail, sizeof detail);
  if (rc == 0) {
    if (lm_jv_out(o, v, false))
      __builtin_trap(); /* fuzz inputs are small: no OOM */
    if (tree)
      *tree = v;
  }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  if (size > 65536)
    return 0;
  lm_arena ar;
  lm_arena_init(&ar, 4096);
  char detail[256];
  lm_jv *jv = NULL, *bv = NULL;
  int rj = lm_jv_parse(&ar, s, size, false, &jv, detail, sizeof detail);
  if (rj == 1 && detail[0] == '\0')
    __builtin_trap(); /* invalid JSON always has PostgreSQL's DETAIL */
  if (rj != 0 && rj != 1 && rj != 3)
    __builtin_trap(); /* json never refuses \u0000 (2), no OOM here */
  int rb = lm_jv_parse(&ar, s, size, true, &bv, detail, sizeof detail);
  if (rb == 1 && detail[0] == '\0')
    __builtin_trap();
  if (rb != rj && rb != 2 && rb != 4)
    __builtin_trap(); /* json and jsonb accept the same texts (jsonb
                         refuses \u0000 and numbers beyond numeric's,
                         which may come before a later syntax error) */

  if (rb == 0) {
    lm_buf t1, t2, t3, t4, pretty;
    lm_buf_init(&t1);
    lm_buf_init(&t2);
    lm_buf_init(&t3);
    lm_buf_init(&t4);
    lm_buf_init(&pretty);
    if (lm_jv_out(&t1, bv, false) ||
        (size <= 1024 && lm_jv_out(&pretty, bv, true)))
      __builtin_trap();
    lm_jv *again = NULL;
    if (reprint(&ar, t1.data, t1.len, &t2, &again) != 0 || t1.len != t2.len ||
        memcmp(t1.data, t2.data, t1.len))
      __builtin_trap(); /* jsonb text is stable */
    if (!lm_jv_equal(bv, again) || !lm_jv_contains(bv, again) ||
        !lm_jv_contains(again, bv))
      __builtin_trap(); /* ... and the same value */
    /* jsonb_pretty reads back to the same value (its indentation is
     * quadratic in the depth, as PostgreSQL's: small inputs only) */
    if (size <= 1024 &&
        (reprint(&ar, pretty.data, pretty.len, &t3, NULL) != 0 ||
         t1.len != t3.len || memcmp(t1.data, t3.data, t1.len)))
      __builtin_trap();
    lm_buf js;
    lm_buf_init(&js);
    if (lm_jv_out(&js, jv, false))
      __builtin_trap();
    if (reprint(&ar, js.data, js.len, &t4, NULL) != 0 || t1.len != t4.len ||
        memcmp(t1.data, t4.data, t1.len))
      __builtin_trap(); /* the json form normalizes to the same jsonb */
    (void)lm_jv_typeof(bv->kind);
    if (bv->kind == LM_JV_OBJ)
      for (int32_t i = 0; i < bv->n; i++)
        if (lm_jv_get(bv, bv->kids[2 * i].s, bv->kids[2 * i].len) !=
                &bv->kids[2 * i + 1] ||
            !lm_jv_exists(bv, bv->kids[2 * i].s, bv->kids[2 * i].len))
          __builtin_trap(); /* every key is found by the binary search */
    lm_buf_free(&js);
    lm_buf_free(&t1);
    lm_buf_free(&t2);
    lm_buf_free(&t3);
    lm_buf_free(&t4);
    lm_buf_free(&pretty);
  }
  lm_arena_free(&ar);
  return 0;
}
