/* test_sleep.c — `sleep` through a toolset: a short sleep completes, a long
 * one ends promptly when cancelled or when its deadline passes (so the
 * whole file runs in about a second), and the schema's bounds. */
#include <pthread.h>

#include "builtin_testing.h"

static rig_toolset *ts;

static int setup(void **state) {
    (void)state;
    ts = toolset_of(rig__sleep_tool_new);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    return 0;
}

static void test_short_sleep(void **state) {
    (void)state;
    rig_error err;
    double t0 = now_s();
    rig_result *r = call_in(ts, "sleep", NULL, "{\"seconds\":0.05}", &err);
    double took = now_s() - t0;
    assert_ok_result(r, err);
    char *text = text_of(r);
    assert_string_equal(text, "Slept for 0.05 seconds.");
    free(text);
    rig_result_free(r);
    assert_true(took >= 0.045);
    assert_true(took < 5); /* generous: loaded machines, valgrind */

    r = call_in(ts, "sleep", NULL, "{\"seconds\":0}", &err);
    assert_ok_result(r, err);
    text = text_of(r);
    assert_string_equal(text, "Slept for 0 seconds.");
    free(text);
    rig_result_free(r);

    r = call_in(ts, "sleep", NULL, "{\"seconds\":0.001}", &err);
    assert_ok_result(r, err);
    rig_result_free(r);
}

static void test_bounds(void **state) {
    (void)state;
    static const char *const bad[] = {
        "{\"seconds\":-1}",      "{\"seconds\":3600.5}", "{\"seconds\":\"soon\"}",
        "{}",                    "{\"seconds\":1,\"until\":\"noon\"}",
        "{\"seconds\":null}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        double t0 = now_s();
        rig_result *r = call_in(ts, "sleep", NULL, bad[i], &err);
        if (!rig_result_is_error(r))
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(err.code, RIG_EVALIDATE);
        assert_true(now_s() - t0 < 1); /* refused, not slept */
        rig_result_free(r);
    }
    rig_error err;
    rig_result *r = call_in(ts, "sleep", NULL, "{\"seconds\":3601}", &err);
    assert_error_with(r, "seconds");
    rig_result_free(r);
}

typedef struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int status;
    bool is_error;
    char text[512];
    double at;
} waiter;

static void on_done(rig_result *result, int status, void *ud) {
    waiter *w = ud;
    char *text = rig_result_text_all(result, NULL);
    pthread_mutex_lock(&w->mu);
    w->status = status;
    w->is_error = rig_result_is_error(result);
    snprintf(w->text, sizeof w->text, "%s", text ? text : "");
    w->at = now_s();
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    free(text);
    rig_result_free(result);
}

static void wait_done(waiter *w) {
    pthread_mutex_lock(&w->mu);
    while (!w->done)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static void test_cancel(void **state) {
    (void)state;
    /* Its own toolset, so freeing it shows that the tool itself stopped:
     * rig_toolset_free waits for running calls. */
    rig_toolset *own = toolset_of(rig__sleep_tool_new);
    waiter w = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    static const char args[] = "{\"seconds\":10}";
    double t0 = now_s();
    rig_job *job = rig_toolset_submit(own, "sleep", args, sizeof args - 1, NULL, on_done, &w);
    assert_non_null(job);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&w.mu);
    assert_false(w.done); /* still sleeping */
    pthread_mutex_unlock(&w.mu);
    rig_job_cancel(job);
    wait_done(&w);
    rig_job_release(job);
    rig_toolset_free(own);
    double took = now_s() - t0;
    /* rig_job_cancel answers at once with the toolset's own text. */
    assert_true(w.is_error);
    assert_int_equal(w.status, RIG_ECANCELED);
    assert_contains(w.text, "cancelled");
    assert_true(w.at - t0 < 2);
    assert_true(took < 2);
}

static void test_deadline(void **state) {
    (void)state;
    rig_toolset *own = toolset_of(rig__sleep_tool_new);
    rig_call_opts opts = {0};
    opts.timeout_ms = 100;
    rig_error err;
    static const char args[] = "{\"seconds\":10}";
    double t0 = now_s();
    rig_result *r = rig_toolset_call(own, "sleep", args, sizeof args - 1, &opts, &err);
    assert_non_null(r);
    /* The toolset's timer or the tool itself, waking at the deadline, may
     * answer first; the status is the deadline's either way, and so is the
     * gist of the text. */
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_ETIMEDOUT);
    char *text = text_of(r);
    if (!strstr(text, " of 10 seconds: the call's time limit ran out.") &&
        !strstr(text, "deadline"))
        fail_msg("text: %s", text);
    free(text);
    rig_result_free(r);
    rig_toolset_free(own);
    assert_true(now_s() - t0 < 2);
}

static void test_definition(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "sleep");
    assert_non_null(t);
    assert_hints(t, true, false, true, false);
    assert_false(rig_tool_flags(t) & RIG_TOOL_INLINE); /* it blocks */
    assert_schema_strict(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_sleep), cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_cancel),      cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_definition),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
