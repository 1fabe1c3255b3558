/* http.c — MCP's Streamable HTTP transport: an HTTP/1.1 server on a libuv
 * loop of its own thread.
 *
 * Everything but the tools runs on the loop thread: reading and parsing
 * requests (http_parse.c), the sessions, rig_mcp_conn_receive and _flush,
 * and every write. A session is one rig_mcp_conn; every message the engine
 * sends carries the id of the request it belongs to and lands on that
 * request's stream: the POST's SSE response, or, for messages of no
 * request, the session's GET stream. A stream keeps its events, numbered,
 * so a client that lost its connection can resume it with Last-Event-ID;
 * a request answered at once with nothing else to say gets plain JSON.
 *
 * Tool calls finish on the toolset's workers, which call wake(): the
 * session goes on a list under `mu` and a uv_async_send (wake-ups
 * coalesce) has the loop flush it. That list and the stop flag are all the
 * locking there is.
 *
 * Limits, all enforced on the loop: a head of 16 KiB and 64 fields, a body
 * of max_body, conn_timeout_s for a whole request to arrive (a client that
 * dribbles bytes gets no more time than one that sends none) and for an
 * idle keep-alive connection, max_connections, max_sessions (the
 * longest-idle session with nothing running makes room), session_idle_s,
 * and 16 MiB of unread output on a connection (then it is closed). An SSE
 * stream sends a comment every 15 s, which finds clients that left.
 *
 * Why not libmicrohttpd (DESIGN.md's first choice): linked, it doubled the
 * process's start-up for every command, stdio included (it pulls in GnuTLS
 * and p11-kit), and its thread per connection cost a thread hop per message
 * and a thread stack per SSE stream. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <uv.h>

#include "mcp/http_parse.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "rig/rig.h"
#include "util/hex.h"

#define HEAD_MAX (16 * 1024)
#define KEEPALIVE_MS 15000
#define WRITE_HIGH (16u << 20) /* unread output that closes a connection */
#define STREAMS_KEPT 16        /* finished streams a session keeps for resumption */
#define EVENTS_KEPT 1024       /* events a stream keeps */
#define CORK_KEEP (256u << 10) /* gathered output this big goes out at once */

struct hconn;

struct event {
    struct event *next;
    uint64_t seq;
    size_t len;
    char json[];
};

struct stream {
    struct stream *next;
    uint64_t id;          /* 0: the session's GET stream */
    char *related;        /* the request id's JSON text (POST streams) */
    struct event *head, *tail;
    size_t nevents;
    uint64_t next_seq;
    uint64_t sent;        /* the last seq written to a reader */
    bool final;           /* the answer is among the events */
    struct hconn *reader; /* the connection streaming it, or NULL */
};

struct session {
    struct session *next;
    struct session *wake_next; /* h->woken, under h->mu */
    bool wake_queued;          /* under h->mu */
    struct rig_mcp_http *h;
    char id[33];
    rig_mcp_conn *conn;
    int64_t last_used_ms;
    struct stream *streams;
    uint64_t next_stream;
    struct stream *capture;    /* the POST being handled: answers without an id */
    bool deciding;             /* in receive: events wait for the JSON-or-SSE choice */
    char *token;               /* with opts.authorize: the bearer token it began with */
};

struct hconn {
    struct hconn *next, *prev;
    struct rig_mcp_http *h;
    uv_tcp_t tcp;
    char *buf;              /* bytes read, not yet consumed */
    size_t len, cap;
    bool head_done;
    http_req req;
    http_chunked chunk;
    char *body;             /* a chunked body, decoded */
    size_t body_len, body_cap;
    int64_t req_start_ms;   /* when the current request's first byte came */
    int64_t last_io_ms;
    bool streaming;         /* an SSE response is open */
    struct stream *stream;
    bool closing;
    bool ending;            /* closes once its output is written */
    bool keep_alive;        /* the current request's */
    bool resume;            /* on h->resume: parse what is buffered */
    struct hconn *resume_next;
    char *wbuf;             /* output gathered while the loop is corked */
    size_t wlen, wcap;
    bool dirty;             /* on h->dirty */
    struct hconn *dirty_next;
};

struct rig_mcp_http {
    rig_mcp_server *s;
    rig_mcp_http_opts o;
    char *path, *token;
    char **origins;
    bool loopback;
    unsigned port;
    uv_loop_t loop;
    uv_tcp_t listener;
    uv_async_t async;
    uv_timer_t sweep;
    pthread_t thread;
    pthread_mutex_t mu; /* woken, stopping */
    struct session *woken;
    bool stopping;
    struct session *sessions; /* loop thread only, from here on */
    atomic_size_t nsessions;
    struct hconn *conns;
    size_t nconns;
    struct hconn *resume;
    unsigned corked;
    struct hconn *dirty;    /* connections with gathered output */
};

static int64_t now_ms(void)
{
    return (int64_t)(uv_hrtime() / 1000000);
}

/* ---- writing ---------------------------------------------------------- */

struct wreq {
    uv_write_t req;
    char data[];
};

static void on_closed(uv_handle_t *hd)
{
    struct hconn *hc = hd->data;
    free(hc->buf);
    free(hc->body);
    free(hc->wbuf);
    free(hc);
}

static void stream_detach(struct stream *st)
{
    if (st && st->reader) {
        st->reader->streaming = false;
        st->reader->stream = NULL;
        st->reader = NULL;
    }
}

static void hc_close(struct hconn *hc)
{
    if (hc->closing)
        return;
    hc->closing = true;
    if (hc->stream && hc->stream->reader == hc)
        stream_detach(hc->stream);
    struct rig_mcp_http *h = hc->h;
    if (hc->prev)
        hc->prev->next = hc->next;
    else
        h->conns = hc->next;
    if (hc->next)
        hc->next->prev = hc->prev;
    h->nconns--;
    for (struct hconn **pp = &h->resume; *pp; pp = &(*pp)->resume_next)
        if (*pp == hc) {
            *pp = hc->resume_next;
            break;
        }
    uv_close((uv_handle_t *)&hc->tcp, on_closed);
}

static void hc_flush_out(struct hconn *hc);

static void on_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    struct hconn *hc = req->handle->data;
    free(req);
    hc_close(hc);
}

