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
 * Types, Arrow -> Laminar: Null -> NULL; Bool -> BOOLEAN; Int 8/16/32/64
 * signed -> TINYINT..BIGINT; FloatingPoint SINGLE/DOUBLE -> REAL/DOUBLE;
 * Utf8 -> VARCHAR; LargeUtf8 -> VARCHAR (values copied; an error when the
 * data exceeds 2 GiB); Timestamp (any unit, the time zone is dropped:
 * values stay UTC instants) -> TIMESTAMP with the same unit; Duration(µs)
 * -> INTERVAL. Dictionary-encoded fields (Schema.fbs DictionaryEncoding,
 * any signed or unsigned integer index type, Columnar.html "Dictionary
 * Messages") are decoded into plain arrays of their value type when a
 * record batch is read: every non-NULL index is checked against the current
 * dictionary (an out-of-range index is LM_ERR_PARSE naming its byte), a
 * NULL index is NULL. DictionaryBatch messages replace (isDelta false) or
 * extend (isDelta true) the dictionary for the record batches after them;
 * in the file format the footer's dictionary Blocks are applied in footer
 * order when the file is opened, and a second non-delta batch for an id is
 * an error (the spec forbids replacement in files). Anything else is
 * LM_ERR_PARSE "unsupported Arrow type X in
 * column 'c'". Laminar -> Arrow is the inverse (TIMESTAMP without zone,
 * INTERVAL as Duration(MICROSECOND)).
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

/* A custom_metadata key/value pair (Schema.fbs KeyValue); NUL-terminated
 * copies owned by whoever holds the array. */
typedef struct lm_ipc_kv {
  char *key;
  char *value;
} lm_ipc_kv;

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
/* End of input: an error if a message is incomplete or no schema was seen
 * (a missing end-of-stream marker is accepted). */
int lm_ipc_stream_reader_finish(lm_ipc_stream_reader *r, lm_error *err);
/* Pops the oldest decoded batch (the caller owns one reference) or NULL. */
lm_batch *lm_ipc_stream_reader_next(lm_ipc_stream_reader *r);
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
/* Number of record batches in the footer. */
int lm_ipc_file_num_batches(const lm_ipc_file_reader *r);
/* Decodes record batch i (0-based, footer order) into *out (refcount 1). */
int lm_ipc_file_read_batch(lm_ipc_file_reader *r, int i, lm_batch **out,
                           lm_error *err);
/* Decodes the next batch in order; *out is NULL after the last one. */
int lm_ipc_file_next(lm_ipc_file_reader *r, lm_batch **out, lm_error *err);
lm_schema *lm_ipc_file_schema(const lm_ipc_file_reader *r); /* borrowed */
int lm_ipc_file_metadata(const lm_ipc_file_reader *r, const lm_ipc_kv **kv);
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
/* Appends one RecordBatch message for b (which must have the writer's
 * schema's column types; slices with offset != 0 are written compactly).
 * Errors: LM_ERR_INVALID (schema mismatch), LM_ERR_NOMEM. */
int lm_ipc_writer_write(lm_ipc_writer *w, const lm_batch *b, lm_error *err);
/* Writes the end-of-stream marker (and for files the footer and the
 * trailing magic). Further writes are LM_ERR_INVALID. */
int lm_ipc_writer_finish(lm_ipc_writer *w, lm_error *err);
void lm_ipc_writer_free(lm_ipc_writer *w);

/* Whether the codec (LM_IPC_COMPRESS_*) was compiled in. */
bool lm_ipc_codec_available(int codec);

#endif
