/* web_get.c — the guarded HTTP GET under fetch and web_search (web.h).
 *
 * libcurl does the transfer; the guard is ours:
 *   - redirects are followed here, not by curl (FOLLOWLOCATION is off), at
 *     most RIG_FETCH_MAX_REDIRECTS: each Location is resolved against the
 *     URL it came from with curl_url(), and each hop is decided again — its
 *     scheme (http/https only, no https -> http), its host (allowlisted or
 *     not) — on a fresh easy handle, so no connection is carried from an
 *     allowlisted host to another;
 *   - every socket curl opens passes CURLOPT_OPENSOCKETFUNCTION, which
 *     checks the very address about to be connected to (rig__addr_blocked)
 *     unless the hop's host is allowlisted. The check is on the address,
 *     never the name, so a name whose DNS answer changes between lookups
 *     (rebinding), or that resolves to a private address from the start,
 *     is refused at connect time, before a packet leaves;
 *   - proxies from the environment are not used for fetch (the guard could
 *     only see the proxy's address, not the target's);
 *   - the body is read up to a cap (decoded: a gzip bomb stops there too);
 *   - the call's cancellation and deadline abort the transfer from the
 *     progress callback, which curl runs at least once a second.
 *
 * Custom header lines travel with same-origin redirects only: a redirect
 * to another scheme, host or port drops them (as curl does for credentials),
 * so a token meant for one site is not handed to the next. */
#define _GNU_SOURCE
#include <ctype.h>
#include "util/dl_curl.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/ssrf.h"
#include "tools/web.h"
#include "util/monotime.h"

static const char *const *test_resolve; /* rig__web_test_resolve */

void rig__web_test_resolve(const char *const *entries) { test_resolve = entries; }

/* ---- hosts and schemes -------------------------------------------------- */

char *rig__web_host_norm(const char *host) {
    if (!host)
        return NULL;
    /* Let curl's URL parser read it, as it will when connecting: that
     * normalizes the IPv4 forms (127.1, 2130706433, 0x7f.0.0.1). */
    size_t n = strlen(host);
    char *url = malloc(n + 12);
    if (!url)
        return NULL;
    bool v6 = strchr(host, ':') && host[0] != '[';
    snprintf(url, n + 12, "http://%s%s%s/", v6 ? "[" : "", host, v6 ? "]" : "");
    char *got = NULL;
    /* without libcurl there is nothing to fetch with: the host as given */
    CURLU *u = rig__curl_load(NULL, 0) == 0 ? curl_url() : NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK)
        curl_url_get(u, CURLUPART_HOST, &got, 0);
    if (u)
        curl_url_cleanup(u);
    free(url);
    const char *s = got ? got : host;
    size_t len = strlen(s);
    if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
        s++;
        len -= 2;
    }
    const char *zone = memchr(s, '%', len); /* fe80::1%eth0: the zone is not the host */
    if (zone)
        len = (size_t)(zone - s);
    char *out = malloc(len + 1);
    if (out) {
        for (size_t i = 0; i < len; i++)
            out[i] = (char)tolower((unsigned char)s[i]);
        out[len] = '\0';
        /* A trailing dot names the same host ("example.com." == "example.com"). */
        if (len > 1 && out[len - 1] == '.')
            out[len - 1] = '\0';
    }
    curl_free(got);
    return out;
}

bool rig__web_host_allowed(const rig__web *web, const char *host) {
    if (!web || !host)
        return false;
    for (size_t i = 0; i < web->n_allow; i++)
        if (strcmp(web->allow_hosts[i], host) == 0)
            return true;
    return false;
}

const char *rig__redirect_refused(const char *from, const char *to) {
    if (!to || (strcasecmp(to, "http") != 0 && strcasecmp(to, "https") != 0))
        return "it leads to a scheme other than http or https";
    if (from && strcasecmp(from, "https") == 0 && strcasecmp(to, "http") == 0)
        return "it goes from https down to plain http";
    return NULL;
}

/* ---- one hop ------------------------------------------------------------ */

