/*
 * api/explain_json.c — EXPLAIN (FORMAT JSON) (docs/explain.md): the text
 * plan's tree as JSON, in PostgreSQL's shape: [{"Plan": {"Node Type": ...,
 * "Plans": [...]}, ...}]. The text plan is parsed back by its layout (a
 * node's line is the root's or starts with "->  "; its details are indented
 * two past its text; a detail without "key: value" that is followed by
 * deeper nodes labels them, as "SubPlan 1" or "CTE q" do), so every plan
 * EXPLAIN prints has its JSON form.
 */
#include <stdlib.h>
#include <string.h>

#include "api/explain_int.h"

typedef struct jnode {
  const char *text;   /* the node's line after the arrow */
  int col;            /* column of its text */
  const char **keys;  /* details "key: value" (pointers into the lines) */
  int *klen;          /* length of each key */
  int n_det, cap_det; /* details: keys[i] (klen[i] < 0: no key) */
  struct jnode **kids;
  const char **labels; /* per kid: its label line (NULL: a plain input) */
  int n_kids, cap_kids;
  const char *last_label; /* a detail without a value, just seen */
} jnode;

static void jfree(jnode *n) {
  if (!n)
    return;
  for (int i = 0; i < n->n_kids; i++)
    jfree(n->kids[i]);
  free(n->kids);
  free(n->labels);
  free(n->keys);
  free(n->klen);
  free(n);
}

static int grow(void **p, int *cap, int n, size_t sz) {
  if (n < *cap)
    return 0;
  int c = *cap ? *cap * 2 : 4;
  void *q = realloc(*p, sz * (size_t)c);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

static int add_detail(jnode *n, const char *t) {
  int cap = n->cap_det;
  if (grow((void **)&n->keys, &cap, n->n_det, sizeof *n->keys))
    return -1;
  int cap2 = n->cap_det;
  if (grow((void **)&n->klen, &cap2, n->n_det, sizeof *n->klen))
    return -1;
  n->cap_det = cap;
  /* "Key: value" when the key has no parenthesis */
  const char *c = strstr(t, ": ");
  int kl = c && !memchr(t, '(', (size_t)(c - t)) ? (int)(c - t) : -1;
  n->keys[n->n_det] = t;
  n->klen[n->n_det++] = kl;
  n->last_label = kl < 0 ? t : NULL;
  return 0;
}

static int add_kid(jnode *p, jnode *k, const char *label) {
  int cap = p->cap_kids;
  if (grow((void **)&p->kids, &cap, p->n_kids, sizeof *p->kids))
    return -1;
  int cap2 = p->cap_kids;
  if (grow((void **)&p->labels, &cap2, p->n_kids, sizeof *p->labels))
    return -1;
  p->cap_kids = cap;
  p->labels[p->n_kids] = label;
  p->kids[p->n_kids++] = k;
  return 0;
}

static void jstr(lm_buf *b, const char *s, size_t n) {
  lm_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      lm_buf_printf(b, "\\%c", c);
    else if (c < 0x20)
      lm_buf_printf(b, "\\u%04x", c);
    else
      lm_buf_putc(b, (char)c);
  }
  lm_buf_putc(b, '"');
}

static void pad(lm_buf *b, int n) {
  lm_buf_putc(b, '\n');
  for (int i = 0; i < n; i++)
    lm_buf_putc(b, ' ');
}

/* A "(actual rows=1 in=2 batches=3 time=0.1 ms)" suffix as fields. */
static void actual_fields(lm_buf *b, const char *a, int ind) {
  static const struct {
    const char *k, *name;
  } names[] = {{"rows", "Actual Rows"},
               {"in", "Rows In"},
               {"batches", "Batches"},
               {"loops", "Actual Loops"},
               {"time", "Actual Time ms"}};
  const char *p = a + strlen(" (actual ");
  while (*p && *p != ')') {
    const char *eq = strchr(p, '=');
    if (!eq)
      break;
    const char *v = eq + 1;
    size_t vl = strcspn(v, " )");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strlen(names[i].k) == (size_t)(eq - p) &&
          !strncmp(p, names[i].k, (size_t)(eq - p))) {
        lm_buf_putc(b, ',');
        pad(b, ind);
        jstr(b, names[i].name, strlen(names[i].name));
        lm_buf_printf(b, ": %.*s", (int)vl, v);
      }
    p = v + vl;
    if (!strncmp(p, " ms", 3))
      p += 3;
    while (*p == ' ')
      p++;
  }
}

