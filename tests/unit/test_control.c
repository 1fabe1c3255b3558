/* test_control.c — the environment control channel (src/env/control.c)
 * over real loopback sockets: a small C environment served in-process on
 * port 0, and blocking clients that send lines and read replies. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "env_testing.h"

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

/* The words of the "exp…" tasks that ended, as "|word|…", so the expiry
 * test can see which parked sessions were ended (end runs on the loop
 * thread; the test reads on its own). */
static pthread_mutex_t ended_lock = PTHREAD_MUTEX_INITIALIZER;
static char ended[4096];

static void end_echo(rig_task_ctx *ctx) {
    char *w = rig_task_ctx_state(ctx);
    if (w && strncmp(w, "exp", 3) == 0) {
        pthread_mutex_lock(&ended_lock);
        size_t n = strlen(ended);
        snprintf(ended + n, sizeof ended - n, "|%s|", w);
        pthread_mutex_unlock(&ended_lock);
    }
    free(w);
}

static bool has_ended(const char *word) {
    char pat[64];
    snprintf(pat, sizeof pat, "|%s|", word);
    pthread_mutex_lock(&ended_lock);
    bool yes = strstr(ended, pat) != NULL;
    pthread_mutex_unlock(&ended_lock);
    return yes;
}

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

/* Graders that each wait for BARRIER_N of them to be running at once (up
 * to 5 s): they score 1 only if the pool ran them side by side. */
#define BARRIER_N 4
static pthread_mutex_t bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_cv = PTHREAD_COND_INITIALIZER;
static int bar_count;

