/*
 * tests/unit/test_ipc.c — Arrow IPC reader/writer: round trips of every
 * supported type (NULLs, slices, empty batches, several batches, both
 * formats, 8/64 alignment, compression, custom metadata), a file written by
 * another implementation (../shared/data/flights-200k.arrow), and hostile
 * inputs (truncation at every byte, bit flips, huge lengths, deep nesting,
 * a footer pointing outside the file) that must fail with a byte offset.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "format/flatbuf.h"
#include "format/format_internal.h"
#include "format/lm_ipc.h"
#include "lm_test.h"

static void dump(lm_buf *o, const lm_batch *b) {
  for (int64_t i = 0; i < b->num_rows; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      lm_array_format_value(o, b->columns[c], i, "NULL");
      lm_buf_putc(o, '|');
    }
    lm_buf_putc(o, '\n');
  }
}

static lm_schema *all_types_schema(void) {
  lm_schema *s = lm_schema_new(12);
  lm_type tms = lm_type_make(LM_TYPE_TIMESTAMP), tns = tms, ts = tms;
  tms.unit = LM_UNIT_MILLI;
  tns.unit = LM_UNIT_NANO;
  ts.unit = LM_UNIT_SECOND;
  lm_schema_set_field(s, 0, "b", lm_type_make(LM_TYPE_BOOL), true);
  lm_schema_set_field(s, 1, "i8", lm_type_make(LM_TYPE_INT8), true);
  lm_schema_set_field(s, 2, "i16", lm_type_make(LM_TYPE_INT16), true);
  lm_schema_set_field(s, 3, "i32", lm_type_make(LM_TYPE_INT32), true);
  lm_schema_set_field(s, 4, "i64", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 5, "f32", lm_type_make(LM_TYPE_FLOAT32), true);
  lm_schema_set_field(s, 6, "f64", lm_type_make(LM_TYPE_FLOAT64), true);
  lm_schema_set_field(s, 7, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 8, "ts_ms", tms, true);
  lm_schema_set_field(s, 9, "ts_ns", tns, true);
  lm_schema_set_field(s, 10, "iv", lm_type_make(LM_TYPE_INTERVAL), true);
  lm_schema_set_field(s, 11, "nothing", lm_type_make(LM_TYPE_NULL), true);
  (void)ts;
  return s;
}

static lm_batch *all_types_batch(lm_schema *s, int64_t n, int seed) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, n))
    return NULL;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = i + seed;
    bool null = (k % 5) == 3;
    for (int c = 0; c < s->n_fields; c++) {
      lm_builder *b = &bb.cols[c];
      if ((null && c != 4) || c == 11) {
        lm_builder_append_null(b);
        continue;
      }
      switch (s->fields[c].type.id) {
      case LM_TYPE_BOOL:
        lm_builder_append_bool(b, k % 3 == 0);
        break;
      case LM_TYPE_FLOAT32:
      case LM_TYPE_FLOAT64:
        lm_builder_append_double(b, (double)k * 1.25 - 3.5);
        break;
      case LM_TYPE_UTF8: {
        char t[32];
        int len =
            k % 7 == 0 ? 0 : snprintf(t, sizeof t, "v%lld-é", (long long)k);
        lm_builder_append_str(b, t, len);
        break;
      }
      case LM_TYPE_INT8:
        lm_builder_append_int(b, (k % 250) - 125);
        break;
      default:
        lm_builder_append_int(b, k * 1000003 - 77);
        break;
      }
    }
  }
  lm_batch *out = NULL;
  lm_batch_builder_finish(&bb, &out, NULL);
  lm_batch_builder_free(&bb);
  return out;
}

/* lm_ipc_sink_fn collecting into an lm_buf; pieces are counted. */
static int g_pieces;
static int buf_sink(void *ctx, const struct iovec *iov, int n, lm_error *err) {
  (void)err;
  for (int i = 0; i < n; i++)
    if (lm_buf_append(ctx, iov[i].iov_base, iov[i].iov_len))
      return LM_ERR_NOMEM;
  g_pieces += n;
  return 0;
}

static int fail_sink(void *ctx, const struct iovec *iov, int n, lm_error *err) {
  (void)ctx;
  (void)iov;
  (void)n;
  return lm_err(err, LM_ERR_IO, "sink: write: Broken pipe");
}

/* The sink writer (gathered bodies) produces exactly `want`; a stream
 * `want` read through reserve/commit (max bytes per read: 1, 13, 1 MiB)
 * gives the batches of `in`. */
static void check_sink_and_direct(lm_schema *s, const lm_batch *const *in,
                                  int n, bool file,
                                  const lm_ipc_write_options *o,
                                  const lm_buf *want) {
  lm_buf got;
  lm_buf_init(&got);
  lm_ipc_writer *w;
  lm_error err = {0};
  CHECK_EQ_I64(lm_ipc_writer_new_sink(s, file, o, buf_sink, &got, &w, &err), 0);
  for (int i = 0; i < n; i++)
    CHECK_EQ_I64(lm_ipc_writer_write(w, in[i], &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
  lm_ipc_writer_free(w);
  CHECK_EQ_I64((int64_t)got.len, (int64_t)want->len);
  CHECK(got.len == want->len && memcmp(got.data, want->data, got.len) == 0);
  lm_buf_free(&got);
  /* a failing sink: the error is returned and repeated */
  if (n > 0) {
    int frc = lm_ipc_writer_new_sink(s, file, o, fail_sink, NULL, &w, &err);
    CHECK_EQ_I64(frc, LM_ERR_IO);
    if (frc != LM_ERR_IO)
      fprintf(stderr, "fail_sink: %d %s\n", frc, err.msg);
    CHECK(w == NULL && strstr(err.msg, "Broken pipe") != NULL);
  }
  if (file)
    return;
  static const size_t maxes[3] = {1, 13, (size_t)1 << 20};
  for (int m = 0; m < 3; m++) {
    lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "direct");
    lm_ipc_stream_reader_keep_dictionaries(r, true);
    size_t at = 0;
    int rc = 0, k = 0;
    while (rc == 0 && at < want->len) {
      void *p;
      size_t room;
      rc = lm_ipc_stream_reader_reserve(r, maxes[m], &p, &room, &err);
      if (rc)
        break;
      CHECK(room >= 1 && room <= maxes[m]);
      size_t take = LM_MIN(room, want->len - at);
      memcpy(p, want->data + at, take);
      at += take;
      rc = lm_ipc_stream_reader_commit(r, take, &err);
      lm_batch *b;
      while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
        CHECK(k < n && b->num_rows == in[k]->num_rows);
        k++;
        lm_batch_release(b);
      }
    }
    if (rc == 0)
      rc = lm_ipc_stream_reader_finish(r, &err);
    CHECK_EQ_I64(rc, 0);
    if (rc)
      fprintf(stderr, "direct read: %s\n", err.msg);
    CHECK_EQ_I64(k, n);
    CHECK(lm_ipc_stream_reader_done(r));
    lm_ipc_stream_reader_free(r);
  }
}

/* Writes batches, reads them back with the file and/or stream reader and
 * compares the dumps. */
