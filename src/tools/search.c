/* search.c — `web_search`: a query through the search provider the
 * operator configured (rig_web_opts), results normalized to
 * {title, url, snippet, date}.
 *
 * Two wire formats, one table row each (how the arguments map onto the
 * query string, where the results are and what their fields are called):
 *   - SearXNG: GET {url}/search?format=json&q=...; results[{title, url,
 *     content, publishedDate}]. It has no date range, so start_date/end_date
 *     pick the smallest time_range that covers them and results dated
 *     outside the range are dropped here; it has no country parameter, so
 *     country is ignored (the result says so).
 *   - Brave Search API: GET {url}/res/v1/web/search with the key in
 *     X-Subscription-Token; web.results[{title, url, description,
 *     page_age | age}].
 *
 * The provider's URL is the operator's, so it is trusted: the request
 * skips the SSRF address check for that host (a SearXNG on this machine is
 * the common case), though a redirect to another host is checked. */
#define _GNU_SOURCE
#include "util/dl_curl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/internal.h"
#include "tools/builtins.h"
#include "tools/web.h"

#define ERROR_BODY_CHARS 300 /* of a provider's error answer, in the message */

/* ---- arguments ---------------------------------------------------------- */

typedef struct query {
    const char *q;
    int64_t count;
    const char *freshness;        /* day|week|month|year, or NULL */
    const char *start, *end;      /* YYYY-MM-DD, or NULL */
    char country[3];              /* "" if none */
    int safe;                     /* -1 unset, 0 off, 1 on */
} query;

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* A real calendar date written YYYY-MM-DD; its day number in *days. */
static bool date_valid(const char *s, long *days) {
    int y, m, d;
    char tail;
    if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-' ||
        sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3)
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
        return false;
    /* days since 1970-01-01 (civil-from-days inverse, Howard Hinnant) */
    int yy = y - (m <= 2);
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe - 719468;
    return true;
}

static rig_result *read_query(rig_call *call, query *q) {
    memset(q, 0, sizeof *q);
    size_t qlen = 0;
    q->q = rig_call_str(call, "query", &qlen);
    if (!q->q || !*q->q)
        return rig_result_error("A query is needed: call web_search with what to look for.");
    size_t chars = rig__utf8_chars(q->q, qlen);
    if (chars > RIG_SEARCH_MAX_QUERY)
        return rig_result_error("The query is %zu characters; at most %d are allowed. Shorten "
                                "it to the key words.",
                                chars, RIG_SEARCH_MAX_QUERY);
    q->count = rig_call_int(call, "count", 5);
    if (q->count < 1 || q->count > RIG_SEARCH_MAX_COUNT)
        return rig_result_error("count must be from 1 to %d.", RIG_SEARCH_MAX_COUNT);
    q->freshness = rig_call_str(call, "freshness", NULL);
    q->start = rig_call_str(call, "start_date", NULL);
    q->end = rig_call_str(call, "end_date", NULL);
    if (q->freshness && (q->start || q->end))
        return rig_result_error("Give freshness or start_date/end_date, not both.");
    if (!q->start != !q->end)
        return rig_result_error("start_date and end_date go together: give both (YYYY-MM-DD), "
                                "or neither.");
    long ds = 0, de = 0;
    if (q->start && !date_valid(q->start, &ds))
        return rig_result_error("start_date '%s' is not a date: write it YYYY-MM-DD, e.g. "
                                "2025-01-31.",
                                q->start);
    if (q->end && !date_valid(q->end, &de))
        return rig_result_error("end_date '%s' is not a date: write it YYYY-MM-DD, e.g. "
                                "2025-01-31.",
                                q->end);
    if (q->start && ds > de)
        return rig_result_error("start_date %s is after end_date %s.", q->start, q->end);
    const char *c = rig_call_str(call, "country", NULL);
    if (c) {
        if (strlen(c) != 2 || !((c[0] | 32) >= 'a' && (c[0] | 32) <= 'z') ||
            !((c[1] | 32) >= 'a' && (c[1] | 32) <= 'z'))
            return rig_result_error("country '%s' is not a 2-letter country code (e.g. US, "
                                    "DE).",
                                    c);
        q->country[0] = (char)(c[0] & ~32);
        q->country[1] = (char)(c[1] & ~32);
    }
    q->safe = rig_call_has(call, "safe_search") ? rig_call_bool(call, "safe_search", false) : -1;
    return NULL;
}

