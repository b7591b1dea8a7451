/*
 * format/lm_ipc.h — Arrow IPC reading and writing: the streaming format and
 * the random-access file format
 * (https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc),
 * metadata per Arrow's Schema.fbs / Message.fbs / File.fbs (metadata
 * version V5), encoded and verified by our own FlatBuffers code
 * (format/flatbuf.h). docs/ipc.md lists what is supported.
 *
 * Encapsulated message (Columnar.html "Encapsulated message format"):
 *   0xFFFFFFFF continuation, int32 metadata length L (includes padding),
 *   Message flatbuffer padded to 8, then the body (bodyLength bytes, each
 *   buffer 8- or 64-aligned). The pre-0.15 form without continuation
 *   (int32 L first) is read too. Continuation + L = 0 is end-of-stream.
 * Stream: Schema message, then RecordBatch messages, then end-of-stream.
 * File: "ARROW1\0\0", the stream (with EOS), a Footer flatbuffer (schema,
 *   record batch Blocks), int32 footer length, "ARROW1".
 *
 * Types (docs/ipc.md has the table): every Arrow type of issue 3 maps to
 * its lm_type_id: Null, Bool, Int/UInt 8-64, Float16/32/64, Decimal128,
 * Date32, Time32/64, Timestamp (unit kept, zone label on the field),
 * Duration (µs -> INTERVAL, other units -> DURATION), Interval
 * (MonthDayNano), Utf8, LargeUtf8, Binary, LargeBinary, FixedSizeBinary,
 * List, LargeList, Struct (nested Field children), and dictionary-encoded
 * fields of any value type with any integer index type (Schema.fbs
 * DictionaryEncoding; Columnar.html "Dictionary Messages"). Every non-NULL
 * index is checked against the current dictionary (an out-of-range index
 * is LM_ERR_PARSE naming its byte); DictionaryBatch messages replace
 * (isDelta false) or extend (isDelta true) the dictionary for the record
 * batches after them; in the file format the footer's dictionary Blocks
 * are applied in footer order when the file is opened, and a second
 * non-delta batch for an id is an error. Readers deliver DICTIONARY arrays
 * when asked to keep dictionaries, plain arrays of the value type
 * otherwise. Anything else is LM_ERR_PARSE "unsupported Arrow type X in
 * column 'c'". Laminar -> Arrow is the inverse; DICTIONARY columns are
 * written with DictionaryBatch messages (see lm_ipc_writer_write).
 *
 * Errors: every malformation is LM_ERR_PARSE and every broken limit
 * LM_ERR_LIMIT, with a message "SOURCE: byte N: text" where N is the
 * absolute byte offset in the input of the offending message, flatbuffer
 * field or buffer descriptor, e.g.
 *   "f.arrow: byte 1234: record batch buffer 3 extends past the body
 *    (offset 96, length 4096, body 2048)".
 * No input can make the reader read out of bounds: every flatbuffer
 * reference, buffer range and array layout (validity >= ceil(n/8) bytes,
 * values >= n * width, offsets monotonic and within the data) is checked
 * before use.
 */
#ifndef LM_IPC_H
#define LM_IPC_H

#include "columnar/lm_columnar.h"

/* Decode limits for untrusted input. A zero field means "the default". */
typedef struct lm_ipc_limits {
  int64_t max_message_bytes; /* metadata or body of one message; 256 MiB */
  int max_depth;             /* nesting of fields; 64 */
  int max_columns;           /* fields in a schema; 65536 */
  int64_t max_buffer_bytes;  /* one body buffer (uncompressed); 256 MiB */
  int64_t max_records;       /* rows in one record batch; 2^31 - 1 */
  /* entries in one dictionary (after deltas are appended); 64 Mi
   * (Columnar.html "Dictionary Messages") */
  int64_t max_dictionary_entries;
} lm_ipc_limits;

/* Fills *l with the defaults above. */
void lm_ipc_limits_default(lm_ipc_limits *l);

/* A custom_metadata key/value pair (Schema.fbs KeyValue) of a schema, a
 * field or a message; NUL-terminated copies owned by whoever holds the
 * array. */
typedef struct lm_ipc_kv {
  char *key;
  char *value;
} lm_ipc_kv;

