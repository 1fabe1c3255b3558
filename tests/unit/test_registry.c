/* test_registry.c — factories, fixed instances and presets, and each of
 * the registry's errors. */
#include "testing.h"

static rig_result *answer(rig_call *call)
{
    return rig_result_content(rig_tool_name(rig_call_tool(call)), NULL, NULL);
}

struct counter {
    int value;
    int closed;
};

static rig_result *counter_get(rig_call *call)
{
    struct counter *c = rig_call_data(call);
    return rig_result_error("%d", c->value);
}

static rig_result *counter_bump(rig_call *call)
{
    struct counter *c = rig_call_data(call);
    c->value += (int)rig_call_int(call, "by", 1);
    return rig_result_content("bumped", NULL, NULL);
}

static int closes;
static void counter_close(void *data)
{
    closes++;
    free(data);
}

/* A factory making two tools over one state; params: {"start": N}. */
static int counter_factory(rig_toolset *into, rig_json_val params, void *ud, rig_error *err)
{
    (void)ud;
    rig_json_iter it = rig_json_iter_init(params);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v))
        if (!rig_json_str_eq(k, "start"))
            return rig_error_set(err, RIG_EPARAMS, "counter takes only 'start'");
    struct counter *c = calloc(1, sizeof *c);
    int64_t start = 0;
    rig_json_get_int64(rig_json_get(params, "start"), &start);
    c->value = (int)start;
    rig_tool *get = rig_tool_new("counter_get", err);
    rig_tool *bump = rig_tool_new("counter_bump", err);
    rig_tool_set_executor(get, counter_get, c, counter_close);
    rig_tool_share_executor(bump, get, counter_bump);
    int rc = rig_toolset_add(into, get, err);
    if (rc == RIG_OK)
        rc = rig_toolset_add(into, bump, err);
    return rc;
}

static rig_registry *make_registry(void)
{
    rig_registry *reg = rig_registry_new();
    rig_error err;
    assert_int_equal(rig_registry_add_factory(reg, "counter", counter_factory, NULL,
                                              "two tools sharing a counter", &err), RIG_OK);
    rig_tool *fixed = rig_tool_new("fixed", &err);
    rig_tool_set_executor(fixed, answer, NULL, NULL);
    rig_tool_set_description(fixed, "always the same");
    assert_int_equal(rig_registry_add_instance(reg, "fixed", fixed, &err), RIG_OK);
    const char *const preset[] = {"fixed", "counter", NULL};
    assert_int_equal(rig_registry_add_preset(reg, "all", preset, "everything", &err), RIG_OK);
    return reg;
}

static void test_registration_errors(void **state)
{
    (void)state;
    rig_registry *reg = make_registry();
    rig_error err;
    assert_int_equal(rig_registry_add_factory(reg, "", counter_factory, NULL, NULL, &err),
                     RIG_EINVAL);
    assert_int_equal(rig_registry_add_factory(reg, NULL, counter_factory, NULL, NULL, &err),
                     RIG_EINVAL);
    assert_int_equal(rig_registry_add_factory(reg, "counter", counter_factory, NULL, NULL, &err),
                     RIG_EEXIST);
    assert_int_equal(rig_registry_add_factory(reg, "x", NULL, NULL, NULL, &err), RIG_EINVAL);
    const char *const empty[] = {NULL};
    assert_int_equal(rig_registry_add_preset(reg, "p", empty, NULL, &err), RIG_EINVAL);
    assert_int_equal(rig_registry_count(reg), 3);
    assert_string_equal(rig_registry_name(reg, 2), "all");
    assert_string_equal(rig_registry_description(reg, 1), "always the same");
    rig_registry_free(reg);
}

static void test_resolve_errors(void **state)
{
    (void)state;
    rig_registry *reg = make_registry();
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "", NULL, 0, ts, &err), RIG_EINVAL);
    assert_int_equal(rig_registry_resolve(reg, "nope", NULL, 0, ts, &err), RIG_ENOENT);
    assert_string_equal(err.message, "Tool 'nope' not found. Available: [counter, fixed, all]");
    assert_int_equal(rig_registry_resolve(reg, "fixed", "{\"a\":1}", 7, ts, &err), RIG_EPARAMS);
    assert_non_null(strstr(err.message, "fixed tool instance"));
    assert_int_equal(rig_registry_resolve(reg, "all", "{\"a\":1}", 7, ts, &err), RIG_EPARAMS);
    assert_int_equal(rig_registry_resolve(reg, "counter", "[1]", 3, ts, &err), RIG_EJSON);
    assert_int_equal(rig_registry_resolve(reg, "counter", "{\"bad\":1}", 9, ts, &err),
                     RIG_EPARAMS);
    assert_string_equal(err.message, "counter takes only 'start'");
    assert_int_equal(rig_toolset_count(ts), 0); /* nothing half-added */
    /* A name already present fails the whole preset. */
    assert_int_equal(rig_registry_resolve(reg, "counter", NULL, 0, ts, &err), RIG_OK);
    assert_int_equal(rig_registry_resolve(reg, "all", NULL, 0, ts, &err), RIG_EEXIST);
    assert_int_equal(rig_toolset_count(ts), 2);
    assert_null(rig_toolset_get(ts, "fixed"));
    rig_toolset_free(ts);
    rig_registry_free(reg);
}