/* Close once what is queued is written (a response with Connection: close). */
static void hc_end(struct hconn *hc)
{
    if (hc->closing || hc->ending)
        return;
    hc_flush_out(hc); /* the shutdown waits for what is queued, not for this */
    hc->ending = true;
    uv_read_stop((uv_stream_t *)&hc->tcp);
    uv_shutdown_t *req = malloc(sizeof *req);
    if (!req || uv_shutdown(req, (uv_stream_t *)&hc->tcp, on_shutdown) < 0) {
        free(req);
        hc_close(hc);
    }
}

static void on_written(uv_write_t *req, int status)
{
    struct hconn *hc = req->handle->data;
    free(req);
    if (status < 0 && status != UV_ECANCELED)
        hc_close(hc);
}

/* Write bufs in order now; what the socket does not take is copied. */
static void hc_write_now(struct hconn *hc, uv_buf_t *bufs, unsigned n)
{
    if (hc->closing)
        return;
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += bufs[i].len;
    int done = 0;
    if (uv_stream_get_write_queue_size((uv_stream_t *)&hc->tcp) == 0) {
        done = uv_try_write((uv_stream_t *)&hc->tcp, bufs, n);
        if (done < 0 && done != UV_EAGAIN) {
            hc_close(hc);
            return;
        }
        if (done < 0)
            done = 0;
    }
    hc->last_io_ms = now_ms();
    size_t rest = total - (size_t)done;
    if (rest == 0)
        return;
    if (uv_stream_get_write_queue_size((uv_stream_t *)&hc->tcp) + rest > WRITE_HIGH) {
        hc_close(hc); /* a client that does not read */
        return;
    }
    struct wreq *w = malloc(sizeof *w + rest);
    if (!w) {
        hc_close(hc);
        return;
    }
    size_t skip = (size_t)done, off = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t l = bufs[i].len;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(w->data + off, bufs[i].base + skip, l - skip);
        off += l - skip;
        skip = 0;
    }
    uv_buf_t b = uv_buf_init(w->data, (unsigned)rest);
    if (uv_write(&w->req, (uv_stream_t *)&hc->tcp, &b, 1, on_written) < 0) {
        free(w);
        hc_close(hc);
    }
}

/* What gathered while corked goes out in one write. */
static void hc_flush_out(struct hconn *hc)
{
    if (!hc->wlen)
        return;
    uv_buf_t b = uv_buf_init(hc->wbuf, (unsigned)hc->wlen);
    hc->wlen = 0;
    hc_write_now(hc, &b, 1);
    if (hc->wcap > CORK_KEEP) {
        free(hc->wbuf);
        hc->wbuf = NULL;
        hc->wcap = 0;
    }
}

/* Write bufs in order. While the loop handles a batch (input read, answers
 * flushed), writes gather per connection and go out when it ends: a
 * syscall per connection and batch, not per piece of a response. */
static void hc_writev(struct hconn *hc, uv_buf_t *bufs, unsigned n)
{
    struct rig_mcp_http *h = hc->h;
    if (hc->closing)
        return;
    if (!h->corked) {
        hc_write_now(hc, bufs, n);
        return;
    }
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += bufs[i].len;
    if (hc->wlen + total > hc->wcap) {
        size_t cap = hc->wcap ? hc->wcap : 4096;
        while (cap < hc->wlen + total)
            cap *= 2;
        char *b = realloc(hc->wbuf, cap);
        if (!b) {
            hc_flush_out(hc);
            hc_write_now(hc, bufs, n);
            return;
        }
        hc->wbuf = b;
        hc->wcap = cap;
    }
    for (unsigned i = 0; i < n; i++) {
        memcpy(hc->wbuf + hc->wlen, bufs[i].base, bufs[i].len);
        hc->wlen += bufs[i].len;
    }
    if (!hc->dirty) {
        hc->dirty = true;
        hc->dirty_next = h->dirty;
        h->dirty = hc;
    }
    if (hc->wlen >= CORK_KEEP)
        hc_flush_out(hc);
}

static void cork(struct rig_mcp_http *h)
{
    h->corked++;
}

static void uncork(struct rig_mcp_http *h)
{
    if (--h->corked > 0)
        return;
    /* A closed connection's memory lasts until its close callback, which
     * runs on a later turn of the loop: the list is safe to walk. */
    while (h->dirty) {
        struct hconn *hc = h->dirty;
        h->dirty = hc->dirty_next;
        hc->dirty = false;
        if (!hc->closing)
            hc_flush_out(hc);
    }
}

static const char *status_text(unsigned status)
{
    switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Internal Server Error";
    }
}

static void request_done(struct hconn *hc);

/* A whole response with a body (possibly empty). */
static void respond(struct hconn *hc, unsigned status, const char *type, const char *body,
                    size_t len, const char *session)
{
    char head[512];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %u %s\r\n", status, status_text(status));
    if (type)
        n += snprintf(head + n, sizeof head - (size_t)n, "Content-Type: %s\r\n", type);
    if (session)
        n += snprintf(head + n, sizeof head - (size_t)n, "Mcp-Session-Id: %s\r\n", session);
    if (status == 405)
        n += snprintf(head + n, sizeof head - (size_t)n, "Allow: GET, POST, DELETE\r\n");
    if (status == 401)
        n += snprintf(head + n, sizeof head - (size_t)n, "WWW-Authenticate: Bearer\r\n");
    if (!hc->keep_alive)
        n += snprintf(head + n, sizeof head - (size_t)n, "Connection: close\r\n");
    n += snprintf(head + n, sizeof head - (size_t)n, "Content-Length: %zu\r\n\r\n", len);
    uv_buf_t bufs[2] = {uv_buf_init(head, (unsigned)n), uv_buf_init((char *)body, (unsigned)len)};
    hc_writev(hc, bufs, len ? 2 : 1);
    request_done(hc);
}

/* A transport-level refusal: the status, and a JSON-RPC error saying why
 * (as the reference SDK's servers send, code -32000). */
static void refuse_code(struct hconn *hc, unsigned status, int code, const char *why)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 256);
    rig__rpc_write_error(&w, (rig_json_val){0}, code, why);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    respond(hc, status, "application/json", json ? json : "", json ? len : 0, NULL);
    rig_json_writer_free(&w);
}

static void refuse(struct hconn *hc, unsigned status, const char *why)
{
    refuse_code(hc, status, -32000, why);
}