/* A DictionaryBatch message a reader applied (Message.fbs DictionaryBatch
 * {id, isDelta} and the message's custom_metadata): n_metadata pairs,
 * owned by the reader. */
typedef struct lm_ipc_dict_batch {
  int64_t id;
  bool is_delta; /* false when any batch for the id replaced it */
  int n_metadata;
  lm_ipc_kv *metadata;
} lm_ipc_dict_batch;

/* ------------------------------------------------------------ stream read */

typedef struct lm_ipc_stream_reader lm_ipc_stream_reader;

/* Creates an incremental reader of the Arrow IPC streaming format
 * (Columnar.html "IPC Streaming Format"). limits may be NULL (defaults;
 * copied); source_name is used in error messages (copied; NULL =
 * "<input>"). NULL only on out-of-memory. Free with
 * lm_ipc_stream_reader_free. */
lm_ipc_stream_reader *lm_ipc_stream_reader_new(const lm_ipc_limits *limits,
                                               const char *source_name);
/* Feeds the next len bytes (chunks may split anywhere; the data is copied
 * as needed, not retained). Decodes every complete message: the schema,
 * then record batches queued for lm_ipc_stream_reader_next. Bytes after
 * the end-of-stream marker are ignored. Returns 0 or LM_ERR_PARSE /
 * LM_ERR_LIMIT / LM_ERR_NOMEM with *err filled; after an error the reader
 * repeats it. */
int lm_ipc_stream_reader_feed(lm_ipc_stream_reader *r, const void *data,
                              size_t len, lm_error *err);
/* Direct input, without the copy of feed: reserves room for the next
 * input bytes inside the reader's pending buffer and sets *p to it and
 * *n (1..max) to how many to read there: the rest of the incomplete
 * message when its size is known (so a read ends on a message boundary
 * and no partial message has to be moved later), but never more than
 * the bytes of it already at hand or 8 MiB, whichever is larger (a
 * declared length alone allocates at most 8 MiB); else up to the free
 * room (at least 256 KiB, when max allows). Once every message fed so
 * far is decoded and no batch still uses the pending buffer, the room
 * starts again at that buffer's front (the same memory, still in the
 * CPU caches, for each message). The caller reads up to *n
 * bytes into *p (e.g. with lm_stream_read) and calls commit with the
 * count, which decodes every complete message as feed does. *p is valid
 * until the next reserve, feed or free. Errors as feed (LM_ERR_NOMEM);
 * commit of more than *n bytes is LM_ERR_INVALID. */
int lm_ipc_stream_reader_reserve(lm_ipc_stream_reader *r, size_t max, void **p,
                                 size_t *n, lm_error *err);
int lm_ipc_stream_reader_commit(lm_ipc_stream_reader *r, size_t n,
                                lm_error *err);
/* Decodes one encapsulated message data[0, len) (exactly one: nothing
 * before or after it) against the schema and dictionaries the reader
 * already holds (from a Schema message fed earlier), without copying it
 * into the pending buffer and without touching the reader's stream
 * position or queue. A RecordBatch gives *out (one reference); a
 * DictionaryBatch updates the reader's dictionaries (*out NULL). Column
 * buffers are zero-copy views holding a reference to `owner` when it is
 * non-NULL (8-aligned ones; others are copied); with owner NULL every
 * buffer the batch keeps must not outlive data, so pass an owner unless
 * data outlives the batch. abs is data's absolute offset, for messages.
 * Errors (LM_ERR_PARSE / LM_ERR_LIMIT / LM_ERR_NOMEM; LM_ERR_INVALID
 * before a schema) are not sticky: the reader stays usable. */
int lm_ipc_stream_reader_decode_message(lm_ipc_stream_reader *r,
                                        const void *data, size_t len,
                                        lm_buffer *owner, size_t abs,
                                        lm_batch **out, lm_error *err);
/* As lm_ipc_stream_reader_decode_message for a sequence of messages at
 * data[0, len): DictionaryBatch messages (each applied in order: a delta
 * appends, otherwise it replaces the id's dictionary), then at most one
 * RecordBatch, which must be the last message (*out, one reference; NULL
 * when there are only dictionary batches). Dictionaries applied before an
 * error stay applied. Errors as decode_message, plus LM_ERR_PARSE for
 * bytes after the record batch. */
