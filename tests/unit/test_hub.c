/* test_hub.c — one dispatcher tool over hidden inner tools: its schema,
 * dispatch with the inner tool's own validation and hooks, the catalog, and
 * listing. */
#include <pthread.h>

#include "testing.h"

static rig_result *contains(rig_call *call)
{
    const char *text = rig_call_str(call, "text", NULL);
    const char *target = rig_call_str(call, "target", NULL);
    rig_evaluation ev = {.reward = strstr(text, target) ? 1.0 : 0.0, .done = true};
    return rig_result_evaluation(&ev);
}

static rig_result *url_matches(rig_call *call)
{
    const char *url = rig_call_str(call, "url", NULL);
    rig_evaluation ev = {.reward = strcmp(url, "https://x.test/") == 0, .done = true};
    return rig_result_evaluation(&ev);
}

static rig_tool *inner(const char *name, const char *schema, rig_tool_fn fn)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    assert_non_null(t);
    rig_tool_set_description(t, "Checks something.\nMore detail.");
    assert_int_equal(rig_tool_set_input_schema(t, schema, strlen(schema), &err), RIG_OK);
    rig_tool_set_executor(t, fn, NULL, NULL);
    return t;
}

static int blocks_empty_target(rig_call *c, rig_json_val args, char **replace, void *ud,
                               rig_error *e)
{
    (void)c, (void)replace, (void)ud;
    if (rig_json_str_eq(rig_json_get(args, "target"), ""))
        return rig_error_set(e, RIG_EBLOCKED, "an empty target matches everything");
    return RIG_OK;
}

static rig_toolset *make_hub_set(void)
{
    rig_error err;
    rig_tool *hub = rig_hub_new("evaluate", "Graders for the task.", &err);
    assert_non_null(hub);
    rig_tool *c = inner("text_contains",
                        "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                        "\"target\":{\"type\":\"string\"}},\"required\":[\"text\",\"target\"]}",
                        contains);
    rig_tool_before(c, blocks_empty_target, NULL);
    assert_int_equal(rig_hub_add(hub, c, &err), RIG_OK);
    assert_int_equal(rig_hub_add(hub, inner("url_matches",
                                            "{\"type\":\"object\",\"properties\":{\"url\":"
                                            "{\"type\":\"string\",\"format\":\"uri\"}},"
                                            "\"required\":[\"url\"]}",
                                            url_matches), &err), RIG_OK);
    rig_tool *dup = inner("url_matches", "{\"type\":\"object\"}", url_matches);
    assert_int_equal(rig_hub_add(hub, dup, &err), RIG_EEXIST);
    rig_tool_free(dup);
    assert_int_equal(rig_hub_count(hub), 2);
    rig_toolset *ts = rig_toolset_new();
    assert_int_equal(rig_toolset_add(ts, hub, &err), RIG_OK);
    return ts;
}

static const char *text_of(const rig_result *r)
{
    return rig_result_count(r) ? rig_result_block(r, 0)->text : "";
}

