/* columnar/types.c — type widths, classes, SQL names, and the interned
 * nodes of parameterised types (FIXED_SIZE_BINARY, lists, structs,
 * dictionaries). */
#include "columnar/lm_columnar.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lm_type_width(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_UINT8:
    return 1;
  case LM_TYPE_INT16:
  case LM_TYPE_UINT16:
  case LM_TYPE_FLOAT16:
    return 2;
  case LM_TYPE_INT32:
  case LM_TYPE_UINT32:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
    return 4;
  case LM_TYPE_INT64:
  case LM_TYPE_UINT64:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    return 8;
  case LM_TYPE_DECIMAL128:
  case LM_TYPE_INTERVAL_MDN:
    return 16;
  case LM_TYPE_FIXED_SIZE_BINARY:
    return t.node ? t.node->byte_width : 0;
  default:
    return 0;
  }
}

bool lm_type_is_integer(lm_type t) {
  return t.id == LM_TYPE_INT8 || t.id == LM_TYPE_INT16 ||
         t.id == LM_TYPE_INT32 || t.id == LM_TYPE_INT64;
}

bool lm_type_is_unsigned(lm_type t) {
  return t.id == LM_TYPE_UINT8 || t.id == LM_TYPE_UINT16 ||
         t.id == LM_TYPE_UINT32 || t.id == LM_TYPE_UINT64;
}

bool lm_type_is_numeric(lm_type t) {
  return lm_type_is_integer(t) || t.id == LM_TYPE_FLOAT32 ||
         t.id == LM_TYPE_FLOAT64;
}

bool lm_type_is_varbinary(lm_type t) {
  return t.id == LM_TYPE_UTF8 || t.id == LM_TYPE_LARGE_UTF8 ||
         t.id == LM_TYPE_BINARY || t.id == LM_TYPE_LARGE_BINARY;
}

bool lm_type_is_nested(lm_type t) {
  return t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST ||
         t.id == LM_TYPE_STRUCT || t.id == LM_TYPE_DICTIONARY;
}

static bool needs_node(lm_type_id id) {
  return id == LM_TYPE_FIXED_SIZE_BINARY || id == LM_TYPE_LIST ||
         id == LM_TYPE_LARGE_LIST || id == LM_TYPE_STRUCT ||
         id == LM_TYPE_DICTIONARY;
}

static bool index_ok(lm_type_id id) {
  return (id >= LM_TYPE_INT8 && id <= LM_TYPE_INT64) ||
         (id >= LM_TYPE_UINT8 && id <= LM_TYPE_UINT64);
}

bool lm_type_valid(lm_type t) {
  if ((int)t.id < 0 || t.id >= LM_TYPE__COUNT)
    return false;
  if (needs_node(t.id) != (t.node != NULL))
    return false;
  switch (t.id) {
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_DURATION:
    return t.unit <= LM_UNIT_NANO;
  case LM_TYPE_TIME32:
    return t.unit == LM_UNIT_SECOND || t.unit == LM_UNIT_MILLI;
  case LM_TYPE_TIME64:
    return t.unit == LM_UNIT_MICRO || t.unit == LM_UNIT_NANO;
  case LM_TYPE_DECIMAL128:
    return t.precision >= 1 && t.precision <= 38;
  default:
    return true;
  }
}

int lm_type_depth(lm_type t) {
  return t.node ? t.node->depth : 1;
}

/* "DECIMAL(p,s)" for every valid p, s: filled once, process-lifetime, so
 * lm_type_name can return them as static strings. */
static char dec_names[39][39][16];
static pthread_once_t dec_names_once = PTHREAD_ONCE_INIT;
static void dec_names_fill(void) {
  for (int p = 1; p <= 38; p++)
    for (int s = 0; s <= p; s++)
      snprintf(dec_names[p][s], sizeof dec_names[p][s], "DECIMAL(%d,%d)", p, s);
}

