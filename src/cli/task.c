/* task.c — `rig task`: the client side of an environment's control channel
 * (REFERENCE 1, HUD's v6 wire: newline-delimited JSON-RPC 2.0 over TCP), for
 * HUD's start-now-grade-later flow from the shell:
 *
 *     rig task start --id echo --args '{"word":"hi"}'   # prints the prompt
 *     ... an agent works on it ...
 *     rig task grade --answer hi                         # prints the grade
 *
 * `start` learns its session id (a bare hello), starts the task and hangs up
 * without bye: the server parks the session with its task. `grade` resumes
 * it, by hello {session_id} with --session, or by a bare tasks.grade, which
 * the server answers from its one parked session (none: "no task in
 * progress"; several: an error naming them). `list` and `cancel` complete
 * the set. The verbs sit in a table, as the commands of main.c do.
 *
 * One request is outstanding at a time, so a reply is the line whose id is
 * ours; notifications (no id) and other ids are skipped. A reply with id
 * null and an error is the server refusing a line it could not read (ours:
 * nothing else was sent), so it is taken as the answer rather than waited
 * past. Lines are read into one growing buffer through rig's framer, bounded
 * at 64 MiB (the server's lines are at most 16 MiB). Every step shares one
 * deadline (--timeout, default 900 s, since graders may run long); connecting
 * has its own 10 s bound inside it. While a reply is awaited for a known
 * session, a hello notification goes out every 120 s as REFERENCE 1's
 * heartbeat; a notification gets no reply, so it cannot be mistaken for one. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rig/rig.h"
#include "util/monotime.h"

#define CONNECT_TIMEOUT_MS 10000
#define DEFAULT_TIMEOUT_S 900.0
#define MAX_REPLY ((size_t)64 << 20) /* longest reply line read */
#define READ_CHUNK ((size_t)64 << 10)
#ifndef HEARTBEAT_MS
#define HEARTBEAT_MS 120000 /* REFERENCE 1; -D for a test build */
#endif
#define BYE_WAIT_MS 2000 /* how long bye's answer is waited for */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig task list   [--url URL] [--json] [--out FILE]\n"
            "       rig task start  [--url URL] --id ID [--args JSON] [--session SID]\n"
            "                       [--out FILE]\n"
            "       rig task grade  [--url URL] (--answer TEXT | --answer-json JSON |\n"
            "                       --answer-file FILE|-) [--session SID] [--out FILE]\n"
            "       rig task cancel [--url URL] --session SID\n"
            "\n"
            "Drive an environment's control channel (rig env serve, or any server of\n"
            "HUD's v6 wire): start a task now, grade the answer later. Results go to\n"
            "stdout, the session id and diagnostics to stderr.\n"
            "\n"
            "  list     print the tasks: id, description, required args\n"
            "  start    start task ID and print its prompt (a string as text, anything\n"
            "           else as JSON) and, on stderr, 'session: SID'; then hang up: the\n"
            "           server keeps the session and its task, to be graded later\n"
            "  grade    send the answer and print the grade frame as one line of JSON\n"
            "           ({\"score\": ...}); then say bye\n"
            "  cancel   drop session SID's task and print the reply\n"
            "\n"
            "options:\n"
            "  --url URL            the control channel, tcp://HOST:PORT (default:\n"
            "                       $RIG_ENV_URL); an IPv6 host goes in brackets:\n"
            "                       tcp://[::1]:7000\n"
            "  --timeout SECS       give up on the whole exchange after SECS seconds\n"
            "                       (default 900: graders may run long); connecting\n"
            "                       alone gives up after 10 s\n"
            "  --session SID        the session to resume (start: to reuse; grade and\n"
            "                       cancel: the one whose task it is). Without it, grade\n"
            "                       takes the server's one parked session, and fails\n"
            "                       when there is none or there are several\n"
            "  --id ID              the task to start\n"
            "  --args JSON          the task's arguments, a JSON object (default {})\n"
            "  --answer TEXT        the answer, sent as a JSON string\n"
            "  --answer-json JSON   the answer as a JSON value (a number, an object, ...)\n"
            "  --answer-file FILE   the answer as the text of FILE ('-': stdin), sent as\n"
            "                       a JSON string\n"
            "  --out FILE           also write the whole result as JSON to FILE (start:\n"
            "                       the prompt with its bindings, workspace, ...)\n"
            "  --json               list: print the result as JSON instead of a table\n"
            "\n"
            "exit status: 0 ok, 1 the server refused (printed as 'message (code N)'),\n"
            "             the grader could not grade (isError), or the connection\n"
            "             failed; 2 usage error\n");
}

