/*
 * PostgreSQL 15 functions a batch at a time (bound in plan/fn5_bind.c):
 * to_number(text, template) (formatting.c's NUM_processor reading text, C
 * locale: '.', ',', currency ' '), the uuid type (uuid_in's accepted
 * spellings, stored as the canonical lowercase text; gen_random_uuid, a
 * version-4 uuid from getrandom), sha224 / sha384 / sha512 (Nettle) and
 * the bytea functions get_byte, set_byte, get_bit, set_bit, bit_count.
 * Messages and SQLSTATEs are PostgreSQL's.
 */
#include <ctype.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "columnar/lm_decimal.h"
#include "exec/expr_num.h"
#include "exec/lm_fn5.h"
#include "exec/lm_strfn.h"

/* ------------------------------------------------------ to_number */

enum {
  T_LIT = -1,
  T_9 = 1,
  T_0,
  T_DEC,
  T_D,
  T_COMMA,
  T_G,
  T_L,
  T_MI,
  T_PL,
  T_SG,
  T_PR,
  T_S,
  T_TH,
  T_FM,
  T_B,
  T_V,
  T_E,
  T_RN,
  T_SP
};

/* PostgreSQL's number template keywords (formatting.c NUM_keywords),
 * longest first where one is a prefix of another. */
static const struct {
  const char *name;
  int id;
} kw[] = {
    {",", T_COMMA}, {".", T_DEC},  {"0", T_0},   {"9", T_9},   {"B", T_B},
    {"D", T_D},     {"EEEE", T_E}, {"FM", T_FM}, {"G", T_G},   {"L", T_L},
    {"MI", T_MI},   {"PL", T_PL},  {"PR", T_PR}, {"RN", T_RN}, {"SG", T_SG},
    {"SP", T_SP},   {"S", T_S},    {"TH", T_TH}, {"V", T_V},   {"b", T_B},
    {"d", T_D},     {"eeee", T_E}, {"fm", T_FM}, {"g", T_G},   {"l", T_L},
    {"mi", T_MI},   {"pl", T_PL},  {"pr", T_PR}, {"rn", T_RN}, {"sg", T_SG},
    {"sp", T_SP},   {"s", T_S},    {"th", T_TH}, {"v", T_V}};

enum {
  F_DEC = 1,
  F_LSIGN = 2,
  F_BRACKET = 4,
  F_MINUS = 8,
  F_PLUS = 16,
  F_MULTI = 32,
  F_EEEE = 64,
  F_ROMAN = 128
};

typedef struct tmpl {
  int *id;  /* node kinds, T_LIT for a literal character */
  int n;    /* nodes */
  int pre;  /* digit positions before the decimal point */
  int post; /* and after it */
  int flag;
  bool lsign_pre; /* S before the digits */
} tmpl;

/* Parses fmt[0, n) into t (t->id holds at least n entries); 0, or -1
 * with *msg and *state (NUMDesc_prepare's checks). */
