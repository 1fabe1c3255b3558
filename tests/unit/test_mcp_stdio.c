/* test_mcp_stdio.c — MCP's stdio transport (src/mcp/stdio.c) over real
 * file descriptors, with the real protocol engine behind it: pipes, a
 * socket, a regular file; the end of a session (EOF with calls running, a
 * signal, a client that hangs up); an oversized line; back-pressure; and
 * the caller's descriptors left as they were. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"

#define INIT                                                                                      \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"    \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
#define PING "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n"
#define PONG "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}"

typedef struct session {
    rig_toolset *ts;
    rig_mcp_server *s;
    int in[2], out[2];      /* pipes: the test writes in[1] and reads out[0] */
    int serve_in, serve_out; /* what the transport gets */
    pthread_t th;
    bool running;
    int rc;
    rig_error err;
    atomic_bool done;
    char *rbuf; /* output read but not yet split into lines */
    size_t rlen, rcap;
} session;

static rig_result *slow(rig_call *call)
{
    int rc = rig_call_sleep(call, rig_call_int(call, "ms", 10000));
    return rc ? rig_result_error("stopped: %s", rig_strerror(rc))
              : rig_result_content("slept", NULL, NULL);
}

static int setup(void **state)
{
    session *x = calloc(1, sizeof *x);
    rig_error err;
    x->ts = rig_toolset_new();
    rig_registry *reg = rig_registry_new();
    assert_int_equal(rig_registry_add_builtins(reg, &err), RIG_OK);
    assert_int_equal(rig_registry_resolve(reg, "default", NULL, 0, x->ts, &err), RIG_OK);
    rig_registry_free(reg);
    rig_tool *t = rig_tool_new("slow", &err);
    rig_tool_set_executor(t, slow, NULL, NULL);
    assert_int_equal(rig_toolset_add(x->ts, t, &err), RIG_OK);
    rig_mcp_info info = {.name = "rig-test", .version = "1"};
    x->s = rig_mcp_server_new(x->ts, &info, &err);
    assert_non_null(x->s);
    assert_int_equal(pipe2(x->in, O_CLOEXEC), 0);
    assert_int_equal(pipe2(x->out, O_CLOEXEC), 0);
    x->serve_in = x->in[0];
    x->serve_out = x->out[1];
    *state = x;
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void *serve_thread(void *p)
{
    session *x = p;
    x->rc = rig_mcp_serve_stdio(x->s, x->serve_in, x->serve_out, &x->err);
    atomic_store(&x->done, true);
    return NULL;
}

static void start(session *x)
{
    assert_int_equal(pthread_create(&x->th, NULL, serve_thread, x), 0);
    x->running = true;
}

/* Waits for the transport to return; its status. */
static int finish(session *x)
{
    assert_true(x->running);
    pthread_join(x->th, NULL);
    x->running = false;
    return x->rc;
}

static int teardown(void **state)
{
    session *x = *state;
    if (x->running) { /* a failed test: end the session */
        close_fd(&x->in[1]);
        close_fd(&x->out[0]);
        pthread_join(x->th, NULL);
    }
    for (int i = 0; i < 2; i++) {
        close_fd(&x->in[i]);
        close_fd(&x->out[i]);
    }
    rig_mcp_server_free(x->s);
    rig_toolset_free(x->ts);
    free(x->rbuf);
    free(x);
    return 0;
}

static void put(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        assert_true(n > 0);
        s += n;
        len -= (size_t)n;
    }
}

static void puts_in(session *x, const char *s)
{
    put(x->in[1], s, strlen(s));
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The next line of output (malloc'd, without its newline), or NULL at EOF
 * or after timeout_ms. */
static char *line_from(session *x, int fd, int timeout_ms)
{
    double deadline = now_ms() + timeout_ms;
    for (;;) {
        char *nl = x->rlen ? memchr(x->rbuf, '\n', x->rlen) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - x->rbuf);
            char *line = strndup(x->rbuf, n);
            memmove(x->rbuf, nl + 1, x->rlen - n - 1);
            x->rlen -= n + 1;
            return line;
        }
        int left = (int)(deadline - now_ms());
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return NULL;
        if (x->rcap - x->rlen < 65536) {
            x->rcap = x->rcap ? x->rcap * 2 : 1 << 17;
            x->rbuf = realloc(x->rbuf, x->rcap);
        }
        ssize_t n = read(fd, x->rbuf + x->rlen, x->rcap - x->rlen);
        if (n <= 0)
            return NULL;
        x->rlen += (size_t)n;
    }
}