static bool g_dict; /* roundtrip() with dictionary_encode_utf8 */
static void roundtrip(lm_schema *s, lm_batch **bs, int n, bool file, int align,
                      int comp, bool meta) {
  lm_buf out, want, got;
  lm_buf_init(&out);
  lm_buf_init(&want);
  lm_buf_init(&got);
  lm_error err;
  lm_ipc_kv kv[2] = {{"origin", "laminar"}, {"ARROW:x", "y=1"}};
  lm_ipc_write_options o = {align, comp, meta ? 2 : 0, kv, g_dict, 0, NULL};
  lm_ipc_writer *w;
  CHECK(lm_ipc_writer_new(s, file, &o, &out, &w, &err) == 0);
  for (int i = 0; i < n; i++) {
    CHECK(lm_ipc_writer_write(w, bs[i], &err) == 0);
    dump(&want, bs[i]);
  }
  CHECK(lm_ipc_writer_finish(w, &err) == 0);
  lm_ipc_writer_free(w);
  check_sink_and_direct(s, (const lm_batch *const *)bs, n, file, &o, &out);
  const lm_ipc_kv *rkv = NULL;
  int nkv;
  if (file) {
    lm_buffer *owner = lm_buffer_new(out.len);
    memcpy(owner->data, out.data, out.len);
    lm_ipc_file_reader *r;
    int rc = lm_ipc_file_open_memory(owner->data, owner->size, owner, NULL,
                                     "t.arrow", &r, &err);
    lm_buffer_release(owner);
    CHECK(rc == 0);
    if (rc) {
      fprintf(stderr, "%s\n", err.msg);
      goto done;
    }
    CHECK_EQ_I64(lm_ipc_file_num_batches(r), n);
    lm_batch *b;
    lm_batch *keep = NULL;
    while ((rc = lm_ipc_file_next(r, &b, &err)) == 0 && b) {
      dump(&got, b);
      if (!keep)
        keep = b;
      else
        lm_batch_release(b);
    }
    CHECK(rc == 0);
    if (rc)
      fprintf(stderr, "%s\n", err.msg);
    nkv = lm_ipc_file_metadata(r, &rkv);
    CHECK_EQ_I64(nkv, meta ? 2 : 0);
    if (nkv == 2)
      CHECK_EQ_STR(rkv[1].value, "y=1");
    CHECK(lm_schema_find(lm_ipc_file_schema(r), "s") == 7 || s->n_fields < 8);
    lm_ipc_file_reader_free(r);
    /* batches outlive the reader (zero-copy buffers hold the memory) */
    if (keep) {
      lm_buf again;
      lm_buf_init(&again);
      dump(&again, keep);
      CHECK(again.len <= got.len &&
            memcmp(again.data ? again.data : "", got.data ? got.data : "",
                   again.len) == 0);
      lm_buf_free(&again);
      lm_batch_release(keep);
    }
    /* the file also reads as a stream after its 8-byte magic */
  } else {
    /* feed in pieces of 7 bytes */
    lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "t.arrows");
    int rc = 0;
    for (size_t p = 0; p < out.len && rc == 0; p += 7)
      rc = lm_ipc_stream_reader_feed(r, out.data + p, LM_MIN(7, out.len - p),
                                     &err);
    if (rc == 0)
      rc = lm_ipc_stream_reader_finish(r, &err);
    CHECK(rc == 0);
    if (rc)
      fprintf(stderr, "%s\n", err.msg);
    CHECK(lm_ipc_stream_reader_done(r));
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
      dump(&got, b);
      lm_batch_release(b);
    }
    nkv = lm_ipc_stream_reader_metadata(r, &rkv);
    CHECK_EQ_I64(nkv, meta ? 2 : 0);
    if (nkv == 2)
      CHECK_EQ_STR(rkv[0].key, "origin");
    lm_ipc_stream_reader_free(r);
  }
  CHECK_EQ_STR(got.data ? got.data : "", want.data ? want.data : "");
done:
  lm_buf_free(&out);
  lm_buf_free(&want);
  lm_buf_free(&got);
}

static void test_roundtrips(void) {
  lm_schema *s = all_types_schema();
  lm_batch *full = all_types_batch(s, 100, 0);
  lm_batch *b2 = all_types_batch(s, 37, 11);
  lm_batch *empty = all_types_batch(s, 0, 0);
  lm_batch *slice = lm_batch_slice(full, 3, 50);
  lm_batch *slice2 = lm_batch_slice(full, 17, 0);
  CHECK(full && b2 && empty && slice && slice2);
  lm_batch *set[] = {full, slice, empty, b2, slice2};
  int comps[] = {LM_IPC_COMPRESS_NONE, LM_IPC_COMPRESS_ZSTD,
                 LM_IPC_COMPRESS_LZ4};
  for (int f = 0; f < 2; f++)
    for (int a = 0; a < 2; a++)
      for (int c = 0; c < 3; c++) {
        roundtrip(s, set, 5, f, a ? 64 : 8, comps[c], c == 0);
        roundtrip(s, set + 2, 1, f, a ? 64 : 8, comps[c], false);
        roundtrip(s, set, 0, f, a ? 64 : 8, comps[c], true);
      }
  lm_batch_release(full);
  lm_batch_release(b2);
  lm_batch_release(empty);
  lm_batch_release(slice);
  lm_batch_release(slice2);
  lm_schema_release(s);
}

static void test_alignment64(void) {
  lm_schema *s = all_types_schema();
  lm_batch *b = all_types_batch(s, 10, 0);
  lm_buf out;
  lm_buf_init(&out);
  lm_ipc_write_options o = {64, 0, 0, NULL, false, 0, NULL};
  lm_ipc_writer *w;
  lm_error err;
  CHECK(lm_ipc_writer_new(s, false, &o, &out, &w, &err) == 0);
  size_t schema_end = out.len;
  CHECK(lm_ipc_writer_write(w, b, &err) == 0);
  /* metadata length is padded so that the body starts 64-aligned */
  uint32_t L = lm_fb_u32((const uint8_t *)out.data + schema_end + 4);
  CHECK_EQ_I64((schema_end + 8 + L) % 64, 0);
  lm_ipc_writer_free(w);
  lm_buf_free(&out);
  lm_batch_release(b);
  lm_schema_release(s);
}

static void test_flights(void) {
  lm_ipc_file_reader *r;
  lm_error err;
  int rc =
      lm_ipc_file_open("../shared/data/flights-200k.arrow", NULL, &r, &err);
  CHECK(rc == 0);
  if (rc) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  lm_schema *s = lm_ipc_file_schema(r);
  CHECK_EQ_I64(s->n_fields, 3);
  CHECK_EQ_I64(lm_ipc_file_num_batches(r), 1);
  int di = lm_schema_find(s, "delay"), dist = lm_schema_find(s, "distance"),
      ti = lm_schema_find(s, "time");
  CHECK(di >= 0 && dist >= 0 && ti >= 0);
  if (di < 0 || dist < 0 || ti < 0) {
    lm_ipc_file_reader_free(r);
    return;
  }
  CHECK(s->fields[di].type.id == LM_TYPE_INT16);
  CHECK(s->fields[dist].type.id == LM_TYPE_INT16);
  CHECK(s->fields[ti].type.id == LM_TYPE_FLOAT32);
  lm_batch *b;
  rc = lm_ipc_file_next(r, &b, &err);
  CHECK(rc == 0 && b);
  if (b) {
    CHECK_EQ_I64(b->num_rows, 200000);
    /* sanity: distances positive, times within a day */
    int64_t bad = 0, sum = 0;
    for (int64_t i = 0; i < b->num_rows; i++) {
      int64_t d = lm_array_get_i64(b->columns[dist], i);
      double t = lm_array_get_f64(b->columns[ti], i);
      if (d <= 0 || t < 0 || t > 24.5)
        bad++;
      sum += lm_array_get_i64(b->columns[di], i);
    }
    CHECK_EQ_I64(bad, 0);
    printf("flights-200k.arrow: row 0 delay=%lld distance=%lld time=%g; "
           "delay sum %lld\n",
           (long long)lm_array_get_i64(b->columns[di], 0),
           (long long)lm_array_get_i64(b->columns[dist], 0),
           lm_array_get_f64(b->columns[ti], 0), (long long)sum);
    lm_batch_release(b);
  }
  rc = lm_ipc_file_next(r, &b, &err);
  CHECK(rc == 0 && !b);
  lm_ipc_file_reader_free(r);
}

/* Reads buf as a file and as a stream; returns nonzero on error (which must
 * carry "byte "). */
static int try_read(const uint8_t *p, size_t n, bool file, lm_error *err) {
  int rc;
  if (file) {
    lm_ipc_file_reader *r;
    /* copy so that ASan sees reads past the end */
    uint8_t *cp = malloc(n ? n : 1);
    memcpy(cp, p, n);
    rc = lm_ipc_file_open_memory(cp, n, NULL, NULL, "h.arrow", &r, err);
    if (rc == 0) {
      lm_batch *b;
      while ((rc = lm_ipc_file_next(r, &b, err)) == 0 && b)
        lm_batch_release(b);
      lm_ipc_file_reader_free(r);
    }
    free(cp);
  } else {
    lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "h.arrows");
    rc = lm_ipc_stream_reader_feed(r, p, n, err);
    if (rc == 0)
      rc = lm_ipc_stream_reader_finish(r, err);
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(r)) != NULL)
      lm_batch_release(b);
    lm_ipc_stream_reader_free(r);
  }
  return rc;
}