int lm_ipc_stream_reader_decode_messages(lm_ipc_stream_reader *r,
                                         const void *data, size_t len,
                                         lm_buffer *owner, size_t abs,
                                         lm_batch **out, lm_error *err);
/* End of input: an error if a message is incomplete or no schema was seen
 * (a missing end-of-stream marker is accepted). */
int lm_ipc_stream_reader_finish(lm_ipc_stream_reader *r, lm_error *err);
/* Whether dictionary-encoded fields are delivered as DICTIONARY arrays
 * (keep = true: the schema and batches carry DICTIONARY types sharing the
 * current dictionary) or decoded into plain arrays of the value type (the
 * default, what SQL sources want). Set before the first feed. */
void lm_ipc_stream_reader_keep_dictionaries(lm_ipc_stream_reader *r, bool keep);
/* Pops the oldest decoded batch (the caller owns one reference) or NULL. */
lm_batch *lm_ipc_stream_reader_next(lm_ipc_stream_reader *r);
/* The custom_metadata of the RecordBatch *message* (Message.fbs
 * Message.custom_metadata, not the schema's) of the batch last returned
 * by lm_ipc_stream_reader_next or lm_ipc_stream_reader_decode_message:
 * *kv is borrowed until the next of those calls or free; returns the count
 * (0 and *kv NULL when the message had none). Pairs are verified like
 * every other flatbuffer field (count limited by max_columns). */
int lm_ipc_stream_reader_batch_metadata(const lm_ipc_stream_reader *r,
                                        const lm_ipc_kv **kv);
/* The DictionaryBatch messages applied between the record batch before
 * the one last returned by lm_ipc_stream_reader_next (or decoded by
 * _decode_message / _decode_messages) and that one: *db (borrowed until
 * the next of those calls or free), one entry per dictionary id in
 * first-seen order, with the map of the last batch for the id; returns
 * the count (0: the batch uses the dictionaries the one before used).
 * What lm_ipc_writer_set_dictionary_metadata takes to write the maps
 * back. */
int lm_ipc_stream_reader_dictionary_batches(const lm_ipc_stream_reader *r,
                                            const lm_ipc_dict_batch **db);
/* The dictionary ids (Schema.fbs DictionaryEncoding.id) of the schema's
 * dictionary-encoded fields in pre-order (each field before its children,
 * columns in order; ids may repeat when fields share a dictionary): *ids
 * borrowed until free; returns the count, 0 before the Schema message.
 * lm_ipc_write_options.dictionary_ids takes this list to keep the ids. */
int lm_ipc_stream_reader_dictionary_ids(const lm_ipc_stream_reader *r,
                                        const int64_t **ids);
/* The stream's schema (borrowed; NULL until the Schema message arrived). */
lm_schema *lm_ipc_stream_reader_schema(const lm_ipc_stream_reader *r);
/* The schema's custom_metadata: *kv is borrowed, returns the count. */
int lm_ipc_stream_reader_metadata(const lm_ipc_stream_reader *r,
                                  const lm_ipc_kv **kv);
/* True once the end-of-stream marker was read. */
bool lm_ipc_stream_reader_done(const lm_ipc_stream_reader *r);
void lm_ipc_stream_reader_free(lm_ipc_stream_reader *r);

/* -------------------------------------------------------------- file read */

typedef struct lm_ipc_file_reader lm_ipc_file_reader;

/* Opens an Arrow IPC file (Columnar.html "IPC File Format") held in
 * memory: data[0, len). When `owner` is non-NULL it is a buffer that keeps
 * the memory alive: the reader retains it, and every column buffer of the
 * batches it returns is a zero-copy view (lm_buffer_wrap) holding a
 * reference to it, so batches may outlive the reader. With owner NULL the
 * memory is borrowed and must outlive the reader and all its batches.
 * Verifies the magic, the footer and every Block range; record batches
 * are decoded (and verified) by lm_ipc_file_read_batch. Returns 0 and
 * *out, or an error (LM_ERR_PARSE / LM_ERR_LIMIT / LM_ERR_NOMEM). */
int lm_ipc_file_open_memory(const void *data, size_t len, lm_buffer *owner,
                            const lm_ipc_limits *limits,
                            const char *source_name, lm_ipc_file_reader **out,
                            lm_error *err);
