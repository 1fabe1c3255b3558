/* http.c — MCP's Streamable HTTP transport on libmicrohttpd.
 *
 * Each HTTP connection has its own thread (MHD_USE_THREAD_PER_CONNECTION),
 * so an SSE response can simply block in its content reader until its
 * stream has an event. A session is one rig_mcp_conn; every message the
 * engine sends carries the id of the request it belongs to, and lands on
 * that request's stream (the POST's SSE response), or on the session's GET
 * stream when it belongs to none. Streams keep their events, numbered, so
 * a client that lost a stream can resume it with Last-Event-ID.
 *
 * Threads and locks: `h->mu` guards sessions and streams (each stream has
 * its own condition variable, so an event wakes only its reader). A
 * session's `io` lock serializes rig_mcp_conn_receive and _flush, which the
 * engine requires of a transport. Tool answers arrive on workers, which
 * call wake(); the pump thread then flushes that session. The engine calls
 * wake() under its connection lock and send() outside it, so the order is
 * conn -> h->mu, and nothing here calls into the engine holding h->mu. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "rig/rig.h"

#define KEEPALIVE_MS 15000
#define STREAMS_KEPT 16 /* finished streams a session keeps for resumption */
#define EVENTS_KEPT 1024 /* events a stream keeps */

struct event {
    struct event *next;
    uint64_t seq;
    size_t len;
    char json[];
};

struct stream {
    struct stream *next;
    uint64_t id;       /* 0: the session's GET stream */
    char *related;     /* the request id's JSON text (POST streams) */
    struct event *head, *tail;
    size_t nevents;
    uint64_t next_seq;
    uint64_t sent;     /* the last seq handed to a reader */
    bool final;        /* the answer is among the events */
    bool attached;     /* a connection is reading it */
    unsigned gen;      /* which reader: a resuming GET takes the stream over */
    bool close;        /* the tool asked: end the reader's response now */
    unsigned retry_ms;
    pthread_cond_t cv;
};

struct session {
    struct session *next;
    struct rig_mcp_http *h;
    char id[33];
    rig_mcp_conn *conn;
    pthread_mutex_t io;   /* rig_mcp_conn_receive / _flush */
    /* under h->mu: */
    int refs;
    bool ended;
    bool wake;            /* the pump should flush it */
    int64_t last_used_ms;
    struct stream *streams;
    uint64_t next_stream;
    struct stream *capture; /* the POST being handled: answers without an id */
};

struct rig_mcp_http {
    rig_mcp_server *s;
    rig_mcp_http_opts o;
    char *path, *token;
    char **origins;
    bool loopback;
    struct MHD_Daemon *d;
    int fd;
    unsigned port;
    pthread_mutex_t mu;
    pthread_cond_t pump_cv;
    pthread_t pump;
    bool stopping;
    struct session *sessions;
    size_t nsessions;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- streams (h->mu held) ---------------------------------------------- */

static struct stream *stream_new(struct session *ss, uint64_t id, const char *related,
                                 size_t rlen)
{
    struct stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (related && !(st->related = strndup(related, rlen))) {
        free(st);
        return NULL;
    }
    st->id = id;
    pthread_cond_init(&st->cv, NULL);
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
    pthread_cond_destroy(&st->cv);
    free(st->related);
    free(st);
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
    /* Old events that were delivered go, so a long stream stays bounded. */
    while (st->nevents > EVENTS_KEPT && st->head->seq <= st->sent) {
        struct event *old = st->head;
        st->head = old->next;
        free(old);
        st->nevents--;
    }
    if (final)
        st->final = true;
    pthread_cond_signal(&st->cv);
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
        bool done = st->final && !st->attached && st->sent >= st->next_seq;
        if (done && ++kept > STREAMS_KEPT) {
            *pp = st->next;
            stream_free(st);
            continue;
        }
        pp = &st->next;
    }
}

/* ---- sessions ------------------------------------------------------------ */

/* The engine's send: onto the stream the message belongs to. Runs with the
 * session's io lock held (receive or flush). */