/* ---- providers ---------------------------------------------------------- */

/* Adds "name=value" (value URL-encoded) to the query of `u`. */
static bool param(CURLU *u, const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 2;
    char *kv = malloc(n);
    if (!kv)
        return false;
    snprintf(kv, n, "%s=%s", name, value);
    bool ok = curl_url_set(u, CURLUPART_QUERY, kv, CURLU_APPENDQUERY | CURLU_URLENCODE) ==
              CURLUE_OK;
    free(kv);
    return ok;
}

static const char *searxng_range(const query *q, long today) {
    if (q->freshness)
        return q->freshness;
    if (!q->start)
        return NULL;
    long ds = 0;
    date_valid(q->start, &ds);
    long back = today - ds;
    return back <= 1 ? "day" : back <= 7 ? "week" : back <= 31 ? "month" : back <= 366 ? "year"
                                                                                       : NULL;
}

static bool searxng_params(CURLU *u, const query *q, long today, rig__buf *notes) {
    bool ok = param(u, "q", q->q) && param(u, "format", "json") && param(u, "pageno", "1");
    const char *range = searxng_range(q, today);
    if (range)
        ok = ok && param(u, "time_range", range);
    if (q->safe >= 0)
        ok = ok && param(u, "safesearch", q->safe ? "2" : "0");
    if (q->country[0])
        rig__buf_addf(notes, "[SearXNG has no country parameter: country=%s was not "
                             "applied.]\n",
                      q->country);
    if (q->start)
        rig__buf_addf(notes, "[SearXNG has no date range: results dated outside %s..%s were "
                             "dropped; undated results are kept.]\n",
                      q->start, q->end);
    return ok;
}

static bool brave_params(CURLU *u, const query *q, long today, rig__buf *notes) {
    (void)today, (void)notes;
    char n[24], range[32];
    snprintf(n, sizeof n, "%lld", (long long)q->count);
    bool ok = param(u, "q", q->q) && param(u, "count", n);
    if (q->freshness) {
        const char *f = !strcmp(q->freshness, "day")    ? "pd"
                        : !strcmp(q->freshness, "week")  ? "pw"
                        : !strcmp(q->freshness, "month") ? "pm"
                                                         : "py";
        ok = ok && param(u, "freshness", f);
    } else if (q->start) {
        snprintf(range, sizeof range, "%sto%s", q->start, q->end);
        ok = ok && param(u, "freshness", range);
    }
    if (q->country[0])
        ok = ok && param(u, "country", q->country);
    if (q->safe >= 0)
        ok = ok && param(u, "safesearch", q->safe ? "strict" : "off");
    return ok;
}

typedef struct provider {
    rig_search_kind kind;
    const char *name;
    const char *path;                     /* appended to the configured URL */
    const char *results;                  /* JSON Pointer to the results array */
    const char *snippet, *date, *date2;   /* member names */
    bool (*params)(CURLU *u, const query *q, long today, rig__buf *notes);
} provider;

static const provider providers[] = {
    {RIG_SEARCH_SEARXNG, "SearXNG", "/search", "/results", "content", "publishedDate", NULL,
     searxng_params},
    {RIG_SEARCH_BRAVE, "Brave Search", "/res/v1/web/search", "/web/results", "description",
     "page_age", "age", brave_params},
};

/* ---- results ------------------------------------------------------------ */

/* `s` without HTML tags, entities decoded, whitespace runs collapsed:
 * snippets come with <strong> marks and &amp;s. */
