/* test_control.c — the environment control channel (src/env/control.c)
 * over real loopback sockets: a small C environment served in-process on
 * port 0, and blocking clients that send lines and read replies. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "testing.h"

/* ---------------------------------------------------------------- the env */

static char *start_echo(rig_task_ctx *ctx, rig_json_val args, rig_error *err) {
    (void)err;
    const char *w;
    size_t n;
    rig_json_str_view(rig_json_get(args, "word"), &w, &n);
    char *state = strndup(w, n);
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

static char *start_obj(rig_task_ctx *ctx, rig_json_val args, rig_error *err) {
    (void)ctx, (void)args, (void)err;
    return strdup("{\n\"prompt\": \"p\", \"bindings\": [1]}");
}

static int grade_hang(rig_task_ctx *ctx, const rig_answer *a, rig_grade *g, rig_error *err) {
    (void)ctx, (void)a, (void)g, (void)err;
    usleep(1200 * 1000); /* far past the 300 ms deadline; ignores cancellation */
    g->score = 1;
    return 0;
}

static char *start_fail(rig_task_ctx *ctx, rig_json_val args, rig_error *err) {
    (void)ctx, (void)args;
    rig_error_set(err, RIG_ETOOL, "boom");
    return NULL;
}

static int grade_err(rig_task_ctx *ctx, const rig_answer *a, rig_grade *g, rig_error *err) {
    (void)ctx, (void)a, (void)g;
    return rig_error_set(err, RIG_ETOOL, "grader exploded");
}

typedef struct fixture {
    rig_env *env;
    rig_env_server *srv;
    int port;
} fixture;

/* The deadline of start and grade: short only where a test waits for it
 * (the hung grader); elsewhere long enough for a loaded machine, or
 * valgrind, to start 1,200 tasks without one timing out. */
static int64_t deadline_ms = 10000;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    rig_error err;
    f->env = rig_env_new("testenv", "1.2.3", &err);
    rig_task_spec echo = {.id = "echo", .description = "say a word",
                          .args_schema = "{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\",\"default\":\"hi\"}}}",
                          .returns_schema = "{\"type\":\"string\"}",
                          .start = start_echo, .grade = grade_echo, .end = end_echo};
    rig_task_spec obj = {.id = "obj", .start = start_obj, .grade = grade_err};
    rig_task_spec hang = {.id = "hang", .start = start_obj, .grade = grade_hang};
    rig_task_spec fail = {.id = "fail", .start = start_fail, .grade = grade_err};
    assert_int_equal(rig_env_add_task(f->env, &echo, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &obj, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &hang, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &fail, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &fail, &err), RIG_EEXIST);
    rig_capability cap = {.name = "shell", .protocol = "ssh/2", .url = "ssh://127.0.0.1:1",
                          .params_json = "{\"user\": \"root\"}"};
    assert_int_equal(rig_env_add_capability(f->env, &cap, &err), 0);
    rig_env_serve_opts o = {.grade_timeout_ms = deadline_ms};
    assert_int_equal(rig_env_server_start(f->env, &o, &f->srv, &err), 0);
    f->port = rig_env_server_port(f->srv);
    assert_true(f->port > 0);
    *state = f;
    return 0;
}

static int setup_short(void **state) {
    deadline_ms = 300;
    int rc = setup(state);
    deadline_ms = 10000;
    return rc;
}

static int teardown(void **state) {
    fixture *f = *state;
    rig_env_server_stop(f->srv);
    rig_env_free(f->env);
    free(f);
    return 0;
}

/* ---------------------------------------------------------------- clients */

typedef struct client {
    int fd;
    char buf[65536];
    size_t len;
} client;