/* ---------------------------------------------------------------- options */

/* Which verbs take an option: bits of the verbs table's order. */
enum { V_LIST = 1 << 0, V_START = 1 << 1, V_GRADE = 1 << 2, V_CANCEL = 1 << 3, V_ALL = 15 };

enum answer_kind { ANSWER_NONE, ANSWER_TEXT, ANSWER_JSON, ANSWER_FILE };

typedef struct task_opts {
    const char *verb;
    const char *url;
    const char *url_from; /* "--url" or "RIG_ENV_URL", for messages */
    char host[256];
    char port[8];
    char where[300]; /* HOST:PORT as the URL gives it, for messages */
    double timeout;
    const char *out, *id, *args, *session, *answer;
    enum answer_kind answer_kind;
    bool json;
    rig_json_writer params; /* the verb's params object, built before connecting */
} task_opts;

/* Splits tcp://HOST:PORT (HOST may be [v6]) into o->host and o->port. */
static bool parse_url(task_opts *o)
{
    const char *u = o->url;
    if (strncmp(u, "tcp://", 6) != 0)
        return false;
    u += 6;
    const char *host = u, *colon;
    size_t hlen;
    if (*u == '[') {
        const char *close = strchr(u, ']');
        if (!close || close[1] != ':')
            return false;
        host = u + 1;
        hlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strchr(u, ':');
        if (!colon || strchr(colon + 1, ':'))
            return false; /* a bare IPv6 address is ambiguous */
        hlen = (size_t)(colon - u);
    }
    if (hlen == 0 || hlen >= sizeof o->host || memchr(host, '/', hlen) || memchr(host, '@', hlen))
        return false;
    const char *p = colon + 1;
    size_t plen = strlen(p);
    snprintf(o->where, sizeof o->where, "%s", u);
    if (plen == 0 || plen > 5 || strspn(p, "0123456789") != plen)
        return false;
    long port = strtol(p, NULL, 10);
    if (port < 1 || port > 65535)
        return false;
    memcpy(o->host, host, hlen);
    o->host[hlen] = '\0';
    snprintf(o->port, sizeof o->port, "%ld", port);
    return true;
}

/* ---------------------------------------------------------------- the connection */

typedef struct client {
    int fd;
    const task_opts *o;
    int64_t deadline; /* monotonic ms, for the whole exchange */
    int64_t next_id;
    char *buf;
    size_t pos, len, cap; /* unread bytes: buf[pos..len) */
    rig_json_framer fr;
    bool eof;
    bool quiet;            /* bye: failures are not worth saying */
    char *session;         /* known session id, for heartbeats; malloc'd */
    int64_t last_sent;     /* when a line last went out */
} client;

static void client_close(client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    free(c->session);
    c->session = NULL;
}

static int remaining_ms(const client *c)
{
    int64_t left = c->deadline - rig__now_ms();
    return left <= 0 ? 0 : left > 86400000 ? 86400000 : (int)left;
}

/* Connects to o->host:o->port: every address in turn, each bounded by what
 * is left of CONNECT_TIMEOUT_MS and of the whole deadline. */
static int client_connect(client *c)
{
    const task_opts *o = c->o;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(o->host, o->port, &hints, &res);
    if (gai != 0) {
        fprintf(stderr, "rig task: cannot resolve '%s': %s\n", o->host,
                gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
        return CLI_FAIL;
    }
    int64_t start = rig__now_ms(), limit = start + CONNECT_TIMEOUT_MS;
    if (limit > c->deadline)
        limit = c->deadline;
    int err = ECONNREFUSED;
    bool timed_out = false;
    for (struct addrinfo *ai = res; ai && c->fd < 0; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            c->fd = fd;
            break;
        }
        if (errno != EINPROGRESS) {
            err = errno;
            close(fd);
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n;
        do {
            int64_t left = limit - rig__now_ms();
            n = poll(&p, 1, left > 0 ? (int)left : 0);
        } while (n < 0 && errno == EINTR);
        if (n == 0) {
            timed_out = true;
            close(fd);
            continue;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
            soerr = errno;
        if (soerr) {
            err = soerr;
            close(fd);
            continue;
        }
        c->fd = fd;
    }
    freeaddrinfo(res);
    if (c->fd >= 0)
        return CLI_OK;
    if (timed_out)
        fprintf(stderr, "rig task: cannot connect to %s: no answer within %g s\n", o->where,
                (double)(limit - start) / 1000);
    else
        fprintf(stderr, "rig task: cannot connect to %s: %s\n", o->where, strerror(err));
    return CLI_FAIL;
}

static int client_send(client *c, const char *line, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = c->fd, .events = POLLOUT};
            int r = poll(&p, 1, remaining_ms(c));
            if (r == 0) {
                if (!c->quiet)
                    fprintf(stderr,
                            "rig task: %s took nothing sent to it within %g s (--timeout)\n",
                            c->o->where, c->o->timeout);
                return CLI_FAIL;
            }
            continue;
        }
        if (!c->quiet)
            fprintf(stderr, "rig task: lost the connection to %s: %s\n", c->o->where,
                    strerror(n < 0 ? errno : EPIPE));
        return CLI_FAIL;
    }
    c->last_sent = rig__now_ms();
    return CLI_OK;
}