static char *line(session *x)
{
    return line_from(x, x->out[0], 20000);
}

/* The next line must contain `want`. */
static void expect_line(session *x, const char *want)
{
    char *l = line(x);
    if (!l || !strstr(l, want))
        fail_msg("want a line with %s, got %s", want, l ? l : "(nothing)");
    free(l);
}

static void expect_eof(session *x)
{
    char *l = line(x);
    if (l)
        fail_msg("want the end of output, got %s", l);
}

/* ---- tests ---------------------------------------------------------- */

static void test_ping_then_eof(void **state)
{
    session *x = *state;
    start(x);
    puts_in(x, INIT PING "not json\n\n  \r\n" PING);
    close_fd(&x->in[1]);
    expect_line(x, "\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\"");
    expect_line(x, PONG);
    expect_line(x, "\"id\":null,\"error\":{\"code\":-32700");
    expect_line(x, PONG);
    assert_int_equal(finish(x), 0);
    close_fd(&x->out[1]);
    expect_eof(x);
}

static void test_last_line_without_newline(void **state)
{
    session *x = *state;
    start(x);
    puts_in(x, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
    close_fd(&x->in[1]);
    expect_line(x, PONG);
    assert_int_equal(finish(x), 0);
}

static void test_eof_waits_for_running_calls(void **state)
{
    session *x = *state;
    start(x);
    puts_in(x, INIT "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                    "\"slow\",\"arguments\":{\"ms\":300}}}\n" PING);
    double t0 = now_ms();
    close_fd(&x->in[1]);
    expect_line(x, "\"id\":0,");
    expect_line(x, PONG); /* the ping does not wait for the call */
    expect_line(x, "\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"slept\"}]");
    assert_int_equal(finish(x), 0);
    assert_true(now_ms() - t0 >= 250);
}

/* Writes a buffer from its own thread (the transport reads as it writes). */
typedef struct writer {
    int fd;
    char *data;
    size_t len;
    atomic_bool done;
    pthread_t th;
} writer;

static void *write_all(void *p)
{
    writer *w = p;
    put(w->fd, w->data, w->len);
    atomic_store(&w->done, true);
    return NULL;
}

static void test_oversized_line(void **state)
{
    session *x = *state;
    start(x);
    size_t big = (size_t)17 << 20;
    writer w = {.fd = x->in[1], .len = big + 1 + 2 * strlen(PING)};
    w.data = malloc(w.len);
    memcpy(w.data, PING, strlen(PING));
    memset(w.data + strlen(PING), ' ', big);
    w.data[strlen(PING) + big - 1] = 'x';
    w.data[strlen(PING) + big] = '\n';
    memcpy(w.data + strlen(PING) + big + 1, PING, strlen(PING));
    pthread_create(&w.th, NULL, write_all, &w);
    expect_line(x, PONG);
    expect_line(x, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":");
    expect_line(x, PONG);
    pthread_join(w.th, NULL);
    close_fd(&x->in[1]);
    assert_int_equal(finish(x), 0);
    free(w.data);
}

/* A client that sends and does not read: past 64 MiB of unwritten answers
 * the transport stops reading, so the client's writes block; once it reads,
 * everything arrives, in order. */
static void test_backpressure(void **state)
{
    session *x = *state;
    start(x);
    enum { N = 8000 }; /* ~9.5 KB of tools/list each: 76 MB of answers */
    char pad[201];
    memset(pad, 'x', 200);
    pad[200] = '\0';
    size_t cap = strlen(INIT) + (size_t)N * 300;
    writer w = {.fd = x->in[1], .data = malloc(cap)};
    w.len = (size_t)sprintf(w.data, "%s", INIT);
    for (int i = 1; i <= N; i++)
        w.len += (size_t)sprintf(w.data + w.len, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                                                 "\"tools/list\",\"params\":{\"_pad\":\"%s\"}}\n",
                                 i, pad);
    pthread_create(&w.th, NULL, write_all, &w);
    usleep(500 * 1000);
    /* ~1.8 MB of input were read before the output queue filled; the rest
     * (more than the pipe holds) waits. */
    assert_false(atomic_load(&w.done));
    char *l = line(x);
    assert_non_null(l);
    free(l);
    for (int i = 1; i <= N; i++) {
        char want[32];
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%d,", i);
        l = line(x);
        if (!l || strncmp(l, want, strlen(want)) != 0)
            fail_msg("answer %d: got %.80s", i, l ? l : "(nothing)");
        free(l);
    }
    pthread_join(w.th, NULL);
    close_fd(&x->in[1]);
    assert_int_equal(finish(x), 0);
    free(w.data);
}

/* On this thread, so a SIGPIPE left pending would kill the test when the
 * transport unblocks it. */
static void test_client_hangs_up(void **state)
{
    session *x = *state;
    puts_in(x, INIT "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                    "\"slow\",\"arguments\":{\"ms\":10000}}}\n");
    close_fd(&x->out[0]); /* nobody reads: the first write fails with EPIPE */
    double t0 = now_ms();
    rig_error err;
    assert_int_equal(rig_mcp_serve_stdio(x->s, x->serve_in, x->serve_out, &err), 0);
    assert_true(now_ms() - t0 < 5000); /* the running call was cancelled, not awaited */
}

static void test_file_input(void **state)
{
    session *x = *state;
    char path[] = "/tmp/rig-test-stdio-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    put(fd, INIT PING, strlen(INIT PING));
    lseek(fd, 0, SEEK_SET);
    x->serve_in = fd;
    start(x);
    expect_line(x, "\"id\":0,");
    expect_line(x, PONG);
    assert_int_equal(finish(x), 0);
    close(fd);
}

static void test_file_output(void **state)
{
    session *x = *state;
    char path[] = "/tmp/rig-test-stdio-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    x->serve_out = fd;
    start(x);
    puts_in(x, PING PING);
    close_fd(&x->in[1]);
    assert_int_equal(finish(x), 0);
    char buf[256];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, PONG "\n" PONG "\n");
    close(fd);
}