static int tmpl_parse(const char *p, size_t len, tmpl *t, const char **msg,
                      const char **state) {
  const char *end = p + len;
  int f = 0;
  t->n = t->pre = t->post = t->flag = 0;
  t->lsign_pre = false;
  *state = "42601";
  while (p < end) {
    int id = T_LIT;
    size_t kl = 1;
    for (size_t k = 0; k < sizeof kw / sizeof *kw; k++) {
      size_t l = strlen(kw[k].name);
      if ((size_t)(end - p) >= l && !memcmp(p, kw[k].name, l)) {
        id = kw[k].id;
        kl = l;
        break;
      }
    }
    if (id == T_LIT && *p == '"') { /* "quoted": literal characters */
      for (p++; p < end && *p != '"'; p++) {
        if (*p == '\\' && p + 1 < end)
          p++;
        t->id[t->n++] = T_LIT;
      }
      p += p < end;
      continue;
    }
    if (id == T_LIT && *p == '\\' && p + 1 < end && p[1] == '"')
      p++;
    p += kl;
    t->id[t->n++] = id;
    switch (id) {
    case T_9:
    case T_0:
      if (f & F_BRACKET)
        return *msg = id == T_9 ? "\"9\" must be ahead of \"PR\""
                                : "\"0\" must be ahead of \"PR\"",
               -1;
      if (f & F_MULTI)
        break;
      if (f & F_DEC)
        t->post++;
      else
        t->pre++;
      break;
    case T_DEC:
    case T_D:
      if (f & F_DEC)
        return *msg = "multiple decimal points", -1;
      if (f & F_MULTI)
        return *msg = "cannot use \"V\" and decimal point together", -1;
      f |= F_DEC;
      break;
    case T_S:
      if (f & F_LSIGN)
        return *msg = "cannot use \"S\" twice", -1;
      if (f & (F_PLUS | F_MINUS | F_BRACKET))
        return *msg =
                   "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
               -1;
      t->lsign_pre = !(f & F_DEC);
      f |= F_LSIGN;
      break;
    case T_MI:
    case T_PL:
    case T_SG:
      if (f & F_LSIGN)
        return *msg = id == T_MI   ? "cannot use \"S\" and \"MI\" together"
                      : id == T_PL ? "cannot use \"S\" and \"PL\" together"
                                   : "cannot use \"S\" and \"SG\" together",
               -1;
      f |= id == T_MI ? F_MINUS : id == T_PL ? F_PLUS : F_MINUS | F_PLUS;
      break;
    case T_PR:
      if (f & (F_LSIGN | F_PLUS | F_MINUS))
        return *msg = "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" "
                      "together",
               -1;
      f |= F_BRACKET;
      break;
    case T_V:
      if (f & F_DEC)
        return *msg = "cannot use \"V\" and decimal point together", -1;
      f |= F_MULTI;
      break;
    case T_E:
      if (f & F_EEEE)
        return *msg = "cannot use \"EEEE\" twice", -1;
      f |= F_EEEE;
      break;
    case T_RN:
      f |= F_ROMAN;
      break;
    default:
      break;
    }
  }
  t->flag = f;
  *state = "0A000";
  if (f & F_EEEE)
    return *msg = "\"EEEE\" not supported for input", -1;
  if (f & F_ROMAN)
    return *msg = "\"RN\" not supported for input", -1;
  if (f & F_MULTI) /* PostgreSQL divides by 10^n at 16 decimals */
    return *msg = "\"V\" is not supported by to_number in Laminar", -1;
  return 0;
}

int lm_to_number_template(const char *fmt, size_t n, int *post,
                          const char **msg, const char **state) {
  int stack[64];
  tmpl t = {n > 64 ? malloc(sizeof(int) * n) : stack, 0, 0, 0, 0, false};
  if (!t.id)
    return *msg = "out of memory", *state = "53200", -1;
  int rc = tmpl_parse(fmt, n, &t, msg, state);
  *post = t.post;
  if (t.id != stack)
    free(t.id);
  return rc;
}

/* The reader of NUM_processor: in[0, len) at p, the number so far. */
typedef struct rd {
  const char *in;
  size_t len, p;
  char sign; /* ' ', '-' or '+' */
  char num[160];
  size_t nn;
  int read_pre, read_post;
  bool read_dec;
} rd;

static bool dig(char c) {
  return c >= '0' && c <= '9';
}

