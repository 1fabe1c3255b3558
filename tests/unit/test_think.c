/* test_think.c — the `think` tool through a toolset: every argument, the
 * reference server's rules (raising totalThoughts, branches), rig's checks
 * on revisesThought and branchFromThought, per-session history, and the
 * caps on thoughts, branches and sessions. */
#include <pthread.h>
#include <stdatomic.h>

#include "builtin_testing.h"

static rig_toolset *ts;

static int setup(void **state) {
    (void)state;
    ts = toolset_of(rig__think_tool_new);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    return 0;
}

/* One thought in `session`; `extra` adds members (",\"isRevision\":true"). */
static rig_result *think(const char *session, int number, int total, bool next,
                         const char *extra, rig_error *err) {
    char args[512];
    snprintf(args, sizeof args,
             "{\"thought\":\"step %d\",\"thoughtNumber\":%d,\"totalThoughts\":%d,"
             "\"nextThoughtNeeded\":%s%s}",
             number, number, total, next ? "true" : "false", extra ? extra : "");
    return call_in(ts, "think", session, args, err);
}

/* A thought that must succeed; returns its structuredContent. */
static rig_json_doc *think_ok(const char *session, int number, int total, bool next,
                              const char *extra) {
    rig_error err;
    rig_result *r = think(session, number, total, next, extra, &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured_of(r);
    rig_result_free(r);
    return d;
}

static void test_first_thoughts(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = think("first", 1, 3, true, NULL, &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "Thought 1 of 3 recorded.");
    assert_contains(text, "History: 1 thought.");
    assert_contains(text, "Continue with thought 2.");
    free(text);
    rig_json_doc *d = structured_of(r);
    assert_int_equal(int_at(d, "/thoughtNumber"), 1);
    assert_int_equal(int_at(d, "/totalThoughts"), 3);
    assert_true(bool_at(d, "/nextThoughtNeeded"));
    assert_int_equal(rig_json_typeof(rig_json_pointer(rig_json_doc_root(d), "/branches")),
                     RIG_JSON_ARRAY);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 0);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 1);
    /* exactly the reference server's five fields */
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 5);
    rig_json_doc_free(d);
    rig_result_free(r);

    d = think_ok("first", 2, 3, true, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 2);
    rig_json_doc_free(d);

    r = think("first", 3, 3, false, NULL, &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "Thinking is complete.");
    assert_contains(text, "History: 3 thoughts.");
    free(text);
    d = structured_of(r);
    assert_false(bool_at(d, "/nextThoughtNeeded"));
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 3);
    rig_json_doc_free(d);
    rig_result_free(r);
}

static void test_total_raised(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = think("raise", 5, 3, true, NULL, &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "Thought 5 of 5 recorded.");
    assert_contains(text, "totalThoughts was raised from 3 to 5");
    free(text);
    rig_json_doc *d = structured_of(r);
    assert_int_equal(int_at(d, "/thoughtNumber"), 5);
    assert_int_equal(int_at(d, "/totalThoughts"), 5);
    rig_json_doc_free(d);
    rig_result_free(r);
    /* lowering the estimate below the number is raised again; an estimate
     * above it stays */
    d = think_ok("raise", 6, 9, true, NULL);
    assert_int_equal(int_at(d, "/totalThoughts"), 9);
    rig_json_doc_free(d);
}

