/* web.h — what the web tools (fetch, web_search) share: their
 * configuration and the guarded HTTP GET both make their requests with.
 * Internal.
 *
 * The GET follows redirects itself, one hop at a time, deciding each hop
 * again (scheme, host, allowlist) and checking every address a socket is
 * opened for (ssrf.h), so nothing but a public host or an allowlisted one
 * is ever connected to. */
#ifndef RIG_TOOLS_WEB_H
#define RIG_TOOLS_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/tool.h"
#include "rig/web.h"
#include "util/buf.h"
#include "util/compiler.h"

/* The web tools' configuration, copied from rig_web_opts, shared by both
 * tools (reference-counted: each tool holds one reference). */
typedef struct rig__web {
    int refs;
    char **allow_hosts; /* normalized (rig__web_host_norm) */
    size_t n_allow;
    rig_search_kind search;
    char *search_url;   /* without a trailing '/' */
    char *search_key;
    char *user_agent;
    size_t max_bytes;
} rig__web;

RIG_INTERNAL void rig__web_release(void *web);

/* `host` as the allowlist compares it: lowercased, IPv6 brackets and zone
 * dropped, an IPv4 address in any form curl reads (127.1, 0x7f.1)
 * normalized to a dotted quad. A malloc'd string, or NULL. */
RIG_INTERNAL char *rig__web_host_norm(const char *host);
/* Is `host` (normalized) on the allowlist? */
RIG_INTERNAL bool rig__web_host_allowed(const rig__web *web, const char *host);

/* May a redirect go from a URL of scheme `from` to one of scheme `to`?
 * Only http and https are ever fetched, and https never goes down to http
 * (what was asked over TLS is not then sent in the clear). NULL when it may,
 * else why not. */
RIG_INTERNAL const char *rig__redirect_refused(const char *from, const char *to);

typedef struct rig__http_req {
    const char *url;
    const char *const *headers; /* "Name: value" lines, NULL-ended, or NULL */
    int64_t timeout_ms;         /* for all hops together */
    const char *trusted_host;   /* a host (normalized) that skips the address
                                 * check: the operator's search provider; or NULL */
    rig_call *call;             /* cancellation and the call's deadline; may be NULL */
} rig__http_req;

typedef struct rig__http_resp {
    long status;
    char *body;          /* NUL-terminated; at most web->max_bytes bytes */
    size_t len;
    bool capped;         /* the body was longer than the cap and was cut */
    char *content_type;  /* as the server sent it, or NULL */
    char *final_url;     /* after redirects */
    int redirects;
} rig__http_resp;

/* Why a GET failed, for the message and for tests. */
typedef enum rig__http_fail {
    RIG__HTTP_OK = 0,
    RIG__HTTP_BAD_URL,     /* not a URL, or a scheme other than http/https */
    RIG__HTTP_BLOCKED,     /* an address the SSRF guard refuses */
    RIG__HTTP_REDIRECTS,   /* too many, or a refused one */
    RIG__HTTP_TIMEOUT,
    RIG__HTTP_CANCELLED,
    RIG__HTTP_NETWORK,     /* DNS, connect, TLS, protocol */
    RIG__HTTP_NOMEM
} rig__http_fail;

/* GET req->url as web allows. RIG__HTTP_OK with *out filled (free it with
 * rig__http_resp_free; any HTTP status is OK here), or why not with a
 * sentence in `why` a model can act on. */
RIG_INTERNAL rig__http_fail rig__web_get(const rig__web *web, const rig__http_req *req,
                                         rig__http_resp *out, rig__buf *why);
RIG_INTERNAL void rig__http_resp_free(rig__http_resp *r);

/* Tests only: CURLOPT_RESOLVE entries ("HOST:PORT:ADDRESS", NULL-ended;
 * NULL for none) every request made after this uses. They make a name
 * resolve to an address without DNS, which shows that the check is on the
 * address connected to, not the name. The array must outlive the requests;
 * not thread-safe: set it before calls run. */
RIG_INTERNAL void rig__web_test_resolve(const char *const *entries);

/* The tools (fetch.c, search.c); each takes a reference to `web`. */
RIG_INTERNAL rig_tool *rig__fetch_tool_new(rig__web *web, rig_error *err);
RIG_INTERNAL rig_tool *rig__web_search_tool_new(rig__web *web, rig_error *err);

/* Count the code points of valid UTF-8 `s`. */
RIG_INTERNAL size_t rig__utf8_chars(const char *s, size_t len);
/* Append `n` bytes to `b` as valid UTF-8: each invalid byte becomes U+FFFD.
 * Returns how many were replaced. */
RIG_INTERNAL size_t rig__utf8_add_valid(rig__buf *b, const char *p, size_t n);

#endif
