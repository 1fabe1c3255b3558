/* test_ask.c — ask_user (src/tools/ask.c): answered by picking an option
 * or typing, dismissed, nobody to ask (no_user_available, not an error),
 * through the MCP client's elicitation form first (its shape: the options
 * as an enum, a free-text field), a client error, the argument checks, and
 * its definition. */
#define _GNU_SOURCE
#include "approval_testing.h"

static const char question[] =
    "{\"question\":\"Which database?\",\"options\":[\"SQLite\",\"Postgres\",\"none\"]}";

static void assert_status(const rig_result *r, const char *status, const char *answer,
                          int index)
{
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured(r);
    assert_member_str(d, "/status", status);
    assert_member_str(d, "/answer", answer);
    rig_json_val v = rig_json_pointer(rig_json_doc_root(d), "/option_index");
    if (index < 0) {
        assert_int_equal(rig_json_typeof(v), RIG_JSON_NULL);
    } else {
        int64_t got = -1;
        assert_int_equal(rig_json_get_int64(v, &got), 0);
        assert_int_equal(got, index);
    }
    rig_json_doc_free(d);
}

static void test_answered_on_terminal(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    person_says(RIG_OK, 1, NULL);
    person_says(RIG_OK, -1, "MariaDB, we have one");
    rig_error err;
    rig_result *r = call_as("ask_user", "s", question, false, &err);
    assert_ok_result(r, err);
    assert_status(r, "answered", "Postgres", 1);
    char *t = text_of(r);
    assert_contains(t, "option 2: Postgres");
    free(t);
    rig_result_free(r);
    assert_string_equal(person.title, "Which database?");
    assert_int_equal(person.n_choices, 3);
    assert_string_equal(person.choices[2], "none");
    assert_true(person.typed);

    r = call_as("ask_user", "s", question, false, &err);
    assert_status(r, "answered", "MariaDB, we have one", -1);
    t = text_of(r);
    assert_contains(t, "in their own words: MariaDB, we have one");
    free(t);
    rig_result_free(r);
}

static void test_dismissed_and_nobody(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_ECANCELED, -1, NULL);
    rig_error err;
    rig_result *r = call_as("ask_user", "s", question, false, &err);
    assert_ok_result(r, err);
    assert_status(r, "dismissed", NULL, -1);
    rig_result_free(r);
    /* The script is empty: nobody at the terminal. */
    r = call_as("ask_user", "s", question, false, &err);
    assert_ok_result(r, err);
    assert_status(r, "no_user_available", NULL, -1);
    char *t = text_of(r);
    assert_contains(t, "own judgement");
    free(t);
    rig_result_free(r);
    /* No prompter at all, a client without elicitation. */
    regate(RIG_POLICY_ASK, NULL, false);
    client.cannot = true;
    r = call_as("ask_user", "s", question, true, &err);
    assert_ok_result(r, err);
    assert_status(r, "no_user_available", NULL, -1);
    t = text_of(r);
    assert_contains(t, "did not declare the elicitation capability");
    free(t);
    rig_result_free(r);
}

static void test_through_client(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    client_says("{\"action\":\"accept\",\"content\":{\"choice\":\"SQLite\"}}");
    client_says("{\"action\":\"accept\",\"content\":{\"choice\":\"none\",\"text\":\"  DuckDB \"}}");
    client_says("{\"action\":\"decline\"}");
    client_says("{\"action\":\"cancel\"}");
    client_says("{\"action\":\"accept\",\"content\":{}}");
    client_says(NULL);
    rig_error err;
    rig_result *r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "answered", "SQLite", 0);
    rig_result_free(r);
    assert_string_equal(client.method, "elicitation/create");
    rig_json_doc *d = parse_ok(client.params);
    assert_member_str(d, "/message", "Which database?");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/0", "SQLite");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/1", "Postgres");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/2", "none");
    assert_member_str(d, "/requestedSchema/properties/text/type", "string");
    assert_member_str(d, "/requestedSchema/properties/text/title", "Or type your own answer");
    /* A typed answer is an answer: nothing is required. */
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d), "/requestedSchema/required")));
    rig_json_doc_free(d);

    r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "answered", "DuckDB", -1); /* typed wins, trimmed */
    rig_result_free(r);
    r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "dismissed", NULL, -1);
    rig_result_free(r);
    r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "dismissed", NULL, -1);
    rig_result_free(r);
    r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "dismissed", NULL, -1);
    rig_result_free(r);
    r = call_as("ask_user", "s", question, true, &err);
    assert_status(r, "no_user_available", NULL, -1);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
}

static void test_arguments_checked(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    static const char *const bad[] = {
        "{\"question\":\"q\",\"options\":[\"only\"]}",
        "{\"question\":\"q\",\"options\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"]}",
        "{\"question\":\"q\",\"options\":[\"a\",\"a\"]}",
        "{\"question\":\"\",\"options\":[\"a\",\"b\"]}",
        "{\"options\":[\"a\",\"b\"]}",
        "{\"question\":\"q\",\"options\":[\"a\",\"\"]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rig_error err;
        rig_result *r = call_as("ask_user", "s", bad[i], false, &err);
        if (!rig_result_is_error(r))
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(err.code, RIG_EVALIDATE);
        rig_result_free(r);
    }
    assert_int_equal(person.asked, 0);
}

static void test_definition(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    rig_tool *t = rig_toolset_get(ts, "ask_user");
    assert_non_null(t);
    assert_true(rig_tool_read_only(t));
    assert_false(rig_tool_destructive(t));
    assert_false(rig_tool_open_world(t));
    /* It waits for the client's answer: never inline. */
    assert_false(rig_tool_flags(t) & RIG_TOOL_INLINE);
    assert_non_null(rig_tool_output_schema(t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_answered_on_terminal, teardown),
        cmocka_unit_test_teardown(test_dismissed_and_nobody, teardown),
        cmocka_unit_test_teardown(test_through_client, teardown),
        cmocka_unit_test_teardown(test_arguments_checked, teardown),
        cmocka_unit_test_teardown(test_definition, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
