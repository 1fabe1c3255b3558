/* test_mcp_features.c — the MCP engine's features beyond tools, driven
 * without a transport as in test_mcp_server.c: resources (list, templates,
 * read, subscribe), prompts, completion, logging, tools that ask the client
 * (sampling and friends), stream closing, list_changed notifications, and
 * the roots/list the engine itself sends a client with roots.
 * Every message sent is captured with its route and checked. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "testing.h"

/* ---- capturing what a session sends ------------------------------------- */

#define MAX_SENT 256

typedef struct sent {
    char *json;    /* NULL for a close request */
    char *related; /* the route's related id, or NULL */
    bool final;
    bool close;
    unsigned retry_ms;
} sent;

typedef struct session {
    rig_mcp_conn *conn;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sent msgs[MAX_SENT];
    int n;
    int wakes;
} session;

static int on_send(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    session *s = ud;
    pthread_mutex_lock(&s->mu);
    if (s->n >= MAX_SENT) {
        pthread_mutex_unlock(&s->mu);
        fail_msg("more than %d messages sent", MAX_SENT);
    }
    sent *m = &s->msgs[s->n++];
    memset(m, 0, sizeof *m);
    m->json = json ? strndup(json, len) : NULL;
    if (route) {
        m->related = route->related ? strndup(route->related, route->related_len) : NULL;
        m->final = route->final;
        m->close = route->close;
        m->retry_ms = route->retry_ms;
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void on_wake(void *ud)
{
    session *s = ud;
    pthread_mutex_lock(&s->mu);
    s->wakes++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void clear(session *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->msgs[i].json);
        free(s->msgs[i].related);
    }
    s->n = 0;
}

/* ---- what the tools under test report --------------------------------------- */

/* The outcome of the last rig_call_ask, told by the tool itself (a cancelled
 * or timed-out call's own result never reaches the client). */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int rc;
    char msg[1024];
} rec = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, ""};

static void rec_reset(void)
{
    pthread_mutex_lock(&rec.mu);
    rec.done = false;
    rec.rc = 1;
    rec.msg[0] = '\0';
    pthread_mutex_unlock(&rec.mu);
}

static void rec_set(int rc, const char *msg)
{
    pthread_mutex_lock(&rec.mu);
    rec.rc = rc;
    snprintf(rec.msg, sizeof rec.msg, "%s", msg ? msg : "");
    rec.done = true;
    pthread_cond_broadcast(&rec.cv);
    pthread_mutex_unlock(&rec.mu);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to `ms` for the tool to report; its rc. */
static int rec_wait(int ms)
{
    int64_t until = now_ms() + ms;
    pthread_mutex_lock(&rec.mu);
    while (!rec.done && now_ms() < until) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5 * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&rec.cv, &rec.mu, &ts);
    }
    bool done = rec.done;
    int rc = rec.rc;
    pthread_mutex_unlock(&rec.mu);
    if (!done)
        fail_msg("the tool did not report within %d ms", ms);
    return rc;
}

#define ASK_PARAMS "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}]," \
                   "\"maxTokens\":16}"

/* Asks the client (method from the "method" argument, default sampling) and
 * returns the answer as text, or "error <rc>: <message>". */
static rig_result *asker(rig_call *call)
{
    const char *method = rig_call_str(call, "method", NULL);
    const char *params = rig_call_str(call, "params", NULL);
    char *answer = NULL;
    size_t len = 0;
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_call_ask(call, method ? method : "sampling/createMessage",
                          params ? params : ASK_PARAMS, &answer,
                          &len, &err);
    rig_result *r = rig_result_new();
    if (rc == RIG_OK) {
        if (!answer || strlen(answer) != len)
            rec_set(-1000, "answer and answer_len disagree");
        else
            rec_set(rc, answer);
        rig_result_textn(r, answer, len);
    } else {
        if (answer)
            rec_set(-1001, "an answer with a failure");
        else
            rec_set(rc, err.message);
        rig_result_textf(r, "error %d: %s", rc, err.message);
        rig_result_set_error(r, true);
    }
    free(answer);
    return r;
}

static rig_result *logger(rig_call *call)
{
    rig_call_logf(call, RIG_LOG_DEBUG, "debug %d", 1);
    rig_call_log(call, RIG_LOG_INFO, "db", "{\"rows\":3}");
    rig_call_log(call, RIG_LOG_INFO, "db", "not json"); /* dropped: not a JSON value */
    rig_call_logf(call, RIG_LOG_ERROR, "failed: %s", "disk");
    return rig_result_content("logged", NULL, NULL);
}

static rig_result *closer(rig_call *call)
{
    rig_call_close_stream(call, 1500);
    return rig_result_content("closed", NULL, NULL);
}

static rig_result *noop(rig_call *call)
{
    (void)call;
    return rig_result_content("noop", NULL, NULL);
}

static void add_tool(rig_toolset *ts, const char *name, rig_tool_fn fn, unsigned flags)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    assert_non_null(t);
    rig_tool_set_executor(t, fn, NULL, NULL);
    rig_tool_set_flags(t, flags);
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
}

/* ---- the fixture -------------------------------------------------------------- */

typedef struct fixture {
    rig_toolset *ts;
    rig_mcp_server *s;
    session a, b; /* two clients of one server */
} fixture;

static void session_open(fixture *f, session *s)
{
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->conn = rig_mcp_conn_new(f->s, on_send, on_wake, s);
    assert_non_null(s->conn);
}

static void session_close(session *s)
{
    rig_mcp_conn_free(s->conn);
    clear(s);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->ts = rig_toolset_new();
    rig_toolset_set_workers(f->ts, 4);
    add_tool(f->ts, "asker", asker, 0);
    add_tool(f->ts, "asker_inline", asker, RIG_TOOL_INLINE);
    add_tool(f->ts, "logger", logger, 0);
    add_tool(f->ts, "closer", closer, 0);
    rig_mcp_info info = {.name = "rig-features", .version = "1.0"};
    rig_error err;
    f->s = rig_mcp_server_new(f->ts, &info, &err);
    assert_non_null(f->s);
    session_open(f, &f->a);
    session_open(f, &f->b);
    rec_reset();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    session_close(&f->a);
    session_close(&f->b);
    rig_mcp_server_free(f->s);
    rig_toolset_free(f->ts);
    free(f);
    return 0;
}

/* ---- driving a session ------------------------------------------------------ */

static void in(session *s, const char *msg)
{
    assert_int_equal(rig_mcp_conn_receive(s->conn, msg, strlen(msg)), 0);
}

static void inf(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void inf(session *s, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof buf);
    in(s, buf);
}

static void flush(session *s)
{
    assert_int_equal(rig_mcp_conn_flush(s->conn), 0);
}

static void initialize_with(session *s, const char *caps)
{
    inf(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
        caps);
    in(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assert_int_equal(s->n, 1);
    clear(s);
}

static void initialize(session *s)
{
    initialize_with(s, "{}");
}

static rig_json_doc *doc_at(session *s, int i)
{
    if (i >= s->n)
        fail_msg("message %d asked for, %d sent", i, s->n);
    if (!s->msgs[i].json)
        fail_msg("message %d is a close request", i);
    return parse_ok(s->msgs[i].json);
}

/* `v` equals the JSON text `want` (as values: key order aside). */
static void assert_json(rig_json_val v, const char *want)
{
    rig_json_doc *d = parse_ok(want);
    bool eq = rig_json_equal(v, rig_json_doc_root(d));
    rig_json_doc_free(d);
    if (!eq) {
        size_t n = 0;
        const char *raw = rig_json_raw(v, &n);
        fail_msg("got %.*s, want %s", raw ? (int)n : 7, raw ? raw : "missing", want);
    }
}

static void assert_related(const sent *m, const char *want)
{
    if (!want) {
        if (m->related)
            fail_msg("route.related %s, want NULL (%s)", m->related, m->json ? m->json : "close");
        return;
    }
    if (!m->related || strcmp(m->related, want) != 0)
        fail_msg("route.related %s, want %s (%s)", m->related ? m->related : "NULL", want,
                 m->json ? m->json : "close");
}

/* The one message sent must be the result of request `id`; its "result". */
static rig_json_doc *result_only(session *s, const char *id)
{
    if (s->n != 1)
        fail_msg("%d messages sent, want 1 (first: %s)", s->n, s->n ? s->msgs[0].json : "-");
    assert_related(&s->msgs[0], id);
    assert_true(s->msgs[0].final);
    assert_false(s->msgs[0].close);
    rig_json_doc *d = doc_at(s, 0);
    rig_json_val r = rig_json_doc_root(d);
    assert_json(rig_json_get(r, "id"), id);
    assert_true(rig_json_str_eq(rig_json_get(r, "jsonrpc"), "2.0"));
    if (!rig_json_is_object(rig_json_get(r, "result")))
        fail_msg("no result: %s", s->msgs[0].json);
    assert_false(rig_json_exists(rig_json_get(r, "error")));
    return d;
}

/* Send a request and check it was answered with `result` exactly. */
static void expect_result(session *s, const char *msg, const char *id, const char *result)
{
    clear(s);
    in(s, msg);
    rig_json_doc *d = result_only(s, id);
    assert_json(rig_json_get(rig_json_doc_root(d), "result"), result);
    rig_json_doc_free(d);
    clear(s);
}

/* Send a request and check it failed with `code` (and a message holding
 * `substr`, when given). */
static void expect_error(session *s, const char *msg, const char *id, int code, const char *substr)
{
    clear(s);
    in(s, msg);
    if (s->n != 1)
        fail_msg("%s: %d messages sent, want 1", msg, s->n);
    assert_related(&s->msgs[0], id);
    assert_true(s->msgs[0].final);
    rig_json_doc *d = doc_at(s, 0);
    rig_json_val r = rig_json_doc_root(d);
    int64_t got = 0;
    if (rig_json_get_int64(rig_json_pointer(r, "/error/code"), &got) != 0 || got != code)
        fail_msg("%s: got %s, want code %d", msg, s->msgs[0].json, code);
    assert_json(rig_json_get(r, "id"), id);
    assert_false(rig_json_exists(rig_json_get(r, "result")));
    rig_json_val why = rig_json_pointer(r, "/error/message");
    assert_true(rig_json_is_string(why));
    if (substr) {
        char buf[600] = "";
        rig_json_str_copy(why, buf, sizeof buf, NULL);
        if (!strstr(buf, substr))
            fail_msg("%s: message '%s' lacks '%s'", msg, buf, substr);
    }
    rig_json_doc_free(d);
    clear(s);
}

/* Index of the first message (from `from`) with this method, or -1. */
static int find_method(session *s, int from, const char *method)
{
    for (int i = from; i < s->n; i++) {
        if (!s->msgs[i].json)
            continue;
        rig_json_doc *d = parse_ok(s->msgs[i].json);
        bool hit = rig_json_str_eq(rig_json_get(rig_json_doc_root(d), "method"), method);
        rig_json_doc_free(d);
        if (hit)
            return i;
    }
    return -1;
}

static int find_final(session *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->msgs[i].final)
            return i;
    return -1;
}