static int on_send(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    struct session *ss = ud;
    struct rig_mcp_http *h = ss->h;
    pthread_mutex_lock(&h->mu);
    struct stream *st = NULL;
    if (route && route->close) {
        /* Only a stream being read can be closed; one nobody reads is
         * already waiting for its client to come back. */
        st = route->related ? stream_by_related(ss, route->related, route->related_len) : NULL;
        if (st && st->attached) {
            st->close = true;
            st->retry_ms = route->retry_ms;
            pthread_cond_signal(&st->cv);
        }
        pthread_mutex_unlock(&h->mu);
        return 0;
    }
    if (route && route->related)
        st = stream_by_related(ss, route->related, route->related_len);
    if (!st && route && route->final)
        st = ss->capture; /* an error to a message that was no request */
    if (!st && !(route && route->final))
        st = stream_by_id(ss, 0); /* unrelated, or its request's stream is gone */
    if (st && !ss->ended)
        stream_push(st, json, len, route && route->final);
    pthread_mutex_unlock(&h->mu);
    return 0; /* a client that left may come back for its stream */
}

static void on_wake(void *ud)
{
    struct session *ss = ud;
    struct rig_mcp_http *h = ss->h;
    pthread_mutex_lock(&h->mu);
    if (!ss->wake) {
        ss->wake = true;
        pthread_cond_signal(&h->pump_cv);
    }
    pthread_mutex_unlock(&h->mu);
}

static void session_destroy(struct session *ss)
{
    rig_mcp_conn_free(ss->conn); /* cancels its calls; no wake after this */
    for (struct stream *st = ss->streams, *n; st; st = n) {
        n = st->next;
        stream_free(st);
    }
    pthread_mutex_destroy(&ss->io);
    free(ss);
}

static void session_unref(struct session *ss)
{
    struct rig_mcp_http *h = ss->h;
    pthread_mutex_lock(&h->mu);
    bool last = --ss->refs == 0;
    pthread_mutex_unlock(&h->mu);
    if (last)
        session_destroy(ss);
}

/* End a session (h->mu held): out of the list, readers woken. The caller
 * drops the list's reference after unlocking. */
static void session_end_locked(struct rig_mcp_http *h, struct session *ss)
{
    if (ss->ended)
        return;
    ss->ended = true;
    for (struct session **pp = &h->sessions; *pp; pp = &(*pp)->next)
        if (*pp == ss) {
            *pp = ss->next;
            h->nsessions--;
            break;
        }
    for (struct stream *st = ss->streams; st; st = st->next)
        pthread_cond_broadcast(&st->cv);
}

static bool session_busy(const struct session *ss)
{
    for (const struct stream *st = ss->streams; st; st = st->next)
        if (st->attached || !st->final)
            return true;
    return false;
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
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(ss->id + 2 * i, 3, "%02x", rnd[i]);
    ss->h = h;
    ss->next_stream = 1;
    pthread_mutex_init(&ss->io, NULL);
    ss->conn = rig_mcp_conn_new(h->s, on_send, on_wake, ss);
    if (!ss->conn) {
        pthread_mutex_destroy(&ss->io);
        free(ss);
        return NULL;
    }
    return ss;
}

/* Make room for one more session: end the longest idle one that nothing is
 * reading or waiting on. False when all are busy. */
static bool sessions_make_room(struct rig_mcp_http *h, struct session **evicted)
{
    *evicted = NULL;
    if (h->nsessions < h->o.max_sessions)
        return true;
    struct session *victim = NULL;
    for (struct session *ss = h->sessions; ss; ss = ss->next)
        if (!session_busy(ss) && (!victim || ss->last_used_ms < victim->last_used_ms))
            victim = ss;
    if (!victim)
        return false;
    session_end_locked(h, victim);
    *evicted = victim;
    return true;
}

static struct session *session_find(struct rig_mcp_http *h, const char *id)
{
    struct session *found = NULL;
    pthread_mutex_lock(&h->mu);
    for (struct session *ss = h->sessions; ss && id; ss = ss->next)
        if (strcmp(ss->id, id) == 0) {
            found = ss;
            ss->refs++;
            ss->last_used_ms = now_ms();
            break;
        }
    pthread_mutex_unlock(&h->mu);
    return found;
}

/* ---- the pump: flushes woken sessions, ends idle ones -------------------- */

