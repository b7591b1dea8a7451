/* columnar/types.c — type widths, classes and SQL names. */
#include "columnar/lm_columnar.h"

int lm_type_width(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT8:
    return 1;
  case LM_TYPE_INT16:
    return 2;
  case LM_TYPE_INT32:
  case LM_TYPE_FLOAT32:
    return 4;
  case LM_TYPE_INT64:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
    return 8;
  default:
    return 0;
  }
}

bool lm_type_is_integer(lm_type t) {
  return t.id == LM_TYPE_INT8 || t.id == LM_TYPE_INT16 ||
         t.id == LM_TYPE_INT32 || t.id == LM_TYPE_INT64;
}

bool lm_type_is_numeric(lm_type t) {
  return lm_type_is_integer(t) || t.id == LM_TYPE_FLOAT32 ||
         t.id == LM_TYPE_FLOAT64;
}

const char *lm_type_name(lm_type t) {
  switch (t.id) {
  case LM_TYPE_NULL:
    return "NULL";
  case LM_TYPE_BOOL:
    return "BOOLEAN";
  case LM_TYPE_INT8:
    return "TINYINT";
  case LM_TYPE_INT16:
    return "SMALLINT";
  case LM_TYPE_INT32:
    return "INTEGER";
  case LM_TYPE_INT64:
    return "BIGINT";
  case LM_TYPE_FLOAT32:
    return "REAL";
  case LM_TYPE_FLOAT64:
    return "DOUBLE";
  case LM_TYPE_UTF8:
    return "VARCHAR";
  case LM_TYPE_TIMESTAMP:
    return "TIMESTAMP";
  case LM_TYPE_INTERVAL:
    return "INTERVAL";
  default:
    return "UNKNOWN";
  }
}
