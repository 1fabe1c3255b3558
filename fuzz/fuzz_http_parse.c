/* fuzz_http_parse.c — the HTTP/1.1 request-head parser and the chunked-body
 * decoder (src/mcp/http_parse.h) on hostile bytes.
 *
 * The input is a request as it arrives on a socket: a head, then a body.
 *
 * The head is parsed with max_head 8192 (more than any input), the input's
 * own length, one byte less, and 64. Checked:
 *
 *   - the result is 1, 0, -400, -431, -501 or -505;
 *   - on 1: head_len <= len and the head ends in CRLF CRLF; every CR in it
 *     is followed by LF and every LF preceded by CR; method, path and every
 *     header name and value lie inside the head; the method and names are
 *     tokens, the path has no CTL or space, values have no CTL but tab and
 *     no leading or trailing whitespace; minor is 0 or 1; at most 64
 *     headers; not both chunked and has_length, and chunked only in 1.1;
 *     content_length is the Content-Length header's digits; keep_alive
 *     follows the version and Connection; rig__http_header finds each
 *     header's name (case-folded) at or before it; a value that is one list
 *     element is found by rig__http_header_has;
 *   - the same prefix parsed alone gives the same head; one byte less is 0;
 *   - a smaller max_head gives the same verdict, or -431, or (when the head
 *     fits) exactly the same head; a "not yet" (0) stays 0 on any prefix.
 *
 * Then the bytes from head_len on (from 0 when the head was refused, so the
 * decoder sees every input) go through rig__http_dechunk, max 1024 and 16:
 * in one call, byte by byte, and cut in two at a point the input picks. All
 * must agree on the result (1, 0, -400 or -413), the output bytes and the
 * bytes taken; 0 takes everything; the output is never longer than max or
 * than the bytes taken. */
#include <strings.h>

#include "fuzz_common.h"

#include "mcp/http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool fz_tchar(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool fz_inside(const char *p, size_t n, const char *buf, size_t len) {
    return p >= buf && n <= len && (size_t)(p - buf) <= len - n;
}

/* A NUL-ended copy of p[0..n) in dst (cap bytes), or false if it is longer. */
static bool fz_cstr(char *dst, size_t cap, const char *p, size_t n) {
    if (n >= cap || memchr(p, '\0', n))
        return false;
    memcpy(dst, p, n);
    dst[n] = '\0';
    return true;
}

static bool fz_same_head(const http_req *a, const http_req *b) {
    if (a->method != b->method || a->method_len != b->method_len || a->path != b->path ||
        a->path_len != b->path_len || a->minor != b->minor || a->n_headers != b->n_headers ||
        a->head_len != b->head_len || a->chunked != b->chunked ||
        a->has_length != b->has_length || a->content_length != b->content_length ||
        a->keep_alive != b->keep_alive || a->expect_continue != b->expect_continue)
        return false;
    for (size_t i = 0; i < a->n_headers; i++)
        if (a->headers[i].name != b->headers[i].name ||
            a->headers[i].name_len != b->headers[i].name_len ||
            a->headers[i].value != b->headers[i].value ||
            a->headers[i].value_len != b->headers[i].value_len)
            return false;
    return true;
}