static void *pump_main(void *arg)
{
    struct rig_mcp_http *h = arg;
    pthread_mutex_lock(&h->mu);
    while (!h->stopping) {
        struct session *woken[64];
        size_t n = 0;
        for (struct session *ss = h->sessions; ss && n < 64; ss = ss->next)
            if (ss->wake) {
                ss->wake = false;
                ss->refs++;
                woken[n++] = ss;
            }
        struct session *idle = NULL;
        int64_t now = now_ms();
        for (struct session *ss = h->sessions; ss && !idle; ss = ss->next)
            if (!ss->wake && now - ss->last_used_ms > (int64_t)h->o.session_idle_s * 1000 &&
                !session_busy(ss))
                idle = ss;
        if (idle)
            session_end_locked(h, idle);
        if (n == 0 && !idle) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&h->pump_cv, &h->mu, &ts);
            continue;
        }
        pthread_mutex_unlock(&h->mu);
        for (size_t i = 0; i < n; i++) {
            pthread_mutex_lock(&woken[i]->io);
            rig_mcp_conn_flush(woken[i]->conn);
            pthread_mutex_unlock(&woken[i]->io);
            session_unref(woken[i]);
        }
        if (idle)
            session_unref(idle);
        pthread_mutex_lock(&h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* ---- requests --------------------------------------------------------------- */

struct req {
    char *body;
    size_t len, cap;
    bool too_big;
    bool started;
};

/* The reader of an SSE response: one stream, attached to this connection. */
struct reader {
    struct rig_mcp_http *h;
    struct session *ss; /* a reference */
    struct stream *st;
    char *buf;          /* the event being written */
    size_t len, off;
    uint64_t buf_seq;   /* its seq, 0 for a priming event or a comment */
    bool detached;      /* the stream is free for another reader */
    bool ending;        /* after this buffer, the end */
    unsigned gen;       /* the stream's reader generation it was attached in */
    bool prime;         /* send the priming event first */
    bool standalone;    /* the GET stream: never ends on its own */
};

static int respond(struct MHD_Connection *con, unsigned status, const char *type,
                   const char *body, size_t len, const char *session)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    if (type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (session)
        MHD_add_response_header(r, "Mcp-Session-Id", session);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, POST, DELETE");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    int rc = MHD_queue_response(con, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* A transport-level refusal: the status, and a JSON-RPC error saying why
 * (as the reference SDK's servers send, code -32000). */
static int refuse(struct MHD_Connection *con, unsigned status, const char *why)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 256);
    rig__rpc_write_error(&w, (rig_json_val){0}, -32000, why);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    int rc = respond(con, status, "application/json", json ? json : "", json ? len : 0, NULL);
    rig_json_writer_free(&w);
    return rc;
}

static bool header_has(struct MHD_Connection *con, const char *name, const char *needle)
{
    const char *v = MHD_lookup_connection_value(con, MHD_HEADER_KIND, name);
    return v && strcasestr(v, needle);
}

static bool loopback_name(const char *host, size_t len)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(names[i]) == len && strncasecmp(host, names[i], len) == 0)
            return true;
    return false;
}

/* "host[:port]" -> the host part's length. */
static size_t host_part(const char *hostport)
{
    if (hostport[0] == '[') {
        const char *close = strchr(hostport, ']');
        return close ? (size_t)(close - hostport) + 1 : strlen(hostport);
    }
    const char *colon = strchr(hostport, ':');
    return colon ? (size_t)(colon - hostport) : strlen(hostport);
}

/* DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends
 * Host: evil.example and Origin: http://evil.example. */
