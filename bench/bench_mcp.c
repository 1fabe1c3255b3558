/* bench_mcp.c — MCP servers under one load generator: cold start, tools/call
 * latency, pipelined throughput and memory, over stdio and Streamable HTTP.
 *
 * Every server is a command line; this program starts it, speaks MCP to it
 * as a client would and measures:
 *
 *   cold start   spawn → initialize → notifications/initialized → tools/list
 *                answered (over HTTP the port is polled with connect() every
 *                1 ms from the spawn on, so the figure includes the wait for
 *                listen()). Median of --cold starts, after one untimed start
 *                that warms the page cache.
 *   latency      sequential tools/call (of echo {"message":"hello"}) on one
 *                session, each timed from the write of the request to the
 *                parsed answer: p50 and p99 over --calls calls.
 *   throughput   --inflight calls (64) kept in flight: over stdio, requests
 *                written back to back on the one pipe, each answer replaced
 *                by a new request (ids matched); over HTTP, 64 keep-alive
 *                connections in one session, each POSTing back to back.
 *                Calls answered per second, median of --runs runs of
 *                --seconds each, and the server's CPU time per call
 *                (/proc/PID/stat, all its threads).
 *   memory       VmRSS right after the cold start's tools/list (idle) and
 *                VmHWM at the end of the load (peak), of the server process.
 *
 * The servers take turns: the cold starts round by round, the latency and
 * throughput runs run by run on long-lived sessions, so a disturbance on the
 * (shared, 2-core) machine hits all of them rather than one. The answers are
 * checked ("Echo: hello", no error, the id asked for) outside the timing;
 * the timed throughput runs check the id and that no answer is an error.
 *
 *   bench_mcp [--cold N] [--calls N] [--runs N] [--seconds S] [--inflight K]
 *             [--vs NAME] [--title TEXT]
 *             --stdio NAME 'COMMAND' [CALL] ...
 *             --http NAME 'COMMAND' URL [CALL] ...
 *
 *   CALL: --tool TOOL --args JSON --expect TEXT [--alt-args JSON]
 *         [--alt-expect TEXT] [--task LABEL]
 *
 * The call is echo {"message":"hello"} unless CALL, after a server, gives
 * another tool, its arguments and a text its answer must contain (see
 * `work` below: alternating arguments, "{slot}"); the file tools benchmark
 * (run.sh --only fs) gives rig serve and server-filesystem three rows each
 * this way. Rows with the same command share one server's cold starts.
 *
 * COMMAND is split at spaces (no shell) and run in its own process group;
 * give the server binary itself, not a wrapper (npx, sh), or the memory
 * figures are the wrapper's. For HTTP, every "{port}" in COMMAND and URL
 * becomes a free loopback port chosen for each start, which is also in the
 * environment as PORT; URL must be http:// on a loopback address. A server
 * that exits or never answers on its first start is reported as skipped,
 * with the last line of its stderr (how a server without HTTP support shows
 * up). --vs NAME adds a table of ratios against that server, transport by
 * transport (and task by task). The client is one thread: the JSON-RPC is
 * parsed with rig's parser, HTTP/1.1 is spoken on raw sockets
 * (Content-Length and chunked bodies; JSON or SSE answers). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "rig/rig.h"

#ifndef BENCH_BUILD
#define BENCH_BUILD "unknown build type"
#endif

extern char **environ;

#define MAX_PEERS 12
#define MAX_COLD 500
#define MAX_INFLIGHT 1024
#define START_TIMEOUT 30.0 /* seconds: node's first start from a cold disk is slow */
#define CALL_TIMEOUT 10.0
#define SLOTS 8192 /* id → in-flight table for stdio; a power of two above MAX_INFLIGHT */
#define PROTOCOL "2025-11-25"

typedef enum transport { STDIO, HTTP } transport;
static const char *const transport_name[] = {"stdio", "Streamable HTTP"};

static const char k_init[] =
    "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"initialize\",\"params\":{"
    "\"protocolVersion\":\"" PROTOCOL "\",\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"bench_mcp\",\"version\":\"1.0.0\"}}}";
static const char k_initialized[] =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
static const char k_list[] = "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/list\"}";
/* The call made unless --tool says otherwise, and its answer. */
static const char k_echo_tool[] = "echo";
static const char k_echo_args[] = "{\"message\":\"hello\"}";
static const char k_want[] = "Echo: hello";

static void kill_live(void);

void bench_die(const char *fmt, ...) {
    kill_live();
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_mcp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- byte buffers ---------------------------------------------------- */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_reserve(buf *b, size_t more) {
    if (b->cap - b->len >= more)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < more)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p)
        bench_die("out of memory");
    b->cap = cap;
}

