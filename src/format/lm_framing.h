/*
 * format/lm_framing.h — the Laminar framing protocol: several tables (Arrow
 * IPC record batches) and opaque messages multiplexed on one byte stream,
 * with named channels registered in a handshake, end-of-channel and error
 * frames, and optional global sequence numbers so a reader can merge
 * several parallel connections back into one order. The wire format is
 * specified byte by byte in docs/framing.md; section numbers (§N) below
 * refer to it. All integers on the wire are little-endian.
 *
 * Writing: lm_framing_encoder appends to a caller's lm_buf.
 * Reading: lm_framing_decoder is fed arbitrary chunks (split anywhere) and
 * queues events (lm_framing_decoder_feed_buffer decodes complete frames in
 * place in the caller's receive buffer); lm_framing_merger restores one
 * sequence order over the events of N decoders.
 *
 * Errors follow format/lm_ipc.h: malformed input is LM_ERR_PARSE, a broken
 * limit LM_ERR_LIMIT, and the message reads "SOURCE: byte N: text", N the
 * absolute offset in that decoder's input of the offending field or frame.
 */
#ifndef LM_FRAMING_H
#define LM_FRAMING_H

#include "format/lm_ipc.h"

/* §2 stream header */
#define LM_FRAMING_MAGIC "LMFR\r\n\x1a\n" /* 8 bytes */
#define LM_FRAMING_VERSION 1
#define LM_FRAMING_FLAG_SEQ 0x0001u /* frames carry sequence numbers */

/* §3 channel kinds */
enum { LM_FRAMING_TABLE = 1, LM_FRAMING_OPAQUE = 2 };

/* §4 frame kinds (the tag byte) */
enum {
  LM_FRAME_BATCH = 1,       /* one IPC RecordBatch message, table channel */
  LM_FRAME_MESSAGE = 2,     /* raw bytes, opaque channel */
  LM_FRAME_END_CHANNEL = 3, /* no payload */
  LM_FRAME_ERROR = 4,       /* u32 code + UTF-8 text */
  LM_FRAME_END_STREAM = 5,  /* no payload, channel 0xFFFFFFFF */
};

/* The channel id of connection-level frames (§4). */
#define LM_FRAMING_NO_CHANNEL 0xFFFFFFFFu
/* The sequence field of an END_STREAM frame on a sequenced connection. */
#define LM_FRAMING_NO_SEQ UINT64_MAX

/* Decode limits (§6). A zero field means "the default". */
typedef struct lm_framing_limits {
  int64_t max_frame_bytes; /* one frame payload or schema; 64 MiB */
  int max_channels;        /* channels in one handshake; 1024 (max 65536) */
  int max_name_bytes;      /* one channel name; 255 (max 65535) */
} lm_framing_limits;

/* Fills *l with the defaults above (§6). */
void lm_framing_limits_default(lm_framing_limits *l);

/* ---------------------------------------------------------------- encoder */

typedef struct lm_framing_encoder lm_framing_encoder;

/* Creates an encoder appending to `out` (borrowed; must outlive the
 * encoder; the caller may drain it between calls). `flags` is 0 or
 * LM_FRAMING_FLAG_SEQ (§2); with SEQ, `seq_counter` (borrowed, required)
 * supplies the sequence numbers (§5): every sequenced frame takes the
 * current value and increments it atomically, so N encoders of one logical
 * stream share one counter. ipc_opts (may be NULL; copied, its metadata
 * pointer must stay valid until begin) configures the IPC writer of every
 * table channel. Returns NULL on out-of-memory or bad arguments (unknown
 * flag bits, SEQ without a counter). Free with lm_framing_encoder_free. */
lm_framing_encoder *
lm_framing_encoder_new(lm_buf *out, uint32_t flags, uint64_t *seq_counter,
                       const lm_ipc_write_options *ipc_opts);
