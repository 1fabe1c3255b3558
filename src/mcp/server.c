/* server.c — the MCP protocol engine: one rig_mcp_server per toolset, one
 * rig_mcp_conn per client session, whatever the transport.
 *
 * A message comes in whole; the method table below maps it to the toolset.
 * Answers that are ready at once go straight to the transport's send.
 * tools/call runs on the toolset's workers: its answer (and any progress)
 * is queued under the connection's lock and the transport is woken, to
 * deliver the queue with rig_mcp_conn_flush on its own thread. So the
 * transport writes from one thread only, and a slow tool never holds up
 * pings, lists or cancellations.
 *
 * Every message carries a route (the request it belongs to), so a
 * transport with a stream per request (Streamable HTTP) can put progress,
 * log lines and a tool's questions to the client (sampling, elicitation,
 * roots) on the stream of the call that caused them. A tool's question
 * blocks its worker until the client's answer comes back through
 * rig_mcp_conn_receive, the call is cancelled, or its deadline passes.
 *
 * The engine asks questions of its own too: roots/list, when a client with
 * roots says it is initialized or that its roots changed. Nothing waits for
 * that answer; it comes back through rig_mcp_conn_receive like any other
 * and goes to the application's callback (roots.c makes paths of it).
 *
 * Lifetimes: each call in flight holds a reference on its connection (for
 * the answer) and its peer channel holds one more (a tool may report
 * progress until it returns, even after its caller was answered). A freed
 * connection drops answers that arrive later. Lock order: server, then
 * connection. */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "rig/mcp.h"
#include "rig/rig.h"

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

/* A message waiting for flush, with where it belongs. */
struct outmsg {
    struct outmsg *next;
    char *related; /* the request id's JSON text, or NULL */
    size_t related_len;
    bool final;
    bool close;         /* no message: close the related stream */
    unsigned retry_ms;
    size_t len;
    char json[];
};

/* A tools/call in flight. */
struct pending {
    struct pending *next;
    struct rig_mcp_conn *conn;
    rig_job *job;         /* set once submit returned */
    char *id;             /* the request id's JSON text, echoed in the answer */
    char *token;          /* the progressToken's JSON text, or NULL */
    double last_progress; /* notifications/progress must increase */
    int refs;             /* the answer's, the peer channel's, the submitter's (conn->mu) */
    bool answered;        /* done ran */
    bool cancelled;       /* notifications/cancelled: no answer may be sent */
};

/* A request rig sent the client (a tool's question), waiting for its answer. */
struct ask {
    struct ask *next;
    int64_t id;
    bool done;
    int status;           /* RIG_OK, RIG_EPEER */
    char *answer;         /* the result's JSON text */
    size_t answer_len;
    char why[256];        /* the client's error message */
};

/* A resource a session subscribed to. */
struct sub {
    struct sub *next;
    char uri[];
};

struct rig_mcp_conn {
    rig_mcp_server *s;
    struct rig_mcp_conn *next_conn; /* s->conns, under s->mu */
    rig_mcp_send_fn send;
    rig_mcp_wake_fn wake;
    void *ud;
    bool dead;          /* send failed: the peer is gone */
    char session[32];

    pthread_mutex_t mu; /* everything below */
    pthread_cond_t ask_cv; /* an ask was answered, or the conn closed */
    bool initialized;   /* initialize answered */
    const char *version;
    bool closed;        /* rig_mcp_conn_free ran */
    int refs;
    rig_log_level log_level;
    bool can_sample, can_elicit, can_roots; /* the client's capabilities */
    struct outmsg *out_head, *out_tail;
    struct pending *pending;
    size_t npending;
    struct ask *asks;
    int64_t next_ask;
    int64_t roots_ask;  /* the id of the roots/list awaiting its answer, or 0 */
    struct sub *subs;
    rig_json_writer w;  /* the receiving thread's writer */
};

/* ---- shared helpers (internal.h) ---------------------------------------- */

int rig__mcp_reply_error(mcp_reply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->buf, sizeof r->buf, fmt, ap);
    va_end(ap);
    r->code = code;
    r->why = r->buf;
    return code;
}

char *rig__mcp_strdup(rig_json_val v)
{
    if (!rig_json_is_string(v))
        return NULL;
    size_t n = rig_json_str_len(v);
    char *s = malloc(n + 1);
    if (s && (rig_json_str_copy(v, s, n + 1, NULL) != 0 || strlen(s) != n)) {
        free(s);
        return NULL;
    }
    return s;
}

/* Cursors are opaque to clients; rig's say where the next page starts. */
#define CURSOR_PREFIX "rig-page-"

long rig__mcp_cursor(rig_json_val params, mcp_reply *r)
{
    rig_json_val cursor = rig_json_get(params, "cursor");
    if (!rig_json_exists(cursor))
        return 0;
    char buf[48];
    char *end = NULL;
    if (!rig_json_is_string(cursor) || rig_json_str_copy(cursor, buf, sizeof buf, NULL) != 0 ||
        strncmp(buf, CURSOR_PREFIX, sizeof CURSOR_PREFIX - 1) != 0)
        goto bad;
    const char *digits = buf + sizeof CURSOR_PREFIX - 1;
    if (*digits < '0' || *digits > '9')
        goto bad;
    unsigned long long v = strtoull(digits, &end, 10);
    if (*end || v > LONG_MAX)
        goto bad;
    return (long)v;
bad:
    rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                         "Invalid params: unknown cursor; start again without one");
    return -1;
}

int rig__mcp_page(rig_mcp_server *s, long start, size_t n, size_t *end, mcp_reply *r)
{
    if ((size_t)start > n)
        return rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: the cursor is past the end; start again "
                                    "without one");
    *end = n - (size_t)start > s->page_size ? (size_t)start + s->page_size : n;
    return 0;
}

void rig__mcp_write_opt(rig_json_writer *w, const char *key, const char *val)
{
    if (val) {
        rig_json_write_key(w, key);
        rig_json_write_string(w, val);
    }
}

char *rig__mcp_dup_opt(const char *s, bool *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *oom = true;
    return d;
}

