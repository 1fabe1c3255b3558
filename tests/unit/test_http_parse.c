/* test_http_parse.c — the HTTP/1.1 request-head parser and the chunked-body
 * decoder (src/mcp/http_parse.c).
 *
 * Every input is parsed from a malloc'd copy of exactly its bytes, so the
 * sanitizers and valgrind see any read past the end. Heads are checked field
 * by field; every proper prefix of a good head must be "not yet" (0), never
 * an error. Chunked bodies are decoded whole, byte by byte and cut in two at
 * every point, and all three must agree on the result, the output and the
 * bytes taken. */
#include "testing.h"

#include "mcp/http_parse.h"

#define MAX_HEAD 8192

/* ------------------------------------------------------------- helpers */

/* Parses exactly len bytes of s (a malloc'd copy) with max_head; *copy gets
 * the copy so the caller can check pointers into it (free it after). */
static int parse_n(const char *s, size_t len, size_t max_head, http_req *req, char **copy) {
    char *c = exact_copy(s, len);
    int rc = rig__http_parse_head(c, len, max_head, req);
    if (copy)
        *copy = c;
    else
        free(c);
    return rc;
}

static int parse_rc(const char *s) {
    http_req req;
    return parse_n(s, strlen(s), MAX_HEAD, &req, NULL);
}

static void assert_span(const char *p, size_t n, const char *want) {
    assert_int_equal(n, strlen(want));
    assert_memory_equal(p, want, n);
}

static void assert_header(const http_req *r, size_t i, const char *name, const char *value) {
    assert_true(i < r->n_headers);
    assert_span(r->headers[i].name, r->headers[i].name_len, name);
    assert_span(r->headers[i].value, r->headers[i].value_len, value);
}

/* Parses a head that must be good (rc 1) into *req, from a copy the caller
 * frees; and checks that every proper prefix of it is incomplete (0). */
static char *parse_good(const char *s, http_req *req) {
    size_t len = strlen(s);
    for (size_t k = 0; k < len; k++) {
        http_req tmp;
        int rc = parse_n(s, k, MAX_HEAD, &tmp, NULL);
        if (rc != 0)
            fail_msg("prefix of %zu bytes of %s: got %d, want 0", k, s, rc);
    }
    char *copy;
    int rc = parse_n(s, len, MAX_HEAD, req, &copy);
    if (rc != 1)
        fail_msg("head %s: got %d, want 1", s, rc);
    return copy;
}

/* A head with one extra header line `line` (no CRLF): the parser's verdict. */
static int with_header(const char *line) {
    char buf[1024];
    snprintf(buf, sizeof buf, "POST /mcp HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n", line);
    return parse_rc(buf);
}

/* ------------------------------------------------------------- heads */