/* Declares a table channel `name` (copied; 1..65535 bytes of UTF-8, no NUL
 * byte, unique) carrying batches of `schema` (retained) (§3). *id receives
 * the channel id (declaration order, from 0). Only before
 * lm_framing_encoder_begin. Errors: LM_ERR_INVALID (bad or duplicate name,
 * after begin, a type with no Arrow mapping), LM_ERR_NOMEM. */
int lm_framing_encoder_add_table(lm_framing_encoder *e, const char *name,
                                 lm_schema *schema, int *id, lm_error *err);
/* Gives table channel ch's dictionary-encoded fields the dictionary ids
 * ids[0, n_ids) in its schema (§3.2) and DictionaryBatch messages, in
 * pre-order as lm_ipc_write_options.dictionary_ids takes them (e.g. those
 * an IPC reader or lm_framing_decoder_dictionary_ids gave; borrowed during
 * the call); n_ids 0 numbers them again from the column count. Only before
 * lm_framing_encoder_begin. Errors: LM_ERR_INVALID (after begin, not a
 * table channel, ids the IPC writer refuses), LM_ERR_NOMEM. */
int lm_framing_encoder_set_dictionary_ids(lm_framing_encoder *e, int ch,
                                          const int64_t *ids, int n_ids,
                                          lm_error *err);
/* Declares an opaque channel `name` (rules as add_table) (§3). */
int lm_framing_encoder_add_opaque(lm_framing_encoder *e, const char *name,
                                  int *id, lm_error *err);
/* Writes the stream header and the channel declarations (§2, §3). Must
 * precede every frame. LM_ERR_INVALID when called twice. */
int lm_framing_encoder_begin(lm_framing_encoder *e, lm_error *err);
/* Appends a BATCH frame (§4.1) with b (borrowed; its columns must match the
 * channel's schema) on table channel `ch`. LM_ERR_INVALID for a wrong
 * channel, a closed channel, a schema mismatch or a payload over 2^63. */
int lm_framing_encoder_write_batch(lm_framing_encoder *e, int ch,
                                   const lm_batch *b, lm_error *err);
/* As write_batch, with n_kv key/value pairs (borrowed during the call)
 * as the RecordBatch message's custom_metadata (docs/ipc.md); the decoder
 * gives them in the event's `metadata`. n_kv 0 is write_batch. Errors as
 * write_batch, and LM_ERR_INVALID for n_kv < 0 or a NULL key or value. */
int lm_framing_encoder_write_batch_metadata(lm_framing_encoder *e, int ch,
                                            const lm_batch *b,
                                            const lm_ipc_kv *kv, int n_kv,
                                            lm_error *err);
/* Appends a MESSAGE frame (§4.2): len bytes of data (copied) on opaque
 * channel `ch`. */
int lm_framing_encoder_write_message(lm_framing_encoder *e, int ch,
                                     const void *data, size_t len,
                                     lm_error *err);
/* Appends an END_CHANNEL frame (§4.3); the channel takes no more frames. */
int lm_framing_encoder_end_channel(lm_framing_encoder *e, int ch,
                                   lm_error *err);
/* Appends an ERROR frame (§4.4) with `code` and the UTF-8 text `msg`
 * (NUL-terminated, copied). ch is a channel id (the channel is closed) or
 * -1 for the connection (the stream ends: only free may follow). */
int lm_framing_encoder_write_error(lm_framing_encoder *e, int ch, uint32_t code,
                                   const char *msg, lm_error *err);
/* Appends the END_STREAM frame (§4.5). Nothing may be written after it. */
int lm_framing_encoder_finish(lm_framing_encoder *e, lm_error *err);
/* Frees the encoder and its channels (not `out`, which stays the
 * caller's). NULL is a no-op. Writes nothing: call finish first. */
void lm_framing_encoder_free(lm_framing_encoder *e);

/* ---------------------------------------------------------------- decoder */

