/* bench_env.c — the environment control channel's benchmark (REFERENCE 1):
 * a C load generator that speaks the wire (newline JSON-RPC over TCP) to a
 * server it starts itself, so it knows the server's pid and can read its
 * memory (/proc/PID/status VmRSS) and CPU time (/proc/PID/stat).
 *
 *   bench_env [--seconds S] [--conns N] [--parked N] -- SERVER ARGV...
 *
 * SERVER must print a line ending in `_SERVE_PORT=<port>` on stdout once
 * bound (rig's RIG_SERVE_PORT=, the anchor's HUD_SERVE_PORT=) and serve the
 * task "echo" of env_tasks.json (args {word}, prompt "Say {word}", graded
 * exact against {word}). Measured, in order:
 *
 *   seq    start→grade cycles per second on one connection, one request
 *          at a time (the latency of a round trip, twice per cycle);
 *   conc   the same on N connections at once (default 32), each one
 *          request at a time: the server's throughput;
 *   parked the server's RSS before and after opening P sessions (default
 *          10,000) that each start a task and hang up, divided by P: what
 *          a parked session costs. A sample is then resumed and graded,
 *          so the sessions were really held.
 *
 * Every reply is checked (the prompt names the word; the grade is 1), so a
 * server cannot win by answering wrong. The last line is machine-readable:
 *   RESULT seq_cps=… conc_cps=… cpu_us_per_cycle=… park_bytes=… … */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "rig/rig.h"

uint64_t bench_sink;

void bench_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_env: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* ---------------------------------------------------------------- the server */

static pid_t server_pid;
static int server_out = -1; /* kept open: a server that prints again must not get SIGPIPE */

static void server_kill(void) {
    if (server_pid <= 0) return;
    kill(server_pid, SIGTERM);
    for (int i = 0; i < 500; i++) { /* 5 s to stop cleanly */
        if (waitpid(server_pid, NULL, WNOHANG) == server_pid) {
            server_pid = 0;
            return;
        }
        usleep(10 * 1000);
    }
    kill(server_pid, SIGKILL);
    waitpid(server_pid, NULL, 0);
    server_pid = 0;
}

/* Start argv with its stdout on a pipe; return the port it prints. */
static int server_start(char **argv) {
    int p[2];
    if (pipe(p) != 0) bench_die("pipe: %s", strerror(errno));
    server_pid = fork();
    if (server_pid < 0) bench_die("fork: %s", strerror(errno));
    if (server_pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "bench_env: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    server_out = p[0];
    char buf[4096];
    size_t len = 0;
    double until = bench_now_s() + 30;
    while (bench_now_s() < until) {
        struct pollfd pf = {.fd = server_out, .events = POLLIN};
        if (poll(&pf, 1, 200) <= 0) continue;
        ssize_t k = read(server_out, buf + len, sizeof buf - 1 - len);
        if (k <= 0) bench_die("%s exited before printing its port", argv[0]);
        len += (size_t)k;
        buf[len] = 0;
        char *m = strstr(buf, "_SERVE_PORT=");
        if (m && strchr(m, '\n')) return atoi(m + 12);
        if (len == sizeof buf - 1) len = 0;
    }
    server_kill();
    bench_die("%s printed no *_SERVE_PORT= line within 30 s", argv[0]);
}

static long proc_rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    fclose(f);
    return kib;
}

/* The server's user + system CPU seconds. */
static double proc_cpu_s(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return -1;
    unsigned long ut = 0, st = 0;
    /* after ") ": state, then fields 4..13, then utime (14) and stime (15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ---------------------------------------------------------------- the wire */

static int port;

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) bench_die("socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) bench_die("connect: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *s, size_t n) {
    size_t off = 0;
    while (off < n) {
        ssize_t k = write(fd, s + off, n - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) bench_die("write: %s", k < 0 ? strerror(errno) : "closed");
        off += (size_t)k;
    }
}

typedef struct conn {
    int fd;
    char buf[8192];
    size_t len;
    long word;   /* the word of the task in progress */
    int phase;   /* 0: waiting for start's reply, 1: for grade's */
    long cycles;
} conn;

