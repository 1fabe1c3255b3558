/* http_parse.h — the HTTP/1.1 request parsing the Streamable HTTP transport
 * needs (RFC 9112): a request head, and a chunked body decoded as it
 * arrives. Strict where leniency is a smuggling risk (both Content-Length
 * and chunked, two lengths, a bare LF, a space before a colon); bounded in
 * every size. Pure functions over caller-owned bytes. Internal. */
#ifndef RIG_MCP_HTTP_PARSE_H
#define RIG_MCP_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define HTTP_MAX_HEADERS 64

typedef struct http_header {
    const char *name, *value; /* into the caller's buffer; not NUL-ended */
    size_t name_len, value_len;
} http_header;

typedef struct http_req {
    const char *method, *path; /* path: the target without its query */
    size_t method_len, path_len;
    int minor;                 /* HTTP/1.<minor> */
    http_header headers[HTTP_MAX_HEADERS];
    size_t n_headers;
    size_t head_len;           /* bytes up to and with the blank line */
    bool chunked;
    bool has_length;
    uint64_t content_length;
    bool keep_alive;           /* 1.1 unless "close"; 1.0 only with "keep-alive" */
    bool expect_continue;
} http_req;

/* Parse the head at buf[0..len). Returns 1 with *req filled, 0 when the
 * blank line has not come yet (and len < max_head), or a negative HTTP
 * status for a head no byte more can fix: -400, -431 (too long), -501 (a
 * transfer coding rig does not decode), -505 (not HTTP/1.x). */
RIG_INTERNAL int rig__http_parse_head(const char *buf, size_t len, size_t max_head,
                                      http_req *req);

/* The value of header `name` (case-insensitive), or NULL; *len its length. */
RIG_INTERNAL const char *rig__http_header(const http_req *req, const char *name, size_t *len);
/* Does the comma-separated header `name` hold `token` (case-insensitive)? */
RIG_INTERNAL bool rig__http_header_has(const http_req *req, const char *name, const char *token);

/* A chunked body, decoded as its bytes come. */
typedef struct http_chunked {
    int state;
    uint64_t left; /* bytes of the current chunk still to come */
    size_t line;   /* bytes of the current size or trailer line */
} http_chunked;

/* Decode in[0..n): the data goes to out (at *out_len, at most max in all).
 * Returns 1 when the body ended (*used: the bytes of `in` it took), 0 when
 * all of `in` was taken and more must come, -400 for a malformed body,
 * -413 when the data would pass `max`. */
RIG_INTERNAL int rig__http_dechunk(http_chunked *c, const char *in, size_t n, size_t *used,
                                   char *out, size_t *out_len, size_t max);

#endif
