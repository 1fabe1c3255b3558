/* test_shell_proc.c — running one command (src/tools/shell_proc.h): its
 * output and status, stdin, the deadline (SIGTERM, then SIGKILL for a
 * command that ignores it), cancellation, what it leaves running killed,
 * output over the cap kept as head and tail and saved whole, the working
 * directory, and the Landlock domain applied before exec. */
#define _GNU_SOURCE
#include "testing.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/landlock.h"
#include "tools/shell_proc.h"

static rig__proc_result run_opts(rig__proc_opts o) {
    rig__proc_result r;
    char why[256] = "";
    if (rig__proc_run(&o, &r, why, sizeof why) != 0)
        fail_msg("'%s' did not start: %s", o.command, why);
    return r;
}

static rig__proc_result run(const char *cmd) {
    return run_opts((rig__proc_opts){.command = cmd, .landlock_fd = -1});
}

static void test_output_and_status(void **state) {
    (void)state;
    rig__proc_result r = run("echo hello; echo oops >&2; exit 3");
    assert_string_equal(r.out.text, "hello\n");
    assert_string_equal(r.err.text, "oops\n");
    assert_int_equal(r.exit_code, 3);
    assert_false(r.timed_out);
    assert_true(r.duration_ms >= 0 && r.duration_ms < 5000);
    rig__proc_result_free(&r);
    r = run("kill -9 $$");
    assert_int_equal(r.exit_code, 128 + 9);
    rig__proc_result_free(&r);
    r = run("true");
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out.len, 0);
    assert_string_equal(r.out.text, "");
    rig__proc_result_free(&r);
}

static void test_stdin(void **state) {
    (void)state;
    rig__proc_result r = run_opts((rig__proc_opts){.command = "cat", .stdin_data = "abc\n",
                                                  .stdin_len = 4, .landlock_fd = -1});
    assert_string_equal(r.out.text, "abc\n");
    rig__proc_result_free(&r);
    size_t n = 1 << 20;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    r = run_opts((rig__proc_opts){.command = "wc -c", .stdin_data = big, .stdin_len = n,
                                  .landlock_fd = -1});
    assert_int_equal(atol(r.out.text), (long)n);
    rig__proc_result_free(&r);
    /* a command that does not read: no SIGPIPE for us, a normal end */
    r = run_opts((rig__proc_opts){.command = "exit 0", .stdin_data = big, .stdin_len = n,
                                  .landlock_fd = -1});
    assert_int_equal(r.exit_code, 0);
    rig__proc_result_free(&r);
    free(big);
    /* no stdin given: /dev/null, so a reader ends at once */
    r = run("cat; echo done");
    assert_string_equal(r.out.text, "done\n");
    rig__proc_result_free(&r);
}

static void test_timeout(void **state) {
    (void)state;
    rig__proc_result r = run_opts((rig__proc_opts){.command = "echo started; sleep 10",
                                                  .timeout_ms = 200, .landlock_fd = -1});
    assert_true(r.timed_out);
    assert_int_equal(r.exit_code, 124);
    assert_string_equal(r.out.text, "started\n");
    assert_true(r.duration_ms >= 150 && r.duration_ms < 2000);
    rig__proc_result_free(&r);
    /* SIGTERM ignored: SIGKILL after the grace */
    r = run_opts((rig__proc_opts){.command = "trap '' TERM; sleep 10; sleep 10",
                                  .timeout_ms = 200, .landlock_fd = -1});
    assert_true(r.timed_out);
    assert_int_equal(r.exit_code, 124);
    assert_true(r.duration_ms >= 200 + RIG_PROC_KILL_GRACE_MS - 100);
    assert_true(r.duration_ms < 200 + RIG_PROC_KILL_GRACE_MS + 2000);
    rig__proc_result_free(&r);
}

static bool after_100ms(void *ud) {
    struct timespec *t0 = ud, t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000 >= 100;
}

static void test_cancel(void **state) {
    (void)state;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rig__proc_result r = run_opts((rig__proc_opts){.command = "sleep 10", .landlock_fd = -1,
                                                  .cancelled = after_100ms, .cancel_ud = &t0});
    assert_true(r.cancelled);
    assert_false(r.timed_out);
    assert_int_equal(r.exit_code, 124);
    assert_true(r.duration_ms < 2000);
    rig__proc_result_free(&r);
}

