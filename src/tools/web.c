/* web.c — the web tool family: rig_web_tools_add copies the operator's
 * configuration (allowed hosts, search provider) into one shared state and
 * adds fetch and web_search over it; and the UTF-8 helpers both tools use
 * to keep what they return valid and to count it in characters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "json/internal.h"
#include "rig/rig.h"
#include "tools/web.h"

void rig__web_release(void *p) {
    rig__web *web = p;
    if (!web || __atomic_sub_fetch(&web->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    for (size_t i = 0; i < web->n_allow; i++)
        free(web->allow_hosts[i]);
    free(web->allow_hosts);
    free(web->search_url);
    free(web->search_key);
    free(web->user_agent);
    free(web);
}

static char *copy(const char *s, bool *oom) {
    if (!s)
        return NULL;
    char *c = strdup(s);
    if (!c)
        *oom = true;
    return c;
}

static rig__web *web_new(const rig_web_opts *o, rig_error *err) {
    static const rig_web_opts none = {0};
    if (!o)
        o = &none;
    if (o->search == RIG_SEARCH_SEARXNG && (!o->search_url || !*o->search_url)) {
        rig_error_set(err, RIG_EINVAL, "The SearXNG search provider needs its URL "
                                       "(e.g. http://127.0.0.1:8888).");
        return NULL;
    }
    if (o->search == RIG_SEARCH_BRAVE && (!o->search_api_key || !*o->search_api_key)) {
        rig_error_set(err, RIG_EINVAL, "The Brave search provider needs an API key.");
        return NULL;
    }
    if (o->search != RIG_SEARCH_NONE && o->search != RIG_SEARCH_SEARXNG &&
        o->search != RIG_SEARCH_BRAVE) {
        rig_error_set(err, RIG_EINVAL, "Unknown search provider %d.", (int)o->search);
        return NULL;
    }
    rig__web *web = calloc(1, sizeof *web);
    if (!web)
        goto nomem;
    web->refs = 1;
    bool oom = false;
    size_t n = 0;
    while (o->allow_hosts && o->allow_hosts[n])
        n++;
    if (n) {
        web->allow_hosts = calloc(n, sizeof *web->allow_hosts);
        if (!web->allow_hosts)
            goto nomem;
        for (size_t i = 0; i < n; i++) {
            if (!*o->allow_hosts[i] || strpbrk(o->allow_hosts[i], "/ \t\r\n")) {
                rig_error_set(err, RIG_EINVAL,
                              "'%s' is not a host to allow: give a host name or IP "
                              "address, without a scheme, path or port.",
                              o->allow_hosts[i]);
                rig__web_release(web);
                return NULL;
            }
            web->allow_hosts[i] = rig__web_host_norm(o->allow_hosts[i]);
            if (!web->allow_hosts[i])
                goto nomem;
            web->n_allow = i + 1;
        }
    }
    web->search = o->search;
    const char *url = o->search_url;
    if (o->search == RIG_SEARCH_BRAVE && (!url || !*url))
        url = RIG_SEARCH_BRAVE_URL;
    web->search_url = copy(o->search == RIG_SEARCH_NONE ? NULL : url, &oom);
    if (web->search_url) {
        size_t len = strlen(web->search_url);
        while (len > 0 && web->search_url[len - 1] == '/')
            web->search_url[--len] = '\0';
    }
    web->search_key = copy(o->search_api_key, &oom);
    if (o->user_agent) {
        web->user_agent = copy(o->user_agent, &oom);
    } else {
        char ua[96];
        snprintf(ua, sizeof ua, "Mozilla/5.0 (compatible; rig/%s; +agent tool runtime)",
                 rig_version());
        web->user_agent = copy(ua, &oom);
    }
    web->max_bytes = o->max_bytes ? o->max_bytes : RIG_FETCH_MAX_BYTES;
    if (oom)
        goto nomem;
    return web;
nomem:
    rig__web_release(web);
    rig_error_set(err, RIG_ENOMEM, "Out of memory configuring the web tools.");
    return NULL;
}

int rig_web_tools_add(rig_toolset *ts, const rig_web_opts *o, rig_error *err) {
    if (!ts)
        return rig_error_set(err, RIG_EINVAL, "No toolset was given.");
    rig__web *web = web_new(o, err);
    if (!web)
        return err ? err->code : RIG_EINVAL;
    rig_tool *(*const makers[])(rig__web *, rig_error *) = {rig__fetch_tool_new,
                                                            rig__web_search_tool_new};
    int rc = RIG_OK;
    for (size_t i = 0; i < sizeof makers / sizeof *makers && rc == RIG_OK; i++)
        rc = rig__toolset_adopt(ts, makers[i](web, err), err);
    rig__web_release(web); /* each tool holds its own reference */
    return rc;
}

/* ---- UTF-8 -------------------------------------------------------------- */

size_t rig__utf8_chars(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t rig__utf8_add_valid(rig__buf *b, const char *s, size_t n) {
    static const char fffd[3] = {(char)0xEF, (char)0xBF, (char)0xBD};
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t bad = 0;
    rig__buf_reserve(b, n);
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p < 0x80 && *p)
            p++;
        rig__buf_add(b, run, (size_t)(p - run));
        if (p == end)
            break;
        if (!*p) { /* a NUL would end the text early wherever it is read as a C string */
            rig__buf_add(b, fffd, 3);
            bad++;
            p++;
            continue;
        }
        size_t k = rig__utf8_seq(p, end);
        if (k) {
            rig__buf_add(b, p, k);
            p += k;
        } else {
            rig__buf_add(b, fffd, 3);
            bad++;
            p++;
        }
    }
    return bad;
}
