/* test_taskset.c — environments from JSON tasksets (src/env/taskset.c):
 * what the loader refuses and how it says so, prompt templates, per-episode
 * workspaces (copied, isolated, removed), the "tools" capability's tokens
 * over real HTTP, and command graders' sandbox. Served in-process on
 * loopback port 0 and driven over real sockets. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "env/workspace.h"
#include "sandbox/landlock.h"
#include "env_testing.h"

static char tmpl_dir[128];  /* a workspace template */
static char work_dir[128];  /* where episodes' workspaces go */
static char base_dir[64];   /* holds both */

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int group_setup(void **state) {
    (void)state;
    snprintf(base_dir, sizeof base_dir, "/tmp/rig-test-taskset-XXXXXX");
    assert_non_null(mkdtemp(base_dir));
    snprintf(tmpl_dir, sizeof tmpl_dir, "%s/repo", base_dir);
    snprintf(work_dir, sizeof work_dir, "%s/work", base_dir);
    assert_int_equal(mkdir(tmpl_dir, 0755), 0);
    assert_int_equal(mkdir(work_dir, 0700), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/main.c", tmpl_dir);
    write_file(p, "int main(void) { return 1; } /* BUG */\n");
    snprintf(p, sizeof p, "%s/run.sh", tmpl_dir);
    write_file(p, "#!/bin/sh\nexit 0\n");
    assert_int_equal(chmod(p, 0755), 0);
    snprintf(p, sizeof p, "%s/src", tmpl_dir);
    assert_int_equal(mkdir(p, 0750), 0);
    snprintf(p, sizeof p, "%s/src/lib.c", tmpl_dir);
    write_file(p, "lib\n");
    snprintf(p, sizeof p, "%s/link", tmpl_dir);
    assert_int_equal(symlink("main.c", p), 0);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    char why[256];
    assert_int_equal(rig__tree_remove(base_dir, why, sizeof why), 0);
    return 0;
}

/* ---------------------------------------------------------------- loading */

static rig_env *parse(const char *json, rig_error *err) {
    rig_taskset_opts o = {.work_dir = work_dir};
    rig_error_clear(err);
    return rig_taskset_parse(json, strlen(json), base_dir, &o, err);
}

#define TASK(extra) \
    "{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":\"exact\",\"value\":\"x\"}" extra "}]}"

static void refused(const char *json, int code, const char *says) {
    rig_error err;
    rig_env *env = parse(json, &err);
    if (env) fail_msg("loaded: %s", json);
    if (!strstr(err.message, says)) fail_msg("'%s' does not say '%s'", err.message, says);
    assert_int_equal(err.code, code);
}

static void test_load_refusals(void **state) {
    (void)state;
    refused("{\"tasks\": [", RIG_EJSON, "taskset: not valid JSON");
    refused("[1]", RIG_EINVAL, "a JSON object with \"tasks\"");
    refused("{\"tasks\": []}", RIG_EINVAL, "\"tasks\" must be a non-empty array");
    refused("{\"name\": \"n\", \"tasks\": {}}", RIG_EINVAL, "non-empty array");
    refused("{\"nmae\": \"n\", \"tasks\": [1]}", RIG_EINVAL, "unknown member 'nmae'");
    refused("{\"name\":1,\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":"
            "\"exact\",\"value\":\"x\"}}]}",
            RIG_EINVAL, "'name' and 'version' must be strings");
    refused("{\"tasks\": [1]}", RIG_EINVAL, "tasks[0] must be an object");
    refused(TASK(",\"grdaer\":{}"), RIG_EINVAL, "tasks[0]: unknown member 'grdaer'");
    refused("{\"tasks\":[{\"prompt\":\"p\",\"grader\":{\"type\":\"exact\",\"value\":\"x\"}}]}",
            RIG_EINVAL, "tasks[0]: 'id' and 'prompt' are required");
    refused("{\"tasks\":[{\"id\":\"t\",\"grader\":{\"type\":\"exact\",\"value\":\"x\"}}]}",
            RIG_EINVAL, "'id' and 'prompt' are required");
    refused("{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\"}]}", RIG_EINVAL,
            "tasks[0] ('t'): 'grader' is required");
    refused("{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":\"exactly\"}}]}",
            RIG_EINVAL, "tasks[0].grader:");
    refused("{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":\"number\","
            "\"value\":1,\"tolerance\":-1}}]}",
            RIG_EINVAL, "tasks[0].grader:");
    refused(TASK(",\"args\":[1]"), RIG_ESCHEMA, "tasks[0].args must be a JSON Schema");
    refused(TASK(",\"args\":{\"type\":\"objet\"}"), RIG_ESCHEMA, "task 't': bad args schema");
    refused(TASK(",\"returns\":{\"minimum\":\"x\"}"), RIG_ESCHEMA, "bad returns schema");
    refused(TASK(",\"workspace\":\"no-such-dir\""), RIG_EINVAL, "tasks[0].workspace:");
    refused(TASK(",\"workspace\":\"repo/main.c\""), RIG_EINVAL, "tasks[0].workspace:");
    refused(TASK(",\"workspace\":7"), RIG_EINVAL, "are strings too");
    refused(TASK(",\"workspace\":\"\""), RIG_EINVAL, "may not be empty");
    refused("{\"tasks\":[{\"id\":\"a\\u0000b\",\"prompt\":\"p\",\"grader\":{\"type\":\"exact\","
            "\"value\":\"x\"}}]}",
            RIG_EINVAL, "none may hold \\u0000");
    /* a placeholder that names no declared arg: caught at load */
    refused("{\"tasks\":[{\"id\":\"t\",\"prompt\":\"Say {wrod}\",\"args\":{\"type\":\"object\","
            "\"properties\":{\"word\":{}}},\"grader\":{\"type\":\"exact\",\"value\":\"x\"}}]}",
            RIG_EINVAL, "tasks[0].prompt: {wrod} names no property of the task's args");
    /* two tasks with one id */
    refused("{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":\"exact\",\"value\":"
            "\"x\"}},{\"id\":\"t\",\"prompt\":\"p\",\"grader\":{\"type\":\"exact\",\"value\":\"x\"}}]}",
            RIG_EEXIST, "tasks[1]: task 't' already exists");
    /* a workspace needs a work directory */
    rig_error err;
    rig_taskset_opts none = {0};
    const char *ws = TASK(",\"workspace\":\"repo\"");
    assert_null(rig_taskset_parse(ws, strlen(ws), base_dir, &none, &err));
    assert_non_null(strstr(err.message, "need a work directory"));
    /* files */
    assert_null(rig_taskset_load("/nonexistent/tasks.json", NULL, &err));
    assert_int_equal(err.code, RIG_ENOENT);
    assert_non_null(strstr(err.message, "/nonexistent/tasks.json: No such file"));
    assert_null(rig_taskset_load(base_dir, NULL, &err));
    assert_non_null(strstr(err.message, "not a file"));
    assert_null(rig_taskset_parse(NULL, 0, NULL, NULL, &err));
    assert_int_equal(err.code, RIG_EINVAL);
}

static void test_load_file_relative_workspace(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tasks.json", base_dir);
    write_file(path, TASK(",\"workspace\":\"repo\",\"description\":\"d\""));
    rig_error err;
    rig_taskset_opts o = {.work_dir = work_dir};
    rig_env *env = rig_taskset_load(path, &o, &err);
    if (!env) fail_msg("%s", err.message);
    rig_env_free(env);
    /* the same file, read from elsewhere, still finds repo/ beside it */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir("/"), 0);
    env = rig_taskset_load(path, &o, &err);
    assert_int_equal(chdir(cwd), 0);
    if (!env) fail_msg("%s", err.message);
    rig_env_free(env);
    unlink(path);
}