/* Wake-driven flushing, as a transport does, until `done` holds or ~5 s. */
static void pump_until(session *s, bool (*done)(session *, const void *), const void *arg)
{
    int64_t until = now_ms() + 5000;
    while (!done(s, arg)) {
        if (now_ms() > until)
            fail_msg("timed out waiting; %d messages sent", s->n);
        pthread_mutex_lock(&s->mu);
        if (!s->wakes) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        }
        s->wakes = 0;
        pthread_mutex_unlock(&s->mu);
        flush(s);
    }
}

static bool has_final(session *s, const void *arg)
{
    (void)arg;
    return find_final(s) >= 0;
}

static bool has_method(session *s, const void *arg)
{
    return find_method(s, 0, arg) >= 0;
}

static void wait_final(session *s)
{
    pump_until(s, has_final, NULL);
}

static void wait_method(session *s, const char *method)
{
    pump_until(s, has_method, method);
}

/* ---- resources ------------------------------------------------------------------ */

static const unsigned char blob_bytes[] = {0x00, 0xff, 0x10, 'a', 'b'};

typedef struct read_log {
    int calls;
    char uri[128];
    char owner[64];
    char repo[64];
    bool other_var_null;
} read_log;

static int read_dynamic(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out,
                        void *ud, rig_error *err)
{
    (void)vars;
    (void)err;
    read_log *log = ud;
    log->calls++;
    snprintf(log->uri, sizeof log->uri, "%s", uri);
    assert_int_equal(rig_mcp_contents_text(out, uri, "text/plain", "dynamic"), RIG_OK);
    static const unsigned char bytes[] = {0, 1, 2, 3, 4, 5, 6};
    assert_int_equal(rig_mcp_contents_blob(out, "mem://bytes", "application/octet-stream",
                                           bytes, sizeof bytes),
                     RIG_OK);
    /* bad inputs */
    assert_int_equal(rig_mcp_contents_text(out, NULL, NULL, "x"), RIG_EINVAL);
    assert_int_equal(rig_mcp_contents_text(out, uri, NULL, NULL), RIG_EINVAL);
    assert_int_equal(rig_mcp_contents_blob(out, uri, NULL, NULL, 3), RIG_EINVAL);
    return RIG_OK;
}

static int read_repo(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out, void *ud,
                     rig_error *err)
{
    (void)err;
    read_log *log = ud;
    log->calls++;
    snprintf(log->uri, sizeof log->uri, "%s", uri);
    const char *owner = rig_mcp_var(vars, "owner"), *repo = rig_mcp_var(vars, "repo");
    snprintf(log->owner, sizeof log->owner, "%s", owner ? owner : "(null)");
    snprintf(log->repo, sizeof log->repo, "%s", repo ? repo : "(null)");
    log->other_var_null = rig_mcp_var(vars, "nope") == NULL && rig_mcp_var(vars, NULL) == NULL;
    char text[200];
    snprintf(text, sizeof text, "%s/%s", owner ? owner : "?", repo ? repo : "?");
    return rig_mcp_contents_text(out, uri, "text/markdown", text);
}

static int read_enoent(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out, void *ud,
                       rig_error *err)
{
    (void)uri, (void)vars, (void)out, (void)ud, (void)err;
    return RIG_ENOENT;
}

static int read_broken(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out, void *ud,
                       rig_error *err)
{
    (void)uri, (void)vars, (void)out, (void)ud;
    return rig_error_set(err, RIG_ETOOL, "the disk is on fire");
}

static void add_resource(fixture *f, const rig_mcp_resource *r)
{
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_mcp_server_add_resource(f->s, r, &err);
    if (rc != RIG_OK)
        fail_msg("add %s: %d %s", r->uri, rc, err.message);
}

static void add_template(fixture *f, const rig_mcp_resource *r)
{
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_mcp_server_add_template(f->s, r, &err);
    if (rc != RIG_OK)
        fail_msg("add template %s: %d %s", r->uri, rc, err.message);
}

static read_log rlog;

/* A catalog: a text, a blob, a read function, three failing ones, a
 * template. */
static void add_catalog(fixture *f)
{
    memset(&rlog, 0, sizeof rlog);
    add_resource(f, &(rig_mcp_resource){.uri = "file:///a.txt", .name = "a", .title = "A file",
                                        .description = "The first file", .mime_type = "text/plain",
                                        .text = "hello \"a\"\n"});
    add_resource(f, &(rig_mcp_resource){.uri = "mem://blob", .name = "blob",
                                        .mime_type = "application/octet-stream",
                                        .blob = blob_bytes, .blob_len = sizeof blob_bytes});
    add_resource(f, &(rig_mcp_resource){.uri = "mem://dynamic", .name = "dynamic",
                                        .read = read_dynamic, .ud = &rlog});
    add_resource(f, &(rig_mcp_resource){.uri = "mem://gone", .name = "gone", .read = read_enoent});
    add_resource(f, &(rig_mcp_resource){.uri = "mem://broken", .name = "broken",
                                        .read = read_broken});
    add_template(f, &(rig_mcp_resource){.uri = "repo://{owner}/{repo}/readme", .name = "readme",
                                        .title = "A README", .description = "Any repo's README",
                                        .mime_type = "text/markdown", .read = read_repo,
                                        .ud = &rlog});
}

static void test_resources_list(void **state)
{
    fixture *f = *state;
    add_catalog(f);
    initialize(&f->a);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", "1",
                  "{\"resources\":["
                  "{\"uri\":\"file:///a.txt\",\"name\":\"a\",\"title\":\"A file\","
                  "\"description\":\"The first file\",\"mimeType\":\"text/plain\"},"
                  "{\"uri\":\"mem://blob\",\"name\":\"blob\","
                  "\"mimeType\":\"application/octet-stream\"},"
                  "{\"uri\":\"mem://dynamic\",\"name\":\"dynamic\"},"
                  "{\"uri\":\"mem://gone\",\"name\":\"gone\"},"
                  "{\"uri\":\"mem://broken\",\"name\":\"broken\"}]}");
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":"
                         "\"resources/templates/list\",\"params\":{}}",
                  "\"t\"",
                  "{\"resourceTemplates\":[{\"uriTemplate\":\"repo://{owner}/{repo}/readme\","
                  "\"name\":\"readme\",\"title\":\"A README\",\"description\":\"Any repo's README\","
                  "\"mimeType\":\"text/markdown\"}]}");

    /* pages of two: 2 + 2 + 1, the cursor leading on */
    rig_mcp_server_set_page_size(f->s, 2);
    const char *want[] = {"file:///a.txt", "mem://blob", "mem://dynamic", "mem://gone",
                          "mem://broken"};
    char cursor[64] = "";
    int seen = 0, pages = 0;
    for (;;) {
        clear(&f->a);
        if (*cursor)
            inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"resources/list\",\"params\":"
                       "{\"cursor\":\"%s\"}}", 10 + pages, cursor);
        else
            inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"resources/list\"}", 10 + pages);
        char id[16];
        snprintf(id, sizeof id, "%d", 10 + pages);
        rig_json_doc *d = result_only(&f->a, id);
        rig_json_val r = rig_json_get(rig_json_doc_root(d), "result");
        rig_json_val list = rig_json_get(r, "resources");
        assert_int_equal(rig_json_len(list), pages < 2 ? 2 : 1);
        for (size_t i = 0; i < rig_json_len(list); i++)
            assert_true(rig_json_str_eq(rig_json_get(rig_json_at(list, i), "uri"), want[seen++]));
        pages++;
        rig_json_val next = rig_json_get(r, "nextCursor");
        if (pages < 3) {
            assert_true(rig_json_is_string(next));
            assert_int_equal(rig_json_str_copy(next, cursor, sizeof cursor, NULL), 0);
        } else {
            assert_false(rig_json_exists(next));
        }
        rig_json_doc_free(d);
        if (pages == 3)
            break;
    }
    assert_int_equal(seen, 5);
    clear(&f->a);
    /* the templates list pages too (one template: no cursor) */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"resources/templates/list\"}");
    rig_json_doc *d = result_only(&f->a, "20");
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d),
                                                   "/result/resourceTemplates")), 1);
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d), "/result/nextCursor")));
    rig_json_doc_free(d);
    clear(&f->a);

    /* bad cursors */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"resources/list\",\"params\":"
                        "{\"cursor\":\"bogus\"}}", "30", -32602, "cursor");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"resources/list\",\"params\":"
                        "{\"cursor\":\"rig-page-999\"}}", "31", -32602, "cursor");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":32,\"method\":\"resources/list\",\"params\":"
                        "{\"cursor\":5}}", "32", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":33,\"method\":\"resources/list\",\"params\":"
                        "{\"cursor\":\"rig-page--1\"}}", "33", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":34,\"method\":"
                        "\"resources/templates/list\",\"params\":{\"cursor\":\"x\"}}",
                 "34", -32602, NULL);
    /* before initialize: refused */
    expect_error(&f->b, "{\"jsonrpc\":\"2.0\",\"id\":35,\"method\":\"resources/list\"}", "35",
                 -32600, NULL);
}

