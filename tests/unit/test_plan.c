/* test_plan.c — plan mode (src/tools/plan.c and the gate in
 * src/policy/approval.c): enter makes or reopens the session's plan; while
 * planning the shell and writes are refused, whatever the policy mode,
 * except writes under the plans directory (not through "..", not through a
 * symlink leading out); exit asks a person with the plan shown, approved
 * ends plan mode, declined keeps it with the feedback, nobody keeps it;
 * yolo approves; sessions are apart and forgotten when they end. */
#define _GNU_SOURCE
#include "approval_testing.h"

#include "policy/approval.h"

static char *enter(const char *session, const char *args)
{
    rig_error err;
    rig_result *r = call_as("enter_plan_mode", session, args, false, &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured(r);
    char path[512];
    assert_int_equal(rig_json_str_copy(rig_json_pointer(rig_json_doc_root(d), "/path"), path,
                                       sizeof path, NULL),
                     0);
    rig_json_doc_free(d);
    rig_result_free(r);
    return strdup(path);
}

static void write_plan(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_enter(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    rig_error err;
    rig_result *r = call_as("enter_plan_mode", "s1", "{\"reason\":\"big change\"}", false, &err);
    assert_ok_result(r, err);
    char *t = text_of(r);
    assert_contains(t, "Plan mode is on");
    assert_contains(t, "exit_plan_mode");
    assert_contains(t, "## Steps");
    free(t);
    rig_json_doc *d = structured(r);
    char want_dir[256];
    snprintf(want_dir, sizeof want_dir, "%s/.rig/plans", root);
    assert_member_str(d, "/plans_dir", want_dir);
    char path[512];
    assert_int_equal(rig_json_str_copy(rig_json_pointer(rig_json_doc_root(d), "/path"), path,
                                       sizeof path, NULL),
                     0);
    assert_int_equal(strncmp(path, want_dir, strlen(want_dir)), 0);
    assert_non_null(strstr(path, "-s1.md"));
    rig_json_doc_free(d);
    rig_result_free(r);
    char *text = slurp(path);
    assert_non_null(text);
    assert_contains(text, "# Plan");
    assert_contains(text, "big change");
    free(text);
    assert_true(rig_approval_planning(ap, "s1"));
    assert_false(rig_approval_planning(ap, "s2"));

    /* Again: the same plan, reopened; fresh: a new one. */
    char *again = enter("s1", "{}");
    assert_string_equal(again, path);
    char *fresh = enter("s1", "{\"fresh\":true}");
    assert_string_not_equal(fresh, path);
    free(again);
    free(fresh);
}

static void test_refusals_while_planning(void **state)
{
    (void)state;
    fixture(RIG_POLICY_YOLO, false); /* plan mode holds whatever the mode */
    char *plan = enter("s", "{}");
    rig_error err;
    rig_result *r = call_as("write_file", "s", "{\"path\":\"src.c\",\"content\":\"x\"}", false,
                            &err);
    assert_error_with(r, "plan mode is on");
    assert_error_with(r, "exit_plan_mode");
    assert_int_equal(err.code, RIG_EBLOCKED);
    rig_result_free(r);
    assert_null(slurp(in_root("src.c")));
    r = call_as("shell", "s", "{\"command\":\"make\"}", false, &err);
    assert_error_with(r, "plan mode is on");
    rig_result_free(r);
    assert_int_equal(shell_runs, 0);
    r = call_as("move_file", "s", "{\"source\":\".rig/plans/a\",\"destination\":\".rig/plans/b\"}",
                false, &err);
    assert_error_with(r, "plan mode is on"); /* only the three writers are exempt */
    rig_result_free(r);

    /* Read-only tools, think and the plan's own writes run. */
    r = call_as("list_directory", "s", "{\"path\":\".\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/notes.md\",\"content\":\"n\"}", false,
                &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    char args[1024];
    snprintf(args, sizeof args, "{\"path\":\"%s\",\"content\":\"# Plan\\n\\n1. do it\\n\"}", plan);
    r = call_as("write_file", "s", args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    snprintf(args, sizeof args,
             "{\"path\":\"%s\",\"edits\":[{\"oldText\":\"do it\",\"newText\":\"do it well\"}]}",
             plan);
    r = call_as("edit_file", "s", args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("create_directory", "s", "{\"path\":\".rig/plans/drafts\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);

    /* Not by climbing out, nor through a symlink inside that leads out. */
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/../../escape.txt\",\"content\":\"x\"}",
                false, &err);
    assert_error_with(r, "plan mode is on");
    rig_result_free(r);
    char link[256];
    snprintf(link, sizeof link, "%s/.rig/plans/out", root);
    assert_int_equal(symlink(root, link), 0);
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/out/escape.txt\",\"content\":\"x\"}",
                false, &err);
    assert_error_with(r, "plan mode is on");
    rig_result_free(r);
    assert_null(slurp(in_root("escape.txt")));
    free(plan);
}

/* In ask mode, writes under the plans directory need no approval either. */
static void test_plan_writes_need_no_approval(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    free(enter("s", "{}"));
    rig_error err;
    rig_result *r = call_as("write_file", "s", "{\"path\":\".rig/plans/x.md\",\"content\":\"n\"}",
                            false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    /* Outside plan mode the same write asks (and nobody answers). */
    rig__plan_stop(ap, "s");
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/x.md\",\"content\":\"n\"}", false, &err);
    assert_error_with(r, "nobody could give it");
    rig_result_free(r);
}

/* A workspace holding `.rig/plans -> ..` (a cloned repository) must not
 * make the whole root "the plans directory", nor let plans be written
 * outside the roots through `.rig -> /elsewhere`. */
static void test_symlinked_plans_dir(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    char p[600], target[256];
    snprintf(p, sizeof p, "%s/.rig", root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/.rig/plans", root);
    assert_int_equal(symlink("..", p), 0);
    rig_error err;
    rig_result *r = call_as("enter_plan_mode", "s", "{}", false, &err);
    assert_error_with(r, "symbolic link");
    rig_result_free(r);
    /* and even in plan mode, a write "under" it is a write to the root: asked */
    char plans[512], plan[600];
    snprintf(plans, sizeof plans, "%s/.rig/plans", root);
    snprintf(plan, sizeof plan, "%s/p.md", plans);
    assert_int_equal(rig__plan_start(ap, "s", plan, plans), RIG_OK);
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/Makefile\",\"content\":\"x\"}",
                false, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    snprintf(p, sizeof p, "%s/Makefile", root);
    assert_int_equal(access(p, F_OK), -1);

    /* .rig itself leading out of the root */
    snprintf(p, sizeof p, "%s/.rig/plans", root);
    assert_int_equal(unlink(p), 0);
    snprintf(p, sizeof p, "%s/.rig", root);
    assert_int_equal(rmdir(p), 0);
    snprintf(target, sizeof target, "%s/elsewhere", base);
    assert_int_equal(mkdir(target, 0755), 0);
    assert_int_equal(symlink(target, p), 0);
    r = call_as("enter_plan_mode", "t", "{}", false, &err);
    assert_error_with(r, "symbolic link");
    rig_result_free(r);
    snprintf(p, sizeof p, "%s/plans", target);
    assert_int_equal(access(p, F_OK), -1); /* nothing made out there */
}

static void test_exit(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    rig_error err;
    rig_result *r = call_as("exit_plan_mode", "s", "{}", false, &err);
    assert_error_with(r, "not on");
    rig_result_free(r);

    char *plan = enter("s", "{}");
    r = call_as("exit_plan_mode", "s", "{}", false, &err);
    assert_error_with(r, "still blank");
    rig_result_free(r);
    write_plan(plan, "# Plan\n\n1. Add the cache.\n2. Test it.\n");

    person_says(RIG_OK, 1, "also measure it");
    r = call_as("exit_plan_mode", "s", "{}", false, &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured(r);
    assert_member_str(d, "/status", "declined");
    assert_member_str(d, "/feedback", "also measure it");
    rig_json_doc_free(d);
    char *t = text_of(r);
    assert_contains(t, "also measure it");
    assert_contains(t, "stays on");
    free(t);
    rig_result_free(r);
    assert_true(rig_approval_planning(ap, "s"));
    assert_contains(person.title, "plan");
    assert_contains(person.detail, "1. Add the cache.");
    assert_contains(person.detail, plan);

    person_says(RIG_ECANCELED, -1, NULL);
    r = call_as("exit_plan_mode", "s", "{}", false, &err);
    d = structured(r);
    assert_member_str(d, "/status", "dismissed");
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_true(rig_approval_planning(ap, "s"));

    /* Nobody (the script is empty): plan mode stays. */
    person.n = person.next = 0;
    r = call_as("exit_plan_mode", "s", "{}", false, &err);
    assert_false(rig_result_is_error(r));
    d = structured(r);
    assert_member_str(d, "/status", "no_user_available");
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_true(rig_approval_planning(ap, "s"));

    person_says(RIG_OK, 0, NULL);
    r = call_as("exit_plan_mode", "s", "{}", false, &err);
    d = structured(r);
    assert_member_str(d, "/status", "approved");
    assert_member_str(d, "/feedback", NULL);
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_false(rig_approval_planning(ap, "s"));
    r = call_as("write_file", "s", "{\"path\":\"src.c\",\"content\":\"x\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);

    /* Entering again reopens the same plan. */
    char *again = enter("s", "{}");
    assert_string_equal(again, plan);
    free(again);
    free(plan);
}

static void test_exit_through_client(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    char *plan = enter("s", "{}");
    write_plan(plan, "# Plan\n\nRewrite the parser.\n");
    client_says("{\"action\":\"accept\",\"content\":{\"choice\":\"Approve the plan\"}}");
    rig_error err;
    rig_result *r = call_as("exit_plan_mode", "s", "{}", true, &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured(r);
    assert_member_str(d, "/status", "approved");
    rig_json_doc_free(d);
    rig_result_free(r);
    d = parse_ok(client.params);
    char msg[4096];
    assert_int_equal(rig_json_str_copy(rig_json_get(rig_json_doc_root(d), "message"), msg,
                                       sizeof msg, NULL),
                     0);
    assert_contains(msg, "Rewrite the parser.");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/0", "Approve the plan");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/1", "Keep planning");
    rig_json_doc_free(d);
    assert_false(rig_approval_planning(ap, "s"));
    free(plan);
}

static void test_yolo_approves(void **state)
{
    (void)state;
    fixture(RIG_POLICY_YOLO, true);
    char *plan = enter("s", "{}");
    write_plan(plan, "# Plan\n\nShip it.\n");
    rig_error err;
    rig_result *r = call_as("exit_plan_mode", "s", "{}", false, &err);
    rig_json_doc *d = structured(r);
    assert_member_str(d, "/status", "approved");
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
    assert_false(rig_approval_planning(ap, "s"));
    free(plan);
}

static void test_sessions_apart(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    char *a = enter("a", "{}");
    char *b = enter("b", "{}");
    assert_string_not_equal(a, b);
    rig_error err;
    rig_result *r = call_as("write_file", "c", "{\"path\":\"c.txt\",\"content\":\"x\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("write_file", "a", "{\"path\":\"a.txt\",\"content\":\"x\"}", false, &err);
    assert_error_with(r, "plan mode is on");
    rig_result_free(r);
    /* The session ends: its plan mode goes, and a new session of that name
     * starts a new plan. */
    rig_approval_session_end(ap, "a");
    assert_false(rig_approval_planning(ap, "a"));
    assert_true(rig_approval_planning(ap, "b"));
    r = call_as("write_file", "a", "{\"path\":\"a.txt\",\"content\":\"x\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    char *a2 = enter("a", "{}");
    assert_string_not_equal(a2, a);
    free(a);
    free(a2);
    free(b);
    rig_approval_session_end(ap, "nobody");
}

static void test_plans_dir(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/myplans/deep", root);
    rig_error err;
    assert_int_equal(rig_approval_set_plans_dir(ap, dir, &err), RIG_OK);
    char *plan = enter("s", "{}");
    assert_int_equal(strncmp(plan, dir, strlen(dir)), 0);
    rig_result *r = call_as("write_file", "s", "{\"path\":\"myplans/deep/x.md\",\"content\":\"x\"}",
                            false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("write_file", "s", "{\"path\":\".rig/plans/x.md\",\"content\":\"x\"}", false, &err);
    assert_error_with(r, "plan mode is on");
    rig_result_free(r);
    free(plan);
    /* A plans directory that cannot be made. */
    char file[256];
    snprintf(file, sizeof file, "%s/afile", root);
    write_plan(file, "x");
    snprintf(dir, sizeof dir, "%s/afile/plans", root);
    assert_int_equal(rig_approval_set_plans_dir(ap, dir, &err), RIG_OK);
    r = call_as("enter_plan_mode", "t", "{}", false, &err);
    assert_error_with(r, "Plan mode could not start");
    rig_result_free(r);
    assert_false(rig_approval_planning(ap, "t"));
}

static void test_definitions(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    static const char *const names[] = {"enter_plan_mode", "exit_plan_mode"};
    for (size_t i = 0; i < 2; i++) {
        rig_tool *t = rig_toolset_get(ts, names[i]);
        assert_non_null(t);
        assert_true(rig_tool_read_only(t));
        assert_false(rig_tool_destructive(t));
        assert_false(rig_tool_flags(t) & RIG_TOOL_INLINE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_enter, teardown),
        cmocka_unit_test_teardown(test_refusals_while_planning, teardown),
        cmocka_unit_test_teardown(test_plan_writes_need_no_approval, teardown),
        cmocka_unit_test_teardown(test_symlinked_plans_dir, teardown),
        cmocka_unit_test_teardown(test_exit, teardown),
        cmocka_unit_test_teardown(test_exit_through_client, teardown),
        cmocka_unit_test_teardown(test_yolo_approves, teardown),
        cmocka_unit_test_teardown(test_sessions_apart, teardown),
        cmocka_unit_test_teardown(test_plans_dir, teardown),
        cmocka_unit_test_teardown(test_definitions, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
