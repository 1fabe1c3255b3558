/* http_parse.c — HTTP/1.1 request heads and chunked bodies (RFC 9112).
 *
 * Only what a JSON-RPC endpoint needs, and strict: a request that two
 * parsers could read two ways (a proxy's and ours) is refused, not guessed
 * at. Lines end in CRLF; header names are tokens with no space before the
 * colon; a message has at most one Content-Length, and not with
 * Transfer-Encoding; chunked is the only transfer coding. */
#include <string.h>
#include <strings.h>

#include "mcp/http_parse.h"

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The next CRLF-ended line from p (before end): its length without CRLF,
 * or -1 if it has not ended yet, -2 for a CR or LF alone. */
static long line_len(const char *p, const char *end)
{
    for (const char *q = p; q < end; q++) {
        if (*q == '\n')
            return -2;
        if (*q == '\r') {
            if (q + 1 == end)
                return -1;
            return q[1] == '\n' ? q - p : -2;
        }
    }
    return -1;
}

static bool token_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* Does the comma-separated list v[0..n) hold `tok`? */
static bool list_has(const char *v, size_t n, const char *tok)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t start = i;
        while (i < n && v[i] != ',')
            i++;
        size_t end = i;
        while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
            end--;
        /* "text/event-stream;q=1" holds "text/event-stream" */
        const char *semi = memchr(v + start, ';', end - start);
        size_t tlen = semi ? (size_t)(semi - (v + start)) : end - start;
        while (tlen > 0 && (v[start + tlen - 1] == ' ' || v[start + tlen - 1] == '\t'))
            tlen--;
        if (token_eq(v + start, tlen, tok))
            return true;
    }
    return false;
}

const char *rig__http_header(const http_req *req, const char *name, size_t *len)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (token_eq(req->headers[i].name, req->headers[i].name_len, name)) {
            if (len)
                *len = req->headers[i].value_len;
            return req->headers[i].value;
        }
    return NULL;
}

bool rig__http_header_has(const http_req *req, const char *name, const char *token)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (token_eq(req->headers[i].name, req->headers[i].name_len, name) &&
            list_has(req->headers[i].value, req->headers[i].value_len, token))
            return true;
    return false;
}