static void test_resources_empty(void **state)
{
    fixture *f = *state;
    initialize(&f->a);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", "1",
                  "{\"resources\":[]}");
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/templates/list\"}",
                  "2", "{\"resourceTemplates\":[]}");
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/list\"}", "3",
                  "{\"prompts\":[]}");
}

static void test_resources_read(void **state)
{
    fixture *f = *state;
    add_catalog(f);
    initialize(&f->a);
    /* static text */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"file:///a.txt\"}}", "1",
                  "{\"contents\":[{\"uri\":\"file:///a.txt\",\"mimeType\":\"text/plain\","
                  "\"text\":\"hello \\\"a\\\"\\n\"}]}");
    /* static bytes, base64 */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"mem://blob\"}}", "2",
                  "{\"contents\":[{\"uri\":\"mem://blob\",\"mimeType\":"
                  "\"application/octet-stream\",\"blob\":\"AP8QYWI=\"}]}");
    /* a read function: two contents */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"mem://dynamic\"}}", "3",
                  "{\"contents\":[{\"uri\":\"mem://dynamic\",\"mimeType\":\"text/plain\","
                  "\"text\":\"dynamic\"},{\"uri\":\"mem://bytes\",\"mimeType\":"
                  "\"application/octet-stream\",\"blob\":\"AAECAwQFBg==\"}]}");
    assert_int_equal(rlog.calls, 1);
    assert_string_equal(rlog.uri, "mem://dynamic");
    /* a template with two variables: their values reach the function */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"repo://octo/hello-world/readme\"}}", "4",
                  "{\"contents\":[{\"uri\":\"repo://octo/hello-world/readme\","
                  "\"mimeType\":\"text/markdown\",\"text\":\"octo/hello-world\"}]}");
    assert_int_equal(rlog.calls, 2);
    assert_string_equal(rlog.uri, "repo://octo/hello-world/readme");
    assert_string_equal(rlog.owner, "octo");
    assert_string_equal(rlog.repo, "hello-world");
    assert_true(rlog.other_var_null);
    /* a variable never spans '/', and is never empty */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"repo://octo/a/b/readme\"}}", "5", -32002, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"repo:///hello/readme\"}}", "6", -32002, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"repo://octo/hello/readme.md\"}}", "7", -32002, NULL);
    assert_int_equal(rlog.calls, 2);
    /* a variable takes any characters but '/' (mcp.h): dots included, where a
     * literal "." follows it in the template */
    rig_error err;
    assert_int_equal(rig_mcp_server_add_template(f->s, &(rig_mcp_resource){
                                                           .uri = "logs://{day}.log",
                                                           .name = "log", .read = read_repo,
                                                           .ud = &rlog},
                                                 &err),
                     RIG_OK);
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":71,\"method\":\"resources/read\",\"params\":"
              "{\"uri\":\"logs://2025.01.02.log\"}}");
    if (f->a.n != 1 || !strstr(f->a.msgs[0].json, "\"result\""))
        fail_msg("logs://2025.01.02.log against logs://{day}.log: %s",
                 f->a.n ? f->a.msgs[0].json : "nothing sent");
    clear(&f->a);
    rlog.calls = 2;
    /* matching nothing */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"file:///nope\"}}", "8", -32002, "file:///nope");
    /* bad params */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{}}",
                 "9", -32602, "uri");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/read\"}", "10",
                 -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":7}}", "11", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"file:///a.txt\\u0000x\"}}", "12", -32602, NULL);
    /* read functions that fail */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"mem://gone\"}}", "13", -32002, "mem://gone");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"mem://broken\"}}", "14", -32603, "the disk is on fire");
}

static void test_resources_add_errors(void **state)
{
    fixture *f = *state;
    add_catalog(f);
    rig_error err;
    struct {
        rig_mcp_resource r;
        bool tmpl;
        int rc;
    } cases[] = {
        {{.uri = "file:///a.txt", .name = "again", .text = "x"}, false, RIG_EEXIST},
        {{.uri = "repo://{owner}/{repo}/readme", .name = "again", .read = read_repo}, true,
         RIG_EEXIST},
        {{.name = "no uri", .text = "x"}, false, RIG_EINVAL},
        {{.uri = "", .name = "empty uri", .text = "x"}, false, RIG_EINVAL},
        {{.uri = "mem://x", .text = "x"}, false, RIG_EINVAL},
        {{.uri = "mem://x", .name = "", .text = "x"}, false, RIG_EINVAL},
        {{.uri = "mem://x", .name = "no content"}, false, RIG_EINVAL},
        {{.uri = "mem://{x}", .name = "no read", .text = "x"}, true, RIG_EINVAL},
        {{.uri = "mem://x", .name = "no variable", .read = read_repo}, true, RIG_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rig_error_clear(&err);
        int rc = cases[i].tmpl ? rig_mcp_server_add_template(f->s, &cases[i].r, &err)
                               : rig_mcp_server_add_resource(f->s, &cases[i].r, &err);
        if (rc != cases[i].rc)
            fail_msg("case %zu: got %d, want %d", i, rc, cases[i].rc);
        assert_int_equal(err.code, cases[i].rc);
        assert_true(err.message[0] != '\0');
    }
    assert_int_equal(rig_mcp_server_add_resource(f->s, NULL, NULL), RIG_EINVAL);
    assert_int_equal(rig_mcp_server_add_resource(NULL, &(rig_mcp_resource){.uri = "a", .name = "a",
                                                                           .text = "a"}, NULL),
                     RIG_EINVAL);
    /* failed adds changed nothing */
    initialize(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
    rig_json_doc *d = result_only(&f->a, "1");
    rig_json_val list = rig_json_pointer(rig_json_doc_root(d), "/result/resources");
    assert_int_equal(rig_json_len(list), 5);
    assert_json(rig_json_at(list, 0), "{\"uri\":\"file:///a.txt\",\"name\":\"a\",\"title\":"
                                      "\"A file\",\"description\":\"The first file\","
                                      "\"mimeType\":\"text/plain\"}");
    rig_json_doc_free(d);
    /* remove: bad and unknown */
    assert_int_equal(rig_mcp_server_remove_resource(f->s, "mem://none"), RIG_ENOENT);
    assert_int_equal(rig_mcp_server_remove_resource(f->s, NULL), RIG_EINVAL);
    assert_int_equal(rig_mcp_server_remove_resource(NULL, "mem://blob"), RIG_EINVAL);
}

static void test_resources_list_changed(void **state)
{
    fixture *f = *state;
    add_catalog(f);
    initialize(&f->a); /* b stays uninitialized */
    const char *changed = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\","
                          "\"params\":{}}";
    assert_int_equal(rig_mcp_server_remove_resource(f->s, "mem://blob"), RIG_OK);
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    assert_related(&f->a.msgs[0], NULL);
    assert_false(f->a.msgs[0].final);
    assert_false(f->a.msgs[0].close);
    assert_int_equal(f->b.n, 0);
    clear(&f->a);
    assert_int_equal(rig_mcp_server_remove_resource(f->s, "mem://blob"), RIG_ENOENT);
    flush(&f->a);
    assert_int_equal(f->a.n, 0);
    /* gone from the list and from reads */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
    rig_json_doc *d = result_only(&f->a, "1");
    rig_json_val list = rig_json_pointer(rig_json_doc_root(d), "/result/resources");
    assert_int_equal(rig_json_len(list), 4);
    for (size_t i = 0; i < 4; i++)
        assert_false(rig_json_str_eq(rig_json_get(rig_json_at(list, i), "uri"), "mem://blob"));
    rig_json_doc_free(d);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
                        "{\"uri\":\"mem://blob\"}}", "2", -32002, NULL);
    /* removing a template, adding a resource: the same notification */
    assert_int_equal(rig_mcp_server_remove_resource(f->s, "repo://{owner}/{repo}/readme"), RIG_OK);
    flush(&f->a);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    clear(&f->a);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/templates/list\"}",
                  "3", "{\"resourceTemplates\":[]}");
    add_resource(f, &(rig_mcp_resource){.uri = "mem://new", .name = "new", .text = ""});
    flush(&f->a);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    assert_related(&f->a.msgs[0], NULL);
    clear(&f->a);
    /* an empty text reads as "" */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"mem://new\"}}", "4",
                  "{\"contents\":[{\"uri\":\"mem://new\",\"text\":\"\"}]}");
    flush(&f->b);
    assert_int_equal(f->b.n, 0);
}

static void test_subscribe(void **state)
{
    fixture *f = *state;
    add_catalog(f);
    initialize(&f->a);
    initialize(&f->b);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/subscribe\",\"params\":"
              "{\"uri\":\"file:///a.txt\"}}");
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
    assert_related(&f->a.msgs[0], "5");
    assert_true(f->a.msgs[0].final);
    clear(&f->a);
    /* twice is fine, and a uri a template matches can be subscribed to */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/subscribe\","
                         "\"params\":{\"uri\":\"file:///a.txt\"}}", "6", "{}");
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/subscribe\","
                         "\"params\":{\"uri\":\"repo://o/r/readme\"}}", "7", "{}");

    rig_mcp_server_resource_updated(f->s, "file:///a.txt");
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 1); /* once, though subscribed twice */
    assert_string_equal(f->a.msgs[0].json,
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
                        "\"params\":{\"uri\":\"file:///a.txt\"}}");
    assert_related(&f->a.msgs[0], NULL);
    assert_false(f->a.msgs[0].final);
    assert_int_equal(f->b.n, 0);
    clear(&f->a);
    rig_mcp_server_resource_updated(f->s, "repo://o/r/readme");
    rig_mcp_server_resource_updated(f->s, "mem://blob"); /* nobody subscribed */
    rig_mcp_server_resource_updated(f->s, NULL);
    rig_mcp_server_resource_updated(NULL, "file:///a.txt");
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 1);
    assert_non_null(strstr(f->a.msgs[0].json, "\"uri\":\"repo://o/r/readme\""));
    assert_int_equal(f->b.n, 0);
    clear(&f->a);

    /* unsubscribe: {} and no more updates; unsubscribing again is fine */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/unsubscribe\",\"params\":"
              "{\"uri\":\"file:///a.txt\"}}");
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}");
    clear(&f->a);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/unsubscribe\","
                         "\"params\":{\"uri\":\"file:///a.txt\"}}", "9", "{}");
    rig_mcp_server_resource_updated(f->s, "file:///a.txt");
    flush(&f->a);
    assert_int_equal(f->a.n, 0);

    /* b subscribes: only b hears */
    expect_result(&f->b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
                         "\"params\":{\"uri\":\"mem://dynamic\"}}", "1", "{}");
    rig_mcp_server_resource_updated(f->s, "mem://dynamic");
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 0);
    assert_int_equal(f->b.n, 1);
    assert_non_null(strstr(f->b.msgs[0].json, "notifications/resources/updated"));
    clear(&f->b);

    /* bad inputs */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/subscribe\","
                        "\"params\":{\"uri\":\"mem://unknown\"}}", "10", -32002, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/subscribe\","
                        "\"params\":{}}", "11", -32602, "uri");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/unsubscribe\","
                        "\"params\":{\"uri\":1}}", "12", -32602, "uri");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"resources/subscribe\"}", "13",
                 -32602, NULL);
}

