/*
 * transport/endpoint.c — parsing endpoint strings ("-", paths,
 * file://, tcp://, tcp-listen://, unix://, unix-listen://) into
 * lm_endpoint values. The grammar is in lm_transport.h.
 */
#include <stdio.h>
#include <string.h>

#include "transport/lm_transport.h"

/* Length of a URL scheme followed by "://" at the start of s, else 0. */
static size_t scheme_len(const char *s) {
  size_t i = 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
    return 0;
  while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
         (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' ||
         s[i] == '.')
    i++;
  return strncmp(s + i, "://", 3) == 0 ? i : 0;
}

static bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/* Parses "HOST:PORT" or "[V6]:PORT" (optionally followed by one "/"). */
static int parse_hostport(const char *text, const char *a, bool listen,
                          lm_endpoint *ep, lm_error *err) {
  const char *hs, *he, *p;
  if (*a == '[') {
    hs = a + 1;
    he = strchr(hs, ']');
    if (!he)
      return lm_err(err, LM_ERR_INVALID, "'%s': missing ']' after IPv6 address",
                    text);
    for (const char *c = hs; c < he; c++)
      if (!host_char(*c) && *c != ':' && *c != '%')
        return lm_err(err, LM_ERR_INVALID,
                      "'%s': invalid character in IPv6 address", text);
    if (!memchr(hs, ':', (size_t)(he - hs)))
      return lm_err(err, LM_ERR_INVALID,
                    "'%s': brackets are only for IPv6 addresses", text);
    p = he + 1;
  } else {
    hs = a;
    he = a;
    while (*he && *he != ':' && *he != '/')
      he++;
    for (const char *c = hs; c < he; c++)
      if (!host_char(*c))
        return lm_err(err, LM_ERR_INVALID,
                      "'%s': invalid character '%c' in host name", text,
                      (*c >= 0x20 && *c < 0x7f) ? *c : '?');
    p = he;
    if (*p == ':' && strchr(p + 1, ':'))
      return lm_err(err, LM_ERR_INVALID,
                    "'%s': write an IPv6 address in brackets, "
                    "e.g. tcp://[::1]:9000",
                    text);
  }
  if (he == hs)
    return lm_err(err, LM_ERR_INVALID, "'%s': missing host (e.g. %s)", text,
                  listen ? "tcp-listen://127.0.0.1:9000"
                         : "tcp://127.0.0.1:9000");
  if ((size_t)(he - hs) >= sizeof ep->host)
    return lm_err(err, LM_ERR_INVALID, "'%s': host name too long", text);
  if (*p != ':' || !p[1] || p[1] == '/')
    return lm_err(err, LM_ERR_INVALID, "'%s': missing port (HOST:PORT)", text);
  p++;
  long port = 0;
  int nd = 0;
  while (*p >= '0' && *p <= '9' && nd <= 5) {
    port = port * 10 + (*p++ - '0');
    nd++;
  }
  if (nd == 0)
    return lm_err(err, LM_ERR_INVALID, "'%s': bad port: expected digits", text);
  if (nd > 5 || port > 65535)
    return lm_err(err, LM_ERR_INVALID, "'%s': port out of range %s..65535",
                  text, listen ? "0" : "1");
  if (*p && strcmp(p, "/") != 0)
    return lm_err(err, LM_ERR_INVALID,
                  "'%s': unexpected text after the port (expected HOST:PORT)",
                  text);
  if (port == 0 && !listen)
    return lm_err(err, LM_ERR_INVALID, "'%s': port out of range 1..65535",
                  text);
  memcpy(ep->host, hs, (size_t)(he - hs));
  ep->host[he - hs] = '\0';
  ep->port = (int)port;
  bool v6 = strchr(ep->host, ':') != NULL;
  snprintf(ep->name, sizeof ep->name, "%s://%s%s%s:%d",
           listen ? "tcp-listen" : "tcp", v6 ? "[" : "", ep->host,
           v6 ? "]" : "", ep->port);
  return 0;
}

int lm_endpoint_parse(const char *text, lm_endpoint *ep, lm_error *err) {
  memset(ep, 0, sizeof *ep);
  if (!text || !*text)
    return lm_err(err, LM_ERR_INVALID, "empty endpoint");
  size_t n = strlen(text);
  if (n > LM_EP_MAX_TEXT)
    return lm_err(err, LM_ERR_INVALID, "endpoint longer than %d bytes",
                  LM_EP_MAX_TEXT);
  if (!strcmp(text, "-")) {
    ep->kind = LM_EP_STDIO;
    strcpy(ep->name, "-");
    return 0;
  }
  size_t sl = scheme_len(text);
  if (sl == 0) {
    ep->kind = LM_EP_FILE;
    memcpy(ep->path, text, n + 1);
    memcpy(ep->name, text, n + 1);
    return 0;
  }
  const char *rest = text + sl + 3;
#define SCHEME(s) (sl == strlen(s) && !strncmp(text, s, sl))
  if (SCHEME("tcp") || SCHEME("tcp-listen")) {
    bool listen = SCHEME("tcp-listen");
    ep->kind = listen ? LM_EP_TCP_LISTEN : LM_EP_TCP;
    return parse_hostport(text, rest, listen, ep, err);
  }
  if (SCHEME("unix") || SCHEME("unix-listen") || SCHEME("file")) {
    bool file = SCHEME("file");
    if (!*rest)
      return lm_err(err, LM_ERR_INVALID, "'%s': missing path (e.g. %s)", text,
                    file ? "file:///tmp/t.csv" : "unix:///tmp/laminar.sock");
    if (*rest != '/')
      return lm_err(err, LM_ERR_INVALID,
                    "'%s': expected an absolute path after %.*s:// "
                    "(three slashes, e.g. %.*s:///tmp/x)",
                    text, (int)sl, text, (int)sl, text);
    size_t pl = strlen(rest);
    if (file) {
      ep->kind = LM_EP_FILE;
      memcpy(ep->path, rest, pl + 1);
      memcpy(ep->name, rest, pl + 1);
      return 0;
    }
    if (pl > LM_EP_MAX_UNIX_PATH)
      return lm_err(err, LM_ERR_INVALID,
                    "'%.64s...': Unix socket path longer than %d bytes", text,
                    LM_EP_MAX_UNIX_PATH);
    bool listen = SCHEME("unix-listen");
    ep->kind = listen ? LM_EP_UNIX_LISTEN : LM_EP_UNIX;
    memcpy(ep->path, rest, pl + 1);
    snprintf(ep->name, sizeof ep->name, "%s://%s",
             listen ? "unix-listen" : "unix", ep->path);
    return 0;
  }
#undef SCHEME
  return lm_err(err, LM_ERR_INVALID,
                "'%.200s': unsupported scheme '%.*s' (use a path, '-', "
                "file://, tcp://, tcp-listen://, unix:// or unix-listen://)",
                text, (int)LM_MIN(sl, 64), text);
}

bool lm_endpoint_is_socket(const lm_endpoint *ep) {
  return ep->kind == LM_EP_TCP || ep->kind == LM_EP_TCP_LISTEN ||
         ep->kind == LM_EP_UNIX || ep->kind == LM_EP_UNIX_LISTEN;
}

bool lm_endpoint_is_listen(const lm_endpoint *ep) {
  return ep->kind == LM_EP_TCP_LISTEN || ep->kind == LM_EP_UNIX_LISTEN;
}