static void small_file(lm_buf *out, bool file) {
  lm_schema *s = all_types_schema();
  lm_batch *b = all_types_batch(s, 9, 1);
  lm_ipc_writer *w;
  lm_ipc_kv kv = {"k", "v"};
  lm_ipc_write_options o = {8, 0, 1, &kv, false, 0, NULL};
  lm_ipc_writer_new(s, file, &o, out, &w, NULL);
  lm_ipc_kv mkv = {"mk", "mv"}; /* message custom_metadata too */
  lm_ipc_writer_write_metadata(w, b, &mkv, 1, NULL);
  lm_ipc_writer_finish(w, NULL);
  lm_ipc_writer_free(w);
  lm_batch_release(b);
  lm_schema_release(s);
}

static void test_hostile(void) {
  for (int file = 0; file < 2; file++) {
    lm_buf out;
    lm_buf_init(&out);
    small_file(&out, file);
    const uint8_t *p = (const uint8_t *)out.data;
    lm_error err;
    CHECK(try_read(p, out.len, file, &err) == 0);
    int missing_offset = 0, ok_truncs = 0;
    for (size_t n = 0; n < out.len; n++) {
      int rc = try_read(p, n, file, &err);
      if (rc == 0)
        ok_truncs++;
      else if (!strstr(err.msg, ": byte "))
        missing_offset++;
    }
    /* a stream cut right after its schema or its batch (no EOS) is valid */
    CHECK(ok_truncs <= (file ? 0 : 2));
    CHECK_EQ_I64(missing_offset, 0);
    /* bit flips: every bit of every byte; must not crash; errors name a
     * byte offset */
    uint8_t *cp = malloc(out.len);
    int flips_ok = 0, flips_err = 0;
    for (size_t i = 0; i < out.len; i++)
      for (int bit = 0; bit < 8; bit++) {
        memcpy(cp, p, out.len);
        cp[i] ^= (uint8_t)(1u << bit);
        int rc = try_read(cp, out.len, file, &err);
        if (rc == 0)
          flips_ok++;
        else {
          flips_err++;
          if (!strstr(err.msg, ": byte ")) {
            missing_offset++;
            if (missing_offset < 5)
              fprintf(stderr, "no offset: %s\n", err.msg);
          }
        }
      }
    CHECK_EQ_I64(missing_offset, 0);
    CHECK(flips_err > 0);
    /* huge values written over every aligned int32/int64 */
    const uint64_t huge[] = {0x7FFFFFFFu, 0xFFFFFFF0u, 0x7FFFFFFFFFFFFFFFull,
                             0x8000000000000000ull, 0xFFFFFFFFFFFFFFF8ull};
    for (size_t i = 0; i + 8 <= out.len; i += 4)
      for (size_t h = 0; h < LM_ARRAY_LEN(huge); h++) {
        memcpy(cp, p, out.len);
        memcpy(cp + i, &huge[h], h < 2 ? 4 : 8);
        if (try_read(cp, out.len, file, &err) != 0 &&
            !strstr(err.msg, ": byte "))
          missing_offset++;
      }
    CHECK_EQ_I64(missing_offset, 0);
    if (file) {
      /* footer length pointing outside the file */
      memcpy(cp, p, out.len);
      int32_t big = (int32_t)out.len;
      memcpy(cp + out.len - 10, &big, 4);
      CHECK(try_read(cp, out.len, true, &err) == LM_ERR_PARSE);
      CHECK(strstr(err.msg, "footer length") != NULL);
    } else {
      /* a negative metadata length, then a huge one */
      uint8_t neg[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x80};
      CHECK(try_read(neg, 8, false, &err) == LM_ERR_PARSE);
      CHECK(strstr(err.msg, "byte 0: negative metadata length") != NULL);
      uint8_t big[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
      CHECK(try_read(big, 8, false, &err) == LM_ERR_LIMIT);
    }
    free(cp);
    lm_buf_free(&out);
  }
}

/* A schema message whose field nests 100 levels deep (a List chain). */
static void test_deep_nesting(void) {
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref child = 0;
  for (int d = 0; d < 100; d++) {
    lm_fb_ref kids = lm_fb_create_ref_vector(&b, &child, d ? 1 : 0);
    lm_fb_ref name = lm_fb_create_string(&b, "x", 1);
    lm_fb_table_start(&b);
    lm_fb_table_end(&b);
    lm_fb_table_start(&b);
    lm_fb_ref type = lm_fb_table_end(&b);
    lm_fb_table_start(&b);
    lm_fb_add_ref(&b, 0, name);
    lm_fb_add_u8(&b, 2, 12 /* List */);
    lm_fb_add_ref(&b, 3, type);
    lm_fb_add_ref(&b, 5, kids);
    child = lm_fb_table_end(&b);
  }
  lm_fb_ref fields = lm_fb_create_ref_vector(&b, &child, 1);
  lm_fb_table_start(&b);
  lm_fb_add_ref(&b, 1, fields);
  lm_fb_ref schema = lm_fb_table_end(&b);
  lm_fb_table_start(&b);
  lm_fb_add_i16(&b, 0, 4);
  lm_fb_add_u8(&b, 1, 1);
  lm_fb_add_ref(&b, 2, schema);
  lm_fb_ref msg = lm_fb_table_end(&b);
  const uint8_t *fb;
  size_t n;
  CHECK(lm_fb_finish(&b, msg, &fb, &n) == 0);
  lm_buf s;
  lm_buf_init(&s);
  uint32_t pre[2] = {0xFFFFFFFFu, (uint32_t)n};
  lm_buf_append(&s, pre, 8);
  lm_buf_append(&s, fb, n);
  lm_error err;
  int rc = try_read((const uint8_t *)s.data, s.len, false, &err);
  CHECK_EQ_I64(rc, LM_ERR_LIMIT);
  CHECK(strstr(err.msg, "nested deeper") != NULL);
  lm_buf_free(&s);
  lm_fb_builder_free(&b);
}

static void test_unsupported(void) {
  /* a Date(MILLISECOND) column (Date64) */
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref name = lm_fb_create_string(&b, "u", 1);
  lm_fb_table_start(&b);
  lm_fb_add_i16(&b, 0, 1);
  lm_fb_ref type = lm_fb_table_end(&b);
  lm_fb_table_start(&b);
  lm_fb_add_ref(&b, 0, name);
  lm_fb_add_u8(&b, 2, 8);
  lm_fb_add_ref(&b, 3, type);
  lm_fb_ref field = lm_fb_table_end(&b);
  lm_fb_ref fields = lm_fb_create_ref_vector(&b, &field, 1);
  lm_fb_table_start(&b);
  lm_fb_add_ref(&b, 1, fields);
  lm_fb_ref schema = lm_fb_table_end(&b);
  lm_fb_table_start(&b);
  lm_fb_add_i16(&b, 0, 4);
  lm_fb_add_u8(&b, 1, 1);
  lm_fb_add_ref(&b, 2, schema);
  lm_fb_ref msg = lm_fb_table_end(&b);
  const uint8_t *fb;
  size_t n;
  lm_fb_finish(&b, msg, &fb, &n);
  lm_buf s;
  lm_buf_init(&s);
  uint32_t pre[2] = {0xFFFFFFFFu, (uint32_t)n};
  lm_buf_append(&s, pre, 8);
  lm_buf_append(&s, fb, n);
  lm_error err;
  CHECK_EQ_I64(try_read((const uint8_t *)s.data, s.len, false, &err),
               LM_ERR_PARSE);
  CHECK(strstr(err.msg, "unsupported Arrow type Date64 in column 'u'") != NULL);
  lm_buf_free(&s);
  lm_fb_builder_free(&b);
}

/* ------------------------------------------------ dictionary-encoded input */

/* A hand-built stream or file with one dictionary-encoded Utf8 column "d"
 * (dictionary id 7, index type Int(bits, sign)). */
typedef struct hb {
  lm_buf out;
  lm_buf dblk, rblk; /* Blocks (offset, meta, body) as int64 triples */
  bool file;
  int bits;
  bool sign;
} hb;

static lm_fb_ref hb_schema(lm_fb_builder *b, const hb *h) {
  lm_fb_ref name = lm_fb_create_string(b, "d", 1);
  lm_fb_table_start(b);
  lm_fb_ref utf8 = lm_fb_table_end(b);
  lm_fb_table_start(b);
  lm_fb_add_i32(b, 0, h->bits);
  lm_fb_add_u8(b, 1, h->sign);
  lm_fb_ref it = lm_fb_table_end(b);
  lm_fb_table_start(b);
  lm_fb_add_i64(b, 0, 7);
  lm_fb_add_ref(b, 1, it);
  lm_fb_ref de = lm_fb_table_end(b);
  lm_fb_table_start(b);
  lm_fb_add_ref(b, 0, name);
  lm_fb_add_u8(b, 1, 1);
  lm_fb_add_u8(b, 2, 5 /* Utf8 */);
  lm_fb_add_ref(b, 3, utf8);
  lm_fb_add_ref(b, 4, de);
  lm_fb_ref field = lm_fb_table_end(b);
  lm_fb_ref fields = lm_fb_create_ref_vector(b, &field, 1);
  lm_fb_table_start(b);
  lm_fb_add_ref(b, 1, fields);
  return lm_fb_table_end(b);
}

/* Appends a message (header built in b) with its body. */
static void hb_msg(hb *h, lm_fb_builder *b, uint8_t type, lm_fb_ref hdr,
                   const lm_buf *body, lm_buf *blocks) {
  lm_fb_table_start(b);
  lm_fb_add_i16(b, 0, 4);
  lm_fb_add_u8(b, 1, type);
  lm_fb_add_ref(b, 2, hdr);
  lm_fb_add_i64(b, 3, body ? (int64_t)body->len : 0);
  lm_fb_ref msg = lm_fb_table_end(b);
  const uint8_t *fb;
  size_t n;
  CHECK(lm_fb_finish(b, msg, &fb, &n) == 0);
  int64_t blk[3] = {(int64_t)h->out.len, (int64_t)n + 8,
                    body ? (int64_t)body->len : 0};
  uint32_t pre[2] = {0xFFFFFFFFu, (uint32_t)n};
  lm_buf_append(&h->out, pre, 8);
  lm_buf_append(&h->out, fb, n);
  if (body && body->len)
    lm_buf_append(&h->out, body->data, body->len);
  if (blocks)
    lm_buf_append(blocks, blk, sizeof blk);
  lm_fb_builder_free(b);
}

static void hb_begin(hb *h, bool file, int bits, bool sign) {
  memset(h, 0, sizeof *h);
  lm_buf_init(&h->out);
  lm_buf_init(&h->dblk);
  lm_buf_init(&h->rblk);
  h->file = file;
  h->bits = bits;
  h->sign = sign;
  if (file)
    lm_buf_append(&h->out, "ARROW1\0\0", 8);
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  hb_msg(h, &b, 1, hb_schema(&b, h), NULL, NULL);
}

static void pad8(lm_buf *b) {
  while (b->len % 8)
    lm_buf_putc(b, 0);
}

/* RecordBatch table over the buffers (offset, length pairs). */
static lm_fb_ref hb_rb(lm_fb_builder *b, int64_t n, int64_t nulls,
                       const int64_t *bufs, int nb) {
  int64_t node[2] = {n, nulls};
  lm_fb_ref nodes = lm_fb_create_vector(b, node, 1, 16, 8);
  lm_fb_ref bv = lm_fb_create_vector(b, bufs, (size_t)nb, 16, 8);
  lm_fb_table_start(b);
  lm_fb_add_i64(b, 0, n);
  lm_fb_add_ref(b, 1, nodes);
  lm_fb_add_ref(b, 2, bv);
  return lm_fb_table_end(b);
}

/* A DictionaryBatch (id, isDelta) of n strings. */
static void hb_dict(hb *h, int64_t id, bool delta, const char *const *v,
                    int n) {
  lm_buf body;
  lm_buf_init(&body);
  int32_t o = 0;
  lm_buf_append(&body, &o, 4);
  for (int i = 0; i < n; i++) {
    o += (int32_t)strlen(v[i]);
    lm_buf_append(&body, &o, 4);
  }
  size_t data_at = (pad8(&body), body.len);
  for (int i = 0; i < n; i++)
    lm_buf_append(&body, v[i], strlen(v[i]));
  int64_t dlen = (int64_t)(body.len - data_at);
  pad8(&body);
  int64_t bufs[6] = {0, 0, 0, (int64_t)(n + 1) * 4, (int64_t)data_at, dlen};
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref rb = hb_rb(&b, n, 0, bufs, 3);
  lm_fb_table_start(&b);
  lm_fb_add_i64(&b, 0, id);
  lm_fb_add_ref(&b, 1, rb);
  if (delta)
    lm_fb_add_u8(&b, 2, 1);
  lm_fb_ref db = lm_fb_table_end(&b);
  hb_msg(h, &b, 2, db, &body, &h->dblk);
  lm_buf_free(&body);
}

/* A RecordBatch of n indices; INT64_MIN = NULL. */
static void hb_batch(hb *h, const int64_t *idx, int n) {
  lm_buf body;
  lm_buf_init(&body);
  uint8_t bits[16] = {0};
  int nulls = 0;
  for (int i = 0; i < n; i++) {
    if (idx[i] != INT64_MIN)
      bits[i / 8] |= (uint8_t)(1u << (i % 8));
    else
      nulls++;
  }
  lm_buf_append(&body, bits, (size_t)(n + 7) / 8);
  pad8(&body);
  size_t vat = body.len;
  for (int i = 0; i < n; i++) {
    int64_t v = idx[i] == INT64_MIN ? 0 : idx[i];
    lm_buf_append(&body, &v, (size_t)h->bits / 8); /* little-endian */
  }
  int64_t vlen = (int64_t)(body.len - vat);
  pad8(&body);
  int64_t bufs[4] = {0, (n + 7) / 8, (int64_t)vat, vlen};
  lm_fb_builder b;
  lm_fb_builder_init(&b);
  lm_fb_ref rb = hb_rb(&b, n, nulls, bufs, 2);
  hb_msg(h, &b, 3, rb, &body, &h->rblk);
  lm_buf_free(&body);
}

static void hb_end(hb *h) {
  uint32_t eos[2] = {0xFFFFFFFFu, 0};
  lm_buf_append(&h->out, eos, 8);
  if (h->file) {
    lm_fb_builder b;
    lm_fb_builder_init(&b);
    lm_fb_ref sch = hb_schema(&b, h);
    lm_fb_ref vecs[2];
    lm_buf *lists[2] = {&h->dblk, &h->rblk};
    for (int k = 0; k < 2; k++) {
      size_t nb = lists[k]->len / 24;
      uint8_t *blk = calloc(nb + 1, 24);
      for (size_t i = 0; i < nb; i++) {
        int64_t t[3];
        memcpy(t, lists[k]->data + i * 24, 24);
        int32_t m = (int32_t)t[1];
        memcpy(blk + i * 24, &t[0], 8);
        memcpy(blk + i * 24 + 8, &m, 4);
        memcpy(blk + i * 24 + 16, &t[2], 8);
      }
      vecs[k] = lm_fb_create_vector(&b, blk, nb, 24, 8);
      free(blk);
    }
    lm_fb_table_start(&b);
    lm_fb_add_i16(&b, 0, 4);
    lm_fb_add_ref(&b, 1, sch);
    lm_fb_add_ref(&b, 2, vecs[0]);
    lm_fb_add_ref(&b, 3, vecs[1]);
    lm_fb_ref footer = lm_fb_table_end(&b);
    const uint8_t *fb;
    size_t n;
    CHECK(lm_fb_finish(&b, footer, &fb, &n) == 0);
    lm_buf_append(&h->out, fb, n);
    uint32_t fl = (uint32_t)n;
    lm_buf_append(&h->out, &fl, 4);
    lm_buf_append(&h->out, "ARROW1", 6);
    lm_fb_builder_free(&b);
  }
  lm_buf_free(&h->dblk);
  lm_buf_free(&h->rblk);
}

/* Reads h's output; returns the rc and the dump of all batches in *got. */
static int hb_read(hb *h, const lm_ipc_limits *lim, lm_buf *got,
                   lm_error *err) {
  int rc;
  lm_buf_reset(got);
  if (h->file) {
    lm_ipc_file_reader *r;
    rc = lm_ipc_file_open_memory(h->out.data, h->out.len, NULL, lim, "d.arrow",
                                 &r, err);
    if (rc == 0) {
      lm_batch *b;
      while ((rc = lm_ipc_file_next(r, &b, err)) == 0 && b) {
        dump(got, b);
        lm_buf_putc(got, ';');
        lm_batch_release(b);
      }
      lm_ipc_file_reader_free(r);
    }
  } else {
    lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(lim, "d.arrows");
    rc = lm_ipc_stream_reader_feed(r, h->out.data, h->out.len, err);
    if (rc == 0)
      rc = lm_ipc_stream_reader_finish(r, err);
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
      dump(got, b);
      lm_buf_putc(got, ';');
      lm_batch_release(b);
    }
    lm_ipc_stream_reader_free(r);
  }
  lm_buf_putc(got, 0);
  return rc;
}