static void buf_add(buf *b, const void *p, size_t n) {
    buf_reserve(b, n + 1);
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(buf *b, const char *s) {
    buf_add(b, s, strlen(s));
}

static void buf_drop(buf *b, size_t n) {
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void buf_free(buf *b) {
    free(b->p);
    *b = (buf){0};
}

/* ---- small helpers ----------------------------------------------------- */

/* 1 when fd is ready, 0 when the deadline (bench_now_s time) passed. */
static int wait_fd(int fd, short events, double deadline) {
    for (;;) {
        double left = deadline - bench_now_s();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            bench_die("poll: %s", strerror(errno));
    }
}

static void write_all(int fd, const char *p, size_t n, const char *who) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            wait_fd(fd, POLLOUT, bench_now_s() + CALL_TIMEOUT);
            continue;
        }
        if (w <= 0)
            bench_die("%s: write: %s", who, strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank, on sorted v. */
static double percentile(const double *v, size_t n, double q) {
    size_t k = (size_t)ceil(q * (double)n);
    return v[k ? k - 1 : 0];
}

/* A loopback port nothing listens on now. */
static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        bench_die("cannot find a free port: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

/* `tmpl` with every "{port}" replaced; malloc'd. */
static char *with_port(const char *tmpl, int port) {
    buf b = {0};
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{port}", 6) == 0) {
            char num[16];
            buf_add(&b, num, (size_t)snprintf(num, sizeof num, "%d", port));
            p += 6;
        } else {
            buf_add(&b, p++, 1);
        }
    }
    buf_add(&b, "", 0);
    return b.p;
}

/* ---- the server process -------------------------------------------------- */

/* Servers running now, killed by bench_die so that a failed run leaves no
 * orphans behind. */
static pid_t live[16];
static int nlive;

static void forget(pid_t pid) {
    for (int i = 0; i < nlive; i++)
        if (live[i] == pid) {
            live[i] = live[--nlive];
            return;
        }
}

typedef struct proc {
    pid_t pid;
    int to, from; /* stdio: its stdin and stdout; -1 over HTTP */
    int err;      /* its stderr: a deleted temp file, read when it fails */
    bool reaped;
    int status;
    long maxrss_kb; /* from wait4 */
    double t_spawn; /* bench_now_s() just before the spawn: cold start's zero */
} proc;

/* 0, or an errno value when the command cannot be run. */
static int proc_spawn(proc *p, transport tr, char *cmdline, int port) {
    *p = (proc){.pid = -1, .to = -1, .from = -1, .err = -1};
    char *argv[64];
    int argc = 0;
    char *save = NULL;
    for (char *t = strtok_r(cmdline, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (argc == 63)
            bench_die("command has too many words: %s", cmdline);
        argv[argc++] = t;
    }
    argv[argc] = NULL;
    if (!argc)
        bench_die("empty command");

    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = calloc(nenv + 2, sizeof *envp), portvar[32];
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++)
        if (strncmp(environ[i], "PORT=", 5) != 0)
            envp[k++] = environ[i];
    if (port) {
        snprintf(portvar, sizeof portvar, "PORT=%d", port);
        envp[k++] = portvar;
    }

    char tmpl[4096];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/bench_mcp.stderr.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    p->err = mkostemp(tmpl, O_CLOEXEC);
    if (p->err < 0)
        bench_die("mkostemp: %s", strerror(errno));
    unlink(tmpl);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (tr == STDIO) {
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
            bench_die("pipe: %s", strerror(errno));
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    } else {
        /* Over HTTP stdout is free for the server's own logging. */
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_adddup2(&fa, p->err, 2);
    /* This process ignores SIGPIPE; the server gets the default back. Its own
     * process group lets one kill() reach whatever it starts. */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t def, none;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETPGROUP);
    p->t_spawn = bench_now_s();
    int rc = posix_spawnp(&p->pid, argv[0], &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(envp);
    if (rc != 0) {
        if (tr == STDIO) {
            close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        }
        close(p->err);
        p->err = -1;
        p->reaped = true;
        return rc;
    }
    if (nlive == (int)(sizeof live / sizeof *live))
        bench_die("too many servers at once");
    live[nlive++] = p->pid;
    if (tr == STDIO) {
        close(in[0]);
        close(out[1]);
        p->to = in[1];
        p->from = out[0];
    }
    return 0;
}

static bool proc_alive(proc *p) {
    if (p->reaped)
        return false;
    struct rusage ru;
    pid_t r = wait4(p->pid, &p->status, WNOHANG, &ru);
    if (r == p->pid) {
        p->reaped = true;
        p->maxrss_kb = ru.ru_maxrss;
        forget(p->pid);
        return false;
    }
    return true;
}

/* The last non-empty line the server wrote to stderr, into out. */
static void proc_last_words(proc *p, char *out, size_t cap) {
    char tail[1024];
    off_t end = lseek(p->err, 0, SEEK_END);
    off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t n = pread(p->err, tail, (size_t)(end - from), from);
    if (n < 0)
        n = 0;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        n--;
    tail[n] = '\0';
    char *line = strrchr(tail, '\n');
    const char *from_line = line ? line + 1 : tail;
    if (!*from_line)
        from_line = "(nothing on stderr)";
    /* Cut, not snprintf: a long line is expected and fine to lose the end of. */
    size_t n_out = strlen(from_line) < cap ? strlen(from_line) : cap - 1;
    memcpy(out, from_line, n_out);
    out[n_out] = '\0';
}

/* Ends the server: SIGTERM to its group, SIGKILL after 3 s. */
static void proc_stop(proc *p) {
    if (p->to >= 0)
        close(p->to);
    if (p->from >= 0)
        close(p->from);
    p->to = p->from = -1;
    if (proc_alive(p)) {
        kill(-p->pid, SIGTERM);
        double give_up = bench_now_s() + 3;
        while (proc_alive(p) && bench_now_s() < give_up)
            sleep_s(0.001);
        if (!p->reaped) {
            kill(-p->pid, SIGKILL);
            struct rusage ru;
            if (wait4(p->pid, &p->status, 0, &ru) == p->pid)
                p->maxrss_kb = ru.ru_maxrss;
            p->reaped = true;
            forget(p->pid);
        }
    }
    if (p->err >= 0)
        close(p->err);
    p->err = -1;
}

static void kill_live(void) {
    for (int i = 0; i < nlive; i++) {
        kill(-live[i], SIGKILL);
        waitpid(live[i], NULL, 0);
    }
    nlive = 0;
}

/* A "Vm...:" line of /proc/PID/status in kB, or -1. */
static long proc_vm_kb(pid_t pid, const char *key) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    size_t klen = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0) {
            kb = strtol(line + klen, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return kb;
}

/* User + system CPU seconds of the process, all its threads. */
static double proc_cpu_s(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    /* Fields after the command name, which may hold spaces and parentheses. */
    char *p = strrchr(text, ')');
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ---- JSON-RPC ------------------------------------------------------------ */

/* Parses one message into doc. 1: a response (its id in *id); 0: anything
 * else (a notification, a request from the server); an error response or a
 * broken message ends the benchmark. */
static int rpc_read(rig_json_doc *doc, const char *msg, size_t len, long *id) {
    int show = (int)(len > 300 ? 300 : len);
    if (rig_json_doc_parse(doc, msg, len, NULL, NULL) != 0)
        bench_die("the server sent something that is not JSON: %.*s", show, msg);
    rig_json_val root = rig_json_doc_root(doc);
    rig_json_val idv = rig_json_get(root, "id");
    bool request = rig_json_typeof(rig_json_get(root, "method")) != RIG_JSON_MISSING;
    if (request || rig_json_typeof(idv) == RIG_JSON_MISSING)
        return 0;
    if (rig_json_typeof(rig_json_get(root, "error")) != RIG_JSON_MISSING)
        bench_die("the server answered with an error: %.*s", show, msg);
    int64_t v;
    if (rig_json_get_int64(idv, &v) != 0 ||
        rig_json_typeof(rig_json_get(root, "result")) != RIG_JSON_OBJECT)
        bench_die("a response without an integer id or a result: %.*s", show, msg);
    *id = (long)v;
    return 1;
}

/* ---- the call each peer makes ------------------------------------------- */

/* What every tools/call to one server asks: echo {"message":"hello"}, or what
 * --tool, --args and --expect say. With --alt-args the calls on one slot
 * (the sequential calls are slot 0; in the throughput runs each call in
 * flight has its own slot) alternate between the two argument sets, so an
 * edit can be undone by the next call. "{slot}" in the arguments becomes the
 * slot's number: each call in flight can work on a file of its own. */
typedef struct work {
    const char *tool, *task; /* task: the row's name, and what --vs pairs */
    const char *args[2], *expect[2]; /* [1]: the --alt-args call */
    bool exact;                      /* the default echo: the text must equal expect */
    bool alt, per_slot;
    char **tail[2];  /* per slot (or one for all): the request after its id */
    size_t *tail_len[2];
    unsigned char flip[MAX_INFLIGHT]; /* per slot: the variant its next call uses */
} work;

static void work_default(work *w) {
    *w = (work){.tool = k_echo_tool, .task = k_echo_tool, .args = {k_echo_args},
                .expect = {k_want}, .exact = true};
}

/* Builds the request tails for `slots` slots: the arguments with "{slot}"
 * replaced, checked to be a JSON object. */
static void work_build(work *w, const char *who, int slots) {
    for (const char *t = w->tool; *t; t++)
        if (*t == '"' || *t == '\\' || (unsigned char)*t < 0x20)
            bench_die("%s: --tool takes a plain tool name", who);
    w->alt = w->args[1] != NULL;
    if (w->alt && !w->expect[1])
        w->expect[1] = w->expect[0];
    w->per_slot = strstr(w->args[0], "{slot}") || (w->alt && strstr(w->args[1], "{slot}"));
    int n = w->per_slot ? slots : 1;
    rig_json_doc *doc = rig_json_doc_new();
    for (int v = 0; v < (w->alt ? 2 : 1); v++) {
        w->tail[v] = calloc((size_t)n, sizeof *w->tail[v]);
        w->tail_len[v] = calloc((size_t)n, sizeof *w->tail_len[v]);
        if (!doc || !w->tail[v] || !w->tail_len[v])
            bench_die("out of memory");
        for (int k = 0; k < n; k++) {
            buf b = {0};
            buf_str(&b, ",\"method\":\"tools/call\",\"params\":{\"name\":\"");
            buf_str(&b, w->tool);
            buf_str(&b, "\",\"arguments\":");
            size_t at = b.len;
            for (const char *p = w->args[v]; *p;) {
                if (strncmp(p, "{slot}", 6) == 0) {
                    char num[16];
                    buf_add(&b, num, (size_t)snprintf(num, sizeof num, "%d", k));
                    p += 6;
                } else {
                    buf_add(&b, p++, 1);
                }
            }
            if (rig_json_doc_parse(doc, b.p + at, b.len - at, NULL, NULL) != 0 ||
                rig_json_typeof(rig_json_doc_root(doc)) != RIG_JSON_OBJECT)
                bench_die("%s: the arguments are not a JSON object: %s", who, b.p + at);
            buf_str(&b, "}}");
            w->tail[v][k] = b.p;
            w->tail_len[v][k] = b.len;
        }
    }
    rig_json_doc_free(doc);
}

/* Appends the next call on `slot` with id `id` to out (a newline after it
 * with `nl`) and returns the variant it is (0, or 1 for --alt-args). */
static int work_request(work *w, buf *out, long id, int slot, bool nl) {
    int v = w->alt ? w->flip[slot] : 0;
    if (w->alt)
        w->flip[slot] ^= 1;
    char head[48];
    int n = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%ld", id);
    int k = w->per_slot ? slot : 0;
    buf_add(out, head, (size_t)n);
    buf_add(out, w->tail[v][k], w->tail_len[v][k]);
    if (nl)
        buf_add(out, "\n", 1);
    return v;
}

/* The tools/call answer in doc is not an error result (the only check of
 * the timed throughput runs, besides the id: a lookup in a parsed answer). */
static void check_ok(const rig_json_doc *doc, const char *who) {
    rig_json_val r = rig_json_get(rig_json_doc_root(doc), "result");
    bool is_error = false;
    rig_json_get_bool(rig_json_get(r, "isError"), &is_error);
    if (is_error) {
        char text[400] = "";
        rig_json_str_copy(rig_json_get(rig_json_at(rig_json_get(r, "content"), 0), "text"), text,
                          sizeof text, NULL);
        bench_die("%s: the tool answered with an error: %s", who, text);
    }
}

/* The tools/call answer in doc is the one expected of variant v: for echo,
 * the text "Echo: hello"; otherwise a text block that contains expect[v]. */
static void check_answer(const rig_json_doc *doc, const work *w, int v, const char *who) {
    check_ok(doc, who);
    rig_json_val content = rig_json_get(rig_json_get(rig_json_doc_root(doc), "result"), "content");
    if (w->exact) {
        if (!rig_json_str_eq(rig_json_get(rig_json_at(content, 0), "text"), w->expect[v]))
            bench_die("%s: %s answered something else than \"%s\"", who, w->tool, w->expect[v]);
        return;
    }
    rig_json_iter it = rig_json_iter_init(content);
    rig_json_val block;
    size_t want = strlen(w->expect[v]);
    while (rig_json_iter_next(&it, &block)) {
        rig_json_val text = rig_json_get(block, "text");
        size_t len = rig_json_str_len(text);
        char *copy = malloc(len + 1);
        if (!copy)
            bench_die("out of memory");
        bool found = rig_json_str_copy(text, copy, len + 1, NULL) == 0 &&
                     memmem(copy, len, w->expect[v], want) != NULL;
        free(copy);
        if (found)
            return;
    }
    bench_die("%s: no text block of %s's answer contains \"%s\"", who, w->tool, w->expect[v]);
}

/* The tools/list answer in doc lists `tool`. */
static bool has_tool(const rig_json_doc *doc, const char *tool) {
    rig_json_val tools = rig_json_get(rig_json_get(rig_json_doc_root(doc), "result"), "tools");
    rig_json_iter it = rig_json_iter_init(tools);
    rig_json_val t;
    while (rig_json_iter_next(&it, &t))
        if (rig_json_str_eq(rig_json_get(t, "name"), tool))
            return true;
    return false;
}

/* ---- HTTP/1.1 on loopback ------------------------------------------------ */

typedef struct hconn {
    int fd;
    buf in; /* bytes read and not yet parsed */
    /* the response parsed last */
    int status;
    bool keep; /* the connection stays open after it */
    bool sse;  /* text/event-stream */
    char sid[256];
    buf body; /* decoded (chunked) */
    /* throughput: the call in flight */
    long want;
    int variant;
    bool busy;
} hconn;

typedef struct endpoint {
    struct sockaddr_in addr;
    char host[80]; /* for the Host header */
    char path[256];
} endpoint;

static int parse_url(const char *url, endpoint *e, char *why, size_t cap) {
    *e = (endpoint){.addr.sin_family = AF_INET};
    char host[64];
    int port = 0, n = 0;
    if (sscanf(url, "http://%63[^:/]:%d%n", host, &port, &n) != 2 || port <= 0 || port > 65535 ||
        (url[n] != '/' && url[n] != '\0')) {
        snprintf(why, cap, "URL %s: want http://HOST:PORT/PATH", url);
        return -1;
    }
    snprintf(e->path, sizeof e->path, "%s", url[n] ? url + n : "/");
    snprintf(e->host, sizeof e->host, "%s:%d", host, port);
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &e->addr.sin_addr) != 1 ||
        (ntohl(e->addr.sin_addr.s_addr) >> 24) != 127) {
        snprintf(why, cap, "URL %s: only IPv4 loopback addresses (127.x.x.x, localhost)", url);
        return -1;
    }
    e->addr.sin_port = htons((uint16_t)port);
    return 0;
}

/* A connected socket, or -1 with errno. */
static int http_connect(const endpoint *e) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (const struct sockaddr *)&e->addr, sizeof e->addr) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    /* Requests go in one write each; Nagle would only hold them back. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void http_post(hconn *c, const endpoint *e, const char *sid, const char *json, size_t len) {
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "POST %s HTTP/1.1\r\n"
                     "Host: %s\r\n"
                     "Content-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\n"
                     "Content-Length: %zu\r\n"
                     "%s%s%s%s"
                     "\r\n",
                     e->path, e->host, len, sid ? "Mcp-Session-Id: " : "", sid ? sid : "",
                     sid ? "\r\n" : "", sid ? "MCP-Protocol-Version: " PROTOCOL "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof head)
        bench_die("request head too long");
    struct iovec iov[2] = {{head, (size_t)n}, {(void *)json, len}};
    size_t left = (size_t)n + len;
    while (left) {
        ssize_t w = writev(c->fd, iov, 2);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            bench_die("HTTP: write: %s", strerror(errno));
        left -= (size_t)w;
        for (int i = 0; i < 2; i++) {
            size_t k = (size_t)w < iov[i].iov_len ? (size_t)w : iov[i].iov_len;
            iov[i].iov_base = (char *)iov[i].iov_base + k;
            iov[i].iov_len -= k;
            w -= (ssize_t)k;
        }
    }
}

/* Does header line [p, p+n) name `name`? Then *val is its trimmed value. */
static bool header_is(const char *p, size_t n, const char *name, const char **val, size_t *vlen) {
    size_t k = strlen(name);
    if (n <= k || p[k] != ':' || strncasecmp(p, name, k) != 0)
        return false;
    const char *v = p + k + 1, *end = p + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *val = v;
    *vlen = (size_t)(end - v);
    return true;
}