typedef struct hop {
    const rig__http_req *req;
    const rig__web *web;
    bool check;         /* check addresses (the host is not allowlisted) */
    bool blocked;
    char why[160];      /* the first refused address and its range */
    rig__buf body;
    size_t cap;
    bool capped;
    bool cancelled, timed_out;
    int64_t deadline;   /* rig__now_ms() clock; INT64_MAX: none */
} hop;

static curl_socket_t open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a) {
    hop *h = ud;
    if (purpose != CURLSOCKTYPE_IPCXN) {
        if (!h->blocked)
            snprintf(h->why, sizeof h->why, "a connection of a kind fetch never makes");
        h->blocked = true;
        return CURL_SOCKET_BAD;
    }
    char why[160];
    if (h->check && rig__addr_blocked(&a->addr, (socklen_t)a->addrlen, why, sizeof why)) {
        if (!h->blocked)
            snprintf(h->why, sizeof h->why, "%s", why);
        h->blocked = true;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
    hop *h = ud;
    size_t len = size * n;
    size_t room = h->cap - h->body.len;
    if (len > room) {
        rig__buf_add(&h->body, p, room);
        h->capped = true;
        return 0; /* stop the transfer: CURLE_WRITE_ERROR, read as "capped" */
    }
    rig__buf_add(&h->body, p, len);
    return h->body.oom ? 0 : len;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
    (void)dt, (void)dn, (void)ut, (void)un;
    hop *h = ud;
    if (h->req->call && rig_call_cancelled(h->req->call)) {
        if (rig_call_remaining_ms(h->req->call) <= 0)
            h->timed_out = true;
        else
            h->cancelled = true;
        return 1;
    }
    if (rig__now_ms() >= h->deadline) {
        h->timed_out = true;
        return 1;
    }
    return 0;
}

/* Is this status a redirect fetch follows? */
static bool is_redirect(long status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static bool same_origin(CURLU *a, CURLU *b) {
    static const CURLUPart parts[] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
    bool same = true;
    for (size_t i = 0; i < 3 && same; i++) {
        char *x = NULL, *y = NULL;
        curl_url_get(a, parts[i], &x, CURLU_DEFAULT_PORT);
        curl_url_get(b, parts[i], &y, CURLU_DEFAULT_PORT);
        same = x && y && strcasecmp(x, y) == 0;
        curl_free(x);
        curl_free(y);
    }
    return same;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

rig__http_fail rig__web_get(const rig__web *web, const rig__http_req *req, rig__http_resp *out,
                            rig__buf *why) {
    memset(out, 0, sizeof *out);
    char dlwhy[300];
    if (rig__curl_load(dlwhy, sizeof dlwhy) != 0) {
        rig__buf_adds(why, dlwhy);
        return RIG__HTTP_NETWORK;
    }
    pthread_once(&curl_once, curl_init);
    rig__http_fail fail = RIG__HTTP_OK;
    CURLU *url = curl_url();
    CURL *easy = NULL;
    struct curl_slist *headers = NULL, *resolve = NULL;
    char *scheme = NULL, *host_raw = NULL, *host = NULL, *url_text = NULL;
    hop h = {.req = req, .web = web};
    bool resolve_done = false;
    if (!url)
        goto nomem;
    int64_t start = rig__now_ms();
    h.deadline = req->timeout_ms > 0 ? start + req->timeout_ms : INT64_MAX;
    if (req->call && rig_call_remaining_ms(req->call) < INT64_MAX / 2) {
        int64_t call_deadline = start + rig_call_remaining_ms(req->call);
        if (call_deadline < h.deadline)
            h.deadline = call_deadline;
    }
    for (const char *const *hl = req->headers; hl && *hl; hl++) {
        struct curl_slist *grown = curl_slist_append(headers, *hl);
        if (!grown)
            goto nomem;
        headers = grown;
    }
    CURLUcode uc = curl_url_set(url, CURLUPART_URL, req->url, 0);
    if (uc != CURLUE_OK) {
        rig__buf_addf(why, "'%s' is not a URL fetch can read (%s). Give a full http:// or "
                           "https:// URL, e.g. https://example.com/page.",
                      req->url, curl_url_strerror(uc));
        fail = RIG__HTTP_BAD_URL;
        goto done;
    }
    for (int redirects = 0;; redirects++) {
        free(host);
        curl_free(scheme);
        curl_free(host_raw);
        curl_free(url_text);
        scheme = host_raw = url_text = NULL;
        host = NULL;
        if (curl_url_get(url, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
            curl_url_get(url, CURLUPART_URL, &url_text, 0) != CURLUE_OK)
            goto nomem;
        if (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0) {
            if (redirects)
                rig__buf_addf(why, "The redirect to '%s' was refused: fetch reads http and "
                                   "https URLs only.",
                              url_text);
            else
                rig__buf_addf(why, "fetch reads http and https URLs only; '%s' (a %s: URL) is "
                                   "refused. Give an http:// or https:// URL.",
                              url_text, scheme);
            fail = redirects ? RIG__HTTP_REDIRECTS : RIG__HTTP_BAD_URL;
            goto done;
        }
        if (curl_url_get(url, CURLUPART_HOST, &host_raw, 0) != CURLUE_OK || !*host_raw) {
            rig__buf_addf(why, "'%s' names no host. Give a full http:// or https:// URL.",
                          url_text);
            fail = RIG__HTTP_BAD_URL;
            goto done;
        }
        host = rig__web_host_norm(host_raw);
        if (!host)
            goto nomem;
        h.check = !rig__web_host_allowed(web, host) &&
                  !(req->trusted_host && strcmp(req->trusted_host, host) == 0);
        h.blocked = false;
        h.why[0] = '\0';
        rig__buf_free(&h.body);
        h.capped = false;
        h.cap = web && web->max_bytes ? web->max_bytes : RIG_FETCH_MAX_BYTES;

        easy = curl_easy_init();
        if (!easy)
            goto nomem;
        curl_easy_setopt(easy, CURLOPT_CURLU, url);
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, &h);
        if (!req->trusted_host)
            curl_easy_setopt(easy, CURLOPT_PROXY, ""); /* the guard must see the target */
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(easy, CURLOPT_USERAGENT, web && web->user_agent ? web->user_agent
                                                                          : "rig");
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &h);
        curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &h);
        int64_t left = h.deadline == INT64_MAX ? 0 : h.deadline - rig__now_ms();
        if (h.deadline != INT64_MAX) {
            if (left <= 0) {
                h.timed_out = true;
                break;
            }
            curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)left);
        }
        if (headers)
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        for (const char *const *e = test_resolve; e && *e && !resolve_done; e++) {
            struct curl_slist *grown = curl_slist_append(resolve, *e);
            if (!grown)
                goto nomem;
            resolve = grown;
        }
        resolve_done = true;
        if (resolve)
            curl_easy_setopt(easy, CURLOPT_RESOLVE, resolve);

        CURLcode rc = curl_easy_perform(easy);
        if (h.body.oom)
            goto nomem;
        if (h.blocked) {
            rig__buf_addf(why, "Refused to connect to %s%s: %s. fetch reaches public internet "
                               "hosts only (the operator can allow a host with --allow-host "
                               "or allow_hosts in the config file).",
                          host_raw, redirects ? " (reached by a redirect)" : "", h.why);
            fail = RIG__HTTP_BLOCKED;
            goto done;
        }
        if (h.cancelled || (rc == CURLE_ABORTED_BY_CALLBACK && !h.timed_out)) {
            rig__buf_addf(why, "The fetch of %s was cancelled.", url_text);
            fail = RIG__HTTP_CANCELLED;
            goto done;
        }
        if (h.timed_out || rc == CURLE_OPERATION_TIMEDOUT) {
            rig__buf_addf(why, "The fetch of %s timed out after %.1f s (%s). Try again with a "
                               "larger timeout, or another URL.",
                          url_text, (double)(rig__now_ms() - start) / 1000.0,
                          h.body.len ? "the body came too slowly" : "no complete answer");
            fail = RIG__HTTP_TIMEOUT;
            goto done;
        }
        if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && h.capped)) {
            const char *what = curl_easy_strerror(rc);
            if (rc == CURLE_COULDNT_RESOLVE_HOST)
                rig__buf_addf(why, "Could not resolve the host '%s' of %s: check the URL.",
                              host_raw, url_text);
            else
                rig__buf_addf(why, "Fetching %s failed: %s.", url_text, what);
            fail = RIG__HTTP_NETWORK;
            goto done;
        }
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        struct curl_header *loc = NULL;
        if (is_redirect(status) &&
            curl_easy_header(easy, "Location", 0, CURLH_HEADER, -1, &loc) == CURLHE_OK &&
            loc->value && *loc->value) {
            if (redirects == RIG_FETCH_MAX_REDIRECTS) {
                rig__buf_addf(why, "%s redirected more than %d times; fetch stops there. The "
                                   "last hop was %s.",
                              req->url, RIG_FETCH_MAX_REDIRECTS, url_text);
                fail = RIG__HTTP_REDIRECTS;
                goto done;
            }
            if (strpbrk(loc->value, "\r\n")) {
                rig__buf_addf(why, "%s sent a malformed redirect.", url_text);
                fail = RIG__HTTP_REDIRECTS;
                goto done;
            }
            /* The next URL: Location resolved against this one. */
            CURLU *next = curl_url_dup(url);
            if (!next)
                goto nomem;
            uc = curl_url_set(next, CURLUPART_URL, loc->value, 0);
            if (uc != CURLUE_OK) {
                rig__buf_addf(why, "%s redirected to '%s', which is not a URL (%s).", url_text,
                              loc->value, curl_url_strerror(uc));
                curl_url_cleanup(next);
                fail = RIG__HTTP_REDIRECTS;
                goto done;
            }
            char *next_scheme = NULL;
            curl_url_get(next, CURLUPART_SCHEME, &next_scheme, 0);
            const char *no = rig__redirect_refused(scheme, next_scheme);
            if (no) {
                char *next_text = NULL;
                curl_url_get(next, CURLUPART_URL, &next_text, 0);
                rig__buf_addf(why, "%s redirected to %s, which fetch refuses: %s.", url_text,
                              next_text ? next_text : loc->value, no);
                curl_free(next_text);
                curl_free(next_scheme);
                curl_url_cleanup(next);
                fail = RIG__HTTP_REDIRECTS;
                goto done;
            }
            curl_free(next_scheme);
            if (!same_origin(url, next)) { /* the caller's headers stay with their origin */
                curl_slist_free_all(headers);
                headers = NULL;
            }
            curl_url_cleanup(url);
            url = next;
            curl_easy_cleanup(easy);
            easy = NULL;
            out->redirects = redirects + 1;
            continue;
        }
        out->status = status;
        char *ct = NULL;
        curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &ct);
        out->content_type = dup_or_null(ct);
        out->final_url = strdup(url_text);
        if ((ct && !out->content_type) || !out->final_url)
            goto nomem;
        out->body = h.body.p ? h.body.p : strdup("");
        if (!out->body)
            goto nomem;
        out->len = h.body.len;
        out->capped = h.capped;
        h.body = (rig__buf){0};
        break;
    }
    if (h.timed_out && fail == RIG__HTTP_OK && !out->final_url) {
        rig__buf_addf(why, "The fetch of %s timed out after %.1f s.", req->url,
                      (double)(rig__now_ms() - start) / 1000.0);
        fail = RIG__HTTP_TIMEOUT;
    }
    goto done;
nomem:
    fail = RIG__HTTP_NOMEM;
    rig__buf_free(why);
    rig__buf_adds(why, "Out of memory fetching the URL.");
done:
    if (fail != RIG__HTTP_OK)
        rig__http_resp_free(out);
    rig__buf_free(&h.body);
    curl_easy_cleanup(easy);
    curl_url_cleanup(url);
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
    curl_free(scheme);
    curl_free(host_raw);
    curl_free(url_text);
    free(host);
    return fail;
}

void rig__http_resp_free(rig__http_resp *r) {
    if (!r)
        return;
    free(r->body);
    free(r->content_type);
    free(r->final_url);
    memset(r, 0, sizeof *r);
}
