/*
 * tests/unit/test_ipc_dict_ids.c — dictionary ids and the custom_metadata
 * of DictionaryBatch messages survive reading and writing again
 * (lm_ipc_write_options.dictionary_ids, lm_ipc_*_dictionary_ids,
 * lm_ipc_writer_set_dictionary_metadata, lm_ipc_*_dictionary_batches):
 * file -> file (byte-identical), stream -> stream, stream -> framing ->
 * file; shared ids; the errors for ids the writer cannot keep. The same
 * against apache-arrow is tests/cases/interop.sh part (h).
 */
#include <stdlib.h>
#include <string.h>

#include "format/lm_framing.h"
#include "format/lm_ipc.h"
#include "lm_test.h"

/* A VARCHAR dictionary of the n strings v. */
static lm_array *strings(const char *const *v, int n) {
  lm_builder b;
  lm_builder_init(&b, lm_type_make(LM_TYPE_UTF8), n);
  for (int i = 0; i < n; i++)
    lm_builder_append_str(&b, v[i], (int32_t)strlen(v[i]));
  lm_array *a;
  lm_builder_finish(&b, &a);
  lm_builder_free(&b);
  return a;
}

/* A DICTIONARY<index, VARCHAR> array of n rows over dict (retained);
 * ix[i] < 0 is NULL. */
static lm_array *dict_col(lm_type_id index, lm_array *dict, const int *ix,
                          int n) {
  lm_type t;
  lm_type_dictionary(index, dict->type, false, &t);
  int w = lm_type_width(t.node ? lm_type_dict_index(t) : t);
  lm_buffer *v = lm_buffer_new((size_t)n * (size_t)w + 1);
  lm_buffer *valid = lm_buffer_new(((size_t)n + 7) / 8 + 1);
  memset(valid->data, 0, valid->size);
  int nulls = 0;
  for (int i = 0; i < n; i++) {
    int64_t x = ix[i] < 0 ? 0 : ix[i];
    memcpy(v->data + (size_t)i * (size_t)w, &x, (size_t)w);
    if (ix[i] < 0)
      nulls++;
    else
      lm_bit_set(valid->data, i);
  }
  return lm_array_new(t, n, nulls, 0, valid, v, NULL, 0, NULL,
                      lm_array_retain(dict));
}

/* LIST<DICTIONARY<INT8, VARCHAR>> of n rows, row i holding items
 * [offs[i], offs[i + 1]) of the index list ix. */
static lm_array *list_col(lm_array *dict, const int32_t *offs, int n,
                          const int *ix) {
  lm_array *items = dict_col(LM_TYPE_INT8, dict, ix, offs[n]);
  lm_type_field it = {"item", items->type, true, NULL};
  lm_type lt;
  lm_type_list(LM_TYPE_LIST, &it, &lt);
  lm_buffer *ob = lm_buffer_new(((size_t)n + 1) * 4);
  memcpy(ob->data, offs, ((size_t)n + 1) * 4);
  return lm_array_new(lt, n, 0, 0, NULL, ob, NULL, 1, &items, NULL);
}

static const char *const D1[] = {"red", "", "blue"};
static const char *const D2[] = {"red", "", "blue", "green"}; /* a delta */
static const char *const D3[] = {"x", "y"};                   /* replaced */

/* Three batches of columns a DICTIONARY<INT32> (id 42), l
 * LIST<DICTIONARY<INT8>> (id 7), c DICTIONARY<INT16> sharing a's
 * dictionary (id 42): the first over D1, the second over D2 (an extension:
 * a delta), the third over D3 (a replacement; stream only). */