/* NUM_numpart_from_char: a digit position (9, 0) or the decimal point. */
static void numpart(rd *r, const tmpl *t, int id) {
  for (int k = 0; k < 2; k++)
    if (r->p < r->len && r->in[r->p] == ' ')
      r->p++;
  if (r->p >= r->len)
    return;
  bool isread = false;
  if (r->sign == ' ' && (id == T_9 || id == T_0) &&
      r->read_pre + r->read_post == 0) {
    char c = r->in[r->p];
    if ((t->flag & F_LSIGN) && t->lsign_pre) {
      if (c == '-' || c == '+') {
        r->sign = c;
        r->p++;
      }
    } else if (c == '-' || ((t->flag & F_BRACKET) && c == '<')) {
      r->sign = '-';
      r->p++;
    } else if (c == '+') {
      r->sign = '+';
      r->p++;
    }
  }
  if (r->p >= r->len)
    return;
  char c = r->in[r->p];
  if (dig(c)) {
    if (r->read_dec && r->read_post == t->post)
      return;
    if (r->nn + 2 < sizeof r->num)
      r->num[r->nn++] = c;
    if (r->read_dec)
      r->read_post++;
    else
      r->read_pre++;
    isread = true;
  } else if ((t->flag & F_DEC) && !r->read_dec && c == '.') {
    if (r->nn + 2 < sizeof r->num)
      r->num[r->nn++] = '.';
    r->read_dec = true;
    isread = true;
  }
  /* a sign behind the last digit read */
  if (r->sign == ' ' && r->read_pre + r->read_post > 0) {
    if ((t->flag & F_LSIGN) && isread && r->p + 1 < r->len &&
        !dig(r->in[r->p + 1])) {
      char s = r->in[r->p + 1];
      if (s == '-' || s == '+') {
        r->sign = s;
        r->p++; /* the caller steps over it */
      }
    } else if (!isread && !(t->flag & F_LSIGN) &&
               (t->flag & (F_PLUS | F_MINUS)) && (c == '-' || c == '+'))
      r->sign = c;
  }
}

/* to_number(s, fmt) of one row into b: DECIMAL at b's scale. */
static int to_number(const lm_bexpr *e, const char *s, int32_t sl,
                     const char *f, int32_t fl, lm_builder *b, lm_error *err) {
  if (fl <= 0) { /* PostgreSQL: an empty template gives NULL */
    lm_builder_append_null(b);
    return 0;
  }
  int stack[64];
  tmpl t = {
      fl > 64 ? malloc(sizeof(int) * (size_t)fl) : stack, 0, 0, 0, 0, false};
  if (!t.id)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  const char *msg, *state;
  if (tmpl_parse(f, (size_t)fl, &t, &msg, &state)) {
    if (t.id != stack)
      free(t.id);
    return lm_fn_error(err, e, state, "%s", msg);
  }
  rd r = {s, (size_t)sl, 0, ' ', {0}, 0, 0, 0, false};
  for (int k = 0; k < t.n && r.p < r.len; k++) {
    switch (t.id[k]) {
    case T_9:
    case T_0:
    case T_DEC:
    case T_D:
      numpart(&r, &t, t.id[k]);
      break;
    case T_COMMA: /* the separator is stepped over, nothing else */
    case T_G:
      if (r.in[r.p] != ',')
        continue;
      break;
    case T_L: /* the currency: any character but a digit */
      if (dig(r.in[r.p]))
        continue;
      break;
    case T_MI: /* a sign is read where it stands, else nothing */
    case T_PL:
    case T_SG: {
      char c = r.in[r.p];
      int id = t.id[k];
      if (!((c == '-' && id != T_PL) || (c == '+' && id != T_MI)))
        continue;
      r.sign = c;
      break;
    }
    case T_PR:
      break;
    case T_TH:
      if (t.flag & F_DEC)
        continue;
      r.p++;
      break;
    case T_LIT: { /* one input character per literal template character */
      r.p++;
      while (r.p < r.len && ((unsigned char)r.in[r.p] & 0xC0) == 0x80)
        r.p++;
      continue;
    }
    default: /* S FM B SP: nothing read */
      continue;
    }
    r.p++;
  }
  if (t.id != stack)
    free(t.id);
  if (r.nn > 0 && r.num[r.nn - 1] == '.')
    r.nn--;
  r.num[r.nn] = '\0';
  if (r.read_pre + r.read_post == 0)
    return lm_fn_error(err, e, "22P02",
                       "invalid input syntax for type numeric: \"%c%s\"",
                       r.sign, r.num);
  /* numeric_in at typmod (pre + read_post, read_post) */
  int ip = 0; /* significant integer digits */
  lm_i128 v = 0;
  int digits = 0;
  bool in_frac = false;
  for (size_t k = 0; k < r.nn; k++) {
    if (r.num[k] == '.') {
      in_frac = true;
      continue;
    }
    if (!in_frac && (ip > 0 || r.num[k] != '0'))
      ip++;
    if (v != 0 || r.num[k] != '0')
      digits++;
    if (digits > 38)
      break;
    v = v * 10 + (r.num[k] - '0');
  }
  if (ip > t.pre) {
    lm_fn_error(err, e, "22003", "numeric field overflow");
    lm_err_detail(err,
                  "A field with precision %d, scale %d must round to an "
                  "absolute value less than %s%d.",
                  t.pre + r.read_post, r.read_post, t.pre ? "10^" : "",
                  t.pre ? t.pre : 1);
    return LM_ERR_EXEC;
  }
  int scale = b->type.scale;
  for (int k = r.read_post; k < scale && digits <= 38; k++) {
    v *= 10;
    digits += v != 0;
  }
  if (digits > 38)
    return lm_fn_error(err, e, "22003",
                       "numeric field overflow (Laminar's NUMERIC holds at "
                       "most 38 digits)");
  lm_dec_append(b, r.sign == '-' ? -v : v);
  return 0;
}

