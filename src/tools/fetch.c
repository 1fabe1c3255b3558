/* fetch.c — `fetch`: a URL's content as text a model can read. HTML
 * becomes readable Markdown (html2md.c), JSON is pretty-printed, other text
 * comes as it is, binary content is refused with its type. Text is
 * converted to UTF-8 from the charset the response declares (iconv; a body
 * that declares none and is not UTF-8 is read as windows-1252, as browsers
 * do), and is returned in windows of max_length characters (code points,
 * so a window never splits a UTF-8 sequence) from start_index, with the
 * total length and the start_index that continues.
 *
 * The request goes through the guarded GET (web_get.c): http/https only,
 * every address checked at connect time, redirects followed and checked
 * hop by hop, the body capped at RIG_FETCH_MAX_BYTES (a longer one is cut
 * and the result says so), the timeout and the call's cancellation
 * honoured. Each call fetches and converts the page again: paging a long
 * page costs one transfer per window, which keeps the tool stateless (a
 * cache would have to decide when a page is stale, which only the caller
 * knows). */
#define _GNU_SOURCE
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "tools/builtins.h"
#include "tools/html2md.h"
#include "tools/web.h"

#define SNIFF_BYTES 8192
#define ERROR_BODY_CHARS 1000 /* of an error page's text shown with its status */

/* ---- what the body is --------------------------------------------------- */

typedef enum kind { K_HTML, K_JSON, K_TEXT, K_BINARY } kind;

typedef struct media {
    char type[128];   /* "text/html", lowercased, no parameters; "" if none */
    char charset[64]; /* "" if none */
} media;

static void media_parse(const char *ct, media *m) {
    memset(m, 0, sizeof *m);
    if (!ct)
        return;
    size_t i = 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    for (; *ct && *ct != ';' && *ct != ' ' && i + 1 < sizeof m->type; ct++)
        m->type[i++] = (char)(*ct >= 'A' && *ct <= 'Z' ? *ct + 32 : *ct);
    const char *cs = strcasestr(ct, "charset=");
    if (!cs)
        return;
    cs += 8;
    if (*cs == '"')
        cs++;
    i = 0;
    for (; *cs && *cs != '"' && *cs != ';' && *cs != ' ' && i + 1 < sizeof m->charset; cs++)
        m->charset[i++] = *cs;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

static bool starts_ci(const char *p, size_t n, const char *word) {
    size_t k = strlen(word);
    return n >= k && strncasecmp(p, word, k) == 0;
}

/* A known binary signature at the start of the body, or NULL. */
static const char *magic(const unsigned char *p, size_t n) {
    static const struct {
        const char *sig;
        size_t len;
        const char *what;
    } sigs[] = {
        {"\x89PNG\r\n\x1a\n", 8, "a PNG image"}, {"\xff\xd8\xff", 3, "a JPEG image"},
        {"GIF8", 4, "a GIF image"},             {"%PDF-", 5, "a PDF document"},
        {"PK\x03\x04", 4, "a ZIP archive"},      {"\x1f\x8b", 2, "gzip data"},
        {"RIFF", 4, "a RIFF file (WebP, WAV, AVI)"}, {"\x7f" "ELF", 4, "an ELF executable"},
    };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (n >= sigs[i].len && memcmp(p, sigs[i].sig, sigs[i].len) == 0)
            return sigs[i].what;
    return NULL;
}

/* Text or not, from the bytes: fs_read's rule (a NUL, or over 30% bytes
 * that are neither printable nor common whitespace, in the first 8 KiB). */
static bool looks_binary(const unsigned char *p, size_t n) {
    if (n > SNIFF_BYTES)
        n = SNIFF_BYTES;
    size_t odd = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == 0)
            return true;
        if (!((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
              c == 0x1b))
            odd++;
    }
    return odd * 10 > n * 3;
}

static bool looks_html(const char *p, size_t n) {
    while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
        p++;
        n--;
    }
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3;
        n -= 3;
    }
    return starts_ci(p, n, "<!doctype html") || starts_ci(p, n, "<html") ||
           starts_ci(p, n, "<head") || starts_ci(p, n, "<body");
}