void rig__mcp_write_next(rig_json_writer *w, size_t end, size_t n)
{
    if (end < n) {
        char next[48];
        snprintf(next, sizeof next, CURSOR_PREFIX "%zu", end);
        rig_json_write_key(w, "nextCursor");
        rig_json_write_string(w, next);
    }
}

/* ---- the server ------------------------------------------------------ */

static void on_toolset_change(const char *event, const rig_tool *t, const char *data, void *ud)
{
    (void)event;
    (void)data;
    if (!t || !(rig_tool_flags(t) & RIG_TOOL_HIDDEN))
        rig__mcp_broadcast(ud, "notifications/tools/list_changed");
}

rig_mcp_server *rig_mcp_server_new(rig_toolset *ts, const rig_mcp_info *info, rig_error *err)
{
    if (!ts)
        return rig_error_set(err, RIG_EINVAL, "An MCP server needs a toolset."), NULL;
    rig_mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    s->ts = ts;
    bool oom = false;
    s->name = rig__mcp_dup_opt(info && info->name ? info->name : "rig", &oom);
    s->version = rig__mcp_dup_opt(info && info->version ? info->version : rig_version(), &oom);
    s->title = rig__mcp_dup_opt(info ? info->title : NULL, &oom);
    s->instructions = rig__mcp_dup_opt(info ? info->instructions : NULL, &oom);
    s->page_size = 100;
    pthread_mutex_init(&s->mu, NULL);
    if (oom) {
        rig_mcp_server_free(s);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    }
    /* Sessions hear of tools that come and go (tools/list_changed). */
    s->listening = rig_toolset_on(ts, "add", on_toolset_change, s) == RIG_OK &&
                   rig_toolset_on(ts, "remove", on_toolset_change, s) == RIG_OK;
    return s;
}

void rig_mcp_server_free(rig_mcp_server *s)
{
    if (!s)
        return;
    rig_toolset_off(s->ts, "add", on_toolset_change, s);
    rig_toolset_off(s->ts, "remove", on_toolset_change, s);
    rig__mcp_resources_free(s);
    rig__mcp_prompts_free(s);
    pthread_mutex_destroy(&s->mu);
    free(s->name);
    free(s->version);
    free(s->title);
    free(s->instructions);
    free(s);
}

void rig_mcp_server_set_page_size(rig_mcp_server *s, unsigned n)
{
    if (s)
        s->page_size = n ? n : 1;
}

void rig_mcp_server_on_roots(rig_mcp_server *s, rig_mcp_roots_fn fn, void *ud)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->on_roots = fn;
    s->roots_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

void rig_mcp_server_on_session_end(rig_mcp_server *s, rig_mcp_session_fn fn, void *ud)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->on_end = fn;
    s->end_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

/* ---- connections ----------------------------------------------------- */

rig_mcp_conn *rig_mcp_conn_new(rig_mcp_server *s, rig_mcp_send_fn send, rig_mcp_wake_fn wake,
                               void *ud)
{
    if (!s || !send)
        return NULL;
    rig_mcp_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->s = s;
    c->send = send;
    c->wake = wake;
    c->ud = ud;
    c->refs = 1;
    c->version = versions[0];
    c->log_level = RIG_LOG_INFO;
    snprintf(c->session, sizeof c->session, "mcp-%" PRIuFAST64,
             (uint_fast64_t)atomic_fetch_add(&s->sessions, 1) + 1);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->ask_cv, NULL);
    rig_json_writer_init(&c->w, 0);
    pthread_mutex_lock(&s->mu);
    c->next_conn = s->conns;
    s->conns = c;
    pthread_mutex_unlock(&s->mu);
    return c;
}

static void outmsg_free(struct outmsg *m)
{
    free(m->related);
    free(m);
}