static client *cl_open(int port) {
    client *c = calloc(1, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(c->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = {5, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return c;
}

static void cl_close(client *c) {
    close(c->fd);
    free(c);
}

static void cl_send(client *c, const char *s) {
    size_t n = strlen(s), off = 0;
    while (off < n) {
        ssize_t k = write(c->fd, s + off, n - off);
        assert_true(k > 0);
        off += (size_t)k;
    }
}

/* The next line (malloc'd), or NULL at EOF. */
static char *cl_line(client *c) {
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            char *out = strndup(c->buf, n);
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return out;
        }
        ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (k <= 0) return NULL;
        c->len += (size_t)k;
    }
}

/* Send a line, read the reply, and check it contains `want`. */
static void rpc(client *c, const char *line, const char *want) {
    cl_send(c, line);
    char *r = cl_line(c);
    assert_non_null(r);
    if (!strstr(r, want)) fail_msg("reply to %s was %s; wanted %s", line, r, want);
    free(r);
}

/* The session id from a hello reply. */
static void hello_id(client *c, char id[16]) {
    cl_send(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}\n");
    char *r = cl_line(c);
    assert_non_null(r);
    char *p = strstr(r, "\"session_id\":\"");
    assert_non_null(p);
    memcpy(id, p + 14, 13);
    id[13] = 0;
    assert_memory_equal(id, "sess-", 5);
    free(r);
}

/* ---------------------------------------------------------------- tests */

static void test_methods(void **state) {
    fixture *f = *state;
    client *c = cl_open(f->port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}\n",
        "\"env\":{\"name\":\"testenv\",\"version\":\"1.2.3\"},\"bindings\":[{\"name\":\"shell\","
        "\"protocol\":\"ssh/2\",\"url\":\"ssh://127.0.0.1:1\",\"params\":{\"user\":\"root\"}}]");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.list\"}\n",
        "{\"id\":\"echo\",\"description\":\"say a word\",\"args\":{\"type\":\"object\"");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.list\"}\n", "\"returns\":{\"type\":\"string\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"cat\"}}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"prompt\":\"Say cat\"}}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"cat\"}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"score\":1.0}}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"cat\"}}\n",
        "\"error\":{\"code\":-32600,\"message\":\"no task in progress\"}");
    /* defaults apply; an object prompt passes through whole */
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\"}}\n",
        "\"result\":{\"prompt\":\"Say hi\"}");
    /* tasks.start replaces the previous task */
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tasks.start\",\"params\":{\"id\":\"obj\",\"args\":{}}}\n",
        "\"result\":{\"prompt\":\"p\",\"bindings\":[1]}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks.grade\",\"params\":{\"answer\":1}}\n",
        "{\"code\":-32000,\"message\":\"grader failed: grader exploded\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\"}}\n", "Say hi");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tasks.cancel\"}\n", "\"result\":{\"cancelled\":true}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"hi\"}}\n",
        "no task in progress");
    /* errors */
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tasks.start\",\"params\":{\"id\":5}}\n",
        "{\"code\":-32602,\"message\":\"'id' must be a string\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":[]}}\n",
        "{\"code\":-32602,\"message\":\"'args' must be an object\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tasks.start\",\"params\":{\"id\":\"nope\"}}\n",
        "{\"code\":-32602,\"message\":\"unknown task: 'nope'\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":3}}}\n",
        "{\"code\":-32000,\"message\":\"bad task args:");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"tasks.start\",\"params\":{\"id\":\"fail\"}}\n",
        "{\"code\":-32000,\"message\":\"task 'fail' failed to start: boom\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"frobnicate\"}\n", "{\"code\":-32601,");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"hello\",\"params\":{\"session_id\":\"sess-00000000\"}}\n",
        "\"id\":\"s\",\"error\":{\"code\":-32600,\"message\":\"unknown session\"}");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"hello\",\"params\":{\"session_id\":7}}\n", "-32602");
    rpc(c, "[1,2]\n", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tunnel.open\",\"params\":{\"capability\":\"shell\"}}\n",
        "tunnel.open must be the first message");
    /* malformed lines: -32700 and the connection lives on */
    rpc(c, "this is not json\n", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,");
    rpc(c, "{\"unterminated\n", "-32700");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tasks.list\"}\n", "\"id\":21,\"result\"");
    /* a notification gets no reply: the next reply is the request's */
    cl_send(c, "{\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}\n");
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"tasks.cancel\"}\n", "\"id\":22,");
    /* bye answers, then the server closes */
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"bye\"}\n", "\"result\":{\"goodbye\":true}");
    assert_null(cl_line(c));
    cl_close(c);
}

static void test_long_line(void **state) {
    fixture *f = *state;
    client *c = cl_open(f->port);
    size_t n = (size_t)17 << 20;
    char *big = malloc(n + 2);
    memset(big, 'a', n);
    big[n] = '\n';
    big[n + 1] = 0;
    cl_send(c, big);
    free(big);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.cancel\"}\n", "line too long");
    char *r = cl_line(c);
    assert_non_null(r);
    assert_non_null(strstr(r, "\"id\":1,\"result\":{\"cancelled\":true}"));
    free(r);
    cl_close(c);
}