static void make_batches(lm_batch **out, lm_schema **schema) {
  lm_array *d[3] = {strings(D1, 3), strings(D2, 4), strings(D3, 2)};
  lm_array *ld = strings(D1, 3);
  static const int ix[3][4] = {{2, -1, 0, 1}, {3, 0, -1, 2}, {1, 0, 0, -1}};
  static const int32_t offs[5] = {0, 2, 2, 3, 5};
  static const int items[5] = {0, 2, -1, 1, 1};
  lm_schema *s = NULL;
  for (int k = 0; k < 3; k++) {
    lm_array *cols[3] = {dict_col(LM_TYPE_INT32, d[k], ix[k], 4),
                         list_col(ld, offs, 4, items),
                         dict_col(LM_TYPE_INT16, d[k], ix[k], 4)};
    if (!s) {
      s = lm_schema_new(3);
      lm_schema_set_field(s, 0, "a", cols[0]->type, true);
      lm_schema_set_field(s, 1, "l", cols[1]->type, true);
      lm_schema_set_field(s, 2, "c", cols[2]->type, true);
    }
    out[k] = lm_batch_new(lm_schema_retain(s), 4, cols);
  }
  for (int k = 0; k < 3; k++)
    lm_array_release(d[k]);
  lm_array_release(ld);
  *schema = s;
}

static const int64_t IDS[3] = {42, 7, 42};

static void text_of(lm_buf *o, const lm_batch *b) {
  for (int64_t i = 0; i < b->num_rows; i++) {
    for (int c = 0; c < b->num_columns; c++) {
      lm_array_format_json(o, b->columns[c], i);
      lm_buf_putc(o, '|');
    }
    lm_buf_putc(o, '\n');
  }
}

/* Calls f(r, &ids) first, then checks: a macro, so that the count is
 * taken before the ids are read. */
#define check_ids(ids, call)                                                   \
  do {                                                                         \
    int n_ = (call);                                                           \
    CHECK_EQ_I64(n_, 3);                                                       \
    for (int i_ = 0; i_ < n_ && i_ < 3; i_++)                                  \
      CHECK_EQ_I64((ids)[i_], IDS[i_]);                                        \
  } while (0)

/* Writes batches[0, n) with the ids above, dictionary 42's batches with
 * {"k": "v42"} and 7's with {"k": "v7"}. */