/* Sends {"jsonrpc","id"?,"method","params"?}: params is one JSON value's
 * compact text, or NULL. id < 0: a notification. */
static int client_send_msg(client *c, int64_t id, const char *method, const char *params,
                           size_t plen)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "jsonrpc");
    rig_json_write_string(&w, "2.0");
    if (id >= 0) {
        rig_json_write_key(&w, "id");
        rig_json_write_int(&w, id);
    }
    rig_json_write_key(&w, "method");
    rig_json_write_string(&w, method);
    if (params) {
        rig_json_write_key(&w, "params");
        rig_json_write_raw(&w, params, plen);
    }
    rig_json_write_object_end(&w);
    size_t len = 0;
    char *line = rig_json_writer_detach(&w, &len);
    char *nl = line ? realloc(line, len + 1) : NULL;
    rig_json_writer_free(&w);
    if (!nl) {
        free(line);
        fprintf(stderr, "rig task: out of memory\n");
        return CLI_FAIL;
    }
    line = nl;
    line[len++] = '\n';
    int rc = client_send(c, line, len);
    free(line);
    return rc;
}

/* One reply line: IGNORE when it is not the answer to request `id`; else
 * CLI_OK with the reply's document in *out, or CLI_FAIL said. */
enum { IGNORE = -1 };

static int take_line(client *c, const char *data, size_t len, int64_t id, const char *method,
                     rig_json_doc **out)
{
    rig_json_options jo = {.max_size = MAX_REPLY, .flags = RIG_JSON_COPY_INPUT};
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(data, len, &jo, &jerr);
    if (!doc) {
        if (!c->quiet) {
            char msg[160];
            rig_json_error_format(&jerr, msg, sizeof msg);
            fprintf(stderr, "rig task: malformed reply from %s (not JSON: %s)\n", c->o->where, msg);
        }
        return CLI_FAIL;
    }
    rig_json_val root = rig_json_doc_root(doc);
    rig_json_val rid = rig_json_get(root, "id");
    int64_t got;
    bool ours = rig_json_get_int64(rid, &got) == 0 && got == id;
    /* id null with an error: the server could not read a line of ours. */
    if (!ours && rig_json_is_null(rid) && rig_json_exists(rig_json_get(root, "error")))
        ours = true;
    if (!rig_json_is_object(root) || !ours) {
        rig_json_doc_free(doc);
        return IGNORE;
    }
    rig_json_val e = rig_json_get(root, "error");
    if (rig_json_exists(e)) {
        if (!c->quiet) {
            rig_json_val m = rig_json_get(e, "message");
            int64_t code = 0;
            bool has_code = rig_json_get_int64(rig_json_get(e, "code"), &code) == 0;
            size_t mlen = 0;
            char *msg = NULL;
            if (rig_json_is_string(m) && (msg = malloc((mlen = rig_json_str_len(m)) + 1)))
                rig_json_str_copy(m, msg, mlen + 1, NULL);
            if (msg && has_code)
                fprintf(stderr, "rig task: %s (code %lld)\n", msg, (long long)code);
            else if (msg)
                fprintf(stderr, "rig task: %s\n", msg);
            else {
                size_t rl = 0;
                const char *raw = rig_json_raw(e, &rl);
                fprintf(stderr, "rig task: %s failed: %.*s\n", method, (int)rl, raw);
            }
            free(msg);
        }
        rig_json_doc_free(doc);
        return CLI_FAIL;
    }
    if (!rig_json_exists(rig_json_get(root, "result"))) {
        if (!c->quiet)
            fprintf(stderr, "rig task: malformed reply to %s: neither result nor error\n", method);
        rig_json_doc_free(doc);
        return CLI_FAIL;
    }
    *out = doc;
    return CLI_OK;
}