/* ---------------------------------------------------------------- the wire */

/* Sends one request line and returns the reply line (malloc'd). */
static char *rpc(client *c, const char *line) {
    cl_send(c, line);
    cl_send(c, "\n");
    char *r = cl_line(c);
    if (!r) fail_msg("no reply to %s (%s)", line, errno ? strerror(errno) : "the server hung up");
    return r;
}

/* A string member at JSON pointer `ptr` of reply `line`, malloc'd (or NULL). */
static char *member(const char *line, const char *ptr) {
    rig_json_doc *d = parse_ok(line);
    rig_json_val v = rig_json_pointer(rig_json_doc_root(d), ptr);
    char *out = NULL;
    if (rig_json_is_string(v)) {
        size_t n = rig_json_str_len(v);
        out = malloc(n + 1);
        rig_json_str_copy(v, out, n + 1, NULL);
    }
    rig_json_doc_free(d);
    return out;
}

static void expect(client *c, const char *line, const char *reply) {
    char *r = rpc(c, line);
    if (strcmp(r, reply) != 0) fail_msg("%s\n  got  %s\n  want %s", line, r, reply);
    free(r);
}

static const char tasks_json[] =
    "{\"name\":\"ts\",\"version\":\"2.0.0\",\"tasks\":["
    "{\"id\":\"say\",\"description\":\"say a word\",\"args\":{\"type\":\"object\","
    "\"properties\":{\"word\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}},"
    "\"required\":[\"word\"]},"
    "\"prompt\":\"Say {word} {{n}} times: {n}\",\"grader\":{\"type\":\"exact\",\"value\":\"{word}\"}},"
    "{\"id\":\"fix\",\"description\":\"fix main.c\",\"prompt\":\"Fix the bug.\",\"workspace\":\"repo\","
    "\"grader\":{\"type\":\"all\",\"graders\":["
    "{\"name\":\"fixed\",\"type\":\"file_contains\",\"path\":\"main.c\",\"value\":\"return 0\"},"
    "{\"name\":\"runs\",\"type\":\"command\",\"run\":\"./run.sh\"}]}},"
    "{\"id\":\"escape\",\"prompt\":\"p\",\"workspace\":\"repo\","
    "\"grader\":{\"type\":\"command\",\"run\":\"echo x > \\\"$OUT\\\"\"}},"
    "{\"id\":\"tmp\",\"prompt\":\"p\",\"workspace\":\"repo\","
    "\"grader\":{\"type\":\"command\",\"run\":\"echo x > \\\"$TMPDIR/t\\\" && echo y > made\"}},"
    "{\"id\":\"slow\",\"prompt\":\"p\",\"workspace\":\"repo\","
    "\"grader\":{\"type\":\"command\",\"run\":\"echo $$ > pid.tmp && mv pid.tmp pid && exec sleep 60\","
    "\"timeout\":120}}]}";