/* A complete line from c->buf, NUL-terminated in place; *used is how much
 * to drop afterwards. NULL when none is buffered yet. */
static char *take_line(conn *c, size_t *used) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (!nl) {
        if (c->len == sizeof c->buf) bench_die("a reply longer than %zu bytes", sizeof c->buf);
        return NULL;
    }
    *nl = 0;
    *used = (size_t)(nl - c->buf) + 1;
    return c->buf;
}

static void drop(conn *c, size_t used) {
    memmove(c->buf, c->buf + used, c->len - used);
    c->len -= used;
}

/* Block until a whole line is buffered. */
static char *read_line(conn *c, size_t *used) {
    char *l;
    while (!(l = take_line(c, used))) {
        ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) bench_die("the server closed a connection (%s)", k < 0 ? strerror(errno) : "EOF");
        c->len += (size_t)k;
    }
    return l;
}

/* The number after "key": in a reply (either JSON spacing), or -1. */
static double num_after(const char *line, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(line, pat);
    if (!p) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    return strtod(p, NULL);
}

static size_t fmt_start(char *out, size_t cap, long id, long word) {
    return (size_t)snprintf(out, cap,
                            "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tasks.start\","
                            "\"params\":{\"id\":\"echo\",\"args\":{\"word\":\"w%ld\"}}}\n",
                            id, word);
}

static size_t fmt_grade(char *out, size_t cap, long id, long word) {
    return (size_t)snprintf(out, cap,
                            "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tasks.grade\","
                            "\"params\":{\"answer\":\"w%ld\"}}\n",
                            id, word);
}

static void check_prompt(const char *line, long word) {
    char want[48];
    snprintf(want, sizeof want, "Say w%ld\"", word);
    if (!strstr(line, want)) bench_die("start of w%ld answered %.300s", word, line);
}

static void check_grade(const char *line, long word, double want) {
    double s = num_after(line, "score");
    if (s != want) bench_die("grade of w%ld answered %.300s (wanted score %g)", word, line, want);
}

/* ---------------------------------------------------------------- seq, conc */

static long next_word = 1;

/* One connection, one request at a time, for `secs` seconds. */
static double run_seq(double secs, double *cpu_us) {
    conn *c = calloc(1, sizeof *c);
    c->fd = dial();
    char req[256];
    size_t used;
    double cpu0 = 0, t0 = 0, until = 0;
    long cycles = 0;
    for (long i = 0;; i++) {
        if (i == 200) { /* warmed up: the clock starts */
            t0 = bench_now_s();
            cpu0 = proc_cpu_s(server_pid);
            until = t0 + secs;
        }
        long w = next_word++;
        send_all(c->fd, req, fmt_start(req, sizeof req, 2 * i, w));
        check_prompt(read_line(c, &used), w);
        drop(c, used);
        send_all(c->fd, req, fmt_grade(req, sizeof req, 2 * i + 1, w));
        check_grade(read_line(c, &used), w, 1.0);
        drop(c, used);
        if (i >= 200) {
            cycles++;
            if ((cycles & 63) == 0 && bench_now_s() >= until) break;
        }
    }
    double dt = bench_now_s() - t0;
    *cpu_us = (proc_cpu_s(server_pid) - cpu0) * 1e6 / (double)cycles;
    close(c->fd);
    free(c);
    return (double)cycles / dt;
}

/* Send c's next request: a start in phase 0, a grade in phase 1. */
static void conc_send(conn *c) {
    char req[256];
    size_t n = c->phase == 0 ? fmt_start(req, sizeof req, 1, c->word) : fmt_grade(req, sizeof req, 2, c->word);
    send_all(c->fd, req, n);
}

/* n connections, each one request at a time, for `secs` seconds (after a
 * warm-up second). */
