/* test_shell.c — the shell tools (src/tools/shell.c, shell_jobs.c) through
 * a toolset: one command's fields, stdin and work_dir, sequences that stop
 * at a failure or go on with ignore_errors, parallel commands that really
 * overlap, timeouts and cancellation that leave no process behind, output
 * over the cap saved whole, work_dir confined to the roots, the Landlock
 * sandbox (a write outside the roots fails, TMPDIR and the roots work, off
 * means off), and background jobs: output read incrementally and by tail,
 * block, stop, sessions that cannot see each other's jobs, jobs killed
 * when their session ends, a ring that overflows into the log, and the
 * per-session limit. */
#define _GNU_SOURCE
#include "fs_testing.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rig/shell.h"
#include "sandbox/landlock.h"

static rig_shell *sh;

static int make_shell_with(bool no_sandbox, bool isolate) {
    rig_error err;
    rig_shell_opts o = {.no_sandbox = no_sandbox, .isolate = isolate};
    sh = rig_shell_new(roots, &o, &err);
    if (!sh || rig_shell_tools_add(ts, sh, &err) != RIG_OK)
        return -1;
    return 0;
}

static int make_shell(bool no_sandbox) { return make_shell_with(no_sandbox, false); }

static int setup(void **state) {
    (void)state;
    if (fs_setup("shell", "secret.txt", "secret\n"))
        return -1;
    return make_shell(false);
}

static int setup_isolated(void **state) {
    (void)state;
    if (fs_setup("shell", "secret.txt", "secret\n"))
        return -1;
    return make_shell_with(false, true);
}

static int setup_unsandboxed(void **state) {
    (void)state;
    if (fs_setup("shell", "secret.txt", "secret\n"))
        return -1;
    return make_shell(true);
}

static int teardown(void **state) {
    rig_shell_free(sh);
    sh = NULL;
    return fs_teardown(state);
}

static rig_result *shell(const char *session, const char *args) {
    return call_in(ts, "shell", session, args, NULL);
}

/* Is process `pid` gone, or dead and waiting to be reaped (a zombie whose
 * parent died is reaped by init, whenever init gets to it)? Waits up to 2 s
 * for the signal to land. */