static kind classify(const media *m, const char *body, size_t len, const char **what) {
    const unsigned char *p = (const unsigned char *)body;
    const char *t = m->type;
    *what = magic(p, len);
    if (!strcmp(t, "text/html") || !strcmp(t, "application/xhtml+xml"))
        return looks_binary(p, len) ? K_BINARY : K_HTML;
    if (!strcmp(t, "application/json") || !strcmp(t, "text/json") || ends_with(t, "+json"))
        return looks_binary(p, len) ? K_BINARY : K_JSON;
    bool texty = !strncmp(t, "text/", 5) || ends_with(t, "+xml") ||
                 !strcmp(t, "application/xml") || !strcmp(t, "application/javascript") ||
                 !strcmp(t, "application/ecmascript") || !strcmp(t, "application/x-sh") ||
                 !strcmp(t, "application/yaml") || !strcmp(t, "application/x-yaml") ||
                 !strcmp(t, "application/toml") || !strcmp(t, "application/sql") ||
                 !strcmp(t, "application/graphql") || !strcmp(t, "application/x-ndjson") ||
                 !strcmp(t, "application/x-www-form-urlencoded");
    if (texty)
        return looks_binary(p, len) ? K_BINARY : K_TEXT;
    /* No type, or one that says nothing (octet-stream): the bytes decide. */
    if (!*t || !strcmp(t, "application/octet-stream") || !strcmp(t, "binary/octet-stream")) {
        if (*what || looks_binary(p, len))
            return K_BINARY;
        return looks_html(body, len) ? K_HTML : K_TEXT;
    }
    return K_BINARY; /* images, audio, video, fonts, PDF, archives, ... */
}

/* ---- charset ------------------------------------------------------------ */

static bool is_utf8_name(const char *cs) {
    return !*cs || !strcasecmp(cs, "utf-8") || !strcasecmp(cs, "utf8") ||
           !strcasecmp(cs, "us-ascii") || !strcasecmp(cs, "ascii");
}

/* Convert `n` bytes from `charset` to UTF-8 into `out`. -1 when iconv
 * does not know the charset (nothing written). Bytes the charset cannot
 * decode become U+FFFD, counted in *bad. */
static int iconv_to_utf8(const char *charset, const char *in, size_t n, rig__buf *out,
                         size_t *bad) {
    iconv_t cd = iconv_open("UTF-8", charset);
    if (cd == (iconv_t)-1)
        return -1;
    char *src = (char *)in;
    size_t left = n;
    while (left > 0 && !out->oom) {
        if (!rig__buf_reserve(out, left * 2 + 16))
            break;
        char *dst = out->p + out->len;
        size_t room = out->cap - out->len - 1;
        size_t r = iconv(cd, &src, &left, &dst, &room);
        out->len = (size_t)(dst - out->p);
        out->p[out->len] = '\0';
        if (r == (size_t)-1) {
            if (errno == E2BIG)
                continue;
            /* EILSEQ or EINVAL (cut short): one replacement, skip a byte */
            rig__buf_add(out, "\xEF\xBF\xBD", 3);
            (*bad)++;
            src++;
            left--;
            iconv(cd, NULL, NULL, NULL, NULL);
        }
    }
    iconv_close(cd);
    return 0;
}

typedef struct decoded {
    rig__buf text;
    size_t bad;            /* bytes replaced with U+FFFD */
    const char *used;      /* the charset read: "UTF-8", "windows-1252", or the declared one */
    bool unknown_charset;  /* declared but not known to iconv */
} decoded;

