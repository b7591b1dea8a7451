// fuzz/fuzz_sql_parser.c — libFuzzer target for the SQL lexer/parser and
// the expression printer. Build (from the repository root):
//   clang -fsanitize=fuzzer,address,undefined -Isrc -Iinclude
//     src/base/*.c src/columnar/*.c src/sql/*.c fuzz/fuzz_sql_parser.c -lm
// Seeds: fuzz/corpus/sql/.
#include "sql/lm_sql.h"

#include <stdint.h>
#include <string.h>

static void print_expr(const lm_expr *e, lm_buf *b) {
  if (!e)
    return;
  lm_buf_reset(b);
  lm_sql_expr_to_string(e, b);
}

static void print_select(const lm_select *q, lm_buf *b) {
  if (!q)
    return;
  for (int i = 0; i < q->n_items; i++)
    print_expr(q->items[i].expr, b);
  print_expr(q->where, b);
  for (int i = 0; i < q->n_group_by; i++)
    print_expr(q->group_by[i], b);
  print_expr(q->having, b);
  for (int i = 0; i < q->n_order_by; i++)
    print_expr(q->order_by[i].expr, b);
}

/* Parses the input as SQL; on success prints every expression of every
 * statement and checks the statement text; always frees. Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lm_sql_script *s = NULL;
  lm_error err;
  int rc = lm_sql_parse((const char *)data, size, &s, &err);
  if (rc != 0) {
    /* errors are always positioned, NUL-terminated messages */
    if (rc == LM_ERR_PARSE && (err.line < 1 || err.column < 1))
      __builtin_trap();
    if (strlen(err.msg) >= sizeof err.msg)
      __builtin_trap();
    return 0;
  }
  lm_buf b;
  lm_buf_init(&b);
  for (int i = 0; i < s->n_stmts; i++) {
    const lm_stmt *st = s->stmts[i];
    if (!st->text || strlen(st->text) > size)
      __builtin_trap();
    print_expr(st->watermark_expr, &b);
    print_select(st->select, &b);
    for (int r = 0; r < st->n_rows; r++)
      for (int c = 0; c < st->n_values; c++)
        print_expr(st->rows[r][c], &b);
  }
  lm_buf_free(&b);
  lm_sql_script_free(s);
  return 0;
}
