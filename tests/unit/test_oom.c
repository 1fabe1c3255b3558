/* test_oom.c — out of memory at every allocation, SQLite style.
 *
 * The test links with -Wl,--wrap=malloc,calloc,realloc, so every
 * allocation librig makes goes through the wrappers below, which can fail
 * the Nth one. Each scenario runs with N = 1, 2, 3, ... until it completes
 * without an injected failure; at each step it must not crash, must return
 * an answer (an error result is fine), and must not leak (ASan and valgrind
 * check the last part). Allocations inside libc (strdup, vsnprintf) are not
 * wrapped and never fail here. */
#include <stdatomic.h>

#include "testing.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static atomic_long countdown = -1; /* < 0: never fail */
static atomic_long failed;

/* Fail this allocation if the countdown reaches zero on it. */
static int should_fail(void)
{
    long left = atomic_load(&countdown);
    while (left > 0 && !atomic_compare_exchange_weak(&countdown, &left, left - 1))
        ;
    if (left == 1) {
        atomic_fetch_add(&failed, 1);
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

/* Run `scenario` with the Nth allocation failing, for every N until a run
 * sees no failure. Returns how many runs it took. */
static long every_failure(void (*scenario)(void))
{
    for (long n = 1; n < 100000; n++) {
        atomic_store(&failed, 0);
        atomic_store(&countdown, n);
        scenario();
        atomic_store(&countdown, -1);
        if (atomic_load(&failed) == 0)
            return n;
    }
    fail_msg("scenario never completed without a failure");
    return 0;
}

/* ---- scenarios ---- */

static rig_result *echo(rig_call *call)
{
    rig_result *r = rig_result_new();
    rig_result_textf(r, "path=%s count=%lld", rig_call_str(call, "path", NULL) ?: "-",
                     (long long)rig_call_int(call, "count", -1));
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "ok");
        rig_json_write_bool(w, true);
        rig_json_write_object_end(w);
        rig_result_structured_end(r);
    }
    return r;
}

static const char schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"pattern\":\"^[a-z/.]+$\"},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"default\":10},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true},"
    "\"mode\":{\"enum\":[\"a\",\"b\"]}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}";

static int blocker(rig_call *c, rig_json_val args, char **replace, void *ud, rig_error *e)
{
    (void)c, (void)ud;
    if (rig_json_str_eq(rig_json_get(args, "mode"), "b"))
        return rig_error_set(e, RIG_EBLOCKED, "mode b is blocked");
    *replace = NULL;
    return RIG_OK;
}