static double run_conc(int n, double secs, double *cpu_us) {
    conn *cs = calloc((size_t)n, sizeof *cs);
    struct pollfd *pf = calloc((size_t)n, sizeof *pf);
    for (int i = 0; i < n; i++) {
        cs[i].fd = dial();
        cs[i].word = next_word++;
        pf[i].fd = cs[i].fd;
        pf[i].events = POLLIN;
        conc_send(&cs[i]);
    }
    double start = bench_now_s(), t0 = start + 1, until = t0 + secs, cpu0 = -1;
    long base = -1, total = 0;
    for (;;) {
        double now = bench_now_s();
        if (base < 0 && now >= t0) {
            base = total;
            t0 = now;
            until = t0 + secs;
            cpu0 = proc_cpu_s(server_pid);
        }
        if (base >= 0 && now >= until) break;
        int r = poll(pf, (nfds_t)n, 1000);
        if (r < 0 && errno != EINTR) bench_die("poll: %s", strerror(errno));
        for (int i = 0; i < n && r > 0; i++) {
            if (!pf[i].revents) continue;
            conn *c = &cs[i];
            ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
            if (k <= 0) bench_die("the server closed connection %d", i);
            c->len += (size_t)k;
            size_t used;
            char *l;
            while ((l = take_line(c, &used))) {
                if (c->phase == 0) {
                    check_prompt(l, c->word);
                    c->phase = 1;
                } else {
                    check_grade(l, c->word, 1.0);
                    c->phase = 0;
                    c->word = next_word++;
                    total++;
                }
                drop(c, used);
                conc_send(c);
            }
        }
    }
    double dt = bench_now_s() - t0;
    long cycles = total - base;
    *cpu_us = (proc_cpu_s(server_pid) - cpu0) * 1e6 / (double)cycles;
    for (int i = 0; i < n; i++) close(cs[i].fd);
    free(cs);
    free(pf);
    return (double)cycles / dt;
}

/* ---------------------------------------------------------------- parked */

typedef struct parker {
    conn c;
    long idx;
    bool busy;
} parker;

#define PARK_INFLIGHT 64

/* Open `total` sessions, PARK_INFLIGHT at a time: hello and a start in one
 * write, both replies read, then hang up (parking the session). ids[i]
 * gets session i's id. Returns sessions per second. */
static double park_many(long total, char (*ids)[32], long first_word) {
    parker *ps = calloc(PARK_INFLIGHT, sizeof *ps);
    struct pollfd pf[PARK_INFLIGHT];
    long next = 0, done = 0;
    double t0 = bench_now_s();
    while (done < total) {
        for (int i = 0; i < PARK_INFLIGHT; i++) {
            if (ps[i].busy || next >= total) {
                if (!ps[i].busy) pf[i].fd = -1;
                continue;
            }
            parker *p = &ps[i];
            p->busy = true;
            p->idx = next++;
            p->c.len = 0;
            p->c.phase = 0;
            p->c.fd = dial();
            char req[512];
            size_t n = (size_t)snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"hello\"}\n");
            n += fmt_start(req + n, sizeof req - n, 1, first_word + p->idx);
            send_all(p->c.fd, req, n);
            pf[i].fd = p->c.fd;
            pf[i].events = POLLIN;
        }
        int r = poll(pf, PARK_INFLIGHT, 5000);
        if (r < 0 && errno != EINTR) bench_die("poll: %s", strerror(errno));
        if (r == 0) bench_die("the server stopped answering while parking sessions");
        for (int i = 0; i < PARK_INFLIGHT; i++) {
            if (pf[i].fd < 0 || !pf[i].revents) continue;
            parker *p = &ps[i];
            ssize_t k = read(p->c.fd, p->c.buf + p->c.len, sizeof p->c.buf - p->c.len);
            if (k <= 0) bench_die("the server closed a parking connection");
            p->c.len += (size_t)k;
            size_t used;
            char *l;
            while (p->busy && (l = take_line(&p->c, &used))) {
                if (p->c.phase == 0) {
                    const char *s = strstr(l, "\"session_id\"");
                    const char *q = s ? strchr(s + 12, '"') : NULL;
                    const char *e = q ? strchr(q + 1, '"') : NULL;
                    if (!e || e - q - 1 >= 32) bench_die("hello answered %.300s", l);
                    memcpy(ids[p->idx], q + 1, (size_t)(e - q - 1));
                    ids[p->idx][e - q - 1] = 0;
                    p->c.phase = 1;
                } else {
                    check_prompt(l, first_word + p->idx);
                    close(p->c.fd);
                    pf[i].fd = -1;
                    p->busy = false;
                    done++;
                    break;
                }
                drop(&p->c, used);
            }
        }
    }
    free(ps);
    return (double)total / (bench_now_s() - t0);
}

