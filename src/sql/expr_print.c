/* sql/expr_print.c — writes an expression back as SQL text (column names
 * for unaliased select items, EXPLAIN, error messages). Minimal
 * parentheses, chosen from the parser's precedence levels, so the text
 * parses back to the same tree. */
#include "columnar/lm_temporal.h"
#include "sql/lm_sql.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Precedence levels, lowest first (as in parser.c). */
enum {
  P_OR = 1,
  P_AND,
  P_NOT,
  P_CMP, /* = <> < ... IS BETWEEN IN LIKE */
  P_CONCAT,
  P_ADD,
  P_MUL,
  P_NEG,
  P_ATOM,
};

#define MAX_PRINT_DEPTH 2000

static int op_prec(lm_op op) {
  switch (op) {
  case LM_OP_OR:
    return P_OR;
  case LM_OP_AND:
    return P_AND;
  case LM_OP_NOT:
    return P_NOT;
  case LM_OP_EQ:
  case LM_OP_NE:
  case LM_OP_LT:
  case LM_OP_LE:
  case LM_OP_GT:
  case LM_OP_GE:
    return P_CMP;
  case LM_OP_CONCAT:
  case LM_OP_REGEX:
  case LM_OP_REGEX_I:
  case LM_OP_NOT_REGEX:
  case LM_OP_NOT_REGEX_I:
  case LM_OP_JSON_GET:
  case LM_OP_JSON_GET_TEXT:
  case LM_OP_BIT_AND:
  case LM_OP_BIT_OR:
  case LM_OP_BIT_XOR:
  case LM_OP_SHL:
  case LM_OP_SHR:
  case LM_OP_BIT_NOT:
  case LM_OP_CONTAINS:
  case LM_OP_CONTAINED:
  case LM_OP_OVERLAP:
  case LM_OP_JSON_PATH:
  case LM_OP_JSON_PATH_TEXT:
  case LM_OP_JSON_EXISTS:
  case LM_OP_JSON_EXISTS_ANY:
  case LM_OP_JSON_EXISTS_ALL:
  case LM_OP_JSON_DELETE_PATH:
    return P_CONCAT;
  case LM_OP_ADD:
  case LM_OP_SUB:
    return P_ADD;
  case LM_OP_MUL:
  case LM_OP_DIV:
  case LM_OP_MOD:
    return P_MUL;
  case LM_OP_NEG:
    return P_NEG;
  default:
    return P_ATOM;
  }
}

const char *lm_sql_op_text(lm_op op) {
  switch (op) {
  case LM_OP_ADD:
    return "+";
  case LM_OP_SUB:
    return "-";
  case LM_OP_MUL:
    return "*";
  case LM_OP_DIV:
    return "/";
  case LM_OP_MOD:
    return "%";
  case LM_OP_EQ:
    return "=";
  case LM_OP_NE:
    return "<>";
  case LM_OP_LT:
    return "<";
  case LM_OP_LE:
    return "<=";
  case LM_OP_GT:
    return ">";
  case LM_OP_GE:
    return ">=";
  case LM_OP_AND:
    return "AND";
  case LM_OP_OR:
    return "OR";
  case LM_OP_NOT:
    return "NOT";
  case LM_OP_NEG:
    return "-";
  case LM_OP_CONCAT:
    return "||";
  case LM_OP_REGEX:
    return "~";
  case LM_OP_REGEX_I:
    return "~*";
  case LM_OP_NOT_REGEX:
    return "!~";
  case LM_OP_NOT_REGEX_I:
    return "!~*";
  case LM_OP_JSON_GET:
    return "->";
  case LM_OP_JSON_GET_TEXT:
    return "->>";
  case LM_OP_BIT_AND:
    return "&";
  case LM_OP_BIT_OR:
    return "|";
  case LM_OP_BIT_XOR:
    return "#";
  case LM_OP_SHL:
    return "<<";
  case LM_OP_SHR:
    return ">>";
  case LM_OP_BIT_NOT:
    return "~";
  case LM_OP_CONTAINS:
    return "@>";
  case LM_OP_CONTAINED:
    return "<@";
  case LM_OP_OVERLAP:
    return "&&";
  case LM_OP_JSON_PATH:
    return "#>";
  case LM_OP_JSON_PATH_TEXT:
    return "#>>";
  case LM_OP_JSON_EXISTS:
    return "?";
  case LM_OP_JSON_EXISTS_ANY:
    return "?|";
  case LM_OP_JSON_EXISTS_ALL:
    return "?&";
  case LM_OP_JSON_DELETE_PATH:
    return "#-";
  default:
    return "?";
  }
}

