/* test_builtins.c — the built-in tools in a registry: one factory per tool,
 * the "default" preset in its order, params refused, unknown names listed,
 * and every built-in's definition (description, strict schema, explicit
 * annotations). */
#include "builtin_testing.h"

static const char *const names[] = {"think",          "update_todos", "sleep",
                                    "get_current_time", "convert_time", "finish"};
#define N_NAMES (sizeof names / sizeof names[0])

static rig_registry *reg;

static int setup(void **state) {
    (void)state;
    reg = rig_registry_new();
    assert_non_null(reg);
    rig_error err;
    assert_int_equal(rig_registry_add_builtins(reg, &err), RIG_OK);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_registry_free(reg);
    return 0;
}

static void test_entries(void **state) {
    (void)state;
    assert_int_equal(rig_registry_count(reg), N_NAMES + 1);
    for (size_t i = 0; i < N_NAMES; i++) {
        assert_string_equal(rig_registry_name(reg, i), names[i]);
        assert_true(strlen(rig_registry_description(reg, i)) > 10);
    }
    assert_string_equal(rig_registry_name(reg, N_NAMES), "default");
    /* a second time: every name is taken */
    rig_error err;
    assert_int_equal(rig_registry_add_builtins(reg, &err), RIG_EEXIST);
}

static void test_resolve_each(void **state) {
    (void)state;
    for (size_t i = 0; i < N_NAMES; i++) {
        rig_toolset *ts = rig_toolset_new();
        rig_error err;
        assert_int_equal(rig_registry_resolve(reg, names[i], NULL, 0, ts, &err), RIG_OK);
        assert_int_equal(rig_toolset_count(ts), 1);
        assert_string_equal(rig_tool_name(rig_toolset_at(ts, 0)), names[i]);
        /* "{}" is no params too */
        rig_toolset *ts2 = rig_toolset_new();
        assert_int_equal(rig_registry_resolve(reg, names[i], "{}", 2, ts2, &err), RIG_OK);
        assert_int_equal(rig_toolset_count(ts2), 1);
        rig_toolset_free(ts2);
        rig_toolset_free(ts);
    }
}

static void test_resolved_tools_work(void **state) {
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "default", NULL, 0, ts, &err), RIG_OK);
    static const struct {
        const char *name, *args;
    } calls[] = {
        {"think", "{\"thought\":\"a\",\"nextThoughtNeeded\":false,\"thoughtNumber\":1,"
                  "\"totalThoughts\":1}"},
        {"update_todos", "{\"todos\":[{\"content\":\"a\",\"status\":\"pending\"}]}"},
        {"sleep", "{\"seconds\":0.01}"},
        {"get_current_time", "{\"timezone\":\"UTC\"}"},
        {"convert_time", "{\"source_timezone\":\"UTC\",\"time\":\"12:00\","
                         "\"target_timezone\":\"Asia/Kolkata\"}"},
        {"finish", "{\"message\":\"done\"}"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        rig_result *r = call_in(ts, calls[i].name, "s", calls[i].args, &err);
        assert_ok_result(r, err);
        rig_result_free(r);
    }
    rig_toolset_free(ts);
}

static void test_default_preset(void **state) {
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "default", NULL, 0, ts, &err), RIG_OK);
    assert_int_equal(rig_toolset_count(ts), N_NAMES);
    for (size_t i = 0; i < N_NAMES; i++)
        assert_string_equal(rig_tool_name(rig_toolset_at(ts, i)), names[i]);
    /* again into the same toolset: names are taken, nothing changes */
    assert_int_equal(rig_registry_resolve(reg, "default", NULL, 0, ts, &err), RIG_EEXIST);
    assert_int_equal(rig_toolset_count(ts), N_NAMES);
    rig_toolset_free(ts);
}

static void test_params_refused(void **state) {
    (void)state;
    for (size_t i = 0; i < N_NAMES; i++) {
        rig_toolset *ts = rig_toolset_new();
        rig_error err;
        static const char params[] = "{\"working_dir\":\"/tmp\"}";
        assert_int_equal(rig_registry_resolve(reg, names[i], params, sizeof params - 1, ts, &err),
                         RIG_EPARAMS);
        assert_contains(err.message, "'working_dir'");
        assert_contains(err.message, names[i]);
        assert_contains(err.message, "takes no params");
        assert_int_equal(rig_toolset_count(ts), 0);
        rig_toolset_free(ts);
    }
    /* a very long param name is cut, not overflowed */
    char params[400];
    memset(params, 'k', sizeof params);
    memcpy(params, "{\"", 2);
    memcpy(params + sizeof params - 6, "\":1}", 5);
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "think", params, strlen(params), ts, &err),
                     RIG_EPARAMS);
    assert_contains(err.message, "kkkk...'");
    assert_contains(err.message, "'think'");
    /* params that are not an object */
    assert_int_equal(rig_registry_resolve(reg, "think", "[1]", 3, ts, &err), RIG_EJSON);
    assert_int_equal(rig_toolset_count(ts), 0);
    rig_toolset_free(ts);
}

static void test_unknown_name(void **state) {
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "read_file", NULL, 0, ts, &err), RIG_ENOENT);
    assert_contains(err.message, "read_file");
    for (size_t i = 0; i < N_NAMES; i++)
        assert_contains(err.message, names[i]);
    assert_contains(err.message, "default");
    assert_int_equal(rig_toolset_count(ts), 0);
    rig_toolset_free(ts);
}

/* Every built-in, as its constructor makes it. */
static void test_definitions(void **state) {
    (void)state;
    static rig_tool *(*const makers[])(rig_error *) = {
        rig__think_tool_new,          rig__todo_tool_new,          rig__sleep_tool_new,
        rig__get_current_time_tool_new, rig__convert_time_tool_new, rig__finish_tool_new,
    };
    for (size_t i = 0; i < N_NAMES; i++) {
        rig_error err;
        rig_tool *t = makers[i](&err);
        assert_non_null(t);
        assert_string_equal(rig_tool_name(t), names[i]);
        assert_non_null(rig_tool_title(t));
        assert_schema_strict(t);
        rig_annotations a = rig_tool_annotations(t);
        assert_int_not_equal(a.read_only, RIG_HINT_UNSET);
        assert_int_not_equal(a.destructive, RIG_HINT_UNSET);
        assert_int_not_equal(a.idempotent, RIG_HINT_UNSET);
        assert_int_not_equal(a.open_world, RIG_HINT_UNSET);
        /* none of them touches anything: all read-only, none destructive or
         * open-world, so no approval prompt ever asks about them */
        assert_true(rig_tool_read_only(t));
        assert_false(rig_tool_destructive(t));
        assert_false(rig_tool_open_world(t));
        rig_tool_free(t); /* never added: closes its state */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries),        cmocka_unit_test(test_resolve_each),
        cmocka_unit_test(test_resolved_tools_work), cmocka_unit_test(test_default_preset),
        cmocka_unit_test(test_params_refused), cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_definitions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