static int grade_barrier(rig_task_ctx *ctx, const rig_answer *a, rig_grade *g, rig_error *err) {
    (void)ctx, (void)a, (void)err;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5;
    pthread_mutex_lock(&bar_lock);
    bar_count++;
    pthread_cond_broadcast(&bar_cv);
    while (bar_count < BARRIER_N)
        if (pthread_cond_timedwait(&bar_cv, &bar_lock, &dl) != 0) break;
    g->score = bar_count >= BARRIER_N ? 1.0 : 0.0;
    pthread_mutex_unlock(&bar_lock);
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
static int64_t park_ms = 0; /* the server's default */

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
    rig_task_spec barrier = {.id = "barrier", .start = start_obj, .grade = grade_barrier};
    assert_int_equal(rig_env_add_task(f->env, &barrier, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &echo, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &obj, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &hang, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &fail, &err), 0);
    assert_int_equal(rig_env_add_task(f->env, &fail, &err), RIG_EEXIST);
    rig_capability cap = {.name = "shell", .protocol = "ssh/2", .url = "ssh://127.0.0.1:1",
                          .params_json = "{\"user\": \"root\"}"};
    assert_int_equal(rig_env_add_capability(f->env, &cap, &err), 0);
    rig_env_serve_opts o = {.grade_timeout_ms = deadline_ms, .park_timeout_ms = park_ms};
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

static int setup_park(void **state) {
    park_ms = 300;
    int rc = setup(state);
    park_ms = 0;
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
    while ((n = env_read(fd, buf, sizeof buf)) > 0)
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

/* Graders that block still run side by side: the pool wakes only a few
 * workers for quick jobs, but a queue that stops moving wakes more. */
static void test_slow_graders_spread(void **state) {
    fixture *f = *state;
    client *cs[BARRIER_N];
    bar_count = 0;
    for (int i = 0; i < BARRIER_N; i++) {
        cs[i] = cl_open(f->port);
        struct timeval tv = {30, 0};
        setsockopt(cs[i]->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        rpc(cs[i], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"barrier\"}}\n", "\"prompt\":\"p\"");
    }
    for (int i = 0; i < BARRIER_N; i++)
        cl_send(cs[i], "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":1}}\n");
    for (int i = 0; i < BARRIER_N; i++) {
        char *r = cl_line(cs[i]);
        assert_non_null(r);
        if (!strstr(r, "\"id\":2,\"result\":{\"score\":1.0}")) fail_msg("grader %d: %s", i, r);
        free(r);
        cl_close(cs[i]);
    }
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

/* ---------------------------------------------------------------- hooks */

/* A port nobody listens on (bound, read, released): a fixed port lets the
 * tests see whether the server had bound it yet. */
static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t alen = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &alen);
    close(fd);
    return ntohs(a.sin_port);
}

/* Whether something accepts connections on the port. */
static bool port_open(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool yes = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return yes;
}

typedef struct hooks {
    int port;
    int fail;               /* the initialize hook's return code */
    atomic_int inits, shutdowns;
    atomic_bool bound_at_init, bound_at_shutdown;
} hooks;

static int on_init(rig_env *env, void *ud, rig_error *err) {
    hooks *h = ud;
    atomic_fetch_add(&h->inits, 1);
    atomic_store(&h->bound_at_init, port_open(h->port));
    if (h->fail) return rig_error_set(err, h->fail, "no database here");
    rig_capability cap = {.name = "tools", .protocol = "mcp/2025-11-25",
                          .url = "http://127.0.0.1:9/mcp", .params_json = "{\"transport\":\"streamable-http\"}"};
    return rig_env_add_capability(env, &cap, err);
}

static int on_shutdown(rig_env *env, void *ud, rig_error *err) {
    (void)env, (void)err;
    hooks *h = ud;
    atomic_store(&h->bound_at_shutdown, port_open(h->port));
    atomic_fetch_add(&h->shutdowns, 1);
    return 0;
}

static rig_env *hook_env(hooks *h) {
    rig_error err;
    rig_env *env = rig_env_new("hooked", NULL, &err);
    assert_non_null(env);
    rig_task_spec echo = {.id = "echo", .start = start_echo, .grade = grade_echo, .end = end_echo};
    assert_int_equal(rig_env_add_task(env, &echo, &err), 0);
    rig_env_on_initialize(env, on_init, h);
    rig_env_on_shutdown(env, on_shutdown, h);
    return env;
}

static void test_hooks(void **state) {
    (void)state;
    hooks h = {.port = free_port()};
    rig_env *env = hook_env(&h);
    rig_env_serve_opts o = {.port = h.port};
    rig_env_server *srv = NULL;
    rig_error err;
    assert_int_equal(rig_env_server_start(env, &o, &srv, &err), 0);
    assert_int_equal(rig_env_server_port(srv), h.port);
    assert_int_equal(atomic_load(&h.inits), 1);
    assert_false(atomic_load(&h.bound_at_init)); /* it ran before the bind */
    client *c = cl_open(h.port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}\n",
        "\"env\":{\"name\":\"hooked\",\"version\":\"0.0.1\"},\"bindings\":[{\"name\":\"tools\","
        "\"protocol\":\"mcp/2025-11-25\",\"url\":\"http://127.0.0.1:9/mcp\","
        "\"params\":{\"transport\":\"streamable-http\"}}]");
    cl_close(c);
    assert_int_equal(atomic_load(&h.shutdowns), 0);
    rig_env_server_stop(srv);
    assert_int_equal(atomic_load(&h.shutdowns), 1); /* after the stop, once */
    assert_false(atomic_load(&h.bound_at_shutdown));
    rig_env_free(env);
}

static void test_init_fails(void **state) {
    (void)state;
    hooks h = {.port = free_port(), .fail = RIG_ENOENT};
    rig_env *env = hook_env(&h);
    rig_env_serve_opts o = {.port = h.port};
    rig_env_server *srv = NULL;
    rig_error err;
    rig_error_clear(&err);
    assert_int_equal(rig_env_server_start(env, &o, &srv, &err), RIG_ENOENT);
    assert_null(srv);
    assert_int_equal(err.code, RIG_ENOENT);
    assert_non_null(strstr(err.message, "no database here"));
    assert_false(port_open(h.port));
    rig_error_clear(&err);
    assert_int_equal(rig_env_serve(env, &o, NULL, NULL, &err), RIG_ENOENT);
    assert_non_null(strstr(err.message, "no database here"));
    assert_false(port_open(h.port));
    assert_int_equal(atomic_load(&h.inits), 2);
    assert_int_equal(atomic_load(&h.shutdowns), 0);
    /* the env is not left marked as serving: it serves once the hook works */
    h.fail = 0;
    assert_int_equal(rig_env_server_start(env, &o, &srv, &err), 0);
    rig_env_server_stop(srv);
    rig_env_free(env);
}

typedef struct serve_arg {
    rig_env *env;
    rig_env_serve_opts opts;
    atomic_int port;
    int rc;
    rig_error err;
} serve_arg;

static void on_ready(int port, void *ud) { atomic_store(&((serve_arg *)ud)->port, port); }