/* One socket both ways, as inetd hands it over. */
static void test_one_socket(void **state)
{
    session *x = *state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    x->serve_in = x->serve_out = sv[1];
    start(x);
    put(sv[0], PING, strlen(PING));
    shutdown(sv[0], SHUT_WR);
    char *l = line_from(x, sv[0], 20000);
    assert_non_null(l);
    assert_string_equal(l, PONG);
    free(l);
    assert_int_equal(finish(x), 0);
    close(sv[0]);
    close(sv[1]);
}

static void test_sigterm_waits_for_calls(void **state)
{
    session *x = *state;
    start(x);
    puts_in(x, INIT "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                    "\"slow\",\"arguments\":{\"ms\":400}}}\n");
    expect_line(x, "\"id\":0,"); /* serving: the signal handler is in place */
    kill(getpid(), SIGTERM);
    expect_line(x, "\"id\":1,\"result\":");
    assert_int_equal(finish(x), 0); /* input (still open) was no longer read */
}

static void test_bad_fds(void **state)
{
    session *x = *state;
    rig_error err;
    assert_int_equal(rig_mcp_serve_stdio(x->s, -1, 1, &err), RIG_EINVAL);
    assert_int_equal(rig_mcp_serve_stdio(NULL, 0, 1, &err), RIG_EINVAL);
    int closed = dup(x->in[0]);
    close(closed);
    assert_int_equal(rig_mcp_serve_stdio(x->s, closed, x->out[1], &err), RIG_EINVAL);
    assert_non_null(strstr(err.message, "cannot be read"));
}

/* The transport works on duplicates and restores the file status flags it
 * shares with them. */
static void test_fds_left_as_they_were(void **state)
{
    session *x = *state;
    int in_flags = fcntl(x->in[0], F_GETFL), out_flags = fcntl(x->out[1], F_GETFL);
    start(x);
    puts_in(x, PING);
    expect_line(x, PONG);
    close_fd(&x->in[1]);
    assert_int_equal(finish(x), 0);
    assert_int_equal(fcntl(x->in[0], F_GETFL), in_flags);
    assert_int_equal(fcntl(x->out[1], F_GETFL), out_flags);
    assert_false(fcntl(x->out[1], F_GETFL) & O_NONBLOCK);
    put(x->out[1], "still open\n", 11);
    expect_line(x, "still open");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ping_then_eof, setup, teardown),
        cmocka_unit_test_setup_teardown(test_last_line_without_newline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eof_waits_for_running_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversized_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_hangs_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigterm_waits_for_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_fds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fds_left_as_they_were, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
