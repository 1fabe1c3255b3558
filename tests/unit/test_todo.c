/* test_todo.c — `update_todos` through a toolset: rendering with counts,
 * the structured list, whole-list replacement per session, the "todos"
 * event, and what the schema refuses. */
#include "builtin_testing.h"

static rig_toolset *ts;

static int setup(void **state) {
    (void)state;
    ts = toolset_of(rig__todo_tool_new);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    return 0;
}

static const char three[] =
    "{\"todos\":["
    "{\"content\":\"Read the spec\",\"status\":\"completed\"},"
    "{\"status\":\"in_progress\",\"content\":\"Write the parser\",\"priority\":\"high\"},"
    "{\"content\":\"Add tests\",\"status\":\"pending\",\"priority\":\"low\"}]}";

static void test_render_and_counts(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "render", three, &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "3 todos: 1 completed, 1 in progress, 1 pending.");
    assert_contains(text, "\n[x] Read the spec\n");
    assert_contains(text, "\n[~] Write the parser (high priority)\n");
    assert_contains(text, "\n[ ] Add tests (low priority)");
    /* in the order given */
    assert_true(strstr(text, "Read the spec") < strstr(text, "Write the parser"));
    assert_true(strstr(text, "Write the parser") < strstr(text, "Add tests"));
    assert_not_contains(text, "previous");
    free(text);

    rig_json_doc *d = structured_of(r);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/todos")), 3);
    assert_string_equal(str_at(d, "/todos/0/content"), "Read the spec");
    assert_string_equal(str_at(d, "/todos/0/status"), "completed");
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d), "/todos/0/priority")));
    assert_string_equal(str_at(d, "/todos/1/content"), "Write the parser");
    assert_string_equal(str_at(d, "/todos/1/status"), "in_progress");
    assert_string_equal(str_at(d, "/todos/1/priority"), "high");
    assert_string_equal(str_at(d, "/todos/2/priority"), "low");
    assert_int_equal(int_at(d, "/counts/total"), 3);
    assert_int_equal(int_at(d, "/counts/pending"), 1);
    assert_int_equal(int_at(d, "/counts/in_progress"), 1);
    assert_int_equal(int_at(d, "/counts/completed"), 1);
    /* canonical member order: content, status, priority */
    size_t len;
    const char *raw = rig_json_raw(rig_json_pointer(rig_json_doc_root(d), "/todos/1"), &len);
    assert_non_null(raw);
    assert_int_equal(strncmp(raw, "{\"content\":", 11), 0);
    rig_json_doc_free(d);
    rig_result_free(r);
}

static void test_replacement(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "replace", three, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_in(ts, "update_todos", "replace",
                "{\"todos\":[{\"content\":\"Ship it\",\"status\":\"in_progress\"},"
                "{\"content\":\"Celebrate\",\"status\":\"pending\",\"priority\":\"medium\"}]}",
                &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "2 todos: 0 completed, 1 in progress, 1 pending.");
    assert_contains(text, "[ ] Celebrate (medium priority)");
    assert_not_contains(text, "Read the spec");
    assert_contains(text, "This replaces the previous list of 3 todos: 1 completed, 1 in "
                          "progress, 1 pending.");
    free(text);
    rig_json_doc *d = structured_of(r);
    assert_int_equal(int_at(d, "/counts/total"), 2);
    assert_int_equal(int_at(d, "/counts/completed"), 0);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/todos")), 2);
    rig_json_doc_free(d);
    rig_result_free(r);

    /* an empty list clears it */
    r = call_in(ts, "update_todos", "replace", "{\"todos\":[]}", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "The todo list is now empty.");
    assert_contains(text, "previous list of 2 todos");
    free(text);
    d = structured_of(r);
    assert_int_equal(int_at(d, "/counts/total"), 0);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/todos")), 0);
    rig_json_doc_free(d);
    rig_result_free(r);

    /* one item: singular */
    r = call_in(ts, "update_todos", "replace",
                "{\"todos\":[{\"content\":\"Only\",\"status\":\"completed\"}]}", &err);
    text = text_of(r);
    assert_contains(text, "1 todo: 1 completed, 0 in progress, 0 pending.");
    assert_contains(text, "previous list of 0 todos");
    free(text);
    rig_result_free(r);
}

static void test_sessions_apart(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "one", three, &err);
    rig_result_free(r);
    r = call_in(ts, "update_todos", "two",
                "{\"todos\":[{\"content\":\"x\",\"status\":\"pending\"}]}", &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_not_contains(text, "previous"); /* "two" never had a list */
    free(text);
    rig_result_free(r);
    r = call_in(ts, "update_todos", "one", "{\"todos\":[]}", &err);
    text = text_of(r);
    assert_contains(text, "previous list of 3 todos"); /* not "two"'s 1 */
    free(text);
    rig_result_free(r);
}