static void add_plain(rig__buf *b, const char *s) {
    bool space = false;
    size_t start = b->len;
    for (const char *p = s; p && *p;) {
        if (*p == '<') {
            const char *gt = strchr(p, '>');
            if (gt) {
                p = gt + 1;
                continue;
            }
        }
        if (*p == '&') {
            static const struct {
                const char *name, *text;
            } ents[] = {{"&amp;", "&"},   {"&lt;", "<"},   {"&gt;", ">"},    {"&quot;", "\""},
                        {"&#39;", "'"},   {"&apos;", "'"}, {"&nbsp;", " "}, {"&#x27;", "'"}};
            bool done = false;
            for (size_t i = 0; i < sizeof ents / sizeof *ents && !done; i++) {
                size_t k = strlen(ents[i].name);
                if (!strncmp(p, ents[i].name, k)) {
                    if (ents[i].text[0] == ' ')
                        space = true;
                    else {
                        if (space && b->len > start)
                            rig__buf_addc(b, ' ');
                        space = false;
                        rig__buf_adds(b, ents[i].text);
                    }
                    p += k;
                    done = true;
                }
            }
            if (done)
                continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            space = true;
            p++;
            continue;
        }
        if (space && b->len > start)
            rig__buf_addc(b, ' ');
        space = false;
        rig__buf_add(b, p, 1);
        p++;
    }
}

typedef struct hit {
    const char *title, *url, *snippet, *date; /* date may be NULL */
} hit;

static const char *str_member(rig_call *call, rig_json_val o, const char *key) {
    if (!key)
        return NULL;
    rig_json_val v = rig_json_get(o, key);
    if (rig_json_typeof(v) != RIG_JSON_STRING)
        return NULL;
    return rig_json_str_dup(v, rig_call_arena(call), NULL);
}

static const char *plain(rig_call *call, const char *s) {
    rig__buf b = {0};
    add_plain(&b, s ? s : "");
    const char *out = b.oom ? "" : rig_arena_strndup(rig_call_arena(call), b.p ? b.p : "", b.len);
    rig__buf_free(&b);
    return out ? out : "";
}

/* ---- the tool ----------------------------------------------------------- */

static long today_days(void) {
    time_t t = time(NULL);
    return (long)(t / 86400);
}

