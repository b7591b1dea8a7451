/*
 * exec/srf.c — generate_series cursors (exec/lm_srf.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_regex_are.h"
#include "exec/lm_srf.h"
#include <stdio.h>

lm_srf_kind lm_srf_kind_of(const char *name) {
  if (!name)
    return LM_SRF_SCALAR;
  if (!strcmp(name, "generate_series"))
    return LM_SRF_SERIES;
  if (!strcmp(name, "string_to_table"))
    return LM_SRF_STRING_TO_TABLE;
  if (!strcmp(name, "regexp_split_to_table"))
    return LM_SRF_REGEXP_SPLIT;
  if (!strcmp(name, "unnest"))
    return LM_SRF_UNNEST;
  if (!strcmp(name, "regexp_matches"))
    return LM_SRF_REGEXP_MATCHES;
  return lm_srf_json_kind(name); /* srf_json.c */
}

bool lm_srf_is_name(const char *name) {
  return lm_srf_kind_of(name) != LM_SRF_SCALAR;
}

static bool is_ts(lm_type t) {
  return t.id == LM_TYPE_TIMESTAMP;
}

int lm_srf_series_init(lm_srf_series *s, lm_type type, const lm_value *start,
                       const lm_value *stop, const lm_value *step,
                       int64_t step_days, const struct lm_tz *tz,
                       lm_error *err) {
  memset(s, 0, sizeof *s);
  s->type = type;
  bool dec = type.id == LM_TYPE_DECIMAL128;
  if (!dec && type.id != LM_TYPE_INT32 && type.id != LM_TYPE_INT64 &&
      !is_ts(type))
    return lm_err(err, LM_ERR_BIND,
                  "generate_series: unsupported argument type");
  if (!step && is_ts(type))
    return lm_err(err, LM_ERR_BIND,
                  "generate_series over timestamps needs an interval step");
  if (start->is_null || stop->is_null || (step && step->is_null)) {
    s->done = true;
    return 0;
  }
  if (dec) {
    int sa = start->type.scale, sb = stop->type.scale;
    int sc = step ? step->type.scale : 0;
    int w = sa > sb ? sa : sb;
    w = w > sc ? w : sc;
    lm_i128 a = (lm_i128)start->v.d128.lo | ((lm_i128)start->v.d128.hi << 64);
    lm_i128 b = (lm_i128)stop->v.d128.lo | ((lm_i128)stop->v.d128.hi << 64);
    lm_i128 c = 1;
    if (step)
      c = (lm_i128)step->v.d128.lo | ((lm_i128)step->v.d128.hi << 64);
    const lm_i128 vs[3] = {a, b, c};
    static const char *const what[3] = {"start value", "stop value",
                                        "step size"};
    for (int k = 0; k < 3; k++)
      if (lm_dec_is_special(vs[k])) { /* PostgreSQL's messages */
        lm_err(err, LM_ERR_EXEC, "%s cannot be %s", what[k],
               vs[k] == LM_DEC_NAN ? "NaN" : "infinity");
        return lm_err_state(err, "22023");
      }
    if (lm_dec_rescale(a, sa, w, &s->dcur) ||
        lm_dec_rescale(b, sb, w, &s->dstop) ||
        lm_dec_rescale(c, step ? sc : 0, w, &s->dstep))
      return lm_err(err, LM_ERR_EXEC, "numeric field overflow");
    s->wscale = w;
    if (s->dstep == 0) {
      lm_err(err, LM_ERR_EXEC, "step size cannot equal zero");
      return lm_err_state(err, "22023");
    }
    return 0;
  }
  s->cur = start->v.i;
  s->stop = stop->v.i;
  if (step && step->type.id == LM_TYPE_INTERVAL_MDN) {
    lm_iv v = {step->v.mdn.months, step->v.mdn.days, step->v.mdn.ns / 1000};
    __int128 sp = lm_iv_span(&v);
    if (sp == 0) {
      lm_err(err, LM_ERR_EXEC, "step size cannot equal zero");
      return lm_err_state(err, "22023");
    }
    s->iv = true;
    s->iv_months = v.months;
    s->iv_days = v.days;
    s->step = v.us;
    s->step_days = sp > 0 ? 1 : -1; /* the direction only */
    s->tz = lm_type_is_tstz(type) ? lm_tz_session() : NULL;
    return 0;
  }
  s->step = step ? step->v.i : 1;
  s->step_days = step_days;
  s->tz = tz;
  if (step_days) /* step holds the whole interval: keep the rest apart */
    s->step -= step_days * LM_US_PER_DAY;
  if (s->step == 0 && s->step_days == 0) {
    lm_err(err, LM_ERR_EXEC, "step size cannot equal zero");
    return lm_err_state(err, "22023");
  }
  return 0;
}