static void conn_destroy(rig_mcp_conn *c)
{
    for (struct outmsg *m = c->out_head, *n; m; m = n) {
        n = m->next;
        outmsg_free(m);
    }
    for (struct sub *u = c->subs, *n; u; u = n) {
        n = u->next;
        free(u);
    }
    rig_json_writer_free(&c->w);
    pthread_cond_destroy(&c->ask_cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Drop a reference; called with c->mu held, which it releases. */
static void conn_unref_unlock(rig_mcp_conn *c)
{
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (last)
        conn_destroy(c);
}

static void pending_unref_locked(struct pending *p)
{
    if (--p->refs > 0)
        return;
    free(p->id);
    free(p->token);
    free(p);
}

void rig_mcp_conn_free(rig_mcp_conn *c)
{
    if (!c)
        return;
    /* Out of the server's list first: no notification reaches it after. */
    rig_mcp_server *s = c->s;
    pthread_mutex_lock(&s->mu);
    for (rig_mcp_conn **pp = &s->conns; *pp; pp = &(*pp)->next_conn)
        if (*pp == c) {
            *pp = c->next_conn;
            break;
        }
    rig_mcp_session_fn on_end = s->on_end;
    void *end_ud = s->end_ud;
    pthread_mutex_unlock(&s->mu);
    /* The application drops what it keeps for the session; calls still
     * running keep what they took (see rig_roots_acquire). */
    if (on_end)
        on_end(c->session, end_ud);
    /* Stop every call still running; the answers they produce are dropped.
     * The job handles are taken over first (so no `done` releases one under
     * us) and cancelled outside the lock: cancelling runs `done` at once,
     * which takes it. Tools waiting on the client give up. */
    pthread_mutex_lock(&c->mu);
    c->closed = true;
    pthread_cond_broadcast(&c->ask_cv);
    size_t n = 0;
    rig_job **jobs = c->npending ? calloc(c->npending, sizeof *jobs) : NULL;
    for (struct pending *p = c->pending; p && jobs; p = p->next)
        if (p->job && !p->answered) {
            p->cancelled = true;
            jobs[n++] = p->job;
            p->job = NULL;
        }
    pthread_mutex_unlock(&c->mu);
    for (size_t i = 0; i < n; i++) {
        rig_job_cancel(jobs[i]);
        rig_job_release(jobs[i]);
    }
    free(jobs);
    pthread_mutex_lock(&c->mu);
    conn_unref_unlock(c);
}

const char *rig_mcp_conn_session(const rig_mcp_conn *c)
{
    return c ? c->session : NULL;
}

size_t rig_mcp_conn_pending(const rig_mcp_conn *c)
{
    if (!c)
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&c->mu);
    size_t n = c->npending;
    pthread_mutex_unlock((pthread_mutex_t *)&c->mu);
    return n;
}

const char *rig_mcp_conn_version(const rig_mcp_conn *c)
{
    if (!c)
        return versions[0];
    pthread_mutex_lock((pthread_mutex_t *)&c->mu);
    const char *v = c->version;
    pthread_mutex_unlock((pthread_mutex_t *)&c->mu);
    return v;
}

bool rig_mcp_version_supported(const char *version, size_t len)
{
    for (size_t i = 0; version && i < sizeof versions / sizeof *versions; i++)
        if (strlen(versions[i]) == len && memcmp(versions[i], version, len) == 0)
            return true;
    return false;
}

/* Send a finished message now (receiving thread only). */
static int send_now(rig_mcp_conn *c, rig_json_writer *w, const rig_mcp_route *route)
{
    size_t len = 0;
    const char *json = rig_json_writer_finish(w, &len);
    if (c->dead)
        return -1;
    if (!json) /* out of memory while writing: nothing sensible can go out */
        return 0;
    if (c->send(json, len, route, c->ud) != 0)
        c->dead = true;
    return c->dead ? -1 : 0;
}

/* Put m at the end of the queue for flush (c->mu held). */
static void append_locked(rig_mcp_conn *c, struct outmsg *m)
{
    if (c->out_tail)
        c->out_tail->next = m;
    else
        c->out_head = m;
    c->out_tail = m;
}

/* Queue a finished message for flush (any thread; c->mu held). */
static void enqueue_locked(rig_mcp_conn *c, rig_json_writer *w, const char *related, bool final)
{
    size_t len = 0;
    const char *json = rig_json_writer_finish(w, &len);
    if (!json)
        return;
    struct outmsg *m = malloc(sizeof *m + len);
    if (!m)
        return;
    m->next = NULL;
    m->len = len;
    m->final = final;
    m->close = false;
    m->retry_ms = 0;
    m->related = related ? strdup(related) : NULL;
    m->related_len = m->related ? strlen(m->related) : 0;
    if (related && !m->related) {
        free(m);
        return;
    }
    memcpy(m->json, json, len);
    append_locked(c, m);
}

int rig_mcp_conn_flush(rig_mcp_conn *c)
{
    if (!c)
        return -1;
    pthread_mutex_lock(&c->mu);
    struct outmsg *m = c->out_head;
    c->out_head = c->out_tail = NULL;
    pthread_mutex_unlock(&c->mu);
    int rc = c->dead ? -1 : 0;
    for (struct outmsg *n; m; m = n) {
        n = m->next;
        rig_mcp_route route = {m->related, m->related_len, m->final, m->close, m->retry_ms};
        if (!c->dead && c->send(m->close ? NULL : m->json, m->len, &route, c->ud) != 0)
            c->dead = true;
        outmsg_free(m);
    }
    return c->dead ? -1 : rc;
}

/* The answer to request `m` (error or result) goes out as its stream's last. */
static rig_mcp_route answer_route(const rpc_msg *m)
{
    rig_mcp_route r = {.final = true};
    r.related = rig_json_raw(m->id, &r.related_len);
    return r;
}

static int send_error(rig_mcp_conn *c, const rpc_msg *m, int code, const char *message)
{
    rig__rpc_write_error(&c->w, m ? m->id : (rig_json_val){0}, code, message);
    rig_mcp_route r = m ? answer_route(m) : (rig_mcp_route){.final = true};
    return send_now(c, &c->w, &r);
}

/* Every initialized session that `want` admits (NULL: each) gets
 * notification `method` with `params` (JSON text of an object; NULL: {}). */
static void notify_sessions(rig_mcp_server *s, const char *method, const char *params,
                            bool (*want)(const rig_mcp_conn *c, const void *arg), const void *arg)
{
    pthread_mutex_lock(&s->mu);
    for (rig_mcp_conn *c = s->conns; c; c = c->next_conn) {
        pthread_mutex_lock(&c->mu);
        if (c->initialized && !c->closed && (!want || want(c, arg))) {
            rig_json_writer w;
            rig_json_writer_init(&w, 0);
            rig__rpc_begin_notification(&w, method);
            rig_json_write_raw(&w, params ? params : "{}", params ? strlen(params) : 2);
            rig__rpc_end(&w);
            enqueue_locked(c, &w, NULL, false);
            rig_json_writer_free(&w);
            if (c->wake)
                c->wake(c->ud);
        }
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&s->mu);
}

void rig__mcp_broadcast(rig_mcp_server *s, const char *method)
{
    notify_sessions(s, method, NULL, NULL, NULL);
}

/* notifications/message, when the session's level admits it (c->mu held). */
static bool log_locked(rig_mcp_conn *c, rig_log_level level, const char *logger, const char *data,
                       size_t len, const char *related)
{
    if (!c->initialized || c->closed || level < c->log_level)
        return false;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig__rpc_begin_notification(&w, "notifications/message");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "level");
    rig_json_write_string(&w, rig_log_level_name(level));
    if (logger) {
        rig_json_write_key(&w, "logger");
        rig_json_write_string(&w, logger);
    }
    rig_json_write_key(&w, "data");
    rig_json_write_raw(&w, data, len);
    rig_json_write_object_end(&w);
    rig__rpc_end(&w);
    enqueue_locked(c, &w, related, false);
    rig_json_writer_free(&w);
    if (c->wake)
        c->wake(c->ud);
    return true;
}

/* Is `data` one JSON value? (Log data lands inside a message verbatim.) */
static bool json_ok(const char *data, size_t len)
{
    rig_json_doc *d = rig_json_parse(data, len, NULL, NULL);
    rig_json_doc_free(d);
    return d != NULL;
}

