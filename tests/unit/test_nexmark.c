/* Unit tests for the NEXMARK source (connectors/nexmark.c): determinism
 * across runs, batch sizes and splits of the event-id range; the 1:3:46
 * mix; id schemes and field constraints of docs/nexmark.md; projections;
 * option errors; projection and predicate pushdown. */
#include <stdlib.h>
#include <string.h>

#include "connectors/lm_connectors.h"
#include "lm_test.h"

#define BASE_MS INT64_C(1735689600000) /* the default base.time */

/* Every row of a reader as text, "v|v|...\n" per row. */
typedef struct rows {
  lm_buf text;
  int64_t n;
  int rc;
  lm_batch **batches;
  int n_batches;
} rows;

static void rows_free(rows *r) {
  lm_buf_free(&r->text);
  for (int i = 0; i < r->n_batches; i++)
    lm_batch_release(r->batches[i]);
  free(r->batches);
  memset(r, 0, sizeof *r);
}

/* Reads table with the given options (plus 'table'); keeps the batches. */
static void read_all(const char *table, const lm_kv *extra, int n_extra,
                     lm_schema *schema, rows *out) {
  memset(out, 0, sizeof *out);
  lm_buf_init(&out->text);
  lm_kv kv[16];
  kv[0].key = "table";
  kv[0].value = table;
  for (int i = 0; i < n_extra; i++)
    kv[i + 1] = extra[i];
  lm_error err;
  lm_err_clear(&err);
  lm_source_reader *r = NULL;
  out->rc = lm_nexmark_reader_new(schema, kv, n_extra + 1, &r, &err);
  if (out->rc) {
    fprintf(stderr, "reader: %s\n", err.msg);
    return;
  }
  for (int guard = 0; guard < 1000000; guard++) {
    lm_batch *b = NULL;
    bool eof = false;
    if ((out->rc = r->poll(r, &b, &eof, &err)))
      break;
    if (b) {
      for (int64_t i = 0; i < b->num_rows; i++) {
        for (int c = 0; c < b->num_columns; c++) {
          if (c)
            lm_buf_putc(&out->text, '|');
          lm_array_format_value(&out->text, b->columns[c], i, "NULL");
        }
        lm_buf_putc(&out->text, '\n');
      }
      out->n += b->num_rows;
      out->batches =
          realloc(out->batches, sizeof(lm_batch *) * (out->n_batches + 1));
      out->batches[out->n_batches++] = b;
    } else if (eof) {
      break;
    }
  }
  r->free(r);
}

static bool same_text(const rows *a, const rows *b) {
  return a->text.len == b->text.len &&
         memcmp(a->text.data, b->text.data, a->text.len) == 0;
}

/* ------------------------------------------------------- determinism */

static void test_determinism(void) {
  const char *tables[3] = {"person", "auction", "bid"};
  for (int t = 0; t < 3; t++) {
    lm_kv o[] = {{"events.num", "20000"}, {"seed", "7"}};
    rows a, b;
    read_all(tables[t], o, 2, NULL, &a);
    read_all(tables[t], o, 2, NULL, &b);
    CHECK_EQ_I64(a.rc, 0);
    CHECK(a.n > 0);
    CHECK(same_text(&a, &b)); /* the same on every run */
    rows_free(&b);

    /* any batch size */
    lm_kv o7[] = {{"events.num", "20000"}, {"seed", "7"}, {"batch.size", "7"}};
    read_all(tables[t], o7, 3, NULL, &b);
    CHECK(same_text(&a, &b));
    CHECK(b.n_batches > a.n_batches);
    rows_free(&b);

    /* [0, N) = [0, k) ++ [k, N), for k on and off epoch boundaries */
    const char *ks[] = {"1", "49", "50", "1237", "10000", "19999"};
    for (int i = 0; i < 6; i++) {
      char rest[32];
      snprintf(rest, sizeof rest, "%d", 20000 - atoi(ks[i]));
      lm_kv o1[] = {{"events.num", ks[i]}, {"seed", "7"}};
      lm_kv o2[] = {{"events.num", rest},
                    {"first.event", ks[i]},
                    {"seed", "7"},
                    {"batch.size", "333"}};
      rows p1, p2;
      read_all(tables[t], o1, 2, NULL, &p1);
      read_all(tables[t], o2, 4, NULL, &p2);
      CHECK_EQ_I64(p1.rc, 0);
      CHECK_EQ_I64(p2.rc, 0);
      CHECK_EQ_I64(p1.n + p2.n, a.n);
      bool eq = p1.text.len + p2.text.len == a.text.len &&
                (p1.text.len == 0 ||
                 memcmp(a.text.data, p1.text.data, p1.text.len) == 0) &&
                (p2.text.len == 0 || memcmp(a.text.data + p1.text.len,
                                            p2.text.data, p2.text.len) == 0);
      if (!eq)
        fprintf(stderr, "split at %s differs for %s\n", ks[i], tables[t]);
      CHECK(eq);
      rows_free(&p1);
      rows_free(&p2);
    }

    /* another seed, other values */
    lm_kv o8[] = {{"events.num", "20000"}, {"seed", "8"}};
    read_all(tables[t], o8, 2, NULL, &b);
    CHECK_EQ_I64(b.n, a.n);
    CHECK(!same_text(&a, &b));
    rows_free(&b);
    rows_free(&a);
  }
}

/* --------------------------------------------------------------- mix */