static void check_head(const char *buf, size_t len, const http_req *r) {
    FUZZ_CHECK(r->head_len >= 4 && r->head_len <= len, "head_len %zu of %zu", r->head_len, len);
    size_t hl = r->head_len;
    FUZZ_CHECK(memcmp(buf + hl - 4, "\r\n\r\n", 4) == 0, "the head does not end in CRLF CRLF");
    for (size_t i = 0; i < hl; i++) {
        if (buf[i] == '\r')
            FUZZ_CHECK(i + 1 < hl && buf[i + 1] == '\n', "bare CR at %zu accepted", i);
        if (buf[i] == '\n')
            FUZZ_CHECK(i > 0 && buf[i - 1] == '\r', "bare LF at %zu accepted", i);
    }
    FUZZ_CHECK(r->minor == 0 || r->minor == 1, "minor %d", r->minor);
    FUZZ_CHECK(r->method_len > 0 && fz_inside(r->method, r->method_len, buf, hl),
               "method outside the head");
    for (size_t i = 0; i < r->method_len; i++)
        FUZZ_CHECK(fz_tchar((uint8_t)r->method[i]), "method byte 0x%02x",
                   (uint8_t)r->method[i]);
    FUZZ_CHECK(fz_inside(r->path, r->path_len, buf, hl), "path outside the head");
    FUZZ_CHECK(r->path == r->method + r->method_len + 1, "path does not follow the method");
    for (size_t i = 0; i < r->path_len; i++) {
        uint8_t c = (uint8_t)r->path[i];
        FUZZ_CHECK(c > ' ' && c != 0x7f && c != '?', "path byte 0x%02x", c);
    }
    FUZZ_CHECK(r->n_headers <= HTTP_MAX_HEADERS, "%zu headers", r->n_headers);
    FUZZ_CHECK(!(r->chunked && r->has_length), "both chunked and Content-Length");
    FUZZ_CHECK(!r->chunked || r->minor == 1, "chunked in HTTP/1.0");

    bool close = false, keep = false, cl_seen = false, te_seen = false, expect = false;
    for (size_t i = 0; i < r->n_headers; i++) {
        const http_header *h = &r->headers[i];
        FUZZ_CHECK(h->name_len > 0 && fz_inside(h->name, h->name_len, buf, hl),
                   "header %zu: name outside the head", i);
        FUZZ_CHECK(fz_inside(h->value, h->value_len, buf, hl),
                   "header %zu: value outside the head", i);
        FUZZ_CHECK(h->name > r->path && h->value > h->name + h->name_len,
                   "header %zu out of order", i);
        if (i > 0)
            FUZZ_CHECK(h->name > r->headers[i - 1].value, "header %zu out of order", i);
        FUZZ_CHECK(h->name[h->name_len] == ':', "header %zu: name not before a colon", i);
        for (size_t k = 0; k < h->name_len; k++)
            FUZZ_CHECK(fz_tchar((uint8_t)h->name[k]), "header %zu: name byte 0x%02x", i,
                       (uint8_t)h->name[k]);
        for (size_t k = 0; k < h->value_len; k++) {
            uint8_t c = (uint8_t)h->value[k];
            FUZZ_CHECK(c >= ' ' || c == '\t', "header %zu: value byte 0x%02x", i, c);
        }
        if (h->value_len) {
            char a = h->value[0], z = h->value[h->value_len - 1];
            FUZZ_CHECK(a != ' ' && a != '\t' && z != ' ' && z != '\t',
                       "header %zu: value not trimmed", i);
        }

        char name[128], value[256];
        if (!fz_cstr(name, sizeof name, h->name, h->name_len))
            continue;
        size_t vl = 0;
        const char *v = rig__http_header(r, name, &vl);
        FUZZ_CHECK(v, "rig__http_header does not find header %zu", i);
        bool at_or_before = false;
        for (size_t k = 0; k <= i; k++)
            if (r->headers[k].value == v && r->headers[k].value_len == vl &&
                r->headers[k].name_len == h->name_len &&
                strncasecmp(r->headers[k].name, name, h->name_len) == 0)
                at_or_before = true;
        FUZZ_CHECK(at_or_before, "rig__http_header gives another header than %zu", i);
        /* a value that is a single list element is in the list */
        if (h->value_len && !memchr(h->value, ',', h->value_len) &&
            !memchr(h->value, ';', h->value_len) &&
            fz_cstr(value, sizeof value, h->value, h->value_len))
            FUZZ_CHECK(rig__http_header_has(r, name, value),
                       "rig__http_header_has misses header %zu's own value", i);

        if (strcasecmp(name, "content-length") == 0) {
            FUZZ_CHECK(!cl_seen, "two Content-Lengths accepted");
            cl_seen = true;
            uint64_t cl = 0;
            FUZZ_CHECK(h->value_len >= 1 && h->value_len <= 18, "Content-Length of %zu digits",
                       h->value_len);
            for (size_t k = 0; k < h->value_len; k++) {
                FUZZ_CHECK(h->value[k] >= '0' && h->value[k] <= '9',
                           "Content-Length byte 0x%02x", (uint8_t)h->value[k]);
                cl = cl * 10 + (uint64_t)(h->value[k] - '0');
            }
            FUZZ_CHECK(r->has_length && r->content_length == cl,
                       "content_length %" PRIu64 ", header says %" PRIu64, r->content_length, cl);
        } else if (strcasecmp(name, "transfer-encoding") == 0) {
            FUZZ_CHECK(!te_seen, "two Transfer-Encodings accepted");
            te_seen = true;
            FUZZ_CHECK(h->value_len == 7 && strncasecmp(h->value, "chunked", 7) == 0,
                       "a Transfer-Encoding other than chunked accepted");
        } else if (strcasecmp(name, "connection") == 0) {
            close |= rig__http_header_has(r, "Connection", "close");
            keep |= rig__http_header_has(r, "Connection", "keep-alive");
        } else if (strcasecmp(name, "expect") == 0) {
            FUZZ_CHECK(h->value_len == 12 && strncasecmp(h->value, "100-continue", 12) == 0,
                       "Expect other than 100-continue accepted");
            expect = true;
        }
    }
    FUZZ_CHECK(r->has_length == cl_seen, "has_length %d without a Content-Length header",
               r->has_length);
    FUZZ_CHECK(r->chunked == te_seen, "chunked %d, Transfer-Encoding seen %d", r->chunked,
               te_seen);
    FUZZ_CHECK(r->expect_continue == expect, "expect_continue %d", r->expect_continue);
    FUZZ_CHECK(r->keep_alive == (!close && (r->minor == 1 || keep)),
               "keep_alive %d (minor %d, close %d, keep-alive %d)", r->keep_alive, r->minor,
               close, keep);
}

