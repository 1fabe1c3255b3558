/* test_mcp_server.c — the MCP protocol engine without a transport: each
 * message goes in through rig_mcp_conn_receive, and what the engine sends
 * is captured and checked. Bad envelopes, the lifecycle, paging, calls
 * answered now and later, cancellation, progress. */
#include <pthread.h>
#include <time.h>

#include "testing.h"

typedef struct capture {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *msgs[64];
    int n;
    int wakes;
    bool fail_send;
} capture;

static int on_send(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    if (route && route->close)
        return 0;
    capture *c = ud;
    if (c->fail_send)
        return -1;
    pthread_mutex_lock(&c->mu);
    assert_true(c->n < 64);
    c->msgs[c->n] = strndup(json, len);
    c->n++;
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static void on_wake(void *ud)
{
    capture *c = ud;
    pthread_mutex_lock(&c->mu);
    c->wakes++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void clear(capture *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->msgs[i]);
    c->n = 0;
}

typedef struct fixture {
    rig_toolset *ts;
    rig_mcp_server *s;
    rig_mcp_conn *conn;
    capture cap;
} fixture;

static rig_result *slow(rig_call *call)
{
    int rc = rig_call_sleep(call, rig_call_int(call, "ms", 10000));
    return rc ? rig_result_error("stopped: %s", rig_strerror(rc))
              : rig_result_content("slept", NULL, NULL);
}

static rig_result *steps(rig_call *call)
{
    for (int i = 1; i <= 3; i++)
        rig_call_progress(call, i, 3, i == 3 ? "done" : NULL);
    rig_call_progress(call, 2, 3, NULL); /* not increasing: dropped */
    return rig_result_content("three steps", NULL, NULL);
}

static void add_tool(rig_toolset *ts, const char *name, rig_tool_fn fn, unsigned flags)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    rig_tool_set_executor(t, fn, NULL, NULL);
    rig_tool_set_flags(t, flags);
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->cap.mu, NULL);
    pthread_cond_init(&f->cap.cv, NULL);
    f->ts = rig_toolset_new();
    rig_registry *reg = rig_registry_new();
    rig_error err;
    assert_int_equal(rig_registry_add_builtins(reg, &err), RIG_OK);
    assert_int_equal(rig_registry_resolve(reg, "default", NULL, 0, f->ts, &err), RIG_OK);
    rig_registry_free(reg);
    add_tool(f->ts, "slow", slow, 0);
    add_tool(f->ts, "steps", steps, 0);
    rig_mcp_info info = {.name = "rig-test", .version = "9.9", .instructions = "Use the tools."};
    f->s = rig_mcp_server_new(f->ts, &info, &err);
    assert_non_null(f->s);
    f->conn = rig_mcp_conn_new(f->s, on_send, on_wake, &f->cap);
    assert_non_null(f->conn);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rig_mcp_conn_free(f->conn);
    rig_mcp_server_free(f->s);
    rig_toolset_free(f->ts);
    clear(&f->cap);
    free(f);
    return 0;
}

static void in(fixture *f, const char *msg)
{
    assert_int_equal(rig_mcp_conn_receive(f->conn, msg, strlen(msg)), 0);
}

static void initialize(fixture *f)
{
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
          "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
          "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    clear(&f->cap);
}

/* The one message sent, parsed. */
static rig_json_doc *only(fixture *f)
{
    if (f->cap.n != 1)
        fail_msg("%d messages sent, want 1", f->cap.n);
    return parse_ok(f->cap.msgs[0]);
}

static void expect_error(fixture *f, const char *msg, const char *id_json, int code)
{
    clear(&f->cap);
    in(f, msg);
    rig_json_doc *d = only(f);
    rig_json_val r = rig_json_doc_root(d);
    size_t n;
    const char *id = rig_json_raw(rig_json_get(r, "id"), &n);
    int64_t got = 0;
    rig_json_get_int64(rig_json_pointer(r, "/error/code"), &got);
    if (got != code || n != strlen(id_json) || memcmp(id, id_json, n) != 0)
        fail_msg("%s: got %s", msg, f->cap.msgs[0]);
    assert_true(rig_json_str_eq(rig_json_get(r, "jsonrpc"), "2.0"));
    rig_json_doc_free(d);
    clear(&f->cap);
}