static bool contains_token(const char *v, size_t n, const char *tok) {
    size_t k = strlen(tok);
    for (size_t i = 0; i + k <= n; i++)
        if (strncasecmp(v + i, tok, k) == 0)
            return true;
    return false;
}

/* Parses a whole response from the front of c->in. 1: done (status, headers
 * and decoded body in c, its bytes dropped from c->in); 0: more bytes
 * needed. `eof`: the peer closed, so a body without a length ends here.
 * Re-parsing from the start on every read is quadratic in theory; MCP
 * answers are a few hundred bytes, so it never matters here. */
static int http_parse(hconn *c, bool eof) {
    for (;;) {
        const char *p = c->in.p;
        size_t n = c->in.len;
        const char *hend = n ? memmem(p, n, "\r\n\r\n", 4) : NULL;
        if (!hend)
            return 0;
        size_t hlen = (size_t)(hend - p) + 4;
        if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ')
            bench_die("HTTP: not a response: %.40s", p);
        int status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
        bool keep = p[7] == '1', chunked = false, sse = false;
        long clen = -1;
        char sid[256] = "";
        const char *line = (const char *)memchr(p, '\n', hlen) + 1;
        while (line < p + hlen - 2) {
            const char *nl = memchr(line, '\n', (size_t)(p + hlen - line));
            size_t ll = (size_t)(nl - line) - (nl > line && nl[-1] == '\r');
            const char *v;
            size_t vl;
            if (header_is(line, ll, "content-length", &v, &vl)) {
                char num[32];
                snprintf(num, sizeof num, "%.*s", (int)(vl < 31 ? vl : 31), v);
                clen = strtol(num, NULL, 10);
            } else if (header_is(line, ll, "transfer-encoding", &v, &vl)) {
                chunked = contains_token(v, vl, "chunked");
            } else if (header_is(line, ll, "connection", &v, &vl)) {
                if (contains_token(v, vl, "close"))
                    keep = false;
                else if (contains_token(v, vl, "keep-alive"))
                    keep = true;
            } else if (header_is(line, ll, "content-type", &v, &vl)) {
                sse = vl >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
            } else if (header_is(line, ll, "mcp-session-id", &v, &vl)) {
                if (vl >= sizeof sid)
                    bench_die("HTTP: session id longer than %zu bytes", sizeof sid - 1);
                memcpy(sid, v, vl);
                sid[vl] = '\0';
            }
            line = nl + 1;
        }
        if (status / 100 == 1) { /* interim (100 Continue): the real one follows */
            buf_drop(&c->in, hlen);
            continue;
        }

        c->body.len = 0;
        size_t pos = hlen;
        if (chunked) {
            for (;;) {
                const char *crlf = memmem(p + pos, n - pos, "\r\n", 2);
                if (!crlf)
                    return 0;
                char num[32];
                size_t nl = (size_t)(crlf - (p + pos));
                snprintf(num, sizeof num, "%.*s", (int)(nl < 31 ? nl : 31), p + pos);
                char *end;
                unsigned long size = strtoul(num, &end, 16);
                if (end == num)
                    bench_die("HTTP: bad chunk size '%s'", num);
                pos = (size_t)(crlf - p) + 2;
                if (size == 0) {
                    for (;;) { /* trailers, then an empty line */
                        crlf = memmem(p + pos, n - pos, "\r\n", 2);
                        if (!crlf)
                            return 0;
                        bool empty = crlf == p + pos;
                        pos = (size_t)(crlf - p) + 2;
                        if (empty)
                            break;
                    }
                    break;
                }
                if (n - pos < size + 2)
                    return 0;
                buf_add(&c->body, p + pos, size);
                pos += size;
                if (memcmp(p + pos, "\r\n", 2) != 0)
                    bench_die("HTTP: chunk not followed by CRLF");
                pos += 2;
            }
        } else if (clen >= 0) {
            if (n - hlen < (size_t)clen)
                return 0;
            buf_add(&c->body, p + hlen, (size_t)clen);
            pos = hlen + (size_t)clen;
        } else if (status != 204 && status != 304) {
            if (!eof)
                return 0;
            buf_add(&c->body, p + hlen, n - hlen);
            pos = n;
            keep = false;
        }
        buf_add(&c->body, "", 0);
        c->status = status;
        c->keep = keep;
        c->sse = sse;
        snprintf(c->sid, sizeof c->sid, "%s", sid);
        buf_drop(&c->in, pos);
        return 1;
    }
}

