/*
 * The Nexmark source (FROM NEXMARK): Person, Auction and Bid events as the
 * Flink nexmark generator (github.com/nexmark/nexmark, nexmark-flink) makes
 * them, but deterministic: event `id`'s random numbers come from a
 * splitmix64 stream whose start is a hash of (seed, id), so an event depends
 * only on the options and its id — the same on every run and in any split
 * of the id range. docs/nexmark.md describes the rules and options.
 *
 * One reader produces one table (person, auction or bid): it walks the
 * event ids of its range, skips the ids of the other two types and writes
 * the rows of its own straight into column builders (no per-row malloc, no
 * printf). Event time: event `n` is at base + floor(floor(n * 1e6 / rate)
 * / 1000) ms, kept incrementally as a quotient/remainder pair.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_temporal.h"
#include "connectors/lm_connectors.h"

/* ------------------------------------------------------------ constants */

#define FIRST_PERSON_ID 1000
#define FIRST_AUCTION_ID 1000
#define FIRST_CATEGORY_ID 10
#define NUM_CATEGORIES 5
#define HOT_SELLER_RATIO 100 /* hot ids are multiples of these */
#define HOT_AUCTION_RATIO 100
#define HOT_BIDDER_RATIO 100
#define PERSON_ID_LEAD 10
#define AUCTION_ID_LEAD 10
#define CHANNELS 10000
#define PAD_BYTES (1 << 20) /* the random a-z text `extra` is cut from */
#define MAX_AVG_SIZE 100000 /* limit of the *.avg-size options */
#define SLACK 64            /* over-copy room after buffers */
/* 2025-01-01 00:00:00 UTC, in ms: the default base time */
#define DEFAULT_BASE_MS INT64_C(1735689600000)

static const char *const FIRST_NAMES[] = {"Peter", "Paul",   "Luke",  "John",
                                          "Saul",  "Vicky",  "Kate",  "Julie",
                                          "Sarah", "Deiter", "Walter"};
static const char *const LAST_NAMES[] = {"Shultz", "Abrams",  "Spencer",
                                         "White",  "Bartels", "Walton",
                                         "Smith",  "Jones",   "Noris"};