/* Reads more bytes into the buffer, waiting until the deadline (sending
 * heartbeats meanwhile). CLI_OK (bytes or EOF read) or CLI_FAIL said. */
static int client_fill(client *c, const char *method)
{
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
    if (c->cap - c->len < READ_CHUNK) {
        size_t cap = c->cap ? c->cap * 2 : READ_CHUNK * 2;
        char *b = realloc(c->buf, cap);
        if (!b) {
            fprintf(stderr, "rig task: out of memory reading the reply to %s\n", method);
            return CLI_FAIL;
        }
        c->buf = b;
        c->cap = cap;
    }
    for (;;) {
        int wait = remaining_ms(c);
        if (wait == 0) {
            if (!c->quiet)
                fprintf(stderr, "rig task: no answer to %s from %s within %g s (--timeout)\n",
                        method, c->o->where, c->o->timeout);
            return CLI_FAIL;
        }
        int64_t beat = 0;
        if (c->session) {
            beat = c->last_sent + HEARTBEAT_MS - rig__now_ms();
            if (beat <= 0) {
                rig_json_writer w;
                rig_json_writer_init(&w, 0);
                rig_json_write_object_begin(&w);
                rig_json_write_key(&w, "session_id");
                rig_json_write_string(&w, c->session);
                rig_json_write_object_end(&w);
                size_t plen = 0;
                const char *p = rig_json_writer_finish(&w, &plen);
                int rc = p ? client_send_msg(c, -1, "hello", p, plen) : CLI_FAIL;
                rig_json_writer_free(&w);
                if (rc != CLI_OK)
                    return CLI_FAIL;
                continue;
            }
            if (beat < wait)
                wait = (int)beat;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int n = poll(&p, 1, wait);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "rig task: poll: %s\n", strerror(errno));
            return CLI_FAIL;
        }
        if (n <= 0)
            continue;
        ssize_t got = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (got > 0) {
            c->len += (size_t)got;
            return CLI_OK;
        }
        if (got == 0) {
            c->eof = true;
            return CLI_OK;
        }
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
            continue;
        if (!c->quiet)
            fprintf(stderr, "rig task: lost the connection to %s waiting for %s: %s\n", c->o->where,
                    method, strerror(errno));
        return CLI_FAIL;
    }
}

/* Sends request `method` with `params` (compact JSON text or NULL) and waits
 * for its answer: CLI_OK with the reply in *out (its "result" is there), or
 * CLI_FAIL with the reason said on stderr. */
static int client_call(client *c, const char *method, const char *params, size_t plen,
                       rig_json_doc **out)
{
    int64_t id = c->next_id++;
    *out = NULL;
    if (client_send_msg(c, id, method, params, plen) != CLI_OK)
        return CLI_FAIL;
    for (;;) {
        /* The lines buffered so far. (An empty buffer is not framed: it
         * may still be NULL.) */
        for (;;) {
            rig_json_frame fr = {0};
            int rc = c->len > c->pos
                         ? rig_json_framer_next(&c->fr, c->buf + c->pos, c->len - c->pos, &fr)
                         : 0;
            c->pos += fr.consumed;
            if (rc == 0)
                break;
            if (rc == RIG_JSON_EFRAME) {
                if (!c->quiet)
                    fprintf(stderr, "rig task: a reply from %s is longer than %zu MiB\n",
                            c->o->where, MAX_REPLY >> 20);
                return CLI_FAIL;
            }
            int r = take_line(c, fr.data, fr.len, id, method, out);
            if (r != IGNORE)
                return r;
        }
        if (c->eof) {
            /* A last line without its newline still counts. */
            rig_json_frame fr = {0};
            int rc = c->len > c->pos
                         ? rig_json_framer_finish(&c->fr, c->buf + c->pos, c->len - c->pos, &fr)
                         : 0;
            c->pos += fr.consumed;
            if (rc == 1) {
                int r = take_line(c, fr.data, fr.len, id, method, out);
                if (r != IGNORE)
                    return r;
            }
            if (!c->quiet)
                fprintf(stderr, "rig task: %s closed the connection without answering %s\n",
                        c->o->where, method);
            return CLI_FAIL;
        }
        if (client_fill(c, method) != CLI_OK)
            return CLI_FAIL;
    }
}