static void test_dictionary_read(void) {
  static const char *const d1[] = {"red", "green", ""};
  static const char *const d2[] = {"blue", "é"};
  static const char *const d3[] = {"cyan"};
  const int widths[] = {8, 16, 32, 64};
  lm_buf got;
  lm_buf_init(&got);
  lm_error err;
  for (int wi = 0; wi < 4; wi++)
    for (int sign = 0; sign < 2; sign++) {
      /* stream: dictionary, batch, delta, batch, replacement, batch */
      hb h;
      hb_begin(&h, false, widths[wi], sign);
      hb_dict(&h, 7, false, d1, 3);
      int64_t i1[] = {0, 1, INT64_MIN, 2, 1};
      hb_batch(&h, i1, 5);
      hb_dict(&h, 7, true, d2, 2);
      int64_t i2[] = {4, 3, 0};
      hb_batch(&h, i2, 3);
      hb_dict(&h, 7, false, d3, 1);
      int64_t i3[] = {0, INT64_MIN};
      hb_batch(&h, i3, 2);
      hb_end(&h);
      int rc = hb_read(&h, NULL, &got, &err);
      CHECK_EQ_I64(rc, 0);
      if (rc)
        fprintf(stderr, "%s\n", err.msg);
      CHECK_EQ_STR(got.data,
                   "red|\ngreen|\nNULL|\n|\ngreen|\n;é|\nblue|\nred|\n;"
                   "cyan|\nNULL|\n;");
      /* index out of range after the replacement: error with its byte */
      lm_buf_free(&h.out);
      hb_begin(&h, false, widths[wi], sign);
      hb_dict(&h, 7, false, d1, 3);
      hb_dict(&h, 7, false, d3, 1);
      int64_t bad[] = {0, INT64_MIN, 1};
      hb_batch(&h, bad, 3);
      size_t last = h.out.len;
      hb_end(&h);
      CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
      CHECK(strstr(err.msg, "dictionary index 1 at row 2 is out of range "
                            "(dictionary 7 has 1 entries)") != NULL);
      /* the byte named is that of index 2 in the last body */
      size_t at = 0;
      CHECK(sscanf(strstr(err.msg, "byte "), "byte %zu", &at) == 1);
      CHECK(at < last && at >= last - 16);
      if (at < last && at + (size_t)widths[wi] / 8 <= h.out.len) {
        int64_t v = 0;
        memcpy(&v, h.out.data + at, (size_t)widths[wi] / 8);
        CHECK_EQ_I64(v, 1);
      }
      lm_buf_free(&h.out);
      if (sign) {
        hb_begin(&h, false, widths[wi], sign);
        hb_dict(&h, 7, false, d1, 3);
        int64_t neg[] = {-1};
        hb_batch(&h, neg, 1);
        hb_end(&h);
        CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
        CHECK(strstr(err.msg, "dictionary index -1 at row 0") != NULL);
      } else {
        /* unsigned: all-ones is a huge index, not -1 */
        hb_begin(&h, false, widths[wi], sign);
        hb_dict(&h, 7, false, d1, 3);
        int64_t big[] = {-1};
        hb_batch(&h, big, 1);
        hb_end(&h);
        CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
        CHECK(strstr(err.msg, "dictionary index -") == NULL &&
              strstr(err.msg, "out of range") != NULL);
      }
      lm_buf_free(&h.out);
      /* file: dictionary + delta in the footer, read at open */
      hb_begin(&h, true, widths[wi], sign);
      hb_dict(&h, 7, false, d1, 3);
      hb_batch(&h, i1, 5);
      hb_dict(&h, 7, true, d2, 2);
      hb_batch(&h, i2, 3);
      hb_end(&h);
      rc = hb_read(&h, NULL, &got, &err);
      CHECK_EQ_I64(rc, 0);
      if (rc)
        fprintf(stderr, "%s\n", err.msg);
      CHECK_EQ_STR(got.data, "red|\ngreen|\nNULL|\n|\ngreen|\n;é|\nblue|\n"
                             "red|\n;");
      lm_buf_free(&h.out);
    }
  /* file: a replacement is an error */
  hb h;
  hb_begin(&h, true, 32, true);
  hb_dict(&h, 7, false, d1, 3);
  hb_dict(&h, 7, false, d3, 1);
  int64_t i0[] = {0};
  hb_batch(&h, i0, 1);
  hb_end(&h);
  CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
  CHECK(strstr(err.msg, "replacement is not allowed") != NULL);
  lm_buf_free(&h.out);
  /* record batch before its dictionary; unknown id; the size limit */
  hb_begin(&h, false, 32, true);
  hb_batch(&h, i0, 1);
  hb_end(&h);
  CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
  CHECK(strstr(err.msg, "no dictionary with id 7") != NULL);
  lm_buf_free(&h.out);
  hb_begin(&h, false, 32, true);
  hb_dict(&h, 8, false, d1, 3);
  hb_end(&h);
  CHECK_EQ_I64(hb_read(&h, NULL, &got, &err), LM_ERR_PARSE);
  CHECK(strstr(err.msg, "id 8, which no column uses") != NULL);
  lm_buf_free(&h.out);
  hb_begin(&h, false, 32, true);
  hb_dict(&h, 7, false, d1, 3);
  hb_dict(&h, 7, true, d2, 2);
  hb_end(&h);
  lm_ipc_limits lim;
  memset(&lim, 0, sizeof lim);
  lim.max_dictionary_entries = 4;
  CHECK_EQ_I64(hb_read(&h, &lim, &got, &err), LM_ERR_LIMIT);
  CHECK(strstr(err.msg, "would hold 5 entries, more than the limit of 4") !=
        NULL);
  CHECK(strstr(err.msg, ": byte ") != NULL);
  /* hostile: truncation at every byte and every bit flip of this stream
   * (plus a batch) must fail cleanly (ASan) with an offset */
  int64_t i4[] = {4, INT64_MIN, 0};
  lm_buf_free(&h.out);
  for (int file = 0; file < 2; file++) {
    hb_begin(&h, file, 16, false);
    hb_dict(&h, 7, false, d1, 3);
    hb_dict(&h, 7, true, d2, 2);
    hb_batch(&h, i4, 3);
    hb_end(&h);
    CHECK_EQ_I64(try_read((const uint8_t *)h.out.data, h.out.len, file, &err),
                 0);
    int missing = 0;
    for (size_t n = 0; n < h.out.len; n++)
      if (try_read((const uint8_t *)h.out.data, n, file, &err) != 0 &&
          !strstr(err.msg, ": byte "))
        missing++;
    uint8_t *cp = malloc(h.out.len);
    for (size_t i = 0; i < h.out.len; i++)
      for (int bit = 0; bit < 8; bit++) {
        memcpy(cp, h.out.data, h.out.len);
        cp[i] ^= (uint8_t)(1u << bit);
        if (try_read(cp, h.out.len, file, &err) != 0 &&
            !strstr(err.msg, ": byte ")) {
          if (missing++ < 3)
            fprintf(stderr, "no offset: %s\n", err.msg);
        }
      }
    free(cp);
    CHECK_EQ_I64(missing, 0);
    lm_buf_free(&h.out);
  }
  lm_buf_free(&got);
}