/* Another thread adds "counter_get" the moment "fixed" lands (here: an
 * "add" listener does, at the same point a racing thread could): the preset
 * fails, and takes "fixed" back out rather than leave half of itself. */
static void add_rival(const char *event, const rig_tool *t, const char *data, void *ud)
{
    (void)event, (void)data;
    if (strcmp(rig_tool_name(t), "fixed") != 0)
        return;
    rig_error err;
    rig_tool *rival = rig_tool_new("counter_get", &err);
    rig_tool_set_executor(rival, answer, NULL, NULL);
    assert_int_equal(rig_toolset_add(ud, rival, &err), RIG_OK);
}

static void test_resolve_race_leaves_nothing(void **state)
{
    (void)state;
    rig_registry *reg = make_registry();
    rig_toolset *ts = rig_toolset_new();
    assert_int_equal(rig_toolset_on(ts, "add", add_rival, ts), RIG_OK);
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "all", NULL, 0, ts, &err), RIG_EEXIST);
    assert_null(rig_toolset_get(ts, "fixed"));
    assert_null(rig_toolset_get(ts, "counter_bump"));
    assert_int_equal(rig_toolset_count(ts), 1); /* the rival alone */
    rig_toolset_free(ts);
    rig_registry_free(reg);
}

static void test_factory_shares_state(void **state)
{
    (void)state;
    closes = 0;
    rig_registry *reg = make_registry();
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "counter", "{\"start\":40}", 12, ts, &err), RIG_OK);
    rig_result *r = rig_toolset_call(ts, "counter_bump", "{\"by\":2}", 8, NULL, &err);
    rig_result_free(r);
    r = rig_toolset_call(ts, "counter_get", "{}", 2, NULL, &err);
    assert_string_equal(rig_result_block(r, 0)->text, "42");
    rig_result_free(r);
    rig_toolset_free(ts);
    assert_int_equal(closes, 1);
    rig_registry_free(reg);
}

static void test_instances_and_presets(void **state)
{
    (void)state;
    rig_registry *reg = make_registry();
    rig_toolset *a = rig_toolset_new(), *b = rig_toolset_new();
    rig_error err;
    assert_int_equal(rig_registry_resolve(reg, "all", NULL, 0, a, &err), RIG_OK);
    assert_int_equal(rig_toolset_count(a), 3);
    assert_string_equal(rig_tool_name(rig_toolset_at(a, 0)), "fixed");
    /* A fixed instance resolves again into another toolset. */
    assert_int_equal(rig_registry_resolve(reg, "fixed", "{}", 2, b, &err), RIG_OK);
    rig_result *r = rig_toolset_call(b, "fixed", NULL, 0, NULL, &err);
    assert_string_equal(rig_result_block(r, 0)->text, "fixed");
    rig_result_free(r);
    rig_toolset_free(a);
    rig_toolset_free(b);
    rig_registry_free(reg);
}

static void test_self_referencing_preset(void **state)
{
    (void)state;
    rig_registry *reg = rig_registry_new();
    rig_error err;
    const char *const loop[] = {"loop", NULL};
    assert_int_equal(rig_registry_add_preset(reg, "loop", loop, NULL, &err), RIG_OK);
    rig_toolset *ts = rig_toolset_new();
    assert_int_equal(rig_registry_resolve(reg, "loop", NULL, 0, ts, &err), RIG_EINVAL);
    assert_non_null(strstr(err.message, "nests too deeply"));
    rig_toolset_free(ts);
    rig_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registration_errors),
        cmocka_unit_test(test_resolve_errors),
        cmocka_unit_test(test_resolve_race_leaves_nothing),
        cmocka_unit_test(test_factory_shares_state),
        cmocka_unit_test(test_instances_and_presets),
        cmocka_unit_test(test_self_referencing_preset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