typedef struct fixture {
    rig_env *env;
    rig_env_server *srv;
    int port;
    rig_roots *roots;
    rig_toolset *ts;
    rig_mcp_server *mcp;
} fixture;

static char ended_sessions[4096];

static void on_tools_end(const char *session, void *ud) {
    (void)ud;
    strncat(ended_sessions, session, sizeof ended_sessions - strlen(ended_sessions) - 2);
    strcat(ended_sessions, " ");
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    rig_error err;
    char empty[300];
    snprintf(empty, sizeof empty, "%s/empty", base_dir);
    mkdir(empty, 0500);
    f->roots = rig_roots_new();
    assert_int_equal(rig_roots_add(f->roots, empty, &err), 0);
    f->ts = rig_toolset_new();
    assert_int_equal(rig_fs_tools_add(f->ts, f->roots, &err), 0);
    rig_mcp_info info = {.name = "rig-test", .version = "1"};
    f->mcp = rig_mcp_server_new(f->ts, &info, &err);
    assert_non_null(f->mcp);
    rig_taskset_opts o = {.work_dir = work_dir, .tools = f->mcp, .roots = f->roots,
                          .on_tools_session_end = on_tools_end};
    f->env = rig_taskset_parse(tasks_json, strlen(tasks_json), base_dir, &o, &err);
    if (!f->env) fail_msg("%s", err.message);
    rig_env_serve_opts so = {.grade_timeout_ms = 60000};
    assert_int_equal(rig_env_server_start(f->env, &so, &f->srv, &err), 0);
    f->port = rig_env_server_port(f->srv);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rig_env_server_stop(f->srv);
    rig_env_free(f->env);
    rig_mcp_server_free(f->mcp);
    rig_toolset_free(f->ts);
    rig_roots_free(f->roots);
    free(f);
    return 0;
}