static void call_path(void)
{
    rig_error err;
    rig_toolset *ts = rig_toolset_new();
    if (!ts)
        return;
    rig_tool *t = rig_tool_new("echo", &err);
    if (!t) {
        rig_toolset_free(ts);
        return;
    }
    if (rig_tool_set_input_schema(t, schema, sizeof schema - 1, &err) != RIG_OK ||
        rig_tool_before(t, blocker, NULL) != RIG_OK) {
        rig_tool_free(t);
        rig_toolset_free(ts);
        return;
    }
    rig_tool_set_executor(t, echo, NULL, NULL);
    rig_tool_set_flags(t, RIG_TOOL_INLINE);
    if (rig_toolset_add(ts, t, &err) != RIG_OK) {
        rig_tool_free(t);
        rig_toolset_free(ts);
        return;
    }
    const char *calls[] = {
        "{\"path\":\"a/b.c\",\"count\":3}",
        "{\"path\":\"a/b.c\",\"count\":\"7\",\"tags\":\"[\\\"x\\\",\\\"y\\\"]\"}", /* coercions */
        "{\"path\":\"a/b.c\",\"mode\":\"b\"}",                                    /* blocked */
        "{\"path\":\"A\"}",                                                       /* invalid */
        "{\"security_risk\":\"LOW\",\"summary\":\"s\",\"path\":\"x\"}",           /* stripped */
        "[1",                                                                     /* not JSON */
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        rig_result *r = rig_toolset_call(ts, "echo", calls[i], strlen(calls[i]), NULL, &err);
        assert_non_null(r); /* always an answer */
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig_result_write(r, &w);
        rig_json_writer_free(&w);
        rig_result_free(r);
    }
    rig_result *r = rig_toolset_call(ts, "missing", "{}", 2, NULL, &err);
    assert_non_null(r);
    rig_result_free(r);
    /* The same tool through the worker pool. */
    rig_tool_set_flags(t, 0);
    r = rig_toolset_call(ts, "echo", calls[1], strlen(calls[1]), NULL, &err);
    assert_non_null(r);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void export_path(void)
{
    rig_error err;
    rig_toolset *ts = rig_toolset_new();
    rig_registry *reg = rig_registry_new();
    if (ts && reg && rig_registry_add_builtins(reg, &err) == RIG_OK &&
        rig_registry_resolve(reg, "default", NULL, 0, ts, &err) == RIG_OK) {
        for (int f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
            rig_json_writer w;
            rig_json_writer_init(&w, 0);
            rig_export_opts o = {.format = (rig_format)f, .model = "claude-sonnet-4-5",
                                 .security_risk = true};
            rig_toolset_export(ts, &o, &w, &err);
            rig_json_writer_free(&w);
        }
        rig_result *r = rig_toolset_call(ts, "update_todos",
                                         "{\"todos\":[{\"content\":\"a\",\"status\":\"pending\"}]}",
                                         50, NULL, &err);
        assert_non_null(r);
        rig_result_free(r);
    }
    rig_registry_free(reg);
    rig_toolset_free(ts);
}

static void hub_path(void)
{
    rig_error err;
    rig_tool *hub = rig_hub_new("hub", "h", &err);
    if (!hub)
        return;
    rig_tool *t = rig_tool_new("echo", &err);
    if (!t || rig_tool_set_input_schema(t, schema, sizeof schema - 1, &err) != RIG_OK) {
        rig_tool_free(t);
        rig_tool_free(hub);
        return;
    }
    rig_tool_set_executor(t, echo, NULL, NULL);
    if (rig_hub_add(hub, t, &err) != RIG_OK) {
        rig_tool_free(t);
        rig_tool_free(hub);
        return;
    }
    rig_toolset *ts = rig_toolset_new();
    if (!ts || rig_toolset_add(ts, hub, &err) != RIG_OK) {
        rig_tool_free(hub);
        rig_toolset_free(ts);
        return;
    }
    const char *args = "{\"name\":\"echo\",\"arguments\":{\"path\":\"a\"}}";
    rig_result *r = rig_toolset_call(ts, "hub", args, strlen(args), NULL, &err);
    assert_non_null(r);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void result_path(void)
{
    rig_result *r = rig_result_new();
    if (!r)
        return;
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rig_result_text(r, big);
    rig_result_image(r, "iVBO", "image/png");
    rig_result_text(r, big);
    rig_result_resource_link(r, "file:///a", "a", "A", "d", "text/plain", 3);
    rig_result_cap(r, 1000);
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_result_write(r, &w);
    rig_json_writer_free(&w);
    rig_result_free(r);
    rig_subscore s = {"x", 1, 1};
    rig_evaluation ev = {.reward = 1, .done = true, .content = "c", .info_json = "{\"a\":[1]}",
                         .subscores = &s, .n_subscores = 1};
    rig_result_free(rig_result_evaluation(&ev));
    rig_result_free(rig_result_error("%s", big));
    rig_result_free(rig_result_content("o", "e", "iVBO"));
}

static void test_call_path(void **state)
{
    (void)state;
    long runs = every_failure(call_path);
    print_message("# call path: %ld allocation points\n", runs - 1);
    assert_true(runs > 20);
}

static void test_export_and_builtins(void **state)
{
    (void)state;
    long runs = every_failure(export_path);
    print_message("# export and builtins: %ld allocation points\n", runs - 1);
    assert_true(runs > 20);
}

static void test_hub_path(void **state)
{
    (void)state;
    assert_true(every_failure(hub_path) > 10);
}

static void test_results(void **state)
{
    (void)state;
    assert_true(every_failure(result_path) > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_path),
        cmocka_unit_test(test_export_and_builtins),
        cmocka_unit_test(test_hub_path),
        cmocka_unit_test(test_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