void rig_mcp_server_log(rig_mcp_server *s, rig_log_level level, const char *logger,
                        const char *data)
{
    if (!s || !data || !rig_log_level_name(level) || !json_ok(data, strlen(data)))
        return;
    pthread_mutex_lock(&s->mu);
    for (rig_mcp_conn *c = s->conns; c; c = c->next_conn) {
        pthread_mutex_lock(&c->mu);
        log_locked(c, level, logger, data, strlen(data), NULL);
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&s->mu);
}

/* A line of text to one session's log (any thread). */
static void log_text(rig_mcp_conn *c, rig_log_level level, const char *text)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_string(&w, text);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    if (json) {
        pthread_mutex_lock(&c->mu);
        log_locked(c, level, "rig", json, len, NULL);
        pthread_mutex_unlock(&c->mu);
    }
    rig_json_writer_free(&w);
}

static bool subscribed(const rig_mcp_conn *c, const void *uri)
{
    for (const struct sub *u = c->subs; u; u = u->next)
        if (strcmp(u->uri, uri) == 0)
            return true;
    return false;
}

void rig_mcp_server_resource_updated(rig_mcp_server *s, const char *uri)
{
    if (!s || !uri)
        return;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "uri");
    rig_json_write_string(&w, uri);
    rig_json_write_object_end(&w);
    const char *params = rig_json_writer_finish(&w, NULL);
    if (params)
        notify_sessions(s, "notifications/resources/updated", params, subscribed, uri);
    rig_json_writer_free(&w);
}

/* ---- methods ---------------------------------------------------------- */

typedef int (*method_fn)(rig_mcp_conn *c, const rpc_msg *m);

static void write_empty_object(rig_json_writer *w, const char *key)
{
    rig_json_write_key(w, key);
    rig_json_write_object_begin(w);
    rig_json_write_object_end(w);
}

static int m_initialize(rig_mcp_conn *c, const rpc_msg *m)
{
    rig_json_val want = rig_json_get(m->params, "protocolVersion");
    if (!rig_json_is_string(want))
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: initialize needs \"protocolVersion\", a string");
    /* The client's version if rig speaks it, else the latest (the client
     * then decides whether it can go on). */
    const char *version = versions[0];
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++)
        if (rig_json_str_eq(want, versions[i]))
            version = versions[i];
    rig_json_val caps = rig_json_get(m->params, "capabilities");
    pthread_mutex_lock(&c->mu);
    c->version = version;
    c->can_sample = rig_json_is_object(rig_json_get(caps, "sampling"));
    c->can_elicit = rig_json_is_object(rig_json_get(caps, "elicitation"));
    c->can_roots = rig_json_is_object(rig_json_get(caps, "roots"));
    pthread_mutex_unlock(&c->mu);
    pthread_mutex_lock(&c->s->mu);
    bool completions = c->s->complete != NULL;
    pthread_mutex_unlock(&c->s->mu);

    rig_json_writer *w = &c->w;
    rig__rpc_begin_result(w, m->id);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "protocolVersion");
    rig_json_write_string(w, version);
    rig_json_write_key(w, "capabilities");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "tools");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "listChanged");
    rig_json_write_bool(w, c->s->listening);
    rig_json_write_object_end(w);
    rig_json_write_key(w, "resources");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "subscribe");
    rig_json_write_bool(w, true);
    rig_json_write_key(w, "listChanged");
    rig_json_write_bool(w, true);
    rig_json_write_object_end(w);
    rig_json_write_key(w, "prompts");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "listChanged");
    rig_json_write_bool(w, true);
    rig_json_write_object_end(w);
    write_empty_object(w, "logging");
    if (completions)
        write_empty_object(w, "completions");
    rig_json_write_object_end(w);
    rig_json_write_key(w, "serverInfo");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "name");
    rig_json_write_string(w, c->s->name);
    if (c->s->title) {
        rig_json_write_key(w, "title");
        rig_json_write_string(w, c->s->title);
    }
    rig_json_write_key(w, "version");
    rig_json_write_string(w, c->s->version);
    rig_json_write_object_end(w);
    if (c->s->instructions) {
        rig_json_write_key(w, "instructions");
        rig_json_write_string(w, c->s->instructions);
    }
    rig_json_write_object_end(w);
    rig__rpc_end(w);
    pthread_mutex_lock(&c->mu);
    c->initialized = true;
    pthread_mutex_unlock(&c->mu);
    rig_mcp_route r = answer_route(m);
    return send_now(c, w, &r);
}