static void test_dispatch(void **state)
{
    (void)state;
    rig_toolset *ts = make_hub_set();
    rig_error err;
    const char *args = "{\"name\":\"text_contains\",\"arguments\":{\"text\":\"hello world\","
                       "\"target\":\"world\"}}";
    rig_result *r = rig_toolset_call(ts, "evaluate", args, strlen(args), NULL, &err);
    assert_false(rig_result_is_error(r));
    size_t len;
    assert_non_null(strstr(rig_result_structured_json(r, &len), "\"reward\":1"));
    rig_result_free(r);
    /* arguments sent as a JSON string are read as the object they hold */
    args = "{\"name\":\"url_matches\",\"arguments\":\"{\\\"url\\\":\\\"https://x.test/\\\"}\"}";
    r = rig_toolset_call(ts, "evaluate", args, strlen(args), NULL, &err);
    assert_false(rig_result_is_error(r));
    assert_non_null(strstr(rig_result_structured_json(r, &len), "\"reward\":1"));
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_dispatch_errors(void **state)
{
    (void)state;
    rig_toolset *ts = make_hub_set();
    rig_error err;
    const struct {
        const char *args;
        int code;
        const char *needle;
    } cases[] = {
        {"{\"name\":\"nope\",\"arguments\":{}}", RIG_EVALIDATE, "'/name'"},
        {"{\"arguments\":{}}", RIG_EVALIDATE, "'name'"},
        {"{\"name\":\"url_matches\",\"arguments\":{}}", RIG_ETOOL, "tool 'url_matches'"},
        {"{\"name\":\"url_matches\",\"arguments\":{\"url\":\"not a uri\"}}", RIG_ETOOL, "'/url'"},
        {"{\"name\":\"text_contains\",\"arguments\":{\"text\":\"a\",\"target\":\"\"}}",
         RIG_ETOOL, "blocked: an empty target"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rig_result *r = rig_toolset_call(ts, "evaluate", cases[i].args, strlen(cases[i].args),
                                         NULL, &err);
        assert_true(rig_result_is_error(r));
        if (err.code != cases[i].code || !strstr(text_of(r), cases[i].needle))
            fail_msg("case %zu: code %d, text %s", i, err.code, text_of(r));
        rig_result_free(r);
    }
    /* inner tools are not callable directly */
    rig_result *r = rig_toolset_call(ts, "text_contains", "{}", 2, NULL, &err);
    assert_int_equal(err.code, RIG_ENOENT);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_schema_and_catalog(void **state)
{
    (void)state;
    rig_toolset *ts = make_hub_set();
    rig_tool *hub = rig_toolset_get(ts, "evaluate");
    assert_true(rig_tool_is_hub(hub));
    assert_false(rig_tool_is_hub(rig_hub_at(hub, 0)));
    assert_true(rig_tool_flags(rig_hub_at(hub, 0)) & RIG_TOOL_HIDDEN);
    rig_json_val enm = rig_json_pointer(rig_schema_root(rig_tool_input_schema(hub)),
                                        "/properties/name/enum");
    assert_int_equal(rig_json_len(enm), 2);
    assert_true(rig_json_str_eq(rig_json_at(enm, 1), "url_matches"));
    assert_string_equal(rig_tool_description(hub),
                        "Graders for the task. Tools: text_contains - Checks something.; "
                        "url_matches - Checks something.");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_hub_catalog(hub, &w), RIG_OK);
    size_t len;
    const char *json = rig_json_writer_finish(&w, &len);
    rig_json_doc *d = parse_ok(json);
    rig_json_val root = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_get(root, "hub"), "evaluate"));
    assert_true(rig_json_str_eq(rig_json_pointer(root, "/tools/1/name"), "url_matches"));
    assert_true(rig_json_str_eq(rig_json_pointer(root, "/tools/1/inputSchema/required/0"), "url"));
    rig_json_doc_free(d);
    rig_json_writer_free(&w);
    assert_int_equal(rig_hub_catalog(rig_hub_at(hub, 0), &w), RIG_EINVAL);

    /* The MCP listing shows the hub, not its inner tools. */
    rig_json_writer_init(&w, 0);
    rig_export_opts o = {.format = RIG_FORMAT_MCP};
    rig_error err;
    assert_int_equal(rig_toolset_export(ts, &o, &w, &err), RIG_OK);
    json = rig_json_writer_finish(&w, &len);
    d = parse_ok(json);
    assert_int_equal(rig_json_len(rig_json_get(rig_json_doc_root(d), "tools")), 1);
    rig_json_doc_free(d);
    rig_json_writer_free(&w);
    rig_toolset_free(ts);
}

/* An inner tool sleeps on the outer call: cancelling or timing out the
 * hub's job wakes it; and a hub copied by a registry (its inner tools
 * copied too) works in two toolsets at once. */
