/* Row identities for retractable aggregates (see agg_rowid.h). */
#include "exec/agg_rowid.h"

#include <string.h>

#include "base/lm_base.h"

void lm_agg_row_ids(const lm_batch *b, int skip, uint64_t *rid) {
  int64_t n = b->num_rows;
  for (int64_t r = 0; r < n; r++)
    rid[r] = 0x2545F4914F6CDD1DULL;
  for (int c = 0; c < b->num_columns; c++) {
    if (c == skip)
      continue;
    const lm_array *a = b->columns[c];
    lm_type t = a->type;
    int w = lm_type_width(t);
    for (int64_t r = 0; r < n; r++) {
      uint64_t h;
      if (t.id == LM_TYPE_NULL || lm_array_is_null(a, r)) {
        h = 0x9E3779B97F4A7C15ULL;
      } else if (t.id == LM_TYPE_BOOL) {
        h = lm_hash_u64(lm_array_bool(a, r) ? 2 : 1);
      } else if (lm_type_is_varbinary(t)) {
        int64_t len;
        const uint8_t *p = lm_array_bytes(a, r, &len);
        h = lm_hash_bytes(p, (size_t)len, 7);
      } else if (w > 0 && a->values) {
        h = lm_hash_bytes(a->values->data + (size_t)(a->offset + r) * (size_t)w,
                          (size_t)w, 11);
      } else {
        h = 0x51ed270b27bULL; /* nested: present */
      }
      rid[r] = lm_hash_combine(rid[r], h);
    }
  }
}