/* A method whose result a helper writes into `body` (or fails with `r`). */
static int answer(rig_mcp_conn *c, const rpc_msg *m, int code, const mcp_reply *r,
                  rig_json_writer *body)
{
    int rc;
    size_t len = 0;
    const char *json = code ? NULL : rig_json_writer_finish(body, &len);
    if (code) {
        rc = send_error(c, m, code, r->why);
    } else if (!json) {
        rc = send_error(c, m, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    } else {
        rig__rpc_begin_result(&c->w, m->id);
        rig_json_write_raw(&c->w, json, len);
        rig__rpc_end(&c->w);
        rig_mcp_route route = answer_route(m);
        rc = send_now(c, &c->w, &route);
    }
    rig_json_writer_free(body);
    return rc;
}

static int m_ping(rig_mcp_conn *c, const rpc_msg *m)
{
    rig__rpc_begin_result(&c->w, m->id);
    rig_json_write_object_begin(&c->w);
    rig_json_write_object_end(&c->w);
    rig__rpc_end(&c->w);
    rig_mcp_route r = answer_route(m);
    return send_now(c, &c->w, &r);
}

static int m_tools_list(rig_mcp_conn *c, const rpc_msg *m)
{
    mcp_reply r = {0};
    long start = rig__mcp_cursor(m->params, &r);
    if (start < 0)
        return send_error(c, m, r.code, r.why);
    /* The whole listing, then the page: listing is rare and the export
     * already knows the MCP shape of every tool. */
    rig_json_writer all;
    rig_json_writer_init(&all, 0);
    rig_export_opts opts = {.format = RIG_FORMAT_MCP};
    rig_error err;
    size_t len = 0;
    const char *json = rig_toolset_export(c->s->ts, &opts, &all, &err) == RIG_OK
                           ? rig_json_writer_finish(&all, &len)
                           : NULL;
    rig_json_doc *doc = json ? rig_json_parse(json, len, NULL, NULL) : NULL;
    rig_json_val tools = rig_json_get(rig_json_doc_root(doc), "tools");
    int rc;
    size_t n = rig_json_len(tools), end = 0;
    if (!doc) {
        rc = send_error(c, m, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    } else if (rig__mcp_page(c->s, start, n, &end, &r)) {
        rc = send_error(c, m, r.code, r.why);
    } else {
        rig_json_writer *w = &c->w;
        rig__rpc_begin_result(w, m->id);
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "tools");
        rig_json_write_array_begin(w);
        for (size_t i = (size_t)start; i < end; i++)
            rig_json_write_value(w, rig_json_at(tools, i));
        rig_json_write_array_end(w);
        rig__mcp_write_next(w, end, n);
        rig_json_write_object_end(w);
        rig__rpc_end(w);
        rig_mcp_route route = answer_route(m);
        rc = send_now(c, w, &route);
    }
    rig_json_doc_free(doc);
    rig_json_writer_free(&all);
    return rc;
}

static int subscription(rig_mcp_conn *c, const rpc_msg *m, bool on)
{
    char *uri = rig__mcp_strdup(rig_json_get(m->params, "uri"));
    if (!uri)
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: \"uri\" must be a string");
    if (on && !rig__mcp_resource_known(c->s, uri)) {
        free(uri);
        return send_error(c, m, RIG_MCP_RESOURCE_NOT_FOUND, "Resource not found");
    }
    pthread_mutex_lock(&c->mu);
    struct sub **pp = &c->subs;
    while (*pp && strcmp((*pp)->uri, uri) != 0)
        pp = &(*pp)->next;
    bool oom = false;
    if (on && !*pp) {
        struct sub *u = malloc(sizeof *u + strlen(uri) + 1);
        if (u) {
            strcpy(u->uri, uri);
            u->next = c->subs;
            c->subs = u;
        } else {
            oom = true;
        }
    } else if (!on && *pp) {
        struct sub *u = *pp;
        *pp = u->next;
        free(u);
    }
    pthread_mutex_unlock(&c->mu);
    free(uri);
    if (oom)
        return send_error(c, m, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    return m_ping(c, m); /* an empty result */
}

static int m_subscribe(rig_mcp_conn *c, const rpc_msg *m)
{
    return subscription(c, m, true);
}

static int m_unsubscribe(rig_mcp_conn *c, const rpc_msg *m)
{
    return subscription(c, m, false);
}

static int m_set_level(rig_mcp_conn *c, const rpc_msg *m)
{
    char *name = rig__mcp_strdup(rig_json_get(m->params, "level"));
    int level = rig_log_level_parse(name);
    free(name);
    if (level < 0)
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: \"level\" must be one of debug, info, notice, "
                          "warning, error, critical, alert, emergency");
    pthread_mutex_lock(&c->mu);
    c->log_level = (rig_log_level)level;
    pthread_mutex_unlock(&c->mu);
    return m_ping(c, m);
}

/* ---- tools/call and what its tool sends back ------------------------------- */

/* The tool's answer, on a worker thread (or this one, for an inline tool
 * or an early failure). */
static void call_done(rig_result *res, int status, void *ud)
{
    (void)status;
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    p->answered = true;
    if (!p->cancelled && !c->closed) {
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig__rpc_begin_result_raw(&w, p->id, strlen(p->id));
        rig_result_write(res, &w);
        rig__rpc_end(&w);
        enqueue_locked(c, &w, p->id, true);
        rig_json_writer_free(&w);
    }
    /* Out of the list of calls in flight (the answer is queued). */
    for (struct pending **pp = &c->pending; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            c->npending--;
            break;
        }
    rig_job *job = p->job; /* NULL while submit has not returned: it releases then */
    /* Wake under the lock: a transport that sees no call pending (under the
     * same lock) may tear its wake-up down, and must not be woken after. */
    if (!c->closed && c->wake)
        c->wake(c->ud);
    pending_unref_locked(p);
    conn_unref_unlock(c);
    rig_result_free(res);
    if (job)
        rig_job_release(job);
}

static void call_progress(double progress, double total, const char *message, void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    bool send = p->token && !p->answered && !p->cancelled && !c->closed &&
                progress > p->last_progress;
    if (send) {
        p->last_progress = progress;
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig__rpc_begin_notification(&w, "notifications/progress");
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "progressToken");
        rig_json_write_raw(&w, p->token, strlen(p->token));
        rig_json_write_key(&w, "progress");
        rig_json_write_double(&w, progress);
        if (total > 0) {
            rig_json_write_key(&w, "total");
            rig_json_write_double(&w, total);
        }
        if (message) {
            rig_json_write_key(&w, "message");
            rig_json_write_string(&w, message);
        }
        rig_json_write_object_end(&w);
        rig__rpc_end(&w);
        enqueue_locked(c, &w, p->id, false);
        rig_json_writer_free(&w);
    }
    if (send && c->wake)
        c->wake(c->ud); /* under the lock, as in call_done */
    pthread_mutex_unlock(&c->mu);
}

static void call_log(rig_log_level level, const char *logger, const char *data, size_t len,
                     void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    if (!p->answered && !p->cancelled)
        log_locked(c, level, logger, data, len, p->id);
    pthread_mutex_unlock(&c->mu);
}

/* Which client capability a server-to-client method needs. */
static bool client_can(const rig_mcp_conn *c, const char *method, const char **cap)
{
    if (strcmp(method, "sampling/createMessage") == 0)
        return *cap = "sampling", c->can_sample;
    if (strcmp(method, "elicitation/create") == 0)
        return *cap = "elicitation", c->can_elicit;
    if (strcmp(method, "roots/list") == 0)
        return *cap = "roots", c->can_roots;
    *cap = NULL;
    return strcmp(method, "ping") == 0;
}