/* What the decoder reports (§7). */
typedef enum lm_framing_event_kind {
  LM_FRAMING_EV_NONE = 0,    /* nothing (queue empty) */
  LM_FRAMING_EV_CHANNEL,     /* a channel was registered (handshake) */
  LM_FRAMING_EV_BATCH,       /* a record batch on a table channel */
  LM_FRAMING_EV_MESSAGE,     /* an opaque message */
  LM_FRAMING_EV_END_CHANNEL, /* a channel ended */
  LM_FRAMING_EV_ERROR,       /* the peer sent an ERROR frame */
  LM_FRAMING_EV_END_STREAM,  /* the END_STREAM frame */
} lm_framing_event_kind;

/* One decoded event. `channel` is the channel id, -1 for connection-level
 * events; `name` is the channel's name (borrowed from the decoder, valid
 * until it is freed; NULL for connection-level events); `channel_kind` is
 * LM_FRAMING_TABLE / LM_FRAMING_OPAQUE; `schema` (borrowed) is the table
 * channel's schema. `batch` (EV_BATCH) holds one reference owned by the
 * event; `data`/`len` (EV_MESSAGE payload; EV_ERROR text, NUL-terminated)
 * are owned by the event. Release with lm_framing_event_clear. `seq` is the
 * sequence number when `has_seq`; `offset` the absolute byte offset of the
 * frame (or declaration) in its decoder's input; `source` the decoder's
 * index in a merger (0 otherwise). */
typedef struct lm_framing_event {
  lm_framing_event_kind kind;
  int channel;
  const char *name;
  int channel_kind;
  lm_schema *schema;
  lm_batch *batch;
  uint8_t *data;
  size_t len;
  uint32_t error_code;
  bool has_seq;
  uint64_t seq;
  int64_t offset;
  int source;
  /* EV_BATCH: the RecordBatch message's custom_metadata (n_metadata
   * pairs, owned by the event; NULL / 0 when it has none) */
  lm_ipc_kv *metadata;
  int n_metadata;
} lm_framing_event;

/* Frees what *ev owns (batch reference, data, metadata) and zeroes it to
 * EV_NONE (§7). NULL is a no-op. */
void lm_framing_event_clear(lm_framing_event *ev);

typedef struct lm_framing_decoder lm_framing_decoder;

/* Creates an incremental decoder (§2-§7). limits and ipc_limits may be NULL
 * (defaults; copied); source_name (copied; NULL = "<input>") prefixes
 * error messages. NULL only on out-of-memory. */
lm_framing_decoder *lm_framing_decoder_new(const lm_framing_limits *limits,
                                           const lm_ipc_limits *ipc_limits,
                                           const char *source_name);
/* Declares a channel the reader expects (§3.1): `name` (copied), `kind`
 * (LM_FRAMING_TABLE / OPAQUE) and, for tables, optionally `schema`
 * (retained; NULL = any schema; else field count, names and types must
 * match). Once any channel is expected, the handshake must register
 * exactly the expected set, in any order. Only before the first feed.
 * LM_ERR_INVALID / LM_ERR_NOMEM. */
int lm_framing_decoder_expect(lm_framing_decoder *d, const char *name, int kind,
                              lm_schema *schema, lm_error *err);
/* Feeds the next len bytes (copied as needed, not retained; chunks may
 * split anywhere) and queues an event for every complete declaration and
 * frame. Returns 0, or LM_ERR_PARSE / LM_ERR_LIMIT / LM_ERR_NOMEM with
 * *err filled; events decoded before the error stay queued; afterwards
 * the decoder repeats the error (§2-§6). */
int lm_framing_decoder_feed(lm_framing_decoder *d, const void *data, size_t len,
                            lm_error *err);