static void write_all(lm_schema *s, bool file, lm_batch **b, int n,
                      lm_buf *out) {
  lm_ipc_write_options o;
  memset(&o, 0, sizeof o);
  o.dictionary_ids = IDS;
  o.n_dictionary_ids = 3;
  lm_ipc_writer *w;
  lm_error err = {0};
  CHECK_EQ_I64(lm_ipc_writer_new(s, file, &o, out, &w, &err), 0);
  lm_ipc_kv k42 = {"k", "v42"}, k7 = {"k", "v7"};
  CHECK_EQ_I64(lm_ipc_writer_set_dictionary_metadata(w, 42, &k42, 1, &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_set_dictionary_metadata(w, 7, &k7, 1, &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_set_dictionary_metadata(w, 3, &k7, 1, &err),
               LM_ERR_INVALID);
  for (int k = 0; k < n; k++)
    CHECK_EQ_I64(lm_ipc_writer_write(w, b[k], &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
  lm_ipc_writer_free(w);
}

static bool has_md(const lm_ipc_dict_batch *db, int n, int64_t id,
                   const char *v) {
  for (int i = 0; i < n; i++)
    if (db[i].id == id)
      return db[i].n_metadata == 1 && strcmp(db[i].metadata[0].key, "k") == 0 &&
             strcmp(db[i].metadata[0].value, v) == 0;
  return false;
}

/* file -> file: the reader's ids and dictionary metadata given back to a
 * writer give the same bytes. */
static void test_file_to_file(void) {
  lm_batch *b[3];
  lm_schema *s;
  make_batches(b, &s);
  lm_buf f1, f2, want, got;
  lm_buf_init(&f1);
  lm_buf_init(&f2);
  lm_buf_init(&want);
  lm_buf_init(&got);
  write_all(s, true, b, 2, &f1);
  lm_ipc_file_reader *r;
  lm_error err = {0};
  CHECK_EQ_I64(
      lm_ipc_file_open_memory(f1.data, f1.len, NULL, NULL, "f1", &r, &err), 0);
  lm_ipc_file_reader_keep_dictionaries(r, true);
  const int64_t *ids;
  check_ids(ids, lm_ipc_file_dictionary_ids(r, &ids));
  const lm_ipc_dict_batch *db;
  int n_db = lm_ipc_file_dictionary_batches(r, &db);
  CHECK_EQ_I64(n_db, 2); /* 42 (first, then a delta) and 7 */
  CHECK(has_md(db, n_db, 42, "v42"));
  CHECK(has_md(db, n_db, 7, "v7"));
  lm_ipc_write_options o;
  memset(&o, 0, sizeof o);
  o.dictionary_ids = ids;
  o.n_dictionary_ids = 3;
  lm_ipc_writer *w;
  CHECK_EQ_I64(
      lm_ipc_writer_new(lm_ipc_file_schema(r), true, &o, &f2, &w, &err), 0);
  for (int i = 0; i < n_db; i++)
    CHECK_EQ_I64(lm_ipc_writer_set_dictionary_metadata(
                     w, db[i].id, db[i].metadata, db[i].n_metadata, &err),
                 0);
  lm_batch *x;
  while (lm_ipc_file_next(r, &x, &err) == 0 && x) {
    text_of(&got, x);
    CHECK_EQ_I64(lm_ipc_writer_write(w, x, &err), 0);
    lm_batch_release(x);
  }
  CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
  lm_ipc_writer_free(w);
  lm_ipc_file_reader_free(r);
  for (int k = 0; k < 2; k++)
    text_of(&want, b[k]);
  CHECK(want.len == got.len && memcmp(want.data, got.data, want.len) == 0);
  /* the file's dictionaries were written whole after reading (a delta
   * read is one dictionary), so compare the second writing with a third */
  lm_buf f3;
  lm_buf_init(&f3);
  CHECK_EQ_I64(
      lm_ipc_file_open_memory(f2.data, f2.len, NULL, NULL, "f2", &r, &err), 0);
  lm_ipc_file_reader_keep_dictionaries(r, true);
  check_ids(ids, lm_ipc_file_dictionary_ids(r, &ids));
  n_db = lm_ipc_file_dictionary_batches(r, &db);
  o.dictionary_ids = ids; /* the first reader's are gone */
  CHECK(has_md(db, n_db, 42, "v42") && has_md(db, n_db, 7, "v7"));
  CHECK_EQ_I64(
      lm_ipc_writer_new(lm_ipc_file_schema(r), true, &o, &f3, &w, &err), 0);
  for (int i = 0; i < n_db; i++)
    lm_ipc_writer_set_dictionary_metadata(w, db[i].id, db[i].metadata,
                                          db[i].n_metadata, &err);
  while (lm_ipc_file_next(r, &x, &err) == 0 && x) {
    CHECK_EQ_I64(lm_ipc_writer_write(w, x, &err), 0);
    lm_batch_release(x);
  }
  CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
  lm_ipc_writer_free(w);
  lm_ipc_file_reader_free(r);
  CHECK(f2.len == f3.len && memcmp(f2.data, f3.data, f2.len) == 0);
  lm_buf_free(&f1);
  lm_buf_free(&f2);
  lm_buf_free(&f3);
  lm_buf_free(&want);
  lm_buf_free(&got);
  for (int k = 0; k < 3; k++)
    lm_batch_release(b[k]);
  lm_schema_release(s);
}

/* stream -> stream: ids, and per batch the dictionary batches read before
 * it: batch 1 the first dictionaries, batch 2 a delta of 42, batch 3 a
 * replacement of 42. Then stream -> framing -> file keeps the ids. */
static void test_stream_and_framing(void) {
  lm_batch *b[3];
  lm_schema *s;
  make_batches(b, &s);
  lm_buf st, want, got;
  lm_buf_init(&st);
  lm_buf_init(&want);
  lm_buf_init(&got);
  write_all(s, false, b, 3, &st);
  lm_error err = {0};
  lm_ipc_stream_reader *r = lm_ipc_stream_reader_new(NULL, "st");
  lm_ipc_stream_reader_keep_dictionaries(r, true);
  CHECK_EQ_I64(lm_ipc_stream_reader_feed(r, st.data, st.len, &err), 0);
  CHECK_EQ_I64(lm_ipc_stream_reader_finish(r, &err), 0);
  const int64_t *ids;
  check_ids(ids, lm_ipc_stream_reader_dictionary_ids(r, &ids));
  /* framing: one table channel with the reader's schema and ids */
  lm_buf wire;
  lm_buf_init(&wire);
  lm_framing_encoder *e = lm_framing_encoder_new(&wire, 0, NULL, NULL);
  int ch;
  CHECK_EQ_I64(lm_framing_encoder_add_table(
                   e, "t", lm_ipc_stream_reader_schema(r), &ch, &err),
               0);
  CHECK_EQ_I64(lm_framing_encoder_set_dictionary_ids(e, ch, ids, 3, &err), 0);
  CHECK_EQ_I64(lm_framing_encoder_set_dictionary_ids(e, ch, ids, 2, &err),
               LM_ERR_INVALID); /* not one per dictionary field */
  CHECK_EQ_I64(lm_framing_encoder_begin(e, &err), 0);
  lm_batch *x;
  int k = 0;
  while ((x = lm_ipc_stream_reader_next(r)) != NULL) {
    const lm_ipc_dict_batch *db;
    int n_db = lm_ipc_stream_reader_dictionary_batches(r, &db);
    if (k == 0) {
      CHECK_EQ_I64(n_db, 2);
      CHECK(has_md(db, n_db, 42, "v42") && has_md(db, n_db, 7, "v7"));
      CHECK(!db[0].is_delta);
    } else {
      CHECK_EQ_I64(n_db, 1);
      CHECK(has_md(db, n_db, 42, "v42"));
      CHECK_EQ_I64(db[0].is_delta, k == 1);
    }
    CHECK_EQ_I64(lm_framing_encoder_write_batch(e, ch, x, &err), 0);
    lm_batch_release(x);
    k++;
  }
  CHECK_EQ_I64(k, 3);
  CHECK_EQ_I64(lm_framing_encoder_finish(e, &err), 0);
  lm_framing_encoder_free(e);
  lm_ipc_stream_reader_free(r);
  /* decode, keeping dictionaries, and write a file with the ids (two
   * batches: the file format cannot replace a dictionary) */
  lm_framing_decoder *d = lm_framing_decoder_new(NULL, NULL, "wire");
  CHECK_EQ_I64(lm_framing_decoder_keep_dictionaries(d, true, &err), 0);
  CHECK_EQ_I64(lm_framing_decoder_feed(d, wire.data, wire.len, &err), 0);
  CHECK_EQ_I64(lm_framing_decoder_keep_dictionaries(d, false, &err),
               LM_ERR_INVALID); /* after the first feed */
  CHECK_EQ_I64(lm_framing_decoder_finish(d, &err), 0);
  check_ids(ids, lm_framing_decoder_dictionary_ids(d, 0, &ids));
  lm_buf file;
  lm_buf_init(&file);
  lm_ipc_writer *w = NULL;
  lm_framing_event ev;
  int nb = 0;
  while (lm_framing_decoder_next(d, &ev)) {
    if (ev.kind == LM_FRAMING_EV_CHANNEL) {
      lm_ipc_write_options o;
      memset(&o, 0, sizeof o);
      o.dictionary_ids = ids;
      o.n_dictionary_ids = 3;
      CHECK_EQ_I64(lm_ipc_writer_new(ev.schema, true, &o, &file, &w, &err), 0);
    } else if (ev.kind == LM_FRAMING_EV_BATCH && nb++ < 2 && w) {
      CHECK_EQ_I64(ev.batch->columns[0]->type.id, LM_TYPE_DICTIONARY);
      CHECK_EQ_I64(lm_ipc_writer_write(w, ev.batch, &err), 0);
      text_of(&got, ev.batch);
    }
    lm_framing_event_clear(&ev);
  }
  CHECK_EQ_I64(nb, 3);
  if (w) {
    CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
    lm_ipc_writer_free(w);
  }
  lm_framing_decoder_free(d);
  lm_ipc_file_reader *fr;
  CHECK_EQ_I64(
      lm_ipc_file_open_memory(file.data, file.len, NULL, NULL, "f", &fr, &err),
      0);
  check_ids(ids, lm_ipc_file_dictionary_ids(fr, &ids));
  lm_ipc_file_reader_free(fr);
  for (int i = 0; i < 2; i++)
    text_of(&want, b[i]);
  CHECK(want.len == got.len && memcmp(want.data, got.data, want.len) == 0);
  lm_buf_free(&file);
  lm_buf_free(&wire);
  lm_buf_free(&st);
  lm_buf_free(&want);
  lm_buf_free(&got);
  for (int i = 0; i < 3; i++)
    lm_batch_release(b[i]);
  lm_schema_release(s);
}

/* Ids the writer refuses, and shared ids over different dictionaries. */
static void test_errors(void) {
  lm_batch *b[3];
  lm_schema *s;
  make_batches(b, &s);
  lm_buf out;
  lm_buf_init(&out);
  lm_error err = {0};
  lm_ipc_writer *w = NULL;
  lm_ipc_write_options o;
  memset(&o, 0, sizeof o);
  int64_t two[2] = {1, 2}, clash[3] = {1, 1, 2}, ok[3] = {5, 6, 5};
  o.dictionary_ids = two;
  o.n_dictionary_ids = 2;
  CHECK_EQ_I64(lm_ipc_writer_new(s, false, &o, &out, &w, &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "2 dictionary ids given for 3") != NULL);
  /* a and l's items (both VARCHAR values) may share an id; batch 0 holds
   * equal dictionaries (two arrays, the same values), batch 1 not */
  o.dictionary_ids = clash;
  o.n_dictionary_ids = 3;
  lm_buf_reset(&out);
  CHECK_EQ_I64(lm_ipc_writer_new(s, false, &o, &out, &w, &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_write(w, b[0], &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_write(w, b[1], &err), LM_ERR_INVALID);
  CHECK(strstr(err.msg, "share dictionary id 1") != NULL);
  lm_ipc_writer_free(w);
  /* a and c share: fine in every batch (the same dictionary) */
  o.dictionary_ids = ok;
  lm_buf_reset(&out);
  CHECK_EQ_I64(lm_ipc_writer_new(s, false, &o, &out, &w, &err), 0);
  for (int k = 0; k < 3; k++)
    CHECK_EQ_I64(lm_ipc_writer_write(w, b[k], &err), 0);
  CHECK_EQ_I64(lm_ipc_writer_finish(w, &err), 0);
  lm_ipc_writer_free(w);
  /* dictionary_encode_utf8 numbers VARCHAR columns by position: an id
   * equal to such a column's number is refused */
  lm_schema *s2 = lm_schema_new(2);
  lm_schema_set_field(s2, 0, "v", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s2, 1, "a", s->fields[0].type, true);
  int64_t zero[1] = {0};
  o.dictionary_ids = zero;
  o.n_dictionary_ids = 1;
  o.dictionary_encode_utf8 = true;
  CHECK_EQ_I64(lm_ipc_writer_new(s2, false, &o, &out, &w, &err),
               LM_ERR_INVALID);
  CHECK(strstr(err.msg, "VARCHAR column 'v'") != NULL);
  lm_schema_release(s2);
  lm_buf_free(&out);
  for (int k = 0; k < 3; k++)
    lm_batch_release(b[k]);
  lm_schema_release(s);
}

int main(void) {
  test_file_to_file();
  test_stream_and_framing();
  test_errors();
  return lm_test_done("test_ipc_dict_ids");
}
