/* base/strings.c — ASCII case-insensitive comparisons, boolean text. */
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

int lm_pg_bool(const char *p, size_t len) {
  while (len && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
    p++, len--;
  while (len &&
         (p[len - 1] == ' ' || (p[len - 1] >= '\t' && p[len - 1] <= '\r')))
    len--;
  if (!len)
    return -1;
  static const struct {
    const char *w;
    size_t min;
    int v;
  } words[] = {{"true", 1, 1}, {"false", 1, 0}, {"yes", 1, 1}, {"no", 1, 0},
               {"on", 2, 1},   {"off", 2, 0},   {"1", 1, 1},   {"0", 1, 0}};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
    size_t wl = strlen(words[k].w);
    if (len < words[k].min || len > wl)
      continue;
    size_t i = 0;
    while (i < len &&
           lower((unsigned char)p[i]) == (unsigned char)words[k].w[i])
      i++;
    if (i == len)
      return words[k].v;
  }
  return -1;
}