/* The writer's dictionary_encode_utf8: the round trips again, plus the
 * size win on repetitive strings. */
static void test_dictionary_write(void) {
  g_dict = true;
  test_roundtrips();
  g_dict = false;
  lm_schema *s = lm_schema_new(1);
  lm_schema_set_field(s, 0, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, 1000);
  for (int i = 0; i < 1000; i++)
    lm_builder_append_str(&bb.cols[0], i % 3 ? "a-rather-long-value" : "x",
                          i % 3 ? 19 : 1);
  lm_batch *b;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  size_t sizes[2];
  for (int d = 0; d < 2; d++) {
    lm_buf out;
    lm_buf_init(&out);
    lm_ipc_write_options o = {8, 0, 0, NULL, d == 1, 0, NULL};
    lm_ipc_writer *w;
    CHECK(lm_ipc_writer_new(s, false, &o, &out, &w, NULL) == 0);
    CHECK(lm_ipc_writer_write(w, b, NULL) == 0);
    CHECK(lm_ipc_writer_write(w, b, NULL) == 0);
    CHECK(lm_ipc_writer_finish(w, NULL) == 0);
    lm_ipc_writer_free(w);
    sizes[d] = out.len;
    lm_buf_free(&out);
  }
  CHECK(sizes[1] < sizes[0] / 3);
  lm_batch_release(b);
  lm_schema_release(s);
}