int rig__http_parse_head(const char *buf, size_t len, size_t max_head, http_req *req)
{
    memset(req, 0, sizeof *req);
    const char *p = buf, *end = buf + (len < max_head ? len : max_head);
    /* RFC 9112 2.2: empty lines before the request line are ignored. */
    while (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
        p += 2;
    long n = line_len(p, end);
    if (n == -2)
        return -400;
    if (n < 0)
        return len >= max_head ? -431 : 0;
    /* method SP target SP HTTP/1.x */
    const char *line = p, *lend = p + n;
    const char *sp1 = memchr(line, ' ', (size_t)n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(lend - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == line || sp2 == sp1 + 1)
        return -400;
    for (const char *q = line; q < sp1; q++)
        if (!is_tchar((unsigned char)*q))
            return -400;
    req->method = line;
    req->method_len = (size_t)(sp1 - line);
    const char *target = sp1 + 1;
    size_t tlen = (size_t)(sp2 - target);
    for (size_t i = 0; i < tlen; i++)
        if ((unsigned char)target[i] <= ' ' || target[i] == 0x7f)
            return -400;
    const char *q = memchr(target, '?', tlen);
    req->path = target;
    req->path_len = q ? (size_t)(q - target) : tlen;
    const char *ver = sp2 + 1;
    if (lend - ver != 8 || memcmp(ver, "HTTP/1.", 7) != 0)
        return lend - ver == 8 && memcmp(ver, "HTTP/", 5) == 0 ? -505 : -400;
    if (ver[7] != '0' && ver[7] != '1')
        return -505;
    req->minor = ver[7] - '0';
    p = lend + 2;

    bool te = false, close = false, keep = false;
    for (;;) {
        n = line_len(p, end);
        if (n == -2)
            return -400;
        if (n < 0)
            return len >= max_head ? -431 : 0;
        if (n == 0) {
            p += 2;
            break;
        }
        if (req->n_headers == HTTP_MAX_HEADERS)
            return -431;
        const char *h = p, *hend = p + n;
        const char *colon = memchr(h, ':', (size_t)n);
        if (!colon || colon == h)
            return -400; /* no name, or a folded line (obsolete, refused) */
        for (const char *c = h; c < colon; c++)
            if (!is_tchar((unsigned char)*c))
                return -400;
        const char *v = colon + 1;
        while (v < hend && (*v == ' ' || *v == '\t'))
            v++;
        const char *vend = hend;
        while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
            vend--;
        for (const char *c = v; c < vend; c++)
            if ((unsigned char)*c < ' ' && *c != '\t')
                return -400;
        http_header *hd = &req->headers[req->n_headers++];
        hd->name = h;
        hd->name_len = (size_t)(colon - h);
        hd->value = v;
        hd->value_len = (size_t)(vend - v);
        if (token_eq(h, hd->name_len, "content-length")) {
            if (req->has_length || hd->value_len == 0 || hd->value_len > 18)
                return -400;
            uint64_t cl = 0;
            for (size_t i = 0; i < hd->value_len; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return -400;
                cl = cl * 10 + (uint64_t)(v[i] - '0');
            }
            req->has_length = true;
            req->content_length = cl;
        } else if (token_eq(h, hd->name_len, "transfer-encoding")) {
            if (te || !token_eq(v, hd->value_len, "chunked"))
                return te ? -400 : -501;
            te = true;
        } else if (token_eq(h, hd->name_len, "connection")) {
            close |= list_has(v, hd->value_len, "close");
            keep |= list_has(v, hd->value_len, "keep-alive");
        } else if (token_eq(h, hd->name_len, "expect")) {
            if (!token_eq(v, hd->value_len, "100-continue"))
                return -400;
            req->expect_continue = true;
        }
        p = hend + 2;
    }
    if (te && req->has_length)
        return -400; /* the classic smuggling pair */
    if (te && req->minor == 0)
        return -400;
    req->chunked = te;
    req->keep_alive = !close && (req->minor == 1 || keep);
    req->head_len = (size_t)(p - buf);
    return 1;
}

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER, CH_TRAILER_LF,
       CH_DONE };

#define CHUNK_LINE_MAX 4096

int rig__http_dechunk(http_chunked *c, const char *in, size_t n, size_t *used, char *out,
                      size_t *out_len, size_t max)
{
    size_t i = 0;
    while (i < n && c->state != CH_DONE) {
        unsigned char ch = (unsigned char)in[i];
        switch (c->state) {
        case CH_SIZE: {
            int d = ch >= '0' && ch <= '9'   ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
            if (d >= 0) {
                if (c->line++ >= 15)
                    return -413; /* a size past 2^60 */
                c->left = c->left * 16 + (uint64_t)d;
            } else if (c->line == 0) {
                return -400;
            } else if (ch == ';' || ch == ' ' || ch == '\t') {
                c->state = CH_EXT;
            } else if (ch == '\r') {
                c->state = CH_SIZE_LF;
            } else {
                return -400;
            }
            i++;
            break;
        }
        case CH_EXT: /* chunk extensions: skipped, bounded */
            if (ch == '\r')
                c->state = CH_SIZE_LF;
            else if (ch == '\n' || ++c->line > CHUNK_LINE_MAX)
                return -400;
            i++;
            break;
        case CH_SIZE_LF:
            if (ch != '\n')
                return -400;
            i++;
            c->line = 0;
            if (c->left == 0) {
                c->state = CH_TRAILER;
            } else {
                if (c->left > max - *out_len)
                    return -413;
                c->state = CH_DATA;
            }
            break;
        case CH_DATA: {
            size_t take = n - i < c->left ? n - i : (size_t)c->left;
            memcpy(out + *out_len, in + i, take);
            *out_len += take;
            c->left -= take;
            i += take;
            if (c->left == 0)
                c->state = CH_DATA_CR;
            break;
        }
        case CH_DATA_CR:
            if (ch != '\r')
                return -400;
            c->state = CH_DATA_LF;
            i++;
            break;
        case CH_DATA_LF:
            if (ch != '\n')
                return -400;
            c->state = CH_SIZE;
            c->line = 0;
            i++;
            break;
        case CH_TRAILER: /* trailer fields, then an empty line */
            if (ch == '\r') {
                c->state = CH_TRAILER_LF;
            } else if (ch == '\n' || ++c->line > CHUNK_LINE_MAX) {
                return -400;
            }
            i++;
            break;
        case CH_TRAILER_LF:
            if (ch != '\n')
                return -400;
            i++;
            c->state = c->line == 0 ? CH_DONE : CH_TRAILER;
            c->line = 0;
            break;
        }
    }
    *used = i;
    return c->state == CH_DONE ? 1 : 0;
}