#define ASK_SLICE_MS 50

static int call_ask(rig_call *call, const char *method, const char *params, size_t len,
                    char **answer_out, size_t *answer_len, rig_error *err, void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    rig_json_doc *pd = rig_json_parse(params, len, NULL, NULL);
    bool object = rig_json_is_object(rig_json_doc_root(pd));
    rig_json_doc_free(pd);
    if (!object)
        return rig_error_set(err, RIG_EJSON, "The params of '%s' must be a JSON object.", method);
    pthread_mutex_lock(&c->mu);
    const char *cap = NULL;
    if (!client_can(c, method, &cap)) {
        pthread_mutex_unlock(&c->mu);
        if (!cap)
            return rig_error_set(err, RIG_ENOTSUP, "rig does not send '%s' to clients.", method);
        return rig_error_set(err, RIG_ENOTSUP,
                             "The client did not declare the '%s' capability, so it cannot "
                             "answer '%s'.",
                             cap, method);
    }
    if (c->closed || p->cancelled || p->answered) {
        pthread_mutex_unlock(&c->mu);
        return rig_error_set(err, RIG_ECANCELED, "The request was cancelled.");
    }
    struct ask a = {.id = ++c->next_ask};
    a.next = c->asks;
    c->asks = &a;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig__rpc_begin_request(&w, a.id, method);
    rig_json_write_raw(&w, params, len);
    rig__rpc_end(&w);
    enqueue_locked(c, &w, p->id, false);
    rig_json_writer_free(&w);
    if (c->wake)
        c->wake(c->ud);

    int rc = RIG_OK;
    while (!a.done) {
        /* The deadline first: a call past it also counts as cancelled. */
        int64_t left = rig_call_remaining_ms(call);
        if (left <= 0) {
            rc = rig_error_set(err, RIG_ETIMEDOUT,
                               "The client did not answer '%s' before the call's deadline.",
                               method);
            break;
        }
        if (c->closed || p->cancelled || rig_call_cancelled(call)) {
            rc = rig_error_set(err, RIG_ECANCELED, "The call was cancelled while waiting for "
                                                   "the client's answer to '%s'.",
                               method);
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ms = left < ASK_SLICE_MS ? left : ASK_SLICE_MS;
        ts.tv_nsec += (long)(ms % 1000) * 1000000L;
        ts.tv_sec += (time_t)(ms / 1000) + ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&c->ask_cv, &c->mu, &ts);
    }
    for (struct ask **pp = &c->asks; *pp; pp = &(*pp)->next)
        if (*pp == &a) {
            *pp = a.next;
            break;
        }
    if (a.done) {
        rc = a.status;
        if (rc == RIG_OK) {
            *answer_out = a.answer;
            if (answer_len)
                *answer_len = a.answer_len;
        } else {
            rig_error_set(err, rc, "The client answered '%s' with an error: %s", method, a.why);
        }
    } else if (!c->closed) {
        /* MCP: tell the client to stop working on a request nobody awaits. */
        rig_json_writer_init(&w, 0);
        rig__rpc_begin_notification(&w, "notifications/cancelled");
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "requestId");
        rig_json_write_int(&w, a.id);
        rig_json_write_key(&w, "reason");
        rig_json_write_string(&w, rc == RIG_ETIMEDOUT ? "timed out" : "cancelled");
        rig_json_write_object_end(&w);
        rig__rpc_end(&w);
        enqueue_locked(c, &w, p->id, false);
        rig_json_writer_free(&w);
        if (c->wake)
            c->wake(c->ud);
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* Queue a "close the stream of request `related`" (c->mu held); `final`:
 * the request is over and nothing more will come for it. */
static void enqueue_close_locked(rig_mcp_conn *c, const char *related, unsigned retry_ms,
                                 bool final)
{
    struct outmsg *m = calloc(1, sizeof *m);
    if (!m || !(m->related = strdup(related))) {
        free(m);
        return;
    }
    m->related_len = strlen(m->related);
    m->close = true;
    m->final = final;
    m->retry_ms = retry_ms;
    append_locked(c, m);
    if (c->wake)
        c->wake(c->ud);
}

static void call_close_stream(unsigned retry_ms, void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    if (!p->answered && !p->cancelled && !c->closed)
        enqueue_close_locked(c, p->id, retry_ms, false);
    pthread_mutex_unlock(&c->mu);
}

static void call_end(void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    pending_unref_locked(p);
    conn_unref_unlock(c);
}

static const rig_call_peer mcp_peer = {
    .progress = call_progress,
    .log = call_log,
    .ask = call_ask,
    .close_stream = call_close_stream,
    .end = call_end};

static char *raw_copy(rig_json_val v)
{
    size_t n = 0;
    const char *raw = rig_json_raw(v, &n);
    char *s = raw ? malloc(n + 1) : NULL;
    if (s) {
        memcpy(s, raw, n);
        s[n] = '\0';
    }
    return s;
}

/* ---- the client's roots ---------------------------------------------------- */

/* Ask the client for its roots, when it has them and the application
 * listens (receiving thread). A second ask before the first is answered
 * supersedes it: only the latest answer counts, so a slow answer to an old
 * list never overwrites a newer one. */
static int ask_roots(rig_mcp_conn *c)
{
    pthread_mutex_lock(&c->s->mu);
    bool listening = c->s->on_roots != NULL;
    pthread_mutex_unlock(&c->s->mu);
    pthread_mutex_lock(&c->mu);
    bool ask = listening && c->initialized && c->can_roots && !c->closed;
    int64_t id = ask ? ++c->next_ask : 0;
    if (ask)
        c->roots_ask = id;
    pthread_mutex_unlock(&c->mu);
    if (!ask)
        return 0;
    rig__rpc_begin_request(&c->w, id, "roots/list");
    rig_json_write_object_begin(&c->w);
    rig_json_write_object_end(&c->w);
    rig__rpc_end(&c->w);
    rig_mcp_route r = {0}; /* of no request: Streamable HTTP's GET stream */
    return send_now(c, &c->w, &r);
}

/* The client's answer to roots/list: its paths go to the application; an
 * error or a malformed answer is logged to the client, and the session
 * keeps the roots it had. */
static void on_roots_answer(rig_mcp_conn *c, rig_json_val result, rig_json_val error)
{
    rig_mcp_server *s = c->s;
    pthread_mutex_lock(&s->mu);
    rig_mcp_roots_fn fn = s->on_roots;
    void *ud = s->roots_ud;
    pthread_mutex_unlock(&s->mu);
    if (!fn)
        return;
    char msg[1024];
    if (!rig_json_exists(result)) {
        char *why = rig__mcp_strdup(rig_json_get(error, "message"));
        int64_t code = 0;
        rig_json_get_int64(rig_json_get(error, "code"), &code);
        snprintf(msg, sizeof msg,
                 "The client answered roots/list with an error: %.200s (code %" PRId64
                 "); the session keeps the roots it had.",
                 why ? why : "no message", code);
        free(why);
        log_text(c, RIG_LOG_WARNING, msg);
        return;
    }
    char why[512], note[512];
    char **paths = NULL;
    size_t n = 0;
    int rc = rig__mcp_roots_parse(result, &paths, &n, why, note, sizeof note);
    if (rc != 0) {
        snprintf(msg, sizeof msg, "Ignored the client's roots: %s; the session keeps the roots "
                                  "it had.",
                 rc == -2 ? "out of memory" : why);
        log_text(c, RIG_LOG_WARNING, msg);
        return;
    }
    rig_error told = {0};
    fn(c->session, (const char *const *)paths, n, ud, &told);
    rig__mcp_paths_free(paths, n);
    if (note[0])
        log_text(c, RIG_LOG_WARNING, note);
    if (told.message[0])
        log_text(c, RIG_LOG_WARNING, told.message);
}

/* An answer to one of rig's asks. */
static void on_response(rig_mcp_conn *c, const rpc_msg *m)
{
    int64_t id = 0;
    if (!rig_json_is_number(m->id) || rig_json_get_int64(m->id, &id) != 0)
        return;
    rig_json_val result = rig_json_get(m->root, "result");
    rig_json_val error = rig_json_get(m->root, "error");
    pthread_mutex_lock(&c->mu);
    if (c->roots_ask && id == c->roots_ask) {
        c->roots_ask = 0;
        pthread_mutex_unlock(&c->mu);
        on_roots_answer(c, result, error);
        return;
    }
    for (struct ask *a = c->asks; a; a = a->next) {
        if (a->id != id || a->done)
            continue;
        if (rig_json_exists(result)) {
            a->answer = raw_copy(result);
            a->answer_len = a->answer ? strlen(a->answer) : 0;
            a->status = a->answer ? RIG_OK : RIG_ENOMEM;
        } else {
            a->status = RIG_EPEER;
            char *msg = rig__mcp_strdup(rig_json_get(error, "message"));
            int64_t code = 0;
            rig_json_get_int64(rig_json_get(error, "code"), &code);
            snprintf(a->why, sizeof a->why, "%.200s (code %" PRId64 ")",
                     msg ? msg : "no message", code);
            free(msg);
        }
        a->done = true;
        pthread_cond_broadcast(&c->ask_cv);
        break;
    }
    pthread_mutex_unlock(&c->mu);
}

static int m_tools_call(rig_mcp_conn *c, const rpc_msg *m)
{
    rig_json_val name = rig_json_get(m->params, "name");
    if (!rig_json_is_string(name))
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: tools/call needs \"name\", a string");
    rig_json_val args = rig_json_get(m->params, "arguments");
    if (rig_json_exists(args) && !rig_json_is_object(args))
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: \"arguments\" must be an object");
    /* MCP: an unknown tool is a protocol error, not a tool error. */
    char tool[RIG_TOOL_NAME_MAX + 1];
    if (rig_json_str_copy(name, tool, sizeof tool, NULL) != 0)
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: unknown tool (no tool has so long a name)");
    /* A name with a NUL inside is no tool's, whatever precedes the NUL. */
    if (strlen(tool) != rig_json_str_len(name) || !rig__toolset_visible(c->s->ts, tool)) {
        char msg[RIG_TOOL_NAME_MAX + 64];
        snprintf(msg, sizeof msg, "Invalid params: unknown tool '%s'", tool);
        return send_error(c, m, RIG_MCP_INVALID_PARAMS, msg);
    }
    /* Ids, and progress tokens, must be unique among a session's requests
     * in flight (a token shared by two calls would mix their progress). */
    size_t idlen = 0, toklen = 0;
    const char *idraw = rig_json_raw(m->id, &idlen);
    rig_json_val token = rig_json_get(rig_json_get(m->params, "_meta"), "progressToken");
    const char *tokraw = rig_json_is_string(token) || rig_json_is_number(token)
                             ? rig_json_raw(token, &toklen)
                             : NULL;
    pthread_mutex_lock(&c->mu);
    bool dup_id = false, dup_token = false;
    for (struct pending *p = c->pending; p; p = p->next) {
        if (p->answered)
            continue;
        dup_id |= strlen(p->id) == idlen && memcmp(p->id, idraw, idlen) == 0;
        dup_token |= tokraw && p->token && strlen(p->token) == toklen &&
                     memcmp(p->token, tokraw, toklen) == 0;
    }
    pthread_mutex_unlock(&c->mu);
    if (dup_id)
        return send_error(c, m, RIG_MCP_INVALID_REQUEST,
                          "Invalid Request: a request with this id is still running");
    if (dup_token)
        return send_error(c, m, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: this progressToken belongs to a request still "
                          "running; use a new one");

    struct pending *p = calloc(1, sizeof *p);
    if (p) {
        p->id = raw_copy(m->id);
        if (tokraw)
            p->token = raw_copy(token);
    }
    if (!p || !p->id) {
        if (p)
            free(p->token);
        free(p);
        return send_error(c, m, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    }
    p->conn = c;
    p->last_progress = -1;
    /* The answer's and the peer channel's (each also holds the conn), and
     * ours until submit has returned: `done` or the channel's end may run
     * inside submit, for an inline tool or a call that cannot start. */
    p->refs = 3;
    pthread_mutex_lock(&c->mu);
    c->refs += 2;
    p->next = c->pending;
    c->pending = p;
    c->npending++;
    pthread_mutex_unlock(&c->mu);

    size_t alen = 0;
    const char *atext = rig_json_exists(args) ? rig_json_raw(args, &alen) : NULL;
    rig_call_opts opts = {.session = c->session, .peer = &mcp_peer, .peer_ud = p};
    rig_job *job = rig_toolset_submit(c->s->ts, tool, atext, alen, &opts, call_done, p);
    /* `done` may have run already (an inline tool, an early failure): then
     * the job handle is ours to release. */
    pthread_mutex_lock(&c->mu);
    bool answered = p->answered;
    if (!answered)
        p->job = job;
    pending_unref_locked(p);
    pthread_mutex_unlock(&c->mu);
    if (answered && job)
        rig_job_release(job);
    /* An answer that is ready goes out now, in order with what follows. */
    return answered ? rig_mcp_conn_flush(c) : 0;
}

