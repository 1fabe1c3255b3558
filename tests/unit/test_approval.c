/* test_approval.c — the approval gate (src/policy/approval.c) through a
 * toolset: each mode; in ask mode read-only tools, the allowlist (also for
 * a relative path), allow once, always (saved to the file and read back; a
 * second call is not asked), "always" that cannot be remembered, deny with
 * and without feedback, dismissal, nobody to ask; the MCP client asked
 * first (the elicitation form it gets), a client without elicitation
 * falling back to the terminal; an inline tool; the gate's own tools
 * never needing approval; the allowlist file missing, malformed at start,
 * or broken later. */
#define _GNU_SOURCE
#include <pthread.h>

#include "approval_testing.h"

static const char write_args[] = "{\"path\":\"notes.txt\",\"content\":\"hello\"}";

static void assert_written(const char *want)
{
    char *got = slurp(in_root("notes.txt"));
    if (!want) {
        if (got)
            fail_msg("notes.txt was written: %s", got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_auto_runs_everything(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_written("hello");
    r = call_as("shell", "s", "{\"command\":\"rm -rf /\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
    assert_int_equal(rig_approval_mode(ap), RIG_POLICY_AUTO);
}

static void test_yolo_runs_everything(void **state)
{
    (void)state;
    fixture(RIG_POLICY_YOLO, true);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, true, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_written("hello");
    assert_int_equal(person.asked + client.asked, 0);
}

static void test_read_only_refuses(void **state)
{
    (void)state;
    fixture(RIG_POLICY_READ_ONLY, true);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "--policy read-only");
    assert_int_equal(err.code, RIG_EBLOCKED);
    rig_result_free(r);
    assert_written(NULL);
    r = call_as("shell", "s", "{\"command\":\"ls\"}", false, &err);
    assert_error_with(r, "refuses every tool that is not read-only");
    rig_result_free(r);
    assert_int_equal(shell_runs, 0);
    /* Read-only tools run. */
    r = call_as("list_directory", "s", "{\"path\":\".\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
}

static void test_ask_read_only_tools_run(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    rig_error err;
    rig_result *r = call_as("list_directory", "s", "{\"path\":\".\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
}

/* The allowlist holds absolute paths: a relative path in a call is matched
 * as the file tools resolve it, against the session's first root. */
static void test_ask_allowlisted(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, true);
    FILE *f = fopen(allow_path, "w");
    fprintf(f, "{\"write_file\":[\"%s\"],\"shell\":[\"git log *\"]}", in_root("notes.txt"));
    fclose(f);
    regate(RIG_POLICY_ASK, NULL, true); /* ask mode reads it */
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("write_file", "s", "{\"path\":\"./notes.txt\",\"content\":\"again\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_written("again");
    r = call_as("shell", "s", "{\"command\":\"git log --oneline | git log -3\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 0);
    /* What the list does not name is asked (and here nobody answers). */
    r = call_as("shell", "s", "{\"command\":\"git log $(rm -rf ~)\"}", false, &err);
    assert_error_with(r, "nobody could give it");
    rig_result_free(r);
    r = call_as("write_file", "s", "{\"path\":\"sub/../notes.txt\",\"content\":\"x\"}", false,
                &err);
    assert_error_with(r, "nobody could give it");
    rig_result_free(r);
    assert_int_equal(person.asked, 2);
    assert_int_equal(shell_runs, 1);
}

static void test_ask_once(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 0, NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_written("hello");
    assert_int_equal(person.asked, 1);
    assert_contains(person.title, "write_file");
    assert_contains(person.detail, "\"content\":\"hello\"");
    assert_contains(person.detail, in_root("notes.txt")); /* what always would save */
    assert_int_equal(person.n_choices, 3);
    assert_string_equal(person.choices[0], "Allow once");
    assert_string_equal(person.choices[1], "Always allow");
    assert_string_equal(person.choices[2], "Deny");
    /* Once is not remembered: the next call asks again. */
    r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "nobody could give it");
    rig_result_free(r);
    assert_int_equal(person.asked, 2);
    assert_null(slurp(allow_path));
}

/* Words typed beside "Allow once" object: the call does not run, and the
 * model hears them. */
static void test_ask_allow_with_objection(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 0, "NO - do not touch notes.txt");
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "do not touch notes.txt");
    rig_result_free(r);
    assert_null(slurp(in_root("notes.txt")));
}

/* Padding cannot push the end of the arguments out of the question: runs
 * of blanks show as one, and a long tail is shown. */
static void test_ask_preview_shows_the_end(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    char args[8192];
    int n = snprintf(args, sizeof args, "{\"path\":\"notes.txt\",\"content\":\"hello");
    for (int i = 0; i < 3000; i++)
        args[n++] = ' ';
    n += snprintf(args + n, sizeof args - (size_t)n, "TAIL-MARKER\"}");
    person_says(RIG_OK, 2, NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", args, false, &err);
    rig_result_free(r);
    assert_contains(person.detail, "TAIL-MARKER");
    char long_args[8192];
    n = snprintf(long_args, sizeof long_args, "{\"path\":\"notes.txt\",\"content\":\"");
    for (int i = 0; i < 3000; i++)
        long_args[n++] = (char)('a' + i % 26);
    n += snprintf(long_args + n, sizeof long_args - (size_t)n, "TAIL-MARKER\"}");
    person_says(RIG_OK, 2, NULL);
    r = call_as("write_file", "s", long_args, false, &err);
    rig_result_free(r);
    assert_contains(person.detail, "TAIL-MARKER");
    assert_contains(person.detail, "bytes ...]");
}

static void test_ask_always_saved(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 1, NULL); /* always */
    person_says(RIG_OK, 1, NULL); /* always, for the shell */
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("shell", "s", "{\"command\":\"git log --oneline -5\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 2);
    assert_contains(person.detail, "\"git log *\"");

    /* The file holds both patterns. */
    char *text = slurp(allow_path);
    assert_non_null(text);
    rig_json_doc *d = rig_json_parse(text, strlen(text), NULL, NULL);
    assert_non_null(d);
    assert_member_str(d, "/write_file/0", in_root("notes.txt"));
    assert_member_str(d, "/shell/0", "git log *");
    rig_json_doc_free(d);
    free(text);
    struct stat st;
    assert_int_equal(stat(allow_path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* The same calls, and a broadened one, are not asked again. */
    r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    r = call_as("shell", "s", "{\"command\":\"git log --stat\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 2);
    assert_int_equal(shell_runs, 2);

    /* A new gate reads what the first saved. */
    rig_approval *again = rig_approval_new(RIG_POLICY_ASK, allow_path, &err);
    assert_non_null(again);
    rig_approval_free(again);
}

static void test_ask_always_not_rememberable(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 1, NULL);
    rig_error err;
    /* A command that sets variables is never remembered. */
    rig_result *r = call_as("shell", "s", "{\"command\":\"FOO=1 ls\"}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_contains(person.detail, "cannot be remembered");
    assert_contains(person.detail, "counts as allow once");
    assert_null(slurp(allow_path));
    assert_int_equal(shell_runs, 1);
}

static void test_ask_deny(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 2, NULL);
    person_says(RIG_OK, -1, "use a temp file instead");
    person_says(RIG_OK, 2, "not this file");
    person_says(RIG_ECANCELED, -1, NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "the person declined this call");
    assert_int_equal(err.code, RIG_EBLOCKED);
    rig_result_free(r);
    r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "said: \"use a temp file instead\"");
    rig_result_free(r);
    r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "said: \"not this file\"");
    rig_result_free(r);
    r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "declined");
    rig_result_free(r);
    assert_written(NULL);
    assert_null(slurp(allow_path));
}

static void test_ask_nobody(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_error_with(r, "needs a person's approval (--policy ask), and nobody could give it");
    assert_error_with(r, "no MCP client");
    assert_error_with(r, "allowlist (--allowlist)");
    assert_error_with(r, "--policy auto or yolo");
    rig_result_free(r);
    /* A client without elicitation. */
    client.cannot = true;
    r = call_as("write_file", "s", write_args, true, &err);
    assert_error_with(r, "did not declare the elicitation capability");
    rig_result_free(r);
    assert_written(NULL);
}

static void test_ask_through_client(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    client_says("{\"action\":\"accept\",\"content\":{\"choice\":\"Allow once\"}}");
    client_says("{\"action\":\"decline\"}");
    client_says("{\"action\":\"accept\",\"content\":{\"choice\":\"Deny\",\"text\":\"no\"}}");
    client_says(NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, true, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_written("hello");
    assert_string_equal(client.method, "elicitation/create");
    rig_json_doc *d = parse_ok(client.params);
    rig_json_val root_v = rig_json_doc_root(d);
    char msg[2048];
    assert_int_equal(rig_json_str_copy(rig_json_get(root_v, "message"), msg, sizeof msg, NULL), 0);
    assert_contains(msg, "write_file");
    assert_contains(msg, "Arguments: {\"path\":\"notes.txt\"");
    assert_contains(msg, "\"Always allow\" adds to the allowlist");
    assert_member_str(d, "/requestedSchema/type", "object");
    assert_member_str(d, "/requestedSchema/properties/choice/type", "string");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/0", "Allow once");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/1", "Always allow");
    assert_member_str(d, "/requestedSchema/properties/choice/enum/2", "Deny");
    assert_member_str(d, "/requestedSchema/properties/text/type", "string");
    rig_json_doc_free(d);
    /* The terminal was not asked: the client was. */
    assert_int_equal(person.asked, 0);

    r = call_as("write_file", "s", write_args, true, &err);
    assert_error_with(r, "declined");
    rig_result_free(r);
    r = call_as("write_file", "s", write_args, true, &err);
    assert_error_with(r, "said: \"no\"");
    rig_result_free(r);
    r = call_as("write_file", "s", write_args, true, &err);
    assert_error_with(r, "asking for approval failed");
    rig_result_free(r);
    assert_int_equal(client.asked, 4);
    assert_int_equal(person.asked, 0);
}

/* A client that cannot elicit: the terminal is asked instead. */
static void test_client_without_elicitation_falls_back(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    client.cannot = true;
    person_says(RIG_OK, 0, NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, true, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 1);
}

/* An inline tool runs where elicitation cannot wait: only a prompter helps. */
static void test_inline_tool(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    rig_error err;
    rig_result *r = call_as("poke", "s", "{}", true, &err);
    assert_error_with(r, "runs inline");
    rig_result_free(r);
    assert_int_equal(client.asked, 0);
    rig_approval_set_prompt(ap, fake_prompt, NULL);
    person_says(RIG_OK, 0, NULL);
    r = call_as("poke", "s", "{}", true, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 1);
}

/* ask_user and enter_plan_mode never wait for approval. */
static void test_own_tools_exempt(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    person_says(RIG_OK, 1, NULL); /* the answer to the question itself */
    rig_error err;
    rig_result *r = call_as("ask_user", "s", "{\"question\":\"Which?\",\"options\":[\"a\",\"b\"]}",
                            false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 1);
    assert_string_equal(person.title, "Which?");
    r = call_as("enter_plan_mode", "s", "{}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 1);
    /* In read-only mode too. */
    teardown(NULL);
    fixture(RIG_POLICY_READ_ONLY, false);
    r = call_as("enter_plan_mode", "s", "{}", false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
}

static void test_allowlist_file_errors(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    FILE *f = fopen(allow_path, "w");
    fputs("{\"shell\": \"git log *\"}", f);
    fclose(f);
    rig_error err;
    assert_null(rig_approval_new(RIG_POLICY_ASK, allow_path, &err));
    assert_int_equal(err.code, RIG_EINVAL);
    assert_contains(err.message, "array of");
    /* Other modes never read it. */
    rig_approval *a = rig_approval_new(RIG_POLICY_AUTO, allow_path, &err);
    assert_non_null(a);
    rig_approval_free(a);
    /* No file at all: "always" lasts for the process. */
    a = rig_approval_new(RIG_POLICY_ASK, NULL, &err);
    assert_non_null(a);
    rig_approval_free(a);
    assert_null(rig_approval_new((rig_policy_mode)42, NULL, &err));
}

/* "Always" with the allowlist's directory missing makes it. */
static void test_always_makes_directory(void **state)
{
    (void)state;
    fixture(RIG_POLICY_AUTO, false);
    char deep[256];
    snprintf(deep, sizeof deep, "%s/config/rig/allowlist.json", base);
    regate(RIG_POLICY_ASK, deep, true);
    rig_error err;
    person_says(RIG_OK, 1, NULL);
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    char *text = slurp(deep);
    assert_non_null(text);
    assert_contains(text, in_root("notes.txt"));
    free(text);
}

/* The file broke after rig read it: "always" still holds for this process,
 * and the file is left as it is. */
static void test_always_keeps_broken_file(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, true);
    FILE *f = fopen(allow_path, "w");
    fputs("{not json", f);
    fclose(f);
    person_says(RIG_OK, 1, NULL);
    rig_error err;
    rig_result *r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    char *text = slurp(allow_path);
    assert_string_equal(text, "{not json");
    free(text);
    r = call_as("write_file", "s", write_args, false, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_int_equal(person.asked, 1);
}

/* Many calls at once, each remembered: the allowlist and its file are
 * guarded, and the file ends with every pattern. */
#define THREADS 8
#define PER_THREAD 5

static int always_prompt(rig_call *call, const rig_prompt *p, int *choice, char **text, void *ud,
                         rig_error *err)
{
    (void)call, (void)p, (void)text, (void)ud, (void)err;
    *choice = 1;
    return RIG_OK;
}

static void *writer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        char args[128];
        snprintf(args, sizeof args, "{\"path\":\"f%d-%d.txt\",\"content\":\"x\"}", id, i);
        rig_call_opts o = {.session = "s"};
        rig_error err;
        rig_result *r = rig_toolset_call(ts, "write_file", args, strlen(args), &o, &err);
        if (rig_result_is_error(r))
            fail_msg("%s", rig_result_text_all(r, NULL));
        rig_result_free(r);
    }
    return NULL;
}

static void test_concurrent_always(void **state)
{
    (void)state;
    fixture(RIG_POLICY_ASK, false);
    rig_approval_set_prompt(ap, always_prompt, NULL);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    char *text = slurp(allow_path);
    assert_non_null(text);
    rig_json_doc *d = rig_json_parse(text, strlen(text), NULL, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_get(rig_json_doc_root(d), "write_file")),
                     THREADS * PER_THREAD);
    rig_json_doc_free(d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_auto_runs_everything, teardown),
        cmocka_unit_test_teardown(test_yolo_runs_everything, teardown),
        cmocka_unit_test_teardown(test_read_only_refuses, teardown),
        cmocka_unit_test_teardown(test_ask_read_only_tools_run, teardown),
        cmocka_unit_test_teardown(test_ask_allowlisted, teardown),
        cmocka_unit_test_teardown(test_ask_once, teardown),
        cmocka_unit_test_teardown(test_ask_always_saved, teardown),
        cmocka_unit_test_teardown(test_ask_always_not_rememberable, teardown),
        cmocka_unit_test_teardown(test_ask_deny, teardown),
        cmocka_unit_test_teardown(test_ask_allow_with_objection, teardown),
        cmocka_unit_test_teardown(test_ask_preview_shows_the_end, teardown),
        cmocka_unit_test_teardown(test_ask_nobody, teardown),
        cmocka_unit_test_teardown(test_ask_through_client, teardown),
        cmocka_unit_test_teardown(test_client_without_elicitation_falls_back, teardown),
        cmocka_unit_test_teardown(test_inline_tool, teardown),
        cmocka_unit_test_teardown(test_own_tools_exempt, teardown),
        cmocka_unit_test_teardown(test_allowlist_file_errors, teardown),
        cmocka_unit_test_teardown(test_always_makes_directory, teardown),
        cmocka_unit_test_teardown(test_always_keeps_broken_file, teardown),
        cmocka_unit_test_teardown(test_concurrent_always, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