static int parse(const char *buf, size_t len, size_t max_head, http_req *r) {
    int rc = rig__http_parse_head(buf, len, max_head, r);
    FUZZ_CHECK(rc == 1 || rc == 0 || rc == -400 || rc == -431 || rc == -501 || rc == -505,
               "parse_head returned %d", rc);
    if (rc == 1)
        check_head(buf, len, r);
    return rc;
}

/* Decodes in[0..n) in calls of at most step bytes (0: one call), each call
 * with a buffer of exactly its bytes; stops at the first nonzero result. */
static int dechunk(const char *in, size_t n, size_t max, size_t step, size_t cut, char *out,
                   size_t *out_len, size_t *used_total) {
    http_chunked c;
    memset(&c, 0, sizeof c);
    *out_len = 0;
    size_t pos = 0;
    int rc;
    do {
        size_t k = n - pos;
        if (step && k > step)
            k = step;
        if (cut && pos < cut && k > cut - pos)
            k = cut - pos;
        char *piece = malloc(k ? k : 1);
        FUZZ_CHECK(piece, "out of memory");
        memcpy(piece, in + pos, k);
        size_t used = (size_t)-1, before = *out_len;
        rc = rig__http_dechunk(&c, piece, k, &used, out, out_len, max);
        free(piece);
        FUZZ_CHECK(rc == 1 || rc == 0 || rc == -400 || rc == -413, "dechunk returned %d", rc);
        FUZZ_CHECK(*out_len >= before && *out_len <= max, "out_len %zu (was %zu, max %zu)",
                   *out_len, before, max);
        if (rc < 0)
            break;
        FUZZ_CHECK(used <= k, "used %zu of %zu", used, k);
        FUZZ_CHECK(*out_len - before <= used, "%zu bytes out of %zu taken", *out_len - before,
                   used);
        if (rc == 0)
            FUZZ_CHECK(used == k, "0 with %zu of %zu bytes taken", used, k);
        pos += used;
    } while (rc == 0 && pos < n);
    *used_total = pos;
    return rc;
}