/* One SSE chunk (chunked transfer coding): "<hex>\r\n<text>\r\n". */
static void write_chunk(struct hconn *hc, const char *pre, size_t plen, const char *text,
                        size_t tlen, const char *post, size_t postlen)
{
    char size[24];
    int n = snprintf(size, sizeof size, "%zx\r\n", plen + tlen + postlen);
    uv_buf_t bufs[5] = {uv_buf_init(size, (unsigned)n), uv_buf_init((char *)pre, (unsigned)plen),
                        uv_buf_init((char *)text, (unsigned)tlen),
                        uv_buf_init((char *)post, (unsigned)postlen),
                        uv_buf_init((char *)"\r\n", 2)};
    hc_writev(hc, bufs, 5);
}

static void write_event(struct hconn *hc, struct stream *st, const struct event *e)
{
    char pre[96];
    int n = snprintf(pre, sizeof pre, "event: message\nid: %" PRIu64 "-%" PRIu64 "\ndata: ", st->id,
                     e->seq);
    /* JSON has no raw newline inside strings; any outside them (a tool's
     * pretty-printed params) may become spaces, so one data line holds it. */
    const char *text = e->json;
    char *copy = NULL;
    if (memchr(e->json, '\n', e->len) || memchr(e->json, '\r', e->len)) {
        copy = malloc(e->len);
        if (!copy)
            return;
        for (size_t i = 0; i < e->len; i++)
            copy[i] = e->json[i] == '\n' || e->json[i] == '\r' ? ' ' : e->json[i];
        text = copy;
    }
    write_chunk(hc, pre, (size_t)n, text, e->len, "\n\n", 2);
    free(copy);
    st->sent = e->seq;
}

static void write_comment(struct hconn *hc, const char *text)
{
    write_chunk(hc, text, strlen(text), "", 0, "", 0);
}

/* End the SSE response: the last chunk; the connection may go on. */
static void stream_end_response(struct stream *st)
{
    struct hconn *hc = st->reader;
    if (!hc)
        return;
    stream_detach(st);
    uv_buf_t b = uv_buf_init((char *)"0\r\n\r\n", 5);
    hc_writev(hc, &b, 1);
    request_done(hc);
}

/* Write what the reader has not had; end the response after the answer. */
static void stream_pump(struct stream *st)
{
    struct hconn *hc = st->reader;
    if (!hc)
        return;
    for (struct event *e = st->head; e && st->reader == hc && !hc->closing; e = e->next)
        if (e->seq > st->sent)
            write_event(hc, st, e);
    if (st->reader == hc && st->final && st->sent == st->next_seq && st->id != 0)
        stream_end_response(st);
}

/* Start an SSE response on hc for stream st (taking it from any reader). */
static void stream_attach(struct hconn *hc, struct session *ss, struct stream *st, bool prime)
{
    if (st->reader && st->reader != hc) {
        /* The client came back for this stream on a new connection: the
         * old one is dead to it, even if its socket is not yet. */
        struct hconn *old = st->reader;
        stream_detach(st);
        hc_close(old);
    }
    st->reader = hc;
    hc->streaming = true;
    hc->stream = st;
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     "Cache-Control: no-cache\r\nMcp-Session-Id: %s\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n",
                     ss->id);
    uv_buf_t b = uv_buf_init(head, (unsigned)n);
    hc_writev(hc, &b, 1);
    if (prime && !hc->closing) {
        /* "Reconnect from here": an id and empty data (2025-11-25). */
        char ev[96];
        int m = snprintf(ev, sizeof ev, "id: %" PRIu64 "-%" PRIu64 "\nretry: 1000\ndata: \n\n",
                         st->id, st->sent);
        write_chunk(hc, ev, (size_t)m, "", 0, "", 0);
    }
    stream_pump(st);
}

/* ---- streams and sessions (loop thread) ---------------------------------- */

static struct stream *stream_new(struct session *ss, uint64_t id, const char *related, size_t rlen)
{
    struct stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (related && !(st->related = strndup(related, rlen))) {
        free(st);
        return NULL;
    }
    st->id = id;
    st->next = ss->streams;
    ss->streams = st;
    return st;
}

static void stream_free(struct stream *st)
{
    for (struct event *e = st->head, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    free(st->related);
    free(st);
}

static void stream_remove(struct session *ss, struct stream *st)
{
    for (struct stream **pp = &ss->streams; *pp; pp = &(*pp)->next)
        if (*pp == st) {
            *pp = st->next;
            break;
        }
    stream_detach(st);
    stream_free(st);
}

static void stream_push(struct stream *st, const char *json, size_t len, bool final)
{
    struct event *e = malloc(sizeof *e + len);
    if (!e)
        return;
    e->next = NULL;
    e->seq = ++st->next_seq;
    e->len = len;
    memcpy(e->json, json, len);
    if (st->tail)
        st->tail->next = e;
    else
        st->head = e;
    st->tail = e;
    st->nevents++;
    if (final)
        st->final = true;
}

/* Old events go, so a long stream stays bounded; a client that comes back
 * for ones no longer kept resumes from the oldest that is. */
static void stream_trim_events(struct stream *st)
{
    while (st->nevents > EVENTS_KEPT) {
        struct event *old = st->head;
        st->head = old->next;
        if (!st->head)
            st->tail = NULL;
        free(old);
        st->nevents--;
    }
}

static struct stream *stream_by_related(struct session *ss, const char *related, size_t len)
{
    for (struct stream *st = ss->streams; st; st = st->next)
        if (st->related && !st->final && strlen(st->related) == len &&
            memcmp(st->related, related, len) == 0)
            return st;
    return NULL;
}

static struct stream *stream_by_id(struct session *ss, uint64_t id)
{
    for (struct stream *st = ss->streams; st; st = st->next)
        if (st->id == id)
            return st;
    return NULL;
}

/* Drop finished, unread streams beyond the few kept for resumption. */
static void streams_trim(struct session *ss)
{
    size_t kept = 0;
    for (struct stream **pp = &ss->streams; *pp;) {
        struct stream *st = *pp;
        bool done = st->final && !st->reader; /* read or not: a client may have left */
        if (done && ++kept > STREAMS_KEPT) {
            *pp = st->next;
            stream_free(st);
            continue;
        }
        pp = &st->next;
    }
}

/* The engine's send (loop thread: inside receive or flush). */
static int on_send(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    struct session *ss = ud;
    struct stream *st = NULL;
    if (route && route->close) {
        /* SSE polling: say when to come back, and end the response. */
        st = route->related ? stream_by_related(ss, route->related, route->related_len) : NULL;
        if (st && route->final) {
            /* The request is over without an answer (cancelled): the stream
             * may go once its reader does. Its response stays open, though:
             * a client that sees a stream end without an answer takes it
             * for a lost connection and comes back for it. */
            st->final = true;
            return 0;
        }
        if (st && st->reader && !(ss->deciding && st == ss->capture)) {
            char retry[48];
            int n = snprintf(retry, sizeof retry, "retry: %u\n\n", route->retry_ms);
            write_chunk(st->reader, retry, (size_t)n, "", 0, "", 0);
            stream_end_response(st);
        }
        return 0;
    }
    if (route && route->related)
        st = stream_by_related(ss, route->related, route->related_len);
    if (!st && route && route->final)
        st = ss->capture; /* an error to a message that was no request */
    if (!st && !(route && route->final)) {
        /* Unrelated, or its request's stream is gone: the GET stream's. One
         * the client has not opened yet keeps it for when it does: a
         * request of rig's (roots/list, sent as the client says it is
         * initialized) goes out before any client has had time to GET. */
        st = stream_by_id(ss, 0);
        if (!st)
            st = stream_new(ss, 0, NULL, 0);
    }
    if (!st)
        return 0;
    stream_push(st, json, len, route && route->final);
    if (!(ss->deciding && st == ss->capture))
        stream_pump(st);
    stream_trim_events(st);
    return 0; /* a client that left may come back for its stream */
}

static void on_wake(void *ud)
{
    struct session *ss = ud;
    struct rig_mcp_http *h = ss->h;
    pthread_mutex_lock(&h->mu);
    bool send = !ss->wake_queued;
    if (send) {
        ss->wake_queued = true;
        ss->wake_next = h->woken;
        h->woken = ss;
    }
    pthread_mutex_unlock(&h->mu);
    if (send)
        uv_async_send(&h->async);
}

static struct session *session_new(struct rig_mcp_http *h)
{
    struct session *ss = calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        free(ss);
        return NULL;
    }
    rig__hex_encode(ss->id, rnd, sizeof rnd);
    ss->h = h;
    ss->next_stream = 1;
    ss->conn = rig_mcp_conn_new(h->s, on_send, on_wake, ss);
    if (!ss->conn) {
        free(ss);
        return NULL;
    }
    return ss;
}