static rig_result *search_run(rig_call *call) {
    rig__web *web = rig_call_data(call);
    query q;
    rig_result *bad = read_query(call, &q);
    if (bad)
        return bad;
    const provider *pv = NULL;
    for (size_t i = 0; i < sizeof providers / sizeof *providers; i++)
        if (providers[i].kind == web->search)
            pv = &providers[i];
    if (!pv)
        return rig_result_error(
            "web_search has no search provider configured, so it cannot search. The operator "
            "can configure one in rig's config file ({\"search\": {\"provider\": \"searxng\", "
            "\"url\": \"http://127.0.0.1:8888\"}} or {\"search\": {\"provider\": \"brave\", "
            "\"api_key_env\": \"BRAVE_API_KEY\"}}), or set RIG_SEARXNG_URL or BRAVE_API_KEY. "
            "Meanwhile, use fetch on a URL you know.");

    rig_result *r = NULL;
    rig__buf notes = {0}, why = {0}, text = {0};
    char *host_raw = NULL, *host = NULL, *url_text = NULL;
    rig__http_resp resp = {0};
    rig_json_doc *doc = NULL;
    long today = today_days();
    char dlwhy[300];
    if (rig__curl_load(dlwhy, sizeof dlwhy) != 0)
        return rig_result_error("web_search cannot run: %s", dlwhy);
    CURLU *u = curl_url();
    size_t baselen = strlen(web->search_url) + strlen(pv->path) + 1;
    char *base = malloc(baselen);
    if (!u || !base)
        goto nomem;
    snprintf(base, baselen, "%s%s", web->search_url, pv->path);
    if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK) {
        r = rig_result_error("The configured search URL '%s' is not a URL; the operator must "
                             "fix the search provider's url.",
                             web->search_url);
        goto out;
    }
    if (!pv->params(u, &q, today, &notes) || notes.oom ||
        curl_url_get(u, CURLUPART_URL, &url_text, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host_raw, 0) != CURLUE_OK)
        goto nomem;
    host = rig__web_host_norm(host_raw);
    if (!host)
        goto nomem;
    char key_line[600];
    const char *hdrs[3] = {"Accept: application/json", NULL, NULL};
    if (pv->kind == RIG_SEARCH_BRAVE) {
        snprintf(key_line, sizeof key_line, "X-Subscription-Token: %s", web->search_key);
        hdrs[1] = key_line;
    }
    rig__http_req req = {.url = url_text,
                         .headers = hdrs,
                         .timeout_ms = RIG_FETCH_DEFAULT_TIMEOUT_S * 1000,
                         .trusted_host = host,
                         .call = call};
    if (rig__web_get(web, &req, &resp, &why) != RIG__HTTP_OK) {
        r = rig_result_error("The search provider (%s at %s) could not be reached: %s",
                             pv->name, web->search_url, why.p ? why.p : "unknown error");
        goto out;
    }
    if (resp.status < 200 || resp.status > 299) {
        rig__buf snip = {0};
        rig__utf8_add_valid(&snip, resp.body, resp.len);
        size_t cut = snip.len;
        size_t chars = 0;
        for (size_t i = 0; i < snip.len; i++)
            if (((unsigned char)snip.p[i] & 0xC0) != 0x80 && ++chars > ERROR_BODY_CHARS) {
                cut = i;
                break;
            }
        const char *hint =
            resp.status == 401 || resp.status == 403
                ? (pv->kind == RIG_SEARCH_BRAVE
                       ? " (the API key was refused: the operator must check it)"
                       : " (SearXNG refuses format=json unless its settings.yml lists json "
                         "under search.formats)")
            : resp.status == 429 ? " (rate limited: wait before searching again)"
                                 : "";
        r = rig_result_error("The search provider (%s) answered HTTP %ld%s%s%.*s", pv->name,
                             resp.status, hint, cut ? ": " : ".", (int)cut,
                             snip.p ? snip.p : "");
        rig__buf_free(&snip);
        goto out;
    }
    rig_json_error jerr;
    doc = rig_json_parse(resp.body, resp.len, NULL, &jerr);
    if (!doc) {
        char where[160] = "";
        rig_json_error_format(&jerr, where, sizeof where);
        r = rig_result_error("The search provider (%s) answered with something that is not "
                             "JSON (%s); no results could be read. The operator should check "
                             "the provider's URL.",
                             pv->name, where);
        goto out;
    }
    rig_json_val root = rig_json_doc_root(doc);
    rig_json_val results = rig_json_pointer(root, pv->results);
    /* Brave leaves "web" out when nothing was found. */
    bool none = pv->kind == RIG_SEARCH_BRAVE && rig_json_typeof(root) == RIG_JSON_OBJECT &&
                rig_json_typeof(rig_json_get(root, "web")) == RIG_JSON_MISSING;
    if (rig_json_typeof(results) != RIG_JSON_ARRAY && !none) {
        r = rig_result_error("The search provider (%s) answered with JSON that holds no "
                             "results array (%s); the operator should check the provider's "
                             "URL and kind.",
                             pv->name, pv->results);
        goto out;
    }
    /* Normalize, drop what has no URL, and what a date range excludes. */
    size_t n = rig_json_len(results), kept = 0;
    hit *hits = rig_arena_alloc(rig_call_arena(call), (n ? n : 1) * sizeof *hits);
    if (!hits)
        goto nomem;
    rig_json_iter it = rig_json_iter_init(results);
    rig_json_val o;
    long ds = 0, de = 0;
    if (q.start) {
        date_valid(q.start, &ds);
        date_valid(q.end, &de);
    }
    while (rig_json_iter_next(&it, &o) && kept < (size_t)q.count) {
        hit h = {str_member(call, o, "title"), str_member(call, o, "url"),
                 str_member(call, o, pv->snippet), str_member(call, o, pv->date)};
        if (!h.date)
            h.date = str_member(call, o, pv->date2);
        if (!h.url || !*h.url)
            continue;
        if (q.start && pv->kind == RIG_SEARCH_SEARXNG && h.date && strlen(h.date) >= 10) {
            char day[11];
            memcpy(day, h.date, 10);
            day[10] = '\0';
            long dd;
            if (date_valid(day, &dd) && (dd < ds || dd > de))
                continue;
        }
        h.title = plain(call, h.title);
        h.snippet = plain(call, h.snippet);
        hits[kept++] = h;
    }

    r = rig_result_new();
    if (kept == 0)
        rig__buf_addf(&text, "No results for \"%s\" (%s).\n", q.q, pv->name);
    else
        rig__buf_addf(&text, "Results for \"%s\" (%s, %zu):\n", q.q, pv->name, kept);
    for (size_t i = 0; i < kept; i++) {
        rig__buf_addf(&text, "\n%zu. %s\n   %s\n", i + 1, *hits[i].title ? hits[i].title : "(untitled)",
                      hits[i].url);
        if (*hits[i].snippet)
            rig__buf_addf(&text, "   %s\n", hits[i].snippet);
        if (hits[i].date)
            rig__buf_addf(&text, "   Date: %s\n", hits[i].date);
    }
    if (notes.len)
        rig__buf_addf(&text, "\n%s", notes.p);
    if (text.oom)
        goto nomem;
    rig_result_textn(r, text.p, text.len);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "query");
        rig_json_write_string(w, q.q);
        rig_json_write_key(w, "provider");
        rig_json_write_string(w, pv->kind == RIG_SEARCH_BRAVE ? "brave" : "searxng");
        rig_json_write_key(w, "results");
        rig_json_write_array_begin(w);
        for (size_t i = 0; i < kept; i++) {
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "title");
            rig_json_write_string(w, hits[i].title);
            rig_json_write_key(w, "url");
            rig_json_write_string(w, hits[i].url);
            rig_json_write_key(w, "snippet");
            rig_json_write_string(w, hits[i].snippet);
            rig_json_write_key(w, "date");
            if (hits[i].date)
                rig_json_write_string(w, hits[i].date);
            else
                rig_json_write_null(w);
            rig_json_write_object_end(w);
        }
        rig_json_write_array_end(w);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
    goto out;
