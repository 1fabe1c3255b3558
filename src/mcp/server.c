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
 * Lifetimes: each call in flight holds a reference on its connection (for
 * the answer) and its progress channel holds one more (a tool may report
 * progress until it returns, even after its caller was answered). A freed
 * connection drops answers that arrive later. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "mcp/jsonrpc.h"
#include "rig/mcp.h"
#include "rig/rig.h"

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

struct rig_mcp_server {
    rig_toolset *ts;
    char *name, *version, *title, *instructions;
    unsigned page_size;
    atomic_uint_fast64_t sessions; /* for session keys: "mcp-1", "mcp-2", ... */
};

/* A message waiting for flush. */
struct outmsg {
    struct outmsg *next;
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
    int refs;             /* the answer's, the progress channel's, the submitter's (conn->mu) */
    bool answered;        /* done ran */
    bool cancelled;       /* notifications/cancelled: no answer may be sent */
};

struct rig_mcp_conn {
    rig_mcp_server *s;
    rig_mcp_send_fn send;
    rig_mcp_wake_fn wake;
    void *ud;
    bool initialized;   /* initialize answered */
    bool dead;          /* send failed: the peer is gone */
    char session[32];
    const char *version;

    pthread_mutex_t mu; /* everything below */
    bool closed;        /* rig_mcp_conn_free ran */
    int refs;
    struct outmsg *out_head, *out_tail;
    struct pending *pending;
    size_t npending;
    rig_json_writer w;  /* the receiving thread's writer */
};

/* ---- the server ------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

rig_mcp_server *rig_mcp_server_new(rig_toolset *ts, const rig_mcp_info *info, rig_error *err)
{
    if (!ts)
        return rig_error_set(err, RIG_EINVAL, "An MCP server needs a toolset."), NULL;
    rig_mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    s->ts = ts;
    s->name = strdup(info && info->name ? info->name : "rig");
    s->version = strdup(info && info->version ? info->version : rig_version());
    s->title = dup_or_null(info ? info->title : NULL);
    s->instructions = dup_or_null(info ? info->instructions : NULL);
    s->page_size = 100;
    if (!s->name || !s->version || (info && info->title && !s->title) ||
        (info && info->instructions && !s->instructions)) {
        rig_mcp_server_free(s);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory."), NULL;
    }
    return s;
}

void rig_mcp_server_free(rig_mcp_server *s)
{
    if (!s)
        return;
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
    snprintf(c->session, sizeof c->session, "mcp-%" PRIuFAST64,
             (uint_fast64_t)atomic_fetch_add(&s->sessions, 1) + 1);
    pthread_mutex_init(&c->mu, NULL);
    rig_json_writer_init(&c->w, 0);
    return c;
}

static void conn_destroy(rig_mcp_conn *c)
{
    for (struct outmsg *m = c->out_head, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    rig_json_writer_free(&c->w);
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
    /* Stop every call still running; the answers they produce are dropped.
     * The job handles are taken over first (so no `done` releases one under
     * us) and cancelled outside the lock: cancelling runs `done` at once,
     * which takes it. */
    pthread_mutex_lock(&c->mu);
    c->closed = true;
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

size_t rig_mcp_conn_pending(const rig_mcp_conn *c)
{
    if (!c)
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&c->mu);
    size_t n = c->npending;
    pthread_mutex_unlock((pthread_mutex_t *)&c->mu);
    return n;
}

/* Send a finished message now (receiving thread only). */
static int send_now(rig_mcp_conn *c, rig_json_writer *w)
{
    size_t len = 0;
    const char *json = rig_json_writer_finish(w, &len);
    if (c->dead)
        return -1;
    if (!json) /* out of memory while writing: nothing sensible can go out */
        return 0;
    if (c->send(json, len, c->ud) != 0)
        c->dead = true;
    return c->dead ? -1 : 0;
}