/* ----------------------------------------------- the other Arrow types */

static void text_of(lm_buf *out, const lm_batch *b) {
  for (int c = 0; c < b->num_columns; c++)
    for (int64_t i = 0; i < b->num_rows; i++) {
      lm_array_format_value(out, b->columns[c], i, "<null>");
      lm_buf_putc(out, '|');
    }
}

/* 6 rows: UINT64, FLOAT16, DECIMAL128(12,4), LIST<INT32>, STRUCT<a BIGINT,
 * b BYTEA>, DICTIONARY<UINT8, VARCHAR>, TIME32(ms). */
static lm_batch *arrow_types_batch(void) {
  enum { N = 6, NC = 7 };
  lm_array *cols[NC];
  lm_builder b;
  lm_type flat[3] = {lm_type_make(LM_TYPE_UINT64),
                     lm_type_make(LM_TYPE_FLOAT16),
                     lm_type_unit(LM_TYPE_TIME32, LM_UNIT_MILLI)};
  int at[3] = {0, 1, 6};
  for (int k = 0; k < 3; k++) {
    lm_builder_init(&b, flat[k], N);
    for (int i = 0; i < N; i++) {
      if (i == 2 + k)
        lm_builder_append_null(&b);
      else if (k == 1)
        lm_builder_append_double(&b, i * 0.75 - 1);
      else
        lm_builder_append_int(&b, k == 0 ? -1 - i : i * 3723004);
    }
    lm_builder_finish(&b, &cols[at[k]]);
    lm_builder_free(&b);
  }
  lm_buffer *dv = lm_buffer_new(N * 16);
  for (int i = 0; i < N; i++) {
    int64_t lo = (i - 2) * INT64_C(98765432101), hi = lo < 0 ? -1 : 0;
    memcpy(dv->data + i * 16, &lo, 8);
    memcpy(dv->data + i * 16 + 8, &hi, 8);
  }
  cols[2] = lm_array_new(lm_type_decimal128(12, 4), N, 0, 0, NULL, dv, NULL, 0,
                         NULL, NULL);
  /* LIST<INT32>: items 0..8 */
  lm_builder_init(&b, lm_type_make(LM_TYPE_INT32), 9);
  for (int i = 0; i < 9; i++)
    i == 4 ? lm_builder_append_null(&b) : lm_builder_append_int(&b, i * 11);
  lm_array *items;
  lm_builder_finish(&b, &items);
  lm_builder_free(&b);
  lm_type_field it = {"item", items->type, true, NULL};
  lm_type lt;
  lm_type_list(LM_TYPE_LIST, &it, &lt);
  int32_t offs[N + 1] = {0, 2, 2, 5, 6, 6, 9};
  lm_buffer *ob = lm_buffer_new(sizeof offs);
  memcpy(ob->data, offs, sizeof offs);
  lm_buffer *lv = lm_buffer_new(1);
  lv->data[0] = 0x3B; /* row 2 NULL */
  cols[3] = lm_array_new(lt, N, 1, 0, lv, ob, NULL, 1, &items, NULL);
  /* STRUCT<a BIGINT, b BYTEA> */
  lm_builder_init(&b, lm_type_make(LM_TYPE_INT64), N);
  lm_builder bb;
  lm_builder_init(&bb, lm_type_make(LM_TYPE_BINARY), N);
  for (int i = 0; i < N; i++) {
    lm_builder_append_int(&b, i * -1000);
    i == 1 ? lm_builder_append_null(&bb)
           : lm_builder_append_str(&bb, &"\x00\x01\xfe\xff"[i % 4], i % 3);
  }
  lm_array *sk[2];
  lm_builder_finish(&b, &sk[0]);
  lm_builder_finish(&bb, &sk[1]);
  lm_builder_free(&b);
  lm_builder_free(&bb);
  lm_type_field sf[2] = {{"a", sk[0]->type, false, NULL},
                         {"b", sk[1]->type, true, NULL}};
  lm_type st;
  lm_type_struct(2, sf, &st);
  lm_buffer *sv = lm_buffer_new(1);
  sv->data[0] = 0x2F; /* row 4 NULL */
  cols[4] = lm_array_new(st, N, 1, 0, sv, NULL, NULL, 2, sk, NULL);
  /* DICTIONARY<UINT8, VARCHAR> */
  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), 3);
  lm_builder_append_str(&b, "red", 3);
  lm_builder_append_str(&b, "", 0);
  lm_builder_append_str(&b, "blue", 4);
  lm_array *dict;
  lm_builder_finish(&b, &dict);
  lm_builder_free(&b);
  lm_type dt;
  lm_type_dictionary(LM_TYPE_UINT8, dict->type, false, &dt);
  lm_buffer *ix = lm_buffer_new(N);
  uint8_t ixv[N] = {2, 0, 0, 1, 2, 1};
  memcpy(ix->data, ixv, N);
  lm_buffer *xv = lm_buffer_new(1);
  xv->data[0] = 0x37; /* row 3 NULL */
  cols[5] = lm_array_new(dt, N, 1, 0, xv, ix, NULL, 0, NULL, dict);
  lm_schema *s = lm_schema_new(NC);
  const char *names[NC] = {"u64", "f16", "dec", "list", "st", "dict", "t32"};
  for (int c = 0; c < NC; c++)
    lm_schema_set_field(s, c, names[c], cols[c]->type, true);
  return lm_batch_new(s, N, cols);
}

/* Writes the batch, a slice of it and the batch again with another
 * dictionary; reads it back with dictionaries kept and decoded. */