const char *lm_type_name(lm_type t) {
  if (t.id == LM_TYPE_DECIMAL128 && t.precision >= 1 && t.precision <= 38 &&
      t.scale >= 0 && t.scale <= t.precision) {
    pthread_once(&dec_names_once, dec_names_fill);
    return dec_names[t.precision][t.scale];
  }
  switch (t.id) {
  case LM_TYPE_NULL:
    return "NULL";
  case LM_TYPE_BOOL:
    return "BOOLEAN";
  case LM_TYPE_INT8:
    return "TINYINT";
  case LM_TYPE_INT16:
    return "SMALLINT";
  case LM_TYPE_INT32:
    return "INTEGER";
  case LM_TYPE_INT64:
    return "BIGINT";
  case LM_TYPE_FLOAT32:
    return "REAL";
  case LM_TYPE_FLOAT64:
    return "DOUBLE";
  case LM_TYPE_UTF8:
    return t.precision == 1   ? "CHAR" /* lm_type_bpchar */
           : t.precision == 2 ? "JSON" /* lm_type_json */
           : t.precision == 3 ? "JSONB"
           : t.precision == 4 ? "UUID" /* lm_type_uuid */
                              : "VARCHAR";
  case LM_TYPE_TIMESTAMP:
    return t.precision == 1 ? "TIMESTAMPTZ" : "TIMESTAMP";
  case LM_TYPE_INTERVAL:
    return "INTERVAL";
  case LM_TYPE_UINT8:
    return "UTINYINT";
  case LM_TYPE_UINT16:
    return "USMALLINT";
  case LM_TYPE_UINT32:
    return "UINTEGER";
  case LM_TYPE_UINT64:
    return "UBIGINT";
  case LM_TYPE_FLOAT16:
    return "HALFFLOAT";
  case LM_TYPE_DECIMAL128:
    return "DECIMAL";
  case LM_TYPE_DATE32:
    return "DATE";
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
    return "TIME";
  case LM_TYPE_DURATION:
    return "DURATION";
  case LM_TYPE_INTERVAL_MDN:
    return "INTERVAL_MONTH_DAY_NANO";
  case LM_TYPE_LARGE_UTF8:
    return "LARGE_VARCHAR";
  case LM_TYPE_BINARY:
    return "BYTEA";
  case LM_TYPE_LARGE_BINARY:
    return "LARGE_BYTEA";
  case LM_TYPE_FIXED_SIZE_BINARY:
    return "FIXED_SIZE_BINARY";
  case LM_TYPE_LIST:
    return "LIST";
  case LM_TYPE_LARGE_LIST:
    return "LARGE_LIST";
  case LM_TYPE_STRUCT:
    return "STRUCT";
  case LM_TYPE_DICTIONARY:
    return "DICTIONARY";
  default:
    return "UNKNOWN";
  }
}

static const char *const UNIT_TEXT[] = {"s", "ms", "us", "ns"};

int lm_type_format(lm_buf *out, lm_type t) {
  int rc = lm_buf_puts(out, lm_type_name(t));
  if (rc)
    return rc;
  switch (t.id) {
  case LM_TYPE_DECIMAL128: /* lm_type_name spells (p,s) when valid */
    if (t.precision >= 1 && t.precision <= 38 && t.scale >= 0 &&
        t.scale <= t.precision)
      return 0;
    return lm_buf_printf(out, "(%d,%d)", t.precision, t.scale);
  case LM_TYPE_TIMESTAMP:
    if (t.unit == LM_UNIT_MICRO)
      return 0;
    /* fall through */
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    return lm_buf_printf(out, "(%s)", UNIT_TEXT[t.unit & 3]);
  case LM_TYPE_FIXED_SIZE_BINARY:
    return lm_buf_printf(out, "(%d)", (int)lm_type_width(t));
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST:
    if ((rc = lm_buf_putc(out, '<')) ||
        (rc = lm_type_format(out, t.node->children[0].type)))
      return rc;
    return lm_buf_putc(out, '>');
  case LM_TYPE_STRUCT:
    if ((rc = lm_buf_putc(out, '<')))
      return rc;
    for (int i = 0; i < t.node->n_children; i++) {
      if ((i && (rc = lm_buf_puts(out, ", "))) ||
          (rc = lm_buf_puts(out, t.node->children[i].name)) ||
          (rc = lm_buf_putc(out, ' ')) ||
          (rc = lm_type_format(out, t.node->children[i].type)))
        return rc;
    }
    return lm_buf_putc(out, '>');
  case LM_TYPE_DICTIONARY:
    if ((rc = lm_buf_putc(out, '<')) ||
        (rc = lm_type_format(out, lm_type_dict_index(t))) ||
        (rc = lm_buf_puts(out, ", ")) ||
        (rc = lm_type_format(out, lm_type_dict_value(t))))
      return rc;
    return lm_buf_putc(out, '>');
  default:
    return 0;
  }
}