/* Queue a finished message for flush (any thread; c->mu held). */
static void enqueue_locked(rig_mcp_conn *c, rig_json_writer *w)
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
    memcpy(m->json, json, len);
    if (c->out_tail)
        c->out_tail->next = m;
    else
        c->out_head = m;
    c->out_tail = m;
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
        if (!c->dead && c->send(m->json, m->len, c->ud) != 0)
            c->dead = true;
        free(m);
    }
    return c->dead ? -1 : rc;
}

static int send_error(rig_mcp_conn *c, rig_json_val id, int code, const char *message)
{
    rig__rpc_write_error(&c->w, id, code, message);
    return send_now(c, &c->w);
}

/* ---- methods ---------------------------------------------------------- */

typedef int (*method_fn)(rig_mcp_conn *c, const rpc_msg *m);

static int m_initialize(rig_mcp_conn *c, const rpc_msg *m)
{
    rig_json_val want = rig_json_get(m->params, "protocolVersion");
    if (!rig_json_is_string(want))
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: initialize needs \"protocolVersion\", a string");
    /* The client's version if rig speaks it, else the latest (the client
     * then decides whether it can go on). */
    c->version = versions[0];
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++)
        if (rig_json_str_eq(want, versions[i]))
            c->version = versions[i];
    rig_json_writer *w = &c->w;
    rig__rpc_begin_result(w, m->id);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "protocolVersion");
    rig_json_write_string(w, c->version);
    rig_json_write_key(w, "capabilities");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "tools");
    rig_json_write_object_begin(w);
    rig_json_write_object_end(w);
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
    c->initialized = true;
    return send_now(c, w);
}

static int m_ping(rig_mcp_conn *c, const rpc_msg *m)
{
    rig__rpc_begin_result(&c->w, m->id);
    rig_json_write_object_begin(&c->w);
    rig_json_write_object_end(&c->w);
    rig__rpc_end(&c->w);
    return send_now(c, &c->w);
}

/* Cursors are opaque to clients; rig's say where the next page starts. */
#define CURSOR_PREFIX "rig-page-"

static int m_tools_list(rig_mcp_conn *c, const rpc_msg *m)
{
    size_t start = 0;
    rig_json_val cursor = rig_json_get(m->params, "cursor");
    if (rig_json_exists(cursor)) {
        char buf[48];
        char *end = NULL;
        if (!rig_json_is_string(cursor) || rig_json_str_copy(cursor, buf, sizeof buf, NULL) != 0 ||
            strncmp(buf, CURSOR_PREFIX, sizeof CURSOR_PREFIX - 1) != 0)
            return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                              "Invalid params: unknown cursor; start again without one");
        const char *digits = buf + sizeof CURSOR_PREFIX - 1;
        unsigned long long v = strtoull(digits, &end, 10);
        if (end == digits || *end)
            return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                              "Invalid params: unknown cursor; start again without one");
        start = (size_t)v;
    }
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
    if (!doc) {
        rc = send_error(c, m->id, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    } else if (start > rig_json_len(tools)) {
        rc = send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                        "Invalid params: the cursor is past the end; start again without one");
    } else {
        size_t n = rig_json_len(tools), end = start + c->s->page_size;
        if (end > n)
            end = n;
        rig_json_writer *w = &c->w;
        rig__rpc_begin_result(w, m->id);
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "tools");
        rig_json_write_array_begin(w);
        for (size_t i = start; i < end; i++)
            rig_json_write_value(w, rig_json_at(tools, i));
        rig_json_write_array_end(w);
        if (end < n) {
            char next[48];
            snprintf(next, sizeof next, CURSOR_PREFIX "%zu", end);
            rig_json_write_key(w, "nextCursor");
            rig_json_write_string(w, next);
        }
        rig_json_write_object_end(w);
        rig__rpc_end(w);
        rc = send_now(c, w);
    }
    rig_json_doc_free(doc);
    rig_json_writer_free(&all);
    return rc;
}

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
        enqueue_locked(c, &w);
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
        enqueue_locked(c, &w);
        rig_json_writer_free(&w);
    }
    if (send && c->wake)
        c->wake(c->ud); /* under the lock, as in call_done */
    pthread_mutex_unlock(&c->mu);
}