/* One read into c->in. 1: bytes came; 0: the peer closed; dies on errors. */
static int http_fill(hconn *c) {
    for (;;) {
        buf_reserve(&c->in, 16384);
        ssize_t r = read(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            bench_die("HTTP: read: %s", strerror(errno));
        c->in.len += (size_t)r;
        return r > 0;
    }
}

/* Waits for a whole response. 1: in c; 0: timeout; -1: closed before it. */
static int http_wait(hconn *c, double deadline) {
    for (;;) {
        if (http_parse(c, false))
            return 1;
        if (!wait_fd(c->fd, POLLIN, deadline))
            return 0;
        if (!http_fill(c))
            return http_parse(c, true) ? 1 : -1;
    }
}

/* The next SSE event's data from body[*pos..], in `data`: 1, or 0 at the
 * end. Events without data (the priming event that gives a resumption id)
 * are skipped. */
static int sse_next(const char *body, size_t len, size_t *pos, buf *data) {
    data->len = 0;
    bool have = false;
    while (*pos < len) {
        const char *line = body + *pos;
        const char *nl = memchr(line, '\n', len - *pos);
        size_t ll = nl ? (size_t)(nl - line) : len - *pos;
        *pos += ll + (nl != NULL);
        if (ll && line[ll - 1] == '\r')
            ll--;
        if (ll == 0) { /* dispatch */
            if (have && data->len)
                return 1;
            data->len = 0;
            have = false;
            continue;
        }
        if (ll >= 4 && memcmp(line, "data", 4) == 0 && (ll == 4 || line[4] == ':')) {
            const char *v = line + (ll == 4 ? 4 : 5);
            size_t vl = ll - (size_t)(v - line);
            if (vl && *v == ' ')
                v++, vl--;
            if (have)
                buf_add(data, "\n", 1);
            buf_add(data, v, vl);
            have = true;
        }
    }
    return have && data->len ? 1 : 0;
}

/* ---- a session with one server ------------------------------------------- */

typedef struct peer peer;

typedef struct session {
    peer *pr;
    proc proc;
    rig_json_doc *doc;
    long next_id;
    /* stdio */
    buf rx;
    size_t rx_pos; /* rx bytes before this are handled */
    /* HTTP */
    endpoint ep;
    char sid[256];
    bool has_sid;
    hconn main;
    hconn *conns; /* --inflight connections for the throughput runs */
    buf sse;
    buf req; /* requests being written */
} session;

struct peer {
    const char *name;
    transport tr;
    const char *cmd, *url; /* templates */
    work w;
    int same_as; /* an earlier peer with the same command (its cold starts count), or -1 */
    bool skipped, ever_started;
    char why[600];
    double cold[MAX_COLD];
    double idle_kb[MAX_COLD];
    int ncold;
    double *lat;
    size_t nlat;
    double tput[BENCH_MAX_RUNS];
    int ntput;
    double cpu_s;
    long tput_calls; /* every call of the throughput runs, drained ones too */
    long reconnects;
    double peak_kb;
    session s; /* the long-lived one */
};

/* The next line from the server's stdout, or NULL when none comes before the
 * deadline (deadline 0: only what is already read). The line is valid until
 * the next call. */
static const char *stdio_line(session *s, size_t *len, double deadline) {
    for (;;) {
        char *start = s->rx.p + s->rx_pos;
        size_t avail = s->rx.len - s->rx_pos;
        char *nl = avail ? memchr(start, '\n', avail) : NULL;
        if (nl) {
            size_t l = (size_t)(nl - start);
            s->rx_pos += l + 1;
            if (l && start[l - 1] == '\r')
                l--;
            if (!l)
                continue;
            *len = l;
            return start;
        }
        if (s->rx_pos) {
            memmove(s->rx.p, start, avail);
            s->rx.len = avail;
            s->rx_pos = 0;
        }
        if (deadline == 0 || !wait_fd(s->proc.from, POLLIN, deadline))
            return NULL;
        buf_reserve(&s->rx, 65536);
        ssize_t r = read(s->proc.from, s->rx.p + s->rx.len, s->rx.cap - s->rx.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NULL;
        s->rx.len += (size_t)r;
    }
}

/* Over stdio: waits for the answer to `id`, skipping anything else. */
static bool stdio_answer(session *s, long id, double deadline) {
    for (;;) {
        size_t len;
        const char *line = stdio_line(s, &len, deadline);
        if (!line)
            return false;
        long got;
        if (rpc_read(s->doc, line, len, &got) == 1) {
            if (got != id)
                bench_die("%s: answer to id %ld where %ld was due", s->pr->name, got, id);
            return true;
        }
    }
}

/* Over HTTP: the JSON-RPC answer to `id` in c's response, parsed into
 * s->doc. False when the response carries none (202 to a notification). */
static bool http_answer(session *s, hconn *c, long id) {
    if (c->status / 100 != 2)
        bench_die("%s: HTTP %d: %.300s", s->pr->name, c->status, c->body.p);
    long got;
    if (c->sse) {
        size_t pos = 0;
        while (sse_next(c->body.p, c->body.len, &pos, &s->sse))
            if (rpc_read(s->doc, s->sse.p, s->sse.len, &got) == 1) {
                if (got != id)
                    bench_die("%s: answer to id %ld where %ld was due", s->pr->name, got, id);
                return true;
            }
        return false;
    }
    if (c->body.len == 0)
        return false;
    if (rpc_read(s->doc, c->body.p, c->body.len, &got) != 1 || got != id)
        bench_die("%s: the response to id %ld is not its answer: %.300s", s->pr->name, id,
                  c->body.p);
    return true;
}

/* A kept-alive connection the server closed while it sat idle (Node closes
 * them after 5 s; the servers take turns for longer than that) is reopened
 * before a request goes on it, outside the timing. */
static void http_revive(session *s, hconn *c) {
    if (c->fd < 0)
        return;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0)
        return;
    char byte;
    ssize_t r = read(c->fd, &byte, 1);
    if (r > 0)
        bench_die("%s: the server sent something unasked on an idle connection", s->pr->name);
    close(c->fd);
    c->in.len = 0;
    if ((c->fd = http_connect(&s->ep)) < 0)
        bench_die("%s: connect: %s", s->pr->name, strerror(errno));
}

/* POSTs `json` on c (reopening it if the server closed it) and waits. */
static bool http_exchange(session *s, hconn *c, const char *json, size_t len, double deadline) {
    if (c->fd < 0 && (c->fd = http_connect(&s->ep)) < 0)
        bench_die("%s: connect: %s", s->pr->name, strerror(errno));
    http_post(c, &s->ep, s->has_sid ? s->sid : NULL, json, len);
    int r = http_wait(c, deadline);
    if (r <= 0)
        return false;
    if (!c->keep) {
        close(c->fd);
        c->fd = -1;
        c->in.len = 0;
    }
    return true;
}

static void session_fail(session *s, char *why, size_t cap, const char *what) {
    char last[400];
    /* A server that closed its output may not be reapable yet: give it a moment. */
    double until = bench_now_s() + 0.5;
    while (proc_alive(&s->proc) && bench_now_s() < until)
        sleep_s(0.001);
    bool dead = !proc_alive(&s->proc);
    proc_last_words(&s->proc, last, sizeof last);
    if (dead && WIFEXITED(s->proc.status))
        snprintf(why, cap, "%s: the server exited with status %d: %s", what,
                 WEXITSTATUS(s->proc.status), last);
    else if (dead)
        snprintf(why, cap, "%s: the server died (signal %d): %s", what,
                 WTERMSIG(s->proc.status), last);
    else
        snprintf(why, cap, "%s (it still runs): %s", what, last);
}

/* Starts the server and opens a session: initialize, notifications/
 * initialized, tools/list. *ready is the time the tools/list answer was
 * parsed. 0, or -1 with the reason in why (the server is stopped then). */
static int session_start(session *s, peer *pr, double *t_spawn, double *ready, char *why,
                         size_t cap) {
    buf_free(&s->rx);
    *s = (session){.pr = pr, .doc = s->doc, .sse = s->sse, .req = s->req, .conns = s->conns,
                   .main = {.fd = -1}, .next_id = 1};
    if (!s->doc && !(s->doc = rig_json_doc_new()))
        bench_die("out of memory");
    int port = pr->tr == HTTP ? free_port() : 0;
    char *cmd = with_port(pr->cmd, port);
    if (pr->tr == HTTP) {
        char *url = with_port(pr->url, port);
        int bad = parse_url(url, &s->ep, why, cap);
        free(url);
        if (bad) {
            free(cmd);
            return -1;
        }
    }
    double deadline = bench_now_s() + START_TIMEOUT;
    char msg[512];
    int n;

    int rc = proc_spawn(&s->proc, pr->tr, cmd, port);
    *t_spawn = s->proc.t_spawn;
    if (rc) {
        snprintf(why, cap, "cannot run %s: %s", cmd, strerror(rc));
        free(cmd);
        return -1;
    }
    free(cmd);
    if (pr->tr == STDIO) {
        n = snprintf(msg, sizeof msg, k_init, s->next_id++);
        msg[n++] = '\n';
        write_all(s->proc.to, msg, (size_t)n, pr->name);
        if (!stdio_answer(s, 1, deadline))
            goto fail_init;
        n = snprintf(msg, sizeof msg, "%s\n", k_initialized);
        n += snprintf(msg + n, sizeof msg - (size_t)n, k_list, s->next_id++);
        msg[n++] = '\n';
        write_all(s->proc.to, msg, (size_t)n, pr->name);
        if (!stdio_answer(s, 2, deadline))
            goto fail_list;
    } else {
        /* Poll until the server listens (or gives up). */
        while ((s->main.fd = http_connect(&s->ep)) < 0) {
            if (errno != ECONNREFUSED)
                bench_die("%s: connect: %s", pr->name, strerror(errno));
            if (!proc_alive(&s->proc) || bench_now_s() > deadline) {
                session_fail(s, why, cap, "no HTTP listener");
                goto fail;
            }
            sleep_s(0.001);
        }
        n = snprintf(msg, sizeof msg, k_init, s->next_id++);
        if (!http_exchange(s, &s->main, msg, (size_t)n, deadline) || !http_answer(s, &s->main, 1))
            goto fail_init;
        /* Stateless servers give no session id; then none is sent. */
        s->has_sid = s->main.sid[0] != '\0';
        snprintf(s->sid, sizeof s->sid, "%s", s->main.sid);
        if (!http_exchange(s, &s->main, k_initialized, sizeof k_initialized - 1, deadline))
            goto fail_init;
        if (s->main.status / 100 != 2)
            bench_die("%s: HTTP %d to notifications/initialized", pr->name, s->main.status);
        n = snprintf(msg, sizeof msg, k_list, s->next_id++);
        if (!http_exchange(s, &s->main, msg, (size_t)n, deadline) || !http_answer(s, &s->main, 2))
            goto fail_list;
    }
    *ready = bench_now_s();
    if (!has_tool(s->doc, pr->w.tool)) {
        snprintf(why, cap, "tools/list has no tool called %s", pr->w.tool);
        goto fail;
    }
    return 0;

fail_init:
    session_fail(s, why, cap, "no answer to initialize");
    goto fail;
fail_list:
    session_fail(s, why, cap, "no answer to tools/list");
fail:
    if (s->main.fd >= 0)
        close(s->main.fd);
    s->main.fd = -1;
    proc_stop(&s->proc);
    return -1;
}

static void session_end(session *s, int inflight) {
    if (s->main.fd >= 0)
        close(s->main.fd);
    s->main.fd = -1;
    buf_free(&s->main.in);
    buf_free(&s->main.body);
    for (int i = 0; s->conns && i < inflight; i++)
        if (s->conns[i].fd >= 0) {
            close(s->conns[i].fd);
            s->conns[i].fd = -1;
        }
    proc_stop(&s->proc);
}

/* One sequential tools/call (slot 0); its latency in seconds. */
static double call_once(session *s) {
    work *w = &s->pr->w;
    buf *req = &s->req;
    req->len = 0;
    long id = s->next_id++;
    int v = work_request(w, req, id, 0, s->pr->tr == STDIO);
    if (s->pr->tr == HTTP)
        http_revive(s, &s->main);
    double t0 = bench_now_s(), deadline = t0 + CALL_TIMEOUT;
    bool ok;
    if (s->pr->tr == STDIO) {
        write_all(s->proc.to, req->p, req->len, s->pr->name);
        ok = stdio_answer(s, id, deadline);
    } else {
        ok = http_exchange(s, &s->main, req->p, req->len, deadline) &&
             http_answer(s, &s->main, id);
    }
    double t = bench_now_s() - t0;
    if (!ok)
        bench_die("%s: no answer to tools/call id %ld", s->pr->name, id);
    check_answer(s->doc, w, v, s->pr->name);
    return t;
}

/* `inflight` calls kept in flight over stdio for `seconds`, call k on slot k
 * and each answer's replacement on the answer's slot. Returns the calls
 * answered within the window; *all counts the drained ones too. `check`:
 * every answer checked in full, else only its id and that it is no error. */
static long burst_stdio(session *s, int inflight, double seconds, bool check, long *all) {
    static long slot[SLOTS];
    static int slot_of[SLOTS]; /* the call's slot * 2 + its variant */
    memset(slot, 0, sizeof slot);
    work *w = &s->pr->w;
    buf *out = &s->req;
    out->len = 0;
    long done = 0, total = 0;
    int outstanding = 0;
    double t0 = bench_now_s(), end = t0 + seconds;
    bool sending = true;
    for (; outstanding < inflight; outstanding++) {
        long id = s->next_id++;
        slot[id & (SLOTS - 1)] = id;
        slot_of[id & (SLOTS - 1)] = outstanding * 2 + work_request(w, out, id, outstanding, true);
    }
    write_all(s->proc.to, out->p, out->len, s->pr->name);
    out->len = 0;
    while (outstanding) {
        size_t len;
        const char *line = stdio_line(s, &len, 0);
        if (!line) {
            /* Everything read is handled: send the replacements in one write. */
            if (out->len) {
                write_all(s->proc.to, out->p, out->len, s->pr->name);
                out->len = 0;
            }
            line = stdio_line(s, &len, bench_now_s() + CALL_TIMEOUT);
            if (!line)
                bench_die("%s: %d calls unanswered", s->pr->name, outstanding);
        }
        long id;
        if (rpc_read(s->doc, line, len, &id) != 1)
            continue;
        if (slot[id & (SLOTS - 1)] != id)
            bench_die("%s: an answer to id %ld, which is not in flight", s->pr->name, id);
        slot[id & (SLOTS - 1)] = 0;
        int k = slot_of[id & (SLOTS - 1)];
        if (check)
            check_answer(s->doc, w, k & 1, s->pr->name);
        else
            check_ok(s->doc, s->pr->name);
        outstanding--;
        total++;
        if (sending && bench_now_s() < end) {
            done++;
            id = s->next_id++;
            slot[id & (SLOTS - 1)] = id;
            slot_of[id & (SLOTS - 1)] = (k >> 1) * 2 + work_request(w, out, id, k >> 1, true);
            outstanding++;
        } else {
            sending = false;
        }
    }
    *all = total;
    return done;
}

/* The same over HTTP: one call in flight on each of `inflight` connections;
 * connection k is slot k. */
static long burst_http(session *s, peer *pr, int inflight, double seconds, bool check,
                       long *all) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        bench_die("epoll_create1: %s", strerror(errno));
    work *w = &pr->w;
    buf *req = &s->req;
    long done = 0, total = 0;
    int busy = 0;
    for (int i = 0; i < inflight; i++) {
        hconn *c = &s->conns[i];
        http_revive(s, c);
        if (c->fd < 0 && (c->fd = http_connect(&s->ep)) < 0)
            bench_die("%s: connect: %s", pr->name, strerror(errno));
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            bench_die("epoll_ctl: %s", strerror(errno));
    }
    double t0 = bench_now_s(), end = t0 + seconds;
    for (int i = 0; i < inflight; i++) {
        hconn *c = &s->conns[i];
        c->want = s->next_id++;
        req->len = 0;
        c->variant = work_request(w, req, c->want, i, false);
        http_post(c, &s->ep, s->has_sid ? s->sid : NULL, req->p, req->len);
        c->busy = true;
        busy++;
    }
    struct epoll_event evs[64];
    while (busy) {
        int k = epoll_wait(ep, evs, 64, (int)(CALL_TIMEOUT * 1000));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            bench_die("epoll_wait: %s", strerror(errno));
        if (k == 0)
            bench_die("%s: %d calls unanswered", pr->name, busy);
        for (int i = 0; i < k; i++) {
            hconn *c = evs[i].data.ptr;
            bool eof = !http_fill(c);
            if (!http_parse(c, eof)) {
                if (eof)
                    bench_die("%s: the server closed a connection mid-call", pr->name);
                continue;
            }
            if (!http_answer(s, c, c->want))
                bench_die("%s: no answer to tools/call id %ld in HTTP %d: %.300s", pr->name,
                          c->want, c->status, c->body.p);
            if (check)
                check_answer(s->doc, w, c->variant, pr->name);
            else
                check_ok(s->doc, pr->name);
            c->busy = false;
            busy--;
            total++;
            if (!c->keep) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
                c->in.len = 0;
                if ((c->fd = http_connect(&s->ep)) < 0)
                    bench_die("%s: connect: %s", pr->name, strerror(errno));
                struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
                pr->reconnects++;
            }
            if (bench_now_s() < end) {
                done++;
                c->want = s->next_id++;
                req->len = 0;
                c->variant = work_request(w, req, c->want, (int)(c - s->conns), false);
                http_post(c, &s->ep, s->has_sid ? s->sid : NULL, req->p, req->len);
                c->busy = true;
                busy++;
            }
        }
    }
    close(ep);
    *all = total;
    return done;
}