static void test_post_head(void **state) {
    (void)state;
    const char *head = "POST /mcp?session=abc&x=1 HTTP/1.1\r\n"
                       "Host: localhost:8080\r\n"
                       "Content-Type:application/json\r\n"
                       "Content-Length: 42\r\n"
                       "Accept: \t application/json, text/event-stream \t\r\n"
                       "X-Empty:\r\n"
                       "X-Spaces:    \r\n"
                       "X-Inner: a \t b\r\n"
                       "\r\n";
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    char full[1024];
    snprintf(full, sizeof full, "%s%s", head, body);

    http_req r;
    char *c = parse_good(head, &r);
    assert_span(r.method, r.method_len, "POST");
    assert_span(r.path, r.path_len, "/mcp");
    assert_ptr_equal(r.method, c);
    assert_ptr_equal(r.path, c + 5);
    assert_int_equal(r.minor, 1);
    assert_int_equal(r.n_headers, 7);
    assert_header(&r, 0, "Host", "localhost:8080");
    assert_header(&r, 1, "Content-Type", "application/json");
    assert_header(&r, 2, "Content-Length", "42");
    assert_header(&r, 3, "Accept", "application/json, text/event-stream");
    assert_header(&r, 4, "X-Empty", "");
    assert_header(&r, 5, "X-Spaces", "");
    assert_header(&r, 6, "X-Inner", "a \t b");
    assert_true(r.has_length);
    assert_int_equal(r.content_length, 42);
    assert_false(r.chunked);
    assert_true(r.keep_alive);
    assert_false(r.expect_continue);
    assert_int_equal(r.head_len, strlen(head));
    free(c);

    /* the body after the blank line is not part of the head */
    char *c2;
    assert_int_equal(parse_n(full, strlen(full), MAX_HEAD, &r, &c2), 1);
    assert_int_equal(r.head_len, strlen(head));
    assert_int_equal(r.n_headers, 7);
    assert_memory_equal(c2 + r.head_len, body, strlen(body));
    free(c2);

    /* a target without a query, a query alone, absolute form, other methods */
    c = parse_good("GET / HTTP/1.1\r\n\r\n", &r);
    assert_span(r.method, r.method_len, "GET");
    assert_span(r.path, r.path_len, "/");
    assert_int_equal(r.n_headers, 0);
    assert_false(r.has_length);
    assert_int_equal(r.content_length, 0);
    assert_int_equal(r.head_len, 18);
    free(c);
    c = parse_good("DELETE /?only=query HTTP/1.1\r\n\r\n", &r);
    assert_span(r.method, r.method_len, "DELETE");
    assert_span(r.path, r.path_len, "/");
    free(c);
    c = parse_good("OPTIONS http://h:1/a/b?c?d HTTP/1.1\r\n\r\n", &r);
    assert_span(r.path, r.path_len, "http://h:1/a/b");
    free(c);
    c = parse_good("M-1.x~ * HTTP/1.1\r\n\r\n", &r);
    assert_span(r.method, r.method_len, "M-1.x~");
    assert_span(r.path, r.path_len, "*");
    free(c);
    /* a value holding colons; obs-text (bytes >= 0x80) is allowed in values */
    c = parse_good("GET /\xc3\xa9 HTTP/1.1\r\nX-A: a:b: c\r\nX-U: \xc3\xa9t\xe9\r\n\r\n", &r);
    assert_span(r.path, r.path_len, "/\xc3\xa9");
    assert_header(&r, 0, "X-A", "a:b: c");
    assert_header(&r, 1, "X-U", "\xc3\xa9t\xe9");
    free(c);
    /* Content-Length: leading zeros, 0, 18 digits */
    c = parse_good("POST / HTTP/1.1\r\nContent-Length: 007\r\n\r\n", &r);
    assert_int_equal(r.content_length, 7);
    free(c);
    c = parse_good("POST / HTTP/1.1\r\ncontent-length:0\r\n\r\n", &r);
    assert_true(r.has_length);
    assert_int_equal(r.content_length, 0);
    free(c);
    c = parse_good("POST / HTTP/1.1\r\nCONTENT-LENGTH: 999999999999999999 \r\n\r\n", &r);
    assert_int_equal(r.content_length, UINT64_C(999999999999999999));
    free(c);
    /* Transfer-Encoding: chunked in any case */
    c = parse_good("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &r);
    assert_true(r.chunked);
    assert_false(r.has_length);
    free(c);
    c = parse_good("POST / HTTP/1.1\r\ntransfer-encoding:chunked\t\r\n\r\n", &r);
    assert_true(r.chunked);
    free(c);
}

static void test_keep_alive(void **state) {
    (void)state;
    static const struct {
        const char *head;
        int minor;
        bool keep;
    } cases[] = {
        {"GET / HTTP/1.1\r\n\r\n", 1, true},
        {"GET / HTTP/1.0\r\n\r\n", 0, false},
        {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, true},
        {"GET / HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n", 0, true},
        {"GET / HTTP/1.0\r\nConnection: Upgrade, keep-alive\r\n\r\n", 0, true},
        {"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", 0, false},
        {"GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", 0, false},
        {"GET / HTTP/1.0\r\nConnection: close\r\n\r\n", 0, false},
        {"GET / HTTP/1.0\r\nConnection: keep-alived\r\n\r\n", 0, false},
        {"GET / HTTP/1.0\r\nX-Connection: keep-alive\r\n\r\n", 0, false},
        {"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 1, false},
        {"GET / HTTP/1.1\r\nConnection: CLOSE\r\n\r\n", 1, false},
        {"GET / HTTP/1.1\r\nConnection: upgrade,close\r\n\r\n", 1, false},
        {"GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", 1, true},
        {"GET / HTTP/1.1\r\nConnection: closed\r\n\r\n", 1, true},
        {"GET / HTTP/1.1\r\nConnection:\r\n\r\n", 1, true},
        {"GET / HTTP/1.1\r\nConnection: Upgrade\r\nConnection: Close\r\n\r\n", 1, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_req r;
        char *c = parse_good(cases[i].head, &r);
        if (r.minor != cases[i].minor || r.keep_alive != cases[i].keep)
            fail_msg("%s: minor %d keep_alive %d, want %d %d", cases[i].head, r.minor,
                     r.keep_alive, cases[i].minor, cases[i].keep);
        free(c);
    }
}

static void test_leading_empty_lines(void **state) {
    (void)state;
    http_req r;
    const char *s = "\r\n\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n";
    char *c = parse_good(s, &r);
    assert_ptr_equal(r.method, c + 6);
    assert_span(r.method, r.method_len, "GET");
    assert_span(r.path, r.path_len, "/x");
    assert_int_equal(r.n_headers, 1);
    assert_int_equal(r.head_len, strlen(s)); /* the empty lines count */
    free(c);
    /* only empty lines: not yet */
    assert_int_equal(parse_rc("\r\n\r\n\r\n\r\n"), 0);
    assert_int_equal(parse_rc("\r\n\r"), 0);
    /* a bare LF or CR among them is not an empty line */
    assert_int_equal(parse_rc("\nGET / HTTP/1.1\r\n\r\n"), -400);
    assert_int_equal(parse_rc("\r\n\nGET / HTTP/1.1\r\n\r\n"), -400);
    assert_int_equal(parse_rc("\r\rGET / HTTP/1.1\r\n\r\n"), -400);
    /* an empty line of whitespace is not one either */
    assert_int_equal(parse_rc(" \r\nGET / HTTP/1.1\r\n\r\n"), -400);
}

static void test_incomplete_every_prefix(void **state) {
    (void)state;
    static const char *const heads[] = {
        "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n",
        "\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        ("POST /mcp?q HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n"
         "X-Empty:\r\n\r\n"),
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        http_req r;
        free(parse_good(heads[i], &r)); /* checks each prefix gives 0 */
        assert_int_equal(r.head_len, strlen(heads[i]));
        /* and with a generous max_head smaller than the buffer, the same */
        size_t len = strlen(heads[i]);
        for (size_t k = 0; k < len; k++)
            assert_int_equal(parse_n(heads[i], k, k + 1, &r, NULL), 0);
    }
    /* a head cut right after a bad line already reports it */
    assert_int_equal(parse_rc("GET / HTTP/1.1\r\nBad Name: x\r\n"), -400);
    assert_int_equal(parse_rc("GET / HTTP/2.0\r\n"), -505);
    http_req r;
    assert_int_equal(parse_n("", 0, MAX_HEAD, &r, NULL), 0);
}

static void test_max_head(void **state) {
    (void)state;
    const char *s = "POST /mcp HTTP/1.1\r\nHost: example\r\n\r\n";
    size_t len = strlen(s);
    http_req r;
    /* exactly max_head long: fits */
    assert_int_equal(parse_n(s, len, len, &r, NULL), 1);
    assert_int_equal(r.head_len, len);
    /* more bytes in the buffer than max_head, head within it: fits */
    char more[256];
    snprintf(more, sizeof more, "%sBODYBODY", s);
    assert_int_equal(parse_n(more, strlen(more), len, &r, NULL), 1);
    assert_int_equal(r.head_len, len);
    /* one byte over */
    assert_int_equal(parse_n(s, len, len - 1, &r, NULL), -431);
    assert_int_equal(parse_n(s, len, 1, &r, NULL), -431);
    assert_int_equal(parse_n(s, len, 0, &r, NULL), -431);
    /* incomplete: 0 below max_head, -431 at it */
    assert_int_equal(parse_n(s, len - 1, len, &r, NULL), 0);
    assert_int_equal(parse_n(s, len - 1, len - 1, &r, NULL), -431);
    assert_int_equal(parse_n(s, 10, 10, &r, NULL), -431);
    assert_int_equal(parse_n(s, 10, 11, &r, NULL), 0);
    /* endless empty lines or an endless header hit the limit too */
    char flood[600];
    for (size_t i = 0; i < 300; i++)
        memcpy(flood + 2 * i, "\r\n", 2);
    assert_int_equal(parse_n(flood, 600, 512, &r, NULL), -431);
    assert_int_equal(parse_n(flood, 600, 601, &r, NULL), 0);
    char big[MAX_HEAD + 64];
    int off = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nX-Big: ");
    memset(big + off, 'a', sizeof big - (size_t)off);
    assert_int_equal(parse_n(big, sizeof big, MAX_HEAD, &r, NULL), -431);
    assert_int_equal(parse_n(big, MAX_HEAD, MAX_HEAD, &r, NULL), -431);
    assert_int_equal(parse_n(big, MAX_HEAD - 1, MAX_HEAD, &r, NULL), 0);
}

static void test_header_count(void **state) {
    (void)state;
    char buf[4096];
    for (int n = 63; n <= 66; n++) {
        size_t o = (size_t)snprintf(buf, sizeof buf, "GET / HTTP/1.1\r\n");
        for (int i = 0; i < n; i++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "X-H%d: v%d\r\n", i, i);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "\r\n");
        http_req r;
        char *c = NULL;
        int rc = parse_n(buf, o, MAX_HEAD, &r, &c);
        if (n <= HTTP_MAX_HEADERS) {
            assert_int_equal(rc, 1);
            assert_int_equal(r.n_headers, (size_t)n);
            assert_header(&r, 0, "X-H0", "v0");
            assert_header(&r, (size_t)n - 1, n == 63 ? "X-H62" : "X-H63",
                          n == 63 ? "v62" : "v63");
            size_t vl;
            const char *v = rig__http_header(&r, "x-h40", &vl);
            assert_non_null(v);
            assert_span(v, vl, "v40");
        } else {
            assert_int_equal(rc, -431);
        }
        free(c);
    }
    assert_int_equal(HTTP_MAX_HEADERS, 64);
}

static void test_bad_400(void **state) {
    (void)state;
    static const char *const bad[] = {
        /* bare LF and bare CR, in the request line and in headers */
        "GET / HTTP/1.1\n\r\n",
        "GET / HTTP/1.1\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\n",
        "GET / HTTP/1.1\r\nHost: a\r\r\n\r\n",
        "GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\rX",
        "GET /\r HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\r\n\r\n",
        /* header names: space or tab before the colon, no colon, no name,
         * non-token characters */
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost\r\n\r\n",
        "GET / HTTP/1.1\r\n: a\r\n\r\n",
        "GET / HTTP/1.1\r\n:\r\n\r\n",
        "GET / HTTP/1.1\r\nX(y): a\r\n\r\n",
        "GET / HTTP/1.1\r\nX/y: a\r\n\r\n",
        "GET / HTTP/1.1\r\nX\"y: a\r\n\r\n",
        "GET / HTTP/1.1\r\nX\xc3\xa9: a\r\n\r\n",
        /* obs-fold, and whitespace before the first header */
        "GET / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: a\r\n\tb\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: a\r\n b: c\r\n\r\n",
        "GET / HTTP/1.1\r\n Host: a\r\n\r\n",
        /* control characters in values (tab is allowed) */
        "GET / HTTP/1.1\r\nX-A: a\x01" "b\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: \x1f\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: a\x0b\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: a\x0c" "b\r\n\r\n",
        /* the request line */
        "GET\r\n\r\n",
        "GET /\r\n\r\n",
        "GET / \r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "GET /  HTTP/1.1\r\n\r\n",
        " / HTTP/1.1\r\n\r\n",
        " GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1 \r\n\r\n",
        "GET / HTTP/1.1 x\r\n\r\n",
        "GET\t/ HTTP/1.1\r\n\r\n",
        "GET /\tHTTP/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n",
        "G\xc3\xa9T / HTTP/1.1\r\n\r\n",
        "GET / http/1.1\r\n\r\n",
        "GET / HTTP/1.10\r\n\r\n",
        "GET / HTTP/1\r\n\r\n",
        "GET / HTTP/11\r\n\r\n",
        "GET / HTTPS/1.1\r\n\r\n",
        /* bad target characters */
        "GET /a\x7f" "b HTTP/1.1\r\n\r\n",
        "GET /a\x01" "b HTTP/1.1\r\n\r\n",
        "GET /a\x1f HTTP/1.1\r\n\r\n",
        /* Content-Length */
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 6\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5 5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length:   \r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5a\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1000000000000000000\r\n\r\n",  /* 19 digits */
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 0000000000000000001\r\n\r\n", /* 19 */
        /* Content-Length with Transfer-Encoding, either order */
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
        /* two Transfer-Encoding headers; chunked in HTTP/1.0 */
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
        /* Expect other than 100-continue */
        "POST / HTTP/1.1\r\nExpect: 100-continue, foo\r\n\r\n",
        "POST / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n",
        "POST / HTTP/1.1\r\nExpect:\r\n\r\n",
        "POST / HTTP/1.1\r\nExpect: 100-continued\r\n\r\n",
        "POST / HTTP/1.1\r\nExpect: 100-continue\r\nExpect: x\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_rc(bad[i]);
        if (rc != -400)
            fail_msg("case %zu: got %d, want -400", i, rc);
    }
    /* NUL bytes (strlen cannot carry them) */
    static const char nul_value[] = "GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n";
    static const char nul_name[] = "GET / HTTP/1.1\r\nX\0A: ab\r\n\r\n";
    static const char nul_target[] = "GET /a\0b HTTP/1.1\r\n\r\n";
    static const char nul_method[] = "G\0T / HTTP/1.1\r\n\r\n";
    http_req r;
    assert_int_equal(parse_n(nul_value, sizeof nul_value - 1, MAX_HEAD, &r, NULL), -400);
    assert_int_equal(parse_n(nul_name, sizeof nul_name - 1, MAX_HEAD, &r, NULL), -400);
    assert_int_equal(parse_n(nul_target, sizeof nul_target - 1, MAX_HEAD, &r, NULL), -400);
    assert_int_equal(parse_n(nul_method, sizeof nul_method - 1, MAX_HEAD, &r, NULL), -400);
    /* a tab inside a value is fine */
    assert_int_equal(with_header("X-A: a\tb"), 1);
    assert_int_equal(with_header("X-A: a\x01"), -400);
}

static void test_bad_505_501(void **state) {
    (void)state;
    assert_int_equal(parse_rc("GET / HTTP/2.0\r\n\r\n"), -505);
    assert_int_equal(parse_rc("GET / HTTP/1.2\r\n\r\n"), -505);
    assert_int_equal(parse_rc("GET / HTTP/1.9\r\n\r\n"), -505);
    assert_int_equal(parse_rc("GET / HTTP/0.9\r\n\r\n"), -505);
    assert_int_equal(parse_rc("GET / HTTP/3.0\r\nHost: a\r\n\r\n"), -505);
    /* 505 is decided on the request line, before any header is read */
    assert_int_equal(parse_rc("GET / HTTP/2.0\r\nBad Header\r\n\r\n"), -505);

    assert_int_equal(with_header("Transfer-Encoding: gzip"), -501);
    assert_int_equal(with_header("Transfer-Encoding: gzip, chunked"), -501);
    assert_int_equal(with_header("Transfer-Encoding: identity"), -501);
    assert_int_equal(with_header("Transfer-Encoding: chunked;q=1"), -501);
    assert_int_equal(with_header("Transfer-Encoding:"), -501);
    /* "chunked, chunked" is refused. It reads as a coding list rig does not
     * decode (-501), not as a malformed head (-400); see the report. */
    assert_int_equal(with_header("Transfer-Encoding: chunked, chunked"), -501);
    assert_int_equal(with_header("Transfer-Encoding: chunked"), 1);
}

static void test_expect(void **state) {
    (void)state;
    http_req r;
    char *c = parse_good("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n",
                         &r);
    assert_true(r.expect_continue);
    assert_int_equal(r.content_length, 3);
    free(c);
    c = parse_good("POST / HTTP/1.1\r\nexpect:  100-Continue \r\n\r\n", &r);
    assert_true(r.expect_continue);
    free(c);
    c = parse_good("POST / HTTP/1.1\r\nX-Expect: foo\r\n\r\n", &r);
    assert_false(r.expect_continue);
    free(c);
}

static void test_header_lookup(void **state) {
    (void)state;
    http_req r;
    char *c = parse_good("POST /mcp HTTP/1.1\r\n"
                         "Accept: application/json;q=0.9 ,  Text/Event-Stream ; q=0.5\r\n"
                         "MCP-Session-Id: s1\r\n"
                         "Mcp-Session-Id: s2\r\n"
                         "X-List: ,, a,\t b\t,c , \r\n"
                         "X-Semi: ;x, y\r\n"
                         "X-Empty:\r\n"
                         "\r\n",
                         &r);
    size_t len = 999;
    const char *v = rig__http_header(&r, "mcp-session-id", &len);
    assert_ptr_equal(v, r.headers[1].value); /* the first one */
    assert_span(v, len, "s1");
    v = rig__http_header(&r, "ACCEPT", &len);
    assert_span(v, len, "application/json;q=0.9 ,  Text/Event-Stream ; q=0.5");
    assert_non_null(rig__http_header(&r, "accept", NULL)); /* len may be NULL */
    len = 999;
    v = rig__http_header(&r, "x-empty", &len);
    assert_non_null(v);
    assert_int_equal(len, 0);
    len = 999;
    assert_null(rig__http_header(&r, "X-Missing", &len));
    assert_int_equal(len, 999);
    assert_null(rig__http_header(&r, "Accep", NULL));
    assert_null(rig__http_header(&r, "Accept-", NULL));
    assert_null(rig__http_header(&r, "", NULL));

    assert_true(rig__http_header_has(&r, "accept", "application/json"));
    assert_true(rig__http_header_has(&r, "Accept", "text/event-stream"));
    assert_true(rig__http_header_has(&r, "ACCEPT", "TEXT/EVENT-STREAM"));
    assert_false(rig__http_header_has(&r, "Accept", "text/event"));
    assert_false(rig__http_header_has(&r, "Accept", "application/json;q=0.9"));
    assert_false(rig__http_header_has(&r, "Accept", "q=0.5"));
    assert_false(rig__http_header_has(&r, "Accept", "*/*"));
    assert_true(rig__http_header_has(&r, "x-list", "a"));
    assert_true(rig__http_header_has(&r, "x-list", "b"));
    assert_true(rig__http_header_has(&r, "x-list", "C"));
    assert_false(rig__http_header_has(&r, "x-list", "a,"));
    assert_false(rig__http_header_has(&r, "x-list", "d"));
    assert_true(rig__http_header_has(&r, "x-semi", "y"));
    assert_false(rig__http_header_has(&r, "x-semi", "x"));
    assert_false(rig__http_header_has(&r, "x-empty", "a"));
    assert_false(rig__http_header_has(&r, "x-missing", "a"));
    /* every header of the name is searched, not only the first */
    assert_true(rig__http_header_has(&r, "mcp-session-id", "s2"));
    assert_true(rig__http_header_has(&r, "mcp-session-id", "s1"));
    free(c);

    c = parse_good("GET / HTTP/1.1\r\nAccept: */*\r\nAccept: text/event-stream;charset=utf-8\r\n"
                   "\r\n",
                   &r);
    assert_true(rig__http_header_has(&r, "Accept", "*/*"));
    assert_true(rig__http_header_has(&r, "Accept", "text/event-stream"));
    free(c);
}

/* ------------------------------------------------------------- chunked */

typedef struct dechunked {
    int rc;
    size_t used;
    char *out;
    size_t out_len;
} dechunked;

/* Decodes in[0..n) in calls of at most `step` bytes (0: all at once),
 * stopping at the first nonzero result. used is the total taken. */
static dechunked dechunk_steps(const char *in, size_t n, size_t max, size_t step) {
    char *copy = exact_copy(in, n);
    dechunked d = {0, 0, malloc(n + 1), 0}; /* the data is never longer than the input */
    assert_non_null(d.out);
    http_chunked c;
    memset(&c, 0, sizeof c);
    size_t pos = 0;
    do {
        size_t k = step && n - pos > step ? step : n - pos;
        size_t used = 12345;
        /* each call sees exactly its k bytes, in an allocation of its own */
        char *piece = exact_copy(copy + pos, k);
        d.rc = rig__http_dechunk(&c, piece, k, &used, d.out, &d.out_len, max);
        free(piece);
        assert_true(d.out_len <= max);
        if (d.rc < 0)
            break;
        assert_true(used <= k);
        if (d.rc == 0)
            assert_int_equal(used, k); /* 0: all of it was taken */
        pos += used;
    } while (d.rc == 0 && pos < n);
    d.used = pos;
    free(copy);
    return d;
}

/* Decodes whole, byte by byte, and cut in two at every point, checks they
 * agree, and returns the whole result (free .out). */
static dechunked dechunk_all_ways(const char *in, size_t n, size_t max) {
    dechunked w = dechunk_steps(in, n, max, 0);
    for (size_t step = 1; step <= 3; step++) {
        dechunked b = dechunk_steps(in, n, max, step);
        if (b.rc != w.rc)
            fail_msg("in steps of %zu: rc %d, whole %d", step, b.rc, w.rc);
        if (w.rc >= 0)
            assert_int_equal(b.used, w.used);
        assert_int_equal(b.out_len, w.out_len);
        assert_memory_equal(b.out, w.out, w.out_len);
        free(b.out);
    }
    for (size_t cut = 0; cut <= n; cut++) {
        char *copy = exact_copy(in, n);
        char *out = malloc(n + 1);
        assert_non_null(out);
        http_chunked c;
        memset(&c, 0, sizeof c);
        size_t out_len = 0, used = 0, used2 = 0;
        int rc = rig__http_dechunk(&c, copy, cut, &used, out, &out_len, max);
        if (rc == 0 && cut < n) {
            assert_int_equal(used, cut);
            rc = rig__http_dechunk(&c, copy + cut, n - cut, &used2, out, &out_len, max);
        }
        if (rc != w.rc)
            fail_msg("cut at %zu: rc %d, whole %d", cut, rc, w.rc);
        if (rc >= 0)
            assert_int_equal(used + used2, w.used);
        assert_int_equal(out_len, w.out_len);
        assert_memory_equal(out, w.out, w.out_len);
        free(out);
        free(copy);
    }
    return w;
}

static void expect_body(const char *in, size_t max, int rc, const char *out, size_t used) {
    dechunked d = dechunk_all_ways(in, strlen(in), max);
    if (d.rc != rc)
        fail_msg("%s: rc %d, want %d", in, d.rc, rc);
    if (rc >= 0)
        assert_int_equal(d.used, used);
    if (out) {
        assert_int_equal(d.out_len, strlen(out));
        assert_memory_equal(d.out, out, d.out_len);
    }
    free(d.out);
}

static void test_chunked_multi(void **state) {
    (void)state;
    const char *body = "5\r\nhello\r\n1\r\n,\r\na\r\n big world\r\n0\r\n\r\n";
    expect_body(body, 1024, 1, "hello, big world", strlen(body));

    /* whole vs byte by byte, spelled out */
    dechunked w = dechunk_steps(body, strlen(body), 1024, 0);
    dechunked b = dechunk_steps(body, strlen(body), 1024, 1);
    assert_int_equal(w.rc, 1);
    assert_int_equal(b.rc, 1);
    assert_int_equal(w.used, strlen(body));
    assert_int_equal(b.used, w.used);
    assert_int_equal(b.out_len, 16);
    assert_memory_equal(b.out, w.out, 16);
    free(w.out);
    free(b.out);

    /* the data may hold CR, LF, NUL and what looks like a size line */
    static const char raw[] = "9\r\n\r\n0\r\n\r\n\0x\r\n0\r\n\r\n";
    dechunked r = dechunk_all_ways(raw, sizeof raw - 1, 64);
    assert_int_equal(r.rc, 1);
    assert_int_equal(r.used, sizeof raw - 1);
    assert_int_equal(r.out_len, 9);
    assert_memory_equal(r.out, "\r\n0\r\n\r\n\0x", 9);
    free(r.out);

    /* an empty body, and a prefix: all taken, not done */
    expect_body("0\r\n\r\n", 0, 1, "", 5);
    expect_body("5\r\nhel", 16, 0, "hel", 6);
    expect_body("5\r\nhello\r\n0\r\n", 16, 0, "hello", 13);
    expect_body("5\r\nhello\r\n0\r\n\r", 16, 0, "hello", 14);
    expect_body("", 16, 0, "", 0);
}

static void test_chunked_every_prefix(void **state) {
    (void)state;
    const char *body = "3;a=b\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\n";
    size_t n = strlen(body);
    for (size_t k = 0; k < n; k++) {
        dechunked d = dechunk_steps(body, k, 64, 0);
        if (d.rc != 0 || d.used != k)
            fail_msg("prefix %zu: rc %d used %zu", k, d.rc, d.used);
        free(d.out);
    }
    expect_body(body, 64, 1, "abc0123456789abcdef", n);
}

static void test_chunked_extensions_trailers_hex(void **state) {
    (void)state;
    /* extensions, with BWS, quoted values, several */
    expect_body("5;name=val\r\nhello\r\n0;last\r\n\r\n", 64, 1, "hello", 29);
    expect_body("5 ;a=1;b=\"x y\"\r\nhello\r\n0\r\n\r\n", 64, 1, "hello", 28);
    expect_body("5\t;a\r\nhello\r\n0\r\n\r\n", 64, 1, "hello", 18);
    /* trailers */
    expect_body("5\r\nhello\r\n0\r\nX-Trailer: a\r\nY: b\r\n\r\n", 64, 1, "hello", 35);
    expect_body("0\r\nChecksum: 1\r\n\r\n", 64, 1, "", 18);
    /* hex in either case, leading zeros */
    expect_body("A\r\n0123456789\r\n0\r\n\r\n", 64, 1, "0123456789", 20);
    expect_body("a\r\n0123456789\r\n0\r\n\r\n", 64, 1, "0123456789", 20);
    expect_body("0000a\r\n0123456789\r\n000\r\n\r\n", 64, 1, "0123456789", 26);
    char big[600];
    int o = snprintf(big, sizeof big, "1Fe\r\n");
    memset(big + o, 'z', 0x1fe);
    snprintf(big + o + 0x1fe, sizeof big - (size_t)o - 0x1fe, "\r\n0\r\n\r\n");
    dechunked d = dechunk_all_ways(big, strlen(big), 0x1fe);
    assert_int_equal(d.rc, 1);
    assert_int_equal(d.out_len, 0x1fe);
    assert_int_equal(d.used, strlen(big));
    free(d.out);
    /* a long extension and a long trailer line: up to the line limit */
    char ext[5000];
    o = snprintf(ext, sizeof ext, "1;");
    memset(ext + o, 'e', 4000);
    snprintf(ext + o + 4000, sizeof ext - (size_t)o - 4000, "\r\nz\r\n0\r\n\r\n");
    expect_body(ext, 8, 1, "z", strlen(ext));
}

static void test_chunked_rest_not_consumed(void **state) {
    (void)state;
    const char *s = "5\r\nhello\r\n0\r\n\r\nPOST /next HTTP/1.1\r\n\r\n";
    expect_body(s, 64, 1, "hello", 15);
    expect_body("0\r\n\r\n0\r\n\r\n", 64, 1, "", 5);
    expect_body("0\r\nT: x\r\n\r\nGARBAGE\n", 64, 1, "", 11);
    /* once done, more calls take nothing and say done */
    http_chunked c;
    memset(&c, 0, sizeof c);
    char out[8];
    size_t out_len = 0, used = 99;
    assert_int_equal(rig__http_dechunk(&c, "0\r\n\r\n", 5, &used, out, &out_len, 8), 1);
    assert_int_equal(used, 5);
    used = 99;
    assert_int_equal(rig__http_dechunk(&c, "1\r\nx\r\n", 6, &used, out, &out_len, 8), 1);
    assert_int_equal(used, 0);
    assert_int_equal(out_len, 0);
}

static void test_chunked_bad(void **state) {
    (void)state;
    static const char *const bad[] = {
        "\r\n",                        /* no size */
        ";x\r\n",                      /* extension with no size */
        " 5\r\nhello\r\n0\r\n\r\n",    /* space before the size */
        "g\r\n",                       /* not hex */
        "5g\r\n",
        "-5\r\n",
        "+5\r\n",
        "0x5\r\nhello\r\n0\r\n\r\n",
        "5\nhello\r\n0\r\n\r\n",       /* bare LF after the size */
        "5\rhello\r\n0\r\n\r\n",       /* CR without LF */
        "5;a\nhello\r\n0\r\n\r\n",     /* bare LF ending an extension */
        "5;a\r\r\n",
        "5\r\nhelloX\r\n0\r\n\r\n",    /* data longer than its size */
        "5\r\nhello\n0\r\n\r\n",       /* no CR after the data */
        "5\r\nhello\rX0\r\n\r\n",      /* CR, then no LF */
        "5\r\nhell\r\n0\r\n\r\n",      /* data shorter: the CR is data, 0 is not CR */
        "5\r\nhello\r\n\r\n",          /* no last chunk */
        "0\r\nX: y\n\r\n",             /* bare LF in a trailer */
        "0\r\nX: y\r\r\n",             /* bare CR in a trailer */
        "0\r\n\n",                     /* bare LF for the final empty line */
        "0\r\n\rX",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dechunked d = dechunk_all_ways(bad[i], strlen(bad[i]), 64);
        if (d.rc != -400)
            fail_msg("case %zu: rc %d, want -400", i, d.rc);
        free(d.out);
    }
    /* an extension or a trailer line past the line limit (4096) */
    char ext[5000];
    int o = snprintf(ext, sizeof ext, "1;");
    memset(ext + o, 'e', sizeof ext - (size_t)o);
    dechunked d = dechunk_steps(ext, sizeof ext, 8, 0);
    assert_int_equal(d.rc, -400);
    free(d.out);
    char tr[5000];
    o = snprintf(tr, sizeof tr, "0\r\nX: ");
    memset(tr + o, 't', sizeof tr - (size_t)o);
    d = dechunk_steps(tr, sizeof tr, 8, 0);
    assert_int_equal(d.rc, -400);
    free(d.out);
    d = dechunk_steps(tr, sizeof tr, 8, 1);
    assert_int_equal(d.rc, -400);
    free(d.out);
}

static void test_chunked_413(void **state) {
    (void)state;
    /* past max: refused when the size line ends, before any of its data */
    dechunked d = dechunk_all_ways("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", 26, 10);
    assert_int_equal(d.rc, -413);
    assert_int_equal(d.out_len, 5);
    assert_memory_equal(d.out, "hello", 5);
    free(d.out);
    /* exactly max fits */
    expect_body("5\r\nhello\r\n5\r\n worl\r\n0\r\n\r\n", 10, 1, "hello worl", 25);
    expect_body("1\r\nx\r\n0\r\n\r\n", 0, -413, "", 0);
    expect_body("b\r\n", 10, -413, "", 0);
    /* a size of 16 or more hex digits, whatever max is */
    expect_body("10000000000000000\r\n", SIZE_MAX, -413, "", 0);
    expect_body("ffffffffffffffff\r\n", SIZE_MAX, -413, "", 0);
    expect_body("FFFFFFFFFFFFFFFFFFFFFFFF\r\n", SIZE_MAX, -413, "", 0);
    expect_body("5\r\nhello\r\n1000000000000000\r\n", SIZE_MAX, -413, "hello", 0);
    /* 15 digits parse; past a small max they are refused */
    expect_body("fffffffffffffff\r\n", 1 << 20, -413, "", 0);
    expect_body("100000000000000\r\n", 64, -413, "", 0);
    /* the digit count is what is limited: 16 zeros are refused too */
    expect_body("0000000000000000\r\n\r\n", 64, -413, "", 0);
    expect_body("000000000000000\r\n\r\n", 64, 1, "", 19);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_post_head),
        cmocka_unit_test(test_keep_alive),
        cmocka_unit_test(test_leading_empty_lines),
        cmocka_unit_test(test_incomplete_every_prefix),
        cmocka_unit_test(test_max_head),
        cmocka_unit_test(test_header_count),
        cmocka_unit_test(test_bad_400),
        cmocka_unit_test(test_bad_505_501),
        cmocka_unit_test(test_expect),
        cmocka_unit_test(test_header_lookup),
        cmocka_unit_test(test_chunked_multi),
        cmocka_unit_test(test_chunked_every_prefix),
        cmocka_unit_test(test_chunked_extensions_trailers_hex),
        cmocka_unit_test(test_chunked_rest_not_consumed),
        cmocka_unit_test(test_chunked_bad),
        cmocka_unit_test(test_chunked_413),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