static client *open_client(const fixture *f) { return cl_open(f->port); }

static void close_client(client *c) { cl_close(c); }

static void test_prompt_template(void **state) {
    fixture *f = *state;
    client *c = open_client(f);
    char *hello = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}");
    assert_non_null(strstr(hello, "\"env\":{\"name\":\"ts\",\"version\":\"2.0.0\"}"));
    assert_non_null(strstr(hello, "{\"name\":\"tools\",\"protocol\":\"mcp/2025-11-25\","
                                  "\"url\":\"http://127.0.0.1:"));
    assert_non_null(strstr(hello, "\"params\":{\"transport\":\"streamable-http\"}"));
    free(hello);
    expect(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.start\",\"params\":{\"id\":\"say\","
              "\"args\":{\"word\":\"h\\u00e9 \\\"x\\\"\",\"n\":3}}}",
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"prompt\":\"Say hé \\\"x\\\" {n} times: 3\"}}");
    expect(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"hé \\\"x\\\"\"}}",
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"score\":1.0}}");
    /* an optional arg the prompt names but the client left out: -32000 */
    char *r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks.start\",\"params\":{\"id\":"
                     "\"say\",\"args\":{\"word\":\"w\"}}}");
    assert_non_null(strstr(r, "\"code\":-32000"));
    assert_non_null(strstr(r, "the prompt refers to {n}, but the task has no arg 'n'"));
    free(r);
    /* args the schema refuses */
    r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks.start\",\"params\":{\"id\":"
               "\"say\",\"args\":{\"n\":1}}}");
    assert_non_null(strstr(r, "\"error\""));
    assert_non_null(strstr(r, "word"));
    free(r);
    close_client(c);
}

static bool exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

static void test_workspaces_isolated(void **state) {
    fixture *f = *state;
    client *a = open_client(f), *b = open_client(f);
    const char *start = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"fix\"}}";
    char *ra = rpc(a, start), *rb = rpc(b, start);
    char *wa = member(ra, "/result/workspace"), *wb = member(rb, "/result/workspace");
    assert_non_null(wa);
    assert_non_null(wb);
    assert_string_not_equal(wa, wb);
    assert_int_equal(strncmp(wa, work_dir, strlen(work_dir)), 0);
    char *pa = member(ra, "/result/prompt");
    assert_string_equal(pa, "Fix the bug.");
    free(pa);
    char *ta = member(ra, "/result/bindings/0/params/auth_token");
    char *tb = member(rb, "/result/bindings/0/params/auth_token");
    assert_int_equal(strlen(ta), 32);
    assert_string_not_equal(ta, tb);

    /* the copy: contents, modes, the symlink as a symlink */
    char p[600], q[600];
    snprintf(p, sizeof p, "%s/main.c", wa);
    char *text = read_all(p);
    assert_string_equal(text, "int main(void) { return 1; } /* BUG */\n");
    free(text);
    struct stat st;
    snprintf(p, sizeof p, "%s/run.sh", wa);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    snprintf(p, sizeof p, "%s/src", wa);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0750);
    snprintf(p, sizeof p, "%s/link", wa);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char target[64] = {0};
    assert_int_equal(readlink(p, target, sizeof target - 1), 6);
    assert_string_equal(target, "main.c");

    /* a fixes its copy; b's and the template stay as they were */
    snprintf(p, sizeof p, "%s/main.c", wa);
    write_file(p, "int main(void) { return 0; }\n");
    snprintf(q, sizeof q, "%s/main.c", wb);
    text = read_all(q);
    assert_non_null(strstr(text, "BUG"));
    free(text);
    snprintf(q, sizeof q, "%s/main.c", tmpl_dir);
    text = read_all(q);
    assert_non_null(strstr(text, "BUG"));
    free(text);

    char *ga = rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"done\"}}");
    char *gb = rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"done\"}}");
    assert_non_null(strstr(ga, "\"score\":1.0"));
    assert_non_null(strstr(ga, "\"subscores\":[{\"name\":\"fixed\""));
    assert_non_null(strstr(gb, "\"score\":0.0"));
    /* graded: the episode is over and its workspace gone */
    for (int i = 0; i < 200 && (exists(wa) || exists(wb)); i++) usleep(10000);
    assert_false(exists(wa));
    assert_false(exists(wb));
    free(ga), free(gb), free(ta), free(tb), free(wa), free(wb), free(ra), free(rb);
    close_client(a);
    close_client(b);
}