nomem:
    rig_result_free(r);
    r = rig_result_error("Out of memory searching.");
out:
    rig_json_doc_free(doc);
    rig__http_resp_free(&resp);
    rig__buf_free(&notes);
    rig__buf_free(&why);
    rig__buf_free(&text);
    curl_url_cleanup(u);
    curl_free(url_text);
    curl_free(host_raw);
    free(host);
    free(base);
    return r;
}

static const rig_builtin_spec search_spec = {
    .name = "web_search",
    .title = "Search the web",
    .description =
        "Search the web through the search provider the operator configured and return "
        "normalized results: title, url, snippet and date (when known) of each. count (1-20, "
        "default 5) sets how many. Narrow by time with freshness (day, week, month, year) or "
        "with start_date and end_date together (YYYY-MM-DD; not with freshness); country is a "
        "2-letter code; safe_search filters adult content. Use fetch to read a result.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":400,\"description\":"
        "\"What to search for (at most 400 characters).\"},"
        "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":20,\"default\":5,"
        "\"description\":\"How many results (1-20, default 5).\"},"
        "\"freshness\":{\"type\":\"string\",\"enum\":[\"day\",\"week\",\"month\",\"year\"],"
        "\"description\":\"Only results from the past day, week, month or year. Not with "
        "start_date/end_date.\"},"
        "\"start_date\":{\"type\":\"string\",\"pattern\":\"^[0-9]{4}-[0-9]{2}-[0-9]{2}$\","
        "\"description\":\"Results from this date on (YYYY-MM-DD); needs end_date.\"},"
        "\"end_date\":{\"type\":\"string\",\"pattern\":\"^[0-9]{4}-[0-9]{2}-[0-9]{2}$\","
        "\"description\":\"Results up to this date (YYYY-MM-DD); needs start_date.\"},"
        "\"country\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z]{2}$\",\"description\":"
        "\"A 2-letter country code (e.g. US, DE) to search from.\"},"
        "\"safe_search\":{\"type\":\"boolean\",\"description\":\"true: filter adult content "
        "strictly; false: no filtering. Absent: the provider's default.\"}},"
        "\"required\":[\"query\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"query\":{\"type\":\"string\"},"
        "\"provider\":{\"type\":\"string\"},"
        "\"results\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"title\":{\"type\":\"string\"},\"url\":{\"type\":\"string\"},"
        "\"snippet\":{\"type\":\"string\"},\"date\":{\"type\":[\"string\",\"null\"]}},"
        "\"required\":[\"title\",\"url\",\"snippet\",\"date\"]}}},"
        "\"required\":[\"query\",\"provider\",\"results\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_TRUE},
    .flags = 0,
    .fn = search_run,
};

rig_tool *rig__web_search_tool_new(rig__web *web, rig_error *err) {
    __atomic_add_fetch(&web->refs, 1, __ATOMIC_ACQ_REL);
    return rig__builtin_new(&search_spec, web, rig__web_release, err);
}