static void *serve_thread(void *p) {
    serve_arg *a = p;
    a->rc = rig_env_serve(a->env, &a->opts, on_ready, a, &a->err);
    return NULL;
}

static void test_serve_stop(void **state) {
    (void)state;
    hooks h = {.port = free_port()};
    serve_arg a = {.env = hook_env(&h), .opts = {.port = h.port}, .rc = -999};
    rig_env_stop(a.env); /* not serving: harmless */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, serve_thread, &a), 0);
    for (int i = 0; i < 2000 && atomic_load(&a.port) == 0; i++) usleep(10 * 1000);
    assert_int_equal(atomic_load(&a.port), h.port);
    client *c = cl_open(h.port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"s\"}}}\n",
        "Say s");
    rig_env_stop(a.env); /* from this thread, while a client holds a task */
    pthread_join(t, NULL);
    assert_int_equal(a.rc, 0);
    assert_null(cl_line(c)); /* its connection was closed */
    cl_close(c);
    assert_int_equal(atomic_load(&h.shutdowns), 1);
    assert_false(port_open(h.port));
    rig_env_free(a.env);
}

/* ---------------------------------------------------------------- expiry */

static bool try_hello(int port, const char *id, const char *want, client **keep) {
    client *c = cl_open(port);
    char line[160];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n", id);
    cl_send(c, line);
    char *r = cl_line(c);
    assert_non_null(r);
    bool yes = strstr(r, want) != NULL;
    free(r);
    if (keep) *keep = c;
    else cl_close(c);
    return yes;
}

/* Start task `word` on a fresh session, drop the socket (parking it), and
 * return the session's id in id. */
static void park_one(int port, const char *word, char id[16]) {
    client *c = cl_open(port);
    hello_id(c, id);
    char line[200];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.start\",\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"%s\"}}}\n", word);
    rpc(c, line, "Say ");
    cl_close(c);
}

/* Wait (up to 30 s: valgrind on a loaded machine) for word's task to end. */
static bool wait_ended(const char *word) {
    for (int i = 0; i < 3000; i++) {
        if (has_ended(word)) return true;
        usleep(10 * 1000);
    }
    return false;
}

static void test_park_expiry(void **state) {
    fixture *f = *state; /* park_timeout_ms = 300 */
    char a[16], b[16], cid[16], w[32];
    /* a parked session is ended after the timeout, then is unknown */
    park_one(f->port, "expA", a);
    assert_true(wait_ended("expA"));
    assert_true(try_hello(f->port, a, "unknown session", NULL));
    /* a resumed one is out of expiry: resume b before its deadline (the
     * machine may be too slow for that: then try again with a new one) */
    client *live = NULL;
    int tries = 0;
    for (;;) {
        snprintf(w, sizeof w, "expB%d", tries);
        park_one(f->port, w, b);
        if (try_hello(f->port, b, "\"session_id\":\"", &live)) break;
        cl_close(live);
        live = NULL;
        assert_true(++tries < 10);
    }
    /* c, parked after b was resumed, expires: the sweep has passed b's
     * deadline, yet b's task lives on */
    park_one(f->port, "expC", cid);
    assert_true(wait_ended("expC"));
    assert_false(has_ended(w));
    char line[128];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"%s\"}}\n", w);
    rpc(live, line, "\"score\":1.0");
    assert_true(wait_ended(w)); /* once the grade's job is freed, just after the reply */
    cl_close(live);
    /* many parked at once all go, and a bare grade then finds none */
    for (int i = 0; i < 20; i++) {
        snprintf(w, sizeof w, "expM%d", i);
        park_one(f->port, w, b);
    }
    for (int i = 0; i < 20; i++) {
        snprintf(w, sizeof w, "expM%d", i);
        assert_true(wait_ended(w));
    }
    client *c = cl_open(f->port);
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n",
        "no task in progress");
    cl_close(c);
}

/* ---------------------------------------------------------------- back-pressure */

#define BIG_TASKS 400
#define BIG_REQUESTS 120