static void decode(const media *m, const char *body, size_t len, decoded *d) {
    memset(d, 0, sizeof *d);
    if (len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0 && is_utf8_name(m->charset)) {
        body += 3; /* a UTF-8 byte order mark says nothing the text needs */
        len -= 3;
    }
    if (!is_utf8_name(m->charset)) {
        if (iconv_to_utf8(m->charset, body, len, &d->text, &d->bad) == 0) {
            d->used = m->charset;
            return;
        }
        d->unknown_charset = true;
    }
    d->bad = rig__utf8_add_valid(&d->text, body, len);
    d->used = "UTF-8";
    if (d->bad && !m->charset[0]) {
        /* No charset and not UTF-8: most likely a legacy Western page. */
        rig__buf alt = {0};
        size_t bad = 0;
        if (iconv_to_utf8("WINDOWS-1252", body, len, &alt, &bad) == 0 && !alt.oom) {
            rig__buf_free(&d->text);
            d->text = alt;
            d->bad = bad;
            d->used = "windows-1252";
        } else {
            rig__buf_free(&alt);
        }
    }
    if (!d->text.p)
        rig__buf_add(&d->text, "", 0);
}

/* ---- arguments ---------------------------------------------------------- */

static bool token_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("!#$%&'*+-.^_`|~", c);
}

/* The caller's headers as "Name: value" lines (NULL-ended, in the call's
 * arena), or NULL with an error result in *fail. */
static const char **read_headers(rig_call *call, rig_result **fail) {
    rig_json_val hv = rig_json_get(rig_call_args(call), "headers");
    size_t n = rig_json_len(hv);
    rig_arena *a = rig_call_arena(call);
    const char **lines = rig_arena_alloc(a, (n + 1) * sizeof *lines);
    if (!lines) {
        *fail = rig_result_error("Out of memory reading the headers.");
        return NULL;
    }
    size_t i = 0;
    rig_json_iter it = rig_json_iter_init(hv);
    rig_json_val key, val;
    static const char *const refused[] = {"host", "content-length", "transfer-encoding",
                                          "connection", "accept-encoding", "te", "upgrade",
                                          "proxy-authorization", NULL};
    while (rig_json_iter_member(&it, &key, &val)) {
        size_t klen = 0, vlen = 0;
        const char *k = rig_json_str_dup(key, a, &klen);
        const char *v = rig_json_str_dup(val, a, &vlen);
        if (!k || !v) {
            *fail = rig_result_error("Header values must be strings.");
            return NULL;
        }
        bool ok = klen > 0 && klen <= 256;
        for (size_t j = 0; ok && j < klen; j++)
            ok = token_char((unsigned char)k[j]);
        if (!ok) {
            *fail = rig_result_error("'%.100s' is not a valid header name (letters, digits and "
                                     "!#$%%&'*+-.^_`|~ only).",
                                     k);
            return NULL;
        }
        if (memchr(v, '\r', vlen) || memchr(v, '\n', vlen) || memchr(v, '\0', vlen) ||
            vlen > 8192) {
            *fail = rig_result_error("The value of header '%s' holds a line break or NUL (or "
                                     "is over 8 KiB); header values are one line.",
                                     k);
            return NULL;
        }
        for (size_t j = 0; refused[j]; j++) {
            if (!strcasecmp(k, refused[j])) {
                *fail = rig_result_error("The header '%s' is set by fetch itself and cannot be "
                                         "given.",
                                         k);
                return NULL;
            }
        }
        /* curl sends "Name;" as an empty header ("Name:" would remove it). */
        size_t cap = klen + vlen + 3;
        char *line = rig_arena_alloc(a, cap);
        if (!line) {
            *fail = rig_result_error("Out of memory reading the headers.");
            return NULL;
        }
        if (vlen)
            snprintf(line, cap, "%s: %s", k, v);
        else
            snprintf(line, cap, "%s;", k);
        lines[i++] = line;
    }
    lines[i] = NULL;
    return lines;
}

/* ---- the window --------------------------------------------------------- */