/* ------------------------------------------------------------- interning */

/* Nodes are interned in one process-wide open-addressing table (guarded by
 * a mutex) and never freed: a type is a value that any layer may copy, so
 * its node must outlive every copy. Equal parameters give the same node
 * pointer, which is what lm_type_eq compares. The table is bounded by
 * LM_TYPE_MAX_NODES so hostile input cannot grow it without limit. */
typedef struct intern_entry {
  uint64_t hash;
  lm_type_node *node;
  lm_type_id id; /* the type id the node was made for */
} intern_entry;

static pthread_mutex_t g_intern_mu = PTHREAD_MUTEX_INITIALIZER;
static intern_entry *g_slots;
static size_t g_cap, g_count;

static uint64_t hash_str(const char *s, uint64_t h) {
  return s ? lm_hash_bytes(s, strlen(s), h) : lm_hash_combine(h, 0x5bd1e995);
}

static uint64_t hash_type(lm_type t) {
  uint64_t h = lm_hash_u64((uint64_t)t.id * 0x100000001b3ULL);
  h = lm_hash_combine(h, t.unit | (uint64_t)t.precision << 8 |
                             (uint64_t)(uint8_t)t.scale << 16);
  return lm_hash_combine(h, (uint64_t)(uintptr_t)t.node);
}

static uint64_t hash_node(lm_type_id id, const lm_type_node *n) {
  uint64_t h = lm_hash_u64((uint64_t)id + 0x9e37);
  h = lm_hash_combine(h, (uint64_t)(uint32_t)n->byte_width);
  h = lm_hash_combine(h, (uint64_t)n->index | (uint64_t)n->ordered << 8);
  h = lm_hash_combine(h, (uint64_t)(uint32_t)n->n_children);
  for (int i = 0; i < n->n_children; i++) {
    const lm_type_field *f = &n->children[i];
    h = hash_str(f->name, h);
    h = hash_str(f->timezone, h);
    h = lm_hash_combine(h, hash_type(f->type) ^ (uint64_t)f->nullable);
  }
  return h;
}