static void test_mix(void) {
  lm_kv o[] = {{"events.num", "100000"}};
  rows p, a, b;
  read_all("person", o, 1, NULL, &p);
  read_all("auction", o, 1, NULL, &a);
  read_all("bid", o, 1, NULL, &b);
  CHECK_EQ_I64(p.n, 2000);
  CHECK_EQ_I64(a.n, 6000);
  CHECK_EQ_I64(b.n, 92000);
  rows_free(&p);
  rows_free(&a);
  rows_free(&b);
  /* a range not on epoch boundaries: ids [3, 103) hold persons 50, 100,
   * auctions 3, 51..53, 101..102 and the rest are bids */
  lm_kv o2[] = {{"events.num", "100"}, {"first.event", "3"}};
  read_all("person", o2, 2, NULL, &p);
  read_all("auction", o2, 2, NULL, &a);
  read_all("bid", o2, 2, NULL, &b);
  CHECK_EQ_I64(p.n, 2);
  CHECK_EQ_I64(a.n, 6);
  CHECK_EQ_I64(b.n, 92);
  CHECK(p.text.len >= 4 && !memcmp(p.text.data, "1001", 4));
  rows_free(&p);
  rows_free(&a);
  rows_free(&b);
  /* other proportions */
  lm_kv o3[] = {{"events.num", "1000"},
                {"person.proportion", "2"},
                {"auction.proportion", "3"},
                {"bid.proportion", "5"}};
  read_all("person", o3, 4, NULL, &p);
  read_all("auction", o3, 4, NULL, &a);
  read_all("bid", o3, 4, NULL, &b);
  CHECK_EQ_I64(p.n, 200);
  CHECK_EQ_I64(a.n, 300);
  CHECK_EQ_I64(b.n, 500);
  rows_free(&p);
  rows_free(&a);
  rows_free(&b);
  /* a table with proportion 0 is empty and ends */
  lm_kv o4[] = {{"events.num", "1000"}, {"person.proportion", "0"}};
  read_all("person", o4, 2, NULL, &p);
  CHECK_EQ_I64(p.rc, 0);
  CHECK_EQ_I64(p.n, 0);
  rows_free(&p);
}

/* ----------------------------------------------------- field checks */

static bool in_list(const char *s, int32_t len, const char *const *list,
                    int n) {
  for (int i = 0; i < n; i++)
    if ((int32_t)strlen(list[i]) == len && !memcmp(list[i], s, (size_t)len))
      return true;
  return false;
}

/* a-z and spaces, no leading/trailing space, 1..max chars */
static bool word_text(const char *s, int32_t len, int max, char special) {
  if (len < 1 || len > max || s[0] == ' ' || s[len - 1] == ' ')
    return false;
  for (int32_t i = 0; i < len; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == special))
      return false;
  return true;
}

static bool lower_text(const char *s, int32_t len) {
  for (int32_t i = 0; i < len; i++)
    if (s[i] < 'a' || s[i] > 'z')
      return false;
  return true;
}

static int64_t time_ms(int64_t id, int64_t rate) {
  return BASE_MS + (int64_t)((__int128)id * 1000000 / rate) / 1000;
}

/* extra length bounds for a row of `current` bytes averaging avg */
static void extra_bounds(int current, int avg, int64_t *lo, int64_t *hi) {
  int64_t desired = avg - current;
  int64_t delta = (int64_t)(desired * 0.2 + 0.5);
  *lo = desired - delta;
  *hi = desired + delta - (delta ? 1 : 0);
}