static void call_progress_end(void *ud)
{
    struct pending *p = ud;
    rig_mcp_conn *c = p->conn;
    pthread_mutex_lock(&c->mu);
    pending_unref_locked(p);
    conn_unref_unlock(c);
}

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

static int m_tools_call(rig_mcp_conn *c, const rpc_msg *m)
{
    rig_json_val name = rig_json_get(m->params, "name");
    if (!rig_json_is_string(name))
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: tools/call needs \"name\", a string");
    rig_json_val args = rig_json_get(m->params, "arguments");
    if (rig_json_exists(args) && !rig_json_is_object(args))
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: \"arguments\" must be an object");
    /* MCP: an unknown tool is a protocol error, not a tool error. */
    char tool[RIG_TOOL_NAME_MAX + 1];
    if (rig_json_str_copy(name, tool, sizeof tool, NULL) != 0)
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
                          "Invalid params: unknown tool (no tool has so long a name)");
    /* A name with a NUL inside is no tool's, whatever precedes the NUL. */
    rig_tool *t = strlen(tool) == rig_json_str_len(name) ? rig_toolset_get(c->s->ts, tool) : NULL;
    if (!t || (rig_tool_flags(t) & RIG_TOOL_HIDDEN)) {
        char msg[RIG_TOOL_NAME_MAX + 64];
        snprintf(msg, sizeof msg, "Invalid params: unknown tool '%s'", tool);
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS, msg);
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
        return send_error(c, m->id, RIG_MCP_INVALID_REQUEST,
                          "Invalid Request: a request with this id is still running");
    if (dup_token)
        return send_error(c, m->id, RIG_MCP_INVALID_PARAMS,
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
        return send_error(c, m->id, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
    }
    p->conn = c;
    p->last_progress = -1;
    /* The answer's and the progress channel's (each also holds the conn),
     * and ours until submit has returned: `done` or the channel's end may
     * run inside submit, for an inline tool or a call that cannot start. */
    p->refs = 3;
    pthread_mutex_lock(&c->mu);
    c->refs += 2;
    p->next = c->pending;
    c->pending = p;
    c->npending++;
    pthread_mutex_unlock(&c->mu);

    size_t alen = 0;
    const char *atext = rig_json_exists(args) ? rig_json_raw(args, &alen) : NULL;
    rig_call_opts opts = {.session = c->session,
                          .progress = call_progress,
                          .progress_end = call_progress_end,
                          .progress_ud = p};
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

typedef struct method {
    const char *name;
    method_fn fn;
    bool before_init; /* allowed before initialize */
} method;

/* The request methods, Redis style: one row each. */
static const method methods[] = {
    {"initialize", m_initialize, true},
    {"ping", m_ping, true},
    {"tools/list", m_tools_list, false},
    {"tools/call", m_tools_call, false},
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
    case RPC_INVALID:
        return send_error(c, m->id, m->code, m->why);
    case RPC_RESPONSE:
        return 0; /* rig sends no requests to clients yet */
    case RPC_NOTIFICATION:
        if (rig_json_str_eq(m->method, "notifications/cancelled"))
            on_cancelled(c, m);
        return 0; /* initialized, roots/list_changed, unknown: nothing to do */
    case RPC_REQUEST:
        break;
    }
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
        if (!rig_json_str_eq(m->method, methods[i].name))
            continue;
        if (!c->initialized && !methods[i].before_init)
            return send_error(c, m->id, RIG_MCP_INVALID_REQUEST,
                              "Invalid Request: the session is not initialized; send "
                              "\"initialize\" first");
        return methods[i].fn(c, m);
    }
    return send_error(c, m->id, RIG_MCP_METHOD_NOT_FOUND, "Method not found");
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
        rc = send_error(c, (rig_json_val){0}, RIG_MCP_PARSE_ERROR, why);
    } else {
        rpc_msg m;
        rig__rpc_classify(rig_json_doc_root(doc), &m);
        rc = dispatch(c, &m);
    }
    rig_json_doc_free(doc);
    return rc;
}
