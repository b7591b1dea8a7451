/*
 * The embedded C API used the way a user would: only include/laminar.h,
 * hand-built Arrow C Data Interface arrays pushed into a source, a
 * subscription polled for output batches, a view queried.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laminar.h"

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);    \
      failures++;                                                              \
    }                                                                          \
  } while (0)
#define OK(call)                                                               \
  do {                                                                         \
    laminar_error e_;                                                          \
    memset(&e_, 0, sizeof e_);                                                 \
    int rc_ = (call);                                                          \
    (void)e_;                                                                  \
    if (rc_) {                                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              err.message);                                                    \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* ---- a producer's own arrays: symbol VARCHAR, volume BIGINT, 3 rows ---- */

static int released_children, released_parent, released_schema;

static void release_child(struct ArrowArray *a) {
  released_children++;
  a->release = NULL;
}
static void release_parent(struct ArrowArray *a) {
  for (int i = 0; i < a->n_children; i++)
    if (a->children[i]->release)
      a->children[i]->release(a->children[i]);
  released_parent++;
  a->release = NULL;
}
static void release_schema(struct ArrowSchema *s) {
  released_schema++;
  s->release = NULL;
}

static int32_t sym_off[4] = {0, 4, 8, 12};
static const char sym_data[] = "AAPLMSFTGOOG";
static int64_t volumes[3] = {100, 30, 250};
static const void *sym_bufs[3] = {NULL, sym_off, sym_data};
static const void *vol_bufs[2] = {NULL, volumes};
static const void *parent_bufs[1] = {NULL};

static void make_batch(struct ArrowArray *parent, struct ArrowArray *c0,
                       struct ArrowArray *c1, struct ArrowArray **kids) {
  memset(c0, 0, sizeof *c0);
  memset(c1, 0, sizeof *c1);
  memset(parent, 0, sizeof *parent);
  c0->length = c1->length = parent->length = 3;
  c0->n_buffers = 3;
  c0->buffers = sym_bufs;
  c0->release = release_child;
  c1->n_buffers = 2;
  c1->buffers = vol_bufs;
  c1->release = release_child;
  kids[0] = c0;
  kids[1] = c1;
  parent->n_buffers = 1;
  parent->buffers = parent_bufs;
  parent->n_children = 2;
  parent->children = kids;
  parent->release = release_parent;
}

static struct ArrowSchema f_sym = {"u",  "symbol", NULL,           0,   0,
                                   NULL, NULL,     release_schema, NULL};
static struct ArrowSchema f_vol = {"l",  "volume", NULL,           0,   0,
                                   NULL, NULL,     release_schema, NULL};
static struct ArrowSchema *fields[2] = {&f_sym, &f_vol};
static struct ArrowSchema root = {"+s",   "",   NULL,           0,   2,
                                  fields, NULL, release_schema, NULL};