/* ---- prompts ---------------------------------------------------------------------- */

typedef struct prompt_log {
    int calls;
    char name[64];
    char style[64];
} prompt_log;

static prompt_log plog;

static int get_greet(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud, rig_error *err)
{
    prompt_log *log = ud;
    log->calls++;
    const char *name = rig_mcp_var(args, "name"), *style = rig_mcp_var(args, "style");
    snprintf(log->name, sizeof log->name, "%s", name ? name : "(null)");
    snprintf(log->style, sizeof log->style, "%s", style ? style : "(null)");
    if (style && strcmp(style, "formal") != 0 && strcmp(style, "casual") != 0)
        return rig_error_set(err, RIG_EINVAL, "style must be formal or casual, not '%s'", style);
    rig_result *user = rig_result_new();
    rig_result_textf(user, "Greet %s%s%s.", name, style ? ", " : "", style ? style : "");
    rig_result_text(user, "Be brief.");
    rig_result *assistant = rig_result_new();
    rig_result_text(assistant, "Hello!");
    int rc = rig_mcp_messages_add(out, "user", user);
    if (rc == RIG_OK)
        rc = rig_mcp_messages_add(out, "assistant", assistant);
    /* bad inputs change nothing */
    assert_int_equal(rig_mcp_messages_add(out, "system", assistant), RIG_EINVAL);
    assert_int_equal(rig_mcp_messages_add(out, NULL, assistant), RIG_EINVAL);
    assert_int_equal(rig_mcp_messages_add(out, "user", NULL), RIG_EINVAL);
    assert_int_equal(rig_mcp_messages_description(out, NULL), RIG_EINVAL);
    if (style && strcmp(style, "formal") == 0)
        rig_mcp_messages_description(out, "A formal greeting");
    rig_result_free(user);
    rig_result_free(assistant);
    return rc;
}

static int get_broken(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud, rig_error *err)
{
    (void)args, (void)out, (void)ud;
    return rig_error_set(err, RIG_ENOMEM, "no room for the prompt");
}

static const rig_mcp_prompt_arg greet_args[] = {
    {.name = "name", .title = "Name", .description = "Who to greet", .required = true},
    {.name = "style"},
};

static void add_prompts(fixture *f)
{
    memset(&plog, 0, sizeof plog);
    rig_error err;
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){
                                                         .name = "greet", .title = "Greeting",
                                                         .description = "Greets someone",
                                                         .args = greet_args, .n_args = 2,
                                                         .get = get_greet, .ud = &plog},
                                               &err),
                     RIG_OK);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "plain",
                                                                        .get = get_greet,
                                                                        .ud = &plog},
                                               &err),
                     RIG_OK);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "broken",
                                                                        .get = get_broken},
                                               &err),
                     RIG_OK);
}

static void test_prompts(void **state)
{
    fixture *f = *state;
    add_prompts(f);
    initialize(&f->a);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\"}", "1",
                  "{\"prompts\":[{\"name\":\"greet\",\"title\":\"Greeting\",\"description\":"
                  "\"Greets someone\",\"arguments\":[{\"name\":\"name\",\"title\":\"Name\","
                  "\"description\":\"Who to greet\",\"required\":true},"
                  "{\"name\":\"style\",\"required\":false}]},"
                  "{\"name\":\"plain\"},{\"name\":\"broken\"}]}");
    /* paging */
    rig_mcp_server_set_page_size(f->s, 2);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}");
    rig_json_doc *d = result_only(&f->a, "2");
    rig_json_val r = rig_json_get(rig_json_doc_root(d), "result");
    assert_int_equal(rig_json_len(rig_json_get(r, "prompts")), 2);
    char cursor[64] = "";
    assert_int_equal(rig_json_str_copy(rig_json_get(r, "nextCursor"), cursor, sizeof cursor, NULL),
                     0);
    rig_json_doc_free(d);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/list\",\"params\":"
               "{\"cursor\":\"%s\"}}", cursor);
    d = result_only(&f->a, "3");
    assert_json(rig_json_get(rig_json_doc_root(d), "result"), "{\"prompts\":[{\"name\":\"broken\"}]}");
    rig_json_doc_free(d);
    clear(&f->a);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/list\",\"params\":"
                        "{\"cursor\":\"nope\"}}", "4", -32602, NULL);

    /* get with arguments */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":"
                         "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}}", "5",
                  "{\"description\":\"Greets someone\",\"messages\":["
                  "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Greet Ada.\"}},"
                  "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Be brief.\"}},"
                  "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Hello!\"}}]}");
    assert_int_equal(plog.calls, 1);
    assert_string_equal(plog.name, "Ada");
    assert_string_equal(plog.style, "(null)");
    /* a description set by the function replaces the prompt's */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/get\",\"params\":"
                         "{\"name\":\"greet\",\"arguments\":{\"name\":\"Bo\",\"style\":"
                         "\"formal\"}}}", "6",
                  "{\"description\":\"A formal greeting\",\"messages\":["
                  "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
                  "\"Greet Bo, formal.\"}},"
                  "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Be brief.\"}},"
                  "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Hello!\"}}]}");
    assert_string_equal(plog.style, "formal");
    /* no description at all: none sent */
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":"
              "{\"name\":\"plain\",\"arguments\":{\"name\":\"Cy\"}}}");
    d = result_only(&f->a, "7");
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d), "/result/description")));
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/result/messages")), 3);
    rig_json_doc_free(d);
    clear(&f->a);
    int calls = plog.calls;

    /* missing required argument, unknown prompt, bad arguments */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\"}}", "8", -32602, "'name'");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\",\"arguments\":{\"style\":\"casual\"}}}", "9", -32602,
                 "'name'");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"nope\"}}", "10", -32602, "nope");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\",\"arguments\":{\"name\":42}}}", "11", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\",\"style\":null}}}",
                 "12", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\",\"arguments\":[\"Ada\"]}}", "13", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"prompts/get\",\"params\":{}}",
                 "14", -32602, "name");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":1}}", "15", -32602, NULL);
    /* an unknown prompt with bad arguments: still -32602 */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"nope\",\"arguments\":{\"a\":1}}}", "16", -32602, NULL);
    assert_int_equal(plog.calls, calls); /* none of those reached the function */
    /* the function refuses (RIG_EINVAL): -32602 with its message */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\",\"style\":\"rude\"}}}",
                 "17", -32602, "style must be formal or casual, not 'rude'");
    /* another failure: -32603 */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"broken\"}}", "18", -32603, "no room for the prompt");
}

static void test_prompts_catalog(void **state)
{
    fixture *f = *state;
    add_prompts(f);
    initialize(&f->a);
    rig_error err;
    rig_error_clear(&err);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "greet",
                                                                        .get = get_greet},
                                               &err),
                     RIG_EEXIST);
    assert_int_equal(err.code, RIG_EEXIST);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "x"}, &err),
                     RIG_EINVAL);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "",
                                                                        .get = get_greet},
                                               &err),
                     RIG_EINVAL);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "x", .n_args = 1,
                                                                        .get = get_greet},
                                               &err),
                     RIG_EINVAL);
    static const rig_mcp_prompt_arg unnamed[] = {{.description = "no name"}};
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "x",
                                                                        .args = unnamed,
                                                                        .n_args = 1,
                                                                        .get = get_greet},
                                               &err),
                     RIG_EINVAL);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, NULL, &err), RIG_EINVAL);
    flush(&f->a);
    assert_int_equal(f->a.n, 0); /* failed adds tell nobody */
    const char *changed = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\","
                          "\"params\":{}}";
    assert_int_equal(rig_mcp_server_remove_prompt(f->s, "plain"), RIG_OK);
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    assert_related(&f->a.msgs[0], NULL);
    assert_int_equal(f->b.n, 0);
    clear(&f->a);
    assert_int_equal(rig_mcp_server_remove_prompt(f->s, "plain"), RIG_ENOENT);
    assert_int_equal(rig_mcp_server_remove_prompt(f->s, NULL), RIG_EINVAL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":"
                        "{\"name\":\"plain\"}}", "1", -32602, NULL);
    assert_int_equal(rig_mcp_server_add_prompt(f->s, &(rig_mcp_prompt){.name = "plain",
                                                                        .get = get_greet,
                                                                        .ud = &plog},
                                               &err),
                     RIG_OK);
    flush(&f->a);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    clear(&f->a);
}

/* ---- completion ------------------------------------------------------------------- */

typedef struct complete_log {
    int calls;
    char ref_type[32], ref[64], arg[32], value[32], ctx_owner[32];
} complete_log;

static complete_log cplog;