static long burst(peer *pr, int inflight, double seconds, bool check, long *all) {
    return pr->tr == STDIO ? burst_stdio(&pr->s, inflight, seconds, check, all)
                           : burst_http(&pr->s, pr, inflight, seconds, check, all);
}

/* ---- the benchmark ------------------------------------------------------- */

static struct {
    int cold, runs, inflight;
    long calls;
    double seconds;
    const char *vs;
    bool tools; /* some peer calls another tool than echo: the tables name the call */
} opt = {.cold = 20, .runs = 7, .inflight = 64, .calls = 7000, .seconds = 1.0};

static peer peers[MAX_PEERS];
static int npeers;

static void skip(peer *pr, const char *why) {
    pr->skipped = true;
    snprintf(pr->why, sizeof pr->why, "%s", why);
    fprintf(stderr, "bench_mcp: %s (%s) skipped: %s\n", pr->name, transport_name[pr->tr], why);
}

/* One start of every server per round, the order turning each round. A peer
 * whose command an earlier one has (the same server, another tool) is not
 * started again: the earlier one's figures are its own. */
static void cold_starts(void) {
    for (int round = -1; round < opt.cold; round++)
        for (int j = 0; j < npeers; j++) {
            peer *pr = &peers[(j + (round < 0 ? 0 : round)) % npeers];
            if (pr->skipped || pr->same_as >= 0)
                continue;
            session s = {0};
            double t0, t1;
            char why[600];
            if (session_start(&s, pr, &t0, &t1, why, sizeof why) != 0) {
                if (pr->ever_started)
                    bench_die("%s (%s): %s", pr->name, transport_name[pr->tr], why);
                skip(pr, why);
                continue;
            }
            pr->ever_started = true;
            if (round >= 0) {
                pr->cold[pr->ncold] = t1 - t0;
                pr->idle_kb[pr->ncold++] = (double)proc_vm_kb(s.proc.pid, "VmRSS:");
            }
            session_end(&s, 0);
            rig_json_doc_free(s.doc);
            buf_free(&s.rx);
            buf_free(&s.sse);
            buf_free(&s.req);
        }
    for (int i = 0; i < npeers; i++) {
        peer *pr = &peers[i], *first = pr->same_as >= 0 ? &peers[pr->same_as] : NULL;
        if (!first)
            continue;
        if (first->skipped && !pr->skipped)
            skip(pr, first->why);
        pr->ncold = first->ncold;
        memcpy(pr->cold, first->cold, sizeof pr->cold);
        memcpy(pr->idle_kb, first->idle_kb, sizeof pr->idle_kb);
    }
}