static int client_open(client *c, const task_opts *o)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->o = o;
    c->next_id = 1;
    c->deadline = rig__now_ms() + (int64_t)(o->timeout * 1000);
    rig_json_framer_init(&c->fr, MAX_REPLY);
    return client_connect(c);
}

/* A copy of string v (NULs and all; *len may be NULL), or NULL. */
static char *str_dup(rig_json_val v, size_t *len)
{
    if (!rig_json_is_string(v))
        return NULL;
    size_t n = rig_json_str_len(v);
    char *s = malloc(n + 1);
    if (s)
        rig_json_str_copy(v, s, n + 1, NULL);
    if (len)
        *len = n;
    return s;
}

/* hello, with {session_id} when o->session is set: the session in use is
 * then known (printed by start, beaten by heartbeats). */
static int client_hello(client *c)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    if (c->o->session) {
        rig_json_write_key(&w, "session_id");
        rig_json_write_string(&w, c->o->session);
    }
    rig_json_write_object_end(&w);
    size_t plen = 0;
    const char *p = rig_json_writer_finish(&w, &plen);
    rig_json_doc *doc = NULL;
    int rc = p ? client_call(c, "hello", p, plen, &doc) : CLI_FAIL;
    rig_json_writer_free(&w);
    if (rc != CLI_OK)
        return rc;
    rig_json_val sid = rig_json_get(rig_json_get(rig_json_doc_root(doc), "result"), "session_id");
    c->session = str_dup(sid, NULL);
    rig_json_doc_free(doc);
    if (!c->session) {
        fprintf(stderr, "rig task: malformed reply to hello: no session_id\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* bye, best effort: its answer (or the server hanging up) is waited for a
 * moment, so the server reads it before the socket closes. */
static void client_bye(client *c)
{
    c->quiet = true;
    int64_t soon = rig__now_ms() + BYE_WAIT_MS;
    if (soon < c->deadline)
        c->deadline = soon;
    rig_json_doc *doc = NULL;
    if (client_call(c, "bye", NULL, 0, &doc) == CLI_OK)
        rig_json_doc_free(doc);
}

/* ---------------------------------------------------------------- output */

/* Writes value v as compact JSON and a newline to f. */
static bool write_json(FILE *f, rig_json_val v)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_value(&w, v);
    size_t len = 0;
    const char *s = rig_json_writer_finish(&w, &len);
    bool ok = s && fwrite(s, 1, len, f) == len && fputc('\n', f) != EOF;
    rig_json_writer_free(&w);
    return ok;
}

/* --out FILE: the result as JSON. */
static int write_out(const task_opts *o, rig_json_val v)
{
    if (!o->out)
        return CLI_OK;
    FILE *f = fopen(o->out, "w");
    if (!f) {
        fprintf(stderr, "rig task: --out %s: %s\n", o->out, strerror(errno));
        return CLI_FAIL;
    }
    bool ok = write_json(f, v);
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "rig task: --out %s: %s\n", o->out, strerror(errno ? errno : EIO));
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* Display width of UTF-8 text, counting code points. */
static size_t width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Text for one table cell: control characters (newlines in a description)
 * become spaces. */
static char *cell(rig_json_val v, const char *none)
{
    char *s = str_dup(v, NULL);
    if (!s || !*s) {
        free(s);
        return strdup(none);
    }
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return s;
}

static void pad(const char *s, size_t to)
{
    fputs(s, stdout);
    for (size_t w = width(s); w < to; w++)
        fputc(' ', stdout);
}

/* The tasks as a table: ID, DESCRIPTION, REQUIRED ARGS. */
static int print_tasks(rig_json_val tasks)
{
    size_t n = rig_json_len(tasks);
    char **rows = calloc(n * 3 + 1, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "rig task: out of memory\n");
        return CLI_FAIL;
    }
    size_t wid = 2, wdesc = 11;
    for (size_t i = 0; i < n; i++) {
        rig_json_val t = rig_json_at(tasks, i);
        rows[3 * i] = cell(rig_json_get(t, "id"), "?");
        rows[3 * i + 1] = cell(rig_json_get(t, "description"), "-");
        rig_json_val req = rig_json_get(rig_json_get(t, "args"), "required");
        rig_json_iter it = rig_json_iter_init(req);
        rig_json_val r;
        size_t k = 0;
        char *names = NULL;
        size_t nlen = 0;
        while (rig_json_iter_next(&it, &r)) {
            char *s = cell(r, "?");
            size_t sl = s ? strlen(s) : 0;
            char *b = s ? realloc(names, nlen + sl + 3) : NULL;
            if (b) {
                names = b;
                nlen += (size_t)sprintf(names + nlen, "%s%s", k++ ? ", " : "", s);
            }
            free(s);
        }
        rows[3 * i + 2] = names ? names : strdup("-");
        if (!rows[3 * i] || !rows[3 * i + 1] || !rows[3 * i + 2]) {
            fprintf(stderr, "rig task: out of memory\n");
            for (size_t j = 0; j < 3 * n; j++)
                free(rows[j]);
            free(rows);
            return CLI_FAIL;
        }
        if (width(rows[3 * i]) > wid)
            wid = width(rows[3 * i]);
        if (width(rows[3 * i + 1]) > wdesc)
            wdesc = width(rows[3 * i + 1]);
    }
    /* Long descriptions would push the last column far right: past 60
     * characters it follows the description after two spaces. */
    if (wdesc > 60)
        wdesc = 60;
    pad("ID", wid + 2);
    pad("DESCRIPTION", wdesc + 2);
    fputs("REQUIRED ARGS\n", stdout);
    for (size_t i = 0; i < n; i++) {
        pad(rows[3 * i], wid + 2);
        pad(rows[3 * i + 1], wdesc);
        fputs("  ", stdout);
        fputs(rows[3 * i + 2], stdout);
        fputc('\n', stdout);
    }
    for (size_t j = 0; j < 3 * n; j++)
        free(rows[j]);
    free(rows);
    return CLI_OK;
}