static int complete(const char *ref_type, const char *ref, const char *arg, const char *value,
                    const rig_mcp_vars *context, rig_mcp_completion *out, void *ud,
                    rig_error *err)
{
    complete_log *log = ud;
    log->calls++;
    snprintf(log->ref_type, sizeof log->ref_type, "%s", ref_type);
    snprintf(log->ref, sizeof log->ref, "%s", ref);
    snprintf(log->arg, sizeof log->arg, "%s", arg);
    snprintf(log->value, sizeof log->value, "%s", value);
    const char *owner = rig_mcp_var(context, "owner");
    snprintf(log->ctx_owner, sizeof log->ctx_owner, "%s", owner ? owner : "(null)");
    if (strcmp(arg, "style") == 0) {
        static const char *const styles[] = {"casual", "formal", "friendly"};
        for (size_t i = 0; i < 3; i++)
            if (strncmp(styles[i], value, strlen(value)) == 0)
                rig_mcp_completion_add(out, styles[i]);
        return RIG_OK;
    }
    if (strcmp(arg, "many") == 0) {
        for (int i = 0; i < 150; i++) {
            char v[16];
            snprintf(v, sizeof v, "v%03d", i);
            assert_int_equal(rig_mcp_completion_add(out, v), RIG_OK);
        }
        return RIG_OK;
    }
    if (strcmp(arg, "total") == 0) {
        rig_mcp_completion_add(out, "a");
        rig_mcp_completion_add(out, "b");
        assert_int_equal(rig_mcp_completion_add(out, NULL), RIG_EINVAL);
        rig_mcp_completion_total(out, 10, true);
        return RIG_OK;
    }
    if (strcmp(arg, "repo") == 0) {
        char v[64];
        snprintf(v, sizeof v, "%s-hello", owner ? owner : "?");
        rig_mcp_completion_add(out, v);
        return RIG_OK;
    }
    if (strcmp(arg, "bad") == 0)
        return rig_error_set(err, RIG_EINVAL, "bad is not completable");
    return RIG_OK; /* nothing to offer */
}

static rig_json_doc *initialize_result(session *s)
{
    clear(s);
    in(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
          "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}");
    return result_only(s, "0"); /* the doc points into s->msgs: free it, then clear */
}

static void test_completion(void **state)
{
    fixture *f = *state;
    add_prompts(f);
    add_catalog(f);
    memset(&cplog, 0, sizeof cplog);
    rig_mcp_server_set_completion(f->s, complete, &cplog);
    rig_json_doc *d = initialize_result(&f->a);
    rig_json_val caps = rig_json_pointer(rig_json_doc_root(d), "/result/capabilities");
    assert_json(rig_json_get(caps, "completions"), "{}");
    assert_json(rig_json_get(caps, "logging"), "{}");
    assert_json(rig_json_get(caps, "prompts"), "{\"listChanged\":true}");
    assert_json(rig_json_get(caps, "resources"), "{\"subscribe\":true,\"listChanged\":true}");
    assert_json(rig_json_get(caps, "tools"), "{\"listChanged\":true}");
    rig_json_doc_free(d);
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\","
                         "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                         "\"argument\":{\"name\":\"style\",\"value\":\"f\"}}}", "1",
                  "{\"completion\":{\"values\":[\"formal\",\"friendly\"],\"total\":2,"
                  "\"hasMore\":false}}");
    assert_string_equal(cplog.ref_type, "ref/prompt");
    assert_string_equal(cplog.ref, "greet");
    assert_string_equal(cplog.arg, "style");
    assert_string_equal(cplog.value, "f");
    assert_string_equal(cplog.ctx_owner, "(null)");
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\","
                         "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                         "\"argument\":{\"name\":\"style\",\"value\":\"zz\"}}}", "2",
                  "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}");
    /* a template, with the context's arguments */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\","
                         "\"params\":{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
                         "\"repo://{owner}/{repo}/readme\"},\"argument\":{\"name\":\"repo\","
                         "\"value\":\"h\"},\"context\":{\"arguments\":{\"owner\":\"octo\"}}}}",
                  "3", "{\"completion\":{\"values\":[\"octo-hello\"],\"total\":1,"
                       "\"hasMore\":false}}");
    assert_string_equal(cplog.ref_type, "ref/resource");
    assert_string_equal(cplog.ref, "repo://{owner}/{repo}/readme");
    assert_string_equal(cplog.ctx_owner, "octo");
    /* more than 100: capped, counted, hasMore */
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"completion/complete\",\"params\":"
              "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":"
              "{\"name\":\"many\",\"value\":\"\"}}}");
    d = result_only(&f->a, "4");
    rig_json_val c = rig_json_pointer(rig_json_doc_root(d), "/result/completion");
    assert_int_equal(rig_json_len(rig_json_get(c, "values")), 100);
    assert_true(rig_json_str_eq(rig_json_pointer(c, "/values/0"), "v000"));
    assert_true(rig_json_str_eq(rig_json_pointer(c, "/values/99"), "v099"));
    assert_json(rig_json_get(c, "total"), "150");
    assert_json(rig_json_get(c, "hasMore"), "true");
    rig_json_doc_free(d);
    clear(&f->a);
    /* an explicit total */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"completion/complete\","
                         "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                         "\"argument\":{\"name\":\"total\",\"value\":\"\"}}}", "5",
                  "{\"completion\":{\"values\":[\"a\",\"b\"],\"total\":10,\"hasMore\":true}}");
    int calls = cplog.calls;
    /* bad references and arguments */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nope\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"}}}", "6", -32602,
                 "nope");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
                        "\"file:///a.txt\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}}",
                 "7", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/tool\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"}}}", "8", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"}}}", "9", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"style\"}}}", "10", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"}}}",
                 "11", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"},\"context\":"
                        "{\"arguments\":{\"owner\":1}}}}", "12", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"completion/complete\"}",
                 "13", -32602, NULL);
    assert_int_equal(cplog.calls, calls);
    /* the function refuses */
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"bad\",\"value\":\"\"}}}", "14", -32602,
                 "bad is not completable");
}

static void test_completion_absent(void **state)
{
    fixture *f = *state;
    add_prompts(f);
    rig_json_doc *d = initialize_result(&f->a);
    rig_json_val caps = rig_json_pointer(rig_json_doc_root(d), "/result/capabilities");
    assert_true(rig_json_is_object(caps));
    assert_false(rig_json_exists(rig_json_get(caps, "completions")));
    rig_json_doc_free(d);
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"}}}", "1", -32601, NULL);
    /* set, then unset again */
    memset(&cplog, 0, sizeof cplog);
    rig_mcp_server_set_completion(f->s, complete, &cplog);
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\","
                         "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                         "\"argument\":{\"name\":\"style\",\"value\":\"c\"}}}", "2",
                  "{\"completion\":{\"values\":[\"casual\"],\"total\":1,\"hasMore\":false}}");
    rig_mcp_server_set_completion(f->s, NULL, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\","
                        "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                        "\"argument\":{\"name\":\"style\",\"value\":\"\"}}}", "3", -32601, NULL);
    d = initialize_result(&f->b);
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d),
                                                  "/result/capabilities/completions")));
    rig_json_doc_free(d);
    clear(&f->b);
}

/* ---- logging ----------------------------------------------------------------------- */

static void test_set_level(void **state)
{
    fixture *f = *state;
    initialize(&f->a);
    static const char *const levels[] = {"debug", "info", "notice", "warning", "error",
                                         "critical", "alert", "emergency"};
    for (int i = 0; i < 8; i++) {
        char msg[160], id[16];
        snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"logging/setLevel\","
                 "\"params\":{\"level\":\"%s\"}}", i + 1, levels[i]);
        snprintf(id, sizeof id, "%d", i + 1);
        clear(&f->a);
        in(&f->a, msg);
        assert_int_equal(f->a.n, 1);
        char want[80];
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}", i + 1);
        assert_string_equal(f->a.msgs[0].json, want);
        assert_related(&f->a.msgs[0], id);
        assert_true(f->a.msgs[0].final);
    }
    clear(&f->a);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"logging/setLevel\","
                        "\"params\":{\"level\":\"verbose\"}}", "20", -32602, "level");
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"logging/setLevel\","
                        "\"params\":{\"level\":\"INFO\"}}", "21", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"logging/setLevel\","
                        "\"params\":{\"level\":3}}", "22", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"logging/setLevel\","
                        "\"params\":{}}", "23", -32602, NULL);
    expect_error(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":24,\"method\":\"logging/setLevel\"}", "24",
                 -32602, NULL);
    expect_error(&f->b, "{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"logging/setLevel\","
                        "\"params\":{\"level\":\"info\"}}", "25", -32600, NULL);
}

/* Check message i is notifications/message with these params, routed to `related`. */
static void assert_log(session *s, int i, const char *params, const char *related)
{
    rig_json_doc *d = doc_at(s, i);
    rig_json_val r = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_get(r, "method"), "notifications/message"));
    assert_false(rig_json_exists(rig_json_get(r, "id")));
    assert_json(rig_json_get(r, "params"), params);
    assert_related(&s->msgs[i], related);
    assert_false(s->msgs[i].final);
    rig_json_doc_free(d);
}

static void test_tool_logs(void **state)
{
    fixture *f = *state;
    initialize(&f->a);
    /* default level: info; the debug line is dropped */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"logger\"}}");
    wait_final(&f->a);
    assert_int_equal(f->a.n, 3);
    assert_log(&f->a, 0, "{\"level\":\"info\",\"logger\":\"db\",\"data\":{\"rows\":3}}", "41");
    assert_log(&f->a, 1, "{\"level\":\"error\",\"data\":\"failed: disk\"}", "41");
    rig_json_doc *d = doc_at(&f->a, 2);
    assert_true(rig_json_str_eq(rig_json_pointer(rig_json_doc_root(d), "/result/content/0/text"),
                                "logged"));
    rig_json_doc_free(d);
    assert_related(&f->a.msgs[2], "41");
    assert_true(f->a.msgs[2].final);
    clear(&f->a);

    /* at error, only the error line */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"logging/setLevel\","
                         "\"params\":{\"level\":\"error\"}}", "42", "{}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":\"call-43\",\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"logger\"}}");
    wait_final(&f->a);
    assert_int_equal(f->a.n, 2);
    assert_log(&f->a, 0, "{\"level\":\"error\",\"data\":\"failed: disk\"}", "\"call-43\"");
    assert_related(&f->a.msgs[1], "\"call-43\"");
    assert_true(f->a.msgs[1].final);
    clear(&f->a);

    /* at debug, all three */
    expect_result(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"logging/setLevel\","
                         "\"params\":{\"level\":\"debug\"}}", "44", "{}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":45,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"logger\"}}");
    wait_final(&f->a);
    assert_int_equal(f->a.n, 4);
    assert_log(&f->a, 0, "{\"level\":\"debug\",\"data\":\"debug 1\"}", "45");
    assert_log(&f->a, 1, "{\"level\":\"info\",\"logger\":\"db\",\"data\":{\"rows\":3}}", "45");
    assert_log(&f->a, 2, "{\"level\":\"error\",\"data\":\"failed: disk\"}", "45");
    clear(&f->a);
}

