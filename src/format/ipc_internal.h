/*
 * format/ipc_internal.h — Arrow IPC constants shared by ipc_writer.c and
 * ipc_reader.c (not a public API). Slot numbers are the field ids of
 * Arrow's format/Schema.fbs, Message.fbs and File.fbs (a union field takes
 * two slots: its _type then its value).
 */
#ifndef LM_IPC_INTERNAL_H
#define LM_IPC_INTERNAL_H

#include "format/lm_ipc.h"

/* MetadataVersion (Schema.fbs): V1..V5 = 0..4 */
#define ARROW_METADATA_V4 3
#define ARROW_METADATA_V5 4

/* MessageHeader union (Message.fbs) */
enum {
  ARROW_MSG_NONE = 0,
  ARROW_MSG_SCHEMA = 1,
  ARROW_MSG_DICTIONARY_BATCH = 2,
  ARROW_MSG_RECORD_BATCH = 3,
  ARROW_MSG_TENSOR = 4,
  ARROW_MSG_SPARSE_TENSOR = 5,
};

/* Type union (Schema.fbs) */
enum {
  ARROW_TYPE_NONE = 0,
  ARROW_TYPE_NULL = 1,
  ARROW_TYPE_INT = 2,
  ARROW_TYPE_FLOATING_POINT = 3,
  ARROW_TYPE_BINARY = 4,
  ARROW_TYPE_UTF8 = 5,
  ARROW_TYPE_BOOL = 6,
  ARROW_TYPE_DECIMAL = 7,
  ARROW_TYPE_DATE = 8,
  ARROW_TYPE_TIME = 9,
  ARROW_TYPE_TIMESTAMP = 10,
  ARROW_TYPE_INTERVAL = 11,
  ARROW_TYPE_LIST = 12,
  ARROW_TYPE_STRUCT = 13,
  ARROW_TYPE_UNION = 14,
  ARROW_TYPE_FIXED_SIZE_BINARY = 15,
  ARROW_TYPE_FIXED_SIZE_LIST = 16,
  ARROW_TYPE_MAP = 17,
  ARROW_TYPE_DURATION = 18,
  ARROW_TYPE_LARGE_BINARY = 19,
  ARROW_TYPE_LARGE_UTF8 = 20,
  ARROW_TYPE_LARGE_LIST = 21,
  ARROW_TYPE_RUN_END_ENCODED = 22,
  ARROW_TYPE_BINARY_VIEW = 23,
  ARROW_TYPE_UTF8_VIEW = 24,
  ARROW_TYPE_LIST_VIEW = 25,
  ARROW_TYPE_LARGE_LIST_VIEW = 26,
};

/* Precision (Schema.fbs FloatingPoint) */
enum { ARROW_PREC_HALF = 0, ARROW_PREC_SINGLE = 1, ARROW_PREC_DOUBLE = 2 };
/* CompressionType (Message.fbs BodyCompression) */
enum { ARROW_CODEC_LZ4_FRAME = 0, ARROW_CODEC_ZSTD = 1 };

/* Table slots */
enum { /* Message */
       MSG_VERSION = 0,
       MSG_HEADER_TYPE = 1,
       MSG_HEADER = 2,
       MSG_BODY_LENGTH = 3,
       MSG_CUSTOM_METADATA = 4
};
enum { /* Schema */
       SCHEMA_ENDIANNESS = 0,
       SCHEMA_FIELDS = 1,
       SCHEMA_CUSTOM_METADATA = 2,
       SCHEMA_FEATURES = 3
};
enum { /* Field */
       FIELD_NAME = 0,
       FIELD_NULLABLE = 1,
       FIELD_TYPE_TYPE = 2,
       FIELD_TYPE = 3,
       FIELD_DICTIONARY = 4,
       FIELD_CHILDREN = 5,
       FIELD_CUSTOM_METADATA = 6
};
enum { KV_KEY = 0, KV_VALUE = 1 };
enum { INT_BIT_WIDTH = 0, INT_IS_SIGNED = 1 };
enum { /* DictionaryEncoding */
       DE_ID = 0,
       DE_INDEX_TYPE = 1,
       DE_IS_ORDERED = 2,
       DE_KIND = 3
};
enum { FP_PRECISION = 0 };
enum { TS_UNIT = 0, TS_TIMEZONE = 1 };
enum { DURATION_UNIT = 0 };
enum { DEC_PRECISION = 0, DEC_SCALE = 1, DEC_BIT_WIDTH = 2 }; /* Decimal */
enum { TIME_UNIT = 0, TIME_BIT_WIDTH = 1 };                   /* Time */
enum { DATE_UNIT = 0 };      /* Date: DAY = 0, MILLISECOND = 1 */
enum { INTERVAL_UNIT = 0 };  /* Interval: MONTH_DAY_NANO = 2 */
enum { FSB_BYTE_WIDTH = 0 }; /* FixedSizeBinary */
enum {                       /* RecordBatch */
       RB_LENGTH = 0,
       RB_NODES = 1,
       RB_BUFFERS = 2,
       RB_COMPRESSION = 3,
       RB_VARIADIC_COUNTS = 4
};
enum { BC_CODEC = 0, BC_METHOD = 1 };             /* BodyCompression */
enum { DB_ID = 0, DB_DATA = 1, DB_IS_DELTA = 2 }; /* DictionaryBatch */
enum {                                            /* Footer */
       FOOTER_VERSION = 0,
       FOOTER_SCHEMA = 1,
       FOOTER_DICTIONARIES = 2,
       FOOTER_RECORD_BATCHES = 3,
       FOOTER_CUSTOM_METADATA = 4
};

/* struct sizes: FieldNode {long length; long null_count}, Buffer {long
 * offset; long length}, Block {long offset; int metaDataLength; pad 4;
 * long bodyLength} */
#define ARROW_FIELD_NODE_SIZE 16
#define ARROW_BUFFER_SIZE 16
#define ARROW_BLOCK_SIZE 24

#define ARROW_MAGIC "ARROW1"

#endif