static int setup_big(void **state) {
    fixture *f = calloc(1, sizeof *f);
    rig_error err;
    f->env = rig_env_new("big", "1", &err);
    char desc[1001];
    memset(desc, 'd', 1000);
    desc[1000] = 0;
    for (int i = 0; i < BIG_TASKS; i++) {
        char id[32];
        snprintf(id, sizeof id, "task-%04d", i);
        rig_task_spec t = {.id = id, .description = desc,
                           .args_schema = "{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\"},"
                                          "\"n\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"word\"]}",
                           .start = start_echo, .grade = grade_echo, .end = end_echo};
        assert_int_equal(rig_env_add_task(f->env, &t, &err), 0);
    }
    rig_env_serve_opts o = {.grade_timeout_ms = deadline_ms};
    assert_int_equal(rig_env_server_start(f->env, &o, &f->srv, &err), 0);
    f->port = rig_env_server_port(f->srv);
    *state = f;
    return 0;
}

/* The next line of any length (into *buf, grown as needed); its length, or
 * -1 at EOF. */
static long big_line(int fd, char **buf, size_t *cap, size_t *len, size_t *start) {
    for (;;) {
        char *nl = *len > *start ? memchr(*buf + *start, '\n', *len - *start) : NULL;
        if (nl) {
            long n = (long)(nl - (*buf + *start));
            *nl = 0;
            return n;
        }
        if (*start) {
            memmove(*buf, *buf + *start, *len - *start);
            *len -= *start;
            *start = 0;
        }
        if (*cap - *len < 65536) {
            *cap = *cap * 2 + 65536;
            *buf = realloc(*buf, *cap);
            assert_non_null(*buf);
        }
        ssize_t k = env_read(fd, *buf + *len, *cap - *len);
        if (k <= 0) return -1;
        *len += (size_t)k;
    }
}

static void test_backpressure(void **state) {
    fixture *f = *state;
    client *c = cl_open(f->port);
    struct timeval tv = {60, 0}; /* valgrind writes these replies slowly */
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    /* the size of one reply */
    cl_send(c, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tasks.list\"}\n");
    char *buf = NULL;
    size_t cap = 0, len = 0, start = 0;
    long one = big_line(c->fd, &buf, &cap, &len, &start);
    assert_true(one > BIG_TASKS * 1000);
    start += (size_t)one + 1;
    long before = rss_kib();
    /* pipeline requests whose replies add up to far more than the bound,
     * and read none of them for a while */
    char *reqs = malloc(BIG_REQUESTS * 64);
    size_t rl = 0;
    for (int i = 1; i <= BIG_REQUESTS; i++)
        rl += (size_t)sprintf(reqs + rl, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks.list\"}\n", i);
    cl_send(c, reqs);
    free(reqs);
    long peak = before;
    for (int i = 0; i < 15; i++) { /* 1.5 s: long enough to write them all, unpaced */
        usleep(100 * 1000);
        long now = rss_kib();
        if (now > peak) peak = now;
    }
    long unpaced_kib = (long)BIG_REQUESTS * one / 1024;
    print_message("one reply %ld bytes; %d replies %ld MiB; RSS grew %ld KiB\n", one, BIG_REQUESTS,
                  unpaced_kib / 1024, peak - before);
    /* the 4 MiB queue, the reply being built, one copy in flight: well
     * under the 53 MiB the replies would take */
#ifndef __SANITIZE_THREAD__ /* TSan shadows each byte several times over: RSS says little */
    assert_true(peak - before < 16 * 1024);
#endif
    assert_true(unpaced_kib > 48 * 1024);
    /* now read: every reply arrives, whole and in order */
    for (int i = 1; i <= BIG_REQUESTS; i++) {
        long n = big_line(c->fd, &buf, &cap, &len, &start);
        char head[64];
        int hl = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"tasks\":[", i);
        long want = one - 1 + (i >= 100 ? 3 : i >= 10 ? 2 : 1); /* reply 0's id had one digit */
        if (n != want) fail_msg("reply %d: %ld bytes, wanted %ld", i, n, want);
        if (memcmp(buf + start, head, (size_t)hl) != 0)
            fail_msg("reply %d starts %.60s", i, buf + start);
        start += (size_t)n + 1;
    }
    rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":\"end\",\"method\":\"tasks.cancel\"}\n", "\"id\":\"end\"");
    free(buf);
    cl_close(c);
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
        cmocka_unit_test_setup_teardown(test_slow_graders_spread, setup, teardown),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_init_fails),
        cmocka_unit_test(test_serve_stop),
        cmocka_unit_test_setup_teardown(test_park_expiry, setup_park, teardown),
        cmocka_unit_test_setup_teardown(test_backpressure, setup_big, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