static void test_server_log(void **state)
{
    fixture *f = *state;
    initialize(&f->a);
    initialize(&f->b);
    expect_result(&f->b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                         "\"params\":{\"level\":\"error\"}}", "1", "{}");
    rig_mcp_conn *c = rig_mcp_conn_new(f->s, on_send, on_wake, &f->b); /* never initialized */
    assert_non_null(c);
    rig_mcp_server_log(f->s, RIG_LOG_WARNING, "srv", "\"disk low\"");
    flush(&f->a);
    flush(&f->b);
    rig_mcp_conn_flush(c);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json,
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
                        "{\"level\":\"warning\",\"logger\":\"srv\",\"data\":\"disk low\"}}");
    assert_related(&f->a.msgs[0], NULL);
    assert_false(f->a.msgs[0].final);
    assert_int_equal(f->b.n, 0);
    clear(&f->a);
    /* at error both hear; no logger: none sent */
    rig_mcp_server_log(f->s, RIG_LOG_CRITICAL, NULL, "{\"n\":[1,2]}");
    flush(&f->a);
    flush(&f->b);
    rig_mcp_conn_flush(c);
    assert_int_equal(f->a.n, 1);
    assert_int_equal(f->b.n, 1);
    for (int i = 0; i < 2; i++) {
        session *s = i ? &f->b : &f->a;
        assert_log(s, 0, "{\"level\":\"critical\",\"data\":{\"n\":[1,2]}}", NULL);
    }
    clear(&f->a);
    clear(&f->b);
    /* bad input: dropped */
    rig_mcp_server_log(f->s, RIG_LOG_EMERGENCY, NULL, "not json");
    rig_mcp_server_log(f->s, RIG_LOG_EMERGENCY, NULL, NULL);
    rig_mcp_server_log(f->s, (rig_log_level)99, NULL, "1");
    rig_mcp_server_log(f->s, (rig_log_level)-1, NULL, "1");
    rig_mcp_server_log(NULL, RIG_LOG_EMERGENCY, NULL, "1");
    flush(&f->a);
    flush(&f->b);
    rig_mcp_conn_flush(c);
    assert_int_equal(f->a.n, 0);
    assert_int_equal(f->b.n, 0);
    rig_mcp_conn_free(c);
}

/* ---- tools that ask the client -------------------------------------------------- */

/* The request message at index i: checks it and returns its id. */
static int64_t check_ask(session *s, int i, const char *method, const char *related)
{
    rig_json_doc *d = doc_at(s, i);
    rig_json_val r = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_get(r, "jsonrpc"), "2.0"));
    assert_true(rig_json_str_eq(rig_json_get(r, "method"), method));
    assert_json(rig_json_get(r, "params"), ASK_PARAMS);
    rig_json_val id = rig_json_get(r, "id");
    int64_t v = -1;
    if (!rig_json_is_number(id) || rig_json_get_int64(id, &v) != 0)
        fail_msg("the request's id is not an integer: %s", s->msgs[i].json);
    assert_related(&s->msgs[i], related);
    assert_false(s->msgs[i].final);
    assert_false(s->msgs[i].close);
    rig_json_doc_free(d);
    return v;
}

/* The text of the final answer's first block. */
static void assert_final_text(session *s, const char *id, const char *text)
{
    int i = find_final(s);
    if (i < 0)
        fail_msg("no answer sent");
    assert_related(&s->msgs[i], id);
    rig_json_doc *d = doc_at(s, i);
    rig_json_val r = rig_json_doc_root(d);
    assert_json(rig_json_get(r, "id"), id);
    char buf[1200] = "";
    rig_json_str_copy(rig_json_pointer(r, "/result/content/0/text"), buf, sizeof buf, NULL);
    if (strcmp(buf, text) != 0)
        fail_msg("answer text '%s', want '%s'", buf, text);
    rig_json_doc_free(d);
}

static void test_ask_answered(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"sampling\":{},\"roots\":{\"listChanged\":true}}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\"}}");
    wait_method(&f->a, "sampling/createMessage");
    assert_int_equal(f->a.n, 1);
    int64_t ask = check_ask(&f->a, 0, "sampling/createMessage", "7");
    assert_int_equal(rig_mcp_conn_pending(f->a.conn), 1);
    clear(&f->a);
    /* an answer to some other id, and a non-integer id: ignored */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{}}", ask + 1000);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}");
    assert_int_equal(f->a.n, 0);
    assert_int_equal(rig_mcp_conn_pending(f->a.conn), 1);
    /* the answer */
    const char *answer = "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
                         "\"hello\"},\"model\":\"m-1\",\"stopReason\":\"endTurn\"}";
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":%s}", ask, answer);
    assert_int_equal(rec_wait(5000), RIG_OK);
    rig_json_doc *got = parse_ok(rec.msg);
    assert_json(rig_json_doc_root(got), answer);
    rig_json_doc_free(got);
    wait_final(&f->a);
    assert_int_equal(f->a.n, 1);
    assert_true(f->a.msgs[0].final);
    int i = find_final(&f->a);
    rig_json_doc *d = doc_at(&f->a, i);
    rig_json_val text = rig_json_pointer(rig_json_doc_root(d), "/result/content/0/text");
    char buf[512] = "";
    rig_json_str_copy(text, buf, sizeof buf, NULL);
    rig_json_doc *td = parse_ok(buf);
    assert_json(rig_json_doc_root(td), answer);
    rig_json_doc_free(td);
    rig_json_doc_free(d);
    assert_related(&f->a.msgs[0], "7");
    clear(&f->a);
    /* a second ask gets a new id; roots/list is declared too */
    rec_reset();
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\",\"arguments\":{\"method\":\"roots/list\"}}}");
    wait_method(&f->a, "roots/list");
    int64_t ask2 = check_ask(&f->a, 0, "roots/list", "8");
    assert_true(ask2 != ask);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":[]}}", ask2);
    assert_int_equal(rec_wait(5000), RIG_OK);
    wait_final(&f->a);
    assert_final_text(&f->a, "8", "{\"roots\":[]}");
    clear(&f->a);
    /* a late second answer to the same id: ignored */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":[]}}", ask2);
    flush(&f->a);
    assert_int_equal(f->a.n, 0);
}

static void test_ask_error_answer(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"sampling\":{}}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\"}}");
    wait_method(&f->a, "sampling/createMessage");
    int64_t ask = check_ask(&f->a, 0, "sampling/createMessage", "\"e\"");
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"error\":{\"code\":-1,\"message\":"
               "\"User rejected sampling request\"}}", ask);
    assert_int_equal(rec_wait(5000), RIG_EPEER);
    if (!strstr(rec.msg, "User rejected sampling request"))
        fail_msg("the tool's error lacks the client's message: %s", rec.msg);
    wait_final(&f->a);
    assert_int_equal(f->a.n, 1);
    char want[1200];
    snprintf(want, sizeof want, "error %d: %s", RIG_EPEER, rec.msg);
    assert_final_text(&f->a, "\"e\"", want);
}

static void test_ask_not_supported(void **state)
{
    fixture *f = *state;
    initialize(&f->a); /* no capabilities */
    const char *methods[] = {"sampling/createMessage", "elicitation/create", "roots/list",
                             "tools/list"};
    for (int i = 0; i < 4; i++) {
        rec_reset();
        clear(&f->a);
        inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                   "{\"name\":\"asker\",\"arguments\":{\"method\":\"%s\"}}}", 50 + i, methods[i]);
        assert_int_equal(rec_wait(5000), RIG_ENOTSUP);
        assert_true(rec.msg[0] != '\0');
        wait_final(&f->a);
        assert_int_equal(f->a.n, 1); /* the answer only: nothing asked */
        char id[16];
        snprintf(id, sizeof id, "%d", 50 + i);
        assert_related(&f->a.msgs[0], id);
    }
    clear(&f->a);
    /* capabilities that are not objects do not count */
    initialize_with(&f->b, "{\"sampling\":true,\"elicitation\":null}");
    rec_reset();
    in(&f->b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\"}}");
    assert_int_equal(rec_wait(5000), RIG_ENOTSUP);
    wait_final(&f->b);
    assert_int_equal(f->b.n, 1);
}

static void test_ask_cancelled(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"sampling\":{}}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\"}}");
    wait_method(&f->a, "sampling/createMessage");
    int64_t ask = check_ask(&f->a, 0, "sampling/createMessage", "8");
    clear(&f->a);
    int64_t t0 = now_ms();
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
              "{\"requestId\":8,\"reason\":\"user\"}}");
    assert_int_equal(rec_wait(5000), RIG_ECANCELED);
    int64_t took = now_ms() - t0;
    if (took > 1000)
        fail_msg("the tool learned of the cancellation after %" PRId64 " ms", took);
    wait_method(&f->a, "notifications/cancelled");
    /* request 8 gets no answer: its stream is closed as over (a close route
     * with final), and the ask is cancelled towards the client */
    assert_int_equal(f->a.n, 2);
    assert_true(f->a.msgs[0].close);
    assert_true(f->a.msgs[0].final);
    assert_null(f->a.msgs[0].json);
    assert_related(&f->a.msgs[0], "8");
    rig_json_doc *d = doc_at(&f->a, 1);
    rig_json_val r = rig_json_doc_root(d);
    assert_false(rig_json_exists(rig_json_get(r, "id")));
    int64_t rid = -1;
    assert_int_equal(rig_json_get_int64(rig_json_pointer(r, "/params/requestId"), &rid), 0);
    assert_int_equal(rid, ask);
    assert_true(rig_json_str_eq(rig_json_pointer(r, "/params/reason"), "cancelled"));
    rig_json_doc_free(d);
    assert_related(&f->a.msgs[1], "8");
    assert_false(f->a.msgs[1].final);
    clear(&f->a);
    for (int i = 0; i < 500 && rig_mcp_conn_pending(f->a.conn); i++) {
        struct timespec ts = {0, 2 * 1000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(rig_mcp_conn_pending(f->a.conn), 0);
    /* the client's late answer goes nowhere */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{}}", ask);
    flush(&f->a);
    assert_int_equal(f->a.n, 0);
}