static void load(void) {
    long per_run = (opt.calls + opt.runs - 1) / opt.runs;
    for (int i = 0; i < npeers; i++) {
        peer *pr = &peers[i];
        if (pr->skipped)
            continue;
        double t0, t1;
        char why[600];
        if (pr->tr == HTTP) {
            pr->s.conns = calloc((size_t)opt.inflight, sizeof *pr->s.conns);
            if (!pr->s.conns)
                bench_die("out of memory");
            for (int c = 0; c < opt.inflight; c++)
                pr->s.conns[c].fd = -1;
        }
        if (session_start(&pr->s, pr, &t0, &t1, why, sizeof why) != 0) {
            if (pr->ever_started)
                bench_die("%s (%s): %s", pr->name, transport_name[pr->tr], why);
            skip(pr, why);
            continue;
        }
        pr->ever_started = true;
        pr->lat = malloc(sizeof(double) * (size_t)(per_run * opt.runs));
        if (!pr->lat)
            bench_die("out of memory");
        /* Warm-up: JIT compilers, caches, the worker pool, every connection. */
        for (int k = 0; k < 1000; k++)
            call_once(&pr->s);
        long all;
        burst(pr, opt.inflight, 0.5, true, &all);
    }
    for (int run = 0; run < opt.runs; run++)
        for (int j = 0; j < npeers; j++) {
            peer *pr = &peers[(j + run) % npeers];
            if (pr->skipped)
                continue;
            for (long k = 0; k < per_run; k++)
                pr->lat[pr->nlat++] = call_once(&pr->s);
            long all;
            double c0 = proc_cpu_s(pr->s.proc.pid);
            long done = burst(pr, opt.inflight, opt.seconds, false, &all);
            pr->cpu_s += proc_cpu_s(pr->s.proc.pid) - c0;
            pr->tput_calls += all;
            pr->tput[pr->ntput++] = (double)done / opt.seconds;
        }
    for (int i = 0; i < npeers; i++) {
        peer *pr = &peers[i];
        if (pr->skipped)
            continue;
        double hwm = (double)proc_vm_kb(pr->s.proc.pid, "VmHWM:");
        session_end(&pr->s, opt.inflight);
        pr->peak_kb = hwm > (double)pr->s.proc.maxrss_kb ? hwm : (double)pr->s.proc.maxrss_kb;
    }
}