/* Opens the file at path with mmap (zero-copy; the mapping lives until the
 * reader and every batch from it are released); reads it into memory when
 * it cannot be mapped (pipes). LM_ERR_IO when it cannot be opened. */
int lm_ipc_file_open(const char *path, const lm_ipc_limits *limits,
                     lm_ipc_file_reader **out, lm_error *err);
/* As lm_ipc_stream_reader_keep_dictionaries (default false: decoded); set
 * before reading batches. */
void lm_ipc_file_reader_keep_dictionaries(lm_ipc_file_reader *r, bool keep);
/* Number of record batches in the footer. */
int lm_ipc_file_num_batches(const lm_ipc_file_reader *r);
/* Decodes record batch i (0-based, footer order) into *out (refcount 1). */
int lm_ipc_file_read_batch(lm_ipc_file_reader *r, int i, lm_batch **out,
                           lm_error *err);
/* Decodes the next batch in order; *out is NULL after the last one. */
int lm_ipc_file_next(lm_ipc_file_reader *r, lm_batch **out, lm_error *err);
lm_schema *lm_ipc_file_schema(const lm_ipc_file_reader *r); /* borrowed */
/* Every DictionaryBatch message of the footer (all applied when the file
 * was opened, before any record batch): as
 * lm_ipc_stream_reader_dictionary_batches, one entry per id (borrowed
 * until free); returns the count. */
int lm_ipc_file_dictionary_batches(const lm_ipc_file_reader *r,
                                   const lm_ipc_dict_batch **db);
/* As lm_ipc_stream_reader_dictionary_ids (borrowed until free). */
int lm_ipc_file_dictionary_ids(const lm_ipc_file_reader *r,
                               const int64_t **ids);
int lm_ipc_file_metadata(const lm_ipc_file_reader *r, const lm_ipc_kv **kv);
/* As lm_ipc_stream_reader_batch_metadata: the message custom_metadata of
 * the batch last decoded by lm_ipc_file_read_batch / lm_ipc_file_next
 * (borrowed until the next decode or free). */
int lm_ipc_file_batch_metadata(const lm_ipc_file_reader *r,
                               const lm_ipc_kv **kv);
void lm_ipc_file_reader_free(lm_ipc_file_reader *r);

/* ----------------------------------------------------------------- writer */

enum {
  LM_IPC_COMPRESS_NONE = 0,
  LM_IPC_COMPRESS_LZ4 = 1,
  LM_IPC_COMPRESS_ZSTD = 2
};

typedef struct lm_ipc_write_options {
  int alignment;   /* body buffer alignment and padding: 8 (default) or 64 */
  int compression; /* LM_IPC_COMPRESS_*; default none */
  int n_metadata;  /* schema custom_metadata pairs */
  const lm_ipc_kv *metadata; /* borrowed during lm_ipc_writer_new */
  /* Dictionary-encode every VARCHAR column (Columnar.html "Dictionary
   * Messages"; index type Int32, dictionary id = column number). Stream
   * format: each record batch is preceded by a non-delta DictionaryBatch
   * per column (a replacement) holding that batch's distinct values. File
   * format (no replacement allowed): the first batch writes the dictionary,
   * later batches a delta with the values not seen before, when any. */
  bool dictionary_encode_utf8;
  /* The dictionary id of each DICTIONARY occurrence in the schema, in
   * pre-order (each field before its children, columns in order), e.g. as
   * a reader gave them (lm_ipc_stream_reader_dictionary_ids /
   * lm_ipc_file_dictionary_ids); borrowed during lm_ipc_writer_new.
   * n_dictionary_ids 0: ids are numbered from the number of columns on.
   * Otherwise the count must be that of the occurrences; fields with the
   * same id share one dictionary (same value type; their arrays must hold
   * the same dictionary array in every batch); an id may not be a VARCHAR
   * column's number under dictionary_encode_utf8. LM_ERR_INVALID
   * otherwise. */
  int n_dictionary_ids;
  const int64_t *dictionary_ids;
} lm_ipc_write_options;

typedef struct lm_ipc_writer lm_ipc_writer;