static void test_ask_conn_freed(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"elicitation\":{}}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\",\"arguments\":{\"method\":\"elicitation/create\"}}}");
    wait_method(&f->a, "elicitation/create");
    check_ask(&f->a, 0, "elicitation/create", "1");
    clear(&f->a);
    rig_mcp_conn_free(f->a.conn); /* the waiting tool gives up */
    assert_int_equal(rec_wait(5000), RIG_ECANCELED);
    f->a.conn = rig_mcp_conn_new(f->s, on_send, on_wake, &f->a);
    assert_non_null(f->a.conn);
    assert_int_equal(f->a.n, 0);
}

static void test_ask_timeout(void **state)
{
    fixture *f = *state;
    rig_toolset_set_timeout(f->ts, 300);
    initialize_with(&f->a, "{\"sampling\":{}}");
    int64_t t0 = now_ms();
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\"}}");
    wait_method(&f->a, "sampling/createMessage");
    int64_t ask = check_ask(&f->a, 0, "sampling/createMessage", "9");
    int rc = rec_wait(5000);
    int64_t took = now_ms() - t0;
    assert_true(took >= 250);
    if (rc != RIG_ETIMEDOUT)
        fail_msg("the tool got %d (%s: %s), want RIG_ETIMEDOUT", rc, rig_strerror(rc), rec.msg);
    /* the call is answered as timed out, and the ask is withdrawn */
    wait_final(&f->a);
    wait_method(&f->a, "notifications/cancelled");
    int fi = find_final(&f->a);
    rig_json_doc *d = doc_at(&f->a, fi);
    assert_json(rig_json_pointer(rig_json_doc_root(d), "/result/isError"), "true");
    rig_json_doc_free(d);
    int ci = find_method(&f->a, 0, "notifications/cancelled");
    d = doc_at(&f->a, ci);
    int64_t rid = -1;
    assert_int_equal(rig_json_get_int64(rig_json_pointer(rig_json_doc_root(d),
                                                         "/params/requestId"), &rid), 0);
    assert_int_equal(rid, ask);
    assert_true(rig_json_str_eq(rig_json_pointer(rig_json_doc_root(d), "/params/reason"),
                                "timed out"));
    rig_json_doc_free(d);
    assert_related(&f->a.msgs[ci], "9");
}

static bool asked_or_done(session *s, const void *arg)
{
    (void)arg;
    if (find_final(s) >= 0 || find_method(s, 0, "sampling/createMessage") >= 0)
        return true;
    return false;
}

static void test_ask_bad_params(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"sampling\":{}}");
    /* params must be a JSON object: nothing goes to the client otherwise */
    const char *bad[] = {"{", "[1]", "5", "\"text\"", "null"};
    char failures[2000] = "";
    for (int i = 0; i < 5; i++) {
        rec_reset();
        clear(&f->a);
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig_json_write_string(&w, bad[i]);
        size_t len = 0;
        const char *quoted = rig_json_writer_finish(&w, &len);
        inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                   "{\"name\":\"asker\",\"arguments\":{\"params\":%s}}}", 60 + i, quoted);
        rig_json_writer_free(&w);
        pump_until(&f->a, asked_or_done, NULL);
        bool asked = find_method(&f->a, 0, "sampling/createMessage") >= 0;
        if (asked) /* withdraw the call, so the tool stops waiting */
            inf(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                       "\"params\":{\"requestId\":%d}}", 60 + i);
        int rc = rec_wait(5000);
        flush(&f->a); /* what the tool sent before it returned */
        if (rc != RIG_EJSON || f->a.n != 1) {
            size_t used = strlen(failures);
            snprintf(failures + used, sizeof failures - used,
                     "\n  params %s: the tool got %d, %d messages sent (first: %.120s)", bad[i],
                     rc, f->a.n, f->a.n && f->a.msgs[0].json ? f->a.msgs[0].json : "-");
        }
        while (rig_mcp_conn_pending(f->a.conn)) {
            struct timespec ts = {0, 2 * 1000000};
            nanosleep(&ts, NULL);
        }
    }
    if (*failures)
        fail_msg("want RIG_EJSON and nothing asked:%s", failures);
    clear(&f->a);
    /* "" and NULL params mean {} */
    rec_reset();
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":70,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\",\"arguments\":{\"params\":\"\"}}}");
    wait_method(&f->a, "sampling/createMessage");
    rig_json_doc *d = doc_at(&f->a, 0);
    assert_json(rig_json_get(rig_json_doc_root(d), "params"), "{}");
    rig_json_doc_free(d);
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
              "{\"requestId\":70}}");
    assert_int_equal(rec_wait(5000), RIG_ECANCELED);
}

static void test_ask_inline(void **state)
{
    fixture *f = *state;
    initialize_with(&f->a, "{\"sampling\":{}}");
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker_inline\"}}");
    /* an inline tool answers before receive returns */
    assert_int_equal(rec_wait(0 + 1), RIG_ESTATE);
    assert_int_equal(f->a.n, 1);
    assert_true(f->a.msgs[0].final);
    char want[1200];
    snprintf(want, sizeof want, "error %d: %s", RIG_ESTATE, rec.msg);
    assert_final_text(&f->a, "3", want);
    assert_int_equal(find_method(&f->a, 0, "sampling/createMessage"), -1);
}

/* ---- closing a stream --------------------------------------------------------------- */

static void test_close_stream(void **state)
{
    fixture *f = *state;
    initialize(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"closer\"}}");
    wait_final(&f->a);
    assert_int_equal(f->a.n, 2);
    sent *c = &f->a.msgs[0];
    assert_null(c->json);
    assert_true(c->close);
    assert_false(c->final);
    assert_int_equal(c->retry_ms, 1500);
    assert_related(c, "\"c1\"");
    assert_false(f->a.msgs[1].close);
    assert_true(f->a.msgs[1].final);
    assert_final_text(&f->a, "\"c1\"", "closed");
}

/* ---- tools/list_changed ----------------------------------------------------------- */

static void test_tools_list_changed(void **state)
{
    fixture *f = *state;
    rig_json_doc *d = initialize_result(&f->a);
    assert_json(rig_json_pointer(rig_json_doc_root(d), "/result/capabilities/tools"),
                "{\"listChanged\":true}");
    rig_json_doc_free(d);
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    const char *changed = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\","
                          "\"params\":{}}";
    add_tool(f->ts, "noop", noop, 0);
    flush(&f->a);
    flush(&f->b);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    assert_related(&f->a.msgs[0], NULL);
    assert_false(f->a.msgs[0].final);
    assert_int_equal(f->b.n, 0); /* not initialized */
    clear(&f->a);
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    assert_non_null(strstr(f->a.msgs[0].json, "\"name\":\"noop\""));
    clear(&f->a);
    assert_int_equal(rig_toolset_remove(f->ts, "noop"), RIG_OK);
    flush(&f->a);
    assert_int_equal(f->a.n, 1);
    assert_string_equal(f->a.msgs[0].json, changed);
    assert_related(&f->a.msgs[0], NULL);
    clear(&f->a);
    /* a hidden tool is no change to the list */
    add_tool(f->ts, "hidden", noop, RIG_TOOL_HIDDEN);
    assert_int_equal(rig_toolset_remove(f->ts, "hidden"), RIG_OK);
    /* nor is a failed add or remove */
    assert_int_equal(rig_toolset_remove(f->ts, "nope"), RIG_ENOENT);
    rig_tool *dup = rig_tool_new("logger", NULL);
    assert_int_equal(rig_toolset_add(f->ts, dup, NULL), RIG_EEXIST);
    rig_tool_free(dup);
    flush(&f->a);
    assert_int_equal(f->a.n, 0);
    /* after the server is gone, the toolset tells nobody (no crash) */
    session_close(&f->a);
    session_close(&f->b);
    rig_mcp_server_free(f->s);
    f->s = NULL;
    add_tool(f->ts, "after", noop, 0);
    rig_error err;
    f->s = rig_mcp_server_new(f->ts, &(rig_mcp_info){.name = "again"}, &err);
    assert_non_null(f->s);
    session_open(f, &f->a);
    session_open(f, &f->b);
}

/* ---- the client's roots (roots/list sent by the engine) ----------------------------- */

/* What the application's callbacks heard (on the test's own thread: the
 * receiving thread). */
static struct {
    int calls;
    char session[32];
    char paths[8][256];
    size_t n;
    const char *note; /* told back to the client, when set */
    int ends;
    char ended[4][32];
} rl;

static void on_roots(const char *key, const char *const *paths, size_t n, void *ud,
                     rig_error *note)
{
    assert_ptr_equal(ud, &rl);
    assert_non_null(note);
    assert_int_equal(note->message[0], '\0');
    rl.calls++;
    snprintf(rl.session, sizeof rl.session, "%s", key);
    rl.n = n;
    for (size_t i = 0; i < n && i < 8; i++)
        snprintf(rl.paths[i], sizeof rl.paths[i], "%s", paths[i]);
    if (rl.note)
        rig_error_set(note, RIG_EINVAL, "%s", rl.note);
}

static void on_end(const char *key, void *ud)
{
    assert_ptr_equal(ud, &rl);
    if (rl.ends < 4)
        snprintf(rl.ended[rl.ends], sizeof rl.ended[0], "%s", key);
    rl.ends++;
}