static void test_workspace_removed_on_disconnect_cancel(void **state) {
    fixture *f = *state;
    client *c = open_client(f);
    char *r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"fix\"}}");
    char *ws = member(r, "/result/workspace");
    free(r);
    /* an agent making a directory unreadable does not stop the cleanup */
    char p[600];
    snprintf(p, sizeof p, "%s/locked", ws);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/locked/f", ws);
    write_file(p, "x");
    snprintf(p, sizeof p, "%s/locked", ws);
    assert_int_equal(chmod(p, 0), 0);
    /* a starting a new task ends the old one */
    r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.start\",\"params\":{\"id\":\"fix\"}}");
    char *ws2 = member(r, "/result/workspace");
    free(r);
    for (int i = 0; i < 200 && exists(ws); i++) usleep(10000);
    assert_false(exists(ws));
    assert_true(exists(ws2));
    expect(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.cancel\"}",
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"cancelled\":true}}");
    for (int i = 0; i < 200 && exists(ws2); i++) usleep(10000);
    assert_false(exists(ws2));
    free(ws), free(ws2);
    close_client(c);
}

/* ---------------------------------------------------------------- tools over HTTP */

typedef struct http_reply {
    int status;
    char session[64];
    char body[8192];
} http_reply;

static http_reply http_post(const char *url, const char *token, const char *session,
                            const char *body) {
    int port = 0;
    assert_int_equal(sscanf(url, "http://127.0.0.1:%d/mcp", &port), 1);
    int fd = env_connect(port);
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nConnection: close\r\n"
                     "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: %zu\r\n",
                     port, strlen(body));
    if (token) n += snprintf(head + n, sizeof head - (size_t)n, "Authorization: Bearer %s\r\n", token);
    if (session) n += snprintf(head + n, sizeof head - (size_t)n, "Mcp-Session-Id: %s\r\n", session);
    n += snprintf(head + n, sizeof head - (size_t)n, "\r\n");
    env_send(fd, head, (size_t)n);
    env_send(fd, body, strlen(body));
    static char buf[65536];
    size_t len = 0;
    ssize_t k;
    while (len < sizeof buf - 1 && (k = env_read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = 0;
    close(fd);
    http_reply r = {0};
    assert_int_equal(sscanf(buf, "HTTP/1.1 %d", &r.status), 1);
    const char *sid = strcasestr(buf, "\r\nMcp-Session-Id: ");
    if (sid) sscanf(sid + 18, "%63[0-9a-f]", r.session);
    const char *b = strstr(buf, "\r\n\r\n");
    snprintf(r.body, sizeof r.body, "%s", b ? b + 4 : "");
    return r;
}

static const char init_body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

static void test_tools_tokens(void **state) {
    fixture *f = *state;
    client *a = open_client(f), *b = open_client(f);
    const char *start = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"fix\"}}";
    char *ra = rpc(a, start), *rb = rpc(b, start);
    char *url = member(ra, "/result/bindings/0/url");
    char *ta = member(ra, "/result/bindings/0/params/auth_token");
    char *tb = member(rb, "/result/bindings/0/params/auth_token");
    char *wb = member(rb, "/result/workspace");

    /* no token, a made-up one: 401 */
    assert_int_equal(http_post(url, NULL, NULL, init_body).status, 401);
    assert_int_equal(http_post(url, "00000000000000000000000000000000", NULL, init_body).status, 401);
    assert_int_equal(http_post(url, "short", NULL, init_body).status, 401);

    http_reply ia = http_post(url, ta, NULL, init_body);
    assert_int_equal(ia.status, 200);
    assert_true(ia.session[0]);
    /* a's session reads a's workspace (relative paths resolve there) */
    const char *read_main = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                            "{\"name\":\"read_file\",\"arguments\":{\"path\":\"main.c\"}}}";
    http_reply r = http_post(url, ta, ia.session, read_main);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "BUG"));
    /* and nothing else: b's workspace by absolute path is outside its roots */
    char call[1024];
    snprintf(call, sizeof call,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"write_file\",\"arguments\":{\"path\":\"%s/main.c\",\"content\":\"pwned\"}}}", wb);
    r = http_post(url, ta, ia.session, call);
    assert_non_null(strstr(r.body, "\"isError\":true"));
    char p[600];
    snprintf(p, sizeof p, "%s/main.c", wb);
    char *text = read_all(p);
    assert_non_null(strstr(text, "BUG"));
    free(text);
    /* b's token cannot act in a's session */
    assert_int_equal(http_post(url, tb, ia.session, read_main).status, 401);
    /* a writes its fix through the tools and passes */
    r = http_post(url, ta, ia.session,
                  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                  "\"edit_file\",\"arguments\":{\"path\":\"main.c\",\"edits\":[{\"oldText\":"
                  "\"return 1;\",\"newText\":\"return 0;\"}]}}}");
    assert_int_equal(r.status, 200);
    assert_null(strstr(r.body, "\"isError\":true"));
    char *g = rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}");
    assert_non_null(strstr(g, "\"score\":1.0"));
    free(g);
    /* grading took the agent's access away before it graded: by the time
     * the grade is in, the token opens nothing and its session was told */
    assert_non_null(strstr(ended_sessions, "mcp-"));
    assert_int_equal(http_post(url, ta, ia.session, read_main).status, 401);
    assert_int_equal(http_post(url, ta, NULL, init_body).status, 401);
    /* b's token still works */
    assert_int_equal(http_post(url, tb, NULL, init_body).status, 200);
    free(ra), free(rb), free(url), free(ta), free(tb), free(wb);
    close_client(a);
    close_client(b);
}