/* Creates a writer of `schema` (retained) appending to `out` (borrowed;
 * must outlive the writer). file_format selects the file format (magic,
 * footer) instead of the stream format. The writer counts the bytes it
 * has produced itself, so the caller may drain out (write it somewhere and
 * lm_buf_reset it) between calls. The Schema message (and file magic) is
 * written immediately. opts may be NULL. Errors: LM_ERR_INVALID for a bad
 * alignment, an unavailable codec or a type with no Arrow mapping,
 * LM_ERR_NOMEM. */
int lm_ipc_writer_new(lm_schema *schema, bool file_format,
                      const lm_ipc_write_options *opts, lm_buf *out,
                      lm_ipc_writer **w, lm_error *err);
struct iovec;
/* A writer's destination in sink mode: writes all bytes of iov[0, n)
 * in order (e.g. with writev), or returns an LM_ERR_* code with *err
 * filled. The memory is only valid during the call. */
typedef int (*lm_ipc_sink_fn)(void *ctx, const struct iovec *iov, int n,
                              lm_error *err);

/* As lm_ipc_writer_new, but every message goes to sink(sink_ctx, ...) as
 * soon as it is complete (the Schema message before this returns), with
 * the same bytes lm_ipc_writer_new would append to a buffer. Without
 * compression the record batch bodies are not copied: the sink gets the
 * message header followed by the batch's own buffers and the zero padding
 * as separate pieces (only rebased offsets, realigned bitmaps and
 * dictionary-encoded columns are copied), so one writev sends a batch.
 * A sink error is returned by the call that met it and repeated by every
 * later call (lm_stream_writev_sink of transport/lm_transport.h is a sink
 * over an lm_stream). */
int lm_ipc_writer_new_sink(lm_schema *schema, bool file_format,
                           const lm_ipc_write_options *opts,
                           lm_ipc_sink_fn sink, void *sink_ctx,
                           lm_ipc_writer **w, lm_error *err);
/* Appends one RecordBatch message for b (which must have the writer's
 * schema's column types; slices with offset != 0 are written compactly,
 * nested children included). DICTIONARY columns first get DictionaryBatch
 * messages: none while the dictionary (pointer) is the one last written, a
 * delta when it extends that one, else a replacement (stream) or, in the
 * file format, the new dictionary as a delta with the column's indices
 * rebased. Errors: LM_ERR_INVALID (schema mismatch; a changed nested
 * dictionary in the file format; indices that cannot address the grown
 * file dictionary), LM_ERR_NOMEM. */
int lm_ipc_writer_write(lm_ipc_writer *w, const lm_batch *b, lm_error *err);
/* As lm_ipc_writer_write, with n_kv key/value pairs (borrowed during the
 * call; keys and values NUL-terminated, not NULL) as the RecordBatch
 * message's custom_metadata (Message.fbs Message.custom_metadata; readers
 * expose it with lm_ipc_stream_reader_batch_metadata /
 * lm_ipc_file_batch_metadata). n_kv 0 is lm_ipc_writer_write. Dictionary
 * batches written before it carry their id's map
 * (lm_ipc_writer_set_dictionary_metadata), not this one. Errors as
 * lm_ipc_writer_write, and LM_ERR_INVALID for n_kv < 0 or a NULL key or value.
 */
int lm_ipc_writer_write_metadata(lm_ipc_writer *w, const lm_batch *b,
                                 const lm_ipc_kv *kv, int n_kv, lm_error *err);
/* Sets the custom_metadata (Message.custom_metadata) of the
 * DictionaryBatch messages the writer writes for dictionary `id` from now
 * on: n_kv pairs (copied; keys and values NUL-terminated, not NULL); n_kv
 * 0 clears it. Errors: LM_ERR_INVALID (no DICTIONARY column has the id,
 * n_kv < 0, a NULL key or value), LM_ERR_NOMEM. */
int lm_ipc_writer_set_dictionary_metadata(lm_ipc_writer *w, int64_t id,
                                          const lm_ipc_kv *kv, int n_kv,
                                          lm_error *err);
/* Writes the end-of-stream marker (and for files the footer and the
 * trailing magic). Further writes are LM_ERR_INVALID. */
int lm_ipc_writer_finish(lm_ipc_writer *w, lm_error *err);
void lm_ipc_writer_free(lm_ipc_writer *w);

/* Whether the codec (LM_IPC_COMPRESS_*) was compiled in. */
bool lm_ipc_codec_available(int codec);

#endif