static void test_bids(void) {
  const int64_t N = 50000;
  lm_kv o[] = {{"events.num", "50000"}, {"first-event.rate", "1000"}};
  rows r;
  read_all("bid", o, 2, NULL, &r);
  CHECK_EQ_I64(r.n, N / 50 * 46);
  static const char *const hot[] = {"Google", "Facebook", "Baidu", "Apple"};
  char hot_url[4][128] = {{0}};
  int64_t id = 0, row = 0, hot_auction = 0, hot_bidder = 0, hot_channel = 0;
  int64_t bad_auction = 0, bad_bidder = 0, bad_price = 0, bad_time = 0,
          bad_channel = 0, bad_url = 0, bad_extra = 0;
  int64_t min_price = INT64_MAX, max_price = 0;
  for (int bi = 0; bi < r.n_batches; bi++) {
    lm_batch *b = r.batches[bi];
    CHECK_EQ_I64(b->num_columns, 7);
    const int64_t *auc = lm_array_i64(b->columns[0]);
    const int64_t *bidder = lm_array_i64(b->columns[1]);
    const int64_t *price = lm_array_i64(b->columns[2]);
    const int64_t *ts = lm_array_i64(b->columns[5]);
    for (int64_t i = 0; i < b->num_rows; i++, row++) {
      while (id % 50 < 4)
        id++;
      int64_t epoch = id / 50;
      int64_t last_a = epoch * 3 + 2, last_p = epoch;
      /* auction: hot = (last/100)*100, else within the last 100 + 10 lead */
      int64_t a = auc[i] - 1000;
      if (a == (last_a / 100) * 100)
        hot_auction++;
      int64_t lo = last_a - 100 > 0 ? last_a - 100 : 0;
      if (a < lo || a > last_a + 10)
        bad_auction++;
      /* bidder: +2000 (Flink adds FIRST_PERSON_ID twice) */
      int64_t p = bidder[i] - 2000;
      if (p == (last_p / 100) * 100 + 1)
        hot_bidder++;
      int64_t active = last_p + 1 < 1000 ? last_p + 1 : 1000;
      if (p != (last_p / 100) * 100 + 1 &&
          (p < last_p + 1 - active || p > last_p + 10))
        bad_bidder++;
      if (price[i] < 100 || price[i] > 100000000)
        bad_price++;
      if (price[i] < min_price)
        min_price = price[i];
      if (price[i] > max_price)
        max_price = price[i];
      if (ts[i] != time_ms(id, 1000) * 1000)
        bad_time++;
      int32_t cl, ul, xl;
      const char *ch = lm_array_str(b->columns[3], i, &cl);
      const char *url = lm_array_str(b->columns[4], i, &ul);
      const char *x = lm_array_str(b->columns[6], i, &xl);
      int h = -1;
      for (int k = 0; k < 4; k++)
        if ((int32_t)strlen(hot[k]) == cl && !memcmp(hot[k], ch, (size_t)cl))
          h = k;
      if (h >= 0) {
        hot_channel++;
        if (!hot_url[h][0] && ul < 127)
          memcpy(hot_url[h], url, (size_t)ul);
        if ((int32_t)strlen(hot_url[h]) != ul ||
            memcmp(hot_url[h], url, (size_t)ul))
          bad_url++; /* one fixed url per hot channel */
      } else {
        int n = 0;
        bool ok = cl > 8 && cl <= 12 && !memcmp(ch, "channel-", 8);
        for (int32_t k = 8; ok && k < cl; k++) {
          ok = ch[k] >= '0' && ch[k] <= '9';
          n = n * 10 + (ch[k] - '0');
        }
        if (!ok || n >= 10000)
          bad_channel++;
      }
      if (ul < 40 || memcmp(url, "https://www.nexmark.com/", 24) ||
          !memmem(url, (size_t)ul, "/item.htm?query=1", 17))
        bad_url++;
      /* extra: 100 - 32 = 68 desired, delta 14: 54..81 letters */
      if (xl < 54 || xl > 81 || !lower_text(x, xl))
        bad_extra++;
      id++;
    }
  }
  CHECK_EQ_I64(row, r.n);
  CHECK_EQ_I64(bad_auction, 0);
  CHECK_EQ_I64(bad_bidder, 0);
  CHECK_EQ_I64(bad_price, 0);
  CHECK_EQ_I64(bad_time, 0);
  CHECK_EQ_I64(bad_channel, 0);
  CHECK_EQ_I64(bad_url, 0);
  CHECK_EQ_I64(bad_extra, 0);
  /* P(hot auction) = 1/2 (plus random picks that land on it), P(hot
   * bidder) = 3/4, P(hot channel) = 1/2 */
  CHECK(hot_auction > r.n * 48 / 100 && hot_auction < r.n * 56 / 100);
  CHECK(hot_bidder > r.n * 73 / 100 && hot_bidder < r.n * 78 / 100);
  CHECK(hot_channel > r.n * 48 / 100 && hot_channel < r.n * 52 / 100);
  /* log-uniform prices over [1e2, 1e8] cents */
  CHECK(min_price < 200);
  CHECK(max_price > 50000000);
  rows_free(&r);

  /* the Flink offset can be turned off */
  lm_kv o2[] = {{"events.num", "50"}, {"bidder.flink-offset", "false"}};
  read_all("bid", o2, 2, NULL, &r);
  CHECK_EQ_I64(r.n, 46);
  const int64_t *bidder = lm_array_i64(r.batches[0]->columns[1]);
  for (int64_t i = 0; i < r.n; i++)
    CHECK(bidder[i] >= 1000 && bidder[i] < 1011);
  rows_free(&r);
}