/* The methods whose result a catalog function writes (internal.h). */
typedef int (*body_fn)(rig_mcp_server *s, rig_json_val params, rig_json_writer *w, mcp_reply *r);

typedef struct method {
    const char *name;
    method_fn fn;     /* or ... */
    body_fn body;
    bool before_init; /* allowed before initialize */
} method;

/* The request methods, Redis style: one row each. A later protocol
 * revision adds its rows here (and checks c->version where it differs). */
static const method methods[] = {
    {"initialize", m_initialize, NULL, true},
    {"ping", m_ping, NULL, true},
    {"tools/list", m_tools_list, NULL, false},
    {"tools/call", m_tools_call, NULL, false},
    {"resources/list", NULL, rig__mcp_resources_list, false},
    {"resources/templates/list", NULL, rig__mcp_templates_list, false},
    {"resources/read", NULL, rig__mcp_resources_read, false},
    {"resources/subscribe", m_subscribe, NULL, false},
    {"resources/unsubscribe", m_unsubscribe, NULL, false},
    {"prompts/list", NULL, rig__mcp_prompts_list, false},
    {"prompts/get", NULL, rig__mcp_prompts_get, false},
    {"completion/complete", NULL, rig__mcp_complete, false},
    {"logging/setLevel", m_set_level, NULL, false},
};