static void test_revision(void **state) {
    (void)state;
    rig_error err;
    /* nothing recorded yet: nothing to revise */
    rig_result *r = think("rev", 1, 3, true, ",\"isRevision\":true,\"revisesThought\":1", &err);
    assert_error_with(r, "revisesThought is 1, but no thought has been recorded");
    assert_int_equal(err.code, RIG_ETOOL);
    rig_result_free(r);

    rig_json_doc_free(think_ok("rev", 1, 3, true, NULL));
    rig_json_doc_free(think_ok("rev", 2, 3, true, NULL));
    r = think("rev", 3, 3, true, ",\"isRevision\":true,\"revisesThought\":1", &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "Thought 3 of 3 recorded (a revision of thought 1).");
    free(text);
    rig_result_free(r);

    /* a thought that does not exist yet */
    r = think("rev", 4, 4, true, ",\"isRevision\":true,\"revisesThought\":7", &err);
    assert_error_with(r, "revisesThought is 7, but this session has no thought 7");
    assert_error_with(r, "the highest thought number recorded so far is 3");
    rig_result_free(r);
    /* the refused thought was not recorded */
    rig_json_doc *d = think_ok("rev", 4, 4, false, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 4);
    rig_json_doc_free(d);

    /* isRevision alone */
    r = think("rev", 5, 5, false, ",\"isRevision\":true", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "(a revision)");
    free(text);
    rig_result_free(r);

    /* the schema: revisesThought is an integer >= 1 */
    r = think("rev", 6, 6, false, ",\"revisesThought\":0", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    r = think("rev", 6, 6, false, ",\"isRevision\":\"maybe\"", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
}

static void test_branches(void **state) {
    (void)state;
    rig_error err;
    rig_json_doc_free(think_ok("br", 1, 5, true, NULL));
    rig_json_doc_free(think_ok("br", 2, 5, true, NULL));

    rig_result *r =
        think("br", 3, 5, true, ",\"branchFromThought\":2,\"branchId\":\"use-cache\"", &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "on branch 'use-cache' (from thought 2)");
    assert_contains(text, "branches: 'use-cache'");
    free(text);
    rig_json_doc *d = structured_of(r);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 1);
    assert_string_equal(str_at(d, "/branches/0"), "use-cache");
    rig_json_doc_free(d);
    rig_result_free(r);

    d = think_ok("br", 4, 5, true, ",\"branchFromThought\":1,\"branchId\":\"rewrite\"");
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 2);
    assert_string_equal(str_at(d, "/branches/0"), "use-cache");
    assert_string_equal(str_at(d, "/branches/1"), "rewrite");
    rig_json_doc_free(d);
    /* continuing a branch adds no new id */
    d = think_ok("br", 5, 5, true, ",\"branchFromThought\":2,\"branchId\":\"use-cache\"");
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 2);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 5);
    rig_json_doc_free(d);

    /* from a thought that does not exist */
    r = think("br", 6, 6, true, ",\"branchFromThought\":9,\"branchId\":\"x\"", &err);
    assert_error_with(r, "branchFromThought is 9, but this session has no thought 9");
    rig_result_free(r);

    /* half a branch: recorded as a plain thought, with advice */
    r = think("br", 6, 7, true, ",\"branchFromThought\":2", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "Not recorded as a branch: give branchId too");
    free(text);
    d = structured_of(r);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 2);
    rig_json_doc_free(d);
    rig_result_free(r);
    r = think("br", 7, 7, true, ",\"branchId\":\"lonely\"", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "Not recorded on branch 'lonely': give branchFromThought too.");
    assert_not_contains(text, "branches: 'use-cache', 'rewrite', 'lonely'");
    free(text);
    rig_result_free(r);

    /* branchId must not be empty */
    r = think("br", 8, 8, true, ",\"branchFromThought\":1,\"branchId\":\"\"", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
}

static void test_branch_cap(void **state) {
    (void)state;
    rig_json_doc_free(think_ok("many-branches", 1, 1, true, NULL));
    char extra[96];
    for (int i = 0; i < RIG_THINK_MAX_BRANCHES; i++) {
        snprintf(extra, sizeof extra, ",\"branchFromThought\":1,\"branchId\":\"b%d\"", i);
        rig_json_doc_free(think_ok("many-branches", i + 2, 200, true, extra));
    }
    rig_error err;
    rig_result *r = think("many-branches", 200, 200, true,
                          ",\"branchFromThought\":1,\"branchId\":\"one-too-many\"", &err);
    assert_error_with(r, "already has 100 branches, the limit");
    rig_result_free(r);
    /* an existing branch still takes thoughts */
    rig_json_doc *d =
        think_ok("many-branches", 200, 200, false, ",\"branchFromThought\":1,\"branchId\":\"b7\"");
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")),
                     RIG_THINK_MAX_BRANCHES);
    rig_json_doc_free(d);
}