/* Feeds buf->data[off, off + len) like lm_framing_decoder_feed, without
 * copying complete frames: every declaration and frame that lies whole in
 * the range is decoded where it lies, and each BATCH event's column
 * buffers are zero-copy views holding a reference to `buf` (8-aligned
 * ones; an unaligned buffer is copied). Only a partial declaration or
 * frame is copied: the range's incomplete tail into the decoder's pending
 * buffer, and, on the next feed, just the bytes that complete it. The
 * caller keeps its own reference to buf (the decoder retains it through
 * the batches only) and must not change bytes [off, off + len) while
 * batches use them: receive into a new buffer when buf->refcnt > 1 after
 * the events were taken. LM_ERR_INVALID (not sticky) for a range outside
 * buf->size; other errors as feed (§2-§6). */
int lm_framing_decoder_feed_buffer(lm_framing_decoder *d, lm_buffer *buf,
                                   size_t off, size_t len, lm_error *err);
/* End of input: LM_ERR_PARSE (with the offset where input stopped) unless
 * the END_STREAM frame or a connection ERROR frame was read (§6). */
int lm_framing_decoder_finish(lm_framing_decoder *d, lm_error *err);
/* Pops the oldest queued event into *ev (caller clears it); false (and
 * ev->kind = EV_NONE) when the queue is empty (§7). */
bool lm_framing_decoder_next(lm_framing_decoder *d, lm_framing_event *ev);
/* True once END_STREAM or a connection ERROR frame has been decoded
 * (§4.4, §4.5). */
bool lm_framing_decoder_ended(const lm_framing_decoder *d);
/* Whether the header set LM_FRAMING_FLAG_SEQ (§2; false before it). */
bool lm_framing_decoder_sequenced(const lm_framing_decoder *d);
/* Number of channels registered so far (§3). */
int lm_framing_decoder_num_channels(const lm_framing_decoder *d);
/* Id of the channel named `name` (exact bytes, §3), or -1. */
int lm_framing_decoder_find(const lm_framing_decoder *d, const char *name);
/* Whether table channels deliver dictionary-encoded fields as DICTIONARY
 * arrays (keep true: channel schemas and batches carry DICTIONARY types
 * sharing the current dictionary, so they can be written again encoded)
 * or decoded into plain arrays of the value type (the default). Only
 * before the first feed: LM_ERR_INVALID after it. */
int lm_framing_decoder_keep_dictionaries(lm_framing_decoder *d, bool keep,
                                         lm_error *err);
/* The dictionary ids of table channel ch's dictionary-encoded fields, in
 * pre-order (as lm_ipc_stream_reader_dictionary_ids): *ids borrowed until
 * the decoder is freed; returns the count (0 for an unknown or opaque
 * channel). */
int lm_framing_decoder_dictionary_ids(const lm_framing_decoder *d, int ch,
                                      const int64_t **ids);
/* Frees the decoder, its queued events and its channels (event `name` and
 * `schema` pointers die with it). NULL is a no-op. */
void lm_framing_decoder_free(lm_framing_decoder *d);

/* ----------------------------------------------------------------- merger */

typedef struct lm_framing_merger lm_framing_merger;

/* Creates a merger over n decoders (borrowed; the caller feeds them and
 * frees them after the merger) of one logical stream (§5): sequence
 * numbers are global, start at `first_seq` and are consecutive. NULL on
 * out-of-memory or n < 1. */
lm_framing_merger *lm_framing_merger_new(int n, lm_framing_decoder **decoders,
                                         uint64_t first_seq);
/* Produces the next event in global order into *ev (ev->source = decoder
 * index). Unsequenced events (channel registrations) pass through as they
 * arrive; each source's END_STREAM is absorbed and one EV_END_STREAM is
 * produced when every source has ended. Returns 0 with ev->kind = EV_NONE
 * when the next event is not available yet (feed more input); or
 * LM_ERR_PARSE for a decoder that is not sequenced, a duplicate sequence
 * number, or a gap (every source is ended or waits at a higher number);
 * the error repeats afterwards. */
int lm_framing_merger_next(lm_framing_merger *m, lm_framing_event *ev,
                           lm_error *err);
/* Frees the merger and the events it holds (not the decoders). NULL is a
 * no-op. */
void lm_framing_merger_free(lm_framing_merger *m);

#endif