static void test_resume(void **state) {
    fixture *f = *state;
    char id1[16], id2[16];
    /* one parked: a bare tasks.grade resumes it */
    client *a = cl_open(f->port);
    hello_id(a, id1);
    rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"x\"}}}\n", "Say x");
    cl_close(a);
    usleep(50 * 1000);
    client *b = cl_open(f->port);
    rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n", "\"score\":1.0");
    rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n", "no task in progress");
    cl_close(b);

    /* two parked: a bare grade lists them; hello resumes one */
    a = cl_open(f->port);
    hello_id(a, id1);
    rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"one\"}}}\n", "Say one");
    b = cl_open(f->port);
    hello_id(b, id2);
    rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"two\"}}}\n", "Say two");
    /* a live session's id is refused */
    client *c = cl_open(f->port);
    char line[256], want[128];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n", id1);
    snprintf(want, sizeof want, "{\"code\":-32600,\"message\":\"session '%s' has a live connection\"}", id1);
    rpc(c, line, want);
    cl_close(a);
    cl_close(b);
    usleep(50 * 1000);
    cl_send(c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"one\"}}\n");
    char *r = cl_line(c);
    assert_non_null(strstr(r, "-32600"));
    assert_non_null(strstr(r, id1));
    assert_non_null(strstr(r, id2));
    free(r);
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n", id2);
    snprintf(want, sizeof want, "\"session_id\":\"%s\"", id2);
    rpc(c, line, want);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"two\"}}\n", "\"score\":1.0");
    /* now one parked again: resumed by the bare grade on a fresh socket */
    client *d = cl_open(f->port);
    rpc(d, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"one\"}}\n", "\"score\":1.0");
    cl_close(d);
    cl_close(c);
}

typedef struct hang_arg {
    int port;
    char *reply;
} hang_arg;

static void test_hung_grader(void **state) {
    fixture *f = *state;
    client *a = cl_open(f->port);
    rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"hang\"}}\n", "\"prompt\":\"p\"");
    cl_send(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"z\"}}\n");
    /* meanwhile another connection is answered at once */
    client *b = cl_open(f->port);
    for (int i = 0; i < 20; i++)
        rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.list\"}\n", "\"tasks\"");
    rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\"}}\n", "Say hi");
    rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"hi\"}}\n", "\"score\":1.0");
    char *r = cl_line(a);
    assert_non_null(r);
    assert_non_null(strstr(r, "\"id\":2,\"result\":{\"score\":0.0,\"content\":\"grader timed out after 300 ms\",\"isError\":true}"));
    free(r);
    /* the connection goes on */
    rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.list\"}\n", "\"tasks\"");
    cl_close(a);
    cl_close(b);
}

static void *echo_server(void *arg) {
    int lfd = *(int *)arg;
    int fd = accept(lfd, NULL, NULL);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if (write(fd, buf, (size_t)n) != n) break;
    close(fd);
    return NULL;
}

static void test_tunnel(void **state) {
    fixture *f = *state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 4), 0);
    socklen_t alen = sizeof a;
    getsockname(lfd, (struct sockaddr *)&a, &alen);
    char url[64];
    snprintf(url, sizeof url, "tcp://127.0.0.1:%d/x", ntohs(a.sin_port));
    rig_capability cap = {.name = "echo", .protocol = "raw/1", .url = url};
    assert_int_equal(rig_env_add_capability(f->env, &cap, NULL), 0);
    pthread_t t;
    pthread_create(&t, NULL, echo_server, &lfd);

    client *c = cl_open(f->port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tunnel.open\",\"params\":{\"capability\":\"echo\"}}\nearly bytes|",
        "{\"capability\":\"echo\"}");
    cl_send(c, "more bytes\n");
    char *r = cl_line(c);
    assert_string_equal(r, "early bytes|more bytes");
    free(r);
    cl_close(c);
    pthread_join(t, NULL);
    close(lfd);

    c = cl_open(f->port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tunnel.open\",\"params\":{\"capability\":\"nope\"}}\n",
        "{\"code\":-32602,\"message\":\"unknown capability: 'nope'\"}");
    cl_close(c);
}

#define MANY 1200

static void test_many(void **state) {
    fixture *f = *state;
    client **cs = calloc(MANY, sizeof *cs);
    for (int i = 0; i < MANY; i++) {
        cs[i] = cl_open(f->port);
        char line[200];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"w%d\"}}}\n",
                 i, i);
        cl_send(cs[i], line);
    }
    for (int i = 0; i < MANY; i++) {
        char *r = cl_line(cs[i]);
        char want[64];
        snprintf(want, sizeof want, "Say w%d\"", i);
        assert_non_null(r);
        if (!strstr(r, want)) fail_msg("session %d got %s", i, r);
        free(r);
    }
    /* half grade in place; the other half park */
    for (int i = 0; i < MANY; i += 2) {
        char line[200];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"w%d\"}}\n", i);
        rpc(cs[i], line, "\"score\":1.0");
    }
    for (int i = 0; i < MANY; i++) cl_close(cs[i]);
    usleep(200 * 1000);
    client *c = cl_open(f->port);
    char want[64];
    snprintf(want, sizeof want, "%d sessions are parked", MANY / 2);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n", want);
    cl_close(c);
    free(cs);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_methods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hung_grader, setup_short, teardown),
        cmocka_unit_test_setup_teardown(test_tunnel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
