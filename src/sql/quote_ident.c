/*
 * sql/quote_ident.c — PostgreSQL's quote_identifier: how a name is written
 * back as SQL text (format()'s %I and quote_ident() in exec, EXPLAIN in
 * api, the AST printer here), with PostgreSQL 15's keyword list.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/lm_base.h"
#include "sql/lm_sql.h"

/* PostgreSQL 15's keywords that are not unreserved (pg_get_keywords()
 * catcode <> 'U'): quote_ident quotes them. Sorted. */
static const char *const pg_keywords[] = {"all",
                                          "analyse",
                                          "analyze",
                                          "and",
                                          "any",
                                          "array",
                                          "as",
                                          "asc",
                                          "asymmetric",
                                          "authorization",
                                          "between",
                                          "bigint",
                                          "binary",
                                          "bit",
                                          "boolean",
                                          "both",
                                          "case",
                                          "cast",
                                          "char",
                                          "character",
                                          "check",
                                          "coalesce",
                                          "collate",
                                          "collation",
                                          "column",
                                          "concurrently",
                                          "constraint",
                                          "create",
                                          "cross",
                                          "current_catalog",
                                          "current_date",
                                          "current_role",
                                          "current_schema",
                                          "current_time",
                                          "current_timestamp",
                                          "current_user",
                                          "dec",
                                          "decimal",
                                          "default",
                                          "deferrable",
                                          "desc",
                                          "distinct",
                                          "do",
                                          "else",
                                          "end",
                                          "except",
                                          "exists",
                                          "extract",
                                          "false",
                                          "fetch",
                                          "float",
                                          "for",
                                          "foreign",
                                          "freeze",
                                          "from",
                                          "full",
                                          "grant",
                                          "greatest",
                                          "group",
                                          "grouping",
                                          "having",
                                          "ilike",
                                          "in",
                                          "initially",
                                          "inner",
                                          "inout",
                                          "int",
                                          "integer",
                                          "intersect",
                                          "interval",
                                          "into",
                                          "is",
                                          "isnull",
                                          "join",
                                          "lateral",
                                          "leading",
                                          "least",
                                          "left",
                                          "like",
                                          "limit",
                                          "localtime",
                                          "localtimestamp",
                                          "national",
                                          "natural",
                                          "nchar",
                                          "none",
                                          "normalize",
                                          "not",
                                          "notnull",
                                          "null",
                                          "nullif",
                                          "numeric",
                                          "offset",
                                          "on",
                                          "only",
                                          "or",
                                          "order",
                                          "out",
                                          "outer",
                                          "overlaps",
                                          "overlay",
                                          "placing",
                                          "position",
                                          "precision",
                                          "primary",
                                          "real",
                                          "references",
                                          "returning",
                                          "right",
                                          "row",
                                          "select",
                                          "session_user",
                                          "setof",
                                          "similar",
                                          "smallint",
                                          "some",
                                          "substring",
                                          "symmetric",
                                          "table",
                                          "tablesample",
                                          "then",
                                          "time",
                                          "timestamp",
                                          "to",
                                          "trailing",
                                          "treat",
                                          "trim",
                                          "true",
                                          "union",
                                          "unique",
                                          "user",
                                          "using",
                                          "values",
                                          "varchar",
                                          "variadic",
                                          "verbose",
                                          "when",
                                          "where",
                                          "window",
                                          "with",
                                          "xmlattributes",
                                          "xmlconcat",
                                          "xmlelement",
                                          "xmlexists",
                                          "xmlforest",
                                          "xmlnamespaces",
                                          "xmlparse",
                                          "xmlpi",
                                          "xmlroot",
                                          "xmlserialize",
                                          "xmltable"};

static int kw_cmp(const void *k, const void *e) {
  return strcmp(k, *(const char *const *)e);
}

/* PostgreSQL's quote_identifier of s[0, n) appended to o (lm_strfn.h). */
int lm_quote_ident(lm_buf *o, const char *s, int32_t n) {
  bool safe = n > 0 && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_');
  for (int32_t k = 0; k < n && safe; k++)
    safe = (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') ||
           s[k] == '_';
  if (safe && n < 64) {
    char w[64];
    memcpy(w, s, (size_t)n);
    w[n] = '\0';
    safe = !bsearch(w, pg_keywords, LM_ARRAY_LEN(pg_keywords),
                    sizeof pg_keywords[0], kw_cmp);
  }
  if (safe)
    return lm_buf_append(o, s, (size_t)n);
  int rc = lm_buf_putc(o, '"');
  for (int32_t k = 0; !rc && k < n; k++) {
    if (s[k] == '"')
      rc = lm_buf_putc(o, '"');
    if (!rc)
      rc = lm_buf_putc(o, s[k]);
  }
  return rc ? rc : lm_buf_putc(o, '"');
}