/* ---------------------------------------------------------------- verbs */

static int run_list(task_opts *o)
{
    client c;
    rig_json_doc *doc = NULL;
    int rc = client_open(&c, o);
    if (rc == CLI_OK)
        rc = client_call(&c, "tasks.list", NULL, 0, &doc);
    if (rc == CLI_OK) {
        rig_json_val res = rig_json_get(rig_json_doc_root(doc), "result");
        rig_json_val tasks = rig_json_get(res, "tasks");
        if (o->json)
            rc = write_json(stdout, res) ? CLI_OK : CLI_FAIL;
        else if (!rig_json_is_array(tasks)) {
            fprintf(stderr, "rig task: malformed reply to tasks.list: no tasks array\n");
            rc = CLI_FAIL;
        } else {
            rc = print_tasks(tasks);
        }
        if (write_out(o, res) != CLI_OK)
            rc = CLI_FAIL;
        client_bye(&c);
    }
    rig_json_doc_free(doc);
    client_close(&c);
    return rc;
}

static int run_start(task_opts *o)
{
    client c;
    rig_json_doc *doc = NULL;
    size_t plen = 0;
    const char *params = rig_json_writer_finish(&o->params, &plen);
    int rc = client_open(&c, o);
    if (rc == CLI_OK)
        rc = client_hello(&c);
    if (rc == CLI_OK)
        rc = client_call(&c, "tasks.start", params, plen, &doc);
    if (rc == CLI_OK) {
        rig_json_val res = rig_json_get(rig_json_doc_root(doc), "result");
        rig_json_val prompt = rig_json_get(res, "prompt");
        const char *text;
        size_t tlen = 0;
        char *dec = NULL;
        if (rig_json_is_string(prompt) && (dec = str_dup(prompt, &tlen))) {
            text = dec;
            fwrite(text, 1, tlen, stdout);
            if (tlen == 0 || text[tlen - 1] != '\n')
                fputc('\n', stdout);
            free(dec);
        } else {
            write_json(stdout, rig_json_exists(prompt) ? prompt : res);
        }
        fflush(stdout);
        fprintf(stderr, "session: %s\n", c.session);
        rc = write_out(o, res);
    }
    /* No bye: hanging up parks the session with its task. */
    rig_json_doc_free(doc);
    client_close(&c);
    return rc;
}

/* grade and cancel: resume the session (--session) or let the server pick
 * its one parked session, call, print the result on one line, say bye. */
static int run_on_session(task_opts *o, const char *method, bool grade)
{
    client c;
    rig_json_doc *doc = NULL;
    size_t plen = 0;
    const char *params = grade ? rig_json_writer_finish(&o->params, &plen) : NULL;
    int rc = client_open(&c, o);
    if (rc == CLI_OK && o->session)
        rc = client_hello(&c);
    if (rc == CLI_OK)
        rc = client_call(&c, method, params, plen, &doc);
    if (rc == CLI_OK) {
        rig_json_val res = rig_json_get(rig_json_doc_root(doc), "result");
        rc = write_json(stdout, res) ? CLI_OK : CLI_FAIL;
        fflush(stdout);
        if (write_out(o, res) != CLI_OK)
            rc = CLI_FAIL;
        bool is_error = false;
        if (grade && rig_json_get_bool(rig_json_get(res, "isError"), &is_error) == 0 &&
            is_error) {
            char *why = str_dup(rig_json_get(res, "content"), NULL);
            fprintf(stderr, "rig task: the grader could not grade the answer%s%s\n",
                    why ? ": " : "", why ? why : "");
            free(why);
            rc = CLI_FAIL;
        }
        client_bye(&c);
    }
    rig_json_doc_free(doc);
    client_close(&c);
    return rc;
}