static void on_cancelled(rig_mcp_conn *c, const rpc_msg *m)
{
    rig_json_val rid = rig_json_get(m->params, "requestId");
    size_t n = 0;
    const char *raw = rig_json_raw(rid, &n);
    if (!raw)
        return;
    rig_job *job = NULL;
    pthread_mutex_lock(&c->mu);
    for (struct pending *p = c->pending; p; p = p->next)
        if (!p->answered && !p->cancelled && strlen(p->id) == n && memcmp(p->id, raw, n) == 0) {
            p->cancelled = true; /* MCP: no answer for a cancelled request */
            job = p->job;        /* the handle is ours now: `done` leaves it */
            p->job = NULL;
            pthread_cond_broadcast(&c->ask_cv); /* its tool may be waiting on the client */
            /* No answer will end the request's stream: this does. */
            if (!c->closed)
                enqueue_close_locked(c, p->id, 0, true);
            break;
        }
    pthread_mutex_unlock(&c->mu);
    if (job) {
        rig_job_cancel(job);
        rig_job_release(job);
    }
}

static int dispatch(rig_mcp_conn *c, const rpc_msg *m)
{
    switch (m->kind) {
    case RPC_INVALID: {
        /* Echo its id, but route it to no request: the id may be one of a
         * call still running, whose stream this error must not end. */
        rig__rpc_write_error(&c->w, m->id, m->code, m->why);
        rig_mcp_route r = {.final = true};
        return send_now(c, &c->w, &r);
    }
    case RPC_RESPONSE:
        on_response(c, m);
        return 0;
    case RPC_NOTIFICATION:
        if (rig_json_str_eq(m->method, "notifications/cancelled"))
            on_cancelled(c, m);
        else if (rig_json_str_eq(m->method, "notifications/initialized") ||
                 rig_json_str_eq(m->method, "notifications/roots/list_changed"))
            return ask_roots(c);
        return 0; /* unknown: nothing to do */
    case RPC_REQUEST:
        break;
    }
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
        if (!rig_json_str_eq(m->method, methods[i].name))
            continue;
        pthread_mutex_lock(&c->mu);
        bool ready = c->initialized;
        pthread_mutex_unlock(&c->mu);
        if (!ready && !methods[i].before_init)
            return send_error(c, m, RIG_MCP_INVALID_REQUEST,
                              "Invalid Request: the session is not initialized; send "
                              "\"initialize\" first");
        if (methods[i].fn)
            return methods[i].fn(c, m);
        mcp_reply r = {0};
        rig_json_writer body;
        rig_json_writer_init(&body, 0);
        int code = methods[i].body(c->s, m->params, &body, &r);
        return answer(c, m, code, &r, &body);
    }
    return send_error(c, m, RIG_MCP_METHOD_NOT_FOUND, "Method not found");
}

int rig__mcp_conn_receive_root(rig_mcp_conn *c, rig_json_val root)
{
    rpc_msg m;
    rig__rpc_classify(root, &m);
    return dispatch(c, &m);
}

int rig_mcp_conn_receive(rig_mcp_conn *c, const char *msg, size_t len)
{
    if (!c)
        return -1;
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(msg, len, NULL, &jerr);
    int rc;
    if (!doc) {
        char why[200];
        char where[160];
        rig_json_error_format(&jerr, where, sizeof where);
        snprintf(why, sizeof why, "Parse error: %s", where);
        rc = send_error(c, NULL, RIG_MCP_PARSE_ERROR, why);
    } else {
        rc = rig__mcp_conn_receive_root(c, rig_json_doc_root(doc));
    }
    rig_json_doc_free(doc);
    return rc;
}
