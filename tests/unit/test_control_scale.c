/* test_control_scale.c — the control channel (src/env/control.c) holding
 * 10,000 sessions in one process: 3,000 with live connections and 7,000
 * parked, all with a task of their own; then a sample of both is graded to
 * show each session grades its own task and no other's. In the 'slow'
 * suite: valgrind would take far too long, and it needs ~6,000 fds (both
 * ends of every live socket are ours). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "env_testing.h"

#define SESSIONS 10000
#define LIVE 3000 /* sessions 0..LIVE-1 keep their socket; the rest park */

static char *start_echo(rig_task_ctx *ctx, rig_json_val args, rig_error *err) {
    (void)err;
    const char *w;
    size_t n;
    if (!rig_json_str_view(rig_json_get(args, "word"), &w, &n)) return NULL;
    char *state = strndup(w, n);
    if (!state) return NULL;
    rig_task_ctx_set_state(ctx, state);
    char *out;
    if (asprintf(&out, "\"Say %s\"", state) < 0) return NULL;
    return out;
}

static int grade_echo(rig_task_ctx *ctx, const rig_answer *a, rig_grade *g, rig_error *err) {
    (void)err;
    g->score = strcmp(a->raw, rig_task_ctx_state(ctx)) == 0 ? 1.0 : 0.0;
    return 0;
}

static void end_echo(rig_task_ctx *ctx) { free(rig_task_ctx_state(ctx)); }

/* Read until `lines` replies arrived (requests are never pipelined past
 * what we wait for, so nothing is left over) into buf. */
static void read_lines(int fd, char *buf, size_t cap, int lines) {
    size_t len = 0;
    int seen = 0;
    while (seen < lines) {
        assert_true(len + 1 < cap);
        ssize_t k = env_read(fd, buf + len, cap - 1 - len);
        if (k <= 0) fail_msg("connection closed or timed out after %zu bytes", len);
        for (ssize_t i = 0; i < k; i++) seen += buf[len + (size_t)i] == '\n';
        len += (size_t)k;
    }
    buf[len] = 0;
}

static void expect(const char *buf, const char *want, int i) {
    if (!strstr(buf, want)) fail_msg("session %d: got %s; wanted %s", i, buf, want);
}

/* Resume session `id` on a fresh socket and grade it with `answer`;
 * `want` is the score expected. */
static void resume_grade(int port, const char *id, const char *answer, const char *want, int i) {
    int fd = env_connect(port);
    char line[512], buf[4096];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"%s\"}}\n",
             id, answer);
    env_send(fd, line, strlen(line));
    read_lines(fd, buf, sizeof buf, 2);
    char sid[64];
    snprintf(sid, sizeof sid, "\"session_id\":\"%s\"", id);
    expect(buf, sid, i);
    expect(buf, want, i);
    close(fd);
}

static void test_ten_thousand(void **state) {
    (void)state;
    rig_error err;
    rig_env *env = rig_env_new("scale", "1", &err);
    rig_task_spec echo = {.id = "echo",
                          .args_schema = "{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\"}},\"required\":[\"word\"]}",
                          .start = start_echo, .grade = grade_echo, .end = end_echo};
    assert_int_equal(rig_env_add_task(env, &echo, &err), 0);
    rig_env_serve_opts o = {.grade_timeout_ms = 60000};
    rig_env_server *srv;
    assert_int_equal(rig_env_server_start(env, &o, &srv, &err), 0);
    int port = rig_env_server_port(srv);

    static char ids[SESSIONS][16];
    int *live = calloc(LIVE, sizeof *live);
    long before = rss_kib();
    char line[512], buf[4096];
    for (int i = 0; i < SESSIONS; i++) {
        int fd = env_connect(port);
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}\n"
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"w%d\"}}}\n",
                 i);
        env_send(fd, line, strlen(line));
        read_lines(fd, buf, sizeof buf, 2);
        char *p = strstr(buf, "\"session_id\":\"");
        if (!p) fail_msg("session %d: hello said %s", i, buf);
        memcpy(ids[i], p + 14, 13);
        ids[i][13] = 0;
        char want[64];
        snprintf(want, sizeof want, "\"prompt\":\"Say w%d\"", i);
        expect(buf, want, i);
        if (i < LIVE) live[i] = fd;
        else close(fd);
    }
    long after = rss_kib();
    print_message("%d sessions (%d live, %d parked): the process grew %ld KiB, %ld bytes a session "
                  "(both ends of the live sockets are in it)\n",
                  SESSIONS, LIVE, SESSIONS - LIVE, after - before,
                  (after - before) * 1024 / SESSIONS);

    /* every parked one is held: a bare grade names the count. Poll: the
     * server sees the last closes a moment after we make them. */
    char want[96];
    snprintf(want, sizeof want, "%d sessions are parked", SESSIONS - LIVE);
    for (int tries = 0;; tries++) {
        int fd = env_connect(port);
        static const char grade_x[] =
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n";
        env_send(fd, grade_x, sizeof grade_x - 1);
        read_lines(fd, buf, sizeof buf, 1);
        close(fd);
        if (strstr(buf, want)) break;
        if (tries > 300) fail_msg("wanted %s; got %s", want, buf);
        usleep(20 * 1000);
    }

    /* parked: a sample resumes and grades its own answer; a neighbour's
     * answer scores 0 (and is not the neighbour's grade) */
    for (int i = LIVE; i < SESSIONS; i += 70) {
        char answer[32];
        snprintf(answer, sizeof answer, "w%d", i);
        resume_grade(port, ids[i], answer, "\"result\":{\"score\":1.0}", i);
        if (i + 1 < SESSIONS) {
            snprintf(answer, sizeof answer, "w%d", i);
            resume_grade(port, ids[i + 1], answer, "\"result\":{\"score\":0.0}", i + 1);
        }
    }
    /* live: the same over their own sockets */
    for (int i = 0; i < LIVE; i += 30) {
        for (int k = 0; k < 2 && i + k < LIVE; k++) {
            snprintf(line, sizeof line,
                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"w%d\"}}\n", i);
            env_send(live[i + k], line, strlen(line));
            read_lines(live[i + k], buf, sizeof buf, 1);
            expect(buf, k == 0 ? "\"result\":{\"score\":1.0}" : "\"result\":{\"score\":0.0}", i + k);
        }
    }
    /* a live session's id cannot be taken over from another socket */
    int fd = env_connect(port);
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n", ids[5]);
    env_send(fd, line, strlen(line));
    read_lines(fd, buf, sizeof buf, 1);
    expect(buf, "has a live connection", 5);
    close(fd);

    for (int i = 0; i < LIVE; i++) close(live[i]);
    free(live);
    rig_env_server_stop(srv); /* ends the thousands of tasks still held */
    rig_env_free(env);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    /* Both ends of 3,000 live sockets, and the server's listener. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 2 * LIVE + 256) {
        fprintf(stderr, "test_control_scale: needs %d open files; the limit is %llu\n", 2 * LIVE + 256,
                (unsigned long long)rl.rlim_cur);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_thousand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