/* The next timestamp after cur; false on overflow. */
static bool ts_next(const lm_srf_series *s, int64_t cur, int64_t *out) {
  int64_t v = cur;
  if (s->iv) {
    lm_iv iv = {s->iv_months, s->iv_days, s->step};
    return lm_ts_plus_iv(v, &iv, 1, s->tz, out) == 0;
  }
  if (s->step_days) {
    int64_t d;
    if (__builtin_mul_overflow(s->step_days, LM_US_PER_DAY, &d))
      return false;
    if (s->tz) {
      int64_t local = lm_tz_to_local(s->tz, v);
      if (__builtin_add_overflow(local, d, &local))
        return false;
      v = lm_tz_from_local(s->tz, local, NULL);
    } else if (__builtin_add_overflow(v, d, &v)) {
      return false;
    }
  }
  return !__builtin_add_overflow(v, s->step, out);
}

int64_t lm_srf_series_fill(lm_srf_series *s, lm_builder *b, int64_t max) {
  int64_t n = 0;
  if (s->type.id == LM_TYPE_DECIMAL128) {
    int os = s->type.scale;
    lm_i128 lim = lm_dec_pow10(LM_DEC_MAX_DIGITS);
    while (!s->done && n < max) {
      bool in = s->dstep > 0 ? s->dcur <= s->dstop : s->dcur >= s->dstop;
      if (!in) {
        s->done = true;
        break;
      }
      lm_i128 v = s->dcur;
      if (os != s->wscale && lm_dec_rescale(v, s->wscale, os, &v)) {
        s->done = true;
        break;
      }
      lm_dec_append(b, v);
      n++;
      lm_i128 nx = s->dcur + s->dstep;
      if (nx >= lim || nx <= -lim)
        s->done = true;
      s->dcur = nx;
    }
    return n;
  }
  bool up = s->iv ? s->step_days > 0
                  : s->step > 0 || (s->step == 0 && s->step_days > 0);
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  if (s->type.id == LM_TYPE_INT32) {
    lo = INT32_MIN;
    hi = INT32_MAX;
  }
  bool ts = is_ts(s->type);
  if (!ts && !b->validity && s->step != 0) { /* integers: whole runs */
    while (!s->done && n < max) {
      if (up ? s->cur > s->stop : s->cur < s->stop) {
        s->done = true;
        break;
      }
      /* values left: (stop - cur) / step + 1, exactly (128-bit) */
      __int128 left = ((__int128)s->stop - s->cur) / s->step + 1;
      int64_t take = left < max - n ? (int64_t)left : max - n;
      if (b->capacity - b->length < take && lm_builder_grow(b, take))
        return n;
      int64_t v = s->cur, st = s->step;
      if (s->type.id == LM_TYPE_INT32) {
        int32_t *o = (int32_t *)b->values + b->length;
        for (int64_t i = 0; i < take; i++, v += st)
          o[i] = (int32_t)v;
      } else {
        int64_t *o = (int64_t *)b->values + b->length;
        for (int64_t i = 0; i < take; i++)
          o[i] = v + i * st;
      }
      b->length += take;
      n += take;
      if (take == left)
        s->done = true; /* the last value: the next would pass stop */
      else
        s->cur += take * st; /* within [cur, stop]: no overflow */
    }
    return n;
  }
  while (!s->done && n < max) {
    if (up ? s->cur > s->stop : s->cur < s->stop) {
      s->done = true;
      break;
    }
    lm_builder_append_int(b, s->cur);
    n++;
    int64_t nx;
    bool ok = ts ? ts_next(s, s->cur, &nx)
                 : !__builtin_add_overflow(s->cur, s->step, &nx);
    if (!ok || nx < lo || nx > hi)
      s->done = true; /* PostgreSQL stops before overflowing */
    else
      s->cur = nx;
  }
  return n;
}

/* ------------------------------------------------------- text splits */

void lm_srf_rx_free(lm_srf_rx *rx) {
  pcre2_match_data_free(rx->md);
  pcre2_code_free(rx->code);
  free(rx->key);
  if (rx->jar) {
    lm_arena_free(rx->jar);
    free(rx->jar);
  }
  memset(rx, 0, sizeof *rx);
}

static int ex_err(lm_error *err, const char *state, const char *msg) {
  lm_err(err, LM_ERR_EXEC, "%s", msg);
  return lm_err_state(err, state);
}

/* Compiles pattern p (pl bytes) with flags f (fl bytes) unless rx holds
 * them already; *global: whether f has 'g' (allowed only when global is
 * not NULL: regexp_matches). */