static void test_needs_more(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = think("more", 3, 3, true, ",\"needsMoreThoughts\":true", &err);
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_contains(text, "Continue with thought 4, raising totalThoughts as needed.");
    free(text);
    rig_result_free(r);
    r = think("more", 4, 4, false, ",\"needsMoreThoughts\":true", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_contains(text, "set nextThoughtNeeded to true to keep thinking");
    free(text);
    rig_result_free(r);
}

static void test_sessions_apart(void **state) {
    (void)state;
    rig_json_doc_free(think_ok("alice", 1, 2, true, NULL));
    rig_json_doc_free(think_ok("alice", 2, 2, true, ",\"branchFromThought\":1,\"branchId\":\"a\""));
    rig_json_doc *d = think_ok("bob", 1, 2, true, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 1);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 0);
    rig_json_doc_free(d);
    /* bob has no thought 2; alice has */
    rig_error err;
    rig_result *r = think("bob", 2, 2, false, ",\"isRevision\":true,\"revisesThought\":2", &err);
    assert_error_with(r, "no thought 2");
    rig_result_free(r);
    d = think_ok("alice", 3, 3, false, ",\"isRevision\":true,\"revisesThought\":2");
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 3);
    assert_int_equal(rig_json_len(rig_json_pointer(rig_json_doc_root(d), "/branches")), 1);
    rig_json_doc_free(d);
    /* no session at all is a session of its own ("") */
    d = think_ok(NULL, 1, 1, false, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 1);
    rig_json_doc_free(d);
    d = think_ok("", 2, 2, false, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 2);
    rig_json_doc_free(d);
}

static void test_history_cap(void **state) {
    (void)state;
    rig_error err;
    for (int i = 1; i <= RIG_THINK_MAX_THOUGHTS; i++) {
        rig_result *r = think("long", i, RIG_THINK_MAX_THOUGHTS + 5, true, NULL, &err);
        assert_false(rig_result_is_error(r));
        if (i == RIG_THINK_MAX_THOUGHTS) {
            char *text = text_of(r);
            assert_not_contains(text, "dropped");
            free(text);
        }
        rig_result_free(r);
    }
    for (int i = RIG_THINK_MAX_THOUGHTS + 1; i <= RIG_THINK_MAX_THOUGHTS + 5; i++) {
        rig_result *r = think("long", i, RIG_THINK_MAX_THOUGHTS + 5, true, NULL, &err);
        assert_ok_result(r, err);
        char *text = text_of(r);
        assert_contains(text, "keeps the last 1000 thoughts of a session; the oldest was dropped");
        free(text);
        rig_json_doc *d = structured_of(r);
        assert_int_equal(int_at(d, "/thoughtHistoryLength"), RIG_THINK_MAX_THOUGHTS);
        rig_json_doc_free(d);
        rig_result_free(r);
    }
    /* a dropped thought still counts as recorded: it can be revised */
    rig_json_doc_free(think_ok("long", 1006, 1006, false, ",\"isRevision\":true,\"revisesThought\":1"));
}

static void test_session_cap(void **state) {
    (void)state;
    rig_toolset *own = toolset_of(rig__think_tool_new);
    rig_toolset *saved = ts;
    ts = own;
    char name[32];
    for (int i = 0; i < RIG_TOOL_MAX_SESSIONS; i++) {
        snprintf(name, sizeof name, "s%d", i);
        rig_json_doc_free(think_ok(name, 1, 1, true, NULL));
    }
    /* s0 used again: now s1 is the least recently used */
    rig_json_doc *d = think_ok("s0", 2, 2, true, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 2);
    rig_json_doc_free(d);
    /* one more session pushes s1 out */
    rig_json_doc_free(think_ok("newcomer", 1, 1, true, NULL));
    d = think_ok("s0", 3, 3, true, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 3);
    rig_json_doc_free(d);
    d = think_ok("s2", 2, 2, true, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 2);
    rig_json_doc_free(d);
    d = think_ok("s1", 2, 2, true, NULL); /* forgotten: starts over */
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 1);
    rig_json_doc_free(d);
    ts = saved;
    rig_toolset_free(own);
}