static const char *check_origin(struct rig_mcp_http *h, struct MHD_Connection *con)
{
    const char *host = MHD_lookup_connection_value(con, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (h->loopback && host && !loopback_name(host, host_part(host)))
        return "Forbidden: the Host header names no loopback host (DNS rebinding?)";
    const char *origin = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Origin");
    if (!origin)
        return NULL; /* not a browser */
    for (char **o = h->origins; o && *o; o++)
        if (strcasecmp(*o, origin) == 0)
            return NULL;
    const char *rest = NULL;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (rest && loopback_name(rest, host_part(rest)) && !strchr(rest, '/'))
        return NULL;
    return "Forbidden: Origin not allowed";
}

static bool check_token(struct rig_mcp_http *h, struct MHD_Connection *con)
{
    if (!h->token)
        return true;
    const char *auth = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return false;
    const char *got = auth + 7;
    size_t n = strlen(h->token), m = strlen(got);
    unsigned diff = n != m;
    for (size_t i = 0; i < n; i++) /* the same time whatever matches */
        diff |= (unsigned char)h->token[i] ^ (unsigned char)(i < m ? got[i] : 0);
    return diff == 0;
}

/* ---- SSE ------------------------------------------------------------------- */

/* An event's bytes. JSON has no raw newline inside strings, so any outside
 * them (a tool's pretty-printed params) can become spaces. */
static char *sse_format(uint64_t stream, const struct event *e, size_t *len)
{
    size_t cap = e->len + 96;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    int n = snprintf(buf, cap, "event: message\nid: %" PRIu64 "-%" PRIu64 "\ndata: ", stream,
                     e->seq);
    char *p = buf + n;
    for (size_t i = 0; i < e->len; i++)
        *p++ = e->json[i] == '\n' || e->json[i] == '\r' ? ' ' : e->json[i];
    *p++ = '\n';
    *p++ = '\n';
    *len = (size_t)(p - buf);
    return buf;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    struct reader *rd = cls;
    struct rig_mcp_http *h = rd->h;
    if (rd->off == rd->len) {
        free(rd->buf);
        rd->buf = NULL;
        rd->len = rd->off = 0;
        rd->buf_seq = 0;
        if (rd->ending)
            return MHD_CONTENT_READER_END_OF_STREAM;
        pthread_mutex_lock(&h->mu);
        struct stream *st = rd->st;
        int64_t deadline = now_ms() + KEEPALIVE_MS;
        while (!rd->buf) {
            if (rd->gen != st->gen) {
                /* A client came back for this stream on a new connection:
                 * this one is dead to it, even if its socket is not. */
                rd->detached = true;
                pthread_mutex_unlock(&h->mu);
                return MHD_CONTENT_READER_END_WITH_ERROR;
            }
            if (rd->prime) {
                /* "Reconnect from here": an id and empty data (2025-11-25). */
                rd->prime = false;
                char tmp[96];
                int n = snprintf(tmp, sizeof tmp,
                                 "id: %" PRIu64 "-%" PRIu64 "\nretry: 1000\ndata: \n\n", st->id,
                                 st->sent);
                rd->buf = strndup(tmp, (size_t)n);
                rd->len = rd->buf ? (size_t)n : 0;
                break;
            }
            struct event *e = st->head;
            while (e && e->seq <= st->sent)
                e = e->next;
            if (e) {
                rd->buf = sse_format(st->id, e, &rd->len);
                st->sent = rd->buf_seq = e->seq;
                if (!rd->buf) {
                    pthread_mutex_unlock(&h->mu);
                    return MHD_CONTENT_READER_END_WITH_ERROR;
                }
                break;
            }
            if ((st->final && !rd->standalone) || rd->ss->ended || h->stopping) {
                /* Free for a resuming reader before this response is torn down. */
                st->attached = false;
                rd->detached = true;
                pthread_mutex_unlock(&h->mu);
                return MHD_CONTENT_READER_END_OF_STREAM;
            }
            if (st->close) {
                /* SSE polling: say when to come back, and hang up. */
                st->close = false;
                st->attached = false;
                rd->detached = rd->ending = true;
                char tmp[48];
                int n = snprintf(tmp, sizeof tmp, "retry: %u\n\n", st->retry_ms);
                rd->buf = strndup(tmp, (size_t)n);
                rd->len = rd->buf ? (size_t)n : 0;
                break;
            }
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                rd->buf = strdup(": keep-alive\n\n"); /* finds a client that left */
                rd->len = rd->buf ? strlen(rd->buf) : 0;
                break;
            }
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += left / 1000;
            ts.tv_nsec += (left % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&st->cv, &h->mu, &ts);
        }
        rd->ss->last_used_ms = now_ms();
        pthread_mutex_unlock(&h->mu);
        if (!rd->buf)
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = rd->len - rd->off < max ? rd->len - rd->off : max;
    memcpy(out, rd->buf + rd->off, n);
    rd->off += n;
    return (ssize_t)n;
}

static void sse_done(void *cls)
{
    struct reader *rd = cls;
    struct rig_mcp_http *h = rd->h;
    pthread_mutex_lock(&h->mu);
    if (!rd->detached && rd->gen == rd->st->gen) {
        rd->st->attached = false;
        rd->st->close = false;
        /* The client did not get all of the event in flight: it may ask
         * for it again. */
        if (rd->off < rd->len && rd->buf_seq && rd->buf_seq == rd->st->sent)
            rd->st->sent--;
    }
    streams_trim(rd->ss);
    pthread_mutex_unlock(&h->mu);
    free(rd->buf);
    session_unref(rd->ss);
    free(rd);
}

/* Answer with stream `st` as SSE (st attached; takes a session reference). */
static int respond_sse(struct MHD_Connection *con, struct rig_mcp_http *h, struct session *ss,
                       struct stream *st, bool prime, bool standalone)
{
    struct reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return refuse(con, MHD_HTTP_INTERNAL_SERVER_ERROR, "Internal error: out of memory");
    rd->h = h;
    rd->ss = ss;
    rd->st = st;
    rd->prime = prime;
    rd->standalone = standalone;
    pthread_mutex_lock(&h->mu);
    ss->refs++;
    rd->gen = st->gen;
    pthread_mutex_unlock(&h->mu);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
                                                              sse_read, rd, sse_done);
    if (!r) {
        sse_done(rd);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "Mcp-Session-Id", ss->id);
    int rc = MHD_queue_response(con, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- methods ----------------------------------------------------------------- */

static const char *version_error(struct MHD_Connection *con)
{
    const char *v = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "MCP-Protocol-Version");
    if (v && !rig_mcp_version_supported(v, strlen(v)))
        return "Bad Request: unsupported MCP-Protocol-Version (rig speaks 2025-11-25, "
               "2025-06-18, 2025-03-26)";
    return NULL;
}

/* The session a request names: 400 without one, 404 for one unknown. */
static struct session *need_session(struct rig_mcp_http *h, struct MHD_Connection *con, int *rc)
{
    const char *id = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
    if (!id) {
        *rc = refuse(con, MHD_HTTP_BAD_REQUEST, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    struct session *ss = session_find(h, id);
    if (!ss)
        *rc = refuse(con, MHD_HTTP_NOT_FOUND, "Session not found");
    return ss;
}

static int do_post(struct rig_mcp_http *h, struct MHD_Connection *con, struct req *rq)
{
    if (!header_has(con, MHD_HTTP_HEADER_ACCEPT, "application/json") ||
        !header_has(con, MHD_HTTP_HEADER_ACCEPT, "text/event-stream"))
        return refuse(con, MHD_HTTP_NOT_ACCEPTABLE,
                      "Not Acceptable: Client must accept both application/json and "
                      "text/event-stream");
    if (!header_has(con, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json"))
        return refuse(con, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                      "Unsupported Media Type: Content-Type must be application/json");
    if (rq->too_big)
        return refuse(con, MHD_HTTP_CONTENT_TOO_LARGE, "Payload Too Large");
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(rq->body ? rq->body : "", rq->len, NULL, &jerr);
    if (!doc) {
        char where[160], why[200];
        rig_json_error_format(&jerr, where, sizeof where);
        snprintf(why, sizeof why, "Parse error: %s", where);
        rig_json_writer w;
        rig_json_writer_init(&w, 256);
        rig__rpc_write_error(&w, (rig_json_val){0}, RIG_MCP_PARSE_ERROR, why);
        size_t len = 0;
        const char *json = rig_json_writer_finish(&w, &len);
        int rc = respond(con, MHD_HTTP_BAD_REQUEST, "application/json", json ? json : "",
                         json ? len : 0, NULL);
        rig_json_writer_free(&w);
        return rc;
    }
    rpc_msg m;
    rig__rpc_classify(rig_json_doc_root(doc), &m);
    bool init = m.kind == RPC_REQUEST && rig_json_str_eq(m.method, "initialize");
    int rc = MHD_YES;
    struct session *ss = NULL, *evicted = NULL;
    if (init) {
        ss = session_new(h);
        if (!ss) {
            rig_json_doc_free(doc);
            return refuse(con, MHD_HTTP_INTERNAL_SERVER_ERROR, "Internal error: out of memory");
        }
    } else {
        const char *verr = version_error(con);
        if (verr) {
            rig_json_doc_free(doc);
            return refuse(con, MHD_HTTP_BAD_REQUEST, verr);
        }
        if (!(ss = need_session(h, con, &rc))) {
            rig_json_doc_free(doc);
            return rc;
        }
    }

    if (m.kind != RPC_REQUEST) {
        /* A notification, a response, or junk: the engine reacts; junk gets
         * its JSON-RPC error as the answer. */
        pthread_mutex_lock(&h->mu);
        struct stream *cap = stream_new(ss, ss->next_stream++, NULL, 0);
        ss->capture = cap;
        pthread_mutex_unlock(&h->mu);
        pthread_mutex_lock(&ss->io);
        rig_mcp_conn_receive(ss->conn, rq->body, rq->len);
        pthread_mutex_unlock(&ss->io);
        pthread_mutex_lock(&h->mu);
        ss->capture = NULL;
        char *err = cap && cap->head ? strndup(cap->head->json, cap->head->len) : NULL;
        if (cap) {
            for (struct stream **pp = &ss->streams; *pp; pp = &(*pp)->next)
                if (*pp == cap) {
                    *pp = cap->next;
                    break;
                }
            stream_free(cap);
        }
        pthread_mutex_unlock(&h->mu);
        if (err)
            rc = respond(con, MHD_HTTP_BAD_REQUEST, "application/json", err, strlen(err), NULL);
        else
            rc = respond(con, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL);
        free(err);
        session_unref(ss);
        rig_json_doc_free(doc);
        return rc;
    }

    /* A request: its own stream, which the engine's answers find by id. */
    size_t idlen = 0;
    const char *id = rig_json_raw(m.id, &idlen);
    pthread_mutex_lock(&h->mu);
    bool busy = stream_by_related(ss, id, idlen) != NULL;
    struct stream *st = busy ? NULL : stream_new(ss, ss->next_stream++, id, idlen);
    if (st) {
        st->attached = true;
        ss->capture = st;
    }
    pthread_mutex_unlock(&h->mu);
    if (!st) {
        if (init)
            session_destroy(ss);
        else
            session_unref(ss);
        rig_json_doc_free(doc);
        return refuse(con, busy ? MHD_HTTP_CONFLICT : MHD_HTTP_INTERNAL_SERVER_ERROR,
                      busy ? "Conflict: a request with this id is still running"
                           : "Internal error: out of memory");
    }
    pthread_mutex_lock(&ss->io);
    rig_mcp_conn_receive(ss->conn, rq->body, rq->len);
    pthread_mutex_unlock(&ss->io);
    rig_json_doc_free(doc);

    pthread_mutex_lock(&h->mu);
    ss->capture = NULL;
    /* Answered at once with nothing else to say: plain JSON. */
    bool plain = st->final && st->head == st->tail;
    char *json = plain && st->head ? strndup(st->head->json, st->head->len) : NULL;
    bool ok_init = false;
    if (init && json) {
        /* A session exists only once initialize succeeded. */
        rig_json_doc *answer = rig_json_parse(json, strlen(json), NULL, NULL);
        ok_init = rig_json_exists(rig_json_get(rig_json_doc_root(answer), "result"));
        rig_json_doc_free(answer);
        if (ok_init) {
            if (!sessions_make_room(h, &evicted)) {
                ok_init = false;
                free(json);
                json = NULL;
            } else {
                ss->refs = 2; /* the list's and ours */
                ss->last_used_ms = now_ms();
                ss->next = h->sessions;
                h->sessions = ss;
                h->nsessions++;
            }
        }
    }
    if (plain) {
        st->attached = false;
        st->sent = st->next_seq;
        streams_trim(ss);
    }
    pthread_mutex_unlock(&h->mu);
    if (evicted)
        session_unref(evicted);

    if (init) {
        if (!json) {
            session_destroy(ss);
            return refuse(con, MHD_HTTP_SERVICE_UNAVAILABLE,
                          "Service Unavailable: too many sessions are busy; try again later");
        }
        rc = respond(con, ok_init ? MHD_HTTP_OK : MHD_HTTP_BAD_REQUEST, "application/json", json,
                     strlen(json), ok_init ? ss->id : NULL);
        free(json);
        if (ok_init)
            session_unref(ss);
        else
            session_destroy(ss);
        return rc;
    }
    if (plain) {
        rc = respond(con, MHD_HTTP_OK, "application/json", json ? json : "", json ? strlen(json) : 0,
                     NULL);
        free(json);
        session_unref(ss);
        return rc;
    }
    /* More to come (a tool call): stream it. */
    bool prime = strcmp(rig_mcp_conn_version(ss->conn), "2025-11-25") >= 0;
    rc = respond_sse(con, h, ss, st, prime, false);
    session_unref(ss);
    return rc;
}

static int do_get(struct rig_mcp_http *h, struct MHD_Connection *con)
{
    if (!header_has(con, MHD_HTTP_HEADER_ACCEPT, "text/event-stream"))
        return refuse(con, MHD_HTTP_NOT_ACCEPTABLE,
                      "Not Acceptable: Client must accept text/event-stream");
    const char *verr = version_error(con);
    if (verr)
        return refuse(con, MHD_HTTP_BAD_REQUEST, verr);
    int rc = MHD_YES;
    struct session *ss = need_session(h, con, &rc);
    if (!ss)
        return rc;
    const char *last = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Last-Event-ID");
    uint64_t sid = 0, seq = 0;
    bool resume = false;
    if (last) {
        char *end = NULL;
        sid = strtoull(last, &end, 10);
        if (end == last || *end != '-' || (seq = strtoull(end + 1, &end, 10), *end)) {
            session_unref(ss);
            return refuse(con, MHD_HTTP_BAD_REQUEST, "Bad Request: malformed Last-Event-ID");
        }
        resume = true;
    }
    pthread_mutex_lock(&h->mu);
    struct stream *st = stream_by_id(ss, sid);
    const char *why = NULL;
    unsigned status = 0;
    if (resume && !st) {
        why = "Not Found: no stream with that Last-Event-ID (it may have expired)";
        status = MHD_HTTP_NOT_FOUND;
    } else if (st && st->attached && !resume) {
        why = "Conflict: this stream is already being read";
        status = MHD_HTTP_CONFLICT;
    } else if (st && st->attached) {
        /* The client resumes a stream whose old connection we have not yet
         * seen die (its reader waits for an event): the new one wins. */
        st->gen++;
        st->close = false;
        pthread_cond_broadcast(&st->cv);
    } else if (!st && !(st = stream_new(ss, 0, NULL, 0))) {
        why = "Internal error: out of memory";
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!why) {
        st->attached = true;
        if (resume && seq <= st->next_seq)
            st->sent = seq; /* replay what follows */
    }
    pthread_mutex_unlock(&h->mu);
    if (why) {
        session_unref(ss);
        return refuse(con, status, why);
    }
    rc = respond_sse(con, h, ss, st, !resume, st->id == 0);
    session_unref(ss);
    return rc;
}

static int do_delete(struct rig_mcp_http *h, struct MHD_Connection *con)
{
    int rc = MHD_YES;
    struct session *ss = need_session(h, con, &rc);
    if (!ss)
        return rc;
    pthread_mutex_lock(&h->mu);
    bool was_live = !ss->ended;
    session_end_locked(h, ss);
    pthread_mutex_unlock(&h->mu);
    if (was_live)
        session_unref(ss); /* the list's */
    session_unref(ss);
    return respond(con, MHD_HTTP_OK, NULL, "", 0, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    struct rig_mcp_http *h = cls;
    struct req *rq = *con_cls;
    if (!rq) {
        /* Headers are in: refuse what no body can fix before reading one. */
        if (!(rq = calloc(1, sizeof *rq)))
            return MHD_NO;
        *con_cls = rq;
        if (strcmp(url, h->path) != 0)
            return refuse(con, MHD_HTTP_NOT_FOUND, "Not Found: MCP lives at another path");
        const char *why = check_origin(h, con);
        if (why)
            return refuse(con, MHD_HTTP_FORBIDDEN, why);
        if (!check_token(h, con))
            return refuse(con, MHD_HTTP_UNAUTHORIZED,
                          "Unauthorized: send Authorization: Bearer <token>");
        if (strcmp(method, MHD_HTTP_METHOD_POST) == 0) {
            const char *cl = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
                                                         MHD_HTTP_HEADER_CONTENT_LENGTH);
            if (cl && strtoull(cl, NULL, 10) > h->o.max_body)
                return refuse(con, MHD_HTTP_CONTENT_TOO_LARGE, "Payload Too Large");
            rq->started = true;
            return MHD_YES;
        }
        if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
            return do_get(h, con);
        if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
            return do_delete(h, con);
        return refuse(con, MHD_HTTP_METHOD_NOT_ALLOWED, "Method Not Allowed");
    }
    if (!rq->started)
        return MHD_YES; /* answered already; MHD drains */
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (rq->too_big || rq->len + n > h->o.max_body) {
            rq->too_big = true; /* a chunked body without a length: drop the rest */
            free(rq->body);
            rq->body = NULL;
            rq->len = rq->cap = 0;
            return MHD_YES;
        }
        if (rq->len + n + 1 > rq->cap) {
            size_t cap = rq->cap ? rq->cap : 4096;
            while (cap < rq->len + n + 1)
                cap *= 2;
            char *b = realloc(rq->body, cap);
            if (!b)
                return MHD_NO;
            rq->body = b;
            rq->cap = cap;
        }
        memcpy(rq->body + rq->len, upload, n);
        rq->len += n;
        return MHD_YES;
    }
    rq->started = false;
    return do_post(h, con, rq);
}

static void on_completed(void *cls, struct MHD_Connection *con, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con;
    (void)toe;
    struct req *rq = *con_cls;
    if (rq) {
        free(rq->body);
        free(rq);
        *con_cls = NULL;
    }
}

/* ---- start and stop ------------------------------------------------------------ */

static int listen_on(struct rig_mcp_http *h, const char *host, unsigned port, rig_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%u", port);
    int g = getaddrinfo(host, portstr, &hints, &res);
    if (g != 0)
        return rig_error_set(err, RIG_EINVAL, "Cannot listen on '%s': %s.", host, gai_strerror(g));
    int fd = -1, saved = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0) {
            saved = errno;
            close(fd);
            fd = -1;
            continue;
        }
        if (a->ai_family == AF_INET)
            h->loopback = ntohl(((struct sockaddr_in *)a->ai_addr)->sin_addr.s_addr) >> 24 == 127;
        else if (a->ai_family == AF_INET6)
            h->loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr);
    }
    freeaddrinfo(res);
    if (fd < 0)
        return rig_error_set(err, RIG_EINVAL, "Cannot listen on %s:%u: %s.", host, port,
                             strerror(saved ? saved : EADDRNOTAVAIL));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    h->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    h->fd = fd;
    return RIG_OK;
}

static void http_free(struct rig_mcp_http *h)
{
    if (h->fd >= 0)
        close(h->fd);
    for (char **o = h->origins; o && *o; o++)
        free(*o);
    free(h->origins);
    free(h->path);
    free(h->token);
    pthread_cond_destroy(&h->pump_cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

rig_mcp_http *rig_mcp_http_start(rig_mcp_server *s, const rig_mcp_http_opts *opts, rig_error *err)
{
    if (!s)
        return rig_error_set(err, RIG_EINVAL, "An HTTP transport needs a server."), NULL;
    struct rig_mcp_http *h = calloc(1, sizeof *h);
    if (!h)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    h->fd = -1;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->pump_cv, NULL);
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
    if (listen_on(h, opts && opts->host ? opts->host : "127.0.0.1", opts ? opts->port : 0, err)) {
        http_free(h);
        return NULL;
    }
    if (pthread_create(&h->pump, NULL, pump_main, h) != 0) {
        http_free(h);
        return rig_error_set(err, RIG_ENOMEM, "Cannot start a thread."), NULL;
    }
    h->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                MHD_USE_POLL,
                            0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->o.conn_timeout_s,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)h->o.max_connections,
                            MHD_OPTION_END);
    if (!h->d) {
        pthread_mutex_lock(&h->mu);
        h->stopping = true;
        pthread_cond_signal(&h->pump_cv);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->pump, NULL);
        http_free(h);
        return rig_error_set(err, RIG_EINVAL, "libmicrohttpd would not start."), NULL;
    }
    return h;
}