static bool is_negative_literal(const lm_expr *e) {
  if (e->kind != LM_EXPR_LITERAL)
    return false;
  if (e->lit == LM_LIT_INT)
    return e->ival < 0;
  if (e->lit == LM_LIT_DECIMAL)
    return e->text ? e->text[0] == '-' : e->dval < 0;
  return false;
}

static int prec_of(const lm_expr *e) {
  switch (e->kind) {
  case LM_EXPR_UNARY:
  case LM_EXPR_BINARY:
    return op_prec(e->op);
  case LM_EXPR_IS_NULL:
  case LM_EXPR_BETWEEN:
  case LM_EXPR_IN:
  case LM_EXPR_LIKE:
    return P_CMP;
  case LM_EXPR_SUBQUERY:
    return e->subq == LM_SUBQ_ANY || e->subq == LM_SUBQ_ALL ? P_CMP : P_ATOM;
  case LM_EXPR_LITERAL:
    return is_negative_literal(e) ? P_NEG : P_ATOM;
  default:
    return P_ATOM;
  }
}

static int put_quoted(lm_buf *out, const char *s) {
  int rc = lm_buf_putc(out, '\'');
  for (const char *c = s; !rc && *c; c++) {
    if (*c == '\'')
      rc = lm_buf_putc(out, '\'');
    if (!rc)
      rc = lm_buf_putc(out, *c);
  }
  if (!rc)
    rc = lm_buf_putc(out, '\'');
  return rc;
}

static int print(const lm_expr *e, lm_buf *out, int depth);

/* Prints e, parenthesized when its precedence is below min_prec. */
static int print_sub(const lm_expr *e, int min_prec, lm_buf *out, int depth) {
  if (prec_of(e) >= min_prec)
    return print(e, out, depth + 1);
  int rc = lm_buf_putc(out, '(');
  if (!rc)
    rc = print(e, out, depth + 1);
  if (!rc)
    rc = lm_buf_putc(out, ')');
  return rc;
}

static int print_literal(const lm_expr *e, lm_buf *out) {
  switch (e->lit) {
  case LM_LIT_NULL:
    return lm_buf_puts(out, "NULL");
  case LM_LIT_BOOL:
    return lm_buf_puts(out, e->bval ? "TRUE" : "FALSE");
  case LM_LIT_INT:
    return lm_buf_printf(out, "%" PRId64, e->ival);
  case LM_LIT_DECIMAL:
    if (e->text)
      return lm_buf_puts(out, e->text);
    return lm_buf_printf(out, "%.17g", e->dval);
  case LM_LIT_STRING:
    return put_quoted(out, e->text ? e->text : "");
  case LM_LIT_TIMESTAMP: {
    int rc = lm_buf_puts(out, "TIMESTAMP ");
    if (rc)
      return rc;
    if (e->text)
      return put_quoted(out, e->text);
    char buf[48];
    lm_format_timestamp(e->ival, ' ', buf);
    return put_quoted(out, buf);
  }
  case LM_LIT_INTERVAL: {
    int rc = lm_buf_puts(out, "INTERVAL ");
    if (rc)
      return rc;
    if (!e->text)
      return lm_buf_printf(out, "'%" PRId64 "' MICROSECOND", e->ival);
    rc = put_quoted(out, e->text);
    if (!rc && e->name)
      rc = lm_buf_printf(out, " %s", e->name);
    return rc;
  }
  }
  return lm_buf_puts(out, "?");
}

static int print_list(lm_expr *const *args, int n, lm_buf *out, int depth) {
  int rc = 0;
  for (int i = 0; !rc && i < n; i++) {
    if (i)
      rc = lm_buf_puts(out, ", ");
    if (!rc)
      rc = print(args[i], out, depth + 1);
  }
  return rc;
}