static void test_arrow_types(void) {
  lm_batch *b = arrow_types_batch();
  lm_batch *sl = lm_batch_slice(b, 1, 4);
  /* the same rows with a replaced dictionary ("x", "red", "", "blue") */
  lm_array *d5 = b->columns[5];
  lm_builder sb;
  lm_builder_init(&sb, lm_type_make(LM_TYPE_UTF8), 4);
  lm_builder_append_str(&sb, "x", 1);
  for (int64_t i = 0; i < d5->dictionary->length; i++)
    lm_builder_append_from(&sb, d5->dictionary, i);
  lm_array *nd;
  lm_builder_finish(&sb, &nd);
  lm_builder_free(&sb);
  lm_buffer *ix = lm_buffer_new(6);
  for (int i = 0; i < 6; i++)
    ix->data[i] = (uint8_t)(d5->values->data[i] + 1);
  lm_array *cols[7];
  for (int c = 0; c < 7; c++)
    cols[c] =
        c == 5 ? lm_array_new(d5->type, 6, 1, 0, lm_buffer_retain(d5->validity),
                              ix, NULL, 0, NULL, nd)
               : lm_array_retain(b->columns[c]);
  lm_batch *b2 = lm_batch_new(lm_schema_retain(b->schema), 6, cols);
  const lm_batch *in[3] = {b, sl, b2};
  lm_buf want;
  lm_buf_init(&want);
  for (int k = 0; k < 3; k++)
    text_of(&want, in[k]);
  for (int file = 0; file < 2; file++)
    for (int comp = 0; comp < 3; comp++)
      for (int keep = 0; keep < 2; keep++) {
        lm_buf out, got;
        lm_buf_init(&out);
        lm_buf_init(&got);
        lm_ipc_write_options o = {
            comp == 2 ? 64 : 8, comp, 0, NULL, false, 0, NULL};
        lm_ipc_writer *w;
        lm_error err = {0};
        CHECK_EQ_I64(lm_ipc_writer_new(b->schema, file, &o, &out, &w, &err), 0);
        for (int k = 0; k < 3; k++)
          CHECK_EQ_I64(lm_ipc_writer_write(w, in[k], &err), 0);
        CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
        lm_ipc_writer_free(w);
        check_sink_and_direct(b->schema, in, 3, file, &o, &out);
        int n = 0;
        lm_schema *rs = NULL;
        if (file) {
          lm_ipc_file_reader *r;
          int rc = lm_ipc_file_open_memory(out.data, out.len, NULL, NULL,
                                           "t.arrow", &r, &err);
          CHECK_EQ_I64(rc, 0);
          if (rc) {
            fprintf(stderr, "%s\n", err.msg);
            continue;
          }
          lm_ipc_file_reader_keep_dictionaries(r, keep);
          lm_batch *x;
          while (lm_ipc_file_next(r, &x, &err) == 0 && x) {
            text_of(&got, x);
            n++;
            lm_batch_release(x);
          }
          rs = lm_schema_retain(lm_ipc_file_schema(r));
          lm_ipc_file_reader_free(r);
        } else {
          lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "t.arrows");
          lm_ipc_stream_reader_keep_dictionaries(r, keep);
          int rc = lm_ipc_stream_reader_feed(r, out.data, out.len, &err);
          CHECK_EQ_I64(rc, 0);
          if (rc)
            fprintf(stderr, "%s\n", err.msg);
          lm_batch *x;
          while ((x = lm_ipc_stream_reader_next(r)) != NULL) {
            text_of(&got, x);
            n++;
            lm_batch_release(x);
          }
          rs = lm_schema_retain(lm_ipc_stream_reader_schema(r));
          lm_ipc_stream_reader_free(r);
        }
        CHECK_EQ_I64(n, 3);
        CHECK(got.len == want.len && !memcmp(got.data, want.data, want.len));
        if (rs) {
          for (int c = 0; c < 7; c++) {
            lm_type t = b->schema->fields[c].type;
            if (c == 5 && !keep)
              t = lm_type_make(LM_TYPE_UTF8);
            CHECK(lm_type_eq(rs->fields[c].type, t));
          }
          lm_schema_release(rs);
        }
        lm_buf_free(&got);
        /* hostile input: every truncation, and a bit flip at every byte,
         * of the uncompressed files */
        if (comp == 0 && keep == 0) {
          const uint8_t *p = (const uint8_t *)out.data;
          for (size_t cut = 0; cut < out.len; cut += 7) {
            lm_error e = {0};
            if (try_read(p, cut, file, &e) != 0)
              CHECK(strstr(e.msg, "byte ") != NULL || cut < 8);
          }
          uint8_t *cp = malloc(out.len);
          for (size_t i = 0; i < out.len; i++) {
            memcpy(cp, p, out.len);
            cp[i] ^= (uint8_t)(1u << (i % 8));
            lm_error e = {0};
            try_read(cp, out.len, file, &e);
          }
          free(cp);
        }
        lm_buf_free(&out);
      }
  lm_buf_free(&want);
  lm_batch_release(b2);
  lm_batch_release(sl);
  lm_batch_release(b);
}

/* "k1=v1,k2=v2" for kv[0, n), or "-" for none. */
static void kv_text(char *out, size_t cap, const lm_ipc_kv *kv, int n) {
  size_t at = 0;
  out[0] = 0;
  if (n == 0)
    snprintf(out, cap, "-");
  for (int i = 0; i < n && at < cap; i++)
    at += (size_t)snprintf(out + at, cap - at, "%s%s=%s", i ? "," : "",
                           kv[i].key, kv[i].value);
}

/* Message-level custom_metadata (Message.fbs Message.custom_metadata):
 * written per record batch (some batches with, some without), in both
 * formats, by the buffer and the sink writer (same bytes), read back by
 * the stream reader (fed in 7-byte pieces), the file reader and
 * decode_message; the schema's own metadata stays separate. Bad
 * arguments are refused. */
static void test_message_metadata(void) {
  lm_schema *s = all_types_schema();
  lm_batch *b = all_types_batch(s, 20, 0);
  lm_ipc_kv m0[] = {{"seq", "1"}, {"src", "sensor é"}};
  lm_ipc_kv m2[] = {{"", ""}, {"k", "a much longer value, to cross 8"}};
  const char *want[] = {"seq=1,src=sensor é", "-",
                        "=,k=a much longer value, to cross 8"};
  lm_ipc_kv skv = {"schema", "level"};
  for (int file = 0; file < 2; file++) {
    lm_ipc_write_options o = {8, 0, 1, &skv, false, 0, NULL};
    lm_buf out, sunk;
    lm_buf_init(&out);
    lm_buf_init(&sunk);
    lm_ipc_writer *w, *ws;
    lm_error err = {0};
    CHECK_EQ_I64(lm_ipc_writer_new(s, file, &o, &out, &w, &err), 0);
    CHECK_EQ_I64(
        lm_ipc_writer_new_sink(s, file, &o, buf_sink, &sunk, &ws, &err), 0);
    for (int k = 0; k < 2; k++) {
      lm_ipc_writer *x = k ? ws : w;
      CHECK_EQ_I64(lm_ipc_writer_write_metadata(x, b, m0, 2, &err), 0);
      CHECK_EQ_I64(lm_ipc_writer_write(x, b, &err), 0);
      CHECK_EQ_I64(lm_ipc_writer_write_metadata(x, b, m2, 2, &err), 0);
      lm_ipc_kv bad = {"k", NULL};
      CHECK_EQ_I64(lm_ipc_writer_write_metadata(x, b, &bad, 1, &err),
                   LM_ERR_INVALID);
      CHECK_EQ_I64(lm_ipc_writer_write_metadata(x, b, m0, -1, &err),
                   LM_ERR_INVALID);
      CHECK_EQ_I64(lm_ipc_writer_finish(x, &err), 0);
      lm_ipc_writer_free(x);
    }
    CHECK(out.len == sunk.len && memcmp(out.data, sunk.data, out.len) == 0);
    char t[256];
    const lm_ipc_kv *kv;
    int k = 0;
    if (file) {
      lm_ipc_file_reader *r = NULL;
      CHECK_EQ_I64(lm_ipc_file_open_memory(out.data, out.len, NULL, NULL,
                                           "m.arrow", &r, &err),
                   0);
      CHECK_EQ_I64(lm_ipc_file_batch_metadata(r, &kv), 0);
      lm_batch *x;
      while (r && lm_ipc_file_next(r, &x, &err) == 0 && x) {
        {
          int nk = lm_ipc_file_batch_metadata(r, &kv);
          kv_text(t, sizeof t, kv, nk);
        }
        CHECK(k < 3 && !strcmp(t, want[k]));
        k++;
        lm_batch_release(x);
      }
      CHECK_EQ_I64(lm_ipc_file_metadata(r, &kv), 1);
      CHECK(!strcmp(kv[0].key, "schema"));
      /* random access: batch 2 then 0 */
      CHECK_EQ_I64(lm_ipc_file_read_batch(r, 2, &x, &err), 0);
      lm_batch_release(x);
      {
        int nk = lm_ipc_file_batch_metadata(r, &kv);
        kv_text(t, sizeof t, kv, nk);
      }
      CHECK(!strcmp(t, want[2]));
      CHECK_EQ_I64(lm_ipc_file_read_batch(r, 1, &x, &err), 0);
      lm_batch_release(x);
      CHECK_EQ_I64(lm_ipc_file_batch_metadata(r, &kv), 0);
      CHECK(kv == NULL);
      lm_ipc_file_reader_free(r);
    } else {
      lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "m.arrows");
      size_t schema_end = 0;
      for (size_t at = 0; at < out.len; at += 7) {
        CHECK_EQ_I64(lm_ipc_stream_reader_feed(r, out.data + at,
                                               LM_MIN((size_t)7, out.len - at),
                                               &err),
                     0);
        if (!schema_end && lm_ipc_stream_reader_schema(r))
          schema_end = at + 7;
      }
      CHECK_EQ_I64(lm_ipc_stream_reader_finish(r, &err), 0);
      lm_batch *x;
      while ((x = lm_ipc_stream_reader_next(r)) != NULL) {
        {
          int nk = lm_ipc_stream_reader_batch_metadata(r, &kv);
          kv_text(t, sizeof t, kv, nk);
        }
        CHECK(k < 3 && !strcmp(t, want[k]));
        k++;
        lm_batch_release(x);
      }
      CHECK_EQ_I64(lm_ipc_stream_reader_metadata(r, &kv), 1);
      /* decode_message on each batch message: the message after the
       * schema message is found by its length prefix */
      const uint8_t *p = (const uint8_t *)out.data;
      size_t at = 0;
      for (int m = 0; m < 4; m++) {
        int32_t L;
        memcpy(&L, p + at + 4, 4);
        lm_fb_reader rd = {p + at + 8, (size_t)L, at + 8, "m", &err};
        lm_fb_table msg;
        int64_t blen = 0;
        CHECK_EQ_I64(lm_fb_root(&rd, &msg), 0);
        CHECK_EQ_I64(lm_fb_get_i64(&msg, 3, 0, &blen), 0);
        size_t len = 8 + (size_t)L + (size_t)blen;
        if (m > 0) {
          CHECK_EQ_I64(lm_ipc_stream_reader_decode_message(r, p + at, len, NULL,
                                                           at, &x, &err),
                       0);
          {
            int nk = lm_ipc_stream_reader_batch_metadata(r, &kv);
            kv_text(t, sizeof t, kv, nk);
          }
          CHECK(x && !strcmp(t, want[m - 1]));
          lm_batch_release(x);
        }
        at += len;
      }
      lm_ipc_stream_reader_free(r);
    }
    CHECK_EQ_I64(k, 3);
    lm_buf_free(&out);
    lm_buf_free(&sunk);
  }
  lm_batch_release(b);
  lm_schema_release(s);
}