static int rx_get(lm_srf_rx *rx, const char *p, int32_t pl, const char *f,
                  int32_t fl, bool *global, lm_error *err) {
  bool g = false;
  for (int32_t k = 0; k < fl; k++)
    g = g || f[k] == 'g';
  if (global)
    *global = g;
  if (rx->code && rx->klen == pl + fl && rx->plen == pl &&
      !memcmp(rx->key, p, (size_t)pl) && !memcmp(rx->key + pl, f, (size_t)fl))
    return 0;
  uint32_t opts = PCRE2_UTF | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY;
  for (int32_t k = 0; k < fl; k++) {
    char c = f[k];
    bool lit = false;
    if (c != 'b' && lm_regex_option(c, &opts, &lit)) {
      if (lit)
        opts |= PCRE2_LITERAL;
    } else if (c == 'g' && global) {
      continue;
    } else if (c == 'g')
      return ex_err(err, "22023",
                    "regexp_split_to_table() does not support the "
                    "\"global\" option");
    else {
      char m[80];
      snprintf(m, sizeof m, "invalid regular expression option: \"%c\"", c);
      return ex_err(err, "22023", m);
    }
  }
  if (opts & PCRE2_LITERAL)
    opts &= PCRE2_LITERAL | PCRE2_CASELESS | PCRE2_UTF;
  lm_srf_rx_free(rx);
  int ec;
  PCRE2_SIZE off;
  lm_buf t; /* PostgreSQL's ARE for PCRE2 */
  lm_buf_init(&t);
  char tm[300];
  int tr = lm_regex_are(p, (size_t)pl, &opts, &t, tm, sizeof tm);
  if (tr) {
    lm_buf_free(&t);
    return tr == -2 ? lm_err(err, LM_ERR_NOMEM, "out of memory")
                    : ex_err(err, "2201B", tm);
  }
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)(t.data ? t.data : ""), t.len,
                                   opts, &ec, &off, NULL);
  lm_buf_free(&t);
  if (!code) {
    PCRE2_UCHAR buf[256];
    char m[400];
    pcre2_get_error_message(ec, buf, sizeof buf);
    snprintf(m, sizeof m, "invalid regular expression: %s (at offset %zu)",
             (const char *)buf, (size_t)off);
    return ex_err(err, "2201B", m);
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  rx->code = code;
  rx->md = pcre2_match_data_create_from_pattern(code, NULL);
  rx->key = malloc((size_t)(pl + fl) + 1);
  if (!rx->md || !rx->key) {
    lm_srf_rx_free(rx);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  memcpy(rx->key, p, (size_t)pl);
  memcpy(rx->key + pl, f, (size_t)fl);
  rx->klen = pl + fl;
  rx->plen = pl;
  return 0;
}

int lm_srf_split_init(lm_srf_split *s, lm_srf_kind kind, const lm_value *str,
                      const lm_value *delim, const lm_value *third,
                      lm_srf_rx *rx, lm_error *err) {
  if (lm_srf_is_json(kind)) /* srf_json.c */
    return lm_srf_json_init(s, kind, str, rx, err);
  memset(s, 0, sizeof *s);
  s->kind = kind;
  if (str->is_null) {
    s->done = true;
    return 0;
  }
  if (kind == LM_SRF_UNNEST) { /* the items of a LIST row */
    if (str->type.id != LM_TYPE_LIST && str->type.id != LM_TYPE_LARGE_LIST) {
      s->done = true;
      return 0;
    }
    s->items = str->v.ref.a->children[0];
    lm_array_list_range(str->v.ref.a, str->v.ref.i, &s->ipos, &s->iend);
    s->done = s->ipos >= s->iend;
    return 0;
  }
  s->s = str->v.s.p;
  s->len = str->v.s.len;
  if (kind == LM_SRF_STRING_TO_TABLE) {
    if (!s->len) { /* PostgreSQL: an empty string has no pieces */
      s->done = true;
      return 0;
    }
    if (!delim->is_null) {
      s->delim = delim->v.s.p ? delim->v.s.p : "";
      s->dlen = delim->v.s.len;
    }
    if (third && !third->is_null) {
      s->has_nul = true;
      s->nul = third->v.s.p;
      s->nlen = third->v.s.len;
    }
    return 0;
  }
  if (delim->is_null || (third && third->is_null)) {
    s->done = true;
    return 0;
  }
  s->rx = rx;
  return rx_get(rx, delim->v.s.p ? delim->v.s.p : "", delim->v.s.len,
                third ? third->v.s.p : "", third ? third->v.s.len : 0,
                kind == LM_SRF_REGEXP_MATCHES ? &s->global : NULL, err);
}

/* Bytes of the UTF-8 character at p (1 for a stray byte). */
static int32_t u8len(const char *p, int32_t left) {
  unsigned char c = (unsigned char)*p;
  int32_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return n > left ? left : n;
}

static void put_piece(lm_srf_split *s, lm_builder *b, const char *p,
                      int32_t n) {
  if (s->has_nul && n == s->nlen && !memcmp(p, s->nul, (size_t)n))
    lm_builder_append_null(b);
  else
    lm_builder_append_str(b, p, n);
}

/* regexp_matches: the next matches, each as a text[] of its groups (the
 * whole match when the pattern has none; an unmatched group NULL), as
 * PostgreSQL's: after an empty match the search goes on one character
 * later. */
static int64_t matches_fill(lm_srf_split *s, lm_builder *b, int64_t max) {
  int64_t n = 0;
  if (s->done || !s->rx)
    return 0;
  pcre2_match_data *md = s->rx->md;
  uint32_t ng = 0;
  pcre2_pattern_info(s->rx->code, PCRE2_INFO_CAPTURECOUNT, &ng);
  while (!s->done && n < max) {
    if (s->search > s->len) {
      s->done = true;
      break;
    }
    int r = pcre2_match(s->rx->code, (PCRE2_SPTR)s->s, (size_t)s->len,
                        (size_t)s->search, 0, md, NULL);
    if (r < 0) {
      s->done = true;
      break;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    lm_builder *it = lm_builder_list_items(b);
    if (!it) {
      s->done = true;
      break;
    }
    for (uint32_t g = ng ? 1 : 0; g <= ng; g++) {
      if (ov[2 * g] == PCRE2_UNSET)
        lm_builder_append_null(it);
      else
        lm_builder_append_str(it, s->s + ov[2 * g],
                              (int32_t)(ov[2 * g + 1] - ov[2 * g]));
    }
    lm_builder_list_end(b);
    n++;
    int32_t so = (int32_t)ov[0], eo = (int32_t)ov[1];
    s->search = eo;
    if (so == eo)
      s->search += so < s->len ? u8len(s->s + so, s->len - so) : 1;
    if (!s->global)
      s->done = true;
  }
  return n;
}

int64_t lm_srf_split_fill(lm_srf_split *s, lm_builder *b, int64_t max) {
  int64_t n = 0;
  if (lm_srf_is_json(s->kind))
    return lm_srf_json_fill(s, b, max);
  if (s->kind == LM_SRF_UNNEST) {
    for (; !s->done && n < max; n++) {
      lm_builder_append_from(b, s->items, s->ipos++);
      s->done = s->ipos >= s->iend;
    }
    return n;
  }
  if (s->kind == LM_SRF_REGEXP_MATCHES)
    return matches_fill(s, b, max);
  while (!s->done && n < max) {
    const char *rest = s->s + s->pos;
    int32_t left = s->len - s->pos;
    if (s->kind == LM_SRF_STRING_TO_TABLE) {
      if (!s->delim) { /* each character */
        if (left <= 0) {
          s->done = true;
          break;
        }
        int32_t k = u8len(rest, left);
        put_piece(s, b, rest, k);
        s->pos += k;
        n++;
        continue;
      }
      const char *hit = NULL;
      if (s->dlen)
        for (int32_t i = 0; i + s->dlen <= left; i++)
          if (rest[i] == s->delim[0] &&
              !memcmp(rest + i, s->delim, (size_t)s->dlen)) {
            hit = rest + i;
            break;
          }
      if (!hit) { /* the last piece */
        put_piece(s, b, rest, left);
        s->done = true;
        n++;
        break;
      }
      put_piece(s, b, rest, (int32_t)(hit - rest));
      s->pos += (int32_t)(hit - rest) + s->dlen;
      n++;
      continue;
    }
    /* regexp: PostgreSQL's split skips a match that is empty at the start
     * or end of the string or right after the previous match */
    int32_t ms = -1, me = -1;
    pcre2_match_data *md = s->rx->md;
    while (s->search <= s->len) {
      int r = pcre2_match(s->rx->code, (PCRE2_SPTR)s->s, (size_t)s->len,
                          (size_t)s->search, 0, md, NULL);
      if (r < 0)
        break;
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
      int32_t so = (int32_t)ov[0], eo = (int32_t)ov[1];
      bool keep = so < s->len && eo > s->prev_end;
      s->prev_end = eo;
      s->search = eo;
      if (so == eo)
        s->search += so < s->len ? u8len(s->s + so, s->len - so) : 1;
      if (keep) {
        ms = so;
        me = eo;
        break;
      }
    }
    if (ms < 0) { /* the rest of the string */
      lm_builder_append_str(b, rest, left);
      s->done = true;
      n++;
      break;
    }
    lm_builder_append_str(b, rest, ms - s->pos);
    s->pos = me;
    n++;
  }
  return n;
}
