/* base/strings.c — ASCII case-insensitive comparisons. */
#include "base/lm_base.h"

#include <string.h>

static inline unsigned char lower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

int lm_strcasecmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (;; x++, y++) {
    unsigned char cx = lower(*x), cy = lower(*y);
    if (cx != cy || !cx)
      return (int)cx - (int)cy;
  }
}

bool lm_ident_eq(const char *decl, const char *ref, int pass) {
  if (!decl || !ref)
    return false;
  return pass ? !lm_strcasecmp(decl, ref) : !strcmp(decl, ref);
}

bool lm_strncaseeq(const char *a, size_t alen, const char *b) {
  for (size_t i = 0; i < alen; i++) {
    unsigned char cb = (unsigned char)b[i];
    if (!cb || lower((unsigned char)a[i]) != lower(cb))
      return false;
  }
  return b[alen] == '\0';
}