static bool str_eq(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static bool node_eq(const lm_type_node *a, const lm_type_node *b) {
  if (a->byte_width != b->byte_width || a->n_children != b->n_children ||
      a->index != b->index || a->ordered != b->ordered)
    return false;
  for (int i = 0; i < a->n_children; i++) {
    const lm_type_field *x = &a->children[i], *y = &b->children[i];
    if (!lm_type_eq(x->type, y->type) || x->nullable != y->nullable ||
        !str_eq(x->name, y->name) || !str_eq(x->timezone, y->timezone))
      return false;
  }
  return true;
}

/* A heap copy of n (children, names and zones in one allocation). */
static lm_type_node *node_copy(const lm_type_node *n) {
  size_t bytes =
      sizeof(lm_type_node) + (size_t)n->n_children * sizeof(lm_type_field);
  for (int i = 0; i < n->n_children; i++) {
    bytes += strlen(n->children[i].name) + 1;
    if (n->children[i].timezone)
      bytes += strlen(n->children[i].timezone) + 1;
  }
  lm_type_node *c = malloc(bytes);
  if (!c)
    return NULL;
  *c = *n;
  lm_type_field *kids = (lm_type_field *)(c + 1);
  char *str = (char *)(kids + n->n_children);
  for (int i = 0; i < n->n_children; i++) {
    kids[i] = n->children[i];
    size_t len = strlen(n->children[i].name) + 1;
    memcpy(str, n->children[i].name, len);
    kids[i].name = str;
    str += len;
    if (n->children[i].timezone) {
      len = strlen(n->children[i].timezone) + 1;
      memcpy(str, n->children[i].timezone, len);
      kids[i].timezone = str;
      str += len;
    }
  }
  c->children = n->n_children ? kids : NULL;
  return c;
}

/* Finds or adds node n (for type id) and sets out->node. */
static int intern(lm_type_id id, const lm_type_node *n, lm_type *out) {
  uint64_t h = hash_node(id, n);
  int rc = LM_OK;
  pthread_mutex_lock(&g_intern_mu);
  if (g_count * 2 + 2 > g_cap) {
    if (g_count >= LM_TYPE_MAX_NODES) {
      rc = LM_ERR_LIMIT;
      goto done;
    }
    size_t nc = g_cap ? g_cap * 2 : 256;
    intern_entry *ns = calloc(nc, sizeof *ns);
    if (!ns) {
      rc = LM_ERR_NOMEM;
      goto done;
    }
    for (size_t i = 0; i < g_cap; i++) {
      if (!g_slots[i].node)
        continue;
      size_t k = g_slots[i].hash & (nc - 1);
      while (ns[k].node)
        k = (k + 1) & (nc - 1);
      ns[k] = g_slots[i];
    }
    free(g_slots);
    g_slots = ns;
    g_cap = nc;
  }
  size_t k = h & (g_cap - 1);
  while (g_slots[k].node) {
    if (g_slots[k].hash == h && g_slots[k].id == id &&
        node_eq(g_slots[k].node, n)) {
      out->node = g_slots[k].node;
      goto done;
    }
    k = (k + 1) & (g_cap - 1);
  }
  lm_type_node *c = node_copy(n);
  if (!c) {
    rc = LM_ERR_NOMEM;
    goto done;
  }
  g_slots[k].hash = h;
  g_slots[k].node = c;
  g_slots[k].id = id;
  g_count++;
  out->node = c;
done:
  pthread_mutex_unlock(&g_intern_mu);
  return rc;
}

static int make_nested(lm_type_id id, lm_type_node *n, lm_type *out) {
  lm_type t = lm_type_make(id);
  int depth = 0;
  for (int i = 0; i < n->n_children; i++) {
    const lm_type_field *f = &n->children[i];
    if (!f->name || !lm_type_valid(f->type))
      return LM_ERR_INVALID;
    int d = lm_type_depth(f->type);
    if (d > depth)
      depth = d;
  }
  n->depth = depth + 1;
  int rc = intern(id, n, &t);
  if (rc == 0)
    *out = t;
  return rc;
}

int lm_type_fixed_size_binary(int32_t byte_width, lm_type *out) {
  if (byte_width < 0)
    return LM_ERR_INVALID;
  lm_type_node n = {byte_width, 0, NULL, LM_TYPE_NULL, false, 0};
  return make_nested(LM_TYPE_FIXED_SIZE_BINARY, &n, out);
}

int lm_type_list(lm_type_id id, const lm_type_field *item, lm_type *out) {
  if ((id != LM_TYPE_LIST && id != LM_TYPE_LARGE_LIST) || !item)
    return LM_ERR_INVALID;
  lm_type_node n = {0, 1, item, LM_TYPE_NULL, false, 0};
  return make_nested(id, &n, out);
}

int lm_type_struct(int nf, const lm_type_field *fields, lm_type *out) {
  if (nf < 0 || (nf > 0 && !fields))
    return LM_ERR_INVALID;
  lm_type_node n = {0, nf, fields, LM_TYPE_NULL, false, 0};
  return make_nested(LM_TYPE_STRUCT, &n, out);
}

int lm_type_dictionary(lm_type_id index, lm_type value, bool ordered,
                       lm_type *out) {
  if (!index_ok(index))
    return LM_ERR_INVALID;
  lm_type_field v = {"values", value, true, NULL};
  lm_type_node n = {0, 1, &v, index, ordered, 0};
  return make_nested(LM_TYPE_DICTIONARY, &n, out);
}
