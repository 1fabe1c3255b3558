/* test_finish.c — `finish` through a toolset: the message comes back as
 * text and structuredContent, and the "finish" event carries it to both
 * the tool's and the toolset's listeners. */
#include "builtin_testing.h"

static rig_toolset *ts;

static int setup(void **state) {
    (void)state;
    ts = toolset_of(rig__finish_tool_new);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    return 0;
}

typedef struct seen {
    int n;
    char event[32];
    char data[1024];
} seen;

static void on_event(const char *event, const rig_tool *t, const char *data, void *ud) {
    seen *s = ud;
    assert_string_equal(rig_tool_name(t), "finish");
    s->n++;
    snprintf(s->event, sizeof s->event, "%s", event);
    snprintf(s->data, sizeof s->data, "%s", data ? data : "(null)");
}

static void test_message_and_event(void **state) {
    (void)state;
    seen on_set = {0}, on_tool = {0}, on_all = {0};
    assert_int_equal(rig_toolset_on(ts, "finish", on_event, &on_set), RIG_OK);
    assert_int_equal(rig_toolset_on(ts, "*", on_event, &on_all), RIG_OK);
    assert_int_equal(rig_tool_on(rig_toolset_get(ts, "finish"), "finish", on_event, &on_tool),
                     RIG_OK);

    rig_error err;
    rig_result *r = call_in(ts, "finish", NULL,
                            "{\"message\":\"All 12 tests pass.\\nThe fix is in parse.c.\"}", &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_string_equal(text, "All 12 tests pass.\nThe fix is in parse.c.");
    free(text);
    assert_int_equal(rig_result_count(r), 1);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/message"), "All 12 tests pass.\nThe fix is in parse.c.");
    assert_true(bool_at(d, "/finished"));
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 2);
    rig_json_doc_free(d);

    assert_int_equal(on_set.n, 1);
    assert_int_equal(on_tool.n, 1);
    assert_true(on_all.n >= 1);
    assert_string_equal(on_set.event, "finish");
    rig_json_doc *ev = parse_ok(on_set.data);
    assert_true(rig_json_str_eq(rig_json_get(rig_json_doc_root(ev), "message"),
                                "All 12 tests pass.\nThe fix is in parse.c."));
    rig_json_doc_free(ev);
    rig_result_free(r);

    assert_int_equal(rig_toolset_off(ts, "finish", on_event, &on_set), RIG_OK);
    assert_int_equal(rig_toolset_off(ts, "*", on_event, &on_all), RIG_OK);
    assert_int_equal(rig_tool_off(rig_toolset_get(ts, "finish"), "finish", on_event, &on_tool),
                     RIG_OK);
}

static void test_awkward_messages(void **state) {
    (void)state;
    seen s = {0};
    assert_int_equal(rig_toolset_on(ts, "finish", on_event, &s), RIG_OK);
    rig_error err;
    /* quotes, a NUL-free control character, non-ASCII */
    rig_result *r = call_in(ts, "finish", NULL,
                            "{\"message\":\"Done: \\\"ok\\\" \\t \\u00e9\\ud83d\\ude00\"}", &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/message"), "Done: \"ok\" \t \xc3\xa9\xf0\x9f\x98\x80");
    rig_json_doc_free(d);
    rig_result_free(r);
    rig_json_doc *ev = parse_ok(s.data);
    assert_true(rig_json_str_eq(rig_json_get(rig_json_doc_root(ev), "message"),
                                "Done: \"ok\" \t \xc3\xa9\xf0\x9f\x98\x80"));
    rig_json_doc_free(ev);

    /* an empty message is still a message */
    r = call_in(ts, "finish", NULL, "{\"message\":\"\"}", &err);
    assert_ok_result(r, err);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/message"), "");
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_int_equal(s.n, 2);
    assert_int_equal(rig_toolset_off(ts, "finish", on_event, &s), RIG_OK);
}

static void test_invalid(void **state) {
    (void)state;
    seen s = {0};
    assert_int_equal(rig_toolset_on(ts, "finish", on_event, &s), RIG_OK);
    static const char *const bad[] = {"{}", "{\"message\":42}", "{\"message\":\"x\",\"ok\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        rig_result *r = call_in(ts, "finish", NULL, bad[i], &err);
        if (!rig_result_is_error(r))
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(err.code, RIG_EVALIDATE);
        rig_result_free(r);
    }
    assert_int_equal(s.n, 0); /* nothing finished */
    assert_int_equal(rig_toolset_off(ts, "finish", on_event, &s), RIG_OK);
}

static void test_definition(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "finish");
    assert_non_null(t);
    assert_hints(t, true, false, true, false);
    assert_true(rig_tool_flags(t) & RIG_TOOL_INLINE);
    assert_schema_strict(t);
    assert_non_null(rig_tool_output_schema(t));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_message_and_event),
        cmocka_unit_test(test_awkward_messages),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_definition),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
