/*
 * exec/regex_are.c — PostgreSQL's regular expressions (Spencer's ARE
 * syntax) rewritten for PCRE2 where the two read the same text
 * differently. Used by the PostgreSQL regex operators and functions (~,
 * regexp_*, regexp_split_to_table, SIMILAR TO), not by regexp_extract.
 */
#ifndef LM_REGEX_ARE_H
#define LM_REGEX_ARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lm_base.h"

/* Rewrites the ARE pattern p (n bytes, UTF-8) for pcre2_compile into out
 * (appended; not NUL-terminated) and adjusts *opts (PCRE2 option bits):
 *
 *   ***= / ***: director    literal pattern (PCRE2_LITERAL) / ARE
 *   (?flags) at the start   embedded options b c e i m n p q s t w x
 *   \m \M [[:<:]] [[:>:]]   start / end of a word
 *   \y \Y                   word boundary / not one (\b \B in PCRE2)
 *   \Z                      end of the string only (\z)
 *   \b \B \v                backspace, a backslash, vertical tab
 *   \xhhh \uhhhh \Uhhhhhhhh hex character codes
 *   [^...] with n / p       does not match a newline either
 *
 * PCRE2-only escapes (\Q \E \K \G \z \h \R \X \N \p \g \k \o ...) and
 * options in the middle of the pattern are PostgreSQL's errors. Returns 0,
 * or -1 with PostgreSQL's message ("invalid regular expression: invalid
 * escape \ sequence", SQLSTATE 2201B) in msg (msg_size bytes);
 * LM_ERR_NOMEM as -2. */
int lm_regex_are(const char *p, size_t n, uint32_t *opts, lm_buf *out,
                 char *msg, size_t msg_size);

/* Applies PostgreSQL's regex option letter c (b c e i m n p q s t w x;
 * 9.7.3.4) to *opts (PCRE2 option bits); *lit set for q (a literal
 * pattern). false, *opts unchanged, for any other letter and for b (BRE,
 * not supported). */
bool lm_regex_option(char c, uint32_t *opts, bool *lit);

/* Whether the literal pattern re (len bytes) compiles as PostgreSQL's
 * regex with the flags letters given (flags may be NULL with flen 0;
 * letters other than the option letters are ignored here): 0, or -1 with
 * PostgreSQL's message in msg (SQLSTATE 2201B). For the binder's check of
 * constant patterns. */
int lm_regex_check_pg(const char *re, size_t len, const char *flags,
                      size_t flen, char *msg, size_t msg_size);

#endif