/* Free a session that is in no list: its calls are cancelled, its readers'
 * responses end. */
static void session_destroy(struct session *ss)
{
    struct rig_mcp_http *h = ss->h;
    rig_mcp_conn_free(ss->conn); /* no wake() after this */
    pthread_mutex_lock(&h->mu);
    for (struct session **pp = &h->woken; *pp; pp = &(*pp)->wake_next)
        if (*pp == ss) {
            *pp = ss->wake_next;
            break;
        }
    pthread_mutex_unlock(&h->mu);
    for (struct stream *st = ss->streams, *n; st; st = n) {
        n = st->next;
        stream_end_response(st);
        stream_free(st);
    }
    free(ss->token);
    free(ss);
}

static void session_end(struct rig_mcp_http *h, struct session *ss)
{
    for (struct session **pp = &h->sessions; *pp; pp = &(*pp)->next)
        if (*pp == ss) {
            *pp = ss->next;
            atomic_fetch_sub(&h->nsessions, 1);
            break;
        }
    session_destroy(ss);
}

static bool session_busy(const struct session *ss)
{
    if (rig_mcp_conn_pending(ss->conn))
        return true;
    for (const struct stream *st = ss->streams; st; st = st->next)
        if (st->reader)
            return true;
    return false;
}

static struct session *session_find(struct rig_mcp_http *h, const char *id, size_t len)
{
    for (struct session *ss = h->sessions; ss; ss = ss->next)
        if (len == 32 && memcmp(ss->id, id, 32) == 0) {
            ss->last_used_ms = now_ms();
            return ss;
        }
    return NULL;
}

/* ---- checks --------------------------------------------------------------- */

static bool loopback_name(const char *host, size_t len)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(names[i]) == len && strncasecmp(host, names[i], len) == 0)
            return true;
    return false;
}

/* "host[:port]" -> the host part's length. */
static size_t host_part(const char *s, size_t len)
{
    if (len && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        return close ? (size_t)(close - s) + 1 : len;
    }
    const char *colon = memchr(s, ':', len);
    return colon ? (size_t)(colon - s) : len;
}

/* DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends
 * Host: evil.example and Origin: http://evil.example. */
static const char *check_origin(struct rig_mcp_http *h, const http_req *rq)
{
    size_t len = 0;
    const char *host = rig__http_header(rq, "host", &len);
    if (h->loopback && host && !loopback_name(host, host_part(host, len)))
        return "Forbidden: the Host header names no loopback host (DNS rebinding?)";
    const char *origin = rig__http_header(rq, "origin", &len);
    if (!origin)
        return NULL; /* not a browser */
    for (char **o = h->origins; o && *o; o++)
        if (strlen(*o) == len && strncasecmp(*o, origin, len) == 0)
            return NULL;
    size_t skip = len >= 7 && strncasecmp(origin, "http://", 7) == 0    ? 7
                  : len >= 8 && strncasecmp(origin, "https://", 8) == 0 ? 8
                                                                        : 0;
    const char *rest = origin + skip;
    size_t rlen = len - skip;
    if (skip && loopback_name(rest, host_part(rest, rlen)) && !memchr(rest, '/', rlen))
        return NULL;
    return "Forbidden: Origin not allowed";
}

/* The request's bearer token (NULL when it sends none). */
static const char *bearer(const http_req *rq, size_t *len)
{
    size_t n = 0;
    const char *auth = rig__http_header(rq, "authorization", &n);
    if (!auth || n < 7 || strncasecmp(auth, "Bearer ", 7) != 0)
        return NULL;
    *len = n - 7;
    return auth + 7;
}

/* Does `got` (m bytes) equal `want`? In the same time whatever matches. */
static bool token_equal(const char *want, const char *got, size_t m)
{
    size_t n = strlen(want);
    unsigned diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)want[i] ^ (unsigned char)(i < m ? got[i] : 0);
    return diff == 0;
}

static bool check_token(struct rig_mcp_http *h, const http_req *rq)
{
    if (!h->token || h->o.authorize) /* authorize decides per session */
        return true;
    size_t m = 0;
    const char *got = bearer(rq, &m);
    return got && token_equal(h->token, got, m);
}

/* With opts.authorize: may this request act in session ss? It must carry
 * the token the session began with, and the callback must still admit it
 * (a token the application revoked ends access at once). */
