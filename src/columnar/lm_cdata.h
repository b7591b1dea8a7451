/*
 * The Arrow C Data Interface
 * (https://arrow.apache.org/docs/format/CDataInterface.html): exporting
 * Laminar batches as ArrowArray/ArrowSchema (zero-copy: the exported
 * structs hold references to our buffers and drop them in their release
 * callbacks) and importing foreign ones.
 */
#ifndef LM_CDATA_H
#define LM_CDATA_H

#include "columnar/lm_columnar.h"

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif

/* Exports b as a struct array (format "+s", one child per column) and its
 * schema. Both out structs are filled for the caller, who must call their
 * release callbacks; the data is shared, not copied. Errors: LM_ERR_NOMEM,
 * LM_ERR_INVALID for a type without an Arrow format string. */
int lm_cdata_export_batch(lm_batch *b, struct ArrowArray *out_array,
                          struct ArrowSchema *out_schema, lm_error *err);
/* Exports a schema alone (struct "+s" of the fields). */
int lm_cdata_export_schema(const lm_schema *s, struct ArrowSchema *out,
                           lm_error *err);

/* Imports a struct array described by `schema` (borrowed) into a batch.
 * `array` is moved: on success and on failure its release callback will be
 * called (possibly later, when the last imported buffer is released) and
 * array->release is set to NULL. Supported child formats: n b c s i l C S
 * I L e f g u U z Z w:N d:P,S[,128] tdD tts ttm ttu ttn ts?:[zone] tDs tDm
 * tDu tDn tin +l +L +s, and any of them dictionary-encoded
 * (ArrowSchema.dictionary, integer index format), nested up to 64 levels.
 * Top-level timestamps are converted to µs (as before); everything else is
 * zero-copy when buffers are aligned to their element width (copied
 * otherwise). Everything is validated before use (lm_array_validate:
 * offsets monotonic and in range, child lengths, dictionary indices, UTF-8,
 * null counts). Errors: LM_ERR_INVALID naming the column (and the nested
 * path) and the problem. */
int lm_cdata_import_batch(struct ArrowArray *array,
                          const struct ArrowSchema *schema, lm_batch **out,
                          lm_error *err);
/* lm_cdata_import_batch, and when the imported columns match `like`
 * (borrowed; may be NULL) one for one, in order — same names, ASCII
 * case-insensitive, same types, no NULLs where `like` says NOT NULL — the
 * batch takes a reference to `like` as its schema instead of a new schema
 * built from the C schema (the labels that differ then are `like`'s:
 * nullability and timestamp zone labels). Validation is the same. Meant for
 * pushes into a source with a fixed schema (laminar_push_arrow). Errors:
 * those of lm_cdata_import_batch. */
int lm_cdata_import_batch_like(struct ArrowArray *array,
                               const struct ArrowSchema *schema,
                               const lm_schema *like, lm_batch **out,
                               lm_error *err);

#endif