static void roots_listen(fixture *f)
{
    memset(&rl, 0, sizeof rl);
    rig_mcp_server_on_roots(f->s, on_roots, &rl);
    rig_mcp_server_on_session_end(f->s, on_end, &rl);
}

/* Message i is rig's roots/list, of no request; its id. */
static int64_t check_roots_ask(session *s, int i)
{
    rig_json_doc *d = doc_at(s, i);
    rig_json_val r = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_get(r, "method"), "roots/list"));
    assert_json(rig_json_get(r, "params"), "{}");
    int64_t id = -1;
    if (rig_json_get_int64(rig_json_get(r, "id"), &id) != 0)
        fail_msg("roots/list without an integer id: %s", s->msgs[i].json);
    assert_related(&s->msgs[i], NULL);
    assert_false(s->msgs[i].final);
    assert_false(s->msgs[i].close);
    rig_json_doc_free(d);
    return id;
}

/* Initialize with `caps`; the number of messages initialized brought. */
static int initialize_counting(session *s, const char *caps)
{
    inf(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
        caps);
    assert_int_equal(s->n, 1);
    clear(s);
    in(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return s->n;
}

/* The data of the one warning queued for flush: must hold each of `want`. */
static void expect_warning(session *s, const char *const *want, size_t n)
{
    flush(s);
    int i = find_method(s, 0, "notifications/message");
    if (i < 0)
        fail_msg("no log message; %d sent", s->n);
    rig_json_doc *d = doc_at(s, i);
    rig_json_val p = rig_json_get(rig_json_doc_root(d), "params");
    assert_true(rig_json_str_eq(rig_json_get(p, "level"), "warning"));
    assert_true(rig_json_str_eq(rig_json_get(p, "logger"), "rig"));
    char data[2048] = "";
    rig_json_str_copy(rig_json_get(p, "data"), data, sizeof data, NULL);
    for (size_t k = 0; k < n; k++)
        if (!strstr(data, want[k]))
            fail_msg("log '%s' lacks '%s'", data, want[k]);
    assert_related(&s->msgs[i], NULL);
    rig_json_doc_free(d);
}

static void test_roots_asked_after_initialized(void **state)
{
    fixture *f = *state;
    roots_listen(f);
    /* A client with roots: asked as it says it is initialized. */
    assert_int_equal(initialize_counting(&f->a, "{\"roots\":{\"listChanged\":true}}"), 1);
    int64_t id = check_roots_ask(&f->a, 0);
    clear(&f->a);
    /* One without: never asked, not even when it says its roots changed. */
    assert_int_equal(initialize_counting(&f->b, "{\"sampling\":{}}"), 0);
    in(&f->b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    assert_int_equal(f->b.n, 0);
    /* An application that does not listen: no client is asked. */
    rig_mcp_server_on_roots(f->s, NULL, NULL);
    session deaf = {0};
    session_open(f, &deaf);
    assert_int_equal(initialize_counting(&deaf, "{\"roots\":{}}"), 0);
    in(&deaf, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    assert_int_equal(deaf.n, 0);
    session_close(&deaf);
    rig_mcp_server_on_roots(f->s, on_roots, &rl);
    /* Before initialize, list_changed asks nothing. */
    session fresh = {0};
    session_open(f, &fresh);
    in(&fresh, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    assert_int_equal(fresh.n, 0);
    const char *key = rig_mcp_conn_session(fresh.conn);
    assert_non_null(key);
    assert_int_equal(strncmp(key, "mcp-", 4), 0);
    char fresh_key[32];
    snprintf(fresh_key, sizeof fresh_key, "%s", key);
    session_close(&fresh);
    assert_int_equal(rl.ends, 2); /* deaf and fresh ended */
    assert_string_equal(rl.ended[1], fresh_key);

    /* The answer: file URIs decoded; others left out, and the client told. */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":["
               "{\"uri\":\"file:///tmp/a%%20b\",\"name\":\"space\"},"
               "{\"uri\":\"https://example.com/repo\"},"
               "{\"uri\":\"file://localhost/srv/%%E2%%9C%%93/x\"},"
               "{\"uri\":\"file://elsewhere/share\"},"
               "{\"uri\":\"FILE:/opt/q?query#frag\"},"
               "{\"uri\":\"file:///bad%%zzescape\"},"
               "{\"uri\":\"file:///nul%%00here\"}]}}",
        id);
    assert_int_equal(rl.calls, 1);
    assert_string_equal(rl.session, rig_mcp_conn_session(f->a.conn));
    assert_int_equal(rl.n, 3);
    assert_string_equal(rl.paths[0], "/tmp/a b");
    assert_string_equal(rl.paths[1], "/srv/\xE2\x9C\x93/x");
    assert_string_equal(rl.paths[2], "/opt/q");
    expect_warning(&f->a, (const char *const[]){"https://example.com/repo", "file://elsewhere/share",
                                               "%zz", "%00"},
                   4);
    clear(&f->a);
    /* The same answer again (a late duplicate): nobody listens for it. */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":[]}}", id);
    assert_int_equal(rl.calls, 1);

    /* The session ends: the application hears of it. */
    char a_key[32];
    snprintf(a_key, sizeof a_key, "%s", rig_mcp_conn_session(f->a.conn));
    session_close(&f->a);
    assert_int_equal(rl.ends, 3);
    assert_string_equal(rl.ended[2], a_key);
    session_open(f, &f->a); /* for teardown */
}

static void test_roots_list_changed(void **state)
{
    fixture *f = *state;
    roots_listen(f);
    assert_int_equal(initialize_counting(&f->a, "{\"roots\":{\"listChanged\":true}}"), 1);
    int64_t id1 = check_roots_ask(&f->a, 0);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///one\"}]}}", id1);
    assert_int_equal(rl.calls, 1);
    assert_string_equal(rl.paths[0], "/one");
    flush(&f->a);
    assert_int_equal(f->a.n, 0); /* nothing to complain of */

    /* list_changed: asked again, with a new id. */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    assert_int_equal(f->a.n, 1);
    int64_t id2 = check_roots_ask(&f->a, 0);
    assert_true(id2 != id1);
    clear(&f->a);
    /* Changed again before answering: only the newest answer counts. */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    int64_t id3 = check_roots_ask(&f->a, 0);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///stale\"}]}}", id2);
    assert_int_equal(rl.calls, 1);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///two\"},{\"uri\":\"file:///three\"}]}}", id3);
    assert_int_equal(rl.calls, 2);
    assert_int_equal(rl.n, 2);
    assert_string_equal(rl.paths[0], "/two");
    assert_string_equal(rl.paths[1], "/three");
    /* No roots at all is an answer too (the application decides). */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    int64_t id4 = check_roots_ask(&f->a, 0);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":[]}}", id4);
    assert_int_equal(rl.calls, 3);
    assert_int_equal(rl.n, 0);
    /* What the application notes reaches the client. */
    rl.note = "Root '/gone' skipped: no such directory.";
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    int64_t id5 = check_roots_ask(&f->a, 0);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///gone\"}]}}", id5);
    assert_int_equal(rl.calls, 4);
    expect_warning(&f->a, (const char *const[]){"'/gone' skipped"}, 1);
    clear(&f->a);
    /* The other session was never asked. */
    assert_int_equal(f->b.n, 0);
}

static void test_roots_bad_answers_keep_roots(void **state)
{
    fixture *f = *state;
    roots_listen(f);
    assert_int_equal(initialize_counting(&f->a, "{\"roots\":{}}"), 1);
    int64_t id = check_roots_ask(&f->a, 0);
    clear(&f->a);
    /* An error answer: the application hears nothing; the client is told. */
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"error\":{\"code\":-32601,"
               "\"message\":\"no roots here\"}}", id);
    assert_int_equal(rl.calls, 0);
    expect_warning(&f->a, (const char *const[]){"no roots here", "-32601", "keeps"}, 3);
    clear(&f->a);
    /* Malformed answers, each to a fresh ask. */
    static const char *const bad[] = {
        "{}",
        "{\"roots\":\"file:///x\"}",
        "{\"roots\":[{\"name\":\"no uri\"}]}",
        "{\"roots\":[{\"uri\":\"file:///ok\"},{\"uri\":7}]}",
        "{\"roots\":[\"file:///x\"]}",
        "[]",
        "\"roots\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
        id = check_roots_ask(&f->a, 0);
        clear(&f->a);
        inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":%s}", id, bad[i]);
        if (rl.calls != 0)
            fail_msg("answer %s reached the application", bad[i]);
        expect_warning(&f->a, (const char *const[]){"Ignored the client's roots", "keeps"}, 2);
        clear(&f->a);
    }
    /* A good answer after all that still counts. */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    id = check_roots_ask(&f->a, 0);
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///fine\",\"name\":\"n\",\"_meta\":{}}]}}", id);
    assert_int_equal(rl.calls, 1);
    assert_string_equal(rl.paths[0], "/fine");
    /* A tool's own roots/list (rig_call_ask) is still the tool's: the
     * application hears nothing of it. */
    in(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"asker\",\"arguments\":{\"method\":\"roots/list\"}}}");
    wait_method(&f->a, "roots/list");
    int i = find_method(&f->a, 0, "roots/list");
    rig_json_doc *d = doc_at(&f->a, i);
    int64_t ask = -1;
    rig_json_get_int64(rig_json_get(rig_json_doc_root(d), "id"), &ask);
    rig_json_doc_free(d);
    assert_related(&f->a.msgs[i], "9");
    clear(&f->a);
    inf(&f->a, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"result\":{\"roots\":"
               "[{\"uri\":\"file:///tool\"}]}}", ask);
    assert_int_equal(rec_wait(5000), RIG_OK);
    wait_final(&f->a);
    assert_int_equal(rl.calls, 1);
    clear(&f->a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_resources_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources_add_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources_list_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscribe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompts_catalog, setup, teardown),
        cmocka_unit_test_setup_teardown(test_completion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_completion_absent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tool_logs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_error_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_not_supported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_cancelled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_conn_freed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_bad_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_inline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools_list_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roots_asked_after_initialized, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roots_list_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roots_bad_answers_keep_roots, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
