/* fuzz/fuzz_toml.c — libFuzzer target for the TOML reader and ${VAR}
 * expansion: any input must either parse (and then every lookup and the
 * free must be clean) or fail with an error message, never crash. */
#include "format/lm_toml.h"

#include <string.h>

static void walk(const lm_toml_value *v) {
  if (v->kind == LM_TOML_TABLE) {
    for (size_t i = 0; i < v->u.table.len; i++) {
      const lm_toml_entry *e = &v->u.table.entries[i];
      if (lm_toml_table_get(v, e->key, e->key_len) != e->value)
        __builtin_trap();
      walk(e->value);
    }
  } else if (v->kind == LM_TOML_ARRAY) {
    for (size_t i = 0; i < v->u.array.len; i++)
      walk(v->u.array.items[i]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lm_toml_value *root = NULL;
  lm_error err;
  if (lm_toml_parse((const char *)data, size, &root, &err) == 0) {
    walk(root);
    (void)lm_toml_get(root, "server.bind");
    (void)lm_toml_get(root, "a.\"b\".c");
    lm_toml_free(root);
  } else if (err.msg[0] == '\0') {
    __builtin_trap(); /* an error must say something */
  }
  lm_buf out;
  lm_buf_init(&out);
  (void)lm_env_expand((const char *)data, size, &out, &err);
  lm_buf_free(&out);
  return 0;
}