/* ---------------------------------------------------------------- command graders' sandbox */

static void test_command_grader_sandbox(void **state) {
    fixture *f = *state;
    char out[300];
    snprintf(out, sizeof out, "%s/outside", base_dir);
    setenv("OUT", out, 1);
    client *c = open_client(f);
    free(rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"escape\"}}"));
    char *g = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}");
    if (rig__landlock_abi() > 0) {
        /* the grader's command may not write outside the workspace */
        assert_non_null(strstr(g, "\"score\":0.0"));
        assert_false(exists(out));
    } else {
        printf("# no Landlock in this kernel: the command ran unconfined\n");
        assert_non_null(strstr(g, "\"score\":1.0"));
    }
    free(g);
    /* its private $TMPDIR and the workspace are writable */
    char *r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks.start\",\"params\":{\"id\":\"tmp\"}}");
    free(r);
    g = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}");
    if (!strstr(g, "\"score\":1.0")) fail_msg("%s", g);
    free(g);
    unsetenv("OUT");
    unlink(out);
    close_client(c);
}

/* Stopping the server while a command grader runs kills the command
 * rather than leaving it behind, and does not wait out its timeout. */
static void test_stop_kills_grader_command(void **state) {
    fixture *f = *state;
    client *c = open_client(f);
    char *r = rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks.start\",\"params\":{\"id\":\"slow\"}}");
    char *ws = member(r, "/result/workspace");
    free(r);
    cl_send(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks.grade\",\"params\":{\"answer\":\"x\"}}\n");
    char p[600];
    snprintf(p, sizeof p, "%s/pid", ws);
    char *text = NULL;
    for (int i = 0; i < 3000 && !(text = read_all(p)); i++) usleep(10000);
    assert_non_null(text);
    pid_t pid = (pid_t)atoi(text);
    free(text);
    assert_true(pid > 1);
    assert_int_equal(kill(pid, 0), 0); /* the grader's command runs */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rig_env_server_stop(f->srv);
    f->srv = NULL;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (secs > 30) fail_msg("stopping took %.1f s", secs);
    /* killed and reaped: no such process any more (pids are not reused
     * that fast) */
    bool gone = false;
    for (int i = 0; i < 500 && !gone; i++) {
        gone = kill(pid, 0) != 0 && errno == ESRCH;
        if (!gone) usleep(10000);
    }
    assert_true(gone);
    assert_false(exists(ws)); /* and its workspace went with the episode */
    free(ws);
    close_client(c);
}