static int run_grade(task_opts *o) { return run_on_session(o, "tasks.grade", true); }
static int run_cancel(task_opts *o) { return run_on_session(o, "tasks.cancel", false); }

typedef struct verb {
    const char *name;
    int (*run)(task_opts *o);
    unsigned bit;
} verb;

static const verb verbs[] = {
    {"list", run_list, V_LIST},
    {"start", run_start, V_START},
    {"grade", run_grade, V_GRADE},
    {"cancel", run_cancel, V_CANCEL},
};

/* The options: name, the verbs that take it, whether it has a value. */
typedef struct option {
    const char *name;
    unsigned verbs;
    bool has_value;
} option;

static const option options[] = {
    {"--url", V_ALL, true},
    {"--timeout", V_ALL, true},
    {"--out", V_LIST | V_START | V_GRADE, true},
    {"--json", V_LIST, false},
    {"--id", V_START, true},
    {"--args", V_START, true},
    {"--session", V_START | V_GRADE | V_CANCEL, true},
    {"--answer", V_GRADE, true},
    {"--answer-json", V_GRADE, true},
    {"--answer-file", V_GRADE, true},
};

static bool set_answer(task_opts *o, enum answer_kind kind, const char *val)
{
    if (o->answer_kind != ANSWER_NONE) {
        fprintf(stderr, "rig task: give one of --answer, --answer-json, --answer-file\n");
        return false;
    }
    o->answer_kind = kind;
    o->answer = val;
    return true;
}

/* Takes option `opt` with value `val` (NULL for a flag). */
static bool take_option(task_opts *o, const char *opt, const char *val)
{
    if (strcmp(opt, "--url") == 0) {
        o->url = val;
        o->url_from = "--url";
    } else if (strcmp(opt, "--timeout") == 0) {
        char *end;
        o->timeout = strtod(val, &end);
        if (*end || end == val || !(o->timeout > 0) || o->timeout > 86400) {
            fprintf(stderr, "rig task: --timeout needs seconds between 0 and 86400\n");
            return false;
        }
    } else if (strcmp(opt, "--out") == 0) {
        o->out = val;
    } else if (strcmp(opt, "--json") == 0) {
        o->json = true;
    } else if (strcmp(opt, "--id") == 0) {
        o->id = val;
    } else if (strcmp(opt, "--args") == 0) {
        o->args = val;
    } else if (strcmp(opt, "--session") == 0) {
        if (!*val) {
            fprintf(stderr, "rig task: --session needs a session id\n");
            return false;
        }
        o->session = val;
    } else if (strcmp(opt, "--answer") == 0) {
        return set_answer(o, ANSWER_TEXT, val);
    } else if (strcmp(opt, "--answer-json") == 0) {
        return set_answer(o, ANSWER_JSON, val);
    } else if (strcmp(opt, "--answer-file") == 0) {
        return set_answer(o, ANSWER_FILE, val);
    }
    return true;
}

/* Writes JSON text `text` into w as a value: CLI_OK, or CLI_USAGE said
 * (`what` names the option). Objects only when `object`. */
static int put_json(rig_json_writer *w, const char *what, const char *text, bool object)
{
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(text, strlen(text), NULL, &jerr);
    if (!doc) {
        char msg[160];
        rig_json_error_format(&jerr, msg, sizeof msg);
        fprintf(stderr, "rig task: %s needs %s: %s\n", what, object ? "a JSON object" : "JSON",
                msg);
        return CLI_USAGE;
    }
    rig_json_val v = rig_json_doc_root(doc);
    if (object && !rig_json_is_object(v)) {
        fprintf(stderr, "rig task: %s needs a JSON object, not %s\n", what,
                rig_json_type_name(rig_json_typeof(v)));
        rig_json_doc_free(doc);
        return CLI_USAGE;
    }
    rig_json_write_value(w, v);
    rig_json_doc_free(doc);
    return CLI_OK;
}