static int print(const lm_expr *e, lm_buf *out, int depth) {
  if (!e)
    return lm_buf_puts(out, "?");
  if (depth > MAX_PRINT_DEPTH)
    return lm_buf_puts(out, "...");
  int rc = 0;
  switch (e->kind) {
  case LM_EXPR_LITERAL:
    return print_literal(e, out);
  case LM_EXPR_COLUMN: /* names as PostgreSQL's quote_identifier: "Id" */
    if (e->table &&
        !(rc = lm_quote_ident(out, e->table, (int32_t)strlen(e->table))))
      rc = lm_buf_putc(out, '.');
    if (!rc)
      rc = e->name ? lm_quote_ident(out, e->name, (int32_t)strlen(e->name))
                   : lm_buf_puts(out, "?");
    return rc;
  case LM_EXPR_STAR:
    if (e->table)
      rc = lm_buf_printf(out, "%s.", e->table);
    if (!rc)
      rc = lm_buf_putc(out, '*');
    return rc;
  case LM_EXPR_UNARY:
    if (e->n_args < 1)
      return lm_buf_puts(out, "?");
    if (e->op == LM_OP_NOT) {
      rc = lm_buf_puts(out, "NOT ");
      if (!rc)
        rc = print_sub(e->args[0], P_NOT, out, depth);
      return rc;
    }
    if (e->op == LM_OP_BIT_NOT) {
      rc = lm_buf_puts(out, "~ ");
      if (!rc)
        rc = print_sub(e->args[0], P_ADD, out, depth);
      return rc;
    }
    rc = lm_buf_putc(out, '-');
    if (rc)
      return rc;
    {
      const lm_expr *a = e->args[0];
      /* never print "--" (a comment) */
      bool paren = prec_of(a) < P_NEG || is_negative_literal(a) ||
                   (a->kind == LM_EXPR_UNARY && a->op == LM_OP_NEG);
      if (paren)
        rc = lm_buf_putc(out, '(');
      if (!rc)
        rc = print(a, out, depth + 1);
      if (!rc && paren)
        rc = lm_buf_putc(out, ')');
    }
    return rc;
  case LM_EXPR_BINARY: {
    if (e->n_args < 2)
      return lm_buf_puts(out, "?");
    int pr = op_prec(e->op);
    rc = print_sub(e->args[0], pr, out, depth);
    if (!rc)
      rc = lm_buf_printf(out, " %s ", lm_sql_op_text(e->op));
    /* AND / OR chains are balanced trees (parser.c): associative, so a
     * right operand of the same operator needs no parentheses */
    bool assoc = e->op == LM_OP_AND || e->op == LM_OP_OR;
    if (!rc)
      rc = print_sub(e->args[1], assoc ? pr : pr + 1, out, depth);
    return rc;
  }
  case LM_EXPR_FUNC:
    if (e->name && !strcmp(e->name, "__array")) { /* parser.c: ARRAY[...] */
      rc = lm_buf_puts(out, "ARRAY[");
      if (!rc)
        rc = print_list(e->args, e->n_args, out, depth);
      return rc ? rc : lm_buf_putc(out, ']');
    }
    rc = lm_buf_puts(out, e->name ? e->name : "?");
    if (!rc)
      rc = lm_buf_putc(out, '(');
    if (!rc && e->distinct)
      rc = lm_buf_puts(out, "DISTINCT ");
    if (!rc)
      rc = print_list(e->args, e->n_args, out, depth);
    if (!rc)
      rc = lm_buf_putc(out, ')');
    return rc;
  case LM_EXPR_CAST:
    if (e->n_args < 1)
      return lm_buf_puts(out, "?");
    rc = lm_buf_puts(out, "CAST(");
    if (!rc)
      rc = print(e->args[0], out, depth + 1);
    if (!rc)
      rc = lm_buf_printf(out, " AS %s)", lm_type_name(e->cast_type));
    return rc;
  case LM_EXPR_IS_NULL:
    if (e->n_args < 1)
      return lm_buf_puts(out, "?");
    rc = print_sub(e->args[0], P_CMP, out, depth);
    if (!rc)
      rc = lm_buf_puts(out, e->negated ? " IS NOT " : " IS ");
    if (!rc)
      rc = lm_buf_puts(out, e->booltest == 1   ? "TRUE"
                            : e->booltest == 2 ? "FALSE"
                            : e->booltest == 3 ? "UNKNOWN"
                                               : "NULL");
    return rc;
  case LM_EXPR_BETWEEN:
    if (e->n_args < 3)
      return lm_buf_puts(out, "?");
    rc = print_sub(e->args[0], P_CMP, out, depth);
    if (!rc)
      rc = lm_buf_puts(out, e->negated ? " NOT BETWEEN " : " BETWEEN ");
    if (!rc && e->symmetric)
      rc = lm_buf_puts(out, "SYMMETRIC ");
    if (!rc)
      rc = print_sub(e->args[1], P_CONCAT, out, depth);
    if (!rc)
      rc = lm_buf_puts(out, " AND ");
    if (!rc)
      rc = print_sub(e->args[2], P_CONCAT, out, depth);
    return rc;
  case LM_EXPR_IN:
    if (e->n_args < 1)
      return lm_buf_puts(out, "?");
    rc = print_sub(e->args[0], P_CMP, out, depth);
    if (!rc)
      rc = lm_buf_puts(out, e->negated ? " NOT IN (" : " IN (");
    if (!rc)
      rc = print_list(e->args + 1, e->n_args - 1, out, depth);
    if (!rc)
      rc = lm_buf_putc(out, ')');
    return rc;
  case LM_EXPR_SUBQUERY:
    /* the query itself is not printed back: (SELECT ...) */
    if (e->subq == LM_SUBQ_EXISTS)
      return lm_buf_puts(out, "EXISTS (SELECT ...)");
    if (e->subq == LM_SUBQ_SCALAR || e->n_args < 1)
      return lm_buf_puts(out, "(SELECT ...)");
    rc = print_sub(e->args[0], P_CMP, out, depth);
    if (!rc && e->subq == LM_SUBQ_ANY && e->op == LM_OP_EQ)
      rc = lm_buf_puts(out, e->negated ? " NOT IN " : " IN ");
    else if (!rc)
      rc = lm_buf_printf(out, " %s %s ", lm_sql_op_text(e->op),
                         e->subq == LM_SUBQ_ALL ? "ALL" : "ANY");
    if (!rc)
      rc = lm_buf_puts(out, "(SELECT ...)");
    return rc;
  case LM_EXPR_LIKE:
    if (e->n_args < 2)
      return lm_buf_puts(out, "?");
    rc = print_sub(e->args[0], P_CMP, out, depth);
    if (!rc && e->booltest)
      rc = lm_buf_puts(out, e->negated ? " NOT SIMILAR TO " : " SIMILAR TO ");
    else if (!rc)
      rc = lm_buf_puts(out, e->icase ? (e->negated ? " NOT ILIKE " : " ILIKE ")
                                     : (e->negated ? " NOT LIKE " : " LIKE "));
    if (!rc)
      rc = print_sub(e->args[1], P_CONCAT, out, depth);
    if (!rc && e->n_args > 2) {
      rc = lm_buf_puts(out, " ESCAPE ");
      if (!rc)
        rc = print_sub(e->args[2], P_CONCAT, out, depth);
    }
    return rc;
  case LM_EXPR_CASE: {
    int i = 0;
    rc = lm_buf_puts(out, "CASE");
    if (!rc && e->has_operand && i < e->n_args) {
      rc = lm_buf_putc(out, ' ');
      if (!rc)
        rc = print(e->args[i++], out, depth + 1);
    }
    int end = e->n_args - (e->has_else ? 1 : 0);
    while (!rc && i + 1 < end) {
      rc = lm_buf_puts(out, " WHEN ");
      if (!rc)
        rc = print(e->args[i], out, depth + 1);
      if (!rc)
        rc = lm_buf_puts(out, " THEN ");
      if (!rc)
        rc = print(e->args[i + 1], out, depth + 1);
      i += 2;
    }
    if (!rc && e->has_else && e->n_args > 0) {
      rc = lm_buf_puts(out, " ELSE ");
      if (!rc)
        rc = print(e->args[e->n_args - 1], out, depth + 1);
    }
    if (!rc)
      rc = lm_buf_puts(out, " END");
    return rc;
  }
  }
  return lm_buf_puts(out, "?");
}

/* Appends e as SQL text to out (see lm_sql.h). Returns 0 or LM_ERR_NOMEM
 * from the buffer. A NULL e prints as "?". */
int lm_sql_expr_to_string(const lm_expr *e, lm_buf *out) {
  return print(e, out, 0);
}