static bool session_authorized(struct rig_mcp_http *h, struct session *ss, const http_req *rq)
{
    if (!h->o.authorize)
        return true;
    size_t m = 0;
    const char *got = bearer(rq, &m);
    if (!got || !ss->token || !token_equal(ss->token, got, m))
        return false;
    return h->o.authorize(got, m, rig_mcp_conn_session(ss->conn), false, h->o.authorize_ud);
}

static const char *version_error(const http_req *rq)
{
    size_t len = 0;
    const char *v = rig__http_header(rq, "mcp-protocol-version", &len);
    if (v && !rig_mcp_version_supported(v, len))
        return "Bad Request: unsupported MCP-Protocol-Version (rig speaks 2025-11-25, "
               "2025-06-18, 2025-03-26)";
    return NULL;
}

/* The session a request names: 400 without one, 404 for one unknown. */
static struct session *need_session(struct hconn *hc)
{
    size_t len = 0;
    const char *id = rig__http_header(&hc->req, "mcp-session-id", &len);
    if (!id) {
        refuse(hc, 400, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    struct session *ss = session_find(hc->h, id, len);
    if (!ss) {
        refuse(hc, 404, "Session not found");
        return NULL;
    }
    if (!session_authorized(hc->h, ss, &hc->req)) {
        refuse(hc, 401, "Unauthorized: send this session's Authorization: Bearer <token>");
        return NULL;
    }
    return ss;
}

/* ---- methods ---------------------------------------------------------------- */

/* Make room for one more session: end the longest idle one that nothing is
 * reading or waiting on. False when all are busy. */
static bool sessions_make_room(struct rig_mcp_http *h)
{
    if (atomic_load(&h->nsessions) < h->o.max_sessions)
        return true;
    struct session *victim = NULL;
    for (struct session *ss = h->sessions; ss; ss = ss->next)
        if ((!victim || ss->last_used_ms < victim->last_used_ms) && !session_busy(ss))
            victim = ss;
    if (!victim)
        return false;
    session_end(h, victim);
    return true;
}

static void do_post(struct hconn *hc, const char *body, size_t len)
{
    struct rig_mcp_http *h = hc->h;
    if (!rig__http_header_has(&hc->req, "accept", "application/json") ||
        !rig__http_header_has(&hc->req, "accept", "text/event-stream")) {
        refuse(hc, 406,
               "Not Acceptable: Client must accept both application/json and "
               "text/event-stream");
        return;
    }
    if (!rig__http_header_has(&hc->req, "content-type", "application/json")) {
        refuse(hc, 415, "Unsupported Media Type: Content-Type must be application/json");
        return;
    }
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(body, len, NULL, &jerr);
    if (!doc) {
        char where[160], why[200];
        rig_json_error_format(&jerr, where, sizeof where);
        snprintf(why, sizeof why, "Parse error: %s", where);
        refuse_code(hc, 400, RIG_MCP_PARSE_ERROR, why);
        return;
    }
    rpc_msg m;
    rig__rpc_classify(rig_json_doc_root(doc), &m);
    bool init = m.kind == RPC_REQUEST && rig_json_str_eq(m.method, "initialize");
    size_t idlen = 0;
    const char *id = m.kind == RPC_REQUEST ? rig_json_raw(m.id, &idlen) : NULL;
    char *idcopy = id ? strndup(id, idlen) : NULL;
    struct session *ss = NULL;
    if (init) {
        ss = session_new(h);
        if (!ss) {
            free(idcopy);
            rig_json_doc_free(doc);
            refuse(hc, 500, "Internal error: out of memory");
            return;
        }
        if (h->o.authorize) {
            size_t tlen = 0;
            const char *got = bearer(&hc->req, &tlen);
            bool ok = got && memchr(got, '\0', tlen) == NULL &&
                      h->o.authorize(got, tlen, rig_mcp_conn_session(ss->conn), true,
                                     h->o.authorize_ud);
            if (ok && !(ss->token = strndup(got, tlen))) {
                free(idcopy);
                rig_json_doc_free(doc);
                session_destroy(ss);
                refuse(hc, 500, "Internal error: out of memory");
                return;
            }
            if (!ok) {
                free(idcopy);
                rig_json_doc_free(doc);
                session_destroy(ss);
                refuse(hc, 401, "Unauthorized: send Authorization: Bearer <token>");
                return;
            }
        }
    } else {
        const char *verr = version_error(&hc->req);
        if (verr) {
            free(idcopy);
            rig_json_doc_free(doc);
            refuse(hc, 400, verr);
            return;
        }
        if (!(ss = need_session(hc))) {
            free(idcopy);
            rig_json_doc_free(doc);
            return;
        }
    }
    if (id && !idcopy) {
        rig_json_doc_free(doc);
        if (init)
            session_destroy(ss);
        refuse(hc, 500, "Internal error: out of memory");
        return;
    }

    /* The message's stream: the request's own, or a capture for what the
     * engine answers a notification, response or junk with. */
    bool busy = idcopy && stream_by_related(ss, idcopy, idlen);
    struct stream *st = busy ? NULL : stream_new(ss, ss->next_stream++, idcopy, idlen);
    free(idcopy);
    if (!st) {
        rig_json_doc_free(doc);
        if (init)
            session_destroy(ss);
        refuse(hc, busy ? 409 : 500,
               busy ? "Conflict: a request with this id is still running"
                    : "Internal error: out of memory");
        return;
    }
    ss->capture = st;
    ss->deciding = true;
    rig__mcp_conn_receive_root(ss->conn, rig_json_doc_root(doc)); /* parsed once */
    rig_json_doc_free(doc);
    ss->deciding = false;
    ss->capture = NULL;

    if (!id) {
        /* A notification or a response: 202; junk: its JSON-RPC error. */
        if (st->head)
            respond(hc, 400, "application/json", st->head->json, st->head->len, NULL);
        else
            respond(hc, 202, NULL, "", 0, NULL);
        stream_remove(ss, st);
        return;
    }
    bool plain = st->final && st->head == st->tail && st->head;
    if (init) {
        rig_json_doc *answer = plain ? rig_json_parse(st->head->json, st->head->len, NULL, NULL)
                                     : NULL;
        bool ok = rig_json_exists(rig_json_get(rig_json_doc_root(answer), "result"));
        rig_json_doc_free(answer);
        if (ok && !sessions_make_room(h)) {
            session_destroy(ss);
            return refuse(hc, 503,
                          "Service Unavailable: too many sessions are busy; try again later");
        }
        if (plain)
            respond(hc, ok ? 200 : 400, "application/json", st->head->json, st->head->len,
                    ok ? ss->id : NULL);
        else
            refuse(hc, 500, "Internal error: initialize gave no answer");
        if (!ok) {
            session_destroy(ss);
            return;
        }
        st->sent = st->next_seq;
        ss->last_used_ms = now_ms();
        ss->next = h->sessions;
        h->sessions = ss;
        atomic_fetch_add(&h->nsessions, 1);
        streams_trim(ss);
        return;
    }
    if (plain) {
        /* Answered at once with nothing else to say: plain JSON. */
        respond(hc, 200, "application/json", st->head->json, st->head->len, NULL);
        st->sent = st->next_seq;
        streams_trim(ss);
        return;
    }
    /* More to come (a tool call): stream it. */
    bool prime = strcmp(rig_mcp_conn_version(ss->conn), "2025-11-25") >= 0;
    stream_attach(hc, ss, st, prime);
}

static void do_get(struct hconn *hc)
{
    if (!rig__http_header_has(&hc->req, "accept", "text/event-stream")) {
        refuse(hc, 406, "Not Acceptable: Client must accept text/event-stream");
        return;
    }
    const char *verr = version_error(&hc->req);
    if (verr) {
        refuse(hc, 400, verr);
        return;
    }
    struct session *ss = need_session(hc);
    if (!ss)
        return;
    size_t len = 0;
    const char *last = rig__http_header(&hc->req, "last-event-id", &len);
    uint64_t sid = 0, seq = 0;
    if (last) {
        char tmp[48];
        char *end = NULL;
        if (len >= sizeof tmp) {
            refuse(hc, 400, "Bad Request: malformed Last-Event-ID");
            return;
        }
        memcpy(tmp, last, len);
        tmp[len] = '\0';
        sid = strtoull(tmp, &end, 10);
        if (end == tmp || *end != '-' || (seq = strtoull(end + 1, &end, 10), *end)) {
            refuse(hc, 400, "Bad Request: malformed Last-Event-ID");
            return;
        }
    }
    struct stream *st = stream_by_id(ss, sid);
    if (last && !st) {
        refuse(hc, 404,
               "Not Found: no stream with that Last-Event-ID (it may have "
               "expired)");
        return;
    }
    if (!last && st && st->reader) {
        refuse(hc, 409, "Conflict: this stream is already being read");
        return;
    }
    if (!st && !(st = stream_new(ss, 0, NULL, 0))) {
        refuse(hc, 500, "Internal error: out of memory");
        return;
    }
    if (last && seq <= st->next_seq)
        st->sent = seq; /* replay what follows */
    stream_attach(hc, ss, st, !last);
}

static void do_delete(struct hconn *hc)
{
    struct session *ss = need_session(hc);
    if (!ss)
        return;
    session_end(hc->h, ss);
    if (!hc->closing)
        respond(hc, 200, NULL, "", 0, NULL);
}

static void dispatch(struct hconn *hc, const char *body, size_t len)
{
    struct rig_mcp_http *h = hc->h;
    const http_req *rq = &hc->req;
    if (rq->path_len != strlen(h->path) || memcmp(rq->path, h->path, rq->path_len) != 0) {
        refuse(hc, 404, "Not Found: MCP lives at another path");
        return;
    }
    const char *why = check_origin(h, rq);
    if (why) {
        refuse(hc, 403, why);
        return;
    }
    if (!check_token(h, rq)) {
        refuse(hc, 401, "Unauthorized: send Authorization: Bearer <token>");
        return;
    }
    if (rq->method_len == 4 && memcmp(rq->method, "POST", 4) == 0) {
        do_post(hc, body, len);
        return;
    }
    if (rq->method_len == 3 && memcmp(rq->method, "GET", 3) == 0) {
        do_get(hc);
        return;
    }
    if (rq->method_len == 6 && memcmp(rq->method, "DELETE", 6) == 0) {
        do_delete(hc);
        return;
    }
    refuse(hc, 405, "Method Not Allowed");
}

/* ---- reading ------------------------------------------------------------------ */

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static void on_alloc(uv_handle_t *hd, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct hconn *hc = hd->data;
    if (hc->cap - hc->len < 16384) {
        size_t limit = HEAD_MAX + hc->h->o.max_body + 65536;
        size_t cap = hc->cap ? hc->cap * 2 : 65536;
        while (cap - hc->len < 16384)
            cap *= 2;
        if (cap > limit)
            cap = limit;
        char *b = cap > hc->cap ? realloc(hc->buf, cap) : NULL;
        if (b) {
            hc->buf = b;
            hc->cap = cap;
        }
    }
    if (hc->len >= hc->cap) {
        *buf = uv_buf_init(NULL, 0); /* full: libuv answers UV_ENOBUFS */
        return;
    }
    *buf = uv_buf_init(hc->buf + hc->len, (unsigned)(hc->cap - hc->len));
}

/* Drop the first n bytes of the buffer (a request that was handled). */
static void consume(struct hconn *hc, size_t n)
{
    memmove(hc->buf, hc->buf + n, hc->len - n);
    hc->len -= n;
    hc->head_done = false;
    free(hc->body);
    hc->body = NULL;
    hc->body_len = hc->body_cap = 0;
    memset(&hc->chunk, 0, sizeof hc->chunk);
    hc->req_start_ms = hc->len ? now_ms() : 0;
}

/* The head's pointers point into the buffer, which may have moved while
 * the body came (realloc): parse the head again where it is now. */
static void reparse_head(struct hconn *hc)
{
    http_req again;
    if (rig__http_parse_head(hc->buf, hc->len, HEAD_MAX, &again) == 1)
        hc->req = again;
}

/* Handle every whole request in the buffer, one at a time: while an SSE
 * response is open, what follows waits. */
static void parse(struct hconn *hc)
{
    struct rig_mcp_http *h = hc->h;
    while (!hc->closing && !hc->ending && !hc->streaming && hc->len) {
        if (!hc->req_start_ms)
            hc->req_start_ms = now_ms();
        if (!hc->head_done) {
            int rc = rig__http_parse_head(hc->buf, hc->len, HEAD_MAX, &hc->req);
            if (rc == 0)
                return;
            if (rc < 0) {
                hc->keep_alive = false;
                refuse(hc, (unsigned)-rc, "Bad Request: malformed HTTP request");
                return;
            }
            hc->head_done = true;
            hc->keep_alive = hc->req.keep_alive;
            if ((hc->req.has_length && hc->req.content_length > h->o.max_body)) {
                hc->keep_alive = false; /* the body is not read: the connection ends */
                {
                    refuse(hc, 413, "Payload Too Large");
                    return;
                }
            }
            if (hc->req.expect_continue) {
                uv_buf_t b = uv_buf_init((char *)"HTTP/1.1 100 Continue\r\n\r\n", 25);
                hc_writev(hc, &b, 1);
            }
        }
        size_t head = hc->req.head_len;
        if (hc->req.chunked) {
            /* Decoded data is never longer than the bytes it came in: room
             * for those is enough, and grows only as the body arrives. */
            size_t want = hc->body_len + (hc->len - head);
            if (want > h->o.max_body)
                want = h->o.max_body;
            if (want > hc->body_cap || !hc->body) {
                char *b = realloc(hc->body, want ? want : 1);
                if (!b) {
                    hc->keep_alive = false;
                    refuse(hc, 500, "Internal error: out of memory");
                    return;
                }
                hc->body = b;
                hc->body_cap = want;
            }
            size_t used = 0;
            int rc = rig__http_dechunk(&hc->chunk, hc->buf + head, hc->len - head, &used,
                                       hc->body, &hc->body_len, h->o.max_body);
            /* The decoded part of the buffer is gone; the head stays. */
            memmove(hc->buf + head, hc->buf + head + used, hc->len - head - used);
            hc->len -= used;
            if (rc == 0)
                return;
            if (rc < 0) {
                hc->keep_alive = false;
                refuse(hc, (unsigned)-rc,
                       rc == -413 ? "Payload Too Large"
                                  : "Bad Request: malformed chunked body");
                return;
            }
            reparse_head(hc);
            dispatch(hc, hc->body, hc->body_len);
            if (!hc->closing && !hc->ending)
                consume(hc, head);
        } else {
            size_t blen = hc->req.has_length ? (size_t)hc->req.content_length : 0;
            if (hc->len - head < blen)
                return;
            /* The buffer may move while the request is handled (it does
             * not: nothing reads meanwhile), so the body is used in place. */
            reparse_head(hc);
            dispatch(hc, hc->buf + head, blen);
            if (!hc->closing && !hc->ending)
                consume(hc, head + blen);
        }
    }
}

/* A response ended: the next request may be parsed (later, outside the
 * engine's call that ended it). */
static void request_done(struct hconn *hc)
{
    if (!hc->keep_alive) {
        hc_end(hc);
        return;
    }
    if (hc->len && !hc->resume && !hc->streaming) {
        hc->resume = true;
        hc->resume_next = hc->h->resume;
        hc->h->resume = hc;
    }
}

static void run_resumed(struct rig_mcp_http *h)
{
    while (h->resume) {
        struct hconn *hc = h->resume;
        h->resume = hc->resume_next;
        hc->resume = false;
        parse(hc);
    }
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    struct hconn *hc = s->data;
    if (nread < 0) {
        if (nread == UV_ENOBUFS && !hc->head_done)
            refuse(hc, 431, "Request Header Fields Too Large");
        hc_close(hc); /* EOF, an error, or a full buffer */
        return;
    }
    hc->len += (size_t)nread;
    hc->last_io_ms = now_ms();
    struct rig_mcp_http *h = hc->h;
    cork(h);
    if (!hc->streaming)
        parse(hc);
    run_resumed(h);
    uncork(h);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct rig_mcp_http *h = server->data;
    if (status < 0)
        return;
    struct hconn *hc = calloc(1, sizeof *hc);
    if (!hc)
        return;
    hc->h = h;
    uv_tcp_init(&h->loop, &hc->tcp);
    hc->tcp.data = hc;
    if (uv_accept(server, (uv_stream_t *)&hc->tcp) < 0 || h->nconns >= h->o.max_connections) {
        uv_close((uv_handle_t *)&hc->tcp, on_closed);
        return;
    }
    uv_tcp_nodelay(&hc->tcp, 1);
    hc->next = h->conns;
    if (h->conns)
        h->conns->prev = hc;
    h->conns = hc;
    h->nconns++;
    hc->last_io_ms = now_ms();
    if (uv_read_start((uv_stream_t *)&hc->tcp, on_alloc, on_read) < 0)
        hc_close(hc);
}

/* ---- the loop's own events ------------------------------------------------------ */

static void stop_all(struct rig_mcp_http *h)
{
    while (h->sessions)
        session_end(h, h->sessions);
    while (h->conns)
        hc_close(h->conns);
    uv_close((uv_handle_t *)&h->listener, NULL);
    uv_close((uv_handle_t *)&h->sweep, NULL);
    uv_close((uv_handle_t *)&h->async, NULL);
}

static void on_async(uv_async_t *a)
{
    struct rig_mcp_http *h = a->data;
    pthread_mutex_lock(&h->mu);
    struct session *list = h->woken;
    h->woken = NULL;
    for (struct session *ss = list; ss; ss = ss->wake_next)
        ss->wake_queued = false;
    bool stopping = h->stopping;
    pthread_mutex_unlock(&h->mu);
    /* A session on the list is alive: destroying one takes it off first. */
    cork(h);
    for (struct session *ss = list, *next; ss; ss = next) {
        next = ss->wake_next;
        rig_mcp_conn_flush(ss->conn);
    }
    run_resumed(h);
    uncork(h);
    if (stopping && !uv_is_closing((uv_handle_t *)&h->async))
        stop_all(h);
}

static void on_sweep(uv_timer_t *t)
{
    struct rig_mcp_http *h = t->data;
    int64_t now = now_ms(), limit = (int64_t)h->o.conn_timeout_s * 1000;
    for (struct hconn *hc = h->conns, *next; hc; hc = next) {
        next = hc->next;
        if (hc->streaming) {
            if (now - hc->last_io_ms >= KEEPALIVE_MS)
                write_comment(hc, ": keep-alive\n\n"); /* finds a client that left */
        } else if ((hc->req_start_ms && now - hc->req_start_ms > limit) ||
                   (!hc->len && now - hc->last_io_ms > limit)) {
            hc_close(hc); /* a request too slow to arrive, or an idle connection */
        }
    }
    for (struct session *ss = h->sessions, *next; ss; ss = next) {
        next = ss->next;
        for (struct stream *st = ss->streams; st; st = st->next)
            stream_trim_events(st);
        streams_trim(ss);
        if (now - ss->last_used_ms > (int64_t)h->o.session_idle_s * 1000 && !session_busy(ss))
            session_end(h, ss);
    }
}

static void *loop_main(void *arg)
{
    struct rig_mcp_http *h = arg;
    /* A client gone mid-write is EPIPE here, not a signal for the process. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    return NULL;
}

/* ---- start and stop --------------------------------------------------------------- */

static int listen_on(struct rig_mcp_http *h, const char *host, unsigned port, rig_error *err)
{
    uv_tcp_init(&h->loop, &h->listener);
    h->listener.data = h;
    struct sockaddr_storage ss;
    int rc = uv_ip4_addr(host, (int)port, (struct sockaddr_in *)&ss);
    if (rc != 0)
        rc = uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)&ss);
    if (rc != 0 && strcmp(host, "localhost") == 0)
        rc = uv_ip4_addr("127.0.0.1", (int)port, (struct sockaddr_in *)&ss);
    if (rc != 0)
        return rig_error_set(err, RIG_EINVAL,
                             "Cannot listen on '%s': give an IP address (127.0.0.1, ::1, "
                             "0.0.0.0).",
                             host);
    if (ss.ss_family == AF_INET)
        h->loopback = ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127;
    else
        h->loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
    rc = uv_tcp_bind(&h->listener, (struct sockaddr *)&ss, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&h->listener, 511, on_connection);
    if (rc != 0)
        return rig_error_set(err, RIG_EINVAL, "Cannot listen on %s:%u: %s.", host, port,
                             uv_strerror(rc));
    struct sockaddr_storage got;
    int len = sizeof got;
    uv_tcp_getsockname(&h->listener, (struct sockaddr *)&got, &len);
    h->port = got.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
                                        : ntohs(((struct sockaddr_in *)&got)->sin_port);
    return RIG_OK;
}

static void http_free(struct rig_mcp_http *h)
{
    for (char **o = h->origins; o && *o; o++)
        free(*o);
    free(h->origins);
    free(h->path);
    free(h->token);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

/* Run the loop until every handle is closed, then close it. */
static void loop_drain(struct rig_mcp_http *h)
{
    uv_run(&h->loop, UV_RUN_DEFAULT);
    uv_loop_close(&h->loop);
}

rig_mcp_http *rig_mcp_http_start(rig_mcp_server *s, const rig_mcp_http_opts *opts, rig_error *err)
{
    if (!s)
        return rig_error_set(err, RIG_EINVAL, "An HTTP transport needs a server."), NULL;
    struct rig_mcp_http *h = calloc(1, sizeof *h);
    if (!h)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    pthread_mutex_init(&h->mu, NULL);
    h->s = s;
    if (opts)
        h->o = *opts;
    if (!h->o.max_body)
        h->o.max_body = 4u << 20;
    if (!h->o.max_sessions)
        h->o.max_sessions = 1000;
    if (!h->o.session_idle_s)
        h->o.session_idle_s = 3600;
    if (!h->o.conn_timeout_s)
        h->o.conn_timeout_s = 30;
    if (!h->o.max_connections)
        h->o.max_connections = 512;
    h->path = strdup(h->o.path ? h->o.path : "/mcp");
    h->token = h->o.token && *h->o.token ? strdup(h->o.token) : NULL;
    size_t n = 0;
    while (h->o.origins && h->o.origins[n])
        n++;
    h->origins = calloc(n + 1, sizeof *h->origins);
    bool oom = !h->path || (h->o.token && *h->o.token && !h->token) || !h->origins;
    for (size_t i = 0; !oom && i < n; i++)
        oom = !(h->origins[i] = strdup(h->o.origins[i]));
    h->o.path = h->o.token = NULL;
    h->o.origins = NULL;
    if (oom) {
        http_free(h);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    }
    if (h->path[0] != '/') {
        http_free(h);
        return rig_error_set(err, RIG_EINVAL, "The MCP path must start with '/'."), NULL;
    }
    int rc = uv_loop_init(&h->loop);
    if (rc != 0) {
        http_free(h);
        return rig_error_set(err, RIG_ENOMEM, "libuv: %s.", uv_strerror(rc)), NULL;
    }
    uv_async_init(&h->loop, &h->async, on_async);
    h->async.data = h;
    uv_timer_init(&h->loop, &h->sweep);
    h->sweep.data = h;
    if (listen_on(h, opts && opts->host ? opts->host : "127.0.0.1", opts ? opts->port : 0,
                  err) != RIG_OK) {
        uv_close((uv_handle_t *)&h->listener, NULL);
        uv_close((uv_handle_t *)&h->async, NULL);
        uv_close((uv_handle_t *)&h->sweep, NULL);
        loop_drain(h);
        http_free(h);
        return NULL;
    }
    uv_timer_start(&h->sweep, on_sweep, 1000, 1000);
    if (pthread_create(&h->thread, NULL, loop_main, h) != 0) {
        uv_close((uv_handle_t *)&h->listener, NULL);
        uv_close((uv_handle_t *)&h->async, NULL);
        uv_close((uv_handle_t *)&h->sweep, NULL);
        loop_drain(h);
        http_free(h);
        return rig_error_set(err, RIG_ENOMEM, "Cannot start a thread."), NULL;
    }
    return h;
}

unsigned rig_mcp_http_port(const rig_mcp_http *h)
{
    return h ? h->port : 0;
}

size_t rig_mcp_http_sessions(rig_mcp_http *h)
{
    return h ? atomic_load(&h->nsessions) : 0;
}

void rig_mcp_http_stop(rig_mcp_http *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stopping = true;
    pthread_mutex_unlock(&h->mu);
    uv_async_send(&h->async);
    pthread_join(h->thread, NULL);
    uv_loop_close(&h->loop);
    http_free(h);
}

int rig_mcp_serve_http(rig_mcp_server *s, const rig_mcp_http_opts *opts,
                       void (*ready)(unsigned port, void *ud), void *ud, rig_error *err)
{
    /* Threads started from here on inherit the mask: the signals come to
     * sigwait below, and a client gone mid-write is an error, not a kill. */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    rig_mcp_http *h = rig_mcp_http_start(s, opts, err);
    if (!h) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return err ? err->code : RIG_EINVAL;
    }
    if (ready)
        ready(h->port, ud);
    sigdelset(&set, SIGPIPE);
    int sig = 0;
    while (sigwait(&set, &sig) != 0)
        ;
    rig_mcp_http_stop(h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return RIG_OK;
}