/* ------------------------------------------------------------- uuid */

bool lm_uuid_parse(const char *s, size_t n, char out[36]) {
  static const char hx[] = "0123456789abcdef";
  size_t p = 0;
  bool braces = n > 0 && s[0] == '{';
  p += braces;
  int o = 0;
  for (int i = 0; i < 16; i++) {
    if (p + 2 > n || !isxdigit((unsigned char)s[p]) ||
        !isxdigit((unsigned char)s[p + 1]))
      return false;
    for (int k = 0; k < 2; k++) {
      char c = (char)tolower((unsigned char)s[p + (size_t)k]);
      out[o++] = hx[c <= '9' ? c - '0' : c - 'a' + 10];
    }
    p += 2;
    if (i == 3 || i == 5 || i == 7 || i == 9)
      out[o++] = '-';
    if (p < n && s[p] == '-' && i % 2 == 1 && i < 15)
      p++;
  }
  if (braces) {
    if (p >= n || s[p] != '}')
      return false;
    p++;
  }
  return p == n;
}

bool lm_uuid_cast_handles(lm_type from, lm_type to) {
  if (lm_type_eq(from, to))
    return false;
  if (lm_type_is_uuid(to))
    return from.id == LM_TYPE_UTF8 || from.id == LM_TYPE_NULL;
  return lm_type_is_uuid(from) &&
         !(to.id == LM_TYPE_UTF8 && !lm_type_is_json(to));
}

