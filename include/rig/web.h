/* rig/web.h — the web tools: `fetch` (a URL's content as readable text:
 * HTML as Markdown, JSON pretty-printed, text as is) and `web_search` (a
 * query through a configured search provider, results normalized).
 * docs/web.md describes them.
 *
 * fetch never connects to an address that is not a public unicast host
 * (loopback, private, link-local, CGNAT, multicast, ...): every address is
 * checked as its socket is opened, for every redirect hop too, so a DNS
 * answer that changes between lookups cannot slip through. Only hosts the
 * operator names in `allow_hosts` skip that check (a local test server, an
 * intranet wiki), and only for connections to those very hosts.
 *
 * The search provider's URL is the operator's, so it is trusted: it may be
 * a SearXNG instance on this machine. */
#ifndef RIG_WEB_H
#define RIG_WEB_H

#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of fetch (the anchor, Hooman's fetch, has max_length 5000 and a
 * 30 s timeout; it has no size cap or redirect limit of its own). */
#define RIG_FETCH_DEFAULT_MAX_LENGTH 5000     /* characters per call */
#define RIG_FETCH_DEFAULT_TIMEOUT_S 30        /* seconds for all hops together */
#define RIG_FETCH_MAX_TIMEOUT_S 300
#define RIG_FETCH_MAX_BYTES (10 * 1024 * 1024) /* response bytes read, decoded */
#define RIG_FETCH_MAX_REDIRECTS 5
#define RIG_SEARCH_MAX_QUERY 400              /* characters */
#define RIG_SEARCH_MAX_COUNT 20

/* Which search API web_search speaks. */
typedef enum rig_search_kind {
    RIG_SEARCH_NONE = 0, /* not configured: web_search says how to configure it */
    RIG_SEARCH_SEARXNG,  /* GET {url}/search?format=json&q=... */
    RIG_SEARCH_BRAVE     /* GET {url}/res/v1/web/search, X-Subscription-Token */
} rig_search_kind;

/* The default base URL of the Brave Search API. */
#define RIG_SEARCH_BRAVE_URL "https://api.search.brave.com"

/* What the web tools are configured with. Fields may be added at the end;
 * a zeroed struct means the defaults. Everything is copied. */
typedef struct rig_web_opts {
    /* Host names or IP addresses (no port) fetch may reach whatever they
     * resolve to; NULL-ended, or NULL for none. An IPv6 address may be
     * given with or without brackets; IPv4 addresses in any form curl
     * reads (127.1, 2130706433) are compared normalized. */
    const char *const *allow_hosts;
    rig_search_kind search;
    const char *search_url;     /* SearXNG: required; Brave: NULL for RIG_SEARCH_BRAVE_URL */
    const char *search_api_key; /* Brave: required */
    const char *user_agent;     /* NULL: "rig/VERSION (+agent tool runtime)" */
    size_t max_bytes;           /* 0: RIG_FETCH_MAX_BYTES */
} rig_web_opts;

/* Add fetch and web_search to `ts` (web_search also when no provider is
 * configured: it then answers with how to configure one). `o` may be NULL
 * (no allowed hosts, no search). RIG_OK, or an error code with `err`
 * filled: RIG_EINVAL for a provider without its URL or key, RIG_EEXIST when
 * a tool of that name is there already. */
RIG_API int rig_web_tools_add(rig_toolset *ts, const rig_web_opts *o, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