static void test_bad_envelopes(void **state)
{
    fixture *f = *state;
    expect_error(f, "{\"jsonrpc\":", "null", -32700);
    expect_error(f, "\xff", "null", -32700);
    expect_error(f, "[]", "null", -32600);
    expect_error(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "null", -32600);
    expect_error(f, "\"x\"", "null", -32600);
    expect_error(f, "{\"id\":1,\"method\":\"ping\"}", "1", -32600);
    expect_error(f, "{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"ping\"}", "\"a\"", -32600);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", "null", -32600);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", "null", -32600);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":7}", "2", -32600);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":[]}", "3", -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":4}", "4", -32600);
    /* before initialize, only initialize and ping */
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}", "5", -32600);
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
    assert_string_equal(f->cap.msgs[0], "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}");
    clear(&f->cap);
    /* 10^5-deep nesting: a parse error, and the session goes on */
    size_t depth = 100000;
    char *deep = malloc(depth * 2 + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    expect_error(f, deep, "null", -32700);
    free(deep);
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
    assert_int_equal(f->cap.n, 1);
    clear(&f->cap);
    /* notifications and responses are not answered */
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}");
    assert_int_equal(f->cap.n, 0);
}

static void test_initialize(void **state)
{
    fixture *f = *state;
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}", "1",
                 -32602);
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\",\"params\":"
          "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}");
    rig_json_doc *d = only(f);
    rig_json_val r = rig_json_get(rig_json_doc_root(d), "result");
    assert_true(rig_json_str_eq(rig_json_get(r, "protocolVersion"), "2025-06-18"));
    assert_true(rig_json_str_eq(rig_json_pointer(r, "/serverInfo/name"), "rig-test"));
    assert_true(rig_json_str_eq(rig_json_pointer(r, "/serverInfo/version"), "9.9"));
    assert_true(rig_json_str_eq(rig_json_get(r, "instructions"), "Use the tools."));
    assert_true(rig_json_is_object(rig_json_pointer(r, "/capabilities/tools")));
    rig_json_doc_free(d);
    clear(&f->cap);
    /* an unknown version gets the latest */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":"
          "{\"protocolVersion\":\"1999-01-01\"}}");
    d = only(f);
    assert_true(rig_json_str_eq(rig_json_pointer(rig_json_doc_root(d), "/result/protocolVersion"),
                                RIG_MCP_LATEST_VERSION));
    rig_json_doc_free(d);
    clear(&f->cap);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}", "3", -32601);
}

static void test_tools_list_pages(void **state)
{
    fixture *f = *state;
    initialize(f);
    rig_mcp_server_set_page_size(f->s, 3);
    char cursor[64] = "";
    int seen = 0, pages = 0;
    for (;;) {
        char msg[200];
        if (*cursor)
            snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\","
                     "\"params\":{\"cursor\":\"%s\"}}", pages, cursor);
        else
            snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}",
                     pages);
        in(f, msg);
        rig_json_doc *d = only(f);
        rig_json_val r = rig_json_get(rig_json_doc_root(d), "result");
        rig_json_val tools = rig_json_get(r, "tools");
        assert_true(rig_json_len(tools) <= 3);
        seen += (int)rig_json_len(tools);
        if (pages == 0)
            assert_true(rig_json_str_eq(rig_json_pointer(tools, "/0/name"), "think"));
        assert_true(rig_json_is_object(rig_json_pointer(tools, "/0/inputSchema")));
        pages++;
        rig_json_val next = rig_json_get(r, "nextCursor");
        if (!rig_json_exists(next)) {
            rig_json_doc_free(d);
            clear(&f->cap);
            break;
        }
        rig_json_str_copy(next, cursor, sizeof cursor, NULL);
        rig_json_doc_free(d);
        clear(&f->cap);
    }
    assert_int_equal(seen, 8); /* six built-ins, slow, steps */
    assert_int_equal(pages, 3);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":"
                    "{\"cursor\":\"bogus\"}}", "9", -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":"
                    "{\"cursor\":\"rig-page-999\"}}", "9", -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":"
                    "{\"cursor\":7}}", "9", -32602);
}

/* Wait until something was queued, then flush it. */
static void wait_and_flush(fixture *f, int msgs)
{
    for (int tries = 0; tries < 1000 && f->cap.n < msgs; tries++) {
        pthread_mutex_lock(&f->cap.mu);
        if (!f->cap.wakes) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&f->cap.cv, &f->cap.mu, &ts);
        }
        f->cap.wakes = 0;
        pthread_mutex_unlock(&f->cap.mu);
        rig_mcp_conn_flush(f->conn);
    }
}