/* Byte offset of character `index` in valid UTF-8 `s` (len bytes). */
static size_t char_offset(const char *s, size_t len, size_t index) {
    size_t i = 0;
    for (; i < len && index; index--) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

typedef struct page {
    const char *url, *final_url, *content_type, *title;
    long status;
    int redirects;
    const char *text; /* valid UTF-8 */
    size_t len;
    bool capped, unknown_charset, not_json;
    const char *charset_used;
    size_t bad;
    size_t max_bytes;
} page;

static rig_result *window(rig_call *call, const page *pg) {
    int64_t start = rig_call_int(call, "start_index", 0);
    int64_t max_len = rig_call_int(call, "max_length", RIG_FETCH_DEFAULT_MAX_LENGTH);
    size_t total = rig__utf8_chars(pg->text, pg->len);
    if (start < 0 || max_len < 1) /* the schema already said so */
        return rig_result_error("start_index must be at least 0 and max_length at least 1.");
    if (total > 0 && (uint64_t)start >= total)
        return rig_result_error("start_index=%lld is past the end of %s, whose content has %zu "
                                "characters. Call fetch with a start_index below %zu.",
                                (long long)start, pg->final_url, total, total);
    size_t from = char_offset(pg->text, pg->len, (size_t)start);
    size_t chars = total - (size_t)start < (uint64_t)max_len ? total - (size_t)start
                                                              : (size_t)max_len;
    size_t to = from + char_offset(pg->text + from, pg->len - from, chars);
    size_t next = (size_t)start + chars;
    bool truncated = next < total;

    rig_result *r = rig_result_new();
    if (total == 0)
        rig_result_text(r, "(The page has no readable content.)");
    else
        rig_result_textn(r, pg->text + from, to - from);
    rig__buf note = {0};
    rig__buf_addf(&note, "\n[%s", pg->final_url);
    if (pg->redirects)
        rig__buf_addf(&note, " (redirected from %s)", pg->url);
    if (pg->title && *pg->title)
        rig__buf_addf(&note, " — \"%s\"", pg->title);
    if (pg->content_type)
        rig__buf_addf(&note, " — %s", pg->content_type);
    if (truncated)
        rig__buf_addf(&note, ". Characters %lld-%zu of %zu shown. Call fetch with "
                             "start_index=%zu to read more.]",
                      (long long)start, next, total, next);
    else if (start > 0)
        rig__buf_addf(&note, ". Characters %lld-%zu of %zu shown: the end of the content.]",
                      (long long)start, next, total);
    else
        rig__buf_addf(&note, ". %zu characters: the whole content.]", total);
    if (pg->capped)
        rig__buf_addf(&note, "\n[The response was larger than %zu MiB; only its first %zu MiB "
                             "were read, so the content ends early.]",
                      pg->max_bytes >> 20, pg->max_bytes >> 20);
    if (pg->unknown_charset)
        rig__buf_addf(&note, "\n[The response's charset is unknown here; it was read as UTF-8.]");
    if (pg->bad)
        rig__buf_addf(&note, "\n[%zu byte%s not valid %s %s shown as U+FFFD.]", pg->bad,
                      pg->bad == 1 ? "" : "s", pg->charset_used ? pg->charset_used : "UTF-8",
                      pg->bad == 1 ? "is" : "are");
    if (pg->not_json)
        rig__buf_addf(&note, "\n[The response says it is JSON but does not parse as JSON; it "
                             "is shown as text.]");
    rig_result_textn(r, note.p ? note.p : "", note.len);
    bool oom = note.oom;
    rig__buf_free(&note);

    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "url");
        rig_json_write_string(w, pg->url);
        rig_json_write_key(w, "final_url");
        rig_json_write_string(w, pg->final_url);
        rig_json_write_key(w, "status");
        rig_json_write_int(w, pg->status);
        if (pg->content_type) {
            rig_json_write_key(w, "content_type");
            rig_json_write_string(w, pg->content_type);
        }
        if (pg->title && *pg->title) {
            rig_json_write_key(w, "title");
            rig_json_write_string(w, pg->title);
        }
        rig_json_write_key(w, "content");
        rig_json_write_stringn(w, pg->text + from, to - from);
        rig_json_write_key(w, "start_index");
        rig_json_write_int(w, start);
        rig_json_write_key(w, "length");
        rig_json_write_uint(w, chars);
        rig_json_write_key(w, "total_length");
        rig_json_write_uint(w, total);
        rig_json_write_key(w, "truncated");
        rig_json_write_bool(w, truncated);
        if (truncated) {
            rig_json_write_key(w, "next_start_index");
            rig_json_write_uint(w, next);
        }
        rig_json_write_key(w, "response_capped");
        rig_json_write_bool(w, pg->capped);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
    if (oom) {
        rig_result_free(r);
        return rig_result_error("Out of memory building the result.");
    }
    return r;
}