static void test_people(void) {
  static const char *const first[] = {"Peter", "Paul",   "Luke",  "John",
                                      "Saul",  "Vicky",  "Kate",  "Julie",
                                      "Sarah", "Deiter", "Walter"};
  static const char *const last[] = {"Shultz", "Abrams",  "Spencer",
                                     "White",  "Bartels", "Walton",
                                     "Smith",  "Jones",   "Noris"};
  static const char *const cities[] = {
      "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
      "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
  static const char *const states[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  lm_kv o[] = {{"events.num", "100000"}, {"first-event.rate", "7"}};
  rows r;
  read_all("person", o, 2, NULL, &r);
  CHECK_EQ_I64(r.n, 2000);
  int64_t row = 0, bad = 0;
  for (int bi = 0; bi < r.n_batches; bi++) {
    lm_batch *b = r.batches[bi];
    CHECK_EQ_I64(b->num_columns, 8);
    const int64_t *idc = lm_array_i64(b->columns[0]);
    const int64_t *ts = lm_array_i64(b->columns[6]);
    for (int64_t i = 0; i < b->num_rows; i++, row++) {
      int32_t l[8];
      const char *s[8];
      for (int c = 1; c < 8; c++)
        if (c != 6)
          s[c] = lm_array_str(b->columns[c], i, &l[c]);
      bool ok = idc[i] == 1000 + row;
      ok = ok && ts[i] == time_ms(row * 50, 7) * 1000;
      const char *sp = memchr(s[1], ' ', (size_t)l[1]);
      ok = ok && sp && in_list(s[1], (int32_t)(sp - s[1]), first, 11) &&
           in_list(sp + 1, (int32_t)(l[1] - (sp + 1 - s[1])), last, 9);
      const char *at = memchr(s[2], '@', (size_t)l[2]);
      ok = ok && at && l[2] > 6 && !memcmp(s[2] + l[2] - 4, ".com", 4) &&
           (at == s[2] || word_text(s[2], (int32_t)(at - s[2]), 6, ' ')) &&
           (at + 1 == s[2] + l[2] - 4 || /* trimmed to "" */
            word_text(at + 1, (int32_t)(s[2] + l[2] - 4 - at - 1), 4, ' '));
      ok = ok && l[3] == 19;
      for (int k = 0; ok && k < 19; k++)
        ok = k % 5 == 4 ? s[3][k] == ' ' : (s[3][k] >= '0' && s[3][k] <= '9');
      ok = ok && in_list(s[4], l[4], cities, 10) &&
           in_list(s[5], l[5], states, 6);
      int64_t lo, hi;
      extra_bounds(8 + l[1] + l[2] + l[3] + l[4] + l[5], 200, &lo, &hi);
      ok = ok && l[7] >= lo && l[7] <= hi && lower_text(s[7], l[7]);
      if (!ok && bad++ < 3)
        fprintf(stderr, "bad person row %lld\n", (long long)row);
    }
  }
  CHECK_EQ_I64(bad, 0);
  rows_free(&r);
}

static void test_auctions(void) {
  lm_kv o[] = {{"events.num", "100000"}, {"first-event.rate", "10000"}};
  rows r;
  read_all("auction", o, 2, NULL, &r);
  CHECK_EQ_I64(r.n, 6000);
  int64_t row = 0, bad = 0, hot_seller = 0, cats[5] = {0};
  for (int bi = 0; bi < r.n_batches; bi++) {
    lm_batch *b = r.batches[bi];
    CHECK_EQ_I64(b->num_columns, 10);
    const int64_t *idc = lm_array_i64(b->columns[0]);
    const int64_t *init = lm_array_i64(b->columns[3]);
    const int64_t *res = lm_array_i64(b->columns[4]);
    const int64_t *ts = lm_array_i64(b->columns[5]);
    const int64_t *exp = lm_array_i64(b->columns[6]);
    const int64_t *seller = lm_array_i64(b->columns[7]);
    const int64_t *cat = lm_array_i64(b->columns[8]);
    for (int64_t i = 0; i < b->num_rows; i++, row++) {
      int64_t epoch = row / 3, id = epoch * 50 + 1 + row % 3;
      int32_t il, dl, xl;
      const char *item = lm_array_str(b->columns[1], i, &il);
      const char *desc = lm_array_str(b->columns[2], i, &dl);
      const char *x = lm_array_str(b->columns[9], i, &xl);
      bool ok = idc[i] == 1000 + row;
      ok = ok && ts[i] == time_ms(id, 10000) * 1000;
      /* horizon: 1666 events at 10,000/s = 166 or 167 ms */
      int64_t horizon = time_ms(id + 1666, 10000) - time_ms(id, 10000);
      ok = ok && exp[i] > ts[i] && exp[i] <= ts[i] + 2 * horizon * 1000;
      ok = ok && init[i] >= 100 && init[i] <= 100000000 && res[i] > init[i];
      ok = ok && cat[i] >= 10 && cat[i] <= 14;
      if (ok)
        cats[cat[i] - 10]++;
      int64_t lp = epoch, s = seller[i] - 1000;
      if (s == (lp / 100) * 100)
        hot_seller++;
      int64_t active = lp + 1 < 1000 ? lp + 1 : 1000;
      ok = ok &&
           (s == (lp / 100) * 100 || (s >= lp + 1 - active && s <= lp + 10));
      ok = ok && (il == 0 || word_text(item, il, 19, ' ')) &&
           (dl == 0 || word_text(desc, dl, 99, ' '));
      int64_t lo, hi;
      extra_bounds(8 + il + dl + 40, 500, &lo, &hi);
      ok = ok && xl >= lo && xl <= hi && lower_text(x, xl);
      if (!ok && bad++ < 3)
        fprintf(stderr, "bad auction row %lld\n", (long long)row);
    }
  }
  CHECK_EQ_I64(bad, 0);
  CHECK(hot_seller > r.n * 72 / 100 && hot_seller < r.n * 80 / 100);
  for (int c = 0; c < 5; c++)
    CHECK(cats[c] > 1000 && cats[c] < 1400);
  rows_free(&r);
}

/* --------------------------------------------- projection and options */

static void test_projection_and_errors(void) {
  lm_kv o[] = {{"table", "bid"}, {"events.num", "5000"}};
  lm_schema *d = lm_schema_new(2);
  lm_schema_set_field(d, 0, "PRICE", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(d, 1, "datetime", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_schema *s = NULL;
  lm_error err;
  CHECK_EQ_I64(lm_nexmark_source_schema(o, 2, d, &s, &err), 0);
  if (s) {
    CHECK_EQ_I64(s->n_fields, 2);
    CHECK_EQ_STR(s->fields[0].name, "price");
    CHECK_EQ_STR(s->fields[1].name, "dateTime");
    CHECK(!s->fields[0].nullable);
    rows full, part;
    read_all("bid", o + 1, 1, NULL, &full);
    read_all("bid", o + 1, 1, s, &part);
    CHECK_EQ_I64(full.n, part.n);
    /* the projected columns equal the full table's */
    int64_t diff = 0, row = 0;
    for (int bi = 0; bi < full.n_batches; bi++)
      for (int64_t i = 0; i < full.batches[bi]->num_rows; i++, row++) {
        int64_t pb = 0, pi = row;
        while (pi >= part.batches[pb]->num_rows)
          pi -= part.batches[pb++]->num_rows;
        diff += lm_array_i64(full.batches[bi]->columns[2])[i] !=
                lm_array_i64(part.batches[pb]->columns[0])[pi];
        diff += lm_array_i64(full.batches[bi]->columns[5])[i] !=
                lm_array_i64(part.batches[pb]->columns[1])[pi];
      }
    CHECK_EQ_I64(diff, 0);
    rows_free(&full);
    rows_free(&part);
    lm_schema_release(s);
  }
  lm_schema_release(d);

  /* no declared columns: the full table */
  CHECK_EQ_I64(lm_nexmark_source_schema(o, 2, NULL, &s, &err), 0);
  CHECK_EQ_I64(s ? s->n_fields : 0, 7);
  lm_schema_release(s);
  lm_schema *ps = lm_nexmark_table_schema(0);
  CHECK_EQ_STR(ps->fields[2].name, "emailAddress");
  CHECK_EQ_I64(ps->fields[6].type.id, LM_TYPE_TIMESTAMP);
  lm_schema_release(ps);
  CHECK(lm_nexmark_table_schema(3) == NULL);

  /* errors */
  d = lm_schema_new(1);
  lm_schema_set_field(d, 0, "bidder", lm_type_make(LM_TYPE_UTF8), true);
  CHECK_EQ_I64(lm_nexmark_source_schema(o, 2, d, &s, &err), LM_ERR_BIND);
  CHECK(strstr(err.msg, "bidder") && strstr(err.msg, "BIGINT"));
  lm_schema_set_field(d, 0, "nope", lm_type_make(LM_TYPE_INT64), true);
  CHECK_EQ_I64(lm_nexmark_source_schema(o, 2, d, &s, &err), LM_ERR_BIND);
  CHECK(strstr(err.msg, "'nope' is not a column of NEXMARK table bid"));
  lm_schema_release(d);
  lm_source_reader *r = NULL;
  lm_kv bad1[] = {{"events.num", "5"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, bad1, 1, &r, &err), LM_ERR_BIND);
  CHECK(strstr(err.msg, "'table'"));
  lm_kv bad2[] = {{"table", "bids"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, bad2, 1, &r, &err), LM_ERR_BIND);
  lm_kv bad3[] = {{"table", "bid"}, {"evnts", "5"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, bad3, 2, &r, &err), LM_ERR_BIND);
  CHECK(strstr(err.msg, "unknown NEXMARK option 'evnts'"));
  lm_kv bad4[] = {{"table", "bid"}, {"first-event.rate", "0"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, bad4, 2, &r, &err), LM_ERR_BIND);
  lm_kv bad5[] = {{"table", "bid"}, {"bid.avg-size", "x"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, bad5, 2, &r, &err), LM_ERR_BIND);
  CHECK(r == NULL);

  /* Flink-style sizes, base.time as text; unbounded without events.num */
  lm_kv ok[] = {{"table", "bid"},
                {"bid.avg-size", "200b"},
                {"base.time", "2020-01-01 00:00:00"}};
  CHECK_EQ_I64(lm_nexmark_reader_new(NULL, ok, 3, &r, &err), 0);
  if (r) {
    CHECK(r->unbounded);
    lm_batch *b = NULL;
    bool eof = true;
    CHECK_EQ_I64(r->poll(r, &b, &eof, &err), 0);
    CHECK(b && !eof && b->num_rows == 4096);
    if (b) {
      CHECK_EQ_I64(lm_array_i64(b->columns[5])[0],
                   INT64_C(1577836800000) * 1000);
      int32_t xl;
      lm_array_str(b->columns[6], 0, &xl);
      CHECK(xl >= 168 - 34 && xl < 168 + 34);
    }
    lm_batch_release(b);
    r->free(r);
  }
}

/* ------------------------------------------- projection pushdown */

/* The number of columns of a NEXMARK table. */
static int table_cols(const char *table) {
  int t = !strcmp(table, "person") ? 0 : !strcmp(table, "auction") ? 1 : 2;
  lm_schema *s = lm_nexmark_table_schema(t);
  int n = s ? s->n_fields : 0;
  lm_schema_release(s);
  return n;
}

/* A reader's rows one at a time (the batches of two readers need not
 * line up: rows per batch depend on the columns generated). */
typedef struct cursor {
  lm_source_reader *r;
  lm_batch *b;
  int64_t i;
  bool eof;
} cursor;

static bool cursor_next(cursor *c) {
  while (!c->b || c->i >= c->b->num_rows) {
    lm_batch_release(c->b);
    c->b = NULL;
    c->i = 0;
    if (c->eof)
      return false;
    lm_error err;
    if (c->r->poll(c->r, &c->b, &c->eof, &err))
      return false;
  }
  c->i++;
  return true;
}

static bool cell_eq(const lm_array *a, int64_t i, const lm_array *b,
                    int64_t j) {
  if (a->type.id == LM_TYPE_UTF8) {
    int32_t la, lb;
    const char *x = lm_array_str(a, i, &la), *y = lm_array_str(b, j, &lb);
    return la == lb && !memcmp(x, y, (size_t)la);
  }
  return lm_array_i64(a)[i] == lm_array_i64(b)[j];
}

static bool cell_empty(const lm_array *a, int64_t i) {
  int32_t len;
  if (a->type.id == LM_TYPE_UTF8)
    return lm_array_str(a, i, &len), len == 0;
  return lm_array_i64(a)[i] == 0;
}

/* Reads `table` over `events` events in full and, in lockstep, with
 * lm_nexmark_reader_project(need): mode 0 keeps need for the whole run,
 * mode 1 draws a new random projection before every poll. Returns the
 * rows whose generated columns differ from the full reader's or whose
 * placeholders are not 0 / ''. */
static int64_t projected_diffs(const char *table, const char *events,
                               const bool *need, int mode, int64_t *rows) {
  lm_kv kv[] = {{"table", table}, {"events.num", events}, {"seed", "3"}};
  lm_error err;
  cursor f = {0}, p = {0};
  int64_t bad = 0;
  *rows = 0;
  if (lm_nexmark_reader_new(NULL, kv, 3, &f.r, &err) ||
      lm_nexmark_reader_new(NULL, kv, 3, &p.r, &err))
    return -1;
  int nc = table_cols(table);
  bool cur[16];
  memcpy(cur, need, sizeof(bool) * (size_t)nc);
  uint64_t seed = 12345;
  if (lm_nexmark_reader_project(p.r, cur, nc, &err))
    bad = -1;
  while (bad >= 0 && cursor_next(&f)) {
    if (mode == 1 && (!p.b || p.i >= p.b->num_rows)) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      for (int c = 0; c < nc; c++)
        cur[c] = (seed >> (20 + c)) & 1;
      if (lm_nexmark_reader_project(p.r, cur, nc, &err))
        bad = -1;
    }
    if (!cursor_next(&p)) {
      bad++;
      break;
    }
    bool ok = true;
    for (int c = 0; c < nc; c++)
      ok &= cur[c] ? cell_eq(f.b->columns[c], f.i - 1, p.b->columns[c], p.i - 1)
                   : cell_empty(p.b->columns[c], p.i - 1);
    bad += !ok;
    ++*rows;
  }
  if (cursor_next(&p)) /* the projected reader has more rows */
    bad++;
  lm_batch_release(f.b);
  lm_batch_release(p.b);
  f.r->free(f.r);
  p.r->free(p.r);
  return bad;
}

/* Projection pushdown must not change a generated column's values: over
 * NEXMARK_PUSHDOWN_EVENTS events (default 1,000,000) of each table, every
 * single column alone, none, and a new random projection before every
 * poll; over a fifth of them (200,000 by default: ctest's ASan pass) every
 * column but one. Each must equal the full reader row by row. */
static void test_pushdown_identity(void) {
  const char *events = getenv("NEXMARK_PUSHDOWN_EVENTS");
  if (!events || !*events)
    events = "1000000";
  char fifth[32];
  snprintf(fifth, sizeof fifth, "%lld", atoll(events) / 5 + 1);
  const char *tables[3] = {"person", "auction", "bid"};
  for (int t = 0; t < 3; t++) {
    int nc = table_cols(tables[t]);
    bool need[16];
    int64_t rows = 0, bad;
    for (int k = -1; k < 2 * nc; k++) {
      /* k < 0: none; k < nc: only column k; else every column but k - nc */
      for (int c = 0; c < nc; c++)
        need[c] = k < 0 ? false : k < nc ? c == k : c != k - nc;
      bad = projected_diffs(tables[t], k < nc ? events : fifth, need, 0, &rows);
      if (bad)
        fprintf(stderr, "%s, projection %d: %lld rows differ\n", tables[t], k,
                (long long)bad);
      CHECK_EQ_I64(bad, 0);
      CHECK(rows > 0);
    }
    bad = projected_diffs(tables[t], events, need, 1, &rows);
    if (bad)
      fprintf(stderr, "%s, random projections: %lld rows differ\n", tables[t],
              (long long)bad);
    CHECK_EQ_I64(bad, 0);
  }
}

/* ------------------------------------------- predicate pushdown */

/* Whether row i of full bid batch b passes p[0..n) (the predicates
 * computed here from the row's values, C's % as SQL's). */
static bool row_passes(const lm_batch *b, int64_t i, const lm_gen_pred *p,
                       int n) {
  for (int k = 0; k < n; k++) {
    int64_t v = lm_array_i64(b->columns[p[k].col])[i];
    if (p[k].mod)
      v %= p[k].mod;
    bool ok = p[k].op == LM_GEN_EQ   ? v == p[k].value
              : p[k].op == LM_GEN_NE ? v != p[k].value
              : p[k].op == LM_GEN_LT ? v < p[k].value
              : p[k].op == LM_GEN_LE ? v <= p[k].value
              : p[k].op == LM_GEN_GT ? v > p[k].value
                                     : v >= p[k].value;
    if (!ok)
      return false;
  }
  return true;
}

/* Reads bids over `events` events in full and, in lockstep, with the
 * filter p[0..n) (and projection need, NULL = every column): every row of
 * the full reader passing p (computed here) must be the filtered reader's
 * next row, every generated column equal; the filtered reader must have no
 * other rows, and its time-through must end at the last bid's dateTime.
 * Returns the rows that differ (-1: a reader failed); *kept = the rows
 * passing. */
static int64_t filtered_diffs(const char *events, const char *batch,
                              const lm_gen_pred *p, int n, const bool *need,
                              int64_t *kept) {
  lm_kv kv[] = {{"table", "bid"},
                {"events.num", events},
                {"seed", "5"},
                {"batch.size", batch}};
  lm_error err;
  cursor f = {0}, g = {0};
  int64_t bad = 0, last_t = INT64_MIN;
  *kept = 0;
  bool applied = false;
  if (lm_nexmark_reader_new(NULL, kv, 4, &f.r, &err) ||
      lm_nexmark_reader_new(NULL, kv, 4, &g.r, &err) ||
      lm_nexmark_reader_filter(g.r, p, n, &applied, &err) ||
      (need && lm_nexmark_reader_project(g.r, need, 7, &err)) || !applied)
    return -1;
  while (cursor_next(&f)) {
    last_t = lm_array_i64(f.b->columns[5])[f.i - 1];
    if (!row_passes(f.b, f.i - 1, p, n))
      continue;
    ++*kept;
    if (!cursor_next(&g)) {
      bad++;
      break;
    }
    bool ok = true;
    for (int c = 0; c < 7; c++)
      ok &= !need || need[c]
                ? cell_eq(f.b->columns[c], f.i - 1, g.b->columns[c], g.i - 1)
                : cell_empty(g.b->columns[c], g.i - 1);
    bad += !ok;
  }
  if (cursor_next(&g)) /* the filtered reader has more rows */
    bad++;
  if (lm_nexmark_reader_time_through(g.r) != last_t) {
    fprintf(stderr, "time through %lld, last bid at %lld\n",
            (long long)lm_nexmark_reader_time_through(g.r), (long long)last_t);
    bad++;
  }
  lm_batch_release(f.b);
  lm_batch_release(g.b);
  f.r->free(f.r);
  g.r->free(g.r);
  return bad;
}

/* Predicate pushdown (docs/nexmark.md "Predicate pushdown") must not
 * change a kept row: over NEXMARK_PUSHDOWN_EVENTS / 5 events (200,000 by
 * default) of bids, with predicates on each column the filter reads
 * (auction, bidder, price, dateTime), alone and together, with and
 * without a projection, small and large batches: the filtered reader's
 * rows are exactly the full reader's rows that pass. Also: a filter on
 * another table or column is not applied; an unbounded filtered reader
 * that no bid passes returns no batch, but its time moves. */
static void test_filter_pushdown(void) {
  const char *events = getenv("NEXMARK_PUSHDOWN_EVENTS");
  char fifth[32];
  snprintf(fifth, sizeof fifth, "%lld",
           (events && *events ? atoll(events) : 1000000) / 5 + 1);
  enum { AUC = 0, BIDDER = 1, PRICE = 2, TIME = 5 };
  const int64_t t0 = BASE_MS * 1000;
  /* each case: up to 3 predicates; n = their count */
  struct {
    int n;
    lm_gen_pred p[3];
  } cases[] = {
      {1, {{AUC, LM_GEN_EQ, 123, 0}}}, /* q2 */
      {1, {{AUC, LM_GEN_NE, 2, 0}}},
      {2, {{BIDDER, LM_GEN_EQ, 7, 3}, {PRICE, LM_GEN_GT, 0, 10000}}},
      {1, {{PRICE, LM_GEN_LE, 0, 500}}},
      {2,
       {{TIME, LM_GEN_GE, 0, t0 + 1000000},
        {TIME, LM_GEN_LT, 0, t0 + 1500000}}},
      {3,
       {{AUC, LM_GEN_GE, 0, 1100},
        {BIDDER, LM_GEN_LT, 0, 2500},
        {PRICE, LM_GEN_NE, 10, 0}}},
      {1, {{AUC, LM_GEN_GT, 0, 1000000000}}}, /* no bid passes */
  };
  bool q2cols[7] = {true, false, true, false, false, true, false};
  /* variants: 0 every column, batches of 4096; 1 q2's columns; 2 every
   * column, batches of 7. q2's case gets all three, the others one each
   * (the ASan pass stays short) */
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    for (int v = k ? (int)(k % 3) : 0; v < (k ? (int)(k % 3) + 1 : 3); v++) {
      int64_t kept = 0;
      int64_t bad = filtered_diffs(fifth, v == 2 ? "7" : "4096", cases[k].p,
                                   cases[k].n, v == 1 ? q2cols : NULL, &kept);
      if (bad)
        fprintf(stderr, "filter case %zu, variant %d: %lld rows differ\n", k, v,
                (long long)bad);
      CHECK_EQ_I64(bad, 0);
      if (k + 1 < sizeof cases / sizeof *cases)
        CHECK(kept > 0);
      else
        CHECK_EQ_I64(kept, 0);
    }
  }
  /* not applied: another table, a column the filter cannot read */
  lm_error err;
  lm_source_reader *r = NULL;
  bool applied = true;
  lm_gen_pred one = {0, LM_GEN_EQ, 2, 0};
  lm_kv kp[] = {{"table", "person"}, {"events.num", "1000"}};
  CHECK(!lm_nexmark_reader_new(NULL, kp, 2, &r, &err));
  CHECK(!lm_nexmark_reader_filter(r, &one, 1, &applied, &err));
  CHECK(!applied);
  CHECK_EQ_I64(lm_nexmark_reader_time_through(r), INT64_MIN);
  r->free(r);
  lm_kv kb[] = {{"table", "bid"}, {"events.num", "1000"}};
  lm_gen_pred url = {4, LM_GEN_EQ, 0, 0};
  CHECK(!lm_nexmark_reader_new(NULL, kb, 2, &r, &err));
  CHECK(!lm_nexmark_reader_filter(r, &url, 1, &applied, &err));
  CHECK(!applied);
  r->free(r);
  /* unbounded, nothing passes: no batch, no eof, but time goes on */
  lm_kv ku[] = {{"table", "bid"}};
  lm_gen_pred none = {AUC, LM_GEN_LT, 0, 0};
  CHECK(!lm_nexmark_reader_new(NULL, ku, 1, &r, &err));
  CHECK(!lm_nexmark_reader_filter(r, &none, 1, &applied, &err));
  CHECK(applied);
  int64_t prev = INT64_MIN;
  for (int i = 0; i < 3; i++) {
    lm_batch *b = NULL;
    bool eof = false;
    CHECK(!r->poll(r, &b, &eof, &err));
    CHECK(!b && !eof);
    int64_t t = lm_nexmark_reader_time_through(r);
    CHECK(t > prev);
    prev = t;
  }
  r->free(r);
}

/* ------------------------------------------- late materialization */

/* A verdict for the test: per whole second of event time, keys in
 * [k_lo, k_hi] where the bounds depend on the second (every fourth second
 * keeps everything); counts its calls in *ctx. */
static void test_verdict(void *ctx, int64_t t, lm_gen_verdict *v) {
  ++*(int64_t *)ctx;
  int64_t sec = t / 1000000;
  v->t_lo = sec * 1000000;
  v->t_hi = v->t_lo + 999999;
  v->k_lo = sec % 4 == 0 ? INT64_MIN : 100000 * (sec % 7);
  v->k_hi = sec % 4 == 0 ? INT64_MAX : sec % 3 ? INT64_MAX : 50000000;
}

/* The lazy reader's rows against the full reader's over `events` bids
 * (seed 7, batch size `batch`), lazy columns lazy[0..7) keyed on column
 * key: every cell equal, except a lazy column of a row whose key lies
 * outside test_verdict's range, which must be ''. Sets *cold to the rows
 * that went without their lazy columns. Returns the rows that differ. */
static int64_t lazy_diffs(const char *events, const char *batch,
                          const bool *lazy, int key, int64_t *cold,
                          int64_t *calls) {
  lm_kv kv[] = {{"table", "bid"},
                {"events.num", events},
                {"seed", "7"},
                {"first-event.rate", "2000"},
                {"batch.size", batch}};
  lm_error err;
  cursor f = {0}, g = {0};
  int64_t bad = 0;
  bool applied = false;
  *cold = 0;
  if (lm_nexmark_reader_new(NULL, kv, 5, &f.r, &err) ||
      lm_nexmark_reader_new(NULL, kv, 5, &g.r, &err) ||
      lm_nexmark_reader_lazy(g.r, lazy, 7, key, 5, test_verdict, calls,
                             &applied) ||
      !applied)
    return -1;
  while (cursor_next(&f)) {
    if (!cursor_next(&g)) {
      bad++;
      break;
    }
    int64_t i = f.i - 1;
    int64_t t = lm_array_i64(f.b->columns[5])[i];
    int64_t kv_ = lm_array_i64(f.b->columns[key])[i];
    lm_gen_verdict v;
    int64_t unused = 0;
    test_verdict(&unused, t, &v);
    bool keep = kv_ >= v.k_lo && kv_ <= v.k_hi;
    *cold += !keep;
    bool ok = true;
    for (int c = 0; c < 7; c++)
      ok &= lazy[c] && !keep
                ? cell_empty(g.b->columns[c], g.i - 1)
                : cell_eq(f.b->columns[c], i, g.b->columns[c], g.i - 1);
    bad += !ok;
  }
  if (cursor_next(&g)) /* the lazy reader has more rows */
    bad++;
  lm_batch_release(f.b);
  lm_batch_release(g.b);
  f.r->free(f.r);
  g.r->free(g.r);
  return bad;
}

/* Late materialization (docs/nexmark.md "Late materialization"): a lazy
 * column is '' exactly in the rows the verdict rules out, and every other
 * cell is the full reader's; keyed on price, auction or bidder; with
 * batches of 4096 and 7. Not applied to another table, a non-string lazy
 * column alone, or a key that is not an integer column. */
static void test_lazy(void) {
  enum { AUC = 0, BIDDER = 1, PRICE = 2, CHANNEL = 3, URL = 4, EXTRA = 6 };
  bool extra[7] = {0}, strs[7] = {0};
  extra[EXTRA] = true;
  strs[CHANNEL] = strs[URL] = strs[EXTRA] = true;
  struct {
    const bool *lazy;
    int key;
    const char *batch;
  } cases[] = {{extra, PRICE, "4096"},
               {strs, PRICE, "7"},
               {strs, AUC, "4096"},
               {extra, BIDDER, "4096"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    int64_t cold = 0, calls = 0;
    int64_t bad = lazy_diffs("40000", cases[k].batch, cases[k].lazy,
                             cases[k].key, &cold, &calls);
    if (bad)
      fprintf(stderr, "lazy case %zu: %lld rows differ\n", k, (long long)bad);
    CHECK_EQ_I64(bad, 0);
    CHECK(cold > 0);
    CHECK(calls > 0);
  }
  lm_error err;
  lm_source_reader *r = NULL;
  bool applied = true;
  int64_t calls = 0;
  bool ints[7] = {true, true, false, false, false, false, false};
  lm_kv kp[] = {{"table", "person"}, {"events.num", "1000"}};
  CHECK(!lm_nexmark_reader_new(NULL, kp, 2, &r, &err));
  CHECK(!lm_nexmark_reader_lazy(r, extra, 7, PRICE, 5, test_verdict, &calls,
                                &applied));
  CHECK(!applied);
  r->free(r);
  lm_kv kb[] = {{"table", "bid"}, {"events.num", "1000"}};
  CHECK(!lm_nexmark_reader_new(NULL, kb, 2, &r, &err));
  CHECK(!lm_nexmark_reader_lazy(r, ints, 7, PRICE, 5, test_verdict, &calls,
                                &applied));
  CHECK(!applied);
  CHECK(!lm_nexmark_reader_lazy(r, extra, 7, URL, 5, test_verdict, &calls,
                                &applied));
  CHECK(!applied);
  CHECK(!lm_nexmark_reader_lazy(r, extra, 7, PRICE, 5, NULL, NULL, &applied));
  CHECK(!applied);
  r->free(r);
}

/* A lazy reader ends a batch early (within 64 rows) where a verdict that
 * keeps every row follows one that does not (a window's first rows: the
 * consumer folds them before the next poll asks again), once per such
 * stretch; the rows are the same (test_lazy compares them). */
static void test_lazy_cut(void) {
  bool extra[7] = {0};
  extra[6] = true;
  lm_kv kv[] = {{"table", "bid"},
                {"events.num", "40000"},
                {"seed", "7"},
                {"first-event.rate", "2000"},
                {"batch.size", "4096"}};
  lm_error err;
  lm_source_reader *r = NULL;
  bool applied = false;
  int64_t calls = 0, cuts = 0, rows = 0, bad = 0;
  CHECK(!lm_nexmark_reader_new(NULL, kv, 5, &r, &err));
  CHECK(!lm_nexmark_reader_lazy(r, extra, 7, 2, 5, test_verdict, &calls,
                                &applied));
  CHECK(applied);
  for (;;) {
    lm_batch *b = NULL;
    bool eof = false;
    CHECK(!r->poll(r, &b, &eof, &err));
    if (!b) {
      if (eof)
        break;
      continue;
    }
    int64_t n = b->num_rows;
    const int64_t *t = lm_array_i64(b->columns[5]);
    rows += n;
    if (n < 4096 && rows < 36800) { /* not the last batch: a cut */
      cuts++;
      /* its last row is in a keep-all second, at most 64 rows into it */
      int64_t sec = t[n - 1] / 1000000, first = n - 1;
      while (first > 0 && t[first - 1] / 1000000 == sec)
        first--;
      bad += sec % 4 != 0 || n - first > 64;
    }
    lm_batch_release(b);
  }
  r->free(r);
  CHECK_EQ_I64(rows, 36800);     /* 46 bids in 50 events */
  CHECK(cuts >= 1 && cuts <= 5); /* seconds 0, 4, 8, 12, 16 keep all */
  CHECK_EQ_I64(bad, 0);
}

int main(void) {
  test_determinism();
  test_mix();
  test_bids();
  test_people();
  test_auctions();
  test_projection_and_errors();
  test_pushdown_identity();
  test_filter_pushdown();
  test_lazy();
  test_lazy_cut();
  return lm_test_done("test_nexmark");
}