/* Gone, or a zombie waiting for whoever reaps orphans here. */
static bool dead(pid_t pid) {
    char p[64], st[512] = "";
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return true;
    size_t n = fread(st, 1, sizeof st - 1, f);
    fclose(f);
    st[n] = '\0';
    const char *close_paren = strrchr(st, ')');
    return close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

static void test_leftovers_killed(void **state) {
    (void)state;
    rig__proc_result r = run("sleep 30 & echo $!");
    pid_t bg = (pid_t)atol(r.out.text);
    assert_true(bg > 0);
    assert_true(r.duration_ms < 3000); /* the group is ended, not waited for */
    rig__proc_result_free(&r);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; i++) {
        gone = dead(bg);
        if (!gone)
            usleep(10000);
    }
    assert_true(gone);
}

static void test_cap_and_spill(void **state) {
    (void)state;
    char dir[] = "/tmp/rig-proc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    rig__proc_result r = run_opts((rig__proc_opts){
        .command = "head -c 200000 /dev/zero | tr '\\0' a; printf END", .cap = 1000,
        .spill_dir = dir, .landlock_fd = -1});
    assert_int_equal(r.out.total, 200003);
    assert_non_null(strstr(r.out.text, "bytes cut from the middle"));
    assert_true(strncmp(r.out.text, "aaaa", 4) == 0);
    assert_true(r.out.len > 3 && strcmp(r.out.text + r.out.len - 3, "END") == 0);
    assert_true(r.out.len < 1100);
    assert_non_null(r.out.file);
    struct stat st;
    assert_int_equal(stat(r.out.file, &st), 0);
    assert_int_equal(st.st_size, 200003);
    unlink(r.out.file);
    assert_null(r.err.file); /* stderr stayed small */
    rig__proc_result_free(&r);
    /* exactly at the cap: whole, no file */
    r = run_opts((rig__proc_opts){.command = "head -c 1000 /dev/zero | tr '\\0' b", .cap = 1000,
                                  .spill_dir = dir, .landlock_fd = -1});
    assert_int_equal(r.out.len, 1000);
    assert_null(r.out.file);
    rig__proc_result_free(&r);
    rmdir(dir);
}

static void test_cwd(void **state) {
    (void)state;
    rig__proc_result r = run_opts((rig__proc_opts){.command = "pwd", .cwd = "/tmp",
                                                  .landlock_fd = -1});
    assert_string_equal(r.out.text, "/tmp\n");
    rig__proc_result_free(&r);
    rig__proc_opts o = {.command = "pwd", .cwd = "/nonexistent-rig-dir", .landlock_fd = -1};
    char why[256];
    assert_int_equal(rig__proc_run(&o, &r, why, sizeof why), -1);
    assert_non_null(strstr(why, "/nonexistent-rig-dir"));
}

static void test_landlock(void **state) {
    (void)state;
    char a[] = "/tmp/rig-proc-a-XXXXXX", b[] = "/tmp/rig-proc-b-XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    const char *dirs[] = {a};
    int rs = -1;
    char why[256];
    int p = rig__landlock_prepare(dirs, 1, &rs, why, sizeof why);
    if (p == RIG_LANDLOCK_ABSENT) {
        printf("# no Landlock here: %s\n", why);
        rmdir(a);
        rmdir(b);
        return;
    }
    assert_int_equal(p, 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "echo in > %s/f && echo out > %s/f", a, b);
    rig__proc_result r = run_opts((rig__proc_opts){.command = cmd, .landlock_fd = rs});
    assert_int_not_equal(r.exit_code, 0);
    rig__proc_result_free(&r);
    char f[128];
    snprintf(f, sizeof f, "%s/f", a);
    assert_int_equal(access(f, F_OK), 0);
    unlink(f);
    snprintf(f, sizeof f, "%s/f", b);
    assert_int_equal(access(f, F_OK), -1);
    rig__landlock_release(rs);
    rmdir(a);
    rmdir(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_and_status), cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_timeout),           cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_leftovers_killed),  cmocka_unit_test(test_cap_and_spill),
        cmocka_unit_test(test_cwd),               cmocka_unit_test(test_landlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