/* An HTTP error status: say so, with the start of what the server said. */
static rig_result *status_error(const page *pg) {
    size_t shown = char_offset(pg->text, pg->len, ERROR_BODY_CHARS);
    rig_result *r = rig_result_new();
    rig_result_textf(r, "%s answered HTTP %ld%s.%s", pg->final_url, pg->status,
                     pg->status == 404   ? " (not found)"
                     : pg->status == 403 ? " (forbidden)"
                     : pg->status == 401 ? " (authentication required)"
                     : pg->status == 429 ? " (too many requests: wait before trying again)"
                     : pg->status >= 500 ? " (a server error)"
                                         : "",
                     shown ? " What it sent:" : "");
    if (shown)
        rig_result_textn(r, pg->text, shown);
    rig_result_set_error(r, true);
    return r;
}

/* ---- the tool ----------------------------------------------------------- */

static rig_result *fetch_run(rig_call *call) {
    rig__web *web = rig_call_data(call);
    const char *url = rig_call_str(call, "url", NULL);
    if (!url || !*url)
        return rig_result_error("A url is needed: call fetch with an http:// or https:// URL.");
    rig_result *fail = NULL;
    const char **headers = read_headers(call, &fail);
    if (!headers)
        return fail;
    double timeout = rig_call_double(call, "timeout", RIG_FETCH_DEFAULT_TIMEOUT_S);
    bool raw = rig_call_bool(call, "raw", false);

    rig__http_req req = {.url = url,
                         .headers = headers,
                         .timeout_ms = (int64_t)(timeout * 1000),
                         .call = call};
    rig__http_resp resp;
    rig__buf why = {0};
    if (rig__web_get(web, &req, &resp, &why) != RIG__HTTP_OK) {
        rig_result *r = rig_result_error("%s", why.p ? why.p : "The fetch failed.");
        rig__buf_free(&why);
        return r;
    }
    rig__buf_free(&why);

    media m;
    media_parse(resp.content_type, &m);
    const char *what = NULL;
    kind k = classify(&m, resp.body, resp.len, &what);
    rig_result *r = NULL;
    page pg = {.url = url,
               .final_url = resp.final_url,
               .content_type = resp.content_type,
               .status = resp.status,
               .redirects = resp.redirects,
               .capped = resp.capped,
               .max_bytes = web->max_bytes};
    if (k == K_BINARY) {
        if (resp.status >= 400) {
            pg.text = "";
            r = status_error(&pg);
        } else {
            r = rig_result_error("%s is %s (%s, %s%zu bytes), not text: fetch returns text "
                                 "only, so it was not shown.",
                                 resp.final_url, what ? what : "binary data",
                                 m.type[0] ? m.type : "no content type",
                                 resp.capped ? "over " : "", resp.len);
        }
        rig__http_resp_free(&resp);
        return r;
    }
    decoded d = {0};
    rig__markdown md = {0};
    char *pretty_text = NULL;
    if (k == K_HTML && !raw) {
        char mdwhy[256] = "";
        if (rig__html_to_markdown(resp.body, resp.len, m.charset[0] ? m.charset : NULL,
                                  resp.final_url, &md, mdwhy, sizeof mdwhy) != 0) {
            r = rig_result_error("The HTML of %s could not be converted: %s. Call fetch with "
                                 "raw=true to get it as it is.",
                                 resp.final_url, mdwhy[0] ? mdwhy : "unknown error");
            goto out;
        }
        pg.text = md.text ? md.text : "";
        pg.len = md.text ? md.len : 0;
        pg.title = md.title;
    } else {
        decode(&m, resp.body, resp.len, &d);
        if (d.text.oom) {
            r = rig_result_error("Out of memory reading %s.", resp.final_url);
            goto out;
        }
        pg.text = d.text.p;
        pg.len = d.text.len;
        pg.bad = d.bad;
        pg.charset_used = d.used;
        pg.unknown_charset = d.unknown_charset;
        if (k == K_JSON && !raw && !resp.capped) {
            rig_json_doc *doc = rig_json_parse(d.text.p, d.text.len, NULL, NULL);
            if (doc) {
                rig_json_writer jw;
                rig_json_writer_init(&jw, RIG_JSON_WRITE_PRETTY);
                rig_json_write_value(&jw, rig_json_doc_root(doc));
                size_t plen = 0;
                pretty_text = rig_json_writer_detach(&jw, &plen);
                rig_json_writer_free(&jw);
                rig_json_doc_free(doc);
                if (pretty_text) {
                    pg.text = pretty_text;
                    pg.len = plen;
                }
            } else {
                pg.not_json = true;
            }
        }
    }
    r = resp.status >= 400 ? status_error(&pg) : window(call, &pg);
out:
    free(pretty_text);
    rig__markdown_free(&md);
    rig__buf_free(&d.text);
    rig__http_resp_free(&resp);
    return r;
}

