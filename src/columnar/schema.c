/* columnar/schema.c — refcounted schemas. */
#include "columnar/lm_columnar.h"

#include <stdlib.h>

lm_schema *lm_schema_new(int n_fields) {
  if (n_fields < 0)
    return NULL;
  lm_schema *s = malloc(sizeof *s);
  if (!s)
    return NULL;
  s->fields = lm_calloc(n_fields ? (size_t)n_fields : 1, sizeof(lm_field));
  if (!s->fields) {
    free(s);
    return NULL;
  }
  s->refcnt = 1;
  s->n_fields = n_fields;
  s->mods = NULL;
  for (int i = 0; i < n_fields; i++)
    s->fields[i].nullable = true;
  return s;
}

int lm_schema_set_field(lm_schema *s, int i, const char *name, lm_type type,
                        bool nullable) {
  if (i < 0 || i >= s->n_fields)
    return LM_ERR_INVALID;
  char *copy = lm_strdup(name ? name : "");
  if (!copy)
    return LM_ERR_NOMEM;
  free(s->fields[i].name);
  s->fields[i].name = copy;
  s->fields[i].type = type;
  s->fields[i].nullable = nullable;
  /* TIMESTAMPTZ crosses the Arrow edge as Timestamp(µs, "UTC") */
  if (lm_type_is_tstz(type) && !s->fields[i].timezone)
    return lm_schema_set_timezone(s, i, "UTC");
  return LM_OK;
}

int lm_schema_set_timezone(lm_schema *s, int i, const char *tz) {
  if (i < 0 || i >= s->n_fields)
    return LM_ERR_INVALID;
  char *copy = NULL;
  if (tz && !(copy = lm_strdup(tz)))
    return LM_ERR_NOMEM;
  free(s->fields[i].timezone);
  s->fields[i].timezone = copy;
  return LM_OK;
}

lm_schema *lm_schema_retain(lm_schema *s) {
  if (s)
    __atomic_fetch_add(&s->refcnt, 1, __ATOMIC_RELAXED);
  return s;
}

void lm_schema_release(lm_schema *s) {
  if (!s || __atomic_sub_fetch(&s->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  for (int i = 0; i < s->n_fields; i++) {
    free(s->fields[i].name);
    free(s->fields[i].timezone);
  }
  free(s->fields);
  free(s->mods);
  free(s);
}

int lm_schema_set_typmod(lm_schema *s, int i, lm_typmod mod) {
  if (i < 0 || i >= s->n_fields)
    return LM_ERR_INVALID;
  if (!s->mods && !(s->mods = lm_calloc(s->n_fields ? (size_t)s->n_fields : 1,
                                        sizeof(lm_typmod))))
    return LM_ERR_NOMEM;
  s->mods[i] = mod;
  return LM_OK;
}

lm_typmod lm_schema_typmod(const lm_schema *s, int i) {
  lm_typmod none = {0, false, 0};
  if (!s || !s->mods || i < 0 || i >= s->n_fields)
    return none;
  return s->mods[i];
}

int lm_schema_format_type(lm_buf *out, const lm_schema *s, int i) {
  lm_type t = s->fields[i].type;
  lm_typmod m = lm_schema_typmod(s, i);
  if (t.id == LM_TYPE_UTF8 && (m.bpchar || lm_type_is_bpchar(t)))
    return m.char_len ? lm_buf_printf(out, "CHAR(%d)", (int)m.char_len)
                      : lm_buf_puts(out, "BPCHAR");
  int rc = lm_buf_puts(out, lm_type_name(t));
  if (rc)
    return rc;
  if (t.id == LM_TYPE_UTF8 && m.char_len)
    return lm_buf_printf(out, "(%d)", (int)m.char_len);
  if ((t.id == LM_TYPE_TIMESTAMP || t.id == LM_TYPE_TIME64) && m.tprec > 0)
    return lm_buf_printf(out, "(%d)", m.tprec - 1);
  return 0;
}

int lm_schema_find(const lm_schema *s, const char *name) {
  return lm_schema_find_ref(s, name, false, NULL);
}

int lm_schema_find_ref(const lm_schema *s, const char *name, bool quoted,
                       int *n_hits) {
  for (int pass = 0; pass < (quoted ? 1 : 2); pass++) {
    int hit = -1, n = 0;
    for (int i = 0; i < s->n_fields; i++)
      if (lm_ident_eq(s->fields[i].name, name, pass)) {
        if (hit < 0)
          hit = i;
        n++;
      }
    if (hit >= 0) {
      if (n_hits)
        *n_hits = n;
      return hit;
    }
  }
  if (n_hits)
    *n_hits = 0;
  return -1;
}