/* padded to 16 bytes: copied 16 bytes at a time (ovcopy) */
static const char CITIES16[10][16] = {
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
    "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
static const uint8_t CITY_LEN[10] = {7, 11, 13, 5, 8, 4, 7, 7, 4, 8};
static const char STATES16[6][16] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
/* padded to 16 bytes: bids copy channel names 16 bytes at a time */
static const char HOT_CHANNELS[4][16] = {"Google", "Facebook", "Baidu",
                                         "Apple"};
static const uint8_t HOT_LEN[4] = {6, 8, 5, 5};

/* ------------------------------------------------------------- schemas */

enum { NX_PERSON = 0, NX_AUCTION = 1, NX_BID = 2 };
static const char *const TABLE_NAMES[] = {"person", "auction", "bid"};

typedef struct nx_col {
  const char *name;
  lm_type_id type;
} nx_col;

enum { P_ID, P_NAME, P_EMAIL, P_CARD, P_CITY, P_STATE, P_TIME, P_EXTRA, P_N };
static const nx_col PERSON_COLS[P_N] = {
    {"id", LM_TYPE_INT64},           {"name", LM_TYPE_UTF8},
    {"emailAddress", LM_TYPE_UTF8},  {"creditCard", LM_TYPE_UTF8},
    {"city", LM_TYPE_UTF8},          {"state", LM_TYPE_UTF8},
    {"dateTime", LM_TYPE_TIMESTAMP}, {"extra", LM_TYPE_UTF8}};

enum {
  A_ID,
  A_ITEM,
  A_DESC,
  A_INITIAL,
  A_RESERVE,
  A_TIME,
  A_EXPIRES,
  A_SELLER,
  A_CATEGORY,
  A_EXTRA,
  A_N
};
static const nx_col AUCTION_COLS[A_N] = {
    {"id", LM_TYPE_INT64},          {"itemName", LM_TYPE_UTF8},
    {"description", LM_TYPE_UTF8},  {"initialBid", LM_TYPE_INT64},
    {"reserve", LM_TYPE_INT64},     {"dateTime", LM_TYPE_TIMESTAMP},
    {"expires", LM_TYPE_TIMESTAMP}, {"seller", LM_TYPE_INT64},
    {"category", LM_TYPE_INT64},    {"extra", LM_TYPE_UTF8}};

enum { B_AUCTION, B_BIDDER, B_PRICE, B_CHANNEL, B_URL, B_TIME, B_EXTRA, B_N };
static const nx_col BID_COLS[B_N] = {
    {"auction", LM_TYPE_INT64}, {"bidder", LM_TYPE_INT64},
    {"price", LM_TYPE_INT64},   {"channel", LM_TYPE_UTF8},
    {"url", LM_TYPE_UTF8},      {"dateTime", LM_TYPE_TIMESTAMP},
    {"extra", LM_TYPE_UTF8}};

static const nx_col *const TABLE_COLS[] = {PERSON_COLS, AUCTION_COLS, BID_COLS};
static const int TABLE_NCOLS[] = {P_N, A_N, B_N};

lm_schema *lm_nexmark_table_schema(int table) {
  if (table < 0 || table > 2)
    return NULL;
  const nx_col *c = TABLE_COLS[table];
  int n = TABLE_NCOLS[table];
  lm_schema *s = lm_schema_new(n);
  for (int i = 0; s && i < n; i++)
    if (lm_schema_set_field(s, i, c[i].name, lm_type_make(c[i].type), false)) {
      lm_schema_release(s);
      s = NULL;
    }
  return s;
}

static int table_of(const lm_kv *opts, int n_opts, int *table, lm_error *err) {
  const char *t = lm_kv_get(opts, n_opts, "table");
  if (!t)
    return lm_err(err, LM_ERR_BIND,
                  "NEXMARK needs 'table' = 'person', 'auction' or 'bid'");
  for (int i = 0; i < 3; i++)
    if (!lm_strcasecmp(t, TABLE_NAMES[i])) {
      *table = i;
      return 0;
    }
  return lm_err(err, LM_ERR_BIND,
                "NEXMARK option 'table' must be 'person', 'auction' or 'bid', "
                "not '%s'",
                t);
}

int lm_nexmark_source_schema(const lm_kv *opts, int n_opts,
                             const lm_schema *declared, lm_schema **out,
                             lm_error *err) {
  *out = NULL;
  int table = 0; /* set by table_of (gcc -O3 cannot see it) */
  int rc = table_of(opts, n_opts, &table, err);
  if (rc)
    return rc;
  lm_schema *full = lm_nexmark_table_schema(table);
  if (!full)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (!declared || declared->n_fields == 0) {
    *out = full;
    return 0;
  }
  lm_schema *s = lm_schema_new(declared->n_fields);
  if (!s) {
    lm_schema_release(full);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < declared->n_fields && !rc; i++) {
    const lm_field *d = &declared->fields[i];
    int k = lm_schema_find(full, d->name);
    if (k < 0) {
      char names[256] = "";
      size_t len = 0;
      for (int j = 0; j < full->n_fields; j++) {
        size_t w = strlen(full->fields[j].name);
        if (len + w + 3 < sizeof names) {
          if (j)
            memcpy(names + len, ", ", 2), len += 2;
          memcpy(names + len, full->fields[j].name, w + 1);
          len += w;
        }
      }
      rc = lm_err(err, LM_ERR_BIND,
                  "column '%s' is not a column of NEXMARK table %s (%s)",
                  d->name, TABLE_NAMES[table], names);
    } else if (!lm_type_eq(d->type, full->fields[k].type)) {
      rc = lm_err(err, LM_ERR_BIND,
                  "column '%s' of NEXMARK table %s is %s, not %s", d->name,
                  TABLE_NAMES[table], lm_type_name(full->fields[k].type),
                  lm_type_name(d->type));
    } else if (lm_schema_set_field(s, i, full->fields[k].name,
                                   full->fields[k].type, false)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
  }
  lm_schema_release(full);
  if (rc) {
    lm_schema_release(s);
    return rc;
  }
  *out = s;
  return 0;
}

/* ------------------------------------------------------------ randomness */

#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t mix64(uint64_t z) { /* splitmix64's finalizer */
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* A splitmix64 stream. */
typedef struct nx_rng {
  uint64_t s;
} nx_rng;

static inline uint64_t rng_next(nx_rng *r) {
  return mix64(r->s += GOLDEN);
}

/* Takes a uniform value in [0, n) from the top of the 64-bit fraction *w and
 * leaves the rest of the fraction in *w (Lemire's multiply; each call uses
 * about log2(n) of the word's bits). n <= 2^32. */
static inline uint64_t take(uint64_t *w, uint64_t n) {
  unsigned __int128 t = (unsigned __int128)*w * n;
  *w = (uint64_t)t;
  return (uint64_t)(t >> 64);
}

/* A uniform value in [0, n) from a fresh word (any n >= 1). */
static inline int64_t rng_below(nx_rng *r, int64_t n) {
  uint64_t w = rng_next(r);
  return (int64_t)take(&w, (uint64_t)n);
}

/* ----------------------------------------------------------------- config */

/* One pushed-down predicate over bid field f (B_AUCTION, B_BIDDER, B_PRICE
 * or B_TIME), as a range: x = v % mod (mod > 0) or v (mod 0) passes when
 * lo <= x <= hi, or when it does not if neg (<>, and the comparisons no
 * value meets); m32 is Lemire's fastmod constant when 1 < mod < 2^32
 * (0: use %). */
typedef struct nx_pred {
  int f;
  bool neg;
  int64_t mod;
  uint64_t lo, width; /* lo as unsigned; hi - lo (two's complement) */
  uint64_t m32;
} nx_pred;

typedef struct nx_reader {
  lm_source_reader base;
  lm_schema *schema; /* output columns */
  int table;
  int out[A_N]; /* table field -> output column, -1 = not emitted */
  /* field f's values are generated (out[f] >= 0 and a consumer reads it,
   * lm_nexmark_reader_project); an emitted field that is not generated
   * is a placeholder column (zeros / empty strings) */
  bool gen[A_N];
  /* options */
  int64_t first, end; /* event ids [first, end); end = INT64_MAX unbounded */
  int64_t rate;       /* first-event.rate, events per second */
  int64_t base_ms;
  uint64_t key; /* hash of the seed */
  int64_t batch;
  int P, A, B, T; /* proportions, T = P + A + B */
  int avg_person, avg_auction, avg_bid;
  int hot_auctions, hot_bidders, hot_sellers;
  int in_flight, active_people;
  int64_t bidder_offset; /* FIRST_PERSON_ID, or twice that (Flink quirk) */
  bool rate_limited;
  int64_t started_us;
  /* position: the next event id and its time as floor(id * 1e6 / rate) =
   * q + r / rate (0 <= r < rate); per id, q += sq and r += sr */
  int64_t id, q, r, sq, sr;
  /* auctions: k = in_flight * T / A ids ahead adds ahead_q + (r + ahead_r)
   * / rate (0 <= ahead_r < rate) */
  int64_t ahead_q, ahead_r;
  /* bid extra: length bmin + take(2 * delta) */
  int64_t bmin, brange;
  /* tables built from the seed when a generated column first needs them
   * (ensure_tables): the pad for `extra`, the urls, the channel names */
  bool have_pad, have_urls, have_names;
  /* gen changed since the last layout (ensure_tables + layout at the next
   * poll: the tables of columns projected away are never built) */
  bool dirty;
  char *pad;        /* PAD_BYTES random a-z (+SLACK) */
  char *urls;       /* CHANNELS + 4 urls back to back (+SLACK) */
  int32_t *url_off; /* CHANNELS + 4 + 1 offsets; hot ones last */
  int64_t max_url;
  char channel_names[CHANNELS][16];
  uint8_t channel_len[CHANNELS];
  double price_hi[256], price_mid[256], price_lo[256];
  /* predicate pushdown (lm_nexmark_reader_filter): a bid failing one of
   * pred[0..n_pred) is skipped; through_us is the event time of the last
   * bid gone past (INT64_MIN: none yet) */
  nx_pred pred[LM_GEN_MAX_PREDS];
  int n_pred;
  uint32_t pred_need; /* bit f: a predicate reads bid field f */
  int64_t through_us;
  /* late materialization (lm_nexmark_reader_lazy): the bid string fields
   * of lazy_mask (bits B_CHANNEL, B_URL, B_EXTRA) are made only for the
   * rows whose field lazy_key lies in lazy_fn's key range for their time;
   * the others hold '' there */
  uint32_t lazy_mask;
  int lazy_key;
  lm_gen_verdict_fn lazy_fn;
  void *lazy_ctx;
  /* a batch is cut short once a verdict keeps every row (no running value
   * yet: a window's first rows), so that the consumer folds those rows
   * before the next poll asks again; at most once until a verdict that
   * rules rows out is seen (cut_ok) */
  bool cut_ok;
  /* batch memory: every batch is one slab from the pool, laid out as
   * below for rows_cap rows; -1 = column not emitted */
  struct nx_pool *pool;
  int64_t rows_cap;   /* rows per batch: batch.size capped by bytes */
  int64_t v_off[A_N]; /* values (int64) or offsets (int32) of field f */
  int64_t d_off[A_N]; /* string bytes of field f; -1 for int columns */
  int64_t d_max[A_N]; /* longest string of field f, bytes */
  int64_t z_off;      /* zeros behind placeholder columns; -1 = none */
  size_t slab_bytes;
} nx_reader;

static int parse_int(const char *s, const char *name, int64_t min, int64_t max,
                     int64_t *out, lm_error *err) {
  char *end;
  long long v = strtoll(s, &end, 10);
  /* Flink's memory sizes may say '100b' */
  if (end != s && (*end == 'b' || *end == 'B') && end[1] == 0)
    end++;
  if (end == s || *end || v < min || v > max)
    return lm_err(err, LM_ERR_BIND,
                  "NEXMARK option '%s' must be an integer in [%lld, %lld], "
                  "not '%s'",
                  name, (long long)min, (long long)max, s);
  *out = v;
  return 0;
}

static int opt_int(const lm_kv *opts, int n, const char *name, int64_t min,
                   int64_t max, int64_t *out, lm_error *err) {
  const char *v = lm_kv_get(opts, n, name);
  return v ? parse_int(v, name, min, max, out, err) : 0;
}

static const char *const KNOWN_OPTS[] = {"table",
                                         "events.num",
                                         "first.event",
                                         "first-event.rate",
                                         "base.time",
                                         "seed",
                                         "batch.size",
                                         "person.proportion",
                                         "auction.proportion",
                                         "bid.proportion",
                                         "person.avg-size",
                                         "auction.avg-size",
                                         "bid.avg-size",
                                         "bid.hot-ratio.auctions",
                                         "bid.hot-ratio.bidders",
                                         "auction.hot-ratio.sellers",
                                         "auctions.in-flight",
                                         "people.active",
                                         "bidder.flink-offset",
                                         "rate.limited",
                                         NULL};

static int parse_options(nx_reader *g, const lm_kv *opts, int n,
                         lm_error *err) {
  for (int i = 0; i < n; i++) {
    bool ok = false;
    for (int j = 0; KNOWN_OPTS[j] && !ok; j++)
      ok = !lm_strcasecmp(opts[i].key, KNOWN_OPTS[j]);
    if (!ok)
      return lm_err(err, LM_ERR_BIND,
                    "unknown NEXMARK option '%s' (see docs/nexmark.md)",
                    opts[i].key);
  }
  int rc = table_of(opts, n, &g->table, err);
  if (rc)
    return rc;
  int64_t events = -1, first = 0, rate = 10000, seed = 0, batch = 4096;
  int64_t pp = 1, ap = 3, bp = 46, ps = 200, as = 500, bs = 100;
  int64_t ha = 2, hb = 4, hs = 4, fl = 100, act = 1000, quirk = 1, lim = 0;
  const int64_t big = INT64_C(1) << 53;
  if ((rc = opt_int(opts, n, "events.num", 0, big, &events, err)) ||
      (rc = opt_int(opts, n, "first.event", 0, big, &first, err)) ||
      (rc = opt_int(opts, n, "first-event.rate", 1, INT32_MAX, &rate, err)) ||
      (rc = opt_int(opts, n, "seed", INT64_MIN, INT64_MAX, &seed, err)) ||
      (rc = opt_int(opts, n, "batch.size", 1, 1 << 20, &batch, err)) ||
      (rc = opt_int(opts, n, "person.proportion", 0, 1000, &pp, err)) ||
      (rc = opt_int(opts, n, "auction.proportion", 0, 1000, &ap, err)) ||
      (rc = opt_int(opts, n, "bid.proportion", 0, 1000, &bp, err)) ||
      (rc = opt_int(opts, n, "person.avg-size", 0, MAX_AVG_SIZE, &ps, err)) ||
      (rc = opt_int(opts, n, "auction.avg-size", 0, MAX_AVG_SIZE, &as, err)) ||
      (rc = opt_int(opts, n, "bid.avg-size", 0, MAX_AVG_SIZE, &bs, err)) ||
      (rc = opt_int(opts, n, "bid.hot-ratio.auctions", 1, 1 << 20, &ha, err)) ||
      (rc = opt_int(opts, n, "bid.hot-ratio.bidders", 1, 1 << 20, &hb, err)) ||
      (rc = opt_int(opts, n, "auction.hot-ratio.sellers", 1, 1 << 20, &hs,
                    err)) ||
      (rc = opt_int(opts, n, "auctions.in-flight", 1, 1 << 20, &fl, err)) ||
      (rc = opt_int(opts, n, "people.active", 1, 1 << 20, &act, err)))
    return rc;
  const char *v;
  if ((v = lm_kv_get(opts, n, "bidder.flink-offset"))) {
    if (lm_strcasecmp(v, "true") && lm_strcasecmp(v, "false"))
      return lm_err(err, LM_ERR_BIND,
                    "NEXMARK option 'bidder.flink-offset' must be 'true' or "
                    "'false', not '%s'",
                    v);
    quirk = !lm_strcasecmp(v, "true");
  }
  if ((v = lm_kv_get(opts, n, "rate.limited"))) {
    if (lm_strcasecmp(v, "true") && lm_strcasecmp(v, "false"))
      return lm_err(err, LM_ERR_BIND,
                    "NEXMARK option 'rate.limited' must be 'true' or 'false', "
                    "not '%s'",
                    v);
    lim = !lm_strcasecmp(v, "true");
  }
  g->base_ms = DEFAULT_BASE_MS;
  if ((v = lm_kv_get(opts, n, "base.time"))) {
    char *e;
    long long ms = strtoll(v, &e, 10);
    int64_t us;
    if (e != v && !*e)
      g->base_ms = ms;
    else if (!lm_parse_timestamp(v, strlen(v), &us))
      g->base_ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
    else
      return lm_err(err, LM_ERR_BIND,
                    "NEXMARK option 'base.time' must be ms since the epoch "
                    "or a timestamp like '2025-01-01 00:00:00', not '%s'",
                    v);
    if (g->base_ms < -big || g->base_ms > big)
      return lm_err(err, LM_ERR_BIND,
                    "NEXMARK option 'base.time' is out "
                    "of range");
  }
  if (pp + ap + bp == 0)
    return lm_err(err, LM_ERR_BIND, "NEXMARK proportions are all 0");
  g->first = first;
  /* events.num = 0 means unbounded, as in Flink */
  g->end = events <= 0 ? INT64_MAX : first + events;
  int64_t share[3] = {pp, ap, bp};
  if (share[g->table] == 0)
    g->end = first; /* this table never gets a row */
  g->rate = rate;
  g->key = mix64((uint64_t)seed ^ UINT64_C(0x6e65786d61726b21));
  g->batch = batch;
  g->P = (int)pp, g->A = (int)ap, g->B = (int)bp, g->T = (int)(pp + ap + bp);
  g->avg_person = (int)ps, g->avg_auction = (int)as, g->avg_bid = (int)bs;
  g->hot_auctions = (int)ha, g->hot_bidders = (int)hb, g->hot_sellers = (int)hs;
  g->in_flight = (int)fl, g->active_people = (int)act;
  g->bidder_offset = quirk ? 2 * FIRST_PERSON_ID : FIRST_PERSON_ID;
  g->rate_limited = lim;
  return 0;
}

/* ------------------------------------------------------------- strings */

/* Character tables for nextString: entry x of 4096 is outcome
 * floor(x * 169 / 4096) of 169 equally likely ones, 13 of which are the
 * special character (P = 1/13, as in Flink's nextString) and 6 each the
 * letters a-z (the 12-bit draw is off by at most 1/4096). 0 = ' ',
 * 1 = '_'. */
static char CHARS[2][4096];

static void init_chars(void) {
  for (int x = 0; x < 4096; x++) {
    int k = x * 169 / 4096;
    CHARS[0][x] = k < 13 ? ' ' : (char)('a' + (k - 13) / 6);
    CHARS[1][x] = k < 13 ? '_' : CHARS[0][x];
  }
}

/* Flink's nextString(max, special): 3 + rand(max - 3) characters, each
 * special with probability 1/13 else a-z, then trimmed of spaces. Five
 * characters per 64-bit word. Writes to dst (room for max + 4 bytes);
 * returns the length. */
static int next_string(nx_rng *r, int max, char special, char *dst) {
  int len = 3 + (int)rng_below(r, max - 3);
  const char *t = CHARS[special == '_'];
  for (int i = 0; i < len; i += 5) {
    uint64_t w = rng_next(r);
    dst[i] = t[w & 4095];
    dst[i + 1] = t[(w >> 12) & 4095];
    dst[i + 2] = t[(w >> 24) & 4095];
    dst[i + 3] = t[(w >> 36) & 4095];
    dst[i + 4] = t[(w >> 48) & 4095];
  }
  int a = 0, b = len;
  while (a < b && dst[a] == ' ')
    a++;
  while (b > a && dst[b - 1] == ' ')
    b--;
  if (a)
    memmove(dst, dst + a, (size_t)(b - a));
  return b - a;
}

/* Flink's nextExtra: the length of `extra` for a row of current_size bytes
 * whose type averages avg bytes. */
static int64_t extra_len(nx_rng *r, int current, int avg) {
  if (current > avg)
    return 0;
  int64_t desired = avg - current;
  int64_t delta = (int64_t)floor((double)desired * 0.2 + 0.5);
  return desired - delta + (delta ? rng_below(r, 2 * delta) : 0);
}

/* Copies len bytes in 16-byte steps: both sides must have 15 bytes of
 * room past len. */
static inline void ovcopy(char *dst, const char *src, int64_t len) {
  for (int64_t i = 0; i < len; i += 16)
    memcpy(dst + i, src + i, 16);
}

static int url_string(nx_rng *r, char *dst) {
  static const char pre[] = "https://www.nexmark.com/";
  static const char post[] = "item.htm?query=1";
  int n = (int)sizeof pre - 1;
  memcpy(dst, pre, (size_t)n);
  for (int k = 0; k < 3; k++) {
    n += next_string(r, 5, '_', dst + n);
    dst[n++] = '/';
  }
  memcpy(dst + n, post, sizeof post - 1);
  return n + (int)sizeof post - 1;
}

static int format_u64(char *dst, uint64_t v) {
  char t[24];
  int n = 0;
  do {
    t[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++)
    dst[i] = t[n - 1 - i];
  return n;
}

/* The seed-dependent tables come from one splitmix64 stream of the seed:
 * first the 1 MiB pad (PAD_WORDS words), then the 4 hot urls and the
 * 10,000 channel urls (9 in 10 with "&channel_id=<abs(reverse(i))>",
 * Java's int arithmetic included). Each is built only when a generated
 * column needs it; the stream is jumped over a table not built (a
 * splitmix64 state advances by GOLDEN per word), so the urls are the same
 * whether the pad was built or not. The channel names use no randomness. */
#define PAD_WORDS ((PAD_BYTES + 11) / 12)

/* Writes the pad's bytes [lo, hi) to dst[0, hi - lo) without the pad:
 * byte i is the (i % 12)-th letter drawn from word i / 12 of the seed's
 * stream (word k = mix64(s0 + (k+1) GOLDEN)), as build_pad makes them.
 * For the few `extra`s of a lazy column (no 1 MiB pad built, no page of it
 * faulted in). */
static void pad_letters(const nx_reader *g, char *dst, int64_t lo, int64_t hi) {
  const uint64_t s0 = g->key ^ UINT64_C(0x7061646470616464);
  int64_t i = lo;
  while (i < hi) {
    int64_t k = i / 12, e = (k + 1) * 12 < hi ? (k + 1) * 12 : hi;
    uint64_t w = mix64(s0 + (uint64_t)(k + 1) * GOLDEN);
    for (int64_t j = k * 12; j < i; j++) /* the letters before lo */
      (void)take(&w, 26);
    for (; i < e; i++)
      dst[i - lo] = (char)('a' + take(&w, 26));
  }
}

static void build_pad(nx_reader *g) {
  nx_rng r = {g->key ^ UINT64_C(0x7061646470616464)};
  int i = 0;
  for (; i + 12 <= PAD_BYTES; i += 12) { /* whole words: unrolled */
    uint64_t w = rng_next(&r);
    for (int k = 0; k < 12; k++)
      g->pad[i + k] = (char)('a' + take(&w, 26));
  }
  if (i < PAD_BYTES) {
    uint64_t w = rng_next(&r);
    for (int k = 0; i + k < PAD_BYTES; k++)
      g->pad[i + k] = (char)('a' + take(&w, 26));
  }
  memset(g->pad + PAD_BYTES, 'a', SLACK);
}

static void build_names(nx_reader *g) {
  for (int i = 0; i < CHANNELS; i++) {
    char *name = g->channel_names[i];
    memcpy(name, "channel-", 8);
    g->channel_len[i] = (uint8_t)(8 + format_u64(name + 8, (uint64_t)i));
  }
}

static void build_urls(nx_reader *g) {
  nx_rng r = {g->key ^ UINT64_C(0x7061646470616464)};
  r.s += (uint64_t)PAD_WORDS * GOLDEN; /* past the pad's words */
  int32_t pos = 0;
  for (int i = 0; i < CHANNELS + 4; i++) {
    g->url_off[i] = pos;
    pos += url_string(&r, g->urls + pos);
    if (i < CHANNELS && rng_below(&r, 10) > 0) {
      /* Math.abs(Integer.reverse(i)): reverse(1) is INT_MIN, whose abs
       * is itself */
      uint32_t x = (uint32_t)i, rev = 0;
      for (int b = 0; b < 32; b++)
        rev |= ((x >> b) & 1u) << (31 - b);
      int64_t s = (int32_t)rev;
      if (s < 0 && s != INT32_MIN)
        s = -s;
      memcpy(g->urls + pos, "&channel_id=", 12);
      pos += 12;
      if (s < 0)
        g->urls[pos++] = '-', s = -s;
      pos += format_u64(g->urls + pos, (uint64_t)s);
    }
  }
  g->url_off[CHANNELS + 4] = pos;
  memset(g->urls + pos, 0, SLACK);
}

/* Allocates the tables and computes the price factors (every reader
 * needs them). 0 or LM_ERR_NOMEM. */
static int build_tables(nx_reader *g) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_chars);
  g->pad = lm_aligned_alloc(PAD_BYTES + SLACK);
  g->urls = malloc((size_t)(CHANNELS + 4) * 96 + SLACK);
  g->url_off = malloc(sizeof(int32_t) * (CHANNELS + 5));
  if (!g->pad || !g->urls || !g->url_off)
    return LM_ERR_NOMEM;
  /* price = round(10^(6 u) * 100) for u = k / 2^24: three 8-bit factors */
  for (int i = 0; i < 256; i++) {
    g->price_hi[i] = pow(10.0, 6.0 * i / 256.0);
    g->price_mid[i] = pow(10.0, 6.0 * i / 65536.0);
    g->price_lo[i] = pow(10.0, 6.0 * i / 16777216.0) * 100.0;
  }
  return 0;
}

/* Builds the tables the generated columns need and have not got yet
 * (before layout(): the url column's room is the longest url). */
static void ensure_tables(nx_reader *g) {
  int x = g->table == NX_PERSON    ? P_EXTRA
          : g->table == NX_AUCTION ? A_EXTRA
                                   : B_EXTRA;
  /* a lazy bid extra is made without the pad (gen_bids: direct) */
  bool lazy_x =
      g->table == NX_BID && g->lazy_fn && (g->lazy_mask & (1u << B_EXTRA));
  if (g->gen[x] && !g->have_pad && !lazy_x) {
    build_pad(g);
    g->have_pad = true;
  }
  if (g->table == NX_BID && g->gen[B_URL] && !g->have_urls) {
    build_urls(g);
    for (int i = 0; i < CHANNELS + 4; i++)
      if (g->url_off[i + 1] - g->url_off[i] > g->max_url)
        g->max_url = g->url_off[i + 1] - g->url_off[i];
    g->have_urls = true;
  }
  if (g->table == NX_BID && g->gen[B_CHANNEL] && !g->have_names) {
    build_names(g);
    g->have_names = true;
  }
}

static inline int64_t price_of(const nx_reader *g, uint64_t *w) {
  uint64_t u = *w >> 40;
  *w <<= 24;
  double p = g->price_hi[u >> 16] * g->price_mid[(u >> 8) & 255];
  p *= g->price_lo[u & 255];
  return (int64_t)(p + 0.5);
}

/* ------------------------------------------------------------- time */

/* floor(n * 1e6 / rate) as q, r */
static void time_at(const nx_reader *g, int64_t n, int64_t *q, int64_t *r) {
  unsigned __int128 x = (unsigned __int128)(uint64_t)n * 1000000u;
  *q = (int64_t)(x / (uint64_t)g->rate);
  *r = (int64_t)(x % (uint64_t)g->rate);
}

/* Moves to id + k (k >= 0, small). */
static inline void advance(nx_reader *g, int64_t k) {
  g->id += k;
  g->q += k * g->sq;
  g->r += k * g->sr;
  if (g->r >= g->rate) {
    g->q += g->r / g->rate;
    g->r %= g->rate;
  }
}

/* Event time of the current id, in µs (a whole number of ms). */
static inline int64_t now_us(const nx_reader *g) {
  return (g->base_ms + g->q / 1000) * 1000;
}

/* Event time of the current id + ahead_k (auctions' horizon), in ms:
 * floor((id + k) * 1e6 / rate) = q + ahead_q + (r + ahead_r >= rate). */
static inline int64_t time_ms_ahead(const nx_reader *g) {
  int64_t q = g->q + g->ahead_q + (g->r + g->ahead_r >= g->rate);
  return g->base_ms + q / 1000;
}

/* --------------------------------------------------------- ids (Flink) */

static inline int64_t last_person(const nx_reader *g, int64_t epoch,
                                  int64_t off) {
  if (off >= g->P)
    off = g->P - 1;
  return epoch * g->P + off;
}

static inline int64_t last_auction(const nx_reader *g, int64_t epoch,
                                   int64_t off) {
  if (off < g->P) {
    epoch--;
    off = g->A - 1;
  } else if (off >= g->P + g->A) {
    off = g->A - 1;
  } else {
    off -= g->P;
  }
  return epoch * g->A + off;
}

static inline int64_t next_person(const nx_reader *g, int64_t last,
                                  uint64_t *w) {
  int64_t num = last + 1;
  int64_t active = num < g->active_people ? num : g->active_people;
  return num - active + (int64_t)take(w, (uint64_t)(active + PERSON_ID_LEAD));
}

/* Flink's hot-or-random id choice, from the fraction *w: with
 * probability 1 - 1/ratio `hot`, else lo + a draw in [0, range) (which
 * uses more of *w). Both are computed and one selected by a mask: the
 * choice is a coin flip, whose branch would mispredict half the time. */
static inline int64_t hot_or(uint64_t *w, uint64_t ratio, int64_t hot,
                             int64_t lo, uint64_t range) {
  uint64_t m = -(uint64_t)(take(w, ratio) > 0);
  uint64_t wr = *w;
  int64_t r = lo + (int64_t)take(&wr, range);
  *w = (*w & m) | (wr & ~m);
  return (int64_t)(((uint64_t)hot & m) | ((uint64_t)r & ~m));
}

/* ------------------------------------------------------------ batch memory */

/* Batches are made in slabs: one 64-aligned allocation per batch holding
 * every column (int64 values, or int32 offsets + string bytes), laid out by
 * layout() for rows_cap rows. Each column buffer of the batch is an
 * lm_buffer_wrap view whose release callback drops a reference on the slab;
 * when the last one goes (the batch and every slice of it released,
 * downstream, on any thread), the slab returns to its pool and the next
 * batch is written into the same, already faulted-in and likely cached,
 * memory. The pool outlives the reader while slabs are out. */

#define POOL_KEEP 8 /* free slabs kept for reuse */
#ifndef NX_BATCH_KIB
#define NX_BATCH_KIB 2048
#endif
#define BATCH_BYTES ((int64_t)NX_BATCH_KIB << 10) /* worst case per batch */

typedef struct nx_pool nx_pool;
typedef struct nx_slab {
  struct nx_slab *next; /* in the free list */
  nx_pool *pool;
  int refs; /* the reader while writing + one per buffer view */
  uint8_t *mem;
} nx_slab;

struct nx_pool {
  pthread_mutex_t mu;
  int refs; /* the reader + slabs out of the free list */
  bool closed;
  nx_slab *free;
  int n_free;
  size_t bytes; /* per slab */
};

static void slab_free(nx_slab *s) {
  if (s) {
    lm_aligned_free(s->mem);
    free(s);
  }
}

/* Drops one pool reference (mu held); frees the pool at zero after
 * unlocking. */
static void pool_unref_unlock(nx_pool *p) {
  int left = --p->refs;
  pthread_mutex_unlock(&p->mu);
  if (left == 0) {
    pthread_mutex_destroy(&p->mu);
    free(p);
  }
}

static nx_pool *pool_new(size_t bytes) {
  nx_pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  if (pthread_mutex_init(&p->mu, NULL)) {
    free(p);
    return NULL;
  }
  p->refs = 1;
  p->bytes = bytes;
  return p;
}

/* The reader is done with the pool: free slabs go now, slabs still in
 * batches when they come back. */
static void pool_close(nx_pool *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->closed = true;
  nx_slab *list = p->free;
  p->free = NULL;
  p->n_free = 0;
  pool_unref_unlock(p);
  while (list) {
    nx_slab *next = list->next;
    slab_free(list);
    list = next;
  }
}

/* A slab for the next batch (refs = 1), reused when one is free. NULL on
 * OOM. */
static nx_slab *pool_get(nx_pool *p) {
  pthread_mutex_lock(&p->mu);
  nx_slab *s = p->free;
  if (s) {
    p->free = s->next;
    p->n_free--;
  }
  p->refs++;
  pthread_mutex_unlock(&p->mu);
  if (!s) {
    s = malloc(sizeof *s);
    if (s && !(s->mem = lm_aligned_alloc(p->bytes))) {
      free(s);
      s = NULL;
    }
    if (!s) {
      pthread_mutex_lock(&p->mu);
      pool_unref_unlock(p);
      return NULL;
    }
  }
  s->next = NULL;
  s->pool = p;
  s->refs = 1;
  return s;
}

static void slab_unref(nx_slab *s) {
  if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  nx_pool *p = s->pool;
  pthread_mutex_lock(&p->mu);
  bool keep = !p->closed && p->n_free < POOL_KEEP;
  if (keep) {
    s->next = p->free;
    p->free = s;
    p->n_free++;
  }
  pool_unref_unlock(p);
  if (!keep)
    slab_free(s);
}

static void slab_buffer_release(lm_buffer *b) {
  slab_unref(b->owner);
}

/* A view of size bytes at off in slab s (its padding to 64 zeroed), holding
 * a slab reference. NULL on OOM. */
static lm_buffer *slab_view(nx_slab *s, int64_t off, size_t size) {
  uint8_t *p = s->mem + off;
  size_t pad = (size + 63) & ~(size_t)63;
  if (pad == 0)
    pad = 64;
  memset(p + size, 0, pad - size);
  lm_buffer *b = lm_buffer_wrap(p, size, slab_buffer_release, s);
  if (b)
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
  return b;
}

static inline int64_t round64i(int64_t n) {
  return (n + 63) & ~(int64_t)63;
}

/* Longest string of each field (bytes) and the slab layout: rows per batch
 * = batch.size, or fewer so that a batch's worst case fits BATCH_BYTES;
 * room for the generated columns only, and one zeroed region that every
 * placeholder column is a view of. A new pool (the old one closed: its
 * slabs still out are freed when released). */
static int layout(nx_reader *g) {
  int64_t xp = g->avg_person * 12 / 10 + 1, xa = g->avg_auction * 12 / 10 + 1;
  static const int64_t pmax[P_N] = {-1, 14, 15, 19, 13, 2, -1, 0};
  static const int64_t amax[A_N] = {-1, 19, 99, -1, -1, -1, -1, -1, -1, 0};
  int nf = TABLE_NCOLS[g->table];
  for (int f = 0; f < nf; f++) {
    if (g->table == NX_PERSON)
      g->d_max[f] = f == P_EXTRA ? xp : pmax[f];
    else if (g->table == NX_AUCTION)
      g->d_max[f] = f == A_EXTRA ? xa : amax[f];
    else
      g->d_max[f] = f == B_CHANNEL ? 12
                    : f == B_URL   ? g->max_url
                    : f == B_EXTRA ? g->bmin + g->brange
                                   : -1;
  }
  int64_t row = 1;
  bool zeros = false;
  for (int f = 0; f < nf; f++) {
    if (g->gen[f])
      row += g->d_max[f] < 0 ? 8 : 4 + g->d_max[f];
    zeros |= g->out[f] >= 0 && !g->gen[f];
  }
  int64_t rows = BATCH_BYTES / row;
  g->rows_cap = rows < 1 ? 1 : rows < g->batch ? rows : g->batch;
  int64_t cur = 0, n = g->rows_cap;
  for (int f = 0; f < nf; f++) {
    g->v_off[f] = g->d_off[f] = -1;
    if (!g->gen[f])
      continue;
    g->v_off[f] = cur;
    if (g->d_max[f] < 0) {
      cur += round64i(n * 8) + 64;
    } else {
      cur += round64i((n + 1) * 4) + 64;
      g->d_off[f] = cur;
      cur += round64i(n * g->d_max[f] + SLACK) + 64;
    }
  }
  g->z_off = -1;
  if (zeros) { /* (n + 1) * 8 bytes: int64 values or int32 offsets */
    g->z_off = cur;
    cur += round64i((n + 1) * 8) + 64;
  }
  g->slab_bytes = (size_t)(cur ? cur : 64);
  pool_close(g->pool);
  g->pool = pool_new(g->slab_bytes);
  return g->pool ? 0 : LM_ERR_NOMEM;
}

/* Where one column of the batch being made goes: int64 values at v, or
 * string bytes at d (the next at d + pos) with o[i] = the end offset of row
 * i (the Arrow offsets + 1). All NULL when the column is not emitted. */
typedef struct nx_out {
  int64_t *v;
  char *d;
  int32_t *o;
  int32_t pos;
} nx_out;

static inline void put_i64(nx_out *c, int64_t row, int64_t v) {
  if (c->v)
    c->v[row] = v;
}

/* p must be readable 15 bytes past len (ovcopy). */
static inline void put_str(nx_out *c, int64_t row, const char *p, int64_t len) {
  if (c->d) {
    ovcopy(c->d + c->pos, p, len);
    c->pos += (int32_t)len;
    c->o[row] = c->pos;
  }
}

/* Where a string generated in place goes: the column, or scratch when the
 * column is not emitted (the draws are made all the same). */
static inline char *str_at(nx_out *c, char *scratch) {
  return c->d ? c->d + c->pos : scratch;
}
static inline void str_done(nx_out *c, int64_t row, int64_t len) {
  if (c->d) {
    c->pos += (int32_t)len;
    c->o[row] = c->pos;
  }
}

/* Rows are made in chunks of CHUNK: the first pass computes the values
 * and notes where each row's copied strings come from, prefetching them
 * (extra slices of the 1 MiB pad and bid urls are random reads, mostly L2
 * misses); the second copies them. */
#define CHUNK 64
/* ids a filtered unbounded reader goes past per poll at most */
#define SCAN_CAP (INT64_C(1) << 20)

typedef struct nx_src {
  const char *ch, *url, *x; /* x NULL: extra made from the pad's stream */
  int32_t chl, urll, xl, xo;
} nx_src;

/* --------------------------------------------------------------- people */

/* Notes row's extra (copied later by put_extras) and prefetches it: the
 * slices of the 1 MiB pad are random reads. */
static inline void want_extra(const nx_out *c, const char *p, int64_t len,
                              nx_src *x) {
  x->x = p;
  x->xl = (int32_t)len;
  if (c->d)
    for (int64_t i = 0; i < len + 63; i += 64)
      __builtin_prefetch(p + i, 0, 2);
}

/* Copies the noted extras of rows [first, first + n) into column c. */
static void put_extras(nx_out *c, const nx_src *x, int64_t first, int64_t n) {
  if (!c->d)
    return;
  for (int64_t k = 0; k < n; k++) {
    memcpy(c->d + c->pos, x[k].x, (size_t)x[k].xl);
    c->pos += x[k].xl;
    c->o[first + k] = c->pos;
  }
}

/* Jumps a splitmix64 stream over k words. */
static inline void rng_skip(nx_rng *r, uint64_t k) {
  r->s += k * GOLDEN;
}

/* Skips the words next_string(r, max, ...) would draw: its length draw,
 * then one word per 5 characters. */
static inline void skip_string(nx_rng *r, int max) {
  int len = 3 + (int)rng_below(r, max - 3);
  rng_skip(r, (uint64_t)(len + 4) / 5);
}

/* Makes the person of the current id as row `row` of c; its extra is only
 * noted in *x. Columns not generated are not built: their draws are
 * skipped (rng_skip) so that the later ones are the same; extra's length
 * depends on the trimmed email length, so the email is built when extra
 * is generated. */
static void gen_person(nx_reader *g, int64_t epoch, int64_t off, nx_out *c,
                       int64_t row, nx_src *x) {
  nx_rng r = {g->key + (uint64_t)g->id * UINT64_C(0xd1b54a32d192ed03)};
  const bool need_x = c[P_EXTRA].d != NULL;
  char name[48], email[48], card[48];
  const char *f = FIRST_NAMES[rng_below(&r, 11)];
  const char *l = LAST_NAMES[rng_below(&r, 9)];
  size_t fl = strlen(f), ll = strlen(l);
  int name_len = (int)(fl + 1 + ll);
  if (c[P_NAME].d) {
    memcpy(name, f, fl);
    name[fl] = ' ';
    memcpy(name + fl + 1, l, ll);
  }
  int el = 0;
  if (c[P_EMAIL].d || need_x) {
    el = next_string(&r, 7, ' ', email);
    email[el++] = '@';
    el += next_string(&r, 5, ' ', email + el);
    memcpy(email + el, ".com", 4);
    el += 4;
  } else {
    skip_string(&r, 7);
    skip_string(&r, 5);
  }
  if (c[P_CARD].d) {
    for (int k = 0; k < 4; k++) {
      int v = (int)rng_below(&r, 10000);
      char *d = card + k * 5;
      d[0] = (char)('0' + v / 1000);
      d[1] = (char)('0' + v / 100 % 10);
      d[2] = (char)('0' + v / 10 % 10);
      d[3] = (char)('0' + v % 10);
      d[4] = ' ';
    }
  } else {
    rng_skip(&r, 4);
  }
  int ci = (int)rng_below(&r, 10);
  int si = (int)rng_below(&r, 6);
  int cl = CITY_LEN[ci], sl = 2;
  if (need_x) {
    int current = 8 + name_len + el + 19 + cl + sl;
    int64_t xl = extra_len(&r, current, g->avg_person);
    int64_t xo = rng_below(&r, PAD_BYTES - MAX_AVG_SIZE * 2);
    want_extra(&c[P_EXTRA], g->pad + xo, xl, x);
  }
  put_i64(&c[P_ID], row, last_person(g, epoch, off) + FIRST_PERSON_ID);
  put_str(&c[P_NAME], row, name, name_len);
  put_str(&c[P_EMAIL], row, email, el);
  put_str(&c[P_CARD], row, card, 19);
  put_str(&c[P_CITY], row, CITIES16[ci], cl);
  put_str(&c[P_STATE], row, STATES16[si], sl);
  put_i64(&c[P_TIME], row, now_us(g));
}

/* ------------------------------------------------------------- auctions */

/* Makes the auction of the current id as row `row` of c; its extra is only
 * noted in *x. Draws of columns not generated are skipped as in
 * gen_person; itemName and description are built when extra is (its
 * length depends on theirs). */
static void gen_auction(nx_reader *g, int64_t epoch, int64_t off, nx_out *c,
                        int64_t row, nx_src *x) {
  nx_rng r = {g->key + (uint64_t)g->id * UINT64_C(0xd1b54a32d192ed03)};
  const bool need_x = c[A_EXTRA].d != NULL;
  int64_t lp = last_person(g, epoch, off);
  uint64_t w = rng_next(&r);
  int64_t seller;
  if (take(&w, (uint64_t)g->hot_sellers) > 0)
    seller = (lp / HOT_SELLER_RATIO) * HOT_SELLER_RATIO;
  else
    seller = next_person(g, lp, &w);
  int64_t category = FIRST_CATEGORY_ID + (int64_t)take(&w, NUM_CATEGORIES);
  int64_t initial = 0, reserve = 0;
  if (c[A_INITIAL].v || c[A_RESERVE].v) {
    uint64_t pw = rng_next(&r);
    initial = price_of(g, &pw);
    reserve = initial + price_of(g, &pw);
  } else {
    rng_skip(&r, 1);
  }
  /* expires: ts + 1 + rand(2 * horizon), horizon = the time the next
   * in_flight auctions take */
  int64_t ts_ms = g->base_ms + g->q / 1000;
  int64_t expires = 0;
  if (c[A_EXPIRES].v) {
    int64_t horizon = time_ms_ahead(g) - ts_ms;
    int64_t span = horizon * 2 > 1 ? horizon * 2 : 1;
    expires = ts_ms + 1 + rng_below(&r, span);
  } else {
    rng_skip(&r, 1);
  }
  /* itemName and description are generated in place */
  if (c[A_ITEM].d || c[A_DESC].d || need_x) {
    char scratch[128];
    int il = next_string(&r, 20, ' ', str_at(&c[A_ITEM], scratch));
    str_done(&c[A_ITEM], row, il);
    int dl = next_string(&r, 100, ' ', str_at(&c[A_DESC], scratch));
    str_done(&c[A_DESC], row, dl);
    if (need_x) {
      int current = 8 + il + dl + 8 + 8 + 8 + 8 + 8;
      int64_t xl = extra_len(&r, current, g->avg_auction);
      int64_t xo = rng_below(&r, PAD_BYTES - MAX_AVG_SIZE * 2);
      want_extra(&c[A_EXTRA], g->pad + xo, xl, x);
    }
  }
  put_i64(&c[A_ID], row, last_auction(g, epoch, off) + FIRST_AUCTION_ID);
  put_i64(&c[A_INITIAL], row, initial);
  put_i64(&c[A_RESERVE], row, reserve);
  put_i64(&c[A_TIME], row, ts_ms * 1000);
  put_i64(&c[A_EXPIRES], row, expires * 1000);
  put_i64(&c[A_SELLER], row, seller + FIRST_PERSON_ID);
  put_i64(&c[A_CATEGORY], row, category);
}

/* ----------------------------------------------------------------- bids */

/* gen_bids without string columns (channel, url, extra not generated):
 * per epoch, the run of its bids in a tight loop; a word is drawn only
 * for the columns generated (w1: auction, then bidder; w2: price). */
static int64_t gen_bids_ints(nx_reader *g, nx_out *c, int64_t n) {
  int64_t *auc = c[B_AUCTION].v, *bidder = c[B_BIDDER].v;
  int64_t *price = c[B_PRICE].v, *tcol = c[B_TIME].v;
  const int64_t P = g->P, A = g->A, T = g->T;
  int64_t id = g->id, q = g->q, r = g->r;
  const int64_t sq = g->sq, sr = g->sr, rate = g->rate, end = g->end;
  const int64_t base_ms = g->base_ms, boff = g->bidder_offset;
  const uint64_t key = g->key;
  int64_t epoch = id / T, off = id % T;
  int64_t rows = 0;
  const uint64_t hot_a = (uint64_t)g->hot_auctions;
  const uint64_t hot_b = (uint64_t)g->hot_bidders;
  const bool w1_need = auc || bidder;
  while (rows < n && id < end) {
    if (off < P + A) { /* to the epoch's first bid */
      int64_t k = P + A - off;
      if (k > end - id)
        k = end - id;
      id += k;
      off += k;
      q += k * sq;
      r += k * sr;
      q += r / rate;
      r %= rate;
      continue;
    }
    int64_t la = epoch * A + A - 1, lp = epoch * P + P - 1;
    int64_t hot_auc = (la / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO;
    int64_t a_lo = la - g->in_flight > 0 ? la - g->in_flight : 0;
    uint64_t a_range = (uint64_t)(la - a_lo + 1 + AUCTION_ID_LEAD);
    int64_t hot_bid = (lp / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1;
    int64_t num = lp + 1;
    int64_t active = num < g->active_people ? num : g->active_people;
    int64_t p_lo = num - active;
    uint64_t p_range = (uint64_t)(active + PERSON_ID_LEAD);
    int64_t m = T - off; /* the epoch's bids left */
    if (m > n - rows)
      m = n - rows;
    if (m > end - id)
      m = end - id;
    for (int64_t j = 0; j < m; j++) {
      uint64_t base = key + (uint64_t)id * UINT64_C(0xd1b54a32d192ed03);
      if (w1_need) {
        uint64_t w1 = mix64(base + GOLDEN);
        int64_t a = hot_or(&w1, hot_a, hot_auc, a_lo, a_range);
        if (auc)
          auc[rows] = a + FIRST_AUCTION_ID;
        if (bidder)
          bidder[rows] = hot_or(&w1, hot_b, hot_bid, p_lo, p_range) + boff;
      }
      if (price) {
        uint64_t w2 = mix64(base + 2 * GOLDEN);
        price[rows] = price_of(g, &w2);
      }
      if (tcol)
        tcol[rows] = (base_ms + q / 1000) * 1000;
      rows++;
      id++;
      q += sq;
      r += sr;
      if (r >= rate) {
        r -= rate;
        q++;
      }
    }
    off += m;
    if (off == T) {
      off = 0;
      epoch++;
    }
  }
  g->id = id;
  g->q = q;
  g->r = r;
  return rows;
}

/* (v % p->mod) for p->mod > 0: Lemire's fastmod when v and mod fit 32
 * bits, else the % instruction (C's truncating remainder, as SQL's). */
static inline int64_t pred_mod(const nx_pred *p, int64_t v) {
  if (p->m32 && (uint64_t)v < (UINT64_C(1) << 32)) {
    uint64_t low = p->m32 * (uint64_t)v;
    return (int64_t)(((unsigned __int128)low * (uint64_t)p->mod) >> 64);
  }
  return v % p->mod;
}

static inline bool pred_ok(const nx_pred *p, int64_t v) {
  if (p->mod)
    v = pred_mod(p, v);
  return ((uint64_t)v - p->lo <= p->width) != p->neg;
}

/* The per-epoch constants of the bids' ids (Flink's lastBase0AuctionId /
 * lastBase0PersonId windows): hot ids and the ranges of the random ones. */
typedef struct nx_epoch {
  int64_t hot_auc, a_lo, hot_bid, p_lo;
  uint64_t a_range, p_range;
} nx_epoch;

/* The epoch's constants (nx_epoch) of the bids of `epoch`. */
static inline nx_epoch epoch_of(const nx_reader *g, int64_t epoch) {
  nx_epoch e;
  int64_t la = epoch * g->A + g->A - 1, lp = epoch * g->P + g->P - 1;
  e.hot_auc = (la / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO;
  e.a_lo = la - g->in_flight > 0 ? la - g->in_flight : 0;
  e.a_range = (uint64_t)(la - e.a_lo + 1 + AUCTION_ID_LEAD);
  e.hot_bid = (lp / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1;
  int64_t num = lp + 1;
  int64_t active = num < g->active_people ? num : g->active_people;
  e.p_lo = num - active;
  e.p_range = (uint64_t)(active + PERSON_ID_LEAD);
  return e;
}

/* Whether the bid whose words come from `base` (event time t_us, read only
 * when a predicate reads dateTime) passes every pushed-down predicate.
 * Only the fields the predicates read are made, by the same draws as
 * gen_bids (auction, then bidder, from word 1; price from word 2), so they
 * are the values the row would hold; the hot-or-not choices are made
 * without branches (they are coin flips: a branch would mispredict). */
static inline bool bid_passes(const nx_reader *g, uint64_t base,
                              const nx_epoch *e, int64_t t_us) {
  int64_t v[B_N];
  const nx_pred *pr = g->pred;
  const uint32_t need = g->pred_need;
  if (need & ((1u << B_AUCTION) | (1u << B_BIDDER))) {
    uint64_t w1 = mix64(base + GOLDEN);
    bool hot = take(&w1, (uint64_t)g->hot_auctions) > 0;
    uint64_t w1r = w1;
    int64_t ar = e->a_lo + (int64_t)take(&w1r, e->a_range);
    v[B_AUCTION] = (hot ? e->hot_auc : ar) + FIRST_AUCTION_ID;
    if (need & (1u << B_BIDDER)) {
      w1 = hot ? w1 : w1r;
      bool hb = take(&w1, (uint64_t)g->hot_bidders) > 0;
      int64_t br = e->p_lo + (int64_t)take(&w1, e->p_range);
      v[B_BIDDER] = (hb ? e->hot_bid : br) + g->bidder_offset;
    }
  }
  if (need & (1u << B_PRICE)) {
    uint64_t w2 = mix64(base + 2 * GOLDEN);
    v[B_PRICE] = price_of(g, &w2);
  }
  v[B_TIME] = t_us;
  for (int k = 0; k < g->n_pred; k++)
    if (!pred_ok(&pr[k], v[pr[k].f]))
      return false;
  return true;
}

/* A reader's position while a batch is made (gen_bids keeps it in
 * locals): the id, its time as q + r / rate (time_at), its epoch and
 * offset in the epoch. */
typedef struct nx_pos {
  int64_t id, q, r, epoch, off;
} nx_pos;

/* Moves *p from p->id to the first bid before end that passes every
 * pushed-down predicate (returns true), or to end (false). The failing
 * bids are gone past in a tight loop over each epoch's run of bids,
 * making only the fields the predicates read; the time is kept per id
 * only when a predicate reads dateTime, else moved once at the stop.
 * *last_bid becomes the last bid id looked at (unchanged when none). */
static bool scan_bids(const nx_reader *g, nx_pos *p, int64_t end,
                      int64_t *last_bid) {
  const int64_t P = g->P, A = g->A, T = g->T;
  const int64_t sq = g->sq, sr = g->sr, rate = g->rate;
  const bool need_t = (g->pred_need & (1u << B_TIME)) != 0;
  const uint64_t key = g->key;
  int64_t id = p->id, q = p->q, r = p->r, epoch = p->epoch, off = p->off;
  const int64_t id0 = id;
  bool found = false;
  const bool auc1 = g->n_pred == 1 && g->pred_need == 1u << B_AUCTION;
  const nx_pred p0 = g->pred[0];
  const uint64_t hot_a = (uint64_t)g->hot_auctions;
  while (id < end && !found) {
    if (off < P + A) { /* to the epoch's first bid */
      int64_t k = P + A - off;
      if (k > end - id)
        k = end - id;
      id += k;
      off += k;
      if (need_t) {
        q += k * sq;
        r += k * sr;
        q += r / rate;
        r %= rate;
      }
      continue;
    }
    nx_epoch e = epoch_of(g, epoch);
    int64_t m = T - off; /* the epoch's bids left */
    if (m > end - id)
      m = end - id;
    int64_t j = 0;
    if (auc1) { /* one predicate, on auction (q2): all in registers */
      uint64_t base = key + (uint64_t)id * UINT64_C(0xd1b54a32d192ed03);
      /* hot or not is a coin flip: both are computed and the verdict
       * selected by a mask (a branch would mispredict half the time) */
      const uint64_t hot_ok = pred_ok(&p0, e.hot_auc + FIRST_AUCTION_ID);
      for (; j < m; j++, base += UINT64_C(0xd1b54a32d192ed03)) {
        uint64_t w1 = mix64(base + GOLDEN);
        uint64_t hot = -(uint64_t)(take(&w1, hot_a) > 0);
        int64_t ar = e.a_lo + (int64_t)take(&w1, e.a_range);
        uint64_t ok = (uint64_t)pred_ok(&p0, ar + FIRST_AUCTION_ID);
        if ((hot & hot_ok) | (~hot & ok)) {
          found = true;
          break;
        }
      }
      m = found ? j : m;
    }
    for (; j < m; j++) {
      uint64_t base = key + (uint64_t)(id + j) * UINT64_C(0xd1b54a32d192ed03);
      int64_t t_us = need_t ? (g->base_ms + q / 1000) * 1000 : 0;
      if (bid_passes(g, base, &e, t_us)) {
        found = true;
        break;
      }
      if (need_t) {
        q += sq;
        r += sr;
        if (r >= rate) {
          r -= rate;
          q++;
        }
      }
    }
    *last_bid = found ? id + j : id + m - 1;
    id += j;
    off += j;
    if (off == T) {
      off = 0;
      epoch++;
    }
  }
  if (!need_t && id > id0) {
    int64_t k = id - id0;
    if (k < (INT64_C(1) << 20)) {
      q += k * sq;
      r += k * sr;
      q += r / rate;
      r %= rate;
    } else {
      time_at(g, id, &q, &r);
    }
  }
  *p = (nx_pos){id, q, r, epoch, off};
  return found;
}

/* Writes up to n bids from the current id on into c; returns the rows
 * made. The hot loop: two splitmix words per bid, values written in
 * place; the channel/url draws (the end of word 1) and extra's (the end
 * of word 2) are only made when those columns are generated. */
static int64_t gen_bids(nx_reader *g, nx_out *c, int64_t n) {
  if (!c[B_CHANNEL].d && !c[B_URL].d && !c[B_EXTRA].d && !g->n_pred)
    return gen_bids_ints(g, c, n);
  int64_t *auc = c[B_AUCTION].v, *bidder = c[B_BIDDER].v;
  int64_t *price = c[B_PRICE].v, *tcol = c[B_TIME].v;
  nx_out s[3] = {c[B_CHANNEL], c[B_URL], c[B_EXTRA]};
  const int64_t P = g->P, A = g->A, T = g->T;
  /* the position in locals (the column stores could alias g's fields) */
  int64_t id = g->id, q = g->q, r = g->r;
  const int64_t sq = g->sq, sr = g->sr, rate = g->rate, end = g->end;
  const int64_t base_ms = g->base_ms;
  int64_t epoch = id / T, off = id % T;
  int64_t rows = 0;
  const uint64_t hot_a = (uint64_t)g->hot_auctions;
  const uint64_t hot_b = (uint64_t)g->hot_bidders;
  const uint64_t brange = (uint64_t)g->brange;
  const int32_t *uo = g->url_off;
  nx_src src[CHUNK];
  const bool filtered = g->n_pred > 0;
  int64_t last_bid = -1;
  /* late materialization: the verdict for the times [t_lo, t_hi], asked
   * afresh at every poll (the consumer's bounds have grown since) */
  const uint32_t lazy = g->lazy_fn ? g->lazy_mask : 0;
  /* a lazy extra is made for few rows: straight from the pad's stream,
   * the 1 MiB pad not built (pad_letters) */
  const bool direct = lazy & (1u << B_EXTRA);
  if (s[2].d && !direct && !g->have_pad) { /* laziness turned off */
    build_pad(g);
    g->have_pad = true;
  }
  lm_gen_verdict v = {INT64_MAX, INT64_MIN, INT64_MIN, INT64_MAX};
  /* per epoch: the hot ids and the ranges of the random ones */
  int64_t ep = -1, hot_auc = 0, a_lo = 0, hot_bid = 0, p_lo = 0;
  uint64_t a_range = 1, p_range = 1;
  while (rows < n && id < end) {
    int64_t first = rows, lim = n - rows < CHUNK ? n : rows + CHUNK;
    while (rows < lim && id < end) {
      if (filtered) { /* lazy: to the next bid passing the predicates */
        nx_pos ps = {id, q, r, epoch, off};
        bool found = scan_bids(g, &ps, end, &last_bid);
        id = ps.id, q = ps.q, r = ps.r, epoch = ps.epoch, off = ps.off;
        if (!found)
          break;
      }
      bool skip = off < P + A; /* a person or an auction */
      if (!skip && epoch != ep) {
        ep = epoch;
        int64_t la = epoch * A + A - 1, lp = epoch * P + P - 1;
        hot_auc = (la / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO;
        a_lo = la - g->in_flight > 0 ? la - g->in_flight : 0;
        a_range = (uint64_t)(la - a_lo + 1 + AUCTION_ID_LEAD);
        hot_bid = (lp / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1;
        int64_t num = lp + 1;
        int64_t active = num < g->active_people ? num : g->active_people;
        p_lo = num - active;
        p_range = (uint64_t)(active + PERSON_ID_LEAD);
      }
      if (skip) {
        id++;
        q += sq;
        r += sr;
        if (r >= rate) {
          r -= rate;
          q++;
        }
        if (++off == T) {
          off = 0;
          epoch++;
        }
        continue;
      }
      uint64_t base = g->key + (uint64_t)id * UINT64_C(0xd1b54a32d192ed03);
      uint64_t w1 = mix64(base + GOLDEN), w2 = mix64(base + 2 * GOLDEN);
      int64_t a = hot_or(&w1, hot_a, hot_auc, a_lo, a_range);
      int64_t b = hot_or(&w1, hot_b, hot_bid, p_lo, p_range);
      int64_t pr = price_of(g, &w2);
      int64_t t_us = (base_ms + q / 1000) * 1000;
      nx_src *x = &src[rows - first];
      uint32_t cold = 0; /* the lazy fields this row goes without */
      if (lazy) {
        if (t_us < v.t_lo || t_us > v.t_hi) {
          g->lazy_fn(g->lazy_ctx, t_us, &v);
          if (v.k_lo != INT64_MIN || v.k_hi != INT64_MAX) {
            g->cut_ok = true;
          } else if (g->cut_ok) {
            /* every row kept: end the batch a chunk from here, so that
             * the rows after it meet a running value */
            g->cut_ok = false;
            if (n > rows + CHUNK)
              n = rows + CHUNK;
            if (lim > n)
              lim = n;
          }
        }
        int64_t kv = g->lazy_key == B_PRICE     ? pr
                     : g->lazy_key == B_AUCTION ? a + FIRST_AUCTION_ID
                                                : b + g->bidder_offset;
        if (kv < v.k_lo || kv > v.k_hi)
          cold = lazy;
      }
      if (s[0].d || s[1].d) {
        if (take(&w1, 2) > 0) {
          uint64_t i = take(&w1, 4);
          x->ch = HOT_CHANNELS[i];
          x->chl = HOT_LEN[i];
          if (s[1].d) {
            x->url = g->urls + uo[CHANNELS + i];
            x->urll = uo[CHANNELS + i + 1] - uo[CHANNELS + i];
          }
        } else {
          uint64_t i = take(&w1, CHANNELS);
          x->ch = g->channel_names[i];
          x->chl = g->channel_len[i];
          if (s[1].d) {
            x->url = g->urls + uo[i];
            x->urll = uo[i + 1] - uo[i];
          }
        }
        if (cold & (1u << B_CHANNEL))
          x->chl = 0; /* x->ch stays readable: 16 bytes are copied */
        if (cold & (1u << B_URL))
          x->urll = 0;
        if (s[1].d && x->urll) {
          __builtin_prefetch(x->url);
          __builtin_prefetch(x->url + x->urll + 15);
        }
        if (s[0].d && x->chl)
          __builtin_prefetch(x->ch);
      }
      if (s[2].d && (cold & (1u << B_EXTRA))) {
        x->xl = 0;
        x->x = g->pad;
      } else if (s[2].d) {
        x->xl = (int32_t)(g->bmin + (brange ? (int64_t)take(&w2, brange) : 0));
        int64_t xo = (int64_t)take(&w2, PAD_BYTES - MAX_AVG_SIZE * 2);
        if (direct) { /* few rows: their letters, not the pad's pages */
          x->x = NULL;
          x->xo = (int32_t)xo;
        } else {
          x->x = g->pad + xo;
          __builtin_prefetch(x->x);
          __builtin_prefetch(x->x + x->xl + 15);
        }
      }
      if (auc)
        auc[rows] = a + FIRST_AUCTION_ID;
      if (bidder)
        bidder[rows] = b + g->bidder_offset;
      if (price)
        price[rows] = pr;
      if (tcol)
        tcol[rows] = t_us;
      rows++;
      id++;
      q += sq;
      r += sr;
      if (r >= rate) {
        r -= rate;
        q++;
      }
      if (++off == T) {
        off = 0;
        epoch++;
      }
    }
    int64_t m = rows - first;
    if (s[0].d)
      for (int64_t k = 0; k < m; k++) {
        memcpy(s[0].d + s[0].pos, src[k].ch, 16);
        s[0].pos += src[k].chl;
        s[0].o[first + k] = s[0].pos;
      }
    if (s[1].d)
      for (int64_t k = 0; k < m; k++) {
        ovcopy(s[1].d + s[1].pos, src[k].url, src[k].urll);
        s[1].pos += src[k].urll;
        s[1].o[first + k] = s[1].pos;
      }
    if (s[2].d)
      for (int64_t k = 0; k < m; k++) {
        if (src[k].x)
          ovcopy(s[2].d + s[2].pos, src[k].x, src[k].xl);
        else
          pad_letters(g, s[2].d + s[2].pos, src[k].xo, src[k].xo + src[k].xl);
        s[2].pos += src[k].xl;
        s[2].o[first + k] = s[2].pos;
      }
  }
  g->id = id;
  g->q = q;
  g->r = r;
  if (last_bid >= 0) { /* the time of the last bid gone past */
    int64_t lq, lr;
    time_at(g, last_bid, &lq, &lr);
    g->through_us = (base_ms + lq / 1000) * 1000;
  }
  c[B_CHANNEL].pos = s[0].pos;
  c[B_URL].pos = s[1].pos;
  c[B_EXTRA].pos = s[2].pos;
  return rows;
}

/* --------------------------------------------------------------- reader */

static int64_t due_end(nx_reader *g) {
  if (!g->rate_limited)
    return g->end;
  if (!g->started_us)
    g->started_us = lm_now_us();
  int64_t el = lm_now_us() - g->started_us;
  int64_t due = g->first + (int64_t)((__int128)el * g->rate / 1000000) + 1;
  return due < g->end ? due : g->end;
}

/* The batch of `rows` rows written in slab s (whose writer reference is
 * dropped here, on success or not). NULL on OOM. */
static lm_batch *slab_batch(nx_reader *g, nx_slab *s, const nx_out *c,
                            int64_t rows) {
  lm_array *cols[A_N] = {0};
  bool ok = true;
  for (int f = 0; ok && f < TABLE_NCOLS[g->table]; f++) {
    int i = g->out[f];
    if (i < 0)
      continue;
    lm_buffer *vb, *db = NULL;
    bool str = TABLE_COLS[g->table][f].type == LM_TYPE_UTF8;
    if (!g->gen[f] && !str) { /* a placeholder: zeros */
      vb = slab_view(s, g->z_off, (size_t)rows * 8);
    } else if (!g->gen[f]) { /* a placeholder: empty strings */
      vb = slab_view(s, g->z_off, (size_t)(rows + 1) * 4);
      db = slab_view(s, g->z_off, 0);
      if (!db) {
        lm_buffer_release(vb);
        vb = NULL;
      }
    } else if (g->d_off[f] < 0) {
      vb = slab_view(s, g->v_off[f], (size_t)rows * 8);
    } else {
      vb = slab_view(s, g->v_off[f], (size_t)(rows + 1) * 4);
      db = slab_view(s, g->d_off[f], (size_t)c[f].pos);
      if (!db) {
        lm_buffer_release(vb);
        vb = NULL;
      }
    }
    if (vb)
      cols[i] = lm_array_new(g->schema->fields[i].type, rows, 0, 0, NULL, vb,
                             db, 0, NULL, NULL);
    ok = cols[i] != NULL;
  }
  lm_batch *b = NULL;
  if (ok)
    b = lm_batch_new(lm_schema_retain(g->schema), rows, cols);
  else
    for (int i = 0; i < g->schema->n_fields; i++)
      lm_array_release(cols[i]);
  slab_unref(s);
  return b;
}

static int nx_poll(lm_source_reader *base, lm_batch **out, bool *eof,
                   lm_error *err) {
  nx_reader *g = (nx_reader *)base;
  *out = NULL;
  *eof = false;
  if (g->id >= g->end) {
    *eof = true;
    return 0;
  }
  int64_t stop = due_end(g);
  if (g->id >= stop)
    return 0;
  if (g->dirty) { /* the columns to generate changed (or first poll) */
    ensure_tables(g);
    if (layout(g))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    g->dirty = false;
  }
  nx_slab *slab = g->pool ? pool_get(g->pool) : NULL;
  if (!slab)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  nx_out c[A_N];
  memset(c, 0, sizeof c);
  if (g->z_off >= 0)
    memset(slab->mem + g->z_off, 0, (size_t)(g->rows_cap + 1) * 8);
  for (int f = 0; f < TABLE_NCOLS[g->table]; f++) {
    if (!g->gen[f])
      continue;
    if (g->d_off[f] < 0) {
      c[f].v = (int64_t *)(void *)(slab->mem + g->v_off[f]);
    } else {
      int32_t *o = (int32_t *)(void *)(slab->mem + g->v_off[f]);
      o[0] = 0;
      c[f].o = o + 1;
      c[f].d = (char *)slab->mem + g->d_off[f];
    }
  }
  int64_t saved_end = g->end;
  /* a filtered unbounded reader goes past at most SCAN_CAP ids per poll
   * (a predicate that no bid passes must not hold the poll forever) */
  if (g->n_pred && g->base.unbounded && stop - g->id > SCAN_CAP)
    stop = g->id + SCAN_CAP;
  g->end = stop;
  int64_t rows = 0;
  if (g->table == NX_BID) {
    rows = gen_bids(g, c, g->rows_cap);
  } else {
    const int64_t T = g->T, P = g->P, A = g->A;
    int64_t epoch = g->id / T, off = g->id % T;
    int64_t lo = g->table == NX_PERSON ? 0 : P;
    int64_t hi = g->table == NX_PERSON ? P : P + A;
    nx_src pend[CHUNK];
    int np = 0, ex = g->table == NX_PERSON ? P_EXTRA : A_EXTRA;
    while (rows < g->rows_cap) {
      /* jump to the next id of this table */
      int64_t k = off < lo ? lo - off : off >= hi ? T - off + lo : 0;
      if (k > g->end - g->id) {
        advance(g, g->end - g->id);
        break;
      }
      advance(g, k);
      off += k;
      if (off >= T) {
        off -= T;
        epoch++;
      }
      if (g->id >= g->end)
        break;
      if (g->table == NX_PERSON)
        gen_person(g, epoch, off, c, rows, &pend[np]);
      else
        gen_auction(g, epoch, off, c, rows, &pend[np]);
      rows++;
      if (++np == CHUNK) {
        put_extras(&c[ex], pend, rows - np, np);
        np = 0;
      }
      advance(g, 1);
      if (++off == T) {
        off = 0;
        epoch++;
      }
    }
    put_extras(&c[ex], pend, rows - np, np);
  }
  g->end = saved_end;
  if (rows == 0) {
    /* nothing of this type in the range so far */
    slab_unref(slab);
    if (g->id >= g->end)
      *eof = true;
    return 0;
  }
  *out = slab_batch(g, slab, c, rows);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_nexmark_reader_filter(lm_source_reader *r, const lm_gen_pred *p, int n,
                             bool *applied, lm_error *err) {
  (void)err;
  nx_reader *g = (nx_reader *)r;
  nx_pred np[LM_GEN_MAX_PREDS];
  memset(np, 0, sizeof np); /* padding too: compared with memcmp */
  uint32_t need = 0;
  bool ok = g->table == NX_BID && n >= 0 && n <= LM_GEN_MAX_PREDS;
  for (int k = 0; ok && k < n; k++) {
    int f = -1;
    for (int x = 0; x < B_N; x++)
      if (g->out[x] >= 0 && g->out[x] == p[k].col)
        f = x;
    ok = (f == B_AUCTION || f == B_BIDDER || f == B_PRICE || f == B_TIME) &&
         p[k].mod >= 0 && p[k].op >= LM_GEN_EQ && p[k].op <= LM_GEN_GE;
    if (ok) {
      /* as a range [lo, hi], negated for <> and for an empty range */
      int64_t v = p[k].value, lo = INT64_MIN, hi = INT64_MAX;
      bool neg = false;
      switch (p[k].op) {
      case LM_GEN_NE:
        neg = true;
        /* fall through */
      case LM_GEN_EQ:
        lo = hi = v;
        break;
      case LM_GEN_LT:
        neg = v == INT64_MIN;
        hi = neg ? INT64_MAX : v - 1;
        break;
      case LM_GEN_LE:
        hi = v;
        break;
      case LM_GEN_GT:
        neg = v == INT64_MAX;
        lo = neg ? INT64_MIN : v + 1;
        break;
      default:
        lo = v;
      }
      np[k].f = f;
      np[k].neg = neg;
      np[k].mod = p[k].mod;
      np[k].lo = (uint64_t)lo;
      np[k].width = (uint64_t)hi - (uint64_t)lo;
      if (p[k].mod > 1 && p[k].mod < (INT64_C(1) << 32))
        np[k].m32 = UINT64_MAX / (uint64_t)p[k].mod + 1;
      need |= 1u << f;
    }
  }
  if (!ok)
    n = 0;
  *applied = ok && n > 0;
  if (n == g->n_pred && !memcmp(np, g->pred, sizeof(nx_pred) * (size_t)n))
    return 0;
  memcpy(g->pred, np, sizeof(nx_pred) * (size_t)n);
  g->n_pred = n;
  g->pred_need = need;
  return 0;
}

int lm_nexmark_reader_lazy(lm_source_reader *r, const bool *lazy, int n,
                           int key_col, int time_col, lm_gen_verdict_fn fn,
                           void *ctx, bool *applied) {
  nx_reader *g = (nx_reader *)r;
  int key = -1, time = -1;
  uint32_t mask = 0;
  bool ok = g->table == NX_BID && fn && lazy && n > 0;
  for (int f = 0; ok && f < B_N; f++) {
    int i = g->out[f];
    if (i < 0)
      continue;
    if (i == key_col)
      key = f;
    if (i == time_col)
      time = f;
    /* the strings only: an integer is cheaper made than skipped */
    if (i < n && lazy[i] && (f == B_CHANNEL || f == B_URL || f == B_EXTRA))
      mask |= 1u << f;
  }
  ok = ok && mask && time == B_TIME &&
       (key == B_AUCTION || key == B_BIDDER || key == B_PRICE);
  *applied = ok;
  g->lazy_mask = ok ? mask : 0;
  g->lazy_key = ok ? key : -1;
  g->lazy_fn = ok ? fn : NULL;
  g->lazy_ctx = ok ? ctx : NULL;
  g->cut_ok = true;
  return 0;
}

int64_t lm_nexmark_reader_time_through(lm_source_reader *r) {
  const nx_reader *g = (const nx_reader *)r;
  return g->n_pred ? g->through_us : INT64_MIN;
}

static int64_t nx_wait(lm_source_reader *base) {
  nx_reader *g = (nx_reader *)base;
  if (!g->rate_limited || !g->started_us)
    return 0;
  int64_t due_at = (int64_t)((__int128)(g->id - g->first) * 1000000 / g->rate);
  int64_t now = lm_now_us() - g->started_us;
  return due_at > now ? due_at - now : 0;
}

static void nx_free(lm_source_reader *base) {
  nx_reader *g = (nx_reader *)base;
  if (!g)
    return;
  pool_close(g->pool);
  lm_schema_release(g->schema);
  lm_aligned_free(g->pad);
  free(g->urls);
  free(g->url_off);
  free(g);
}

int lm_nexmark_reader_new(lm_schema *schema, const lm_kv *opts, int n_opts,
                          lm_source_reader **out, lm_error *err) {
  *out = NULL;
  nx_reader *g = calloc(1, sizeof *g);
  if (!g)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  g->base.poll = nx_poll;
  g->base.free = nx_free;
  g->base.wait_us = nx_wait;
  int rc = parse_options(g, opts, n_opts, err);
  if (!rc && !schema)
    rc = lm_nexmark_source_schema(opts, n_opts, NULL, &g->schema, err);
  else if (!rc)
    g->schema = lm_schema_retain(schema);
  if (!rc) {
    const nx_col *cols = TABLE_COLS[g->table];
    for (int f = 0; f < TABLE_NCOLS[g->table]; f++) {
      g->out[f] = lm_schema_find(g->schema, cols[f].name);
      if (g->out[f] >= 0 && !lm_type_eq(g->schema->fields[g->out[f]].type,
                                        lm_type_make(cols[f].type)))
        rc = lm_err(err, LM_ERR_BIND,
                    "column '%s' of NEXMARK table %s must be %s", cols[f].name,
                    TABLE_NAMES[g->table],
                    lm_type_name(lm_type_make(cols[f].type)));
    }
    for (int i = 0; !rc && i < g->schema->n_fields; i++) {
      bool found = false;
      for (int f = 0; f < TABLE_NCOLS[g->table]; f++)
        found |= g->out[f] == i;
      if (!found)
        rc = lm_err(err, LM_ERR_BIND,
                    "column '%s' is not a column of NEXMARK table %s",
                    g->schema->fields[i].name, TABLE_NAMES[g->table]);
    }
  }
  if (!rc && build_tables(g))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc) {
    nx_free(&g->base);
    return rc;
  }
  /* bid extra: current size 8 + 8 + 8 + 8, as in Flink */
  if (32 <= g->avg_bid) {
    int64_t desired = g->avg_bid - 32;
    int64_t delta = (int64_t)floor((double)desired * 0.2 + 0.5);
    g->bmin = desired - delta;
    g->brange = 2 * delta;
  }
  for (int f = 0; f < TABLE_NCOLS[g->table]; f++)
    g->gen[f] = g->out[f] >= 0;
  g->dirty = true; /* tables and layout at the first poll, once projected */
  g->id = g->first;
  g->through_us = INT64_MIN;
  time_at(g, g->first, &g->q, &g->r);
  g->sq = 1000000 / g->rate;
  g->sr = 1000000 % g->rate;
  {
    int64_t k = (int64_t)g->in_flight * g->T / (g->A ? g->A : 1);
    unsigned __int128 x = (unsigned __int128)(uint64_t)k * (uint64_t)g->sr;
    g->ahead_q = k * g->sq + (int64_t)(x / (uint64_t)g->rate);
    g->ahead_r = (int64_t)(x % (uint64_t)g->rate);
  }
  g->base.unbounded = g->end == INT64_MAX;
  *out = &g->base;
  return 0;
}

int lm_nexmark_reader_project(lm_source_reader *r, const bool *need, int n,
                              lm_error *err) {
  nx_reader *g = (nx_reader *)r;
  bool gen[A_N], same = true;
  for (int f = 0; f < TABLE_NCOLS[g->table]; f++) {
    int i = g->out[f];
    gen[f] = i >= 0 && (!need || i >= n || need[i]);
    same &= gen[f] == g->gen[f];
  }
  if (same)
    return 0;
  memcpy(g->gen, gen, sizeof gen);
  g->dirty = true;
  return 0;
}