static const rig_builtin_spec fetch_spec = {
    .name = "fetch",
    .title = "Fetch a URL",
    .description =
        "Fetch a public http:// or https:// URL and return its content as text: HTML is "
        "simplified to readable Markdown (navigation, scripts and other page furniture "
        "dropped), JSON is pretty-printed, other text comes as it is; images and other binary "
        "content are refused with their type. Returns at most max_length characters "
        "(default 5000) from start_index; the note at the end gives the page's title, its "
        "total length in characters and the start_index that continues when it was cut. Use "
        "raw=true for the HTML source. Localhost, private-network and other internal "
        "addresses are refused. At most 5 redirects are followed; at most 10 MiB of a "
        "response is read.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"url\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":8192,\"description\":"
        "\"The http:// or https:// URL to fetch.\"},"
        "\"max_length\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10485760,\"default\":"
        "5000,\"description\":\"The most characters to return (default 5000).\"},"
        "\"start_index\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,\"description\":"
        "\"Return content from this character on (default 0): the start_index the previous "
        "call's note gave, to read on.\"},"
        "\"raw\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Return the "
        "response text as it is (HTML source, JSON unformatted) instead of simplified "
        "Markdown.\"},"
        "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":300,\"default\":"
        "30,\"description\":\"Seconds the whole fetch may take, redirects included (default "
        "30).\"},"
        "\"headers\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"},"
        "\"description\":\"Extra HTTP request headers, e.g. {\\\"Accept-Language\\\":"
        "\\\"de\\\"}. They are not sent on to another site a redirect leads to.\"}},"
        "\"required\":[\"url\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"url\":{\"type\":\"string\"},"
        "\"final_url\":{\"type\":\"string\"},"
        "\"status\":{\"type\":\"integer\"},"
        "\"content_type\":{\"type\":\"string\"},"
        "\"title\":{\"type\":\"string\"},"
        "\"content\":{\"type\":\"string\"},"
        "\"start_index\":{\"type\":\"integer\",\"minimum\":0},"
        "\"length\":{\"type\":\"integer\",\"minimum\":0},"
        "\"total_length\":{\"type\":\"integer\",\"minimum\":0},"
        "\"truncated\":{\"type\":\"boolean\"},"
        "\"next_start_index\":{\"type\":\"integer\",\"minimum\":0},"
        "\"response_capped\":{\"type\":\"boolean\"}},"
        "\"required\":[\"url\",\"final_url\",\"status\",\"content\",\"start_index\","
        "\"length\",\"total_length\",\"truncated\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_TRUE},
    .flags = 0,
    .fn = fetch_run,
};

rig_tool *rig__fetch_tool_new(rig__web *web, rig_error *err) {
    __atomic_add_fetch(&web->refs, 1, __ATOMIC_ACQ_REL);
    return rig__builtin_new(&fetch_spec, web, rig__web_release, err);
}