static void check_dechunk(const char *in, size_t n, size_t max, size_t cut) {
    char *o1 = malloc(n + 1), *o2 = malloc(n + 1), *o3 = malloc(n + 1);
    FUZZ_CHECK(o1 && o2 && o3, "out of memory");
    size_t l1, l2, l3, u1, u2, u3;
    int r1 = dechunk(in, n, max, 0, 0, o1, &l1, &u1);
    int r2 = dechunk(in, n, max, 1, 0, o2, &l2, &u2);
    int r3 = dechunk(in, n, max, 0, cut, o3, &l3, &u3);
    FUZZ_CHECK(r1 == r2 && r1 == r3, "whole %d, byte by byte %d, cut at %zu %d", r1, r2, cut,
               r3);
    FUZZ_CHECK(l1 == l2 && l1 == l3, "output of %zu, %zu, %zu bytes", l1, l2, l3);
    FUZZ_CHECK(memcmp(o1, o2, l1) == 0 && memcmp(o1, o3, l1) == 0, "outputs differ");
    if (r1 >= 0)
        FUZZ_CHECK(u1 == u2 && u1 == u3, "used %zu, %zu, %zu", u1, u2, u3);
    if (r1 == 0)
        FUZZ_CHECK(u1 == n, "0 with %zu of %zu bytes taken", u1, n);
    if (r1 == 1)
        FUZZ_CHECK(u1 >= 5 && memcmp(in + u1 - 2, "\r\n", 2) == 0,
                   "a body that ends without CRLF (%zu bytes)", u1);
    free(o1);
    free(o2);
    free(o3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* an allocation of exactly the input, so a read past it is caught */
    char *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf, "out of memory");
    memcpy(buf, data, size);

    http_req big, r;
    int rc = parse(buf, size, 8192, &big);

    if (rc == 1) {
        /* the head alone reads the same; one byte less is not yet */
        FUZZ_CHECK(parse(buf, big.head_len, 8192, &r) == 1 && fz_same_head(&big, &r),
                   "the head alone (%zu bytes) reads differently", big.head_len);
        FUZZ_CHECK(parse(buf, big.head_len - 1, 8192, &r) == 0,
                   "the head less its last byte is not 0");
    } else if (rc == 0 && size > 0) {
        FUZZ_CHECK(parse(buf, size / 2, 8192, &r) == 0, "a prefix of a head not yet is not 0");
    }

    size_t maxes[] = {size, size ? size - 1 : 0, 64};
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
        size_t m = maxes[i];
        int rm = parse(buf, size, m, &r);
        if (rc == 1 && big.head_len <= m) {
            FUZZ_CHECK(rm == 1 && fz_same_head(&big, &r),
                       "max_head %zu (head %zu): %d, or another head", m, big.head_len, rm);
        } else if (rc == 1) {
            FUZZ_CHECK(rm == -431, "max_head %zu below the head's %zu: %d", m, big.head_len, rm);
        } else if (size >= m) {
            FUZZ_CHECK(rm == rc || rm == -431, "max_head %zu: %d, with 8192 %d", m, rm, rc);
            FUZZ_CHECK(rm != 0, "max_head %zu reached, yet 0", m);
        } else {
            FUZZ_CHECK(rm == rc, "max_head %zu: %d, with 8192 %d", m, rm, rc);
        }
    }

    size_t start = rc == 1 ? big.head_len : 0, n = size - start;
    size_t cut = n ? (size_t)data[0] % (n + 1) : 0;
    check_dechunk(buf + start, n, 1024, cut);
    check_dechunk(buf + start, n, 16, cut);
    free(buf);
    return 0;
}