/* The params of start ({id, args}) and grade ({answer}), checked before
 * anything is sent. */
static int build_params(task_opts *o, const verb *v)
{
    rig_json_writer *w = &o->params;
    rig_json_write_object_begin(w);
    if (v->bit == V_START) {
        rig_json_write_key(w, "id");
        rig_json_write_string(w, o->id);
        rig_json_write_key(w, "args");
        if (o->args) {
            int rc = put_json(w, "--args", o->args, true);
            if (rc != CLI_OK)
                return rc;
        } else {
            rig_json_write_object_begin(w);
            rig_json_write_object_end(w);
        }
    } else if (v->bit == V_GRADE) {
        rig_json_write_key(w, "answer");
        if (o->answer_kind == ANSWER_TEXT) {
            rig_json_write_string(w, o->answer);
        } else if (o->answer_kind == ANSWER_JSON) {
            int rc = put_json(w, "--answer-json", o->answer, false);
            if (rc != CLI_OK)
                return rc;
        } else {
            char *text = NULL;
            size_t len = 0;
            int e = cli_read_file(o->answer, &text, &len);
            if (e) {
                fprintf(stderr, "rig task: --answer-file %s: %s\n",
                        strcmp(o->answer, "-") == 0 ? "(stdin)" : o->answer, strerror(e));
                return CLI_FAIL;
            }
            rig_json_write_stringn(w, text, len);
            free(text);
        }
    }
    rig_json_write_object_end(w);
    if (rig_json_writer_error(w)) {
        fprintf(stderr, "rig task: out of memory\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cli_task(int argc, char **argv)
{
    task_opts o = {.timeout = DEFAULT_TIMEOUT_S};
    rig_json_writer_init(&o.params, 0);
    int status = CLI_USAGE;
    const verb *v = NULL;

    if (argc < 2) {
        usage(stderr);
        goto out;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        status = CLI_OK;
        goto out;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(argv[1], verbs[i].name) == 0)
            v = &verbs[i];
    if (!v) {
        fprintf(stderr, "rig task: unknown verb '%s' (list, start, grade or cancel)\n", argv[1]);
        usage(stderr);
        goto out;
    }
    o.verb = v->name;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            status = CLI_OK;
            goto out;
        }
        const option *opt = NULL;
        for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
            if (strcmp(a, options[k].name) == 0)
                opt = &options[k];
        if (!opt) {
            fprintf(stderr, "rig task: %s '%s'\n",
                    a[0] == '-' ? "unknown option" : "unexpected argument", a);
            usage(stderr);
            goto out;
        }
        if (!(opt->verbs & v->bit)) {
            fprintf(stderr, "rig task: %s is not an option of '%s'\n", a, v->name);
            usage(stderr);
            goto out;
        }
        if (opt->has_value && i + 1 >= argc) {
            fprintf(stderr, "rig task: %s needs a value\n", a);
            goto out;
        }
        if (!take_option(&o, a, opt->has_value ? argv[++i] : NULL))
            goto out;
    }
    if (!o.url) {
        const char *env = getenv("RIG_ENV_URL");
        if (env && *env) {
            o.url = env;
            o.url_from = "RIG_ENV_URL";
        }
    }
    if (!o.url) {
        fprintf(stderr, "rig task: which server? give --url tcp://HOST:PORT or set RIG_ENV_URL\n");
        goto out;
    }
    if (!parse_url(&o)) {
        fprintf(stderr, "rig task: %s '%s' is not tcp://HOST:PORT (an IPv6 host in brackets)\n",
                o.url_from, o.url);
        goto out;
    }
    if (v->bit == V_START && !o.id) {
        fprintf(stderr, "rig task: which task? give --id ID (rig task list shows them)\n");
        goto out;
    }
    if (v->bit == V_CANCEL && !o.session) {
        /* The wire resumes a parked session by hello or a bare grade only:
         * a bare tasks.cancel would land on this connection's own, empty
         * session and cancel nothing. */
        fprintf(stderr, "rig task: cancel needs --session SID (rig task start prints it)\n");
        goto out;
    }
    if (v->bit == V_GRADE && o.answer_kind == ANSWER_NONE) {
        fprintf(stderr,
                "rig task: grade needs the answer: --answer, --answer-json or --answer-file\n");
        goto out;
    }
    status = build_params(&o, v);
    if (status != CLI_OK)
        goto out;
    status = v->run(&o);
out:
    rig_json_writer_free(&o.params);
    return status;
}