int main(void) {
  laminar_db *db = NULL;
  laminar_error err;
  memset(&err, 0, sizeof err);
  OK(laminar_open(&db, &err));
  OK(laminar_execute(db,
                     "CREATE SOURCE trades (symbol VARCHAR NOT NULL, volume "
                     "BIGINT NOT NULL);\n"
                     "CREATE STREAM big_trades AS SELECT symbol, volume FROM "
                     "trades WHERE volume >= 100;\n"
                     "CREATE MATERIALIZED VIEW totals AS SELECT symbol, "
                     "SUM(volume) AS volume FROM trades GROUP BY symbol;",
                     NULL, &err));

  laminar_subscription *sub = NULL;
  OK(laminar_subscribe(db, "big_trades", &sub, &err));

  struct ArrowArray parent, c0, c1, *kids[2];
  make_batch(&parent, &c0, &c1, kids);
  OK(laminar_push_arrow(db, "trades", &parent, &root, &err));
  CHECK(parent.release == NULL); /* moved */

  struct ArrowArray out;
  struct ArrowSchema out_schema;
  bool has = false;
  OK(laminar_subscription_poll(sub, &out, &out_schema, &has, &err));
  CHECK(has);
  if (has) {
    CHECK(out.length == 2); /* AAPL 100, GOOG 250 */
    CHECK(out.n_children == 2);
    CHECK(!strcmp(out_schema.format, "+s"));
    CHECK(!strcmp(out_schema.children[0]->name, "symbol"));
    CHECK(!strcmp(out_schema.children[1]->format, "l"));
    const int64_t *v = (const int64_t *)out.children[1]->buffers[1];
    int64_t off = out.children[1]->offset;
    CHECK(v[off] == 100 && v[off + 1] == 250);
    const int32_t *so = (const int32_t *)out.children[0]->buffers[1];
    const char *sd = (const char *)out.children[0]->buffers[2];
    int64_t o0 = out.children[0]->offset;
    CHECK(!memcmp(sd + so[o0 + 1], "GOOG", 4));
    out.release(&out);
    out_schema.release(&out_schema);
  }
  OK(laminar_subscription_poll(sub, &out, &out_schema, &has, &err));
  CHECK(!has);

  /* the C Stream Interface: two more pushes, taken as one stream */
  for (int k = 0; k < 2; k++) {
    make_batch(&parent, &c0, &c1, kids);
    OK(laminar_push_arrow(db, "trades", &parent, &root, &err));
  }
  struct ArrowArrayStream st;
  OK(laminar_subscription_stream(sub, &st, &err));
  struct ArrowSchema ss;
  CHECK(st.get_schema(&st, &ss) == 0);
  CHECK(!strcmp(ss.format, "+s") && ss.n_children == 2);
  ss.release(&ss);
  int64_t rows = 0, batches = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK(st.get_next(&st, &a) == 0);
    if (!a.release)
      break; /* end of stream */
    rows += a.length;
    batches++;
    a.release(&a);
  }
  CHECK(batches == 2 && rows == 4);
  st.release(&st);
  CHECK(st.release == NULL);
  OK(laminar_subscription_poll(sub, &out, &out_schema, &has, &err));
  CHECK(!has); /* the stream took the queue */

  /* a result exported as a stream pushes straight into another source
   * (totals.volume is SUM(bigint): numeric, DECIMAL(38,0)) */
  OK(laminar_execute(
      db,
      "CREATE SOURCE copy (symbol VARCHAR, volume NUMERIC(38,0));"
      "CREATE MATERIALIZED VIEW copy_n AS SELECT COUNT(*) AS n, "
      "SUM(volume) AS v FROM copy",
      NULL, &err));
  laminar_result *src_rows = NULL;
  OK(laminar_execute(db, "SELECT symbol, volume FROM totals", &src_rows, &err));
  struct ArrowArrayStream pst;
  OK(laminar_result_stream(src_rows, &pst, &err));
  laminar_result_free(src_rows);
  OK(laminar_push_stream(db, "copy", &pst, &err));
  CHECK(pst.release == NULL); /* moved and released */
  laminar_result *cn = NULL;
  OK(laminar_execute(db, "SELECT n, v FROM copy_n", &cn, &err));
  CHECK(cn && !strcmp(laminar_result_value_text(cn, 0, 0), "3"));
  CHECK(cn && !strcmp(laminar_result_value_text(cn, 0, 1), "1140"));
  laminar_result_free(cn);

  /* the view, queried like a table */
  laminar_result *res = NULL;
  OK(laminar_execute(db,
                     "SELECT symbol, volume FROM totals ORDER BY volume DESC",
                     &res, &err));
  CHECK(res && laminar_result_num_rows(res) == 3);
  CHECK(res && laminar_result_num_columns(res) == 2);
  if (res) {
    CHECK(!strcmp(laminar_result_column_name(res, 1), "volume"));
    /* SUM(bigint) is numeric, as PostgreSQL's */
    CHECK(!strcmp(laminar_result_column_type(res, 1), "DECIMAL(38,0)"));
    CHECK(!strcmp(laminar_result_value_text(res, 0, 0), "GOOG"));
    /* three pushes of (AAPL 100, MSFT 30, GOOG 250) */
    CHECK(!strcmp(laminar_result_value_text(res, 2, 1), "90"));
    struct ArrowArray ra;
    struct ArrowSchema rs;
    OK(laminar_result_export_batch(res, 0, &ra, &rs, &err));
    CHECK(ra.length == 3);
    ra.release(&ra);
    rs.release(&rs);
    struct ArrowArrayStream rst;
    OK(laminar_result_stream(res, &rst, &err));
    laminar_result_free(res); /* the stream holds its own references */
    struct ArrowArray b0;
    CHECK(rst.get_next(&rst, &b0) == 0 && b0.release && b0.length == 3);
    if (b0.release)
      b0.release(&b0);
    CHECK(rst.get_next(&rst, &b0) == 0 && b0.release == NULL);
    CHECK(rst.get_last_error(&rst) == NULL);
    rst.release(&rst);
  }

  /* errors: position, code, no crash */
  int rc = laminar_execute(db, "SELECT nope FROM totals", NULL, &err);
  CHECK(rc == LAMINAR_ERR_BIND);
  CHECK(err.line == 1 && err.column == 8);
  CHECK(strstr(err.message, "nope") != NULL);
  /* a NULL error pointer is allowed everywhere */
  CHECK(laminar_execute(db, "SELECT nope FROM totals", NULL, NULL) ==
        LAMINAR_ERR_BIND);
  CHECK(laminar_execute(db, "CREATE SINK k FROM nowhere", NULL, NULL) ==
        LAMINAR_ERR_NOTFOUND);
  rc = laminar_execute(db, "SELEC 1", NULL, &err);
  CHECK(rc == LAMINAR_ERR_PARSE && err.line == 1 && err.column == 1);
  make_batch(&parent, &c0, &c1, kids);
  rc = laminar_push_arrow(db, "no_such_source", &parent, &root, &err);
  CHECK(rc == LAMINAR_ERR_NOTFOUND);
  CHECK(parent.release == NULL); /* released even on error */

  laminar_unsubscribe(sub);
  OK(laminar_close(db, &err));
  /* every producer buffer given back exactly once per push */
  CHECK(released_parent == 4);
  CHECK(released_children == 8);
  CHECK(released_schema == 0); /* schemas are borrowed */
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("test_api: OK\n");
  return failures ? 1 : 0;
}