static void emit(lm_buf *b, const jnode *n, int ind, int depth) {
  lm_buf_putc(b, '{');
  const char *t = n->text;
  const char *act = strstr(t, " (actual ");
  size_t tl = act ? (size_t)(act - t) : strlen(t);
  const char *props = memchr(t, '(', tl);
  size_t nl = tl;
  if (props && props > t + 1 && props[-1] == ' ')
    nl = (size_t)(props - t);
  while (nl && t[nl - 1] == ' ')
    nl--;
  pad(b, ind + 2);
  lm_buf_printf(b, "\"Node Type\": ");
  jstr(b, t, nl);
  if (props && nl < tl) {
    size_t pl = tl - (size_t)(props - t);
    while (pl && props[pl - 1] == ' ')
      pl--;
    if (pl >= 2 && props[0] == '(' && props[pl - 1] == ')') {
      lm_buf_printf(b, ",");
      pad(b, ind + 2);
      lm_buf_printf(b, "\"Properties\": ");
      jstr(b, props + 1, pl - 2);
    }
  }
  if (act)
    actual_fields(b, act, ind + 2);
  bool any_note = false;
  for (int i = 0; i < n->n_det; i++) {
    if (n->klen[i] < 0)
      continue;
    lm_buf_putc(b, ',');
    pad(b, ind + 2);
    jstr(b, n->keys[i], (size_t)n->klen[i]);
    lm_buf_printf(b, ": ");
    const char *v = n->keys[i] + n->klen[i] + 2;
    jstr(b, v, strlen(v));
  }
  for (int i = 0; i < n->n_det; i++) {
    if (n->klen[i] >= 0)
      continue;
    bool label = false;
    for (int k = 0; k < n->n_kids && !label; k++)
      label = n->labels[k] == n->keys[i];
    if (label)
      continue;
    lm_buf_printf(b, ",");
    pad(b, ind + 2);
    if (!any_note)
      lm_buf_printf(b, "\"Notes\": [");
    jstr(b, n->keys[i], strlen(n->keys[i]));
    any_note = true;
  }
  if (any_note)
    lm_buf_printf(b, "]");
  if (n->n_kids && depth < 200) {
    lm_buf_putc(b, ',');
    pad(b, ind + 2);
    lm_buf_printf(b, "\"Plans\": [");
    for (int k = 0; k < n->n_kids; k++) {
      if (k)
        lm_buf_putc(b, ',');
      pad(b, ind + 4);
      if (n->labels[k]) { /* a SubPlan / CTE: its label, then its plan */
        lm_buf_printf(b, "{");
        pad(b, ind + 6);
        lm_buf_printf(b, "\"Subplan Name\": ");
        jstr(b, n->labels[k], strlen(n->labels[k]));
        lm_buf_printf(b, ",");
        pad(b, ind + 6);
        lm_buf_printf(b, "\"Plan\": ");
        emit(b, n->kids[k], ind + 6, depth + 1);
        pad(b, ind + 4);
        lm_buf_printf(b, "}");
      } else {
        emit(b, n->kids[k], ind + 4, depth + 1);
      }
    }
    pad(b, ind + 2);
    lm_buf_printf(b, "]");
  }
  pad(b, ind);
  lm_buf_putc(b, '}');
}

int lm_explain_json(char *const *lines, int n, char **out) {
  *out = NULL;
  if (!n)
    return 0;
  jnode *root = calloc(1, sizeof *root);
  jnode *stack[256];
  int sp = 0;
  const char *tail[16]; /* lines at column 0 after the plan */
  int n_tail = 0;
  int rc = root ? 0 : -1;
  if (root) {
    root->text = lines[0];
    stack[sp++] = root;
  }
  for (int i = 1; !rc && i < n; i++) {
    const char *l = lines[i];
    int ind = (int)strspn(l, " ");
    if (ind == 0) { /* Result Rows, Execution Time */
      if (n_tail < 16)
        tail[n_tail++] = l;
      continue;
    }
    bool is_node = !strncmp(l + ind, "->  ", 4);
    if (is_node) {
      int col = ind + 4;
      while (sp > 1 && stack[sp - 1]->col >= col - 4)
        sp--;
      jnode *p = stack[sp - 1];
      jnode *k = calloc(1, sizeof *k);
      if (!k) {
        rc = -1;
        break;
      }
      k->text = l + col;
      k->col = col;
      /* under a label (SubPlan, CTE): arrow two right of the label */
      const char *label =
          p->last_label && ind == p->col + 4 ? p->last_label : NULL;
      if (add_kid(p, k, label)) {
        jfree(k);
        rc = -1;
        break;
      }
      if (sp < 256)
        stack[sp++] = k;
    } else {
      while (sp > 1 && stack[sp - 1]->col + 2 > ind)
        sp--;
      if (add_detail(stack[sp - 1], l + ind))
        rc = -1;
    }
  }
  lm_buf b;
  lm_buf_init(&b);
  if (!rc) {
    lm_buf_printf(&b, "[");
    pad(&b, 2);
    lm_buf_printf(&b, "{");
    pad(&b, 4);
    lm_buf_printf(&b, "\"Plan\": ");
    emit(&b, root, 4, 0);
    for (int i = 0; i < n_tail; i++) {
      const char *c = strstr(tail[i], ": ");
      if (!c)
        continue;
      lm_buf_putc(&b, ',');
      pad(&b, 4);
      jstr(&b, tail[i], (size_t)(c - tail[i]));
      const char *v = c + 2;
      size_t vl = strcspn(v, " ");
      lm_buf_printf(&b, ": %.*s", (int)vl, v);
    }
    pad(&b, 2);
    lm_buf_printf(&b, "}");
    pad(&b, 0);
    lm_buf_printf(&b, "]");
  }
  jfree(root);
  if (rc || !b.data) {
    lm_buf_free(&b);
    return -1;
  }
  *out = lm_strdup(b.data);
  lm_buf_free(&b);
  return *out ? 0 : -1;
}