/* Resume session id on a fresh connection and grade it. */
static void resume_grade(const char *id, long word) {
    conn *c = calloc(1, sizeof *c);
    c->fd = dial();
    char req[512];
    size_t n = (size_t)snprintf(req, sizeof req,
                                "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"hello\",\"params\":{\"session_id\":\"%s\"}}\n", id);
    n += fmt_grade(req + n, sizeof req - n, 1, word);
    send_all(c->fd, req, n);
    size_t used;
    char *l = read_line(c, &used);
    if (!strstr(l, id) || strstr(l, "\"error\"")) bench_die("resuming %s: %.300s", id, l);
    drop(c, used);
    check_grade(read_line(c, &used), word, 1.0);
    close(c->fd);
    free(c);
}

/* The server's RSS once it stopped changing (or after 3 s). */
static long settled_rss(void) {
    long last = proc_rss_kib(server_pid);
    for (int i = 0; i < 30; i++) {
        usleep(100 * 1000);
        long now = proc_rss_kib(server_pid);
        if (now == last && i >= 2) break;
        last = now;
    }
    return last;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
    double secs = 3;
    int nconns = 32;
    long parked = 10000;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (i + 1 >= argc) bench_die("%s needs a value", argv[i]);
        if (strcmp(argv[i], "--seconds") == 0) secs = atof(argv[++i]);
        else if (strcmp(argv[i], "--conns") == 0) nconns = atoi(argv[++i]);
        else if (strcmp(argv[i], "--parked") == 0) parked = atol(argv[++i]);
        else bench_die("unknown option %s (usage: bench_env [--seconds S] [--conns N] [--parked N] -- SERVER...)", argv[i]);
    }
    if (i + 1 >= argc || secs <= 0 || nconns < 1 || parked < 1)
        bench_die("usage: bench_env [--seconds S] [--conns N] [--parked N] -- SERVER ARGV...");
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    port = server_start(argv + i + 1);
    long rss_start = proc_rss_kib(server_pid);

    double seq_cpu, conc_cpu;
    double seq = run_seq(secs, &seq_cpu);
    double conc = run_conc(nconns, secs, &conc_cpu);

    char (*ids)[32] = calloc((size_t)parked, sizeof *ids);
    long before = settled_rss();
    long first = next_word;
    next_word += parked;
    double park_rate = park_many(parked, ids, first);
    long after = settled_rss();
    /* they were held: every 100th resumes and grades its own answer */
    for (long k = 0; k < parked; k += 100) resume_grade(ids[k], first + k);
    free(ids);

    double park_bytes = (double)(after - before) * 1024.0 / (double)parked;
    printf("server: %s (pid %d), load %s\n", argv[i + 1], (int)server_pid, bench_loadavg());
    printf("  seq:    %.0f start->grade cycles/s on 1 connection (%.1f us server CPU a cycle)\n", seq, seq_cpu);
    printf("  conc:   %.0f cycles/s on %d connections (%.1f us server CPU a cycle)\n", conc, nconns, conc_cpu);
    printf("  parked: RSS %ld -> %ld KiB over %ld sessions: %.0f bytes a session (%.0f parked/s)\n",
           before, after, parked, park_bytes, park_rate);
    printf("RESULT seq_cps=%.1f seq_cpu_us=%.2f conc_cps=%.1f conc_cpu_us=%.2f park_bytes=%.1f "
           "rss_start_kib=%ld rss_before_kib=%ld rss_after_kib=%ld park_rate=%.0f\n",
           seq, seq_cpu, conc, conc_cpu, park_bytes, rss_start, before, after, park_rate);
    fflush(stdout);
    server_kill();
    return 0;
}
