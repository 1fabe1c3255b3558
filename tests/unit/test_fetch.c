/* test_fetch.c — fetch's guard from the inside (src/tools/web_get.c,
 * fetch.c, web.c), against tests/integration/http_fixture.mjs started here
 * on 127.0.0.1: DNS rebinding (a public-looking name made to resolve to
 * loopback is refused at connect, though it is no IP address; allowlisted,
 * the same name reaches the server, so the refusal was the guard's), a
 * redirect from an allowlisted name to another name that resolves to
 * loopback, host normalization, the redirect rule, the size cap,
 * cancellation and the deadline stopping a transfer promptly, and the
 * family's configuration. tests/cli/test_fetch.sh has the rest. */
#define _GNU_SOURCE
#include "builtin_testing.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/web.h"

extern char **environ;

static pid_t fixture_pid;
static int port;

static int start_fixture(void **state) {
    (void)state;
    const char *data = getenv("RIG_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/../integration/http_fixture.mjs", data ? data : "tests/data");
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {"node", path, NULL};
    int rc = posix_spawnp(&fixture_pid, "node", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        fixture_pid = 0;
        return 0; /* no node: the tests that need the server skip */
    }
    char line[32] = "";
    size_t n = 0;
    while (n + 1 < sizeof line && read(fds[0], line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = '\0';
    close(fds[0]);
    port = atoi(line);
    return 0;
}

static int stop_fixture(void **state) {
    (void)state;
    if (fixture_pid > 0) {
        kill(fixture_pid, SIGTERM);
        waitpid(fixture_pid, NULL, 0);
    }
    return 0;
}

#define NEED_SERVER()                                                                     \
    do {                                                                                  \
        if (port <= 0)                                                                    \
            skip();                                                                       \
    } while (0)

/* A toolset with the web tools configured by `o`. */
static rig_toolset *web_toolset(const rig_web_opts *o) {
    rig_toolset *ts = rig_toolset_new();
    assert_non_null(ts);
    rig_error err;
    if (rig_web_tools_add(ts, o, &err) != RIG_OK)
        fail_msg("rig_web_tools_add: %s", err.message);
    return ts;
}

static rig_result *fetch(rig_toolset *ts, const char *url, rig_error *err) {
    char args[1024];
    snprintf(args, sizeof args, "{\"url\":\"%s\"}", url);
    return call_in(ts, "fetch", NULL, args, err);
}

/* ---- host normalization and the redirect rule -------------------------- */

static void test_host_norm(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"127.1", "127.0.0.1"},       {"2130706433", "127.0.0.1"}, {"0x7f.0.0.1", "127.0.0.1"},
        {"0177.0.0.1", "127.0.0.1"},  {"LOCALHOST", "localhost"},  {"Example.COM.", "example.com"},
        {"[::1]", "::1"},             {"::1", "::1"},              {"[FC00::1]", "fc00::1"},
        {"wiki.internal", "wiki.internal"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = rig__web_host_norm(cases[i][0]);
        assert_non_null(got);
        if (strcmp(got, cases[i][1]) != 0)
            fail_msg("%s normalized to %s, not %s", cases[i][0], got, cases[i][1]);
        free(got);
    }
}

static void test_redirect_rule(void **state) {
    (void)state;
    assert_null(rig__redirect_refused("http", "https"));
    assert_null(rig__redirect_refused("http", "http"));
    assert_null(rig__redirect_refused("https", "https"));
    assert_null(rig__redirect_refused("HTTPS", "HTTPS"));
    assert_non_null(rig__redirect_refused("https", "http")); /* no downgrade */
    assert_non_null(rig__redirect_refused("http", "file"));
    assert_non_null(rig__redirect_refused("http", "gopher"));
    assert_non_null(rig__redirect_refused("http", "ftp"));
    assert_non_null(rig__redirect_refused("http", NULL));
}

/* ---- DNS rebinding: the check is on the address connected to ----------- */

static void test_rebinding_name_to_loopback(void **state) {
    (void)state;
    NEED_SERVER();
    char e1[128], e2[128], url[256];
    snprintf(e1, sizeof e1, "news.example.com:%d:127.0.0.1", port);
    snprintf(e2, sizeof e2, "v6.example.com:%d:[::1]", port);
    const char *entries[] = {e1, e2, NULL};
    rig__web_test_resolve(entries);

    /* Not allowlisted: refused at connect, naming the address it got. */
    rig_toolset *ts = web_toolset(NULL);
    rig_error err;
    snprintf(url, sizeof url, "http://news.example.com:%d/text", port);
    rig_result *r = fetch(ts, url, &err);
    char *t = text_of(r);
    assert_true(rig_result_is_error(r));
    assert_contains(t, "Refused to connect to news.example.com");
    assert_contains(t, "127.0.0.1 is loopback");
    free(t);
    rig_result_free(r);
    snprintf(url, sizeof url, "http://v6.example.com:%d/text", port);
    r = fetch(ts, url, &err);
    t = text_of(r);
    assert_true(rig_result_is_error(r));
    assert_contains(t, "::1 is loopback");
    free(t);
    rig_result_free(r);
    rig_toolset_free(ts);

    /* Allowlisted by name: the same name reaches the server, so the refusal
     * above was the guard, not a missing server. */
    const char *hosts[] = {"news.example.com", NULL};
    rig_web_opts o = {.allow_hosts = hosts};
    ts = web_toolset(&o);
    snprintf(url, sizeof url, "http://news.example.com:%d/text", port);
    r = fetch(ts, url, &err);
    t = text_of(r);
    assert_false(rig_result_is_error(r));
    assert_contains(t, "héllo wörld");
    free(t);
    rig_result_free(r);
    rig_toolset_free(ts);
    rig__web_test_resolve(NULL);
}

static void test_rebinding_after_redirect(void **state) {
    (void)state;
    NEED_SERVER();
    char e1[128], e2[128], url[512];
    snprintf(e1, sizeof e1, "a.example.com:%d:127.0.0.1", port);
    snprintf(e2, sizeof e2, "b.example.com:%d:127.0.0.1", port);
    const char *entries[] = {e1, e2, NULL};
    rig__web_test_resolve(entries);
    const char *hosts[] = {"a.example.com", NULL};
    rig_web_opts o = {.allow_hosts = hosts};
    rig_toolset *ts = web_toolset(&o);
    snprintf(url, sizeof url, "http://a.example.com:%d/redirect-to?url=http://b.example.com:%d/text",
             port, port);
    rig_error err;
    rig_result *r = fetch(ts, url, &err);
    char *t = text_of(r);
    assert_true(rig_result_is_error(r));
    assert_contains(t, "Refused to connect to b.example.com (reached by a redirect)");
    assert_contains(t, "loopback");
    free(t);
    rig_result_free(r);
    rig_toolset_free(ts);
    rig__web_test_resolve(NULL);
}

/* ---- the GET itself -------------------------------------------------------- */

static void test_cap(void **state) {
    (void)state;
    NEED_SERVER();
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/big", port);
    rig__http_req req = {.url = url, .timeout_ms = 10000};
    rig__http_resp resp;
    rig__buf why = {0};
    rig__web web = {.allow_hosts = (char *[]){"127.0.0.1"}, .n_allow = 1, .max_bytes = 1000};
    assert_int_equal(rig__web_get(&web, &req, &resp, &why), RIG__HTTP_OK);
    assert_true(resp.capped);
    assert_int_equal(resp.len, 1000);
    assert_int_equal(resp.status, 200);
    rig__http_resp_free(&resp);
    /* Not allowlisted: the same GET is refused, and says so. */
    web.n_allow = 0;
    assert_int_equal(rig__web_get(&web, &req, &resp, &why), RIG__HTTP_BLOCKED);
    assert_contains(why.p, "loopback");
    rig__buf_free(&why);
}

typedef struct done_box {
    int status;
    bool done;
    double at;
} done_box;

static void on_done(rig_result *r, int status, void *ud) {
    done_box *b = ud;
    b->status = status;
    b->at = now_s();
    __atomic_store_n(&b->done, true, __ATOMIC_RELEASE);
    rig_result_free(r);
}

/* A cancelled fetch stops its transfer promptly: freeing the toolset waits
 * for the running tool, and comes well before the slow body would end. */
static void test_cancel(void **state) {
    (void)state;
    NEED_SERVER();
    const char *hosts[] = {"127.0.0.1", NULL};
    rig_web_opts o = {.allow_hosts = hosts};
    rig_toolset *ts = web_toolset(&o);
    char args[128];
    snprintf(args, sizeof args, "{\"url\":\"http://127.0.0.1:%d/slow\"}", port);
    done_box box = {0};
    rig_call_opts opts = {0};
    rig_job *job = rig_toolset_submit(ts, "fetch", args, strlen(args), &opts, on_done, &box);
    assert_non_null(job);
    usleep(300 * 1000);
    double t0 = now_s();
    rig_job_cancel(job);
    rig_job_release(job);
    rig_toolset_free(ts); /* waits for the tool to return */
    double took = now_s() - t0;
    assert_true(__atomic_load_n(&box.done, __ATOMIC_ACQUIRE));
    assert_int_equal(box.status, RIG_ECANCELED);
    if (took > 2.5)
        fail_msg("the fetch went on %.2f s after its cancellation", took);
}

static void test_deadline(void **state) {
    (void)state;
    NEED_SERVER();
    const char *hosts[] = {"127.0.0.1", NULL};
    rig_web_opts o = {.allow_hosts = hosts};
    rig_toolset *ts = web_toolset(&o);
    char args[128];
    snprintf(args, sizeof args, "{\"url\":\"http://127.0.0.1:%d/hang\"}", port);
    rig_call_opts opts = {.timeout_ms = 700};
    double t0 = now_s();
    rig_error err;
    rig_result *r = rig_toolset_call(ts, "fetch", args, strlen(args), &opts, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    rig_toolset_free(ts);
    double took = now_s() - t0;
    if (took > 2.5)
        fail_msg("a 0.7 s deadline took %.2f s to stop the fetch", took);
}

/* ---- the family ---------------------------------------------------------------- */

static void test_config(void **state) {
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    rig_web_opts sx = {.search = RIG_SEARCH_SEARXNG};
    assert_int_equal(rig_web_tools_add(ts, &sx, &err), RIG_EINVAL);
    assert_contains(err.message, "SearXNG");
    rig_web_opts br = {.search = RIG_SEARCH_BRAVE};
    assert_int_equal(rig_web_tools_add(ts, &br, &err), RIG_EINVAL);
    assert_contains(err.message, "API key");
    const char *bad[] = {"http://x/", NULL};
    rig_web_opts o = {.allow_hosts = bad};
    assert_int_equal(rig_web_tools_add(ts, &o, &err), RIG_EINVAL);
    assert_int_equal(rig_toolset_count(ts), 0);

    assert_int_equal(rig_web_tools_add(ts, NULL, &err), RIG_OK);
    assert_int_equal(rig_web_tools_add(ts, NULL, &err), RIG_EEXIST);
    const char *names[] = {"fetch", "web_search"};
    for (size_t i = 0; i < 2; i++) {
        rig_tool *t = rig_toolset_get(ts, names[i]);
        assert_non_null(t);
        assert_true(rig_tool_read_only(t));
        assert_true(rig_tool_open_world(t));
        assert_false(rig_tool_destructive(t));
        assert_non_null(rig_tool_output_schema(t));
    }
    rig_result *r = call_in(ts, "web_search", NULL, "{\"query\":\"x\"}", NULL);
    char *t = text_of(r);
    assert_true(rig_result_is_error(r));
    assert_contains(t, "no search provider configured");
    free(t);
    rig_result_free(r);
    rig_toolset_free(ts);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_norm),
        cmocka_unit_test(test_redirect_rule),
        cmocka_unit_test(test_rebinding_name_to_loopback),
        cmocka_unit_test(test_rebinding_after_redirect),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, start_fixture, stop_fixture);
}