static void test_tools_call(void **state)
{
    fixture *f = *state;
    initialize(f);
    /* an inline tool answers before receive returns */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
          "\"get_current_time\",\"arguments\":{\"timezone\":\"UTC\"}}}");
    rig_json_doc *d = only(f);
    rig_json_val r = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_pointer(r, "/result/structuredContent/timezone"), "UTC"));
    rig_json_doc_free(d);
    clear(&f->cap);
    /* a pooled one answers through wake + flush */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{\"name\":"
          "\"slow\",\"arguments\":{\"ms\":20}}}");
    wait_and_flush(f, 1);
    d = only(f);
    assert_true(rig_json_str_eq(rig_json_pointer(rig_json_doc_root(d), "/result/content/0/text"),
                                "slept"));
    assert_true(rig_json_str_eq(rig_json_get(rig_json_doc_root(d), "id"), "s"));
    rig_json_doc_free(d);
    clear(&f->cap);
    /* a validation failure is a tool result with isError */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
          "\"sleep\",\"arguments\":{\"seconds\":\"soon\"}}}");
    wait_and_flush(f, 1);
    d = only(f);
    r = rig_json_get(rig_json_doc_root(d), "result");
    bool is_error = false;
    rig_json_get_bool(rig_json_get(r, "isError"), &is_error);
    assert_true(is_error);
    rig_json_doc_free(d);
    clear(&f->cap);
    /* protocol errors */
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"nope\"}}", "3", -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"think\\u0000x\"}}", "3", -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}}", "3",
                 -32602);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"finish\",\"arguments\":[1]}}", "3", -32602);
}

static void test_cancel_and_duplicates(void **state)
{
    fixture *f = *state;
    initialize(f);
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    assert_int_equal(rig_mcp_conn_pending(f->conn), 1);
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"slow\"}}", "10", -32600);
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
          "{\"requestId\":10,\"reason\":\"user\"}}");
    for (int i = 0; i < 500 && rig_mcp_conn_pending(f->conn); i++) {
        struct timespec ts = {0, 2 * 1000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(rig_mcp_conn_pending(f->conn), 0);
    rig_mcp_conn_flush(f->conn);
    assert_int_equal(f->cap.n, 0); /* no answer to a cancelled request */
    /* a progress token in use by a running call is refused */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":"
          "\"slow\",\"_meta\":{\"progressToken\":\"t\"}}}");
    expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"slow\",\"_meta\":{\"progressToken\":\"t\"}}}", "13", -32602);
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
          "{\"requestId\":11}}");
    for (int i = 0; i < 500 && rig_mcp_conn_pending(f->conn); i++) {
        struct timespec ts = {0, 2 * 1000000};
        nanosleep(&ts, NULL);
    }
    /* cancelling what is not running is harmless */
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
          "{\"requestId\":12345}}");
    in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}");
    assert_int_equal(f->cap.n, 0);
}

static void test_progress(void **state)
{
    fixture *f = *state;
    initialize(f);
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/call\",\"params\":{\"name\":\"steps\","
          "\"_meta\":{\"progressToken\":\"tok\"}}}");
    wait_and_flush(f, 4);
    assert_int_equal(f->cap.n, 4);
    for (int i = 0; i < 3; i++) {
        rig_json_doc *d = parse_ok(f->cap.msgs[i]);
        rig_json_val r = rig_json_doc_root(d);
        assert_true(rig_json_str_eq(rig_json_get(r, "method"), "notifications/progress"));
        assert_true(rig_json_str_eq(rig_json_pointer(r, "/params/progressToken"), "tok"));
        int64_t p = 0;
        rig_json_get_int64(rig_json_pointer(r, "/params/progress"), &p);
        assert_int_equal(p, i + 1);
        rig_json_doc_free(d);
    }
    assert_non_null(strstr(f->cap.msgs[2], "\"message\":\"done\""));
    assert_non_null(strstr(f->cap.msgs[3], "three steps"));
    clear(&f->cap);
    /* without a token, no progress is sent */
    in(f, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"steps\"}}");
    wait_and_flush(f, 1);
    assert_int_equal(f->cap.n, 1);
    assert_non_null(strstr(f->cap.msgs[0], "three steps"));
}

static void test_free_with_calls_running(void **state)
{
    fixture *f = *state;
    initialize(f);
    for (int i = 0; i < 5; i++) {
        char msg[160];
        snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"slow\",\"_meta\":{\"progressToken\":%d}}}", 100 + i, i);
        in(f, msg);
    }
    assert_int_equal(rig_mcp_conn_pending(f->conn), 5);
    rig_mcp_conn_free(f->conn); /* the calls are cancelled; their answers dropped */
    f->conn = rig_mcp_conn_new(f->s, on_send, on_wake, &f->cap);
    assert_non_null(f->conn);
}

static void test_dead_peer(void **state)
{
    fixture *f = *state;
    f->cap.fail_send = true;
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    assert_int_not_equal(rig_mcp_conn_receive(f->conn, ping, strlen(ping)), 0);
    assert_int_not_equal(rig_mcp_conn_flush(f->conn), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_envelopes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initialize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools_list_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_with_calls_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_peer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