static void test_invalid(void **state) {
    (void)state;
    static const struct {
        const char *args;
        const char *pointer;
    } bad[] = {
        {"{\"todos\":[{\"content\":\"a\",\"status\":\"done\"}]}", "/todos/0/status"},
        {"{\"todos\":[{\"content\":\"a\",\"status\":\"pending\"},"
         "{\"content\":\"b\",\"status\":\"completed\",\"priority\":\"urgent\"}]}",
         "/todos/1/priority"},
        {"{\"todos\":[{\"content\":\"\",\"status\":\"pending\"}]}", "/todos/0/content"},
        {"{\"todos\":[{\"status\":\"pending\"}]}", "content"},
        {"{\"todos\":[{\"content\":\"a\"}]}", "status"},
        {"{\"todos\":[{\"content\":\"a\",\"status\":\"pending\",\"due\":\"today\"}]}", "due"},
        {"{\"todos\":{\"content\":\"a\",\"status\":\"pending\"}}", "/todos"},
        {"{}", "todos"},
        {"{\"todos\":[],\"mode\":\"merge\"}", "mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        rig_result *r = call_in(ts, "update_todos", "invalid", bad[i].args, &err);
        if (!rig_result_is_error(r))
            fail_msg("accepted %s", bad[i].args);
        assert_int_equal(err.code, RIG_EVALIDATE);
        assert_error_with(r, bad[i].pointer);
        rig_result_free(r);
    }
    /* nothing refused was remembered */
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "invalid", "{\"todos\":[]}", &err);
    char *text = text_of(r);
    assert_not_contains(text, "previous");
    free(text);
    rig_result_free(r);
}

typedef struct seen {
    int n;
    char data[2048];
} seen;

static void on_todos(const char *event, const rig_tool *t, const char *data, void *ud) {
    seen *s = ud;
    assert_string_equal(event, "todos");
    assert_string_equal(rig_tool_name(t), "update_todos");
    s->n++;
    snprintf(s->data, sizeof s->data, "%s", data ? data : "");
}

static void test_event(void **state) {
    (void)state;
    seen s = {0};
    assert_int_equal(rig_toolset_on(ts, "todos", on_todos, &s), RIG_OK);
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "event", three, &err);
    assert_ok_result(r, err);
    assert_int_equal(s.n, 1);
    size_t len;
    const char *structured = rig_result_structured_json(r, &len);
    assert_string_equal(s.data, structured); /* the list as the result has it */
    rig_result_free(r);
    /* a refused call emits nothing */
    r = call_in(ts, "update_todos", "event", "{\"todos\":[{\"content\":\"a\"}]}", &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    assert_int_equal(s.n, 1);
    assert_int_equal(rig_toolset_off(ts, "todos", on_todos, &s), RIG_OK);
}

static void test_unicode_content(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "update_todos", "utf8",
                            "{\"todos\":[{\"content\":\"Gr\\u00fc\\u00dfe \\\"quoted\\\" \xe2\x9c\x93\","
                            "\"status\":\"pending\"}]}",
                            &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "[ ] Gr\xc3\xbc\xc3\x9f" "e \"quoted\" \xe2\x9c\x93");
    free(text);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/todos/0/content"),
                        "Gr\xc3\xbc\xc3\x9f" "e \"quoted\" \xe2\x9c\x93");
    rig_json_doc_free(d);
    rig_result_free(r);
}

static void test_definition(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "update_todos");
    assert_non_null(t);
    assert_hints(t, true, false, true, false);
    assert_true(rig_tool_read_only(t));
    assert_schema_strict(t);
    assert_non_null(rig_tool_output_schema(t));
    rig_json_val item = rig_json_pointer(rig_schema_root(rig_tool_input_schema(t)),
                                         "/properties/todos/items");
    bool ap = true;
    assert_int_equal(rig_json_get_bool(rig_json_get(item, "additionalProperties"), &ap), 0);
    assert_false(ap);
    assert_int_equal(rig_json_len(rig_json_pointer(item, "/properties/status/enum")), 3);
    assert_int_equal(rig_json_len(rig_json_pointer(item, "/properties/priority/enum")), 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_and_counts), cmocka_unit_test(test_replacement),
        cmocka_unit_test(test_sessions_apart),    cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_event),             cmocka_unit_test(test_unicode_content),
        cmocka_unit_test(test_definition),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