static void test_arguments_checked(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "think", "args",
                            "{\"nextThoughtNeeded\":true,\"thoughtNumber\":1,\"totalThoughts\":1}",
                            &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_error_with(r, "thought");
    rig_result_free(r);
    r = call_in(ts, "think", "args",
                "{\"thought\":\"x\",\"nextThoughtNeeded\":true,\"thoughtNumber\":0,"
                "\"totalThoughts\":1}",
                &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_error_with(r, "thoughtNumber");
    rig_result_free(r);
    r = call_in(ts, "think", "args",
                "{\"thought\":\"x\",\"nextThoughtNeeded\":true,\"thoughtNumber\":1,"
                "\"totalThoughts\":0}",
                &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_error_with(r, "totalThoughts");
    rig_result_free(r);
    r = call_in(ts, "think", "args",
                "{\"thought\":\"x\",\"nextThoughtNeeded\":true,\"thoughtNumber\":1,"
                "\"totalThoughts\":1,\"mood\":\"good\"}",
                &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_error_with(r, "mood");
    rig_result_free(r);
    r = call_in(ts, "think", "args",
                "{\"thought\":\"x\",\"nextThoughtNeeded\":true,\"thoughtNumber\":1.5,"
                "\"totalThoughts\":1}",
                &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    /* a refused call recorded nothing */
    rig_json_doc *d = think_ok("args", 1, 1, false, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), 1);
    rig_json_doc_free(d);
}

static void test_definition(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "think");
    assert_non_null(t);
    assert_hints(t, true, false, false, false);
    assert_true(rig_tool_flags(t) & RIG_TOOL_INLINE);
    assert_schema_strict(t);
    assert_non_null(rig_tool_output_schema(t));
    rig_json_val req = rig_json_get(rig_schema_root(rig_tool_input_schema(t)), "required");
    assert_int_equal(rig_json_len(req), 4);
}

/* Many threads thinking in one session at once: every thought is counted
 * once (the state's lock holds). */
#define THREADS 8
#define PER_THREAD 50

static atomic_int failures;

/* No cmocka assertions here: they may only fail on the test's own thread. */
static void *thinker(void *arg) {
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        rig_call_opts opts = {.session = "crowd"};
        static const char args[] = "{\"thought\":\"t\",\"thoughtNumber\":1,"
                                   "\"totalThoughts\":1,\"nextThoughtNeeded\":true}";
        rig_result *r = rig_toolset_call(ts, "think", args, sizeof args - 1, &opts, NULL);
        if (!r || rig_result_is_error(r))
            atomic_fetch_add(&failures, 1);
        rig_result_free(r);
    }
    return NULL;
}

static void test_concurrent(void **state) {
    (void)state;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thinker, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&failures), 0);
    rig_json_doc *d = think_ok("crowd", 2, 2, false, NULL);
    assert_int_equal(int_at(d, "/thoughtHistoryLength"), THREADS * PER_THREAD + 1);
    rig_json_doc_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_thoughts),   cmocka_unit_test(test_total_raised),
        cmocka_unit_test(test_revision),         cmocka_unit_test(test_branches),
        cmocka_unit_test(test_branch_cap),       cmocka_unit_test(test_needs_more),
        cmocka_unit_test(test_sessions_apart),   cmocka_unit_test(test_history_cap),
        cmocka_unit_test(test_session_cap),      cmocka_unit_test(test_arguments_checked),
        cmocka_unit_test(test_definition),       cmocka_unit_test(test_concurrent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