typedef struct figures {
    double cold, cold_min, cold_max, p50, p99, tput, tput_min, tput_max, cpu_call, idle_mb,
        peak_mb;
} figures;

static figures figures_of(peer *pr) {
    figures f = {0};
    if (pr->ncold) {
        f.cold = bench_median(pr->cold, pr->ncold);
        f.cold_min = pr->cold[0];
        f.cold_max = pr->cold[pr->ncold - 1];
        f.idle_mb = bench_median(pr->idle_kb, pr->ncold) / 1024;
    }
    if (pr->nlat) {
        qsort(pr->lat, pr->nlat, sizeof *pr->lat, cmp_double);
        f.p50 = percentile(pr->lat, pr->nlat, 0.50);
        f.p99 = percentile(pr->lat, pr->nlat, 0.99);
    }
    if (pr->ntput) {
        f.tput = bench_median(pr->tput, pr->ntput);
        f.tput_min = pr->tput[0];
        f.tput_max = pr->tput[pr->ntput - 1];
    }
    if (pr->tput_calls)
        f.cpu_call = pr->cpu_s / (double)pr->tput_calls;
    f.peak_mb = pr->peak_kb / 1024;
    return f;
}

static void report(double start) {
    figures fig[MAX_PEERS];
    for (int i = 0; i < npeers; i++)
        fig[i] = figures_of(&peers[i]);
    for (int tr = STDIO; tr <= HTTP; tr++) {
        bool any = false;
        for (int i = 0; i < npeers; i++)
            any |= peers[i].tr == (transport)tr;
        if (!any)
            continue;
        printf("### MCP over %s\n\n", transport_name[tr]);
        printf("| server |%s cold start ms (median) | min - max | tools/call p50 us | p99 us | "
               "calls/s, %d in flight (median) | min - max | server CPU us/call | idle RSS MB | "
               "peak RSS MB |\n",
               opt.tools ? " call |" : "", opt.inflight);
        printf("|---|%s---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", opt.tools ? "---|" : "");
        for (int i = 0; i < npeers; i++) {
            peer *pr = &peers[i];
            figures *f = &fig[i];
            if (pr->tr != (transport)tr)
                continue;
            char task[128] = "";
            if (opt.tools)
                snprintf(task, sizeof task, " %s |", pr->w.task);
            if (pr->skipped) {
                printf("| %s |%s skipped: %s |||||||||\n", pr->name, task, pr->why);
                continue;
            }
            char cold[64] = "-", idle[32] = "-";
            if (pr->ncold) {
                snprintf(cold, sizeof cold, "%.1f | %.1f - %.1f", f->cold * 1e3, f->cold_min * 1e3,
                         f->cold_max * 1e3);
                snprintf(idle, sizeof idle, "%.1f", f->idle_mb);
            } else {
                snprintf(cold, sizeof cold, "- | -");
            }
            printf("| %s |%s %s | %.1f | %.1f | %.0f | %.0f - %.0f | %.1f | %s | %.1f |\n", pr->name,
                   task, cold, f->p50 * 1e6, f->p99 * 1e6, f->tput, f->tput_min, f->tput_max,
                   f->cpu_call * 1e6, idle, f->peak_mb);
        }
        printf("\n");
        for (int i = 0; i < npeers; i++)
            if (peers[i].tr == (transport)tr && peers[i].reconnects)
                printf("_%s: the server closed %ld keep-alive connections during the "
                       "throughput runs (reopened)._\n\n",
                       peers[i].name, peers[i].reconnects);
    }

    if (opt.vs) {
        printf("### Against %s (same transport; above 1 is better than %s)\n\n", opt.vs, opt.vs);
        printf("| server |%s transport | cold start | p50 | p99 | calls/s | server CPU/call | "
               "peak RSS |\n|---|%s---|---:|---:|---:|---:|---:|---:|\n",
               opt.tools ? " call |" : "", opt.tools ? "---|" : "");
        bool any = false;
        for (int i = 0; i < npeers; i++) {
            int r = -1;
            for (int j = 0; j < npeers; j++)
                if (peers[j].tr == peers[i].tr && strcmp(peers[j].name, opt.vs) == 0 &&
                    strcmp(peers[j].w.task, peers[i].w.task) == 0)
                    r = j;
            if (r < 0 || r == i || peers[i].skipped || peers[r].skipped)
                continue;
            figures *f = &fig[i], *g = &fig[r];
            char cold[32] = "-";
            if (f->cold > 0 && g->cold > 0)
                snprintf(cold, sizeof cold, "%.1fx", g->cold / f->cold);
            char task[128] = "";
            if (opt.tools)
                snprintf(task, sizeof task, " %s |", peers[i].w.task);
            printf("| %s |%s %s | %s | %.1fx | %.1fx | %.1fx | %.1fx | %.1fx |\n", peers[i].name,
                   task, transport_name[peers[i].tr], cold, g->p50 / f->p50, g->p99 / f->p99,
                   f->tput / g->tput, g->cpu_call / f->cpu_call, g->peak_mb / f->peak_mb);
            any = true;
        }
        if (!any)
            printf("| (no pair measured) |||||||\n");
        printf("\n");
    }
    printf("Load average at the end: %s. Wall time %.0f s.\n", bench_loadavg(),
           bench_now_s() - start);
}