static bool dead(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return true;
    char p[64], st[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return true;
    size_t n = fread(st, 1, sizeof st - 1, f);
    fclose(f);
    st[n] = '\0';
    const char *close_paren = strrchr(st, ')');
    return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

static bool gone(pid_t pid) {
    for (int i = 0; i < 100; i++) {
        if (dead(pid))
            return true;
        usleep(20000);
    }
    return false;
}

/* The string at `pointer`, whole, malloc'd (str_at holds 1 KiB). */
static char *dup_at(const rig_json_doc *d, const char *pointer) {
    rig_json_val v = rig_json_pointer(rig_json_doc_root(d), pointer);
    size_t n = rig_json_str_len(v);
    char *s = malloc(n + 1);
    assert_non_null(s);
    if (rig_json_str_copy(v, s, n + 1, NULL) != 0)
        fail_msg("no string at %s", pointer);
    return s;
}

static void ignore_done(rig_result *r, int status, void *ud) {
    (void)status, (void)ud;
    rig_result_free(r);
}

static pid_t pid_in(const char *name) {
    char *s = NULL;
    /* the shell creates the file before it writes the number: wait for
     * the whole line */
    for (int i = 0; i < 250; i++) {
        if ((s = slurp(name)) && strchr(s, '\n'))
            break;
        free(s);
        s = NULL;
        usleep(20000);
    }
    if (!s)
        fail_msg("no pid file %s", name);
    pid_t p = (pid_t)atoi(s);
    free(s);
    assert_true(p > 1);
    return p;
}

static void assert_no_children(void) {
    int st;
    assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* ---- foreground ----------------------------------------------------------- */

static void test_one_command(void **state) {
    (void)state;
    rig_result *r = shell(NULL, "{\"command\":\"echo out; echo err >&2; exit 3\"}");
    assert_true(rig_result_is_error(r)); /* a failing command fails the call */
    char *t = text_of(r);
    assert_contains(t, "$ echo out; echo err >&2; exit 3\nout\n[stderr]\nerr\n[exit 3 after ");
    assert_contains(t, root);
    free(t);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/results/0/command"), "echo out; echo err >&2; exit 3");
    assert_int_equal(int_at(d, "/results/0/exit_code"), 3);
    assert_string_equal(str_at(d, "/results/0/stdout"), "out\n");
    assert_string_equal(str_at(d, "/results/0/stderr"), "err\n");
    assert_string_equal(str_at(d, "/results/0/cwd"), root);
    assert_false(bool_at(d, "/results/0/timed_out"));
    assert_true(int_at(d, "/results/0/duration_ms") >= 0);
    assert_int_equal(int_at(d, "/failed"), 1);
    rig_json_doc_free(d);
    rig_result_free(r);

    r = shell(NULL, "{\"command\":\"true\"}");
    assert_false(rig_result_is_error(r));
    rig_result_free(r);
    assert_no_children();
}

static void test_object_stdin_and_work_dir(void **state) {
    (void)state;
    mk("sub");
    rig_result *r = shell(NULL, "{\"command\":{\"command\":\"pwd; tr a-z A-Z\",\"stdin\":"
                                "\"hello\\n\",\"work_dir\":\"sub\"}}");
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured_of(r);
    char want[512];
    snprintf(want, sizeof want, "%s/sub\nHELLO\n", root);
    assert_string_equal(str_at(d, "/results/0/stdout"), want);
    rig_json_doc_free(d);
    rig_result_free(r);

    /* the call's work_dir, and a command's own overriding it */
    r = shell(NULL, "{\"work_dir\":\"sub\",\"command\":[\"pwd\",{\"command\":\"pwd\","
                    "\"work_dir\":\".\"}]}");
    d = structured_of(r);
    snprintf(want, sizeof want, "%s/sub\n", root);
    assert_string_equal(str_at(d, "/results/0/stdout"), want);
    snprintf(want, sizeof want, "%s\n", root);
    assert_string_equal(str_at(d, "/results/1/stdout"), want);
    rig_json_doc_free(d);
    rig_result_free(r);
}

static void test_work_dir_confined(void **state) {
    (void)state;
    rig_result *r = shell(NULL, "{\"command\":\"pwd\",\"work_dir\":\"/etc\"}");
    assert_error_with(r, "not started");
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/results/0/status"), "not_started");
    rig_json_doc_free(d);
    rig_result_free(r);
    r = shell(NULL, "{\"command\":\"pwd\",\"work_dir\":\"../outside\"}");
    assert_error_with(r, "not started");
    rig_result_free(r);
    r = shell(NULL, "{\"command\":\"pwd\",\"work_dir\":\"missing\"}");
    assert_error_with(r, "work_dir missing");
    rig_result_free(r);
}

static void test_sequence_stops_at_failure(void **state) {
    (void)state;
    rig_result *r = shell(NULL, "{\"command\":[\"echo one\",\"exit 2\",\"touch three\"]}");
    assert_true(rig_result_is_error(r));
    char *t = text_of(r);
    assert_contains(t, "[3/3] $ touch three\n[skipped");
    assert_contains(t, "3 commands: 1 succeeded, 1 failed, 1 skipped.");
    free(t);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/results/2/status"), "skipped");
    rig_json_doc_free(d);
    rig_result_free(r);
    char *three = slurp("three");
    assert_null(three);

    /* ignore_errors: all run, and the call is not an error */
    r = shell(NULL, "{\"command\":[\"echo one\",\"exit 2\",\"touch three\"],"
                    "\"ignore_errors\":true}");
    assert_false(rig_result_is_error(r));
    d = structured_of(r);
    assert_int_equal(int_at(d, "/succeeded"), 2);
    assert_int_equal(int_at(d, "/failed"), 1);
    assert_int_equal(int_at(d, "/skipped"), 0);
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_file("three", "");
}

static void test_parallel_overlaps(void **state) {
    (void)state;
    /* each waits for the other's file: only commands running at the same
     * time can both finish before their timeout */
    rig_result *r = shell(NULL, "{\"parallel\":true,\"timeout\":10,\"command\":["
                                "\"touch a; while [ ! -f b ]; do sleep 0.02; done; echo A\","
                                "\"touch b; while [ ! -f a ]; do sleep 0.02; done; echo B\"]}");
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/results/0/stdout"), "A\n");
    assert_string_equal(str_at(d, "/results/1/stdout"), "B\n");
    rig_json_doc_free(d);
    rig_result_free(r);

    /* a failure in parallel: every command still runs */
    r = shell(NULL, "{\"parallel\":true,\"command\":[\"exit 1\",\"echo x > px\"]}");
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    assert_file("px", "x\n");
}

static void test_timeout_kills_the_group(void **state) {
    (void)state;
    /* the command leaves a grandchild that ignores SIGTERM */
    double t0 = now_s();
    rig_result *r = shell(NULL, "{\"timeout\":0.5,\"command\":\"(trap '' TERM; sleep 60 & echo "
                                "$! > kid.pid; wait) ; sleep 60\"}");
    double took = now_s() - t0;
    assert_true(rig_result_is_error(r));
    char *t = text_of(r);
    assert_contains(t, "[timed out after 500 ms");
    assert_contains(t, "[exit 124 after");
    free(t);
    rig_json_doc *d = structured_of(r);
    assert_true(bool_at(d, "/results/0/timed_out"));
    assert_int_equal(int_at(d, "/results/0/exit_code"), 124);
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_true(took < 10);
    assert_true(gone(pid_in("kid.pid")));
    assert_no_children();
}

static void test_cancel_kills_the_group(void **state) {
    (void)state;
    static const char args[] = "{\"command\":\"sleep 60 & echo $! > c.pid; wait\"}";
    rig_call_opts o = {0};
    rig_job *job = rig_toolset_submit(ts, "shell", args, strlen(args), &o, ignore_done, NULL);
    assert_non_null(job);
    pid_t kid = pid_in("c.pid");
    rig_job_cancel(job);
    rig_job_release(job);
    for (int i = 0; i < 100 && !gone(kid); i++)
        usleep(50000);
    assert_true(gone(kid));
}

static void test_big_output_is_saved(void **state) {
    (void)state;
    rig_result *r = shell(NULL, "{\"command\":\"seq 1 100000\"}");
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured_of(r);
    assert_int_equal(int_at(d, "/results/0/stdout_bytes"), 588895);
    char file[1024];
    snprintf(file, sizeof file, "%s", str_at(d, "/results/0/stdout_file"));
    assert_contains(file, rig_shell_temp_dir(sh));
    char *whole = slurp_abs(file);
    assert_non_null(whole);
    assert_int_equal(strlen(whole), 588895);
    assert_true(strncmp(whole, "1\n2\n3\n", 6) == 0);
    free(whole);
    char *shown = dup_at(d, "/results/0/stdout");
    assert_true(strncmp(shown, "1\n2\n", 4) == 0);
    assert_contains(shown, "bytes cut from the middle");
    assert_contains(shown, "99999\n100000\n");
    assert_true(strlen(shown) < RIG_SHELL_OUTPUT_CAP + 200);
    free(shown);
    rig_json_doc_free(d);
    char *t = text_of(r);
    assert_contains(t, "All of it is in ");
    free(t);
    rig_result_free(r);
}

static void test_bad_arguments(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "shell", NULL, "{\"command\":[]}", &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    r = call_in(ts, "shell", NULL, "{\"command\":\"\"}", &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    r = call_in(ts, "shell", NULL, "{\"command\":\"true\",\"cwd\":\"x\"}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    r = call_in(ts, "shell", NULL, "{\"command\":\"true\",\"timeout\":0}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    r = call_in(ts, "shell", NULL, "{\"command\":{\"timeout\":5}}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    char many[2048] = "{\"command\":[";
    for (int i = 0; i < 65; i++)
        strcat(many, i ? ",\"true\"" : "\"true\"");
    strcat(many, "]}");
    r = call_in(ts, "shell", NULL, many, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    r = shell(NULL, "{\"command\":[\"true\",\"true\"],\"run_in_background\":true}");
    assert_error_with(r, "one command per call");
    rig_result_free(r);
}

/* ---- the sandbox ---------------------------------------------------------- */

/* Without Landlock (an old kernel, or valgrind, which does not know its
 * system calls) the commands run unconfined and every result says so.
 * Not skip(): cmocka reports a skip as "not ok", a failure to meson. */
static void check_unconfined_warning(void) {
    rig_result *r = shell(NULL, "{\"command\":\"true\"}");
    char *t = text_of(r);
    assert_contains(t, "[warning: this kernel has no Landlock");
    free(t);
    rig_json_doc *d = structured_of(r);
    assert_false(bool_at(d, "/sandboxed"));
    rig_json_doc_free(d);
    rig_result_free(r);
    char why[256];
    assert_false(rig_shell_sandboxed(sh, why, sizeof why));
    assert_contains(why, "no Landlock");
}

static void test_sandbox_confines_writes(void **state) {
    (void)state;
    if (rig__landlock_abi() <= 0) {
        printf("# this kernel (or valgrind) has no Landlock: checking the warning instead\n");
        check_unconfined_warning();
        return;
    }
    char args[1024];
    snprintf(args, sizeof args,
             "{\"ignore_errors\":true,\"command\":[\"echo pwned > %s/new.txt\","
             "\"echo pwned >> %s\",\"echo ok > inside.txt\",\"echo ok > \\\"$TMPDIR/t\\\" && "
             "cat \\\"$TMPDIR/t\\\"\",\"cat %s\"]}",
             outside, fs_secret, fs_secret);
    rig_result *r = shell(NULL, args);
    rig_json_doc *d = structured_of(r);
    assert_int_not_equal(int_at(d, "/results/0/exit_code"), 0);
    assert_contains(str_at(d, "/results/0/stderr"), "Permission denied");
    assert_int_not_equal(int_at(d, "/results/1/exit_code"), 0);
    assert_int_equal(int_at(d, "/results/2/exit_code"), 0);
    assert_string_equal(str_at(d, "/results/3/stdout"), "ok\n");
    assert_string_equal(str_at(d, "/results/4/stdout"), "secret\n"); /* reading is allowed */
    assert_true(bool_at(d, "/sandboxed"));
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_secret_intact();
    char p[256];
    snprintf(p, sizeof p, "%s/new.txt", outside);
    assert_int_equal(access(p, F_OK), -1);
    assert_file("inside.txt", "ok\n");
    assert_true(rig_shell_sandboxed(sh, NULL, 0));
}

/* isolate: reads confined to the system and the roots, no TCP, no signals
 * out, a TMPDIR per session, and no secrets in the environment. */
static void test_sandbox_isolated(void **state) {
    (void)state;
    if (rig__landlock_abi() < 6) {
        printf("# this kernel (or valgrind) has no Landlock ABI 6: checking the warning instead\n");
        if (rig__landlock_abi() <= 0)
            check_unconfined_warning();
        else
            assert_true(rig_shell_sandboxed(sh, NULL, 0));
        return;
    }
    setenv("RIG_TEST_SECRET_KEY", "hunter2", 1);
    char args[2048];
    snprintf(args, sizeof args,
             "{\"ignore_errors\":true,\"command\":[\"cat %s\",\"ls %s\",\"cat /etc/hostname "
             "/dev/null >/dev/null && echo sys-ok\",\"echo in > inside.txt && cat inside.txt\","
             "\"env\",\"echo $TMPDIR\",\"kill -0 %d\","
             "\"/usr/bin/python3 -c 'import socket; "
             "socket.create_connection((\\\"127.0.0.1\\\", 9))' 2>&1 | tail -1\"]}",
             fs_secret, outside, (int)getpid());
    rig_result *r = shell("iso-a", args);
    rig_json_doc *d = structured_of(r);
    assert_int_not_equal(int_at(d, "/results/0/exit_code"), 0);
    assert_contains(str_at(d, "/results/0/stderr"), "Permission denied");
    assert_int_not_equal(int_at(d, "/results/1/exit_code"), 0);
    assert_string_equal(str_at(d, "/results/2/stdout"), "sys-ok\n");
    assert_string_equal(str_at(d, "/results/3/stdout"), "in\n");
    const char *env = str_at(d, "/results/4/stdout");
    assert_null(strstr(env, "RIG_TEST_SECRET_KEY"));
    assert_contains(env, "PATH=");
    char tmp_a[1100];
    snprintf(tmp_a, sizeof tmp_a, "%s", str_at(d, "/results/5/stdout"));
    assert_contains(tmp_a, "/s-iso-a");
    assert_int_not_equal(int_at(d, "/results/6/exit_code"), 0); /* no signal to rig */
    assert_contains(str_at(d, "/results/7/stdout"), "PermissionError");
    rig_json_doc_free(d);
    rig_result_free(r);
    /* another session: another TMPDIR, and it cannot read the first's */
    tmp_a[strcspn(tmp_a, "\n")] = '\0';
    char args2[1400];
    snprintf(args2, sizeof args2,
             "{\"ignore_errors\":true,\"command\":[\"echo $TMPDIR\",\"ls %s\"]}", tmp_a);
    r = shell("iso-b", args2);
    d = structured_of(r);
    assert_contains(str_at(d, "/results/0/stdout"), "/s-iso-b");
    assert_int_not_equal(int_at(d, "/results/1/exit_code"), 0);
    rig_json_doc_free(d);
    rig_result_free(r);
    /* the session's end removes its TMPDIR */
    assert_int_equal(access(tmp_a, F_OK), 0);
    rig_shell_end_session(sh, "iso-a");
    assert_int_equal(access(tmp_a, F_OK), -1);
    unsetenv("RIG_TEST_SECRET_KEY");
    assert_secret_intact();
}

static void test_sandbox_off(void **state) {
    (void)state;
    char args[512];
    snprintf(args, sizeof args, "{\"command\":\"echo allowed > %s/new.txt\"}", outside);
    rig_result *r = shell(NULL, args);
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured_of(r);
    assert_false(bool_at(d, "/sandboxed"));
    rig_json_doc_free(d);
    rig_result_free(r);
    char why[256];
    assert_false(rig_shell_sandboxed(sh, why, sizeof why));
    assert_contains(why, "--sandbox off");
    char p[256];
    snprintf(p, sizeof p, "%s/new.txt", outside);
    char *s = slurp_abs(p);
    assert_non_null(s);
    assert_string_equal(s, "allowed\n");
    free(s);
}

/* ---- background jobs ------------------------------------------------------ */

static char *job_id_of(rig_result *r) {
    assert_false(rig_result_is_error(r));
    rig_json_doc *d = structured_of(r);
    char *id = strdup(str_at(d, "/job_id"));
    assert_string_equal(str_at(d, "/status"), "running");
    rig_json_doc_free(d);
    rig_result_free(r);
    return id;
}

static rig_result *job_call(const char *tool, const char *session, const char *id,
                            const char *extra) {
    char args[512];
    snprintf(args, sizeof args, "{\"job_id\":\"%s\"%s}", id, extra ? extra : "");
    return call_in(ts, tool, session, args, NULL);
}

static void test_job_output_and_block(void **state) {
    (void)state;
    char *id = job_id_of(
        shell("s1", "{\"command\":\"echo start; touch go; while [ ! -f go2 ]; do sleep 0.02; "
                    "done; echo done; exit 7\",\"run_in_background\":true}"));
    assert_true(strncmp(id, "job-", 4) == 0);
    char *go = NULL;
    for (int i = 0; i < 200 && !(go = slurp("go")); i++)
        usleep(10000);
    free(go);
    rig_result *r = job_call("shell_output", "s1", id, NULL);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/status"), "running");
    assert_string_equal(str_at(d, "/output"), "start\n");
    rig_json_doc_free(d);
    rig_result_free(r);
    /* nothing new since */
    r = job_call("shell_output", "s1", id, NULL);
    char *t = text_of(r);
    assert_contains(t, "(no new output)");
    free(t);
    rig_result_free(r);
    put("go2", "");
    r = job_call("shell_output", "s1", id, ",\"block\":true,\"timeout_ms\":10000");
    d = structured_of(r);
    assert_string_equal(str_at(d, "/status"), "exited");
    assert_int_equal(int_at(d, "/exit_code"), 7);
    assert_string_equal(str_at(d, "/output"), "done\n");
    assert_int_equal(int_at(d, "/total_bytes"), 11);
    char *log = slurp_abs(str_at(d, "/log_file"));
    assert_string_equal(log, "start\ndone\n");
    free(log);
    rig_json_doc_free(d);
    rig_result_free(r);

    /* another session does not see it */
    r = job_call("shell_output", "s2", id, NULL);
    assert_error_with(r, "No background job");
    rig_result_free(r);
    r = job_call("shell_stop", "s2", id, NULL);
    assert_error_with(r, "It has none");
    rig_result_free(r);
    free(id);
}

static void test_job_tail_lines(void **state) {
    (void)state;
    char *id = job_id_of(shell("s1", "{\"command\":\"seq 1 50\",\"run_in_background\":true}"));
    rig_result *r = job_call("shell_output", "s1", id, ",\"block\":true,\"tail_lines\":3");
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/output"), "48\n49\n50\n");
    rig_json_doc_free(d);
    char *t = text_of(r);
    assert_contains(t, "47 earlier lines");
    free(t);
    rig_result_free(r);
    free(id);
}

static void test_job_stop(void **state) {
    (void)state;
    char *id = job_id_of(shell("s1", "{\"command\":\"echo $$ > job.pid; echo up; exec sleep "
                                     "60\",\"run_in_background\":true}"));
    pid_t pid = pid_in("job.pid");
    double t0 = now_s();
    rig_result *r = job_call("shell_stop", "s1", id, NULL);
    assert_true(now_s() - t0 < 5);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/status"), "stopped");
    assert_int_equal(int_at(d, "/exit_code"), 124);
    assert_string_equal(str_at(d, "/output"), "up\n");
    rig_json_doc_free(d);
    rig_result_free(r);
    assert_true(gone(pid));
    /* stopping again says how it ended */
    r = job_call("shell_stop", "s1", id, NULL);
    assert_false(rig_result_is_error(r));
    rig_result_free(r);
    free(id);
}

static void test_jobs_die_with_their_session(void **state) {
    (void)state;
    char *a = job_id_of(shell("sa", "{\"command\":\"echo $$ > a.pid; exec sleep 60\","
                                    "\"run_in_background\":true}"));
    char *b = job_id_of(shell("sb", "{\"command\":\"echo $$ > b.pid; exec sleep 60\","
                                    "\"run_in_background\":true}"));
    pid_t pa = pid_in("a.pid"), pb = pid_in("b.pid");
    rig_shell_end_session(sh, "sa");
    assert_true(gone(pa));
    assert_false(gone(pb));
    rig_result *r = job_call("shell_output", "sa", a, NULL);
    assert_error_with(r, "No background job");
    rig_result_free(r);
    /* freeing the shell (and its tools) stops the rest */
    rig_toolset_free(ts);
    ts = NULL;
    rig_shell_free(sh);
    sh = NULL;
    assert_true(gone(pb));
    free(a);
    free(b);
    assert_no_children();
}

static void test_job_ring_overflows_into_the_log(void **state) {
    (void)state;
    char *id = job_id_of(shell("s1", "{\"command\":\"seq 1 200000\",\"run_in_background\":true}"));
    rig_result *r = job_call("shell_output", "s1", id, ",\"block\":true");
    rig_json_doc *d = structured_of(r);
    assert_int_equal(int_at(d, "/new_bytes"), 1288895);
    char *out = dup_at(d, "/output");
    assert_true(strlen(out) <= RIG_SHELL_JOB_RING);
    assert_contains(out, "199999\n200000\n");
    free(out);
    char log[1024];
    snprintf(log, sizeof log, "%s", str_at(d, "/log_file"));
    rig_json_doc_free(d);
    char *t = text_of(r);
    assert_contains(t, "bytes of new output came before what is shown; all of it is in");
    free(t);
    rig_result_free(r);
    char *whole = slurp_abs(log);
    assert_int_equal(strlen(whole), 1288895);
    free(whole);
    free(id);
}

static void test_job_limit_per_session(void **state) {
    (void)state;
    char *ids[RIG_SHELL_JOBS_PER_SESSION];
    for (int i = 0; i < RIG_SHELL_JOBS_PER_SESSION; i++)
        ids[i] = job_id_of(shell("s1", "{\"command\":\"exec sleep 60\",\"run_in_background\":"
                                       "true}"));
    rig_result *r = shell("s1", "{\"command\":\"true\",\"run_in_background\":true}");
    assert_error_with(r, "already has 32 background jobs running");
    rig_result_free(r);
    /* another session still may */
    free(job_id_of(shell("s2", "{\"command\":\"true\",\"run_in_background\":true}")));
    /* a finished job makes room: it is dropped for the new one */
    r = job_call("shell_stop", "s1", ids[0], NULL);
    rig_result_free(r);
    free(job_id_of(shell("s1", "{\"command\":\"true\",\"run_in_background\":true}")));
    r = job_call("shell_output", "s1", ids[0], NULL);
    assert_error_with(r, "No background job");
    rig_result_free(r);
    for (int i = 0; i < RIG_SHELL_JOBS_PER_SESSION; i++)
        free(ids[i]);
}

static void test_annotations(void **state) {
    (void)state;
    assert_hints(rig_toolset_get(ts, "shell"), false, true, false, true);
    assert_hints(rig_toolset_get(ts, "shell_output"), true, false, false, false);
    assert_hints(rig_toolset_get(ts, "shell_stop"), false, false, true, false);
    assert_schema_strict(rig_toolset_get(ts, "shell"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_object_stdin_and_work_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_dir_confined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sequence_stops_at_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parallel_overlaps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_kills_the_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_kills_the_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_output_is_saved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sandbox_confines_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sandbox_off, setup_unsandboxed, teardown),
        cmocka_unit_test_setup_teardown(test_sandbox_isolated, setup_isolated, teardown),
        cmocka_unit_test_setup_teardown(test_job_output_and_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_tail_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs_die_with_their_session, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_ring_overflows_into_the_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_limit_per_session, setup, teardown),
        cmocka_unit_test_setup_teardown(test_annotations, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