int lm_uuid_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                 lm_error *err) {
  int64_t n = a->length;
  if (!lm_type_is_uuid(to)) /* PostgreSQL: no such cast */
    return lm_fn_error(err, e, "42846", "cannot cast type uuid to %s",
                       lm_pg_type_name(to));
  lm_builder b;
  if (lm_builder_init(&b, to, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    if (lm_farg_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t len;
    const char *s = lm_array_str(a, i, &len);
    char u[36];
    if (!lm_uuid_parse(s, (size_t)len, u)) {
      lm_builder_free(&b);
      return lm_fn_error(err, e, "22P02",
                         "invalid input syntax for type uuid: \"%.*s\"",
                         len > 200 ? 200 : (int)len, s);
    }
    lm_builder_append_str(&b, u, 36);
  }
  return lm_out_finish(&b, out, err);
}

static int gen_uuid(const lm_bexpr *e, lm_builder *b, lm_error *err) {
  uint8_t d[16];
  size_t got = 0;
  while (got < sizeof d) {
    ssize_t k = getrandom(d + got, sizeof d - got, 0);
    if (k <= 0)
      return lm_fn_error(err, e, "58000", "could not generate random values");
    got += (size_t)k;
  }
  d[6] = (uint8_t)((d[6] & 0x0f) | 0x40); /* version 4 */
  d[8] = (uint8_t)((d[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  static const char hx[] = "0123456789abcdef";
  char u[36];
  int o = 0;
  for (int i = 0; i < 16; i++) {
    u[o++] = hx[d[i] >> 4];
    u[o++] = hx[d[i] & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9)
      u[o++] = '-';
  }
  lm_builder_append_str(b, u, 36);
  return 0;
}

/* ----------------------------------------------------- sha2, bytea bits */

static void sha2(const char *s, int32_t n, int bits, lm_builder *b) {
  uint8_t d[SHA512_DIGEST_SIZE];
  size_t dl;
  if (bits == 224) {
    struct sha224_ctx h;
    sha224_init(&h);
    if (n > 0)
      sha224_update(&h, (size_t)n, (const uint8_t *)s);
    sha224_digest(&h, dl = SHA224_DIGEST_SIZE, d);
  } else if (bits == 384) {
    struct sha384_ctx h;
    sha384_init(&h);
    if (n > 0)
      sha384_update(&h, (size_t)n, (const uint8_t *)s);
    sha384_digest(&h, dl = SHA384_DIGEST_SIZE, d);
  } else {
    struct sha512_ctx h;
    sha512_init(&h);
    if (n > 0)
      sha512_update(&h, (size_t)n, (const uint8_t *)s);
    sha512_digest(&h, dl = SHA512_DIGEST_SIZE, d);
  }
  lm_builder_append_str(b, (const char *)d, (int32_t)dl);
}

/* get_byte 0, set_byte 1, get_bit 2, set_bit 3, bit_count 4: the op code
 * is the last argument. */
static int bytea_bits(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, lm_error *err) {
  int32_t n;
  const char *s = lm_array_str(a[0], i, &n);
  int op = (int)lm_array_get_i64(a[e->n_args - 1], i);
  if (op == 4) {
    int64_t c = 0;
    for (int32_t k = 0; k < n; k++)
      c += __builtin_popcount((unsigned char)s[k]);
    lm_builder_append_int(b, c);
    return 0;
  }
  int64_t idx = lm_array_get_i64(a[1], i);
  bool bit = op >= 2;
  int64_t top = bit ? (int64_t)n * 8 - 1 : (int64_t)n - 1;
  if (idx < 0 || idx > top)
    return lm_fn_error(err, e, "2202E",
                       "index %lld out of valid range, 0..%lld", (long long)idx,
                       (long long)top);
  int64_t byte = bit ? idx / 8 : idx;
  int sh = bit ? (int)(idx % 8) : 0;
  unsigned char c = (unsigned char)s[byte];
  if (op == 0 || op == 2) {
    lm_builder_append_int(b, bit ? (c >> sh) & 1 : c);
    return 0;
  }
  int64_t nv = lm_array_get_i64(a[2], i);
  if (bit && nv != 0 && nv != 1)
    return lm_fn_error(err, e, "22023", "new bit must be 0 or 1");
  lm_buf_reset(o);
  if (lm_buf_append(o, s, (size_t)n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (bit)
    o->data[byte] = (char)(nv ? (c | (1u << sh)) : (c & ~(1u << sh)));
  else
    o->data[byte] = (char)(unsigned char)nv;
  lm_builder_append_str(b, o->data, n);
  return 0;
}

/* ---------------------------------------------------------------- rows */

static int fn5_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                   lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  int32_t n, fl;
  switch (e->fn) {
  case LM_FN_TO_NUMBER: {
    const char *s = lm_array_str(a[0], i, &n);
    const char *f = lm_array_str(a[1], i, &fl);
    return to_number(e, s, n, f, fl, b, err);
  }
  case LM_FN_GEN_RANDOM_UUID:
    return gen_uuid(e, b, err);
  case LM_FN_SHA2: {
    const char *s = lm_array_str(a[0], i, &n);
    sha2(s, n, (int)lm_array_get_i64(a[1], i), b);
    return 0;
  }
  case LM_FN_BYTEA_BITS:
    return bytea_bits(e, a, i, b, o, err);
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
}

int lm_fn5_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                lm_error *err) {
  return lm_fn_rows(e, in, e->n_args, fn5_row, NULL, out, err);
}