/* Reference UTF-8 check (RFC 3629), byte by byte: the length of the valid
 * prefix, as lm_fmt_utf8_check returns. */
static size_t utf8_ref(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i], need, lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF)
      need = 1;
    else if (c >= 0xE0 && c <= 0xEF)
      need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
      need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
      return i;
    if (n - i <= need || s[i + 1] < lo || s[i + 1] > hi)
      return i;
    for (unsigned k = 2; k <= need; k++)
      if ((s[i + k] & 0xC0) != 0x80)
        return i;
    i += need + 1;
  }
  return n;
}

/* lm_fmt_utf8_check (64-byte ASCII blocks, then 8 bytes, then bytewise;
 * IPC string columns are validated with it) against the reference: ASCII
 * of every length up to 300 with a 2/3/4-byte character, a stray
 * continuation byte, a truncated sequence or a surrogate at every
 * position. */
static void test_utf8_check(void) {
  static const char *ins[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                              "\x80",     "\xE2\x82",     "\xED\xA0\x80",
                              "\xFF"};
  unsigned char buf[320];
  int bad = 0;
  for (size_t n = 0; n <= 300; n += (n < 140 ? 1 : 7)) {
    for (size_t k = 0; k < LM_ARRAY_LEN(ins); k++)
      for (size_t at = 0; at <= n; at++) {
        size_t il = strlen(ins[k]);
        if (at + il > n)
          break;
        for (size_t i = 0; i < n; i++)
          buf[i] = (unsigned char)('a' + i % 26);
        memcpy(buf + at, ins[k], il);
        if (lm_fmt_utf8_check((const char *)buf, n) != utf8_ref(buf, n))
          bad++;
      }
    for (size_t i = 0; i < n; i++)
      buf[i] = (unsigned char)('A' + i % 26);
    if (lm_fmt_utf8_check((const char *)buf, n) != n)
      bad++;
  }
  CHECK_EQ_I64(bad, 0);
}

/* lm_ipc_stream_reader_reserve/commit on messages larger than the probe:
 * (1) a declared length reserves at most 8 MiB at once (an 8.8 MB
 *     message arrives in pieces of at most that);
 * (2) once a batch is released, the next message is received at the
 *     front of the same pending buffer (the same address each time);
 * (3) a batch still held is never overwritten by later input. */
static lm_batch *i64_batch(lm_schema *s, int64_t rows, int64_t seed) {
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, s, rows))
    return NULL;
  for (int64_t i = 0; i < rows; i++)
    lm_builder_append_i64_fast(&bb.cols[0], seed + i * 3);
  lm_batch *b = NULL;
  lm_batch_builder_finish(&bb, &b, NULL);
  lm_batch_builder_free(&bb);
  return b;
}

static void test_direct_reserve(void) {
  lm_schema *s = lm_schema_new(1);
  lm_schema_set_field(s, 0, "v", lm_type_make(LM_TYPE_INT64), false);
  /* 1.1 M rows = an 8.8 MB body (above the 8 MiB a declared length may
   * reserve), then four of 100,000 rows (800 KB each) */
  const int64_t rows[5] = {1100000, 100000, 100000, 100000, 100000};
  lm_buf out;
  lm_buf_init(&out);
  lm_ipc_writer *w;
  lm_error err;
  CHECK(lm_ipc_writer_new(s, false, NULL, &out, &w, &err) == 0);
  for (int i = 0; i < 5; i++) {
    lm_batch *b = i64_batch(s, rows[i], (int64_t)i * 1000000000);
    CHECK(b && lm_ipc_writer_write(w, b, &err) == 0);
    lm_batch_release(b);
  }
  CHECK(lm_ipc_writer_finish(w, &err) == 0);
  lm_ipc_writer_free(w);
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "direct");
  size_t at = 0, biggest = 0;
  int k = 0, rc = 0;
  const void *front[5] = {NULL};
  bool first_reserve_of[5] = {true, true, true, true, true};
  lm_batch *held = NULL;
  while (rc == 0 && at < out.len) {
    void *p;
    size_t room;
    if ((rc = lm_ipc_stream_reader_reserve(r, (size_t)64 << 20, &p, &room,
                                           &err)) != 0)
      break;
    if (k < 5 && first_reserve_of[k]) {
      front[k] = p;
      first_reserve_of[k] = false;
    }
    biggest = LM_MAX(biggest, room);
    size_t take = LM_MIN(room, out.len - at);
    memcpy(p, out.data + at, take);
    at += take;
    rc = lm_ipc_stream_reader_commit(r, take, &err);
    lm_batch *b;
    while ((b = lm_ipc_stream_reader_next(r)) != NULL) {
      CHECK(k < 5 && b->num_rows == rows[k]);
      const int64_t *v = lm_array_i64(b->columns[0]);
      CHECK(v[b->num_rows - 1] ==
            (int64_t)k * 1000000000 + (b->num_rows - 1) * 3);
      if (k == 3)
        held = b; /* kept while message 4 arrives */
      else
        lm_batch_release(b);
      k++;
    }
  }
  CHECK_EQ_I64(rc, 0);
  CHECK(lm_ipc_stream_reader_finish(r, &err) == 0);
  CHECK_EQ_I64(k, 5);
  /* (1) */
  CHECK(biggest <= ((size_t)8 << 20) && biggest > ((size_t)256 << 10));
  /* (2) messages 2 and 3 start where message 1 did (each read after the
   * previous batch was released) */
  CHECK(front[2] != NULL && front[2] == front[1]);
  CHECK(front[3] != NULL && front[3] == front[1]);
  /* (3) message 4 arrived while batch 3 was held: elsewhere, and batch 3
   * still reads right */
  CHECK(front[4] != front[1]);
  if (held) {
    const int64_t *v = lm_array_i64(held->columns[0]);
    int64_t bad = 0;
    for (int64_t i = 0; i < held->num_rows; i++)
      bad += v[i] != 3000000000 + i * 3;
    CHECK_EQ_I64(bad, 0);
    lm_batch_release(held);
  }
  lm_ipc_stream_reader_free(r);
  lm_buf_free(&out);
  lm_schema_release(s);
}

int main(void) {
  test_utf8_check();
  test_direct_reserve();
  test_message_metadata();
  test_dictionary_read();
  test_dictionary_write();
  test_roundtrips();
  test_alignment64();
  test_flights();
  test_hostile();
  test_deep_nesting();
  test_unsupported();
  test_arrow_types();
  return lm_test_done("test_ipc");
}