static void usage(void) {
    fprintf(stderr,
            "usage: bench_mcp [--cold N] [--calls N] [--runs N] [--seconds S] [--inflight K]\n"
            "                 [--vs NAME] [--title TEXT]\n"
            "                 (--stdio NAME 'COMMAND' | --http NAME 'COMMAND' URL)\n"
            "                 [--tool TOOL --args JSON --expect TEXT [--alt-args JSON]\n"
            "                  [--alt-expect TEXT] [--task LABEL]]...\n");
    exit(2);
}

/* The request of slot 0's first call (variant v) as the header shows it. */
static void show_call(peer *pr, int v) {
    buf b = {0};
    unsigned char keep = pr->w.flip[0];
    pr->w.flip[0] = (unsigned char)v;
    work_request(&pr->w, &b, 42, 0, false);
    pr->w.flip[0] = keep;
    printf("`%s`", b.p);
    buf_free(&b);
}

int main(int argc, char **argv) {
    const char *title = "rig MCP server benchmark: cold start, tools/call latency and "
                        "throughput, memory";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        peer *last = npeers ? &peers[npeers - 1] : NULL;
        if (strcmp(a, "--cold") == 0 && v) {
            opt.cold = atoi(argv[++i]);
            if (opt.cold < 0 || opt.cold > MAX_COLD)
                bench_die("--cold takes 0..%d", MAX_COLD);
        } else if (strcmp(a, "--calls") == 0 && v) {
            opt.calls = atol(argv[++i]);
            if (opt.calls < 1)
                bench_die("--calls takes a positive count");
        } else if (strcmp(a, "--runs") == 0 && v) {
            opt.runs = atoi(argv[++i]);
            if (opt.runs < 1 || opt.runs > BENCH_MAX_RUNS)
                bench_die("--runs takes 1..%d", BENCH_MAX_RUNS);
        } else if (strcmp(a, "--seconds") == 0 && v) {
            opt.seconds = atof(argv[++i]);
            if (!(opt.seconds > 0))
                bench_die("--seconds takes a positive number");
        } else if (strcmp(a, "--inflight") == 0 && v) {
            opt.inflight = atoi(argv[++i]);
            if (opt.inflight < 1 || opt.inflight > MAX_INFLIGHT)
                bench_die("--inflight takes 1..%d", MAX_INFLIGHT);
        } else if (strcmp(a, "--vs") == 0 && v) {
            opt.vs = argv[++i];
        } else if (strcmp(a, "--title") == 0 && v) {
            title = argv[++i];
        } else if (strcmp(a, "--stdio") == 0 && i + 2 < argc && npeers < MAX_PEERS) {
            peers[npeers++] = (peer){.name = argv[i + 1], .tr = STDIO, .cmd = argv[i + 2]};
            i += 2;
        } else if (strcmp(a, "--http") == 0 && i + 3 < argc && npeers < MAX_PEERS) {
            peers[npeers++] =
                (peer){.name = argv[i + 1], .tr = HTTP, .cmd = argv[i + 2], .url = argv[i + 3]};
            i += 3;
        } else if (last && v && strcmp(a, "--tool") == 0) {
            /* --tool, --args ... apply to the server named just before */
            last->w.tool = argv[++i];
            if (!last->w.task)
                last->w.task = last->w.tool;
        } else if (last && v && strcmp(a, "--args") == 0) {
            last->w.args[0] = argv[++i];
        } else if (last && v && strcmp(a, "--expect") == 0) {
            last->w.expect[0] = argv[++i];
        } else if (last && v && strcmp(a, "--alt-args") == 0) {
            last->w.args[1] = argv[++i];
        } else if (last && v && strcmp(a, "--alt-expect") == 0) {
            last->w.expect[1] = argv[++i];
        } else if (last && v && strcmp(a, "--task") == 0) {
            last->w.task = argv[++i];
        } else {
            usage();
        }
    }
    if (!npeers)
        usage();
    for (int i = 0; i < npeers; i++) {
        peer *pr = &peers[i];
        work *w = &pr->w;
        if (!w->tool && !w->args[0] && !w->expect[0] && !w->args[1] && !w->expect[1]) {
            work_default(w);
        } else {
            if (!w->tool || !w->args[0] || !w->expect[0])
                bench_die("%s: --tool, --args and --expect go together", pr->name);
            if (w->expect[1] && !w->args[1])
                bench_die("%s: --alt-expect without --alt-args", pr->name);
            opt.tools = true;
        }
        if (!w->task)
            w->task = w->tool;
        work_build(w, pr->name, opt.inflight);
        pr->same_as = -1;
        for (int j = 0; j < i && pr->same_as < 0; j++)
            if (peers[j].tr == pr->tr && strcmp(peers[j].cmd, pr->cmd) == 0 &&
                (pr->tr == STDIO || strcmp(peers[j].url, pr->url) == 0))
                pr->same_as = j;
    }
    signal(SIGPIPE, SIG_IGN); /* a server that dies shows up as EPIPE, reported */

    double start = bench_now_s();
    bench_print_machine(title);
    printf("| load average at start | %s |\n", bench_loadavg());
    printf("| method | cold start: median of %d starts; latency: %ld sequential calls; "
           "throughput: median of %d runs of %.1f s, %d calls in flight; servers take turns |\n",
           opt.cold, (opt.calls + opt.runs - 1) / opt.runs * opt.runs, opt.runs, opt.seconds,
           opt.inflight);
    for (int i = 0; i < npeers; i++)
        if (peers[i].same_as < 0)
            printf("| %s (%s) | `%s`%s%s |\n", peers[i].name, transport_name[peers[i].tr],
                   peers[i].cmd, peers[i].url ? " at " : "", peers[i].url ? peers[i].url : "");
    if (!opt.tools) {
        printf("\nEach call: ");
        show_call(&peers[0], 0);
        printf(" (ids vary), answered with the text `%s`.\n\n", k_want);
    } else {
        printf("\nThe calls (ids vary; slot 0 shown):\n\n");
        for (int i = 0; i < npeers; i++) {
            peer *pr = &peers[i];
            printf("- %s, %s: ", pr->name, pr->w.task);
            show_call(pr, 0);
            printf(", answer contains `%s`", pr->w.expect[0]);
            if (pr->w.alt) {
                printf("; alternating with ");
                show_call(pr, 1);
                printf(", answer contains `%s`", pr->w.expect[1]);
            }
            printf("\n");
        }
        printf("\n");
    }
    fflush(stdout);

    cold_starts();
    load();
    report(start);
    return 0;
}