/* ---------------------------------------------------------------- copying and removing */

static void test_tree_copy_refusals(void **state) {
    (void)state;
    char why[512], dst[300];
    snprintf(dst, sizeof dst, "%s/copy", base_dir);
    assert_int_equal(rig__tree_copy("/nonexistent", dst, why, sizeof why), -1);
    assert_non_null(strstr(why, "the workspace template /nonexistent"));
    assert_false(exists(dst));
    /* the destination must not exist: nothing of it is touched */
    assert_int_equal(rig__tree_copy(tmpl_dir, work_dir, why, sizeof why), -1);
    assert_non_null(strstr(why, "cannot make the workspace"));
    assert_true(exists(work_dir));
    /* FIFOs are skipped, not opened (which would block) */
    char fifo[400];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpl_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(rig__tree_copy(tmpl_dir, dst, why, sizeof why), 0);
    snprintf(fifo, sizeof fifo, "%s/fifo", dst);
    assert_false(exists(fifo));
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpl_dir);
    unlink(fifo);
    /* removal does not follow a symlink out */
    char victim[300], link[600];
    snprintf(victim, sizeof victim, "%s/victim", base_dir);
    assert_int_equal(mkdir(victim, 0700), 0);
    snprintf(link, sizeof link, "%s/victim/keep", base_dir);
    write_file(link, "k");
    snprintf(link, sizeof link, "%s/out", dst);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(rig__tree_remove(dst, why, sizeof why), 0);
    assert_false(exists(dst));
    snprintf(link, sizeof link, "%s/victim/keep", base_dir);
    assert_true(exists(link));
    assert_int_equal(rig__tree_remove(victim, why, sizeof why), 0);
    /* a missing path is removed already */
    assert_int_equal(rig__tree_remove(dst, why, sizeof why), 0);
}

/* An agent can nest directories far deeper than descriptors are held for
 * (and make some unreadable): removal still takes everything. */
static void test_tree_remove_deep(void **state) {
    (void)state;
    char root[128], why[512];
    snprintf(root, sizeof root, "%s/deep", base_dir);
    assert_int_equal(mkdir(root, 0700), 0);
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    for (int i = 0; i < 500; i++) {
        assert_int_equal(mkdirat(fd, "d", 0700), 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        if (i % 97 == 0) {
            int f = openat(next, "file", O_WRONLY | O_CREAT, 0600);
            assert_true(f >= 0);
            close(f);
        }
        if (i == 250) assert_int_equal(fchmod(fd, 0), 0); /* a locked level midway */
        close(fd);
        fd = next;
    }
    close(fd);
    assert_int_equal(rig__tree_remove(root, why, sizeof why), 0);
    assert_false(exists(root));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_refusals),
        cmocka_unit_test(test_load_file_relative_workspace),
        cmocka_unit_test_setup_teardown(test_prompt_template, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workspaces_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workspace_removed_on_disconnect_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools_tokens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_grader_sandbox, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_kills_grader_command, setup, teardown),
        cmocka_unit_test(test_tree_copy_refusals),
        cmocka_unit_test(test_tree_remove_deep),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