unsigned rig_mcp_http_port(const rig_mcp_http *h)
{
    return h ? h->port : 0;
}

size_t rig_mcp_http_sessions(rig_mcp_http *h)
{
    if (!h)
        return 0;
    pthread_mutex_lock(&h->mu);
    size_t n = h->nsessions;
    pthread_mutex_unlock(&h->mu);
    return n;
}

void rig_mcp_http_stop(rig_mcp_http *h)
{
    if (!h)
        return;
    /* Readers wake and end; then the daemon joins its threads. */
    pthread_mutex_lock(&h->mu);
    h->stopping = true;
    for (struct session *ss = h->sessions; ss; ss = ss->next)
        for (struct stream *st = ss->streams; st; st = st->next)
            pthread_cond_broadcast(&st->cv);
    pthread_cond_signal(&h->pump_cv);
    pthread_mutex_unlock(&h->mu);
    MHD_stop_daemon(h->d);
    pthread_join(h->pump, NULL);
    for (;;) {
        pthread_mutex_lock(&h->mu);
        struct session *ss = h->sessions;
        if (ss)
            session_end_locked(h, ss);
        pthread_mutex_unlock(&h->mu);
        if (!ss)
            break;
        session_unref(ss);
    }
    h->fd = -1; /* MHD closed it */
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