static rig_result *nap(rig_call *call)
{
    int rc = rig_call_sleep(call, 10000);
    return rc == RIG_OK ? rig_result_content("slept", NULL, NULL)
                        : rig_result_error("interrupted: %s", rig_strerror(rc));
}

struct box {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls, status;
};

static void on_done(rig_result *res, int status, void *ud)
{
    struct box *b = ud;
    pthread_mutex_lock(&b->mu);
    b->calls++;
    b->status = status;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    rig_result_free(res);
}

static void test_inner_tool_stops_with_the_hub(void **state)
{
    (void)state;
    rig_error err;
    rig_tool *hub = rig_hub_new("h", NULL, &err);
    assert_int_equal(rig_hub_add(hub, inner("nap", "{\"type\":\"object\"}", nap), &err), RIG_OK);
    rig_registry *reg = rig_registry_new();
    assert_int_equal(rig_registry_add_instance(reg, "h", hub, &err), RIG_OK);
    rig_toolset *a = rig_toolset_new(), *b = rig_toolset_new();
    assert_int_equal(rig_registry_resolve(reg, "h", NULL, 0, a, &err), RIG_OK);
    assert_int_equal(rig_registry_resolve(reg, "h", NULL, 0, b, &err), RIG_OK);
    rig_registry_free(reg);

    struct box bx = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    static const char args[] = "{\"name\":\"nap\"}";
    rig_job *j = rig_toolset_submit(a, "h", args, sizeof args - 1, NULL, on_done, &bx);
    rig_call_opts opts = {.timeout_ms = 30};
    rig_result *r = rig_toolset_call(b, "h", args, sizeof args - 1, &opts, &err);
    assert_int_equal(err.code, RIG_ETIMEDOUT);
    rig_result_free(r);
    rig_job_cancel(j);
    pthread_mutex_lock(&bx.mu);
    while (!bx.calls)
        pthread_cond_wait(&bx.cv, &bx.mu);
    pthread_mutex_unlock(&bx.mu);
    assert_int_equal(bx.status, RIG_ECANCELED);
    rig_job_release(j);
    rig_toolset_free(a); /* waits for the inner tool, which woke at once */
    rig_toolset_free(b);
}

/* A tool belongs to one place: one hub or one toolset; a hub is filled
 * before it is served. */
static void test_ownership(void **state)
{
    (void)state;
    rig_error err;
    rig_tool *h1 = rig_hub_new("h1", NULL, &err), *h2 = rig_hub_new("h2", NULL, &err);
    rig_tool *t = inner("t", "{\"type\":\"object\"}", url_matches);
    assert_int_equal(rig_hub_add(h1, t, &err), RIG_OK);
    assert_int_equal(rig_hub_add(h2, t, &err), RIG_EINVAL);
    assert_non_null(strstr(err.message, "already belongs to a hub"));
    rig_toolset *ts = rig_toolset_new();
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_EINVAL);
    assert_int_equal(rig_toolset_add(ts, h1, &err), RIG_OK);
    rig_tool *late = inner("late", "{\"type\":\"object\"}", url_matches);
    assert_int_equal(rig_hub_add(h1, late, &err), RIG_ESTATE);
    assert_int_equal(rig_hub_add(h2, late, &err), RIG_OK);
    rig_tool *loose = inner("loose", "{\"type\":\"object\"}", url_matches);
    assert_int_equal(rig_toolset_add(ts, loose, &err), RIG_OK);
    assert_int_equal(rig_hub_add(h2, loose, &err), RIG_EINVAL);
    assert_non_null(strstr(err.message, "already belongs to a toolset"));
    rig_toolset_free(ts);
    rig_tool_free(h2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_dispatch_errors),
        cmocka_unit_test(test_schema_and_catalog),
        cmocka_unit_test(test_ownership),
        cmocka_unit_test(test_inner_tool_stops_with_the_hub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
